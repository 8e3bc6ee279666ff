//! Recursive-descent parser: `||` < `&&` < comparison < `!` < primary.
//!
//! ```text
//! expr       := and ( '||' and )*
//! and        := comparison ( '&&' comparison )*
//! comparison := unary ( ('=='|'!='|'<'|'<='|'>'|'>=') unary )?
//! unary      := '!' unary | primary
//! primary    := literal | path | call | '(' expr ')'
//! literal    := string | '-'? number | true | false | null
//! path       := ident ( '.' ident | '[' (digits | string) ']' )*
//! call       := ident '(' ( expr ( ',' expr )* )? ')'
//! ```

use super::ast::{CmpOp, Expr, Func, Path, Pattern, Segment};
use super::error::ParseError;
use super::lexer::{ARITHMETIC_FIX, Tok, Token, tokenize};
use serde_json::{Number, Value};

/// Deepest nesting of parentheses, `!` and calls accepted (keeps recursion bounded).
pub const MAX_DEPTH: usize = 64;

pub struct Parser<'s> {
    src: &'s str,
    toks: Vec<Token>,
    i: usize,
    depth: usize,
}

/// Parses normalised text into an [`Expr`].
pub fn parse(src: &str) -> Result<Expr, ParseError> {
    let toks = tokenize(src)?;
    let mut p = Parser {
        src,
        toks,
        i: 0,
        depth: 0,
    };
    if matches!(p.peek(), Tok::Eof) {
        return Err(p.err_here(
            "empty expression",
            "an expression",
            "write a condition such as `env.ready == true`, or `always()`",
        ));
    }
    let e = p.expr()?;
    if !matches!(p.peek(), Tok::Eof) {
        return Err(p.trailing());
    }
    Ok(e)
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        self.toks.get(self.i).map_or(&Tok::Eof, |t| &t.tok)
    }

    fn pos(&self) -> usize {
        // Lazily: counting the characters on every call made parsing quadratic.
        self.toks
            .get(self.i)
            .map_or_else(|| self.src.chars().count(), |t| t.pos)
    }

    fn bump(&mut self) -> Tok {
        let t = self.peek().clone();
        self.i += 1;
        t
    }

    fn err_here(&self, msg: &str, expected: &str, fix: &str) -> ParseError {
        ParseError::new(self.src, self.pos(), msg, expected, fix)
    }

    fn trailing(&self) -> ParseError {
        let found = self.peek();
        let fix = match found {
            Tok::Ident(w) if w.eq_ignore_ascii_case("and") => "use '&&' instead of 'and'".into(),
            Tok::Ident(w) if w.eq_ignore_ascii_case("or") => "use '||' instead of 'or'".into(),
            Tok::Ident(w) if w == "in" => {
                "use `contains(list, x)` instead of `x in list` (it also finds a key of an \
                 object or a substring of a string)"
                    .into()
            }
            Tok::Minus => ARITHMETIC_FIX.into(),
            Tok::RParen => "remove the extra ')' or add the matching '('".into(),
            Tok::Eq | Tok::Ne | Tok::Lt | Tok::Le | Tok::Gt | Tok::Ge => {
                "comparisons do not chain: write `a < b && b < c`, or add parentheses".into()
            }
            _ => format!(
                "join the conditions with '&&' or '||', or quote the text: '{}'",
                self.src
                    .chars()
                    .skip(self.pos())
                    .take(20)
                    .collect::<String>()
                    .trim()
            ),
        };
        self.err_here(
            &format!(
                "unexpected {} after a complete expression",
                found.describe()
            ),
            "'&&', '||', a comparison operator or the end",
            &fix,
        )
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err_here(
                &format!("expression nested deeper than {MAX_DEPTH} levels"),
                "a shallower expression",
                "remove redundant parentheses or '!' and split the condition",
            ));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Expr, ParseError> {
        let first = self.and()?;
        if !matches!(self.peek(), Tok::Or) {
            return Ok(first);
        }
        let mut items = vec![first];
        while matches!(self.peek(), Tok::Or) {
            self.bump();
            items.push(self.and()?);
        }
        Ok(Expr::Or(items))
    }

    fn and(&mut self) -> Result<Expr, ParseError> {
        let first = self.comparison()?;
        if !matches!(self.peek(), Tok::And) {
            return Ok(first);
        }
        let mut items = vec![first];
        while matches!(self.peek(), Tok::And) {
            self.bump();
            items.push(self.comparison()?);
        }
        Ok(Expr::And(items))
    }

    fn comparison(&mut self) -> Result<Expr, ParseError> {
        let lhs = self.unary()?;
        let op = match self.peek() {
            Tok::Eq => CmpOp::Eq,
            Tok::Ne => CmpOp::Ne,
            Tok::Lt => CmpOp::Lt,
            Tok::Le => CmpOp::Le,
            Tok::Gt => CmpOp::Gt,
            Tok::Ge => CmpOp::Ge,
            _ => return Ok(lhs),
        };
        self.bump();
        let rhs = self.unary()?;
        Ok(Expr::Compare {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        })
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        if matches!(self.peek(), Tok::Not) {
            self.bump();
            self.enter()?;
            let inner = self.unary()?;
            self.depth -= 1;
            return Ok(Expr::Not(Box::new(inner)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Expr, ParseError> {
        let start = self.pos();
        match self.bump() {
            Tok::LParen => {
                self.enter()?;
                let e = self.expr()?;
                self.depth -= 1;
                self.expect_close(Tok::RParen, "')'", start, "add the missing ')'")?;
                Ok(e)
            }
            Tok::Str(s) => Ok(Expr::Literal(Value::String(s))),
            Tok::Num(text) => self.number(&text, start),
            Tok::Minus => match self.bump() {
                Tok::Num(text) => self.number(&format!("-{text}"), start),
                _ => Err(ParseError::new(
                    self.src,
                    start,
                    "'-' must be followed by a number",
                    "a number",
                    "write a negative number like -1; arithmetic is not supported",
                )),
            },
            Tok::Ident(name) => {
                if matches!(self.peek(), Tok::LParen) {
                    return self.call(&name, start);
                }
                match name.to_ascii_lowercase().as_str() {
                    "true" => return Ok(Expr::Literal(Value::Bool(true))),
                    "false" => return Ok(Expr::Literal(Value::Bool(false))),
                    "null" => return Ok(Expr::Literal(Value::Null)),
                    _ => {}
                }
                self.path(name)
            }
            other => {
                self.i -= 1;
                let fix = match other {
                    Tok::Eof => "complete the expression: add a value after the operator".into(),
                    Tok::RParen => "put an expression inside the parentheses".into(),
                    Tok::And | Tok::Or => {
                        "put a condition on both sides of the operator, e.g. `a && b`".into()
                    }
                    _ => format!(
                        "put a value (a variable, a 'string', a number, true/false/null) before {}",
                        other.describe()
                    ),
                };
                Err(self.err_here(
                    &format!("expected a value, found {}", other.describe()),
                    "a value: variable, string, number, true, false, null, function call or '('",
                    &fix,
                ))
            }
        }
    }

    fn expect_close(
        &mut self,
        want: Tok,
        what: &str,
        open: usize,
        fix: &str,
    ) -> Result<(), ParseError> {
        if *self.peek() == want {
            self.bump();
            return Ok(());
        }
        let found = self.peek().describe();
        Err(self.err_here(
            &format!("expected {what} (opened at position {open}), found {found}"),
            what,
            fix,
        ))
    }

    fn number(&self, text: &str, pos: usize) -> Result<Expr, ParseError> {
        let is_int = !text.contains(['.', 'e', 'E']);
        let n = if is_int {
            text.parse::<i64>()
                .ok()
                .map(Number::from)
                .or_else(|| text.parse::<u64>().ok().map(Number::from))
        } else {
            None
        };
        let n = n.or_else(|| text.parse::<f64>().ok().and_then(Number::from_f64));
        n.map(|n| Expr::Literal(Value::Number(n))).ok_or_else(|| {
            ParseError::new(
                self.src,
                pos,
                format!("number {text} is out of range"),
                "a finite number",
                "use a smaller number",
            )
        })
    }

    fn path(&mut self, first: String) -> Result<Expr, ParseError> {
        let mut segments = vec![Segment::Key(first)];
        loop {
            match self.peek() {
                Tok::Dot => {
                    self.bump();
                    match self.bump() {
                        Tok::Ident(k) => segments.push(Segment::Key(k)),
                        Tok::Num(n) if n.bytes().all(|b| b.is_ascii_digit()) => {
                            segments.push(Segment::Key(n));
                        }
                        _ => {
                            self.i -= 1;
                            return Err(self.err_here(
                                "expected a property name after '.'",
                                "a property name",
                                "write `a.b`, or `a['odd key']` for names with spaces or symbols",
                            ));
                        }
                    }
                }
                Tok::LBracket => {
                    let open = self.pos();
                    self.bump();
                    let seg = match self.bump() {
                        Tok::Num(n) => n.parse::<usize>().ok().map(Segment::Index),
                        Tok::Str(s) => Some(Segment::Key(s)),
                        _ => None,
                    };
                    let Some(seg) = seg else {
                        self.i -= 1;
                        return Err(self.err_here(
                            "expected an index or a quoted key inside '[ ]'",
                            "a non-negative integer or a string",
                            "write `items[0]` or `map['key']`",
                        ));
                    };
                    segments.push(seg);
                    self.expect_close(Tok::RBracket, "']'", open, "add the missing ']'")?;
                }
                _ => return Ok(Expr::Path(Path { segments })),
            }
        }
    }

    fn call(&mut self, name: &str, start: usize) -> Result<Expr, ParseError> {
        let Some(func) = Func::from_name(name) else {
            let known: Vec<&str> = Func::ALL.iter().map(|f| f.name()).collect();
            return Err(ParseError::new(
                self.src,
                start,
                format!("unknown function '{name}'"),
                format!("one of: {}", known.join(", ")),
                format!("use one of the functions {}", known.join(", ")),
            ));
        };
        let open = self.pos();
        self.bump();
        self.enter()?;
        let mut args = Vec::new();
        if !matches!(self.peek(), Tok::RParen) {
            loop {
                args.push(self.expr()?);
                if matches!(self.peek(), Tok::Comma) {
                    self.bump();
                    continue;
                }
                break;
            }
        }
        self.depth -= 1;
        self.expect_close(
            Tok::RParen,
            "')' or ','",
            open,
            &format!("close the call: {}", func.signature()),
        )?;
        let (min, max) = func.arity();
        if args.len() < min || max.is_some_and(|m| args.len() > m) {
            let want = match max {
                Some(m) if m == min => format!("{min}"),
                Some(m) => format!("{min} to {m}"),
                None => format!("at least {min}"),
            };
            return Err(ParseError::new(
                self.src,
                start,
                format!(
                    "{} takes {want} argument(s), got {}",
                    func.name(),
                    args.len()
                ),
                format!("{want} argument(s)"),
                format!("call it as {}", func.signature()),
            ));
        }
        if func == Func::Matches
            && let Some(Expr::Literal(Value::String(pat))) = args.get(1)
        {
            let pattern = Pattern::new(pat).map_err(|e| {
                ParseError::new(
                    self.src,
                    start,
                    format!(
                        "invalid regular expression '{pat}': {}",
                        e.lines().last().unwrap_or("")
                    ),
                    "a valid regular expression",
                    "fix the pattern (regex-lite syntax; escape special characters with \\\\)",
                )
            })?;
            if let Some(slot) = args.get_mut(1) {
                *slot = Expr::Pattern(pattern);
            }
        }
        Ok(Expr::Call { func, args })
    }
}

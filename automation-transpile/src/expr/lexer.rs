//! Tokenizer for the condition language. Works on normalised text, counts characters.

use super::error::ParseError;

/// One token kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Dot,
    Minus,
    Not,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Str(String),
    /// The digits as written (sign handled by the parser).
    Num(String),
    Ident(String),
    Eof,
}

impl Tok {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            Self::LParen => "'('".into(),
            Self::RParen => "')'".into(),
            Self::LBracket => "'['".into(),
            Self::RBracket => "']'".into(),
            Self::Comma => "','".into(),
            Self::Dot => "'.'".into(),
            Self::Minus => "'-'".into(),
            Self::Not => "'!'".into(),
            Self::Eq => "'=='".into(),
            Self::Ne => "'!='".into(),
            Self::Lt => "'<'".into(),
            Self::Le => "'<='".into(),
            Self::Gt => "'>'".into(),
            Self::Ge => "'>='".into(),
            Self::And => "'&&'".into(),
            Self::Or => "'||'".into(),
            Self::Str(s) => format!("string '{s}'"),
            Self::Num(n) => format!("number {n}"),
            Self::Ident(i) => format!("identifier '{i}'"),
            Self::Eof => "end of expression".into(),
        }
    }
}

/// A token and the character offset where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub pos: usize,
}

/// The fix for `+ - * / %` (the language compares values, it does not compute them).
pub const ARITHMETIC_FIX: &str = "arithmetic is not supported: compare the values directly (e.g. `runtime.attempts >= 3`), or compute the number before the condition and pass it in as a variable";

/// Identifier start: letters, `_`, `$`.
pub fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == '$'
}

/// Identifier continuation: letters, digits, `_`, `$`.
pub fn is_ident_continue(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

struct Lexer<'s> {
    src: &'s str,
    chars: Vec<char>,
    i: usize,
    out: Vec<Token>,
}

/// Splits normalised `src` into tokens, ending with [`Tok::Eof`].
pub fn tokenize(src: &str) -> Result<Vec<Token>, ParseError> {
    let mut lx = Lexer {
        src,
        chars: src.chars().collect(),
        i: 0,
        out: Vec::new(),
    };
    lx.run()?;
    Ok(lx.out)
}

impl Lexer<'_> {
    fn peek(&self, off: usize) -> Option<char> {
        self.chars.get(self.i + off).copied()
    }

    fn push(&mut self, tok: Tok, pos: usize, len: usize) {
        self.out.push(Token { tok, pos });
        self.i = pos + len;
    }

    fn err(&self, pos: usize, msg: &str, expected: &str, fix: &str) -> ParseError {
        ParseError::new(self.src, pos, msg, expected, fix)
    }

    fn run(&mut self) -> Result<(), ParseError> {
        while let Some(c) = self.peek(0) {
            let pos = self.i;
            let next = self.peek(1);
            match c {
                c if c.is_whitespace() => self.i += 1,
                '(' => self.push(Tok::LParen, pos, 1),
                ')' => self.push(Tok::RParen, pos, 1),
                '[' => self.push(Tok::LBracket, pos, 1),
                ']' => self.push(Tok::RBracket, pos, 1),
                ',' => self.push(Tok::Comma, pos, 1),
                '.' => self.push(Tok::Dot, pos, 1),
                '-' => self.push(Tok::Minus, pos, 1),
                '=' if next == Some('=') => {
                    let len = if self.peek(2) == Some('=') { 3 } else { 2 };
                    self.push(Tok::Eq, pos, len);
                }
                '=' => {
                    return Err(self.err(
                        pos,
                        "single '=' is not an operator",
                        "'==' or '!='",
                        "use '==' to compare values, e.g. `status == 'ok'`",
                    ));
                }
                '!' if next == Some('=') => {
                    let len = if self.peek(2) == Some('=') { 3 } else { 2 };
                    self.push(Tok::Ne, pos, len);
                }
                '!' => self.push(Tok::Not, pos, 1),
                '<' if next == Some('=') => self.push(Tok::Le, pos, 2),
                '<' => self.push(Tok::Lt, pos, 1),
                '>' if next == Some('=') => self.push(Tok::Ge, pos, 2),
                '>' => self.push(Tok::Gt, pos, 1),
                '&' if next == Some('&') => self.push(Tok::And, pos, 2),
                '|' if next == Some('|') => self.push(Tok::Or, pos, 2),
                '&' | '|' => {
                    let op = if c == '&' { "&&" } else { "||" };
                    return Err(self.err(
                        pos,
                        &format!("single '{c}' is not an operator"),
                        &format!("'{op}'"),
                        &format!("use '{op}' to combine conditions"),
                    ));
                }
                '+' | '*' | '/' | '%' => {
                    return Err(self.err(
                        pos,
                        &format!("arithmetic ('{c}') is not supported"),
                        "a comparison operator, '&&', '||' or the end",
                        ARITHMETIC_FIX,
                    ));
                }
                '?' if next == Some('?') => {
                    return Err(self.err(
                        pos,
                        "'??' is not supported",
                        "a comparison operator, '&&', '||' or the end",
                        "write `coalesce(a, b)`: the first truthy argument, else the last",
                    ));
                }
                '?' if next == Some('.') => {
                    return Err(self.err(
                        pos,
                        "'?.' is not supported",
                        "'.'",
                        "write `a.b`: a path through a missing value is simply missing",
                    ));
                }
                '?' | ':' => {
                    return Err(self.err(
                        pos,
                        "the conditional operator `cond ? a : b` is not supported",
                        "a comparison operator, '&&', '||' or the end",
                        "write `(cond && a) || (!cond && b)`, or `coalesce(a, b)` for a default value",
                    ));
                }
                '\'' | '"' => self.string(c)?,
                c if c.is_ascii_digit() => self.number(),
                c if is_ident_start(c) => {
                    let mut j = self.i;
                    while self.chars.get(j).copied().is_some_and(is_ident_continue) {
                        j += 1;
                    }
                    let text: String = self.chars.get(pos..j).unwrap_or_default().iter().collect();
                    self.push(Tok::Ident(text), pos, j - pos);
                }
                other => {
                    return Err(self.err(
                        pos,
                        &format!("unexpected character '{other}'"),
                        "an operand, an operator or a parenthesis",
                        "remove the character or put the text inside quotes: 'like this'",
                    ));
                }
            }
        }
        self.out.push(Token {
            tok: Tok::Eof,
            pos: self.chars.len(),
        });
        Ok(())
    }

    fn number(&mut self) {
        let start = self.i;
        let mut j = start;
        let digit_at = |j: usize| self.chars.get(j).is_some_and(char::is_ascii_digit);
        while digit_at(j) {
            j += 1;
        }
        if self.chars.get(j) == Some(&'.') && digit_at(j + 1) {
            j += 1;
            while digit_at(j) {
                j += 1;
            }
        }
        if matches!(self.chars.get(j), Some('e' | 'E')) {
            let mut k = j + 1;
            if matches!(self.chars.get(k), Some('+' | '-')) {
                k += 1;
            }
            if digit_at(k) {
                j = k;
                while digit_at(j) {
                    j += 1;
                }
            }
        }
        let text: String = self
            .chars
            .get(start..j)
            .unwrap_or_default()
            .iter()
            .collect();
        self.push(Tok::Num(text), start, j - start);
    }

    fn string(&mut self, quote: char) -> Result<(), ParseError> {
        let start = self.i;
        let mut j = start + 1;
        let mut s = String::new();
        loop {
            let Some(c) = self.chars.get(j).copied() else {
                return Err(self.err(
                    start,
                    "unterminated string",
                    &format!("a closing {quote}"),
                    &format!("close the string with a matching {quote}"),
                ));
            };
            j += 1;
            if c == quote {
                break;
            }
            if c != '\\' {
                s.push(c);
                continue;
            }
            let Some(e) = self.chars.get(j).copied() else {
                continue;
            };
            j += 1;
            match e {
                'n' => s.push('\n'),
                't' => s.push('\t'),
                'r' => s.push('\r'),
                '0' => s.push('\0'),
                '\\' | '\'' | '"' => s.push(e),
                'u' => {
                    let (ch, used) = self.unicode_escape(j).ok_or_else(|| {
                        self.err(
                            j.saturating_sub(2),
                            "invalid unicode escape",
                            "\\u{HEX} or \\uXXXX",
                            "write the character itself, or \\u{2019} style escapes",
                        )
                    })?;
                    s.push(ch);
                    j += used;
                }
                // Unknown escapes stay as written: `matches(x, '\d+')` works as typed.
                other => {
                    s.push('\\');
                    s.push(other);
                }
            }
        }
        self.push(Tok::Str(s), start, j - start);
        Ok(())
    }

    /// Parses the part after `\u` starting at `j`; returns the char and chars consumed.
    fn unicode_escape(&self, j: usize) -> Option<(char, usize)> {
        let (hex, used): (String, usize) = if self.chars.get(j) == Some(&'{') {
            let close =
                (j + 1..self.chars.len().min(j + 9)).find(|&k| self.chars.get(k) == Some(&'}'))?;
            (
                self.chars.get(j + 1..close)?.iter().collect(),
                close + 1 - j,
            )
        } else {
            (self.chars.get(j..j + 4)?.iter().collect(), 4)
        };
        let code = u32::from_str_radix(&hex, 16).ok()?;
        Some((char::from_u32(code)?, used))
    }
}

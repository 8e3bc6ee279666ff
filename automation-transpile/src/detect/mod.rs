//! Is this script TypeScript? One lexical pass, no flag from the caller.
//!
//! The [`scan`] lexer skips comments, strings, template literals (with nested `${}`) and
//! regular-expression literals, so text such as `"as admin"` or `// (default: 5000)` never
//! counts. The detector then looks for syntax that valid JavaScript cannot contain: type
//! annotations, `interface`/`type`/`enum`/`namespace`/`declare`, generics, `as`/`satisfies`,
//! non-null assertions, access modifiers, `abstract class`, `implements`, `import type`.
//!
//! ```
//! use automation_transpile::detect::{detect, is_typescript};
//!
//! assert!(!is_typescript("desktop.click('#ok'); // timeout: 5000"));
//! let d = detect("let el: HTMLElement | null = null;");
//! assert!(d.is_typescript);
//! assert_eq!(d.reason, Some("type annotation"));
//! ```

pub mod scan;

use scan::{DECLARABLE, Kind, MODIFIER, NON_VALUE, Scanner, Token};

/// The verdict with its evidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Detection {
    /// True when the script uses TypeScript-only syntax.
    pub is_typescript: bool,
    /// Which rule fired, e.g. `"type annotation"`.
    pub reason: Option<&'static str>,
    /// Byte span of the token that decided it.
    pub span: Option<(usize, usize)>,
}

/// True when `src` contains TypeScript-only syntax. See [`detect`] for the evidence.
pub fn is_typescript(src: &str) -> bool {
    detect(src).is_typescript
}

/// Runs the detector and reports the first TypeScript-only construct found.
pub fn detect(src: &str) -> Detection {
    Detector::new(src).run()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Paren,
    Bracket,
    Brace,
    ClassBody,
    Template,
}

#[derive(Debug, Clone, Copy)]
struct Level {
    open: Open,
    /// Pending ternary `?` awaiting their `:`.
    ternaries: u32,
    /// Pending `case` awaiting its `:`.
    cases: u32,
}

struct Detector<'s> {
    src: &'s str,
    bytes: &'s [u8],
    levels: Vec<Level>,
    /// `[p2, p1]`: the two previous tokens.
    prev: [Option<Token>; 2],
    /// Stack depth at which a `class` heading started, until its body opens.
    class_heading: Option<usize>,
    /// Stack depth inside an `import {`/`export {` clause (where `as` renames).
    module_clause: Option<usize>,
    /// An `import`/`export` statement is being read (until its `{` or end).
    module_stmt: bool,
    /// Open generic-argument candidate: `ident <` … `>` then `(`.
    generic: Option<u32>,
    generic_closed: bool,
    /// A `!` after a value, postfix unless a value follows.
    pending_bang: Option<Token>,
}

impl<'s> Detector<'s> {
    fn new(src: &'s str) -> Self {
        Self {
            src,
            bytes: src.as_bytes(),
            levels: vec![Level {
                open: Open::Brace,
                ternaries: 0,
                cases: 0,
            }],
            prev: [None, None],
            class_heading: None,
            module_clause: None,
            module_stmt: false,
            generic: None,
            generic_closed: false,
            pending_bang: None,
        }
    }

    fn text(&self, t: Option<Token>) -> &'s [u8] {
        t.and_then(|t| self.bytes.get(t.start..t.end))
            .unwrap_or_default()
    }

    fn is_word(&self, t: Option<Token>, w: &[u8]) -> bool {
        t.is_some_and(|t| t.kind == Kind::Ident) && self.text(t) == w
    }

    fn is_name(&self, t: Option<Token>) -> bool {
        t.is_some_and(|t| t.kind == Kind::Ident && t.class & NON_VALUE == 0)
    }

    /// The token ends an expression (a value could not start right after it).
    fn ends_value(&self, t: Option<Token>) -> bool {
        match t.map(|t| t.kind) {
            Some(Kind::Ident) => self.is_name(t),
            Some(Kind::Num | Kind::Str | Kind::Regex) => true,
            Some(Kind::Template) => self.text(t).ends_with(b"`"),
            Some(Kind::Punct) => matches!(self.text(t), b")" | b"]"),
            None => false,
        }
    }

    fn top(&mut self) -> Option<&mut Level> {
        self.levels.last_mut()
    }

    fn push(&mut self, open: Open) {
        self.levels.push(Level {
            open,
            ternaries: 0,
            cases: 0,
        });
    }

    fn run(mut self) -> Detection {
        let src = self.src;
        let found = |reason, t: Token| Detection {
            is_typescript: true,
            reason: Some(reason),
            span: Some((t.start, t.end)),
        };
        for tok in Scanner::new(src) {
            // A `!` right after a value is postfix (TypeScript) unless a value follows it
            // (`if (a) !b && c()` is JavaScript): decided on the next token.
            if let Some(bang) = self.pending_bang.take()
                && self.bang_is_postfix(tok)
            {
                return found("non-null assertion", bang);
            }
            if let Some(reason) = self.step(tok) {
                return Detection {
                    is_typescript: true,
                    reason: Some(reason),
                    span: Some((tok.start, tok.end)),
                };
            }
            self.prev = [self.prev[1], Some(tok)];
        }
        match self.pending_bang {
            Some(bang) => found("non-null assertion", bang),
            None => Detection::default(),
        }
    }

    fn bang_is_postfix(&self, next: Token) -> bool {
        if next.nl_before {
            return true;
        }
        next.kind == Kind::Punct
            && !matches!(
                self.text(Some(next)),
                b"(" | b"!" | b"+" | b"-" | b"~" | b"++" | b"--" | b"{" | b"/"
            )
    }

    /// Feeds one token; returns the rule that proves TypeScript, if any.
    fn step(&mut self, t: Token) -> Option<&'static str> {
        let [p2, p1] = self.prev;
        let cur = Some(t);
        let text = self.text(cur);
        let same_line = !t.nl_before;
        // `p1` is a property name (`obj.private`), not a keyword.
        let p1_is_prop = matches!(self.text(p2), b"." | b"?.");
        // `t` is a property name.
        let t_is_prop = matches!(self.text(p1), b"." | b"?.");

        if let Some(r) = self.generic_step(t) {
            return Some(r);
        }
        if t.kind == Kind::Ident {
            return self.word(t, p1, p2, same_line && !p1_is_prop, t_is_prop);
        }
        if t.kind == Kind::Template && self.text(Some(t)).ends_with(b"${") {
            // The template chunk opened a substitution; its closing `}` pops this level.
            self.push(Open::Template);
        }
        if t.kind != Kind::Punct {
            return None;
        }
        let cast_before = (self.is_word(p1, b"as") || self.is_word(p1, b"satisfies"))
            && self.ends_value(p2)
            && self.module_clause.is_none();
        if self.class_heading == Some(self.levels.len())
            && matches!(text, b":" | b"," | b";" | b"=" | b")" | b"}" | b"]")
        {
            self.class_heading = None;
        }
        if matches!(text, b"," | b")") && self.text(p1) == b"?" {
            return Some("optional parameter");
        }
        match text {
            b"(" | b"[" => {
                self.push(if text == b"(" {
                    Open::Paren
                } else {
                    Open::Bracket
                });
                if cast_before && same_line {
                    return Some("as cast");
                }
            }
            b"{" | b"${" => return self.open_brace(text, p1, p2, same_line, cast_before),
            b")" | b"]" | b"}" => {
                if text == b"}" && self.module_clause == Some(self.levels.len()) {
                    self.module_clause = None;
                }
                if self.levels.len() > 1 {
                    self.levels.pop();
                }
                if self.class_heading.is_some_and(|d| d > self.levels.len()) {
                    self.class_heading = None;
                }
            }
            b"<" => {
                if self.class_heading.is_some() {
                    return Some("generic parameters");
                }
                if self.is_name(p1) && same_line {
                    match self.text(p2) {
                        b"function" => return Some("generic parameters"),
                        b"interface" => return Some("interface"),
                        b"type" => return Some("type alias"),
                        _ => {}
                    }
                    if self.generic.is_none() {
                        self.generic = Some(1);
                        self.generic_closed = false;
                    }
                }
            }
            b"?" => {
                if let Some(l) = self.top() {
                    l.ternaries += 1;
                }
            }
            b":" => return self.colon(p1, p2),
            b"!" if self.ends_value(p1) && same_line => self.pending_bang = Some(t),
            b"=" => {
                self.module_stmt = false;
                if self.is_name(p1) && same_line {
                    match self.text(p2) {
                        b"type" => return Some("type alias"),
                        b"import" => return Some("import = require"),
                        _ => {}
                    }
                }
            }
            b";" => self.module_stmt = false,
            _ => {}
        }
        None
    }

    fn word(
        &mut self,
        t: Token,
        p1: Option<Token>,
        p2: Option<Token>,
        linked: bool,
        t_is_prop: bool,
    ) -> Option<&'static str> {
        let text = self.text(Some(t));
        let p1_text = self.text(p1);
        let p1_word = p1.is_some_and(|p| p.kind == Kind::Ident);
        let relational = matches!(text, b"in" | b"of" | b"instanceof");
        if linked && p1_word {
            if p1_text == b"abstract" && text == b"class" {
                return Some("abstract class");
            }
            if p1_text == b"declare" && t.class & DECLARABLE != 0 {
                return Some("declare");
            }
            if p1.is_some_and(|p| p.class & MODIFIER != 0) && !relational {
                return Some("access modifier");
            }
            if matches!(self.text(p2), b"let" | b"const" | b"var")
                && self.is_name(p1)
                && !relational
            {
                return Some("type after a declared name without ':'");
            }
            if p1_text == b"type" && self.is_word(p2, b"import") && text != b"from" {
                return Some("import type");
            }
            if p1_text == b"type" && self.is_word(p2, b"export") && self.is_name(Some(t)) {
                return Some("type alias");
            }
            if p1_text == b"type" && self.module_clause.is_some() && self.is_name(Some(t)) {
                return Some("import type");
            }
            if (p1_text == b"as" || p1_text == b"satisfies")
                && (self.ends_value(p2) || self.text(p2) == b"}")
                && self.module_clause.is_none()
            {
                return Some(if p1_text == b"as" {
                    "as cast"
                } else {
                    "satisfies"
                });
            }
        }
        if text == b"extends" && self.is_name(p1) && self.is_word(p2, b"interface") {
            return Some("interface");
        }
        if text == b"implements" && self.class_heading.is_some() {
            return Some("implements");
        }
        if t_is_prop {
            return None;
        }
        match text {
            b"class" => self.class_heading = Some(self.levels.len()),
            b"import" | b"export" => self.module_stmt = true,
            b"from" => self.module_stmt = false,
            b"case" => {
                if let Some(l) = self.top() {
                    l.cases += 1;
                }
            }
            _ => {}
        }
        None
    }

    fn open_brace(
        &mut self,
        text: &[u8],
        p1: Option<Token>,
        p2: Option<Token>,
        same_line: bool,
        cast_before: bool,
    ) -> Option<&'static str> {
        if text == b"{" {
            if self.is_name(p1) && same_line {
                match self.text(p2) {
                    b"interface" => return Some("interface"),
                    b"enum" => return Some("enum"),
                    b"namespace" | b"module" => return Some("namespace"),
                    _ => {}
                }
            }
            if self.is_word(p1, b"type") && matches!(self.text(p2), b"import" | b"export") {
                return Some("import type");
            }
            if cast_before {
                return Some("as cast");
            }
            let opens_clause = matches!(self.text(p1), b"import" | b"export")
                || (self.module_stmt && self.text(p1) == b",");
            if opens_clause && self.module_clause.is_none() {
                self.module_clause = Some(self.levels.len() + 1);
            }
        }
        let class_body = text == b"{" && self.class_heading == Some(self.levels.len());
        if class_body {
            self.class_heading = None;
        }
        self.push(match (text, class_body) {
            (b"${", _) => Open::Template,
            (_, true) => Open::ClassBody,
            _ => Open::Brace,
        });
        None
    }

    fn colon(&mut self, p1: Option<Token>, p2: Option<Token>) -> Option<&'static str> {
        if self.text(p1) == b"?" {
            return Some("optional member or parameter");
        }
        let top = self.levels.last_mut();
        let open = top.as_ref().map(|l| l.open);
        if let Some(l) = top {
            if l.ternaries > 0 {
                l.ternaries -= 1;
                return None;
            }
            if l.cases > 0 {
                l.cases -= 1;
                return None;
            }
        }
        if self.is_word(p1, b"default") {
            return None;
        }
        match open {
            Some(Open::Paren | Open::Bracket) => Some("type annotation"),
            Some(Open::ClassBody) => Some("type annotation"),
            _ if self.text(p1) == b")" => Some("return type annotation"),
            _ if matches!(self.text(p2), b"let" | b"const" | b"var") && self.is_name(p1) => {
                Some("type annotation")
            }
            _ => None,
        }
    }

    /// Tracks `name<Type, Other<X>>(`: generic arguments on a call.
    fn generic_step(&mut self, t: Token) -> Option<&'static str> {
        let depth = self.generic?;
        let text = self.text(Some(t));
        if self.generic_closed {
            self.generic = None;
            return (text == b"(" && !t.nl_before).then_some("generic arguments");
        }
        let next = match (t.kind, text) {
            (Kind::Ident | Kind::Str | Kind::Num, _) => Some(depth),
            (Kind::Punct, b"." | b"," | b"|" | b"&" | b"[" | b"]") => Some(depth),
            (Kind::Punct, b"<") => Some(depth + 1),
            (Kind::Punct, b">") => Some(depth - 1),
            (Kind::Punct, b">>") => depth.checked_sub(2),
            _ => None,
        };
        match next {
            Some(0) => self.generic_closed = true,
            Some(d) => self.generic = Some(d),
            None => self.generic = None,
        }
        None
    }
}

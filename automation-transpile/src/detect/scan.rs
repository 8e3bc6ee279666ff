//! A JavaScript/TypeScript lexer just precise enough for detection: it skips comments,
//! strings, template literals (with nested `${ }`), and regular-expression literals, and
//! hands out identifiers, numbers and punctuators as byte spans. Never panics, never
//! allocates per token.

/// Token class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Identifier or keyword.
    Ident,
    /// Numeric literal.
    Num,
    /// String literal.
    Str,
    /// A template literal chunk (between backtick / `${` / `}` boundaries).
    Template,
    /// Regular-expression literal.
    Regex,
    /// Punctuator, e.g. `(`, `?.`, `=>`, `!==`, `${` (opens a template substitution).
    Punct,
}

/// One token: kind, byte span, and whether a line break precedes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    /// Class.
    pub kind: Kind,
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset after the last byte.
    pub end: usize,
    /// A newline (or a comment containing one) separates it from the previous token.
    pub nl_before: bool,
    /// Keyword classes of an identifier ([`NON_VALUE`], [`EXPR_START`], [`MODIFIER`],
    /// [`DECLARABLE`] bits), computed once here.
    pub class: u8,
}

/// A reserved word or operator word that never ends an expression.
pub const NON_VALUE: u8 = 1;
/// After this word an expression (so a regex, not a division) may start.
pub const EXPR_START: u8 = 2;
/// A TypeScript access/readonly modifier.
pub const MODIFIER: u8 = 4;
/// May follow `declare`.
pub const DECLARABLE: u8 = 8;

/// The keyword classes of an identifier's text.
pub fn classify(word: &[u8]) -> u8 {
    match word {
        b"return" | b"typeof" | b"instanceof" | b"in" | b"of" | b"new" | b"delete" | b"void"
        | b"throw" | b"case" | b"do" | b"else" | b"yield" | b"await" | b"extends" => {
            NON_VALUE | EXPR_START
        }
        b"let" | b"const" | b"var" | b"function" | b"class" | b"enum" => NON_VALUE | DECLARABLE,
        b"if" | b"while" | b"for" | b"switch" | b"try" | b"catch" | b"finally" | b"import"
        | b"export" | b"default" | b"as" | b"from" | b"satisfies" => NON_VALUE,
        b"module" | b"namespace" | b"global" | b"type" | b"interface" | b"abstract" | b"async" => {
            DECLARABLE
        }
        b"public" | b"private" | b"protected" | b"readonly" | b"override" => MODIFIER,
        _ => 0,
    }
}

/// The scanner. Iterate it to get tokens.
pub struct Scanner<'s> {
    src: &'s [u8],
    i: usize,
    /// Per open template substitution: how many `{` are open inside it.
    templates: Vec<usize>,
    /// Previous token allows a regex to start here.
    regex_ok: bool,
    /// Set once a template chunk must be read next (after the `}` closing a substitution).
    resume_template: bool,
    /// Regex-literal scan states already walked, two bits per byte (outside / inside a
    /// `[...]` class), allocated on the first `/` that may start a regex. See [`Self::regex`].
    walked: Vec<u64>,
}

impl<'s> Scanner<'s> {
    /// A scanner over `src`.
    pub fn new(src: &'s str) -> Self {
        // A hashbang line (`#!/usr/bin/env node`) is not code.
        let i = if src.starts_with("#!") {
            src.find('\n').unwrap_or(src.len())
        } else {
            0
        };
        Self {
            src: src.as_bytes(),
            i,
            templates: Vec::new(),
            regex_ok: true,
            resume_template: false,
            walked: Vec::new(),
        }
    }

    fn at(&self, j: usize) -> u8 {
        self.src.get(j).copied().unwrap_or(0)
    }

    /// Skips whitespace and comments; returns whether a newline was crossed.
    fn skip_trivia(&mut self) -> bool {
        let mut nl = false;
        loop {
            match self.at(self.i) {
                b'\n' | b'\r' => {
                    nl = true;
                    self.i += 1;
                }
                b' ' | b'\t' | 0x0b | 0x0c => self.i += 1,
                b'/' if self.at(self.i + 1) == b'/' => {
                    while self.i < self.src.len() && !matches!(self.at(self.i), b'\n' | b'\r') {
                        self.i += 1;
                    }
                }
                b'/' if self.at(self.i + 1) == b'*' => {
                    self.i += 2;
                    while self.i < self.src.len()
                        && !(self.at(self.i) == b'*' && self.at(self.i + 1) == b'/')
                    {
                        nl |= self.at(self.i) == b'\n';
                        self.i += 1;
                    }
                    self.i = (self.i + 2).min(self.src.len());
                }
                // U+00A0 and other non-ASCII spaces are rare in code; treat 0xC2 0xA0 as space.
                0xC2 if self.at(self.i + 1) == 0xA0 => self.i += 2,
                _ => return nl,
            }
        }
    }

    /// Reads a quoted string body from the opening quote at `self.i`.
    fn string(&mut self, q: u8) {
        self.i += 1;
        while self.i < self.src.len() {
            match self.at(self.i) {
                b'\\' => self.i += 2,
                b'\n' => return,
                c if c == q => {
                    self.i += 1;
                    return;
                }
                _ => self.i += 1,
            }
        }
        self.i = self.src.len();
    }

    /// Reads a template chunk from `self.i` (just after a backtick or a closing `}`) up to
    /// and including the closing backtick, or up to `${` (which it consumes and records).
    fn template_chunk(&mut self) {
        while self.i < self.src.len() {
            match self.at(self.i) {
                b'\\' => self.i += 2,
                b'`' => {
                    self.i += 1;
                    return;
                }
                b'$' if self.at(self.i + 1) == b'{' => {
                    self.i += 2;
                    self.templates.push(0);
                    return;
                }
                _ => self.i += 1,
            }
        }
        self.i = self.src.len();
    }

    /// Marks the regex-scan state `(j, class)` as walked; returns whether it already was.
    fn walk(&mut self, j: usize, class: bool) -> bool {
        let bit = 2 * j + usize::from(class);
        let Some(word) = self.walked.get_mut(bit / 64) else {
            return false;
        };
        let mask = 1u64 << (bit % 64);
        let seen = *word & mask != 0;
        *word |= mask;
        seen
    }

    /// Tries to read a regex literal at `self.i`; false (position unchanged) if the line
    /// ends first.
    ///
    /// Linear over the whole scan, however many `/` try: the scan's only state is the byte
    /// offset and whether it is inside a `[...]` class, so a state an earlier attempt already
    /// walked leads where that attempt went. That attempt failed (a successful one moves
    /// `self.i` past every state it walked, and attempts only move forward), so this one
    /// fails too and stops there. `/[/[/[…` on one line is thus one walk, not one per `/`.
    fn regex(&mut self) -> bool {
        if self.walked.is_empty() {
            self.walked = vec![0; (2 * self.src.len()).div_ceil(64) + 1];
        }
        let start = self.i;
        let mut j = start + 1;
        let mut class = false;
        loop {
            if self.walk(j, class) {
                break;
            }
            match self.at(j) {
                0 if j >= self.src.len() => break,
                b'\n' | b'\r' => break,
                b'\\' => j += 2,
                b'[' => {
                    class = true;
                    j += 1;
                }
                b']' => {
                    class = false;
                    j += 1;
                }
                b'/' if !class => {
                    j += 1;
                    while self.at(j).is_ascii_alphabetic() {
                        j += 1;
                    }
                    self.i = j;
                    return true;
                }
                _ => j += 1,
            }
        }
        false
    }

    fn ident_end(&self, mut j: usize) -> usize {
        while j < self.src.len() {
            let c = self.at(j);
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80 {
                j += 1;
            } else {
                break;
            }
        }
        j
    }

    fn number_end(&self, mut j: usize) -> usize {
        while j < self.src.len() {
            let c = self.at(j);
            let exp_sign = matches!(c, b'+' | b'-')
                && matches!(self.at(j.wrapping_sub(1)), b'e' | b'E')
                && !matches!(self.at(j.saturating_sub(2)), b'x' | b'X');
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || exp_sign {
                j += 1;
            } else {
                break;
            }
        }
        j
    }

    /// Length of the punctuator starting with `c` at `self.i` (longest match).
    fn punct_len(&self, c: u8) -> usize {
        let (b1, b2, b3) = (
            self.at(self.i + 1),
            self.at(self.i + 2),
            self.at(self.i + 3),
        );
        let eq3 = |n: usize| if b2 == b'=' { n + 1 } else { n };
        match (c, b1) {
            (b'.', b'.') if b2 == b'.' => 3,
            (b'=' | b'!', b'=') => eq3(2),
            (b'=', b'>') => 2,
            (b'<', b'<') => eq3(2),
            (b'>', b'>') if b2 == b'>' => {
                if b3 == b'=' {
                    4
                } else {
                    3
                }
            }
            (b'>', b'>') => eq3(2),
            (b'<' | b'>', b'=') => 2,
            (b'&', b'&') | (b'|', b'|') | (b'?', b'?') | (b'*', b'*') => eq3(2),
            // `a?.5:1` is a ternary, not optional chaining.
            (b'?', b'.') if !b2.is_ascii_digit() => 2,
            (b'+', b'+') | (b'-', b'-') => 2,
            (b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^', b'=') => 2,
            _ => 1,
        }
    }

    fn make(&mut self, kind: Kind, start: usize, nl_before: bool) -> Token {
        let text = self.src.get(start..self.i).unwrap_or_default();
        let class = if kind == Kind::Ident {
            classify(text)
        } else {
            0
        };
        self.regex_ok = match kind {
            Kind::Ident => class & EXPR_START != 0,
            Kind::Num | Kind::Str | Kind::Regex => false,
            // A template that ends with `${` is followed by an expression.
            Kind::Template => text.ends_with(b"${"),
            Kind::Punct => !matches!(text, b")" | b"]" | b"++" | b"--"),
        };
        Token {
            kind,
            start,
            end: self.i,
            nl_before,
            class,
        }
    }
}

impl Iterator for Scanner<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        if self.resume_template {
            self.resume_template = false;
            let start = self.i;
            self.template_chunk();
            return Some(self.make(Kind::Template, start, false));
        }
        let nl = self.skip_trivia();
        let start = self.i;
        let c = self.at(start);
        if start >= self.src.len() {
            return None;
        }
        let kind = match c {
            b'"' | b'\'' => {
                self.string(c);
                Kind::Str
            }
            b'`' => {
                self.i += 1;
                self.template_chunk();
                Kind::Template
            }
            b'0'..=b'9' => {
                self.i = self.number_end(start);
                Kind::Num
            }
            b'.' if self.at(start + 1).is_ascii_digit() => {
                self.i = self.number_end(start + 1);
                Kind::Num
            }
            b'/' if self.regex_ok && self.regex() => Kind::Regex,
            b'{' => {
                if let Some(open) = self.templates.last_mut() {
                    *open += 1;
                }
                self.i += 1;
                Kind::Punct
            }
            b'}' => {
                self.i += 1;
                match self.templates.last_mut() {
                    Some(0) => {
                        self.templates.pop();
                        self.resume_template = true;
                    }
                    Some(open) => *open -= 1,
                    None => {}
                }
                Kind::Punct
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80 || c == b'#' => {
                self.i = self.ident_end(start + 1);
                Kind::Ident
            }
            _ => {
                self.i = start + self.punct_len(c);
                Kind::Punct
            }
        };
        Some(self.make(kind, start, nl))
    }
}

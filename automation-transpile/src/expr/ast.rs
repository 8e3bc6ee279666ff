//! The syntax tree of a condition.

use serde_json::Value;

/// A parsed condition. Build it with [`Expr::parse`]; print it with `Display` (the printed
/// form parses back to the same tree).
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// `null`, `true`/`false`, a number or a string (always a JSON scalar).
    Literal(Value),
    /// A variable path such as `env.locale` or `items[0].name`.
    Path(Path),
    /// `!operand`.
    Not(Box<Expr>),
    /// `lhs op rhs` (comparisons do not chain: `a < b < c` is a parse error).
    Compare {
        /// The operator.
        op: CmpOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `a && b && …` (two or more operands, evaluated left to right, short-circuit).
    And(Vec<Expr>),
    /// `a || b || …` (two or more operands, evaluated left to right, short-circuit).
    Or(Vec<Expr>),
    /// The pattern argument of `matches(text, 'regex')` when written as a string literal:
    /// compiled once at parse time, printed as that string.
    Pattern(Pattern),
    /// A function call, arity checked at parse time.
    Call {
        /// Which function.
        func: Func,
        /// Its arguments.
        args: Vec<Expr>,
    },
}

/// A comparison operator. `===` and `!==` parse as [`CmpOp::Eq`] and [`CmpOp::Ne`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `==` / `===`
    Eq,
    /// `!=` / `!==`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// The operator as printed.
    pub const fn symbol(self) -> &'static str {
        match self {
            Self::Eq => "==",
            Self::Ne => "!=",
            Self::Lt => "<",
            Self::Le => "<=",
            Self::Gt => ">",
            Self::Ge => ">=",
        }
    }
}

/// A variable path: a first name and then `.key`, `['key']` or `[index]` segments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path {
    /// The segments, the first is always a [`Segment::Key`].
    pub segments: Vec<Segment>,
}

/// One step of a [`Path`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// An object key (`.name` or `['name']`); on an array a numeric key indexes it.
    Key(String),
    /// An array index `[0]` (on an object it looks up the key `"0"`).
    Index(usize),
}

/// The built-in functions. Names are matched case-insensitively and printed as below.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    /// `contains(haystack, needle)`: substring, array membership, or object key.
    Contains,
    /// `startsWith(text, prefix)`.
    StartsWith,
    /// `endsWith(text, suffix)`.
    EndsWith,
    /// `always()`: true.
    Always,
    /// `coalesce(a, b, …, default)`: the first truthy argument, else the last one (so
    /// `coalesce(count, 10)` is 10 when `count` is 0, as in Terminator's `expression_eval`).
    Coalesce,
    /// `length(x)`: characters of a string, items of an array, keys of an object.
    Length,
    /// `lower(text)`.
    Lower,
    /// `upper(text)`.
    Upper,
    /// `matches(text, 'regex')`: a regular-expression search (the `regex-lite` syntax).
    Matches,
}

impl Func {
    /// Every function, in documentation order.
    pub const ALL: [Self; 9] = [
        Self::Contains,
        Self::StartsWith,
        Self::EndsWith,
        Self::Always,
        Self::Coalesce,
        Self::Length,
        Self::Lower,
        Self::Upper,
        Self::Matches,
    ];

    /// The canonical name.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Contains => "contains",
            Self::StartsWith => "startsWith",
            Self::EndsWith => "endsWith",
            Self::Always => "always",
            Self::Coalesce => "coalesce",
            Self::Length => "length",
            Self::Lower => "lower",
            Self::Upper => "upper",
            Self::Matches => "matches",
        }
    }

    /// Looks a function up by name, ignoring ASCII case.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
    }

    /// Allowed argument counts `(min, max)`; `max` `None` means unbounded.
    pub const fn arity(self) -> (usize, Option<usize>) {
        match self {
            Self::Always => (0, Some(0)),
            Self::Length | Self::Lower | Self::Upper => (1, Some(1)),
            Self::Contains | Self::StartsWith | Self::EndsWith | Self::Matches => (2, Some(2)),
            Self::Coalesce => (1, None),
        }
    }

    /// The call as documented, for error messages.
    pub const fn signature(self) -> &'static str {
        match self {
            Self::Contains => "contains(haystack, needle)",
            Self::StartsWith => "startsWith(text, prefix)",
            Self::EndsWith => "endsWith(text, suffix)",
            Self::Always => "always()",
            Self::Coalesce => "coalesce(a, b, ..., default)",
            Self::Length => "length(value)",
            Self::Lower => "lower(text)",
            Self::Upper => "upper(text)",
            Self::Matches => "matches(text, 'regex')",
        }
    }
}

/// A regular expression compiled at parse time; equal when the pattern text is equal.
#[derive(Debug, Clone)]
pub struct Pattern {
    /// The pattern as written (after unescaping the string literal).
    pub source: String,
    /// The compiled form.
    pub regex: regex_lite::Regex,
}

impl Pattern {
    /// Compiles `source`; the error text comes from `regex-lite`.
    pub fn new(source: &str) -> Result<Self, String> {
        regex_lite::Regex::new(source)
            .map(|regex| Self {
                source: source.to_owned(),
                regex,
            })
            .map_err(|e| e.to_string())
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

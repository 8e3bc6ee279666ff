//! Input normalisation: what chat clients and word processors do to quotes and spaces.

/// Replaces typographic quotes, backticks and Unicode spaces by their ASCII counterparts.
///
/// Every replacement maps one `char` to one `char`, so character positions in the
/// normalised text are the positions in the original text.
///
/// | Input | Becomes |
/// |---|---|
/// | U+2018 `‘`, U+2019 `’`, backtick | `'` |
/// | U+201C `“`, U+201D `”` | `"` |
/// | U+00A0, U+2009, U+202F (no-break, thin, narrow no-break space) | space |
pub fn normalize(src: &str) -> String {
    src.chars().map(normalize_char).collect()
}

/// The one-character mapping used by [`normalize`].
pub const fn normalize_char(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '`' => '\'',
        '\u{201C}' | '\u{201D}' => '"',
        '\u{00A0}' | '\u{2009}' | '\u{202F}' => ' ',
        other => other,
    }
}

/// True when [`normalize_char`] would change `c` (the printer escapes such characters).
pub const fn is_normalized_away(c: char) -> bool {
    matches!(
        c,
        '\u{2018}'
            | '\u{2019}'
            | '`'
            | '\u{201C}'
            | '\u{201D}'
            | '\u{00A0}'
            | '\u{2009}'
            | '\u{202F}'
    )
}

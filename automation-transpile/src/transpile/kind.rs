//! Which dialect a script is written in: told by its file name, else found out.

use std::path::Path;

/// The dialect of a script. JSX (`<div className="x">…</div>`) is not TypeScript: a `.ts`
/// parser reads `<div` as a type assertion and reports a misleading error, so the transpiler
/// has to know, or find out, that elements are allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    /// No telling file name (or `.ts`, `.js`, …): [`crate::detect()`] decides between
    /// TypeScript and JavaScript, and with the `oxc` backend a script that parses only with
    /// JSX elements is transpiled as JSX.
    #[default]
    Detect,
    /// `.jsx`: JavaScript with JSX elements.
    Jsx,
    /// `.tsx`: TypeScript with JSX elements.
    Tsx,
}

impl SourceKind {
    /// The dialect a file name says (`.jsx` / `.tsx`, any case); anything else is
    /// [`SourceKind::Detect`].
    pub fn from_path(path: &Path) -> Self {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("jsx") => Self::Jsx,
            Some("tsx") => Self::Tsx,
            _ => Self::Detect,
        }
    }

    /// Whether JSX elements are allowed.
    pub const fn is_jsx(self) -> bool {
        matches!(self, Self::Jsx | Self::Tsx)
    }

    /// The file suffix an external tool needs to parse this dialect.
    pub(crate) const fn suffix(self) -> &'static str {
        match self {
            Self::Detect => ".ts",
            Self::Jsx => ".jsx",
            Self::Tsx => ".tsx",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_name_tells_jsx() {
        assert_eq!(
            SourceKind::from_path(Path::new("a/App.tsx")),
            SourceKind::Tsx
        );
        assert_eq!(SourceKind::from_path(Path::new("App.JSX")), SourceKind::Jsx);
        assert_eq!(SourceKind::from_path(Path::new("s.ts")), SourceKind::Detect);
        assert_eq!(
            SourceKind::from_path(Path::new("script")),
            SourceKind::Detect
        );
    }
}

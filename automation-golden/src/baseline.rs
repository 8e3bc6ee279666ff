//! A screenshot against its baseline: which files a check reads and writes, and its verdict.
//! The caller does the I/O (it knows how its files must be written); this module decides.

use crate::compare::{CompareError, Comparison, Limits, Region, compare};
use crate::rgba::{Rgba, decode_png, encode_png};

/// The longest screenshot name.
pub const MAX_NAME_LEN: usize = 100;

/// The files of one named screenshot in a snapshots directory (file names, no directory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Files {
    /// The baseline: `<name>.png`.
    pub baseline: String,
    /// The last mismatching capture: `<name>.actual.png`.
    pub actual: String,
    /// Its diff image: `<name>.diff.png`.
    pub diff: String,
}

/// The files of the screenshot called `name` (a trailing `.png` is allowed and dropped), or
/// why the name cannot be a file name: letters, digits, `-`, `_` and `.`, not starting with a
/// dot, at most [`MAX_NAME_LEN`] characters, not ending in `.actual` or `.diff`.
pub fn files(name: &str) -> Result<Files, String> {
    let stem = name.strip_suffix(".png").unwrap_or(name);
    let fix = "use letters, digits, '-', '_' and '.', e.g. \"settings-dialog\"";
    if stem.is_empty() {
        return Err(format!("name must not be empty; {fix}"));
    }
    if stem.chars().count() > MAX_NAME_LEN {
        return Err(format!("name is longer than {MAX_NAME_LEN} characters"));
    }
    if let Some(c) = stem
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(format!("name {stem:?} holds {c:?}; {fix}"));
    }
    if stem.starts_with('.') || stem.contains("..") {
        return Err(format!(
            "name {stem:?} starts with a dot or holds \"..\"; {fix}"
        ));
    }
    if stem.ends_with(".actual") || stem.ends_with(".diff") {
        return Err(format!(
            "name {stem:?} ends like the files a mismatch writes (.actual, .diff); pick another"
        ));
    }
    Ok(Files {
        baseline: format!("{stem}.png"),
        actual: format!("{stem}.actual.png"),
        diff: format!("{stem}.diff.png"),
    })
}

/// When a check may write the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Update {
    /// Only when there is none yet (the first run creates it).
    #[default]
    Missing,
    /// Also when the capture differs (`--update-snapshots`): the capture becomes the baseline.
    Differing,
}

/// What a check concluded.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// There was no baseline; the capture is now the baseline.
    Created,
    /// The capture matches the baseline within the limits.
    Matched(Comparison),
    /// The capture differed and replaced the baseline ([`Update::Differing`]); the comparison
    /// says by how much.
    Updated(Comparison),
    /// The capture differs beyond the limits.
    Differs(Comparison),
    /// The capture is not the baseline's size (and was not made the baseline).
    SizeDiffers {
        /// The baseline's width and height.
        expected: (u32, u32),
        /// The capture's width and height.
        actual: (u32, u32),
    },
    /// The capture is another size and replaced the baseline ([`Update::Differing`]).
    Resized {
        /// The old baseline's width and height.
        expected: (u32, u32),
    },
}

impl Verdict {
    /// Whether the check passes.
    pub fn passed(&self) -> bool {
        !matches!(self, Self::Differs(_) | Self::SizeDiffers { .. })
    }

    /// One word for the verdict: `created`, `matched`, `updated`, `differs`, `size_differs`,
    /// `resized`.
    pub fn word(&self) -> &'static str {
        match self {
            Self::Created => "created",
            Self::Matched(_) => "matched",
            Self::Updated(_) => "updated",
            Self::Differs(_) => "differs",
            Self::SizeDiffers { .. } => "size_differs",
            Self::Resized { .. } => "resized",
        }
    }
}

/// A check's verdict and the files to write (PNG bytes): the new baseline when there is one,
/// and the capture and diff image of a failed check.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// The verdict.
    pub verdict: Verdict,
    /// Write this as the baseline.
    pub write_baseline: Option<Vec<u8>>,
    /// Write this as `<name>.actual.png` (a failed check).
    pub write_actual: Option<Vec<u8>>,
    /// Write this as `<name>.diff.png` (a failed check with a comparison).
    pub write_diff: Option<Vec<u8>>,
}

/// Why a check could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckError {
    /// The baseline file is not a PNG.
    BadBaseline(String),
    /// A limit is out of range.
    BadLimits(String),
    /// The diff image could not be encoded.
    Encode(String),
}

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::BadBaseline(why) => write!(f, "the baseline is not a readable PNG ({why})"),
            Self::BadLimits(why) => f.write_str(why),
            Self::Encode(why) => write!(f, "the diff image could not be encoded ({why})"),
        }
    }
}

impl std::error::Error for CheckError {}

/// Checks a capture (`actual`, decoded, and `actual_png`, its PNG as captured) against the
/// baseline's PNG bytes (`None`: there is no baseline yet).
pub fn check(
    baseline: Option<&[u8]>,
    actual: &Rgba,
    actual_png: &[u8],
    limits: &Limits,
    masks: &[Region],
    update: Update,
) -> Result<Check, CheckError> {
    limits.validate().map_err(CheckError::BadLimits)?;
    let Some(baseline) = baseline else {
        return Ok(Check {
            verdict: Verdict::Created,
            write_baseline: Some(actual_png.to_vec()),
            write_actual: None,
            write_diff: None,
        });
    };
    let expected = decode_png(baseline).map_err(CheckError::BadBaseline)?;
    let updating = update == Update::Differing;
    match compare(&expected, actual, limits, masks) {
        Ok(c) if c.passed() => Ok(Check {
            verdict: Verdict::Matched(c),
            write_baseline: None,
            write_actual: None,
            write_diff: None,
        }),
        Ok(c) if updating => Ok(Check {
            verdict: Verdict::Updated(c),
            write_baseline: Some(actual_png.to_vec()),
            write_actual: None,
            write_diff: None,
        }),
        Ok(c) => {
            let diff = match &c.diff {
                Some(d) => Some(encode_png(d).map_err(CheckError::Encode)?),
                None => None,
            };
            Ok(Check {
                verdict: Verdict::Differs(c),
                write_baseline: None,
                write_actual: Some(actual_png.to_vec()),
                write_diff: diff,
            })
        }
        Err(CompareError::SizeDiffers { expected, .. }) if updating => Ok(Check {
            verdict: Verdict::Resized { expected },
            write_baseline: Some(actual_png.to_vec()),
            write_actual: None,
            write_diff: None,
        }),
        Err(CompareError::SizeDiffers { expected, actual }) => Ok(Check {
            verdict: Verdict::SizeDiffers { expected, actual },
            write_baseline: None,
            write_actual: Some(actual_png.to_vec()),
            write_diff: None,
        }),
        Err(CompareError::BadLimits(why)) => Err(CheckError::BadLimits(why)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(img: &Rgba) -> Vec<u8> {
        encode_png(img).unwrap()
    }

    #[test]
    fn names_become_files_or_say_why_not() {
        let f = files("settings-dialog").unwrap();
        assert_eq!(
            (f.baseline.as_str(), f.actual.as_str(), f.diff.as_str()),
            (
                "settings-dialog.png",
                "settings-dialog.actual.png",
                "settings-dialog.diff.png"
            )
        );
        assert_eq!(files("a.png").unwrap().baseline, "a.png");
        for bad in [
            "",
            "../x",
            "a/b",
            ".hidden",
            "x.diff",
            "x.actual.png",
            "é",
            "a b",
        ] {
            assert!(files(bad).is_err(), "{bad:?}");
        }
        assert!(files(&"a".repeat(MAX_NAME_LEN + 1)).is_err());
    }

    #[test]
    fn the_first_check_creates_then_matches_then_fails_then_updates() {
        let a = Rgba::filled(4, 4, [255, 255, 255, 255]);
        let (lim, no) = (Limits::default(), Update::Missing);
        let first = check(None, &a, &png(&a), &lim, &[], no).unwrap();
        assert_eq!(first.verdict, Verdict::Created);
        let base = first.write_baseline.unwrap();
        let again = check(Some(&base), &a, &png(&a), &lim, &[], no).unwrap();
        assert!(matches!(again.verdict, Verdict::Matched(ref c) if c.diff_pixels == 0));
        assert_eq!(again.write_baseline, None);
        let mut b = a.clone();
        b.set_pixel(1, 1, [0, 0, 0, 255]);
        let fail = check(Some(&base), &b, &png(&b), &lim, &[], no).unwrap();
        assert!(!fail.verdict.passed());
        assert!(matches!(fail.verdict, Verdict::Differs(ref c) if c.diff_pixels == 1));
        assert!(fail.write_actual.is_some() && fail.write_diff.is_some());
        let up = check(Some(&base), &b, &png(&b), &lim, &[], Update::Differing).unwrap();
        assert!(up.verdict.passed());
        assert_eq!(up.write_baseline, Some(png(&b)));
        let wide = Rgba::filled(5, 4, [255, 255, 255, 255]);
        let sized = check(Some(&base), &wide, &png(&wide), &lim, &[], no).unwrap();
        assert_eq!(sized.verdict.word(), "size_differs");
        assert!(
            check(Some(b"junk"), &a, &png(&a), &lim, &[], no).is_err(),
            "a corrupt baseline is an error"
        );
    }
}

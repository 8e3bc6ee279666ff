//! Comparing two screenshots pixel by pixel, as a person would see them.
//!
//! The colour distance is the YIQ metric of Kotsarenko and Ramos ("Measuring perceived colour
//! difference using YIQ NTSC transmission colour space in mobile applications", 2010), the one
//! pixelmatch and Playwright's `toHaveScreenshot` use, so a `threshold` means the same thing
//! here as there: 0 counts any change, 1 counts none; a pixel differs when its distance is
//! over `35215 × threshold²` (35215 is the largest distance two colours can have). Colours
//! with alpha are blended onto white first. Anti-aliasing is not guessed at: a pixel that
//! changed is counted (raise `threshold` or allow `max_diff_pixels` for fonts that render
//! differently between machines).

use crate::rgba::Rgba;

/// The largest YIQ distance two colours can have.
const MAX_YIQ_DELTA: f64 = 35215.0;

/// How different two images may be and still match.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Per-pixel colour distance, 0 (any change counts) to 1 (none does).
    pub threshold: f64,
    /// At most this many differing pixels.
    pub max_diff_pixels: Option<u64>,
    /// At most this share (0–1) of the compared pixels may differ.
    pub max_diff_ratio: Option<f64>,
}

/// The default per-pixel threshold (pixelmatch's): small colour noise passes, a changed
/// glyph does not.
pub const DEFAULT_THRESHOLD: f64 = 0.1;

impl Default for Limits {
    fn default() -> Self {
        Self {
            threshold: DEFAULT_THRESHOLD,
            max_diff_pixels: None,
            max_diff_ratio: None,
        }
    }
}

impl Limits {
    /// Checks every number is in range; the message names the field.
    pub fn validate(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.threshold) {
            return Err(format!(
                "threshold must be between 0 and 1 (a YIQ colour distance), got {}",
                self.threshold
            ));
        }
        if let Some(r) = self.max_diff_ratio
            && !(0.0..=1.0).contains(&r)
        {
            return Err(format!(
                "max_diff_ratio must be between 0 and 1 (a share of the pixels), got {r}"
            ));
        }
        Ok(())
    }

    /// How many differing pixels out of `compared` are allowed: the smaller of the two limits
    /// given, 0 when neither is (Playwright's rule).
    pub fn allowed(&self, compared: u64) -> u64 {
        let by_count = self.max_diff_pixels.unwrap_or(u64::MAX);
        let by_ratio = match self.max_diff_ratio {
            // Truncation is the rule: 0.5 % of 999 pixels allows 4, not 5.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Some(r) => (r * compared as f64).floor() as u64,
            None => u64::MAX,
        };
        match (self.max_diff_pixels, self.max_diff_ratio) {
            (None, None) => 0,
            _ => by_count.min(by_ratio),
        }
    }
}

/// A rectangle of pixels left out of the comparison (a clock, a cursor). It may reach past
/// the image; only the part inside counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    /// Left, in pixels (may be negative).
    pub x: i64,
    /// Top, in pixels (may be negative).
    pub y: i64,
    /// Width in pixels.
    pub width: u64,
    /// Height in pixels.
    pub height: u64,
}

impl Region {
    /// The part inside a `w` × `h` image, as half-open pixel ranges, if any.
    pub(crate) fn clip(
        &self,
        w: u32,
        h: u32,
    ) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>)> {
        let span = |start: i64, len: u64, max: u32| {
            let end = start.saturating_add(i64::try_from(len).unwrap_or(i64::MAX));
            let (s, e) = (start.clamp(0, i64::from(max)), end.clamp(0, i64::from(max)));
            (s < e).then(|| usize::try_from(s).unwrap_or(0)..usize::try_from(e).unwrap_or(0))
        };
        Some((span(self.x, self.width, w)?, span(self.y, self.height, h)?))
    }
}

/// The result of comparing two images of one size.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Width of both images.
    pub width: u32,
    /// Height of both images.
    pub height: u32,
    /// Pixels over the threshold (masked pixels never count).
    pub diff_pixels: u64,
    /// Pixels compared (all but the masked ones).
    pub compared_pixels: u64,
    /// Pixels under a mask.
    pub masked_pixels: u64,
    /// How many differing pixels the limits allow.
    pub allowed: u64,
    /// The diff image of a failed comparison: the expected image faded to grey, differing
    /// pixels red, masked ones blue (`None` when it passed).
    pub diff: Option<Rgba>,
}

impl Comparison {
    /// Whether the images match within the limits.
    pub fn passed(&self) -> bool {
        self.diff_pixels <= self.allowed
    }

    /// Differing pixels as a share of the compared ones.
    pub fn ratio(&self) -> f64 {
        if self.compared_pixels == 0 {
            0.0
        } else {
            self.diff_pixels as f64 / self.compared_pixels as f64
        }
    }
}

/// Why two images could not be compared pixel by pixel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompareError {
    /// The images are not the same size (a window that was resized, another scale).
    SizeDiffers {
        /// The expected image's width and height.
        expected: (u32, u32),
        /// The actual image's width and height.
        actual: (u32, u32),
    },
    /// A limit out of range (the message names it).
    BadLimits(String),
}

impl std::fmt::Display for CompareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::SizeDiffers { expected, actual } => write!(
                f,
                "the images differ in size: expected {}×{}, got {}×{}",
                expected.0, expected.1, actual.0, actual.1
            ),
            Self::BadLimits(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for CompareError {}

/// Colour of a differing pixel in the diff image.
pub const DIFF_COLOR: [u8; 4] = [255, 0, 0, 255];
/// Colour of a masked pixel in the diff image.
pub const MASK_COLOR: [u8; 4] = [96, 128, 255, 255];

/// Compares `actual` with `expected`, leaving out `masks`. Identical pixels are skipped
/// with one comparison each; the colour distance is computed only where bytes differ, and
/// the diff image is drawn only when the comparison fails (the one time it is looked at).
pub fn compare(
    expected: &Rgba,
    actual: &Rgba,
    limits: &Limits,
    masks: &[Region],
) -> Result<Comparison, CompareError> {
    limits.validate().map_err(CompareError::BadLimits)?;
    if (expected.width, expected.height) != (actual.width, actual.height) {
        return Err(CompareError::SizeDiffers {
            expected: (expected.width, expected.height),
            actual: (actual.width, actual.height),
        });
    }
    let (w, h) = (expected.width, expected.height);
    let total = w as usize * h as usize;
    let masked = mask_bitmap(w, h, masks);
    let max_delta = MAX_YIQ_DELTA * limits.threshold * limits.threshold;
    let is_masked = |i: usize| masked.as_ref().is_some_and(|m| m.get(i) == Some(&true));
    // One pass computes each distance once; the differing pixels are kept (by index) for the
    // diff image, which is drawn only if the comparison fails.
    let mut differing: Vec<usize> = Vec::new();
    for (i, (e, a)) in expected
        .pixels
        .chunks_exact(4)
        .zip(actual.pixels.chunks_exact(4))
        .enumerate()
    {
        if e != a && !is_masked(i) && yiq_delta(e, a) > max_delta {
            differing.push(i);
        }
    }
    let diff_pixels = differing.len() as u64;
    let masked_pixels = masked
        .as_ref()
        .map_or(0, |m| m.iter().filter(|b| **b).count() as u64);
    let compared_pixels = total as u64 - masked_pixels;
    let allowed = limits.allowed(compared_pixels);
    let diff = (diff_pixels > allowed).then(|| {
        let mut pixels = Vec::with_capacity(total * 4);
        for (i, e) in expected.pixels.chunks_exact(4).enumerate() {
            if is_masked(i) {
                pixels.extend_from_slice(&MASK_COLOR);
            } else {
                let grey = faded_grey(e);
                pixels.extend_from_slice(&[grey, grey, grey, 255]);
            }
        }
        for i in differing {
            if let Some(p) = pixels.get_mut(i * 4..i * 4 + 4) {
                p.copy_from_slice(&DIFF_COLOR);
            }
        }
        Rgba {
            width: w,
            height: h,
            pixels,
        }
    });
    Ok(Comparison {
        width: w,
        height: h,
        diff_pixels,
        compared_pixels,
        masked_pixels,
        allowed,
        diff,
    })
}

/// One flag per pixel, true under a mask; `None` without masks.
fn mask_bitmap(w: u32, h: u32, masks: &[Region]) -> Option<Vec<bool>> {
    if masks.is_empty() {
        return None;
    }
    let mut bits = vec![false; w as usize * h as usize];
    for (xs, ys) in masks.iter().filter_map(|m| m.clip(w, h)) {
        for y in ys {
            let row = y * w as usize;
            if let Some(run) = bits.get_mut(row + xs.start..row + xs.end) {
                run.fill(true);
            }
        }
    }
    Some(bits)
}

/// A colour channel blended onto white by its alpha.
fn on_white(c: u8, alpha: f64) -> f64 {
    255.0 + (f64::from(c) - 255.0) * alpha
}

/// The colour as (r, g, b) on white.
fn rgb(p: &[u8]) -> (f64, f64, f64) {
    let alpha = f64::from(p[3]) / 255.0;
    (
        on_white(p[0], alpha),
        on_white(p[1], alpha),
        on_white(p[2], alpha),
    )
}

/// The squared YIQ distance between two RGBA pixels.
fn yiq_delta(e: &[u8], a: &[u8]) -> f64 {
    let (r1, g1, b1) = rgb(e);
    let (r2, g2, b2) = rgb(a);
    let y = luma(r1, g1, b1) - luma(r2, g2, b2);
    let i = (r1 * 0.595_977_99 - g1 * 0.274_176_10 - b1 * 0.321_801_89)
        - (r2 * 0.595_977_99 - g2 * 0.274_176_10 - b2 * 0.321_801_89);
    let q = (r1 * 0.211_470_17 - g1 * 0.522_617_11 + b1 * 0.311_146_94)
        - (r2 * 0.211_470_17 - g2 * 0.522_617_11 + b2 * 0.311_146_94);
    0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q
}

fn luma(r: f64, g: f64, b: f64) -> f64 {
    r * 0.298_895_31 + g * 0.586_622_47 + b * 0.114_482_23
}

/// The pixel's brightness, faded nine tenths of the way to white: context in a diff image.
/// Integer arithmetic for opaque pixels (nearly all of a window): this runs once per pixel.
fn faded_grey(p: &[u8]) -> u8 {
    let luma = if p[3] == 255 {
        // The luma weights in thousandths (0.299, 0.587, 0.114).
        (u32::from(p[0]) * 299 + u32::from(p[1]) * 587 + u32::from(p[2]) * 114) / 1000
    } else {
        let (r, g, b) = rgb(p);
        // In range by construction (a blend of values in 0..=255).
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let y = luma(r, g, b).round().clamp(0.0, 255.0) as u32;
        y
    };
    let faded = 255 - (255 - luma.min(255)) / 10;
    u8::try_from(faded).unwrap_or(u8::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const WHITE: [u8; 4] = [255, 255, 255, 255];

    #[test]
    fn identical_images_have_no_diff_and_one_pixel_is_found_where_it_is() {
        let a = Rgba::filled(8, 6, WHITE);
        let same = compare(&a, &a.clone(), &Limits::default(), &[]).unwrap();
        assert_eq!((same.diff_pixels, same.compared_pixels), (0, 48));
        assert!(same.passed());
        let mut b = a.clone();
        b.set_pixel(5, 4, [0, 0, 0, 255]);
        let c = compare(&a, &b, &Limits::default(), &[]).unwrap();
        assert_eq!(c.diff_pixels, 1);
        assert!(!c.passed());
        for y in 0..6 {
            for x in 0..8 {
                let red = c.diff.as_ref().unwrap().pixel(x, y) == Some(DIFF_COLOR);
                assert_eq!(red, (x, y) == (5, 4), "({x}, {y})");
            }
        }
    }

    #[test]
    fn threshold_and_limits_decide() {
        let a = Rgba::filled(10, 10, [200, 200, 200, 255]);
        let b = Rgba::filled(10, 10, [203, 200, 200, 255]);
        let strict = Limits {
            threshold: 0.0,
            ..Limits::default()
        };
        assert_eq!(compare(&a, &b, &strict, &[]).unwrap().diff_pixels, 100);
        assert_eq!(
            compare(&a, &b, &Limits::default(), &[])
                .unwrap()
                .diff_pixels,
            0
        );
        let some = Limits {
            threshold: 0.0,
            max_diff_pixels: Some(100),
            ..Limits::default()
        };
        assert!(compare(&a, &b, &some, &[]).unwrap().passed());
        let ratio = Limits {
            threshold: 0.0,
            max_diff_ratio: Some(0.5),
            max_diff_pixels: Some(1000),
        };
        let c = compare(&a, &b, &ratio, &[]).unwrap();
        assert_eq!(c.allowed, 50);
        assert!(!c.passed());
        assert!((c.ratio() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn masks_hide_changes_even_past_the_edge() {
        let a = Rgba::filled(10, 10, WHITE);
        let mut b = a.clone();
        b.set_pixel(0, 0, [0, 0, 0, 255]);
        b.set_pixel(9, 9, [0, 0, 0, 255]);
        let masks = [
            Region {
                x: -5,
                y: -5,
                width: 6,
                height: 6,
            },
            Region {
                x: 9,
                y: 9,
                width: 100,
                height: 100,
            },
            Region {
                x: 50,
                y: 0,
                width: 3,
                height: 3,
            },
        ];
        let c = compare(&a, &b, &Limits::default(), &masks).unwrap();
        assert_eq!(
            (c.diff_pixels, c.masked_pixels, c.compared_pixels),
            (0, 2, 98)
        );
        assert_eq!(c.diff, None, "a pass draws no diff image");
        let strict = Limits {
            threshold: 0.0,
            ..Limits::default()
        };
        let mut d = b.clone();
        d.set_pixel(5, 5, [0, 0, 0, 255]);
        let c = compare(&a, &d, &strict, &masks).unwrap();
        let diff = c.diff.unwrap();
        assert_eq!(diff.pixel(0, 0), Some(MASK_COLOR));
        assert_eq!(diff.pixel(5, 5), Some(DIFF_COLOR));
    }

    #[test]
    fn sizes_and_limits_out_of_range_are_errors() {
        let a = Rgba::filled(2, 2, WHITE);
        let b = Rgba::filled(3, 2, WHITE);
        assert_eq!(
            compare(&a, &b, &Limits::default(), &[]),
            Err(CompareError::SizeDiffers {
                expected: (2, 2),
                actual: (3, 2)
            })
        );
        for bad in [
            Limits {
                threshold: 1.5,
                ..Limits::default()
            },
            Limits {
                threshold: f64::NAN,
                ..Limits::default()
            },
            Limits {
                max_diff_ratio: Some(-0.1),
                ..Limits::default()
            },
        ] {
            assert!(matches!(
                compare(&a, &a, &bad, &[]),
                Err(CompareError::BadLimits(_))
            ));
        }
    }

    #[test]
    fn transparent_pixels_are_seen_on_white() {
        let a = Rgba::filled(1, 1, [0, 0, 0, 0]);
        let b = Rgba::filled(1, 1, WHITE);
        let strict = Limits {
            threshold: 0.0,
            ..Limits::default()
        };
        assert_eq!(compare(&a, &b, &strict, &[]).unwrap().diff_pixels, 0);
    }
}

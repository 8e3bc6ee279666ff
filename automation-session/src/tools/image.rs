//! Screenshot budgets: PNGs are downscaled to fit a maximum dimension and a maximum encoded
//! (base64) size before they reach a client (clients reject images over 8000 px, or 2000 px when
//! a conversation holds many, and results over 1 MB).

/// Longest side, in pixels, of a returned image by default.
pub const DEFAULT_MAX_DIMENSION: u32 = 2000;
/// Largest base64 payload of a returned image by default (bytes).
pub const DEFAULT_MAX_BYTES: usize = 1_000_000;

/// Decoded images and PNG bytes: the golden-screenshot crate's, so a capture is decoded one way.
pub use automation_golden::{Rgba, decode_png, encode_png};

use crate::error::SessionError;

/// An image as it will be returned.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    /// The PNG (base64 only where it leaves the process).
    pub png: Vec<u8>,
    /// Its width.
    pub width: u32,
    /// Its height.
    pub height: u32,
    /// Returned pixels per source pixel (1.0 when untouched).
    pub factor: f64,
}

/// Area-average downscale to exactly `w × h` (both ≥ 1, not larger than the source).
pub fn downscale(img: &Rgba, w: u32, h: u32) -> Rgba {
    let (w, h) = (w.clamp(1, img.width.max(1)), h.clamp(1, img.height.max(1)));
    let (sw, sh) = (img.width as usize, img.height as usize);
    let mut pixels = Vec::with_capacity(w as usize * h as usize * 4);
    for y in 0..h as usize {
        let y0 = y * sh / h as usize;
        let y1 = ((y + 1) * sh / h as usize).max(y0 + 1).min(sh);
        for x in 0..w as usize {
            let x0 = x * sw / w as usize;
            let x1 = ((x + 1) * sw / w as usize).max(x0 + 1).min(sw);
            let mut acc = [0u64; 4];
            let mut n = 0u64;
            for sy in y0..y1 {
                let row = sy * sw * 4;
                for sx in x0..x1 {
                    let i = row + sx * 4;
                    if let Some(p) = img.pixels.get(i..i + 4) {
                        for (a, v) in acc.iter_mut().zip(p) {
                            *a += u64::from(*v);
                        }
                        n += 1;
                    }
                }
            }
            let n = n.max(1);
            pixels.extend(acc.iter().map(|a| u8::try_from(a / n).unwrap_or(u8::MAX)));
        }
    }
    Rgba {
        width: w,
        height: h,
        pixels,
    }
}

/// Fits a PNG to `max_dimension` and `max_bytes` (base64 length), re-encoding only when needed.
/// The PNG is always decoded: one from an attached app is input, and a corrupt one is an error
/// here, not an image the client cannot open.
pub fn fit(png_bytes: &[u8], max_dimension: u32, max_bytes: usize) -> Result<Fitted, SessionError> {
    let b64_len = png_bytes.len().div_ceil(3) * 4;
    let img = decode_png(png_bytes).map_err(SessionError::Image)?;
    let longest = img.width.max(img.height).max(1);
    if longest <= max_dimension && b64_len <= max_bytes {
        return Ok(Fitted {
            png: png_bytes.to_vec(),
            width: img.width,
            height: img.height,
            factor: 1.0,
        });
    }
    let mut factor = (f64::from(max_dimension.max(1)) / f64::from(longest)).min(1.0);
    for _ in 0..8 {
        let w = ((f64::from(img.width) * factor).floor() as u32).max(1);
        let h = ((f64::from(img.height) * factor).floor() as u32).max(1);
        let small = downscale(&img, w, h);
        let encoded = encode_png(&small).map_err(SessionError::Image)?;
        let len = encoded.len().div_ceil(3) * 4;
        if len <= max_bytes || (w == 1 && h == 1) {
            return Ok(Fitted {
                png: encoded,
                width: w,
                height: h,
                factor: f64::from(w) / f64::from(img.width),
            });
        }
        // PNG size scales roughly with area: shrink by the square root of the overshoot.
        factor *= ((max_bytes as f64 / len as f64).sqrt() * 0.9).min(0.9);
    }
    Err(SessionError::Image(format!(
        "cannot fit the screenshot into {max_bytes} bytes; raise max_bytes or use save_to"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gradient(w: u32, h: u32) -> Rgba {
        let mut pixels = Vec::new();
        for y in 0..h {
            for x in 0..w {
                pixels.extend([(x % 256) as u8, (y % 256) as u8, ((x * y) % 251) as u8, 255]);
            }
        }
        Rgba {
            width: w,
            height: h,
            pixels,
        }
    }

    #[test]
    fn png_round_trip() {
        let img = gradient(7, 5);
        assert_eq!(decode_png(&encode_png(&img).unwrap()).unwrap(), img);
    }

    #[test]
    fn small_images_pass_untouched() {
        let png = encode_png(&gradient(40, 30)).unwrap();
        let f = fit(&png, 2000, 1_000_000).unwrap();
        assert_eq!((f.width, f.height, f.factor), (40, 30, 1.0));
        assert_eq!(f.png, png);
    }

    #[test]
    fn large_images_shrink_to_the_dimension() {
        let png = encode_png(&gradient(300, 120)).unwrap();
        let f = fit(&png, 100, 1_000_000).unwrap();
        assert_eq!((f.width, f.height), (100, 40));
        assert!((f.factor - 1.0 / 3.0).abs() < 1e-9);
        let back = decode_png(&f.png).unwrap();
        assert_eq!((back.width, back.height), (100, 40));
    }

    #[test]
    fn byte_budget_shrinks_further() {
        let png = encode_png(&gradient(400, 400)).unwrap();
        let f = fit(&png, 2000, 20_000).unwrap();
        assert!(f.png.len().div_ceil(3) * 4 <= 20_000);
        assert!(f.width < 400);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(fit(b"not a png", 10, 10).is_err());
        assert!(decode_png(&[]).is_err());
    }

    #[test]
    fn a_png_with_a_good_header_and_corrupt_pixels_is_refused() {
        let mut png = encode_png(&gradient(64, 48)).unwrap();
        // Past the signature and the IHDR chunk (8 + 25 bytes): inside the image data.
        let mid = 33 + (png.len() - 33) / 2;
        for b in &mut png[mid..mid + 16] {
            *b ^= 0xa5;
        }
        assert!(fit(&png, 4096, 1 << 20).is_err());
    }
}

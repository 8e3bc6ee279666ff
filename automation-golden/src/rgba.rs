//! A decoded image (RGBA8) and its PNG form.

use std::io::Cursor;

/// A decoded RGBA8 image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rgba {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes, row by row.
    pub pixels: Vec<u8>,
}

impl Rgba {
    /// An image of `width` × `height` filled with one colour.
    pub fn filled(width: u32, height: u32, rgba: [u8; 4]) -> Self {
        let n = width as usize * height as usize;
        Self {
            width,
            height,
            pixels: rgba.repeat(n),
        }
    }

    /// The pixel at (`x`, `y`), if inside.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        let p = self.pixels.get(i..i + 4)?;
        Some([p[0], p[1], p[2], p[3]])
    }

    /// Paints the part of `region` inside the image with one colour (how a mask is hidden
    /// before two captures are compared for stillness).
    pub fn fill(&mut self, region: &crate::Region, rgba: [u8; 4]) {
        let Some((xs, ys)) = region.clip(self.width, self.height) else {
            return;
        };
        let w = self.width as usize;
        for y in ys {
            if let Some(row) = self
                .pixels
                .get_mut((y * w + xs.start) * 4..(y * w + xs.end) * 4)
            {
                for px in row.chunks_exact_mut(4) {
                    px.copy_from_slice(&rgba);
                }
            }
        }
    }

    /// Sets the pixel at (`x`, `y`); outside the image, nothing happens.
    pub fn set_pixel(&mut self, x: u32, y: u32, rgba: [u8; 4]) {
        if x >= self.width || y >= self.height {
            return;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        if let Some(p) = self.pixels.get_mut(i..i + 4) {
            p.copy_from_slice(&rgba);
        }
    }
}

/// Decodes any PNG (grey, RGB, indexed, 16-bit) to RGBA8. A PNG is input here (a baseline
/// file, an attached app's screenshot): a corrupt one is an error, never a panic.
pub fn decode_png(bytes: &[u8]) -> Result<Rgba, String> {
    let mut decoder = png::Decoder::new(Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(|e| format!("not a PNG: {e}"))?;
    let size = reader
        .output_buffer_size()
        .ok_or("PNG too large to decode")?;
    let mut buf = vec![0u8; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| format!("PNG decode: {e}"))?;
    buf.truncate(info.buffer_size());
    let (w, h) = (info.width, info.height);
    let px = (w as usize) * (h as usize);
    let pixels = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks_exact(3)
            .flat_map(|c| [c[0], c[1], c[2], 255])
            .collect(),
        png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::GrayscaleAlpha => buf
            .chunks_exact(2)
            .flat_map(|c| [c[0], c[0], c[0], c[1]])
            .collect(),
        png::ColorType::Indexed => return Err("indexed PNG was not expanded".into()),
    };
    if pixels.len() != px * 4 {
        return Err("PNG has an unexpected buffer size".into());
    }
    Ok(Rgba {
        width: w,
        height: h,
        pixels,
    })
}

/// Encodes RGBA8 as PNG.
pub fn encode_png(img: &Rgba) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, img.width, img.height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(|e| format!("PNG encode: {e}"))?;
        writer
            .write_image_data(&img.pixels)
            .map_err(|e| format!("PNG encode: {e}"))?;
        writer.finish().map_err(|e| format!("PNG encode: {e}"))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trips_and_garbage_is_an_error() {
        let mut img = Rgba::filled(3, 2, [10, 20, 30, 255]);
        img.set_pixel(2, 1, [1, 2, 3, 4]);
        let back = decode_png(&encode_png(&img).unwrap()).unwrap();
        assert_eq!(back, img);
        assert_eq!(back.pixel(2, 1), Some([1, 2, 3, 4]));
        assert_eq!(back.pixel(3, 0), None);
        let mut filled = back.clone();
        let region = crate::Region {
            x: -1,
            y: 1,
            width: 2,
            height: 9,
        };
        filled.fill(&region, [9, 9, 9, 9]);
        assert_eq!(filled.pixel(0, 1), Some([9, 9, 9, 9]));
        assert_eq!(filled.pixel(1, 1), Some([10, 20, 30, 255]));
        assert_eq!(filled.pixel(0, 0), Some([10, 20, 30, 255]));
        assert!(decode_png(b"not a png").is_err());
        assert!(decode_png(&[]).is_err());
    }
}

//! A screenshot as typed data: the PNG's bytes with its size and scale, as a
//! [`Host`](crate::Host) makes it and a [`Reply::Image`](crate::Reply::Image) carries it.
//!
//! Inside a process the bytes stay bytes. Base64 is only the image's JSON form: written when a
//! reply is serialized for a wire (the bridge, a script's endpoint, `automation op`'s stdout),
//! and read back by the wire's client ([`Reply::typed`](crate::Reply::typed)):
//!
//! ```json
//! {"image": {"mime": "image/png", "base64": "iVBOR…"}, "width": 640, "height": 480, "scale": 1.0}
//! ```

use base64::Engine as _;
use base64::display::Base64Display;
use base64::engine::general_purpose::STANDARD as B64;
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value, json};

/// The one format an [`Image`] holds.
pub const PNG_MIME: &str = "image/png";

/// A screenshot: a PNG and what describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    /// The PNG's bytes.
    pub png: Vec<u8>,
    /// Width in physical pixels.
    pub width: u32,
    /// Height in physical pixels.
    pub height: u32,
    /// Physical pixels per logical pixel.
    pub scale: f64,
    /// The window the pixels were read from, when the host names windows by number (an X
    /// window id on AT-SPI).
    pub window: Option<u64>,
    /// Regions the host could not draw and left blank (egui's paint callbacks: an app's own
    /// GPU drawing, which a CPU render cannot run); 0 when none.
    pub skipped_paint_callbacks: u32,
    /// What the pixels leave out, when they are not all that was asked for (a window larger
    /// than the screen, cut to the part on it).
    pub note: Option<String>,
}

impl Image {
    /// A PNG of `width` × `height` physical pixels at `scale`.
    pub fn new(png: Vec<u8>, width: u32, height: u32, scale: f64) -> Self {
        Self {
            png,
            width,
            height,
            scale,
            window: None,
            skipped_paint_callbacks: 0,
            note: None,
        }
    }

    /// Everything but the pixels: `{width, height, scale, window?, skipped_paint_callbacks?,
    /// note?}`, what a front door shows beside (or instead of) the PNG.
    pub fn meta(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("width".into(), json!(self.width));
        m.insert("height".into(), json!(self.height));
        m.insert("scale".into(), json!(self.scale));
        if let Some(w) = self.window {
            m.insert("window".into(), json!(w));
        }
        if self.skipped_paint_callbacks > 0 {
            m.insert(
                "skipped_paint_callbacks".into(),
                json!(self.skipped_paint_callbacks),
            );
        }
        if let Some(n) = &self.note {
            m.insert("note".into(), json!(n));
        }
        m
    }
}

/// The PNG as base64, written straight into the output (no intermediate string for a writer).
struct Base64<'a>(&'a [u8]);

impl Serialize for Base64<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&Base64Display::new(self.0, &B64))
    }
}

#[derive(Serialize)]
struct PngRef<'a> {
    mime: &'static str,
    base64: Base64<'a>,
}

#[derive(Serialize)]
struct WireRef<'a> {
    image: PngRef<'a>,
    width: u32,
    height: u32,
    scale: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    window: Option<u64>,
    #[serde(skip_serializing_if = "is_zero")]
    skipped_paint_callbacks: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Serialize for Image {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        WireRef {
            image: PngRef {
                mime: PNG_MIME,
                base64: Base64(&self.png),
            },
            width: self.width,
            height: self.height,
            scale: self.scale,
            window: self.window,
            skipped_paint_callbacks: self.skipped_paint_callbacks,
            note: self.note.as_deref(),
        }
        .serialize(s)
    }
}

#[derive(Deserialize)]
struct Png {
    mime: String,
    base64: String,
}

/// Lenient on unknown fields, as replies are.
#[derive(Deserialize)]
struct Wire {
    image: Png,
    width: u32,
    height: u32,
    scale: f64,
    #[serde(default)]
    window: Option<u64>,
    #[serde(default)]
    skipped_paint_callbacks: u32,
    #[serde(default)]
    note: Option<String>,
}

impl<'de> Deserialize<'de> for Image {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = Wire::deserialize(d)?;
        if w.image.mime != PNG_MIME {
            return Err(de::Error::custom(format!(
                "image.mime is {:?}; expected {PNG_MIME:?}",
                w.image.mime
            )));
        }
        let png = B64
            .decode(&w.image.base64)
            .map_err(|e| de::Error::custom(format!("image.base64 is not base64: {e}")))?;
        Ok(Image {
            png,
            width: w.width,
            height: w.height,
            scale: w.scale,
            window: w.window,
            skipped_paint_callbacks: w.skipped_paint_callbacks,
            note: w.note,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_form_carries_base64_and_reads_back_as_the_bytes() {
        let mut image = Image::new(vec![0x89, b'P', b'N', b'G', 0, 255], 3, 2, 1.5);
        image.window = Some(42);
        image.note = Some("cut".into());
        let v = serde_json::to_value(&image).unwrap();
        assert_eq!(
            v,
            json!({"image": {"mime": "image/png", "base64": "iVBORwD/"}, "width": 3, "height": 2, "scale": 1.5, "window": 42, "note": "cut"})
        );
        let back: Image = serde_json::from_value(v).unwrap();
        assert_eq!(back, image);
        assert_eq!(
            Value::Object(image.meta()),
            json!({"width": 3, "height": 2, "scale": 1.5, "window": 42, "note": "cut"})
        );
    }

    #[test]
    fn a_malformed_image_is_refused_naming_the_field() {
        let bad = |v: Value| serde_json::from_value::<Image>(v).unwrap_err().to_string();
        let e = bad(
            json!({"image": {"mime": "image/jpeg", "base64": ""}, "width": 1, "height": 1, "scale": 1.0}),
        );
        assert!(e.contains("image.mime"), "{e}");
        let e = bad(
            json!({"image": {"mime": "image/png", "base64": "not base64!"}, "width": 1, "height": 1, "scale": 1.0}),
        );
        assert!(e.contains("image.base64"), "{e}");
        let e = bad(json!({"width": 1, "height": 1, "scale": 1.0}));
        assert!(e.contains("image"), "{e}");
    }
}

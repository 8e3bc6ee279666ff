//! Offscreen screenshots, rasterized on the CPU (feature `screenshot`).
//!
//! egui's last frame is tessellated and its triangles drawn by `raster`, the arithmetic of
//! egui-wgpu's shader (the renderer eframe uses) without a GPU: no driver, no display, the same
//! bytes on every machine, nothing to start up. Each target keeps its own `Renderer` (its
//! textures), fed with the texture deltas the target accumulated since its last screenshot. A
//! render runs on the calling thread alone, so screenshots of several targets scale with the
//! cores (`automation run --jobs`).

mod raster;

use std::collections::HashMap;

use automation_core::snapshot::Bounds;
use automation_core::{ErrorCode, Image, OpError};
use egui::epaint::{ImageData, ImageDelta, Primitive};

use crate::EguiTarget;
use raster::{Canvas, PixelRect, Texture};

/// Largest screenshot side, px (what GPUs allow a texture).
const MAX_SIDE: u32 = 16_384;
/// Most pixels in a screenshot (a 256 MiB canvas).
const MAX_PIXELS: u64 = 64 * 1024 * 1024;

/// A target's textures, as egui uploaded them.
#[derive(Debug, Default)]
pub(crate) struct Renderer {
    textures: HashMap<egui::TextureId, Texture>,
}

impl Renderer {
    /// Applies one upload: a whole texture, or a patch of one sent whole before.
    fn apply(&mut self, id: egui::TextureId, delta: &ImageDelta) -> Result<(), OpError> {
        let ImageData::Color(image) = &delta.image;
        let [w, h] = image.size;
        let pixels = image.pixels.iter().map(|c| c.to_array());
        match delta.pos {
            None => {
                let texture = Texture {
                    width: w,
                    height: h,
                    pixels: pixels.collect(),
                    options: delta.options,
                };
                self.textures.insert(id, texture);
                Ok(())
            }
            Some([x, y]) => {
                // A patch of a texture never uploaded whole: live, one the app uploaded before
                // the op (eframe consumed it; the image goes without it, as documented).
                let Some(texture) = self.textures.get_mut(&id) else {
                    return Ok(());
                };
                if x.checked_add(w).is_none_or(|e| e > texture.width)
                    || y.checked_add(h).is_none_or(|e| e > texture.height)
                {
                    return Err(OpError::new(
                        ErrorCode::TargetFailed,
                        format!(
                            "egui's {w}x{h} patch at ({x}, {y}) overruns texture {id:?} ({}x{})",
                            texture.width, texture.height
                        ),
                    ));
                }
                let mut pixels = pixels;
                for row in 0..h {
                    let start = (y + row) * texture.width + x;
                    for (dst, src) in texture.pixels[start..start + w].iter_mut().zip(&mut pixels) {
                        *dst = src;
                    }
                }
                texture.options = delta.options;
                Ok(())
            }
        }
    }

    /// Draws `prims` (positions in points) into a `w`x`h` canvas; returns it and how many
    /// paint callbacks (the app's own GPU drawing) it had to leave blank.
    fn draw(&self, prims: &[egui::ClippedPrimitive], w: u32, h: u32, ppp: f32) -> (Canvas, usize) {
        let mut canvas = Canvas::new(w as usize, h as usize);
        let mut skipped = 0;
        for prim in prims {
            match &prim.primitive {
                Primitive::Mesh(mesh) => {
                    if let Some(clip) = pixel_clip(prim.clip_rect, ppp, w, h) {
                        let texture = self.textures.get(&mesh.texture_id);
                        canvas.draw_mesh(mesh, texture, clip, ppp);
                    }
                }
                Primitive::Callback(_) => skipped += 1,
            }
        }
        (canvas, skipped)
    }
}

/// A clip rectangle in points as whole pixels inside the surface (`None` when empty), rounded
/// as egui-wgpu rounds its scissor rectangle.
fn pixel_clip(rect: egui::Rect, ppp: f32, w: u32, h: u32) -> Option<PixelRect> {
    let px = |v: f32, max: u32| ((v * ppp).round().max(0.0) as usize).min(max as usize);
    let min = [px(rect.min.x, w), px(rect.min.y, h)];
    let max = [px(rect.max.x, w), px(rect.max.y, h)];
    (max[0] > min[0] && max[1] > min[1]).then_some(PixelRect { min, max })
}

/// A rendered PNG.
#[derive(Debug, Clone, PartialEq)]
pub struct Screenshot {
    /// PNG bytes.
    pub png: Vec<u8>,
    /// Width in physical px.
    pub width: u32,
    /// Height in physical px.
    pub height: u32,
    /// Physical px per logical px, as a string-free ratio (`pixels_per_point`).
    pub scale: f32,
    /// The raw RGBA pixels (row-major, `width * height * 4`).
    pub rgba: Vec<u8>,
    /// Paint callbacks (custom GPU drawing) in the frame, which a CPU render leaves blank.
    pub skipped_callbacks: usize,
}

impl Screenshot {
    /// The reply's image: the PNG's bytes (moved, not copied), size and scale, and the paint
    /// callbacks left blank.
    pub fn into_image(self) -> Image {
        let mut image = Image::new(self.png, self.width, self.height, f64::from(self.scale));
        image.skipped_paint_callbacks = u32::try_from(self.skipped_callbacks).unwrap_or(u32::MAX);
        image
    }
}

/// Renders the target's last frame, optionally cropped to `crop` (logical px).
pub fn capture(target: &mut EguiTarget<'_>, crop: Option<Bounds>) -> Result<Screenshot, OpError> {
    target.set_keep_textures(true);
    let ppp = target.pixels_per_point();
    let size = target.size() * ppp;
    let (w, h) = (
        size.x.round().max(1.0) as u32,
        size.y.round().max(1.0) as u32,
    );
    if w > MAX_SIDE || h > MAX_SIDE || u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(OpError::new(
            ErrorCode::Unsupported,
            format!(
                "a {w}x{h} px screenshot ({} points at {ppp} px per point) is over the limit of \
                 {MAX_SIDE} px a side and {MAX_PIXELS} px in all",
                target.size()
            ),
        )
        .with_hint("lower the scale (set_density), or shrink the window"));
    }
    let mut delta = target.take_textures();
    if target.live {
        // eframe still needs these; the live bridge hands them back after the op.
        target.textures = delta.clone();
    }
    let mut set: Vec<_> = delta.set.drain().collect();
    let free: Vec<_> = delta.free.drain().collect();
    if target.live {
        // eframe consumed the texture history of the real frames: start from the current
        // font atlas, first, so the op's own patches of it land on it (the live screenshot
        // shows what egui painted, minus user images that were uploaded before the op).
        let atlas = target.context().fonts(|f| f.image());
        set.insert(
            0,
            (
                egui::TextureId::default(),
                std::iter::once(ImageDelta::full(
                    atlas,
                    egui::epaint::TextureAtlas::texture_options(),
                ))
                .collect(),
            ),
        );
    }
    let prims = target.context().tessellate(target.shapes.clone(), ppp);
    let renderer = target.renderer.get_or_insert_with(Renderer::default);
    for (id, images) in &set {
        for image in images {
            renderer.apply(*id, image)?;
        }
    }
    let (canvas, skipped_callbacks) = renderer.draw(&prims, w, h, ppp);
    for id in free {
        renderer.textures.remove(&id);
    }
    let rgba = canvas.pixels.into_flattened();
    let (rgba, w, h) = match crop {
        Some(b) => crop_rgba(&rgba, w, h, b, ppp)?,
        None => (rgba, w, h),
    };
    let png = encode_png(&rgba, w, h)?;
    Ok(Screenshot {
        png,
        width: w,
        height: h,
        scale: ppp,
        rgba,
        skipped_callbacks,
    })
}

fn crop_rgba(
    rgba: &[u8],
    w: u32,
    h: u32,
    b: Bounds,
    ppp: f32,
) -> Result<(Vec<u8>, u32, u32), OpError> {
    let s = f64::from(ppp);
    let x0 = (b.x * s).floor().clamp(0.0, f64::from(w)) as u32;
    let y0 = (b.y * s).floor().clamp(0.0, f64::from(h)) as u32;
    let x1 = ((b.x + b.width) * s).ceil().clamp(0.0, f64::from(w)) as u32;
    let y1 = ((b.y + b.height) * s).ceil().clamp(0.0, f64::from(h)) as u32;
    if x1 <= x0 || y1 <= y0 {
        return Err(OpError::new(
            ErrorCode::NoGeometry,
            "the node lies outside the window; nothing to capture",
        )
        .with_hint("scroll it into view first (invoke_action scroll_into_view)"));
    }
    let mut out = Vec::with_capacity(((x1 - x0) * (y1 - y0) * 4) as usize);
    for y in y0..y1 {
        let start = ((y * w + x0) * 4) as usize;
        let end = ((y * w + x1) * 4) as usize;
        out.extend_from_slice(rgba.get(start..end).unwrap_or_default());
    }
    Ok((out, x1 - x0, y1 - y0))
}

/// Encodes RGBA8 pixels as a PNG (fast compression).
pub fn encode_png(rgba: &[u8], w: u32, h: u32) -> Result<Vec<u8>, OpError> {
    let fail = |e: png::EncodingError| {
        OpError::new(ErrorCode::TargetFailed, format!("PNG encoding failed: {e}"))
    };
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        // fdeflate: ~9× faster than the default level for ~1.5× the bytes (640×480 demo:
        // 0.8 ms and 29 KB against 7.3 ms and 19 KB); the encoding was most of a screenshot.
        enc.set_compression(png::Compression::Fast);
        let mut writer = enc.write_header().map_err(fail)?;
        writer.write_image_data(rgba).map_err(fail)?;
        writer.finish().map_err(fail)?;
    }
    Ok(out)
}

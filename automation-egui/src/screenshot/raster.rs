//! egui's triangles drawn into RGBA8 on the CPU, with the arithmetic of egui-wgpu's shader in
//! its predictable mode: vertex colour (premultiplied, gamma space) times a texel sampled in
//! gamma space (nearest, or bilinear by hand), blended `One, OneMinusSrcAlpha` into a gamma
//! framebuffer.
//!
//! Coverage is exact: vertices snap to 1/256 px and the edge functions are integers, so a
//! pixel centre on an edge shared by two triangles goes to exactly one of them (the top-left
//! rule) and egui's feathered edges never blend twice.

use egui::epaint::{Mesh, Vertex};
use egui::{TextureFilter, TextureOptions, TextureWrapMode};

/// Sub-pixel steps per pixel (8 bits).
const SUB: i64 = 256;
/// Farthest vertex drawn, in sub-pixels (2^21 px): the edge functions' products stay below
/// 2^61. `as` maps NaN to 0 and infinities to the extremes, which this excludes.
const FAR: i64 = (1 << 21) * SUB;

/// A texture as egui uploaded it: premultiplied RGBA8, top row first.
#[derive(Debug, Clone)]
pub(crate) struct Texture {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<[u8; 4]>,
    pub options: TextureOptions,
}

/// A premultiplied RGBA8 surface, top row first.
#[derive(Debug, Default)]
pub(crate) struct Canvas {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<[u8; 4]>,
}

/// A rectangle of whole pixels, `min` inclusive, `max` exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PixelRect {
    pub min: [usize; 2],
    pub max: [usize; 2],
}

impl Canvas {
    /// A transparent `width`x`height` canvas.
    pub fn new(width: usize, height: usize) -> Self {
        Self {
            width,
            height,
            pixels: vec![[0; 4]; width * height],
        }
    }

    /// Blends `mesh` (positions in points, scaled by `ppp`) inside `clip`. Triangles whose
    /// indices fall outside the vertices are skipped (egui never makes them).
    pub fn draw_mesh(&mut self, mesh: &Mesh, texture: Option<&Texture>, clip: PixelRect, ppp: f32) {
        let clip = PixelRect {
            min: clip.min,
            max: [clip.max[0].min(self.width), clip.max[1].min(self.height)],
        };
        for tri in mesh.indices.chunks_exact(3) {
            let corner = |i: u32| mesh.vertices.get(i as usize);
            if let (Some(a), Some(b), Some(c)) = (corner(tri[0]), corner(tri[1]), corner(tri[2])) {
                self.triangle([a, b, c], texture, clip, ppp);
            }
        }
    }

    fn triangle(&mut self, v: [&Vertex; 3], texture: Option<&Texture>, clip: PixelRect, ppp: f32) {
        let snap = |x: f32| (f64::from(x) * f64::from(ppp) * SUB as f64).round() as i64;
        let mut p = v.map(|v| [snap(v.pos.x), snap(v.pos.y)]);
        if p.iter().flatten().any(|c| !(-FAR..=FAR).contains(c)) {
            return; // beyond any window (or not finite): the edge functions would overflow
        }
        let mut v = v;
        let mut area = orient(p[0], p[1], p[2]);
        if area == 0 {
            return;
        }
        if area < 0 {
            p.swap(1, 2);
            v.swap(1, 2);
            area = -area;
        }
        let Some(rows) = span(p.map(|q| q[1]), clip.min[1], clip.max[1]) else {
            return;
        };
        let Some(cols) = span(p.map(|q| q[0]), clip.min[0], clip.max[0]) else {
            return;
        };
        let shade = Shade::new(v, texture);
        // Edge k is opposite vertex k; its function is positive inside. A pixel is covered when
        // every `w + bias >= 0` (bias -1 for an edge that does not own its centres).
        let edges = [(p[1], p[2]), (p[2], p[0]), (p[0], p[1])];
        let bias = edges.map(|(a, b)| if is_top_left(a, b) { 0 } else { -1 });
        // One pixel right changes each edge function by `step`.
        let step = edges.map(|(a, b)| -(b[1] - a[1]) * SUB);
        let inv_area = 1.0 / area as f32;
        let x0 = cols.start as i64;
        for y in rows {
            let centre = [x0 * SUB + SUB / 2, y as i64 * SUB + SUB / 2];
            let w0 = edges.map(|(a, b)| orient(a, b, centre));
            let Some((lo, hi)) = covered(w0, step, bias, cols.len() as i64) else {
                continue;
            };
            let start = y * self.width + cols.start;
            let Some(row) = self.pixels.get_mut(start + lo..start + hi) else {
                continue;
            };
            match shade {
                Shade::Flat(c) if c[3] == 255 => row.fill(c),
                Shade::Flat(c) => row.iter_mut().for_each(|d| blend(d, c)),
                Shade::Varying { .. } => {
                    let lo = lo as i64;
                    let mut w = [0, 1].map(|k| w0[k] + step[k] * lo);
                    for d in row {
                        blend(
                            d,
                            shade.at([w[0] as f32 * inv_area, w[1] as f32 * inv_area]),
                        );
                        w[0] += step[0];
                        w[1] += step[1];
                    }
                }
            }
        }
    }
}

/// The pixels `lo..hi` (offsets from the row's first column, at most `len`) whose centres all
/// three edge functions cover: `w0[k]` at offset 0, changing by `step[k]` a pixel.
fn covered(w0: [i64; 3], step: [i64; 3], bias: [i64; 3], len: i64) -> Option<(usize, usize)> {
    let (mut lo, mut hi) = (0i64, len); // hi exclusive
    for k in 0..3 {
        let need = -(w0[k] + bias[k]); // step * x >= need
        match step[k].signum() {
            0 if need > 0 => return None,
            0 => {}
            1 => lo = lo.max(-((-need).div_euclid(step[k]))), // ceil(need / step)
            _ => hi = hi.min((-need).div_euclid(-step[k]) + 1), // floor(need / step) + 1
        }
    }
    (lo < hi).then_some((lo as usize, hi as usize))
}

/// Twice the signed area of `a, b, c`: positive when `c` is left of `a → b` in y-down
/// screen space, i.e. the triangle is clockwise on screen.
fn orient(a: [i64; 2], b: [i64; 2], c: [i64; 2]) -> i64 {
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}

/// A top edge (horizontal, the interior below) or a left edge (going up on screen) owns the
/// pixel centres lying exactly on it.
fn is_top_left(a: [i64; 2], b: [i64; 2]) -> bool {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    (dy == 0 && dx > 0) || dy < 0
}

/// The pixels whose centres can lie within `[min, max]` of these sub-pixel coordinates,
/// inside `lo..hi`.
fn span(c: [i64; 3], lo: usize, hi: usize) -> Option<std::ops::Range<usize>> {
    let min = c.iter().copied().min().unwrap_or(0);
    let max = c.iter().copied().max().unwrap_or(0);
    // Centre of pixel i is i*SUB + SUB/2.
    let first = (min - SUB / 2).div_euclid(SUB).max(lo as i64);
    let last = ((max - SUB / 2).div_euclid(SUB) + 1).min(hi as i64);
    (first < last).then_some(first as usize..last as usize)
}

/// What a triangle paints: a constant (one colour, one texel: egui's solid shapes all sample
/// the atlas's white texel) or interpolated colours and texture coordinates.
#[derive(Clone, Copy)]
enum Shade<'a> {
    Flat([u8; 4]),
    Varying {
        colors: [[f32; 4]; 3],
        uvs: [[f32; 2]; 3],
        texture: Option<&'a Texture>,
    },
}

impl<'a> Shade<'a> {
    fn new(v: [&Vertex; 3], texture: Option<&'a Texture>) -> Self {
        let same_color = v[0].color == v[1].color && v[1].color == v[2].color;
        let same_uv = v[0].uv == v[1].uv && v[1].uv == v[2].uv;
        if same_color && same_uv {
            let texel = texture.map_or([255; 4], |t| t.sample([v[0].uv.x, v[0].uv.y]));
            return Self::Flat(modulate(v[0].color.to_array().map(f32::from), texel));
        }
        Self::Varying {
            colors: v.map(|v| v.color.to_array().map(f32::from)),
            uvs: v.map(|v| [v.uv.x, v.uv.y]),
            texture,
        }
    }

    /// The colour at barycentric weights `l` (of vertices 0 and 1; vertex 2 has the rest).
    fn at(&self, l: [f32; 2]) -> [u8; 4] {
        match self {
            Self::Flat(c) => *c,
            Self::Varying {
                colors,
                uvs,
                texture,
            } => {
                let l2 = 1.0 - l[0] - l[1];
                let mix = |a: f32, b: f32, c: f32| a * l[0] + b * l[1] + c * l2;
                let color: [f32; 4] =
                    std::array::from_fn(|i| mix(colors[0][i], colors[1][i], colors[2][i]));
                let texel = texture.map_or([255; 4], |t| {
                    t.sample([
                        mix(uvs[0][0], uvs[1][0], uvs[2][0]),
                        mix(uvs[0][1], uvs[1][1], uvs[2][1]),
                    ])
                });
                modulate(color, texel)
            }
        }
    }
}

/// Vertex colour (0–255 per channel) times texel, both premultiplied.
fn modulate(color: [f32; 4], texel: [u8; 4]) -> [u8; 4] {
    std::array::from_fn(|i| channel(color[i] * f32::from(texel[i]) / 255.0))
}

/// A 0–255 value rounded to a channel. `as` saturates (and turns NaN into 0), so adding a half
/// rounds without a libm call — the hot path of every textured pixel.
fn channel(v: f32) -> u8 {
    (v + 0.5) as u8
}

/// `v.floor()` as an integer without a libm call.
fn floor(v: f32) -> i64 {
    let t = v as i64;
    t - i64::from((t as f32) > v)
}

/// `src` over `dst`, premultiplied: `One, OneMinusSrcAlpha` (egui-wgpu's blend state).
fn blend(dst: &mut [u8; 4], src: [u8; 4]) {
    match src[3] {
        255 => *dst = src,
        0 if src == [0; 4] => {}
        a => {
            let keep = u16::from(255 - a);
            for i in 0..4 {
                let d = (u16::from(dst[i]) * keep + 127) / 255;
                dst[i] = src[i].saturating_add(d as u8);
            }
        }
    }
}

impl Texture {
    /// The texel at normalized `uv`, filtered and wrapped as the texture's options say
    /// (magnification's filter: screenshots draw at the app's own scale).
    fn sample(&self, uv: [f32; 2]) -> [u8; 4] {
        let size = [self.width as f32, self.height as f32];
        match self.options.magnification {
            TextureFilter::Nearest => self.texel(floor(uv[0] * size[0]), floor(uv[1] * size[1])),
            TextureFilter::Linear => {
                let (x, y) = (uv[0] * size[0] - 0.5, uv[1] * size[1] - 0.5);
                let (x0, y0) = (floor(x), floor(y));
                let (fx, fy) = (x - x0 as f32, y - y0 as f32);
                let [tl, tr, bl, br] = [
                    self.texel(x0, y0),
                    self.texel(x0 + 1, y0),
                    self.texel(x0, y0 + 1),
                    self.texel(x0 + 1, y0 + 1),
                ];
                std::array::from_fn(|i| {
                    let lerp =
                        |a: u8, b: u8, t: f32| f32::from(a) + (f32::from(b) - f32::from(a)) * t;
                    let top = lerp(tl[i], tr[i], fx);
                    let bottom = lerp(bl[i], br[i], fx);
                    channel(top + (bottom - top) * fy)
                })
            }
        }
    }

    fn texel(&self, x: i64, y: i64) -> [u8; 4] {
        let wrap = |c: i64, n: usize| -> usize {
            let n = n.max(1) as i64;
            let c = match self.options.wrap_mode {
                TextureWrapMode::ClampToEdge => c.clamp(0, n - 1),
                TextureWrapMode::Repeat => c.rem_euclid(n),
                TextureWrapMode::MirroredRepeat => {
                    let phase = c.rem_euclid(2 * n);
                    phase.min(2 * n - 1 - phase)
                }
            };
            c as usize
        };
        let (x, y) = (wrap(x, self.width), wrap(y, self.height));
        self.pixels
            .get(y * self.width + x)
            .copied()
            .unwrap_or([0; 4])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::{Color32, Pos2, Rect, pos2};

    fn full(c: &Canvas) -> PixelRect {
        PixelRect {
            min: [0, 0],
            max: [c.width, c.height],
        }
    }

    fn rect_mesh(r: Rect, color: Color32) -> Mesh {
        let mut m = Mesh::default();
        m.add_colored_rect(r, color);
        m
    }

    #[test]
    fn a_rectangle_covers_exactly_its_pixels_and_shared_edges_blend_once() {
        let mut c = Canvas::new(8, 8);
        let half = Color32::from_rgba_premultiplied(0, 0, 100, 128);
        let m = rect_mesh(Rect::from_min_max(pos2(2.0, 2.0), pos2(6.0, 5.0)), half);
        c.draw_mesh(&m, None, full(&c), 1.0);
        for y in 0..8 {
            for x in 0..8 {
                let inside = (2..6).contains(&x) && (2..5).contains(&y);
                let want = if inside { [0, 0, 100, 128] } else { [0; 4] };
                assert_eq!(c.pixels[y * 8 + x], want, "({x}, {y})");
            }
        }
    }

    #[test]
    fn both_windings_draw_and_clip_limits_them() {
        let mut c = Canvas::new(4, 4);
        let mut m = Mesh::default();
        let v = |x: f32, y: f32| Vertex {
            pos: Pos2::new(x, y),
            uv: egui::epaint::WHITE_UV,
            color: Color32::RED,
        };
        m.vertices = vec![v(0.0, 0.0), v(4.0, 0.0), v(4.0, 4.0), v(0.0, 4.0)];
        m.indices = vec![0, 1, 2, 0, 3, 2]; // clockwise, then counter-clockwise
        let clip = PixelRect {
            min: [1, 0],
            max: [3, 4],
        };
        c.draw_mesh(&m, None, clip, 1.0);
        let red = Color32::RED.to_array();
        for y in 0..4 {
            for x in 0..4 {
                let want = if (1..3).contains(&x) { red } else { [0; 4] };
                assert_eq!(c.pixels[y * 4 + x], want, "({x}, {y})");
            }
        }
    }

    #[test]
    fn textures_filter_and_wrap_as_their_options_say() {
        let t = |options| Texture {
            width: 2,
            height: 1,
            pixels: vec![[0, 0, 0, 255], [200, 200, 200, 255]],
            options,
        };
        let nearest = t(TextureOptions::NEAREST);
        assert_eq!(nearest.sample([0.2, 0.5]), [0, 0, 0, 255]);
        assert_eq!(nearest.sample([0.7, 0.5]), [200, 200, 200, 255]);
        // Halfway between the two texel centres.
        assert_eq!(
            t(TextureOptions::LINEAR).sample([0.5, 0.5]),
            [100, 100, 100, 255]
        );
        let repeat = t(TextureOptions::NEAREST_REPEAT);
        assert_eq!(repeat.sample([1.2, 0.5]), [0, 0, 0, 255]);
        assert_eq!(nearest.sample([1.2, 0.5]), [200, 200, 200, 255]);
    }

    #[test]
    fn floor_and_channel_match_libm() {
        for v in [
            -2.5f32, -1.0, -0.5, -0.0, 0.0, 0.3, 1.0, 1.7, 254.49, 254.5, 255.0,
        ] {
            assert_eq!(floor(v), v.floor() as i64, "{v}");
            if v >= 0.0 {
                assert_eq!(channel(v), v.round() as u8, "{v}");
            }
        }
        assert_eq!(
            (channel(300.0), channel(-3.0), channel(f32::NAN)),
            (255, 0, 0)
        );
    }

    #[test]
    fn translucent_over_opaque_is_premultiplied_over() {
        let mut d = [200, 100, 0, 255];
        blend(&mut d, [50, 0, 0, 128]);
        assert_eq!(d, [50 + 100, 50, 0, 255]);
    }

    #[test]
    fn far_and_non_finite_vertices_draw_nothing_and_never_overflow() {
        for far in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1e30, -3e6] {
            let mut m = Mesh::default();
            let v = |x: f32, y: f32| Vertex {
                pos: pos2(x, y),
                uv: egui::epaint::WHITE_UV,
                color: Color32::RED,
            };
            m.vertices = vec![v(0.0, 0.0), v(far, 1.0), v(1.0, far)];
            m.indices = vec![0, 1, 2];
            let mut c = Canvas::new(4, 4);
            c.draw_mesh(&m, None, full(&c), 1.0);
            if !far.is_nan() {
                assert!(c.pixels.iter().all(|p| *p == [0; 4]), "{far}");
            }
        }
    }

    #[test]
    fn degenerate_and_out_of_range_triangles_draw_nothing() {
        let mut c = Canvas::new(4, 4);
        let mut m = rect_mesh(
            Rect::from_min_max(pos2(0.0, 0.0), pos2(4.0, 0.0)),
            Color32::RED,
        );
        m.indices.extend([0, 1, 99]);
        c.draw_mesh(&m, None, full(&c), 1.0);
        assert!(c.pixels.iter().all(|p| *p == [0; 4]));
    }

    /// The rule the spans implement, pixel by pixel.
    fn covers(p: [[i64; 2]; 3], x: usize, y: usize) -> bool {
        let mut p = p;
        if orient(p[0], p[1], p[2]) < 0 {
            p.swap(1, 2);
        }
        let c = [x as i64 * SUB + SUB / 2, y as i64 * SUB + SUB / 2];
        [(p[1], p[2]), (p[2], p[0]), (p[0], p[1])]
            .iter()
            .all(|&(a, b)| {
                let w = orient(a, b, c);
                w > 0 || (w == 0 && is_top_left(a, b))
            })
    }

    fn lcg(seed: &mut u64) -> f32 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*seed >> 33) % 4000) as f32 / 100.0 - 4.0 // -4.0 ..= 36.0: some outside the canvas
    }

    #[test]
    fn spans_cover_exactly_the_pixels_the_per_pixel_rule_covers() {
        let mut seed = 7;
        for _ in 0..300 {
            let pos: [Pos2; 3] = std::array::from_fn(|_| pos2(lcg(&mut seed), lcg(&mut seed)));
            let mut m = Mesh::default();
            for p in pos {
                m.vertices.push(Vertex {
                    pos: p,
                    uv: egui::epaint::WHITE_UV,
                    color: Color32::WHITE,
                });
            }
            m.indices = vec![0, 1, 2];
            let mut c = Canvas::new(32, 32);
            c.draw_mesh(&m, None, full(&c), 1.0);
            let snapped = pos.map(|p| [(p.x * 256.0).round() as i64, (p.y * 256.0).round() as i64]);
            let degenerate = orient(snapped[0], snapped[1], snapped[2]) == 0;
            for y in 0..32 {
                for x in 0..32 {
                    let want = !degenerate && covers(snapped, x, y);
                    assert_eq!(
                        c.pixels[y * 32 + x] != [0; 4],
                        want,
                        "{pos:?} at ({x}, {y})"
                    );
                }
            }
        }
    }

    #[test]
    fn a_translucent_fan_blends_each_pixel_once() {
        // A 12-sided polygon around a fractional centre, as egui tessellates a circle.
        let mut m = Mesh::default();
        let color = Color32::from_rgba_premultiplied(60, 0, 0, 60);
        let v = |pos| Vertex {
            pos,
            uv: egui::epaint::WHITE_UV,
            color,
        };
        m.vertices.push(v(pos2(10.3, 9.7)));
        for i in 0..12 {
            let a = i as f32 * std::f32::consts::TAU / 12.0;
            m.vertices
                .push(v(pos2(10.3 + 8.0 * a.cos(), 9.7 + 8.0 * a.sin())));
        }
        for i in 0..12u32 {
            m.indices.extend([0, 1 + i, 1 + (i + 1) % 12]);
        }
        let mut c = Canvas::new(24, 24);
        c.draw_mesh(&m, None, full(&c), 1.0);
        let once = color.to_array();
        assert!(c.pixels.iter().all(|p| *p == [0; 4] || *p == once));
        assert!(c.pixels.iter().filter(|p| **p == once).count() > 150);
    }
}

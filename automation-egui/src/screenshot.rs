//! Offscreen screenshots with egui-wgpu, the renderer eframe uses (feature `screenshot`).
//!
//! The device is opened once per process and shared by every target ([`gpu_info`]).
//! Adapter search: every adapter wgpu enumerates on the enabled backends (`WGPU_BACKEND`
//! narrows them, e.g. `WGPU_BACKEND=gl`), hardware first, then software (`DeviceType::Cpu`:
//! Mesa llvmpipe through GL, or lavapipe through Vulkan); the first that yields a device wins.
//! `GPU_UNAVAILABLE` only when none does; `GPU_READBACK_FAILED` when the device is lost or a
//! readback fails. Each target keeps its own [`egui_wgpu::Renderer`] (its textures), fed with
//! the texture deltas the target accumulated since its last screenshot.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use automation_core::snapshot::Bounds;
use automation_core::{ErrorCode, OpError};
use base64::Engine as _;
use serde_json::{Value, json};

use crate::EguiTarget;

/// The colour format screenshots render to (what egui-wgpu expects: gamma-space, not sRGB).
const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
/// How long a readback may take.
const WAIT: Duration = Duration::from_secs(20);

struct Gpu {
    /// Kept for the life of the process: dropping the instance terminates its EGL display
    /// (wgpu-hal's GL backend), which the device's context still uses — later readbacks then
    /// failed with `BadDisplay` or a double free, depending on which thread held the context.
    _instance: wgpu::Instance,
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    lost: Arc<AtomicBool>,
}

static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();

/// The adapter the shared device was opened on (opens it on first use).
pub fn gpu_info() -> Result<wgpu::AdapterInfo, OpError> {
    gpu().map(|g| g.info.clone())
}

fn gpu() -> Result<&'static Gpu, OpError> {
    let gpu = GPU.get_or_init(open).as_ref().map_err(|m| {
        OpError::new(ErrorCode::GpuUnavailable, m.clone()).with_hint(
            "install a software rasterizer (Mesa: libgl1-mesa-dri for GL/llvmpipe, mesa-vulkan-drivers for lavapipe) or set WGPU_BACKEND=gl",
        )
    })?;
    if gpu.lost.load(Ordering::SeqCst) {
        return Err(readback("the GPU device was lost"));
    }
    Ok(gpu)
}

fn readback(message: impl Into<String>) -> OpError {
    OpError::new(ErrorCode::GpuReadbackFailed, message)
        .with_hint("retry; the device is re-used for the life of the process")
}

/// Hardware adapters first (discrete, integrated, virtual, other), software last.
fn rank(info: &wgpu::AdapterInfo) -> (u8, u8) {
    let kind = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    };
    let backend = match info.backend {
        wgpu::Backend::Vulkan | wgpu::Backend::Metal | wgpu::Backend::Dx12 => 0,
        wgpu::Backend::Gl => 1,
        _ => 2,
    };
    (kind, backend)
}

fn open() -> Result<Gpu, String> {
    let backends =
        wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY | wgpu::Backends::GL);
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = backends;
    desc.flags = wgpu::InstanceFlags::from_build_config().with_env();
    desc.backend_options = wgpu::BackendOptions::from_env_or_default();
    let instance = wgpu::Instance::new(desc);
    let mut adapters = pollster::block_on(instance.enumerate_adapters(backends));
    adapters.sort_by_key(|a| rank(&a.get_info()));
    let mut tried = Vec::new();
    for adapter in adapters {
        let info = adapter.get_info();
        let base = if info.backend == wgpu::Backend::Gl {
            wgpu::Limits::downlevel_webgl2_defaults()
        } else {
            wgpu::Limits::downlevel_defaults()
        };
        let desc = wgpu::DeviceDescriptor {
            label: Some("automation-egui screenshots"),
            required_limits: base.using_resolution(adapter.limits()),
            ..Default::default()
        };
        match pollster::block_on(adapter.request_device(&desc)) {
            Ok((device, queue)) => {
                let lost = Arc::new(AtomicBool::new(false));
                let flag = lost.clone();
                device.set_device_lost_callback(move |_, _| flag.store(true, Ordering::SeqCst));
                return Ok(Gpu {
                    _instance: instance,
                    device,
                    queue,
                    info,
                    lost,
                });
            }
            Err(e) => tried.push(format!("{} ({:?}): {e}", info.name, info.backend)),
        }
    }
    Err(if tried.is_empty() {
        format!("no GPU adapter on backends {backends:?}, not even a software one")
    } else {
        format!("no adapter yielded a device: {}", tried.join("; "))
    })
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
}

impl Screenshot {
    /// The reply data: `{"image": {"mime", "base64"}, "width", "height", "scale"}`.
    pub fn to_json(&self) -> Value {
        json!({
            "image": { "mime": "image/png", "base64": base64::engine::general_purpose::STANDARD.encode(&self.png) },
            "width": self.width,
            "height": self.height,
            "scale": self.scale,
        })
    }
}

/// Renders the target's last frame, optionally cropped to `crop` (logical px).
pub fn capture(target: &mut EguiTarget<'_>, crop: Option<Bounds>) -> Result<Screenshot, OpError> {
    let gpu = gpu()?;
    target.set_keep_textures(true);
    let ppp = target.pixels_per_point();
    let size = target.size() * ppp;
    let (w, h) = (
        size.x.round().max(1.0) as u32,
        size.y.round().max(1.0) as u32,
    );
    let mut delta = target.take_textures();
    if target.live {
        // eframe still needs these; the live bridge hands them back after the op.
        target.textures = delta.clone();
    }
    let mut set: Vec<_> = delta.set.drain().collect();
    let free: Vec<_> = delta.free.drain().collect();
    if target.live {
        // eframe consumed the texture history of the real frames: start from the current
        // font atlas (the live screenshot shows what egui painted, minus user images that were
        // uploaded before the op).
        let atlas = target.context().fonts(|f| f.image());
        set.push((
            egui::TextureId::default(),
            std::iter::once(egui::epaint::ImageDelta::full(atlas, Default::default())).collect(),
        ));
    }
    let prims = target.context().tessellate(target.shapes.clone(), ppp);
    let renderer = target.renderer.get_or_insert_with(|| {
        egui_wgpu::Renderer::new(&gpu.device, FORMAT, egui_wgpu::RendererOptions::PREDICTABLE)
    });
    set.sort_by_key(|(id, _)| format!("{id:?}"));
    for (id, images) in &set {
        for image in images {
            renderer.update_texture(&gpu.device, &gpu.queue, *id, image);
        }
    }
    let rgba = render(gpu, renderer, &prims, w, h, ppp);
    for id in &free {
        renderer.free_texture(id);
    }
    let rgba = rgba?;
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
    })
}

fn render(
    gpu: &Gpu,
    renderer: &mut egui_wgpu::Renderer,
    prims: &[egui::ClippedPrimitive],
    w: u32,
    h: u32,
    ppp: f32,
) -> Result<Vec<u8>, OpError> {
    let device = &gpu.device;
    let screen = egui_wgpu::ScreenDescriptor {
        size_in_pixels: [w, h],
        pixels_per_point: ppp,
    };
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("automation-egui"),
    });
    let user = renderer.update_buffers(device, &gpu.queue, &mut encoder, prims, &screen);
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("automation-egui screenshot"),
        size: wgpu::Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
    {
        let mut pass = encoder
            .begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("automation-egui"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                        store: wgpu::StoreOp::Store,
                    },
                    depth_slice: None,
                })],
                ..Default::default()
            })
            .forget_lifetime();
        renderer.render(&mut pass, prims, &screen);
    }
    let padded =
        (w * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("automation-egui readback"),
        size: u64::from(padded) * u64::from(h),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded),
                rows_per_image: None,
            },
        },
        wgpu::Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
    );
    let index = gpu
        .queue
        .submit(user.into_iter().chain(std::iter::once(encoder.finish())));
    let (tx, rx) = std::sync::mpsc::channel();
    let slice = buffer.slice(..);
    slice.map_async(wgpu::MapMode::Read, move |r| drop(tx.send(r)));
    device
        .poll(wgpu::PollType::Wait {
            submission_index: Some(index),
            timeout: Some(WAIT),
        })
        .map_err(|e| readback(format!("waiting for the GPU: {e}")))?;
    match rx.recv_timeout(WAIT) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(readback(format!("mapping the readback buffer: {e}"))),
        Err(_) => return Err(readback("the readback never completed")),
    }
    if gpu.lost.load(Ordering::SeqCst) {
        return Err(readback("the GPU device was lost during readback"));
    }
    let data = slice
        .get_mapped_range()
        .map_err(|e| readback(format!("reading the readback buffer: {e}")))?;
    let row = (w * 4) as usize;
    let mut out = Vec::with_capacity(row * h as usize);
    for chunk in data.chunks(padded as usize).take(h as usize) {
        out.extend_from_slice(chunk.get(..row).unwrap_or(chunk));
    }
    drop(data);
    buffer.unmap();
    if out.len() != row * h as usize {
        return Err(readback("the readback buffer was short"));
    }
    Ok(out)
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

/// Encodes RGBA8 pixels as a PNG.
pub fn encode_png(rgba: &[u8], w: u32, h: u32) -> Result<Vec<u8>, OpError> {
    let fail = |e: png::EncodingError| {
        OpError::new(ErrorCode::TargetFailed, format!("PNG encoding failed: {e}"))
    };
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(fail)?;
        writer.write_image_data(rgba).map_err(fail)?;
        writer.finish().map_err(fail)?;
    }
    Ok(out)
}

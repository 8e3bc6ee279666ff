//! One frame of a compositor's screen-cast stream, read over PipeWire: the pixels of a Wayland
//! session, which only the compositor holds (GNOME's Mutter hands them out as the frames of
//! an `org.gnome.Mutter.ScreenCast` stream, a PipeWire node).
//!
//! Each grab connects a short-lived consumer to the node, takes the first frame that has
//! pixels, and leaves: Mutter paints a fresh frame for a consumer that joins, so the frame
//! shows the app as it is now. The frames come in shared memory (no DMA-BUF modifier is
//! offered), in one of the 8-bit RGB layouts asked for below.

use std::cell::RefCell;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::rc::Rc;
use std::time::Duration;

use pipewire as pw;
use pw::spa;
use pw::spa::param::video::VideoFormat;

/// One frame's pixels.
#[derive(Debug)]
pub struct Frame {
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// RGB rows, top to bottom.
    pub rgb: Vec<u8>,
}

impl Frame {
    /// The `(x, y, w, h)` part of the frame, cut to the frame.
    pub fn crop(&self, x: i32, y: i32, w: u32, h: u32) -> Option<Frame> {
        let x0 = u32::try_from(x.max(0)).ok()?.min(self.width);
        let y0 = u32::try_from(y.max(0)).ok()?.min(self.height);
        let x1 =
            u32::try_from((i64::from(x) + i64::from(w)).clamp(0, i64::from(self.width))).ok()?;
        let y1 =
            u32::try_from((i64::from(y) + i64::from(h)).clamp(0, i64::from(self.height))).ok()?;
        if x1 <= x0 || y1 <= y0 {
            return None;
        }
        let row = self.width as usize * 3;
        let mut rgb = Vec::with_capacity((x1 - x0) as usize * (y1 - y0) as usize * 3);
        for r in y0..y1 {
            let start = r as usize * row + x0 as usize * 3;
            rgb.extend_from_slice(self.rgb.get(start..start + (x1 - x0) as usize * 3)?);
        }
        Some(Frame {
            width: x1 - x0,
            height: y1 - y0,
            rgb,
        })
    }
}

/// Takes one frame of PipeWire node `node` from the PipeWire daemon at `socket`, within
/// `within`.
pub fn grab(socket: &Path, node: u32, within: Duration) -> Result<Frame, String> {
    static INIT: std::sync::Once = std::sync::Once::new();
    INIT.call_once(pw::init);
    let err = |what: &'static str| move |e: pw::Error| format!("PipeWire: {what}: {e}");
    let mainloop = pw::main_loop::MainLoopRc::new(None).map_err(err("a main loop"))?;
    let context = pw::context::ContextRc::new(&mainloop, None).map_err(err("a context"))?;
    let fd = UnixStream::connect(socket)
        .map_err(|e| format!("cannot reach PipeWire at {}: {e}", socket.display()))?;
    let core = context
        .connect_fd_rc(fd.into(), None)
        .map_err(err("connecting"))?;
    let stream = pw::stream::StreamBox::new(
        &core,
        "automation-kit screenshot",
        pw::properties::properties! {
            *pw::keys::MEDIA_TYPE => "Video",
            *pw::keys::MEDIA_CATEGORY => "Capture",
            *pw::keys::MEDIA_ROLE => "Screen",
        },
    )
    .map_err(err("a stream"))?;

    let outcome: Rc<RefCell<Option<Result<Frame, String>>>> = Rc::new(RefCell::new(None));
    let format = Rc::new(RefCell::new(spa::param::video::VideoInfoRaw::default()));
    let _listener = stream
        .add_local_listener_with_user_data(())
        .state_changed({
            let (outcome, mainloop) = (outcome.clone(), mainloop.clone());
            move |_, _, _, new| {
                if let pw::stream::StreamState::Error(e) = new {
                    *outcome.borrow_mut() = Some(Err(format!("PipeWire: the stream failed: {e}")));
                    mainloop.quit();
                }
            }
        })
        .param_changed({
            let format = format.clone();
            move |_, _, id, param| {
                if id != spa::param::ParamType::Format.as_raw() {
                    return;
                }
                if let Some(param) = param {
                    // A format that does not parse leaves the default, which `process`
                    // refuses by name.
                    let _ = format.borrow_mut().parse(param);
                }
            }
        })
        .process({
            let (outcome, mainloop, format) = (outcome.clone(), mainloop.clone(), format.clone());
            move |stream, _| {
                let Some(mut buffer) = stream.dequeue_buffer() else {
                    return;
                };
                let Some(data) = buffer.datas_mut().first_mut() else {
                    return;
                };
                let (size, offset, stride) = {
                    let c = data.chunk();
                    (c.size() as usize, c.offset() as usize, c.stride())
                };
                // A frame that only moves the cursor carries no pixels.
                if size == 0 {
                    return;
                }
                let f = format.borrow();
                let (width, height) = (f.size().width, f.size().height);
                let pixels = data.data().and_then(|d| d.get(offset..offset + size));
                let result = match pixels {
                    Some(p) => to_rgb(p, f.format(), width, height, stride).map(|rgb| Frame {
                        width,
                        height,
                        rgb,
                    }),
                    None => Err("PipeWire: the frame's memory could not be read".to_string()),
                };
                *outcome.borrow_mut() = Some(result);
                mainloop.quit();
            }
        })
        .register()
        .map_err(err("listening"))?;

    let params = enum_format()?;
    let mut params = [spa::pod::Pod::from_bytes(&params)
        .ok_or_else(|| "PipeWire: the format offer did not serialize".to_string())?];
    stream
        .connect(
            spa::utils::Direction::Input,
            Some(node),
            pw::stream::StreamFlags::AUTOCONNECT | pw::stream::StreamFlags::MAP_BUFFERS,
            &mut params,
        )
        .map_err(err("connecting the stream"))?;

    let timer = mainloop.loop_().add_timer({
        let mainloop = mainloop.clone();
        move |_| mainloop.quit()
    });
    timer.update_timer(Some(within), None);
    mainloop.run();
    let _ = stream.disconnect();
    outcome.borrow_mut().take().unwrap_or_else(|| {
        Err(format!(
            "no frame came from the compositor's screen-cast stream (PipeWire node {node}) within {} ms",
            within.as_millis()
        ))
    })
}

/// The formats the consumer takes: 8-bit RGB layouts, any size, any rate.
fn enum_format() -> Result<Vec<u8>, String> {
    use spa::param::format::{FormatProperties, MediaSubtype, MediaType};
    let obj = spa::pod::object!(
        spa::utils::SpaTypes::ObjectParamFormat,
        spa::param::ParamType::EnumFormat,
        spa::pod::property!(FormatProperties::MediaType, Id, MediaType::Video),
        spa::pod::property!(FormatProperties::MediaSubtype, Id, MediaSubtype::Raw),
        spa::pod::property!(
            FormatProperties::VideoFormat,
            Choice,
            Enum,
            Id,
            VideoFormat::BGRx,
            VideoFormat::BGRx,
            VideoFormat::BGRA,
            VideoFormat::RGBx,
            VideoFormat::RGBA,
            VideoFormat::xRGB,
            VideoFormat::ARGB,
            VideoFormat::RGB,
        ),
        spa::pod::property!(
            FormatProperties::VideoSize,
            Choice,
            Range,
            Rectangle,
            spa::utils::Rectangle {
                width: 1600,
                height: 1000
            },
            spa::utils::Rectangle {
                width: 1,
                height: 1
            },
            spa::utils::Rectangle {
                width: 16384,
                height: 16384
            }
        ),
        spa::pod::property!(
            FormatProperties::VideoFramerate,
            Choice,
            Range,
            Fraction,
            spa::utils::Fraction { num: 30, denom: 1 },
            spa::utils::Fraction { num: 0, denom: 1 },
            spa::utils::Fraction {
                num: 1000,
                denom: 1
            }
        ),
    );
    spa::pod::serialize::PodSerializer::serialize(
        std::io::Cursor::new(Vec::new()),
        &spa::pod::Value::Object(obj),
    )
    .map(|(c, _)| c.into_inner())
    .map_err(|e| format!("PipeWire: the format offer did not serialize: {e:?}"))
}

/// Rows of `format` pixels, `stride` bytes apart, as RGB.
fn to_rgb(
    pixels: &[u8],
    format: VideoFormat,
    width: u32,
    height: u32,
    stride: i32,
) -> Result<Vec<u8>, String> {
    // Where R, G and B sit in each pixel, and its size.
    let (r, g, b, bytes) = match format {
        VideoFormat::BGRx | VideoFormat::BGRA => (2, 1, 0, 4),
        VideoFormat::RGBx | VideoFormat::RGBA => (0, 1, 2, 4),
        VideoFormat::xRGB | VideoFormat::ARGB => (1, 2, 3, 4),
        VideoFormat::RGB => (0, 1, 2, 3),
        other => {
            return Err(format!(
                "PipeWire: the compositor sent {other:?} frames, which the kit does not read"
            ));
        }
    };
    let (w, h) = (width as usize, height as usize);
    let stride = usize::try_from(stride)
        .ok()
        .filter(|s| *s >= w * bytes)
        .unwrap_or(w * bytes);
    if w == 0 || h == 0 || pixels.len() < stride * (h - 1) + w * bytes {
        return Err(format!(
            "PipeWire: a {width}x{height} frame came with {} bytes",
            pixels.len()
        ));
    }
    let mut rgb = Vec::with_capacity(w * h * 3);
    for row in pixels.chunks(stride).take(h) {
        for px in row.chunks_exact(bytes).take(w) {
            rgb.extend_from_slice(&[px[r], px[g], px[b]]);
        }
    }
    Ok(rgb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bgrx_rows_with_padding_become_rgb() {
        // 2x2, stride 12 (4 bytes of padding a row).
        let px = [
            1, 2, 3, 0, 4, 5, 6, 0, 9, 9, 9, 9, //
            7, 8, 9, 0, 10, 11, 12, 0, 9, 9, 9, 9,
        ];
        let rgb = to_rgb(&px, VideoFormat::BGRx, 2, 2, 12).unwrap();
        assert_eq!(rgb, [3, 2, 1, 6, 5, 4, 9, 8, 7, 12, 11, 10]);
        assert!(to_rgb(&px[..10], VideoFormat::BGRx, 2, 2, 12).is_err());
        assert!(to_rgb(&px, VideoFormat::I420, 2, 2, 12).is_err());
    }

    #[test]
    fn a_crop_is_cut_to_the_frame() {
        let f = Frame {
            width: 3,
            height: 2,
            rgb: (0..18).collect(),
        };
        let c = f.crop(1, 1, 5, 5).unwrap();
        assert_eq!((c.width, c.height), (2, 1));
        assert_eq!(c.rgb, [12, 13, 14, 15, 16, 17]);
        assert!(f.crop(3, 0, 1, 1).is_none());
    }
}

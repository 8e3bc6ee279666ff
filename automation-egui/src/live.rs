//! Live attach for eframe apps (feature `live`): the automation-wire bridge, served on the UI
//! thread inside eframe's frame loop.
//!
//! ```no_run
//! use automation_egui::{Demo, live::install_automation_bridge_in_debug};
//!
//! eframe::run_native(
//!     "my app",
//!     eframe::NativeOptions::default(),
//!     Box::new(|cc| Ok(Box::new(install_automation_bridge_in_debug(cc, "my app", Demo::default())))),
//! )
//! .ok();
//! ```
//!
//! How a request is served: the bridge's accept thread queues it and wakes eframe
//! (`request_repaint`); eframe calls [`eframe::App::raw_input_hook`] before its next pass, and
//! there — on the UI thread, outside any pass, never across a frame boundary — the op runs
//! through [`fn@crate::serve`] on an [`EguiTarget`] driving eframe's own `egui::Context`. The
//! op's frames run on a clock frozen at that frame's time and moved only by the op; after the
//! reply the advanced time is carried forward as an offset on every later frame's
//! `RawInput::time`, so the app's clock never runs backwards and a jump an op asked for is
//! permanent. Texture changes of the op's frames are handed back to eframe's texture manager.
//!
//! Your app is an [`EguiApp`] (it draws into a `Ui` and gets the host's window sink), not an
//! `eframe::App`: the op's frames run between eframe's, where no `eframe::Frame` exists.
//!
//! In a release build (`cfg(not(debug_assertions))`) no bridge is started: the wrapper only
//! forwards to your app, and the banner, token and endpoint code are not in the binary.

use automation_core::Session;

use crate::EguiTarget;
use crate::app::EguiApp;

/// An eframe app driven by your [`EguiApp`], with the automation bridge in debug builds.
pub struct LiveApp {
    session: Session<EguiTarget<'static>>,
    /// Simulated milliseconds ops have advanced, carried forward on every frame's time.
    offset_ms: u64,
    /// The last time (µs) any pass on the context ran at (real or the op's).
    last_us: u64,
    #[cfg(debug_assertions)]
    server: Option<automation_wire::core_bridge::CoreBridgeServer>,
}

impl std::fmt::Debug for LiveApp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveApp")
            .field("offset_ms", &self.offset_ms)
            .finish_non_exhaustive()
    }
}

/// Wraps `app` for eframe and, in a debug build, starts the automation bridge (publishing the
/// endpoint descriptor and printing the attach banner on stderr). A bridge that cannot start is
/// reported on stderr and the app runs without it. A release build starts nothing.
pub fn install_automation_bridge_in_debug(
    cc: &eframe::CreationContext<'_>,
    app_name: &str,
    app: impl EguiApp + 'static,
) -> LiveApp {
    let ctx = cc.egui_ctx.clone();
    let size = ctx.content_rect().size();
    let ppp = ctx.pixels_per_point();
    let mut target = EguiTarget::on_context(ctx.clone(), Box::new(app), 0, size, ppp);
    target.live = true;
    let _ = app_name;
    LiveApp {
        session: Session::new(target),
        offset_ms: 0,
        last_us: 0,
        #[cfg(debug_assertions)]
        server: start_bridge(app_name, ctx),
    }
}

#[cfg(debug_assertions)]
fn start_bridge(
    app_name: &str,
    ctx: egui::Context,
) -> Option<automation_wire::core_bridge::CoreBridgeServer> {
    let mut opts = automation_wire::server::ServerOptions::new(app_name);
    opts.waker = Some(Box::new(move || ctx.request_repaint()));
    match automation_wire::core_bridge::install_core_bridge_in_debug(opts) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("automation: the bridge did not start: {e}");
            None
        }
    }
}

impl LiveApp {
    /// Simulated milliseconds ops have added to the app's clock so far.
    pub fn offset_ms(&self) -> u64 {
        self.offset_ms
    }

    /// The bridge's endpoint address, when one is running.
    pub fn bridge_address(&self) -> Option<String> {
        #[cfg(debug_assertions)]
        {
            self.server.as_ref().map(|s| s.address().to_string())
        }
        #[cfg(not(debug_assertions))]
        {
            None
        }
    }

    #[cfg(debug_assertions)]
    fn serve_pending(&mut self, ctx: &egui::Context, raw: &egui::RawInput, real_us: u64) {
        let Some(server) = &self.server else { return };
        let mut served = false;
        while let Some(pending) = server.poll() {
            let (request, responder) = pending.into_parts();
            let size = raw
                .screen_rect
                .map(|r| r.size())
                .unwrap_or_else(|| ctx.content_rect().size());
            let native = raw
                .viewports
                .get(&egui::ViewportId::ROOT)
                .and_then(|v| v.native_pixels_per_point)
                .unwrap_or_else(|| ctx.pixels_per_point());
            let target = &mut self.session.target;
            target.rebase(
                real_us.saturating_add(self.offset_ms.saturating_mul(1000)),
                size,
                native,
            );
            // A fresh full tree for this op (the real frames' updates went to eframe).
            target.run_frame();
            let reply = crate::serve(&mut self.session, &request);
            self.offset_ms = self
                .offset_ms
                .saturating_add(self.session.target.advanced_ms());
            give_textures_back(ctx, &mut self.session.target);
            responder.respond(reply);
            served = true;
        }
        if served {
            ctx.request_repaint();
        }
    }
}

/// Hands texture changes made by the op's frames to eframe's texture manager, which the next
/// real frame uploads. (A texture the op's frames freed stays allocated until exit.)
#[cfg(debug_assertions)]
fn give_textures_back(ctx: &egui::Context, target: &mut EguiTarget<'_>) {
    let mut delta = target.take_textures();
    let manager = ctx.tex_manager();
    let mut manager = manager.write();
    for (id, images) in delta.set.drain() {
        for image in images {
            if manager.meta(id).is_some() {
                manager.set(id, image);
            }
        }
    }
    delta.clear();
}

impl eframe::App for LiveApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.session.target.draw(ui);
    }

    fn raw_input_hook(&mut self, ctx: &egui::Context, raw: &mut egui::RawInput) {
        let real = raw.time.unwrap_or(0.0) * 1e6;
        let real_us = if real.is_finite() && real > 0.0 {
            real as u64
        } else {
            0
        };
        self.session.target.note_time(self.last_us);
        #[cfg(debug_assertions)]
        self.serve_pending(ctx, raw, real_us);
        let _ = ctx;
        // Carry the advanced time forward; never earlier than any earlier pass (the op's
        // frames included). Integer µs, so the f64 seconds are monotonic too.
        let us = real_us
            .saturating_add(self.offset_ms.saturating_mul(1000))
            .max(self.session.target.time_us())
            .max(self.last_us);
        self.last_us = us;
        raw.time = Some(us as f64 / 1e6);
    }
}

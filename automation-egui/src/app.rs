//! The app under test: anything that draws one egui frame into a [`egui::Ui`].

use automation_core::WindowOps;

/// An egui app the target can run: one call per frame.
///
/// `host` is the host's window sink: an app action that opens a native window calls
/// [`WindowOps::open_window`] on it (headless: a recorder that hands out synthetic ids; live:
/// the bridge's window list), so such an action never panics and `list_windows` sees it.
///
/// A plain `FnMut(&mut egui::Ui)` is an app through [`UiFn`] (or [`crate::EguiTarget::new`]).
pub trait EguiApp {
    /// Draw one frame.
    fn ui(&mut self, ui: &mut egui::Ui, host: &mut dyn WindowOps);
}

impl<A: EguiApp + ?Sized> EguiApp for &mut A {
    fn ui(&mut self, ui: &mut egui::Ui, host: &mut dyn WindowOps) {
        (**self).ui(ui, host);
    }
}

impl<A: EguiApp + ?Sized> EguiApp for Box<A> {
    fn ui(&mut self, ui: &mut egui::Ui, host: &mut dyn WindowOps) {
        (**self).ui(ui, host);
    }
}

/// A closure that draws a frame, as an [`EguiApp`] (the host is not passed to it).
pub struct UiFn<F>(pub F);

impl<F: FnMut(&mut egui::Ui)> EguiApp for UiFn<F> {
    fn ui(&mut self, ui: &mut egui::Ui, _host: &mut dyn WindowOps) {
        (self.0)(ui);
    }
}

/// A closure that draws a frame and may open host windows, as an [`EguiApp`].
pub struct HostUiFn<F>(pub F);

impl<F: FnMut(&mut egui::Ui, &mut dyn WindowOps)> EguiApp for HostUiFn<F> {
    fn ui(&mut self, ui: &mut egui::Ui, host: &mut dyn WindowOps) {
        (self.0)(ui, host);
    }
}

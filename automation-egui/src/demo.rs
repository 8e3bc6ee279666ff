//! The built-in demo: what `automation --headless` drives, and the app every catalog op is
//! tested against (`tests/every_op.rs`).
//!
//! | Widget | Label | What acting on it does |
//! |---|---|---|
//! | heading | "Automation demo" | — |
//! | button | "Save" (also Ctrl/⌘+S) | status becomes "Saved" (a polite live region) |
//! | button | "Cancel" | status becomes "Cancelled" |
//! | text field | "Name" (labelled by a label) | typing, IME and `set_value` edit it |
//! | checkbox | "Remember me" | toggles |
//! | list rows | "Row 1" … "Row 20" in a scroll area | click selects; context menu "Delete" removes the row |
//! | collapsing header | "Advanced" | reveals the "Volume" slider and "Advanced settings" |
//! | slider | "Volume" 0–100 (inside "Advanced") | `set_value`, increment, drag |
//! | button | "Help" | hovering shows the tooltip "Saves your work" after egui's 0.5 s dwell |
//! | button | "Toggle details" | animates (`animate_bool`) a "Details" progress bar over egui's animation time |
//! | button | "Open window" | shows the egui window "Second window" and asks the host to open a window |
//! | label | "Zoom 100%" | a two-finger pinch changes it |
//! | label | "Taps: 0" | counts touch/pen presses anywhere |

use automation_core::WindowOps;
use automation_core::target::OpenWindowRequest;

use crate::EguiTarget;
use crate::app::EguiApp;

/// Title of the demo's second window.
pub const SECOND_WINDOW: &str = "Second window";

/// The demo's state.
#[derive(Debug, Clone)]
pub struct Demo {
    /// Text of the status label (the live region).
    pub status: String,
    /// The "Name" field.
    pub name: String,
    /// "Remember me".
    pub remember: bool,
    /// The list rows.
    pub rows: Vec<String>,
    /// Index of the selected row.
    pub selected: Option<usize>,
    /// "Volume".
    pub volume: f64,
    /// Target of the "Details" animation.
    pub details: bool,
    /// The second window is shown.
    pub window_open: bool,
    /// Accumulated pinch zoom.
    pub zoom: f32,
    /// Touch/pen presses seen.
    pub taps: u32,
}

impl Default for Demo {
    fn default() -> Self {
        Self {
            status: "Ready".into(),
            name: String::new(),
            remember: false,
            rows: (1..=20).map(|i| format!("Row {i}")).collect(),
            selected: None,
            volume: 50.0,
            details: false,
            window_open: false,
            zoom: 1.0,
            taps: 0,
        }
    }
}

/// The headless demo target at the default size, with a touch screen (so a first touch
/// drag-scrolls the list, see [`EguiTarget::with_touch_screen`]).
///
/// ```
/// use automation_core::harness::{Harness, by_role};
/// let mut h = Harness::new(automation_egui::demo_target()).unwrap();
/// h.click(by_role("Button").label("Save")).unwrap();
/// h.expect(by_role("Label").value("Saved")).exists().unwrap();
/// ```
pub fn demo_target() -> EguiTarget<'static> {
    EguiTarget::with_app(Demo::default()).with_touch_screen()
}

impl EguiApp for Demo {
    fn ui(&mut self, ui: &mut egui::Ui, host: &mut dyn WindowOps) {
        let ctx = ui.ctx().clone();
        self.track_touch(&ctx);
        egui::CentralPanel::default().show(ui, |ui| {
            ui.heading("Automation demo");
            ui.horizontal(|ui| {
                if ui.button("Save").clicked() {
                    self.status = "Saved".into();
                }
                if ui.button("Cancel").clicked() {
                    self.status = "Cancelled".into();
                }
                ui.button("Help").on_hover_text("Saves your work");
            });
            if ui.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, egui::Key::S)) {
                self.status = "Saved".into();
            }
            ui.horizontal(|ui| {
                let label = ui.label("Name");
                ui.text_edit_singleline(&mut self.name)
                    .labelled_by(label.id);
            });
            ui.checkbox(&mut self.remember, "Remember me");
            let status = ui.label(self.status.as_str());
            ctx.accesskit_node_builder(status.id, |node| node.set_live(accesskit::Live::Polite));

            egui::CollapsingHeader::new("Advanced").show(ui, |ui| {
                ui.add(egui::Slider::new(&mut self.volume, 0.0..=100.0).text("Volume"));
                ui.label("Advanced settings");
            });

            ui.horizontal(|ui| {
                if ui.button("Toggle details").clicked() {
                    self.details = !self.details;
                }
                let t = ctx.animate_bool(ui.scope_id().with("demo-details"), self.details);
                ui.add(
                    egui::ProgressBar::new(t)
                        .desired_width(120.0)
                        .text("Details"),
                );
            });
            ui.horizontal(|ui| {
                if ui.button("Open window").clicked() {
                    if !self.window_open {
                        host.open_window(OpenWindowRequest {
                            title: SECOND_WINDOW.into(),
                        });
                    }
                    self.window_open = true;
                }
                ui.label(format!("Zoom {:.0}%", self.zoom * 100.0));
                ui.label(format!("Taps: {}", self.taps));
            });

            ui.separator();
            let mut delete = None;
            egui::ScrollArea::vertical()
                .max_height(160.0)
                .show(ui, |ui| {
                    for (i, row) in self.rows.iter().enumerate() {
                        let r = ui.selectable_label(self.selected == Some(i), row.as_str());
                        if r.clicked() {
                            self.selected = Some(i);
                        }
                        r.context_menu(|ui| {
                            if ui.button("Delete").clicked() {
                                delete = Some(i);
                                ui.close();
                            }
                        });
                    }
                });
            if let Some(i) = delete.filter(|i| *i < self.rows.len()) {
                self.rows.remove(i);
                self.selected = None;
            }
        });
        let mut open = self.window_open;
        egui::Window::new(SECOND_WINDOW)
            .open(&mut open)
            .show(&ctx, |ui| {
                ui.label("Hello from the second window");
            });
        self.window_open = open;
    }
}

impl Demo {
    fn track_touch(&mut self, ctx: &egui::Context) {
        ctx.input(|i| {
            let zoom = i.zoom_delta();
            if zoom.is_finite() && zoom > 0.0 && i.multi_touch().is_some() {
                self.zoom *= zoom;
            }
            for e in &i.events {
                if let egui::Event::Touch {
                    phase: egui::TouchPhase::Start,
                    ..
                } = e
                {
                    self.taps += 1;
                }
            }
        });
    }
}

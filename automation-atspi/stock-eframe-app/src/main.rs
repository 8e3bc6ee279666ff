//! A small form, as anyone would write it with eframe — no automation code, no bridge.

struct Form {
    clicks: u32,
    agree: bool,
    locked: bool,
    name: String,
    volume: f64,
    muted_volume: f64,
    fruit: &'static str,
    far: bool,
}

const FRUITS: [&str; 3] = ["Apple", "Banana", "Cherry"];

impl eframe::App for Form {
    fn ui(&mut self, ui: &mut eframe::egui::Ui, _frame: &mut eframe::Frame) {
        eframe::egui::CentralPanel::default().show(ui, |ui| {
            ui.heading("Stock eframe app");
            if ui.button("Add one").clicked() {
                self.clicks += 1;
            }
            ui.label(format!("Clicked {} times", self.clicks));
            ui.checkbox(&mut self.agree, "Agree");
            ui.horizontal(|ui| {
                let label = ui.label("Name");
                ui.text_edit_singleline(&mut self.name)
                    .labelled_by(label.id);
            });
            ui.add(eframe::egui::Slider::new(&mut self.volume, 0.0..=100.0).text("Volume"));
            eframe::egui::ComboBox::from_label("Fruit")
                .selected_text(self.fruit)
                .show_ui(ui, |ui| {
                    for fruit in FRUITS {
                        ui.selectable_value(&mut self.fruit, fruit, fruit);
                    }
                });
            ui.label(format!("Chosen: {}", self.fruit));
            // Widgets a person sees but cannot use.
            if ui
                .add_enabled(false, eframe::egui::Button::new("Add ten"))
                .clicked()
            {
                self.clicks += 10;
            }
            ui.add_enabled(
                false,
                eframe::egui::Checkbox::new(&mut self.locked, "Locked"),
            );
            ui.add_enabled(
                false,
                eframe::egui::Slider::new(&mut self.muted_volume, 0.0..=100.0).text("Muted"),
            );
            // A short list: its last check box is scrolled out of sight.
            eframe::egui::ScrollArea::vertical()
                .max_height(60.0)
                .show(ui, |ui| {
                    for line in 1..=20 {
                        ui.label(format!("Line {line}"));
                    }
                    ui.checkbox(&mut self.far, "Far away");
                });
        });
    }
}

fn main() -> eframe::Result {
    let options = eframe::NativeOptions {
        viewport: eframe::egui::ViewportBuilder::default()
            .with_inner_size([420.0, 480.0])
            .with_title("Stock eframe app"),
        ..Default::default()
    };
    eframe::run_native(
        "stock-eframe-app",
        options,
        Box::new(|_cc| {
            Ok(Box::new(Form {
                clicks: 0,
                agree: false,
                locked: false,
                name: String::new(),
                volume: 20.0,
                muted_volume: 30.0,
                fruit: FRUITS[0],
                far: false,
            }))
        }),
    )
}

//! A counter and a name field, as anyone would write them with eframe — no automation code,
//! no bridge.

struct Counter {
    clicks: u32,
    name: String,
}

impl eframe::App for Counter {
    fn ui(&mut self, ui: &mut eframe::egui::Ui, _frame: &mut eframe::Frame) {
        eframe::egui::CentralPanel::default().show(ui, |ui| {
            ui.heading("Stock eframe app");
            if ui.button("Add one").clicked() {
                self.clicks += 1;
            }
            ui.label(format!("Clicked {} times", self.clicks));
            let label = ui.label("Your name");
            ui.text_edit_singleline(&mut self.name)
                .labelled_by(label.id);
        });
    }
}

fn main() -> eframe::Result {
    let options = eframe::NativeOptions {
        viewport: eframe::egui::ViewportBuilder::default()
            .with_inner_size([320.0, 200.0])
            .with_title("Stock eframe app"),
        ..Default::default()
    };
    eframe::run_native(
        "stock-eframe-app",
        options,
        Box::new(|_cc| {
            Ok(Box::new(Counter {
                clicks: 0,
                name: String::new(),
            }))
        }),
    )
}

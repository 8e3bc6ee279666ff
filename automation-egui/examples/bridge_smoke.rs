//! The demo as a live eframe app with the automation bridge (debug builds only).
//!
//! `cargo run -p automation-egui --features live --example bridge_smoke` prints the attach
//! banner on stderr and serves until the window closes. `tests/live_bridge.rs` drives it
//! under Xvfb. With `--exit-after-ms N` it closes itself after N ms (a safety net for tests).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let exit_after = std::env::args()
        .skip_while(|a| a != "--exit-after-ms")
        .nth(1)
        .and_then(|v| v.parse::<u64>().ok());
    if let Some(ms) = exit_after {
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(ms));
            std::process::exit(3);
        });
    }
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_inner_size([640.0, 480.0])
            .with_title("automation bridge smoke"),
        ..Default::default()
    };
    eframe::run_native(
        "bridge_smoke",
        options,
        Box::new(|cc| {
            Ok(Box::new(
                automation_egui::live::install_automation_bridge_in_debug(
                    cc,
                    "bridge_smoke",
                    automation_egui::Demo::default(),
                ),
            ))
        }),
    )?;
    Ok(())
}

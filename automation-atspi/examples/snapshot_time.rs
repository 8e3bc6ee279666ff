//! Times full tree reads of an app launched on a private virtual display:
//! `cargo run --release -p automation-atspi --example snapshot_time -- gtk3-widget-factory 5`.
//! Prints how the tree was read (peer-to-peer or the bus; `Cache.GetItems` or a walk).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

fn main() {
    let mut args = std::env::args().skip(1);
    let command = args.next().unwrap_or_else(|| "gtk3-widget-factory".into());
    let n: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let display = automation_atspi::VirtualDisplay::start().unwrap();
    let (mut t, _app) =
        automation_atspi::launch(&command, Some(display), automation_atspi::Output::Null).unwrap();
    for _ in 0..n {
        let s = std::time::Instant::now();
        let u = t.fetch_all().unwrap();
        let (direct, bulk) = t.read_path();
        println!(
            "{} nodes in {:?} (p2p: {direct}, bulk: {bulk:?})",
            u.nodes.len(),
            s.elapsed()
        );
    }
}

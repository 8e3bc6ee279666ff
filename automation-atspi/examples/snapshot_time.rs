//! Times full tree reads of a running app: `cargo run -p automation-atspi --example
//! snapshot_time -- gtk3-widget-factory 5` (under the app's display and session bus).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "gtk3-widget-factory".into());
    let n: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let bus = automation_atspi::Bus::connect(None).unwrap();
    let mut t =
        automation_atspi::attach(&bus, &automation_atspi::AppSelector::parse(&name), None).unwrap();
    for _ in 0..n {
        let s = std::time::Instant::now();
        let u = t.fetch_all().unwrap();
        println!("{} nodes in {:?}", u.nodes.len(), s.elapsed());
    }
}

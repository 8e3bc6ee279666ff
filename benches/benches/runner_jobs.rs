//! 8 flows with `automation run --jobs 2` against `--jobs 1` (goal: ≥ 1.7× faster).
//!
//! Each flow is the shipped steps example (`examples/flows/save-name.json`: find, type, click
//! Save, assert "Saved", pull announcements, screenshot) on its own headless demo, through
//! the real release binary (`cargo build --release -p automation-cli`, or `AUTOMATION_BIN`).
//! The machine must have at least two free cores for the goal to be reachable; the bench
//! prints the cores it saw.
//!
//! Run: `cargo build --release -p automation-cli && cargo bench -p automation-benches --bench runner_jobs -- --warm-up-time 1 --measurement-time 20`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};

fn suite(dir: &Path) {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/flows/save-name.json");
    let text = std::fs::read_to_string(example).unwrap();
    for i in 0..8 {
        std::fs::write(dir.join(format!("flow-{i}.json")), &text).unwrap();
    }
}

fn run(bin: &Path, dir: &Path, jobs: u32) {
    let out = Command::new(bin)
        .arg("run")
        .arg(dir)
        .arg("--jobs")
        .arg(jobs.to_string())
        .env("AUTOMATION_RECORDS", "off")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn median(n: usize, mut f: impl FnMut()) -> Duration {
    f();
    let mut t: Vec<Duration> = (0..n)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed()
        })
        .collect();
    t.sort();
    t[t.len() / 2]
}

fn bench(c: &mut Criterion) {
    let Some(bin) = automation_benches::automation_bin() else {
        println!(
            "note: runner_jobs skipped: cargo build --release -p automation-cli (or set AUTOMATION_BIN)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    suite(dir.path());
    let mut g = c.benchmark_group("runner_jobs");
    g.sample_size(10);
    g.bench_function("8_flows_jobs_1", |b| b.iter(|| run(&bin, dir.path(), 1)));
    g.bench_function("8_flows_jobs_2", |b| b.iter(|| run(&bin, dir.path(), 2)));
    g.finish();
    let one = median(5, || run(&bin, dir.path(), 1));
    let two = median(5, || run(&bin, dir.path(), 2));
    println!(
        "median: 8 flows --jobs 1 {:.2} s, --jobs 2 {:.2} s, speed-up {:.2}x (goal >= 1.7x; {} cores available)",
        one.as_secs_f64(),
        two.as_secs_f64(),
        one.as_secs_f64() / two.as_secs_f64(),
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! 8 flows with `automation run --jobs 2` against `--jobs 1` (goal: ≥ 1.7× faster).
//!
//! Each flow is the shipped steps example (`examples/flows/save-name.json`: find, type, click
//! Save, assert "Saved", pull announcements, screenshot) on its own headless demo, through
//! the real release binary (`cargo build --release -p automation-cli`, or `AUTOMATION_BIN`).
//! The machine must have at least two free cores for the goal to be reachable; the bench
//! prints the cores it saw. `8_flows_two_processes` is that machine's own ceiling for this
//! work: two `automation run --jobs 1` processes side by side, 4 flows each, sharing nothing
//! (no thread, allocator or address space), so `--jobs 2` should not beat it beyond noise.
//!
//! Run: `cargo build --release -p automation-cli && cargo bench -p automation-benches --bench runner_jobs -- --warm-up-time 1 --measurement-time 20`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};

/// The 8 flows in `dir/all`, and the same 8 split 4 and 4 into `dir/a` and `dir/b`.
fn suite(dir: &Path) {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/flows/save-name.json");
    let text = std::fs::read_to_string(example).unwrap();
    for sub in ["all", "a", "b"] {
        std::fs::create_dir(dir.join(sub)).unwrap();
    }
    for i in 0..8 {
        let half = if i < 4 { "a" } else { "b" };
        for sub in ["all", half] {
            std::fs::write(dir.join(sub).join(format!("flow-{i}.json")), &text).unwrap();
        }
    }
}

fn command(bin: &Path, dir: &Path, jobs: u32) -> Command {
    let mut command = Command::new(bin);
    command
        .arg("run")
        .arg(dir)
        .arg("--jobs")
        .arg(jobs.to_string())
        .env("AUTOMATION_RECORDS", "off");
    command
}

fn run(bin: &Path, dir: &Path, jobs: u32) {
    let out = command(bin, dir, jobs).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `dir/a` and `dir/b` as two processes at once; returns when both have passed.
fn run_two_processes(bin: &Path, dir: &Path) {
    let spawn = |half: &str| {
        command(bin, &dir.join(half), 1)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let (mut a, mut b) = (spawn("a"), spawn("b"));
    // Both are waited for before either outcome is judged: no child outlives a failed sample.
    let (a, b) = (a.wait().unwrap(), b.wait().unwrap());
    assert!(a.success() && b.success(), "{a}, {b}");
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
    let root = tempfile::tempdir().unwrap();
    suite(root.path());
    let (all, dir) = (root.path().join("all"), root.path());
    let mut g = c.benchmark_group("runner_jobs");
    g.sample_size(10);
    g.bench_function("8_flows_jobs_1", |b| b.iter(|| run(&bin, &all, 1)));
    g.bench_function("8_flows_jobs_2", |b| b.iter(|| run(&bin, &all, 2)));
    g.bench_function("8_flows_two_processes", |b| {
        b.iter(|| run_two_processes(&bin, dir))
    });
    g.finish();
    let one = median(5, || run(&bin, &all, 1));
    let two = median(5, || run(&bin, &all, 2));
    let apart = median(5, || run_two_processes(&bin, dir));
    println!(
        "median: 8 flows --jobs 1 {:.3} s, --jobs 2 {:.3} s, speed-up {:.2}x (goal >= 1.7x); \
         two processes of 4 {:.3} s, {:.2}x (this machine's ceiling); {} cores available",
        one.as_secs_f64(),
        two.as_secs_f64(),
        one.as_secs_f64() / two.as_secs_f64(),
        apart.as_secs_f64(),
        one.as_secs_f64() / apart.as_secs_f64(),
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);

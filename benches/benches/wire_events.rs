//! Event ingest: automation-wire's typed line parser against plain
//! `serde_json::from_str::<serde_json::Value>` per line, on a mixed stream (step lifecycle,
//! progress, logs, data, and some plain output lines). Goal ≥ 1.5× faster.

use automation_wire::events::{ParsedLine, parse_line};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn lines() -> Vec<String> {
    let mut v = Vec::new();
    for i in 0..200 {
        let ts = "2026-11-30T04:00:00.123Z";
        v.push(format!(r#"{{"__mcp_event__":true,"type":"step_started","timestamp":"{ts}","stepId":"step-{i}","stepName":"Click the Save button","stepIndex":{i},"totalSteps":200}}"#));
        v.push(format!(r#"{{"__mcp_event__":true,"type":"progress","timestamp":"{ts}","current":{i},"total":200,"message":"running step {i}"}}"#));
        v.push(format!(r#"{{"__mcp_event__":true,"type":"step_completed","timestamp":"{ts}","stepId":"step-{i}","stepName":"Click the Save button","duration":{}.25,"stepIndex":{i}}}"#, i * 3));
        if i % 4 == 0 {
            v.push(format!(r#"{{"__mcp_event__":true,"type":"log","timestamp":"{ts}","level":"info","message":"found node {i}","data":{{"node":{i},"role":"Button"}}}}"#));
            v.push(format!(r#"{{"__mcp_event__":true,"type":"data","timestamp":"{ts}","key":"k{i}","value":[1,2,{{"x":"y"}}]}}"#));
        }
        if i % 10 == 0 {
            v.push(format!("plain console output from the test, line {i}"));
            v.push(format!(r#"{{"__mcp_event__":true,"type":"status","timestamp":"{ts}","message":"window ready","duration":12.5,"element":"main"}}"#));
        }
    }
    v
}

fn bench(c: &mut Criterion) {
    let lines = lines();
    let mut g = c.benchmark_group("wire_events_ingest");
    g.throughput(Throughput::Elements(lines.len() as u64));
    g.bench_function("typed_parse_line", |b| {
        b.iter(|| {
            let mut events = 0usize;
            for l in &lines {
                if let ParsedLine::Event(e) = parse_line(black_box(l)) {
                    events += 1;
                    black_box(e);
                }
            }
            events
        });
    });
    g.bench_function("serde_json_value_anchor", |b| {
        b.iter(|| {
            let mut ok = 0usize;
            for l in &lines {
                if let Ok(v) = serde_json::from_str::<serde_json::Value>(black_box(l)) {
                    ok += 1;
                    black_box(v);
                }
            }
            ok
        });
    });
    // For reference only: the cost of merely scanning each line as JSON, keeping nothing.
    g.bench_function("serde_json_ignored_any_scan_floor", |b| {
        b.iter(|| {
            let mut ok = 0usize;
            for l in &lines {
                if serde_json::from_str::<serde::de::IgnoredAny>(black_box(l)).is_ok() {
                    ok += 1;
                }
            }
            ok
        });
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

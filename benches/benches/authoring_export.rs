//! `export_test` on a 200-call session: the log planned and written as TypeScript and as YAML
//! (the budget: ≤ 20 ms). The calls are what an agent's session holds: fields set and
//! typed into, buttons clicked, reads after actions, assertions, a miss, snapshots.
//!
//! Run: `cargo bench -p automation-benches --bench authoring_export -- --warm-up-time 1 --measurement-time 3`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use automation_core::{ErrorCode, Op, OpError};
use automation_runner::authoring::{Format, Origin, Range, SessionLog, plan, render};
use automation_session::tools::Outcome;
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Map, Value, json};

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// A session of `calls` calls over 20 forms of a few widgets each.
fn session(calls: usize) -> SessionLog {
    let mut log = SessionLog::default();
    for i in 0..calls {
        let form = format!("Form {}", i / 10);
        let field = json!({"role": "TextInput", "label": format!("Field {}", i % 7), "within": {"role": "Group", "label": form}});
        let button =
            json!({"role": "Button", "label": "OK", "within": {"role": "Group", "label": form}});
        let reference = format!("e{}", 100 + i);
        let (name, args, outcome) = match i % 8 {
            0 => (
                "set_value",
                json!({"node": reference, "value": format!("value {i}")}),
                json!({"selector": field}),
            ),
            1 => (
                "read_node",
                json!({"node": reference}),
                json!({"id": reference, "role": "TextInput", "value": format!("value {}", i - 1), "selector": field}),
            ),
            2 => (
                "type_text",
                json!({"node": reference, "text": "typed"}),
                json!({"keys": 5, "selector": field}),
            ),
            3 => (
                "invoke_action",
                json!({"node": reference, "action": "click"}),
                json!({"selector": button}),
            ),
            4 => (
                "assert_node",
                json!({"node": {"role": "Label", "label": "Done"}, "kind": "exists"}),
                json!({"passed": true, "selector": {"role": "Label", "label": "Done"}}),
            ),
            5 => (
                "snapshot_tree",
                json!({}),
                json!({"tree": "…", "version": i}),
            ),
            6 => (
                "find_node",
                json!({"role": "Button", "label": "OK"}),
                json!({"node": reference, "count": 1, "record": {"id": reference, "role": "Button", "label": "OK"}, "selector": button}),
            ),
            _ => (
                "invoke_action",
                json!({"node": {"role": "Button", "label": "Nope"}, "action": "click"}),
                Value::Null,
            ),
        };
        let op = Op::from_parts(name, args.clone()).unwrap();
        let outcome = if outcome.is_null() {
            Outcome::Failed(OpError::new(
                ErrorCode::NotFound,
                "no node matches {label=\"Nope\"}",
            ))
        } else {
            Outcome::Data(outcome)
        };
        log.record(&op, obj(args), &outcome);
    }
    log
}

fn export(c: &mut Criterion) {
    let log = session(200);
    let origin = Origin {
        name: "bench".into(),
        source: "an MCP session".into(),
        total: log.total(),
        dropped: 0,
    };
    let planned = plan(log.entries(), &Range::default());
    let calls: usize = planned.groups.iter().map(|g| g.calls.len()).sum();
    assert!(calls > 100, "{calls} calls exported");
    assert_eq!(planned.left_out.len() + calls, 200, "every call placed");
    let mut g = c.benchmark_group("export_test");
    for format in [Format::Ts, Format::Yaml] {
        g.bench_function(format!("200_calls_{}", format.extension()), |b| {
            b.iter(|| {
                let p = plan(black_box(&log).entries(), &Range::default());
                black_box(render(&p, format, &origin))
            })
        });
    }
    g.finish();
}

criterion_group!(benches, export);
criterion_main!(benches);

//! Condition evaluation: pre-parsed typical conditions, and parse+evaluate, against
//! `cel-interpreter` on the same data.

use automation_transpile::expr::Expr;
use cel_interpreter::{Context, Program};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use std::hint::black_box;

/// (ours, CEL) pairs with the same meaning.
const CONDITIONS: &[(&str, &str)] = &[
    ("env.locale == 'en-US'", "env.locale == 'en-US'"),
    (
        "contains(policy.product_types, 'FEX') && runtime.attempts < 3",
        "'FEX' in policy.product_types && runtime.attempts < 3",
    ),
    (
        "env.mode == 'prod' || env.mode == 'staging' && !env.troubleshooting",
        "env.mode == 'prod' || env.mode == 'staging' && !env.troubleshooting",
    ),
    (
        "startsWith(applicant.name, 'John')",
        "applicant.name.startsWith('John')",
    ),
    (
        "runtime.attempts >= 3 || env.troubleshooting",
        "runtime.attempts >= 3 || env.troubleshooting",
    ),
];

fn bench(c: &mut Criterion) {
    let vars = json!({
        "env": { "locale": "en-US", "mode": "staging", "troubleshooting": false },
        "runtime": { "attempts": 2 },
        "policy": { "product_types": ["FEX", "Term"] },
        "applicant": { "name": "John Doe" },
    });
    let mut ctx = Context::default();
    for (k, v) in vars.as_object().into_iter().flatten() {
        let _ = ctx.add_variable(k.as_str(), v.clone());
    }
    let ours: Vec<Expr> = CONDITIONS
        .iter()
        .filter_map(|(e, _)| Expr::parse(e).ok())
        .collect();
    let cel: Vec<Program> = CONDITIONS
        .iter()
        .filter_map(|(_, e)| Program::compile(e).ok())
        .collect();
    assert_eq!(ours.len(), CONDITIONS.len());
    assert_eq!(cel.len(), CONDITIONS.len());
    for (o, p) in ours.iter().zip(&cel) {
        let theirs = matches!(p.execute(&ctx), Ok(cel_interpreter::Value::Bool(true)));
        assert_eq!(o.evaluate(&vars), theirs, "{o}");
    }

    let mut g = c.benchmark_group("transpile_expr_evaluate_preparsed");
    g.bench_function("ours", |b| {
        b.iter(|| ours.iter().filter(|e| e.evaluate(black_box(&vars))).count())
    });
    g.bench_function("cel_interpreter", |b| {
        b.iter(|| {
            cel.iter()
                .filter(|p| {
                    matches!(
                        p.execute(black_box(&ctx)),
                        Ok(cel_interpreter::Value::Bool(true))
                    )
                })
                .count()
        })
    });
    g.finish();

    let mut g = c.benchmark_group("transpile_expr_parse_and_evaluate");
    g.bench_function("ours", |b| {
        b.iter(|| {
            CONDITIONS
                .iter()
                .filter(|(e, _)| Expr::parse(black_box(e)).is_ok_and(|e| e.evaluate(&vars)))
                .count()
        })
    });
    g.bench_function("cel_interpreter", |b| {
        b.iter(|| {
            CONDITIONS
                .iter()
                .filter(|(_, e)| {
                    Program::compile(black_box(e)).is_ok_and(|p| {
                        matches!(p.execute(&ctx), Ok(cel_interpreter::Value::Bool(true)))
                    })
                })
                .count()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

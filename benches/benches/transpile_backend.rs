//! Transpiling a 200-line TypeScript test: in-process (oxc) against spawning esbuild (the
//! native binary, and the `node_modules/.bin` wrapper the library finds).

// The error type is the product of the crate (an agent reads it); its size is deliberate.
#![allow(clippy::result_large_err)]

use automation_transpile::transpile::{Backend, Transpiler};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::PathBuf;

fn script() -> String {
    let mut s = String::from(
        "interface Step { name: string; selector: string; timeout?: number }\n\
         enum Outcome { Passed = 'passed', Failed = 'failed' }\n\
         type Report = { step: string; outcome: Outcome; ms: number };\n\
         const reports: Report[] = [];\n",
    );
    let mut i = 0;
    while s.lines().count() < 196 {
        s.push_str(&format!(
            "async function step{i}(s: Step): Promise<Report> {{\n\
             \x20   const started: number = Date.now();\n\
             \x20   const el = (await desktop.locator(s.selector).first()) as Element;\n\
             \x20   await el!.click({{ timeout: s.timeout ?? 5000 }});\n\
             \x20   return {{ step: s.name, outcome: Outcome.Passed, ms: Date.now() - started }};\n\
             }}\n"
        ));
        i += 1;
    }
    s.push_str("console.log(JSON.stringify(reports));\n");
    s
}

fn native_esbuild() -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    cwd.ancestors()
        .map(|d| d.join("node_modules/@esbuild/linux-x64/bin/esbuild"))
        .find(|p| p.is_file())
}

fn bench(c: &mut Criterion) {
    let src = script();
    println!("script: {} lines, {} bytes", src.lines().count(), src.len());
    let oxc = Transpiler::builder().backends([Backend::Oxc]).build();
    assert!(
        oxc.transpile(&src)
            .is_ok_and(|o| o.backend == Some(Backend::Oxc))
    );
    let mut g = c.benchmark_group("transpile_backend_200_lines");
    g.sample_size(20);
    g.bench_function("oxc_in_process", |b| {
        b.iter(|| oxc.transpile(black_box(&src)))
    });
    match native_esbuild() {
        Some(path) => {
            let t = Transpiler::builder()
                .backends([Backend::Esbuild])
                .esbuild_path(path)
                .build();
            assert!(
                t.transpile(&src)
                    .is_ok_and(|o| o.backend == Some(Backend::Esbuild))
            );
            g.bench_function("spawn_esbuild_native_binary", |b| {
                b.iter(|| t.transpile(black_box(&src)))
            });
        }
        None => {
            println!("SKIP spawn_esbuild_native_binary: node_modules/@esbuild/linux-x64 not found")
        }
    }
    let wrapper = Transpiler::builder()
        .backends([Backend::Esbuild])
        .allow_npx(false)
        .build();
    if wrapper.is_available(Backend::Esbuild) {
        g.bench_function("spawn_esbuild_node_modules_bin", |b| {
            b.iter(|| wrapper.transpile(black_box(&src)))
        });
    } else {
        println!("SKIP spawn_esbuild_node_modules_bin: esbuild not installed");
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

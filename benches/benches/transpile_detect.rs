//! TypeScript detection over a generated corpus of ~1000 agent scripts (0.2–5 KB each, one
//! call per script), against Terminator's `is_typescript_code`: its 16 regexes compiled on every call.

use automation_transpile::detect::is_typescript;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// Terminator's `is_typescript_code`, re-created: 16 patterns compiled on every call.
fn reference_is_typescript(script: &str) -> bool {
    let ts_patterns = [
        r":\s*(string|number|boolean|any|void|never|unknown|object)\s*[;,=\)\}]",
        r":\s*(string|number|boolean|any|void|never|unknown|object)\s*\[",
        r"\binterface\s+\w+",
        r"\btype\s+\w+\s*=",
        r"<\s*\w+\s*(extends|,)",
        r"\w+<\w+>",
        r"\bas\s+(string|number|boolean|any|object|unknown|\w+)\b",
        r"\w+!\.",
        r"\(\s*\w+\s*:\s*\w+",
        r"\)\s*:\s*\w+\s*(\{|=>)",
        r"\breadonly\s+\w+",
        r"\b(public|private|protected)\s+\w+",
        r"\benum\s+\w+",
        r"\bnamespace\s+\w+",
        r"\bdeclare\s+(const|let|var|function|class)",
        r"\bimport\s+type\b",
    ];
    for pattern in &ts_patterns {
        if let Ok(re) = regex::Regex::new(pattern)
            && re.is_match(script)
        {
            return true;
        }
    }
    false
}

const JS_LINES: &[&str] = &[
    "await desktop.open('notepad');",
    "const win = await desktop.locator('role:Window|name:Untitled - Notepad').first();",
    "await win.click(); // focus the editor, default timeout: 5000",
    "await desktop.type('Hello from the agent!');",
    "const title = await win.name();",
    "if (!title.includes('Notepad')) { throw new Error(`unexpected title: ${title}`); }",
    "const opts = { timeout: 3000, retries: 2, highlight: true };",
    "for (let i = 0; i < items.length; i++) { log(items[i]); }",
    "const ok = status === 'done' ? 'yes' : 'no';",
    "log(\"Step finished!. Moving on\");",
    "const html = '<p>Hello<br>world</p>';",
    "/* interface settings are opened as admin later */",
    "const re = /^[a-z]+: \\d+$/i;",
    "await sleep(250);",
    "const shot = await desktop.screenshot({ path: 'out.png' });",
    "results.push({ name: step.name, ok: true, at: Date.now() });",
    "export const summary = results.filter(r => r.ok).length;",
];

const TS_LINES: &[&str] = &[
    "const el: HTMLElement | null = document.querySelector('#main');",
    "interface Step { name: string; timeout?: number }",
    "function run(step: Step): Promise<void> { return desktop.run(step); }",
    "const cfg = loadConfig() as Config;",
    "type Result = { ok: boolean; message?: string };",
    "enum Mode { Fast, Slow }",
];

/// Deterministic corpus: half plain JavaScript, half with TypeScript somewhere inside.
fn corpus() -> Vec<String> {
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        usize::try_from(seed % n as u64).unwrap_or(0)
    };
    (0..1000)
        .map(|i| {
            // 0.2–5 KB, most scripts short (mean ≈ 1.2 KB, ~1.2 MB in all).
            let long_tail = if next(10) == 0 { next(3200) } else { 0 };
            let target = 200 + next(1600) + long_tail;
            let ts_at = (i % 2 == 1).then(|| next(target));
            let mut s = String::with_capacity(target + 100);
            while s.len() < target {
                if ts_at.is_some_and(|at| s.len() >= at && !s.contains("/*TS*/")) {
                    s.push_str("/*TS*/ ");
                    s.push_str(TS_LINES[next(TS_LINES.len())]);
                } else {
                    s.push_str(JS_LINES[next(JS_LINES.len())]);
                }
                s.push('\n');
            }
            s
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let corpus = corpus();
    let bytes: usize = corpus.iter().map(String::len).sum();
    let ts = corpus.iter().filter(|s| is_typescript(s)).count();
    println!(
        "corpus: {} scripts, {bytes} bytes, {ts} detected as TypeScript",
        corpus.len()
    );
    let mut g = c.benchmark_group("transpile_detect_corpus");
    g.sample_size(10);
    g.bench_function("ours_one_pass", |b| {
        b.iter(|| {
            corpus
                .iter()
                .filter(|s| is_typescript(black_box(s)))
                .count()
        })
    });
    g.bench_function("reference_16_regexes_compiled_per_call", |b| {
        b.iter(|| {
            corpus
                .iter()
                .filter(|s| reference_is_typescript(black_box(s)))
                .count()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

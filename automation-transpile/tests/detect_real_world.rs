//! Real-world JavaScript must not be flagged as TypeScript: every `.js`/`.cjs`/`.mjs` file of
//! the locally installed npm packages (npm itself, esbuild, bun's installer, …). Nor may it
//! come near the nesting cap of the in-process transpiler (feature `oxc`).

#![cfg(feature = "detect")]

use automation_transpile::detect::detect;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() && depth < 12 {
            collect(&p, out, depth + 1);
        } else if p
            .extension()
            .is_some_and(|x| x == "js" || x == "cjs" || x == "mjs")
        {
            out.push(p);
        }
    }
}

#[test]
fn installed_javascript_is_not_typescript() {
    let mut roots: Vec<PathBuf> = vec![PathBuf::from("/usr/lib/node_modules")];
    if let Ok(cwd) = std::env::current_dir() {
        roots.extend(cwd.ancestors().map(|d| d.join("node_modules")));
    }
    let mut files = Vec::new();
    for r in roots.iter().filter(|r| r.is_dir()) {
        collect(r, &mut files, 0);
    }
    if files.is_empty() {
        eprintln!("SKIP: no node_modules with JavaScript found");
        return;
    }
    let mut flagged = Vec::new();
    #[cfg_attr(not(feature = "oxc"), allow(unused_mut))]
    let mut too_deep: Vec<String> = Vec::new();
    let mut scanned = 0usize;
    for f in &files {
        let Ok(src) = std::fs::read_to_string(f) else {
            continue;
        };
        scanned += 1;
        let d = detect(&src);
        if d.is_typescript {
            let at = d.span.map_or(0, |(s, _)| s);
            let line = src.get(..at).map_or(0, |p| p.lines().count());
            flagged.push(format!("{}:{line}: {:?}", f.display(), d.reason));
        }
        // Nor refused as too deep for the in-process transpiler (the deepest measures 104).
        #[cfg(feature = "oxc")]
        {
            use automation_transpile::transpile::depth::{MAX_NESTING, measure};
            let n = measure(&src, MAX_NESTING);
            if n.depth * 2 > MAX_NESTING {
                too_deep.push(format!("{}: {n:?}", f.display()));
            }
        }
    }
    assert!(
        too_deep.is_empty(),
        "nested deeper than half the cap:\n{}",
        too_deep.join("\n")
    );
    eprintln!("scanned {scanned} files, flagged {}", flagged.len());
    // Heuristics on unknown code: allow at most 0.5% (there are none today).
    assert!(
        flagged.len() * 200 <= scanned,
        "false positives:\n{}",
        flagged.join("\n")
    );
}

//! The house rules Cargo cannot say. Between crates, Cargo keeps the direction (a crate cannot
//! name one that depends on it), and `cargo tree` says what each links: the session and
//! runner engines no MCP, HTTP or command line, the HTTP doors no MCP, command line or runner
//! (checked here against ARCHITECTURE.md's table). Inside a crate, the source is read as
//! anyone could with grep: layers import downward only (exec over the runner, never the
//! reverse; the edge knows nothing it serves), no file of the CLI, the session, runner and
//! HTTP crates or the AT-SPI crate is in an import circle, one JUnit writer in the tree, and
//! a README that is a door, not a log.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.rs` file under `dir`, as (path relative to `dir`, text without `//` comments).
fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(dir).unwrap().display().to_string();
                out.push((
                    rel,
                    strip_comments(&std::fs::read_to_string(&path).unwrap()),
                ));
            }
        }
    }
    out.sort();
    out
}

/// The text with `//` comments (and doc comments) removed, line by line; string literals
/// holding `//` are rare enough in these sources to ignore.
fn strip_comments(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `a/b.rs` → `a::b`, `a/mod.rs` → `a`, `lib.rs` → `` (the crate root).
fn module_of(rel: &str) -> String {
    let path = rel.trim_end_matches(".rs");
    let path = path.trim_end_matches("/mod").trim_end_matches("mod");
    let path = if path == "lib" { "" } else { path };
    path.trim_end_matches('/').replace('/', "::")
}

/// The paths a file names, each as segments after its anchor (`crate`, `super`, `self`, or a
/// child module named bare), with grouped imports (`crate::{a::X, b}`) expanded.
fn paths(text: &str) -> Vec<(String, Vec<String>)> {
    let bytes: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let at_word_start = i == 0 || !(bytes[i - 1].is_alphanumeric() || bytes[i - 1] == '_');
        if at_word_start && (bytes[i].is_alphabetic() || bytes[i] == '_') {
            let start = i;
            while i < bytes.len() && (bytes[i].is_alphanumeric() || bytes[i] == '_') {
                i += 1;
            }
            let word: String = bytes[start..i].iter().collect();
            if i + 1 < bytes.len() && bytes[i] == ':' && bytes[i + 1] == ':' {
                let (tails, end) = path_tails(&bytes, i + 2);
                for t in tails {
                    out.push((word.clone(), t));
                }
                i = end;
            }
            continue;
        }
        i += 1;
    }
    out
}

/// The segment lists after `::` at `i`: one for a plain path, several for a `{…}` group.
fn path_tails(b: &[char], mut i: usize) -> (Vec<Vec<String>>, usize) {
    while i < b.len() && b[i].is_whitespace() {
        i += 1;
    }
    if i < b.len() && b[i] == '{' {
        let mut depth = 0;
        let start = i + 1;
        let mut end = start;
        while end < b.len() {
            match b[end] {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                _ => {}
            }
            end += 1;
        }
        let inner: String = b[start..end.min(b.len())].iter().collect();
        let mut out = Vec::new();
        for part in split_top(&inner) {
            let part: Vec<char> = part.trim().chars().collect();
            if part.is_empty() {
                continue;
            }
            let (first, rest_at) = segment(&part, 0);
            if first.is_empty() {
                continue;
            }
            if rest_at + 1 < part.len() && part[rest_at] == ':' && part[rest_at + 1] == ':' {
                let (tails, _) = path_tails(&part, rest_at + 2);
                for mut t in tails {
                    t.insert(0, first.clone());
                    out.push(t);
                }
            } else {
                out.push(vec![first]);
            }
        }
        return (out, end + 1);
    }
    let mut segs = Vec::new();
    loop {
        let (seg, next) = segment(b, i);
        if seg.is_empty() {
            break;
        }
        segs.push(seg);
        i = next;
        if i + 1 < b.len() && b[i] == ':' && b[i + 1] == ':' {
            i += 2;
            if i < b.len() && b[i] == '{' {
                let (tails, end) = path_tails(b, i);
                let out = tails
                    .into_iter()
                    .map(|t| segs.iter().cloned().chain(t).collect())
                    .collect();
                return (out, end);
            }
        } else {
            break;
        }
    }
    (vec![segs], i)
}

fn segment(b: &[char], mut i: usize) -> (String, usize) {
    let start = i;
    while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
        i += 1;
    }
    (b[start..i].iter().collect(), i)
}

fn split_top(s: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut depth = 0;
    for c in s.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = out.last_mut() {
            last.push(c);
        }
    }
    out
}

/// The file-level import graph of one crate's `src` (the crate root, a table of contents,
/// left out): module → the modules it names.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let files = sources(src);
    let modules: BTreeSet<String> = files.iter().map(|(rel, _)| module_of(rel)).collect();
    // Items the root re-exports, and the module each comes from (`pub use a::b::{X, Y}`).
    let mut reexports: BTreeMap<String, String> = BTreeMap::new();
    if let Some((_, lib)) = files.iter().find(|(rel, _)| rel == "lib.rs") {
        for line in lib
            .lines()
            .filter(|l| l.trim_start().starts_with("pub use "))
        {
            for (anchor, segs) in paths(line) {
                let full: Vec<String> = std::iter::once(anchor).chain(segs).collect();
                if let Some(item) = full.last() {
                    let module = longest_module(&modules, &full[..full.len() - 1]);
                    if let Some(m) = module {
                        reexports.insert(item.clone(), m);
                    }
                }
            }
        }
    }
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, text) in &files {
        let me = module_of(rel);
        if me.is_empty() {
            continue;
        }
        let parent: Vec<String> = {
            let mut p: Vec<String> = me.split("::").map(str::to_string).collect();
            // A `mod.rs` file is its module; `super` is the module above it.
            p.pop();
            p
        };
        let own: Vec<String> = me.split("::").map(str::to_string).collect();
        let edges = g.entry(me.clone()).or_default();
        // A module file's `pub use` lines are its table of contents, as the root's are: they
        // name what its children hold, they do not use it.
        // An inline `mod tests` is left out: its `super::` is the file itself.
        let text = match text.find("#[cfg(test)]\nmod ") {
            Some(at) => &text[..at],
            None => text.as_str(),
        };
        let used: String = text
            .lines()
            .filter(|l| !(rel.ends_with("mod.rs") && is_reexport(l)))
            .collect::<Vec<_>>()
            .join("\n");
        for (anchor, segs) in paths(&used) {
            let base: Vec<String> = match anchor.as_str() {
                "crate" => Vec::new(),
                "super" => parent.clone(),
                "self" => own.clone(),
                // A child module named bare (`use list::Caps` in `mcp/mod.rs`).
                child if modules.contains(&join(&own, &[child.to_string()])) => {
                    let mut b = own.clone();
                    b.push(child.to_string());
                    b
                }
                _ => continue,
            };
            // `super::super::x`: each further `super` is one module up.
            let mut base = base;
            let mut segs = segs.as_slice();
            while let Some((first, rest)) = segs.split_first()
                && first == "super"
                && anchor == "super"
            {
                base.pop();
                segs = rest;
            }
            let mut full = base.clone();
            full.extend(segs.iter().cloned());
            let target = match longest_module(&modules, &full) {
                // `crate::Item`: the module the root re-exports it from.
                Some(m) if m.is_empty() && anchor == "crate" => {
                    segs.first().and_then(|s| reexports.get(s).cloned())
                }
                other => other,
            };
            if let Some(t) = target.filter(|t| !t.is_empty() && *t != me) {
                edges.insert(t);
            }
        }
    }
    g
}

/// `pub use …` or `pub(super) use …` (any visibility): a re-export.
fn is_reexport(line: &str) -> bool {
    let l = line.trim_start();
    l.starts_with("pub use ")
        || (l.starts_with("pub(")
            && l.split_once(')')
                .is_some_and(|(_, r)| r.starts_with(" use ")))
}

fn join(a: &[String], b: &[String]) -> String {
    a.iter().chain(b).cloned().collect::<Vec<_>>().join("::")
}

/// The longest prefix of `path` that is a module (the crate root, `""`, when only it is).
fn longest_module(modules: &BTreeSet<String>, path: &[String]) -> Option<String> {
    (0..=path.len())
        .rev()
        .map(|n| path[..n].join("::"))
        .find(|m| modules.contains(m))
}

/// Every circle in `g`, each as the modules along it.
fn cycles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Tarjan's strongly connected components: a component of two or more is a circle.
    struct State<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        let g = s.g;
        for w in g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(lw));
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn the_graph_reader_sees_plain_grouped_relative_and_reexported_paths() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir(src.join("m")).unwrap();
    std::fs::write(
        src.join("lib.rs"),
        "pub mod a;\npub mod m;\npub use a::Thing;\n",
    )
    .unwrap();
    std::fs::write(src.join("a.rs"), "use crate::m::{b::X, c};\n").unwrap();
    std::fs::write(
        src.join("m/mod.rs"),
        "pub mod b;\npub mod c;\npub use c::Listed;\nuse b::Y;\n",
    )
    .unwrap();
    std::fs::write(src.join("m/b.rs"), "use super::c::Z; // crate::a::no\n").unwrap();
    std::fs::write(src.join("m/c.rs"), "fn f() { crate::Thing::new(); }\n").unwrap();
    std::fs::create_dir(src.join("m/n")).unwrap();
    std::fs::write(src.join("m/n/mod.rs"), "mod e;\npub(super) use e::*;\n").unwrap();
    std::fs::write(src.join("m/n/e.rs"), "use super::super::c::W;\n").unwrap();
    let g = graph(src);
    let edges = |m: &str| g[m].iter().cloned().collect::<Vec<_>>();
    assert_eq!(edges("a"), ["m::b", "m::c"]);
    assert_eq!(
        edges("m"),
        ["m::b"],
        "a module's own `pub use` lines are its contents"
    );
    assert_eq!(edges("m::b"), ["m::c"], "comments are not imports");
    assert_eq!(
        edges("m::c"),
        ["a"],
        "a re-exported item counts as its module"
    );
    assert_eq!(
        edges("m::n::e"),
        ["m::c"],
        "each further `super` is one module up"
    );
    assert!(
        edges("m::n").is_empty(),
        "a `pub(super) use` in a mod.rs is its contents too"
    );
    assert_eq!(cycles(&g), [["a", "m::b", "m::c"]]);
    assert_eq!(
        crate_paths_beyond("use crate::a::X;\nuse crate::{b::Y, a::Z};\n", &["a"]),
        ["crate::b::Y"],
        "a module's reach beyond its allowed siblings, grouped imports included"
    );
}

#[test]
fn no_file_of_the_cli_engine_or_atspi_crates_is_in_an_import_circle() {
    for krate in [
        "automation-cli",
        "automation-session",
        "automation-runner",
        "automation-http",
        "automation-atspi",
    ] {
        let g = graph(&root().join(krate).join("src"));
        assert!(g.len() > 5, "{krate}: the reader found only {g:?}");
        let found = cycles(&g);
        let edges: Vec<String> = found
            .iter()
            .flatten()
            .map(|m| format!("{m} -> {:?}", g[m]))
            .collect();
        assert!(
            found.is_empty(),
            "{krate}/src has import circles (each list is one strongly connected set of \
             modules): {found:?}; move what both sides need to a module below them. \
             Edges: {edges:#?}"
        );
    }
}

/// The files under `<krate>/src/<dir>` (a directory or one `.rs` file) that mention
/// `needle` outside comments, each as `dir/rel`.
fn mentions_in(krate: &str, dir: &str, needle: &str) -> Vec<String> {
    let base = root().join(krate).join("src").join(dir);
    if base.is_file() {
        let text = strip_comments(&std::fs::read_to_string(&base).unwrap());
        return if text.contains(needle) {
            vec![dir.to_string()]
        } else {
            Vec::new()
        };
    }
    assert!(
        base.is_dir(),
        "{krate}/src/{dir} is gone: update the house rules"
    );
    sources(&base)
        .into_iter()
        .filter(|(_, text)| text.contains(needle))
        .map(|(rel, _)| format!("{dir}/{rel}"))
        .collect()
}

/// [`mentions_in`] the CLI crate.
fn mentions(dir: &str, needle: &str) -> Vec<String> {
    mentions_in("automation-cli", dir, needle)
}

/// The packages `krate`'s normal (linked) dependencies pull in, transitively, for this host,
/// with `features` (cargo's own answer: `cargo tree`; Cargo.lock is never rewritten).
fn linked_packages(krate: &str, features: &[&str]) -> BTreeSet<String> {
    let out = std::process::Command::new(env!("CARGO"))
        .current_dir(root())
        .args(["tree", "--locked", "-e", "normal", "--prefix", "none"])
        .args(["-f", "{p}", "-p", krate])
        .args(features)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo tree -p {krate}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let names: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    assert!(
        names.contains(krate) && names.len() > 1,
        "cargo tree -p {krate} answered {names:?}"
    );
    names
}

/// The tokio features `krate` turns on (`cargo tree -e features -i tokio`).
fn tokio_features(krate: &str) -> String {
    let out = std::process::Command::new(env!("CARGO"))
        .current_dir(root())
        .args(["tree", "--locked", "-e", "features", "--prefix", "none"])
        .args(["-p", krate, "--all-features", "-i", "tokio"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What each crate must not pull in (ARCHITECTURE.md's table), checked on what Cargo
/// resolves rather than on imports: a crate cannot name what it does not link.
#[test]
fn each_crate_links_only_what_its_row_allows() {
    // The session engine speaks no protocol and serves no network: no MCP, no HTTP, no
    // command line, no flow language; tokio for its one-shot channel only, never a runtime.
    let session = linked_packages("automation-session", &["--all-features"]);
    for banned in [
        "rmcp",
        "axum",
        "hyper",
        "hyper-util",
        "tower-service",
        "clap",
        "indicatif",
        "quick-junit",
        "xpath-eval",
        "oxc",
        "serde_norway",
        "automation-transpile",
        "automation-cli",
    ] {
        assert!(
            !session.contains(banned),
            "automation-session links {banned} (see ARCHITECTURE.md's table)"
        );
    }
    // The runner runs flows on a session and writes what they did: no MCP, no HTTP, no
    // command line; tokio's channels only.
    let runner = linked_packages("automation-runner", &["--all-features"]);
    for banned in [
        "rmcp",
        "axum",
        "hyper",
        "hyper-util",
        "tower-service",
        "clap",
        "xpath-eval",
        "automation-cli",
    ] {
        assert!(
            !runner.contains(banned),
            "automation-runner links {banned} (see ARCHITECTURE.md's table)"
        );
    }
    // The HTTP doors serve no MCP (MCP over HTTP is the CLI's, beside rmcp), parse no command
    // line and run no flow.
    let http = linked_packages("automation-http", &["--all-features"]);
    for banned in [
        "rmcp",
        "clap",
        "automation-runner",
        "automation-transpile",
        "automation-cli",
    ] {
        assert!(
            !http.contains(banned),
            "automation-http links {banned} (see ARCHITECTURE.md's table)"
        );
    }
    for krate in ["automation-session", "automation-runner"] {
        let tokio = tokio_features(krate);
        assert!(
            tokio.contains("tokio feature \"sync\"") && !tokio.contains("tokio feature \"rt"),
            "{krate}'s tokio is more than channels: {tokio}"
        );
    }
    // The crates below: no async runtime, no toolkit in core, no egui or wire in the AT-SPI
    // target, nothing but png in the golden compare.
    let core = linked_packages("automation-core", &["--all-features"]);
    for banned in ["tokio", "egui", "zbus", "automation-wire", "rmcp", "axum"] {
        assert!(!core.contains(banned), "automation-core links {banned}");
    }
    let atspi = linked_packages("automation-atspi", &[]);
    for banned in ["tokio", "egui", "automation-wire", "automation-egui"] {
        assert!(!atspi.contains(banned), "automation-atspi links {banned}");
    }
    // The audit: rules over core's records and a driver; no I/O stack, no toolkit.
    let audit = linked_packages("automation-audit", &[]);
    for banned in [
        "tokio",
        "egui",
        "zbus",
        "automation-wire",
        "automation-session",
        "rmcp",
        "axum",
    ] {
        assert!(!audit.contains(banned), "automation-audit links {banned}");
    }
    let golden = linked_packages("automation-golden", &[]);
    assert!(
        golden
            .iter()
            .all(|p| !p.starts_with("automation-") || p == "automation-golden"),
        "automation-golden links a workspace crate: {golden:?}"
    );
    // The reader is not blind: the CLI does link the MCP and HTTP stacks.
    let cli = linked_packages("automation-cli", &[]);
    for linked in [
        "rmcp",
        "axum",
        "hyper",
        "clap",
        "automation-session",
        "automation-runner",
        "automation-http",
    ] {
        assert!(cli.contains(linked), "automation-cli links no {linked}?");
    }
}

/// The files of `<krate>/src` outside `skip` (a directory prefix) that mention `needle`.
fn mentions_outside(krate: &str, skip: &str, needle: &str) -> Vec<String> {
    sources(&root().join(krate).join("src"))
        .into_iter()
        .filter(|(rel, text)| !rel.starts_with(skip) && text.contains(needle))
        .map(|(rel, _)| rel)
        .collect()
}

/// The `crate::…` paths `text` names whose first segment is not in `allowed`.
fn crate_paths_beyond(text: &str, allowed: &[&str]) -> Vec<String> {
    paths(text)
        .into_iter()
        .filter(|(anchor, segs)| {
            anchor == "crate" && segs.first().is_some_and(|s| !allowed.contains(&s.as_str()))
        })
        .map(|(_, segs)| format!("crate::{}", segs.join("::")))
        .collect()
}

#[test]
fn layers_import_downward_only() {
    // What Cargo says needs no reader here: no crate below the CLI can name a layer of it (the
    // CLI depends on them), the session crate cannot name the runner or the HTTP doors, those
    // two cannot name each other, and `each_crate_links_only_what_its_row_allows` keeps rmcp
    // and clap out of all three and HTTP out of the engines. What is left are the layers
    // inside each crate.
    //
    // Inside the session crate: the tool layer serves through a closure its caller gives it
    // (in place on the target thread, or around an await) and never reaches for the target
    // thread or a mode itself; files and the watchdog are the floor.
    for needle in ["crate::backend", "crate::mode", "crate::atspi_mode"] {
        assert_eq!(
            mentions_in("automation-session", "tools", needle),
            Vec::<String>::new(),
            "the tool layer imports {needle}"
        );
    }
    for dir in ["files", "watchdog.rs"] {
        for needle in [
            "crate::tools",
            "crate::backend",
            "crate::mode",
            "crate::atspi_mode",
        ] {
            assert_eq!(
                mentions_in("automation-session", dir, needle),
                Vec::<String>::new(),
                "{dir} imports {needle}"
            );
        }
    }
    // The target thread names no other module of the crate but its error type, which sits on
    // the floor: it names none but the files layer, whose error it carries.
    let backend = strip_comments(
        &std::fs::read_to_string(root().join("automation-session/src/backend.rs")).unwrap(),
    );
    let beyond_error: Vec<&str> = backend
        .lines()
        .filter(|l| l.contains("crate::") && !l.contains("crate::error::"))
        .collect();
    assert_eq!(
        beyond_error,
        Vec::<&str>::new(),
        "the target thread imports another module of the session crate"
    );
    let error = strip_comments(
        &std::fs::read_to_string(root().join("automation-session/src/error.rs")).unwrap(),
    );
    assert_eq!(
        crate_paths_beyond(&error, &["files"]),
        Vec::<String>::new(),
        "the session crate's error type imports another module of the crate"
    );
    // Inside the runner crate: `exec` is a flow over the runner's sinks: it uses the runner,
    // never the other way. Authoring writes tests from calls and records: it runs none (it
    // names no other module of the crate but its error type). The report's page and writer
    // know only the data the html sink hands them (and say their failures in the error type).
    // The error type is the floor: it names no other module of the crate.
    assert_eq!(
        mentions_in("automation-runner", "error.rs", "crate::"),
        Vec::<String>::new(),
        "the runner's error type imports another module of the crate"
    );
    assert_eq!(
        mentions_outside("automation-runner", "exec/", "crate::exec"),
        Vec::<String>::new(),
        "the runner imports exec"
    );
    assert!(
        !mentions_in("automation-runner", "exec", "crate::sinks").is_empty(),
        "exec feeds the runner's sinks"
    );
    for (rel, text) in sources(&root().join("automation-runner/src/authoring")) {
        assert_eq!(
            crate_paths_beyond(&text, &["authoring", "error"]),
            Vec::<String>::new(),
            "authoring/{rel} imports the runner"
        );
    }
    let page = strip_comments(
        &std::fs::read_to_string(root().join("automation-runner/src/report_page.rs")).unwrap(),
    );
    assert_eq!(
        crate_paths_beyond(&page, &["error"]),
        Vec::<String>::new(),
        "the report's writer imports the runner"
    );
    // Inside the CLI crate. The command line is the top: the modes it parses into are
    // automation-session's, and nothing below parses, names or imports a clap type.
    assert_eq!(
        mentions("mcp", "crate::cli"),
        Vec::<String>::new(),
        "mcp imports the command line"
    );
    // Inside the HTTP crate. Seeing shows runs and apps: it serves a report the runner wrote
    // and an app through the tool layer. Reach (the session servers) sits on top of it.
    assert_eq!(
        mentions_in("automation-http", "seeing", "crate::reach"),
        Vec::<String>::new(),
        "seeing imports reach"
    );
    assert!(
        !mentions_in("automation-http", "seeing", "automation_session::tools").is_empty(),
        "the inspector goes through the tool layer"
    );
    // WebDriver speaks W3C through the tool layer.
    assert!(
        !mentions_in(
            "automation-http",
            "reach/webdriver",
            "automation_session::tools"
        )
        .is_empty()
            && !mentions_in("automation-http", "reach", "tools::call(").is_empty(),
        "WebDriver's commands go through the tool layer"
    );
    // The edge is the one door every HTTP server stands behind: it knows HTTP and who is
    // asking, and nothing of what is served.
    for needle in ["crate::reach", "crate::seeing", "automation_session"] {
        assert_eq!(
            mentions_in("automation-http", "edge", needle),
            Vec::<String>::new(),
            "the edge imports {needle}"
        );
    }
    for (krate, dir, file) in [
        ("automation-http", "reach", "webdriver/mod.rs"),
        ("automation-http", "seeing", "loopback.rs"),
        ("automation-cli", "mcp", "http.rs"),
    ] {
        assert!(
            mentions_in(krate, dir, "edge::serve(").contains(&format!("{dir}/{file}")),
            "{krate}/src/{dir}/{file} serves behind the edge"
        );
    }
    // No server of the binary is served around the edge.
    for (krate, dir) in [
        ("automation-http", "reach"),
        ("automation-http", "seeing"),
        ("automation-cli", "mcp"),
    ] {
        assert_eq!(
            mentions_in(krate, dir, "axum::serve"),
            Vec::<String>::new(),
            "{krate}/src/{dir} serves HTTP without the edge"
        );
    }
    // The reader is not blind: the MCP adapter itself does name rmcp.
    assert!(
        !mentions("mcp", "rmcp").is_empty(),
        "the MCP adapter names rmcp"
    );
}

/// The runner's and the files layer's error codes are core's `ErrorCode`s (one table, its
/// docs generated), never a code spelled as a string where an error is built.
#[test]
fn error_codes_are_cores_not_strings() {
    let mut spelled = Vec::new();
    for krate in ["automation-runner", "automation-session", "automation-http"] {
        for (rel, text) in sources(&root().join(krate).join("src")) {
            let code = match text.find("#[cfg(test)]").or(text.find("#[cfg(all(test")) {
                Some(at) => &text[..at],
                None => text.as_str(),
            };
            for needle in ["\"code\": \"", "runner_error(\""] {
                for (at, _) in code.match_indices(needle) {
                    let next = code[at + needle.len()..].chars().next();
                    if next.is_some_and(|c| c.is_ascii_uppercase()) {
                        spelled.push(format!("{krate}/src/{rel}: {needle}…"));
                    }
                }
            }
        }
    }
    assert_eq!(
        spelled,
        Vec::<String>::new(),
        "an error code spelled as a string: use automation_core::ErrorCode (add the code to \
         core's error_codes! table if it is new)"
    );
}

/// In-process callers (WebDriver, the inspector, the runner's evidence) build typed ops
/// (`automation_core::replies`) and read typed replies: no op is named by a string outside
/// the parsers that read names from their users. Those are MCP (`automation-cli/src/mcp`),
/// the tool layer every door shares (`automation-session/src/tools`), the command line's
/// `automation op NAME`, and the steps: their flows, their runner and authoring, which writes
/// steps (a test's text names its tools). `settle` is also the request's field, so it is not
/// looked for.
#[test]
fn no_op_is_called_by_its_name_outside_the_parsers() {
    let parsers = [
        "automation-cli/src/mcp/",
        "automation-cli/src/verbs.rs",
        "automation-cli/src/cli.rs",
        "automation-session/src/tools/",
        "automation-runner/src/flow.rs",
        "automation-runner/src/steps",
        "automation-runner/src/poll.rs",
        "automation-runner/src/authoring/",
    ];
    let names: Vec<String> = automation_core::catalog::CATALOG
        .iter()
        .map(|spec| format!("\"{}\"", spec.name))
        .filter(|n| n != "\"settle\"")
        .collect();
    let mut named = Vec::new();
    for krate in [
        "automation-session",
        "automation-runner",
        "automation-http",
        "automation-cli",
    ] {
        for (rel, text) in sources(&root().join(krate).join("src")) {
            let path = format!("{krate}/src/{rel}");
            if parsers.iter().any(|p| path.starts_with(p)) {
                continue;
            }
            let code = match text.find("#[cfg(test)]") {
                Some(at) => &text[..at],
                None => text.as_str(),
            };
            for name in &names {
                // A name followed by `:` is a JSON key (a record's `"screenshot": …`).
                let called = code
                    .match_indices(name.as_str())
                    .any(|(at, _)| !code[at + name.len()..].trim_start().starts_with(':'));
                if called {
                    named.push(format!("{path}: {name}"));
                }
            }
        }
    }
    assert_eq!(
        named,
        Vec::<String>::new(),
        "an op named by a string outside the parsers: build it typed \
         (automation_core::replies: `Session::op::<ReadNode>(args)`, \
         `TargetHandle::op::<InvokeAction>(args)`), declaring its reply type there if it has none"
    );
    // The test can fail: a literal op name in a caller is seen.
    assert!(
        names
            .iter()
            .any(|n| "data(s, \"read_node\", a)".contains(n.as_str()))
    );
}

/// The files under `src` (relative to it) that name quick-junit outside comments: where a
/// JUnit report is built (its `Report`, `TestSuite`, `TestCase` are how one is made).
fn junit_writers(src: &Path) -> Vec<String> {
    sources(src)
        .into_iter()
        .filter(|(_, text)| text.contains("quick_junit"))
        .map(|(rel, _)| rel)
        .collect()
}

#[test]
fn the_junit_reader_sees_every_writer() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir(src.join("a")).unwrap();
    std::fs::write(
        src.join("a/one.rs"),
        "use quick_junit::{Report, TestSuite};\n",
    )
    .unwrap();
    std::fs::write(
        src.join("two.rs"),
        "fn f() { let _ = quick_junit::TestSuite::new(\"s\"); }\n",
    )
    .unwrap();
    std::fs::write(
        src.join("three.rs"),
        "// quick_junit is named in a comment only\n",
    )
    .unwrap();
    assert_eq!(junit_writers(src), ["a/one.rs", "two.rs"]);
}

#[test]
fn one_junit_writer_in_the_tree() {
    let mut writers = Vec::new();
    for entry in std::fs::read_dir(root()).unwrap() {
        let src = entry.unwrap().path().join("src");
        if src.is_dir() {
            let krate = src.parent().unwrap().file_name().unwrap().to_string_lossy();
            for rel in junit_writers(&src) {
                writers.push(format!("{krate}/src/{rel}"));
            }
        }
    }
    // `automation run` and `automation exec` both report through the runner's JUnit sink.
    assert_eq!(
        writers,
        ["automation-runner/src/sinks/junit.rs"],
        "JUnit is built in more than one place (or the sink moved): feed the runner's sinks \
         (runner::events::Sink) instead of building a report"
    );
}

#[test]
fn the_readme_is_a_door_and_no_page_carries_history() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 200, "README.md is {lines} lines (at most 200)");
    let mut pages = vec![("README.md".to_string(), readme)];
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            let name = format!("docs/{}", path.file_name().unwrap().to_string_lossy());
            pages.push((name, std::fs::read_to_string(&path).unwrap()));
        }
    }
    for (name, text) in &pages {
        for (n, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            let stop = lower
                .match_indices("stop ")
                .any(|(i, _)| lower[i + 5..].starts_with(|c: char| c.is_ascii_digit()));
            assert!(!stop, "{name}:{}: a session's history: {line}", n + 1);
            let hash = line
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| (7..=40).contains(&w.len()) && is_commit_like(w));
            assert!(!hash, "{name}:{}: a commit hash: {line}", n + 1);
        }
    }
}

/// Lowercase hex with both a digit and a letter: how a commit hash looks, and what a number or
/// a word does not.
fn is_commit_like(w: &str) -> bool {
    w.chars()
        .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        && w.chars().any(|c| c.is_ascii_digit())
        && w.chars().any(|c| c.is_ascii_alphabetic())
}

#[test]
fn the_architecture_and_bench_pages_exist() {
    for page in ["ARCHITECTURE.md", "benches/README.md"] {
        let text =
            std::fs::read_to_string(root().join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(text.lines().count() > 20, "{page} is a stub");
    }
}

//! The drift check every generated docs page shares: regenerate its marked sections, compare,
//! and with `UPDATE_DOCS=1` rewrite the page in place.

use std::path::Path;

/// Fails the test when a section of the page at `path` differs from what the code generates.
/// `sections` are `(name, body)` pairs between `<!-- BEGIN GENERATED: name -->` markers.
#[track_caller]
pub fn check_page(path: &Path, sections: &[(&str, String)], how_to_update: &str) {
    let page = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut fresh = page.clone();
    for (name, body) in sections {
        fresh = automation_core::docs::splice(&fresh, name, body).unwrap_or_else(|| {
            let (b, e) = automation_core::docs::markers(name);
            panic!("{} must contain the markers {b} … {e}", path.display())
        });
    }
    if fresh == page {
        return;
    }
    if std::env::var("UPDATE_DOCS").as_deref() == Ok("1") {
        std::fs::write(path, &fresh)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        eprintln!("rewrote the generated sections of {}", path.display());
        return;
    }
    panic!(
        "{} is out of date with the code; regenerate with: UPDATE_DOCS=1 {how_to_update}\n--- expected ---\n{}",
        path.display(),
        sections
            .iter()
            .map(|(n, b)| format!("[{n}]\n{b}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

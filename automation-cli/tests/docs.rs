//! `docs/mcp.md`'s tool and error tables are generated from the catalog; this fails when they
//! drift. `UPDATE_DOCS=1 cargo test -p automation-cli --test docs` rewrites them.

use automation_cli::docs::regenerate;

#[test]
fn mcp_doc_tables_match_the_catalog() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/mcp.md");
    let doc = std::fs::read_to_string(path).expect("docs/mcp.md");
    let fresh = regenerate(&doc).expect("docs/mcp.md has the BEGIN/END GENERATED markers");
    if std::env::var_os("UPDATE_DOCS").is_some() {
        if fresh != doc {
            std::fs::write(path, &fresh).expect("write docs/mcp.md");
        }
        return;
    }
    assert!(
        fresh == doc,
        "docs/mcp.md is out of date with the catalog; run UPDATE_DOCS=1 cargo test -p automation-cli --test docs"
    );
    for spec in automation_core::CATALOG {
        assert!(
            doc.contains(&format!("| `{}` |", spec.name)),
            "{} missing",
            spec.name
        );
    }
}

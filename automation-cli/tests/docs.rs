//! `docs/mcp.md`'s tool and error tables are generated from the catalog; this fails when they
//! drift. `UPDATE_DOCS=1 cargo test -p automation-cli --test docs` rewrites them.

#[test]
fn mcp_doc_tables_match_the_catalog() {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/mcp.md"));
    automation_testkit::docs::check_page(
        path,
        &[
            ("tools", automation_cli::docs::tools_table()),
            ("errors", automation_core::docs::error_code_table()),
        ],
        "cargo test -p automation-cli --test docs",
    );
}

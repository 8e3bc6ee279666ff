//! `docs/mcp.md`'s tool and error tables are generated from the catalog; this fails when they
//! drift. `UPDATE_DOCS=1 cargo test -p automation-cli --test cli docs::` rewrites them.

#[test]
fn mcp_doc_tables_match_the_catalog() {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/mcp.md"));
    automation_testkit::docs::check_page(
        path,
        &[
            ("tools", automation_cli::docs::tools_table()),
            ("errors", automation_core::docs::error_code_table()),
        ],
        "cargo test -p automation-cli --test cli docs::",
    );
}

/// `docs/audit.md`'s rule table is generated from the audit's one declaration of its rules.
#[test]
fn audit_doc_table_matches_the_rules() {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/audit.md"));
    automation_testkit::docs::check_page(
        path,
        &[("audit-rules", automation_audit::format::rules_table())],
        "cargo test -p automation-cli --test cli docs::",
    );
}

/// `docs/cli.md`'s verb table (every verb and flag) and the `tools` fields come from the
/// binary (issue 39: `export` was missing from the page, `reply` from the fields).
#[test]
fn cli_doc_tables_match_the_binary() {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/cli.md"));
    automation_testkit::docs::check_page(
        path,
        &[
            ("verbs", automation_cli::docs::verbs_table()),
            ("tools-fields", automation_cli::docs::tools_fields()),
        ],
        "cargo test -p automation-cli --test cli docs::",
    );
}

/// Every WebDriver route the server declares is in docs/webdriver.md's command table (read
/// from the router's source, so a new route without a row fails here).
#[test]
fn webdriver_doc_lists_every_route() {
    let router = include_str!("../../../automation-http/src/reach/webdriver/mod.rs");
    let doc = include_str!("../../../docs/webdriver.md");
    // `.route(` then the path, on the same line or the next (as rustfmt breaks them).
    let routes: Vec<String> = router
        .split(".route(")
        .skip(1)
        .filter_map(|r| {
            r.trim_start()
                .strip_prefix('"')?
                .split('"')
                .next()
                .map(str::to_string)
        })
        .collect();
    assert!(routes.len() > 25, "{routes:?}");
    for route in routes {
        let short = route.trim_start_matches("/session/{sid}");
        let short = if short.is_empty() {
            "/session/{id}".to_string()
        } else {
            short.to_string()
        };
        let listed = doc.contains(&format!("`{short}`"))
            || doc.contains(&format!("`GET {short}`"))
            || doc.contains(&format!("`POST {short}`"))
            || doc.contains(&format!("`DELETE {short}`"))
            || doc.contains(&format!("{short}`"))
            || doc.contains(&format!(
                "…{}`",
                short
                    .rsplit('/')
                    .next()
                    .map(|l| format!("/{l}"))
                    .unwrap_or_default()
            ));
        assert!(
            listed,
            "docs/webdriver.md's command table lacks the route {route}"
        );
    }
}

//! docs/atspi.md's mapping tables are generated from `automation_atspi::map`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use automation_atspi::map;

#[test]
fn the_mapping_tables_in_the_docs_match_the_code() {
    automation_testkit::docs::check_page(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/atspi.md"),
        &[
            ("atspi-roles", map::roles_table()),
            ("atspi-states", map::states_table()),
            ("atspi-actions", map::actions_table()),
            ("atspi-means", map::means_table()),
        ],
        "cargo test -p automation-atspi --test atspi_docs",
    );
}

//! The selector generator over a whole real app's tree (gtk3-widget-factory, ~450 nodes):
//! every node with a role and a name gets a selector that picks exactly it, as an op resolves
//! it; the nameless share and the reasons are printed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use automation_atspi::Output;
use automation_testkit::selectors::coverage;
use serde_json::json;
use support::serial_start;

#[test]
fn every_named_node_of_gtk3_widget_factory_gets_a_selector() {
    let Some((_one, mut r)) = serial_start(
        "gtk3-widget-factory",
        "gtk-3-examples",
        "gtk3-widget-factory",
        Output::Null,
    ) else {
        return;
    };
    // A read syncs the mirror with the whole tree.
    r.ok(json!({"snapshot_tree": {"max_depth": 1}}));
    let t = std::time::Instant::now();
    let c = coverage(&r.session);
    println!(
        "{} ({} nodes in {} ms, generated and resolved)",
        c.summary("gtk3-widget-factory"),
        c.named + c.nameless,
        t.elapsed().as_millis()
    );
    assert!(c.named > 100, "{c:?}");
    assert_eq!(c.named_ok, c.named, "{:?}", c.named_failures);
    assert!(c.wrong.is_empty(), "{:?}", c.wrong);
}

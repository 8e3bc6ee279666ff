//! The selector generator over whole egui trees — the built-in demo and egui_demo_lib's widget
//! gallery (nobody here wrote it): every node with a role and a name gets a selector that
//! picks exactly it; for nameless nodes the share that get one and why the rest do not are
//! printed, with the mean selector length.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use automation_core::Session;
use automation_egui::{EguiTarget, demo_target};
use automation_testkit::selectors::{Coverage, coverage};
use egui_demo_lib::View as _;

fn settled(target: EguiTarget<'static>) -> Session<EguiTarget<'static>> {
    let mut session = Session::new(target);
    let settle: automation_core::Request =
        automation_core::Request::from_json(r#"{"op": "settle"}"#).unwrap();
    let reply = automation_core::execute_request(&mut session, &settle);
    assert!(reply.is_ok(), "{reply:?}");
    session
}

fn check(tree: &str, c: &Coverage) {
    println!("{}", c.summary(tree));
    assert!(c.named > 5, "{tree}: {c:?}");
    assert_eq!(c.named_ok, c.named, "{tree}: {:?}", c.named_failures);
    assert!(c.wrong.is_empty(), "{tree}: {:?}", c.wrong);
}

#[test]
fn every_named_node_of_the_headless_demo_gets_a_selector() {
    let session = settled(demo_target());
    check("headless demo", &coverage(&session));
}

#[test]
fn every_named_node_of_the_egui_widget_gallery_gets_a_selector() {
    let mut gallery = egui_demo_lib::WidgetGallery::default();
    let target = EguiTarget::new(move |ui| gallery.ui(ui)).with_size(800.0, 900.0);
    let session = settled(target);
    check("egui_demo_lib widget gallery", &coverage(&session));
}

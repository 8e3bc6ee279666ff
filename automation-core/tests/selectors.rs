//! The selector generator and the `within` scope: every named node of the fixture gets a
//! selector that picks exactly it, replies carry one when asked, and a bad `within` is a typed
//! error.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use automation_core::{NodeTarget, Request, Selector, Session, execute_request};
use automation_testkit::fixture::DemoApp;
use automation_testkit::selectors::coverage;
use serde_json::json;

fn session() -> Session<DemoApp> {
    let mut s = Session::new(DemoApp::new());
    s.sync().unwrap();
    s
}

fn sel(v: serde_json::Value) -> Selector {
    serde_json::from_value(v).unwrap()
}

#[test]
fn every_named_node_of_the_fixture_gets_a_selector_that_picks_it() {
    let s = session();
    let c = coverage(&s);
    println!("{}", c.summary("fixture"));
    assert!(c.named > 10, "{c:?}");
    assert_eq!(c.named_ok, c.named, "{:?}", c.named_failures);
    assert!(c.wrong.is_empty(), "{:?}", c.wrong);
}

#[test]
fn a_selector_never_holds_a_reference_or_an_id() {
    let s = session();
    let save = s.matches(&sel(json!({"label": "Save"}))).unwrap()[0];
    let made = s.durable_selector(save).unwrap();
    assert_eq!(json!(made), json!({"role": "Button", "label": "Save"}));
}

#[test]
fn within_scopes_the_search_to_one_node() {
    let s = session();
    let row = sel(
        json!({"role": "ListItem", "label": "Row 1", "within": {"role": "ScrollView", "label": "Items"}}),
    );
    assert_eq!(s.matches(&row).unwrap().len(), 1);
    let elsewhere = sel(
        json!({"role": "ListItem", "label": "Row 1", "within": {"role": "Button", "label": "Save"}}),
    );
    assert!(s.matches(&elsewhere).unwrap().is_empty());
    let missing = sel(json!({"label": "Row 1", "within": {"label": "Nowhere"}}));
    let err = s.resolve(&NodeTarget::Select(missing)).unwrap_err();
    assert_eq!(err.code.as_str(), "NOT_FOUND");
    assert!(
        err.message.starts_with("the selector's `within`"),
        "{}",
        err.message
    );
}

#[test]
fn within_nests_one_level_and_is_never_empty() {
    let nested = serde_json::from_value::<Selector>(
        json!({"label": "a", "within": {"label": "b", "within": {"label": "c"}}}),
    )
    .unwrap_err();
    assert!(nested.to_string().contains("one level"), "{nested}");
    let empty =
        serde_json::from_value::<Selector>(json!({"label": "a", "within": {}})).unwrap_err();
    assert!(empty.to_string().contains("`within` needs"), "{empty}");
}

#[test]
fn replies_carry_a_selector_when_asked() {
    let mut s = session();
    let found = execute_request(
        &mut s,
        &Request::from_json(
            r#"{"op": {"find_node": {"label_contains": "sav"}}, "with_selector": true}"#,
        )
        .unwrap(),
    );
    let data = found.data().unwrap();
    assert_eq!(
        data["selector"],
        json!({"role": "Button", "label": "Save"}),
        "{data}"
    );
    // An action's selector is the node as it was before the action (the click renames nothing
    // here, but the selector is taken first either way).
    let node = data["node"].clone();
    let clicked = execute_request(
        &mut s,
        &Request::from_value(json!({"op": {"invoke_action": {"node": node, "action": "click"}}, "with_selector": true})).unwrap(),
    );
    assert_eq!(
        clicked.data().unwrap()["selector"],
        json!({"role": "Button", "label": "Save"})
    );
    // Not asked: no selector.
    let plain = execute_request(
        &mut s,
        &Request::from_json(r#"{"op": {"find_node": {"label": "Save"}}}"#).unwrap(),
    );
    assert!(plain.data().unwrap().get("selector").is_none());
    let bad = Request::from_json(r#"{"op": "settle", "with_selector": "yes"}"#).unwrap_err();
    assert!(bad.message.contains("with_selector"), "{}", bad.message);
}

/// Issue 39: a nameless text view's value is its whole document (long, several lines), not a
/// name: its selector leaves the value out and counts it by role instead (inside its named
/// group, or over the tree), and still picks it. A short one-line value is still used.
#[test]
fn a_long_or_multi_line_value_is_not_a_selector_field() {
    use accesskit::{Action, Node, NodeId, Role, TreeId, TreeUpdate};
    use automation_testkit::fixture::ids;

    let lorem = "Lorem ipsum dolor sit amet, consectetur adipiscing elit,\nsed do eiusmod tempor \
                 incididunt ut labore et dolore magna aliqua.";
    let long_line = "x".repeat(41);
    let view = |value: &str| {
        let mut n = Node::new(Role::MultilineTextInput);
        n.set_value(value);
        n.add_action(Action::SetValue);
        n
    };
    let mut root = Node::new(Role::Window);
    root.set_children(vec![NodeId(900), NodeId(903), NodeId(904)]);
    let mut group = Node::new(Role::Group);
    group.set_label("Notes");
    group.set_children(vec![NodeId(901), NodeId(902)]);
    let mut street = Node::new(Role::TextInput);
    street.set_value("42 Main St");
    street.add_action(Action::SetValue);
    let mut s = session();
    s.target.next_raw_update = Some(TreeUpdate {
        nodes: vec![
            (ids::ROOT, root),
            (NodeId(900), group),
            (NodeId(901), view(lorem)),
            (NodeId(902), view(&long_line)),
            (NodeId(903), view(lorem)),
            (NodeId(904), street),
        ],
        tree: None,
        tree_id: TreeId::ROOT,
        focus: ids::ROOT,
    });
    s.sync().unwrap();
    for id in [901, 902, 903] {
        let made = s.durable_selector(NodeId(id)).unwrap();
        let shown = json!(made);
        assert!(shown.get("value").is_none(), "{id}: {shown}");
        let found = s.resolve(&NodeTarget::Select(made)).unwrap();
        assert_eq!(found.id, NodeId(id), "{id}: {shown}");
    }
    assert_eq!(
        json!(s.durable_selector(NodeId(901)).unwrap()),
        json!({"role": "MultilineTextInput", "within": {"role": "Group", "label": "Notes"}, "nth": 0})
    );
    let street = s.durable_selector(NodeId(904)).unwrap();
    assert_eq!(
        json!(street),
        json!({"role": "TextInput", "value": "42 Main St"})
    );
}

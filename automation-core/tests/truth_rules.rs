//! Issue 22's rules for every op, on an app whose widgets behave as real toolkits' do: a
//! disabled check box and slider that AT-SPI would still move, a check box on a hidden page,
//! a check box whose click the app ignores, a field whose value is what a selector matched, a
//! dialog whose OK ends the app, and folded containers under a snapshot's depth limit.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use accesskit::{
    Action, ActionData, ActionRequest, Node, NodeId, Rect, Role, Toggled, TreeId, TreeInfo,
    TreeUpdate,
};
use automation_core::input::{KeyEvent, PointerEvent, ScrollEvent};
use automation_core::{
    ActionOutcome, AppExit, ClockKind, ErrorCode, Reply, Request, Session, Target, TargetError,
    execute_request,
};
use serde_json::{Value, json};

const ROOT: NodeId = NodeId(1);
const PAGE: NodeId = NodeId(2);
const HIDDEN_PAGE: NodeId = NodeId(3);
const BOX: NodeId = NodeId(10);
const DISABLED_BOX: NodeId = NodeId(11);
const OFF_PAGE_BOX: NodeId = NodeId(12);
const DEAF_BOX: NodeId = NodeId(13);
const SLIDER: NodeId = NodeId(14);
const ENTRY: NodeId = NodeId(15);
const OK: NodeId = NodeId(16);
const GROUP: NodeId = NodeId(17);
const INNER: NodeId = NodeId(18);
const NO_BOUNDS_BOX: NodeId = NodeId(19);

/// A small app: state, the input it received, and one full tree per change.
struct App {
    checked: bool,
    off_page_checked: bool,
    disabled_checked: bool,
    slider: f64,
    entry: String,
    focus: NodeId,
    exited: bool,
    sent: Vec<(NodeId, Action)>,
    dirty: bool,
}

impl App {
    fn new() -> Self {
        Self {
            checked: false,
            off_page_checked: false,
            disabled_checked: false,
            slider: 5.0,
            entry: "entry".into(),
            focus: ROOT,
            exited: false,
            sent: Vec::new(),
            dirty: true,
        }
    }

    fn tree(&self) -> TreeUpdate {
        let rect = |y: f64| Rect {
            x0: 10.0,
            y0: y,
            x1: 200.0,
            y1: y + 20.0,
        };
        let check = |label: &str, on: bool, y: Option<f64>| {
            let mut n = Node::new(Role::CheckBox);
            n.set_label(label);
            n.set_toggled(if on { Toggled::True } else { Toggled::False });
            n.add_action(Action::Click);
            n.add_action(Action::Focus);
            if let Some(y) = y {
                n.set_bounds(rect(y));
            }
            n
        };
        let mut root = Node::new(Role::Window);
        root.set_label("app");
        root.set_bounds(Rect {
            x0: 0.0,
            y0: 0.0,
            x1: 400.0,
            y1: 400.0,
        });
        root.set_children(vec![PAGE, HIDDEN_PAGE]);
        let mut page = Node::new(Role::TabPanel);
        page.set_children(vec![
            BOX,
            DISABLED_BOX,
            DEAF_BOX,
            SLIDER,
            ENTRY,
            OK,
            GROUP,
            NO_BOUNDS_BOX,
        ]);
        let mut hidden_page = Node::new(Role::TabPanel);
        hidden_page.set_hidden();
        hidden_page.set_children(vec![OFF_PAGE_BOX]);
        let mut disabled = check("Disabled", self.disabled_checked, Some(30.0));
        disabled.set_disabled();
        let mut slider = Node::new(Role::Slider);
        slider.set_label("Volume");
        slider.set_numeric_value(self.slider);
        slider.set_min_numeric_value(0.0);
        slider.set_max_numeric_value(10.0);
        slider.add_action(Action::SetValue);
        slider.set_disabled();
        slider.set_bounds(rect(90.0));
        let mut entry = Node::new(Role::TextInput);
        entry.set_label("Name");
        entry.set_value(self.entry.clone());
        entry.add_action(Action::SetValue);
        entry.add_action(Action::Focus);
        entry.set_bounds(rect(120.0));
        let mut ok = Node::new(Role::Button);
        ok.set_label("OK");
        ok.add_action(Action::Click);
        ok.set_bounds(rect(150.0));
        let mut group = Node::new(Role::GenericContainer);
        group.set_children(vec![INNER]);
        let mut inner = Node::new(Role::Group);
        inner.set_label("Inner");
        inner.set_children(vec![]);
        let mut nodes = vec![
            (ROOT, root),
            (PAGE, page),
            (HIDDEN_PAGE, hidden_page),
            (BOX, check("Box", self.checked, Some(10.0))),
            (DISABLED_BOX, disabled),
            (
                OFF_PAGE_BOX,
                check("Off page", self.off_page_checked, Some(10.0)),
            ),
            (DEAF_BOX, check("Deaf", false, Some(60.0))),
            (SLIDER, slider),
            (ENTRY, entry),
            (OK, ok),
            (GROUP, group),
            (INNER, inner),
            (NO_BOUNDS_BOX, check("No bounds", false, None)),
        ];
        // The inner group holds one label, two shown levels below the page.
        let mut deep = Node::new(Role::Label);
        deep.set_value("deep");
        nodes.push((NodeId(20), deep));
        if let Some((_, inner)) = nodes.iter_mut().find(|(id, _)| *id == INNER) {
            inner.set_children(vec![NodeId(20)]);
        }
        TreeUpdate {
            nodes,
            tree: Some(TreeInfo::new(ROOT)),
            tree_id: TreeId::ROOT,
            focus: self.focus,
        }
    }
}

impl Target for App {
    fn clock(&self) -> ClockKind {
        ClockKind::Simulated
    }

    fn poll_tree(&mut self) -> Result<Option<TreeUpdate>, TargetError> {
        if self.exited {
            return Err(TargetError::AppGone("the app exited".into()));
        }
        if std::mem::take(&mut self.dirty) {
            return Ok(Some(self.tree()));
        }
        Ok(None)
    }

    fn action(&mut self, r: ActionRequest) -> Result<ActionOutcome, TargetError> {
        self.sent.push((r.target_node, r.action));
        // As AT-SPI does: the action works whatever a person could do.
        match (r.target_node, r.action) {
            (BOX, Action::Click) => self.checked = !self.checked,
            (DISABLED_BOX, Action::Click) => self.disabled_checked = !self.disabled_checked,
            (OFF_PAGE_BOX, Action::Click) => self.off_page_checked = !self.off_page_checked,
            (DEAF_BOX, Action::Click) => {}
            (SLIDER, Action::SetValue) => {
                if let Some(ActionData::NumericValue(v)) = r.data {
                    self.slider = v;
                }
            }
            (ENTRY, Action::SetValue) => {
                if let Some(ActionData::Value(v)) = r.data {
                    self.entry = v.to_string();
                }
            }
            (ENTRY, Action::Focus) => self.focus = ENTRY,
            (OK, Action::Click) => {
                self.exited = true;
                return Err(TargetError::AppGone("no reply: the app exited".into()));
            }
            (_, Action::Focus) => {}
            _ => return Ok(ActionOutcome::Unhandled),
        }
        self.dirty = true;
        Ok(ActionOutcome::Handled)
    }

    fn pointer(&mut self, _event: &PointerEvent) -> Result<(), TargetError> {
        Ok(())
    }

    fn key(&mut self, _event: &KeyEvent) -> Result<(), TargetError> {
        Ok(())
    }

    fn scroll(&mut self, _event: &ScrollEvent) -> Result<(), TargetError> {
        Ok(())
    }

    fn exit(&mut self) -> Option<AppExit> {
        self.exited.then(|| AppExit {
            status: Some(0),
            signal: None,
            stdout: Some("Ada\n".into()),
            stderr: Some(String::new()),
        })
    }
}

fn run(s: &mut Session<App>, op: Value) -> Reply {
    let req = Request::from_value(json!({ "op": op })).expect("a valid request");
    execute_request(s, &req)
}

fn ok(s: &mut Session<App>, op: Value) -> Value {
    match run(s, op.clone()) {
        Reply::Ok(data) => data,
        other => panic!("{op} failed: {other:?}"),
    }
}

fn code(s: &mut Session<App>, op: Value) -> ErrorCode {
    match run(s, op.clone()) {
        Reply::Err(e) => e.code,
        other => panic!("{op} answered {other:?}"),
    }
}

fn check(label: &str) -> Value {
    json!({ "role": "CheckBox", "label": label })
}

#[test]
fn a_click_that_flips_the_box_is_ok() {
    let mut s = Session::new(App::new());
    ok(
        &mut s,
        json!({ "invoke_action": { "node": check("Box"), "action": "click" } }),
    );
    assert!(s.target.checked);
}

#[test]
fn a_disabled_box_is_refused_and_left_unchanged() {
    let mut s = Session::new(App::new());
    let e = match run(
        &mut s,
        json!({ "invoke_action": { "node": check("Disabled"), "action": "click" } }),
    ) {
        Reply::Err(e) => e,
        other => panic!("{other:?}"),
    };
    assert_eq!(e.code, ErrorCode::Disabled);
    assert!(e.message.contains("disabled"), "{}", e.message);
    assert!(!s.target.disabled_checked);
    assert!(
        s.target.sent.is_empty(),
        "nothing is sent: {:?}",
        s.target.sent
    );
}

#[test]
fn a_disabled_slider_is_not_moved_by_set_value() {
    let mut s = Session::new(App::new());
    let node = json!({ "role": "Slider", "label": "Volume" });
    assert_eq!(
        code(&mut s, json!({ "set_value": { "node": node, "value": 8 } })),
        ErrorCode::Disabled
    );
    assert_eq!(s.target.slider, 5.0);
}

#[test]
fn a_box_on_a_hidden_page_or_with_no_bounds_is_refused_and_left_unchanged() {
    let mut s = Session::new(App::new());
    assert_eq!(
        code(
            &mut s,
            json!({ "invoke_action": { "node": check("Off page"), "action": "click" } })
        ),
        ErrorCode::NotVisible
    );
    assert_eq!(
        code(
            &mut s,
            json!({ "invoke_action": { "node": check("No bounds"), "action": "click" } })
        ),
        ErrorCode::NotVisible
    );
    assert_eq!(
        code(
            &mut s,
            json!({ "inject_pointer": { "node": check("Off page"), "action": "click" } })
        ),
        ErrorCode::NotVisible
    );
    assert!(!s.target.off_page_checked);
    assert!(
        s.target.sent.is_empty(),
        "nothing is sent: {:?}",
        s.target.sent
    );
}

#[test]
fn a_click_the_app_ignores_is_no_effect_not_ok() {
    let mut s = Session::new(App::new());
    let e = match run(
        &mut s,
        json!({ "invoke_action": { "node": check("Deaf"), "action": "click" } }),
    ) {
        Reply::Err(e) => e,
        other => panic!("{other:?}"),
    };
    assert_eq!(e.code, ErrorCode::NoEffect);
}

#[test]
fn clearing_a_field_found_by_its_value_answers_ok() {
    let mut s = Session::new(App::new());
    let data = ok(
        &mut s,
        json!({ "set_value": { "node": { "role": "TextInput", "value": "entry" }, "value": "" } }),
    );
    assert_eq!(s.target.entry, "");
    assert_eq!(data["value"], "");
}

#[test]
fn an_ok_that_ends_the_app_answers_ok_with_its_exit() {
    let mut s = Session::new(App::new());
    let data = ok(
        &mut s,
        json!({ "invoke_action": { "node": { "role": "Button", "label": "OK" }, "action": "click" } }),
    );
    assert_eq!(data["app_exited"]["status"], 0);
    assert_eq!(data["app_exited"]["stdout"], "Ada\n");
    // The next op finds the app gone.
    assert_eq!(
        code(&mut s, json!({ "find_node": { "role": "Button" } })),
        ErrorCode::AppGone
    );
}

#[test]
fn focusing_the_focused_field_sends_nothing_and_says_so() {
    let mut s = Session::new(App::new());
    ok(
        &mut s,
        json!({ "focus_node": { "node": { "role": "TextInput" } } }),
    );
    let sent = s.target.sent.len();
    let data = ok(
        &mut s,
        json!({ "focus_node": { "node": { "role": "TextInput" } } }),
    );
    assert_eq!(data["unchanged"], "it already had the focus");
    assert_eq!(s.target.sent.len(), sent);
}

#[test]
fn snapshot_depth_counts_only_shown_levels_and_announces_the_cut() {
    let mut s = Session::new(App::new());
    // PAGE (depth 1) → GROUP (folded) → INNER (shown at depth 2) → the label (depth 3).
    let data = ok(
        &mut s,
        json!({ "snapshot_tree": { "root": { "role": "TabPanel", "nth": 0 }, "max_depth": 1, "format": "text" } }),
    );
    let text = data["tree"]
        .as_str()
        .or(data["text"].as_str())
        .unwrap_or_default()
        .to_string();
    let text = if text.is_empty() {
        data.to_string()
    } else {
        text
    };
    assert!(
        text.contains("Inner"),
        "the folded container's child shows at depth 1: {data}"
    );
    assert!(!text.contains("deep"), "depth 2 is cut: {data}");
    assert_eq!(data["truncated"], true, "the cut is announced: {data}");
}

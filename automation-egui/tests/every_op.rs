//! Every op of `automation_core::CATALOG` against the headless demo, each checked by its
//! effect on the app. A catalog op without a row fails `every_catalog_op_has_a_row`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use automation_core::{CATALOG, ErrorCode};
use automation_egui::{EguiHost, EguiTarget, demo_target};
use serde_json::{Value, json};

type Rig = automation_testkit::rig::Rig<EguiTarget<'static>, EguiHost>;

fn rig() -> Rig {
    Rig::with_host(demo_target(), EguiHost)
}

/// What the rows ask of the demo, on top of the shared rig.
trait Demo {
    fn exists(&mut self, role: &str, label: &str) -> bool;
    fn exists_value(&mut self, role: &str, value: &str) -> bool;
    fn status(&mut self) -> String;
    fn status_value(&mut self, expected: &str) -> bool;
    fn y_of(&mut self, label: &str) -> f64;
}

impl Demo for Rig {
    fn exists(&mut self, role: &str, label: &str) -> bool {
        !self.find(role, label).is_null()
    }

    fn exists_value(&mut self, role: &str, value: &str) -> bool {
        !self.ok(json!({"op": {"find_node": {"role": role, "value": value}}}))["node"].is_null()
    }

    fn status(&mut self) -> String {
        let live = self.ok(json!({"op": "list_live_regions"}));
        live["regions"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    fn status_value(&mut self, expected: &str) -> bool {
        self.exists_value("Label", expected)
    }

    fn y_of(&mut self, label: &str) -> f64 {
        self.node(json!({"label": label}))["bounds"]["y"]
            .as_f64()
            .unwrap()
    }
}

fn unsupported(r: &mut Rig, request: Value) {
    let e = r.err(request);
    assert_eq!(e.code, ErrorCode::Unsupported, "{e:?}");
}

type Check = fn(&mut Rig);

/// One row per catalog op: its name and a check of its effect on the demo. Each row is also
/// its own test (`cargo test -p automation-egui --test every_op op::click` runs one).
macro_rules! rows {
    ($( $name:ident => $check:expr, )*) => {
        const ROWS: &[(&str, Check)] = &[ $( (stringify!($name), $check), )* ];

        mod op {
            $( #[test] fn $name() { super::run_row(stringify!($name)) } )*
        }
    };
}

fn run_row(name: &str) {
    let check = ROWS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, c)| *c)
        .unwrap();
    check(&mut rig());
}

rows! {
    snapshot_tree => |r| {
        let text = r.ok(json!({"op": "snapshot_tree"}));
        let tree = text["tree"].as_str().unwrap();
        assert!(tree.contains("- Button \"Save\" [e"), "{tree}");
        assert!(tree.contains("- CheckBox \"Remember me\" [e"), "{tree}");
        let v = r.ok(json!({"op": {"snapshot_tree": {"max_nodes": 2000, "format": "json"}}}));
        let nodes = v["nodes"].as_array().unwrap();
        assert!(nodes.len() > 30, "{}", nodes.len());
        assert!(
            nodes
                .iter()
                .any(|n| n["role"] == "Button" && n["label"] == "Save")
        );
        let shallow = r.ok(json!({"op": {"snapshot_tree": {"max_depth": 0, "format": "json"}}}));
        assert_eq!(shallow["nodes"].as_array().unwrap().len(), 1);
    },
    read_node => |r| {
        let v = r.node(json!({"role": "Button", "label": "Save"}));
        assert_eq!(v["role"], "Button");
        assert!(v["actions"].as_array().unwrap().contains(&json!("click")));
        let name = r.node(json!({"role": "TextInput"}));
        assert_eq!(name["label"], "Name", "labelled_by resolves");
    },
    find_node => |r| {
        assert!(r.exists("Button", "Save"));
        assert!(!r.exists("Button", "Nope"));
        assert!(r.exists("CheckBox", "Remember me"));
    },
    assert_node => |r| {
        r.ok(json!({"op": {"assert_node": {"node": {"label": "Remember me"}, "kind": "toggled", "flag": false}}}));
        let e = r.err(json!({"op": {"assert_node": {"node": {"label": "Remember me"}, "kind": "toggled", "flag": true}}}));
        assert_eq!(e.code, ErrorCode::AssertionFailed);
        r.ok(json!({"op": {"assert_node": {"node": {"label": "Advanced"}, "kind": "expanded", "flag": false}}}));
    },
    list_windows => |r| {
        let op = automation_core::Op::from_json(json!("list_windows")).unwrap();
        let e = automation_core::execute(&mut r.s, &op, &Default::default());
        assert_eq!(e.err().map(|e| e.code), Some(ErrorCode::HostRequired));
        r.ok(
            json!({"op": {"invoke_action": {"node": {"label": "Open window"}, "action": "click"}}}),
        );
        let v = r.ok(json!({"op": "list_windows"}));
        let titles: Vec<_> = v["windows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["title"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(titles, ["main", "Second window"]);
        assert!(r.exists_value("Label", "Hello from the second window"));
    },
    query_pointers => |r| {
        assert_eq!(r.ok(json!({"op": "query_pointers"}))["pointers"], json!([]));
        r.ok(json!({"op": {"inject_pointer": {"node": {"label": "Save"}, "action": "move"}}}));
        let v = r.ok(json!({"op": "query_pointers"}));
        assert_eq!(v["pointers"][0]["kind"], "mouse");
    },
    layout_tree => |r| {
        unsupported(r, json!({"op": "layout_tree"}))
    },
    inspect_node => |r| {
        unsupported(
            r,
            json!({"op": {"inspect_node": {"node": {"label": "Save"}}}}),
        )
    },
    list_live_regions => |r| {
        let v = r.ok(json!({"op": "list_live_regions"}));
        assert_eq!(v["regions"].as_array().unwrap().len(), 1, "{v}");
        assert_eq!(v["regions"][0]["politeness"], "polite", "{v}");
        assert_eq!(v["regions"][0]["text"], "Ready", "{v}");
    },
    pull_announcements => |r| {
        r.ok(json!({"op": {"invoke_action": {"node": {"label": "Save"}, "action": "click"}}}));
        let v = r.ok(json!({"op": "pull_announcements"}));
        let texts: Vec<_> = v["announcements"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["text"].clone())
            .collect();
        assert!(texts.contains(&json!("Saved")), "{v}");
    },
    get_overlays => |r| {
        assert_eq!(r.ok(json!({"op": "get_overlays"}))["overlays"], json!([]));
        r.ok(json!({"op": {"right_click": {"node": {"label": "Row 2"}}}}));
        let v = r.ok(json!({"op": "get_overlays"}));
        assert_eq!(v["overlays"][0]["kind"], "popup", "{v}");
        r.ok(
            json!({"op": {"invoke_action": {"node": {"label": "Open window"}, "action": "click"}}}),
        );
        let v = r.ok(json!({"op": "get_overlays"}));
        assert!(
            v["overlays"]
                .as_array()
                .unwrap()
                .iter()
                .any(|o| o["kind"] == "window"),
            "{v}"
        );
    },
    get_shortcuts => |r| {
        unsupported(r, json!({"op": "get_shortcuts"}))
    },
    invoke_action => |r| {
        r.ok(json!({"op": {"invoke_action": {"node": {"role": "Button", "label": "Save"}, "action": "click"}}}));
        assert!(r.status_value("Saved"));
        let e = r
            .err(json!({"op": {"invoke_action": {"node": {"label": "Save"}, "action": "expand"}}}));
        assert_eq!(e.code, ErrorCode::UnhandledAction);
        // show_context_menu falls back to a secondary click.
        r.ok(json!({"op": {"invoke_action": {"node": {"label": "Row 2"}, "action": "show_context_menu"}}}));
        r.ok(json!({"op": {"invoke_action": {"node": {"role": "Button", "label": "Delete"}, "action": "click"}}}));
        assert!(!r.exists("Button", "Row 2"));
        assert!(r.exists("Button", "Row 3"));
    },
    focus_node => |r| {
        r.ok(json!({"op": {"focus_node": {"node": {"role": "TextInput", "label": "Name"}}}}));
        r.ok(json!({"op": {"assert_node": {"node": {"role": "TextInput"}, "kind": "focused"}}}));
    },
    set_value => |r| {
        r.ok(json!({"op": {"set_value": {"node": {"role": "TextInput"}, "value": "Grace"}}}));
        assert_eq!(r.node(json!({"role": "TextInput"}))["value"], "Grace");
        r.ok(json!({"op": {"expand": {"node": {"label": "Advanced"}}}}));
        r.ok(json!({"op": {"set_value": {"node": {"role": "Slider"}, "value": 75}}}));
        assert_eq!(r.node(json!({"role": "Slider"}))["numeric_value"], 75.0);
    },
    expand => |r| {
        assert!(!r.exists("Slider", "Volume"));
        r.ok(json!({"op": {"expand": {"node": {"label": "Advanced"}}}}));
        r.ok(json!({"op": {"assert_node": {"node": {"label": "Advanced"}, "kind": "expanded", "flag": true}}}));
        assert!(r.exists("Slider", "Volume"));
        // Idempotent: expanding an open header leaves it open.
        r.ok(json!({"op": {"expand": {"node": {"label": "Advanced"}}}}));
        assert!(r.exists("Slider", "Volume"));
        let e = r.err(json!({"op": {"expand": {"node": {"label": "Save"}}}}));
        assert_eq!(e.code, ErrorCode::UnhandledAction);
    },
    collapse => |r| {
        r.ok(json!({"op": {"expand": {"node": {"label": "Advanced"}}}}));
        r.ok(json!({"op": {"collapse": {"node": {"label": "Advanced"}}}}));
        r.ok(json!({"op": {"assert_node": {"node": {"label": "Advanced"}, "kind": "expanded", "flag": false}}}));
        assert!(!r.exists("Slider", "Volume"));
    },
    scroll => |r| {
        let before = r.y_of("Row 1");
        r.ok(json!({"op": {"scroll": {"node": {"label": "Row 3"}, "dy": 100}}}));
        let after = r.y_of("Row 1");
        assert!(after < before - 50.0, "{before} -> {after}");
        r.ok(json!({"op": {"scroll": {"node": {"label": "Row 6"}, "dy": -2, "lines": true}}}));
        assert!(r.y_of("Row 1") > after, "lines scroll back up");
    },
    inject_pointer => |r| {
        r.ok(json!({"op": {"inject_pointer": {"node": {"label": "Remember me"}}}}));
        r.ok(json!({"op": {"assert_node": {"node": {"label": "Remember me"}, "kind": "toggled", "flag": true}}}));
        // A pen tap clicks too, through egui's emulated mouse.
        r.ok(json!({"op": {"inject_pointer": {"node": {"label": "Save"}, "kind": "pen", "pressure": 0.7}}}));
        assert!(r.status_value("Saved"));
        assert!(r.exists_value("Label", "Taps: 1"));
    },
    right_click => |r| {
        assert!(!r.exists("Button", "Delete"));
        r.ok(json!({"op": {"right_click": {"node": {"label": "Row 4"}}}}));
        assert!(r.exists("Button", "Delete"));
    },
    inject_key => |r| {
        r.ok(json!({"op": {"inject_key": {"key": "s", "command": true}}}));
        assert!(r.status_value("Saved"));
        r.ok(json!({"op": {"focus_node": {"node": {"role": "TextInput"}}}}));
        r.ok(json!({"op": {"inject_key": {"key": "x", "text": "x"}}}));
        r.ok(json!({"op": {"inject_key": {"key": "backspace"}}}));
        r.ok(json!({"op": {"inject_key": {"key": "y", "text": "y"}}}));
        assert_eq!(r.node(json!({"role": "TextInput"}))["value"], "y");
    },
    type_text => |r| {
        r.ok(json!({"op": {"type_text": {"node": {"role": "TextInput"}, "text": "Ada Lovelace"}}, "settle": {"settle_timeout_ms": 10000}}));
        assert_eq!(
            r.node(json!({"role": "TextInput"}))["value"],
            "Ada Lovelace"
        );
    },
    type_ime => |r| {
        r.ok(json!({"op": {"type_ime": {"node": {"role": "TextInput"}, "preedit": "にほん", "commit": "日本"}}}));
        assert_eq!(r.node(json!({"role": "TextInput"}))["value"], "日本");
    },
    drag_node => |r| {
        r.ok(json!({"op": {"expand": {"node": {"label": "Advanced"}}}}));
        let slider = r.node(json!({"role": "Slider"}));
        let b = &slider["bounds"];
        let (x, y) = (
            b["x"].as_f64().unwrap() + b["width"].as_f64().unwrap(),
            b["y"].as_f64().unwrap() + b["height"].as_f64().unwrap() / 2.0,
        );
        r.ok(
            json!({"op": {"drag_node": {"node": {"role": "Slider"}, "to_x": x + 20.0, "to_y": y}}}),
        );
        assert_eq!(r.node(json!({"role": "Slider"}))["numeric_value"], 100.0);
    },
    inject_touch_sequence => |r| {
        let v = r.ok(json!({"op": {"inject_touch_sequence": {"steps": [
            {"phase": "down", "x": 5, "y": 5, "node": {"label": "Cancel"}},
            {"phase": "up", "x": 5, "y": 5, "node": {"label": "Cancel"}, "advance_ms": 50}
        ]}}}));
        assert_eq!(v["steps"].as_array().unwrap().len(), 2);
        assert!(r.status_value("Cancelled"));
    },
    pinch => |r| {
        r.ok(json!({"op": {"pinch": {"node": {"label": "Open window"}, "scale": 2.0}}}));
        assert!(
            !r.exists_value("Label", "Zoom 100%"),
            "pinch changed the zoom"
        );
    },
    fling => |r| {
        let before = r.y_of("Row 1");
        // The wall-clock budget only guards against a hang; rows run in parallel debug builds.
        r.ok(json!({"op": {"fling": {"node": {"label": "Row 4"}, "dy": -120}}, "settle": {"settle_timeout_ms": 10000}}));
        assert!(
            r.y_of("Row 1") < before - 50.0,
            "the list followed the finger"
        );
    },
    long_press => |r| {
        let v = r.ok(json!({"op": {"long_press": {"node": {"label": "Row 5"}}}}));
        assert!(v["held_ms"].as_u64().unwrap() > 800);
        assert!(
            r.exists("Button", "Delete"),
            "a long touch opens the context menu"
        );
    },
    cancel_pointer => |r| {
        let v = r.ok(json!({"op": {"inject_pointer": {"node": {"label": "Save"}, "kind": "touch", "action": "down"}}}));
        let id = v["pointer_id"].as_u64().unwrap();
        assert_eq!(
            r.ok(json!({"op": "query_pointers"}))["pointers"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
        r.ok(json!({"op": {"cancel_pointer": {"pointer_id": id}}}));
        assert_eq!(r.ok(json!({"op": "query_pointers"}))["pointers"], json!([]));
        assert!(r.status_value("Ready"), "a cancelled touch is not a click");
    },
    set_density => |r| {
        unsupported(r, json!({"op": {"set_density": {"density": "touch"}}}))
    },
    settle => |r| {
        r.ok(json!({"op": {"invoke_action": {"node": {"label": "Toggle details"}, "action": "click"}}, "settle": {"max_anim_frames": 0}}));
        let v = r.ok(json!({"op": "settle"}));
        assert!(v["settled"]["frames"].as_u64().unwrap() > 0, "{v}");
        assert_eq!(v["settled"]["still_animating"], false);
        let again = r.ok(json!({"op": "settle"}));
        assert_eq!(again["settled"]["frames"], 0, "quiet after settling");
    },
    wait_for_condition => |r| {
        r.ok(json!({"op": {"inject_pointer": {"node": {"label": "Help"}, "action": "move"}}}));
        let v = r.ok(json!({"op": {"wait_for_condition": {"condition": {"kind": "node_value", "node": {"role": "Label", "value": "Saves your work"}, "expected": "Saves your work"}}}, "settle": {"settle_timeout_ms": 2000}}));
        assert!(
            v["waited_ms"].as_u64().unwrap() >= 300,
            "the tooltip dwells: {v}"
        );
    },
    advance_clock => |r| {
        r.ok(json!({"op": {"inject_pointer": {"node": {"label": "Help"}, "action": "move"}}}));
        r.ok(json!({"op": {"advance_clock": {"millis": 100}}}));
        assert!(
            !r.exists_value("Label", "Saves your work"),
            "still dwelling 100 ms later"
        );
        r.ok(json!({"op": {"advance_clock": {"millis": 400}}}));
        assert!(
            r.exists_value("Label", "Saves your work"),
            "shown after egui's 0.5 s dwell"
        );
    },
    screenshot => |r| {
        let op = automation_core::Op::from_json(json!("screenshot")).unwrap();
        let e = automation_core::execute(&mut r.s, &op, &Default::default());
        assert_eq!(e.err().map(|e| e.code), Some(ErrorCode::HostRequired));
        let served = r.reply(json!({"op": "screenshot"}));
        if cfg!(feature = "screenshot") {
            let image = served
                .image()
                .unwrap_or_else(|| panic!("screenshot failed: {served:?}"));
            assert!(image.png.starts_with(b"\x89PNG"), "a PNG");
            assert_eq!(image.width, 640);
        } else {
            assert_eq!(served.err().map(|e| e.code), Some(ErrorCode::Unsupported));
        }
    },
}

#[test]
fn every_catalog_op_has_a_row() {
    let missing: Vec<_> = CATALOG
        .iter()
        .filter(|s| !ROWS.iter().any(|(n, _)| *n == s.name))
        .map(|s| s.name)
        .collect();
    assert!(missing.is_empty(), "catalog ops without a row: {missing:?}");
    let extra: Vec<_> = ROWS
        .iter()
        .filter(|(n, _)| !CATALOG.iter().any(|s| s.name == *n))
        .map(|(n, _)| *n)
        .collect();
    assert!(
        extra.is_empty(),
        "rows for ops not in the catalog: {extra:?}"
    );
}

#[test]
fn status_is_a_live_region_that_announces_saved() {
    let mut r = rig();
    assert_eq!(r.status(), "Ready");
    r.ok(json!({"op": {"invoke_action": {"node": {"label": "Save"}, "action": "click"}}}));
    assert_eq!(r.status(), "Saved");
}

fn script(r: &mut Rig) -> Value {
    for req in [
        json!({"op": {"type_text": {"node": {"role": "TextInput"}, "text": "Ada"}}}),
        json!({"op": {"invoke_action": {"node": {"label": "Save"}, "action": "click"}}}),
        json!({"op": {"expand": {"node": {"label": "Advanced"}}}}),
        json!({"op": {"scroll": {"node": {"label": "Row 3"}, "dy": 60}}}),
        json!({"op": {"invoke_action": {"node": {"label": "Toggle details"}, "action": "click"}}}),
        json!({"op": {"right_click": {"node": {"label": "Row 6"}}}}),
    ] {
        r.ok(req);
    }
    r.ok(json!({"op": {"snapshot_tree": {"max_nodes": 5000, "format": "json"}}}))
}

#[test]
fn the_same_script_twice_gives_identical_trees() {
    let a = script(&mut rig());
    let b = script(&mut rig());
    assert_eq!(a, b);
}

#[test]
fn bounds_are_logical_at_any_scale() {
    let mut one = rig();
    let mut two = Rig::with_host(demo_target().with_pixels_per_point(2.0), EguiHost);
    let a = one.node(json!({"label": "Save"}))["bounds"].clone();
    let b = two.node(json!({"label": "Save"}))["bounds"].clone();
    for k in ["x", "y", "width", "height"] {
        let (a, b) = (a[k].as_f64().unwrap(), b[k].as_f64().unwrap());
        assert!(
            (a - b).abs() <= 1.0,
            "{k}: {a} vs {b} (logical px at both scales)"
        );
    }
    two.ok(json!({"op": {"inject_pointer": {"node": {"label": "Remember me"}}}}));
    two.ok(json!({"op": {"assert_node": {"node": {"label": "Remember me"}, "kind": "toggled", "flag": true}}}));
}

#[test]
fn a_huge_clock_jump_while_animating_is_bounded() {
    let mut r = rig();
    r.ok(json!({"op": {"invoke_action": {"node": {"label": "Toggle details"}, "action": "click"}}, "settle": {"max_anim_frames": 0}}));
    let started = std::time::Instant::now();
    r.ok(json!({"op": {"advance_clock": {"millis": 1_000_000_000u64}}}));
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    assert!(r.exists("Button", "Save"));
}

#[test]
fn copy_and_paste_through_the_keyboard() {
    let mut r = rig();
    r.ok(json!({"op": {"type_text": {"node": {"role": "TextInput"}, "text": "Ada"}}}));
    r.ok(json!({"op": {"inject_key": {"key": "a", "command": true}}}));
    r.ok(json!({"op": {"inject_key": {"key": "c", "command": true}}}));
    assert_eq!(r.s.target.clipboard(), "Ada");
    r.ok(json!({"op": {"inject_key": {"key": "end"}}}));
    r.ok(json!({"op": {"inject_key": {"key": "v", "command": true}}}));
    assert_eq!(r.node(json!({"role": "TextInput"}))["value"], "AdaAda");
}

/// The typed ops' replies (`automation_core::replies`) read back from the wire's JSON into
/// their declared types and write the same JSON again: every node's `read_node`, and
/// `find_node` with a match and without one.
#[test]
fn typed_replies_read_back_what_the_wire_says() {
    use automation_core::Reply;
    use automation_core::replies::{FindNode, ListWindows, ReadNode, SnapshotTree, TypedOp};
    let mut r = rig();
    // Toggled, mixed and value-carrying nodes as well as plain ones.
    r.ok(json!({"op": {"invoke_action": {"node": {"label": "Remember me"}, "action": "click"}}}));
    let snap = r.ok(json!({"op": {"snapshot_tree": {"format": "json", "max_nodes": 500}}}));
    let ids: Vec<String> = snap["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap().to_string())
        .collect();
    assert!(ids.len() > 20, "{snap}");
    for id in ids {
        let wire = r.ok(json!({"op": {"read_node": {"node": id}}}));
        let typed = ReadNode::decode(Reply::Ok(wire.clone())).unwrap();
        assert_eq!(serde_json::to_value(&typed).unwrap(), wire, "{id}");
    }
    for selector in [
        json!({"role": "Button", "label": "Save"}),
        json!({"role": "Button", "label": "Svae"}),
    ] {
        let wire = r.ok(json!({"op": {"find_node": selector}}));
        let typed = FindNode::decode(Reply::Ok(wire.clone())).unwrap();
        assert_eq!(serde_json::to_value(&typed).unwrap(), wire, "{selector}");
        assert_eq!(typed.node.is_some(), typed.record.is_some());
        assert_eq!(typed.node.is_none(), typed.candidates.is_some());
    }
    // snapshot_tree in both formats, whole and cut by its budget.
    for args in [
        json!({"format": "json", "max_nodes": 500}),
        json!({"format": "json", "max_nodes": 3}),
        json!({"format": "text"}),
        json!({"format": "text", "max_nodes": 3, "include_hidden": true}),
    ] {
        let wire = r.ok(json!({"op": {"snapshot_tree": args}}));
        let typed = SnapshotTree::decode(Reply::Ok(wire.clone())).unwrap();
        assert_eq!(serde_json::to_value(&typed).unwrap(), wire, "{args}");
        assert_eq!(typed.nodes.is_empty(), typed.tree.is_some(), "{args}");
    }
    let wire = r.ok(json!({"op": "list_windows"}));
    let typed = ListWindows::decode(Reply::Ok(wire.clone())).unwrap();
    assert!(!typed.windows.is_empty(), "{wire}");
    assert_eq!(serde_json::to_value(&typed).unwrap(), wire);
}

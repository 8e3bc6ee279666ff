//! From recorded calls to a test plan: which calls become steps (with durable selectors in
//! place of the references the agent used), which reads become checks, which typed values
//! become inputs, how calls group into named steps, and what is left out and why.
//!
//! The rules, in order, for each call in the range:
//! - a failed call is left out (an agent's miss and its corrected retry leave only the retry);
//! - a call that names its node by a reference gets the durable selector recorded at that
//!   call (the tree as it was then); without one, a selector the agent wrote is kept; a
//!   reference with neither is left out, with why;
//! - actions, waits, screenshots and `assert_node` are kept;
//! - `read_node` becomes a check of what it read (value, else toggled state, else existence)
//!   when it follows an action or its node is acted on later; before any action, on a node
//!   never acted on, it is exploration. `find_node` becomes such a check when its match is
//!   acted on later. `no_expect` turns either off per call;
//! - other reads (`snapshot_tree`, `list_windows`, …) are exploration;
//! - a typed text (`type_text`, a text `set_value`) becomes an input with that default, and a
//!   later check whose `value` is that text checks the input instead.

use automation_core::ops::{AssertNode, FieldValue};
use automation_core::refs::RefKey;
use automation_core::snapshot::ToggledState;
use automation_core::{Access, NodeTarget, Op, Selector};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::log::{Entry, Read, Recorded};

/// What to export.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Range {
    /// First call (1-based, inclusive); default the first kept.
    pub from: Option<usize>,
    /// Last call (inclusive); default the last.
    pub to: Option<usize>,
    /// Reads not to turn into checks (a set: the list an agent sends has no bound but its
    /// message's size, and every call is looked up in it).
    pub no_expect: std::collections::BTreeSet<usize>,
}

/// A test, before it is written in a format.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Inputs and their defaults, in first-use order.
    pub inputs: Vec<(String, String)>,
    /// The steps.
    pub groups: Vec<Group>,
    /// Calls not in the test, with why.
    pub left_out: Vec<LeftOut>,
    /// The calls considered (first, last), 1-based.
    pub span: Option<(usize, usize)>,
}

/// One named step: a run of calls on one widget, ended by a check.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// Its name, from what it does and the widget's name (`set Name`, `click Save`).
    pub name: String,
    /// Its calls.
    pub calls: Vec<Planned>,
}

/// One call of the test.
#[derive(Debug, Clone, PartialEq)]
pub struct Planned {
    /// The recorded call it comes from.
    pub index: usize,
    /// The tool.
    pub tool: &'static str,
    /// Its arguments, nodes named by durable selectors.
    pub args: Map<String, Value>,
    /// The argument that holds an input: (argument name, input name).
    pub input: Option<(String, String)>,
    /// Whether it checks rather than acts (it ends its step).
    pub check: bool,
}

/// A call not in the test.
#[derive(Debug, Clone, PartialEq)]
pub struct LeftOut {
    /// The recorded call.
    pub index: usize,
    /// Its tool.
    pub tool: String,
    /// Why.
    pub why: String,
}

/// The call's node argument as the agent gave it.
fn node_arg(entry: &Entry) -> Option<NodeTarget> {
    entry.op.node().cloned()
}

/// The reference the agent passed (`"e12"`), to see whether a found node is used later.
fn reference_arg(entry: &Entry) -> Option<RefKey> {
    match entry.op.node() {
        Some(NodeTarget::Ref(r)) => Some(*r),
        _ => None,
    }
}

/// Why a recorded call is left out of the test, as `export` lists it (`left out: call 3
/// find_node: it failed`): a reason for the user, not an error; planning goes on without the
/// call.
type Skip = String;

/// The durable way to name the call's node: the recorded selector, else the agent's own
/// selector object; `Err` says why neither exists.
fn durable_node(entry: &Entry) -> Result<Option<Selector>, Skip> {
    let Recorded::Ok {
        selector,
        selector_note,
        ..
    } = &entry.result
    else {
        return Err("it failed".into());
    };
    let named = match &entry.op {
        Op::FindNode(sel) => Some(NodeTarget::Select(sel.clone())),
        _ => node_arg(entry),
    };
    match (selector, named) {
        (Some(sel), _) => Ok(Some(sel.clone())),
        (None, None) => Ok(None),
        (None, Some(NodeTarget::Select(sel))) => Ok(Some(sel)),
        (None, Some(_)) => Err(format!(
            "it names its node by a reference and no durable selector was found ({})",
            selector_note.as_deref().unwrap_or("none recorded")
        )),
    }
}

/// The input name for a typed text on `widget`: its name in snake case, else `text_<call>`.
fn input_name(widget: Option<&Selector>, index: usize, taken: &[(String, String)]) -> String {
    let base: String = widget
        .and_then(|s| s.label.as_deref().or(s.value.as_deref()))
        .map(|l| slug(l, '_'))
        .filter(|s| !s.is_empty() && s.len() <= 32 && !s.starts_with(|c: char| c.is_ascii_digit()))
        .unwrap_or_else(|| format!("text_{index}"));
    let mut name = base.clone();
    let mut n = 2;
    while taken.iter().any(|(k, _)| *k == name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    name
}

/// `text` in lower-case ASCII letters and digits, each other run of characters one `sep`:
/// `Save as…` → `save_as`.
pub(super) fn slug(text: &str, sep: char) -> String {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
        .map(str::to_ascii_lowercase)
        .collect::<Vec<_>>()
        .join(&sep.to_string())
}

/// How a widget is called in a step name.
fn widget_word(sel: &Selector) -> String {
    sel.label
        .as_deref()
        .or(sel.label_contains.as_deref())
        .or(sel.value.as_deref())
        .or(sel.author_id.as_deref())
        .map(str::to_string)
        .or_else(|| sel.role.clone())
        .unwrap_or_else(|| "node".into())
}

fn step_name(tool: &str, op: &Op, widget: Option<&Selector>, check: bool) -> String {
    let w = widget.map(widget_word);
    let on = |verb: &str| match &w {
        Some(w) => format!("{verb} {w}"),
        None => verb.to_string(),
    };
    if check && !matches!(op, Op::WaitForCondition(_)) {
        return on("check");
    }
    match op {
        Op::InvokeAction(a) => on(&a.action),
        Op::SetValue(_) => on("set"),
        Op::TypeText(_) => w.map_or("type text".into(), |w| format!("type into {w}")),
        Op::InjectKey(k) => format!("press {}", k.key),
        Op::WaitForCondition(_) => "wait for the condition".into(),
        _ => on(tool),
    }
}

/// A check of what a read saw: the value, else the toggled state, else existence.
fn check_of(node: &Selector, read: Option<&Read>) -> Map<String, Value> {
    let mut args = Map::new();
    args.insert("node".into(), json!(node));
    let value = read.and_then(|r| r.value.as_deref());
    let toggled = match read.and_then(|r| r.toggled) {
        Some(ToggledState::Bool(on)) => Some(on),
        Some(ToggledState::Mixed) | None => None,
    };
    match (value, toggled) {
        (Some(v), _) => {
            args.insert("kind".into(), json!("value_equals"));
            args.insert("value".into(), json!(v));
        }
        (None, Some(t)) => {
            args.insert("kind".into(), json!("toggled"));
            args.insert("flag".into(), json!(t));
        }
        (None, None) => {
            args.insert("kind".into(), json!("exists"));
        }
    }
    args
}

/// The input a check's `value` repeats (its default, typed earlier), as (`value`, name). A
/// check in the test is an `assert_node` call (a read becomes one): its arguments are read as
/// one.
fn checked_input(
    check: bool,
    args: &Map<String, Value>,
    inputs: &[(String, String)],
) -> Option<(String, String)> {
    let assert = AssertNode::deserialize(&Value::Object(args.clone()))
        .ok()
        .filter(|_| check)?;
    let value = assert.value.as_deref()?;
    let (name, _) = inputs.iter().find(|(_, default)| default == value)?;
    Some(("value".into(), name.clone()))
}

/// Plans a test from `entries` (oldest first).
pub fn plan<'a>(entries: impl IntoIterator<Item = &'a Entry>, range: &Range) -> Plan {
    let all: Vec<&Entry> = entries
        .into_iter()
        .filter(|e| {
            range.from.is_none_or(|f| e.index >= f) && range.to.is_none_or(|t| e.index <= t)
        })
        .collect();
    let mut planner = Planner {
        all: &all,
        range,
        out: Plan {
            inputs: Vec::new(),
            groups: Vec::new(),
            left_out: Vec::new(),
            span: all.first().zip(all.last()).map(|(a, b)| (a.index, b.index)),
        },
        calls: Vec::new(),
    };
    for (pos, entry) in all.iter().enumerate() {
        if let Err(why) = planner.call(pos, entry) {
            planner.out.left_out.push(LeftOut {
                index: entry.index,
                tool: entry.op.name().to_string(),
                why,
            });
        }
    }
    let Planner { mut out, calls, .. } = planner;
    out.groups = group(calls);
    out
}

/// What planning the calls one by one shares: the calls in the range, the plan so far
/// (inputs and calls left out), and the calls kept (each with its node and step name).
struct Planner<'p, 'e> {
    all: &'p [&'e Entry],
    range: &'p Range,
    out: Plan,
    calls: Vec<(Planned, Option<Selector>, String)>,
}

impl Planner<'_, '_> {
    /// Plans the call at `pos` of the range; `Err` says why it is left out.
    fn call(&mut self, pos: usize, entry: &Entry) -> Result<(), Skip> {
        if let Recorded::Failed { code, message } = &entry.result {
            let short: String = message.chars().take(120).collect();
            return Err(format!("failed with {code}: {}", short.replace('\n', " ")));
        }
        let node = durable_node(entry)?;
        let (mut args, check) = self.args_and_check(pos, entry, &node)?;
        if let Some(sel) = &node
            && args.contains_key("node")
        {
            args.insert("node".into(), json!(sel));
        }
        let tool = if matches!(entry.op, Op::ReadNode(_) | Op::FindNode(_)) {
            "assert_node"
        } else {
            entry.op.name()
        };
        let input = self.input_of(entry, node.as_ref(), check, &args);
        // Reading the same thing twice checks it once.
        if check
            && let Some((last, _, _)) = self.calls.last()
            && last.tool == tool
            && last.args == args
        {
            return Err(format!("the same check as call {}", last.index));
        }
        let name = step_name(tool, &entry.op, node.as_ref(), check);
        self.calls.push((
            Planned {
                index: entry.index,
                tool,
                args,
                input,
                check,
            },
            node,
            name,
        ));
        Ok(())
    }

    /// The call's arguments in the test and whether it checks; `Err` says why a read is
    /// exploration (or not to be a check) and so left out.
    fn args_and_check(
        &self,
        pos: usize,
        entry: &Entry,
        node: &Option<Selector>,
    ) -> Result<(Map<String, Value>, bool), Skip> {
        let later = &self.all[pos + 1..];
        let acted_on_later = |sel: &Option<Selector>, reference: Option<RefKey>| {
            later.iter().any(|l| {
                l.op.spec().access == Access::Mutating
                    && matches!(l.result, Recorded::Ok { .. })
                    && ((reference.is_some() && reference_arg(l) == reference)
                        || (sel.is_some() && durable_node(l).ok().flatten() == *sel))
            })
        };
        let read = match &entry.result {
            Recorded::Ok { read, .. } => read.as_ref(),
            Recorded::Failed { .. } => None,
        };
        match &entry.op {
            Op::ReadNode(_) | Op::FindNode(_) => {
                let found = read.map(|r| r.id);
                let after_action = self.all[..pos]
                    .iter()
                    .any(|e| e.op.spec().access == Access::Mutating);
                let used = acted_on_later(node, found);
                let is_check = match entry.op {
                    Op::ReadNode(_) => after_action || used,
                    _ => used,
                };
                if self.range.no_expect.contains(&entry.index) {
                    return Err("no_expect: not turned into a check".into());
                }
                let Some(sel) = node.as_ref().filter(|_| is_check) else {
                    return Err(
                        "exploration: a read no action depended on and no effect it checked".into(),
                    );
                };
                Ok((check_of(sel, read), true))
            }
            Op::AssertNode(_) => Ok((entry.args.clone(), true)),
            Op::Screenshot(_) => {
                let mut args = entry.args.clone();
                // Delivery options, not the op's: a file written by one run would refuse the
                // next, and a test reads pixels at their size.
                for delivery in ["save_to", "overwrite", "max_dimension", "max_bytes"] {
                    args.remove(delivery);
                }
                Ok((args, false))
            }
            op if op.spec().access == Access::Mutating => {
                Ok((entry.args.clone(), matches!(op, Op::WaitForCondition(_))))
            }
            _ => Err("exploration: it reads, and checks nothing".into()),
        }
    }

    /// The argument that holds an input, as (argument, input name): a typed text becomes an
    /// input (named on first use), a check of a text typed earlier checks that input.
    fn input_of(
        &mut self,
        entry: &Entry,
        node: Option<&Selector>,
        check: bool,
        args: &Map<String, Value>,
    ) -> Option<(String, String)> {
        let inputs = &mut self.out.inputs;
        let typed = match &entry.op {
            Op::TypeText(t) => Some(("text", t.text.clone())),
            Op::SetValue(v) => match &v.value {
                FieldValue::Text(t) => Some(("value", t.clone())),
                FieldValue::Number(_) | FieldValue::Bool(_) => None,
            },
            _ => None,
        };
        // Clearing a field is no input: only a text someone might type otherwise is.
        let typed = typed.filter(|(_, text)| !text.is_empty());
        let input = typed.map(|(field, default)| {
            let name = match inputs.iter().find(|(_, d)| *d == default) {
                Some((k, _)) => k.clone(),
                None => {
                    let k = input_name(node, entry.index, inputs);
                    inputs.push((k.clone(), default));
                    k
                }
            };
            (field.to_string(), name)
        });
        // A check of the text typed earlier follows the input: run with other inputs, the
        // test checks what it typed, not the session's value.
        input.or_else(|| checked_input(check, args, inputs))
    }
}

/// Groups calls into steps: calls on one widget go together, checks join the step before
/// them and end it once it has acted; an action on another widget starts a new step, named
/// after its first action.
fn group(calls: Vec<(Planned, Option<Selector>, String)>) -> Vec<Group> {
    struct Open {
        group: Group,
        widget: Option<Selector>,
        acted: bool,
        closed: bool,
    }
    // The widget of each call's next action, for a check that is the precondition of it.
    let mut next_action: Vec<Option<Option<Selector>>> = vec![None; calls.len()];
    let mut upcoming = None;
    for (i, (call, widget, _)) in calls.iter().enumerate().rev() {
        next_action[i] = upcoming.clone();
        if !call.check {
            upcoming = Some(widget.clone());
        }
    }
    let mut groups: Vec<Open> = Vec::new();
    for (i, (call, widget, name)) in calls.into_iter().enumerate() {
        let check = call.check;
        // A check of the widget the next action works on, in a step about another widget,
        // opens that action's step (read the field, then type into it).
        let precondition = check
            && widget.is_some()
            && next_action[i].as_ref() == Some(&widget)
            && groups.last().is_some_and(|open| open.widget != widget);
        if let Some(open) = groups.last_mut()
            && !open.closed
            && !precondition
            && (check || open.widget == widget)
        {
            if !check && !open.acted {
                open.group.name = name;
            }
            open.acted |= !check;
            open.closed = check && open.acted;
            open.group.calls.push(call);
            continue;
        }
        groups.push(Open {
            group: Group {
                name,
                calls: vec![call],
            },
            widget,
            acted: !check,
            closed: false,
        });
    }
    // Step names are unique: a report and `start_from_step` tell them apart.
    let mut seen: Vec<String> = Vec::new();
    groups
        .into_iter()
        .map(|Open { group: mut g, .. }| {
            let base = g.name.clone();
            let mut n = 2;
            while seen.contains(&g.name) {
                g.name = format!("{base} ({n})");
                n += 1;
            }
            seen.push(g.name.clone());
            g
        })
        .collect()
}

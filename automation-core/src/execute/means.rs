//! An intent carried out by whatever means works ([`crate::intent`]): the means the target
//! lists, in its order, each judged by the node's own effect before the next is tried.
//!
//! A means that cannot apply (the node has no such action, no point of it can be hit, the
//! keyboard does not do it) is skipped; one that was sent and changed nothing the watch can
//! see is followed by the next. A node with nothing to watch (a plain button) counts the first
//! means the app took. The reply names the means that worked (`via`); when none did, the
//! error lists each one tried and what came of it.

use accesskit::{Action, ActionData, ActionRequest, NodeId, Role, TreeId};
use serde_json::{Value, json};

use super::actionable::{self, Reach};
use super::effect::{self, Watch};
use super::{Resolved, Session};
use crate::error::{ErrorCode, OpError, OpResult};
use crate::input::{Key, KeyEvent, Modifiers, NamedKey, PointerButton};
use crate::intent::{self, Intent, Means};
use crate::node_ref::{NodeKey, NodeTarget};
use crate::settle::SettleSpec;
use crate::snapshot::action_name;
use crate::target::{ActionOutcome, ClockKind, Hit, Target};

/// What came of trying one means.
enum Attempt {
    /// It was sent: judge it.
    Sent(Value),
    /// It could not apply here, and why.
    Skipped(String),
}

/// How a means is judged.
pub(super) enum Verdict<'a, T: Target + ?Sized> {
    /// By the node's own change for the intent (a box flips, a row expands, the focus lands).
    Own,
    /// By what a person checks elsewhere (the value a combo shows once its option is picked,
    /// not the option's highlight): `holds` once the effect is there; `wanted` and `actual`
    /// say what was looked for and what was found.
    Custom {
        /// The effect is there.
        holds: &'a dyn Fn(&Session<T>) -> bool,
        /// What was looked for.
        wanted: Value,
        /// What was found.
        actual: &'a dyn Fn(&Session<T>) -> Value,
    },
}

/// Carries `intent` out on `node`: refused first when a person could not do it (`reach`),
/// left alone when the node already is as the intent would make it, else by the target's
/// means in order until one shows its effect.
pub(super) fn carry_out<T: Target + ?Sized>(
    s: &mut Session<T>,
    node: &NodeTarget,
    intent: Intent,
    reach: Reach,
    settle: &SettleSpec,
) -> OpResult {
    carry_out_judged(s, node, intent, reach, settle, &Verdict::Own)
}

/// [`carry_out`], judged by `verdict`.
pub(super) fn carry_out_judged<T: Target + ?Sized>(
    s: &mut Session<T>,
    node: &NodeTarget,
    intent: Intent,
    reach: Reach,
    settle: &SettleSpec,
    verdict: &Verdict<'_, T>,
) -> OpResult {
    let resolved = s.resolve(node)?;
    if intent != Intent::ScrollIntoView {
        actionable::check_now(s, resolved.id, reach)?;
    }
    let action = intent.spec().action;
    let (role, already) = {
        let n = s.mirror.node(resolved.id).ok_or_else(|| {
            OpError::new(ErrorCode::Stale, "the node vanished before it was acted on")
        })?;
        let watch = Watch::of(&n, action, s.mirror.version());
        (n.role(), watch.already(&n))
    };
    if let (Verdict::Own, Some(why)) = (verdict, already) {
        return Ok(json!({
            "node": s.reference(resolved.id),
            "action": action_name(action),
            "unchanged": why,
        }));
    }
    let means = s.target.means(intent, resolved.id);
    let mut tried: Vec<Value> = Vec::new();
    let mut last_miss: Option<OpError> = None;
    for m in means {
        let watch = {
            let n = s
                .mirror
                .node(resolved.id)
                .ok_or_else(|| vanished(s, resolved.id))?;
            Watch::of(&n, action, s.mirror.version())
        };
        let attempt = match m {
            Means::Action => by_action(s, &resolved, intent, action)?,
            Means::Pointer => by_pointer(s, resolved.id, intent, role)?,
            Means::Keys => by_keys(s, node, resolved.id, intent, role, settle)?,
        };
        let data = match attempt {
            Attempt::Skipped(why) => {
                tried.push(json!({"means": m.name(), "skipped": why}));
                continue;
            }
            Attempt::Sent(data) => data,
        };
        s.target.reread(resolved.id);
        let judged = match verdict {
            Verdict::Own => effect::judge(s, watch, settle, data),
            Verdict::Custom {
                holds,
                wanted,
                actual,
            } => effect::judge_by(
                s,
                watch.version_before(),
                settle,
                data,
                *holds,
                wanted,
                *actual,
            ),
        };
        match judged {
            Ok(mut reply) => {
                reply["via"] = json!(m.name());
                if !tried.is_empty() {
                    reply["tried"] = Value::Array(tried);
                }
                return Ok(reply);
            }
            Err(e) if e.code == ErrorCode::NoEffect => {
                tried.push(json!({"means": m.name(), "no_effect": e.actual.as_deref().cloned().unwrap_or(Value::Null)}));
                last_miss = Some(e);
            }
            Err(e) => return Err(e),
        }
        // The node itself may be gone now (a menu item that ran, a dialog that closed).
        if s.mirror.node(resolved.id).is_none() {
            break;
        }
    }
    Err(none_worked(s, &resolved, intent, tried, last_miss))
}

fn vanished<T: Target + ?Sized>(s: &Session<T>, id: NodeId) -> OpError {
    let name = s
        .reference(id)
        .map_or_else(|| format!("node {}", id.0), |r| r.to_string());
    OpError::new(
        ErrorCode::Stale,
        format!("{name} went away while it was acted on"),
    )
    .with_hint("find it again with find_node; the app may have replaced it")
}

/// The toolkit's own action; for an expand or collapse the toolkit has no action for, the
/// click action of a node that reports whether it is expanded (an expander's click toggles it).
fn by_action<T: Target + ?Sized>(
    s: &mut Session<T>,
    resolved: &Resolved,
    intent: Intent,
    action: Action,
) -> Result<Attempt, OpError> {
    let own = send_action(s, resolved, action, None)?;
    let toggles = matches!(intent, Intent::Expand | Intent::Collapse)
        && s.mirror
            .node(resolved.id)
            .is_some_and(|n| n.data().is_expanded().is_some());
    if !toggles || matches!(own, Attempt::Sent(_)) {
        return Ok(own);
    }
    Ok(match send_action(s, resolved, Action::Click, None)? {
        Attempt::Sent(mut data) => {
            data["toggled_by"] = json!(action_name(Action::Click));
            Attempt::Sent(data)
        }
        Attempt::Skipped(_) => own,
    })
}

/// The toolkit's action `action` on `resolved`, with `data`.
fn send_action<T: Target + ?Sized>(
    s: &mut Session<T>,
    resolved: &Resolved,
    action: Action,
    data: Option<ActionData>,
) -> Result<Attempt, OpError> {
    let request = ActionRequest {
        action,
        target_tree: TreeId::ROOT,
        target_node: resolved.id,
        data,
    };
    Ok(match s.target.action(request)? {
        ActionOutcome::Handled => Attempt::Sent(
            json!({ "node": s.reference(resolved.id), "action": action_name(action) }),
        ),
        ActionOutcome::Unhandled => {
            let offered: Vec<&str> = resolved.actions.iter().map(|a| action_name(*a)).collect();
            Attempt::Skipped(format!(
                "the toolkit has no {} action on it (it offers [{}])",
                action_name(action),
                offered.join(", ")
            ))
        }
    })
}

/// A real click at a point proven to hit the node: the target's own proof where it has one
/// (it knows where its windows are), else the mirror's hit test at the node's visible centre.
fn by_pointer<T: Target + ?Sized>(
    s: &mut Session<T>,
    id: NodeId,
    intent: Intent,
    role: Role,
) -> Result<Attempt, OpError> {
    // A menu in a menu bar is the bar's title, which a person clicks to open it; its toolkit
    // may list no action on it (LibreOffice's Edit under load listed none).
    let in_bar = role == Role::Menu
        && s.mirror
            .node(id)
            .and_then(|n| n.parent())
            .is_some_and(|p| p.role() == Role::MenuBar);
    let role = if in_bar { Role::MenuItem } else { role };
    if !intent::pointer_applies(intent, role) {
        return Ok(Attempt::Skipped(format!(
            "a click does not {} a {role:?}",
            intent.spec().name
        )));
    }
    let data = |s: &Session<T>, at: Value| json!({ "node": s.reference(id), "clicked_at": at });
    // A pointer the target cannot drive here (a Wayland window it cannot place) is a means
    // that does not apply: the next one is tried.
    let unsupported = |e: OpError| {
        if e.code == ErrorCode::Unsupported {
            Ok(Attempt::Skipped(e.message))
        } else {
            Err(e)
        }
    };
    let hit = match super::pointer::click_in_view(s, id, PointerButton::Primary) {
        Ok(hit) => hit,
        Err(e) => return unsupported(e),
    };
    match hit {
        Hit::Clicked { x, y } => Ok(Attempt::Sent(data(s, json!({"x": x, "y": y})))),
        Hit::Missed(why) => Ok(Attempt::Skipped(why)),
        Hit::Unknown => match super::pointer::click_proven(s, id) {
            Ok(Ok(p)) => Ok(Attempt::Sent(data(s, json!({"x": p.x, "y": p.y})))),
            Ok(Err(why)) => Ok(Attempt::Skipped(why)),
            Err(e) => unsupported(e),
        },
    }
}

/// The keyboard: the focus on the node (by its own means), then the intent's keys.
fn by_keys<T: Target + ?Sized>(
    s: &mut Session<T>,
    node: &NodeTarget,
    id: NodeId,
    intent: Intent,
    role: Role,
    settle: &SettleSpec,
) -> Result<Attempt, OpError> {
    if intent == Intent::Focus {
        return tab_to(s, id, settle);
    }
    let keys = intent::keys_for(intent, role);
    if keys.is_empty() {
        return Ok(Attempt::Skipped(format!(
            "no key does {} on a {role:?}",
            intent.spec().name
        )));
    }
    // `+` in a plain table starts a search: only a cell that says it opens gets the key.
    if matches!(intent, Intent::Expand | Intent::Collapse)
        && matches!(role, Role::Cell | Role::GridCell)
        && s.mirror
            .node(id)
            .is_none_or(|n| n.data().is_expanded().is_none())
    {
        return Ok(Attempt::Skipped(
            "the cell does not say it can open or close".into(),
        ));
    }
    if intent != Intent::Focus
        && let Err(e) = carry_out(s, node, Intent::Focus, Reach::Keys, settle)
    {
        return match e.code {
            ErrorCode::NoEffect
            | ErrorCode::UnhandledAction
            | ErrorCode::NotVisible
            | ErrorCode::Disabled
            | ErrorCode::OutOfView => Ok(Attempt::Skipped(format!(
                "the focus could not be put on it ({})",
                e.message
            ))),
            _ => Err(e),
        };
    }
    let mut names = Vec::new();
    for k in keys {
        for pressed in [true, false] {
            s.target.key(&KeyEvent {
                key: *k,
                pressed,
                text: match k {
                    Key::Character(c) if pressed => Some(c.to_string()),
                    _ => k.default_text().filter(|_| pressed).map(str::to_string),
                },
                modifiers: Modifiers::default(),
            })?;
        }
        names.push(match k {
            Key::Named(n) => format!("{n:?}"),
            Key::Character(c) => c.to_string(),
        });
    }
    Ok(Attempt::Sent(
        json!({ "node": s.reference(id), "keys": names }),
    ))
}

/// Tab presses a node may be away from the focus.
const MAX_TABS: usize = 128;

/// Presses in a row that may leave the focus where the tree shows it before the walk stops.
const MAX_UNSEEN_MOVES: usize = 32;

/// How long one Tab's focus move is awaited.
const TAB_WAIT_MS: u64 = 250;

/// The focus moved with the target's focus key ([`Target::focus_key`]: Ctrl+Tab in GTK,
/// where a text area types a Tab; Tab in a browser), as a person moves it, until it lands on
/// `id` or comes round to where it started.
fn tab_to<T: Target + ?Sized>(
    s: &mut Session<T>,
    id: NodeId,
    settle: &SettleSpec,
) -> Result<Attempt, OpError> {
    let focus = |s: &Session<T>| {
        s.mirror
            .state()
            .and_then(|t| t.focus())
            .map(|f| f.locate().0)
    };
    let start = focus(s);
    // A focus move shows at once or not at all (a widget the tree does not list): a short
    // wait per press keeps a long walk to seconds.
    let settle = &SettleSpec {
        settle_timeout_ms: settle.settle_timeout_ms.min(TAB_WAIT_MS),
        ..*settle
    };
    let Some((key, modifiers)) = s.target.focus_key() else {
        return Ok(Attempt::Skipped(
            "this app has no key that moves the focus from every widget".into(),
        ));
    };
    let mut presses = 0usize;
    // Round once: the walk ends where it began, after the focus has left it. A focus the
    // tree does not show (a widget it does not list) may stay put for a few presses.
    let (mut left, mut still) = (false, 0usize);
    while presses < MAX_TABS && still < MAX_UNSEEN_MOVES {
        let was = focus(s);
        for pressed in [true, false] {
            s.target.key(&KeyEvent {
                key: Key::Named(key),
                pressed,
                text: None,
                modifiers,
            })?;
        }
        presses += 1;
        // The node itself is read again each time: a focus event the tree misses (GTK 4 moves
        // the focus through widgets it does not list) must not hide the landing.
        s.target.reread(id);
        effect::wait_until(s, settle, |s| focus(s) != was)?;
        let now = focus(s);
        if now == Some(id) || effect::focus_is_on(s, id) || (left && now == start) {
            break;
        }
        left |= now != start;
        still = if now == was { still + 1 } else { 0 };
    }
    let mut keys = KeysPressed::default();
    keys.add(
        format!("{}{key:?}", if modifiers.ctrl { "Ctrl+" } else { "" }),
        presses,
    );
    Ok(Attempt::Sent(
        json!({ "node": s.reference(id), "keys": keys.names() }),
    ))
}

/// The error when no means worked: what a person could have done is what was tried.
fn none_worked<T: Target + ?Sized>(
    s: &Session<T>,
    resolved: &Resolved,
    intent: Intent,
    tried: Vec<Value>,
    last_miss: Option<OpError>,
) -> OpError {
    let name = s
        .reference(resolved.id)
        .map_or_else(|| format!("node {}", resolved.id.0), |r| r.to_string());
    let summary: Vec<String> = tried
        .iter()
        .map(|t| {
            let means = t["means"].as_str().unwrap_or("?");
            match t.get("skipped").and_then(Value::as_str) {
                Some(why) => format!("{means}: {why}"),
                None => format!("{means}: sent, no change"),
            }
        })
        .collect();
    let error = match last_miss {
        // Something was sent and the node did not change: the effect is what is missing.
        Some(miss) => OpError::new(
            ErrorCode::NoEffect,
            format!(
                "{name} ({:?}) did not {} by any means: {}",
                resolved.role,
                intent.spec().name,
                summary.join("; ")
            ),
        )
        .with_hint("read_node it to see its state; it may need something done first (a dialog answered, a row selected)")
        .with_actual_expected(
            miss.actual.map(|v| *v).unwrap_or_default(),
            miss.expected.map(|v| *v).unwrap_or_default(),
        ),
        // Nothing could even be sent.
        None => OpError::new(
            ErrorCode::UnhandledAction,
            format!(
                "{name} ({:?}) offers no way to {}: {}",
                resolved.role,
                intent.spec().name,
                summary.join("; ")
            ),
        )
        .with_hint("check it is the widget you mean (read_node it); a person may use another widget for this"),
    };
    error.with_tried(Value::Array(tried))
}

/// A node of the mirror as an op's target.
pub(super) fn target_of(id: NodeId) -> NodeTarget {
    NodeTarget::Id(NodeKey(id.0))
}

/// The keys a keyboard means pressed, as its reply names them: a run of one key is one entry
/// with its count (`["Home", "ArrowDown ×3"]`), so a walk of forty presses stays one line.
#[derive(Default)]
pub(super) struct KeysPressed(Vec<(String, usize)>);

impl KeysPressed {
    /// One press of `key` (read back as [`press`] does), logged.
    pub(super) fn press<T: Target + ?Sized>(
        &mut self,
        s: &mut Session<T>,
        key: NamedKey,
        settle: &SettleSpec,
    ) -> Result<(), OpError> {
        press(s, key, settle)?;
        self.add(format!("{key:?}"), 1);
        Ok(())
    }

    /// `times` presses of the key called `name`, joined to the run before when it is the same.
    pub(super) fn add(&mut self, name: String, times: usize) {
        match self.0.last_mut() {
            Some((last, n)) if *last == name => *n += times,
            _ if times > 0 => self.0.push((name, times)),
            _ => {}
        }
    }

    /// How many presses in all.
    pub(super) fn count(&self) -> usize {
        self.0.iter().map(|(_, n)| n).sum()
    }

    /// The reply's `keys`.
    pub(super) fn names(&self) -> Vec<String> {
        self.0
            .iter()
            .map(|(key, n)| {
                if *n > 1 {
                    format!("{key} ×{n}")
                } else {
                    key.clone()
                }
            })
            .collect()
    }
}

/// One key press, then what it changed read back (settled briefly).
pub(super) fn press<T: Target + ?Sized>(
    s: &mut Session<T>,
    key: NamedKey,
    settle: &SettleSpec,
) -> Result<(), OpError> {
    let before = s.mirror.version();
    if let Some(focus) = s
        .mirror
        .state()
        .and_then(|t| t.focus())
        .map(|f| f.locate().0)
    {
        s.target.reread(focus);
    }
    for pressed in [true, false] {
        s.target.key(&KeyEvent {
            key: Key::Named(key),
            pressed,
            text: None,
            modifiers: Modifiers::default(),
        })?;
    }
    if s.target.clock() == ClockKind::Real {
        super::effect::wait_until(s, settle, |s| s.mirror.version() != before)?;
    } else {
        s.target.advance(crate::settle::FRAME_MILLIS)?;
        s.sync()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::KeysPressed;

    #[test]
    fn a_run_of_one_key_is_one_counted_entry_and_a_single_press_is_named_alone() {
        let mut keys = KeysPressed::default();
        keys.add("Home".into(), 1);
        keys.add("ArrowDown".into(), 1);
        keys.add("ArrowDown".into(), 2);
        keys.add("Enter".into(), 0);
        keys.add("ArrowUp".into(), 1);
        assert_eq!(keys.names(), ["Home", "ArrowDown ×3", "ArrowUp"]);
        assert_eq!(keys.count(), 5);
    }
}

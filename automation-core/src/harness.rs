//! A harness API for Rust app authors, on top of [`execute`](crate::execute).
//!
//! Compared with egui_kittest: queries return `Result` (zero or several matches are errors
//! that list candidates, never a panic), actions are fluent and settle explicitly with the
//! same [`SettleSpec`] the MCP tools take, and assertions are typed.
//!
//! ```
//! use automation_core::harness::{Harness, by_label, by_role};
//! use automation_testkit::fixture::DemoApp;
//!
//! let mut h = Harness::new(DemoApp::new()).unwrap();
//! h.click(by_role("Button").label("Save")).unwrap();
//! h.expect(by_role("Label").value("Saved")).exists().unwrap();
//! assert_eq!(h.announcements()[0].text, "Saved");
//! h.type_text(by_label("Name"), "Ada").unwrap();
//! h.expect(by_label("Name")).has_value("Ada").unwrap();
//! assert!(h.get(by_role("Button").label("Nope")).is_err());
//! ```

use serde_json::Value;

use crate::announce::Announcement;
use crate::catalog::Op;
use crate::error::{ErrorCode, OpError};
use crate::execute::{Session, execute};
use crate::node_ref::{NodeKey, NodeTarget, Selector};
use crate::ops::{self, AssertKind, FieldValue};
use crate::request::Reply;
use crate::settle::SettleSpec;
use crate::snapshot::{SemanticNode, semantic_node};
use crate::target::Target;

/// A selector with no constraint yet; chain `.label(..)`, `.role(..)`, …
pub fn select() -> Selector {
    Selector::default()
}

/// Nodes with this exact label.
pub fn by_label(label: impl Into<String>) -> Selector {
    select().label(label)
}

/// Nodes with this role (case-insensitive AccessKit name).
pub fn by_role(role: impl Into<String>) -> Selector {
    select().role(role)
}

impl Selector {
    /// Adds an exact label.
    #[must_use]
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }
    /// Adds a role.
    #[must_use]
    pub fn role(mut self, role: impl Into<String>) -> Self {
        self.role = Some(role.into());
        self
    }
    /// Adds a label substring (case-insensitive).
    #[must_use]
    pub fn label_contains(mut self, part: impl Into<String>) -> Self {
        self.label_contains = Some(part.into());
        self
    }
    /// Adds an exact value.
    #[must_use]
    pub fn value(mut self, value: impl Into<String>) -> Self {
        self.value = Some(value.into());
        self
    }
    /// Adds an author id.
    #[must_use]
    pub fn author_id(mut self, id: impl Into<String>) -> Self {
        self.author_id = Some(id.into());
        self
    }
    /// Only nodes inside the one node `scope` picks (one level: `scope` has no `within`).
    #[must_use]
    pub fn within(mut self, scope: Selector) -> Self {
        self.within = Some(Box::new(scope));
        self
    }
    /// Picks the n-th match (0-based).
    #[must_use]
    pub fn nth(mut self, n: usize) -> Self {
        self.nth = Some(n);
        self
    }
}

/// Drives a target through `execute` with a default settle.
pub struct Harness<T: Target> {
    /// The session (target + mirror).
    pub session: Session<T>,
    /// Settle used by the fluent actions.
    pub settle: SettleSpec,
}

impl<T: Target> Harness<T> {
    /// Wraps a target and reads its first tree.
    pub fn new(target: T) -> Result<Self, OpError> {
        let mut session = Session::new(target);
        session.sync()?;
        session.mirror.require_state()?;
        Ok(Self {
            session,
            settle: SettleSpec::default(),
        })
    }

    /// The target.
    pub fn target(&self) -> &T {
        &self.session.target
    }

    /// The target, mutably (changes show after the next op or [`Harness::settle`]).
    pub fn target_mut(&mut self) -> &mut T {
        &mut self.session.target
    }

    /// Runs any op with the harness settle.
    pub fn run(&mut self, op: Op) -> Result<Value, OpError> {
        let settle = self.settle;
        self.run_with(op, &settle)
    }

    /// Runs any op with an explicit settle.
    pub fn run_with(&mut self, op: Op, settle: &SettleSpec) -> Result<Value, OpError> {
        let reply: Reply = execute(&mut self.session, &op, settle);
        reply.into_result()
    }

    /// The single node a reference names (errors: NOT_FOUND / AMBIGUOUS with candidates).
    pub fn get(&self, node: impl Into<NodeTarget>) -> Result<SemanticNode, OpError> {
        let id = self.session.resolve(&node.into())?.id;
        self.session
            .mirror
            .node(id)
            .map(|n| semantic_node(&n, &self.session.mirror.refs))
            .ok_or_else(|| OpError::new(ErrorCode::NotFound, "node vanished"))
    }

    /// Every node a selector matches, in document order (empty is fine; an unknown role is
    /// `BAD_ARGUMENT`).
    pub fn query_all(&self, selector: &Selector) -> Result<Vec<SemanticNode>, OpError> {
        Ok(self
            .session
            .matches(selector)?
            .into_iter()
            .filter_map(|id| self.session.mirror.node(id))
            .map(|n| semantic_node(&n, &self.session.mirror.refs))
            .collect())
    }

    /// The durable selector for the node a reference names (see
    /// [`Session::durable_selector`]): what a test should say to find it next run.
    /// `UNSUPPORTED` says why there is none.
    pub fn selector(&self, node: impl Into<NodeTarget>) -> Result<Selector, OpError> {
        let id = self.session.resolve(&node.into())?.id;
        self.session.durable_selector(id).map_err(|why| {
            OpError::new(
                ErrorCode::Unsupported,
                format!("no durable selector: {why}"),
            )
            .with_hint("give the widget an accessible name or an author id (AccessKit author_id)")
        })
    }

    /// Id of the single matching node.
    pub fn id(&self, node: impl Into<NodeTarget>) -> Result<NodeKey, OpError> {
        Ok(self.session.resolve(&node.into())?.id.into())
    }

    fn node_op(
        &mut self,
        node: impl Into<NodeTarget>,
        make: impl FnOnce(NodeTarget) -> Op,
    ) -> Result<&mut Self, OpError> {
        let op = make(node.into());
        self.run(op)?;
        Ok(self)
    }

    /// Clicks (AccessKit `Click`).
    pub fn click(&mut self, node: impl Into<NodeTarget>) -> Result<&mut Self, OpError> {
        self.node_op(node, |node| {
            Op::InvokeAction(ops::InvokeAction {
                node,
                action: "click".into(),
            })
        })
    }

    /// Clicks with real pointer input at the node's centre.
    pub fn pointer_click(&mut self, node: impl Into<NodeTarget>) -> Result<&mut Self, OpError> {
        self.node_op(node, |node| {
            Op::InjectPointer(ops::InjectPointer {
                node: Some(node),
                ..Default::default()
            })
        })
    }

    /// Right-clicks.
    pub fn right_click(&mut self, node: impl Into<NodeTarget>) -> Result<&mut Self, OpError> {
        self.node_op(node, |node| Op::RightClick(ops::NodeArgs { node }))
    }

    /// Focuses.
    pub fn focus(&mut self, node: impl Into<NodeTarget>) -> Result<&mut Self, OpError> {
        self.node_op(node, |node| Op::FocusNode(ops::NodeArgs { node }))
    }

    /// Types text into a node, one key per character.
    pub fn type_text(
        &mut self,
        node: impl Into<NodeTarget>,
        text: &str,
    ) -> Result<&mut Self, OpError> {
        let text = text.to_string();
        self.node_op(node, |node| {
            Op::TypeText(ops::TypeText {
                node: Some(node),
                text,
            })
        })
    }

    /// Sets a text value.
    pub fn set_value(
        &mut self,
        node: impl Into<NodeTarget>,
        value: &str,
    ) -> Result<&mut Self, OpError> {
        let value = FieldValue::Text(value.to_string());
        self.node_op(node, |node| Op::SetValue(ops::SetValue { node, value }))
    }

    /// Sets a numeric value.
    pub fn set_number(
        &mut self,
        node: impl Into<NodeTarget>,
        value: f64,
    ) -> Result<&mut Self, OpError> {
        self.node_op(node, |node| {
            Op::SetValue(ops::SetValue {
                node,
                value: FieldValue::Number(value),
            })
        })
    }

    /// Expands.
    pub fn expand(&mut self, node: impl Into<NodeTarget>) -> Result<&mut Self, OpError> {
        self.node_op(node, |node| Op::Expand(ops::NodeArgs { node }))
    }

    /// Collapses.
    pub fn collapse(&mut self, node: impl Into<NodeTarget>) -> Result<&mut Self, OpError> {
        self.node_op(node, |node| Op::Collapse(ops::NodeArgs { node }))
    }

    /// Presses and releases a key by name (`enter`, `tab`, `a`, …).
    pub fn key(&mut self, key: &str) -> Result<&mut Self, OpError> {
        self.run(Op::InjectKey(ops::InjectKey {
            key: key.into(),
            ..Default::default()
        }))?;
        Ok(self)
    }

    /// Drags one node onto another.
    pub fn drag(
        &mut self,
        from: impl Into<NodeTarget>,
        to: impl Into<NodeTarget>,
    ) -> Result<&mut Self, OpError> {
        let to = to.into();
        self.node_op(from, |node| {
            Op::DragNode(ops::DragNode {
                node,
                to_node: Some(to),
                to_x: None,
                to_y: None,
            })
        })
    }

    /// Settles with the harness settle.
    pub fn settle(&mut self) -> Result<&mut Self, OpError> {
        self.run(Op::Settle(ops::NoArgs {}))?;
        Ok(self)
    }

    /// Advances the simulated clock.
    pub fn advance(&mut self, millis: u64) -> Result<&mut Self, OpError> {
        self.run(Op::AdvanceClock(ops::AdvanceClock { millis }))?;
        Ok(self)
    }

    /// Waits (on the simulated clock) until a node matching the selector exists.
    pub fn wait_for(&mut self, selector: &Selector, budget_ms: u64) -> Result<&mut Self, OpError> {
        let settle = SettleSpec {
            settle_timeout_ms: budget_ms,
            ..self.settle
        };
        let condition = ops::Condition::NodeExists(selector.clone());
        self.run_with(
            Op::WaitForCondition(ops::WaitForCondition { condition }),
            &settle,
        )?;
        Ok(self)
    }

    /// Announcements recorded so far.
    pub fn announcements(&self) -> Vec<Announcement> {
        self.session.mirror.announcements.since(None)
    }

    /// Typed assertions on one node.
    pub fn expect(&self, node: impl Into<NodeTarget>) -> Expect<'_, T> {
        Expect {
            harness: self,
            node: node.into(),
        }
    }
}

/// Assertions on one node; each returns `ASSERTION_FAILED` with actual and expected.
pub struct Expect<'h, T: Target> {
    harness: &'h Harness<T>,
    node: NodeTarget,
}

impl<T: Target> Expect<'_, T> {
    fn check(
        &self,
        kind: AssertKind,
        value: Option<String>,
        flag: Option<bool>,
    ) -> Result<(), OpError> {
        let op = ops::AssertNode {
            node: self.node.clone(),
            kind,
            value,
            flag,
        };
        crate::execute::assert_only(&self.harness.session, &op)
    }

    /// The node exists.
    pub fn exists(&self) -> Result<(), OpError> {
        self.check(AssertKind::Exists, None, None)
    }
    /// The node has focus.
    pub fn is_focused(&self) -> Result<(), OpError> {
        self.check(AssertKind::Focused, None, None)
    }
    /// Exact label.
    pub fn has_label(&self, label: &str) -> Result<(), OpError> {
        self.check(AssertKind::LabelEquals, Some(label.into()), None)
    }
    /// Label substring.
    pub fn label_contains(&self, part: &str) -> Result<(), OpError> {
        self.check(AssertKind::LabelContains, Some(part.into()), None)
    }
    /// Exact value.
    pub fn has_value(&self, value: &str) -> Result<(), OpError> {
        self.check(AssertKind::ValueEquals, Some(value.into()), None)
    }
    /// Role.
    pub fn has_role(&self, role: &str) -> Result<(), OpError> {
        self.check(AssertKind::RoleEquals, Some(role.into()), None)
    }
    /// Toggled state (mixed fails both).
    pub fn is_toggled(&self, on: bool) -> Result<(), OpError> {
        self.check(AssertKind::Toggled, None, Some(on))
    }
    /// Expanded state.
    pub fn is_expanded(&self, open: bool) -> Result<(), OpError> {
        self.check(AssertKind::Expanded, None, Some(open))
    }
    /// Selected state.
    pub fn is_selected(&self, selected: bool) -> Result<(), OpError> {
        self.check(AssertKind::Selected, None, Some(selected))
    }
    /// Disabled state.
    pub fn is_disabled(&self, disabled: bool) -> Result<(), OpError> {
        self.check(AssertKind::Disabled, None, Some(disabled))
    }
}

//! What an op sets on a node: a value (a number, text, a state asked for), and an option
//! picked by its name through the toolkit's `Selection`.

use accesskit::ActionData;
use atspi::Interface;
use automation_core::{ActionOutcome, TargetError};
use futures_lite::future::block_on;

use crate::map;
use crate::node::RawNode;
use crate::target::AtspiTarget;

impl AtspiTarget {
    /// Picks the option named `name` of combo `path` through its `Selection`, by the option's
    /// index among the combo's options (the Java wrapper's way: a click in its popup list only
    /// moves a highlight).
    pub(crate) fn select_by_name(
        &self,
        path: &str,
        name: &str,
    ) -> Result<ActionOutcome, TargetError> {
        use atspi::Role as R;
        let mut options = Vec::new();
        let mut stack: Vec<String> = self
            .tree
            .nodes
            .get(path)
            .map(|n| n.children.iter().rev().cloned().collect())
            .unwrap_or_default();
        while let Some(p) = stack.pop() {
            let Some(n) = self.tree.nodes.get(&p) else {
                continue;
            };
            if matches!(
                n.role,
                Some(R::ListItem | R::MenuItem | R::Label | R::TableCell)
            ) {
                options.push(n.name.trim().to_string());
            } else {
                stack.extend(n.children.iter().rev().cloned());
            }
        }
        let Some(index) = options.iter().position(|o| o == name.trim()) else {
            return Ok(ActionOutcome::Unhandled);
        };
        let index = i32::try_from(index).map_err(|e| TargetError::Ipc(e.to_string()))?;
        let done = self.call_bool(
            path,
            "org.a11y.atspi.Selection",
            "SelectChild",
            &(index,),
            "selecting the option",
        )?;
        self.events.touch_subtree(path);
        Ok(if done {
            ActionOutcome::Handled
        } else {
            ActionOutcome::Unhandled
        })
    }

    /// Selects `path` through its parent's `Selection` (a tab list's), by its index there;
    /// `false` when the parent has none, or refused.
    pub(crate) fn select_in_parent(&self, path: &str) -> Result<bool, TargetError> {
        let Some(parent) = self.tree.ancestors(path).into_iter().next() else {
            return Ok(false);
        };
        let Some(p) = self.tree.nodes.get(&parent) else {
            return Ok(false);
        };
        if !p.has(Interface::Selection) {
            return Ok(false);
        }
        let Some(index) = p.children.iter().position(|c| c == path) else {
            return Ok(false);
        };
        let index = i32::try_from(index).map_err(|e| TargetError::Ipc(e.to_string()))?;
        let done = self.call_bool(
            &parent,
            "org.a11y.atspi.Selection",
            "SelectChild",
            &(index,),
            "selecting the tab",
        )?;
        self.events.touch_subtree(&parent);
        Ok(done)
    }

    /// Sends the value and marks the node for a re-read. Whether the app took it is core's
    /// check (`NO_EFFECT` with the value it holds), made after settle has waited on the real
    /// clock for the change to land; here only "the call could not be made" is an error.
    pub(crate) fn set_value(
        &mut self,
        path: &str,
        raw: &RawNode,
        data: Option<ActionData>,
    ) -> Result<ActionOutcome, TargetError> {
        let wanted_text = match &data {
            Some(ActionData::Value(t)) => Some(t.to_string()),
            Some(ActionData::NumericValue(n)) => Some(automation_core::ops::number_as_typed(*n)),
            _ => None,
        };
        let wanted_number = match &data {
            Some(ActionData::NumericValue(n)) => Some(*n),
            Some(ActionData::Value(t)) => t.trim().parse::<f64>().ok(),
            _ => None,
        };
        if raw.role == Some(atspi::Role::ComboBox)
            && !raw.has(Interface::EditableText)
            && raw.has(Interface::Selection)
            && let Some(name) = &wanted_text
        {
            return self.select_by_name(path, name);
        }
        // A number goes to `Value` first: a spin button's text set through `EditableText`
        // waits for Enter or a focus change before it becomes its value (GTK 3).
        let numeric = matches!(
            raw.role,
            Some(atspi::Role::SpinButton | atspi::Role::Slider | atspi::Role::ScrollBar)
        );
        // A web page's number field: its `Value` setter changes it without the page's `input`
        // event (Firefox), and its `EditableText` writes nothing. Core types it, as a person.
        if numeric
            && raw.role == Some(atspi::Role::SpinButton)
            && matches!(
                self.toolkit_kind(),
                map::Toolkit::Gecko | map::Toolkit::Chromium
            )
        {
            return Ok(ActionOutcome::Unhandled);
        }
        let sent = if numeric
            && raw.has(Interface::Value)
            && let Some(n) = wanted_number
        {
            block_on(self.reader.call::<_, ()>(
                path,
                "org.freedesktop.DBus.Properties",
                "Set",
                &(
                    "org.a11y.atspi.Value",
                    "CurrentValue",
                    zbus::zvariant::Value::F64(n),
                ),
            ))
            .map_err(|e| self.classify(e, "setting the value"))
        } else if raw.has(Interface::EditableText) {
            let Some(text) = wanted_text else {
                return Ok(ActionOutcome::Unhandled);
            };
            // `false` (a read-only field) is not an error here: the read-back shows it.
            block_on(self.reader.call::<_, bool>(
                path,
                "org.a11y.atspi.EditableText",
                "SetTextContents",
                &(text.as_str(),),
            ))
            .map(drop)
            .map_err(|e| self.classify(e, "setting the text"))
        } else if raw.has(Interface::Value) {
            let Some(n) = wanted_number else {
                return Ok(ActionOutcome::Unhandled);
            };
            let value = zbus::zvariant::Value::F64(n);
            block_on(self.reader.call::<_, ()>(
                path,
                "org.freedesktop.DBus.Properties",
                "Set",
                &("org.a11y.atspi.Value", "CurrentValue", value),
            ))
            .map_err(|e| self.classify(e, "setting the value"))
        } else {
            return Ok(ActionOutcome::Unhandled);
        };
        sent?;
        self.events.touch(path);
        Ok(ActionOutcome::Handled)
    }
}

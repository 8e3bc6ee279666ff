//! The selector generator over a whole tree: every node with a role and a name must get a
//! selector that picks exactly it; for nameless nodes, how many do and why the rest do not.

use std::collections::BTreeMap;

use accesskit::Role;
use automation_core::{NodeTarget, Session, Target};

/// What the generator made of one tree.
#[derive(Debug, Default)]
pub struct Coverage {
    /// Nodes with a non-blank accessible name (text runs aside).
    pub named: usize,
    /// Of those, nodes whose generated selector picks exactly them.
    pub named_ok: usize,
    /// Named nodes without one, as `Role "name": why`.
    pub named_failures: Vec<String>,
    /// Nodes with no name.
    pub nameless: usize,
    /// Of those, nodes with a selector that picks exactly them.
    pub nameless_ok: usize,
    /// Why the other nameless nodes have none, with how many.
    pub reasons: BTreeMap<String, usize>,
    /// Selectors that resolved to another node, or failed to resolve (must stay empty).
    pub wrong: Vec<String>,
    /// Total length of the generated selectors' JSON, in bytes.
    pub total_len: usize,
    /// How many selectors were generated.
    pub generated: usize,
}

impl Coverage {
    /// Mean length of a generated selector's JSON, in bytes.
    pub fn mean_len(&self) -> f64 {
        self.total_len as f64 / self.generated.max(1) as f64
    }

    /// One line for a test's output.
    pub fn summary(&self, tree: &str) -> String {
        format!(
            "{tree}: named {}/{} ({:.0}%), nameless {}/{} ({:.0}%), mean selector {:.1} bytes; nameless without: {:?}",
            self.named_ok,
            self.named,
            100.0 * self.named_ok as f64 / self.named.max(1) as f64,
            self.nameless_ok,
            self.nameless,
            100.0 * self.nameless_ok as f64 / self.nameless.max(1) as f64,
            self.mean_len(),
            self.reasons
        )
    }
}

/// Runs the generator over every node of `session`'s current tree and resolves each
/// selector it makes, as an op would.
pub fn coverage<T: Target + ?Sized>(session: &Session<T>) -> Coverage {
    let mut out = Coverage::default();
    let Some(state) = session.mirror.state() else {
        return out;
    };
    let mut nodes = Vec::new();
    let mut stack = vec![state.root()];
    while let Some(node) = stack.pop() {
        stack.extend(node.children());
        if node.role() == Role::TextRun {
            continue;
        }
        let name =
            automation_core::snapshot::accessible_name(&node).filter(|n| !n.trim().is_empty());
        nodes.push((node.locate().0, node.role(), name));
    }
    let made = session.durable_selectors(nodes.iter().map(|(id, _, _)| *id));
    for ((id, role, name), made) in nodes.into_iter().zip(made) {
        let named = name.is_some();
        if named {
            out.named += 1;
        } else {
            out.nameless += 1;
        }
        match made {
            Ok(sel) => {
                out.generated += 1;
                out.total_len += serde_json::to_string(&sel).map_or(0, |s| s.len());
                match session.resolve(&NodeTarget::Select(sel.clone())) {
                    Ok(r) if r.id == id => {
                        if named {
                            out.named_ok += 1;
                        } else {
                            out.nameless_ok += 1;
                        }
                    }
                    Ok(r) => out
                        .wrong
                        .push(format!("{sel} picks node {} not {}", r.id.0, id.0)),
                    Err(e) => out.wrong.push(format!("{sel}: {}", e.message)),
                }
            }
            Err(why) if named => out
                .named_failures
                .push(format!("{role:?} {:?}: {why}", name.unwrap_or_default())),
            Err(why) => {
                // The reason names the role ("a GenericContainer with no name…"): the table
                // says which roles go without.
                *out.reasons.entry(why.reason).or_default() += 1;
            }
        }
    }
    out
}

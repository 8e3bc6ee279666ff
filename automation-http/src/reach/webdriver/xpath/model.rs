//! The page as XPath's data model (xpath-eval's `Node` trait), with a meter on every step:
//! each child list, attribute list, parent, name, string-value, comparison and ordering an
//! evaluation asks for is charged, and once the budget, the deadline or a cancellation
//! stops the meter, every axis answers empty — the evaluation then runs out in moments, and
//! its answer is discarded.
//!
//! The arena holds the root, the `<App>` element, each page element and each attribute in
//! document order (an element, its attributes, then its children), so document order is
//! the index order.

use std::cell::Cell;
use std::cmp::Ordering;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering as Atomic};
use std::time::Instant;

use xpath_eval::{Document, ExpandedName, Node, NodeKind};

use super::super::source::{Page, ROOT};

/// Why a metered evaluation stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// It took more steps than its budget.
    Budget(u64),
    /// It ran past its deadline.
    Time,
    /// Whoever asked went away.
    Cancelled,
}

/// The limits one evaluation runs under.
#[derive(Debug, Clone)]
pub struct Meter {
    spent: Cell<u64>,
    budget: u64,
    deadline: Instant,
    cancel: Arc<AtomicBool>,
    stop: Cell<Option<Stop>>,
}

impl Meter {
    /// `budget` steps, until `deadline`, unless `cancel` is set.
    pub fn new(budget: u64, deadline: Instant, cancel: Arc<AtomicBool>) -> Self {
        Self {
            spent: Cell::new(0),
            budget,
            deadline,
            cancel,
            stop: Cell::new(None),
        }
    }

    /// Charges `n` steps; whether the evaluation may go on.
    fn charge(&self, n: u64) -> bool {
        if self.stop.get().is_some() {
            return false;
        }
        let before = self.spent.get();
        let after = before.saturating_add(n);
        self.spent.set(after);
        let stop = if after > self.budget {
            Some(Stop::Budget(self.budget))
        } else if before / 1024 != after / 1024 {
            // The clock and the flag are read once per 1 024 steps.
            if self.cancel.load(Atomic::Relaxed) {
                Some(Stop::Cancelled)
            } else if Instant::now() >= self.deadline {
                Some(Stop::Time)
            } else {
                None
            }
        } else {
            None
        };
        self.stop.set(stop);
        stop.is_none()
    }

    /// Why it stopped, if it did.
    pub fn stopped(&self) -> Option<Stop> {
        self.stop.get()
    }

    /// Steps spent.
    pub fn spent(&self) -> u64 {
        self.spent.get()
    }
}

#[derive(Debug)]
struct Slot<'p> {
    kind: NodeKind,
    name: &'p str,
    /// An attribute's value (elements hold no text: their string-value is empty).
    value: &'p str,
    parent: u32,
    children: Vec<u32>,
    /// The element's attribute slots, `first..end`.
    attributes: (u32, u32),
}

/// The page's nodes, and the meter their steps are charged to.
#[derive(Debug)]
pub struct Arena<'p> {
    slots: Vec<Slot<'p>>,
    /// Each page element's slot, in page order.
    pub elements: Vec<u32>,
    /// The meter.
    pub meter: Meter,
}

impl<'p> Arena<'p> {
    /// The arena of `page`, charged to `meter`.
    pub fn new(page: &'p Page, meter: Meter) -> Self {
        let mut slots: Vec<Slot<'p>> = Vec::with_capacity(page.elements.len() * 10 + 3);
        slots.push(Slot {
            kind: NodeKind::Root,
            name: "",
            value: "",
            parent: 0,
            children: vec![1],
            attributes: (0, 0),
        });
        let add_element = |slots: &mut Vec<Slot<'p>>,
                           name: &'p str,
                           parent: u32,
                           attributes: &mut dyn Iterator<Item = (&'p str, &'p str)>|
         -> u32 {
            let id = u32::try_from(slots.len()).unwrap_or(u32::MAX);
            slots.push(Slot {
                kind: NodeKind::Element,
                name,
                value: "",
                parent,
                children: Vec::new(),
                attributes: (0, 0),
            });
            for (k, v) in attributes {
                slots.push(Slot {
                    kind: NodeKind::Attribute,
                    name: k,
                    value: v,
                    parent: id,
                    children: Vec::new(),
                    attributes: (0, 0),
                });
            }
            let end = u32::try_from(slots.len()).unwrap_or(u32::MAX);
            if let Some(e) = slots.get_mut(id as usize) {
                e.attributes = (id + 1, end);
            }
            id
        };
        let app = add_element(
            &mut slots,
            ROOT,
            0,
            &mut std::iter::once(("name", page.app.as_str())),
        );
        // The open elements by depth: `open[d - 1]` is the parent of an element at depth d.
        let mut open: Vec<u32> = vec![app];
        let mut elements = Vec::with_capacity(page.elements.len());
        for e in &page.elements {
            open.truncate(e.depth.max(1));
            let parent = open.last().copied().unwrap_or(app);
            let id = add_element(
                &mut slots,
                &e.name,
                parent,
                &mut e.attributes.iter().map(|(k, v)| (*k, v.as_str())),
            );
            if let Some(p) = slots.get_mut(parent as usize) {
                p.children.push(id);
            }
            open.push(id);
            elements.push(id);
        }
        Self {
            slots,
            elements,
            meter,
        }
    }

    /// The node of slot `id`.
    pub fn node(&self, id: u32) -> PageNode<'_> {
        PageNode { arena: self, id }
    }

    fn slot(&self, id: u32) -> Option<&Slot<'p>> {
        self.slots.get(id as usize)
    }

    /// The `ref` of an element node, if it has one.
    pub fn reference(&self, node: PageNode<'_>) -> Option<&'p str> {
        let slot = self.slot(node.id)?;
        (slot.attributes.0..slot.attributes.1)
            .filter_map(|a| self.slot(a))
            .find(|a| a.name == "ref")
            .map(|a| a.value)
    }

    /// Whether `node` is the root `<App>` element.
    pub fn is_app(&self, node: PageNode<'_>) -> bool {
        node.id == 1
    }
}

impl Document for Arena<'_> {
    type N<'a>
        = PageNode<'a>
    where
        Self: 'a;

    fn root(&self) -> PageNode<'_> {
        self.node(0)
    }
}

/// A node of the page, as xpath-eval walks it.
#[derive(Clone, Copy)]
pub struct PageNode<'a> {
    arena: &'a Arena<'a>,
    id: u32,
}

impl PartialEq for PageNode<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.arena.meter.charge(1);
        self.id == other.id
    }
}

impl Eq for PageNode<'_> {}

impl<'a> PageNode<'a> {
    fn slot(self) -> Option<&'a Slot<'a>> {
        self.arena.slot(self.id)
    }

    /// The element (or attribute) kind.
    pub fn is_element(self) -> bool {
        self.slot().is_some_and(|s| s.kind == NodeKind::Element)
    }

    fn ids(self, ids: impl Iterator<Item = u32> + 'a) -> impl Iterator<Item = Self> + 'a {
        let arena = self.arena;
        ids.map(move |id| PageNode { arena, id })
    }
}

impl<'a> Node<'a> for PageNode<'a> {
    fn kind(self) -> NodeKind {
        self.slot().map_or(NodeKind::Root, |s| s.kind)
    }

    fn parent(self) -> Option<Self> {
        let slot = self.slot()?;
        (self.arena.meter.charge(1) && self.id != 0).then_some(PageNode {
            arena: self.arena,
            id: slot.parent,
        })
    }

    fn children(self) -> impl Iterator<Item = Self> + 'a {
        let list: &'a [u32] = match self.slot() {
            Some(s) if self.arena.meter.charge(1 + s.children.len() as u64) => &s.children,
            _ => &[],
        };
        self.ids(list.iter().copied())
    }

    fn attributes(self) -> impl Iterator<Item = Self> + 'a {
        let range = match self.slot() {
            Some(s)
                if self
                    .arena
                    .meter
                    .charge(1 + u64::from(s.attributes.1 - s.attributes.0)) =>
            {
                s.attributes.0..s.attributes.1
            }
            _ => 0..0,
        };
        self.ids(range)
    }

    fn namespaces(self) -> impl Iterator<Item = Self> + 'a {
        std::iter::empty()
    }

    fn expanded_name(self) -> Option<ExpandedName> {
        let slot = self.slot()?;
        self.arena.meter.charge(1);
        matches!(slot.kind, NodeKind::Element | NodeKind::Attribute).then(|| ExpandedName {
            namespace_uri: None,
            local_name: slot.name.to_string(),
        })
    }

    fn has_expanded_name(self, namespace_uri: Option<&str>, local_name: &str) -> bool {
        self.arena.meter.charge(1);
        self.slot().is_some_and(|s| {
            matches!(s.kind, NodeKind::Element | NodeKind::Attribute)
                && namespace_uri.is_none()
                && s.name == local_name
        })
    }

    fn string_value(self) -> String {
        self.with_string_value(str::to_string)
    }

    fn with_string_value<R>(self, f: impl FnOnce(&str) -> R) -> R {
        let value = self.slot().map_or("", |s| s.value);
        // Long values cost in proportion: comparing them is work too.
        if self.arena.meter.charge(1 + value.len() as u64 / 64) {
            f(value)
        } else {
            f("")
        }
    }

    fn document_order(self, other: Self) -> Ordering {
        self.arena.meter.charge(1);
        self.id.cmp(&other.id)
    }
}

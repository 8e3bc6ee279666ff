//! The app's events, drained by one task that never stops reading.
//!
//! zbus hands every incoming message to every stream of a connection; a stream nobody polls
//! fills up and stalls the connection, method replies included. So events come in on a
//! connection of their own, read by one thread that only moves them into a bounded set of
//! "objects that changed" (never awaiting a D-Bus call in that loop), and counts what it had
//! to collapse. The target takes that set when it polls the tree.
//!
//! Once the target has read the tree, only events about objects it holds are kept
//! ([`Events::know`]): a big app announces changes on objects nobody reads (LibreOffice Calc
//! makes a new object for a cell each time one is asked for, and announces each), and those
//! would otherwise fill the set and force a full re-read. A window event about an object the
//! tree does not hold yet (a popup just opened) counts as a change of the application's
//! children.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use zbus::Connection;
use zbus::message::Type;

/// Distinct changed objects held before the set collapses into "re-read everything".
pub const CAPACITY: usize = 4096;

/// What changed on one object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// Its own properties (name, states, value, text, bounds).
    Node,
    /// Its children.
    Children,
    /// Everything under it: it became shown or hidden, opened or closed (a popup menu, a page,
    /// a window), and toolkits send no event for each descendant whose states follow; or an
    /// op sent to it may have changed what it holds.
    Subtree,
}

/// States whose change on an object changes its descendants' too.
const SUBTREE_STATES: &[&str] = &["showing", "visible", "expanded", "collapsed"];

/// Changes since the target last took them.
#[derive(Debug, Default)]
pub struct Pending {
    /// Changed objects, by path.
    pub changed: HashMap<String, Change>,
    /// Too many changes to track one by one: re-read the whole tree.
    pub everything: bool,
    /// Events folded into `everything` because the set was full.
    pub dropped: u64,
    /// Events seen in all.
    pub seen: u64,
    /// The app left the bus (its name lost its owner): why.
    pub gone: Option<String>,
}

/// The objects whose events are kept, and the application object.
#[derive(Debug, Default)]
struct Known {
    root: String,
    paths: Option<HashSet<String>>,
}

/// The shared set and its signal.
#[derive(Debug, Default)]
pub struct Events {
    state: Mutex<Pending>,
    ready: Condvar,
    known: RwLock<Known>,
}

impl Events {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        // A poisoned lock only means a drain thread panicked mid-insert: the data is a set of
        // paths and stays usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// From now on, keeps only events about `paths` (and window events, as a change of
    /// `root`'s children).
    pub fn know(&self, root: &str, paths: HashSet<String>) {
        let mut k = self.known.write().unwrap_or_else(|e| e.into_inner());
        k.root = root.to_string();
        k.paths = Some(paths);
    }

    /// Records an event about `path`, if it concerns the tree.
    fn event(&self, path: &str, change: Change, window: bool) {
        let root = {
            let k = self.known.read().unwrap_or_else(|e| e.into_inner());
            match &k.paths {
                Some(paths) if !paths.contains(path) => {
                    if !window {
                        self.lock().seen += 1;
                        return;
                    }
                    Some(k.root.clone())
                }
                _ => None,
            }
        };
        match root {
            Some(root) => self.record(&root, Change::Children),
            None => self.record(path, change),
        }
    }

    fn record(&self, path: &str, change: Change) {
        let mut p = self.lock();
        p.seen += 1;
        if p.everything {
            p.dropped += 1;
        } else if let Some(c) = p.changed.get_mut(path) {
            *c = (*c).max(change);
        } else if p.changed.len() >= CAPACITY {
            p.everything = true;
            p.dropped += 1;
            p.changed.clear();
        } else {
            p.changed.insert(path.to_string(), change);
        }
        drop(p);
        self.ready.notify_all();
    }

    /// Marks `path` for a re-read on the next poll (an op the target sent itself may change
    /// it before, or without, an event saying so). Not counted as an event.
    pub fn touch(&self, path: &str) {
        self.touch_as(path, Change::Node);
    }

    /// Marks `path` and everything under it for a re-read on the next poll (a click may open
    /// what it holds: a menu, a page).
    pub fn touch_subtree(&self, path: &str) {
        self.touch_as(path, Change::Subtree);
    }

    /// Marks `path`'s children for a re-read on the next poll.
    pub fn touch_as_children(&self, path: &str) {
        self.touch_as(path, Change::Children);
    }

    /// Marks `path` for a re-read of `change` on the next poll. Not counted as an event.
    pub fn touch_as(&self, path: &str, change: Change) {
        let mut p = self.lock();
        if !p.everything && (p.changed.len() < CAPACITY || p.changed.contains_key(path)) {
            let c = p.changed.entry(path.to_string()).or_insert(change);
            *c = (*c).max(change);
        }
    }

    fn gone(&self, why: String) {
        self.lock().gone = Some(why);
        self.ready.notify_all();
    }

    /// Takes the changes (leaving `gone` set once it is).
    pub fn take(&self) -> Pending {
        let mut p = self.lock();
        let gone = p.gone.clone();
        let seen = p.seen;
        let dropped = p.dropped;
        let mut out = std::mem::take(&mut *p);
        p.gone = gone;
        p.seen = seen;
        p.dropped = dropped;
        out.seen = seen;
        out
    }

    /// Whether the app has left the bus.
    pub fn is_gone(&self) -> Option<String> {
        self.lock().gone.clone()
    }

    /// Counters: events seen, events collapsed.
    pub fn counts(&self) -> (u64, u64) {
        let p = self.lock();
        (p.seen, p.dropped)
    }

    /// Blocks until a change is pending (or the app is gone) or `timeout` passes.
    pub fn wait(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut p = self.lock();
        loop {
            if !p.changed.is_empty() || p.everything || p.gone.is_some() {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            p = match self.ready.wait_timeout(p, deadline - now) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
    }
}

fn change_of(member: &str) -> Option<Change> {
    match member {
        "ChildrenChanged" => Some(Change::Children),
        "StateChanged"
        | "PropertyChange"
        | "TextChanged"
        | "BoundsChanged"
        | "TextCaretMoved"
        | "SelectionChanged"
        | "ActiveDescendantChanged"
        | "AttributesChanged"
        // What the Java ATK wrapper sends when a label's text changes, and nothing else.
        | "VisibleDataChanged" => Some(Change::Node),
        _ => None,
    }
}

/// Subscribes to `app`'s object and window events and to its leaving the bus, on `events`
/// (a connection used for nothing else), and starts the drain thread.
pub fn start(events: Connection, app: String) -> Result<Arc<Events>, String> {
    let shared = Arc::new(Events::default());
    let sink = shared.clone();
    let stream = zbus::MessageStream::from(&events);
    let app_for_thread = app.clone();
    std::thread::Builder::new()
        .name("automation-atspi-events".into())
        .spawn(move || {
            futures_lite::future::block_on(drain(stream, app_for_thread, sink));
        })
        .map_err(|e| format!("cannot start the event thread: {e}"))?;
    futures_lite::future::block_on(subscribe(&events, &app))
        .map_err(|e| format!("cannot subscribe to the app's events: {e}"))?;
    Ok(shared)
}

async fn subscribe(conn: &Connection, app: &str) -> zbus::Result<()> {
    let dbus = zbus::fdo::DBusProxy::new(conn).await?;
    for rule in [
        format!("type='signal',interface='org.a11y.atspi.Event.Object',sender='{app}'"),
        format!("type='signal',interface='org.a11y.atspi.Event.Window',sender='{app}'"),
        format!(
            "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='{app}'"
        ),
    ] {
        let rule = zbus::MatchRule::try_from(rule.as_str())?;
        dbus.add_match_rule(rule).await?;
    }
    // Toolkit bridges (atk-bridge, Qt) only emit the events some listener registered for.
    // Registered once per connection; never deregistered in a loop (atspi's remove_match_rule
    // adds a rule instead of removing it, and the registry drops us when we disconnect).
    let registry = atspi::proxy::registry::RegistryProxy::new(conn).await?;
    for event in ["object:", "window:"] {
        registry.register_event(event).await?;
    }
    Ok(())
}

async fn drain(mut stream: zbus::MessageStream, app: String, sink: Arc<Events>) {
    while let Some(msg) = stream.next().await {
        let Ok(msg) = msg else { continue };
        let header = msg.header();
        if header.message_type() != Type::Signal {
            continue;
        }
        let Some(member) = header.member().map(|m| m.as_str().to_string()) else {
            continue;
        };
        if member == "NameOwnerChanged" {
            if let Ok((name, _old, new)) = msg.body().deserialize::<(String, String, String)>()
                && name == app
                && new.is_empty()
            {
                sink.gone(format!("{app} left the accessibility bus (the app exited)"));
            }
            continue;
        }
        if header.sender().map(|s| s.as_str()) != Some(app.as_str()) {
            continue;
        }
        let Some(path) = header.path().map(|p| p.as_str().to_string()) else {
            continue;
        };
        let window = header.interface().map(|i| i.as_str()) == Some("org.a11y.atspi.Event.Window");
        let change = if window {
            Some(Change::Node)
        } else if member == "StateChanged" && SUBTREE_STATES.contains(&detail(&msg).as_str()) {
            Some(Change::Subtree)
        } else {
            change_of(&member)
        };
        if let Some(c) = change {
            sink.event(&path, c, window);
        }
    }
    sink.gone(format!("the event connection for {app} closed"));
}

/// An object event's detail (its first argument: the state of a `StateChanged`).
fn detail(msg: &zbus::Message) -> String {
    let body = msg.body();
    body.deserialize::<(
        String,
        i32,
        i32,
        zbus::zvariant::OwnedValue,
        HashMap<String, zbus::zvariant::OwnedValue>,
    )>()
    .map(|b| b.0)
    .or_else(|_| {
        body.deserialize::<(String, i32, i32, zbus::zvariant::OwnedValue)>()
            .map(|b| b.0)
    })
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_set_collapses_when_full_and_counts_what_it_dropped() {
        let e = Events::default();
        for i in 0..(CAPACITY + 10) {
            e.record(&format!("/o/{i}"), Change::Node);
        }
        let p = e.take();
        assert!(p.everything);
        assert_eq!(p.dropped, 10);
        assert!(p.changed.is_empty());
        assert!(!e.wait(Duration::from_millis(1)));
    }

    #[test]
    fn children_changes_win_over_node_changes() {
        let e = Events::default();
        e.record("/a", Change::Node);
        e.record("/a", Change::Children);
        e.record("/a", Change::Node);
        assert_eq!(e.take().changed.get("/a"), Some(&Change::Children));
    }

    #[test]
    fn once_the_tree_is_known_only_its_objects_count() {
        let e = Events::default();
        e.event("/any", Change::Node, false);
        assert!(e.take().changed.contains_key("/any"));
        e.know("/root", HashSet::from(["/a".to_string()]));
        e.event("/a", Change::Node, false);
        e.event("/transient", Change::Children, false);
        e.event("/popup", Change::Node, true);
        let p = e.take();
        assert_eq!(p.changed.len(), 2, "{:?}", p.changed);
        assert_eq!(p.changed.get("/a"), Some(&Change::Node));
        assert_eq!(p.changed.get("/root"), Some(&Change::Children));
        assert_eq!(p.seen, 4);
    }

    #[test]
    fn gone_wakes_a_waiter_and_stays() {
        let e = Arc::new(Events::default());
        let e2 = e.clone();
        let t = std::thread::spawn(move || e2.wait(Duration::from_secs(5)));
        std::thread::sleep(Duration::from_millis(20));
        e.gone("bye".into());
        assert!(t.join().unwrap());
        assert!(e.take().gone.is_some());
        assert!(e.is_gone().is_some());
    }
}

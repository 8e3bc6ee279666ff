//! Reading an app's accessible objects over the bus: in bulk, in parallel, bounded.
//!
//! One object costs one round of concurrent calls (role, states, name, description,
//! interfaces, children, relations) and then one more round for the interfaces it has
//! (extents, actions, value, text). Up to [`CONCURRENCY`] objects are in flight at once: the
//! bus pipelines the calls, and the bound keeps toolkits from answering "interface not
//! present" under load. Every proxy names its destination explicitly (atspi's P2P helper
//! builds proxies without one, so every call to a GTK4 app fails with `ServiceUnknown`), and
//! no proxy caches properties (that would cost a `GetAll` and a match rule per object).

use std::collections::HashMap;

use atspi::proxy::accessible::AccessibleProxy;
use atspi::proxy::action::ActionProxy;
use atspi::proxy::component::ComponentProxy;
use atspi::proxy::text::TextProxy;
use atspi::proxy::value::ValueProxy;
use atspi::{CoordType, Interface, InterfaceSet, RelationType, Role, StateSet};
use futures_util::stream::{FuturesUnordered, StreamExt};
use zbus::Connection;
use zbus::proxy::{Builder, CacheProperties, Defaults};

/// Objects fetched at once.
pub const CONCURRENCY: usize = 24;

/// Longest text read from one object (characters).
pub const TEXT_CAP: usize = 4096;

/// An object's text, its first [`TEXT_CAP`] characters. Asked for to the end (`-1`):
/// AccessKit (eframe) refuses an end offset past the text ("Index is too big"), GTK and Qt
/// accept both.
pub async fn read_text(t: &TextProxy<'_>) -> zbus::Result<String> {
    let text = t.get_text(0, -1).await?;
    Ok(match text.char_indices().nth(TEXT_CAP) {
        Some((cut, _)) => text[..cut].to_string(),
        None => text,
    })
}

/// A node deeper than this is not walked (a cycle in a broken toolkit tree ends here).
pub const MAX_DEPTH: usize = 64;

/// Most objects read in one walk.
pub const MAX_NODES: usize = 20_000;

/// One object as the app reports it.
#[derive(Debug, Clone, Default)]
pub struct RawNode {
    /// Object path (the app's bus name is the target's).
    pub path: String,
    /// Role.
    pub role: Option<Role>,
    /// States.
    pub states: StateSet,
    /// Accessible name.
    pub name: String,
    /// Accessible description.
    pub description: String,
    /// Interfaces it implements.
    pub ifaces: InterfaceSet,
    /// Child object paths, in order (children on another bus name are left out).
    pub children: Vec<String>,
    /// Extents in window coordinates `(x, y, w, h)`.
    pub extents: Option<(i32, i32, i32, i32)>,
    /// Toolkit action names, by index.
    pub actions: Vec<String>,
    /// `Value`: current, minimum, maximum, minimum increment.
    pub value: Option<[f64; 4]>,
    /// `Text` contents, when read.
    pub text: Option<String>,
    /// Objects that label this one.
    pub labelled_by: Vec<String>,
}

impl RawNode {
    /// Whether it implements `iface`.
    pub fn has(&self, iface: Interface) -> bool {
        self.ifaces.contains(iface)
    }
}

/// A proxy of type `P` for `path` on `dest`, without property caching.
pub async fn proxy<'a, P>(conn: &Connection, dest: &'a str, path: &'a str) -> zbus::Result<P>
where
    P: From<zbus::Proxy<'a>> + Defaults,
{
    Builder::<P>::new(conn)
        .destination(dest)?
        .path(path)?
        .cache_properties(CacheProperties::No)
        .build()
        .await
}

fn same_app(dest: &str, r: &atspi::ObjectRefOwned) -> Option<String> {
    if r.is_null() {
        return None;
    }
    match r.name_as_str() {
        Some(n) if n != dest => None,
        _ => Some(r.path_as_str().to_string()),
    }
}

/// Reads one object. `read_text` decides, from the role, whether its text is worth a call.
pub async fn node(conn: &Connection, dest: &str, path: &str) -> zbus::Result<RawNode> {
    let acc: AccessibleProxy<'_> = proxy(conn, dest, path).await?;
    let (role, states, name, description, ifaces, children, relations) = futures_lite::future::zip(
        futures_lite::future::zip(
            futures_lite::future::zip(acc.get_role(), acc.get_state()),
            futures_lite::future::zip(acc.name(), acc.description()),
        ),
        futures_lite::future::zip(
            futures_lite::future::zip(acc.get_interfaces(), acc.get_children()),
            acc.get_relation_set(),
        ),
    )
    .await
    .pipe(|(((r, s), (n, d)), ((i, c), rel))| (r, s, n, d, i, c, rel));
    let role = role?;
    let ifaces = ifaces?;
    let mut raw = RawNode {
        path: path.to_string(),
        role: Some(role),
        states: states?,
        // A nameless object may fail `Name` on some toolkits: an empty name, not an error.
        name: name.unwrap_or_default(),
        description: description.unwrap_or_default(),
        ifaces,
        children: children?.iter().filter_map(|c| same_app(dest, c)).collect(),
        labelled_by: relations
            .unwrap_or_default()
            .into_iter()
            .filter(|(t, _)| *t == RelationType::LabelledBy)
            .flat_map(|(_, targets)| targets)
            .filter_map(|t| same_app(dest, &t))
            .collect(),
        ..RawNode::default()
    };
    let want_text =
        raw.has(Interface::Text) && (crate::map::text_is_value(role) || raw.name.is_empty());
    let extents = async {
        if raw.has(Interface::Component) {
            let c: ComponentProxy<'_> = proxy(conn, dest, path).await?;
            c.get_extents(CoordType::Window).await.map(Some)
        } else {
            Ok(None)
        }
    };
    let actions = async {
        if raw.has(Interface::Action) {
            let a: ActionProxy<'_> = proxy(conn, dest, path).await?;
            a.get_actions()
                .await
                .map(|v| v.into_iter().map(|a| a.name).collect())
        } else {
            Ok(Vec::new())
        }
    };
    let value = async {
        if raw.has(Interface::Value) {
            let v: ValueProxy<'_> = proxy(conn, dest, path).await?;
            let ((cur, min), (max, step)) = futures_lite::future::zip(
                futures_lite::future::zip(v.current_value(), v.minimum_value()),
                futures_lite::future::zip(v.maximum_value(), v.minimum_increment()),
            )
            .await;
            Ok::<_, zbus::Error>(Some([cur?, min?, max?, step.unwrap_or(0.0)]))
        } else {
            Ok(None)
        }
    };
    let text = async {
        if want_text {
            let t: TextProxy<'_> = proxy(conn, dest, path).await?;
            read_text(&t).await.map(Some)
        } else {
            Ok(None)
        }
    };
    let ((extents, actions), (value, text)) = futures_lite::future::zip(
        futures_lite::future::zip(extents, actions),
        futures_lite::future::zip(value, text),
    )
    .await;
    // An interface listed but failing (a widget being destroyed, a toolkit under load) leaves
    // that field empty rather than failing the whole tree.
    raw.extents = extents.ok().flatten();
    raw.actions = actions.unwrap_or_default();
    raw.value = value.ok().flatten();
    raw.text = text.ok().flatten();
    Ok(raw)
}

trait Pipe: Sized {
    fn pipe<T>(self, f: impl FnOnce(Self) -> T) -> T {
        f(self)
    }
}
impl<T> Pipe for T {}

/// Walks the subtree under `root` breadth first, [`CONCURRENCY`] objects at a time. An object
/// that fails to read (it vanished mid-walk) is left out with its subtree; the root failing
/// fails the walk.
pub async fn subtree(
    conn: &Connection,
    dest: &str,
    root: &str,
) -> zbus::Result<HashMap<String, RawNode>> {
    let first = node(conn, dest, root).await?;
    let mut out: HashMap<String, RawNode> = HashMap::new();
    let mut queue: Vec<(String, usize)> = first.children.iter().map(|c| (c.clone(), 1)).collect();
    out.insert(root.to_string(), first);
    let mut running = FuturesUnordered::new();
    loop {
        while running.len() < CONCURRENCY {
            let Some((path, depth)) = queue.pop() else {
                break;
            };
            if out.contains_key(&path) || depth > MAX_DEPTH || out.len() >= MAX_NODES {
                continue;
            }
            running.push(async move {
                let r = node(conn, dest, &path).await;
                (path, depth, r)
            });
        }
        let Some((path, depth, r)) = running.next().await else {
            break;
        };
        if let Ok(n) = r {
            queue.extend(n.children.iter().map(|c| (c.clone(), depth + 1)));
            out.insert(path, n);
        }
    }
    // A child that failed to read is dropped from its parent's list so the tree stays whole.
    let present: std::collections::HashSet<String> = out.keys().cloned().collect();
    for n in out.values_mut() {
        n.children.retain(|c| present.contains(c));
    }
    Ok(out)
}

//! Reading an app's accessible objects: in bulk where the toolkit serves it, else in
//! parallel, bounded, with as few calls per object as the bus allows.
//!
//! - **Connection**: a toolkit that offers a peer-to-peer socket
//!   (`Application.GetApplicationBusAddress`: GTK3's atk-bridge) is read over it, skipping
//!   the bus daemon's two hops per call; everything else over the accessibility bus.
//! - **Bulk seeds**: a toolkit that serves `Cache.GetItems` (GTK3, GTK4) gives role, name,
//!   description, states, interfaces and parent of every object it has exported so far in
//!   one call ([`crate::cache`]); those objects skip the first round below.
//! - **Walk**: breadth first, [`CONCURRENCY`] objects in flight. An object the cache did not
//!   hold is one round of five concurrent calls (role, states, interfaces, children, and
//!   name + description in one `Properties.GetAll`); then every object gets one call per
//!   interface it lists (extents, actions, value in one `GetAll`, text), and the relation
//!   set only when it has no name of its own (`labelled_by` is only used then).
//!
//! Calls go out as raw method calls with an explicit destination (atspi's P2P helper builds
//! proxies without one, so every call to a GTK4 app fails with `ServiceUnknown`), and nothing
//! caches properties. The bound keeps toolkits from answering "interface not present" under
//! load.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU8, Ordering};

use atspi::{CoordType, Interface, RelationType, Role};
use futures_util::stream::{FuturesUnordered, StreamExt};
use zbus::Connection;
use zbus::zvariant::{DynamicType, OwnedValue, Type};

use crate::cache::{self, Cached, Item, LegacyItem};
use crate::dbus;
use crate::node::RawNode;
use crate::wire::{self, WireRef};

/// Objects read at once.
pub const CONCURRENCY: usize = 32;

/// Longest text read from one object (characters).
pub const TEXT_CAP: usize = 4096;

/// `text`'s first [`TEXT_CAP`] characters. The text is asked for to the end (`-1`), then cut:
/// AccessKit (eframe) refuses an end offset past the text ("Index is too big"); GTK and Qt
/// accept both.
fn cap_text(text: String) -> String {
    match text.char_indices().nth(TEXT_CAP) {
        Some((cut, _)) => text[..cut].to_string(),
        None => text,
    }
}

/// A node deeper than this is not walked (a cycle in a broken toolkit tree ends here).
pub const MAX_DEPTH: usize = 64;

/// Most objects read in one walk.
pub const MAX_NODES: usize = 20_000;

const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
const PROPERTIES: &str = "org.freedesktop.DBus.Properties";

const CACHE_UNKNOWN: u8 = 0;
const CACHE_YES: u8 = 1;
const CACHE_NO: u8 = 2;

/// How the tree is read, and from where.
#[derive(Debug)]
pub struct Reader {
    conn: Connection,
    dest: String,
    direct: bool,
    get_all: bool,
    cache: AtomicU8,
}

/// How a whole-tree read went: for benches and docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bulk {
    /// A walk seeded by `Cache.GetItems`: this many objects came from the cache.
    Cache(usize),
    /// A walk without seeds (the app serves no cache).
    Walk,
}

impl Reader {
    /// Reads `dest`'s objects over `conn` (the accessibility bus).
    pub fn new(conn: Connection, dest: &str) -> Self {
        Self {
            conn,
            dest: dest.to_string(),
            direct: false,
            get_all: false,
            cache: AtomicU8::new(CACHE_UNKNOWN),
        }
    }

    /// Asks the app for its toolkit (whether `Properties.GetAll` is safe: Qt 5 crashes on
    /// it) and for a peer-to-peer socket (`GetApplicationBusAddress`), and reads over that
    /// socket when it has one; else over `conn`.
    pub async fn connect(conn: Connection, dest: &str, root: &str) -> Self {
        let mut bus = Self::new(conn, dest);
        let toolkit = bus
            .property(root, "org.a11y.atspi.Application", "ToolkitName")
            .await
            .unwrap_or_default()
            .to_lowercase();
        // Seen answering GetAll: GTK3 ("gtk"/"gail"), GTK4 ("GTK"), AccessKit (zbus).
        // Qt 5 segfaults on `GetAll org.a11y.atspi.Accessible`; anything unknown gets Get.
        bus.get_all = ["gtk", "gail", "accesskit"]
            .iter()
            .any(|t| toolkit.contains(t));
        if std::env::var_os("AUTOMATION_ATSPI_NO_P2P").is_some() {
            return bus;
        }
        let address: zbus::Result<String> = bus
            .call(
                root,
                "org.a11y.atspi.Application",
                "GetApplicationBusAddress",
                &(),
            )
            .await;
        let Ok(address) = address else { return bus };
        if address.is_empty() {
            return bus;
        }
        match dbus::connect_p2p(&address).await {
            Ok(p2p) => Self {
                conn: p2p,
                direct: true,
                ..bus
            },
            // A socket we cannot reach (another mount namespace, a stale path): the bus.
            Err(_) => bus,
        }
    }

    /// Whether calls go over the app's peer-to-peer socket.
    pub fn is_direct(&self) -> bool {
        self.direct
    }

    /// The app's bus name.
    pub fn dest(&self) -> &str {
        &self.dest
    }

    /// One method call, its reply deserialized.
    pub(crate) async fn call<B, R>(
        &self,
        path: &str,
        iface: &str,
        method: &str,
        body: &B,
    ) -> zbus::Result<R>
    where
        B: serde::Serialize + DynamicType,
        R: serde::de::DeserializeOwned + Type,
    {
        // A peer-to-peer socket has one peer: no destination to name.
        let dest = (!self.direct).then_some(self.dest.as_str());
        let reply = self
            .conn
            .call_method(dest, path, Some(iface), method, body)
            .await?;
        reply.body().deserialize::<R>()
    }

    fn same_app(&self, r: &WireRef) -> Option<String> {
        wire::same_app(&self.dest, r)
    }

    /// Round one: what every object has (role, states, interfaces, children, name and
    /// description), in five concurrent calls.
    pub async fn base(&self, path: &str) -> zbus::Result<RawNode> {
        let role = self.call::<_, u32>(path, ACCESSIBLE, "GetRole", &());
        let states = self.call::<_, Vec<u32>>(path, ACCESSIBLE, "GetState", &());
        let ifaces = self.call::<_, Vec<String>>(path, ACCESSIBLE, "GetInterfaces", &());
        let children = self.call::<_, Vec<WireRef>>(path, ACCESSIBLE, "GetChildren", &());
        let names = async {
            if self.get_all
                && let Ok(p) = self
                    .call::<_, HashMap<String, OwnedValue>>(path, PROPERTIES, "GetAll", &ACCESSIBLE)
                    .await
            {
                return (string_prop(&p, "Name"), string_prop(&p, "Description"));
            }
            // A toolkit without (a safe) GetAll: the two properties, concurrently.
            let (n, d) = futures_lite::future::zip(
                self.property(path, ACCESSIBLE, "Name"),
                self.property(path, ACCESSIBLE, "Description"),
            )
            .await;
            (n.unwrap_or_default(), d.unwrap_or_default())
        };
        let ((role, states), (ifaces, (children, (name, description)))) =
            futures_lite::future::zip(
                futures_lite::future::zip(role, states),
                futures_lite::future::zip(ifaces, futures_lite::future::zip(children, names)),
            )
            .await;
        Ok(RawNode {
            path: path.to_string(),
            role: Some(wire::role(role?)),
            states: wire::states(&states?),
            name,
            description,
            ifaces: wire::ifaces(&ifaces?),
            children: children?.iter().filter_map(|c| self.same_app(c)).collect(),
            ..RawNode::default()
        })
    }

    async fn property(&self, path: &str, iface: &str, name: &str) -> zbus::Result<String> {
        let v: OwnedValue = self.call(path, PROPERTIES, "Get", &(iface, name)).await?;
        Ok(String::try_from(v).unwrap_or_default())
    }

    /// Round two: the calls `raw`'s interfaces call for, concurrently. An interface listed
    /// but failing (a widget being destroyed, a toolkit under load) leaves its field empty
    /// rather than failing the object.
    pub async fn details(&self, raw: &mut RawNode) {
        let path = raw.path.as_str();
        let role = raw.role.unwrap_or(Role::Unknown);
        let want_text =
            raw.has(Interface::Text) && (crate::map::text_is_value(role) || raw.name.is_empty());
        let want_relations = raw.name.is_empty();
        let extents = async {
            if raw.has(Interface::Component) {
                self.call::<_, (i32, i32, i32, i32)>(
                    path,
                    "org.a11y.atspi.Component",
                    "GetExtents",
                    &(CoordType::Window as u32),
                )
                .await
                .ok()
            } else {
                None
            }
        };
        let actions = async {
            if raw.has(Interface::Action) {
                self.call::<_, Vec<(String, String, String)>>(
                    path,
                    "org.a11y.atspi.Action",
                    "GetActions",
                    &(),
                )
                .await
                .map(|v| v.into_iter().map(|(name, _, _)| name).collect())
                .unwrap_or_default()
            } else {
                Vec::new()
            }
        };
        let value = async {
            if raw.has(Interface::Value) {
                self.value(path).await
            } else {
                None
            }
        };
        let text = async {
            if want_text {
                self.call::<_, String>(path, "org.a11y.atspi.Text", "GetText", &(0i32, -1i32))
                    .await
                    .ok()
                    .map(cap_text)
            } else {
                None
            }
        };
        let relations = async {
            if want_relations {
                self.call::<_, Vec<(u32, Vec<WireRef>)>>(path, ACCESSIBLE, "GetRelationSet", &())
                    .await
                    .unwrap_or_default()
            } else {
                Vec::new()
            }
        };
        let ((extents, actions), ((value, text), relations)) = futures_lite::future::zip(
            futures_lite::future::zip(extents, actions),
            futures_lite::future::zip(futures_lite::future::zip(value, text), relations),
        )
        .await;
        raw.extents = extents;
        raw.actions = actions;
        raw.value = value;
        raw.text = text;
        raw.labelled_by = relations
            .into_iter()
            .filter(|(t, _)| *t == RelationType::LabelledBy as u32)
            .flat_map(|(_, targets)| targets)
            .filter_map(|t| self.same_app(&t))
            .collect();
    }

    /// `Value`'s four numbers in one `GetAll` (else one by one).
    async fn value(&self, path: &str) -> Option<[f64; 4]> {
        const VALUE: &str = "org.a11y.atspi.Value";
        let names = [
            "CurrentValue",
            "MinimumValue",
            "MaximumValue",
            "MinimumIncrement",
        ];
        if self.get_all
            && let Ok(p) = self
                .call::<_, HashMap<String, OwnedValue>>(path, PROPERTIES, "GetAll", &VALUE)
                .await
        {
            let num = |k: &str| p.get(k).and_then(|v| f64::try_from(v).ok());
            let [cur, min, max, step] = names.map(num);
            return Some([cur?, min?, max?, step.unwrap_or(0.0)]);
        }
        let mut out = [0.0; 4];
        for (slot, name) in out.iter_mut().zip(names) {
            let v: OwnedValue = self
                .call(path, PROPERTIES, "Get", &(VALUE, name))
                .await
                .ok()?;
            *slot = f64::try_from(&v).ok()?;
        }
        Some(out)
    }

    /// One object, both rounds.
    pub async fn node(&self, path: &str) -> zbus::Result<RawNode> {
        let mut raw = self.base(path).await?;
        self.details(&mut raw).await;
        Ok(raw)
    }

    /// Objects `paths`, [`CONCURRENCY`] at a time; each with its result.
    pub async fn nodes(&self, paths: &[String]) -> Vec<(String, zbus::Result<RawNode>)> {
        let mut out = Vec::with_capacity(paths.len());
        let mut queue = paths.iter();
        let mut running = FuturesUnordered::new();
        loop {
            while running.len() < CONCURRENCY {
                let Some(p) = queue.next() else { break };
                running.push(async move { (p.clone(), self.node(p).await) });
            }
            let Some(done) = running.next().await else {
                break;
            };
            out.push(done);
        }
        out
    }

    /// The whole tree under the application object `root`: a walk seeded by
    /// `Cache.GetItems` when the app serves it (asked once; an app that does not is walked
    /// without from then on).
    pub async fn all(&self, root: &str) -> zbus::Result<(HashMap<String, RawNode>, Bulk)> {
        let mut seeds = HashMap::new();
        if self.cache.load(Ordering::Relaxed) != CACHE_NO {
            match self.cached().await {
                Some(s) => {
                    self.cache.store(CACHE_YES, Ordering::Relaxed);
                    seeds = s;
                }
                None => self.cache.store(CACHE_NO, Ordering::Relaxed),
            }
        }
        let bulk = if seeds.is_empty() {
            Bulk::Walk
        } else {
            Bulk::Cache(seeds.len())
        };
        self.walk(root, &seeds).await.map(|t| (t, bulk))
    }

    /// The app's cached objects ([`cache`] decodes them), children ordered by index in
    /// parent; `None` when the app serves no cache, or an empty one.
    async fn cached(&self) -> Option<HashMap<String, Cached>> {
        // Both signatures answer the same method; which one came back decides the decoding.
        let nodes = match self
            .call::<_, Vec<Item>>(cache::PATH, cache::IFACE, "GetItems", &())
            .await
        {
            Ok(items) => cache::from_items(&self.dest, items),
            Err(zbus::Error::Variant(_)) => {
                let legacy: Vec<LegacyItem> = self
                    .call(cache::PATH, cache::IFACE, "GetItems", &())
                    .await
                    .ok()?;
                cache::from_legacy(&self.dest, legacy)
            }
            Err(_) => return None,
        };
        (!nodes.is_empty()).then_some(nodes)
    }

    /// Walks the subtree under `root` (no seeds).
    pub async fn subtree(&self, root: &str) -> zbus::Result<HashMap<String, RawNode>> {
        self.walk(root, &HashMap::new()).await
    }

    /// One object: from its cache seed when there is one (asking for its children only
    /// when the seed's list is partial), else both rounds.
    async fn seeded(&self, path: &str, seed: Option<&Cached>) -> zbus::Result<RawNode> {
        let mut raw = match seed {
            Some(c) => {
                let mut n = c.node.clone();
                if !c.complete {
                    let children: Vec<WireRef> =
                        self.call(path, ACCESSIBLE, "GetChildren", &()).await?;
                    n.children = children.iter().filter_map(|c| self.same_app(c)).collect();
                }
                n
            }
            None => self.base(path).await?,
        };
        self.details(&mut raw).await;
        Ok(raw)
    }

    /// Walks the subtree under `root` breadth first, [`CONCURRENCY`] objects at a time,
    /// taking what `seeds` holds. An object that fails to read (it vanished mid-walk) is
    /// left out with its subtree; the root failing fails the walk.
    async fn walk(
        &self,
        root: &str,
        seeds: &HashMap<String, Cached>,
    ) -> zbus::Result<HashMap<String, RawNode>> {
        let first = self.seeded(root, seeds.get(root)).await?;
        let mut out: HashMap<String, RawNode> = HashMap::new();
        let mut queue: VecDeque<(String, usize)> =
            first.children.iter().map(|c| (c.clone(), 1)).collect();
        let mut queued: HashSet<String> = queue.iter().map(|(p, _)| p.clone()).collect();
        out.insert(root.to_string(), first);
        let mut running = FuturesUnordered::new();
        loop {
            while running.len() < CONCURRENCY {
                let Some((path, depth)) = queue.pop_front() else {
                    break;
                };
                if out.contains_key(&path) || depth > MAX_DEPTH || out.len() >= MAX_NODES {
                    continue;
                }
                running.push(async move {
                    let r = self.seeded(&path, seeds.get(&path)).await;
                    (path, depth, r)
                });
            }
            let Some((path, depth, r)) = running.next().await else {
                break;
            };
            if let Ok(n) = r {
                for c in &n.children {
                    if queued.insert(c.clone()) {
                        queue.push_back((c.clone(), depth + 1));
                    }
                }
                out.insert(path, n);
            }
        }
        prune(&mut out);
        Ok(out)
    }
}

/// Drops children that were not read from their parents' lists, so the tree stays whole.
pub(crate) fn prune(nodes: &mut HashMap<String, RawNode>) {
    let present: HashSet<String> = nodes.keys().cloned().collect();
    for n in nodes.values_mut() {
        n.children.retain(|c| present.contains(c));
    }
}

fn string_prop(p: &HashMap<String, OwnedValue>, key: &str) -> String {
    p.get(key)
        .and_then(|v| String::try_from(v.clone()).ok())
        .unwrap_or_default()
}

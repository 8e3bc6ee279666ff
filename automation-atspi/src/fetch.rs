//! Reading an app's accessible objects: in bulk where the toolkit serves it, else in
//! parallel, bounded, with as few calls per object as the bus allows.
//!
//! - **Connection**: a toolkit that offers a peer-to-peer socket
//!   (`Application.GetApplicationBusAddress`: GTK3's atk-bridge) is read over it, skipping
//!   the bus daemon's two hops per call; everything else over the accessibility bus.
//! - **Bulk seeds**: a toolkit that serves `Cache.GetItems` (GTK3, GTK4) gives role, name,
//!   description, states, interfaces and parent of every object it has exported so far in
//!   one call ([`crate::cache`]); those objects skip the first round below. The walk that
//!   uses them is [`crate::walk`].
//! - **Per object**: an object the cache did not hold is one round of four concurrent calls
//!   (role, states, interfaces, and name, description and child count in one
//!   `Properties.GetAll`), then its children — never all of a huge or self-managing
//!   object's (`children.rs`); then one call per interface it lists (extents, actions,
//!   value in one `GetAll`, text), and the relation set only when it has no name of its own
//!   (`labelled_by` is only used then).
//! - **Deadline**: every call carries the connection's ([`crate::dbus::CALL_TIMEOUT`]).
//!
//! Calls go out as raw method calls with an explicit destination (atspi's P2P helper builds
//! proxies without one, so every call to a GTK4 app fails with `ServiceUnknown`), and nothing
//! caches properties. The bound keeps toolkits from answering "interface not present" under
//! load.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::AtomicU8;

use atspi::{CoordType, Interface, RelationType, Role};
use futures_util::stream::{FuturesUnordered, StreamExt};
use zbus::Connection;
use zbus::zvariant::{DynamicType, OwnedValue, Type};

use crate::dbus;
use crate::keys::{self, Aliases};
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

const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
const PROPERTIES: &str = "org.freedesktop.DBus.Properties";

pub(crate) const CACHE_UNKNOWN: u8 = 0;
pub(crate) const CACHE_YES: u8 = 1;
pub(crate) const CACHE_NO: u8 = 2;

/// How the tree is read, and from where.
#[derive(Debug)]
pub struct Reader {
    conn: Connection,
    /// The accessibility bus: what `conn` falls back to when the app's own socket stalls.
    bus: Connection,
    pub(crate) dest: String,
    direct: bool,
    /// The app's own socket stopped answering (GTK 3 with a modal dialog opened from a menu
    /// click): every call goes over the bus from then on.
    stalled: std::sync::atomic::AtomicBool,
    get_all: bool,
    pub(crate) cache: AtomicU8,
    pub(crate) aliases: Mutex<Aliases>,
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
            bus: conn.clone(),
            conn,
            dest: dest.to_string(),
            direct: false,
            stalled: std::sync::atomic::AtomicBool::new(false),
            get_all: false,
            cache: AtomicU8::new(CACHE_UNKNOWN),
            aliases: Mutex::default(),
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
        self.direct && !self.is_stalled()
    }

    fn is_stalled(&self) -> bool {
        self.stalled.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The app's bus name.
    pub fn dest(&self) -> &str {
        &self.dest
    }

    /// One method call on an object or a cell key (`children.rs`), its reply
    /// deserialized. A key whose object fails is resolved afresh and asked once more (Calc's
    /// cell objects come and go).
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
        if !keys::is_key(path) {
            return self.raw_call(path, iface, method, body).await;
        }
        let object = self.resolve(path, false).await?;
        match self.raw_call(&object, iface, method, body).await {
            Err(zbus::Error::MethodError(..)) => {
                let object = self.resolve(path, true).await?;
                self.raw_call(&object, iface, method, body).await
            }
            r => r,
        }
    }

    /// One method call on an object path.
    pub(crate) async fn raw_call<B, R>(
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
        if self.is_direct() {
            // A peer-to-peer socket has one peer: no destination to name.
            match self
                .conn
                .call_method(None::<&str>, path, Some(iface), method, body)
                .await
            {
                Err(e) if is_timeout(&e) => {
                    // GTK 3 leaves its own socket unanswered while a modal dialog runs that a
                    // menu click opened; the bus still answers for it.
                    self.stalled
                        .store(true, std::sync::atomic::Ordering::Relaxed);
                }
                other => return other?.body().deserialize::<R>(),
            }
        }
        let reply = self
            .bus
            .call_method(Some(self.dest.as_str()), path, Some(iface), method, body)
            .await?;
        reply.body().deserialize::<R>()
    }

    /// `DoAction(index)` on `path`, waited for at most `within`: `None` when the app has not
    /// returned from it by then. GTK runs a modal dialog inside the action that opens it, and
    /// answers nothing else until the dialog closes; the call is left to finish on its own.
    pub(crate) fn do_action_within(
        &self,
        path: &str,
        index: i32,
        within: std::time::Duration,
    ) -> Option<zbus::Result<bool>> {
        let object = if keys::is_key(path) {
            match futures_lite::future::block_on(self.resolve(path, false)) {
                Ok(o) => o,
                Err(e) => return Some(Err(e)),
            }
        } else {
            path.to_string()
        };
        let (conn, dest) = if self.is_direct() {
            (self.conn.clone(), None)
        } else {
            (self.bus.clone(), Some(self.dest.clone()))
        };
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let reply = futures_lite::future::block_on(conn.call_method(
                dest.as_deref(),
                object.as_str(),
                Some("org.a11y.atspi.Action"),
                "DoAction",
                &(index,),
            ))
            .and_then(|r| r.body().deserialize::<bool>());
            let _ = tx.send(reply);
        });
        rx.recv_timeout(within).ok()
    }

    pub(crate) fn same_app(&self, r: &WireRef) -> Option<String> {
        wire::same_app(&self.dest, r)
    }

    /// Round one: what every object has (role, states, interfaces, name, description and
    /// child count) in four concurrent calls, then its children (bounded: `children.rs`);
    /// `lite`: not the children of an object that is not showing ([`RawNode::lite`]).
    pub async fn base(&self, path: &str, lite: bool) -> zbus::Result<RawNode> {
        let role = self.call::<_, u32>(path, ACCESSIBLE, "GetRole", &());
        let states = self.call::<_, Vec<u32>>(path, ACCESSIBLE, "GetState", &());
        let ifaces = self.call::<_, Vec<String>>(path, ACCESSIBLE, "GetInterfaces", &());
        let props = async {
            if self.get_all
                && let Ok(p) = self
                    .call::<_, HashMap<String, OwnedValue>>(path, PROPERTIES, "GetAll", &ACCESSIBLE)
                    .await
            {
                let count = p.get("ChildCount").and_then(|v| i32::try_from(v).ok());
                return (
                    string_prop(&p, "Name"),
                    string_prop(&p, "Description"),
                    count,
                );
            }
            // A toolkit without (a safe) GetAll: the properties, concurrently (the count is
            // asked for by `children_of`).
            let (n, d) = futures_lite::future::zip(
                self.property(path, ACCESSIBLE, "Name"),
                self.property(path, ACCESSIBLE, "Description"),
            )
            .await;
            (n.unwrap_or_default(), d.unwrap_or_default(), None)
        };
        let ((role, states), (ifaces, (name, description, count))) = futures_lite::future::zip(
            futures_lite::future::zip(role, states),
            futures_lite::future::zip(ifaces, props),
        )
        .await;
        let mut raw = RawNode {
            path: path.to_string(),
            role: Some(wire::role(role?)),
            states: wire::states(&states?),
            name,
            description,
            ifaces: wire::ifaces(&ifaces?),
            ..RawNode::default()
        };
        if lite && !crate::node::shows(&raw.states) {
            raw.lite = true;
        } else {
            self.children_of(&mut raw, count).await?;
        }
        Ok(raw)
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
                self.extents(path, role).await
            } else {
                None
            }
        };
        let actions = async {
            if raw.has(Interface::Action) {
                self.actions(path).await
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
                self.text(path).await
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

    /// `path`'s extents in screen coordinates. A window whose screen extents are unknown to
    /// its toolkit — the Java ATK wrapper's frames answer (-1, -1, -1, -1): a top-level has no
    /// accessible parent to place it — is placed by its extents in its parent's coordinates,
    /// which for a top-level are the screen's.
    pub(crate) async fn window_extents(
        &self,
        path: &str,
        role: Role,
    ) -> Option<(i32, i32, i32, i32)> {
        self.extents(path, role).await
    }

    async fn extents(&self, path: &str, role: Role) -> Option<(i32, i32, i32, i32)> {
        const COMPONENT: &str = "org.a11y.atspi.Component";
        let screen = self
            .call::<_, (i32, i32, i32, i32)>(
                path,
                COMPONENT,
                "GetExtents",
                &(CoordType::Screen as u32),
            )
            .await
            .ok();
        let window_role = matches!(role, Role::Frame | Role::Window | Role::Dialog);
        if window_role && screen.is_some_and(|(_, _, w, h)| w < 0 || h < 0) {
            return self
                .call::<_, (i32, i32, i32, i32)>(
                    path,
                    COMPONENT,
                    "GetExtents",
                    &(CoordType::Parent as u32),
                )
                .await
                .ok()
                .filter(|(_, _, w, h)| *w > 0 && *h > 0)
                .or(screen);
        }
        screen
    }

    /// The names of `path`'s actions. `GetActions` answers each action's *localized* name,
    /// which some toolkits leave empty (LibreOffice: `('', '', '')`) or garble (Firefox); then
    /// each is asked for by index (`GetName(i)`: "press", "check", "click").
    pub(crate) async fn actions(&self, path: &str) -> Vec<String> {
        const ACTION: &str = "org.a11y.atspi.Action";
        let listed: Vec<String> = self
            .call::<_, Vec<(String, String, String)>>(path, ACTION, "GetActions", &())
            .await
            .map(|v| v.into_iter().map(|(name, _, _)| name).collect())
            .unwrap_or_default();
        let plain = |n: &str| {
            !n.trim().is_empty()
                && n.chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '_' | '-' | '.'))
        };
        if !listed.is_empty() && listed.iter().all(|n| plain(n)) {
            return listed;
        }
        let count = if listed.is_empty() {
            self.call::<_, OwnedValue>(path, PROPERTIES, "Get", &(ACTION, "NActions"))
                .await
                .ok()
                .and_then(|v| i32::try_from(v).ok())
                .unwrap_or(0)
        } else {
            i32::try_from(listed.len()).unwrap_or(0)
        };
        let mut names = Vec::new();
        for i in 0..count.clamp(0, 64) {
            let name = self
                .call::<_, String>(path, ACTION, "GetName", &(i,))
                .await
                .unwrap_or_default();
            names.push(name);
        }
        names
    }

    /// `path`'s text, its first [`TEXT_CAP`] characters. GTK 4.8's entries and labels answer
    /// `GetText(0, -1)` with nothing: then the text is asked for by its length
    /// (`CharacterCount`).
    async fn text(&self, path: &str) -> Option<String> {
        const TEXT: &str = "org.a11y.atspi.Text";
        let whole = self
            .call::<_, String>(path, TEXT, "GetText", &(0i32, -1i32))
            .await
            .ok()
            .map(cap_text);
        if whole.as_deref().is_some_and(|t| !t.is_empty()) {
            return whole;
        }
        let count = self
            .call::<_, OwnedValue>(path, PROPERTIES, "Get", &(TEXT, "CharacterCount"))
            .await
            .ok()
            .and_then(|v| i32::try_from(v).ok())
            .unwrap_or(0);
        if count <= 0 {
            return whole;
        }
        let end = count.min(i32::try_from(TEXT_CAP).unwrap_or(i32::MAX));
        self.call::<_, String>(path, TEXT, "GetText", &(0i32, end))
            .await
            .ok()
            .or(whole)
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
        let mut raw = self.base(path, false).await?;
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
}

/// Whether a call failed by its deadline (the app stopped answering).
pub fn is_timeout(e: &zbus::Error) -> bool {
    matches!(e, zbus::Error::InputOutput(io) if io.kind() == std::io::ErrorKind::TimedOut)
}

pub(crate) fn timed_out(what: String) -> zbus::Error {
    zbus::Error::InputOutput(std::sync::Arc::new(std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        what,
    )))
}

fn string_prop(p: &HashMap<String, OwnedValue>, key: &str) -> String {
    p.get(key)
        .and_then(|v| String::try_from(v.clone()).ok())
        .unwrap_or_default()
}

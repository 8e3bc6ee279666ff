//! The JSON request rig core's and the targets' tests share: requests as `serde_json` values
//! in, replies out, with `ok` / `err` that fail the test with the request in the message.

use automation_core::{Host, NoHost, OpError, Reply, Request, Session, Target, serve};
use serde_json::{Value, json};

/// A session plus the host that serves `list_windows` and `screenshot`.
pub struct Rig<T: Target, H: Host<T> = NoHost> {
    /// The session under test.
    pub s: Session<T>,
    /// Its host.
    pub host: H,
}

impl<T: Target> Rig<T, NoHost> {
    /// A rig with no host (host ops answer from [`NoHost`]).
    pub fn new(target: T) -> Self {
        Self::with_host(target, NoHost)
    }
}

impl<T: Target, H: Host<T>> Rig<T, H> {
    /// A rig with a host.
    pub fn with_host(target: T, host: H) -> Self {
        Self {
            s: Session::new(target),
            host,
        }
    }

    /// The target.
    pub fn app(&self) -> &T {
        &self.s.target
    }

    /// Parses and serves one request (`{"op": …, "settle"?: …}`).
    pub fn reply(&mut self, request: Value) -> Reply {
        match Request::from_value(request) {
            Ok(r) => serve(&mut self.s, &mut self.host, &r),
            Err(e) => Reply::Err(e),
        }
    }

    /// The reply data; fails the test on an error reply.
    #[track_caller]
    pub fn ok(&mut self, request: Value) -> Value {
        match self.reply(request.clone()) {
            Reply::Ok(v) => v,
            Reply::Image(_) => panic!("{request} answered an image: read it with reply(…).image()"),
            Reply::Err(e) => panic!("{request} failed: {e:?}"),
        }
    }

    /// The error; fails the test when the request succeeds.
    #[track_caller]
    pub fn err(&mut self, request: Value) -> OpError {
        match self.reply(request.clone()) {
            Reply::Ok(v) => panic!("{request} unexpectedly succeeded: {v}"),
            Reply::Image(i) => panic!(
                "{request} unexpectedly succeeded: a {}x{} image",
                i.width, i.height
            ),
            Reply::Err(e) => e,
        }
    }

    /// The id string of the first node with this role and label (`null` when none).
    pub fn find(&mut self, role: &str, label: &str) -> Value {
        self.ok(json!({"op": {"find_node": {"role": role, "label": label}}}))["node"].clone()
    }

    /// `read_node` on a reference or selector.
    pub fn node(&mut self, node: Value) -> Value {
        self.ok(json!({"op": {"read_node": {"node": node}}}))
    }
}

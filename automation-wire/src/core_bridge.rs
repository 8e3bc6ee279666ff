//! The bridge instantiated with automation-core's [`Request`] and [`Reply`] (feature `bridge`).
//!
//! Requests are parsed with [`Request::from_json`] (strict: unknown fields and a `settle` on an
//! op that takes none are `BAD_REQUEST` naming the field); a request's `settle`, when present,
//! is clamped to core's live limits (`SettleSpec::LIVE_MAX_FRAMES` / `LIVE_MAX_TIMEOUT_MS`)
//! before the host sees it. A request without `settle`
//! is left as is: [`Request::settle_or_default`] is already within the live limits.
//!
//! A screenshot crosses as JSON: the server writes a [`Reply::Image`] with its PNG as base64,
//! and [`CoreBridgeClient::request`] reads it back into the bytes (the JS client reads the
//! same JSON).

use automation_core::{ErrorCode, Reply, Request};

/// automation-core, re-exported so bridge users name one dependency.
pub use automation_core as core;

use crate::client::{BridgeClient, ClientError};
use crate::server::{
    BridgeError, BridgeProtocol, BridgeServer, PendingRequest, ServerOptions, SettleLimits,
};

/// automation-core's request/reply protocol.
#[derive(Debug, Clone, Copy)]
pub struct CoreProtocol;

impl BridgeProtocol for CoreProtocol {
    type Request = Request;
    type Reply = Reply;
    fn parse(text: &str) -> Result<Request, Reply> {
        Request::from_json(text).map_err(Reply::Err)
    }
    fn bad_request(message: String) -> Reply {
        Reply::error(ErrorCode::BadRequest, message)
    }
    fn timeout(message: String) -> Reply {
        Reply::error(ErrorCode::BridgeTimeout, message)
    }
    fn dropped(message: String) -> Reply {
        Reply::error(ErrorCode::BridgeDropped, message)
    }
    fn unframeable(message: String) -> Reply {
        Reply::error(ErrorCode::BridgeIo, message)
    }
    fn clamp_settle(mut request: Request, limits: Option<SettleLimits>) -> Request {
        if let Some(s) = request.settle {
            request.settle = Some(match limits {
                Some(l) => s.clamped(l.max_frames, l.max_timeout_ms),
                None => s.live_clamped(),
            });
        }
        request
    }
}

/// A bridge server speaking core's types.
pub type CoreBridgeServer = BridgeServer<CoreProtocol>;
/// A request waiting for the host's [`Reply`].
pub type CorePendingRequest = PendingRequest<CoreProtocol>;

/// The debug-only installer for core's protocol: `Ok(None)` in a release build.
pub fn install_core_bridge_in_debug(
    opts: ServerOptions,
) -> Result<Option<CoreBridgeServer>, BridgeError> {
    crate::install::install_bridge_in_debug::<CoreProtocol>(opts)
}

impl ClientError {
    /// The core error code for this failure (`BRIDGE_IO`, `BRIDGE_TIMEOUT`, `BRIDGE_DROPPED`).
    pub fn error_code(&self) -> ErrorCode {
        match self {
            ClientError::Timeout(_) => ErrorCode::BridgeTimeout,
            ClientError::Closed => ErrorCode::BridgeDropped,
            _ => ErrorCode::BridgeIo,
        }
    }

    /// This failure as a core error reply.
    pub fn to_reply(&self) -> Reply {
        Reply::error(self.error_code(), self.to_string())
    }
}

/// A bridge client that always yields a [`Reply`]: transport failures become `BRIDGE_*` replies.
#[derive(Debug)]
pub struct CoreBridgeClient {
    inner: BridgeClient,
}

impl CoreBridgeClient {
    /// Connect and authenticate.
    pub fn connect(address: &str, token: &str) -> Result<Self, ClientError> {
        Ok(CoreBridgeClient {
            inner: BridgeClient::connect(address, token)?,
        })
    }

    /// Connect using a descriptor.
    pub fn from_descriptor(d: &crate::descriptor::Descriptor) -> Result<Self, ClientError> {
        Ok(CoreBridgeClient {
            inner: BridgeClient::from_descriptor(d)?,
        })
    }

    /// Connect and authenticate, waiting up to `wait` while another client is attached
    /// (see [`BridgeClient::connect_with_wait`]).
    pub fn connect_with_wait(
        address: &str,
        token: &str,
        wait: std::time::Duration,
    ) -> Result<Self, ClientError> {
        Ok(CoreBridgeClient {
            inner: BridgeClient::connect_with_wait(address, token, wait)?,
        })
    }

    /// Connect using a descriptor, waiting up to `wait` while another client is attached.
    pub fn from_descriptor_with_wait(
        d: &crate::descriptor::Descriptor,
        wait: std::time::Duration,
    ) -> Result<Self, ClientError> {
        Ok(CoreBridgeClient {
            inner: BridgeClient::from_descriptor_with_wait(d, wait)?,
        })
    }

    /// The underlying generic client.
    pub fn inner_mut(&mut self) -> &mut BridgeClient {
        &mut self.inner
    }

    /// One request, one reply, typed by the request's op: a screenshot's JSON (its PNG as
    /// base64, as the server wrote it) comes back as [`Reply::Image`], the bytes decoded here.
    pub fn request(&mut self, req: &Request) -> Reply {
        match self.inner.request::<Request, Reply>(req) {
            Ok(r) => r.typed(req.op.spec().reply),
            Err(e) => e.to_reply(),
        }
    }
}

//! The bridge client: connect, send the token, then one request frame → one reply frame.
//!
//! Every failure is a typed [`ClientError`] with a stable [`code`](ClientError::code)
//! (`BRIDGE_IO`, `BRIDGE_TIMEOUT`, `BRIDGE_DROPPED`), so a caller can tell "retry" from "fix".

use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::descriptor::Descriptor;
use crate::frame::{FrameError, MAX_REPLY_FRAME, MAX_REQUEST_FRAME, read_frame, write_frame};
use crate::handshake::{HANDSHAKE_DEADLINE, HandshakeError, Hello, read_hello, send_token};
use crate::transport::{Connection, TransportError, connect};

/// Default client-side wait for a reply: a little over the server's own 15 s reply timeout,
/// so the server's `BRIDGE_TIMEOUT` normally arrives first.
pub const CLIENT_REPLY_TIMEOUT: Duration = Duration::from_secs(20);

/// Why a bridge call failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Could not reach the endpoint.
    #[error("cannot reach the bridge: {0}")]
    Connect(#[from] TransportError),
    /// The token handshake failed.
    #[error("bridge handshake failed: {0}")]
    Handshake(#[from] HandshakeError),
    /// No reply within the client timeout.
    #[error("no reply from the bridge within {0:?}; the app may be frozen — retry or re-attach")]
    Timeout(Duration),
    /// The server closed the connection (app exiting?).
    #[error("the bridge closed the connection (the app exited or shut its bridge down); re-attach")]
    Closed,
    /// Framing or transport error.
    #[error("bridge I/O: {0}")]
    Frame(#[from] FrameError),
    /// The request could not be encoded, or the reply decoded.
    #[error("bridge payload: {0}")]
    Json(#[from] serde_json::Error),
}

impl ClientError {
    /// The reply code this error maps to.
    pub fn code(&self) -> &'static str {
        match self {
            ClientError::Timeout(_) => "BRIDGE_TIMEOUT",
            ClientError::Closed => "BRIDGE_DROPPED",
            _ => "BRIDGE_IO",
        }
    }
}

/// A connected, authenticated client.
#[derive(Debug)]
pub struct BridgeClient {
    conn: Connection,
    hello: Hello,
    reply_timeout: Duration,
}

impl BridgeClient {
    /// Connect to `address` and authenticate with `token`.
    pub fn connect(address: &str, token: &str) -> Result<Self, ClientError> {
        Self::connect_with_timeout(address, token, HANDSHAKE_DEADLINE)
    }

    /// Like [`connect`](Self::connect), waiting at most `hello_timeout` for the greeting
    /// (a busy bridge serves one client at a time: a second client waits its turn).
    pub fn connect_with_timeout(
        address: &str,
        token: &str,
        hello_timeout: Duration,
    ) -> Result<Self, ClientError> {
        let mut conn = connect(address)?;
        conn.set_read_timeout(Some(hello_timeout))
            .map_err(|e| ClientError::Frame(e.into()))?;
        send_token(&mut conn, token)?;
        let hello = read_hello(&mut conn)?;
        conn.set_read_timeout(Some(CLIENT_REPLY_TIMEOUT))
            .map_err(|e| ClientError::Frame(e.into()))?;
        Ok(BridgeClient {
            conn,
            hello,
            reply_timeout: CLIENT_REPLY_TIMEOUT,
        })
    }

    /// Connect using a descriptor.
    pub fn from_descriptor(d: &Descriptor) -> Result<Self, ClientError> {
        Self::connect(&d.address, &d.token)
    }

    /// The server's greeting.
    pub fn hello(&self) -> &Hello {
        &self.hello
    }

    /// Change the client-side reply timeout.
    pub fn set_reply_timeout(&mut self, t: Duration) -> Result<(), ClientError> {
        self.conn
            .set_read_timeout(Some(t))
            .map_err(|e| ClientError::Frame(e.into()))?;
        self.reply_timeout = t;
        Ok(())
    }

    /// Send one raw frame, read one raw reply frame.
    pub fn request_raw(&mut self, payload: &[u8]) -> Result<String, ClientError> {
        write_frame(&mut self.conn, payload, MAX_REQUEST_FRAME)?;
        match read_frame(&mut self.conn, MAX_REPLY_FRAME) {
            Ok(Some(reply)) => Ok(reply),
            Ok(None) => Err(ClientError::Closed),
            Err(e) if e.is_timeout() => Err(ClientError::Timeout(self.reply_timeout)),
            Err(e) => Err(e.into()),
        }
    }

    /// Send a typed request, decode the typed reply.
    pub fn request<Req: Serialize, Rep: DeserializeOwned>(
        &mut self,
        req: &Req,
    ) -> Result<Rep, ClientError> {
        let bytes = serde_json::to_vec(req)?;
        let reply = self.request_raw(&bytes)?;
        Ok(serde_json::from_str(&reply)?)
    }
}

//! The bridge client: connect, send the token, then one request frame → one reply frame.
//!
//! Every failure is a typed [`ClientError`] with a stable [`code`](ClientError::code)
//! (`BRIDGE_IO`, `BRIDGE_TIMEOUT`, `BRIDGE_DROPPED`), so a caller can tell "retry" from "fix".
//!
//! A bridge serves one client at a time. A second client is told so at once
//! ([`ClientError::Busy`]); [`BridgeClient::connect_with_wait`] retries until a bound.

use std::time::{Duration, Instant};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::descriptor::Descriptor;
use crate::frame::{FrameError, MAX_REPLY_FRAME, MAX_REQUEST_FRAME, read_frame, write_frame};
use crate::handshake::{
    BUSY_MESSAGE, HANDSHAKE_DEADLINE, HandshakeError, Hello, read_hello, send_token,
};
use crate::transport::{Connection, DeadlineReader, TransportError, connect};

/// Longest pause between two attempts of [`BridgeClient::connect_with_wait`].
const MAX_RETRY_PAUSE: Duration = Duration::from_millis(250);

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
    /// Another client is attached: the bridge answered with its busy notice. Nothing is wrong
    /// with the address or the token.
    #[error("{BUSY_MESSAGE} (the bridge at {address} serves one client at a time)")]
    Busy {
        /// The endpoint that is busy.
        address: String,
    },
}

impl ClientError {
    /// True when the bridge is serving another client (retrying later can succeed).
    pub fn is_busy(&self) -> bool {
        matches!(self, ClientError::Busy { .. })
    }

    /// The reply code this error maps to (`Busy` is `BRIDGE_IO`, like every connect failure;
    /// tell it apart with [`is_busy`](Self::is_busy)).
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
    /// Connect to `address` and authenticate with `token`. A bridge that is serving another
    /// client answers at once: [`ClientError::Busy`].
    pub fn connect(address: &str, token: &str) -> Result<Self, ClientError> {
        Self::connect_with_timeout(address, token, HANDSHAKE_DEADLINE)
    }

    /// Like [`connect`](Self::connect), with `hello_timeout` as one deadline for the whole
    /// greeting (not per read). A busy bridge gives [`ClientError::Busy`] at once (it no
    /// longer leaves the client waiting in the backlog); to wait for it, use
    /// [`connect_with_wait`](Self::connect_with_wait).
    pub fn connect_with_timeout(
        address: &str,
        token: &str,
        hello_timeout: Duration,
    ) -> Result<Self, ClientError> {
        let deadline = Instant::now() + hello_timeout;
        let conn = connect(address)?;
        let busy = || ClientError::Busy {
            address: address.to_string(),
        };
        conn.set_write_timeout(Some(hello_timeout))
            .map_err(|e| ClientError::Frame(e.into()))?;
        let mut w = &conn;
        if let Err(e) = send_token(&mut w, token) {
            match e {
                // A busy bridge answers and hangs up without waiting for our token: a failed
                // write may just mean that. Read what it said.
                HandshakeError::Io(_) => {
                    return match read_hello(&mut DeadlineReader::new(&conn, deadline)) {
                        Err(HandshakeError::Busy { .. }) => Err(busy()),
                        _ => Err(e.into()),
                    };
                }
                other => return Err(other.into()),
            }
        }
        let hello = match read_hello(&mut DeadlineReader::new(&conn, deadline)) {
            Ok(h) => h,
            Err(HandshakeError::Busy { .. }) => return Err(busy()),
            Err(e) => return Err(e.into()),
        };
        conn.set_write_timeout(None)
            .map_err(|e| ClientError::Frame(e.into()))?;
        conn.set_read_timeout(Some(CLIENT_REPLY_TIMEOUT))
            .map_err(|e| ClientError::Frame(e.into()))?;
        Ok(BridgeClient {
            conn,
            hello,
            reply_timeout: CLIENT_REPLY_TIMEOUT,
        })
    }

    /// Connect, and while the bridge is busy with another client retry (pausing 25 ms, growing
    /// to 250 ms) until `wait` has passed. Still busy then: [`ClientError::Busy`]. Any other
    /// failure is returned at once.
    pub fn connect_with_wait(
        address: &str,
        token: &str,
        wait: Duration,
    ) -> Result<Self, ClientError> {
        let give_up = Instant::now() + wait;
        let mut pause = Duration::from_millis(25);
        loop {
            match Self::connect(address, token) {
                Err(e) if e.is_busy() => {
                    let left = give_up.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(e);
                    }
                    std::thread::sleep(pause.min(left));
                    pause = pause.saturating_mul(2).min(MAX_RETRY_PAUSE);
                }
                other => return other,
            }
        }
    }

    /// Connect using a descriptor.
    pub fn from_descriptor(d: &Descriptor) -> Result<Self, ClientError> {
        Self::connect(&d.address, &d.token)
    }

    /// Connect using a descriptor, waiting up to `wait` while the bridge is busy.
    pub fn from_descriptor_with_wait(d: &Descriptor, wait: Duration) -> Result<Self, ClientError> {
        Self::connect_with_wait(&d.address, &d.token, wait)
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

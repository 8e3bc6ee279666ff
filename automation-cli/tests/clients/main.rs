//! The JS client and the Python SDK against the real binary.

#[path = "../support/mod.rs"]
mod support;

mod js_client;
mod python_sdk;

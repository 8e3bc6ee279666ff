//! Seeing a run and an app: the HTML report of a run ([`report`]) and the live inspector
//! ([`inspect`]); [`show`] serves a report on loopback; both run a [`loopback`] server. Pages are static files with inline CSS
//! and JS, embedded in the binary.

pub mod inspect;
pub mod loopback;
pub mod report;
pub mod show;

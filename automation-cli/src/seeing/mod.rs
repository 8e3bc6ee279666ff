//! Seeing a run and an app: the HTML report of a run ([`report`]) and the live inspector
//! ([`inspect`]); [`show`] serves a report on loopback. Pages are static files with inline CSS
//! and JS, embedded in the binary.

pub mod inspect;
pub mod report;
pub mod show;

//! Seeing a run and an app over loopback HTTP: the live inspector ([`inspect`]), and
//! [`show`], which serves a run's HTML report (the runner writes it);
//! both run a [`loopback`] server. Pages are static files with inline CSS and JS, embedded in
//! the binary.

pub mod inspect;
pub mod loopback;
pub mod show;

//! The Rust code blocks of `docs/*.md`, compiled and run as doctests.
//!
//! Each page is the documentation of one (empty) module below, so `cargo test -p docs-check
//! --doc` compiles every ```` ```rust ```` block of every page (and every unlabelled block:
//! rustdoc takes those for Rust too). Blocks marked `rust,ignore`, `text`, `sh`, `json`, … are
//! not compiled; `rust,no_run` blocks are compiled but not run.
//!
//! Every page of `docs/` has its module here:
//!
//! ```
//! let lib = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs"));
//! let docs = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs");
//! for page in std::fs::read_dir(docs).unwrap() {
//!     let name = page.unwrap().file_name().into_string().unwrap();
//!     if name.ends_with(".md") {
//!         let include = format!("include_str!(\"../../docs/{name}\")");
//!         assert!(lib.contains(&include), "docs/{name} is not checked: add it to docs-check/src/lib.rs");
//!     }
//! }
//! ```

#[doc = include_str!("../../docs/atspi.md")]
pub mod atspi_md {}

#[doc = include_str!("../../docs/audit.md")]
pub mod audit_md {}

#[doc = include_str!("../../docs/authoring.md")]
pub mod authoring_md {}

#[doc = include_str!("../../docs/cli.md")]
pub mod cli_md {}

#[doc = include_str!("../../docs/core.md")]
pub mod core_md {}

#[doc = include_str!("../../docs/egui.md")]
pub mod egui_md {}

#[doc = include_str!("../../docs/events.md")]
pub mod events_md {}

#[doc = include_str!("../../docs/golden.md")]
pub mod golden_md {}

#[doc = include_str!("../../docs/inspect.md")]
pub mod inspect_md {}

#[doc = include_str!("../../docs/expressions.md")]
pub mod expressions_md {}

#[doc = include_str!("../../docs/mcp.md")]
pub mod mcp_md {}

#[doc = include_str!("../../docs/wayland.md")]
pub mod wayland_md {}

#[doc = include_str!("../../docs/webdriver.md")]
pub mod webdriver_md {}

#[doc = include_str!("../../docs/report.md")]
pub mod report_md {}

#[doc = include_str!("../../docs/security.md")]
pub mod security_md {}

#[doc = include_str!("../../docs/transpile.md")]
pub mod transpile_md {}

#[doc = include_str!("../../docs/wire.md")]
pub mod wire_md {}

#[doc = include_str!("../../docs/workflows.md")]
pub mod workflows_md {}

//! Markdown generated from the catalog and the error codes, for the pages in `docs/` (their
//! drift tests regenerate the marked sections and compare). Pure string work: callers do the
//! file I/O.

use std::fmt::Write as _;

use crate::catalog::{Access, CATALOG, ServedBy};
use crate::error::{ErrorCode, Fault};

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// The op table: one row per catalog entry, in catalog order.
pub fn op_table() -> String {
    let mut out = String::from(
        "| op | access | served by | settle | idempotent | description |\n|---|---|---|---|---|---|\n",
    );
    for spec in CATALOG {
        let access = match spec.access {
            Access::ReadOnly => "read-only",
            Access::Mutating => "mutating",
        };
        let served = match spec.served_by {
            ServedBy::Target => "target",
            ServedBy::Host => "host",
        };
        let _ = writeln!(
            out,
            "| `{}` | {access} | {served} | {} | {} | {} |",
            spec.name,
            yes_no(spec.accepts_settle),
            yes_no(spec.idempotent),
            cell(spec.description)
        );
    }
    out
}

/// The error-code table: one row per code, in declaration order.
pub fn error_code_table() -> String {
    let mut out = String::from("| code | whose fault: what to do | meaning |\n|---|---|---|\n");
    for code in ErrorCode::ALL {
        let fault = match code.fault() {
            Fault::Request => "the request: fix it",
            Fault::Retry => "the environment: retry",
            Fault::Relaunch => "the environment: relaunch the app",
        };
        let _ = writeln!(
            out,
            "| `{}` | {fault} | {} |",
            code.as_str(),
            cell(code.meaning())
        );
    }
    out
}

/// The markers around a generated section called `name`.
pub fn markers(name: &str) -> (String, String) {
    (
        format!("<!-- BEGIN GENERATED: {name} -->"),
        format!("<!-- END GENERATED: {name} -->"),
    )
}

/// `page` with the section `name` replaced by `body`; `None` when a marker is missing.
pub fn splice(page: &str, name: &str, body: &str) -> Option<String> {
    let (begin, end) = markers(name);
    let start = page.find(&begin)? + begin.len();
    let stop = start + page.get(start..)?.find(&end)?;
    Some(format!(
        "{}\n{}{}",
        page.get(..start)?,
        body,
        page.get(stop..)?
    ))
}

//! Desktop apps over AT-SPI through the real binary: the conformance matrix, a person's cases,
//! MCP on launched apps, the truth checks and `automation audit`. Every test here that starts an
//! app holds the testkit's heavy lock.

#[path = "../support/mod.rs"]
mod support;

mod atspi_calc_mcp;
mod atspi_matrix;
mod atspi_mcp;
mod atspi_person;
mod atspi_same_script;
mod atspi_truth;
mod audit;

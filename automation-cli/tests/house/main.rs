//! The house rules, the docs (generated sections, examples, every code block) and the command
//! line a newcomer meets, through the real binary.

#[path = "../support/mod.rs"]
mod support;

mod cli;
mod docs;
mod docs_blocks;
mod docs_examples;
mod house;
mod newcomer;

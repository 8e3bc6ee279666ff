//! `automation run` and `exec`: flows, scripts, steps, hostile input, orphans, other users,
//! authoring and golden screenshots, through the real binary.

#[path = "../support/mod.rs"]
mod support;

mod authoring;
mod exec;
mod exec_crash;
mod first_hour;
mod golden;
mod runner_hostile;
mod runner_orphans;
mod runner_python;
mod runner_scripts;
mod runner_steps;
mod runner_users;

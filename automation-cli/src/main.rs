//! `automation`: see `automation --help`.

// Issue 38: no function longer than 100 lines (threshold in the workspace clippy.toml).
#![warn(clippy::too_many_lines)]

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(automation_cli::run(std::env::args_os()))
}

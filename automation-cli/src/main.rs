//! `automation`: see `automation --help`.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(automation_cli::run(std::env::args_os()))
}

//! The `recipe-drift` binary: parse the command line, run, map to an exit code.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = recipe_drift::cli::Cli::parse();
    match recipe_drift::app::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

//! The `recipe-drift` binary: parse the command line, run, map to an exit code.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = recipe_drift::cli::Cli::parse();
    match recipe_drift::commands::run(cli) {
        Ok(out) => {
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (`| head`) is not an error worth a message.
            match stdout
                .write_all(out.stdout.as_bytes())
                .and_then(|_| stdout.flush())
            {
                Ok(()) => ExitCode::from(out.code),
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(out.code),
                Err(e) => {
                    eprintln!("error: cannot write output: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

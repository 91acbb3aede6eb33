//! The `recipe-drift` binary: parse the command line, run, map to an exit code.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = recipe_drift::cli::Cli::parse();
    let color = cli.color.enabled();
    match recipe_drift::commands::run(cli) {
        Ok(out) => {
            // Everything printed passes the one output filter (secrets
            // masked, control characters escaped); colour comes after it.
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (`| head`) is not an error worth a message.
            match out.print(&mut stdout, color).and_then(|_| stdout.flush()) {
                Ok(()) => ExitCode::from(out.code),
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(out.code),
                Err(e) => {
                    error(&format!("cannot write output: {e}"));
                    ExitCode::from(2)
                }
            }
        }
        Err(e) => {
            for one in e.each() {
                error(&one.to_string());
            }
            ExitCode::from(2)
        }
    }
}

/// Writes an error line to standard error: the message (which quotes
/// inputs) masked and kept on one line (`secret::value`), then the backstop;
/// a closed or broken stderr is ignored (`eprintln!` would panic on it).
fn error(message: &str) {
    let line = recipe_drift::secret::sanitize(&format!(
        "error: {}\n",
        recipe_drift::secret::value(message)
    ));
    let mut stderr = std::io::stderr().lock();
    let _ = stderr
        .write_all(line.as_bytes())
        .and_then(|_| stderr.flush());
}

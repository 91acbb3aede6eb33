//! `recipe-drift completions SHELL` and `recipe-drift man [COMMAND]`: shell
//! completion scripts and man pages, generated from the clap definitions at
//! run time (so a binary from a wheel or a release carries them, and they
//! cannot fall behind the flags).

use clap::CommandFactory;

use super::Output;
use crate::cli::{Cli, CompletionsArgs, ManArgs};
use crate::error::Error;

/// The binary's name, as completions and man pages spell it.
const BIN: &str = "recipe-drift";

/// The completion script for a shell.
pub(super) fn completions(args: CompletionsArgs) -> Result<Output, Error> {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, BIN, &mut buf);
    text(buf)
}

/// The man page of recipe-drift, or of one of its commands.
pub(super) fn man(args: ManArgs) -> Result<Output, Error> {
    let mut cmd = Cli::command();
    cmd.build();
    let page = match &args.command {
        None => cmd,
        Some(name) => {
            let visible: Vec<&str> = cmd
                .get_subcommands()
                .filter(|c| !c.is_hide_set() && c.get_name() != "help")
                .map(|c| c.get_name())
                .collect();
            match cmd
                .find_subcommand(name)
                .filter(|c| !c.is_hide_set())
                .cloned()
            {
                // Built, it is named `recipe-drift-check`, as man pages of
                // commands are.
                Some(sub) => sub,
                None => {
                    return Err(Error::usage(format!(
                        "man: no command {name:?}; the commands are {}",
                        visible.join(", ")
                    )));
                }
            }
        }
    };
    let mut buf = Vec::new();
    clap_mangen::Man::new(page)
        .source(format!("{BIN} {}", env!("CARGO_PKG_VERSION")))
        .render(&mut buf)
        .map_err(|e| Error::usage(format!("man: cannot render the page: {e}")))?;
    text(buf)
}

fn text(buf: Vec<u8>) -> Result<Output, Error> {
    Ok(Output {
        code: 0,
        stdout: String::from_utf8(buf)
            .map_err(|e| Error::usage(format!("generated text is not UTF-8: {e}")))?,
        for_people: false,
        report: None,
    })
}

//! Text -> `Vec<Launch>`: one module per input kind.

pub mod bash;
pub mod command;
pub mod markdown;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use crate::error::Error;
use crate::launch::Launch;
use crate::source::Source;

/// The kinds of input recipe-drift reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A Markdown or MDX page (`.md`, `.mdx`, `.markdown`).
    Markdown,
    /// Shell text: a command file or a simple script (`.sh`, `.txt`, anything else).
    Command,
}

impl InputKind {
    /// The kind of a path, by extension.
    pub fn of(path: &Path) -> InputKind {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
        {
            Some(e) if matches!(e.as_str(), "md" | "mdx" | "markdown") => InputKind::Markdown,
            _ => InputKind::Command,
        }
    }
}

/// Extracts every launch of a loaded source.
/// `vars` are shell variables set before the text runs (a script's env contract).
pub fn extract_source(
    source: &Arc<Source>,
    kind: InputKind,
    vars: &BTreeMap<String, String>,
) -> Result<Vec<Launch>, Error> {
    match kind {
        InputKind::Markdown => markdown::extract(source, vars),
        InputKind::Command => command::extract(source, vars),
    }
}

/// Reads a file and extracts its launches.
pub fn extract_file(path: &Path, vars: &BTreeMap<String, String>) -> Result<Vec<Launch>, Error> {
    let source = Source::read(path)?;
    extract_source(&source, InputKind::of(path), vars)
}

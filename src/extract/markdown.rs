//! Markdown and MDX pages: the serve commands in their fenced code blocks.
//!
//! Blocks labelled `bash`, `sh`, `shell`, `zsh` or `console` are read as shell text;
//! unlabelled blocks are read only when they contain a launcher. `export` lines in a
//! block reach the commands after them in the same block only.

use std::sync::Arc;

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

use super::command::{ShellState, extract_range};
use crate::error::Error;
use crate::launch::Launch;
use crate::source::Source;

const SHELL_LANGS: &[&str] = &["bash", "sh", "shell", "zsh", "console", "shell-session"];
const LAUNCHER_HINTS: &[&str] = &[
    "sglang serve",
    "sglang.launch_server",
    "vllm serve",
    "vllm.entrypoints.openai.api_server",
];

/// Extracts the launches of every shell code block of a Markdown/MDX page.
pub fn extract(
    source: &Arc<Source>,
    vars: &std::collections::BTreeMap<String, String>,
) -> Result<Vec<Launch>, Error> {
    let mut launches = Vec::new();
    let mut in_block: Option<bool> = None; // Some(read) while inside a code block
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for (event, range) in Parser::new(&source.text).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                let read = match &kind {
                    CodeBlockKind::Fenced(info) => {
                        let lang = info
                            .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
                            .next()
                            .unwrap_or("")
                            .to_ascii_lowercase();
                        if lang.is_empty() {
                            None
                        } else {
                            Some(SHELL_LANGS.contains(&lang.as_str()))
                        }
                    }
                    CodeBlockKind::Indented => Some(false),
                };
                in_block = Some(read.unwrap_or_else(|| {
                    let text = &source.text[range.clone()];
                    LAUNCHER_HINTS.iter().any(|h| text.contains(h))
                }));
                ranges.clear();
            }
            Event::Text(_) if in_block.is_some() => ranges.push((range.start, range.end)),
            Event::End(TagEnd::CodeBlock) => {
                if in_block == Some(true) && !ranges.is_empty() {
                    let mut state = ShellState::with_vars(vars);
                    // Text events of one block are contiguous lines of the source.
                    let start = ranges[0].0;
                    let end = ranges[ranges.len() - 1].1;
                    launches.extend(extract_block(source, start, end, &mut state)?);
                }
                in_block = None;
            }
            _ => {}
        }
    }
    Ok(launches)
}

fn extract_block(
    source: &Arc<Source>,
    start: usize,
    end: usize,
    state: &mut ShellState,
) -> Result<Vec<Launch>, Error> {
    extract_range(source, start, end, state)
}

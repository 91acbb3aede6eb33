//! Text -> launches: one room per input kind, one front door.
//!
//! # The front door
//!
//! [`registry`] holds [`trait Extractor`](Extractor) and the static list of
//! extractors, one per input kind ([`kinds`]): plain command files, Markdown/MDX
//! pages (their static blocks), bash scripts, cookbook generators (`.jsx`/`.js`,
//! and `.mdx` pages that render components) and vLLM recipe YAMLs. The first
//! extractor that accepts a source reads it; that is the only place a kind is
//! decided. Local and remote sources take the same path: the file layer
//! ([`crate::files::Files`]) reads them, and the extractors that need the files
//! beside a source (generators, recipe YAMLs) refuse a remote one. Commands and
//! links reach extraction through [`extract`] and [`selections`] only; text
//! already loaded (tests, benches, fuzzing) goes through [`extract_all`] with a
//! named [`InputKind`].
//!
//! InferenceX entries are not behind the front door: an entry is a root, a key
//! and a `where` filter, and what it yields is matrix points (each with its
//! search-space fields, script and launches) that callers group and label, not
//! a list of launches. [`inferencex::expand_in`] is its one entry point.
//!
//! # One shell front end
//!
//! Every shell text is read by the bash evaluator in [`bash`]: `.sh` scripts,
//! and the shell text of pages, plain command files and the commands
//! generators print. What a page shows around its commands (prompts, output
//! lines, placeholders, container markup) is framing, taken off by
//! [`shell_text`] before the evaluator reads the text, with every position
//! kept (see docs/architecture.md, "One shell front end").
//!
//! # Rooms
//!
//! Each room depends on the leaf modules (`span`, `files`, `error`, `launch`) and on
//! [`shared`] (the result type and the `docker run` option walk). Allowed
//! compositions: [`markdown`], [`kinds`] and [`vllm_recipes`] read shell text
//! through [`shell_text`], which evaluates it with [`bash`] (and `vllm_recipes`
//! reads a guide's blocks with [`markdown`]);
//! [`inferencex`] evaluates its scripts with [`bash`] and implements bash's
//! harness hook, and reads its multi-node `dynamo-*` entries' recipes with
//! [`srt_slurm`]; [`bash`]'s harness-less entry points model InferenceX's harness
//! (plain `.sh` recipes are InferenceX scripts); [`jsx`]'s page reader takes a
//! page's code ranges from [`markdown`] (one reading of what is code, for the
//! static blocks and the component tags alike). [`vllm_recipes`] and
//! [`inferencex`] place YAML errors with `Error::yaml`.

pub mod agentx;
pub mod bash;
pub mod inferencex;
pub mod jsx;
pub(crate) mod kinds;
pub(crate) mod markdown;
pub mod registry;
pub(crate) mod shared;
pub(crate) mod shell_text;
pub mod srt_slurm;
pub(crate) mod visibility;
pub mod vllm_recipes;
pub(crate) mod yaml_tree;

use std::collections::BTreeMap;
use std::sync::Arc;

pub use markdown::{PageCode, page_code};
pub use registry::{
    Cut, EXTRACTORS, Every, Extractor, Input, Options, Selections, Shown, every_selection, extract,
    extractor_for, selections,
};
pub use shared::{Extracted, MAX_LAUNCH_WORDS, MAX_LAUNCHES, configure_launch_budget};

use crate::error::Error;
use crate::files::LocalFiles;
use crate::launch::Launch;
use crate::span::Source;

/// The kinds of text [`extract_all`] reads from a source already loaded; a
/// file's kind is decided by the [`registry`] instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A Markdown or MDX page's static code blocks.
    Markdown,
    /// A bash script, evaluated statically.
    Bash,
    /// A cookbook generator component (rendered from its file, not from text).
    Jsx,
    /// Plain command lines.
    Command,
}

impl InputKind {
    /// The extractor that reads this kind.
    pub fn extractor(self) -> &'static dyn Extractor {
        match self {
            InputKind::Markdown => &kinds::Markdown,
            InputKind::Bash => &kinds::Bash,
            InputKind::Jsx => &kinds::Generator,
            InputKind::Command => &kinds::Command,
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
    Ok(extract_all(source, kind, vars)?.launches)
}

/// Extracts launches and notes of a loaded source (the scripts a bash script
/// runs are read from disk).
pub fn extract_all(
    source: &Arc<Source>,
    kind: InputKind,
    vars: &BTreeMap<String, String>,
) -> Result<Extracted, Error> {
    shared::per_file(|| kind.extractor().extract_text(source, vars, &LocalFiles))
}

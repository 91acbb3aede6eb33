//! What the extractor rooms share: the result type of extraction, the
//! per-file launch budget, and the `docker run` option walk both shell front
//! ends use.

use std::cell::Cell;

use crate::error::Error;
use crate::launch::Launch;

/// The most launches one file may yield by default (`--max-launches`): a
/// page's blocks and the commands its generators print, a script, a command
/// file (real ones: one to a few dozen).
pub const MAX_LAUNCHES: usize = 1_000;

/// The most words (launcher, arguments and environment entries) the launches
/// of one file may have in all by default (`--max-launch-words`; real
/// launches: tens of words each).
pub const MAX_LAUNCH_WORDS: usize = 50_000;

/// The per-file launch budget set for this run (`--max-launches`,
/// `--max-launch-words`); zero: the defaults.
static CONFIGURED: [std::sync::atomic::AtomicUsize; 2] = [
    std::sync::atomic::AtomicUsize::new(0),
    std::sync::atomic::AtomicUsize::new(0),
];

/// Sets the per-file launch budget for the rest of the run (the command
/// line's `--max-launches` and `--max-launch-words`).
pub fn configure_launch_budget(launches: usize, words: usize) {
    use std::sync::atomic::Ordering::Relaxed;
    CONFIGURED[0].store(launches, Relaxed);
    CONFIGURED[1].store(words, Relaxed);
}

/// The run's budget: (launches, words).
fn budget() -> (usize, usize) {
    use std::sync::atomic::Ordering::Relaxed;
    let or = |v: usize, default: usize| if v == 0 { default } else { v };
    (
        or(CONFIGURED[0].load(Relaxed), MAX_LAUNCHES),
        or(CONFIGURED[1].load(Relaxed), MAX_LAUNCH_WORDS),
    )
}

thread_local! {
    /// Launches and words counted so far for the file being extracted on this
    /// thread, while [`per_file`] runs.
    static TALLY: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
}

/// Runs `f` (the extraction of one file) with a fresh count of its launches:
/// extractors that build launches one at a time call [`tally`] and stop at the
/// first launch over the budget, and what `f` returns is checked whole, so
/// every kind is held to the run's budget ([`MAX_LAUNCHES`] and
/// [`MAX_LAUNCH_WORDS`] unless [`configure_launch_budget`] set others).
pub(crate) fn per_file(f: impl FnOnce() -> Result<Extracted, Error>) -> Result<Extracted, Error> {
    let outer = TALLY.with(|t| t.replace(Some((0, 0))));
    let found = f();
    TALLY.with(|t| t.set(outer));
    let found = found?;
    let mut words = 0;
    for (i, l) in found.launches.iter().enumerate() {
        words += launch_words(l);
        over_budget(l, i + 1, words)?;
    }
    Ok(found)
}

/// Counts one launch of the file being extracted (in [`per_file`]); an error
/// at this launch when it is over the budget.
pub(crate) fn tally(launch: &Launch) -> Result<(), Error> {
    let Some((n, words)) = TALLY.with(Cell::get) else {
        return Ok(());
    };
    let (n, words) = (n + 1, words + launch_words(launch));
    TALLY.with(|t| t.set(Some((n, words))));
    over_budget(launch, n, words)
}

fn launch_words(l: &Launch) -> usize {
    l.launcher.len() + l.argv.len() + l.env.len()
}

/// The error when the `n`th launch of a file (with `words` words in all so
/// far) is over the per-file budget.
fn over_budget(l: &Launch, n: usize, words: usize) -> Result<(), Error> {
    let (max_launches, max_words) = budget();
    let what = if n > max_launches {
        format!(
            "more than {max_launches} launches (the per-file launch budget; raise it with --max-launches)"
        )
    } else if words > max_words {
        format!(
            "launches of more than {max_words} words in all (the per-file launch budget; raise it with --max-launch-words)"
        )
    } else {
        return Ok(());
    };
    Err(Error::input(
        l.span.clone(),
        format!("this file has {what}"),
    ))
}

/// Everything extraction found: launches and launches of unsupported engines.
#[derive(Debug, Default)]
pub struct Extracted {
    /// Server launches.
    pub launches: Vec<Launch>,
    /// `file:line:col: ...` for launches of engines recipe-drift does not resolve.
    pub unsupported: Vec<String>,
}

/// The launches, or an error at the first launch of an unsupported engine.
pub(crate) fn launches_only(found: Extracted) -> Result<Vec<Launch>, Error> {
    match found.unsupported.first() {
        Some(note) => Err(Error::Usage(note.clone())),
        None => Ok(found.launches),
    }
}

/// `docker run` options that take no value.
const DOCKER_BOOL_LONG: &[&str] = &[
    "--rm",
    "--detach",
    "--interactive",
    "--tty",
    "--privileged",
    "--init",
    "--publish-all",
    "--read-only",
    "--no-healthcheck",
    "--oom-kill-disable",
    "--quiet",
];

/// What the options of `docker run` say: the `-e`/`--env` values (with the index of
/// the word that holds each) and the index of the image word.
pub(crate) struct DockerRun {
    /// `-e` values, `NAME=value` or `NAME`, with their word index.
    pub env: Vec<(String, usize)>,
    /// The image word, if the options end before the words do.
    pub image: Option<usize>,
    /// `--entrypoint PROGRAM`: the index of the word that holds PROGRAM.
    pub entrypoint: Option<usize>,
    /// `--env-file FILE` values, with their word index.
    pub env_files: Vec<(String, usize)>,
}

/// Walks `docker run` options over the words after `run`.
pub(crate) fn docker_run_options(words: &[&str]) -> DockerRun {
    let mut env = Vec::new();
    let mut env_files = Vec::new();
    let mut entrypoint = None;
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if w == "--" {
            i += 1;
            break;
        }
        if !w.starts_with('-') || w == "-" {
            break;
        }
        // `--name=value`; a short option's value may be attached (`-eK=V`,
        // after a cluster of boolean letters: `-itd`, `-ite K=V`).
        let (name, inline) = if w.starts_with("--") {
            match w.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (w.to_string(), None),
            }
        } else {
            match w[1..].char_indices().find(|(_, c)| !"ditPq".contains(*c)) {
                None => (w.to_string(), None),
                Some((k, c)) => {
                    let rest = &w[1 + k + c.len_utf8()..];
                    let rest = rest.strip_prefix('=').unwrap_or(rest);
                    (
                        format!("-{c}"),
                        (!rest.is_empty()).then(|| rest.to_string()),
                    )
                }
            }
        };
        let name = name.as_str();
        let takes_value = if name.starts_with("--") {
            !DOCKER_BOOL_LONG.contains(&name)
        } else {
            // Short flags: a cluster of boolean letters takes no value.
            !name[1..].chars().all(|c| "ditPq".contains(c))
        };
        let (value, at) = if !takes_value || inline.is_some() {
            (inline, i)
        } else if i + 1 < words.len() {
            i += 1;
            (Some(words[i].to_string()), i)
        } else {
            (None, i)
        };
        match (name, value) {
            ("-e" | "--env", Some(v)) => env.push((v, at)),
            ("--env-file", Some(v)) => env_files.push((v, at)),
            ("--entrypoint", Some(_)) => entrypoint = Some(at),
            _ => {}
        }
        i += 1;
    }
    DockerRun {
        env,
        image: (i < words.len()).then_some(i),
        entrypoint,
        env_files,
    }
}

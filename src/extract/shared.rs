//! What the extractor rooms share: the result type of extraction and the
//! `docker run` option walk both shell front ends use.

use crate::error::Error;
use crate::launch::Launch;

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
}

/// Walks `docker run` options over the words after `run`.
pub(crate) fn docker_run_options(words: &[&str]) -> DockerRun {
    let mut env = Vec::new();
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
        let (name, inline) = match w.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (w, None),
        };
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
        if (name == "-e" || name == "--env")
            && let Some(v) = value
        {
            env.push((v, at));
        }
        i += 1;
    }
    DockerRun {
        env,
        image: (i < words.len()).then_some(i),
    }
}

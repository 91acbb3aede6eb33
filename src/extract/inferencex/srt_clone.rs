//! The srt-slurm checkout a multi-node point's runner clones: the runner
//! label's machines (`configs/runners.yaml`) name their launch scripts
//! (`runners/launch_<machine prefix>.sh`, as the workflow runs
//! `launch_${RUNNER_NAME%%_*}.sh`); each is evaluated by the bash evaluator
//! (never run) in the point's environment, and the `git clone` it runs (of
//! several, the one of a repository whose name starts with `srt-slurm`),
//! with the `--branch` it names and the `git checkout` after it, give the
//! repository and ref. A clone or checkout after an `exit` that may have run
//! is not conditional on it: had it run, no job would read the recipe.
//!
//! What is not decided is a reason, never a guess: a clone or checkout that
//! runs only under a condition that is not knowable, a URL or ref that is
//! not knowable, a clone from outside GitHub, machines whose scripts clone
//! different refs.

use std::collections::BTreeMap;

use super::config::Entry;
use crate::error::Error;
use crate::extract::bash::{self, NoHarness, Recorded};
use crate::extract::yaml_tree::{self, Options, Place, Schema, Val};
use crate::files::{Files, Location, RemoteRef};
use crate::launch::{Provenance, Token};

/// Where InferenceX lists each runner label's machines.
pub const RUNNERS: &str = "configs/runners.yaml";

/// How the name of the srt-slurm repository starts (NVIDIA's, or a fork's:
/// `srt-slurm-nv`), which picks the srt-slurm clone among several.
const REPOSITORY: &str = "srt-slurm";

/// `git clone` options that take a value (the next word, or attached with `=`).
const CLONE_VALUE_OPTIONS: &[&str] = &[
    "-b",
    "--branch",
    "-o",
    "--origin",
    "-c",
    "--config",
    "-u",
    "--upload-pack",
    "-j",
    "--jobs",
    "--depth",
    "--reference",
    "--reference-if-able",
    "--filter",
    "--template",
    "--separate-git-dir",
    "--shallow-since",
    "--shallow-exclude",
    "--server-option",
    "--bundle-uri",
];

/// `git checkout` options that make or move a branch rather than check one
/// out: the ref is then not the word read.
const CHECKOUT_BRANCHING: &[&str] = &["-b", "-B", "--orphan"];

/// The repository and ref a runner clones srt-slurm at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cloned {
    /// The GitHub owner (`NVIDIA`, or a fork's).
    pub owner: String,
    /// The repository's name.
    pub repo: String,
    /// The branch, tag or commit (`HEAD`: the default branch, when the
    /// script names none).
    pub rev: String,
    /// Where the ref is decided (`file:line:col` of the checkout, the
    /// `--branch` or the clone).
    pub at: String,
}

impl Cloned {
    /// A file of the clone, as a remote file of the fetch layer.
    pub fn file(&self, path: &str) -> Location {
        Location::Remote(RemoteRef::Github {
            owner: self.owner.clone(),
            repo: self.repo.clone(),
            rev: self.rev.clone(),
            path: path.to_string(),
        })
    }
}

/// The clone the runner of `entry` makes for one point (`env`/`unknown`: the
/// environment the workflow gives its launch script), or why it is not
/// knowable.
pub(super) fn cloned(
    root: &Location,
    entry: &Entry,
    env: &BTreeMap<String, String>,
    unknown: &BTreeMap<String, String>,
    files: &dyn Files,
) -> Result<Result<Cloned, String>, Error> {
    let scripts = match launch_scripts(root, &entry.runner, files)? {
        Ok(s) => s,
        Err(why) => return Ok(Err(why)),
    };
    let mut found: Vec<(Cloned, String)> = Vec::new();
    for script in scripts {
        let source = files.read(&script)?;
        let evaluated = match bash::evaluate_with(&source, env, Some(unknown), files, &NoHarness) {
            Ok(e) => e,
            Err(e) => {
                return Ok(Err(format!(
                    "the runner's launch script is not knowable: {e}"
                )));
            }
        };
        match clone_of(&evaluated.recorded) {
            Ok(c) => found.push((c, script.display())),
            Err(why) => return Ok(Err(format!("{}: {why}", script.display()))),
        }
    }
    let first = found[0].0.clone();
    if found
        .iter()
        .all(|(c, _)| (&c.owner, &c.repo, &c.rev) == (&first.owner, &first.repo, &first.rev))
    {
        return Ok(Ok(first));
    }
    Ok(Err(format!(
        "runner {}'s machines run launch scripts that clone different refs: {}",
        entry.runner,
        found
            .iter()
            .map(|(c, s)| format!("{}/{}@{} ({s})", c.owner, c.repo, c.rev))
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

/// The launch scripts of a runner label's machines, one per machine prefix
/// (`gb200-nv_3` -> `runners/launch_gb200-nv.sh`), in the list's order.
fn launch_scripts(
    root: &Location,
    label: &str,
    files: &dyn Files,
) -> Result<Result<Vec<Location>, String>, Error> {
    let list = root.join(RUNNERS);
    if !files.is_file(&list)? {
        return Ok(Err(format!(
            "{} is not in this checkout: runner {label}'s machines (and so its launch script) are not known",
            list.display()
        )));
    }
    let source = files.read(&list)?;
    let options = Options {
        schema: Schema::PyYaml11,
        place: Place::Referenced,
        max_map_entries: None,
        inner_key_name: None,
        key_name: |key| match &key.val {
            Val::Str(s) => Some(s.clone()),
            _ => None,
        },
    };
    let doc = yaml_tree::parse(&source, &options)?;
    let Some(machines) = doc.path(&["labels", label]) else {
        return Ok(Err(format!(
            "runner label {label} is not in {}'s labels: its machines (and so its launch script) are not known",
            list.display()
        )));
    };
    let mut prefixes: Vec<&str> = Vec::new();
    for m in machines.items() {
        let name = m
            .as_str()
            .ok_or_else(|| Error::input(m.span.clone(), "a runner machine is a name"))?;
        let prefix = name.split('_').next().unwrap_or(name);
        if !prefixes.contains(&prefix) {
            prefixes.push(prefix);
        }
    }
    if prefixes.is_empty() {
        return Ok(Err(format!(
            "runner label {label} lists no machines in {}",
            list.display()
        )));
    }
    let mut scripts = Vec::new();
    for p in prefixes {
        let script = root.join(&format!("runners/launch_{p}.sh"));
        if !files.is_file(&script)? {
            return Ok(Err(format!(
                "the launch script {} of runner {label}'s machines {p}_* is not in this checkout",
                script.display()
            )));
        }
        scripts.push(script);
    }
    Ok(Ok(scripts))
}

/// Why a word is not knowable, if it is not.
fn unknown_word(t: &Token) -> Option<&str> {
    match &t.provenance {
        Provenance::Unknown { reason } => Some(reason),
        _ => None,
    }
}

/// A `git clone` that may be the srt-slurm one: its index among the recorded
/// commands, its GitHub repository (`None`: its URL is not knowable) and its
/// `--branch` word.
#[derive(Debug, Clone)]
struct Candidate {
    at: usize,
    repo: Option<(String, String)>,
    branch: Option<Token>,
}

/// The srt-slurm clone among a script's recorded commands, and its ref.
fn clone_of(recorded: &[Recorded]) -> Result<Cloned, String> {
    // The clones the script runs; of several, those that are, or may be, of
    // a repository named srt-slurm (a fork may add to the name:
    // `srt-slurm-nv`).
    let mut clones: Vec<Candidate> = Vec::new();
    for (i, r) in recorded.iter().enumerate() {
        if r.name != "git clone" {
            continue;
        }
        let (url, branch) = clone_operands(&r.args);
        let Some(url) = url else { continue };
        if unknown_word(&url).is_some() {
            clones.push(Candidate {
                at: i,
                repo: None,
                branch,
            });
            continue;
        }
        match github_repo(&url.text) {
            Some(repo) => clones.push(Candidate {
                at: i,
                repo: Some(repo),
                branch,
            }),
            None => {
                return Err(format!(
                    "it clones {} at {}, which is not a GitHub repository the fetch layer reads",
                    url.text, r.span
                ));
            }
        }
    }
    if clones.len() > 1 {
        clones.retain(|c| {
            c.repo
                .as_ref()
                .is_none_or(|(_, name)| name.starts_with(REPOSITORY))
        });
    }
    let Candidate {
        at: i,
        repo,
        branch,
    } = match clones.as_slice() {
        [] => {
            return Err(format!(
                "it clones no {REPOSITORY} repository for this point"
            ));
        }
        [one] => one.clone(),
        many => {
            return Err(format!(
                "it may clone {REPOSITORY} {} times for this point ({})",
                many.len(),
                many.iter()
                    .map(|c| recorded[c.at].span.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    };
    let clone = &recorded[i];
    if let Some(c) = &clone.condition {
        return Err(format!(
            "its {REPOSITORY} clone at {} runs only under a condition that is not knowable: {c}",
            clone.span
        ));
    }
    let Some((owner, repo)) = repo else {
        let why = clone_operands(&clone.args)
            .0
            .and_then(|u| unknown_word(&u).map(str::to_string))
            .unwrap_or_default();
        return Err(format!(
            "the URL its clone at {} names is not knowable: {why}",
            clone.span
        ));
    };
    let (mut rev, mut at) = match branch {
        Some(b) => match unknown_word(&b) {
            Some(why) => {
                return Err(format!(
                    "the --branch of its {REPOSITORY} clone at {} is not knowable: {why}",
                    b.span
                ));
            }
            None => (b.text.clone(), b.span.to_string()),
        },
        None => ("HEAD".to_string(), clone.span.to_string()),
    };
    // The checkouts after the clone, up to the next clone of anything.
    for r in recorded[i + 1..]
        .iter()
        .take_while(|r| r.name != "git clone")
    {
        if r.name != "git checkout" {
            continue;
        }
        let Some(word) = checkout_ref(&r.args)? else {
            continue;
        };
        if let Some(c) = &r.condition {
            return Err(format!(
                "its checkout at {} runs only under a condition that is not knowable: {c}",
                r.span
            ));
        }
        if let Some(why) = unknown_word(word) {
            return Err(format!(
                "the ref its checkout at {} names is not knowable: {why}",
                word.span
            ));
        }
        rev = word.text.clone();
        at = word.span.to_string();
    }
    Ok(Cloned {
        owner,
        repo,
        rev,
        at,
    })
}

/// A clone's URL (its first operand) and its `--branch` value word.
fn clone_operands(args: &[Token]) -> (Option<Token>, Option<Token>) {
    let mut url = None;
    let mut branch = None;
    let mut k = 0;
    let mut options = true;
    while k < args.len() {
        let t = args[k].text.as_str();
        if options && t == "--" {
            options = false;
        } else if options && CLONE_VALUE_OPTIONS.contains(&t) {
            if matches!(t, "-b" | "--branch") {
                branch = args.get(k + 1).cloned();
            }
            k += 1;
        } else if options && let Some(v) = t.strip_prefix("--branch=") {
            branch = Some(Token {
                text: v.to_string(),
                ..args[k].clone()
            });
        } else if options && t.starts_with('-') {
            // A flag, or another option with its value attached.
        } else if url.is_none() {
            url = Some(args[k].clone());
        }
        k += 1;
    }
    (url, branch)
}

/// The ref word a checkout names, `None` for a checkout of files (`--`), an
/// error for one that makes a branch.
fn checkout_ref(args: &[Token]) -> Result<Option<&Token>, String> {
    if args.iter().any(|t| t.text == "--") {
        return Ok(None);
    }
    if let Some(t) = args
        .iter()
        .find(|t| CHECKOUT_BRANCHING.contains(&t.text.as_str()))
    {
        return Err(format!(
            "its checkout at {} makes a branch (`{}`), which is not modelled",
            t.span, t.text
        ));
    }
    Ok(args.iter().find(|t| !t.text.starts_with('-')))
}

/// The owner and name of a GitHub repository URL
/// (`https://github.com/OWNER/NAME[.git]`, `git@github.com:OWNER/NAME.git`).
fn github_repo(url: &str) -> Option<(String, String)> {
    let rest = [
        "https://github.com/",
        "http://github.com/",
        "git@github.com:",
        "ssh://git@github.com/",
    ]
    .iter()
    .find_map(|p| url.strip_prefix(p))?;
    let rest = rest.trim_end_matches('/');
    let rest = rest.strip_suffix(".git").unwrap_or(rest);
    let (owner, name) = rest.split_once('/')?;
    let ok = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    (ok(owner) && ok(name)).then(|| (owner.to_string(), name.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_urls_name_their_repository() {
        for url in [
            "https://github.com/NVIDIA/srt-slurm.git",
            "https://github.com/NVIDIA/srt-slurm",
            "git@github.com:NVIDIA/srt-slurm.git",
        ] {
            assert_eq!(
                github_repo(url),
                Some(("NVIDIA".into(), "srt-slurm".into())),
                "{url}"
            );
        }
        assert_eq!(github_repo("https://gitlab.com/a/srt-slurm.git"), None);
        assert_eq!(github_repo("https://github.com/a/b/c"), None);
    }
}

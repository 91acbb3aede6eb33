//! Plain command lines: shell words with positions, env prefixes, `export` lines,
//! `docker run` wrappers and the engine launchers.
//!
//! The word splitting follows POSIX shell quoting like `shell-words` does (single
//! quotes, double quotes with `\` escapes, backslash escapes, `\`-newline
//! continuations, `#` comments) but keeps the byte span of every word, which
//! `shell-words` does not expose. Nothing is executed; `$VAR` expands only from
//! variables assigned earlier in the same text.

mod forms;

use forms::Cut;

use std::collections::BTreeMap;
use std::sync::Arc;

use super::shared::{Extracted, docker_run_options, launches_only};
use crate::error::Error;
use crate::files::{LineEndings, check_line_endings};
use crate::launch::{
    Context, Detected, EnvVar, Known, Launch, Platform, Provenance, Starts, Token,
};
use crate::span::Source;

/// A shell word before launch detection.
#[derive(Debug, Clone)]
struct Word {
    text: String,
    start: usize,
    end: usize,
    provenance: Provenance,
    /// `NAME=value` written with an unquoted name.
    assignment: Option<(String, String)>,
}

/// Shell variables assigned so far in a text, and which of them are exported.
#[derive(Debug, Default, Clone)]
pub struct ShellState {
    vars: BTreeMap<String, String>,
    /// Variables whose value is not knowable from the text, with the reason.
    unknown: BTreeMap<String, String>,
    exported: Vec<(String, usize, usize)>,
    /// The first other program the text runs before a launch (`awk ... >
    /// cfg.yaml`, `python gen.py`): plain-command extraction does not
    /// evaluate it, so a file a later launch reads (`--config`) may have
    /// been written by it. Where and what, as a reason.
    ran_other: Option<String>,
}

impl ShellState {
    /// How the value of a set variable is known.
    fn provenance_of(&self, name: &str) -> Provenance {
        match self.unknown.get(name) {
            Some(reason) => Provenance::Unknown {
                reason: format!("${name} comes from something not knowable ({reason})"),
            },
            None => Provenance::Var {
                name: name.to_string(),
            },
        }
    }

    fn assign(&mut self, name: &str, value: &str, provenance: &Provenance) {
        self.vars.insert(name.to_string(), value.to_string());
        match provenance {
            Provenance::Unknown { reason } => {
                self.unknown.insert(name.to_string(), reason.clone());
            }
            _ => {
                self.unknown.remove(name);
            }
        }
    }

    /// A state with variables already set (not exported), like a script's inputs.
    pub fn with_vars(vars: &BTreeMap<String, String>) -> ShellState {
        ShellState {
            vars: vars.clone(),
            unknown: BTreeMap::new(),
            exported: Vec::new(),
            ran_other: None,
        }
    }
}

/// Extracts every launch from `source.text[start..end]` read as shell text, and
/// the launches of engines recipe-drift does not resolve.
/// `console` strips transcript prompts (`$ `, `> `, `user@host:~$ `).
pub fn extract_range(
    source: &Arc<Source>,
    start: usize,
    end: usize,
    state: &mut ShellState,
    console: bool,
) -> Result<Extracted, Error> {
    extract_range_in(source, start, end, state, console, &[])
}

/// [`extract_range`] over a code block nested in containers (a blockquote, a
/// list item): `containers` holds, for each line of the range that starts
/// with container markup (`> `, list indentation), the byte range of that
/// markup, sorted. The lexer steps over it after every line break, as a
/// reader never sees it: a `> ` there is no redirection, and no blank of it
/// lands inside a quoted word.
pub(crate) fn extract_range_in(
    source: &Arc<Source>,
    start: usize,
    end: usize,
    state: &mut ShellState,
    console: bool,
    containers: &[(usize, usize)],
) -> Result<Extracted, Error> {
    let mut lexer = Lexer {
        source,
        text: &source.text[..end],
        pos: start,
        at_line_start: true,
        console,
        heredocs: Vec::new(),
        containers,
        orphan_next: false,
    };
    let mut found = Extracted::default();
    // Set while the commands run only if an earlier test (`[ ... ] &&`) succeeded.
    let mut guard: Option<(String, usize)> = None;
    loop {
        let orphan = std::mem::take(&mut lexer.orphan_next);
        let Some(cmd) = lexer.next_command(state)? else {
            break;
        };
        if orphan {
            // The line a comment cut off runs as a command of its own, named
            // by an option: bash fails it (no such program), which changes
            // nothing, unless a command after it runs on that failure.
            if cmd.sep == Sep::Conditional {
                let w = &cmd.words[0];
                return Err(Error::input(
                    source.span(w.start, w.start),
                    "this line runs as a command of its own (a `#` comment ended the command before it), and the command after `&&`/`||` depends on its failure; plain-command extraction does not evaluate that",
                ));
            }
            guard = None;
            continue;
        }
        let first = cmd.words[0].text.clone();
        let is_test = matches!(first.as_str(), "[" | "[[" | "test") || first.starts_with("((");
        if let Some((test, at)) = &guard {
            let w = &cmd.words[0];
            let acts = w.assignment.is_some()
                || w.text == "export"
                || detect_launcher(&cmd.words).is_some();
            if acts {
                return Err(Error::input(
                    source.span(w.start, w.start),
                    format!(
                        "this command runs only if the test `{test} ...` at {} succeeds; plain-command extraction does not evaluate tests",
                        source.span(*at, *at)
                    ),
                ));
            }
        }
        guard = match cmd.sep {
            Sep::Conditional if is_test => Some((first.clone(), cmd.words[0].start)),
            Sep::Conditional | Sep::Pipe => guard.take(),
            Sep::Plain => None,
        };
        match run_command(source, cmd.words, cmd.cut, state)? {
            Ran::Launch(launch) => {
                super::shared::tally(&launch)?;
                found.launches.push(*launch)
            }
            Ran::Unsupported(note) => found.unsupported.push(note),
            Ran::Nothing => {}
        }
    }
    Ok(found)
}

/// What one simple command did.
enum Ran {
    /// It started a server of an engine recipe-drift resolves.
    Launch(Box<Launch>),
    /// It started an engine recipe-drift does not resolve (`file:line:col: ...`).
    Unsupported(String),
    /// Anything else (assignments, exports, other programs).
    Nothing,
}

/// Extracts every launch of a whole shell text (a `.sh`/`.txt` command file),
/// and the launches of engines recipe-drift does not resolve.
pub fn extract_all(
    source: &Arc<Source>,
    vars: &BTreeMap<String, String>,
) -> Result<Extracted, Error> {
    check_line_endings(source, LineEndings::Text)?;
    let mut state = ShellState::with_vars(vars);
    let start = if source.text.starts_with('\u{feff}') {
        3
    } else {
        0
    };
    extract_range(source, start, source.text.len(), &mut state, false)
}

/// The launches of a whole shell text; a launch of an engine recipe-drift does
/// not resolve is an input error here (callers that list such launches use
/// [`extract_all`]).
pub fn extract(
    source: &Arc<Source>,
    vars: &BTreeMap<String, String>,
) -> Result<Vec<Launch>, Error> {
    launches_only(extract_all(source, vars)?)
}

/// Applies one simple command to the shell state; says whether it starts a server.
fn run_command(
    source: &Arc<Source>,
    words: Vec<Word>,
    cut: Option<Cut>,
    state: &mut ShellState,
) -> Result<Ran, Error> {
    let mut i = 0;
    let all_start = words.first().map(|w| w.start).unwrap_or(0);
    let mut env: Vec<EnvVar> = exported_env(source, state);
    // Leading assignments: env for this command, or shell variables if nothing follows.
    let mut prefix = Vec::new();
    while i < words.len() {
        match &words[i].assignment {
            Some(a) => prefix.push((a.clone(), words[i].start, words[i].end)),
            None => break,
        }
        i += 1;
    }
    if i == words.len() {
        for (w, ((name, value), _, _)) in words.iter().zip(prefix) {
            state.assign(&name, &value, &w.provenance);
        }
        return Ok(Ran::Nothing);
    }
    for (w, ((name, value), s, e)) in words.iter().zip(prefix) {
        push_env(&mut env, source, name, value, s, e, w.provenance.clone());
    }
    let rest = &words[i..];
    match rest[0].text.as_str() {
        "export" => {
            for w in &rest[1..] {
                if let Some((name, value)) = &w.assignment {
                    state.assign(name, value, &w.provenance);
                    mark_exported(state, name, w.start, w.end);
                } else if !w.text.starts_with('-') && state.vars.contains_key(&w.text) {
                    mark_exported(state, &w.text, w.start, w.end);
                }
            }
            return Ok(Ran::Nothing);
        }
        "unset" => {
            for w in &rest[1..] {
                state.vars.remove(&w.text);
                state.exported.retain(|(n, _, _)| n != &w.text);
            }
            return Ok(Ran::Nothing);
        }
        _ => {}
    }
    let mut context = Context::default();
    let words = unwrap_wrappers(source, rest, &mut env, &mut context, state)?;
    let Some(detected) = detect_launcher(words) else {
        // A launcher run through a program that is not modelled (`srun ...
        // sglang serve`): reported, never dropped.
        let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        if let Some((j, d)) = crate::launch::launcher_inside(&texts) {
            let name = match d.starts {
                Starts::Engine(e) => e.name(),
                Starts::Unsupported(n) | Starts::Auxiliary(n) => n,
            };
            return Ok(Ran::Unsupported(format!(
                "{}: `{}` runs `{}` ({name}) through a program that is not modelled: {}",
                source.span(words[0].start, words[0].start),
                texts[0].rsplit('/').next().unwrap_or(""),
                texts[j..j + d.len].join(" "),
                crate::launch::NOT_MODELLED,
            )));
        }
        // `python -c CODE` naming an engine's package: not evaluated.
        if let Some(Ok(starts)) = crate::launch::python_code_starts(&texts, &|_| true) {
            let name = match starts {
                Starts::Engine(e) => e.name(),
                Starts::Unsupported(n) | Starts::Auxiliary(n) => n,
            };
            return Ok(Ran::Unsupported(format!(
                "{}: `{} -c` runs Python code that is not evaluated and may start {name}: {}",
                source.span(words[0].start, words[0].start),
                texts[0].rsplit('/').next().unwrap_or(""),
                crate::launch::NOT_MODELLED,
            )));
        }
        if state.ran_other.is_none() {
            state.ran_other = Some(format!(
                "possibly changed by `{}` at {} (another command of the text, which plain-command extraction does not evaluate)",
                crate::secret::value(words[0].text.rsplit('/').next().unwrap_or("")),
                source.span(words[0].start, words[0].start)
            ));
        }
        return Ok(Ran::Nothing);
    };
    let launcher_len = detected.len;
    let engine = match detected.starts {
        Starts::Engine(e) => e,
        Starts::Auxiliary(name) => {
            let w = &words[0];
            return Ok(Ran::Unsupported(format!(
                "{}: `{}` starts {name}, an auxiliary process (not compared)",
                source.span(w.start, w.start),
                words
                    .iter()
                    .map(|w| w.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            )));
        }
        Starts::Unsupported(name) => {
            let w = &words[0];
            return Ok(Ran::Unsupported(format!(
                "{}: `{}` starts {name}, an engine recipe-drift does not resolve",
                source.span(w.start, w.start),
                words[..launcher_len]
                    .iter()
                    .map(|w| w.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            )));
        }
    };
    // `--help` / `--version` print and exit: not a server start.
    if words[launcher_len..]
        .iter()
        .any(|w| matches!(w.text.as_str(), "-h" | "--help" | "--version"))
    {
        return Ok(Ran::Nothing);
    }
    let to_token = |w: &Word| Token {
        text: w.text.clone(),
        span: source.span(w.start, w.end),
        provenance: w.provenance.clone(),
    };
    let first = words.first().map(|w| w.start).unwrap_or(0).min(all_start);
    let last = words.last().map(|w| w.end).unwrap_or(first);
    let launch = Launch {
        engine,
        launcher: words[..launcher_len].iter().map(to_token).collect(),
        argv: words[launcher_len..].iter().map(to_token).collect(),
        env,
        context,
        span: source.span(first, last),
        source: source.clone(),
        cwd: crate::launch::WorkDir::Start,
        written: crate::launch::Written {
            anywhere: state.ran_other.clone(),
            ..crate::launch::Written::default()
        },
        env_open: None,
        defects: cut
            .map(|c| forms::broken_continuation(source, c))
            .into_iter()
            .collect(),
    };
    launch.note_env_secrets();
    Ok(Ran::Launch(Box::new(launch)))
}

fn exported_env(source: &Source, state: &ShellState) -> Vec<EnvVar> {
    state
        .exported
        .iter()
        .filter_map(|(name, s, e)| {
            state.vars.get(name).map(|v| EnvVar {
                name: name.clone(),
                value: v.clone(),
                span: source.span(*s, *e),
                provenance: state.provenance_of(name),
            })
        })
        .collect()
}

fn mark_exported(state: &mut ShellState, name: &str, start: usize, end: usize) {
    state.exported.retain(|(n, _, _)| n != name);
    state.exported.push((name.to_string(), start, end));
}

fn push_env(
    env: &mut Vec<EnvVar>,
    source: &Source,
    name: String,
    value: String,
    s: usize,
    e: usize,
    provenance: Provenance,
) {
    env.retain(|v| v.name != name);
    env.push(EnvVar {
        name,
        value,
        span: source.span(s, e),
        provenance,
    });
}

/// Strips `env K=V`, `exec`, `nohup` and `docker run [opts] IMAGE` in front of a command.
fn unwrap_wrappers<'w>(
    source: &Source,
    mut words: &'w [Word],
    env: &mut Vec<EnvVar>,
    context: &mut Context,
    state: &ShellState,
) -> Result<&'w [Word], Error> {
    loop {
        let Some(first) = words.first() else {
            return Ok(words);
        };
        match first.text.as_str() {
            // `exec [-cl] [-a NAME] CMD`: its options come before the command.
            "exec" => {
                let mut i = 1;
                while i < words.len() && words[i].text.starts_with('-') {
                    i += if words[i].text == "-a" { 2 } else { 1 };
                }
                words = &words[i.min(words.len())..];
            }
            "command" => words = &words[1..],
            "env" => {
                let mut i = 1;
                while i < words.len() {
                    let w = &words[i];
                    if let Some((n, v)) = w.text.split_once('=').filter(|(n, _)| is_name(n)) {
                        push_env(
                            env,
                            source,
                            n.to_string(),
                            v.to_string(),
                            w.start,
                            w.end,
                            w.provenance.clone(),
                        );
                    } else if w.text == "-u" || w.text == "--unset" {
                        if let Some(name) = words.get(i + 1) {
                            env.retain(|e| e.name != name.text);
                        }
                        i += 1;
                    } else if !w.text.starts_with('-') {
                        break;
                    }
                    i += 1;
                }
                words = &words[i.min(words.len())..];
            }
            "bash" | "sh" | "zsh"
                if words.get(1).is_some_and(|w| w.text == "-c")
                    && words.get(2).is_some_and(|w| mentions_launcher(&w.text)) =>
            {
                return Err(Error::input(
                    source.span(words[2].start, words[2].start),
                    "a launcher inside `bash -c \"...\"` is not unwrapped by plain-command extraction",
                ));
            }
            "docker" | "podman" if words.get(1).is_some_and(|w| w.text == "run") => {
                // Only `-e` reaches the container: the host's env stays outside.
                let host_env = std::mem::take(env);
                let (rest, image) = docker_run(source, &words[2..], env, &host_env, state)?;
                if let Some(img) = image {
                    let from = format!("image {} at {}", img.text, source.span(img.start, img.end));
                    context.fill_from(&Context::from_image(&img.text, &from));
                }
                words = rest;
            }
            _ => {
                // A row of the wrapper table (`nice -n 5`, `timeout 3600`, ...).
                let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
                let Some((w, used)) = crate::launch::read_wrapper(&texts) else {
                    return Ok(words);
                };
                // Its environment changes as in the bash evaluator: `sudo`
                // resets it (keeping its keep list unless `-E` /
                // `--preserve-env[=A,B]`) and sets its `NAME=value` words;
                // an env file is not read here.
                if let Some(reset) = &w.resets_env
                    && !used
                        .options
                        .iter()
                        .any(|(_, o, v)| v.is_none() && reset.preserve_all.contains(o))
                {
                    let mut keep = reset.keep.clone();
                    for (_, o, v) in &used.options {
                        if reset.preserve_list.as_ref() == Some(o)
                            && let Some(v) = v
                        {
                            keep.extend(v.split(',').map(String::from));
                        }
                    }
                    env.retain(|e| keep.contains(&e.name));
                }
                for &k in &used.assignments {
                    let a = &words[k];
                    if let Some((n, v)) = a.text.split_once('=') {
                        push_env(
                            env,
                            source,
                            n.to_string(),
                            v.to_string(),
                            a.start,
                            a.end,
                            a.provenance.clone(),
                        );
                    }
                }
                let off = w
                    .no_env_file_option
                    .as_ref()
                    .is_some_and(|o| used.options.iter().any(|(_, x, _)| x == o));
                if let Some((k, o, _)) = used
                    .options
                    .iter()
                    .find(|(_, o, _)| w.env_file_options.contains(o))
                    .filter(|_| !off)
                {
                    return Err(Error::input(
                        source.span(words[*k].start, words[*k].start),
                        format!(
                            "`{} {o}` is not read by plain-command extraction (its variables reach the server); write them as `NAME=value` before the command",
                            w.name
                        ),
                    ));
                }
                words = &words[used.len.min(words.len())..];
            }
        }
    }
}

/// Whether a word mentions an engine launcher.
fn mentions_launcher(text: &str) -> bool {
    [
        "sglang serve",
        "sglang.launch_server",
        "vllm serve",
        "vllm.entrypoints",
    ]
    .iter()
    .any(|l| text.contains(l))
}

/// Applies `docker run` options: `-e` variables reach the server; returns the words
/// after the image, and the image word. `--env-file` and `--entrypoint` are
/// input errors at their word.
fn docker_run<'w>(
    source: &Source,
    words: &'w [Word],
    env: &mut Vec<EnvVar>,
    host_env: &[EnvVar],
    state: &ShellState,
) -> Result<(&'w [Word], Option<&'w Word>), Error> {
    let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
    let parsed = docker_run_options(&texts);
    // `--env-file` and `--entrypoint` change what runs and with which
    // variables: when the container may start a server, plain-command
    // extraction says so instead of guessing.
    let mut run: Vec<&str> = parsed.entrypoint.map(|at| texts[at]).into_iter().collect();
    run.extend(parsed.image.map_or(&[][..], |i| &texts[i + 1..]));
    let launches = !run.is_empty()
        && (crate::launch::detect_launcher(&run, false).is_some()
            || crate::launch::launcher_inside(&run).is_some());
    if let Some((_, at)) = parsed.env_files.first().filter(|_| launches) {
        return Err(Error::input(
            source.span(words[*at].start, words[*at].start),
            "`docker run --env-file` is not read by plain-command extraction (its variables reach the server); write them as `-e NAME=value`",
        ));
    }
    if let Some(at) = parsed.entrypoint.filter(|_| launches) {
        return Err(Error::input(
            source.span(words[at].start, words[at].start),
            "`docker run --entrypoint` is not unwrapped by plain-command extraction; write the command after the image",
        ));
    }
    for (value, at) in parsed.env {
        let value_word = &words[at];
        let (s, e) = (value_word.start, value_word.end);
        match value.split_once('=') {
            Some((n, v)) => push_env(
                env,
                source,
                n.to_string(),
                v.to_string(),
                s,
                e,
                value_word.provenance.clone(),
            ),
            // `-e NAME` passes the host's value through, if the host has it.
            None => {
                let n = value.as_str();
                let (v, p) = match host_env.iter().find(|h| h.name == n) {
                    Some(h) => (h.value.clone(), h.provenance.clone()),
                    None => match state.vars.get(n) {
                        Some(v) => (v.clone(), state.provenance_of(n)),
                        None => (
                            String::new(),
                            Provenance::Unknown {
                                reason: format!(
                                    "`-e {n}` passes the host's {n}, which this text does not set (give it with --env {n}=...)"
                                ),
                            },
                        ),
                    },
                };
                push_env(env, source, n.to_string(), v, s, e, p);
            }
        }
    }
    Ok(match parsed.image {
        Some(i) => (&words[i + 1..], Some(&words[i])),
        None => (&words[words.len()..], None),
    })
}

/// Recognises a launcher at the start of `words` with the launcher table.
fn detect_launcher(words: &[Word]) -> Option<Detected> {
    let texts: Vec<&str> = words
        .iter()
        .take(crate::launch::MAX_LAUNCHER_WORDS)
        .map(|w| w.text.as_str())
        .collect();
    crate::launch::detect_launcher(&texts, false)
}

impl Context {
    /// Version and platform from a container image such as
    /// `lmsysorg/sglang-rocm:v0.5.19-rocm720-mi35x-20260915`.
    pub fn from_image(image: &str, from: &str) -> Context {
        let lower = image.to_ascii_lowercase();
        let (name, tag) = match lower.rsplit_once(':') {
            Some((n, t)) if !t.contains('/') => (n.to_string(), t.to_string()),
            _ => (lower.clone(), String::new()),
        };
        let platform = if name.contains("rocm") || tag.contains("rocm") {
            Some(Platform::Rocm)
        } else if tag.split(['-', '_']).any(|p| {
            p.strip_prefix("cu")
                .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
        }) || tag.contains("cuda")
        {
            Some(Platform::Cuda)
        } else if tag.contains("cpu") || tag.contains("xeon") {
            Some(Platform::Cpu)
        } else {
            None
        };
        Context {
            hardware: None,
            platform: platform.map(|p| Known {
                value: p,
                from: from.to_string(),
            }),
            engine_version: version_in_tag(&tag).map(|v| Known {
                value: v,
                from: from.to_string(),
            }),
            image: Some(Known {
                value: image.to_string(),
                from: from.to_string(),
            }),
        }
    }
}

/// The first `vX.Y.Z[.postN|rcN]` in an image tag.
fn version_in_tag(tag: &str) -> Option<String> {
    for part in tag.split(['-', '_']) {
        let p = part.strip_prefix('v').unwrap_or(part);
        let nums: Vec<&str> = p.split('.').collect();
        if nums.len() >= 3
            && nums[..3]
                .iter()
                .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            && pep440_rs::Version::from_str_opt(p).is_some()
        {
            return Some(p.to_string());
        }
    }
    None
}

trait FromStrOpt: Sized {
    fn from_str_opt(s: &str) -> Option<Self>;
}

impl FromStrOpt for pep440_rs::Version {
    fn from_str_opt(s: &str) -> Option<Self> {
        s.parse().ok()
    }
}

/// What ended a simple command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sep {
    /// Newline, `;`, `&`, or the end of the text.
    Plain,
    /// `&&` or `||`: the next command depends on this one's status.
    Conditional,
    /// `|`: the next command is a pipeline stage.
    Pipe,
}

/// One simple command: its words and what ended it.
struct Simple {
    words: Vec<Word>,
    sep: Sep,
    /// Set when a `#` comment ended this command before a line that
    /// continues it with options.
    cut: Option<Cut>,
}

/// A position-keeping shell lexer over one text.
struct Lexer<'a> {
    source: &'a Source,
    text: &'a str,
    pos: usize,
    at_line_start: bool,
    /// Strip `$ ` / `> ` / `user@host:~$ ` prompts (console transcripts).
    console: bool,
    /// Heredocs met on the current line (delimiter, `<<-`), whose bodies
    /// follow the line's end.
    heredocs: Vec<(String, bool)>,
    /// Container markup at line starts, stepped over (see [`extract_range_in`]).
    containers: &'a [(usize, usize)],
    /// Set when the next command is a line a comment cut off from the one
    /// before it ([`Cut`]).
    orphan_next: bool,
}

const KEYWORDS: &[&str] = &[
    "if", "then", "elif", "else", "fi", "case", "esac", "for", "while", "until", "do", "done",
    "select", "function",
];

impl Lexer<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.text[self.pos..].chars().nth(n)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.past_container();
        }
        Some(c)
    }

    /// At a line start: past the container markup the line starts with, if any.
    fn past_container(&mut self) {
        if let Ok(i) = self.containers.binary_search_by_key(&self.pos, |g| g.0) {
            self.pos = self.containers[i].1.clamp(self.pos, self.text.len());
        }
    }

    fn error(&self, at: usize, msg: impl Into<String>) -> Error {
        Error::input(self.source.span(at, at), msg)
    }

    fn skip_prompt(&mut self) {
        let rest = &self.text[self.pos..];
        if rest.starts_with("$ ") || rest.starts_with("$\t") {
            self.pos += 2;
            return;
        }
        if self.console {
            if rest.starts_with("> ") {
                self.pos += 2;
                return;
            }
            // user@host:~/dir$ or user@host:~#
            let line = rest.split('\n').next().unwrap_or("");
            if let Some(at) = line.find('@')
                && line[..at]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
                && let Some(end) = line.find(['$', '#'])
                && end > at
                && line[at..end].contains(':')
                && line[end + 1..].starts_with(' ')
            {
                self.pos += end + 2;
            }
        }
    }

    /// Returns the next simple command, or `None` at the end.
    fn next_command(&mut self, vars: &ShellState) -> Result<Option<Simple>, Error> {
        let mut words: Vec<Word> = Vec::new();
        let mut comment_ended_continuation: Option<usize> = None;
        loop {
            // Skip blanks and continuations.
            loop {
                match self.peek() {
                    Some(' ' | '\t' | '\r') => {
                        self.bump();
                    }
                    Some('\\') if matches!(self.peek_at(1), Some('\n')) => {
                        self.pos += 2;
                        self.past_container();
                        // A `> ` continuation prompt in a console transcript.
                        if self.console && self.text[self.pos..].starts_with("> ") {
                            self.pos += 2;
                        }
                    }
                    Some('\\')
                        if matches!(self.peek_at(1), Some('\r'))
                            && matches!(self.peek_at(2), Some('\n')) =>
                    {
                        self.pos += 3;
                        self.past_container();
                    }
                    _ => break,
                }
            }
            if self.at_line_start {
                self.at_line_start = false;
                let before = self.pos;
                self.skip_prompt();
                if self.pos != before {
                    continue;
                }
            }
            let Some(c) = self.peek() else {
                return Ok((!words.is_empty()).then_some(Simple {
                    words,
                    sep: Sep::Plain,
                    cut: None,
                }));
            };
            match c {
                '#' => {
                    let at = self.pos;
                    let mut line_end_backslash = false;
                    while let Some(c) = self.peek() {
                        if c == '\n' {
                            break;
                        }
                        line_end_backslash = c == '\\';
                        self.bump();
                    }
                    if line_end_backslash && !words.is_empty() {
                        comment_ended_continuation = Some(at);
                    }
                }
                '\n' => {
                    self.bump();
                    self.skip_heredoc_bodies();
                    self.at_line_start = true;
                    if !words.is_empty() {
                        // Look one line ahead for the comment mistake: a line
                        // that starts with an option right after a command
                        // whose last line was a comment ending in `\`.
                        let mut cut = None;
                        if let Some(c) = comment_ended_continuation {
                            let save = self.pos;
                            self.at_line_start = false;
                            self.skip_blanks();
                            let starts_option = self.peek() == Some('-')
                                && self
                                    .peek_at(1)
                                    .is_some_and(|c| c == '-' || c.is_ascii_alphanumeric());
                            let here = self.pos;
                            self.pos = save;
                            self.at_line_start = true;
                            if starts_option {
                                cut = Some(Cut {
                                    comment: c,
                                    orphan: here,
                                });
                                self.orphan_next = true;
                            }
                        }
                        return Ok(Some(Simple {
                            words,
                            sep: Sep::Plain,
                            cut,
                        }));
                    }
                }
                ';' | '&' | '|' => {
                    let at = self.pos;
                    self.bump();
                    let sep = match (c, self.peek()) {
                        ('&', Some('&')) | ('|', Some('|')) => {
                            self.bump();
                            Sep::Conditional
                        }
                        ('|', _) => Sep::Pipe,
                        (';', Some(';')) => {
                            self.bump();
                            Sep::Plain
                        }
                        _ => Sep::Plain,
                    };
                    if words.is_empty() {
                        if sep != Sep::Plain || c == '|' {
                            return Err(self.error(at, format!("`{c}` with no command before it")));
                        }
                        continue;
                    }
                    if sep != Sep::Plain && self.only_blanks_to_end() {
                        return Err(self.error(
                            at,
                            "the command list ends with an operator and no command after it",
                        ));
                    }
                    return Ok(Some(Simple {
                        words,
                        sep,
                        cut: None,
                    }));
                }
                '(' | ')' | '{' | '}' if words.is_empty() => {
                    return Err(self.error(
                        self.pos,
                        format!("`{c}` (a subshell, group or function body) is shell control flow that plain-command extraction does not evaluate"),
                    ));
                }
                '(' | ')' => {
                    // After a command word, bash rejects it too (`echo (x)`).
                    return Err(self.error(
                        self.pos,
                        format!("bash syntax error: unexpected `{c}` after a command word"),
                    ));
                }
                '<' if self.peek_at(1) == Some('<') => self.heredoc(&words, vars)?,
                '<' if self.placeholder_len().is_none() => self.skip_redirect(vars)?,
                '>' => self.skip_redirect(vars)?,
                c if c.is_ascii_digit() && self.is_fd_redirect() => self.skip_redirect(vars)?,
                _ => {
                    let at = self.pos;
                    let may_assign = words.iter().all(|w| w.assignment.is_some())
                        || matches!(
                            words[0].text.as_str(),
                            "export" | "declare" | "local" | "readonly" | "typeset"
                        );
                    let new = self.word(vars, may_assign)?;
                    if words.is_empty()
                        && let Some(w) = new.first()
                        && w.provenance == Provenance::Literal
                        && KEYWORDS.contains(&w.text.as_str())
                    {
                        return Err(self.error(
                            at,
                            format!("`{}` is shell control flow, which plain-command extraction does not evaluate (it would have to pick a branch)", w.text),
                        ));
                    }
                    words.extend(new);
                }
            }
        }
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\r')) {
            self.bump();
        }
    }

    fn only_blanks_to_end(&self) -> bool {
        self.text[self.pos..].chars().all(char::is_whitespace)
    }

    fn is_fd_redirect(&self) -> bool {
        let rest = &self.text[self.pos..];
        let digits = rest.chars().take_while(|c| c.is_ascii_digit()).count();
        matches!(rest[digits..].chars().next(), Some('>' | '<'))
    }

    fn skip_redirect(&mut self, vars: &ShellState) -> Result<(), Error> {
        let at = self.pos;
        while matches!(self.peek(), Some(c) if c.is_ascii_digit()) {
            self.bump();
        }
        while matches!(self.peek(), Some('>' | '<' | '&')) {
            self.bump();
        }
        // `2>&1`: the target is a file descriptor.
        if matches!(self.peek(), Some(c) if c.is_ascii_digit() || c == '-') {
            while matches!(self.peek(), Some(c) if c.is_ascii_digit() || c == '-') {
                self.bump();
            }
            return Ok(());
        }
        self.skip_blanks();
        if matches!(self.peek(), Some(c) if !"\n;&|".contains(c)) {
            self.word(vars, false)?;
            Ok(())
        } else {
            Err(self.error(at, "a redirection with no target"))
        }
    }

    /// Reads one shell word; unquoted expansions split into several words (and an
    /// empty unquoted expansion into none), as bash does.
    fn word(&mut self, vars: &ShellState, may_assign: bool) -> Result<Vec<Word>, Error> {
        let start = self.pos;
        let mut fields: Vec<String> = Vec::new();
        let mut cur = String::new();
        let mut cur_solid = false; // cur holds quoted or literal text, so it exists even if empty
        let mut provenance = Provenance::Literal;
        let mut name_end: Option<usize> = None;
        let mut all_literal_so_far = true;
        while let Some(c) = self.peek() {
            match c {
                '<' if let Some(len) = self.placeholder_len() => {
                    let text = &self.text[self.pos..self.pos + len];
                    cur.push_str(text);
                    provenance =
                        unknown(&format!("a placeholder ({text}) that the reader fills in"));
                    for _ in 0..text.chars().count() {
                        self.bump();
                    }
                    cur_solid = true;
                    all_literal_so_far = false;
                }
                ' ' | '\t' | '\r' | '\n' | ';' | '&' | '|' | '<' | '>' => break,
                '(' if may_assign && name_end.is_some() && cur.len() == name_end.unwrap() + 1 => {
                    return Err(self.error(
                        self.pos,
                        "arrays are not evaluated by plain-command extraction",
                    ));
                }
                '(' | ')' if cur.is_empty() && fields.is_empty() => break,
                '`' => {
                    let q = self.pos;
                    self.bump();
                    loop {
                        match self.bump() {
                            Some('`') => break,
                            Some('\\') => {
                                self.bump();
                            }
                            Some(_) => {}
                            None => return Err(self.error(q, "unterminated backquote")),
                        }
                    }
                    cur.push_str(&self.text[q..self.pos]);
                    cur_solid = true;
                    provenance = unknown("a command substitution (`...`) is not run");
                    all_literal_so_far = false;
                }
                '\\' => {
                    self.bump();
                    match self.bump() {
                        Some('\n') => {}
                        Some(c) => cur.push(c),
                        None => cur.push('\\'),
                    }
                    cur_solid = true;
                    all_literal_so_far = false;
                }
                '\'' => {
                    let q = self.pos;
                    self.bump();
                    loop {
                        match self.bump() {
                            Some('\'') => break,
                            Some(c) => cur.push(c),
                            None => return Err(self.error(q, "unterminated single quote")),
                        }
                    }
                    cur_solid = true;
                    all_literal_so_far = false;
                }
                '"' => {
                    let q = self.pos;
                    self.bump();
                    loop {
                        match self.peek() {
                            Some('"') => {
                                self.bump();
                                break;
                            }
                            Some('\\') => {
                                self.bump();
                                match self.bump() {
                                    Some(c @ ('$' | '`' | '"' | '\\')) => cur.push(c),
                                    Some('\n') => {}
                                    Some(c) => {
                                        cur.push('\\');
                                        cur.push(c);
                                    }
                                    None => return Err(self.error(q, "unterminated double quote")),
                                }
                            }
                            Some('$') => {
                                let (text, p) = self.dollar(vars)?;
                                cur.push_str(&text);
                                merge(&mut provenance, p);
                            }
                            Some('`') => {
                                let b = self.pos;
                                self.bump();
                                while let Some(c) = self.bump() {
                                    if c == '`' {
                                        break;
                                    }
                                }
                                cur.push_str(&self.text[b..self.pos]);
                                provenance = unknown("a command substitution (`...`) is not run");
                            }
                            Some(c) => {
                                self.bump();
                                cur.push(c);
                            }
                            None => return Err(self.error(q, "unterminated double quote")),
                        }
                    }
                    cur_solid = true;
                    all_literal_so_far = false;
                }
                '$' => {
                    if self.peek_at(1) == Some('\'') {
                        self.ansi_c(&mut cur)?;
                        cur_solid = true;
                    } else {
                        let (text, p) = self.dollar(vars)?;
                        let splits =
                            name_end.is_none() && matches!(p, Some(Provenance::Var { .. }));
                        merge(&mut provenance, p);
                        if splits {
                            // Unquoted expansion: IFS whitespace splits it.
                            let pieces = text.split([' ', '\t', '\n']);
                            let mut first = true;
                            for piece in pieces {
                                if !first {
                                    if cur_solid || !cur.is_empty() {
                                        fields.push(std::mem::take(&mut cur));
                                    }
                                    cur_solid = false;
                                }
                                cur.push_str(piece);
                                first = false;
                            }
                        } else {
                            cur.push_str(&text);
                            cur_solid = true;
                        }
                    }
                    all_literal_so_far = false;
                }
                '=' if may_assign && all_literal_so_far && name_end.is_none() && is_name(&cur) => {
                    self.bump();
                    name_end = Some(cur.len());
                    cur.push('=');
                    cur_solid = true;
                }
                _ => {
                    self.bump();
                    cur.push(c);
                    cur_solid = true;
                }
            }
        }
        if cur_solid || !cur.is_empty() {
            fields.push(cur);
        }
        let end = self.pos;
        Ok(fields
            .into_iter()
            .map(|text| {
                let assignment =
                    name_end.map(|n| (text[..n].to_string(), text[n + 1..].to_string()));
                Word {
                    text,
                    start,
                    end,
                    provenance: provenance.clone(),
                    assignment,
                }
            })
            .collect())
    }

    /// `$'...'` ANSI-C quoting.
    fn ansi_c(&mut self, text: &mut String) -> Result<(), Error> {
        let q = self.pos;
        self.pos += 2;
        loop {
            match self.bump() {
                Some('\'') => return Ok(()),
                Some('\\') => match self.bump() {
                    Some('n') => text.push('\n'),
                    Some('t') => text.push('\t'),
                    Some('r') => text.push('\r'),
                    Some('\\') => text.push('\\'),
                    Some('\'') => text.push('\''),
                    Some('"') => text.push('"'),
                    Some(c) => {
                        text.push('\\');
                        text.push(c);
                    }
                    None => return Err(self.error(q, "unterminated $'...' quote")),
                },
                Some(c) => text.push(c),
                None => return Err(self.error(q, "unterminated $'...' quote")),
            }
        }
    }

    /// A `$` expansion: its text and provenance. A variable the text does not set
    /// stays as written and is marked unknown (it is filled in at run time).
    fn dollar(&mut self, vars: &ShellState) -> Result<(String, Option<Provenance>), Error> {
        let start = self.pos;
        self.bump(); // '$'
        match self.peek() {
            Some('{') => {
                self.bump();
                let inner_start = self.pos;
                let mut depth = 1;
                while let Some(c) = self.bump() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                if depth != 0 {
                    return Err(self.error(start, "unterminated ${...} expansion"));
                }
                let inner = &self.text[inner_start..self.pos - 1];
                let written = self.text[start..self.pos].to_string();
                let name_len = inner
                    .char_indices()
                    .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
                    .map(|(i, _)| i)
                    .unwrap_or(inner.len());
                let (name, op) = inner.split_at(name_len);
                let value = vars.vars.get(name);
                let var = || Some(vars.provenance_of(name));
                let simple_default = |d: &str| !d.contains(['$', '`', '\'', '"', '\\']);
                Ok(match (op, value) {
                    ("", Some(v)) => (v.clone(), var()),
                    (op, Some(v)) if op.starts_with(":-") && !v.is_empty() => (v.clone(), var()),
                    (op, Some(v)) if op.starts_with('-') && !op.starts_with(":-") => {
                        (v.clone(), var())
                    }
                    (op, _) if op.starts_with(":-") && simple_default(&op[2..]) => {
                        (op[2..].to_string(), var())
                    }
                    (op, None) if op.starts_with('-') && simple_default(&op[1..]) => {
                        (op[1..].to_string(), var())
                    }
                    ("", None) => (written, Some(unset(name))),
                    _ => (
                        written.clone(),
                        Some(unknown(&format!(
                            "the expansion {written} is not evaluated by plain-command extraction"
                        ))),
                    ),
                })
            }
            Some('(') => {
                let mut depth = 0;
                while let Some(c) = self.bump() {
                    match c {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                if depth != 0 {
                    return Err(self.error(start, "unterminated $(...)"));
                }
                let written = self.text[start..self.pos].to_string();
                let why = if written.starts_with("$((") {
                    "arithmetic ($((...))) is not evaluated by plain-command extraction"
                } else {
                    "a command substitution ($(...)) is not run"
                };
                Ok((written, Some(unknown(why))))
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let ns = self.pos;
                while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == '_') {
                    self.bump();
                }
                let name = &self.text[ns..self.pos];
                match vars.vars.get(name) {
                    Some(v) => Ok((v.clone(), Some(vars.provenance_of(name)))),
                    None => Ok((self.text[start..self.pos].to_string(), Some(unset(name)))),
                }
            }
            _ => Ok(("$".to_string(), None)),
        }
    }
}

fn unknown(reason: &str) -> Provenance {
    Provenance::Unknown {
        reason: reason.to_string(),
    }
}

fn unset(name: &str) -> Provenance {
    Provenance::Unknown {
        reason: format!("${name} is not set in this text (give it with --env {name}=...)"),
    }
}

/// Combines provenances: unknown wins over a variable, a variable over a literal.
fn merge(into: &mut Provenance, p: Option<Provenance>) {
    match (&*into, p) {
        (_, None) => {}
        (Provenance::Unknown { .. }, _) => {}
        (_, Some(p)) => *into = p,
    }
}

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Origin;

    fn launches(text: &str) -> Vec<Launch> {
        let src = Arc::new(Source::new(Origin::Inline("t".into()), text.to_string()));
        extract(&src, &BTreeMap::new()).unwrap()
    }

    fn argv(l: &Launch) -> Vec<&str> {
        l.argv.iter().map(|t| t.text.as_str()).collect()
    }

    #[test]
    fn continuations_comments_and_quotes() {
        let l = launches(
            "# start the server\nsglang serve \\\n  --model-path 'a/b' \\\n  --json-model-override-args '{\"x\": 1}' # trailing\n",
        );
        assert_eq!(l.len(), 1);
        assert_eq!(
            argv(&l[0]),
            [
                "--model-path",
                "a/b",
                "--json-model-override-args",
                "{\"x\": 1}"
            ]
        );
        assert_eq!(l[0].argv[0].span.pos.line, 3);
        assert_eq!(l[0].argv[0].span.pos.col, 3);
    }

    #[test]
    fn env_prefixes_inline_and_on_continued_lines() {
        let l = launches(
            "A=1 \\\nB=\"two words\" \\\nsglang serve --tp 2\nC=3 python3 -m sglang.launch_server --tp 4",
        );
        assert_eq!(l.len(), 2);
        let names: Vec<_> = l[0]
            .env
            .iter()
            .map(|e| (e.name.as_str(), e.value.as_str()))
            .collect();
        assert_eq!(names, [("A", "1"), ("B", "two words")]);
        assert_eq!(l[1].env[0].name, "C");
        assert_eq!(l[1].launcher_text(), "python3 -m sglang.launch_server");
    }

    #[test]
    fn exports_reach_later_commands_and_plain_assignments_do_not() {
        let l = launches(
            "export SGLANG_USE_AITER=1\nMODEL=a/b\nsglang serve --model-path $MODEL --x ${Y:-7}",
        );
        assert_eq!(l[0].env.len(), 1);
        assert_eq!(l[0].env[0].name, "SGLANG_USE_AITER");
        assert_eq!(argv(&l[0]), ["--model-path", "a/b", "--x", "7"]);
        assert_eq!(
            l[0].argv[1].provenance,
            Provenance::Var {
                name: "MODEL".into()
            }
        );
    }

    #[test]
    fn prompts_and_several_commands() {
        let l = launches(
            "$ sglang serve --tp 1\n$ vllm serve x/y -tp 2 && echo done; python -m vllm.entrypoints.openai.api_server --model m",
        );
        assert_eq!(l.len(), 3);
        assert_eq!(l[1].engine, crate::launch::Engine::parse("vllm").unwrap());
        assert_eq!(l[2].engine, crate::launch::Engine::parse("vllm").unwrap());
    }

    #[test]
    fn redirections_and_background_are_not_arguments() {
        let l = launches("sglang serve --tp 2 > /tmp/log 2>&1 &\n");
        assert_eq!(argv(&l[0]), ["--tp", "2"]);
    }

    #[test]
    fn docker_run_wrapper() {
        let l = launches(
            "docker run --rm -it --gpus all -v /d:/d -e X=1 --shm-size 32g lmsysorg/sglang:v0.5.17-cu130 python3 -m sglang.launch_server --tp 8",
        );
        assert_eq!(argv(&l[0]), ["--tp", "8"]);
        assert_eq!(l[0].env[0].name, "X");
        let ctx = &l[0].context;
        assert_eq!(ctx.engine_version.as_ref().unwrap().value, "0.5.17");
        assert_eq!(ctx.platform.as_ref().unwrap().value, Platform::Cuda);
    }

    #[test]
    fn image_tags() {
        let c = Context::from_image("lmsysorg/sglang-rocm:v0.5.19-rocm720-mi35x-20260915", "t");
        assert_eq!(c.engine_version.unwrap().value, "0.5.19");
        assert_eq!(c.platform.unwrap().value, Platform::Rocm);
        let c = Context::from_image("lmsysorg/sglang:v0.5.15.post1-cu129", "t");
        assert_eq!(c.engine_version.unwrap().value, "0.5.15.post1");
        let c = Context::from_image("lmsysorg/sglang:latest", "t");
        assert!(c.engine_version.is_none());
    }

    #[test]
    fn unterminated_quote_is_an_error_with_position() {
        let src = Arc::new(Source::new(
            Origin::Inline("t".into()),
            "sglang serve --x 'abc\n".into(),
        ));
        let e = extract(&src, &BTreeMap::new()).unwrap_err().to_string();
        assert_eq!(e, "<t>:1:18: unterminated single quote");
    }

    #[test]
    fn wrappers_and_ansi_c_quotes() {
        let l = launches("nohup env A=1 exec python3 -m sglang.launch_server --x $'a\\tb' &");
        assert_eq!(l[0].env[0].name, "A");
        assert_eq!(argv(&l[0]), ["--x", "a\tb"]);
    }

    #[test]
    fn docker_run_passes_host_values_only_through_dash_e() {
        let l = launches(
            "export HOST_ONLY=1 PASSED=2\ndocker run -e PASSED img:v0.5.19-cu129 sglang serve --tp 2",
        );
        let names: Vec<_> = l[0]
            .env
            .iter()
            .map(|e| (e.name.as_str(), e.value.as_str()))
            .collect();
        assert_eq!(names, [("PASSED", "2")]);
    }
}

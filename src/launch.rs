//! `Launch`: one server start as it would run, with every word traced to its source.

use std::fmt;
use std::sync::Arc;

use serde::Serialize;

use crate::span::{Source, Span};

mod workdir;

pub use workdir::{WorkDir, Written, logical_join};

/// The serving engine a launcher starts, by its registry name (`sglang`, `vllm`).
///
/// The names come from the launcher table (`src/launchers.yaml`); the engine
/// registry (`crate::engine`) holds one engine per name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Engine(&'static str);

impl Engine {
    /// The engine's lower-case name.
    pub fn name(self) -> &'static str {
        self.0
    }

    /// The engine of that name, when a launcher of the table starts it.
    pub fn parse(s: &str) -> Option<Engine> {
        launchers().iter().find_map(|l| match l.starts {
            Starts::Engine(e) if e.0 == s => Some(e),
            _ => None,
        })
    }

    /// The engine's first word launcher in the table (`vllm serve`), used to
    /// show an argv given on recipe-drift's own command line as a command.
    pub fn launcher(self) -> String {
        launchers()
            .iter()
            .find_map(|l| match (&l.starts, &l.form) {
                (Starts::Engine(e), LauncherForm::Words(w)) if *e == self => Some(w.join(" ")),
                _ => None,
            })
            .unwrap_or_else(|| self.0.to_string())
    }

    /// Every engine the launcher table names, in table order, once each.
    pub fn all() -> Vec<Engine> {
        let mut out: Vec<Engine> = Vec::new();
        for l in launchers() {
            if let Starts::Engine(e) = l.starts
                && !out.contains(&e)
            {
                out.push(e);
            }
        }
        out
    }
}

/// What a launcher starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Starts {
    /// An engine recipe-drift resolves.
    Engine(Engine),
    /// An engine recipe-drift does not resolve (its display name).
    Unsupported(&'static str),
    /// A helper process beside the servers, never compared (its display name).
    Auxiliary(&'static str),
}

/// One row of the launcher table.
#[derive(Debug, Clone)]
pub struct Launcher {
    /// What it starts.
    pub starts: Starts,
    /// How it is written: words, or `python -m MODULE`.
    pub form: LauncherForm,
    /// The options the launcher reads itself and never hands to the engine
    /// (`own_options:` in the table).
    pub own_options: Vec<OwnOption>,
}

/// An option a launcher reads itself (a row's `own_options:`).
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OwnOption {
    /// The option, or a prefix of options when it ends in `-` (`--dyn-`).
    pub option: String,
    /// Whether a value follows it (the next word, or attached with `=`).
    #[serde(default)]
    pub value: bool,
}

impl OwnOption {
    /// Whether `flag` (the option's name, without an attached `=value`) is
    /// this option, or under it when it is a prefix.
    pub fn covers(&self, flag: &str) -> bool {
        if self.option.ends_with('-') {
            flag.starts_with(&self.option) && flag.len() > self.option.len()
        } else {
            flag == self.option
        }
    }
}

/// How a launcher is written.
#[derive(Debug, Clone)]
pub enum LauncherForm {
    /// The first word's base name and the words after it.
    Words(Vec<String>),
    /// `python -m MODULE`.
    PythonModule(String),
    /// `python -m` with a module under this prefix.
    ModulePrefix(String),
}

impl Launcher {
    /// How many words the launcher spans at the start of `words`, if it is there.
    /// `head` is the first word's base name (`/usr/bin/vllm` -> `vllm`); `python`
    /// says whether the first word is (or may be) a Python interpreter.
    fn matches(&self, words: &[&str], head: &str, python: bool) -> Option<usize> {
        match &self.form {
            LauncherForm::Words(ws) => {
                let ok = words.len() >= ws.len()
                    && head == ws[0]
                    && words[1..ws.len()].iter().zip(&ws[1..]).all(|(a, b)| a == b);
                ok.then_some(ws.len())
            }
            LauncherForm::PythonModule(m) => {
                let (module, len) = python_module(words).filter(|_| python)?;
                (module == m).then_some(len)
            }
            LauncherForm::ModulePrefix(p) => {
                let (module, len) = python_module(words).filter(|_| python)?;
                module.starts_with(p.as_str()).then_some(len)
            }
        }
    }
}

/// A remark on an input beside its launches (an auxiliary launch, a warning
/// about the inputs): its message, and where it applies when that is known,
/// so every format can place it (SARIF locations, GitHub annotations). The
/// message is complete on its own (it names the position when it has one);
/// JSON writes it as that string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remark {
    /// Where it applies.
    pub span: Option<Span>,
    /// The remark, as printed.
    pub message: String,
}

impl Remark {
    /// A remark at `span`.
    pub fn at(span: Span, message: String) -> Remark {
        Remark {
            span: Some(span),
            message,
        }
    }
}

impl fmt::Display for Remark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl Serialize for Remark {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.message)
    }
}

/// Ends the report of a command that may start a server in a way
/// recipe-drift does not model (`srun ... sglang serve`, `cat x.sh | bash`):
/// a side with such a launch is never compared as if it had only its other
/// launches.
pub const NOT_MODELLED: &str = "a launch recipe-drift does not model";

/// The interpreter options a `python` command may give before `-m`: at most
/// this many words are read (a longer run is not a module launch).
const MAX_PYTHON_OPTIONS: usize = 32;

/// The most words a launcher spans (`python` with its options, `-m MODULE`).
pub const MAX_LAUNCHER_WORDS: usize = MAX_PYTHON_OPTIONS + 3;

/// The module of `python [OPTIONS] -m MODULE` and how many words reach it:
/// flags may be clustered (`-um mod`, `-OO`), `-X OPT` / `-W ARG` /
/// `--check-hash-based-pycs MODE` take a value (attached or the next word),
/// and `-mMODULE` is attached. `-c`, a script or an option Python does not
/// have end it with no module.
fn python_module<'a>(words: &[&'a str]) -> Option<(&'a str, usize)> {
    let mut i = 1;
    while i < words.len().min(MAX_PYTHON_OPTIONS + 1) {
        let w = words[i];
        if w == "--check-hash-based-pycs" {
            i += 2;
            continue;
        }
        let letters = w
            .strip_prefix('-')
            .filter(|l| !l.is_empty() && !l.starts_with('-'))?;
        for (k, c) in letters.char_indices() {
            let rest = &letters[k + c.len_utf8()..];
            match c {
                'm' if rest.is_empty() => return words.get(i + 1).map(|m| (*m, i + 2)),
                'm' => return Some((rest, i + 1)),
                'X' | 'W' => {
                    i += usize::from(rest.is_empty());
                    break;
                }
                'b' | 'B' | 'd' | 'E' | 'i' | 'I' | 'O' | 'P' | 'q' | 's' | 'S' | 'u' | 'v'
                | 'x' | 'R' => {}
                _ => return None,
            }
        }
        i += 1;
    }
    None
}

/// The code of `python [OPTIONS] -c CODE` (`-cCODE` attached, or the next
/// word), when `words` is such a command.
fn python_code<'a>(words: &[&'a str]) -> Option<(usize, &'a str)> {
    if !is_python(words.first()?.rsplit('/').next()?) {
        return None;
    }
    let mut i = 1;
    while i < words.len().min(MAX_PYTHON_OPTIONS + 1) {
        let w = words[i];
        if w == "--check-hash-based-pycs" {
            i += 2;
            continue;
        }
        let letters = w
            .strip_prefix('-')
            .filter(|l| !l.is_empty() && !l.starts_with('-'))?;
        for (k, c) in letters.char_indices() {
            let rest = &letters[k + c.len_utf8()..];
            match c {
                'c' if rest.is_empty() => return words.get(i + 1).map(|c| (i + 1, *c)),
                'c' => return Some((i, rest)),
                'X' | 'W' => {
                    i += usize::from(rest.is_empty());
                    break;
                }
                'b' | 'B' | 'd' | 'E' | 'i' | 'I' | 'O' | 'P' | 'q' | 's' | 'S' | 'u' | 'v'
                | 'x' | 'R' => {}
                _ => return None,
            }
        }
        i += 1;
    }
    None
}

/// `python [OPTIONS] -c CODE` whose code names a launcher of the table, its
/// module or its command words (`import runpy;
/// runpy.run_module("sglang.launch_server")`, `subprocess.run("vllm serve
/// ...")`): what that launcher starts (`Err` when the code is not knowable). The code is
/// never evaluated, so such a command is an
/// unmodelled launch; code that names no launcher (`import vllm;
/// print(vllm.__version__)`) is not. `known(i)`: whether the text of word
/// `i` is known (unknown code may start anything and is reported too).
pub fn python_code_starts(
    words: &[&str],
    known: &dyn Fn(usize) -> bool,
) -> Option<Result<Starts, ()>> {
    let (at, code) = python_code(words)?;
    if !known(at) {
        return Some(Err(()));
    }
    // A launcher's module (`sglang.launch_server`, `sglang_router.`) or its
    // command words (`vllm serve`, in a `subprocess` call): importing the
    // package alone (`import vllm; print(vllm.__version__)`) starts nothing.
    launchers().iter().find_map(|l| {
        let named = match &l.form {
            LauncherForm::PythonModule(m) | LauncherForm::ModulePrefix(m) => {
                code.contains(m.as_str())
            }
            LauncherForm::Words(w) => code.contains(&w.join(" ")),
        };
        named.then_some(Ok(l.starts))
    })
}

/// `python`, `python3`, `python3.12`.
fn is_python(s: &str) -> bool {
    s.strip_prefix("python")
        .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// A launcher found at the start of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detected {
    /// What it starts.
    pub starts: Starts,
    /// How many words the launcher spans.
    pub len: usize,
}

/// Recognises a launcher at the start of `words` with the launcher table.
/// `python_head`: the first word may be a Python interpreter (its value is unknown).
pub fn detect_launcher(words: &[&str], python_head: bool) -> Option<Detected> {
    // The expanded words of every command pass here: their secrets are masked
    // in all output (`crate::secret`).
    crate::secret::note_words(words);
    detect(words, python_head)
}

fn detect(words: &[&str], python_head: bool) -> Option<Detected> {
    let first = words.first()?;
    let head = first.rsplit('/').next().unwrap_or("");
    let python = python_head || is_python(head);
    launchers().iter().find_map(|l| {
        l.matches(words, head, python).map(|len| Detected {
            starts: l.starts,
            len,
        })
    })
}

/// A launcher inside a command that does not start with one (`srun -N 2
/// sglang serve ...`, `torchrun ... -m sglang.launch_server`): the first
/// position after the first word where one starts, with what it starts. A
/// command that runs a server through a program recipe-drift does not model
/// is reported with this, never dropped. Linear in the words.
pub fn launcher_inside(words: &[&str]) -> Option<(usize, Detected)> {
    (1..words.len()).find_map(|j| {
        detect(&words[j..], false)
            .or_else(|| {
                // `... -m MODULE`: a Python interpreter's options (torchrun).
                words[j]
                    .starts_with("-m")
                    .then(|| detect(&words[j - 1..], true))
                    .flatten()
                    .map(|d| Detected {
                        len: d.len - 1,
                        ..d
                    })
            })
            .map(|d| (j, d))
    })
}

/// A program that runs the command after its options and operands (`nice -n
/// 5 CMD`, `timeout 3600 CMD`, `uv run --with x CMD`), a row of the
/// `wrappers:` table in `src/launchers.yaml`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Wrapper {
    /// The program's base name.
    pub name: String,
    /// A word that must follow the name (`uv run`).
    #[serde(default)]
    pub subcommand: Option<String>,
    /// Options that take a value: the next word, or attached (`-n5`,
    /// `-oL`, `--adjustment=5`). Any other option is a flag.
    #[serde(default)]
    pub value_options: Vec<String>,
    /// Operands before the command (`timeout DURATION`, `taskset MASK`).
    #[serde(default)]
    pub operands: usize,
    /// `NAME=value` words between the options and the command set variables
    /// of the command's environment (`sudo FOO=1 CMD`).
    #[serde(default)]
    pub assignments: bool,
    /// The wrapper resets the environment (`sudo`'s `env_reset`): only these
    /// variables of the caller reach the command, unless an option keeps them.
    #[serde(default)]
    pub resets_env: Option<EnvReset>,
    /// Configuration outside the text that may give the command any variable
    /// (`sudo`: the sudoers `env_keep` and `env_file` settings): the command's
    /// environment is open, with this as the cause.
    #[serde(default)]
    pub opens_env: Option<String>,
    /// Options naming a dotenv file whose variables reach the command (`uv run
    /// --env-file F`), read through the confined layer. Variables the command
    /// already has win; a later file wins over an earlier one.
    #[serde(default)]
    pub env_file_options: Vec<String>,
    /// An option that turns the env files off (`uv run --no-env-file`).
    #[serde(default)]
    pub no_env_file_option: Option<String>,
    /// An environment variable naming an env file when no option does
    /// (`UV_ENV_FILE`).
    #[serde(default)]
    pub env_file_var: Option<String>,
}

/// How a wrapper resets the caller's environment.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvReset {
    /// The caller's variables that still reach the command.
    pub keep: Vec<String>,
    /// Flags that keep the whole environment (`-E`, `--preserve-env`).
    pub preserve_all: Vec<String>,
    /// An option whose attached value lists variables to keep
    /// (`--preserve-env=A,B`).
    #[serde(default)]
    pub preserve_list: Option<String>,
}

/// One use of a wrapper at the start of a command: how many words it spans,
/// its options (word index, option, value) and its `NAME=value` words.
#[derive(Debug, Clone, Default)]
pub struct WrapperUse {
    /// Words before the command.
    pub len: usize,
    /// Options in order: the index of the option's word, the option (`-E`,
    /// `--env-file`) and its value (attached or the next word), if it takes
    /// one or has one attached with `=`.
    pub options: Vec<(usize, String, Option<String>)>,
    /// The indices of the `NAME=value` words.
    pub assignments: Vec<usize>,
}

impl Wrapper {
    /// How this wrapper is used at the start of `words` (before the command
    /// it runs), when `words` starts with it.
    pub fn read(&self, words: &[&str]) -> Option<WrapperUse> {
        let head = words.first()?.rsplit('/').next()?;
        if head != self.name {
            return None;
        }
        let mut i = 1;
        if let Some(sub) = &self.subcommand {
            if words.get(1) != Some(&sub.as_str()) {
                return None;
            }
            i = 2;
        }
        let mut used = WrapperUse::default();
        let takes = |o: &str| self.value_options.iter().any(|v| v == o);
        while let Some(w) = words.get(i) {
            if *w == "--" {
                i += 1;
                break;
            }
            if !w.starts_with('-') || w.len() < 2 {
                break;
            }
            if w.starts_with("--") {
                match w.split_once('=') {
                    Some((o, v)) => used.options.push((i, o.to_string(), Some(v.to_string()))),
                    None if takes(w) => used.options.push((
                        i,
                        w.to_string(),
                        words.get(i + 1).map(|v| v.to_string()),
                    )),
                    None => used.options.push((i, w.to_string(), None)),
                }
                i += if !w.contains('=') && takes(w) { 2 } else { 1 };
                continue;
            }
            // A cluster of short flags; a value option takes the rest of
            // the word, or the next word.
            let mut next = 1;
            for (k, c) in w.char_indices().skip(1) {
                let o = format!("-{c}");
                if takes(&o) {
                    let rest = &w[k + c.len_utf8()..];
                    let value = if rest.is_empty() {
                        next += 1;
                        words.get(i + 1).map(|v| v.to_string())
                    } else {
                        Some(rest.to_string())
                    };
                    used.options.push((i, o, value));
                    break;
                }
                used.options.push((i, o, None));
            }
            i += next;
        }
        if self.assignments {
            while let Some(w) = words.get(i)
                && w.split_once('=').is_some_and(|(n, _)| is_name(n))
            {
                used.assignments.push(i);
                i += 1;
            }
        }
        used.len = i + self.operands;
        Some(used)
    }
}

/// A shell variable name: a letter or `_`, then letters, digits and `_`.
fn is_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// The wrapper at the start of `words` and how many words it spans, when
/// `words` starts with a row of the `wrappers:` table.
pub fn detect_wrapper(words: &[&str]) -> Option<(&'static Wrapper, usize)> {
    read_wrapper(words).map(|(w, u)| (w, u.len))
}

/// The wrapper at the start of `words` and how it is used there.
pub fn read_wrapper(words: &[&str]) -> Option<(&'static Wrapper, WrapperUse)> {
    tables()
        .1
        .iter()
        .find_map(|w| w.read(words).map(|u| (w, u)))
}

/// The launcher table, parsed once from `src/launchers.yaml`.
pub fn launchers() -> &'static [Launcher] {
    &tables().0
}

/// The launcher and wrapper tables, parsed once from `src/launchers.yaml`.
fn tables() -> &'static (Vec<Launcher>, Vec<Wrapper>) {
    static TABLE: std::sync::OnceLock<(Vec<Launcher>, Vec<Wrapper>)> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Row {
            engine: Option<String>,
            unsupported: Option<String>,
            auxiliary: Option<String>,
            words: Option<Vec<String>>,
            python_module: Option<String>,
            module_prefix: Option<String>,
            #[serde(default)]
            own_options: Vec<OwnOption>,
        }
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Table {
            launchers: Vec<Row>,
            wrappers: Vec<Wrapper>,
        }
        let table: Table = serde_saphyr::from_str(include_str!("launchers.yaml"))
            .expect("src/launchers.yaml is valid (tested)");
        let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
        let launchers = table
            .launchers
            .into_iter()
            .map(|r| {
                let starts = match (r.engine, r.unsupported, r.auxiliary) {
                    (Some(e), None, None) => Starts::Engine(Engine(leak(e))),
                    (None, Some(u), None) => Starts::Unsupported(leak(u)),
                    (None, None, Some(a)) => Starts::Auxiliary(leak(a)),
                    _ => panic!(
                        "src/launchers.yaml: a row names one of engine, `unsupported`, `auxiliary`"
                    ),
                };
                let form = match (r.words, r.python_module, r.module_prefix) {
                    (Some(w), None, None) if !w.is_empty() => LauncherForm::Words(w),
                    (None, Some(m), None) => LauncherForm::PythonModule(m),
                    (None, None, Some(p)) => LauncherForm::ModulePrefix(p),
                    _ => panic!(
                        "src/launchers.yaml: a row has one of words, python_module, module_prefix"
                    ),
                };
                Launcher {
                    starts,
                    form,
                    own_options: r.own_options,
                }
            })
            .collect();
        (launchers, table.wrappers)
    })
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The platform a server runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Platform {
    /// NVIDIA GPUs.
    Cuda,
    /// AMD GPUs.
    Rocm,
    /// CPU only.
    Cpu,
}

impl Platform {
    /// The platform's name as written in rules and flags.
    pub fn name(self) -> &'static str {
        match self {
            Platform::Cuda => "cuda",
            Platform::Rocm => "rocm",
            Platform::Cpu => "cpu",
        }
    }

    /// Parses `cuda`, `rocm` or `cpu`.
    pub fn parse(s: &str) -> Option<Platform> {
        match s.to_ascii_lowercase().as_str() {
            "cuda" => Some(Platform::Cuda),
            "rocm" => Some(Platform::Rocm),
            "cpu" => Some(Platform::Cpu),
            _ => None,
        }
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a word got its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Provenance {
    /// Written literally in the source.
    Literal,
    /// Expanded from a variable defined in the same text.
    Var {
        /// The variable's name.
        name: String,
    },
    /// Given on recipe-drift's command line (`--env`, `--engine-version`, ...).
    Cli,
    /// Not knowable from the text (an unset variable, a command substitution).
    Unknown {
        /// Why.
        reason: String,
    },
}

/// Why a docs placeholder's value (`<your-token>`, `<other args>`) is
/// unknown: the reader fills it in.
pub fn placeholder_reason(text: &str) -> String {
    format!("a placeholder ({text}) that the reader fills in")
}

/// One word of a launch, with its location.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Token {
    /// The word after quote removal and expansion.
    pub text: String,
    /// Where it is written.
    pub span: Span,
    /// How it got its text.
    pub provenance: Provenance,
    /// Where the word is written in the file its text was composed from,
    /// when `span` is in a composed text (a vLLM recipe's YAML scalar behind
    /// a word of the command the recipes site composes): the place a fix
    /// edits and the reports point at.
    #[serde(skip)]
    pub written_at: Option<Span>,
}

impl Token {
    /// Whether the word is a docs placeholder as a whole (`<other args>`),
    /// not a word that holds one (`--model-path=<model>`).
    pub fn is_placeholder(&self) -> bool {
        matches!(&self.provenance, Provenance::Unknown { reason } if *reason == placeholder_reason(&self.text))
    }
}

/// An environment variable that reaches the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnvVar {
    /// Variable name.
    pub name: String,
    /// Its value.
    pub value: String,
    /// Where it is set.
    pub span: Span,
    /// How its value is known.
    pub provenance: Provenance,
}

/// A value of the context plus where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Known<T> {
    /// The value.
    pub value: T,
    /// Where it came from, in words (`--engine-version`, `image tag at file:3:14`, ...).
    pub from: String,
}

/// What the text says about where the server runs. Unknown stays `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Context {
    /// Hardware SKU (`mi355x`, `b200`, ...).
    pub hardware: Option<Known<String>>,
    /// Platform.
    pub platform: Option<Known<Platform>>,
    /// Engine version (PEP 440 text, for example `0.5.19` or `0.5.15.post1`).
    pub engine_version: Option<Known<String>>,
    /// Container image.
    pub image: Option<Known<String>>,
    /// The checkpoint a local model path holds, when what runs the command
    /// says (an InferenceX entry's `model:` is what its runner mounts at the
    /// `/model` srtctl serves): the model's identity when the command names
    /// only the path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<Known<String>>,
}

impl Context {
    /// Fills every field that `self` leaves unknown from `other`.
    pub fn fill_from(&mut self, other: &Context) {
        if self.hardware.is_none() {
            self.hardware = other.hardware.clone();
        }
        if self.platform.is_none() {
            self.platform = other.platform.clone();
        }
        if self.engine_version.is_none() {
            self.engine_version = other.engine_version.clone();
        }
        if self.image.is_none() {
            self.image = other.image.clone();
        }
        if self.checkpoint.is_none() {
            self.checkpoint = other.checkpoint.clone();
        }
    }
}

/// One server start as it would run.
#[derive(Debug, Clone, Serialize)]
pub struct Launch {
    /// The engine.
    pub engine: Engine,
    /// The launcher words (`sglang serve`, `python3 -m sglang.launch_server`).
    pub launcher: Vec<Token>,
    /// The arguments after the launcher.
    pub argv: Vec<Token>,
    /// Environment that reaches the server, in order of assignment.
    pub env: Vec<EnvVar>,
    /// Hardware, platform, version, image.
    pub context: Context,
    /// The span of the whole command.
    pub span: Span,
    /// The text it was read from, for reports.
    #[serde(skip)]
    pub source: Arc<Source>,
    /// The folder the server starts in, as the script that starts it left
    /// it (`cd`, `pushd`): relative paths the engine opens (`--config`, a
    /// local model folder) are found from there.
    #[serde(skip)]
    pub cwd: WorkDir,
    /// The files the script wrote, removed or moved before this launch: the
    /// engine never reads their committed content.
    #[serde(skip)]
    pub written: Written,
    /// Set when code that was not evaluated ran before the launch in a shell
    /// whose environment reaches the server (`export $(...)` of an unknown
    /// operand, a `source` of a file that is not read): it may have exported
    /// any variable, so an engine variable this launch does not set is
    /// unknown, not its default. The code, named (``the `source` of x.sh on
    /// line 3``).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub env_open: Option<String>,
    /// Where the text does not run as it reads (a `\` inside a `#` comment
    /// ends the command): the launch is read as bash runs it, and each
    /// defect is a finding of the side it is on.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub defects: Vec<Defect>,
    /// The part this server plays in its deployment: `single` (the default,
    /// not written in JSON) for a server that serves alone, or a role of a
    /// disaggregated or multi-node deployment (`prefill`, `decode`,
    /// `aggregated`), as an srt-slurm recipe names its workers.
    #[serde(skip_serializing_if = "Role::is_single")]
    pub role: Role,
}

/// The part a server plays in its deployment (see [`Launch::role`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A server that serves alone.
    #[default]
    Single,
    /// The prefill workers of a prefill/decode-disaggregated deployment.
    Prefill,
    /// The decode workers of a prefill/decode-disaggregated deployment.
    Decode,
    /// Workers that serve prefill and decode together in a multi-node
    /// deployment (srt-slurm's `aggregated`, `agg`).
    Aggregated,
}

impl Role {
    /// Whether it is [`Role::Single`].
    pub fn is_single(&self) -> bool {
        *self == Role::Single
    }

    /// Its name, as JSON writes it.
    pub fn name(self) -> &'static str {
        match self {
            Role::Single => "single",
            Role::Prefill => "prefill",
            Role::Decode => "decode",
            Role::Aggregated => "aggregated",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A place where a command's text does not run as it reads. The launch it is
/// on holds what bash runs; the defect says what the reader loses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Defect {
    /// Its kind: the name of its row in `findings.yaml`.
    pub kind: &'static str,
    /// Where it is (the `#` that ends the command).
    pub span: Span,
    /// What bash does instead, in one sentence (names the lines it drops).
    pub message: String,
    /// Other places it names (the first line bash runs on its own).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<Span>,
}

/// The row name of a `\` continuation that a `#` comment swallows.
pub const BROKEN_CONTINUATION: &str = "broken-continuation";

impl Launch {
    /// This launch with each word that names a folder the script filled from
    /// the Hub (`hf download REPO --local-dir DIR`, see [`Written::download`])
    /// naming that repository instead: a whole word, an `--option=DIR` word,
    /// or a string value of a JSON word (`{"model": "DIR"}`). `None` when no
    /// word names one (or the server's working folder is not knowable).
    pub fn with_downloads(&self) -> Option<Launch> {
        if self.written.downloads.is_empty() {
            return None;
        }
        let folder = self.cwd.text()?;
        let repo_of = |path: &str| -> Option<String> {
            if path.is_empty() || path.contains(['\n', '{']) {
                return None;
            }
            self.written
                .download(&logical_join(folder, path))
                .map(|(r, _)| r.to_string())
        };
        let mut out = self.clone();
        let mut changed = false;
        for t in &mut out.argv {
            let new = if let Some(r) = repo_of(&t.text) {
                Some(r)
            } else if let Some((opt, v)) =
                t.text.split_once('=').filter(|(o, _)| o.starts_with("--"))
                && let Some(r) = repo_of(v)
            {
                Some(format!("{opt}={r}"))
            } else if t.text.trim_start().starts_with('{') {
                json_with_downloads(&t.text, &repo_of)
            } else {
                None
            };
            if let Some(n) = new {
                t.text = n;
                changed = true;
            }
        }
        changed.then_some(out)
    }
    /// What makes two launches written identically: their argument words and
    /// env assignments (matrix points with the same key are one deployment).
    pub fn written_key(&self) -> String {
        format!(
            "{:?}|{:?}",
            self.argv.iter().map(|t| &t.text).collect::<Vec<_>>(),
            self.env
                .iter()
                .map(|e| (&e.name, &e.value))
                .collect::<Vec<_>>()
        )
    }

    /// Records the values of the secret-named variables in this launch's
    /// environment (`HF_TOKEN`, `OPENAI_API_KEY`), however the script set them
    /// (`read`, `printf -v`, `+=`, `${X:=...}`), and the credentials in URLs of
    /// every variable, so every output masks them.
    pub fn note_env_secrets(&self) {
        for e in &self.env {
            // A credential in a URL, whatever variable holds it
            // (`PIP_INDEX_URL`, `HF_ENDPOINT`).
            crate::secret::note_urls(&e.value);
            if crate::secret::is_secret_env(&e.name) {
                crate::secret::note(&e.value);
            }
        }
    }

    /// This launch with every value in a secret slot masked, whatever its
    /// length: the value of a secret-named environment variable (`HF_TOKEN`)
    /// and of a secret option (`--api-key V`, `--api-key=V`). A value there
    /// is secret by where it is, not by its text, so a short one (a 6-letter
    /// key, a piece of a token) is masked too; text-matched masking
    /// ([`crate::secret::value`]) stops at 8 characters.
    pub fn secret_slots_masked(&self) -> Launch {
        let mut l = self.clone();
        let mask = |s: &str| -> String { s.chars().map(|_| crate::secret::MASK).collect() };
        for e in &mut l.env {
            if crate::secret::is_secret_env(&e.name) {
                e.value = mask(&e.value);
            }
        }
        let mut after_secret = false;
        for t in &mut l.argv {
            if std::mem::take(&mut after_secret) {
                t.text = mask(&t.text);
                continue;
            }
            match t.text.split_once('=') {
                Some((o, v)) if o.starts_with('-') && crate::secret::is_secret_option(o) => {
                    t.text = format!("{o}={}", mask(v));
                }
                Some(_) => {}
                None => {
                    after_secret =
                        t.text.starts_with('-') && crate::secret::is_secret_option(&t.text);
                }
            }
        }
        l
    }

    /// A launch from an argv given on recipe-drift's own command line (`resolve
    /// -- ARGV`): the engine's launcher, then the words shell-quoted, in an inline
    /// source so every word has a span; `env` reaches the server.
    pub fn inline(engine: Engine, argv: &[String], env: &[(String, String)]) -> Launch {
        use crate::span::Origin;
        let launcher = engine.launcher();
        let mut text = launcher.clone();
        let mut offsets = Vec::new();
        for a in argv {
            text.push(' ');
            let start = text.len();
            text.push_str(&shell_words::quote(a));
            offsets.push((start, text.len()));
        }
        let source = Arc::new(Source::new(Origin::Inline("argv".into()), text));
        let token = |text: &str, (s, e): (usize, usize)| Token {
            text: text.to_string(),
            span: source.span(s, e),
            provenance: Provenance::Cli,
            written_at: None,
        };
        Launch {
            engine,
            launcher: vec![token(&launcher, (0, launcher.len()))],
            argv: argv.iter().zip(offsets).map(|(a, o)| token(a, o)).collect(),
            env: env
                .iter()
                .inspect(|(name, value)| {
                    if crate::secret::is_secret_env(name) {
                        crate::secret::note(value);
                    }
                })
                .map(|(name, value)| EnvVar {
                    name: name.clone(),
                    value: value.clone(),
                    span: source.span(0, 0),
                    provenance: Provenance::Cli,
                })
                .collect(),
            context: Context::default(),
            span: source.span(0, source.text.len()),
            source: source.clone(),
            cwd: WorkDir::Start,
            role: Role::Single,
            env_open: None,
            written: Written::default(),
            defects: Vec::new(),
        }
    }

    /// The launcher as one string.
    pub fn launcher_text(&self) -> String {
        self.launcher
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl Context {
    /// Version and platform from a container image such as
    /// `lmsysorg/sglang-rocm:v0.5.19-rocm720-mi35x-20260915`.
    pub fn from_image(image: &str, from: &str) -> Context {
        let lower = image.to_ascii_lowercase();
        // A digest (`@sha256:…`) pins the build; the tag before it still names it.
        let named = lower.split('@').next().unwrap_or(&lower);
        let (name, tag) = match named.rsplit_once(':') {
            Some((n, t)) if !t.contains('/') => (n.to_string(), t.to_string()),
            _ => (named.to_string(), String::new()),
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
            engine_version: version_in_tag(&name, &tag).map(|v| Known {
                value: v,
                from: from.to_string(),
            }),
            image: Some(Known {
                value: image.to_string(),
                from: from.to_string(),
            }),
            checkpoint: None,
        }
    }
}

/// Words of an image's repository that name the engine it holds
/// (`lmsysorg/sglang-rocm`, `rocm/sgl-dev`, `vllm/vllm-openai`).
const IMAGE_ENGINES: &[(&str, &str)] = &[("vllm", "vllm"), ("sglang", "sglang"), ("sgl", "sglang")];

/// The major number of each engine's newest bundled release
/// (`src/engine/releases.yaml`; a test there keeps this in step): a tag's
/// number is a release of the engine only when its major is at most one past
/// it (both engines are 0.x, so CUDA 11 to 13, ROCm 6 and 7 and Python 3 are not).
pub const ENGINE_MAJORS: &[(&str, u64)] = &[("sglang", 0), ("vllm", 0)];

/// Words of a tag after which a number is another component's version, not
/// the engine's (`cuda-12.8.1`, `python-3.12.3`, `torch-2.9.0`).
const COMPONENT_WORDS: &[&str] = &[
    "cu",
    "cuda",
    "cudnn",
    "nccl",
    "rocm",
    "hip",
    "py",
    "python",
    "torch",
    "pytorch",
    "triton",
    "ubuntu",
    "trt",
    "tensorrt",
    "jetpack",
    "l4t",
    "flashinfer",
];

/// The first engine release (`vX.Y.Z[.postN|rcN]`, `X.Y.Z`) in an image tag:
/// a number of three or more parts that can be a release of the engine the
/// repository names (`vllm/vllm-openai`: vLLM), or of any bundled engine when
/// it names none ([`ENGINE_MAJORS`]),
/// and that does not follow a word naming another component (`cuda-12.8.1`).
/// So `minimax-m3-perf-arm64-13.0.1-7a67223` names no vLLM release (13.0.1 is
/// its CUDA version), while `vllm-x86_64-cu13-0.25.1-<commit>` names 0.25.1.
fn version_in_tag(repository: &str, tag: &str) -> Option<String> {
    let named: Vec<&str> = repository
        .split(['/', '-', '_', '.'])
        .filter_map(|w| IMAGE_ENGINES.iter().find(|(x, _)| *x == w).map(|(_, e)| *e))
        .collect();
    let engines: Vec<&str> = if named.is_empty() {
        ENGINE_MAJORS.iter().map(|(e, _)| *e).collect()
    } else {
        named
    };
    let plausible = |v: &pep440_rs::Version| {
        let major = v.release().first().copied().unwrap_or(0);
        ENGINE_MAJORS
            .iter()
            .any(|(e, newest)| engines.contains(e) && major <= newest + 1)
    };
    let words: Vec<&str> = tag.split(['-', '_']).collect();
    for (i, part) in words.iter().enumerate() {
        if i > 0 && COMPONENT_WORDS.contains(&words[i - 1]) {
            continue;
        }
        let p = part.strip_prefix('v').unwrap_or(part);
        if !p.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let Ok(version) = p.parse::<pep440_rs::Version>() else {
            continue;
        };
        if version.release().len() >= 3 && plausible(&version) {
            return Some(p.to_string());
        }
    }
    None
}

/// A JSON object word with each string value that names a downloaded folder
/// replaced by its repository (`None` when it is not JSON or nothing names one).
fn json_with_downloads(text: &str, repo_of: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    fn walk(v: &mut serde_json::Value, repo_of: &dyn Fn(&str) -> Option<String>) -> bool {
        match v {
            serde_json::Value::String(s) => match repo_of(s) {
                Some(r) => {
                    *s = r;
                    true
                }
                None => false,
            },
            serde_json::Value::Object(m) => m.values_mut().fold(false, |c, x| walk(x, repo_of) | c),
            serde_json::Value::Array(a) => a.iter_mut().fold(false, |c, x| walk(x, repo_of) | c),
            _ => false,
        }
    }
    let mut v: serde_json::Value = serde_json::from_str(text).ok()?;
    walk(&mut v, repo_of).then(|| v.to_string())
}

/// `org/name` with no path-like prefix: a Hub repository id.
pub fn is_hf_id(s: &str) -> bool {
    let parts: Vec<&str> = s.split('/').collect();
    parts.len() == 2
        && !s.starts_with(['.', '~', '/'])
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Python option cluster holding a multi-byte letter (found by the
    /// vllm_resolve fuzz target: it sliced inside the letter and panicked) is
    /// an option Python does not have; a module after it is still found.
    #[test]
    fn python_option_clusters_with_non_ascii_letters() {
        assert_eq!(python_module(&["python3", "-\u{4cc}v-D_IP"]), None);
        assert_eq!(python_module(&["python3", "-u\u{e9}m", "sglang"]), None);
        assert_eq!(
            python_module(&["python3", "-um", "sglang.launch_server"]),
            Some(("sglang.launch_server", 3))
        );
        assert_eq!(
            python_module(&["python3", "-Xutf8", "-msglang.x"]),
            Some(("sglang.x", 3))
        );
    }

    /// Tag shapes of InferenceX's images: a CUDA, ROCm or Python version is
    /// not the engine's release; a release after a `cu13` word or an engine
    /// word is; a release candidate and a post release are read whole.
    #[test]
    fn engine_releases_in_image_tags() {
        let v = |image: &str| {
            Context::from_image(image, "t")
                .engine_version
                .map(|k| k.value)
        };
        for (image, want) in [
            (
                "vllm/vllm-openai:minimax-m3-perf-arm64-13.0.1-7a67223",
                None,
            ),
            (
                "vllm/vllm-openai:vllm-minimax-m3-perf-x86_64-13.0.1-5d1c0e9",
                None,
            ),
            ("vllm/vllm-openai:nightly-dev-arm64-cu13.0.1-426e59f", None),
            ("vllm/vllm-openai:minimax-m3-0618-x86_64-cu130", None),
            ("vllm/vllm-openai:cuda-0.9.1", None),
            ("lmsysorg/sglang:python-3.12.3-v0.5.19", Some("0.5.19")),
            (
                "vllm/vllm-openai:vllm-x86_64-cu13-0.25.1-8f3e2a1",
                Some("0.25.1"),
            ),
            (
                "rocm/vllm-dev:vllm-0.23.1-rocm723-mi35x-mori-0625",
                Some("0.23.1"),
            ),
            (
                "rocm/sgl-dev:sglang-0.5.9-rocm720-mi35x-mori-0227-2",
                Some("0.5.9"),
            ),
            (
                "lmsysorg/sglang-rocm:v0.5.10rc0-rocm720-mi35x-1a2b3c4",
                Some("0.5.10rc0"),
            ),
            ("lmsysorg/sglang:v0.5.15.post1-cu130", Some("0.5.15.post1")),
            ("vllm/vllm-openai:v0.20.1-ubuntu2404", Some("0.20.1")),
            // The next major release is possible; a CUDA-sized one is not.
            ("vllm/vllm-openai:v1.0.0", Some("1.0.0")),
            ("vllm/vllm-openai:v12.8.1", None),
            // A repository that names no engine: a release of some bundled engine.
            ("example.org/serving:0.5.21-12.9.1", Some("0.5.21")),
            ("example.org/serving:12.9.1", None),
        ] {
            assert_eq!(v(image).as_deref(), want, "{image}");
        }
    }

    #[test]
    fn logical_paths() {
        assert_eq!(logical_join("", "./cfg.yaml"), "cfg.yaml");
        assert_eq!(logical_join("sub", "cfg.yaml"), "sub/cfg.yaml");
        assert_eq!(logical_join("a/b", "../x"), "a/x");
        assert_eq!(logical_join("", "../x"), "../x");
        assert_eq!(logical_join("/r/a", "/etc/x"), "/etc/x");
        assert_eq!(logical_join("a", ".."), ".");
        let mut w = Written::default();
        w.mark("sub".into(), "removed".into());
        assert_eq!(w.changed("sub/cfg.yaml"), Some("removed"));
        assert_eq!(w.changed("subx/cfg.yaml"), None);
        w.mark(".".into(), "copied into".into());
        assert_eq!(w.changed("subx/cfg.yaml"), Some("copied into"));
        assert_eq!(w.changed("/etc/x"), None);
    }

    fn len(words: &str) -> Option<usize> {
        let w: Vec<&str> = words.split(' ').collect();
        detect_launcher(&w, false).map(|d| d.len)
    }

    #[test]
    fn python_options_before_the_module() {
        assert_eq!(len("python3 -m sglang.launch_server --tp 2"), Some(3));
        assert_eq!(len("python3 -u -m sglang.launch_server"), Some(4));
        assert_eq!(len("python3 -msglang.launch_server --tp 2"), Some(2));
        assert_eq!(len("python -X dev -O -um sglang.launch_server"), Some(6));
        assert_eq!(
            len("python -Xdev -Wignore -m sglang.launch_server"),
            Some(5)
        );
        assert_eq!(len("python3 -c x -m sglang.launch_server"), None);
        assert_eq!(len("python3 script.py -m sglang.launch_server"), None);
        assert_eq!(len("python3 --bogus -m sglang.launch_server"), None);
        // A run of options longer than the budget is not a module launch.
        let many = format!("python3 {}-m sglang.launch_server", "-u ".repeat(40));
        assert_eq!(len(&many), None);
    }

    fn wrapped(words: &str) -> Option<usize> {
        let w: Vec<&str> = words.split(' ').collect();
        detect_wrapper(&w).map(|(_, n)| n)
    }

    #[test]
    fn wrapper_spans() {
        assert_eq!(wrapped("nice -n 5 sglang serve"), Some(3));
        assert_eq!(wrapped("nice -n5 sglang serve"), Some(2));
        assert_eq!(wrapped("stdbuf -oL -eL sglang"), Some(3));
        assert_eq!(wrapped("timeout -k 10 --signal=INT 1h sglang"), Some(5));
        assert_eq!(wrapped("taskset -c 0-7 sglang"), Some(3));
        assert_eq!(wrapped("numactl --interleave all -N 0 sglang"), Some(5));
        assert_eq!(wrapped("uv run --with x -- sglang"), Some(5));
        assert_eq!(wrapped("uv pip install x"), None);
        assert_eq!(wrapped("sglang serve"), None);
    }

    #[test]
    fn launchers_inside_other_programs() {
        let w: Vec<&str> = "srun -N 2 sglang serve --tp 8".split(' ').collect();
        assert_eq!(launcher_inside(&w).map(|(j, d)| (j, d.len)), Some((3, 2)));
        let w: Vec<&str> = "torchrun --nproc 8 -m sglang.launch_server"
            .split(' ')
            .collect();
        assert_eq!(launcher_inside(&w).map(|(j, d)| (j, d.len)), Some((3, 2)));
        let w: Vec<&str> = "grep -r sglang".split(' ').collect();
        assert_eq!(launcher_inside(&w), None);
    }
}

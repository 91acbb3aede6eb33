//! Static bash evaluation for recipe scripts: walks `brush-parser`'s AST with the
//! script's env contract and reports the server launches as bash would run them,
//! without ever executing anything.
//!
//! Conditions on unknown values are never decided: both branches are evaluated and
//! whatever differs between them becomes unknown, with the reason; a launch inside
//! such a branch says which condition it depends on. External commands (downloads,
//! installs, waits) are side effects: they are skipped and assumed to succeed.
//!
//! What the functions of a harness library do (InferenceX's `benchmark_lib.sh`:
//! waits, benchmark clients, KV-offload gates) is not known here: the caller
//! passes a [`Harness`] that models them.

//!
//! The rooms: `parse` (guarded parsing), `walk` (the statement walker),
//! `command` (simple commands and builtins), `launch` (launch recognition and
//! `bash other.sh` delegation), `capture` (`$(...)`), `conditions` (`[ ... ]`),
//! `expand` (words and expansions), `glob` (shell patterns in linear time),
//! `budget` (every limit of the evaluation), `harness` (the hook for harness
//! libraries).

mod budget;
mod capture;
mod command;
mod conditions;
pub mod expand;
mod glob;
mod harness;
mod launch;
mod parse;
mod walk;
mod word_parser;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use brush_parser::ast;

use self::expand::Val;
use crate::error::Error;
use crate::files::{Files, LocalFiles};
use crate::launch::Launch;
use crate::span::Source;

pub use self::budget::{Budget, configure as configure_budget, configured as configured_budget};
pub(crate) use self::capture::command_substitution;
pub use self::harness::{Call, Harness, NoHarness};
use self::parse::parse_guarded;
pub(crate) use self::parse::{PARSER_THREAD, expansion_too_deep, quiet_parser_panics};

/// The shell state: variables (scalars are one-element arrays), exports, functions.
/// A copy (a branch, a subshell, a `$(...)`) counts its bytes against the
/// built-bytes budget.
#[derive(Debug, Default)]
pub struct State {
    vars: BTreeMap<String, Vec<Val>>,
    /// Where each element of a variable's value was written.
    spans: BTreeMap<String, Vec<Option<expand::Range>>>,
    exported: BTreeSet<String>,
    /// Where each variable was last assigned (`NAME=value`), for env reports.
    assigned: BTreeMap<String, expand::Range>,
    /// Positional parameters (`$1`...), inside functions.
    pub positional: Vec<Val>,
    /// `$0`: the script's path as given.
    pub script: String,
    /// The environment is complete (a benchmark's env contract): a variable that
    /// is not set expands to nothing, as in bash, instead of being unknown.
    pub complete_env: bool,
    functions: BTreeMap<String, Arc<ast::FunctionDefinition>>,
    /// The harness whose functions are modeled (`None`: plain bash).
    harness: Option<&'static dyn Harness>,
}

/// The bytes a copy of a variable's values takes (text or reason).
fn values_bytes(v: &[Val]) -> usize {
    v.iter()
        .map(|x| match x {
            Val::Known(t) | Val::Unknown(t) => t.len() + 32,
        })
        .sum()
}

impl Clone for State {
    fn clone(&self) -> Self {
        let bytes: usize = self
            .vars
            .iter()
            .map(|(k, v)| k.len() + values_bytes(v) + 64)
            .sum();
        // An exceeded budget stays tripped: the evaluation ends at its next step.
        let _ = budget::built(bytes);
        State {
            vars: self.vars.clone(),
            spans: self.spans.clone(),
            exported: self.exported.clone(),
            assigned: self.assigned.clone(),
            positional: self.positional.clone(),
            script: self.script.clone(),
            complete_env: self.complete_env,
            functions: self.functions.clone(),
            harness: self.harness,
        }
    }
}

impl State {
    /// A variable's values (`None` when unset). The copy counts against the
    /// built-bytes budget (an exceeded budget ends the evaluation at its next
    /// step).
    pub fn get(&self, name: &str) -> Option<Vec<Val>> {
        let v = self.vars.get(name)?;
        let _ = budget::built(values_bytes(v));
        Some(v.clone())
    }

    /// Sets a scalar.
    pub fn set_scalar(&mut self, name: &str, v: Val) {
        self.vars.insert(name.to_string(), vec![v]);
        self.spans.remove(name);
        self.assigned.remove(name);
    }

    /// Where each element of a variable's value was written.
    pub fn spans_of(&self, name: &str) -> Vec<Option<expand::Range>> {
        self.spans.get(name).cloned().unwrap_or_default()
    }

    /// The harness whose functions are modeled.
    fn harness(&self) -> &'static dyn Harness {
        self.harness.unwrap_or(&NoHarness)
    }
}

/// Exit status of a command, statically.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Exit status 0.
    Ok,
    /// A non-zero exit status.
    Fail,
    /// Not knowable statically, with the reason.
    Unknown(String),
}

fn status_of(b: bool) -> Status {
    if b { Status::Ok } else { Status::Fail }
}

/// What evaluating a script found.
#[derive(Debug, Default)]
pub struct Evaluation {
    /// Server launches, in order.
    pub launches: Vec<Launch>,
    /// Launches of engines recipe-drift does not resolve (`trtllm-serve`, ...), with
    /// where they are.
    pub unsupported: Vec<String>,
}

struct Interp<'a> {
    source: &'a Arc<Source>,
    /// Where `bash other.sh` delegations are read from (disk, or a remote root).
    files: &'a dyn Files,
    char_to_byte: Vec<usize>,
    st: State,
    out: Evaluation,
    /// Reasons of the unknown conditions the current code runs under.
    conditions: Vec<String>,
    stopped: bool,
    returning: bool,
    /// `break` / `continue` seen inside a loop body.
    breaking: bool,
    continuing: bool,
    /// Function calls active in this interpreter (`exit` inside one).
    depth: usize,
    /// How many `bash other.sh` delegations led here.
    level: usize,
    /// Inside `$(...)`: the output written so far.
    capture: Option<String>,
    /// Inside `$(...)`: why the output is not knowable, if it is not.
    capture_unknown: Option<String>,
}

/// The harness the entry points without a harness argument model: InferenceX's
/// `benchmark_lib.sh`, because plain `.sh` recipes (`extract`/`compare` on a
/// script) are InferenceX benchmark scripts and have always been read with it.
/// Callers that know better pass their harness to [`evaluate_with`].
fn default_harness() -> &'static dyn Harness {
    &crate::extract::inferencex::HARNESS
}

/// Evaluates a script with its environment (the benchmark's env contract),
/// modeling InferenceX's harness library.
pub fn evaluate(source: &Arc<Source>, env: &BTreeMap<String, String>) -> Result<Evaluation, Error> {
    evaluate_with(source, env, None, &LocalFiles, default_harness())
}

/// Like [`evaluate`], reading the scripts it delegates to (`bash other.sh`)
/// through `files` (a remote script's siblings are remote too).
pub fn evaluate_in(
    source: &Arc<Source>,
    env: &BTreeMap<String, String>,
    files: &dyn Files,
) -> Result<Evaluation, Error> {
    evaluate_with(source, env, None, files, default_harness())
}

/// Evaluates a script with its environment, modeling the functions of
/// `harness` ([`NoHarness`] for plain bash) and reading delegated scripts
/// through `files`. With `unknown` (variables whose value is not knowable,
/// name -> reason) the environment is complete: variables it does not set are
/// unset.
pub fn evaluate_with(
    source: &Arc<Source>,
    env: &BTreeMap<String, String>,
    unknown: Option<&BTreeMap<String, String>>,
    files: &dyn Files,
    harness: &'static dyn Harness,
) -> Result<Evaluation, Error> {
    let none = BTreeMap::new();
    evaluate_at(
        source,
        env,
        unknown.unwrap_or(&none),
        0,
        unknown.is_some(),
        files,
        harness,
    )
}

fn evaluate_at(
    source: &Arc<Source>,
    env: &BTreeMap<String, String>,
    unknown: &BTreeMap<String, String>,
    level: usize,
    complete_env: bool,
    files: &dyn Files,
    harness: &'static dyn Harness,
) -> Result<Evaluation, Error> {
    // A delegated script (`bash other.sh`) shares its caller's budget.
    let _meter = budget::install();
    let program = parse_guarded(source)?;
    let mut st = State {
        script: source.origin.label(),
        complete_env,
        harness: Some(harness),
        ..State::default()
    };
    for (k, v) in env {
        st.set_scalar(k, Val::Known(v.clone()));
        st.exported.insert(k.clone());
    }
    for (k, reason) in unknown {
        st.set_scalar(k, Val::Unknown(reason.clone()));
        st.exported.insert(k.clone());
    }
    let mut it = Interp::new(source, st, level, None, files);
    for cc in &program.complete_commands {
        it.list(cc)?;
        if it.stopped {
            break;
        }
    }
    // A budget exceeded where the error could not be returned (a pattern
    // match, a copy of the state) still ends the evaluation.
    if let Some(message) = budget::tripped() {
        return Err(Error::input(
            source.span(source.text.len(), source.text.len()),
            message,
        ));
    }
    Ok(it.out)
}

#[cfg(test)]
mod tests;

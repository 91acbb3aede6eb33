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
//! The rooms: `parse` (guarded parsing), `walk` (the statement walker: lists,
//! `set -e`, subshells, loops), `command` (simple commands and builtins:
//! `set`/`shift`, `exec`), `launch` (launch
//! recognition and `bash other.sh` delegation), `declare` (the declaration
//! builtins), `capture` (`$(...)`),
//! `conditions` (`[ ... ]`), `expand` (words and expansions), `arith`
//! (arithmetic), `casemod` (`${X^^}`, `${X~~}`), `indirect` (`${!R...}`),
//! `stdout` (where a command's output goes inside `$(...)`), `brace` (brace
//! expansion), `fields` (`$IFS` splitting, glob patterns, positional
//! parameters), `glob` (shell patterns in linear time: classes, extglob,
//! `nocasematch`), `source` (`source FILE`, and the one mechanism that runs
//! sourced files, `eval` text and functions over the text they were written
//! in), `recorded` (the commands recorded for readers: `git clone`), `paths`
//! (the working folder: `cd`, `pushd`, `popd`; and the paths
//! the script writes, whose later reads are not knowable), `options`
//! (`shopt`, `alias`, `trap`, `unset`), `budget` (every limit
//! of the evaluation), `harness` (the hook for harness libraries).
//!
//! Control flow that is not knowable is never decided either: an `exit`,
//! `break` or `return` that may or may not run, and a loop that may never end,
//! make what follows conditional, with the reason.

mod arith;
mod brace;
mod budget;
mod capture;
mod captured;
mod casemod;
mod command;
mod conditions;
mod declare;
mod environ;
mod escapes;
pub mod expand;
mod fields;
mod getopts;
mod glob;
mod harness;
mod indirect;
mod launch;
mod named_fd;
mod options;
mod parse;
mod paths;
mod recorded;
mod source;
mod stdout;
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
pub use self::recorded::Recorded;

/// The shell state: variables (scalars are one-element arrays), exports, functions.
/// A copy (a branch, a subshell, a `$(...)`) counts its bytes against the
/// built-bytes budget.
#[derive(Debug, Default)]
pub struct State {
    /// Values are shared between copies of the state (a subshell's copy costs
    /// one pointer per variable, not its whole value).
    vars: BTreeMap<String, Arc<Vec<Val>>>,
    /// Where each element of a variable's value was written.
    spans: BTreeMap<String, Arc<Vec<Option<expand::Range>>>>,
    exported: BTreeSet<String>,
    /// Where each variable was last assigned (`NAME=value`), for env reports.
    assigned: BTreeMap<String, expand::Range>,
    /// The text a variable's `spans` and `assigned` ranges are in (a
    /// script, a sourced file, an `eval`).
    written: BTreeMap<String, Arc<Source>>,
    /// The text the code running now is in: a range written in another
    /// one is not placed in it.
    here: Option<Arc<Source>>,
    /// Variables the shell started with that an earlier text wrote (a page's
    /// earlier code block): the value they started with and where it was
    /// written there. Where a variable still holds that value, its words
    /// are placed there.
    carried: BTreeMap<String, (Arc<Vec<Val>>, Carried)>,
    /// Positional parameters (`$1`...): the script's own (none: InferenceX runs
    /// its scripts as `bash SCRIPT`), a function's arguments, or `set --`. An
    /// unknown element may stand for any number of words: from there on `$N`
    /// and `$#` are unknown.
    pub positional: Vec<Val>,
    /// `$0`: the script's path as given.
    pub script: String,
    /// The environment is complete (a benchmark's env contract): a variable that
    /// is not set expands to nothing, as in bash, instead of being unknown.
    pub complete_env: bool,
    functions: BTreeMap<String, Arc<Function>>,
    /// `set -e`: a command whose known status is a failure ends the script.
    errexit: bool,
    /// `set -f`: no pathname expansion.
    pub noglob: bool,
    /// `set -o pipefail`: a pipeline fails when any of its commands fails.
    pipefail: bool,
    /// `set -a` / `set -o allexport`: every variable assigned is exported.
    allexport: bool,
    /// `set -u`: expanding a variable that is not set ends the script.
    nounset: bool,
    /// The `shopt` options that are on (`extglob`, `nocasematch`,
    /// `lastpipe`, `expand_aliases`, ...).
    shopt: BTreeSet<String>,
    /// The `shopt` options a script turned off (`shopt -u
    /// patsub_replacement`: off in every bash version, where its default
    /// differs between versions).
    shopt_off: BTreeSet<String>,
    /// The frames of `FUNCNAME`, outermost first: each function running
    /// (`true`) and each `source` (`false`).
    funcname: Vec<(String, bool)>,
    /// Whether bash puts `main` at the bottom of `FUNCNAME`: for a script
    /// file it does, for `bash -c` or standard input it does not; for a
    /// page's text it depends on how the reader runs it (`None`).
    main_frame: Option<bool>,
    /// `unset FUNCNAME`: it is an ordinary variable from then on.
    funcname_unset: bool,
    /// `alias NAME=TEXT` definitions.
    aliases: BTreeMap<String, String>,
    /// Where each alias was defined: the text and the end of the complete
    /// command that defined it (commands of that text before it were read
    /// without the alias).
    alias_at: BTreeMap<String, (Arc<Source>, usize)>,
    /// Set by an expansion that ends the script (`set -u` and a variable
    /// that is not set): the reason. The command it is in does not run.
    aborted: Option<String>,
    /// Set by an expansion that ends the script if a variable the script
    /// does not set is not set in its environment either (`set -u`): the
    /// reason.
    may_abort: Option<String>,
    /// `trap CODE EXIT`: the code run when the script ends.
    exit_trap: Option<Val>,
    /// `trap CODE RETURN`: the code run when the function that set it, or
    /// a sourced file, returns (functions do not inherit it).
    return_trap: Option<Val>,
    /// Code that was not evaluated may have set any variable (a `source`
    /// of a file that is not read): why. A variable not set since is
    /// unknown, not unset.
    clobbered: Option<String>,
    /// The script runs under `sh` (or `dash`), which may not be bash: why.
    /// What bash alone has (`source`, `declare`, `[[`) is not knowable there.
    pub(super) sh: Option<String>,
    /// The file whose code runs now (the script, a sourced file, the file a
    /// function was defined in): `${BASH_SOURCE[0]}`.
    file: Option<String>,
    /// The working folder as the script named it with `cd` (`None`: the
    /// folder it was started in); unknown after a `cd` that is not.
    cwd: Option<Val>,
    /// The folder the script starts in, absolute: the top level of the
    /// repository holding the first local file evaluated (where InferenceX's
    /// runner starts its scripts); `None` for text that is not a local file.
    start_dir: Option<String>,
    /// The paths the script wrote, removed or moved so far: a later read of
    /// one is not knowable.
    touched: crate::launch::Written,
    /// `cd -`: the working folder before the last `cd` (`None`: no `cd`
    /// ran, `$OLDPWD` is not set by the script).
    oldpwd: Option<Option<Val>>,
    /// `pushd`: the folders under the current one on the stack.
    dirstack: Vec<Option<Val>>,
    /// `set -P` / `set -o physical`: `cd` resolves symbolic links.
    physical: bool,
    /// `set -C` / `set -o noclobber`: `> FILE` does not overwrite a file
    /// that is there.
    noclobber: bool,
    /// The folder of the script file this shell runs (relative paths start
    /// there), also inside `$(...)`.
    script_dir: Option<std::path::PathBuf>,
    /// Variables marked `readonly` / `declare -r`.
    readonly: BTreeSet<String>,
    /// Variables marked `declare -i`: assignments are arithmetic.
    integers: BTreeSet<String>,
    /// Variables marked `declare -u` / `-l` / `-c`: assignments change the
    /// case (the letter is the flag).
    cases: BTreeMap<String, char>,
    /// `declare -n NAME=TARGET`: NAME refers to TARGET (unknown when TARGET is).
    namerefs: BTreeMap<String, Val>,
    /// The status of the last `$(...)` evaluated (an assignment's status).
    subst_status: Option<Status>,
    /// What the `$(...)` texts of the command running now started
    /// (launches, unsupported and auxiliary processes): moved into the
    /// evaluation when the command ends. A copy of the state starts with
    /// none.
    inside: Option<Box<Evaluation>>,
    /// Where the command running now is (`FILE:LINE:COL`): the label of
    /// the text of a `$(...)` in it, which places what that text starts.
    place: Option<String>,
    /// The status of the last command, as `$?` reads it (set before each
    /// command runs).
    last: Option<Status>,
    /// What brace expansion has made in this script so far (shared by every
    /// copy of the state: the budget is the script's).
    brace_used: Arc<brace::Usage>,
    /// The harness whose functions are modeled (`None`: plain bash).
    harness: Option<&'static dyn Harness>,
    /// The variables the script read (expansions, arithmetic, harness
    /// functions), shared by every copy of the state.
    reads: Arc<std::sync::Mutex<BTreeSet<String>>>,
}

/// A function definition, with the text it was written in (a script, a
/// sourced file, an `eval`): its body runs over that text, so what it
/// launches and its errors are placed there.
#[derive(Debug)]
pub(crate) struct Function {
    /// The definition.
    def: ast::FunctionDefinition,
    /// The text it was written in.
    source: Arc<Source>,
    /// That text's character -> byte index.
    index: Arc<Vec<usize>>,
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
    /// A copy shares the variables' values; it costs a pointer and a name per
    /// variable, counted against the built-bytes budget (an exceeded budget
    /// ends the evaluation at its next step).
    fn clone(&self) -> Self {
        let bytes: usize = self.vars.keys().map(|k| k.len() + 64).sum::<usize>()
            + self
                .namerefs
                .iter()
                .map(|(k, v)| k.len() + values_bytes(std::slice::from_ref(v)) + 64)
                .sum::<usize>()
            + values_bytes(&self.positional);
        let _ = budget::built(bytes);
        State {
            vars: self.vars.clone(),
            spans: self.spans.clone(),
            exported: self.exported.clone(),
            assigned: self.assigned.clone(),
            written: self.written.clone(),
            here: self.here.clone(),
            carried: self.carried.clone(),
            positional: self.positional.clone(),
            script: self.script.clone(),
            complete_env: self.complete_env,
            functions: self.functions.clone(),
            errexit: self.errexit,
            noglob: self.noglob,
            pipefail: self.pipefail,
            allexport: self.allexport,
            nounset: self.nounset,
            shopt: self.shopt.clone(),
            shopt_off: self.shopt_off.clone(),
            funcname: self.funcname.clone(),
            main_frame: self.main_frame,
            funcname_unset: self.funcname_unset,
            aliases: self.aliases.clone(),
            alias_at: self.alias_at.clone(),
            aborted: self.aborted.clone(),
            may_abort: self.may_abort.clone(),
            exit_trap: self.exit_trap.clone(),
            return_trap: self.return_trap.clone(),
            clobbered: self.clobbered.clone(),
            sh: self.sh.clone(),
            file: self.file.clone(),
            cwd: self.cwd.clone(),
            start_dir: self.start_dir.clone(),
            touched: self.touched.clone(),
            oldpwd: self.oldpwd.clone(),
            dirstack: self.dirstack.clone(),
            physical: self.physical,
            noclobber: self.noclobber,
            script_dir: self.script_dir.clone(),
            readonly: self.readonly.clone(),
            integers: self.integers.clone(),
            cases: self.cases.clone(),
            namerefs: self.namerefs.clone(),
            subst_status: self.subst_status.clone(),
            inside: None,
            place: self.place.clone(),
            last: self.last.clone(),
            brace_used: self.brace_used.clone(),
            harness: self.harness,
            reads: self.reads.clone(),
        }
    }
}

/// How many `declare -n` references a name may go through (bash warns about a
/// circular reference; we make it unknown).
const NAMEREF_CHAIN: usize = 8;

impl State {
    /// The variable a name stands for, through `declare -n` references; `Err`
    /// with the reason when the reference is not knowable.
    pub fn resolve(&self, name: &str) -> Result<String, String> {
        let mut cur = name.to_string();
        for _ in 0..NAMEREF_CHAIN {
            match self.namerefs.get(&cur) {
                None => return Ok(cur),
                Some(Val::Known(t))
                    if !t.is_empty()
                        && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
                {
                    cur = t.clone()
                }
                Some(Val::Known(t)) => {
                    return Err(format!(
                        "${name} is a reference (declare -n) to {t:?}, which is not evaluated (only plain variable names are)"
                    ));
                }
                Some(Val::Unknown(r)) => {
                    return Err(format!(
                        "${name} is a reference (declare -n) to a variable that is not knowable: {r}"
                    ));
                }
            }
        }
        Err(format!(
            "${name} is a reference (declare -n) through more than {NAMEREF_CHAIN} names (circular?)"
        ))
    }

    /// A variable's values (`None` when unset), through `declare -n` references.
    /// The copy counts against the built-bytes budget (an exceeded budget ends
    /// the evaluation at its next step).
    pub fn get(&self, name: &str) -> Option<Vec<Val>> {
        match self.resolve(name) {
            Ok(n) => match (self.vars.get(&n), &self.clobbered) {
                (Some(v), _) => {
                    let _ = budget::built(values_bytes(v));
                    Some(v.as_ref().clone())
                }
                (None, Some(r)) => Some(vec![Val::Unknown(format!("${n} {r}"))]),
                (None, None) => None,
            },
            Err(r) => Some(vec![Val::Unknown(r)]),
        }
    }

    /// A variable's values as the script reads them (`$NAME`, arithmetic, a
    /// harness function): [`State::get`], with the name recorded as read.
    pub fn read(&self, name: &str) -> Option<Vec<Val>> {
        let n = self.resolve(name).unwrap_or_else(|_| name.to_string());
        if let Ok(mut r) = self.reads.lock()
            && !r.contains(&n)
        {
            r.insert(n);
        }
        self.get(name)
    }

    /// Code that is not evaluated ran here (`why`): every variable it could
    /// set (all but the readonly ones) and the positional parameters are
    /// unknown from now on, and so is a variable not set yet. An exceeded
    /// budget ends the evaluation at its next step.
    pub(crate) fn clobber(&mut self, why: &str) {
        let reason = format!("{CLOBBERED_PREFIX}{why}");
        // Each variable gets a new value: counted against the built-bytes
        // budget (a loop doing this on many variables ends there).
        let _ = budget::built(
            self.vars
                .keys()
                .map(|k| 2 * k.len() + reason.len() + 64)
                .sum(),
        );
        let names: Vec<String> = self.vars.keys().cloned().collect();
        for n in names {
            if !self.readonly.contains(&n) {
                let v = Val::Unknown(format!("${n} {reason}"));
                self.vars.insert(n.clone(), Arc::new(vec![v]));
                self.spans.remove(&n);
            }
        }
        self.positional = vec![Val::Unknown(format!("the positional parameters {reason}"))];
        self.clobbered = Some(reason);
    }

    /// The value variable `name` (resolved) holds once the scalar `v` is
    /// assigned to it: bash assigns a scalar to element 0 of an indexed
    /// array (`T=(4 8); T=2` leaves `(2 8)`), the other elements stay.
    pub(crate) fn scalar_assigned(&self, name: &str, v: Val) -> Vec<Val> {
        match self.vars.get(name) {
            Some(cur) if cur.len() > 1 => {
                let mut cur = cur.as_ref().clone();
                cur[0] = v;
                cur
            }
            _ => vec![v],
        }
    }

    /// Gives the whole variable `name` (through `declare -n` references)
    /// the one value `v`, every element of an array included: for what makes
    /// a variable unknown as a whole (an `unset` that cannot be evaluated).
    pub fn set_whole(&mut self, name: &str, v: Val) {
        let Ok(name) = self.resolve(name) else { return };
        if self.readonly.contains(&name) {
            return;
        }
        self.vars.remove(&name);
        self.set_scalar(&name, v);
    }

    /// Sets a scalar (through `declare -n` references). A readonly variable keeps
    /// its value, as in bash (where the assignment is an error).
    pub fn set_scalar(&mut self, name: &str, v: Val) {
        let name = match self.resolve(name) {
            Ok(n) => n,
            Err(_) => return,
        };
        if self.readonly.contains(&name) {
            return;
        }
        note_secret(&name, std::slice::from_ref(&v));
        let value = self.scalar_assigned(&name, v);
        self.vars.insert(name.to_string(), Arc::new(value));
        self.spans.remove(&name);
        self.assigned.remove(&name);
        if self.allexport {
            self.exported.insert(name);
        }
    }

    /// Where each element of a variable's value was written (nothing when
    /// it was written in another text than the one running now).
    pub fn spans_of(&self, name: &str) -> Vec<Option<expand::Range>> {
        let name = self.resolve(name).unwrap_or_else(|_| name.to_string());
        if !self.written_here(&name) {
            return Vec::new();
        }
        self.spans
            .get(&name)
            .map(|v| v.as_ref().clone())
            .unwrap_or_default()
    }

    /// Where variable `name` was last assigned (`NAME=...`), as
    /// `FILE:LINE:COL`, in whichever text that was.
    pub(super) fn origin_of(&self, name: &str) -> Option<String> {
        let name = self.resolve(name).unwrap_or_else(|_| name.to_string());
        let (start, _) = self.assigned.get(&name)?;
        let src = self.written.get(&name).or(self.here.as_ref())?;
        Some(src.place(*start))
    }

    /// Whether a variable's ranges are in the text running now.
    fn written_here(&self, name: &str) -> bool {
        match (self.written.get(name), &self.here) {
            (Some(w), Some(h)) => Arc::ptr_eq(w, h),
            (None, _) => true,
            (Some(_), None) => false,
        }
    }

    /// Where a variable was last assigned, when that is in the text running
    /// now.
    fn assigned_here(&self, name: &str) -> Option<expand::Range> {
        if !self.written_here(name) {
            return None;
        }
        self.assigned.get(name).copied()
    }

    /// Where a variable's value was written when it still holds the value
    /// an earlier text gave it ([`Carried`]).
    pub(super) fn carried(&self, name: &str) -> Option<&Carried> {
        let (value, carried) = self.carried.get(name)?;
        self.vars
            .get(name)
            .is_some_and(|v| Arc::ptr_eq(v, value))
            .then_some(carried)
    }

    /// Where a variable's value was written, for the next text: as carried
    /// in when it still holds that value, else its own ranges placed in the
    /// text they are in.
    fn carried_or_written(&self, name: &str) -> Carried {
        if let Some(c) = self.carried(name) {
            return c.clone();
        }
        let Some(src) = self.written.get(name).or(self.here.as_ref()) else {
            return Carried::default();
        };
        Carried {
            values: self
                .spans
                .get(name)
                .map(|v| v.iter().map(|r| r.map(|(s, e)| src.span(s, e))).collect())
                .unwrap_or_default(),
            assigned: self.assigned.get(name).map(|&(s, e)| src.span(s, e)),
        }
    }

    /// Records where a variable was written: `spans` and `assigned` are in
    /// the text running now. Under `set -a` it is exported.
    fn note_written(&mut self, name: &str) {
        if self.allexport {
            self.exported.insert(name.to_string());
        }
        match &self.here {
            Some(h) => {
                self.written.insert(name.to_string(), h.clone());
            }
            None => {
                self.written.remove(name);
            }
        }
    }

    /// Whether a variable is readonly.
    fn is_readonly(&self, name: &str) -> bool {
        self.resolve(name)
            .map(|n| self.readonly.contains(&n))
            .unwrap_or(false)
    }

    /// The separators of word splitting: `$IFS` (space, tab, newline when
    /// unset); `Err` with the reason when it is not knowable.
    pub fn ifs(&self) -> Result<String, String> {
        match self.vars.get("IFS").and_then(|v| v.first()) {
            None => Ok(" \t\n".into()),
            Some(Val::Known(t)) => Ok(t.clone()),
            Some(Val::Unknown(r)) => Err(format!(
                "word splitting uses $IFS, which is not knowable: {r}"
            )),
        }
    }

    /// What `"$*"` and `"${A[*]}"` join elements with: the first character of
    /// `$IFS` (a space when unset, nothing when empty).
    pub fn ifs_join(&self) -> String {
        match self.vars.get("IFS").and_then(|v| v.first()) {
            None => " ".into(),
            Some(v) => v
                .text()
                .chars()
                .next()
                .map(String::from)
                .unwrap_or_default(),
        }
    }

    /// How patterns are read: `extglob` (always on in `[[ == ]]`) and, where
    /// it applies, `nocasematch`.
    pub(crate) fn pattern_options(&self, extglob: bool, nocase_applies: bool) -> glob::Options {
        glob::Options {
            extglob: extglob || self.shopt.contains("extglob"),
            nocase: nocase_applies && self.shopt.contains("nocasematch"),
        }
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

/// A variable as it was before a function's `local` shadowed it.
#[derive(Debug, Clone)]
struct Shadowed {
    value: Option<Arc<Vec<Val>>>,
    spans: Option<Arc<Vec<Option<expand::Range>>>>,
    assigned: Option<expand::Range>,
    written: Option<Arc<Source>>,
    exported: bool,
    nameref: Option<Val>,
    integer: bool,
    case: Option<char>,
}

impl State {
    /// A variable as it is now, for a `local` of the same name to shadow: a
    /// local is not a reference, keeps the export attribute (as in bash), and
    /// without a value it is unset.
    fn shadow(&mut self, name: &str, keep_value: bool) -> Shadowed {
        let s = Shadowed {
            value: self.vars.get(name).cloned(),
            spans: self.spans.get(name).cloned(),
            assigned: self.assigned.get(name).copied(),
            written: self.written.get(name).cloned(),
            exported: self.exported.contains(name),
            nameref: self.namerefs.remove(name),
            integer: self.integers.remove(name),
            case: self.cases.remove(name),
        };
        if !keep_value {
            self.vars.remove(name);
            self.spans.remove(name);
            self.assigned.remove(name);
        }
        s
    }

    /// Puts a shadowed variable back.
    fn restore(&mut self, name: String, s: Shadowed) {
        fn put<T>(map: &mut BTreeMap<String, T>, name: &str, v: Option<T>) {
            match v {
                Some(v) => map.insert(name.to_string(), v),
                None => map.remove(name),
            };
        }
        put(&mut self.vars, &name, s.value);
        put(&mut self.spans, &name, s.spans);
        put(&mut self.assigned, &name, s.assigned);
        put(&mut self.written, &name, s.written);
        put(&mut self.namerefs, &name, s.nameref);
        put(&mut self.cases, &name, s.case);
        if s.integer {
            self.integers.insert(name.clone());
        } else {
            self.integers.remove(&name);
        }
        if s.exported {
            self.exported.insert(name);
        } else {
            self.exported.remove(&name);
        }
    }
}

/// The `set` options a `local -` saves.
#[derive(Debug, Clone, Copy)]
struct SetOptions {
    errexit: bool,
    noglob: bool,
    pipefail: bool,
    allexport: bool,
    nounset: bool,
    physical: bool,
    noclobber: bool,
}

impl State {
    /// The `set` options now.
    fn set_options(&self) -> SetOptions {
        SetOptions {
            errexit: self.errexit,
            noglob: self.noglob,
            pipefail: self.pipefail,
            allexport: self.allexport,
            nounset: self.nounset,
            physical: self.physical,
            noclobber: self.noclobber,
        }
    }

    /// Puts saved `set` options back.
    fn restore_options(&mut self, o: SetOptions) {
        self.errexit = o.errexit;
        self.noglob = o.noglob;
        self.pipefail = o.pipefail;
        self.allexport = o.allexport;
        self.nounset = o.nounset;
        self.physical = o.physical;
        self.noclobber = o.noclobber;
    }
}

/// A jump out of a loop turn or a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Break,
    Continue,
    Return,
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
    /// The variables the script (and the scripts it runs) read.
    pub read: BTreeSet<String>,
    /// Auxiliary launches (the SGLang router), with where they are and their
    /// words: reported, never compared.
    pub auxiliary: Vec<crate::launch::Remark>,
    /// The files the script (and the shells it runs) wrote, removed or
    /// moved, as they stand when it ends (keys relative to its folder).
    pub written: crate::launch::Written,
    /// Code run in the shell that is not read (an unread `source`, an
    /// `eval` of text that is not knowable), which may start a server: the
    /// notice, with how many launches were found before it. A launch after
    /// it runs under a condition naming it; one with none after it is
    /// listed with the unsupported launches when the script ends.
    unread: Vec<(usize, String)>,
    /// The variables as the text left them, when asked for
    /// ([`evaluate_text`]): empty otherwise.
    pub vars: Vec<Preset>,
    /// The commands of `recorded.yaml` the script runs (`git clone`, `git
    /// checkout`), in order, each with the condition it runs under.
    pub recorded: Vec<Recorded>,
}

/// A variable a shell starts with (or ends with): its name, its value (one
/// element for a scalar), whether it is exported, and where its value was
/// written.
pub type Preset = (String, Vec<Val>, bool, Carried);

/// Where a variable's value was written, in the coordinates of the text it
/// was written in (a page, for a page's code block): carried from one text to
/// the next with the variable, so a later block places the value where an
/// earlier one wrote it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Carried {
    /// Where each element of the value was written, when known.
    pub values: Vec<Option<crate::span::Span>>,
    /// Where the variable was assigned (`export NAME=value`), when known.
    pub assigned: Option<crate::span::Span>,
}

impl Evaluation {
    /// The notices of code not read that no later launch stands for, as
    /// unsupported launches (it may start a server).
    fn settle_unread(&mut self) {
        let n = self.launches.len();
        for (before, note) in std::mem::take(&mut self.unread) {
            if before == n {
                self.unsupported.push(note);
            }
        }
    }
}

struct Interp<'a> {
    source: &'a Arc<Source>,
    /// The script this evaluation runs (the text of a sourced file, an
    /// `eval` or a function runs in its shell): relative paths it names are
    /// found from its folder.
    script: Arc<Source>,
    /// Where `bash other.sh` delegations are read from (disk, or a remote root).
    files: &'a dyn Files,
    char_to_byte: Arc<Vec<usize>>,
    st: State,
    out: Evaluation,
    /// Reasons of the unknown conditions the current code runs under.
    conditions: Vec<String>,
    /// `break` / `continue` / `return` that may or may not have run, with what
    /// a launch after it says and the reason: what follows them runs under that condition, up to the end of
    /// the loop turn (`break`, `continue`) or the function (`return`).
    flow: Vec<(Flow, String, String)>,
    /// The last loop turn may have ended at a `break`, for the reason given.
    maybe_broke: Option<String>,
    stopped: bool,
    returning: bool,
    /// `break` / `continue` seen inside a loop body.
    breaking: bool,
    continuing: bool,
    /// Function calls active in this interpreter (`exit` inside one).
    depth: usize,
    /// The status of the last `&&`/`||` list (what a bare `return` returns).
    last_status: Status,
    /// Inside a condition or a non-final `&&`/`||` operand: `set -e` is ignored.
    errexit_ignored: usize,
    /// `stopped` ends only the current top-level command (an assignment to a
    /// readonly variable), not the script.
    abort_only: bool,
    /// One frame per function call: the variables its `local`s shadow, restored
    /// when it returns.
    frames: Vec<Vec<(String, Shadowed)>>,
    /// One entry per function call: the `set` options as they were when
    /// its `local -` ran, restored when it returns.
    frame_options: Vec<Option<SetOptions>>,
    /// How many loops the current code is in (within the current function).
    loops: usize,
    /// `break N` / `continue N`: how many more enclosing loops the jump leaves.
    jump_levels: usize,
    /// How many `eval`s led here.
    evals: usize,
    /// The standard input of the command running now, when a pipeline gives
    /// it (`echo 8 | read TP`).
    stdin: Option<Val>,
    /// The file a pipeline's `cat FILE` stage gives the command running now
    /// as its standard input (`cat x.sh | bash`), with where it is named.
    stdin_file: Option<(brush_parser::ast::Word, usize)>,
    /// The last simple command's status was assumed, not known (a launch, a
    /// side effect such as `nvidia-smi`, which the evaluation takes to
    /// succeed): what `$?` says after it.
    assumed: Option<String>,
    /// How many `source`s are running (a `return` there ends the file).
    sourcing: usize,
    /// The aliases being expanded here (an alias is not expanded inside its
    /// own text, as in bash).
    aliasing: Vec<String>,
    /// Where the complete command being run in this text ends: bash reads
    /// a whole complete command (a line, a compound command) before it
    /// runs any of it, so an alias defined in it applies only after it.
    reading_end: usize,
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
        Vec::new(),
        env,
        unknown.unwrap_or(&none),
        0,
        unknown.is_some(),
        files,
        harness,
        &launch::Shell::default(),
        None,
    )
}

/// Like [`evaluate_with`], giving the variables as the script leaves them
/// in [`Evaluation::vars`] (what a script exports for the programs it starts
/// after it: a submission script's job environment).
pub fn evaluate_keeping_vars(
    source: &Arc<Source>,
    env: &BTreeMap<String, String>,
    unknown: &BTreeMap<String, String>,
    files: &dyn Files,
    harness: &'static dyn Harness,
) -> Result<Evaluation, Error> {
    let shell = launch::Shell {
        keep_vars: true,
        ..launch::Shell::default()
    };
    evaluate_at(
        source,
        Vec::new(),
        env,
        unknown,
        0,
        true,
        files,
        harness,
        &shell,
        None,
    )
}

/// Evaluates shell text that is not a script file: a page's code block, a
/// command file, a generator's printed command (see docs/architecture.md,
/// "One shell front end"). It is plain bash (no harness library is
/// modelled), it reads no file (give `source` a window whose origin is not a
/// file: what it names is code that is not read), the environment is not
/// complete (a variable neither the text nor `preset` sets is unknown, not
/// empty), and the shell starts with the variables of `preset`. Gives the
/// evaluation, with the variables as the text leaves them in
/// [`Evaluation::vars`].
pub fn evaluate_text(source: &Arc<Source>, preset: Vec<Preset>) -> Result<Evaluation, Error> {
    let none = BTreeMap::new();
    let shell = launch::Shell {
        preset,
        keep_vars: true,
        ..launch::Shell::default()
    };
    evaluate_at(
        source,
        Vec::new(),
        &none,
        &none,
        0,
        false,
        &LocalFiles,
        &NoHarness,
        &shell,
        None,
    )
}

/// Whether a text is bash at all: `Ok(false)` for a syntax error, an error
/// when a parse budget refuses it (whatever it is).
pub fn is_bash(source: &Arc<Source>) -> Result<bool, Error> {
    match parse::parse_guarded(source) {
        Ok(_) => Ok(true),
        Err(f) if f.kind == parse::FailureKind::Syntax => Ok(false),
        Err(f) => Err(f.into()),
    }
}

/// How the reason a variable is unknown after [`State::clobber`] starts; the
/// rest names the code that was not evaluated.
const CLOBBERED_PREFIX: &str = "may have been set by ";

/// Evaluates a script run as `bash SCRIPT ARGS...`: `positional` are its
/// arguments (none for a benchmark script, which InferenceX runs without any).
/// Variables set in the shell that runs a script, with values that depend on
/// the machine: (name, whether it comes from the environment rather than from
/// bash itself; those are not set when the environment is complete).
const SHELL_SET: &[(&str, bool)] = &[
    ("BASH", false),
    ("BASHPID", false),
    ("BASH_VERSINFO", false),
    ("BASH_VERSION", false),
    ("EPOCHREALTIME", false),
    ("EPOCHSECONDS", false),
    ("EUID", false),
    ("GROUPS", false),
    ("HOSTNAME", false),
    ("HOSTTYPE", false),
    ("MACHTYPE", false),
    ("OSTYPE", false),
    ("PPID", false),
    ("PWD", false),
    ("RANDOM", false),
    ("SECONDS", false),
    ("SHLVL", false),
    ("SRANDOM", false),
    ("UID", false),
    ("HOME", true),
    ("LANG", true),
    ("LOGNAME", true),
    ("PATH", true),
    ("SHELL", true),
    ("TERM", true),
    ("USER", true),
];

#[allow(clippy::too_many_arguments)]
fn evaluate_at(
    source: &Arc<Source>,
    positional: Vec<Val>,
    env: &BTreeMap<String, String>,
    unknown: &BTreeMap<String, String>,
    level: usize,
    complete_env: bool,
    files: &dyn Files,
    harness: &'static dyn Harness,
    shell: &launch::Shell,
    open: Option<String>,
) -> Result<Evaluation, Error> {
    // A delegated script (`bash other.sh`) shares its caller's budget.
    let _meter = budget::install();
    let out = evaluate_installed(
        source,
        positional,
        env,
        unknown,
        level,
        complete_env,
        files,
        harness,
        shell,
        open,
    );
    // The time budget cuts at whatever command the machine had reached: the
    // cut is reported at the script's start (the outermost script's, once
    // each caller has placed it), so every run prints the same bytes.
    match out {
        Err(_) if budget::out_of_time() => Err(Error::input(
            source.span(0, 0),
            budget::tripped().unwrap_or_default(),
        )),
        out => out,
    }
}

/// [`evaluate_at`] with the budget meter installed.
#[allow(clippy::too_many_arguments)]
fn evaluate_installed(
    source: &Arc<Source>,
    positional: Vec<Val>,
    env: &BTreeMap<String, String>,
    unknown: &BTreeMap<String, String>,
    level: usize,
    complete_env: bool,
    files: &dyn Files,
    harness: &'static dyn Harness,
    shell: &launch::Shell,
    open: Option<String>,
) -> Result<Evaluation, Error> {
    let program = parse_guarded(source)?;
    let mut st = State {
        script: source.origin.label(),
        file: Some(source.origin.label()),
        positional,
        complete_env,
        harness: Some(harness),
        sh: shell.sh.clone(),
        ..State::default()
    };
    // Variables the shell that runs the script has set, whose values depend
    // on that machine: set (`${HOME:-d}` is not `d`) but not knowable.
    for &(k, from_env) in SHELL_SET {
        if (!from_env || !complete_env) && !env.contains_key(k) && !unknown.contains_key(k) {
            st.set_scalar(
                k,
                Val::Unknown(format!(
                    "${k} is set by the shell that runs the script (its value depends on that machine; give it with --env {k}=...)"
                )),
            );
        }
    }
    for (k, v) in env {
        st.set_scalar(k, Val::Known(v.clone()));
        st.exported.insert(k.clone());
    }
    for (k, reason) in unknown {
        st.set_scalar(k, Val::Unknown(reason.clone()));
        st.exported.insert(k.clone());
    }
    for (k, v, exported, carried) in &shell.preset {
        let v = Arc::new(v.clone());
        st.vars.insert(k.clone(), v.clone());
        if *carried != Carried::default() {
            st.carried.insert(k.clone(), (v, carried.clone()));
        }
        if *exported {
            st.exported.insert(k.clone());
        }
    }
    // The caller ran code that was not evaluated and may have exported any
    // variable: one this shell does not set is unknown, not unset.
    st.clobbered = open;
    // `FUNCNAME` ends with `main` in a script file, not in `bash -c` text or
    // a script on standard input; a page's text may be run either way.
    st.main_frame = match (shell.keep_vars, &shell.script) {
        (true, _) => None,
        (false, Some(_)) => Some(false),
        (false, None) => Some(true),
    };
    // The files the caller changed before it ran this shell.
    st.touched = shell.written.clone();
    let reads = st.reads.clone();
    if let Some(Val::Known(zero)) = &shell.zero {
        st.script = zero.clone();
    }
    let mut it = Interp::new(source, st, level, None, files);
    if let Some(script) = &shell.script {
        it.script = script.clone();
    }
    for (name, on) in &shell.options {
        it.set_option(name, *on);
    }
    // A non-interactive bash sources its `BASH_ENV` file first.
    if let Some(path) = &shell.startup {
        it.source_startup(path)?;
    }
    for cc in &program.complete_commands {
        if it.stopped {
            break;
        }
        it.reading_end = {
            use brush_parser::ast::SourceLocation;
            cc.location().map(|l| it.byte(&l.end)).unwrap_or(0)
        };
        it.list(cc)?;
        if it.stopped && it.abort_only {
            it.stopped = false;
            it.abort_only = false;
        }
        if it.stopped {
            break;
        }
    }
    it.run_exit_trap()?;
    // A budget exceeded where the error could not be returned (a pattern
    // match, a copy of the state) still ends the evaluation.
    if let Some(message) = budget::tripped() {
        return Err(Error::input(
            source.span(source.text.len(), source.text.len()),
            message,
        ));
    }
    if let Ok(r) = reads.lock() {
        it.out.read.extend(r.iter().cloned());
    }
    it.out.written = std::mem::take(&mut it.st.touched);
    it.out.settle_unread();
    if shell.keep_vars {
        it.out.vars = it
            .st
            .vars
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    (**v).clone(),
                    it.st.exported.contains(k),
                    it.st.carried_or_written(k),
                )
            })
            .collect();
    }
    Ok(it.out)
}

/// Records the known values assigned to a secret-named variable
/// (`HF_TOKEN`, `API_KEY`), however the shell assigned them (`NAME=...`,
/// `read`, `mapfile`, `printf -v`, a here-document): every output masks them,
/// exported or not.
pub(super) fn note_secret(name: &str, vals: &[Val]) {
    if crate::secret::is_secret_env(name) {
        for v in vals {
            if let Val::Known(t) = v {
                crate::secret::note(t);
            }
        }
    }
}

#[cfg(test)]
mod tests;

//! The budgets of static bash evaluation, in one place.
//!
//! A script is attacker-controlled input: every resource its evaluation can
//! spend is bounded here, by construction, and exceeding a bound is an input
//! error naming the budget (never a crash, a hang or a confident wrong value).
//!
//! Syntactic limits (nesting, parser time) are checked before or around
//! parsing; dynamic limits (steps, call depth, bytes built, matching work,
//! time) are counted by one [`Meter`] per top-level evaluation, shared by the
//! command substitutions and the delegated scripts it runs. The meter is
//! thread-local: an evaluation runs on one thread, and the expansion helpers
//! reach it without threading it through every signature.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The limits of one evaluation (see [`Budget::DEFAULT`] for the values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Bytes of one script text given to the parser (a file, or a `$(...)`):
    /// brush-parser's tokens and tree take about 800 bytes of memory per byte
    /// of a dense script.
    pub max_script_bytes: usize,
    /// Nesting of compound commands (`if`, `for`, `while`, `case`, `{ }`,
    /// `( )`, `[[ ]]` and the `&&`/`||`/`!` inside it) in one script text,
    /// checked before parsing.
    pub max_nesting: usize,
    /// Function calls and command substitutions (`$(...)`) active at once.
    pub max_call_depth: usize,
    /// Steps over the whole evaluation: commands, plus the operators of each
    /// variable whose text arithmetic reads as an expression.
    pub max_steps: usize,
    /// Turns of one `for` loop.
    pub max_loop_turns: usize,
    /// Bytes of one value (an expanded word, a variable, a `$(...)` output).
    pub max_value_bytes: usize,
    /// Bytes built over the whole evaluation (expansions and state copies):
    /// bounds peak memory and the time spent copying.
    pub max_built_bytes: usize,
    /// Pattern-matching work (text length times pattern length, summed).
    pub max_match_work: usize,
    /// Operators in one arithmetic expression.
    pub max_arith_operators: usize,
    /// Wall-clock time of one evaluation (a script with the scripts it
    /// delegates to and its command substitutions): a backstop behind the
    /// counted budgets, which end a real script's work at the same place on
    /// every machine. Per evaluation, not per run: a run-wide clock would cut
    /// a corpus' later scripts by the machine's load.
    pub max_time: Duration,
}

impl Budget {
    /// The budgets every evaluation runs with. Real recipes stay far below
    /// each (they nest under 10, run under 10,000 commands and build
    /// kilobytes); the values keep a hostile script within 30 s and 1 GiB.
    pub const DEFAULT: Budget = Budget {
        max_script_bytes: 256 << 10,
        max_nesting: 100,
        max_call_depth: 32,
        max_steps: 200_000,
        max_loop_turns: 10_000,
        max_value_bytes: 1 << 20,
        max_built_bytes: 256 << 20,
        max_match_work: 50_000_000,
        max_arith_operators: 256,
        max_time: Duration::from_secs(10),
    };
}

impl Default for Budget {
    fn default() -> Self {
        Budget::DEFAULT
    }
}

/// Fixed guards of the parsers and of a few evaluator constructs. They are
/// not knobs: past the parser guards brush-parser takes exponential time, and
/// the others bound constructs real scripts use shallowly.
pub(crate) mod fixed {
    use std::time::Duration;

    /// Runs of `(` longer than this are refused before parsing: the parser's
    /// backtracking over `((` (arithmetic or nested subshells) is exponential
    /// in it.
    pub(crate) const MAX_PAREN_RUN: usize = 12;
    /// Unclosed `(` deeper than this are refused too (real scripts stay
    /// below 8).
    pub(crate) const MAX_PAREN_DEPTH: usize = 16;
    /// `${...}` nested deeper than this are refused: the word parser's
    /// backtracking is exponential in it (found by fuzzing). Real scripts nest
    /// at most two.
    pub(crate) const MAX_EXPANSION_DEPTH: usize = 3;
    /// How long the parser may take on one script (or one `$(...)`).
    pub(crate) const PARSE_TIME: Duration = Duration::from_secs(5);
    /// How long the word parser may take on one word (real words take
    /// microseconds).
    pub(crate) const WORD_PARSE_TIME: Duration = Duration::from_secs(1);
    /// `bash other.sh` delegations that may lead to a script.
    pub(crate) const MAX_DELEGATION_DEPTH: usize = 8;
    /// How deeply variables whose text is an expression may refer to each
    /// other in arithmetic (`A=B+1`, `B=C+1`); deeper is unknown.
    pub(crate) const MAX_VAR_EXPR_DEPTH: u32 = 8;
    /// Numbers `seq` writes in `$(...)`; more is an unknown output.
    pub(crate) const MAX_SEQ: i128 = 100_000;
}

/// The budgets a user can raise or lower (`--bash-budget NAME=N`): name,
/// what it counts, and how to read and set it. The parser's own guards
/// (`(` runs, `${` depth, parser time) are not here: past them brush-parser
/// takes exponential time.
const KNOBS: &[(&str, &str)] = &[
    ("script-kib", "KiB of one script text to parse"),
    (
        "nesting",
        "levels of nesting of compound commands (at most 1,000)",
    ),
    ("call-depth", "functions and `$(...)` active at once"),
    ("steps", "commands and arithmetic operators evaluated"),
    ("loop-turns", "turns of one loop"),
    ("value-kib", "KiB of one value"),
    ("built-mib", "MiB of text built in all"),
    ("match-work", "character comparisons of pattern matching"),
    ("arith-operators", "operators of one arithmetic expression"),
    ("seconds", "seconds of one script's evaluation"),
];

/// The largest nesting budget the parser's stack holds with a wide margin.
const MAX_NESTING_KNOB: usize = 1_000;

/// The largest call-depth budget: each active call holds a copy of the
/// interpreter's frame (about 10 KiB), so this many stay well under the 1 GiB
/// memory target.
const MAX_CALL_DEPTH_KNOB: usize = 10_000;

impl Budget {
    /// The budget with `NAME=N` applied (the names of `--bash-budget`).
    pub fn with(mut self, setting: &str) -> Result<Budget, String> {
        let names = || {
            KNOBS
                .iter()
                .map(|(n, what)| format!("{n} ({what})"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let Some((name, value)) = setting.split_once('=') else {
            return Err(format!(
                "--bash-budget {setting:?}: expected NAME=N, with NAME one of {}",
                names()
            ));
        };
        let n: usize =
            value.trim().replace('_', "").parse().map_err(|_| {
                format!("--bash-budget {setting:?}: {value:?} is not a whole number")
            })?;
        if n == 0 {
            return Err(format!(
                "--bash-budget {setting:?}: a budget must be at least 1"
            ));
        }
        match name.trim() {
            "nesting" if n > MAX_NESTING_KNOB => {
                return Err(format!(
                    "--bash-budget {setting:?}: the nesting budget is at most {} (the parser's stack)",
                    grouped(MAX_NESTING_KNOB)
                ));
            }
            "call-depth" if n > MAX_CALL_DEPTH_KNOB => {
                return Err(format!(
                    "--bash-budget {setting:?}: the call-depth budget is at most {} (each active call holds memory)",
                    grouped(MAX_CALL_DEPTH_KNOB)
                ));
            }
            "nesting" => self.max_nesting = n,
            "script-kib" => self.max_script_bytes = n.saturating_mul(1 << 10),
            "call-depth" => self.max_call_depth = n,
            "steps" => self.max_steps = n,
            "loop-turns" => self.max_loop_turns = n,
            "value-kib" => self.max_value_bytes = n.saturating_mul(1 << 10),
            "built-mib" => self.max_built_bytes = n.saturating_mul(1 << 20),
            "match-work" => self.max_match_work = n,
            "arith-operators" => self.max_arith_operators = n,
            "seconds" => self.max_time = Duration::from_secs(n as u64),
            other => {
                return Err(format!(
                    "--bash-budget: unknown budget {other:?}; the budgets are {}",
                    names()
                ));
            }
        }
        Ok(self)
    }
}

static CONFIGURED: std::sync::RwLock<Budget> = std::sync::RwLock::new(Budget::DEFAULT);

/// Sets the budgets of every later evaluation in this process (the
/// `--bash-budget` flags).
pub fn configure(budget: Budget) {
    *CONFIGURED.write().unwrap_or_else(|e| e.into_inner()) = budget;
}

/// The budgets evaluations start with.
pub fn configured() -> Budget {
    *CONFIGURED.read().unwrap_or_else(|e| e.into_inner())
}

/// The message of an exceeded budget: what happened, and how to raise it.
/// How every error of a parse budget starts (the parser's guards write it).
pub(crate) const PARSE_BUDGET_EXCEEDED: &str = "bash parse budget exceeded";

fn exceeded(what: String, knob: &str) -> String {
    format!(
        "bash evaluation budget exceeded: {what} ({knob} budget; raise with --bash-budget {knob}=N)"
    )
}

/// What one evaluation has spent so far.
#[derive(Debug)]
pub(crate) struct Meter {
    /// Which evaluation of the process this is (caches charge once per
    /// evaluation, so that what one evaluation may do does not depend on the
    /// ones before it).
    id: u64,
    budget: Budget,
    start: Instant,
    steps: usize,
    built: usize,
    work: usize,
    calls: usize,
    /// The first budget exceeded: every later check fails with it too, so a
    /// budget exceeded inside `$(...)` cannot be mistaken for an unknown output.
    tripped: Option<String>,
    /// Whether the first budget exceeded was the time budget, whose cut falls
    /// at a different command on every run (see [`out_of_time`]).
    out_of_time: bool,
}

thread_local! {
    static METER: RefCell<Option<Rc<RefCell<Meter>>>> = const { RefCell::new(None) };
}

/// Keeps the meter of an evaluation installed; the outermost guard removes it.
pub(crate) struct Installed {
    owner: bool,
}

impl Drop for Installed {
    fn drop(&mut self) {
        if self.owner {
            METER.with(|m| m.borrow_mut().take());
        }
    }
}

/// Installs a fresh meter for a top-level evaluation, or keeps the one
/// already installed (a delegated script shares its caller's budget).
pub(crate) fn install() -> Installed {
    let budget = configured();
    METER.with(|m| {
        let mut m = m.borrow_mut();
        if m.is_some() {
            return Installed { owner: false };
        }
        *m = Some(Rc::new(RefCell::new(Meter {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            budget,
            start: Instant::now(),
            steps: 0,
            built: 0,
            work: 0,
            calls: 0,
            tripped: None,
            out_of_time: false,
        })));
        Installed { owner: true }
    })
}

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// Which evaluation is running on this thread (see [`Meter`]'s `id`).
pub(crate) fn evaluation() -> u64 {
    with(|m| m.id)
}

/// Runs `f` on the installed meter; outside an evaluation (unit tests of the
/// helpers) a fresh meter is installed for the call.
fn with<R>(f: impl FnOnce(&mut Meter) -> R) -> R {
    let meter = METER.with(|m| m.borrow().clone());
    match meter {
        Some(m) => f(&mut m.borrow_mut()),
        None => {
            let _guard = install();
            let m = METER.with(|m| m.borrow().clone()).expect("just installed");
            f(&mut m.borrow_mut())
        }
    }
}

impl Meter {
    fn trip(&mut self, message: String) -> String {
        self.tripped.get_or_insert(message).clone()
    }

    fn check_time(&mut self) -> Result<(), String> {
        if let Some(t) = &self.tripped {
            return Err(t.clone());
        }
        if self.start.elapsed() > self.budget.max_time {
            let s = self.budget.max_time.as_secs();
            self.out_of_time = true;
            return Err(self.trip(exceeded(
                format!("evaluating this script takes more than {s} s"),
                "seconds",
            )));
        }
        Ok(())
    }
}

/// `n` with thousands separators (`200,000`), for messages.
pub(crate) fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The budgets of the evaluation running on this thread.
pub(crate) fn budget() -> Budget {
    with(|m| m.budget)
}

/// Whether the evaluation was ended by the time budget: which command it
/// was evaluating then depends on the machine, so the error is placed at the
/// script's start, never at that command (`evaluate_at`).
pub(crate) fn out_of_time() -> bool {
    with(|m| m.out_of_time)
}

/// The budget exceeded so far in this evaluation, if any.
pub(crate) fn tripped() -> Option<String> {
    with(|m| m.tripped.clone())
}

/// The steps counted so far in this evaluation (a loop compares it with its
/// share of the `steps` budget).
pub(crate) fn steps_taken() -> usize {
    with(|m| m.steps)
}

/// Counts one evaluation step (a command).
pub(crate) fn step() -> Result<(), String> {
    steps(1)
}

/// Counts `n` evaluation steps (work worth `n` commands).
pub(crate) fn steps(n: usize) -> Result<(), String> {
    with(|m| {
        m.check_time()?;
        m.steps = m.steps.saturating_add(n);
        if m.steps > m.budget.max_steps {
            let n = grouped(m.budget.max_steps);
            return Err(m.trip(exceeded(
                format!("evaluating the script takes more than {n} steps (commands, and operators of variables read as arithmetic)"),
                "steps",
            )));
        }
        Ok(())
    })
}

/// Counts `bytes` built (an expansion, a copy of the state).
pub(crate) fn built(bytes: usize) -> Result<(), String> {
    with(|m| {
        m.check_time()?;
        m.built = m.built.saturating_add(bytes);
        if m.built > m.budget.max_built_bytes {
            let n = grouped(m.budget.max_built_bytes >> 20);
            return Err(m.trip(exceeded(
                format!("the script builds more than {n} MiB of text"),
                "built-mib",
            )));
        }
        Ok(())
    })
}

/// What one word of a launch (launcher, argument or environment variable)
/// counts against the built-bytes budget: it is kept with its provenance and
/// rendered in every report, at about that cost.
pub(crate) const LAUNCH_WORD_BYTES: usize = 4 << 10;

/// Counts new launches against the built-bytes budget, by their words (a
/// loop that launches, or a launch with a huge word list, is bounded).
pub(crate) fn launched(launches: &[crate::launch::Launch]) -> Result<(), String> {
    let words: usize = launches
        .iter()
        .map(|l| l.launcher.len() + l.argv.len() + l.env.len())
        .sum();
    built(words.saturating_mul(LAUNCH_WORD_BYTES))
}

/// Checks that one value of `bytes` fits the value budget.
pub(crate) fn value(bytes: usize) -> Result<(), String> {
    with(|m| {
        if bytes > m.budget.max_value_bytes {
            let n = grouped(m.budget.max_value_bytes >> 10);
            return Err(m.trip(exceeded(
                format!("a value would be longer than {n} KiB"),
                "value-kib",
            )));
        }
        Ok(())
    })
}

/// Counts `units` of pattern-matching work.
pub(crate) fn work(units: usize) -> Result<(), String> {
    with(|m| {
        m.check_time()?;
        m.work = m.work.saturating_add(units);
        if m.work > m.budget.max_match_work {
            let n = grouped(m.budget.max_match_work);
            return Err(m.trip(exceeded(
                format!("pattern matching needs more than {n} character comparisons"),
                "match-work",
            )));
        }
        Ok(())
    })
}

/// The operators of an arithmetic expression (each a level of the parser's
/// recursion and a node to evaluate; an array subscript `[` is one too).
pub(crate) fn operators(text: &str) -> usize {
    text.bytes()
        .filter(|b| b"+-*/%<>=!&|^~?:,([".contains(b))
        .count()
}

/// How deep array subscripts may nest in one arithmetic expression: brush's
/// arithmetic parser backtracks on each level (`x[x[x[x[x[x[x[0]]]]]]]`, seven
/// levels, took 31 s; real scripts nest one or two).
const MAX_SUBSCRIPT_DEPTH: usize = 4;

/// Checks the operator count (and subscript nesting) of one arithmetic
/// expression.
pub(crate) fn arith_operators(text: &str) -> Result<(), String> {
    let ops = operators(text);
    let mut depth = 0usize;
    let mut deepest = 0usize;
    for b in text.bytes() {
        match b {
            b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if deepest > MAX_SUBSCRIPT_DEPTH {
        return Err(with(|m| {
            m.trip(format!(
                "{PARSE_BUDGET_EXCEEDED}: array subscripts nested more than {MAX_SUBSCRIPT_DEPTH} deep in an arithmetic expression (nesting budget)"
            ))
        }));
    }
    with(|m| {
        if ops > m.budget.max_arith_operators {
            let n = m.budget.max_arith_operators;
            return Err(m.trip(exceeded(
                format!("an arithmetic expression has more than {n} operators"),
                "arith-operators",
            )));
        }
        Ok(())
    })
}

/// One active function call or command substitution; dropping it ends it.
#[derive(Debug)]
pub(crate) struct Call(());

impl Drop for Call {
    fn drop(&mut self) {
        with(|m| m.calls = m.calls.saturating_sub(1));
    }
}

/// Enters a function call or command substitution.
pub(crate) fn enter_call() -> Result<Call, String> {
    with(|m| {
        m.check_time()?;
        if m.calls >= m.budget.max_call_depth {
            let n = m.budget.max_call_depth;
            return Err(m.trip(exceeded(
                format!("functions and `$(...)` nest more than {n} deep"),
                "call-depth",
            )));
        }
        m.calls += 1;
        Ok(Call(()))
    })
}

/// Runs `f` with enough stack for the bounded recursion of the evaluator:
/// the stack grows on the heap when less than 256 KiB is left.
pub(crate) fn stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(256 << 10, 4 << 20, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tripped_budget_stays_tripped_until_the_evaluation_ends() {
        let _g = install_with(Budget {
            max_steps: 2,
            ..Budget::DEFAULT
        });
        assert!(step().is_ok());
        assert!(step().is_ok());
        let e = step().unwrap_err();
        assert!(e.contains("steps budget"), "{e}");
        assert_eq!(built(1).unwrap_err(), e);
        assert_eq!(tripped(), Some(e));
    }

    fn install_with(budget: Budget) -> Installed {
        let g = install();
        METER.with(|m| m.borrow().as_ref().unwrap().borrow_mut().budget = budget);
        g
    }

    #[test]
    fn settings_name_the_budgets() {
        let b = Budget::DEFAULT.with("steps=1_000_000").unwrap();
        assert_eq!(b.max_steps, 1_000_000);
        assert_eq!(
            Budget::DEFAULT.with("value-kib=2").unwrap().max_value_bytes,
            2048
        );
        assert!(
            Budget::DEFAULT
                .with("nesting=5000")
                .unwrap_err()
                .contains("at most 1,000")
        );
        // Each active call holds memory: the call depth has a hard cap.
        assert!(
            Budget::DEFAULT
                .with("call-depth=200000")
                .unwrap_err()
                .contains("at most 10,000")
        );
        assert_eq!(
            Budget::DEFAULT
                .with("call-depth=10000")
                .unwrap()
                .max_call_depth,
            10_000
        );
        assert!(
            Budget::DEFAULT
                .with("bogus=1")
                .unwrap_err()
                .contains("call-depth")
        );
        assert!(
            Budget::DEFAULT
                .with("steps")
                .unwrap_err()
                .contains("NAME=N")
        );
        assert!(
            Budget::DEFAULT
                .with("steps=0")
                .unwrap_err()
                .contains("at least 1")
        );
    }

    #[test]
    fn numbers_are_grouped() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(10_000), "10,000");
        assert_eq!(grouped(50_000_000), "50,000,000");
    }

    #[test]
    fn call_depth_is_released_on_drop() {
        let _g = install_with(Budget {
            max_call_depth: 1,
            ..Budget::DEFAULT
        });
        {
            let _c = enter_call().unwrap();
        }
        let _c = enter_call().unwrap();
        assert!(enter_call().unwrap_err().contains("call-depth budget"));
    }
}

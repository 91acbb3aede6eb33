//! The hook through which a harness library (shell functions that recipe
//! scripts source, such as InferenceX's `benchmark_lib.sh`) tells the
//! evaluator what its functions do. The evaluator knows no harness itself: the
//! caller passes one.

use super::Status;
use super::expand::Val;

/// What a call of a harness function did, as the evaluator applies it.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The call's exit status.
    pub status: Status,
    /// Whether the call ends the script (a gate that exits).
    pub exits: bool,
    /// Variables the call sets and exports, in order.
    pub exports: Vec<(String, Val)>,
}

/// A harness library as the static evaluator sees it. Every method has a
/// plain-bash default (the harness models nothing).
pub trait Harness: Sync + std::fmt::Debug {
    /// Whether `command` only has side effects (waits, monitors, result
    /// writers): it is skipped and assumed to succeed.
    fn side_effect(&self, command: &str) -> bool {
        let _ = command;
        false
    }

    /// A call of a function the harness models, with the expanded words after
    /// its name; `var` reads the first value of a variable (`None` when unset).
    /// `None` when the harness does not model `function`. A modeled function
    /// is applied even when the script defines a function of that name.
    fn call(
        &self,
        function: &str,
        args: &[String],
        var: &dyn Fn(&str) -> Option<Val>,
    ) -> Option<Call> {
        let _ = (function, args, var);
        None
    }

    /// `source FILE` (the path as written): `None` when FILE is not a library
    /// the harness models (it is read and run), else the variables the
    /// library exports when sourced, each with the value it takes when it is
    /// not set already.
    fn sourced(&self, file: &str) -> Option<Vec<(String, String)>> {
        let _ = file;
        None
    }

    /// The standard output of a command run inside `$(...)` (its expanded
    /// words, the command's name first) that the harness models: `Ok` with
    /// the text, `Err` with why it is not knowable; `None` when the harness
    /// does not model it. `var` reads the first value of a variable.
    fn output(
        &self,
        words: &[String],
        var: &dyn Fn(&str) -> Option<Val>,
    ) -> Option<Result<String, String>> {
        let _ = (words, var);
        None
    }
}

/// No harness: every command is plain bash.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHarness;

impl Harness for NoHarness {}

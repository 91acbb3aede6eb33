//! The error type: every failure is either a usage/input error (exit 2) with a
//! location, never a panic.

use crate::source::Span;

/// Errors that stop a command. All map to exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input: malformed text, unknown option, missing file. `at` is `file:line:col`.
    #[error("{at}: {message}")]
    Input {
        /// `file:line:col` of the offending text.
        at: String,
        /// What is wrong.
        message: String,
    },
    /// Bad usage of recipe-drift itself (flags, selections).
    #[error("{0}")]
    Usage(String),
}

impl Error {
    /// An input error at a span.
    pub fn input(span: Span, message: impl Into<String>) -> Self {
        Error::Input {
            at: span.to_string(),
            message: message.into(),
        }
    }

    /// A usage error.
    pub fn usage(message: impl Into<String>) -> Self {
        Error::Usage(message.into())
    }
}

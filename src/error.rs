//! The error type: every failure is either a usage error or an input error at a
//! typed position (exit 2), never a panic. Errors are values: reports read the
//! span, never a formatted string.

use crate::span::{Source, Span};

/// Errors that stop a command. All map to exit code 2.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// Bad input: malformed text, unknown option, missing file, at a position.
    #[error("{span}: {message}")]
    Input {
        /// Where the offending text is.
        span: Span,
        /// What is wrong.
        message: String,
    },
    /// A remote file that cannot be had (refused host, network failure, HTTP
    /// error, size cap), named as the user wrote it (and its URL).
    #[error("{location}: {message}")]
    Remote {
        /// The remote file as named (`github:...` or the URL, with the URL).
        location: String,
        /// What went wrong.
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
            span,
            message: message.into(),
        }
    }

    /// A usage error.
    pub fn usage(message: impl Into<String>) -> Self {
        Error::Usage(message.into())
    }

    /// The position of an input error.
    pub fn span(&self) -> Option<&Span> {
        match self {
            Error::Input { span, .. } => Some(span),
            Error::Remote { .. } | Error::Usage(_) => None,
        }
    }

    /// The message without its position.
    pub fn message(&self) -> &str {
        match self {
            Error::Input { message, .. } | Error::Remote { message, .. } => message,
            Error::Usage(m) => m,
        }
    }

    /// The same error with `more` appended to its message.
    pub fn with_suffix(self, more: &str) -> Self {
        match self {
            Error::Input { span, message } => Error::Input {
                span,
                message: message + more,
            },
            Error::Remote { location, message } => Error::Remote {
                location,
                message: message + more,
            },
            Error::Usage(m) => Error::Usage(m + more),
        }
    }

    /// A YAML error of serde-saphyr in a source, at the position serde-saphyr
    /// reports (its start when it reports none), with its first line as message.
    pub fn yaml(source: &Source, e: &serde_saphyr::Error) -> Self {
        let span = match e.location() {
            Some(loc) if loc.line() > 0 => source.yaml_span(&loc),
            _ => Span::start_of(&source.origin),
        };
        let message = e.to_string();
        let mut first = message.lines().next().unwrap_or(&message).trim();
        first = first.strip_prefix("error:").unwrap_or(first).trim();
        // Drop a leading "line N column M:" (the position is already in front).
        if first.starts_with("line ")
            && let Some(at) = first.find(": ")
        {
            first = &first[at + 2..];
        }
        Error::Input {
            span,
            message: format!("invalid YAML: {first}"),
        }
    }
}

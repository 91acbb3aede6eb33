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
    /// Several independent errors found together (every error of a config
    /// file, reported at once), in the order they are written. Never empty,
    /// never a single error, never nested (see [`Error::all`]).
    #[error("{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"))]
    Several(Vec<Error>),
}

/// An entry of the book's troubleshooting page (`docs/src/troubleshooting.md`)
/// that error messages point to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trouble {
    /// A run that cannot reach the Hugging Face Hub.
    NoNetwork,
    /// `check` with no config file found and no pairing roots.
    NoConfig,
    /// A local read refused because it leads outside the repository.
    OutsideRoot,
}

impl Trouble {
    /// Every entry, for the test that each has its heading.
    pub const ALL: [Trouble; 3] = [Trouble::NoNetwork, Trouble::NoConfig, Trouble::OutsideRoot];

    /// The heading's anchor on the page.
    pub fn anchor(self) -> &'static str {
        match self {
            Trouble::NoNetwork => "no-network",
            Trouble::NoConfig => "no-config-file",
            Trouble::OutsideRoot => "a-file-outside-the-repository",
        }
    }

    /// `see URL`, appended to the messages this entry explains: the page in
    /// the repository `Cargo.toml` names.
    pub fn see(self) -> String {
        format!(
            "see {}/blob/main/docs/src/troubleshooting.md#{}",
            env!("CARGO_PKG_REPOSITORY"),
            self.anchor()
        )
    }
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

    /// `Ok` when `errors` is empty, else every error of it (one error as
    /// itself, several as [`Error::Several`], flattened), sorted by position
    /// where they have one and deduplicated.
    pub fn all(errors: impl IntoIterator<Item = Error>) -> Result<(), Error> {
        let mut flat: Vec<Error> = Vec::new();
        for e in errors {
            match e {
                Error::Several(inner) => flat.extend(inner),
                e => flat.push(e),
            }
        }
        // Positioned errors in file order; the others after them, as found.
        flat.sort_by(|a, b| match (a.span(), b.span()) {
            (Some(x), Some(y)) => (&x.file, x.start).cmp(&(&y.file, y.start)),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
        let mut seen = std::collections::BTreeSet::new();
        flat.retain(|e| seen.insert(e.to_string()));
        match flat.len() {
            0 => Ok(()),
            1 => Err(flat.pop().expect("one")),
            _ => Err(Error::Several(flat)),
        }
    }

    /// The errors this one stands for: itself, or each of [`Error::Several`].
    pub fn each(&self) -> &[Error] {
        match self {
            Error::Several(all) => all,
            one => std::slice::from_ref(one),
        }
    }

    /// The position of an input error (the first one's, for several).
    pub fn span(&self) -> Option<&Span> {
        match self {
            Error::Input { span, .. } => Some(span),
            Error::Remote { .. } | Error::Usage(_) => None,
            Error::Several(all) => all.first().and_then(Error::span),
        }
    }

    /// The message without its position (the first one's, for several).
    pub fn message(&self) -> &str {
        match self {
            Error::Input { message, .. } | Error::Remote { message, .. } => message,
            Error::Usage(m) => m,
            Error::Several(all) => all.first().map(Error::message).unwrap_or(""),
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
            Error::Several(all) => {
                Error::Several(all.into_iter().map(|e| e.with_suffix(more)).collect())
            }
        }
    }

    /// A YAML error of serde-saphyr in a source, at the position serde-saphyr
    /// reports (its start when it reports none), with its first line as message.
    pub fn yaml(source: &Source, e: &serde_saphyr::Error) -> Self {
        let span = match e.location() {
            Some(loc) if loc.line() > 0 => source.yaml_span(&loc),
            _ => Span::start_of(&source.origin),
        };
        if let Some(what) = budget_breach(e) {
            return Error::Input {
                span,
                message: format!(
                    "invalid YAML: over a YAML budget: {what} (a fixed budget of every YAML read)"
                ),
            };
        }
        if is_multiple_documents(e) {
            return Error::Input {
                span,
                message: "invalid YAML: a second document (after `---`); this file holds one, and its reader (PyYAML's `safe_load`, js-yaml's `load`) fails on more".into(),
            };
        }
        let message = e.to_string();
        let mut first = message.lines().next().unwrap_or(&message).trim();
        first = first.strip_prefix("error:").unwrap_or(first).trim();
        // Drop a leading "line N column M:" (the position is already in front).
        if first.starts_with("line ")
            && let Some(at) = first.find(": ")
        {
            first = &first[at + 2..];
        }
        // serde-saphyr's advice to its programmer is not the user's.
        let first = first
            .strip_suffix(", set DuplicateKeyPolicy in Options if acceptable")
            .unwrap_or(first);
        Error::Input {
            span,
            message: format!("invalid YAML: {first}"),
        }
    }
}

/// The error serde-saphyr (one document read) gives for a second document.
fn is_multiple_documents(e: &serde_saphyr::Error) -> bool {
    let mut e = e;
    #[allow(deprecated)]
    while let serde_saphyr::Error::AliasError { error, .. }
    | serde_saphyr::Error::WithSnippet { error, .. } = e
    {
        e = error;
    }
    matches!(e, serde_saphyr::Error::MultipleDocuments { .. })
}

/// Our wording of a serde-saphyr budget breach (the budget and its limit),
/// or `None` for another error. The limits are serde-saphyr's defaults, which
/// every YAML read of recipe-drift uses.
fn budget_breach(e: &serde_saphyr::Error) -> Option<String> {
    use serde_saphyr::budget::BudgetBreach as B;
    let mut e = e;
    #[allow(deprecated)]
    while let serde_saphyr::Error::AliasError { error, .. }
    | serde_saphyr::Error::WithSnippet { error, .. } = e
    {
        e = error;
    }
    let serde_saphyr::Error::Budget { breach, .. } = e else {
        return None;
    };
    let b = serde_saphyr::Budget::default();
    let n = |v: usize| {
        let s = v.to_string();
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    };
    Some(match breach {
        B::Events { .. } => format!("more than {} parser events", n(b.max_events)),
        B::Aliases { .. } => format!("more than {} aliases (`*name`)", n(b.max_aliases)),
        B::Anchors { .. } => format!("more than {} anchors (`&name`)", n(b.max_anchors)),
        B::Depth { .. } => format!(
            "nested deeper than {} levels of lists and mappings",
            b.max_depth
        ),
        B::Documents { .. } => format!("more than {} documents", n(b.max_documents)),
        B::Nodes { .. } => format!(
            "more than {} nodes (values, lists and mappings, with aliases expanded)",
            n(b.max_nodes)
        ),
        B::ScalarBytes { .. } => format!(
            "more than {} bytes of values in all",
            n(b.max_total_scalar_bytes)
        ),
        B::MergeKeys { .. } => format!("more than {} merge keys (`<<`)", n(b.max_merge_keys)),
        B::AliasAnchorRatio { .. } => format!(
            "more than {} aliases per anchor",
            b.alias_anchor_ratio_multiplier
        ),
        B::RecordedAnchorEvents { .. } | B::RecordedAnchorBytes { .. } => format!(
            "anchors hold too much for their aliases (more than {} events or {} bytes kept)",
            n(b.max_recorded_anchor_events),
            n(b.max_recorded_anchor_bytes)
        ),
        other => format!("the YAML reader's limit {other:?}"),
    })
}

#[cfg(test)]
mod tests {
    /// Each troubleshooting entry an error message links to has its heading
    /// on the page (the anchor as GitHub and mdBook make it).
    #[test]
    fn every_troubleshooting_link_has_its_heading() {
        let page = include_str!("../docs/src/troubleshooting.md");
        let anchors: Vec<String> = page
            .lines()
            .filter_map(|l| l.strip_prefix("## "))
            .map(|h| h.trim().to_lowercase().replace(' ', "-"))
            .collect();
        for t in super::Trouble::ALL {
            assert!(
                anchors.iter().any(|a| a == t.anchor()),
                "{t:?}: {anchors:?}"
            );
        }
    }
}

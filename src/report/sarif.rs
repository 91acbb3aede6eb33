//! SARIF 2.1.0 output (`--format sarif`), for code-scanning tools.
//!
//! - One run; `tool.driver` is `recipe-drift` with the crate's version and one rule
//!   per row of the table of finding kinds ([`crate::finding::kinds`],
//!   `findings.yaml`) that `check` reports, with its stable id and help page: the
//!   compare kinds `RD001`..`RD005`, `RD006` startup-error (a command the engine
//!   would refuse to start), the coverage kinds and `RD015` broken-continuation;
//!   the rule's level is the row's MAJOR severity. [`Log`] builds every SARIF log
//!   recipe-drift writes (`lint-docs` too, with every row).
//! - Levels follow the severity: error -> `error`, warning -> `warning`, info ->
//!   `note`.
//! - Each result's message holds the finding (with its key) and the link's name.
//!   Its location is the docs side's first span, else the recipe side's, else the
//!   docs launch line (the same choice as `--format github`); the recipe side's
//!   span is a related location. A value in a rendered generator's text is located
//!   on the generator file without a region (its lines are lines of the rendered
//!   text), and the message names the rendered position.
//! - Columns count characters: `run.columnKind` is `unicodeCodePoints`.
//! - Links that could not be compared (input errors) are not results: no finding
//!   was made for them. Each is a `toolExecutionNotifications` entry of level
//!   `error` in the run's invocation (with the error's file position when it has
//!   one), and the invocation's `executionSuccessful` is then false (the exit code
//!   is 2).
//! - Deterministic: no timestamps, no absolute paths beyond those the inputs name,
//!   stable ordering (links in config order, findings as compared).

use serde_json::{Value, json};

use super::{LinkReport, Place, value_place};
use crate::finding::{About, Finding, KindInfo, Severity, kinds};
use crate::waiver;

/// The schema URI written in `$schema`.
pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The index of a kind's rule in the driver's rules (its row of the table).
/// The rows `check` reports: the compare kinds, the coverage kinds, the
/// budget kinds (a generator the state budget cut), the cross-role kind and the lint kinds `check`
/// reports too (defects of a command's text).
fn check_rows() -> impl Iterator<Item = &'static crate::finding::KindInfo> {
    kinds().iter().filter(|k| {
        k.example.is_some()
            || k.coverage.is_some()
            || k.budget.is_some()
            || k.roles.is_some()
            || k.lint.as_ref().is_some_and(|l| l.check)
    })
}

/// The SARIF level of a severity.
pub fn level(s: Severity) -> &'static str {
    super::severity_words(s).0
}

/// The page that documents a finding kind: its generated page
/// (`docs/src/findings/NAME.md`: what, why, an example, how to fix and
/// waive it), in the repository named by `Cargo.toml`.
pub fn help_uri(name: &str) -> String {
    format!(
        "{}/blob/main/docs/src/findings/{name}.md",
        env!("CARGO_PKG_REPOSITORY"),
    )
}

/// One SARIF 2.1.0 log under construction: the one place recipe-drift
/// builds SARIF (`check`/`compare` here, `lint-docs` in `super::lint`). Its
/// rules are the rows of the table a command reports, each with its help
/// page; a result names its rule by the row's name (its `ruleIndex` is the
/// row's place among the rules); columns count characters. Every string is
/// masked when the log is finished.
pub(super) struct Log {
    rows: Vec<&'static KindInfo>,
    results: Vec<Value>,
    notifications: Vec<Value>,
}

impl Log {
    /// A log whose driver lists `rows`, in that order.
    pub(super) fn new(rows: impl IntoIterator<Item = &'static KindInfo>) -> Log {
        Log {
            rows: rows.into_iter().collect(),
            results: Vec::new(),
            notifications: Vec::new(),
        }
    }

    /// Adds a result of the rule named `kind` at `level`, with its message,
    /// its `properties` (when it has some) and its primary location; returns
    /// it for the fields of its own (`relatedLocations`, `suppressions`).
    pub(super) fn result(
        &mut self,
        kind: &str,
        severity: Severity,
        text: String,
        properties: Option<Value>,
        at: Option<&Place>,
    ) -> &mut Value {
        let i = self
            .rows
            .iter()
            .position(|k| k.name == kind)
            .expect("a result's kind is among the log's rules");
        let mut r = json!({
            "ruleId": self.rows[i].id,
            "ruleIndex": i,
            "level": level(severity),
            "message": {"text": text},
        });
        if let Some(p) = properties {
            r["properties"] = p;
        }
        if let Some(p) = at {
            r["locations"] = json!([location(p, None)]);
        }
        self.results.push(r);
        self.results.last_mut().expect("just pushed")
    }

    /// Adds a finding as a result: its message with what it knows beside
    /// (where a rendered value is, the checkpoint facts, a startup error's
    /// rule, a generator's states) and its link, its properties, its
    /// primary location and related ones (numbered from 1), and the
    /// suppression of a waived one. Every command writes its findings
    /// through this.
    pub(super) fn finding(&mut self, f: &Finding) {
        let at = super::finding_at(f);
        let mut text = f.message.plain();
        let properties = match &f.about {
            About::Key(k) => {
                text.push_str(&format!(" ({})", super::class_name(k.class)));
                // A rendered position is not a line of the file: say where it is.
                if let Some(p) = value_place(&k.docs).filter(|p| p.line_col.is_none()) {
                    text.push_str(&format!("; docs at {}", p.shown));
                }
                let facts = super::facts_lines(k);
                if !facts.is_empty() {
                    text.push_str(&format!(
                        "; decided by checkpoint facts: {}",
                        facts.join("; ")
                    ));
                }
                Some(json!({
                    "link": f.link,
                    "key": k.key,
                    "kind": k.kind.name(),
                    "class": super::class_name(k.class),
                    "docs": k.docs.val.display(),
                    "recipe": k.recipe.val.display(),
                }))
            }
            About::Command {
                rule,
                deployments,
                side,
                ..
            } => {
                if let Some((rule, reference)) = rule {
                    text.push_str(&format!(" (rule {rule}, {reference})"));
                }
                super::deployments_text(deployments).map(|s| {
                    text.push_str(&format!(" ({s})"));
                    json!({"side": side, "deployments": deployments})
                })
            }
            About::Deployment(u) => {
                let mut p = json!({
                    "side": u.side.as_str(),
                    "identity": u.identity,
                    "shape": u.shape,
                });
                if let Some(n) = &u.nearest {
                    p["nearest"] = json!(n.deployment);
                    p["differs"] = json!(n.differs);
                }
                Some(p)
            }
            About::Generator {
                generator, states, ..
            } => {
                if let Some(s) = super::states_text(states) {
                    text.push_str(&format!(" ({s})"));
                }
                Some(json!({"kind": f.kind, "generator": generator, "states": states}))
            }
        };
        if let Some(link) = &f.link {
            text.push_str(&format!(" [link: {link}]"));
        }
        let r = self.result(f.kind, f.severity, text, properties, at.as_ref());
        let related: Vec<Value> = f
            .related
            .iter()
            .filter_map(|rel| Some((super::place(&rel.span)?, rel.label.as_deref())))
            .enumerate()
            .map(|(i, (p, label))| {
                let mut l = location(&p, label);
                l["id"] = json!(i + 1);
                l
            })
            .collect();
        if !related.is_empty() {
            r["relatedLocations"] = json!(related);
        }
        if let Some(fixes) = f.fix.as_ref().and_then(fix) {
            r["fixes"] = json!([fixes]);
        }
        // A divergence the config accepts: an external suppression with its reason.
        if let About::Key(k) = &f.about
            && let Some(w) = &k.waiver
        {
            r["suppressions"] = json!([{
                "kind": if w.at.is_some() { "inSource" } else { "external" },
                "justification": w.mark(),
            }]);
        }
    }

    /// Adds a tool execution notification (`input-error`, `waiver`, ...).
    pub(super) fn notification(&mut self, level: &str, id: &str, text: String, at: Option<&Place>) {
        let mut n = json!({
            "level": level,
            "message": {"text": text},
            "descriptor": {"id": id},
        });
        if let Some(p) = at {
            n["locations"] = json!([location(p, None)]);
        }
        self.notifications.push(n);
    }

    /// Its results, masked and printed, and its notifications, for a log of
    /// the same rules to print ([`Log::finish`]'s `before`) and take
    /// ([`Log::notifications`]).
    pub(super) fn take(self) -> (Vec<String>, Vec<Value>) {
        (
            self.results.into_iter().map(print).collect(),
            self.notifications,
        )
    }

    /// Adds notifications another log made.
    pub(super) fn notifications(&mut self, notifications: impl IntoIterator<Item = Value>) {
        self.notifications.extend(notifications);
    }

    /// Writes the log as pretty JSON with a final newline: `before` (results
    /// of logs of the same rules, printed), then its own results;
    /// `successful` is the invocation's `executionSuccessful`.
    pub(super) fn finish(
        self,
        successful: bool,
        before: impl Iterator<Item = String>,
        out: &mut super::sink::Sink,
    ) {
        let rules: Vec<Value> = self
            .rows
            .iter()
            .map(|k| {
                json!({
                    "id": k.id,
                    "name": k.name,
                    "shortDescription": {"text": k.help},
                    "helpUri": help_uri(&k.name),
                    "defaultConfiguration": {"level": level(k.severity)},
                })
            })
            .collect();
        let mut notifications = Value::Array(self.notifications);
        // Every string from the inputs is masked before serde escapes it.
        super::mask_json(&mut notifications);
        let mut invocation = json!({"executionSuccessful": successful});
        if notifications.as_array().is_some_and(|n| !n.is_empty()) {
            invocation["toolExecutionNotifications"] = notifications;
        }
        let doc = json!({
            "$schema": SCHEMA_URI,
            "version": "2.1.0",
            "runs": [{
                "tool": {"driver": {
                    "name": "recipe-drift",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }},
                "invocations": [invocation],
                "columnKind": "unicodeCodePoints",
                "results": [],
            }],
        });
        // The document as serde_json's pretty printer lays it out, with the
        // printed results put in its empty `results` as they come (a run's
        // results are the bulk of the log; they are never one tree, nor one
        // string).
        let skeleton = serde_json::to_string_pretty(&doc).expect("serializable");
        let (head, tail) = skeleton
            .rsplit_once(RESULTS_EMPTY)
            .expect("the skeleton ends with the run's results");
        out.push_str(head);
        let mut first = true;
        for r in before.chain(self.results.into_iter().map(print)) {
            out.push_str(if first { "\"results\": [\n" } else { ",\n" });
            first = false;
            out.push_str("        ");
            for (j, line) in r.split('\n').enumerate() {
                if j > 0 {
                    out.push_str("\n        ");
                }
                out.push_str(line);
            }
        }
        if first {
            out.push_str(RESULTS_EMPTY);
        } else {
            out.push_str("\n      ]");
        }
        out.push_str(tail);
        out.push('\n');
    }
}

/// The run's results as its skeleton prints them, the last field of the run.
const RESULTS_EMPTY: &str = "\"results\": []";

/// A result masked and pretty-printed (two-space indent, at the top level).
fn print(mut result: Value) -> String {
    super::mask_json(&mut result);
    serde_json::to_string_pretty(&result).expect("serializable")
}

/// One link's results (its side findings and findings) and notifications
/// (its warnings and notes: inputs nothing read, a launch that may not
/// run, auxiliary launches, placed where they apply), not masked yet.
pub fn link(l: &LinkReport, findings: &[Finding]) -> (Vec<String>, Vec<Value>) {
    let mut log = Log::new(check_rows());
    for f in findings {
        log.finding(f);
    }
    for (severity, span, message) in super::remarks(l) {
        let id = if severity == Severity::Warning {
            "input-warning"
        } else {
            "link-note"
        };
        let at = span.as_ref().and_then(super::place);
        log.notification(
            level(severity),
            id,
            format!("{message} [link: {}]", l.name),
            at.as_ref(),
        );
    }
    log.take()
}

/// The log: the links' results as written by [`link`], then the coverage
/// findings; the notifications of the links that could not be compared, of
/// the waivers, of the links (their remarks) and of the links not run.
pub fn finish(
    results: impl Iterator<Item = String>,
    notifications: impl Iterator<Item = Value>,
    rest: &super::Rest,
    out: &mut super::sink::Sink,
) {
    let super::Rest {
        failures,
        skipped,
        coverage,
        waivers,
        ..
    } = *rest;
    // `check`'s kinds: the compare rows, the coverage rows and the lint rows
    // `check` reports too (a rule's index is its place in this list).
    let mut log = Log::new(check_rows());
    for c in coverage {
        log.finding(c);
    }
    for f in failures {
        let at = super::error_place(&f.error).map(|(p, _)| p);
        log.notification(
            "error",
            "input-error",
            format!("link {} could not be compared: {}", f.name, f.error),
            at.as_ref(),
        );
    }
    // Waivers: an expired one is an error of the run, an unused one a note.
    for w in waivers
        .iter()
        .filter(|w| w.status != waiver::Status::Applied)
    {
        let level = if w.is_error() { "error" } else { "note" };
        log.notification(level, "waiver", super::waiver_text(w), None);
    }
    log.notifications(notifications);
    for sk in skipped {
        log.notification("note", "skipped", super::skipped_text(sk), None);
    }
    // An expired waiver fails the run as an input error does.
    let failed = !failures.is_empty() || waivers.iter().any(|w| w.is_error());
    log.finish(!failed, results, out);
}

/// A fix as a SARIF `fix` object: its description (saying when it is unsafe
/// and why) and one `artifactChange` per file, each edit a `replacement` whose
/// `deletedRegion` gives lines, columns (characters) and the character offset
/// and length; `None` for a fix with no edits (not fixable).
fn fix(fix: &crate::finding::Fix) -> Option<Value> {
    if fix.edits.is_empty() {
        return None;
    }
    let mut description = fix.title.clone();
    if let Some(why) = fix.applicability.why() {
        description.push_str(&format!(" ({}: {why})", fix.applicability.name()));
    }
    let mut changes: Vec<(String, Vec<Value>)> = Vec::new();
    for e in &fix.edits {
        let place = super::place(&e.span)?;
        let text = e.span.source().text();
        let end = e.span.source().line_col(e.span.end);
        let offset = text.get(..e.span.start)?.chars().count();
        let length = text.get(e.span.start..e.span.end)?.chars().count();
        let replacement = json!({
            "deletedRegion": {
                "startLine": e.span.pos.line,
                "startColumn": e.span.pos.col,
                "endLine": end.line,
                "endColumn": end.col,
                "charOffset": offset,
                "charLength": length,
            },
            "insertedContent": {"text": e.replacement},
        });
        match changes.iter_mut().find(|(p, _)| *p == place.path) {
            Some((_, r)) => r.push(replacement),
            None => changes.push((place.path, vec![replacement])),
        }
    }
    let changes: Vec<Value> = changes
        .into_iter()
        .map(|(path, replacements)| {
            json!({
                "artifactLocation": {"uri": uri(&path)},
                "replacements": replacements,
            })
        })
        .collect();
    Some(json!({
        "description": {"text": description},
        "artifactChanges": changes,
    }))
}

fn location(p: &Place, message: Option<&str>) -> Value {
    let mut phys = json!({"artifactLocation": {"uri": uri(&p.path)}});
    if let Some((line, col)) = p.line_col {
        phys["region"] = json!({"startLine": line, "startColumn": col});
    }
    let mut v = json!({"physicalLocation": phys});
    if let Some(m) = message {
        v["message"] = json!({"text": m});
    }
    v
}

/// A path as a URI reference: relative paths stay relative (`/` separated), an
/// absolute path becomes a `file://` URI; bytes outside the unreserved set and `/`
/// are percent-encoded.
pub fn uri(path: &str) -> String {
    // A remote file: its URL as it is, a `github:` file as its page on GitHub.
    if path.starts_with("https://") || path.starts_with("http://") {
        return path.to_string();
    }
    if let Some(Ok(crate::files::Location::Remote(crate::files::RemoteRef::Github {
        owner,
        repo,
        rev,
        path: file,
    }))) = path
        .starts_with("github:")
        .then(|| crate::files::Location::parse(path))
    {
        return format!("https://github.com/{owner}/{repo}/blob/{rev}/{file}");
    }
    let path = path.replace('\\', "/");
    let mut out = String::new();
    if path.starts_with('/') {
        out.push_str("file://");
    }
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::uri;

    /// Every rule's `helpUri` leads to its kind's generated page, which
    /// is there and is about that kind.
    #[test]
    fn help_uris_point_at_the_pages_of_the_finding_kinds() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for k in crate::finding::kinds() {
            let u = super::help_uri(&k.name);
            assert!(u.starts_with("https://github.com/"), "{u}");
            let rel = u.split_once("/blob/main/").unwrap().1;
            let page = std::fs::read_to_string(root.join(rel))
                .unwrap_or_else(|e| panic!("{u}: {rel}: {e}"));
            let title = format!("# {} `{}`", k.id, k.name);
            assert_eq!(page.lines().next(), Some(title.as_str()), "{rel}");
        }
    }

    #[test]
    fn uris_are_relative_and_encoded() {
        assert_eq!(uri("fixtures/demo/a.md"), "fixtures/demo/a.md");
        assert_eq!(uri("docs/my page.md"), "docs/my%20page.md");
        assert_eq!(uri("/abs/x#1.sh"), "file:///abs/x%231.sh");
        assert_eq!(uri("a\\b.md"), "a/b.md");
        assert_eq!(
            uri("https://docs.sglang.io/x/y.md"),
            "https://docs.sglang.io/x/y.md"
        );
        assert_eq!(
            uri("github:sgl-project/sglang@main:docs/a.mdx"),
            "https://github.com/sgl-project/sglang/blob/main/docs/a.mdx"
        );
    }
}

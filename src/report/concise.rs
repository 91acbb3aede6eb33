//! Concise output (`--format concise`): one line per finding, as ruff's
//! concise format prints them, then a summary line.
//!
//! `PLACE: LEVEL[ID KIND] MESSAGE (CLASS) [link: NAME]`, where PLACE is the
//! finding's place as the GitHub format annotates it (the docs side's value,
//! else the recipe side's, else the launch line) or `-` when it has none;
//! waived findings are not listed (their waivers are, when unused or
//! expired). Lines are in link order, findings most severe first.

use std::fmt::Write;

use super::v;
use crate::finding::{About, Finding, Severity};
use crate::waiver;

/// `file:line:col`, or the file, or `-`.
fn at(place: Option<super::Place>) -> String {
    place.map_or_else(|| "-".to_string(), |p| v(&p.shown))
}

/// One finding on one line: `PLACE: LEVEL[ID KIND] MESSAGE`, then the
/// release's rule of a startup error and the link (`[link: NAME]`), when
/// it has them. Every command writes its findings through this.
pub fn finding(f: &Finding) -> String {
    let mut line = format!(
        "{}: {}[{}] {}",
        at(super::finding_at(f)),
        super::severity_words(f.severity).0,
        super::rule_label(f.kind),
        super::finding_line(f)
    );
    if let About::Command {
        rule: Some((rule, _)),
        ..
    } = &f.about
    {
        let _ = write!(line, " (rule {rule})");
    }
    if let About::Command { deployments, .. } = &f.about
        && let Some(s) = super::deployments_text(deployments)
    {
        let _ = write!(line, " ({s})");
    }
    if let Some(link) = &f.link {
        let _ = write!(line, " [link: {}]", v(link));
    }
    line.push('\n');
    line
}

/// One link's lines: its findings no waiver silenced (its commands as a
/// whole first, then its keys, most severe first).
pub fn link(findings: &[Finding]) -> String {
    findings
        .iter()
        .filter(|f| !f.waived())
        .map(finding)
        .collect()
}

/// The report: a line per listed coverage finding, the links' lines as
/// written by [`link`], a line per link that could not be compared and per
/// waiver outcome, then (unless `quiet`, [`super::Chatter`]) the links not
/// run, the coverage count and the summary line.
pub fn finish(
    links: impl Iterator<Item = String>,
    rest: &super::Rest,
    quiet: bool,
    out: &mut super::sink::Sink,
) {
    let super::Rest {
        tally,
        failures,
        skipped,
        coverage,
        waivers,
    } = *rest;
    for c in coverage.iter().filter(|c| super::coverage_listed(c)) {
        out.push_str(&finding(c));
    }
    for l in links {
        out.push_str(&l);
    }
    for f in failures {
        let (place, message) = match super::error_place(&f.error) {
            Some((p, m)) => (Some(p), m),
            None => (None, f.error.message()),
        };
        let _ = writeln!(
            out,
            "{}: error[input] {} [link: {}]",
            at(place),
            v(message),
            v(&f.name)
        );
    }
    for w in waivers
        .iter()
        .filter(|w| w.status != waiver::Status::Applied && (!quiet || w.is_error()))
    {
        let level = if w.is_error() { "error" } else { "note" };
        let place = w.waiver.at.as_deref().map_or_else(|| "-".to_string(), v);
        let _ = writeln!(out, "{place}: {level}[waiver] {}", super::waiver_text(w));
    }
    if quiet {
        return;
    }
    for sk in skipped {
        let _ = writeln!(out, "-: note[skipped] {}", super::skipped_text(sk));
    }
    if let Some(summary) = super::coverage_summary(coverage) {
        let _ = writeln!(out, "-: note[coverage] {summary}");
    }
    // The summary counts what the report lists: the links' findings no
    // waiver silenced, and the run's own findings listed above (coverage
    // warnings and errors, a generator cut at the state budget).
    let count = |s: Severity| {
        tally.shown(s)
            + coverage
                .iter()
                .filter(|c| super::coverage_listed(c) && c.severity == s)
                .count()
    };
    let drift = tally.drift;
    let _ = write!(
        out,
        "{} error{}, {} warning{}, {} note{}; {} link{} checked, {drift} with MAJOR drift",
        count(Severity::Error),
        if count(Severity::Error) == 1 { "" } else { "s" },
        count(Severity::Warning),
        if count(Severity::Warning) == 1 {
            ""
        } else {
            "s"
        },
        count(Severity::Info),
        if count(Severity::Info) == 1 { "" } else { "s" },
        tally.links,
        if tally.links == 1 { "" } else { "s" },
    );
    if !failures.is_empty() {
        let _ = write!(out, ", {} could not be compared", failures.len());
    }
    out.push('\n');
}

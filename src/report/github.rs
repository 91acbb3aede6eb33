//! GitHub Actions output (`--format github`): one workflow command per finding,
//! `::error file=F,line=L,col=C,title=T::MESSAGE` (`::warning` for warnings,
//! `::notice` for information), then a plain summary line.
//!
//! - The annotation is placed on the docs side's line of the finding; when the docs
//!   side has no span (a default, a rule), on the recipe side's; when neither has
//!   one, on the docs launch line (else the recipe's). A docs value inside a
//!   rendered generator's text is annotated on the generator file (no line), and
//!   the message names the rendered position.
//! - Escaping follows the runner's rules: in the message `%`, `\r` and `\n` become
//!   `%25`, `%0D` and `%0A`; in property values `:` and `,` also become `%3A` and
//!   `%2C`.
//! - Links that could not be compared are `::error` commands at the error's position
//!   when it has one.
//!
//! The Markdown job summary (`$GITHUB_STEP_SUMMARY`) is [`super::markdown`]'s
//! body; the command appends it (a side effect, not the renderer's).

use std::fmt::Write;

use super::{LinkReport, Place, v, value_place};
use crate::finding::{About, Finding, Severity};
use crate::waiver;

/// Escapes a workflow command's message (data).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow command's property value.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The command of a severity.
pub fn command(s: Severity) -> &'static str {
    super::severity_words(s).1
}

/// One workflow command line (with its newline).
pub fn annotation(cmd: &str, place: Option<&Place>, title: &str, message: &str) -> String {
    let mut props = Vec::new();
    // A remote file is not a file of the repository the workflow runs on: the
    // annotation goes to the run, and the message says where.
    let place = place.filter(|p| !(p.path.starts_with("http") || p.path.starts_with("github:")));
    if let Some(p) = place {
        props.push(format!("file={}", escape_property(&p.path)));
        if let Some((line, col)) = p.line_col {
            props.push(format!("line={line}"));
            props.push(format!("col={col}"));
        }
    }
    props.push(format!("title={}", escape_property(title)));
    format!("::{cmd} {}::{}\n", props.join(","), escape_data(message))
}

/// One link's commands: its remarks (unless `quiet`), side findings and
/// findings (waived ones too, unless `quiet`).
pub fn link(l: &LinkReport, findings: &[Finding], quiet: bool) -> String {
    let mut out = String::new();
    // The link's warnings and notes, placed where they apply.
    for (severity, span, message) in super::remarks(l).into_iter().filter(|_| !quiet) {
        let place = span.as_ref().and_then(super::place);
        let what = if severity == Severity::Warning {
            "warning"
        } else {
            "note"
        };
        out.push_str(&annotation(
            command(severity),
            place.as_ref(),
            &format!("recipe-drift: {what}"),
            &format!(
                "{}
link: {}",
                v(&message),
                v(&l.name)
            ),
        ));
    }
    for f in findings.iter().filter(|f| !quiet || !f.waived()) {
        out.push_str(&finding(f));
    }
    out
}

/// One finding as a workflow command: `::LEVEL file=..,line=..,col=..,
/// title=recipe-drift: [ID KIND] ...::MESSAGE`, the message followed by
/// what the finding knows beside (a key's values and rule trail, a
/// command's rule, a generator's states) and its link. Every command
/// writes its findings through this.
pub fn finding(f: &Finding) -> String {
    let place = super::finding_at(f);
    let label = super::rule_label(f.kind);
    let mut message = super::text(&f.message);
    let title = match &f.about {
        About::Key(k) => {
            if let Some(w) = &k.waiver {
                let _ = write!(message, "\n{}", v(&w.mark()));
            }
            for (label, sv) in [("docs", &k.docs), ("recipe", &k.recipe)] {
                let _ = write!(message, "\n{label}: {}", v(&sv.val.display()));
                if let Some(w) = &sv.written {
                    let _ = write!(message, " from `{}`", v(w));
                }
                if let Some(p) = value_place(sv) {
                    let _ = write!(message, " at {}", v(&p.shown));
                }
                for hit in &sv.rules {
                    let _ = write!(
                        message,
                        "\n  rule {}: {} -> {}",
                        hit.id,
                        v(&hit.before.display()),
                        v(&hit.after.display())
                    );
                    for fact in &hit.facts {
                        let _ = write!(message, "\n    checkpoint fact: {fact}");
                    }
                }
            }
            if let Some(note) = super::fix_note(f) {
                let _ = write!(message, "\n{}", v(&note));
            }
            format!(
                "recipe-drift: [{label}] {} ({})",
                v(&k.key),
                super::class_name(k.class)
            )
        }
        About::Command {
            headline,
            detail,
            deployments,
            ..
        } => {
            // The headline is the title; the body is the engine's message.
            message = v(detail);
            // A place without a line (a generator's rendered text): the
            // message names the rendered position.
            if let Some(p) = place.as_ref().filter(|p| p.line_col.is_none()) {
                let _ = write!(message, "\nat {}", v(&p.shown));
            }
            if let Some(note) = super::command_note(f) {
                let _ = write!(message, "\n{note}");
            }
            if let Some(s) = super::deployments_text(deployments) {
                let _ = write!(message, "\n{s}");
            }
            format!("recipe-drift: [{label}] {headline}")
        }
        About::Generator { states, .. } => {
            if let Some(s) = super::states_text(states) {
                let _ = write!(message, " ({s})");
            }
            format!("recipe-drift: [{label}]")
        }
        About::Deployment(_) => format!("recipe-drift: [{label}]"),
    };
    if let Some(link) = &f.link {
        let _ = write!(message, "\nlink: {}", v(link));
    }
    annotation(command(f.severity), place.as_ref(), &title, &message)
}

/// The report: the listed coverage findings, the coverage count, the links
/// not run and the waiver outcomes, then the links' commands as written by
/// [`link`], the links that could not be compared and a plain summary
/// line. `quiet`: the findings only ([`super::Chatter`]).
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
    if let Some(summary) = super::coverage_summary(coverage).filter(|_| !quiet) {
        out.push_str(&annotation(
            "notice",
            None,
            "recipe-drift: coverage",
            &summary,
        ));
    }
    for sk in skipped.iter().filter(|_| !quiet) {
        out.push_str(&annotation(
            "notice",
            None,
            "recipe-drift: skipped",
            &super::skipped_text(sk),
        ));
    }
    for w in waivers
        .iter()
        .filter(|w| w.status != waiver::Status::Applied && (!quiet || w.is_error()))
    {
        let cmd = if w.is_error() { "error" } else { "notice" };
        out.push_str(&annotation(
            cmd,
            None,
            "recipe-drift: waiver",
            &super::waiver_text(w),
        ));
    }
    for l in links {
        out.push_str(&l);
    }
    for f in failures {
        let (place, message) = match super::error_place(&f.error) {
            Some((p, m)) => (Some(p), m),
            None => (None, f.error.message()),
        };
        out.push_str(&annotation(
            "error",
            place.as_ref(),
            "recipe-drift: input error",
            &format!("{}\nlink: {}", v(message), v(&f.name)),
        ));
    }
    if quiet {
        return;
    }
    let drift = tally.drift;
    let _ = write!(
        out,
        "recipe-drift: {} link{} checked, {} with MAJOR drift",
        tally.links,
        if tally.links == 1 { "" } else { "s" },
        drift
    );
    if !failures.is_empty() {
        let _ = write!(out, ", {} could not be compared", failures.len());
    }
    let expired = waivers.iter().filter(|w| w.is_error()).count();
    if expired > 0 {
        let _ = write!(
            out,
            ", {expired} expired waiver{}",
            if expired == 1 { "" } else { "s" }
        );
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_escapes_percent_and_newlines_only() {
        assert_eq!(escape_data("50% a:b, c\r\nd\n"), "50%25 a:b, c%0D%0Ad%0A");
        // `%` first: an escape is not escaped twice.
        assert_eq!(escape_data("%0A"), "%250A");
    }

    #[test]
    fn properties_also_escape_colon_and_comma() {
        assert_eq!(escape_property("a:b,c%d\ne\r"), "a%3Ab%2Cc%25d%0Ae%0D");
    }

    #[test]
    fn annotation_escapes_each_part() {
        let p = Place {
            path: "docs/a,b:c.md".into(),
            line_col: Some((3, 7)),
            shown: String::new(),
        };
        assert_eq!(
            annotation("error", Some(&p), "t: x, y", "50%\nnext: a, b"),
            "::error file=docs/a%2Cb%3Ac.md,line=3,col=7,title=t%3A x%2C y::50%25%0Anext: a, b\n"
        );
        let file_only = Place {
            line_col: None,
            ..p
        };
        assert_eq!(
            annotation("notice", Some(&file_only), "t", "m"),
            "::notice file=docs/a%2Cb%3Ac.md,title=t::m\n"
        );
        let remote = Place {
            path: "github:o/r@main:a.md".into(),
            line_col: Some((1, 1)),
            shown: "github:o/r@main:a.md:1:1".into(),
        };
        assert_eq!(
            annotation("error", Some(&remote), "t", "m"),
            "::error title=t::m\n"
        );
        assert_eq!(
            annotation("warning", None, "t", "m"),
            "::warning title=t::m\n"
        );
    }
}

//! Markdown output (`--format markdown`): a pull-request comment body. A heading
//! with the verdict, a table of the links, then per link its two commands, a table
//! of findings (key, class, kind, docs value, recipe value, where) and the unified
//! diff of the normalised commands in a `diff` block. The same body is the job
//! summary of `--format github`.

use std::fmt::Write;

use super::{LinkReport, SideReport, Status, class_name, normalized_diff, v, value_place};
use crate::finding::{About, Finding, Severity};
use crate::policy::Policy;
use crate::waiver;

/// One link's row of the links table and its section (a blank line, then
/// its two commands, its findings and the diff).
pub fn link(l: &LinkReport, findings: &[Finding], policy: &Policy) -> (String, String) {
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let row = format!(
        "| {} | {} | {} | {} | {} |\n",
        text(&v(&l.name)),
        status_cell(l.status()),
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info)
    );
    let mut section = String::from("\n");
    render_link(&mut section, l, findings, policy);
    (row, section)
}

/// The document: the listed coverage findings, the coverage count, the
/// links not run, the waiver outcomes, the verdict, the links table (the
/// rows written by [`link`], then the links that could not be compared),
/// then the links' sections and the input errors.
pub fn finish(
    rows: impl Iterator<Item = String>,
    sections: impl Iterator<Item = String>,
    rest: &super::Rest,
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
        let _ = writeln!(out, "> {}", finding(c));
    }
    if let Some(summary) = super::coverage_summary(coverage) {
        let _ = writeln!(out, "> {}\n", text(&summary));
    }
    for sk in skipped {
        let _ = writeln!(out, "> {}\n", text(&super::skipped_text(sk)));
    }
    for w in waivers
        .iter()
        .filter(|w| w.status != waiver::Status::Applied)
    {
        let _ = writeln!(
            out,
            "> **{}**: {}\n",
            if w.is_error() { "Error" } else { "Note" },
            text(&super::waiver_text(w))
        );
    }
    let drift = tally.drift;
    let total = tally.links + failures.len();
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let expired = waivers.iter().filter(|w| w.is_error()).count();
    let expired_note = match expired {
        0 => String::new(),
        n => format!(", {n} expired waiver{}", plural(n)),
    };
    if drift > 0 {
        let _ = writeln!(
            out,
            "## recipe-drift: MAJOR drift in {drift} of {total} link{}{expired_note}\n",
            plural(total)
        );
    } else {
        let _ = writeln!(
            out,
            "## recipe-drift: no MAJOR drift in {total} link{}{expired_note}\n",
            plural(total)
        );
    }
    if !failures.is_empty() {
        let _ = writeln!(
            out,
            "**{} link{} could not be compared** (input errors below).\n",
            failures.len(),
            plural(failures.len())
        );
    }
    let _ = writeln!(out, "| link | status | errors | warnings | notes |");
    let _ = writeln!(out, "| --- | --- | --- | --- | --- |");
    for row in rows {
        out.push_str(&row);
    }
    for f in failures {
        let _ = writeln!(
            out,
            "| {} | {} | | | |",
            text(&v(&f.name)),
            status_cell(Status::Error)
        );
    }
    for section in sections {
        out.push_str(&section);
    }
    for f in failures {
        let _ = writeln!(out, "\n### {}: error\n", text(&v(&f.name)));
        out.push_str(&fenced("text", &format!("{}\n", v(&f.error.to_string()))));
    }
}

/// A status in the links table: drift and error in bold.
fn status_cell(status: Status) -> String {
    match status {
        Status::Drift | Status::Error => format!("**{status}**"),
        s => s.to_string(),
    }
}

fn side_line(label: &str, s: &SideReport) -> String {
    let platform = match &s.resolved.platform {
        Some(p) => text(&v(&p.value.to_string())),
        None => "platform unknown".into(),
    };
    format!(
        "- {label}: {} {} ({} {}, {})",
        code(&v(&s.launch.span.to_string())),
        code(&v(&s.launch.launcher_text())),
        s.resolved.engine,
        text(&v(&s.resolved.version.version)),
        platform
    )
}

fn render_link(out: &mut String, l: &LinkReport, findings: &[Finding], policy: &Policy) {
    let _ = writeln!(out, "### {}: {}\n", text(&v(&l.name)), l.status());
    let _ = writeln!(out, "{}", side_line("docs", &l.docs));
    let _ = writeln!(out, "{}", side_line("recipe", &l.recipe));
    // The link's warnings and notes (inputs nothing read, a launch that may
    // not run, auxiliary launches).
    for (severity, _, message) in super::remarks(l) {
        let what = if severity == Severity::Warning {
            "**warning**"
        } else {
            "note"
        };
        let _ = writeln!(out, "- {what}: {}", text(&v(&message)));
    }
    for f in findings.iter().filter(|f| !is_key(f)) {
        out.push_str(&finding(f));
    }
    out.push('\n');
    if !findings.iter().any(|f| is_key(&f)) {
        let _ = writeln!(out, "No findings.\n");
    } else {
        let _ = writeln!(out, "| key | class | kind | docs | recipe | where |");
        let _ = writeln!(out, "| --- | --- | --- | --- | --- | --- |");
        for f in findings.iter().filter(is_key) {
            out.push_str(&finding(f));
        }
        out.push('\n');
        let fixes: Vec<String> = findings
            .iter()
            .filter(is_key)
            .filter_map(|f| {
                let About::Key(k) = &f.about else { return None };
                let note = super::fix_note(f)?;
                Some(format!("- {}: {}\n", code(&v(&k.key)), text(&v(&note))))
            })
            .collect();
        if !fixes.is_empty() {
            let _ = writeln!(
                out,
                "Fixes (`recipe-drift check --fix` applies the safe ones):\n"
            );
            out.push_str(&fixes.concat());
            out.push('\n');
        }
    }
    if !l.comparison.shared_unknowns.is_empty() {
        let keys: Vec<String> = l
            .comparison
            .shared_unknowns
            .iter()
            .map(|u| code(&v(&u.key)))
            .collect();
        let _ = writeln!(
            out,
            "Unknown on both sides for the same reason: {}.\n",
            keys.join(", ")
        );
    }
    match normalized_diff(l, policy) {
        _ if l.refused() => {
            let _ = writeln!(
                out,
                "No normalized diff: a command its engine release refuses does not start, so nothing was compared."
            );
        }
        Some(diff) => out.push_str(&fenced("diff", &diff)),
        None => {
            let _ = writeln!(out, "The normalized commands are identical.");
        }
    }
}

fn is_key(f: &&Finding) -> bool {
    matches!(f.about, About::Key(_))
}

/// One finding in Markdown: a key's finding as a row of its link's table
/// of keys (key, class, kind, both values, where each is written); any
/// other as a line `- **Error** (`ID KIND`) at `PLACE`: MESSAGE`, with
/// a startup error's rule or a generator's states. Every command writes
/// its findings through this.
pub fn finding(f: &Finding) -> String {
    let level = match f.severity {
        Severity::Error => "Error",
        Severity::Warning => "Warning",
        Severity::Info => "Note",
    };
    let label = super::rule_label(f.kind);
    match &f.about {
        About::Key(k) => {
            let mut places = Vec::new();
            for (label, sv) in [("docs", &k.docs), ("recipe", &k.recipe)] {
                if let Some(p) = value_place(sv) {
                    places.push(format!("{label} {}", code(&v(&p.shown))));
                }
            }
            let mut class = match (f.severity, k.class) {
                (Severity::Error, c) => format!("**{}**", class_name(c)),
                (_, c) => class_name(c).to_string(),
            };
            if let Some(w) = &k.waiver {
                class.push_str(&format!(" ({})", text(&v(&w.mark()))));
            }
            format!(
                "| {} | {class} | {label} | {} | {} | {} |\n",
                code(&v(&k.key)),
                code(&v(&k.docs.val.display())),
                code(&v(&k.recipe.val.display())),
                places.join("<br>")
            )
        }
        about => {
            let at = match super::finding_at(f) {
                Some(p) => format!(" at {}", code(&v(&p.shown))),
                None => String::new(),
            };
            // A command's headline says what happens to it, in bold; its
            // body is the engine's or the extractor's message.
            let (lead, body) = match about {
                About::Command {
                    headline, detail, ..
                } => (headline.clone(), text(&v(detail))),
                _ => (level.to_string(), text(&super::text(&f.message))),
            };
            let extra = match about {
                About::Command {
                    rule: Some((rule, _)),
                    ..
                } => format!(" (rule {})", code(rule)),
                About::Generator { states, .. } => super::states_text(states)
                    .map(|s| format!(" ({})", text(&s)))
                    .unwrap_or_default(),
                _ => String::new(),
            };
            let extra = match about {
                About::Command { deployments, .. } => match super::deployments_text(deployments) {
                    Some(s) => format!("{extra} ({})", text(&s)),
                    None => extra,
                },
                _ => extra,
            };
            format!("- **{lead}** ({}){at}: {body}{extra}\n", code(&label))
        }
    }
}

/// A fenced code block whose fence is longer than any backtick run in `body`.
fn fenced(info: &str, body: &str) -> String {
    let fence = "`".repeat(longest_backtick_run(body).max(2) + 1);
    let mut s = format!("{fence}{info}\n{body}");
    if !body.ends_with('\n') {
        s.push('\n');
    }
    s.push_str(&fence);
    s.push('\n');
    s
}

fn longest_backtick_run(s: &str) -> usize {
    s.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// Inline code in a table cell: `|` escaped (GitHub reads `\|` inside code in a
/// table as a pipe), newlines as spaces, a longer fence around backticks.
pub fn code(s: &str) -> String {
    let s = s.replace(['\r', '\n'], " ").replace('|', "\\|");
    if s.contains('`') {
        let fence = "`".repeat(longest_backtick_run(&s) + 1);
        format!("{fence} {s} {fence}")
    } else if s.is_empty() {
        "` `".into()
    } else {
        format!("`{s}`")
    }
}

/// Plain text with Markdown's active characters escaped, and `@` in a code
/// span (`` `@`name ``): GitHub makes no mention in code, so input text cannot
/// notify anyone.
pub fn text(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '@' => out.push_str("`@`"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#' | '~' | '&' => {
                out.push('\\');
                out.push(c);
            }
            '\r' | '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_escape_pipes_and_backticks() {
        assert_eq!(code("a|b"), "`a\\|b`");
        assert_eq!(code("x`y"), "`` x`y ``");
        assert_eq!(code(""), "` `");
        assert_eq!(text("a <b> | *c*"), "a \\<b\\> \\| \\*c\\*");
        assert_eq!(text("cc @team x@y"), "cc `@`team x`@`y");
    }

    #[test]
    fn fences_outgrow_the_body() {
        assert_eq!(fenced("diff", "-a\n+b\n"), "```diff\n-a\n+b\n```\n");
        assert_eq!(fenced("text", "```x"), "````text\n```x\n````\n");
    }
}

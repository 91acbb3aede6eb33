//! Human output: the findings with both sides' source lines, the rule trail behind
//! every value a rule changed, and a unified diff of the two normalised commands.

use std::fmt::Write;

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use similar::TextDiff;

use super::{LinkReport, SideReport, finding_keys, normalized, v};
use crate::finding::{About, Finding, Severity, SideValue};
use crate::policy::Policy;
use crate::resolved::{Val, ValueSource};
use crate::span::Span;

/// One link: its header, its findings with their source lines, and the
/// diff of its normalised commands. `chatter`: the findings only, or
/// everything with the equivalences and the keys unknown on both sides
/// counted, or each printed ([`super::Chatter`]).
pub fn link(
    l: &LinkReport,
    findings: &[Finding],
    policy: &Policy,
    chatter: super::Chatter,
) -> String {
    let mut out = String::new();
    render_link(&mut out, l, findings, policy, chatter);
    out
}

/// The report: the links as written by [`link`], then the coverage
/// findings listed one by one, what became of the waivers, the links that
/// could not be compared, a line per link not run (`skipped: NAME
/// (reason)`) and the summary. `quiet`: the findings only.
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
    for l in links {
        out.push_str(&l);
    }
    for c in coverage.iter().filter(|c| super::coverage_listed(c)) {
        out.push_str(&finding(c, ""));
    }
    for w in waivers.iter().filter(|w| !quiet || w.is_error()) {
        let level = if w.is_error() { "error" } else { "note" };
        let _ = writeln!(out, "{level}[waiver]: {}\n", super::waiver_text(w));
    }
    for f in failures {
        let _ = writeln!(
            out,
            "link: {}  [error]\nerror: {}\n",
            v(&f.name),
            v(&f.error.to_string())
        );
    }
    if quiet {
        return;
    }
    if !failures.is_empty() {
        let _ = writeln!(
            out,
            "{} link{} could not be compared",
            failures.len(),
            if failures.len() == 1 { "" } else { "s" }
        );
    }
    for s in skipped {
        let _ = writeln!(out, "{}", super::skipped_text(s));
    }
    if let Some(summary) = super::coverage_summary(coverage) {
        let _ = writeln!(out, "{summary}");
    }
    if tally.links == 0 && failures.is_empty() && !skipped.is_empty() && coverage.is_empty() {
        let _ = writeln!(out, "no link depends on the changed files");
        return;
    }
    let drift = tally.drift;
    let expired = waivers.iter().filter(|w| w.is_error()).count();
    let _ = writeln!(
        out,
        "{} link{} checked, {} with MAJOR drift{}",
        tally.links,
        if tally.links == 1 { "" } else { "s" },
        drift,
        match expired {
            0 => String::new(),
            1 => ", 1 expired waiver".to_string(),
            n => format!(", {n} expired waivers"),
        }
    );
}

fn side_line(label: &str, s: &SideReport) -> String {
    let platform = match &s.resolved.platform {
        Some(p) => format!("{} ({})", v(&p.value.to_string()), v(&p.from.to_string())),
        None => "platform unknown".to_string(),
    };
    let ver = &s.resolved.version;
    format!(
        "  {label:<7} {}  `{}`  {} {} ({}), {}",
        v(&s.launch.span.to_string()),
        v(&s.launch.launcher_text()),
        s.resolved.engine,
        v(&ver.version),
        v(&ver.from.to_string()),
        platform
    )
}

/// A link's header: its name and status, both sides, and the remarks on its
/// inputs.
fn render_header(out: &mut String, l: &LinkReport) {
    let _ = writeln!(out, "link: {}  [{}]", v(&l.name), l.status());
    let _ = writeln!(out, "{}", side_line("docs:", &l.docs));
    let _ = writeln!(out, "{}", side_line("recipe:", &l.recipe));
    for (label, side) in [("docs", &l.docs), ("recipe", &l.recipe)] {
        // A launch that runs only under a condition that is not knowable.
        if let Some(crate::launch::Provenance::Unknown { reason }) =
            side.launch.launcher.first().map(|t| &t.provenance)
        {
            let _ = writeln!(out, "  note: the {label} launch may not run: {}", v(reason));
        }
    }
    for w in &l.warnings {
        let _ = writeln!(out, "  warning: {}", v(&w.message));
    }
    for a in &l.auxiliary {
        let _ = writeln!(out, "  note: {}", v(&a.message));
    }
    let _ = writeln!(out);
}

fn render_link(
    out: &mut String,
    l: &LinkReport,
    findings: &[Finding],
    policy: &Policy,
    chatter: super::Chatter,
) {
    let quiet = chatter == super::Chatter::Quiet;
    // By default an equivalence is counted, not shown (`--show-equivalent`
    // shows each; `--quiet` shows each finding, as every quiet format does).
    let each = chatter != super::Chatter::Full;
    let mut equivalent: Vec<String> = Vec::new();
    // Quiet: each finding names its link instead of a header.
    let link_line = if quiet {
        format!("  = link: {}\n", v(&l.name))
    } else {
        String::new()
    };
    if !quiet {
        render_header(out, l);
    }
    for f in findings.iter().filter(|f| !quiet || !f.waived()) {
        if let About::Key(k) = &f.about
            && !each
            && k.kind == crate::finding::Kind::Equivalent
            && f.severity == Severity::Info
        {
            equivalent.push(k.key.clone());
            continue;
        }
        out.push_str(&finding(f, &link_line));
    }
    if quiet {
        return;
    }
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    if !equivalent.is_empty() {
        let n = equivalent.len();
        let keys: Vec<String> = equivalent.iter().map(|k| v(k)).collect();
        let _ = writeln!(
            out,
            "note[{}]: {n} key{} written differently, resolved alike: {} (--show-equivalent shows each)\n",
            super::rule_label(crate::finding::Kind::Equivalent.name()),
            plural(n),
            keys.join(", ")
        );
    }
    let shared = &l.comparison.shared_unknowns;
    if !shared.is_empty() && each {
        let _ = writeln!(
            out,
            "note: {} MAJOR key{} unknown on both sides for the same reason (decided alike by the same inputs):",
            shared.len(),
            plural(shared.len())
        );
        for u in shared {
            let _ = writeln!(out, "  {}: {}", v(&u.key), v(&u.reason));
        }
        let _ = writeln!(out);
    } else if !shared.is_empty() {
        let keys: Vec<String> = shared.iter().map(|u| v(&u.key)).collect();
        let _ = writeln!(
            out,
            "note: {} MAJOR key{} unknown on both sides for the same reason: {} (--show-equivalent shows why)\n",
            shared.len(),
            plural(shared.len()),
            keys.join(", ")
        );
    }
    let keys = finding_keys(&l.comparison);
    let a = normalized(&l.docs, policy, &keys);
    let b = normalized(&l.recipe, policy, &keys);
    if l.refused() {
        let _ = writeln!(out, "{REFUSED_NO_DIFF}\n");
    } else if a != b {
        let diff = TextDiff::from_lines(&a, &b);
        let _ = write!(
            out,
            "{}",
            diff.unified_diff()
                .context_radius(3)
                .header("docs (normalized)", "recipe (normalized)")
        );
        let _ = writeln!(out);
    } else {
        let _ = writeln!(out, "normalized commands are identical\n");
    }
}

/// One finding as people read it: `LEVEL[ID KIND]: MESSAGE`, its source
/// lines with their marks (a key's value on each side, a refused word, a
/// deployment's launch, a generator's line, and the related places), then
/// `= ` lines with what it knows beside (each side's value and rule
/// trail, a startup error's rule, a generator's states, the nearest
/// deployment), then `link_line`. Every command writes its findings
/// through this.
pub fn finding(f: &Finding, link_line: &str) -> String {
    let mut out = String::new();
    let level = match f.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Info => Level::NOTE,
    };
    let label = super::rule_label(f.kind);
    let mut group: Group = Group::with_title(
        level
            .primary_title(super::finding_title(f))
            .id(label.clone()),
    );
    let mut shown: Vec<Excerpt> = Vec::new();
    match &f.about {
        About::Key(k) => {
            shown.extend(
                [("docs", &k.docs), ("recipe", &k.recipe)]
                    .into_iter()
                    .flat_map(|(label, sv)| excerpts(label, sv)),
            );
        }
        About::Command {
            side,
            rule,
            own_place,
            ..
        } => {
            // A refused word or a comment: shown on its line.
            let mark = if f.kind == crate::finding::CROSS_ROLE {
                "disagrees with the other role"
            } else if rule.is_some() {
                "refused here"
            } else {
                "the command ends here"
            };
            if *own_place {
                shown.extend(
                    f.primary
                        .as_ref()
                        .and_then(|s| word_excerpt(s, &format!("{side}: {mark}"))),
                );
            }
        }
        About::Deployment(u) => {
            shown.extend(
                f.primary.as_ref().and_then(|s| {
                    word_excerpt(s, &format!("{}: this deployment", u.side.as_str()))
                }),
            );
        }
        About::Generator { .. } => {
            shown.extend(f.primary.as_ref().and_then(|s| word_excerpt(s, "")));
        }
    }
    for r in &f.related {
        if let Some(mut e) = word_excerpt(&r.span, "") {
            for m in &mut e.marks {
                m.0 = AnnotationKind::Context;
                m.2 = v(r.label.as_deref().unwrap_or("related"));
            }
            if !matches!(f.about, About::Key(_)) {
                shown.push(e);
            }
        }
    }
    if shown.is_empty() {
        // No text at hand: the place as a line of its own.
        let _ = writeln!(
            out,
            "{}[{}]: {}",
            level_word(f.severity),
            label,
            super::finding_title(f)
        );
        if let Some(p) = super::finding_at(f) {
            let _ = writeln!(out, "  --> {}", v(&p.shown));
        }
    } else {
        for e in &shown {
            group = group.element(e.snippet());
        }
        let _ = writeln!(out, "{}", Renderer::plain().render(&[group]));
    }
    match &f.about {
        About::Key(k) => {
            for (label, sv) in [("docs", &k.docs), ("recipe", &k.recipe)] {
                let _ = writeln!(out, "  = {label:<7}{}", describe(sv));
                for hit in &sv.rules {
                    let _ = writeln!(
                        out,
                        "             rule {}: {} -> {} ({})",
                        hit.id,
                        v(&hit.before.display()),
                        v(&hit.after.display()),
                        hit.reference
                    );
                    for fact in &hit.facts {
                        let _ = writeln!(out, "               checkpoint fact: {fact}");
                    }
                }
            }
            if let Some(note) = super::fix_note(f) {
                let _ = writeln!(out, "  = {}", v(&note));
            }
        }
        About::Command { deployments, .. } => {
            if let Some(note) = super::command_note(f) {
                let _ = writeln!(out, "  = {note}");
            }
            if let Some(s) = super::deployments_text(deployments) {
                let _ = writeln!(out, "  = {s}");
            }
        }
        About::Deployment(u) => {
            if let Some(n) = &u.nearest {
                let _ = writeln!(out, "  = nearest: {}", v(&n.deployment));
            }
        }
        About::Generator { states, .. } => {
            if let Some(s) = super::states_text(states) {
                let _ = writeln!(out, "  = {s}");
            }
        }
    }
    let _ = writeln!(out, "{link_line}");
    out
}

/// A severity as the human output names it.
fn level_word(s: Severity) -> &'static str {
    super::severity_words(s).0
}

/// Said instead of the diff when a side does not start.
const REFUSED_NO_DIFF: &str = "no normalized diff: a command its engine release refuses does not start, so nothing was compared";

fn describe(sv: &SideValue) -> String {
    let src = match sv.source {
        ValueSource::Cli => "command line",
        ValueSource::Env => "environment",
        ValueSource::Default => "release default",
        ValueSource::Rule => "resolver rule",
        ValueSource::Context => "context",
        ValueSource::Unknown => "unknown",
    };
    let mut s = match &sv.val {
        Val::Known {
            value: serde_json::Value::Null,
        } => "unset".to_string(),
        Val::Known { .. } => v(&sv.val.display()),
        Val::Unknown { reason, .. } => format!("unknown: {}", v(reason)),
    };
    match (&sv.written, sv.spans.first()) {
        (Some(w), Some(span)) => {
            let _ = write!(s, "  from `{}` at {}", v(w), v(&span.to_string()));
        }
        (Some(w), None) => {
            let _ = write!(s, "  from {}", v(w));
        }
        _ if !sv.rules.is_empty() => {
            let _ = write!(s, "  ({src}, then rules)");
        }
        _ => {
            let _ = write!(s, "  ({src})");
        }
    }
    s
}

/// Context marks shown per side of a finding; the rest are counted.
const MAX_CONTEXT_MARKS: usize = 8;

/// Lines of one source shown for a finding, with their marks: the text is
/// the source's excerpt (secret words masked however they are spelled).
struct Excerpt {
    path: String,
    line: usize,
    text: String,
    marks: Vec<(AnnotationKind, std::ops::Range<usize>, String)>,
}

impl Excerpt {
    fn snippet(&self) -> Snippet<'_, annotate_snippets::Annotation<'_>> {
        let mut snippet = Snippet::source(self.text.as_str())
            .line_start(self.line)
            .path(self.path.as_str())
            .fold(true);
        for (kind, range, text) in &self.marks {
            snippet = snippet.annotation(kind.span(range.clone()).label(text.as_str()));
        }
        snippet
    }
}

/// The lines of one span (a refused word, a comment, a deployment's launch,
/// a generator's line), marked with `mark` (`None` when its text is not at
/// hand).
fn word_excerpt(span: &Span, mark: &str) -> Option<Excerpt> {
    let src = span.source();
    if src.text().is_empty() || span.end > src.text().len() {
        return None;
    }
    let (line, bytes) = src.lines_of(span.start, span.end);
    Some(Excerpt {
        path: v(&span.file),
        line,
        text: src.excerpt(bytes.clone()).into_owned(),
        marks: vec![(
            AnnotationKind::Primary,
            span.start - bytes.start..span.end - bytes.start,
            mark.to_string(),
        )],
    })
}

fn excerpts(label: &str, sv: &SideValue) -> Vec<Excerpt> {
    let (Some(first), Some(last)) = (sv.spans.first(), sv.spans.last()) else {
        return Vec::new();
    };
    let value = v(&sv.val.display());
    // (span, range, primary?, label): at most 1 + MAX_CONTEXT_MARKS marks,
    // each shown with its own lines of its own file (the source map), so
    // rendering stays linear in what is shown.
    let mut marks: Vec<(&Span, std::ops::Range<usize>, bool, String)> = Vec::new();
    let text = first.source().text();
    let together = first.source() == last.source()
        && last.start >= first.end
        && last.end <= text.len()
        && text
            .get(first.end..last.start)
            .is_some_and(|between| between.trim().len() < 2);
    if together {
        // Option and value written together: one annotation over both.
        marks.push((
            first,
            first.start..last.end,
            true,
            format!("{label}: {value}"),
        ));
    } else {
        // The value comes from elsewhere (a variable, a `--config` file):
        // mark both places.
        marks.push((
            first,
            first.start..first.end,
            true,
            format!("{label}: {value}"),
        ));
        let rest = &sv.spans[1..];
        let more = rest.len().saturating_sub(MAX_CONTEXT_MARKS);
        for (i, s) in rest.iter().take(MAX_CONTEXT_MARKS).enumerate() {
            let text = if i + 1 == MAX_CONTEXT_MARKS && more > 0 {
                format!("value written here (and {more} more places)")
            } else {
                "value written here".to_string()
            };
            marks.push((s, s.start..s.end, false, text));
        }
    }
    // A position without text at hand (a file that could not be shown) is
    // named by the `= docs`/`= recipe` line only.
    marks.retain(|(s, r, _, _)| r.end <= s.source().text().len() && !s.source().text().is_empty());
    // Marks on the same or neighbouring lines of one file share a snippet;
    // files keep the order of their first mark.
    let mut files: Vec<&Span> = Vec::new();
    for (s, ..) in &marks {
        if !files.iter().any(|f| f.source() == s.source()) {
            files.push(s);
        }
    }
    let mut out = Vec::new();
    for file in files {
        let src = file.source();
        let mut mine: Vec<&(&Span, std::ops::Range<usize>, bool, String)> =
            marks.iter().filter(|m| m.0.source() == src).collect();
        mine.sort_by_key(|m| (m.1.start, m.1.end));
        let mut windows: Vec<(usize, std::ops::Range<usize>, Vec<usize>)> = Vec::new();
        for (i, (_, range, _, _)) in mine.iter().enumerate() {
            let (line, bytes) = src.lines_of(range.start, range.end);
            match windows.last_mut() {
                Some((_, w, members)) if bytes.start <= w.end + 1 => {
                    w.end = w.end.max(bytes.end);
                    members.push(i);
                }
                _ => windows.push((line, bytes, vec![i])),
            }
        }
        for (line, w, members) in windows {
            let mut excerpt = Excerpt {
                path: v(&file.file),
                line,
                text: src.excerpt(w.clone()).into_owned(),
                marks: Vec::new(),
            };
            for i in members {
                let (_, range, primary, text) = mine[i];
                let kind = if *primary {
                    AnnotationKind::Primary
                } else {
                    AnnotationKind::Context
                };
                excerpt.marks.push((
                    kind,
                    range.start - w.start..range.end - w.start,
                    text.clone(),
                ));
            }
            out.push(excerpt);
        }
    }
    out
}

//! Reports: one module per output format. `check` and `compare` pick one with
//! [`ReportFormat`] and write through [`Writer`]; `extract` and `resolve` keep
//! [`Format`] (human or JSON).

pub mod color;
pub mod concise;
pub mod github;
pub mod human;
pub mod json;
pub mod launches;
pub mod lint;
pub mod markdown;
pub mod options;
pub mod sarif;
pub mod sink;
pub mod spool;

use crate::compare::Comparison;
use crate::finding::{About, Finding, KeyValues, Severity, SideValue};
pub use crate::link::{LinkReport, SideReport, Status};
use crate::policy::{Class, Policy};
use crate::span::{Origin, Span};
use crate::waiver::{self, Outcome};

/// A link that could not be compared (bad input on one side).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Failure {
    /// The link's name.
    pub name: String,
    /// The error, kept as a value: its span places it, its text is printed.
    #[serde(serialize_with = "error_text")]
    pub error: crate::error::Error,
}

fn error_text<S: serde::Serializer>(e: &crate::error::Error, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(e)
}

/// A link that was not run, with the reason (`check FILES...`, `--changed-from`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Skipped {
    /// The link's name.
    pub name: String,
    /// Why it was not run.
    pub reason: String,
}

/// The output formats of `extract` and `resolve`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Annotated text for people.
    Human,
    /// Versioned JSON.
    Json,
}

/// The output formats of `check` and `compare`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// Annotated text for people: both sides' source lines, rule trails and a diff.
    Human,
    /// Versioned JSON (`schema_version: 1`).
    Json,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
    /// GitHub Actions workflow commands (`::error file=...::...`), one per finding;
    /// with `$GITHUB_STEP_SUMMARY` set, a Markdown summary is appended to that file.
    Github,
    /// A Markdown body for a pull-request comment: a table per link and the diff.
    Markdown,
    /// One line per finding (`file:line:col: error[RD001 contradicts] ...`),
    /// then a summary line.
    Concise,
}

/// Which findings fail a run (exit 1); input errors exit 2 regardless.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum FailOn {
    /// Error findings: MAJOR drift, a command that would not start, an
    /// expired waiver (the default).
    #[default]
    Error,
    /// Warnings too: MAJOR values one side cannot decide (`unknown`).
    Warning,
    /// Nothing: report, exit 0.
    Never,
}

impl FailOn {
    /// The exit code of a run whose links add up to `tally` (and whose
    /// coverage and waivers these are): 1 when that fails the run, else 0.
    pub fn code(self, tally: &Tally, coverage: &[Finding], waivers: &[Outcome]) -> u8 {
        let covered = |s: Severity| coverage.iter().any(|c| c.severity == s);
        let error =
            tally.drift > 0 || waivers.iter().any(|w| w.is_error()) || covered(Severity::Error);
        let fails = match self {
            FailOn::Error => error,
            FailOn::Warning => error || tally.unknown > 0 || covered(Severity::Warning),
            FailOn::Never => false,
        };
        u8::from(fails)
    }
}

/// What the summaries count of written links: links, their statuses and
/// their findings by severity. A startup error or a defect of a command's
/// text counts as an error finding of its own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Links compared.
    pub links: usize,
    /// Links with MAJOR drift.
    pub drift: usize,
    /// Links whose MAJOR values one side cannot decide (status `unknown`).
    pub unknown: usize,
    /// Findings by the severity they count with (a waived one as
    /// information): error, warning, information.
    pub judged: [usize; 3],
    /// Findings no waiver or inline suppression silenced, by severity.
    pub shown: [usize; 3],
}

impl Tally {
    /// How one link counts.
    pub fn of(l: &LinkReport, findings: &[Finding]) -> Tally {
        let mut t = Tally {
            links: 1,
            drift: usize::from(l.status() == Status::Drift),
            unknown: usize::from(l.status() == Status::Unknown),
            ..Tally::default()
        };
        for f in findings {
            let i = severity_index(f.severity);
            t.judged[i] += 1;
            if !f.waived() {
                t.shown[i] += 1;
            }
        }
        t
    }

    /// Adds another tally to this one.
    pub fn add(&mut self, other: &Tally) {
        self.links += other.links;
        self.drift += other.drift;
        self.unknown += other.unknown;
        for i in 0..3 {
            self.judged[i] += other.judged[i];
            self.shown[i] += other.shown[i];
        }
    }

    /// Findings of severity `s`, waived ones counted as information.
    pub fn judged(&self, s: Severity) -> usize {
        self.judged[severity_index(s)]
    }

    /// Findings of severity `s` no waiver silenced.
    pub fn shown(&self, s: Severity) -> usize {
        self.shown[severity_index(s)]
    }
}

fn severity_index(s: Severity) -> usize {
    match s {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Info => 2,
    }
}

/// A compared link once written: how it counts and its text in the run's
/// formats. The report itself can then be dropped, and the text goes to the
/// run's [`spool::Spool`], so a run keeps neither its reports nor its
/// output in memory.
#[derive(Debug, Clone)]
pub struct Written {
    /// How the link counts in the summaries.
    pub tally: Tally,
    /// The link in the run's format, then (for `github` with a job
    /// summary) in Markdown.
    pieces: Vec<Piece>,
}

/// One link's part of a report, as its format assembles it.
#[derive(Debug, Clone)]
enum Piece {
    /// Text printed in the link's place (human, JSON, GitHub, concise).
    Text(String),
    /// The link's row of the links table and its section (Markdown).
    Markdown { row: String, section: String },
    /// The link's results, masked and printed, and its notifications, not
    /// masked yet (SARIF).
    Sarif {
        results: Vec<String>,
        notifications: Vec<serde_json::Value>,
    },
}

/// Writes a run's report: each link as it is compared ([`Writer::link`],
/// on any thread, into a [`spool::Spool`] in the run's order), then the
/// whole as it is printed ([`Writer::finish`], [`Pending::write`]).
#[derive(Debug, Clone, Copy)]
pub struct Writer<'a> {
    /// The output format.
    pub format: ReportFormat,
    /// The policy (normalised commands list its classes).
    pub policy: &'a Policy,
    /// How much the text formats print.
    pub chatter: Chatter,
    /// Whether the Markdown body is wanted too (the GitHub job summary).
    pub markdown_too: bool,
}

/// A report ready to print: its links written to a spool, and the rest.
/// It is assembled as it is printed ([`Pending::write`]).
pub struct Pending {
    format: ReportFormat,
    quiet: bool,
    markdown_too: bool,
    links: spool::Spooled,
    failures: Vec<Failure>,
    skipped: Vec<Skipped>,
    coverage: Vec<Finding>,
    waivers: Vec<Outcome>,
}

impl Pending {
    /// The links' counts, added up.
    pub fn tally(&self) -> &Tally {
        self.links.tally()
    }

    /// Whether a link could not be compared (an input error: exit 2).
    pub fn failed(&self) -> bool {
        !self.failures.is_empty()
    }

    /// The coverage findings.
    pub fn coverage(&self) -> &[Finding] {
        &self.coverage
    }

    /// What became of the waivers.
    pub fn waivers(&self) -> &[Outcome] {
        &self.waivers
    }

    /// Whether the Markdown body is written too ([`Pending::write_markdown`]).
    pub fn markdown_too(&self) -> bool {
        self.markdown_too
    }

    /// The report in its format.
    pub fn write(&self, sink: &mut sink::Sink) -> std::io::Result<()> {
        self.assemble(self.format, 0, sink)
    }

    /// The Markdown body (the GitHub job summary).
    pub fn write_markdown(&self, sink: &mut sink::Sink) -> std::io::Result<()> {
        self.assemble(ReportFormat::Markdown, 1, sink)
    }

    /// The report in `format` of the links' pieces at index `i`, read back
    /// a link at a time.
    fn assemble(
        &self,
        format: ReportFormat,
        i: usize,
        sink: &mut sink::Sink,
    ) -> std::io::Result<()> {
        let rest = Rest {
            tally: self.links.tally(),
            failures: &self.failures,
            skipped: &self.skipped,
            coverage: &self.coverage,
            waivers: &self.waivers,
        };
        let quiet = self.quiet;
        let mut pass = self.links.pass(i);
        let mut second = self.links.pass(i);
        let texts = pass.by_ref().filter_map(|p| match p {
            Piece::Text(t) => Some(t),
            _ => None,
        });
        match format {
            ReportFormat::Human => human::finish(texts, &rest, quiet, sink),
            ReportFormat::Json => json::finish(texts, &rest, sink),
            ReportFormat::Concise => concise::finish(texts, &rest, quiet, sink),
            ReportFormat::Github => github::finish(texts, &rest, quiet, sink),
            // Formats that list the links in two places read the spool
            // twice, each pass at its own place: SARIF's results and the
            // links' notifications, Markdown's table rows and sections.
            ReportFormat::Sarif => sarif::finish(
                pass.by_ref().flat_map(|p| match p {
                    Piece::Sarif { results, .. } => results,
                    _ => Vec::new(),
                }),
                second.by_ref().flat_map(|p| match p {
                    Piece::Sarif { notifications, .. } => notifications,
                    _ => Vec::new(),
                }),
                &rest,
                sink,
            ),
            ReportFormat::Markdown => markdown::finish(
                pass.by_ref().filter_map(|p| match p {
                    Piece::Markdown { row, .. } => Some(row),
                    _ => None,
                }),
                second.by_ref().filter_map(|p| match p {
                    Piece::Markdown { section, .. } => Some(section),
                    _ => None,
                }),
                &rest,
                sink,
            ),
        }
        match pass.error.or(second.error) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Writer<'_> {
    /// Writes one compared link.
    pub fn link(&self, l: &LinkReport) -> Written {
        // The link's findings, made once for every piece and the tally.
        let findings = l.findings();
        let quiet = self.chatter == Chatter::Quiet;
        let piece = |format: ReportFormat| match format {
            ReportFormat::Human => {
                Piece::Text(human::link(l, &findings, self.policy, self.chatter))
            }
            ReportFormat::Json => Piece::Text(json::link(l, &findings, self.policy)),
            ReportFormat::Sarif => {
                let (results, notifications) = sarif::link(l, &findings);
                Piece::Sarif {
                    results,
                    notifications,
                }
            }
            ReportFormat::Github => Piece::Text(github::link(l, &findings, quiet)),
            ReportFormat::Markdown => {
                let (row, section) = markdown::link(l, &findings, self.policy);
                Piece::Markdown { row, section }
            }
            ReportFormat::Concise => Piece::Text(concise::link(&findings)),
        };
        let mut pieces = vec![piece(self.format)];
        if self.markdown_too {
            pieces.push(piece(ReportFormat::Markdown));
        }
        Written {
            tally: Tally::of(l, &findings),
            pieces,
        }
    }

    /// The report of the written links (in the run's order), the links
    /// that could not be compared, the links not run, the coverage findings
    /// and what became of the waivers, ready to print.
    pub fn finish(
        &self,
        links: spool::Spool,
        failures: Vec<Failure>,
        skipped: Vec<Skipped>,
        coverage: Vec<Finding>,
        waivers: Vec<Outcome>,
    ) -> Result<Pending, crate::error::Error> {
        Ok(Pending {
            format: self.format,
            quiet: self.chatter == Chatter::Quiet,
            markdown_too: self.markdown_too,
            links: links.close()?,
            failures,
            skipped,
            coverage,
            waivers,
        })
    }
}

/// What a report adds to its links: their counts, and the run's findings
/// that are not a link's.
pub struct Rest<'a> {
    /// The links' counts, added up.
    pub tally: &'a Tally,
    /// Links that could not be compared.
    pub failures: &'a [Failure],
    /// Links not run.
    pub skipped: &'a [Skipped],
    /// The run's findings that are no link's: deployments with no partner
    /// (coverage findings) and generators the state budget cut.
    pub coverage: &'a [Finding],
    /// What became of the waivers.
    pub waivers: &'a [Outcome],
}

/// How much the text formats (`human`, `concise`, `github`) print beside the
/// findings.
///
/// `Quiet` (`--quiet`) prints the findings only: each finding no waiver or
/// inline suppression silences (errors, warnings and notes; in `human` with
/// its source lines and a `= link:` line), each command that would not
/// start, each link that could not be compared and each expired waiver. It
/// leaves out link headers and side lines, normalized diffs, remarks on the
/// inputs, waived findings, unused waivers, skipped links and the summary
/// line: a run with no findings prints nothing. The exit code is the same.
/// `json`, `sarif` and `markdown` are documents and are printed whole.
/// `Full`, the default, counts the equivalences and the keys unknown on
/// both sides of each link in `human` output; `All` (`--show-equivalent`)
/// prints each (as `Quiet` prints each equivalence, a note).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Chatter {
    /// Everything, equivalences and keys unknown on both sides counted
    /// (the default).
    #[default]
    Full,
    /// Everything, each equivalence and shared unknown printed.
    All,
    /// The findings only.
    Quiet,
}

/// A value taken from an input as the text formats print it: secrets and
/// pieces of secrets masked, control characters (newlines too) escaped
/// (`crate::secret::value`). Every renderer passes input text through this
/// (or, for JSON, `crate::secret::mask_json`) where it renders it, before
/// its own escaping; the report's own words never are.
pub fn v(text: &str) -> String {
    crate::secret::value(text)
}

/// A finding's sentence as the text formats print it: its input values
/// through [`v`], its own words as they are.
pub fn text(t: &crate::finding::Text) -> String {
    t.masked(v)
}

/// Keys whose string values are the report's own words (a status, a kind,
/// a level), which `crate::secret::mask_json` leaves as they are.
pub const VOCABULARY_KEYS: &[&str] = &[
    "status",
    "kind",
    "class",
    "severity",
    "level",
    "ruleId",
    "source",
    "columnKind",
    "$schema",
    "tool",
    "id",
    "type",
    "engine",
];

/// Masks the input strings of a JSON tree the report built
/// (`crate::secret::mask_json`), before it is serialized.
pub fn mask_json(v: &mut serde_json::Value) {
    crate::secret::mask_json(v, VOCABULARY_KEYS);
}

/// A link's remarks beside its findings, in the order every format lists
/// them: a side's launch that may not run (it runs only under a condition
/// that is not knowable), the warnings about the link's inputs (an `env:`
/// that nothing read) and the sides' auxiliary launches (the SGLang router).
/// Each with its severity (`Warning` for warnings, `Info` for notes), where it
/// applies when that is known, and its text (input values not masked yet:
/// the caller renders it through [`v`] or [`mask_json`]).
pub fn remarks(l: &LinkReport) -> Vec<(Severity, Option<Span>, String)> {
    let mut out = Vec::new();
    for (label, side) in [("docs", &l.docs), ("recipe", &l.recipe)] {
        if let Some(crate::launch::Provenance::Unknown { reason }) =
            side.launch.launcher.first().map(|t| &t.provenance)
        {
            out.push((
                Severity::Info,
                Some(side.launch.span.clone()),
                format!("the {label} launch may not run: {reason}"),
            ));
        }
    }
    for w in &l.warnings {
        out.push((Severity::Warning, w.span.clone(), w.message.clone()));
    }
    for a in &l.auxiliary {
        out.push((Severity::Info, a.span.clone(), a.message.clone()));
    }
    out
}

/// Whether the text formats list a coverage finding one by one (a warning or
/// an error); information is counted in [`coverage_summary`].
pub fn coverage_listed(c: &Finding) -> bool {
    c.severity != Severity::Info
}

/// The coverage findings in one line (`coverage: 3 docs deployments with no
/// benchmark of their shape, 5 benchmark deployments with no docs deployment
/// of theirs`), or `None` when there are none.
pub fn coverage_summary(coverage: &[Finding]) -> Option<String> {
    if !coverage.iter().any(|c| c.unpaired().is_some()) {
        return None;
    }
    let count = |side: crate::space::Side| {
        coverage
            .iter()
            .filter(|c| c.unpaired().is_some_and(|u| u.side == side))
            .count()
    };
    let (d, r) = (
        count(crate::space::Side::Docs),
        count(crate::space::Side::Recipe),
    );
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    Some(format!(
        "coverage: {d} docs deployment{} with no benchmark of their shape ({}), {r} benchmark deployment{} with no docs deployment of theirs ({}); --format json lists each",
        plural(d),
        crate::pair::DOCS_UNPAIRED,
        plural(r),
        crate::pair::RECIPE_UNPAIRED
    ))
}

/// How many states a finding lists before `and N more`.
const SHOWN_STATES: usize = 3;

/// The states a generator's finding shows in (`in 2 states: a=1, b=2;
/// a=2, b=2 and 5 more`), masked, or `None` when it is about the
/// generator as a whole.
pub fn states_text(states: &[String]) -> Option<String> {
    listed("state", states)
}

/// The deployments a run's finding about commands is about (`in 2
/// deployments: a; b`), masked, or `None` for a link's finding.
pub fn deployments_text(deployments: &[String]) -> Option<String> {
    listed("deployment", deployments)
}

/// The first few of `items` (`in N {noun}s: a; b; c and K more`).
fn listed(noun: &str, items: &[String]) -> Option<String> {
    if items.is_empty() {
        return None;
    }
    let shown: Vec<String> = items.iter().take(SHOWN_STATES).map(|s| v(s)).collect();
    let more = items.len().saturating_sub(SHOWN_STATES);
    let n = items.len();
    Some(format!(
        "in {n} {noun}{}: {}{}",
        if n == 1 { "" } else { "s" },
        shown.join("; "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    ))
}

/// A link not run, in one sentence.
pub fn skipped_text(s: &Skipped) -> String {
    format!("skipped: {} ({})", v(&s.name), v(&s.reason))
}

/// What became of a waiver, in one sentence.
pub fn waiver_text(w: &Outcome) -> String {
    let what = match &w.waiver.at {
        Some(at) => format!(
            "the inline suppression of {} at {} ({})",
            v(&w.waiver.key),
            v(at),
            v(&w.waiver.reason)
        ),
        None => format!(
            "the waiver of {} on link \"{}\" (until {}: {})",
            v(&w.waiver.key),
            v(&w.waiver.link),
            v(&w.waiver.until),
            v(&w.waiver.reason)
        ),
    };
    match w.status {
        waiver::Status::Expired => format!("{what} has expired; renew it or fix the drift"),
        waiver::Status::Unused => format!("{what} matches no finding; remove it"),
        waiver::Status::Applied => format!(
            "{what} waives {} finding{}",
            w.waived,
            if w.waived == 1 { "" } else { "s" }
        ),
    }
}

/// How the formats name a severity: (severity, SARIF level, GitHub workflow
/// command). The human output uses `annotate-snippets`' levels (error, warning,
/// note).
const SEVERITY_WORDS: [(Severity, &str, &str); 3] = [
    (Severity::Error, "error", "error"),
    (Severity::Warning, "warning", "warning"),
    (Severity::Info, "note", "notice"),
];

fn severity_words(s: Severity) -> (&'static str, &'static str) {
    SEVERITY_WORDS
        .iter()
        .find(|w| w.0 == s)
        .map(|w| (w.1, w.2))
        .expect("a row per severity")
}

/// The policy class as messages spell it.
pub fn class_name(c: Class) -> &'static str {
    c.name()
}

/// The checkpoint facts that decided a finding's values (`docs: checkpoint.X =
/// V (from WHERE)`), one per line, or nothing when no rule read a fact.
pub fn facts_lines(f: &KeyValues) -> Vec<String> {
    let mut out = Vec::new();
    for (label, sv) in [("docs", &f.docs), ("recipe", &f.recipe)] {
        for hit in &sv.rules {
            for fact in &hit.facts {
                let line = format!("{label}: {fact} (rule {})", hit.id);
                if !out.contains(&line) {
                    out.push(line);
                }
            }
        }
    }
    out
}

/// A finding's one-line title after its rule ([`finding_line`]), with the
/// mark of the waiver that silenced it, if any.
pub fn finding_title(f: &Finding) -> String {
    let waived = match &f.about {
        About::Key(k) => k.waiver.as_ref().map(|w| format!(" [{}]", v(&w.mark()))),
        _ => None,
    };
    format!("{}{}", finding_line(f), waived.unwrap_or_default())
}

/// A finding's sentence with a key's policy class after it
/// (`tp_size differs: docs 4 vs recipe 8 (MAJOR)`), masked.
pub fn finding_line(f: &Finding) -> String {
    match &f.about {
        About::Key(k) => format!("{} ({})", text(&f.message), class_name(k.class)),
        _ => text(&f.message),
    }
}

/// A finding kind's rule as every format names it: its stable id and its
/// name (`RD001 contradicts`), from `findings.yaml`.
pub fn rule_label(kind: &str) -> String {
    match crate::finding::kind_info(kind) {
        Some(k) => format!("{} {}", k.id, k.name),
        None => kind.to_string(),
    }
}

/// A place in a file for annotations: the path as printed, and the line and column
/// when they are lines of that file (a rendered generator's lines are lines of its
/// rendered text, so a place there names the file only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The file's path as the inputs name it.
    pub path: String,
    /// 1-based line and column in that file.
    pub line_col: Option<(usize, usize)>,
    /// The span as printed elsewhere (`file [view]:line:col`).
    pub shown: String,
}

/// What a finding's fix does, in one line for the text formats
/// (`fix (safe): replace direct with kernel at page.md:31:24`, `fix
/// (unsafe, --unsafe-fixes applies it): ...; why`, `not fixable: why`), or
/// `None` when it has no fix.
pub fn fix_note(f: &Finding) -> Option<String> {
    use crate::finding::Applicability;
    let fix = f.fix.as_ref()?;
    Some(match &fix.applicability {
        Applicability::Safe => format!("fix (safe, --fix applies it): {}", fix.title),
        Applicability::Unsafe { why } => format!(
            "fix (unsafe, --fix --unsafe-fixes applies it): {}; {why}",
            fix.title
        ),
        Applicability::NotFixable { why } => format!("not fixable automatically: {why}"),
    })
}

/// The line under a command finding's headline: the release's rule, or
/// how the launch was read (`None` for other findings).
pub fn command_note(f: &Finding) -> Option<String> {
    match &f.about {
        About::Command {
            rule: Some((rule, reference)),
            ..
        } => Some(format!("rule {rule} ({reference})")),
        About::Command { side, .. } => {
            Some(format!("the {side} launch is compared as bash runs it"))
        }
        _ => None,
    }
}

/// Where a finding is annotated: its primary span as a file place.
pub fn finding_at(f: &Finding) -> Option<Place> {
    f.primary.as_ref().and_then(place)
}

/// Where a span is, as a file place, read from the span's typed origin (the
/// launch's file, another file the command reads, a URL, a rendered view);
/// `None` for text that is not a file (`<inline>` argv).
pub fn place(span: &Span) -> Option<Place> {
    let shown = span.to_string();
    let at = Some((span.pos.line, span.pos.col));
    match span.origin() {
        Origin::File(p) => Some(Place {
            path: crate::span::path_label(p),
            line_col: at,
            shown,
        }),
        // A rendered generator's text: the file, without a line (its lines
        // are the rendered text's).
        Origin::Rendered { file, .. } => Some(Place {
            path: crate::span::path_label(file),
            line_col: None,
            shown,
        }),
        // A remote file: its URL (or `github:` shorthand) is its path.
        Origin::Url(u) => Some(Place {
            path: u.clone(),
            line_col: at,
            shown,
        }),
        Origin::Inline(_) => None,
    }
}

/// The first place of a side value that is in a file.
pub fn value_place(sv: &SideValue) -> Option<Place> {
    sv.spans.iter().find_map(place)
}

/// Where an error is, read from its span, and its message; errors without a
/// position in a text (usage errors, remote failures, inline text) give `None`.
pub fn error_place(error: &crate::error::Error) -> Option<(Place, &str)> {
    Some((place(error.span()?)?, error.message()))
}

/// The unified diff of the two normalised commands, `None` when they are equal.
pub fn normalized_diff(l: &LinkReport, policy: &Policy) -> Option<String> {
    let keys = finding_keys(&l.comparison);
    let a = normalized(&l.docs, policy, &keys);
    let b = normalized(&l.recipe, policy, &keys);
    if a == b {
        return None;
    }
    let diff = similar::TextDiff::from_lines(&a, &b);
    Some(
        diff.unified_diff()
            .context_radius(3)
            .header("docs (normalized)", "recipe (normalized)")
            .to_string(),
    )
}

/// The normalised command of one side: every non-ignored key the text decides
/// (written, from context, or changed by a rule) to a known value, plus the keys of
/// findings, sorted, one per line.
pub fn normalized(side: &SideReport, policy: &Policy, extra_keys: &[&str]) -> String {
    let mut env_lines = Vec::new();
    let mut arg_lines = Vec::new();
    for (key, e) in &side.resolved.values {
        // The engine heads the command below.
        if policy.class(key) == Class::Ignore || e.inactive.is_some() || key == "engine" {
            continue;
        }
        // Unknowns are listed only where they matter (in a finding).
        let set = e.is_decided();
        if !set && !extra_keys.contains(&key.as_str()) {
            continue;
        }
        let val = v(&e.val.display());
        let key = v(key);
        if let Some(name) = key.strip_prefix("env:") {
            env_lines.push(format!("{name}={val}"));
        } else if key == "model" || key == "hardware" {
            arg_lines.push(format!("# {key}: {val}"));
        } else {
            // Dashes in the option's name, not in a JSON sub-key (vLLM's dotted form).
            let opt = match key.split_once('.') {
                Some((head, sub)) => format!("{}.{sub}", head.replace('_', "-")),
                None => key.replace('_', "-"),
            };
            arg_lines.push(match e.val.value() {
                Some(serde_json::Value::Bool(true)) => format!("--{opt}"),
                Some(serde_json::Value::Bool(false)) => format!("--{opt}=false"),
                Some(serde_json::Value::Null) => format!("--{opt} (unset)"),
                _ => format!("--{opt} {val}"),
            });
        }
    }
    let mut out = String::new();
    for l in env_lines {
        out.push_str(&l);
        out.push('\n');
    }
    out.push_str(&format!(
        "{} {}\n",
        side.resolved.engine,
        v(&side.resolved.version.version)
    ));
    for l in arg_lines {
        out.push_str("  ");
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// Keys that appear in findings (shown in both normalised commands).
pub fn finding_keys(c: &Comparison) -> Vec<&str> {
    c.findings.iter().map(|f| f.key.as_str()).collect()
}

#[cfg(test)]
mod tests {
    use crate::finding::{Severity, kinds};

    fn word(s: Severity) -> &'static str {
        match s {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }

    /// The table of finding kinds of the book's "Policy and findings" page, as
    /// `findings.yaml` has them: each kind's line of help, linking its page
    /// (`docs/src/findings/NAME.md`, with the description and the example).
    fn kinds_markdown() -> String {
        let mut s = String::from(
            "<!-- generated from src/findings.yaml; `cargo test --lib readme` checks it -->\n\
             | id | kind | severity (MAJOR / minor key) | what it reports |\n\
             | --- | --- | --- | --- |\n",
        );
        for k in kinds() {
            let severity = match k.minor {
                Some(m) => format!("{} / {}", word(k.severity), word(m)),
                None => word(k.severity).to_string(),
            };
            s.push_str(&format!(
                "| `{}` | [`{}`](findings/{}.md) | {severity} | {} |\n",
                k.id,
                k.name,
                k.name,
                k.help.replace('|', "\\|")
            ));
        }
        s
    }

    #[test]
    fn readme_lists_the_finding_kinds() {
        let page = include_str!("../../docs/src/policy.md");
        let table = kinds_markdown();
        assert!(
            page.contains(&table),
            "docs/src/policy.md's table of finding kinds is out of date; it should read:\n{table}"
        );
    }
}

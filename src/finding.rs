//! The findings of recipe-drift: the table of finding kinds (`findings.yaml`:
//! ids, names, severities, examples), the severities, and one [`Finding`]
//! type for every check (a key compared between two sides, a command as a
//! whole, a deployment with no partner, a generator's defect), with a
//! primary span and related spans, that every report format renders.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::policy::Class;
use crate::resolved::{RuleHit, Val, ValueSource};
use crate::span::Span;

/// What kind of difference a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Both sides set the key, to different values.
    Contradicts,
    /// One side sets a value the other leaves at a different default.
    Missing,
    /// Cannot be decided from the text.
    Unknown,
    /// Written differently, same after resolution.
    Equivalent,
    /// A side writes a setting that does nothing in its release.
    NoEffect,
}

impl Kind {
    /// Every kind `compare` reports, in rule-id order.
    pub const ALL: [Kind; 5] = [
        Kind::Contradicts,
        Kind::Missing,
        Kind::Unknown,
        Kind::Equivalent,
        Kind::NoEffect,
    ];

    /// The kind as messages spell it (`no-effect`; JSON spells it `no_effect`), the
    /// name of its row in the table.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Contradicts => "contradicts",
            Kind::Missing => "missing",
            Kind::Unknown => "unknown",
            Kind::Equivalent => "equivalent",
            Kind::NoEffect => "no-effect",
        }
    }

    /// This kind's row of the table.
    pub fn info(self) -> &'static KindInfo {
        kind_info(self.name()).expect("findings.yaml has a row per kind (checked when loaded)")
    }
}

/// The name of the table's row for a command the engine would not start (a finding
/// of the resolver, not of `compare`).
pub const STARTUP_ERROR: &str = "startup-error";

/// The name of the table's row for a generator with more reachable states than
/// the state budget (`--max-states`): its first states were read, the others
/// were not.
pub const STATE_BUDGET: &str = "state-budget";

/// The name of the table's row for a deployment whose prefill and decode
/// workers disagree on a key they must share (`src/space/roles.yaml`).
pub const CROSS_ROLE: &str = "cross-role";

/// The name of the table's row for a command that may run an engine release
/// newer than every bundled one, and for each word set aside because the
/// newest bundled release does not know it.
pub const NEWER_RELEASE: &str = "newer-release";

/// A row of the table of finding kinds (`findings.yaml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KindInfo {
    /// Stable rule id (`RD001`), SARIF's `ruleId`.
    pub id: String,
    /// The kind as messages spell it (`contradicts`).
    pub name: String,
    /// Severity on a MAJOR key; SARIF's default level.
    pub severity: Severity,
    /// Severity on a minor key (`severity` when absent).
    #[serde(default)]
    pub minor: Option<Severity>,
    /// One line of help (SARIF's `shortDescription`).
    pub help: String,
    /// What the kind means, in a few sentences.
    pub description: String,
    /// Why it matters to a reader of the docs or of the benchmark (Markdown).
    pub why: String,
    /// How to repair what it reports (Markdown).
    pub fix: String,
    /// How to accept or quiet it, or why it cannot be (Markdown).
    pub waive: String,
    /// The `recipe-drift` arguments whose output the kind's page shows, for a
    /// row without [`KindInfo::example`] (a row with one shows `compare` on
    /// its two commands).
    #[serde(default)]
    pub run: Option<String>,
    /// Two commands that make this finding (the kinds `check` reports).
    #[serde(default)]
    pub example: Option<Example>,
    /// A fixture that makes this finding (the kinds only `lint-docs` reports).
    #[serde(default)]
    pub lint: Option<LintExample>,
    /// The coverage kinds of pairing (`check --docs-root --inferencex`).
    #[serde(default)]
    pub coverage: Option<CoverageExample>,
    /// A budget's cut, which `check`'s pairing and `lint-docs` report.
    #[serde(default)]
    pub budget: Option<BudgetExample>,
    /// The roles of one deployment checked against each other (`cross-role`).
    #[serde(default)]
    pub roles: Option<RolesExample>,
}

/// A `cross-role` row's example: an InferenceX checkout of ours whose
/// entry's srt-slurm recipe sets a key on one role only; tests/multinode.rs
/// runs `check` on it and expects the finding.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RolesExample {
    /// The InferenceX checkout, from the repository root.
    pub inferencex: String,
    /// The entry whose deployment has the disagreement.
    pub entry: String,
    /// Words the finding's message holds.
    pub says: String,
}

/// A budget row's example: a page of ours under a docs root whose generator
/// has more states than `max-states`; tests/pairing.rs runs `check` and
/// `lint-docs` on it with that budget and expects the finding.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct BudgetExample {
    /// The docs root (the page's imports resolve against it).
    pub docs_root: String,
    /// The page, from the repository root.
    pub fixture: String,
    /// The state budget the example runs with (`--max-states`).
    pub max_states: usize,
    /// Words the finding's message holds.
    pub says: String,
}

/// A coverage row's facts: which side's deployments it is about, and the
/// words its message holds (tests/pairing.rs makes one of each).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoverageExample {
    /// `docs` or `recipe`.
    pub side: String,
    /// Words the finding's message holds.
    pub says: String,
}

/// A `lint-docs` row's example: a fixture generator with one defect of the kind.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LintExample {
    /// The fixture's path from the repository root.
    pub fixture: String,
    /// Words the finding's message holds.
    pub says: String,
    /// The explorer data the rule waits for, when it cannot run yet.
    #[serde(default)]
    pub pending: Option<String>,
    /// `check` reports it too, on the side whose text has it (a defect of a
    /// command's text, not of a generator).
    #[serde(default)]
    pub check: bool,
}

impl KindInfo {
    /// The severity of this kind on a key of `class` (ignored keys make no findings).
    pub fn severity_for(&self, class: Class) -> Severity {
        match class {
            Class::Major => self.severity,
            Class::Minor | Class::Ignore => self.minor.unwrap_or(self.severity),
        }
    }
}

/// A row's example: a docs and a recipe command that make a finding of that kind.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Example {
    /// The engine release both sides run.
    pub engine_version: String,
    /// The hardware SKU of both sides, if any.
    #[serde(default)]
    pub hardware: Option<String>,
    /// The docs command.
    pub docs: String,
    /// The recipe command.
    pub recipe: String,
    /// The key of the finding (none for a startup error).
    #[serde(default)]
    pub key: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KindTable {
    kinds: Vec<KindInfo>,
}

const KINDS: &str = include_str!("findings.yaml");

/// The table of finding kinds, in rule-id order (`RD001`, `RD002`, ...). Checked when
/// loaded: ids numbered in order, a row with an `example` for every [`Kind`] and for
/// startup errors, then rows with a `lint` example (`lint-docs`' kinds), a
/// `coverage` one (pairing's) or a `budget` one (a budget's cut).
pub fn kinds() -> &'static [KindInfo] {
    static TABLE: OnceLock<Vec<KindInfo>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let table: KindTable = serde_saphyr::from_str(KINDS).expect("bundled findings.yaml");
        let rows = table.kinds;
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(
                row.id,
                format!("RD{:03}", i + 1),
                "findings.yaml: ids in order"
            );
        }
        let mut names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
        names.push(STARTUP_ERROR);
        let rows_names: Vec<&str> = rows
            .iter()
            .take_while(|r| r.example.is_some())
            .map(|r| r.name.as_str())
            .collect();
        assert_eq!(
            rows_names, names,
            "findings.yaml: one row per kind, in order"
        );
        // Then the lint, coverage and budget rows, in the order they were
        // added (ids are never renumbered).
        for row in &rows[names.len()..] {
            let examples = [
                row.lint.is_some(),
                row.coverage.is_some(),
                row.budget.is_some(),
                row.roles.is_some(),
            ];
            assert!(
                row.example.is_none() && examples.iter().filter(|e| **e).count() == 1,
                "findings.yaml: {} after the compare kinds has one `lint`, `coverage`, `budget` or `roles` example",
                row.id
            );
        }
        rows
    })
}

/// The row of the table named `name` (`contradicts`, ..., `startup-error`).
pub fn kind_info(name: &str) -> Option<&'static KindInfo> {
    kinds().iter().find(|k| k.name == name)
}

/// How serious a finding is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// MAJOR drift: fails the check.
    Error,
    /// MAJOR key that cannot be decided.
    Warning,
    /// Minor drift or an equivalence.
    Info,
}

/// One side of a finding.
#[derive(Debug, Clone, Serialize)]
pub struct SideValue {
    /// The resolved value.
    #[serde(flatten)]
    pub val: Val,
    /// Where it came from.
    pub source: ValueSource,
    /// How it was written, if written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written: Option<String>,
    /// Where it was written.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spans: Vec<Span>,
    /// Rules that changed it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleHit>,
    /// Why the setting does nothing in this side's release, if so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_effect: Option<String>,
}

impl SideValue {
    /// Whether the text decides this value (written, from context, or via a rule).
    pub fn is_set(&self) -> bool {
        matches!(
            self.source,
            ValueSource::Cli | ValueSource::Env | ValueSource::Context
        ) || !self.rules.is_empty()
    }
}

/// One finding of any check, as every report format renders it: a key
/// compared between a link's two sides, a side's command as a whole, a
/// deployment with no partner, or a generator's defect. Each format has one
/// writer for it (`crate::report`); `lint-docs`, `check` and `compare` all
/// report through them.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The kind: the name of its row in `findings.yaml`.
    pub kind: &'static str,
    /// The severity it counts with (information when a waiver or an inline
    /// suppression silenced it).
    pub severity: Severity,
    /// What it says, in one sentence: the report's own words and input
    /// values kept apart, so every format masks the inputs (and only them)
    /// where it renders them.
    pub message: Text,
    /// Where it is, when it has a place.
    pub primary: Option<Span>,
    /// Other places it names, each with what it is there.
    pub related: Vec<Related>,
    /// The link or pair it belongs to (findings of a comparison).
    pub link: Option<String>,
    /// What the check that made it knows beside (the values of a key, the
    /// nearest deployment, the states of a generator).
    pub about: About,
    /// How to change the text so the finding goes away, or why it cannot
    /// be changed automatically; `None` when the check offers nothing.
    pub fix: Option<Fix>,
}

/// A fix of a finding: the edits that make the drifting text say what the
/// other side says, and how safe applying them is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    /// What the fix does, in one sentence (`replace direct with kernel`).
    pub title: String,
    /// The edits, in text order; empty when the fix is not applicable.
    pub edits: Vec<Edit>,
    /// Whether applying it is safe, unsafe, or not possible.
    pub applicability: Applicability,
    /// For an edit of a generator's literal that other states print too:
    /// the state the finding is about and those others. A run that finds
    /// the same fix in every one of them (they all drift the same way)
    /// applies it as safe.
    pub shared: Option<Shared>,
    /// The value a key finding's fix changes and the file whose command
    /// shows it: `check --fix` carries the change into that page's prose
    /// (`fix::prose`).
    pub change: Option<Change>,
}

/// A key's docs value a fix changes into the recipe's (see [`Fix::change`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The canonical key.
    pub key: String,
    /// The docs value as written, quotes removed.
    pub old: String,
    /// The recipe's value.
    pub new: String,
    /// The docs file the command is read from (a page, a generator).
    pub file: std::path::PathBuf,
}

/// The states a generator literal's edit changes (see [`Fix::shared`]),
/// each named `FILE [<Component /> selection]` as a rendered view's span is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shared {
    /// The state of the finding the fix belongs to.
    pub own: String,
    /// The other states whose commands the edit changes.
    pub others: Vec<String>,
}

/// One replacement of a byte range of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The written text it replaces (its file, byte range and position).
    pub span: Span,
    /// The text put in its place.
    pub replacement: String,
}

/// How safe a fix is to apply, as ruff defines fix safety: a safe fix
/// changes only the drifting token; an unsafe one may change other states
/// or pages (applied with `--unsafe-fixes` only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applicability {
    /// Changes only the drifting token: `check --fix` applies it.
    Safe,
    /// May change what other states or pages say: applied only with
    /// `--unsafe-fixes`.
    Unsafe {
        /// Why it is unsafe.
        why: String,
    },
    /// No fix can be written automatically.
    NotFixable {
        /// Why (where the value comes from, when that is known).
        why: String,
    },
}

impl Applicability {
    /// The word reports print for it: `safe`, `unsafe`, `not fixable`.
    pub fn name(&self) -> &'static str {
        match self {
            Applicability::Safe => "safe",
            Applicability::Unsafe { .. } => "unsafe",
            Applicability::NotFixable { .. } => "not fixable",
        }
    }

    /// The reason, for an unsafe or unfixable fix.
    pub fn why(&self) -> Option<&str> {
        match self {
            Applicability::Safe => None,
            Applicability::Unsafe { why } | Applicability::NotFixable { why } => Some(why),
        }
    }
}

impl Fix {
    /// A fix that cannot be made, and why.
    pub fn not_fixable(why: impl Into<String>) -> Fix {
        Fix {
            title: String::new(),
            edits: Vec::new(),
            applicability: Applicability::NotFixable { why: why.into() },
            shared: None,
            change: None,
        }
    }

    /// Whether a run applies it: safe fixes always, unsafe ones with
    /// `unsafe_fixes`, unfixable ones never.
    pub fn applies(&self, unsafe_fixes: bool) -> bool {
        !self.edits.is_empty()
            && match self.applicability {
                Applicability::Safe => true,
                Applicability::Unsafe { .. } => unsafe_fixes,
                Applicability::NotFixable { .. } => false,
            }
    }
}

/// A sentence of the report: its own words and input values (a key, a
/// value, a message read from an input) kept apart. Text formats mask and
/// escape the input values only, so an input can never mask or forge the
/// report's own words; [`Text::plain`] joins them as they are (JSON and
/// SARIF mask whole strings when they serialize).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Text(Vec<(Part, String)>);

/// Whose words a piece of a [`Text`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// The report's own words.
    Own,
    /// Text taken from an input.
    Input,
}

impl Text {
    /// A sentence that starts with the report's own words.
    pub fn own(s: impl Into<String>) -> Text {
        Text(vec![(Part::Own, s.into())])
    }

    /// A sentence that starts with an input value.
    pub fn input(s: impl Into<String>) -> Text {
        Text(vec![(Part::Input, s.into())])
    }

    /// Adds the report's own words.
    pub fn and(mut self, s: impl Into<String>) -> Text {
        self.0.push((Part::Own, s.into()));
        self
    }

    /// Adds an input value.
    pub fn and_input(mut self, s: impl Into<String>) -> Text {
        self.0.push((Part::Input, s.into()));
        self
    }

    /// The sentence with each input value passed through `mask` (the text
    /// formats' masking and escaping).
    pub fn masked(&self, mask: impl Fn(&str) -> String) -> String {
        self.0
            .iter()
            .map(|(part, s)| match part {
                Part::Own => s.clone(),
                Part::Input => mask(s),
            })
            .collect()
    }

    /// The sentence as it is, nothing masked.
    pub fn plain(&self) -> String {
        self.0.iter().map(|(_, s)| s.as_str()).collect()
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.plain())
    }
}

impl Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Another place a finding names.
#[derive(Debug, Clone)]
pub struct Related {
    /// Where.
    pub span: Span,
    /// What is there (`recipe: kernel`, `nearest: NAME`), if anything is said.
    pub label: Option<String>,
}

/// What a finding is about: the facts of the check that made it.
#[derive(Debug, Clone)]
pub enum About {
    /// A key compared between a link's docs and recipe sides.
    Key(Box<KeyValues>),
    /// One side's command as a whole: its release would not start it, or
    /// its text does not run as it reads.
    Command {
        /// `docs` or `recipe`.
        side: &'static str,
        /// What happens to the command (`the docs command would not start`).
        headline: String,
        /// The engine's or the extractor's own message.
        detail: String,
        /// The release's rule and its upstream reference (a startup error).
        rule: Option<(String, String)>,
        /// Whether the primary place is the finding's own (the refused
        /// word, the comment), not the side's launch line.
        own_place: bool,
        /// For a run's finding (no link): the deployments whose command it
        /// is (their labels, in input order); empty for a link's finding.
        deployments: Vec<String>,
    },
    /// A deployment with no partner of its shape on the other side.
    Deployment(Box<Unpaired>),
    /// A generator's defect (`lint-docs`).
    Generator {
        /// The generator's name.
        generator: String,
        /// What is wrong, in one sentence (the rule's own message).
        detail: String,
        /// The selections of the states that show it (`key=value, ...`),
        /// in exploration order; empty for the generator as a whole.
        states: Vec<String>,
    },
}

/// A key's values on both sides of a link.
#[derive(Debug, Clone)]
pub struct KeyValues {
    /// Canonical key.
    pub key: String,
    /// Kind of difference.
    pub kind: Kind,
    /// The key's policy class.
    pub class: Class,
    /// The docs side.
    pub docs: SideValue,
    /// The recipe side.
    pub recipe: SideValue,
    /// The waiver or inline suppression that silenced it, if any.
    pub waiver: Option<Waived>,
}

/// The waiver or inline suppression that silenced a key's finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waived {
    /// Why the divergence is accepted.
    pub reason: String,
    /// The last day the waiver applies (`YYYY-MM-DD`).
    pub until: String,
    /// An inline suppression's place (`file:line:col`); it does not expire.
    pub at: Option<String>,
}

impl Waived {
    /// How the finding is marked: `waived until DATE: reason`, or
    /// `suppressed at FILE:LINE:COL: reason` for an inline suppression.
    pub fn mark(&self) -> String {
        match &self.at {
            Some(at) => format!("suppressed at {at}: {}", self.reason),
            None => format!("waived until {}: {}", self.until, self.reason),
        }
    }
}

/// A deployment with no partner: which side it is on, what it is, and the
/// nearest candidate on the other side.
#[derive(Debug, Clone, Serialize)]
pub struct Unpaired {
    /// The side of the deployment.
    pub side: crate::space::Side,
    /// The deployment.
    pub deployment: String,
    /// Its identity.
    pub identity: crate::space::Identity,
    /// Its shape.
    pub shape: crate::space::Shape,
    /// The nearest deployment on the other side, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nearest: Option<crate::space::Nearest>,
    /// What is missing, in one sentence (without the deployment's name).
    pub why: String,
}

impl Finding {
    /// The row of the table this finding is of.
    pub fn info(&self) -> Option<&'static KindInfo> {
        kind_info(self.kind)
    }

    /// The kind's stable id (`RD001`), empty for a kind the table lacks.
    pub fn id(&self) -> &'static str {
        self.info().map_or("", |k| k.id.as_str())
    }

    /// The deployment it is about, when it is a coverage finding.
    pub fn unpaired(&self) -> Option<&Unpaired> {
        match &self.about {
            About::Deployment(u) => Some(u),
            _ => None,
        }
    }

    /// The finding of a generator `generator` (placed `at`: its tag on the
    /// page or its definition) whose exploration the state budget cut after
    /// `states` states (`state-budget`): what was read and what was not, and
    /// how to read more (every command that explores has `--max-states`).
    /// `done` says what became of the states read (`read and checked`).
    pub fn state_budget(generator: &str, at: Span, states: usize, done: &str) -> Finding {
        let plural = if states == 1 { "" } else { "s" };
        let detail = format!(
            "has more than {states} reachable states (the state budget): the first {states} state{plural} (breadth-first, the same on every run) were {done}, the others were not read; raise the budget with --max-states N to read more"
        );
        Finding {
            kind: STATE_BUDGET,
            severity: kind_info(STATE_BUDGET).map_or(Severity::Warning, |k| k.severity),
            message: Text::own("<")
                .and_input(generator)
                .and(" />: ")
                .and(detail.clone()),
            primary: Some(at),
            related: Vec::new(),
            link: None,
            about: About::Generator {
                generator: generator.to_string(),
                detail,
                states: Vec::new(),
            },
            fix: None,
        }
    }

    /// Whether a waiver or an inline suppression silenced it.
    pub fn waived(&self) -> bool {
        matches!(&self.about, About::Key(k) if k.waiver.is_some())
    }
}

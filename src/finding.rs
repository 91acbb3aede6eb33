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
    /// Two commands that make this finding (the kinds `check` reports).
    #[serde(default)]
    pub example: Option<Example>,
    /// A fixture that makes this finding (the kinds only `lint-docs` reports).
    #[serde(default)]
    pub lint: Option<LintExample>,
    /// The coverage kinds of pairing (`check --docs-root --inferencex`).
    #[serde(default)]
    pub coverage: Option<CoverageExample>,
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
/// startup errors, then rows with a `lint` example (`lint-docs`' kinds) or a
/// `coverage` one (pairing's).
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
        // Then the lint and coverage rows, in the order they were added
        // (ids are never renumbered).
        for row in &rows[names.len()..] {
            assert!(
                row.example.is_none() && (row.lint.is_some() != row.coverage.is_some()),
                "findings.yaml: {} after the compare kinds has a `lint` or a `coverage` example, not both",
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

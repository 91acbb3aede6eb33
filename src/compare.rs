//! `Resolved` x `Resolved` -> `Finding`s under a policy.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::engine::argparse::py_eq;
use crate::policy::{Class, Policy, UnknownRule};
use crate::resolved::{Entry, Resolved, RuleHit, Val, ValueSource};
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
    fn from(e: Option<&Entry>, side: &Resolved, key: &str) -> SideValue {
        match e {
            Some(e) => SideValue {
                val: e.val.clone(),
                source: e.source,
                written: e.written.clone(),
                spans: e.spans.clone(),
                rules: e.rules.clone(),
                no_effect: e.no_effect.clone(),
            },
            None => SideValue {
                val: side.absent(key),
                source: match side.absent(key) {
                    Val::Unknown { .. } => ValueSource::Unknown,
                    Val::Known { .. } => ValueSource::Default,
                },
                written: None,
                spans: vec![],
                rules: vec![],
                no_effect: None,
            },
        }
    }

    /// Whether the text decides this value (written, from context, or via a rule).
    pub fn is_set(&self) -> bool {
        matches!(
            self.source,
            ValueSource::Cli | ValueSource::Env | ValueSource::Context
        ) || !self.rules.is_empty()
    }
}

/// One difference (or equivalence) between the two sides.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// Canonical key.
    pub key: String,
    /// Kind of difference.
    pub kind: Kind,
    /// The key's policy class.
    pub class: Class,
    /// Severity.
    pub severity: Severity,
    /// The docs side.
    pub docs: SideValue,
    /// The recipe side.
    pub recipe: SideValue,
}

/// Keys unknown on both sides for the same reason: the same inputs decide them alike.
#[derive(Debug, Clone, Serialize)]
pub struct SharedUnknown {
    /// Canonical key.
    pub key: String,
    /// The shared reason.
    pub reason: String,
}

/// The comparison of two resolved launches (empty when a side does not
/// start, so nothing is compared).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Comparison {
    /// Findings, most severe first, then by key.
    pub findings: Vec<Finding>,
    /// MAJOR keys unknown on both sides for the same reason.
    pub shared_unknowns: Vec<SharedUnknown>,
}

impl Comparison {
    /// Whether any finding is an error (MAJOR drift), as compared: waivers are the
    /// reports' filter (`crate::waiver::filter`), not applied here.
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }
}

/// Compares docs and recipe under a policy.
pub fn compare(docs: &Resolved, recipe: &Resolved, policy: &Policy) -> Comparison {
    // Both maps are sorted: merge their keys.
    let mut keys: Vec<&String> = Vec::with_capacity(docs.values.len().max(recipe.values.len()));
    let (mut a, mut b) = (
        docs.values.keys().peekable(),
        recipe.values.keys().peekable(),
    );
    loop {
        match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if x == y => {
                keys.push(a.next().unwrap());
                b.next();
            }
            (Some(x), Some(y)) if x < y => keys.push(a.next().unwrap()),
            (Some(_), Some(_)) | (None, Some(_)) => keys.push(b.next().unwrap()),
            (Some(_), None) => keys.push(a.next().unwrap()),
            (None, None) => break,
        }
    }
    let mut findings = Vec::new();
    let mut shared_unknowns = Vec::new();
    // Per side (docs, recipe, both): keys unknown only under an open prefix
    // against a default on the other side (or open on both sides), and how
    // many of them are MAJOR.
    let mut open = [(0usize, 0usize); 3];
    // Settings that do nothing in a side's release: a finding of their own.
    for key in &keys {
        let de = docs.values.get(*key);
        let re = recipe.values.get(*key);
        let no_effect = |e: Option<&Entry>| e.is_some_and(|e| e.no_effect.is_some());
        if !no_effect(de) && !no_effect(re) {
            continue;
        }
        let class = policy.class(key);
        if class == Class::Ignore {
            continue;
        }
        findings.push(Finding {
            key: (*key).clone(),
            kind: Kind::NoEffect,
            class,
            severity: Kind::NoEffect.info().severity_for(class),
            docs: SideValue::from(de, docs, key),
            recipe: SideValue::from(re, recipe, key),
        });
    }
    for key in keys {
        let de = docs.values.get(key);
        let re = recipe.values.get(key);
        // Fast path: both sides at the same untouched default.
        if let (Some(d), Some(r)) = (de, re)
            && d.source == ValueSource::Default
            && r.source == ValueSource::Default
            && d.rules.is_empty()
            && r.rules.is_empty()
            && d.val == r.val
        {
            continue;
        }
        // A key that has no effect on either side is not compared (the key that
        // switches it on is; a setting the release does not read is reported above).
        if de.is_some_and(|e| e.inactive.is_some() || e.no_effect.is_some())
            || re.is_some_and(|e| e.inactive.is_some() || e.no_effect.is_some())
        {
            continue;
        }
        // Across engines, defaults and rule-derived values differ by design: only
        // keys a side writes (or takes from the context) are compared.
        if docs.engine != recipe.engine
            && !de.is_some_and(|e| e.is_explicit())
            && !re.is_some_and(|e| e.is_explicit())
        {
            continue;
        }
        // A key only one side's engine or release has is compared only when that
        // side decides it.
        if (de.is_none() && !re.is_some_and(entry_is_set))
            || (re.is_none() && !de.is_some_and(entry_is_set))
        {
            continue;
        }
        let class = policy.class(key);
        if class == Class::Ignore {
            continue;
        }
        // One side's value is unknown only because its key lies under an
        // open prefix (code that was not evaluated may have exported any
        // variable), and the other side leaves it at its default: nothing
        // in either text points at this key. Such keys are reported
        // together, once per side ([`open_prefix_finding`]).
        if let Some(side) = open_against_default(key, de, docs, re, recipe) {
            let o = &mut open[side];
            o.0 += 1;
            if class == Class::Major {
                o.1 += 1;
            }
            continue;
        }
        let (d_absent, r_absent) = (docs.absent(key), recipe.absent(key));
        let dv = de.map(|e| &e.val).unwrap_or(&d_absent);
        let rv = re.map(|e| &e.val).unwrap_or(&r_absent);
        let d_set = de.is_some_and(entry_is_set);
        let r_set = re.is_some_and(entry_is_set);
        let kind = match (dv, rv) {
            (Val::Known { value: a }, Val::Known { value: b }) => {
                if values_equal(a, b) {
                    let differs = de.and_then(|e| e.written.as_deref())
                        != re.and_then(|e| e.written.as_deref())
                        || de.map(|e| e.source) != re.map(|e| e.source);
                    // Context (hardware, engine) equal on both sides is agreement,
                    // however each side learnt it.
                    let both_context = de.is_some_and(|e| e.source == ValueSource::Context)
                        && re.is_some_and(|e| e.source == ValueSource::Context);
                    if (d_set || r_set) && differs && !both_context {
                        Kind::Equivalent
                    } else {
                        continue;
                    }
                } else if d_set == r_set {
                    Kind::Contradicts
                } else {
                    Kind::Missing
                }
            }
            (Val::Unknown { reason: a, .. }, Val::Unknown { reason: b, .. }) if a == b => {
                if class == Class::Major {
                    shared_unknowns.push(SharedUnknown {
                        key: key.clone(),
                        reason: a.clone(),
                    });
                }
                continue;
            }
            // One side sets a MAJOR value, the other cannot be decided: the
            // equivalence is not shown, so it counts as missing (InferenceX's
            // rule), unless the policy relaxes it to a warning.
            (Val::Known { .. }, Val::Unknown { .. }) | (Val::Unknown { .. }, Val::Known { .. })
                if class == Class::Major
                    && policy.unknown() == UnknownRule::Missing
                    && if matches!(dv, Val::Known { .. }) {
                        de.is_some_and(written)
                    } else {
                        re.is_some_and(written)
                    } =>
            {
                Kind::Missing
            }
            _ => Kind::Unknown,
        };
        findings.push(Finding {
            key: key.clone(),
            kind,
            class,
            severity: kind.info().severity_for(class),
            docs: SideValue::from(de, docs, key),
            recipe: SideValue::from(re, recipe, key),
        });
    }
    for (side, (count, major)) in open.into_iter().enumerate() {
        if count > 0 {
            findings.push(open_prefix_finding(side, count, major, docs, recipe));
        }
    }
    findings.sort_by(|a, b| (a.severity, a.kind, &a.key).cmp(&(b.severity, b.kind, &b.key)));
    Comparison {
        findings,
        shared_unknowns,
    }
}

/// The key of the finding that stands for a side's open environment.
pub const OPEN_ENV_KEY: &str = "env:*";

/// The side (0 docs, 1 recipe) whose value for `key` is unknown only because
/// the key lies under one of its open prefixes (`unlisted`, e.g. `env:` when
/// code that was not evaluated may have exported any variable), while the
/// other side does not set the key (its default, or absent); 2 when both
/// sides are open there and neither sets the key.
fn open_against_default(
    key: &str,
    de: Option<&Entry>,
    docs: &Resolved,
    re: Option<&Entry>,
    recipe: &Resolved,
) -> Option<usize> {
    let placeholder = |e: Option<&Entry>, side: &Resolved| {
        let open = side.env_open.is_some() && key.starts_with("env:");
        open && match e {
            None => true,
            Some(e) => e.source == ValueSource::Unknown && e.spans.is_empty() && e.rules.is_empty(),
        }
    };
    let unset = |e: Option<&Entry>| !e.is_some_and(entry_is_set);
    match (placeholder(de, docs), placeholder(re, recipe)) {
        (true, true) => Some(2),
        (true, false) if unset(re) => Some(0),
        (false, true) if unset(de) => Some(1),
        _ => None,
    }
}

/// One finding for the engine variables a side's open environment may set,
/// which the other side leaves at their defaults (`side` 0 docs, 1 recipe),
/// or which neither side sets while both are open (`side` 2): `count` of
/// them, `major` MAJOR. MAJOR when any is, as each of them could drift.
fn open_prefix_finding(
    side: usize,
    count: usize,
    major: usize,
    docs: &Resolved,
    recipe: &Resolved,
) -> Finding {
    let class = if major > 0 {
        Class::Major
    } else {
        Class::Minor
    };
    let cause = |r: &Resolved| {
        r.env_open
            .clone()
            .unwrap_or_else(|| "code that was not evaluated".to_string())
    };
    let unknown = |what: String| SideValue {
        val: Val::unknown(what),
        source: ValueSource::Unknown,
        written: None,
        spans: vec![],
        rules: vec![],
        no_effect: None,
    };
    let variables = format!("{count} engine variables ({major} MAJOR)");
    let leaves = |other: usize| {
        format!(
            "{variables} that {} at their defaults",
            ["the docs leave", "the recipe leaves"][other]
        )
    };
    let (d, r) = match side {
        // Both open: neither side is at its defaults, each is unknown for
        // its own cause.
        2 => {
            let neither = format!("{variables} that neither side sets");
            (
                unknown(format!(
                    "{neither} may have been exported by {}",
                    cause(docs)
                )),
                unknown(format!(
                    "{neither} may have been exported by {}",
                    cause(recipe)
                )),
            )
        }
        _ => {
            let (open, other) = if side == 0 { (docs, 1) } else { (recipe, 0) };
            let open_side = unknown(format!(
                "{} may have been exported by {}",
                leaves(other),
                cause(open)
            ));
            let defaults = SideValue {
                val: Val::known(serde_json::Value::Null),
                source: ValueSource::Default,
                written: None,
                spans: vec![],
                rules: vec![],
                no_effect: None,
            };
            if side == 0 {
                (open_side, defaults)
            } else {
                (defaults, open_side)
            }
        }
    };
    Finding {
        key: OPEN_ENV_KEY.to_string(),
        kind: Kind::Unknown,
        class,
        severity: Kind::Unknown.info().severity_for(class),
        docs: d,
        recipe: r,
    }
}

/// Whether the command itself writes an entry (an option or an env var; not
/// the context, a default or a rule).
fn written(e: &Entry) -> bool {
    matches!(e.source, ValueSource::Cli | ValueSource::Env)
}

/// Whether the text decides an entry (written, from context, or via a rule).
fn entry_is_set(e: &Entry) -> bool {
    e.is_explicit() || !e.rules.is_empty()
}

/// Equality after resolution: numbers by value, lists element-wise.
pub fn values_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        // JSON written in a string argument compares as JSON.
        (Value::String(x), Value::String(y))
            if x != y
                && x.trim_start().starts_with(['{', '['])
                && y.trim_start().starts_with(['{', '[']) =>
        {
            match (
                serde_json::from_str::<Value>(x),
                serde_json::from_str::<Value>(y),
            ) {
                (Ok(p), Ok(q)) => p == q,
                _ => false,
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| values_equal(p, q))
        }
        _ => py_eq(a, b),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use super::*;
    use crate::extract::{InputKind, extract_source};
    use crate::policy::ClassLists;
    use crate::resolved::ResolveOptions;
    use crate::span::{Origin, Source};

    /// The ids are stable (SARIF consumers key alerts on them): deleting, renaming or
    /// renumbering a row fails here.
    #[test]
    fn the_table_names_every_kind_with_a_stable_id() {
        let rows: Vec<(&str, &str)> = kinds()
            .iter()
            .map(|k| (k.id.as_str(), k.name.as_str()))
            .collect();
        assert_eq!(
            rows,
            [
                ("RD001", "contradicts"),
                ("RD002", "missing"),
                ("RD003", "unknown"),
                ("RD004", "equivalent"),
                ("RD005", "no-effect"),
                ("RD006", "startup-error"),
                ("RD007", "generator-crash"),
                ("RD008", "no-command"),
                ("RD009", "disabled-selected"),
                ("RD010", "duplicate-flag"),
                ("RD011", "dead-option"),
                ("RD012", "disabled-no-reason"),
                ("RD013", "docs-unpaired"),
                ("RD014", "recipe-unpaired"),
                ("RD015", "broken-continuation"),
            ]
        );
        for k in Kind::ALL {
            assert_eq!(k.info().name, k.name());
        }
        for k in kinds() {
            assert!(!k.help.trim().is_empty(), "{}: help", k.id);
            assert!(!k.help.contains('\n'), "{}: help is one line", k.id);
            assert!(!k.description.trim().is_empty(), "{}: description", k.id);
        }
    }

    fn resolve(text: &str, ex: &Example) -> Resolved {
        let src = Arc::new(Source::new(Origin::Inline("example".into()), text.into()));
        let launch = extract_source(&src, InputKind::Command, &BTreeMap::new())
            .unwrap()
            .remove(0);
        crate::engine::resolve(
            &launch,
            &ResolveOptions {
                engine_version: Some(ex.engine_version.clone()),
                platform: None,
                hardware: ex.hardware.clone(),
                origin: None,
                checkpoints: None,
            },
        )
        .unwrap()
    }

    /// Each row's example makes a finding of that kind, with the row's severity on a
    /// MAJOR key and its minor severity when the policy makes the key minor.
    #[test]
    fn every_example_makes_its_finding() {
        for k in kinds() {
            let Some(ex) = &k.example else {
                continue;
            };
            let (docs, recipe) = (resolve(&ex.docs, ex), resolve(&ex.recipe, ex));
            if k.name == STARTUP_ERROR {
                assert!(!docs.startup_errors.is_empty(), "{}: docs", k.id);
                assert!(recipe.startup_errors.is_empty(), "{}: recipe", k.id);
                continue;
            }
            let key = ex
                .key
                .as_deref()
                .expect("a compare kind's example names its key");
            let found = |policy: &Policy| {
                compare(&docs, &recipe, policy)
                    .findings
                    .into_iter()
                    .find(|f| f.key == key && f.kind.name() == k.name)
                    .unwrap_or_else(|| panic!("{}: no {} finding on {key}", k.id, k.name))
            };
            let major = found(&Policy::default());
            assert_eq!(major.class, Class::Major, "{}: the example's key", k.id);
            assert_eq!(major.severity, k.severity, "{}", k.id);
            let minor = found(&Policy::with_overrides(ClassLists {
                unknown: None,
                minor: vec![key.to_string()],
                ..ClassLists::default()
            }));
            assert_eq!(minor.severity, k.severity_for(Class::Minor), "{}", k.id);
        }
    }

    /// `compare` knows nothing of waivers or reports (it sits below both).
    #[test]
    fn compare_imports_neither_waivers_nor_reports() {
        let src = include_str!("compare.rs");
        // Code, not comments, before the tests.
        let code: String = src[..src.find("#[cfg(test)]").unwrap()]
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect();
        for m in ["waiver", "report", "link"] {
            assert!(!code.contains(&format!("crate::{m}")), "compare uses {m}");
        }
    }
}

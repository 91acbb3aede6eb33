//! `Resolved` x `Resolved` -> [`Difference`]s under a policy.

use serde::Serialize;
use serde_json::Value;

use crate::engine::argparse::py_eq;
use crate::finding::{Kind, Severity, SideValue, Text};
use crate::policy::{Class, Policy, UnknownRule};
use crate::resolved::{Entry, Resolved, Val, ValueSource};

/// One side's value of `key` (its entry, else the side's value of an absent key).
fn side_value(e: Option<&Entry>, side: &Resolved, key: &str) -> SideValue {
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

/// One difference (or equivalence) between the two sides.
#[derive(Debug, Clone, Serialize)]
pub struct Difference {
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

impl Difference {
    /// What it says, without its kind and class (input text not masked):
    /// `hicache_io_backend differs: docs direct vs recipe kernel`.
    pub fn text(&self) -> Text {
        let f = self;
        match f.kind {
            Kind::Contradicts => Text::input(&f.key)
                .and(" differs: docs ")
                .and_input(f.docs.val.display())
                .and(" vs recipe ")
                .and_input(f.recipe.val.display()),
            Kind::Missing
                if matches!(f.docs.val, Val::Unknown { .. })
                    != matches!(f.recipe.val, Val::Unknown { .. }) =>
            {
                // A written MAJOR value against one the text cannot decide.
                let (set, other, sv, ov) = if matches!(f.recipe.val, Val::Unknown { .. }) {
                    ("docs", "recipe", &f.docs, &f.recipe)
                } else {
                    ("recipe", "docs", &f.recipe, &f.docs)
                };
                let reason = match &ov.val {
                    Val::Unknown { reason, .. } => reason.clone(),
                    Val::Known { .. } => String::new(),
                };
                Text::input(&f.key)
                    .and(" is set to ")
                    .and_input(sv.val.display())
                    .and(format!(
                        " by {set}; {other}'s value cannot be decided from the text ("
                    ))
                    .and_input(reason)
                    .and("), so the equivalence is not shown")
            }
            Kind::Missing => {
                let (set, other, sv, ov) = if f.docs.is_set() {
                    ("docs", "recipe", &f.docs, &f.recipe)
                } else {
                    ("recipe", "docs", &f.recipe, &f.docs)
                };
                Text::input(&f.key)
                    .and(" is set to ")
                    .and_input(sv.val.display())
                    .and(format!(" by {set} only; {other} leaves "))
                    .and_input(ov.val.display())
            }
            Kind::Unknown => Text::input(&f.key).and(" cannot be compared from the text"),
            Kind::Equivalent => Text::input(&f.key)
                .and(" is written differently but resolves to the same value (")
                .and_input(f.docs.val.display())
                .and(")"),
            Kind::NoEffect => {
                let mut t = Text::input(&f.key).and(" has no effect (");
                let mut first = true;
                for (label, sv) in [("docs", &f.docs), ("recipe", &f.recipe)] {
                    if let Some(m) = &sv.no_effect {
                        t = t.and(format!("{}{label}: ", if first { "" } else { "; " }));
                        t = t.and_input(m);
                        first = false;
                    }
                }
                t.and(")")
            }
        }
    }
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
    pub findings: Vec<Difference>,
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
    // The first index: engine variables (an open environment), then options
    // (an argument placeholder, `<other args>`).
    let mut open = [[(0usize, 0usize); 3]; 2];
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
        findings.push(Difference {
            key: (*key).clone(),
            kind: Kind::NoEffect,
            class,
            severity: Kind::NoEffect.info().severity_for(class),
            docs: side_value(de, docs, key),
            recipe: side_value(re, recipe, key),
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
            let o = &mut open[usize::from(!key.starts_with("env:"))][side];
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
        findings.push(Difference {
            key: key.clone(),
            kind,
            class,
            severity: kind.info().severity_for(class),
            docs: side_value(de, docs, key),
            recipe: side_value(re, recipe, key),
        });
    }
    for (what, sides) in open.into_iter().enumerate() {
        for (side, (count, major)) in sides.into_iter().enumerate() {
            if count > 0 {
                let what = [Open::Env, Open::Args][what];
                findings.push(open_prefix_finding(what, side, count, major, docs, recipe));
            }
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

/// The key of the finding that stands for the options a side's argument
/// placeholder (`<other args>`) leaves to the reader.
pub const OPEN_ARGS_KEY: &str = "args:*";

/// What a side leaves open: its environment (code that was not evaluated
/// may have exported any variable) or its options (an argument placeholder).
#[derive(Clone, Copy)]
enum Open {
    Env,
    Args,
}

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
        let open = if key.starts_with("env:") {
            side.env_open.is_some()
        } else {
            side.args_open.is_some()
        };
        open && match e {
            None => true,
            Some(e) => e.source == ValueSource::Unknown && e.spans.is_empty() && e.rules.is_empty(),
        }
    };
    // Options left to the reader are reported together against every option
    // the other side does not write itself (at its default, or decided by
    // the release's rules); engine variables only against defaults.
    let unset = |e: Option<&Entry>| {
        if key.starts_with("env:") {
            !e.is_some_and(entry_is_set)
        } else {
            !e.is_some_and(written)
        }
    };
    match (placeholder(de, docs), placeholder(re, recipe)) {
        (true, true) => Some(2),
        (true, false) if unset(re) => Some(0),
        (false, true) if unset(de) => Some(1),
        _ => None,
    }
}

/// One finding for the engine variables a side's open environment may set
/// (or the options its argument placeholder leaves to the reader), which the
/// other side leaves at their defaults (`side` 0 docs, 1 recipe), or which
/// neither side sets while both are open (`side` 2): `count` of them, `major`
/// MAJOR. MAJOR when any is, as each of them could drift.
fn open_prefix_finding(
    what: Open,
    side: usize,
    count: usize,
    major: usize,
    docs: &Resolved,
    recipe: &Resolved,
) -> Difference {
    let class = if major > 0 {
        Class::Major
    } else {
        Class::Minor
    };
    let cause = |r: &Resolved| match what {
        Open::Env => format!(
            "may have been exported by {}",
            r.env_open
                .clone()
                .unwrap_or_else(|| "code that was not evaluated".to_string())
        ),
        Open::Args => format!(
            "are left to the reader by {}",
            r.args_open
                .clone()
                .unwrap_or_else(|| "an argument placeholder".to_string())
        ),
    };
    let unknown = |what: String| SideValue {
        val: Val::unknown(what),
        source: ValueSource::Unknown,
        written: None,
        spans: vec![],
        rules: vec![],
        no_effect: None,
    };
    let variables = match what {
        Open::Env => format!("{count} engine variables ({major} MAJOR)"),
        Open::Args => format!("{count} options ({major} MAJOR)"),
    };
    let leaves = |other: usize| match what {
        Open::Env => format!(
            "{variables} that {} at their defaults",
            ["the docs leave", "the recipe leaves"][other]
        ),
        Open::Args => format!(
            "{variables} that {} not write",
            ["the docs do", "the recipe does"][other]
        ),
    };
    let (d, r) = match side {
        // Both open: neither side is at its defaults, each is unknown for
        // its own cause.
        2 => {
            let neither = format!("{variables} that neither side sets");
            (
                unknown(format!("{neither} {}", cause(docs))),
                unknown(format!("{neither} {}", cause(recipe))),
            )
        }
        _ => {
            let (open, other) = if side == 0 { (docs, 1) } else { (recipe, 0) };
            let open_side = unknown(format!("{} {}", leaves(other), cause(open)));
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
    Difference {
        key: match what {
            Open::Env => OPEN_ENV_KEY,
            Open::Args => OPEN_ARGS_KEY,
        }
        .to_string(),
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
    use crate::finding::{Example, STARTUP_ERROR, kinds};
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
                ("RD016", "state-budget"),
                ("RD017", "newer-release"),
                ("RD018", "cross-role"),
                ("RD019", "prose-value"),
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

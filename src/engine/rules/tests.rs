//! Rule-file checks: load errors, run-time arithmetic, every rule's examples
//! through the real resolver (with a mutation check), the keys each rule names
//! against the bundled releases, and a snapshot of the rule catalogue.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::{Example, Rule, RuleFile};
use crate::launch::{Engine, Launch, Platform};
use crate::resolved::{Entry, ResolveOptions, Val};
use pep440_rs::Version;
use std::str::FromStr;

fn engines() -> Vec<(Engine, &'static [Rule])> {
    crate::engine::registry()
        .iter()
        .map(|e| {
            (
                Engine::parse(e.name()).expect("a registered engine"),
                e.rules(),
            )
        })
        .collect()
}

// ---- load errors -----------------------------------------------------------

fn load_err(rule: &str) -> String {
    let text = format!(
        "rules:\n  - id: first\n    reference: r\n  - id: bad-one\n    reference: r\n{rule}"
    );
    RuleFile::parse(&text, "t.yaml").expect_err("must not load")
}

#[test]
fn unknown_operators_and_bad_operands_are_load_errors_naming_the_rule() {
    for (yaml, words) in [
        (
            "    when: {tp_size: {gte: 4}}\n",
            &["unknown condition operator `gte`"][..],
        ),
        (
            "    set: {ep_size: {cpoy: tp_size}}\n",
            &["unknown value operator `cpoy`"],
        ),
        (
            "    set: {ep_size: {mul: [tp_size, 1.5]}}\n",
            &["operands are keys or integers"],
        ),
        (
            "    set: {ep_size: {mul: [tp_size, true]}}\n",
            &["operands are keys or integers"],
        ),
        (
            "    set: {ep_size: {add: [tp_size]}}\n",
            &["takes two operands"],
        ),
        ("    when: {tp_size: {gt: four}}\n", &["takes a number"]),
        (
            "    when: {tp_size: [1, 2]}\n",
            &["a list is not a condition"],
        ),
        (
            "    when: {tp_size: {a: 1, b: 2}}\n",
            &["for a literal mapping write {eq:"],
        ),
        (
            "    set: {tp_size: {a: 1, b: 2}}\n",
            &["for a literal mapping write {literal:"],
        ),
        (
            "    when: {x: {set: yes please}}\n",
            &["`set` takes true or false"],
        ),
        (
            "    unknown: {x: {reason: r, one_off: [1]}}\n",
            &["one_off"],
        ),
        ("    unknown: {x: 3}\n", &["a reason or {reason, one_of}"]),
        ("    examples: [{argv: [], expekt: {}}]\n", &["expekt"]),
    ] {
        let e = load_err(yaml);
        assert!(e.contains("rule bad-one"), "{yaml}: {e}");
        // `t.yaml:LINE:COL: rule bad-one: ...`, the line being the rule's own.
        assert!(e.starts_with("t.yaml:6:"), "{yaml}: {e}");
        for w in words {
            assert!(e.contains(w), "{yaml}: expected {w:?} in {e}");
        }
    }
}

#[test]
fn literal_mappings_and_lists_stay_expressible() {
    let f = RuleFile::parse(
        "rules:\n  - id: a\n    reference: r\n    when: {x: {eq: {k: 1}}, y: {eq: [1, 2]}}\n    set: {z: {literal: {k: 2}}, w: [1, 2]}\n",
        "t.yaml",
    )
    .unwrap();
    assert_eq!(f.rules[0].when["x"], super::Cond::Eq(json!({"k": 1})));
    assert_eq!(f.rules[0].set["z"], super::Effect::Literal(json!({"k": 2})));
    assert_eq!(f.rules[0].set["w"], super::Effect::Literal(json!([1, 2])));
}

fn entry(v: Value) -> Entry {
    crate::engine::common::default_entry("k", v)
}

#[test]
fn arithmetic_on_a_non_integer_is_unknown_with_a_reason() {
    let f = RuleFile::parse(
        "rules:\n  - id: m\n    reference: r\n    set: {a: {mul: [b, c]}, d: {add: [b, 1]}, e: {floordiv: [c, z]}, f: {int: s}}\n",
        "t.yaml",
    )
    .unwrap();
    let mut values: BTreeMap<String, Entry> = [
        ("a", json!(0)),
        ("b", json!("x")),
        ("c", json!(4)),
        ("d", json!(0)),
        ("e", json!(0)),
        ("z", json!(0)),
        ("f", json!(0)),
        ("s", json!("three")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), entry(v)))
    .collect();
    let v = pep440_rs::Version::new([1]);
    super::apply(&f.rules, &v, None, &mut values, &mut vec![]);
    for k in ["a", "d", "e", "f"] {
        match &values[k].val {
            Val::Unknown { reason, .. } => assert!(reason.starts_with("rule m: "), "{k}: {reason}"),
            other => panic!("{k} is {other:?}"),
        }
    }
}

// ---- examples ----------------------------------------------------------------

/// A launch as `recipe-drift resolve --engine E -- ARGV` builds it, plus env.
fn launch(engine: Engine, argv: &[String], env: &BTreeMap<String, String>) -> Launch {
    let env: Vec<(String, String)> = env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    Launch::inline(engine, argv, &env)
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// An example's checkpoint facts: the listed ones, the others absent.
#[derive(Debug)]
struct ExampleFacts(BTreeMap<String, Value>);

impl crate::resolved::FactSource for ExampleFacts {
    fn facts(
        &self,
        _model: &str,
        _revision: Option<&str>,
    ) -> Result<BTreeMap<String, crate::resolved::Entry>, crate::resolved::FactError> {
        for k in self.0.keys() {
            let full = format!("checkpoint.{k}");
            if !crate::resolved::CHECKPOINT_KEYS
                .iter()
                .any(|(c, _)| *c == full)
            {
                return Err(crate::resolved::FactError {
                    location: "example".into(),
                    message: format!("{full} is not a checkpoint key"),
                });
            }
        }
        Ok(crate::resolved::CHECKPOINT_KEYS
            .iter()
            .map(|(k, _)| {
                let v = self
                    .0
                    .get(&k["checkpoint.".len()..])
                    .cloned()
                    .unwrap_or(Value::Null);
                let mut e = crate::engine::common::default_entry(k, v);
                e.source = crate::resolved::ValueSource::Context;
                e.written = Some("the example".into());
                (k.to_string(), e)
            })
            .collect())
    }
}

/// Runs one example through the resolver; `Err` says what differs.
fn check(engine: Engine, x: &Example) -> Result<(), String> {
    let opts = ResolveOptions {
        engine_version: x.version.clone(),
        platform: x.platform.as_deref().and_then(Platform::parse),
        hardware: x.hardware.clone(),
        origin: None,
        checkpoints: x
            .checkpoint
            .as_ref()
            .map(|f| std::sync::Arc::new(ExampleFacts(f.clone())) as _),
    };
    let mut r = crate::engine::resolve(&launch(engine, &x.argv, &x.env), &opts)
        .map_err(|e| format!("does not resolve: {e:?}"))?;
    if let Some(newer) = &x.respelled_as {
        let (older, newer) = (
            Version::from_str(&r.version.version).map_err(|e| e.to_string())?,
            Version::from_str(newer).map_err(|e| e.to_string())?,
        );
        if let Some(values) = super::respell(
            crate::engine::by_name(engine.name())
                .ok_or("no such engine")?
                .rules(),
            &older,
            &newer,
            &r.values,
        ) {
            r.values = values;
        }
    }
    let val = |k: &str| {
        r.values
            .get(k)
            .map(|e| &e.val)
            .ok_or_else(|| format!("{k} is not a key of the resolution"))
    };
    for (k, want) in &x.expect {
        match val(k)? {
            Val::Known { value } if same(value, want) => {}
            other => return Err(format!("{k}: expected {want}, got {other:?}")),
        }
    }
    for k in &x.unknown {
        if !matches!(val(k)?, Val::Unknown { .. }) {
            return Err(format!("{k}: expected unknown, got {:?}", val(k)?));
        }
    }
    for (k, want) in &x.one_of {
        match val(k)? {
            Val::Unknown {
                one_of: Some(got), ..
            } if got.len() == want.len() && got.iter().zip(want).all(|(a, b)| same(a, b)) => {}
            other => {
                return Err(format!(
                    "{k}: expected unknown, one of {want:?}, got {other:?}"
                ));
            }
        }
    }
    for k in &x.inactive {
        val(k)?;
        if r.values[k].inactive.is_none() {
            return Err(format!("{k}: expected to have no effect"));
        }
    }
    if let Some(want) = &x.error
        && !r
            .startup_errors
            .iter()
            .any(|e| e.message.contains(want.as_str()))
    {
        return Err(format!(
            "expected a startup error with {want:?}, got {:?}",
            r.startup_errors
        ));
    }
    Ok(())
}

#[test]
fn every_rule_has_examples_that_hold_and_witness_it() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for (engine, rules) in engines() {
        for rule in rules {
            let name = format!("{} rule {}", engine.name(), rule.id);
            if rule.examples.is_empty() {
                problems.push(format!("{name}: no examples"));
                continue;
            }
            for (i, x) in rule.examples.iter().enumerate() {
                checked += 1;
                if let Err(e) = check(engine, x) {
                    problems.push(format!("{name}: example {}: {e}", i + 1));
                }
            }
            // Mutation check: without the rule, some example must fail.
            let witnessed = super::without_rule(&rule.id, || {
                rule.examples.iter().any(|x| check(engine, x).is_err())
            });
            if !witnessed {
                problems.push(format!(
                    "{name}: every example still holds with the rule removed"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(checked > 100);
}

// ---- keys ----------------------------------------------------------------------

/// The keys a release resolves before rules: key table, context keys, env keys.
fn release_keys(engine: Engine) -> Vec<(pep440_rs::Version, String, BTreeSet<String>)> {
    by_name(engine)
        .release_keys()
        .into_iter()
        .map(|r| (r.version, r.name, r.keys))
        .collect()
}

/// The `keys:` declarations of an engine's rule file.
fn declared(engine: Engine) -> BTreeMap<String, String> {
    by_name(engine).declared_rule_keys().clone()
}

fn by_name(engine: Engine) -> &'static dyn crate::engine::Engine {
    crate::engine::by_name(engine.name()).expect("a registered engine")
}

#[test]
fn every_key_a_rule_names_exists_in_every_release_it_covers() {
    let mut problems = Vec::new();
    for (engine, rules) in engines() {
        let declared = declared(engine);
        let releases = release_keys(engine);
        for rule in rules {
            let covered: Vec<_> = releases
                .iter()
                .filter(|(v, _, _)| rule.in_version(v))
                .collect();
            if covered.is_empty() {
                problems.push(format!(
                    "{} rule {}: covers no bundled release",
                    engine.name(),
                    rule.id
                ));
            }
            for (_, name, keys) in covered {
                // A declared key exists where its head (the JSON option) does.
                let exists = |k: &str| {
                    keys.contains(k)
                        || declared.contains_key(k)
                            && keys.contains(k.split('.').next().unwrap_or_default())
                };
                for k in rule.keys() {
                    if !exists(k) {
                        problems.push(format!(
                            "{} {name}: rule {} names {k}, which the release does not have",
                            engine.name(),
                            rule.id
                        ));
                    }
                }
                for p in &rule.inactive {
                    if !keys.iter().any(|k| crate::policy::glob(p, k)) {
                        problems.push(format!(
                            "{} {name}: rule {} pattern {p} matches no key",
                            engine.name(),
                            rule.id
                        ));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn rule_catalogue() {
    let mut rows = Vec::new();
    for (engine, rules) in engines() {
        for r in rules {
            rows.push(json!({
                "engine": engine.name(),
                "id": r.id,
                "versions": r.versions,
                "platforms": r.platforms,
                "reference": r.reference,
                "examples": r.examples.len(),
            }));
        }
    }
    insta::assert_json_snapshot!(rows);
}

#[test]
fn an_unknown_rule_outcome_widens_a_value_instead_of_narrowing_it() {
    let f = RuleFile::parse(
        "rules:\n  - id: u\n    when: {c: 1}\n    unknown: {k: {reason: r, one_of: [a, b]}}\n    reference: x\n",
        "t",
    )
    .unwrap();
    let mut values: BTreeMap<String, crate::resolved::Entry> = [
        ("c", Val::unknown("c is not knowable")),
        ("k", Val::known(json!("z"))),
    ]
    .into_iter()
    .map(|(k, v)| {
        let mut e = entry(json!(null));
        e.val = v;
        (k.to_string(), e)
    })
    .collect();
    let v = pep440_rs::Version::new([1]);
    super::apply(&f.rules, &v, None, &mut values, &mut vec![]);
    match &values["k"].val {
        Val::Unknown { one_of, .. } => {
            assert_eq!(
                one_of.as_deref(),
                Some(&[json!("z"), json!("a"), json!("b")][..])
            )
        }
        other => panic!("{other:?}"),
    }
    // Already unknown: it keeps its own reason and set.
    values.get_mut("k").unwrap().val = Val::Unknown {
        reason: "own".into(),
        one_of: Some(vec![json!("q")]),
    };
    super::apply(&f.rules, &v, None, &mut values, &mut vec![]);
    assert_eq!(
        values["k"].val,
        Val::Unknown {
            reason: "own".into(),
            one_of: Some(vec![json!("q")])
        }
    );
}

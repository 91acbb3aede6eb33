//! The YAML tree's tests: readings by case, and the differential against
//! the real PyYAML.

use super::*;
use crate::span::Origin;

fn parse_text(text: &str, place: Place) -> Node {
    let source = Source::new(Origin::Inline("t.yaml".into()), text.to_string());
    let options = Options {
        schema: Schema::PyYaml11,
        place,
        max_map_entries: None,
        inner_key_name: None,
        key_name: |n| match &n.val {
            Val::Str(s) => Some(s.clone()),
            Val::Int(i) => Some(i.to_string()),
            _ => None,
        },
    };
    parse(&source, &options).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn integers_are_exact_and_floats_stay_floats() {
    let n = parse_text(
        "a: 18446744073709551615\nb: 1.0\nc: 9007199254740993\n",
        Place::Defined,
    );
    assert!(matches!(n.get("a").unwrap().val, Val::Int(i) if i == u64::MAX as i128));
    assert!(matches!(
        n.get("c").unwrap().val,
        Val::Int(9007199254740993)
    ));
    assert!(matches!(n.get("b").unwrap().val, Val::Float(f) if f == 1.0));
}

/// PyYAML's typing of plain scalars (checked against PyYAML 6's
/// `yaml.safe_load`: `python3 -c 'import yaml; print(repr(yaml.safe_load(...)))'`).
#[test]
fn plain_scalars_are_typed_as_pyyaml_types_them() {
    let n = parse_text(
        "a: 010\nb: 0o10\nc: 1e3\nd: 1.0e+3\ne: 1_000\nf: 1:20\ng: 0x1F\nh: 0b101\ni: y\nj: on\nk: '010'\nl: 08\nm: .5\nn: -0\no: +7\np: 1:20.5\nq: ~\nr: \"on\"\ns: 1.\nt: .inf\nv: n\nw: -.inf\nx: +.5\n",
        Place::Defined,
    );
    let int = |k: &str| match n.get(k).map(|x| &x.val) {
        Some(Val::Int(i)) => Some(*i),
        _ => None,
    };
    let float = |k: &str| match n.get(k).map(|x| &x.val) {
        Some(Val::Float(f)) => Some(*f),
        _ => None,
    };
    let string = |k: &str| n.get(k).and_then(Node::as_str).map(str::to_string);
    assert_eq!(string("v").as_deref(), Some("n"));
    assert_eq!(float("w"), Some(f64::NEG_INFINITY));
    assert_eq!(string("x").as_deref(), Some("+.5"));
    assert_eq!(int("a"), Some(8));
    assert_eq!(string("b").as_deref(), Some("0o10"));
    assert_eq!(string("c").as_deref(), Some("1e3"));
    assert_eq!(float("d"), Some(1000.0));
    assert_eq!(int("e"), Some(1000));
    assert_eq!(int("f"), Some(80));
    assert_eq!(int("g"), Some(31));
    assert_eq!(int("h"), Some(5));
    assert_eq!(string("i").as_deref(), Some("y"));
    assert!(matches!(n.get("j").unwrap().val, Val::Bool(true)));
    assert_eq!(string("k").as_deref(), Some("010"));
    assert_eq!(string("l").as_deref(), Some("08"));
    assert_eq!(float("m"), Some(0.5));
    assert_eq!(int("n"), Some(0));
    assert_eq!(int("o"), Some(7));
    assert_eq!(float("p"), Some(80.5));
    assert!(n.get("q").is_none());
    assert_eq!(string("r").as_deref(), Some("on"));
    assert_eq!(float("s"), Some(1.0));
    assert_eq!(float("t"), Some(f64::INFINITY));
}

/// Every spelling of `tests/data/pyyaml_scalars.json` (PyYAML's own
/// reading of `v: TEXT`, recorded once) is typed and valued alike.
#[test]
fn plain_scalars_match_the_recorded_pyyaml_readings() {
    let data: serde_json::Value =
        serde_json::from_str(include_str!("../../../tests/data/pyyaml_scalars.json")).unwrap();
    let rows = data["rows"].as_array().unwrap();
    assert!(rows.len() > 150);
    for row in rows {
        let text = row[0].as_str().unwrap();
        let kind = row[1].as_str().unwrap();
        let source = Source::new(Origin::Inline("t.yaml".into()), format!("v: {text}\n"));
        let options = Options {
            schema: Schema::PyYaml11,
            place: Place::Defined,
            max_map_entries: None,
            inner_key_name: None,
            key_name: |n| n.as_str().map(str::to_string),
        };
        let got = parse(&source, &options);
        let ok = match (kind, got.as_ref().map(|n| &n.entries()[0].2.val)) {
            ("error", Err(_)) => true,
            ("bool", Ok(Val::Bool(b))) => Some(*b) == row[2].as_bool(),
            ("null", Ok(Val::Null)) => true,
            ("int", Ok(Val::Int(i))) => Some(i.to_string().as_str()) == row[2].as_str(),
            ("float", Ok(Val::Float(f))) => {
                let want: f64 = match row[2].as_str().unwrap() {
                    "inf" => f64::INFINITY,
                    "-inf" => f64::NEG_INFINITY,
                    "nan" => f64::NAN,
                    x => x.parse().unwrap(),
                };
                (want.is_nan() && f.is_nan()) || want == *f
            }
            ("str", Ok(Val::Str(s))) => Some(s.as_str()) == row[2].as_str(),
            // A timestamp (a `datetime.date` in Python) is kept as its text.
            ("other", Ok(Val::Str(s))) => Some(s.as_str()) == row[2].as_str(),
            _ => false,
        };
        assert!(
            ok,
            "{text:?}: PyYAML {kind} {}, here {:?}",
            row[2],
            got.map(|n| n.entries()[0].2.val.clone())
        );
    }
}

#[test]
fn aliases_are_placed_as_asked() {
    let text = "a: &x 1\nb: *x\n";
    let defined = parse_text(text, Place::Defined);
    assert_eq!(defined.get("b").unwrap().span.pos.line, 1);
    let referenced = parse_text(text, Place::Referenced);
    assert_eq!(referenced.get("b").unwrap().span.pos.line, 2);
    // What a merge key brings is placed as what an alias brings.
    let text = "a: &x {k: 1}\nb: {<<: *x}\n";
    let k = |n: &Node| n.get("b").unwrap().get("k").unwrap().span.pos.line;
    assert_eq!(k(&parse_text(text, Place::Defined)), 1);
    assert_eq!(k(&parse_text(text, Place::Referenced)), 2);
}

#[test]
fn budget_and_refused_keys_are_positioned() {
    let source = Source::new(
        Origin::Inline("t.yaml".into()),
        "x:\n  a: 1\n  b: 2\n  c: 3\n".into(),
    );
    let mut options = Options {
        schema: Schema::PyYaml11,
        place: Place::Defined,
        max_map_entries: Some((2, "these mappings")),
        inner_key_name: None,
        key_name: |n| n.as_str().map(str::to_string),
    };
    let e = parse(&source, &options).unwrap_err().to_string();
    assert!(e.contains("<t.yaml>:2:3") && e.contains("at most 2"), "{e}");
    options.key_name = |_| None;
    let e = parse(&source, &options).unwrap_err().to_string();
    assert!(
        e.contains("<t.yaml>:1:1") && e.contains("mapping key"),
        "{e}"
    );
}

/// The value of `k:` in `text`, or the error's text.
fn k(text: &str) -> Result<serde_json::Value, String> {
    let source = Source::new(Origin::Inline("t.yaml".into()), text.to_string());
    let node = parse(&source, &pyyaml_options()).map_err(|e| e.to_string())?;
    let v = node.to_json().map_err(|e| e.to_string())?;
    Ok(v.get("k").cloned().unwrap_or(serde_json::Value::Null))
}

fn pyyaml_options() -> Options {
    Options {
        schema: Schema::PyYaml11,
        place: Place::Defined,
        max_map_entries: None,
        inner_key_name: None,
        key_name: |n| match &n.val {
            Val::Str(s) => Some(s.clone()),
            Val::Int(i) => Some(i.to_string()),
            Val::Bool(b) => Some(b.to_string()),
            Val::Null => Some("null".into()),
            _ => None,
        },
    }
}

/// Explicit tags as PyYAML 6's `safe_load` reads them (each checked
/// against it): `!!str 010` is "010", `!!float 4` is 4.0, `!!int "010"`
/// is 8; a repeated key keeps the last value.
#[test]
fn explicit_tags_are_read_as_pyyaml_reads_them() {
    use serde_json::json;
    for (yaml, want) in [
        ("k: !!str 010", json!("010")),
        ("k: !!float 4", json!(4.0)),
        ("k: !!int \"010\"", json!(8)),
        ("k: !!int 0o10", json!(8)),
        ("k: !!int '0x1_0'", json!(16)),
        ("k: !!int 1:20", json!(80)),
        ("k: !!int ' 12'", json!(12)),
        ("k: !!int -0b11", json!(-3)),
        ("k: !!int '1:-30'", json!(30)),
        ("k: !!float '1_0.5'", json!(10.5)),
        ("k: !!float 1e3", json!(1000.0)),
        ("k: !!float 1:30", json!(90.0)),
        ("k: !!bool ON", json!(true)),
        ("k: !!null 5", json!(null)),
        ("k: ! 010", json!(8)),
        ("k: ! \"010\"", json!(8)),
        ("k: !!str", json!("")),
        ("k: !\nj: 1", json!(null)),
        ("k: &a !!str 010", json!("010")),
        ("k: !!str &a 010", json!("010")),
        ("k: !<tag:yaml.org,2002:str> 010", json!("010")),
        (
            "%TAG !e! tag:yaml.org,2002:\n---\nk: !e!str 010",
            json!("010"),
        ),
        ("k: !!str |\n  010\n", json!("010\n")),
        ("k: !!str\n  010", json!("010")),
        ("k: [!!str 010, 2]", json!(["010", 2])),
        ("k: !!seq [1]", json!([1])),
        ("k: 1\nk: 2", json!(2)),
        ("a: &x !!str 010\nk: *x", json!("010")),
    ] {
        assert_eq!(k(yaml), Ok(want), "{yaml}");
    }
    for (yaml, why) in [
        ("k: !!int 1e3", "does not start"),
        ("k: !!int", "does not start"),
        ("k: !!int 09", "does not start"),
        ("k: !!float abc", "does not start"),
        ("k: !!bool y", "does not start"),
        ("k: !foo 1", "no constructor"),
        ("k: !!python/int 1", "no constructor"),
        ("k: !!binary aGk=", "does not model"),
        ("k: !!timestamp 2020-01-01", "does not model"),
        ("k: !!set {a}", "does not model"),
        ("!!str k: 1", "not read"),
    ] {
        let e = k(yaml).unwrap_err();
        assert!(e.contains("<t.yaml>:1:") && e.contains(why), "{yaml}: {e}");
    }
    // A repeated key keeps the first key's place (a Python dict).
    let source = Source::new(Origin::Inline("t.yaml".into()), "a: 1\nb: 2\na: 3\n".into());
    let n = parse(&source, &pyyaml_options()).unwrap();
    assert_eq!(n.keys(), ["a", "b"]);
    assert!(matches!(n.get("a").unwrap().val, Val::Int(3)));
}

/// The YAML of every case, read by this module and by the real PyYAML
/// (`yaml.safe_load`), must agree: the same value, or both refuse it
/// (recipe-drift also refuses what PyYAML builds but it does not model:
/// bytes, dates, sets, integers beyond 64 bits, non-finite floats). Runs
/// the python of `RECIPE_DRIFT_PYTHON`, else `target/ci-tools/bin/python`
/// (where `.ci/run` installs PyYAML), else `python3`; prints SKIPPED when
/// none has PyYAML. The full cross product of tags and values runs under
/// `CI`; a sample otherwise.
#[test]
fn differential_against_pyyaml() {
    let candidates = [
        std::env::var("RECIPE_DRIFT_PYTHON").unwrap_or_default(),
        concat!(env!("CARGO_MANIFEST_DIR"), "/target/ci-tools/bin/python").to_string(),
        "python3".to_string(),
    ];
    let Some(python) = candidates.iter().filter(|p| !p.is_empty()).find(|p| {
        std::process::Command::new(p)
            .args(["-c", "import yaml"])
            .output()
            .is_ok_and(|o| o.status.success())
    }) else {
        println!("SKIPPED: no python with PyYAML (set RECIPE_DRIFT_PYTHON)");
        return;
    };
    let tags = [
        "",
        "!!str ",
        "!!int ",
        "!!float ",
        "!!bool ",
        "!!null ",
        "! ",
        "!!binary ",
        "!x ",
    ];
    let values = [
        "010",
        "0o10",
        "1_0",
        "4",
        "4.0",
        "1e3",
        "1.5e3",
        "yes",
        "y",
        "~",
        "0x1F",
        "1:20",
        "-0b11",
        "'010'",
        "\"1_0\"",
        ".inf",
        "abc",
        "+1",
        "0",
        "''",
        "0_",
        "09",
        "1__0",
        "'-'",
        "' 7 '",
        "99999999999999999999",
        "[1, 2]",
        "{a: 1}",
    ];
    let mut docs: Vec<String> = Vec::new();
    let full = std::env::var_os("CI").is_some();
    for (i, t) in tags.iter().enumerate() {
        for (j, v) in values.iter().enumerate() {
            if full || (i + j) % 5 == 0 {
                docs.push(format!("k: {t}{v}\n"));
            }
        }
    }
    docs.extend(
            [
                "k: 1\nk: 2\n",
                "k: &a !!str 010\nj: *a\n",
                "<<: {k: 1}\nj: 2\n",
                "%TAG !e! tag:yaml.org,2002:\n---\nk: !e!int '010'\n",
                "k: !!str |\n  010\n",
                "k: !!seq [!!float 1, !!str 2]\n",
                "k: !!map {a: !!int '7'}\n",
                "? !!str 1\n: x\n",
                "k: !!set {a}\n",
                "k: !\nj: 1\n",
                "k: !!str\nj: 1\n",
                // Merge keys: several, a list, a tagged one, a quoted `<<`,
                // values PyYAML refuses, a second document.
                "<<: {k: 1}\n<<: {k: 2}\n",
                "j: 1\n<<: [{k: 1}, {k: 2, j: 3}]\n<<: {i: 4}\n",
                "a: &a {k: 1, j: 2}\nb: {<<: [*a, {k: 3}], j: 5, <<: {i: 6}}\n",
                "{!!merge x: {k: 1}, j: 2}\n",
                "{!!str <<: {k: 1}}\n",
                "{\"<<\": {k: 1}}\n",
                "<<: 1\n",
                "<<:\n",
                "<<: [{k: 1}, 2]\n",
                "<<: {<<: {k: 1}, k: 2, j: 3}\n",
                // PyYAML 6.0.4 skips a merged key only when it is the same
                // string object: one-character keys are, longer ones not.
                "<<: {tp: 1}\n<<: {tp: 2}\n",
                "<<: [{tp: 1}, {tp: 2}]\n",
                "<<: [{k: 1}, {k: 2}]\n",
                "<<: [{'k': 1}, {\"k\": 2}]\n",
                "<<: {<<: {tp: 1}, tp: 2, j: 3}\n",
                "a: &a {tp: 4}\nb: &b {tp: 10}\nc: {<<: [*a, *b]}\nd: {<<: *a, <<: *b}\ne: {<<: [*a, *a], tp: 1}\n",
                "k: 1\n---\nk: 2\n",
                "k: 1\n...\n",
                // PyYAML's line breaks (NEL, U+2028, U+2029) and tabs.
                "k: 10\n#\u{2028}k: 4\n",
                "k: 10\n#\u{85}k: 4\n",
                "k: 10 #\u{2029}k: 4\n",
                "k: 4 #\u{2028}j: 10\n",
                "k: b\u{85}j: 2\n",
                "k: b\u{2028}j: d\n",
                "k: \"1\u{2028}0\"\n",
                "k: \"1\u{85}0\"\n",
                "k: 'x\u{2028}y'\n",
                "[a,\u{2028}b]\n",
                "k: &x\u{2028} 1\n",
                "k:\u{2028}  1\n",
                "k: b\u{85}  c\n",
                "k:\t10\n",
                "k: 10\t\n",
                "k: 10\t# c\n",
                "\tk: 1\n",
                "k: [1,\t2]\n",
                "k: b\tc\n",
                "k: \"x\ty\"\n",
                "k: 1 #\tc\n",
                "k: |\n  x\t\n",
                "k: |\n  x\n  \ty\n",
                "k: |\n \tx\n",
                "k: |\n  x\n\ty\n",
                "k: >\n  x\n   \ty\n",
                // Plain `=` and `<<`: the value and merge tags.
                "k: =\n",
                "k: <<\n",
                "k: [=]\n",
                "k: {j: =}\n",
                "=: 1\n",
                "k: ==\n",
                "k: ! =\n",
            ]
            .map(String::from),
        );
    let script = r#"
import json, math, sys, yaml
out = []
def plain(v):
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        if not -2**63 <= v < 2**64:
            raise TypeError
        return v
    if isinstance(v, float):
        if not math.isfinite(v):
            raise TypeError
        return v
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        d = {}
        for k, x in v.items():
            if isinstance(k, bool): k = str(k).lower()
            elif k is None: k = "null"
            elif isinstance(k, int): k = str(k)
            elif not isinstance(k, str): raise TypeError
            d[k] = plain(x)
        return d
    raise TypeError
for doc in json.load(sys.stdin):
    try:
        v = yaml.safe_load(doc)
    except Exception:
        out.append({"err": True}); continue
    try:
        out.append({"ok": plain(v)})
    except TypeError:
        out.append({"err": True})
print(json.dumps(out))
"#;
    use std::io::Write;
    let mut child = std::process::Command::new(python)
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(&docs).unwrap().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let theirs: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let mut differ = Vec::new();
    for (doc, want) in docs.iter().zip(&theirs) {
        let source = Source::new(Origin::Inline("t.yaml".into()), doc.clone());
        let ours = parse(&source, &pyyaml_options()).and_then(|n| n.to_json());
        let same = match (&ours, want.get("ok")) {
            (Ok(v), Some(w)) => v == w,
            (Err(_), None) => true,
            // Refused on purpose: PyYAML 6.0.3 reads it otherwise.
            (Err(e), Some(_)) => e.to_string().contains("PyYAML's versions disagree"),
            _ => false,
        };
        if !same {
            differ.push(format!("{doc:?}: recipe-drift {ours:?}, PyYAML {want}"));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} differ:\n{}",
        differ.len(),
        docs.len(),
        differ.join("\n")
    );
    println!("{} YAML texts read alike by PyYAML", docs.len());
}

//! Differential test: recipe-drift's argparse re-implementation against Python's own
//! argparse rebuilt from each bundled SGLang schema (`tests/oracle/argparse_oracle.py`).
//!
//! For every bundled release, argument vectors are generated from the
//! release's real option strings (abbreviations, `--k=v`, invalid choices and
//! values, repeated options, unknown options, `--`); both parsers must agree on
//! success or failure, on the error message, and on the whole namespace.
//!
//! Locally a sample of 300 vectors per release runs; with the `CI` environment
//! variable set (as in CI), the full 3000.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::Rng;
use recipe_drift::engine::argparse::{ArgParser, Nargs, OptionSpec};
use recipe_drift::engine::sglang;
use serde_json::{Value, json};

/// Vectors per release: the full set in CI, a sample locally.
fn vectors_per_release() -> usize {
    if std::env::var_os("CI").is_some() {
        3000
    } else {
        300
    }
}

fn value_for(rng: &mut Rng, a: &OptionSpec) -> String {
    if let Some(choices) = &a.choices
        && !choices.is_empty()
        && rng.chance(80)
    {
        return match rng.pick(choices) {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
    }
    let kind = a.type_kind.as_deref().unwrap_or("str");
    let pool: &[&str] = match kind {
        "int" => &[
            "0", "1", "2", "8", "-1", "16", "1_000", " 7 ", "x", "1.5", "+3",
        ],
        "float" => &["0.8", "0.80", "1e-3", "2", "-0.5", ".5", "abc", "1_0.5"],
        "json" => &["{\"a\": 1}", "[1, 2]", "{bad", "3", "\"s\""],
        _ => &[
            "foo",
            "page_first",
            "kernel",
            "auto",
            "fp8_e4m3",
            "-x",
            "a b",
            "",
            "NEXTN",
        ],
    };
    rng.pick(pool).to_string()
}

fn option_word(rng: &mut Rng, s: &str) -> String {
    // A prefix of a long option sometimes: unique, ambiguous or unknown.
    if s.starts_with("--") && s.len() > 4 && rng.chance(12) {
        let cut = 3 + rng.below(s.len() - 3);
        return s[..cut].to_string();
    }
    s.to_string()
}

fn gen_argv(rng: &mut Rng, parser: &ArgParser, nargs: &[Nargs]) -> Vec<String> {
    let optionals: Vec<usize> = (0..parser.actions.len())
        .filter(|&i| {
            !parser.actions[i].option_strings.is_empty() && parser.actions[i].action != "help"
        })
        .collect();
    let mut argv = Vec::new();
    // Required options (`--model-path`) first, unless this vector tests their absence.
    if !rng.chance(3) {
        for a in parser.actions.iter().filter(|a| a.required) {
            argv.push(a.option_strings[0].clone());
            argv.push("org/model".into());
        }
    }
    for _ in 0..(1 + rng.below(6)) {
        let roll = rng.below(100);
        if roll < 3 {
            argv.push("--no-such-option".into());
            continue;
        }
        if roll < 5 {
            argv.push("stray".into());
            continue;
        }
        if roll < 6 {
            argv.push("--".into());
            continue;
        }
        let i = *rng.pick(&optionals);
        let a = &parser.actions[i];
        let full = rng_pick_str(rng, &a.option_strings);
        let word = option_word(rng, full);
        let n = nargs[i];
        let count = match n {
            Nargs::One => 1,
            Nargs::Optional => rng.below(2),
            Nargs::ZeroOrMore => rng.below(3),
            Nargs::OneOrMore => 1 + rng.below(2),
            Nargs::Exactly(k) => k,
        };
        // Occasionally a wrong number of values.
        let count = if rng.chance(5) { count + 1 } else { count };
        if count == 1 && rng.chance(30) {
            let v = value_for(rng, a);
            argv.push(format!("{word}={v}"));
        } else {
            argv.push(word);
            for _ in 0..count {
                argv.push(value_for(rng, a));
            }
        }
    }
    argv
}

fn rng_pick_str<'a>(rng: &mut Rng, items: &'a [String]) -> &'a str {
    items[rng.below(items.len())].as_str()
}

fn python_results(schema: &str, inputs: &[Vec<String>]) -> Vec<Value> {
    let mut child = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/oracle/argparse_oracle.py"
        ))
        .arg(schema)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 must be installed for the argparse differential test");
    let mut stdin = child.stdin.take().unwrap();
    let payload: String = inputs
        .iter()
        .map(|v| serde_json::to_string(v).unwrap() + "\n")
        .collect();
    let writer = std::thread::spawn(move || {
        stdin.write_all(payload.as_bytes()).unwrap();
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "oracle failed on {schema}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn trim_json_detail(v: Value) -> Value {
    if let Some(msg) = v.get("error").and_then(|m| m.as_str())
        && let Some(at) = msg.find("must be JSON: ")
    {
        return json!({"error": msg[..at + "must be JSON:".len()].to_string()});
    }
    v
}

#[test]
fn argparse_matches_python_for_every_bundled_release() {
    let bundle = sglang::bundle();
    assert!(bundle.releases.len() >= 8, "expected every bundled release");
    let mut report = Vec::new();
    for release in &bundle.releases {
        let parser = &release.parser;
        let nargs: Vec<Nargs> = (0..parser.actions.len())
            .map(|i| parser.nargs_of(i))
            .collect();
        let mut rng = Rng(0x5EED ^ release.name.len() as u64);
        let inputs: Vec<Vec<String>> = (0..vectors_per_release())
            .map(|_| gen_argv(&mut rng, parser, &nargs))
            .collect();
        let schema = format!(
            "{}/src/engine/sglang/schemas/{}.json",
            env!("CARGO_MANIFEST_DIR"),
            release.name
        );
        let expected = python_results(&schema, &inputs);
        assert_eq!(expected.len(), inputs.len());
        let (mut ok, mut err) = (0, 0);
        for (argv, exp) in inputs.iter().zip(&expected) {
            let ours = match parser.parse(argv) {
                Ok(ns) => {
                    ok += 1;
                    json!({"ok": ns.values().into_iter().collect::<serde_json::Map<_, _>>()})
                }
                Err(e) => {
                    err += 1;
                    json!({"error": e.message})
                }
            };
            // Python's JSONDecodeError text is not reproduced word for word.
            let (ours, exp) = (trim_json_detail(ours), trim_json_detail(exp.clone()));
            assert_eq!(
                ours, exp,
                "sglang {}: argv {:?} parsed differently from Python argparse",
                release.name, argv
            );
        }
        report.push(format!("{}: {ok} ok, {err} errors", release.name));
    }
    eprintln!("{}", report.join("\n"));
}

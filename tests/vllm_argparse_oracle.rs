//! Differential test: recipe-drift's parse of `vllm serve ARGV` (vLLM's
//! preprocessing, then argparse) against `tests/oracle/vllm_argparse_oracle.py`,
//! which rebuilds each bundled release's real parser from its schema and was
//! checked against the real vLLM parsers (`scripts/check_vllm_oracle.py`).
//!
//! For every bundled release, argument vectors are generated from the release's
//! option strings with vLLM's spellings: a positional model or `--model`,
//! underscores, `-O3`, dotted JSON keys, `--no-x`, short forms, human-readable
//! ints, abbreviations, bad values and unknown options. Both must agree on
//! success or failure and on the whole namespace; error messages must match
//! except for config-class values, whose deeper (pydantic) validation neither
//! side reproduces.
//!
//! 400 vectors per release are generated; locally every fourth is checked, with
//! the `CI` environment variable set (as in CI) all of them.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::Rng;
use recipe_drift::engine::argparse::OptionSpec;
use recipe_drift::engine::vllm::{self, ParseFailure};
use serde_json::{Value, json};

/// Vectors generated per release (the full set, checked in CI).
const VECTORS_PER_RELEASE: usize = 400;

/// Every how many generated vectors one is checked: all in CI, a quarter locally.
/// The sample is a subset of CI's vectors, so a local run finds nothing CI misses.
fn stride() -> usize {
    if std::env::var_os("CI").is_some() {
        1
    } else {
        4
    }
}

fn value_for(rng: &mut Rng, a: &OptionSpec) -> String {
    if let Some(choices) = &a.choices
        && !choices.is_empty()
        && rng.chance(75)
    {
        return match rng.pick(choices) {
            Value::String(s) => s.clone(),
            Value::Null => "None".into(),
            other => other.to_string(),
        };
    }
    let kind = a.type_kind.as_deref().unwrap_or("str");
    let pool: &[&str] = if kind.contains("human_readable_int") {
        &["1k", "1K", "32768", "1.5m", "1.5K", "auto", "x", " 2k "]
    } else if kind.contains("int") {
        &["0", "1", "2", "8", "-1", "1_000", "x", "None", ""]
    } else if kind.contains("float") {
        &["0.9", "0.90", "1e-3", "2", "abc", "None"]
    } else if kind.contains("config") || kind.contains("json") || kind.contains("dict") {
        &[
            "{}",
            "{\"method\": \"mtp\", \"num_speculative_tokens\": 2}",
            "{\"backend\": \"FLASHINFER\"}",
            "{\"max_num_seqs\": \"2k\"}",
            "{bad",
            "[1]",
            "None",
        ]
    } else {
        &["foo", "auto", "fp8", "FLASHINFER", "", "a_b", "None"]
    };
    rng.pick(pool).to_string()
}

/// How vLLM users spell an option: underscores, prefixes, `=`.
fn option_word(rng: &mut Rng, s: &str) -> String {
    if s.starts_with("--") && rng.chance(15) {
        return format!("--{}", s[2..].replace('-', "_"));
    }
    if s.starts_with("--") && s.len() > 5 && rng.chance(8) {
        let cut = 4 + rng.below(s.len() - 4);
        return s[..cut].to_string();
    }
    s.to_string()
}

fn gen_argv(rng: &mut Rng, release: &vllm::Release) -> Vec<String> {
    let actions = &release.parser.actions;
    let optionals: Vec<usize> = (0..actions.len())
        .filter(|&i| !actions[i].option_strings.is_empty() && actions[i].action != "help")
        .collect();
    let json_heads: Vec<&str> = actions
        .iter()
        .filter(|a| {
            a.type_kind
                .as_deref()
                .is_some_and(|k| k.contains("config") || k.contains("json"))
        })
        .flat_map(|a| a.option_strings.iter().map(String::as_str))
        .collect();
    let mut argv = Vec::new();
    match rng.below(10) {
        0 => {}
        1 => {
            argv.push("--model".into());
            argv.push("org/model".into());
        }
        2 => argv.push("--model=org/model".into()),
        _ => argv.push("org/model".into()),
    }
    for _ in 0..(1 + rng.below(5)) {
        let roll = rng.below(100);
        if roll < 3 {
            argv.push("--no-such-option".into());
            continue;
        }
        if roll < 8 {
            argv.push(rng.pick(&["-O3", "-O", "-O=2", "-O1"]).to_string());
            continue;
        }
        if roll < 18 && !json_heads.is_empty() {
            let head = rng.pick(&json_heads).to_string();
            let sub = rng.pick(&[
                "mode",
                "method",
                "backend",
                "num_speculative_tokens",
                "pass_config.fuse",
            ]);
            let value = rng.pick(&["3", "mtp", "FLASHINFER", "true", "2k", "[1,2]"]);
            if rng.chance(50) {
                argv.push(format!("{head}.{sub}={value}"));
            } else {
                argv.push(format!("{head}.{sub}"));
                argv.push(value.to_string());
            }
            continue;
        }
        let i = *rng.pick(&optionals);
        let a = &actions[i];
        let full = rng.pick(&a.option_strings).clone();
        let word = option_word(rng, &full);
        let count = match &a.nargs {
            Value::Number(n) => n.as_u64().unwrap_or(1) as usize,
            Value::String(s) if s == "?" => rng.below(2),
            Value::String(s) if s == "*" => rng.below(3),
            Value::String(s) if s == "+" => 1 + rng.below(2),
            _ => 1,
        };
        let count = if rng.chance(4) { count + 1 } else { count };
        if count == 1 && rng.chance(30) {
            argv.push(format!("{word}={}", value_for(rng, a)));
        } else {
            argv.push(word);
            for _ in 0..count {
                argv.push(value_for(rng, a));
            }
        }
    }
    argv
}

fn oracle(schema: &str, inputs: &[Vec<String>]) -> Vec<Value> {
    let mut child = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/oracle/vllm_argparse_oracle.py"
        ))
        .arg(schema)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 must be installed for the vLLM argparse differential test");
    let mut stdin = child.stdin.take().unwrap();
    let payload: String = inputs
        .iter()
        .map(|v| serde_json::to_string(v).unwrap() + "\n")
        .collect();
    let writer = std::thread::spawn(move || stdin.write_all(payload.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "oracle failed on {schema}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn ours(release: &vllm::Release, argv: &[String]) -> Value {
    match vllm::parse(release, argv) {
        Ok(ns) => {
            let map: serde_json::Map<String, Value> = ns.values().into_iter().collect();
            json!({ "ok": map })
        }
        Err(ParseFailure::Error(m)) => json!({ "error": m }),
        Err(ParseFailure::ConfigFile(f)) => json!({ "config": f }),
    }
}

/// Whether an error may differ in its text: a config-class value.
fn config_valued(release: &vllm::Release, argv: &[String]) -> bool {
    argv.iter().any(|w| {
        release.parser.actions.iter().any(|a| {
            a.type_kind.as_deref().is_some_and(|k| k.contains("config"))
                && a.option_strings.iter().any(|s| w.starts_with(s.as_str()))
        })
    }) || argv.iter().any(|w| w.contains('.'))
}

#[test]
fn vllm_parse_matches_the_oracle_for_every_bundled_release() {
    let mut rng = Rng(0x5EED_0001);
    let stride = stride();
    let mut compared = 0;
    for release in vllm::releases() {
        let inputs: Vec<Vec<String>> = (0..VECTORS_PER_RELEASE)
            .map(|_| gen_argv(&mut rng, release))
            .step_by(stride)
            .collect();
        let schema = format!(
            "{}/src/engine/vllm/schemas/{}.json",
            env!("CARGO_MANIFEST_DIR"),
            release.name
        );
        let expected = oracle(&schema, &inputs);
        assert_eq!(expected.len(), inputs.len());
        for (argv, want) in inputs.iter().zip(&expected) {
            let got = ours(release, argv);
            // A config file is not read by us; the oracle has no file either.
            if got.get("config").is_some()
                && want["error"]
                    .as_str()
                    .is_some_and(|e| e.starts_with("FileNotFoundError"))
            {
                compared += 1;
                continue;
            }
            let same = if want.get("error").is_some() && got.get("error").is_some() {
                let config_message = want["error"].as_str().is_some_and(|e| {
                    e.contains("ValidationError") || e.contains("Invalid fields for --lora-modules")
                }) || got["error"]
                    .as_str()
                    .is_some_and(|e| e.contains("parse_dataclass"));
                config_message || config_valued(release, argv) || want == &got
            } else {
                want == &got
            };
            assert!(
                same,
                "vllm {}: argv {argv:?}\n  oracle: {want}\n  ours:   {got}",
                release.name
            );
            compared += 1;
        }
    }
    assert!(compared >= 6 * VECTORS_PER_RELEASE / stride);
}

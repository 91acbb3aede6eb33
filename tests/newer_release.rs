//! A loud fallback (issue 25, item 4): a command that may run an engine
//! release newer than every bundled one (it asks for one, or runs a `latest`
//! image) is a `newer-release` finding (RD017, a warning by default), and a
//! word the newest bundled release refuses only because it may be newer is
//! set aside as one too, not RD006: the rest of the command is compared.

mod common;

use common::run;

const DIR: &str = "fixtures/newer-release";

fn f(name: &str) -> String {
    format!("{DIR}/{name}")
}

fn compare(docs: &str, recipe: &str, extra: &[&str]) -> (i32, String, String) {
    let (d, r) = (f(docs), f(recipe));
    let mut args = vec!["compare", d.as_str(), r.as_str(), "--offline"];
    args.extend_from_slice(extra);
    run(&args)
}

fn lines_of<'a>(out: &'a str, id: &str) -> Vec<&'a str> {
    out.lines().filter(|l| l.contains(id)).collect()
}

/// SGLang 0.5.24 (newer than 0.5.23, the newest bundled): the unknown option
/// and its value are set aside with a warning, the tp drift beside it is
/// still found, and the exit code is 1 because of the tp drift only.
#[test]
fn sglang_newer_version_sets_the_unknown_option_aside_and_compares_the_rest() {
    let (code, out, err) = compare(
        "docs-sglang.sh",
        "recipe-sglang.sh",
        &["--engine-version", "0.5.24", "--format", "concise"],
    );
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(lines_of(&out, "RD006").is_empty(), "{out}");
    let newer = lines_of(&out, "warning[RD017 newer-release]");
    assert!(
        newer.iter().any(|l| l.contains(
            "the docs command asks for sglang 0.5.24 (--engine-version), newer than every bundled release: it was judged with 0.5.23, the newest bundled release"
        )),
        "{out}"
    );
    assert!(
        newer.iter().any(|l| l.starts_with("fixtures/newer-release/docs-sglang.sh:4:3:")
            && l.contains("`--future-scheduler-mode eager` is unknown to sglang 0.5.23, the newest bundled release; 0.5.24 may accept it (set aside; the rest of the command is compared")),
        "{out}"
    );
    // Once per side whose command asks for it.
    assert_eq!(
        newer
            .iter()
            .filter(|l| l.contains("asks for sglang 0.5.24"))
            .count(),
        2,
        "{out}"
    );
    let tp = lines_of(&out, "error[RD001 contradicts]");
    assert!(tp.iter().any(|l| l.contains("tp_size")), "{out}");
    // kv_cache_dtype is equal on both sides: compared, not reported as drift.
    assert!(
        !out.contains("error[RD001 contradicts] kv_cache_dtype"),
        "{out}"
    );
}

/// Without the tp drift the warning alone does not fail the run; it does
/// under `--fail-on warning`.
#[test]
fn the_warning_fails_only_under_fail_on_warning() {
    let args = ["--engine-version", "0.5.24", "--format", "concise"];
    let (code, out, err) = compare("docs-sglang.sh", "recipe-sglang-tp4.sh", &args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("warning[RD017 newer-release]"), "{out}");
    let mut strict = args.to_vec();
    strict.extend(["--fail-on", "warning"]);
    let (code, out, err) = compare("docs-sglang.sh", "recipe-sglang-tp4.sh", &strict);
    assert_eq!(code, 1, "{out}\n{err}");
}

/// vLLM 0.35.0 (newer than every bundled vLLM release) alike.
#[test]
fn vllm_newer_version_sets_the_unknown_option_aside() {
    let (code, out, err) = compare(
        "docs-vllm.sh",
        "recipe-vllm.sh",
        &["--engine-version", "0.35.0", "--format", "concise"],
    );
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(lines_of(&out, "RD006").is_empty(), "{out}");
    assert!(
        out.contains("`--enable-future-cache` is unknown to vllm ")
            && out.contains("the newest bundled release; 0.35.0 may accept it"),
        "{out}"
    );
    assert!(
        lines_of(&out, "error[RD001 contradicts]")
            .iter()
            .any(|l| l.contains("tp_size")),
        "{out}"
    );
}

/// A version inside the bundled range refuses an unknown option as before.
#[test]
fn a_bundled_version_still_refuses_an_unknown_option() {
    let (code, out, err) = compare(
        "docs-sglang.sh",
        "recipe-sglang.sh",
        &["--engine-version", "0.5.23", "--format", "concise"],
    );
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        out.contains("error[RD006 startup-error] the docs command would not start: sglang 0.5.23: unrecognized arguments: --future-scheduler-mode eager"),
        "{out}"
    );
    assert!(!out.contains("RD017"), "{out}");
}

/// An option an older bundled release knew and the newest dropped was
/// removed, not added: still RD006, with the release that last knew it.
#[test]
fn a_removed_option_is_still_refused_under_a_newer_version() {
    let (code, out, err) = compare(
        "docs-removed.sh",
        "recipe-sglang-tp4.sh",
        &["--engine-version", "0.5.24", "--format", "concise"],
    );
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        out.contains("error[RD006 startup-error]")
            && out.contains("--mamba-scheduler-strategy was removed after sglang 0.5."),
        "{out}"
    );
}

/// A misspelt option under a newer version is set aside too (a newer
/// release may have added it), and the finding names the near option.
#[test]
fn a_typo_under_a_newer_version_names_the_near_option() {
    let (_, out, err) = compare(
        "docs-typo.sh",
        "recipe-sglang-tp4.sh",
        &["--engine-version", "0.5.24", "--format", "concise"],
    );
    assert!(
        out.contains("`--kv-cahce-dtype fp8_e4m3` is unknown to sglang 0.5.23")
            && out.contains("it may also be a typo of --kv-cache-dtype"),
        "{out}\n{err}"
    );
}

/// An image tagged `latest` names no release and may be newer than every
/// bundled one: a warning, and what 0.5.23 does not know is set aside.
#[test]
fn a_latest_image_may_be_newer() {
    let (code, out, err) = compare(
        "docs-latest.md",
        "recipe-sglang-tp4.sh",
        &["--format", "concise"],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("the docs command runs the image lmsysorg/sglang:latest (")
            && out.contains("which names no release and may be newer than every bundled one: it was judged with sglang 0.5.23"),
        "{out}"
    );
    assert!(
        out.contains("`--future-scheduler-mode eager` is unknown to sglang 0.5.23, the newest bundled release; lmsysorg/sglang:latest may accept it"),
        "{out}"
    );
}

/// `policy: {newer-release: error}` makes the findings errors that fail.
#[test]
fn the_policy_sets_the_severity() {
    let config = f("newer-error.yaml");
    let (code, out, err) = run(&[
        "check",
        "--config",
        &config,
        "--offline",
        "--format",
        "concise",
    ]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("error[RD017 newer-release]"), "{out}");
    assert!(!out.contains("warning[RD017"), "{out}");
}

/// JSON, SARIF and the human report show it.
#[test]
fn every_format_shows_it() {
    let args = ["--engine-version", "0.5.24"];
    let with = |format: &str| {
        let mut a = args.to_vec();
        a.extend(["--format", format]);
        compare("docs-sglang.sh", "recipe-sglang-tp4.sh", &a).1
    };
    let json: serde_json::Value = serde_json::from_str(&with("json")).unwrap();
    let text = json.to_string();
    assert!(
        text.contains("\"newer_release\"") && text.contains("\"RD017\""),
        "{text}"
    );
    assert!(text.contains("--future-scheduler-mode"), "{text}");
    let sarif = with("sarif");
    assert!(sarif.contains("\"ruleId\": \"RD017\""), "{sarif}");
    assert!(sarif.contains("\"level\": \"warning\""), "{sarif}");
    let human = with("human");
    assert!(human.contains("RD017"), "{human}");
    assert!(human.contains("0.5.24 may accept it"), "{human}");
}

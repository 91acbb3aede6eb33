//! Which release an image runs (issue 25): a tag's numbers are read as the
//! engine's release only when they can be one (a CUDA version is not); a
//! custom tag that names no release is judged by the newest bundled release
//! and says so (RD017); and a side whose image names what it runs (`latest`,
//! a custom build, a development image) keeps it rather than borrowing the
//! other side's version.

mod common;

use common::run;

const DIR: &str = "fixtures/nightly";

fn compare(docs: &str, recipe: &str, format: &str) -> (i32, String, String) {
    let (d, r) = (format!("{DIR}/{docs}"), format!("{DIR}/{recipe}"));
    run(&["compare", &d, &r, "--offline", "--format", format])
}

/// The release each side of the first link was judged with, and the docs
/// side's `newer` reason kind (JSON report).
fn versions(docs: &str, recipe: &str) -> (String, String, serde_json::Value) {
    let (_, json, err) = compare(docs, recipe, "json");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {err}"));
    let link = &v["links"][0];
    let of = |side: &str| {
        link[side]["version"]["version"]
            .as_str()
            .unwrap()
            .to_string()
    };
    (
        of("docs"),
        of("recipe"),
        link["docs"]["version"]["newer"]["by"].clone(),
    )
}

/// `vllm/vllm-openai:minimax-m3-perf-arm64-13.0.1-7a67223` (an InferenceX
/// tag shape) is a custom build on CUDA 13.0.1, not vLLM 13.0.1: it names no
/// release, so the newest bundled release judges it, with a warning that says
/// why, and an option that release does not know is set aside, not refused.
/// It does not borrow the pinned side's 0.34.0 either.
#[test]
fn a_custom_tag_with_a_cuda_version_names_no_release() {
    let (code, out, err) = compare("vllm-custom.sh", "vllm-pinned.sh", "concise");
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        !out.contains("13.0.1,") && !out.contains("vllm 13.0.1"),
        "{out}"
    );
    assert!(!out.contains("RD006"), "{out}");
    let newer: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("warning[RD017 newer-release]"))
        .collect();
    assert!(
        newer.iter().any(|l| l.starts_with("fixtures/nightly/vllm-custom.sh:3:1:")
            && l.contains("the docs command runs the image vllm/vllm-openai:minimax-m3-perf-arm64-13.0.1-7a67223 (")
            && l.contains("): its tag minimax-m3-perf-arm64-13.0.1-7a67223 names no release, and is neither `latest` nor a nightly or dev build, so it may be newer than every bundled one: it was judged with vllm 0.34.0, the newest bundled release")),
        "{out}"
    );
    assert!(
        newer.iter().any(|l| l.starts_with("fixtures/nightly/vllm-custom.sh:4:44:")
            && l.contains("`--enable-future-cache` is unknown to vllm 0.34.0, the newest bundled release; vllm/vllm-openai:minimax-m3-perf-arm64-13.0.1-7a67223 may accept it")),
        "{out}"
    );
    let (docs, recipe, by) = versions("vllm-custom.sh", "vllm-pinned.sh");
    assert_eq!((docs.as_str(), recipe.as_str()), ("0.34.0", "0.34.0"));
    assert_eq!(by, "custom");
}

/// A refusal under a custom image carries the hint to name a version, as
/// one under a command that names none does.
#[test]
fn a_refusal_under_a_custom_image_says_how_to_name_the_release() {
    let (code, out, err) = compare("vllm-custom-bad.sh", "vllm-pinned.sh", "concise");
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        out.lines().any(|l| l.contains("error[RD006 startup-error]")
            && l.contains("vllm 0.34.0: argument --tensor-parallel-size/-tp: invalid int value: 'four'")
            && l.contains("no engine version was given (the image vllm/vllm-openai:kimi-k3 names no release), so the newest bundled release 0.34.0 was used: give --engine-version")),
        "{out}"
    );
    assert!(
        out.contains(
            "its tag kimi-k3 names no release, and is neither `latest` nor a nightly or dev build"
        ),
        "{out}"
    );
}

/// A `latest` side runs the newest release whatever the other side pins: it
/// is judged by the newest bundled release (0.5.23), with its warning, not by
/// the recipe's 0.5.19.
#[test]
fn a_latest_side_does_not_borrow_the_other_sides_version() {
    let (code, out, err) = compare("sglang-latest.sh", "sglang-pinned.sh", "concise");
    assert!(code == 0 || code == 1, "{out}\n{err}");
    assert!(
        out.contains("the docs command runs the image lmsysorg/sglang:latest (")
            && out.contains("which names no release and may be newer than every bundled one: it was judged with sglang 0.5.23"),
        "{out}"
    );
    assert!(!out.contains("RD006"), "{out}");
    let (docs, recipe, by) = versions("sglang-latest.sh", "sglang-pinned.sh");
    assert_eq!((docs.as_str(), recipe.as_str()), ("0.5.23", "0.5.19"));
    assert_eq!(by, "latest");
}

/// A dated development image is placed by its date (after 0.5.17) whatever
/// the other side pins (0.5.19): `--torchao-config`, which 0.5.18 removed, is
/// accepted as 0.5.17 accepts it (borrowing 0.5.19 refused it), and
/// `--c128-page-size`, which 0.5.18 added, is set aside.
#[test]
fn a_development_side_does_not_borrow_the_other_sides_version() {
    let (code, out, err) = compare("sglang-dated-tp8.sh", "sglang-pinned.sh", "concise");
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(!out.contains("RD006"), "{out}");
    assert!(
        out.contains(
            "`--c128-page-size 64` is unknown to sglang 0.5.17, the last release before the image"
        ),
        "{out}"
    );
    let (docs, recipe, by) = versions("sglang-dated-tp8.sh", "sglang-pinned.sh");
    assert_eq!((docs.as_str(), recipe.as_str()), ("0.5.17", "0.5.19"));
    assert_eq!(by, "nightly");
}

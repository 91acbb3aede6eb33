//! Nightly and dated images (issue 25, item 5): a development image's tag
//! places it among the bundled releases (`src/engine/releases.yaml`). A date
//! puts it after the last release published on or before it, whose parser is
//! used; what the development line added after that release is set aside as a
//! `newer-release` warning (RD017), and an option removed before it is still
//! refused (RD006). A commit the table does not hold cannot be placed: the
//! newest bundled release is used, marked as possibly newer. The reason is in
//! the output.

mod common;

use common::run;

const DIR: &str = "fixtures/nightly";

fn compare(docs: &str, recipe: &str, format: &str) -> (i32, String, String) {
    let (d, r) = (format!("{DIR}/{docs}"), format!("{DIR}/{recipe}"));
    run(&["compare", &d, &r, "--offline", "--format", format])
}

fn lines_of<'a>(out: &'a str, id: &str) -> Vec<&'a str> {
    out.lines().filter(|l| l.contains(id)).collect()
}

/// The release each side of the first link was judged with (JSON report).
fn versions(json: &str) -> (String, String) {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    let link = &v["links"][0];
    let of = |side: &str| {
        link[side]["version"]["version"]
            .as_str()
            .unwrap()
            .to_string()
    };
    (of("docs"), of("recipe"))
}

/// `lmsysorg/sglang:nightly-dev-cu13-20260815-<commit>` is dated between
/// SGLang 0.5.17 (2026-08-08) and 0.5.18 (2026-08-21), and `dev-nightly-0820`
/// is read as 2026-08-20: both are judged with 0.5.17. `--c128-page-size`
/// (new in 0.5.18) is set aside with a warning, not refused; `--torchao-config`
/// (in 0.5.17, gone from 0.5.18) is accepted, as 0.5.17 accepts it; the tp
/// drift beside them is still found.
#[test]
fn a_dated_sglang_image_is_judged_with_the_release_before_its_date() {
    let (code, out, err) = compare("sglang-dated.md", "sglang-recipe.sh", "concise");
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(lines_of(&out, "RD006").is_empty(), "{out}");
    let newer = lines_of(&out, "warning[RD017 newer-release]");
    assert!(
        newer.iter().any(|l| l.contains(
            "the docs command runs the development image lmsysorg/sglang:nightly-dev-cu13-20260815-0abe6a85 ("
        ) && l.contains(
            "): it is dated 2026-08-15, after sglang 0.5.17 (2026-08-08) and before 0.5.18 (2026-08-21); it was judged with sglang 0.5.17, the last release before the image"
        )),
        "{out}"
    );
    assert!(
        newer.iter().any(|l| l.contains(
            "the recipe command runs the development image lmsysorg/sglang:dev-nightly-0820 ("
        ) && l.contains(
            "): it is dated 08-20 with no year, read as 2026-08-20 (the only year that puts it between sglang 0.5.12 and 0.5.23, 2026-05-16 to 2026-10-30), after sglang 0.5.17 (2026-08-08) and before 0.5.18 (2026-08-21); it was judged with sglang 0.5.17"
        )),
        "{out}"
    );
    assert!(
        newer.iter().any(|l| l.starts_with("fixtures/nightly/sglang-dated.md:10:3:")
            && l.contains("`--c128-page-size 64` is unknown to sglang 0.5.17, the last release before the image; lmsysorg/sglang:nightly-dev-cu13-20260815-0abe6a85 may accept it (sglang 0.5.18 knows it; set aside; the rest of the command is compared)")
            && !l.contains("typo")),
        "{out}"
    );
    assert!(!out.contains("torchao"), "{out}");
    assert!(
        lines_of(&out, "error[RD001 contradicts]")
            .iter()
            .any(|l| l.contains("tp_size differs: docs 4 vs recipe 8")),
        "{out}"
    );
    let (_, json, _) = compare("sglang-dated.md", "sglang-recipe.sh", "json");
    assert_eq!(versions(&json), ("0.5.17".into(), "0.5.17".into()));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let newer = &v["links"][0]["docs"]["version"]["newer"];
    assert_eq!(newer["by"], "nightly", "{json}");
    assert_eq!(newer["next"], "0.5.18", "{json}");
    assert_eq!(
        newer["reason"],
        "it is dated 2026-08-15, after sglang 0.5.17 (2026-08-08) and before 0.5.18 (2026-08-21)"
    );
    assert!(
        v["links"][0]["docs"]["version"]["from"]
            .as_str()
            .unwrap()
            .ends_with("0.5.17 used, and what the development line added after it is set aside"),
        "{json}"
    );
}

/// An option removed before the image's release line stays a startup error,
/// naming the last release that knew it.
#[test]
fn an_option_removed_before_the_line_is_refused() {
    let (code, out, err) = compare("sglang-removed.md", "sglang-recipe.sh", "concise");
    assert_eq!(code, 1, "{out}\n{err}");
    let refused = lines_of(&out, "error[RD006 startup-error]");
    assert!(
        refused
            .iter()
            .any(|l| l.starts_with("fixtures/nightly/sglang-removed.md:8:3:")
                && l.contains("sglang 0.5.17: unrecognized arguments: --enable-deepep-waterfill")
                && l.contains("was removed after sglang 0.5.15.post1")),
        "{out}"
    );
    let (code, out, err) = compare("vllm-dated-removed.sh", "vllm-dated-recipe.sh", "concise");
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        lines_of(&out, "error[RD006 startup-error]")
            .iter()
            .any(|l| l
                .contains("vllm 0.28.0: unrecognized arguments: --max-num-partial-prefills 2")
                && l.contains("was removed after vllm 0.26.0")),
        "{out}"
    );
}

/// `vllm/vllm-openai:nightly-20260905-<commit>` falls between vLLM 0.28.0
/// (2026-08-26) and 0.29.0 (2026-09-09): `--max-num-queued-reqs`, new in
/// 0.29.0, is a warning, and the run passes.
#[test]
fn a_dated_vllm_image_sets_aside_what_the_next_release_added() {
    let (code, out, err) = compare("vllm-dated.sh", "vllm-dated-recipe.sh", "concise");
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(lines_of(&out, "RD006").is_empty(), "{out}");
    assert!(
        lines_of(&out, "warning[RD017 newer-release]").iter().any(|l| l
            .starts_with("fixtures/nightly/vllm-dated.sh:4:65:")
            && l.contains("`--max-num-queued-reqs 64` is unknown to vllm 0.28.0, the last release before the image; vllm/vllm-openai:nightly-20260905-5c8e2a1 may accept it (vllm 0.29.0 knows it; set aside; the rest of the command is compared)")
            && !l.contains("typo")),
        "{out}"
    );
    let (_, json, _) = compare("vllm-dated.sh", "vllm-dated-recipe.sh", "json");
    assert_eq!(versions(&json), ("0.28.0".into(), "0.28.0".into()));
}

/// A commit alone (`nightly-<40 hex>`, the ROCm image, the `nightly-dev-…-<short
/// commit>` shape) is not a tagged commit of the table: it cannot be placed,
/// so the newest bundled release judges it, marked possibly newer, and says why.
#[test]
fn a_commit_the_table_does_not_hold_is_possibly_newer() {
    for (docs, image, commit) in [
        (
            "vllm-commit.sh",
            "vllm/vllm-openai:nightly-3f9c2e17a4b8d6051e7c9a2b4d8f6e1c0a3b5d79",
            "3f9c2e17a4b8d6051e7c9a2b4d8f6e1c0a3b5d79",
        ),
        (
            "vllm-rocm-commit.sh",
            "vllm/vllm-openai-rocm:nightly-b71e04d9c3a5f2860d4e1b7a9c6f3e2d5a8b0c14",
            "b71e04d9c3a5f2860d4e1b7a9c6f3e2d5a8b0c14",
        ),
        (
            "vllm-dev-short.sh",
            "vllm/vllm-openai:nightly-dev-x86_64-cu13.0.1-9d4a1f3",
            "9d4a1f3",
        ),
    ] {
        let (code, out, err) = compare(docs, "vllm-commit.sh", "concise");
        assert_eq!(code, 0, "{docs}: {out}\n{err}");
        assert!(lines_of(&out, "RD006").is_empty(), "{out}");
        let newer = lines_of(&out, "warning[RD017 newer-release]");
        assert!(
            newer.iter().any(|l| l.contains(&format!(
                "the docs command runs the development image {image} ("
            )) && l.contains(&format!(
                "): its commit {commit} is not the tagged commit of a bundled release"
            )) && l.contains("so the text does not place it; it may be newer than every bundled release; it was judged with vllm 0.34.0, the newest bundled release")),
            "{out}"
        );
        assert!(
            newer.iter().any(|l| l.contains(&format!(
                "`--enable-future-cache` is unknown to vllm 0.34.0, the newest bundled release; {image} may accept it (set aside; the rest of the command is compared); it may also be a typo of"
            ))),
            "{out}"
        );
        let (_, json, _) = compare(docs, "vllm-commit.sh", "json");
        assert_eq!(versions(&json), ("0.34.0".into(), "0.34.0".into()));
    }
}

/// `check` reports the same findings through a config's links, and fails
/// on the drift and the removed option only.
#[test]
fn check_places_the_images_of_every_link() {
    let (code, out, err) = run(&[
        "check",
        "--config",
        "fixtures/nightly/nightly.yaml",
        "--offline",
        "--format",
        "concise",
    ]);
    assert_eq!(code, 1, "{out}\n{err}");
    let errors: Vec<&str> = out.lines().filter(|l| l.contains(": error[")).collect();
    assert_eq!(errors.len(), 2, "{out}");
    assert!(
        errors.iter().any(|l| l.contains("tp_size differs")),
        "{out}"
    );
    assert!(
        errors
            .iter()
            .any(|l| l.contains("--max-num-partial-prefills")),
        "{out}"
    );
    for sentence in [
        "it was judged with sglang 0.5.17, the last release before the image [link: sglang dated]",
        "it was judged with vllm 0.28.0, the last release before the image [link: vllm dated]",
        "it was judged with vllm 0.34.0, the newest bundled release [link: vllm nightly commit]",
    ] {
        assert!(out.contains(sentence), "{sentence}\n{out}");
    }
}

/// An image dated before the oldest bundled release is an input error, as an
/// older version asked for is (exit 2, with where the image is written).
#[test]
fn an_image_dated_before_every_bundled_release_is_an_error() {
    let (code, out, err) = compare("sglang-too-old.sh", "sglang-recipe.sh", "concise");
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(
        err.contains("at fixtures/nightly/sglang-too-old.sh:3:28) is a development build older than every bundled sglang release: it is dated 2026-04-01, before sglang 0.5.12, the oldest bundled release (2026-05-16)"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// A side that names no version and runs no image runs the other side's
/// development image, as it borrows a version: both sides are judged by the
/// same release line (0.5.17 here, which still has `--torchao-config`; the
/// newest bundled release would refuse it), and the reason says so.
#[test]
fn a_side_that_names_no_version_runs_the_other_sides_development_image() {
    let (code, out, err) = compare("sglang-plain.sh", "sglang-recipe.sh", "concise");
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(lines_of(&out, "RD006").is_empty(), "{out}");
    assert!(
        out.contains("the docs command runs the development image lmsysorg/sglang:dev-nightly-0820 (the recipe side's image, image lmsysorg/sglang:dev-nightly-0820 at fixtures/nightly/sglang-recipe.sh:2:39; this side names no version): it is dated 08-20 with no year"),
        "{out}"
    );
    let (_, json, _) = compare("sglang-plain.sh", "sglang-recipe.sh", "json");
    assert_eq!(versions(&json), ("0.5.17".into(), "0.5.17".into()));
}

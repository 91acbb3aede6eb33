//! Config fields newer than the release used (issue 25): under a command
//! that may run a newer release (a development image placed before a bundled
//! release, a version newer than every bundled one), a field of `-cc`, `-ac`
//! or `--speculative-config` that no bundled release up to the one used had
//! is set aside as a `newer-release` warning (RD017) and keeps its written
//! value; a field such a release had and a later one dropped is still a
//! startup error (RD006), naming the last release that had it.

mod common;

use common::run;

const DIR: &str = "fixtures/nightly";

fn compare(docs: &str, recipe: &str, extra: &[&str]) -> (i32, String, String) {
    let (d, r) = (format!("{DIR}/{docs}"), format!("{DIR}/{recipe}"));
    let mut args = vec!["compare", &d, &r, "--offline", "--format", "concise"];
    args.extend(extra);
    run(&args)
}

/// An image dated between vLLM 0.33.0 and 0.34.0 writes fields 0.34.0 added,
/// dotted (`-cc.use_breakable_cudagraph`), as a JSON word (`-ac '{…}'`) and
/// in a plain JSON option (`--speculative-config`): each is a warning at its
/// words naming 0.34.0, none is refused, and the value is kept.
#[test]
fn fields_the_next_release_added_are_set_aside() {
    let (code, out, err) = compare("vllm-fields-dated.sh", "vllm-fields-recipe.sh", &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(!out.contains("RD006"), "{out}");
    let newer: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("warning[RD017 newer-release] the docs command: "))
        .collect();
    for (at, words, key, refusal) in [
        (
            "fixtures/nightly/vllm-fields-dated.sh:7:14:",
            "`-cc.use_breakable_cudagraph false`",
            "compilation_config.use_breakable_cudagraph",
            "argument --compilation-config/-cc: invalid parse_dataclass value",
        ),
        (
            "fixtures/nightly/vllm-fields-dated.sh:8:7:",
            "`attention_config.indexer_logits_dtype`",
            "attention_config.indexer_logits_dtype",
            "argument --attention-config/-ac: invalid parse_dataclass value",
        ),
        (
            "fixtures/nightly/vllm-fields-dated.sh:9:3:",
            "`speculative_config.speculator_options`",
            "speculative_config.speculator_options",
            "SpeculativeConfig.speculator_options: Unexpected keyword argument",
        ),
    ] {
        assert!(
            newer.iter().any(|l| l.starts_with(at)
                && l.contains(&format!("{words} is unknown to vllm 0.33.0, the last release before the image; vllm/vllm-openai:nightly-20261110-4e1d2c9 may accept it (vllm 0.34.0 knows it; {key} keeps the written value; vllm 0.33.0: {refusal}"))),
            "{words}\n{out}"
        );
    }
    assert_eq!(newer.len(), 3, "{out}");
    // The kept values are the docs side's own (the recipe's release has no default).
    for key in [
        "compilation_config.use_breakable_cudagraph",
        "attention_config.indexer_logits_dtype",
        "speculative_config.speculator_options.k",
    ] {
        assert!(
            out.contains(&format!("note[RD003 unknown] {key} cannot be compared")),
            "{key}\n{out}"
        );
    }
}

/// A field a bundled release up to the one used had and a later one dropped
/// was removed, not added: still refused, with the last release that had it.
#[test]
fn fields_a_bundled_release_dropped_are_refused() {
    let (code, out, err) = compare("vllm-fields-removed.sh", "vllm-fields-recipe.sh", &[]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        out.lines().any(|l| l.starts_with("fixtures/nightly/vllm-fields-removed.sh:5:29:")
            && l.contains("error[RD006 startup-error]")
            && l.contains("vllm 0.33.0: argument --attention-config/-ac: invalid parse_dataclass value")
            && l.contains("attention_config.use_fp4_indexer_cache was removed after vllm 0.29.0 (the newest bundled release that has it)")),
        "{out}"
    );
    let (code, out, err) = compare(
        "vllm-fields-removed-spec.sh",
        "vllm-fields-recipe.sh",
        &["--engine-version", "0.35.0"],
    );
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        out.lines().any(|l| l.contains("error[RD006 startup-error]")
            && l.contains("SpeculativeConfig.disable_padded_drafter_batch: Unexpected keyword argument; speculative_config.disable_padded_drafter_batch was removed after vllm 0.33.0")),
        "{out}"
    );
}

/// A release asked for by name judges its fields as it is: the fields 0.34.0
/// added are refused by 0.33.0 (argparse meets `-ac` first).
#[test]
fn a_named_release_still_refuses_fields_it_lacks() {
    let (code, out, err) = compare(
        "vllm-fields-dated.sh",
        "vllm-fields-recipe.sh",
        &["--engine-version", "0.33.0"],
    );
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        out.contains("error[RD006 startup-error]")
            && out.contains("vllm 0.33.0: argument --attention-config/-ac: invalid parse_dataclass value: '{\"indexer_logits_dtype\": \"float32\"}'")
            && !out.contains("RD017"),
        "{out}"
    );
}

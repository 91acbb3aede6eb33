//! vLLM resolution end to end: two `vllm serve` commands compared through the
//! CLI (`compare A B --format json`), one behaviour of the resolver per test.

mod common;

use common::run;
use serde_json::Value;

/// Compares two commands (written to temp files) and returns the exit code and
/// the JSON report.
fn compare(docs: &str, recipe: &str, flags: &[&str]) -> (i32, Value) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("docs.sh");
    let r = dir.path().join("recipe.sh");
    std::fs::write(&d, format!("{docs}\n")).unwrap();
    std::fs::write(&r, format!("{recipe}\n")).unwrap();
    let mut args = vec![
        "compare",
        d.to_str().unwrap(),
        r.to_str().unwrap(),
        "--format",
        "json",
    ];
    args.extend_from_slice(flags);
    let (code, out, err) = run(&args);
    assert!(code == 0 || code == 1, "exit {code}: {err}");
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    (code, v["links"][0].clone())
}

/// The finding for a key, if any.
fn finding<'a>(link: &'a Value, key: &str) -> Option<&'a Value> {
    link["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["key"] == key)
}

fn kind(link: &Value, key: &str) -> String {
    finding(link, key)
        .map(|f| f["kind"].as_str().unwrap().to_string())
        .unwrap_or_else(|| "none".into())
}

/// The resolved entry of `key` for `vllm serve ARGS` (`resolve --format json`).
fn resolved(args: &str, flags: &[&str], key: &str) -> Value {
    let words = shell_words::split(args).unwrap();
    let mut cli = vec!["resolve", "--engine", "vllm", "--format", "json"];
    cli.extend_from_slice(flags);
    cli.push("--");
    cli.extend(words.iter().map(String::as_str));
    let (code, out, err) = run(&cli);
    assert!(code == 0 || code == 1, "exit {code}: {err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    v["resolved"]["values"][key].clone()
}

#[test]
fn dotted_and_full_json_are_compared_key_by_key() {
    let (code, link) = compare(
        "vllm serve org/m --compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"mode\": 3}'",
        "vllm serve org/m -cc.cudagraph_mode=full_decode_only -cc.mode VLLM_COMPILE",
        // 0.33.0: from 0.34 the mode depends on the checkpoint (breakable CUDA graphs).
        &["--platform", "cuda", "--engine-version", "0.33.0"],
    );
    assert_eq!(code, 0, "{link:#}");
    assert_eq!(
        kind(&link, "compilation_config.cudagraph_mode"),
        "equivalent"
    );
    assert_eq!(kind(&link, "compilation_config.mode"), "equivalent");
    // Each sub-key points at its own dotted words.
    let f = finding(&link, "compilation_config.mode").unwrap();
    assert_eq!(f["recipe"]["written"], "-cc.mode VLLM_COMPILE");
    // vLLM merges dotted keys per spelling of the option: a later
    // `--compilation-config.*` replaces the `-cc.*` object, as vLLM does.
    let (code, link) = compare(
        "vllm serve org/m -cc.cudagraph_mode=FULL_DECODE_ONLY",
        "vllm serve org/m -cc.cudagraph_mode=FULL_DECODE_ONLY --compilation-config.mode 3",
        &["--platform", "cuda"],
    );
    assert_eq!(code, 1);
    assert_eq!(
        kind(&link, "compilation_config.cudagraph_mode"),
        "contradicts"
    );

    let (code, link) = compare(
        "vllm serve org/m -cc.cudagraph_mode=FULL_DECODE_ONLY",
        "vllm serve org/m -cc.cudagraph_mode=PIECEWISE",
        &["--platform", "cuda"],
    );
    assert_eq!(code, 1);
    assert_eq!(
        kind(&link, "compilation_config.cudagraph_mode"),
        "contradicts"
    );
}

#[test]
fn optimization_level_sets_the_cuda_graph_mode() {
    // -O2 is the default: FULL_AND_PIECEWISE either way.
    let (code, link) = compare(
        "vllm serve org/m",
        "vllm serve org/m -cc.cudagraph_mode FULL_AND_PIECEWISE",
        &["--platform", "cuda"],
    );
    assert_eq!(code, 0, "{link:#}");
    assert_eq!(
        kind(&link, "compilation_config.cudagraph_mode"),
        "equivalent"
    );
    // -O0 and --enforce-eager both run without CUDA graphs.
    let (code, link) = compare(
        "vllm serve org/m -O0",
        "vllm serve org/m --enforce-eager",
        &["--platform", "cuda"],
    );
    assert_eq!(
        resolved(
            "org/m -O0",
            &["--platform", "cuda"],
            "compilation_config.cudagraph_mode"
        )["value"],
        "NONE"
    );
    assert_eq!(kind(&link, "compilation_config.cudagraph_mode"), "none");
    assert_eq!(code, 0, "{link:#}");
    // Without compilation, FULL_AND_PIECEWISE keeps only full decode graphs from 0.30.
    for (version, mode) in [("0.29.0", "NONE"), ("0.30.0", "FULL_DECODE_ONLY")] {
        assert_eq!(
            resolved(
                "org/m -cc.mode=0",
                &["--platform", "cuda", "--engine-version", version],
                "compilation_config.cudagraph_mode"
            )["value"],
            mode,
            "{version}"
        );
    }
}

#[test]
fn mtp_method_aliases_are_mtp_by_release() {
    let (code, link) = compare(
        "vllm serve org/m --speculative-config '{\"method\": \"deepseek_mtp\", \"num_speculative_tokens\": 2}'",
        "vllm serve org/m --speculative-config.method mtp --speculative-config.num_speculative_tokens 2",
        &[],
    );
    assert_eq!(code, 0, "{link:#}");
    assert_eq!(kind(&link, "speculative_config.method"), "equivalent");
    // kimi_k3_mtp is an alias from 0.27 on only.
    let (code, _) = compare(
        "vllm serve org/m -sc '{\"method\": \"kimi_k3_mtp\", \"num_speculative_tokens\": 1}'",
        "vllm serve org/m -sc '{\"method\": \"mtp\", \"num_speculative_tokens\": 1}'",
        &["--engine-version", "0.26.0"],
    );
    assert_eq!(code, 1);
    let (code, _) = compare(
        "vllm serve org/m -sc '{\"method\": \"kimi_k3_mtp\", \"num_speculative_tokens\": 1}'",
        "vllm serve org/m -sc '{\"method\": \"mtp\", \"num_speculative_tokens\": 1}'",
        &["--engine-version", "0.27.0"],
    );
    assert_eq!(code, 0);
    // Different token counts are MAJOR drift.
    let (code, link) = compare(
        "vllm serve org/m -sc '{\"method\": \"mtp\", \"num_speculative_tokens\": 2}'",
        "vllm serve org/m -sc '{\"method\": \"mtp\", \"num_speculative_tokens\": 3}'",
        &[],
    );
    assert_eq!(code, 1);
    assert_eq!(
        finding(&link, "speculative_config.num_speculative_tokens").unwrap()["severity"],
        "error"
    );
}

#[test]
fn speculative_method_from_a_draft_checkpoint_is_unknown() {
    let docs = "vllm serve org/m -sc '{\"model\": \"org/draft\", \"num_speculative_tokens\": 4}'";
    let recipe = "vllm serve org/m -sc '{\"method\": \"draft_model\", \"model\": \"org/draft\", \"num_speculative_tokens\": 4}'";
    // Up to 0.33 an explicit draft_model is detected again: unknown alike, not drift.
    let (code, link) = compare(docs, recipe, &["--engine-version", "0.33.0"]);
    assert_eq!(code, 0, "{link:#}");
    // From 0.34 an explicit draft_model stays; the unset method is still detected.
    let (code, link) = compare(docs, recipe, &[]);
    assert_eq!(code, 1, "{link:#}");
    assert_eq!(
        resolved(
            "org/m -sc '{\"method\": \"draft_model\", \"model\": \"org/EAGLE3-m\", \"num_speculative_tokens\": 4}'",
            &[],
            "speculative_config.method"
        )["value"],
        "draft_model"
    );
    let method = resolved(
        "org/m -sc '{\"model\": \"org/draft\", \"num_speculative_tokens\": 4}'",
        &[],
        "speculative_config.method",
    );
    assert_eq!(method["state"], "unknown");
    // An EAGLE name decides it from the text.
    assert_eq!(
        resolved(
            "org/m -sc '{\"model\": \"org/EAGLE3-m\", \"num_speculative_tokens\": 4}'",
            &[],
            "speculative_config.method"
        )["value"],
        "eagle3"
    );
}

#[test]
fn expert_parallel_size_is_tp_times_dp() {
    let (code, link) = compare(
        "vllm serve org/m -tp 4 -dp 2 --enable-expert-parallel",
        "vllm serve org/m -tp 8 -ep",
        &[],
    );
    assert_eq!(code, 1);
    assert_eq!(
        resolved("org/m -tp 4 -dp 2 --enable-expert-parallel", &[], "ep_size")["value"],
        8
    );
    assert_eq!(resolved("org/m -tp 8 -ep", &[], "ep_size")["value"], 8);
    assert_eq!(kind(&link, "ep_size"), "none");
    assert_eq!(kind(&link, "tp_size"), "contradicts");
    // Without -ep the experts are TP-sharded: EP size 1.
    let (code, link) = compare("vllm serve org/m -tp 8", "vllm serve org/m -tp 8 -ep", &[]);
    assert_eq!(code, 1);
    assert_eq!(kind(&link, "ep_size"), "missing");
}

#[test]
fn attention_backend_names_and_auto() {
    let (code, link) = compare(
        "vllm serve org/m --attention-backend flashinfer",
        "vllm serve org/m --attention-config.backend FLASHINFER",
        &[],
    );
    assert_eq!(code, 0, "{link:#}");
    assert_eq!(
        resolved(
            "org/m --attention-backend flashinfer",
            &[],
            "attention_backend"
        )["value"],
        "FLASHINFER"
    );
    // `auto` is unset from 0.18: both sides leave the choice to the platform.
    let (code, link) = compare(
        "vllm serve org/m --attention-backend auto",
        "vllm serve org/m",
        &["--engine-version", "0.18.0"],
    );
    assert_eq!(code, 0, "{link:#}");
    assert_eq!(
        resolved(
            "org/m --attention-backend auto",
            &["--engine-version", "0.18.0"],
            "attention_backend"
        )["state"],
        "unknown"
    );
    // In 0.17 `auto` does not start; both spellings at once never start.
    let (_, link) = compare(
        "vllm serve org/m --attention-backend auto",
        "vllm serve org/m --attention-backend FLASH_ATTN -ac.backend FLASH_ATTN",
        &["--engine-version", "0.17.0"],
    );
    let errors = |side: &str| link[side]["startup_errors"].to_string();
    assert!(
        errors("docs").contains("accepted from vLLM 0.18"),
        "{link:#}"
    );
    assert!(errors("recipe").contains("mutually exclusive"), "{link:#}");
}

#[test]
fn moe_backend_spellings() {
    let (code, link) = compare(
        "vllm serve org/m --moe-backend FlashInfer-TRTLLM",
        "vllm serve org/m --kernel-config.moe_backend flashinfer_trtllm",
        &[],
    );
    assert_eq!(code, 0, "{link:#}");
    assert_eq!(
        resolved(
            "org/m --kernel-config.moe_backend FLASHINFER-TRTLLM",
            &[],
            "moe_backend"
        )["value"],
        "flashinfer_trtllm"
    );
}

#[test]
fn an_env_var_the_release_does_not_read_is_a_finding() {
    let docs = "VLLM_USE_FLASHINFER_MOE_FP4=1 vllm serve org/m";
    let recipe = "vllm serve org/m";
    let (code, link) = compare(docs, recipe, &["--engine-version", "0.25.0"]);
    let f = finding(&link, "env:VLLM_USE_FLASHINFER_MOE_FP4").expect("finding");
    assert_eq!(f["kind"], "no_effect");
    assert_eq!(f["severity"], "warning");
    assert!(
        f["docs"]["no_effect"]
            .as_str()
            .unwrap()
            .contains("vLLM 0.25.0 does not read it (last read by 0.23.0)"),
        "{f:#}"
    );
    assert_eq!(code, 0, "a no-op setting does not fail the check");
    // Where the release reads it, it is compared as usual.
    let (code, link) = compare(docs, recipe, &["--engine-version", "0.20.0"]);
    assert_eq!(kind(&link, "env:VLLM_USE_FLASHINFER_MOE_FP4"), "missing");
    assert_eq!(code, 1);
}

#[test]
fn aiter_sub_switches_need_the_master_switch() {
    let flags = ["--platform", "rocm"];
    let (code, link) = compare(
        "VLLM_ROCM_USE_AITER=0 VLLM_ROCM_USE_AITER_MOE=0 vllm serve org/m",
        "vllm serve org/m",
        &flags,
    );
    assert_eq!(code, 0, "{link:#}");
    assert_eq!(kind(&link, "env:VLLM_ROCM_USE_AITER_MOE"), "none");
    let (code, link) = compare(
        "VLLM_ROCM_USE_AITER=1 VLLM_ROCM_USE_AITER_MOE=0 vllm serve org/m",
        "VLLM_ROCM_USE_AITER=1 vllm serve org/m",
        &flags,
    );
    assert_eq!(code, 1);
    assert_eq!(kind(&link, "env:VLLM_ROCM_USE_AITER_MOE"), "missing");
    // On CUDA the ROCm switches do nothing.
    let (code, _) = compare(
        "VLLM_ROCM_USE_AITER=1 vllm serve org/m",
        "vllm serve org/m",
        &["--platform", "cuda"],
    );
    assert_eq!(code, 0);
}

#[test]
fn human_readable_lengths_and_checkpoint_values() {
    let (code, link) = compare(
        "vllm serve org/m --max-model-len 128K --kv-cache-dtype fp8",
        "vllm serve org/m --max_model_len 131072 --kv-cache-dtype fp8_e4m3",
        &["--platform", "cuda"],
    );
    assert_eq!(code, 0, "{link:#}");
    assert_eq!(kind(&link, "context_length"), "equivalent");
    assert_eq!(kind(&link, "kv_cache_dtype"), "equivalent");
    let (_, link) = compare(
        "vllm serve org/m --max-model-len 1k",
        "vllm serve org/m --max-model-len 1K",
        &[],
    );
    // 1k is 1000, 1K is 1024 (a sequence length is minor, as in InferenceX).
    let f = finding(&link, "context_length").unwrap();
    assert_eq!(
        (&f["kind"], &f["severity"]),
        (&"contradicts".into(), &"info".into())
    );
    // An omitted quantization / kv-cache dtype auto come from the checkpoint:
    // never equal to a stated value. A stated MAJOR value against one the text
    // cannot decide is missing (the equivalence is not shown) ...
    let (code, link) = compare(
        "vllm serve org/m --quantization fp8 --kv-cache-dtype fp8",
        "vllm serve org/m",
        &["--platform", "cuda"],
    );
    assert_eq!(code, 1);
    for key in ["quantization", "kv_cache_dtype"] {
        let f = finding(&link, key).unwrap();
        assert_eq!(f["kind"], "missing", "{key}");
        assert_eq!(f["severity"], "error", "{key}");
        assert_eq!(f["recipe"]["state"], "unknown", "{key}: {f:#}");
    }
    // ... unless the policy relaxes it to a warning.
    let (code, link) = compare(
        "vllm serve org/m --quantization fp8 --kv-cache-dtype fp8",
        "vllm serve org/m",
        &["--platform", "cuda", "--unknown", "warning"],
    );
    assert_eq!(code, 0);
    for key in ["quantization", "kv_cache_dtype"] {
        let f = finding(&link, key).unwrap();
        assert_eq!(f["kind"], "unknown", "{key}");
        assert_eq!(f["severity"], "warning", "{key}");
    }
}

#[test]
fn api_server_and_serve_spellings_of_the_model_agree() {
    let (code, link) = compare(
        "python -m vllm.entrypoints.openai.api_server --model org/M -tp 2",
        "vllm serve --model org/M --tensor-parallel-size 2",
        &[],
    );
    assert_eq!(code, 0, "{link:#}");
    assert_eq!(finding(&link, "model").map(|f| f["kind"].clone()), None);
}

/// Compares two commands next to extra files (name, text) in one temp folder.
fn compare_with_files(docs: &str, recipe: &str, files: &[(&str, &str)]) -> (i32, String, String) {
    compare_with_files_and(docs, recipe, files, &[])
}

fn compare_with_files_and(
    docs: &str,
    recipe: &str,
    files: &[(&str, &str)],
    flags: &[&str],
) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let d = dir.path().join("docs.sh");
    let r = dir.path().join("recipe.sh");
    std::fs::write(&d, format!("{docs}\n")).unwrap();
    std::fs::write(&r, format!("{recipe}\n")).unwrap();
    let mut args = vec!["compare", d.to_str().unwrap(), r.to_str().unwrap()];
    args.extend_from_slice(flags);
    run(&args)
}

#[test]
fn config_file_options_are_read_and_the_command_line_wins() {
    let yaml = "# server settings\ntensor-parallel-size: 4\nenable-expert-parallel: true\nenforce-eager: false\nspeculative-config:\n  method: deepseek_mtp\n  num_speculative_tokens: 2\nmax_model_len: 32k\n";
    let (code, out, err) = compare_with_files_and(
        "vllm serve org/m --config serve.yaml -tp 8",
        "vllm serve org/m -tp 8 -ep -sc.method mtp -sc.num_speculative_tokens 2 --max-model-len 32000",
        &[("serve.yaml", yaml)],
        &["--show-equivalent"],
    );
    assert_eq!(code, 0, "{out}{err}");
    // Each value read from the file points at its key there.
    assert!(
        out.contains("from `--enable-expert-parallel` at ") && out.contains("serve.yaml:3:1"),
        "{out}"
    );
    assert!(out.contains("serve.yaml:8:1"), "{out}");
    // The file's tensor-parallel-size 4 loses to -tp 8 on the command line.
    assert!(!out.contains("tp_size differs"), "{out}");

    let (code, out, _) = compare_with_files(
        "vllm serve org/m --config serve.yaml",
        "vllm serve org/m -tp 8",
        &[("serve.yaml", yaml)],
    );
    assert_eq!(code, 1);
    assert!(out.contains("tp_size differs: docs 4 vs recipe 8"), "{out}");
}

#[test]
fn a_config_file_that_is_not_there_leaves_its_options_unknown() {
    // tp 8 against a value the missing file may set: not shown equal, so missing.
    let (code, out, err) = compare_with_files(
        "vllm serve org/m --config missing.yaml",
        "vllm serve org/m -tp 8",
        &[],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("tp_size is set to 8 by recipe; docs's value cannot be decided from the text (may be set by --config missing.yaml"),
        "{out}"
    );
    let (code, out, err) = compare_with_files_and(
        "vllm serve org/m --config missing.yaml",
        "vllm serve org/m -tp 8",
        &[],
        &["--unknown", "warning"],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("tp_size cannot be compared from the text")
            && out.contains("may be set by --config missing.yaml (not found next to the command"),
        "{out}"
    );
    let (_, out, _) = compare_with_files(
        "vllm serve org/m --config /etc/vllm.yaml",
        "vllm serve org/m -tp 8",
        &[],
    );
    assert!(out.contains("absolute paths are not read"), "{out}");
}

#[test]
fn a_malformed_config_file_is_an_input_error() {
    let (code, _, err) = compare_with_files(
        "vllm serve org/m --config bad.yaml",
        "vllm serve org/m",
        &[("bad.yaml", "tensor-parallel-size: [4, 8\n")],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.yaml:"), "{err}");
    assert!(err.contains("invalid YAML"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let (code, _, err) = compare_with_files(
        "vllm serve org/m --config list.yaml",
        "vllm serve org/m",
        &[("list.yaml", "- 1\n- 2\n")],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("list.yaml:1:1"), "{err}");
}

#[test]
fn an_unknowable_json_value_leaves_its_option_unknown() {
    let (code, link) = compare(
        "X=$(hostname)\nvllm serve org/m --kv-transfer-config \"{\\\"kv_connector\\\": \\\"A\\\", \\\"kv_role\\\": $X}\"",
        "vllm serve org/m --kv-transfer-config '{\"kv_connector\": \"A\", \"kv_role\": \"kv_both\"}'",
        &[],
    );
    // The connector is MAJOR (the KV cache tier): written on one side and not
    // knowable on the other, its equivalence is not shown (exit 1).
    assert_eq!(code, 1, "{link:#}");
    assert_eq!(kind(&link, "kv_transfer_config.kv_connector"), "missing");
    let f = finding(&link, "kv_transfer_config").expect("the option is reported");
    assert_eq!(f["kind"], "unknown", "{f:#}");
    // Its keys are unknown too, not unset.
    assert_eq!(kind(&link, "kv_transfer_config.kv_role"), "unknown");
    assert!(
        f["docs"]["reason"]
            .as_str()
            .unwrap()
            .contains("the output of `hostname` is not knowable"),
        "{f:#}"
    );
}

#[test]
fn an_unknowable_model_path_is_named_by_the_served_name() {
    let (code, link) = compare(
        "M=$(ls /models)\nvllm serve \"$M\" --served-model-name org/model",
        "vllm serve org/model",
        &[],
    );
    assert_eq!(code, 0, "{link:#}");
    assert_eq!(kind(&link, "model"), "equivalent");
    let (_, link) = compare(
        "M=$(ls /models)\nvllm serve \"$M\"",
        "vllm serve org/model",
        &[],
    );
    // The recipe names the model, the docs' cannot be known: missing (MAJOR).
    let f = finding(&link, "model").unwrap();
    assert_eq!(f["kind"], "missing");
    assert_eq!(f["docs"]["state"], "unknown");
    assert!(
        f["docs"]["reason"]
            .as_str()
            .unwrap()
            .contains("there is no --served-model-name"),
        "{f:#}"
    );
}

#[test]
fn a_parse_error_under_the_default_release_says_how_to_pick_another() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("a.sh");
    // use_fp4_indexer_cache is an AttentionConfig field in 0.20 to 0.29 only.
    std::fs::write(&f, "vllm serve org/m -ac.use_fp4_indexer_cache true\n").unwrap();
    let f = f.to_str().unwrap();
    // The release refuses the command: a finding (RD006) at the refused word.
    let (code, out, err) = run(&["compare", f, f, "--format", "concise"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.contains("a.sh:1:44: error[RD006 startup-error] the docs command would not start: vllm 0.34.0: argument --attention-config/-ac: invalid")
            && out.contains("no engine version was given, so the newest bundled release 0.34.0 was used: give --engine-version"),
        "{out}"
    );
    let (code, _, err) = run(&["compare", f, f, "--engine-version", "0.25.0"]);
    assert_eq!(code, 0, "{err}");
}

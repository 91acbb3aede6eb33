//! InferenceX sides: checkouts in their older layouts (master configs in
//! `.github/configs/`, scripts directly in `benchmarks/single_node/`, entries with
//! a top-level `seq-len-configs`) are read like the current one by `extract
//! --inferencex`, `check` and `discover`; runner env given with `--env` or a
//! side's `env:` reaches the scripts, and env that nothing reads is warned about.

mod common;

use common::run;

const OLD: &str = "fixtures/inferencex-2026-03";

#[test]
fn extract_reads_the_older_layout() {
    let (code, out, err) = run(&[
        "extract",
        "--inferencex",
        OLD,
        "--entry",
        "qwen3.5-fp4-mi355x-sglang",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(
        v["config"]
            .as_str()
            .unwrap()
            .ends_with(".github/configs/amd-master.yaml"),
        "{v:#}"
    );
    // seq-len-configs conc 4..16 doubling: three points.
    let points = v["points"].as_array().unwrap();
    assert_eq!(points.len(), 3, "{v:#}");
    assert!(
        points[0]["script"]
            .as_str()
            .unwrap()
            .ends_with("benchmarks/single_node/qwen3.5_fp4_mi355x.sh")
    );
    assert_eq!(points[0]["env"]["MAX_MODEL_LEN"], "2304");
    let argv: Vec<&str> = points[0]["launches"][0]["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["text"].as_str().unwrap())
        .collect();
    assert!(argv.windows(2).any(|w| w == ["--tp", "8"]), "{argv:?}");

    // The agentic scenario of the same layout.
    let (code, out, err) = run(&[
        "extract",
        "--inferencex",
        OLD,
        "--entry",
        "qwen3.5-fp4-mi355x-sglang-agentic",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("benchmarks/single_node/agentic/qwen3.5_fp4_mi355x.sh"),
        "{out}"
    );
}

#[test]
fn check_and_discover_read_the_older_layout() {
    let (code, out, err) = run(&[
        "check",
        "--config",
        "fixtures/demo/inferencex-2026-03-link.yaml",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("[3 points: conc=4,8,16"), "{out}");
    assert!(out.contains("1 link checked, 0 with MAJOR drift"), "{out}");

    let (code, out, err) = run(&["discover", OLD, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let proposals = v["proposals"].as_array().unwrap();
    assert_eq!(proposals.len(), 1, "{v:#}");
    assert_eq!(proposals[0]["entry"], "qwen3.5-fp4-mi355x-sglang");
}

#[test]
fn a_checkout_without_master_configs_names_both_layouts() {
    let (code, _, err) = run(&[
        "extract",
        "--inferencex",
        "fixtures/cookbook",
        "--entry",
        "x",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("fixtures/cookbook/configs/*-master.yaml"),
        "{err}"
    );
    assert!(
        err.contains("fixtures/cookbook/.github/configs/*-master.yaml"),
        "{err}"
    );
}

#[test]
fn a_sides_env_reaches_the_scripts_and_unread_env_is_warned_about() {
    let (_, out, err) = run(&[
        "check",
        "--config",
        "fixtures/demo/inferencex-env-link.yaml",
    ]);
    assert!(err.is_empty() || !err.contains("error"), "{err}");
    // The script takes HICACHE_IO_BACKEND / HICACHE_MEM_LAYOUT from the env: the
    // HiCache settings now agree with the docs.
    assert!(!out.contains("hicache_io_backend differs"), "{out}");
    assert!(!out.contains("hicache_mem_layout differs"), "{out}");
    assert!(
        out.contains("warning: the recipe side's env NOT_READ_BY_ANYTHING=1 was read by no script"),
        "{out}"
    );
    // Read ones are not warned about (the harness reads TOTAL_CPU_DRAM_GB).
    assert!(
        !out.contains("env TOTAL_CPU_DRAM_GB=2048 was read"),
        "{out}"
    );
    assert!(
        !out.contains("env HICACHE_IO_BACKEND=direct was read"),
        "{out}"
    );
    // Every format carries the warning, placed on the side's `env:` where
    // the format places things.
    let config = "fixtures/demo/inferencex-env-link.yaml";
    let at = |f: &str| run(&["check", "--config", config, "--format", f]).1;
    let gh = at("github");
    assert!(
        gh.lines().any(|l| l.starts_with(
            "::warning file=fixtures/demo/inferencex-env-link.yaml,line=11,col=9,title=recipe-drift%3A warning::the recipe side's env NOT_READ_BY_ANYTHING=1 was read by no script"
        )),
        "{gh}"
    );
    let md = at("markdown");
    assert!(
        md.contains("- **warning**: the recipe side's env NOT\\_READ\\_BY\\_ANYTHING=1 was read by no script"),
        "{md}"
    );
    let sarif: serde_json::Value = serde_json::from_str(&at("sarif")).unwrap();
    let notes = &sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    let w = notes
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["descriptor"]["id"] == "input-warning")
        .unwrap_or_else(|| panic!("{notes:#}"));
    assert_eq!(w["level"], "warning");
    let region = &w["locations"][0]["physicalLocation"];
    assert_eq!(region["artifactLocation"]["uri"], config);
    assert_eq!(region["region"]["startLine"], 11);
}

#[test]
fn extract_env_sets_runner_facts() {
    let args = [
        "extract",
        "--inferencex",
        "fixtures/inferencex",
        "--entry",
        "qwen3.5-fp4-mi355x-sglang-agentic-mtp",
        "--where",
        "kv-offloading=dram",
        "--env",
        "TOTAL_CPU_DRAM_GB=2048",
        "--env",
        "HICACHE_IO_BACKEND=direct",
        "--env",
        "SGLANG_USE_AITER=1",
        "--env",
        "NOBODY_READS_ME=1",
        "--format",
        "json",
    ];
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let p = &v["points"][0];
    // A runner fact given is known: no longer an unknown env.
    assert_eq!(p["env"]["TOTAL_CPU_DRAM_GB"], "2048");
    assert!(p["unknown_env"].get("TOTAL_CPU_DRAM_GB").is_none(), "{p:#}");
    let argv: Vec<&str> = p["launches"][0]["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["text"].as_str().unwrap())
        .collect();
    assert!(
        argv.windows(2)
            .any(|w| w == ["--hicache-io-backend", "direct"]),
        "{argv:?}"
    );
    // SGLANG_USE_AITER is read by the engine, HICACHE_IO_BACKEND and
    // TOTAL_CPU_DRAM_GB by the script and the harness: only one is unread.
    assert_eq!(v["unread_env"], serde_json::json!(["NOBODY_READS_ME"]));
    let (_, human, _) = run(&args[..args.len() - 2]);
    assert!(
        human.contains("warning: --env NOBODY_READS_ME was read by no script"),
        "{human}"
    );
    // Deterministic.
    assert_eq!(run(&args).1, out);
}

#[test]
fn a_where_that_matches_no_point_lists_the_fields_and_values() {
    let (code, out, err) = run(&[
        "extract",
        "--inferencex",
        "fixtures/inferencex",
        "--entry",
        "qwen3.5-fp4-mi355x-sglang-agentic-mtp",
        "--where",
        "kv-offloading=drm",
        "--where",
        "tp=8",
    ]);
    assert_eq!(code, 2, "{out}");
    assert!(!out.contains("0 points"), "{out}");
    assert!(
        err.contains("kv-offloading=drm: the points have kv-offloading=none,dram"),
        "{err}"
    );
    assert!(err.contains("tp=8: the points have tp=2"), "{err}");
    assert!(err.contains("the points have: conc=4,16,8 "), "{err}");

    // Values that each occur, but never together.
    let (code, _, err) = run(&[
        "extract",
        "--inferencex",
        "fixtures/inferencex",
        "--entry",
        "qwen3.5-fp4-mi355x-sglang-agentic-mtp",
        "--where",
        "kv-offloading=none",
        "--where",
        "conc=8",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("each value occurs, but no point has them all"),
        "{err}"
    );

    // The same from a link's where:.
    let (code, out, err) = run(&[
        "check",
        "--config",
        "fixtures/demo/inferencex-where-miss.yaml",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    let all = format!("{out}{err}");
    assert!(
        all.contains("fixtures/demo/inferencex-where-miss.yaml:12:16: the recipe side's where: no point of entry"),
        "{all}"
    );
    assert!(
        all.contains("kv-offload: no point has this field (fields: conc, dp-attn, ep, kv-offload-backend, kv-offloading, spec-decoding, tp)"),
        "{all}"
    );
    assert!(
        all.contains("kv-offloading=drm: the points have kv-offloading=none,dram"),
        "{all}"
    );
}

fn write(root: &std::path::Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A point that starts the SGLang router in front of its data-parallel server:
/// the router is reported as an auxiliary launch of the point, with its words,
/// and the server alone is compared.
#[test]
fn a_router_is_an_auxiliary_launch_of_the_point() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "configs/amd-master.yaml",
        "m-fp8-mi355x-sglang:\n  image: lmsysorg/sglang-rocm:v0.5.19-rocm720-mi35x-20260915\n  \
         model: org/M\n  model-prefix: m\n  runner: mi355x\n  precision: fp8\n  framework: sglang\n  \
         multinode: false\n  scenarios:\n    fixed-seq-len:\n    - isl: 1024\n      osl: 1024\n      \
         search-space:\n      - {tp: 8, dp-attn: true, conc-list: [4]}\n      - {tp: 8, conc-list: [4]}\n",
    );
    write(
        root,
        "benchmarks/single_node/fixed_seq_len/m_fp8_mi355x_sglang.sh",
        "#!/usr/bin/env bash\n\
         BACKEND_PORT=$PORT\n\
         if [ \"$DP_ATTENTION\" = \"true\" ]; then\n\
         \x20   BACKEND_PORT=$((PORT + 1))\n\
         \x20   ROUTER_CMD=(python3 -m sglang_router.launch_router)\n\
         \x20   DP_ARGS=(--dp \"$TP\" --enable-dp-attention)\n\
         fi\n\
         python3 -m sglang.launch_server --model-path \"$MODEL\" --tp \"$TP\" \"${DP_ARGS[@]}\" --port \"$BACKEND_PORT\" &\n\
         if [ \"$DP_ATTENTION\" = \"true\" ]; then\n\
         \x20   \"${ROUTER_CMD[@]}\" --worker-urls \"http://localhost:$BACKEND_PORT\" --dp-aware --port \"$PORT\" &\n\
         fi\n",
    );
    write(
        root,
        "docs/m.md",
        "```bash\nsglang serve --model-path org/M --tp 8 --dp 8 --enable-dp-attention\n```\n",
    );
    write(
        root,
        "recipe-drift.yaml",
        "links:\n  - name: m\n    docs: {file: docs/m.md, hardware: mi355x}\n    recipe:\n      \
         inferencex: {root: ., entry: m-fp8-mi355x-sglang, where: {dp-attn: \"true\"}}\n",
    );
    let r = root.to_str().unwrap();
    let args = [
        "extract",
        "--inferencex",
        r,
        "--entry",
        "m-fp8-mi355x-sglang",
        "--format",
        "json",
    ];
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let dp = &v["points"][0];
    assert_eq!(dp["fields"]["dp-attn"], "true");
    assert_eq!(dp["launches"].as_array().unwrap().len(), 1, "{dp:#}");
    let aux = dp["auxiliary"].as_array().unwrap();
    assert_eq!(aux.len(), 1, "{dp:#}");
    let aux = aux[0].as_str().unwrap();
    assert!(
        aux.contains("m_fp8_mi355x_sglang.sh:5:17: `python3 -m sglang_router.launch_router --worker-urls http://localhost:8889 --dp-aware --port 8888` starts the SGLang router, an auxiliary process (not compared)"),
        "{aux}"
    );
    // The point without DP attention starts no router.
    assert!(v["points"][1].get("auxiliary").is_none(), "{v:#}");
    assert_eq!(run(&args).1, out);

    let config = root.join("recipe-drift.yaml");
    let (code, out, err) = run(&["check", "--config", config.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("note: the recipe side also starts ")
            && out.contains("sglang_router.launch_router --worker-urls"),
        "{out}"
    );
    // Every format lists it, placed on the script line that starts it.
    let at = |f: &str| {
        let (code, out, err) = run(&["check", "--config", config.to_str().unwrap(), "--format", f]);
        assert_eq!(code, 0, "{out}{err}");
        out
    };
    let gh = at("github");
    assert!(
        gh.lines().any(|l| l.starts_with("::notice file=")
            && l.contains("m_fp8_mi355x_sglang.sh,line=5,col=17,title=recipe-drift%3A note::the recipe side also starts")),
        "{gh}"
    );
    assert!(at("markdown").contains("- note: the recipe side also starts "));
    let sarif: serde_json::Value = serde_json::from_str(&at("sarif")).unwrap();
    let notes = &sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    let n = notes
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["descriptor"]["id"] == "link-note")
        .unwrap_or_else(|| panic!("{notes:#}"));
    assert_eq!(n["level"], "note");
    assert_eq!(
        n["locations"][0]["physicalLocation"]["region"]["startLine"],
        5
    );
}

//! Edge cases found by reviewing the tool as a user: shell semantics the plain
//! extractor must get right or refuse, unknowns, gating, config robustness.

use std::collections::BTreeMap;
use std::sync::Arc;

use assert_cmd::Command;
use recipe_drift::engine::resolve;
use recipe_drift::extract::{InputKind, extract_source};
use recipe_drift::launch::Provenance;
use recipe_drift::resolved::{ResolveOptions, Val};
use recipe_drift::span::{Origin, Source};

fn launches(
    text: &str,
    vars: &[(&str, &str)],
) -> Result<Vec<recipe_drift::launch::Launch>, String> {
    let src = Arc::new(Source::new(Origin::Inline("t".into()), text.to_string()));
    let vars: BTreeMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    extract_source(&src, InputKind::Command, &vars).map_err(|e| e.to_string())
}

fn argv(text: &str, vars: &[(&str, &str)]) -> Vec<String> {
    launches(text, vars).unwrap()[0]
        .argv
        .iter()
        .map(|t| t.text.clone())
        .collect()
}

fn run_in(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("recipe-drift")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn control_flow_is_evaluated_as_bash_does() {
    // One shell front end: a command file is read by the bash evaluator,
    // which never decides a condition on a value it does not know.
    let l = launches(
        "TP=4\nif [ \"$DP\" = true ]; then\n  TP=8\nfi\nsglang serve --tp $TP\n",
        &[],
    )
    .unwrap();
    assert!(
        matches!(&l[0].argv[1].provenance, Provenance::Unknown { reason } if reason.contains("condition that is not knowable")),
        "{:?}",
        l[0].argv[1]
    );
    let l = launches(
        "TP=4\nif [ \"$DP\" = true ]; then\n  TP=8\nfi\nsglang serve --tp $TP\n",
        &[("DP", "true")],
    )
    .unwrap();
    assert_eq!(l[0].argv[1].text, "8");
    assert!(
        launches(
            "[ \"$SPEC\" = mtp ] && SPEC_ARGS=\"--speculative-algorithm EAGLE\"\n",
            &[],
        )
        .unwrap()
        .is_empty()
    );
    // A side-effect command before `&&` is fine.
    assert_eq!(
        launches("cd /srv && sglang serve --tp 2", &[])
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn unquoted_expansions_split_and_empty_ones_vanish() {
    let text = "EXTRA=\"--enable-torch-compile --cuda-graph-max-bs 64\"\nsglang serve --tp 2 $EXTRA $EMPTY \"$EMPTY\"\n";
    assert_eq!(
        argv(text, &[("EMPTY", "")]),
        [
            "--tp",
            "2",
            "--enable-torch-compile",
            "--cuda-graph-max-bs",
            "64",
            ""
        ]
    );
}

#[test]
fn unset_variables_are_unknown_not_literal() {
    let l = &launches("sglang serve --model-path a/b --tp $TP", &[]).unwrap()[0];
    assert!(matches!(l.argv[3].provenance, Provenance::Unknown { .. }));
    let r = resolve(
        l,
        &ResolveOptions {
            engine_version: Some("0.5.19".into()),
            ..Default::default()
        },
    )
    .unwrap();
    match &r.values["tp_size"].val {
        Val::Unknown { reason, .. } => assert!(reason.contains("$TP is not set"), "{reason}"),
        other => panic!("tp_size should be unknown, got {other:?}"),
    }
    // Given with --env, it is known.
    let l = &launches("sglang serve --model-path a/b --tp $TP", &[("TP", "4")]).unwrap()[0];
    let r = resolve(l, &ResolveOptions::default()).unwrap();
    assert_eq!(r.values["tp_size"].val, Val::known(4.into()));
}

#[test]
fn docker_pass_through_env_is_unknown_unless_given() {
    let text = "docker run -e SGLANG_USE_AITER img:v0.5.19-rocm700 sglang serve --model-path a/b\n";
    let l = &launches(text, &[]).unwrap()[0];
    let r = resolve(l, &ResolveOptions::default()).unwrap();
    assert!(matches!(
        r.values["env:SGLANG_USE_AITER"].val,
        Val::Unknown { .. }
    ));
    let l = &launches(text, &[("SGLANG_USE_AITER", "1")]).unwrap()[0];
    let r = resolve(l, &ResolveOptions::default()).unwrap();
    assert_eq!(
        r.values["env:SGLANG_USE_AITER"].val,
        Val::known(true.into())
    );
}

#[test]
fn shell_mistakes_are_reported() {
    // A `\` inside a comment: the command ends at the comment, as bash ends
    // it, and the defect names the line bash runs on its own.
    let cut = launches(
        "sglang serve --tp 2 \\\n  # --page-size 16 \\\n  --port 1\n",
        &[],
    )
    .unwrap();
    assert_eq!(cut.len(), 1);
    let words: Vec<&str> = cut[0].argv.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(words, ["--tp", "2"]);
    let [d] = cut[0].defects.as_slice() else {
        panic!("one defect: {:?}", cut[0].defects)
    };
    assert_eq!(d.kind, "broken-continuation");
    assert_eq!(d.span.to_string(), "<t>:2:3");
    assert!(
        d.message.contains("runs `--port 1` (at <t>:3:3)"),
        "{}",
        d.message
    );
    // A comment ending in `\` before another command is no defect.
    let two = launches(
        "sglang serve --tp 2 # two GPUs \\\nsglang serve --tp 4\n",
        &[],
    )
    .unwrap();
    assert_eq!(two.len(), 2);
    assert!(two.iter().all(|l| l.defects.is_empty()));
    // The cut-off line's failure decides what runs next: bash runs the
    // next launch only if `--port` succeeds, which is not knowable.
    let after = launches(
        "sglang serve --tp 2 # x \\\n  --port 1 && sglang serve --tp 4\n",
        &[],
    )
    .unwrap();
    assert_eq!(after.len(), 2);
    assert!(
        matches!(&after[1].launcher[0].provenance, Provenance::Unknown { reason } if reason.contains("not knowable")),
        "{:?}",
        after[1].launcher[0]
    );
    let e = launches("sglang serve --tp 2 |\n", &[]).unwrap_err();
    assert!(e.contains("<t>:1:1: bash syntax error"), "{e}");
    // Arrays, and `bash -c` inside a container, are read as bash runs them.
    assert_eq!(
        argv("ARGS=(--tp 2)\nsglang serve \"${ARGS[@]}\"\n", &[]),
        ["--tp", "2"]
    );
    assert_eq!(
        argv(
            "docker run img bash -c \"python3 -m sglang.launch_server --tp 2\"\n",
            &[]
        ),
        ["--tp", "2"]
    );
}

#[test]
fn wrappers_help_and_prompts() {
    assert_eq!(
        argv(
            "sudo -E timeout 600 numactl --interleave=all uv run sglang serve --tp 2",
            &[]
        ),
        ["--tp", "2"]
    );
    assert!(
        launches("python3 -m sglang.launch_server --help", &[])
            .unwrap()
            .is_empty()
    );
    let page =
        "```console\nuser@box:~$ sglang serve --model-path a/b \\\n> --tp 4\nINFO started\n```\n";
    let src = Arc::new(Source::new(Origin::Inline("p".into()), page.to_string()));
    let l = extract_source(&src, InputKind::Markdown, &BTreeMap::new()).unwrap();
    let words: Vec<&str> = l[0].argv.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(words, ["--model-path", "a/b", "--tp", "4"]);
}

#[test]
fn served_model_name_is_an_alias_for_hf_paths() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.sh"),
        "sglang serve --model-path Qwen/Qwen3-8B --served-model-name default\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("b.sh"),
        "sglang serve --model-path Qwen/Qwen3-8B\n",
    )
    .unwrap();
    let (code, out, err) = run_in(
        dir.path(),
        &["compare", "a.sh", "b.sh", "--hardware", "h100"],
    );
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn settings_without_effect_are_not_drift() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.sh"),
        "sglang serve --model-path a/b --hicache-io-backend direct --speculative-num-steps 5\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("b.sh"),
        "sglang serve --model-path a/b --hicache-io-backend kernel\n",
    )
    .unwrap();
    let (code, out, _) = run_in(
        dir.path(),
        &["compare", "a.sh", "b.sh", "--hardware", "mi355x"],
    );
    assert_eq!(code, 0, "{out}");
    // Switched on, the same difference is drift.
    std::fs::write(dir.path().join("c.sh"), "sglang serve --model-path a/b --enable-hierarchical-cache --hicache-io-backend direct --hicache-mem-layout layer_first\n").unwrap();
    std::fs::write(dir.path().join("d.sh"), "sglang serve --model-path a/b --enable-hierarchical-cache --hicache-io-backend kernel --hicache-mem-layout layer_first\n").unwrap();
    let (code, out, _) = run_in(
        dir.path(),
        &["compare", "c.sh", "d.sh", "--hardware", "mi355x"],
    );
    assert_eq!(code, 1, "{out}");
}

#[test]
fn sglang_config_file_makes_unwritten_options_unknown() {
    let l = &launches(
        "sglang serve --model-path a/b --config server.yaml --tp 2",
        &[],
    )
    .unwrap()[0];
    let r = resolve(l, &ResolveOptions::default()).unwrap();
    assert_eq!(r.values["tp_size"].val, Val::known(2.into()));
    assert!(
        matches!(&r.values["kv_cache_dtype"].val, Val::Unknown { reason, .. } if reason.contains("--config server.yaml"))
    );
}

#[test]
fn check_reports_every_link_even_when_one_is_broken() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("a.sh"), "sglang serve --model-path a/b --tp 2\n").unwrap();
    std::fs::write(
        p.join("c.yaml"),
        "links:\n  - name: broken\n    docs: {file: missing.sh}\n    recipe: {file: a.sh}\n  - name: fine\n    docs: {file: a.sh}\n    recipe: {file: a.sh}\n",
    )
    .unwrap();
    let (code, out, _) = run_in(p, &["check", "--config", "c.yaml"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("link: fine  [ok]"), "{out}");
    assert!(out.contains("link: broken  [error]"), "{out}");
    // Placed at the config's `file:` that names it.
    assert!(
        out.contains("c.yaml:3:18: link \"broken\": docs file missing.sh: no such file"),
        "{out}"
    );
    let (_, json, _) = run_in(p, &["check", "--config", "c.yaml", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["summary"]["failed"], 1);
}

#[test]
fn policy_entries_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("c.yaml"),
        "links: []\npolicy:\n  ignore: [tp_sise]\n",
    )
    .unwrap();
    let (code, _, err) = run_in(dir.path(), &["check", "--config", "c.yaml"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("c.yaml:3:12: policy.ignore: \"tp_sise\""),
        "{err}"
    );
    assert!(err.contains("did you mean tp_size?"), "{err}");
    std::fs::write(
        dir.path().join("d.yaml"),
        "links: []\npolicy:\n  major: [page_size]\n  ignore: [page_size]\n",
    )
    .unwrap();
    let (code, _, err) = run_in(dir.path(), &["check", "--config", "d.yaml"]);
    assert_eq!(code, 2);
    assert!(err.contains("in both major and ignore"), "{err}");
}

#[test]
fn explain_rejects_unknown_and_ambiguous_names() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run_in(dir.path(), &["explain", "tp_sise"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean tp_size?"), "{err}");
    let (code, _, err) = run_in(dir.path(), &["explain", "--", "--hicache"]);
    assert_eq!(code, 2);
    assert!(err.contains("ambiguous"), "{err}");
    let (code, out, _) = run_in(dir.path(), &["explain", "tp"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("tp_size: MAJOR"), "{out}");
}

#[test]
fn context_and_launch_choice_errors_name_their_source() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let (code, _, err) = run_in(
        root,
        &[
            "compare",
            "fixtures/misc/two-commands.md",
            "fixtures/misc/tp-from-env.sh",
            "--docs-launch",
            "0",
        ],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("fixtures/misc/two-commands.md:6:1: launch 0 requested"),
        "{err}"
    );
    assert!(err.contains("numbered from 1"), "{err}");
    let (code, _, err) = run_in(
        root,
        &[
            "compare",
            "fixtures/misc/tp-from-env.sh",
            "fixtures/misc/tp-from-env.sh",
            "--hardware",
            "tpu-v5",
        ],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("--hardware: unknown hardware SKU \"tpu-v5\""),
        "{err}"
    );
    let (code, _, err) = run_in(
        root,
        &[
            "compare",
            "fixtures/misc/tp-from-env.sh",
            "fixtures/misc/tp-from-env.sh",
            "--hardware",
            "mi355x",
            "--platform",
            "cuda",
        ],
    );
    assert_eq!(code, 2);
    assert!(err.contains("hardware mi355x runs on rocm"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.sh"), "sglang serve --model-path a/b\n").unwrap();
    std::fs::write(dir.path().join("c.yaml"), "links:\n  - name: x\n    engine-version: banana\n    docs: {file: a.sh}\n    recipe: {file: a.sh}\n").unwrap();
    let (code, _, err) = run_in(dir.path(), &["check", "--config", "c.yaml"]);
    assert_eq!(code, 2);
    // A config mistake, at its field, before any link runs.
    assert!(
        err.contains(
            "c.yaml:3:21: link \"x\": engine-version: \"banana\" is not a PEP 440 version"
        ),
        "{err}"
    );
}

#[test]
fn bash_recipe_script_against_the_cookbook_page() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let script =
        "fixtures/inferencex/benchmarks/single_node/agentic/qwen3.5_fp4_mi355x_sglang_mtp.sh";
    let mut args = vec![
        "compare",
        "fixtures/demo/qwen35-mi355x-cookbook.md",
        script,
        "--hardware",
        "mi355x",
        "--engine-version",
        "0.5.19",
        "--format",
        "json",
    ];
    for kv in [
        "MODEL=amd/Qwen3.5-397B-A17B-MXFP4",
        "TP=2",
        "EP_SIZE=1",
        "CONC=64",
        "KV_OFFLOADING=dram",
        "KV_OFFLOAD_BACKEND=hicache",
        "TOTAL_CPU_DRAM_GB=1024",
        "RESULT_DIR=/workspace/results",
        "SPEC_DECODING=mtp",
    ] {
        args.extend(["--env", kv]);
    }
    let (code, out, err) = run_in(root, &args);
    assert_eq!(code, 1, "{out}{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let findings = doc["links"][0]["findings"].as_array().unwrap();
    let io = findings
        .iter()
        .find(|f| f["key"] == "hicache_io_backend")
        .unwrap();
    assert_eq!(io["kind"], "contradicts");
    // The recipe's value points at the default in the script, not at the splice.
    assert_eq!(io["recipe"]["spans"][0]["line"], 49);
    assert_eq!(io["recipe"]["spans"][1]["line"], 44);
    // Harness-contract env (TP, CONC, ...) is not compared.
    assert!(!findings.iter().any(|f| f["key"] == "env:CONC"));
    // Without HiCache offload, the recipe emits no HiCache flags at all.
    let mut none = args.clone();
    for a in none.iter_mut() {
        if *a == "KV_OFFLOADING=dram" {
            *a = "KV_OFFLOADING=none";
        }
    }
    let (_, out, _) = run_in(root, &none);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let findings = doc["links"][0]["findings"].as_array().unwrap();
    assert!(
        findings
            .iter()
            .any(|f| f["key"] == "enable_hierarchical_cache" && f["kind"] == "missing")
    );
}

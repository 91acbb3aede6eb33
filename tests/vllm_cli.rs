//! CLI tests for vLLM command lines (`resolve --engine vllm --raw`).

use assert_cmd::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("recipe-drift")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
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
fn raw_parse_applies_vllm_spellings() {
    let (code, out, err) = run(&[
        "resolve",
        "--engine",
        "vllm",
        "--raw",
        "--engine-version",
        "0.25.1",
        "--format",
        "json",
        "--",
        "--model",
        "Qwen/Qwen3-8B",
        "-tp",
        "4",
        "--max_model_len",
        "32k",
        "--compilation-config",
        "{\"mode\": 3}",
        "--compilation-config.cudagraph_mode",
        "FULL_DECODE_ONLY",
        "-O3",
        "-ep",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ns = &v["namespace"];
    assert_eq!(v["version"]["version"], "0.25.1");
    assert_eq!(ns["model_tag"], "Qwen/Qwen3-8B");
    assert_eq!(ns["tensor_parallel_size"], 4);
    assert_eq!(ns["max_model_len"], 32000);
    assert_eq!(ns["enable_expert_parallel"], true);
    assert_eq!(ns["optimization_level"], "3");
    // The dotted key is appended last, so it replaces the earlier full JSON.
    assert_eq!(
        ns["compilation_config"]["input"],
        serde_json::json!({"cudagraph_mode": "FULL_DECODE_ONLY"})
    );
}

#[test]
fn a_version_between_releases_uses_the_nearest_lower_one() {
    let (code, out, err) = run(&[
        "resolve",
        "--engine",
        "vllm",
        "--raw",
        "--engine-version",
        "0.25.5",
        "--",
        "m",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("# vllm 0.25.1 (--engine-version; 0.25.5 is not bundled"),
        "{out}"
    );
}

#[test]
fn vllm_errors_are_input_errors() {
    let (code, _, err) = run(&[
        "resolve",
        "--engine",
        "vllm",
        "--raw",
        "--",
        "--tp",
        "2",
        "--served-model-name",
        "x",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("`model` should be provided as the first positional argument"),
        "{err}"
    );
    let (code, _, err) = run(&[
        "resolve",
        "--engine",
        "vllm",
        "--raw",
        "--engine-version",
        "0.33.0",
        "--",
        "m",
        "--tensor-parallel-size",
        "x",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("vllm 0.33.0: argument --tensor-parallel-size/-tp: invalid int value: 'x'"),
        "{err}"
    );
}

//! Values are read as the engines (Python programs) read them: `json.loads`
//! accepts NaN, Infinity, 1e400 and lone surrogates; `int()` accepts every
//! Unicode decimal digit.

mod common;

use common::run;

fn resolve_json(args: &[&str]) -> serde_json::Value {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

fn by_name<'a>(v: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    v["resolved"]["values"]
        .as_object()
        .unwrap()
        .values()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no {name}"))
}

#[test]
fn unicode_digits_are_ints() {
    let v = resolve_json(&[
        "resolve",
        "--engine",
        "vllm",
        "--engine-version",
        "0.19.0",
        "--format",
        "json",
        "--",
        "m",
        "--max-num-seqs",
        "１２",
    ]);
    assert_eq!(by_name(&v, "max_num_seqs")["value"], 12);
    let v = resolve_json(&[
        "resolve",
        "--engine",
        "sglang",
        "--format",
        "json",
        "--",
        "--model-path",
        "m",
        "--tp-size",
        "٢",
    ]);
    assert_eq!(v["resolved"]["values"]["tp_size"]["value"], 2);
}

#[test]
fn json_reads_like_python() {
    let v = resolve_json(&[
        "resolve",
        "--engine",
        "vllm",
        "--engine-version",
        "0.19.0",
        "--format",
        "json",
        "--",
        "m",
        "--compilation-config",
        r#"{"inductor_compile_config": {"x": Infinity, "y": 1e400, "n": NaN, "z": "\ud800"}}"#,
    ]);
    let vals = &v["resolved"]["values"];
    assert_eq!(
        vals["compilation_config.inductor_compile_config.x"]["value"],
        "inf"
    );
    assert_eq!(
        vals["compilation_config.inductor_compile_config.y"]["value"],
        "inf"
    );
    assert_eq!(
        vals["compilation_config.inductor_compile_config.n"]["value"],
        "NaN"
    );
    assert_eq!(
        vals["compilation_config.inductor_compile_config.z"]["value"],
        "\\ud800"
    );
}

fn vllm(version: &str, argv: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "resolve",
        "--engine",
        "vllm",
        "--engine-version",
        version,
        "--",
    ];
    args.push("org/m");
    args.extend_from_slice(argv);
    run(&args)
}

/// Config-class fields are checked against the release's field types, as
/// pydantic checks them: an option typed with its class refuses the value when
/// parsing (exit 2), a plain JSON option fails when the engine starts.
#[test]
fn config_class_fields_are_validated_per_release() {
    let (code, _, err) = vllm("0.19.0", &["-cc.max_cudagraph_capture_size", "1k"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("vllm 0.19.0: CompilationConfig.max_cudagraph_capture_size: Input should be a valid integer, unable to parse string as an integer, got '1k'"),
        "{err}"
    );
    // From 0.20.0 a dotted value is a human-readable int first.
    let (code, out, err) = vllm("0.20.0", &["-cc.max_cudagraph_capture_size", "1k"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("compilation_config.max_cudagraph_capture_size = 1000"),
        "{out}"
    );
    let (code, _, err) = vllm("0.19.0", &["-cc.mode=3=4"]);
    assert_eq!(code, 2);
    assert!(err.contains("CompilationConfig.mode: Input should be one of NONE, STOCK_TORCH_COMPILE, DYNAMO_TRACE_ONCE, VLLM_COMPILE, got '3=4'"), "{err}");
    // Enum names in any case, and values, are what vLLM's validator accepts.
    for ok in [
        "-cc.mode=vllm_compile",
        "-cc.mode=3",
        "-cc.cudagraph_mode=full_and_piecewise",
    ] {
        let (code, _, err) = vllm("0.19.0", &[ok]);
        assert_eq!(code, 0, "{ok}: {err}");
    }
    let (code, _, err) = vllm("0.19.0", &["--kv-transfer-config.kv_connector", "5"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("KVTransferConfig.kv_connector: Input should be a valid string, got 5"),
        "{err}"
    );
    let (code, _, err) = vllm("0.19.0", &["--kv-transfer-config.kv_role", "both"]);
    assert_eq!(code, 2);
    assert!(err.contains("KVTransferConfig.kv_role: Input should be 'kv_producer' or 'kv_both' or 'kv_consumer', got 'both'"), "{err}");
    // A connector needs a role (KVTransferConfig.__post_init__): a startup error.
    let (code, out, _) = vllm(
        "0.19.0",
        &["--kv-transfer-config.kv_connector", "NixlConnector"],
    );
    assert_eq!(code, 1);
    assert!(
        out.contains("# startup error: Please specify kv_role when kv_connector is set"),
        "{out}"
    );
    let (code, _, err) = vllm(
        "0.19.0",
        &[
            "--kv-transfer-config.kv_connector",
            "NixlConnector",
            "--kv-transfer-config.kv_role",
            "kv_both",
        ],
    );
    assert_eq!(code, 0, "{err}");
    // A plain JSON option (0.26's --speculative-config) is built into its class
    // at startup: a method the release does not have is a startup error there.
    let (code, out, _) = vllm(
        "0.26.0",
        &[
            "-sc",
            r#"{"method": "kimi_k3_mtp", "num_speculative_tokens": 1}"#,
        ],
    );
    assert_eq!(code, 1);
    assert!(
        out.contains("# startup error: SpeculativeConfig.method: Input should be"),
        "{out}"
    );
    assert!(out.contains("got 'kimi_k3_mtp'"), "{out}");
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// `extract --all-selections --format json` gives each selection's argv as the
/// words recipe-drift resolves: a recipe YAML item `"--max-num-seqs 64"` is
/// two words of the site's command.
#[test]
fn recipe_selection_argv_is_the_resolved_words() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vllm-recipes");
    copy_dir(&repo.join("strategies"), &root.join("strategies"));
    std::fs::copy(repo.join("taxonomy.yaml"), root.join("taxonomy.yaml")).unwrap();
    let text = std::fs::read_to_string(repo.join("models/pebble/Pebble-8B-Instruct.yaml")).unwrap();
    let text = text.replacen(
        "    - \"--enforce-eager\"\n",
        "    - \"--enforce-eager\"\n    - \"--max-num-seqs 64\"\n",
        1,
    );
    let file = root.join("models/pebble/Pebble-8B-Instruct.yaml");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, text).unwrap();
    let f = file.to_str().unwrap();
    std::fs::create_dir(root.join(".git")).unwrap();
    let (code, out, err) = run(&["extract", f, "--all-selections", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for s in v["selections"].as_array().unwrap() {
        let argv: Vec<&str> = s["argv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap())
            .collect();
        assert!(
            argv.windows(2).any(|w| w == ["--max-num-seqs", "64"]),
            "{argv:?}"
        );
        assert!(!argv.contains(&"--max-num-seqs 64"), "{argv:?}");
        assert!(s.get("error").is_none(), "{s:#}");
    }
}

#[test]
fn resolve_help_says_both_engines_resolve() {
    let (code, out, _) = run(&["resolve", "--help"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("(SGLang or vLLM) parses and resolves"),
        "{out}"
    );
    assert!(out.contains("both are parsed and resolved"), "{out}");
}

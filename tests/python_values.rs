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

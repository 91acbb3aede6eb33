use super::loader;
use crate::extract::bash::expand::Val;

/// A loader-shaped program (the inputs as the shell expands them, one print
/// per variable the model knows) over a models.yaml of ours.
fn program(path: &str, model: &str, agentic: &str, prints: &[&str]) -> String {
    let mut p = format!(
        "import yaml, sys, os\nconfig_path = '{path}'\nmodel_name = '{model}'\nis_agentic = '{agentic}'.strip().lower() in ('1', 'true')\nwith open(config_path) as f:\n    models = yaml.safe_load(f)\n"
    );
    for n in prints {
        p.push_str(&format!("print(f'{n}=\\\"{{x}}\\\"')\n"));
    }
    p
}

fn models(dir: &std::path::Path) -> String {
    let path = dir.join("models.yaml");
    std::fs::write(
        &path,
        "Org-Model-DI:\n  base_flags: \"--kv-cache-dtype fp8_e4m3 --disaggregation-transfer-backend mori\"\n  mtp_flags: \"--speculative-algorithm NEXTN\"\n  prefill:\n    disable_radix_cache: true\n    dp:\n      chunked_prefill_size: \"TOKENS * (TP_SIZE + 1)\"\n      context_length: 9217\n    no_dp:\n      cuda_graph_bs_range: \"2-64\"\n  decode:\n    mem_fraction_static: 0.9\nOrg-Model:\n  base_flags: \"--bare\"\n",
    )
    .unwrap();
    path.display().to_string()
}

fn var(n: &str) -> Option<Val> {
    match n {
        "TOKENS" => Some(Val::Known("8192".into())),
        "TP_SIZE" => Some(Val::Known("7".into())),
        "UNKNOWN_N" => Some(Val::Unknown("not knowable".into())),
        _ => None,
    }
}

fn lines(out: &str) -> std::collections::BTreeMap<String, String> {
    out.lines()
        .filter_map(|l| l.split_once("=\""))
        .map(|(k, v)| (k.to_string(), v.trim_end_matches('"').to_string()))
        .collect()
}

#[test]
fn the_loader_prints_the_entry_with_its_defaults_formulas_and_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let path = models(dir.path());
    let names: Vec<&str> = super::loader::PRINTS.iter().map(|p| p.0).collect();
    let p = program(&path, "Org-Model", "0", &names);
    assert!(loader::is_loader(&p));
    let out = loader::output(&p, &var).unwrap();
    assert!(
        out.starts_with("echo \"Selected models.yaml entry: Org-Model-DI (IS_AGENTIC=False)\""),
        "{out}"
    );
    let v = lines(&out);
    assert_eq!(
        v["MODEL_BASE_FLAGS"],
        "--kv-cache-dtype fp8_e4m3 --disaggregation-transfer-backend mori"
    );
    assert_eq!(v["MODEL_DP_FLAGS"], "");
    // Python's str(): a YAML true is True, a float its repr.
    assert_eq!(v["PREFILL_DISABLE_RADIX_CACHE"], "True");
    assert_eq!(v["DECODE_MEM_FRACTION_STATIC"], "0.9");
    assert_eq!(v["PREFILL_MEM_FRACTION_STATIC"], "0.8");
    // A formula over the environment's integers; a plain default.
    assert_eq!(v["PREFILL_CHUNKED_PREFILL_SIZE_DP"], "65536");
    assert_eq!(v["DECODE_CHUNKED_PREFILL_SIZE_DP"], "262144");
    assert_eq!(v["PREFILL_CONTEXT_LENGTH_DP"], "9217");
    // "start-end" ranges, and the default range where none is written.
    assert_eq!(v["PREFILL_CUDA_GRAPH_BS_NO_DP_START"], "2");
    assert_eq!(v["PREFILL_CUDA_GRAPH_BS_NO_DP_END"], "64");
    assert_eq!(v["DECODE_CUDA_GRAPH_BS_DP_END"], "160");
    // Agentic runs look for <model>-AgentX and fall back to the bare name.
    let out = loader::output(&program(&path, "Org-Model", "1", &names), &var).unwrap();
    assert_eq!(lines(&out)["MODEL_BASE_FLAGS"], "--bare");
    // A model the file does not have: the loader's own error and exit.
    let out = loader::output(&program(&path, "Other", "0", &names), &var).unwrap();
    assert!(out.contains("exit 1"), "{out}");
}

#[test]
fn a_loader_that_prints_other_variables_or_reads_an_unknown_value_is_not_knowable() {
    let dir = tempfile::tempdir().unwrap();
    let path = models(dir.path());
    let mut names: Vec<&str> = super::loader::PRINTS.iter().map(|p| p.0).collect();
    names.push("NEW_SETTING");
    let e = loader::output(&program(&path, "Org-Model", "0", &names), &var).unwrap_err();
    assert!(e.contains("NEW_SETTING"), "{e}");
    std::fs::write(
        dir.path().join("models.yaml"),
        "Org-Model:\n  prefill:\n    dp:\n      chunked_prefill_size: \"UNKNOWN_N * 2\"\n",
    )
    .unwrap();
    let names: Vec<&str> = super::loader::PRINTS.iter().map(|p| p.0).collect();
    let e = loader::output(&program(&path, "Org-Model", "0", &names), &var).unwrap_err();
    assert!(e.contains("UNKNOWN_N") && e.contains("not knowable"), "{e}");
    // A name Python does not have: the formula is printed as written.
    std::fs::write(
        dir.path().join("models.yaml"),
        "Org-Model:\n  prefill:\n    dp:\n      chunked_prefill_size: \"MISSING * 2\"\n",
    )
    .unwrap();
    let out = loader::output(&program(&path, "Org-Model", "0", &names), &var).unwrap();
    assert_eq!(
        lines(&out)["PREFILL_CHUNKED_PREFILL_SIZE_DP"],
        "MISSING * 2"
    );
}

//! YAML that Python reads (vLLM `--config` files, the InferenceX matrix) is
//! typed as PyYAML types it (YAML 1.1), not as YAML 1.2: `0o10` is the string
//! vLLM's `int()` refuses, `010` is 8, `1_0` is 10. A confident YAML 1.2
//! reading would call a refused or different command equal.

use crate::Repo;

#[test]
fn vllm_config_files_are_typed_as_pyyaml_types_them() {
    let repo = Repo::new();
    repo.write("docs.txt", "vllm serve org/m -tp 8\n");
    repo.write("recipe.txt", "vllm serve org/m --config cfg.yaml\n");
    // YAML 1.2 reads 0o10 as 8; PyYAML reads the string "0o10", which
    // vLLM's argparse refuses: the recipe would not start (a finding, RD006,
    // at the config file's line).
    repo.write("cfg.yaml", "tensor-parallel-size: 0o10\n");
    let o = repo.run_deterministic(&["compare", "docs.txt", "recipe.txt", "--format", "concise"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(1), "{}", o.both());
    assert!(
        o.stdout.contains("cfg.yaml:1:1: error[RD006 startup-error] the recipe command would not start: vllm 0.34.0: argument --tensor-parallel-size/-tp: invalid int value: '0o10'"),
        "{}",
        o.both()
    );
    // YAML 1.1 octal and underscores: 010 is 8 and 1_0 is 10.
    for (yaml, code) in [("010", 0), ("8", 0), ("1_0", 1), ("0b1000", 0), ("0x8", 0)] {
        repo.write("cfg.yaml", format!("tensor-parallel-size: {yaml}\n"));
        let o = repo.run_deterministic(&["compare", "docs.txt", "recipe.txt"]);
        o.assert_bounded();
        assert_eq!(o.code, Some(code), "{yaml}: {}", o.both());
    }
    // A spelling PyYAML itself fails on is an error at it.
    repo.write("cfg.yaml", "tensor-parallel-size: 0b_\n");
    repo.run_deterministic(&["compare", "docs.txt", "recipe.txt"])
        .assert_input_error("cfg.yaml:1:23", &["PyYAML cannot read"]);
}

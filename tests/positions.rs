//! Typed positions: errors keep their span through every report (no position
//! is recovered by splitting a message), and config positions come from the
//! YAML parser's own locations.

mod common;

use common::run;

fn write(dir: &std::path::Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

/// A folder whose name holds `: ` (and a digit after a colon) does not
/// confuse the placement of a finding (a refused option, RD006) in SARIF and
/// GitHub output.
#[test]
fn an_error_in_a_path_with_colons_is_placed_on_its_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("docs: v2:3");
    std::fs::create_dir(&dir).unwrap();
    write(
        &dir,
        "bad.sh",
        "#!/bin/bash\nsglang serve \\\n  --model-path org/m --tp-sizee 2\n",
    );
    write(&dir, "ok.sh", "sglang serve --model-path org/m\n");
    // The config is in the folder above: the file's label, its path from the
    // config's folder, holds the colons.
    write(
        tmp.path(),
        "c.yaml",
        "links:\n  - name: one\n    docs: {file: 'docs: v2:3/bad.sh'}\n    recipe: {file: 'docs: v2:3/ok.sh'}\n",
    );
    let cfg = tmp.path().join("c.yaml");
    let cfg = cfg.to_str().unwrap();
    let (code, out, err) = run(&["check", "--config", cfg, "--format", "github"]);
    assert_eq!(code, 1, "{err}");
    let expected = "::error file=docs%3A v2%3A3/bad.sh,line=3,col=22,";
    assert!(out.contains(expected), "{expected}\n{out}");
    let (_, sarif, _) = run(&["check", "--config", cfg, "--format", "sarif"]);
    let doc: serde_json::Value = serde_json::from_str(&sarif).unwrap();
    let result = &doc["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "RD006", "{result}");
    let location = &result["locations"][0]["physicalLocation"];
    assert_eq!(
        location["artifactLocation"]["uri"], "docs%3A%20v2%3A3/bad.sh",
        "{result}"
    );
    assert_eq!(location["region"]["startLine"], 3, "{result}");
    assert_eq!(location["region"]["startColumn"], 22, "{result}");
}

/// Policy entries and waiver fields are placed where the YAML writes them,
/// also when the same text appears earlier in the file (a comment, a link name).
#[test]
fn config_errors_point_at_the_entry_the_parser_located() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(dir, "a.sh", "sglang serve --model-path org/m\n");
    write(
        dir,
        "c.yaml",
        "# page_sise appears in this comment first\nlinks:\n  - name: page_sise\n    docs: {file: a.sh}\n    recipe: {file: a.sh}\npolicy:\n  minor: [env:page_sise]\n  major: [hicache_io_backend, page_sise]\n",
    );
    let cfg = dir.join("c.yaml");
    let (code, _, err) = run(&["check", "--config", cfg.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("c.yaml:8:31: policy.major: \"page_sise\""),
        "{err}"
    );

    write(
        dir,
        "w.yaml",
        "links:\n  - name: x\n    docs: {file: a.sh}\n    recipe: {file: a.sh}\nwaivers:\n  - link: x\n    key: page_size\n    reason: \"because\"\n    until: 2027-02-30\n",
    );
    let cfg = dir.join("w.yaml");
    let (code, _, err) = run(&["check", "--config", cfg.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("w.yaml:9:12: waivers: until"), "{err}");
}

/// A YAML syntax error is placed where serde-saphyr reports it.
#[test]
fn yaml_errors_are_placed_from_the_parser_location() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(
        dir,
        "c.yaml",
        "links:\n  - name: x\n    docs: {file: a.sh\n",
    );
    let cfg = dir.join("c.yaml");
    let (code, _, err) = run(&["check", "--config", cfg.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("c.yaml:"), "{err}");
    assert!(err.contains("invalid YAML"), "{err}");
    assert!(
        !err.contains("c.yaml:1:1:"),
        "placed at the file start: {err}"
    );
}

/// Every span names its source in the source map, so the human report shows
/// the lines of a file other than the launch's own: a vLLM `--config` YAML
/// that sets the value.
#[test]
fn a_value_from_a_config_file_is_shown_with_its_own_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(dir, "serve.yaml", "# serving\ntensor-parallel-size: 4\n");
    write(dir, "a.sh", "vllm serve org/m --config serve.yaml\n");
    write(dir, "b.sh", "vllm serve org/m -tp 2\n");
    let (a, b) = (dir.join("a.sh"), dir.join("b.sh"));
    let (code, out, err) = run(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    // The files are outside the run's root (the current folder): their
    // labels are `../` from there or absolute, by where the checkout and the
    // temporary folder are.
    assert!(
        out.lines()
            .any(|l| l.trim_start().starts_with("--> ") && l.ends_with("/serve.yaml:2:1")),
        "{out}"
    );
    assert!(out.contains("2 | tensor-parallel-size: 4"), "{out}");
    assert!(out.contains("docs: 4"), "{out}");
}

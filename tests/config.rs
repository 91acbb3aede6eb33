//! The config file as a linter's users expect it: found upward from the
//! current folder, named by `$RECIPE_DRIFT_CONFIG`, ignored with `--no-config`,
//! and every error of it reported at once, with suggestions for typos.

use std::path::Path;

/// Two commands that differ only in `NCCL_ALGO` (an env var recipe-drift
/// compares as minor unless a policy says otherwise).
const DOCS: &str = "NCCL_ALGO=ring sglang serve --model-path org/m --tp 8\n";
const RECIPE: &str = "sglang serve --model-path org/m --tp 8\n";

/// A scratch repository (with `.git/`) holding the two command files.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::write(dir.path().join("docs.txt"), DOCS).unwrap();
    std::fs::write(dir.path().join("recipe.txt"), RECIPE).unwrap();
    dir
}

fn run(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = assert_cmd::Command::cargo_bin("recipe-drift").unwrap();
    cmd.current_dir(cwd).env_remove("RECIPE_DRIFT_CONFIG");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

const MAJOR_NCCL: &str = "links:
  - name: pair
    docs: {file: docs.txt}
    recipe: {file: recipe.txt}
policy:
  major: [env:NCCL_ALGO]
";

#[test]
fn check_finds_the_config_in_a_parent_folder_of_the_repository() {
    let d = repo();
    std::fs::write(d.path().join(".recipe-drift.yaml"), MAJOR_NCCL).unwrap();
    let sub = d.path().join("docs/deeper");
    std::fs::create_dir_all(&sub).unwrap();
    let (code, out, err) = run(&sub, &["check"], &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("env:NCCL_ALGO"), "{out}");
    // In .github/ of a parent folder too (its paths are relative to .github/).
    std::fs::create_dir(d.path().join(".github")).unwrap();
    std::fs::remove_file(d.path().join(".recipe-drift.yaml")).unwrap();
    std::fs::write(
        d.path().join(".github/.recipe-drift.yaml"),
        MAJOR_NCCL.replace("file: ", "file: ../"),
    )
    .unwrap();
    let (code, out, err) = run(&sub, &["check"], &[]);
    assert_eq!(code, 1, "{out}{err}");
}

#[test]
fn the_search_stops_at_the_repository_top_level() {
    let outer = tempfile::tempdir().unwrap();
    std::fs::write(outer.path().join(".recipe-drift.yaml"), MAJOR_NCCL).unwrap();
    let inner = outer.path().join("repo");
    std::fs::create_dir_all(inner.join(".git")).unwrap();
    let (code, _, err) = run(&inner, &["check"], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no config file"), "{err}");
    assert!(err.contains("RECIPE_DRIFT_CONFIG"), "{err}");
    // Every name the search tries, from the same list, and the page that
    // explains it.
    for name in [
        ".recipe-drift.yaml",
        ".github/.recipe-drift.yaml",
        ".github/recipe-drift.yaml",
    ] {
        assert!(err.contains(name), "{name}: {err}");
    }
    assert!(
        err.contains("docs/src/troubleshooting.md#no-config-file"),
        "{err}"
    );
}

/// A missing config file is named alone, with no made-up line and column.
#[test]
fn a_missing_config_file_is_named_without_a_position() {
    let d = repo();
    let (code, _, err) = run(d.path(), &["check", "--config", "nonexist.yaml"], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("nonexist.yaml: cannot read file: no such file"),
        "{err}"
    );
    assert!(!err.contains("nonexist.yaml:1:1"), "{err}");
}

#[test]
fn recipe_drift_config_names_the_config_and_a_missing_one_is_an_error() {
    let d = repo();
    std::fs::write(d.path().join("elsewhere.yaml"), MAJOR_NCCL).unwrap();
    let (code, out, err) = run(
        d.path(),
        &["check"],
        &[("RECIPE_DRIFT_CONFIG", "elsewhere.yaml")],
    );
    assert_eq!(code, 1, "{out}{err}");
    let (code, _, err) = run(
        d.path(),
        &["check"],
        &[("RECIPE_DRIFT_CONFIG", "nope.yaml")],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("$RECIPE_DRIFT_CONFIG names nope.yaml, which is not a file"),
        "{err}"
    );
    // --config wins over the variable.
    std::fs::write(
        d.path().join("plain.yaml"),
        "links:\n  - name: pair\n    docs: {file: docs.txt}\n    recipe: {file: recipe.txt}\n",
    )
    .unwrap();
    let (code, out, err) = run(
        d.path(),
        &["check", "--config", "plain.yaml"],
        &[("RECIPE_DRIFT_CONFIG", "elsewhere.yaml")],
    );
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn compare_applies_the_found_config_policy_unless_no_config() {
    let d = repo();
    std::fs::write(d.path().join(".recipe-drift.yaml"), MAJOR_NCCL).unwrap();
    let (code, out, err) = run(d.path(), &["compare", "docs.txt", "recipe.txt"], &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("env:NCCL_ALGO is set to ring by docs only") && out.contains("(MAJOR)"),
        "{out}"
    );
    let (code, out, err) = run(
        d.path(),
        &["compare", "--no-config", "docs.txt", "recipe.txt"],
        &[],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("(minor)"), "{out}");
    // A broken config is reported, not silently skipped.
    std::fs::write(
        d.path().join(".recipe-drift.yaml"),
        "links: []\npolicy:\n  major: [tp_sise]\n",
    )
    .unwrap();
    let (code, _, err) = run(d.path(), &["compare", "docs.txt", "recipe.txt"], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(".recipe-drift.yaml:3:11"), "{err}");
    assert!(err.contains("did you mean tp_size?"), "{err}");
}

#[test]
fn every_error_of_a_config_is_reported_at_once_in_file_order() {
    let d = repo();
    let config = "links:
  - name: pair
    hardware: h2000
    docs: {file: docs.txt, platform: cdua}
    recipe: {file: recipe.txt, engine-version: banana}
  - name: pair
    docs: {file: ../outside.txt, env: {\"1A\": x}}
    recipe: {file: recipe.txt}
policy:
  major: [env:VLLM_USE_DEEP_GEM, env:NCCL_ALGO, hicache_io_backnd]
  minor: [env:NCCL_ALGO]
waivers:
  - {link: pairs, key: tp_sise, reason: \"\", until: 2027-13-01}
";
    std::fs::write(d.path().join(".recipe-drift.yaml"), config).unwrap();
    let (code, out, err) = run(d.path(), &["check"], &[]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    let lines: Vec<&str> = err.lines().collect();
    let expected: &[(&str, &str)] = &[
        (
            ".recipe-drift.yaml:3:15:",
            "unknown hardware SKU \"h2000\" (did you mean h200?)",
        ),
        (".recipe-drift.yaml:4:38:", "unknown platform \"cdua\""),
        (
            ".recipe-drift.yaml:5:48:",
            "\"banana\" is not a PEP 440 version",
        ),
        (".recipe-drift.yaml:6:11:", "a second link of this name"),
        (".recipe-drift.yaml:7:18:", "outside the repository root"),
        (
            ".recipe-drift.yaml:7:39:",
            "\"1A\" is not an environment variable name",
        ),
        (
            ".recipe-drift.yaml:10:11:",
            "(did you mean env:VLLM_USE_DEEP_GEMM?)",
        ),
        (
            ".recipe-drift.yaml:10:49:",
            "(did you mean hicache_io_backend",
        ),
        (
            ".recipe-drift.yaml:11:11:",
            "\"env:NCCL_ALGO\" is in both major and minor",
        ),
        (".recipe-drift.yaml:13:12:", "(did you mean \"pair\"?)"),
        (".recipe-drift.yaml:13:24:", "(did you mean tp_size?)"),
        (".recipe-drift.yaml:13:41:", "needs a reason"),
        (".recipe-drift.yaml:13:52:", "is not a YYYY-MM-DD date"),
    ];
    assert_eq!(lines.len(), expected.len(), "{err}");
    for (line, (at, words)) in lines.iter().zip(expected) {
        assert!(line.starts_with("error: "), "{line}");
        assert!(line.contains(at), "{line} (expected {at})");
        assert!(line.contains(words), "{line} (expected {words})");
    }
    // The same bytes on every run.
    let (_, _, again) = run(d.path(), &["check"], &[]);
    assert_eq!(err, again);
}

#[test]
fn a_sku_with_a_runner_suffix_or_an_explicit_platform_is_accepted() {
    let d = repo();
    let config = "links:
  - name: pair
    hardware: b200-dgxc
    docs: {file: docs.txt}
    recipe: {file: recipe.txt, hardware: tpu-v5, platform: cuda}
";
    std::fs::write(d.path().join(".recipe-drift.yaml"), config).unwrap();
    let (code, out, err) = run(d.path(), &["check"], &[]);
    // The link runs (the hardware differs: drift), the config is not refused.
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("hardware differs"), "{out}");
}

#[test]
fn engine_variables_outside_vllms_table_are_refused_others_accepted() {
    let d = repo();
    for (entry, ok) in [
        ("env:VLLM_USE_DEEP_GEMM", true),
        ("env:VLLM_NOT_A_REAL_VARIABLE", false),
        ("env:NCCL_ALGO", true),
        ("env:SGLANG_ENABLE_JIT_DEEPGEMM", true),
        ("env:VLLM_*", true),
    ] {
        std::fs::write(
            d.path().join(".recipe-drift.yaml"),
            format!(
                "links:\n  - name: pair\n    docs: {{file: docs.txt}}\n    recipe: {{file: recipe.txt}}\npolicy:\n  minor: [\"{entry}\"]\n"
            ),
        )
        .unwrap();
        let (code, _, err) = run(d.path(), &["check"], &[]);
        assert_eq!(code == 0, ok, "{entry}: {err}");
        if !ok {
            assert!(err.contains("no bundled release reads"), "{err}");
        }
    }
}

/// The schema `recipe-drift config-schema` prints (from the types the config
/// is read into).
fn generated_schema() -> String {
    let out = assert_cmd::Command::cargo_bin("recipe-drift")
        .unwrap()
        .arg("config-schema")
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

const PUBLISHED: &str = "docs/config.schema.json";

#[test]
fn the_published_schema_is_the_generated_one() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let generated = generated_schema();
    if std::env::var_os("RECIPE_DRIFT_BLESS").is_some() {
        std::fs::write(root.join(PUBLISHED), &generated).unwrap();
    }
    let published = std::fs::read_to_string(root.join(PUBLISHED)).unwrap();
    assert!(
        published == generated,
        "{PUBLISHED} is stale: run `RECIPE_DRIFT_BLESS=1 cargo test --test config` (or `recipe-drift config-schema > {PUBLISHED}`)"
    );
}

/// A YAML config as the JSON value the schema describes.
fn as_json(yaml: &str) -> serde_json::Value {
    serde_saphyr::from_str(yaml).unwrap()
}

#[test]
fn the_bundled_configs_validate_against_the_schema_and_mistakes_do_not() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let schema: serde_json::Value = serde_json::from_str(&generated_schema()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let mut checked = 0;
    for dir in ["fixtures/demo", "fixtures/misc"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
        files.sort();
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            if !text.starts_with("links:") && !text.contains("\nlinks:") {
                continue;
            }
            let v = as_json(&text);
            let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{}: {errors:?}", f.display());
            checked += 1;
        }
    }
    assert!(checked >= 6, "{checked} configs checked");
    for bad in [
        // A misspelled top-level key.
        "links: []\npolicies: {major: [tp_size]}\n",
        // A misspelled side field.
        "links:\n  - name: a\n    docs: {fiel: d.md}\n    recipe: {file: r.sh}\n",
        // A waiver without its reason.
        "links: []\nwaivers:\n  - {link: a, key: tp_size, until: 2027-01-01}\n",
        // `unknown:` takes missing or warning.
        "links: []\npolicy: {unknown: maybe}\n",
        // A launch number is a number.
        "links:\n  - name: a\n    docs: {file: d.md, launch: first}\n    recipe: {file: r.sh}\n",
    ] {
        assert!(!validator.is_valid(&as_json(bad)), "{bad}");
    }
}

#[test]
fn a_missing_file_is_reported_at_the_config_field_that_names_it() {
    let d = repo();
    std::fs::create_dir(d.path().join("folder")).unwrap();
    let config = "links:
  - name: gone
    docs: {file: nothere.md}
    recipe: {file: recipe.txt}
  - name: folder
    docs: {file: docs.txt}
    recipe: {file: folder}
  - name: fine
    docs: {file: docs.txt}
    recipe: {file: recipe.txt}
";
    std::fs::write(d.path().join(".recipe-drift.yaml"), config).unwrap();
    let (code, out, err) = run(d.path(), &["check"], &[]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        out.contains(
            "error: .recipe-drift.yaml:3:18: link \"gone\": docs file nothere.md: no such file"
        ),
        "{out}"
    );
    assert!(
        out.contains("error: .recipe-drift.yaml:7:20: link \"folder\": recipe file folder: is a folder, not a file"),
        "{out}"
    );
    // The other links still run.
    assert!(out.contains("link: fine  [ok]"), "{out}");
}

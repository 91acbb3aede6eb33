//! Linter conventions: finding kinds are explained by id and by name.

fn explain(args: &[&str]) -> (i32, String, String) {
    let out = assert_cmd::Command::cargo_bin("recipe-drift")
        .unwrap()
        .arg("explain")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The (id, name) rows of `src/findings.yaml`, read as text (the table the
/// binary bundles).
fn kinds() -> Vec<(String, String)> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/findings.yaml")).unwrap();
    let table: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    table["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["id"].as_str().unwrap().to_string(),
                k["name"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn every_finding_kind_is_explained_by_its_id_and_by_its_name() {
    let kinds = kinds();
    assert!(kinds.len() >= 6);
    for (id, name) in &kinds {
        for ask in [id.as_str(), &id.to_lowercase(), name.as_str()] {
            let (code, out, err) = explain(&[ask]);
            assert_eq!(code, 0, "{ask}: {err}");
            assert!(out.starts_with(&format!("{id} {name}: ")), "{ask}: {out}");
            assert!(out.contains("severity: "), "{out}");
            assert!(out.contains("example ("), "{out}");
        }
    }
    // Keys are still explained beside kinds, in the order asked.
    let (code, out, _) = explain(&["RD001", "tp"]);
    assert_eq!(code, 0);
    let kind_at = out.find("RD001 contradicts").unwrap();
    let key_at = out.find("tp_size: MAJOR").unwrap();
    assert!(kind_at < key_at, "{out}");
    // Not a kind and not a key: an error with suggestions.
    let (code, _, err) = explain(&["RD999"]);
    assert_eq!(code, 2, "{err}");
}

fn compare(dir: &std::path::Path, args: &[&str]) -> (i32, String) {
    let out = assert_cmd::Command::cargo_bin("recipe-drift")
        .unwrap()
        .current_dir(dir)
        .args(["compare", "--no-config"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn fail_on_and_exit_zero_decide_the_exit_code_from_the_findings() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join(".git")).unwrap();
    let w = |name: &str, text: &str| std::fs::write(d.path().join(name), text).unwrap();
    w("tp2.txt", "sglang serve --model-path org/m --tp 2\n");
    w("tp4.txt", "sglang serve --model-path org/m --tp 4\n");
    // A written MAJOR value against one the text cannot decide (auto: the
    // checkpoint's dtype), judged as a warning.
    w(
        "fp8.txt",
        "sglang serve --model-path org/m --tp 2 --kv-cache-dtype fp8_e4m3\n",
    );
    let drift = ["tp2.txt", "tp4.txt"];
    let warning = ["fp8.txt", "tp2.txt", "--unknown", "warning"];
    let with = |pair: &[&str], extra: &[&str]| {
        let mut a: Vec<&str> = pair.to_vec();
        a.extend_from_slice(extra);
        compare(d.path(), &a).0
    };
    assert_eq!(with(&drift, &[]), 1);
    assert_eq!(with(&drift, &["--fail-on", "error"]), 1);
    assert_eq!(with(&drift, &["--fail-on", "warning"]), 1);
    assert_eq!(with(&drift, &["--fail-on", "never"]), 0);
    assert_eq!(with(&drift, &["--exit-zero"]), 0);
    assert_eq!(with(&warning, &[]), 0);
    assert_eq!(with(&warning, &["--fail-on", "warning"]), 1);
    assert_eq!(with(&warning, &["--exit-zero"]), 0);
    // Input errors exit 2 whatever --fail-on says.
    assert_eq!(with(&["nope.txt", "tp2.txt"], &["--exit-zero"]), 2);
    // --exit-zero and --fail-on together are a usage error.
    assert_eq!(with(&drift, &["--exit-zero", "--fail-on", "warning"]), 2);
}

#[test]
fn concise_prints_one_line_per_finding_with_its_id() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join(".git")).unwrap();
    let w = |name: &str, text: &str| std::fs::write(d.path().join(name), text).unwrap();
    w(
        "tp2.txt",
        "NCCL_ALGO=ring sglang serve --model-path org/m --tp 2\n",
    );
    w("tp4.txt", "sglang serve --model-path org/m --tp 4\n");
    let (code, out) = compare(d.path(), &["tp2.txt", "tp4.txt", "--format", "concise"]);
    assert_eq!(code, 1, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "tp2.txt:1:48: error[RD001 contradicts] tp_size differs: docs 2 vs recipe 4 (MAJOR) [link: tp2.txt <-> tp4.txt]",
            "tp2.txt:1:1: note[RD002 missing] env:NCCL_ALGO is set to ring by docs only; recipe leaves None (minor) [link: tp2.txt <-> tp4.txt]",
            "1 error, 0 warnings, 1 note; 1 link checked, 1 with MAJOR drift",
        ],
        "{out}"
    );
    let (code, out) = compare(d.path(), &["nope.txt", "tp4.txt", "--format", "concise"]);
    assert_eq!(code, 2, "{out}");
}

#[test]
fn colour_only_on_request_or_a_terminal_and_never_in_machine_formats() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join(".git")).unwrap();
    std::fs::write(
        d.path().join("a.txt"),
        "sglang serve --model-path org/m --tp 2\n",
    )
    .unwrap();
    std::fs::write(
        d.path().join("b.txt"),
        "sglang serve --model-path org/m --tp 4\n",
    )
    .unwrap();
    let esc = |args: &[&str], no_color: bool| {
        let mut cmd = assert_cmd::Command::cargo_bin("recipe-drift").unwrap();
        cmd.current_dir(d.path())
            .args(["compare", "--no-config", "a.txt", "b.txt"])
            .args(args);
        if no_color {
            cmd.env("NO_COLOR", "1");
        } else {
            cmd.env_remove("NO_COLOR");
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8(out.stdout).unwrap().contains('\u{1b}')
    };
    // A pipe is not a terminal: no colour by default.
    assert!(!esc(&[], false));
    assert!(esc(&["--color", "always"], false));
    assert!(esc(&["--color", "always"], true));
    assert!(esc(&["--color", "always", "--format", "concise"], false));
    assert!(!esc(&["--color", "never"], false));
    assert!(!esc(&["--color", "auto"], true));
    for format in ["json", "sarif", "github", "markdown"] {
        assert!(
            !esc(&["--color", "always", "--format", format], false),
            "{format}"
        );
    }
}

#[test]
fn an_error_listing_launches_stays_on_one_readable_line() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join(".git")).unwrap();
    std::fs::write(
        d.path().join("two.txt"),
        "sglang serve --model-path a --tp 2\nsglang serve --model-path b --tp 2\n",
    )
    .unwrap();
    std::fs::write(
        d.path().join("one.txt"),
        "sglang serve --model-path a --tp 2\n",
    )
    .unwrap();
    let (code, out) = compare(d.path(), &["two.txt", "one.txt"]);
    assert_eq!(code, 2, "{out}");
    let line = out.lines().find(|l| l.starts_with("error: ")).unwrap();
    assert!(
        line.ends_with("1: two.txt:1:1 `sglang serve`; 2: two.txt:2:1 `sglang serve`"),
        "{out}"
    );
    assert!(!out.contains("\\u000a"), "{out}");
}

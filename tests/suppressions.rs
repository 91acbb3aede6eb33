//! Inline suppressions (`recipe-drift: ignore[KEY] REASON` in a comment of a
//! docs or recipe file): they turn the findings on their keys into
//! information with their place and reason, unused ones are reported, bad
//! ones are errors at them, and `--no-waivers` ignores them.

use std::path::Path;

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = assert_cmd::Command::cargo_bin("recipe-drift")
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

fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join(".git")).unwrap();
    for (name, text) in files {
        std::fs::write(d.path().join(name), text).unwrap();
    }
    d
}

const RECIPE: (&str, &str) = ("recipe.sh", "sglang serve --model-path org/m --tp 4\n");

#[test]
fn a_suppression_in_each_comment_kind_covers_its_key() {
    for (name, docs) in [
        (
            "docs.sh",
            "# recipe-drift: ignore[tp_size] the page shows a two-GPU box\nsglang serve --model-path org/m --tp 2\n",
        ),
        (
            "docs.md",
            "<!-- recipe-drift: ignore[tp_size] the page shows a two-GPU box -->\n\n```bash\nsglang serve --model-path org/m --tp 2\n```\n",
        ),
        (
            "docs.mdx",
            "{/* recipe-drift: ignore[tp_size] the page shows a two-GPU box */}\n\n```bash\nsglang serve --model-path org/m --tp 2\n```\n",
        ),
        (
            "cmd.txt",
            "sglang serve --model-path org/m --tp 2  # recipe-drift: ignore[tp_size] the page shows a two-GPU box\n",
        ),
    ] {
        let d = repo(&[(name, docs), RECIPE]);
        let (code, out, err) = run(d.path(), &["compare", "--no-config", name, "recipe.sh"]);
        assert_eq!(code, 0, "{name}: {out}{err}");
        assert!(
            out.contains("[suppressed at ") && out.contains(": the page shows a two-GPU box]"),
            "{name}: {out}"
        );
        // JSON marks the finding with the suppression's place; SARIF as in source.
        let (_, json, _) = run(
            d.path(),
            &[
                "compare",
                "--no-config",
                name,
                "recipe.sh",
                "--format",
                "json",
            ],
        );
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let f = &v["links"][0]["findings"][0];
        assert_eq!(f["key"], "tp_size", "{json}");
        assert!(
            f["waived"]["at"].as_str().unwrap().starts_with(name),
            "{json}"
        );
        let (_, sarif, _) = run(
            d.path(),
            &[
                "compare",
                "--no-config",
                name,
                "recipe.sh",
                "--format",
                "sarif",
            ],
        );
        assert!(sarif.contains("\"kind\": \"inSource\""), "{sarif}");
        // --no-waivers ignores it.
        let (code, _, _) = run(
            d.path(),
            &["compare", "--no-config", "--no-waivers", name, "recipe.sh"],
        );
        assert_eq!(code, 1, "{name}");
    }
}

#[test]
fn a_marker_outside_a_comment_is_text() {
    let d = repo(&[
        (
            "docs.sh",
            "echo 'recipe-drift: ignore[tp_size] not a comment'\nsglang serve --model-path org/m --tp 2\n",
        ),
        RECIPE,
    ]);
    let (code, out, _) = run(
        d.path(),
        &["compare", "--no-config", "docs.sh", "recipe.sh"],
    );
    assert_eq!(code, 1, "{out}");
}

#[test]
fn unused_suppressions_are_reported_once_and_do_not_fail() {
    let d = repo(&[
        (
            "docs.sh",
            "# recipe-drift: ignore[page_size] kept from an older page\nsglang serve --model-path org/m --tp 4\n",
        ),
        RECIPE,
    ]);
    let (code, out, _) = run(
        d.path(),
        &[
            "compare",
            "--no-config",
            "docs.sh",
            "recipe.sh",
            "--format",
            "concise",
        ],
    );
    assert_eq!(code, 0, "{out}");
    let unused: Vec<&str> = out.lines().filter(|l| l.contains("[waiver]")).collect();
    assert_eq!(
        unused,
        [
            "docs.sh:1:3: note[waiver] the inline suppression of page_size at docs.sh:1:3 (kept from an older page) matches no finding; remove it"
        ],
        "{out}"
    );
}

#[test]
fn a_suppression_without_a_known_key_or_a_reason_is_an_error_at_it() {
    for (text, at, words) in [
        (
            "# recipe-drift: ignore[tp_sise] typo\nsglang serve --model-path org/m --tp 2\n",
            "docs.sh:1:3",
            "did you mean tp_size?",
        ),
        (
            "sglang serve --model-path org/m --tp 2 # recipe-drift: ignore[tp_size]\n",
            "docs.sh:1:42",
            "needs a reason",
        ),
        (
            "# recipe-drift: ignore tp_size because\nsglang serve --model-path org/m --tp 2\n",
            "docs.sh:1:3",
            "names its keys",
        ),
    ] {
        let d = repo(&[("docs.sh", text), RECIPE]);
        let (code, _, err) = run(
            d.path(),
            &["compare", "--no-config", "docs.sh", "recipe.sh"],
        );
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(&format!("error: {at}: ")), "{err}");
        assert!(err.contains(words), "{err}");
    }
}

#[test]
fn check_applies_them_beside_the_configs_waivers() {
    let d = repo(&[
        (
            "docs.sh",
            "# recipe-drift: ignore[tp_size] the page shows a two-GPU box\nsglang serve --model-path org/m --tp 2 --page-size 16\n",
        ),
        RECIPE,
        (
            ".recipe-drift.yaml",
            "links:\n  - name: pair\n    docs: {file: docs.sh}\n    recipe: {file: recipe.sh}\nwaivers:\n  - {link: pair, key: page_size, reason: being aligned, until: 2099-01-01}\n",
        ),
    ]);
    let (code, out, err) = run(d.path(), &["check"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("[suppressed at docs.sh:1:3: the page shows a two-GPU box]"),
        "{out}"
    );
    assert!(
        out.contains("[waived until 2099-01-01: being aligned]"),
        "{out}"
    );
    let (code, _, _) = run(d.path(), &["check", "--no-waivers"]);
    assert_eq!(code, 1);
}

//! The pre-commit hook (`.pre-commit-hooks.yaml`), run by the real pre-commit
//! with `pre-commit try-repo` against this checkout, in a git repository the
//! test makes: a config and two command files with MAJOR drift fail the hook,
//! and the same files made to agree pass it.
//!
//! pre-commit builds the hook with `cargo install --path .` from a copy of this
//! checkout at HEAD (plus its uncommitted changes to tracked files): a release
//! build. `CARGO_TARGET_DIR` is `target/pre-commit` so that later runs reuse the
//! dependencies, and cargo runs offline (the crates are those `cargo test`
//! already fetched). `.ci/run` installs pre-commit into `target/ci-tools`; with
//! no pre-commit the tests say SKIPPED, except under CI (`CI=true`), where they
//! fail.

use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn pre_commit() -> Option<PathBuf> {
    let local = Path::new(ROOT).join("target/ci-tools/bin/pre-commit");
    if local.is_file() {
        return Some(local);
    }
    let on_path = Command::new("pre-commit").arg("--version").output();
    if on_path.is_ok_and(|o| o.status.success()) {
        return Some(PathBuf::from("pre-commit"));
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "pre-commit is missing under CI: .ci/run installs it into target/ci-tools (python3 -m venv; pip install pre-commit)"
        );
    }
    println!("SKIPPED: pre-commit is not installed (bash .ci/run installs it)");
    None
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.invalid",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const CONFIG: &str = "links:
  - name: qwen3 8b tp
    docs: {file: docs/serve.sh}
    recipe: {file: recipes/bench.sh}
";

/// A repository with a config and two command files; the recipe runs TP `recipe_tp`.
fn project(recipe_tp: u32) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    std::fs::create_dir_all(d.join("docs")).unwrap();
    std::fs::create_dir_all(d.join("recipes")).unwrap();
    std::fs::write(d.join(".recipe-drift.yaml"), CONFIG).unwrap();
    std::fs::write(
        d.join("docs/serve.sh"),
        "sglang serve --model-path Qwen/Qwen3-8B --tp 2\n",
    )
    .unwrap();
    std::fs::write(
        d.join("recipes/bench.sh"),
        format!("python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp {recipe_tp}\n"),
    )
    .unwrap();
    git(d, &["init", "-q"]);
    git(d, &["add", "."]);
    git(d, &["commit", "-q", "-m", "docs and recipe"]);
    t
}

/// `pre-commit try-repo ROOT recipe-drift --all-files` in `dir`: (success, output).
fn try_repo(pc: &Path, dir: &Path) -> (bool, String) {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(pc);
    cmd.args([
        "try-repo",
        ROOT,
        "recipe-drift",
        "--all-files",
        "--color",
        "never",
    ])
    .current_dir(dir)
    .env("PRE_COMMIT_HOME", home.path())
    .env(
        "CARGO_TARGET_DIR",
        Path::new(ROOT).join("target/pre-commit"),
    )
    .env("CARGO_NET_OFFLINE", "true")
    .env("GIT_AUTHOR_NAME", "t")
    .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
    .env("GIT_COMMITTER_NAME", "t")
    .env("GIT_COMMITTER_EMAIL", "t@example.invalid");
    // What `cargo test` sets for this crate is not for the build pre-commit runs.
    for (k, _) in std::env::vars() {
        if k.starts_with("CARGO_PKG_") || k == "CARGO_MANIFEST_DIR" || k == "CARGO_CRATE_NAME" {
            cmd.env_remove(k);
        }
    }
    let out = cmd.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn hook_fails_on_major_drift() {
    let Some(pc) = pre_commit() else { return };
    let p = project(4);
    let (ok, out) = try_repo(&pc, p.path());
    assert!(!ok, "the hook passed on MAJOR drift:\n{out}");
    assert!(
        out.contains("recipe-drift") && out.contains("Failed"),
        "{out}"
    );
    assert!(out.contains("link: qwen3 8b tp  [drift]"), "{out}");
    assert!(out.contains("1 link checked, 1 with MAJOR drift"), "{out}");
}

#[test]
fn hook_passes_once_fixed() {
    let Some(pc) = pre_commit() else { return };
    let p = project(2);
    let (ok, out) = try_repo(&pc, p.path());
    assert!(ok, "the hook failed without drift:\n{out}");
    assert!(out.contains("Passed"), "{out}");
}

//! Installing without a toolchain: the `recipe-drift` wheel and the pre-commit
//! hooks of `.pre-commit-hooks.yaml`, run by the real pip and pre-commit.
//!
//! `.ci/run` builds the wheel (maturin from PyPI, the dev profile: these tests
//! need a working binary, not an optimised one) into `target/ci-tools/wheels`
//! beside the setuptools wheel that the hook's package builds with, and
//! installs pre-commit into `target/ci-tools`. pip runs with `--no-index` and
//! that directory as its only source (`PIP_NO_INDEX`, `PIP_FIND_LINKS`): no
//! network, and, as there is no sdist to fall back on, a hook that would build
//! from source fails instead.
//!
//! - the wheel installs into a fresh venv and its `recipe-drift` runs the demo;
//! - the default hook (`language: python`) installs the wheel and fails on MAJOR
//!   drift in a repository the test makes, and passes once the files agree;
//! - the source hook (`language: rust`) builds with `cargo install --path .`
//!   (`CARGO_TARGET_DIR` is `target/pre-commit` so later runs reuse the
//!   dependencies; cargo offline) and fails on the same drift.
//!
//! Without the tools or the wheel the tests print SKIPPED, except under CI
//! (`CI=true`), where they fail.

use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const VERSION: &str = env!("CARGO_PKG_VERSION");

fn missing(what: &str) -> Option<PathBuf> {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{what} is missing under CI: bash .ci/run makes it");
    }
    println!("SKIPPED: {what} is missing (bash .ci/run makes it)");
    None
}

fn pre_commit() -> Option<PathBuf> {
    let local = Path::new(ROOT).join("target/ci-tools/bin/pre-commit");
    if local.is_file() {
        return Some(local);
    }
    missing("pre-commit (target/ci-tools/bin/pre-commit)")
}

/// The directory holding this version's `recipe-drift` wheel (and setuptools).
fn wheels() -> Option<PathBuf> {
    let dir = Path::new(ROOT).join("target/ci-tools/wheels");
    let prefix = format!("recipe_drift-{VERSION}-");
    let found = std::fs::read_dir(&dir).into_iter().flatten().any(|e| {
        e.is_ok_and(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with(&prefix) && name.ends_with(".whl")
        })
    });
    if found {
        Some(dir)
    } else {
        missing(&format!(
            "the recipe-drift {VERSION} wheel in target/ci-tools/wheels"
        ))
    }
}

/// `cmd` with pip confined to `wheels` and nothing from `cargo test`'s own
/// environment that would leak into a build.
fn offline(cmd: &mut Command, wheels: &Path) {
    cmd.env("PIP_NO_INDEX", "1")
        .env("PIP_FIND_LINKS", wheels)
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        .env("CARGO_NET_OFFLINE", "true")
        // The checkpoint facts would come from the Hugging Face Hub.
        .env("RECIPE_DRIFT_NO_CHECKPOINT_FACTS", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid");
    for (k, _) in std::env::vars() {
        if k.starts_with("CARGO_PKG_")
            || k.starts_with("CARGO_BIN_")
            || k == "CARGO_MANIFEST_DIR"
            || k == "CARGO_CRATE_NAME"
            || k == "PIP_REQUIRE_VIRTUALENV"
        {
            cmd.env_remove(k);
        }
    }
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
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
    assert!(out.status.success(), "git {args:?}: {}", text(&out));
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

/// PATH without the directories that hold `cargo` or `rustc`: the wheel hook
/// must work on a machine with Python and no Rust toolchain.
fn path_without_rust() -> std::ffi::OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|d| !d.join("cargo").exists() && !d.join("rustc").exists())
        .collect();
    std::env::join_paths(kept).unwrap()
}

/// `pre-commit try-repo ROOT HOOK --all-files` in `dir`: (success, output).
/// The wheel hook runs with no Rust toolchain on PATH.
fn try_repo(pc: &Path, wheels: &Path, hook: &str, dir: &Path) -> (bool, String) {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(pc);
    cmd.args(["try-repo", ROOT, hook, "--all-files", "--color", "never"])
        .current_dir(dir)
        .env("PRE_COMMIT_HOME", home.path())
        .env(
            "CARGO_TARGET_DIR",
            Path::new(ROOT).join("target/pre-commit"),
        );
    offline(&mut cmd, wheels);
    if hook == "recipe-drift" {
        cmd.env("PATH", path_without_rust());
    }
    let out = cmd.output().unwrap();
    (out.status.success(), text(&out))
}

/// The hook's package pins the wheel of this crate's version, so a release
/// cannot ship a hook that installs another version's binary.
#[test]
fn hook_package_pins_this_version() {
    let py = std::fs::read_to_string(Path::new(ROOT).join("pyproject.toml")).unwrap();
    let line = |key: &str| {
        py.lines()
            .find(|l| l.trim_start().starts_with(key))
            .unwrap_or_else(|| panic!("pyproject.toml has no `{key}` line"))
            .to_string()
    };
    assert_eq!(line("version ="), format!("version = \"{VERSION}\""));
    assert_eq!(
        line("dependencies ="),
        format!("dependencies = [\"recipe-drift=={VERSION}\"]"),
        "pyproject.toml must depend on the recipe-drift wheel of Cargo.toml's version"
    );
    let wheel = std::fs::read_to_string(Path::new(ROOT).join("wheel/pyproject.toml")).unwrap();
    assert!(wheel.contains("bindings = \"bin\""), "{wheel}");
    assert!(
        wheel.contains("manifest-path = \"../Cargo.toml\""),
        "{wheel}"
    );
}

/// `pip install recipe-drift` from the wheel into a fresh venv puts a
/// `recipe-drift` on the venv's PATH that runs the demo (exit 1: MAJOR drift).
#[test]
fn wheel_installs_into_a_fresh_venv_and_runs_the_demo() {
    let Some(wheels) = wheels() else { return };
    let venv = tempfile::tempdir().unwrap();
    let out = Command::new("python3")
        .args(["-m", "venv"])
        .arg(venv.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "python3 -m venv: {}", text(&out));
    let bin = venv.path().join("bin");
    let mut pip = Command::new(bin.join("python"));
    pip.args(["-m", "pip", "install", "--quiet", "recipe-drift"]);
    offline(&mut pip, &wheels);
    let out = pip.output().unwrap();
    assert!(
        out.status.success(),
        "pip install recipe-drift: {}",
        text(&out)
    );

    let exe = bin.join("recipe-drift");
    assert!(
        exe.is_file(),
        "the wheel put no recipe-drift in {}",
        bin.display()
    );
    let out = Command::new(&exe).arg("--version").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("recipe-drift {VERSION}")
    );
    let out = Command::new(&exe)
        .args(["check", "--config", "fixtures/demo/recipe-drift.yaml"])
        .current_dir(ROOT)
        .env("RECIPE_DRIFT_NO_CHECKPOINT_FACTS", "1")
        .output()
        .unwrap();
    let report = text(&out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the demo has MAJOR drift:\n{report}"
    );
    assert!(report.contains("with MAJOR drift"), "{report}");
}

#[test]
fn wheel_hook_fails_on_major_drift() {
    let (Some(pc), Some(wheels)) = (pre_commit(), wheels()) else {
        return;
    };
    let p = project(4);
    let (ok, out) = try_repo(&pc, &wheels, "recipe-drift", p.path());
    assert!(!ok, "the hook passed on MAJOR drift:\n{out}");
    assert!(
        out.contains("recipe-drift") && out.contains("Failed"),
        "{out}"
    );
    assert!(out.contains("link: qwen3 8b tp  [drift]"), "{out}");
    assert!(out.contains("1 link checked, 1 with MAJOR drift"), "{out}");
}

#[test]
fn wheel_hook_passes_once_fixed() {
    let (Some(pc), Some(wheels)) = (pre_commit(), wheels()) else {
        return;
    };
    let p = project(2);
    let (ok, out) = try_repo(&pc, &wheels, "recipe-drift", p.path());
    assert!(ok, "the hook failed without drift:\n{out}");
    assert!(out.contains("Passed"), "{out}");
}

#[test]
fn source_hook_builds_and_fails_on_major_drift() {
    let (Some(pc), Some(wheels)) = (pre_commit(), wheels()) else {
        return;
    };
    let p = project(4);
    let (ok, out) = try_repo(&pc, &wheels, "recipe-drift-src", p.path());
    assert!(!ok, "the source hook passed on MAJOR drift:\n{out}");
    assert!(out.contains("Failed"), "{out}");
    assert!(out.contains("1 link checked, 1 with MAJOR drift"), "{out}");
}

//! Runs the composite action `action.yml` offline: its bash steps run with
//! bash the way a GitHub runner runs `shell: bash` (`bash --noprofile --norc
//! -eo pipefail {0}`), with `${{ ... }}` expressions substituted, runner files
//! in a temp dir, and fake `curl`, `cargo` and `recipe-drift` on PATH.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const REPOSITORY: &str = "test-owner/recipe-drift";
/// The runner's RUNNER_OS / RUNNER_ARCH and the release target they map to.
const RUNNER_OS: &str = "Linux";
const RUNNER_ARCH: &str = "X64";
const TARGET: &str = "x86_64-unknown-linux-gnu";

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// False (after printing SKIPPED) when a needed tool is missing; panics
/// instead under CI=true.
fn tools_present() -> bool {
    for tool in ["bash", "sha256sum", "tar"] {
        let ok = Command::new(tool)
            .arg("--version")
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        if !ok {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("`{tool}` is missing, and CI=true requires the action test to run");
            }
            eprintln!("SKIPPED: `{tool}` is not available");
            return false;
        }
    }
    true
}

fn write_exe(path: &Path, text: &str) {
    fs::write(path, text).unwrap();
    let status = Command::new("chmod").arg("755").arg(path).status().unwrap();
    assert!(status.success());
}

struct Case {
    inputs: BTreeMap<&'static str, &'static str>,
    action_ref: &'static str,
    /// The exit code of the fake `recipe-drift check`.
    rd_exit: i32,
    /// Publish the release asset for this version (None: nothing published).
    publish: Option<&'static str>,
    corrupt_sha: bool,
}

impl Case {
    fn new(action_ref: &'static str) -> Self {
        Case {
            inputs: BTreeMap::new(),
            action_ref,
            rd_exit: 0,
            publish: None,
            corrupt_sha: false,
        }
    }
    fn input(mut self, name: &'static str, value: &'static str) -> Self {
        self.inputs.insert(name, value);
        self
    }
}

struct StepRun {
    id: String,
    code: i32,
    stdout: String,
    stderr: String,
}

struct Run {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    runner_temp: PathBuf,
    steps: Vec<StepRun>,
    /// Outputs of each step id, read from its GITHUB_OUTPUT file.
    outputs: BTreeMap<String, BTreeMap<String, String>>,
    /// The action's outputs (`outputs.*.value` evaluated), when all steps passed.
    action_outputs: BTreeMap<String, String>,
}

impl Run {
    /// The exit code of the first failing step, or 0.
    fn code(&self) -> i32 {
        self.steps
            .iter()
            .map(|s| s.code)
            .find(|&c| c != 0)
            .unwrap_or(0)
    }
    fn step(&self, id: &str) -> Option<&StepRun> {
        self.steps.iter().find(|s| s.id == id)
    }
    fn all_output(&self) -> String {
        self.steps
            .iter()
            .map(|s| {
                format!(
                    "--- step {} (exit {})\n{}{}",
                    s.id, s.code, s.stdout, s.stderr
                )
            })
            .collect()
    }
    fn log(&self, name: &str) -> String {
        fs::read_to_string(self.root.join(name)).unwrap_or_default()
    }
    fn summary(&self) -> String {
        fs::read_to_string(self.root.join("step_summary.md")).unwrap_or_default()
    }
}

/// Replaces every `${{ expr }}` in `text`; panics on an expression this test
/// does not know, so edits to action.yml that need new ones are noticed.
fn substitute(
    text: &str,
    action: &Value,
    case: &Case,
    outputs: &BTreeMap<String, BTreeMap<String, String>>,
) -> String {
    let re = regex::Regex::new(r"\$\{\{\s*(.*?)\s*\}\}").unwrap();
    re.replace_all(text, |caps: &regex::Captures| {
        let expr = &caps[1];
        let parts: Vec<&str> = expr.split('.').collect();
        match parts.as_slice() {
            ["inputs", name] => {
                let Some(decl) = action["inputs"].get(*name) else {
                    panic!("action.yml uses `${{{{ {expr} }}}}` but declares no input {name}")
                };
                match case.inputs.get(name) {
                    Some(v) => v.to_string(),
                    None => match &decl["default"] {
                        Value::Null => String::new(),
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    },
                }
            }
            ["github", "action_ref"] => case.action_ref.to_string(),
            ["github", "action_repository"] => REPOSITORY.to_string(),
            ["runner", "os"] => RUNNER_OS.to_string(),
            ["runner", "arch"] => RUNNER_ARCH.to_string(),
            ["steps", id, "outputs", name] => outputs
                .get(*id)
                .and_then(|o| o.get(*name))
                .cloned()
                .unwrap_or_default(),
            _ => panic!(
                "tests/action.rs does not know the expression `${{{{ {expr} }}}}` in action.yml; \
                 teach `substitute` about it"
            ),
        }
    })
    .into_owned()
}

/// Parses a GITHUB_OUTPUT file (`name=value` and `name<<DELIM` blocks).
fn parse_output_file(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some((name, delim)) = line.split_once("<<") {
            let mut value = Vec::new();
            for l in lines.by_ref() {
                if l == delim {
                    break;
                }
                value.push(l);
            }
            out.insert(name.to_string(), value.join("\n"));
        } else if let Some((name, value)) = line.split_once('=') {
            out.insert(name.to_string(), value.to_string());
        }
    }
    out
}

/// The fake `recipe-drift`: `--version` succeeds; anything else logs its
/// argv, prints a report (and its own summary, as `--format github` does) and
/// exits with the code in `rd_exit`.
fn fake_recipe_drift(root: &Path) -> String {
    let root = root.display();
    format!(
        r#"#!/usr/bin/env bash
if [ "${{1:-}}" = --version ]; then echo "recipe-drift 0.0.0-fake"; exit 0; fi
printf '%s\n' "$*" >> '{root}/recipe-drift.log'
echo "::notice::fake recipe-drift report"
echo "fake recipe-drift: a message on stderr" >&2
if [ -n "${{GITHUB_STEP_SUMMARY:-}}" ]; then echo "fake recipe-drift markdown report" >> "$GITHUB_STEP_SUMMARY"; fi
exit "$(cat '{root}/rd_exit')"
"#
    )
}

fn run_action(case: &Case) -> Run {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let bin = root.join("bin");
    let runner_temp = root.join("runner_temp");
    let work = root.join("work");
    let home = root.join("home");
    let srv = root.join("srv");
    for d in [&bin, &runner_temp, &work, &home, &srv] {
        fs::create_dir_all(d).unwrap();
    }
    fs::write(root.join("rd_exit"), case.rd_exit.to_string()).unwrap();
    let fake_rd = root.join("fake-recipe-drift");
    write_exe(&fake_rd, &fake_recipe_drift(&root));

    // curl: serves https://github.com/<path> from srv/<path>; exit 22 (as
    // curl -f on an HTTP error) when there is no such file.
    write_exe(
        &bin.join("curl"),
        &format!(
            r#"#!/usr/bin/env bash
printf '%s\n' "$*" >> '{root}/curl.log'
out=""; url=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift 2 ;;
    --proto|--retry) shift 2 ;;
    -*) shift ;;
    *) url="$1"; shift ;;
  esac
done
printf '%s\n' "$url" >> '{root}/curl-urls.log'
case "$url" in
  https://github.com/*) file='{srv}/'"${{url#https://github.com/}}" ;;
  *) echo "fake curl: unexpected URL $url" >&2; exit 6 ;;
esac
if [ ! -f "$file" ]; then echo "curl: (22) The requested URL returned error: 404" >&2; exit 22; fi
cp "$file" "$out"
"#,
            root = root.display(),
            srv = srv.display()
        ),
    );
    // cargo: `cargo install ... --root R` puts the fake recipe-drift in R/bin.
    write_exe(
        &bin.join("cargo"),
        &format!(
            r#"#!/usr/bin/env bash
printf '%s\n' "$*" >> '{root}/cargo.log'
[ "${{1:-}}" = install ] || {{ echo "fake cargo: only install is faked" >&2; exit 101; }}
r=""
while [ $# -gt 0 ]; do
  case "$1" in --root) r="$2"; shift 2 ;; *) shift ;; esac
done
[ -n "$r" ] || {{ echo "fake cargo: no --root" >&2; exit 101; }}
mkdir -p "$r/bin"
cp '{fake}' "$r/bin/recipe-drift"
"#,
            root = root.display(),
            fake = fake_rd.display()
        ),
    );

    if let Some(version) = case.publish {
        let dir = srv.join(REPOSITORY).join("releases/download").join(version);
        fs::create_dir_all(&dir).unwrap();
        let stage = root.join("stage");
        fs::create_dir_all(&stage).unwrap();
        fs::copy(&fake_rd, stage.join("recipe-drift")).unwrap();
        let asset = format!("recipe-drift-{TARGET}.tar.gz");
        let status = Command::new("tar")
            .arg("-czf")
            .arg(dir.join(&asset))
            .arg("-C")
            .arg(&stage)
            .arg("recipe-drift")
            .status()
            .unwrap();
        assert!(status.success(), "tar failed");
        let sum = Command::new("sha256sum")
            .arg(&asset)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(sum.status.success(), "sha256sum failed");
        let mut sha = String::from_utf8(sum.stdout).unwrap();
        if case.corrupt_sha {
            sha = format!("{}{}", "0".repeat(64), &sha[64..]);
        }
        fs::write(dir.join(format!("{asset}.sha256")), sha).unwrap();
    }

    let text = fs::read_to_string(repo_root().join("action.yml")).unwrap();
    let action: Value = serde_saphyr::from_str(&text).expect("action.yml parses");
    assert_eq!(action["runs"]["using"], "composite");
    let steps = action["runs"]["steps"].as_array().expect("runs.steps");

    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into())
    );
    let summary = root.join("step_summary.md");
    let mut outputs: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut runs = Vec::new();
    let mut failed = false;
    for (i, step) in steps.iter().enumerate() {
        let obj = step.as_object().expect("a step is a mapping");
        for key in obj.keys() {
            assert!(
                ["name", "id", "shell", "env", "run"].contains(&key.as_str()),
                "step {i} of action.yml has `{key}`, which tests/action.rs does not emulate"
            );
        }
        assert_eq!(step["shell"], "bash", "step {i} is not a bash step");
        let id = step["id"]
            .as_str()
            .map(str::to_string)
            .unwrap_or(format!("step{i}"));
        let script = root.join(format!("step-{i}.sh"));
        let script_text = step["run"].as_str().expect("run: is a string");
        assert!(
            !script_text.contains("${{"),
            "step {id}'s run: uses ${{{{ }}}}; tests/action.rs only substitutes env: values"
        );
        fs::write(&script, script_text).unwrap();
        let out_file = root.join(format!("output-{i}"));
        let env_file = root.join(format!("env-{i}"));
        let path_file = root.join(format!("path-{i}"));
        for f in [&out_file, &env_file, &path_file] {
            fs::write(f, "").unwrap();
        }
        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&script)
            .current_dir(&work)
            .env_clear()
            .env("PATH", &path)
            .env("HOME", &home)
            .env("TMPDIR", &root)
            .env("LC_ALL", "C")
            .env("CI", "true")
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_OUTPUT", &out_file)
            .env("GITHUB_ENV", &env_file)
            .env("GITHUB_PATH", &path_file)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env("GITHUB_ACTION_PATH", repo_root())
            .env("GITHUB_WORKSPACE", &work)
            .env("RUNNER_TEMP", &runner_temp)
            .env("RUNNER_OS", RUNNER_OS)
            .env("RUNNER_ARCH", RUNNER_ARCH);
        if let Some(env) = step["env"].as_object() {
            for (k, v) in env {
                let raw = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                cmd.env(k, substitute(&raw, &action, case, &outputs));
            }
        }
        let out = cmd.output().expect("run bash");
        let code = out.status.code().unwrap_or(-1);
        outputs.insert(
            id.clone(),
            parse_output_file(&fs::read_to_string(&out_file).unwrap()),
        );
        runs.push(StepRun {
            id,
            code,
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
        if code != 0 {
            failed = true;
            break; // later steps have no `if:`, so they are skipped
        }
    }
    let mut action_outputs = BTreeMap::new();
    if !failed && let Some(decl) = action["outputs"].as_object() {
        for (name, o) in decl {
            let value = o["value"].as_str().unwrap_or_default();
            action_outputs.insert(name.clone(), substitute(value, &action, case, &outputs));
        }
    }
    Run {
        _tmp: tmp,
        root,
        runner_temp,
        steps: runs,
        outputs,
        action_outputs,
    }
}

macro_rules! skip_without_tools {
    () => {
        if !tools_present() {
            return;
        }
    };
}

fn release_url(version: &str, file: &str) -> String {
    format!("https://github.com/{REPOSITORY}/releases/download/{version}/{file}")
}

#[test]
fn release_tag_downloads_verifies_and_checks() {
    skip_without_tools!();
    let mut case = Case::new("v1.2.3").input("config", "docs/.recipe-drift.yaml");
    case.publish = Some("v1.2.3");
    let run = run_action(&case);
    assert_eq!(run.code(), 0, "{}", run.all_output());

    let asset = format!("recipe-drift-{TARGET}.tar.gz");
    let urls: Vec<String> = run.log("curl-urls.log").lines().map(String::from).collect();
    assert_eq!(
        urls,
        [
            release_url("v1.2.3", &asset),
            release_url("v1.2.3", &format!("{asset}.sha256"))
        ]
    );
    assert!(
        run.log("curl.log").contains("--proto =https"),
        "{}",
        run.log("curl.log")
    );
    assert_eq!(run.log("cargo.log"), "", "no cargo install for a release");

    let install = run.step("install").unwrap();
    assert!(
        install
            .stdout
            .contains("release v1.2.3 (x86_64-unknown-linux-gnu, SHA-256 verified)"),
        "{}",
        run.all_output()
    );
    let bin = &run.outputs["install"]["bin"];
    assert_eq!(
        Path::new(bin),
        run.runner_temp.join("recipe-drift-bin/recipe-drift")
    );
    assert_eq!(
        run.log("recipe-drift.log"),
        "check --format github --config docs/.recipe-drift.yaml\n"
    );
    assert_eq!(run.action_outputs["exit-code"], "0");

    // The job summary and the report file.
    let summary = run.summary();
    assert!(
        summary.contains("### recipe-drift: no MAJOR drift"),
        "{summary}"
    );
    assert!(
        summary.contains("fake recipe-drift markdown report"),
        "{summary}"
    );
    assert!(summary.contains("messages (stderr)"), "{summary}");
    let report = &run.action_outputs["report"];
    assert_eq!(
        Path::new(report),
        run.runner_temp.join("recipe-drift-report.txt")
    );
    let report_text = fs::read_to_string(report).expect("the report output names a file");
    assert!(
        report_text.contains("fake recipe-drift report"),
        "{report_text}"
    );
    let check = run.step("check").unwrap();
    assert!(check.stdout.contains("fake recipe-drift report"));
    assert!(check.stderr.contains("a message on stderr"));
}

#[test]
fn corrupted_checksum_fails_before_running() {
    skip_without_tools!();
    let mut case = Case::new("v1.2.3");
    case.publish = Some("v1.2.3");
    case.corrupt_sha = true;
    let run = run_action(&case);
    assert_ne!(run.code(), 0, "{}", run.all_output());
    assert_eq!(run.steps.len(), 1, "the check step must not run");
    let install = run.step("install").unwrap();
    assert!(
        install.stdout.contains("::error::recipe-drift v1.2.3")
            && install.stdout.contains("does not match the published"),
        "{}",
        run.all_output()
    );
    assert_eq!(run.log("recipe-drift.log"), "", "recipe-drift must not run");
    assert_eq!(run.log("cargo.log"), "");
    assert!(
        !run.runner_temp
            .join("recipe-drift-bin/recipe-drift")
            .exists()
    );
}

#[test]
fn explicit_version_that_404s_fails_without_building() {
    skip_without_tools!();
    let mut case = Case::new("v1.2.3").input("version", "v9.9.9");
    case.publish = Some("v1.2.3"); // only the ref's release exists
    let run = run_action(&case);
    assert_ne!(run.code(), 0, "{}", run.all_output());
    assert_eq!(run.steps.len(), 1);
    let install = run.step("install").unwrap();
    assert!(
        install
            .stdout
            .contains("::error::recipe-drift: cannot download version v9.9.9"),
        "{}",
        run.all_output()
    );
    assert!(run.log("curl-urls.log").starts_with(&release_url(
        "v9.9.9",
        &format!("recipe-drift-{TARGET}.tar.gz")
    )));
    assert_eq!(run.log("cargo.log"), "", "no cargo install");
    assert_eq!(run.log("recipe-drift.log"), "");
}

#[test]
fn sha_pin_builds_from_source() {
    skip_without_tools!();
    let case = Case::new("0123456789abcdef0123456789abcdef01234567");
    let run = run_action(&case);
    assert_eq!(run.code(), 0, "{}", run.all_output());
    assert_eq!(run.log("curl.log"), "", "no download for a SHA pin");
    let cargo = run.log("cargo.log");
    let want = format!(
        "install --locked --path {} --root {}\n",
        repo_root().display(),
        run.runner_temp.join("recipe-drift-build").display()
    );
    assert_eq!(cargo, want);
    let install = run.step("install").unwrap();
    assert!(
        install.stdout.contains("built from the action's checkout"),
        "{}",
        run.all_output()
    );
    assert_eq!(run.log("recipe-drift.log"), "check --format github\n");
    assert_eq!(run.action_outputs["exit-code"], "0");
}

fn fail_on_run(fail_on: &'static str, rd_exit: i32) -> Run {
    let mut case = Case::new("v1.2.3").input("fail-on", fail_on);
    case.publish = Some("v1.2.3");
    case.rd_exit = rd_exit;
    run_action(&case)
}

/// Exit 1 (MAJOR drift) with fail-on `error` fails the step with 1.
#[test]
fn fail_on_error_fails_on_drift() {
    skip_without_tools!();
    let run = fail_on_run("error", 1);
    assert_eq!(run.code(), 1, "{}", run.all_output());
    assert_eq!(run.log("recipe-drift.log"), "check --format github\n");
}

/// Exit 2 (error) fails with fail-on `error` and `warning` (action.yml: "error:
/// fail on MAJOR drift, an expired waiver or an error (exit 1 or 2)").
#[test]
fn exit_2_fails_unless_never() {
    skip_without_tools!();
    for fail_on in ["error", "warning"] {
        let run = fail_on_run(fail_on, 2);
        assert_eq!(run.code(), 2, "fail-on {fail_on}: {}", run.all_output());
    }
}

const SET_E_BUG: &str = "action.yml bug: the check step runs under `bash -eo pipefail` \
    (shell: bash) and its `set -uo pipefail` does not turn -e off, so a non-zero \
    recipe-drift exit ends the step before exit-code, report and the summary are written";

/// fail-on `never` ("report only"): exit 1 and even exit 2 succeed, with the
/// code in the `exit-code` output and the summary written.
#[test]
fn fail_on_never_reports_only() {
    skip_without_tools!();
    for (rd_exit, result) in [
        (1, "MAJOR drift or an expired waiver"),
        (2, "error (exit 2)"),
    ] {
        let run = fail_on_run("never", rd_exit);
        assert_eq!(run.code(), 0, "{SET_E_BUG}\n{}", run.all_output());
        assert_eq!(run.action_outputs["exit-code"], rd_exit.to_string());
        assert!(
            run.summary()
                .contains(&format!("### recipe-drift: {result}"))
        );
        assert!(Path::new(&run.action_outputs["report"]).is_file());
    }
}

/// A failing check still records its exit code, report and summary.
#[test]
fn failing_check_still_writes_outputs_and_summary() {
    skip_without_tools!();
    let run = fail_on_run("error", 1);
    assert_eq!(run.code(), 1);
    let check = &run.outputs["check"];
    assert_eq!(
        check.get("exit-code").map(String::as_str),
        Some("1"),
        "{SET_E_BUG}"
    );
    assert!(check.contains_key("report"), "{SET_E_BUG}");
    assert!(
        run.summary().contains("### recipe-drift: MAJOR drift"),
        "{SET_E_BUG}"
    );
}

//! Runs the composite action `action.yml` offline: its bash steps run with
//! bash the way a GitHub runner runs `shell: bash` (`bash --noprofile --norc
//! -eo pipefail {0}`), with `${{ ... }}` expressions substituted, runner files
//! in a temp dir, and fake `curl`, `git`, `cargo` and `recipe-drift` on PATH.
//! A step that `uses:` another action (the cache, the SARIF upload) is not run:
//! its `if:` is evaluated and, when true, the call and its `with:` are recorded.

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
/// What `${{ github.token }}` stands for.
const FAKE_TOKEN: &str = "fake-github-token";

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
    /// What `git ls-remote --tags` of the action's repository prints (None: it fails).
    tags: Option<String>,
    /// The cache step restores an exact hit holding a built binary.
    cache_hit: bool,
}

impl Case {
    fn new(action_ref: &'static str) -> Self {
        Case {
            inputs: BTreeMap::new(),
            action_ref,
            rd_exit: 0,
            publish: None,
            corrupt_sha: false,
            tags: Some(String::new()),
            cache_hit: false,
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
    /// Each `uses:` step whose `if:` held: the action and its `with:` values.
    uses: Vec<(String, BTreeMap<String, String>)>,
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
    /// The `with:` of the `uses:` step calling `action` (`owner/name[/path]`), if it ran.
    fn used(&self, action: &str) -> Option<&BTreeMap<String, String>> {
        self.uses
            .iter()
            .find(|(u, _)| u.split('@').next() == Some(action))
            .map(|(_, w)| w)
    }
    /// The arguments the (last) check ran with, one per element.
    fn argv(&self) -> Vec<String> {
        self.log("argv.log").lines().map(String::from).collect()
    }
}

/// What an expression evaluates against.
struct Ctx<'a> {
    action: &'a Value,
    case: &'a Case,
    outputs: &'a BTreeMap<String, BTreeMap<String, String>>,
    runner_temp: &'a Path,
}

/// The value of `expr` (a context path such as `inputs.format`); panics on an
/// expression this test does not know, so edits to action.yml that need new
/// ones are noticed.
fn lookup(expr: &str, ctx: &Ctx) -> String {
    let parts: Vec<&str> = expr.split('.').collect();
    match parts.as_slice() {
        ["inputs", name] => {
            let Some(decl) = ctx.action["inputs"].get(*name) else {
                panic!("action.yml uses `{expr}` but declares no input {name}")
            };
            match ctx.case.inputs.get(name) {
                Some(v) => v.to_string(),
                None => match &decl["default"] {
                    Value::Null => String::new(),
                    Value::String(s) => substitute(s, ctx),
                    other => other.to_string(),
                },
            }
        }
        ["github", "action_ref"] => ctx.case.action_ref.to_string(),
        ["github", "action_repository"] => REPOSITORY.to_string(),
        ["github", "token"] => FAKE_TOKEN.to_string(),
        ["runner", "os"] => RUNNER_OS.to_string(),
        ["runner", "arch"] => RUNNER_ARCH.to_string(),
        ["runner", "temp"] => ctx.runner_temp.display().to_string(),
        ["steps", id, "outputs", name] => ctx
            .outputs
            .get(*id)
            .and_then(|o| o.get(*name))
            .cloned()
            .unwrap_or_default(),
        _ => panic!(
            "tests/action.rs does not know the expression `{expr}` in action.yml; \
             teach `lookup` about it"
        ),
    }
}

/// An `if:` condition: clauses `A == 'x'` or `A != 'x'` joined by `&&`.
fn condition(expr: &str, ctx: &Ctx) -> bool {
    let expr = expr.trim();
    let expr = expr
        .strip_prefix("${{")
        .and_then(|e| e.strip_suffix("}}"))
        .unwrap_or(expr);
    expr.split("&&").all(|clause| {
        let clause = clause.trim();
        let (left, right, equal) = if let Some((l, r)) = clause.split_once("==") {
            (l, r, true)
        } else if let Some((l, r)) = clause.split_once("!=") {
            (l, r, false)
        } else {
            panic!("tests/action.rs cannot evaluate the condition `{clause}`")
        };
        let right = right.trim();
        let lit = right
            .strip_prefix('\'')
            .and_then(|r| r.strip_suffix('\''))
            .unwrap_or_else(|| panic!("`{clause}`: the right side must be a quoted literal"));
        (lookup(left.trim(), ctx) == lit) == equal
    })
}

/// Replaces every `${{ expr }}` in `text`.
fn substitute(text: &str, ctx: &Ctx) -> String {
    let re = regex::Regex::new(r"\$\{\{\s*(.*?)\s*\}\}").unwrap();
    re.replace_all(text, |caps: &regex::Captures| lookup(&caps[1], ctx))
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
printf '%s\n' "$@" > '{root}/argv.log'
pwd > '{root}/cwd.log'
printf '%s' "${{GITHUB_TOKEN-(unset)}}" > '{root}/token.log'
for a in "$@"; do
  if [ "$a" = --diff ]; then
    printf -- '--- a/page.md\n+++ b/page.md\n@@ -1 +1 @@\n-  --hicache-io-backend direct\n+  --hicache-io-backend kernel\n'
    exit "$(cat '{root}/rd_exit')"
  fi
done
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
    // git: `git ls-remote --tags https://github.com/REPO` prints the case's tags.
    write_exe(
        &bin.join("git"),
        &format!(
            r#"#!/usr/bin/env bash
printf '%s\n' "$*" >> '{root}/git.log'
if [ "$1 $2 $3" != "ls-remote --tags https://github.com/{REPOSITORY}" ]; then echo "fake git: unexpected $*" >&2; exit 129; fi
if [ ! -f '{root}/tags' ]; then echo "fatal: unable to access 'https://github.com/{REPOSITORY}/'" >&2; exit 128; fi
cat '{root}/tags'
"#,
            root = root.display()
        ),
    );
    if let Some(tags) = &case.tags {
        fs::write(root.join("tags"), tags).unwrap();
    }
    if case.cache_hit {
        let cached = runner_temp.join("recipe-drift-build/bin");
        fs::create_dir_all(&cached).unwrap();
        fs::copy(&fake_rd, cached.join("recipe-drift")).unwrap();
    }
    // cargo: `cargo install ... --root R` puts the fake recipe-drift in R/bin.
    write_exe(
        &bin.join("cargo"),
        &format!(
            r#"#!/usr/bin/env bash
printf '%s\n' "$*" >> '{root}/cargo.log'
printf '%s\n' "${{CARGO_TARGET_DIR-}}" >> '{root}/cargo-target.log'
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
    let mut uses = Vec::new();
    let mut failed = false;
    for (i, step) in steps.iter().enumerate() {
        let obj = step.as_object().expect("a step is a mapping");
        for key in obj.keys() {
            assert!(
                [
                    "name",
                    "id",
                    "shell",
                    "env",
                    "run",
                    "if",
                    "uses",
                    "with",
                    "working-directory"
                ]
                .contains(&key.as_str()),
                "step {i} of action.yml has `{key}`, which tests/action.rs does not emulate"
            );
        }
        let ctx = Ctx {
            action: &action,
            case,
            outputs: &outputs,
            runner_temp: &runner_temp,
        };
        if let Some(cond) = step["if"].as_str()
            && !condition(cond, &ctx)
        {
            continue;
        }
        if let Some(used) = step["uses"].as_str() {
            let mut with = BTreeMap::new();
            if let Some(w) = step["with"].as_object() {
                for (k, v) in w {
                    with.insert(k.clone(), substitute(v.as_str().unwrap_or_default(), &ctx));
                }
            }
            // actions/cache: an exact hit when the case says so.
            if let Some(id) = step["id"].as_str() {
                let mut out = BTreeMap::new();
                if used.starts_with("actions/cache@") && case.cache_hit {
                    out.insert("cache-hit".to_string(), "true".to_string());
                }
                outputs.insert(id.to_string(), out);
            }
            uses.push((used.to_string(), with));
            continue;
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
        let dir = match step["working-directory"].as_str() {
            Some(d) => work.join(substitute(d, &ctx)),
            None => work.clone(),
        };
        fs::create_dir_all(&dir).unwrap();
        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&script)
            .current_dir(&dir)
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
                cmd.env(k, substitute(&raw, &ctx));
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
        let ctx = Ctx {
            action: &action,
            case,
            outputs: &outputs,
            runner_temp: &runner_temp,
        };
        for (name, o) in decl {
            let value = o["value"].as_str().unwrap_or_default();
            action_outputs.insert(name.clone(), substitute(value, &ctx));
        }
    }
    Run {
        _tmp: tmp,
        root,
        runner_temp,
        steps: runs,
        outputs,
        action_outputs,
        uses,
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

const SHA: &str = "0123456789abcdef0123456789abcdef01234567";

/// The build the action runs when no release fits: cargo's log line.
fn cargo_install_line(run: &Run) -> String {
    format!(
        "install --locked --path {} --root {}\n",
        repo_root().display(),
        run.runner_temp.join("recipe-drift-build").display()
    )
}

/// A SHA pin that no release tag points at builds the pinned code, with the
/// build and the remote cache cached under a key that hashes the sources.
#[test]
fn sha_pin_without_a_release_builds_from_source() {
    skip_without_tools!();
    let mut case = Case::new(SHA);
    // Tags of other commits, one of them annotated.
    case.tags = Some(
        "1111111111111111111111111111111111111111\trefs/tags/v1.0.0\n\
         2222222222222222222222222222222222222222\trefs/tags/v1.1.0\n\
         3333333333333333333333333333333333333333\trefs/tags/v1.1.0^{}\n"
            .into(),
    );
    let run = run_action(&case);
    assert_eq!(run.code(), 0, "{}", run.all_output());
    assert_eq!(
        run.log("git.log"),
        format!("ls-remote --tags https://github.com/{REPOSITORY}\n")
    );
    assert_eq!(run.log("curl.log"), "", "no release to download");
    assert_eq!(run.log("cargo.log"), cargo_install_line(&run));
    assert_eq!(
        run.log("cargo-target.log").trim(),
        run.runner_temp
            .join("recipe-drift-target")
            .display()
            .to_string()
    );
    assert!(
        run.step("build")
            .unwrap()
            .stdout
            .contains("built from the action's checkout"),
        "{}",
        run.all_output()
    );
    let cache = run.used("actions/cache").expect("the build is cached");
    let key = &cache["key"];
    let build_key = &run.outputs["install"]["build-key"];
    assert_eq!(build_key.len(), 64, "a SHA-256 of the sources: {build_key}");
    assert_eq!(key, &format!("recipe-drift-build-Linux-X64-{build_key}"));
    for path in ["recipe-drift-build", "recipe-drift-target"] {
        let p = run.runner_temp.join(path).display().to_string();
        assert!(cache["path"].lines().any(|l| l == p), "{}", cache["path"]);
    }
    assert!(cache["path"].lines().any(|l| l == "~/.cache/recipe-drift"));
    assert_eq!(run.log("recipe-drift.log"), "check --format github\n");
    assert_eq!(run.action_outputs["exit-code"], "0");
}

/// The build key is the same for the same sources (so the cache hits).
#[test]
fn build_key_is_stable() {
    skip_without_tools!();
    let a = run_action(&Case::new("main"));
    let b = run_action(&Case::new("main"));
    assert_eq!(
        a.outputs["install"]["build-key"],
        b.outputs["install"]["build-key"]
    );
}

/// A SHA pin that a release tag points at (annotated: its `^{}` line) downloads
/// that release; no build.
#[test]
fn sha_pin_of_a_release_downloads_it() {
    skip_without_tools!();
    let mut case = Case::new(SHA);
    case.tags = Some(format!(
        "4444444444444444444444444444444444444444\trefs/tags/v1.2.3\n\
         {SHA}\trefs/tags/v1.2.3^{{}}\n\
         {SHA}\trefs/tags/nightly\n"
    ));
    case.publish = Some("v1.2.3");
    let run = run_action(&case);
    assert_eq!(run.code(), 0, "{}", run.all_output());
    let urls = run.log("curl-urls.log");
    assert!(
        urls.starts_with(&release_url(
            "v1.2.3",
            &format!("recipe-drift-{TARGET}.tar.gz")
        )),
        "{urls}"
    );
    assert_eq!(run.log("cargo.log"), "", "no build");
    assert!(run.used("actions/cache").is_none(), "nothing to cache");
    assert!(
        run.step("install").unwrap().stdout.contains(
            "the action's commit 0123456789abcdef0123456789abcdef01234567 is release v1.2.3"
        ),
        "{}",
        run.all_output()
    );
    assert_eq!(run.log("recipe-drift.log"), "check --format github\n");
}

/// A SHA pin whose release has no asset (yet), or whose tags cannot be
/// listed, builds the pinned code.
#[test]
fn sha_pin_falls_back_to_building() {
    skip_without_tools!();
    let mut case = Case::new(SHA);
    case.tags = Some(format!("{SHA}\trefs/tags/v1.2.3\n"));
    let run = run_action(&case);
    assert_eq!(run.code(), 0, "{}", run.all_output());
    assert!(
        !run.log("curl-urls.log").is_empty(),
        "the download is tried"
    );
    assert_eq!(run.log("cargo.log"), cargo_install_line(&run));

    let mut case = Case::new(SHA);
    case.tags = None;
    let run = run_action(&case);
    assert_eq!(run.code(), 0, "{}", run.all_output());
    assert!(
        run.step("install")
            .unwrap()
            .stdout
            .contains("::warning::recipe-drift: cannot list the tags"),
        "{}",
        run.all_output()
    );
    assert_eq!(run.log("cargo.log"), cargo_install_line(&run));
}

/// A branch pin builds without asking for tags.
#[test]
fn branch_pin_builds() {
    skip_without_tools!();
    let run = run_action(&Case::new("main"));
    assert_eq!(run.code(), 0, "{}", run.all_output());
    assert_eq!(run.log("git.log"), "");
    assert_eq!(run.log("curl.log"), "");
    assert_eq!(run.log("cargo.log"), cargo_install_line(&run));
}

/// An exact cache hit reuses the cached binary: no cargo.
#[test]
fn cached_build_is_reused() {
    skip_without_tools!();
    let mut case = Case::new("main");
    case.cache_hit = true;
    let run = run_action(&case);
    assert_eq!(run.code(), 0, "{}", run.all_output());
    assert_eq!(run.log("cargo.log"), "", "the cached build is used");
    assert!(
        run.step("build")
            .unwrap()
            .stdout
            .contains("the build of these sources was cached")
    );
    assert_eq!(run.log("recipe-drift.log"), "check --format github\n");
}

/// `args` (split like a shell, not evaluated), `changed-from`,
/// `working-directory` and `token` reach the check.
#[test]
fn args_changed_from_working_directory_and_token() {
    skip_without_tools!();
    let mut case = Case::new("v1.2.3")
        .input("args", "--offline --bash-budget 'steps=5 0' \"$HOME\"")
        .input("changed-from", "origin/main")
        .input("working-directory", "site/docs");
    case.publish = Some("v1.2.3");
    let run = run_action(&case);
    assert_eq!(run.code(), 0, "{}", run.all_output());
    assert_eq!(
        run.argv(),
        [
            "check",
            "--format",
            "github",
            "--changed-from",
            "origin/main",
            "--offline",
            "--bash-budget",
            "steps=5 0",
            "$HOME"
        ]
    );
    assert_eq!(
        Path::new(run.log("cwd.log").trim()),
        run.root.join("work/site/docs")
    );
    assert_eq!(run.log("token.log"), FAKE_TOKEN, "the default token");

    let mut case = Case::new("v1.2.3").input("token", "");
    case.publish = Some("v1.2.3");
    let run = run_action(&case);
    assert_eq!(
        run.log("token.log"),
        "(unset)",
        "an empty token sets nothing"
    );
}

/// An unmatched quote in `args` is a usage error before anything runs.
#[test]
fn args_with_an_unmatched_quote_fail() {
    skip_without_tools!();
    let mut case = Case::new("v1.2.3").input("args", "--config 'a.yaml");
    case.publish = Some("v1.2.3");
    let run = run_action(&case);
    assert_eq!(run.code(), 2, "{}", run.all_output());
    assert!(run.all_output().contains("::error::args: cannot split"));
    assert_eq!(run.log("recipe-drift.log"), "");
}

/// upload-sarif uploads the SARIF report before fail-on fails the job.
#[test]
fn upload_sarif_runs_before_failing() {
    skip_without_tools!();
    let mut case = Case::new("v1.2.3")
        .input("format", "sarif")
        .input("upload-sarif", "true");
    case.publish = Some("v1.2.3");
    case.rd_exit = 1;
    let run = run_action(&case);
    assert_eq!(run.code(), 1, "{}", run.all_output());
    let upload = run
        .used("github/codeql-action/upload-sarif")
        .expect("the SARIF upload ran");
    assert_eq!(
        Path::new(&upload["sarif_file"]),
        run.runner_temp.join("recipe-drift-report.sarif")
    );
    assert_eq!(upload["category"], "recipe-drift");
    assert_eq!(run.steps.last().unwrap().id, "fail-on");

    // Off by default; and only with format sarif.
    let run = fail_on_run("error", 1);
    assert!(run.used("github/codeql-action/upload-sarif").is_none());
    let mut case = Case::new("v1.2.3").input("upload-sarif", "true");
    case.publish = Some("v1.2.3");
    let run = run_action(&case);
    assert_eq!(run.code(), 2, "{}", run.all_output());
    assert!(
        run.all_output()
            .contains("upload-sarif: true needs format: sarif")
    );
    assert_eq!(run.log("recipe-drift.log"), "");
}

/// fail-on warning: undecidable MAJOR values are judged `missing`, so the
/// check's exit code says it (the output is not read).
#[test]
fn fail_on_warning_uses_the_exit_code() {
    skip_without_tools!();
    let run = fail_on_run("warning", 0);
    assert_eq!(run.code(), 0, "{}", run.all_output());
    assert_eq!(
        run.log("recipe-drift.log"),
        "check --format github --unknown missing\n"
    );
    let run = fail_on_run("warning", 1);
    assert_eq!(run.code(), 1, "{}", run.all_output());
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

/// `fix-diff: true` runs the check a second time with `--diff` (same
/// arguments) and puts the diff in the job summary; by default it does not.
#[test]
fn fix_diff_puts_the_fixes_in_the_job_summary() {
    skip_without_tools!();
    let mut case = Case::new("v1.2.3").input("fix-diff", "true");
    case.publish = Some("v1.2.3");
    case.rd_exit = 1;
    let run = run_action(&case);
    assert_eq!(
        run.log("recipe-drift.log"),
        "check --format github\ncheck --format github --diff\n"
    );
    let summary = run.summary();
    assert!(summary.contains("````diff\n--- a/page.md\n"), "{summary}");
    assert!(
        summary.contains("+  --hicache-io-backend kernel\n"),
        "{summary}"
    );
    assert_eq!(
        run.outputs["check"]["exit-code"], "1",
        "the check's code, not the diff's"
    );

    let mut case = Case::new("v1.2.3");
    case.publish = Some("v1.2.3");
    case.rd_exit = 1;
    let run = run_action(&case);
    assert_eq!(run.log("recipe-drift.log"), "check --format github\n");
    assert!(!run.summary().contains("````diff"));

    let mut case = Case::new("v1.2.3").input("fix-diff", "yes");
    case.publish = Some("v1.2.3");
    let run = run_action(&case);
    assert_ne!(run.code(), 0);
    assert!(run.all_output().contains("fix-diff must be true or false"));
}

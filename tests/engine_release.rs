//! The release workflow `.github/workflows/engine-release.yml` and the dump
//! scripts it runs, offline. The workflow's `run:` steps run with bash in a
//! scratch copy of the repository's scripts, as a runner runs them (`bash -e`,
//! `${{ ... }}` substituted, GITHUB_OUTPUT read back), against a fake PyPI on
//! 127.0.0.1 and fixture releases: `python3` is a shim that runs the workflow's
//! own scripts for real (new releases, function hashes) and stands in for the
//! dump scripts that need a real wheel; `git` and `gh` are fakes that log. A
//! `uses:` step is not run. The scripts' own promises (keep downloads, name the
//! missing stub, add one release at a time) are tested on fixture wheels.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::http::{Server, ok};
use serde_json::{Value, json};

const WORKFLOW: &str = ".github/workflows/engine-release.yml";
/// What `${{ github.ref_name }}` stands for.
const BASE: &str = "main";
/// What `${{ github.repository }}` stands for.
const REPOSITORY: &str = "test-owner/recipe-drift";

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The real python3, or None (after printing SKIPPED; a panic under CI=true).
fn python() -> Option<PathBuf> {
    let out = Command::new("sh")
        .args(["-c", "command -v python3"])
        .output()
        .ok()?;
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if out.status.success() && !path.is_empty() {
        return Some(PathBuf::from(path));
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("python3 is missing, and CI=true requires the release workflow test to run");
    }
    eprintln!("SKIPPED: python3 is not available");
    None
}

fn write_exe(path: &Path, text: &str) {
    fs::write(path, text).unwrap();
    let status = Command::new("chmod").arg("755").arg(path).status().unwrap();
    assert!(status.success());
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn workflow_text() -> String {
    fs::read_to_string(repo_root().join(WORKFLOW)).unwrap()
}

fn workflow() -> Value {
    serde_saphyr::from_str(&workflow_text()).expect("the workflow parses")
}

/// The jobs: the releases, and the development commits.
const JOBS: [&str; 2] = ["release", "development-commits"];

/// Each step of job `name`, in order.
fn steps(wf: &Value, name: &str) -> Vec<Value> {
    let jobs = wf["jobs"].as_object().expect("jobs");
    let job = jobs.get(name).unwrap_or_else(|| panic!("no job {name}"));
    job["steps"].as_array().expect("steps").clone()
}

#[test]
fn the_workflow_is_scheduled_pinned_and_minimal() {
    let wf = workflow();
    let text = workflow_text();
    let on = &wf["on"];
    assert!(
        on["schedule"][0]["cron"]
            .as_str()
            .is_some_and(|c| c.split_whitespace().count() == 5),
        "a cron schedule: {on}"
    );
    assert!(
        on.as_object().unwrap().contains_key("workflow_dispatch"),
        "runs by hand too"
    );
    // No permission at the top; the job asks for exactly what pushing a
    // branch and opening a pull request need.
    assert_eq!(wf["permissions"], json!({}));
    for (name, job) in wf["jobs"].as_object().unwrap() {
        assert_eq!(
            job["permissions"],
            json!({"contents": "write", "pull-requests": "write"}),
            "job {name}"
        );
    }
    // Every action pinned by a commit, the version named beside it.
    let pinned = regex::Regex::new(r"uses: [\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+(\.\d+)*$").unwrap();
    let uses: Vec<&str> = text.lines().filter(|l| l.contains("uses:")).collect();
    assert!(!uses.is_empty());
    for line in uses {
        assert!(
            pinned.is_match(line.trim_start_matches([' ', '-'])),
            "not pinned: {line}"
        );
    }
    let names: Vec<&String> = wf["jobs"].as_object().unwrap().keys().collect();
    assert_eq!(names, JOBS, "the jobs");
    for job in JOBS {
        every_job_checks_out_and_runs_what_exists(&steps(&wf, job), job);
    }
    assert!(
        steps(&wf, "release")
            .iter()
            .any(|s| s["run"].as_str() == Some("python3 scripts/release_lines.py")),
        "the release lines table is refreshed"
    );
    assert!(
        steps(&wf, "development-commits").iter().any(|s| s["run"]
            .as_str()
            .is_some_and(|r| r.contains("scripts/release_lines.py --place-commits"))),
        "the development commits are placed"
    );
}

/// A job's checkout keeps no credentials, its Python is 3.11, expressions
/// reach its scripts through env: only, and each script it runs exists.
fn every_job_checks_out_and_runs_what_exists(steps: &[Value], job: &str) {
    let checkout = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/checkout@"))
        })
        .unwrap_or_else(|| panic!("a checkout in {job}"));
    assert_eq!(checkout["with"]["persist-credentials"], json!(false));
    let python = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/setup-python@"))
        })
        .unwrap_or_else(|| panic!("Python set up in {job}"));
    assert_eq!(
        python["with"]["python-version"], "3.11",
        "the schemas and hashes are Python 3.11's"
    );
    // Expressions reach the scripts through env: only (no injection into run:),
    // and each script a step runs exists.
    let script = regex::Regex::new(r"python3 (?:-m pip .* -r )?(scripts/[\w.-]+)").unwrap();
    let mut runs = 0;
    for s in steps {
        let Some(run) = s["run"].as_str() else {
            continue;
        };
        runs += 1;
        assert!(!run.contains("${{"), "an expression in run: {run}");
        for c in script.captures_iter(run) {
            let path = &c[1];
            assert!(repo_root().join(path).is_file(), "{path} does not exist");
        }
    }
    assert!(runs >= 2, "{job}");
}

// ---------------------------------------------------------------------------
// Running the steps
// ---------------------------------------------------------------------------

/// A case of the offline run.
#[derive(Default)]
struct Case {
    /// PyPI's JSON per package.
    pypi: BTreeMap<&'static str, Value>,
    /// Scripts (file names) the python3 shim fails.
    failing: Vec<&'static str>,
    /// A pull request of the branch is already open.
    pr_open: bool,
    /// Writes the case's own files under the run's root (before the steps):
    /// `remotes/NAME` is what `git clone .../NAME.git DEST` copies.
    prepare: Option<Prepare>,
}

/// Writes a case's own files under a run's root.
type Prepare = Box<dyn Fn(&Path)>;

struct Run {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    ws: PathBuf,
    runner_temp: PathBuf,
    /// (step id or index, exit code, stdout + stderr), for the steps that ran.
    steps: Vec<(String, i32, String)>,
    outputs: BTreeMap<String, BTreeMap<String, String>>,
}

impl Run {
    fn log(&self, name: &str) -> String {
        fs::read_to_string(self.root.join(name)).unwrap_or_default()
    }
    fn all_output(&self) -> String {
        self.steps
            .iter()
            .map(|(id, code, out)| format!("--- {id} (exit {code})\n{out}"))
            .collect()
    }
    fn code(&self) -> i32 {
        self.steps
            .iter()
            .map(|s| s.1)
            .find(|&c| c != 0)
            .unwrap_or(0)
    }
    /// The arguments python3 was called with, one call per line, paths made relative.
    fn python_calls(&self) -> Vec<String> {
        self.log("python3.log")
            .lines()
            .map(|l| l.replace(&self.runner_temp.display().to_string(), "$RT"))
            .collect()
    }
}

/// A fixture module of an engine release: two functions the rules cite.
fn engine_module(g_body: &str) -> String {
    format!(
        "\"\"\"A fixture, not upstream code.\"\"\"\n\nclass Args:\n    def decide(self, x):\n        \"\"\"Stays.\"\"\"\n        return x + 1\n\n\ndef pick(x):\n    {g_body}\n"
    )
}

const RULES: &str = r#"rules:
  - id: stays-the-same
    reference: "ENGINE cfg/args.py Args.decide (L3-5)"
  - id: follows-pick
    reference: "ENGINE cfg/args.py@v1 L9 pick: what it picks"
"#;

/// An unpacked fixture release ROOT/VERSION of PACKAGE.
fn fixture_release(root: &Path, package: &str, version: &str, g_body: &str) {
    let dir = root.join(version);
    write(&dir.join(package).join("__init__.py"), "");
    write(
        &dir.join(package).join("cfg/args.py"),
        &engine_module(g_body),
    );
    write(
        &dir.join(format!("{package}-{version}.dist-info/METADATA")),
        &format!("Name: {package}\nVersion: {version}\n"),
    );
}

/// The scratch repository: the real scripts, a schema folder per engine with
/// the newest bundled release, fixture rules and the hashes of that release.
fn scratch_repo(ws: &Path, py: &Path, fixtures: &Path) {
    let scripts = ws.join("scripts");
    fs::create_dir_all(&scripts).unwrap();
    for e in fs::read_dir(repo_root().join("scripts")).unwrap() {
        let e = e.unwrap();
        if e.path().is_file() {
            fs::copy(e.path(), scripts.join(e.file_name())).unwrap();
        }
    }
    fs::create_dir_all(ws.join("src/engine")).unwrap();
    for table in ["dev_commits.yaml", "releases.yaml"] {
        fs::copy(
            repo_root().join("src/engine").join(table),
            ws.join("src/engine").join(table),
        )
        .unwrap();
    }
    for (engine, older, newest) in [("vllm", "0.33.0", "0.34.0"), ("sglang", "0.5.22", "0.5.23")] {
        let dir = ws.join("src/engine").join(engine);
        write(&dir.join(format!("schemas/{older}.json")), "{}\n");
        write(&dir.join(format!("schemas/{newest}.json")), "{}\n");
        write(&dir.join("rules.yaml"), &RULES.replace("ENGINE", engine));
        let old = fixtures.join(engine);
        fixture_release(&old, engine, newest, "return x * 2");
        let out = Command::new(py)
            .arg(scripts.join("upstream_hashes.py"))
            .args(["--engine", engine, "--root"])
            .arg(&old)
            .arg(newest)
            .arg("--record")
            .arg(dir.join("upstream_hashes.json"))
            .current_dir(ws)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// PyPI's JSON for these (version, file kinds) pairs: "wheel", "sdist", "yanked".
fn pypi(releases: &[(&str, &[&str])]) -> Value {
    let mut map = serde_json::Map::new();
    for (v, kinds) in releases {
        let files: Vec<Value> = kinds
            .iter()
            .map(|k| match *k {
                "wheel" => json!({"packagetype": "bdist_wheel", "yanked": false, "filename": format!("x-{v}-py3-none-any.whl")}),
                "yanked" => json!({"packagetype": "bdist_wheel", "yanked": true, "filename": format!("x-{v}-py3-none-any.whl")}),
                _ => json!({"packagetype": "sdist", "yanked": false, "filename": format!("x-{v}.tar.gz")}),
            })
            .collect();
        map.insert(v.to_string(), Value::Array(files));
    }
    json!({"info": {"name": "x"}, "releases": map})
}

/// A case with one new release per engine: vLLM 0.35.0 (its rc, a yanked
/// 0.36.0 and an older 0.33.1 are not), SGLang 0.5.24 (0.5.25 has no wheel).
fn two_new_releases() -> Case {
    let mut case = Case::default();
    case.pypi.insert(
        "vllm",
        pypi(&[
            ("0.33.1", &["wheel"]),
            ("0.34.0", &["wheel", "sdist"]),
            ("0.35.0rc1", &["wheel"]),
            ("0.35.0", &["wheel", "sdist"]),
            ("0.36.0", &["yanked"]),
        ]),
    );
    case.pypi.insert(
        "sglang",
        pypi(&[
            ("0.5.23", &["wheel"]),
            ("0.5.24", &["wheel"]),
            ("0.5.25", &["sdist"]),
        ]),
    );
    case
}

fn run_workflow(case: &Case) -> Option<Run> {
    run_job(case, "release")
}

/// Runs the `run:` steps of job `name` offline: `python3` runs the scripts
/// that need no network (the others are logged), `git` copies `clone`s from
/// the case's `remotes/`, runs `-C DIR` commands and logs the rest, `gh` is
/// logged.
fn run_job(case: &Case, name: &str) -> Option<Run> {
    let py = python()?;
    let real_git = which_git();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let (ws, bin, runner_temp, home) = (
        root.join("ws"),
        root.join("bin"),
        root.join("runner_temp"),
        root.join("home"),
    );
    for d in [&ws, &bin, &runner_temp, &home] {
        fs::create_dir_all(d).unwrap();
    }
    scratch_repo(&ws, &py, &root.join("old-releases"));
    if let Some(prepare) = &case.prepare {
        prepare(&root);
    }
    // The new releases, already in the dump cache (no download).
    let cache = runner_temp.join("dump-cache");
    fixture_release(&cache.join("vllm"), "vllm", "0.35.0", "return x * 3");
    fixture_release(&cache.join("sglang"), "sglang", "0.5.24", "return x * 2");

    let pages: BTreeMap<String, Vec<u8>> = case
        .pypi
        .iter()
        .map(|(p, v)| (format!("/pypi/{p}/json"), v.to_string().into_bytes()))
        .collect();
    let server = Server::start(move |req, _| match pages.get(&req.path) {
        Some(body) => ok(body.clone()),
        None => common::http::status(404),
    });

    let failing = case.failing.join(" ");
    write_exe(
        &bin.join("python3"),
        &format!(
            r#"#!/usr/bin/env bash
printf '%s\n' "$*" >> '{root}/python3.log'
case "${{1:-}}" in
  scripts/new_releases.py|scripts/upstream_hashes.py) exec '{py}' "$@" ;;
esac
if [ "${{1:-}} ${{2:-}}" = "scripts/release_lines.py --place-commits" ]; then exec '{py}' "$@"; fi
for f in {failing}; do
  if [ "${{1:-}}" = "scripts/$f" ]; then echo "fake $f: failed on purpose" >&2; exit 1; fi
done
case "${{1:-}}" in
  scripts/check_oracle.py|scripts/check_vllm_oracle.py) echo "TOTAL: fake oracle, 0 disagreements" ;;
esac
exit 0
"#,
            root = root.display(),
            py = py.display(),
        ),
    );
    write_exe(
        &bin.join("git"),
        &format!(
            r#"#!/usr/bin/env bash
printf '%s\n' "$*" >> '{root}/git.log'
case "${{1:-}}" in
  clone) url=${{@: -2:1}}; dest=${{@: -1}}; exec cp -r "{root}/remotes/$(basename "$url" .git)" "$dest" ;;
  -C) exec '{git}' "$@" ;;
esac
"#,
            root = root.display(),
            git = real_git.display(),
        ),
    );
    let pr_open = u8::from(case.pr_open);
    write_exe(
        &bin.join("gh"),
        &format!(
            r#"#!/usr/bin/env bash
printf '%s\n' "$*" >> '{root}/gh.log'
printf '%s %s\n' "${{GH_TOKEN-(unset)}}" "${{GH_REPO-(unset)}}" >> '{root}/gh-token.log'
if [ "$1 $2" = "pr list" ]; then echo {pr_open}; exit 0; fi
while [ $# -gt 0 ]; do
  if [ "$1" = --body-file ]; then cp "$2" '{root}/pr-body.md'; fi
  shift
done
"#,
            root = root.display(),
        ),
    );

    let wf = workflow();
    let job = wf["jobs"][name].clone();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into())
    );
    let mut outputs: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut ran = Vec::new();
    let expr = regex::Regex::new(r"\$\{\{\s*(.*?)\s*\}\}").unwrap();
    for (i, step) in steps(&wf, name).iter().enumerate() {
        if step["uses"].is_string() {
            continue;
        }
        let lookup = |expr: &str| -> String {
            let parts: Vec<&str> = expr.split('.').collect();
            match parts.as_slice() {
                ["steps", id, "outputs", name] => outputs
                    .get(*id)
                    .and_then(|o| o.get(*name))
                    .cloned()
                    .unwrap_or_default(),
                ["runner", "temp"] => runner_temp.display().to_string(),
                ["github", "token"] => "fake-token".into(),
                ["github", "ref_name"] => BASE.into(),
                ["github", "repository"] => REPOSITORY.into(),
                _ => panic!("the test does not know the expression `{expr}`; teach it"),
            }
        };
        // `if:` clauses `A == 'x'` joined by `&&`.
        if let Some(cond) = step["if"].as_str() {
            let holds = cond.split("&&").all(|clause| {
                let (left, right) = clause
                    .split_once("==")
                    .unwrap_or_else(|| panic!("cannot evaluate `{cond}`"));
                lookup(left.trim()) == right.trim().trim_matches('\'')
            });
            if !holds {
                continue;
            }
        }
        let id = step["id"]
            .as_str()
            .map(String::from)
            .unwrap_or(format!("step{i}"));
        let out_file = root.join(format!("output-{i}"));
        fs::write(&out_file, "").unwrap();
        let mut cmd = Command::new("bash");
        cmd.arg("-e")
            .arg("-c")
            .arg(step["run"].as_str().expect("run:"))
            .current_dir(&ws)
            .env_clear()
            .env("PATH", &path)
            .env("HOME", &home)
            .env("LC_ALL", "C")
            .env("GITHUB_OUTPUT", &out_file)
            .env("RUNNER_TEMP", &runner_temp)
            .env("PYPI_JSON_URL", format!("{}/pypi", server.base()))
            .env("no_proxy", "*");
        for env in [&job["env"], &step["env"]] {
            for (k, v) in env.as_object().into_iter().flatten() {
                let raw = v.as_str().map(String::from).unwrap_or(v.to_string());
                let value = expr.replace_all(&raw, |c: &regex::Captures| lookup(&c[1]));
                cmd.env(k, value.as_ref());
            }
        }
        let out = cmd.output().unwrap();
        let code = out.status.code().unwrap_or(-1);
        let text = fs::read_to_string(&out_file).unwrap();
        let parsed = text
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        outputs.insert(id.clone(), parsed);
        ran.push((
            id,
            code,
            format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        ));
        if code != 0 {
            break;
        }
    }
    Some(Run {
        _tmp: tmp,
        root,
        ws,
        runner_temp,
        steps: ran,
        outputs,
    })
}

#[test]
fn a_new_release_of_each_engine_is_dumped_checked_and_proposed() {
    let Some(run) = run_workflow(&two_new_releases()) else {
        return;
    };
    assert_eq!(run.code(), 0, "{}", run.all_output());
    let new = &run.outputs["new"];
    assert_eq!(new["vllm"], "0.35.0", "final, with a wheel, not yanked");
    assert_eq!(new["sglang"], "0.5.24", "0.5.25 has no wheel");
    assert_eq!(new["any"], "true");

    let calls = run.python_calls();
    let dumps: Vec<&str> = calls
        .iter()
        .map(String::as_str)
        .filter(|c| !c.starts_with("scripts/new_releases.py") && !c.starts_with("-m pip"))
        .collect();
    assert_eq!(
        dumps,
        [
            "scripts/vllm_release.py --root $RT/dump-cache/vllm 0.35.0",
            "scripts/vllm_schema.py 0.35.0 --root $RT/dump-cache/vllm --out src/engine/vllm/schemas",
            "scripts/vllm_envs.py --root $RT/dump-cache/vllm --add src/engine/vllm/envs.json 0.35.0",
            "scripts/vllm_config_fields.py --root $RT/dump-cache/vllm --add src/engine/vllm/config_fields.json --version 0.35.0",
            "scripts/check_vllm_oracle.py --root $RT/dump-cache/vllm 0.35.0",
            "scripts/upstream_hashes.py --engine vllm --root $RT/dump-cache/vllm 0.35.0 --record src/engine/vllm/upstream_hashes.json --checklist $RT/logs/hashes.md",
            "scripts/vllm_release.py --root $RT/dump-cache/sglang --package sglang 0.5.24",
            "scripts/sglang_schema.py 0.5.24 --root $RT/dump-cache/sglang --out src/engine/sglang/schemas",
            "scripts/check_oracle.py --root $RT/dump-cache/sglang 0.5.24",
            "scripts/upstream_hashes.py --engine sglang --root $RT/dump-cache/sglang 0.5.24 --record src/engine/sglang/upstream_hashes.json --checklist $RT/logs/hashes.md",
            "scripts/release_lines.py",
        ]
    );
    assert!(calls.iter().any(|c| c
        == "-m pip install --quiet --disable-pip-version-check -r scripts/dump-requirements.txt"));

    // The hashes of each new release are recorded beside the older one's.
    for (engine, old, new) in [("vllm", "0.34.0", "0.35.0"), ("sglang", "0.5.23", "0.5.24")] {
        let path = run
            .ws
            .join("src/engine")
            .join(engine)
            .join("upstream_hashes.json");
        let data: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
        let releases = data["releases"].as_object().unwrap();
        assert_eq!(releases.keys().collect::<Vec<_>>(), [old, new], "{engine}");
        assert_eq!(
            releases[old]["cfg/args.py Args.decide"], releases[new]["cfg/args.py Args.decide"],
            "{engine}: a docstring-only change is no change"
        );
    }

    // The pull request: its branch, title and the checklist as its body.
    let body = run.log("pr-body.md");
    let vllm = body.split("## SGLang").next().unwrap();
    assert!(vllm.contains("## vLLM 0.35.0"), "{body}");
    assert!(
        vllm.contains("parser oracle: passed (TOTAL: fake oracle"),
        "{body}"
    );
    assert!(
        vllm.contains("- [ ] `cfg/args.py pick` changed: rules `follows-pick`"),
        "the rule citing the changed function is listed: {body}"
    );
    assert!(!vllm.contains("stays-the-same"), "{body}");
    let sglang = body
        .split("## SGLang 0.5.24")
        .nth(1)
        .expect("an SGLang part");
    assert!(
        sglang.contains("No function the rules cite changed since 0.5.23."),
        "{body}"
    );
    let branch = "engine-release/vllm-0.35.0-sglang-0.5.24";
    let git = run.log("git.log");
    for line in [
        format!("switch -c {branch}"),
        "add -A".to_string(),
        "commit -q -m engine releases: vLLM 0.35.0 SGLang 0.5.24".to_string(),
        format!("push --force origin HEAD:refs/heads/{branch}"),
    ] {
        assert!(git.lines().any(|l| l == line), "no `git {line}` in:\n{git}");
    }
    let gh = run.log("gh.log");
    assert_eq!(run.outputs["pr"]["open"], "false");
    assert!(gh.lines().any(|l| l == "auth setup-git"), "{gh}");
    let create = format!(
        "pr create --base {BASE} --head {branch} --title engine releases: vLLM 0.35.0 SGLang 0.5.24 --body-file {}",
        run.runner_temp.join("checklist.md").display()
    );
    assert!(gh.lines().any(|l| l == create), "{gh}");
    for line in run.log("gh-token.log").lines() {
        assert_eq!(
            line,
            format!("fake-token {REPOSITORY}"),
            "every gh call knows its repository"
        );
    }
}

#[test]
fn nothing_new_runs_nothing_else() {
    let mut case = Case::default();
    case.pypi.insert(
        "vllm",
        pypi(&[("0.34.0", &["wheel"]), ("0.35.0rc2", &["wheel"])]),
    );
    case.pypi.insert("sglang", pypi(&[("0.5.23", &["wheel"])]));
    let Some(run) = run_workflow(&case) else {
        return;
    };
    assert_eq!(run.code(), 0, "{}", run.all_output());
    assert_eq!(run.outputs["new"]["any"], "false");
    assert_eq!(run.steps.len(), 1, "{}", run.all_output());
    assert_eq!(run.python_calls().len(), 1);
    assert_eq!(run.log("git.log"), "");
    assert_eq!(run.log("gh.log"), "");
}

#[test]
fn a_failing_oracle_is_in_the_checklist_and_the_pull_request_still_opens() {
    let mut case = two_new_releases();
    case.failing = vec!["check_oracle.py"];
    let Some(run) = run_workflow(&case) else {
        return;
    };
    assert_eq!(run.code(), 0, "{}", run.all_output());
    let body = run.log("pr-body.md");
    let sglang = body
        .split("## SGLang 0.5.24")
        .nth(1)
        .expect("an SGLang part");
    assert!(
        sglang.contains("- [ ] parser oracle: FAILED") && sglang.contains("failed on purpose"),
        "{body}"
    );
    assert!(
        body.contains("parser oracle: passed"),
        "vLLM's passed: {body}"
    );
    assert!(run.log("gh.log").contains("pr create"));
}

#[test]
fn an_open_pull_request_of_the_same_releases_is_left_alone() {
    let mut case = two_new_releases();
    case.pr_open = true;
    let Some(run) = run_workflow(&case) else {
        return;
    };
    assert_eq!(run.code(), 0, "{}", run.all_output());
    assert_eq!(run.outputs["pr"]["open"], "true");
    let gh = run.log("gh.log");
    assert_eq!(
        gh.trim(),
        "pr list --head engine-release/vllm-0.35.0-sglang-0.5.24 --state open --json number --jq length"
    );
    assert_eq!(run.log("git.log"), "", "its branch is not pushed over");
    assert_eq!(run.python_calls().len(), 1, "nothing is dumped");
}

#[test]
fn a_failing_dump_stops_before_the_pull_request() {
    let mut case = two_new_releases();
    case.failing = vec!["vllm_schema.py"];
    let Some(run) = run_workflow(&case) else {
        return;
    };
    assert_ne!(run.code(), 0);
    assert!(run.all_output().contains("failed on purpose"));
    assert_eq!(run.log("git.log"), "", "nothing is committed");
    assert!(!run.log("gh.log").contains("pr create"));
}

/// The git the machine has (the workflow's `git` stand-in runs it for `-C`).
fn which_git() -> PathBuf {
    let out = Command::new("bash")
        .args(["-c", "command -v git"])
        .output()
        .expect("bash");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

/// Runs git in `dir` with a fixed author and clock; its stdout, trimmed.
fn git_in(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_DATE", "2026-08-12T23:30:00+05:00")
        .env("GIT_COMMITTER_DATE", "2026-08-12T23:30:00+05:00")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The remotes of the development-commits job: an engine history per engine
/// (its tags `v<release>` of the scratch repository's releases, then one
/// development commit) and an InferenceX whose master config names the vLLM
/// development commit and a commit no history holds. Returns the vLLM
/// development commit.
fn development_remotes(root: &Path) -> String {
    let mut dev = String::new();
    for (engine, releases) in [
        ("vllm", ["0.33.0", "0.34.0"]),
        ("sglang", ["0.5.22", "0.5.23"]),
    ] {
        let repo = root.join("remotes").join(engine);
        fs::create_dir_all(&repo).unwrap();
        git_in(&repo, &["init", "-q"]);
        for v in releases {
            git_in(&repo, &["commit", "-q", "--allow-empty", "-m", v]);
            git_in(&repo, &["tag", &format!("v{v}")]);
        }
        git_in(&repo, &["commit", "-q", "--allow-empty", "-m", "dev"]);
        if engine == "vllm" {
            dev = git_in(&repo, &["rev-parse", "HEAD"]);
        }
    }
    write(
        &root.join("remotes/InferenceX/.github/configs/nvidia-master.yaml"),
        &format!(
            "a:\n  image: vllm/vllm-openai:nightly-{}\nb:\n  image: vllm/vllm-openai-rocm:nightly-deadbeef1234\n",
            &dev[..12]
        ),
    );
    dev
}

#[test]
fn development_commits_are_placed_and_proposed_and_a_missing_one_is_named() {
    let case = Case {
        prepare: Some(Box::new(|root: &Path| {
            let dev = development_remotes(root);
            write(&root.join("dev-commit"), &dev);
        })),
        ..Case::default()
    };
    let Some(run) = run_job(&case, "development-commits") else {
        return;
    };
    assert_eq!(run.code(), 0, "{}", run.all_output());
    assert_eq!(run.outputs["place"]["changed"], "true");
    let dev = run.log("dev-commit");
    let table = fs::read_to_string(run.ws.join("src/engine/dev_commits.yaml")).unwrap();
    assert!(
        table.contains(&format!(
            "vllm:\n  - commit: {dev}\n    date: \"2026-08-12\"\n    after: \"0.34.0\"\n"
        )),
        "{table}"
    );
    assert!(table.contains("sglang: []"), "{table}");
    let body = run.log("pr-body.md");
    assert!(body.contains(&format!("+  - commit: {dev}")), "{body}");
    assert!(
        body.contains("Not placed") && body.contains("- not placed: vllm deadbeef1234"),
        "{body}"
    );
    let gh = run.log("gh.log");
    assert!(
        gh.contains("pr create --base main --head engine-release/development-commits"),
        "{gh}"
    );
    let git = run.log("git.log");
    assert!(
        git.contains("add src/engine/releases.yaml src/engine/dev_commits.yaml")
            && git
                .contains("push --force origin HEAD:refs/heads/engine-release/development-commits"),
        "{git}"
    );
    assert!(
        git.contains(
            "clone --quiet --filter=tree:0 --no-checkout https://github.com/vllm-project/vllm.git"
        ),
        "a history without trees: {git}"
    );
    // The releases' tagged commits are refreshed from the same histories.
    let calls = run.python_calls();
    assert!(
        calls.iter().any(|c| c.starts_with(
            "scripts/release_lines.py --checkout vllm=$RT/histories/vllm --checkout sglang=$RT/histories/sglang"
        )),
        "{calls:?}"
    );
}

#[test]
fn development_commits_already_placed_open_no_pull_request() {
    let case = Case {
        prepare: Some(Box::new(|root: &Path| {
            let dev = development_remotes(root);
            // The table already holds the commit (as the scratch repository's copy).
            let table = root.join("ws/src/engine/dev_commits.yaml");
            let text = fs::read_to_string(&table).unwrap().replace(
                "vllm: []\n",
                &format!(
                    "vllm:\n  - commit: {dev}\n    date: \"2026-08-12\"\n    after: \"0.34.0\"\n"
                ),
            );
            fs::write(&table, text).unwrap();
        })),
        ..Case::default()
    };
    let Some(run) = run_job(&case, "development-commits") else {
        return;
    };
    assert_eq!(run.code(), 0, "{}", run.all_output());
    assert_eq!(run.outputs["place"]["changed"], "false");
    assert_eq!(run.log("gh.log"), "", "no pull request");
    assert!(run.all_output().contains("not placed: vllm deadbeef1234"));
}

// ---------------------------------------------------------------------------
// The scripts' own promises
// ---------------------------------------------------------------------------

/// Runs `python3 scripts/NAME args` from the repository: (code, stdout, stderr).
fn script(py: &Path, name: &str, args: &[&str], envs: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = Command::new(py);
    cmd.arg(repo_root().join("scripts").join(name))
        .args(args)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("PIP_NO_INDEX", "1")
        .env("no_proxy", "*");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_answer_that_is_not_pypi_json_is_exit_2_with_the_url() {
    let Some(py) = python() else { return };
    let server = Server::start(|_, _| ok("<html>maintenance</html>"));
    let base = format!("{}/pypi", server.base());
    let (code, _, err) = script(
        py.as_path(),
        "new_releases.py",
        &[],
        &[("PYPI_JSON_URL", &base)],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("{base}/vllm/json: not JSON")),
        "{err}"
    );
    assert!(!err.contains("Traceback"), "{err}");
}

/// A wheel of PACKAGE VERSION at ROOT/wheels holding a module and a compiled one.
fn fixture_wheel(py: &Path, root: &Path, package: &str, version: &str, server_args: &str) {
    let wheels = root.join("wheels");
    fs::create_dir_all(&wheels).unwrap();
    let code = r#"
import sys, zipfile
path, pkg, ver, server_args = sys.argv[1:]
with zipfile.ZipFile(path, "w") as z:
    z.writestr(f"{pkg}/__init__.py", "")
    z.writestr(f"{pkg}/srt/__init__.py", "")
    z.writestr(f"{pkg}/srt/server_args.py", server_args)
    z.writestr(f"{pkg}/_kernels.abi3.so", b"\x7fELF")
    z.writestr(f"{pkg}-{ver}.dist-info/METADATA", f"Name: {pkg}\nVersion: {ver}\n")
"#;
    let wheel = wheels.join(format!("{package}-{version}-py3-none-any.whl"));
    let status = Command::new(py)
        .args(["-c", code])
        .arg(&wheel)
        .args([package, version, server_args])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn a_failed_dump_keeps_the_download_and_names_the_stub_it_read_last() {
    let Some(py) = python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("sglang");
    // An import-time fact the torch stub does not have (vLLM 0.34 asserted
    // torch.int32.itemsize, which the stub now has): the message names the
    // line and the stubbed names read last.
    fixture_wheel(
        &py,
        &root,
        "sglang",
        "9.9.0",
        "import torch\nassert torch.int32.itemsize == 4\nassert torch.finfo(torch.float32).bits == 32\n",
    );
    let out = tmp.path().join("out");
    let r = root.display().to_string();
    let o = out.display().to_string();
    let (code, _, err) = script(
        &py,
        "sglang_schema.py",
        &["9.9.0", "--root", &r, "--out", &o],
        &[],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("importing SGLang from"), "{err}");
    assert!(
        err.contains("sglang/srt/server_args.py:3: assert torch.finfo(torch.float32).bits == 32"),
        "{err}"
    );
    assert!(
        err.contains("stubbed names read last: torch.finfo, torch.finfo.bits"),
        "{err}"
    );
    assert!(
        err.contains(&format!("the unpacked wheel stays in {r}/9.9.0")),
        "{err}"
    );
    // Nothing was deleted: the wheel and its unpacked tree, without the .so.
    assert!(root.join("wheels/sglang-9.9.0-py3-none-any.whl").is_file());
    assert!(root.join("9.9.0/sglang/srt/server_args.py").is_file());
    assert!(!root.join("9.9.0/sglang/_kernels.abi3.so").exists());
    assert!(!out.join("9.9.0.json").exists());

    // A module neither installed nor stubbed is named as such.
    fixture_wheel(
        &py,
        &root,
        "sglang",
        "9.9.1",
        "import recipe_drift_no_such_module\n",
    );
    let (code, _, err) = script(
        &py,
        "sglang_schema.py",
        &["9.9.1", "--root", &r, "--out", &o],
        &[],
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("imports the module `recipe_drift_no_such_module`, which is neither installed nor stubbed"),
        "{err}"
    );
    assert!(
        err.contains("sglang/srt/server_args.py:1: import recipe_drift_no_such_module"),
        "{err}"
    );
}

#[test]
fn function_hashes_ignore_docstrings_and_a_rerun_replaces_the_release() {
    let Some(py) = python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("vllm");
    fixture_release(&root, "vllm", "1.0.0", "return x * 2");
    fixture_release(&root, "vllm", "1.1.0", "return x * 2");
    // 1.1.0: only comments and docstrings differ in `Args.decide`.
    let args = root.join("1.1.0/vllm/cfg/args.py");
    let text = fs::read_to_string(&args).unwrap().replace(
        "\"\"\"Stays.\"\"\"",
        "\"\"\"Reworded.\"\"\"\n        # a comment",
    );
    fs::write(&args, text).unwrap();
    let rules = tmp.path().join("rules.yaml");
    fs::write(&rules, RULES.replace("ENGINE", "vllm")).unwrap();
    let record = tmp.path().join("hashes.json");
    let (r, ru, re) = (
        root.display().to_string(),
        rules.display().to_string(),
        record.display().to_string(),
    );
    let hash = |version: &str| {
        script(
            &py,
            "upstream_hashes.py",
            &[
                "--engine", "vllm", "--root", &r, version, "--rules", &ru, "--record", &re,
            ],
            &[],
        )
    };
    let (code, out, err) = hash("1.0.0");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("No older release is recorded"), "{out}");
    assert!(
        err.contains("vllm 1.0.0: 2 of 2 cited definitions found"),
        "{err}"
    );
    let (code, out, _) = hash("1.1.0");
    assert_eq!(code, 0);
    assert!(
        out.contains("No function the rules cite changed since 1.0.0."),
        "{out}"
    );
    let first = fs::read_to_string(&record).unwrap();
    // A body change is listed with the rule that cites it; the rerun of
    // 1.1.0 replaces its entry (one entry per release).
    fs::write(&args, engine_module("return x - 2")).unwrap();
    let (code, out, _) = hash("1.1.0");
    assert_eq!(code, 0);
    assert!(
        out.contains("- [ ] `cfg/args.py pick` changed: rules `follows-pick`"),
        "{out}"
    );
    assert!(!out.contains("Args.decide"), "{out}");
    let second: Value = serde_json::from_str(&fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(second["releases"].as_object().unwrap().len(), 2);
    assert_ne!(first, fs::read_to_string(&record).unwrap());
}

#[test]
fn the_env_table_adds_one_release_and_a_rerun_updates_it() {
    let Some(py) = python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("vllm");
    let envs = |default: &str| {
        format!(
            "import os\nenvironment_variables = {{\n    \"VLLM_FIXTURE\": lambda: int(os.getenv(\"VLLM_FIXTURE\", \"{default}\")),\n}}\n"
        )
    };
    for (v, d) in [("1.0.0", "1"), ("1.1.0", "2")] {
        write(&root.join(v).join("vllm/envs.py"), &envs(d));
        write(
            &root.join(v).join(format!("vllm-{v}.dist-info/METADATA")),
            "",
        );
    }
    let r = root.display().to_string();
    let whole = tmp.path().join("whole.json");
    let added = tmp.path().join("added.json");
    let (w, a) = (whole.display().to_string(), added.display().to_string());
    let (code, _, err) = script(
        &py,
        "vllm_envs.py",
        &["--root", &r, "-o", &w, "1.0.0", "1.1.0"],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = script(&py, "vllm_envs.py", &["--root", &r, "-o", &a, "1.0.0"], &[]);
    assert_eq!(code, 0, "{err}");
    // Adding 1.1.0 to the table of 1.0.0 gives the table of both; adding it again changes nothing.
    for _ in 0..2 {
        let (code, _, err) = script(
            &py,
            "vllm_envs.py",
            &["--root", &r, "--add", &a, "1.1.0"],
            &[],
        );
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            fs::read_to_string(&added).unwrap(),
            fs::read_to_string(&whole).unwrap()
        );
    }
    let table: Value = serde_json::from_str(&fs::read_to_string(&whole).unwrap()).unwrap();
    assert_eq!(table["env"]["VLLM_FIXTURE"]["default"], 2);
    assert_eq!(table["env"]["VLLM_FIXTURE"]["changes"][0]["default"], 1);
}

/// `release_lines.py --place-commits` places a commit-only nightly from the
/// engine's history: in a scratch checkout whose tags are the bundled vLLM
/// releases, a commit made after the tag of one release follows that one
/// (the newest tag that is its ancestor), its day is its commit day, and the
/// InferenceX master configs' commit-only tags are found; a commit the
/// checkout lacks is exit 2 with the cause.
#[test]
fn a_nightly_commit_is_placed_from_the_engines_history() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("vllm");
    fs::create_dir_all(&repo).unwrap();
    let git = |args: &[&str]| -> String { git_in(&repo, args) };
    git(&["init", "-q"]);
    let mut versions: Vec<String> = fs::read_dir(repo_root().join("src/engine/vllm/schemas"))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix(".json").map(str::to_string)
        })
        .collect();
    versions.sort_by_key(|v| {
        v.split(|c: char| !c.is_ascii_digit())
            .filter_map(|p| p.parse::<u64>().ok())
            .collect::<Vec<_>>()
    });
    // One commit per release up to 0.25.0, then a development commit; the
    // later releases are tagged on a side branch that does not hold it.
    let mut dev = String::new();
    for v in &versions {
        git(&["commit", "-q", "--allow-empty", "-m", v]);
        git(&["tag", &format!("v{v}")]);
        if v == "0.25.0" {
            git(&["commit", "-q", "--allow-empty", "-m", "dev"]);
            dev = git(&["rev-parse", "HEAD"]);
            git(&["checkout", "-q", "-b", "later", "HEAD~1"]);
        }
    }
    assert!(!dev.is_empty(), "0.25.0 is bundled");
    let ix = dir.path().join("ix");
    write(
        &ix.join("configs/nvidia-master.yaml"),
        &format!(
            "a:\n  image: vllm/vllm-openai:nightly-{}\nb:\n  image: vllm/vllm-openai:nightly-20260815-0abe6a85\nc:\n  image: lmsysorg/sglang:v0.5.20\n",
            &dev[..12]
        ),
    );
    let table = dir.path().join("dev_commits.yaml");
    let checkout = format!("vllm={}", repo.display());
    let (code, out, err) = script(
        py.as_path(),
        "release_lines.py",
        &[
            "--place-commits",
            "--checkout",
            &checkout,
            "--commits-from",
            ix.to_str().unwrap(),
            "--dev-table",
            table.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(code, 0, "{out}{err}");
    let text = fs::read_to_string(&table).unwrap();
    assert!(
        text.contains(&format!(
            "vllm:\n  - commit: {dev}\n    date: \"2026-08-12\"\n    after: \"0.25.0\"\n"
        )),
        "{text}"
    );
    assert!(text.contains("sglang: []"), "{text}");
    // The dated tag is placed by its date, not listed.
    assert_eq!(text.matches("  - commit: ").count(), 1, "{text}");
    // Run again: the same bytes.
    let (code, _, err) = script(
        py.as_path(),
        "release_lines.py",
        &[
            "--place-commits",
            "--commits-from",
            ix.to_str().unwrap(),
            "--dev-table",
            table.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(fs::read_to_string(&table).unwrap(), text);
    // A commit the checkout does not hold.
    let (code, _, err) = script(
        py.as_path(),
        "release_lines.py",
        &[
            "--place-commits",
            "--checkout",
            &checkout,
            "--commit",
            "vllm=1234567abcdef",
            "--dev-table",
            table.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("vllm: no commit 1234567abcdef in"), "{err}");
    assert!(!err.contains("Traceback"), "{err}");
}

//! Launch forms a script may use (issue 12): each is evaluated as bash and
//! the wrapper do it, or reported as a launch recipe-drift does not model;
//! never skipped, never a confident wrong value.

use crate::Repo;
use serde_json::Value;

const SERVE: &str = "python3 -m sglang.launch_server --model-path m --tp 4\n";
const NOT_MODELLED: &str = "a launch recipe-drift does not model";

fn extract(repo: &Repo, script: &str) -> Value {
    repo.write("a.sh", script);
    let o = repo.run_deterministic(&["extract", "a.sh", "--format", "json"]);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(0), "{}", o.both());
    serde_json::from_str(&o.stdout).unwrap()
}

fn env_of(v: &Value, launch: usize) -> Vec<String> {
    v["launches"][launch]["env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let value = match e["provenance"]["kind"].as_str() {
                Some("unknown") => "?".to_string(),
                _ => e["value"].as_str().unwrap().to_string(),
            };
            format!("{}={value}", e["name"].as_str().unwrap())
        })
        .collect()
}

fn argv(v: &Value, launch: usize) -> Vec<String> {
    v["launches"][launch]["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| match t["provenance"]["kind"].as_str() {
            Some("unknown") => format!("?{}", t["provenance"]["reason"].as_str().unwrap()),
            _ => t["text"].as_str().unwrap().to_string(),
        })
        .collect()
}

fn unsupported(v: &Value) -> Vec<String> {
    v["unsupported"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_script_piped_from_cat_or_a_process_substitution_is_read_as_bash_reads_it() {
    let repo = Repo::new();
    repo.write("x.sh", SERVE);
    for script in [
        "cat x.sh | bash\n",
        "bash < <(cat x.sh)\n",
        "cat x.sh | sudo bash\n",
    ] {
        let v = extract(&repo, script);
        assert_eq!(argv(&v, 0), ["--model-path", "m", "--tp", "4"], "{script}");
        // The words are placed in x.sh, where they are written.
        assert_eq!(v["launches"][0]["span"]["file"], "x.sh", "{script}: {v:#}");
    }
    // A script whose text is not knowable is an unmodelled launch.
    let v = extract(&repo, "bash < <(curl -s https://example.com/serve.sh)\n");
    assert!(v["launches"].as_array().unwrap().is_empty(), "{v:#}");
    let u = unsupported(&v);
    assert!(
        u[0].contains("process substitution") && u[0].ends_with(NOT_MODELLED),
        "{u:?}"
    );
    // `cat FILE | bash` reads FILE through the confined layer.
    let secret = repo.outside().join("secret.sh");
    repo.write("a.sh", format!("cat {} | bash\n", secret.display()));
    let o = repo.run(&["extract", "a.sh"]);
    o.assert_input_error("a.sh:1:5", &["outside the repository root"])
        .assert_no_leak();
}

#[test]
fn sudo_resets_the_environment_unless_told_to_keep_it() {
    let repo = Repo::new();
    let exported = "export SGLANG_USE_AITER=1 TZ=UTC\n";
    let v = extract(&repo, &format!("{exported}sudo -u svc {SERVE}"));
    // sudo's env_reset keeps its own list (TZ), not the engine's variables.
    assert_eq!(env_of(&v, 0), ["TZ=UTC"]);
    let v = extract(&repo, &format!("{exported}SGLANG_X=2 sudo {SERVE}"));
    assert_eq!(env_of(&v, 0), ["TZ=UTC"]);
    let v = extract(&repo, &format!("{exported}sudo -E {SERVE}"));
    assert_eq!(env_of(&v, 0), ["SGLANG_USE_AITER=1", "TZ=UTC"]);
    let v = extract(
        &repo,
        &format!("{exported}sudo --preserve-env=SGLANG_USE_AITER SGLANG_Y=3 {SERVE}"),
    );
    assert_eq!(
        env_of(&v, 0),
        ["SGLANG_USE_AITER=1", "TZ=UTC", "SGLANG_Y=3"]
    );
    // A docs command line is read the same way.
    repo.write(
        "cmd.txt",
        format!("SGLANG_USE_AITER=1 sudo SGLANG_Y=3 {SERVE}"),
    );
    let o = repo.run_deterministic(&["extract", "cmd.txt", "--format", "json"]);
    assert_eq!(o.code, Some(0), "{}", o.both());
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(env_of(&v, 0), ["SGLANG_Y=3"]);
}

#[test]
fn uv_run_reads_its_env_file_inside_the_root() {
    let repo = Repo::new();
    repo.write(
        "serve.env",
        "# kernels\nexport SGLANG_USE_AITER=1\nSGLANG_A='x y' # note\nSGLANG_B=${HOME}/x\n",
    );
    let v = extract(
        &repo,
        &format!("SGLANG_A=0 uv run --env-file serve.env {SERVE}"),
    );
    // The command's own variable wins over the file; a substitution in the
    // file is unknown, never a guess.
    assert_eq!(
        env_of(&v, 0),
        ["SGLANG_A=0", "SGLANG_USE_AITER=1", "SGLANG_B=?"]
    );
    let v = extract(
        &repo,
        &format!("export UV_ENV_FILE=serve.env\nuv run {SERVE}"),
    );
    assert!(env_of(&v, 0).contains(&"SGLANG_A=x y".to_string()), "{v:#}");
    let v = extract(
        &repo,
        &format!("uv run --no-env-file --env-file serve.env {SERVE}"),
    );
    assert!(env_of(&v, 0).is_empty(), "{v:#}");

    // Outside the root: refused at the option's value, nothing read.
    let secret = repo.outside().join("secret.txt");
    repo.write(
        "a.sh",
        format!("uv run --env-file {} {SERVE}", secret.display()),
    );
    repo.run(&["extract", "a.sh"])
        .assert_input_error("a.sh:1:19", &["outside the repository root"])
        .assert_no_leak();
    // A line uv refuses is an error at that line of the file.
    repo.write("bad.env", "SGLANG_A=1\nnot an assignment\n");
    repo.write("a.sh", format!("uv run --env-file bad.env {SERVE}"));
    repo.run(&["extract", "a.sh"])
        .assert_input_error("bad.env:2:1", &["dotenv"]);
}

#[test]
fn python_c_naming_an_engine_is_an_unmodelled_launch() {
    let repo = Repo::new();
    let v = extract(
        &repo,
        "python3 -c 'import runpy; runpy.run_module(\"sglang.launch_server\", run_name=\"__main__\")' --tp 4\npython3 -c 'import sglang; print(sglang.__version__)'\npython3 -u -c \"$CODE\"\n",
    );
    assert!(v["launches"].as_array().unwrap().is_empty(), "{v:#}");
    let u = unsupported(&v);
    assert_eq!(u.len(), 2, "{u:?}");
    assert!(
        u[0].starts_with(
            "a.sh:1:1: `python3 -c` runs Python code that is not evaluated and may start sglang"
        ) && u[0].ends_with(NOT_MODELLED),
        "{u:?}"
    );
    assert!(
        u[1].starts_with("a.sh:3:1:") && u[1].contains("not knowable"),
        "{u:?}"
    );

    // Beside one serve command it makes the side ambiguous: compare refuses
    // to guess which one runs.
    repo.write(
        "a.sh",
        format!("python3 -c 'import sglang.launch_server'\n{SERVE}"),
    );
    repo.write("b.sh", SERVE);
    let o = repo.run(&["compare", "b.sh", "a.sh"]);
    o.assert_input_error("a.sh:2:1", &["--recipe-launch 1", NOT_MODELLED]);
}

#[test]
fn exit_status_is_known_only_when_decidable() {
    let repo = Repo::new();
    let v = extract(
        &repo,
        "true\nA=$?\nnvidia-smi\nB=$?\nsleep 1 &\nC=$?\nfalse\nD=$?\npython3 -m sglang.launch_server --model-path m --tp $A --dp $B --ep $C --pp $D\n",
    );
    let a = argv(&v, 0);
    assert_eq!(a[3], "0", "{a:?}");
    assert!(
        a[5].starts_with("?") && a[5].contains("`nvidia-smi`"),
        "{a:?}"
    );
    assert_eq!(a[7], "0", "{a:?}");
    assert!(
        a[9].starts_with("?") && a[9].contains("failed command"),
        "{a:?}"
    );
}

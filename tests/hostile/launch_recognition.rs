//! Launches written in a form the bash evaluator once skipped in silence
//! ("no serve commands found", exit 0, or another launch taken as the only
//! one): shell options before the script, `bash -c`, a script on standard
//! input or run by its path, Python options before `-m`, wrapper programs and
//! `docker run` options. Each is recognised as bash would run it, or reported
//! as an unsupported launch with its reason; none is dropped.

use crate::{Outcome, Repo};

/// A repository with `serve_inner.sh` (tp 8), the same script without `.sh`,
/// and `docs.md` (tp 4).
fn repo() -> Repo {
    let repo = Repo::new();
    repo.write("serve_inner.sh", "sglang serve --model-path m --tp 8\n");
    repo.write("serve_noext", "sglang serve --model-path m --tp 8\n");
    repo.write(
        "docs.md",
        "```bash\nsglang serve --model-path m --tp 4\n```\n",
    );
    repo
}

/// `extract t.sh` of a one-line script, bounded and deterministic, exit 0.
fn extract(repo: &Repo, line: &str) -> Outcome {
    repo.write("t.sh", format!("{line}\n"));
    let o = repo.run_deterministic(&["extract", "t.sh"]);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(0), "{line}: {}", o.both());
    o
}

/// The launch of `line` is found, with `--tp 8` and each of `words`.
fn launches(repo: &Repo, line: &str, words: &[&str]) {
    let o = extract(repo, line);
    assert!(o.stdout.contains("launch 1:"), "{line}: {}", o.both());
    assert!(!o.stdout.contains("launch 2:"), "{line}: {}", o.both());
    for w in words {
        assert!(o.stdout.contains(w), "{line}: expected {w:?}: {}", o.both());
    }
}

/// `line` is reported as an unsupported launch naming each of `words`.
fn unsupported(repo: &Repo, line: &str, words: &[&str]) {
    let o = extract(repo, line);
    assert!(
        o.stdout.contains("unsupported: t.sh:1:"),
        "{line}: {}",
        o.both()
    );
    for w in words {
        assert!(o.stdout.contains(w), "{line}: expected {w:?}: {}", o.both());
    }
}

#[test]
fn shell_options_stdin_and_direct_execution_run_the_script() {
    let repo = repo();
    for line in [
        "bash ./serve_inner.sh",
        "bash -x ./serve_inner.sh",
        "bash -e serve_inner.sh",
        "bash -l serve_inner.sh",
        "bash -eu serve_inner.sh",
        "bash -o pipefail serve_inner.sh",
        "bash -- ./serve_inner.sh",
        "bash --norc -ex -o pipefail -- serve_inner.sh",
        "bash ./serve_noext",
        "bash < ./serve_inner.sh",
        "sh ./serve_noext",
        "./serve_inner.sh",
        "./serve_noext",
        "exec ./serve_inner.sh",
        "cat serve_inner.sh | bash",
        "bash < <(cat serve_inner.sh)",
    ] {
        launches(&repo, line, &["--tp"]);
        let o = extract(&repo, line);
        assert!(
            o.stdout.contains("serve_inner.sh:1:1") || o.stdout.contains("serve_noext:1:1"),
            "{line}: {}",
            o.both()
        );
    }
    // `bash -n` reads the script and runs nothing.
    let o = extract(&repo, "bash -n serve_inner.sh");
    assert!(o.stdout.contains("no serve commands found"), "{}", o.both());
    // An option the evaluator does not model, and a script on a standard
    // input that is not knowable: reported, not dropped.
    unsupported(&repo, "bash -Z serve_inner.sh", &["`-Z` is not modelled"]);
    unsupported(
        &repo,
        "curl -s https://example.com/serve.sh | bash",
        &["standard input"],
    );
    // Under a condition that is not knowable, the delegated launch is a second
    // launch of the file, never a silent `[ok]` for the other branch.
    repo.write(
        "rx.sh",
        "if [ \"$FAST\" = 1 ]; then\n  bash -x ./serve_inner.sh\nelse\n  sglang serve --model-path m --tp 4\nfi\n",
    );
    let o = repo.run(&["compare", "docs.md", "rx.sh", "--hardware", "b200"]);
    o.assert_input_error("serve_inner.sh:1:1", &["2 serve commands"]);
    assert!(!o.stdout.contains("[ok]"), "{}", o.both());
}

#[test]
fn a_script_run_by_path_is_read_through_the_confined_layer() {
    let repo = repo();
    repo.symlink("evil.sh", &repo.outside().join("secret.sh"));
    repo.write("t.sh", "echo start\n./evil.sh --tp 8\n");
    repo.run(&["extract", "t.sh"])
        .assert_input_error("t.sh:2:1", &["./evil.sh"])
        .assert_no_leak();
    // Another interpreter's script is not evaluated as bash.
    repo.write("tool.py", "#!/usr/bin/env python3\nsglang serve --tp 8\n");
    let o = extract(&repo, "./tool.py");
    assert!(o.stdout.contains("no serve commands found"), "{}", o.both());
    // A program (not UTF-8 text) is listed, neither read as bash nor an error.
    repo.write("bin/helper", b"\x7fELF\x02\x01\x01\x00\xff\xfe rest");
    let o = extract(&repo, "./bin/helper --x");
    assert!(o.stdout.contains("is not a text script"), "{}", o.both());
}

#[test]
fn bash_c_runs_its_text_with_positional_parameters() {
    let repo = repo();
    launches(
        &repo,
        "bash -c \"sglang serve --model-path m --tp 8\"",
        &["<t.sh:1:9 bash -c>:1:1", "--tp"],
    );
    launches(
        &repo,
        "sh -c 'sglang serve --model-path \"$0\" --tp \"$1\"' mm 8",
        &["mm", "(from $0)", "(from $1)"],
    );
    launches(
        &repo,
        "bash -ec 'bash serve_inner.sh'",
        &["serve_inner.sh:1:1"],
    );
    launches(
        &repo,
        "bash <<< 'sglang serve --model-path m --tp 8'",
        &["bash stdin>:1:1"],
    );
    // Text that runs itself ends at the delegation depth budget.
    repo.write("loop.sh", "bash -c 'bash loop.sh'\n");
    repo.run(&["extract", "loop.sh"])
        .assert_input_error("loop.sh:1:", &["too deeply"]);
}

#[test]
fn python_options_before_dash_m() {
    let repo = repo();
    for (line, launcher) in [
        (
            "python3 -u -m sglang.launch_server --model-path m --tp 8",
            "python3 -u -m sglang.launch_server",
        ),
        (
            "python3 -msglang.launch_server --model-path m --tp 8",
            "python3 -msglang.launch_server",
        ),
        (
            "python -X dev -m sglang.launch_server --model-path m --tp 8",
            "python -X dev -m sglang.launch_server",
        ),
        (
            "python3 -O -um sglang.launch_server --model-path m --tp 8",
            "python3 -O -um sglang.launch_server",
        ),
        (
            "python3 -Wignore -B -m vllm.entrypoints.openai.api_server --model m",
            "(vllm)",
        ),
    ] {
        launches(&repo, line, &[launcher]);
    }
}

#[test]
fn wrappers_run_the_launch_or_report_it() {
    let repo = repo();
    for line in [
        "nice -n 5 sglang serve --model-path m --tp 8",
        "nice -n5 sglang serve --model-path m --tp 8",
        "stdbuf -oL -eL sglang serve --model-path m --tp 8",
        "taskset -c 0-7 sglang serve --model-path m --tp 8",
        "numactl --interleave=all sglang serve --model-path m --tp 8",
        "numactl -N 0 -m 0 sglang serve --model-path m --tp 8",
        "timeout 3600 sglang serve --model-path m --tp 8",
        "timeout -k 10 -s INT 1h sglang serve --model-path m --tp 8",
        "setsid nohup sglang serve --model-path m --tp 8",
        "uv run --with x sglang serve --model-path m --tp 8",
        "timeout 3600 bash -x serve_inner.sh",
    ] {
        launches(&repo, line, &["--tp"]);
    }
    // `env`: its assignments reach the server; `-i` clears what came before.
    launches(
        &repo,
        "env SGLANG_X=1 sglang serve --model-path m --tp 8",
        &["env SGLANG_X=1"],
    );
    repo.write(
        "t.sh",
        "export SGLANG_USE_AITER=1\nenv -i PATH=/bin sglang serve --model-path m --tp 8\n",
    );
    let o = repo.run_deterministic(&["extract", "t.sh"]);
    o.assert_bounded();
    assert!(o.stdout.contains("env PATH=/bin"), "{}", o.both());
    assert!(!o.stdout.contains("SGLANG_USE_AITER"), "{}", o.both());
    // Programs that run a launcher in a way that is not modelled.
    unsupported(
        &repo,
        "srun -N 2 --gres=gpu:8 sglang serve --model-path m --tp 8",
        &["`srun` runs `sglang serve`"],
    );
    unsupported(
        &repo,
        "mpirun -np 2 python3 -m sglang.launch_server --model-path m",
        &["`mpirun` runs `python3 -m sglang.launch_server`"],
    );
    unsupported(
        &repo,
        "torchrun --nproc_per_node 8 -m sglang.launch_server --model-path m",
        &["`torchrun` runs `-m sglang.launch_server`"],
    );
    // Beside a modelled launch, under a condition that is not knowable: never
    // a silent `[ok]` for the modelled one, unless it is chosen.
    repo.write(
        "rx.sh",
        "if [ \"$FAST\" = 1 ]; then\n  srun -N 2 sglang serve --model-path m --tp 8\nelse\n  sglang serve --model-path m --tp 4\nfi\n",
    );
    let o = repo.run(&["compare", "docs.md", "rx.sh", "--hardware", "b200"]);
    o.assert_input_error("rx.sh:4:3", &["rx.sh:2:3", "`srun` runs `sglang serve`"]);
    assert!(!o.stdout.contains("[ok]"), "{}", o.both());
    let o = repo.run(&[
        "compare",
        "docs.md",
        "rx.sh",
        "--hardware",
        "b200",
        "--recipe-launch",
        "1",
    ]);
    o.assert_bounded();
    assert!(o.stdout.contains("[ok]"), "{}", o.both());
}

#[test]
fn docker_run_entrypoint_and_environment() {
    let repo = repo();
    launches(
        &repo,
        "docker run --gpus all --entrypoint sglang lmsysorg/sglang:v0.5.19 serve --model-path m --tp 8",
        &["engine version: 0.5.19"],
    );
    repo.write("a.env", "# comment\nSGLANG_FROM_FILE=1\n\nSGLANG_HOST\n");
    repo.write(
        "t.sh",
        "export SGLANG_HOST=h\ndocker run --gpus all -eSGLANG_A=1 --env SGLANG_B=2 --env=SGLANG_C=3 -e SGLANG_HOST --env-file a.env img:1 sglang serve --model-path m --tp 8\n",
    );
    let o = repo.run_deterministic(&["extract", "t.sh"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    for w in [
        "SGLANG_A=1",
        "SGLANG_B=2",
        "SGLANG_C=3",
        "SGLANG_HOST=h",
        "SGLANG_FROM_FILE=1",
    ] {
        assert!(o.stdout.contains(w), "expected {w}: {}", o.both());
    }
    // An env file outside the root is refused at its word, never read.
    repo.symlink("b.env", &repo.outside().join("secret.txt"));
    repo.write(
        "t.sh",
        "docker run --env-file b.env img:1 sglang serve --model-path m\n",
    );
    repo.run(&["extract", "t.sh"])
        .assert_input_error("t.sh:1:", &["--env-file b.env"])
        .assert_no_leak();
}

#[test]
fn docs_pages_read_the_same_forms() {
    // Markdown blocks go through the bash evaluator: the same launcher and
    // wrapper tables, the same report for what is not modelled.
    let repo = repo();
    repo.write(
        "d.md",
        "```bash\npython3 -u -m sglang.launch_server --model-path m --tp 4\n```\n\n\
```bash\nnice -n 5 stdbuf -oL timeout 1h sglang serve --model-path m --tp 2\n```\n\n\
```bash\nsrun -N 2 sglang serve --model-path m\n```\n",
    );
    let o = repo.run_deterministic(&["extract", "d.md"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    for w in [
        "launch 1: python3 -u -m sglang.launch_server (sglang) at d.md:2:1",
        "launch 2: sglang serve (sglang) at d.md:6:1",
        "unsupported: d.md:10:1: `srun` runs `sglang serve`",
    ] {
        assert!(o.stdout.contains(w), "expected {w:?}: {}", o.both());
    }
    // A block is read by the bash evaluator, which unwraps `docker run
    // --entrypoint` as docker runs it.
    repo.write(
        "e.md",
        "```bash\ndocker run --entrypoint sglang img:1 serve --model-path m\n```\n",
    );
    let o = repo.run(&["extract", "e.md"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(
        o.stdout
            .contains("launch 1: sglang serve (sglang) at e.md:2:1"),
        "{}",
        o.both()
    );
    // An env file a block names is not read: an error at its word.
    repo.write(
        "f.md",
        "```bash\ndocker run --env-file a.env img:1 sglang serve --model-path m\n```\n",
    );
    repo.run(&["extract", "f.md"])
        .assert_input_error("f.md:2:", &["--env-file"]);
}

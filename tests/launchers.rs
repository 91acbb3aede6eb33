//! One launcher table for every extractor: a launch of an engine recipe-drift
//! does not resolve is reported the same way from a command file, a Markdown
//! page and a bash script, and never dropped.

mod common;

use common::run;

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn unsupported_launchers_are_reported_by_every_extractor() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        write(&dir, "cmd.txt", "trtllm-serve org/model --tp_size 8\n"),
        write(
            &dir,
            "page.md",
            "# Serve\n\n```bash\ntrtllm-serve org/model --tp_size 8\n```\n",
        ),
        write(
            &dir,
            "run.sh",
            "#!/bin/bash\ntrtllm-serve org/model --tp_size 8\n",
        ),
        // An unlabelled block is read when a line starts with any launcher.
        write(
            &dir,
            "plain.md",
            "# Serve\n\n```\nSGLANG_X=1 trtllm-serve org/model\n```\n",
        ),
    ];
    for f in &files {
        let (code, out, err) = run(&["extract", f]);
        assert_eq!(code, 0, "{f}: {err}");
        assert!(
            out.contains(
                "`trtllm-serve` starts TensorRT-LLM, an engine recipe-drift does not resolve"
            ),
            "{f}: {out}"
        );
    }
}

#[test]
fn python_module_launchers_of_unsupported_engines_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        &dir,
        "cmd.txt",
        "python3 -m sglang_router.launch_server --model-path org/m --dp 2\nvllm serve org/m\npython -m tensorrt_llm.commands.serve org/m\npython3.12 -m atom.entrypoints.openai_server --model org/m\natom --model org/m\n",
    );
    let (code, out, err) = run(&["extract", &f]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "cmd.txt:1:1: `python3 -m sglang_router.launch_server` starts the SGLang router"
        ),
        "{out}"
    );
    assert!(
        out.contains("cmd.txt:3:1: `python -m tensorrt_llm.commands.serve` starts TensorRT-LLM"),
        "{out}"
    );
    assert!(
        out.contains("cmd.txt:4:1: `python3.12 -m atom.entrypoints.openai_server` starts ATOM"),
        "{out}"
    );
    assert!(out.contains("cmd.txt:5:1: `atom` starts ATOM"), "{out}");
    assert!(out.contains("launch 1: vllm serve (vllm)"), "{out}");
}

#[test]
fn prose_that_names_an_unsupported_engine_is_not_shell() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        &dir,
        "page.md",
        "# Notes\n\n```\nan atom of text, not a command (\n```\n\n```bash\nvllm serve org/m\n```\n",
    );
    let (code, out, err) = run(&["extract", &f]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("launch 1: vllm serve (vllm)"), "{out}");
    assert!(!out.contains("unsupported"), "{out}");
}

#[test]
fn a_side_whose_only_launch_is_unsupported_cannot_be_compared() {
    let dir = tempfile::tempdir().unwrap();
    let docs = write(&dir, "docs.md", "```bash\ntrtllm-serve org/model\n```\n");
    let recipe = write(&dir, "recipe.txt", "vllm serve org/model\n");
    let (code, _, err) = run(&["compare", &docs, &recipe]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the docs side cannot be compared:")
            && err.contains("docs.md:2:1")
            && err.contains("starts TensorRT-LLM"),
        "{err}"
    );
}

/// Dynamo's worker modules are launchers of the engine they wrap wherever
/// they are written, and the options they read themselves (`--dyn-*`, and
/// `dynamo.vllm`'s `--disaggregation-mode`) never reach the engine's parser:
/// the same command through the wrapper and through the engine's own
/// launcher compares equal, and a drift in an engine option is still found.
#[test]
fn dynamo_worker_modules_start_their_engines_and_keep_their_own_options() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "python3 -m dynamo.sglang --model-path org/model --tp 8 --dyn-reasoning-parser deepseek_r1 --kv-cache-dtype fp8_e4m3\n",
            "python3 -m sglang.launch_server --model-path org/model --tp 8 --kv-cache-dtype fp8_e4m3\n",
            "python3 -m sglang.launch_server --model-path org/model --tp 8 --kv-cache-dtype bf16\n",
        ),
        (
            "python3 -m dynamo.vllm --model org/model --disaggregation-mode decode --dyn-tool-call-parser=kimi_k2 --tensor-parallel-size 8\n",
            "vllm serve org/model --tensor-parallel-size 8\n",
            "vllm serve org/model --tensor-parallel-size 4\n",
        ),
    ];
    for (i, (wrapped, same, other)) in cases.iter().enumerate() {
        let w = write(&dir, &format!("w{i}.txt"), wrapped);
        let s = write(&dir, &format!("s{i}.txt"), same);
        let o = write(&dir, &format!("o{i}.txt"), other);
        let (code, out, err) = run(&["compare", &w, &s, "--offline", "--no-checkpoint-facts"]);
        assert_eq!(code, 0, "{wrapped}: {out}{err}");
        let (code, out, err) = run(&["compare", &w, &o, "--offline", "--no-checkpoint-facts"]);
        assert_eq!(code, 1, "{wrapped}: {out}{err}");
        assert!(!out.contains("RD006"), "{out}");
    }
}

//! Red-team pass 3 findings fixed in the file layer, the fetcher and
//! `--changed-from` (the bash ones have their own modules).

use crate::Repo;

/// #15: `--max-file-bytes u64::MAX` is "no cap", not a cap of 0 (`max + 1`
/// wrapped) that read every file as empty.
#[test]
fn the_largest_max_file_bytes_reads_files_whole() {
    let repo = Repo::new();
    repo.write("small.sh", "sglang serve --model-path m --tp 8\n");
    let o = repo.run(&[
        "extract",
        "--max-file-bytes",
        "18446744073709551615",
        "small.sh",
    ]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("launch 1:"), "{}", o.both());
}

/// #9: `check FILES` / `--changed-from` run a link whose `--env-file` or
/// local checkpoint folder changed (they were skipped as unchanged).
#[test]
fn a_changed_env_file_or_local_checkpoint_runs_its_link() {
    let repo = Repo::new();
    repo.write(
        "cfg.yaml",
        "links:\n  - name: envfile\n    docs: {file: docs.sh}\n    recipe: {file: env.sh}\n  - name: localckpt\n    docs: {file: docs.sh}\n    recipe: {file: ckpt.sh}\n",
    );
    repo.write("docs.sh", "sglang serve --model-path m --tp 4\n");
    repo.write(
        "env.sh",
        "docker run --env-file e.list img:v0.5.19 python3 -m sglang.launch_server --model-path m --tp 4\n",
    );
    repo.write("e.list", "SGLANG_USE_AITER=1\n");
    repo.write("ckpt.sh", "sglang serve --model-path ./models/x --tp 4\n");
    repo.write("models/x/config.json", "{\"torch_dtype\": \"bfloat16\"}\n");
    let ran = |changed: &str| {
        let o = repo.run(&["check", "--config", "cfg.yaml", changed]);
        o.assert_bounded();
        o.stdout
            .lines()
            .filter(|l| l.starts_with("skipped: "))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ran("e.list"),
        ["skipped: localckpt (none of its files changed)"]
    );
    assert_eq!(
        ran("models/x/config.json"),
        ["skipped: envfile (none of its files changed)"]
    );
    assert_eq!(ran("models/x/hf_quant_config.json").len(), 1);
    assert_eq!(ran("unrelated.txt").len(), 2);
}

/// #8: a relative local model folder is found from the launch's working
/// folder (the script's folder, after its `cd`s), never from where
/// recipe-drift runs: the facts of another checkpoint are not used as known.
#[test]
fn a_local_model_folder_is_seen_from_the_launchs_working_folder() {
    let repo = Repo::new();
    let llama = |dtype: &str| {
        format!(
            "{{\"architectures\":[\"LlamaForCausalLM\"],\"model_type\":\"llama\",\"torch_dtype\":\"{dtype}\"}}\n"
        )
    };
    repo.write("m/config.json", llama("bfloat16"));
    repo.write("sub/m/config.json", llama("float16"));
    repo.write("recipes/m/config.json", llama("float16"));
    repo.write(
        "docs.sh",
        "sglang serve --model-path ./m --tp 4 --dtype bfloat16\n",
    );
    repo.write(
        "recipe.sh",
        "cd sub\nsglang serve --model-path ./m --tp 4\n",
    );
    repo.write("recipes/run.sh", "sglang serve --model-path ./m --tp 4\n");
    repo.write(
        "lost.sh",
        "cd \"$WHERE\"\nsglang serve --model-path ./m --tp 4\n",
    );
    let run = |recipe: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_recipe-drift"))
            .current_dir(repo.root())
            .env_remove("RECIPE_DRIFT_NO_CHECKPOINT_FACTS")
            .args([
                "compare",
                "--no-config",
                "--offline",
                "docs.sh",
                recipe,
                "--engine-version",
                "0.5.23",
                "--platform",
                "cuda",
            ])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    for recipe in ["recipe.sh", "recipes/run.sh"] {
        let (code, out) = run(recipe);
        assert_eq!(code, Some(1), "{recipe}: {out}");
        assert!(
            out.contains("dtype differs: docs bfloat16 vs recipe float16"),
            "{recipe}: {out}"
        );
    }
    // A working folder that is not knowable: the facts are not either.
    let (_, out) = run("lost.sh");
    assert!(!out.contains("dtype differs"), "{out}");
    assert!(
        out.contains("launch's working folder, which is not knowable"),
        "{out}"
    );
}

//! The second red-team pass: inputs that each stayed within every budget of
//! its own kind but not within the run's (the composed commands of all
//! selections of a recipe, the launches of one page), dependencies a
//! `check --changed-from` missed, and generator output read wrongly or not at
//! all. Each case asserts the exit code, the error's position and the budget
//! it names, within the time and memory budgets.

use std::path::Path;

use crate::Repo;

/// The vLLM recipes taxonomy and strategies of our fixtures, beside `models/`.
fn vllm_site(repo: &Repo) {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vllm-recipes");
    repo.write(
        "taxonomy.yaml",
        std::fs::read(fixtures.join("taxonomy.yaml")).unwrap(),
    );
    for e in std::fs::read_dir(fixtures.join("strategies")).unwrap() {
        let e = e.unwrap();
        repo.write(
            &format!("strategies/{}", e.file_name().to_string_lossy()),
            std::fs::read(e.path()).unwrap(),
        );
    }
}

/// A recipe of `features` opt-in features of `args` distinct arguments each,
/// two variants, verified on one hardware.
fn feature_bomb(features: usize, args: usize) -> String {
    let mut feats = String::new();
    for i in 0..features {
        let list: Vec<String> = (0..args).map(|j| format!("\"--zz{i}x{j}\"")).collect();
        feats.push_str(&format!(
            "  f{i}:\n    description: \"f{i}\"\n    args: [{}]\n",
            list.join(",")
        ));
    }
    let opt_in: Vec<String> = (0..features).map(|i| format!("f{i}")).collect();
    format!(
        "meta:\n  title: \"Bomb\"\n  provider: \"P\"\n  tasks: [text]\n  hardware:\n    h100: verified\n\
model:\n  model_id: \"p/Bomb\"\n  min_vllm_version: \"0.10.2\"\n  architecture: dense\n  base_args: [\"--max-model-len\", \"32768\"]\n  base_env: {{}}\n\
features:\n{feats}opt_in_features: [{}]\n\
variants:\n  default:\n    precision: bf16\n    vram_minimum_gb: 18\n  fp8:\n    model_id: \"p/Bomb-FP8\"\n    precision: fp8\n    vram_minimum_gb: 10\n\
compatible_strategies:\n  - single_node_tp\n",
        opt_in.join(",")
    )
}

#[test]
fn all_selections_of_a_recipe_are_bounded_by_what_they_compose() {
    // 8,192 selections (within the selection budget) of ~1,200 arguments each:
    // 3 GB and 155 MB of output before the composed-size budget.
    let repo = Repo::new();
    vllm_site(&repo);
    repo.write("models/p/Bomb.yaml", feature_bomb(12, 200));
    for format in ["human", "json"] {
        let o = repo.run_deterministic(&[
            "extract",
            "models/p/Bomb.yaml",
            "--all-selections",
            "--format",
            format,
        ]);
        o.assert_input_error(
            "models/p/Bomb.yaml:13:1:",
            &["more than 200000 words", "--all-selections output budget"],
        );
        assert!(o.stdout.is_empty(), "{}", o.both());
    }
    // A small one is listed whole.
    repo.write("models/p/Small.yaml", feature_bomb(3, 4));
    let o = repo.run_deterministic(&["extract", "models/p/Small.yaml", "--all-selections"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("16 selections"), "{}", o.both());
}

#[test]
fn every_kind_of_file_has_one_launch_budget() {
    // 280,000 one-line fences (7.8 MB, under the file-size cap): 30 s,
    // 3.5 GB and 428 MB of JSON before the per-file launch budget.
    let repo = Repo::new();
    let block = "```\nsglang serve --tp 2\n```\n";
    repo.write("many.md", block.repeat(280_000));
    repo.write("many.txt", "sglang serve --tp 2\n".repeat(100_000));
    repo.write("many.sh", "sglang serve --tp 2\n".repeat(2_000));
    // Launch 1,001 is where each stops.
    for (file, at) in [
        ("many.md", "many.md:3002:1:"),
        ("many.txt", "many.txt:1001:1:"),
        ("many.sh", "many.sh:1001:1:"),
    ] {
        for format in ["human", "json"] {
            let o = repo.run_deterministic(&["extract", file, "--format", format]);
            o.assert_input_error(at, &["more than 1000 launches", "per-file launch budget"]);
            assert!(o.stdout.is_empty(), "{}", o.both());
        }
    }
    // One launch of 500,000 words: over the words of the same budget, so
    // the JSON of `extract` (~300 bytes per word) stays bounded.
    repo.write(
        "long.txt",
        format!("sglang serve --model-path m{}\n", " --a".repeat(500_000)),
    );
    let o = repo.run_deterministic(&["extract", "long.txt", "--format", "json"]);
    o.assert_input_error(
        "long.txt:1:1:",
        &["more than 50000 words in all", "per-file launch budget"],
    );
    // At the budget, the launches are printed.
    repo.write("ok.md", block.repeat(1_000));
    let o = repo.run_deterministic(&["extract", "ok.md", "--format", "json"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert_eq!(o.stdout.matches("\"engine\": \"sglang\"").count(), 1_000);
}

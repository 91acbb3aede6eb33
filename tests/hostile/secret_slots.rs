//! Issue 12 item 4: a value in a secret slot (a secret-named variable, the
//! value of a secret option) is masked whatever its length; text-matched
//! masking only covers pieces of 8 characters or more.

use crate::Repo;

#[test]
fn short_values_in_secret_slots_are_masked_in_every_extract_format() {
    let repo = Repo::new();
    repo.write(
        "s.sh",
        "export SHORT_TOKEN=abc123\nsglang serve --model-path m --api-key k3y9 --hf-token=tok1\n",
    );
    for format in ["human", "json"] {
        let o = repo.run_deterministic(&["extract", "s.sh", "--format", format]);
        o.assert_bounded();
        assert_eq!(o.code, Some(0), "{}", o.both());
        for leaked in ["abc123", "k3y9", "tok1"] {
            assert!(
                !o.stdout.contains(leaked),
                "{format}: {leaked}: {}",
                o.both()
            );
        }
        assert!(
            o.stdout.contains("******") && o.stdout.contains("--hf-token=****"),
            "{}",
            o.both()
        );
    }
}

/// A secret read in a later link's file is masked in an earlier link's
/// report too, however the workers are scheduled: links are written as they
/// are compared, so a run that reads a new secret writes them again with
/// every secret known (one worker is the worst case: link `a` is written
/// before link `b`'s page is read).
#[test]
fn a_secret_read_late_is_masked_in_every_link_whatever_the_workers() {
    let repo = Repo::new();
    // Letters only: not a credential by its look, so only the secret slot
    // (`HF_TOKEN=`) in b.md makes it one.
    let secret = "abcdefghijkl";
    repo.write(
        "docs/a.md",
        format!("# A\n\n```bash\nsglang serve --model-path org/m --tp 2 --served-model-name {secret}\n```\n"),
    );
    repo.write(
        "docs/b.md",
        format!("# B\n\n```bash\nexport HF_TOKEN={secret}\nsglang serve --model-path org/m --tp 4\n```\n"),
    );
    repo.write(
        "recipes/r.sh",
        "#!/usr/bin/env bash\npython3 -m sglang.launch_server --model-path org/m --tp 4\n",
    );
    repo.write(
        ".recipe-drift.yaml",
        "checkpoints:\n  - {model: org/m, facts: {architectures: [LlamaForCausalLM], model-type: llama, dtype: bfloat16}}\nlinks:\n  - {name: a, docs: {file: docs/a.md}, recipe: {file: recipes/r.sh}}\n  - {name: b, docs: {file: docs/b.md}, recipe: {file: recipes/r.sh}}\n",
    );
    let mut outputs = Vec::new();
    for jobs in ["1", "2"] {
        for format in ["human", "json", "sarif", "github", "markdown", "concise"] {
            let o = std::process::Command::new(env!("CARGO_BIN_EXE_recipe-drift"))
                .current_dir(repo.root())
                .args(["check", "--format", format])
                .env("RECIPE_DRIFT_JOBS", jobs)
                .env("NO_COLOR", "1")
                .env_remove("GITHUB_STEP_SUMMARY")
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&o.stdout).to_string();
            assert_eq!(o.status.code(), Some(1), "{format}: {stdout}");
            assert!(
                !stdout.contains(secret),
                "{format}, {jobs} workers: {stdout}"
            );
            outputs.push((format, jobs, stdout));
        }
    }
    // The same bytes with one worker and with two.
    for (format, _, one) in outputs.iter().filter(|o| o.1 == "1") {
        let two = &outputs
            .iter()
            .find(|o| o.0 == *format && o.1 == "2")
            .unwrap()
            .2;
        assert_eq!(one, two, "{format}");
    }
}

/// Issue 24, fresh adversary: a secret option in a vLLM `--config` file
/// whose value carries a YAML tag (`hf-token: !!int TOKEN`) is still a
/// secret slot: the error about the tag, and the source excerpt of a value
/// read (`!!null TOKEN`), never print the token. Today the error message
/// quotes it (`!!int "TOKEN": not an integer ...`; for `!!binary` the tag is
/// masked and the token printed) and the excerpt shows the line.
#[test]
fn adversary_tagged_secret_values_in_a_vllm_config_are_masked() {
    const T: &str = "SeCrEtT0kenXYZ987";
    for line in [
        "hf-token: !!int {T}",
        "hf-token: !!bool {T}",
        "hf-token: !!float {T}",
        "hf-token: !!binary {T}",
        "hf-token: !!timestamp {T}",
        "api-key: !!int {T}",
        "hf-token: !!null {T}",
    ] {
        let repo = Repo::new();
        repo.write("v.txt", "vllm serve org/m -tp 4\n");
        repo.write("vr.txt", "vllm serve org/m --config c.yaml\n");
        repo.write(
            "c.yaml",
            format!("tensor-parallel-size: 4\n{}\n", line.replace("{T}", T)),
        );
        let o = repo.run_deterministic(&["compare", "v.txt", "vr.txt", "--offline"]);
        o.assert_bounded();
        for part in [T, "SeCrEt", "T0kenXYZ"] {
            assert!(
                !o.stdout.contains(part) && !o.stderr.contains(part),
                "{line}: leaked {part}: {}",
                o.both()
            );
        }
    }
}

/// The same secret keys with values PyYAML reads as text are masked
/// (guards the slot itself).
#[test]
fn adversary_plain_and_quoted_secret_values_in_a_vllm_config_are_masked() {
    const T: &str = "SeCrEtT0kenXYZ987";
    for line in [
        "hf-token: !!str {T}",
        "hf-token: {T}",
        "hf-token: \"{T}\"",
        "hf-token: &a {T}",
        "api-key: [{T}]",
        "hf-token: >-\n  {T}",
        "? hf-token\n: {T}",
    ] {
        let repo = Repo::new();
        repo.write("v.txt", "vllm serve org/m -tp 4\n");
        repo.write("vr.txt", "vllm serve org/m --config c.yaml\n");
        repo.write(
            "c.yaml",
            format!("tensor-parallel-size: 4\n{}\n", line.replace("{T}", T)),
        );
        let o = repo.run_deterministic(&["compare", "v.txt", "vr.txt", "--offline"]);
        o.assert_bounded();
        for part in [T, "SeCrEt", "T0kenXYZ"] {
            assert!(
                !o.stdout.contains(part) && !o.stderr.contains(part),
                "{line}: leaked {part}: {}",
                o.both()
            );
        }
    }
}

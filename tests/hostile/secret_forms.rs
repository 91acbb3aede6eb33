//! Issue 24, secrets: a secret written over several lines (a YAML block
//! scalar, a value on the next line, a quoted or flow value continued, an
//! alias, an explicit key, a Kubernetes-style `name:`/`value:` pair) or
//! assigned by a shell form other than `NAME=` (`read` from a here-document,
//! `printf -v`) is a secret like one on a single line: masked in every
//! format wherever else it appears. Each page also passes the token as
//! `--chat-template`, which every format prints, so a token the scan missed
//! shows up in the output.

use crate::Repo;

/// The token every form hides.
const T: &str = "Mult1LineT0kenQ";

/// Each form: a name and the text placed in the page before the command
/// (`{T}` is the token).
const FORMS: &[(&str, &str)] = &[
    ("literal block", "```yaml\nhf-token: |\n  {T}\n```\n"),
    ("folded block", "```yaml\napi-key: >-\n  {T}\n```\n"),
    (
        "tagged block with an indentation indicator",
        "```yaml\nhf-token: !!str |2-\n   {T}\n```\n",
    ),
    ("value on the next line", "```yaml\nhf-token:\n  {T}\n```\n"),
    (
        "plain scalar continued",
        "```yaml\nhf-token: part\n  {T}\n```\n",
    ),
    (
        "flow mapping",
        "```yaml\n{model: m, hf-token:\n  {T}}\n```\n",
    ),
    (
        "double-quoted, continued",
        "```yaml\nhf-token: \"\n  {T}\"\n```\n",
    ),
    (
        "single-quoted, continued",
        "```yaml\nhf-token: 'x\n  {T}'\n```\n",
    ),
    ("JSON object", "```json\n{\"hf_token\":\n  \"{T}\"}\n```\n"),
    ("alias", "```yaml\nbase: &tok {T}\nhf-token: *tok\n```\n"),
    ("explicit key", "```yaml\n? hf-token\n: {T}\n```\n"),
    ("quoted key", "```yaml\n\"hf-token\": |\n  {T}\n```\n"),
    (
        "environment list",
        "```yaml\nenv:\n  - name: HF_TOKEN\n    value: {T}\n```\n",
    ),
    (
        "environment list, value first",
        "```yaml\nenv:\n  - value: >\n      {T}\n    name: HF_TOKEN\n```\n",
    ),
    (
        "read from a here-document",
        "```bash\nread -r HF_TOKEN <<EOF\n{T}\nEOF\n```\n",
    ),
    ("printf -v", "```bash\nprintf -v API_KEY %s {T}\n```\n"),
    (
        "URL folded over lines",
        "```yaml\nindex-url: >-\n  https://u:\n  {T}@h/simple\n```\n",
    ),
];

#[test]
fn a_secret_written_over_several_lines_is_masked_in_every_format() {
    for (form, text) in FORMS {
        let repo = Repo::new();
        repo.write(
            "d.md",
            format!(
                "# P\n\n{}\n```bash\nsglang serve --model-path org/m --tp 4 --chat-template {T}\n```\n",
                text.replace("{T}", T)
            ),
        );
        repo.write("r.sh", "sglang serve --model-path org/m --tp 8\n");
        let mut runs = Vec::new();
        for format in ["human", "concise", "json", "sarif", "github", "markdown"] {
            runs.push((
                format,
                repo.run(&["compare", "d.md", "r.sh", "--offline", "--format", format]),
            ));
        }
        for format in ["human", "json"] {
            runs.push((format, repo.run(&["extract", "d.md", "--format", format])));
        }
        for (format, o) in &runs {
            o.assert_bounded();
            assert!(
                !o.stdout.contains(T) && !o.stderr.contains(T) && !o.stdout.contains("T0kenQ"),
                "{form}, {format}: {}",
                o.both()
            );
        }
        // The command is still reported, its value masked.
        assert!(
            runs[0].1.stdout.contains("chat-template") && runs[0].1.stdout.contains("*****"),
            "{form}: {}",
            runs[0].1.both()
        );
    }
}

/// A vLLM `--config` file with the token in a block scalar: masked where
/// the config's own line is shown and where the token appears elsewhere.
#[test]
fn a_block_scalar_secret_in_a_vllm_config_is_masked() {
    let repo = Repo::new();
    repo.write(
        "cfg.yaml",
        format!("model: org/m\ntensor-parallel-size: 4\nhf-token: >-\n  {T}\n"),
    );
    repo.write(
        "d.sh",
        format!("vllm serve --config cfg.yaml --chat-template {T}\n"),
    );
    repo.write("r.sh", "vllm serve org/m -tp 8\n");
    for format in ["human", "concise", "json", "sarif", "github", "markdown"] {
        let o = repo.run(&["compare", "d.sh", "r.sh", "--offline", "--format", format]);
        o.assert_bounded();
        assert!(
            !o.stdout.contains(T) && !o.stderr.contains(T),
            "{format}: {}",
            o.both()
        );
    }
}

/// Keys that are not secrets keep their values readable, also when those are
/// written over several lines, and a secret key holding a nested mapping does
/// not make its children secrets.
#[test]
fn values_of_other_keys_stay_readable() {
    let repo = Repo::new();
    repo.write(
        "d.md",
        "# P\n\n```yaml\nhf-token:\n  path: plainTemplate9\nname: MODEL_NAME\nvalue: plainTemplate9\ndescription: >-\n  plainTemplate9\n```\n\n```bash\nsglang serve --model-path org/m --tp 4 --chat-template plainTemplate9\n```\n",
    );
    repo.write("r.sh", "sglang serve --model-path org/m --tp 8\n");
    let o = repo.run(&["compare", "d.md", "r.sh", "--offline", "--format", "json"]);
    o.assert_bounded();
    assert!(o.stdout.contains("plainTemplate9"), "{}", o.both());
}

/// Adversary round 5b (class 6): a secret-named key inside a flow mapping
/// that is itself a value, as the mapping's first key (`hf-overrides:
/// {hf_token: ...}`), in a vLLM `--config` file is printed (in the finding, the diff and the excerpt),
/// while the same key after another (`{a: 1, hf_token: ...}`), in a block
/// mapping below `hf-overrides:`, or in a JSON argument on the command line
/// is masked.
#[test]
fn adversary_secret_key_in_a_nested_flow_mapping_is_masked() {
    for cfg in [
        "hf-overrides: {hf_token: Fl0wNestedT0ken}\n",
        "hf-overrides: {\"access_token\": \"Fl0wNestedT0ken\"}\n",
        "hf-overrides: {api_key: Fl0wNestedT0ken, a: 1}\n",
    ] {
        let repo = Repo::new();
        repo.write("docs.txt", "vllm serve org/m -tp 4\n");
        repo.write("recipe.txt", "vllm serve org/m --config cfg.yaml -tp 4\n");
        repo.write("cfg.yaml", cfg);
        for format in ["human", "json"] {
            let o = repo.run_deterministic(&[
                "compare",
                "docs.txt",
                "recipe.txt",
                "--offline",
                "--format",
                format,
            ]);
            o.assert_bounded().assert_no_leak();
            assert!(
                !o.stdout.contains("Fl0wNestedT0ken") && !o.stderr.contains("Fl0wNestedT0ken"),
                "{cfg}: {format}: {}",
                o.both()
            );
        }
    }
}

/// Adversary round 5b (class 6): a bearer token in an HTTP header
/// (`curl -H "Authorization: Bearer ..."`, `--header=...`) written on the
/// launch's line is printed in the human report's source excerpt, even one
/// shaped like a GitHub or Hugging Face token: it is not collected (no
/// secret-named option or variable holds it), and the backstop masks only
/// collected secrets.
#[test]
fn adversary_bearer_token_on_the_launch_line_is_masked() {
    for (token, line) in [
        (
            "ghp_BearerT0kenAbCdEf123456",
            "sglang serve --model-path m --tp 8; curl -H \"Authorization: Bearer ghp_BearerT0kenAbCdEf123456\" localhost:30000/v1/models\n",
        ),
        (
            "Be4rerT0kenPlainXyz",
            "sglang serve --model-path m --tp 8 & curl --header='Authorization: Bearer Be4rerT0kenPlainXyz' localhost:30000/health\n",
        ),
    ] {
        let repo = Repo::new();
        repo.write("docs.sh", line);
        repo.write("recipe.sh", "sglang serve --model-path m --tp 4\n");
        for format in ["human", "markdown", "github"] {
            let o = repo.run_deterministic(&[
                "compare",
                "docs.sh",
                "recipe.sh",
                "--offline",
                "--format",
                format,
            ]);
            o.assert_bounded().assert_no_leak();
            assert_eq!(o.code, Some(1), "{format}: {}", o.both());
            assert!(
                !o.stdout.contains(token) && !o.stderr.contains(token),
                "{format}: leaked {token}: {}",
                o.both()
            );
        }
    }
}

/// Adversary round 5b (class 6), held: secret-named variables handed to a
/// container or a job launcher (`docker run -e`, `--env=`, `-eNAME=`,
/// `apptainer exec --env`, `srun --export=ALL,NAME=`) are masked in every
/// format, on a launch line and a continuation line.
#[test]
fn adversary_held_secrets_passed_to_wrappers() {
    for line in [
        "docker run --gpus all -e HF_TOKEN=hf_Wr4pperT0kenValue lmsysorg/sglang:latest sglang serve --model-path m --tp 8\n",
        "docker run --gpus all --env=HF_TOKEN=hf_Wr4pperT0kenValue lmsysorg/sglang:latest sglang serve --model-path m --tp 8\n",
        "docker run --gpus all -eHF_TOKEN=hf_Wr4pperT0kenValue lmsysorg/sglang:latest sglang serve --model-path m --tp 8\n",
        "apptainer exec --env HF_TOKEN=hf_Wr4pperT0kenValue img.sif sglang serve --model-path m --tp 8\n",
        "srun --export=ALL,HF_TOKEN=hf_Wr4pperT0kenValue \\\n  sglang serve --model-path m --tp 8\n",
    ] {
        let repo = Repo::new();
        repo.write("docs.sh", line);
        repo.write("recipe.sh", "sglang serve --model-path m --tp 4\n");
        for args in [
            &["extract", "docs.sh"][..],
            &["compare", "docs.sh", "recipe.sh", "--offline"][..],
            &[
                "compare",
                "docs.sh",
                "recipe.sh",
                "--offline",
                "--format",
                "json",
            ][..],
        ] {
            let o = repo.run_deterministic(args);
            o.assert_bounded().assert_no_leak();
            assert!(
                !o.stdout.contains("Wr4pperT0ken") && !o.stderr.contains("Wr4pperT0ken"),
                "{line}{args:?}: {}",
                o.both()
            );
        }
    }
}

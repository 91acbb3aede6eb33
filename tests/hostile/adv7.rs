//! Round 7 of the adversarial passes (issue 24): hostile inputs on the newest
//! code: srt-slurm recipes (selection, deep merge, zip groups, role maps
//! rendered as flags), the cross-role rule RD018, rendered pages, the
//! Playground's controls and the shell front end. Each input is our own,
//! modeled on the real shapes; each expectation was checked against the
//! reference (srtctl's own `deep_merge` / `_config_to_cli_args` over
//! PyYAML's `safe_load`, micromark + parse5 for pages, real bash, the HTML
//! standard for form controls).
//!
//! A test marked `#[ignore = "adv7 defect: ..."]` is a confirmed defect: it
//! fails today and passes once fixed. The others are regressions of probes
//! that held.

use crate::{Outcome, Repo};

/// A multi-node InferenceX checkout in `repo`: one `dynamo-sglang` entry
/// whose only point runs `recipe` (written at `recipes/t/r.yaml`) with
/// `selector`, and a docs page with one single-node command.
fn multinode(repo: &Repo, recipe: &str, selector: Option<&str>) {
    let config_file = match selector {
        Some(s) => format!("recipes/t/r.yaml:{s}"),
        None => "recipes/t/r.yaml".to_string(),
    };
    repo.write(
        "ix/configs/nvidia-master.yaml",
        format!(
            "e-fp8-b200-dynamo-sglang:
  image: lmsysorg/sglang:v0.5.19-cu130
  model: org/M
  model-prefix: e
  runner: b200-multinode
  precision: fp8
  framework: dynamo-sglang
  multinode: true
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - conc-list: [4]
        prefill:
          num-worker: 1
          tp: 8
          additional-settings:
          - \"CONFIG_FILE={config_file}\"
        decode:
          num-worker: 1
          tp: 8
"
        ),
    );
    repo.write(
        "ix/benchmarks/multi_node/srt-slurm-recipes/t/r.yaml",
        recipe,
    );
    repo.write(
        "docs/p.md",
        "# Page\n\n```bash\nsglang serve --model-path org/M --tp 8\n```\n",
    );
}

/// The head of our recipes: a Hugging Face model, one prefill and one decode
/// worker on B200s.
const HEAD: &str = "name: adv7
model: {path: \"hf:org/M\", container: \"lmsysorg/sglang:v0.5.19-cu130\", precision: fp8}
resources: {gpu_type: b200, gpus_per_node: 8, prefill_nodes: 1, prefill_workers: 1, decode_nodes: 1, decode_workers: 1}
";

/// `HEAD` with the SGLang role maps `prefill` and `decode` (flow mappings).
fn recipe(prefill: &str, decode: &str) -> String {
    format!(
        "{HEAD}backend:\n  type: sglang\n  sglang_config:\n    prefill: {prefill}\n    decode: {decode}\n"
    )
}

/// `extract` of the entry, twice (same bytes).
fn extract(repo: &Repo, format: &str) -> Outcome {
    let o = repo.run_deterministic(&[
        "extract",
        "--inferencex",
        "ix",
        "--entry",
        "e-fp8-b200-dynamo-sglang",
        "--format",
        format,
    ]);
    o.assert_bounded().assert_no_leak();
    o
}

/// `check --docs-root docs --inferencex ix` in `format`, twice (same bytes).
fn check(repo: &Repo, format: &str) -> Outcome {
    let o = repo.run_deterministic(&[
        "check",
        "--docs-root",
        "docs",
        "--inferencex",
        "ix",
        "--no-checkpoint-facts",
        "--format",
        format,
    ]);
    o.assert_bounded().assert_no_leak();
    o
}

/// Each role's argv words after `--disaggregation-mode ROLE` (the role map's
/// flags, as srtctl appends them), from `extract --format json`.
fn role_flags(o: &Outcome) -> Vec<(String, Vec<String>)> {
    let doc: serde_json::Value = serde_json::from_str(&o.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", o.both());
    });
    let mut out = Vec::new();
    for p in doc["points"].as_array().unwrap() {
        for l in p["launches"].as_array().unwrap() {
            let words: Vec<String> = l["argv"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["text"].as_str().unwrap().to_string())
                .collect();
            let at = words
                .iter()
                .position(|w| w == "--disaggregation-mode")
                .expect("a disaggregated role");
            out.push((
                l["role"].as_str().unwrap().to_string(),
                words[at + 2..].to_vec(),
            ));
        }
    }
    out
}

fn words(list: &[&str]) -> Vec<String> {
    list.iter().map(|w| w.to_string()).collect()
}

/// The RD018 findings of a `check --format json` run, as (severity, message).
fn cross_role(o: &Outcome) -> Vec<(String, String)> {
    let doc: serde_json::Value = serde_json::from_str(&o.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", o.both());
    });
    ["findings", "coverage"]
        .iter()
        .filter_map(|k| doc[k].as_array())
        .flatten()
        .filter(|f| f["id"] == "RD018")
        .map(|f| {
            (
                f["severity"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

mod srt_slurm {
    //! Class 1 and multi-node: srt-slurm recipes read as PyYAML reads them
    //! and rendered as srtctl renders them.

    use super::*;

    /// YAML 1.1 scalars in role maps are the values PyYAML builds, written
    /// with Python's `str()`: `010` is 8, `0x8` 8, `1_0` 10, `1:30` 90,
    /// `0.80` 0.8, `8e-1` a string (no dot), `.5` 0.5, `yes` True.
    #[test]
    fn yaml_1_1_scalars_render_as_srtctl_renders_them() {
        let repo = Repo::new();
        multinode(
            &repo,
            &recipe(
                "{tp-size: 010, mem-fraction-static: 0.80, json-model-override-args: {a: yes}}",
                "{tp-size: 0x8, ep_size: 1_0, chunked-prefill-size: 1:30, mem-fraction-static: 8e-1, x: .5}",
            ),
            None,
        );
        let o = extract(&repo, "json");
        assert_eq!(o.code, Some(0), "{}", o.both());
        assert_eq!(
            role_flags(&o),
            [
                (
                    "prefill".to_string(),
                    words(&[
                        "--json-model-override-args",
                        "{'a': True}",
                        "--mem-fraction-static",
                        "0.8",
                        "--tp-size",
                        "8"
                    ])
                ),
                (
                    "decode".to_string(),
                    words(&[
                        "--chunked-prefill-size",
                        "90",
                        "--ep-size",
                        "10",
                        "--mem-fraction-static",
                        "8e-1",
                        "--tp-size",
                        "8",
                        "--x",
                        "0.5"
                    ])
                ),
            ]
        );
    }

    /// Merge keys and anchors in role maps, repeated keys (the last value in
    /// the first place), `tp_size` and `tp-size` both written (sorted before
    /// `_` becomes `-`), as srtctl builds them.
    #[test]
    fn merge_keys_and_repeated_keys_render_as_srtctl_renders_them() {
        let repo = Repo::new();
        multinode(
            &repo,
            &format!(
                "{HEAD}backend:\n  sglang_config:\n    prefill: &p {{tp-size: 8, ep-size: 8, tp_size: 4}}\n    decode:\n      <<: *p\n      tp-size: 2\n      tp-size: 16\n"
            ),
            None,
        );
        let o = extract(&repo, "json");
        assert_eq!(o.code, Some(0), "{}", o.both());
        assert_eq!(
            role_flags(&o),
            [
                (
                    "prefill".to_string(),
                    words(&["--ep-size", "8", "--tp-size", "8", "--tp-size", "4"])
                ),
                (
                    "decode".to_string(),
                    words(&["--ep-size", "8", "--tp-size", "16", "--tp-size", "4"])
                ),
            ]
        );
    }

    /// `override_<sfx>`: `null` deletes a key, a whole role map set to `~`
    /// leaves the role with no flags; a zip group broadcasts its length-1
    /// lists (a list of lists is one list value) and picks item `i` of the
    /// others.
    #[test]
    fn overrides_and_zip_groups_merge_as_srtctl_merges_them() {
        let base = format!(
            "base:\n{}  backend:\n    sglang_config:\n      prefill: {{tp-size: 8, ep-size: 8, enable-dp-attention: true}}\n      decode: {{tp-size: 8}}\n",
            HEAD.lines().map(|l| format!("  {l}\n")).collect::<String>()
        );
        let doc = format!(
            "{base}override_a:\n  backend:\n    sglang_config:\n      prefill: {{ep-size: null, tp-size: 4, enable-dp-attention: false}}\n      decode: ~\nzip_override_s:\n  backend:\n    sglang_config:\n      prefill: {{tp-size: [2, 4], ep-size: [[1, 2]], mem-fraction-static: 0.7}}\n      decode: {{tp-size: [16, 32]}}\n"
        );
        let cases: [(&str, [&[&str]; 2]); 3] = [
            ("override_a", [&["--tp-size", "4"], &[]]),
            (
                "zip_override_s[1]",
                [
                    &[
                        "--enable-dp-attention",
                        "--ep-size",
                        "1",
                        "2",
                        "--mem-fraction-static",
                        "0.7",
                        "--tp-size",
                        "4",
                    ],
                    &["--tp-size", "32"],
                ],
            ),
            (
                "base",
                [
                    &["--enable-dp-attention", "--ep-size", "8", "--tp-size", "8"],
                    &["--tp-size", "8"],
                ],
            ),
        ];
        for (selector, [prefill, decode]) in cases {
            let repo = Repo::new();
            multinode(&repo, &doc, Some(selector));
            let o = extract(&repo, "json");
            assert_eq!(o.code, Some(0), "{selector}: {}", o.both());
            assert_eq!(
                role_flags(&o),
                [
                    ("prefill".to_string(), words(prefill)),
                    ("decode".to_string(), words(decode))
                ],
                "{selector}"
            );
        }
    }

    /// Aliases that expand past the YAML budget, and nesting past its
    /// depth, are input errors at their place, within the time budget.
    #[test]
    fn alias_bombs_and_deep_nesting_are_bounded_errors() {
        let mut bomb = format!("{HEAD}l0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            bomb.push_str(&format!("l{i}: &a{i} [{refs}]\n"));
        }
        bomb.push_str(
            "backend:\n  sglang_config:\n    prefill: {tp-size: 8, x: *a9}\n    decode: {tp-size: 8}\n",
        );
        let deep = recipe(
            &format!(
                "{{tp-size: 8, x: {}1{}}}",
                "{a: ".repeat(3000),
                "}".repeat(3000)
            ),
            "{tp-size: 8}",
        );
        for (doc, at) in [(bomb, "r.yaml:"), (deep, "r.yaml:7:")] {
            let repo = Repo::new();
            multinode(&repo, &doc, None);
            extract(&repo, "human").assert_input_error(at, &["YAML"]);
        }
    }

    /// A recipe's secrets (environment maps, `api-key` flags, credentials in
    /// URLs, percent-encoded ones) are masked in `extract` and in every
    /// format of `check`.
    #[test]
    fn recipe_secrets_are_masked_in_every_format() {
        let repo = Repo::new();
        let doc = format!(
            "{HEAD}environment:\n  HF_TOKEN: \"hf_adv7SECRETsecretSECRET0123456789\"\n  MY_URL: \"https://user:adv7passw0rdSECRET9876@example.com/x?token=adv7queryTOKEN12345\"\nbackend:\n  type: sglang\n  prefill_environment: {{OPENAI_API_KEY: \"sk-adv7openaiKEY0123456789abcdefABCDEF\"}}\n  sglang_config:\n    prefill: {{tp-size: 8, api-key: \"adv7apiKEYvalue0123456789\", disaggregation-transfer-backend: nixl}}\n    decode: {{tp-size: 8, api_key: \"adv7%41pikeyPERCENT0123456789\", disaggregation-transfer-backend: mooncake}}\n"
        );
        multinode(&repo, &doc, None);
        let mut outs = vec![extract(&repo, "human"), extract(&repo, "json")];
        for f in ["human", "concise", "json", "sarif", "github", "markdown"] {
            outs.push(check(&repo, f));
        }
        for o in &outs {
            for secret in [
                "SECRETsecret",
                "passw0rdSECRET",
                "queryTOKEN12345",
                "openaiKEY0123",
                "apiKEYvalue",
                "pikeyPERCENT",
                "%41pikey",
            ] {
                assert!(
                    !o.stdout.contains(secret) && !o.stderr.contains(secret),
                    "{secret} printed: {}",
                    o.both()
                );
            }
        }
    }

    /// srtctl's `deep_merge` calls `.items()` on an override: one that is
    /// not a mapping (`override_a: [1]`) stops srtctl. Expected: an input
    /// error at the override (exit 2). Got: a job with no roles, "no serve
    /// commands found", exit 0, and a recipe deployment with no servers.
    #[test]
    fn a_non_mapping_override_is_an_input_error() {
        let base = format!(
            "base:\n{}  backend:\n    sglang_config:\n      prefill: {{tp-size: 8}}\n      decode: {{tp-size: 8}}\n",
            HEAD.lines().map(|l| format!("  {l}\n")).collect::<String>()
        );
        for bad in ["[1]", "5", "\"x\""] {
            let repo = Repo::new();
            multinode(
                &repo,
                &format!("{base}override_a: {bad}\n"),
                Some("override_a"),
            );
            extract(&repo, "human").assert_input_error("r.yaml:9:", &["override_a"]);
        }
    }

    /// srtctl's schema types `resources` and `backend.sglang_config` as
    /// mappings and each role map as `dict | None`: a list there fails its
    /// validation. Expected: an input error at the list (exit 2). Got: the
    /// role rendered with no flags (its defaults), or no roles at all, exit 0.
    #[test]
    fn a_list_where_srtctl_needs_a_mapping_is_an_input_error() {
        let model = "model: {path: \"hf:org/M\", container: \"lmsysorg/sglang:v0.5.19-cu130\", precision: fp8}\n";
        let resources = "resources: {gpu_type: b200, gpus_per_node: 8, prefill_workers: 1, decode_workers: 1}\n";
        for (doc, at) in [
            (
                format!(
                    "{model}{resources}backend: {{sglang_config: {{prefill: {{tp-size: 8}}, decode: [1]}}}}\n"
                ),
                "r.yaml:3:",
            ),
            (
                format!("{model}{resources}backend: {{sglang_config: [1]}}\n"),
                "r.yaml:3:",
            ),
            (
                format!(
                    "{model}resources: [1]\nbackend: {{sglang_config: {{prefill: {{tp-size: 8}}, decode: {{tp-size: 8}}}}}}\n"
                ),
                "r.yaml:2:",
            ),
        ] {
            let repo = Repo::new();
            multinode(&repo, &doc, None);
            extract(&repo, "human").assert_input_error(at, &[]);
        }
    }

    /// `override_a: ~` stops srtctl too (`None.items()`); the error says
    /// there is no `override_a` and, in the same sentence, lists it.
    #[test]
    fn a_null_override_is_named_for_what_it_is() {
        let base = format!(
            "base:\n{}  backend:\n    sglang_config:\n      prefill: {{tp-size: 8}}\n      decode: {{tp-size: 8}}\n",
            HEAD.lines().map(|l| format!("  {l}\n")).collect::<String>()
        );
        let repo = Repo::new();
        multinode(&repo, &format!("{base}override_a: ~\n"), Some("override_a"));
        let o = extract(&repo, "human");
        o.assert_input_error("r.yaml:", &["override_a"]);
        assert!(
            !o.stderr.contains("no `override_a` in this recipe"),
            "{}",
            o.both()
        );
    }

    /// A YAML timestamp with a time is a `datetime` in PyYAML, which srtctl
    /// writes with `str()`: `2001-12-14 21:59:43.10 -5` is passed as
    /// `2001-12-14 21:59:43.100000-05:00`. Expected: that text (or an
    /// unknown value). Got: the written text, as if it were a string.
    #[test]
    fn a_datetime_flag_value_is_pythons_str() {
        let repo = Repo::new();
        multinode(
            &repo,
            &recipe(
                "{tp-size: 8, stamp: 2001-12-14 21:59:43.10 -5}",
                "{tp-size: 8}",
            ),
            None,
        );
        let o = extract(&repo, "json");
        let flags = role_flags(&o);
        let stamp = flags[0]
            .1
            .iter()
            .skip_while(|w| *w != "--stamp")
            .nth(1)
            .cloned();
        assert_eq!(
            stamp.as_deref(),
            Some("2001-12-14 21:59:43.100000-05:00"),
            "{}",
            o.both()
        );
    }
}

mod roles {
    //! RD018: the prefill and decode workers of one deployment checked
    //! against each other.

    use super::*;

    /// Speculative decoding on the decode worker only, however the role map
    /// spells it (an abbreviation, underscores, `NEXTN`, a one-item list,
    /// prefill's `false` or `~`), is refused from SGLang 0.5.15: an error.
    #[test]
    fn decode_only_speculative_decoding_is_an_error_however_spelled() {
        for (prefill, decode) in [
            ("{tp-size: 8}", "{tp-size: 8, speculative-algo: EAGLE}"),
            ("{tp-size: 8}", "{tp-size: 8, speculative_algorithm: NEXTN}"),
            (
                "{tp-size: 8}",
                "{tp-size: 8, speculative-algorithm: [EAGLE]}",
            ),
            (
                "{tp-size: 8, speculative-algorithm: false}",
                "{tp-size: 8, speculative-algorithm: EAGLE}",
            ),
            (
                "{tp-size: 8, speculative-algorithm: ~}",
                "{tp-size: 8, speculative-algorithm: STANDALONE, speculative-draft-model-path: d}",
            ),
        ] {
            let repo = Repo::new();
            multinode(&repo, &recipe(prefill, decode), None);
            let o = check(&repo, "json");
            assert_eq!(o.code, Some(1), "{prefill} {decode}: {}", o.both());
            let found = cross_role(&o);
            assert!(
                found
                    .iter()
                    .any(|(s, m)| s == "error" && m.contains("speculative")),
                "{prefill} {decode}: {found:?}"
            );
        }
    }

    /// Keys the roles must share, set apart (transfer backend with `_` and
    /// `-`, a repeated key whose last value differs, kv-cache dtype, page
    /// size forced by an attention backend): a warning each. A repeated role
    /// map whose last one drops the speculative flag has nothing to report.
    #[test]
    fn disagreements_are_warnings_and_the_last_repeated_map_counts() {
        for (prefill, decode, key) in [
            (
                "{tp-size: 8, disaggregation-transfer-backend: mooncake}",
                "{tp-size: 8, disaggregation_transfer_backend: nixl}",
                Some("transfer backend"),
            ),
            (
                "{tp-size: 8, disaggregation-transfer-backend: nixl, disaggregation-transfer-backend: mooncake}",
                "{tp-size: 8, disaggregation-transfer-backend: nixl}",
                Some("transfer backend"),
            ),
            (
                "{tp-size: 8, kv-cache-dtype: fp8_e4m3}",
                "{tp-size: 8, kv-cache-dtype: fp8_e5m2}",
                Some("kv-cache dtype"),
            ),
            (
                "{tp-size: 8, page-size: 16, attention-backend: fa3}",
                "{tp-size: 8, attention-backend: trtllm_mha}",
                Some("page size"),
            ),
            (
                "{tp-size: 8}",
                "{tp-size: 8, speculative-algorithm: EAGLE}\n    decode: {tp-size: 8}",
                None,
            ),
        ] {
            let repo = Repo::new();
            multinode(&repo, &recipe(prefill, decode), None);
            let o = check(&repo, "json");
            let found = cross_role(&o);
            match key {
                Some(k) => assert!(
                    found.iter().any(|(s, m)| s == "warning" && m.contains(k)),
                    "{prefill} {decode}: {found:?}"
                ),
                None => assert!(found.is_empty(), "{prefill} {decode}: {found:?}"),
            }
        }
    }
}

mod pages {
    //! Class 2: pages read as a browser shows them.

    use super::*;

    /// `compare PAGE recipe.sh` with checkpoint facts off, twice.
    fn compare(page: &str, recipe: &str) -> Outcome {
        let repo = Repo::new();
        repo.write("page.md", page);
        repo.write("recipe.sh", recipe);
        let o =
            repo.run_deterministic(&["compare", "page.md", "recipe.sh", "--no-checkpoint-facts"]);
        o.assert_bounded().assert_no_leak();
        o
    }

    const RECIPE_FA3: &str = "sglang serve --model-path org/M --tp 8 --attention-backend fa3\n";

    /// A raw `<pre>` around a fence shows the fence's lines as text: a reader
    /// sees (and copies) `--attention-backend triton`. recipe-drift reads the
    /// `<pre>`'s text as bash, where the backquotes of the fence make the
    /// command a command substitution, and drops it without a word: with the
    /// page's other (agreeing) block the check is green. Expected: drift
    /// (exit 1) or a refusal (exit 2). Got: exit 0, "0 with MAJOR drift".
    #[test]
    fn a_raw_pre_around_a_fence_is_not_dropped() {
        let page = "# Serve\n\nOn H200:\n\n```bash\nsglang serve --model-path org/M --tp 8 --attention-backend fa3\n```\n\nOn B200:\n\n<pre>\n```bash\nsglang serve --model-path org/M --tp 8 --attention-backend triton\n```\n</pre>\n";
        let o = compare(page, RECIPE_FA3);
        assert_ne!(o.code, Some(0), "{}", o.both());
    }

    /// A tab-indented fence is an indented code block showing the fence's
    /// lines: the reader sees `--tp 2`; recipe-drift finds no command and
    /// says nothing. Expected: a launch (or a refusal). Got: "no serve
    /// commands found", exit 0.
    #[test]
    fn an_indented_block_showing_a_fence_is_not_dropped() {
        let repo = Repo::new();
        repo.write(
            "page.md",
            "# T\n\n\t```bash\n\tsglang serve --model-path m --tp 2\n\t```\n",
        );
        let o = repo.run_deterministic(&["extract", "page.md"]);
        o.assert_bounded();
        assert!(
            o.code == Some(2) || o.stdout.contains("--tp"),
            "{}",
            o.both()
        );
    }

    /// Styles that leave nothing to read (`font-size: 0`, a zero box with
    /// its overflow hidden, `transform: scale(0)`, a clip to nothing, off
    /// screen) hide a block as `display: none` does, which is refused.
    /// Expected: the same refusal (exit 2 at the fence). Got: the hidden
    /// block's command read as shown (with a visible block that recipe-drift
    /// drops, the hidden one decides the check).
    #[test]
    fn css_that_hides_text_hides_the_block() {
        for style in [
            "font-size:0",
            "height:0;overflow:hidden",
            "transform:scale(0)",
            "clip-path:inset(50%)",
            "position:absolute;left:-9999px",
            "color:transparent",
        ] {
            let page = format!(
                "# T\n\n<div style=\"{style}\">\n\n```bash\nsglang serve --model-path org/M --tp 8 --attention-backend fa3\n```\n\n</div>\n"
            );
            let o = compare(&page, RECIPE_FA3);
            o.assert_input_error("page.md:5:", &[]);
        }
    }

    /// `x <pre>` opened in a paragraph, then a fence: the fence's `<pre>`
    /// nests in the open one and a browser shows its text (micromark +
    /// parse5 find it). Expected: the command read. Got: exit 2, "the
    /// rendered page holds no text of the block".
    #[test]
    fn a_fence_in_a_pre_opened_inline_is_read() {
        let o = compare(
            "# T\n\nx <pre>\n\n```bash\nsglang serve --model-path org/M --tp 8 --attention-backend triton\n```\n\n</pre>\n",
            RECIPE_FA3,
        );
        assert_eq!(o.code, Some(1), "{}", o.both());
    }

    /// Raw-text elements opened inline (`<noscript>`, `<xmp>`, `<iframe>`,
    /// `<noembed>`, `<noframes>`, `<plaintext>`, `<title>`), `<template>`,
    /// and an unopened `<dialog>` (which closes the paragraph and holds
    /// what follows) hide the fence after them: refused at the fence, never
    /// read.
    #[test]
    fn raw_text_and_inert_elements_opened_inline_hide_the_fence() {
        for tag in [
            "noscript",
            "xmp",
            "iframe",
            "noembed",
            "noframes",
            "plaintext",
            "title",
            "template",
            "dialog",
        ] {
            let page = format!(
                "# T\n\nSome text <{tag}>\n\n```bash\nsglang serve --model-path org/M --tp 8 --attention-backend triton\n```\n\n</{tag}>\n"
            );
            compare(&page, RECIPE_FA3).assert_input_error("page.md:5:1", &[]);
        }
    }

    /// Comment-like openers that CommonMark closes at once (`<!-->`,
    /// `<!--->`) or never opens inline (`a <!-- open` is text) do not hide
    /// the fence: it is read and drifts.
    #[test]
    fn comments_closed_at_once_do_not_hide_the_fence() {
        for opener in ["<!-->", "<!--->", "text <!-- open"] {
            let page = format!(
                "# T\n\n{opener}\n\n```bash\nsglang serve --model-path org/M --tp 8 --attention-backend triton\n```\n"
            );
            let o = compare(&page, RECIPE_FA3);
            assert_eq!(o.code, Some(1), "{opener}: {}", o.both());
        }
    }
}

mod shell {
    //! Class 5: one shell front end, read as bash reads it.

    use super::*;

    /// `X=$(sglang serve ...)` runs the server (bash waits for it); so do a
    /// backquoted one and a process substitution. Expected: a launch (or a
    /// refusal saying why it is not read). Got: "no serve commands found",
    /// exit 0.
    #[test]
    fn a_server_in_a_command_substitution_is_not_dropped() {
        for script in [
            "X=$(sglang serve --model-path m --tp 2)\n",
            ": `sglang serve --model-path m --tp 2`\n",
            "cat <(sglang serve --model-path m --tp 2)\n",
        ] {
            let repo = Repo::new();
            repo.write("serve.sh", script);
            let o = repo.run_deterministic(&["extract", "serve.sh"]);
            o.assert_bounded();
            assert!(
                o.code == Some(2) || o.stdout.contains("--tp"),
                "{script}: {}",
                o.both()
            );
        }
    }

    /// `select` is bash syntax (it reads a choice from standard input; with
    /// none it ends): the script goes on to its server. Got: a syntax error,
    /// exit 2.
    #[test]
    fn a_select_loop_is_bash() {
        let repo = Repo::new();
        repo.write(
            "serve.sh",
            "select t in 2 4; do break; done\nsglang serve --model-path m --tp 2\n",
        );
        let o = repo.run_deterministic(&["extract", "serve.sh"]);
        o.assert_bounded();
        assert_eq!(o.code, Some(0), "{}", o.both());
        assert!(o.stdout.contains("--tp"), "{}", o.both());
    }

    /// Forms that held against real bash: subshells, groups, pipes, `&`,
    /// `if`/`while` conditions, functions, `eval`, `exec`, `command`,
    /// `nohup`, `time`, `!`, `coproc`, `$'\x32'`, `$"2"`, `set --`,
    /// `declare -i`, octal arithmetic, `$[..]`, `readonly`, `${T-4}`,
    /// `${T:+4}`, `IFS` splitting, `case`, `for`.
    #[test]
    fn bash_forms_start_the_server_bash_starts() {
        for (script, tp) in [
            ("( sglang serve --model-path m --tp 2 )\n", "2"),
            ("{ sglang serve --model-path m --tp 2; }\n", "2"),
            (
                "echo hi | sglang serve --model-path m --tp 2 | tee log\n",
                "2",
            ),
            (
                "nohup sglang serve --model-path m --tp 2 > log 2>&1 &\n",
                "2",
            ),
            ("if sglang serve --model-path m --tp 2; then :; fi\n", "2"),
            (
                "f() { sglang serve --model-path m --tp \"$1\"; }\nf 3\n",
                "3",
            ),
            (
                "eval \"sglang serve --model-path m --tp \\$((1+1))\"\n",
                "2",
            ),
            ("command sglang serve --model-path m --tp 2\n", "2"),
            ("coproc sglang serve --model-path m --tp 2\n", "2"),
            ("sglang serve --model-path m --tp $'\\x32'\n", "2"),
            ("set -- 5\nsglang serve --model-path m --tp $1\n", "5"),
            (
                "declare -i T; T=3*1\nsglang serve --model-path m --tp $T\n",
                "3",
            ),
            ("T=010; sglang serve --model-path m --tp $((T))\n", "8"),
            ("sglang serve --model-path m --tp $[1+1]\n", "2"),
            (
                "readonly T=2; T=4\nsglang serve --model-path m --tp $T\n",
                "2",
            ),
            (
                "export T=2\nunset T\nsglang serve --model-path m --tp ${T-4}\n",
                "4",
            ),
            ("IFS=,; T=\"--tp,6\"; sglang serve --model-path m $T\n", "6"),
            ("T=2; T+=1\nsglang serve --model-path m --tp $T\n", "21"),
        ] {
            let repo = Repo::new();
            repo.write("serve.sh", script);
            let o = repo.run_deterministic(&["extract", "serve.sh", "--format", "json"]);
            o.assert_bounded();
            assert_eq!(o.code, Some(0), "{script}: {}", o.both());
            let doc: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
            let argv: Vec<&str> = doc["launches"][0]["argv"]
                .as_array()
                .unwrap_or_else(|| panic!("{script}: {}", o.both()))
                .iter()
                .map(|t| t["text"].as_str().unwrap())
                .collect();
            let at = argv.iter().position(|w| *w == "--tp").unwrap();
            assert_eq!(argv[at + 1], tp, "{script}: {argv:?}");
        }
    }

    /// What bash does not run is not a launch: after `false &&`, `true ||`,
    /// `exit`, `set -e` with a failed command, and an alias in a script
    /// without `expand_aliases`.
    #[test]
    fn bash_forms_that_start_nothing_start_nothing() {
        for script in [
            "false && sglang serve --model-path m --tp 2\n",
            "true || sglang serve --model-path m --tp 2\n",
            "exit 0\nsglang serve --model-path m --tp 2\n",
            "set -e\nfalse\nsglang serve --model-path m --tp 2\n",
            "alias s='sglang serve --model-path m'\ns --tp 2\n",
        ] {
            let repo = Repo::new();
            repo.write("serve.sh", script);
            let o = repo.run_deterministic(&["extract", "serve.sh"]);
            o.assert_bounded();
            assert!(!o.stdout.contains("--tp"), "{script}: {}", o.both());
        }
    }
}

mod playground {
    //! Class 4: generators' form controls as a browser runs them.

    use super::*;

    /// Every selection `extract --all-selections` prints for a generator.
    fn selections(jsx: &str) -> Outcome {
        let repo = Repo::new();
        repo.write("g.jsx", jsx);
        let o = repo.run_deterministic(&["extract", "g.jsx", "--all-selections"]);
        o.assert_bounded().assert_no_leak();
        o
    }

    /// A slider from 0.7 to 0.9 by 0.1: a browser steps it in decimal (the
    /// HTML standard's "best representation" of min + n x step), so a reader
    /// drags it to `0.8` and `0.9`. Got: `0.7999999999999999` and
    /// `0.8999999999999999` in the selection and in the printed command.
    #[test]
    fn a_decimal_slider_moves_to_decimal_values() {
        let o = selections(
            "export const G = () => {\n  const [m, setM] = React.useState('0.7');\n  return (\n    <div>\n      <span>Mem fraction</span>\n      <input type=\"range\" min=\"0.7\" max=\"0.9\" step=\"0.1\" value={m} onChange={(e) => setM(e.target.value)} />\n      <pre>{`sglang serve --model-path org/M --mem-fraction-static ${m}`}</pre>\n    </div>\n  );\n};\n",
        );
        assert_eq!(o.code, Some(0), "{}", o.both());
        assert!(o.stdout.contains("Mem fraction=0.8"), "{}", o.both());
        assert!(!o.stdout.contains("0.79999"), "{}", o.both());
    }

    /// An option inside a disabled `<optgroup>` is disabled (HTML: an
    /// option is disabled when its parent optgroup is): a reader cannot pick
    /// `16`. Got: states with `TP=16` explored and printed.
    #[test]
    fn options_of_a_disabled_optgroup_are_not_picked() {
        let o = selections(
            "export const G = () => {\n  const [tp, setTp] = React.useState('8');\n  return (\n    <div>\n      <span>TP</span>\n      <select value={tp} onChange={(e) => setTp(e.target.value)}>\n        <option>4</option>\n        <option>8</option>\n        <optgroup label=\"big\" disabled><option>16</option></optgroup>\n      </select>\n      <pre>{`sglang serve --model-path org/M --tp ${tp}`}</pre>\n    </div>\n  );\n};\n",
        );
        assert_eq!(o.code, Some(0), "{}", o.both());
        assert!(o.stdout.contains("TP=4"), "{}", o.both());
        assert!(!o.stdout.contains("TP=16"), "{}", o.both());
    }

    /// A control inside `<fieldset disabled>` (outside its first legend) is
    /// disabled (HTML's "disabled form controls"): the reader cannot change
    /// TP. Got: `TP=4` explored.
    #[test]
    fn a_control_in_a_disabled_fieldset_is_not_picked() {
        let o = selections(
            "export const G = () => {\n  const [tp, setTp] = React.useState('8');\n  return (\n    <div>\n      <fieldset disabled>\n        <legend>Locked</legend>\n        <span>TP</span>\n        <select value={tp} onChange={(e) => setTp(e.target.value)}>\n          <option>4</option>\n          <option>8</option>\n        </select>\n      </fieldset>\n      <pre>{`sglang serve --model-path org/M --tp ${tp}`}</pre>\n    </div>\n  );\n};\n",
        );
        assert_eq!(o.code, Some(0), "{}", o.both());
        assert!(o.stdout.contains("TP=8"), "{}", o.both());
        assert!(!o.stdout.contains("TP=4"), "{}", o.both());
    }

    /// An `<option hidden>` is not offered in the drop-down, and an option
    /// without a `value` has its text as value whether hidden or not. Got: a
    /// state picking it, with the value `""` (the command ends in a bare
    /// `--attention-backend`).
    #[test]
    fn a_hidden_option_is_not_picked() {
        let o = selections(
            "export const G = () => {\n  const [ab, setAb] = React.useState('fa3');\n  return (\n    <div>\n      <span>Backend</span>\n      <select value={ab} onChange={(e) => setAb(e.target.value)}>\n        <option>fa3</option>\n        <option hidden>triton</option>\n      </select>\n      <pre>{`sglang serve --model-path org/M --attention-backend ${ab}`}</pre>\n    </div>\n  );\n};\n",
        );
        assert_eq!(o.code, Some(0), "{}", o.both());
        assert!(o.stdout.contains("1 reachable selection"), "{}", o.both());
        assert!(!o.stdout.contains("Backend=\n"), "{}", o.both());
    }

    /// The visibility model hides text at `opacity: 0` (as a reader sees
    /// the page); text at `font-size: 0` or scaled to nothing is not seen
    /// either, yet it is read into the command: a generator that prints
    /// `--attention-backend triton` invisibly agrees with a recipe that sets
    /// it while the reader's command leaves it out. Expected: the invisible
    /// words left out, as at `opacity: 0`. Got: they are part of the command.
    #[test]
    fn invisible_generator_text_is_not_read() {
        for style in ["{fontSize: 0}", "{transform: 'scale(0)'}"] {
            let repo = Repo::new();
            repo.write(
                "g.jsx",
                format!(
                    "export const G = () => (\n  <div>\n    <pre>sglang serve --model-path org/M --tp 8<span style={{{style}}}> --attention-backend triton</span></pre>\n  </div>\n);\n"
                ),
            );
            let o = repo.run_deterministic(&["extract", "g.jsx"]);
            o.assert_bounded();
            assert_eq!(o.code, Some(0), "{style}: {}", o.both());
            assert!(o.stdout.contains("--tp"), "{style}: {}", o.both());
            assert!(!o.stdout.contains("triton"), "{style}: {}", o.both());
        }
    }

    /// Text at `opacity: 0`, `display: none`, `visibility: hidden` or in a
    /// `hidden` element is left out of the command.
    #[test]
    fn hidden_generator_text_is_not_read() {
        for attr in [
            "hidden",
            "style={{display: 'none'}}",
            "style={{visibility: 'hidden'}}",
            "style={{opacity: 0}}",
        ] {
            let repo = Repo::new();
            repo.write(
                "g.jsx",
                format!(
                    "export const G = () => (\n  <div>\n    <pre>sglang serve --model-path org/M --tp 8<span {attr}> --attention-backend triton</span></pre>\n  </div>\n);\n"
                ),
            );
            let o = repo.run_deterministic(&["extract", "g.jsx"]);
            o.assert_bounded();
            assert_eq!(o.code, Some(0), "{attr}: {}", o.both());
            assert!(o.stdout.contains("--tp"), "{attr}: {}", o.both());
            assert!(!o.stdout.contains("triton"), "{attr}: {}", o.both());
        }
    }

    /// An unnamed `<select>` and slider are named by the text before them,
    /// an `<option>` without a value by its text; each reachable pair of
    /// picks is one selection.
    #[test]
    fn unnamed_controls_are_named_by_the_text_before_them() {
        let o = selections(
            "export const G = () => {\n  const [tp, setTp] = React.useState('8');\n  const [d, setD] = React.useState(1);\n  return (\n    <div>\n      <span>TP</span>\n      <select value={tp} onChange={(e) => setTp(e.target.value)}>\n        <option>4</option>\n        <option>8</option>\n      </select>\n      <span>Draft</span>\n      <input type=\"range\" min={1} max={3} value={d} onChange={(e) => setD(Number(e.target.value))} />\n      <span>{d}</span>\n      <pre>{`sglang serve --model-path org/M --tp ${tp} --speculative-num-draft-tokens ${d}`}</pre>\n    </div>\n  );\n};\n",
        );
        assert_eq!(o.code, Some(0), "{}", o.both());
        assert!(o.stdout.contains("6 reachable selections"), "{}", o.both());
        for pick in ["TP=4, Draft=3", "TP=8, Draft=1"] {
            assert!(o.stdout.contains(pick), "{pick}: {}", o.both());
        }
    }
}

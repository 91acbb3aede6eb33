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
    // 2,048 feature selections, each with the KV Offload row off and on its
    // two options the fixture taxonomy offers here (6,144, within the
    // selection budget), of ~4,000 arguments each: gigabytes of output before
    // the composed-size budget.
    let repo = Repo::new();
    vllm_site(&repo);
    repo.write("models/p/Bomb.yaml", feature_bomb(10, 800));
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
    // 16 feature selections, each with the row off, on `simple` and on
    // `lmcache` (the single-node TP strategy this recipe runs).
    assert!(o.stdout.contains("48 selections"), "{}", o.both());
}

#[test]
fn every_kind_of_file_has_one_launch_budget() {
    // 280,000 one-line fences (7.8 MB, under the file-size cap): 30 s,
    // 3.5 GB and 428 MB of JSON before the per-file launch budget.
    let repo = Repo::new();
    let block = "```\nsglang serve --tp 2\n```\n";
    repo.write("many.md", block.repeat(280_000));
    // A command file is read by the bash evaluator, whose script budget
    // (256 KiB) comes first on a bigger one: 2,000 lines stay under it.
    repo.write("many.txt", "sglang serve --tp 2\n".repeat(2_000));
    repo.write("many.sh", "sglang serve --tp 2\n".repeat(2_000));
    // Launch 1,001 is where each stops.
    for (file, at) in [
        ("many.md", "many.md:3002:1:"),
        ("many.txt", "many.txt:1001:1:"),
        ("many.sh", "many.sh:1001:1:"),
    ] {
        for format in ["human", "json"] {
            let o = repo.run_deterministic(&["extract", file, "--format", format]);
            o.assert_input_error(
                at,
                &[
                    "more than 1000 launches",
                    "per-file launch budget",
                    "--max-launches",
                ],
            );
            assert!(o.stdout.is_empty(), "{}", o.both());
        }
    }
    // The flag raises it.
    let o = repo.run(&["extract", "many.sh", "--max-launches", "2000"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    // One launch of 500,000 words: over the words of the same budget, so
    // the JSON of `extract` (~300 bytes per word) stays bounded.
    repo.write(
        "long.txt",
        format!("sglang serve --model-path m{}\n", " --a".repeat(60_000)),
    );
    let o = repo.run_deterministic(&["extract", "long.txt", "--format", "json"]);
    o.assert_input_error(
        "long.txt:1:1:",
        &[
            "more than 50000 words in all",
            "per-file launch budget",
            "--max-launch-words",
        ],
    );
    // Bigger than the script budget: exit 2 at where the budget ends.
    repo.write("huge.txt", "sglang serve --tp 2\n".repeat(100_000));
    repo.run_deterministic(&["extract", "huge.txt"])
        .assert_input_error(
            "huge.txt:",
            &["the script is longer than 256 KiB", "script-kib"],
        );
    // At the budget, the launches are printed.
    repo.write("ok.md", block.repeat(1_000));
    let o = repo.run_deterministic(&["extract", "ok.md", "--format", "json"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert_eq!(o.stdout.matches("\"engine\": \"sglang\"").count(), 1_000);
}

/// Runs git in the repository, quietly.
fn git(repo: &Repo, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .args(["-c", "user.email=a@b", "-c", "user.name=a"])
        .args(args)
        .current_dir(repo.root())
        .output()
        .unwrap();
    assert!(ok.status.success(), "{ok:?}");
}

#[test]
fn a_changed_vllm_config_file_runs_its_link() {
    // Only the `--config` YAML changes (tp 4 -> 2): the link was skipped.
    let repo = Repo::new();
    repo.write("cfg/c.yaml", "tensor-parallel-size: 4\n");
    repo.write("v.sh", "vllm serve m --config cfg/c.yaml\n");
    repo.write("dv.md", "```bash\nvllm serve m -tp 4\n```\n");
    repo.write(
        "d2.md",
        "```bash\nvllm serve m \\\n  --config=\"c2.yaml\"\n```\n",
    );
    repo.write("c2.yaml", "tensor-parallel-size: 4\n");
    repo.write("var.sh", "CFG=cfg/c.yaml\nvllm serve m --config $CFG\n");
    repo.write(
        ".recipe-drift.yaml",
        "links:\n  - name: v\n    docs: {file: dv.md}\n    recipe: {file: v.sh}\n  - name: d2\n    docs: {file: d2.md}\n    recipe: {file: dv.md}\n  - name: var\n    docs: {file: dv.md}\n    recipe: {file: var.sh}\n",
    );
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "init"]);
    repo.write("cfg/c.yaml", "tensor-parallel-size: 2\n");
    for args in [
        &["check", "--changed-from", "HEAD"][..],
        &["check", "cfg/c.yaml"],
    ] {
        let o = repo.run_deterministic(args);
        o.assert_bounded();
        assert_eq!(o.code, Some(1), "{}", o.both());
        assert!(o.stdout.contains("tp_size differs"), "{}", o.both());
        // `v` reads the file; `var` reads a path not written literally, so it
        // runs too; `d2` reads another file and is skipped.
        assert!(o.stdout.contains("2 links checked"), "{}", o.both());
    }
    // A `--config=` in a docs page's block is a dependency too.
    let o = repo.run_deterministic(&["check", "c2.yaml"]);
    o.assert_bounded();
    assert!(o.stdout.contains("link: d2"), "{}", o.both());
    assert!(!o.stdout.contains("link: v "), "{}", o.both());
}

#[test]
fn the_file_time_budget_is_reported_at_the_file() {
    // Four slow generators on one page: which one crosses the file's time
    // budget depends on the machine, so the error names the file, not a
    // component, and the same input gives the same bytes run to run.
    let repo = Repo::new();
    let mut page = String::new();
    for i in 1..=4 {
        repo.write(
            &format!("g{i}.jsx"),
            format!("export const G{i} = () => {{ let s = 0; for (let i = 0; i < 30000000; i++) {{ s += i % 7; }} return <pre>{{'sglang serve --model-path m --tp ' + (2 + s * 0)}}</pre>; }};\n"),
        );
        page.push_str(&format!("import {{ G{i} }} from './g{i}.jsx';\n"));
    }
    for i in 1..=4 {
        page.push_str(&format!("\n<G{i} />\n"));
    }
    repo.write("page.mdx", page);
    let args = ["extract", "page.mdx", "--js-total-time-limit", "1000"];
    let first = repo.run_deterministic(&args);
    first.assert_input_error(
        "page.mdx:1:1: rendering the generators of this file: JavaScript used up the time budget of this file (1000 ms",
        &["--js-total-time-limit"],
    );
    assert!(!first.stderr.contains("<G"), "{}", first.both());
    let again = repo.run(&args);
    assert_eq!(again.stderr, first.stderr);
}

#[test]
fn components_are_named_by_reacts_rule() {
    // `X`, `GG` and `G1` are components (a capital first letter), not
    // "this file exports no component".
    let repo = Repo::new();
    for name in ["X", "GG", "G1"] {
        let file = format!("{name}.jsx");
        repo.write(
            &file,
            format!("export const {name} = () => <pre>sglang serve --model-path m --tp 2</pre>;\n"),
        );
        let o = repo.run_deterministic(&["extract", &file]);
        o.assert_bounded();
        assert_eq!(o.code, Some(0), "{}", o.both());
        assert!(o.stdout.contains(&format!("<{name} />")), "{}", o.both());
    }
}

#[test]
fn generator_output_is_read_or_refused_never_mangled() {
    let repo = Repo::new();
    // A lone surrogate is not text: an error at the component, not an
    // internal one at the file.
    repo.write(
        "sur.jsx",
        "export const Gen = () => <pre>{'sglang serve --model-path m --tp 2 --x ' + '\\uD800'}</pre>;\n",
    );
    repo.run_deterministic(&["extract", "sur.jsx"])
        .assert_input_error(
            "sur.jsx:1:14: <Gen /> renders a lone UTF-16 surrogate (\\uD800)",
            &["cannot be read faithfully"],
        );
    assert!(
        !repo
            .run(&["extract", "sur.jsx"])
            .stderr
            .contains("internal")
    );
    // A surrogate pair (an emoji) and a literal backslash-u are text.
    repo.write(
        "pair.jsx",
        "export const Gen = () => <pre>{'sglang serve --model-path m --tp 2 --x \\uD83D\\uDE00\\\\uD800'}</pre>;\n",
    );
    let o = repo.run_deterministic(&["extract", "pair.jsx", "--format", "json"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    // (The shell reading of the printed text drops the backslash.)
    assert!(o.stdout.contains("\"\u{1F600}uD800\""), "{}", o.both());
    // A command set as HTML (how highlighters render) is read as the text a
    // browser shows, not skipped.
    repo.write(
        "html.jsx",
        "export const Gen = () => <pre dangerouslySetInnerHTML={{__html: '<span class=\"k\">sglang</span> serve --model-path m &#45;&#x2d;tp <b>8</b>'}} />;\n",
    );
    let o = repo.run_deterministic(&["extract", "html.jsx"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("launch 1: sglang serve"), "{}", o.both());
    assert!(o.stdout.contains("--tp "), "{}", o.both());
    assert!(o.stdout.contains("  8 "), "{}", o.both());
    // HTML of 2 MB of `<` without `>` is read in one pass: a `<` that starts
    // no tag is text, as a browser shows it, so the command is over the
    // budget of one command.
    repo.write(
        "lt.jsx",
        "export const Gen = () => <pre dangerouslySetInnerHTML={{__html: 'sglang serve --model-path m --tp 2 ' + '<'.repeat(2000000)}} />;\n",
    );
    let o = repo.run(&["extract", "lt.jsx"]);
    o.assert_input_error("lt.jsx:1:14", &["over the budget of 256 KiB per command"]);
    assert!(o.wall.as_secs() < 10, "{}", o.both());
    // A JSON import is refused at the import, not parsed as JSX.
    repo.write("d.json", "{\"tp\": 2}\n");
    repo.write(
        "imp.jsx",
        "// data\nimport data from './d.json';\nexport const Gen = () => <pre>{'sglang serve --tp ' + data.tp}</pre>;\n",
    );
    repo.run_deterministic(&["extract", "imp.jsx"])
        .assert_input_error(
            "imp.jsx:2:1: cannot import ",
            &["d.json", "JSON and other files are not supported"],
        );
}

#[test]
fn a_non_utf8_file_name_is_named_as_the_cause() {
    use std::os::unix::ffi::OsStrExt;
    let repo = Repo::new();
    let name = std::ffi::OsStr::from_bytes(b"n\xffame.sh");
    std::fs::write(
        repo.root().join(name),
        "sglang serve --model-path m --tp 2\n",
    )
    .unwrap();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_recipe-drift"));
    let out = cmd
        .arg("extract")
        .arg(name)
        .current_dir(repo.root())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the file name is not valid UTF-8"),
        "{stderr}"
    );
    assert!(!stderr.contains("no such file"), "{stderr}");
}

/// `check` reports a link's error with the others' results (exit 2).
fn link_error(o: &crate::Outcome, at: &str, words: &str) {
    o.assert_bounded();
    assert_eq!(o.code, Some(2), "{}", o.both());
    assert!(o.stdout.contains(&format!("error: {at}")), "{}", o.both());
    assert!(o.stdout.contains(words), "{}", o.both());
    assert!(o.stdout.contains("link: ok  [ok]"), "{}", o.both());
}

#[test]
fn config_mistakes_are_placed_in_the_config() {
    let repo = Repo::new();
    repo.write("d.md", "```bash\nsglang serve --model-path m --tp 2\n```\n");
    repo.write("r.sh", "sglang serve --model-path m --tp 2\n");
    let link = |name: &str, extra: &str| {
        format!("  - name: {name}\n    docs: {{file: d.md}}\n    recipe: {{file: r.sh{extra}}}\n")
    };
    // Link errors without a place of their own are placed at the link.
    repo.write(
        ".recipe-drift.yaml",
        format!(
            "links:\n{}{}",
            link("ok", ""),
            link("bad", ", select: {x: y}")
        ),
    );
    let o = repo.run_deterministic(&["check"]);
    link_error(&o, ".recipe-drift.yaml:5:11: ", "--select applies to");
    // A bad version or SKU is a config error at its field, found before any
    // link runs (with every other error of the config).
    repo.write(
        ".recipe-drift.yaml",
        format!(
            "links:\n{}{}",
            link("ok", ""),
            link("bad", ", engine-version: \"banana\"")
        ),
    );
    repo.run_deterministic(&["check"])
        .assert_input_error(".recipe-drift.yaml:7:42: ", &["not a PEP 440 version"]);
    repo.write(
        ".recipe-drift.yaml",
        format!(
            "links:\n{}{}    hardware: zz9000\n",
            link("ok", ""),
            link("bad", "")
        ),
    );
    repo.run_deterministic(&["check"]).assert_input_error(
        ".recipe-drift.yaml:8:15: ",
        &["unknown hardware SKU \"zz9000\""],
    );
    // A second link of the same name is an error at it.
    repo.write(
        ".recipe-drift.yaml",
        format!("links:\n{}{}", link("a", ""), link("a", "")),
    );
    repo.run_deterministic(&["check"])
        .assert_input_error(".recipe-drift.yaml:5:11: ", &["a second link of this name"]);
    // Environment names are shell names.
    for bad in ["\"A B\"", "\"\"", "1X"] {
        repo.write(
            ".recipe-drift.yaml",
            format!("links:\n{}", link("a", &format!(", env: {{{bad}: 1}}"))),
        );
        repo.run_deterministic(&["check"]).assert_input_error(
            ".recipe-drift.yaml:4:31: ",
            &["is not an environment variable name"],
        );
    }
}

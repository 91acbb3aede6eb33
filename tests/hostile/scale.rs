//! Linear work stays linear: very long command lines and very many arguments
//! (the sizes the red-team run found quadratic) end well within budget, with
//! the right result. Scripts this large are over the default bash budgets
//! (`script-kib`, `built-mib`), which are raised here to show the work past
//! them is linear too.

use crate::Repo;

/// Raises the bash budgets that scripts of these sizes exceed by default.
const RAISED: [&str; 6] = [
    "--bash-budget",
    "script-kib=4096",
    "--bash-budget",
    "built-mib=4096",
    "--max-launch-words",
    "1000000",
];

fn with_raised<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut v = args.to_vec();
    v.extend(RAISED);
    v
}

/// One command line of 80,000 words (40,000 `--tp-size 2` pairs).
#[test]
fn one_line_of_80000_words() {
    let repo = Repo::new();
    let words = vec!["--tp-size 2"; 40_000].join(" ");
    repo.write("long.sh", format!("sglang serve --model-path m {words}\n"));
    repo.write("short.sh", "sglang serve --model-path m --tp-size 4\n");
    let o = repo.run_deterministic(&with_raised(&["compare", "long.sh", "short.sh"]));
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(1), "{}", o.both());
    assert!(o.stdout.contains("tp_size"), "{}", o.both());
}

/// 40,000 continued `-cc.mode=3` lines: one JSON sub-key written 40,000 times.
#[test]
fn forty_thousand_continued_dotted_lines() {
    let repo = Repo::new();
    let lines = vec!["  -cc.mode=3"; 40_000].join(" \\\n");
    repo.write("cc.sh", format!("vllm serve m \\\n{lines}\n"));
    repo.write("plain.sh", "vllm serve m\n");
    // 0.33.0: from 0.34 the compilation mode depends on the checkpoint (breakable CUDA
    // graphs), so without one it is unknown alike on both sides and nothing is marked.
    for format in ["human", "json", "sarif", "github"] {
        let o = repo.run(&with_raised(&[
            "compare",
            "cc.sh",
            "plain.sh",
            "--engine-version",
            "0.33.0",
            "--format",
            format,
        ]));
        o.assert_bounded();
        assert_eq!(o.code, Some(0), "{format}: {}", o.both());
    }
    let o = repo.run(&with_raised(&[
        "compare",
        "cc.sh",
        "plain.sh",
        "--engine-version",
        "0.33.0",
        "--show-equivalent",
    ]));
    // The human report marks a bounded number of places and counts the rest.
    assert!(o.stdout.contains("39991 more places"), "{}", o.both());
    assert!(o.stdout.len() < 20_000, "{} bytes", o.stdout.len());
}

/// 100,000 `--tp-size=2` arguments in a command file and in a Markdown block.
#[test]
fn a_hundred_thousand_arguments() {
    let repo = Repo::new();
    let words = vec!["--tp-size=2"; 100_000].join(" ");
    repo.write("many.txt", format!("sglang serve --model-path m {words}\n"));
    repo.write(
        "many.md",
        format!("# Serve\n\n```bash\nsglang serve --model-path m {words}\n```\n"),
    );
    repo.write("two.txt", "sglang serve --model-path m --tp 2\n");
    for file in ["many.txt", "many.md"] {
        let o = repo.run(&with_raised(&["compare", file, "two.txt"]));
        o.assert_bounded();
        assert_eq!(o.code, Some(0), "{file}: {}", o.both());
        let o = repo.run(&with_raised(&["extract", file, "--format", "json"]));
        o.assert_bounded();
        assert_eq!(o.code, Some(0), "{file}: {}", o.both());
    }
}

/// Issue 24, fresh adversary (class 7): one link past the pair budget is a
/// clear error at the config before any link is compared, never an abort.
#[test]
fn adversary_one_link_past_the_pair_budget_is_refused_up_front() {
    let repo = Repo::new();
    repo.write("a.txt", "sglang serve --model-path m --tp 4\n");
    let mut cfg = String::from("links:\n");
    for i in 0..20_001 {
        cfg.push_str(&format!(
            "  - {{name: l{i}, docs: {{file: a.txt}}, recipe: {{file: a.txt}}}}\n"
        ));
    }
    repo.write(".recipe-drift.yaml", cfg);
    let o = repo.run_deterministic(&["check", "--offline"]);
    o.assert_input_error(".recipe-drift.yaml:20002:", &["--max-pairs", "20001"]);
}

/// Deep containers stay linear: a fence 5,000 blockquotes deep, 1,000 list
/// items deep, and an MDX page opening 30,000 `<div>`s before its fence are
/// read (the command inside is found, at its place).
#[test]
fn adversary_deep_containers_are_read_in_linear_time() {
    let fence = |prefix: &str| {
        format!("{prefix}```bash\n{prefix}sglang serve --model-path m --tp 4\n{prefix}```\n")
    };
    let quote = fence(&"> ".repeat(5_000));
    let mut list = String::new();
    for i in 0..1_000 {
        list.push_str(&format!("{}- item\n", "  ".repeat(i)));
    }
    list.push_str(&fence(&"  ".repeat(1_000)));
    let divs = format!("{}\n\n{}", "<div>".repeat(30_000), fence(""));
    for (name, page) in [("q.md", quote), ("l.md", list), ("d.mdx", divs)] {
        let repo = Repo::new();
        repo.write(name, &page);
        let o = repo.run_deterministic(&["extract", "--format", "json", name]);
        o.assert_bounded().assert_no_leak();
        assert_eq!(o.code, Some(0), "{name}: {}", o.both());
        let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
        assert_eq!(v["launches"].as_array().unwrap().len(), 1, "{name}");
        assert_eq!(v["launches"][0]["argv"][3]["text"], "4", "{name}");
    }
}

/// Bombs in a page's block or a generator end at a named budget, exit 2.
#[test]
fn adversary_bombs_end_at_a_named_budget() {
    let mut many = String::new();
    for i in 0..2_000 {
        many.push_str(&format!(
            "```bash\nsglang serve --model-path m --tp {}\n```\n\n",
            i + 1
        ));
    }
    for (name, text, at, budget) in [
        ("many.md", many, "many.md:", "--max-launches"),
        (
            "brace.md",
            "```bash\nsglang serve --model-path m --cuda-graph-bs {1..10}{1..10}{1..10}{1..10}{1..10}\n```\n".to_string(),
            "brace.md:2:",
            "brace expansion budget",
        ),
        (
            "double.md",
            "```bash\nX=a; for i in $(seq 1 40); do X=$X$X; done\nsglang serve --model-path m --served-model-name $X\n```\n".to_string(),
            "double.md:2:",
            "value-kib",
        ),
        (
            "rec.md",
            "```bash\nf() { f; }; f\nsglang serve --model-path m --tp 4\n```\n".to_string(),
            "rec.md:2:",
            "call-depth",
        ),
        (
            "deep.jsx",
            format!(
                "export const Gen = () => {}<pre>sglang serve --model-path m --tp 4</pre>{};\n",
                "<div>".repeat(5_000),
                "</div>".repeat(5_000)
            ),
            "deep.jsx:1:1",
            // The JavaScript stack limit, or (a debug build) the parser
            // worker's native stack: exit 2 either way.
            "stack",
        ),
    ] {
        let repo = Repo::new();
        repo.write(name, &text);
        let o = repo.run_deterministic(&["extract", name]);
        o.assert_input_error(at, &[budget]).assert_no_leak();
    }
}

/// An alias bomb in a vLLM `--config` file ends at the YAML node budget.
#[test]
fn adversary_yaml_alias_bomb_in_a_vllm_config_is_refused() {
    let repo = Repo::new();
    repo.write("docs.txt", "vllm serve org/m -tp 10\n");
    repo.write("recipe.txt", "vllm serve org/m --config cfg.yaml\n");
    let mut cfg =
        String::from("tensor-parallel-size: 10\nl0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..9 {
        let refs = vec![format!("*l{}", i - 1); 10].join(", ");
        cfg.push_str(&format!("l{i}: &l{i} [{refs}]\n"));
    }
    repo.write("cfg.yaml", cfg);
    let o = repo.run_deterministic(&["compare", "docs.txt", "recipe.txt", "--offline"]);
    o.assert_input_error("cfg.yaml:", &["over a YAML budget"]);
}

/// Adversary round 5b (class 7): an "Environment" block passes its
/// variables on to every later block of the page, and the work is the
/// number of variables times the number of blocks after it: a page of
/// 0.3 MB (one block exporting 10,000 variables, then 10,000 one-line
/// blocks) runs for minutes (4,000 x 4,000 took 64 s in a debug build,
/// 2,000 x 2,000 about 16 s: quadratic). Within the file size cap, either
/// linear work or an exceeded budget (exit 2 naming it), never a run
/// killed at the harness's limit.
#[test]
fn adversary_environment_carried_over_many_blocks_is_linear() {
    let repo = Repo::new();
    let n = 10_000;
    let mut page = String::from("```bash\n");
    for i in 0..n {
        page.push_str(&format!("export A{i}=x\n"));
    }
    page.push_str("```\n\n");
    for _ in 0..n {
        page.push_str("```bash\necho\n```\n\n");
    }
    page.push_str("```bash\nsglang serve --model-path m --tp 8\n```\n");
    repo.write("page.md", page);
    let o = repo.run(&["extract", "page.md"]);
    o.assert_bounded().assert_no_leak();
    assert!(matches!(o.code, Some(0) | Some(2)), "{}", o.both());
    if o.code == Some(0) {
        assert!(o.stdout.contains("--tp"), "{}", o.both());
    }
}

/// Round 8 (issue 24, class 7): container markers written without spaces
/// (`>>>>...> ` for a blockquote 300,000 deep, 900 KB in three lines) or
/// list markers on one line (`- - - ... x`, 80,000 deep) cost time
/// quadratic in the depth: measured with the release binary, 25,000 / 50,000
/// / 200,000 `>` took 1.6 / 5.0 / 112 s, and 20,000 / 40,000 `- ` took 4.3 /
/// 22 s. A page well under the 8 MiB file cap runs for minutes; past a
/// budget it should be an error (exit 2) naming it. Each case here either
/// ends within the harness's budget or fails (the harness kills a run at
/// 90 s).
#[test]
fn adversary_round8_unspaced_deep_containers_are_bounded() {
    let quote = ">".repeat(300_000);
    let pages = [
        (
            "q.md",
            format!("{quote} ```bash\n{quote} sglang serve --model-path m --tp 4\n{quote} ```\n"),
        ),
        (
            "l.md",
            format!(
                "{}x\n\n```bash\nsglang serve --model-path m --tp 4\n```\n",
                "- ".repeat(80_000)
            ),
        ),
        // A blockquote and a list item per level, on one line (120 KB):
        // 30,000 levels took 85 s.
        (
            "ql.md",
            format!(
                "{}x\n\n```bash\nsglang serve --model-path m --tp 4\n```\n",
                "> - ".repeat(60_000)
            ),
        ),
    ];
    for (name, page) in pages {
        let repo = Repo::new();
        repo.write(name, &page);
        let o = repo.run(&["extract", name]);
        o.assert_bounded();
        assert!(matches!(o.code, Some(0) | Some(2)), "{name}: {}", o.both());
    }
}

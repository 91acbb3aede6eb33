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

//! A command of the book and the binary's output for it, as a `console` block
//! that fits the page: the command wrapped at the page's width, long output
//! lines cut with `[..]` and, in a long output, the paragraphs that do not name
//! the finding left out with `...` (tests/readme.rs runs the block with
//! `trycmd`, which reads both marks).

use std::process::Command;

use super::{CODE_COLUMNS, root};

/// The most lines an output is shown with before its other paragraphs are cut.
const MOST_LINES: usize = 30;

/// The binary's exit code and standard output for `args`, run from the
/// repository root as the book's blocks are; standard error must be empty
/// (trycmd compares the two streams merged).
pub fn run(args: &[String]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_recipe-drift"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.is_empty(),
        "recipe-drift {}: writes to stderr: {stderr}",
        args.join(" ")
    );
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// `$ recipe-drift ARGS`, wrapped with `\` and `>` continuation lines so
/// that no line is wider than the page.
fn command_lines(args: &[String]) -> String {
    let mut out = String::from("$ recipe-drift");
    let mut line_len = out.len();
    for a in args {
        if line_len + 1 + a.len() + 2 > CODE_COLUMNS {
            out.push_str(" \\\n>  ");
            line_len = 3;
        }
        out.push(' ');
        out.push_str(a);
        line_len += 1 + a.len();
    }
    out
}

/// A line cut to the page's width (`[..]` stands for the rest).
fn fit(line: &str) -> String {
    if line.chars().count() <= CODE_COLUMNS {
        return line.to_string();
    }
    let kept: String = line.chars().take(CODE_COLUMNS - 4).collect();
    format!("{kept}[..]")
}

/// The output with, when it is long, only the paragraphs (blocks between
/// blank lines) that hold `keep` and the last one (the summary); each run
/// of left-out paragraphs is a `...` line.
fn shorten(output: &str, keep: &str) -> String {
    if output.lines().count() <= MOST_LINES {
        return output.to_string();
    }
    let paragraphs: Vec<&str> = output.trim_end_matches('\n').split("\n\n").collect();
    let last = paragraphs.len() - 1;
    let mut shown: Vec<&str> = Vec::new();
    for (i, p) in paragraphs.iter().enumerate() {
        if i == last || p.contains(keep) {
            shown.push(p);
        } else if shown.last() != Some(&"...") {
            shown.push("...");
        }
    }
    let mut out = String::new();
    for (i, p) in shown.iter().enumerate() {
        out.push_str(p);
        // `...` already stands for the blank line after what it leaves out.
        let next_is_cut = shown.get(i + 1) == Some(&"...");
        out.push_str(if *p == "..." || next_is_cut || i + 1 == shown.len() {
            "\n"
        } else {
            "\n\n"
        });
    }
    out
}

/// The `console` block of `recipe-drift ARGS` with its output: `keep` names
/// what a shortened output keeps (a finding's id).
pub fn console_block(args: &[String], keep: &str) -> String {
    let (code, output) = run(args);
    let mut block = format!("```console\n{}\n", command_lines(args));
    if code != 0 {
        block.push_str(&format!("? {code}\n"));
    }
    for line in shorten(&output, keep).lines() {
        block.push_str(&fit(line));
        block.push('\n');
    }
    // trycmd reads the block's last line break as the end of the output:
    // one blank line keeps the output's own.
    block.push_str("\n```\n");
    block
}

#[test]
fn a_long_output_keeps_the_paragraphs_that_name_the_finding_and_the_summary() {
    let mut output = String::new();
    for i in 0..20 {
        let id = if i == 7 { "RD009" } else { "RD001" };
        output.push_str(&format!("error[{id}]: {i}\n  at line {i}\n\n"));
    }
    output.push_str("20 findings\n");
    let short = shorten(&output, "RD009");
    assert_eq!(
        short,
        "...\nerror[RD009]: 7\n  at line 7\n...\n20 findings\n"
    );
    // A short output is shown whole.
    assert_eq!(shorten("a\n\nb\n", "x"), "a\n\nb\n");
}

#[test]
fn a_wide_line_is_cut_and_a_long_command_wrapped() {
    let wide = "x".repeat(120);
    assert_eq!(fit(&wide).chars().count(), CODE_COLUMNS);
    assert!(fit(&wide).ends_with("[..]"));
    let args: Vec<String> = (0..30).map(|i| format!("word{i}")).collect();
    let lines = command_lines(&args);
    assert!(lines.lines().count() > 1, "{lines}");
    assert!(lines.lines().all(|l| l.chars().count() <= CODE_COLUMNS));
    assert!(lines.lines().skip(1).all(|l| l.starts_with(">  ")));
}

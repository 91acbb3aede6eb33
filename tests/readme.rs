//! The README's commands run as written: its first block (the demo and the test
//! command) and every `console` block of the README and of the book (`docs/src/`),
//! run by `trycmd` against the built binary, exit code and output checked
//! (`...` elides lines, `[..]` the rest of a line). The command synopsis of
//! the book (`docs/src/commands.md`) names only flags and values the binary's
//! `--help` has.
//!
//! Not run here: the README's `cargo test` line (it is this suite; the test below
//! checks that `.ci/run` runs exactly it) and `cargo install` (minutes of release
//! build). `sh`, `yaml` and `text` blocks are not run.

use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap()
}

/// The commands of the README's first fenced block, comments cut off.
fn first_block_commands() -> Vec<String> {
    let readme = read("README.md");
    let mut lines = readme.lines().skip_while(|l| !l.starts_with("```"));
    let open = lines.next().expect("the README has a code block");
    assert_eq!(open, "```sh", "the README's first block is a shell block");
    lines
        .take_while(|l| !l.starts_with("```"))
        .map(|l| l.split(" #").next().unwrap().trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn the_readme_demo_command_exits_1_on_major_drift() {
    let commands = first_block_commands();
    let demo = &commands[0];
    let args = demo
        .strip_prefix("cargo run --release -- ")
        .unwrap_or_else(|| panic!("the README's first command runs the binary: {demo}"));
    // The same binary in the test profile; cargo sets the same environment
    // (`.cargo/config.toml`) for `cargo run` and for this test.
    let out = Command::new(env!("CARGO_BIN_EXE_recipe-drift"))
        .args(args.split_whitespace())
        .current_dir(root())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the demo exits 1 (MAJOR drift):\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("MAJOR drift"), "{stdout}");
}

#[test]
fn ci_runs_exactly_the_readme_test_command() {
    let commands = first_block_commands();
    assert_eq!(
        commands.len(),
        2,
        "the demo and the test command: {commands:?}"
    );
    let ci = read(".ci/run");
    let last = ci
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap();
    assert_eq!(
        last, commands[1],
        ".ci/run ends with the README's test command"
    );
}

#[test]
fn console_blocks_of_the_readme_and_the_book_run_as_shown() {
    // Not vacuous: the README's quick start has console blocks.
    assert!(read("README.md").contains("```console\n$ recipe-drift "));
    trycmd::TestCases::new()
        .register_bin(
            "recipe-drift",
            Path::new(env!("CARGO_BIN_EXE_recipe-drift")),
        )
        .case("README.md")
        .case("docs/src/*.md");
}

/// The `--flag` words of a synopsis line, each with the values it lists
/// (`--format human|json` gives `--format` and `[human, json]`).
fn synopsis_flags(line: &str) -> Vec<(String, Vec<String>)> {
    let words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || "[]".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let Some(name) = w.strip_prefix("--") else {
            continue;
        };
        if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
            continue;
        }
        let values = match words.get(i + 1) {
            Some(v) if v.contains('|') => v.split('|').map(str::to_string).collect(),
            _ => Vec::new(),
        };
        out.push((format!("--{name}"), values));
    }
    out
}

/// The help text of one option in a command's `--help`: its line and the
/// lines up to the next option's.
fn option_help(help: &str, flag: &str) -> Option<String> {
    let lines: Vec<&str> = help.lines().collect();
    // An option's line is indented by at most 6 spaces; its text by 10.
    let is_option = |l: &str| {
        let t = l.trim_start();
        t.starts_with('-') && l.len() - t.len() <= 6
    };
    let start = lines
        .iter()
        .position(|l| is_option(l) && l.split([' ', ',', '=']).any(|w| w == flag))?;
    let end = lines[start + 1..]
        .iter()
        .position(|l| is_option(l))
        .map_or(lines.len(), |n| start + 1 + n);
    Some(lines[start..end].join("\n"))
}

/// Whether `word` occurs in `text` between non-word characters.
fn has_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        let boundary = |c: Option<char>| !c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        boundary(before) && boundary(after)
    })
}

#[test]
fn the_command_synopsis_names_only_flags_and_values_the_binary_has() {
    let page = read("docs/src/commands.md");
    let block = page
        .split_once("```text\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .expect("commands.md opens with the synopsis block")
        .0;
    let mut command = String::new();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for line in block.lines() {
        if let Some(rest) = line.strip_prefix("recipe-drift ") {
            command = rest.split_whitespace().next().unwrap().to_string();
        } else if line.starts_with("Global flags") {
            command = "check".into(); // global flags are in every command's help
        }
        let flags = synopsis_flags(line);
        if flags.is_empty() {
            continue;
        }
        let help = Command::new(env!("CARGO_BIN_EXE_recipe-drift"))
            .args([command.as_str(), "--help"])
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&help.stdout);
        for (flag, values) in flags {
            checked += 1;
            let Some(text) = option_help(&help, &flag) else {
                wrong.push(format!("{command} {flag}"));
                continue;
            };
            for v in values {
                if !has_word(&text, &v) {
                    wrong.push(format!("{command} {flag} {v}"));
                }
            }
        }
    }
    assert!(checked > 50, "{checked} flags");
    assert!(wrong.is_empty(), "not in `--help`: {wrong:?}");
}

//! The README's commands run as written: its first block (the demo and the test
//! command) and every `console` block of the README and of the book (`docs/src/`
//! and its finding kinds' pages, `docs/src/findings/`),
//! run by `trycmd` against the built binary, exit code and output checked
//! (`...` elides lines, `[..]` the rest of a line). The command synopsis of
//! the book (`docs/src/commands.md`) and the binary's `--help` list the same
//! commands and flags, and the synopsis's values are ones `--help` names.
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
        .case("docs/src/*.md")
        .case("docs/src/findings/*.md");
}

/// A flag of the synopsis and the values it lists (`--format human|json`
/// gives `--format` and `[human, json]`).
type Flag = (String, Vec<String>);

/// The `--flag` words of a synopsis line, each with the values it lists.
fn synopsis_flags(line: &str) -> Vec<Flag> {
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

fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_recipe-drift"))
        .args(args)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The synopsis block of `docs/src/commands.md`, as (command, flags with their
/// values) per line; the global flags' lines carry the command `*`.
fn synopsis() -> Vec<(String, Vec<Flag>)> {
    let page = read("docs/src/commands.md");
    let block = page
        .split_once("```text\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .expect("commands.md opens with the synopsis block")
        .0;
    let mut command = String::new();
    let mut out = Vec::new();
    for line in block.lines() {
        if let Some(rest) = line.strip_prefix("recipe-drift ") {
            command = rest.split_whitespace().next().unwrap().to_string();
        } else if line.starts_with("Global flags") {
            command = "*".into();
        }
        out.push((command.clone(), synopsis_flags(line)));
    }
    out
}

#[test]
fn the_command_synopsis_names_only_flags_and_values_the_binary_has() {
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (command, flags) in synopsis() {
        // Global flags are in every command's help; `check` stands for all.
        let cmd = if command == "*" { "check" } else { &command };
        let help = help(&[cmd, "--help"]);
        for (flag, values) in flags {
            checked += 1;
            let Some(text) = option_help(&help, &flag) else {
                wrong.push(format!("{cmd} {flag}"));
                continue;
            };
            for v in values {
                if !has_word(&text, &v) {
                    wrong.push(format!("{cmd} {flag} {v}"));
                }
            }
        }
    }
    assert!(checked > 50, "{checked} flags");
    assert!(wrong.is_empty(), "not in `--help`: {wrong:?}");
}

#[test]
fn the_command_synopsis_lists_every_command_and_flag_of_the_binary() {
    let lines = synopsis();
    let commands: Vec<&str> = lines.iter().map(|(c, _)| c.as_str()).collect();
    let global: Vec<&str> = lines
        .iter()
        .filter(|(c, _)| c == "*")
        .flat_map(|(_, f)| f.iter().map(|(f, _)| f.as_str()))
        .collect();
    let top = help(&["--help"]);
    let listed: Vec<&str> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(listed.len() >= 8, "{listed:?}");
    let mut missing = Vec::new();
    for cmd in listed {
        if !commands.contains(&cmd) {
            missing.push(format!("command {cmd}"));
            continue;
        }
        let documented: Vec<&str> = lines
            .iter()
            .filter(|(c, _)| c == cmd)
            .flat_map(|(_, f)| f.iter().map(|(f, _)| f.as_str()))
            .chain(global.iter().copied())
            .collect();
        for line in help(&[cmd, "--help"]).lines() {
            let t = line.trim_start();
            if !t.starts_with('-') || line.len() - t.len() > 6 {
                continue;
            }
            let flag = t
                .split([' ', ',', '='])
                .find(|w| w.starts_with("--"))
                .unwrap_or("");
            if !flag.is_empty() && flag != "--help" && !documented.contains(&flag) {
                missing.push(format!("{cmd} {flag}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "the synopsis in docs/src/commands.md lacks: {missing:?}"
    );
}

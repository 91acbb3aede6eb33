//! The README's commands run as written: its first block (the demo and the test
//! command) and every `console` block of the README and of the book (`docs/src/`),
//! run by `trycmd` against the built binary, exit code and output checked
//! (`...` elides lines, `[..]` the rest of a line).
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

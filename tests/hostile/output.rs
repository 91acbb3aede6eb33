//! What leaves the process: secrets masked in every format and in errors,
//! control characters from inputs escaped, and no panic on a closed stdout or
//! stderr.

use std::process::{Command, Stdio};

use crate::*;

const KEY: &str = "sk-live-SECRET1234";
const TOKEN: &str = "hf_SECRETtokenABC";
const OTHER: &str = "other-SECRET9999";

fn assert_masked(o: &Outcome) {
    for s in [KEY, TOKEN, OTHER, "SECRET"] {
        assert!(
            !o.stdout.contains(s) && !o.stderr.contains(s),
            "leaked {s}: {}",
            o.both()
        );
    }
}

#[test]
fn secrets_are_masked_in_every_format_and_error() {
    let repo = Repo::new();
    repo.write(
        "docs.sh",
        format!("export HF_TOKEN={TOKEN}\nsglang serve --model-path m --api-key {KEY} --tp 8\n"),
    );
    // A secret reaching the command through a variable is masked too.
    repo.write(
        "recipe.sh",
        format!("K=\"{OTHER}\"\nsglang serve --model-path m --api-key=\"$K\" --tp 4\n"),
    );
    for format in ["human", "json", "sarif", "github", "markdown"] {
        let o = repo.run_deterministic(&["compare", "docs.sh", "recipe.sh", "--format", format]);
        o.assert_bounded();
        assert_eq!(o.code, Some(1), "{}", o.both());
        assert_masked(&o);
    }
    for format in ["human", "json"] {
        for file in ["docs.sh", "recipe.sh"] {
            let o = repo.run_deterministic(&["extract", file, "--format", format]);
            assert_eq!(o.code, Some(0), "{}", o.both());
            assert!(o.stdout.contains("*****"), "{}", o.both());
            assert_masked(&o);
        }
        let o = repo.run_deterministic(&[
            "resolve",
            "--engine",
            "sglang",
            "--format",
            format,
            "--",
            "--model-path",
            "m",
            "--api-key",
            KEY,
        ]);
        assert_eq!(o.code, Some(0), "{}", o.both());
        assert_masked(&o);
    }
    // In an error message: the secret is part of a path that cannot be read.
    repo.write(
        "err.sh",
        format!("export HF_TOKEN={TOKEN}\nbash \"run-$HF_TOKEN.sh\"\n"),
    );
    let o = repo.run_deterministic(&["extract", "err.sh"]);
    o.assert_input_error("err.sh:2:", &["run-*****"]);
    assert_masked(&o);
}

#[test]
fn control_characters_from_inputs_are_escaped() {
    let repo = Repo::new();
    // An OSC title sequence, a screen clear, a bidi override, an Arabic
    // letter mark, a line separator and a zero-width space in a word.
    let evil = "m\u{1b}]0;pwned\u{7}\u{1b}[2J\u{202e}x\u{61c}y\u{2028}z\u{200b}w";
    repo.write(
        "serve.sh",
        format!("sglang serve --model-path '{evil}' --tp 8\n"),
    );
    repo.write("r.sh", "sglang serve --model-path m --tp 2\n");
    for args in [
        &["extract", "serve.sh"][..],
        &["extract", "serve.sh", "--format", "json"],
        &["compare", "serve.sh", "r.sh"],
        &["compare", "serve.sh", "r.sh", "--format", "github"],
    ] {
        let o = repo.run_deterministic(args);
        o.assert_bounded();
        // Shown escaped (`\u001b`, a control picture in source excerpts, or
        // a debug escape in messages), never raw.
        assert!(o.stdout.contains("]0;pwned"), "{}", o.both());
        for c in [
            '\u{1b}', '\u{7}', '\u{202e}', '\u{61c}', '\u{2028}', '\u{200b}',
        ] {
            assert!(
                !o.stdout.contains(c) && !o.stderr.contains(c),
                "{:?}",
                o.both()
            );
        }
    }
    // In an error: the path of a missing script holds the sequence.
    repo.write("e.sh", format!("bash '{evil}.sh'\n"));
    let o = repo.run_deterministic(&["extract", "e.sh"]);
    o.assert_input_error("e.sh:1:", &["\\u001b]0;pwned\\u0007"]);
    assert!(!o.stderr.contains('\u{1b}'), "{:?}", o.stderr);
}

/// Runs with stdout or stderr a pipe whose reading end is already closed.
fn run_closed(dir: &std::path::Path, args: &[&str], close_stdout: bool) -> Option<i32> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_recipe-drift"));
    cmd.current_dir(dir).args(args).stdin(Stdio::null());
    if close_stdout {
        cmd.stdout(Stdio::piped()).stderr(Stdio::null());
    } else {
        cmd.stdout(Stdio::null()).stderr(Stdio::piped());
    }
    let mut child = cmd.spawn().unwrap();
    drop(child.stdout.take());
    drop(child.stderr.take());
    child.wait().unwrap().code()
}

#[test]
fn a_closed_stdout_or_stderr_is_not_a_panic() {
    let repo = Repo::new();
    repo.write(
        "serve.sh",
        "sglang serve --model-path m --tp 8\n".repeat(1000),
    );
    // An error written to a closed stderr: still exit 2, not 101.
    assert_eq!(
        run_closed(&repo.root(), &["extract", "/nonexistent.sh"], false),
        Some(2)
    );
    assert_eq!(run_closed(&repo.root(), &["check"], false), Some(2));
    // Output written to a closed stdout: the run's own exit code.
    assert_eq!(
        run_closed(&repo.root(), &["extract", "serve.sh"], true),
        Some(0)
    );
    assert_eq!(
        run_closed(
            &repo.root(),
            &["resolve", "--engine", "sglang", "--", "--model-path", "m"],
            true
        ),
        Some(0)
    );
}

#[test]
fn masking_many_secrets_stays_linear() {
    let repo = Repo::new();
    let mut text = String::new();
    // 1,000 launches (the per-file budget), each with its own secret (each launch is also parsed
    // by its engine to recognise secrets by destination).
    for i in 0..1_000 {
        text.push_str(&format!(
            "sglang serve --model-path m --api-key sec{i:06}\n"
        ));
    }
    repo.write("many.txt", text);
    let o = repo.run(&["extract", "many.txt", "--format", "json"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(!o.stdout.contains("sec0"), "a secret was printed");
}

/// A secret is recognised by the destination the engine's parser puts it in,
/// so an abbreviated or respelled option (`--api-k`, vLLM `--api_k`) is masked
/// too, in `extract` and in `resolve`.
#[test]
fn abbreviated_secret_options_are_masked() {
    let repo = Repo::new();
    repo.write(
        "d.txt",
        "sglang serve --model-path org/m --tp 2 --api-k sk-abbrevsecret1\n",
    );
    for args in [
        &["extract", "d.txt"][..],
        &["extract", "d.txt", "--format", "json"],
        &[
            "resolve",
            "--engine",
            "sglang",
            "--",
            "--model-path",
            "org/m",
            "--api-k",
            "sk-abbrevsecret1",
        ],
        &[
            "resolve",
            "--engine",
            "vllm",
            "--raw",
            "--",
            "org/m",
            "--api_k",
            "sk-abbrevsecret1",
        ],
    ] {
        let o = repo.run(args);
        o.assert_bounded();
        assert_eq!(o.code, Some(0), "{args:?}: {}", o.both());
        assert!(
            !o.stdout.contains("sk-abbrevsecret1") && !o.stderr.contains("sk-abbrevsecret1"),
            "{args:?}: {}",
            o.both()
        );
        assert!(
            o.stdout.contains("****************"),
            "{args:?}: {}",
            o.both()
        );
    }
}

/// Secret-named variables in a launch's environment are masked however the
/// script set them: `read`, `printf -v`, `+=`, `${X:=...}`, `$(...)`, `${X:-...}`.
#[test]
fn secret_env_values_set_indirectly_are_masked() {
    let repo = Repo::new();
    repo.write(
        "e1.sh",
        "read -r HF_TOKEN <<< \"hf_readsecret_AAAA\"\nexport HF_TOKEN\nprintf -v OPENAI_API_KEY '%s' \"sk_printfsecret_BBBB\"\nexport OPENAI_API_KEY\nexport WANDB_API_KEY\nWANDB_API_KEY+=wandb_appendsecret_CCCC\n: ${MY_SECRET:=mysecret_default_DDDD}\nexport MY_SECRET\nX=tok_sub_EEEE\nexport DB_PASSWORD=\"$(echo \"$X\")\"\nexport HF_HUB_TOKEN=${HF_HUB_TOKEN:-hub_default_FFFF}\nsglang serve --model-path org/m --tp 4\n",
    );
    for format in ["human", "json"] {
        let o = repo.run(&["extract", "e1.sh", "--format", format]);
        o.assert_bounded();
        assert_eq!(o.code, Some(0), "{}", o.both());
        for s in ["_AAAA", "_BBBB", "_CCCC", "_DDDD", "_EEEE", "_FFFF"] {
            assert!(!o.stdout.contains(s), "{format} {s}: {}", o.both());
        }
    }
    let o = repo.run(&["extract", "e1.sh"]);
    assert!(o.stdout.contains("env MY_SECRET=*"), "{}", o.both());
}

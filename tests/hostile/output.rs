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
    for format in ["human", "json", "sarif", "github", "markdown", "concise"] {
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

/// A secret whose spelling in the source differs from its parsed value
/// (escapes, inner quotes, `=` with empty quotes, a tab inside quotes, `$'...'`
/// escapes, a value built from two variables, an abbreviated option, a secret
/// env var with inner quotes): the source excerpts of every format mask the
/// word where it is written, so no piece of the value is printed.
#[test]
fn secrets_spelled_unlike_their_value_are_masked_in_excerpts() {
    const PIECES: [&str; 2] = ["Qa7r", "Zq9pLw"];
    let cases: [(&str, &str); 9] = [
        (
            "escaped",
            "sglang serve --model-path m --api-key sk\\-Qa7rZq9pLw --tp 8\n",
        ),
        (
            "quoted",
            "sglang serve --model-path m --api-key sk-\"Qa7r\"Zq9pLw --tp 8\n",
        ),
        (
            "eq",
            "sglang serve --model-path m --api-key=sk\"\"-Qa7rZq9pLw --tp 8\n",
        ),
        (
            "tab",
            "sglang serve --model-path m --api-key \"sk-Qa7r\tZq9pLw\" --tp 8\n",
        ),
        (
            "ansi",
            "sglang serve --model-path m --api-key $'sk-Qa7r\\x41Zq9pLw' --tp 8\n",
        ),
        (
            "vars",
            "A=sk-Qa7r; B=Zq9pLw; sglang serve --model-path m --api-key \"$A$B\" --tp 8\n",
        ),
        (
            "vars-lines",
            "A=sk-Qa7r\nB=Zq9pLw\nsglang serve --model-path m --api-key \"${A}$B\" \\\n  --tp 8\n",
        ),
        (
            "abbrev",
            "sglang serve --model-path m --api-k sk-\"Qa7r\"Zq9pLw --tp 8\n",
        ),
        (
            "env",
            "HF_TOKEN=hf_\"Qa7r\"Zq9pLw sglang serve --model-path m --tp 8\n",
        ),
    ];
    let repo = Repo::new();
    repo.write("recipe.sh", "sglang serve --model-path m --tp 4\n");
    for (name, text) in cases {
        let file = format!("{name}.sh");
        repo.write(&file, text);
        // Every format for one case; the human one (the excerpts) for each.
        let formats: &[&str] = if name == "quoted" {
            &["human", "json", "sarif", "github", "markdown", "concise"]
        } else {
            &["human"]
        };
        for &format in formats {
            let o = repo.run_deterministic(&["compare", &file, "recipe.sh", "--format", format]);
            o.assert_bounded();
            assert_eq!(o.code, Some(1), "{name} {format}: {}", o.both());
            if format == "human" && name != "vars-lines" {
                // The excerpt is shown, with the word masked.
                assert!(o.stdout.contains("--tp 8"), "{name}: {}", o.both());
                assert!(o.stdout.contains("****"), "{name}: {}", o.both());
            }
            for p in PIECES {
                assert!(
                    !o.stdout.contains(p) && !o.stderr.contains(p),
                    "{name} {format}: leaked {p}: {}",
                    o.both()
                );
            }
        }
        for &format in &formats[..formats.len().min(2)] {
            let o = repo.run(&["extract", &file, "--format", format]);
            assert_eq!(o.code, Some(0), "{name}: {}", o.both());
            for p in PIECES {
                assert!(!o.stdout.contains(p), "{name}: leaked {p}: {}", o.both());
            }
        }
    }
    // The same in a Markdown page's code block.
    repo.write(
        "page.md",
        "# Serve\n\n```bash\nsglang serve --model-path m --api-key sk-\"Qa7r\"Zq9pLw --tp 8\n```\n",
    );
    let o = repo.run_deterministic(&["compare", "page.md", "recipe.sh"]);
    assert_eq!(o.code, Some(1), "{}", o.both());
    assert!(o.stdout.contains("page.md:4:"), "{}", o.both());
    for p in PIECES {
        assert!(!o.stdout.contains(p), "page: leaked {p}: {}", o.both());
    }
}

/// A YAML input over one of serde-saphyr's budgets (depth, nodes with aliases
/// expanded, aliases) is an input error in our words, naming the budget and
/// placed at `file:line:col`, in every YAML the run reads: the config file, a
/// vLLM `--config` file, a vLLM recipe and an InferenceX master config.
#[test]
fn yaml_over_a_budget_is_an_error_naming_the_budget() {
    let deep = format!("a: {}{}\n", "[".repeat(100), "]".repeat(100));
    let mut laughs = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        laughs.push_str(&format!(
            "a{i}: &a{i} [{}]\n",
            vec![format!("*a{}", i - 1); 10].join(", ")
        ));
    }
    let aliases = format!("x: &x 1\ny: [{}]\n", vec!["*x"; 60_000].join(","));
    let cases: [(&str, &str, &[&str]); 3] = [
        (&deep, "1:67", &["deeper than 64 levels"]),
        (&laughs, "6:", &["more than 250,000 nodes"]),
        (&aliases, "2:", &["more than 50,000 aliases"]),
    ];
    let repo = Repo::new();
    repo.write("recipe.sh", "vllm serve m\n");
    repo.write("configs/x-master.yaml", "");
    repo.write(
        "taxonomy.yaml",
        include_str!("../../fixtures/vllm-recipes/taxonomy.yaml"),
    );
    for (i, (text, at, words)) in cases.iter().enumerate() {
        let mut words = words.to_vec();
        words.push("YAML budget");
        // A vLLM --config file.
        repo.write(&format!("c{i}.yaml"), text);
        repo.write("docs.sh", format!("vllm serve m --config c{i}.yaml\n"));
        let o = repo.run(&["compare", "docs.sh", "recipe.sh"]);
        o.assert_input_error(&format!("c{i}.yaml:{at}"), &words);
        assert!(!o.stderr.contains("budget breached"), "{}", o.both());
        // A vLLM recipe and an InferenceX master config.
        repo.write("models/org/model.yaml", text);
        let o = repo.run(&[
            "extract",
            "models/org/model.yaml",
            "--select",
            "hardware=h100",
        ]);
        o.assert_input_error(&format!("model.yaml:{at}"), &words);
        repo.write("configs/x-master.yaml", text);
        let o = repo.run(&["extract", "--inferencex", ".", "--entry", "e"]);
        o.assert_input_error(&format!("x-master.yaml:{at}"), &words);
    }
    // The config file (typed: its lists of strings carry the load).
    let many = format!("allow-hosts: [{}]\n", vec!["h.example"; 260_000].join(","));
    let aliased = format!(
        "allow-hosts: [&x h.example, {}]\n",
        vec!["*x"; 60_000].join(",")
    );
    for (text, words) in [
        (many, "more than 250,000 nodes"),
        (aliased, "more than 50,000 aliases"),
    ] {
        repo.write(".recipe-drift.yaml", text);
        let o = repo.run(&["check"]);
        o.assert_input_error(".recipe-drift.yaml:1:", &[words, "YAML budget"]);
    }
}

/// Commands printed as text (`extract --all-selections` of a generator and
/// of a vLLM recipe, whose arguments are YAML list items) mask the secret
/// words where they are written, however they are quoted.
#[test]
fn printed_commands_mask_secret_words_as_written() {
    const PIECES: [&str; 2] = ["Qa7r", "Zq9pLw"];
    let repo = Repo::new();
    repo.write(
        "gen.jsx",
        "export const Gen = () => {\n  return <pre>{\"sglang serve --model-path m --api-key sk-\\\"Qa7r\\\"Zq9pLw --tp 8\"}</pre>;\n};\n",
    );
    repo.write(
        "taxonomy.yaml",
        include_str!("../../fixtures/vllm-recipes/taxonomy.yaml"),
    );
    let model = include_str!("../../fixtures/vllm-recipes/models/pebble/Pebble-8B-Instruct.yaml")
        .replacen(
            "    - \"--enforce-eager\"\n",
            "    - \"--enforce-eager\"\n    - \"--api-key\"\n    - 'sk-\"Qa7r\"Zq9pLw'\n",
            1,
        );
    assert!(model.contains("Qa7r"));
    repo.write("models/p/P.yaml", model);
    for file in ["gen.jsx", "models/p/P.yaml"] {
        for format in ["human", "json"] {
            let o =
                repo.run_deterministic(&["extract", file, "--all-selections", "--format", format]);
            o.assert_bounded();
            assert_eq!(o.code, Some(0), "{file}: {}", o.both());
            assert!(o.stdout.contains("--api-key"), "{file}: {}", o.both());
            for p in PIECES {
                assert!(
                    !o.stdout.contains(p),
                    "{file} {format}: leaked {p}: {}",
                    o.both()
                );
            }
        }
    }
}

/// A config linking `docs.md` to each recipe, one link per recipe.
fn config(recipes: &[&str]) -> String {
    let mut s = String::from("links:\n");
    for (i, r) in recipes.iter().enumerate() {
        s.push_str(&format!(
            "  - name: l{i}\n    docs: {{file: docs.md, hardware: b200}}\n    recipe: {{file: {r}, hardware: b200}}\n"
        ));
    }
    s
}

const FORMATS: [&str; 6] = ["human", "json", "sarif", "github", "markdown", "concise"];

/// Values are masked where a format renders them, before the format's own
/// escaping: GitHub's `%25`, Markdown's `\|` in a table cell and the shell
/// quoting of `extract` cannot turn a secret into a spelling the masker
/// misses.
#[test]
fn values_are_masked_before_a_format_escapes_them() {
    let repo = Repo::new();
    repo.write(
        "docs.md",
        "```bash\nsglang serve --model-path m --tp 2\n```\n",
    );
    repo.write(
        "pct.sh",
        "sglang serve --model-path m --tp 2 --hf-token 'zz%SECRETPCT99' --bogus-opt\n",
    );
    // The secret is also the served model name, so it reaches a table cell.
    repo.write(
        "pipe.sh",
        "sglang serve --model-path m --tp 2 --api-key 'cc|PIPESECRET' --served-model-name 'cc|PIPESECRET'\n",
    );
    repo.write(".recipe-drift.yaml", config(&["pct.sh", "pipe.sh"]));
    for format in FORMATS {
        let o = repo.run_deterministic(&["check", "--format", format]);
        o.assert_bounded();
        // The refused `--bogus-opt` is a finding (RD006), not an input error.
        assert_eq!(o.code, Some(1), "{format}: {}", o.both());
        for s in ["SECRETPCT", "PIPESECRET", "%25SECRET"] {
            assert!(!o.both().contains(s), "{format} leaked {s}: {}", o.both());
        }
        // The refusal is placed at the unrecognised argument.
        assert!(o.both().contains("pct.sh"), "{format}: {}", o.both());
    }
    let o = repo.run_deterministic(&["check", "--format", "github"]);
    assert!(
        o.stdout.contains(
            "::error file=pct.sh,line=1,col=36,title=recipe-drift%3A [RD006 startup-error] the recipe command would not start::"
        ),
        "{}",
        o.both()
    );
    repo.write(
        "q.sh",
        "sglang serve --model-path m --tp 2 --api-key \"abc'QUOTESECRET\"\n",
    );
    for format in ["human", "json"] {
        let o = repo.run_deterministic(&["extract", "q.sh", "--format", format]);
        assert_eq!(o.code, Some(0), "{}", o.both());
        assert!(!o.both().contains("QUOTESECRET"), "{}", o.both());
        let at = if format == "json" {
            "\"col\": 46"
        } else {
            "q.sh:1:46"
        };
        assert!(o.stdout.contains(at), "{}", o.both());
    }
}

/// A value derived from a secret (a prefix or a suffix stripped, a
/// substitution, upper-cased) is masked wherever it is printed: every run of
/// 8 or more characters it shares with a secret.
#[test]
fn values_derived_from_a_secret_are_masked() {
    let repo = Repo::new();
    repo.write(
        "derive.sh",
        "export HF_TOKEN=hf_AbCdEfGhIjKlMnOp1234\nA=${HF_TOKEN#hf_}\nB=${HF_TOKEN%1234}\nC=${HF_TOKEN/hf_/}\nD=${HF_TOKEN^^}\n\
         sglang serve --model-path \"$A\" --tp 2 --served-model-name \"$B\" --host \"$C\" --chat-template \"$D\"\n",
    );
    repo.write(
        "docs.md",
        "```bash\nsglang serve --model-path m --tp 2\n```\n",
    );
    let leaks = |o: &Outcome| {
        ["AbCdEfGh", "ABCDEFGH", "MnOp1234", "MNOP1234", "IjKlMnOp"]
            .iter()
            .any(|s| o.both().contains(s))
    };
    for format in ["human", "json"] {
        let o = repo.run_deterministic(&["extract", "derive.sh", "--format", format]);
        assert_eq!(o.code, Some(0), "{}", o.both());
        assert!(!leaks(&o), "{format}: {}", o.both());
        // The words are there, masked, at their positions.
        let at = if format == "json" {
            "\"line\": 2"
        } else {
            "derive.sh:2:3"
        };
        assert!(o.stdout.contains(at), "{}", o.both());
    }
    for format in FORMATS {
        let o = repo.run_deterministic(&[
            "compare",
            "docs.md",
            "derive.sh",
            "--hardware",
            "b200",
            "--format",
            format,
        ]);
        o.assert_bounded();
        assert!(matches!(o.code, Some(0 | 1)), "{}", o.both());
        assert!(!leaks(&o), "{format}: {}", o.both());
    }
}

/// A newline in a value cannot start a line of the report: no workflow
/// command (`::error ...`) at column 0 of the Action log, no forged `link:`
/// line, no forged Markdown table row, no @-mention, in any format; the
/// report's own lines are unchanged.
#[test]
fn values_cannot_start_a_line_of_the_report() {
    let repo = Repo::new();
    repo.write(
        "docs.md",
        "```bash\nsglang serve --model-path m --served-model-name a --tp 2\n```\n",
    );
    repo.write(
        "recipe.sh",
        "sglang serve --model-path m --served-model-name $'b\\n::error file=docs.md,line=1::INJECTED\\nlink: forged  [ok]\\n| forged | row |\\n@octocat\\r\\n' --tp 2\n",
    );
    repo.write(
        "recipe2.sh",
        "sglang serve --model-path m --tp 2 --bogus $'x\\n::error file=docs.md,line=1::INJECTED\\n'\n",
    );
    repo.write(".recipe-drift.yaml", config(&["recipe.sh", "recipe2.sh"]));
    for format in FORMATS {
        let o = repo.run_deterministic(&["check", "--format", format]);
        o.assert_bounded();
        // Drift, and recipe2's refused `--bogus` (a finding, RD006).
        assert_eq!(o.code, Some(1), "{}", o.both());
        for line in o.stdout.lines().chain(o.stderr.lines()) {
            assert!(
                !line.contains("INJECTED") || !line.starts_with("::error file=docs.md,line=1"),
                "{format}: {line}"
            );
            for forged in ["link: forged", "| forged", "@octocat", "##["] {
                assert!(!line.starts_with(forged), "{format}: {line}");
            }
        }
        // Our own workflow commands are the only ones: one per finding or error.
        if format == "github" {
            let commands: Vec<&str> = o.stdout.lines().filter(|l| l.starts_with("::")).collect();
            // recipe2's refused word is set aside and the rest compared: its
            // local model path against the docs' name is a third finding.
            assert_eq!(commands.len(), 3, "{}", o.both());
            assert!(commands[0].starts_with("::error file=docs.md,line=2,col=29,"));
            assert!(commands[1].starts_with("::error file=recipe2.sh,line=1,col=36,"));
            assert!(commands[2].starts_with("::error file=docs.md,line=2,col=29,"));
        }
        if format == "markdown" {
            // Every `@` is in a code span: GitHub notifies no one.
            let plain: String = o.stdout.split('`').step_by(2).collect();
            assert!(!plain.contains('@'), "{}", o.stdout);
        }
        if format == "human" {
            assert!(o.stdout.contains("\\u000a::error"), "{}", o.both());
        }
    }
}

/// A planted "secret" that is the report's own text (`::error file`, `MAJOR
/// drift`, a JSON key and its colon) masks nothing of the report: masking
/// applies to input values where they are rendered, never to the report's
/// structure; JSON and SARIF always parse.
#[test]
fn planted_secrets_cannot_erase_the_report() {
    let repo = Repo::new();
    repo.write(
        "docs.md",
        "```bash\nsglang serve --model-path m --tp 4\n```\n",
    );
    repo.write(
        "recipe.sh",
        "sglang serve --model-path m --tp 8 --host 0.0.0.0 --api-key 'recipe-drift%3A [contradicts]'\n\
         # --api-key \"::error file\"\n# --api-key \"MAJOR drift\"\n# --api-key 'schema_version\": 1'\n\
         # --api-key 'version\": \"2.1.0'\n# --api-key 'tp_size differs'\nexport X_TOKEN='\"links\": ['\n",
    );
    repo.write(".recipe-drift.yaml", config(&["recipe.sh"]));
    for format in FORMATS {
        let o = repo.run_deterministic(&["check", "--format", format]);
        o.assert_bounded();
        assert_eq!(o.code, Some(1), "{format}: {}", o.both());
        match format {
            "github" => {
                assert!(
                    o.stdout.starts_with(
                        "::error file=docs.md,line=2,col=29,title=recipe-drift%3A [RD001 contradicts] tp_size (MAJOR)::tp_size differs: docs 4 vs recipe 8"
                    ),
                    "{}",
                    o.both()
                );
                assert!(o.stdout.contains("1 with MAJOR drift"), "{}", o.both());
            }
            "json" => {
                let doc: serde_json::Value =
                    serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", o.stdout));
                assert_eq!(doc["schema_version"], 1);
                assert_eq!(doc["links"][0]["findings"][0]["kind"], "contradicts");
            }
            "sarif" => {
                let doc: serde_json::Value =
                    serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", o.stdout));
                assert_eq!(doc["version"], "2.1.0");
                assert_eq!(doc["runs"][0]["tool"]["driver"]["name"], "recipe-drift");
            }
            "markdown" => {
                assert!(
                    o.stdout
                        .contains("## recipe-drift: MAJOR drift in 1 of 1 link")
                );
                assert!(
                    o.stdout
                        .contains("| `tp_size` | **MAJOR** | RD001 contradicts | `4` | `8` |")
                );
            }
            _ => {
                assert!(o.stdout.contains("1 with MAJOR drift"), "{}", o.both());
                assert!(o.stdout.contains("tp_size differs"), "{}", o.both());
            }
        }
    }
}

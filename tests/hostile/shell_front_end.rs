//! Issue 24, class 5: one shell front end. A page's code block is read by the
//! bash evaluator, as bash reads it, not by a lexer with semantics of its
//! own. Each page below holds one construct the old plain-command lexer read
//! differently from bash; the expected reading was checked with real bash
//! (`bash -c` on the block's text with a stub `sglang` printing its argv and
//! environment). The page's framing (a `$ ` prompt, a blockquote's `> `, a
//! placeholder, output lines) is taken off before the evaluator and every
//! position stays the page's.

use super::*;

/// The launches `extract --format json` reads from a page holding `block`
/// in a `bash` fence (its first line is line 4 of the page).
fn read(block: &str) -> Vec<serde_json::Value> {
    read_page(&format!("# Page\n\n```bash\n{block}\n```\n"))
}

fn read_page(page: &str) -> Vec<serde_json::Value> {
    let repo = Repo::new();
    repo.write("docs/page.md", page);
    let o = repo.run_deterministic(&["extract", "--format", "json", "docs/page.md"]);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(0), "{}", o.both());
    let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
    v["launches"].as_array().cloned().unwrap_or_default()
}

/// The argv words of a launch.
fn argv(l: &serde_json::Value) -> Vec<String> {
    l["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["text"].as_str().unwrap().to_string())
        .collect()
}

/// The value of an env entry of a launch (`None`: not in its environment).
fn env(l: &serde_json::Value, name: &str) -> Option<String> {
    l["env"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .map(|e| e["value"].as_str().unwrap_or("").to_string())
}

/// The one launch of a block.
fn one(block: &str) -> serde_json::Value {
    let ls = read(block);
    assert_eq!(ls.len(), 1, "{ls:?}");
    ls[0].clone()
}

#[test]
fn export_n_takes_the_export_back() {
    let l =
        one("export SGLANG_USE_AITER=1\nexport -n SGLANG_USE_AITER\nsglang serve --model-path m");
    assert_eq!(env(&l, "SGLANG_USE_AITER"), None, "{l}");
}

#[test]
fn declare_plus_x_unexports_and_minus_x_exports() {
    let l =
        one("export SGLANG_USE_AITER=1\ndeclare +x SGLANG_USE_AITER\nsglang serve --model-path m");
    assert_eq!(env(&l, "SGLANG_USE_AITER"), None, "{l}");
    let l = one("declare -x SGLANG_USE_AITER=1\nsglang serve --model-path m");
    assert_eq!(env(&l, "SGLANG_USE_AITER").as_deref(), Some("1"), "{l}");
}

#[test]
fn typeset_x_exports() {
    let l = one("typeset -x SGLANG_USE_AITER=1\nsglang serve --model-path m");
    assert_eq!(env(&l, "SGLANG_USE_AITER").as_deref(), Some("1"), "{l}");
}

#[test]
fn export_plus_equals_appends() {
    let l =
        one("export ARGS=\"--tp 2\"\nexport ARGS+=\" --dp 2\"\nsglang serve --model-path m $ARGS");
    assert_eq!(argv(&l), ["--model-path", "m", "--tp", "2", "--dp", "2"]);
}

#[test]
fn an_export_in_a_pipeline_stays_in_its_subshell() {
    let l = one(
        "export SGLANG_USE_AITER=1\ntrue | export SGLANG_USE_AITER=0\nsglang serve --model-path m",
    );
    assert_eq!(env(&l, "SGLANG_USE_AITER").as_deref(), Some("1"), "{l}");
}

#[test]
fn an_export_in_the_background_stays_in_its_subshell() {
    let l =
        one("export SGLANG_USE_AITER=1\nexport SGLANG_USE_AITER=0 &\nsglang serve --model-path m");
    assert_eq!(env(&l, "SGLANG_USE_AITER").as_deref(), Some("1"), "{l}");
}

#[test]
fn a_readonly_variable_keeps_its_value() {
    let l = one("TP=2\nreadonly TP\nTP=8\nsglang serve --model-path m --tp $TP");
    assert_eq!(argv(&l), ["--model-path", "m", "--tp", "2"]);
}

#[test]
fn ansi_c_quotes_decode_hex_escapes() {
    let l = one("sglang serve --model-path m $'\\x2d-tp' 4");
    assert_eq!(argv(&l), ["--model-path", "m", "--tp", "4"]);
}

#[test]
fn locale_quotes_are_double_quotes() {
    let l = one("sglang serve --model-path m $\"--tp\" 4");
    assert_eq!(argv(&l), ["--model-path", "m", "--tp", "4"]);
}

#[test]
fn quoted_at_with_no_parameters_joins_the_rest_of_its_word() {
    let l = one("sglang serve --model-path m --tp \"$@\"4");
    assert_eq!(argv(&l), ["--model-path", "m", "--tp", "4"]);
}

#[test]
fn dollar_bracket_is_arithmetic() {
    let l = one("sglang serve --model-path m --tp $[2*2]");
    assert_eq!(argv(&l), ["--model-path", "m", "--tp", "4"]);
}

#[test]
fn dollar_dash_is_the_shell_flags_not_text() {
    let l = one("sglang serve --model-path m --served-model-name x$-");
    let name = &l["argv"][3];
    assert_ne!(name["text"], "x$-", "{l}");
    assert_eq!(name["provenance"]["kind"], "unknown", "{l}");
}

#[test]
fn a_tilde_is_the_home_folder() {
    let l = one("sglang serve --model-path ~/models/m");
    let path = &l["argv"][1];
    assert_eq!(path["provenance"]["kind"], "unknown", "{l}");
    assert!(
        path["provenance"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains('~')),
        "{l}"
    );
}

#[test]
fn braces_expand() {
    let l = one("sglang serve --model-path m --cuda-graph-bs {8,16}");
    assert_eq!(
        argv(&l),
        ["--model-path", "m", "--cuda-graph-bs", "8", "16"]
    );
}

/// The framing a page adds is taken off before bash reads the block, and
/// positions stay the page's: a console block in a blockquote, with
/// prompts, a `> ` continuation prompt, an output line and a placeholder.
#[test]
fn framing_is_taken_off_and_positions_stay_the_pages() {
    let page = "# Page\n\n> ```console\n> $ export SGLANG_USE_AITER=1\n> $ sglang serve --model-path <model> \\\n> > --tp 4\n> INFO started --tp 8\n> $ echo done\n> ```\n";
    let ls = read_page(page);
    assert_eq!(ls.len(), 1, "{ls:?}");
    let l = &ls[0];
    assert_eq!(argv(l), ["--model-path", "<model>", "--tp", "4"]);
    assert_eq!(env(l, "SGLANG_USE_AITER").as_deref(), Some("1"), "{l}");
    let at = |i: usize| {
        let s = &l["argv"][i]["span"];
        (s["line"].as_u64().unwrap(), s["col"].as_u64().unwrap())
    };
    assert_eq!(at(0), (5, 18));
    assert_eq!(at(1), (5, 31));
    assert_eq!(at(2), (6, 5));
    assert_eq!(l["launcher"][0]["span"]["col"], 5, "{l}");
    assert!(
        l["argv"][1]["provenance"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("placeholder")),
        "{l}"
    );
}

/// Bad shell in a page block is still exit 2 at the page's file:line:col.
#[test]
fn a_quote_that_never_closes_is_placed_on_the_page() {
    let repo = Repo::new();
    repo.write(
        "docs/page.md",
        "# Page\n\n> ```bash\n> $ sglang serve --model-path 'm \\\n>   --tp 2\n> ```\n",
    );
    let o = repo.run_deterministic(&["extract", "docs/page.md"]);
    o.assert_input_error("docs/page.md:4:31", &["unterminated single quote"]);
}

/// A block reads no file: `source` of a file in the repository is code that
/// is not read (its variables are unknown), never read from the page.
#[test]
fn a_block_reads_no_file() {
    let repo = Repo::new();
    repo.write("docs/env.sh", "export TP=8\n");
    repo.write(
        "docs/page.md",
        "```bash\nsource docs/env.sh\nsglang serve --model-path m --tp $TP\n```\n",
    );
    let o = repo.run_deterministic(&["extract", "--format", "json", "docs/page.md"]);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(0), "{}", o.both());
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let tp = &v["launches"][0]["argv"][3];
    assert_eq!(tp["provenance"]["kind"], "unknown", "{tp}");
}

/// A block that names no launcher and builds no word at run time cannot
/// start a server: when it is not bash either (a listing of changed flags
/// such as a generator's "what changed" dialog prints, program output), it
/// holds no command and is no input error. The same text beside a launcher
/// word is still an error at its place: it could be a broken command.
#[test]
fn text_that_is_not_bash_and_names_no_launcher_is_no_command() {
    let listing = "# Page\n\n```bash\n+ --tp 4 (\n- --tp 8 )\n```\n\n```bash\nsglang serve --model-path m --tp 2\n```\n";
    let launches = read_page(listing);
    assert_eq!(launches.len(), 1, "{launches:?}");
    assert_eq!(argv(&launches[0]), ["--model-path", "m", "--tp", "2"]);
    let repo = Repo::new();
    repo.write(
        "docs/page.md",
        "# Page\n\n```bash\nsglang serve --model-path m --tp (4\n```\n",
    );
    let o = repo.run_deterministic(&["extract", "docs/page.md"]);
    o.assert_input_error("docs/page.md:4:", &["bash syntax error"]);
    // A word built at run time could spell a launcher: still an error.
    repo.write(
        "docs/page.md",
        "# Page\n\n```bash\n$(printf sgl)ang serve --tp (4\n```\n",
    );
    let o = repo.run_deterministic(&["extract", "docs/page.md"]);
    o.assert_input_error("docs/page.md:4:", &["bash syntax error"]);
}

/// A page's block that runs `bash FILE` names a file of the reader's
/// checkout, not of the docs: the script is listed as not read (it may start
/// a server), and the page's other commands are still read.
#[test]
fn a_script_a_block_runs_is_listed_as_not_read() {
    let repo = Repo::new();
    repo.write(
        "docs/page.md",
        "# Page\n\n```bash\nbash benchmark/download_data.sh\nsglang serve --model-path m --tp 2\n```\n",
    );
    let o = repo.run_deterministic(&["extract", "docs/page.md"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(
        o.stdout
            .contains("docs/page.md:4:6: `bash` runs a script recipe-drift cannot read"),
        "{}",
        o.both()
    );
    assert!(o.stdout.contains("launch 1: sglang serve"), "{}", o.both());
}

/// A diff listing of a command against a base (a generator's "changes"
/// view, every line marked `+ `, `- ` or two blanks) shows its new side:
/// the removed `--tp 8` and `--mamba-scheduler-strategy` are not the
/// reader's command, the added `--tp 4` is, and the continuation runs
/// through the removed lines. Read as bash, the markers would be words
/// (`+`, `-`) that the engine refuses.
#[test]
fn a_diff_listing_is_read_as_its_new_side() {
    let l = one(
        "  sglang serve \\\n-   --tp 8 \\\n-   --mamba-scheduler-strategy extra_buffer \\\n+   --tp 4 \\\n    --model-path org/m \\\n+   --kv-cache-dtype fp8_e4m3\n-   --port 1",
    );
    assert_eq!(
        argv(&l),
        [
            "--tp",
            "4",
            "--model-path",
            "org/m",
            "--kv-cache-dtype",
            "fp8_e4m3"
        ]
    );
    assert_eq!(l["argv"][0]["span"]["line"], 7, "{l:#}");
    assert_eq!(l["argv"][0]["span"]["col"], 5, "{l:#}");
}

// Issue 24, fresh adversary (class 5). Each block below was run by real bash
// (`bash -c` with a stub `sglang` function printing its argv); the argv is
// bash's. recipe-drift must read the same words, or mark a word it cannot
// compute as unknown: never a different value.

/// The argv bash gives `sglang` for each block (each checked with real bash).
const BASH_READINGS: &[(&str, &[&str])] = &[
    (
        "set -- --tp 8\nsglang serve --model-path m \"$@\"",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "IFS=,\nA=\"--tp,8\"\nsglang serve --model-path m $A",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "f() { sglang serve --model-path m \"$@\"; }\nf --tp 8",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "TP=8\nTP=4 sglang serve --model-path m --tp $TP",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        ": ${TP:=8}\nsglang serve --model-path m --tp $TP",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "X=4\nsglang serve --model-path m --tp ${X/4/8}",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "sglang serve --model-path m $(cat <<EOF\n--tp 8\nEOF\n)",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "eval \"sglang serve --model-path m --tp 8\"",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "printf -v TP %d 8\nsglang serve --model-path m --tp $TP",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "read TP <<< 8\nsglang serve --model-path m --tp $TP",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "declare -i TP\nTP=4+4\nsglang serve --model-path m --tp $TP",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "ARGS=(--tp 4)\nARGS+=(--tp 8)\nsglang serve --model-path m \"${ARGS[@]}\"",
        &["--model-path", "m", "--tp", "4", "--tp", "8"],
    ),
    (
        "TP=8\nunset TP\nsglang serve --model-path m --tp ${TP:-4}",
        &["--model-path", "m", "--tp", "4"],
    ),
    (
        "if false; then TP=4; else TP=8; fi\nsglang serve --model-path m --tp $TP",
        &["--model-path", "m", "--tp", "8"],
    ),
    // A `\` before a trailing blank escapes the blank, not the newline: the
    // next line is a command of its own.
    (
        "sglang serve --model-path m \\ \n--tp 8",
        &["--model-path", "m", " "],
    ),
    (
        "sglang serve --model-path m --tp $((010))",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "X=abcdefgh\nsglang serve --model-path m --tp ${#X}",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "(export TP=8)\nsglang serve --model-path m --tp ${TP:-4}",
        &["--model-path", "m", "--tp", "4"],
    ),
    (
        "declare -n ref=TP\nref=8\nsglang serve --model-path m --tp $TP",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "sglang serve --model-path m --tp `echo 8`",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "sglang serve --model-path m #--tp 8",
        &["--model-path", "m"],
    ),
    (
        "sglang serve --model-path m#--tp 8",
        &["--model-path", "m#--tp", "8"],
    ),
    (
        "X=\"--tp 8\"\nsglang serve --model-path m \"$X\"",
        &["--model-path", "m", "--tp 8"],
    ),
    (
        "{ sglang serve --model-path m --tp 8; }",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "false && sglang serve --model-path m --tp 8\nsglang serve --model-path m --tp 4",
        &["--model-path", "m", "--tp", "4"],
    ),
    (
        "for tp in 8; do sglang serve --model-path m --tp $tp; done",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "case x in x) TP=8;; *) TP=4;; esac\nsglang serve --model-path m --tp $TP",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "TP=4\n[[ 1 -eq 1 ]] && TP=8\nsglang serve --model-path m --tp $TP",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "sglang serve --model-path m --tp $'\\u0038'",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "sglang serve --model-path m --tp $'\\70'",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "sglang serve --model-path m --t\\p 8",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "TP=4; f() { local TP=8; }; f; sglang serve --model-path m --tp $TP",
        &["--model-path", "m", "--tp", "4"],
    ),
    (
        "TP=4; f() { TP=8; }; f | cat; sglang serve --model-path m --tp $TP",
        &["--model-path", "m", "--tp", "4"],
    ),
    (
        "TP=4; TP=8 true; sglang serve --model-path m --tp $TP",
        &["--model-path", "m", "--tp", "4"],
    ),
    (
        "TP=4; TP=8 :; sglang serve --model-path m --tp $TP",
        &["--model-path", "m", "--tp", "4"],
    ),
    (
        "TP=4; f() { :; }; TP=8 f; sglang serve --model-path m --tp $TP",
        &["--model-path", "m", "--tp", "4"],
    ),
    (
        "shopt -s expand_aliases; alias s='sglang serve --model-path m --tp 8'\ns",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "a=([1]=--tp [0]=8); sglang serve --model-path m \"${a[1]}\" \"${a[0]}\"",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "x=; sglang serve --model-path m --tp \"${x-8}\"",
        &["--model-path", "m", "--tp", ""],
    ),
    (
        "set -- a b c d e f g h i 8; sglang serve --model-path m --tp ${10}",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "set -- a b c d e f g h i 8; sglang serve --model-path m --tp $10",
        &["--model-path", "m", "--tp", "a0"],
    ),
];

#[test]
fn adversary_blocks_are_read_as_real_bash_runs_them() {
    for (block, want) in BASH_READINGS {
        let l = one(block);
        assert_eq!(&argv(&l), want, "{block}\n{l}");
        for w in l["argv"].as_array().unwrap() {
            assert_ne!(w["provenance"]["kind"], "unknown", "{block}\n{l}");
        }
    }
}

/// Expansions the evaluator does not compute are unknown words, never a
/// value bash would not give (bash's value in the comment).
#[test]
fn adversary_expansions_not_computed_are_unknown_never_wrong() {
    for (block, bash_value) in [
        (
            "Q=FP8\nsglang serve --model-path m --quantization ${Q,,}",
            "fp8",
        ),
        ("let TP=4*2\nsglang serve --model-path m --tp $TP", "8"),
        ("X=1234\nsglang serve --model-path m --tp ${X:3:1}", "4"),
        ("N=TP\nTP=8\nsglang serve --model-path m --tp ${!N}", "8"),
        (
            "declare -A a=([k]=8); sglang serve --model-path m --tp ${a[k]}",
            "8",
        ),
    ] {
        let l = one(block);
        let w = &l["argv"][3];
        assert!(
            w["text"] == bash_value || w["provenance"]["kind"] == "unknown",
            "{block}\n{l}"
        );
    }
    // `"${a[@]:1}"` is two words in bash (`--tp 8`): unknown, not one word.
    let l = one("a=(x --tp 8); sglang serve --model-path m \"${a[@]:1}\"");
    let words = l["argv"].as_array().unwrap();
    assert!(
        argv(&l) == ["--model-path", "m", "--tp", "8"]
            || words[2..]
                .iter()
                .all(|w| w["provenance"]["kind"] == "unknown"),
        "{l}"
    );
}

/// Console framing the adversary checked and recipe-drift reads right: a
/// `root@host:~# ` prompt, a continuation with no prompt, an output line
/// after a prompted command, and a prompt-less second line of a `bash`
/// block that starts with an option (its own command in bash).
#[test]
fn adversary_console_framing_read_right() {
    for (page, want) in [
        (
            "```console\nroot@host:~# sglang serve --model-path m --tp 8\n```\n",
            &["--model-path", "m", "--tp", "8"][..],
        ),
        (
            "```console\n$ sglang serve --model-path m \\\n--tp 8\n```\n",
            &["--model-path", "m", "--tp", "8"][..],
        ),
        (
            "```console\n$ sglang serve --model-path m --tp 4\n--tp 8\n```\n",
            &["--model-path", "m", "--tp", "4"][..],
        ),
        (
            "```console\n$ TP=8\n$ sglang serve --model-path m --tp $TP\n```\n",
            &["--model-path", "m", "--tp", "8"][..],
        ),
        (
            "```bash\n$ sglang serve --model-path m --tp 4\n$ --tp 8\n```\n",
            &["--model-path", "m", "--tp", "4"][..],
        ),
    ] {
        let ls = read_page(page);
        assert_eq!(ls.len(), 1, "{page}\n{ls:?}");
        assert_eq!(argv(&ls[0]), want, "{page}");
    }
}

/// In a console transcript, `> ` is bash's PS2 on every continuation line,
/// inside an open quote too: the reader typed `8`, so `$A` is `--tp 8`.
#[test]
fn adversary_console_continuation_prompt_inside_a_quote() {
    let ls =
        read_page("```console\n$ export A=\"--tp\n> 8\"\n$ sglang serve --model-path m $A\n```\n");
    assert_eq!(ls.len(), 1, "{ls:?}");
    assert_eq!(argv(&ls[0]), ["--model-path", "m", "--tp", "8"]);
}

/// A here-document typed at an interactive prompt shows `> ` on its lines:
/// the transcript is valid (TP=8), not a bash syntax error.
#[test]
fn adversary_console_heredoc_with_continuation_prompts() {
    let ls = read_page(
        "```console\n$ TP=$(cat <<EOF\n> 8\n> EOF\n> )\n$ sglang serve --model-path m --tp $TP\n```\n",
    );
    assert_eq!(ls.len(), 1, "{ls:?}");
    assert_eq!(argv(&ls[0]), ["--model-path", "m", "--tp", "8"]);
}

/// A virtualenv prompt `(venv) $ ` is a prompt, as `user@host:~$ ` is.
#[test]
fn adversary_console_venv_prompt() {
    let ls = read_page("```console\n(venv) $ sglang serve --model-path m --tp 8\n```\n");
    assert_eq!(ls.len(), 1, "{ls:?}");
    assert_eq!(argv(&ls[0]), ["--model-path", "m", "--tp", "8"]);
}

/// `<node0-ip>:5000` and `<ip>:30000` are docs placeholders the reader
/// fills in (the multi-node pages' own shape), not redirections that eat
/// the option's value: the launch keeps `--tp 16` and is no startup error.
#[test]
fn adversary_placeholder_with_a_port_is_one_word() {
    for (opt, value) in [
        ("--dist-init-addr", "<node0-ip>:5000"),
        ("--host", "<ip>:30000"),
        // Real bash reads this as `<ip`, `>:`, `<port`, `> --tp`: the
        // next option is eaten as a file name.
        ("--dist-init-addr", "<ip>:<port>"),
    ] {
        let l = one(&format!(
            "sglang serve --model-path m {opt} {value} --tp 16 --nnodes 2"
        ));
        assert_eq!(
            argv(&l),
            [
                "--model-path",
                "m",
                opt,
                value,
                "--tp",
                "16",
                "--nnodes",
                "2"
            ],
            "{l}"
        );
        assert_eq!(l["argv"][3]["provenance"]["kind"], "unknown", "{l}");
    }
}

/// More of bash's semantics, each block checked with real bash as above:
/// arithmetic, attributes, traps, pipelines' subshells, functions' dynamic
/// scope, `declare`'s locality, aliases (not expanded in a script).
const BASH_READINGS_2: &[(&str, &[&str])] = &[
    (
        "trap 'sglang serve --model-path m --tp 8' EXIT\necho hi",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "TP='4+4'\nsglang serve --model-path m --tp $((TP))",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "declare -u Q=fp8\nsglang serve --model-path m --quantization $Q",
        &["--model-path", "m", "--quantization", "FP8"],
    ),
    (
        "declare -l Q=FP8\nsglang serve --model-path m --quantization $Q",
        &["--model-path", "m", "--quantization", "fp8"],
    ),
    (
        "TP=0x8\nsglang serve --model-path m --tp $((TP))",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "set -f\nsglang serve --model-path m --cuda-graph-bs *",
        &["--model-path", "m", "--cuda-graph-bs", "*"],
    ),
    (
        "TP=7\n((TP++))\nsglang serve --model-path m --tp $TP",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "TP=8\ncat <<'EOF' > /dev/null\n$TP\nEOF\nsglang serve --model-path m --tp $TP",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "X=8; sglang serve --model-path m --tp \"$(echo \"$X\")\"",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "sglang serve --model-path m --tp $(printf '%d' 010)",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "sglang serve --model-path m --tp $(( 2#1000 ))",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "sglang serve --model-path m --tp $(( 8#10 ))",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "sglang serve --model-path m --tp $(( 1 ? 8 : 4 ))",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "A=(8 4); sglang serve --model-path m --tp $A",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "set -- 4 8; shift; sglang serve --model-path m --tp $1",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "X=abc8; sglang serve --model-path m --tp ${X#abc}",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "X=8.0; sglang serve --model-path m --tp ${X%.*}",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "X=8.0.0; sglang serve --model-path m --tp ${X%%.*}",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "X=8; unset -v X; sglang serve --model-path m --tp ${X-4}",
        &["--model-path", "m", "--tp", "4"],
    ),
    (
        "X=8; unset -f X; sglang serve --model-path m --tp ${X-4}",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "X=4; { X=8; } | cat; sglang serve --model-path m --tp $X",
        &["--model-path", "m", "--tp", "4"],
    ),
    (
        "shopt -s lastpipe; X=4; echo 8 | read X; sglang serve --model-path m --tp $X",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "X=4; echo 8 | read X; sglang serve --model-path m --tp $X",
        &["--model-path", "m", "--tp", "4"],
    ),
    (
        "X=4; for X in; do :; done; sglang serve --model-path m --tp $X",
        &["--model-path", "m", "--tp", "4"],
    ),
    (
        "IFS=8; X=a8b; sglang serve --model-path m --tp 4 --served-model-name $X",
        &[
            "--model-path",
            "m",
            "--tp",
            "4",
            "--served-model-name",
            "a",
            "b",
        ],
    ),
    (
        "sglang serve --model-path m --tp 4 && exit 0\nsglang serve --model-path m --tp 8",
        &["--model-path", "m", "--tp", "4"],
    ),
    (
        "f() { echo $TP; }\ng() { local TP=8; f; }\nTP=4; sglang serve --model-path m --tp $(g)",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "(tp() { echo 4; })\ntp() { echo 8; } 2>/dev/null\nsglang serve --model-path m --tp $(tp)",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "tpf() { echo 4; }\ntpf() { echo 8; }\nsglang serve --model-path m --tp $(tpf)",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "tpf() { TP=8; return; TP=4; }\ntpf; sglang serve --model-path m --tp $TP",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "f() { local -n r=$1; r=8; }\nf TP; sglang serve --model-path m --tp $TP",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "f() { declare TP=8; }\nTP=4; f; sglang serve --model-path m --tp $TP",
        &["--model-path", "m", "--tp", "4"],
    ),
    (
        "f() { declare -g TP=8; }\nTP=4; f; sglang serve --model-path m --tp $TP",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "f() { local TP; TP=8; g; }; g() { TP2=$TP; }\nf; sglang serve --model-path m --tp ${TP2:-4}",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "enable -n echo; sglang serve --model-path m --tp $(echo 8)",
        &["--model-path", "m", "--tp", "8"],
    ),
    (
        "alias tp=8; sglang serve --model-path m --tp tp",
        &["--model-path", "m", "--tp", "tp"],
    ),
    (
        "f() { sglang serve --model-path m \"$@\"; }; g() { f \"$@\" --tp 8; }; g --tp 4",
        &["--model-path", "m", "--tp", "4", "--tp", "8"],
    ),
    (
        "f() { set -- --tp 8; }; set -- --tp 4; f; sglang serve --model-path m \"$@\"",
        &["--model-path", "m", "--tp", "4"],
    ),
    (
        "f() { echo \"$#\"; }; sglang serve --model-path m --tp $(f a b c d e f g h)",
        &["--model-path", "m", "--tp", "8"],
    ),
    // A variable of the name exists: `unset` takes it, the function stays.
    (
        "tp() { echo 8; }\ntp=1\nunset tp\nsglang serve --model-path m --tp \"$(tp 2>/dev/null || echo 4)\"",
        &["--model-path", "m", "--tp", "8"],
    ),
];

#[test]
fn adversary_more_blocks_are_read_as_real_bash_runs_them() {
    for (block, want) in BASH_READINGS_2 {
        let l = one(block);
        assert_eq!(&argv(&l), want, "{block}\n{l}");
        for w in l["argv"].as_array().unwrap() {
            assert_ne!(w["provenance"]["kind"], "unknown", "{block}\n{l}");
        }
    }
    // `set -e` and a failing command: bash stops before the launch.
    assert!(read("set -e\nfalse\nsglang serve --model-path m --tp 8").is_empty());
}

/// Where the evaluator cannot follow bash, the word is unknown, never a
/// value bash would not give.
#[test]
fn adversary_more_expansions_not_computed_are_unknown_never_wrong() {
    for (block, at, bash_value) in [
        (
            "shopt -s nullglob\nsglang serve --model-path m --tp [8] --dp 2",
            3,
            "--dp",
        ),
        (
            "Q=fp8\nsglang serve --model-path m --quantization ${Q@U}",
            3,
            "FP8",
        ),
        (
            "source <(echo TP=8)\nsglang serve --model-path m --tp ${TP:-4}",
            3,
            "8",
        ),
        ("A=(4 8); sglang serve --model-path m --tp ${A[-1]}", 3, "8"),
        ("set -- 4 8; sglang serve --model-path m --tp ${!#}", 3, "8"),
        ("X=4; X+=8; sglang serve --model-path m --tp ${X:1}", 3, "8"),
        (
            "X=4; read X < <(echo 8); sglang serve --model-path m --tp $X",
            3,
            "8",
        ),
        (
            "X=4; while read X; do break; done <<< 8; sglang serve --model-path m --tp $X",
            3,
            "8",
        ),
        (
            "(tpf() { echo 8; })\nsglang serve --model-path m --tp $(tpf 2>/dev/null || echo 4)",
            3,
            "4",
        ),
        (
            "tpf() { return 3; }\ntpf; sglang serve --model-path m --tp $(( $? + 5 ))",
            3,
            "8",
        ),
        (
            "tp() { echo 8; }\nunset -f tp\nsglang serve --model-path m --tp \"$(tp 2>/dev/null || echo 4)\"",
            3,
            "4",
        ),
    ] {
        let l = one(block);
        let w = &l["argv"][at];
        assert!(
            w["text"] == bash_value || w["provenance"]["kind"] == "unknown",
            "{block}\n{l}"
        );
    }
}

/// `unset NAME` with no variable of that name unsets the function NAME
/// (bash's manual: "if there is no variable by that name, a function with
/// that name, if any, is unset"; checked with real bash and a stub `sglang`
/// on PATH). recipe-drift keeps the function: it reads `--tp 8` where bash
/// runs `--tp 4`, and against a recipe at `--tp 8` says no drift.
#[test]
fn adversary_unset_without_a_variable_unsets_the_function() {
    for block in [
        "sglang() { command sglang \"$@\" --tp 8; }\nunset sglang\nsglang serve --model-path m --tp 4",
        "tp() { echo 8; }\nunset tp\nsglang serve --model-path m --tp \"$(tp 2>/dev/null || echo 4)\"",
    ] {
        let l = one(block);
        let words = argv(&l);
        assert!(
            words == ["--model-path", "m", "--tp", "4"]
                || l["argv"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|w| w["provenance"]["kind"] == "unknown"),
            "{block}\n{l}"
        );
        assert!(!words.contains(&"8".to_string()), "{block}\n{l}");
    }
    // The same in a recipe script: `compare` against `--tp 8` is drift.
    let repo = Repo::new();
    repo.write("docs.txt", "sglang serve --model-path m --tp 8\n");
    repo.write(
        "recipe.sh",
        "sglang() { command sglang \"$@\" --tp 8; }\nunset sglang\nsglang serve --model-path m --tp 4\n",
    );
    let o = repo.run_deterministic(&["compare", "docs.txt", "recipe.sh", "--offline"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(1), "{}", o.both());
}

/// `vllm serve <org>/<model>` is the docs' placeholder for the model (the
/// reader fills in both parts); bash would read `<org` and `>/` as
/// redirections, so recipe-drift drops the word and takes vLLM's default
/// model (Qwen/Qwen3-0.6B): against a recipe serving that model, `compare`
/// says the model is equivalent, green, for a model the reader chooses.
/// (`vllm serve <model>`, a placeholder followed by a blank, is unknown, as
/// it should be.)
#[test]
fn adversary_org_slash_model_placeholder_is_unknown() {
    let repo = Repo::new();
    repo.write("recipe.sh", "vllm serve Qwen/Qwen3-0.6B -tp 4\n");
    repo.write(
        "docs/page.md",
        "```bash\nvllm serve <org>/<model> -tp 4\n```\n",
    );
    let o = repo.run_deterministic(&["compare", "docs/page.md", "recipe.sh", "--offline"]);
    o.assert_bounded();
    assert_ne!(o.code, Some(0), "{}", o.both());
    let l = one("sglang serve --model-path <org>/<model> --tp 4");
    assert_eq!(argv(&l), ["--model-path", "<org>/<model>", "--tp", "4"]);
    assert_eq!(l["argv"][1]["provenance"]["kind"], "unknown", "{l}");
}

/// The placeholder shapes recipe-drift takes off today: a `<model>`
/// followed by a blank is unknown, not vLLM's default model.
#[test]
fn adversary_a_blank_ended_placeholder_model_is_unknown() {
    let repo = Repo::new();
    repo.write("recipe.sh", "vllm serve Qwen/Qwen3-0.6B -tp 4\n");
    repo.write("docs/page.md", "```bash\nvllm serve <model> -tp 4\n```\n");
    let o = repo.run_deterministic(&["compare", "docs/page.md", "recipe.sh", "--offline"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(1), "{}", o.both());
    assert!(o.stdout.contains("placeholder"), "{}", o.both());
}

/// Where a word or env entry of a launch is placed: `LINE:COL`.
fn at(v: &serde_json::Value) -> String {
    format!("{}:{}", v["span"]["line"], v["span"]["col"])
}

/// A variable an earlier block of the page set (an Environment block, an
/// `export` in a list item or a blockquote) is placed where its value was
/// written there, in the command's words and in its environment, as a
/// variable assigned in the command's own block is; a value the launch
/// block or a later block changes is placed where it was changed, and a
/// word built from the value (`--port=$P`) stays at its own place.
#[test]
fn a_variable_from_an_earlier_block_is_placed_where_its_value_was_written() {
    let page = "# Page\n\n```bash\nexport TP=4\nexport P=30000\n```\n\n- Set the model:\n\n  ```bash\n  export MODEL=org/a\n  ```\n\n> ```bash\n> export DP=2\n> ```\n\n```bash\nexport TP=8\nsglang serve --model-path \"$MODEL\" --tp $TP --dp ${DP} --port=$P\n```\n\n```bash\nsglang serve --model-path $MODEL --tp $TP --dp $DP\n```\n";
    let ls = read_page(page);
    assert_eq!(ls.len(), 2, "{ls:?}");
    let word = |l: &serde_json::Value, text: &str| {
        l["argv"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["text"] == text)
            .map(at)
            .unwrap_or_else(|| panic!("{text}: {l}"))
    };
    let env_at = |l: &serde_json::Value, name: &str| {
        l["env"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .map(at)
            .unwrap_or_else(|| panic!("{name}: {l}"))
    };
    // Launch 1 (line 20): MODEL from the list item (line 11), DP from the
    // blockquote (line 15), TP from its own block (line 19).
    let l = &ls[0];
    assert_eq!(word(l, "org/a"), "11:16");
    assert_eq!(word(l, "2"), "15:13");
    assert_eq!(word(l, "8"), "19:11");
    assert_eq!(word(l, "--port=30000"), "20:56");
    assert_eq!(env_at(l, "MODEL"), "11:10");
    assert_eq!(env_at(l, "DP"), "15:10");
    assert_eq!(env_at(l, "P"), "5:8");
    // Launch 2: the launch block's `export TP=8` stays in that block.
    let l = &ls[1];
    assert_eq!(word(l, "4"), "4:11");
    assert_eq!(word(l, "org/a"), "11:16");
    assert_eq!(env_at(l, "TP"), "4:8");
}

/// Adversary round 5b (class 5, the page room): a `bash` block written as
/// a transcript (`$ ` prompt, taken off as framing) whose command is
/// continued with `\` onto a `> ` line shows the shell's PS2 prompt, exactly
/// as a `console` block does: the reader copies `--tp=4`. recipe-drift takes
/// the `$ ` off but reads `> --tp=4` as a redirection into the file
/// `--tp=4` (the same text in a `console` block is read as `--tp=4`), and
/// says no drift against a recipe that leaves tp at 1.
#[test]
fn adversary_continuation_prompt_after_a_dollar_prompt_is_framing() {
    for lang in ["bash", "sh", "shell"] {
        let page =
            format!("# Page\n\n```{lang}\n$ sglang serve --model-path m \\\n> --tp=4\n```\n");
        let ls = read_page(&page);
        assert_eq!(ls.len(), 1, "{page}");
        assert_eq!(argv(&ls[0]), ["--model-path", "m", "--tp=4"], "{page}");
    }
}

/// Adversary round 5b (class 5), held: page blocks whose reading needs the
/// evaluator, each checked with real bash: `sh -c` with `$0`, `env -S`,
/// arithmetic in base 64, `declare -i`, `printf -v` with `%o`, the `&` of
/// an unescaped `&#52;` in a code block (a browser shows it as text; bash
/// ends the command there, so `--tp` has no value).
#[test]
fn adversary_held_page_blocks_read_as_bash_reads_them() {
    for (block, want) in [
        (
            "sh -c \"sglang serve --model-path m --tp \\$0\" 8",
            &["--model-path", "m", "--tp", "8"][..],
        ),
        (
            "env -S \"sglang serve --model-path m --tp 8\"",
            &["--model-path", "m", "--tp", "8"][..],
        ),
        (
            "sglang serve --model-path m --tp $(( 64#8 ))",
            &["--model-path", "m", "--tp", "8"][..],
        ),
        (
            "declare -i TP=2*4; sglang serve --model-path m --tp $TP",
            &["--model-path", "m", "--tp", "8"][..],
        ),
        (
            "printf -v TP %o 8; sglang serve --model-path m --tp $TP",
            &["--model-path", "m", "--tp", "10"][..],
        ),
        (
            "sglang serve --model-path m --tp &#52;",
            &["--model-path", "m", "--tp"][..],
        ),
    ] {
        let l = one(block);
        assert_eq!(argv(&l), want, "{block}");
    }
}

// Issue 24, round 6 (class 5): blocks generated by the sixth adversary and
// run by real bash 5.2 (`env -i bash --norc --noprofile -c BLOCK`, a stub
// `sglang` on PATH writing its argv and environment); the same blocks were
// read as a page's `bash` block and as a plain command file, with the same
// result. 320 blocks; the ones below are where recipe-drift read a known
// value bash does not give.

/// Word `at` of the one launch of `block` is bash's value or unknown.
fn bash_word_or_unknown(block: &str, at: usize, bash_value: &str) {
    let l = one(block);
    let w = &l["argv"][at];
    assert!(
        w["text"] == bash_value || w["provenance"]["kind"] == "unknown",
        "bash reads {bash_value:?}: {block}\n{l}"
    );
}

/// `TP=8 export TP`: a prefix assignment before `export` reaches the shell's
/// own variable (bash exports it from the temporary environment, and the
/// value stays): bash runs `--tp 8`, recipe-drift reads `--tp 4`, and against
/// a recipe at `--tp 4` says no drift.
#[test]
fn adversary_round6_a_prefix_assignment_to_export_stays() {
    bash_word_or_unknown(
        "TP=4\nTP=8 export TP\nsglang serve --model-path m --tp $TP",
        3,
        "8",
    );
    let repo = Repo::new();
    repo.write("recipe.sh", "sglang serve --model-path m --tp 4\n");
    repo.write(
        "docs/page.md",
        "```bash\nTP=4\nTP=8 export TP\nsglang serve --model-path m --tp $TP\n```\n",
    );
    let o = repo.run_deterministic(&["compare", "docs/page.md", "recipe.sh", "--offline"]);
    o.assert_bounded();
    assert_ne!(o.code, Some(0), "{}", o.both());
    // bash's rule: a temporary (prefix) variable that `export`/`readonly`
    // (or `declare -x`/`-r` outside a function) gives an attribute keeps
    // its value; `local` in a function starts from it. Other builtins and
    // options leave the shell's own value.
    for (block, bash_value) in [
        ("TP=4; TP=8 readonly TP", "8"),
        ("TP=4; TP=8 declare -x TP", "8"),
        ("TP=4; TP=8 typeset -r TP", "8"),
        ("TP=4; TP+=8 export TP", "48"),
        ("TP=4; TP=8 export -- TP", "8"),
        ("f(){ TP=8 export TP; }; TP=4; f", "8"),
        ("TP=4; TP=8 declare -i TP", "4"),
        ("TP=4; TP=8 export -n TP", "4"),
        ("TP=4; TP=8 declare -gx TP", "4"),
        ("TP=4; TP=8 export X", "4"),
    ] {
        bash_word_or_unknown(
            &format!("{block}\nsglang serve --model-path m --tp $TP"),
            3,
            bash_value,
        );
    }
    bash_word_or_unknown(
        "f(){ TP=8 local TP; sglang serve --model-path m --tp $TP; }\nTP=4; f",
        3,
        "8",
    );
    // A prefix assignment to a readonly variable is refused and the command
    // still runs; under `set -e` the script ends there.
    assert_eq!(
        read("readonly R=1\nf(){ sglang serve --model-path m --tp 8; }\nR=2 f 2>/dev/null").len(),
        1
    );
    assert!(
        read("set -e\nreadonly R=1\nR=2 true 2>/dev/null || :\nsglang serve --model-path m")
            .is_empty()
    );
}

/// `${X~~}` / `${X~}` (bash's case toggles) are read as their own text with
/// a known provenance: two blocks toggling different values compare equal.
#[test]
fn adversary_round6_case_toggle_expansions_are_bash_values_or_unknown() {
    bash_word_or_unknown(
        "Q=fp8\nsglang serve --model-path m --quantization ${Q~~}",
        3,
        "FP8",
    );
    bash_word_or_unknown("TP=4\nsglang serve --model-path m --tp ${TP~}", 3, "4");
    // Every case modification, with patterns, per element, indirect.
    for (block, at, bash_value) in [
        ("Q=fp8\nsglang serve --model-path m --q ${Q~~[f]}", 3, "Fp8"),
        ("Q=Fp8\nsglang serve --model-path m --q ${Q~}", 3, "fp8"),
        (
            "Q=fp8\nsglang serve --model-path m --q \"${Q~~}\"",
            3,
            "FP8",
        ),
        (
            "Q=fp8\nsglang serve --model-path m --q x${Q~~}y",
            3,
            "xFP8y",
        ),
        ("Q=fp8\nsglang serve --model-path m --q ${Q^^}", 3, "FP8"),
        ("Q=fp8\nsglang serve --model-path m --q ${Q^}", 3, "Fp8"),
        ("Q=FP8\nsglang serve --model-path m --q ${Q,,}", 3, "fp8"),
        (
            "Q=fp8\nsglang serve --model-path m --q ${Q^^[a-f]}",
            3,
            "Fp8",
        ),
        ("Q=fp8\nsglang serve --model-path m --q ${Q^^fp}", 3, "fp8"),
        (
            "Q=fp8\nsglang serve --model-path m --q ${Q^^\"\"}",
            3,
            "fp8",
        ),
        (
            "A=(ab Cd)\nsglang serve --model-path m --q \"${A[@]~~}\"",
            4,
            "cD",
        ),
        (
            "A=(ab Cd)\nsglang serve --model-path m --q \"${A[*]~~}\"",
            3,
            "AB cD",
        ),
        (
            "R=Q; Q=aBc\nsglang serve --model-path m --q ${!R~~}",
            3,
            "AbC",
        ),
        (
            "R=Q; Q=fp8\nsglang serve --model-path m --q ${!R%8}",
            3,
            "fp",
        ),
        (
            "R=Q; Q=fp8\nsglang serve --model-path m --q ${!R:-x}",
            3,
            "fp8",
        ),
        (
            "A=(x y); R='A[1]'\nsglang serve --model-path m --q ${!R^}",
            3,
            "Y",
        ),
    ] {
        bash_word_or_unknown(block, at, bash_value);
    }
    // A `${` form the reader does not evaluate is never its own text (bash
    // refuses these: bad substitution); non-ASCII text changes case only in
    // a UTF-8 locale.
    for block in [
        "Q=x\nsglang serve --model-path m --q ${Q!}",
        "Q=x\nsglang serve --model-path m --q ${#Q~}",
        "Q=\u{e9}\nsglang serve --model-path m --q ${Q^^}",
    ] {
        let l = one(block);
        assert_eq!(
            l["argv"][3]["provenance"]["kind"], "unknown",
            "{block}\n{l}"
        );
    }
}

/// bash 5.2 turns `patsub_replacement` on: `&` in the replacement of
/// `${X/pat/rep}` is the matched text (`${TP/4/&8}` is `48`; bash 5.1 and
/// earlier give `&8`, so the value depends on the reader's bash). recipe-drift
/// reads `&8` as known.
#[test]
fn adversary_round6_ampersand_in_a_replacement_is_the_match() {
    bash_word_or_unknown("TP=4\nsglang serve --model-path m --tp ${TP/4/&8}", 3, "48");
    bash_word_or_unknown(
        "M=org/m\nsglang serve --model-path ${M/m/&-fp8}",
        1,
        "org/m-fp8",
    );
    // A quoted or escaped `&` is literal in every bash; with
    // `patsub_replacement` off, so is an unquoted one; without a match
    // nothing is replaced.
    for (block, bash_value) in [
        ("X=abc\nsglang serve --model-path m --x ${X/b/\\&}", "a&c"),
        ("X=abc\nsglang serve --model-path m --x ${X/b/\"&\"}", "a&c"),
        (
            "X=abc; R='&'\nsglang serve --model-path m --x ${X/b/$R}",
            "abc",
        ),
        ("X=abc\nsglang serve --model-path m --x \"${X/b/&}\"", "abc"),
        (
            "X=abc\nsglang serve --model-path m --x ${X/%c/<&>}",
            "ab<c>",
        ),
        ("X=abc\nsglang serve --model-path m --x ${X/z/&}", "abc"),
        (
            "shopt -u patsub_replacement; X=abc\nsglang serve --model-path m --x ${X/b/&&}",
            "a&&c",
        ),
    ] {
        bash_word_or_unknown(block, 3, bash_value);
    }
    let l = one("X=abc\nsglang serve --model-path m --x ${X/b/\\&} ${X/z/&}");
    assert_eq!(argv(&l)[3..], ["a&c", "abc"], "{l}");
    // Pattern operators apply to each element of an array or `$@`.
    let l = one("A=(ab cb)\nsglang serve --model-path m --x ${A[@]/b/x} \"${A[@]#?}\"");
    assert_eq!(argv(&l)[3..], ["ax", "cx", "b", "b"], "{l}");
    let l = one("set -- ab cb\nsglang serve --model-path m --x \"${*%b}\"");
    assert_eq!(argv(&l)[3..], ["a c"], "{l}");
}

/// `$?` after a command substitution in the same word is that
/// substitution's status (bash: `1$(exit 6)$?` is `16`); recipe-drift reads
/// the status before the word (`10`).
#[test]
fn adversary_round6_status_after_a_substitution_in_the_word() {
    bash_word_or_unknown("sglang serve --model-path m --tp $(exit 8)$?", 3, "8");
    bash_word_or_unknown("sglang serve --model-path m --tp 1$(exit 6)$?", 3, "16");
    // Later words of the command, assignments and nested expansions too.
    for (block, bash_value) in [
        ("true\nsglang serve --model-path m --tp $(false)$?", "1"),
        ("true\nsglang serve --model-path m --tp $(exit 6) $?", "6"),
        ("false\nsglang serve --model-path m --tp $(true)$?", "0"),
        (
            "true\nsglang serve --model-path m --tp ${X:-$(exit 4)}$?",
            "4",
        ),
        ("true\nsglang serve --model-path m --tp `exit 7`$?", "7"),
        (
            "true; X=$(exit 3) Y=$?\nsglang serve --model-path m --tp $Y",
            "3",
        ),
        (
            "false\nf(){ return 0; }\nsglang serve --model-path m --tp $(f)$?",
            "0",
        ),
    ] {
        bash_word_or_unknown(block, 3, bash_value);
    }
}

/// What a command substitution writes to standard error is not its value
/// (bash: `1$(echo 6 >&2)` is `1`); recipe-drift reads `16`.
#[test]
fn adversary_round6_stderr_of_a_substitution_is_not_its_value() {
    bash_word_or_unknown("sglang serve --model-path m --tp $(echo 8 >&2)4", 3, "4");
    bash_word_or_unknown("sglang serve --model-path m --tp 1$(echo 6 >&2)", 3, "1");
    // Standard output moved anywhere (a file, /dev/null, closed) by the
    // command, a group, a function's definition or `exec` is not the value;
    // `2>&1` keeps it.
    for (block, bash_value) in [
        ("sglang serve --model-path m --tp $(echo 8 1>&2)4", "4"),
        (
            "sglang serve --model-path m --tp $(echo 8 >/dev/null)4",
            "4",
        ),
        (
            "sglang serve --model-path m --tp $(echo 8 &>/dev/null)4",
            "4",
        ),
        ("sglang serve --model-path m --tp $(echo 8 >&-)4", "4"),
        ("sglang serve --model-path m --tp $(echo 8 2>&1)", "8"),
        (
            "sglang serve --model-path m --tp $(echo 8 3>&1 >&2 1>&3)",
            "8",
        ),
        ("sglang serve --model-path m --tp $({ echo 8; } >&2)4", "4"),
        (
            "f(){ echo 8; }\nsglang serve --model-path m --tp $(f >&2)4",
            "4",
        ),
        (
            "g(){ echo 8; } >&2\nsglang serve --model-path m --tp $(g)4",
            "4",
        ),
        ("sglang serve --model-path m --tp $(exec >&2; echo 8)4", "4"),
        ("sglang serve --model-path m --tp $(echo 8 >&3)4", "4"),
        (
            "shopt -s lastpipe\necho 8 >&2 | read X\nsglang serve --model-path m --tp \"[$X]\"",
            "[]",
        ),
    ] {
        bash_word_or_unknown(block, 3, bash_value);
    }
}

/// `unset a[0]` unquoted: the operand is a glob (bash unsets the element
/// unless a file named `a0` is in the working folder, which a page does not
/// say). recipe-drift keeps the element as known (`4`); bash, in a folder
/// without `a0`, runs `--tp 8`.
#[test]
fn adversary_round6_unset_of_a_glob_element_is_not_ignored() {
    bash_word_or_unknown(
        "a=(4 8)\nunset a[0]\nsglang serve --model-path m --tp ${a[0]:-8}",
        3,
        "8",
    );
    // The element, its array's length, the variable a file `a0` would
    // name, and any name the pattern matches (bash values in a folder with
    // no matching file).
    for (block, bash_value) in [
        (
            "a=(4 8)\nunset a[1]\nsglang serve --model-path m --tp ${a[1]:-9}",
            "9",
        ),
        (
            "a=(4 8)\nunset a[1]\nsglang serve --model-path m --tp ${#a[@]}",
            "1",
        ),
        (
            "a=(4 8); a0=3\nunset a[0]\nsglang serve --model-path m --tp $a0",
            "3",
        ),
        (
            "TP1=4\nunset TP? 2>/dev/null\nsglang serve --model-path m --tp $TP1",
            "4",
        ),
        (
            "set -f; a=(4 8)\nunset a[1]\nsglang serve --model-path m --tp ${#a[@]}",
            "1",
        ),
    ] {
        bash_word_or_unknown(block, 3, bash_value);
    }
}

/// `${#FUNCNAME[@]}` inside a function is the call depth (1 here).
#[test]
fn adversary_round6_funcname_inside_a_function() {
    bash_word_or_unknown(
        "f() { echo $(( 4 + 4 * ${#FUNCNAME[@]} )); }\nsglang serve --model-path m --tp $(f)",
        3,
        "8",
    );
    // The frames above the bottom are known on a page (pasted or run as a
    // file: bash adds `main` only for a file).
    let l = one("f(){ sglang serve --model-path m --tp ${FUNCNAME[1]} $FUNCNAME; }\ng(){ f; }\ng");
    assert_eq!(argv(&l)[3..], ["g", "f"], "{l}");
    bash_word_or_unknown(
        "f(){ sglang serve --model-path m --tp ${FUNCNAME[2]-v}; }\ng(){ f; }\ng",
        3,
        "v",
    );
    // In a script file bash ends it with `main`.
    let repo = Repo::new();
    repo.write(
        "recipe.sh",
        "f(){ sglang serve --model-path m --tp ${#FUNCNAME[@]} \"${FUNCNAME[@]}\"; }\ng(){ f; }\ng\n",
    );
    let o = repo.run_deterministic(&["extract", "--format", "json", "recipe.sh"]);
    o.assert_bounded();
    let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
    assert_eq!(argv(&v["launches"][0])[3..], ["3", "f", "g", "main"], "{v}");
}

/// `readonly` has no `-x`: bash refuses the command (`invalid option`) and
/// sets nothing; recipe-drift exports `SGLANG_X=8` to the launch.
#[test]
fn adversary_round6_readonly_x_is_refused_as_bash_refuses_it() {
    let l = one("readonly -x SGLANG_X=8 2>/dev/null\nsglang serve --model-path m --tp 8");
    assert_eq!(env(&l, "SGLANG_X"), None, "{l}");
    // An option the builtin does not have: nothing is set. An option word
    // after the operands, or an invalid name, fails alone.
    for block in [
        "export -x SGLANG_X=8 2>/dev/null",
        "declare -bx SGLANG_X=8 2>/dev/null",
        "export -nx SGLANG_X=8 2>/dev/null",
        "f(){ local -b SGLANG_X=8; }; f 2>/dev/null; export SGLANG_X",
        "declare -px SGLANG_X=8 2>/dev/null",
    ] {
        let l = one(&format!("{block}\nsglang serve --model-path m --tp 8"));
        assert_eq!(env(&l, "SGLANG_X"), None, "{block}\n{l}");
    }
    for block in [
        "export SGLANG_X=8 -x 2>/dev/null",
        "export -- -x SGLANG_X=8 2>/dev/null",
        "X=1a; export $X SGLANG_X=8 2>/dev/null",
    ] {
        let l = one(&format!("{block}\nsglang serve --model-path m --tp 8"));
        assert_eq!(env(&l, "SGLANG_X").as_deref(), Some("8"), "{block}\n{l}");
    }
    // `readonly -n` is not a reference (nor readonly).
    bash_word_or_unknown(
        "readonly -n TP=8; TP=4\nsglang serve --model-path m --tp $TP",
        3,
        "4",
    );
}

/// `builtin sglang ...` fails in bash (`sglang: not a shell builtin`): no
/// server starts, so the block has no launch.
#[test]
fn adversary_round6_builtin_of_a_program_starts_nothing() {
    assert!(read("builtin sglang serve --model-path m --tp 8").is_empty());
    assert!(read("builtin -p sglang serve --model-path m --tp 8 2>/dev/null").is_empty());
    assert!(read("S=sglang\nbuiltin $S serve --model-path m --tp 8").is_empty());
    assert!(read("builtin -- sglang serve --model-path m --tp 8").is_empty());
    // A builtin it names runs (`command` still starts the program).
    let l = one("builtin command sglang serve --model-path m --tp 8");
    assert_eq!(argv(&l), ["--model-path", "m", "--tp", "8"]);
    let l = one("builtin sglang serve --model-path m --tp 8 || sglang serve --model-path m --tp 4");
    assert_eq!(argv(&l), ["--model-path", "m", "--tp", "4"]);
}

/// Blocks of the same generated set that recipe-drift read as bash runs them
/// (each value checked with real bash 5.2); the word is bash's or unknown.
const ROUND6_HELD: &[(&str, &str)] = &[
    (
        "X=4; X=8 eval ':'\nsglang serve --model-path m --tp $X",
        "4",
    ),
    (
        "IFS=': ' ; X='4::8'; set -- $X\nsglang serve --model-path m --tp $3",
        "8",
    ),
    (
        "case a in a) X=4;& b) X=8;; esac\nsglang serve --model-path m --tp $X",
        "8",
    ),
    (
        "case a in a) X=8;;& b) X=4;; esac\nsglang serve --model-path m --tp $X",
        "8",
    ),
    (
        "[[ 8 > 10 ]] && X=8 || X=4\nsglang serve --model-path m --tp $X",
        "8",
    ),
    (
        "read X <<< '8\\\\4'\nsglang serve --model-path m --tp $X",
        "8\\4",
    ),
    (
        "read -d , X <<< '8,4'\nsglang serve --model-path m --tp $X",
        "8",
    ),
    (
        "declare -i X; X=010\nsglang serve --model-path m --tp $X",
        "8",
    ),
    (
        "X=4; f(){ declare X=8; }; f\nsglang serve --model-path m --tp $X",
        "4",
    ),
    ("sglang serve --model-path m --tp $(echo -e '8\\c4')", "8"),
    ("sglang serve --model-path m --tp $(printf %d \"'8\")", "56"),
    ("sglang serve --model-path m --tp $((-9%10+17))", "8"),
    ("sglang serve --model-path m --tp $((64#8))", "8"),
    ("sglang serve --model-path m --tp $'8\\0004'", "8"),
    ("sglang serve --model-path m --tp {08..08}", "08"),
];

#[test]
fn adversary_round6_held_blocks_are_read_as_bash_runs_them() {
    for (block, bash_value) in ROUND6_HELD {
        bash_word_or_unknown(block, 3, bash_value);
    }
}

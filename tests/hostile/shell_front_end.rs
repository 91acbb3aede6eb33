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

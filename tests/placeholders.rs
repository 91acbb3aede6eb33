//! Shell forms of page blocks and command files. Docs placeholders
//! (`<your-token>`, `<use args below>`) in page blocks and
//! command files: a reader fills them in, so their value is unknown with that
//! reason; they are not redirections (bash would fail on them) and never
//! make the page an input error. Valid redirections stay redirections.

mod common;

use common::run;

fn extract(text: &str) -> (i32, String, String) {
    let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
    let page = dir.path().join("page.md");
    std::fs::write(&page, text).unwrap();
    run(&["extract", "--format", "json", page.to_str().unwrap()])
}

fn words(out: &str) -> Vec<(String, Option<String>)> {
    let v: serde_json::Value = serde_json::from_str(out).unwrap();
    v["launches"][0]["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let reason = t["provenance"]["reason"].as_str().map(str::to_string);
            (t["text"].as_str().unwrap().to_string(), reason)
        })
        .collect()
}

#[test]
fn a_placeholder_is_an_unknown_word_not_a_redirection() {
    let (code, out, err) = extract(
        "```bash\nexport HF_TOKEN=<your-hf-token>\nsglang serve --model-path <model-path> --tp 4\n```\n",
    );
    assert_eq!(code, 0, "{err}");
    let w = words(&out);
    assert_eq!(w[1].0, "<model-path>");
    assert!(
        w[1].1.as_deref().is_some_and(|r| r.contains("placeholder")),
        "{w:?}"
    );
    assert_eq!(w[2], ("--tp".to_string(), None));
    assert_eq!(w[3], ("4".to_string(), None));
}

#[test]
fn a_placeholder_with_blanks_at_the_end_of_a_line_is_one_word() {
    let (code, out, err) = extract("```bash\nsglang serve <use args below>\n```\n");
    assert_eq!(code, 0, "{err}");
    let w = words(&out);
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].0, "<use args below>");
}

#[test]
fn real_redirections_stay_redirections() {
    let (code, out, err) =
        extract("```bash\nsglang serve --model-path org/m <in.txt >out.txt --tp 2\n```\n");
    assert_eq!(code, 0, "{err}");
    let w: Vec<String> = words(&out).into_iter().map(|w| w.0).collect();
    assert_eq!(w, ["--model-path", "org/m", "--tp", "2"]);
    // `<a b> c`: bash reads `< a`, `b`, `> c`; so does recipe-drift.
    let (code, out, err) = extract("```bash\nsglang serve --tp 2 <a b> c\n```\n");
    assert_eq!(code, 0, "{err}");
    let w: Vec<String> = words(&out).into_iter().map(|w| w.0).collect();
    assert_eq!(w, ["--tp", "2", "b"]);
}

/// A heredoc is the command's stdin: its body is skipped, not read as
/// commands (`cat > cfg.json <<'EOF'`), and the commands after it are read.
#[test]
fn a_heredoc_body_is_stdin_not_commands() {
    let (code, out, err) = extract(
        "```bash\ncat > /tmp/c.json <<'EOF'\n{\"tp\": 8}\nsglang serve --model-path evil --tp 1\nEOF\nsglang serve --model-path org/m --tp 4\n```\n",
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["launches"].as_array().unwrap().len(), 1, "{out}");
    let w: Vec<String> = words(&out).into_iter().map(|w| w.0).collect();
    assert_eq!(w, ["--model-path", "org/m", "--tp", "4"]);
    // `<<-` strips leading tabs from the delimiter line; `<<<` is a here-string.
    let (code, out, err) = extract(
        "```bash\ncat <<-END > x\n\tbody\n\tEND\nsglang serve --model-path org/m <<< \"hi\" --tp 2\n```\n",
    );
    assert_eq!(code, 0, "{err}");
    let w: Vec<String> = words(&out).into_iter().map(|w| w.0).collect();
    assert_eq!(w, ["--model-path", "org/m", "--tp", "2"]);
}

/// A heredoc a shell runs is read by the bash evaluator (one shell front
/// end), as in a script: its serve command is found; a shell fed by a pipe
/// is listed as code that is not read; never a silent skip.
#[test]
fn a_heredoc_a_shell_would_run_is_read_or_listed() {
    let (code, out, err) =
        extract("```bash\nbash <<EOF\nsglang serve --model-path org/m --tp 2\nEOF\n```\n");
    assert_eq!(code, 0, "{err}");
    let w: Vec<String> = words(&out).into_iter().map(|w| w.0).collect();
    assert_eq!(w, ["--model-path", "org/m", "--tp", "2"]);
    let (code, out, err) =
        extract("```bash\ncat <<EOF | sh\nsglang serve --model-path org/m --tp 2\nEOF\n```\n");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("page.md:2:"), "{out}");
    assert!(out.contains("cannot read"), "{out}");
}

//! Differential test: the code blocks recipe-drift reads on a page against the
//! ones real renderers show (issue 24, classes 2 and 3).
//!
//! Every page of `fixtures/pages/render/` is read by recipe-drift
//! (`extract::page_code`) and by `tests/page_oracle/oracle.mjs`, which renders it
//! with pinned npm packages (installed by `.ci/run` with `npm ci`): a `.md` page
//! with `micromark` and GFM twice, raw HTML passed through (a docs site: `site`)
//! and with GitHub's tag filter (`github`); an `.mdx` page with
//! `@mdx-js/mdx` 3 and React. The `<pre>` elements of the rendered HTML, parsed
//! by parse5 as a browser parses it, are the blocks a reader sees.
//!
//! - `.md`: the blocks recipe-drift does not mark hidden are the docs site's;
//!   when GitHub shows more (a fence inside a `<script>` left open, whose tag
//!   GitHub's filter escapes), recipe-drift's blocks, hidden ones included, are
//!   GitHub's: reading a hidden block is an error.
//! - `.mdx`: the blocks recipe-drift does not mark hidden are MDX's.
//!
//! And the text of HTML a generator sets with `dangerouslySetInnerHTML` against
//! parse5 (`tests/page_oracle/html_text.mjs`).
//!
//! Without node or the npm packages the test says SKIPPED and passes, except
//! under CI (`CI` set), where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use recipe_drift::extract::page_code;
use recipe_drift::span::{Origin, Source};
use serde_json::Value;

const ORACLE: &str = "tests/page_oracle";

fn fixtures() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir("fixtures/pages/render")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md" || e == "mdx"))
        .collect();
    out.sort();
    out
}

fn oracle_ready() -> bool {
    let modules = Path::new(ORACLE).join("node_modules/@mdx-js/mdx");
    let node = Command::new("node").arg("--version").output().is_ok();
    if node && modules.is_dir() {
        return true;
    }
    let why = if node {
        "the npm packages are missing (run `npm ci --prefix tests/page_oracle`)"
    } else {
        "node is not installed"
    };
    if std::env::var_os("CI").is_some() {
        panic!("the page differential test cannot run under CI: {why}");
    }
    eprintln!("SKIPPED page_differential: {why}");
    false
}

type Block = (Option<String>, String);

fn oracle_blocks(v: &Value) -> Vec<Block> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["lang"].as_str().map(str::to_string),
                b["text"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn pages_read_as_renderers_show_them() {
    let files = fixtures();
    assert!(files.len() >= 6, "the render fixtures are missing");
    if !oracle_ready() {
        return;
    }
    let out = Command::new("node")
        .arg(Path::new(ORACLE).join("oracle.mjs"))
        .args(&files)
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "oracle failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = json["files"].as_array().unwrap();
    assert_eq!(results.len(), files.len());
    let mut hidden_seen = 0;
    for (file, theirs) in files.iter().zip(results) {
        let name = file.display().to_string();
        if let Some(e) = theirs.get("error") {
            panic!("{name}: the renderer fails on a fixture: {e}");
        }
        let text = std::fs::read_to_string(file).unwrap();
        let source = Source::new(Origin::File(file.clone()), text);
        let ours = page_code(&source).unwrap_or_else(|e| panic!("{name}: {e}"));
        let all: Vec<Block> = ours
            .iter()
            .map(|b| (b.lang.clone(), b.text.clone()))
            .collect();
        let visible: Vec<Block> = ours
            .iter()
            .filter(|b| b.hidden.is_none())
            .map(|b| (b.lang.clone(), b.text.clone()))
            .collect();
        let hidden = ours.len() - visible.len();
        hidden_seen += hidden;
        if name.ends_with(".mdx") {
            assert_eq!(visible, oracle_blocks(&theirs["mdx"]), "{name}: {ours:#?}");
            continue;
        }
        // What the docs site shows is what recipe-drift reads; what GitHub
        // shows besides is exactly what it marks hidden (an error if read).
        let site = oracle_blocks(&theirs["site"]);
        let github = oracle_blocks(&theirs["github"]);
        assert_eq!(visible, site, "{name}: the docs-site rendering");
        if site == github {
            assert_eq!(visible, github, "{name}");
        } else {
            assert_eq!(all, github, "{name}: GitHub's rendering");
        }
    }
    assert!(hidden_seen > 0, "no fixture has a hidden block");
}

/// The text recipe-drift reads of HTML a generator sets with
/// `dangerouslySetInnerHTML` on a `<pre>` is the text a browser shows (issue
/// 24, class 4): `tests/page_oracle/html_text.mjs` parses fixed and random
/// fragments with parse5 and runs `react.js` on them.
#[test]
fn inner_html_reads_as_a_browser_shows_it() {
    if !oracle_ready() {
        return;
    }
    let out = Command::new("node")
        .arg(Path::new(ORACLE).join("html_text.mjs"))
        .output()
        .expect("node runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(text.trim())
        .unwrap_or_else(|e| panic!("html_text.mjs output is not JSON ({e}): {text}"));
    assert!(v["total"].as_u64().unwrap() > 20_000, "{text}");
    assert!(
        out.status.success(),
        "innerHTML read otherwise than a browser shows it: {text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

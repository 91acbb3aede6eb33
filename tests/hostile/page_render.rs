//! Pages read as their renderers show them (issue 24, classes 2 and 3): the
//! command a reader sees on the rendered page is the command recipe-drift
//! reads. A `\`-continued command inside a blockquote, a GitHub alert or a
//! list item keeps its container markup (`> `, indentation) on the
//! continuation lines, which is no shell text; a fence a browser does not show
//! as a code block (inside a `<script>`, `<textarea>`, ... left open before
//! it) or that MDX reads as JavaScript (inside a `{...}` expression) is an
//! error at the fence, never a command read as the page's.

use crate::Repo;

/// The recipe: `--tp` left at its default.
const RECIPE: &str = "sglang serve --model-path m\n";

/// `compare PAGE recipe.sh` (the recipe sets no `--tp`): the exit code and
/// output, run twice (same bytes).
fn compare(name: &str, page: &str, recipe: &str) -> (Option<i32>, String) {
    let repo = Repo::new();
    repo.write(name, page);
    repo.write("recipe.sh", recipe);
    let o = repo.run_deterministic(&["compare", name, "recipe.sh"]);
    o.assert_bounded().assert_no_leak();
    (o.code, o.both())
}

/// The page's command sets `--tp 4` on a continuation line inside its
/// container: against a recipe that leaves tp at 1 it is drift on tp (the
/// false "no drift" was the `> --tp 4` line read as a redirection), so it is
/// against one with `--tp 8`, and against a recipe with `--tp 4` it agrees.
fn reads_tp_4(name: &str, page: &str) {
    for recipe in [RECIPE, "sglang serve --model-path m --tp 8\n"] {
        let (code, out) = compare(name, page, recipe);
        assert_eq!(code, Some(1), "{page}\n{out}");
        assert!(out.contains("tp_size"), "{page}\n{out}");
    }
    let (code, out) = compare(name, page, "sglang serve --model-path m --tp 4\n");
    assert_eq!(code, Some(0), "{page}\n{out}");
}

#[test]
fn blockquote_continuation_is_read() {
    reads_tp_4(
        "docs.md",
        "# Serve\n\n> Launch it:\n>\n> ```bash\n> sglang serve --model-path m \\\n> --tp 4\n> ```\n",
    );
    // No space after `>`, and a blank quoted line inside the block.
    reads_tp_4(
        "docs.md",
        ">```bash\n>export X=1\n>\n>sglang serve --model-path m \\\n>--tp 4\n>```\n",
    );
}

#[test]
fn github_alert_continuation_is_read() {
    reads_tp_4(
        "docs.md",
        "> [!TIP]\n> Use four GPUs:\n>\n> ```bash\n> sglang serve --model-path m \\\n>   --tp 4\n> ```\n",
    );
}

#[test]
fn list_item_continuation_is_read() {
    // A console transcript in a list item: its `> ` continuation prompt is
    // indented by the item.
    reads_tp_4(
        "docs.md",
        "1. Start the server:\n\n   ```console\n   $ sglang serve --model-path m \\\n   > --tp 4\n   ```\n",
    );
    // A list item inside a blockquote.
    reads_tp_4(
        "docs.md",
        "> - Start the server:\n>\n>   ```bash\n>   sglang serve --model-path m \\\n>     --tp 4\n>   ```\n",
    );
}

/// On an MDX page, a fence on a list item's marker line keeps its lines in
/// the item (they were dedented out of it, and the command was missed).
#[test]
fn mdx_list_item_fence_is_read() {
    reads_tp_4(
        "page.mdx",
        "# Steps\n\n- ```bash\n  sglang serve --model-path m \\\n    --tp 4\n  ```\n\nDone.\n",
    );
}

/// GitHub shows a fence in a footnote (GFM): it is read.
#[test]
fn footnote_block_is_read() {
    reads_tp_4(
        "docs.md",
        "Launch it.[^1]\n\n[^1]: On four GPUs:\n\n    ```bash\n    sglang serve --model-path m \\\n      --tp 4\n    ```\n",
    );
}

/// A quoted value continued onto a quoted line: the reader sees no `> ` in
/// it, and neither does recipe-drift.
#[test]
fn quoted_word_across_quoted_lines() {
    let repo = Repo::new();
    repo.write(
        "docs.md",
        "> ```bash\n> sglang serve --model-path m --served-model-name \"a\\\n> b\" --tp 4\n> ```\n",
    );
    let o = repo.run_deterministic(&["extract", "docs.md"]);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(0), "{}", o.both());
    let words: Vec<&str> = o
        .stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(
        words.windows(2).any(|w| w == ["--served-model-name", "ab"]),
        "{}",
        o.both()
    );
}

/// A fence inside a raw-text element left open before it: an error at the
/// fence naming the element, whatever the visible command after it says.
#[test]
fn fence_in_open_raw_text_element_is_an_error() {
    let visible = "\n```bash\nsglang serve --model-path m --tp 4\n```\n";
    for (page, at, element) in [
        (
            format!(
                "<div><script>\n\n```bash\nsglang serve --model-path m --tp 8\n```\n\n</script></div>\n{visible}"
            ),
            "docs.md:3:1",
            "`<script>` element opened at docs.md:1:6",
        ),
        (
            format!(
                "Notes <textarea>\n\n```bash\nsglang serve --model-path m --tp 8\n```\n\n</textarea>\n{visible}"
            ),
            "docs.md:3:1",
            "`<textarea>` element opened at docs.md:1:7",
        ),
        // An HTML comment opened in an HTML block and still open.
        (
            format!(
                "<div><!--\n\n```bash\nsglang serve --model-path m --tp 8\n```\n\n--></div>\n{visible}"
            ),
            "docs.md:3:1",
            "HTML comment `<!--` opened at docs.md:1:6",
        ),
        // A closing tag in a code span is escaped by the renderer: it closes
        // nothing.
        (
            format!(
                "<div><style>\n\n`</style>`\n\n```sh\nsglang serve --model-path m --tp 8\n```\n{visible}"
            ),
            "docs.md:5:1",
            "`<style>` element opened at docs.md:1:6",
        ),
    ] {
        let repo = Repo::new();
        repo.write("docs.md", &page);
        repo.run_deterministic(&["extract", "docs.md"])
            .assert_input_error(at, &[element, "a browser"])
            .assert_no_leak();
    }
}

/// Raw-text elements that are closed, commented out or escaped hide nothing.
#[test]
fn closed_raw_text_elements_hide_nothing() {
    for page in [
        "<div><style>p { color: red }</style></div>\n\n```bash\nsglang serve --model-path m --tp 4\n```\n",
        "<!-- <script> -->\n\n```bash\nsglang serve --model-path m --tp 4\n```\n",
        "Write \\<script> in text, or `<script>` in code.\n\n```bash\nsglang serve --model-path m --tp 4\n```\n",
    ] {
        let (code, out) = compare("docs.md", page, "sglang serve --model-path m --tp 4\n");
        assert_eq!(code, Some(0), "{page}\n{out}");
    }
}

/// A fence inside an MDX `{...}` expression is JavaScript (JSX text), shown
/// or not as the code decides: an error at the fence naming the `{`.
#[test]
fn fence_in_mdx_expression_is_an_error() {
    let visible = "\n```bash\nsglang serve --model-path m --tp 4\n```\n";
    for (page, at, opener) in [
        (
            format!(
                "{{false && <div>\n\n```bash\nsglang serve --model-path m --tp 8\n```\n\n</div>}}\n{visible}"
            ),
            "page.mdx:3:1",
            "MDX expression `{` opened at page.mdx:1:1",
        ),
        (
            format!(
                "# Page\n\nSee {{props.show ? <>\n\n```bash\nsglang serve --model-path m --tp 8\n```\n\n</> : null}}\n{visible}"
            ),
            "page.mdx:5:1",
            "MDX expression `{` opened at page.mdx:3:5",
        ),
        // A `}` in a JavaScript string does not end the expression.
        (
            format!(
                "{{'}}' && false && <div>\n\n```bash\nsglang serve --model-path m --tp 8\n```\n\n</div>}}\n{visible}"
            ),
            "page.mdx:3:1",
            "MDX expression `{` opened at page.mdx:1:1",
        ),
        // Nor is a raw-HTML `<pre>` in an expression a command.
        (
            format!("{{false && <pre>sglang serve --model-path m --tp 8</pre>}}\n{visible}"),
            "page.mdx:1:11",
            "MDX expression `{` opened at page.mdx:1:1",
        ),
    ] {
        let repo = Repo::new();
        repo.write("page.mdx", &page);
        repo.run_deterministic(&["extract", "page.mdx"])
            .assert_input_error(at, &[opener, "JavaScript"])
            .assert_no_leak();
    }
}

/// Closed expressions, quoted braces in attributes and escaped braces hide
/// nothing; in a `.md` page braces are text.
#[test]
fn closed_mdx_expressions_hide_nothing() {
    let fence = "\n```bash\nsglang serve --model-path m --tp 4\n```\n";
    for (name, page) in [
        ("page.mdx", format!("Two is {{1 + 1}}.\n{fence}")),
        ("page.mdx", format!("<div title=\"{{\">\n{fence}\n</div>\n")),
        ("page.mdx", format!("A literal \\{{ brace.\n{fence}")),
        ("page.md", format!("{{false && <div>\n{fence}\n</div>}}\n")),
    ] {
        let (code, out) = compare(name, &page, "sglang serve --model-path m --tp 4\n");
        assert_eq!(code, Some(0), "{page}\n{out}");
    }
}

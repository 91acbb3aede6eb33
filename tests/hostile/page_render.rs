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

// Issue 24, fresh adversary (classes 2 and 3). Each page's rendering was
// worked out by the CommonMark/GFM rules (a fenced block cannot take a lazy
// continuation line; a line indented less than a list item's content ends
// the item; a backtick fence's info string holds no backtick; a closing
// fence is the opening's kind and at least its length).

/// The argv of each launch `extract --format json` reads from `page`, or the
/// error (exit 2) it gives.
fn launches(name: &str, page: &str) -> Result<Vec<Vec<String>>, String> {
    let repo = Repo::new();
    repo.write(name, page);
    let o = repo.run_deterministic(&["extract", "--format", "json", name]);
    o.assert_bounded().assert_no_leak();
    if o.code == Some(2) {
        return Err(o.stderr);
    }
    assert_eq!(o.code, Some(0), "{}", o.both());
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    Ok(v["launches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            l["argv"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| w["text"].as_str().unwrap().to_string())
                .collect()
        })
        .collect())
}

#[test]
fn adversary_container_ends_cut_the_continued_command() {
    // The line without the container's markup is no lazy continuation of a
    // fence: the container (and the block) ends before it, and the
    // rendered command is only `sglang serve --model-path m \`.
    for (page, name) in [
        (
            "> ```bash\n> sglang serve --model-path m \\\n--tp 8\n> ```\n",
            "quote.md",
        ),
        (
            "- step\n  ```bash\n  sglang serve --model-path m \\\n--tp 8\n  ```\n",
            "item.md",
        ),
        (
            "- step\n\n  ```bash\n  sglang serve --model-path m \\\n --tp 8\n  ```\n",
            "item1.md",
        ),
        (
            "> > ```bash\n> > sglang serve --model-path m \\\n> --tp 8\n> > ```\n",
            "nested.md",
        ),
    ] {
        let got = launches(name, page).unwrap_or_else(|e| panic!("{page}\n{e}"));
        assert_eq!(got, [["--model-path", "m"]], "{page}");
        // So it is drift against a recipe with `--tp 8`.
        let (code, out) = compare(name, page, "sglang serve --model-path m --tp 8\n");
        assert_eq!(code, Some(1), "{page}\n{out}");
    }
}

#[test]
fn adversary_fence_edges_read_as_commonmark_renders_them() {
    for (name, page, want) in [
        // A fence indented two spaces takes at most two off each line.
        (
            "a.md",
            "  ```bash\n  sglang serve --model-path m \\\n --tp 8\n  ```\n",
            &["--model-path", "m", "--tp", "8"][..],
        ),
        // A tab after `>` in a blockquote.
        (
            "b.md",
            ">\t```bash\n>\tsglang serve --model-path m \\\n>\t  --tp 8\n>\t```\n",
            &["--model-path", "m", "--tp", "8"][..],
        ),
        // "```bash`" is no fence (a backtick in the info string); the bare
        // "```" after it opens one that runs to the end.
        (
            "c.md",
            "```bash`\nsglang serve --model-path m --tp 4\n```\nsglang serve --model-path m --tp 8\n",
            &["--model-path", "m", "--tp", "8"][..],
        ),
        // A closing fence may be indented up to three spaces.
        (
            "d.md",
            "```bash\nsglang serve --model-path m --tp 8\n  ```\n--tp 4\n```\n",
            &["--model-path", "m", "--tp", "8"][..],
        ),
        // Indented code continued with `\` on a `.md` page.
        (
            "e.md",
            "    sglang serve --model-path m \\\n      --tp 8\n",
            &["--model-path", "m", "--tp", "8"][..],
        ),
        // An unclosed inline `<!--` in a paragraph is text: the fence after
        // the paragraph is shown.
        (
            "f.md",
            "text <!--\n\n```bash\nsglang serve --model-path m --tp 8\n```\n\n-->\n",
            &["--model-path", "m", "--tp", "8"][..],
        ),
    ] {
        let got = launches(name, page).unwrap_or_else(|e| panic!("{page}\n{e}"));
        assert_eq!(got, [want], "{page}");
    }
    // Not code: indented lines in MDX, and indented lines that continue a
    // paragraph.
    for (name, page) in [
        (
            "g.mdx",
            "    sglang serve --model-path m \\\n      --tp 8\n",
        ),
        ("h.md", "text\n    sglang serve --model-path m --tp 8\n"),
        (
            "i.mdx",
            "{/*\n\n```bash\nsglang serve --model-path m --tp 8\n```\n\n*/}\n",
        ),
    ] {
        let got = launches(name, page).unwrap_or_else(|e| panic!("{page}\n{e}"));
        assert!(got.is_empty(), "{page}\n{got:?}");
    }
}

/// A closing fence of the other kind or shorter is content: the block holds
/// a stray backtick line, which bash refuses (exit 2 at it), never the
/// `--tp 8` after it read as part of the command.
#[test]
fn adversary_fence_that_does_not_close_is_content() {
    for page in [
        "```bash\nsglang serve --model-path m \\\n    ```\n--tp 8\n```\n",
        "``````bash\nsglang serve --model-path m \\\n```\n--tp 8\n``````\n",
        "~~~bash\nsglang serve --model-path m \\\n```\n--tp 8\n~~~\n",
    ] {
        let e = launches("x.md", page).expect_err(page);
        assert!(e.contains("x.md:3:"), "{page}\n{e}");
    }
}

/// Elements a browser does not render hold no command: an error at the
/// fence naming the element.
#[test]
fn adversary_fences_in_inert_elements_are_errors() {
    for (open, close, at) in [
        ("<template>", "</template>", "x.md:1:1"),
        ("<noscript>", "</noscript>", "x.md:1:1"),
        ("<div><noembed>", "</noembed></div>", "x.md:1:6"),
        ("<div><iframe>", "</iframe></div>", "x.md:1:6"),
        ("<div><noframes>", "</noframes></div>", "x.md:1:6"),
        ("<div><plaintext>", "", "x.md:1:6"),
    ] {
        let page =
            format!("{open}\n\n```bash\nsglang serve --model-path m --tp 8\n```\n\n{close}\n");
        let e = launches("x.md", &page).expect_err(&page);
        assert!(e.contains("x.md:3:1") && e.contains(at), "{page}\n{e}");
    }
}

/// A fence inside an element with the `hidden` attribute or `display:none`
/// is not shown by a docs site (GitHub drops the attribute and shows it): as
/// for `<template>`, which command the page shows depends on the renderer,
/// so it is an error at the fence, never the page's command read silently.
/// (Today it is read: against a recipe with the same `--tp 4`, green while
/// the reader sees no command at all.)
#[test]
fn adversary_fence_in_a_hidden_element_is_not_the_pages_command() {
    for (name, open) in [
        ("x.md", "<div hidden>"),
        ("x.md", "<div style=\"display:none\">"),
        ("x.mdx", "<div hidden>"),
        ("x.mdx", "<div style={{display: 'none'}}>"),
    ] {
        let page =
            format!("{open}\n\n```bash\nsglang serve --model-path m --tp 4\n```\n\n</div>\n");
        let (code, out) = compare(name, &page, "sglang serve --model-path m --tp 4\n");
        assert_eq!(code, Some(2), "{page}\n{out}");
        assert!(out.contains(&format!("{name}:3:1")), "{page}\n{out}");
    }
    // Elements a browser's own style sheet hides (`dialog` not open,
    // `datalist`) or whose children are fallback content a browser with
    // scripts and media support does not render (`canvas`, `video`,
    // `audio`): the fence is not shown there either.
    for el in ["dialog", "datalist", "canvas", "video", "audio"] {
        let page =
            format!("<{el}>\n\n```bash\nsglang serve --model-path m --tp 4\n```\n\n</{el}>\n");
        let (code, out) = compare("x.md", &page, "sglang serve --model-path m --tp 4\n");
        assert_ne!(code, Some(0), "{page}\n{out}");
    }
    // A raw `<pre hidden>` (or one hidden by its style) is not shown either.
    for (name, page) in [
        (
            "x.md",
            "<pre hidden>sglang serve --model-path m --tp 4</pre>\n",
        ),
        (
            "x.mdx",
            "<pre hidden>sglang serve --model-path m --tp 4</pre>\n",
        ),
        (
            "x.mdx",
            "<pre style={{display: \"none\"}}>sglang serve --model-path m --tp 4</pre>\n",
        ),
    ] {
        let (code, out) = compare(name, page, "sglang serve --model-path m --tp 4\n");
        assert_ne!(code, Some(0), "{page}\n{out}");
    }
}

/// Expressions whose end brace hides in JavaScript (a JSX attribute value,
/// a string in a JSX expression, a block or line comment, a template
/// literal): the fence is in the expression (`@mdx-js/mdx` 3 renders no
/// block for any of them), an error at the fence, never a command.
#[test]
fn adversary_fence_in_mdx_expression_with_hidden_braces_is_an_error() {
    for page in [
        "{/[{]/.test('x') && false && <div>\n\n```bash\nsglang serve --model-path m --tp 4\n```\n\n</div>}\n",
        "{false && <div title=\"}\">\n\n```bash\nsglang serve --model-path m --tp 4\n```\n\n</div>}\n",
        "{false && <div>{'{'}\n\n```bash\nsglang serve --model-path m --tp 4\n```\n\n</div>}\n",
        "{false && /* } */ <div>\n\n```bash\nsglang serve --model-path m --tp 4\n```\n\n</div>}\n",
        "{false && `}` && <div>\n\n```bash\nsglang serve --model-path m --tp 4\n```\n\n</div>}\n",
    ] {
        let e = launches("x.mdx", page).expect_err(page);
        assert!(
            e.contains("x.mdx:3:1") && e.contains("MDX expression"),
            "{page}\n{e}"
        );
    }
}

/// A regular expression holding `}` (`/}/`) does not end an MDX expression
/// (acorn reads it as a regex; `@mdx-js/mdx` 3 renders no block for this
/// page). recipe-drift counts that `}` as the end, reads the hidden fence
/// as the page's command, and `compare` says no drift against a recipe
/// with the same `--tp 4` while the reader sees no command at all.
#[test]
fn adversary_regex_brace_does_not_end_an_mdx_expression() {
    let page =
        "{/}/.test('x') && <div>\n\n```bash\nsglang serve --model-path m --tp 4\n```\n\n</div>}\n";
    let (code, out) = compare("x.mdx", page, "sglang serve --model-path m --tp 4\n");
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("x.mdx:3:1"), "{out}");
}

/// An `.mdx` page whose imported component wraps a fenced block: MDX
/// compiles the fence as a code block, its text shown as written (the
/// oracle's `@mdx-js/mdx` 3 rendering of such a page holds the fence's text
/// verbatim). The component is rendered with its children's source spliced
/// in as JSX, so the fence's text is read as JSX: a `<pre>` after a bash
/// comment renders as a command no reader sees, `{x}` runs as JavaScript,
/// and `${TP:-4}` or a JSON argument is a "JSX syntax error".
fn boxed(fence_text: &str, before: &str) -> Repo {
    let repo = Repo::new();
    repo.write(
        "docs/box.jsx",
        "export const Box = ({ children }) => <div>{children}</div>;\n",
    );
    repo.write(
        "docs/page.mdx",
        format!("import {{ Box }} from './box.jsx';\n\n{before}<Box>\n\n```bash\n{fence_text}\n```\n\n</Box>\n"),
    );
    repo.write("recipe.sh", "sglang serve --model-path m --tp 4\n");
    repo
}

/// The reader sees a `curl` with a shell comment (and the server started
/// from a Python block, `--tp 8`); recipe-drift reads the `<pre>` in the
/// comment as the page's command, `--tp 4`, and says no drift.
#[test]
fn adversary_fence_text_in_a_component_is_not_jsx() {
    for before in [
        "",
        "```python\nserver, port = launch_server_cmd(\"python3 -m sglang.launch_server --model-path m --tp 8\")\n```\n\n",
    ] {
        let repo = boxed(
            "curl -s localhost:30000/health # <pre>sglang serve --model-path m --tp 4</pre>",
            before,
        );
        let o = repo.run_deterministic(&["compare", "docs/page.mdx", "recipe.sh", "--offline"]);
        o.assert_bounded().assert_no_leak();
        assert_ne!(o.code, Some(0), "{}", o.both());
    }
    // An inline code span in the component's Markdown: MDX shows it as
    // code text, no `<pre>` at all.
    let repo = boxed("echo", "");
    repo.write(
        "docs/page.mdx",
        "import { Box } from './box.jsx';\n\n<Box>\n\nThe server prints its command in `<pre>sglang serve --model-path m --tp 4</pre>`.\n\n</Box>\n",
    );
    let o = repo.run_deterministic(&["compare", "docs/page.mdx", "recipe.sh", "--offline"]);
    o.assert_bounded();
    assert_ne!(o.code, Some(0), "{}", o.both());
}

/// The fence's text is shell, shown as written: `${TP:-4}`, a JSON
/// argument and `{x}` are read as bash reads them, never as JSX (exit 0,
/// `--tp 4` against the recipe's `--tp 4`).
#[test]
fn adversary_shell_braces_in_a_fence_inside_a_component_are_text() {
    for text in [
        "sglang serve --model-path m --tp ${TP:-4}",
        "sglang serve --model-path m --tp 4 --json-model-override-args '{\"a\": 1}'",
        // (`--served-model-name` would name another model: MAJOR drift.)
        "sglang serve --model-path m --tp 4 --chat-template {x}",
        "sglang serve --model-path m --tp 4 # <b>",
    ] {
        let repo = boxed(text, "");
        let o = repo.run_deterministic(&["compare", "docs/page.mdx", "recipe.sh", "--offline"]);
        o.assert_bounded().assert_no_leak();
        assert_eq!(o.code, Some(0), "{text}\n{}", o.both());
    }
    // A `<pre>` written in the component's children is one command (MDX
    // renders it once), not two.
    let repo = boxed("echo", "");
    repo.write(
        "docs/page.mdx",
        "import { Box } from './box.jsx';\n\n<Box>\n<pre>sglang serve --model-path m --tp 4</pre>\n</Box>\n",
    );
    let o = repo.run_deterministic(&["compare", "docs/page.mdx", "recipe.sh", "--offline"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
}

/// Tabs are alternatives: a reader on the NVIDIA tab runs that tab's block,
/// not the AMD tab's "Environment" block. recipe-drift passes the AMD tab's
/// `export TP=4` on to the NVIDIA command (`--tp ${TP:-8}`, which that
/// reader runs as `--tp 8`) and says no drift against a recipe at `--tp 4`.
#[test]
fn adversary_an_environment_block_does_not_cross_tabs() {
    let page = "<Tabs>\n<Tab title=\"AMD\">\n\n```bash\nexport TP=4\n```\n\n</Tab>\n<Tab title=\"NVIDIA\">\n\n```bash\nsglang serve --model-path m --tp ${TP:-8}\n```\n\n</Tab>\n</Tabs>\n";
    let got = launches("x.mdx", page).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got, [["--model-path", "m", "--tp", "8"]], "{page}");
    let (code, out) = compare("x.mdx", page, "sglang serve --model-path m --tp 4\n");
    assert_eq!(code, Some(1), "{out}");
}

/// Within one tab, an Environment block does reach the command after it.
#[test]
fn adversary_an_environment_block_reaches_its_own_tabs_command() {
    let page = "<Tabs>\n<Tab title=\"NVIDIA\">\n\n```bash\nexport TP=4\n```\n\n```bash\nsglang serve --model-path m --tp ${TP:-8}\n```\n\n</Tab>\n</Tabs>\n";
    let got = launches("x.mdx", page).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got, [["--model-path", "m", "--tp", "4"]], "{page}");
}

/// Adversary round 5b (class 3): a JSX attribute value may span lines in
/// MDX (`<div title="` ... `">`), and what it holds is a string, never
/// Markdown: `@mdx-js/mdx` 3 renders no `<pre>` for a fence inside it (the
/// page oracle shows only the `--tp ${TP:-4}` block). recipe-drift reads
/// the fence as an Environment block, passes `TP=8` to the visible command
/// and says no drift against a recipe at `--tp 8`.
#[test]
fn adversary_fence_in_a_jsx_attribute_value_is_not_a_block() {
    for (open, close) in [("<div title=\"", "\" />"), ("<div data-x='", "'>\n</div>")] {
        let page = format!(
            "# Page\n\n{open}\n```bash\nexport TP=8\n```\n{close}\n\n```bash\nsglang serve --model-path m --tp ${{TP:-4}}\n```\n"
        );
        let got = launches("x.mdx", &page);
        if let Ok(got) = &got {
            assert_eq!(got, &[["--model-path", "m", "--tp", "4"]], "{page}");
        }
        let (code, out) = compare("x.mdx", &page, "sglang serve --model-path m --tp 8\n");
        assert_ne!(code, Some(0), "{page}\n{out}");
    }
}

/// Adversary round 5b (class 3): an ESM block (`export ...`) is JavaScript
/// up to the blank line where it parses; a fence inside its comment is no
/// block (MDX renders only the `--tp ${TP:-4}` one). recipe-drift reads it
/// and passes `TP=8` on: no drift against `--tp 8`. (`security.md` lists an
/// ESM block holding a fence as not tracked; it is a false "no drift".)
#[test]
fn adversary_fence_in_an_esm_block_is_not_a_block() {
    let page = "export const s = 1; /*\n```bash\nexport TP=8\n```\n*/\n\n# Page\n\n```bash\nsglang serve --model-path m --tp ${TP:-4}\n```\n";
    if let Ok(got) = launches("x.mdx", page) {
        assert_eq!(got, [["--model-path", "m", "--tp", "4"]], "{page}");
    }
    let (code, out) = compare("x.mdx", page, "sglang serve --model-path m --tp 8\n");
    assert_ne!(code, Some(0), "{out}");
}

/// Adversary round 5b (class 3): the fences written inside an imported
/// component are shown only where, and if, the component renders its
/// `children` (React renders what the component returns). Each component
/// below drops them or renders them inside an element a browser does not
/// show; recipe-drift reads the fence inside `<C>` as the page's command:
/// no drift against the recipe's `--tp 4`, though the reader sees no command
/// at all, or (second page) sees `--tp 8`.
#[test]
fn adversary_children_a_component_drops_are_not_shown() {
    for body in [
        "<div>nothing to see</div>",
        "<div>{null && children}</div>",
        "<div hidden>{children}</div>",
        "<div style={{display: 'none'}}>{children}</div>",
        "<template>{children}</template>",
    ] {
        let repo = Repo::new();
        repo.write(
            "docs/c.jsx",
            format!("export const C = ({{ children }}) => {body};\n"),
        );
        repo.write("recipe.sh", "sglang serve --model-path m --tp 4\n");
        for tail in ["", "```bash\nsglang serve --model-path m --tp 8\n```\n"] {
            repo.write(
                "docs/page.mdx",
                format!("import {{ C }} from './c.jsx';\n\n<C>\n\n```bash\nsglang serve --model-path m --tp 4\n```\n\n</C>\n\n{tail}"),
            );
            let o = repo.run_deterministic(&["compare", "docs/page.mdx", "recipe.sh", "--offline"]);
            o.assert_bounded().assert_no_leak();
            assert_ne!(o.code, Some(0), "{body}: {}", o.both());
        }
    }
}

/// A page whose first block (`--tp 4`) sits in `<open>` ... `</close>` and
/// whose second block (`--tp 8`) is outside it.
fn hidden_then_shown(open: &str, close: &str) -> String {
    format!(
        "{open}\n\n```bash\nsglang serve --model-path m --tp 4\n```\n\n{close}\n\n```bash\nsglang serve --model-path m --tp 8\n```\n"
    )
}

/// Adversary round 5b (classes 2 and 3): elements a browser does not show
/// that the page reader does not recognise as hidden: CSS other than
/// `display: none` (`visibility: hidden`), a style attribute whose value
/// holds a character reference (`display:&#110;one` is `display:none` to
/// the HTML parser), and on MDX pages a `hidden` given by a spread
/// (`{...{hidden: true}}`) or a style computed by an expression. The block
/// inside is read as a command of the page; it must be an error (as for
/// `display: none`), or only the `--tp 8` block is the page's.
#[test]
fn adversary_other_hiding_on_pages_is_recognised() {
    for (name, open, close) in [
        ("a.md", "<div style=\"visibility:hidden\">", "</div>"),
        ("b.md", "<div style=\"display:&#110;one\">", "</div>"),
        ("c.mdx", "<div style={{visibility: 'hidden'}}>", "</div>"),
        ("d.mdx", "<div {...{hidden: true}}>", "</div>"),
        ("e.mdx", "<div style={{display: 'no' + 'ne'}}>", "</div>"),
        ("f.mdx", "<div style={{['display']: 'none'}}>", "</div>"),
    ] {
        let page = hidden_then_shown(open, close);
        if let Ok(got) = launches(name, &page) {
            assert_eq!(got, [["--model-path", "m", "--tp", "8"]], "{name}: {page}");
        }
    }
}

/// Adversary round 5b (classes 2 and 3): the other way, elements that look
/// hidden but are shown are an error today (exit 2 on a good page): React
/// omits `hidden={false}`, and of two `display` declarations in one style
/// attribute the last wins (`display:none;display:block` is shown).
#[test]
fn adversary_elements_that_only_look_hidden_on_pages_are_read() {
    for (name, open) in [
        ("a.mdx", "<div hidden={false}>"),
        ("b.md", "<div style=\"display:none;display:block\">"),
        ("c.mdx", "<div style={{display: 'none', display: 'block'}}>"),
    ] {
        let page = hidden_then_shown(open, "</div>");
        let got = launches(name, &page).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got.len(), 2, "{name}: {got:?}");
    }
}

/// Adversary round 5b (class 2), held: a raw-HTML style attribute hides
/// however CSS lets it be written (property and value in any case, with
/// `!important`, blanks around `:`, a comment before it, unquoted): the
/// block inside is an error at its fence, never the page's command.
#[test]
fn adversary_held_style_attributes_that_hide() {
    for style in [
        "style=\"DISPLAY:NONE\"",
        "style=\"display:none !important\"",
        "style=\"display : none\"",
        "style=\"/*x*/display:none\"",
        "style=display:none",
    ] {
        let page = hidden_then_shown(&format!("<div {style}>"), "</div>");
        let e = launches("p.md", &page).expect_err(style);
        assert!(e.contains("p.md:3:1"), "{style}: {e}");
    }
}

// Issue 24, round 6 (classes 2 and 3): 313 generated `.md` pages and 101
// `.mdx` pages, each rendered by the page oracle's packages (micromark + GFM
// with raw HTML passed through; @mdx-js/mdx 3 + React) and parsed by parse5,
// the visible `<pre>` blocks run by real bash with a stub `sglang`. The pages
// below are where recipe-drift read, as the page's only command, a block a
// browser does not show: `compare` is green against a recipe the reader
// never sees on the page.

/// A recipe at `--tp 8`, the hidden command's value.
const RECIPE_TP_8: &str = "sglang serve --model-path m --tp 8\n";

/// A GFM footnote definition that no `[^1]` references is not rendered
/// (micromark and GitHub drop it): its code block is no command on the page.
#[test]
fn adversary_round6_unreferenced_footnote_block_is_not_read() {
    let page =
        "# Page\n\n[^1]: note\n\n    ```bash\n    sglang serve --model-path m --tp 8\n    ```\n";
    let (code, out) = compare("docs.md", page, RECIPE_TP_8);
    assert_ne!(code, Some(0), "{out}");
    // Beside a visible command, only the visible one is read.
    let page = "# Page\n\n```bash\nsglang serve --model-path m --tp 4\n```\n\n[^1]: note\n\n    ```bash\n    sglang serve --model-path m --tp 8\n    ```\n";
    assert_eq!(
        launches("docs.md", page),
        Ok(vec![vec![
            "--model-path".to_string(),
            "m".into(),
            "--tp".into(),
            "4".into()
        ]])
    );
}

/// A raw-HTML `<pre>` whose `<code>` is `hidden` (or `display: none`) shows
/// nothing on a docs site; recipe-drift refuses a hidden `<pre>` as
/// renderer-dependent, but reads the hidden `<code>` inside one as the
/// visible command.
#[test]
fn adversary_round6_hidden_code_in_a_raw_pre_is_not_the_visible_command() {
    for page in [
        "# Page\n\n<pre><code hidden>sglang serve --model-path m --tp 8</code></pre>\n",
        "# Page\n\n<pre><code style=\"display:none\">sglang serve --model-path m --tp 8</code></pre>\n",
    ] {
        let (code, out) = compare("docs.md", page, RECIPE_TP_8);
        assert_ne!(code, Some(0), "{page}\n{out}");
    }
}

/// An open `<select>` puts the HTML parser in its "in select" mode: the
/// `<pre>`/`<code>` tags of later blocks are dropped and their text lands in
/// the select, which shows only its options (parse5 finds no `<pre>`). The
/// `<textarea>`/`<script>` case is refused; `<select>` is read.
#[test]
fn adversary_round6_blocks_inside_an_open_select_are_not_read() {
    for (name, page) in [
        (
            "docs.md",
            "# Page\n\n<select>\n\n```bash\nsglang serve --model-path m --tp 8\n```\n",
        ),
        (
            "docs.md",
            "# Page\n\n<select><option>\n\n```bash\nsglang serve --model-path m --tp 8\n```\n",
        ),
        (
            "docs.mdx",
            "# Page\n\n<select>\n\n```bash\nsglang serve --model-path m --tp 8\n```\n\n</select>\n",
        ),
    ] {
        let (code, out) = compare(name, page, RECIPE_TP_8);
        assert_ne!(code, Some(0), "{page}\n{out}");
    }
}

/// Pages of the same set read as the renderers show them: a `> ` inside a
/// quoted fence is shell text (a redirection in bash), a tab after `>`, a
/// character reference in the info string (`b&#97;sh` renders as `bash`),
/// and MDX's indented text, which is no code block.
#[test]
fn adversary_round6_held_pages() {
    let tp = |v: &str| {
        vec![
            "--model-path".to_string(),
            "m".into(),
            "--tp".into(),
            v.to_string(),
        ]
    };
    for (name, page, want) in [
        (
            "docs.md",
            "# Page\n\n>\t```bash\n>\tsglang serve --model-path m \\\n>\t  --tp 4\n>\t```\n",
            vec![tp("4")],
        ),
        (
            "docs.md",
            "# Page\n\n```b&#97;sh\nsglang serve --model-path m --tp 4\n```\n",
            vec![tp("4")],
        ),
        (
            "docs.mdx",
            "# Page\n\n    sglang serve --model-path m --tp 8\n\n```bash\nsglang serve --model-path m --tp 4\n```\n",
            vec![tp("4")],
        ),
    ] {
        assert_eq!(launches(name, page), Ok(want), "{page}");
    }
    // `> --tp 8` inside the quoted fence is bash's redirection to `--tp`:
    // the launch has no `--tp` word of its own.
    let page = "# Page\n\n> ```bash\n> sglang serve --model-path m \\\n> > --tp 8\n> ```\n";
    let read = launches("docs.md", page).unwrap();
    assert_eq!(read.len(), 1, "{read:?}");
    assert!(!read[0].contains(&"--tp".to_string()), "{read:?}");
}

/// What the HTML tree builder does with raw HTML left open before a block
/// decides whether the block is shown (the page's rendering is parsed as a
/// browser parses it): a `<p hidden>` is closed by the block's `<pre>` tag
/// and a `<span hidden>` inside a paragraph by the paragraph's `</p>`, so
/// the block is the page's command; a `<div hidden>` in a paragraph closes
/// the paragraph and stays open, and a hidden `<em>` is reopened around the
/// block's text, so the block is not shown.
#[test]
fn raw_html_left_open_is_closed_as_the_html_parser_closes_it() {
    for open in [
        "<p hidden>",
        "<p style=\"display:none\">",
        "text <span hidden>",
        "text <span class=\"hidden\">",
        "> quoted <span hidden>",
    ] {
        let page =
            format!("# Page\n\n{open}\n\n```bash\nsglang serve --model-path m \\\n  --tp 4\n```\n");
        reads_tp_4("docs.md", &page);
    }
    // A formatting element (`<em>`, `<b>`) closed by `</p>` is reopened by
    // the parser around the next text, the block's among it.
    for open in [
        "text <div hidden>",
        "<div hidden><p>",
        "<section hidden>",
        "text <em class=\"hidden\">",
        "text <b hidden>",
    ] {
        let page =
            format!("# Page\n\n{open}\n\n```bash\nsglang serve --model-path m --tp 8\n```\n");
        let (code, out) = compare("docs.md", &page, RECIPE_TP_8);
        assert_eq!(code, Some(2), "{page}\n{out}");
        assert!(out.contains("docs.md:5:1"), "{page}\n{out}");
    }
}

/// Every way the one visibility model hides the `<code>` of a raw `<pre>`
/// (or an element between them) hides the command; a `<code>` that hides
/// nothing is read.
#[test]
fn hidden_code_of_a_raw_pre_in_every_form() {
    for code in [
        "<code class=\"hidden\">",
        "<code style=\"visibility: hidden\">",
        "<code popover>",
        "<code style=\"display:&#110;one\">",
        "<span hidden><code>",
    ] {
        let page =
            format!("# Page\n\n<pre>{code}sglang serve --model-path m --tp 8</code></pre>\n");
        let (code, out) = compare("docs.md", &page, RECIPE_TP_8);
        assert_ne!(code, Some(0), "{page}\n{out}");
    }
    let page = "# Page\n\n<pre><code class=\"language-bash\">sglang serve --model-path m --tp 4</code></pre>\n";
    reads_tp_4("docs.md", page);
}

/// A `<select>` left open anywhere before a block (an HTML block, inline in
/// a paragraph, with an `<optgroup>`) shows no code block; one closed before
/// the block leaves it shown.
#[test]
fn blocks_after_an_open_select_in_every_form() {
    for open in [
        "text <select>",
        "<select><optgroup label=\"a\">",
        "<form><select name=x>",
    ] {
        let page =
            format!("# Page\n\n{open}\n\n```bash\nsglang serve --model-path m --tp 8\n```\n");
        let (code, out) = compare("docs.md", &page, RECIPE_TP_8);
        assert_eq!(code, Some(2), "{page}\n{out}");
        assert!(out.contains("`<select>`"), "{page}\n{out}");
    }
    reads_tp_4(
        "docs.md",
        "# Page\n\n<select><option>a</option></select>\n\n```bash\nsglang serve --model-path m --tp 4\n```\n",
    );
}

/// `extract PAGE` in a fresh repository: the outcome, run twice (same bytes).
fn extract_page(name: &str, page: &str) -> crate::Outcome {
    let repo = Repo::new();
    repo.write(name, page);
    let o = repo.run_deterministic(&["extract", name]);
    o.assert_bounded().assert_no_leak();
    o
}

/// Round 8 (issue 24, class 3): an MDX page's
/// `<pre dangerouslySetInnerHTML={{__html: '...'}} />` renders the command
/// (the page oracle, @mdx-js/mdx 3 + react-dom + parse5, shows one block
/// `sglang serve --model-path m --tp 2`). recipe-drift says "no serve
/// commands found" and exits 0: the command a reader copies is silently not
/// read (a `check --docs-root` run never compares it).
#[test]
fn adversary_round8_mdx_inner_html_pre_is_read_or_refused() {
    for page in [
        "# P\n\n<pre dangerouslySetInnerHTML={{__html: 'sglang serve --model-path m --tp 2'}} />\n",
        "# P\n\n<pre dangerouslySetInnerHTML={{__html: 'sglang serve --model-path m --tp 2'}}></pre>\n",
        // A command rendered from the page's own ESM: the oracle shows the
        // block for each; recipe-drift says "no serve commands found" (while
        // `<pre>{'literal'}</pre>` is refused, exit 2).
        "export const C = <pre>sglang serve --model-path m --tp 2</pre>\n\n{C}\n",
        "export const cmd = 'sglang serve --model-path m --tp 2'\n\n<pre>{cmd}</pre>\n",
        "export const C = () => <pre>sglang serve --model-path m --tp 2</pre>\n\n{C()}\n",
    ] {
        let o = extract_page("docs/p.mdx", page);
        let read = o.code == Some(0) && o.stdout.contains("--tp") && o.stdout.contains("launch 1");
        let refused = o.code == Some(2) && o.stderr.contains("p.mdx:3:");
        assert!(read || refused, "{page}\n{}", o.both());
    }
}

/// Round 8 (class 3): a self-closing `<pre />` in MDX is an empty element (the
/// page oracle shows an empty block, then the fence's command). recipe-drift
/// reads it as a `<pre>` left open, so the fence after it becomes shell text
/// in the `<pre>` (its backquotes a command substitution) and the page yields
/// three launches instead of one.
#[test]
fn adversary_round8_mdx_self_closing_pre_is_empty() {
    for page in [
        "# P\n\n<pre />\n\n```bash\nsglang serve --model-path m --tp 8\n```\n",
        "# P\n\n<pre className=\"x\" />\n\ntext\n\n```bash\nsglang serve --model-path m --tp 8\n```\n",
    ] {
        let o = extract_page("docs/p.mdx", page);
        assert_eq!(o.code, Some(0), "{}", o.both());
        assert!(o.stdout.contains("launch 1"), "{}", o.both());
        assert!(!o.stdout.contains("launch 2"), "{page}\n{}", o.both());
    }
}

/// Round 8 (classes 2 and 3), pages that held against the page oracle
/// (micromark + GFM for `.md`, @mdx-js/mdx 3 for `.mdx`): fences in list
/// items with tabs, blockquotes without a space after `>`, setext headings
/// and link reference definitions before a fence, HTML blocks of kinds 1-5
/// (`<?`, `<![CDATA[`, `<!X`) around fences, custom elements, MDX comments
/// and fragments. Each reads exactly the oracle's `--tp`.
#[test]
fn adversary_round8_held_page_readings() {
    let fence = "```bash\nsglang serve --model-path m --tp 4\n```\n";
    for (name, page, launches) in [
        (
            "p.md",
            ">```bash\n>sglang serve --model-path m \\\n>--tp 4\n>```\n".to_string(),
            1,
        ),
        (
            "p.md",
            "- a\n\t- b\n\t\t```bash\n\t\tsglang serve --model-path m --tp 4\n\t\t```\n"
                .to_string(),
            1,
        ),
        ("p.md", format!("Title\n=====\n{fence}"), 1),
        ("p.md", format!("[x]: /url \"title\n{fence}\"\n"), 1),
        ("p.md", format!("<?php\n{fence}?>\n"), 0),
        ("p.md", format!("<![CDATA[\n{fence}]]>\n"), 0),
        ("p.md", format!("<!X\n{fence}>\n"), 0),
        ("p.md", format!("<custom-el>\n\n{fence}</custom-el>\n"), 1),
        (
            "p.md",
            format!("1) {}", fence.replace('\n', "\n   ").trim_end()),
            1,
        ),
        ("p.mdx", format!("{{/* x */}}\n\n{fence}"), 1),
        ("p.mdx", format!("<>\n\n{fence}\n</>\n"), 1),
        ("p.mdx", format!("{{/* \n{fence}*/}}\n"), 0),
    ] {
        let o = extract_page(&format!("docs/{name}"), &page);
        assert_eq!(o.code, Some(0), "{page}\n{}", o.both());
        let found =
            o.stdout.matches("\nlaunch ").count() + usize::from(o.stdout.starts_with("launch "));
        assert_eq!(found, launches, "{page}\n{}", o.both());
    }
}

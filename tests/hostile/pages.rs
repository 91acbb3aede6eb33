//! Markdown and MDX pages: non-ASCII text around component tags, broken ESM
//! and JSX, components used inline or never imported, fences MDX reads that
//! CommonMark alone would not (indented inside `<Tabs>`), a BOM, CR-only line
//! endings, and inputs built to make a scanner quadratic. Each is read
//! correctly or is an error at `file:line:col`; nothing is skipped silently.

use super::*;

/// A scratch docs tree with a generator `Gen` (prints one command) and a
/// plain component `Other`.
fn docs() -> Repo {
    let repo = Repo::new();
    repo.write(
        "src/snippets/gen.jsx",
        "export const Gen = ({ children }) => {\n  return <div>{children}<pre>{`sglang serve --model-path org/m --tp 2`}</pre></div>;\n};\nexport const Other = ({ title }) => <span>{title}</span>;\n",
    );
    repo
}

const IMPORT: &str = "import { Gen, Other } from '/src/snippets/gen.jsx';\n";

fn extract(repo: &Repo, page: &str) -> Outcome {
    repo.run_deterministic(&["extract", page])
}

/// The generator's command was read from the page.
fn renders_gen(o: &Outcome) {
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("[<Gen />]"), "{}", o.both());
    assert!(o.stdout.contains("--tp"), "{}", o.both());
}

/// A nested component tag with non-ASCII text (used to panic on a char
/// boundary), and non-ASCII text everywhere around the tags.
#[test]
fn non_ascii_text_around_nested_tags() {
    let repo = docs();
    repo.write(
        "docs/nested.mdx",
        format!("{IMPORT}\n<Gen>\n<Other title=\"é\" />\n</Gen>\n"),
    );
    renders_gen(&extract(&repo, "docs/nested.mdx"));
    repo.write(
        "docs/unicode.mdx",
        "# Modèle — 模型 🚀\n\nimport { Gen } from '/src/snippets/gen.jsx'; // é\n\nDéjà vu <Gen title=\"日本\" /> ünïcödé `<Gen />` 🚀\n\n<Tip>ça</Tip>\n",
    );
    renders_gen(&extract(&repo, "docs/unicode.mdx"));
}

/// Broken ESM or JSX is an error at its position, never a page read as if
/// it had no generator.
#[test]
fn broken_imports_and_tags_are_positioned_errors() {
    let repo = docs();
    for (name, page, at, words) in [
        (
            "unterminated",
            "import { Gen } from '/src/snippets/gen.jsx\n\n<Gen />\n".to_string(),
            "unterminated.mdx:1:21",
            &["Unterminated string"][..],
        ),
        (
            "unclosed",
            format!("{IMPORT}\n<Gen>\n\ntext\n"),
            "unclosed.mdx:3:1",
            &["<Gen>", "never closed"][..],
        ),
        (
            "unended",
            format!("{IMPORT}\n<Gen title=\"x\n"),
            "unended.mdx:3:1",
            &["never ends"][..],
        ),
        (
            "undefined",
            "# Page\n\nSome text.\n\n<Gen />\n".to_string(),
            "undefined.mdx:5:1",
            &["<Gen>", "not imported"][..],
        ),
        (
            "nested-undefined",
            format!("{IMPORT}\n<Tabs>\n<Tab title=\"A\">\n<Missing />\n</Tab>\n</Tabs>\n<Gen />\n"),
            "nested-undefined.mdx:5:1",
            &["<Missing>", "not imported"][..],
        ),
    ] {
        let file = format!("docs/{name}.mdx");
        repo.write(&file, page);
        extract(&repo, &file)
            .assert_input_error(at, words)
            .assert_no_leak();
    }
}

/// A component used inline, in a paragraph, is rendered.
#[test]
fn inline_component_is_rendered() {
    let repo = docs();
    repo.write(
        "docs/inline.mdx",
        format!(
            "{IMPORT}\nSee <Gen /> for the command. Before it you can\nimport the weights (prose, not ESM).\n"
        ),
    );
    renders_gen(&extract(&repo, "docs/inline.mdx"));
}

/// MDX reads fences inside `<Tabs>` even when indented or not separated by
/// blank lines (CommonMark alone would make them an HTML block or indented
/// code); a fence in a code span or inside another fence is not a tag.
#[test]
fn fences_inside_layout_components() {
    let repo = Repo::new();
    repo.write(
        "docs/tabs.mdx",
        "<Tabs>\n  <Tab title=\"AMD\">\n    ```bash\n    sglang serve --model-path org/m --tp 4\n    ```\n  </Tab>\n  <Tab title=\"NVIDIA\">\n    ```bash\n    sglang serve --model-path org/m --tp 8\n    ```\n  </Tab>\n</Tabs>\n\n```text\n<NotATag>\n```\n\n<Tree>\n  <Tree.Folder name=\"a\">\n  </Tree.Folder>\n</Tree>\n",
    );
    let o = extract(&repo, "docs/tabs.mdx");
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("docs/tabs.mdx:4:5"), "{}", o.both());
    assert!(o.stdout.contains("docs/tabs.mdx:9:5"), "{}", o.both());
    assert_eq!(o.stdout.matches("launch ").count(), 2, "{}", o.both());
}

/// A byte-order mark before the first fence; CRLF is read; CR-only line
/// endings are an error at the first bare CR.
#[test]
fn bom_and_line_endings() {
    let repo = Repo::new();
    for ext in ["md", "mdx"] {
        let bom = format!("docs/bom.{ext}");
        repo.write(
            &bom,
            "\u{feff}```bash\nsglang serve --model-path org/m --tp 8\n```\n",
        );
        let o = extract(&repo, &bom);
        o.assert_bounded();
        assert_eq!(o.code, Some(0), "{}", o.both());
        assert!(o.stdout.contains(&format!("{bom}:2:1")), "{}", o.both());

        let crlf = format!("docs/crlf.{ext}");
        repo.write(
            &crlf,
            "# T\r\n\r\n```bash\r\nsglang serve --model-path org/m --tp 8\r\n```\r\n",
        );
        let o = extract(&repo, &crlf);
        assert_eq!(o.code, Some(0), "{}", o.both());
        assert!(o.stdout.contains(&format!("{crlf}:4:1")), "{}", o.both());

        let cr = format!("docs/cr.{ext}");
        repo.write(
            &cr,
            "# T\r\r```bash\rsglang serve --model-path org/m --tp 8\r```\r",
        );
        extract(&repo, &cr).assert_input_error(&format!("{cr}:1:4"), &["carriage return"]);
    }
}

/// An indented code block in a Markdown page is read when it starts a server
/// (like an unlabelled fence), not skipped.
#[test]
fn indented_code_in_markdown_is_read() {
    let repo = Repo::new();
    repo.write(
        "docs/indented.md",
        "Run:\n\n    sglang serve --model-path org/m --tp 2\n\nText.\n",
    );
    let o = extract(&repo, "docs/indented.md");
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("docs/indented.md:3:5"), "{}", o.both());
}

/// A raw-HTML `<pre>` command in a Markdown page (a browser shows it) is read
/// like an unlabelled fence, `<pre><code>` too; one holding markup or a
/// character reference is an error at it. It used to be skipped silently.
#[test]
fn raw_html_pre_commands_are_read() {
    let repo = Repo::new();
    repo.write(
        "docs/pre.md",
        "# Doc\n\n<pre>\nsglang serve --model-path org/m --tp 8\n</pre>\n\n<PRE class=\"x\"><code>sglang serve --model-path org/m --tp 4</code></PRE>\n\n<pre>\nnot a command\n</pre>\n",
    );
    let o = extract(&repo, "docs/pre.md");
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    for at in [
        "launch 1: sglang serve (sglang) at docs/pre.md:4:1",
        "launch 2: sglang serve (sglang) at docs/pre.md:7:22",
    ] {
        assert!(o.stdout.contains(at), "{at}: {}", o.both());
    }
    assert!(!o.stdout.contains("launch 3"), "{}", o.both());
    repo.write(
        "docs/ent.md",
        "<pre>\nsglang serve --model-path org/m --tp 2 &amp;&amp; echo ok\n</pre>\n",
    );
    extract(&repo, "docs/ent.md")
        .assert_input_error("docs/ent.md:2:40", &["raw-HTML <pre>", "fenced code block"]);
}

/// A `<pre>` is read wherever a browser (or MDX) shows one: in a paragraph,
/// two on one line, on an MDX page; and never where it shows none: in an HTML
/// comment (one line or several), a fence, a code span. One in a `<script>`
/// string is shown by GitHub (its tag filter escapes `<script>`) and not by a
/// browser given the page's HTML: an error at it.
#[test]
fn raw_html_pre_is_read_where_shown_and_only_there() {
    let repo = Repo::new();
    let cmd = |tp: u32| format!("sglang serve --model-path org/m --tp {tp}");
    repo.write(
        "docs/shown.md",
        format!(
            "On two nodes: <pre>{}</pre> and <pre>{}</pre>\n\n<!-- <pre>{}</pre> -->\n\n<!--\n<pre>\n{}\n</pre>\n-->\n\n```text\n<pre>{}</pre>\n```\n\nInline `<pre>{}</pre>` code.\n",
            cmd(4),
            cmd(8),
            cmd(2),
            cmd(16),
            cmd(64),
            cmd(128)
        ),
    );
    let o = extract(&repo, "docs/shown.md");
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(
        o.stdout
            .contains("launch 1: sglang serve (sglang) at docs/shown.md:1:20"),
        "{}",
        o.both()
    );
    assert!(
        o.stdout
            .contains("launch 2: sglang serve (sglang) at docs/shown.md:1:74"),
        "{}",
        o.both()
    );
    assert!(!o.stdout.contains("launch 3"), "{}", o.both());
    repo.write(
        "docs/script.md",
        format!("<script>const t = `<pre>{}</pre>`;</script>\n", cmd(32)),
    );
    extract(&repo, "docs/script.md").assert_input_error(
        "docs/script.md:1:20",
        &[
            "`<script>` element opened at docs/script.md:1:1",
            "tag filter",
        ],
    );
    repo.write(
        "docs/page.mdx",
        format!("# Page\n\n<pre>\n{}\n</pre>\n", cmd(4)),
    );
    let o = extract(&repo, "docs/page.mdx");
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(
        o.stdout
            .contains("launch 1: sglang serve (sglang) at docs/page.mdx:4:1"),
        "{}",
        o.both()
    );
    // An MDX expression in the text is not read as words.
    repo.write(
        "docs/expr.mdx",
        "<pre>\nsglang serve --model-path {model} --tp 4\n</pre>\n",
    );
    extract(&repo, "docs/expr.mdx")
        .assert_input_error("docs/expr.mdx:2:27", &["raw-HTML <pre>", "expression"]);
    // Many unterminated opens stay linear.
    repo.write("docs/many.md", "<pre ".repeat(200_000));
    let o = extract(&repo, "docs/many.md");
    o.assert_bounded();
}

/// Inputs that make a per-tag search quadratic: many opened and closed
/// tags, many unclosed layout tags, deep nesting. Linear work, bounded.
#[test]
fn many_tags_stay_linear() {
    let repo = docs();
    let n = 50_000;
    let page = format!(
        "{IMPORT}\n{}{}\n<Gen />\n",
        "<Tab>\n".repeat(n),
        "</Tab>\n".repeat(n)
    );
    repo.write("docs/many.mdx", &page);
    let o = repo.run(&["extract", "docs/many.mdx"]);
    renders_gen(&o);
    assert!(o.wall < std::time::Duration::from_secs(10), "{}", o.both());

    let page = format!("{IMPORT}\n<Gen />\n{}", "<Tab> ".repeat(n));
    repo.write("docs/unclosed-many.mdx", &page);
    let o = repo.run(&["extract", "docs/unclosed-many.mdx"]);
    o.assert_input_error("unclosed-many.mdx:4:1", &["never closed"]);
    assert!(o.wall < std::time::Duration::from_secs(10), "{}", o.both());

    let page = format!("{IMPORT}\n<Gen />\n\n{}\n", ">".repeat(200_000));
    repo.write("docs/quotes.mdx", &page);
    let o = repo.run(&["extract", "docs/quotes.mdx"]);
    renders_gen(&o);
}

/// What React and MDX do not render is not read: tags and fences in MDX
/// comments (`{/* */}`, `{// ...}`), HTML comments, code fences and inline
/// code (also on a line that starts with a tag, which used to be blanked
/// whole before Markdown read it). A comment that never ends is an error at
/// its start.
#[test]
fn comments_and_code_hide_tags_and_fences() {
    let repo = docs();
    repo.write(
        "docs/comments.mdx",
        format!(
            "{IMPORT}\n{{/* <Missing /> */}}\n\nText {{/* <Gen /> */}} and {{// <Gen />\n}} inline.\n\n<!-- <Missing /> -->\n\n{{/*\n```bash\nsglang serve --model-path org/hidden --tp 9\n```\n*/}}\n\n<!--\n```bash\nsglang serve --model-path org/hidden --tp 9\n```\n-->\n\n`<Missing />`\n\n<Tip>Inline code after a tag: `<Missing />`.</Tip>\n\n```jsx\n<Missing />\n```\n\n<Gen />\n"
        ),
    );
    let o = extract(&repo, "docs/comments.mdx");
    renders_gen(&o);
    assert_eq!(o.stdout.matches("launch ").count(), 1, "{}", o.both());
    assert!(!o.stdout.contains("hidden"), "{}", o.both());

    // Many comments and expressions: linear work.
    repo.write(
        "docs/many-comments.mdx",
        format!(
            "{IMPORT}\n<Gen />\n\n{}\n",
            "{/**/} {x} {/* a */ y} {// z\n} <!-- c --> ".repeat(10_000)
        ),
    );
    renders_gen(&repo.run(&["extract", "docs/many-comments.mdx"]));

    for (name, page, at) in [
        (
            "open-mdx",
            format!("{IMPORT}\n<Gen />\n\n{{/* <Gen />\n"),
            "open-mdx.mdx:5:2",
        ),
        (
            "open-html",
            format!("{IMPORT}\n<Gen />\n\n<!-- <Gen />\n"),
            "open-html.mdx:5:1",
        ),
    ] {
        let file = format!("docs/{name}.mdx");
        repo.write(&file, page);
        extract(&repo, &file).assert_input_error(at, &["comment", "never closed"]);
    }
}

/// A tag nested in a tag of its own name is matched with its own closing
/// tag (the outer one used to end at the inner one's `</Gen>`); closing
/// tags that do not nest are errors at the closing tag.
#[test]
fn nested_tags_of_one_name_are_matched() {
    let repo = docs();
    repo.write(
        "docs/same-name.mdx",
        format!(
            "{IMPORT}\n<Tabs>\n<Tab title=\"a\">\n<Tabs>\n<Tab title=\"b\">\n<Gen>\n<Gen>\n<Other title=\"x\" />\n</Gen>\n</Gen>\n</Tab>\n</Tabs>\n</Tab>\n</Tabs>\n"
        ),
    );
    let o = extract(&repo, "docs/same-name.mdx");
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("[<Gen /> #1]"), "{}", o.both());

    for (name, page, at, words) in [
        (
            "crossed",
            format!("{IMPORT}\n<Tabs>\n<Tab>\n</Tabs>\n</Tab>\n<Gen />\n"),
            "crossed.mdx:5:1",
            &["</Tabs>", "<Tab>", "line 4, column 1", "nest"][..],
        ),
        (
            "stray",
            format!("{IMPORT}\n<Gen />\n</Tab>\n"),
            "stray.mdx:4:1",
            &["</Tab>", "closes no open tag"][..],
        ),
    ] {
        let file = format!("docs/{name}.mdx");
        repo.write(&file, page);
        extract(&repo, &file).assert_input_error(at, words);
    }
}

/// Budgets of a page: component tags, rendered components, imports per
/// module, module files and their bytes per bundle; each is an error at the
/// first tag or import past it, naming the budget.
#[test]
fn page_budgets() {
    let repo = docs();
    let page = format!("{IMPORT}\n{}<Gen />\n", "<Tab />\n".repeat(100_000));
    repo.write("docs/tags.mdx", page);
    let o = repo.run(&["extract", "docs/tags.mdx"]);
    o.assert_input_error("tags.mdx:100003:1", &["100000 component tags", "budget"]);

    let page = format!("{IMPORT}\n{}", "<Gen />\n".repeat(65));
    repo.write("docs/targets.mdx", page);
    extract(&repo, "docs/targets.mdx")
        .assert_input_error("targets.mdx:67:1", &["64 imported components", "budget"]);

    let imports: String = (0..257)
        .map(|i| format!("import {{ Gen as G{i} }} from '/src/snippets/gen.jsx';\n"))
        .collect();
    repo.write("docs/imports.mdx", format!("{imports}\n<G0 />\n"));
    extract(&repo, "docs/imports.mdx")
        .assert_input_error("imports.mdx:257:1", &["256 imports", "budget"]);

    // A chain of 65 modules, each importing the next.
    for i in 0..65 {
        repo.write(
            &format!("src/snippets/m{i}.jsx"),
            format!(
                "import {{ X }} from './m{}.jsx';\nexport const X = 1;\n",
                i + 1
            ),
        );
    }
    repo.write(
        "docs/modules.mdx",
        "import { Gen } from '/src/snippets/gen.jsx';\nimport { X } from '/src/snippets/m0.jsx';\n\n<Gen />\n",
    );
    extract(&repo, "docs/modules.mdx")
        .assert_input_error("m62.jsx:1:1", &["64 module files", "budget"]);

    // Three modules of 800 KiB (a comment each), chained: the third is
    // past the 2 MiB of imported modules.
    let comment = format!("// {}\n", "x".repeat(800 << 10));
    for i in 0..3 {
        repo.write(
            &format!("src/snippets/big{i}.jsx"),
            format!(
                "import {{ X }} from './big{}.jsx';\n{comment}export const X = 1;\n",
                i + 1
            ),
        );
    }
    repo.write(
        "docs/bytes.mdx",
        "import { Gen } from '/src/snippets/gen.jsx';\nimport { X } from '/src/snippets/big0.jsx';\n\n<Gen />\n",
    );
    extract(&repo, "docs/bytes.mdx").assert_input_error("big1.jsx:1:1", &["2048 KiB", "budget"]);
}

/// `text` as a Windows editor saves it: a byte-order mark, CRLF line endings.
fn bom_crlf(text: &str) -> String {
    format!("\u{feff}{}", text.replace('\n', "\r\n"))
}

/// Every format but bash reads a leading byte-order mark and CRLF line
/// endings as its own tool does (CommonMark and MDX, YAML, JavaScript, a
/// shell reading a pasted command): the same launches at the same
/// positions as the LF text (columns of line 1 count after the mark). A bare
/// CR is an error at its position in each of them. In bash a BOM is part of
/// the first word and a CR part of a word (`--tp 8\r` passes `8\r`), so a
/// script holding either (or a script it runs) is an error at it, not a
/// silently missed launch.
#[test]
fn bom_and_line_endings_in_every_format() {
    let repo = Repo::new();
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vllm-recipes");
    let mut recipes = Vec::new();
    for dir in ["", "strategies", "models/pebble"] {
        for e in std::fs::read_dir(fixtures.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "yaml") {
                let rel = p.strip_prefix(&fixtures).unwrap().display().to_string();
                recipes.push((rel, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    let files: Vec<(String, String)> = [
        ("cmd.txt", "sglang serve --model-path org/m \\\n  --tp 2\n"),
        ("page.md", "# T\n\n```bash\nsglang serve --model-path org/m --tp 4\n```\n"),
        (
            "src/snippets/gen.jsx",
            "export const Gen = () => {\n  const cmd = `sglang serve --model-path org/m \\\\\n  --tp 2`;\n  return <pre>{cmd}</pre>;\n};\n",
        ),
        ("docs/page.mdx", "import { Gen } from '/src/snippets/gen.jsx';\n\n<Gen />\n"),
        (
            "ix/configs/x-master.yaml",
            "e:\n  image: vllm/vllm-openai:v0.25.0\n  model: org/m\n  model-prefix: m\n  runner: h200\n  precision: fp8\n  framework: vllm\n  scenarios:\n    fixed-seq-len:\n      - isl: 1024\n        osl: 1024\n        search-space:\n          - {tp: 8, conc-start: 4, conc-end: 4}\n",
        ),
        (
            "recipe-drift.yaml",
            "links:\n  - name: a\n    docs: {file: page.md}\n    recipe: {file: cmd.txt}\n",
        ),
        ("bad.yaml", "bogus: 1\nlinks: []\n"),
    ]
    .into_iter()
    .map(|(p, t)| (p.to_string(), t.to_string()))
    .chain(recipes.into_iter().map(|(p, t)| (format!("recipes/{p}"), t)))
    .collect();
    for (variant, conv) in [
        ("lf", str::to_string as fn(&str) -> String),
        ("crlf", bom_crlf),
    ] {
        for (path, text) in &files {
            repo.write(&format!("{variant}/{path}"), conv(text));
        }
        // The InferenceX script is bash: LF in both.
        repo.write(
            &format!("{variant}/ix/benchmarks/single_node/fixed_seq_len/m_fp8_h200_vllm.sh"),
            "vllm serve \"$MODEL\" -tp \"$TP\"\n",
        );
    }
    let runs: &[&[&str]] = &[
        &["extract", "V/cmd.txt"],
        &["extract", "V/page.md"],
        &["extract", "V/src/snippets/gen.jsx"],
        &["extract", "V/docs/page.mdx"],
        &["extract", "--inferencex", "V/ix", "--entry", "e"],
        &[
            "extract",
            "--select",
            "hardware=h100",
            "V/recipes/models/pebble/Pebble-8B-Instruct.yaml",
        ],
        &["check", "--config", "V/recipe-drift.yaml"],
        &["check", "--config", "V/bad.yaml"],
    ];
    for args in runs {
        let with = |v: &str| -> Vec<String> {
            args.iter()
                .map(|a| a.replace("V/", &format!("{v}/")))
                .collect()
        };
        let (lf, crlf) = (with("lf"), with("crlf"));
        let lf = repo.run_deterministic(&lf.iter().map(String::as_str).collect::<Vec<_>>());
        let crlf = repo.run_deterministic(&crlf.iter().map(String::as_str).collect::<Vec<_>>());
        crlf.assert_bounded();
        assert!(
            lf.stdout.contains("launch") || lf.code == Some(2) || args[0] == "check",
            "{args:?}: {}",
            lf.both()
        );
        assert_eq!(
            lf.code,
            crlf.code,
            "{args:?}: {}\n{}",
            lf.both(),
            crlf.both()
        );
        assert_eq!(lf.stdout, crlf.stdout.replace("crlf/", "lf/"), "{args:?}");
        assert_eq!(lf.stderr, crlf.stderr.replace("crlf/", "lf/"), "{args:?}");
    }

    // A bare CR in each format but bash: an error at it.
    for (path, text, at) in [
        (
            "cr/cmd.txt",
            "sglang serve --tp 2\rsglang serve --tp 4\r",
            "cr/cmd.txt:1:20",
        ),
        (
            "cr/page.md",
            "# T\r\r```bash\rsglang serve --tp 2\r```\r",
            "cr/page.md:1:4",
        ),
        (
            "cr/gen.jsx",
            "export const Gen = () => <pre>x</pre>;\r",
            "cr/gen.jsx:1:39",
        ),
        (
            "cr/recipe-drift.yaml",
            "links: []\r",
            "cr/recipe-drift.yaml:1:10",
        ),
    ] {
        repo.write(path, text);
        let o = if path.ends_with("recipe-drift.yaml") {
            repo.run(&["check", "--config", path])
        } else {
            repo.run(&["extract", path])
        };
        o.assert_input_error(at, &["carriage return", "line feed"]);
    }
    repo.write("cr/ix/configs/x-master.yaml", "e:\r  image: x\r");
    repo.run(&["extract", "--inferencex", "cr/ix", "--entry", "e"])
        .assert_input_error("x-master.yaml:1:3", &["carriage return"]);

    // Bash: a BOM, a CRLF line ending, a CR in a script it runs.
    repo.write(
        "sh/bom.sh",
        "\u{feff}sglang serve --model-path org/m --tp 8\n",
    );
    repo.run(&["extract", "sh/bom.sh"])
        .assert_input_error("sh/bom.sh:1:1", &["byte-order mark", "bash"]);
    repo.write(
        "sh/crlf.sh",
        "sglang serve --model-path org/m \\\r\n  --tp 8\r\n",
    );
    repo.run(&["extract", "sh/crlf.sh"]).assert_input_error(
        "sh/crlf.sh:1:34",
        &["carriage return", "bash", "LF line endings"],
    );
    repo.write("sh/main.sh", "bash ./inner.sh\n");
    repo.write("sh/inner.sh", "sglang serve --model-path org/m --tp 8\r\n");
    repo.run(&["extract", "sh/main.sh"])
        .assert_input_error("inner.sh:1:39", &["carriage return"]);
}

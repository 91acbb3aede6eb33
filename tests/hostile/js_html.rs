//! HTML a generator sets with `dangerouslySetInnerHTML` is read as a browser
//! shows it (issue 24, class 4): parsed by the HTML tokenizer's rules, with
//! nothing of what a browser does not render. Every generator is written
//! here; `tests/page_differential.rs` checks the same reading against parse5.

use super::*;

/// A `<pre>` generator whose HTML is `html` (a JS string expression).
fn inner(html: &str) -> String {
    format!("export const Gen = () => <pre dangerouslySetInnerHTML={{{{__html: {html}}}}} />;\n")
}

/// The values of `flag` in `extract`'s launch listing.
fn values_of(stdout: &str, flag: &str) -> Vec<String> {
    let lines: Vec<&str> = stdout.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.split_whitespace().next() == Some(flag)
            && let Some(v) = lines.get(i + 1).and_then(|n| n.split_whitespace().next())
        {
            out.push(v.to_string());
        }
    }
    out
}

/// What a browser does not render is not read: a comment, a `<script>` or
/// `<style>` element's text, a `<template>`, an element with the `hidden`
/// attribute; a tag ends at the first `>` outside a quoted attribute value.
#[test]
fn hidden_html_is_not_read() {
    let repo = Repo::new();
    repo.write(
        "hidden.jsx",
        inner(
            "'<span title=\"a>b\" class=\"k\">sglang</span> serve --model-path m --tp <b>2</b>' + \
             '<!-- --tp 9 --><script>document.write(\" --tp 99\")</script><style> --tp 98 </style>' + \
             '<template> --tp 97</template><span hidden> --ep 8</span> --dp <i>4</i>'",
        ),
    );
    let o = repo.run_deterministic(&["extract", "hidden.jsx"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("launch 1: sglang serve"), "{}", o.both());
    assert_eq!(values_of(&o.stdout, "--tp"), ["2"], "{}", o.both());
    assert_eq!(values_of(&o.stdout, "--dp"), ["4"], "{}", o.both());
    assert!(values_of(&o.stdout, "--ep").is_empty(), "{}", o.both());
}

/// A `<` that starts no tag is text (`< x`, `<5`), and character references
/// are decoded as a browser decodes them, numeric ones without their `;`
/// too.
#[test]
fn html_text_and_references_read_as_a_browser_reads_them() {
    let repo = Repo::new();
    repo.write(
        "refs.jsx",
        inner("'sglang serve --model-path m &#45&#x2d;tp 4 --served-model-name m&copy --chat-template \\'a<5\\''"),
    );
    let o = repo.run_deterministic(&["extract", "refs.jsx"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert_eq!(values_of(&o.stdout, "--tp"), ["4"], "{}", o.both());
    assert_eq!(
        values_of(&o.stdout, "--served-model-name"),
        ["m\u{a9}"],
        "{}",
        o.both()
    );
    assert!(o.stdout.contains("a<5"), "{}", o.both());
}

/// Hostile HTML is read in one pass: deep nesting closed by end tags that
/// match nothing, a raw-text element and a comment that never end; what
/// they leave open hides the rest (`--ep 8`), as in a browser.
#[test]
fn hostile_html_is_read_in_linear_time() {
    let repo = Repo::new();
    for (name, html) in [
        (
            "deep.jsx",
            "'sglang serve --model-path m --tp 2' + '<div hidden>'.repeat(200000) + '</span>'.repeat(200000) + ' --ep 8'",
        ),
        (
            "raw.jsx",
            "'sglang serve --model-path m --tp 2' + '<title>' + '</titlex'.repeat(200000) + ' --ep 8'",
        ),
        (
            "comments.jsx",
            "'sglang serve --model-path m --tp 2' + '<!-- -- !>'.repeat(200000) + ' --ep 8'",
        ),
    ] {
        repo.write(name, inner(html));
        let o = repo.run(&["extract", name]);
        o.assert_bounded();
        assert_eq!(o.code, Some(0), "{name}: {}", o.both());
        assert_eq!(values_of(&o.stdout, "--tp"), ["2"], "{name}: {}", o.both());
        assert!(
            values_of(&o.stdout, "--ep").is_empty(),
            "{name}: {}",
            o.both()
        );
        assert!(o.wall.as_secs() < 10, "{name}: {}", o.both());
    }
}

/// `compare GEN r.txt` against a recipe with `--tp 4`: the exit code and
/// output.
fn compare_tp4(src: &str) -> (Option<i32>, String) {
    let repo = Repo::new();
    repo.write("gen.jsx", src);
    repo.write("r.txt", "sglang serve --model-path m --tp 4\n");
    let o = repo.run_deterministic(&["compare", "gen.jsx", "r.txt", "--offline"]);
    o.assert_bounded().assert_no_leak();
    (o.code, o.both())
}

/// Issue 24, fresh adversary (class 4): elements a generator renders that a
/// browser does not show (`hidden`, `<template>`, `<noscript>` with
/// scripts on, `display: none`) hold no command a reader sees. Each
/// generator shows `--tp 8` (or no `--tp`) and hides `--tp 4`, the
/// recipe's: the comparison must not be green. Today each is read as the
/// visible command and `compare` says no drift.
#[test]
fn adversary_hidden_jsx_elements_are_not_the_visible_command() {
    for src in [
        // A hidden <pre>; the visible command is in a <code>.
        "export const Gen = () => <div><pre hidden>{'sglang serve --model-path m --tp 4'}</pre><code>{'sglang serve --model-path m --tp 8'}</code></div>;\n",
        "export const Gen = () => <div><div hidden><pre>{'sglang serve --model-path m --tp 4'}</pre></div><p><code>{'sglang serve --model-path m --tp 8'}</code></p></div>;\n",
        "export const Gen = () => <div><template><pre>{'sglang serve --model-path m --tp 4'}</pre></template><code>{'sglang serve --model-path m --tp 8'}</code></div>;\n",
        "export const Gen = () => <div><pre style={{display: 'none'}}>{'sglang serve --model-path m --tp 4'}</pre><code>{'sglang serve --model-path m --tp 8'}</code></div>;\n",
        // Tailwind's `hidden` class is `display: none`.
        "export const Gen = () => <div><pre className=\"hidden\">{'sglang serve --model-path m --tp 4'}</pre><code>{'sglang serve --model-path m --tp 8'}</code></div>;\n",
        // The `--tp 4` is a hidden span inside the shown command.
        "export const Gen = () => <div><pre>{'sglang serve --model-path m'}<span hidden>{' --tp 4'}</span></pre></div>;\n",
        "export const Gen = () => <pre><noscript>{'sglang serve --model-path m --tp 4'}</noscript></pre>;\n",
    ] {
        let (code, out) = compare_tp4(src);
        assert_ne!(code, Some(0), "{src}\n{out}");
    }
    // And the other way: a hidden `--tp 8` inside a shown `--tp 4` command
    // is no drift.
    let (code, out) = compare_tp4(
        "export const Gen = () => <div><pre>{'sglang serve --model-path m --tp 4'}<span hidden>{' --tp 8'}</span></pre></div>;\n",
    );
    assert_eq!(code, Some(0), "{out}");
}

/// Shown elements that only look hidden are read: `aria-hidden` (a screen
/// reader's hint, still painted), `hidden={false}` (React omits it), a
/// `<details>` (shown when opened).
#[test]
fn adversary_elements_that_are_shown_are_read() {
    for src in [
        "export const Gen = () => <pre aria-hidden=\"true\">{'sglang serve --model-path m --tp 4'}</pre>;\n",
        "export const Gen = () => <pre hidden={false}>{'sglang serve --model-path m --tp 4'}</pre>;\n",
        "export const Gen = () => <details><summary>cmd</summary><pre>{'sglang serve --model-path m --tp 4'}</pre></details>;\n",
    ] {
        let (code, out) = compare_tp4(src);
        assert_eq!(code, Some(0), "{src}\n{out}");
    }
}

/// HTML set with `dangerouslySetInnerHTML` with hidden parts of other
/// kinds: nothing of them is read.
#[test]
fn adversary_hidden_inner_html_is_not_read() {
    for html in [
        "'sglang serve --model-path m --tp 4<noscript> --tp 8</noscript>'",
        "'sglang serve --model-path m --tp 4<div hidden=\"\"> --tp 8</div>'",
        "'sglang serve --model-path m --tp 4<iframe> --tp 8</iframe>'",
        "'sglang serve --model-path m --tp 4<!-- --tp 8 -- >--><template><b> --tp 8</b></template>'",
    ] {
        let (code, out) = compare_tp4(&inner(html));
        assert_eq!(code, Some(0), "{html}\n{out}");
    }
}

/// A copy button that copies another command than the one shown: the reader
/// who clicks it runs `--tp 8`, recipe-drift reads the shown `--tp 4` (the
/// recipe's) and says no drift. What is copied is a command a reader runs:
/// it must be read too, or the difference flagged.
#[test]

fn adversary_the_copied_command_is_read_too() {
    let (code, out) = compare_tp4(
        "export const Gen = () => {\n  const shown = 'sglang serve --model-path m --tp 4';\n  const copied = 'sglang serve --model-path m --tp 8';\n  return <div><pre>{shown}</pre><button onClick={() => navigator.clipboard.writeText(copied)}>Copy</button></div>;\n};\n",
    );
    assert_ne!(code, Some(0), "{out}");
}

/// Effects that write the rendered DOM through a ref or `getElementById`
/// change what a browser shows. recipe-drift attaches no element to a ref
/// and finds none by id, so a guarded write (`if (ref.current)`,
/// `ref.current?.`, a callback ref) silently does nothing: it reads the
/// pre-write `--tp 4` (the recipe's) where every reader sees `--tp 8`, or
/// reads a `<pre>` the effect hid.
#[test]

fn adversary_dom_writes_through_refs_change_the_command() {
    for src in [
        "export const Gen = () => {\n  const ref = useRef(null);\n  useEffect(() => { if (ref.current) ref.current.textContent = 'sglang serve --model-path m --tp 8'; }, []);\n  return <pre ref={ref}>{'sglang serve --model-path m --tp 4'}</pre>;\n};\n",
        "export const Gen = () => {\n  useEffect(() => { const el = document.getElementById('cmd'); if (el) el.textContent = 'sglang serve --model-path m --tp 8'; }, []);\n  return <pre id=\"cmd\">{'sglang serve --model-path m --tp 4'}</pre>;\n};\n",
        "export const Gen = () => {\n  const ref = useRef(null);\n  useLayoutEffect(() => { ref.current?.setAttribute('hidden', ''); }, []);\n  return <div><pre ref={ref}>{'sglang serve --model-path m --tp 4'}</pre><code>{'sglang serve --model-path m --tp 8'}</code></div>;\n};\n",
        "export const Gen = () => {\n  const cb = (el) => { if (el) el.textContent = 'sglang serve --model-path m --tp 8'; };\n  return <pre ref={cb}>{'sglang serve --model-path m --tp 4'}</pre>;\n};\n",
    ] {
        let (code, out) = compare_tp4(src);
        assert_ne!(code, Some(0), "{src}\n{out}");
    }
}

/// An unguarded write through a ref is an error (exit 2), never a silent
/// stale command.
#[test]
fn adversary_an_unguarded_ref_write_is_an_error_not_a_stale_command() {
    let (code, out) = compare_tp4(
        "export const Gen = () => {\n  const ref = useRef(null);\n  useEffect(() => { ref.current.textContent = 'sglang serve --model-path m --tp 8'; }, []);\n  return <pre ref={ref}>{'sglang serve --model-path m --tp 4'}</pre>;\n};\n",
    );
    assert_eq!(code, Some(2), "{out}");
}

/// What a ref or a lookup gives is the element React rendered: its text
/// and attributes read as rendered (`getElementById`, `querySelector` with
/// a class, an attribute, a descendant), and the harmless calls a page
/// makes on it (focus, scrollIntoView, measuring, a style height, its own
/// attributes) change nothing. The effect's state proves each was found.
#[test]
fn adversary_refs_and_lookups_find_the_rendered_elements() {
    let (code, out) = compare_tp4(
        "export const Gen = () => {\n  const ref = useRef(null);\n  const [tp, setTp] = useState(2);\n  useEffect(() => {\n    const el = ref.current;\n    el.focus(); el.scrollIntoView(); el.style.height = el.getBoundingClientRect().height + 'px'; el.setAttribute('data-seen', '1');\n    const byId = document.getElementById('cmd');\n    const bySel = document.querySelector('div.box > pre[data-kind=\"cmd\"]');\n    const all = document.querySelectorAll('.box pre');\n    if (byId === el && bySel === el && all.length === 1 && el.textContent.includes('--tp 2') && el.getAttribute('data-seen') === '1' && el.closest('.box') !== null) setTp(4);\n  }, []);\n  return <div className=\"box\"><pre id=\"cmd\" data-kind=\"cmd\" ref={ref}>{'sglang serve --model-path m --tp ' + tp}</pre></div>;\n};\n",
    );
    assert_eq!(code, Some(0), "{out}");
}

/// A write that changes what is shown, made through a lookup or a ref and
/// caught by the page (`try`), by a class change, by adding a child, by
/// `style.display`: each is an error naming the write, never a stale
/// command. A selector recipe-drift does not evaluate is an error too,
/// never a lookup that silently finds nothing.
#[test]
fn adversary_dom_writes_that_change_what_is_shown_are_named() {
    for (effect, named) in [
        (
            "try { document.querySelector('pre').innerHTML = 'x'; } catch (e) {}",
            "`innerHTML`",
        ),
        ("ref.current.classList.add('hidden');", "classList.add()"),
        (
            "ref.current.appendChild(document.createTextNode(' --tp 8'));",
            "appendChild()",
        ),
        ("ref.current.style.display = 'none';", "style.display"),
        (
            "document.querySelector('pre:first-child');",
            "does not evaluate the selector",
        ),
    ] {
        let (code, out) = compare_tp4(&format!(
            "export const Gen = () => {{\n  const ref = useRef(null);\n  useEffect(() => {{ {effect} }}, []);\n  return <pre ref={{ref}}>{{'sglang serve --model-path m --tp 4'}}</pre>;\n}};\n"
        ));
        assert_eq!(code, Some(2), "{effect}\n{out}");
        assert!(out.contains(named), "{effect}\n{out}");
    }
}

/// A copy button that copies the shown command as a reader's clipboard
/// gets it (with a `$ ` prompt, its lines joined, through a textarea and
/// `execCommand('copy')`) is quiet; one that copies another command by
/// `execCommand` is flagged, in `compare` and `--all-selections`.
#[test]
fn adversary_copies_are_compared_as_launches() {
    let shown = "'sglang serve \\\\\\n  --model-path m \\\\\\n  --tp 4'";
    for (copy, quiet) in [
        ("navigator.clipboard.writeText('$ ' + shown)", true),
        (
            "navigator.clipboard.writeText(shown.replace(/\\\\\\n\\s*/g, ''))",
            true,
        ),
        (
            "{ const t = document.createElement('textarea'); t.value = shown; document.body.appendChild(t); t.select(); document.execCommand('copy'); }",
            true,
        ),
        (
            "{ const t = document.createElement('textarea'); t.value = shown.replace('--tp 4', '--tp 8'); t.select(); document.execCommand('copy'); }",
            false,
        ),
    ] {
        let src = format!(
            "export const Gen = () => {{\n  const shown = {shown};\n  return <div><pre>{{shown}}</pre><button onClick={{() => {copy}}}>Copy</button></div>;\n}};\n"
        );
        let (code, out) = compare_tp4(&src);
        if quiet {
            assert_eq!(code, Some(0), "{copy}\n{out}");
        } else {
            assert_eq!(code, Some(2), "{copy}\n{out}");
            assert!(out.contains("copies another command"), "{out}");
        }
        let repo = Repo::new();
        repo.write("gen.jsx", &src);
        let o = repo.run_deterministic(&["extract", "gen.jsx", "--all-selections"]);
        o.assert_bounded();
        assert_eq!(
            o.code,
            Some(if quiet { 0 } else { 2 }),
            "{copy}\n{}",
            o.both()
        );
    }
}

/// Adversary round 5b (class 4): CSS that hides an element other than
/// `display: none` (React sets each as the element's inline style): the
/// `<pre>` with `--tp 4` is not painted, the reader sees the `--tp 8`
/// command. recipe-drift reads the hidden `<pre>` and says no drift against
/// the recipe's `--tp 4`. Tailwind's `invisible` class is `visibility:
/// hidden` (its `hidden` class is already read as hidden); a `<dialog>`
/// without `open` is not rendered (already modelled on pages).
#[test]
fn adversary_other_css_hiding_is_not_the_visible_command() {
    let shown = "<code>{'sglang serve --model-path m --tp 8'}</code>";
    let cmd = "{'sglang serve --model-path m --tp 4'}";
    for pre in [
        format!("<pre style={{{{visibility: 'hidden'}}}}>{cmd}</pre>"),
        format!("<div style={{{{visibility: 'hidden'}}}}><pre>{cmd}</pre></div>"),
        format!("<pre className=\"invisible\">{cmd}</pre>"),
        format!("<pre style={{{{opacity: 0}}}}>{cmd}</pre>"),
        format!("<div style={{{{contentVisibility: 'hidden'}}}}><pre>{cmd}</pre></div>"),
        format!("<dialog><pre>{cmd}</pre></dialog>"),
    ] {
        let src = format!("export const Gen = () => <div>{pre}{shown}</div>;\n");
        let (code, out) = compare_tp4(&src);
        assert_ne!(code, Some(0), "{src}\n{out}");
    }
}

/// Styles React does not apply (an unknown property name, a value with
/// `!important`, which `style.display = ...` rejects) and `hidden=""`
/// (React drops a falsy boolean attribute) leave the `<pre>` shown: read
/// as the command (no drift against `--tp 4`).
#[test]
fn adversary_styles_react_does_not_apply_hide_nothing() {
    let cmd = "{'sglang serve --model-path m --tp 4'}";
    for pre in [
        format!("<pre style={{{{DISPLAY: 'none'}}}}>{cmd}</pre>"),
        format!("<pre style={{{{display: 'none !important'}}}}>{cmd}</pre>"),
        format!("<pre hidden=\"\">{cmd}</pre>"),
    ] {
        let src = format!("export const Gen = () => <div>{pre}</div>;\n");
        let (code, out) = compare_tp4(&src);
        assert_eq!(code, Some(0), "{src}\n{out}");
    }
}

/// Adversary round 5b (class 4): HTML set with `dangerouslySetInnerHTML`
/// that a browser does not render: an inline `style` that hides (any case,
/// any spelling the HTML parser decodes, `visibility: hidden` too), a
/// `<dialog>` that is not open, a `<video>`'s fallback. The visible command
/// is `--tp 8`; recipe-drift reads the hidden ` --tp 4` as well (the last
/// `--tp` wins) and says no drift against the recipe's `--tp 4`.
#[test]
fn adversary_inner_html_hidden_by_style_is_not_read() {
    for html in [
        "'sglang serve --model-path m --tp 8<span style=\"display:none\"> --tp 4</span>'",
        "'sglang serve --model-path m --tp 8<span style=\"DISPLAY: NONE\"> --tp 4</span>'",
        "'sglang serve --model-path m --tp 8<span style=\"display:&#110;one\"> --tp 4</span>'",
        "'sglang serve --model-path m --tp 8<span style=\"visibility:hidden\"> --tp 4</span>'",
        "'sglang serve --model-path m --tp 8<dialog> --tp 4</dialog>'",
        "'sglang serve --model-path m --tp 8<video> --tp 4</video>'",
    ] {
        let (code, out) = compare_tp4(&inner(html));
        assert_ne!(code, Some(0), "{html}\n{out}");
    }
}

/// A generator whose `<pre>` prints `--tp 8` and then a `<span>` of class
/// `class` holding ` --tp 2`.
fn with_class(class: &str) -> String {
    format!(
        "export const Gen = () => {{\n  const [tp] = useState(8);\n  return <pre>{{'sglang serve --model-path m --tp ' + tp}}<span className=\"{class}\"> --tp 2</span></pre>;\n}};\n"
    )
}

/// Round 8 (issue 24, class 4): Tailwind classes that hide text as the
/// inline styles recipe-drift already reads as hiding do (`opacity-0` is
/// `opacity: 0`; `collapse` is `visibility: collapse`), and responsive
/// variants whose visibility depends on the reader's viewport (`md:hidden`
/// is `display: none` from 768 px; `hidden md:block` shows from 768 px).
/// Today only the exact words `hidden` and `invisible` count: `opacity-0`,
/// `collapse` and `md:hidden` text is read as shown (the command's last
/// `--tp` is 2, which the reader does not see on a desktop), and
/// `hidden md:block` text is silently dropped (a desktop reader sees
/// `--tp 2` last). Either way one confident command, where the class says
/// hidden or the viewport decides.
#[test]
fn adversary_round8_tailwind_hiding_classes_and_responsive_variants() {
    let repo = Repo::new();
    for class in ["opacity-0", "collapse"] {
        repo.write("gen.jsx", with_class(class));
        let o = repo.run_deterministic(&["extract", "gen.jsx"]);
        o.assert_bounded();
        let hidden_like_inline = o.code == Some(0) && values_of(&o.stdout, "--tp") == ["8"];
        assert!(
            hidden_like_inline || o.code == Some(2),
            "{class}: {}",
            o.both()
        );
    }
    for (class, confident_wrong) in [("md:hidden", "2"), ("hidden md:block", "8")] {
        repo.write("gen.jsx", with_class(class));
        let o = repo.run_deterministic(&["extract", "gen.jsx"]);
        o.assert_bounded();
        let last = values_of(&o.stdout, "--tp").last().cloned();
        assert!(
            !(o.code == Some(0) && last.as_deref() == Some(confident_wrong)),
            "{class}: one confident reading where the viewport decides: {}",
            o.both()
        );
    }
}

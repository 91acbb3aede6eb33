//! What a browser shows: one model of whether an element renders its
//! content, used by pages (raw HTML on `.md` pages, JSX on `.mdx` pages), by
//! generators (the elements React renders) and by the HTML a generator sets
//! with `dangerouslySetInnerHTML` (`react.js` calls [`element_hides`] through
//! the sandbox's `__rd_element_hides`).
//!
//! An element is given as a browser's DOM holds it: its tag name and its
//! attributes as strings (a JSX element's props are turned into attributes
//! the way React sets them by the caller). Its content is not shown when:
//!
//! - the element does not render its content: `<template>`, `<datalist>`,
//!   `<noscript>` (React renders none of it in a browser), `<script>`,
//!   `<style>`, `<rp>`, the fallback content of `<video>`, `<audio>`,
//!   `<canvas>`, or a `<dialog>` that is not `open`;
//! - it has the `hidden` or the `popover` attribute (a popover is hidden
//!   until it is shown);
//! - its inline style hides it ([`css_hides`]);
//! - its Tailwind classes hide it as a reader on a desktop sees it
//!   (`hidden`, `invisible`, `collapse`, `opacity-0`, and the responsive
//!   variants: `md:hidden` hides, `hidden md:block` shows).
//!
//! What the model cannot compute (a `var()` in a property that may hide) is
//! said as hiding, with why: the caller reports it rather than read a
//! command the reader may not see.

/// Elements whose content a browser does not render as part of the page.
pub(crate) const UNRENDERED_CONTENT: &[&str] = &[
    "template", "datalist", "noscript", "script", "style", "rp", "video", "audio", "canvas",
];

/// Whether the element `name` (lower-case) with the attributes `attr` gives
/// (its DOM value by lower-case name, `None` when absent) renders its
/// content: `None` when it does, else how messages name what hides it
/// (`<div hidden>`, `<pre> hidden by its style (visibility: hidden)`).
pub(crate) fn element_hides(name: &str, attr: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    if UNRENDERED_CONTENT.contains(&name) {
        return Some(if matches!(name, "video" | "audio" | "canvas") {
            format!("`<{name}>` element (fallback content)")
        } else {
            format!("`<{name}>` element (not rendered)")
        });
    }
    if name == "dialog" && attr("open").is_none() {
        return Some("`<dialog>` element (not `open`)".to_string());
    }
    if attr("hidden").is_some() {
        return Some(format!("`<{name} hidden>` element"));
    }
    if attr("popover").is_some() {
        return Some(format!("`<{name} popover>` element (hidden until shown)"));
    }
    if let Some(style) = attr("style")
        && let Some(why) = css_hides(&style)
    {
        return Some(format!("`<{name}>` element hidden by its style ({why})"));
    }
    if let Some(class) = attr("class")
        && let Some((word, why)) = class_hides(&class)
    {
        return Some(format!(
            "`<{name}>` element hidden by its class `{word}` ({why})"
        ));
    }
    None
}

/// Tailwind's utilities that decide whether an element is shown: the
/// property they set (0 `display`, 1 `visibility`, 2 `opacity`), the value,
/// and whether that value hides.
const TAILWIND_SHOWING: &[(&str, usize, &str, bool)] = &[
    ("hidden", 0, "display: none", true),
    ("block", 0, "display: block", false),
    ("inline", 0, "display: inline", false),
    ("inline-block", 0, "display: inline-block", false),
    ("flex", 0, "display: flex", false),
    ("inline-flex", 0, "display: inline-flex", false),
    ("grid", 0, "display: grid", false),
    ("inline-grid", 0, "display: inline-grid", false),
    ("table", 0, "display: table", false),
    ("contents", 0, "display: contents", false),
    ("flow-root", 0, "display: flow-root", false),
    ("list-item", 0, "display: list-item", false),
    ("invisible", 1, "visibility: hidden", true),
    ("collapse", 1, "visibility: collapse", true),
    ("visible", 1, "visibility: visible", false),
    ("opacity-0", 2, "opacity: 0", true),
];

/// Tailwind's responsive variants, narrowest first: each applies from its
/// minimum width up, so at a desktop width all apply and a wider one wins.
const TAILWIND_BREAKPOINTS: &[&str] = &["sm", "md", "lg", "xl", "2xl"];

/// Whether a Tailwind class list hides the element as a reader on a desktop
/// (wider than every breakpoint) sees it: per property, the unprefixed
/// utility, overridden by the responsive ones (`md:hidden` hides there,
/// `hidden md:block` shows). Other variants (`hover:`, `max-md:`, `print:`)
/// do not apply to a page as it is first shown. `opacity-N` other than 0
/// shows. The deciding word and its declaration when it hides.
fn class_hides(class: &str) -> Option<(String, String)> {
    // Per property: (breakpoint rank, word, declaration, hides).
    let mut state: [Option<(usize, &str, &str, bool)>; 3] = [None, None, None];
    for word in class.split_ascii_whitespace() {
        let (rank, utility) = match word.rsplit_once(':') {
            None => (0, word),
            Some((variant, utility)) => {
                match TAILWIND_BREAKPOINTS.iter().position(|b| *b == variant) {
                    Some(k) => (k + 1, utility),
                    None => continue,
                }
            }
        };
        let found = TAILWIND_SHOWING
            .iter()
            .find(|(u, ..)| *u == utility)
            .map(|&(_, p, decl, hides)| (p, decl, hides))
            .or_else(|| {
                utility
                    .strip_prefix("opacity-")
                    .filter(|n| n.parse::<u32>().is_ok_and(|n| n > 0))
                    .map(|_| (2, "opacity above 0", false))
            });
        let Some((p, decl, hides)) = found else {
            continue;
        };
        if state[p].is_none_or(|s| rank >= s.0) {
            state[p] = Some((rank, word, decl, hides));
        }
    }
    state
        .into_iter()
        .flatten()
        .find(|s| s.3)
        .map(|(rank, word, decl, _)| {
            let why = if rank > 0 {
                format!("{decl} at a desktop width")
            } else {
                decl.to_string()
            };
            (word.to_string(), why)
        })
}

/// Form controls that show a code block written in them as no code block: a
/// `<select>` shows its options only (older HTML parsers, parse5's among
/// them, drop the `<pre>` and `<code>` tags inside it; newer ones keep them
/// in the select, which does not render them).
const CONTROLS: &[&str] = &["select"];

/// Whether a code block inside the element `name` is shown as one on a page:
/// `None` when it is, else why not ([`element_hides`], or a form control of
/// [`CONTROLS`]).
pub(crate) fn block_hides(name: &str, attr: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    element_hides(name, attr).or_else(|| {
        CONTROLS.contains(&name).then(|| {
            format!(
                "`<{name}>` element (a form control, which shows its options, not a code block)"
            )
        })
    })
}

/// The values `display` takes besides `none` (each word of a multi-keyword
/// value is one of these).
const DISPLAY_WORDS: &[&str] = &[
    "block",
    "inline",
    "run-in",
    "flow",
    "flow-root",
    "table",
    "flex",
    "grid",
    "ruby",
    "math",
    "list-item",
    "contents",
    "inline-block",
    "inline-table",
    "inline-flex",
    "inline-grid",
    "inline-list-item",
    "table-row-group",
    "table-header-group",
    "table-footer-group",
    "table-row",
    "table-cell",
    "table-column-group",
    "table-column",
    "table-caption",
    "ruby-base",
    "ruby-text",
    "ruby-base-container",
    "ruby-text-container",
    "-webkit-box",
    "-webkit-inline-box",
    "-moz-box",
    "-ms-flexbox",
    "-webkit-flex",
];

/// The CSS-wide keywords: valid for every property, none of them hides.
const GLOBAL: &[&str] = &["inherit", "initial", "unset", "revert", "revert-layer"];

/// One CSS declaration (`name: value !important`) as its property name and
/// value, both lower-cased and trimmed, and whether it is `!important`;
/// `None` without a `:`.
pub(crate) fn declaration(decl: &str) -> Option<(String, String, bool)> {
    let (name, value) = decl.split_once(':')?;
    let name = name.trim().to_ascii_lowercase();
    let mut value = value.trim().to_ascii_lowercase();
    let mut important = false;
    if let Some(bang) = value.rfind('!')
        && value[bang + 1..].trim() == "important"
    {
        important = true;
        value = value[..bang].trim().to_string();
    }
    Some((name, value, important))
}

/// Whether an inline style (a `style` attribute's text, character
/// references already decoded) hides the element and what it holds:
/// `display: none`, `visibility: hidden` or `collapse`,
/// `content-visibility: hidden`, `opacity` at 0 or below, or styles that
/// leave nothing of it to read (`font-size: 0`, `transform: scale(0)`, a
/// clip to nothing, a zero box with its overflow hidden, transparent text,
/// a negative offset out of the flow: [`nothing_to_read`]). Read as a browser
/// reads a declaration list: comments and CSS escapes (`\6e one`) are
/// undone, names and keywords are ASCII case-insensitive, a declaration
/// whose value is not valid for its property is dropped, the last valid
/// declaration of a property wins unless an earlier one is `!important`.
/// `None` when it does not hide; else the deciding declaration, as written
/// for messages. A hiding property whose value holds `var()` cannot be
/// computed here: it is said as hiding, with why.
pub(crate) fn css_hides(style: &str) -> Option<String> {
    let text = css_unescape(&strip_css_comments(style));
    // Per property: (hides, important, what) of the winning declaration.
    let mut state: [Option<(bool, bool, String)>; 4] = [None, None, None, None];
    const PROPS: [&str; 4] = ["display", "visibility", "content-visibility", "opacity"];
    for decl in split_declarations(&text) {
        let Some((name, value, important)) = declaration(decl) else {
            continue;
        };
        let Some(p) = PROPS.iter().position(|n| *n == name) else {
            continue;
        };
        let hides = if value.contains("var(") {
            Some(true)
        } else if GLOBAL.contains(&value.as_str()) {
            Some(false)
        } else {
            match p {
                0 if value == "none" => Some(true),
                0 => value
                    .split_ascii_whitespace()
                    .all(|w| DISPLAY_WORDS.contains(&w))
                    .then_some(false),
                1 => match value.as_str() {
                    "hidden" | "collapse" => Some(true),
                    "visible" => Some(false),
                    _ => None,
                },
                2 => match value.as_str() {
                    "hidden" => Some(true),
                    "visible" | "auto" => Some(false),
                    _ => None,
                },
                _ => opacity(&value).map(|o| o <= 0.0),
            }
        };
        let Some(hides) = hides else { continue };
        if state[p].as_ref().is_some_and(|s| s.1 && !important) {
            continue;
        }
        let what = if value.contains("var(") {
            format!("`{name}: {value}`, which recipe-drift cannot compute")
        } else {
            format!("`{name}: {value}`")
        };
        state[p] = Some((hides, important, what));
    }
    state
        .into_iter()
        .flatten()
        .find(|s| s.0)
        .map(|(_, _, what)| what)
        .or_else(|| nothing_to_read::nothing_to_read(&split_declarations(&text)))
}

/// An `opacity` value: a number or a percentage (as a fraction).
fn opacity(value: &str) -> Option<f64> {
    let (num, scale) = match value.strip_suffix('%') {
        Some(n) => (n, 100.0),
        None => (value, 1.0),
    };
    let ok = !num.is_empty()
        && num
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e'));
    ok.then(|| num.parse::<f64>().ok())
        .flatten()
        .filter(|n| n.is_finite())
        .map(|n| n / scale)
}

/// A declaration list without its comments (`/* ... */`; one that never ends
/// runs to the end). Quoted strings keep what they hold.
fn strip_css_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(k) = rest.find("/*") {
        out.push_str(&rest[..k]);
        out.push(' ');
        rest = match rest[k + 2..].find("*/") {
            Some(e) => &rest[k + 2 + e + 2..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

/// CSS escapes undone: `\` and one to six hex digits (and one blank after
/// them) is that code point, `\` and any other character is that character.
fn css_unescape(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let mut hex = String::new();
        while hex.len() < 6
            && let Some(h) = chars.peek().filter(|h| h.is_ascii_hexdigit())
        {
            hex.push(*h);
            chars.next();
        }
        if hex.is_empty() {
            match chars.next() {
                Some('\n') | None => {}
                Some(other) => out.push(other),
            }
            continue;
        }
        if chars.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            chars.next();
        }
        let n = u32::from_str_radix(&hex, 16).unwrap_or(0xFFFD);
        out.push(char::from_u32(n).filter(|_| n != 0).unwrap_or('\u{FFFD}'));
    }
    out
}

/// The declarations of a list: split at each `;` outside quotes and
/// parentheses.
fn split_declarations(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => depth = depth.saturating_sub(1),
            (None, ';') if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// The named character references decoded in attribute values (the
/// printable ASCII ones and the common others: the same table as
/// `react.js`'s); a name the table lacks stays as written.
const ENTITIES: &[(&str, &str)] = &[
    ("amp", "&"),
    ("lt", "<"),
    ("gt", ">"),
    ("quot", "\""),
    ("apos", "'"),
    ("nbsp", "\u{a0}"),
    ("excl", "!"),
    ("num", "#"),
    ("dollar", "$"),
    ("percnt", "%"),
    ("lpar", "("),
    ("rpar", ")"),
    ("ast", "*"),
    ("midast", "*"),
    ("plus", "+"),
    ("comma", ","),
    ("period", "."),
    ("sol", "/"),
    ("colon", ":"),
    ("semi", ";"),
    ("equals", "="),
    ("quest", "?"),
    ("commat", "@"),
    ("lsqb", "["),
    ("lbrack", "["),
    ("bsol", "\\"),
    ("rsqb", "]"),
    ("rbrack", "]"),
    ("Hat", "^"),
    ("lowbar", "_"),
    ("UnderBar", "_"),
    ("grave", "`"),
    ("lcub", "{"),
    ("lbrace", "{"),
    ("verbar", "|"),
    ("vert", "|"),
    ("rcub", "}"),
    ("rbrace", "}"),
    ("Tab", "\t"),
    ("NewLine", "\n"),
];

/// An HTML attribute value with its character references decoded as the
/// HTML tokenizer decodes them in an attribute: numeric ones (with or
/// without `;`; 0, surrogates and past U+10FFFF are U+FFFD), named ones of
/// the table with their `;`.
pub(crate) fn decode_refs(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(k) = rest.find('&') {
        out.push_str(&rest[..k]);
        rest = &rest[k..];
        let after = &rest[1..];
        if let Some(num) = after.strip_prefix('#') {
            let (hex, digits) = match num.strip_prefix(['x', 'X']) {
                Some(h) => (true, h),
                None => (false, num),
            };
            let len = digits
                .bytes()
                .take_while(|b| {
                    if hex {
                        b.is_ascii_hexdigit()
                    } else {
                        b.is_ascii_digit()
                    }
                })
                .count();
            if len > 0 {
                let n = u32::from_str_radix(&digits[..len.min(8)], if hex { 16 } else { 10 })
                    .unwrap_or(u32::MAX);
                let n = if len > 8 { u32::MAX } else { n };
                out.push(char::from_u32(n).filter(|_| n != 0).unwrap_or('\u{FFFD}'));
                let used = 1 + 1 + usize::from(hex) + len;
                rest = &rest[used..];
                if rest.starts_with(';') {
                    rest = &rest[1..];
                }
                continue;
            }
        } else if let Some(semi) = after.find(';')
            && let Some((_, v)) = ENTITIES.iter().find(|(n, _)| *n == &after[..semi])
        {
            out.push_str(v);
            rest = &after[semi + 1..];
            continue;
        }
        out.push('&');
        rest = after;
    }
    out.push_str(rest);
    out
}

mod nothing_to_read;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_that_hide_and_do_not() {
        for s in [
            "display:none",
            "DISPLAY : NONE",
            "display:none !important",
            "/*x*/display:none",
            "visibility:hidden",
            "visibility: collapse",
            "content-visibility: hidden",
            "opacity: 0",
            "opacity:0%",
            "opacity: .0",
            "display:block;display:none",
            "display:none !important; display:block",
            "display:none; display:nonsense",
            "display:\\6e one",
            "display: var(--x)",
        ] {
            assert!(css_hides(s).is_some(), "{s}");
        }
        for s in [
            "",
            "display:block",
            "display:none;display:block",
            "display: inline flow-root",
            "visibility: visible",
            "opacity: 0.5",
            "color: red; content: 'display:none'",
            "display: inherit",
        ] {
            assert_eq!(css_hides(s), None, "{s}");
        }
    }

    #[test]
    fn character_references_are_decoded_as_the_tokenizer_decodes_them() {
        assert_eq!(decode_refs("&#x6E;&#110&colon;&unknown;&"), "nn:&unknown;&");
    }

    #[test]
    fn elements() {
        let none = |_: &str| None;
        assert!(element_hides("dialog", &none).is_some());
        assert!(element_hides("video", &none).is_some());
        assert!(element_hides("div", &none).is_none());
        let open = |a: &str| (a == "open").then(String::new);
        assert!(element_hides("dialog", &open).is_none());
        let class = |a: &str| (a == "class").then(|| "a invisible".to_string());
        assert!(element_hides("pre", &class).is_some());
    }

    #[test]
    fn tailwind_classes_as_a_desktop_reader_sees_them() {
        for (class, hides) in [
            ("opacity-0", true),
            ("opacity-50", false),
            ("collapse", true),
            ("md:hidden", true),
            ("hidden md:block", false),
            ("md:block hidden", false),
            ("block lg:hidden", true),
            ("md:hidden xl:inline", false),
            ("max-md:hidden", false),
            ("hover:hidden", false),
            ("invisible sm:visible", false),
            ("flex opacity-0 md:opacity-100", false),
        ] {
            assert_eq!(class_hides(class).is_some(), hides, "{class}");
        }
    }

    fn jsx_hides(tag: &str) -> Result<bool, String> {
        let attrs = jsx_attributes(tag)?.expect(tag);
        let get = |n: &str| attrs.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
        Ok(element_hides("div", &get).is_some())
    }

    #[test]
    fn jsx_props_read_as_react_writes_them() {
        for tag in [
            "<div hidden>",
            "<div {...{hidden: true}}>",
            "<div style={{visibility: 'hidden'}}>",
            "<div style={{display: 'no' + 'ne'}}>",
            "<div style={{['display']: 'none'}}>",
            "<div style={{opacity: 0}}>",
            "<div style={{contentVisibility: `hidden`}}>",
            "<div className=\"a hidden\">",
            "<div style={{display: 'none', display: 'block', display: 'none'}}>",
        ] {
            assert_eq!(jsx_hides(tag), Ok(true), "{tag}");
        }
        for tag in [
            "<div hidden={false}>",
            "<div hidden=\"\">",
            "<div style={{display: 'none', display: 'block'}}>",
            "<div style={{DISPLAY: 'none'}}>",
            "<div style={{display: 'none !important'}}>",
            "<div title=\"}\" data-x={{a: 1}}>",
            "<div style={{marginTop: 4}} />",
        ] {
            assert_eq!(jsx_hides(tag), Ok(false), "{tag}");
        }
        for tag in [
            "<div {...props}>",
            "<div style={s}>",
            "<div style={{display: d}}>",
        ] {
            assert!(jsx_hides(tag).is_err(), "{tag}");
        }
    }
}

/// A JSX value as far as it is computed without running the page: literals,
/// `+` of them, object literals of them.
#[derive(Debug, Clone)]
enum Val {
    Str(String),
    Num(f64),
    Bool(bool),
    Nothing,
    Obj(Vec<(String, Val)>),
    Unknown,
}

impl Val {
    /// Its truthiness, when known.
    fn truthy(&self) -> Option<bool> {
        match self {
            Val::Str(s) => Some(!s.is_empty()),
            Val::Num(n) => Some(*n != 0.0 && !n.is_nan()),
            Val::Bool(b) => Some(*b),
            Val::Nothing => Some(false),
            Val::Obj(_) => Some(true),
            Val::Unknown => None,
        }
    }

    /// Its string, as JavaScript writes it, when known.
    fn string(&self) -> Option<String> {
        match self {
            Val::Str(s) => Some(s.clone()),
            Val::Num(n) if n.fract() == 0.0 && n.abs() < 1e15 => Some(format!("{}", *n as i64)),
            Val::Num(n) => Some(n.to_string()),
            Val::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }
}

/// The deepest expression computed (deeper is [`Val::Unknown`]).
const MAX_DEPTH: usize = 32;

/// The value of an expression, as far as literals decide it.
fn eval(e: &oxc_ast::ast::Expression<'_>, depth: usize) -> Val {
    use oxc_ast::ast::{BinaryOperator, Expression as E, ObjectPropertyKind, UnaryOperator};
    if depth > MAX_DEPTH {
        return Val::Unknown;
    }
    match e {
        E::StringLiteral(s) => Val::Str(s.value.to_string()),
        E::NumericLiteral(n) => Val::Num(n.value),
        E::BooleanLiteral(b) => Val::Bool(b.value),
        E::NullLiteral(_) => Val::Nothing,
        E::Identifier(i) if i.name == "undefined" => Val::Nothing,
        E::TemplateLiteral(t) if t.expressions.is_empty() => t
            .quasis
            .first()
            .and_then(|q| q.value.cooked.as_ref())
            .map_or(Val::Unknown, |c| Val::Str(c.to_string())),
        E::ParenthesizedExpression(p) => eval(&p.expression, depth + 1),
        E::BinaryExpression(b) if b.operator == BinaryOperator::Addition => {
            match (eval(&b.left, depth + 1), eval(&b.right, depth + 1)) {
                (Val::Num(x), Val::Num(y)) => Val::Num(x + y),
                (l @ (Val::Str(_) | Val::Num(_)), r @ (Val::Str(_) | Val::Num(_))) => {
                    match (l.string(), r.string()) {
                        (Some(l), Some(r)) => Val::Str(l + &r),
                        _ => Val::Unknown,
                    }
                }
                _ => Val::Unknown,
            }
        }
        E::UnaryExpression(u) => match (u.operator, eval(&u.argument, depth + 1)) {
            (UnaryOperator::UnaryNegation, Val::Num(n)) => Val::Num(-n),
            (UnaryOperator::UnaryPlus, Val::Num(n)) => Val::Num(n),
            (UnaryOperator::LogicalNot, v) => v.truthy().map_or(Val::Unknown, |t| Val::Bool(!t)),
            _ => Val::Unknown,
        },
        E::ObjectExpression(o) => {
            let mut out: Vec<(String, Val)> = Vec::new();
            let mut set = |k: String, v: Val| {
                out.retain(|(n, _)| *n != k);
                out.push((k, v));
            };
            for p in &o.properties {
                match p {
                    ObjectPropertyKind::ObjectProperty(p) => {
                        let key = if p.computed {
                            p.key
                                .as_expression()
                                .and_then(|k| eval(k, depth + 1).string())
                        } else {
                            p.key.static_name().map(|k| k.to_string())
                        };
                        let Some(key) = key else { return Val::Unknown };
                        let value = if p.method || p.kind != oxc_ast::ast::PropertyKind::Init {
                            Val::Unknown
                        } else {
                            eval(&p.value, depth + 1)
                        };
                        set(key, value);
                    }
                    ObjectPropertyKind::SpreadProperty(s) => match eval(&s.argument, depth + 1) {
                        Val::Obj(props) => props.into_iter().for_each(|(k, v)| set(k, v)),
                        Val::Nothing | Val::Bool(_) | Val::Num(_) => {}
                        _ => return Val::Unknown,
                    },
                }
            }
            Val::Obj(out)
        }
        _ => Val::Unknown,
    }
}

/// React's unitless CSS properties among those that may hide (a number is
/// written without `px`).
const UNITLESS: &[&str] = &["opacity"];

/// The `style` attribute React writes for a style object: each property's
/// name hyphenated (`contentVisibility` is `content-visibility`), a number
/// given `px` unless the property is unitless, `null`, `undefined`, a
/// boolean and `''` left out, and a value with `!important` dropped (the
/// CSSOM refuses it on `style[name] = value`). `Err` names a property that
/// may hide whose value is not computed here.
fn react_style(props: &[(String, Val)]) -> Result<String, String> {
    let mut css = String::new();
    for (k, v) in props {
        let name = if k.starts_with("--") {
            k.clone()
        } else {
            let mut n = String::new();
            for c in k.chars() {
                if c.is_ascii_uppercase() {
                    n.push('-');
                    n.push(c.to_ascii_lowercase());
                } else {
                    n.push(c);
                }
            }
            if let Some(rest) = n.strip_prefix("ms-") {
                n = format!("-ms-{rest}");
            }
            n
        };
        let value = match v {
            Val::Nothing | Val::Bool(_) => continue,
            Val::Num(n) if *n != 0.0 && !UNITLESS.contains(&name.as_str()) => {
                format!("{}px", Val::Num(*n).string().unwrap_or_default())
            }
            Val::Str(_) | Val::Num(_) => v.string().unwrap_or_default(),
            Val::Obj(_) => continue,
            Val::Unknown => {
                if ["display", "visibility", "content-visibility", "opacity"]
                    .contains(&name.as_str())
                    || name.starts_with("--")
                {
                    return Err(format!("its style's `{k}`"));
                }
                continue;
            }
        };
        if value.trim().is_empty() || (!name.starts_with("--") && value.contains("!important")) {
            continue;
        }
        css.push_str(&format!("{name}: {value};"));
    }
    Ok(css)
}

/// The attributes React writes for a host JSX element's opening tag (`tag`:
/// from its `<` to its `>`, as written on an MDX page), as
/// [`element_hides`] takes them: `hidden`, `open` and `popover` present when
/// truthy (React leaves `hidden={false}` and `hidden=""` out), `style` as
/// [`react_style`] writes it, `className` as `class`, the rest as strings;
/// a spread of an object literal gives its properties, later props override
/// earlier ones. Character references in quoted values are decoded, as MDX
/// decodes them. `Err` says what decides whether the element shows that is
/// not computed here (a spread of a variable, `style={s}`, ...); `Ok(None)`
/// when the text is no element tag oxc reads.
pub(crate) fn jsx_attributes(tag: &str) -> Result<Option<Vec<(String, String)>>, String> {
    use oxc_allocator::Allocator;
    use oxc_ast::ast::{Expression, JSXAttributeItem, JSXAttributeName, JSXAttributeValue};
    // A bounded nesting (oxc's parser is recursive).
    let mut depth = 0usize;
    for b in tag.bytes() {
        match b {
            b'{' | b'(' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err("its attributes (nested too deeply)".to_string());
                }
            }
            b'}' | b')' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let text = match tag.strip_suffix("/>") {
        Some(_) => tag.to_string(),
        None => match tag.strip_suffix('>') {
            Some(t) => format!("{t}/>"),
            None => return Ok(None),
        },
    };
    let allocator = Allocator::default();
    let source_type = oxc_span::SourceType::jsx();
    let Ok(expr) = oxc_parser::Parser::new(&allocator, &text, source_type).parse_expression()
    else {
        return Ok(None);
    };
    let Expression::JSXElement(el) = &expr else {
        return Ok(None);
    };
    let mut props: Vec<(String, Val)> = Vec::new();
    let mut set = |k: String, v: Val| {
        props.retain(|(n, _)| *n != k);
        props.push((k, v));
    };
    for item in &el.opening_element.attributes {
        match item {
            JSXAttributeItem::Attribute(a) => {
                let name = match &a.name {
                    JSXAttributeName::Identifier(i) => i.name.to_string(),
                    JSXAttributeName::NamespacedName(n) => {
                        format!("{}:{}", n.namespace.name, n.name.name)
                    }
                };
                let value = match &a.value {
                    None => Val::Bool(true),
                    Some(JSXAttributeValue::StringLiteral(s)) => Val::Str(decode_refs(&s.value)),
                    Some(JSXAttributeValue::ExpressionContainer(c)) => c
                        .expression
                        .as_expression()
                        .map_or(Val::Nothing, |e| eval(e, 0)),
                    Some(_) => Val::Unknown,
                };
                set(name, value);
            }
            JSXAttributeItem::SpreadAttribute(s) => match eval(&s.argument, 0) {
                Val::Obj(o) => o.into_iter().for_each(|(k, v)| set(k, v)),
                Val::Nothing | Val::Bool(_) | Val::Num(_) => {}
                _ => return Err("a spread of its props".to_string()),
            },
        }
    }
    let mut out = Vec::new();
    for (k, v) in props {
        let cannot = |what: &str| Err(format!("its `{what}`"));
        match k.as_str() {
            "hidden" | "open" | "popover" => match v.truthy() {
                Some(true) => out.push((k, String::new())),
                Some(false) => {}
                None => return cannot(&k),
            },
            "style" => match v {
                Val::Obj(o) => out.push(("style".to_string(), react_style(&o)?)),
                Val::Str(s) => out.push(("style".to_string(), s)),
                Val::Nothing => {}
                _ => return cannot("style"),
            },
            "className" | "class" => match v.string() {
                Some(s) => out.push(("class".to_string(), s)),
                None if matches!(v, Val::Nothing) => {}
                None => return cannot(&k),
            },
            _ => {
                if let Some(s) = v.string() {
                    out.push((k.to_ascii_lowercase(), s));
                }
            }
        }
    }
    Ok(Some(out))
}

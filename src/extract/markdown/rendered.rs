//! Which code blocks of a `.md` page a browser shows: the page is rendered to
//! HTML as a docs site renders it (CommonMark + GFM, raw HTML passed through
//! as it is, GFM footnotes at the end), each code block's text replaced by a
//! marker, and the HTML is parsed by `html5ever`, the HTML5 tree builder
//! browsers implement. A block is shown when its marker lands in the text of
//! a `<pre>` element that no element around it hides
//! ([`visibility::block_hides`], the one visibility model). Everything the
//! parser does to raw HTML left open before a block follows: a `<p hidden>`
//! or a `<span hidden>` is closed before the block (by the `<pre>` tag, by the
//! paragraph's `</p>`), a `<div hidden>` is not; the `<pre>` and `<code>` tags
//! after an open `<select>` are dropped ("in select" mode) and the text lands
//! in the select; inside a `<script>`, `<textarea>` or a comment left open the
//! block is text of that element or comment; a hidden `<code>` inside a raw
//! `<pre>` hides its text.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, HashMap};

use html5ever::interface::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::{Attribute, QualName, ns};
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use super::{CodeBlock, View, footnote_label};
use crate::extract::visibility;

/// For each of `blocks` (in order), where the page does not show it as a
/// code block: the offset of what hides it and a description, as
/// [`CodeBlock::hidden`] takes them; `None` when a browser shows it.
pub(super) fn hidden(
    view: &View,
    page: &str,
    options: Options,
    blocks: &[CodeBlock],
) -> Vec<Option<(usize, String)>> {
    let marker = Marker::for_page(page);
    let html = render(view, page, options, blocks, &marker);
    let dom = Dom::parse(&html.text);
    let mut seen: Vec<Option<Seen>> = vec![None; blocks.len()];
    for (id, node) in dom.nodes.iter().enumerate() {
        let (text, comment) = match &node.kind {
            Kind::Text(t) => (t.borrow().to_string(), false),
            Kind::Comment(t) => (t.clone(), true),
            _ => continue,
        };
        for k in marker.find(&text) {
            if let Some(slot) = seen.get_mut(k).filter(|s| s.is_none()) {
                *slot = Some(if comment {
                    Seen::Comment(id)
                } else {
                    Seen::Text(id)
                });
            }
        }
    }
    blocks
        .iter()
        .zip(seen)
        .map(|(block, seen)| match seen {
            None => Some((
                block.at,
                "raw HTML (the rendered page holds no text of the block, as in an attribute value left open)"
                    .to_string(),
            )),
            Some(Seen::Comment(id)) => Some((
                html.page_offset(&dom, id, "<!--").unwrap_or(block.at),
                "HTML comment `<!--`".to_string(),
            )),
            Some(Seen::Text(id)) => dom
                .why_hidden(id)
                .map(|(el, what)| (html.page_offset(&dom, el, "").unwrap_or(block.at), what)),
        })
        .collect()
}

/// Where a block's marker was found in the parsed page.
#[derive(Debug, Clone, Copy)]
enum Seen {
    /// In this text node.
    Text(usize),
    /// In this comment node.
    Comment(usize),
}

/// The text that stands for block `k` in the rendered page: a prefix the
/// page does not contain, `k`, and `z`.
struct Marker {
    prefix: String,
}

impl Marker {
    /// The first prefix (`rd0q`, `rd1q`, ...) that the page does not hold.
    fn for_page(page: &str) -> Marker {
        let prefix = (0u64..)
            .map(|n| format!("rd{n:x}q"))
            .find(|p| !page.contains(p.as_str()))
            .unwrap_or_default();
        Marker { prefix }
    }

    fn of(&self, k: usize) -> String {
        format!("{}{k}z", self.prefix)
    }

    /// The blocks whose markers a text holds.
    fn find(&self, text: &str) -> Vec<usize> {
        let mut out = Vec::new();
        for (i, _) in text.match_indices(self.prefix.as_str()) {
            let rest = &text[i + self.prefix.len()..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if rest.as_bytes().get(digits) == Some(&b'z')
                && let Ok(k) = rest[..digits].parse()
            {
                out.push(k);
            }
        }
        out
    }
}

/// A page rendered to HTML, and where the raw HTML in it comes from.
#[derive(Default)]
struct Html {
    text: String,
    /// Raw HTML copied from the page: (offset in `text`, offset on the
    /// page, length), ascending.
    raw: Vec<(usize, usize, usize)>,
}

impl Html {
    /// Appends raw HTML written at `page` on the page (when its text is the
    /// page's there).
    fn raw(&mut self, text: &str, page: Option<usize>) {
        if let Some(p) = page {
            self.raw.push((self.text.len(), p, text.len()));
        }
        self.text.push_str(text);
    }

    /// Appends text, escaped.
    fn escaped(&mut self, text: &str) {
        for c in text.chars() {
            match c {
                '&' => self.text.push_str("&amp;"),
                '<' => self.text.push_str("&lt;"),
                '>' => self.text.push_str("&gt;"),
                c => self.text.push(c),
            }
        }
    }

    /// Appends another rendering (the footnotes, rendered apart).
    fn append(&mut self, other: Html) {
        let at = self.text.len();
        self.raw
            .extend(other.raw.into_iter().map(|(o, p, n)| (o + at, p, n)));
        self.text.push_str(&other.text);
    }

    /// The page offset of the start tag (or `<!--`, `open`) of node `id`,
    /// when it was copied from the page: the last `<name` that starts on or
    /// before the line the parser created the node at.
    fn page_offset(&self, dom: &Dom, id: usize, open: &str) -> Option<usize> {
        let node = &dom.nodes[id];
        let needle = match (&node.kind, open) {
            (Kind::Element { .. }, "") => format!("<{}", node.name.local),
            _ => open.to_string(),
        };
        let line_end = self
            .text
            .match_indices('\n')
            .nth((node.line.max(1) - 1) as usize)
            .map_or(self.text.len(), |(i, _)| i);
        let lower = self.text[..line_end].to_ascii_lowercase();
        let at = lower.rfind(&needle)?;
        let seg = self.raw.partition_point(|r| r.0 <= at).checked_sub(1)?;
        let (o, p, n) = self.raw[seg];
        (at < o + n).then_some(p + at - o)
    }
}

/// The page rendered as a docs site renders it (see the module doc), each
/// code block's text replaced by its marker: a fenced or indented block's,
/// and the text of a raw-HTML `<pre>` (its `content`) where the raw HTML
/// holding it is copied.
fn render(
    view: &View,
    page: &str,
    options: Options,
    blocks: &[CodeBlock],
    marker: &Marker,
) -> Html {
    let referenced: BTreeSet<String> = Parser::new_ext(&view.text, options)
        .filter_map(|e| match e {
            Event::FootnoteReference(label) => Some(footnote_label(&label)),
            _ => None,
        })
        .collect();
    // Each block found by where it starts (fenced and indented ones) and
    // the raw-HTML ones in page order, once: a page of many blocks renders
    // in linear time.
    let mut by_start: HashMap<usize, usize> = HashMap::new();
    for (k, b) in blocks.iter().enumerate().filter(|(_, b)| !b.html) {
        by_start.entry(b.at).or_insert(k);
    }
    let html_blocks: Vec<usize> = (0..blocks.len())
        .filter(|&k| blocks[k].html && blocks[k].content.0 != blocks[k].content.1)
        .collect();
    let mut main = Html::default();
    let mut notes = Html::default();
    let mut in_note = false;
    // Events not rendered: an unreferenced footnote, front matter, an
    // image's alt text (its depth of nesting), a code block's text.
    let mut skip = 0usize;
    let mut in_code = false;
    let mut head = false;
    let mut body_open = false;
    for (event, range) in Parser::new_ext(&view.text, options).into_offset_iter() {
        let out = if in_note { &mut notes } else { &mut main };
        if skip > 0 {
            match &event {
                Event::Start(_) => skip += 1,
                Event::End(_) => skip -= 1,
                _ => {}
            }
            if skip == 0
                && let Event::End(TagEnd::Image) = event
            {
                out.raw("<img src=\"\" alt=\"\" />", None);
            }
            continue;
        }
        if in_code {
            if let Event::End(TagEnd::CodeBlock) = event {
                in_code = false;
                out.raw("</code></pre>\n", None);
            }
            continue;
        }
        let (s, e) = view.range(range.start, range.end);
        match event {
            Event::Start(tag) => match tag {
                Tag::FootnoteDefinition(label) => {
                    if referenced.contains(&footnote_label(&label)) {
                        in_note = true;
                        notes.raw("<li>\n", None);
                    } else {
                        skip = 1;
                    }
                }
                Tag::MetadataBlock(_) | Tag::Image { .. } => skip = 1,
                Tag::CodeBlock(_) => {
                    let k = by_start.get(&s).copied();
                    out.raw("<pre><code>", None);
                    if let Some(k) = k {
                        out.raw(&marker.of(k), None);
                    }
                    in_code = true;
                }
                other => out.raw(&open_tag(&other, &mut head, &mut body_open), None),
            },
            Event::End(end) => match end {
                TagEnd::FootnoteDefinition => {
                    in_note = false;
                    notes.raw("</li>\n", None);
                }
                TagEnd::TableHead => {
                    head = false;
                    out.raw("</tr>\n</thead>\n", None);
                }
                TagEnd::Table => {
                    let close = if std::mem::take(&mut body_open) {
                        "</tbody>\n</table>\n"
                    } else {
                        "</table>\n"
                    };
                    out.raw(close, None);
                }
                other => out.raw(close_tag(other, head), None),
            },
            Event::Text(t) => carry(out, &t, page, (s, e), (blocks, &html_blocks), marker, false),
            Event::Html(t) | Event::InlineHtml(t) => {
                carry(out, &t, page, (s, e), (blocks, &html_blocks), marker, true)
            }
            Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                out.raw("<code>", None);
                out.escaped(&t);
                out.raw("</code>", None);
            }
            Event::SoftBreak => out.raw("\n", None),
            Event::HardBreak => out.raw("<br />\n", None),
            Event::Rule => out.raw("<hr />\n", None),
            Event::FootnoteReference(_) => out.raw("<sup><a href=\"#fn\">1</a></sup>", None),
            Event::TaskListMarker(checked) => out.raw(
                if checked {
                    "<input type=\"checkbox\" disabled=\"\" checked=\"\" /> "
                } else {
                    "<input type=\"checkbox\" disabled=\"\" /> "
                },
                None,
            ),
        }
    }
    if !notes.text.is_empty() {
        main.raw("<section>\n<ol>\n", None);
        main.append(notes);
        main.raw("</ol>\n</section>\n", None);
    }
    main
}

/// Text of the page as rendered (raw HTML as it is, other text escaped),
/// with the text of raw-HTML `<pre>` blocks that starts in it replaced by
/// their markers (the rest of their text left out). Only when the event's
/// text is the page's text at its range (no container markup in it); else
/// as it is.
fn carry(
    out: &mut Html,
    text: &str,
    page: &str,
    (s, e): (usize, usize),
    (blocks, html_blocks): (&[CodeBlock], &[usize]),
    marker: &Marker,
    raw: bool,
) {
    let put = |out: &mut Html, piece: &str, at: usize| {
        if raw {
            out.raw(piece, Some(at));
        } else {
            out.escaped(piece);
        }
    };
    if page.get(s..e) != Some(text) {
        put(out, text, s);
        return;
    }
    let mut at = s;
    // The raw-HTML blocks, in page order, from the first that ends after
    // the event starts (their contents do not overlap).
    let first = html_blocks.partition_point(|&k| blocks[k].content.1 <= s);
    for &k in &html_blocks[first..] {
        let b = &blocks[k];
        let (a, z) = b.content;
        if a >= e {
            break;
        }
        if z <= at {
            continue;
        }
        if a > at {
            put(out, &page[at..a], at);
        }
        if a >= s {
            out.raw(&marker.of(k), None);
        }
        at = z.min(e).max(at);
    }
    if at < e {
        put(out, &page[at..e], at);
    }
}

/// The HTML a renderer writes for the start of a Markdown element (`head`:
/// inside a table's head; `body_open`: its body started).
fn open_tag(tag: &Tag<'_>, head: &mut bool, body_open: &mut bool) -> String {
    match tag {
        Tag::Paragraph => "<p>".into(),
        Tag::Heading { level, .. } => format!("<{level}>"),
        Tag::BlockQuote(_) => "<blockquote>\n".into(),
        Tag::List(Some(_)) => "<ol>\n".into(),
        Tag::List(None) => "<ul>\n".into(),
        Tag::Item => "<li>".into(),
        Tag::Table(_) => "<table>\n".into(),
        Tag::TableHead => {
            *head = true;
            "<thead>\n<tr>\n".into()
        }
        Tag::TableRow => {
            if std::mem::replace(body_open, true) {
                "<tr>\n".into()
            } else {
                "<tbody>\n<tr>\n".into()
            }
        }
        Tag::TableCell if *head => "<th>".into(),
        Tag::TableCell => "<td>".into(),
        Tag::Emphasis => "<em>".into(),
        Tag::Strong => "<strong>".into(),
        Tag::Strikethrough => "<del>".into(),
        Tag::Superscript => "<sup>".into(),
        Tag::Subscript => "<sub>".into(),
        Tag::Link { .. } => "<a href=\"\">".into(),
        _ => String::new(),
    }
}

/// The HTML a renderer writes for the end of a Markdown element.
fn close_tag(end: TagEnd, head: bool) -> &'static str {
    match end {
        TagEnd::Paragraph => "</p>\n",
        TagEnd::Heading(level) => match level as usize {
            1 => "</h1>\n",
            2 => "</h2>\n",
            3 => "</h3>\n",
            4 => "</h4>\n",
            5 => "</h5>\n",
            _ => "</h6>\n",
        },
        TagEnd::BlockQuote(_) => "</blockquote>\n",
        TagEnd::List(true) => "</ol>\n",
        TagEnd::List(false) => "</ul>\n",
        TagEnd::Item => "</li>\n",
        TagEnd::TableRow => "</tr>\n",
        TagEnd::TableCell if head => "</th>\n",
        TagEnd::TableCell => "</td>\n",
        TagEnd::Emphasis => "</em>",
        TagEnd::Strong => "</strong>",
        TagEnd::Strikethrough => "</del>",
        TagEnd::Superscript => "</sup>",
        TagEnd::Subscript => "</sub>",
        TagEnd::Link => "</a>",
        _ => "",
    }
}

/// A node of the parsed page.
struct Node {
    parent: Option<usize>,
    children: Vec<usize>,
    /// The line of the rendered HTML the parser created it at.
    line: u64,
    /// An element's name (empty for other nodes).
    name: QualName,
    kind: Kind,
}

enum Kind {
    Document,
    Element {
        attrs: Vec<Attribute>,
        /// A `<template>`'s content (a fragment whose parent is the
        /// template here, so what is in it is inside the template).
        template: Option<usize>,
    },
    Text(RefCell<String>),
    Comment(String),
    Other,
}

/// The tree `html5ever` builds, as an arena of nodes.
struct Dom {
    nodes: Vec<Node>,
}

impl Dom {
    /// Parses a whole HTML document as a browser does (scripting enabled).
    fn parse(html: &str) -> Dom {
        let sink = Sink {
            nodes: RefCell::new(vec![Node {
                parent: None,
                children: Vec::new(),
                line: 1,
                name: no_name(),
                kind: Kind::Document,
            }]),
            line: Cell::new(1),
        };
        html5ever::parse_document(sink, Default::default()).one(html)
    }

    /// Why the text node `id` is not shown as a code block's text: when no
    /// `<pre>` holds it, the element that holds it as text (`<script>`,
    /// `<textarea>`, ...); else the outermost element around it that hides
    /// what it holds ([`visibility::block_hides`]: a `<select>` too).
    fn why_hidden(&self, id: usize) -> Option<(usize, String)> {
        let mut hiding: Option<(usize, String)> = None;
        let mut pre = false;
        let mut holder: Option<usize> = None;
        let mut at = self.nodes[id].parent;
        while let Some(n) = at {
            if let Kind::Element { attrs, .. } = &self.nodes[n].kind {
                let name = &self.nodes[n].name;
                let local: &str = &name.local;
                holder.get_or_insert(n);
                if name.ns == ns!(html) {
                    pre |= local == "pre";
                }
                let get = |a: &str| {
                    attrs
                        .iter()
                        .find(|x| &*x.name.local == a)
                        .map(|x| x.value.to_string())
                };
                if let Some(why) = visibility::block_hides(local, &get) {
                    hiding = Some((n, why));
                }
            }
            at = self.nodes[n].parent;
        }
        // Read as the text of a raw-text or RCDATA element (`<script>`,
        // `<textarea>`, ...): that element is what a reader does not see as
        // a code block.
        if pre {
            return hiding;
        }
        let Some(n) = holder else {
            return Some((id, "raw HTML".to_string()));
        };
        let what = format!("`<{}>` element", self.nodes[n].name.local);
        Some((n, what))
    }
}

/// The name of a node that is no element.
fn no_name() -> QualName {
    QualName::new(None, ns!(), "".into())
}

/// What `html5ever` builds the tree into.
struct Sink {
    nodes: RefCell<Vec<Node>>,
    line: Cell<u64>,
}

impl Sink {
    fn add(&self, name: QualName, kind: Kind) -> usize {
        let mut nodes = self.nodes.borrow_mut();
        nodes.push(Node {
            parent: None,
            children: Vec::new(),
            line: self.line.get(),
            name,
            kind,
        });
        nodes.len() - 1
    }

    fn detach(&self, child: usize) {
        let mut nodes = self.nodes.borrow_mut();
        if let Some(p) = nodes[child].parent.take() {
            nodes[p].children.retain(|&c| c != child);
        }
    }

    /// Puts `child` (a node, or text merged into a text node before it)
    /// into `parent` at `index`.
    fn insert(&self, parent: usize, index: usize, child: NodeOrText<usize>) {
        let node = match child {
            NodeOrText::AppendText(text) => {
                {
                    let nodes = self.nodes.borrow();
                    let before = index
                        .checked_sub(1)
                        .and_then(|i| nodes[parent].children.get(i));
                    if let Some(&b) = before
                        && let Kind::Text(t) = &nodes[b].kind
                    {
                        t.borrow_mut().push_str(&text);
                        return;
                    }
                }
                self.add(no_name(), Kind::Text(RefCell::new(text.to_string())))
            }
            NodeOrText::AppendNode(n) => {
                self.detach(n);
                n
            }
        };
        let mut nodes = self.nodes.borrow_mut();
        let index = index.min(nodes[parent].children.len());
        nodes[parent].children.insert(index, node);
        nodes[node].parent = Some(parent);
    }
}

impl TreeSink for Sink {
    type Handle = usize;
    type Output = Dom;
    type ElemName<'a> = std::cell::Ref<'a, QualName>;

    fn finish(self) -> Dom {
        Dom {
            nodes: self.nodes.into_inner(),
        }
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> usize {
        0
    }

    fn elem_name<'a>(&'a self, target: &'a usize) -> std::cell::Ref<'a, QualName> {
        std::cell::Ref::map(self.nodes.borrow(), |n| &n[*target].name)
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> usize {
        let el = self.add(
            name,
            Kind::Element {
                attrs,
                template: None,
            },
        );
        if flags.template {
            let content = self.add(no_name(), Kind::Document);
            let mut nodes = self.nodes.borrow_mut();
            nodes[content].parent = Some(el);
            if let Kind::Element { template, .. } = &mut nodes[el].kind {
                *template = Some(content);
            }
        }
        el
    }

    fn create_comment(&self, text: StrTendril) -> usize {
        self.add(no_name(), Kind::Comment(text.to_string()))
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> usize {
        self.add(no_name(), Kind::Other)
    }

    fn append(&self, parent: &usize, child: NodeOrText<usize>) {
        let end = self.nodes.borrow()[*parent].children.len();
        self.insert(*parent, end, child);
    }

    fn append_based_on_parent_node(
        &self,
        element: &usize,
        prev_element: &usize,
        child: NodeOrText<usize>,
    ) {
        if self.nodes.borrow()[*element].parent.is_some() {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {}

    fn get_template_contents(&self, target: &usize) -> usize {
        match &self.nodes.borrow()[*target].kind {
            Kind::Element {
                template: Some(c), ..
            } => *c,
            _ => *target,
        }
    }

    fn same_node(&self, x: &usize, y: &usize) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &usize, child: NodeOrText<usize>) {
        let place = {
            let nodes = self.nodes.borrow();
            nodes[*sibling].parent.map(|p| {
                let i = nodes[p].children.iter().position(|c| c == sibling);
                (p, i.unwrap_or(nodes[p].children.len()))
            })
        };
        if let Some((p, i)) = place {
            // A node moved from before its sibling's own place shifts it.
            if let NodeOrText::AppendNode(n) = &child
                && self.nodes.borrow()[*n].parent == Some(p)
            {
                self.detach(*n);
                let i = self.nodes.borrow()[p]
                    .children
                    .iter()
                    .position(|c| c == sibling)
                    .unwrap_or(i);
                self.insert(p, i, NodeOrText::AppendNode(*n));
                return;
            }
            self.insert(p, i, child);
        }
    }

    fn add_attrs_if_missing(&self, target: &usize, add: Vec<Attribute>) {
        if let Kind::Element { attrs, .. } = &mut self.nodes.borrow_mut()[*target].kind {
            for a in add {
                if !attrs.iter().any(|x| x.name == a.name) {
                    attrs.push(a);
                }
            }
        }
    }

    fn remove_from_parent(&self, target: &usize) {
        self.detach(*target);
    }

    fn reparent_children(&self, node: &usize, new_parent: &usize) {
        let children = std::mem::take(&mut self.nodes.borrow_mut()[*node].children);
        let mut nodes = self.nodes.borrow_mut();
        for c in children {
            nodes[c].parent = Some(*new_parent);
            nodes[*new_parent].children.push(c);
        }
    }

    fn set_current_line(&self, line: u64) {
        self.line.set(line);
    }
}

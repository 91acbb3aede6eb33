//! Bundles: a component file or an `.mdx` page with its imports, as one script.
//!
//! Each module becomes `__rd_m[i] = (function () { <imports> <code> return {exports}; })();`
//! in dependency order; the targets are the component's exported components, or
//! the page's component tags (`<X />`, `<Deployment config={config} />`).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::transform::{self, Module};
use super::{Bundle, Placed, Target};
use crate::error::Error;
use crate::extract::markdown;
use crate::span::{Origin, Source};

/// Loads modules and their imports, dependencies first.
struct Loader {
    docs_root: Option<PathBuf>,
    modules: Vec<Module>,
    index: HashMap<PathBuf, usize>,
    visiting: Vec<PathBuf>,
    /// The bytes of the module files read for imports so far.
    bytes: usize,
    /// Module texts that stand in for their files (an edit being tried).
    overlay: Overlay,
}

/// Module texts that stand in for the files of those paths when a bundle is
/// built: an edit tried without writing it (see `provenance`).
#[derive(Debug, Clone, Default)]
pub struct Overlay(pub Vec<(PathBuf, Arc<Source>)>);

impl Overlay {
    /// The text standing in for `path`, when one does (paths compared as
    /// the file system resolves them).
    fn get(&self, path: &Path) -> Option<Arc<Source>> {
        let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let want = canon(path);
        self.0
            .iter()
            .find(|(p, _)| canon(p) == want)
            .map(|(_, s)| s.clone())
    }
}

/// The module specifiers bound to the React runtime.
const REACT: &[&str] = &["react"];

impl Loader {
    fn new(docs_root: Option<PathBuf>, overlay: &Overlay) -> Self {
        Loader {
            docs_root,
            modules: vec![],
            index: HashMap::new(),
            visiting: vec![],
            bytes: 0,
            overlay: overlay.clone(),
        }
    }

    /// The file an import names, or `None` for React itself.
    fn resolve(&self, from: &Source, imp: &transform::Import) -> Result<Option<PathBuf>, Error> {
        if REACT.contains(&imp.source.as_str()) {
            return Ok(None);
        }
        let at = from.span(imp.at, imp.at);
        let base = if let Some(rest) = imp.source.strip_prefix('/') {
            match &self.docs_root {
                Some(root) => root.join(rest),
                None => {
                    return Err(Error::input(
                        at,
                        format!(
                            "cannot resolve `{}`: no docs root (a folder holding src/snippets) above this file{}; give one with --docs-root",
                            imp.source,
                            match &from.origin {
                                Origin::File(p) =>
                                    crate::files::search_stop_note(p.parent().unwrap_or(p)),
                                _ => String::new(),
                            }
                        ),
                    ));
                }
            }
        } else if imp.source.starts_with("./") || imp.source.starts_with("../") {
            let dir = match &from.origin {
                Origin::File(p) => p.parent().map(Path::to_path_buf).unwrap_or_default(),
                _ => PathBuf::new(),
            };
            dir.join(&imp.source)
        } else {
            return Err(Error::input(
                at,
                format!(
                    "cannot resolve `{}`: only React and files of the docs (`/src/...`, `./...`) can be imported",
                    imp.source
                ),
            ));
        };
        let candidates = [
            base.clone(),
            base.with_extension("jsx"),
            base.with_extension("js"),
        ];
        let has_ext = base.extension().is_some();
        for c in candidates.iter().skip(if has_ext { 0 } else { 1 }) {
            if crate::files::is_file(c).map_err(|e| Error::input(at.clone(), e.to_string()))? {
                return Ok(Some(c.clone()));
            }
        }
        Err(Error::input(
            at,
            format!(
                "cannot resolve `{}`: {} does not exist",
                imp.source,
                base.display()
            ),
        ))
    }

    /// Loads a module file (once) with its imports; returns its index.
    fn load(&mut self, path: &Path, from: Option<(&Source, usize)>) -> Result<usize, Error> {
        let key = path.to_path_buf();
        if let Some(&i) = self.index.get(&key) {
            return Ok(i);
        }
        if self.visiting.contains(&key) {
            let (src, at) = from.expect("a cycle has an importer");
            return Err(Error::input(
                src.span(at, at),
                format!("import cycle through {}", path.display()),
            ));
        }
        if self.modules.len() + self.visiting.len() >= MAX_BUNDLE_MODULES
            && let Some((src, at)) = from
        {
            return Err(Error::input(
                src.span(at, at),
                format!(
                    "this import would load more than {MAX_BUNDLE_MODULES} module files for one page or component (the budget of modules per bundle)"
                ),
            ));
        }
        // Read through the confined layer; a refusal is placed at the import.
        let source = match self.overlay.get(path) {
            Some(s) => s,
            None => Source::read(path).map_err(|e| match from {
                Some((src, at)) => Error::input(src.span(at, at), e.to_string()),
                None => e,
            })?,
        };
        // Only JavaScript is a module (a JSON import would read as JSX).
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default();
        if let Some((src, at)) = from
            && !matches!(ext.to_ascii_lowercase().as_str(), "jsx" | "js" | "mjs")
        {
            return Err(Error::input(
                src.span(at, at),
                format!(
                    "cannot import {}: a generator imports JavaScript modules (.jsx, .js, .mjs) only; JSON and other files are not supported",
                    path.display()
                ),
            ));
        }
        self.bytes += source.text.len();
        if self.bytes > MAX_BUNDLE_BYTES
            && let Some((src, at)) = from
        {
            return Err(Error::input(
                src.span(at, at),
                format!(
                    "this import brings the module files imported for one page or component over {} KiB (the budget of imported module bytes per bundle)",
                    MAX_BUNDLE_BYTES >> 10
                ),
            ));
        }
        self.load_source(path, &source)
    }

    /// Loads a module from its text (once) with its imports; returns its index.
    fn load_source(&mut self, path: &Path, source: &Arc<Source>) -> Result<usize, Error> {
        let key = path.to_path_buf();
        if let Some(&i) = self.index.get(&key) {
            return Ok(i);
        }
        let module = transform::transform(source)?;
        check_imports(&module)?;
        self.visiting.push(key.clone());
        for imp in &module.imports {
            if let Some(dep) = self.resolve(source, imp)? {
                self.load(&dep, Some((source, imp.at)))?;
            }
        }
        self.visiting.pop();
        self.modules.push(module);
        let i = self.modules.len() - 1;
        self.index.insert(key, i);
        Ok(i)
    }

    /// The page or component file, then the module files loaded, in load order.
    fn files(&self, file: &Path) -> Vec<PathBuf> {
        let mut out = vec![file.to_path_buf()];
        let mut loaded: Vec<(&PathBuf, &usize)> = self.index.iter().collect();
        loaded.sort_by_key(|(_, i)| **i);
        for (p, _) in loaded {
            if !out.contains(p) {
                out.push(p.clone());
            }
        }
        out
    }

    /// JS that binds a module's imports inside its function.
    fn bindings(&self, module: &Module) -> Result<String, Error> {
        let mut out = String::new();
        for imp in &module.imports {
            let local = &imp.local;
            match self.resolve(&module.source, imp)? {
                None => {
                    let expr = match imp.imported.as_str() {
                        "default" | "*" => "globalThis.React".to_string(),
                        name => format!("globalThis.React[{}]", js_string(name)),
                    };
                    let _ = write!(out, "const {local} = {expr}; ");
                }
                Some(dep) => {
                    let i = self.index[&dep];
                    let target = &self.modules[i];
                    if imp.imported == "*" {
                        let _ = write!(out, "const {local} = __rd_m[{i}]; ");
                        continue;
                    }
                    if !target.exports.iter().any(|(e, _)| *e == imp.imported) {
                        let exported: Vec<&str> =
                            target.exports.iter().map(|(e, _)| e.as_str()).collect();
                        return Err(Error::input(
                            module.source.span(imp.at, imp.at),
                            format!(
                                "`{}` is not exported by {} (it exports: {})",
                                imp.imported,
                                dep.display(),
                                if exported.is_empty() {
                                    "nothing".to_string()
                                } else {
                                    exported.join(", ")
                                }
                            ),
                        ));
                    }
                    let _ = write!(
                        out,
                        "const {local} = __rd_m[{i}][{}]; ",
                        js_string(&imp.imported)
                    );
                }
            }
        }
        Ok(out)
    }

    /// The script of every loaded module, and where each module's code sits
    /// in it.
    fn code(&self) -> Result<(String, Vec<Placed>), Error> {
        let mut out = String::from("var __rd_m = [];\n");
        let mut placed = Vec::new();
        for (i, m) in self.modules.iter().enumerate() {
            let exports: Vec<String> = m
                .exports
                .iter()
                .map(|(e, l)| format!("{}: {l}", js_string(e)))
                .collect();
            let _ = write!(
                out,
                "__rd_m[{i}] = (function () {{\n{}\n",
                self.bindings(m)?
            );
            placed.push(place(&out, m));
            let _ = write!(
                out,
                "{}\nreturn {{{}}};\n}})();\n",
                m.code,
                exports.join(", ")
            );
        }
        Ok((out, placed))
    }
}

/// A module's imports within [`MAX_MODULE_IMPORTS`]; the error is at the
/// first one past it.
fn check_imports(module: &Module) -> Result<(), Error> {
    match module.imports.get(MAX_MODULE_IMPORTS) {
        Some(imp) => Err(Error::input(
            module.source.span(imp.at, imp.at),
            format!(
                "this module has more than {MAX_MODULE_IMPORTS} imports (the budget of import specifiers per module)"
            ),
        )),
        None => Ok(()),
    }
}

/// Where module `m`'s code sits when it is appended to `before` (which ends
/// with a line break).
fn place(before: &str, m: &Module) -> Placed {
    let count =
        |s: &str| u32::try_from(s.bytes().filter(|b| *b == b'\n').count()).unwrap_or(u32::MAX);
    Placed {
        source: m.source.clone(),
        line: count(before),
        lines: count(&m.code).saturating_add(1),
        map: Arc::new(m.map.clone()),
    }
}

fn js_string(s: &str) -> String {
    serde_json::to_string(s).expect("a string")
}

/// A component file (its text already read): its exported components are the targets.
pub fn bundle_component(
    source: &Arc<Source>,
    file: &Path,
    docs_root: Option<&Path>,
    props: &[(String, String)],
    overlay: &Overlay,
) -> Result<Bundle, Error> {
    let root = docs_root
        .map(Path::to_path_buf)
        .or_else(|| super::find_docs_root(file));
    let mut loader = Loader::new(root, overlay);
    let i = loader.load_source(file, source)?;
    let module = &loader.modules[i];
    if module.components.is_empty() {
        return Err(Error::input(
            source.span(0, 0),
            "this file exports no component (an exported function whose name starts with a capital letter)",
        ));
    }
    let components: Vec<(String, usize)> = module.components.clone();
    // `--prop NAME=EXPORT` (this module's export) or `NAME=FILE:EXPORT` (a
    // module file, resolved as an import from this file would be).
    let mut given = Vec::new();
    for (name, value) in props {
        let (module_index, export) = match value.rsplit_once(':') {
            Some((path, export)) if !path.is_empty() => {
                let imp = transform::Import {
                    source: path.to_string(),
                    imported: export.to_string(),
                    local: name.clone(),
                    at: 0,
                };
                let dep = loader.resolve(source, &imp)?.ok_or_else(|| {
                    Error::usage(format!(
                        "--prop {name}={value}: `{path}` is not a module file"
                    ))
                })?;
                (loader.load(&dep, None)?, export.to_string())
            }
            _ => (i, value.clone()),
        };
        if !loader.modules[module_index]
            .exports
            .iter()
            .any(|(e, _)| e == &export)
        {
            let exports: Vec<&str> = loader.modules[module_index]
                .exports
                .iter()
                .map(|(e, _)| e.as_str())
                .collect();
            return Err(Error::usage(format!(
                "--prop {name}={value}: the module exports no `{export}`; its exports are: {}",
                exports.join(", ")
            )));
        }
        given.push(format!(
            "{}: __rd_m[{module_index}][{}]",
            js_string(name),
            js_string(&export)
        ));
    }
    // The data exports (not components) a component's props may be read from
    // by convention (`__rd_props` in prelude.js).
    let data: Vec<String> = loader.modules[i]
        .exports
        .iter()
        .filter(|(e, _)| !components.iter().any(|(c, _)| c == e))
        .map(|(e, _)| js_string(e))
        .collect();
    let (mut code, modules) = loader.code()?;
    code.push_str("globalThis.__rd_targets = [\n");
    let mut targets = Vec::new();
    for (name, at) in &components {
        let _ = writeln!(
            code,
            "  {{name: {n}, element: React.createElement(__rd_m[{i}][{n}], __rd_props(__rd_m[{i}][{n}], __rd_m[{i}], [{data}], {{{given}}}))}},",
            n = js_string(name),
            data = data.join(", "),
            given = given.join(", ")
        );
        targets.push(Target {
            name: name.clone(),
            at: source.span(*at, *at),
        });
    }
    code.push_str("];\n");
    Ok(Bundle {
        file: file.to_path_buf(),
        code,
        targets,
        files: loader.files(file),
        modules,
        page_blocks: Vec::new(),
    })
}

/// Components a docs site (Mintlify) provides without an import; their
/// children are Markdown, read like the rest of the page. Any other
/// capitalized tag must be imported by the page.
pub const LAYOUT_COMPONENTS: &[&str] = &[
    "Accordion",
    "AccordionGroup",
    "Badge",
    "Banner",
    "Callout",
    "Card",
    "CardGroup",
    "Check",
    "CodeGroup",
    "Color",
    "Columns",
    "Danger",
    "Expandable",
    "Frame",
    "Icon",
    "Info",
    "Latex",
    "Mermaid",
    "Note",
    "Panel",
    "ParamField",
    "Prompt",
    "RequestExample",
    "ResponseExample",
    "ResponseField",
    "Snippet",
    "Step",
    "Steps",
    "Tab",
    "Tabs",
    "Tile",
    "Tip",
    "Tooltip",
    "Tree",
    "Update",
    "View",
    "Warning",
];

/// Whether a tag is a layout component or one of its parts (`Tree.Folder`).
fn is_layout(name: &str) -> bool {
    LAYOUT_COMPONENTS.contains(&name.split('.').next().unwrap_or(name))
}

/// A component tag found on a page: `<Name ... />` or `<Name ...>...</Name>`.
struct Tag {
    name: String,
    start: usize,
    end: usize,
}

/// What an `.mdx` page holds outside its code (as its Markdown structure
/// decides): ESM blocks and capitalized component tags.
struct Scan {
    /// ESM blocks (`import`/`export` at a line start, to the blank line where
    /// the block parses; see [`markdown::Blocks::esm`]).
    esm: Vec<(usize, usize)>,
    /// Every component tag in page order, nested ones included.
    tags: Vec<Tag>,
    /// The page's own reading (code blocks, code spans, comments).
    blocks: markdown::Blocks,
}

/// The most component tags (capitalized, opening or self-closing) a page
/// may hold. Real pages have tens; the scan is linear, this bounds its memory.
pub const MAX_PAGE_TAGS: usize = 100_000;

/// The most imported components a page may render (its targets). Real pages
/// render one or two generators; each target is rendered in the sandbox.
pub const MAX_PAGE_TARGETS: usize = 64;

/// The most import specifiers one module (a page, a component file or a
/// module it imports) may have. Real modules have a handful.
pub const MAX_MODULE_IMPORTS: usize = 256;

/// The most module files one page or component loads, its imports' imports
/// included. Each is transformed in a worker of its own; real bundles have
/// a few.
pub const MAX_BUNDLE_MODULES: usize = 64;

/// The most bytes of module files one page or component imports, its
/// imports' imports included. Transforming and loading take time in
/// proportion (2 MiB in 64 files: about 6 s in a debug build, page and
/// rendering included); real generators import a few KiB.
pub const MAX_BUNDLE_BYTES: usize = 2 << 20;

/// Scans a page. Work is linear in its length: each byte is read once (an
/// opening tag's attributes by [`markdown::open_tag_end`], then the scan goes on after
/// the tag), and a closing tag closes the innermost open tag, which must have
/// its name (JSX's rule), so a tag nested in one of its own name is matched.
fn scan_page(source: &Source) -> Result<Scan, Error> {
    let text = &*source.text;
    let bytes = text.as_bytes();
    let blocks = markdown::blocks_as(source, true)?;
    let excluded = &blocks.excluded;
    let esm = blocks.esm.clone();
    let mut tags: Vec<Tag> = Vec::new();
    // Tags opened and not closed yet, innermost last (indices into `tags`).
    let mut open: Vec<usize> = Vec::new();
    let mut x = 0; // next excluded range
    let mut i = if text.starts_with('\u{feff}') { 3 } else { 0 };
    while i < bytes.len() {
        if let Some(next) = markdown::past_ranges(excluded, &mut x, i) {
            i = next;
            continue;
        }
        let rest = &bytes[i..];
        if rest[0] != b'<' {
            i += 1;
            continue;
        }
        let Some((close, from, len)) = markdown::component_tag_at(bytes, i) else {
            i += 1;
            continue;
        };
        let name = &text[from..from + len];
        let after = from + len;
        if close {
            let gt = after
                + bytes[after..]
                    .iter()
                    .take_while(|c| c.is_ascii_whitespace())
                    .count();
            if bytes.get(gt) != Some(&b'>') {
                return Err(Error::input(
                    source.span(i, after),
                    format!("the closing tag `</{name}` never ends: no `>` after its name"),
                ));
            }
            match open.pop() {
                Some(t) if tags[t].name == name => tags[t].end = gt + 1,
                Some(t) => {
                    let opened = source.line_col(tags[t].start);
                    return Err(Error::input(
                        source.span(i, gt + 1),
                        format!(
                            "`</{name}>` closes `<{}>` (opened at line {}, column {}): tags must nest",
                            tags[t].name, opened.line, opened.col
                        ),
                    ));
                }
                None => {
                    return Err(Error::input(
                        source.span(i, gt + 1),
                        format!("`</{name}>` closes no open tag"),
                    ));
                }
            }
            i = gt + 1;
            continue;
        }
        if tags.len() == MAX_PAGE_TAGS {
            return Err(Error::input(
                source.span(i, after),
                format!(
                    "this page has more than {MAX_PAGE_TAGS} component tags (the budget of component tags per page)"
                ),
            ));
        }
        let Some((end, self_closing)) = markdown::open_tag_end(bytes, after) else {
            return Err(Error::input(
                source.span(i, after),
                format!("the tag `<{name}` never ends: no `>` or `/>` after its attributes"),
            ));
        };
        if !self_closing {
            open.push(tags.len());
        }
        tags.push(Tag {
            name: name.to_string(),
            start: i,
            end,
        });
        i = end;
    }
    if let Some(&t) = open.first() {
        let Tag { name, start, .. } = &tags[t];
        return Err(Error::input(
            source.span(*start, start + 1 + name.len()),
            format!("`<{name}>` is never closed: no `</{name}>` after it"),
        ));
    }
    Ok(Scan { esm, tags, blocks })
}

/// A rendered element's source as the page's module holds it: what the
/// page's own reading shows of the Markdown inside it (code blocks, code
/// spans, raw-HTML `<pre>` elements; MDX comments) is read there, as text,
/// not again as JSX: each becomes `{""}`, its line breaks kept so positions
/// keep their lines. (Spliced as JSX, a fence's `${X:-d}` was a syntax
/// error and a `<pre>` in a shell comment a command no reader sees.) A
/// fenced code block the page shows becomes a marker element instead,
/// `<rd-page-block data-rd-block="K" />`, K its number in `markers` (which
/// gets `(target, where the block starts)`): the component shows the block
/// only where it renders that marker, visibly (a component may drop its
/// children, or render them hidden).
fn element_source(
    text: &str,
    start: usize,
    end: usize,
    blocks: &markdown::Blocks,
    target: usize,
    markers: &mut Vec<(usize, usize)>,
) -> String {
    let lower = text.to_ascii_lowercase();
    let mut cut: Vec<(usize, usize)> = blocks
        .excluded
        .iter()
        .copied()
        .filter(|&(s, e)| s >= start && e <= end && s < e)
        .collect();
    for b in blocks
        .code
        .iter()
        .filter(|b| b.html && b.at >= start && b.at < end)
    {
        let close = lower[b.content.1..end]
            .find("</pre")
            .map_or(end, |k| b.content.1 + k);
        let stop = lower[close..end].find('>').map_or(end, |k| close + k + 1);
        cut.push((b.at, stop));
    }
    cut.sort_unstable();
    let mut out = String::with_capacity(end - start);
    let mut at = start;
    for (s, e) in cut {
        if s < at {
            continue;
        }
        out.push_str(&text[at..s]);
        let fence = blocks
            .code
            .iter()
            .any(|b| !b.html && b.hidden.is_none() && b.at == s);
        if fence {
            out.push_str(&format!(
                "<rd-page-block data-rd-block=\"{}\" />",
                markers.len()
            ));
            markers.push((target, s));
        } else {
            out.push_str("{\"\"}");
        }
        out.extend(text[s..e].matches('\n'));
        at = e;
    }
    out.push_str(&text[at..end]);
    out
}

/// Whether an `.mdx` page renders components: it uses a capitalized tag that
/// is not a layout component (imported or not; an undefined one is reported
/// when the page is read), or its structure is broken (an unclosed tag, a bare
/// CR), which reading it reports.
pub fn has_components(text: &str) -> bool {
    let source = Source::new(Origin::Inline("page.mdx".into()), text.to_string());
    match scan_page(&source) {
        Ok(scan) => scan.tags.iter().any(|t| !is_layout(&t.name)),
        Err(_) => true,
    }
}

/// A page: its imported components used as tags are the targets.
pub fn bundle_page(
    source: &Arc<Source>,
    file: &Path,
    docs_root: Option<&Path>,
    overlay: &Overlay,
) -> Result<Bundle, Error> {
    let root = docs_root
        .map(Path::to_path_buf)
        .or_else(|| super::find_docs_root(file));
    let text = &source.text;
    let scan = scan_page(source)?;
    // A module of the page: its ESM and, per target tag, a push of the
    // element, at the same lines as on the page so that errors point there.
    // Every other byte becomes a space (a line feed stays), so the copied
    // ranges keep their offsets.
    let mut synthetic: Vec<u8> = text
        .bytes()
        .map(|b| if b == b'\n' { b'\n' } else { b' ' })
        .collect();
    for &(s, e) in &scan.esm {
        synthetic[s..e].copy_from_slice(&text.as_bytes()[s..e]);
    }
    let mut synthetic = String::from_utf8(synthetic)
        .expect("spaces, and ranges copied from line starts to line starts");
    let page_module = Arc::new(Source::new(
        Origin::File(file.to_path_buf()),
        synthetic.clone(),
    ));
    let imported = transform::transform(&page_module)?;
    check_imports(&imported)?;
    let locals: Vec<&str> = imported.imports.iter().map(|i| i.local.as_str()).collect();
    // Targets: imported components not inside another target (a nested one is
    // part of its parent's element). Layout components are containers; any
    // other capitalized tag is an error.
    let mut used: Vec<&Tag> = Vec::new();
    for t in &scan.tags {
        if used.last().is_some_and(|u| t.start < u.end) {
            continue;
        }
        if locals.contains(&t.name.split('.').next().unwrap_or("")) {
            if used.len() == MAX_PAGE_TARGETS {
                return Err(Error::input(
                    source.span(t.start, t.start + 1 + t.name.len()),
                    format!(
                        "this page renders more than {MAX_PAGE_TARGETS} imported components (the budget of rendered components per page)"
                    ),
                ));
            }
            used.push(t);
        } else if !is_layout(&t.name) {
            return Err(Error::input(
                source.span(t.start, t.start + 1 + t.name.len()),
                format!(
                    "`<{}>` is not imported by this page and is not a component the docs site provides; import it from its snippet",
                    t.name
                ),
            ));
        }
    }
    if used.is_empty() {
        return Err(Error::input(
            source.span(0, 0),
            "this page renders no imported component",
        ));
    }
    // Insert the pushes, last first so offsets stay valid (targets do not
    // overlap); the page blocks' markers are numbered in page order.
    let mut markers: Vec<(usize, usize)> = Vec::new();
    let mut bodies = Vec::with_capacity(used.len());
    for (k, t) in used.iter().enumerate() {
        bodies.push(format!(
            "__rd_t.push({});",
            element_source(text, t.start, t.end, &scan.blocks, k, &mut markers)
        ));
    }
    for (t, body) in used.iter().zip(&bodies).rev() {
        synthetic.replace_range(t.start..t.end, body);
    }
    let page_module = Arc::new(Source::new(Origin::File(file.to_path_buf()), synthetic));
    let mut module = transform::transform(&page_module)?;
    module.exports.clear();

    let mut loader = Loader::new(root, overlay);
    for imp in &module.imports {
        if let Some(dep) = loader.resolve(source, imp)? {
            loader.load(&dep, Some((source, imp.at)))?;
        }
    }
    let (mut code, mut modules) = loader.code()?;
    let names: Vec<String> = used.iter().map(|t| js_string(&t.name)).collect();
    let _ = write!(
        code,
        "globalThis.__rd_targets = [];\n(function () {{\nconst __rd_names = [{}];\nconst __rd_t = {{ push: function (el) {{ globalThis.__rd_targets.push({{name: __rd_names[globalThis.__rd_targets.length], element: el}}); }} }};\n{}\n",
        names.join(", "),
        loader.bindings(&module)?,
    );
    modules.push(place(&code, &module));
    let _ = write!(code, "{}\n}})();\n", module.code);
    let targets = used
        .iter()
        .map(|t| Target {
            name: t.name.clone(),
            at: source.span(t.start, t.start),
        })
        .collect();
    Ok(Bundle {
        file: file.to_path_buf(),
        code,
        targets,
        files: loader.files(file),
        modules,
        page_blocks: markers,
    })
}

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
use super::{Bundle, Target};
use crate::error::Error;
use crate::span::{Origin, Source};

/// Loads modules and their imports, dependencies first.
struct Loader {
    docs_root: Option<PathBuf>,
    modules: Vec<Module>,
    index: HashMap<PathBuf, usize>,
    visiting: Vec<PathBuf>,
}

/// The module specifiers bound to the React runtime.
const REACT: &[&str] = &["react"];

impl Loader {
    fn new(docs_root: Option<PathBuf>) -> Self {
        Loader {
            docs_root,
            modules: vec![],
            index: HashMap::new(),
            visiting: vec![],
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
                            "cannot resolve `{}`: no docs root (a folder holding src/snippets) above this file; give one with --docs-root",
                            imp.source
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
            if c.is_file() {
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
        // Read through the confined layer; a refusal is placed at the import.
        let source = Source::read(path).map_err(|e| match from {
            Some((src, at)) => Error::input(src.span(at, at), e.to_string()),
            None => e,
        })?;
        self.load_source(path, &source)
    }

    /// Loads a module from its text (once) with its imports; returns its index.
    fn load_source(&mut self, path: &Path, source: &Arc<Source>) -> Result<usize, Error> {
        let key = path.to_path_buf();
        if let Some(&i) = self.index.get(&key) {
            return Ok(i);
        }
        let module = transform::transform(source)?;
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

    /// The script of every loaded module.
    fn code(&self) -> Result<String, Error> {
        let mut out = String::from("var __rd_m = [];\n");
        for (i, m) in self.modules.iter().enumerate() {
            let exports: Vec<String> = m
                .exports
                .iter()
                .map(|(e, l)| format!("{}: {l}", js_string(e)))
                .collect();
            let _ = write!(
                out,
                "__rd_m[{i}] = (function () {{\n{}\n{}\nreturn {{{}}};\n}})();\n",
                self.bindings(m)?,
                m.code,
                exports.join(", ")
            );
        }
        Ok(out)
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
) -> Result<Bundle, Error> {
    let root = docs_root
        .map(Path::to_path_buf)
        .or_else(|| super::find_docs_root(file));
    let mut loader = Loader::new(root);
    let i = loader.load_source(file, source)?;
    let module = &loader.modules[i];
    if module.components.is_empty() {
        return Err(Error::input(
            source.span(0, 0),
            "this file exports no component (an exported function whose name starts with a capital letter)",
        ));
    }
    let mut code = loader.code()?;
    code.push_str("globalThis.__rd_targets = [\n");
    let mut targets = Vec::new();
    for (name, at) in &module.components {
        let _ = writeln!(
            code,
            "  {{name: {n}, element: React.createElement(__rd_m[{i}][{n}], null)}},",
            n = js_string(name)
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
    })
}

/// A component tag found on a page.
struct Tag {
    name: String,
    start: usize,
    end: usize,
}

/// Import statements and component tags of an `.mdx` page, outside code fences.
fn scan_page(text: &str) -> (Vec<(usize, usize)>, Vec<Tag>) {
    let mut imports = Vec::new();
    let mut tags = Vec::new();
    let mut fence: Option<String> = None;
    let mut offset = 0;
    let lines = text.split_inclusive('\n');
    let mut skip_until = 0;
    for line in lines {
        let start = offset;
        offset += line.len();
        if start < skip_until {
            continue;
        }
        let trimmed = line.trim_start();
        if let Some(f) = &fence {
            if trimmed.starts_with(f.as_str()) {
                fence = None;
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(trimmed[..3].to_string());
            continue;
        }
        let indent = line.len() - trimmed.len();
        if trimmed.starts_with("import ") {
            let end = statement_end(text, start + indent);
            imports.push((start + indent, end));
            skip_until = end;
        } else if trimmed.starts_with('<')
            && trimmed[1..].starts_with(|c: char| c.is_ascii_uppercase())
        {
            let name: String = trimmed[1..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
                .collect();
            if let Some(end) = tag_end(text, start + indent, &name) {
                tags.push(Tag {
                    name,
                    start: start + indent,
                    end,
                });
            }
        }
    }
    (imports, tags)
}

/// The end of an import statement: after its `from '...'` string (and `;`).
fn statement_end(text: &str, start: usize) -> usize {
    let rest = &text[start..];
    let mut i = 0;
    let bytes = rest.as_bytes();
    let mut seen_from = false;
    while i < bytes.len() {
        let c = bytes[i];
        if (c == b'\'' || c == b'"') && (seen_from || rest[..i].trim_end().ends_with("import")) {
            if let Some(j) = rest[i + 1..].find(c as char) {
                i += j + 2;
                if rest[i..].starts_with(';') {
                    i += 1;
                }
                return start + i;
            }
            return text.len();
        }
        if rest[i..].starts_with("from") {
            seen_from = true;
        }
        i += 1;
    }
    text.len()
}

/// The end of a JSX tag starting at `start` (`<Name ... />` or `<Name ...>...</Name>`).
fn tag_end(text: &str, start: usize, name: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = start + 1 + name.len();
    let mut depth = 0i32;
    let mut quote: Option<u8> = None;
    while i < bytes.len() {
        let c = bytes[i];
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
        } else if depth > 0 {
            match c {
                b'{' => depth += 1,
                b'}' => depth -= 1,
                b'\'' | b'"' | b'`' => quote = Some(c),
                _ => {}
            }
        } else {
            match c {
                b'{' => depth += 1,
                b'"' | b'\'' => quote = Some(c),
                b'/' if bytes.get(i + 1) == Some(&b'>') => return Some(i + 2),
                b'>' => {
                    let close = format!("</{name}>");
                    return text[i..].find(&close).map(|j| i + j + close.len());
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// Whether a page imports something and uses a component tag.
pub fn has_components(text: &str) -> bool {
    let (imports, tags) = scan_page(text);
    !imports.is_empty() && !tags.is_empty()
}

/// A page: its imported components used as tags are the targets.
pub fn bundle_page(
    source: &Arc<Source>,
    file: &Path,
    docs_root: Option<&Path>,
) -> Result<Bundle, Error> {
    let root = docs_root
        .map(Path::to_path_buf)
        .or_else(|| super::find_docs_root(file));
    let text = &source.text;
    let (imports, tags) = scan_page(text);
    // A module of the page: its imports and, per tag, a push of the element, at
    // the same lines as on the page so that errors point there.
    let mut synthetic: Vec<u8> = text
        .bytes()
        .map(|b| if b == b'\n' { b'\n' } else { b' ' })
        .collect();
    for &(s, e) in &imports {
        synthetic[s..e].copy_from_slice(&text.as_bytes()[s..e]);
    }
    let mut synthetic = String::from_utf8(synthetic).expect("ascii and copied utf-8 ranges");
    let page_module = Arc::new(Source::new(
        Origin::File(file.to_path_buf()),
        synthetic.clone(),
    ));
    let imported = transform::transform(&page_module)?;
    let locals: Vec<&str> = imported.imports.iter().map(|i| i.local.as_str()).collect();
    let used: Vec<&Tag> = tags
        .iter()
        .filter(|t| locals.contains(&t.name.split('.').next().unwrap_or("")))
        .collect();
    if used.is_empty() {
        return Err(Error::input(
            source.span(0, 0),
            "this page renders no imported component",
        ));
    }
    // Insert the pushes, last first so offsets stay valid.
    for t in used.iter().rev() {
        let body = format!("__rd_t.push({});", &text[t.start..t.end]);
        synthetic.replace_range(t.start..t.end, &body);
    }
    let page_module = Arc::new(Source::new(Origin::File(file.to_path_buf()), synthetic));
    let mut module = transform::transform(&page_module)?;
    module.exports.clear();

    let mut loader = Loader::new(root);
    for imp in &module.imports {
        if let Some(dep) = loader.resolve(source, imp)? {
            loader.load(&dep, Some((source, imp.at)))?;
        }
    }
    let mut code = loader.code()?;
    let names: Vec<String> = used.iter().map(|t| js_string(&t.name)).collect();
    let _ = write!(
        code,
        "globalThis.__rd_targets = [];\n(function () {{\nconst __rd_names = [{}];\nconst __rd_t = {{ push: function (el) {{ globalThis.__rd_targets.push({{name: __rd_names[globalThis.__rd_targets.length], element: el}}); }} }};\n{}\n{}\n}})();\n",
        names.join(", "),
        loader.bindings(&module)?,
        module.code
    );
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
    })
}

//! JSX module -> plain JS: oxc parses the file, module syntax is taken out
//! (imports are recorded, `export` keywords dropped, exports recorded), and the
//! JSX transform turns elements into `React.createElement` calls.
//!
//! Module syntax is removed by blanking its text with spaces before the JSX
//! transform, so every line keeps its number.

use std::path::Path;
use std::sync::Arc;

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    Declaration, ExportDefaultDeclarationKind, ImportDeclarationSpecifier, Statement,
};
use oxc_codegen::{Codegen, CodegenOptions};
use oxc_parser::Parser;
use oxc_semantic::SemanticBuilder;
use oxc_span::SourceType;
use oxc_transformer::{
    HelperLoaderMode, HelperLoaderOptions, JsxOptions, JsxRuntime, TransformOptions, Transformer,
};

use crate::error::Error;
use crate::files::{LineEndings, check_line_endings};
use crate::span::Source;

/// One imported binding: `import { imported as local } from 'source'`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Import {
    /// The module path as written.
    pub source: String,
    /// The exported name (`default` for a default import, `*` for a namespace).
    pub imported: String,
    /// The local name.
    pub local: String,
    /// Byte offset of the import statement.
    pub at: usize,
}

/// A module made plain: its code, what it imports and what it exports.
#[derive(Debug, Clone)]
pub struct Module {
    /// The file it came from.
    pub source: Arc<Source>,
    /// Plain JS (no JSX, no module syntax), to run inside a function body.
    pub code: String,
    /// The bindings it imports.
    pub imports: Vec<Import>,
    /// Exported name -> local name.
    pub exports: Vec<(String, String)>,
    /// Exported components (capitalized exported functions), with the byte
    /// offset of their declaration.
    pub components: Vec<(String, usize)>,
    /// Where the code's positions come from in the file: `[code line, code
    /// column, file line, file column]` (0-based, columns in UTF-16 units),
    /// sorted by code position (the codegen's source map).
    pub map: Vec<[u32; 4]>,
}

/// The local name given to an anonymous `export default` expression.
const DEFAULT_LOCAL: &str = "__rd_def";

/// The largest module (a generator, a config module or a page's script) that
/// is parsed, in bytes. Real ones are tens of KiB; parsing and transforming
/// take time and memory proportional to the size (a 24 MB array literal took
/// 35 s and 2 GB; a 1 MiB one takes 2 s and under 50 MiB in a debug build,
/// rendering included), so the cap bounds both before anything is parsed.
pub const MAX_MODULE_BYTES: usize = 1 << 20;

/// Parses a JSX (or JS) module and makes it plain: within the size budget,
/// in the worker process (see [`super::Isolation`]), so a module nested too
/// deeply for the parser's stack is an error, not a crash.
pub fn transform(source: &Arc<Source>) -> Result<Module, Error> {
    let text = &source.text;
    check_line_endings(source, LineEndings::Text)?;
    if text.len() > MAX_MODULE_BYTES {
        return Err(Error::input(
            source.span(0, 0),
            format!(
                "this module is {} bytes, over the {} KiB budget for a generator module",
                text.len(),
                MAX_MODULE_BYTES >> 10
            ),
        ));
    }
    match super::worker::isolation() {
        super::Isolation::InProcess => transform_here(source),
        super::Isolation::Process => {
            let path = match &source.origin {
                crate::span::Origin::File(p) | crate::span::Origin::Rendered { file: p, .. } => {
                    p.clone()
                }
                _ => Path::new("inline.jsx").to_path_buf(),
            };
            let plain = super::worker::transform(text, &path).map_err(|e| {
                Error::input(
                    source.span(0, 0),
                    format!("cannot transform this module: {e}"),
                )
            })?;
            match plain {
                Ok(p) => Ok(Module {
                    source: source.clone(),
                    code: p.code,
                    imports: p.imports,
                    exports: p.exports,
                    components: p.components,
                    map: p.map,
                }),
                Err((at, message)) => {
                    let at = at.min(text.len());
                    Err(Error::input(source.span(at, at), message))
                }
            }
        }
    }
}

/// A module made plain, without its source (what the worker sends back).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Plain {
    code: String,
    imports: Vec<Import>,
    exports: Vec<(String, String)>,
    components: Vec<(String, usize)>,
    #[serde(default)]
    map: Vec<[u32; 4]>,
}

/// The transform of `text` (read from `path`) in this process; an error is
/// its byte offset and message.
pub(crate) fn plain(text: &str, path: &Path) -> Result<Plain, (usize, String)> {
    let source = Arc::new(Source::new(
        crate::span::Origin::File(path.to_path_buf()),
        text.to_string(),
    ));
    match transform_here(&source) {
        Ok(m) => Ok(Plain {
            code: m.code,
            imports: m.imports,
            exports: m.exports,
            components: m.components,
            map: m.map,
        }),
        Err(Error::Input { span, message }) => Err((span.start, message)),
        Err(e) => Err((0, e.to_string())),
    }
}

/// [`transform`] in this process.
fn transform_here(source: &Arc<Source>) -> Result<Module, Error> {
    let text = &source.text;
    let allocator = Allocator::default();
    let source_type = source_type(source);
    let parsed = Parser::new(&allocator, text, source_type).parse();
    if let Some(e) = parsed.diagnostics.errors().next() {
        return Err(diagnostic_error(source, e));
    }
    if parsed.panicked {
        return Err(Error::input(source.span(0, 0), "JSX syntax error"));
    }

    let functions = function_declarations(&parsed.program.body);
    let mut blank: Vec<(usize, usize, &'static str)> = Vec::new();
    let mut imports = Vec::new();
    let mut exports = Vec::new();
    for stmt in &parsed.program.body {
        match stmt {
            Statement::ImportDeclaration(d) => {
                let at = d.span.start as usize;
                for s in d.specifiers.iter().flatten() {
                    let (imported, local) = match s {
                        ImportDeclarationSpecifier::ImportSpecifier(s) => {
                            (s.imported.name().to_string(), s.local.name.to_string())
                        }
                        ImportDeclarationSpecifier::ImportDefaultSpecifier(s) => {
                            ("default".to_string(), s.local.name.to_string())
                        }
                        ImportDeclarationSpecifier::ImportNamespaceSpecifier(s) => {
                            ("*".to_string(), s.local.name.to_string())
                        }
                    };
                    imports.push(Import {
                        source: d.source.value.to_string(),
                        imported,
                        local,
                        at,
                    });
                }
                blank.push((at, d.span.end as usize, ""));
            }
            Statement::ExportDeclaration(d) => {
                for name in declared_names(&d.declaration) {
                    exports.push((name.clone(), name));
                }
                let start = d.span.start as usize;
                blank.push((start, start + "export".len(), ""));
            }
            Statement::ExportNamedDeclaration(d) => {
                for s in &d.specifiers {
                    exports.push((s.exported.name().to_string(), s.local.name().to_string()));
                }
                blank.push((d.span.start as usize, d.span.end as usize, ""));
            }
            Statement::ExportDefaultDeclaration(d) => {
                let start = d.span.start as usize;
                let keyword_end = start + "export default".len();
                let named = match &d.declaration {
                    ExportDefaultDeclarationKind::FunctionDeclaration(f) => {
                        f.id.as_ref().map(|i| i.name.to_string())
                    }
                    ExportDefaultDeclarationKind::ClassDeclaration(c) => {
                        c.id.as_ref().map(|i| i.name.to_string())
                    }
                    _ => None,
                };
                match named {
                    Some(name) => {
                        exports.push(("default".into(), name));
                        blank.push((start, keyword_end, ""));
                    }
                    None => {
                        exports.push(("default".into(), DEFAULT_LOCAL.into()));
                        // Same length as `export default`, so columns stay put.
                        blank.push((start, keyword_end, "var __rd_def ="));
                    }
                }
            }
            Statement::ExportAllDeclaration(d) => {
                return Err(Error::input(
                    source.span(d.span.start as usize, d.span.end as usize),
                    "re-exports (`export * from`) are not supported in generators",
                ));
            }
            Statement::ExportFromDeclaration(d) => {
                return Err(Error::input(
                    source.span(d.span.start as usize, d.span.end as usize),
                    "re-exports (`export { .. } from`) are not supported in generators",
                ));
            }
            _ => {}
        }
    }
    drop(parsed);

    let components = exports
        .iter()
        .filter(|(e, _)| is_component_name(e) || e == "default")
        .filter_map(|(e, l)| {
            functions
                .iter()
                .find(|(n, _)| n == l)
                .map(|(_, at)| (if e == "default" { l.clone() } else { e.clone() }, *at))
        })
        .filter(|(n, _)| is_component_name(n))
        .collect();
    let plain = blank_out(text, &blank);
    let (code, map) = compile_jsx(source, &plain)?;
    Ok(Module {
        source: source.clone(),
        code,
        imports,
        exports,
        components,
        map,
    })
}

fn source_type(_source: &Source) -> SourceType {
    // Generators are `.jsx`; module syntax and JSX are always allowed.
    SourceType::jsx().with_module(true)
}

/// Replaces byte ranges by a replacement padded with spaces, keeping newlines.
fn blank_out(text: &str, ranges: &[(usize, usize, &str)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for &(start, end, with) in ranges {
        out.push_str(&text[pos..start]);
        let mut rest = with.chars();
        for c in text[start..end].chars() {
            if c == '\n' || c == '\r' {
                out.push(c);
            } else if let Some(r) = rest.next() {
                out.push(r);
            } else {
                // Keep the byte length: multi-byte characters become as many spaces.
                out.extend(std::iter::repeat_n(' ', c.len_utf8()));
            }
        }
        pos = end;
    }
    out.push_str(&text[pos..]);
    out
}

/// A component's name starts with a capital letter (React's rule: `<G1 />`,
/// `<X />` and `<GG />` are components, whatever follows).
fn is_component_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase())
}

/// Top-level names bound to functions (declarations, arrow or function
/// expressions, and calls such as `memo(...)`), with their offsets.
fn function_declarations(body: &[Statement]) -> Vec<(String, usize)> {
    fn var(out: &mut Vec<(String, usize)>, v: &oxc_ast::ast::VariableDeclaration) {
        for d in &v.declarations {
            let is_fn = matches!(
                &d.init,
                Some(
                    oxc_ast::ast::Expression::ArrowFunctionExpression(_)
                        | oxc_ast::ast::Expression::FunctionExpression(_)
                        | oxc_ast::ast::Expression::CallExpression(_)
                )
            );
            if is_fn {
                for i in d.id.get_binding_identifiers() {
                    out.push((i.name.to_string(), d.span.start as usize));
                }
            }
        }
    }
    let mut out = Vec::new();
    for stmt in body {
        match stmt {
            Statement::VariableDeclaration(v) => var(&mut out, v),
            Statement::FunctionDeclaration(f) => {
                if let Some(id) = &f.id {
                    out.push((id.name.to_string(), f.span.start as usize));
                }
            }
            Statement::ExportDeclaration(d) => match &d.declaration {
                Declaration::VariableDeclaration(v) => var(&mut out, v),
                Declaration::FunctionDeclaration(f) => {
                    if let Some(id) = &f.id {
                        out.push((id.name.to_string(), f.span.start as usize));
                    }
                }
                _ => {}
            },
            Statement::ExportDefaultDeclaration(d) => {
                if let ExportDefaultDeclarationKind::FunctionDeclaration(f) = &d.declaration
                    && let Some(id) = &f.id
                {
                    out.push((id.name.to_string(), f.span.start as usize));
                }
            }
            _ => {}
        }
    }
    out
}

fn declared_names(d: &Declaration) -> Vec<String> {
    match d {
        Declaration::VariableDeclaration(v) => v
            .declarations
            .iter()
            .flat_map(|d| d.id.get_binding_identifiers())
            .map(|i| i.name.to_string())
            .collect(),
        Declaration::FunctionDeclaration(f) => f.id.iter().map(|i| i.name.to_string()).collect(),
        Declaration::ClassDeclaration(c) => c.id.iter().map(|i| i.name.to_string()).collect(),
        _ => vec![],
    }
}

/// Runs the JSX transform on module-free text and prints plain JS.
/// The plain code of a module whose import and export keywords are blanked
/// out (same offsets as the file), and its source map (see [`Module::map`]).
fn compile_jsx(source: &Arc<Source>, text: &str) -> Result<(String, Vec<[u32; 4]>), Error> {
    let allocator = Allocator::default();
    let parsed = Parser::new(&allocator, text, SourceType::jsx().with_module(false)).parse();
    if let Some(e) = parsed.diagnostics.errors().next() {
        return Err(diagnostic_error(source, e));
    }
    let mut program = parsed.program;
    let scoping = SemanticBuilder::new()
        .build(&program)
        .semantic
        .into_scoping();
    let options = TransformOptions {
        jsx: JsxOptions {
            jsx_plugin: true,
            display_name_plugin: false,
            runtime: JsxRuntime::Classic,
            pure: false,
            use_spread: Some(true),
            ..JsxOptions::enable()
        },
        helper_loader: HelperLoaderOptions {
            mode: HelperLoaderMode::External,
            ..Default::default()
        },
        ..TransformOptions::default()
    };
    let path = match &source.origin {
        crate::span::Origin::File(p) | crate::span::Origin::Rendered { file: p, .. } => p.clone(),
        crate::span::Origin::Inline(_) | crate::span::Origin::Url(_) => {
            Path::new("inline.jsx").to_path_buf()
        }
    };
    let ret =
        Transformer::new(&allocator, &path, &options).build_with_scoping(scoping, &mut program);
    if let Some(e) = ret.diagnostics.errors().next() {
        return Err(diagnostic_error(source, e));
    }
    let options = CodegenOptions {
        source_map_path: Some(path),
        ..CodegenOptions::default()
    };
    let out = Codegen::new().with_options(options).build(&program);
    let mut map: Vec<[u32; 4]> = out
        .map
        .map(|m| {
            m.get_tokens()
                .map(|t| {
                    [
                        t.get_dst_line(),
                        t.get_dst_col(),
                        t.get_src_line(),
                        t.get_src_col(),
                    ]
                })
                .collect()
        })
        .unwrap_or_default();
    map.sort_unstable();
    Ok((out.code, map))
}

fn diagnostic_error(source: &Source, e: &oxc_diagnostics::OxcDiagnostic) -> Error {
    let at = e
        .labels
        .first()
        .map(|l| l.offset() as usize)
        .unwrap_or(0)
        .min(source.text.len());
    Error::input(
        source.span(at, at),
        format!("JSX syntax error: {}", e.message),
    )
}

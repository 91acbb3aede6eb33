//! Text -> `Vec<Launch>`: one module per input kind.

pub mod bash;
pub mod command;
pub mod inferencex;
pub mod jsx;
pub mod markdown;
pub mod vllm_recipes;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use crate::error::Error;
use crate::launch::Launch;
use crate::source::Source;

/// The kinds of input recipe-drift reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A Markdown or MDX page (`.md`, `.mdx`, `.markdown`).
    Markdown,
    /// A bash script (`.sh`, `.bash`), evaluated statically.
    Bash,
    /// A cookbook generator component (`.jsx`, `.js`), rendered headlessly.
    Jsx,
    /// Plain command lines (`.txt`, `.cmd`, anything else).
    Command,
}

impl InputKind {
    /// The kind of a path, by extension.
    pub fn of(path: &Path) -> InputKind {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
        {
            Some(e) if matches!(e.as_str(), "md" | "mdx" | "markdown") => InputKind::Markdown,
            Some(e) if matches!(e.as_str(), "sh" | "bash") => InputKind::Bash,
            Some(e) if matches!(e.as_str(), "jsx" | "js") => InputKind::Jsx,
            _ => InputKind::Command,
        }
    }
}

/// Extracts every launch of a loaded source.
/// `vars` are shell variables set before the text runs (a script's env contract).
pub fn extract_source(
    source: &Arc<Source>,
    kind: InputKind,
    vars: &BTreeMap<String, String>,
) -> Result<Vec<Launch>, Error> {
    Ok(extract_all(source, kind, vars)?.launches)
}

/// Everything extraction found: launches and launches of unsupported engines.
#[derive(Debug, Default)]
pub struct Extracted {
    /// Server launches.
    pub launches: Vec<Launch>,
    /// `file:line:col: ...` for launches of engines recipe-drift does not resolve.
    pub unsupported: Vec<String>,
}

/// Extracts launches and notes of a loaded source.
pub fn extract_all(
    source: &Arc<Source>,
    kind: InputKind,
    vars: &BTreeMap<String, String>,
) -> Result<Extracted, Error> {
    Ok(match kind {
        InputKind::Markdown => markdown::extract_all(source, vars)?,
        InputKind::Command => command::extract_all(source, vars)?,
        InputKind::Jsx => {
            return Err(Error::input(
                source.span(0, 0),
                "a generator is rendered from its file, not from text",
            ));
        }
        InputKind::Bash => {
            let e = bash::evaluate(source, vars)?;
            Extracted {
                launches: e.launches,
                unsupported: e.unsupported,
            }
        }
    })
}

/// How to read a file beyond its text: variables, and for generators the
/// selection to click and where the docs root is.
#[derive(Debug, Clone, Default)]
pub struct FileOptions {
    /// Shell variables set before the text runs.
    pub vars: BTreeMap<String, String>,
    /// Generator selections (`key=value`), applied in the component's order.
    pub select: Vec<(String, String)>,
    /// The docs root that `/src/...` imports resolve against.
    pub docs_root: Option<std::path::PathBuf>,
    /// The limits generators are rendered under.
    pub limits: jsx::Limits,
}

/// Reads a file and extracts its launches and notes.
pub fn extract_file_all(path: &Path, vars: &BTreeMap<String, String>) -> Result<Extracted, Error> {
    extract_file_with(
        path,
        &FileOptions {
            vars: vars.clone(),
            ..FileOptions::default()
        },
    )
}

/// Reads a file and extracts its launches and notes: generators and pages with
/// components are rendered with the selection.
pub fn extract_file_with(path: &Path, opts: &FileOptions) -> Result<Extracted, Error> {
    let kind = InputKind::of(path);
    let is_mdx = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("mdx"));
    let is_yaml = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"));
    if is_yaml {
        return extract_vllm_recipe(path, opts);
    }
    match kind {
        InputKind::Jsx => extract_generator(path, opts),
        InputKind::Markdown if is_mdx => extract_generator(path, opts),
        _ => {
            if !opts.select.is_empty() {
                return Err(Error::usage(format!(
                    "--select applies to generators (.jsx) and pages (.mdx), not to {}",
                    path.display()
                )));
            }
            let source = Source::read(path)?;
            extract_all(&source, kind, &opts.vars)
        }
    }
}

/// Fetches a remote file and extracts its launches and notes: a Markdown page
/// (its static blocks), a bash script (whose `bash other.sh` siblings are
/// fetched too) or a command file. Generators and vLLM recipe YAMLs need the
/// files beside them and are read from a checkout only.
pub fn extract_remote(
    at: &crate::source::Location,
    opts: &FileOptions,
    files: &dyn crate::source::Files,
) -> Result<Extracted, Error> {
    let name = at.kind_path();
    let ext = name
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    if matches!(ext.as_str(), "yaml" | "yml" | "jsx" | "js") {
        return Err(Error::usage(format!(
            "{}: a {} is read with the files beside it; give a local checkout's path instead of a remote file",
            at.display(),
            if ext.starts_with('y') {
                "vLLM recipe YAML"
            } else {
                "cookbook generator"
            }
        )));
    }
    if !opts.select.is_empty() {
        return Err(Error::usage(format!(
            "--select applies to local generators (.jsx) and pages (.mdx), not to {}",
            at.display()
        )));
    }
    let source = files.read(at)?;
    let kind = InputKind::of(&name);
    if kind == InputKind::Markdown && ext == "mdx" && jsx::page::has_components(&source.text) {
        return Err(Error::input(
            source.span(0, 0),
            "this page renders a generator, which is read with the files beside it; give a local checkout's path",
        ));
    }
    if kind == InputKind::Bash {
        let e = bash::evaluate_in(&source, &opts.vars, files)?;
        return Ok(Extracted {
            launches: e.launches,
            unsupported: e.unsupported,
        });
    }
    extract_all(&source, kind, &opts.vars)
}

/// Reads a file and extracts its launches.
pub fn extract_file(path: &Path, vars: &BTreeMap<String, String>) -> Result<Vec<Launch>, Error> {
    let source = Source::read(path)?;
    extract_source(&source, InputKind::of(path), vars)
}

/// Renders a generator (or a page's generators, plus its static blocks) with
/// the selection and extracts the launches of the printed commands, in page
/// order.
fn extract_generator(path: &Path, opts: &FileOptions) -> Result<Extracted, Error> {
    let path = path.to_path_buf();
    let opts = opts.clone();
    jsx::on_render_thread(move || {
        let source = Source::read(&path)?;
        let mut found: Vec<(usize, Launch)> = Vec::new();
        let mut unsupported: Vec<String> = Vec::new();
        let is_page = InputKind::of(&path) == InputKind::Markdown;
        if is_page {
            let page = markdown::extract_all(&source, &opts.vars)?;
            unsupported.extend(page.unsupported);
            for l in page.launches {
                found.push((l.span.start, l));
            }
            if !jsx::page::has_components(&source.text) {
                if !opts.select.is_empty() {
                    return Err(Error::input(
                        source.span(0, 0),
                        "--select: this page renders no generator to click",
                    ));
                }
                return Ok(Extracted {
                    launches: found.into_iter().map(|(_, l)| l).collect(),
                    unsupported,
                });
            }
        }
        let bundle = jsx::bundle(&path, opts.docs_root.as_deref())?;
        let renderer = jsx::Renderer::new(&bundle, opts.limits)?;
        // With several components, each takes the keys it has; a key no
        // component has is an error.
        let lenient = bundle.targets.len() > 1;
        let mut unmatched_everywhere: Option<Vec<String>> = None;
        let mut all_options: Vec<String> = Vec::new();
        let mut views = Vec::new();
        for t in 0..bundle.targets.len() {
            let (view, unmatched, options) = renderer.select_some(t, &opts.select, lenient)?;
            unmatched_everywhere = Some(match unmatched_everywhere {
                None => unmatched,
                Some(prev) => prev.into_iter().filter(|k| unmatched.contains(k)).collect(),
            });
            for o in options {
                if !all_options.contains(&o) {
                    all_options.push(o);
                }
            }
            views.push(view);
        }
        if let Some(k) = unmatched_everywhere.unwrap_or_default().first() {
            return Err(Error::input(
                source.span(0, 0),
                format!(
                    "no component of this page has an option `{k}`; their options are: {}",
                    all_options.join(", ")
                ),
            ));
        }
        for (target, view) in bundle.targets.iter().zip(views) {
            for i in 0..view.commands.len() {
                let src = jsx::view_source(&bundle, &view, i);
                let printed = command::extract_all(&src, &opts.vars)?;
                unsupported.extend(printed.unsupported);
                for mut l in printed.launches {
                    jsx::context_from_selection(&mut l.context, &view);
                    found.push((target.at.start, l));
                }
            }
        }
        found.sort_by_key(|(at, _)| *at);
        Ok(Extracted {
            launches: found.into_iter().map(|(_, l)| l).collect(),
            unsupported,
        })
    })
}

/// A vLLM recipes model YAML: the command the site composes for the selection
/// (`hardware` required; `variant`, `strategy`, and `features` as a
/// comma-separated list of clicks, optional).
fn extract_vllm_recipe(path: &Path, opts: &FileOptions) -> Result<Extracted, Error> {
    let source = Source::read(path)?;
    let mut sel = vllm_recipes::Selection::default();
    let mut scope = vllm_recipes::HardwareScope::Verified;
    if let Some((_, view)) = opts.select.iter().find(|(k, _)| k == "view") {
        match view.as_str() {
            // The `vllm serve` blocks of the recipe's `guide` Markdown.
            "guide" => {
                if let Some((k, _)) = opts.select.iter().find(|(k, _)| k != "view") {
                    return Err(Error::usage(format!(
                        "--select {k}=...: view=guide reads the guide's own commands, which take no selection"
                    )));
                }
                return Ok(Extracted {
                    launches: vllm_recipes::guide_launches(&source, &opts.vars)?,
                    unsupported: vec![],
                });
            }
            "builder" => {}
            other => {
                return Err(Error::usage(format!(
                    "--select view={other}: a vLLM recipe's view is builder (the site's command builder, the default) or guide (the commands in its guide)"
                )));
            }
        }
    }
    for (k, v) in &opts.select {
        match k.as_str() {
            "view" => {}
            "hardware" => sel.hardware = v.clone(),
            "scope" => scope = hardware_scope(v)?,
            "variant" => sel.variant = Some(v.clone()),
            "strategy" => sel.strategy = Some(v.clone()),
            "features" => {
                sel.features = v
                    .split(',')
                    .map(str::trim)
                    .filter(|f| !f.is_empty())
                    .map(String::from)
                    .collect()
            }
            other => {
                return Err(Error::usage(format!(
                    "--select {other}=...: a vLLM recipe takes hardware, variant, strategy, features, scope and view"
                )));
            }
        }
    }
    if sel.hardware.is_empty() {
        return Err(Error::input(
            source.span(0, 0),
            "a vLLM recipe needs a hardware to compose for: --select hardware=SKU (select: {hardware: SKU} in a config)",
        ));
    }
    let taxonomy = vllm_recipes::Taxonomy::find_for(path)?;
    let composed = vllm_recipes::compose_in(&source, &taxonomy, &sel, scope)?;
    Ok(Extracted {
        launches: vec![composed.launch()?],
        unsupported: vec![],
    })
}

/// `scope=verified|offered`: which hardware a vLLM recipe is composed for.
fn hardware_scope(v: &str) -> Result<vllm_recipes::HardwareScope, Error> {
    match v {
        "verified" => Ok(vllm_recipes::HardwareScope::Verified),
        "offered" => Ok(vllm_recipes::HardwareScope::Offered),
        other => Err(Error::usage(format!(
            "--select scope={other}: a vLLM recipe's scope is verified (hardware the recipe marks verified) or offered (any hardware the site offers)"
        ))),
    }
}

/// Whether a path is a vLLM recipes model YAML (by extension).
pub fn is_recipe_yaml(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml")
    )
}

/// Every selection of a vLLM recipe YAML on hardware within `scope`
/// (`verified` or `offered`), each with the command the site composes.
pub fn vllm_recipe_selections(
    path: &Path,
    scope: &str,
) -> Result<Vec<vllm_recipes::Composed>, Error> {
    let source = Source::read(path)?;
    let scope = hardware_scope(scope)?;
    let taxonomy = vllm_recipes::Taxonomy::find_for(path)?;
    let recipe = vllm_recipes::Recipe::parse(&source)?;
    recipe
        .all_selections(&taxonomy, scope)?
        .iter()
        .map(|sel| recipe.compose(&taxonomy, sel, scope))
        .collect()
}

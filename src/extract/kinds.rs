//! One [`Extractor`] per input kind: each names the sources it accepts and
//! calls its room's entry point. Composing rooms (a page's static blocks with
//! its rendered generators) happens here, not inside a room.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use super::registry::{Extractor, Input, Options, Selections};
use super::shared::Extracted;
use super::{agentx, bash, jsx, markdown, shell_text, vllm_recipes};
use crate::error::Error;
use crate::files::Files;
use crate::launch::Launch;
use crate::span::Source;

/// Plain command lines (`.txt`, `.cmd`, anything no other kind accepts).
pub struct Command;

/// Markdown and MDX pages (`.md`, `.mdx`, `.markdown`): their static code blocks.
pub struct Markdown;

/// Bash scripts (`.sh`, `.bash`), evaluated statically.
pub struct Bash;

/// Cookbook generator components (`.jsx`, `.js`), rendered headlessly.
pub struct Generator;

/// MDX pages that render generator components: their static blocks and the
/// commands their components print, in page order.
pub struct GeneratorPage;

/// vLLM recipes model YAMLs (`.yaml`, `.yml`): the command the site composes.
pub struct VllmRecipe;

/// AgentX data modules (`agentx/<org>/<model>.jsx`, `export const agentx =
/// {...}`): the worker commands of a state of their table.
pub struct AgentxData;

/// MDX pages whose rendered components are all AgentX tables
/// (`<AgentX data={agentx} />`): their static blocks and the tables' worker
/// commands, read through the data modules.
pub struct AgentxPage;

/// `--select` is for generators, pages and recipes only.
fn no_select(input: &Input<'_>, opts: &Options) -> Result<(), Error> {
    if opts.select.is_empty() {
        return Ok(());
    }
    Err(Error::usage(format!(
        "--select applies to {}generators (.jsx) and pages (.mdx), not to {}",
        if input.local_path().is_some() {
            ""
        } else {
            "local "
        },
        input.at().display()
    )))
}

/// The path of a source read with the files beside it (a generator, a recipe
/// YAML); on a remote host it is refused.
fn local<'a>(input: &'a Input<'_>, what: &str) -> Result<&'a Path, Error> {
    input.local_path().ok_or_else(|| {
        Error::usage(format!(
            "{}: a {what} is read with the files beside it; give a local checkout's path instead of a remote file",
            input.at().display()
        ))
    })
}

impl Extractor for Command {
    fn name(&self) -> &'static str {
        "command"
    }

    fn accepts(&self, _: &Input<'_>) -> bool {
        true
    }

    fn extract(&self, input: &Input<'_>, opts: &Options) -> Result<Extracted, Error> {
        no_select(input, opts)?;
        self.extract_text(&input.source()?, &opts.vars, input.files())
    }

    fn extract_text(
        &self,
        source: &Arc<Source>,
        vars: &BTreeMap<String, String>,
        _: &dyn Files,
    ) -> Result<Extracted, Error> {
        shell_text::extract_all(source, vars)
    }
}

impl Extractor for Markdown {
    fn name(&self) -> &'static str {
        "markdown"
    }

    fn accepts(&self, input: &Input<'_>) -> bool {
        matches!(input.extension().as_str(), "md" | "mdx" | "markdown")
    }

    fn extract(&self, input: &Input<'_>, opts: &Options) -> Result<Extracted, Error> {
        // A local `.mdx` is a page that could render a generator: a selection
        // is refused only once the page shows it renders none.
        let local_mdx = input.local_path().is_some() && input.extension() == "mdx";
        if !local_mdx {
            no_select(input, opts)?;
        }
        let source = input.source()?;
        let found = markdown::extract_all(&source, &opts.vars)?;
        if !opts.select.is_empty() {
            return Err(Error::input(
                source.span(0, 0),
                "--select: this page renders no generator to click",
            ));
        }
        Ok(found)
    }

    fn extract_text(
        &self,
        source: &Arc<Source>,
        vars: &BTreeMap<String, String>,
        _: &dyn Files,
    ) -> Result<Extracted, Error> {
        markdown::extract_all(source, vars)
    }

    fn selections(&self, input: &Input<'_>, opts: &Options) -> Result<Selections, Error> {
        // A page without components: the generator room says so.
        explore(local(input, "page's generator")?, opts)
    }
}

impl Extractor for Bash {
    fn name(&self) -> &'static str {
        "bash"
    }

    fn accepts(&self, input: &Input<'_>) -> bool {
        matches!(input.extension().as_str(), "sh" | "bash")
    }

    fn extract(&self, input: &Input<'_>, opts: &Options) -> Result<Extracted, Error> {
        no_select(input, opts)?;
        self.extract_text(&input.source()?, &opts.vars, input.files())
    }

    fn extract_text(
        &self,
        source: &Arc<Source>,
        vars: &BTreeMap<String, String>,
        files: &dyn Files,
    ) -> Result<Extracted, Error> {
        let e = bash::evaluate_in(source, vars, files)?;
        // Auxiliary launches (the SGLang router) are listed with the launches
        // that are not compared.
        let mut unsupported = e.unsupported;
        unsupported.extend(e.auxiliary.iter().map(ToString::to_string));
        Ok(Extracted {
            launches: e.launches,
            unsupported,
        })
    }
}

impl Extractor for Generator {
    fn name(&self) -> &'static str {
        "generator"
    }

    fn accepts(&self, input: &Input<'_>) -> bool {
        matches!(input.extension().as_str(), "jsx" | "js")
    }

    fn extract(&self, input: &Input<'_>, opts: &Options) -> Result<Extracted, Error> {
        render(local(input, "cookbook generator")?, input.source()?, opts)
    }

    fn extract_text(
        &self,
        source: &Arc<Source>,
        _: &BTreeMap<String, String>,
        _: &dyn Files,
    ) -> Result<Extracted, Error> {
        Err(Error::input(
            source.span(0, 0),
            "a generator is rendered from its file, not from text",
        ))
    }

    fn selections(&self, input: &Input<'_>, opts: &Options) -> Result<Selections, Error> {
        explore(local(input, "cookbook generator")?, opts)
    }
}

impl Extractor for GeneratorPage {
    fn name(&self) -> &'static str {
        "generator-page"
    }

    fn accepts(&self, input: &Input<'_>) -> bool {
        input.extension() == "mdx"
            && input
                .peek()
                .is_some_and(|s| jsx::page::has_components(&s.text))
    }

    fn extract(&self, input: &Input<'_>, opts: &Options) -> Result<Extracted, Error> {
        match input.local_path() {
            Some(path) => render(path, input.source()?, opts),
            None => {
                no_select(input, opts)?;
                Err(Error::input(
                    input.source()?.span(0, 0),
                    "this page renders a generator, which is read with the files beside it; give a local checkout's path",
                ))
            }
        }
    }

    fn selections(&self, input: &Input<'_>, opts: &Options) -> Result<Selections, Error> {
        explore(local(input, "page's generator")?, opts)
    }
}

impl Extractor for VllmRecipe {
    fn name(&self) -> &'static str {
        "vllm-recipe"
    }

    fn accepts(&self, input: &Input<'_>) -> bool {
        matches!(input.extension().as_str(), "yaml" | "yml")
    }

    fn extract(&self, input: &Input<'_>, opts: &Options) -> Result<Extracted, Error> {
        compose_recipe(local(input, "vLLM recipe YAML")?, &input.source()?, opts)
    }

    fn selections(&self, input: &Input<'_>, opts: &Options) -> Result<Selections, Error> {
        let path = local(input, "vLLM recipe YAML")?;
        let source = input.source()?;
        let scope = hardware_scope(opts.hardware_scope.as_deref().unwrap_or("verified"))?;
        let taxonomy = vllm_recipes::Taxonomy::find_for(path)?;
        let recipe = vllm_recipes::Recipe::parse(&source)?;
        Ok(Selections::Recipe(recipe.compose_all(&taxonomy, scope)?))
    }
}

impl Extractor for AgentxData {
    fn name(&self) -> &'static str {
        "agentx-data"
    }

    fn accepts(&self, input: &Input<'_>) -> bool {
        // Local only: a remote `.jsx` is refused unread (as a generator).
        matches!(input.extension().as_str(), "jsx" | "js")
            && input.local_path().is_some()
            && input
                .peek()
                .is_some_and(|s| agentx::is_data_module(&s.text))
    }

    fn extract(&self, input: &Input<'_>, opts: &Options) -> Result<Extracted, Error> {
        let source = input.source()?;
        let states = agentx::states(&source, &opts.vars)?;
        let state = agentx::pick(states, &opts.select, &source.span(0, 0))?;
        match state.error {
            Some(e) => Err(e),
            None => Ok(Extracted {
                launches: state.launches,
                unsupported: Vec::new(),
            }),
        }
    }

    fn selections(&self, input: &Input<'_>, opts: &Options) -> Result<Selections, Error> {
        Ok(Selections::Agentx(agentx::states(
            &input.source()?,
            &opts.vars,
        )?))
    }
}

impl Extractor for AgentxPage {
    fn name(&self) -> &'static str {
        "agentx-page"
    }

    fn accepts(&self, input: &Input<'_>) -> bool {
        input.extension() == "mdx"
            && input.local_path().is_some()
            && input
                .peek()
                .is_some_and(|s| agentx::tables(&s.text).is_some())
    }

    fn extract(&self, input: &Input<'_>, opts: &Options) -> Result<Extracted, Error> {
        let path = local(input, "page of AgentX tables")?;
        let source = input.source()?;
        let mut found = markdown::extract_all(&source, &opts.vars)?;
        for states in agentx::page_states(
            &source,
            path,
            opts.docs_root.as_deref(),
            input.files(),
            &opts.vars,
        )? {
            let state = agentx::pick(states, &opts.select, &source.span(0, 0))?;
            if let Some(e) = state.error {
                return Err(e);
            }
            found.launches.extend(state.launches);
        }
        Ok(found)
    }

    fn selections(&self, input: &Input<'_>, opts: &Options) -> Result<Selections, Error> {
        let path = local(input, "page of AgentX tables")?;
        let source = input.source()?;
        let tables = agentx::page_states(
            &source,
            path,
            opts.docs_root.as_deref(),
            input.files(),
            &opts.vars,
        )?;
        Ok(Selections::Agentx(tables.into_iter().flatten().collect()))
    }
}

/// Every selection of a generator, a generator page (its static blocks first)
/// or a vLLM recipe, with the launches each shows ([`super::every_selection`]).
pub(super) fn every_selection(
    input: &Input<'_>,
    kind: &dyn Extractor,
    opts: &Options,
) -> Result<super::registry::Every, Error> {
    use super::registry::{Cut, Shown};
    let mut out = Vec::new();
    let mut cuts = Vec::new();
    let selections = match kind.name() {
        // Each generator of a file on its own: one that cannot be explored is
        // its own error, beside the states of the others.
        "generator" | "generator-page" => {
            let explore = jsx::Explore {
                max_states: opts.limits.states,
                ..opts.explore
            };
            let (bundle, each) = jsx::explore_file_each(
                local(input, "generator")?,
                opts.docs_root.as_deref(),
                &opts.props,
                opts.limits,
                explore,
            )?;
            let mut views = Vec::new();
            for (t, found) in each.into_iter().enumerate() {
                match found {
                    Ok(e) => {
                        if let (Some(states), Some(target)) = (e.cut, bundle.targets.get(t)) {
                            cuts.push(Cut {
                                component: target.name.clone(),
                                at: target.at.clone(),
                                states,
                            });
                        }
                        views.push(e.views)
                    }
                    Err(error) => {
                        views.push(Vec::new());
                        out.push(Shown {
                            entry: None,
                            selection: Vec::new(),
                            component: bundle.targets.get(t).map(|t| t.name.clone()),
                            launches: Vec::new(),
                            error: Some(error),
                            reselect: Vec::new(),
                        });
                    }
                }
            }
            Selections::States {
                bundle,
                views,
                crashes: Vec::new(),
            }
        }
        _ => kind.selections(input, opts)?,
    };
    // A generator page's own blocks first: those its components show in
    // some state (or that no component holds).
    if kind.name() == "generator-page"
        && let Selections::States { bundle, views, .. } = &selections
    {
        let views: Vec<&[jsx::View]> = views.iter().map(Vec::as_slice).collect();
        let unshown = unshown_page_blocks(bundle, &views);
        let page = markdown::extract_shown(&input.source()?, &opts.vars, &unshown)?;
        if !page.launches.is_empty() {
            out.insert(0, Shown::page(page.launches));
        }
    }
    if kind.name() == "agentx-page" {
        let page = markdown::extract_all(&input.source()?, &opts.vars)?;
        if !page.launches.is_empty() {
            out.push(Shown::page(page.launches));
        }
    }
    match selections {
        Selections::Agentx(mut states) => {
            // The state budget holds for tables as for generators: with
            // `Explore::cut` the first states are read and the cut reported.
            let budget = opts.limits.states;
            if states.len() > budget {
                let at = input.source()?.span(0, 0);
                if !opts.explore.cut {
                    return Err(Error::input(
                        at,
                        format!(
                            "this AgentX table has {} states, over the budget of {budget} (--max-states)",
                            states.len()
                        ),
                    ));
                }
                states.truncate(budget);
                cuts.push(Cut {
                    component: "AgentX".into(),
                    at,
                    states: budget,
                });
            }
            for s in states {
                out.push(Shown {
                    entry: s.entry,
                    selection: s.selection,
                    component: Some("AgentX".into()),
                    launches: s.launches,
                    error: s.error,
                    reselect: Vec::new(),
                });
            }
        }
        Selections::States { bundle, views, .. } => {
            for view in views.iter().flatten() {
                let mut launches = Vec::new();
                let mut error = None;
                for i in 0..view.commands.len() {
                    let src = jsx::view_source(&bundle, view, i);
                    match shell_text::extract_all(&src, &opts.vars) {
                        Ok(found) => {
                            for mut l in found.launches {
                                jsx::context_from_selection(&mut l.context, view);
                                launches.push(l);
                            }
                        }
                        Err(e) => {
                            error = Some(e);
                            break;
                        }
                    }
                }
                out.push(Shown {
                    entry: None,
                    selection: view.selection.clone(),
                    component: bundle.targets.get(view.target).map(|t| t.name.clone()),
                    launches,
                    error,
                    reselect: Vec::new(),
                });
            }
        }
        Selections::Recipe(composed) => {
            // The pools of a `pd_cluster` selection are consecutive
            // compositions of one selection: one shown state, a launch per pool.
            for c in composed {
                if !c.role.is_single()
                    && let Some(last) = out.last_mut()
                    && last.launches.first().is_some_and(|l| !l.role.is_single())
                    && last.selection == recipe_selection(&c)
                {
                    match c.launch() {
                        Ok(l) => last.launches.push(l),
                        Err(e) => last.error = last.error.take().or(Some(e)),
                    }
                    continue;
                }
                let selection = recipe_selection(&c);
                let (launches, error) = match c.launch() {
                    Ok(l) => (vec![l], None),
                    Err(e) => (Vec::new(), Some(e)),
                };
                out.push(Shown {
                    entry: None,
                    selection,
                    component: None,
                    launches,
                    error,
                    reselect: recipe_reselect(&c.selection),
                });
            }
        }
    }
    Ok(super::registry::Every { shown: out, cuts })
}

/// A composed selection of a vLLM recipe as a shown state names it:
/// hardware, variant, strategy, the features that contributed, the KV
/// offload and, for a `pd_cluster`, each pool's mode and nodes.
fn recipe_selection(c: &vllm_recipes::Composed) -> Vec<(String, String)> {
    let mut selection = vec![
        ("hardware".to_string(), c.hardware.clone()),
        ("variant".to_string(), c.variant.clone()),
        ("strategy".to_string(), c.strategy.clone()),
    ];
    if !c.features.is_empty() {
        selection.push((
            "features".to_string(),
            c.features
                .iter()
                .map(|f| f.name.clone())
                .collect::<Vec<_>>()
                .join(","),
        ));
    }
    if let Some(k) = &c.kv_offload {
        selection.push(("kv_offload".to_string(), k.clone()));
    }
    for (role, pick) in [
        ("prefill", &c.selection.pools.prefill),
        ("decode", &c.selection.pools.decode),
    ] {
        if let Some(m) = &pick.mode {
            selection.push((format!("{role}_mode"), m.clone()));
        }
        if let Some(n) = pick.nodes {
            selection.push((format!("{role}_nodes"), n.to_string()));
        }
    }
    selection
}

/// The `--select` pairs that compose a vLLM recipe's selection again: each
/// of its fields as [`compose_recipe`] reads them.
fn recipe_reselect(sel: &vllm_recipes::Selection) -> Vec<(String, String)> {
    let mut out = vec![("hardware".to_string(), sel.hardware.clone())];
    let mut push = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            out.push((k.to_string(), v));
        }
    };
    push("variant", sel.variant.clone());
    push("strategy", sel.strategy.clone());
    push("features", Some(sel.features.join(",")));
    push("kv_offload", sel.kv_offload.clone());
    for (role, pick) in [
        ("prefill", &sel.pools.prefill),
        ("decode", &sel.pools.decode),
    ] {
        push(&format!("{role}_mode"), pick.mode.clone());
        push(&format!("{role}_nodes"), pick.nodes.map(|n| n.to_string()));
    }
    out
}

/// Every reachable state of the generators of a file.
fn explore(path: &Path, opts: &Options) -> Result<Selections, Error> {
    let explore = jsx::Explore {
        max_states: opts.limits.states,
        ..opts.explore
    };
    let (bundle, found) = jsx::explore_file_with(
        path,
        opts.docs_root.as_deref(),
        &opts.props,
        opts.limits,
        explore,
    )?;
    let (views, crashes) = found.into_iter().map(|e| (e.views, e.crashes)).unzip();
    Ok(Selections::States {
        bundle,
        views,
        crashes,
    })
}

/// Renders a generator (or a page's generators, plus its static blocks) with
/// the selection and extracts the launches of the printed commands, in page
/// order.
fn render(path: &Path, source: Arc<Source>, opts: &Options) -> Result<Extracted, Error> {
    let path = path.to_path_buf();
    let opts = opts.clone();
    // The render thread counts its launches (the page's blocks and the
    // printed commands) against the per-file budget as they are read.
    jsx::on_render_thread(move || super::shared::per_file(|| render_here(&path, &source, &opts)))
}

/// Where the page blocks written in a component's children start that no
/// state of that component shows (`views`: each target's states; a target
/// with none, which failed, hides nothing).
fn unshown_page_blocks(bundle: &jsx::Bundle, views: &[&[jsx::View]]) -> Vec<usize> {
    bundle
        .page_blocks
        .iter()
        .enumerate()
        .filter(|(k, (t, _))| {
            views
                .get(*t)
                .is_some_and(|vs| !vs.is_empty() && vs.iter().all(|v| !v.page_blocks.contains(k)))
        })
        .map(|(_, (_, at))| *at)
        .collect()
}

/// The body of [`render`], on the render thread.
fn render_here(path: &Path, source: &Arc<Source>, opts: &Options) -> Result<Extracted, Error> {
    let mut found: Vec<(usize, Launch)> = Vec::new();
    let mut unsupported: Vec<String> = Vec::new();
    let is_page = matches!(
        path.extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref(),
        Some("md" | "mdx" | "markdown")
    );
    let bundle = jsx::bundle_with_props(path, opts.docs_root.as_deref(), &opts.props)?;
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
    // What a reader's browser decides (the clock, randomness, the window,
    // ...): rendered again in another browser when read.
    let reads = renderer.reads()?;
    drop(renderer);
    jsx::worlds::check_selected(&bundle, opts.limits, &reads, &opts.select, lenient, &views)?;
    if is_page {
        // The page's own blocks, but those in a component's children that
        // the selected state does not show.
        let each: Vec<&[jsx::View]> = views.iter().map(std::slice::from_ref).collect();
        let unshown = unshown_page_blocks(&bundle, &each);
        let page = markdown::extract_shown(source, &opts.vars, &unshown)?;
        unsupported.extend(page.unsupported);
        for l in page.launches {
            found.push((l.span.start, l));
        }
    }
    for (target, view) in bundle.targets.iter().zip(views) {
        let mut shown = Vec::new();
        for i in 0..view.commands.len() {
            let src = jsx::view_source(&bundle, &view, i);
            let printed = shell_text::extract_all(&src, &opts.vars)?;
            unsupported.extend(printed.unsupported);
            for mut l in printed.launches {
                jsx::context_from_selection(&mut l.context, &view);
                shown.push(l);
            }
        }
        jsx::copied::copied_differs(&bundle, &view, &shown, &opts.vars)?;
        found.extend(shown.into_iter().map(|l| (target.at.start, l)));
    }
    found.sort_by_key(|(at, _)| *at);
    Ok(Extracted {
        launches: found.into_iter().map(|(_, l)| l).collect(),
        unsupported,
    })
}

/// A vLLM recipes model YAML: the command the site composes for the selection
/// (`hardware` required; `variant`, `strategy`, and `features` as a
/// comma-separated list of clicks, optional).
fn compose_recipe(path: &Path, source: &Arc<Source>, opts: &Options) -> Result<Extracted, Error> {
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
                    launches: vllm_recipes::guide_launches(source, &opts.vars)?,
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
            "kv_offload" => sel.kv_offload = Some(v.clone()).filter(|v| !v.is_empty()),
            "prefill_mode" => sel.pools.prefill.mode = Some(v.clone()),
            "decode_mode" => sel.pools.decode.mode = Some(v.clone()),
            "prefill_nodes" => sel.pools.prefill.nodes = Some(pool_nodes(k, v)?),
            "decode_nodes" => sel.pools.decode.nodes = Some(pool_nodes(k, v)?),
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
                    "--select {other}=...: a vLLM recipe takes hardware, variant, strategy, features, kv_offload, prefill_mode, decode_mode, prefill_nodes, decode_nodes, scope and view"
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
    let composed = vllm_recipes::compose_roles_in(source, &taxonomy, &sel, scope)?;
    Ok(Extracted {
        launches: composed
            .iter()
            .map(vllm_recipes::Composed::launch)
            .collect::<Result<_, _>>()?,
        unsupported: vec![],
    })
}

/// A pool's node count of `--select prefill_nodes=N` (a whole number, 1 or more).
fn pool_nodes(key: &str, v: &str) -> Result<u32, Error> {
    v.parse::<u32>().ok().filter(|n| *n > 0).ok_or_else(|| {
        Error::usage(format!(
            "--select {key}={v}: a pool's node count is a whole number, 1 or more"
        ))
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

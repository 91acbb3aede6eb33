//! `lint-docs`: checks of cookbook generators, one rule per file.
//!
//! A generator's reachable states (from the explorer, `extract::jsx`) become a
//! [`Generator`]: each [`State`] with its printed commands, the launches read
//! from them and what the engine release makes of each launch. The rules
//! ([`RULES`]) read that data only; none renders or resolves anything itself.
//! Rules that need more than selections and commands say so through
//! [`Rule::needs`]: [`lint_file`] asks the explorer for each state's controls
//! ([`State::controls`]) and the click paths that throw
//! ([`Generator::crashes`]); a caller that cannot give them (a test) leaves
//! them `None`, and those rules are then listed as not checked rather than
//! reported clean.

mod broken_continuation;
mod crash;
mod dead_option;
mod disabled;
mod duplicate_flag;
mod engine;
mod locate;
mod no_command;
pub mod prose;

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::Error;
use crate::extract::jsx::{self, Bundle, View};
use crate::finding::{About, Finding, Severity, Text, kind_info};
use crate::launch::{Known, Launch};
use crate::resolved::{ResolveOptions, Resolved};
use crate::span::Span;

/// One control of a state as the reader sees it (radio group, checkbox).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Control {
    /// The option's key.
    pub key: String,
    /// Its items, in order.
    pub items: Vec<Item>,
    /// The value selected, if any.
    pub selected: Option<String>,
}

/// One item of a control.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// The value a selection names (the item id).
    pub value: String,
    /// Its label.
    pub label: String,
    /// Whether it is disabled in that state.
    pub disabled: bool,
    /// Why it is disabled (`disabledReason`, a title), empty when not given.
    pub reason: String,
}

/// A click path on which the generator's JavaScript throws.
#[derive(Debug, Clone)]
pub struct Crash {
    /// The selection of the state the throwing click is made in
    /// (`key=value`, in the component's order).
    pub clicks: Vec<(String, String)>,
    /// The value clicked there (the item, checkbox state or button).
    pub click: String,
    /// The JavaScript error.
    pub error: String,
    /// Where in the generator it was thrown, when known.
    pub at: Option<Span>,
}

/// One launch a state prints, with what its release makes of it.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The launch as read from the printed command.
    pub launch: Launch,
    /// What the rules read of its resolution, or the release's refusal.
    pub resolved: Result<Resolution, Error>,
}

/// What the rules read of a launch's [`Resolved`]: the release used, the
/// startup checks that fail and the settings it does not read. (The whole resolution of every state of a large
/// generator would hold a few hundred megabytes: every argument of the
/// release, per state.)
#[derive(Debug, Clone)]
pub struct Resolution {
    /// The release whose data was used.
    pub version: String,
    /// Errors the engine would raise at startup.
    pub startup_errors: Vec<crate::resolved::StartupError>,
    /// The settings the release does not read, in key order.
    pub no_effect: Vec<NoEffect>,
    /// When the command may run a release newer than every bundled one: that
    /// sentence, then one per word set aside (`newer-release`).
    pub newer: Vec<NewerWords>,
}

/// A `newer-release` sentence of a generated command, and the written words
/// it is about (none for the release as a whole).
#[derive(Debug, Clone)]
pub struct NewerWords {
    /// The finding's sentence.
    pub sentence: String,
    /// The words set aside, as written.
    pub words: Option<String>,
}

/// A setting given that the release does not read.
#[derive(Debug, Clone)]
pub struct NoEffect {
    /// Its canonical key.
    pub key: String,
    /// How it was written (`SGLANG_USE_AITER=1`), when written.
    pub written: Option<String>,
    /// Why it has no effect.
    pub why: String,
}

impl From<Resolved> for Resolution {
    fn from(r: Resolved) -> Resolution {
        let engine = r.engine.name();
        let newer = r
            .version
            .newer_sentence(engine, "generated", false)
            .map(|sentence| NewerWords {
                sentence,
                words: None,
            })
            .into_iter()
            .chain(r.set_aside.iter().map(|a| NewerWords {
                sentence: a.sentence(engine, &r.version),
                words: a.words.first().cloned(),
            }))
            .collect();
        Resolution {
            newer,
            version: r.version.version,
            startup_errors: r.startup_errors,
            no_effect: r
                .values
                .into_iter()
                .filter_map(|(key, e)| {
                    let why = e.no_effect?;
                    Some(NoEffect {
                        key,
                        written: e.written,
                        why,
                    })
                })
                .collect(),
        }
    }
}

/// One reachable state of a generator.
#[derive(Debug, Clone)]
pub struct State {
    /// The rendered state: selection, printed commands, clicks.
    pub view: View,
    /// Per printed command: its launches, or why it cannot be read as a command.
    pub printed: Vec<Result<Printed, Error>>,
    /// The controls as shown, when the explorer reports them.
    pub controls: Option<Vec<Control>>,
}

/// What one printed command holds.
#[derive(Debug, Clone, Default)]
pub struct Printed {
    /// Launches of engines recipe-drift resolves.
    pub launches: Vec<Checked>,
    /// Launches of engines it does not resolve (`file:line:col: ...`).
    pub unsupported: Vec<String>,
}

/// A generator (one component a file renders) and its reachable states.
#[derive(Debug, Clone)]
pub struct Generator {
    /// The component's name.
    pub name: String,
    /// Where it is defined or used.
    pub at: Span,
    /// Every reachable state, the initial one first.
    pub states: Vec<State>,
    /// Click paths that throw, when the explorer reports them.
    pub crashes: Option<Vec<Crash>>,
}

/// The explorer data a rule needs beyond selections and commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// Selections and commands only.
    Views,
    /// Each state's controls.
    Controls,
    /// The click paths that throw.
    Crashes,
}

/// A lint rule: its kind (a row of `findings.yaml`) and its check.
pub trait Rule: Sync {
    /// The kind's name, as `findings.yaml` spells it.
    fn kind(&self) -> &'static str;
    /// The explorer data it reads.
    fn needs(&self) -> Needs {
        Needs::Views
    }
    /// Appends the generator's findings.
    fn check(&self, cx: &Context<'_>, g: &Generator, out: &mut Vec<Hit>);
    /// The findings about a page as a whole (its text against all its
    /// generators and blocks), made once per file; none by default.
    fn check_page(&self, _cx: &Context<'_>, _generators: &[Generator]) -> Vec<Finding> {
        Vec::new()
    }
}

/// What rules may read beside the generator: the bundle's files, to place a
/// finding on an option's or item's line.
pub struct Context<'a> {
    /// The generator's bundle.
    pub bundle: &'a Bundle,
    /// The page the generators are rendered on, when the file is a page.
    pub page: Option<&'a Page>,
}

/// A page's own text and the launches of its code blocks.
#[derive(Debug, Clone)]
pub struct Page {
    /// The page as read.
    pub source: std::sync::Arc<crate::span::Source>,
    /// The launches of its code blocks.
    pub blocks: Vec<Launch>,
}

/// The rules, in the order their kinds are numbered.
pub static RULES: &[&dyn Rule] = &[
    &engine::StartupError,
    &engine::NoEffect,
    &crash::GeneratorCrash,
    &no_command::NoCommand,
    &disabled::DisabledSelected,
    &duplicate_flag::DuplicateFlag,
    &dead_option::DeadOption,
    &disabled::DisabledNoReason,
    &broken_continuation::BrokenContinuation,
    &engine::NewerRelease,
    &prose::ProseValue,
];

/// What a rule found: one defect of a generator, before it becomes a
/// [`Finding`] (merged across states, placed, worded for the reports).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The kind's name (`no-command`).
    pub kind: &'static str,
    /// Where: the option's or item's line, else the generator's.
    pub at: Span,
    /// The generator's name.
    pub generator: String,
    /// What is wrong, in one sentence.
    pub message: String,
    /// The selections of the states that show it (`key=value, ...`), in
    /// exploration order; empty for findings about the generator as a whole.
    pub states: Vec<String>,
}

impl Hit {
    /// The finding as the reports render it: `<Generator />: message`,
    /// placed at its line, with its states.
    pub fn into_finding(self) -> Finding {
        Finding {
            kind: self.kind,
            severity: self.severity(),
            message: Text::own("<")
                .and_input(&self.generator)
                .and(" />: ")
                .and_input(&self.message),
            primary: Some(self.at),
            related: Vec::new(),
            link: None,
            about: About::Generator {
                generator: self.generator,
                detail: self.message,
                states: self.states,
            },
            fix: None,
        }
    }

    /// The kind's stable id (`RD008`).
    pub fn id(&self) -> &'static str {
        kind_info(self.kind).map(|k| k.id.as_str()).unwrap_or("")
    }

    /// The kind's severity.
    pub fn severity(&self) -> Severity {
        kind_info(self.kind)
            .map(|k| k.severity)
            .unwrap_or(Severity::Error)
    }
}

/// A rule that could not run on a file, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotChecked {
    /// The kind's name.
    pub kind: &'static str,
    /// The data it waits for.
    pub why: String,
}

/// The lint of one file.
#[derive(Debug, Clone)]
pub struct FileLint {
    /// The file as named.
    pub file: String,
    /// Per generator: its name, where it is, and how many states were checked.
    pub generators: Vec<(String, Span, usize)>,
    /// The findings, sorted by place, id and message: each about a
    /// generator ([`About::Generator`]).
    pub findings: Vec<Finding>,
    /// Rules that did not run on this file.
    pub not_checked: Vec<NotChecked>,
}

/// How to lint: the explorer's limits and the release context.
#[derive(Debug, Clone, Default)]
pub struct LintOptions {
    /// The docs root that `/src/...` imports resolve against.
    pub docs_root: Option<std::path::PathBuf>,
    /// The sandbox limits.
    pub limits: jsx::Limits,
    /// The most states explored per generator.
    pub max_states: usize,
    /// The release, hardware and platform from the command line.
    pub resolve: ResolveOptions,
}

/// Lints a generator file or a page that renders generators: explores every
/// reachable state, reads and resolves what each prints, and runs [`RULES`].
pub fn lint_file(path: &Path, opts: &LintOptions) -> Result<FileLint, Error> {
    let page_releases = page_releases(path)?;
    // A generator with more states than the budget is cut there, as `check`
    // cuts it: its first states are linted and the cut is a finding.
    let explore = jsx::Explore {
        max_states: opts.max_states,
        controls: true,
        cut: true,
        flags: jsx::Flags::LINT_DOCS,
        ..jsx::Explore::default()
    };
    let (bundle, explorations) =
        jsx::explore_file_with(path, opts.docs_root.as_deref(), &[], opts.limits, explore)?;
    let cuts: Vec<Finding> = bundle
        .targets
        .iter()
        .zip(&explorations)
        .filter_map(|(t, found)| {
            found.cut.map(|states| {
                Finding::state_budget(&t.name, t.at.clone(), states, "read and checked")
            })
        })
        .collect();
    let generators: Vec<Generator> = bundle
        .targets
        .iter()
        .zip(explorations)
        .map(|(t, found)| Generator {
            name: t.name.clone(),
            at: t.at.clone(),
            crashes: Some(
                found
                    .crashes
                    .iter()
                    .map(|c| Crash {
                        clicks: c.selection.clone(),
                        click: c.path.last().map(|(_, v)| v.clone()).unwrap_or_default(),
                        error: c.message.clone(),
                        at: c.at.clone(),
                    })
                    .collect(),
            ),
            states: found
                .views
                .into_iter()
                .map(|v| read_state(&bundle, v, &opts.resolve, &page_releases))
                .collect(),
        })
        .collect();
    let page = read_page(path)?;
    let mut linted = run_rules_on(
        &crate::span::path_label(path),
        &bundle,
        &generators,
        page.as_ref(),
    );
    linted.findings.extend(cuts);
    // In place order, as the rules' findings are (a stable sort: those keep
    // their order).
    linted.findings.sort_by(|a, b| {
        let key = |f: &Finding| f.primary.as_ref().map(|s| (s.file.to_string(), s.start));
        (key(a), a.id()).cmp(&(key(b), b.id()))
    });
    Ok(linted)
}

/// Runs every rule on the generators of one file.
pub fn run_rules(file: &str, bundle: &Bundle, generators: &[Generator]) -> FileLint {
    run_rules_on(file, bundle, generators, None)
}

/// [`run_rules`] for the generators of a page (`page`), whose rules about
/// the page as a whole run too.
pub fn run_rules_on(
    file: &str,
    bundle: &Bundle,
    generators: &[Generator],
    page: Option<&Page>,
) -> FileLint {
    let cx = Context { bundle, page };
    let mut findings = Vec::new();
    let mut page_findings = Vec::new();
    let mut not_checked = Vec::new();
    for rule in RULES {
        let ready = generators.iter().all(|g| match rule.needs() {
            Needs::Views => true,
            Needs::Controls => g.states.iter().all(|s| s.controls.is_some()),
            Needs::Crashes => g.crashes.is_some(),
        });
        if !ready {
            let why = kind_info(rule.kind())
                .and_then(|k| k.lint.as_ref())
                .and_then(|l| l.pending.clone())
                .unwrap_or_else(|| "explorer data not available".into());
            not_checked.push(NotChecked {
                kind: rule.kind(),
                why,
            });
            continue;
        }
        for g in generators {
            rule.check(&cx, g, &mut findings);
        }
        page_findings.extend(rule.check_page(&cx, generators));
    }
    FileLint {
        file: file.to_string(),
        generators: generators
            .iter()
            .map(|g| (g.name.clone(), g.at.clone(), g.states.len()))
            .collect(),
        findings: merge(findings)
            .into_iter()
            .map(Hit::into_finding)
            .chain(page_findings)
            .collect(),
        not_checked,
    }
}

/// A page's text and block launches (`None` for a generator file).
fn read_page(path: &Path) -> Result<Option<Page>, Error> {
    if !is_page(path) {
        return Ok(None);
    }
    let source = crate::span::Source::read(path)?;
    let blocks = crate::extract::markdown::extract_all(&source, &BTreeMap::new())?.launches;
    Ok(Some(Page { source, blocks }))
}

/// Whether a file is a page (Markdown or MDX), not a generator.
fn is_page(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("mdx" | "md")
    )
}

/// The release a page names per engine: the one version its static blocks'
/// launches of that engine run (from their image or version), when they agree.
/// Empty for a generator file and for a page whose blocks name none or
/// several.
fn page_releases(path: &Path) -> Result<BTreeMap<String, Known<String>>, Error> {
    if !is_page(path) {
        return Ok(BTreeMap::new());
    }
    let source = crate::span::Source::read(path)?;
    let page = crate::extract::markdown::extract_all(&source, &BTreeMap::new())?;
    let mut seen: BTreeMap<String, Vec<&Known<String>>> = BTreeMap::new();
    for l in &page.launches {
        if let Some(v) = &l.context.engine_version {
            let all = seen.entry(l.engine.name().to_string()).or_default();
            if !all.iter().any(|k| k.value == v.value) {
                all.push(v);
            }
        }
    }
    Ok(seen
        .into_iter()
        .filter(|(_, vs)| vs.len() == 1)
        .map(|(engine, vs)| {
            let v = vs[0];
            let known = Known {
                value: v.value.clone(),
                from: format!("the page's blocks: {}", v.from),
            };
            (engine, known)
        })
        .collect())
}

/// Reads the launches of each printed command of a state and resolves them
/// with the state's hardware (from its selection) and the release: the
/// command line's, else the command's own image, else the one its page names.
fn read_state(
    bundle: &Bundle,
    view: View,
    opts: &ResolveOptions,
    page_releases: &BTreeMap<String, Known<String>>,
) -> State {
    let printed = (0..view.commands.len())
        .map(|i| {
            let src = jsx::view_source(bundle, &view, i);
            let found = crate::extract::shell_text::extract_all(&src, &BTreeMap::new())?;
            Ok(Printed {
                launches: found
                    .launches
                    .into_iter()
                    .map(|mut launch| {
                        jsx::context_from_selection(&mut launch.context, &view);
                        if launch.context.engine_version.is_none()
                            && launch.context.image.is_none()
                            && let Some(v) = page_releases.get(launch.engine.name())
                        {
                            launch.context.engine_version = Some(v.clone());
                        }
                        let resolved = crate::engine::resolve(&launch, opts).map(Resolution::from);
                        Checked { launch, resolved }
                    })
                    .collect(),
                unsupported: found.unsupported,
            })
        })
        .collect();
    let controls = view
        .controls
        .iter()
        .filter(|c| c.kind != "button")
        .map(|c| Control {
            key: c.key.clone(),
            selected: c.items.iter().find(|i| i.selected).map(|i| i.value.clone()),
            items: c
                .items
                .iter()
                .map(|i| Item {
                    value: i.value.clone(),
                    label: i.label.clone(),
                    disabled: i.disabled,
                    reason: i.reason.clone(),
                })
                .collect(),
        })
        .collect();
    State {
        view,
        printed,
        controls: Some(controls),
    }
}

/// One finding per place, kind and message, with the states that show it
/// (in the order found); sorted by place, id, message.
fn merge(findings: Vec<Hit>) -> Vec<Hit> {
    let mut out: Vec<Hit> = Vec::new();
    for f in findings {
        match out
            .iter_mut()
            .find(|o| o.kind == f.kind && o.at == f.at && o.message == f.message)
        {
            Some(o) => {
                for s in f.states {
                    if !o.states.contains(&s) {
                        o.states.push(s);
                    }
                }
            }
            None => out.push(f),
        }
    }
    out.sort_by(|a, b| {
        (&*a.at.file, a.at.start, a.id(), &a.generator, &a.message).cmp(&(
            &*b.at.file,
            b.at.start,
            b.id(),
            &b.generator,
            &b.message,
        ))
    });
    out
}

/// A finding about one state of a generator.
fn at_state(kind: &'static str, g: &Generator, s: &State, at: Span, message: String) -> Hit {
    Hit {
        kind,
        at,
        generator: g.name.clone(),
        message,
        states: vec![state_label(&s.view)],
    }
}

/// A state as a finding names it: its selection, else `initial state`.
fn state_label(v: &View) -> String {
    if v.selection.is_empty() {
        "initial state".into()
    } else {
        v.selection_label()
    }
}

/// The first line of a text, shortened to about 80 characters.
fn first_line(text: &str) -> String {
    let line = text.trim().lines().next().unwrap_or("").trim();
    if line.chars().count() > 80 {
        let cut: String = line.chars().take(77).collect();
        format!("{cut}...")
    } else {
        line.to_string()
    }
}

#[cfg(test)]
mod tests;

//! Cookbook generators: JSX components rendered headlessly and clicked.
//!
//! A component file (`.jsx`) or a page (`.mdx`) becomes one plain JS bundle
//! ([`transform`] per module, wrapped as functions that return their exports);
//! the bundle runs in a QuickJS [`sandbox`] with a headless React of our own
//! (`react.js`), which renders each target, applies selections by calling the
//! controls' handlers as a click would, and explores every reachable state.

pub mod cache;
pub mod copied;
pub mod options;
pub mod page;
pub mod provenance;
pub mod sandbox;
pub mod transform;
pub mod worker;
pub mod worlds;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use crate::error::Error;
use crate::span::{Origin, Source};

pub use cache::set_cache_dir;
pub use sandbox::{Heap, Isolation, Limits, configure_time_limits, total_time_configured};
pub use worker::{set_isolation, set_program as set_worker_program};

/// One thing to render: a component element made by the bundle.
#[derive(Debug, Clone)]
pub struct Target {
    /// The component's name.
    pub name: String,
    /// Where the component is used (the page's tag) or defined (its file).
    pub at: crate::span::Span,
}

/// A page or a component file made into one plain JS script.
#[derive(Debug, Clone)]
pub struct Bundle {
    /// The file the user named.
    pub file: PathBuf,
    /// The script: modules, then `globalThis.__rd_targets = [...]`.
    pub code: String,
    /// The targets, in the order of `__rd_targets`.
    pub targets: Vec<Target>,
    /// Every file read to build it: the page or component and the modules it
    /// imports, directly or not.
    pub files: Vec<PathBuf>,
    /// Where each module's code sits in [`Bundle::code`], to place a
    /// position in the bundle back in its file.
    pub modules: Vec<Placed>,
    /// A page's code blocks written in a rendered component's children, by
    /// marker number: the target that renders them and where the block
    /// starts on the page. Each is rendered as an `<rd-page-block>` marker,
    /// and [`View::page_blocks`] says which a state shows.
    pub page_blocks: Vec<(usize, usize)>,
}

/// Where one module's code sits in a bundle.
#[derive(Debug, Clone)]
pub struct Placed {
    /// The module's file.
    pub source: Arc<Source>,
    /// The bundle line (0-based) its code starts on, at column 0.
    pub line: u32,
    /// How many lines its code takes.
    pub lines: u32,
    /// Its source map: `[code line, code column, file line, file column]`,
    /// 0-based, columns in UTF-16 units, sorted.
    pub map: Arc<Vec<[u32; 4]>>,
}

impl Bundle {
    /// The place in its file of a position in [`Bundle::code`] (1-based line
    /// and column, as QuickJS reports them): the nearest mapped position at
    /// or before it on the same line. `None` outside every module's code or
    /// where the source map says nothing.
    pub fn source_at(&self, line: u32, col: u32) -> Option<crate::span::Span> {
        let (line, col) = (line.checked_sub(1)?, col.saturating_sub(1));
        let m = self
            .modules
            .iter()
            .find(|m| line >= m.line && line - m.line < m.lines)?;
        let here = [line - m.line, col, u32::MAX, u32::MAX];
        let i = m.map.partition_point(|t| *t <= here).checked_sub(1)?;
        let t = m.map[i];
        if t[0] != here[0] {
            return None;
        }
        let offset = offset_of(&m.source.text, t[2], t[3])?;
        Some(m.source.span(offset, offset))
    }
}

/// The byte offset of a 0-based line and UTF-16 column in `text`.
fn offset_of(text: &str, line: u32, col: u32) -> Option<usize> {
    let start = if line == 0 {
        0
    } else {
        text.match_indices('\n').nth(line as usize - 1)?.0 + 1
    };
    let mut units = 0u32;
    for (i, c) in text[start..].char_indices() {
        if units >= col || c == '\n' {
            return Some(start + i);
        }
        units += c.len_utf16() as u32;
    }
    Some(text.len())
}

/// A rendered state: the selection shown and the commands printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// The target's index in the bundle.
    pub target: usize,
    /// Control key -> value, in the component's order.
    pub selection: Vec<(String, String)>,
    /// The text of each `<pre>` (or `<code>`), in order.
    pub commands: Vec<String>,
    /// The clicks that reach this state from the initial one.
    pub path: Vec<(usize, String)>,
    /// The buttons clicked on that path (their keys, in order): a button is
    /// not part of the selection, so this tells apart states a button leads to.
    pub clicked: Vec<String>,
    /// The controls as shown in this state, in the component's order; filled
    /// by an exploration that asks for them ([`Explore::controls`]), else
    /// empty.
    pub controls: Vec<Control>,
    /// What clicking a button in this state copies to the clipboard
    /// (`navigator.clipboard.writeText`, `execCommand('copy')`), each text
    /// once: a command a reader runs too.
    pub copied: Vec<String>,
    /// The page blocks ([`Bundle::page_blocks`] numbers) this state shows:
    /// the component renders their marker where a browser shows it.
    pub page_blocks: Vec<usize>,
}

/// A control as shown in one state: an option key and its items.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
pub struct Control {
    /// The option key (a radio group's or a select's `name`, a checkbox's
    /// name), as a selection names it.
    pub key: String,
    /// `radio`, `checkbox`, `select`, `text` or `button`.
    pub kind: String,
    /// Its items, in order: a radio group's radios, a select's options, one
    /// item for a checkbox, a text input or a button.
    pub items: Vec<ControlItem>,
}

/// One item of a [`Control`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
pub struct ControlItem {
    /// The value a selection names (a checkbox: `true`/`false`, its state).
    pub value: String,
    /// The text of its label (a select option's text), or empty.
    pub label: String,
    /// Whether it is disabled in this state.
    pub disabled: bool,
    /// Why it is disabled, as shown (its `title`, or its label's), when it is.
    pub reason: String,
    /// Whether it is the one picked (checked, selected).
    pub selected: bool,
}

/// A click path on which the generator throws (a docs defect React shows
/// too): the clicks from the initial state and the error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crash {
    /// The target's index in the bundle.
    pub target: usize,
    /// The clicks from the initial state; the last one throws.
    pub path: Vec<(usize, String)>,
    /// The selection shown in the state the last click was made in.
    pub selection: Vec<(String, String)>,
    /// The JavaScript error (`TypeError: ...`).
    pub message: String,
    /// Where it was thrown, in the bundle (line, column), when the engine
    /// says.
    pub bundle_at: Option<(u32, u32)>,
    /// Where it was thrown in the generator's own file (or a module it
    /// imports), when the engine says and the source map places it.
    pub at: Option<crate::span::Span>,
}

/// Which checkbox combinations an exploration clicks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Checkboxes {
    /// Every combination reachable by clicks (independent checkboxes multiply
    /// the states).
    #[default]
    All,
    /// Each checkbox toggled alone from every state reached without toggling
    /// one (a quick pass).
    Each,
}

/// The command-line flags an exploration's budget messages name: those of
/// the command that explores, so that every hint names a flag it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flags {
    /// What the budgets belong to, as the messages say it (`--all-selections`,
    /// `check`, `lint-docs`).
    pub owner: &'static str,
    /// How the time budget is raised (`--time-limit SECS`), when the command
    /// has a flag for it.
    pub time_limit: Option<&'static str>,
    /// How checkboxes are toggled one at a time (`--checkboxes each`), when
    /// the command has a flag for it.
    pub checkboxes_each: Option<&'static str>,
}

impl Flags {
    /// `extract --all-selections`' flags (the default).
    pub const EXTRACT: Flags = Flags {
        owner: "--all-selections",
        time_limit: Some("--time-limit SECS"),
        checkboxes_each: Some("--checkboxes each"),
    };

    /// `check`'s flags (its pairing explores every page's generators).
    pub const CHECK: Flags = Flags {
        owner: "check",
        time_limit: None,
        checkboxes_each: None,
    };

    /// `lint-docs`' flags.
    pub const LINT_DOCS: Flags = Flags {
        owner: "lint-docs",
        time_limit: None,
        checkboxes_each: None,
    };
}

/// How [`Renderer::explore_with`] explores.
#[derive(Debug, Clone, Copy)]
pub struct Explore {
    /// The most states explored (more is an error naming the budget, or a
    /// cut with [`Explore::cut`]). Every command that explores has a
    /// `--max-states` flag for it.
    pub max_states: usize,
    /// Whether more than `max_states` states cuts the exploration instead of
    /// failing it: it then ends with its first `max_states` states (in
    /// breadth-first discovery order, which does not depend on the machine's
    /// speed: the same states on every run) and [`Exploration::cut`] says so.
    /// The time, depth and output budgets stay errors.
    pub cut: bool,
    /// The flags the budget messages name.
    pub flags: Flags,
    /// Wall time the exploration may take (more is an error that says how
    /// far it got); `None`: only the sandbox's own time budget.
    pub time_limit: Option<std::time::Duration>,
    /// Which checkbox combinations are clicked.
    pub checkboxes: Checkboxes,
    /// Whether each [`View`] carries its [`View::controls`].
    pub controls: bool,
    /// Whether [`explore_file_with`] shows a progress bar on stderr (the
    /// caller decides: only when stderr is a terminal).
    pub progress: bool,
    /// The JS heap (bytes) below which each state found keeps a full
    /// snapshot until it is expanded; past it, a state keeps only its
    /// hooks and the fibers that hold them, and is rendered again when it
    /// is expanded (slower, far smaller). `None`: a quarter of
    /// [`Limits::memory`]. The states found are the same either way.
    pub full_snapshot_bytes: Option<usize>,
}

impl Default for Explore {
    fn default() -> Self {
        Explore {
            max_states: MAX_STATES,
            cut: false,
            flags: Flags::EXTRACT,
            time_limit: Some(DEFAULT_TIME_LIMIT),
            checkboxes: Checkboxes::All,
            controls: false,
            progress: false,
            full_snapshot_bytes: None,
        }
    }
}

/// What an exploration found: every reachable state, and the click paths on
/// which the generator throws.
#[derive(Debug, Clone, Default)]
pub struct Exploration {
    /// The states, breadth-first in discovery order.
    pub views: Vec<View>,
    /// The clicks that throw, in the order they were tried.
    pub crashes: Vec<Crash>,
    /// Set when the state budget cut the exploration ([`Explore::cut`]):
    /// the states kept (the budget); at least one more state is reachable
    /// and was not explored.
    pub cut: Option<usize>,
}

/// How else a selection names a control, said after an unknown option.
const NAMING_HINT: &str = " (an option is also named by its label or by `@N`, its position among them; a button or chip by its text, with the value `click`)";

/// How far an exploration got (for a progress display).
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// States found so far.
    pub states: usize,
    /// Found states whose clicks are still to try.
    pub frontier: usize,
}

impl View {
    /// `key=value, ...` of the selection, then `(after clicking X, Y)` when
    /// buttons were clicked on the way.
    pub fn selection_label(&self) -> String {
        let mut label = self
            .selection
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ");
        if !self.clicked.is_empty() {
            if !label.is_empty() {
                label.push(' ');
            }
            label.push_str(&format!("(after clicking {})", self.clicked.join(", ")));
        }
        label
    }
}

/// What `replay` answers: the state reached, or the step of the path whose
/// control is not there.
#[derive(Deserialize)]
#[serde(untagged)]
enum ReplayJs {
    State {
        state: StateJs,
    },
    Gone {
        #[allow(dead_code)]
        gone: usize,
    },
}

#[derive(Deserialize)]
struct StateJs {
    selection: Vec<(String, String)>,
    commands: Vec<String>,
    #[serde(default)]
    copies: Vec<String>,
    #[serde(default)]
    blocks: Vec<usize>,
}

#[derive(Deserialize)]
struct FirstJs {
    selection: Vec<(String, String)>,
    commands: Vec<String>,
    #[serde(default)]
    controls: Vec<Control>,
    #[serde(default)]
    blocks: Vec<usize>,
}

#[derive(Deserialize)]
struct ChildJs {
    from: usize,
    action: (usize, String),
    selection: Vec<(String, String)>,
    commands: Vec<String>,
    #[serde(default)]
    controls: Vec<Control>,
    #[serde(default)]
    button: Option<String>,
    #[serde(default)]
    blocks: Vec<usize>,
}

#[derive(Deserialize)]
struct CrashJs {
    from: usize,
    action: (usize, String),
    error: String,
    at: Option<(u32, u32)>,
}

#[derive(Deserialize)]
struct StepJs {
    states: Vec<ChildJs>,
    crashes: Vec<CrashJs>,
    #[serde(default)]
    copies: Vec<(usize, String)>,
    done: bool,
    frontier: usize,
    /// Why the states found cannot be read as a browser shows them (the
    /// page read back a storage write), if so.
    #[serde(default)]
    refused: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum SelectJs {
    State {
        state: StateJs,
        unmatched: Vec<String>,
        options: Vec<String>,
    },
    Refused {
        error: String,
        option: String,
        #[serde(default)]
        value: String,
        #[serde(default)]
        options: Vec<String>,
        #[serde(default)]
        available: Vec<Choice>,
    },
}

#[derive(Deserialize)]
struct Choice {
    value: String,
    disabled: bool,
    #[serde(default)]
    label: String,
    #[serde(default)]
    title: String,
}

/// A value an option offers in some state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offered {
    /// The value a selection names (an item id).
    pub value: String,
    /// Its label, when the control has one.
    pub label: String,
    /// Whether it is disabled in that state.
    pub disabled: bool,
}

/// Builds the bundle of a component file or a page. `docs_root` resolves
/// absolute imports (`/src/snippets/...`); without it, it is found upward from
/// the file (the first folder holding `src/snippets`).
pub fn bundle(file: &Path, docs_root: Option<&Path>) -> Result<Bundle, Error> {
    bundle_with_props(file, docs_root, &[])
}

/// Like [`bundle`], with the props a component file's components are
/// rendered with (`--prop NAME=EXPORT` or `NAME=FILE:EXPORT`; a page passes
/// its own). Without them, a component's props are read from the module's
/// data exports by convention (see `__rd_props` in `prelude.js`).
pub fn bundle_with_props(
    file: &Path,
    docs_root: Option<&Path>,
    props: &[(String, String)],
) -> Result<Bundle, Error> {
    bundle_overlaid(file, docs_root, props, &page::Overlay::default())
}

/// Like [`bundle_with_props`], with module texts that stand in for their
/// files (an edit tried without writing it).
pub fn bundle_overlaid(
    file: &Path,
    docs_root: Option<&Path>,
    props: &[(String, String)],
    overlay: &page::Overlay,
) -> Result<Bundle, Error> {
    let source = match overlay.0.iter().find(|(p, _)| p == file) {
        Some((_, s)) => s.clone(),
        None => Source::read(file)?,
    };
    let is_page = matches!(
        file.extension().and_then(|e| e.to_str()),
        Some("mdx") | Some("md")
    );
    if is_page {
        page::bundle_page(&source, file, docs_root, overlay)
    } else {
        page::bundle_component(&source, file, docs_root, props, overlay)
    }
}

/// The folder that absolute imports are resolved against.
pub fn find_docs_root(file: &Path) -> Option<PathBuf> {
    let start = file.parent()?;
    start
        .ancestors()
        .find(|d| crate::files::probe(&d.join("src").join("snippets")) == crate::files::Probe::Dir)
        .map(Path::to_path_buf)
}

/// An evaluation's error, at the component it rendered. The file's time
/// budget is the file's: which evaluation crosses it depends on the machine's
/// speed, so it is reported at the file (its first line), naming no component,
/// and the same input gives the same error however far it got.
fn js_error(bundle: &Bundle, target: Option<usize>, e: sandbox::JsError) -> Error {
    if let sandbox::JsError::TotalTimeout(_) = e {
        return Error::Input {
            span: crate::span::Span::of_path(&bundle.file),
            message: format!("rendering the generators of this file: {e}"),
        };
    }
    let at = match target.and_then(|t| bundle.targets.get(t)) {
        Some(t) => t.at.clone(),
        None => crate::span::Span::of_path(&bundle.file),
    };
    let what = match target.and_then(|t| bundle.targets.get(t)) {
        Some(t) => format!("rendering <{} />: {e}", t.name),
        None => format!("evaluating the generator: {e}"),
    };
    Error::Input {
        span: at,
        message: what,
    }
}

/// Why a component does not show an option.
enum Hidden {
    /// Shown only when the other options have these values (`k=a|b and ...`).
    When(String),
    /// Shown in other states, with no single condition on the other options.
    Elsewhere,
    /// Shown in no reachable state.
    Never,
}

/// How many states [`Renderer`] explores to say why an option is hidden (an
/// error path: a larger component gets the plain message).
pub const HINT_STATES: usize = 512;

/// A bundle loaded into a sandbox, ready to render.
pub struct Renderer<'b> {
    bundle: &'b Bundle,
    sandbox: sandbox::Sandbox,
    /// Bytes of answers received so far (see [`MAX_RENDERED_BYTES`]).
    received: std::cell::Cell<usize>,
    /// The JS heap limit ([`Limits::memory`]).
    memory: usize,
}

impl<'b> Renderer<'b> {
    /// Loads the bundle (module code runs here, under the limits).
    pub fn new(bundle: &'b Bundle, limits: Limits) -> Result<Self, Error> {
        Self::in_world(bundle, limits, 0)
    }

    /// Loads the bundle in reader's browser `world` (0: the one every render
    /// sees; 1: the other one of `prelude.js`, see [`worlds`]).
    pub fn in_world(bundle: &'b Bundle, limits: Limits, world: usize) -> Result<Self, Error> {
        let sandbox = sandbox::Sandbox::new(limits).map_err(|e| js_error(bundle, None, e))?;
        if world != 0 {
            sandbox
                .call("world", world, "")
                .map_err(|e| js_error(bundle, None, e))?;
        }
        sandbox
            .eval(&bundle.code)
            .map_err(|e| js_error(bundle, None, e))?;
        Ok(Renderer {
            bundle,
            sandbox,
            received: std::cell::Cell::new(0),
            memory: limits.memory,
        })
    }

    /// The reader-dependent sources (the clock, randomness, the window's
    /// size, ...) the bundle read so far, named, in the order first read.
    pub fn reads(&self) -> Result<Vec<String>, Error> {
        let out = self
            .sandbox
            .call("reads", 0, "")
            .map_err(|e| js_error(self.bundle, None, e))?;
        self.parse(out)
    }

    /// What the sandbox's JS heap holds now and has held at most.
    pub fn heap(&self) -> Result<Heap, Error> {
        self.sandbox
            .heap()
            .map_err(|e| js_error(self.bundle, None, e))
    }

    /// One call into the sandbox; its answer counts toward the file's
    /// [`MAX_RENDERED_BYTES`].
    fn call(&self, name: &str, target: usize, arg: &str) -> Result<String, Error> {
        let out = match self.sandbox.call(name, target, arg) {
            Ok(out) => out,
            Err(e @ sandbox::JsError::Thrown(_)) if name != "missingProps" => {
                let hint = self.props_hint(target);
                return Err(match js_error(self.bundle, Some(target), e) {
                    Error::Input { span, message } => Error::Input {
                        span,
                        message: format!("{message}{hint}"),
                    },
                    other => other,
                });
            }
            Err(e) => return Err(js_error(self.bundle, Some(target), e)),
        };
        if let Some(unit) = lone_surrogate(&out) {
            return Err(self.over_budget(
                target,
                format!(
                    "renders a lone UTF-16 surrogate (\\u{unit:04X}), which is not text: what it prints cannot be read faithfully"
                ),
            ));
        }
        let received = self.received.get().saturating_add(out.len());
        self.received.set(received);
        if received > MAX_RENDERED_BYTES {
            return Err(self.over_budget(
                target,
                format!(
                    "renders more than {} MiB in all (the output budget of one file's renders and states)",
                    MAX_RENDERED_BYTES >> 20
                ),
            ));
        }
        Ok(out)
    }

    /// `; it takes props ...` when the target's component destructures props
    /// it was not given (a component file rendered without its page).
    fn props_hint(&self, target: usize) -> String {
        let missing: Vec<String> = self
            .sandbox
            .call("missingProps", target, "")
            .ok()
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or_default();
        if missing.is_empty() {
            return String::new();
        }
        format!(
            "; <{} /> takes props it was not given ({}): name an export for each with --prop NAME=EXPORT or NAME=FILE:EXPORT",
            self.bundle.targets[target].name,
            missing.join(", ")
        )
    }

    /// Renders a target with a selection applied by clicking, in the component's
    /// control order. A value that does not exist or is disabled is an error
    /// that lists the values available.
    pub fn select(&self, target: usize, select: &[(String, String)]) -> Result<View, Error> {
        self.select_some(target, select, false).map(|(v, _, _)| v)
    }

    /// Renders `target` afresh and clicks `path` (as an exploration found it)
    /// in order: the commands of the state it reaches, or `None` when a
    /// control the path clicks is not there or is disabled.
    pub fn replay(
        &self,
        target: usize,
        path: &[(usize, String)],
    ) -> Result<Option<Vec<String>>, Error> {
        let arg = serde_json::to_string(path).map_err(|e| Error::Input {
            span: crate::span::Span::of_path(&self.bundle.file),
            message: format!("internal: {e}"),
        })?;
        let replayed: ReplayJs = self.parse(self.call("replay", target, &arg)?)?;
        match replayed {
            ReplayJs::State { state } => {
                self.check_output(target, &state.commands)?;
                Ok(Some(state.commands))
            }
            ReplayJs::Gone { .. } => Ok(None),
        }
    }

    /// Like [`Renderer::select`], but keys the component does not have are
    /// returned (with the component's keys) instead of being an error.
    pub fn select_some(
        &self,
        target: usize,
        select: &[(String, String)],
        lenient: bool,
    ) -> Result<(View, Vec<String>, Vec<String>), Error> {
        let req = serde_json::json!({"want": select, "lenient": lenient}).to_string();
        let out = self.call("select", target, &req)?;
        let parsed: SelectJs = serde_json::from_str(&out).map_err(|e| Error::Input {
            span: crate::span::Span::of_path(&self.bundle.file),
            message: format!("internal: bad render result: {e}"),
        })?;
        match parsed {
            SelectJs::State {
                state,
                unmatched,
                options,
            } => {
                self.check_output(target, &state.commands)?;
                Ok((
                    View {
                        target,
                        selection: state.selection,
                        commands: state.commands,
                        path: vec![],
                        clicked: vec![],
                        controls: vec![],
                        copied: state.copies,
                        page_blocks: state.blocks,
                    },
                    unmatched,
                    options,
                ))
            }
            SelectJs::Refused {
                error,
                option,
                value,
                options,
                available,
            } => Err(self.refusal(target, &error, &option, &value, &options, &available)),
        }
    }

    /// The values option `key` offers after `prefix` is applied (each with its
    /// label and whether it is disabled), or `None` when the component shows no
    /// such option in that state. A text input offers no list (`Some(vec![])`).
    pub fn choices(
        &self,
        target: usize,
        prefix: &[(String, String)],
        key: &str,
    ) -> Result<Option<Vec<Offered>>, Error> {
        let mut want = prefix.to_vec();
        want.push((key.to_string(), "\u{1}recipe-drift-probe".to_string()));
        let req = serde_json::json!({"want": want, "lenient": false}).to_string();
        let out = self.call("select", target, &req)?;
        let parsed: SelectJs = self.parse(out)?;
        match parsed {
            SelectJs::State { .. } => Ok(Some(vec![])),
            SelectJs::Refused {
                error,
                option,
                value,
                options,
                available,
            } => {
                if option != key {
                    return Err(self.refusal(target, &error, &option, &value, &options, &available));
                }
                if error == "unknown-option" {
                    return Ok(None);
                }
                Ok(Some(
                    available
                        .into_iter()
                        .map(|c| Offered {
                            value: c.value,
                            label: c.label,
                            disabled: c.disabled,
                        })
                        .collect(),
                ))
            }
        }
    }

    fn refusal(
        &self,
        target: usize,
        error: &str,
        option: &str,
        value: &str,
        options: &[String],
        available: &[Choice],
    ) -> Error {
        let t = &self.bundle.targets[target];
        let message = match error {
            "unknown-option" => {
                (match self.hidden_by(target, option) {
                    Some(Hidden::When(when)) => format!(
                        "<{}> hides option `{option}` in this state: it is shown only when {when}; the options shown are: {}",
                        t.name,
                        options.join(", ")
                    ),
                    Some(Hidden::Elsewhere) => format!(
                        "<{}> hides option `{option}` in this state (other states show it); the options shown are: {}",
                        t.name,
                        options.join(", ")
                    ),
                    Some(Hidden::Never) => format!(
                        "<{}> has no option `{option}` in any state; its options are: {}",
                        t.name,
                        options.join(", ")
                    ),
                    None => format!(
                        "<{}> has no option `{option}`; its options are: {}",
                        t.name,
                        options.join(", ")
                    ),
                }) + NAMING_HINT
            }
            _ => {
                let listed: Vec<String> = available
                    .iter()
                    .map(|c| {
                        let mut s = c.value.clone();
                        if c.disabled {
                            let why = if !c.title.is_empty() {
                                c.title.clone()
                            } else if !c.label.is_empty() {
                                c.label.clone()
                            } else {
                                String::new()
                            };
                            if why.is_empty() {
                                s.push_str(" (disabled)");
                            } else {
                                s.push_str(&format!(" (disabled: {why})"));
                            }
                        }
                        s
                    })
                    .collect();
                let verb = if error == "disabled-value" {
                    "is disabled"
                } else {
                    "is not a value"
                };
                format!(
                    "<{}>: `{option}={value}` {verb} in this state; values: {}",
                    t.name,
                    listed.join(", ")
                )
            }
        };
        Error::Input {
            span: t.at.clone(),
            message,
        }
    }

    /// Why an option the current state does not show is missing: from the
    /// states reachable by clicks (up to [`HINT_STATES`]), the values of the
    /// other options that every state showing it has and not every state has
    /// (`model=397b-a17b`). `None` when the states cannot be explored within
    /// the budget.
    fn hidden_by(&self, target: usize, option: &str) -> Option<Hidden> {
        let views = self.explore(target, HINT_STATES).ok()?;
        let shows = |v: &View| v.selection.iter().any(|(k, _)| k == option);
        let shown: Vec<&View> = views.iter().filter(|v| shows(v)).collect();
        if shown.is_empty() {
            return Some(Hidden::Never);
        }
        // Per other option, its values in all states and in the showing ones
        // (component order, first appearance).
        let mut keys: Vec<&str> = Vec::new();
        for v in &views {
            for (k, _) in &v.selection {
                if k != option && !keys.contains(&k.as_str()) {
                    keys.push(k);
                }
            }
        }
        let values = |vs: &[&View], k: &str| -> Vec<String> {
            let mut out: Vec<String> = Vec::new();
            for v in vs {
                let val = v
                    .selection
                    .iter()
                    .find(|(kk, _)| kk == k)
                    .map(|(_, x)| x.clone())
                    .unwrap_or_else(|| "(hidden)".into());
                if !out.contains(&val) {
                    out.push(val);
                }
            }
            out
        };
        let all: Vec<&View> = views.iter().collect();
        let mut when = Vec::new();
        for k in keys {
            let (a, s) = (values(&all, k), values(&shown, k));
            if s.len() < a.len() {
                when.push(format!("{k}={}", s.join("|")));
            }
        }
        Some(if when.is_empty() {
            Hidden::Elsewhere
        } else {
            Hidden::When(when.join(" and "))
        })
    }

    /// Every state reachable by clicks from the initial one, breadth-first,
    /// deduplicated by what is rendered. More than `max_states` states or a
    /// state more than [`MAX_DEPTH`] clicks deep is an error naming the budget
    /// (as is more than [`MAX_RENDERED_BYTES`] received in all). A click path
    /// on which the generator throws is skipped here; see
    /// [`Renderer::explore_with`] for them.
    pub fn explore(&self, target: usize, max_states: usize) -> Result<Vec<View>, Error> {
        let opts = Explore {
            max_states,
            time_limit: None,
            ..Explore::default()
        };
        Ok(self.explore_with(target, &opts, &mut |_| {})?.views)
    }

    /// Every state reachable by clicks from the initial one, breadth-first
    /// in discovery order, with the click paths on which the generator
    /// throws. Each state is reached by restoring a snapshot of the state it
    /// is clicked from (not by replaying its path). `progress` is told how
    /// far it got after each batch of clicks.
    pub fn explore_with(
        &self,
        target: usize,
        opts: &Explore,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Exploration, Error> {
        let start = std::time::Instant::now();
        let arg = serde_json::json!({
            "checkboxes": match opts.checkboxes { Checkboxes::All => "all", Checkboxes::Each => "each" },
            "controls": opts.controls,
            "fullBytes": opts.full_snapshot_bytes.unwrap_or(self.memory / 4),
        })
        .to_string();
        let first: FirstJs = self.parse(self.call("explore", target, &arg)?)?;
        self.check_output(target, &first.commands)?;
        let mut found = Exploration {
            views: vec![View {
                target,
                selection: first.selection,
                commands: first.commands,
                path: vec![],
                clicked: vec![],
                controls: first.controls,
                copied: vec![],
                page_blocks: first.blocks,
            }],
            crashes: vec![],
            cut: None,
        };
        // Clicks per call: adapted so that a call takes about STEP_TIME (a
        // generator with slow renders stays well inside the per-evaluation
        // time limit, and progress and the time budget are checked often).
        let mut edges = 8usize;
        loop {
            let want = opts
                .max_states
                .saturating_sub(found.views.len())
                .saturating_add(1);
            let arg =
                serde_json::json!({"states": want.min(STEP_STATES), "edges": edges}).to_string();
            let called = std::time::Instant::now();
            let step: StepJs = self.parse(self.call("step", target, &arg)?)?;
            if let Some(why) = step.refused {
                return Err(self.over_budget(target, format!("is not read: {why}")));
            }
            let took = called.elapsed().as_secs_f64().max(1e-6);
            let scaled = (edges as f64 * STEP_TIME.as_secs_f64() / took) as usize;
            edges = scaled
                .clamp(edges / 2, edges.saturating_mul(2))
                .clamp(1, STEP_EDGES);
            for c in step.states {
                // The sandbox found one state more than the budget: states are
                // found breadth-first in an order that does not depend on how
                // the clicks were batched, so the cut falls on the same state
                // on every run (the batch size follows the machine's speed,
                // the order does not).
                if found.views.len() >= opts.max_states {
                    if opts.cut {
                        // The step stopped at this state: its crashes were all
                        // found before it, and are kept.
                        found.cut = Some(found.views.len());
                        break;
                    }
                    return Err(self.over_budget(
                        target,
                        format!(
                            "has more than {} reachable states (the state budget of {}; raise it with --max-states N{})",
                            opts.max_states,
                            opts.flags.owner,
                            self.checkbox_hint(&found.views, opts)
                        ),
                    ));
                }
                let parent = self.state(&found.views, c.from)?;
                let path = &parent.path;
                let mut clicked = parent.clicked.clone();
                clicked.extend(c.button);
                if path.len() >= MAX_DEPTH {
                    return Err(self.over_budget(
                        target,
                        format!(
                            "has states more than {MAX_DEPTH} clicks away from the initial one (the click-depth budget of {})",
                            opts.flags.owner
                        ),
                    ));
                }
                self.check_output(target, &c.commands)?;
                let mut p = path.clone();
                p.push(c.action);
                found.views.push(View {
                    target,
                    selection: c.selection,
                    commands: c.commands,
                    path: p,
                    clicked,
                    controls: c.controls,
                    copied: vec![],
                    page_blocks: c.blocks,
                });
            }
            for (from, text) in step.copies {
                let view = found.views.get_mut(from).ok_or_else(|| Error::Input {
                    span: crate::span::Span::of_path(&self.bundle.file),
                    message: format!("internal: the exploration named state {from}"),
                })?;
                if !view.copied.contains(&text) {
                    view.copied.push(text);
                }
            }
            for c in step.crashes {
                let from = self.state(&found.views, c.from)?;
                let mut path = from.path.clone();
                path.push(c.action);
                found.crashes.push(Crash {
                    target,
                    path,
                    selection: from.selection.clone(),
                    message: c.error,
                    bundle_at: c.at,
                    at: c.at.and_then(|(l, col)| self.bundle.source_at(l, col)),
                });
            }
            progress(Progress {
                states: found.views.len(),
                frontier: step.frontier,
            });
            if step.done || found.cut.is_some() {
                return Ok(found);
            }
            if let Some(limit) = opts.time_limit
                && start.elapsed() > limit
            {
                // How far a machine gets in that time varies from run to
                // run: the cut names no count, so every run that crosses it
                // prints the same bytes (`--max-states` is the budget that
                // cuts at the same state everywhere).
                let raise = opts
                    .flags
                    .time_limit
                    .map(|f| format!("raise it with {f}; "))
                    .unwrap_or_default();
                let cut = if opts.cut {
                    "a lower --max-states N cuts it at the same state on every machine, and the states before the cut are read"
                } else {
                    "--max-states N cuts at the same state on every machine"
                };
                return Err(self.over_budget(
                    target,
                    format!(
                        "was still being explored after {} s, the time budget of {} ({raise}{cut}){}",
                        limit.as_secs(),
                        opts.flags.owner,
                        self.checkbox_hint(&found.views, opts)
                    ),
                ));
            }
        }
    }

    /// The state a step's answer names.
    fn state<'v>(&self, views: &'v [View], i: usize) -> Result<&'v View, Error> {
        views.get(i).ok_or_else(|| Error::Input {
            span: crate::span::Span::of_path(&self.bundle.file),
            message: format!(
                "internal: the exploration named state {i} of {}",
                views.len()
            ),
        })
    }

    /// `; independent checkboxes multiply the states: ...` when every
    /// combination of checkboxes is being explored and the command has a
    /// flag that toggles each alone.
    fn checkbox_hint(&self, views: &[View], opts: &Explore) -> String {
        let _ = views;
        match opts.flags.checkboxes_each {
            Some(flag) if opts.checkboxes == Checkboxes::All => {
                format!("; independent checkboxes multiply the states: `{flag}` toggles each alone")
            }
            _ => String::new(),
        }
    }

    /// The commands of one state within [`MAX_COMMANDS`] and
    /// [`MAX_COMMAND_BYTES`].
    fn check_output(&self, target: usize, commands: &[String]) -> Result<(), Error> {
        if commands.len() > MAX_COMMANDS {
            return Err(self.over_budget(
                target,
                format!(
                    "prints {} commands in one state, over the budget of {MAX_COMMANDS}",
                    commands.len()
                ),
            ));
        }
        if let Some(c) = commands.iter().find(|c| c.len() > MAX_COMMAND_BYTES) {
            return Err(self.over_budget(
                target,
                format!(
                    "prints a command of {} bytes, over the budget of {} KiB per command",
                    c.len(),
                    MAX_COMMAND_BYTES >> 10
                ),
            ));
        }
        Ok(())
    }

    fn over_budget(&self, target: usize, what: String) -> Error {
        let t = &self.bundle.targets[target];
        Error::Input {
            span: t.at.clone(),
            message: format!("<{} /> {what}", t.name),
        }
    }

    fn parse<T: for<'de> Deserialize<'de>>(&self, s: String) -> Result<T, Error> {
        serde_json::from_str(&s).map_err(|e| Error::Input {
            span: crate::span::Span::of_path(&self.bundle.file),
            message: format!("internal: bad render result: {e}"),
        })
    }
}

/// The first lone surrogate in an answer (JSON from `JSON.stringify`, which
/// writes a surrogate pair as its character and escapes only a surrogate that
/// is not part of one), as its UTF-16 code unit.
fn lone_surrogate(json: &str) -> Option<u16> {
    let b = json.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        if b.get(i + 1) == Some(&b'u')
            && let Some(unit) = json
                .get(i + 2..i + 6)
                .and_then(|h| u16::from_str_radix(h, 16).ok())
            && (0xD800..=0xDFFF).contains(&unit)
        {
            return Some(unit);
        }
        i += 2;
    }
    None
}

/// The most states `--all-selections` explores per component, by default
/// (`--max-states`). Real generators have tens; a synthetic grid of four
/// six-value options has 1,116.
pub const MAX_STATES: usize = 5_000;

/// The wall time `--all-selections` explores one component for, by default
/// (`--time-limit`).
pub const DEFAULT_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(120);

/// The most new states one exploration call into the sandbox returns.
const STEP_STATES: usize = 256;

/// The most clicks one exploration call into the sandbox makes (bounds the
/// time between progress reports and time-budget checks).
const STEP_EDGES: usize = 512;

/// The time one exploration call into the sandbox aims at.
const STEP_TIME: std::time::Duration = std::time::Duration::from_millis(250);

/// The most clicks between the initial state and any state `--all-selections`
/// explores (real generators: one per option).
pub const MAX_DEPTH: usize = 200;

/// The most bytes one printed command may have (real ones: a few KiB).
pub const MAX_COMMAND_BYTES: usize = 256 << 10;

/// The most commands (`<pre>` or `<code>` blocks) one state may print.
pub const MAX_COMMANDS: usize = 64;

/// The most bytes the renders of one file may return in all (commands,
/// selections and the bookkeeping of every state explored): bounds the
/// memory of an exploration and of a page with many components.
pub const MAX_RENDERED_BYTES: usize = 32 << 20;

/// Runs `f` on a thread with a stack big enough for the sandbox's limit.
pub fn on_render_thread<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, Error> + Send + 'static,
) -> Result<T, Error> {
    std::thread::Builder::new()
        .name("jsx-render".into())
        .stack_size(16 << 20)
        .spawn(f)
        .map_err(|e| Error::usage(format!("cannot start the JS renderer: {e}")))?
        .join()
        .unwrap_or_else(|_| Err(Error::usage("the JS renderer failed")))
}

/// The command text of a view as a source, labeled with the file and selection.
pub fn view_source(bundle: &Bundle, view: &View, index: usize) -> Arc<Source> {
    let label = view_label(bundle, view, index);
    Arc::new(Source::new(
        Origin::Rendered {
            file: bundle.file.clone(),
            view: label,
        },
        view.commands[index].clone(),
    ))
}

/// How a view's command `index` is named (its source's label): the
/// component, the selection, and the command's number when it prints several.
pub fn view_label(bundle: &Bundle, view: &View, index: usize) -> String {
    let t = &bundle.targets[view.target];
    let mut label = format!("<{} />", t.name);
    if !view.selection.is_empty() {
        label.push_str(&format!(" {}", view.selection_label()));
    }
    if view.commands.len() > 1 {
        label.push_str(&format!(" #{}", index + 1));
    }
    label
}

/// Parses `k=v` selections.
pub fn parse_selections(items: &[String]) -> Result<Vec<(String, String)>, Error> {
    items
        .iter()
        .map(|s| match s.split_once('=') {
            Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
            _ => Err(Error::usage(format!(
                "--select expects KEY=VALUE, got `{s}`"
            ))),
        })
        .collect()
}

/// Option keys whose value names the hardware in generators.
/// An option named like one of these, or by a GPU vendor (a group of cards
/// titled `NVIDIA`, `AMD`), picks the hardware.
const HARDWARE_KEYS: &[&str] = &[
    "hardware", "hw", "gpu", "device", "platform", "nvidia", "amd",
];

/// The hardware (and so the platform) a reader picked, when an option named
/// like [`HARDWARE_KEYS`] holds a known SKU and the command says nothing else.
pub fn context_from_selection(ctx: &mut crate::launch::Context, view: &View) {
    use crate::launch::Known;
    if ctx.hardware.is_some() {
        return;
    }
    let Some((key, sku)) = view.selection.iter().find(|(k, v)| {
        HARDWARE_KEYS.contains(&k.to_ascii_lowercase().as_str())
            && crate::hardware::platform_of(v).is_some()
    }) else {
        return;
    };
    let from = format!("generator selection {key}={sku}");
    if ctx.platform.is_none() {
        ctx.platform = crate::hardware::platform_of(sku).map(|p| Known {
            value: p,
            from: from.clone(),
        });
    }
    // The SKU as the hardware table names it (`mi355x` for a card labelled
    // `MI355X 288GB`).
    ctx.hardware = Some(Known {
        value: crate::hardware::family_of(sku)
            .map(String::from)
            .unwrap_or_else(|| sku.to_ascii_lowercase()),
        from,
    });
}

/// Every reachable state of every generator of a file, and the click paths
/// on which one throws, per target; the first target that cannot be explored
/// fails the file.
pub fn explore_file_with(
    path: &Path,
    docs_root: Option<&Path>,
    props: &[(String, String)],
    limits: Limits,
    opts: Explore,
) -> Result<(Bundle, Vec<Exploration>), Error> {
    let (bundle, each) = explore_file_each(path, docs_root, props, limits, opts)?;
    let all = each.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok((bundle, all))
}

/// [`explore_file_with`], each target's exploration on its own: a target
/// that throws on mount, or runs out of the file's budgets, is that target's
/// error, and the others are still explored (what a reader sees of one
/// component does not depend on another's crash). The file's own errors
/// (reading, bundling, starting the sandbox) fail it whole. Only a file
/// whose every target was explored is cached.
pub fn explore_file_each(
    path: &Path,
    docs_root: Option<&Path>,
    props: &[(String, String)],
    limits: Limits,
    opts: Explore,
) -> Result<(Bundle, Vec<Result<Exploration, Error>>), Error> {
    explore_file_overlaid(
        path,
        docs_root,
        props,
        limits,
        opts,
        page::Overlay::default(),
    )
}

/// [`explore_file_each`] with module texts that stand in for their files
/// (an edit tried without writing it; such an exploration is not cached).
pub fn explore_file_overlaid(
    path: &Path,
    docs_root: Option<&Path>,
    props: &[(String, String)],
    limits: Limits,
    opts: Explore,
    overlay: page::Overlay,
) -> Result<(Bundle, Vec<Result<Exploration, Error>>), Error> {
    let path = path.to_path_buf();
    let docs_root = docs_root.map(Path::to_path_buf);
    let props = props.to_vec();
    on_render_thread(move || {
        let bundle = bundle_overlaid(&path, docs_root.as_deref(), &props, &overlay)?;
        let cached = overlay.0.is_empty();
        // An unchanged generator is read back, not explored (see `cache`).
        let key = cache::key(&bundle, &opts, &limits);
        if cached && let Some(found) = cache::load(&key, &bundle) {
            return Ok((bundle, found.into_iter().map(Ok).collect()));
        }
        let renderer = Renderer::new(&bundle, limits)?;
        let mut all = Vec::new();
        for (t, target) in bundle.targets.iter().enumerate() {
            let bar = opts.progress.then(|| progress_bar(&target.name));
            let found = renderer.explore_with(t, &opts, &mut |p| {
                if let Some(bar) = &bar {
                    bar.set_message(format!(
                        "{} states, {} to click through",
                        p.states, p.frontier
                    ));
                    bar.tick();
                }
            });
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            if std::env::var_os(HEAP_ENV).is_some() {
                report_heap(&renderer, &target.name, &limits);
            }
            all.push(found);
        }
        // What a reader's browser decides (the clock, randomness, the
        // window, ...): explored again in another browser when read.
        let reads = if all.iter().any(Result::is_ok) {
            renderer.reads()
        } else {
            Ok(vec![])
        };
        drop(renderer);
        match reads {
            Ok(reads) => worlds::check_explorations(&bundle, limits, &opts, &reads, &mut all),
            // The sandbox is gone (a target's limit ended it): a target
            // explored before cannot be checked, and says why.
            Err(e) => all
                .iter_mut()
                .filter(|f| f.is_ok())
                .for_each(|f| *f = Err(e.clone())),
        }
        copied::check_explorations(&bundle, &mut all);
        if all.iter().all(Result::is_ok) {
            let found: Vec<Exploration> = all.into_iter().flatten().collect();
            if cached {
                cache::store(&key, &found);
            }
            return Ok((bundle, found.into_iter().map(Ok).collect()));
        }
        Ok((bundle, all))
    })
}

/// Set in the environment, [`explore_file_with`] prints the JS heap's
/// figures on stderr after exploring each component (a measurement for
/// developers; the cache folder answers an unchanged generator without
/// exploring, so nothing is printed then).
pub const HEAP_ENV: &str = "RECIPE_DRIFT_JS_HEAP";

/// One stderr line: the JS heap's peak and current use after exploring
/// `name` (nothing when the worker is gone, e.g. after the memory limit).
fn report_heap(renderer: &Renderer<'_>, name: &str, limits: &Limits) {
    if let Ok(h) = renderer.heap() {
        eprintln!(
            "js heap after exploring <{name} />: peak {:.1} MiB, now {:.1} MiB (limit {} MiB)",
            h.peak as f64 / f64::from(1 << 20),
            h.used as f64 / f64::from(1 << 20),
            limits.memory >> 20
        );
    }
}

/// A spinner on stderr naming the component being explored.
fn progress_bar(name: &str) -> indicatif::ProgressBar {
    let bar =
        indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{spinner} exploring <{prefix} /> {msg} [{elapsed}]",
    ) {
        bar.set_style(style);
    }
    bar.set_prefix(name.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

/// Every reachable state of every generator of a file, per target.
pub fn explore_file(
    path: &Path,
    docs_root: Option<&Path>,
    limits: Limits,
    max_states: usize,
) -> Result<(Bundle, Vec<Vec<View>>), Error> {
    let path = path.to_path_buf();
    let docs_root = docs_root.map(Path::to_path_buf);
    on_render_thread(move || {
        let bundle = bundle(&path, docs_root.as_deref())?;
        let renderer = Renderer::new(&bundle, limits)?;
        let mut all = Vec::new();
        for t in 0..bundle.targets.len() {
            all.push(renderer.explore(t, max_states)?);
        }
        drop(renderer);
        Ok((bundle, all))
    })
}

#[cfg(test)]
mod tests {
    use super::{View, context_from_selection, lone_surrogate, offset_of};

    #[test]
    fn a_vendor_group_picks_the_hardware_as_the_table_names_it() {
        let view = |sel: &[(&str, &str)]| View {
            target: 0,
            selection: sel
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            commands: vec![],
            path: vec![],
            clicked: vec![],
            controls: vec![],
            copied: vec![],
            page_blocks: vec![],
        };
        let mut ctx = crate::launch::Context::default();
        context_from_selection(
            &mut ctx,
            &view(&[("AMD", "MI355X 288GB"), ("Quant", "FP4")]),
        );
        assert_eq!(
            ctx.hardware.as_ref().map(|h| h.value.as_str()),
            Some("mi355x")
        );
        assert!(ctx.platform.is_some());
        let mut ctx = crate::launch::Context::default();
        context_from_selection(&mut ctx, &view(&[("Model", "MI355X-like")]));
        assert!(ctx.hardware.is_none(), "not a hardware option");
    }

    #[test]
    fn source_map_columns_are_utf16_units() {
        let text = "a\n\u{e9}\u{1F600}x = 1;\nlast";
        assert_eq!(offset_of(text, 0, 0), Some(0));
        // é is one unit (two bytes), 😀 two units (four bytes).
        assert_eq!(offset_of(text, 1, 1), Some(4));
        assert_eq!(offset_of(text, 1, 3), Some(8));
        // Past the end of a line: its end, never the next line.
        assert_eq!(offset_of(text, 1, 40), Some(14));
        assert_eq!(offset_of(text, 2, 2), Some(17));
        assert_eq!(offset_of(text, 3, 0), None);
    }

    #[test]
    fn lone_surrogates_are_found_in_stringified_json() {
        assert_eq!(lone_surrogate(r#"{"c":["a\ud800b"]}"#), Some(0xD800));
        assert_eq!(lone_surrogate(r#"{"c":["\uDC00"]}"#), Some(0xDC00));
        // An escaped backslash before `u`, other escapes and a raw pair are text.
        assert_eq!(lone_surrogate(r#"{"c":["\\ud800 \u0041 \n 😀"]}"#), None);
        assert_eq!(lone_surrogate(r#"{"c":["\u12"]}"#), None);
    }
}

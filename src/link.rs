//! One link: load both sides, pick their launches, borrow context between
//! them, group matrix points, resolve and compare. Returns typed link
//! reports; rendering is `crate::report`'s.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::str::FromStr;

use serde::Serialize;

use crate::compare::{Comparison, compare};
use crate::engine;
use crate::error::Error;
use crate::extract;
use crate::fetch::Fetcher;
use crate::finding::{
    About, Finding, KeyValues, NEWER_RELEASE, Related, STARTUP_ERROR, Severity, Text,
};
use crate::launch::{Launch, Platform, Remark};
use crate::manifest::SideSpec;
use crate::policy::Policy;
use crate::resolved::{self, ResolveOptions, Resolved};
use crate::span::{Origin, Span};
use crate::waiver::{Filtered, Judged};

/// One side of a compared link.
#[derive(Debug, Clone, Serialize)]
pub struct SideReport {
    /// The launch as extracted.
    pub launch: Launch,
    /// The launch after the resolver.
    pub resolved: Resolved,
}

/// The result of comparing one link.
#[derive(Debug, Clone, Serialize)]
pub struct LinkReport {
    /// The link's name.
    pub name: String,
    /// The docs side.
    pub docs: SideReport,
    /// The recipe side.
    pub recipe: SideReport,
    /// Findings, as `compare` made them.
    pub comparison: Comparison,
    /// The findings sorted by the config's waivers (all applied without waivers).
    pub waivers: Filtered,
    /// Warnings about the link's inputs (an `env:` that nothing read), with
    /// where they apply.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Remark>,
    /// Auxiliary launches of the sides' matrix points (the SGLang router),
    /// each with its side and where it is written: reported, never compared.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub auxiliary: Vec<Remark>,
    /// The pair this report compares, when pairing made it (`check
    /// --docs-root --inferencex`); `None` for a config's link.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pair: Option<crate::space::PairInfo>,
    /// The severity of its `newer-release` findings (the policy's).
    #[serde(skip)]
    pub newer_release: Severity,
}

/// A link's status in the reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// MAJOR drift (an error finding that counts, a command that would not
    /// start, or one that does not run as written).
    Drift,
    /// No drift, but a MAJOR key that cannot be decided (a warning that counts).
    Unknown,
    /// Neither.
    Ok,
    /// The link could not be compared (bad input).
    Error,
    /// The link was not run.
    Skipped,
}

impl Status {
    /// The status as the reports spell it (`drift`).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Drift => "drift",
            Status::Unknown => "unknown",
            Status::Ok => "ok",
            Status::Error => "error",
            Status::Skipped => "skipped",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A side's startup error as a finding (`startup-error`, an error), placed
/// at the refused word, else at the launch (`launch`); `link` is the link or
/// pair it belongs to (`None` for a run's finding about deployments).
pub(crate) fn startup_error_finding(
    side: &'static str,
    e: &resolved::StartupError,
    launch: &Span,
    link: Option<String>,
) -> Finding {
    let headline = format!("the {side} command would not start");
    Finding {
        kind: STARTUP_ERROR,
        severity: Severity::Error,
        message: Text::own(format!("{headline}: ")).and_input(&e.message),
        primary: Some(e.span.clone().unwrap_or_else(|| launch.clone())),
        related: Vec::new(),
        link,
        about: About::Command {
            side,
            headline,
            detail: e.message.clone(),
            rule: Some((e.rule.clone(), e.reference.clone())),
            own_place: e.span.is_some(),
            deployments: Vec::new(),
        },
        fix: None,
    }
}

/// A defect of a side's text as a finding (its kind, an error), placed at
/// the defect with the lines it names; `link` as for
/// [`startup_error_finding`].
pub(crate) fn defect_finding(
    side: &'static str,
    d: &crate::launch::Defect,
    link: Option<String>,
) -> Finding {
    let headline = format!("the {side} command does not run as written");
    Finding {
        kind: d.kind,
        severity: Severity::Error,
        message: Text::own(format!("{headline}: ")).and_input(&d.message),
        primary: Some(d.span.clone()),
        related: d
            .related
            .iter()
            .map(|span| Related {
                span: span.clone(),
                label: Some("bash runs this line on its own".into()),
            })
            .collect(),
        link,
        about: About::Command {
            side,
            headline,
            detail: d.message.clone(),
            rule: None,
            own_place: true,
            deployments: Vec::new(),
        },
        fix: None,
    }
}

impl LinkReport {
    /// The differences in `compare`'s order, each with the waiver that
    /// suppressed it.
    pub fn judged(&self) -> impl Iterator<Item = Judged<'_>> {
        self.waivers.judged(&self.comparison)
    }

    /// Every finding of the link as the reports render it: per side (docs
    /// first) the command as a whole (startup errors, then defects of its
    /// text, each an error of its own), then the keys in `compare`'s order,
    /// each with the waiver that silenced it.
    pub fn findings(&self) -> Vec<Finding> {
        let mut out = Vec::new();
        for (label, side) in [("docs", &self.docs), ("recipe", &self.recipe)] {
            out.extend(self.newer_findings(label, side));
            for e in &side.resolved.startup_errors {
                out.push(startup_error_finding(
                    label,
                    e,
                    &side.launch.span,
                    Some(self.name.clone()),
                ));
            }
            for d in &side.launch.defects {
                out.push(defect_finding(label, d, Some(self.name.clone())));
            }
        }
        for j in self.judged() {
            out.push(self.key_finding(&j));
        }
        out
    }

    /// A side's `newer-release` findings: its command may run a release
    /// newer than every bundled one (once), and each word that release does
    /// not know, set aside (placed at the words).
    fn newer_findings(&self, label: &'static str, side: &SideReport) -> Vec<Finding> {
        let r = &side.resolved;
        let engine = r.engine.name();
        let Some(sentence) = r.version.newer_sentence(engine, label, true) else {
            return Vec::new();
        };
        let headline =
            format!("the {label} command may run a newer release than recipe-drift bundles");
        let finding = |message: String, primary: Span, own_place: bool| Finding {
            kind: NEWER_RELEASE,
            severity: self.newer_release,
            message: Text::input(message.clone()),
            primary: Some(primary),
            related: Vec::new(),
            link: Some(self.name.clone()),
            about: About::Command {
                side: label,
                headline: headline.clone(),
                detail: message,
                rule: None,
                own_place,
                deployments: Vec::new(),
            },
            fix: None,
        };
        let mut out = vec![finding(sentence, side.launch.span.clone(), false)];
        for a in &r.set_aside {
            let at = a.spans.first().cloned();
            out.push(finding(
                format!("the {label} command: {}", a.sentence(engine, &r.version)),
                at.clone().unwrap_or_else(|| side.launch.span.clone()),
                at.is_some(),
            ));
        }
        out
    }

    /// A difference as a finding: placed on the docs side's first span in a
    /// file, else the recipe side's, else the docs launch, else the recipe
    /// launch (the docs side is the one a docs change fixes); the recipe
    /// side's span is related when the docs side has one.
    fn key_finding(&self, j: &Judged<'_>) -> Finding {
        let f = j.finding;
        let in_file = |s: &&Span| !matches!(s.origin(), Origin::Inline(_));
        let docs = f.docs.spans.iter().find(in_file);
        let recipe = f.recipe.spans.iter().find(in_file);
        let launch = [&self.docs.launch.span, &self.recipe.launch.span]
            .into_iter()
            .find(in_file);
        let related = match (docs, recipe) {
            (Some(_), Some(r)) => vec![Related {
                span: r.clone(),
                label: Some(format!("recipe: {}", f.recipe.val.display())),
            }],
            _ => Vec::new(),
        };
        let values = KeyValues {
            key: f.key.clone(),
            kind: f.kind,
            class: f.class,
            docs: f.docs.clone(),
            recipe: f.recipe.clone(),
            waiver: j.waiver.map(crate::waiver::Waiver::waived),
        };
        Finding {
            kind: f.kind.name(),
            severity: j.severity(),
            message: f.text(),
            primary: docs.or(recipe).or(launch).cloned(),
            related,
            link: Some(self.name.clone()),
            fix: crate::fix::for_key(&values),
            about: About::Key(Box::new(values)),
        }
    }

    /// Whether a side's release refuses its command whole (its parser
    /// rejects it and no word can be set aside): then nothing was compared.
    pub fn refused(&self) -> bool {
        [&self.docs, &self.recipe].iter().any(|s| {
            s.resolved.values.is_empty()
                && s.resolved
                    .startup_errors
                    .iter()
                    .any(|e| e.rule == engine::PARSER_RULE)
        })
    }

    /// The number of findings about the sides' commands as a whole (each an
    /// error of its own): startup errors and defects of the text.
    pub fn side_error_count(&self) -> usize {
        [&self.docs, &self.recipe]
            .iter()
            .map(|s| s.resolved.startup_errors.len() + s.launch.defects.len())
            .sum()
    }

    /// Drops the resolved values no report shows: a pair keeps the keys its
    /// normalised commands list (set by the text or changed by a rule, to a
    /// known value) and the keys of its findings, not every default of the
    /// release (about 500 entries a side), so a run's memory does not grow
    /// with the engine's option table times the pairs.
    fn keep_reported(&mut self) {
        let findings: std::collections::BTreeSet<&str> = self
            .comparison
            .findings
            .iter()
            .map(|f| f.key.as_str())
            .collect();
        for side in [&mut self.docs, &mut self.recipe] {
            side.resolved
                .values
                .retain(|k, e| e.is_decided() || findings.contains(k.as_str()));
        }
    }

    /// The link's status: drift, unknown or ok, from the findings that count (a
    /// suppressed finding counts as information) and the startup errors.
    pub fn status(&self) -> Status {
        let counts = |s: Severity| {
            self.waivers
                .applied(&self.comparison)
                .any(|f| f.severity == s)
        };
        let newer = [("docs", &self.docs), ("recipe", &self.recipe)]
            .into_iter()
            .any(|(label, side)| !self.newer_findings(label, side).is_empty());
        let newer_counts = |s: Severity| newer && self.newer_release == s;
        if counts(Severity::Error) || self.side_error_count() > 0 || newer_counts(Severity::Error) {
            Status::Drift
        } else if counts(Severity::Warning) || newer_counts(Severity::Warning) {
            Status::Unknown
        } else {
            Status::Ok
        }
    }
}

/// What recipe-drift's own command line (or a config's link) sets for both
/// sides of a link: engine version, hardware and platform, and where they came
/// from (`None`: flags; else the config file).
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// Engine version (PEP 440).
    pub engine_version: Option<String>,
    /// Hardware SKU.
    pub hardware: Option<String>,
    /// Platform name.
    pub platform: Option<String>,
    /// The config file that set them, for messages.
    pub origin: Option<String>,
    /// Where checkpoint facts come from (config `checkpoints:`, the Hub).
    pub checkpoints: Option<std::sync::Arc<dyn resolved::FactSource>>,
    /// The file sides already loaded in this run, shared by its links.
    pub loads: Option<std::sync::Arc<Loads>>,
}

/// The file sides a run has loaded (extracted and picked), by everything the
/// loading reads, so links that name the same page or script read and
/// evaluate it once. Bounded: past [`Loads::MAX`] entries it starts over.
#[derive(Debug, Default)]
pub struct Loads(std::sync::Mutex<std::collections::HashMap<String, Result<Launch, Error>>>);

impl Loads {
    /// Entries kept at most.
    pub const MAX: usize = 4096;

    fn get_or_load(
        &self,
        key: String,
        load: impl FnOnce() -> Result<Launch, Error>,
    ) -> Result<Launch, Error> {
        let lock = || self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = lock().get(&key) {
            return found.clone();
        }
        // Loaded outside the lock: another worker may load the same side
        // meanwhile, to the same result.
        let loaded = load();
        let mut map = lock();
        if map.len() >= Self::MAX {
            map.clear();
        }
        map.insert(key, loaded.clone());
        loaded
    }
}

/// The resolve options of one side: the side's own context over the command's.
pub(crate) fn options(ctx: &Overrides, side: &SideSpec) -> Result<ResolveOptions, Error> {
    let origin = ctx.origin.clone();
    let from = |flag: &str| resolved::option_origin(origin.as_deref(), flag);
    let platform = match side.platform.as_ref().or(ctx.platform.as_ref()) {
        Some(p) => Some(Platform::parse(p).ok_or_else(|| {
            Error::usage(format!(
                "{}: unknown platform {p:?} (cuda, rocm, cpu)",
                from("platform")
            ))
        })?),
        None => None,
    };
    let hardware = side.hardware.clone().or(ctx.hardware.clone());
    if let Some(h) = &hardware {
        match (crate::hardware::platform_of(h), platform) {
            (None, None) => {
                let known: Vec<&str> = crate::hardware::skus().filter(|s| *s != "cpu").collect();
                return Err(Error::usage(format!(
                    "{}: unknown hardware SKU {h:?}; known: {} (give --platform with other SKUs)",
                    from("hardware"),
                    known.join(", ")
                )));
            }
            (Some(hp), Some(p)) if hp != p => {
                return Err(Error::usage(format!(
                    "{}: hardware {h} runs on {hp}, but the platform is given as {p}",
                    from("hardware")
                )));
            }
            _ => {}
        }
    }
    let engine_version = side.engine_version.clone().or(ctx.engine_version.clone());
    if let Some(v) = &engine_version
        && v.trim_start_matches('v')
            .parse::<pep440_rs::Version>()
            .is_err()
    {
        return Err(Error::usage(format!(
            "{}: {v:?} is not a PEP 440 version (for example 0.5.19 or 0.5.15.post1)",
            from("engine-version")
        )));
    }
    Ok(ResolveOptions {
        engine_version,
        platform,
        hardware,
        origin,
        checkpoints: ctx.checkpoints.clone(),
    })
}

/// The launches a side stands for, each with a label when there are several
/// (matrix points with identical launches are grouped).
/// What loading the sides says beside the launches.
#[derive(Default)]
struct Notes {
    warnings: Vec<Remark>,
    auxiliary: Vec<Remark>,
}

fn load_side(
    side: &SideSpec,
    role: &str,
    vars: &BTreeMap<String, String>,
    fetcher: &Fetcher,
    loads: Option<&Loads>,
    notes: &mut Notes,
) -> Result<Vec<(Points, Launch)>, Error> {
    let launches = match (&side.inferencex, loads) {
        (Some(ix), _) => load_inferencex(ix, side, role, vars, fetcher, notes)?,
        (None, None) => vec![(Vec::new(), load_file_side(side, role, vars, fetcher)?)],
        (None, Some(loads)) => {
            // Everything `load_file_side` reads, nothing else (a config's
            // positions are not in it, so two links share the load).
            let key = format!(
                "{role}\0{:?}\0{:?}\0{:?}\0{:?}\0{:?}\0{:?}",
                side.file,
                side.select_strings(),
                side.docs_root,
                side.launch,
                side.env,
                vars
            );
            let launch = loads.get_or_load(key, || load_file_side(side, role, vars, fetcher))?;
            vec![(Vec::new(), launch)]
        }
    };
    note_secrets(launches.iter().map(|(_, l)| l));
    Ok(launches)
}

pub use crate::engine::note_secrets;

/// The names of an expansion's extra env that nothing read: no point's script,
/// and no engine it launches is known to read it.
pub fn unread_env(e: &extract::inferencex::Expanded) -> Vec<String> {
    e.unread_env
        .iter()
        .filter(|name| {
            !e.points
                .iter()
                .flat_map(|p| &p.launches)
                .any(|l| engine::by_name(l.engine.name()).is_some_and(|eng| eng.reads_env(name)))
        })
        .cloned()
        .collect()
}

/// Matrix points (their search-space fields) a launch stands for; empty for a file.
type Points = Vec<BTreeMap<String, String>>;

pub(crate) use crate::files::location_of;

fn load_inferencex(
    ix: &crate::manifest::InferencexSpec,
    side: &SideSpec,
    role: &str,
    vars: &BTreeMap<String, String>,
    fetcher: &Fetcher,
    notes: &mut Notes,
) -> Result<Vec<(Points, Launch)>, Error> {
    let root = location_of(&ix.root)?;
    let mut env = vars.clone();
    env.extend(side.env.clone());
    let expanded = extract::inferencex::expand_with_env(
        &root,
        &ix.entry,
        &ix.filter_strings(),
        &env,
        fetcher,
    )?;
    if let Some(why) = &expanded.unmatched {
        return Err(match &ix.filter_at {
            Some(span) => Error::Input {
                span: span.clone(),
                message: format!("the {role} side's where: {why}"),
            },
            None => Error::usage(format!("the {role} side's where: {why}")),
        });
    }
    for name in unread_env(&expanded) {
        // Only the side's own env is warned about: `--env` is for both sides.
        if let Some(value) = side.env.get(&name) {
            notes.warnings.push(Remark {
                span: ix.env_at.clone(),
                message: format!(
                    "the {role} side's env {name}={value} was read by no script of entry {} and is not an environment variable its engine is known to read",
                    ix.entry
                ),
            });
        }
    }
    if expanded.points.is_empty() {
        return Err(Error::usage(format!(
            "the {role} side: no point of entry {} matches where {:?}",
            ix.entry,
            ix.filter_strings()
        )));
    }
    for p in &expanded.points {
        for a in &p.auxiliary {
            let note = Remark {
                span: a.span.clone(),
                message: format!("the {role} side also starts {a}"),
            };
            if !notes.auxiliary.contains(&note) {
                notes.auxiliary.push(note);
            }
        }
    }
    // Group points whose launches are written identically.
    let mut groups: Vec<(String, Points, Launch)> = Vec::new();
    for p in expanded.points {
        let fields = p.fields.clone();
        let label: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let launch = match (p.launches.len(), p.unsupported.first()) {
            (1, _) => p.launches.into_iter().next().unwrap(),
            (0, Some(u)) => {
                return Err(Error::usage(format!(
                    "the {role} side cannot be compared: {u}"
                )));
            }
            (n, _) => {
                return Err(Error::usage(format!(
                    "entry {} point {}: the script {} starts {n} servers; a link needs exactly one",
                    ix.entry,
                    label.join(" "),
                    p.script
                )));
            }
        };
        let key = launch.written_key();
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(fields),
            None => groups.push((key, vec![fields], launch)),
        }
    }
    Ok(groups
        .into_iter()
        .map(|(_, points, launch)| (points, launch))
        .collect())
}

fn load_file_side(
    side: &SideSpec,
    role: &str,
    vars: &BTreeMap<String, String>,
    fetcher: &Fetcher,
) -> Result<Launch, Error> {
    let mut vars = vars.clone();
    vars.extend(side.env.clone());
    let file = side
        .file
        .as_ref()
        .ok_or_else(|| Error::usage(format!("the {role} side names no file")))?;
    let opts = extract::Options {
        vars,
        select: side.select_strings(),
        docs_root: side.docs_root.clone(),
        ..extract::Options::default()
    };
    let location = location_of(file)?;
    let found = extract::extract(&location, &opts, fetcher)?;
    let launches = found.launches;
    if launches.is_empty()
        && let Some(u) = found.unsupported.first()
    {
        return Err(Error::usage(format!(
            "the {role} side cannot be compared: {u}"
        )));
    }
    // On the error's one line (an error never spans lines: a newline in
    // it would be escaped, as input text could forge lines).
    let list = |msg: &mut String| {
        for (i, l) in launches.iter().enumerate() {
            let sep = if i == 0 { " " } else { "; " };
            let _ = write!(msg, "{sep}{}: {} `{}`", i + 1, l.span, l.launcher_text());
        }
    };
    match (side.launch, launches.len()) {
        (_, 0) => Err(Error::Input {
            span: crate::span::Span::start_of(&location.origin()),
            message: format!("no serve command found in the {role} file"),
        }),
        (None, 1) => {
            // Another launch that is not modelled may be the one that runs:
            // comparing the only modelled one would be a guess.
            if let Some(u) = found
                .unsupported
                .iter()
                .find(|u| u.contains(crate::launch::NOT_MODELLED))
            {
                let mut msg = format!(
                    "the {role} file has a serve command and {u}; choose the serve command with --{role}-launch 1 (`launch: 1` on the link's {role} side in a config):"
                );
                list(&mut msg);
                return Err(Error::Input {
                    span: launches[0].span.clone(),
                    message: msg,
                });
            }
            Ok(launches.into_iter().next().unwrap())
        }
        (None, n) => {
            let mut msg = format!(
                "the {role} file has {n} serve commands; choose one with --{role}-launch N (`launch: N` on the link's {role} side in a config):"
            );
            list(&mut msg);
            Err(Error::Input {
                span: launches[0].span.clone(),
                message: msg,
            })
        }
        (Some(k), n) if k >= 1 && k <= n => Ok(launches.into_iter().nth(k - 1).unwrap()),
        (Some(k), n) => {
            let mut msg = format!(
                "launch {k} requested, but the {role} file has {n} serve command{} (numbered from 1):",
                if n == 1 { "" } else { "s" }
            );
            list(&mut msg);
            Err(Error::Input {
                span: launches[0].span.clone(),
                message: msg,
            })
        }
    }
}

/// Runs one link: loads both sides, pairs their launches, resolves and
/// compares each pair; pairs with the same MAJOR outcome are one report.
pub(crate) fn run_link(
    name: &str,
    docs: &SideSpec,
    recipe: &SideSpec,
    ctx: &Overrides,
    vars: &BTreeMap<String, String>,
    policy: &Policy,
    fetcher: &Fetcher,
) -> Result<Vec<LinkReport>, Error> {
    let mut notes = Notes::default();
    let loads = ctx.loads.as_deref();
    let dls = load_side(docs, "docs", vars, fetcher, loads, &mut notes)?;
    let rls = load_side(recipe, "recipe", vars, fetcher, loads, &mut notes)?;
    // Pairs whose findings and resolved MAJOR values are the same are one report.
    let mut merged: Vec<(String, Points, Points, LinkReport)> = Vec::new();
    let single = dls.len() * rls.len() == 1;
    for (dpoints, dl) in &dls {
        let mut seen = DocsResolutions::default();
        for (rpoints, rl) in &rls {
            let mut report = run_pair(
                name,
                dl.clone(),
                rl.clone(),
                docs,
                recipe,
                ctx,
                policy,
                &mut seen,
                None,
            )?;
            let sig = settle(&mut report, !single, policy);
            match merged.iter_mut().find(|m| m.0 == sig) {
                Some(m) => {
                    m.1.extend(dpoints.iter().cloned());
                    m.2.extend(rpoints.iter().cloned());
                }
                None => merged.push((sig, dpoints.clone(), rpoints.clone(), report)),
            }
        }
    }
    Ok(merged
        .into_iter()
        .map(|(_, dp, rp, mut report)| {
            report.warnings = notes.warnings.clone();
            report.auxiliary = notes.auxiliary.clone();
            report.name = match (
                crate::space::points_label(&dp),
                crate::space::points_label(&rp),
            ) {
                (None, None) => name.to_string(),
                (Some(a), None) | (None, Some(a)) => format!("{name} [{a}]"),
                (Some(a), Some(b)) => format!("{name} [docs {a}; recipe {b}]"),
            };
            report
        })
        .collect())
}

/// Readies a compared pair for keeping: its merge [`signature`] (empty when
/// it has nothing to be merged with, `merges` false), taken before its report
/// drops the values it does not show ([`LinkReport::keep_reported`]).
pub(crate) fn settle(report: &mut LinkReport, merges: bool, policy: &Policy) -> String {
    let sig = if merges {
        signature(report, policy)
    } else {
        String::new()
    };
    report.keep_reported();
    sig
}

/// What makes two compared pairs one report: the same MAJOR findings and MAJOR
/// values (minor differences between the points, such as concurrency-derived
/// limits, are shown for the first point only).
fn signature(r: &LinkReport, policy: &Policy) -> String {
    let mut s = String::new();
    for f in r
        .comparison
        .findings
        .iter()
        .filter(|f| f.class == crate::policy::Class::Major)
    {
        let _ = write!(
            s,
            "{}:{:?}:{}:{};",
            f.key,
            f.kind,
            f.docs.val.display(),
            f.recipe.val.display()
        );
    }
    for side in [&r.docs.resolved, &r.recipe.resolved] {
        for (k, e) in &side.values {
            if policy.class(k) == crate::policy::Class::Major {
                let _ = write!(s, "{k}={};", e.val.display());
            }
        }
        s.push('|');
    }
    s
}

/// The docs side's resolutions one docs deployment has had, by the context
/// it borrowed from its partner (release and platform): the recipe points it
/// is compared with mostly lend it the same, so it is resolved once for them.
#[derive(Default)]
pub(crate) struct DocsResolutions(Vec<(String, (Resolved, bool))>);

/// The recipe deployments' resolutions a pairing run has made, shared by its
/// workers: a recipe point paired with many docs deployments (a generator's
/// states) is resolved once per release and platform it borrows. Holds at
/// most [`MAX_SHARED_RESOLUTIONS`] (then resolves again rather than grow).
#[derive(Default)]
pub(crate) struct RecipeResolutions(std::sync::Mutex<BTreeMap<String, (Resolved, bool)>>);

/// The most recipe resolutions a run keeps ([`RecipeResolutions`]): real
/// corpora pair a few hundred recipe deployments.
pub(crate) const MAX_SHARED_RESOLUTIONS: usize = 4096;

/// Compares one docs launch with one recipe launch: each side borrows the
/// release and platform the other names when it names none, both are
/// resolved and compared. The docs side's resolution is taken from `seen`
/// when the docs launch borrowed the same context before (the same docs
/// deployment compared with another recipe point).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_pair(
    name: &str,
    dl: Launch,
    rl: Launch,
    docs: &SideSpec,
    recipe: &SideSpec,
    ctx: &Overrides,
    policy: &Policy,
    seen: &mut DocsResolutions,
    shared: Option<(&RecipeResolutions, usize)>,
) -> Result<LinkReport, Error> {
    let dopts = options(ctx, docs)?;
    let ropts = options(ctx, recipe)?;
    let mut dl = dl;
    let mut rl = rl;
    borrow_version(&mut dl, &dopts, &rl, &ropts, "recipe");
    borrow_version(&mut rl, &ropts, &dl, &dopts, "docs");
    borrow_platform(&mut dl, &dopts, &rl, &ropts, "recipe");
    borrow_platform(&mut rl, &ropts, &dl, &dopts, "docs");
    own_evidence_wins(&mut dl, &dopts, "recipe");
    own_evidence_wins(&mut rl, &ropts, "docs");
    // A side its release refuses is a finding (a startup error at the
    // refused word). The rest of its command is compared, as a reviewer
    // reads on; only a command refused whole has no values to compare.
    let key = format!("{:?}|{:?}", dl.context.engine_version, dl.context.platform);
    let (dr, drefused) = match seen.0.iter().find(|(k, _)| *k == key) {
        Some((_, r)) => r.clone(),
        None => {
            let r = resolve_side(&dl, &dopts)?;
            seen.0.push((key, r.clone()));
            r
        }
    };
    let (rr, rrefused) = match shared {
        Some((cache, index)) => {
            let key = format!(
                "{index}|{:?}|{:?}",
                rl.context.engine_version, rl.context.platform
            );
            let hit = cache.0.lock().ok().and_then(|m| m.get(&key).cloned());
            match hit {
                Some(r) => r,
                None => {
                    let r = resolve_side(&rl, &ropts)?;
                    if let Ok(mut m) = cache.0.lock()
                        && m.len() < MAX_SHARED_RESOLUTIONS
                    {
                        m.insert(key, r.clone());
                    }
                    r
                }
            }
        }
        None => resolve_side(&rl, &ropts)?,
    };
    let comparison = if drefused || rrefused {
        Comparison::default()
    } else {
        let (d, r) = crate::engine::respelled(&dr, &rr);
        compare(&d, &r, policy)
    };
    Ok(LinkReport {
        name: name.to_string(),
        docs: SideReport {
            launch: dl,
            resolved: dr,
        },
        recipe: SideReport {
            launch: rl,
            resolved: rr,
        },
        comparison,
        waivers: Filtered::default(),
        warnings: Vec::new(),
        auxiliary: Vec::new(),
        pair: None,
        newer_release: match policy.newer_release() {
            Some(crate::policy::Level::Error) => Severity::Error,
            Some(crate::policy::Level::Info) => Severity::Info,
            Some(crate::policy::Level::Warning) | None => Severity::Warning,
        },
    })
}

/// One side resolved, and whether its release refuses it whole (then the
/// refusal is its one startup error and it has no values). A refused word the
/// rest can be read without is set aside: a startup error at the word, the
/// rest compared (`engine::resolve_rest`).
fn resolve_side(launch: &Launch, opts: &ResolveOptions) -> Result<(Resolved, bool), Error> {
    match engine::resolve_rest(launch, opts) {
        Ok(r) => Ok((r, false)),
        Err(engine::ResolveError::Refused(r)) => Ok((r.resolved(launch.engine), true)),
        Err(engine::ResolveError::Failed(e)) => Err(e),
    }
}

/// A side that names no engine version and runs no image runs the other
/// side's version (or, when that side names none but runs a nightly or dated
/// image, that image's release line), and says so. A side whose image names
/// what it runs keeps it: a `latest` image runs the newest release, a custom
/// build or a development image its own build, whatever the other side pins
/// (borrowing would judge it by a release it does not run, refusing what its
/// newer release accepts).
fn borrow_version(
    side: &mut Launch,
    opts: &ResolveOptions,
    other: &Launch,
    other_opts: &ResolveOptions,
    other_role: &str,
) {
    if opts.engine_version.is_some()
        || side.context.engine_version.is_some()
        || side.context.image.is_some()
    {
        return;
    }
    let theirs = other_opts.engine_version.clone().or_else(|| {
        other
            .context
            .engine_version
            .as_ref()
            .map(|k| k.value.clone())
    });
    if let Some(v) = theirs {
        side.context.engine_version = Some(crate::launch::Known {
            value: v,
            from: format!("the {other_role} side's version (this side names none)"),
        });
    } else if let Some(img) = other
        .context
        .image
        .as_ref()
        .filter(|i| engine::is_development_image(&i.value))
    {
        // The other side runs a nightly or dated image, which names no
        // version but a release line: this side runs that line too (else the
        // two would be judged by different releases, and their defaults
        // would differ where the commands do not).
        side.context.image = Some(crate::launch::Known {
            value: img.value.clone(),
            from: format!(
                "the {other_role} side's image, {}; this side names no version",
                img.from
            ),
        });
    }
}

/// A side that borrowed the other side's release but uses options that
/// release refuses (a newer option, a renamed one) runs a later release: the
/// first bundled release after the borrowed one whose parser accepts its
/// command, and the version says why. The command's own words are evidence
/// of the release it was written for; borrowing only fills a gap.
fn own_evidence_wins(side: &mut Launch, opts: &ResolveOptions, other_role: &str) {
    let Some(borrowed) = side.context.engine_version.clone() else {
        return;
    };
    if opts.engine_version.is_some()
        || !borrowed
            .from
            .starts_with(&format!("the {other_role} side's version"))
    {
        return;
    }
    let parser_refuses = |l: &Launch| match engine::resolve_rest(l, opts) {
        Ok(r) => r
            .startup_errors
            .iter()
            .any(|e| e.rule == engine::PARSER_RULE),
        Err(engine::ResolveError::Refused(_)) => true,
        Err(engine::ResolveError::Failed(_)) => false,
    };
    if !parser_refuses(side) {
        return;
    }
    let Some(eng) = engine::by_name(side.engine.name()) else {
        return;
    };
    let Ok(from) = pep440_rs::Version::from_str(&borrowed.value) else {
        return;
    };
    for name in eng.release_names() {
        if pep440_rs::Version::from_str(&name).is_ok_and(|v| v > from) {
            let mut trial = side.clone();
            trial.context.engine_version = Some(crate::launch::Known {
                value: name.clone(),
                from: String::new(),
            });
            if !parser_refuses(&trial) {
                side.context.engine_version = Some(crate::launch::Known {
                    value: name,
                    from: format!(
                        "the first bundled release after the {other_role} side's {} whose parser accepts this command ({} refuses a word of it)",
                        borrowed.value, borrowed.value
                    ),
                });
                return;
            }
        }
    }
}

/// A side that names neither hardware nor platform runs on the other side's platform.
fn borrow_platform(
    side: &mut Launch,
    opts: &ResolveOptions,
    other: &Launch,
    other_opts: &ResolveOptions,
    other_role: &str,
) {
    if opts.platform.is_some() || opts.hardware.is_some() || side.context.platform.is_some() {
        return;
    }
    let theirs = other_opts
        .platform
        .or_else(|| {
            other_opts
                .hardware
                .as_deref()
                .and_then(crate::hardware::platform_of)
        })
        .or_else(|| other.context.platform.as_ref().map(|k| k.value));
    if let Some(p) = theirs {
        side.context.platform = Some(crate::launch::Known {
            value: p,
            from: format!("the {other_role} side's platform (this side names none)"),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report keeps the values its normalised commands and findings show,
    /// not the release's whole option table (which made 10,000 links take
    /// 5 GiB).
    #[test]
    fn a_report_keeps_only_what_it_shows() {
        // One scratch folder, removed when the test ends (it left a folder
        // per run in the system's temporary folder).
        let scratch = tempfile::tempdir().unwrap();
        let spec = |text: &str| {
            let dir = scratch.path().join(text.len().to_string());
            std::fs::create_dir_all(&dir).unwrap();
            let file = dir.join("cmd.txt");
            std::fs::write(&file, text).unwrap();
            SideSpec {
                file: Some(file),
                ..SideSpec::default()
            }
        };
        let docs = spec("sglang serve --model-path org/m --tp 4\n");
        let recipe = spec("python3 -m sglang.launch_server --model-path org/m --tp 8\n");
        let ctx = Overrides {
            engine_version: Some("0.5.19".into()),
            ..Overrides::default()
        };
        let policy = Policy::default();
        let fetcher = Fetcher::new(crate::fetch::FetchOptions {
            offline: true,
            cache_dir: Some(scratch.path().join("cache")),
            ..crate::fetch::FetchOptions::default()
        });
        let full = run_pair(
            "t",
            load_file_side(&docs, "docs", &BTreeMap::new(), &fetcher).unwrap(),
            load_file_side(&recipe, "recipe", &BTreeMap::new(), &fetcher).unwrap(),
            &docs,
            &recipe,
            &ctx,
            &policy,
            &mut DocsResolutions::default(),
            None,
        )
        .unwrap();
        let before = full.docs.resolved.values.len();
        let reports = run_link(
            "t",
            &docs,
            &recipe,
            &ctx,
            &BTreeMap::new(),
            &policy,
            &fetcher,
        )
        .unwrap();
        let kept = &reports[0];
        assert!(
            before > 200,
            "a full resolution lists every option: {before}"
        );
        assert!(
            kept.docs.resolved.values.len() < 60,
            "{}",
            kept.docs.resolved.values.len()
        );
        assert!(kept.docs.resolved.values.contains_key("tp_size"));
        assert!(kept.comparison.findings.iter().any(|f| f.key == "tp_size"));
        // Every value the text decides is kept, as it was.
        for (k, e) in full
            .docs
            .resolved
            .values
            .iter()
            .filter(|(_, e)| e.is_decided())
        {
            assert_eq!(
                kept.docs.resolved.values.get(k).map(|k| &k.val),
                Some(&e.val),
                "{k}"
            );
        }
    }
}

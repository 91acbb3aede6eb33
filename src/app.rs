//! The commands: glue between the CLI and the pipeline (extract -> resolve ->
//! compare -> report). Returns the exit code.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;
use std::sync::Arc;

use serde_json::json;

use crate::cli::{Cli, Command, ContextArgs, RemoteArgs};
use crate::compare::compare;
use crate::engine::{self, ParseFailure};
use crate::error::Error;
use crate::extract;
use crate::fetch::{FetchOptions, Fetcher};
use crate::launch::{Context, Engine, Launch, Platform, Provenance, Token};
use crate::manifest::{Manifest, SideSpec};
use crate::policy::Policy;
use crate::report::{self, Format, LinkReport, ReportFormat, SideReport};
use crate::resolved::{self, ResolveOptions, Val};
use crate::source::{Location, Origin, Source};

/// What a command prints and its exit code (0 or 1).
pub struct Output {
    /// Exit code: 0 no MAJOR drift, 1 MAJOR drift.
    pub code: u8,
    /// Text for standard output.
    pub stdout: String,
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<Output, Error> {
    match cli.command {
        Command::Compare {
            docs,
            recipe,
            docs_launch,
            recipe_launch,
            env,
            select,
            docs_root,
            context,
            remote,
            format,
        } => {
            let vars = parse_kv(&env)?;
            let fetcher = fetcher(&remote, &[]);
            let side = |file: &Path, launch| SideSpec {
                file: Some(file.to_path_buf()),
                launch,
                ..SideSpec::default()
            };
            let mut docs_side = side(&docs, docs_launch);
            for (k, v) in extract::jsx::parse_selections(&select)? {
                docs_side.select.insert(k, serde_json::Value::String(v));
            }
            docs_side.docs_root = docs_root;
            let policy = Policy::default();
            let name = format!("{} <-> {}", docs.display(), recipe.display());
            let l = run_link(
                &name,
                &docs_side,
                &side(&recipe, recipe_launch),
                &context,
                &vars,
                &policy,
                &fetcher,
            )?;
            emit(&l, &[], &[], &[], format, &policy)
        }
        Command::Check {
            config,
            format,
            no_waivers,
            remote,
            changed_from,
            files,
        } => {
            let path = match config.or_else(Manifest::discover) {
                Some(p) => p,
                None => {
                    return Err(Error::usage(
                        "no config file: pass --config FILE, or add .recipe-drift.yaml here or in .github/",
                    ));
                }
            };
            let m = Manifest::load(&path)?;
            validate_policy(&m.policy, &path)?;
            let waivers = if no_waivers { &[][..] } else { &m.waivers[..] };
            let known = known_keys();
            let names: Vec<&str> = m.links.iter().map(|l| l.name.as_str()).collect();
            crate::waiver::validate(
                waivers,
                &names,
                |k| k.starts_with("env:") || known.contains(k),
                |needle| config_position(&path, "waivers:", needle),
            )?;
            let today = if waivers.is_empty() {
                None
            } else {
                Some(crate::waiver::Date::today()?)
            };
            let policy = Policy::with_overrides(m.policy.clone());
            let fetcher = fetcher(&remote, &m.allow_hosts);
            // Only what changed: the links whose files are among the changed ones.
            let changed = match changed_from {
                Some(rev) => Some(crate::changed::git_changed(&rev, &path)?),
                None if !files.is_empty() => Some(files),
                None => None,
            };
            let skip = match &changed {
                Some(c) => crate::changed::select(&m.links, &path, c),
                None => vec![None; m.links.len()],
            };
            let mut reports = Vec::new();
            let mut failures = Vec::new();
            let mut skipped = Vec::new();
            let mut outcomes = match today {
                Some(today) => crate::waiver::expired(waivers, today),
                None => Vec::new(),
            };
            for (link, skip) in m.links.iter().zip(skip) {
                if let Some(reason) = skip {
                    skipped.push(report::Skipped {
                        name: link.name.clone(),
                        reason,
                    });
                    continue;
                }
                let ctx = ContextArgs {
                    engine_version: link.engine_version.clone(),
                    hardware: link.hardware.clone(),
                    platform: None,
                    origin: Some(path.display().to_string()),
                };
                // One broken link does not hide the others.
                match run_link(
                    &link.name,
                    &link.docs,
                    &link.recipe,
                    &ctx,
                    &BTreeMap::new(),
                    &policy,
                    &fetcher,
                ) {
                    Ok(mut r) => {
                        if let Some(today) = today {
                            outcomes
                                .extend(crate::waiver::apply(&link.name, &mut r, waivers, today));
                        }
                        reports.extend(r)
                    }
                    Err(e) => failures.push(report::Failure {
                        name: link.name.clone(),
                        error: e.to_string(),
                    }),
                }
            }
            let mut out = emit(&reports, &failures, &skipped, &outcomes, format, &policy)?;
            if outcomes.iter().any(|o| o.is_error()) {
                out.code = out.code.max(1);
            }
            if !failures.is_empty() {
                out.code = 2;
            }
            Ok(out)
        }
        Command::Extract {
            file,
            inferencex,
            entry,
            filter,
            env,
            select,
            all_selections,
            hardware_scope,
            docs_root,
            js_time_limit,
            remote,
            format,
        } => {
            let fetcher = fetcher(&remote, &[]);
            let limits = extract::jsx::Limits {
                time: std::time::Duration::from_millis(js_time_limit),
                ..extract::jsx::Limits::default()
            };
            let vars = parse_kv(&env)?;
            if let (Some(root), Some(entry)) = (inferencex, entry) {
                let filter = parse_kv(&filter)?;
                let root = Location::parse(&root.to_string_lossy())?;
                let expanded = extract::inferencex::expand_in(&root, &entry, &filter, &fetcher)?;
                return Ok(Output {
                    code: 0,
                    stdout: render_points(&expanded, format),
                });
            }
            let file = file.ok_or_else(|| Error::usage("extract needs FILE or --inferencex"))?;
            if all_selections && extract::is_recipe_yaml(&file) {
                let composed = extract::vllm_recipe_selections(&file, &hardware_scope)?;
                return Ok(Output {
                    code: 0,
                    stdout: render_recipe_selections(&file, &composed, format),
                });
            }
            if all_selections {
                let (bundle, views) = extract::jsx::explore_file(
                    &file,
                    docs_root.as_deref(),
                    limits,
                    extract::jsx::MAX_STATES,
                )?;
                return Ok(Output {
                    code: 0,
                    stdout: render_selections(&bundle, &views, format),
                });
            }
            let opts = extract::FileOptions {
                vars,
                select: extract::jsx::parse_selections(&select)?,
                docs_root,
                limits,
            };
            let found = match Location::parse(&file.to_string_lossy())? {
                Location::Path(p) => extract::extract_file_with(&p, &opts)?,
                remote => extract::extract_remote(&remote, &opts, &fetcher)?,
            };
            Ok(Output {
                code: 0,
                stdout: render_launches(&found.launches, &found.unsupported, format),
            })
        }
        Command::Resolve {
            engine,
            context,
            raw,
            format,
            argv,
        } => resolve_cmd(&engine, &context, raw, format, argv),
        Command::Discover {
            root,
            docs_root,
            recipes_root,
            format,
        } => Ok(Output {
            code: 0,
            stdout: crate::discover::run(&crate::discover::Options {
                root,
                docs_root,
                recipes_root,
                json: format == crate::cli::DiscoverFormat::Json,
            })?,
        }),
        Command::Explain { keys } => Ok(Output {
            code: 0,
            stdout: crate::explain::explain(&keys)?,
        }),
    }
}

/// The fetcher for remote files, from the flags plus a config's `allow-hosts`.
fn fetcher(args: &RemoteArgs, config_hosts: &[String]) -> Fetcher {
    let mut allow_hosts = args.allow_hosts.clone();
    allow_hosts.extend(config_hosts.iter().cloned());
    Fetcher::new(FetchOptions {
        cache_dir: args.cache_dir.clone(),
        offline: args.offline,
        allow_hosts,
        ..FetchOptions::default()
    })
}

/// Renders the reports; with `--format github` and `$GITHUB_STEP_SUMMARY` set,
/// also appends the Markdown summary to that file (exit 2 if it cannot).
fn emit(
    reports: &[LinkReport],
    failures: &[report::Failure],
    skipped: &[report::Skipped],
    waivers: &[crate::waiver::Outcome],
    format: ReportFormat,
    policy: &Policy,
) -> Result<Output, Error> {
    let text = report::render(format, reports, failures, skipped, waivers, policy);
    if format == ReportFormat::Github
        && let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty())
    {
        let summary = report::markdown::render(reports, failures, skipped, waivers, policy);
        append(Path::new(&path), &summary).map_err(|e| {
            Error::usage(format!(
                "cannot append the job summary to {} ($GITHUB_STEP_SUMMARY): {e}",
                Path::new(&path).display()
            ))
        })?;
    }
    let drift = reports.iter().any(|l| report::json::status(l) == "drift");
    Ok(Output {
        code: if drift { 1 } else { 0 },
        stdout: text,
    })
}

/// Appends `text` to a file, creating it if needed; a blank line separates it from
/// what the file already holds.
fn append(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    let sep = if f.metadata()?.len() > 0 { "\n" } else { "" };
    f.write_all(format!("{sep}{text}").as_bytes())?;
    f.flush()
}

/// Every canonical key of every engine's bundled releases.
fn known_keys() -> std::collections::BTreeSet<String> {
    engine::all_keys()
}

/// `file:line:col` of `needle` after `section` in a config file (its start
/// when not found).
fn config_position(path: &Path, section: &str, needle: &str) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let from = text.find(section).unwrap_or(0);
    let offset = text[from..].find(needle).map(|o| o + from).unwrap_or(from);
    let src = Source::new(Origin::File(path.to_path_buf()), text.clone());
    src.span(offset, offset).to_string()
}

/// Checks a config's policy entries: each names a known key (or `env:NAME`), or is
/// a `*` pattern that matches one; no key is in two classes.
fn validate_policy(lists: &crate::policy::ClassLists, path: &Path) -> Result<(), Error> {
    let at = |entry: &str| config_position(path, "policy:", entry);
    let known = known_keys();
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for (class, entries) in [
        ("major", &lists.major),
        ("minor", &lists.minor),
        ("ignore", &lists.ignore),
    ] {
        for e in entries {
            let ok = if e.contains('*') {
                e.starts_with("env:") || known.iter().any(|k| crate::policy::glob(e, k))
            } else {
                e.starts_with("env:") || known.contains(e)
            };
            if !ok {
                let hint = engine::registry()
                    .iter()
                    .find_map(|en| match en.key(e) {
                        Ok(k) => Some(format!(" (did you mean {k}?)")),
                        Err(engine::KeyError::Unknown { suggestions, .. })
                            if !suggestions.is_empty() =>
                        {
                            Some(format!(" (did you mean {}?)", suggestions.join(", ")))
                        }
                        Err(_) => None,
                    })
                    .unwrap_or_default();
                return Err(Error::Input {
                    at: at(e),
                    message: format!(
                        "policy.{class}: {e:?} is not a canonical key of any bundled release{hint}; see `recipe-drift explain`"
                    ),
                });
            }
            if let Some(other) = seen.insert(e.as_str(), class)
                && other != class
            {
                return Err(Error::Input {
                    at: at(e),
                    message: format!("policy: {e:?} is in both {other} and {class}"),
                });
            }
        }
    }
    Ok(())
}

/// Parses `K=V` flags.
pub fn parse_kv(items: &[String]) -> Result<BTreeMap<String, String>, Error> {
    let mut out = BTreeMap::new();
    for it in items {
        match it.split_once('=') {
            Some((k, v)) if !k.is_empty() => {
                out.insert(k.to_string(), v.to_string());
            }
            _ => return Err(Error::usage(format!("expected K=V, got {it:?}"))),
        }
    }
    Ok(out)
}

fn options(ctx: &ContextArgs, side: &SideSpec) -> Result<ResolveOptions, Error> {
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
        match (Platform::from_hardware(h), platform) {
            (None, None) => {
                return Err(Error::usage(format!(
                    "{}: unknown hardware SKU {h:?}; known: mi300x, mi325x, mi355x, h100, h200, b200, b300, gb200, gb300, rtx6000pro, xeon (give --platform with other SKUs)",
                    from("hardware")
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
    })
}

/// The launches a side stands for, each with a label when there are several
/// (matrix points with identical launches are grouped).
fn load_side(
    side: &SideSpec,
    role: &str,
    vars: &BTreeMap<String, String>,
    fetcher: &Fetcher,
) -> Result<Vec<(Points, Launch)>, Error> {
    if let Some(ix) = &side.inferencex {
        return load_inferencex(ix, role, fetcher);
    }
    load_file_side(side, role, vars, fetcher).map(|l| vec![(Vec::new(), l)])
}

/// Matrix points (their search-space fields) a launch stands for; empty for a file.
type Points = Vec<BTreeMap<String, String>>;

/// `k=v1,v2 ...` over the fields of some points.
fn points_label(points: &Points) -> Option<String> {
    if points.is_empty() {
        return None;
    }
    let mut summary: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for p in points {
        for (k, v) in p {
            let vs = summary.entry(k.clone()).or_default();
            if !vs.contains(v) {
                vs.push(v.clone());
            }
        }
    }
    let text: Vec<String> = summary
        .iter()
        .map(|(k, v)| format!("{k}={}", v.join(",")))
        .collect();
    Some(format!(
        "{} point{}: {}",
        points.len(),
        if points.len() == 1 { "" } else { "s" },
        text.join(" ")
    ))
}

fn load_inferencex(
    ix: &crate::manifest::InferencexSpec,
    role: &str,
    fetcher: &Fetcher,
) -> Result<Vec<(Points, Launch)>, Error> {
    let root = Location::parse(&ix.root.to_string_lossy())?;
    let expanded = extract::inferencex::expand_in(&root, &ix.entry, &ix.filter_strings(), fetcher)?;
    if expanded.points.is_empty() {
        return Err(Error::usage(format!(
            "the {role} side: no point of entry {} matches where {:?}",
            ix.entry,
            ix.filter_strings()
        )));
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
        let key = format!(
            "{:?}|{:?}",
            launch.argv.iter().map(|t| &t.text).collect::<Vec<_>>(),
            launch
                .env
                .iter()
                .map(|e| (&e.name, &e.value))
                .collect::<Vec<_>>()
        );
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
    let opts = extract::FileOptions {
        vars,
        select: side.select_strings(),
        docs_root: side.docs_root.clone(),
        limits: extract::jsx::Limits::default(),
    };
    let location = Location::parse(&file.to_string_lossy())?;
    let found = match &location {
        Location::Path(p) => extract::extract_file_with(p, &opts)?,
        remote => extract::extract_remote(remote, &opts, fetcher)?,
    };
    let launches = found.launches;
    let label = location.display();
    if launches.is_empty()
        && let Some(u) = found.unsupported.first()
    {
        return Err(Error::usage(format!(
            "the {role} side cannot be compared: {u}"
        )));
    }
    let list = |msg: &mut String| {
        for (i, l) in launches.iter().enumerate() {
            let _ = write!(msg, "\n  {}: {} `{}`", i + 1, l.span, l.launcher_text());
        }
    };
    match (side.launch, launches.len()) {
        (_, 0) => Err(Error::Input {
            at: format!("{label}:1:1"),
            message: format!("no serve command found in the {role} file"),
        }),
        (None, 1) => Ok(launches.into_iter().next().unwrap()),
        (None, n) => {
            let mut msg = format!(
                "the {role} file has {n} serve commands; choose one with --{role}-launch N (`launch: N` on the link's {role} side in a config):"
            );
            list(&mut msg);
            Err(Error::Input {
                at: launches[0].span.to_string(),
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
                at: launches[0].span.to_string(),
                message: msg,
            })
        }
    }
}

fn run_link(
    name: &str,
    docs: &SideSpec,
    recipe: &SideSpec,
    ctx: &ContextArgs,
    vars: &BTreeMap<String, String>,
    policy: &Policy,
    fetcher: &Fetcher,
) -> Result<Vec<LinkReport>, Error> {
    let dls = load_side(docs, "docs", vars, fetcher)?;
    let rls = load_side(recipe, "recipe", vars, fetcher)?;
    // Pairs whose findings and resolved MAJOR values are the same are one report.
    let mut merged: Vec<(String, Points, Points, LinkReport)> = Vec::new();
    for (dpoints, dl) in &dls {
        for (rpoints, rl) in &rls {
            let report = run_pair(name, dl.clone(), rl.clone(), docs, recipe, ctx, policy)?;
            let sig = signature(&report, policy);
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
            report.name = match (points_label(&dp), points_label(&rp)) {
                (None, None) => name.to_string(),
                (Some(a), None) | (None, Some(a)) => format!("{name} [{a}]"),
                (Some(a), Some(b)) => format!("{name} [docs {a}; recipe {b}]"),
            };
            report
        })
        .collect())
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

fn run_pair(
    name: &str,
    dl: Launch,
    rl: Launch,
    docs: &SideSpec,
    recipe: &SideSpec,
    ctx: &ContextArgs,
    policy: &Policy,
) -> Result<LinkReport, Error> {
    let dopts = options(ctx, docs)?;
    let ropts = options(ctx, recipe)?;
    let mut dl = dl;
    let mut rl = rl;
    borrow_version(&mut dl, &dopts, &rl, &ropts, "recipe");
    borrow_version(&mut rl, &ropts, &dl, &dopts, "docs");
    borrow_platform(&mut dl, &dopts, &rl, &ropts, "recipe");
    borrow_platform(&mut rl, &ropts, &dl, &dopts, "docs");
    let dr = engine::resolve(&dl, &dopts)?;
    let rr = engine::resolve(&rl, &ropts)?;
    let comparison = compare(&dr, &rr, policy);
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
    })
}

/// A side that names no engine version runs the other side's, and says so.
fn borrow_version(
    side: &mut Launch,
    opts: &ResolveOptions,
    other: &Launch,
    other_opts: &ResolveOptions,
    other_role: &str,
) {
    if opts.engine_version.is_some() || side.context.engine_version.is_some() {
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
                .and_then(Platform::from_hardware)
        })
        .or_else(|| other.context.platform.as_ref().map(|k| k.value));
    if let Some(p) = theirs {
        side.context.platform = Some(crate::launch::Known {
            value: p,
            from: format!("the {other_role} side's platform (this side names none)"),
        });
    }
}

fn render_points(e: &extract::inferencex::Expanded, format: Format) -> String {
    match format {
        Format::Json => {
            let doc = json!({
                "schema_version": report::json::SCHEMA_VERSION,
                "entry": e.entry,
                "config": e.config,
                "points": e.points,
            });
            let mut s = serde_json::to_string_pretty(&doc).expect("serializable");
            s.push('\n');
            s
        }
        Format::Human => {
            let mut out = format!(
                "entry {} ({}): {} points\n",
                e.entry,
                e.config,
                e.points.len()
            );
            for (i, p) in e.points.iter().enumerate() {
                let fields: Vec<String> =
                    p.fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
                let _ = writeln!(
                    out,
                    "\npoint {}: {}\n  script: {}",
                    i + 1,
                    fields.join(" "),
                    p.script
                );
                for (k, r) in &p.unknown_env {
                    let _ = writeln!(out, "  unknown env {k}: {r}");
                }
                out.push_str(&render_launches(&p.launches, &p.unsupported, Format::Human));
            }
            out
        }
    }
}

fn render_launches(launches: &[Launch], unsupported: &[String], format: Format) -> String {
    match format {
        Format::Json => {
            let doc = json!({
                "schema_version": report::json::SCHEMA_VERSION,
                "launches": launches,
                "unsupported": unsupported,
            });
            let mut s = serde_json::to_string_pretty(&doc).expect("serializable");
            s.push('\n');
            s
        }
        Format::Human => {
            let mut out = String::new();
            for (i, l) in launches.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "launch {}: {} ({}) at {}",
                    i + 1,
                    l.launcher_text(),
                    l.engine,
                    l.span
                );
                if let Some(img) = &l.context.image {
                    let _ = writeln!(out, "  image: {}", img.value);
                }
                if let Some(v) = &l.context.engine_version {
                    let _ = writeln!(out, "  engine version: {} ({})", v.value, v.from);
                }
                if let Some(p) = &l.context.platform {
                    let _ = writeln!(out, "  platform: {} ({})", p.value, p.from);
                }
                for e in &l.env {
                    let _ = writeln!(out, "  env {}={}  {}", e.name, e.value, e.span);
                }
                for t in &l.argv {
                    let from = match &t.provenance {
                        Provenance::Var { name } => format!("  (from ${name})"),
                        _ => String::new(),
                    };
                    let _ = writeln!(
                        out,
                        "  {:<40} {}{}",
                        shell_words::quote(&t.text),
                        t.span,
                        from
                    );
                }
            }
            for u in unsupported {
                let _ = writeln!(out, "unsupported: {u}");
            }
            if launches.is_empty() && unsupported.is_empty() {
                out.push_str("no serve commands found\n");
            }
            out
        }
    }
}

/// Every selection of a vLLM recipe YAML, with the composed command.
fn render_recipe_selections(
    file: &Path,
    composed: &[extract::vllm_recipes::Composed],
    format: Format,
) -> String {
    match format {
        Format::Json => {
            let selections: Vec<serde_json::Value> = composed
                .iter()
                .map(|c| {
                    json!({
                        "selection": c.selection,
                        "variant": c.variant,
                        "strategy": c.strategy,
                        "hardware": c.hardware,
                        "verified": c.verified,
                        "env": c.env.iter().map(|e| json!([e.name, e.value])).collect::<Vec<_>>(),
                        "argv": c.argv,
                        "docker_image": c.docker_image,
                        "command": c.command,
                    })
                })
                .collect();
            let doc = json!({
                "schema_version": report::json::SCHEMA_VERSION,
                "file": file.display().to_string(),
                "selections": selections,
            });
            let mut s = serde_json::to_string_pretty(&doc).expect("serializable");
            s.push('\n');
            s
        }
        Format::Human => {
            let mut out = format!(
                "{}: {} selection{}\n",
                file.display(),
                composed.len(),
                if composed.len() == 1 { "" } else { "s" }
            );
            for (i, c) in composed.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "\nselection {}: {}{}",
                    i + 1,
                    c.selection.describe(),
                    if c.verified {
                        ""
                    } else {
                        " (hardware not verified)"
                    }
                );
                for line in c.text.trim_end().lines() {
                    let _ = writeln!(out, "  {line}");
                }
            }
            out
        }
    }
}

/// Every reachable selection of each generator, with its command(s).
fn render_selections(
    bundle: &extract::jsx::Bundle,
    views: &[Vec<extract::jsx::View>],
    format: Format,
) -> String {
    match format {
        Format::Json => {
            let targets: Vec<serde_json::Value> = bundle
                .targets
                .iter()
                .zip(views)
                .map(|(t, vs)| {
                    let states: Vec<serde_json::Value> = vs
                        .iter()
                        .map(|v| {
                            let selection: serde_json::Map<String, serde_json::Value> = v
                                .selection
                                .iter()
                                .map(|(k, x)| (k.clone(), json!(x)))
                                .collect();
                            json!({
                                "selection": selection,
                                "clicks": v.path.iter().map(|(i, x)| json!([i, x])).collect::<Vec<_>>(),
                                "commands": v.commands,
                            })
                        })
                        .collect();
                    json!({"component": t.name, "at": t.at, "states": states})
                })
                .collect();
            let doc = json!({
                "schema_version": report::json::SCHEMA_VERSION,
                "file": bundle.file.display().to_string(),
                "components": targets,
            });
            let mut s = serde_json::to_string_pretty(&doc).expect("serializable");
            s.push('\n');
            s
        }
        Format::Human => {
            let mut out = String::new();
            for (t, vs) in bundle.targets.iter().zip(views) {
                let _ = writeln!(
                    out,
                    "<{} /> at {}: {} reachable selection{}",
                    t.name,
                    t.at,
                    vs.len(),
                    if vs.len() == 1 { "" } else { "s" }
                );
                for (i, v) in vs.iter().enumerate() {
                    let _ = writeln!(out, "\nselection {}: {}", i + 1, v.selection_label());
                    if v.commands.is_empty() {
                        out.push_str("  (no command)\n");
                    }
                    for c in &v.commands {
                        for line in c.trim_end().lines() {
                            let _ = writeln!(out, "  {line}");
                        }
                    }
                }
                out.push('\n');
            }
            out
        }
    }
}

/// Builds a launch from an argv given on recipe-drift's command line.
fn inline_launch(engine: Engine, argv: &[String]) -> Launch {
    let launcher = engine.launcher();
    let mut text = launcher.clone();
    let mut offsets = Vec::new();
    for a in argv {
        text.push(' ');
        let start = text.len();
        text.push_str(&shell_words::quote(a));
        offsets.push((start, text.len()));
    }
    let source = Arc::new(Source::new(Origin::Inline("argv".into()), text));
    let argv = argv
        .iter()
        .zip(offsets)
        .map(|(a, (s, e))| Token {
            text: a.clone(),
            span: source.span(s, e),
            provenance: Provenance::Cli,
        })
        .collect();
    Launch {
        engine,
        launcher: vec![Token {
            text: launcher.clone(),
            span: source.span(0, launcher.len()),
            provenance: Provenance::Cli,
        }],
        argv,
        env: vec![],
        context: Context::default(),
        span: source.span(0, source.text.len()),
        source,
    }
}

fn resolve_cmd(
    engine: &str,
    ctx: &ContextArgs,
    raw: bool,
    format: Format,
    argv: Vec<String>,
) -> Result<Output, Error> {
    let mut out = String::new();
    let engine = Engine::parse(engine)
        .filter(|e| engine::by_name(e.name()).is_some())
        .ok_or_else(|| {
            let names: Vec<&str> = engine::registry().iter().map(|e| e.name()).collect();
            Error::usage(format!("unknown engine {engine:?} ({})", names.join(", ")))
        })?;
    let launch = inline_launch(engine, &argv);
    let opts = options(ctx, &SideSpec::default())?;
    if raw {
        let en = engine::by_name(engine.name())
            .ok_or_else(|| Error::usage(format!("unknown engine {engine:?}")))?;
        let requested = opts
            .engine_version
            .as_deref()
            .map(|v| (v, "--engine-version"));
        let parsed = en.parse_raw(requested, &argv).map_err(|e| match e {
            ParseFailure::Release(e) => e,
            ParseFailure::Refused {
                release,
                message,
                arg_index,
            } => {
                let span = arg_index
                    .and_then(|i| launch.argv.get(i))
                    .map(|t| t.span.clone())
                    .unwrap_or(launch.span.clone());
                Error::input(span, format!("{} {release}: {message}", en.name()))
            }
        })?;
        match format {
            Format::Json => {
                let doc = json!({"schema_version": report::json::SCHEMA_VERSION, "engine": en.name(), "version": parsed.version, "namespace": parsed.namespace});
                let _ = writeln!(out, "{}", serde_json::to_string_pretty(&doc).expect("json"));
            }
            Format::Human => {
                let _ = writeln!(
                    out,
                    "# {} {} ({})",
                    en.name(),
                    parsed.version.version,
                    parsed.version.from
                );
                for (k, v) in &parsed.namespace {
                    let _ = writeln!(out, "{k} = {v}");
                }
            }
        }
        return Ok(Output {
            code: 0,
            stdout: out,
        });
    }
    let r = engine::resolve(&launch, &opts)?;
    match format {
        Format::Json => {
            let doc = json!({"schema_version": report::json::SCHEMA_VERSION, "resolved": r});
            let _ = writeln!(out, "{}", serde_json::to_string_pretty(&doc).expect("json"));
        }
        Format::Human => {
            let _ = writeln!(
                out,
                "# {} {} ({})",
                r.engine, r.version.version, r.version.from
            );
            match &r.platform {
                Some(p) => {
                    let _ = writeln!(out, "# platform: {} ({})", p.value, p.from);
                }
                None => {
                    let _ = writeln!(out, "# platform: unknown (give --platform or --hardware)");
                }
            }
            for e in &r.startup_errors {
                let _ = writeln!(out, "# startup error: {} (rule {})", e.message, e.rule);
            }
            for (k, e) in &r.values {
                let set =
                    e.is_explicit() || !e.rules.is_empty() || matches!(e.val, Val::Unknown { .. });
                if !set {
                    continue;
                }
                let source = serde_json::to_value(e.source)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                let mut line = format!("{k} = {}  [{source}]", e.val.display());
                for h in &e.rules {
                    line.push_str(&format!("  <- rule {}", h.id));
                }
                let _ = writeln!(out, "{line}");
            }
            let _ = writeln!(out, "# other keys are at the release defaults (see --raw)");
        }
    }
    Ok(Output {
        code: if r.startup_errors.is_empty() { 0 } else { 1 },
        stdout: out,
    })
}

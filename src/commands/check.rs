//! `recipe-drift check`: every link of a config file (or only those whose
//! files changed), with waivers.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::{Output, emit, fetcher};
use crate::cli::CheckArgs;

use crate::error::Error;
use crate::finding::Fix;
use crate::fix::Plan;
use crate::link::run_link;
use crate::manifest::Manifest;
use crate::policy::Policy;
use crate::report;
use crate::report::ReportFormat;

/// Checks every link of a config file; with `--fix`, writes the fixes and
/// checks again.
pub(super) fn run(args: CheckArgs, jail: &crate::cli::FilesArgs) -> Result<Output, Error> {
    if !args.fix {
        return check(args, jail);
    }
    let again = CheckArgs {
        fix: false,
        diff: false,
        ..args.clone()
    };
    let for_people = matches!(args.format, ReportFormat::Human | ReportFormat::Concise);
    let unsafe_fixes = args.unsafe_fixes;
    let mut fixes = Vec::new();
    run_pass(args, jail, Some(&mut fixes))?;
    let plan = plan_with_prose(fixes, unsafe_fixes);
    plan.write()?;
    // What the first pass explored is what the files said before the fixes.
    crate::extract::jsx::provenance::forget();
    let summary = plan.summary("fixed");
    let mut out = check(again, jail)?;
    if for_people {
        out.stdout = format!("{summary}{}", out.stdout);
    } else {
        eprint!("{summary}");
    }
    Ok(out)
}

/// Checks every link of a config file once; with `--diff`, prints the
/// fixes as a diff instead of the report.
fn check(args: CheckArgs, jail: &crate::cli::FilesArgs) -> Result<Output, Error> {
    if !args.diff {
        return run_pass(args, jail, None);
    }
    let unsafe_fixes = args.unsafe_fixes;
    let mut fixes = Vec::new();
    let out = run_pass(args, jail, Some(&mut fixes))?;
    let plan = plan_with_prose(fixes, unsafe_fixes);
    eprint!("{}", plan.summary("would fix"));
    Ok(Output {
        code: out.code,
        stdout: plan.diff(),
        for_people: false,
        report: None,
    })
}

/// The plan of a run's fixes, with the prose fixes that carry the values
/// they change into the text of the pages that show them
/// ([`crate::fix::prose`], judged with the fixes' edits made).
fn plan_with_prose(mut fixes: Vec<Fix>, unsafe_fixes: bool) -> Plan {
    let first = Plan::new(&fixes, unsafe_fixes);
    let prose = crate::fix::prose::fixes(&fixes, &first);
    if prose.is_empty() {
        return first;
    }
    fixes.extend(prose);
    Plan::new(&fixes, unsafe_fixes)
}

/// One check of every link. With `fixes`, the fixes of the findings are
/// put there and the report is not printed (its exit code is kept).
fn run_pass(
    args: CheckArgs,
    jail: &crate::cli::FilesArgs,
    fixes: Option<&mut Vec<Fix>>,
) -> Result<Output, Error> {
    let CheckArgs {
        config,
        docs_root,
        recipes_root,
        inferencex,
        format,
        no_waivers,
        unknown,
        remote,
        changed_from,
        files,
        fail_on,
        exit_zero,
        quiet,
        show_equivalent,
        no_progress,
        max_pairs,
        max_states,
        diff: _,
        fix: _,
        unsafe_fixes: _,
    } = args;
    let want_fixes = fixes.is_some();
    crate::fix::set_trace_generators(
        want_fixes || matches!(format, ReportFormat::Json | ReportFormat::Sarif),
    );
    super::progress::suppress(no_progress);
    // The spaces to pair with no links: a docs root, the vLLM recipes site,
    // or both, against an InferenceX checkout.
    let pairing = inferencex.map(|inferencex| super::pairing::Roots {
        docs: docs_root,
        recipes: recipes_root,
        inferencex,
    });
    let path = match Manifest::locate(config.as_deref(), false)? {
        Some(p) => Some(p),
        None if pairing.is_some() => None,
        None => {
            return Err(Error::usage(format!(
                "no config file: pass --config FILE or set ${}, or add {} here or in a parent folder of this repository; or pair without one: --docs-root DIR --inferencex ROOT ({})",
                crate::manifest::CONFIG_ENV,
                Manifest::names_listed(),
                crate::error::Trouble::NoConfig.see()
            )));
        }
    };
    super::set_project_root(path.as_deref());
    // The config's repository is the root; an InferenceX checkout the config
    // (or --inferencex) names is a second one (reads under it stay inside it).
    let mut named: Vec<std::path::PathBuf> = path.iter().cloned().collect();
    if let Some(roots) = &pairing {
        for root in roots.all() {
            if !root.is_dir() {
                return Err(Error::usage(format!("{}: not a folder", root.display())));
            }
            named.push(root.to_path_buf());
        }
    }
    super::confine(jail, &named)?;
    let (m, problems) = match &path {
        Some(p) => Manifest::read(p)?,
        None => (Manifest::default(), Vec::new()),
    };
    let waivers = if no_waivers { &[][..] } else { &m.waivers[..] };
    // Every error of the config at once.
    let names: Vec<&str> = m.links.iter().map(|l| l.name.as_str()).collect();
    Error::all(
        problems.into_iter().chain(
            [
                m.confine(),
                validate_policy(&m),
                crate::waiver::validate(
                    waivers,
                    &names,
                    |k| {
                        if k.contains('*') {
                            return Some(format!("{k:?} is a pattern; a waiver names one key"));
                        }
                        super::key_problem(k).map(|why| format!("{k:?} {why}"))
                    },
                    |i, field| m.positions.waiver_field(i, field),
                ),
            ]
            .into_iter()
            .filter_map(Result::err),
        ),
    )?;
    let today = if waivers.is_empty() {
        None
    } else {
        Some(crate::waiver::Date::today()?)
    };
    let policy = Policy::with_overrides(m.policy.clone()).with_unknown(unknown);
    let fetcher = fetcher(&remote, &m.allow_hosts);
    let checkpoints = super::checkpoints(&remote, &m.allow_hosts, &m.checkpoints, path.as_deref())?;
    // Only what changed: the links whose files are among the changed ones.
    let explicit_files = changed_from.is_none() && !files.is_empty();
    let changed = match changed_from {
        Some(rev) => {
            // Without a config, git runs in the docs root.
            let anchor = match (&path, &pairing) {
                (Some(p), _) => p.clone(),
                (None, Some(roots)) => roots.all()[0].join(".recipe-drift.yaml"),
                (None, None) => unreachable!("a config or a pairing"),
            };
            Some(crate::changed::git_changed(&rev, &anchor)?)
        }
        None if !files.is_empty() => Some(files),
        None => None,
    };
    let skip = match (&changed, &path) {
        (Some(c), Some(path)) => crate::changed::select(&m.links, path, c),
        _ => vec![None; m.links.len()],
    };
    let printing = super::Printing::new(format, fail_on, exit_zero, quiet, show_equivalent);
    let writer = printing.writer(&policy);
    // Links that name the same page or script share its loading (a second
    // pass too).
    let loads = std::sync::Arc::new(crate::link::Loads::default());
    // One pass compares every link and pair and writes each as it is made.
    let pass = || -> Result<Done, Error> {
        // Inline suppressions in the files the launches are written in (ignored
        // with the config's waivers under --no-waivers), applied to each report
        // as it is made.
        let suppressions = super::Suppressions::default();
        let mut taken = Taken {
            written: report::spool::Spool::new()?,
            suppressed: Vec::new(),
            error: None,
            fixes: Vec::new(),
        };
        let mut pins = crate::space::Pins::default();
        let mut failures = Vec::new();
        let mut skipped = Vec::new();
        let mut outcomes = match today {
            Some(today) => crate::waiver::expired(waivers, today),
            None => Vec::new(),
        };
        // A file the config names that cannot be read is the config's mistake
        // (placed at its `file:`); checked once per link to run.
        let mut unreadable: Vec<Option<Error>> = skip
            .iter()
            .enumerate()
            .map(|(i, s)| {
                if s.is_none() {
                    m.unreadable_file(i)
                } else {
                    None
                }
            })
            .collect();
        let to_run: Vec<usize> = skip
            .iter()
            .zip(&unreadable)
            .enumerate()
            .filter(|(_, (s, u))| s.is_none() && u.is_none())
            .map(|(i, _)| i)
            .collect();
        // Past the budget, a clear error before any work.
        if let Some(&first_over) = to_run.get(max_pairs) {
            return Err(Error::Input {
                span: m.positions.link(first_over),
                message: format!(
                    "the run would compare {} links of the config, more than --max-pairs {max_pairs}: split the config, pass the changed FILES, or raise --max-pairs",
                    to_run.len()
                ),
            });
        }
        let progress =
            super::progress::Links::new(to_run.len(), super::progress::wanted(no_progress));
        let ctx_of = |i: usize| crate::link::Overrides {
            engine_version: m.links[i].engine_version.clone(),
            hardware: m.links[i].hardware.clone(),
            platform: None,
            origin: path.as_deref().map(crate::span::path_label),
            checkpoints: Some(checkpoints.clone()),
            loads: Some(loads.clone()),
        };
        // A report once its waivers and suppressions are applied: written (its
        // text in the run's format, which goes to the spool), then dropped.
        let keep = |mut r: crate::link::LinkReport| -> Kept {
            let suppressed = if no_waivers {
                Ok(Vec::new())
            } else {
                suppressions.apply(&mut r)
            };
            let fixes = if want_fixes {
                r.findings().into_iter().filter_map(|f| f.fix).collect()
            } else {
                Vec::new()
            };
            Kept {
                written: writer.link(&r),
                suppressed,
                fixes,
            }
        };
        // The links not run, in link order; the failures of every link are
        // put in link order once all are known.
        let mut link_failures: Vec<(usize, report::Failure)> = Vec::new();
        for (i, (link, skip)) in m.links.iter().zip(&skip).enumerate() {
            if let Some(reason) = skip {
                skipped.push(report::Skipped {
                    name: link.name.clone(),
                    reason: reason.clone(),
                });
            } else if let Some(error) = unreadable[i].take() {
                link_failures.push((
                    i,
                    report::Failure {
                        name: link.name.clone(),
                        error,
                    },
                ));
            }
        }
        // The links are independent: run on every core, each result taken
        // in link order as soon as it is ready (the run holds a few reports
        // at a time, not all).
        crate::parallel::each_in_order(
            &to_run,
            |&i| {
                let link = &m.links[i];
                progress.start(&link.name);
                let result = run_link(
                    &link.name,
                    &link.docs,
                    &link.recipe,
                    &ctx_of(i),
                    &BTreeMap::new(),
                    &policy,
                    &fetcher,
                )
                .map(|mut r| {
                    let mut outcomes = Vec::new();
                    if let Some(today) = today {
                        let comparisons = r.iter().map(|r| &r.comparison);
                        let (filtered, o) =
                            crate::waiver::filter(&link.name, comparisons, waivers, today);
                        for (r, f) in r.iter_mut().zip(filtered) {
                            r.waivers = f;
                        }
                        outcomes = o;
                    }
                    // A link pins what it compares: pairing leaves it to the link.
                    let pins: Vec<crate::space::Pin> = r
                        .iter()
                        .map(|r| crate::space::Pin::of(&r.docs.launch, &r.recipe.launch))
                        .collect();
                    // A new vector: one collected in place would keep the
                    // reports' (much larger) allocation.
                    let mut kept = Vec::with_capacity(r.len());
                    for r in r {
                        kept.push(keep(r));
                    }
                    (kept, outcomes, pins)
                });
                progress.done();
                (i, result)
            },
            |(i, result)| {
                let link = &m.links[i];
                // One broken link does not hide the others.
                match result {
                    Ok((kept, o, p)) => {
                        outcomes.extend(o);
                        for pin in p {
                            pins.insert(&link.name, pin);
                        }
                        for k in kept {
                            taken.take(k);
                        }
                    }
                    // An error with no place of its own (a selection the file
                    // does not take, a bad version or SKU) is the link's:
                    // placed at it.
                    Err(Error::Usage(message)) => link_failures.push((
                        i,
                        report::Failure {
                            name: link.name.clone(),
                            error: Error::Input {
                                span: m.positions.link(i),
                                message,
                            },
                        },
                    )),
                    Err(e) => link_failures.push((
                        i,
                        report::Failure {
                            name: link.name.clone(),
                            error: e,
                        },
                    )),
                }
            },
        );
        if let Some(e) = taken.error.take() {
            return Err(e);
        }
        link_failures.sort_by_key(|(i, _)| *i);
        failures.extend(link_failures.into_iter().map(|(_, f)| f));
        // The pairs of the two spaces, and what has no partner.
        let mut coverage = Vec::new();
        if let Some(roots) = &pairing {
            // Each docs space's files: every page (or recipe), or those the
            // change touches.
            // FILES given by hand go to the space whose root holds them; the
            // rest to the docs root (or, without one, to the recipes root), so
            // none is left out.
            let mut by_hand: Vec<PathBuf> = match &changed {
                Some(c) if explicit_files => c.clone(),
                _ => Vec::new(),
            };
            let mut space = |root: &PathBuf,
                             all: Vec<PathBuf>,
                             not_read: crate::space::load::NotRead,
                             recipes: bool,
                             take_rest: bool|
             -> Vec<PathBuf> {
                skipped.extend(
                    not_read
                        .into_iter()
                        .map(|(name, reason)| report::Skipped { name, reason }),
                );
                match &changed {
                    None => all,
                    Some(_) if explicit_files && take_rest => std::mem::take(&mut by_hand),
                    Some(_) if explicit_files => {
                        let mine = crate::changed::under(root, &by_hand);
                        by_hand.retain(|f| !mine.contains(f));
                        mine
                    }
                    Some(c) if recipes => {
                        crate::changed::pairing_recipes(root, &roots.inferencex, &all, c)
                    }
                    Some(c) => crate::changed::pairing_docs(root, &roots.inferencex, &all, c),
                }
            };
            let mut docs = Vec::new();
            let recipes = match &roots.recipes {
                Some(r) => {
                    let (all, not_read) = crate::space::load::Loader::recipe_files(r)?;
                    Some((
                        r.as_path(),
                        space(r, all, not_read, true, roots.docs.is_none()),
                    ))
                }
                None => None,
            };
            if let Some(d) = &roots.docs {
                let (all, not_read) = crate::space::load::Loader::docs_files(d)?;
                docs.push((d.as_path(), space(d, all, not_read, false, true)));
            }
            docs.extend(recipes);
            let run = super::pairing::Run {
                docs: &docs,
                inferencex: &roots.inferencex,
                manifest: &m,
                config: path.as_deref(),
                checkpoints: checkpoints.clone(),
                policy: &policy,
                fetcher: &fetcher,
                max_pairs,
                max_states: usize::try_from(max_states).unwrap_or(usize::MAX),
                pins: &pins,
            };
            // Config waivers name links; pairs take inline suppressions only.
            let found = run.run(keep, |k: Kept| taken.take(k))?;
            if let Some(e) = taken.error.take() {
                return Err(e);
            }
            failures.extend(found.failures);
            skipped.extend(found.skipped);
            coverage = found.coverage;
        }
        outcomes.extend(super::merge_suppressions(taken.suppressed));
        Ok(Done {
            written: taken.written,
            failures,
            skipped,
            coverage,
            outcomes,
            fixes: taken.fixes,
        })
    };
    // A link is written with the secrets known when it is written. When the
    // run read a secret it did not know before it started (a file of a later
    // link, a value only the parser places), a link written earlier may
    // show it, and which ones did depends on the workers' timing: the run
    // is made again, with every secret known from the start (the same bytes
    // on every run, at twice the time for runs whose inputs hold secrets).
    let noted = crate::secret::noted();
    let mut done = pass()?;
    if crate::secret::noted() != noted {
        done = pass()?;
    }
    let Done {
        written,
        failures,
        skipped,
        coverage,
        outcomes,
        fixes: found,
    } = done;
    if let Some(fixes) = fixes {
        *fixes = found;
        // The report is not printed: only its exit code is kept.
        let pending = writer.finish(written, failures, skipped, coverage, outcomes)?;
        let code = if pending.failed() {
            2
        } else {
            printing
                .fail_on
                .code(pending.tally(), pending.coverage(), pending.waivers())
        };
        return Ok(Output {
            code,
            stdout: String::new(),
            for_people: false,
            report: None,
        });
    }
    emit(
        written,
        failures,
        skipped,
        coverage,
        outcomes,
        &writer,
        printing.fail_on,
    )
}

/// What one pass of a run made.
struct Done {
    written: report::spool::Spool,
    failures: Vec<report::Failure>,
    skipped: Vec<report::Skipped>,
    coverage: Vec<crate::finding::Finding>,
    outcomes: Vec<crate::waiver::Outcome>,
    /// The fixes of the findings (gathered only when asked for).
    fixes: Vec<Fix>,
}

/// Where a pass puts each kept report, in run order: its text into the
/// spool, its suppressions' outcomes beside; the first malformed
/// suppression is the run's error.
struct Taken {
    written: report::spool::Spool,
    suppressed: Vec<crate::waiver::Outcome>,
    error: Option<Error>,
    fixes: Vec<Fix>,
}

impl Taken {
    fn take(&mut self, k: Kept) {
        if self.error.is_some() {
            return;
        }
        match k.suppressed {
            Ok(s) => self.suppressed.extend(s),
            Err(e) => self.error = Some(e),
        }
        self.written.push(k.written);
        self.fixes.extend(k.fixes);
    }
}

/// A report as a run keeps it: written, and its suppressions' outcomes (or
/// the error of a malformed suppression).
struct Kept {
    written: report::Written,
    suppressed: Result<Vec<crate::waiver::Outcome>, Error>,
    /// The fixes of its findings, when the run gathers them.
    fixes: Vec<Fix>,
}

/// Checks a config's policy entries: each names a known key (or `env:NAME`),
/// or is a `*` pattern that matches one; no key is in two classes. Every
/// error at once.
pub(super) fn validate_policy(m: &Manifest) -> Result<(), Error> {
    let lists = &m.policy;
    let mut errors = Vec::new();
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for (class, entries) in [
        ("major", &lists.major),
        ("minor", &lists.minor),
        ("ignore", &lists.ignore),
    ] {
        for (i, e) in entries.iter().enumerate() {
            let at = || m.positions.policy_entry(class, i);
            if let Some(why) = super::key_problem(e) {
                errors.push(Error::Input {
                    span: at(),
                    message: format!("policy.{class}: {e:?} {why}"),
                });
            }
            if let Some(other) = seen.insert(e.as_str(), class)
                && other != class
            {
                errors.push(Error::Input {
                    span: at(),
                    message: format!("policy: {e:?} is in both {other} and {class}"),
                });
            }
        }
    }
    if let Some(keys) = &lists.pair_by
        && let Err(why) = crate::space::check_pair_by(keys)
    {
        errors.push(Error::Input {
            span: m.positions.policy_entry("pair-by", 0),
            message: format!("policy.pair-by: {why}"),
        });
    }
    for kind in lists.coverage.keys() {
        if ![crate::pair::DOCS_UNPAIRED, crate::pair::RECIPE_UNPAIRED].contains(&kind.as_str()) {
            errors.push(Error::Input {
                span: m.positions.policy_entry("coverage", 0),
                message: format!(
                    "policy.coverage: {kind:?} is not a coverage kind ({}, {})",
                    crate::pair::DOCS_UNPAIRED,
                    crate::pair::RECIPE_UNPAIRED
                ),
            });
        }
    }
    Error::all(errors)
}

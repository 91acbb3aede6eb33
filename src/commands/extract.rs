//! `recipe-drift extract`: the launches of a file, every selection of a
//! generator or recipe YAML, or the points of an InferenceX entry.

use super::{Output, fetcher, parse_kv};
use crate::cli::ExtractArgs;
use crate::error::Error;
use crate::extract;
use crate::report::launches::{
    render_agentx_selections, render_launches, render_points, render_recipe_selections,
    render_selections,
};

/// Prints the launches found in a file.
pub(super) fn run(args: ExtractArgs) -> Result<Output, Error> {
    let ExtractArgs {
        file,
        inferencex,
        entry,
        filter,
        env,
        select,
        all_selections,
        options,
        hardware_scope,
        docs_root,
        max_states,
        time_limit,
        checkboxes,
        prop,
        no_progress,
        remote,
        format,
    } = args;
    super::progress::suppress(no_progress);
    let fetcher = fetcher(&remote, &[]);
    let limits = extract::jsx::Limits {
        states: usize::try_from(max_states).unwrap_or(usize::MAX),
        ..extract::jsx::Limits::default()
    };
    let vars = parse_kv(&env)?;
    let props = parse_props(&prop)?;
    if let (Some(root), Some(entry)) = (inferencex, entry) {
        let filter = parse_kv(&filter)?;
        let root = crate::link::location_of(&root)?;
        let mut expanded =
            extract::inferencex::expand_with_env(&root, &entry, &filter, &vars, &fetcher)?;
        if let Some(why) = expanded.unmatched {
            return Err(Error::usage(why));
        }
        // A remote file a point needs that could not be had fails `extract`
        // as any other remote file does (`check` reports the point unknown).
        if let Some(e) = expanded.points.iter().find_map(|p| p.fetch_failure.clone()) {
            return Err(e);
        }
        expanded.unread_env = crate::link::unread_env(&expanded);
        crate::link::note_secrets(expanded.points.iter().flat_map(|p| &p.launches));
        return Ok(Output {
            code: 0,
            stdout: render_points(&expanded, format),
            ..Output::default()
        });
    }
    let file = file.ok_or_else(|| Error::usage("extract needs FILE or --inferencex"))?;
    let at = crate::link::location_of(&file)?;
    if options {
        return generator_options(&at, docs_root, limits, format);
    }
    if all_selections {
        use std::io::IsTerminal;
        let time_limit = std::time::Duration::from_secs(time_limit);
        // The exploration's own budgets are the ones a reader meets: unless
        // --js-total-time-limit is given, the sandbox's budget for the file
        // leaves them room.
        let limits = limits.exploring(time_limit);
        let explore = extract::jsx::Explore {
            time_limit: Some(time_limit),
            checkboxes: if checkboxes == "each" {
                extract::jsx::Checkboxes::Each
            } else {
                extract::jsx::Checkboxes::All
            },
            progress: !no_progress && std::io::stderr().is_terminal(),
            ..extract::jsx::Explore::default()
        };
        let opts = extract::Options {
            docs_root,
            limits,
            hardware_scope: Some(hardware_scope),
            explore,
            props,
            ..extract::Options::default()
        };
        // A click path on which a generator throws is a docs defect: the
        // states are all printed, and the exit code is 1.
        let (stdout, code) = match extract::selections(&at, &opts, &fetcher)? {
            extract::Selections::Recipe(composed) => {
                (render_recipe_selections(&file, &composed, format), 0)
            }
            extract::Selections::Agentx(states) => {
                // A state whose commands cannot be read is bad input.
                let code = if states.iter().any(|s| s.error.is_some()) {
                    2
                } else {
                    0
                };
                (render_agentx_selections(&file, &states, format), code)
            }
            extract::Selections::States {
                bundle,
                views,
                crashes,
            } => {
                let code = u8::from(crashes.iter().any(|c| !c.is_empty()));
                (render_selections(&bundle, &views, &crashes, format), code)
            }
        };
        return Ok(Output {
            code,
            stdout,
            ..Output::default()
        });
    }
    let opts = extract::Options {
        vars,
        select: extract::jsx::parse_selections(&select)?,
        docs_root,
        limits,
        hardware_scope: None,
        explore: extract::jsx::Explore::default(),
        props,
    };
    let found = extract::extract(&at, &opts, &fetcher)?;
    crate::link::note_secrets(&found.launches);
    Ok(Output {
        code: 0,
        stdout: render_launches(&found.launches, &found.unsupported, format),
        ..Output::default()
    })
}

/// `--options`: the options of a generator file or of a page's generators.
fn generator_options(
    at: &crate::files::Location,
    docs_root: Option<std::path::PathBuf>,
    limits: extract::jsx::Limits,
    format: crate::report::Format,
) -> Result<Output, Error> {
    let input = extract::Input::new(at.clone(), &crate::files::LocalFiles);
    let path = match at {
        crate::files::Location::Path(p) => {
            // A file that cannot be read is reported as such, whatever its kind.
            input.source()?;
            p.clone()
        }
        crate::files::Location::Remote(_) => {
            return Err(Error::usage(format!(
                "{}: --options renders a generator with the files beside it; give a local checkout's path",
                at.display()
            )));
        }
    };
    let kind = extract::extractor_for(&input).name();
    if !matches!(kind, "generator" | "generator-page") {
        return Err(Error::usage(format!(
            "{}: --options applies to generators (.jsx) and pages that render them (.mdx), not to a {kind} file",
            path.display()
        )));
    }
    let generators = extract::jsx::on_render_thread(move || {
        let bundle = extract::jsx::bundle(&path, docs_root.as_deref())?;
        let renderer = extract::jsx::Renderer::new(&bundle, limits)?;
        extract::jsx::options::options_of(&bundle, &renderer)
    })?;
    Ok(Output {
        code: 0,
        stdout: crate::report::options::render(&generators, format),
        ..Output::default()
    })
}

/// `--prop NAME=EXPORT` values.
fn parse_props(items: &[String]) -> Result<Vec<(String, String)>, Error> {
    items
        .iter()
        .map(|s| match s.split_once('=') {
            Some((k, v)) if !k.is_empty() && !v.is_empty() => Ok((k.to_string(), v.to_string())),
            _ => Err(Error::usage(format!(
                "--prop expects NAME=EXPORT or NAME=FILE:EXPORT, got `{s}`"
            ))),
        })
        .collect()
}

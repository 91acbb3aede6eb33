//! `recipe-drift extract`: the launches of a file, every selection of a
//! generator or recipe YAML, or the points of an InferenceX entry.

use super::{Output, fetcher, parse_kv};
use crate::cli::ExtractArgs;
use crate::error::Error;
use crate::extract;
use crate::report::launches::{
    render_launches, render_points, render_recipe_selections, render_selections,
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
        hardware_scope,
        docs_root,
        max_states,
        remote,
        format,
    } = args;
    let fetcher = fetcher(&remote, &[]);
    let limits = extract::jsx::Limits {
        states: usize::try_from(max_states).unwrap_or(usize::MAX),
        ..extract::jsx::Limits::default()
    };
    let vars = parse_kv(&env)?;
    if let (Some(root), Some(entry)) = (inferencex, entry) {
        let filter = parse_kv(&filter)?;
        let root = crate::link::location_of(&root)?;
        let expanded = extract::inferencex::expand_in(&root, &entry, &filter, &fetcher)?;
        return Ok(Output {
            code: 0,
            stdout: render_points(&expanded, format),
        });
    }
    let file = file.ok_or_else(|| Error::usage("extract needs FILE or --inferencex"))?;
    let at = crate::link::location_of(&file)?;
    if all_selections {
        let opts = extract::Options {
            docs_root,
            limits,
            hardware_scope: Some(hardware_scope),
            ..extract::Options::default()
        };
        let stdout = match extract::selections(&at, &opts, &fetcher)? {
            extract::Selections::Recipe(composed) => {
                render_recipe_selections(&file, &composed, format)
            }
            extract::Selections::States { bundle, views } => {
                render_selections(&bundle, &views, format)
            }
        };
        return Ok(Output { code: 0, stdout });
    }
    let opts = extract::Options {
        vars,
        select: extract::jsx::parse_selections(&select)?,
        docs_root,
        limits,
        hardware_scope: None,
    };
    let found = extract::extract(&at, &opts, &fetcher)?;
    note_parsed_secrets(&found.launches);
    Ok(Output {
        code: 0,
        stdout: render_launches(&found.launches, &found.unsupported, format),
    })
}

/// Parses each launch's argv with its engine (the newest release), only so
/// that a secret is recognised by the destination it lands in, whatever its
/// spelling (`--api-k` is `--api-key`): `extract` prints words, not resolved
/// values, and masking needs to know them. A parse error changes nothing here.
fn note_parsed_secrets(launches: &[crate::launch::Launch]) {
    for launch in launches {
        if let Some(engine) = crate::engine::by_name(launch.engine.name()) {
            let argv: Vec<String> = launch.argv.iter().map(|t| t.text.clone()).collect();
            let _ = engine.parse_raw(None, &argv);
        }
    }
}

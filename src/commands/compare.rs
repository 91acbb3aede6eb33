//! `recipe-drift compare DOCS RECIPE`: one link given on the command line.

use std::path::Path;

use super::{Output, emit, fetcher, parse_kv};
use crate::cli::CompareArgs;
use crate::error::Error;
use crate::extract;
use crate::link::run_link;
use crate::manifest::SideSpec;
use crate::policy::Policy;

/// Compares the serve command of a docs file with the one of a recipe file.
pub(super) fn run(args: CompareArgs) -> Result<Output, Error> {
    let CompareArgs {
        docs,
        recipe,
        docs_launch,
        recipe_launch,
        env,
        select,
        docs_root,
        context,
        remote,
        unknown,
        format,
    } = args;
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
    let policy = Policy::default().with_unknown(unknown);
    let name = format!("{} <-> {}", docs.display(), recipe.display());
    let l = run_link(
        &name,
        &docs_side,
        &side(&recipe, recipe_launch),
        &crate::link::Overrides {
            checkpoints: Some(super::checkpoints(&remote, &[], &[], None)?),
            ..super::overrides(&context)
        },
        &vars,
        &policy,
        &fetcher,
    )?;
    emit(&l, &[], &[], &[], format, &policy)
}

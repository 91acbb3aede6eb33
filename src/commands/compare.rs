//! `recipe-drift compare DOCS RECIPE`: one link given on the command line.

use std::path::Path;

use super::{Output, emit, fetcher, parse_kv};
use crate::cli::CompareArgs;
use crate::error::Error;
use crate::extract;
use crate::link::run_link;
use crate::manifest::{Manifest, SideSpec};
use crate::policy::Policy;

/// Compares the serve command of a docs file with the one of a recipe file.
/// `config` is the config file whose policy, hosts and checkpoints apply.
pub(super) fn run(args: CompareArgs, config: Option<&Path>) -> Result<Output, Error> {
    let CompareArgs {
        config: _,
        no_config: _,
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
        fail_on,
        exit_zero,
        quiet,
        show_equivalent,
        no_waivers,
    } = args;
    let vars = parse_kv(&env)?;
    let project = match config {
        Some(path) => {
            let (m, problems) = Manifest::read(path)?;
            Error::all(
                problems
                    .into_iter()
                    .chain(super::check::validate_policy(&m).err()),
            )?;
            Some(m)
        }
        None => None,
    };
    let hosts = project.as_ref().map_or(&[][..], |m| &m.allow_hosts[..]);
    let by_hand = project.as_ref().map_or(&[][..], |m| &m.checkpoints[..]);
    let fetcher = fetcher(&remote, hosts);
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
    let policy = match &project {
        Some(m) => Policy::with_overrides(m.policy.clone()),
        None => Policy::default(),
    }
    .with_unknown(unknown);
    let name = format!(
        "{} <-> {}",
        crate::span::path_label(&docs),
        crate::span::path_label(&recipe)
    );
    let mut l = run_link(
        &name,
        &docs_side,
        &side(&recipe, recipe_launch),
        &crate::link::Overrides {
            checkpoints: Some(super::checkpoints(&remote, hosts, by_hand, config)?),
            ..super::overrides(&context)
        },
        &vars,
        &policy,
        &fetcher,
    )?;
    let outcomes = if no_waivers {
        Vec::new()
    } else {
        super::apply_suppressions(&mut l)?
    };
    let printing = super::Printing::new(format, fail_on, exit_zero, quiet, show_equivalent);
    let writer = printing.writer(&policy);
    let mut written = crate::report::spool::Spool::new()?;
    for r in &l {
        written.push(writer.link(r));
    }
    emit(
        written,
        Vec::new(),
        Vec::new(),
        Vec::new(),
        outcomes,
        &writer,
        printing.fail_on,
    )
}

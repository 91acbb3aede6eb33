//! `recipe-drift discover ROOT`: propose links from an InferenceX checkout.

use super::Output;
use crate::cli::{DiscoverArgs, DiscoverFormat};
use crate::error::Error;

/// Finds links to upstream recipes and proposes `links:` for the config.
pub(super) fn run(args: DiscoverArgs) -> Result<Output, Error> {
    Ok(Output {
        code: 0,
        stdout: crate::discover::run(&crate::discover::Options {
            root: args.root,
            docs_root: args.docs_root,
            recipes_root: args.recipes_root,
            json: args.format == DiscoverFormat::Json,
            all: args.all,
        })?,
        ..Output::default()
    })
}

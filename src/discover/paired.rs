//! Which proposals pairing finds on its own: `check --docs-root --inferencex`
//! pairs the docs page's deployment with the entry without a link, so
//! `discover` does not propose one.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use super::{Options, Proposal};
use crate::files::LocalFiles;
use crate::space::load::Loader;

/// For each proposal, whether pairing pairs its local page with its entry by
/// identity and shape (not by the nearest shape only): a deployment of that
/// page whose selection holds the proposal's `select:` is paired with a point
/// of that entry its `where:` takes. Without a docs root, or for a page that is not local,
/// nothing is found; nor with `--all`. Facts of checkpoints are not read (no network).
pub(super) fn found_by_pairing(opts: &Options, props: &[Proposal]) -> Vec<bool> {
    let none = vec![false; props.len()];
    let Some(docs_root) = opts.docs_root.as_deref().filter(|_| !opts.all) else {
        return none;
    };
    // Only the pages the zero-config walk reads: Markdown and MDX under the
    // docs root (a vLLM recipe YAML is read only when named).
    let root = canonical(super::resolved_docs_root(docs_root));
    let pages: Vec<Option<PathBuf>> = props
        .iter()
        .map(|p| {
            super::local_page(opts, &p.docs_file)
                .map(canonical)
                .filter(|p| p.starts_with(&root) && is_page(p))
        })
        .collect();
    let wanted: BTreeSet<&PathBuf> = pages.iter().flatten().collect();
    if wanted.is_empty() {
        return none;
    }
    let loader = Loader {
        files: &LocalFiles,
        checkpoints: None,
        families: BTreeMap::new(),
        max_states: crate::extract::jsx::MAX_STATES,
    };
    let files: Vec<PathBuf> = wanted.into_iter().cloned().collect();
    let docs = loader.docs(&root, &files);
    let recipes = loader.inferencex(&opts.root);
    let pairing = crate::pair::pair(
        &docs.deployments,
        &recipes.deployments,
        &crate::space::default_pair_by(),
        &BTreeMap::new(),
    );
    props
        .iter()
        .zip(&pages)
        .map(|(p, page)| {
            let Some(page) = page else { return false };
            pairing.pairs.iter().any(|pair| {
                let d = &docs.deployments[pair.docs];
                pair.nearest_only.is_empty()
                    && canonical(PathBuf::from(&d.origin.file)) == *page
                    && p.select.iter().all(|kv| d.origin.selection.contains(kv))
                    && pair.recipes.iter().any(|&r| {
                        let o = &recipes.deployments[r].origin;
                        o.entry.as_deref() == Some(p.entry.as_str())
                            && o.points
                                .iter()
                                .any(|pt| p.filter.iter().all(|(k, v)| pt.get(k) == Some(v)))
                    })
            })
        })
        .collect()
}

fn is_page(p: &std::path::Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("md" | "mdx" | "markdown")
    )
}

fn canonical(p: PathBuf) -> PathBuf {
    std::fs::canonicalize(&p).unwrap_or(p)
}

//! The prose side of a run's fixes: a value `check --fix` changes in a
//! page's command (a block, or a generator literal the page renders) is
//! changed in the page's text too, where its inline code names the same
//! option with the old value (the seed's "`--hicache-io-backend direct`").
//! Safe when, with the run's edits made, nothing the page prints (no state
//! of its generators, no block) still gives the old value; unsafe otherwise
//! (the text may be about what still prints it).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::Plan;
use crate::extract::jsx;
use crate::finding::{Applicability, Change, Edit, Fix};
use crate::launch::Launch;
use crate::lint::prose::{major_key, mentions, printed};
use crate::span::Source;

/// The prose fixes that carry `fixes`' changed values into the text of the
/// pages whose commands they change, judged with `plan`'s edits made.
pub fn fixes(fixes: &[Fix], plan: &Plan) -> Vec<Fix> {
    let mut pages: BTreeMap<PathBuf, Vec<&Change>> = BTreeMap::new();
    for f in fixes.iter().filter(|f| !f.edits.is_empty()) {
        if let Some(c) = &f.change
            && is_page(&c.file)
        {
            let seen = pages.entry(c.file.clone()).or_default();
            if !seen.contains(&c) {
                seen.push(c);
            }
        }
    }
    let overlay = plan.overlay();
    let mut out = Vec::new();
    for (page, changes) in pages {
        let Ok(source) = Source::read(&page) else {
            continue;
        };
        let Ok(after) = launches_after(&page, &source, &overlay) else {
            continue;
        };
        let after: Vec<&Launch> = after.iter().collect();
        let values = printed(&after);
        for m in mentions(&source) {
            let Some(key) = major_key(&m.option, &after) else {
                continue;
            };
            let Some(c) = changes.iter().find(|c| c.key == key && c.old == m.value) else {
                continue;
            };
            if c.new.contains(['`', ' ', '\'', '"']) || c.new.is_empty() {
                continue;
            }
            let still = values.get(&key).is_some_and(|v| v.contains(&c.old));
            let applicability = if still {
                Applicability::Unsafe {
                    why: format!(
                        "with the run's fixes made, the page still prints {} for {key} (a state of its generators or a block): the text may be about that",
                        c.old
                    ),
                }
            } else {
                Applicability::Safe
            };
            out.push(Fix {
                title: format!(
                    "replace {} with {} in the page's text at {}",
                    c.old, c.new, m.at
                ),
                edits: vec![Edit {
                    span: m.at.clone(),
                    replacement: c.new.clone(),
                }],
                applicability,
                shared: None,
                change: None,
            });
        }
    }
    out
}

/// Whether a docs file is a page (its text can name values).
fn is_page(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("md" | "mdx")
    )
}

/// Every launch a page prints with `overlay`'s texts standing in for their
/// files: its blocks and every state of the generators it renders.
fn launches_after(
    page: &Path,
    source: &Arc<Source>,
    overlay: &jsx::page::Overlay,
) -> Result<Vec<Launch>, crate::error::Error> {
    let text = overlay
        .0
        .iter()
        .find(|(p, _)| same_file(p, page))
        .map_or_else(|| source.clone(), |(_, s)| s.clone());
    let vars = BTreeMap::new();
    let mut out = crate::extract::markdown::extract_all(&text, &vars)?.launches;
    if !jsx::page::has_components(&text.text) {
        return Ok(out);
    }
    let explore = jsx::Explore {
        cut: true,
        flags: jsx::Flags::CHECK,
        ..jsx::Explore::default()
    };
    let root = jsx::find_docs_root(page);
    let (bundle, each) = jsx::explore_file_overlaid(
        page,
        root.as_deref(),
        &[],
        jsx::Limits::default(),
        explore,
        overlay.clone(),
    )?;
    for view in each.iter().flatten().flat_map(|e| &e.views) {
        for i in 0..view.commands.len() {
            let src = jsx::view_source(&bundle, view, i);
            if let Ok(found) = crate::extract::shell_text::extract_all(&src, &vars) {
                out.extend(found.launches);
            }
        }
    }
    Ok(out)
}

/// Whether two paths name one file.
fn same_file(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    canon(a) == canon(b)
}

//! Pairing: each docs deployment with the recipe deployments of the same
//! identity and shape (the `pair-by` keys), coverage for what has no partner,
//! and the compare of every pair (`crate::link::run_pair`).
//!
//! Rules, in order:
//! - A docs deployment pairs with every recipe deployment of its identity
//!   whose shape agrees on every `pair-by` key (an unknown value agrees with
//!   any: the compare reports it).
//! - A docs deployment with none is a `docs-unpaired` coverage finding naming
//!   the nearest recipe deployment of its identity and the keys that differ.
//! - A recipe deployment no docs deployment pairs with is `recipe-unpaired`,
//!   except when no point of its entry pairs with any docs deployment of its
//!   identity: then the entry's nearest (docs, recipe) pair is compared, as
//!   InferenceX's reviewers do (the docs show tp 2, the benchmark runs only
//!   tp 8: the parallelism is drift), and its other points are coverage; only
//!   when the two differ in the `nearest-over` keys alone (parallelism).

use std::collections::BTreeMap;

use crate::error::Error;
use crate::finding::{About, Finding, Related, Severity, Text, Unpaired};
use crate::link::{LinkReport, Overrides};
use crate::manifest::SideSpec;
use crate::policy::{Level, Policy};
use crate::space::{Deployment, Identity, Nearest, ShapeDiff};

/// The name of the coverage kind of a docs deployment with no recipe of its shape.
pub const DOCS_UNPAIRED: &str = "docs-unpaired";
/// The name of the coverage kind of a recipe deployment with no docs deployment of its shape.
pub const RECIPE_UNPAIRED: &str = "recipe-unpaired";

/// A docs deployment and the recipe deployments of one entry it is compared with.
#[derive(Debug, Clone)]
pub struct Pair {
    /// Index into the docs deployments.
    pub docs: usize,
    /// Indices into the recipe deployments (one entry's).
    pub recipes: Vec<usize>,
    /// Set when the pair was made by the nearest shape (no point of the
    /// entry has the shape of a docs deployment): the keys that differ.
    pub nearest_only: Vec<ShapeDiff>,
}

/// What pairing found.
#[derive(Debug, Default)]
pub struct Pairing {
    /// The pairs, docs order then entry order.
    pub pairs: Vec<Pair>,
    /// Deployments with no partner: findings about a deployment
    /// ([`About::Deployment`]).
    pub coverage: Vec<Finding>,
}

/// Which identity two deployments share (both complete and equal).
fn same_identity(a: &Identity, b: &Identity) -> bool {
    a.incomplete().is_none()
        && b.incomplete().is_none()
        && a.engine == b.engine
        && a.family == b.family
        && a.hardware == b.hardware
}

/// How far apart two deployments are: the shape keys they differ in, an
/// earlier `pair-by` key weighing more than all later ones together (a
/// different precision is further than a different tp).
fn distance(differs: &[ShapeDiff], keys: &[String]) -> u128 {
    differs
        .iter()
        .filter_map(|d| keys.iter().position(|x| *x == d.key))
        .map(|i| 1u128 << (keys.len().min(127) - 1 - i.min(126)))
        .sum()
}

/// A candidate and the shape keys it differs in.
type Candidate<'a> = (&'a Deployment, Vec<ShapeDiff>);

/// The candidate of `of` among `among` nearest by [`distance`], the first in
/// input order on a tie.
fn nearest<'a>(
    of: &Deployment,
    among: impl Iterator<Item = &'a Deployment>,
    keys: &[String],
) -> Option<Candidate<'a>> {
    let mut best: Option<(Candidate<'a>, u128)> = None;
    for c in among {
        let d = of.differs(c, keys);
        let cost = distance(&d, keys);
        if best.as_ref().is_none_or(|(_, b)| cost < *b) {
            best = Some(((c, d), cost));
        }
    }
    best.map(|(c, _)| c)
}

/// A coverage finding of `kind` about `d`: `why` says what is missing; the
/// nearest candidate, if any, is a related place.
fn coverage(
    kind: &'static str,
    d: &Deployment,
    near: Option<Candidate<'_>>,
    why: String,
    severities: &BTreeMap<String, Level>,
) -> Finding {
    let nearest = near.map(|(c, differs)| Nearest {
        deployment: c.label(),
        span: c.launch.span.clone(),
        differs,
    });
    let deployment = d.label();
    let mut message = Text::input(&deployment).and(": ").and_input(&why);
    if let Some(n) = &nearest {
        message = message.and("; nearest: ").and_input(&n.deployment);
    }
    Finding {
        kind,
        severity: match severities.get(kind) {
            Some(Level::Error) => Severity::Error,
            Some(Level::Warning) => Severity::Warning,
            Some(Level::Info) | None => Severity::Info,
        },
        message,
        primary: Some(d.launch.span.clone()),
        related: nearest
            .iter()
            .map(|n| Related {
                span: n.span.clone(),
                label: Some(format!("nearest: {}", n.deployment)),
            })
            .collect(),
        link: None,
        about: About::Deployment(Box::new(Unpaired {
            side: d.side,
            deployment,
            identity: d.identity.clone(),
            shape: d.shape.clone(),
            nearest,
            why,
        })),
    }
}

fn differs_text(differs: &[ShapeDiff]) -> String {
    differs
        .iter()
        .map(|d| format!("{} {} vs {}", d.key, d.this, d.other))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Pairs two spaces on identity and the `pair_by` shape keys. Coverage
/// severities come from `severities` (kind name -> severity; info when absent).
pub fn pair(
    docs: &[Deployment],
    recipes: &[Deployment],
    pair_by: &[String],
    severities: &BTreeMap<String, Level>,
) -> Pairing {
    let mut out = Pairing::default();
    let mut recipe_paired = vec![false; recipes.len()];
    let entry_of = |r: &Deployment| r.origin.entry.clone().unwrap_or_default();
    for (di, d) in docs.iter().enumerate() {
        if d.refusal.is_some() {
            // Its refusal is a finding of its own ([`own_findings`]).
            continue;
        }
        if let Some(why) = d.identity.incomplete() {
            out.coverage.push(coverage(
                DOCS_UNPAIRED,
                d,
                None,
                format!("cannot be paired: {why}"),
                severities,
            ));
            continue;
        }
        let same: Vec<usize> = (0..recipes.len())
            .filter(|&ri| same_identity(&d.identity, &recipes[ri].identity))
            .collect();
        let matched: Vec<usize> = same
            .iter()
            .copied()
            .filter(|&ri| d.differs(&recipes[ri], pair_by).is_empty())
            .collect();
        if matched.is_empty() {
            let near = nearest(d, same.iter().map(|&ri| &recipes[ri]), pair_by);
            let message = match &near {
                Some((_, differs)) => format!(
                    "no benchmark of {} has this shape; nearest differs in {}",
                    d.identity.label(),
                    differs_text(differs)
                ),
                None => format!("no benchmark of {}", d.identity.label()),
            };
            out.coverage
                .push(coverage(DOCS_UNPAIRED, d, near, message, severities));
            continue;
        }
        // One pair per entry, entries in input order.
        let mut by_entry: Vec<(String, Vec<usize>)> = Vec::new();
        for ri in matched {
            recipe_paired[ri] = true;
            let e = entry_of(&recipes[ri]);
            match by_entry.iter_mut().find(|(k, _)| *k == e) {
                Some((_, v)) => v.push(ri),
                None => by_entry.push((e, vec![ri])),
            }
        }
        for (_, rs) in by_entry {
            out.pairs.push(Pair {
                docs: di,
                recipes: rs,
                nearest_only: Vec::new(),
            });
        }
    }
    // Entries none of whose points paired, with docs of their identity: the
    // nearest pair is compared.
    let mut entries: Vec<String> = Vec::new();
    for r in recipes {
        let e = entry_of(r);
        if !entries.contains(&e) {
            entries.push(e);
        }
    }
    for e in entries {
        let points: Vec<usize> = (0..recipes.len())
            .filter(|&ri| entry_of(&recipes[ri]) == e)
            .collect();
        if points.iter().any(|&ri| recipe_paired[ri]) {
            continue;
        }
        // (docs, recipe, differs)
        let mut best: Option<(usize, usize, Vec<ShapeDiff>)> = None;
        for &ri in &points {
            for (di, d) in docs.iter().enumerate() {
                if !same_identity(&d.identity, &recipes[ri].identity) {
                    continue;
                }
                let differs = d.differs(&recipes[ri], pair_by);
                let cost = distance(&differs, pair_by);
                if best
                    .as_ref()
                    .is_none_or(|(_, _, b)| cost < distance(b, pair_by))
                {
                    best = Some((di, ri, differs));
                }
            }
        }
        // Only a difference in parallelism makes a pair; another precision,
        // speculative decoding or KV offload is coverage.
        let over = crate::space::nearest_over();
        if let Some((di, ri, differs)) = best
            && differs.iter().all(|d| over.contains(&d.key))
        {
            recipe_paired[ri] = true;
            out.pairs.push(Pair {
                docs: di,
                recipes: vec![ri],
                nearest_only: differs,
            });
        }
    }
    // Unpaired recipe deployments of one entry and one shape (points that
    // differ only in concurrency-derived values) are one finding.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (ri, r) in recipes.iter().enumerate() {
        if recipe_paired[ri] || r.refusal.is_some() {
            continue;
        }
        match groups.iter_mut().find(|g| {
            let o = &recipes[g[0]];
            entry_of(o) == entry_of(r) && o.shape == r.shape && o.identity == r.identity
        }) {
            Some(g) => g.push(ri),
            None => groups.push(vec![ri]),
        }
    }
    for group in groups {
        let mut merged = recipes[group[0]].clone();
        for &ri in &group[1..] {
            merged
                .origin
                .points
                .extend(recipes[ri].origin.points.iter().cloned());
        }
        let r = &merged;
        let same: Vec<&Deployment> = docs
            .iter()
            .filter(|d| same_identity(&d.identity, &r.identity))
            .collect();
        let near = nearest(r, same.into_iter(), pair_by);
        let message = match (&near, r.identity.incomplete()) {
            (_, Some(why)) => format!("cannot be paired: {why}"),
            (Some((_, differs)), None) => format!(
                "no docs deployment of {} has this shape; nearest differs in {}",
                r.identity.label(),
                differs_text(differs)
            ),
            (None, None) => format!("no docs deployment of {}", r.identity.label()),
        };
        out.coverage
            .push(coverage(RECIPE_UNPAIRED, r, near, message, severities));
    }
    out.pairs
        .sort_by_key(|p| (p.docs, p.recipes.first().copied()));
    // What a deployment's own text says is wrong, for every deployment no
    // pair reports it through: first, ahead of the coverage.
    let mut docs_paired = vec![false; docs.len()];
    for p in &out.pairs {
        docs_paired[p.docs] = true;
    }
    let unpaired_docs = docs
        .iter()
        .zip(docs_paired)
        .filter(|(_, p)| !p)
        .map(|(d, _)| d);
    let unpaired_recipes = recipes
        .iter()
        .zip(recipe_paired)
        .filter(|(_, p)| !p)
        .map(|(r, _)| r);
    let mut own = own_findings(unpaired_docs.chain(unpaired_recipes));
    own.append(&mut out.coverage);
    out.coverage = own;
    out
}

/// The findings about what deployments' own texts say, for deployments no
/// pair reports (a command refused whole is never paired): each refusal
/// (`startup-error`) and each defect of the text (`broken-continuation`),
/// an error whatever the other side shows. Identical findings (the same
/// kind, side, place and message: a generator's states that print the same
/// refused word) are one finding listing its deployments.
fn own_findings<'a>(deployments: impl Iterator<Item = &'a Deployment>) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    let mut slots: BTreeMap<String, usize> = BTreeMap::new();
    for d in deployments {
        let side = d.side.as_str();
        let refused = d.refusal.iter().flat_map(|r| &r.errors);
        let made: Vec<Finding> = refused
            .map(|e| crate::link::startup_error_finding(side, e, &d.launch.span, None))
            .chain(
                d.launch
                    .defects
                    .iter()
                    .map(|x| crate::link::defect_finding(side, x, None)),
            )
            .collect();
        for f in made {
            // The same defect of a generator's states: the same words (the
            // refused ones, the comment and the line it cuts off) printed by
            // the same component, wherever they fall in each state's text.
            let place = match f.primary.as_ref().map(|s| s.origin()) {
                Some(crate::span::Origin::Rendered { file, .. }) => format!(
                    "{} <{}>",
                    file.display(),
                    d.origin.component.as_deref().unwrap_or("")
                ),
                _ => f
                    .primary
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
            };
            let words: Vec<&str> = f
                .primary
                .iter()
                .chain(f.related.iter().map(|r| &r.span))
                .map(|s| s.source().text().get(s.start..s.end).unwrap_or(""))
                .collect();
            let said = match &f.about {
                About::Command {
                    rule: Some(_),
                    detail,
                    ..
                } => detail.as_str(),
                _ => "",
            };
            let key = format!(
                "{}\u{0}{side}\u{0}{place}\u{0}{}\u{0}{said}",
                f.kind,
                words.join("\u{0}")
            );
            let slot = *slots.entry(key).or_insert_with(|| {
                out.push(f);
                out.len() - 1
            });
            if let About::Command { deployments, .. } = &mut out[slot].about {
                deployments.push(d.label());
            }
        }
    }
    out
}

/// The pairs (and config links) one run compares at most by default
/// (`check --max-pairs`), a bound on the run's work.
pub const MAX_PAIRS: usize = 20_000;

/// Compares every pair: the recipe deployments of a pair that give the same
/// MAJOR outcome are one report (their points listed together). Each report
/// goes to `keep` on the worker that made it, and what `keep` returns goes
/// to `take` on the calling thread, in pair order, as the pairs are done
/// (so the run holds a few reports at a time). Returns the pairs that could
/// not be compared.
pub fn run_pairs<T: Send>(
    docs: &[Deployment],
    recipes: &[Deployment],
    pairing: &Pairing,
    ctx: &Overrides,
    policy: &Policy,
    keep: impl Fn(LinkReport) -> T + Sync,
    mut take: impl FnMut(T),
) -> Vec<(String, Error)> {
    let none = SideSpec::default();
    let shared = crate::link::RecipeResolutions::default();
    // The pairs are independent: run on every core, results in pair order.
    let mut failures = Vec::new();
    crate::parallel::each_in_order(
        &pairing.pairs,
        |p| {
            let mut reports = Vec::new();
            let mut failures = Vec::new();
            let d = &docs[p.docs];
            let single = p.recipes.len() == 1;
            let mut merged: Vec<(String, LinkReport, crate::space::Origin)> = Vec::new();
            let mut seen = crate::link::DocsResolutions::default();
            for &ri in &p.recipes {
                let r = &recipes[ri];
                let name = format!("{} ~ {}", d.label(), r.label());
                match crate::link::run_pair(
                    &name,
                    d.launch.clone(),
                    r.launch.clone(),
                    &none,
                    &none,
                    ctx,
                    policy,
                    &mut seen,
                    Some((&shared, ri)),
                ) {
                    Ok(mut report) => {
                        let sig = crate::link::settle(&mut report, !single, policy);
                        match merged.iter_mut().find(|m| m.0 == sig) {
                            Some(m) => m.2.points.extend(r.origin.points.iter().cloned()),
                            None => merged.push((sig, report, r.origin.clone())),
                        }
                    }
                    Err(e) => failures.push((name, e)),
                }
            }
            for (_, mut report, origin) in merged {
                let recipe_label = {
                    let mut s = format!("entry {}", origin.entry.as_deref().unwrap_or(""));
                    if let Some(pl) = crate::space::points_label(&origin.points) {
                        s.push_str(&format!(" [{pl}]"));
                    }
                    s
                };
                report.name = format!("{} ~ {recipe_label}", d.label());
                if !p.nearest_only.is_empty() {
                    report.warnings.push(crate::launch::Remark {
                    span: None,
                    message: format!(
                        "paired by the nearest shape: no point of entry {} has the shape of a docs deployment of {} (differs in {})",
                        origin.entry.as_deref().unwrap_or(""),
                        d.identity.label(),
                        differs_text(&p.nearest_only)
                    ),
                });
                }
                report.pair = Some(crate::space::PairInfo {
                    docs: d.origin.clone(),
                    recipe: origin,
                    role: "single",
                    nearest_only: p.nearest_only.clone(),
                });
                reports.push(keep(report));
            }
            (reports, failures)
        },
        |(reports, f)| {
            reports.into_iter().for_each(&mut take);
            failures.extend(f);
        },
    );
    failures
}

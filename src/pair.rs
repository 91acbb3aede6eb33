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
pub use crate::finding::CROSS_ROLE;

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

/// Whether two deployments start the same roles: a single server pairs
/// with a single server, a prefill + decode deployment with a prefill +
/// decode one, whatever `pair-by` says (a role is compared with the same
/// role only).
fn same_roles(a: &Deployment, b: &Deployment) -> bool {
    a.role_set() == b.role_set()
}

/// Why a recipe deployment with roles has no docs partner when docs of its
/// identity exist with other roles only: InferenceX's own sign-off does not
/// ask multi-node entries for a docs recipe.
fn roles_note(r: &Deployment, docs_roles: &[String]) -> String {
    format!(
        "the docs of {} show {} deployments only, none with roles {}: InferenceX's sign-off exempts multi-node entries from the recipe link (\"N/A\"), so this is coverage, not drift",
        r.identity.label(),
        docs_roles.join(", "),
        r.roles_label()
    )
}

/// Which identity two deployments share (both complete and equal).
fn same_identity(a: &Identity, b: &Identity) -> bool {
    a.same_as(b)
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
        span: c.launch().span.clone(),
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
        primary: Some(d.launch().span.clone()),
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
        fix: None,
    }
}

/// The distinct role sets of some deployments, as messages name them, in
/// input order (`single`, `prefill + decode`).
fn role_sets<'a>(ds: impl Iterator<Item = &'a Deployment>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for d in ds {
        let l = d.roles_label();
        if !out.contains(&l) {
            out.push(l);
        }
    }
    out
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
        if !d.refusals.is_empty() {
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
        let identity: Vec<usize> = (0..recipes.len())
            .filter(|&ri| same_identity(&d.identity, &recipes[ri].identity))
            .collect();
        let same: Vec<usize> = identity
            .iter()
            .copied()
            .filter(|&ri| same_roles(d, &recipes[ri]))
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
                None if !identity.is_empty() => format!(
                    "no benchmark of {} with roles {} (its benchmarks: {})",
                    d.identity.label(),
                    d.roles_label(),
                    role_sets(identity.iter().map(|&ri| &recipes[ri])).join(", ")
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
                if !same_identity(&d.identity, &recipes[ri].identity)
                    || !same_roles(d, &recipes[ri])
                {
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
        if recipe_paired[ri] || !r.refusals.is_empty() {
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
        let identity: Vec<&Deployment> = docs
            .iter()
            .filter(|d| same_identity(&d.identity, &r.identity))
            .collect();
        let same: Vec<&Deployment> = identity
            .iter()
            .copied()
            .filter(|d| same_roles(d, r))
            .collect();
        let near = nearest(r, same.into_iter(), pair_by);
        let message = match (&near, r.identity.incomplete()) {
            (_, Some(why)) => format!("cannot be paired: {why}"),
            (None, None) if !identity.is_empty() => {
                roles_note(r, &role_sets(identity.iter().copied()))
            }
            (None, None) if !r.is_single() => format!(
                "no docs deployment of {}; InferenceX's sign-off exempts multi-node entries from the recipe link (\"N/A\"), so this is coverage, not drift",
                r.identity.label()
            ),
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
        let refused = d.refusals.iter().flat_map(|r| {
            let at = d
                .roles
                .iter()
                .find(|s| s.role == r.role)
                .map_or(&d.launch().span, |s| &s.launch.span);
            r.errors.iter().map(move |e| (e, at))
        });
        let made: Vec<Finding> = refused
            .map(|(e, at)| crate::link::startup_error_finding(side, e, at, None))
            .chain(d.roles.iter().flat_map(|s| {
                s.launch
                    .defects
                    .iter()
                    .map(|x| crate::link::defect_finding(side, x, None))
            }))
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

/// Slots per recipe deployment in the shared resolutions: one per role.
const ROLE_SLOTS: usize = 4;

/// A pair report's name with the role it compares (`... (role prefill)`);
/// a single server's name as it is.
fn with_role(name: String, role: crate::launch::Role) -> String {
    if role.is_single() {
        name
    } else {
        format!("{name} (role {role})")
    }
}

/// Coverage for the points whose servers are not known (a multi-node
/// recipe that is only in the cloned srt-slurm ref, a role that cannot be
/// rendered): `recipe-unpaired`, placed on the point's `CONFIG_FILE`
/// setting, saying why; every shape key unknown with that reason.
pub fn unknown_points(
    unknown: &[crate::space::load::UnknownPoints],
    severities: &BTreeMap<String, Level>,
) -> Vec<Finding> {
    unknown
        .iter()
        .map(|u| {
            let deployment = u.label();
            let why = format!("not known, so not compared: {}", u.why);
            let shape = crate::space::shape_keys()
                .into_iter()
                .map(|k| {
                    (
                        k.to_string(),
                        crate::space::ShapeValue::Unknown {
                            unknown: u.why.clone(),
                        },
                    )
                })
                .collect();
            Finding {
                kind: RECIPE_UNPAIRED,
                severity: match severities.get(RECIPE_UNPAIRED) {
                    Some(Level::Error) => Severity::Error,
                    Some(Level::Warning) => Severity::Warning,
                    Some(Level::Info) | None => Severity::Info,
                },
                message: Text::input(&deployment).and(": ").and_input(&why),
                primary: u.at.clone(),
                related: Vec::new(),
                link: None,
                about: About::Deployment(Box::new(Unpaired {
                    side: crate::space::Side::Recipe,
                    deployment,
                    identity: u.identity.clone(),
                    shape,
                    nearest: None,
                    why,
                })),
                fix: None,
            }
        })
        .collect()
}

/// The `cross-role` findings of deployments with roles: one per key their
/// prefill and decode workers disagree on (`src/space/roles.yaml`), placed
/// on the decode worker's value with the prefill worker's beside it; an
/// error where the release refuses the disagreement, else a warning.
pub fn cross_role_findings<'a>(deployments: impl Iterator<Item = &'a Deployment>) -> Vec<Finding> {
    let mut out = Vec::new();
    for d in deployments {
        let side = d.side.as_str();
        for x in &d.cross_role {
            let values: Vec<String> = x
                .values
                .iter()
                .map(|v| format!("{} {}", v.role, v.value))
                .collect();
            let headline = format!("the {side} deployment's workers disagree on {}", x.key);
            let mut detail = format!("{}: {}", values.join(", "), x.why);
            if let Some(r) = &x.refused {
                detail.push_str(&format!("; under {}: {}", r.release, r.message));
            }
            let primary = x.values.last().map(|v| v.at.clone());
            let related = x.values[..x.values.len().saturating_sub(1)]
                .iter()
                .map(|v| Related {
                    span: v.at.clone(),
                    label: Some(format!(
                        "{}: {}",
                        v.role,
                        v.written.as_deref().unwrap_or(&v.value)
                    )),
                })
                .collect();
            let rule = match &x.refused {
                Some(r) => (format!("{} refuses it", r.release), r.reference.clone()),
                None => (format!("the roles agree on {}", x.key), x.why.clone()),
            };
            out.push(Finding {
                kind: CROSS_ROLE,
                severity: if x.refused.is_some() {
                    Severity::Error
                } else {
                    Severity::Warning
                },
                message: Text::own(format!("{headline}: ")).and_input(&detail),
                primary,
                related,
                link: None,
                about: About::Command {
                    side,
                    headline,
                    detail,
                    rule: Some(rule),
                    own_place: true,
                    deployments: vec![d.label()],
                },
                fix: None,
            });
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
            // Role by role: the docs prefill with the recipe prefill, and so on.
            for ds in &d.roles {
                let mut merged: Vec<(String, LinkReport, crate::space::Origin)> = Vec::new();
                let mut seen = crate::link::DocsResolutions::default();
                for &ri in &p.recipes {
                    let r = &recipes[ri];
                    let Some(rs) = r.roles.iter().find(|x| x.role == ds.role) else {
                        continue;
                    };
                    let name = with_role(format!("{} ~ {}", d.label(), r.label()), ds.role);
                    match crate::link::run_pair(
                        &name,
                        ds.launch.clone(),
                        rs.launch.clone(),
                        &none,
                        &none,
                        ctx,
                        policy,
                        &mut seen,
                        Some((&shared, ri * ROLE_SLOTS + ds.role as usize)),
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
                    report.name = with_role(format!("{} ~ {recipe_label}", d.label()), ds.role);
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
                        role: ds.role.name(),
                        nearest_only: p.nearest_only.clone(),
                    });
                    reports.push(keep(report));
                }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::{Known, Role};
    use crate::space::{Origin, RoleServer, Side};

    /// A deployment of `roles` (role, command) on B200, each resolved with
    /// SGLang 0.5.19, as the loaders make them.
    fn deployment(side: Side, roles: &[(Role, &str)], entry: Option<&str>) -> Deployment {
        let mut servers = Vec::new();
        let mut identity = None;
        for (role, cmd) in roles {
            let src = std::sync::Arc::new(crate::span::Source::new(
                crate::span::Origin::Inline(format!("{} {role}", side.as_str())),
                format!("{cmd}\n"),
            ));
            let mut launch = crate::extract::extract_source(
                &src,
                crate::extract::InputKind::Command,
                &BTreeMap::new(),
            )
            .unwrap()
            .remove(0);
            launch.role = *role;
            launch.context.hardware = Some(Known {
                value: "b200".into(),
                from: "test".into(),
            });
            let opts = crate::resolved::ResolveOptions {
                engine_version: Some("0.5.19".into()),
                ..Default::default()
            };
            let r = crate::engine::resolve_outcome(&launch, &opts).unwrap();
            let id = crate::space::identity_of(&launch, &r, &BTreeMap::new());
            let shape = crate::space::shape_of(&r, id.model.as_deref());
            identity.get_or_insert(id);
            servers.push(RoleServer {
                role: *role,
                launch,
                shape,
            });
        }
        let shapes: Vec<(Role, &crate::space::Shape)> =
            servers.iter().map(|s| (s.role, &s.shape)).collect();
        let shape = crate::space::combine_shapes(&shapes);
        Deployment {
            side,
            origin: Origin {
                file: "f".into(),
                selection: Vec::new(),
                component: None,
                entry: entry.map(String::from),
                points: Vec::new(),
            },
            roles: servers,
            identity: identity.unwrap(),
            shape,
            refusals: Vec::new(),
            cross_role: Vec::new(),
        }
    }

    const P8: &str = "sglang serve --model-path org/M-FP8 --disaggregation-mode prefill --tp 8";
    const D16: &str = "sglang serve --model-path org/M-FP8 --disaggregation-mode decode --tp 16";
    const SINGLE: &str = "sglang serve --model-path org/M-FP8 --tp 8";

    fn run(docs: &[Deployment], recipes: &[Deployment]) -> Pairing {
        pair(
            docs,
            recipes,
            &crate::space::default_pair_by(),
            &BTreeMap::new(),
        )
    }

    #[test]
    fn deployments_with_roles_pair_role_by_role_on_each_roles_shape() {
        let docs = [deployment(
            Side::Docs,
            &[(Role::Prefill, P8), (Role::Decode, D16)],
            None,
        )];
        let same = deployment(
            Side::Recipe,
            &[(Role::Prefill, P8), (Role::Decode, D16)],
            Some("e"),
        );
        // The decode worker's tp differs: another shape.
        let other = deployment(
            Side::Recipe,
            &[(Role::Prefill, P8), (Role::Decode, &D16.replace("16", "8"))],
            Some("e"),
        );
        assert_eq!(same.shape["tp"].display(), "prefill 8 / decode 16");
        assert_eq!(other.shape["tp"].display(), "8");
        let p = run(&docs, &[same, other]);
        assert_eq!(p.pairs.len(), 1);
        assert_eq!(p.pairs[0].recipes, [0]);
        assert!(p.pairs[0].nearest_only.is_empty());
    }

    #[test]
    fn a_single_server_never_pairs_with_a_role_of_a_disaggregated_deployment() {
        let docs = [deployment(Side::Docs, &[(Role::Single, SINGLE)], None)];
        let recipes = [deployment(
            Side::Recipe,
            &[(Role::Prefill, P8), (Role::Decode, &D16.replace("16", "8"))],
            Some("e"),
        )];
        // Same identity, and every role has the docs' shape: still no pair,
        // not even by the nearest shape.
        let p = run(&docs, &recipes);
        assert!(p.pairs.is_empty(), "{:?}", p.pairs);
        let recipe = p
            .coverage
            .iter()
            .find(|f| f.kind == RECIPE_UNPAIRED)
            .expect("recipe coverage");
        let m = recipe.message.to_string();
        assert!(
            m.contains("show single deployments only, none with roles prefill + decode")
                && m.contains("sign-off exempts multi-node"),
            "{m}"
        );
        let docs_side = p.coverage.iter().find(|f| f.kind == DOCS_UNPAIRED).unwrap();
        let m = docs_side.message.to_string();
        assert!(
            m.contains("with roles single (its benchmarks: prefill + decode)"),
            "{m}"
        );
    }

    #[test]
    fn a_pair_with_roles_is_one_report_per_role_each_naming_it() {
        let docs = [deployment(
            Side::Docs,
            &[(Role::Prefill, P8), (Role::Decode, D16)],
            None,
        )];
        let recipes = [deployment(
            Side::Recipe,
            &[
                (Role::Prefill, &format!("{P8} --kv-cache-dtype fp8_e4m3")),
                (Role::Decode, D16),
            ],
            Some("e"),
        )];
        let pairing = run(&docs, &recipes);
        let mut reports = Vec::new();
        let failures = run_pairs(
            &docs,
            &recipes,
            &pairing,
            &Overrides::default(),
            &Policy::default(),
            |r| r,
            |r| reports.push(r),
        );
        assert!(failures.is_empty(), "{failures:?}");
        let roles: Vec<&str> = reports
            .iter()
            .map(|r| r.pair.as_ref().unwrap().role)
            .collect();
        assert_eq!(roles, ["prefill", "decode"]);
        assert!(reports[0].name.ends_with("(role prefill)"));
        // The prefill's KV-cache dtype is the prefill pair's finding only.
        let keys = |r: &LinkReport| -> Vec<String> {
            r.findings()
                .iter()
                .filter_map(|f| match &f.about {
                    About::Key(k) => Some(k.key.clone()),
                    _ => None,
                })
                .collect()
        };
        assert!(keys(&reports[0]).contains(&"kv_cache_dtype".to_string()));
        assert!(!keys(&reports[1]).contains(&"kv_cache_dtype".to_string()));
        assert!(reports[0].findings().iter().all(|f| {
            f.link
                .as_deref()
                .is_some_and(|l| l.ends_with("(role prefill)"))
        }));
    }

    #[test]
    fn report_names_say_the_role() {
        assert_eq!(with_role("a ~ b".into(), Role::Single), "a ~ b");
        assert_eq!(
            with_role("a ~ b".into(), Role::Decode),
            "a ~ b (role decode)"
        );
    }
}

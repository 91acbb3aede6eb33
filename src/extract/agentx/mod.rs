//! AgentX tables: the SGLang cookbook's launch explorer for InferenceX's
//! AgentX submissions (`_agentx.jsx`, rendered on a page as
//! `<AgentX data={agentx} />`) over a generated data module
//! (`agentx/<org>/<model>.jsx`). The data is read, not the component run:
//! each cell names its InferenceX entry (`configKey`), hardware and
//! checkpoint, and each worker block its role, which a rendered view shows
//! only as page text, one process per tab. The decoder ([`decode`]) and the
//! printer ([`format`]) do what the component does (`blocksFor`,
//! `formatBlock`); `tests/agentx_differential.rs` proves it block by block
//! against the component rendered by real React.
//!
//! A reader's states are every cell, point (concurrency), KV-offload tier
//! (the measured one and each available one) and router the page offers.
//! Each state's worker blocks are its servers, with their roles (`agg` ->
//! `aggregated`, `prefill`, `decode`); the other blocks (etcd, NATS, the
//! Dynamo frontend, the router, Mooncake's master) start no engine and are
//! not read. Every printed worker command goes through the one shell front
//! end, and each of its words keeps the place in the data module it is
//! written at (`Token::written_at`).

mod data;
mod decode;
mod format;
mod page;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::Arc;

pub use data::{EXPORT, is_data_module};
pub use page::{PageTable, resolve, tables};

use crate::error::Error;
use crate::extract::shell_text;
use crate::extract::yaml_tree::Node;
use crate::launch::{Context, Known, Launch, Role};
use crate::span::{Origin, Source};

/// The block kinds that start an engine server.
const SERVER_KINDS: [&str; 1] = ["worker"];

/// AgentX role names -> roles.
const ROLES: [(&str, Role); 3] = [
    ("agg", Role::Aggregated),
    ("prefill", Role::Prefill),
    ("decode", Role::Decode),
];

/// The KV-offload tiers the page offers, in its order.
const KV_TIERS: [&str; 3] = ["none", "hicache", "mooncake"];

/// One state of an AgentX table: what the reader picked, the InferenceX
/// entry the cell names, and the servers it shows.
#[derive(Debug)]
pub struct State {
    /// `hardware`, `checkpoint`, `deployment` (the cell), `concurrency`,
    /// `kv`, `router`, in the page's control order.
    pub selection: Vec<(String, String)>,
    /// The InferenceX entry the cell names (`configKey`).
    pub entry: Option<String>,
    /// The worker launches, each with its role.
    pub launches: Vec<Launch>,
    /// Why this state's commands could not be read (the others still are).
    pub error: Option<Error>,
    /// Whether the page shows this state first: the first hardware's first
    /// checkpoint's first cell, its first point, the measured KV tier and the
    /// submitted router.
    pub first: bool,
}

/// A state's selection and the text of each block the page prints for it.
pub type Printed = (Vec<(String, String)>, Vec<String>);

/// One state the page offers: the cell, point, KV tier and router picked,
/// as the selection names them.
struct Pick {
    ci: usize,
    pi: usize,
    kv: String,
    router: String,
    selection: Vec<(String, String)>,
    entry: Option<String>,
    first: bool,
}

/// Every state of a data module, in the page's order: cells, their points,
/// the KV tiers (the measured one and each available one), the routers.
fn picks(root: &Node, decoder: &decode::Decoder<'_>) -> Vec<Pick> {
    // The cell the page opens on (`cellsFor(hw0, ckptsFor(hw0)[0])[0]`).
    let hw0 = root
        .get("hardware")
        .and_then(|h| h.items().first())
        .and_then(|h| h.get("id"))
        .and_then(Node::scalar_string);
    let first_cell = decoder
        .cells()
        .iter()
        .position(|c| c.get("hw").and_then(Node::scalar_string) == hw0);
    let mut out = Vec::new();
    for (ci, cell) in decoder.cells().iter().enumerate() {
        let text = |k: &str| cell.get(k).and_then(Node::scalar_string);
        let points = cell.get("points").map(Node::items).unwrap_or(&[]);
        let mut routers: Vec<String> = cell
            .get("routers")
            .map(|r| r.keys().into_iter().map(str::to_string).collect())
            .unwrap_or_default();
        routers.sort();
        let available: Vec<String> = cell
            .path(&["kv", "available"])
            .map(|a| a.items().iter().filter_map(Node::scalar_string).collect())
            .unwrap_or_default();
        for (pi, point) in points.iter().enumerate() {
            let measured = point
                .get("kv")
                .and_then(Node::scalar_string)
                .unwrap_or_default();
            let concs = point
                .get("concs")
                .map(|c| {
                    c.items()
                        .iter()
                        .filter_map(Node::scalar_string)
                        .collect::<Vec<_>>()
                        .join("/")
                })
                .unwrap_or_default();
            let tiers = KV_TIERS
                .iter()
                .filter(|t| **t == measured || available.iter().any(|a| a == *t));
            for kv in tiers {
                for router in &routers {
                    let selection: Vec<(String, String)> = [
                        ("hardware", text("hw")),
                        ("checkpoint", text("ckpt")),
                        ("deployment", text("id")),
                        ("concurrency", Some(concs.clone())),
                        ("kv", Some(kv.to_string())),
                        ("router", Some(router.clone())),
                    ]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v.unwrap_or_default()))
                    .collect();
                    out.push(Pick {
                        ci,
                        pi,
                        kv: kv.to_string(),
                        router: router.clone(),
                        selection,
                        entry: text("configKey"),
                        first: first_cell == Some(ci)
                            && pi == 0
                            && *kv == measured
                            && Some(router) == text("submitted").as_ref(),
                    });
                }
            }
        }
    }
    out
}

/// Every state of the data module `source`, with the user's variables.
pub fn states(source: &Arc<Source>, vars: &BTreeMap<String, String>) -> Result<Vec<State>, Error> {
    let root = data::parse(source)?;
    let decoder = decode::Decoder::new(&root)?;
    Ok(picks(&root, &decoder)
        .into_iter()
        .map(|p| {
            let cell = &decoder.cells()[p.ci];
            let (launches, error) = match launches(source, &decoder, cell, &p, vars) {
                Ok(l) => (l, None),
                Err(e) => (Vec::new(), Some(e)),
            };
            State {
                selection: p.selection,
                entry: p.entry,
                launches,
                error,
                first: p.first,
            }
        })
        .collect())
}

/// Every state of the data module `source` with the text of each of its
/// blocks as the page prints them (every kind, in the page's order): what
/// the differential test compares with the component rendered by React.
pub fn printed_states(source: &Arc<Source>) -> Result<Vec<Printed>, Error> {
    let root = data::parse(source)?;
    let decoder = decode::Decoder::new(&root)?;
    picks(&root, &decoder)
        .into_iter()
        .map(|p| {
            let blocks = decoder.blocks_for(p.ci, p.pi, &p.router, &p.kv)?;
            Ok((
                p.selection,
                blocks.iter().map(|b| format::print(b).text).collect(),
            ))
        })
        .collect()
}

/// The worker launches of one state.
fn launches(
    source: &Arc<Source>,
    decoder: &decode::Decoder<'_>,
    cell: &Node,
    p: &Pick,
    vars: &BTreeMap<String, String>,
) -> Result<Vec<Launch>, Error> {
    let blocks = decoder.blocks_for(p.ci, p.pi, &p.router, &p.kv)?;
    let view = p
        .selection
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ");
    let from = format!(
        "AgentX cell {}",
        cell.get("id")
            .and_then(Node::scalar_string)
            .unwrap_or_default()
    );
    let mut out = Vec::new();
    for b in blocks {
        if !SERVER_KINDS.contains(&b.kind().unwrap_or_default().as_str()) {
            continue;
        }
        let role_name = b.text("role").unwrap_or_default();
        let role = ROLES
            .iter()
            .find(|(n, _)| *n == role_name)
            .map(|(_, r)| *r)
            .ok_or_else(|| {
                Error::input(
                    b.get("role").map_or(b.at.clone(), |r| r.span.clone()),
                    format!("`{role_name}` is not a worker role (agg, prefill, decode)"),
                )
            })?;
        let printed = format::print(&b);
        let origin = match &source.origin {
            Origin::File(p) | Origin::Rendered { file: p, .. } => Origin::Rendered {
                file: p.clone(),
                view: format!("AgentX {view} {role_name} worker"),
            },
            other => other.clone(),
        };
        let text = Arc::new(Source::new(origin, printed.text));
        let mut found = shell_text::extract(&text, vars)?;
        if found.len() != 1 {
            return Err(Error::input(
                b.at.clone(),
                format!(
                    "this {role_name} worker's printed command starts {} servers, not one",
                    found.len()
                ),
            ));
        }
        let mut l = found.remove(0);
        // The words after the launcher are the printed arguments, in order:
        // each is placed where the data module writes it.
        let tail = printed.words.len().min(l.argv.len());
        let start = l.argv.len() - tail;
        if l.argv[start..]
            .iter()
            .map(|t| t.text.as_str())
            .eq(printed.words[printed.words.len() - tail..]
                .iter()
                .map(|w| w.0.as_str()))
        {
            for (t, (_, at)) in l.argv[start..]
                .iter_mut()
                .zip(&printed.words[printed.words.len() - tail..])
            {
                t.written_at = Some(at.clone());
            }
        }
        l.role = role;
        if let Some(hw) = cell.get("hw").and_then(Node::scalar_string) {
            l.context.hardware.get_or_insert(Known {
                value: hw,
                from: from.clone(),
            });
        }
        if let Some(image) = cell.get("image").and_then(Node::scalar_string) {
            let ctx = Context::from_image(&image, &format!("image {image} of {from}"));
            l.context.fill_from(&ctx);
        }
        out.push(l);
    }
    Ok(out)
}

/// Every state of each AgentX table a page renders (`page` read from
/// `file`), one list per table in page order; the data modules are read
/// through `files`.
pub fn page_states(
    page: &Arc<Source>,
    file: &std::path::Path,
    docs_root: Option<&std::path::Path>,
    files: &dyn crate::files::Files,
    vars: &BTreeMap<String, String>,
) -> Result<Vec<Vec<State>>, Error> {
    let Some(tables) = tables(&page.text) else {
        return Err(Error::input(
            page.span(0, 0),
            "this page renders no AgentX table",
        ));
    };
    let mut out = Vec::new();
    for t in &tables {
        let path = resolve(page, file, t, docs_root)?;
        let module = files
            .read(&crate::files::Location::Path(path.clone()))
            .map_err(|e| {
                Error::input(
                    page.span(t.at, t.at),
                    format!("cannot read `{}`: {e}", t.module),
                )
            })?;
        out.push(states(&module, vars)?);
    }
    Ok(out)
}

/// The state `select` picks (each `key=value` on its selection), else the
/// one the page shows first. `at` places the error of a selection no state
/// has.
pub fn pick(
    states: Vec<State>,
    select: &[(String, String)],
    at: &crate::span::Span,
) -> Result<State, Error> {
    let wanted = |s: &State| {
        if select.is_empty() {
            s.first
        } else {
            select
                .iter()
                .all(|(k, v)| s.selection.iter().any(|(sk, sv)| sk == k && sv == v))
        }
    };
    let keys: Vec<String> = states
        .first()
        .map(|s| s.selection.iter().map(|(k, _)| k.clone()).collect())
        .unwrap_or_default();
    states.into_iter().find(wanted).ok_or_else(|| {
        Error::input(
            at.clone(),
            format!(
                "no state of this AgentX table has the selection {} (its keys: {})",
                select
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" "),
                keys.join(", ")
            ),
        )
    })
}

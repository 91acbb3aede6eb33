//! The AgentX decoder, as the cookbook's `_agentx.jsx` runs it: a cell's
//! blocks per router (`materialize`: full blocks, `{from, diff}` blocks
//! relative to a block of the cell's submitted router, `{ref, diff}` blocks
//! relative to another cell's, `envRef` into the shared environments), a
//! later point's `patch` on the first point's blocks, and a KV-offload tier
//! other than the measured one (`kvTransform`). Values stay spanned tree
//! nodes, so every word keeps the place in the data module it is written at.
//!
//! JavaScript's semantics are kept where they show: `null` deletes and a
//! missing key leaves alone, object keys keep insertion order until the
//! component sorts them, `Array.prototype.sort` is stable, and
//! `splice(-1, 0, x)` inserts before the last block. Where the component
//! would throw (a block without `args` given a diff, a `from` index out of
//! range), reading fails with the place of the value.

use std::collections::BTreeSet;

use crate::error::Error;
use crate::extract::yaml_tree::{Node, Val};
use crate::span::Span;

/// Arguments the component puts first, in this order; the others follow by name.
const LEAD_FLAGS: [&str; 11] = [
    "--model-path",
    "--served-model-name",
    "--host",
    "--port",
    "--disaggregation-mode",
    "--disaggregation-bootstrap-port",
    "--dist-init-addr",
    "--nnodes",
    "--node-rank",
    "--request-plane",
    "--kv-events-config",
];

/// Arguments of the Mooncake external linker (a KV tier's own, besides
/// `--enable-hierarchical-cache` and `--hicache-*`).
const LINKER_FLAGS: [&str; 3] = [
    "--enable-unified-cache-external-linker",
    "--unified-cache-external-linker-backend",
    "--hicache-storage-backend-extra-config",
];

/// Environment only the Mooncake store's clients read.
const STORE_ONLY_ENV: [&str; 4] = [
    "MOONCAKE_MASTER",
    "MOONCAKE_TE_META_DATA_SERVER",
    "MOONCAKE_GLOBAL_SEGMENT_SIZE",
    "MOONCAKE_STANDALONE_STORAGE",
];

/// The worker roles that hold the prefix cache (a KV tier goes on them).
const CACHE_ROLES: [&str; 2] = ["agg", "prefill"];

/// The block kinds a Mooncake tier adds (dropped when it is taken away).
const MOONCAKE_KINDS: [&str; 2] = ["mooncake-master", "mooncake-store"];

/// The keys of a `{from | ref, diff, drop}` block that are not copied.
const REF_KEYS: [&str; 4] = ["from", "diff", "drop", "ref"];

/// The most nested `from` / `ref` references followed (the component has no
/// bound: a cycle overflows its stack).
const MAX_REF_DEPTH: usize = 32;

/// One block: a JavaScript object (keys in insertion order).
#[derive(Debug, Clone)]
pub(super) struct Block {
    /// Where the block (or the diff that made it) is written.
    pub at: Span,
    /// Its keys and values.
    pub fields: Vec<(String, Node)>,
}

impl Block {
    fn of(node: &Node) -> Result<Block, Error> {
        if !node.is_map() {
            return Err(Error::input(
                node.span.clone(),
                "an AgentX block is an object",
            ));
        }
        Ok(Block {
            at: node.span.clone(),
            fields: node
                .entries()
                .iter()
                .map(|(k, _, v)| (k.clone(), v.clone()))
                .collect(),
        })
    }

    /// The value of `key` (`None`: undefined).
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// `block[key] = value`: in place when present, else appended.
    fn set(&mut self, key: &str, value: Node) {
        match self.fields.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => self.fields.push((key.to_string(), value)),
        }
    }

    fn remove(&mut self, key: &str) {
        self.fields.retain(|(k, _)| k != key);
    }

    /// `String(block[key])` for a scalar key.
    pub fn text(&self, key: &str) -> Option<String> {
        self.get(key).and_then(Node::scalar_string)
    }

    /// Its `kind` (`worker`, `etcd`, ...).
    pub fn kind(&self) -> Option<String> {
        self.text("kind")
    }

    /// Its arguments (`[[flag, value...]]`); `None` when it has none.
    pub fn args(&self) -> Option<&[Node]> {
        self.get("args")
            .filter(|n| matches!(n.val, Val::Seq(_)))
            .map(Node::items)
    }

    /// Its environment, in key order as the object holds it.
    pub fn env(&self) -> Vec<(String, Node)> {
        match self.get("env") {
            Some(n) => n
                .entries()
                .iter()
                .map(|(k, _, v)| (k.clone(), v.clone()))
                .collect(),
            None => Vec::new(),
        }
    }
}

/// The flag of an argument (`a[0]`, as a key).
fn flag(arg: &Node) -> String {
    arg.items()
        .first()
        .and_then(Node::scalar_string)
        .unwrap_or_default()
}

/// `cmpArgs`: lead flags first in their order, then the others by name.
fn arg_rank(name: &str) -> (usize, &str) {
    match LEAD_FLAGS.iter().position(|f| *f == name) {
        Some(i) => (i, ""),
        None => (LEAD_FLAGS.len(), name),
    }
}

fn sort_args(args: &mut [Node]) {
    args.sort_by(|a, b| {
        let (fa, fb) = (flag(a), flag(b));
        // UTF-16 order equals byte order for the ASCII flags; a stable sort.
        arg_rank(&fa).cmp(&arg_rank(&fb))
    });
}

fn seq(at: &Span, items: Vec<Node>) -> Node {
    Node {
        span: at.clone(),
        val: Val::Seq(items),
    }
}

fn map(at: &Span, entries: Vec<(String, Node)>) -> Node {
    Node {
        span: at.clone(),
        val: Val::Map(
            entries
                .into_iter()
                .map(|(k, v)| (k, at.clone(), v))
                .collect(),
        ),
    }
}

/// `sortedObj`: the entries sorted by key.
fn sorted(mut entries: Vec<(String, Node)>) -> Vec<(String, Node)> {
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries
}

/// `o[k] = v` on an ordered object.
fn put(entries: &mut Vec<(String, Node)>, k: &str, v: Node) {
    match entries.iter_mut().find(|(x, _)| x == k) {
        Some(slot) => slot.1 = v,
        None => entries.push((k.to_string(), v)),
    }
}

/// `o[key]` of a JSON object, `null` included (`None`: undefined).
/// ([`Node::get`] reads a null as absent, which a diff cannot.)
fn raw<'n>(o: &'n Node, key: &str) -> Option<&'n Node> {
    o.entries()
        .iter()
        .rev()
        .find(|(k, _, _)| k == key)
        .map(|(_, _, v)| v)
}

fn is_null(n: Option<&Node>) -> bool {
    matches!(n, Some(Node { val: Val::Null, .. }))
}

/// `applyDiff`.
fn apply_diff(block: &Block, d: Option<&Node>) -> Result<Block, Error> {
    let Some(d) = d.filter(|d| d.truthy()) else {
        return Ok(block.clone());
    };
    if let Some(full) = d.get("block").filter(|b| b.truthy()) {
        return Block::of(full);
    }
    let mut b = block.clone();
    let empty = map(&d.span, Vec::new());
    let da = d.get("args").unwrap_or(&empty);
    let Some(args) = b.args() else {
        return Err(Error::input(
            d.span.clone(),
            "this diff applies to a block without `args` (the page would throw)",
        ));
    };
    let mut out: Vec<Node> = Vec::new();
    for a in args {
        let f = flag(a);
        match raw(da, &f) {
            Some(Node { val: Val::Null, .. }) => {}
            Some(v) => {
                let mut items = vec![a.items().first().cloned().unwrap_or_else(|| a.clone())];
                items.extend(spread(v)?);
                out.push(seq(&v.span, items));
            }
            None => out.push(a.clone()),
        }
    }
    let names: BTreeSet<String> = out.iter().map(flag).collect();
    for (k, key_at, v) in da.entries() {
        if !matches!(v.val, Val::Null) && !names.contains(k) {
            let mut items = vec![Node {
                span: key_at.clone(),
                val: Val::Str(k.clone()),
            }];
            items.extend(spread(v)?);
            out.push(seq(&v.span, items));
        }
    }
    if b.kind().as_deref() == Some("worker") {
        sort_args(&mut out);
    }
    b.set("args", seq(&d.span, out));
    let de = raw(d, "env").filter(|e| e.is_map());
    let mut env: Vec<(String, Node)> = Vec::new();
    for (k, v) in b.env() {
        if !is_null(de.and_then(|e| raw(e, &k))) {
            put(&mut env, &k, v);
        }
    }
    for (k, _, v) in de.map(Node::entries).unwrap_or(&[]) {
        if !matches!(v.val, Val::Null) {
            put(&mut env, k, v.clone());
        }
    }
    b.set("env", map(&d.span, sorted(env)));
    Ok(b)
}

/// `...values` of a diff's argument values (an array).
fn spread(v: &Node) -> Result<Vec<Node>, Error> {
    match &v.val {
        Val::Seq(items) => Ok(items.clone()),
        _ => Err(Error::input(
            v.span.clone(),
            "an argument's values in an AgentX diff are an array",
        )),
    }
}

/// The decoder of one data module.
pub(super) struct Decoder<'a> {
    data: &'a Node,
    cells: &'a [Node],
    /// `materialize`'s results by (cell, router), as the component's `memo`:
    /// blocks that refer to others cost one materialization each, not one
    /// per reference (a chain of references would otherwise multiply).
    memo: std::cell::RefCell<std::collections::HashMap<(usize, String), Vec<Block>>>,
}

impl<'a> Decoder<'a> {
    /// A decoder of `data` (the module's literal).
    pub fn new(data: &'a Node) -> Result<Decoder<'a>, Error> {
        let cells = match data.get("cells") {
            Some(
                c @ Node {
                    val: Val::Seq(_), ..
                },
            ) => c.items(),
            _ => {
                return Err(Error::input(
                    data.span.clone(),
                    "an AgentX data module has `cells` (an array)",
                ));
            }
        };
        Ok(Decoder {
            data,
            cells,
            memo: Default::default(),
        })
    }

    /// The cells.
    pub fn cells(&self) -> &'a [Node] {
        self.cells
    }

    /// `materialize(ci, router)`: the blocks of a cell's router for its first
    /// point, references followed and `envRef` resolved.
    fn materialize(&self, ci: usize, router: &str, depth: usize) -> Result<Vec<Block>, Error> {
        let key = (ci, router.to_string());
        if let Some(done) = self.memo.borrow().get(&key) {
            return Ok(done.clone());
        }
        let out = self.materialize_once(ci, router, depth)?;
        self.memo.borrow_mut().insert(key, out.clone());
        Ok(out)
    }

    /// [`Decoder::materialize`] without the memo.
    fn materialize_once(&self, ci: usize, router: &str, depth: usize) -> Result<Vec<Block>, Error> {
        let cell = self.cell(ci, &self.data.span)?;
        if depth > MAX_REF_DEPTH {
            return Err(Error::input(
                cell.span.clone(),
                format!(
                    "the blocks of this cell refer to other blocks more than {MAX_REF_DEPTH} deep (a cycle: the page would overflow its stack)"
                ),
            ));
        }
        let blocks = cell
            .path(&["routers", router, "blocks"])
            .filter(|b| matches!(b.val, Val::Seq(_)))
            .ok_or_else(|| {
                Error::input(
                    cell.span.clone(),
                    format!("this cell has no `routers.{router}.blocks` array"),
                )
            })?;
        let mut out = Vec::new();
        for e in blocks.items() {
            let b = if let Some(r) = e.get("ref").filter(|r| r.truthy()) {
                let at = |i: usize| r.items().get(i);
                let (Some(c), Some(rt), Some(i)) = (
                    at(0).and_then(Node::as_num),
                    at(1).and_then(Node::scalar_string),
                    at(2).and_then(Node::as_num),
                ) else {
                    return Err(Error::input(
                        r.span.clone(),
                        "a `ref` is [cell, router, block]",
                    ));
                };
                let from = self.materialize(index(c, r)?, &rt, depth + 1)?;
                from_ref(pick(&from, index(i, r)?, r)?, e)?
            } else if let Some(f) = raw(e, "from") {
                let i = f.as_num().ok_or_else(|| {
                    Error::input(f.span.clone(), "a `from` is the index of a block")
                })?;
                let submitted = cell
                    .get("submitted")
                    .and_then(Node::scalar_string)
                    .ok_or_else(|| {
                        Error::input(cell.span.clone(), "this cell names no `submitted` router")
                    })?;
                let from = self.materialize(ci, &submitted, depth + 1)?;
                from_ref(pick(&from, index(i, f)?, f)?, e)?
            } else {
                Block::of(e)?
            };
            out.push(self.resolve_env_ref(b)?);
        }
        Ok(out)
    }

    /// A block's `envRef` replaced by the shared environment it names, sorted.
    fn resolve_env_ref(&self, mut b: Block) -> Result<Block, Error> {
        let Some(r) = b.get("envRef").cloned() else {
            return Ok(b);
        };
        let env = r
            .as_num()
            .and_then(|i| {
                self.data
                    .get("envs")
                    .and_then(|e| e.items().get(i as usize))
            })
            .filter(|e| e.is_map() && r.as_num().is_some_and(|i| i >= 0.0 && i.fract() == 0.0))
            .ok_or_else(|| {
                Error::input(r.span.clone(), "this `envRef` names no entry of `envs`")
            })?;
        b.remove("envRef");
        let entries = env
            .entries()
            .iter()
            .map(|(k, _, v)| (k.clone(), v.clone()))
            .collect();
        b.set("env", map(&env.span, sorted(entries)));
        Ok(b)
    }

    fn cell(&self, ci: usize, at: &Span) -> Result<&'a Node, Error> {
        self.cells
            .get(ci)
            .ok_or_else(|| Error::input(at.clone(), format!("there is no cell {ci}")))
    }

    /// `blocksFor(ci, pi, router, kv)`: the blocks a reader sees.
    pub fn blocks_for(
        &self,
        ci: usize,
        pi: usize,
        router: &str,
        kv: &str,
    ) -> Result<Vec<Block>, Error> {
        let cell = self.cell(ci, &self.data.span)?;
        let base = self.materialize(ci, router, 0)?;
        let point = cell
            .get("points")
            .and_then(|p| p.items().get(pi))
            .ok_or_else(|| {
                Error::input(cell.span.clone(), format!("this cell has no point {pi}"))
            })?;
        let measured = if pi == 0 {
            base
        } else {
            apply_patch(&base, point.get("patch").and_then(|p| p.get(router)))?
        };
        let source = point
            .get("kv")
            .and_then(Node::scalar_string)
            .unwrap_or_default();
        self.kv_transform(measured, &source, kv, cell, router)
    }

    /// `kvTransform`: the measured tier's settings taken off the workers and
    /// the target tier's added (HiCache on the cache-holding roles, Mooncake's
    /// linker, store environment and master).
    fn kv_transform(
        &self,
        blocks: Vec<Block>,
        source: &str,
        target: &str,
        cell: &Node,
        router: &str,
    ) -> Result<Vec<Block>, Error> {
        if source == target {
            return Ok(blocks);
        }
        let mc = self.data.get("kvMooncake");
        let need = |what: &[&str], on: &Node| -> Result<Node, Error> {
            on.path(what).cloned().ok_or_else(|| {
                Error::input(on.span.clone(), format!("no `{}` here", what.join(".")))
            })
        };
        let mut out = Vec::new();
        for b0 in blocks {
            let kind = b0.kind().unwrap_or_default();
            if source == "mooncake" && MOONCAKE_KINDS.contains(&kind.as_str()) {
                continue;
            }
            let mut b = b0.clone();
            let mut args: Vec<Node> = b0.args().map(<[Node]>::to_vec).unwrap_or_default();
            let mut env = b0.env();
            if kind == "worker" {
                args.retain(|a| !is_kv_flag(&flag(a)));
                if source == "mooncake" {
                    env.retain(|(k, _)| !STORE_ONLY_ENV.contains(&k.as_str()));
                }
                let role = b.text("role").unwrap_or_default();
                let (add, add_env) = if CACHE_ROLES.contains(&role.as_str()) {
                    match target {
                        "hicache" => (
                            need(&["kv", "hicache", "args"], cell)?.items().to_vec(),
                            None,
                        ),
                        "mooncake" => {
                            let mc = mc.ok_or_else(|| no_mooncake(&self.data.span))?;
                            (
                                need(&["args"], mc)?.items().to_vec(),
                                Some(need(&["env"], mc)?),
                            )
                        }
                        _ => (Vec::new(), None),
                    }
                } else if target == "mooncake" {
                    let mc = mc.ok_or_else(|| no_mooncake(&self.data.span))?;
                    (Vec::new(), Some(need(&["decode_env"], mc)?))
                } else {
                    (Vec::new(), None)
                };
                let names: BTreeSet<String> = args.iter().map(flag).collect();
                for a in add {
                    if !names.contains(&flag(&a)) {
                        args.push(a);
                    }
                }
                sort_args(&mut args);
                if let Some(e) = add_env {
                    for (k, _, v) in e.entries() {
                        if !env.iter().any(|(x, _)| x == k) {
                            env.push((k.clone(), v.clone()));
                        }
                    }
                }
                env = sorted(env);
            }
            b.set("args", seq(&b.at, args));
            b.set("env", map(&b.at, env));
            out.push(b);
        }
        if target == "mooncake" {
            let mc = mc.ok_or_else(|| no_mooncake(&self.data.span))?;
            let master = Block::of(&need(&["master", router], mc)?)?;
            // `findIndex` is -1 without a worker: `splice(-1, 0, x)` inserts
            // before the last block (at 0 in an empty list).
            let at = match out
                .iter()
                .position(|b| b.kind().as_deref() == Some("worker"))
            {
                Some(i) => i,
                None => out.len().saturating_sub(1),
            };
            out.insert(at, master);
        }
        Ok(out)
    }
}

fn no_mooncake(at: &Span) -> Error {
    Error::input(at.clone(), "this data module has no `kvMooncake` settings")
}

/// Whether a flag belongs to a KV tier.
fn is_kv_flag(name: &str) -> bool {
    name == "--enable-hierarchical-cache"
        || name.starts_with("--hicache-")
        || LINKER_FLAGS.contains(&name)
}

/// `fromRef(ref, e)`: the referenced block, less `e.drop`, with `e`'s own
/// keys set, then `e.diff` applied.
fn from_ref(r: &Block, e: &Node) -> Result<Block, Error> {
    let mut b = r.clone();
    b.at = e.span.clone();
    if let Some(drop) = e.get("drop") {
        for d in drop.items() {
            if let Some(k) = d.scalar_string() {
                b.remove(&k);
            }
        }
    }
    for (k, _, v) in e.entries() {
        if !REF_KEYS.contains(&k.as_str()) {
            b.set(k, v.clone());
        }
    }
    apply_diff(&b, e.get("diff"))
}

/// `applyPatch(base, p)`: nothing, a `{replace: blocks}` (taken as written),
/// or a diff per block.
fn apply_patch(base: &[Block], p: Option<&Node>) -> Result<Vec<Block>, Error> {
    let Some(p) = p.filter(|p| p.truthy()) else {
        return Ok(base.to_vec());
    };
    match &p.val {
        Val::Seq(diffs) => base
            .iter()
            .enumerate()
            .map(|(i, b)| apply_diff(b, diffs.get(i)))
            .collect(),
        _ => {
            let replace = p.get("replace").filter(|r| matches!(r.val, Val::Seq(_)));
            let replace = replace.ok_or_else(|| {
                Error::input(
                    p.span.clone(),
                    "a patch is an array of diffs or `{replace: blocks}`",
                )
            })?;
            replace.items().iter().map(Block::of).collect()
        }
    }
}

fn index(n: f64, at: &Node) -> Result<usize, Error> {
    if n >= 0.0 && n.fract() == 0.0 && n < 1e9 {
        Ok(n as usize)
    } else {
        Err(Error::input(at.span.clone(), "not an index"))
    }
}

fn pick<'b>(blocks: &'b [Block], i: usize, at: &Node) -> Result<&'b Block, Error> {
    blocks.get(i).ok_or_else(|| {
        Error::input(
            at.span.clone(),
            format!("there is no block {i} to refer to (the page would throw)"),
        )
    })
}

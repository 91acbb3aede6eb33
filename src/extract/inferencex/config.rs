//! Master configs read with positions: the spanned YAML tree of
//! [`crate::extract::yaml_tree`] (under serde-saphyr's default anti-DoS
//! budget: depth, nodes, events, aliases), from which an entry is read field
//! by field, so that every bad value (a negative or too large integer, a
//! missing field, a string over [`MAX_FIELD_BYTES`]) is an error at its own
//! `file:line:col`.

use crate::error::Error;
use crate::extract::yaml_tree::{self, Options, Place};
pub(super) use crate::extract::yaml_tree::{Node, Val};
use crate::span::{Source, Span};

/// The longest string an entry field may hold (image, model, runner, ...):
/// each point's env copies them, so they are bounded like the point count.
pub const MAX_FIELD_BYTES: usize = 1024;

/// The entries of a master config (key, key span, value), in document order.
/// Syntax errors and serde-saphyr's budget breaches are `file:line:col`.
pub(super) fn entries(source: &Source) -> Result<Vec<(String, Span, Node)>, Error> {
    let options = Options {
        // The benchmark's Python reads the matrix with PyYAML (YAML 1.1).
        schema: yaml_tree::Schema::PyYaml11,
        place: Place::Referenced,
        max_map_entries: None,
        inner_key_name: None,
        key_name: |key| match &key.val {
            Val::Str(s) => Some(s.clone()),
            Val::Int(n) => Some(n.to_string()),
            Val::Bool(b) => Some(b.to_string()),
            _ => None,
        },
    };
    let doc = yaml_tree::parse(source, &options)?;
    match doc.val {
        Val::Map(m) => Ok(m),
        Val::Null => Ok(Vec::new()),
        _ => Err(Error::input(
            doc.span,
            "a master config is a mapping of entry keys to entries",
        )),
    }
}

/// An unsigned integer of the config with where it is written.
#[derive(Debug, Clone)]
pub(super) struct Int {
    pub(super) value: u64,
    pub(super) span: Span,
}

/// One master-config entry (single-node fields; others are ignored).
#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub(super) image: String,
    pub(super) model: String,
    pub(super) model_prefix: String,
    pub(super) runner: String,
    pub(super) precision: String,
    pub(super) framework: String,
    pub(super) multinode: bool,
    pub(super) fixed_seq_len: Vec<FixedSeqLen>,
    pub(super) agentic_coding: Vec<Agentic>,
    /// The search-space points of a multi-node entry (empty for others).
    pub(super) multinode_points: Vec<MultiPoint>,
}

/// One search-space point of a multi-node entry: one job, run once for
/// all its concurrencies.
#[derive(Debug, Clone)]
pub(super) struct MultiPoint {
    /// Its labels: scenario, isl/osl, spec-decoding, concurrencies, and the
    /// matrix's per-role `num-worker`/`tp`/`ep`/`dp-attn` (labels only: the
    /// recipe is the truth).
    pub(super) fields: Vec<(String, String)>,
    /// `KEY=VALUE` additional settings of its prefill then decode role, as
    /// the workflow exports them (the later of a repeated key wins).
    pub(super) settings: Vec<(String, String, Span)>,
}

#[derive(Debug, Clone)]
pub(super) struct FixedSeqLen {
    pub(super) isl: Int,
    pub(super) osl: Int,
    pub(super) search_space: Vec<SearchPoint>,
}

#[derive(Debug, Clone)]
pub(super) struct Agentic {
    pub(super) dram_utilization: Option<f64>,
    pub(super) search_space: Vec<SearchPoint>,
}

#[derive(Debug, Clone)]
pub(super) struct SearchPoint {
    /// Where the point is written.
    pub(super) span: Span,
    pub(super) tp: u64,
    pub(super) ep: Option<u64>,
    pub(super) dp_attn: Option<bool>,
    pub(super) spec_decoding: Option<String>,
    pub(super) conc_start: Option<Int>,
    pub(super) conc_end: Option<Int>,
    pub(super) conc_list: Option<Vec<Int>>,
    pub(super) pp: Option<u64>,
    pub(super) dcp_size: Option<u64>,
    pub(super) pcp_size: Option<u64>,
    pub(super) kv_offloading: Option<String>,
    pub(super) kv_offload_backend: Option<String>,
}

/// A mapping being read: its fields by name, and what it is (for messages).
struct Fields<'a> {
    node: &'a Node,
    what: &'a str,
}

impl<'a> Fields<'a> {
    fn of(node: &'a Node, what: &'a str) -> Result<Self, Error> {
        match node.val {
            Val::Map(_) => Ok(Fields { node, what }),
            _ => Err(Error::input(
                node.span.clone(),
                format!("{what} must be a mapping"),
            )),
        }
    }

    /// A field's value; a null value counts as absent.
    fn get(&self, key: &str) -> Option<&'a Node> {
        self.node.get(key)
    }

    fn required(&self, key: &str) -> Result<&'a Node, Error> {
        self.get(key).ok_or_else(|| {
            Error::input(
                self.node.span.clone(),
                format!("{} has no `{key}`", self.what),
            )
        })
    }

    fn string(&self, key: &str) -> Result<String, Error> {
        string(self.required(key)?, key)
    }

    fn opt_string(&self, key: &str) -> Result<Option<String>, Error> {
        self.get(key).map(|n| string(n, key)).transpose()
    }

    fn opt_bool(&self, key: &str) -> Result<Option<bool>, Error> {
        self.get(key)
            .map(|n| match n.val {
                Val::Bool(b) => Ok(b),
                _ => Err(Error::input(
                    n.span.clone(),
                    format!("`{key}` must be true or false"),
                )),
            })
            .transpose()
    }

    fn int(&self, key: &str, min: u64) -> Result<Int, Error> {
        int(self.required(key)?, key, min)
    }

    fn opt_int(&self, key: &str, min: u64) -> Result<Option<Int>, Error> {
        self.get(key).map(|n| int(n, key, min)).transpose()
    }

    fn list(&self, key: &str) -> Result<&'a [Node], Error> {
        match self.get(key) {
            None => Ok(&[]),
            Some(Node {
                val: Val::Seq(s), ..
            }) => Ok(s),
            Some(n) => Err(Error::input(
                n.span.clone(),
                format!("`{key}` must be a list"),
            )),
        }
    }
}

/// A scalar as text (numbers as written by YAML's reading of them), at most
/// [`MAX_FIELD_BYTES`] long.
fn string(n: &Node, key: &str) -> Result<String, Error> {
    let s = match &n.val {
        Val::Str(s) => s.clone(),
        Val::Int(i) => i.to_string(),
        Val::Float(f) => f.to_string(),
        _ => {
            return Err(Error::input(
                n.span.clone(),
                format!("`{key}` must be a string"),
            ));
        }
    };
    if s.len() > MAX_FIELD_BYTES {
        return Err(Error::input(
            n.span.clone(),
            format!(
                "`{key}` is {} bytes long, over the budget of {MAX_FIELD_BYTES} bytes for a master-config field",
                s.len()
            ),
        ));
    }
    Ok(s)
}

/// A field that becomes part of a script's file name: a string without a
/// path separator (or NUL), so that a point's script stays in its folder.
fn name_part(f: &Fields<'_>, key: &str) -> Result<String, Error> {
    let s = f.string(key)?;
    if s.contains(['/', '\\', '\0']) {
        let n = f.required(key)?;
        return Err(Error::input(
            n.span.clone(),
            format!(
                "`{key}` names part of a script's file name and must not contain `/`, `\\` or NUL"
            ),
        ));
    }
    Ok(s)
}

/// An integer in `min..=u64::MAX`.
fn int(n: &Node, key: &str, min: u64) -> Result<Int, Error> {
    let what = if min == 0 {
        "a non-negative integer"
    } else {
        "a positive integer"
    };
    match n.val {
        Val::Int(i) if i >= min as i128 && i <= u64::MAX as i128 => Ok(Int {
            value: i as u64,
            span: n.span.clone(),
        }),
        Val::Int(i) if i > u64::MAX as i128 => Err(Error::input(
            n.span.clone(),
            format!("`{key}` must be {what} up to {}, not {i}", u64::MAX),
        )),
        Val::Int(i) => Err(Error::input(
            n.span.clone(),
            format!("`{key}` must be {what}, not {i}"),
        )),
        _ => Err(Error::input(
            n.span.clone(),
            format!(
                "`{key}` must be {what} up to {}, not {}",
                u64::MAX,
                describe(n)
            ),
        )),
    }
}

/// A short description of a value for messages (long strings cut).
fn describe(n: &Node) -> String {
    match &n.val {
        Val::Null => "null".into(),
        Val::Bool(b) => b.to_string(),
        Val::Int(i) => i.to_string(),
        // A float as Python prints it (`8.0`, not `8`): never mistaken for an int.
        Val::Float(f) => format!("{f:?}"),
        Val::Str(s) if s.chars().count() > 40 => {
            format!("{:?}...", s.chars().take(40).collect::<String>())
        }
        Val::Str(s) => format!("{s:?}"),
        Val::Seq(_) => "a list".into(),
        Val::Map(_) => "a mapping".into(),
    }
}

/// Reads an entry; every error is at the value (or mapping) it is about.
pub(super) fn entry(key: &str, node: &Node) -> Result<Entry, Error> {
    let what = format!("entry {key}");
    let f = Fields::of(node, &what)?;
    let multinode = f.opt_bool("multinode")?.unwrap_or(false);
    let mut entry = Entry {
        image: f.string("image")?,
        model: f.string("model")?,
        model_prefix: name_part(&f, "model-prefix")?,
        runner: name_part(&f, "runner")?,
        precision: name_part(&f, "precision")?,
        framework: name_part(&f, "framework")?,
        multinode,
        fixed_seq_len: Vec::new(),
        agentic_coding: Vec::new(),
        multinode_points: Vec::new(),
    };
    if multinode {
        entry.multinode_points = multinode_points(&f)?;
        return Ok(entry);
    }
    let what = format!("entry {key}: scenarios");
    let (fixed, agentic) = match f.get("scenarios") {
        Some(scenarios) => {
            let s = Fields::of(scenarios, &what)?;
            (s.list("fixed-seq-len")?, s.list("agentic-coding")?)
        }
        // Before 2026-05 an entry listed its fixed-seq-len scenarios, in the
        // same shape, as a top-level `seq-len-configs`.
        None => (f.list("seq-len-configs")?, &[][..]),
    };
    for n in fixed {
        let f = Fields::of(n, "a fixed-seq-len scenario")?;
        entry.fixed_seq_len.push(FixedSeqLen {
            isl: f.int("isl", 1)?,
            osl: f.int("osl", 1)?,
            search_space: search_space(&f)?,
        });
    }
    for n in agentic {
        let f = Fields::of(n, "an agentic-coding scenario")?;
        let dram_utilization = match f.get("dram-utilization") {
            None => None,
            Some(n) => match n.val {
                Val::Float(x) if x.is_finite() => Some(x),
                Val::Int(i) => Some(i as f64),
                _ => {
                    return Err(Error::input(
                        n.span.clone(),
                        "`dram-utilization` must be a number",
                    ));
                }
            },
        };
        entry.agentic_coding.push(Agentic {
            dram_utilization,
            search_space: search_space(&f)?,
        });
    }
    Ok(entry)
}

fn search_space(scenario: &Fields<'_>) -> Result<Vec<SearchPoint>, Error> {
    let mut out = Vec::new();
    for n in scenario.list("search-space")? {
        let f = Fields::of(n, "a search-space point")?;
        let value = |k: &str, min| -> Result<Option<u64>, Error> {
            Ok(f.opt_int(k, min)?.map(|i| i.value))
        };
        let conc_list = match f.get("conc-list") {
            None => None,
            Some(_) => Some(
                f.list("conc-list")?
                    .iter()
                    .map(|c| int(c, "conc-list", 1))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };
        let kv_offload_backend = match f.get("kv-offload-backend") {
            None => None,
            Some(b) => Some(Fields::of(b, "`kv-offload-backend`")?.string("name")?),
        };
        out.push(SearchPoint {
            span: n.span.clone(),
            tp: f.int("tp", 1)?.value,
            ep: value("ep", 1)?,
            dp_attn: f.opt_bool("dp-attn")?,
            spec_decoding: f.opt_string("spec-decoding")?,
            conc_start: f.opt_int("conc-start", 1)?,
            conc_end: f.opt_int("conc-end", 1)?,
            conc_list,
            pp: value("pp", 1)?,
            dcp_size: value("dcp-size", 1)?,
            pcp_size: value("pcp-size", 1)?,
            kv_offloading: f.opt_string("kv-offloading")?,
            kv_offload_backend,
        });
    }
    Ok(out)
}

/// The search-space points of a multi-node entry's scenarios.
fn multinode_points(f: &Fields<'_>) -> Result<Vec<MultiPoint>, Error> {
    let Some(scenarios) = f.get("scenarios") else {
        return Ok(Vec::new());
    };
    let s = Fields::of(scenarios, "scenarios")?;
    let mut out = Vec::new();
    for (scenario, key) in [
        ("fixed_seq_len", "fixed-seq-len"),
        ("agentic", "agentic-coding"),
    ] {
        for n in s.list(key)? {
            let sc = Fields::of(n, "a scenario")?;
            let mut head = vec![("scenario".to_string(), scenario.to_string())];
            for k in ["isl", "osl"] {
                if let Some(i) = sc.opt_int(k, 1)? {
                    head.push((k.to_string(), i.value.to_string()));
                }
            }
            for p in sc.list("search-space")? {
                let pf = Fields::of(p, "a search-space point")?;
                let mut fields = head.clone();
                fields.push((
                    "spec-decoding".into(),
                    pf.opt_string("spec-decoding")?
                        .unwrap_or_else(|| "none".into()),
                ));
                if let Some(kv) = pf.opt_string("kv-offloading")? {
                    fields.push(("kv-offloading".into(), kv));
                }
                if let Some(b) = pf.get("kv-offload-backend") {
                    let name = Fields::of(b, "`kv-offload-backend`")?.string("name")?;
                    fields.push(("kv-offload-backend".into(), name));
                }
                let conc: Vec<String> = match pf.get("conc-list") {
                    Some(_) => pf
                        .list("conc-list")?
                        .iter()
                        .map(|c| int(c, "conc-list", 1).map(|i| i.value.to_string()))
                        .collect::<Result<_, _>>()?,
                    None => [pf.opt_int("conc-start", 1)?, pf.opt_int("conc-end", 1)?]
                        .into_iter()
                        .flatten()
                        .map(|i| i.value.to_string())
                        .collect(),
                };
                fields.push(("conc".into(), conc.join(",")));
                let mut settings = Vec::new();
                for role in ["prefill", "decode"] {
                    let Some(r) = pf.get(role) else { continue };
                    let rf = Fields::of(r, role)?;
                    for k in ["num-worker", "tp", "ep"] {
                        if let Some(i) = rf.opt_int(k, 0)? {
                            fields.push((format!("{role}-{k}"), i.value.to_string()));
                        }
                    }
                    if let Some(b) = rf.opt_bool("dp-attn")? {
                        fields.push((format!("{role}-dp-attn"), b.to_string()));
                    }
                    for a in rf.list("additional-settings")? {
                        let text = string(a, "additional-settings")?;
                        let Some((k, v)) = text.split_once('=') else {
                            return Err(Error::input(
                                a.span.clone(),
                                "an additional setting is KEY=VALUE",
                            ));
                        };
                        settings.retain(|(x, _, _): &(String, String, Span)| x != k);
                        settings.push((k.to_string(), v.to_string(), a.span.clone()));
                    }
                }
                out.push(MultiPoint { fields, settings });
            }
        }
    }
    Ok(out)
}

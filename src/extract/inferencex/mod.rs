//! InferenceX recipes: a master-config entry -> matrix points -> env contract ->
//! script -> launches, evaluated statically by the bash evaluator.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::bash;
use crate::error::Error;
use crate::files::{Files, LocalFiles, Location};
use crate::launch::{Context, Known, Launch};
use crate::span::Source;

pub mod amd_disagg;
mod config;
mod harness;
pub mod layout;
pub mod multinode;
pub mod srt_clone;
mod workflow;

pub use config::MAX_FIELD_BYTES;
use config::{Entry, SearchPoint};

pub use harness::{BenchmarkLib, HARNESS};

/// One point of an entry's benchmark matrix.
#[derive(Debug, Clone, Serialize)]
pub struct Point {
    /// The search-space fields that identify it (`tp`, `conc`, `kv-offloading`, ...).
    pub fields: BTreeMap<String, String>,
    /// The env contract the harness gives the script.
    pub env: BTreeMap<String, String>,
    /// Env variables set by the runner whose value is not knowable, with the reason.
    pub unknown_env: BTreeMap<String, String>,
    /// The script it runs (a path, or a remote file as `github:...` / a URL).
    pub script: String,
    /// Launches the script makes.
    pub launches: Vec<Launch>,
    /// Launches of engines recipe-drift does not resolve.
    pub unsupported: Vec<String>,
    /// Auxiliary launches beside the server (the SGLang router in front of
    /// data-parallel workers), with their words: reported, never compared.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub auxiliary: Vec<crate::launch::Remark>,
    /// Why some of the point's launches are not known (a multi-node point:
    /// its recipe is not in the checkout, or a role is not knowable), each
    /// prefixed with its role when it is about one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown: Vec<String>,
    /// The workers of each role of a multi-node point, as its recipe lays
    /// them out (its topology); empty for a single-node point.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub workers: Vec<RoleWorkers>,
    /// Where the point names what it runs in the master config (a
    /// multi-node point's `CONFIG_FILE` setting), when it does.
    #[serde(skip)]
    pub at: Option<crate::span::Span>,
    /// A remote file the point needs that could not be had (a multi-node
    /// point's recipe at the ref its runner clones: offline, a network
    /// failure, a 404): the point is unknown with the reason, and
    /// `extract` fails with this error as it does for other remote files.
    #[serde(skip)]
    pub fetch_failure: Option<Error>,
}

/// How many workers of a role a multi-node job starts, and their size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoleWorkers {
    /// The role.
    pub role: crate::launch::Role,
    /// Its workers.
    pub workers: u64,
    /// The nodes they take together, when the recipe says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// The GPUs of one worker, when the recipe says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpus_per_worker: Option<u64>,
}

/// All points of an entry.
#[derive(Debug, Clone, Serialize)]
pub struct Expanded {
    /// The entry key.
    pub entry: String,
    /// The master config it was found in.
    pub config: String,
    /// The points, in matrix order.
    pub points: Vec<Point>,
    /// Why the `where` filter matched no point (the fields and values the
    /// points have); `points` is then empty.
    #[serde(skip)]
    pub unmatched: Option<String>,
    /// Extra env given for the points (`--env`, a link side's `env:`) that no
    /// point's script read, sorted: the engine may still read it (the caller
    /// knows the engines).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unread_env: Vec<String>,
}

/// Finds an entry in the master configs (`ROOT/configs/*-master.yaml`; see [`layout`]), expands it into points
/// (filtered by `filter` on the search-space fields) and evaluates each point's script.
pub fn expand(
    root: &Path,
    entry_key: &str,
    filter: &BTreeMap<String, String>,
) -> Result<Expanded, Error> {
    expand_in(
        &Location::Path(root.to_path_buf()),
        entry_key,
        filter,
        &LocalFiles,
    )
}

/// Like [`expand`], for a root on disk or remote (`github:OWNER/REPO@REF`),
/// read through `files`: only the master configs up to the one holding the
/// entry, each point's script and the scripts it delegates to are read.
pub fn expand_in(
    root: &Location,
    entry_key: &str,
    filter: &BTreeMap<String, String>,
    files: &dyn Files,
) -> Result<Expanded, Error> {
    let e = expand_with_env(root, entry_key, filter, &BTreeMap::new(), files)?;
    match e.unmatched {
        Some(why) => Err(Error::usage(why)),
        None => Ok(e),
    }
}

/// Like [`expand_in`], with extra env for every point (runner facts such as
/// `TOTAL_CPU_DRAM_GB`, or a variable a script reads): it is set over the env
/// contract, and a variable the runner sets with an unknown value becomes known.
/// [`Expanded::unread_env`] lists the names no script read; a filter that
/// matches no point gives no points and [`Expanded::unmatched`].
pub fn expand_with_env(
    root: &Location,
    entry_key: &str,
    filter: &BTreeMap<String, String>,
    extra_env: &BTreeMap<String, String>,
    files: &dyn Files,
) -> Result<Expanded, Error> {
    let (config, entry) = find_entry(root, entry_key, files)?;
    if entry.multinode {
        if multinode::runs_srt_slurm(&entry.framework) {
            return multinode::expand(root, entry_key, &config, &entry, filter, files);
        }
        if amd_disagg::runs_amd_disagg(&entry.framework) {
            return amd_disagg::expand(root, entry_key, &config, &entry, filter, files);
        }
        return Err(Error::usage(format!(
            "entry {entry_key} is multi-node with framework {}; of multi-node entries only those that run srt-slurm recipes (dynamo-*) and AMD's sglang-disagg launcher are read",
            entry.framework
        )));
    }
    let sku = sku_of(&entry.runner);
    let mut points = Vec::new();
    let mut budget = PointBudget::default();
    let common = |env: &mut BTreeMap<String, String>| {
        for (k, v) in [
            ("MODEL", entry.model.as_str()),
            ("PRECISION", entry.precision.as_str()),
            ("FRAMEWORK", entry.framework.as_str()),
            ("IMAGE", entry.image.as_str()),
            ("PORT", "8888"),
            ("RESULT_DIR", "/workspace/results"),
            ("EVAL_ONLY", "false"),
            ("RUN_EVAL", "false"),
            ("RANDOM_RANGE_RATIO", "0.8"),
        ] {
            env.insert(k.into(), v.into());
        }
    };
    for fixed in &entry.fixed_seq_len {
        let (isl, osl) = (fixed.isl.value, fixed.osl.value);
        let max_model_len = isl
            .checked_add(osl)
            .and_then(|n| n.checked_add(256))
            .ok_or_else(|| {
                Error::input(
                    fixed.osl.span.clone(),
                    format!(
                        "isl + osl + 256 (the MAX_MODEL_LEN the harness sets) is over {}",
                        u64::MAX
                    ),
                )
            })?;
        for sp in &fixed.search_space {
            for conc in concurrencies(sp, &mut budget)? {
                let mut env = BTreeMap::new();
                common(&mut env);
                point_env(sp, conc, &mut env);
                env.insert("ISL".into(), isl.to_string());
                env.insert("OSL".into(), osl.to_string());
                env.insert("MAX_MODEL_LEN".into(), max_model_len.to_string());
                env.insert("KV_OFFLOADING".into(), "none".into());
                env.insert("KV_OFFLOAD_BACKEND".into(), String::new());
                let mut fields = point_fields(sp, conc);
                fields.insert("isl".into(), isl.to_string());
                fields.insert("osl".into(), osl.to_string());
                points.push((fields, env, BTreeMap::new(), "fixed_seq_len", sp.clone()));
            }
        }
    }
    for agentic in &entry.agentic_coding {
        for sp in &agentic.search_space {
            for conc in concurrencies(sp, &mut budget)? {
                let mut env = BTreeMap::new();
                common(&mut env);
                point_env(sp, conc, &mut env);
                let offload = sp.kv_offloading.clone().unwrap_or_else(|| "none".into());
                env.insert("KV_OFFLOADING".into(), offload.clone());
                env.insert(
                    "KV_OFFLOAD_BACKEND".into(),
                    sp.kv_offload_backend.clone().unwrap_or_default(),
                );
                let mut unknown = BTreeMap::new();
                if offload != "none" {
                    unknown.insert(
                        "TOTAL_CPU_DRAM_GB".into(),
                        format!(
                            "set by the runner from the machine's DRAM (dram-utilization {})",
                            agentic
                                .dram_utilization
                                .map(|d| d.to_string())
                                .unwrap_or_else(|| "unset".into())
                        ),
                    );
                }
                let fields = point_fields(sp, conc);
                points.push((fields, env, unknown, "agentic", sp.clone()));
            }
        }
    }
    if !filter.is_empty()
        && !points
            .iter()
            .any(|p| filter.iter().all(|(k, v)| p.0.get(k) == Some(v)))
    {
        let all: Vec<&BTreeMap<String, String>> = points.iter().map(|p| &p.0).collect();
        return Ok(Expanded {
            entry: entry_key.to_string(),
            config: config.display(),
            points: Vec::new(),
            unmatched: Some(no_point_matches(entry_key, filter, &all)),
            unread_env: Vec::new(),
        });
    }
    let mut out = Vec::new();
    let mut read = std::collections::BTreeSet::new();
    for (fields, mut env, mut unknown_env, dir, sp) in points {
        if filter.iter().any(|(k, v)| fields.get(k) != Some(v)) {
            continue;
        }
        for (k, v) in extra_env {
            unknown_env.remove(k);
            env.insert(k.clone(), v.clone());
        }
        let mtp = sp.spec_decoding.as_deref() == Some("mtp");
        let script = script_for(root, dir, &entry, &sku, mtp, files)?.ok_or_else(|| {
            Error::usage(format!(
                "entry {entry_key}: no script {} under {}",
                script_names(&entry, &sku, mtp).join(" or "),
                layout::script_dirs(dir)
                    .iter()
                    .map(|d| root.join(d).display())
                    .collect::<Vec<_>>()
                    .join(" or ")
            ))
        })?;
        let source = files.read(&script)?;
        let evaluated = bash::evaluate_with(&source, &env, Some(&unknown_env), files, &HARNESS)?;
        read.extend(evaluated.read);
        let mut context = Context::from_image(&entry.image, &format!("image of entry {entry_key}"));
        context.hardware = Some(Known {
            value: sku.clone(),
            from: format!("runner {} of entry {entry_key}", entry.runner),
        });
        if let Some(p) = crate::hardware::platform_of(&sku) {
            context.platform = Some(Known {
                value: p,
                from: format!("runner {} of entry {entry_key}", entry.runner),
            });
        }
        let launches = evaluated
            .launches
            .into_iter()
            .map(|mut l| {
                l.context.fill_from(&context);
                l
            })
            .collect();
        out.push(Point {
            fields,
            env,
            unknown_env,
            script: script.display(),
            launches,
            unsupported: evaluated.unsupported,
            auxiliary: evaluated.auxiliary,
            unknown: Vec::new(),
            workers: Vec::new(),
            at: None,
            fetch_failure: None,
        });
    }
    Ok(Expanded {
        entry: entry_key.to_string(),
        config: config.display(),
        points: out,
        unmatched: None,
        unread_env: extra_env
            .keys()
            .filter(|k| !read.contains(*k))
            .cloned()
            .collect(),
    })
}

/// Why a `where` filter matches no point of an entry: per filter field, the
/// values the points have (or that no point has the field), and every field's
/// values, in matrix order.
fn no_point_matches(
    entry_key: &str,
    filter: &BTreeMap<String, String>,
    points: &[&BTreeMap<String, String>],
) -> String {
    let values_of = |k: &str| -> Vec<&str> {
        let mut vs: Vec<&str> = Vec::new();
        for p in points {
            if let Some(v) = p.get(k)
                && !vs.contains(&v.as_str())
            {
                vs.push(v);
            }
        }
        vs
    };
    let wanted: Vec<String> = filter.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let mut msg = format!(
        "no point of entry {entry_key} matches where {}",
        wanted.join(" ")
    );
    if points.is_empty() {
        msg.push_str(" (the entry has no single-node points)");
        return msg;
    }
    let mut fields: Vec<&str> = Vec::new();
    for p in points {
        for k in p.keys() {
            if !fields.contains(&k.as_str()) {
                fields.push(k);
            }
        }
    }
    fields.sort();
    let mut each_exists = true;
    for (k, v) in filter {
        let vs = values_of(k);
        if vs.is_empty() {
            each_exists = false;
            msg.push_str(&format!(
                "\n  {k}: no point has this field (fields: {})",
                fields.join(", ")
            ));
        } else if !vs.contains(&v.as_str()) {
            each_exists = false;
            msg.push_str(&format!(
                "\n  {k}={v}: the points have {k}={}",
                vs.join(",")
            ));
        }
    }
    if each_exists {
        msg.push_str("\n  each value occurs, but no point has them all");
    }
    msg.push_str("\n  the points have:");
    for k in &fields {
        msg.push_str(&format!(" {k}={}", values_of(k).join(",")));
    }
    msg
}

/// One combination of the values that choose a script and its server features
/// (spec-decoding, kv-offloading and its backend) among an entry's points.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Combo {
    /// `fixed_seq_len` or `agentic`.
    pub scenario: String,
    /// `mtp`, `draft_model` or `none`.
    pub spec_decoding: String,
    /// `none` or `dram`.
    pub kv_offloading: String,
    /// The kv-offload backend's name, when the point names one.
    pub kv_offload_backend: Option<String>,
    /// The script these points run, when it exists.
    pub script: Option<PathBuf>,
}

/// What a master-config entry is, without evaluating its scripts.
#[derive(Debug, Clone, Serialize)]
pub struct EntrySummary {
    /// The entry key.
    pub key: String,
    /// The master config it is in.
    pub config: PathBuf,
    /// The HF model id.
    pub model: String,
    /// The runner label.
    pub runner: String,
    /// The SKU of the runner.
    pub sku: String,
    /// `fp4`, `fp8`, ...
    pub precision: String,
    /// `sglang`, `vllm`, ...
    pub framework: String,
    /// Multi-node entries are out of scope: they have no combos.
    pub multinode: bool,
    /// The distinct combinations of its points, in matrix order.
    pub combos: Vec<Combo>,
}

/// Every entry of `ROOT/configs/*-master.yaml` (in file order, then key order),
/// and the keys whose entry is not in the single-node shape, with the reason.
#[allow(clippy::type_complexity)]
pub fn list_entries(
    root: &Path,
) -> Result<(Vec<EntrySummary>, Vec<(String, PathBuf, String)>), Error> {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for f in master_configs(root)? {
        let source = Source::read(&f)?;
        let mut doc = config::entries(&source)?;
        // Key order, as the earlier map-based reading listed them.
        doc.sort_by(|a, b| a.0.cmp(&b.0));
        for (key, _, raw) in doc {
            let multinode = matches!(
                raw.val,
                config::Val::Map(ref m)
                    if m.iter().any(|(k, _, v)| k == "multinode" && matches!(v.val, config::Val::Bool(true)))
            );
            let entry: Entry = match config::entry(&key, &raw) {
                Ok(e) => e,
                Err(e) if !multinode => {
                    skipped.push((key, f.clone(), e.to_string()));
                    continue;
                }
                Err(_) => {
                    skipped.push((key, f.clone(), "a multi-node entry".into()));
                    continue;
                }
            };
            let sku = sku_of(&entry.runner);
            let mut combos: Vec<Combo> = Vec::new();
            if !entry.multinode {
                let mut add = |dir: &str, sp: &SearchPoint| {
                    let spec = sp.spec_decoding.clone().unwrap_or_else(|| "none".into());
                    let mtp = spec == "mtp";
                    let c = Combo {
                        scenario: dir.into(),
                        spec_decoding: spec,
                        kv_offloading: sp.kv_offloading.clone().unwrap_or_else(|| "none".into()),
                        kv_offload_backend: sp.kv_offload_backend.clone(),
                        script: match script_for(
                            &Location::Path(root.to_path_buf()),
                            dir,
                            &entry,
                            &sku,
                            mtp,
                            &LocalFiles,
                        ) {
                            Ok(Some(Location::Path(p))) => Some(p),
                            _ => None,
                        },
                    };
                    if !combos.contains(&c) {
                        combos.push(c);
                    }
                };
                for fixed in &entry.fixed_seq_len {
                    for sp in &fixed.search_space {
                        add("fixed_seq_len", sp);
                    }
                }
                for agentic in &entry.agentic_coding {
                    for sp in &agentic.search_space {
                        add("agentic", sp);
                    }
                }
            }
            out.push(EntrySummary {
                key,
                config: f.clone(),
                model: entry.model,
                runner: entry.runner,
                sku,
                precision: entry.precision,
                framework: entry.framework,
                multinode: entry.multinode,
                combos,
            });
        }
    }
    Ok((out, skipped))
}

/// The files an entry's expansion reads or would read: every master config
/// (`ROOT/configs/*-master.yaml`: the first one holding the key wins) and, per
/// scenario of the entry, each script name it would look for, found or not.
pub fn dependencies(root: &Path, entry_key: &str) -> Result<Vec<PathBuf>, Error> {
    let (_, entry) = find_entry(&Location::Path(root.to_path_buf()), entry_key, &LocalFiles)?;
    let mut out = master_configs(root)?;
    let sku = sku_of(&entry.runner);
    let mut wanted: Vec<(&str, bool)> = Vec::new();
    let mtp = |sp: &SearchPoint| sp.spec_decoding.as_deref() == Some("mtp");
    for fixed in &entry.fixed_seq_len {
        wanted.extend(
            fixed
                .search_space
                .iter()
                .map(|sp| ("fixed_seq_len", mtp(sp))),
        );
    }
    for agentic in &entry.agentic_coding {
        wanted.extend(agentic.search_space.iter().map(|sp| ("agentic", mtp(sp))));
    }
    for (dir, mtp) in wanted {
        for folder in layout::script_dirs(dir) {
            for name in script_names(&entry, &sku, mtp) {
                let p = root.join(&folder).join(name);
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }
    if entry.multinode && multinode::runs_srt_slurm(&entry.framework) {
        out.extend(multinode::dependencies(root, &entry));
    }
    Ok(out)
}

/// The master configs (`ROOT/configs/*-master.yaml`, or `.github/configs/` in
/// older revisions: see [`layout`]), sorted.
pub fn master_configs(root: &Path) -> Result<Vec<PathBuf>, Error> {
    let dir = layout::config_dir(root)?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| Error::Input {
            span: crate::span::Span::of_path(&dir),
            message: format!(
                "cannot read the master configs: {}",
                crate::files::io_reason(&e)
            ),
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| layout::is_master_config(&p.file_name().unwrap_or_default().to_string_lossy()))
        .collect();
    files.sort();
    Ok(files)
}

/// The first master config holding `key`, and its entry read with positions.
fn find_entry(root: &Location, key: &str, files: &dyn Files) -> Result<(Location, Entry), Error> {
    let (dir, names) = layout::config_dir_in(root, files)?;
    let files_in: Vec<Location> = names.iter().map(|n| dir.join(n)).collect();
    let mut keys = Vec::new();
    for f in &files_in {
        let source = files.read(f)?;
        let doc = config::entries(&source)?;
        // The last of duplicate keys wins, as in a map.
        if let Some((_, _, v)) = doc.iter().rev().find(|(k, _, _)| k == key) {
            return Ok((f.clone(), config::entry(key, v)?));
        }
        keys.extend(doc.into_iter().map(|(k, _, _)| k));
    }
    let hint = crate::suggest::nearest(
        key,
        keys.iter().map(String::as_str),
        crate::suggest::THRESHOLD,
    )
    .map(|k| format!(" (did you mean {k}?)"))
    .unwrap_or_default();
    Err(Error::usage(format!(
        "no entry {key:?} in {}/*-master.yaml{hint}",
        dir.display()
    )))
}

/// The SKU of a runner label (`mi355x`, `cluster:mi355x-amds` -> `mi355x`).
pub fn sku_of(runner: &str) -> String {
    let r = runner.strip_prefix("cluster:").unwrap_or(runner);
    r.split(['-', '_']).next().unwrap_or(r).to_ascii_lowercase()
}

/// The most matrix points an entry may expand to (before the `where` filter):
/// each point carries its own env, so the count bounds memory and the work
/// of evaluating scripts (1024 points of a small script: about 4 s and
/// 170 MiB in a debug build). Real entries have tens to a few hundred points.
pub const MAX_MATRIX_POINTS: usize = 1024;

/// Counts the points of an entry against [`MAX_MATRIX_POINTS`].
#[derive(Default)]
struct PointBudget {
    used: usize,
}

impl PointBudget {
    fn take(&mut self, n: usize, at: &SearchPoint) -> Result<(), Error> {
        self.used = self.used.saturating_add(n);
        if self.used > MAX_MATRIX_POINTS {
            return Err(Error::input(
                at.span.clone(),
                format!(
                    "this entry expands to more than {MAX_MATRIX_POINTS} matrix points (the budget for one entry); split it into smaller entries"
                ),
            ));
        }
        Ok(())
    }
}

/// A point's concurrencies as InferenceX's `generate_sweep_configs.py`
/// expands them: its `conc-list`, or `conc-start` doubling up to `conc-end`,
/// the last step cut to `conc-end` itself (1..6 is 1, 2, 4, 6). As its
/// `validation.py` does, an empty list without a range and a list together
/// with a range are refused. Every count is taken from `budget`.
fn concurrencies(sp: &SearchPoint, budget: &mut PointBudget) -> Result<Vec<u64>, Error> {
    let list = sp.conc_list.as_ref().filter(|l| !l.is_empty());
    let range = sp.conc_start.is_some() && sp.conc_end.is_some();
    if let Some(list) = list {
        if range {
            return Err(Error::input(
                sp.span.clone(),
                "a search-space point gives both conc-list and conc-start/conc-end (InferenceX refuses this: a list or a range, not both)",
            ));
        }
        budget.take(list.len(), sp)?;
        return Ok(list.iter().map(|c| c.value).collect());
    }
    match (&sp.conc_start, &sp.conc_end) {
        (Some(start), Some(end)) if start.value <= end.value => {
            // At most 64 doublings fit in a u64.
            let mut out = Vec::new();
            let mut c = start.value;
            while c <= end.value {
                out.push(c);
                if c == end.value {
                    break;
                }
                c = c.saturating_mul(2).min(end.value);
            }
            budget.take(out.len(), sp)?;
            Ok(out)
        }
        (Some(start), Some(end)) => Err(Error::input(
            end.span.clone(),
            format!("conc-end {} is below conc-start {}", end.value, start.value),
        )),
        _ => Err(Error::input(
            sp.span.clone(),
            "a search-space point needs conc-list, or conc-start and conc-end",
        )),
    }
}

fn point_env(sp: &SearchPoint, conc: u64, env: &mut BTreeMap<String, String>) {
    env.insert("TP".into(), sp.tp.to_string());
    env.insert("EP_SIZE".into(), sp.ep.unwrap_or(1).to_string());
    env.insert(
        "DP_ATTENTION".into(),
        sp.dp_attn.unwrap_or(false).to_string(),
    );
    env.insert("CONC".into(), conc.to_string());
    env.insert(
        "SPEC_DECODING".into(),
        sp.spec_decoding.clone().unwrap_or_else(|| "none".into()),
    );
    env.insert("PP_SIZE".into(), sp.pp.unwrap_or(1).to_string());
    env.insert("DCP_SIZE".into(), sp.dcp_size.unwrap_or(1).to_string());
    env.insert("PCP_SIZE".into(), sp.pcp_size.unwrap_or(1).to_string());
}

fn point_fields(sp: &SearchPoint, conc: u64) -> BTreeMap<String, String> {
    let mut f = BTreeMap::new();
    f.insert("tp".into(), sp.tp.to_string());
    f.insert("ep".into(), sp.ep.unwrap_or(1).to_string());
    f.insert("dp-attn".into(), sp.dp_attn.unwrap_or(false).to_string());
    f.insert(
        "spec-decoding".into(),
        sp.spec_decoding.clone().unwrap_or_else(|| "none".into()),
    );
    f.insert("conc".into(), conc.to_string());
    f.insert(
        "kv-offloading".into(),
        sp.kv_offloading.clone().unwrap_or_else(|| "none".into()),
    );
    if let Some(b) = &sp.kv_offload_backend {
        f.insert("kv-offload-backend".into(), b.clone());
    }
    f
}

fn script_names(entry: &Entry, sku: &str, mtp: bool) -> Vec<String> {
    let fw = match entry.framework.as_str() {
        "sglang" => "_sglang",
        "vllm" => "_vllm",
        "trt" => "_trt",
        "atom" => "_atom",
        other => {
            return vec![format!(
                "{}_{}_{sku}_{other}",
                entry.model_prefix, entry.precision
            )];
        }
    };
    let mtp = if mtp { "_mtp" } else { "" };
    let base = format!("{}_{}_{sku}", entry.model_prefix, entry.precision);
    vec![format!("{base}{fw}{mtp}.sh"), format!("{base}{mtp}.sh")]
}

fn script_for(
    root: &Location,
    dir: &str,
    entry: &Entry,
    sku: &str,
    mtp: bool,
    files: &dyn Files,
) -> Result<Option<Location>, Error> {
    for folder in layout::script_dirs(dir) {
        let folder = root.join(&folder);
        for name in script_names(entry, sku, mtp) {
            let p = folder.join(&name);
            if files.is_file(&p)? {
                return Ok(Some(p));
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/inferencex")
    }

    #[test]
    fn agentic_entry_expands_points_and_gates_hicache() {
        let e = expand(
            &root(),
            "qwen3.5-fp4-mi355x-sglang-agentic-mtp",
            &BTreeMap::new(),
        )
        .unwrap();
        // conc-list [4, 16] + conc 4..16 doubling (4, 8, 16)
        assert_eq!(e.points.len(), 5);
        let none = &e.points[0];
        assert_eq!(none.fields["kv-offloading"], "none");
        assert!(
            !none.launches[0]
                .argv
                .iter()
                .any(|t| t.text.starts_with("--hicache"))
        );
        let dram = &e.points[2];
        assert_eq!(dram.fields["kv-offloading"], "dram");
        assert!(
            dram.launches[0]
                .argv
                .iter()
                .any(|t| t.text == "--enable-hierarchical-cache")
        );
        let l = &dram.launches[0];
        assert_eq!(l.context.hardware.as_ref().unwrap().value, "mi355x");
        assert_eq!(l.context.engine_version.as_ref().unwrap().value, "0.5.19");
    }

    #[test]
    fn older_script_names_and_filters() {
        let mut w = BTreeMap::new();
        w.insert("isl".to_string(), "8192".to_string());
        let e = expand(&root(), "qwen3.5-fp4-mi355x-sglang", &w).unwrap();
        assert_eq!(e.points.len(), 1);
        assert!(
            e.points[0]
                .script
                .ends_with("fixed_seq_len/qwen3.5_fp4_mi355x.sh")
        );
        assert_eq!(e.points[0].env["MAX_MODEL_LEN"], "9472");
    }

    #[test]
    fn errors_name_the_problem() {
        let e = expand(
            &root(),
            "qwen3.5-fp4-mi355x-sglang-agentic",
            &BTreeMap::new(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("did you mean"), "{e}");
        // An AMD sglang-disagg entry is read per role (see amd_disagg); this
        // fixture's has no search-space points.
        let e = expand(&root(), "dsr1-fp4-mi355x-sglang-disagg", &BTreeMap::new()).unwrap();
        assert!(e.points.is_empty());
    }
}

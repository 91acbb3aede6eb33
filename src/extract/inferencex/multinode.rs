//! Multi-node InferenceX entries that run an srt-slurm recipe
//! (`dynamo-sglang`, `dynamo-vllm`, `dynamo-trt`): each search-space point
//! is one job, named by `CONFIG_FILE=recipes/FILE[:SELECTOR]` in its
//! additional settings; its roles' launches come from the recipe through
//! [`crate::extract::srt_slurm`].
//!
//! The runner clones NVIDIA/srt-slurm (or a fork) at a ref its launch script
//! picks and copies `benchmarks/multi_node/srt-slurm-recipes/` over the
//! clone's `recipes/` ([`LOCAL_RECIPES`]): a recipe found there is read; one
//! that is not exists only at that ref, which [`srt_clone`] reads from the
//! launch script, and is fetched from there through `files` (the fetch
//! layer) as `github:OWNER/REPO@REF:recipes/...`. A ref that is not knowable,
//! or a recipe that cannot be fetched, makes the point unknown with the
//! reason ([`Point::fetch_failure`] keeps a fetch's error).

use std::collections::BTreeMap;

use super::config::Entry;
use super::{Expanded, Point, no_point_matches, sku_of, srt_clone};
use crate::error::Error;
use crate::extract::srt_slurm::{self, Outcome};
use crate::files::{Files, Location};
use crate::launch::{Context, Known};

/// Where an InferenceX checkout keeps the srt-slurm recipes it copies over
/// the cloned `recipes/` folder.
pub const LOCAL_RECIPES: &str = "benchmarks/multi_node/srt-slurm-recipes";

/// Whether a framework runs its points through srt-slurm recipes.
pub fn runs_srt_slurm(framework: &str) -> bool {
    framework.starts_with("dynamo-")
}

/// The points of a multi-node srt-slurm entry, each with its roles' launches.
pub(super) fn expand(
    root: &Location,
    entry_key: &str,
    config: &Location,
    entry: &Entry,
    filter: &BTreeMap<String, String>,
    files: &dyn Files,
) -> Result<Expanded, Error> {
    let sku = sku_of(&entry.runner);
    let all: Vec<BTreeMap<String, String>> = entry
        .multinode_points
        .iter()
        .map(|p| {
            let mut f: BTreeMap<String, String> = p.fields.iter().cloned().collect();
            if let Some((_, v, _)) = p.settings.iter().find(|(k, _, _)| k == "CONFIG_FILE") {
                f.insert("config-file".into(), v.clone());
            }
            f
        })
        .collect();
    let chosen = match chosen_points(entry_key, config, &all, filter) {
        Ok(chosen) => chosen,
        Err(none) => return Ok(none),
    };
    let mut context = Context::from_image(&entry.image, &format!("image of entry {entry_key}"));
    let from = format!("runner {} of entry {entry_key}", entry.runner);
    context.hardware = Some(Known {
        value: sku.clone(),
        from: from.clone(),
    });
    if let Some(p) = crate::hardware::platform_of(&sku) {
        context.platform = Some(Known { value: p, from });
    }
    // srtctl serves the folder the recipe's `model.path` names on the
    // cluster, mounted at `/model`; the runner points it at the entry's
    // checkpoint (FORMATS: the identity is the entry's `model`, never a path).
    context.checkpoint = Some(Known {
        value: entry.model.clone(),
        from: format!("model of entry {entry_key}, which the runner mounts for srtctl"),
    });
    let mut points = Vec::new();
    for i in chosen {
        let p = &entry.multinode_points[i];
        let mut point = Point {
            fields: all[i].clone(),
            env: p
                .settings
                .iter()
                .map(|(k, v, _)| (k.clone(), v.clone()))
                .collect(),
            unknown_env: BTreeMap::new(),
            script: String::new(),
            launches: Vec::new(),
            unsupported: Vec::new(),
            auxiliary: Vec::new(),
            unknown: Vec::new(),
            workers: Vec::new(),
            at: p
                .settings
                .iter()
                .find(|(k, _, _)| k == "CONFIG_FILE")
                .map(|(_, _, at)| at.clone()),
            fetch_failure: None,
        };
        let Some(config_file) = point.env.get("CONFIG_FILE").cloned() else {
            point
                .unknown
                .push("the point names no CONFIG_FILE in its additional settings".into());
            points.push(point);
            continue;
        };
        let (file, selector) = match config_file.split_once(':') {
            Some((f, s)) => (f, Some(s)),
            None => (config_file.as_str(), None),
        };
        let Some(rel) = file.strip_prefix("recipes/") else {
            point.unknown.push(format!(
                "CONFIG_FILE {config_file} is not under the srt-slurm clone's recipes/"
            ));
            points.push(point);
            continue;
        };
        let local = root.join(&format!("{LOCAL_RECIPES}/{rel}"));
        let recipe = if files.is_file(&local)? {
            local
        } else {
            let (mut env, mut unknown) = super::workflow::env(root, entry, &all[i]);
            env.extend(point.env.iter().map(|(k, v)| (k.clone(), v.clone())));
            unknown.retain(|k, _| !point.env.contains_key(k));
            match srt_clone::cloned(root, entry, &env, &unknown, files)? {
                Ok(clone) => clone.file(file),
                Err(why) => {
                    point.script = config_file.clone();
                    point.unknown.push(format!(
                        "{file} is not in this checkout's {LOCAL_RECIPES}/: it exists only in the srt-slurm checkout that runner {}'s launch script clones, whose ref is not knowable: {why}",
                        entry.runner
                    ));
                    points.push(point);
                    continue;
                }
            }
        };
        point.script = match selector {
            Some(s) => format!("{}:{s}", recipe.display()),
            None => recipe.display(),
        };
        let source = match files.read(&recipe) {
            Ok(s) => s,
            Err(e @ Error::Remote { .. }) => {
                point.unknown.push(format!(
                    "{file} is not in this checkout's {LOCAL_RECIPES}/ and its copy at the ref runner {}'s launch script clones could not be had: {e}",
                    entry.runner
                ));
                point.fetch_failure = Some(e);
                points.push(point);
                continue;
            }
            Err(e) => return Err(e),
        };
        let rendered = srt_slurm::read(&source, selector, &recipe.display())?;
        for r in rendered.roles {
            point.workers.push(super::RoleWorkers {
                role: r.role,
                workers: r.workers,
                nodes: r.nodes,
                gpus_per_worker: r.gpus_per_worker,
            });
            match r.outcome {
                Outcome::Launch { mut launch } => {
                    launch.context.fill_from(&context);
                    point.launches.push(*launch);
                }
                Outcome::Unknown { reason } => point.unknown.push(format!("{}: {reason}", r.role)),
                Outcome::Unsupported { engine, keys } => point.unsupported.push(format!(
                    "{}: {engine} (not an engine recipe-drift resolves; its trtllm_config keys: {})",
                    r.role,
                    if keys.is_empty() {
                        "none".to_string()
                    } else {
                        keys.join(", ")
                    }
                )),
            }
        }
        points.push(point);
    }
    Ok(Expanded {
        entry: entry_key.to_string(),
        config: config.display(),
        points,
        unmatched: None,
        unread_env: Vec::new(),
    })
}

/// The checkout's files a multi-node srt-slurm entry's points read besides
/// the master configs: each point's recipe in [`LOCAL_RECIPES`], the runner
/// list and the runners' launch scripts (which pick the ref a recipe that is
/// not there is fetched at). A recipe fetched from the clone is remote and
/// not listed.
pub(super) fn dependencies(root: &std::path::Path, entry: &Entry) -> Vec<std::path::PathBuf> {
    let mut out = vec![root.join(srt_clone::RUNNERS)];
    let mut scripts: Vec<std::path::PathBuf> = std::fs::read_dir(root.join("runners"))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("launch_") && n.ends_with(".sh"))
        })
        .collect();
    scripts.sort();
    out.extend(scripts);
    for p in &entry.multinode_points {
        let Some((_, v, _)) = p.settings.iter().find(|(k, _, _)| k == "CONFIG_FILE") else {
            continue;
        };
        let file = v.split_once(':').map_or(v.as_str(), |(f, _)| f);
        if let Some(rel) = file.strip_prefix("recipes/") {
            let path = root.join(LOCAL_RECIPES).join(rel);
            if !out.contains(&path) {
                out.push(path);
            }
        }
    }
    out
}

/// The points of a multi-node entry whose fields `filter` selects (all of
/// them without a filter), or, when a filter selects none, the expansion
/// that says so.
pub(super) fn chosen_points(
    entry_key: &str,
    config: &Location,
    all: &[BTreeMap<String, String>],
    filter: &BTreeMap<String, String>,
) -> Result<Vec<usize>, Expanded> {
    let chosen: Vec<usize> = (0..all.len())
        .filter(|&i| filter.iter().all(|(k, v)| all[i].get(k) == Some(v)))
        .collect();
    if !filter.is_empty() && chosen.is_empty() {
        let refs: Vec<&BTreeMap<String, String>> = all.iter().collect();
        return Err(Expanded {
            entry: entry_key.to_string(),
            config: config.display(),
            points: Vec::new(),
            unmatched: Some(no_point_matches(entry_key, filter, &refs)),
            unread_env: Vec::new(),
        });
    }
    Ok(chosen)
}

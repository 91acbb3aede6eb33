//! `extract`'s output: launches with every word's position, matrix points,
//! and every selection of a generator or a recipe YAML.

use std::fmt::Write;
use std::path::Path;

use serde_json::json;

use super::Format;
use crate::extract;
use crate::launch::{Launch, Provenance};

/// An InferenceX entry's matrix points with their launches.
pub fn render_points(e: &extract::inferencex::Expanded, format: Format) -> String {
    match format {
        Format::Json => {
            let mut doc = json!({
                "schema_version": super::json::SCHEMA_VERSION,
                "entry": e.entry,
                "config": e.config,
                "points": e.points,
            });
            if !e.unread_env.is_empty() {
                doc["unread_env"] = json!(e.unread_env);
            }
            let mut s = serde_json::to_string_pretty(&doc).expect("serializable");
            s.push('\n');
            s
        }
        Format::Human => {
            let mut out = format!(
                "entry {} ({}): {} points\n",
                e.entry,
                e.config,
                e.points.len()
            );
            for name in &e.unread_env {
                let _ = writeln!(
                    out,
                    "warning: --env {name} was read by no script of the entry and is not an environment variable its engine is known to read"
                );
            }
            for (i, p) in e.points.iter().enumerate() {
                let fields: Vec<String> =
                    p.fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
                let _ = writeln!(
                    out,
                    "\npoint {}: {}\n  script: {}",
                    i + 1,
                    fields.join(" "),
                    p.script
                );
                for (k, r) in &p.unknown_env {
                    let _ = writeln!(out, "  unknown env {k}: {r}");
                }
                for a in &p.auxiliary {
                    let _ = writeln!(out, "  auxiliary: {a}");
                }
                out.push_str(&render_launches(&p.launches, &p.unsupported, Format::Human));
            }
            out
        }
    }
}

/// The launches of a file, and the launches of unsupported engines.
pub fn render_launches(launches: &[Launch], unsupported: &[String], format: Format) -> String {
    match format {
        Format::Json => {
            let doc = json!({
                "schema_version": super::json::SCHEMA_VERSION,
                "launches": launches,
                "unsupported": unsupported,
            });
            let mut s = serde_json::to_string_pretty(&doc).expect("serializable");
            s.push('\n');
            s
        }
        Format::Human => {
            let mut out = String::new();
            for (i, l) in launches.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "launch {}: {} ({}) at {}",
                    i + 1,
                    l.launcher_text(),
                    l.engine,
                    l.span
                );
                if let Some(Provenance::Unknown { reason }) =
                    l.launcher.first().map(|t| &t.provenance)
                {
                    let _ = writeln!(out, "  may not run: {reason}");
                }
                if let Some(img) = &l.context.image {
                    let _ = writeln!(out, "  image: {}", img.value);
                }
                if let Some(v) = &l.context.engine_version {
                    let _ = writeln!(out, "  engine version: {} ({})", v.value, v.from);
                }
                if let Some(p) = &l.context.platform {
                    let _ = writeln!(out, "  platform: {} ({})", p.value, p.from);
                }
                for e in &l.env {
                    let _ = writeln!(out, "  env {}={}  {}", e.name, e.value, e.span);
                }
                for t in &l.argv {
                    let from = match &t.provenance {
                        Provenance::Var { name } => format!("  (from ${name})"),
                        Provenance::Unknown { reason } => format!("  (unknown: {reason})"),
                        _ => String::new(),
                    };
                    let _ = writeln!(
                        out,
                        "  {:<40} {}{}",
                        shell_words::quote(&t.text),
                        t.span,
                        from
                    );
                }
            }
            for u in unsupported {
                let _ = writeln!(out, "unsupported: {u}");
            }
            if launches.is_empty() && unsupported.is_empty() {
                out.push_str("no serve commands found\n");
            }
            out
        }
    }
}

/// Every selection of a vLLM recipe YAML, with the composed command.
pub fn render_recipe_selections(
    file: &Path,
    composed: &[extract::vllm_recipes::Composed],
    format: Format,
) -> String {
    match format {
        Format::Json => {
            let selections: Vec<serde_json::Value> = composed
                .iter()
                .map(|c| {
                    // The words the tool reads from the site's command (a YAML
                    // item `--max-model-len auto` is two words there), as every
                    // other command of recipe-drift.
                    let (argv, error) = match c.launch() {
                        Ok(l) => (
                            l.argv.iter().map(|t| t.text.clone()).collect::<Vec<_>>(),
                            None,
                        ),
                        Err(e) => (c.argv.clone(), Some(e.to_string())),
                    };
                    let mut v = json!({
                        "selection": c.selection,
                        "variant": c.variant,
                        "strategy": c.strategy,
                        "hardware": c.hardware,
                        "verified": c.verified,
                        "env": c.env.iter().map(|e| json!([e.name, e.value])).collect::<Vec<_>>(),
                        "argv": argv,
                        "docker_image": c.docker_image,
                        "command": c.command,
                    });
                    if let Some(e) = error {
                        v["error"] = json!(e);
                    }
                    v
                })
                .collect();
            let doc = json!({
                "schema_version": super::json::SCHEMA_VERSION,
                "file": file.display().to_string(),
                "selections": selections,
            });
            let mut s = serde_json::to_string_pretty(&doc).expect("serializable");
            s.push('\n');
            s
        }
        Format::Human => {
            let mut out = format!(
                "{}: {} selection{}\n",
                file.display(),
                composed.len(),
                if composed.len() == 1 { "" } else { "s" }
            );
            for (i, c) in composed.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "\nselection {}: {}{}",
                    i + 1,
                    c.selection.describe(),
                    if c.verified {
                        ""
                    } else {
                        " (hardware not verified)"
                    }
                );
                for line in c.text.trim_end().lines() {
                    let _ = writeln!(out, "  {line}");
                }
            }
            out
        }
    }
}

/// Every reachable selection of each generator, with its command(s).
pub fn render_selections(
    bundle: &extract::jsx::Bundle,
    views: &[Vec<extract::jsx::View>],
    format: Format,
) -> String {
    match format {
        Format::Json => {
            let targets: Vec<serde_json::Value> = bundle
                .targets
                .iter()
                .zip(views)
                .map(|(t, vs)| {
                    let states: Vec<serde_json::Value> = vs
                        .iter()
                        .map(|v| {
                            let selection: serde_json::Map<String, serde_json::Value> = v
                                .selection
                                .iter()
                                .map(|(k, x)| (k.clone(), json!(x)))
                                .collect();
                            json!({
                                "selection": selection,
                                "clicks": v.path.iter().map(|(i, x)| json!([i, x])).collect::<Vec<_>>(),
                                "commands": v.commands,
                            })
                        })
                        .collect();
                    json!({"component": t.name, "at": t.at, "states": states})
                })
                .collect();
            let doc = json!({
                "schema_version": super::json::SCHEMA_VERSION,
                "file": bundle.file.display().to_string(),
                "components": targets,
            });
            let mut s = serde_json::to_string_pretty(&doc).expect("serializable");
            s.push('\n');
            s
        }
        Format::Human => {
            let mut out = String::new();
            for (t, vs) in bundle.targets.iter().zip(views) {
                let _ = writeln!(
                    out,
                    "<{} /> at {}: {} reachable selection{}",
                    t.name,
                    t.at,
                    vs.len(),
                    if vs.len() == 1 { "" } else { "s" }
                );
                for (i, v) in vs.iter().enumerate() {
                    let _ = writeln!(out, "\nselection {}: {}", i + 1, v.selection_label());
                    if v.commands.is_empty() {
                        out.push_str("  (no command)\n");
                    }
                    for c in &v.commands {
                        for line in c.trim_end().lines() {
                            let _ = writeln!(out, "  {line}");
                        }
                    }
                }
                out.push('\n');
            }
            out
        }
    }
}

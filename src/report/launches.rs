//! `extract`'s output: launches with every word's position, matrix points,
//! and every selection of a generator or a recipe YAML.

use std::fmt::Write;
use std::path::Path;

use serde_json::json;

use super::{Format, mask_json, v};
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
            if let Some(points) = doc["points"].as_array_mut() {
                for (p, point) in points.iter_mut().zip(&e.points) {
                    let masked: Vec<Launch> = point
                        .launches
                        .iter()
                        .map(Launch::secret_slots_masked)
                        .collect();
                    p["launches"] = json!(masked);
                }
            }
            mask_json(&mut doc);
            let mut s = serde_json::to_string_pretty(&doc).expect("serializable");
            s.push('\n');
            s
        }
        Format::Human => {
            let mut out = format!(
                "entry {} ({}): {} points\n",
                v(&e.entry.to_string()),
                v(&e.config.to_string()),
                e.points.len()
            );
            for name in &e.unread_env {
                let _ = writeln!(
                    out,
                    "warning: --env {} was read by no script of the entry and is not an environment variable its engine is known to read",
                    v(name)
                );
            }
            for (i, p) in e.points.iter().enumerate() {
                let fields: Vec<String> = p
                    .fields
                    .iter()
                    .map(|(k, x)| format!("{}={}", v(k), v(&x.to_string())))
                    .collect();
                let _ = writeln!(
                    out,
                    "\npoint {}: {}\n  script: {}",
                    i + 1,
                    fields.join(" "),
                    v(&p.script.to_string())
                );
                for (k, r) in &p.unknown_env {
                    let _ = writeln!(out, "  unknown env {}: {}", v(k), v(r));
                }
                for a in &p.auxiliary {
                    let _ = writeln!(out, "  auxiliary: {}", v(&a.to_string()));
                }
                for u in &p.unknown {
                    let _ = writeln!(out, "  unknown: {}", v(u));
                }
                out.push_str(&render_launches(&p.launches, &p.unsupported, Format::Human));
            }
            out
        }
    }
}

/// The launches of a file, and the launches of unsupported engines.
pub fn render_launches(launches: &[Launch], unsupported: &[String], format: Format) -> String {
    // Values in secret slots are masked whatever their length.
    let launches: Vec<Launch> = launches.iter().map(Launch::secret_slots_masked).collect();
    let launches = launches.as_slice();
    match format {
        Format::Json => {
            let mut doc = json!({
                "schema_version": super::json::SCHEMA_VERSION,
                "launches": launches,
                "unsupported": unsupported,
            });
            mask_json(&mut doc);
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
                    v(&l.launcher_text()),
                    l.engine,
                    v(&l.span.to_string())
                );
                if !l.role.is_single() {
                    let _ = writeln!(out, "  role: {}", l.role);
                }
                if let Some(Provenance::Unknown { reason }) =
                    l.launcher.first().map(|t| &t.provenance)
                {
                    let _ = writeln!(out, "  may not run: {}", v(reason));
                }
                if let Some(img) = &l.context.image {
                    let _ = writeln!(out, "  image: {}", v(&img.value.to_string()));
                }
                if let Some(ev) = &l.context.engine_version {
                    let _ = writeln!(
                        out,
                        "  engine version: {} ({})",
                        v(&ev.value.to_string()),
                        v(&ev.from)
                    );
                }
                if let Some(p) = &l.context.platform {
                    let _ = writeln!(
                        out,
                        "  platform: {} ({})",
                        v(&p.value.to_string()),
                        v(&p.from)
                    );
                }
                for e in &l.env {
                    let why = match &e.provenance {
                        Provenance::Unknown { reason } => format!("  (unknown: {})", v(reason)),
                        _ => String::new(),
                    };
                    let _ = writeln!(
                        out,
                        "  env {}={}  {}{why}",
                        v(&e.name),
                        v(&e.value),
                        v(&e.span.to_string())
                    );
                }
                if let Some(cause) = &l.env_open {
                    let _ = writeln!(
                        out,
                        "  env: may hold any variable (unknown: {} may have exported it)",
                        v(cause)
                    );
                }
                for t in &l.argv {
                    let from = match &t.provenance {
                        Provenance::Var { name } => format!("  (from ${})", v(name)),
                        Provenance::Unknown { reason } => format!("  (unknown: {})", v(reason)),
                        _ => String::new(),
                    };
                    let _ = writeln!(
                        out,
                        "  {:<40} {}{}",
                        shell_words::quote(&v(&t.text)),
                        v(&t.span.to_string()),
                        from
                    );
                }
            }
            for u in unsupported {
                let _ = writeln!(out, "unsupported: {}", v(u));
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
                        "features": c.features,
                        "env": c.env.iter().map(|e| json!([e.name, e.value])).collect::<Vec<_>>(),
                        "argv": argv,
                        "docker_image": c.docker_image,
                        "command": crate::secret::mask_command(&c.command),
                    });
                    if !c.role.is_single() {
                        v["role"] = json!(c.role);
                        v["pool"] = json!(c.pool);
                    }
                    if let Some(e) = error {
                        v["error"] = json!(e);
                    }
                    v
                })
                .collect();
            let mut doc = json!({
                "schema_version": super::json::SCHEMA_VERSION,
                "file": crate::span::path_label(file),
                "selections": selections,
            });
            mask_json(&mut doc);
            let mut s = serde_json::to_string_pretty(&doc).expect("serializable");
            s.push('\n');
            s
        }
        Format::Human => {
            // Every command masked (which records its secrets) before any
            // value is rendered: the masker is built once, not per command.
            let masked: Vec<String> = composed
                .iter()
                .map(|c| crate::secret::mask_command(&c.text))
                .collect();
            let mut out = format!(
                "{}: {} selection{}\n",
                v(&crate::span::path_label(file)),
                composed.len(),
                if composed.len() == 1 { "" } else { "s" }
            );
            for (i, (c, command)) in composed.iter().zip(&masked).enumerate() {
                let role = match &c.pool {
                    Some(p) => format!(
                        " ({} pool: {}, {} node{})",
                        p.role,
                        p.parallelism,
                        p.nodes,
                        if p.nodes == 1 { "" } else { "s" }
                    ),
                    None => String::new(),
                };
                let _ = writeln!(
                    out,
                    "\nselection {}: {}{role}{}",
                    i + 1,
                    v(&c.selection.describe()),
                    if c.verified {
                        ""
                    } else {
                        " (hardware not verified)"
                    }
                );
                for line in command.trim_end().lines() {
                    let _ = writeln!(out, "  {}", v(line));
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
    crashes: &[Vec<extract::jsx::Crash>],
    format: Format,
) -> String {
    let no_crashes = Vec::new();
    let crashes_of = |t: usize| crashes.get(t).unwrap_or(&no_crashes);
    match format {
        Format::Json => {
            let targets: Vec<serde_json::Value> = bundle
                .targets
                .iter()
                .zip(views)
                .enumerate()
                .map(|(ti, (t, vs))| {
                    let crashes: Vec<serde_json::Value> = crashes_of(ti)
                        .iter()
                        .map(|c| {
                            json!({
                                "clicks": c.path.iter().map(|(i, x)| json!([i, x])).collect::<Vec<_>>(),
                                "selection": c.selection.iter().map(|(k, x)| (k.clone(), json!(x))).collect::<serde_json::Map<_, _>>(),
                                "error": c.message,
                            })
                        })
                        .collect();
                    let states: Vec<serde_json::Value> = vs
                        .iter()
                        .map(|view| {
                            let selection: serde_json::Map<String, serde_json::Value> = view
                                .selection
                                .iter()
                                .map(|(k, x)| (k.clone(), json!(x)))
                                .collect();
                            json!({
                                "selection": selection,
                                "clicks": view.path.iter().map(|(i, x)| json!([i, x])).collect::<Vec<_>>(),
                                "commands": view.commands.iter().map(|c| crate::secret::mask_command(c)).collect::<Vec<_>>(),
                            })
                        })
                        .collect();
                    json!({"component": t.name, "at": t.at, "states": states, "crashes": crashes})
                })
                .collect();
            let mut doc = json!({
                "schema_version": super::json::SCHEMA_VERSION,
                "file": crate::span::path_label(&bundle.file),
                "components": targets,
            });
            mask_json(&mut doc);
            let mut s = serde_json::to_string_pretty(&doc).expect("serializable");
            s.push('\n');
            s
        }
        Format::Human => {
            // Every command masked (which records its secrets) before any
            // value is rendered: the masker is built once, not per command.
            let masked: Vec<Vec<Vec<String>>> = views
                .iter()
                .map(|vs| {
                    vs.iter()
                        .map(|view| {
                            view.commands
                                .iter()
                                .map(|c| crate::secret::mask_command(c))
                                .collect()
                        })
                        .collect()
                })
                .collect();
            let mut out = String::new();
            for (ti, ((t, vs), masked)) in bundle.targets.iter().zip(views).zip(&masked).enumerate()
            {
                let _ = writeln!(
                    out,
                    "<{} /> at {}: {} reachable selection{}",
                    v(&t.name),
                    v(&t.at.to_string()),
                    vs.len(),
                    if vs.len() == 1 { "" } else { "s" }
                );
                for (i, (view, commands)) in vs.iter().zip(masked).enumerate() {
                    let _ = writeln!(out, "\nselection {}: {}", i + 1, v(&view.selection_label()));
                    if view.commands.is_empty() {
                        out.push_str("  (no command)\n");
                    }
                    for c in commands {
                        for line in c.trim_end().lines() {
                            let _ = writeln!(out, "  {}", v(line));
                        }
                    }
                }
                // One entry per distinct error: its first (shortest) click
                // path, and how many other paths end in it.
                let mut errors: Vec<(&extract::jsx::Crash, usize)> = Vec::new();
                for c in crashes_of(ti) {
                    match errors.iter_mut().find(|(e, _)| e.message == c.message) {
                        Some((_, n)) => *n += 1,
                        None => errors.push((c, 0)),
                    }
                }
                for (i, (c, more)) in errors.iter().enumerate() {
                    let _ = writeln!(
                        out,
                        "\ncrash {}: <{} /> throws {}: {}",
                        i + 1,
                        v(&t.name),
                        v(&format!(
                            "on clicking {} in selection {}",
                            c.path
                                .last()
                                .map(|(i, x)| format!("control #{i} ({x})"))
                                .unwrap_or_default(),
                            c.selection
                                .iter()
                                .map(|(k, x)| format!("{k}={x}"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )),
                        v(&c.message)
                    );
                    let _ = writeln!(
                        out,
                        "  clicks from the initial state: {}",
                        v(&c.path
                            .iter()
                            .map(|(i, x)| format!("#{i}={x}"))
                            .collect::<Vec<_>>()
                            .join(" "))
                    );
                    if let Some(at) = &c.at {
                        let _ = writeln!(out, "  thrown at {}", v(&at.to_string()));
                    }
                    if *more > 0 {
                        let _ = writeln!(
                            out,
                            "  ({more} other click path{} end in the same error)",
                            if *more == 1 { "" } else { "s" }
                        );
                    }
                }
                out.push('\n');
            }
            out
        }
    }
}

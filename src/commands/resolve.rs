//! `recipe-drift resolve --engine E -- ARGV`: what a release parses and
//! resolves for an argv given on the command line.

use std::fmt::Write;

use serde_json::json;

use super::Output;
use crate::cli::ResolveArgs;
use crate::engine::{self, ParseFailure};
use crate::error::Error;
use crate::launch::{Engine, Launch};
use crate::link::options;
use crate::manifest::SideSpec;
use crate::report::{self, Format};
use crate::resolved::Val;

/// Prints what an engine release parses and resolves for an argv.
pub(super) fn run(args: ResolveArgs) -> Result<Output, Error> {
    let ResolveArgs {
        engine,
        context,
        raw,
        remote,
        format,
        argv,
    } = args;
    let engine = engine.as_str();
    let ctx = &crate::link::Overrides {
        checkpoints: Some(super::checkpoints(&remote, &[], &[], None)?),
        ..super::overrides(&context)
    };
    let mut out = String::new();
    let engine = Engine::parse(engine)
        .filter(|e| engine::by_name(e.name()).is_some())
        .ok_or_else(|| {
            let names: Vec<&str> = engine::registry().iter().map(|e| e.name()).collect();
            Error::usage(format!("unknown engine {engine:?} ({})", names.join(", ")))
        })?;
    let launch = Launch::inline(engine, &argv, &[]);
    let opts = options(ctx, &SideSpec::default())?;
    if raw {
        let en = engine::by_name(engine.name())
            .ok_or_else(|| Error::usage(format!("unknown engine {engine:?}")))?;
        let requested = opts
            .engine_version
            .as_deref()
            .map(|v| (v, "--engine-version"));
        let parsed = en.parse_raw(requested, &argv).map_err(|e| match e {
            ParseFailure::Release(e) => e,
            ParseFailure::Refused {
                release,
                message,
                arg_index,
            } => {
                let span = arg_index
                    .and_then(|i| launch.argv.get(i))
                    .map(|t| t.span.clone())
                    .unwrap_or(launch.span.clone());
                Error::input(span, format!("{} {release}: {message}", en.name()))
            }
        })?;
        match format {
            Format::Json => {
                let mut doc = json!({"schema_version": report::json::SCHEMA_VERSION, "engine": en.name(), "version": parsed.version, "namespace": parsed.namespace});
                report::mask_json(&mut doc);
                let _ = writeln!(out, "{}", serde_json::to_string_pretty(&doc).expect("json"));
            }
            Format::Human => {
                let _ = writeln!(
                    out,
                    "# {} {} ({})",
                    en.name(),
                    report::v(&parsed.version.version),
                    report::v(&parsed.version.from)
                );
                for (k, v) in &parsed.namespace {
                    let _ = writeln!(out, "{} = {}", report::v(k), report::v(&v.to_string()));
                }
            }
        }
        return Ok(Output {
            code: 0,
            stdout: out,
            ..Output::default()
        });
    }
    let r = engine::resolve(&launch, &opts)?;
    match format {
        Format::Json => {
            let mut doc = json!({"schema_version": report::json::SCHEMA_VERSION, "resolved": r});
            report::mask_json(&mut doc);
            let _ = writeln!(out, "{}", serde_json::to_string_pretty(&doc).expect("json"));
        }
        Format::Human => {
            let _ = writeln!(
                out,
                "# {} {} ({})",
                r.engine,
                report::v(&r.version.version),
                report::v(&r.version.from)
            );
            match &r.platform {
                Some(p) => {
                    let _ = writeln!(
                        out,
                        "# platform: {} ({})",
                        report::v(&p.value.to_string()),
                        report::v(&p.from)
                    );
                }
                None => {
                    let _ = writeln!(out, "# platform: unknown (give --platform or --hardware)");
                }
            }
            for e in &r.startup_errors {
                let _ = writeln!(
                    out,
                    "# startup error: {} (rule {})",
                    report::v(&e.message),
                    e.rule
                );
            }
            for (k, e) in &r.values {
                let set =
                    e.is_explicit() || !e.rules.is_empty() || matches!(e.val, Val::Unknown { .. });
                if !set {
                    continue;
                }
                let source = serde_json::to_value(e.source)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                let mut line = format!(
                    "{} = {}  [{source}]",
                    report::v(k),
                    report::v(&e.val.display())
                );
                for h in &e.rules {
                    line.push_str(&format!("  <- rule {}", h.id));
                    for f in &h.facts {
                        line.push_str(&format!(" [{f}]"));
                    }
                }
                let _ = writeln!(out, "{line}");
            }
            let _ = writeln!(out, "# other keys are at the release defaults (see --raw)");
        }
    }
    Ok(Output {
        code: if r.startup_errors.is_empty() { 0 } else { 1 },
        stdout: out,
        ..Output::default()
    })
}

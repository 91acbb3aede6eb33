//! Survey: resolve every vLLM launch of real checkouts and report counts and time.
//!
//! 1. `VLLM_RECIPES_ROOT` (a checkout of vllm-project/recipes): every
//!    `models/<org>/<model>.yaml` is composed for every selection on verified
//!    hardware, then on offered hardware; each composed command is resolved
//!    with the selection's hardware.
//! 2. `INFERENCEX_ROOT` (a checkout of InferenceX): every single-node
//!    `framework: vllm` entry of `configs/*-master.yaml` is expanded and every
//!    launch of every point is resolved.
//!
//! Run with
//! `VLLM_RECIPES_ROOT=/path/to/recipes INFERENCEX_ROOT=/path/to/InferenceX cargo bench --bench vllm_survey`
//! (either variable alone runs that half). Without them it prints how to run
//! it and exits (no network, no checkout is bundled). The output is
//! deterministic apart from the timings.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use recipe_drift::engine::resolve;
use recipe_drift::error::Error;
use recipe_drift::extract::inferencex::expand;
use recipe_drift::extract::vllm_recipes::{Composed, HardwareScope, Recipe, Selection, Taxonomy};
use recipe_drift::launch::Launch;
use recipe_drift::policy::{Class, Policy};
use recipe_drift::resolved::{ResolveOptions, Val};
use recipe_drift::span::Source;

/// How many rows of each group to print.
const TOP: usize = 15;

fn main() {
    let recipes = std::env::var_os("VLLM_RECIPES_ROOT").map(PathBuf::from);
    let ix = std::env::var_os("INFERENCEX_ROOT").map(PathBuf::from);
    if recipes.is_none() && ix.is_none() {
        println!("vllm_survey: resolves every vLLM launch of real checkouts.");
        println!("set VLLM_RECIPES_ROOT to a vllm-project/recipes checkout and/or");
        println!("INFERENCEX_ROOT to an InferenceX checkout, then run:");
        println!(
            "  VLLM_RECIPES_ROOT=/path/to/recipes INFERENCEX_ROOT=/path/to/InferenceX cargo bench --bench vllm_survey"
        );
        return;
    }
    let policy = Policy::default();
    if let Some(root) = recipes {
        for (name, scope) in [
            ("verified", HardwareScope::Verified),
            ("offered", HardwareScope::Offered),
        ] {
            survey_recipes(&root, name, scope, &policy);
        }
    }
    if let Some(root) = ix {
        survey_inferencex(&root, &policy);
    }
}

// ---------------------------------------------------------------------------
// Tallies shared by both halves.
// ---------------------------------------------------------------------------

/// A group: how many, and the first example (deterministic: inputs are sorted).
#[derive(Default)]
struct Group {
    n: usize,
    example: String,
}

#[derive(Default)]
struct Groups(BTreeMap<String, Group>);

impl Groups {
    fn add(&mut self, key: impl Into<String>, example: impl FnOnce() -> String) {
        let g = self.0.entry(key.into()).or_default();
        if g.n == 0 {
            g.example = example();
        }
        g.n += 1;
    }

    fn total(&self) -> usize {
        self.0.values().map(|g| g.n).sum()
    }

    /// Largest first, then by key.
    fn print(&self, title: &str, example_chars: usize) {
        println!("  {title}: {} in {} groups", self.total(), self.0.len());
        let mut rows: Vec<(&String, &Group)> = self.0.iter().collect();
        rows.sort_by(|a, b| b.1.n.cmp(&a.1.n).then(a.0.cmp(b.0)));
        for (k, g) in rows.iter().take(TOP) {
            println!("    {:6}  {k}", g.n);
            if example_chars > 0 && !g.example.is_empty() {
                println!("            e.g. {}", clip(&g.example, example_chars));
            }
        }
        if rows.len() > TOP {
            println!("    ... {} more groups", rows.len() - TOP);
        }
    }
}

/// What resolving a set of launches found.
#[derive(Default)]
struct Tally {
    launches: usize,
    resolved: usize,
    engines: BTreeMap<&'static str, usize>,
    errors: Groups,
    startup: Groups,
    no_effect: Groups,
    unknown_major: Groups,
    unknown_major_written: Groups,
    time: Duration,
}

impl Tally {
    /// Resolves one launch; `what` names it in examples (lazily).
    fn resolve(
        &mut self,
        launch: &Launch,
        opts: &ResolveOptions,
        policy: &Policy,
        what: &dyn Fn() -> String,
    ) {
        self.launches += 1;
        *self.engines.entry(launch.engine.name()).or_default() += 1;
        let t = Instant::now();
        let r = resolve(launch, opts);
        self.time += t.elapsed();
        match r {
            Ok(r) => {
                self.resolved += 1;
                for e in &r.startup_errors {
                    self.startup
                        .add(e.rule.clone(), || format!("{} <- {}", e.message, what()));
                }
                for (key, entry) in &r.values {
                    if entry.no_effect.is_some() {
                        self.no_effect.add(entry.name.clone(), || {
                            format!(
                                "{} <- {}",
                                entry.no_effect.as_deref().unwrap_or_default(),
                                what()
                            )
                        });
                    }
                    if let Val::Unknown { reason, .. } = &entry.val
                        && policy.class(key) == Class::Major
                    {
                        self.unknown_major
                            .add(key.clone(), || format!("{reason} <- {}", what()));
                        if entry.is_explicit() {
                            self.unknown_major_written
                                .add(key.clone(), || format!("{reason} <- {}", what()));
                        }
                    }
                }
            }
            Err(e) => {
                let msg = message(&e);
                self.errors.add(clip(&msg, 80), || {
                    format!("{}: {} <- {}", location(&e), clip(&msg, 400), what())
                });
            }
        }
    }

    fn print(&self, what: &str) {
        let engines: Vec<String> = self
            .engines
            .iter()
            .map(|(e, n)| format!("{e} {n}"))
            .collect();
        println!(
            "  {what}: {} ({}), resolved: {}, resolve errors: {}",
            self.launches,
            engines.join(", "),
            self.resolved,
            self.errors.total()
        );
        self.errors.print("resolve errors by message", 1000);
        self.startup.print("startup errors by rule", 300);
        self.no_effect.print("no-effect env by name", 300);
        self.unknown_major.print("unknown MAJOR keys by key", 300);
        self.unknown_major_written
            .print("  of which set by the text (cli, env, context)", 300);
    }
}

/// An error's message without its `file:line:col: ` location.
fn message(e: &Error) -> String {
    e.message().to_string()
}

fn location(e: &Error) -> String {
    match e {
        Error::Input { span, .. } => span.to_string(),
        Error::Remote { location, .. } => location.clone(),
        Error::Usage(_) => "(usage error)".into(),
        Error::Several(all) => all.first().map(location).unwrap_or_default(),
    }
}

/// The first `n` characters, on one line.
fn clip(s: &str, n: usize) -> String {
    let one: String = s.replace(" \\\n", " ").replace('\n', " ⏎ ");
    let mut out: String = one.chars().take(n).collect();
    if one.chars().count() > n {
        out.push('…');
    }
    out
}

/// A refusal message with its specifics (quoted names, numbers, lists)
/// blanked, so that refusals of the same kind group together.
fn refusal_kind(msg: &str) -> String {
    let mut out = String::new();
    let mut in_tick = false;
    let mut last_digit = false;
    for c in msg.chars() {
        if c == '`' {
            if !in_tick {
                out.push_str("`…`");
            }
            in_tick = !in_tick;
            last_digit = false;
            continue;
        }
        if in_tick {
            continue;
        }
        if c.is_ascii_digit() || (last_digit && c == '.') {
            if !last_digit {
                out.push('N');
            }
            last_digit = true;
            continue;
        }
        last_digit = false;
        out.push(c);
    }
    // The list after "; variants that ...: a, b" / "verified hardware: ..." is specific.
    let cut = out.find(';').unwrap_or(out.len());
    clip(&out[..cut], 100)
}

fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

// ---------------------------------------------------------------------------
// vLLM recipes site.
// ---------------------------------------------------------------------------

fn model_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let models = root.join("models");
    let Ok(orgs) = std::fs::read_dir(&models) else {
        return out;
    };
    for org in orgs.filter_map(Result::ok) {
        let Ok(files) = std::fs::read_dir(org.path()) else {
            continue;
        };
        for f in files.filter_map(Result::ok) {
            let p = f.path();
            if p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn survey_recipes(root: &Path, scope_name: &str, scope: HardwareScope, policy: &Policy) {
    println!("== vLLM recipes ({}), scope {scope_name}", root.display());
    let files = model_files(root);
    let mut taxonomy: Option<Taxonomy> = None;
    let mut compose_time = Duration::ZERO;
    let mut load_errors = Groups::default();
    let mut skipped = Groups::default();
    let mut refused_pairs = Groups::default();
    let mut compose_errors = Groups::default();
    let mut launch_errors = Groups::default();
    let (mut recipes, mut with_selections, mut selections, mut composed_n) = (0, 0, 0, 0);
    let mut tally = Tally::default();
    for path in &files {
        recipes += 1;
        let rel = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        let t = Instant::now();
        if taxonomy.is_none() {
            match Taxonomy::find_for(path) {
                Ok(t) => taxonomy = Some(t),
                Err(e) => {
                    println!("  cannot load the taxonomy: {e}");
                    return;
                }
            }
        }
        let tax = taxonomy.as_ref().expect("loaded above");
        let recipe = match Source::read(path).and_then(|s| Recipe::parse(&s)) {
            Ok(r) => r,
            Err(e) => {
                compose_time += t.elapsed();
                load_errors.add(clip(&message(&e), 80), || e.to_string());
                continue;
            }
        };
        if recipe.is_omni() {
            compose_time += t.elapsed();
            skipped.add("omni recipe (meta.tasks has omni)", || rel.clone());
            continue;
        }
        let sels = match recipe.all_selections(tax, scope) {
            Ok(s) => s,
            Err(e) => {
                compose_time += t.elapsed();
                load_errors.add(clip(&message(&e), 80), || e.to_string());
                continue;
            }
        };
        let mut composed: Vec<Composed> = Vec::new();
        for sel in &sels {
            match recipe.compose(tax, sel, scope) {
                Ok(c) => composed.push(c),
                Err(e) => compose_errors.add(clip(&message(&e), 80), || {
                    format!("{rel} {}: {e}", sel.describe())
                }),
            }
        }
        // Hardware within scope that yields no selection: why not (the site's
        // landing selection there, refused).
        let covered: BTreeSet<&str> = sels.iter().map(|s| s.hardware.as_str()).collect();
        let candidates: Vec<String> = match scope {
            HardwareScope::Verified => recipe.verified_hardware(),
            HardwareScope::Offered => tax.hardware.iter().map(|h| h.id.clone()).collect(),
        };
        let mut reasons: BTreeSet<String> = BTreeSet::new();
        for hw in candidates.iter().filter(|h| !covered.contains(h.as_str())) {
            let sel = Selection {
                hardware: hw.clone(),
                ..Selection::default()
            };
            match recipe.compose(tax, &sel, scope) {
                Err(e) => {
                    let m = message(&e);
                    // Not offered at all: not a refusal.
                    if scope == HardwareScope::Offered
                        && (m.contains("unsupported") && m.starts_with("the recipe marks")
                            || m.contains("restricted profile")
                            || m.starts_with("no variant of this recipe runs on"))
                    {
                        continue;
                    }
                    let kind = refusal_kind(&m);
                    refused_pairs.add(kind.clone(), || format!("{rel} hardware={hw}: {m}"));
                    reasons.insert(kind);
                }
                Ok(c) => refused_pairs.add(
                    "landing selection composes but all_selections lists none (check)",
                    || format!("{rel} hardware={hw}: {}", c.selection.describe()),
                ),
            }
        }
        compose_time += t.elapsed();
        selections += sels.len();
        composed_n += composed.len();
        if composed.is_empty() {
            let why = if candidates.is_empty() {
                format!("no {scope_name} hardware")
            } else if reasons.is_empty() {
                "no selection (no refusal recorded)".to_string()
            } else {
                reasons.iter().cloned().collect::<Vec<_>>().join(" | ")
            };
            skipped.add(why, || rel.clone());
            continue;
        }
        with_selections += 1;
        for c in &composed {
            let what = || format!("{rel} {} :: {}", c.selection.describe(), clip(&c.text, 300));
            let launch = match c.launch() {
                Ok(l) => l,
                Err(e) => {
                    launch_errors.add(clip(&message(&e), 80), || format!("{} ({e})", what()));
                    continue;
                }
            };
            let opts = ResolveOptions {
                hardware: Some(c.hardware.clone()),
                ..ResolveOptions::default()
            };
            tally.resolve(&launch, &opts, policy, &what);
        }
    }
    println!(
        "  recipes: {recipes}, with selections: {with_selections}, skipped: {}, load errors: {}",
        skipped.total(),
        load_errors.total()
    );
    skipped.print("skipped recipes by reason", 300);
    refused_pairs.print("(recipe, hardware) pairs refused, by reason", 300);
    if load_errors.total() > 0 {
        load_errors.print("load errors", 300);
    }
    println!(
        "  selections: {selections}, composed: {composed_n}, compose errors: {}, launch() errors: {}",
        compose_errors.total(),
        launch_errors.total()
    );
    if compose_errors.total() > 0 {
        compose_errors.print("compose errors", 300);
    }
    if launch_errors.total() > 0 {
        launch_errors.print("launch() errors", 300);
    }
    tally.print("launches");
    println!(
        "  time: compose {}, resolve {} ({:.1} µs/launch)",
        secs(compose_time),
        secs(tally.time),
        tally.time.as_secs_f64() * 1e6 / tally.launches.max(1) as f64
    );
}

// ---------------------------------------------------------------------------
// InferenceX.
// ---------------------------------------------------------------------------

fn survey_inferencex(root: &Path, policy: &Policy) {
    println!(
        "== InferenceX ({}), single-node framework: vllm",
        root.display()
    );
    let mut entries: Vec<String> = Vec::new();
    let mut configs: Vec<PathBuf> = std::fs::read_dir(root.join("configs"))
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.to_string_lossy().ends_with("-master.yaml"))
                .collect()
        })
        .unwrap_or_default();
    configs.sort();
    let mut multinode = 0;
    for cfg in &configs {
        let text = std::fs::read_to_string(cfg).expect("master config");
        let doc: BTreeMap<String, serde_json::Value> = serde_saphyr::from_str(&text).expect("yaml");
        for (k, v) in doc {
            if v["framework"].as_str() != Some("vllm") {
                continue;
            }
            if v["multinode"].as_bool().unwrap_or(false) {
                multinode += 1;
            } else {
                entries.push(k);
            }
        }
    }
    entries.sort();
    let mut expand_time = Duration::ZERO;
    let mut expand_errors = Groups::default();
    let (mut expanded, mut points, mut empty_points) = (0, 0, 0);
    let mut unsupported = Groups::default();
    let mut tally = Tally::default();
    for e in &entries {
        let t = Instant::now();
        let x = expand(root, e, &BTreeMap::new());
        expand_time += t.elapsed();
        let x = match x {
            Ok(x) => x,
            Err(err) => {
                expand_errors.add(clip(&message(&err), 80), || format!("{e}: {err}"));
                continue;
            }
        };
        expanded += 1;
        points += x.points.len();
        for p in &x.points {
            if p.launches.is_empty() {
                empty_points += 1;
            }
            for u in &p.unsupported {
                let m = u.splitn(4, ':').nth(3).unwrap_or(u).trim().to_string();
                unsupported.add(clip(&m, 80), || format!("{e}: {u}"));
            }
            let fields: Vec<String> = p.fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
            for l in &p.launches {
                let what = || {
                    let words: Vec<&str> = l
                        .launcher
                        .iter()
                        .chain(&l.argv)
                        .map(|t| t.text.as_str())
                        .collect();
                    let text = words.join(" ");
                    format!(
                        "{e} [{}] {}: {}",
                        fields.join(" "),
                        l.span,
                        clip(&text, 300)
                    )
                };
                tally.resolve(l, &ResolveOptions::default(), policy, &what);
            }
        }
    }
    println!(
        "  entries: {} single-node ({multinode} multi-node not surveyed), expanded: {expanded}, expand errors: {}",
        entries.len(),
        expand_errors.total()
    );
    if expand_errors.total() > 0 {
        expand_errors.print("expand errors", 300);
    }
    println!("  points: {points}, points starting no server: {empty_points}");
    if unsupported.total() > 0 {
        unsupported.print("unsupported launches", 300);
    }
    tally.print("launches");
    println!(
        "  time: expand {}, resolve {} ({:.1} µs/launch)",
        secs(expand_time),
        secs(tally.time),
        tally.time.as_secs_f64() * 1e6 / tally.launches.max(1) as f64
    );
}

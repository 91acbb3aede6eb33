//! Survey: extract every single-node SGLang and vLLM entry of an InferenceX
//! checkout's master configs, and report points, launches, unknowns, errors and time.
//!
//! Run with `INFERENCEX_ROOT=/path/to/InferenceX cargo bench --bench inferencex_survey`.
//! Without the variable it prints how to run it and exits (no network, no checkout
//! is bundled).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use recipe_drift::extract::inferencex::expand;
use recipe_drift::launch::Provenance;

fn main() {
    let Some(root) = std::env::var_os("INFERENCEX_ROOT").map(PathBuf::from) else {
        println!("set INFERENCEX_ROOT to an InferenceX checkout to run the survey");
        return;
    };
    let mut entries: Vec<String> = Vec::new();
    for cfg in ["amd-master.yaml", "nvidia-master.yaml"] {
        let text = std::fs::read_to_string(root.join("configs").join(cfg)).expect("master config");
        let doc: BTreeMap<String, serde_json::Value> = serde_saphyr::from_str(&text).expect("yaml");
        for (k, v) in doc {
            let fw = v["framework"].as_str().unwrap_or("");
            if (fw == "sglang" || fw == "vllm") && !v["multinode"].as_bool().unwrap_or(false) {
                entries.push(k);
            }
        }
    }
    let t = Instant::now();
    let (mut ok, mut points, mut launches, mut unknown_tokens) = (0, 0, 0, 0);
    let mut errors: Vec<String> = Vec::new();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for e in &entries {
        match expand(&root, e, &BTreeMap::new()) {
            Ok(x) => {
                ok += 1;
                points += x.points.len();
                for p in &x.points {
                    launches += p.launches.len();
                    if p.launches.is_empty() {
                        let f: Vec<String> =
                            p.fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
                        errors.push(format!(
                            "{e}: point {} starts no server{}",
                            f.join(" "),
                            if p.unsupported.is_empty() {
                                String::new()
                            } else {
                                format!(" ({})", p.unsupported.join("; "))
                            }
                        ));
                    }
                    for l in &p.launches {
                        for tok in l.argv.iter().chain(&l.launcher) {
                            if let Provenance::Unknown { reason } = &tok.provenance {
                                unknown_tokens += 1;
                                let short: String = reason.chars().take(90).collect();
                                *reasons.entry(short).or_default() += 1;
                            }
                        }
                    }
                }
            }
            Err(err) => errors.push(format!("{e}: {err}")),
        }
    }
    let elapsed = t.elapsed();
    println!(
        "entries: {} single-node sglang/vllm, {ok} extracted, {} failed",
        entries.len(),
        errors.len()
    );
    println!("points: {points}, launches: {launches}, unknown tokens: {unknown_tokens}");
    println!("time: {:.2} s", elapsed.as_secs_f64());
    let mut top: Vec<(usize, String)> = reasons.into_iter().map(|(r, n)| (n, r)).collect();
    top.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for (n, r) in top.iter().take(12) {
        println!("  {n:6}  {r}");
    }
    errors.dedup_by(|a, b| a.split(": point").next() == b.split(": point").next());
    for e in errors.iter().take(40) {
        println!("error: {}", e.chars().take(300).collect::<String>());
    }
}

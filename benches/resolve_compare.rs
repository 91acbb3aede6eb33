//! Benchmark: extract, resolve and compare 10,000 SGLang commands.
//!
//! Run with `cargo bench --bench resolve_compare`. Prints the wall time of each
//! phase; no assertion on time (performance is measured here, not in tests).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use recipe_drift::compare::compare;
use recipe_drift::engine::sglang;
use recipe_drift::extract::{InputKind, extract_source};
use recipe_drift::policy::Policy;
use recipe_drift::resolve::{ResolveOptions, resolve};
use recipe_drift::source::{Origin, Source};

const N: usize = 10_000;

fn command(i: usize) -> String {
    let tp = [1, 2, 4, 8][i % 4];
    let layout = ["page_first", "page_first_direct", "layer_first"][i % 3];
    let io = ["kernel", "direct"][(i / 3) % 2];
    let spec = ["NEXTN", "EAGLE", "EAGLE3"][(i / 7) % 3];
    format!(
        "SGLANG_USE_AITER=1 ROCM_QUICK_REDUCE_QUANTIZATION=INT4 \\\n\
         python3 -m sglang.launch_server --model-path amd/Qwen3.5-397B-A17B-MXFP4 --tp {tp} \\\n\
         --attention-backend aiter --page-size 16 --speculative-algo {spec} --speculative-num-steps 3 \\\n\
         --speculative-eagle-topk 1 --enable-hierarchical-cache --hicache-ratio 1.5 \\\n\
         --hicache-io-backend {io} --hicache-mem-layout {layout} --port {}\n",
        8000 + i
    )
}

fn main() {
    let t0 = Instant::now();
    let _ = sglang::bundle();
    let load = t0.elapsed();

    let sources: Vec<Arc<Source>> = (0..N)
        .map(|i| Arc::new(Source::new(Origin::Inline(format!("cmd{i}")), command(i))))
        .collect();
    let t1 = Instant::now();
    let launches: Vec<_> = sources
        .iter()
        .map(|s| {
            extract_source(s, InputKind::Command, &BTreeMap::new())
                .unwrap()
                .remove(0)
        })
        .collect();
    let extract = t1.elapsed();

    let opts = ResolveOptions {
        engine_version: Some("0.5.19".into()),
        platform: None,
        hardware: Some("mi355x".into()),
        origin: None,
    };
    let t2 = Instant::now();
    let resolved: Vec<_> = launches
        .iter()
        .map(|l| resolve(l, &opts).unwrap())
        .collect();
    let resolve_t = t2.elapsed();

    let policy = Policy::default();
    let t3 = Instant::now();
    let mut drift = 0;
    for i in 0..N {
        let c = compare(&resolved[i], &resolved[(i + 1) % N], &policy);
        if c.has_errors() {
            drift += 1;
        }
    }
    let compare_t = t3.elapsed();
    println!(
        "bundled data load (once): {:>8.1} ms",
        load.as_secs_f64() * 1e3
    );
    println!(
        "extract  {N} commands:   {:>8.1} ms",
        extract.as_secs_f64() * 1e3
    );
    println!(
        "resolve  {N} commands:   {:>8.1} ms",
        resolve_t.as_secs_f64() * 1e3
    );
    println!(
        "compare  {N} pairs:      {:>8.1} ms ({drift} with MAJOR drift)",
        compare_t.as_secs_f64() * 1e3
    );
    println!(
        "total resolve+compare: {:>8.1} ms",
        (resolve_t + compare_t).as_secs_f64() * 1e3
    );
}

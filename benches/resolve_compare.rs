//! Benchmark: extract, resolve and compare 10,000 SGLang commands, then 10,000
//! vLLM commands.
//!
//! Run with `cargo bench --bench resolve_compare`. Prints the wall time of each
//! phase; no assertion on time (performance is measured here, not in tests).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use recipe_drift::compare::compare;
use recipe_drift::engine::resolve;
use recipe_drift::engine::{sglang, vllm};
use recipe_drift::extract::{InputKind, extract_source};
use recipe_drift::policy::Policy;
use recipe_drift::resolved::ResolveOptions;
use recipe_drift::span::{Origin, Source};

const N: usize = 10_000;

fn sglang_command(i: usize) -> String {
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

fn vllm_command(i: usize) -> String {
    let tp = [1, 2, 4, 8][i % 4];
    let method = ["mtp", "deepseek_mtp", "qwen3_next_mtp"][(i / 3) % 3];
    let graphs = ["FULL_DECODE_ONLY", "full_and_piecewise", "PIECEWISE"][(i / 5) % 3];
    format!(
        "VLLM_ROCM_USE_AITER=1 VLLM_ROCM_USE_AITER_MOE=0 VLLM_USE_FLASHINFER_MOE_FP4=1 \\\n\
         vllm serve deepseek-ai/DeepSeek-R1 -tp {tp} -ep --max_model_len 128K \\\n\
         --kv-cache-dtype fp8_e4m3 --moe-backend flashinfer-trtllm --attention-backend flashinfer \\\n\
         -cc.mode 3 -cc.cudagraph_mode {graphs} \\\n\
         --speculative-config '{{\"method\": \"{method}\", \"num_speculative_tokens\": 2}}' --port {}\n",
        8000 + i
    )
}

fn run(label: &str, command: fn(usize) -> String, opts: &ResolveOptions) {
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
    let t2 = Instant::now();
    let resolved: Vec<_> = launches.iter().map(|l| resolve(l, opts).unwrap()).collect();
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
    println!("{label}:");
    println!(
        "  extract  {N} commands:   {:>8.1} ms",
        extract.as_secs_f64() * 1e3
    );
    println!(
        "  resolve  {N} commands:   {:>8.1} ms",
        resolve_t.as_secs_f64() * 1e3
    );
    println!(
        "  compare  {N} pairs:      {:>8.1} ms ({drift} with MAJOR drift)",
        compare_t.as_secs_f64() * 1e3
    );
    println!(
        "  total resolve+compare: {:>8.1} ms",
        (resolve_t + compare_t).as_secs_f64() * 1e3
    );
}

fn main() {
    let t0 = Instant::now();
    let _ = sglang::bundle();
    let sglang_load = t0.elapsed();
    let t0 = Instant::now();
    let _ = vllm::releases();
    let _ = vllm::data();
    let vllm_load = t0.elapsed();
    println!(
        "bundled data load (once): sglang {:.1} ms, vllm {:.1} ms",
        sglang_load.as_secs_f64() * 1e3,
        vllm_load.as_secs_f64() * 1e3
    );
    let opts = |v: &str, hw: &str| ResolveOptions {
        engine_version: Some(v.into()),
        platform: None,
        hardware: Some(hw.into()),
        origin: None,
        checkpoints: None,
    };
    run(
        "sglang 0.5.19, mi355x",
        sglang_command,
        &opts("0.5.19", "mi355x"),
    );
    run(
        "vllm 0.25.0, mi355x",
        vllm_command,
        &opts("0.25.0", "mi355x"),
    );
}

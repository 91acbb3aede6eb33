//! `discover` maps links to the cookbook's older domain (`cookbook.sglang.io/...`)
//! like today's (`docs.sglang.io/cookbook/...`), and lists every reference it
//! cannot map (a bare domain, an SGLang docs page that is no recipe) with the
//! reason: none is dropped.

mod common;

use common::run;

fn write(root: &std::path::Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn old_cookbook_domain_is_mapped_and_nothing_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "configs/nvidia-master.yaml",
        "# Recipe: https://cookbook.sglang.io/autoregressive/GLM/GLM-5.1\n\
         glm5.1-fp8-b200-sglang:\n  image: lmsysorg/sglang:v0.5.19-cu130\n  model: zai-org/GLM-5.1-FP8\n  \
         model-prefix: glm5.1\n  runner: b200\n  precision: fp8\n  framework: sglang\n  multinode: false\n  \
         scenarios:\n    fixed-seq-len:\n    - isl: 1024\n      osl: 1024\n      search-space:\n      \
         - {tp: 8, conc-list: [4]}\n\
         # See https://cookbook.sglang.io/ and https://docs.sglang.ai/advanced_features/hicache.html\n\
         dsr1-fp4-b200-sglang:\n  image: lmsysorg/sglang:v0.5.19-cu130\n  model: deepseek-ai/DeepSeek-R1\n  \
         model-prefix: dsr1\n  runner: b200\n  precision: fp4\n  framework: sglang\n  multinode: false\n  \
         scenarios:\n    fixed-seq-len:\n    - isl: 1024\n      osl: 1024\n      search-space:\n      \
         - {tp: 8, conc-list: [4]}\n",
    );
    write(
        root,
        "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_sglang.sh",
        "#!/usr/bin/env bash\n# Flags from http://cookbook.sglang.io/autoregressive/DeepSeek/DeepSeek-R1#deploy\n\
         python3 -m sglang.launch_server --model-path \"$MODEL\" --tp \"$TP\"\n",
    );
    let r = root.to_str().unwrap();
    let (code, out, err) = run(&["discover", r, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["summary"]["links"], 4, "{v:#}");
    let proposals = v["proposals"].as_array().unwrap();
    let files: Vec<(&str, &str)> = proposals
        .iter()
        .map(|p| {
            (
                p["entry"].as_str().unwrap(),
                p["link"]["docs"]["file"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(
        files.contains(&(
            "glm5.1-fp8-b200-sglang",
            "github:sgl-project/sglang@main:docs/cookbook/autoregressive/GLM/GLM-5.1.mdx"
        )),
        "{files:?}"
    );
    assert!(
        files.contains(&(
            "dsr1-fp4-b200-sglang",
            "github:sgl-project/sglang@main:docs/cookbook/autoregressive/DeepSeek/DeepSeek-R1.mdx"
        )),
        "{files:?}"
    );
    // The two references that name no recipe are listed, with the reason.
    let unmapped = v["unmapped"].as_array().unwrap();
    assert_eq!(unmapped.len(), 2, "{v:#}");
    let text = v["unmapped"].to_string();
    assert!(text.contains("https://cookbook.sglang.io/"), "{text}");
    assert!(text.contains("names no cookbook model page"), "{text}");
    assert!(
        text.contains("https://docs.sglang.ai/advanced_features/hicache.html"),
        "{text}"
    );
    assert!(text.contains("outside the cookbook"), "{text}");
    // Deterministic.
    assert_eq!(run(&["discover", r, "--format", "json"]).1, out);
}

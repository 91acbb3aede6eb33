//! `discover` renders what it read from the scanned checkout through the
//! reports' render point: a secret (or a piece of one) and a control
//! character or newline in a scanned file or its name never reach the
//! terminal or the proposed YAML as they are.

use crate::Repo;

const MASTER: &str = "\
qwen3.5-fp4-mi355x-sglang:
  image: lmsysorg/sglang-rocm:v0.5.15-rocm700-mi35x-20260601
  model: amd/Qwen3.5-397B-A17B-MXFP4
  model-prefix: qwen3.5
  runner: mi355x
  precision: fp4
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
      - isl: 1024
        osl: 1024
        search-space:
          - {tp: 2, conc-start: 4, conc-end: 4}
";

/// The secret the script exports, and a 16-character piece of it that the
/// links carry (a piece is not a whole word, so only the render point masks it).
const SECRET: &str = "hf_SECRETsecret12345678";
const PIECE: &str = "SECRETsecret1234";

fn checkout() -> Repo {
    let repo = Repo::new();
    repo.write("configs/amd-master.yaml", MASTER);
    repo.write(
        "benchmarks/single_node/fixed_seq_len/qwen3.5_fp4_mi355x_sglang.sh",
        format!(
            "#!/bin/bash\nexport HF_TOKEN={SECRET}\n\
             # see https://docs.sglang.io/cookbook/autoregressive/Qwen/Qwen3.5?x=\x1b]0;pwn\x07&t={PIECE}\n\
             # and recipes.vllm.ai/o/M?hardware=h200&k={PIECE}\n\
             python3 -m sglang.launch_server --model-path $MODEL --tp $TP\n"
        ),
    );
    // A script name that would start YAML lines of its own, with a link no
    // entry runs (listed under "Not mapped" with its position).
    repo.write(
        "benchmarks/single_node/fixed_seq_len/x\nlinks: [evil]\n#.sh",
        format!("# https://docs.sglang.io/cookbook/autoregressive/Qwen/Qwen3.5?t={PIECE}\n"),
    );
    repo
}

#[test]
fn the_proposed_yaml_masks_secret_pieces_and_keeps_each_value_on_its_line() {
    let repo = checkout();
    let o = repo.run_deterministic(&["discover", "."]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(!o.stdout.contains(PIECE), "{}", o.both());
    assert!(
        !o.stdout.contains('\x1b') && !o.stdout.contains('\x07'),
        "{}",
        o.both()
    );
    // One `links:` key, every other line a comment or inside it: the file
    // name's newlines are escaped in its comment.
    let top: Vec<&str> = o
        .stdout
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with(' '))
        .collect();
    assert_eq!(top, ["links:"], "{}", o.both());
    assert!(o.stdout.contains("x\\u000alinks: [evil]"), "{}", o.both());
    assert!(o.stdout.contains("Qwen3.5?x=\\u001b"), "{}", o.both());
}

#[test]
fn the_json_proposals_mask_secret_pieces() {
    let repo = checkout();
    let o = repo.run_deterministic(&["discover", ".", "--format", "json"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(!o.stdout.contains(PIECE), "{}", o.both());
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let urls = v["proposals"][1]["urls"].to_string();
    assert!(urls.contains("&k=****************"), "{urls}");
    assert_eq!(v["unmapped"].as_array().unwrap().len(), 1, "{}", o.both());
}

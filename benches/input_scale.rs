//! Benchmark: inputs whose size once made the work quadratic or the threads
//! unbounded, at doubling sizes: a vLLM `--config` file of 10,000 to 40,000
//! keys (`compare`), and a page of 70,000 to 280,000 tiny code blocks
//! (`extract`). Runs the release binary in a scratch folder and prints each
//! wall time; linear work doubles with the size. No assertion on time
//! (performance is measured here, not in tests).
//!
//! Run with `cargo bench --bench input_scale`.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

fn run(dir: &Path, args: &[&str]) -> f64 {
    let t = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_recipe-drift"))
        .current_dir(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run recipe-drift");
    let took = t.elapsed().as_secs_f64();
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    took
}

fn main() {
    let dir = std::env::temp_dir().join(format!("recipe-drift-input-scale-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    std::fs::write(dir.join("r.sh"), "vllm serve org/m -tp 8\n").expect("write");
    for n in [10_000, 20_000, 40_000] {
        let mut cfg = String::from("model: org/m\ntensor-parallel-size: 4\n");
        for i in 0..n {
            cfg.push_str(&format!("k{i}: {i}\n"));
        }
        std::fs::write(dir.join("cfg.yaml"), cfg).expect("write");
        std::fs::write(dir.join("d.sh"), "vllm serve --config cfg.yaml\n").expect("write");
        let s = run(&dir, &["compare", "d.sh", "r.sh", "--offline"]);
        println!("vLLM --config of {n} keys: {s:.2} s");
    }
    for n in [70_000, 140_000, 280_000] {
        let mut page =
            String::from("# Blocks\n\n```bash\nsglang serve --model-path org/m --tp 4\n```\n\n");
        for _ in 0..n {
            page.push_str("```bash\nx\n```\n");
        }
        std::fs::write(dir.join("p.md"), page).expect("write");
        let s = run(&dir, &["extract", "p.md"]);
        println!("page of {n} code blocks: {s:.2} s");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

//! Benchmark: `check` over many pairs, as a user runs it (the release binary in
//! a child process), printing wall time and peak resident set of each run.
//!
//! - A config of N small links (default 1,000, 5,000 and 10,000): docs pages
//!   and recipe scripts written into a temporary repository, each page and
//!   script read by several links (as real configs reuse them), one link in ten
//!   with MAJOR drift. Checkpoint facts are stated in the config (no network).
//! - With `DOCS_ROOT` and `INFERENCEX_ROOT` set, the zero-config sweep of a real
//!   cookbook copy and InferenceX checkout (`check --docs-root --inferencex
//!   --no-checkpoint-facts`; nothing is bundled).
//!
//! Run with `cargo bench --bench pairs_scale` (or `-- 10000` for one size;
//! `-- --write DIR N` writes the repository of N links and stops, to profile
//! the binary over it).
//! Asserts nothing about time: performance is measured here, not in tests.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

const MODELS: usize = 20;

/// Writes a repository of `pages` docs pages, `scripts` recipe scripts and a
/// config of `links` links over them.
fn write_repo(dir: &Path, links: usize, pages: usize, scripts: usize) {
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::create_dir_all(dir.join("recipes")).unwrap();
    for p in 0..pages {
        let model = p % MODELS;
        let tp = [1, 2, 4, 8][p % 4];
        let page = format!(
            "# Model {model}\n\nServe it:\n\n```bash\nsglang serve --model-path org/model-{model} \\\n  --tp {tp} --mem-fraction-static 0.8 --port 30000\n```\n"
        );
        std::fs::write(dir.join(format!("docs/page{p}.md")), page).unwrap();
    }
    for s in 0..scripts {
        let model = s % MODELS;
        let tp = [1, 2, 4, 8][s % 4];
        let script = format!(
            "#!/usr/bin/env bash\nset -euo pipefail\nMODEL=org/model-{model}\nTP={tp}\npython3 -m sglang.launch_server --model-path \"$MODEL\" --tensor-parallel-size \"$TP\" \\\n  --mem-fraction-static 0.85 --port 8888 --host 0.0.0.0\n"
        );
        std::fs::write(dir.join(format!("recipes/run{s}.sh")), script).unwrap();
    }
    let mut config = String::from("checkpoints:\n");
    for m in 0..MODELS {
        config.push_str(&format!(
            "  - {{model: org/model-{m}, facts: {{architectures: [LlamaForCausalLM], model-type: llama, dtype: bfloat16}}}}\n"
        ));
    }
    config.push_str("links:\n");
    for i in 0..links {
        let page = i % pages;
        // Nine links in ten pair a page with a script of its model and tp
        // (scripts and pages share the same cycle); the tenth with a neighbour.
        let script = if i % 10 == 9 {
            (page + 1) % scripts
        } else {
            page % scripts
        };
        config.push_str(&format!(
            "  - {{name: link-{i}, docs: {{file: docs/page{page}.md}}, recipe: {{file: recipes/run{script}.sh}}}}\n"
        ));
    }
    std::fs::write(dir.join(".recipe-drift.yaml"), config).unwrap();
}

/// Runs the binary; returns (wall seconds, CPU seconds (user + system), peak
/// RSS in MiB, exit code, output bytes).
// The child is reaped by `wait4` (for its resource usage), not `Child::wait`.
#[allow(clippy::zombie_processes)]
fn measure(args: &[&str], cwd: &Path) -> (f64, f64, f64, i32, usize) {
    let exe = env!("CARGO_BIN_EXE_recipe-drift");
    let t = Instant::now();
    let mut child = Command::new(exe)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the recipe-drift binary runs");
    let mut out = Vec::new();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let err_reader = std::thread::spawn(move || {
        let mut e = Vec::new();
        std::io::Read::read_to_end(&mut stderr, &mut e).ok();
        e
    });
    std::io::Read::read_to_end(&mut stdout, &mut out).unwrap();
    let err = err_reader.join().unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: wait4 on our own child's pid, with valid out-pointers.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4");
    let wall = t.elapsed().as_secs_f64();
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    if code == 2 || code < 0 {
        let tail: String = String::from_utf8_lossy(&err).chars().take(2000).collect();
        eprintln!("run failed (exit {code}): {tail}");
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let cpu = secs(usage.ru_utime) + secs(usage.ru_stime);
    // ru_maxrss is in KiB on Linux.
    (wall, cpu, usage.ru_maxrss as f64 / 1024.0, code, out.len())
}

fn main() {
    // `-- --write DIR N`: only write the repository of N links (to profile
    // the binary over it by hand), and stop.
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--write") {
        let dir = Path::new(&args[i + 1]);
        let n: usize = args[i + 2].parse().expect("N links");
        write_repo(dir, n, 200, 200);
        println!("wrote {n} links into {}", dir.display());
        return;
    }
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![1_000, 5_000, 10_000]
    } else {
        sizes
    };
    println!("| links | format | wall (s) | CPU (s) | peak RSS (MiB) | exit | output |");
    println!("| ---: | --- | ---: | ---: | ---: | ---: | ---: |");
    for &n in &sizes {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        write_repo(dir, n, 200, 200);
        for format in ["human", "json", "sarif"] {
            let (wall, cpu, rss, code, bytes) = measure(
                &[
                    "check",
                    "--config",
                    ".recipe-drift.yaml",
                    "--offline",
                    "--cache-dir",
                    ".cache",
                    "--no-progress",
                    "--format",
                    format,
                ],
                dir,
            );
            println!("| {n} | {format} | {wall:.2} | {cpu:.2} | {rss:.0} | {code} | {bytes} B |");
            std::io::stdout().flush().ok();
        }
    }
    if let (Some(docs), Some(ix)) = (
        std::env::var_os("DOCS_ROOT"),
        std::env::var_os("INFERENCEX_ROOT"),
    ) {
        let (docs, ix) = (docs.to_string_lossy(), ix.to_string_lossy());
        let cwd = tempfile::tempdir().unwrap();
        let (wall, cpu, rss, code, bytes) = measure(
            &[
                "check",
                "--docs-root",
                &docs,
                "--inferencex",
                &ix,
                "--no-checkpoint-facts",
                "--no-progress",
                "--format",
                "json",
            ],
            cwd.path(),
        );
        println!(
            "\nreal corpus sweep: {wall:.2} s wall, {cpu:.2} s CPU, peak RSS {rss:.0} MiB, exit {code}, {bytes} B of JSON"
        );
    } else {
        println!(
            "\n(set DOCS_ROOT and INFERENCEX_ROOT to also sweep a real cookbook copy and InferenceX checkout)"
        );
    }
}

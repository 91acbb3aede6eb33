//! Helpers shared by the integration tests: running the binary, checking
//! input errors, reading launches, and a reproducible PRNG for generated
//! vectors. Each test crate uses a part of them.
#![allow(dead_code)]

pub mod http;
pub mod sarif;

use assert_cmd::Command;

/// Runs recipe-drift from the repository root: (exit code, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("recipe-drift")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Exit 2, the position `at` and each of `words` in stderr, and no panic.
pub fn assert_input_error(args: &[&str], at: &str, words: &[&str]) {
    let (code, out, err) = run(args);
    assert_eq!(code, 2, "stdout: {out}\nstderr: {err}");
    assert!(err.contains(at), "expected {at} in: {err}");
    for w in words {
        assert!(err.contains(w), "expected {w:?} in: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

/// The argv words of launch `launch` in `extract --format json` output.
pub fn argv_of(json: &str, launch: usize) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v["launches"][launch]["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["text"].as_str().unwrap().to_string())
        .collect()
}

/// A small deterministic PRNG (SplitMix64), so generated vectors are reproducible.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Runs `shell_command` under a pseudo-terminal (util-linux `script`) in
/// `dir`, with `$CI` and `$GITHUB_ACTIONS` removed (or `CI=true` when `ci`):
/// what progress output does on a terminal. Its output holds the terminal's.
pub fn on_terminal(dir: &std::path::Path, shell_command: &str, ci: bool) -> std::process::Output {
    let script = std::path::Path::new("/usr/bin/script");
    assert!(
        script.exists(),
        "this test needs util-linux `script` for a pseudo-terminal"
    );
    let mut cmd = std::process::Command::new(script);
    cmd.current_dir(dir)
        .arg("-qec")
        .arg(shell_command)
        .arg("/dev/null")
        .env_remove("CI")
        .env_remove("GITHUB_ACTIONS");
    if ci {
        cmd.env("CI", "true");
    }
    cmd.output().unwrap()
}

/// The fixture cookbook's Qwen3.5 page (path from the docs root) copied
/// with the generator it renders into `docs`, a scratch docs root.
#[allow(dead_code)] // not every test binary uses every helper
pub fn copy_qwen_page(docs: &std::path::Path) -> &'static str {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = "cookbook/autoregressive/Qwen/Qwen3.5.mdx";
    for f in [page, "src/snippets/autoregressive/qwen35-deployment.jsx"] {
        let to = docs.join(f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(repo.join("fixtures/cookbook").join(f), &to).unwrap();
    }
    page
}

//! The fuzz targets (`fuzz/`, a crate of their own that `cargo test` does not
//! build) still compile against the library: run under CI only (`$CI` set),
//! as `cargo check` of that crate takes minutes on a cold cache. A library
//! change that breaks a target's call (as one did when a parameter was added)
//! fails here, not in the next fuzzing session.

use std::process::Command;

#[test]
fn fuzz_targets_compile_against_the_library() {
    if std::env::var_os("CI").is_none() {
        eprintln!("skipped: set CI=1 to `cargo check` the fuzz targets");
        return;
    }
    let root = env!("CARGO_MANIFEST_DIR");
    let target = std::path::Path::new(root).join("target").join("fuzz-check");
    let out = Command::new(env!("CARGO"))
        .args(["check", "--quiet", "--locked", "--bins", "--manifest-path"])
        .arg(std::path::Path::new(root).join("fuzz").join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "the fuzz targets do not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

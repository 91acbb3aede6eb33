//! Bundles the engine schemas: lists `src/engine/*/schemas/*.json` into a generated
//! table of `(version, include_str!(..))` per engine folder (`OUT_DIR/<engine>_schemas.rs`),
//! so adding a release is adding a file and adding an engine needs no line here.

use std::fs;
use std::path::Path;

fn main() {
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    println!("cargo:rerun-if-changed=src/engine");
    let mut engines: Vec<String> = fs::read_dir("src/engine")
        .expect("src/engine")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("schemas").is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    engines.sort();
    for engine in &engines {
        let dir = Path::new("src/engine").join(engine).join("schemas");
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut files: Vec<String> = match fs::read_dir(&dir) {
            Ok(rd) => rd
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".json"))
                .collect(),
            Err(_) => Vec::new(),
        };
        files.sort();
        let mut code = String::from("&[\n");
        for f in &files {
            let version = f.trim_end_matches(".json");
            let abs = fs::canonicalize(dir.join(f)).expect("schema path");
            code.push_str(&format!(
                "    ({version:?}, include_str!({:?})),\n",
                abs.display().to_string()
            ));
        }
        code.push(']');
        fs::write(Path::new(&out).join(format!("{engine}_schemas.rs")), code).expect("write");
    }
    explorer_fingerprint();
}

/// `RECIPE_DRIFT_EXPLORER`: a fingerprint (FNV-1a, 64 bits) of every file of
/// the JSX room (`src/extract/jsx/`), for the explored-graph cache's key: a
/// build whose explorer code differs never reads another build's entries,
/// even under the same version number.
fn explorer_fingerprint() {
    let dir = Path::new("src/extract/jsx");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = fs::read_dir(dir)
        .expect("src/extract/jsx")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for f in &files {
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for b in name.bytes().chain([0]).chain(fs::read(f).expect("read")) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    println!("cargo:rustc-env=RECIPE_DRIFT_EXPLORER={h:016x}");
}

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
}

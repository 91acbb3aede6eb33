//! The architecture as tests: modules of `src/` (a folder counts as one module)
//! import each other without cycles, no source file is over 1,500 lines, and
//! commands reach engines and extractors only through their front doors.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The top-level module a file of `src/` belongs to (`engine` for
/// `src/engine/vllm/mod.rs`, `compare` for `src/compare.rs`).
fn module_of(file: &Path) -> String {
    let rel = file.strip_prefix(src()).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// Code without `//` comments (doc comments name modules in prose).
fn code(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            // Keep `://` inside string literals such as URLs.
            Some(i) if !l[..i].ends_with(':') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules a text names as `crate::NAME` (also inside
/// `crate::{a, b::c}` groups).
fn named_modules(text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        let names: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            group[..end]
                .split(',')
                .map(|s| s.trim().split("::").next().unwrap_or("").trim())
                .collect()
        } else {
            vec![
                rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or(""),
            ]
        };
        for n in names {
            if modules.contains(n) {
                out.insert(n.to_string());
            }
        }
    }
    out
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let modules: BTreeSet<String> = files
        .iter()
        .map(|f| module_of(f))
        .filter(|m| m != "main" && m != "lib")
        .collect();
    let mut deps: BTreeMap<String, BTreeSet<String>> = modules
        .iter()
        .map(|m| (m.clone(), BTreeSet::new()))
        .collect();
    for f in &files {
        let m = module_of(f);
        if m == "main" || m == "lib" {
            continue;
        }
        let text = code(&std::fs::read_to_string(f).unwrap());
        for n in named_modules(&text, &modules) {
            if n != m {
                deps.get_mut(&m).unwrap().insert(n);
            }
        }
    }
    deps
}

/// A cycle through `start`, if any (depth-first, deterministic order).
fn cycle_from(start: &str, deps: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn walk(
        at: &str,
        start: &str,
        deps: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        for next in &deps[at] {
            if next == start {
                path.push(next.clone());
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if walk(next, start, deps, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    let mut seen = BTreeSet::new();
    walk(start, start, deps, &mut path, &mut seen).then_some(path)
}

#[test]
fn modules_import_each_other_without_cycles() {
    let deps = graph();
    let cycles: Vec<String> = deps
        .keys()
        .filter_map(|m| cycle_from(m, &deps))
        .map(|c| c.join(" -> "))
        .collect();
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

#[test]
fn the_leaf_modules_import_no_module_above_them() {
    let deps = graph();
    for (leaf, allowed) in [
        ("secret", &[][..]),
        ("span", &["secret"][..]),
        ("error", &["span"][..]),
        ("policy", &[][..]),
        ("launch", &["span", "secret"][..]),
        ("resolved", &["launch", "span"][..]),
        ("suggest", &[][..]),
        ("hardware", &["launch", "suggest"][..]),
    ] {
        let extra: Vec<&String> = deps[leaf]
            .iter()
            .filter(|d| !allowed.contains(&d.as_str()))
            .collect();
        assert!(extra.is_empty(), "{leaf} imports {extra:?}");
    }
}

#[test]
fn no_source_file_is_over_1500_lines() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let long: Vec<String> = files
        .iter()
        .map(|f| (f, std::fs::read_to_string(f).unwrap().lines().count()))
        .filter(|(_, n)| *n > 1500)
        .map(|(f, n)| format!("{} ({n} lines)", f.display()))
        .collect();
    assert!(long.is_empty(), "{long:?}");
}

#[test]
fn commands_reach_engines_only_through_the_engine_trait() {
    let mut files = Vec::new();
    rust_files(&src().join("commands"), &mut files);
    files.push(src().join("link.rs"));
    for f in files {
        let text = code(&std::fs::read_to_string(&f).unwrap());
        for inner in ["engine::sglang", "engine::vllm", "sglang::", "vllm::"] {
            assert!(
                !text.contains(inner),
                "{} names {inner}: go through crate::engine's registry",
                f.display()
            );
        }
    }
}

#[test]
fn the_graph_reader_sees_real_imports() {
    // The checks above are only as good as the reader: it must find the
    // imports that do exist.
    let deps = graph();
    assert!(deps["commands"].contains("link"));
    assert!(deps["link"].contains("engine"));
    assert!(deps["engine"].contains("resolved"));
    assert!(deps["error"].contains("span"));
}

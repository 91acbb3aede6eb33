//! Fuzz target: any command line, read as a plain command and resolved by the
//! vLLM resolver (and the SGLang one when it starts SGLang), gives a resolution
//! or an input error, never a panic. The input's first byte picks the release.
#![no_main]

use std::collections::BTreeMap;
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use recipe_drift::extract::{InputKind, extract_source};
use recipe_drift::engine::resolve;
use recipe_drift::resolved::ResolveOptions;
use recipe_drift::span::{Origin, Source};

const VERSIONS: &[&str] = &["0.17.0", "0.20.0", "0.25.0", "0.29.0", "0.33.0"];

fuzz_target!(|data: &[u8]| {
    // Each input is a run of its own: the secrets of earlier inputs are forgotten.
    recipe_drift::secret::forget();
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let text = format!("vllm serve {text}");
    let source = Arc::new(Source::new(Origin::Inline("fuzz".into()), text));
    let Ok(launches) = extract_source(&source, InputKind::Command, &BTreeMap::new()) else {
        return;
    };
    let opts = ResolveOptions {
        engine_version: Some(VERSIONS[pick as usize % VERSIONS.len()].into()),
        hardware: Some(if pick & 8 == 0 { "mi355x" } else { "b200" }.into()),
        ..ResolveOptions::default()
    };
    for l in launches.iter().take(4) {
        let _ = resolve(l, &opts);
    }
});

//! Fuzz target: the static bash evaluator never panics or hangs on any input; it
//! returns launches or an input error.
#![no_main]

use std::collections::BTreeMap;
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use recipe_drift::extract::bash::evaluate;
use recipe_drift::span::{Origin, Source};

fuzz_target!(|data: &[u8]| {
    // Each input is a run of its own: the secrets of earlier inputs are forgotten.
    recipe_drift::secret::forget();
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let source = Arc::new(Source::new(Origin::Inline("fuzz.sh".into()), text.to_string()));
    let mut env = BTreeMap::new();
    env.insert("TP".to_string(), "8".to_string());
    env.insert("CONC".to_string(), "16".to_string());
    env.insert("KV_OFFLOADING".to_string(), "dram".to_string());
    let _ = evaluate(&source, &env);
});

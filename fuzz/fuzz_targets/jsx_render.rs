//! Fuzz target: the JSX transform and the sandboxed render never panic or hang
//! on any input; they return states or an input error.
#![no_main]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use recipe_drift::extract::jsx::{self, Limits, Renderer};
use recipe_drift::span::{Origin, Source};

fuzz_target!(|data: &[u8]| {
    // Each input is a run of its own: the secrets of earlier inputs are forgotten.
    recipe_drift::secret::forget();
    jsx::set_isolation(jsx::Isolation::InProcess);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let file = Path::new("fuzz.jsx");
    let source = Arc::new(Source::new(Origin::File(file.into()), text.to_string()));
    let Ok(bundle) =
        jsx::page::bundle_component(&source, file, None, &[], &jsx::page::Overlay::default())
    else {
        return;
    };
    let limits = Limits {
        time: Duration::from_millis(200),
        total: Duration::from_secs(2),
        memory: 64 << 20,
        stack: 256 << 10,
        states: 32,
    };
    let Ok(renderer) = Renderer::new(&bundle, limits) else {
        return;
    };
    for t in 0..bundle.targets.len() {
        let _ = renderer.select(t, &[]);
        let _ = renderer.explore(t, 32);
    }
});

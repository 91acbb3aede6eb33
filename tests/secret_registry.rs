//! The process-wide secret registry can be emptied between independent runs
//! in one process (the fuzz targets do, so memory stays bounded), and what
//! it masks afterwards follows the new set exactly: a matcher built from
//! the old set is never reused. Its own test binary, as emptying the
//! registry would race with other tests of one process.

use std::sync::Mutex;

use recipe_drift::secret;

/// The tests of this file share the registry: one at a time.
static ONE: Mutex<()> = Mutex::new(());

#[test]
fn forgetting_secrets_resets_masking_and_never_reuses_a_stale_matcher() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    secret::forget();
    secret::note("alpha1234secret");
    assert_eq!(secret::mask("key alpha1234secret"), "key ***************");
    secret::note_written_word("run.sh", "K=beta5678value\n", 0, 15, true);
    assert_eq!(
        secret::mask_excerpt("run.sh", 0, "K=beta5678value"),
        "K=*************"
    );

    secret::forget();
    // The old secret is no longer known.
    assert_eq!(secret::mask("key alpha1234secret"), "key alpha1234secret");
    assert_eq!(
        secret::mask_excerpt("run.sh", 0, "K=beta5678value"),
        "K=beta5678value"
    );
    // A new set of the same size as the old one is masked (the matcher is
    // rebuilt, not taken from the old set because the counts match).
    secret::note("gamma9876private");
    assert_eq!(secret::mask("x gamma9876private"), "x ****************");
    assert_eq!(secret::mask("key alpha1234secret"), "key alpha1234secret");
}

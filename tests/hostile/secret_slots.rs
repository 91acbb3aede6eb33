//! Issue 12 item 4: a value in a secret slot (a secret-named variable, the
//! value of a secret option) is masked whatever its length; text-matched
//! masking only covers pieces of 8 characters or more.

use crate::Repo;

#[test]
fn short_values_in_secret_slots_are_masked_in_every_extract_format() {
    let repo = Repo::new();
    repo.write(
        "s.sh",
        "export SHORT_TOKEN=abc123\nsglang serve --model-path m --api-key k3y9 --hf-token=tok1\n",
    );
    for format in ["human", "json"] {
        let o = repo.run_deterministic(&["extract", "s.sh", "--format", format]);
        o.assert_bounded();
        assert_eq!(o.code, Some(0), "{}", o.both());
        for leaked in ["abc123", "k3y9", "tok1"] {
            assert!(
                !o.stdout.contains(leaked),
                "{format}: {leaked}: {}",
                o.both()
            );
        }
        assert!(
            o.stdout.contains("******") && o.stdout.contains("--hf-token=****"),
            "{}",
            o.both()
        );
    }
}

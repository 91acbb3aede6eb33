//! Verdicts name what they are about (issue 13): an unknown word names the
//! variable it came from and where that variable was set.

use crate::Repo;

#[test]
fn an_unknown_word_names_its_variable_and_where_it_was_set() {
    let repo = Repo::new();
    repo.write(
        "a.sh",
        "#!/bin/bash\nMEM=$(( TOTAL_CPU_DRAM_GB / 4 ))\nARGS=(--hicache-size \"$MEM\")\npython3 -m sglang.launch_server --model-path m --tp 8 \"${ARGS[@]}\"\n",
    );
    let o = repo.run_deterministic(&["extract", "a.sh", "--format", "json"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let word = &v["launches"][0]["argv"][5];
    // Placed where `"$MEM"` is written; the reason starts with the variable
    // and the line that set it, then why that value is not knowable.
    assert_eq!(word["span"]["line"], 3, "{word:#}");
    assert_eq!(
        word["provenance"]["reason"],
        "$MEM (set at a.sh:2:1 from $TOTAL_CPU_DRAM_GB, which is not set by the script or its env (give it with --env TOTAL_CPU_DRAM_GB=...))",
        "{word:#}"
    );
    // Another kind of reason keeps its words after the origin.
    repo.write(
        "b.sh",
        "N=$(nproc)\nsglang serve --model-path m --tp \"$N\"\n",
    );
    let o = repo.run_deterministic(&["extract", "b.sh"]);
    assert!(
        o.stdout
            .contains("(unknown: $N (set at b.sh:1:1): the output of `nproc` is not knowable"),
        "{}",
        o.both()
    );
}

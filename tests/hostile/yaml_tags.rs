//! Issue 24 class 1: YAML that Python programs read (a vLLM `--config` file,
//! the InferenceX matrix) is read as PyYAML's `safe_load` reads it, explicit
//! tags and repeated keys included (each reading checked against PyYAML 6):
//! `!!str 010` is the string "010" (vLLM's `int()` makes it 10), `!!float 4`
//! is 4.0 (vLLM refuses it for an int option), `!!int "010"` is 8, and the
//! last of repeated keys wins. What PyYAML fails on, or builds as something
//! recipe-drift does not model, is exit 2 at the tag; no message of the YAML
//! library leaks.

use crate::Repo;

fn vllm_pair(cfg: &str) -> Repo {
    let repo = Repo::new();
    repo.write("docs.txt", "vllm serve org/m -tp 10\n");
    repo.write("recipe.txt", "vllm serve org/m --config cfg.yaml\n");
    repo.write("cfg.yaml", cfg);
    repo
}

fn compare(repo: &Repo) -> crate::Outcome {
    let o = repo.run_deterministic(&[
        "compare",
        "docs.txt",
        "recipe.txt",
        "--offline",
        "--format",
        "concise",
    ]);
    o.assert_bounded().assert_no_leak();
    o
}

#[test]
fn tags_in_a_vllm_config_file_are_read_as_pyyaml_reads_them() {
    // The docs' `-tp 10` against what vLLM makes of each config value:
    // exit 0 equal, exit 1 drift (or a recipe vLLM refuses).
    for (yaml, code) in [
        // "010": vLLM's int("010") is 10, the docs' value (a YAML 1.1 plain
        // 010 is the octal 8: drift).
        ("tensor-parallel-size: !!str 010\n", 0),
        ("tensor-parallel-size: 010\n", 1),
        ("tensor-parallel-size: !<tag:yaml.org,2002:str> 010\n", 0),
        (
            "%TAG !e! tag:yaml.org,2002:\n---\ntensor-parallel-size: !e!str 010\n",
            0,
        ),
        ("tensor-parallel-size: &a !!str 010\n", 0),
        ("tensor-parallel-size: !!str\n  010\n", 0),
        // !!int "012" is octal: 10. !!int "010" is 8.
        ("tensor-parallel-size: !!int \"012\"\n", 0),
        ("tensor-parallel-size: !!int \"010\"\n", 1),
        // The non-specific tag types a quoted value as if plain: 012 is 10.
        ("tensor-parallel-size: ! \"012\"\n", 0),
        // 4.0: vLLM refuses a float for an int option (RD006).
        ("tensor-parallel-size: !!float 10\n", 1),
        // The last of repeated keys wins.
        ("tensor-parallel-size: 4\ntensor-parallel-size: 10\n", 0),
        ("tensor-parallel-size: 10\ntensor-parallel-size: 4\n", 1),
    ] {
        let o = compare(&vllm_pair(yaml));
        assert_eq!(o.code, Some(code), "{yaml}: {}", o.both());
        assert!(!o.both().contains("DuplicateKeyPolicy"), "{}", o.both());
    }
    let o = compare(&vllm_pair("tensor-parallel-size: !!float 10\n"));
    assert!(
        o.stdout.contains("invalid int value: '10.0'"),
        "{}",
        o.both()
    );
}

/// A repeated key's value is the last one's (PyYAML's dict keeps it), so a
/// finding on it points at the last key, not the first line spelling the
/// name; a key written in a flow mapping or with quotes is placed too.
#[test]
fn a_config_value_is_placed_at_the_key_vllm_reads() {
    for (yaml, at) in [
        (
            "tensor-parallel-size: 10\nmodel: m\ntensor-parallel-size: 4\n",
            "cfg.yaml:3:1",
        ),
        ("{model: m, tensor-parallel-size: 4}\n", "cfg.yaml:1:12"),
        ("model: m\n\"tensor-parallel-size\": 4\n", "cfg.yaml:2:1"),
    ] {
        let o =
            vllm_pair(yaml).run_deterministic(&["compare", "docs.txt", "recipe.txt", "--offline"]);
        o.assert_bounded();
        assert_eq!(o.code, Some(1), "{yaml}: {}", o.both());
        assert!(
            o.stdout.contains(&format!(
                "recipe 4  from `--tensor-parallel-size 4` at {at}"
            )),
            "{yaml}: {at}: {}",
            o.both()
        );
    }
}

#[test]
fn tags_pyyaml_refuses_or_recipe_drift_cannot_model_are_errors_at_the_tag() {
    for (yaml, words) in [
        (
            "tensor-parallel-size: !!int 1e3\n",
            &["!!int", "does not start"][..],
        ),
        (
            "tensor-parallel-size: !!int \"09\"\n",
            &["does not start"][..],
        ),
        ("tensor-parallel-size: !!bool y\n", &["does not start"][..]),
        ("tensor-parallel-size: !foo 10\n", &["no constructor"][..]),
        (
            "tensor-parallel-size: !!python/int 10\n",
            &["no constructor"][..],
        ),
        (
            "tensor-parallel-size: !!binary MTA=\n",
            &["does not model"][..],
        ),
        ("tensor-parallel-size: !!set {a}\n", &["does not model"][..]),
    ] {
        let o = compare(&vllm_pair(yaml));
        o.assert_input_error("cfg.yaml:1:23", words);
        assert!(!o.stderr.contains("invalid u64"), "{}", o.both());
    }
    // A tag on a block mapping's implicit key cannot be blanked out without
    // moving the key: refused, not guessed.
    let o = compare(&vllm_pair("!!str tensor-parallel-size: 10\n"));
    o.assert_input_error("cfg.yaml:1:1", &["not read"]);
}

/// An InferenceX root whose one point is `point` (a YAML flow mapping).
fn matrix(point: &str, extra: &str) -> Repo {
    let repo = Repo::new();
    repo.write(
        "configs/x-master.yaml",
        format!(
            "e:\n  image: vllm/vllm-openai:v0.25.0\n  model: org/m\n  model-prefix: m\n  runner: h200\n  precision: fp8\n  framework: vllm\n{extra}  scenarios:\n    fixed-seq-len:\n      - isl: 1024\n        osl: 1024\n        search-space:\n          - {point}\n"
        ),
    );
    repo.write(
        "benchmarks/single_node/fixed_seq_len/m_fp8_h200_vllm.sh",
        "vllm serve \"$MODEL\" -tp \"$TP\" --max-model-len \"$MAX_MODEL_LEN\"\n",
    );
    repo
}

#[test]
fn tags_and_repeated_keys_in_the_inferencex_matrix_are_read_as_pyyaml_reads_them() {
    let extract = |repo: &Repo| {
        let o = repo.run_deterministic(&["extract", "--inferencex", ".", "--entry", "e"]);
        o.assert_bounded().assert_no_leak();
        o
    };
    // `!!int "010"` is 8; the last of repeated keys wins.
    for point in [
        "{tp: !!int \"010\", conc-start: 1, conc-end: 1}",
        "{tp: 4, tp: 8, conc-start: 1, conc-end: 1}",
    ] {
        let o = extract(&matrix(point, ""));
        assert_eq!(o.code, Some(0), "{point}: {}", o.both());
        assert!(o.stdout.contains("TP=8"), "{point}: {}", o.both());
    }
    // A repeated entry field: the last wins (no library message).
    let o = extract(&matrix(
        "{tp: 8, conc-start: 1, conc-end: 1}",
        "  precision: bf16\n  precision: fp8\n",
    ));
    assert_eq!(o.code, Some(0), "{}", o.both());
    // The string "8" or the float 8.0 is no integer for the matrix: exit 2 at
    // the value, never read as 8.
    for (point, shown) in [
        ("{tp: !!str 8, conc-start: 1, conc-end: 1}", "not \"8\""),
        ("{tp: !!float 8, conc-start: 1, conc-end: 1}", "not 8.0"),
    ] {
        let o = extract(&matrix(point, ""));
        o.assert_input_error("configs/x-master.yaml:13:", &["`tp`", shown]);
    }
    let o = extract(&matrix("{tp: !!int 1e3, conc-start: 1, conc-end: 1}", ""));
    o.assert_input_error("configs/x-master.yaml:13:", &["does not start"]);
}

/// The config file is recipe-drift's own YAML (no Python reads it): a
/// repeated key there is refused at it, in our words, not the YAML library's.
#[test]
fn a_repeated_key_in_the_config_file_is_refused_without_a_library_message() {
    let repo = Repo::new();
    repo.write("a.txt", "vllm serve org/m -tp 8\n");
    repo.write(
        ".recipe-drift.yaml",
        "links:\n  - name: l\n    name: m\n    docs: {file: a.txt}\n    recipe: {file: a.txt}\n",
    );
    let o = repo.run_deterministic(&["check", "--offline"]);
    o.assert_input_error(".recipe-drift.yaml:3:", &["duplicate mapping key"]);
    assert!(!o.stderr.contains("DuplicateKeyPolicy"), "{}", o.both());
}

/// Issue 24, fresh adversary (class 1): more of PyYAML 6's readings, each
/// checked with `yaml.safe_load` (and Python's `int()` for a string vLLM
/// converts), against the docs' `-tp 10`: exit 0 equal, 1 drift (or a value
/// vLLM refuses).
#[test]
fn adversary_pyyaml_readings_of_a_vllm_config_value() {
    for (yaml, code) in [
        ("tensor-parallel-size: 0o12\n", 1), // the string "0o12": int() refuses
        ("tensor-parallel-size: 0xA\n", 0),  // 10
        ("tensor-parallel-size: 1_0\n", 0),  // 10
        ("tensor-parallel-size: 1__0\n", 0), // 10
        ("tensor-parallel-size: 10_\n", 0),  // 10
        ("tensor-parallel-size: 0x_A\n", 0), // 10
        ("tensor-parallel-size: +10\n", 0),  // 10
        ("tensor-parallel-size: 0b1010\n", 0), // 10
        ("tensor-parallel-size: 1:0\n", 1),  // sexagesimal 60
        ("tensor-parallel-size: 10.0\n", 1), // 10.0: refused
        ("tensor-parallel-size: 010.\n", 1), // 10.0: refused
        ("tensor-parallel-size: 0010\n", 1), // octal 8
        ("tensor-parallel-size: 08\n", 1),   // the string "08": 8
        ("tensor-parallel-size: !!str 0xA\n", 1), // "0xA": refused
        ("tensor-parallel-size: !!str 1e1\n", 1), // "1e1": refused
        ("tensor-parallel-size: ! 010\n", 1), // resolved as if plain: 8
        ("tensor-parallel-size: !<!> 10\n", 0), // 10
        ("tensor-parallel-size: !!int 0b1010\n", 0), // 10
        ("tensor-parallel-size: !!int 0o12\n", 0), // int("0o12", 8) = 10
        ("tensor-parallel-size: !!int \" 10\"\n", 0), // int(" 10") = 10
        ("tensor-parallel-size: !!int \"-0b1010\"\n", 1), // -10
        ("tensor-parallel-size: !!int \"1:0\"\n", 1), // 60
        ("tensor-parallel-size: !!int -0\n", 1), // 0
        ("tensor-parallel-size: !!float \"1e1\"\n", 1), // 10.0: refused
        ("? tensor-parallel-size\n: 10\n", 0),
        ("\"tensor-parallel-size\": 10\n", 0),
        ("{!!str tensor-parallel-size: 10}\n", 0),
        ("<<: {tensor-parallel-size: 10}\n", 0),
        (
            "<<: {tensor-parallel-size: 4}\ntensor-parallel-size: 10\n",
            0,
        ), // the key beats the merge
        (
            "tensor-parallel-size: 10\n<<: {tensor-parallel-size: 4}\n",
            0,
        ),
        (
            "<<: [{tensor-parallel-size: 10}, {tensor-parallel-size: 4}]\n",
            2,
        ), // PyYAML 6.0.3 reads 10, 6.0.4 reads 4: refused
        ("tensor-parallel-size: 4\n...\n", 1),
        ("{tensor-parallel-size: 10, tensor-parallel-size: 4}\n", 1),
        ("%YAML 1.1\n---\ntensor-parallel-size: 012\n", 0),
        (
            "tensor-parallel-size: 012\ntensor-parallel-size: !!str 012\n",
            1,
        ), // "012": 12
        ("\"<<\": {tensor-parallel-size: 10}\n", 1), // a plain key `<<`: vLLM refuses `--<<`
    ] {
        let o = compare(&vllm_pair(yaml));
        assert_eq!(o.code, Some(code), "{yaml}: {}", o.both());
    }
}

/// Tags PyYAML's `safe_load` fails on: exit 2 at the value.
#[test]
fn adversary_tags_pyyaml_fails_on_are_errors_at_the_value() {
    for yaml in [
        "tensor-parallel-size: !!int 0:10\n",
        "tensor-parallel-size: !!bool 10\n",
        "tensor-parallel-size: !!merge 10\n",
        "tensor-parallel-size: !!python/str 10\n",
        "tensor-parallel-size: !!timestamp 10\n",
        "tensor-parallel-size: !!omap [a: 1]\n",
    ] {
        let o = compare(&vllm_pair(yaml));
        o.assert_input_error("cfg.yaml:1:23", &[]);
    }
}

/// Two `<<` merge keys in one mapping: PyYAML merges both, in order, and the
/// later one's value wins (`yaml.safe_load` gives tensor-parallel-size 10).
/// recipe-drift takes the first (4): with docs at `-tp 4` that is a false
/// "no drift" on tp.
#[test]
fn adversary_two_merge_keys_the_last_wins() {
    let yaml = "<<: {tensor-parallel-size: 4}\n<<: {tensor-parallel-size: 10}\n";
    let repo = vllm_pair(yaml);
    repo.write("docs.txt", "vllm serve org/m -tp 4\n");
    let o = compare(&repo);
    assert_eq!(o.code, Some(1), "{}", o.both());
    assert!(o.stdout.contains("tp_size"), "{}", o.both());
    let o = compare(&vllm_pair(yaml));
    assert_eq!(o.code, Some(0), "{}", o.both());
}

/// A second document: PyYAML's `safe_load` fails ("expected a single
/// document"): exit 2 at it, in our words, not the YAML library's advice
/// ("use from_str_multiple ...").
#[test]
fn adversary_second_document_is_refused_without_a_library_message() {
    let o = compare(&vllm_pair(
        "tensor-parallel-size: 4\n---\ntensor-parallel-size: 10\n",
    ));
    o.assert_input_error("cfg.yaml:3:1", &[]);
    assert!(!o.stderr.contains("from_str_multiple"), "{}", o.both());
}

/// The InferenceX matrix read as PyYAML reads it (each point's `tp` checked
/// with `yaml.safe_load`): hex, octal, underscores, a repeated key, an
/// explicit `?` key, a quoted key, a tagged binary string.
#[test]
fn adversary_matrix_points_read_as_pyyaml_reads_them() {
    for (point, tp) in [
        ("{tp: 0x8, conc-start: 1, conc-end: 1}", "TP=8"),
        ("{tp: 010, conc-start: 1, conc-end: 1}", "TP=8"),
        ("{tp: 1_6, conc-start: 1, conc-end: 1}", "TP=16"),
        ("{tp: 8, conc-start: 1, conc-end: 1, tp: 4}", "TP=4"),
        ("{? tp : 8, conc-start: 1, conc-end: 1}", "TP=8"),
        ("{\"tp\": 8, conc-start: 1, conc-end: 1}", "TP=8"),
        ("{tp: !!int \"0b1000\", conc-start: 1, conc-end: 1}", "TP=8"),
        // A quoted `<<` is a plain key, not a merge; an explicit `!!merge`
        // tag is one; the point's own key beats a merge.
        (
            "{\"<<\": {tp: 4}, tp: 8, conc-start: 1, conc-end: 1}",
            "TP=8",
        ),
        ("{!!merge <<: {tp: 8}, conc-start: 1, conc-end: 1}", "TP=8"),
        ("{tp: 4, <<: {tp: 8}, conc-start: 1, conc-end: 1}", "TP=4"),
    ] {
        let repo = matrix(point, "");
        let o = repo.run_deterministic(&["extract", "--inferencex", ".", "--entry", "e"]);
        o.assert_bounded().assert_no_leak();
        assert_eq!(o.code, Some(0), "{point}: {}", o.both());
        assert!(o.stdout.contains(tp), "{point}: {}", o.both());
    }
    // In a sequence of merges PyYAML 6.0.3 takes the first (tp 8), 6.0.4
    // the last (tp 4): which TP the benchmark ran depends on its PyYAML, an
    // input error at the key rather than either reading.
    let repo = matrix("{<<: [{tp: 8}, {tp: 4}], conc-start: 1, conc-end: 1}", "");
    let o = repo.run_deterministic(&["extract", "--inferencex", ".", "--entry", "e"]);
    o.assert_input_error("configs/x-master.yaml:13:", &["PyYAML's versions disagree"]);
    // "0:8" is no sexagesimal (its first digit is 0): the string "0:8".
    let repo = matrix("{tp: 0:8, conc-start: 1, conc-end: 1}", "");
    let o = repo.run_deterministic(&["extract", "--inferencex", ".", "--entry", "e"]);
    o.assert_input_error("configs/x-master.yaml:13:", &["`tp`"]);
}

/// Two `<<` merge keys in a matrix point: PyYAML gives the later one's
/// `tp` (8); recipe-drift takes the first (4), the TP the benchmark did not
/// run.
#[test]
fn adversary_matrix_two_merge_keys_the_last_wins() {
    let repo = matrix("{<<: {tp: 4}, <<: {tp: 8}, conc-start: 1, conc-end: 1}", "");
    let o = repo.run_deterministic(&["extract", "--inferencex", ".", "--entry", "e"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("TP=8"), "{}", o.both());
    assert!(!o.stdout.contains("TP=4"), "{}", o.both());
}

/// Adversary round 5b (class 1): PyYAML (YAML 1.1) counts NEL (U+0085),
/// LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029) as line breaks:
/// a comment ends at one, and what follows is a key of its own at column 0.
/// Each text below is `{'tensor-parallel-size': 4}` to `yaml.safe_load`
/// (PyYAML 6.0.4), so the docs' `-tp 10` is drift; recipe-drift reads the
/// `4` line as part of a comment and says no drift.
#[test]
fn adversary_yaml11_line_breaks_end_a_comment_in_a_vllm_config() {
    for yaml in [
        "tensor-parallel-size: 10\n#\u{2028}tensor-parallel-size: 4\n",
        "tensor-parallel-size: 10\n#\u{85}tensor-parallel-size: 4\n",
        "tensor-parallel-size: 10 #\u{2029}tensor-parallel-size: 4\n",
    ] {
        let o = compare(&vllm_pair(yaml));
        assert_eq!(o.code, Some(1), "{yaml:?}: {}", o.both());
        assert!(o.stdout.contains("tp_size"), "{yaml:?}: {}", o.both());
    }
    // And the other way: a `tensor-parallel-size: 10` after a U+2028 is read
    // (today it is missing, and the docs' 10 is reported as drift).
    let o = compare(&vllm_pair(
        "tensor-parallel-size: 4 #\u{2028}tensor-parallel-size: 10\n",
    ));
    assert_eq!(o.code, Some(0), "{}", o.both());
}

/// Adversary round 5b (class 1): the same in the InferenceX matrix. To
/// PyYAML the point below is `{tp: 4, conc-start: 1, conc-end: 1}` (the
/// U+2028 ends the comment; the repeated `tp` wins); recipe-drift reads
/// `tp: 8`.
#[test]
fn adversary_yaml11_line_breaks_in_the_inferencex_matrix() {
    let repo = Repo::new();
    repo.write(
        "configs/x-master.yaml",
        "e:\n  image: vllm/vllm-openai:v0.25.0\n  model: org/m\n  model-prefix: m\n  runner: h200\n  precision: fp8\n  framework: vllm\n  scenarios:\n    fixed-seq-len:\n      - isl: 1024\n        osl: 1024\n        search-space:\n          - conc-start: 1\n            conc-end: 1\n            tp: 8 #\u{2028}            tp: 4\n",
    );
    repo.write(
        "benchmarks/single_node/fixed_seq_len/m_fp8_h200_vllm.sh",
        "vllm serve \"$MODEL\" -tp \"$TP\" --max-model-len \"$MAX_MODEL_LEN\"\n",
    );
    let o = repo.run_deterministic(&["extract", "--inferencex", ".", "--entry", "e"]);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("TP=4"), "{}", o.both());
    assert!(!o.stdout.contains("TP=8"), "{}", o.both());
}

/// Adversary round 5b (class 1): PyYAML's scanner takes only spaces as
/// separation: a tab after `:`, after a value or before a `#` comment is
/// `ScannerError: found character '\t' that cannot start any token`, so
/// vLLM fails on the `--config` file and the recipe never starts.
/// recipe-drift reads each as `tensor-parallel-size: 10` and says no drift
/// against the docs' `-tp 10`.
#[test]
fn adversary_tabs_pyyaml_refuses_are_not_a_value() {
    for yaml in [
        "tensor-parallel-size:\t10\n",
        "tensor-parallel-size: 10\t\n",
        "tensor-parallel-size: 10\t# ten\n",
        "model: org/m\ntensor-parallel-size: 10 \t\n",
    ] {
        let o = compare(&vllm_pair(yaml));
        assert_ne!(o.code, Some(0), "{yaml:?}: {}", o.both());
        assert!(o.both().contains("cfg.yaml:"), "{yaml:?}: {}", o.both());
    }
}

/// Adversary round 5b (class 1): PyYAML's implicit resolvers give a plain
/// `=` the tag `tag:yaml.org,2002:value` and a plain `<<` in a value the
/// merge tag; `safe_load` has no constructor for either in a value
/// (`ConstructorError: could not determine a constructor`), so vLLM fails
/// on the `--config` file and the recipe never starts. recipe-drift reads
/// the strings "=" and "<<" and says no drift against the docs' `-tp 10`.
#[test]
fn adversary_plain_values_pyyaml_cannot_construct_are_not_strings() {
    for yaml in [
        "tensor-parallel-size: 10\nserved-model-name: =\n",
        "tensor-parallel-size: 10\nserved-model-name: <<\n",
        "tensor-parallel-size: 10\nserved-model-name: [=]\n",
    ] {
        let o = compare(&vllm_pair(yaml));
        assert_ne!(o.code, Some(0), "{yaml:?}: {}", o.both());
        assert!(o.both().contains("cfg.yaml:2:"), "{yaml:?}: {}", o.both());
    }
}

/// Adversary round 5b (class 1), held: readings where PyYAML 6.0.4 and a
/// YAML 1.2 reader differ and recipe-drift follows PyYAML: a `%YAML 1.2`
/// directive does not switch PyYAML to 1.2 typing (`012` stays octal 10),
/// escapes in a double-quoted key or value are decoded before typing
/// (`"tensor-parallel\x2dsize"`, `!!int "1\x30"`), `0b_1010` and `+0x_A` are
/// 10, and U+2028 inside a quoted scalar is no line break (a string vLLM
/// refuses).
#[test]
fn adversary_held_pyyaml_readings() {
    for (yaml, code) in [
        ("%YAML 1.2\n---\ntensor-parallel-size: 012\n", 0),
        ("\"tensor-parallel\\x2dsize\": 10\n", 0),
        ("tensor-parallel-size: !!int \"1\\x30\"\n", 0),
        ("tensor-parallel-size: 0b_1010\n", 0),
        ("tensor-parallel-size: +0x_A\n", 0),
        ("tensor-parallel-size: \"1\u{2028}0\"\n", 1),
        ("enable-expert-parallel: y\ntensor-parallel-size: 10\n", 1),
    ] {
        let o = compare(&vllm_pair(yaml));
        assert_eq!(o.code, Some(code), "{yaml:?}: {}", o.both());
    }
}

/// Issue 24, round 6 (class 1): 204 generated vLLM config files (tags,
/// YAML 1.1 numbers with `_` and `:`, quoted and block scalars, lists, merge
/// keys, repeated keys spelled with `-` and `_`, directives), each read by
/// PyYAML 6.0.4 and turned into arguments as `load_config_file` does, then
/// `int()` as argparse does: none gave a false "no drift". These are the
/// readings a hand-written YAML reader gets wrong most easily (each checked
/// with PyYAML and Python's `int()`): against the docs' `-tp 10`, exit 0 when
/// vLLM runs 10, 1 otherwise.
#[test]
fn adversary_round6_config_values_read_as_pyyaml_and_int_read_them() {
    for (yaml, code) in [
        // A sexagesimal int starts with 1-9: `0:10` is the string "0:10",
        // which int() refuses; `10:0` is 600.
        ("tensor-parallel-size: 0:10\n", 1),
        ("tensor-parallel-size: 10:0\n", 1),
        // `_` inside YAML 1.1 numbers (octal `0_12` is 10).
        ("tensor-parallel-size: 0_12\n", 0),
        ("tensor-parallel-size: 1__0\n", 0),
        ("tensor-parallel-size: +0x_A\n", 0),
        // Python's int() of a string: `_`, Unicode digits, surrounding blanks.
        ("tensor-parallel-size: '1_0'\n", 0),
        ("tensor-parallel-size: '１０'\n", 0),
        ("tensor-parallel-size: \"\\t10\"\n", 0),
        ("tensor-parallel-size: |\n  10\n", 0),
        // No space before `#`: part of the scalar.
        ("tensor-parallel-size: 10#c\n", 1),
        // A list is the option followed by its items.
        ("tensor-parallel-size: [10]\n", 0),
        ("tensor-parallel-size: [ 010 ]\n", 1),
        // A repeated key keeps its first place and takes its last value;
        // the `_` spelling is a second option after it, which wins.
        (
            "tensor-parallel-size: 4\ntensor_parallel_size: 10\ntensor-parallel-size: 2\n",
            0,
        ),
        (
            "<<: {tensor-parallel-size: 4}\ntensor-parallel-size: 10\n",
            0,
        ),
    ] {
        let o = compare(&vllm_pair(yaml));
        assert_eq!(o.code, Some(code), "{yaml}: {}", o.both());
    }
}

/// Round 8 (issue 24, class 1): the value of a merge key (`<<`) is merged by
/// PyYAML's `flatten_mapping` without being constructed by its tag, so
/// `<<: !!str {...}`, `<<: !foo {...}` and `<<: !!merge {...}` merge the
/// mapping as `<<: {...}` does (checked with PyYAML 6.0.4 `safe_load`:
/// `{'tensor-parallel-size': 10}` for each). recipe-drift refuses them
/// (exit 2, "PyYAML's safe_load has no constructor for it and fails").
#[test]
fn adversary_round8_a_tag_on_a_merge_value_is_ignored_as_pyyaml_ignores_it() {
    for tag in ["!!str", "!foo", "!!merge", "!!map"] {
        let o = compare(&vllm_pair(&format!(
            "<<: {tag} {{tensor-parallel-size: 10}}\n"
        )));
        assert_eq!(o.code, Some(0), "{tag}: {}", o.both());
        let o = compare(&vllm_pair(&format!(
            "<<: {tag} {{tensor-parallel-size: 4}}\n"
        )));
        assert_eq!(o.code, Some(1), "{tag}: {}", o.both());
    }
}

/// Round 8 (class 1): a key inside a config value that is a mapping becomes
/// a JSON key through `json.dumps`, which writes `True`/`None` keys as
/// `true`/`null` and a float key as its text (PyYAML 6.0.4 + Python 3.11:
/// `{true: 1}` -> `{"true": 1}`, `{1.5: 1}` -> `{"1.5": 1}`). recipe-drift
/// writes `True`, and refuses a float key as "not a scalar".
#[test]
fn adversary_round8_keys_inside_a_json_config_value_are_json_dumps_keys() {
    let repo = vllm_pair(
        "tensor-parallel-size: 10\nspeculative-config: {method: mtp, num_speculative_tokens: 1, true: 1}\n",
    );
    repo.write(
        "docs.txt",
        "vllm serve org/m -tp 10 --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 1, \"true\": 1}'\n",
    );
    let o = compare(&repo);
    assert!(!o.stdout.contains("SpeculativeConfig.True"), "{}", o.both());
    assert!(
        !o.stdout.contains("speculative_config.True"),
        "{}",
        o.both()
    );
    repo.write(
        "cfg.yaml",
        "tensor-parallel-size: 10\nspeculative-config: {method: mtp, num_speculative_tokens: 1, 1.5: 1}\n",
    );
    let o = compare(&repo);
    assert!(!o.stderr.contains("must be a scalar"), "{}", o.both());
}

/// Round 8 (class 1), readings that held against PyYAML 6.0.4 (`safe_load`
/// then vLLM's `load_config_file`): YAML 1.1 booleans on a flag, nulls,
/// `!!str` on them, block scalars, anchors reused across options,
/// sexagesimal and underscored ints for a human-int option, repeated keys
/// in quoted spellings. Docs written as the argv vLLM builds agree (exit 0).
#[test]
fn adversary_round8_held_config_readings() {
    for (yaml, argv) in [
        ("enable-expert-parallel: Yes\n", "--enable-expert-parallel"),
        ("enable-expert-parallel: NO\n", ""),
        ("enable-expert-parallel: !!bool \"off\"\n", ""),
        ("enable-expert-parallel: []\n", ""),
        ("kv-cache-dtype: !!str off\n", "--kv-cache-dtype off"),
        ("kv-cache-dtype: off\n", ""),
        ("kv-cache-dtype: >-\n  fp8\n", "--kv-cache-dtype fp8"),
        ("kv-cache-dtype: \"fp\\x38\"\n", "--kv-cache-dtype fp8"),
        (
            "kv-cache-dtype: &x fp8\nquantization: *x\n",
            "--kv-cache-dtype fp8 --quantization fp8",
        ),
        ("max-model-len: 1:30\n", "--max-model-len 90"),
        ("max-model-len: 10_24\n", "--max-model-len 1024"),
        ("max-model-len: 02000\n", "--max-model-len 1024"),
        (
            "tensor-parallel-size: 2\n'tensor-parallel-size': 4\n? tensor-parallel-size\n: 8\n",
            "--tensor-parallel-size 8",
        ),
        (
            "speculative-config: {method: eagle, num_speculative_tokens: 3, method: mtp}\n",
            "--speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 3}'",
        ),
    ] {
        let repo = vllm_pair(yaml);
        repo.write("docs.txt", format!("vllm serve org/m {argv}\n"));
        let o = compare(&repo);
        assert_eq!(o.code, Some(0), "{yaml}: {}", o.both());
    }
}

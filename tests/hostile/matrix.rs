//! InferenceX master configs: integer fields at their limits, the matrix
//! point budget, string field budgets and serde-saphyr's own budgets (depth,
//! aliases); every error at the value's own `file:line:col`.

use super::*;

/// A scratch InferenceX root with one entry `e` whose search-space point is
/// `point` (a YAML flow mapping) and whose scenario header is `scenario`.
fn root_with(scenario: &str, point: &str) -> Repo {
    let repo = Repo::new();
    repo.write(
        "configs/x-master.yaml",
        format!(
            "e:\n  image: vllm/vllm-openai:v0.25.0\n  model: org/m\n  model-prefix: m\n  runner: h200\n  precision: fp8\n  framework: vllm\n  scenarios:\n    fixed-seq-len:\n      - {scenario}\n        search-space:\n          - {point}\n"
        ),
    );
    repo.write(
        "benchmarks/single_node/fixed_seq_len/m_fp8_h200_vllm.sh",
        "vllm serve \"$MODEL\" -tp \"$TP\" --max-model-len \"$MAX_MODEL_LEN\"\n",
    );
    repo
}

const POINT_LINE: usize = 13;
const SCENARIO_LINE: usize = 10;
/// The column of the point's `{`.
const POINT_COL: usize = 13;

/// The column of `needle` (its last occurrence) in a point.
fn col_in(point: &str, needle: &str) -> usize {
    POINT_COL + point.rfind(needle).unwrap()
}

fn at(line: usize, col: usize) -> String {
    format!("configs/x-master.yaml:{line}:{col}")
}

/// `conc-end` at 2^63 used to double past u64 and allocate until abort.
#[test]
fn concurrency_doubling_stops_at_the_integer_limit() {
    let repo = root_with(
        "isl: 1024\n        osl: 1024",
        "{tp: 8, conc-start: 1, conc-end: 9223372036854775808}",
    );
    let o = repo.run_deterministic(&["extract", "--inferencex", ".", "--entry", "e"]);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(0), "{}", o.both());
    // 1, 2, 4, ..., 2^63: 64 points.
    assert!(o.stdout.contains("9223372036854775808"), "{}", o.both());
    let o = repo.run(&[
        "extract",
        "--inferencex",
        ".",
        "--entry",
        "e",
        "--format",
        "json",
    ]);
    assert_eq!(o.stdout.matches("\"conc\"").count(), 64, "{}", o.both());
}

/// Zero, negative and too large integers: an error at the value.
#[test]
fn out_of_range_integers_are_placed_at_their_value() {
    for (point, needle, words) in [
        (
            "{tp: 8, conc-start: 0, conc-end: 4}",
            "0,",
            &["conc-start", "positive integer", "not 0"][..],
        ),
        (
            "{tp: -8, conc-list: [1]}",
            "-8",
            &["`tp`", "positive integer", "not -8"][..],
        ),
        (
            "{tp: 8, conc-list: [1, -2]}",
            "-2",
            &["conc-list", "not -2"][..],
        ),
        (
            "{tp: 8, conc-list: [1, 18446744073709551616]}",
            "18446744073709551616",
            &["conc-list", "up to 18446744073709551615"][..],
        ),
        (
            "{tp: 8, conc-start: 8, conc-end: 4}",
            "4}",
            &["conc-end 4 is below conc-start 8"][..],
        ),
        (
            "{tp: 8}",
            "{",
            &["conc-list, or conc-start and conc-end"][..],
        ),
        (
            "{tp: 8, dp-attn: maybe, conc-list: [1]}",
            "maybe",
            &["dp-attn", "true or false"][..],
        ),
    ] {
        let repo = root_with("isl: 1024\n        osl: 1024", point);
        let o = repo.run_deterministic(&["extract", "--inferencex", ".", "--entry", "e"]);
        o.assert_input_error(&at(POINT_LINE, col_in(point, needle)), words)
            .assert_no_leak();
    }
}

/// MAX_MODEL_LEN = isl + osl + 256 must not wrap.
#[test]
fn sequence_lengths_near_the_limit_do_not_wrap() {
    let repo = root_with(
        "isl: 18446744073709551000\n        osl: 1000",
        "{tp: 8, conc-list: [1]}",
    );
    let o = repo.run_deterministic(&["extract", "--inferencex", ".", "--entry", "e"]);
    o.assert_input_error(&at(SCENARIO_LINE + 1, 14), &["MAX_MODEL_LEN"]);
    let repo = root_with("isl: -1\n        osl: 1000", "{tp: 8, conc-list: [1]}");
    let o = repo.run(&["extract", "--inferencex", ".", "--entry", "e"]);
    o.assert_input_error(&at(SCENARIO_LINE, 14), &["`isl`", "not -1"]);
}

/// More matrix points than the budget: an error naming it, at the point
/// that went over.
#[test]
fn the_matrix_point_budget() {
    let list: Vec<String> = (1..=1100).map(|i| i.to_string()).collect();
    let repo = root_with(
        "isl: 1024\n        osl: 1024",
        &format!("{{tp: 8, conc-list: [{}]}}", list.join(", ")),
    );
    let o = repo.run_deterministic(&["extract", "--inferencex", ".", "--entry", "e"]);
    o.assert_input_error(
        &at(POINT_LINE, POINT_COL),
        &["1024 matrix points", "budget"],
    );
}

/// A string field over its budget is refused at the value.
#[test]
fn long_string_fields_are_refused() {
    let point = format!(
        "{{tp: 8, spec-decoding: {}, conc-list: [1]}}",
        "x".repeat(5000)
    );
    let repo = root_with("isl: 1024\n        osl: 1024", &point);
    let o = repo.run(&["extract", "--inferencex", ".", "--entry", "e"]);
    o.assert_input_error(
        &at(POINT_LINE, col_in(&point, "xxx") - 4997),
        &["spec-decoding", "1024 bytes"],
    );
}

/// serde-saphyr's budgets hold for master configs: deep nesting and an alias
/// bomb end quickly with a positioned error.
#[test]
fn deep_and_aliased_master_configs_hit_the_yaml_budget() {
    let repo = Repo::new();
    let deep = format!("e: {}1{}\n", "[".repeat(100_000), "]".repeat(100_000));
    repo.write("configs/x-master.yaml", &deep);
    let o = repo.run_deterministic(&["extract", "--inferencex", ".", "--entry", "e"]);
    o.assert_input_error("configs/x-master.yaml:1:", &["invalid YAML"]);

    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..40 {
        let prev = format!("*a{}", i - 1);
        bomb.push_str(&format!("a{i}: &a{i} [{}]\n", vec![prev; 10].join(", ")));
    }
    bomb.push_str("e: *a39\n");
    repo.write("configs/x-master.yaml", &bomb);
    let o = repo.run_deterministic(&["extract", "--inferencex", ".", "--entry", "e"]);
    o.assert_input_error("configs/x-master.yaml:", &["invalid YAML"]);
}

/// The same budgets hold for vLLM recipe YAMLs: positioned, within budget.
#[test]
fn deep_and_aliased_vllm_recipes_hit_the_yaml_budget() {
    let repo = Repo::new();
    repo.write(
        "recipes/taxonomy.yaml",
        include_str!("../../fixtures/vllm-recipes/taxonomy.yaml"),
    );
    let deep = format!("model: {}1{}\n", "[".repeat(100_000), "]".repeat(100_000));
    repo.write("recipes/models/org/deep.yaml", &deep);
    let o = repo.run_deterministic(&[
        "extract",
        "recipes/models/org/deep.yaml",
        "--select",
        "hardware=h200",
    ]);
    o.assert_input_error("deep.yaml:1:", &["invalid YAML", "recursion limit"]);

    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..40 {
        let prev = format!("*a{}", i - 1);
        bomb.push_str(&format!("a{i}: &a{i} [{}]\n", vec![prev; 10].join(", ")));
    }
    bomb.push_str("model: *a39\n");
    repo.write("recipes/models/org/bomb.yaml", &bomb);
    let o = repo.run(&[
        "extract",
        "recipes/models/org/bomb.yaml",
        "--select",
        "hardware=h200",
    ]);
    o.assert_input_error("bomb.yaml:6:15", &["invalid YAML", "budget"]);
}

/// Fields that name a script file cannot leave its folder.
#[test]
fn script_name_fields_cannot_hold_a_path() {
    let repo = root_with("isl: 1024\n        osl: 1024", "{tp: 8, conc-list: [1]}");
    let config = std::fs::read_to_string(repo.root().join("configs/x-master.yaml")).unwrap();
    repo.write(
        "configs/x-master.yaml",
        config.replace("model-prefix: m", "model-prefix: ../../../outside/secret"),
    );
    let o = repo.run_deterministic(&["extract", "--inferencex", ".", "--entry", "e"]);
    o.assert_input_error(&at(4, 17), &["model-prefix", "must not contain"])
        .assert_no_leak();
}

/// A vLLM recipe built from the Pebble fixture with `n` features `f0..`,
/// the first `opt_in` of them opt-in.
fn recipe_with_features(n: usize, opt_in: usize) -> String {
    let base = include_str!("../../fixtures/vllm-recipes/models/pebble/Pebble-8B-Instruct.yaml");
    let feats: String = (0..n)
        .map(|i| format!("  f{i}:\n    args: [\"--a{i}\"]\n"))
        .collect();
    let names: Vec<String> = (0..opt_in).map(|i| format!("f{i}")).collect();
    base.replacen("features:\n", &format!("features:\n{feats}"), 1)
        .replacen(
            "opt_in_features: []",
            &format!("opt_in_features: [{}]", names.join(", ")),
            1,
        )
}

/// `--all-selections` on a recipe: a mapping too large to scan, too many
/// opt-in features to explore every subset of, and too many selections are
/// each an error naming the budget (it used to explore the first 12 opt-in
/// features silently, and to take minutes on a wide `features` mapping).
#[test]
fn recipe_selection_budgets() {
    let repo = Repo::new();
    repo.write(
        "recipes/taxonomy.yaml",
        include_str!("../../fixtures/vllm-recipes/taxonomy.yaml"),
    );
    for (name, text, at, words) in [
        (
            "wide",
            recipe_with_features(5000, 0),
            "wide.yaml:28:3",
            &["5001 entries", "at most 1024"][..],
        ),
        (
            "optin",
            recipe_with_features(13, 13),
            "optin.yaml:27:1",
            &["13 optional features", "at most 12"][..],
        ),
        (
            "many",
            recipe_with_features(12, 12),
            "many.yaml:27:1",
            &["more than 8192 selections"][..],
        ),
    ] {
        let file = format!("recipes/models/org/{name}.yaml");
        repo.write(&file, text);
        let o = repo.run_deterministic(&["extract", &file, "--all-selections"]);
        o.assert_input_error(at, words);
    }
    // Within budget: every subset of 3 opt-in features, deterministically.
    repo.write("recipes/models/org/few.yaml", recipe_with_features(3, 3));
    let o = repo.run_deterministic(&["extract", "recipes/models/org/few.yaml", "--all-selections"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("--a2"), "{}", o.both());
}

/// The `conc=` values `extract` lists for the entry, in order.
fn concs(o: &Outcome) -> Vec<String> {
    o.stdout
        .lines()
        .filter(|l| l.starts_with("point "))
        .filter_map(|l| {
            l.split_whitespace()
                .find_map(|w| w.strip_prefix("conc=").map(str::to_string))
        })
        .collect()
}

/// Round 8 (issue 24, classes 1 and 7): the InferenceX matrix expanded as
/// `utils/matrix_logic/generate_sweep_configs.py` (843c6254f) expands it: a
/// doubling range whose end is not a power of the start's doubling ends at
/// `conc-end` itself (`conc *= 2; if conc > conc_end: conc = conc_end`), so
/// 1..6 is 1, 2, 4, 6; and `validation.py`'s `_validate_conc_fields`
/// refuses an empty `conc-list` without a range, and a list together with a
/// range. Scripts branch on `$CONC` (`if [ "$CONC" -ge 56 ]`), so a missing
/// point can hide a server the benchmark runs. Today: 1, 2, 4; `0 points`
/// with exit 0; the list taken silently.
#[test]
fn adversary_round8_concurrency_expands_as_inferencex_generates_it() {
    let run = |point: &str| {
        let repo = root_with("isl: 1024\n        osl: 1024", point);
        let o = repo.run_deterministic(&["extract", "--inferencex", ".", "--entry", "e"]);
        o.assert_bounded().assert_no_leak();
        o
    };
    let o = run("{tp: 8, conc-start: 1, conc-end: 6}");
    assert_eq!(concs(&o), ["1", "2", "4", "6"], "{}", o.both());
    let o = run("{tp: 8, conc-start: 3, conc-end: 20}");
    assert_eq!(concs(&o), ["3", "6", "12", "20"], "{}", o.both());
    for point in [
        "{tp: 8, conc-list: []}",
        "{tp: 8, conc-list: [4], conc-start: 2, conc-end: 4}",
    ] {
        let o = run(point);
        assert_eq!(o.code, Some(2), "{point}: {}", o.both());
        assert!(o.stderr.contains("x-master.yaml:13:"), "{}", o.both());
    }
}

/// Round 8 (classes 1 and 7), matrix readings that held: power-of-two
/// ranges, a repeated list value kept as InferenceX keeps it, an empty list
/// beside a range (the range is used), and the budgets at the limits.
#[test]
fn adversary_round8_held_matrix_readings() {
    for (point, want) in [
        (
            "{tp: 8, conc-start: 4, conc-end: 64}",
            &["4", "8", "16", "32", "64"][..],
        ),
        ("{tp: 8, conc-list: [1, 1, 1]}", &["1", "1", "1"][..]),
        (
            "{tp: 8, conc-list: ~, conc-start: 1, conc-end: 2}",
            &["1", "2"][..],
        ),
        ("{tp: 8, conc-start: 256, conc-end: 256}", &["256"][..]),
    ] {
        let repo = root_with("isl: 1024\n        osl: 1024", point);
        let o = repo.run_deterministic(&["extract", "--inferencex", ".", "--entry", "e"]);
        o.assert_bounded();
        assert_eq!(concs(&o), want, "{point}: {}", o.both());
    }
    let list: Vec<String> = (1..=2000).map(|i| i.to_string()).collect();
    let repo = root_with(
        "isl: 1024\n        osl: 1024",
        &format!("{{tp: 8, conc-list: [{}]}}", list.join(", ")),
    );
    let o = repo.run_deterministic(&["extract", "--inferencex", ".", "--entry", "e"]);
    o.assert_input_error(
        "configs/x-master.yaml:13:13",
        &["more than 1024 matrix points"],
    );
}

//! Bash values the static evaluator once computed confidently wrong (a false
//! `[ok]` from `compare`): printf and echo escapes and numbers, `$'...'`,
//! arithmetic on a variable's text, `declare -u/-l/-c`, keyed and sparse
//! arrays, `$(<file)`, `read` options, `dirname`/`basename`, variables the
//! runner's shell sets, and the launch's environment under `set -a` and
//! `X=1 eval`. Each is now bash's value (`compare` agrees with docs that
//! say what bash runs) or unknown (`compare` shows drift), never the wrong
//! value. Every recipe here gives `--tp 8` under real bash (see
//! tests/bash_differential.rs for the values themselves).

use crate::Repo;

/// `compare docs.sh recipe.sh`, run twice (same bytes): its exit code and
/// output.
fn compare(repo: &Repo, docs: &str, recipe: &str) -> (Option<i32>, String) {
    repo.write("docs.sh", docs);
    repo.write("recipe.sh", recipe);
    let o = repo.run_deterministic(&["compare", "docs.sh", "recipe.sh"]);
    o.assert_bounded().assert_no_leak();
    (o.code, o.both())
}

/// Docs with `--tp 8` (bash's value) agree with the recipe; docs with the
/// old wrong value do not.
fn bash_value(recipe: &str, wrong: u32) {
    let repo = Repo::new();
    let (code, out) = compare(&repo, "sglang serve --model-path m --tp 8\n", recipe);
    assert_eq!(code, Some(0), "bash gives --tp 8 for:\n{recipe}\n{out}");
    let (code, out) = compare(
        &repo,
        &format!("sglang serve --model-path m --tp {wrong}\n"),
        recipe,
    );
    assert_eq!(code, Some(1), "{recipe}\n{out}");
    assert!(out.contains("tp_size"), "{out}");
}

/// The recipe's `--tp` is unknown: docs with the old wrong value do not get
/// `[ok]`, and the reason names `why`.
fn unknown_value(recipe: &str, wrong: &str, why: &str) {
    let repo = Repo::new();
    let (code, out) = compare(
        &repo,
        &format!("sglang serve --model-path m --tp {wrong}\n"),
        recipe,
    );
    assert_eq!(code, Some(1), "{recipe}\n{out}");
    assert!(
        out.contains("missing]: tp_size") && out.contains(why),
        "{recipe}\n{out}"
    );
}

/// One recipe per line of `cases` (a launch line appended), each bash's value.
fn each_bash_value(cases: &[(&str, u32)]) {
    for (snippet, wrong) in cases {
        bash_value(
            &format!("{snippet}\nsglang serve --model-path m --tp \"$TP\"\n"),
            *wrong,
        );
    }
}

#[test]
fn printf_numbers_and_escapes_are_bash_values() {
    each_bash_value(&[
        ("TP=$(printf %d 010)", 10),
        ("TP=$(printf %d 0x8)", 0),
        ("C=$(printf %d \"'A\"); TP=$((C - 57))", 0),
        ("TP=$(printf '\\x38')", 38),
        ("TP=$(printf '\\070')", 70),
        ("TP=$(printf '%b' '\\u0038\\cX')", 38),
    ]);
    // A conversion that is not evaluated is unknown.
    unknown_value(
        "TP=$(printf '%q' 8)\nsglang serve --model-path m --tp \"$TP\"\n",
        "8",
        "printf",
    );
}

#[test]
fn ansi_c_quoting_is_decoded() {
    each_bash_value(&[
        ("TP=$'\\x38'", 38),
        ("TP=$'\\070'", 70),
        ("TP=$'\\u0038'", 38),
        ("TP=$'\\U00000038'", 38),
    ]);
    // A byte that is not UTF-8 text on its own: unknown.
    unknown_value(
        "TP=$'8\\xff'\nsglang serve --model-path m --tp \"$TP\"\n",
        "8",
        "not UTF-8",
    );
}

#[test]
fn echo_flags_and_escapes_are_bash_values() {
    each_bash_value(&[
        ("TP=$(echo -e '\\x38')", 38),
        ("TP=$(echo -ne 8)", 0),
        ("TP=$(echo -nE 8)", 0),
        ("TP=$(echo -en '8\\c9')", 89),
        ("TP=$(echo -e '\\0070')", 70),
    ]);
}

#[test]
fn arithmetic_evaluates_a_variables_text() {
    each_bash_value(&[
        ("X=010; TP=$((X))", 10),
        ("X=1+3; TP=$((X*2))", 0),
        ("X=010; declare -i TP; TP=X", 10),
        ("X=010; let TP=X", 10),
        ("X=010; (( TP = X ))", 10),
        ("A=(7 010); TP=$((A[1]))", 10),
        ("X=010; if [[ $X -eq 8 ]]; then TP=8; else TP=10; fi", 10),
        ("x=(0 1 2 3 4 5 6 7 8 9 10); TP=${x[010]}", 10),
    ]);
}

#[test]
fn declare_case_attributes_convert() {
    each_bash_value(&[
        ("declare -u M=abc; case $M in ABC) TP=8;; *) TP=2;; esac", 2),
        (
            "declare -l M; M=ABC; case $M in abc) TP=8;; *) TP=2;; esac",
            2,
        ),
        (
            "declare -c M=hELLO; case $M in Hello) TP=8;; *) TP=2;; esac",
            2,
        ),
    ]);
}

#[test]
fn keyed_and_sparse_arrays_are_not_shifted() {
    each_bash_value(&[
        ("x=([1]=4 [0]=8); TP=${x[0]}", 4),
        ("x=([3]=8); TP=${x[3]}", 0),
    ]);
    // Sparse: the count is not knowable (arrays are kept dense).
    unknown_value(
        "x=([7]=1)\nsglang serve --model-path m --tp \"${#x[@]}\"\n",
        "8",
        "sparse arrays are not evaluated",
    );
    // Associative: keys are strings (`${M[0]}` is not the first value).
    unknown_value(
        "declare -A M=([a]=8)\nsglang serve --model-path m --tp \"${M[0]}\"\n",
        "8",
        "associative array",
    );
}

#[test]
fn file_contents_and_read_options() {
    let repo = Repo::new();
    repo.write("tp.txt", "4\n");
    let (code, out) = compare(
        &repo,
        "sglang serve --model-path m --tp 0\n",
        "TP=$(<tp.txt)\nsglang serve --model-path m --tp \"$TP\"\n",
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("$(<tp.txt)"), "{out}");
    each_bash_value(&[
        ("read -d , TP <<< \"8,9\"", 89),
        ("read -n 1 TP <<< \"89\"", 89),
        ("read -N 1 TP <<< \"89\"", 89),
        ("read -rd: TP <<< \"8:9\"", 89),
    ]);
}

#[test]
fn dirname_and_basename_are_coreutils_values() {
    each_bash_value(&[
        ("case $(dirname /) in /) TP=8;; *) TP=2;; esac", 2),
        ("TP=$(basename -a x/8)", 0),
        ("TP=$(basename -s .sh a/8.sh)", 0),
        ("TP=$(basename a/8.sh .sh)", 0),
    ]);
}

#[test]
fn shell_set_variables_are_unknown_not_unset() {
    for (snippet, wrong) in [
        ("TP=${#HOME}", "0"),
        ("TP=${HOSTNAME:-8}", "8"),
        ("TP=${BASH_VERSION:+4}", "0"),
    ] {
        unknown_value(
            &format!("{snippet}\nsglang serve --model-path m --tp \"$TP\"\n"),
            wrong,
            "set by the shell that runs the script",
        );
    }
}

#[test]
fn allexport_and_eval_prefix_reach_the_launch_env() {
    let repo = Repo::new();
    for recipe in [
        "set -a\nSGLANG_USE_AITER=1\nsglang serve --model-path m --tp 2\n",
        "set -o allexport\nSGLANG_USE_AITER=1\nset +a\nsglang serve --model-path m --tp 2\n",
        "SGLANG_USE_AITER=1 eval \"sglang serve --model-path m --tp 2\"\n",
    ] {
        repo.write("recipe.sh", recipe);
        let o = repo.run_deterministic(&["extract", "recipe.sh", "--format", "json"]);
        o.assert_bounded().assert_no_leak();
        assert_eq!(o.code, Some(0), "{}", o.both());
        let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
        let env = &v["launches"][0]["env"];
        assert!(
            env.to_string().contains("SGLANG_USE_AITER"),
            "{recipe}\n{}",
            o.stdout
        );
    }
    // Without `set -a` (or after `set +a`) the variable is not exported.
    repo.write(
        "recipe.sh",
        "set -a; set +a\nSGLANG_USE_AITER=1\nsglang serve --model-path m --tp 2\n",
    );
    let o = repo.run_deterministic(&["extract", "recipe.sh", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
    assert!(
        !v["launches"][0]["env"]
            .to_string()
            .contains("SGLANG_USE_AITER"),
        "{}",
        o.stdout
    );
}

#[test]
fn env_clear_and_unset_reach_the_launch_env() {
    let repo = Repo::new();
    repo.write(
        "recipe.sh",
        "export SGLANG_USE_AITER=1 B=2\nenv -i PATH=/bin sglang serve --model-path m --tp 2\nenv -u SGLANG_USE_AITER sglang serve --model-path m --tp 2\n",
    );
    let o = repo.run_deterministic(&["extract", "recipe.sh", "--format", "json"]);
    o.assert_bounded().assert_no_leak();
    assert_eq!(o.code, Some(0), "{}", o.both());
    let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
    let names = |k: usize| -> Vec<String> {
        v["launches"][k]["env"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(0), ["PATH"], "{}", o.stdout);
    assert_eq!(names(1), ["B"], "{}", o.stdout);
}

/// Round 8 (issue 24, class 5): a scalar assigned to an array variable is
/// bash's element 0, whatever assigns it (`A=x`, `declare A=x`, `read A`,
/// `printf -v A`, `for A in`, `let`/`((A=x))`, a nameref, `export A=x`, a
/// function): the other elements stay. `A+=x` appends to element 0, not to
/// the last element. Checked with real bash 5.2: `T=(4 8); T=2` leaves
/// `(2 8)`, `T=(4 8); T+=2` makes `(42 8)`. Today the array is replaced by
/// the scalar, and `+=` lengthens the last element: confident wrong values.
#[test]
fn adversary_round8_a_scalar_assigned_to_an_array_sets_element_zero() {
    // `${T[1]}` is 8 under bash in every case.
    for (snippet, wrong) in [
        ("T=(4 8)\nT=2", 2),
        ("T=(4 8)\ndeclare T=2", 2),
        ("declare -a T=(4 8)\ndeclare -a T=2", 2),
        ("T=(4 8)\nread T <<< 2", 2),
        ("T=(4 8)\nprintf -v T %s 2", 2),
        ("T=(4 8)\nfor T in 2; do :; done", 2),
        ("T=(4 8)\nlet T=2", 2),
        ("T=(4 8)\n((T=2))", 2),
        ("T=(4 8)\ndeclare -n R=T\nR=2", 2),
        ("T=(4 8)\nexport T=2", 2),
        ("T=(4 8)\nf() { T=2; }\nf", 2),
        ("T=(4 8)\neval 'T=2'", 2),
        ("T=(4 8)\nT+=2", 82),
    ] {
        bash_value(
            &format!("{snippet}\nsglang serve --model-path m --tp \"${{T[1]}}\"\n"),
            wrong,
        );
    }
    // The false "no drift" it makes: the recipe bash runs ends with
    // `--tp 8`; recipe-drift reads `--tp 4` and calls the docs' `--tp 4`
    // equal.
    let repo = Repo::new();
    let (code, out) = compare(
        &repo,
        "sglang serve --model-path m --tp 4 --trust-remote-code\n",
        "A=(--enable-dp-attention --tp 8)\nA=--trust-remote-code\nsglang serve --model-path m --tp 4 \"${A[@]}\"\n",
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("tp_size"), "{out}");
    // `A+=x` on an array: bash makes `--tp2 4` (refused by argparse), not
    // `--tp 42`.
    let (code, out) = compare(
        &repo,
        "sglang serve --model-path m --tp 42\n",
        "A=(--tp 4)\nA+=2\nsglang serve --model-path m \"${A[@]}\"\n",
    );
    assert_eq!(code, Some(1), "{out}");
}

/// Round 8 (class 5): bash 5.2 decodes `$'\x{HH}'` (braced hex) as the byte
/// HH (`$'fp\x{38}'` is `fp8`); recipe-drift keeps `\x{38}` as text, a
/// confident wrong value, so `$'org/dr\x{61}ft'` (bash: `org/draft`) and
/// `'org/dr\x{61}ft'` (bash: the text as written) compare equal. Checked
/// with real bash 5.2.15.
#[test]
fn adversary_round8_braced_hex_escapes_in_ansi_c_quotes() {
    bash_value("sglang serve --model-path m --tp $'\\x{38}'\n", 38);
    let repo = Repo::new();
    let (code, out) = compare(
        &repo,
        "sglang serve --model-path m --speculative-algorithm EAGLE --speculative-draft-model-path $'org/dr\\x{61}ft'\n",
        "sglang serve --model-path m --speculative-algorithm EAGLE --speculative-draft-model-path 'org/dr\\x{61}ft'\n",
    );
    assert_eq!(
        code,
        Some(1),
        "bash gives two different draft models: {out}"
    );
}

/// Round 8 (class 5): `declare -a A='(--tp 8)'` is a compound assignment in
/// bash 5.2 (the quoted text is read as the list), not one word `(--tp 8)`.
#[test]
fn adversary_round8_declare_a_quoted_compound_assignment() {
    bash_value(
        "declare -a A='(--tp 8)'\nsglang serve --model-path m \"${A[@]}\"\n",
        4,
    );
}

/// Round 8 (class 5), probes that held against real bash 5.2: scalar and
/// array forms that do not touch element 0, prefix assignments before
/// special builtins, arithmetic corners.
#[test]
fn adversary_round8_held_bash_values() {
    each_bash_value(&[
        ("T=(4 2)\nT[1]+=x\nT[-1]=8\nTP=${T[1]}", 2),
        ("T=(4 8)\nreadonly T\nT=2 2>/dev/null\nTP=${T[1]}", 2),
        ("T=(4 8)\nT=2 true\nTP=${T[1]}", 2),
        ("declare -i N=3\nN+=5\nTP=$N", 35),
        ("TP=8\nTP=2 export X=1", 2),
        ("TP=$(( 2 ** 3 ))", 4),
        ("TP=$(( 64#8 ))", 64),
        ("TP=$(( 1 ? 8 : 3 ? 4 : 5 ))", 4),
        ("X=a\ncase $X in a) TP=2;;& a) TP=8;; esac", 2),
        ("X=ab\ncase $X in a*) TP=4;& b) TP=8;; *) TP=2;; esac", 4),
    ]);
}

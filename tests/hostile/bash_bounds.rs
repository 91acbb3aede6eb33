//! Bash scripts that would crash the evaluator or take it unbounded time or
//! memory: deep nesting (parser and evaluator stacks), recursion through
//! functions and `$(...)`, huge arithmetic, exponential glob patterns, values
//! that double, and loops that do not end. Each ends within the time and
//! memory budgets, with exit 2 at the construct naming the budget, or with
//! the right answer.

use crate::Repo;

const LAUNCH: &str = "sglang serve --model-path m --tp 2\n";

/// `n` levels of one compound command around a launch.
fn nested(kind: &str, n: usize) -> String {
    let (open, close) = match kind {
        "if" => ("if true; then\n", "fi\n"),
        "for" => ("for i in 1; do\n", "done\n"),
        "while" => ("while false; do\n", "done\n"),
        "until" => ("until true; do\n", "done\n"),
        "case" => ("case x in x)\n", ";; esac\n"),
        "brace" => ("{\n", "}\n"),
        "function" => ("f() {\n", "}\n"),
        other => panic!("{other}"),
    };
    format!("{}{LAUNCH}{}", open.repeat(n), close.repeat(n))
}

#[test]
fn compound_commands_nested_400_deep_are_refused_before_parsing() {
    let repo = Repo::new();
    for kind in ["if", "for", "while", "until", "case", "brace", "function"] {
        let file = format!("{kind}.sh");
        repo.write(&file, nested(kind, 400));
        // Level 101 opens on line 101 (at `(` of `f() {`).
        let col = if kind == "function" { 2 } else { 1 };
        repo.run_deterministic(&["extract", &file])
            .assert_input_error(
                &format!("{file}:101:{col}:"),
                &[
                    "nested too deeply",
                    "nesting budget",
                    "--bash-budget nesting=",
                ],
            );
    }
}

#[test]
fn nesting_is_counted_on_the_parsers_own_tokens() {
    // Text a character scan could misread (an apostrophe in a here-document
    // or a comment, `<<` as a shift) must not hide 30,000 levels from the
    // count: past the parser's stack they would crash it.
    let repo = Repo::new();
    let deep = nested("brace", 30_000);
    for (file, head, line) in [
        ("heredoc.sh", "cat <<EOF\nit's\nEOF\n", 104),
        ("shift.sh", "X=$((1<<2))\n", 102),
        ("comment.sh", "# it's\n", 102),
        ("quoted.sh", "echo \"if if if ( ( {\"\n", 102),
    ] {
        repo.write(file, format!("{head}{deep}"));
        repo.run_deterministic(&["extract", file])
            .assert_input_error(&format!("{file}:{line}:1:"), &["nesting budget"]);
    }
}

#[test]
fn scripts_past_the_parser_size_budget_are_refused_before_parsing() {
    // 2 MB of `X=1` lines took the parser past 5 s and 1.1 GB.
    let repo = Repo::new();
    repo.write("big.sh", format!("{}{LAUNCH}", "X=1\n".repeat(500_000)));
    // Byte 262,144 is the start of line 65,537.
    repo.run_deterministic(&["extract", "big.sh"])
        .assert_input_error(
            "big.sh:65537:1:",
            &["longer than 256 KiB", "script-kib budget"],
        );
    // Within the budget, a dense script parses within time and memory.
    // (about 5 s in a debug build on an idle machine: the run's time budget is
    // raised so that a loaded CI machine does not cut it; `assert_bounded`
    // still checks time and memory.)
    repo.write("dense.sh", format!("{}{LAUNCH}", "a\n".repeat(130_000)));
    let o = repo.run(&["--bash-budget", "seconds=60", "extract", "dense.sh"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
}

#[test]
fn nesting_within_the_budget_is_evaluated() {
    let repo = Repo::new();
    repo.write("deep.sh", nested("if", 100));
    let o = repo.run_deterministic(&["extract", "deep.sh"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("deep.sh:101:34"), "{}", o.both());
}

#[test]
fn the_nesting_budget_can_be_raised_and_the_parser_stack_holds_it() {
    let repo = Repo::new();
    for kind in ["if", "case", "brace"] {
        let file = format!("{kind}.sh");
        repo.write(&file, nested(kind, 990));
        let o = repo.run(&["extract", &file, "--bash-budget", "nesting=1000"]);
        o.assert_bounded();
        assert_eq!(o.code, Some(0), "{}", o.both());
        assert!(o.stdout.contains("--tp"), "{}", o.both());
    }
    let o = repo.run(&["extract", "if.sh", "--bash-budget", "nesting=5000"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(2), "{}", o.both());
    assert!(o.stderr.contains("at most 1,000"), "{}", o.both());
}

#[test]
fn long_test_chains_count_as_nesting() {
    // `[[ a && b && ... ]]` and `[[ ! ! ... ]]` nest in the parser's tree.
    let repo = Repo::new();
    let and = format!(
        "if [[ {} ]]; then {LAUNCH}fi\n",
        vec!["a == a"; 300].join(" && ")
    );
    repo.write("and.sh", and);
    repo.run_deterministic(&["extract", "and.sh"])
        .assert_input_error("and.sh:1:", &["nesting budget"]);
    repo.write(
        "not.sh",
        format!("if [[ {}a == a ]]; then {LAUNCH}fi\n", "! ".repeat(300)),
    );
    repo.run_deterministic(&["extract", "not.sh"])
        .assert_input_error("not.sh:1:", &["nesting budget"]);
}

#[test]
fn arithmetic_with_45000_terms_is_refused() {
    let repo = Repo::new();
    let terms = vec!["1"; 45_000].join("+");
    repo.write(
        "arith.sh",
        format!("echo start\nX=$(({terms}))\nsglang serve --model-path m --tp $X\n"),
    );
    repo.run_deterministic(&["extract", "arith.sh"])
        .assert_input_error("arith.sh:2:1:", &["arith-operators budget", "256"]);
    // The same through a variable whose text is an expression.
    repo.write(
        "var.sh",
        format!("E={terms}\nX=$((E))\nsglang serve --model-path m --tp $X\n"),
    );
    repo.run_deterministic(&["extract", "var.sh"])
        .assert_input_error("var.sh:2:1:", &["arith-operators budget"]);
    // And through `((...))` as a command.
    repo.write("cmd.sh", format!("(( {terms} ))\n{LAUNCH}"));
    repo.run_deterministic(&["extract", "cmd.sh"])
        .assert_input_error("cmd.sh:1:1:", &["arith-operators budget"]);
}

#[test]
fn self_referring_arithmetic_variables_end() {
    // `X=X+1`: bash stops at its recursion limit; here the value is unknown
    // (written as the word).
    let repo = Repo::new();
    repo.write(
        "self.sh",
        "X='X+1'\nY=$((X))\nsglang serve --model-path m --tp 2 --dp $Y\n",
    );
    let o = repo.run_deterministic(&["extract", "self.sh"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("'$Y'"), "{}", o.both());
}

#[test]
fn variables_read_as_arithmetic_cannot_multiply_work() {
    // V0=V1+V1+..., V1=V2+V2+..., ...: 120^8 evaluations in bash.
    let repo = Repo::new();
    let mut s = String::new();
    for i in 0..8 {
        s.push_str(&format!(
            "V{i}={}\n",
            vec![format!("V{}", i + 1); 120].join("+")
        ));
    }
    s.push_str(&format!("V8=1\nX=$((V0))\n{LAUNCH}"));
    repo.write("expo.sh", s);
    repo.run_deterministic(&["extract", "expo.sh"])
        .assert_input_error("expo.sh:10:1:", &["steps budget", "200,000"]);
}

#[test]
fn recursion_through_command_substitution_hits_the_call_depth_budget() {
    let repo = Repo::new();
    repo.write("rec.sh", format!("f() {{ echo $(f); }}\nX=$(f)\n{LAUNCH}"));
    repo.run_deterministic(&["extract", "rec.sh"])
        .assert_input_error("rec.sh:2:1:", &["call-depth budget", "32"]);
    repo.write("plain.sh", format!("f() {{ f; }}\nf\n{LAUNCH}"));
    repo.run_deterministic(&["extract", "plain.sh"])
        .assert_input_error("plain.sh:1:7:", &["call-depth budget"]);
    // Nested `$(...)` without functions.
    let mut word = "echo 1".to_string();
    for _ in 0..40 {
        word = format!("echo \"$({word})\"");
    }
    repo.write("subst.sh", format!("X=$({word})\n{LAUNCH}"));
    let o = repo.run_deterministic(&["extract", "subst.sh"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(2), "{}", o.both());
    assert!(o.stderr.contains("subst.sh:1:"), "{}", o.both());
}

#[test]
fn glob_patterns_with_many_stars_match_in_linear_time() {
    let repo = Repo::new();
    let word = "a".repeat(54);
    let miss = format!("{}b", "*a".repeat(40));
    let hit = "*a".repeat(40);
    repo.write(
        "glob.sh",
        format!(
            "X={word}\n\
             case $X in\n  {miss}) TP=1 ;;\n  {hit}) TP=8 ;;\nesac\n\
             if [[ $X == {miss} ]]; then DP=1; else DP=4; fi\n\
             A=${{X#{hit}}}\nB=${{X%%{miss}}}\nC=${{X//{hit}/z}}\n\
             sglang serve --model-path m --tp $TP --dp $DP --served-model-name \"$A-${{#B}}-$C\"\n"
        ),
    );
    let o = repo.run_deterministic(&["extract", "glob.sh"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.wall.as_secs() < 5, "{}", o.both());
    for want in ["  8 ", "  4 ", "aaaaaaaaaaaaaa-54-z"] {
        assert!(o.stdout.contains(want), "{want:?}: {}", o.both());
    }
}

#[test]
fn pattern_matching_work_is_budgeted() {
    // A 1 MiB value against a pattern of 200 stars, over and over.
    let repo = Repo::new();
    let pat = "*1".repeat(200);
    repo.write(
        "work.sh",
        format!(
            "X=$(printf '%01000000d' 0)\nfor i in 1 2 3; do\n  case $X in {pat}) ;; esac\ndone\n{LAUNCH}"
        ),
    );
    repo.run_deterministic(&["extract", "work.sh"])
        .assert_input_error("work.sh:", &["match-work budget"]);
}

#[test]
fn doubling_a_string_hits_the_value_budget() {
    let repo = Repo::new();
    repo.write(
        "double.sh",
        format!("X=a; for i in $(seq 1 40); do X=$X$X; done\n{LAUNCH}"),
    );
    repo.run_deterministic(&["extract", "double.sh"])
        .assert_input_error("double.sh:1:31:", &["value-kib budget", "1,024 KiB"]);
    repo.write(
        "replace.sh",
        format!("X=aaaa; for i in $(seq 1 40); do X=${{X//a/aa}}; done\n{LAUNCH}"),
    );
    repo.run_deterministic(&["extract", "replace.sh"])
        .assert_input_error("replace.sh:1:34:", &["value-kib budget"]);
    // Many copies in one word.
    repo.write(
        "many.sh",
        format!(
            "X=$(printf '%0500000d' 1)\nY={}\n{LAUNCH}",
            "$X".repeat(3000)
        ),
    );
    repo.run_deterministic(&["extract", "many.sh"])
        .assert_input_error("many.sh:2:1:", &["value-kib budget"]);
}

#[test]
fn huge_printf_widths_are_refused_before_allocating() {
    let repo = Repo::new();
    repo.write(
        "width.sh",
        format!("X=$(printf \"%0999999999d\" 1)\n{LAUNCH}"),
    );
    repo.run_deterministic(&["extract", "width.sh"])
        .assert_input_error("width.sh:1:1:", &["value-kib budget"]);
    // A width near the largest number once overflowed the size check.
    repo.write(
        "max.sh",
        format!("X=$(printf \"ab%018446744073709551615d\" 12)\n{LAUNCH}"),
    );
    repo.run_deterministic(&["extract", "max.sh"])
        .assert_input_error("max.sh:1:1:", &["value-kib budget"]);
    repo.write(
        "prec.sh",
        format!("X=$(printf \"%.999999999f\" 1)\n{LAUNCH}"),
    );
    repo.run_deterministic(&["extract", "prec.sh"])
        .assert_input_error("prec.sh:1:1:", &["value-kib budget"]);
    repo.write(
        "seq.sh",
        format!("S=$(printf '%0500000d' 1)\nX=$(seq -s \"$S\" 1 1000)\n{LAUNCH}"),
    );
    repo.run_deterministic(&["extract", "seq.sh"])
        .assert_input_error("seq.sh:2:1:", &["value-kib budget"]);
}

#[test]
fn growing_arrays_and_copied_state_hit_the_built_bytes_budget() {
    let repo = Repo::new();
    repo.write(
        "array.sh",
        format!("X=$(printf '%0500000d' 1)\nfor i in $(seq 1 5000); do A+=($X); done\n{LAUNCH}"),
    );
    repo.run_deterministic(&["extract", "array.sh"])
        .assert_input_error("array.sh:2:", &["built-mib budget", "256 MiB"]);
    // Every unknown `if` copies the state: 90 nested copies of 180 MB.
    let mut s = "X=$(printf '%0900000d' 1)\n".to_string();
    for i in 0..200 {
        s.push_str(&format!("V{i}=$X\n"));
    }
    s.push_str(&"if [ -f x ]; then\n".repeat(90));
    s.push_str(LAUNCH);
    s.push_str(&"fi\n".repeat(90));
    repo.write("forks.sh", s);
    repo.run_deterministic(&["extract", "forks.sh"])
        .assert_input_error("forks.sh:", &["built-mib budget"]);
}

#[test]
fn launches_with_huge_word_lists_count_as_built_bytes() {
    // One value split into 100,000 arguments: each is kept and rendered
    // with its provenance (about 3 KB in JSON), so it counts as 4 KiB.
    let repo = Repo::new();
    repo.write(
        "words.sh",
        "X=$(printf \"a %.0s\" $(seq 1 100000))\nsglang serve --model-path m $X\n",
    );
    repo.run_deterministic(&["extract", "words.sh", "--format", "json"])
        .assert_input_error("words.sh:2:1:", &["built-mib budget"]);
    // A loop that launches 10,000 times stays within it.
    repo.write(
        "loop.sh",
        "for i in $(seq 1 10000); do sglang serve --model-path m --tp 2; done\n",
    );
    let o = repo.run(&[
        "extract",
        "loop.sh",
        "--format",
        "json",
        "--max-launches",
        "10000",
        "--max-launch-words",
        "100000",
    ]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
}

#[test]
fn reasons_that_grow_each_turn_count_as_built_bytes() {
    // Each turn wraps the unknown value's reason in one more condition: the
    // copies of the state grow quadratically until the budget ends them.
    let repo = Repo::new();
    repo.write(
        "reason.sh",
        format!(
            "X=$(curl foo)\nfor i in $(seq 1 10000); do\n  if [ \"$X\" = 1 ]; then X=a; fi\ndone\n{LAUNCH}"
        ),
    );
    repo.run_deterministic(&["extract", "reason.sh"])
        .assert_input_error("reason.sh:3:", &["built-mib budget"]);
}

#[test]
fn loops_end_within_the_step_and_loop_budgets() {
    let repo = Repo::new();
    // Nested loops whose bodies have no simple command still count steps.
    repo.write(
        "loops.sh",
        format!(
            "for a in $(seq 1 10000); do for b in $(seq 1 10000); do ((x++)); done; done\n{LAUNCH}"
        ),
    );
    repo.run_deterministic(&["extract", "loops.sh"])
        .assert_input_error("loops.sh:1:", &["steps budget", "200,000"]);
    // A `for` over more values than the loop budget is not evaluated turn by
    // turn: what it sets is unknown, with the budget named (not a silent stop
    // after 10,000 turns).
    repo.write(
        "turns.sh",
        "N=0\nfor i in $(seq 1 20000); do N=$i; done\nsglang serve --model-path m --tp $N\n",
    );
    let o = repo.run_deterministic(&["extract", "turns.sh"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(
        o.stdout.contains("'$N'")
            && o.stdout.contains("more than the 10000 turns")
            && o.stdout.contains("--bash-budget loop-turns=N"),
        "{}",
        o.both()
    );
    // Raised, the loop is evaluated and N is known.
    let o = repo.run(&["extract", "turns.sh", "--bash-budget", "loop-turns=30000"]);
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("20000"), "{}", o.both());
    // `while true` ends (its body is evaluated once, as a maybe-run).
    repo.write("while.sh", format!("while true; do X=1; done\n{LAUNCH}"));
    let o = repo.run_deterministic(&["extract", "while.sh"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
}

#[test]
fn the_time_budget_ends_what_the_other_budgets_allow() {
    // With the step budget raised out of reach, the time budget ends it.
    let repo = Repo::new();
    repo.write(
        "slow.sh",
        format!(
            "for a in $(seq 1 10000); do for b in $(seq 1 10000); do ((x++)); done; done\n{LAUNCH}"
        ),
    );
    let o = repo.run(&[
        "extract",
        "slow.sh",
        "--bash-budget",
        "steps=1000000000",
        "--bash-budget",
        "seconds=1",
    ]);
    o.assert_input_error("slow.sh:1:", &["seconds budget", "more than 1 s"]);
    assert!(o.wall.as_secs() < 10, "{}", o.both());
}

#[test]
fn budgets_can_be_lowered_and_raised_from_the_command_line() {
    let repo = Repo::new();
    repo.write(
        "small.sh",
        format!("for i in 1 2 3 4 5; do X=$i; done\n{LAUNCH}"),
    );
    repo.run(&["extract", "small.sh", "--bash-budget", "steps=3"])
        .assert_input_error("small.sh:1:", &["steps budget", "--bash-budget steps=N"]);
    let o = repo.run(&["extract", "small.sh", "--bash-budget", "steps=1_000"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    let o = repo.run(&["extract", "small.sh", "--bash-budget", "bogus=1"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(2), "{}", o.both());
    assert!(
        o.stderr.contains("unknown budget \"bogus\""),
        "{}",
        o.both()
    );
}

/// Nested array subscripts in arithmetic made brush's arithmetic parser
/// backtrack exponentially (seven levels: 31 s): a nesting budget ends it at
/// once, and ordinary subscripts still evaluate.
#[test]
fn nested_arithmetic_subscripts_are_bounded() {
    let repo = Repo::new();
    repo.write(
        "x7.sh",
        "X=$(( x[x[x[x[x[x[x[0]]]]]]] ))\nsglang serve --model-path m --tp $X\n",
    );
    repo.run_deterministic(&["extract", "x7.sh"])
        .assert_input_error("x7.sh:1:", &["subscripts nested more than 4 deep"]);
    repo.write(
        "x2.sh",
        "x=(1 2 3); X=$(( x[x[0]] ))\nsglang serve --model-path m --tp $X\n",
    );
    let o = repo.run(&["extract", "x2.sh", "--format", "json"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("\"text\": \"2\""), "{}", o.both());
}

/// The parser guards count code only: `${` and `(` in comments and in
/// single-quoted text nest nothing (red-team pass 4, M3), and the message
/// names the guard as fixed, not a `--bash-budget` knob it does not obey.
#[test]
fn parser_guards_skip_comments_and_quoted_text() {
    let repo = Repo::new();
    for (file, head) in [
        (
            "comment.sh",
            "# usage: set ${MODEL or ${TP or ${EP or ${DP\n",
        ),
        ("art.sh", "# (((((((((((((((((((((((((\n"),
        ("quoted.sh", "echo '${a ${b ${c ${d'\n"),
        ("ansi.sh", "echo $'((((((((((((((((((\\'(((('\n"),
    ] {
        repo.write(file, format!("{head}{LAUNCH}"));
        let o = repo.run_deterministic(&["extract", file]);
        o.assert_bounded();
        assert_eq!(o.code, Some(0), "{file}: {}", o.both());
        assert!(o.stdout.contains("sglang serve"), "{file}: {}", o.both());
    }
    repo.write(
        "code.sh",
        format!("X=${{A:-${{B:-${{C:-${{D:-8}}}}}}}}\n{LAUNCH}"),
    );
    repo.run_deterministic(&["extract", "code.sh"])
        .assert_input_error("code.sh:1:", &["a fixed guard of the parser"]);
}

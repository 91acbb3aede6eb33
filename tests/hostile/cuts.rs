//! Issue 24 class 8: a budget that cuts work cuts at the same place every
//! run. A wall-clock budget cuts wherever the machine had got to, so its
//! error names no count and no position that depends on that: two runs that
//! cross it print the same bytes.

use crate::Repo;

/// `--all-selections --time-limit 1` on a generator that never finishes in a
/// second: the same error, with no count of the states found, every run.
#[test]
fn the_exploration_time_budget_prints_the_same_cut_every_run() {
    let repo = Repo::new();
    repo.write(
        "gen.jsx",
        "export const Gen = () => {\n  const [n, setN] = useState(0);\n  let s = 0;\n  for (let i = 0; i < 1000000; i++) { s += i % 7; }\n  return <div><input type=\"checkbox\" name=\"more\" checked={n % 2 === 1} onChange={() => setN(n + 1)} /><pre>{'sglang serve --model-path m --tp ' + (n + s * 0)}</pre></div>;\n};\n",
    );
    let o = repo.run_deterministic(&[
        "extract",
        "gen.jsx",
        "--all-selections",
        "--time-limit",
        "1",
    ]);
    o.assert_input_error(
        "gen.jsx:",
        &["time budget of --all-selections", "--time-limit SECS"],
    );
    assert!(!o.stderr.contains("states found"), "{}", o.both());
}

/// The bash time budget (`--bash-budget seconds=N`) cuts at whatever command
/// the machine had reached: the error is at the script's start, not there.
#[test]
fn the_bash_time_budget_is_reported_at_the_script_not_where_it_stopped() {
    let repo = Repo::new();
    let mut body = String::new();
    for i in 0..60 {
        body.push_str(&format!("  v{i}=$((a + {i}))\n"));
    }
    repo.write(
        "slow.sh",
        format!(
            "for ((a = 0; a < 1000000; a++)); do\n{body}done\nsglang serve --model-path m --tp 2\n"
        ),
    );
    let args = [
        "extract",
        "slow.sh",
        "--bash-budget",
        "steps=1000000000",
        "--bash-budget",
        "loop-turns=1000000",
        "--bash-budget",
        "seconds=1",
    ];
    let o = repo.run_deterministic(&args);
    o.assert_input_error("slow.sh:1:1:", &["seconds budget", "more than 1 s"]);
    // A third run, for good measure: the cut's place is not the machine's.
    let again = repo.run(&args);
    assert_eq!(again.stderr, o.stderr);
}

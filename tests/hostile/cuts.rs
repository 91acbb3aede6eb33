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

/// Issue 24, fresh adversary (class 8): the state budget counts states, so
/// its cut is the same on every run (three runs, same bytes).
#[test]
fn adversary_the_state_budget_cuts_at_the_same_state_every_run() {
    let repo = Repo::new();
    repo.write(
        "ms.jsx",
        "export const Gen = () => {\n  const [a, setA] = useState('a0');\n  const [b, setB] = useState('b0');\n  const [c, setC] = useState('c0');\n  const radio = (name, vals, cur, set) => vals.map((v) => <label key={v}><input type=\"radio\" name={name} value={v} checked={cur === v} onChange={() => set(v)} />{v}</label>);\n  return <div>\n    {radio('a', ['a0', 'a1', 'a2', 'a3'], a, setA)}\n    {radio('b', ['b0', 'b1', 'b2', 'b3'], b, setB)}\n    {radio('c', ['c0', 'c1', 'c2', 'c3'], c, setC)}\n    <pre>{'sglang serve --model-path m --tp 4 --served-model-name ' + a + b + c}</pre>\n  </div>;\n};\n",
    );
    let args = ["extract", "ms.jsx", "--all-selections", "--max-states", "5"];
    let o = repo.run_deterministic(&args);
    o.assert_input_error("ms.jsx:1:14", &["more than 5 reachable states"]);
    assert_eq!(repo.run(&args).stderr, o.stderr);
    // Unbounded, all 64 states are found, the same on every run.
    let all = repo.run_deterministic(&["extract", "ms.jsx", "--all-selections"]);
    all.assert_bounded();
    assert!(
        all.stdout.contains("64 reachable selections"),
        "{}",
        all.both()
    );
}

/// The JavaScript time limit is wall-clock: its error names the limit, not
/// how far the machine got.
#[test]
fn adversary_the_javascript_time_limit_names_no_count() {
    let repo = Repo::new();
    repo.write(
        "loop.jsx",
        "export const Gen = () => { let i = 0; while (true) { i++; } return <pre>{'sglang serve --model-path m'}</pre>; };\n",
    );
    let o = repo.run_deterministic(&["extract", "loop.jsx", "--js-time-limit", "300"]);
    o.assert_input_error("loop.jsx:1:14", &["time limit (300 ms)"]);
    assert_eq!(
        repo.run(&["extract", "loop.jsx", "--js-time-limit", "300"])
            .stderr,
        o.stderr
    );
}

/// The bash loop budget counts turns: a loop past it leaves what it sets
/// unknown, with the same reason every run; an endless `while` is no hang
/// and what follows it is conditional, said so.
#[test]
fn adversary_bash_loop_cuts_are_counted_not_timed() {
    let repo = Repo::new();
    repo.write(
        "loop.md",
        "```bash\nfor i in $(seq 1 100000); do X=$i; done\nsglang serve --model-path m --tp $X\n```\n",
    );
    let o = repo.run_deterministic(&["extract", "loop.md"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("loop-turns"), "{}", o.both());
    repo.write(
        "while.md",
        "```bash\nwhile true; do :; done\nsglang serve --model-path m --tp 4\n```\n",
    );
    let o = repo.run_deterministic(&["extract", "while.md"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("never ends"), "{}", o.both());
}

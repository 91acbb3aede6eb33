//! Hostile generators: the JS sandbox and the exploration of `--all-selections`.
//! Each class of failure has one case; every generator is written here.

use super::*;

/// A protocol-A-like generator whose render runs `body` first.
fn generator(body: &str) -> String {
    format!(
        "export const Gen = () => {{\n  {body}\n  return <pre>sglang serve --model-path m --tp 2</pre>;\n}};\n"
    )
}

/// A C builtin that never reaches QuickJS's interrupt handler is still
/// stopped at the deadline: the worker process is killed.
#[test]
fn builtins_that_ignore_the_interrupt_handler_end_at_the_deadline() {
    let repo = Repo::new();
    for (name, body) in [
        (
            "reverse.jsx",
            "Array.prototype.reverse.call({ length: 2 ** 53 - 1 });",
        ),
        (
            "join.jsx",
            "const a = []; a.length = 2 ** 32 - 1; a.join('');",
        ),
    ] {
        repo.write(name, generator(body));
        let o = repo.run(&["extract", name, "--js-time-limit", "400"]);
        o.assert_input_error(
            &format!("{name}:1:14"),
            &[
                "rendering <Gen />",
                "did not finish within the time limit (400 ms)",
                "--js-time-limit",
            ],
        );
        assert!(o.wall.as_secs() < 10, "{}", o.both());
    }
}

/// A module over the size budget is refused before it is parsed.
#[test]
fn an_oversized_module_is_refused_before_parsing() {
    let repo = Repo::new();
    let mut text = String::from("const big = [");
    while text.len() < (2 << 20) {
        text.push_str("1234567,");
    }
    text.push_str("];\n");
    text.push_str(&generator(""));
    repo.write("big.jsx", &text);
    let o = repo.run_deterministic(&["extract", "big.jsx"]);
    o.assert_input_error(
        "big.jsx:1:1",
        &["over the 1024 KiB budget for a generator module"],
    );
    assert!(o.wall.as_secs() < 10, "{}", o.both());
}

/// Nesting too deep for the parser's stack is an error at the module, not a
/// crash: the transform runs in the worker process too.
#[test]
fn nesting_too_deep_for_the_parser_is_an_error() {
    let repo = Repo::new();
    let n = 200_000;
    for (name, expr) in [
        ("arrays.jsx", format!("{}{}", "[".repeat(n), "]".repeat(n))),
        ("unary.jsx", format!("{}1", "-".repeat(n))),
        ("sum.jsx", format!("1{}", "+1".repeat(n))),
    ] {
        repo.write(name, format!("const x = {expr};\n{}", generator("")));
        repo.run_deterministic(&["extract", name])
            .assert_input_error(
                &format!("{name}:1:1"),
                &["cannot transform this module", "nest too deeply"],
            );
    }
}

/// Printed output is capped: one huge command, too many commands.
#[test]
fn rendered_output_is_capped() {
    let repo = Repo::new();
    // A million words: over the budget of one command.
    repo.write(
        "words.jsx",
        "export const Gen = () => <pre>{'sglang serve --model-path m' + ' --w x'.repeat(1000000)}</pre>;\n",
    );
    repo.run_deterministic(&["extract", "words.jsx"])
        .assert_input_error(
            "words.jsx:1:14",
            &[
                "<Gen /> prints a command of 6000027 bytes",
                "256 KiB per command",
            ],
        );
    // Five million words: over the budget of what one evaluation returns.
    repo.write(
        "more.jsx",
        "export const Gen = () => <pre>{'sglang serve --model-path m' + ' --w x'.repeat(5000000)}</pre>;\n",
    );
    repo.run_deterministic(&["extract", "more.jsx"])
        .assert_input_error(
            "more.jsx:1:14",
            &["returned more than the output limit of one evaluation (16 MiB)"],
        );
    // 25 commands of 10,000 launches each: over the launch budget.
    repo.write(
        "launches.jsx",
        "export const Gen = () => <div>{Array.from({ length: 25 }, (_, i) => <pre key={i}>{'sglang serve --tp 2\\n'.repeat(10000)}</pre>)}</div>;\n",
    );
    repo.run_deterministic(&["extract", "launches.jsx"])
        .assert_input_error(
            "launches.jsx [<Gen /> #1]:1001:1",
            &["more than 1000 launches (the per-file launch budget"],
        );
    // A page rendering a generator three times, each state printing
    // 60 commands of 200 KB: over the output budget of one file.
    repo.write(
        "pg/gen.jsx",
        "export const Gen = () => <div>{Array.from({ length: 60 }, (_, i) => <pre key={i}>{'sglang serve --model-path m' + ' --w x'.repeat(33000)}</pre>)}</div>;\n",
    );
    repo.write(
        "pg/page.mdx",
        "import { Gen } from './gen.jsx';\n\n<Gen />\n\n<Gen />\n\n<Gen />\n",
    );
    repo.run_deterministic(&["extract", "pg/page.mdx"])
        .assert_input_error(
            "page.mdx:7:1",
            &["<Gen /> renders more than 32 MiB in all (the output budget"],
        );
    repo.write(
        "many.jsx",
        "export const Gen = () => <div>{Array.from({ length: 500 }, (_, i) => <pre key={i}>sglang serve --model-path m{i}</pre>)}</div>;\n",
    );
    repo.run_deterministic(&["extract", "many.jsx", "--all-selections"])
        .assert_input_error(
            "many.jsx:1:14",
            &["prints 500 commands in one state, over the budget of 64"],
        );
}

/// `--all-selections` has a state budget and a time budget, each named with
/// the flag that raises it.
#[test]
fn exploration_has_a_state_budget_and_a_time_budget() {
    let repo = Repo::new();
    // 17 independent checkboxes: 2^17 states.
    let boxes: Vec<String> = (0..17)
        .map(|i| {
            format!(
                "<input type=\"checkbox\" name=\"c{i}\" checked={{!!on[{i}]}} onChange={{() => setOn({{ ...on, {i}: !on[{i}] }})}} />"
            )
        })
        .collect();
    repo.write(
        "boxes.jsx",
        format!(
            "export const Gen = () => {{\n  const [on, setOn] = useState({{}});\n  return <div>{}<pre>{{'sglang serve --model-path m --tp ' + Object.keys(on).filter((k) => on[k]).length}}</pre></div>;\n}};\n",
            boxes.join("")
        ),
    );
    repo.run_deterministic(&[
        "extract",
        "boxes.jsx",
        "--all-selections",
        "--max-states",
        "40",
    ])
    .assert_input_error(
        "boxes.jsx:1:14",
        &["has more than 40 reachable states", "--max-states"],
    );
    // A click counter: every click is a new state, one click deeper.
    repo.write(
        "counter.jsx",
        "export const Gen = () => {\n  const [n, setN] = useState(0);\n  return <div><input type=\"checkbox\" name=\"more\" checked={n % 2 === 1} onChange={() => setN(n + 1)} /><pre>{'sglang serve --model-path m --tp ' + n}</pre></div>;\n};\n",
    );
    // The same counter with a costly render: the file's time budget ends it
    // long before the click-depth budget (timing-independent: 200 renders of
    // millions of loop turns never fit in 1.5 s).
    repo.write(
        "slow.jsx",
        "export const Gen = () => {\n  const [n, setN] = useState(0);\n  let s = 0;\n  for (let i = 0; i < 3000000; i++) { s += i % 7; }\n  return <div><input type=\"checkbox\" name=\"more\" checked={n % 2 === 1} onChange={() => setN(n + 1)} /><pre>{'sglang serve --model-path m --tp ' + (n + s * 0)}</pre></div>;\n};\n",
    );
    let o = repo.run(&[
        "extract",
        "slow.jsx",
        "--all-selections",
        "--js-total-time-limit",
        "1500",
    ]);
    o.assert_input_error(
        "slow.jsx: rendering the generators of this file",
        &["time budget of this file (1500 ms", "--js-total-time-limit"],
    );
    assert!(o.wall.as_secs() < 10, "{}", o.both());
    // With time to spare, the click-depth budget ends it.
    repo.run_deterministic(&[
        "extract",
        "counter.jsx",
        "--all-selections",
        "--js-total-time-limit",
        "600000",
    ])
    .assert_input_error(
        "counter.jsx:1:14",
        &["more than 200 clicks away from the initial one (the click-depth budget"],
    );
}

/// Time limits too large to represent are a usage error, not a deadline in
/// the past; the largest accepted one works.
#[test]
fn huge_time_limits_are_validated() {
    let repo = Repo::new();
    repo.write("gen.jsx", generator(""));
    let o = repo.run(&["extract", "gen.jsx", "--js-time-limit", "18446744073710"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(2), "{}", o.both());
    assert!(o.stderr.contains("--js-time-limit"), "{}", o.both());
    let o = repo.run_deterministic(&[
        "extract",
        "gen.jsx",
        "--js-time-limit",
        "3600000",
        "--js-total-time-limit",
        "3600000",
    ]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("--tp"), "{}", o.both());
}

/// The clock and `Math.random` are fixed (a command printing them depends on
/// the reader's browser: the same error, naming the fixed values, on every
/// run); thrown values print without heap addresses.
#[test]
fn clock_random_and_thrown_values_are_deterministic() {
    let repo = Repo::new();
    for (name, expr, want) in [
        ("now.jsx", "Date.now()", "--now 1735689600000"),
        (
            "iso.jsx",
            "new Date().toISOString()",
            "--now 2025-01-01T00:00:00.000Z",
        ),
        (
            "str.jsx",
            "JSON.stringify(Date()).slice(1, 16)",
            "`--now Wed`",
        ),
        ("perf.jsx", "performance.now()", "--now 0"),
    ] {
        repo.write(
            name,
            format!("export const Gen = () => <pre>{{['sglang serve --model-path m', '--now', {expr}, '--rand', Math.random()].join(' ')}}</pre>;\n"),
        );
        let o = repo.run_deterministic(&["extract", name, "--format", "json"]);
        o.assert_input_error(
            &format!("{name}:1:14"),
            &["depends on the reader's browser", want],
        );
    }
    for (name, thrown, said) in [
        ("symbol.jsx", "Symbol('x')", "a Symbol was thrown"),
        ("proxy.jsx", "new Proxy({}, {})", "an object was thrown"),
    ] {
        repo.write(name, generator(&format!("throw {thrown};")));
        let o = repo.run_deterministic(&["extract", name]);
        o.assert_input_error(&format!("{name}:1:14"), &[said]);
        assert!(!o.stderr.contains("0x"), "{}", o.both());
    }
}

/// A script's own error is never taken for the engine's timeout or memory
/// limit: classification reads the engine's flags, not the message.
#[test]
fn errors_are_classified_by_the_engine_not_by_the_message() {
    let repo = Repo::new();
    for (name, body, said) in [
        (
            "interrupted.jsx",
            "throw new Error('interrupted');",
            "JavaScript error: Error: interrupted",
        ),
        (
            "oom.jsx",
            "throw new InternalError('out of memory');",
            "JavaScript error: InternalError: out of memory",
        ),
    ] {
        repo.write(name, generator(body));
        let o = repo.run_deterministic(&["extract", name]);
        o.assert_input_error(&format!("{name}:1:14"), &[said]);
        assert!(!o.stderr.contains("time limit"), "{}", o.both());
        assert!(!o.stderr.contains("memory limit"), "{}", o.both());
    }
    // The real limits still say so.
    repo.write("bomb.jsx", generator("'x'.repeat(2 ** 29);"));
    repo.run_deterministic(&["extract", "bomb.jsx"])
        .assert_input_error("bomb.jsx:1:14", &["exceeded the memory limit (256 MiB)"]);
}

/// The JavaScript time limits are global flags: `compare` and `check` take
/// them too (a config's links render generators with them).
#[test]
fn check_and_compare_take_the_javascript_time_limits() {
    let repo = Repo::new();
    repo.write(
        "gen.jsx",
        "export const Gen = () => {\n  let s = 0;\n  for (let i = 0; i < 20000000; i++) { s += i % 7; }\n  return <pre>{'sglang serve --model-path m --tp ' + (2 + s * 0)}</pre>;\n};\n",
    );
    repo.write("recipe.sh", "sglang serve --model-path m --tp 2\n");
    repo.write(
        ".recipe-drift.yaml",
        "links:\n  - name: gen\n    docs: {file: gen.jsx}\n    recipe: {file: recipe.sh}\n",
    );
    for args in [
        &["compare", "gen.jsx", "recipe.sh", "--js-time-limit", "20"][..],
        &["check", "--js-time-limit", "20"][..],
    ] {
        let o = repo.run(args);
        o.assert_bounded();
        assert_eq!(o.code, Some(2), "{args:?}: {}", o.both());
        let text = format!("{}{}", o.stdout, o.stderr);
        assert!(text.contains("--js-time-limit"), "{args:?}: {}", o.both());
    }
    let o = repo.run(&["compare", "gen.jsx", "recipe.sh"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
}

/// A click whose handler throws before anything renders is a crash path
/// wherever the exploration's batches of clicks fall (it was a TypeError of
/// the explorer when it was the first click of a batch), and memoises none
/// of the passes of the click before it.
#[test]
fn a_handler_that_throws_is_a_crash_path_in_every_batch() {
    let repo = Repo::new();
    repo.write(
        "boom.jsx",
        "export const Gen = () => {\n  const [m, setM] = useState('a');\n  const [g, setG] = useState('x');\n  const [t, setT] = useState(1);\n  useEffect(() => { setT(g === 'y' ? 4 : 8); }, [g]);\n  const boom = () => { throw new Error('boom'); };\n  return <div>\n    {['a', 'b'].map((v) => <label key={v}><input type=\"radio\" name=\"m\" value={v} checked={m === v} onChange={() => setM(v)} />{v}</label>)}\n    {['x', 'y'].map((v) => <label key={v}><input type=\"radio\" name=\"g\" value={v} checked={g === v} onChange={() => setG(v)} />{v}</label>)}\n    <button onClick={boom}>Reset</button>\n    <pre>{'sglang serve --model-path m --tp ' + t + ' --served-model-name ' + m}</pre>\n  </div>;\n};\n",
    );
    let o = repo.run_deterministic(&["extract", "boom.jsx", "--all-selections"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(1), "{}", o.both());
    assert!(o.stdout.contains("4 reachable selections"), "{}", o.both());
    assert!(
        o.stdout.contains("throws on clicking control #4 (click)"),
        "{}",
        o.both()
    );
    assert!(o.stdout.contains("Error: boom"), "{}", o.both());
    assert!(
        o.stdout
            .contains("(3 other click paths end in the same error)"),
        "{}",
        o.both()
    );
}

/// A generator printing `--tp {tp}` for `expr`, compared with a recipe at
/// `--tp 4`: the exit code and output.
fn compare_expr_tp4(expr: &str) -> (Option<i32>, String) {
    let repo = Repo::new();
    repo.write(
        "gen.jsx",
        format!(
            "export const Gen = () => {{\n  const tp = {expr};\n  return <pre>{{'sglang serve --model-path m --tp ' + tp}}</pre>;\n}};\n"
        ),
    );
    repo.write("r.txt", "sglang serve --model-path m --tp 4\n");
    let o = repo.run_deterministic(&["compare", "gen.jsx", "r.txt", "--offline"]);
    o.assert_bounded().assert_no_leak();
    (o.code, o.both())
}

/// Issue 24, fresh adversary (class 4): what every browser gives alike is
/// read as a browser gives it: the page is rendered on the client
/// (`window` exists) and a user agent string is never empty.
#[test]
fn adversary_what_every_browser_gives_is_read() {
    for expr in [
        "typeof window === 'undefined' ? 8 : 4",
        "navigator.userAgent ? 4 : 8",
    ] {
        let (code, out) = compare_expr_tp4(expr);
        assert_eq!(code, Some(0), "{expr}\n{out}");
    }
}

/// A command that depends on the reader's browser (the real clock,
/// `performance.now()`, `Math.random()`, the window's width, the CPU count,
/// the page's protocol, the referrer) is not one command: recipe-drift's
/// fixed stand-ins (2025-01-01, 0, a seeded random, empty truthy objects)
/// pick one silently. Each expression below gives `--tp 8` to every reader
/// today, or to most (a desktop window, a multi-core machine, an https docs
/// site, a page opened directly), and recipe-drift reads `--tp 4`, the
/// recipe's: green. It must be drift, or flagged as uncertain (not exit 0).
#[test]

fn adversary_a_command_that_depends_on_the_readers_browser_is_not_fixed_silently() {
    for expr in [
        "new Date().getFullYear() >= 2026 ? 8 : 4",
        "performance.now() > 0 ? 8 : 4",
        "Math.random() < 0.5 ? 8 : 4",
        "window.innerWidth >= 1024 ? 8 : 4",
        "navigator.hardwareConcurrency >= 2 ? 8 : 4",
        "window.location.protocol === 'https:' ? 8 : 4",
        "document.referrer ? 4 : 8",
    ] {
        let (code, out) = compare_expr_tp4(expr);
        assert_ne!(code, Some(0), "{expr}\n{out}");
    }
}

/// More reader-dependent sources (crypto randomness, a media query, a
/// cookie, the screen, the navigator's language, the page's address), a
/// read at module level (before any render), and a state only a desktop
/// window reaches: each is flagged with the source it read, never exit 0.
#[test]
fn adversary_more_reader_dependent_commands_are_flagged() {
    for (expr, source) in [
        (
            "crypto.getRandomValues(new Uint8Array(1))[0] < 128 ? 8 : 4",
            "crypto.getRandomValues()",
        ),
        (
            "matchMedia('(max-width: 600px)').matches ? 8 : 4",
            "matchMedia(",
        ),
        (
            "document.cookie.includes('lang=de') ? 8 : 4",
            "document.cookie",
        ),
        ("screen.width > 1000 ? 4 : 8", "screen.width"),
        (
            "navigator.language === 'en-US' ? 4 : 8",
            "navigator.language",
        ),
        ("location.search ? 8 : 4", "location.search"),
        ("Date.now() % 2 === 0 ? 4 : 8", "the clock (Date.now)"),
    ] {
        let (code, out) = compare_expr_tp4(expr);
        assert_eq!(code, Some(2), "{expr}\n{out}");
        assert!(
            out.contains("depends on the reader's browser"),
            "{expr}\n{out}"
        );
        assert!(out.contains(source), "{expr}\n{out}");
    }
    let repo = Repo::new();
    repo.write(
        "top.jsx",
        "const TP = Math.random() < 0.5 ? 8 : 4;\nexport const Gen = () => <pre>{'sglang serve --model-path m --tp ' + TP}</pre>;\n",
    );
    repo.write(
        "wide.jsx",
        "export const Gen = () => {\n  const [gpu, setGpu] = useState('h100');\n  const wide = typeof window !== 'undefined' && window.innerWidth > 1000;\n  return <div>{wide && <select name=\"gpu\" value={gpu} onChange={(e) => setGpu(e.target.value)}><option value=\"h100\">H100</option><option value=\"b200\">B200</option></select>}<pre>{'sglang serve --model-path m --tp ' + (gpu === 'h100' ? 4 : 8)}</pre></div>;\n};\n",
    );
    for name in ["top.jsx", "wide.jsx"] {
        let o = repo.run_deterministic(&["extract", name, "--all-selections"]);
        o.assert_input_error(&format!("{name}:"), &["depends on the reader's browser"]);
    }
}

/// Reading what differs between browsers without the command depending on
/// it stays quiet (a footer's year, a random element id, the theme from a
/// media query, a layout from the window's width, the user agent, a copy
/// button's check for the clipboard), in `compare` and `--all-selections`.
#[test]
fn adversary_reading_the_readers_browser_is_quiet_when_the_command_does_not_depend_on_it() {
    let repo = Repo::new();
    repo.write(
        "quiet.jsx",
        "export const Gen = () => {\n  const [gpu, setGpu] = useState('h100');\n  const [dark, setDark] = useState(false);\n  const id = useMemo(() => 'c' + Math.random().toString(36).slice(2), []);\n  useEffect(() => { setDark(window.matchMedia('(prefers-color-scheme: dark)').matches); }, []);\n  const narrow = window.innerWidth < 700 || /Mobile/.test(navigator.userAgent);\n  const cmd = 'sglang serve --model-path m --tp ' + (gpu === 'h100' ? 4 : 8);\n  return <div className={(dark ? 'dark' : 'light') + (narrow ? ' narrow' : '')}>\n    <select name=\"gpu\" value={gpu} onChange={(e) => setGpu(e.target.value)}><option value=\"h100\">H100</option><option value=\"b200\">B200</option></select>\n    <pre id={id}>{cmd}</pre>\n    <button onClick={() => navigator.clipboard && navigator.clipboard.writeText(cmd)}>Copy</button>\n    <footer>{'(c) ' + new Date().getFullYear() + ' at ' + performance.now()}</footer>\n  </div>;\n};\n",
    );
    repo.write("r.txt", "sglang serve --model-path m --tp 4\n");
    let o = repo.run_deterministic(&["compare", "quiet.jsx", "r.txt", "--offline"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    let o = repo.run_deterministic(&["extract", "quiet.jsx", "--all-selections"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("2 reachable selections"), "{}", o.both());
}

/// `React.memo(C, arePropsEqual)`: when the comparator says the props are
/// equal, React does not re-render `C` (checked with React 18 and
/// react-test-renderer: the page keeps `--tp 4` after the effect sets 8).
/// recipe-drift ignores the comparator and reads `--tp 8`: against a
/// recipe at `--tp 8`, no drift, while every reader sees `--tp 4`.
#[test]

fn adversary_memo_comparator_skips_the_render() {
    let repo = Repo::new();
    repo.write(
        "gen.jsx",
        "import { memo } from 'react';\nconst Cmd = memo(({ tp }) => <pre>{'sglang serve --model-path m --tp ' + tp}</pre>, () => true);\nexport const Gen = () => { const [tp, setTp] = useState(4); useEffect(() => setTp(8), []); return <Cmd tp={tp} />; };\n",
    );
    for (recipe, code) in [("--tp 4", 0), ("--tp 8", 1)] {
        repo.write("r.txt", format!("sglang serve --model-path m {recipe}\n"));
        let o = repo.run_deterministic(&["compare", "gen.jsx", "r.txt", "--offline"]);
        o.assert_bounded();
        assert_eq!(o.code, Some(code), "{recipe}: {}", o.both());
    }
}

/// React semantics recipe-drift follows (each checked against React 18):
/// `memo` without a comparator re-renders on a changed prop, a context
/// provider's value reaches its consumers, a `key` change remounts,
/// `forwardRef` passes props, a reducer's action and a functional update
/// after an effect take effect.
#[test]
fn adversary_react_semantics_that_hold() {
    for src in [
        "import { memo } from 'react';\nconst Cmd = memo(({ tp }) => <pre>{'sglang serve --model-path m --tp ' + tp}</pre>);\nexport const Gen = () => { const [tp, setTp] = useState(4); useEffect(() => setTp(8), []); return <Cmd tp={tp} />; };\n",
        "import { createContext, useContext } from 'react';\nconst C = createContext(4);\nconst Inner = () => <pre>{'sglang serve --model-path m --tp ' + useContext(C)}</pre>;\nexport const Gen = () => <C.Provider value={8}><Inner /></C.Provider>;\n",
        "export const Gen = () => {\n  const [n, setN] = useState(0);\n  useEffect(() => { setN(1); }, []);\n  return <pre key={n}>{'sglang serve --model-path m --tp ' + (n ? 8 : 4)}</pre>;\n};\n",
        "import { forwardRef } from 'react';\nconst Cmd = forwardRef((props, ref) => <pre ref={ref}>{'sglang serve --model-path m --tp ' + props.tp}</pre>);\nexport const Gen = () => <Cmd tp={8} />;\n",
        "export const Gen = () => {\n  const [s, dispatch] = useReducer((s, a) => a === 'big' ? { tp: 8 } : s, { tp: 4 });\n  useEffect(() => dispatch('big'), []);\n  return <pre>{'sglang serve --model-path m --tp ' + s.tp}</pre>;\n};\n",
        "export const Gen = () => {\n  const [tp, setTp] = useState(() => 4);\n  useEffect(() => { setTp(() => 8); }, [tp]);\n  return <pre>{'sglang serve --model-path m --tp ' + tp}</pre>;\n};\n",
    ] {
        let repo = Repo::new();
        repo.write("gen.jsx", src);
        repo.write("r.txt", "sglang serve --model-path m --tp 8\n");
        let o = repo.run_deterministic(&["compare", "gen.jsx", "r.txt", "--offline"]);
        o.assert_bounded();
        assert_eq!(o.code, Some(0), "{src}\n{}", o.both());
    }
}

/// Effect ordering as React 18 runs it (each component also run with
/// React 18 and react-test-renderer's `act`, which printed the same
/// value): layout before passive effects, children's effects before the
/// parent's, a render-phase update, effects with no dependency list, a
/// child setting its parent's state, a cleanup on unmount, `Object.is`
/// dependencies (NaN equal, a fresh object not).
#[test]
fn adversary_effect_order_matches_react() {
    let body = |b: &str| format!("export const Gen = () => {{\n  {b}\n}};\n");
    let pre = "<pre>{'sglang serve --model-path m --served-model-name tp' + tp}</pre>";
    for (src, want) in [
        (
            body(&format!(
                "const [tp, setTp] = useState(2); useLayoutEffect(() => {{ setTp(8); }}, []); useEffect(() => {{ setTp(4); }}, []); return {pre};"
            )),
            "tp4",
        ),
        (
            body(&format!(
                "const [tp, setTp] = useState(2); useEffect(() => {{ setTp(4); }}, []); useLayoutEffect(() => {{ setTp(8); }}, []); return {pre};"
            )),
            "tp4",
        ),
        (
            body(&format!(
                "const [tp, setTp] = useState(2); if (tp !== 8) setTp(8); return {pre};"
            )),
            "tp8",
        ),
        (
            body(&format!(
                "const [tp, setTp] = useState(1); useEffect(() => {{ setTp(t => t < 8 ? t * 2 : t); }}); return {pre};"
            )),
            "tp8",
        ),
        (
            body(&format!(
                "const [tp, setTp] = useState(2); const C = () => {{ useEffect(() => setTp(8), []); return null; }}; return <div>{pre}{{tp === 2 ? <C /> : null}}</div>;"
            )),
            "tp8",
        ),
        (
            body(&format!(
                "const [tp, setTp] = useState(2); const C = () => {{ useEffect(() => setTp(4), []); return null; }}; useEffect(() => setTp(8), []); return <div>{pre}<C /></div>;"
            )),
            "tp4",
        ),
        (
            body(&format!(
                "const [tp, setTp] = useState(2); const [show, setShow] = useState(true); const C = () => {{ useEffect(() => () => setTp(8), []); return null; }}; useEffect(() => setShow(false), []); return <div>{pre}{{show ? <C /> : null}}</div>;"
            )),
            "tp8",
        ),
        (
            body(
                "const [n, setN] = useState(0); useEffect(() => { setN(x => x + 1); }, [NaN]); const tp = n === 1 ? 8 : 4; return <pre>{'sglang serve --model-path m --served-model-name tp' + tp}</pre>;",
            ),
            "tp8",
        ),
        (
            body(
                "const r = useRef(0); r.current++; const [t, setT] = useState(0); useEffect(() => setT(1), []); const tp = r.current === 2 ? 8 : 4; return <pre>{'sglang serve --model-path m --served-model-name tp' + tp}</pre>;",
            ),
            "tp8",
        ),
        (
            body(
                "const [n, setN] = useState(0); const dep = {}; useEffect(() => { if (n < 3) setN(n + 1); }, [dep]); const tp = n === 3 ? 8 : 4; return <pre>{'sglang serve --model-path m --served-model-name tp' + tp}</pre>;",
            ),
            "tp8",
        ),
    ] {
        let repo = Repo::new();
        repo.write("gen.jsx", &src);
        let o = repo.run_deterministic(&["extract", "gen.jsx"]);
        o.assert_bounded();
        assert_eq!(o.code, Some(0), "{src}\n{}", o.both());
        let name = o
            .stdout
            .lines()
            .skip_while(|l| !l.trim_start().starts_with("--served-model-name"))
            .nth(1)
            .and_then(|l| l.split_whitespace().next())
            .unwrap_or("");
        assert_eq!(name, want, "{src}\n{}", o.both());
    }
}

/// Round 8 (issue 24, class 4): `localStorage` (and `sessionStorage`) keep
/// what the page writes for the rest of the visit: a generator that keeps
/// its pick in storage and reads it back on the next render (a common
/// "remember the selection" shape) shows the `bf16` command after a reader
/// clicks `bf16` (the HTML Storage standard: `getItem` returns the value
/// the last `setItem` stored). recipe-drift's storage drops every write, so
/// the click changes nothing and the `bf16` state is never read: 1
/// reachable selection instead of 2, with no word of it. The same within one
/// effect: `setItem('a', '8')` then `+getItem('a')` is 8 in a browser, 0 here.
#[test]
fn adversary_round8_storage_keeps_what_the_page_wrote() {
    let repo = Repo::new();
    repo.write(
        "remember.jsx",
        "export const Gen = () => {\n  const [, bump] = useState(0);\n  const q = localStorage.getItem('q') || 'fp8';\n  return <div>\n    {['fp8', 'bf16'].map((x) => <label key={x}><input type=\"radio\" name=\"q\" value={x} checked={q === x} onChange={() => { localStorage.setItem('q', x); bump((n) => n + 1); }} />{x}</label>)}\n    <pre>{'sglang serve --model-path m --tp 8' + (q === 'bf16' ? ' --dtype bfloat16' : ' --quantization fp8')}</pre>\n  </div>;\n};\n",
    );
    let o = repo.run_deterministic(&["extract", "remember.jsx", "--all-selections"]);
    o.assert_bounded();
    assert!(
        o.stdout.contains("--dtype bfloat16") || o.code == Some(2),
        "{}",
        o.both()
    );
    repo.write(
        "same-effect.jsx",
        "export const Gen = () => {\n  const [tp, setTp] = useState(2);\n  useEffect(() => { sessionStorage.setItem('a', '8'); setTp(+sessionStorage.getItem('a')); }, []);\n  return <pre>{'sglang serve --model-path m --tp ' + tp}</pre>;\n};\n",
    );
    let o = repo.run_deterministic(&["extract", "same-effect.jsx"]);
    o.assert_bounded();
    assert!(
        !o.stdout.contains("--tp 0") && !o.stdout.lines().any(|l| l.trim() == "0"),
        "{}",
        o.both()
    );
}

/// Round 8 (class 4), generator readings that held against React 18's
/// semantics: `useLayoutEffect`, a state set during render, `useReducer`,
/// timers in due order with microtasks first, an interval cleared by a
/// timer, a cleared timeout, an effect's cleanup before its next run.
#[test]
fn adversary_round8_held_generator_readings() {
    let repo = Repo::new();
    for (body, want) in [
        (
            "const [tp, setTp] = useState(2); useLayoutEffect(() => { setTp(8); }, []);",
            "8",
        ),
        (
            "const [tp, setTp] = useState(2); if (tp === 2) setTp(8);",
            "8",
        ),
        (
            "const [tp, dispatch] = useReducer((s, a) => a, 2); useEffect(() => dispatch(8), []);",
            "8",
        ),
        (
            "const [tp, setTp] = useState(2); useEffect(() => { setTimeout(() => setTp(4), 10); setTimeout(() => setTp(8), 5); }, []);",
            "4",
        ),
        (
            "const [tp, setTp] = useState(2); useEffect(() => { setTimeout(() => setTp(4), 0); Promise.resolve().then(() => setTp(8)); }, []);",
            "4",
        ),
        (
            "const [tp, setTp] = useState(2); useEffect(() => { const id = setInterval(() => setTp((t) => t * 2), 10); setTimeout(() => clearInterval(id), 25); }, []);",
            "8",
        ),
        (
            "const [tp, setTp] = useState(2); useEffect(() => { const t = setTimeout(() => setTp(4), 0); clearTimeout(t); }, []);",
            "2",
        ),
        (
            "const [tp, setTp] = useState(2); useEffect(() => { setTp(4); return () => setTp(8); }, [tp]);",
            "4",
        ),
    ] {
        repo.write(
            "g.jsx",
            format!("export const Gen = () => {{ {body} return <pre>{{'sglang serve --model-path m --tp ' + tp}}</pre>; }};\n"),
        );
        let o = repo.run_deterministic(&["extract", "g.jsx"]);
        o.assert_bounded();
        assert_eq!(o.code, Some(0), "{body}: {}", o.both());
        let tp = o
            .stdout
            .lines()
            .skip_while(|l| l.split_whitespace().next() != Some("--tp"))
            .nth(1)
            .and_then(|l| l.split_whitespace().next())
            .map(str::to_string);
        assert_eq!(tp.as_deref(), Some(want), "{body}: {}", o.both());
    }
}

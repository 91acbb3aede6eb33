//! Generators run as a browser runs them (issue 24, class 4): the microtasks
//! a render's effects or a click's handlers queue (`Promise.then`, `await`,
//! `queueMicrotask`) change the state before a reader sees the command, and
//! timers (`setTimeout`, `setInterval`, `requestAnimationFrame`) run in order
//! under the fixed clock; a chain of either that never ends is an error
//! naming it, never a hang and never a silently stale command. Every
//! generator is written here.

use super::*;

/// A generator whose `useEffect` runs `effect` once (`setTp` in scope) and
/// prints `--tp {tp}`, starting at 2.
fn on_mount(effect: &str) -> String {
    format!(
        "export const Gen = () => {{\n  const [tp, setTp] = useState(2);\n  useEffect(() => {{\n    {effect}\n  }}, []);\n  return <pre>{{'sglang serve --model-path m --tp ' + tp}}</pre>;\n}};\n"
    )
}

/// Exit 0, and stdout holds `want` and not `stale`.
fn reads(o: &Outcome, want: &str, stale: &str) {
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains(want), "expected {want:?}: {}", o.both());
    assert!(!o.stdout.contains(stale), "stale {stale:?}: {}", o.both());
}

/// The values of `flag` in `extract`'s launch listing (a flag's line, then
/// its value's).
fn values_of(stdout: &str, flag: &str) -> Vec<String> {
    let lines: Vec<&str> = stdout.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.split_whitespace().next() == Some(flag)
            && let Some(v) = lines.get(i + 1).and_then(|n| n.split_whitespace().next())
        {
            out.push(v.to_string());
        }
    }
    out
}

/// An effect's microtasks set state before the command is read: the reader
/// sees `--tp 8`, never the pre-microtask `--tp 2`, whether the state comes
/// from a promise reaction, `queueMicrotask`, or an async function after two
/// `await`s, in the initial render (`extract`) and in `--all-selections`.
#[test]
fn an_effects_microtasks_change_the_command_before_it_is_read() {
    let repo = Repo::new();
    for (name, effect) in [
        ("then.jsx", "Promise.resolve().then(() => setTp(8));"),
        ("queue.jsx", "queueMicrotask(() => setTp(8));"),
        (
            "await.jsx",
            "const load = async () => { await null; await Promise.resolve(4); setTp(8); };\n    load();",
        ),
        (
            "chain.jsx",
            "Promise.resolve(1).then((x) => x + 3).then((x) => Promise.resolve(x * 2)).then(setTp);",
        ),
        (
            "async-effect.jsx",
            "(async () => { await 0; setTp((t) => t * 4); })();",
        ),
    ] {
        repo.write(name, on_mount(effect));
        let plain = repo.run_deterministic(&["extract", name]);
        plain.assert_bounded();
        assert_eq!(values_of(&plain.stdout, "--tp"), ["8"], "{}", plain.both());
        let all = repo.run_deterministic(&["extract", name, "--all-selections"]);
        reads(&all, "--tp 8", "--tp 2");
        assert!(
            all.stdout.contains("1 reachable selection"),
            "{}",
            all.both()
        );
    }
}

/// A click whose handler (or the effect its render runs) sets state in a
/// microtask reaches the state a reader sees: each hardware's own `--tp`,
/// in exploration and with `--select`.
#[test]
fn a_clicks_microtasks_settle_before_the_state_is_recorded() {
    let repo = Repo::new();
    repo.write(
        "click.jsx",
        "export const Gen = () => {\n  const [hw, setHw] = useState('h100');\n  const [tp, setTp] = useState(1);\n  const [ep, setEp] = useState(1);\n  const pick = async (h) => { setHw(h); await Promise.resolve(); setTp(h === 'b200' ? 8 : 4); };\n  useEffect(() => { Promise.resolve(hw).then((h) => setEp(h === 'b200' ? 2 : 1)); }, [hw]);\n  return <div>\n    {['h100', 'b200'].map((h) => <label key={h}><input type=\"radio\" name=\"hw\" value={h} checked={hw === h} onChange={() => pick(h)} />{h}</label>)}\n    <pre>{'sglang serve --model-path m --tp ' + tp + ' --ep ' + ep}</pre>\n  </div>;\n};\n",
    );
    let o = repo.run_deterministic(&["extract", "click.jsx", "--all-selections"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    for want in [
        "hw=h100\n  sglang serve --model-path m --tp 1 --ep 1",
        "hw=b200\n  sglang serve --model-path m --tp 8 --ep 2",
        "hw=h100\n  sglang serve --model-path m --tp 4 --ep 1",
    ] {
        assert!(o.stdout.contains(want), "expected {want:?}: {}", o.both());
    }
    // The click's pending state is not the state it settles to.
    assert!(!o.stdout.contains("--tp 1 --ep 2"), "{}", o.both());
    assert!(!o.stdout.contains("--tp 4 --ep 2"), "{}", o.both());
    let sel = repo.run_deterministic(&["extract", "click.jsx", "--select", "hw=b200"]);
    sel.assert_bounded();
    assert_eq!(values_of(&sel.stdout, "--tp"), ["8"], "{}", sel.both());
    assert_eq!(values_of(&sel.stdout, "--ep"), ["2"], "{}", sel.both());
}

/// Timers run in order of when they are due (not when they were set) under
/// the fixed clock, `window.setTimeout` and `requestAnimationFrame` too, and
/// a cleared timer never runs.
#[test]
fn timers_run_in_order_under_the_fixed_clock() {
    let repo = Repo::new();
    for (name, effect, want) in [
        ("zero.jsx", "setTimeout(() => setTp(8), 0);", "--tp 8"),
        (
            "order.jsx",
            "setTimeout(() => setTp(4), 50);\n    setTimeout(() => setTp(8), 10);",
            "--tp 4",
        ),
        (
            "ties.jsx",
            "setTimeout(() => setTp(8), 5);\n    setTimeout(() => setTp(16), 5);",
            "--tp 16",
        ),
        (
            "window.jsx",
            "window.setTimeout((n) => setTp(n), 100, 8);",
            "--tp 8",
        ),
        (
            "frame.jsx",
            "requestAnimationFrame(() => setTp((t) => t + 6));",
            "--tp 8",
        ),
        (
            "cleared.jsx",
            "const t = setTimeout(() => setTp(99), 10);\n    setTimeout(() => setTp(8), 20);\n    clearTimeout(t);",
            "--tp 8",
        ),
        (
            "interval.jsx",
            "const t = setInterval(() => setTp((x) => { if (x >= 8) { clearInterval(t); return x; } return x * 2; }), 1000);",
            "--tp 8",
        ),
        (
            "sleep.jsx",
            "const sleep = (ms) => new Promise((r) => setTimeout(r, ms));\n    (async () => { await sleep(100); setTp(4); await sleep(50); setTp((t) => t * 2); window.requestAnimationFrame(() => setTp((t) => t + 1)); })();",
            "--tp 9",
        ),
        (
            "nested.jsx",
            "setTimeout(() => { Promise.resolve().then(() => setTimeout(() => setTp(8), 1)); }, 1);",
            "--tp 8",
        ),
    ] {
        repo.write(name, on_mount(effect));
        let o = repo.run_deterministic(&["extract", name, "--all-selections"]);
        reads(&o, want, "--tp 2\n");
        assert!(!o.stdout.contains("--tp 99"), "{}", o.both());
        assert!(o.stdout.contains("1 reachable selection"), "{}", o.both());
    }
}

/// A microtask chain that never ends is an error at a fixed count (exit 2,
/// the same bytes every run); one whose steps are slow reaches the time
/// limit instead. Neither hangs.
#[test]
fn a_microtask_loop_that_never_ends_is_an_error() {
    let repo = Repo::new();
    repo.write(
        "spin.jsx",
        on_mount("const spin = () => queueMicrotask(spin);\n    spin();"),
    );
    repo.run_deterministic(&["extract", "spin.jsx"])
        .assert_input_error(
            "spin.jsx:1:14",
            &[
                "rendering <Gen />",
                "Microtasks did not settle: more than 100000 ran in a row",
            ],
        );
    repo.write(
        "then.jsx",
        on_mount("const again = () => Promise.resolve().then(again);\n    again();"),
    );
    repo.run_deterministic(&["extract", "then.jsx", "--all-selections"])
        .assert_input_error("then.jsx:1:14", &["Microtasks did not settle"]);
    // Module code's microtasks run too (before the first render).
    repo.write(
        "module.jsx",
        format!(
            "const spin = () => Promise.resolve().then(spin);\nspin();\n{}",
            on_mount("")
        ),
    );
    repo.run_deterministic(&["extract", "module.jsx"])
        .assert_input_error("module.jsx", &["Microtasks did not settle"]);
    // Slow steps: the time limit, not the count, ends it.
    repo.write(
        "slow.jsx",
        on_mount(
            "const spin = () => { let s = 0; for (let i = 0; i < 200000; i++) s += i; queueMicrotask(spin); };\n    spin();",
        ),
    );
    let o = repo.run(&["extract", "slow.jsx", "--js-time-limit", "400"]);
    o.assert_input_error(
        "slow.jsx:1:14",
        &["did not finish within the time limit (400 ms)"],
    );
    assert!(o.wall.as_secs() < 10, "{}", o.both());
}

/// A timer that sets itself again forever never settles: an error naming
/// it (kind, callback, delay), on mount (exit 2) and on a click (a crash
/// path naming where the timer was set, exit 1).
#[test]
fn a_timer_that_never_settles_is_named() {
    let repo = Repo::new();
    repo.write(
        "tick.jsx",
        on_mount(
            "const id = setInterval(function tick() { setTp((t) => t + 1); }, 1000);\n    return () => clearInterval(id);",
        ),
    );
    repo.run_deterministic(&["extract", "tick.jsx"])
        .assert_input_error(
            "tick.jsx:1:14",
            &[
                "Timers did not settle: setInterval(tick, 1000) still runs after 1000 timer callbacks",
            ],
        );
    repo.write(
        "frames.jsx",
        "export const Gen = () => {\n  const [on, setOn] = useState(false);\n  const go = () => {\n    setOn(true);\n    requestAnimationFrame(function frame() { requestAnimationFrame(frame); });\n  };\n  return <div><input type=\"checkbox\" name=\"on\" checked={on} onChange={go} /><pre>{'sglang serve --model-path m --tp ' + (on ? 2 : 1)}</pre></div>;\n};\n",
    );
    let o = repo.run_deterministic(&["extract", "frames.jsx", "--all-selections"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(1), "{}", o.both());
    for want in [
        "Timers did not settle: requestAnimationFrame(frame, 16)",
        "thrown at frames.jsx:5:",
    ] {
        assert!(o.stdout.contains(want), "expected {want:?}: {}", o.both());
    }
}

/// The clipboard's promise never settles: the code after `await
/// writeText(..)` never runs (a copy button changes no command), while the
/// microtasks before it do. The microtasks of a click that throws are
/// dropped with it: they change no state explored after.
#[test]
fn the_clipboard_never_settles_and_a_crashed_clicks_microtasks_are_dropped() {
    let repo = Repo::new();
    repo.write(
        "copy.jsx",
        "export const Gen = () => {\n  const [tp, setTp] = useState(2);\n  const copy = async () => {\n    await Promise.resolve();\n    setTp(4);\n    await navigator.clipboard.writeText('x');\n    setTp(99);\n    setTimeout(() => setTp(98), 10);\n  };\n  const boom = () => {\n    Promise.resolve().then(() => setTp(97));\n    setTimeout(() => setTp(96), 0);\n    throw new Error('boom');\n  };\n  return <div><button onClick={copy}>Copy</button><button onClick={boom}>Boom</button><pre>{'sglang serve --model-path m --tp ' + tp}</pre></div>;\n};\n",
    );
    let o = repo.run_deterministic(&["extract", "copy.jsx", "--all-selections"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(1), "{}", o.both());
    assert!(o.stdout.contains("--tp 4"), "{}", o.both());
    assert!(o.stdout.contains("Error: boom"), "{}", o.both());
    for stale in ["--tp 99", "--tp 98", "--tp 97", "--tp 96"] {
        assert!(!o.stdout.contains(stale), "{stale}: {}", o.both());
    }
}

/// A copy button that does not wait for the clipboard shows "Copied" and
/// sets a timer that takes it back: once the timer has run, the reader sees
/// the state they clicked in, so the click reaches no new state (it was one
/// while timers never fired: every selection had a "Copied" twin).
#[test]
fn a_copy_buttons_feedback_timer_leads_back_to_the_same_state() {
    let repo = Repo::new();
    repo.write(
        "flash.jsx",
        "export const Gen = () => {\n  const [hw, setHw] = useState('h100');\n  const [copied, setCopied] = useState(false);\n  const command = 'sglang serve --model-path m --tp ' + (hw === 'b200' ? 4 : 8);\n  const copy = () => {\n    navigator.clipboard.writeText(command);\n    setCopied(true);\n    setTimeout(() => setCopied(false), 1200);\n  };\n  return <div>\n    {['h100', 'b200'].map((h) => <label key={h}><input type=\"radio\" name=\"hw\" value={h} checked={hw === h} onChange={() => setHw(h)} />{h}</label>)}\n    <button onClick={copy}>{copied ? 'Copied' : 'Copy'}</button>\n    <pre>{command}</pre>\n  </div>;\n};\n",
    );
    let o = repo.run_deterministic(&["extract", "flash.jsx", "--all-selections"]);
    o.assert_bounded();
    assert_eq!(o.code, Some(0), "{}", o.both());
    assert!(o.stdout.contains("2 reachable selections"), "{}", o.both());
    assert!(!o.stdout.contains("after clicking"), "{}", o.both());
}

/// Issue 24, fresh adversary (class 4): more ways an effect's promise
/// reactions and timers settle the state before a reader sees it, each
/// worked out by the HTML event loop's order (a microtask before any timer;
/// timers by due time; a cleared timer never runs). The reader sees
/// `--tp 8` (or `--tp 4` where the loop's order says so).
#[test]
fn adversary_effect_tasks_settle_in_the_browsers_order() {
    let repo = Repo::new();
    for (i, (effect, want)) in [
        ("new Promise((r) => r()).then(() => setTp(8));", "--tp 8"),
        ("Promise.all([1, 2]).then(() => setTp(8));", "--tp 8"),
        ("Promise.allSettled([Promise.reject(1)]).then(() => setTp(8));", "--tp 8"),
        ("Promise.any([Promise.reject(1), Promise.resolve(8)]).then(setTp);", "--tp 8"),
        ("Promise.reject(1).catch(() => setTp(8));", "--tp 8"),
        ("Promise.resolve().finally(() => setTp(8));", "--tp 8"),
        ("Promise.resolve().then(() => { throw new Error('x'); }).catch(() => setTp(8));", "--tp 8"),
        ("const p = { then(r) { r(8); } }; Promise.resolve(p).then(setTp);", "--tp 8"),
        ("(async () => { for await (const x of [8]) setTp(x); })();", "--tp 8"),
        ("const g = function* () { yield 8; }; setTp(g().next().value);", "--tp 8"),
        ("Promise.race([new Promise((r) => setTimeout(() => r(4), 20)), new Promise((r) => setTimeout(() => r(8), 10))]).then(setTp);", "--tp 8"),
        ("Promise.resolve().then(() => setTimeout(() => setTp(8), 5));", "--tp 8"),
        ("setTimeout(() => Promise.resolve().then(() => setTp(8)), 5);", "--tp 8"),
        ("requestAnimationFrame(() => queueMicrotask(() => setTp(8)));", "--tp 8"),
        ("const id = setTimeout(() => setTp(4), 10); clearTimeout(id); setTimeout(() => setTp(8), 20);", "--tp 8"),
        ("let n = 0; const id = setInterval(() => { n++; if (n === 3) { clearInterval(id); setTp(8); } }, 10);", "--tp 8"),
        ("const sleep = (ms) => new Promise((r) => setTimeout(r, ms)); (async () => { await sleep(100); setTp(8); })();", "--tp 8"),
        ("setTp(4); queueMicrotask(() => setTp((t) => t * 2));", "--tp 8"),
        ("Promise.resolve().then(() => setTp(4)); setTimeout(() => setTp(8), 0);", "--tp 8"),
        // The microtask runs first, the timer last: the reader sees 4.
        ("setTimeout(() => setTp(4), 0); Promise.resolve().then(() => setTp(8));", "--tp 4"),
    ]
    .into_iter()
    .enumerate()
    {
        let name = format!("e{i}.jsx");
        repo.write(&name, on_mount(effect));
        let o = repo.run_deterministic(&["extract", &name, "--all-selections"]);
        let stale = if want == "--tp 8" { "--tp 2" } else { "--tp 8" };
        reads(&o, want, stale);
        assert!(!o.stdout.contains("--tp 2\n"), "{effect}: {}", o.both());
    }
}

/// A layout effect runs before the browser paints: its state is the first
/// the reader sees.
#[test]
fn adversary_layout_effect_state_is_read() {
    let repo = Repo::new();
    repo.write(
        "l.jsx",
        "export const Gen = () => {\n  const [tp, setTp] = useState(2);\n  useLayoutEffect(() => { setTp(8); }, []);\n  return <pre>{'sglang serve --model-path m --tp ' + tp}</pre>;\n};\n",
    );
    let o = repo.run_deterministic(&["extract", "l.jsx"]);
    o.assert_bounded();
    assert_eq!(values_of(&o.stdout, "--tp"), ["8"], "{}", o.both());
}

/// An interval that keeps running after the state settles (a clock, a
/// poll): an error naming it, never a hang or a stale command.
#[test]
fn adversary_an_interval_that_outlives_the_state_is_named() {
    let repo = Repo::new();
    repo.write(
        "i.jsx",
        on_mount("const id = setInterval(() => setTp((t) => (t < 8 ? t * 2 : t)), 10); return () => clearInterval(id);"),
    );
    let o = repo.run_deterministic(&["extract", "i.jsx"]);
    o.assert_input_error("i.jsx:", &["setInterval"]);
}

/// A listener on the page's `load` / `DOMContentLoaded` event changes the
/// state when the page is opened directly (the event comes after React's
/// first effects) and not after a client-side navigation: the state is
/// uncertain and must say so (a warning or error naming the event), never be
/// the pre-event `--tp 2` read silently.
#[test]

fn adversary_a_page_load_listener_is_not_silently_ignored() {
    let repo = Repo::new();
    for (name, effect) in [
        (
            "load.jsx",
            "window.addEventListener('load', () => setTp(8));",
        ),
        (
            "dom.jsx",
            "document.addEventListener('DOMContentLoaded', () => setTp(8));",
        ),
    ] {
        repo.write(name, on_mount(effect));
        let o = repo.run_deterministic(&["extract", name]);
        o.assert_bounded();
        let silent_stale = o.code == Some(0)
            && values_of(&o.stdout, "--tp") == ["2"]
            && !o.both().contains("load")
            && !o.both().contains("DOMContentLoaded");
        assert!(!silent_stale, "{effect}: {}", o.both());
    }
}

/// More of the page's own events: `window.onload =`, `pageshow`,
/// `readystatechange` setting state are errors naming the event; a `load`
/// listener that changes no state (a log, removed on cleanup) is quiet.
#[test]
fn adversary_page_events_are_named_and_harmless_listeners_quiet() {
    let repo = Repo::new();
    for (name, effect, event) in [
        ("onload.jsx", "window.onload = () => setTp(8);", "load"),
        (
            "show.jsx",
            "window.addEventListener('pageshow', () => setTp(8));",
            "pageshow",
        ),
        (
            "ready.jsx",
            "document.addEventListener('readystatechange', () => setTp(8));",
            "readystatechange",
        ),
    ] {
        repo.write(name, on_mount(effect));
        let o = repo.run_deterministic(&["extract", name]);
        o.assert_input_error(&format!("{name}:"), &[&format!("`{event}` listener")]);
    }
    repo.write(
        "quiet.jsx",
        on_mount("const f = () => console.log('loaded'); window.addEventListener('load', f); return () => window.removeEventListener('load', f);"),
    );
    let o = repo.run_deterministic(&["extract", "quiet.jsx", "--all-selections"]);
    reads(&o, "--tp 2", "--tp 8");
}

/// Adversary round 5b (class 4): events a generator dispatches to itself
/// run in a browser: `window.dispatchEvent(new Event('resize'))` calls the
/// listener at once, `window.postMessage` queues a task that delivers a
/// `message` event, and appending to `document.body` queues a
/// `MutationObserver` record. Each sets `--tp 8`; recipe-drift reads the
/// pre-event `--tp 2` with no word about the event (the listener is never
/// called). The state must be the browser's, or an error or warning naming
/// what was not run.
#[test]
fn adversary_events_the_generator_dispatches_are_not_silently_dropped() {
    let repo = Repo::new();
    for (name, effect, word) in [
        (
            "dispatch.jsx",
            "window.addEventListener('resize', () => setTp(8)); window.dispatchEvent(new Event('resize'));",
            "resize",
        ),
        (
            "post.jsx",
            "window.addEventListener('message', () => setTp(8)); window.postMessage('x', '*');",
            "message",
        ),
        (
            "mutation.jsx",
            "new MutationObserver(() => setTp(8)).observe(document.body, {childList: true}); document.body.appendChild(document.createElement('div'));",
            "MutationObserver",
        ),
    ] {
        repo.write(name, on_mount(effect));
        let o = repo.run_deterministic(&["extract", name]);
        o.assert_bounded();
        let silent_stale =
            o.code == Some(0) && values_of(&o.stdout, "--tp") == ["2"] && !o.both().contains(word);
        assert!(!silent_stale, "{effect}: {}", o.both());
    }
}

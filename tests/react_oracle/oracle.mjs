// The React oracle of recipe-drift's differential test (see CONTRACT.md, the spec).
//
//   node oracle.mjs BUNDLE.js [--max-states N]
//
// Evaluates a recipe-drift bundle against REAL React 18 (react-test-renderer), explores every
// state reachable by clicking, breadth-first, and prints the JSON of CONTRACT.md on stdout.
// On any error it prints {"error": "..."} and exits 1.
//
// bench.mjs imports loadTargets/explore from here; main() only runs when this file is the
// entry point.

import fs from 'node:fs';
import vm from 'node:vm';
import { pathToFileURL } from 'node:url';
import React from 'react';
import TestRenderer from 'react-test-renderer';

const { act, create } = TestRenderer;

// Tell React that updates are wrapped in act() (silences its "not configured" warning).
globalThis.IS_REACT_ACT_ENVIRONMENT = true;

/** Default cap on states per target: exceeding it is an error, not a truncation. */
export const DEFAULT_MAX_STATES = 100000;

/** Effect runs allowed inside one act() before we call the updates "not settling". React
 * itself throws on render loops and on layout-effect loops, but an effect that sets state on
 * every run would make act() spin forever. */
const MAX_EFFECT_RUNS_PER_ACT = 10000;

/** Timer callbacks allowed in one settle (react.js's MAX_TIMER_RUNS): past it the timers
 * never settle, an error naming the timer due next. */
const MAX_TIMER_RUNS = 1000;

/** The prelude's timers (`__rd_tasks`, taken from the bundle's context by loadTargets): run in
 * order under the fixed clock, each in an act() of its own, when nothing else is pending. */
let tasks = null;

// ---------------------------------------------------------------------------------------------
// Console: silenced while evaluating and rendering (React's dev warnings, the bundle's logs).
// Our only output goes through process.stdout.write, so we silence it for the whole run.

export function silenceConsole() {
  for (const m of ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir', 'table']) {
    console[m] = () => {};
  }
}

// ---------------------------------------------------------------------------------------------
// The bundle's globals (CONTRACT.md, "The bundle").

/** Inert stand-ins. `inert` is a function: reading any of its properties gives `inert` again,
 * writing one is ignored, calling it does nothing and returns null, `new` gives `inert`. It is
 * not a thenable (`then` is undefined), has no other symbol-keyed properties, and converts to
 * "" as a primitive. `inertObject` (document, window, navigator, localStorage, console) is an
 * object whose every property is `inert`. So `localStorage.getItem(k)` is null,
 * `document.documentElement.getAttribute(a)` is null, `new MutationObserver(cb).observe(...)`
 * does nothing, `typeof window` is "object". */
const inertHandler = {
  get(_target, prop) {
    if (prop === Symbol.toPrimitive) return () => '';
    if (typeof prop === 'symbol' || prop === 'then') return undefined;
    return inert;
  },
  set: () => true,
  apply: () => null,
  construct: () => inert,
};
const inert = new Proxy(function inert() {}, inertHandler);
const inertObject = new Proxy({}, inertHandler);

/** URLSearchParams stand-in: always empty, whatever it is built from. */
class InertURLSearchParams {
  constructor(_init) {}
  get size() { return 0; }
  get() { return null; }
  getAll() { return []; }
  has() { return false; }
  append() {}
  set() {}
  delete() {}
  sort() {}
  forEach() {}
  toString() { return ''; }
  keys() { return [][Symbol.iterator](); }
  values() { return [][Symbol.iterator](); }
  entries() { return [][Symbol.iterator](); }
  [Symbol.iterator]() { return [][Symbol.iterator](); }
}

let effectRuns = 0;

/** Wraps useEffect/useLayoutEffect to count effect runs (see MAX_EFFECT_RUNS_PER_ACT). The
 * effect itself and its cleanup are passed through unchanged. */
function guardEffectHook(hook) {
  return (effect, deps) =>
    hook(() => {
      if (++effectRuns > MAX_EFFECT_RUNS_PER_ACT) {
        throw new Error(`updates do not settle (more than ${MAX_EFFECT_RUNS_PER_ACT} effect runs in one update)`);
      }
      return effect();
    }, deps);
}

/** The globals of CONTRACT.md: React and its hooks (real React 18; the two effect hooks are
 * guarded), inert stand-ins. Nothing else: the bundle runs in its own vm context, so Node's
 * globals (process, require, queueMicrotask, fetch, ...) are absent, as they are in QuickJS.
 * The prelude replaces the timers below with its own (run by `settle`) and adds
 * queueMicrotask. Promise reactions share Node's microtask queue: `await act(async ...)`
 * drains it. */
function bundleGlobals() {
  const hooks = {
    useState: React.useState,
    useEffect: guardEffectHook(React.useEffect),
    useLayoutEffect: guardEffectHook(React.useLayoutEffect),
    useMemo: React.useMemo,
    useCallback: React.useCallback,
    useRef: React.useRef,
    useReducer: React.useReducer,
  };
  return {
    React: { ...React, ...hooks }, // React.useEffect is the same guarded hook
    ...hooks,
    document: inertObject,
    window: inertObject,
    navigator: inertObject,
    localStorage: inertObject,
    console: inertObject,
    MutationObserver: inert,
    URLSearchParams: InertURLSearchParams,
    setTimeout: () => 0, // replaced by the prelude's timers
    clearTimeout: () => {},
    setInterval: () => 0,
    clearInterval: () => {},
  };
}

/** Evaluates the bundle (a plain script) and returns `globalThis.__rd_targets`. */
export function loadTargets(bundlePath) {
  const source = fs.readFileSync(bundlePath, 'utf8');
  const context = vm.createContext(bundleGlobals());
  // The browser stand-ins are recipe-drift's own prelude, so both sides see the same world.
  const prelude = new URL('../../src/extract/jsx/prelude.js', import.meta.url);
  vm.runInContext(fs.readFileSync(prelude, 'utf8'), context, { filename: prelude.pathname });
  tasks = context.__rd_tasks ?? null;
  delete context.__rd_tasks;
  vm.runInContext(source, context, { filename: bundlePath });
  const targets = context.__rd_targets;
  if (!Array.isArray(targets)) throw new Error('the bundle did not set globalThis.__rd_targets to an array');
  for (const t of targets) {
    if (!t || typeof t.name !== 'string' || !React.isValidElement(t.element)) {
      throw new Error('each of __rd_targets must be {name: string, element: React element}');
    }
  }
  return targets;
}

// ---------------------------------------------------------------------------------------------
// Reading a rendered tree (toJSON() shape: {type, props, children} nodes and strings).

/** The toJSON() result as a list of root nodes (it is null, one node, or an array). */
const roots = (json) => (json === null ? [] : Array.isArray(json) ? json : [json]);

/** All descendant strings of a node, concatenated in document order. */
function textOf(node) {
  if (typeof node === 'string') return node;
  return (node.children ?? []).map(textOf).join('');
}

/** Elements that are boxes of their own, as `innerText` reads them (CONTRACT.md). */
const BLOCK_TAGS = new Set(['address', 'article', 'aside', 'blockquote', 'br', 'dd', 'details', 'div',
  'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5',
  'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'td',
  'th', 'tr', 'ul']);
const LABEL_SKIPS = new Set(['select', 'input', 'textarea', 'option', 'button']);

/** The `display` of a node's style object, lower-cased, or null. */
const displayOf = (node) => {
  const d = node.props?.style?.display;
  return d == null || d === '' ? null : String(d).trim().toLowerCase();
};

/** A label's name as a reader reads it (CONTRACT.md): its text without the controls in it and
 * without hidden elements, each element that is a box of its own set apart by blanks, blanks
 * collapsed. */
function labelNameOf(label) {
  const go = (node) => {
    if (typeof node === 'string') return node;
    if (LABEL_SKIPS.has(node.type) || node.props?.hidden || displayOf(node) === 'none') return '';
    const s = (node.children ?? []).map(go).join('');
    const display = displayOf(node);
    const box = display !== null ? !/^(inline|contents)\b/.test(display) || /^inline-(block|flex|grid)$/.test(display) : BLOCK_TAGS.has(node.type);
    return node !== label && box ? ` ${s} ` : s;
  };
  return go(label).replace(/\s+/g, ' ').trim();
}

/** Descendant `option` nodes of a node, in document order. */
function optionsOf(node, out = []) {
  for (const child of node.children ?? []) {
    if (typeof child === 'string') continue;
    if (child.type === 'option') out.push(child);
    else optionsOf(child, out);
  }
  return out;
}

/** A control's key: its name, else its id, else "" (as a string). */
const keyOf = (p) => String(p.name ?? p.id ?? '');

/** Classifies a host node as a control (CONTRACT.md), or returns null. `props` are kept: they
 * are a shallow copy of the committed host instance props, so their handlers are the live
 * ones (the same functions renderer.root.findAll(...) would give). */
function controlOf(node, label) {
  const p = node.props;
  if (node.type === 'input') {
    if (p.type === 'radio') {
      return { kind: 'radio', key: keyOf(p), value: String(p.value), checked: !!p.checked, disabled: !!p.disabled, props: p };
    }
    if (p.type === 'checkbox') {
      // Without a name or id: named by its value, else by the name of the label around it.
      const key = p.name != null || p.id != null ? keyOf(p) : p.value != null ? String(p.value) : label ? labelNameOf(label) : '';
      return { kind: 'checkbox', key, value: p.checked ? 'true' : 'false', checked: !!p.checked, disabled: !!p.disabled, props: p };
    }
    if (p.type === 'text' || p.type == null) {
      return { kind: 'text', key: keyOf(p), value: String(p.value ?? ''), props: p };
    }
    return null;
  }
  if (node.type === 'select') {
    const options = optionsOf(node).map((o) => ({
      value: o.props.value != null ? String(o.props.value) : textOf(o),
      disabled: !!o.props.disabled,
    }));
    return { kind: 'select', key: keyOf(p), value: String(p.value), disabled: !!p.disabled, options, props: p };
  }
  if (node.type !== 'option' && typeof p.onClick === 'function') {
    const key = p.name != null || p.id != null ? keyOf(p) : textOf(node).trim();
    return { kind: 'button', key, value: 'click', disabled: !!p.disabled, props: p };
  }
  return null;
}

/** One pre-order walk: the controls, and the texts of `pre` and of `code` elements. */
function scan(json) {
  const out = { controls: [], pre: [], code: [] };
  const walk = (node, label) => {
    if (typeof node === 'string') return;
    const control = controlOf(node, label);
    if (control) out.controls.push(control);
    if (node.type === 'pre') out.pre.push(textOf(node));
    if (node.type === 'code') out.code.push(textOf(node));
    const inner = node.type === 'label' ? node : label;
    (node.children ?? []).forEach((c) => walk(c, inner));
  };
  roots(json).forEach((n) => walk(n, null));
  return out;
}

/** Selection: one [key, value] per key, in order of first appearance; a radio group gives its
 * (first) checked radio's value and is omitted when none is checked; other controls give the
 * value of the first control with that key. */
function selectionOf(controls) {
  const NONE = Symbol('none');
  const values = new Map();
  for (const c of controls) {
    if (c.kind === 'button') continue;
    if (!values.has(c.key)) values.set(c.key, NONE);
    if (values.get(c.key) === NONE && (c.kind !== 'radio' || c.checked)) values.set(c.key, c.value);
  }
  return [...values].filter(([, v]) => v !== NONE);
}

/** Commands: the texts of the `pre` elements, else of the `code` elements. */
const commandsOf = (s) => (s.pre.length ? s.pre : s.code);

/** Actions of a state, in order: [index, value] with value the radio's value, the checkbox's
 * new value ("true"/"false"), or the select option's value. */
function actionsOf(controls) {
  const actions = [];
  controls.forEach((c, i) => {
    if (c.kind === 'radio' && !c.checked && !c.disabled) actions.push([i, c.value]);
    if (c.kind === 'checkbox' && !c.disabled) actions.push([i, c.checked ? 'false' : 'true']);
    if (c.kind === 'button' && !c.disabled) actions.push([i, 'click']);
    if (c.kind === 'select' && !c.disabled) {
      for (const o of c.options) if (!o.disabled && o.value !== c.value) actions.push([i, o.value]);
    }
  });
  return actions;
}

/** State key: canonical JSON of the tree (object keys sorted; functions and undefined dropped
 * from objects, as JSON.stringify does; in arrays JSON.stringify would write null). */
const stateKey = (json) =>
  JSON.stringify(json, (_k, v) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]]))
      : v,
  );

// ---------------------------------------------------------------------------------------------
// Rendering and clicking.

/** Runs fn inside one async act(): every update, effect and microtask it causes has settled
 * on return (act flushes again after each macrotask turn until no work is left); then the
 * timers, due first first, each in an act() of its own, as a browser gives each a task. */
async function settle(fn) {
  effectRuns = 0;
  await act(async () => {
    fn();
  });
  let runs = 0;
  while (tasks !== null && tasks.pending() > 0) {
    if (++runs > MAX_TIMER_RUNS) {
      throw new Error(`Timers did not settle: ${tasks.next().name} still runs after ${MAX_TIMER_RUNS} timer callbacks in one update`);
    }
    effectRuns = 0;
    await act(async () => {
      tasks.run();
    });
  }
}

/** Mounts a fresh copy of the element in a concurrent root (like React 18's createRoot). */
async function mount(element) {
  let renderer;
  await settle(() => {
    renderer = create(element, { unstable_isConcurrent: true });
  });
  return renderer;
}

/** Applies action [index, value] to the renderer's current state (CONTRACT.md, "Clicking").
 * Checks that the action is one the control offers: a replay that diverges is an error. */
async function click(renderer, [index, value]) {
  const c = scan(renderer.toJSON()).controls[index];
  const ok =
    (c?.kind === 'radio' && c.value === value) ||
    (c?.kind === 'checkbox' && value === (c.checked ? 'false' : 'true')) ||
    (c?.kind === 'select' && c.options.some((o) => o.value === value)) ||
    (c?.kind === 'button' && value === 'click');
  if (!ok) throw new Error(`replay diverged: action ${JSON.stringify([index, value])} does not apply (is rendering deterministic?)`);
  const { name, id, type } = c.props;
  if (c.kind === 'button') {
    const target = { name, id, type: type != null ? String(type) : 'button', value: c.props.value != null ? String(c.props.value) : '' };
    const event = { type: 'click', target, currentTarget: target, preventDefault() {}, stopPropagation() {}, persist() {} };
    await settle(() => {
      c.props.onClick(event); // its result (a promise of an async handler) is ignored, as a browser does
    });
    return;
  }
  const target =
    c.kind === 'select'
      ? { name, id, type: 'select-one', value }
      : { name, id, type, value: c.kind === 'radio' ? c.value : String(c.props.value ?? 'on'), checked: c.kind === 'radio' ? true : !c.checked };
  const event = { type: 'change', target, currentTarget: target, preventDefault() {}, stopPropagation() {}, persist() {} };
  await settle(() => {
    if (c.kind !== 'select') c.props.onClick?.(event);
    c.props.onChange?.(event);
  });
}

async function unmount(renderer) {
  await settle(() => renderer.unmount());
}

/** Breadth-first exploration of one target (CONTRACT.md). Returns the states in discovery
 * order as {path, selection, commands}. */
export async function explore(element, maxStates = DEFAULT_MAX_STATES, crashes = []) {
  const states = [];
  const seen = new Set();
  let path = [];
  // Records the renderer's state under `path` if its key is new.
  const record = (renderer) => {
    const json = renderer.toJSON();
    const key = stateKey(json);
    if (seen.has(key)) return;
    if (states.length >= maxStates) throw new Error(`more than ${maxStates} states`);
    seen.add(key);
    const s = scan(json);
    states.push({ path, key, selection: selectionOf(s.controls), commands: commandsOf(s), actions: actionsOf(s.controls) });
  };
  try {
    const first = await mount(element);
    record(first);
    await unmount(first);
    for (let i = 0; i < states.length; i++) {
      for (const action of states[i].actions) {
        path = [...states[i].path, action];
        const renderer = await mount(element);
        for (const step of states[i].path) await click(renderer, step);
        // Replaying must reproduce the state: otherwise rendering is not deterministic
        // (Math.random, Date, state kept between mounts) and the output would not be either.
        if (stateKey(renderer.toJSON()) !== states[i].key) {
          throw new Error('replaying the path gave a different state: rendering is not deterministic');
        }
        // A click on which the component throws is a crash path: recorded, and the
        // exploration goes on (React unmounts the root; nothing is recorded as a state).
        try {
          await click(renderer, action);
        } catch (e) {
          crashes.push({ path, error: messageOf(e) });
          tasks?.clear(); // the crashed click's timers
          try { await unmount(renderer); } catch { /* already torn down */ }
          continue;
        }
        record(renderer);
        await unmount(renderer);
      }
    }
  } catch (e) {
    const where = path.length <= 8 ? JSON.stringify(path) : `of ${path.length} clicks ending ${JSON.stringify(path.slice(-3))}`;
    throw annotate(e, `at path ${where}`);
  }
  return states.map(({ path, selection, commands }) => ({ path, selection, commands }));
}

/** Explores every target; errors carry the target's name. */
export async function exploreAll(targets, maxStates) {
  const out = [];
  for (const { name, element } of targets) {
    try {
      const crashes = [];
      const states = await explore(element, maxStates, crashes);
      out.push({ name, states, crashes });
    } catch (e) {
      throw annotate(e, `target ${JSON.stringify(name)}`);
    }
  }
  return out;
}

/** The message of anything thrown (the bundle may throw non-Errors). */
const messageOf = (e) => (e !== null && typeof e === 'object' && 'message' in e ? String(e.message) : String(e));

/** A new Error whose message is `prefix: <message of e>`. */
export const annotate = (e, prefix) => new Error(`${prefix}: ${messageOf(e)}`);

/** Prints {"error": ...} and exits 1. */
export function fail(e) {
  process.stdout.write(JSON.stringify({ error: messageOf(e) }) + '\n');
  process.exit(1);
}

async function main(argv) {
  let bundle;
  let maxStates = DEFAULT_MAX_STATES;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--max-states') maxStates = Number(argv[++i]);
    else if (bundle === undefined) bundle = argv[i];
    else throw new Error(`unexpected argument ${argv[i]}`);
  }
  if (bundle === undefined || !(maxStates > 0)) {
    throw new Error('usage: node oracle.mjs BUNDLE.js [--max-states N]');
  }
  silenceConsole();
  const targets = await exploreAll(loadTargets(bundle), maxStates);
  process.stdout.write(JSON.stringify({ targets }) + '\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch(fail);
}

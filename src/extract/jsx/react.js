// Headless React for recipe-drift: renders function components into a plain
// host-element tree, with the hooks cookbook generators use, and explores the
// states a reader reaches by clicking (see tests/react_oracle/CONTRACT.md).
// Runs inside QuickJS with no I/O. Semantics follow React 18: batched updates
// per event, eager bail-out of no-op state updates, passive effects after
// commit (children before parents, cleanups before creates), re-render until
// stable.
(function (G) {
  'use strict';

  // The bytes the JS heap holds (the sandbox's, taken from the global it
  // sets before this file runs; no generator code sees it).
  var heapUsed = typeof G.__rd_heap === 'function' ? G.__rd_heap : function () { return 0; };
  delete G.__rd_heap;

  // The engine's microtask queue (`__rd_jobs(max)`, the sandbox's: runs the
  // pending jobs, see sandbox.rs) and the prelude's timers (`__rd_tasks`),
  // taken the same way: no generator code sees them.
  var runJobs = typeof G.__rd_jobs === 'function' ? G.__rd_jobs : null;
  delete G.__rd_jobs;
  // Whether an element renders its content (`__rd_element_hides(name,
  // attrs)`, the sandbox's: the model pages are read with too,
  // src/extract/visibility.rs): null when it does, else what hides it. Its
  // attributes are the DOM's (strings; `hidden`, `open`, `popover`,
  // `style`, `class`). Without the sandbox (a test in node), the elements
  // that render nothing and the `hidden` attribute.
  var elementHides = typeof G.__rd_element_hides === 'function' ? G.__rd_element_hides : function (name, attrs) {
    return { template: 1, datalist: 1, noscript: 1, script: 1, style: 1, rp: 1 }[name] === 1 || attrs.hidden !== undefined ? name : null;
  };
  delete G.__rd_element_hides;
  var tasks = G.__rd_tasks;
  delete G.__rd_tasks;

  var ELEMENT = Symbol.for('react.element');
  var FRAGMENT = Symbol.for('react.fragment');
  var PROVIDER = Symbol.for('react.provider');
  var MAX_PASSES = 50;
  var MAX_RENDER_PHASE = 25;
  // The most microtasks one drain runs (sandbox.rs's MAX_JOBS) and timer
  // callbacks one update runs: past them the update never settles.
  var MAX_JOBS = 100000;
  var MAX_TIMER_RUNS = 1000;

  // ---- elements -----------------------------------------------------------

  function createElement(type, config) {
    var props;
    var key = null;
    var ref = null;
    if (config == null) props = {};
    else if (!('key' in config || 'ref' in config || '__self' in config || '__source' in config)) {
      // Its own enumerable keys, in for-in order, copied natively (the
      // common case: none of the four names React reserves).
      props = Object.assign({}, config);
    } else {
      props = {};
      // Its own enumerable keys, in for-in order (as a hasOwnProperty filter
      // of for-in gives them).
      var ks = Object.keys(config);
      for (var i = 0; i < ks.length; i++) {
        var k = ks[i];
        if (k === 'key') key = config.key === undefined ? null : '' + config.key;
        else if (k === 'ref') ref = config.ref === undefined ? null : config.ref;
        else if (k !== 'ref' && k !== '__self' && k !== '__source') props[k] = config[k];
      }
    }
    var n = arguments.length - 2;
    if (n === 1) props.children = arguments[2];
    else if (n > 1) props.children = Array.prototype.slice.call(arguments, 2);
    if (type && type.defaultProps) {
      for (var d in type.defaultProps) if (props[d] === undefined) props[d] = type.defaultProps[d];
    }
    return { $$typeof: ELEMENT, type: type, key: key, ref: ref, props: props };
  }

  function isElement(x) {
    return typeof x === 'object' && x !== null && x.$$typeof === ELEMENT;
  }

  function createContext(defaultValue) {
    var ctx = { _default: defaultValue };
    ctx.Provider = { $$provider: PROVIDER, _context: ctx };
    ctx.Consumer = function (props) { return props.children(useContext(ctx)); };
    return ctx;
  }

  // ---- fibers and hooks -----------------------------------------------------

  var rendering = null; // the fiber whose function is running
  var hookIndex = 0;
  var root = null; // the root being worked on

  function Fiber(type, key, parent) {
    this.type = type;
    this.key = key;
    this.parent = parent;
    this.element = null;
    this.text = null;
    this.hooks = [];
    this.children = [];
    this.dirty = false;
    this.renderPhaseUpdate = false;
    this.mounted = false;
    this.root = parent ? parent.root : null;
  }

  function depsChanged(prev, next) {
    if (prev == null || next == null) return true;
    if (prev.length !== next.length) return true;
    for (var i = 0; i < prev.length; i++) if (!Object.is(prev[i], next[i])) return true;
    return false;
  }

  function currentHook(make) {
    var f = rendering;
    if (!f) throw new Error('Invalid hook call: hooks can only be called inside a function component');
    var i = hookIndex++;
    if (i >= f.hooks.length) {
      if (f.mounted) throw new Error('Rendered more hooks than during the previous render');
      f.hooks.push(make());
    }
    return f.hooks[i];
  }

  function hasPendingUpdates(fiber) {
    for (var i = 0; i < fiber.hooks.length; i++) {
      var q = fiber.hooks[i].queue;
      if (q && q.length) return true;
    }
    return false;
  }

  function basicReducer(state, action) {
    return typeof action === 'function' ? action(state) : action;
  }

  function makeDispatch(fiber, hook) {
    return function dispatch(action) {
      if (fiber.unmounted || discarding) return;
      if (rendering === fiber) {
        hook.queue.push({ action: action, eager: false });
        fiber.renderPhaseUpdate = true;
        return;
      }
      if (!fiber.dirty && !hasPendingUpdates(fiber)) {
        // React computes the next state eagerly and drops a no-op update.
        var eager = hook.reducer(hook.state, action);
        if (Object.is(eager, hook.state)) return;
        hook.queue.push({ action: action, eager: true, value: eager });
      } else {
        hook.queue.push({ action: action, eager: false });
      }
      fiber.dirty = true;
      if (fiber.root) fiber.root.scheduled = true;
    };
  }

  function processQueue(hook) {
    var changed = false;
    while (hook.queue.length) {
      var u = hook.queue.shift();
      var next = u.eager ? u.value : hook.reducer(hook.state, u.action);
      if (!Object.is(next, hook.state)) changed = true;
      hook.state = next;
    }
    return changed;
  }

  function useReducer(reducer, initialArg, init) {
    var fiber = rendering;
    var hook = currentHook(function () {
      var h = { queue: [], reducer: reducer };
      h.state = init !== undefined ? init(initialArg) : initialArg;
      h.dispatch = makeDispatch(fiber, h);
      return h;
    });
    hook.reducer = reducer;
    return [hook.state, hook.dispatch];
  }

  function useState(initial) {
    var fiber = rendering;
    var hook = currentHook(function () {
      var h = { queue: [], reducer: basicReducer };
      h.state = typeof initial === 'function' ? initial() : initial;
      h.dispatch = makeDispatch(fiber, h);
      return h;
    });
    return [hook.state, hook.dispatch];
  }

  function effectHook(layout) {
    return function (create, deps) {
      var fiber = rendering;
      var hook = currentHook(function () {
        return { effect: true, layout: layout, deps: undefined, cleanup: undefined, pending: null, fresh: true };
      });
      if (hook.fresh || deps == null || depsChanged(hook.deps, deps)) {
        hook.pending = create;
        hook.deps = deps;
      }
      // This render's effect, run or not (the explorer runs a state's
      // effects to learn that they change nothing there).
      hook.create = create;
      hook.fresh = false;
      void fiber;
    };
  }

  function useMemo(compute, deps) {
    var hook = currentHook(function () { return { memo: true, deps: undefined, value: undefined, fresh: true }; });
    if (hook.fresh || deps == null || depsChanged(hook.deps, deps)) {
      hook.value = compute();
      hook.deps = deps;
      hook.fresh = false;
    }
    return hook.value;
  }

  function useCallback(fn, deps) {
    return useMemo(function () { return fn; }, deps);
  }

  function useRef(initial) {
    return currentHook(function () { return { current: initial }; });
  }

  // What a component gives its parent's ref: set as a layout effect sets it.
  function useImperativeHandle(ref, create, deps) {
    effectHook(true)(function () {
      if (ref == null) return undefined;
      setRef(ref, create());
      return function () { setRef(ref, null); };
    }, deps == null ? deps : deps.concat([ref]));
  }

  function useContext(ctx) {
    for (var f = rendering; f; f = f.parent) {
      if (f.type && f.type.$$provider === PROVIDER && f.type._context === ctx) {
        return f.element.props.value;
      }
    }
    return ctx._default;
  }

  function useId() {
    var hook = currentHook(function () { return { id: ':r' + (root.nextId++).toString(32) + ':' }; });
    return hook.id;
  }

  // ---- rendering ------------------------------------------------------------

  // Flattens children into `out` as slot key, child, slot key, child, ...
  // (React matches keyed children by key and the others by position, scoped
  // per array).
  var INDEX_SLOTS = [];
  for (var si = 0; si < 64; si++) INDEX_SLOTS.push(String(si));
  function flatten(children, prefix, out) {
    if (children == null || typeof children === 'boolean') return out;
    if (Array.isArray(children)) {
      for (var i = 0; i < children.length; i++) {
        var c = children[i];
        var slot = typeof c === 'object' && c !== null && c.$$typeof === ELEMENT && c.key != null ? prefix + 'k' + c.key : prefix === '' && i < INDEX_SLOTS.length ? INDEX_SLOTS[i] : prefix + i;
        if (Array.isArray(c)) flatten(c, slot + '/', out);
        else if (c != null && typeof c !== 'boolean') out.push(slot, c);
      }
      return out;
    }
    var s = isElement(children) && children.key != null ? prefix + 'k' + children.key : prefix === '' ? '0' : prefix + '0';
    out.push(s, children);
    return out;
  }

  function kindOf(child) {
    if (typeof child === 'string' || typeof child === 'number' || typeof child === 'bigint') return '#text';
    if (isElement(child)) return child.type;
    if (typeof child === 'object' && typeof child.then === 'function') {
      throw new Error('Objects are not valid as a React child (found: a Promise)');
    }
    if (typeof child === 'function') return '#nothing';
    throw new Error('Objects are not valid as a React child (found: object with keys {' + Object.keys(child).join(', ') + '})');
  }

  function reconcile(fiber, children) {
    // Two common cases, as the general path below would do them: nothing
    // where there was nothing, and one text where there was one.
    var olds = fiber.children;
    if (olds.length === 0 && (children == null || typeof children === 'boolean')) {
      fiber.children = [];
      return;
    }
    if ((typeof children === 'string' || typeof children === 'number') && olds.length === 1 && olds[0].key === '0' && olds[0].type === '#text') {
      olds[0].text = '' + children;
      fiber.children = [olds[0]];
      return;
    }
    var flat = flatten(children, '', []);
    // As React does: match old and new children by position while their
    // slots and kinds agree, then the rest by slot (a later duplicate slot
    // wins), and unmount what is left in the old children's order.
    var at = 0; // the old children matched by position so far
    var rest = null; // the others by slot, from the first mismatch on
    var next = [];
    for (var j = 0; j < flat.length; j += 2) {
      var slot = flat[j];
      var child = flat[j + 1];
      var kind = kindOf(child);
      if (kind === '#nothing') continue;
      var f = null;
      if (rest === null) {
        var o = olds[at];
        if (o !== undefined && o.key === slot && o.type === kind) {
          f = o;
          at++;
        } else {
          rest = new Map();
          for (var i = at; i < olds.length; i++) rest.set(olds[i].key, olds[i]);
        }
      }
      if (f === null) {
        var prev = rest.get(slot);
        if (prev !== undefined && prev.type === kind) {
          rest.delete(slot);
          f = prev;
        } else {
          f = new Fiber(kind, slot, fiber);
        }
      }
      next.push(f);
      if (kind === '#text') f.text = '' + child;
      else work(f, child, false);
    }
    if (rest === null) for (var k = at; k < olds.length; k++) unmount(olds[k]);
    else rest.forEach(unmount);
    fiber.children = next;
  }

  function renderComponent(fiber, element) {
    var type = fiber.type;
    var props = element.props;
    var out;
    var passes = 0;
    do {
      if (++passes > MAX_RENDER_PHASE) throw new Error('Too many re-renders. React limits the number of renders to prevent an infinite loop.');
      fiber.renderPhaseUpdate = false;
      for (var i = 0; i < fiber.hooks.length; i++) if (fiber.hooks[i].queue) processQueue(fiber.hooks[i]);
      var saved = rendering;
      var savedIndex = hookIndex;
      rendering = fiber;
      hookIndex = 0;
      var used;
      try {
        out = type.$$forwardRef ? type.render(props, element.ref) : type(props);
      } finally {
        used = hookIndex;
        rendering = saved;
        hookIndex = savedIndex;
      }
      if (fiber.mounted && used !== fiber.hooks.length) {
        // Fewer hooks than before: React throws the same way.
        throw new Error('Rendered fewer hooks than expected. This may be caused by an accidental early return statement.');
      }
    } while (fiber.renderPhaseUpdate);
    if (out === undefined) out = null;
    return out;
  }

  // Set while a state kept as its spine is rendered again (see materialize):
  // every fiber renders, none bails out.
  var renderAll = false;
  // Component fibers mounted so far (materialize checks that it mounts none).
  var mounts = 0;

  // Renders or bails out one fiber for an element, then its children.
  function work(fiber, element, force) {
    var same = element === fiber.element && !renderAll;
    var type = fiber.type;
    if (typeof type === 'string') {
      // A host element (the most common fiber): no hooks, so no effects.
      if (same && !force) bailout(fiber);
      else {
        fiber.element = element;
        reconcile(fiber, element.props.children);
        if (element.ref != null || fiber.attachedRef != null) fiber.root.refs.push(fiber);
      }
      return;
    }
    if (typeof type === 'function' || (type && type.$$forwardRef)) {
      var changed = false;
      if (fiber.dirty) {
        // Peek: apply queued updates; a fiber whose state did not change bails out.
        for (var i = 0; i < fiber.hooks.length; i++) {
          var h = fiber.hooks[i];
          if (h.queue && h.queue.length && processQueue(h)) changed = true;
        }
      }
      fiber.dirty = false;
      var memoized = !same && !changed && !force && fiber.mounted && !renderAll && type.$$memo &&
        fiber.element && fiber.element.ref === element.ref && type.$$memo(fiber.element.props, element.props);
      if (memoized) fiber.element = element; // the props React keeps for the next comparison
      if ((same && !changed && !force && fiber.mounted) || memoized) {
        bailout(fiber);
      } else {
        if (!fiber.mounted) mounts++;
        fiber.element = element;
        var out = renderComponent(fiber, element);
        fiber.mounted = true;
        reconcile(fiber, out);
      }
    } else if (type === FRAGMENT) {
      if (same && !force) bailout(fiber);
      else { fiber.element = element; reconcile(fiber, element.props.children); }
    } else if (type && type.$$provider === PROVIDER) {
      var valueChanged = !fiber.element || !Object.is(fiber.element.props.value, element.props.value);
      if (same && !force) bailout(fiber);
      else { fiber.element = element; forceSubtree = forceSubtree || valueChanged; reconcileForced(fiber, element.props.children, valueChanged); }
    } else {
      throw new Error('Element type is invalid: expected a string or a function but got: ' + (type === null ? 'null' : typeof type));
    }
    finish(fiber);
  }

  var forceSubtree = false;
  function reconcileForced(fiber, children, force) {
    var saved = forceSubtree;
    forceSubtree = force;
    try { reconcile(fiber, children); } finally { forceSubtree = saved; }
  }

  // Nothing changed here: visit the children with their own elements, so that
  // descendants with pending updates still render.
  function bailout(fiber) {
    for (var i = 0; i < fiber.children.length; i++) {
      var c = fiber.children[i];
      if (c.type !== '#text') work(c, c.element, forceSubtree);
    }
  }

  // Effects are queued when a fiber finishes: children before parents.
  function finish(fiber) {
    for (var i = 0; i < fiber.hooks.length; i++) {
      var h = fiber.hooks[i];
      if (h.effect && h.pending) fiber.root.effects.push([fiber, h]);
    }
  }

  function unmount(fiber) {
    fiber.unmounted = true;
    if (fiber.attachedRef != null) {
      var gone = fiber.attachedRef;
      fiber.attachedRef = null;
      fiber.root.cleanups.push(function () { setRef(gone, null); });
    }
    // Parent cleanups first, as React does for a deleted subtree.
    for (var i = 0; i < fiber.hooks.length; i++) {
      var h = fiber.hooks[i];
      if (h.effect && typeof h.cleanup === 'function') {
        fiber.root.cleanups.push(h.cleanup);
        h.cleanup = undefined;
      }
    }
    for (var j = 0; j < fiber.children.length; j++) unmount(fiber.children[j]);
  }

  function runEffects(r) {
    var cleanups = r.cleanups;
    var effects = r.effects;
    r.cleanups = [];
    r.effects = [];
    for (var pass = 0; pass < 2; pass++) {
      var layout = pass === 0;
      for (var i = 0; i < cleanups.length && layout; i++) cleanups[i]();
      var mine = effects.filter(function (e) { return e[1].layout === layout; });
      for (var j = 0; j < mine.length; j++) {
        var h = mine[j][1];
        if (typeof h.cleanup === 'function' && !mine[j][0].unmounted) h.cleanup();
        h.cleanup = undefined;
      }
      if (layout) attachRefs(r);
      for (var k = 0; k < mine.length; k++) {
        var hk = mine[k][1];
        var create = hk.pending;
        hk.pending = null;
        if (mine[k][0].unmounted) continue;
        var c = create();
        if (c !== undefined && typeof c !== 'function') {
          if (c && typeof c.then === 'function') c = undefined; // an async effect: its promise is ignored
          else throw new Error('An effect function must not return anything besides a function, which is used for clean-up.');
        }
        hk.cleanup = c;
      }
    }
  }

  // ---- refs and the rendered DOM -------------------------------------------
  //
  // A host element's ref gets the element React rendered (prelude.js's
  // `hostElement`, answered from the fiber), as React attaches it: before
  // the layout effects of the commit that rendered it, a callback ref called
  // with null first when it changed; null again on unmount. Lookups
  // (`getElementById`, `querySelector`) find the rendered elements of the
  // root being worked on.

  function setRef(ref, value) {
    if (typeof ref === 'function') ref(value);
    else if (ref !== null && typeof ref === 'object') ref.current = value;
  }

  function attachRefs(r) {
    var list = r.refs;
    r.refs = [];
    for (var i = 0; i < list.length; i++) {
      var f = list[i];
      if (f.unmounted) continue;
      var ref = f.element ? f.element.ref : null;
      var old = f.attachedRef == null ? null : f.attachedRef;
      if (ref === old) {
        if (ref !== null && typeof ref === 'object') ref.current = domOf(f);
        continue;
      }
      if (old !== null) setRef(old, null);
      f.attachedRef = ref;
      if (ref !== null) setRef(ref, domOf(f));
    }
  }

  // The host fibers below `f`, each with its own host children.
  function hostChildren(f, out) {
    for (var i = 0; i < f.children.length; i++) {
      var c = f.children[i];
      if (c.type === '#text') continue;
      if (typeof c.type === 'string') out.push(c);
      else hostChildren(c, out);
    }
    return out;
  }

  // The host and text children below `f`: elements as rendered, texts as
  // strings.
  function hostChildNodes(f, out) {
    for (var i = 0; i < f.children.length; i++) {
      var c = f.children[i];
      if (c.type === '#text') out.push(c.text);
      else if (typeof c.type === 'string') out.push(domOf(c));
      else hostChildNodes(c, out);
    }
    return out;
  }

  function hostParent(f) {
    for (var p = f.parent; p; p = p.parent) if (typeof p.type === 'string') return p;
    return null;
  }

  function hostNodeOf(f) {
    var kids = hostNodes(f, []);
    return { type: f.type, props: f.element ? f.element.props : {}, children: kids.length ? kids : null, _fiber: f };
  }

  // All text below a node, shown or not (textContent).
  function rawText(n) {
    if (typeof n === 'string') return n;
    var inner = n.props && n.props.dangerouslySetInnerHTML;
    if (inner && inner.__html != null) return htmlText(inner.__html);
    var s = '';
    if (n.children) for (var i = 0; i < n.children.length; i++) s += rawText(n.children[i]);
    return s;
  }

  function domOf(f) {
    if (f.dom) return f.dom;
    f.dom = tasks.hostElement({
      tag: f.type,
      props: function () { return f.element ? f.element.props : {}; },
      text: function () { return rawText(hostNodeOf(f)); },
      shown: function () { return text(hostNodeOf(f)); },
      parent: function () { var p = hostParent(f); return p ? domOf(p) : tasks.fixedElement('body'); },
      children: function () { return hostChildren(f, []).map(domOf); },
      nodes: function () { return hostChildNodes(f, []); },
      query: function (sel, all) { return query(f, sel, all); },
      matches: function (sel) { return matchesAny(f, parseSelector(sel)); },
      closest: function (sel) {
        var alts = parseSelector(sel);
        for (var p = f; p; p = hostParent(p)) if (matchesAny(p, alts)) return domOf(p);
        return null;
      },
      contains: function (o) {
        var found = false;
        (function go(g) { if (domOf(g) === o) found = true; else hostChildren(g, []).forEach(function (c) { if (!found) go(c); }); })(f);
        return found;
      },
      click: function () {
        var p = f.element ? f.element.props : {};
        if (typeof p.onClick === 'function' && !p.disabled) {
          var ev = event(domOf(f));
          ev.type = 'click';
          p.onClick(ev);
        }
      },
    });
    return f.dom;
  }

  // Selectors: compound selectors (`tag`, `#id`, `.class`, `[attr]`,
  // `[attr=value]`) joined by descendant (` `) or child (`>`) combinators,
  // in comma lists. Anything else (pseudo-classes, `+`, `~`, other
  // attribute operators) is an error naming the selector, never a lookup
  // that silently finds nothing.
  var selectorCache = new Map();
  function parseSelector(sel) {
    var hit = selectorCache.get(sel);
    if (hit) return hit;
    var alts = [];
    var parts = sel.split(',');
    for (var i = 0; i < parts.length; i++) {
      var src = parts[i].trim().replace(/\s*>\s*/g, ' > ');
      if (!src) throw unsupportedSelector(sel);
      var chain = [];
      var words = src.split(/\s+/);
      var comb = ' ';
      for (var j = 0; j < words.length; j++) {
        if (words[j] === '>') { if (!chain.length || comb === '>') throw unsupportedSelector(sel); comb = '>'; continue; }
        var m = /^([A-Za-z][\w-]*|\*)?((?:#[\w-]+|\.[\w-]+|\[[\w-]+(?:=(?:"[^"]*"|'[^']*'|[\w-]+))?\])*)$/.exec(words[j]);
        if (!m || (!m[1] && !m[2])) throw unsupportedSelector(sel);
        var c = { comb: comb, tag: m[1] && m[1] !== '*' ? m[1].toLowerCase() : null, ids: [], classes: [], attrs: [] };
        var re = /#([\w-]+)|\.([\w-]+)|\[([\w-]+)(?:=(?:"([^"]*)"|'([^']*)'|([\w-]+)))?\]/g;
        var t;
        while ((t = re.exec(m[2] || '')) !== null) {
          if (t[1]) c.ids.push(t[1]);
          else if (t[2]) c.classes.push(t[2]);
          else c.attrs.push([t[3], t[4] != null ? t[4] : t[5] != null ? t[5] : t[6] != null ? t[6] : null]);
        }
        chain.push(c);
        comb = ' ';
      }
      if (comb === '>') throw unsupportedSelector(sel);
      alts.push(chain);
    }
    if (selectorCache.size < 256) selectorCache.set(sel, alts);
    return alts;
  }

  function unsupportedSelector(sel) {
    return new Error("recipe-drift's DOM does not evaluate the selector `" + sel + '` (it knows tags, #ids, .classes, [attributes] with descendant and child combinators): what the lookup finds in a browser is unknown');
  }

  function attrValue(p, name) {
    var v = name === 'class' ? p.className : name === 'for' ? p.htmlFor : p[name];
    if (v == null || v === false || typeof v === 'function') return null;
    return v === true ? '' : String(v);
  }

  function matchesCompound(f, c) {
    if (typeof f.type !== 'string') return false;
    if (c.tag !== null && f.type.toLowerCase() !== c.tag) return false;
    var p = f.element ? f.element.props : {};
    for (var i = 0; i < c.ids.length; i++) if (attrValue(p, 'id') !== c.ids[i]) return false;
    if (c.classes.length) {
      var cls = String(p.className || '').split(/\s+/);
      for (var j = 0; j < c.classes.length; j++) if (cls.indexOf(c.classes[j]) < 0) return false;
    }
    for (var k = 0; k < c.attrs.length; k++) {
      var v = attrValue(p, c.attrs[k][0]);
      if (v === null || (c.attrs[k][1] !== null && v !== c.attrs[k][1])) return false;
    }
    return true;
  }

  function matchesChain(f, chain, at) {
    if (!matchesCompound(f, chain[at])) return false;
    if (at === 0) return true;
    var comb = chain[at].comb;
    for (var p = hostParent(f); p; p = hostParent(p)) {
      if (matchesChain(p, chain, at - 1)) return true;
      if (comb === '>') return false;
    }
    return false;
  }

  function matchesAny(f, alts) {
    for (var i = 0; i < alts.length; i++) if (matchesChain(f, alts[i], alts[i].length - 1)) return true;
    return false;
  }

  // The rendered elements below `scope` (a fiber) matching `sel`, in
  // document order: the first (or null), or all.
  function query(scope, sel, all) {
    var alts = parseSelector(sel);
    var out = [];
    (function go(f) {
      var kids = hostChildren(f, []);
      for (var i = 0; i < kids.length && (all || !out.length); i++) {
        if (matchesAny(kids[i], alts)) out.push(domOf(kids[i]));
        go(kids[i]);
      }
    })(scope);
    return all ? out : out.length ? out[0] : null;
  }

  // The document's lookups: the root being worked on (the last one mounted
  // between tasks).
  var lastRoot = null;
  tasks.setLookup(function (kind, arg, all) {
    var r = root || lastRoot;
    if (kind === 'selector') {
      var fixed = tasks.fixedElement(arg.trim());
      if (fixed) return all ? [fixed] : fixed;
    }
    if (!r || !r.fiber) return all ? [] : null;
    if (kind === 'id') {
      var hit = null;
      (function go(f) {
        var kids = hostChildren(f, []);
        for (var i = 0; i < kids.length && hit === null; i++) {
          var p = kids[i].element ? kids[i].element.props : {};
          if (p.id != null && String(p.id) === arg) hit = domOf(kids[i]);
          else go(kids[i]);
        }
      })(r.fiber);
      return hit;
    }
    return query(r.fiber, arg, all);
  });

  // A DOM write the page made (and perhaps caught) is the task's error.
  function checkDom() {
    var p = tasks.domProblem();
    if (p !== null) throw new Error(p);
  }

  // ---- microtasks and timers ------------------------------------------------
  //
  // A browser runs the microtasks a task queued (promise reactions, the code
  // after an `await`, `queueMicrotask`) as soon as the task ends, before it
  // paints, and React 18 renders the updates they make before the reader
  // sees anything: here every render's effects, and every click's handlers,
  // are followed by the microtasks they queued, and a state is settled only
  // when no update is pending, no microtask is queued and no timer is
  // pending. Timers run in order under the fixed clock (prelude.js), one at
  // a time, each followed by its microtasks and renders, whenever nothing
  // else is pending.

  // Set while the tasks of a batch whose outcome is thrown away run (see
  // discardTasks): every dispatch is ignored.
  var discarding = false;

  // The engine stopped a job (its time or memory limit; the sandbox reads
  // which from its flags): never a generator's error.
  function EngineStop() {}

  // Runs the microtasks queued so far and those they queue.
  function microtasks() {
    if (runJobs === null) return;
    var n = runJobs(MAX_JOBS);
    if (n === -1) throw new EngineStop();
    if (n === -2) throw new Error('Microtasks did not settle: more than ' + MAX_JOBS + ' ran in a row (a promise chain or queueMicrotask loop that never ends)');
  }

  // Runs timers, earliest due first, each followed by its microtasks, until
  // one schedules an update on `r` or none is pending. `budget` counts the
  // timer callbacks of the batch ({runs}); past MAX_TIMER_RUNS the batch
  // never settles: an error naming the timer due next, thrown where it
  // was set.
  function runTimers(r, budget) {
    while (!r.scheduled && tasks.pending() > 0) {
      if (++budget.runs > MAX_TIMER_RUNS) {
        var t = tasks.next();
        var e = new Error('Timers did not settle: ' + t.name + ' still runs after ' + MAX_TIMER_RUNS + ' timer callbacks in one update (a timer that sets itself again forever: what a reader sees never settles)');
        try { e.stack = t.stack; } catch (ignored) { /* a frozen stack: no position */ }
        throw e;
      }
      timerRuns++;
      tasks.run();
      microtasks();
    }
  }

  // Timer callbacks run so far (the explorer tells whether any ran after a
  // render).
  var timerRuns = 0;

  // Whether a timer is pending (a batch's outcome then depends on more than
  // its hooks: the explorer's memos do not apply).
  function timersPending() {
    return tasks.pending() > 0;
  }

  // Drops the tasks of a batch whose outcome is thrown away (a click that
  // threw, effects run to learn they are quiet, a state rendered again):
  // the timers, and the microtasks, which run (the engine cannot drop them)
  // with every dispatch ignored, so they change no state restored next.
  function discardTasks() {
    tasks.clear();
    tasks.domProblem();
    tasks.takeCopies();
    discarding = true;
    try {
      microtasks();
    } finally {
      discarding = false;
      tasks.clear();
    }
  }

  function Root(element) {
    this.element = element;
    this.fiber = null;
    this.effects = [];
    this.cleanups = [];
    this.refs = [];
    this.scheduled = false;
    this.nextId = 0;
  }

  // Renders until no update is pending (a batch ends here, as `act()` does).
  // `afterRender` is called after each render with the pass's number (from
  // 1); `settled`, after each pass whose effects scheduled updates, may end
  // the batch there (true: the explorer knows how it settles).
  // Effects, then the microtasks they queued, follow each render; when no
  // update is pending, the timers run (see runTimers). Passes count the
  // renders since the last timer ran (React's update depth is per task).
  function flush(r, afterRender, settled) {
    var passes = 0;
    var renders = 0;
    var budget = { runs: 0 };
    var saved = root;
    root = r;
    lastRoot = r;
    try {
      do {
        if (++passes > MAX_PASSES) throw new Error('Maximum update depth exceeded: updates did not settle after ' + MAX_PASSES + ' renders');
        r.scheduled = false;
        work(r.fiber, r.element, false);
        if (afterRender) afterRender(++renders);
        runEffects(r);
        microtasks();
        checkDom();
        if (!r.scheduled && timersPending()) {
          runTimers(r, budget);
          checkDom();
          passes = 0;
        }
      } while (r.scheduled && !(settled && settled()));
    } finally {
      root = saved;
    }
  }

  var mounted = false; // whether a root was mounted (see pageEvents)
  function mount(element) {
    // Listeners on the page's events added since the last mount were added
    // after the page loaded (by clicks explored): they never run.
    if (mounted) tasks.pageListeners();
    if (tasks.resetListeners) tasks.resetListeners();
    mounted = true;
    var r = new Root(element);
    r.fiber = new Fiber('#root', '0', null);
    r.fiber.root = r;
    r.fiber.type = function RootWrapper(p) { return p.children; };
    r.element = createElement(r.fiber.type, null, element);
    flush(r);
    pageEvents(r);
    tasks.takeCopies(); // what mounting copied is no click's
    return r;
  }

  // The page's own events (`load`, `DOMContentLoaded`, ...): a browser
  // fires them after React's first effects when the page is opened
  // directly, and never when the reader reaches it by a client-side
  // navigation. A listener that changes the state then makes the command
  // depend on how the reader came: an error naming the event. Listeners that
  // change nothing are quiet; those added later never run (the page has
  // loaded).
  function pageEvents(r) {
    var ls = tasks.pageListeners();
    if (!ls.length) return;
    var saved = root;
    root = r;
    r.scheduled = false;
    try {
      for (var i = 0; i < ls.length; i++) {
        var l = ls[i];
        var ev = new G.Event(l.type);
        if (typeof l.fn === 'function') l.fn.call(l.on === 'window' ? G.window : G.document, ev);
        else l.fn.handleEvent(ev);
        microtasks();
        runTimers(r, { runs: 0 });
        checkDom();
        if (r.scheduled) {
          var e = new Error('a `' + l.type + '` listener on ' + l.on + ' changes the state after the first render: a reader who opens the page directly sees the state after it, one who reaches it by a client-side navigation the state before it (the command depends on how the reader came; set the state in an effect instead)');
          try { e.stack = l.stack; } catch (ignored) { /* a frozen stack: no position */ }
          throw e;
        }
      }
    } finally {
      root = saved;
      tasks.pageListeners();
    }
  }

  // ---- the host tree (react-test-renderer's toJSON shape) -----------------------

  function hostNodes(fiber, out) {
    for (var i = 0; i < fiber.children.length; i++) {
      var c = fiber.children[i];
      if (c.type === '#text') out.push(c.text);
      else if (typeof c.type === 'string') {
        // The element's own props (read, never changed or listed: their
        // `children` are the element's, the node's are `children` below).
        var kids = hostNodes(c, []);
        out.push({ type: c.type, props: c.element.props, children: kids.length ? kids : null, _fiber: c });
      } else hostNodes(c, out);
    }
    return out;
  }

  function tree(r) {
    return hostNodes(r.fiber, []);
  }

  // ---- controls, selection, commands ----------------------------------------

  // ---- HTML set with dangerouslySetInnerHTML --------------------------------
  //
  // The text a reader sees of it (how syntax highlighters render a
  // command), as a browser parses it (the HTML tokenizer's rules): a `<` that
  // does not start a tag (`< x`, `<5`, `<<`) is text; a tag ends at the
  // first `>` outside a quoted attribute value; comments (`<!-- -->`,
  // `<!x>`, `<?x>`, `</5>`) show nothing; <script>, <style>, <noscript>,
  // <iframe>, <noembed>, <noframes> hold raw text that is not shown, <xmp>
  // raw text that is, <textarea> text (its character references decoded)
  // that is shown and <title> text that is not; <plaintext> makes the rest
  // text. What is not rendered is not read: <template>, <head>-only
  // elements and any element with the `hidden` attribute, with what they
  // hold. <br> is a line break; the newline right after a <pre>, <listing>
  // or <textarea> start tag is dropped. Character references are decoded as
  // the tokenizer decodes them: numeric ones with or without `;` (0, past
  // U+10FFFF and surrogates are U+FFFD; 0x80-0x9F are windows-1252), named
  // ones from the table below (the legacy ones without `;` too); a name the
  // table lacks stays as written. One pass over the input.
  var ENTITIES = {
    amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00A0',
    excl: '!', num: '#', dollar: '$', percnt: '%', lpar: '(', rpar: ')', ast: '*',
    midast: '*', plus: '+', comma: ',', period: '.', sol: '/', colon: ':', semi: ';',
    equals: '=', quest: '?', commat: '@', lsqb: '[', lbrack: '[', bsol: '\\',
    rsqb: ']', rbrack: ']', Hat: '^', lowbar: '_', UnderBar: '_', grave: '`',
    DiacriticalGrave: '`', lcub: '{', lbrace: '{', verbar: '|', vert: '|',
    VerticalLine: '|', rcub: '}', rbrace: '}', tilde: '\u02DC', Tab: '\t',
    NewLine: '\n', hyphen: '\u2010', dash: '\u2010', ndash: '\u2013', mdash: '\u2014',
    minus: '\u2212', lsquo: '\u2018', rsquo: '\u2019', ldquo: '\u201C', rdquo: '\u201D',
    hellip: '\u2026', middot: '\u00B7', times: '\u00D7', divide: '\u00F7', copy: '\u00A9',
    reg: '\u00AE', trade: '\u2122', deg: '\u00B0', micro: '\u00B5', para: '\u00B6',
    sect: '\u00A7', laquo: '\u00AB', raquo: '\u00BB', shy: '\u00AD', ensp: '\u2002',
    emsp: '\u2003', thinsp: '\u2009', zwnj: '\u200C', zwj: '\u200D', rarr: '\u2192',
    larr: '\u2190', bull: '\u2022',
  };
  // The names a browser also decodes without the `;` (of those above).
  var LEGACY = { amp: 1, lt: 1, gt: 1, quot: 1, nbsp: 1, copy: 1, reg: 1, deg: 1, micro: 1, para: 1, sect: 1, laquo: 1, raquo: 1, shy: 1, times: 1, divide: 1, middot: 1 };
  var WIN1252 = {
    0x80: 0x20AC, 0x82: 0x201A, 0x83: 0x0192, 0x84: 0x201E, 0x85: 0x2026, 0x86: 0x2020,
    0x87: 0x2021, 0x88: 0x02C6, 0x89: 0x2030, 0x8A: 0x0160, 0x8B: 0x2039, 0x8C: 0x0152,
    0x8E: 0x017D, 0x91: 0x2018, 0x92: 0x2019, 0x93: 0x201C, 0x94: 0x201D, 0x95: 0x2022,
    0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02DC, 0x99: 0x2122, 0x9A: 0x0161, 0x9B: 0x203A,
    0x9C: 0x0153, 0x9E: 0x017E, 0x9F: 0x0178,
  };
  var REF = /&(?:#([xX][0-9a-fA-F]+|[0-9]+);?|([A-Za-z][A-Za-z0-9]{0,31});?)/g;
  function decodeRefs(t) {
    if (t.indexOf('&') < 0) return t;
    return t.replace(REF, function (m, num, name) {
      if (num !== undefined) {
        var n = num[0] === 'x' || num[0] === 'X' ? parseInt(num.slice(1), 16) : parseInt(num, 10);
        if (!(n > 0) || n > 0x10FFFF || (n >= 0xD800 && n <= 0xDFFF)) return '\uFFFD';
        if (WIN1252[n]) n = WIN1252[n];
        return String.fromCodePoint(n);
      }
      // The longest name the table has that the text starts with (a legacy
      // one may go without `;`: `&ampx` is `&x`).
      var semi = m[m.length - 1] === ';';
      if (semi && Object.prototype.hasOwnProperty.call(ENTITIES, name)) return ENTITIES[name];
      for (var k = name.length; k >= 2; k--) {
        var head = name.slice(0, k);
        if (Object.prototype.hasOwnProperty.call(LEGACY, head)) return ENTITIES[head] + m.slice(1 + k);
      }
      return m;
    });
  }
  var RAW_HIDDEN = { script: 1, style: 1, noscript: 1, iframe: 1, noembed: 1, noframes: 1 };
  // Elements a browser's style sheet does not render, with what they hold.
  var NOT_RENDERED = { template: 1, datalist: 1, rp: 1 };
  var VOID = { area: 1, base: 1, br: 1, col: 1, embed: 1, hr: 1, img: 1, input: 1, link: 1, meta: 1, param: 1, source: 1, track: 1, wbr: 1, basefont: 1, bgsound: 1, keygen: 1, frame: 1 };
  var ALPHA = /[A-Za-z]/;
  var SPACE = /[\t\n\f\r ]/;

  // Reads the tag at `lt` (html[lt] is '<', html[lt + 1] a letter, or '/'
  // and a letter): {name, end, hidden (the `hidden` attribute), next (the
  // index after its `>`)}, or null when the input ends inside it.
  function readTag(html, lt) {
    var end = html[lt + 1] === '/';
    var i = lt + (end ? 2 : 1);
    var n = html.length;
    var j = i;
    while (j < n && !SPACE.test(html[j]) && html[j] !== '/' && html[j] !== '>') j++;
    var name = html.slice(i, j).toLowerCase();
    var attrs = {}; // the attributes that decide whether it shows (the first of a name)
    i = j;
    while (i < n) {
      var c = html[i];
      if (c === '>') {
        var hidden = !end && elementHides(name, attrs) != null;
        return { name: name, end: end, hidden: hidden, next: i + 1 };
      }
      if (SPACE.test(c) || c === '/') { i++; continue; }
      // An attribute: its name, then `=` and a value, maybe quoted.
      var a = i;
      i++;
      while (i < n && !SPACE.test(html[i]) && html[i] !== '/' && html[i] !== '>' && html[i] !== '=') i++;
      var an = html.slice(a, i).toLowerCase();
      var value = '';
      while (i < n && SPACE.test(html[i])) i++;
      if (html[i] === '=') {
        i++;
        while (i < n && SPACE.test(html[i])) i++;
        var q = html[i];
        if (q === '"' || q === "'") {
          var close = html.indexOf(q, i + 1);
          if (close < 0) return null;
          value = html.slice(i + 1, close);
          i = close + 1;
        } else {
          var v0 = i;
          while (i < n && !SPACE.test(html[i]) && html[i] !== '>') i++;
          value = html.slice(v0, i);
        }
      }
      if (DECIDES[an] === 1 && !Object.prototype.hasOwnProperty.call(attrs, an)) attrs[an] = decodeRefs(value);
    }
    return null;
  }
  // The attributes that decide whether an element shows its content.
  var DECIDES = { hidden: 1, open: 1, popover: 1, style: 1, 'class': 1 };

  // The open elements a start tag closes when one is the current element
  // (their end is implied), as the tree builder closes them.
  var P_CLOSERS = 'address article aside blockquote center details dialog dir div dl fieldset figcaption figure footer header hgroup main menu nav ol p search section summary ul h1 h2 h3 h4 h5 h6 pre listing form plaintext table hr xmp';
  var CLOSES = { li: { li: 1 }, dd: { dd: 1, dt: 1 }, dt: { dd: 1, dt: 1 }, option: { option: 1 }, optgroup: { option: 1, optgroup: 1 }, button: { button: 1 } };
  P_CLOSERS.split(' ').forEach(function (t) {
    CLOSES[t] = CLOSES[t] || {};
    CLOSES[t].p = 1;
    if (/^h[1-6]$/.test(t)) for (var h = 1; h <= 6; h++) CLOSES[t]['h' + h] = 1;
  });
  // Start and end tags a fragment ignores.
  var IGNORED = { html: 1, head: 1, body: 1 };

  // Where the raw text or RCDATA of element `name` opened before `from`
  // ends: the index of its `</name` (followed by a space, `/`, `>` or the
  // end), or -1.
  function rawEnd(html, name, from) {
    var re = new RegExp('</' + name + '(?=[\\t\\n\\f\\r />]|$)', 'ig');
    re.lastIndex = from;
    var m = re.exec(html);
    return m ? m.index : -1;
  }

  function htmlText(html) {
    html = String(html);
    var n = html.length;
    var out = '';
    // The open elements (names), and how many of them are not rendered
    // (a `hidden` attribute, <template>, ...): while any is open, text is
    // not shown.
    var open = [];
    var hidden = [];
    var count = Object.create(null); // open elements by name
    var hide = 0;
    var from = 0; // where the text not yet read starts
    var scan = 0; // where to look for the next `<`
    function emit(end) {
      if (end > from && !hide) out += decodeRefs(html.slice(from, end));
    }
    function pop() {
      count[open.pop()]--;
      if (hidden.pop()) hide--;
    }
    for (;;) {
      var lt = html.indexOf('<', scan);
      if (lt < 0) break;
      var c1 = html[lt + 1];
      var c2 = html[lt + 2];
      if (c1 !== undefined && (ALPHA.test(c1) || (c1 === '/' && c2 !== undefined && ALPHA.test(c2)))) {
        var tag = readTag(html, lt);
        emit(lt);
        if (tag === null) return out; // the input ends inside a tag: dropped
        from = scan = tag.next;
        var name = tag.name;
        if (IGNORED[name]) continue;
        if (tag.end) {
          if (name === 'br') { if (!hide) out += '\n'; continue; } // `</br>` is a <br>
          // Closes the innermost open element of its name, and those
          // opened inside it; an end tag with none open is ignored.
          // (Amortised linear: the search stops at what it pops.)
          if (count[name] > 0) {
            var at = open.lastIndexOf(name);
            while (open.length > at) pop();
          }
          continue;
        }
        if (name === 'br') { if (!hide && !tag.hidden) out += '\n'; continue; }
        var closes = CLOSES[name];
        while (closes && open.length && closes[open[open.length - 1]]) pop();
        if (name === 'plaintext') { if (!hide && !tag.hidden) out += html.slice(from); return out; }
        if (RAW_HIDDEN[name] || name === 'xmp' || name === 'textarea' || name === 'title') {
          var close = rawEnd(html, name, from);
          var start = name === 'textarea' && html[from] === '\n' ? from + 1 : from;
          var inner = html.slice(start, close < 0 ? n : close);
          if (!hide && !tag.hidden && !RAW_HIDDEN[name] && name !== 'title') {
            out += name === 'xmp' ? inner : decodeRefs(inner);
          }
          if (close < 0) return out;
          var endTag = readTag(html, close);
          if (endTag === null) return out;
          from = scan = endTag.next;
          continue;
        }
        if (VOID[name]) continue;
        var unrendered = tag.hidden || !!NOT_RENDERED[name];
        open.push(name);
        count[name] = (count[name] || 0) + 1;
        hidden.push(unrendered);
        if (unrendered) hide++;
        if ((name === 'pre' || name === 'listing') && html[from] === '\n') from = scan = from + 1;
        continue;
      }
      var skipTo = -1; // the end of a comment (nothing shown), or -1: `<` is text
      if (c1 === '/' && c2 === '>') skipTo = lt + 3; // `</>`
      else if (c1 === '!' && html[lt + 2] === '-' && html[lt + 3] === '-') {
        var body = lt + 4;
        if (html[body] === '>') skipTo = body + 1; // `<!-->`
        else if (html[body] === '-' && html[body + 1] === '>') skipTo = body + 2; // `<!--->`
        else {
          var endRe = /--!?>/g;
          endRe.lastIndex = body;
          var m = endRe.exec(html);
          skipTo = m ? m.index + m[0].length : n;
        }
      } else if (c1 === '!' || c1 === '?' || (c1 === '/' && c2 !== undefined)) {
        var gt = html.indexOf('>', lt + 2);
        skipTo = gt < 0 ? n : gt + 1; // a bogus comment
      }
      if (skipTo < 0) { scan = lt + 1; continue; } // `< x`, `<5`, `<<`, `</` at the end: text
      emit(lt);
      from = scan = skipTo;
    }
    emit(n);
    return out;
  }

  // An element a browser does not render, with what it holds, as
  // `elementHides` decides from the attributes React writes for its props:
  // `hidden`, `open` and `popover` when truthy (React leaves
  // `hidden={false}` out), the style object as its inline style (see
  // reactCss), `className` as the class (Tailwind's `hidden`, `invisible`).
  // So `display: none`, `visibility: hidden`, `opacity: 0`,
  // `content-visibility: hidden`, a <dialog> that is not open, <template>,
  // <noscript> (React renders none of its children in a browser),
  // <script>, <style>, <datalist>, the fallback of <video>, <audio>,
  // <canvas>. Its text is not the reader's command.
  function notShown(n) {
    if (typeof n === 'string' || n === null || typeof n !== 'object') return false;
    if (typeof n.type !== 'string') return false;
    var p = n.props || {};
    var attrs = {};
    if (p.hidden) attrs.hidden = '';
    if (p.open) attrs.open = '';
    if (p.popover != null && p.popover !== false) attrs.popover = String(p.popover);
    var css = reactCss(p.style);
    if (css) attrs.style = css;
    var cls = p.className != null ? p.className : p['class'];
    if (typeof cls === 'string') attrs['class'] = cls;
    return elementHides(n.type.toLowerCase(), attrs) != null;
  }

  // The inline style React writes for a `style` prop: of an object, each
  // property's name hyphenated (`contentVisibility`: `content-visibility`;
  // `DISPLAY` is no property), a number given `px` unless the property is
  // unitless or it is 0, null, undefined, booleans and '' left out, and a
  // value with `!important` dropped (the CSSOM refuses it on
  // `style[name] = value`); a string as it is.
  var UNITLESS = { opacity: 1, 'z-index': 1, 'flex-grow': 1, 'flex-shrink': 1, 'line-height': 1, order: 1 };
  function reactCss(style) {
    if (typeof style === 'string') return style;
    if (style === null || typeof style !== 'object') return '';
    var out = '';
    var keys = Object.keys(style);
    for (var i = 0; i < keys.length; i++) {
      var k = keys[i];
      var v = style[k];
      if (v == null || typeof v === 'boolean' || v === '') continue;
      var custom = k.slice(0, 2) === '--';
      var name = custom ? k : k.replace(/([A-Z])/g, '-$1').toLowerCase().replace(/^ms-/, '-ms-');
      var val = typeof v === 'number' && v !== 0 && !custom && UNITLESS[name] !== 1 ? v + 'px' : String(v).trim();
      if (!custom && /!\s*important/i.test(val)) continue;
      out += name + ': ' + val + ';';
    }
    return out;
  }

  function text(node) {
    if (typeof node === 'string') return node;
    if (notShown(node)) return '';
    var inner = node.props && node.props.dangerouslySetInnerHTML;
    if (inner && inner.__html != null) return htmlText(inner.__html);
    var s = '';
    if (node.children) for (var i = 0; i < node.children.length; i++) s += text(node.children[i]);
    return s;
  }

  // The text of a node as the DOM's textContent holds it, shown or not
  // (an <option>'s value when it has no `value`: HTML's option text).
  function rawText(node) {
    if (typeof node === 'string') return node;
    var s = '';
    if (node.children) for (var i = 0; i < node.children.length; i++) s += rawText(node.children[i]);
    return s;
  }

  // The nodes a `<fieldset disabled>` disables (HTML's disabled form
  // controls): its descendants, except those inside its first <legend>
  // child.
  function fieldsetDisabled(nodes) {
    var out = new Set();
    walk(nodes, function (n) {
      if (n.type !== 'fieldset' || !n.props.disabled) return;
      var kids = n.children || [];
      var legend = null;
      for (var i = 0; i < kids.length; i++) {
        if (typeof kids[i] !== 'string' && kids[i].type === 'legend') { legend = kids[i]; break; }
      }
      for (var j = 0; j < kids.length; j++) {
        if (kids[j] === legend || typeof kids[j] === 'string') continue;
        out.add(kids[j]);
        walk([kids[j]], function (d) { out.add(d); });
      }
    });
    return out;
  }

  // The options of a <select> as a reader can pick them: an option is
  // disabled when it or its <optgroup> is (HTML), and one not shown
  // (`hidden`, `display: none`) is not offered; its value is its `value`,
  // else its text (shown or not).
  function selectOptions(nodes, groupDisabled, out) {
    for (var i = 0; i < nodes.length; i++) {
      var o = nodes[i];
      if (typeof o === 'string') continue;
      if (o.type === 'option') {
        out.push({ value: o.props.value != null ? String(o.props.value) : rawText(o), disabled: groupDisabled || !!o.props.disabled || notShown(o), label: text(o) });
      } else if (o.children) {
        selectOptions(o.children, groupDisabled || (o.type === 'optgroup' && !!o.props.disabled), out);
      }
    }
    return out;
  }

  function walk(nodes, fn) {
    for (var i = 0; i < nodes.length; i++) {
      var n = nodes[i];
      if (typeof n === 'string') continue;
      fn(n);
      if (n.children) walk(n.children, fn);
    }
  }

  function keyOf(p) {
    return p.name != null ? String(p.name) : p.id != null ? String(p.id) : '';
  }

  function controls(nodes) {
    var out = [];
    var labels = [];
    walk(nodes, function (n) {
      if (n.type === 'label') labels.push(n);
      var p = n.props;
      if (n.type === 'input') {
        var t = p.type == null ? 'text' : String(p.type).toLowerCase();
        if (t === 'radio') out.push({ kind: 'radio', key: keyOf(p), value: String(p.value), checked: !!p.checked, disabled: !!p.disabled, node: n });
        else if (t === 'checkbox') out.push({ kind: 'checkbox', key: keyOf(p), value: p.checked ? 'true' : 'false', checked: !!p.checked, disabled: !!p.disabled, node: n });
        else if (t === 'text') out.push({ kind: 'text', key: keyOf(p), value: p.value == null ? '' : String(p.value), disabled: !!p.disabled, node: n });
        else if (t === 'range') out.push(range(p, n));
      } else if (n.type === 'select') {
        var options = selectOptions(n.children || [], false, []);
        out.push({ kind: 'select', key: keyOf(p), value: String(p.value), disabled: !!p.disabled, options: options, node: n });
      } else if (n.type !== 'option' && typeof p.onClick === 'function') {
        // A button (or any element a reader can click): key = its name, id
        // or text; it is clicked, never part of the selection.
        var bkey = p.name != null ? String(p.name) : p.id != null ? String(p.id) : text(n).trim();
        out.push({ kind: 'button', key: bkey, value: 'click', disabled: !!p.disabled, node: n });
      }
    });
    var locked = fieldsetDisabled(nodes);
    for (var f = 0; f < out.length; f++) {
      var fc = out[f];
      // Form controls only: a clickable <div> is not one.
      if (locked.has(fc.node) && (fc.kind !== 'button' || fc.node.type === 'button')) fc.disabled = true;
    }
    // A label around an input describes it (used in error messages).
    if (labels.length) {
      var byNode = new Map();
      for (var b = 0; b < out.length; b++) {
        var same = byNode.get(out[b].node);
        if (same === undefined) byNode.set(out[b].node, [out[b]]);
        else same.push(out[b]);
      }
      for (var i = 0; i < labels.length; i++) {
        var lab = labels[i];
        var labelText = null;
        walk([lab], function (n) {
          var mine = byNode.get(n);
          if (mine === undefined) return;
          if (labelText === null) labelText = text(lab).trim();
          for (var j = 0; j < mine.length; j++) {
            mine[j].label = labelText;
            mine[j].labelName = labelName(lab);
            if (lab.props.title) mine[j].labelTitle = String(lab.props.title);
          }
        });
      }
    }
    // A checkbox without a name or id is named by its value, else its
    // label's name (as a reader reads it, boxes apart);
    // a <select> or text input by its label's own text (what a reader reads
    // beside it, without the control's options).
    for (var m = 0; m < out.length; m++) {
      var c = out[m];
      if (c.key !== '') continue;
      if (c.kind === 'checkbox') {
        var cp = c.node.props;
        c.key = cp.value != null ? String(cp.value) : c.labelName || c.label || '';
      } else if ((c.kind === 'select' || c.kind === 'text') && c.labelName) {
        c.key = c.labelName;
      }
    }
    nameUnnamed(nodes, out);
    keysApart(nodes, out);
    return out;
  }

  // An <input type="range">: a select over its positions (min, min + step,
  // ..., max; HTML's defaults 0, 100, 1), moved as a reader drags it. One
  // with more than RANGE_POSITIONS positions is a text input: selectable by
  // value, not explored.
  var RANGE_POSITIONS = 64;
  function range(p, n) {
    function num(v, d) { var x = Number(v); return v == null || v === '' || !isFinite(x) ? d : x; }
    var min = num(p.min, 0);
    var max = num(p.max, 100);
    var step = num(p.step, 1);
    var value = p.value == null ? '' : String(p.value);
    var count = step > 0 && max >= min ? Math.floor((max - min) / step + 1e-9) + 1 : 0;
    if (count < 1 || count > RANGE_POSITIONS) return { kind: 'text', key: keyOf(p), value: value, disabled: !!p.disabled, node: n };
    // A browser steps in decimal (Blink's Decimal): min + i x step at the
    // decimal places of min and step, printed shortest (`0.8`, not
    // `0.7999999999999999`).
    function places(x) {
      var m = /^-?\d*(?:\.(\d+))?(?:e([-+]\d+))?$/i.exec(String(x));
      if (!m) return 0;
      var d = (m[1] ? m[1].length : 0) - (m[2] ? Number(m[2]) : 0);
      return Math.min(Math.max(d, 0), 100);
    }
    var digits = Math.max(places(min), places(step));
    var options = [];
    for (var i = 0; i < count; i++) {
      var v = String(Number((min + i * step).toFixed(digits)));
      options.push({ value: v, disabled: false, label: v });
    }
    return { kind: 'select', range: true, key: keyOf(p), value: value, disabled: !!p.disabled, options: options, node: n };
  }

  // Controls of different groups that came out with one key (two unnamed
  // selects under one title, two `Enable` chips in two cards) are told apart
  // as a reader tells them apart: each by the text it is read after
  // (`Enable (HiCache)`, `Enable (HiSparse)`), which a layout that orders
  // the cards another way does not change; those still alike by their
  // order, the second `KEY #2`, the third `KEY #3`, in document order.
  // Radios of one name are one group. Buttons are told apart among buttons
  // (they are clicked, never part of the selection).
  function keysApart(nodes, cs) {
    function dups() {
      var owners = { selected: Object.create(null), clicked: Object.create(null) };
      var out = [];
      for (var i = 0; i < cs.length; i++) {
        var c = cs[i];
        var owner = c.kind === 'button' ? owners.clicked : owners.selected;
        var group = c.kind === 'radio' ? 'radio' : c;
        var had = owner[c.key];
        if (had === undefined) owner[c.key] = [group, [c]];
        else if (had[0] !== group && had[0] !== 'radio' && group !== 'radio') {
          if (had[1].length === 1) out.push(had[1]);
          had[1].push(c);
        }
      }
      return out;
    }
    var groups = dups();
    if (!groups.length) return;
    var wanted = new Map();
    for (var g = 0; g < groups.length; g++) for (var m = 0; m < groups[g].length; m++) wanted.set(groups[g][m].node, true);
    var ctx = contexts(nodes, wanted);
    for (var h = 0; h < groups.length; h++) {
      for (var j = 0; j < groups[h].length; j++) {
        var c = groups[h][j];
        var before = ctx.get(c.node).before;
        if (before && before !== c.key) c.key = c.key + ' (' + before + ')';
      }
    }
    var owners = { selected: Object.create(null), clicked: Object.create(null) };
    for (var i = 0; i < cs.length; i++) {
      var d = cs[i];
      var owner = d.kind === 'button' ? owners.clicked : owners.selected;
      var group = d.kind === 'radio' ? 'radio' : d;
      var k = d.key;
      if (owner[k] === undefined) { owner[k] = group; continue; }
      if (owner[k] === group) continue;
      var n = 2;
      while (owner[k + ' #' + n] !== undefined) n++;
      d.key = k + ' #' + n;
      owner[d.key] = group;
    }
  }

  // For each element in `wanted`: `before`, the nearest text a reader reads
  // before it (a string, or an element's own text outside its labels and
  // controls), first among its siblings, then its ancestors'; `title`, the
  // own text of its nearest enclosing element that has one; `label`, the
  // <label> it is directly in.
  function contexts(nodes, wanted) {
    var found = new Map();
    var stack = [];
    // Each element's own text, read once per call (the radios of a group
    // share their ancestors, and an ancestor's text holds its children's).
    var texts = new Map();
    var titles = new Map();
    function title(n) {
      var t = titles.get(n);
      if (t === undefined) {
        t = ownText(n, texts).replace(/\s+/g, ' ').trim();
        titles.set(n, t);
      }
      return t;
    }
    function before(list, at) {
      for (var i = at - 1; i >= 0; i--) {
        var t = typeof list[i] === 'string' ? list[i].replace(/\s+/g, ' ').trim() : title(list[i]);
        if (t) return t;
      }
      return '';
    }
    var trail = []; // per ancestor: [its siblings, its index]
    function clip(t) { return t.length > 60 ? t.slice(0, 60) : t; }
    (function go(ns) {
      for (var j = 0; j < ns.length; j++) {
        var n = ns[j];
        if (typeof n === 'string') continue;
        if (wanted.has(n)) {
          var b = before(ns, j);
          for (var a = trail.length - 1; !b && a >= 0; a--) b = before(trail[a][0], trail[a][1]);
          var t = '';
          for (var k = stack.length - 1; !t && k >= 0; k--) t = title(stack[k]);
          var top = stack.length ? stack[stack.length - 1] : null;
          found.set(n, { before: clip(b), title: clip(t), label: top && top.type === 'label' ? top : null });
        }
        stack.push(n);
        trail.push([ns, j]);
        if (n.children) go(n.children);
        trail.pop();
        stack.pop();
      }
    })(nodes);
    return found;
  }

  // A radio with no name or id (a styled card whose label's onClick picks
  // it) is named as a reader names it: by the title of its group, the text
  // of the nearest enclosing element outside its labels and controls, and,
  // without a value, shown by its label. A <select>, text or range input
  // with neither a name, an id nor a label is named by the text a reader
  // reads before it (`<span>TP</span><select>`: `TP`), else as a radio is;
  // the text after it (a slider's current value) is not its name. Only the
  // selection reads these names: a change still gives the handlers what a
  // browser gives them.
  function nameUnnamed(nodes, cs) {
    var unnamed = new Map();
    for (var i = 0; i < cs.length; i++) {
      if (cs[i].kind !== 'button' && cs[i].kind !== 'checkbox' && cs[i].key === '') unnamed.set(cs[i].node, cs[i]);
    }
    if (!unnamed.size) return;
    var ctx = contexts(nodes, unnamed);
    unnamed.forEach(function (c, n) {
      var at = ctx.get(n);
      var t = (c.kind !== 'radio' && at.before) || at.title;
      if (t) c.key = t;
      if (c.kind === 'radio' && n.props.value == null) {
        var shown = at.label ? spacedText(at.label).replace(/\s+/g, ' ').trim() : '';
        if (shown) c.shown = shown;
      }
    });
  }

  // The text of an element with its elements' texts apart (`H200 141GB` for
  // `<span>H200</span><small>141GB</small>`), as a reader reads it.
  function spacedText(n) {
    if (typeof n === 'string') return n;
    var s = '';
    if (n.children) for (var i = 0; i < n.children.length; i++) s += ' ' + spacedText(n.children[i]);
    return s;
  }

  // The text of an element outside its labels (and the labels' inputs) and
  // its controls (a <select>'s options, a text area's text), each element's
  // kept in `texts` (node -> text).
  var OWN_TEXT_SKIPS = { label: 1, select: 1, option: 1, textarea: 1 };
  function ownText(n, texts) {
    if (typeof n === 'string') return n;
    if (OWN_TEXT_SKIPS[n.type] === 1) return ' ';
    var s = texts.get(n);
    if (s !== undefined) return s;
    s = '';
    if (n.children) for (var i = 0; i < n.children.length; i++) s += ownText(n.children[i], texts);
    texts.set(n, s);
    return s;
  }

  function selection(cs) {
    var seen = {};
    var out = [];
    for (var i = 0; i < cs.length; i++) {
      var c = cs[i];
      if (c.kind === 'button') continue;
      if (c.kind === 'radio') {
        if (!(c.key in seen)) { seen[c.key] = out.length; out.push(null); }
        if (c.checked && out[seen[c.key]] === null) out[seen[c.key]] = [c.key, c.shown != null ? c.shown : c.value];
      } else if (!(c.key in seen)) {
        seen[c.key] = out.length;
        out.push([c.key, c.value]);
      }
    }
    return out.filter(function (x) { return x !== null; });
  }

  // The page's code blocks a state shows (a page's component children:
  // src/extract/jsx/page.rs renders each as an <rd-page-block> marker): the
  // numbers of the markers rendered outside any element a browser does not
  // show, in order, each once.
  function pageBlocks(nodes) {
    var out = [];
    (function shown(list) {
      for (var i = 0; i < list.length; i++) {
        var n = list[i];
        if (typeof n === 'string' || notShown(n)) continue;
        if (n.type === 'rd-page-block') {
          var k = Number(n.props['data-rd-block']);
          if (k >= 0 && out.indexOf(k) < 0) out.push(k);
        }
        if (n.children) shown(n.children);
      }
    })(nodes);
    return out;
  }

  function commands(nodes) {
    var pres = [];
    var codes = [];
    (function shown(list) {
      for (var i = 0; i < list.length; i++) {
        var n = list[i];
        if (typeof n === 'string' || notShown(n)) continue;
        if (n.type === 'pre') pres.push(text(n));
        if (n.type === 'code') codes.push(text(n));
        if (n.children) shown(n.children);
      }
    })(nodes);
    return pres.length ? pres : codes;
  }

  // Plain data as one string (object keys sorted; functions, undefined and
  // symbols dropped as JSON drops them, `_fiber` skipped): equal strings,
  // equal trees.
  function canonical(v) {
    var flat = canonFlat(v);
    if (flat !== undefined) return flat;
    var out = [];
    return canonInto(v, out) ? out.join('') : undefined;
  }

  // canonical(v) in one native call, for an array or object whose items are
  // all strings, numbers, booleans, null, or what both drop (a style object);
  // undefined for any other value.
  function canonFlat(v) {
    if (typeof v !== 'object' || v === null || 'toJSON' in v) return undefined;
    if (Array.isArray(v)) {
      for (var i = 0; i < v.length; i++) if (!flatJson(v[i])) return undefined;
      return JSON.stringify(v);
    }
    var keys = Object.keys(v).sort();
    for (var j = 0; j < keys.length; j++) {
      if (keys[j] === '_fiber' || !flatJson(v[keys[j]])) return undefined;
    }
    return JSON.stringify(v, keys);
  }

  // Whether JSON writes `x` as canonInto does, with no nesting: what it
  // writes itself (a string, number, boolean or null), or drops alike (from
  // an object) and writes as null alike (in an array).
  function flatJson(x) {
    var t = typeof x;
    return t === 'string' || t === 'number' || t === 'boolean' || x === null || t === 'undefined' || t === 'function' || t === 'symbol';
  }

  function canonInto(v, out) {
    if (v === null) { out.push('null'); return true; }
    var t = typeof v;
    if (t === 'function' || t === 'undefined' || t === 'symbol') return false;
    if (t !== 'object') {
      out.push(t === 'bigint' ? JSON.stringify(String(v)) : JSON.stringify(v));
      return true;
    }
    if (Array.isArray(v)) {
      out.push('[');
      for (var i = 0; i < v.length; i++) {
        if (i) out.push(',');
        if (!canonInto(v[i], out)) out.push('null');
      }
      out.push(']');
      return true;
    }
    var keys = Object.keys(v).sort();
    out.push('{');
    var first = true;
    for (var j = 0; j < keys.length; j++) {
      var k = keys[j];
      if (k === '_fiber') continue;
      var mark = out.length;
      out.push(first ? JSON.stringify(k) + ':' : ',' + JSON.stringify(k) + ':');
      if (canonInto(v[k], out)) first = false;
      else out.length = mark;
    }
    out.push('}');
    return true;
  }


  // A props object's keys as canonical writes them: sorted, without
  // `children` and `_fiber`; cached by the keys in their own order (the
  // first 4,096 orders seen).
  var sortedKeys = new Map();
  function propKeys(p) {
    var own = Object.keys(p);
    var order = JSON.stringify(own);
    var keys = sortedKeys.get(order);
    if (keys === undefined) {
      keys = own.filter(function (k) { return k !== 'children' && k !== '_fiber'; }).sort();
      if (sortedKeys.size < 4096) sortedKeys.set(order, keys);
    }
    return keys;
  }

  // A string equal for two states exactly when canonical(tree(r)) is, and
  // short: each host node is written once per exploration and named by a
  // number after that (hash-consing). A node is its type, the number of its
  // props (each kept prop's sorted key and value, an object or array value as
  // the one-item list of its canonical form) and its children (a text as
  // itself, a node as its number), written by native JSON.stringify calls;
  // the state is the list of its top-level children. Equal numbers, equal
  // subtrees (by induction from the leaves), so the key tells states apart
  // exactly as the whole tree written out would, in far less memory (the
  // explorer keeps one key per state found).
  function Interned() {
    this.nodes = new Map(); // node written -> its number
    this.props = new Map(); // props written -> their number
  }

  function intern(map, key) {
    var id = map.get(key);
    if (id === undefined) { id = map.size; map.set(key, id); }
    return id;
  }

  function treeKey(r, names) {
    return JSON.stringify(hostIds(r.fiber, [], names));
  }

  // Appends the keys of `fiber`'s host children (through components) to
  // `out`: a text as itself, a node as its number.
  function hostIds(fiber, out, names) {
    var kids = fiber.children;
    for (var i = 0; i < kids.length; i++) {
      var c = kids[i];
      if (c.type === '#text') {
        out.push(c.text);
      } else if (typeof c.type === 'string') {
        var p = c.element.props;
        var keys = propKeys(p);
        var ps = [];
        for (var j = 0; j < keys.length; j++) {
          var v = p[keys[j]];
          var tv = typeof v;
          if (tv === 'string' || tv === 'boolean' || tv === 'number' || v === null) ps.push(keys[j], v);
          else if (tv === 'bigint') ps.push(keys[j], String(v));
          else if (tv === 'object') ps.push(keys[j], [canonical(v)]);
        }
        var node = [c.type, intern(names.props, JSON.stringify(ps)), hostIds(c, [], names)];
        out.push(intern(names.nodes, JSON.stringify(node)));
      } else hostIds(c, out, names);
    }
    return out;
  }

  function actions(cs) {
    var out = [];
    for (var i = 0; i < cs.length; i++) {
      var c = cs[i];
      if (c.kind === 'radio' && !c.checked && !c.disabled) out.push([i, c.value]);
      else if (c.kind === 'checkbox' && !c.disabled) out.push([i, c.checked ? 'false' : 'true']);
      else if (c.kind === 'button' && !c.disabled) out.push([i, 'click']);
      else if (c.kind === 'select' && !c.disabled) {
        for (var j = 0; j < c.options.length; j++) {
          var o = c.options[j];
          if (!o.disabled && o.value !== c.value) out.push([i, o.value]);
        }
      }
    }
    return out;
  }

  function ignore() {}
  function event(target) {
    return {
      type: 'change', target: target, currentTarget: target,
      preventDefault: ignore, stopPropagation: ignore, persist: ignore,
      nativeEvent: {},
    };
  }

  // Calls a control's handlers as a click (or a pick) would.
  function fire(c, value) {
    var p = c.node.props;
    var t;
    if (c.kind === 'radio' || c.kind === 'checkbox') {
      // As in a browser, a control's value is a string (a checkbox without one is "on").
      var v = c.kind === 'radio' ? String(p.value) : String(p.value != null ? p.value : 'on');
      t = { name: p.name, id: p.id, type: c.kind, value: v, checked: c.kind === 'radio' ? true : !c.checked };
      var e = event(t);
      if (typeof p.onClick === 'function') p.onClick(e);
      if (typeof p.onChange === 'function') p.onChange(e);
    } else if (c.kind === 'select') {
      t = { name: p.name, id: p.id, type: c.range ? 'range' : 'select-one', value: value };
      if (typeof p.onChange === 'function') p.onChange(event(t));
    } else if (c.kind === 'text') {
      t = { name: p.name, id: p.id, type: 'text', value: value };
      if (typeof p.onChange === 'function') p.onChange(event(t));
      if (typeof p.onInput === 'function') p.onInput(event(t));
    } else if (c.kind === 'button') {
      t = { name: p.name, id: p.id, type: p.type != null ? String(p.type) : 'button', value: p.value != null ? String(p.value) : '' };
      var ev = event(t);
      ev.type = 'click';
      p.onClick(ev);
    }
  }

  // Applies one action as a click would, then lets updates and effects settle.
  function apply(r, cs, index, value) {
    var c = cs[index];
    if (!c) throw new Error('no control at index ' + index);
    lastRoot = r;
    var saved = root;
    root = r;
    try { fire(c, value); } finally { root = saved; }
    checkDom();
    flush(r);
  }

  // Calls one action's handlers as `apply` does, without rendering; false
  // when they scheduled no update, so the state is the one clicked in.
  function fireOnly(r, cs, index, value) {
    var c = cs[index];
    if (!c) throw new Error('no control at index ' + index);
    r.scheduled = false;
    var saved = root;
    root = r;
    try {
      lastRoot = r;
      fire(c, value);
      // The handlers' microtasks, then (when they scheduled nothing) the
      // timers they set, up to the first that schedules an update.
      microtasks();
      runTimers(r, { runs: 0 });
      checkDom();
    } finally {
      root = saved;
    }
    return r.scheduled;
  }

  function snapshot(r) {
    var nodes = tree(r);
    var cs = controls(nodes);
    return { nodes: nodes, controls: cs };
  }


  // What a reader sees of a state (what `select` answers).
  function shown(s) {
    return { selection: selection(s.controls), commands: commands(s.nodes), blocks: pageBlocks(s.nodes) };
  }

  function target(i) {
    var ts = G.__rd_targets;
    if (!Array.isArray(ts) || !ts[i]) throw new Error('no render target ' + i);
    return ts[i];
  }

  // ---- exploring: snapshots instead of replays ---------------------------------

  // A settled state as the very fiber and hook objects hold it: every fiber
  // reachable from the root with the fields a render or a click changes.
  // Restoring writes them back into the same objects, so the dispatch
  // closures the state's handlers hold find their hooks as they were, and the
  // handlers rendered in that state (closures over its values) run as they
  // would after replaying the clicks from a fresh mount.
  // The hooks of a fiber that has none, shared: a fiber in a settled state
  // has rendered (or is a host or text fiber), so it never adds one (frozen:
  // adding one would throw, not corrupt every state).
  var NO_HOOKS = Object.freeze([]);

  function save(r) {
    var fibers = [];
    var comps = []; // the entries of fibers with hooks (all a click changes)
    var keyed = []; // the fibers a hook key names, in tree order (see pendingInfo)
    var stack = [r.fiber];
    while (stack.length) {
      var f = stack.pop();
      var hooks = null;
      if (f.hooks.length) {
        hooks = [];
        for (var i = 0; i < f.hooks.length; i++) {
          var h = f.hooks[i];
          var c = {};
          for (var k in h) if (Object.prototype.hasOwnProperty.call(h, k)) c[k] = h[k];
          hooks.push(c);
        }
        comps.push(fibers.length);
      }
      keyFiber(f, keyed);
      fibers.push({ f: f, element: f.element, text: f.text, children: f.children, hooks: f.hooks.length ? f.hooks.slice() : NO_HOOKS, saved: hooks, mounted: f.mounted, unmounted: !!f.unmounted, ref: f.attachedRef == null ? null : f.attachedRef });
      for (var j = f.children.length - 1; j >= 0; j--) stack.push(f.children[j]);
    }
    return { fibers: fibers, comps: comps, keyed: keyed, nextId: r.nextId };
  }

  // The fibers a hook key names (components, fragments and providers), with
  // their heads, in tree order: appends `f`'s entry to `keyed`.
  function keyFiber(f, keyed) {
    if (isComponent(f)) keyed.push({ f: f, head: '#' + typeId(f.type) + '/' + f.key + '/' + f.children.length });
    else if (f.type !== '#text' && typeof f.type !== 'string') keyed.push({ f: f, head: '@' + f.key + '/' + f.children.length });
  }

  // keyFiber over the live tree.
  function keyedOf(r) {
    var keyed = [];
    var stack = [r.fiber];
    while (stack.length) {
      var f = stack.pop();
      keyFiber(f, keyed);
      for (var j = f.children.length - 1; j >= 0; j--) stack.push(f.children[j]);
    }
    return keyed;
  }

  // Writes a saved state back. `clicked`: only a click's handlers ran since
  // it was restored (no render): they change hooks (queued updates, refs)
  // and dirty flags, nothing else, so only the fibers with hooks are written.
  function restore(r, snap, clicked) {
    var n = clicked ? snap.comps.length : snap.fibers.length;
    for (var i = 0; i < n; i++) {
      var e = snap.fibers[clicked ? snap.comps[i] : i];
      e.f.element = e.element;
      e.f.text = e.text;
      e.f.attachedRef = e.ref;
      restoreFiber(e);
    }
    settleRoot(r, snap.nextId);
  }

  // Writes a saved fiber entry back into its fiber: children (reconcile
  // replaces the array, never edits it), hooks and the saved hook fields,
  // flags.
  function restoreFiber(e) {
    var f = e.f;
    f.children = e.children;
    f.hooks = e.hooks === NO_HOOKS ? NO_HOOKS : e.hooks.slice();
    f.mounted = e.mounted;
    f.unmounted = e.unmounted;
    f.dirty = false;
    f.renderPhaseUpdate = false;
    if (e.saved) {
      for (var j = 0; j < e.saved.length; j++) {
        var h = f.hooks[j];
        var c = e.saved[j];
        for (var k in c) h[k] = c[k];
        if (h.queue) h.queue = [];
      }
    }
  }

  // The root as a settled state leaves it: nothing scheduled or pending.
  function settleRoot(r, nextId) {
    r.nextId = nextId;
    r.scheduled = false;
    r.effects = [];
    r.cleanups = [];
    r.refs = [];
  }

  // A state found, kept until it is expanded as less than `save` keeps: its
  // spine, the fibers a render cannot make again as they were (the
  // component fibers, whose hooks the state's dispatch closures hold, and
  // their ancestors), each with its children, its hooks and their fields.
  // The rest (host and text fibers, every element and its props) is what
  // rendering the spine's components again makes (see materialize): the
  // explorer keeps that for the one state it is expanding, not for every
  // state found (issue 23: a state's elements held 0.1 MB on the cookbook's
  // shared deployment engine). Also returns the state's `keyed` fibers (see
  // pendingInfo), which are not kept.
  function saveSpine(r) {
    // Pre-order, then which fibers have a component at or below them.
    var order = [];
    var parents = [];
    var stack = [r.fiber, -1];
    while (stack.length) {
      var at = stack.pop();
      var f = stack.pop();
      var me = order.length;
      order.push(f);
      parents.push(at);
      for (var j = f.children.length - 1; j >= 0; j--) stack.push(f.children[j], me);
    }
    var keep = new Uint8Array(order.length);
    for (var i = order.length - 1; i >= 0; i--) {
      if (keep[i] || isComponent(order[i])) {
        keep[i] = 1;
        if (parents[i] >= 0) keep[parents[i]] = 1;
      }
    }
    var fibers = [];
    var keyed = [];
    for (var n = 0; n < order.length; n++) {
      var g = order[n];
      keyFiber(g, keyed);
      if (!keep[n]) continue;
      var hooks = null;
      if (g.hooks.length) {
        hooks = [];
        for (var k = 0; k < g.hooks.length; k++) {
          var h = g.hooks[k];
          var c = {};
          for (var name in h) if (Object.prototype.hasOwnProperty.call(h, name)) c[name] = h[name];
          hooks.push(c);
        }
      }
      fibers.push({ f: g, children: g.children, hooks: g.hooks.length ? g.hooks.slice() : NO_HOOKS, saved: hooks, mounted: g.mounted, unmounted: !!g.unmounted });
    }
    return { spine: { fibers: fibers, nextId: r.nextId }, keyed: keyed };
  }

  // Writes a spine back: its fibers' children, hooks and flags, and every
  // hook's fields. Enough on its own when no render ran since the state was
  // live (handlers or effects change hooks and flags only).
  function restoreSpine(r, spine) {
    for (var i = 0; i < spine.fibers.length; i++) restoreFiber(spine.fibers[i]);
    settleRoot(r, spine.nextId);
  }

  // Makes a state kept as its spine live again: the spine written back, then
  // every component rendered with the state's hooks (rendering is a function
  // of the hooks, as the explorer's keys already take it to be), its effects
  // neither run nor cleaned up, then the hooks' fields written back again (a
  // render records new dependencies and closures; the state's own are the
  // ones its clicks would meet). The tree must come out as the state's
  // (`key`) with the same component fibers: a generator that renders
  // otherwise the second time is an error, not a silently different state.
  function materialize(r, spine, key, names) {
    restoreSpine(r, spine);
    var saved = root;
    var before = mounts;
    root = r;
    renderAll = true;
    try {
      work(r.fiber, r.element, true);
    } finally {
      renderAll = false;
      root = saved;
    }
    discardTasks(); // what a render queued (its effects do not run here)
    restoreSpine(r, spine);
    if (mounts !== before || treeKey(r, names) !== key) {
      throw new Error('the generator rendered a state differently when it was rendered again with the same hooks (does a render read or write something outside its props and hooks?)');
    }
  }

  // What the engine raises for its own limits is never a finding: a stack
  // overflow rethrown (the sandbox tells it from its flags and the message).
  function isLimit(e) {
    return e instanceof EngineStop || (e instanceof RangeError && e.message === 'Maximum call stack size exceeded');
  }

  function messageOf(e) {
    if (e !== null && typeof e === 'object' && 'message' in e) {
      var name = e.name ? String(e.name) : '';
      return (name ? name + ': ' : '') + String(e.message);
    }
    return typeof e === 'symbol' ? 'a Symbol was thrown (not an Error)' : String(e);
  }

  // The innermost position in the bundle (the script named bundle.js, not
  // this file or the prelude) the error's stack names: [line, col].
  function stackAt(e) {
    var st = e !== null && typeof e === 'object' && typeof e.stack === 'string' ? e.stack : '';
    var m = /\(bundle\.js:(\d+):(\d+)\)/.exec(st);
    return m ? [Number(m[1]), Number(m[2])] : null;
  }

  // The controls of a state as shown: per key, in order, its items.
  function shownControls(cs) {
    var out = [];
    var at = {};
    for (var i = 0; i < cs.length; i++) {
      var c = cs[i];
      var g = at[c.kind + '\u0000' + c.key];
      if (g === undefined) {
        g = out.length;
        at[c.kind + '\u0000' + c.key] = g;
        out.push({ key: c.key, kind: c.kind, items: [] });
      }
      var p = c.node.props;
      var reason = p.title != null && p.title !== '' ? String(p.title) : c.labelTitle || '';
      if (c.kind === 'select') {
        for (var j = 0; j < c.options.length; j++) {
          var o = c.options[j];
          out[g].items.push({ value: o.value, label: o.label, disabled: o.disabled || c.disabled, reason: o.disabled || c.disabled ? reason : '', selected: o.value === c.value });
        }
      } else {
        out[g].items.push({ value: c.value, label: c.label || '', disabled: c.disabled, reason: c.disabled ? reason : '', selected: c.kind === 'radio' || c.kind === 'checkbox' ? c.checked : c.kind === 'text' });
      }
    }
    return out;
  }

  // A settled state's hooks as a string: for each function component, in
  // tree order, its type, key and every hook's state (useState/useReducer),
  // committed dependencies (effects, memos), ref value and id. Rendering is a
  // function of the root's props and these, so two states with the same hook
  // key render the same tree (the converse does not hold). null when some
  // value is not plain data (a function, a Set, a class instance): such a
  // state is told apart by its rendered tree only.
  var typeIds = new Map();
  function typeId(type) {
    var id = typeIds.get(type);
    if (id === undefined) { id = typeIds.size; typeIds.set(type, id); }
    return id;
  }
  function isComponent(f) {
    return typeof f.type === 'function' || (f.type && f.type.$$forwardRef);
  }
  // With `pending`, the key of the state a click has scheduled, before it
  // renders: each state hook with queued updates at the state they compute
  // (its updaters called here, as React's eager path or StrictMode call
  // them more than once) and whether that is a new object; the committed
  // dependencies are the clicked state's. The same pending key renders and
  // settles the same way.
  function hookKey(r, pending) {
    var parts = [];
    var stack = [r.fiber];
    while (stack.length) {
      var f = stack.pop();
      if (isComponent(f)) {
        parts.push('#' + typeId(f.type) + '/' + f.key + '/' + f.children.length);
        for (var i = 0; i < f.hooks.length; i++) {
          var h = f.hooks[i];
          var v;
          if (h.effect || h.memo) v = plain(h.deps);
          else if ('dispatch' in h) {
            var st = h.state;
            if (pending && h.queue.length) {
              for (var q = 0; q < h.queue.length; q++) {
                var u = h.queue[q];
                st = u.eager ? u.value : h.reducer(st, u.action);
              }
              v = plain(st);
              if (v !== null) v = (Object.is(st, h.state) ? '=' : '~') + v;
            } else v = plain(st);
          }
          else if ('id' in h) v = plain(h.id);
          else if ('current' in h) v = plain(h.current);
          else return null;
          if (v === null) return null;
          parts.push(v);
        }
      } else if (f.type !== '#text' && typeof f.type !== 'string') {
        parts.push('@' + f.key + '/' + f.children.length);
      }
      for (var j = f.children.length - 1; j >= 0; j--) stack.push(f.children[j]);
    }
    return parts.join('\u0001');
  }

  // What a click has scheduled, before it renders: the pending key (every
  // state hook at the state its queued updates compute, its updaters called
  // here as React's eager path or StrictMode call them more than once, and
  // whether that is a new object; refs and ids; not the committed
  // dependencies), the hooks in tree order with those states, and the effect
  // hooks. null when some value is not plain data.
  function pendingInfo(keyed) {
    var parts = [];
    var bare = []; // parts without the marks of changed state objects
    var refs = 0;
    var settled = []; // the hook key (see hookKey) if the render changes nothing else
    var primitive = true; // every effect has a list of primitive dependencies
    var hooks = [];
    var states = [];
    var same = [];
    var effects = [];
    for (var w = 0; w < keyed.length; w++) {
      var f = keyed[w].f;
      parts.push(keyed[w].head);
      bare.push(keyed[w].head);
      settled.push(keyed[w].head);
      if (keyed[w].head.charCodeAt(0) !== 35) continue; // '@': a fragment or provider
      for (var i = 0; i < f.hooks.length; i++) {
        var h = f.hooks[i];
        var v = '';
        var st;
        if (h.effect || h.memo) {
          var dv = plain(h.deps);
          if (dv === null) return null;
          settled.push(dv);
        }
        if (h.effect) {
          effects.push(h);
          if (h.deps == null) primitive = false;
          else for (var pi = 0; pi < h.deps.length; pi++) {
            var dd = h.deps[pi];
            if (dd !== null && (typeof dd === 'object' || typeof dd === 'function')) primitive = false;
          }
        }
        else if (h.memo) v = 'm';
        else if ('dispatch' in h) {
          st = h.state;
          for (var q = 0; q < h.queue.length; q++) {
            var u = h.queue[q];
            st = u.eager ? u.value : h.reducer(st, u.action);
          }
          v = plain(st);
          if (v !== null) {
            settled.push(v);
            bare.push(v);
            v = (Object.is(st, h.state) ? '=' : '~') + v;
          }
        }
        else if ('id' in h) { v = plain(h.id); settled.push(v); }
        else if ('current' in h) { v = plain(h.current); settled.push(v); refs++; }
        else return null;
        if (v === null) return null;
        parts.push(v);
        if (!('dispatch' in h) || h.effect || h.memo) bare.push(v);
        hooks.push(h);
        states.push(st);
        same.push(st !== undefined && Object.is(st, h.state));
      }
    }
    return { key: parts.join('\u0001'), bare: bare.join('\u0001'), refs: refs, settled: primitive ? settled.join('\u0001') : null, hooks: hooks, states: states, same: same, effects: effects };
  }

  // How each effect's dependencies read, from the first render after a
  // click (`hook.deps` then compares equal to what that render passed): per
  // effect, 'n' (no list: it always runs) or per item ['p', plain value] or
  // ['s', g] (the state object of hook g). null when an item is any other
  // object (its identity from render to render is not known).
  function depsSignature(info) {
    var sig = [];
    for (var e = 0; e < info.effects.length; e++) {
      var deps = info.effects[e].deps;
      if (deps == null) { sig.push('n'); continue; }
      var items = [];
      for (var i = 0; i < deps.length; i++) {
        var d = deps[i];
        if (d === null || (typeof d !== 'object' && typeof d !== 'function')) {
          var pv = plain(d);
          if (pv === null) return null;
          items.push(['p', pv]);
          continue;
        }
        var g = -1;
        for (var k = 0; k < info.hooks.length && g < 0; k++) {
          if ('dispatch' in info.hooks[k] && Object.is(info.hooks[k].state, d)) g = k;
        }
        if (g < 0) return null;
        items.push(['s', g]);
      }
      sig.push(items);
    }
    return sig;
  }

  // Which effects the first render after a click runs, from the signature
  // of that pending state and the committed dependencies of the state
  // clicked in ('1' runs, '0' does not).
  function firing(sig, info) {
    var out = '';
    for (var e = 0; e < info.effects.length; e++) {
      var s = sig[e];
      var committed = info.effects[e].deps;
      if (s === 'n' || committed == null || committed.length !== s.length) { out += '1'; continue; }
      var fires = false;
      for (var i = 0; i < s.length && !fires; i++) {
        var c = committed[i];
        if (s[i][0] === 'p') {
          fires = (c !== null && (typeof c === 'object' || typeof c === 'function')) || plain(c) !== s[i][1];
        } else {
          var g = s[i][1];
          // Unchanged state: the committed object itself; a new one differs from anything committed.
          fires = !info.same[g] || !Object.is(c, info.hooks[g].state);
        }
      }
      out += fires ? '1' : '0';
    }
    return out;
  }

  // Whether JSON writes `x` as plain does, so that a list or object of such
  // values is written in one native call: strings, booleans, null and
  // finite numbers other than -0.
  function jsonAsPlain(x) {
    var t = typeof x;
    return t === 'string' || t === 'boolean' || x === null ||
      (t === 'number' && x - x === 0 && (x !== 0 || 1 / x > 0));
  }

  // Plain data as JSON (object keys sorted), or null when it holds anything
  // else.
  function plain(v) {
    if (v === undefined) return 'u';
    if (v === null) return 'null';
    var t = typeof v;
    if (t === 'string' || t === 'boolean') return JSON.stringify(v);
    if (t === 'number') return Object.is(v, -0) ? '-0' : v !== v ? 'NaN' : String(v);
    if (t !== 'object') return null;
    if (Array.isArray(v)) {
      var simple = !('toJSON' in v);
      for (var e = 0; e < v.length && simple; e++) simple = jsonAsPlain(v[e]);
      if (simple) return JSON.stringify(v);
      var a = [];
      for (var i = 0; i < v.length; i++) { var x = plain(v[i]); if (x === null) return null; a.push(x); }
      return '[' + a.join(',') + ']';
    }
    var proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return null;
    var keys = Object.keys(v).sort();
    var flat = !('toJSON' in v);
    for (var f = 0; f < keys.length && flat; f++) flat = jsonAsPlain(v[keys[f]]);
    if (flat) return JSON.stringify(v, keys);
    var o = [];
    for (var k = 0; k < keys.length; k++) {
      var y = plain(v[keys[k]]);
      if (y === null) return null;
      o.push(JSON.stringify(keys[k]) + ':' + y);
    }
    return '{' + o.join(',') + '}';
  }

  // A found state's effects, all run again in the state as its last render
  // left them (the closures it passed), as a click into the same hooks
  // whose render changes every effect's dependencies would run them. When
  // that schedules no update and changes no hook, a later click whose
  // pending state holds the same hooks and runs every effect (none with a
  // cleanup to call) settles in this state: no render needed for it. Only
  // states whose effects have no cleanup; the state is restored after.
  function learnQuiet(ex, keyed, spine) {
    var info = pendingInfo(keyed);
    if (info === null || info.effects.length === 0 || ex.quiet.has(info.bare)) return;
    for (var i = 0; i < info.effects.length; i++) {
      var h = info.effects[i];
      if (h.cleanup !== undefined || typeof h.create !== 'function') return;
    }
    var r = ex.r;
    var saved = root;
    root = r;
    var quiet = false;
    try {
      r.scheduled = false;
      r.effects = [];
      queueEffects(r.fiber, r.effects);
      runEffects(r);
      microtasks();
      // A timer they set could change state later: not known to be quiet.
      if (!r.scheduled && !timersPending()) {
        // Effects change hooks by dispatching (which scheduled nothing) or
        // by writing refs.
        var after = info.refs ? pendingInfo(keyed) : info;
        quiet = after !== null && after.bare === info.bare;
      }
    } catch (e) {
      if (isLimit(e)) throw e;
    } finally {
      root = saved;
      discardTasks();
      restoreSpine(r, spine);
    }
    if (quiet) ex.quiet.add(info.bare);
  }

  // Marks every effect below `fiber` to run with the closure of its last
  // render, queued as a render queues them (children before parents).
  function queueEffects(fiber, out) {
    for (var i = 0; i < fiber.children.length; i++) queueEffects(fiber.children[i], out);
    for (var j = 0; j < fiber.hooks.length; j++) {
      var h = fiber.hooks[j];
      if (h.effect) { h.pending = h.create; out.push([fiber, h]); }
    }
  }

  // Memoises how a click's batch ends (true: in a state found; else the
  // crash) for its first pass's edge `pk` (null: not memoisable) and the
  // edges of its later passes.
  function settle(ex, pk, later, outcome) {
    if (pk !== null) ex.edges.set(pk, outcome);
    for (var i = 0; i < later.length; i++) ex.edges.set(later[i], outcome);
  }

  // Whether an effect of a pending state has a cleanup to call.
  function cleanups(info) {
    for (var i = 0; i < info.effects.length; i++) if (info.effects[i].cleanup !== undefined) return true;
    return false;
  }

  // Starts expanding state `i`: makes it live (unless it is: the state last
  // found, untouched since) and keeps, while its clicks are tried, a full
  // snapshot to restore between them, its controls and its actions.
  function expand(ex, i) {
    var st = ex.states[i];
    var live = ex.at === i && ex.touched === 0;
    if (st.snap !== null) {
      if (!live) restore(ex.r, st.snap, false);
    } else if (ex.at !== i || ex.touched === 2) {
      materialize(ex.r, st.spine, st.key, ex.names);
    } else if (ex.touched === 1) {
      restoreSpine(ex.r, st.spine);
    }
    ex.at = i;
    ex.touched = 0;
    var cs = snapshot(ex.r).controls;
    var acts = actions(cs);
    if (ex.opts.checkboxes === 'each' && st.cb) {
      acts = acts.filter(function (a) { return cs[a[0]].kind !== 'checkbox'; });
    }
    return { snap: st.snap !== null ? st.snap : save(ex.r), controls: cs, actions: acts, cb: st.cb };
  }

  // Explorations in progress, by target.
  var explorations = {};

  // Keeps a state found (live, as its render left it; `key` its tree key)
  // until it is expanded, and returns what the caller reports of it. While
  // the heap holds less than `fullBytes`, the state keeps a full snapshot
  // too (expanding it then needs no render); past that, only its spine.
  function record(ex, s, key, cb, details) {
    var saved = saveSpine(ex.r);
    var snap = heapUsed() < ex.fullBytes ? save(ex.r) : null;
    learnQuiet(ex, saved.keyed, saved.spine);
    ex.states.push({ spine: saved.spine, snap: snap, key: key, cb: cb });
    var out = { selection: selection(s.controls), commands: commands(s.nodes), blocks: pageBlocks(s.nodes) };
    if (details) out.controls = shownControls(s.controls);
    return out;
  }

  // Starts exploring a target: mounts it and returns its initial state.
  // Options: {checkboxes: "all" | "each", controls: bool, fullBytes: the
  // heap below which states found keep full snapshots (default: always)}.
  function explore(t, optsJson) {
    var opts = optsJson ? JSON.parse(optsJson) : {};
    var r = mount(target(t).element);
    var s = snapshot(r);
    var names = new Interned();
    var key = treeKey(r, names);
    var ex = { r: r, opts: opts, names: names, seen: new Set([key]), hooks: new Set(), edges: new Map(), sigs: new Map(), quiet: new Set(), states: [], cur: null, next: 0, action: 0, at: 0, touched: 0, fullBytes: opts.fullBytes == null ? Infinity : opts.fullBytes };
    var hk0 = hookKey(r);
    if (hk0 !== null) ex.hooks.add(hk0);
    explorations[t] = ex;
    return JSON.stringify(record(ex, s, key, false, opts.controls));
  }

  // Explores on, breadth-first, from where the last call stopped: for each
  // known state in discovery order, each of its actions, from that state
  // restored. Stops after `states` new states or `edges` clicks. Returns the
  // new states (the state they were reached from and the action), the clicks
  // that threw (a crash path: the generator's own error), whether the
  // exploration is done, and the states still to expand.
  function step(t, argJson) {
    var lim = JSON.parse(argJson);
    var ex = explorations[t];
    if (!ex) throw new Error('no exploration of target ' + t);
    var out = [];
    var crashes = [];
    var copied = []; // [state, text]: what a click in that state copied
    var edges = 0;
    while (ex.next < ex.states.length && out.length < lim.states && edges < lim.edges) {
      if (ex.cur === null) ex.cur = expand(ex, ex.next);
      var st = ex.cur;
      if (ex.action >= st.actions.length) {
        ex.states[ex.next] = null; // its spine and snapshot are no longer needed
        ex.cur = null;
        ex.next++;
        ex.action = 0;
        continue;
      }
      var a = st.actions[ex.action++];
      edges++;
      // The live tree is this state after at most a click's handlers
      // (`touched` 1) or after a render too (2): restore what they changed.
      if (ex.at !== ex.next || ex.touched === 2) restore(ex.r, st.snap, false);
      else if (ex.touched === 1) restore(ex.r, st.snap, true);
      ex.at = ex.next;
      ex.touched = 1;
      var from = ex.next;
      // A click is memoised by the pending state it schedules and which
      // effects its first render runs: the same two settle the same way
      // (rendering is a function of the hooks; an effect that runs sees the
      // values of that render). Which effects run is known without a render
      // once the same pending state has rendered once (its signature).
      var pk = null;
      var midway = null; // how a batch ended early settles (see flush)
      // The pending states of the batch's later passes (each with the
      // effects its render runs) settle as the click does: the edges
      // memoised for them too. Set before anything can throw: a click whose
      // handlers throw memoises no other click's passes.
      var later = [];
      try {
        var changedState = fireOnly(ex.r, st.controls, a[0], a[1]);
        noteCopies(copied, from);
        if (!changedState) continue; // nothing changed: the same state
        // A timer the handlers set is still pending: how the click settles
        // depends on more than the hooks, so no memo applies to it.
        var timed = timersPending();
        var info = timed ? null : pendingInfo(st.snap.keyed);
        // The hooks would then hold what a state found holds (structure,
        // states and committed dependencies, all primitive): that state's
        // render passes equal dependencies, so no effect runs, and its tree
        // is that state's (rendering is a function of the hooks).
        if (info !== null && info.settled !== null && ex.hooks.has(info.settled)) continue;
        var sig = info === null ? null : ex.sigs.get(info.key);
        if (sig) {
          var fire = firing(sig, info);
          pk = info.key + '\u0002' + fire;
          var known = ex.edges.get(pk);
          if (known === true) continue; // settles to a state already found
          if (known !== undefined) {
            crashes.push({ from: from, action: a, error: known.error, at: known.at });
            continue;
          }
          // Every effect runs, none has a cleanup to call, and in a state
          // found with these hooks they change nothing (see learnQuiet).
          if (fire.indexOf('0') < 0 && ex.quiet.has(info.bare) && !cleanups(info)) {
            ex.edges.set(pk, true);
            continue;
          }
        }
        ex.touched = 2;
        var next = null; // the pending state of the pass about to render
        var last = null; // the last pass's hooks, when all its effects ran and none had a cleanup
        var lastRuns = 0; // timerRuns when the last pass rendered
        flush(ex.r, function (pass) {
          var now = pass === 1 ? info : next;
          next = null;
          last = null;
          lastRuns = timerRuns;
          // A timer set before this render is pending: no memo of its
          // pending state (its outcome depends on the timer too).
          if (timersPending()) { if (pass === 1) sig = null; return; }
          if (now === null || (pass === 1 && sig === null)) return;
          // The effects that run have their new deps pending; the others
          // kept deps equal to this render's.
          var fired = '';
          for (var e = 0; e < now.effects.length; e++) fired += now.effects[e].pending ? '1' : '0';
          if (fired.indexOf('0') < 0 && !cleanups(now)) last = now.bare;
          var nsig = ex.sigs.get(now.key);
          if (nsig === undefined) {
            nsig = depsSignature(now);
            ex.sigs.set(now.key, nsig);
          }
          if (!nsig) return;
          if (pass === 1) { sig = nsig; pk = now.key + '\u0002' + fired; }
          else later.push(now.key + '\u0002' + fired);
        }, function () {
          // Effects scheduled updates: the tree holds a rendered state with
          // updates queued, as after a click. The same pending state and
          // effects that run settle the same way as that click did (when no
          // timer is pending: its outcome depends on the timer too).
          if (timersPending()) { next = null; return false; }
          var mid = pendingInfo(keyedOf(ex.r));
          var msig = mid === null ? undefined : ex.sigs.get(mid.key);
          if (msig) {
            var k = mid.key + '\u0002' + firing(msig, mid);
            if (ex.edges.has(k)) {
              midway = ex.edges.get(k);
              return true;
            }
          }
          next = mid;
          return false;
        });
        if (midway !== null) {
          if (midway !== true) throw midway;
          settle(ex, pk, later, true);
          continue; // settles to a state already found
        }
      } catch (e) {
        // Its microtasks and timers are the crashed batch's.
        if (!isLimit(e)) discardTasks();
        if (e === midway) {
          // A known crash: this click ends in it too.
          settle(ex, pk, later, midway);
          crashes.push({ from: from, action: a, error: midway.error, at: midway.at });
          continue;
        }
        if (isLimit(e)) throw e;
        var crash = { error: messageOf(e), at: stackAt(e) };
        settle(ex, pk, later, crash);
        crashes.push({ from: from, action: a, error: crash.error, at: crash.at });
        continue;
      }
      settle(ex, pk, later, true);
      // The batch ended: its last pass ran every effect and they scheduled
      // nothing, as learnQuiet would find (unless a timer ran after it,
      // which learnQuiet does not take as quiet).
      if (last !== null && lastRuns === timerRuns) ex.quiet.add(last);
      // A hook key seen before settles to a state seen before: no tree to
      // build and compare.
      var hk = hookKey(ex.r);
      if (hk !== null && ex.hooks.has(hk)) continue;
      var key = treeKey(ex.r, ex.names);
      if (hk !== null) ex.hooks.add(hk);
      if (ex.seen.has(key)) continue;
      ex.seen.add(key);
      var s = snapshot(ex.r);
      var isCb = st.cb || st.controls[a[0]].kind === 'checkbox';
      var d = record(ex, s, key, isCb, ex.opts.controls);
      d.from = from;
      d.action = a;
      if (st.controls[a[0]].kind === 'button') d.button = st.controls[a[0]].key;
      out.push(d);
      ex.at = ex.states.length - 1;
      ex.touched = 0;
    }
    var done = ex.next >= ex.states.length;
    if (done) delete explorations[t];
    return JSON.stringify({ states: out, crashes: crashes, copies: copied, done: done, frontier: done ? 0 : ex.states.length - ex.next, refused: tasks.storageProblem ? tasks.storageProblem() : null });
  }

  // What the clicks just made copied to the clipboard, as [state, text]
  // entries of `out` (each text once per state).
  function noteCopies(out, from) {
    var cs = tasks.takeCopies();
    for (var i = 0; i < cs.length; i++) {
      var dup = false;
      for (var j = 0; j < out.length && !dup; j++) dup = out[j][0] === from && out[j][1] === cs[i];
      if (!dup) out.push([from, cs[i]]);
    }
  }

  // What clicking each button of the live state copies (each click from
  // the state as it is: a full snapshot restored after it).
  function copiesOf(r) {
    var cs = snapshot(r).controls;
    var out = [];
    var snap = null;
    for (var i = 0; i < cs.length; i++) {
      if (cs[i].kind !== 'button' || cs[i].disabled) continue;
      if (snap === null) snap = save(r);
      try {
        fireOnly(r, cs, i, 'click');
        noteCopies(out, 0);
      } catch (e) {
        if (isLimit(e)) throw e;
      }
      discardTasks();
      restore(r, snap, false);
    }
    return out.map(function (c) { return c[1]; });
  }

  // Applies requested selections (key -> value) in the component's control
  // order, clicking as a reader would; returns the final state, or an error
  // that lists the values available.
  // In lenient mode (a page with several components), keys this component does
  // not have are returned as `unmatched` instead of being an error.
  // Renders target `t` afresh and clicks `path` ([[control index, value],
  // ...], as an exploration found it) in order, each in the state the one
  // before left: the state those clicks reach, or `gone` when a control the
  // path names is not there (the clicks do not reach it in this browser).
  function replay(t, pathJson) {
    var path = JSON.parse(pathJson);
    var r = mount(target(t).element);
    for (var i = 0; i < path.length; i++) {
      var cs = snapshot(r).controls;
      var a = path[i];
      var c = cs[a[0]];
      if (!c || c.disabled) return JSON.stringify({ gone: i });
      apply(r, cs, a[0], a[1]);
    }
    var result = shown(snapshot(r));
    result.copies = copiesOf(r);
    return JSON.stringify({ state: result });
  }

  function select(t, requestJson) {
    var req = JSON.parse(requestJson); // {want: [[key, value], ...], lenient}
    var want = req.want;
    var r = mount(target(t).element);
    var pending = want.slice();
    var applied = [];
    var guard = 0;
    while (pending.length) {
      if (++guard > 1000) throw new Error('selection did not finish');
      var s = snapshot(r);
      var cs = s.controls.filter(function (c) { return c.kind !== 'button'; }); // buttons are clicked, not selected
      var pick = -1;
      var at = -1;
      for (var i = 0; i < cs.length && pick < 0; i++) {
        for (var j = 0; j < pending.length; j++) if (names(cs, cs[i], pending[j][0])) { pick = j; at = i; break; }
      }
      // A button (a chip without a name) is picked by its text or label with
      // the value `click`: clicked once, in the component's control order.
      if (pick < 0) {
        var clicked = false;
        for (var b = 0; b < s.controls.length && !clicked; b++) {
          var bc = s.controls[b];
          if (bc.kind !== 'button') continue;
          for (var bj = 0; bj < pending.length; bj++) {
            if (String(pending[bj][1]) !== 'click' || !names(null, bc, pending[bj][0])) continue;
            if (bc.disabled) {
              return JSON.stringify({ error: 'disabled-value', option: pending[bj][0], value: 'click', available: [], applied: applied });
            }
            apply(r, s.controls, b, 'click');
            applied.push([bc.key, 'click']);
            pending.splice(bj, 1);
            clicked = true;
            break;
          }
        }
        if (clicked) continue;
      }
      if (pick < 0) {
        var keys = [];
        for (var q = 0; q < cs.length; q++) if (keys.indexOf(cs[q].key) < 0) keys.push(cs[q].key);
        if (req.lenient) {
          var partial = shown(snapshot(r));
          partial.copies = copiesOf(r);
          return JSON.stringify({ state: partial, unmatched: pending.map(function (p) { return p[0]; }), options: keys });
        }
        return JSON.stringify({ error: 'unknown-option', option: pending[0][0], options: keys, applied: applied });
      }
      var key = cs[at].key; // the control's own key, however it was named
      var value = String(pending[pick][1]);
      pending.splice(pick, 1);
      var group = cs.map(function (c, idx) { return [c, idx]; }).filter(function (x) { return x[0].key === key; });
      var c0 = group[0][0];
      var available = [];
      var target_ = -1;
      if (c0.kind === 'radio') {
        for (var g = 0; g < group.length; g++) {
          var c = group[g][0];
          var title = c.node.props.title ? String(c.node.props.title) : c.labelTitle || '';
          // A radio the selection shows by its label is selected by it.
          var named = c.shown != null ? c.shown : c.value;
          available.push({ value: named, disabled: c.disabled, label: c.shown != null ? c.shown : c.label || '', title: title });
          if (named === value && target_ < 0) target_ = g;
        }
        if (target_ < 0 || group[target_][0].disabled) {
          return JSON.stringify({ error: target_ < 0 ? 'unknown-value' : 'disabled-value', option: key, value: value, available: available, applied: applied });
        }
        var picked = group[target_][0];
        if (!picked.checked) {
          var by = clickedFor(s.controls, picked);
          apply(r, s.controls, by, by === s.controls.indexOf(picked) ? picked.value : 'click');
        }
      } else if (c0.kind === 'checkbox') {
        if (value !== 'true' && value !== 'false') {
          return JSON.stringify({ error: 'unknown-value', option: key, value: value, available: [{ value: 'true', disabled: c0.disabled }, { value: 'false', disabled: c0.disabled }], applied: applied });
        }
        if (c0.value !== value) {
          if (c0.disabled) return JSON.stringify({ error: 'disabled-value', option: key, value: value, available: [], applied: applied });
          apply(r, cs, group[0][1], value);
        }
      } else if (c0.kind === 'select') {
        var found = null;
        for (var o = 0; o < c0.options.length; o++) {
          available.push({ value: c0.options[o].value, disabled: c0.options[o].disabled, label: c0.options[o].label, title: '' });
          if (c0.options[o].value === value) found = c0.options[o];
        }
        if (!found || found.disabled || c0.disabled) {
          return JSON.stringify({ error: !found ? 'unknown-value' : 'disabled-value', option: key, value: value, available: available, applied: applied });
        }
        if (c0.value !== value) apply(r, cs, group[0][1], value);
      } else {
        if (c0.value !== value) apply(r, cs, group[0][1], value);
      }
      applied.push([key, value]);
    }
    var result = shown(snapshot(r));
    result.copies = copiesOf(r);
    return JSON.stringify({ state: result, unmatched: [], options: [] });
  }

  // The text of a <label> a reader reads as the name of what it holds: its
  // own text, without the controls inside it (a <select>'s options, an
  // input's value), blanks collapsed.
  // An element that is a box of its own (a block, `<br>`, or a `display`
  // other than inline) stands apart from its neighbours, as `innerText`
  // reads it: `TP<small style="display:block">Tensor Parallel</small>` is
  // `TP Tensor Parallel`, `<b>Model</b>:` stays `Model:`.
  var LABEL_SKIPS = { select: 1, input: 1, textarea: 1, option: 1, button: 1 };
  function labelName(lab) {
    function go(n) {
      if (typeof n === 'string') return n;
      if (n === null || typeof n !== 'object' || LABEL_SKIPS[n.type] === 1 || notShown(n)) return '';
      var s = '';
      if (n.children) for (var i = 0; i < n.children.length; i++) s += go(n.children[i]);
      return n !== lab && ownBox(n) ? ' ' + s + ' ' : s;
    }
    return go(lab).replace(/\s+/g, ' ').trim();
  }

  var BLOCK_TAGS = {
    address: 1, article: 1, aside: 1, blockquote: 1, br: 1, dd: 1, details: 1, div: 1, dl: 1,
    dt: 1, fieldset: 1, figcaption: 1, figure: 1, footer: 1, form: 1, h1: 1, h2: 1, h3: 1,
    h4: 1, h5: 1, h6: 1, header: 1, hr: 1, li: 1, main: 1, nav: 1, ol: 1, p: 1, pre: 1,
    section: 1, summary: 1, table: 1, td: 1, th: 1, tr: 1, ul: 1,
  };
  function ownBox(n) {
    if (typeof n.type !== 'string') return false;
    var display = null;
    var decls = reactCss((n.props || {}).style).split(';');
    for (var i = 0; i < decls.length; i++) {
      var d = decls[i].split(':');
      if (d.length >= 2 && d[0].trim().toLowerCase() === 'display') display = d.slice(1).join(':').trim().toLowerCase();
    }
    if (display !== null && display !== '') return !/^(inline|contents)\b/.test(display) || display === 'inline-block' || display === 'inline-flex' || display === 'inline-grid';
    return BLOCK_TAGS[n.type.toLowerCase()] === 1;
  }

  // Whether a requested key names control `c`: its key (name, id, or the
  // name a reader sees), else its label (the text of the <label> around
  // it), else `@N`: the Nth of the selectable controls `cs` (distinct keys,
  // in document order, from 1); `cs` is null for a button (no position).
  function names(cs, c, want) {
    if (c.key === want) return true;
    if (c.labelName && c.labelName === want) return true;
    if (cs === null || want.charAt(0) !== '@') return false;
    var n = Number(want.slice(1));
    if (!(n >= 1) || Math.floor(n) !== n) return false;
    var seen = [];
    for (var i = 0; i < cs.length; i++) if (seen.indexOf(cs[i].key) < 0) seen.push(cs[i].key);
    return seen[n - 1] === c.key;
  }

  // The control a reader clicks to pick radio `c` (an index into `all`): the
  // radio itself when it has a handler of its own, else the nearest element
  // around it that a reader can click (a card's label whose onClick picks
  // it), as the explorer clicks it; the radio when there is none.
  function clickedFor(all, c) {
    var p = c.node.props;
    var self = all.indexOf(c);
    if (typeof p.onChange === 'function' || typeof p.onClick === 'function') return self;
    var byFiber = new Map();
    for (var i = 0; i < all.length; i++) if (all[i].kind === 'button') byFiber.set(all[i].node._fiber, i);
    for (var f = c.node._fiber.parent; f; f = f.parent) {
      var at = byFiber.get(f);
      if (at !== undefined) return all[at].disabled ? self : at;
    }
    return self;
  }

  // React.memo(C, arePropsEqual): a component that renders as C does and
  // is skipped (its last output kept) when its parent renders it with props
  // the comparator calls equal (without one, shallowly equal props), unless
  // its own state or a context above it changed (see work).
  function shallowEqual(a, b) {
    if (Object.is(a, b)) return true;
    if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return false;
    var ka = Object.keys(a);
    var kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    for (var i = 0; i < ka.length; i++) {
      if (!Object.prototype.hasOwnProperty.call(b, ka[i]) || !Object.is(a[ka[i]], b[ka[i]])) return false;
    }
    return true;
  }
  function memo(inner, compare) {
    var Memo = function (props, ref) {
      return inner && inner.$$forwardRef ? inner.render(props, ref) : inner(props);
    };
    Memo.$$memo = typeof compare === 'function' ? compare : shallowEqual;
    if (inner && inner.$$forwardRef) return { $$forwardRef: true, $$memo: Memo.$$memo, render: Memo };
    return Memo;
  }

  // ---- globals --------------------------------------------------------------

  var React = {
    createElement: createElement,
    Fragment: FRAGMENT,
    StrictMode: FRAGMENT,
    useState: useState,
    useEffect: effectHook(false),
    useLayoutEffect: effectHook(true),
    useMemo: useMemo,
    useCallback: useCallback,
    useRef: useRef,
    useReducer: useReducer,
    useContext: useContext,
    useId: useId,
    createContext: createContext,
    createRef: function () { return { current: null }; },
    useImperativeHandle: useImperativeHandle,
    memo: memo,
    forwardRef: function (render) { return { $$forwardRef: true, render: render }; },
    isValidElement: isElement,
  };
  G.React = React;
  G.useState = React.useState;
  G.useEffect = React.useEffect;
  G.useLayoutEffect = React.useLayoutEffect;
  G.useMemo = React.useMemo;
  G.useCallback = React.useCallback;
  G.useRef = React.useRef;
  G.useReducer = React.useReducer;
  G.useContext = React.useContext;
  // The props a target's component destructures that it was not given.
  function missingProps(t) {
    var el = target(t).element;
    var names = G.__rd_props && G.__rd_props.names ? G.__rd_props.names(el.type) : [];
    var given = el.props || {};
    return JSON.stringify(names.filter(function (n) { return given[n] === undefined; }));
  }

  // An entry point whose error leaves no task behind for the next call (the
  // next target of a page is explored in the same engine).
  function guarded(fn) {
    return function (t, arg) {
      try {
        return fn(t, arg);
      } catch (e) {
        if (!isLimit(e)) {
          try { discardTasks(); } catch (ignored) { /* the first error is the one reported */ }
        }
        throw e;
      }
    };
  }

  // The reader's browser of this sandbox (`target` is the world's number:
  // 0 or 1; called before the bundle runs), and the reader-dependent
  // sources read so far (JSON), see prelude.js.
  function world(n) { tasks.world(n); return ''; }
  function reads() { return JSON.stringify(tasks.reads()); }

  G.__rd = { explore: guarded(explore), step: guarded(step), select: guarded(select), replay: guarded(replay), missingProps: missingProps, world: world, reads: reads };
})(globalThis);

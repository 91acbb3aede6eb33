// Inert stand-ins for the browser globals cookbook generators touch (in event
// handlers and effects: copy buttons, theme observers, URL parameters), and
// timers that fire in order under the fixed clock when the renderer runs them
// (`__rd_tasks`, below). Nothing here does I/O. Shared by recipe-drift's
// sandbox and the real-React oracle of the differential test, so both see the
// same world.
(function (G) {
  'use strict';

  // An object that answers every property with another inert object and every
  // call with undefined: `document.querySelector(..)` is undefined, so guarded
  // code takes its "no DOM" path.
  function inert(name) {
    var target = function () {};
    return new Proxy(target, {
      get: function (t, k) {
        if (k === Symbol.toPrimitive) return function () { return ''; };
        if (k === 'toString' || k === 'valueOf') return function () { return ''; };
        if (k === 'then') return undefined; // never a thenable
        if (k === 'length') return 0;
        if (k === Symbol.iterator) return function () { return [][Symbol.iterator](); };
        if (typeof k === 'symbol') return undefined;
        return inert(name + '.' + String(k));
      },
      set: function () { return true; },
      has: function () { return false; },
      apply: function () { return undefined; },
      construct: function () { return inert(name); },
    });
  }

  function URLSearchParams(init) {
    this._p = [];
    var s = typeof init === 'string' ? init.replace(/^\?/, '') : '';
    if (s) {
      var parts = s.split('&');
      for (var i = 0; i < parts.length; i++) {
        if (!parts[i]) continue;
        var kv = parts[i].split('=');
        this._p.push([decodeURIComponent(kv[0]), decodeURIComponent(kv.slice(1).join('='))]);
      }
    }
  }
  URLSearchParams.prototype.get = function (k) {
    for (var i = 0; i < this._p.length; i++) if (this._p[i][0] === k) return this._p[i][1];
    return null;
  };
  URLSearchParams.prototype.has = function (k) { return this.get(k) !== null; };
  URLSearchParams.prototype.getAll = function (k) {
    return this._p.filter(function (p) { return p[0] === k; }).map(function (p) { return p[1]; });
  };
  URLSearchParams.prototype.set = function (k, v) {
    this.delete(k);
    this._p.push([k, String(v)]);
  };
  URLSearchParams.prototype.append = function (k, v) { this._p.push([k, String(v)]); };
  URLSearchParams.prototype.delete = function (k) {
    this._p = this._p.filter(function (p) { return p[0] !== k; });
  };
  URLSearchParams.prototype.forEach = function (fn) {
    for (var i = 0; i < this._p.length; i++) fn(this._p[i][1], this._p[i][0], this);
  };
  URLSearchParams.prototype.toString = function () {
    return this._p.map(function (p) { return encodeURIComponent(p[0]) + '=' + encodeURIComponent(p[1]); }).join('&');
  };

  function MutationObserver() {}
  MutationObserver.prototype.observe = function () {};
  MutationObserver.prototype.disconnect = function () {};
  MutationObserver.prototype.takeRecords = function () { return []; };

  var store = {
    getItem: function () { return null; },
    setItem: function () {},
    removeItem: function () {},
    clear: function () {},
    key: function () { return null; },
    length: 0,
  };

  var noop = function () {};

  // Timers (macrotasks). A browser runs a timer's callback in a task of its
  // own once its delay has passed, after the microtasks and the renders the
  // task before it caused. Here the clock is fixed, so "has passed" is an
  // order: each timer is due at a virtual time (the virtual time it was set
  // at plus its delay; `requestAnimationFrame` is a timer of one 16 ms
  // frame), and the renderer (react.js, which takes `__rd_tasks` and deletes
  // the global) runs the earliest due one, ties in the order they were set,
  // whenever no update is pending and no microtask is queued, until none is
  // left; a timer chain that never ends is its error, naming the timer. The
  // virtual time starts again at 0 when no timer is pending, so when a
  // timer is due never depends on what ran before. Date.now() stays fixed.
  var timers = []; // pending, in the order they are due
  var vnow = 0;
  var lastId = 0; // ids are never reused: a stale clearTimeout clears nothing
  var FRAME = 16;

  function describeFn(fn) {
    return typeof fn === 'function' ? (fn.name ? String(fn.name) : 'an anonymous function') : 'a string of code';
  }

  function insert(t) {
    var i = timers.length;
    while (i > 0 && timers[i - 1].due > t.due) i--;
    timers.splice(i, 0, t);
  }

  function schedule(kind, fn, delay, args, repeat) {
    // As browsers do: a delay is a 32-bit integer of milliseconds, past it
    // (or negative, or not a number) it is 0.
    var d = Number(delay) | 0;
    if (d < 0) d = 0;
    var t = {
      id: ++lastId, kind: kind, fn: fn, args: args, delay: d, due: vnow + d,
      repeat: repeat, live: true, name: describeFn(fn),
      // Where it was set (the renderer names it when it never settles).
      stack: new Error().stack,
    };
    insert(t);
    return t.id;
  }

  function cancel(id) {
    for (var i = 0; i < timers.length; i++) {
      if (timers[i].id === id) { timers[i].live = false; timers.splice(i, 1); return; }
    }
    if (running !== null && running.id === id) running.live = false;
  }

  var running = null; // the timer whose callback is running
  var slice = Array.prototype.slice;
  var setTimeout = function setTimeout(fn, delay) { return schedule('setTimeout', fn, delay, slice.call(arguments, 2), false); };
  var setInterval = function setInterval(fn, delay) { return schedule('setInterval', fn, delay, slice.call(arguments, 2), true); };
  var requestAnimationFrame = function requestAnimationFrame(fn) { return schedule('requestAnimationFrame', fn, FRAME, [0], false); };
  var clearTimer = function (id) { cancel(id); };

  G.__rd_tasks = {
    // How many timers are pending.
    pending: function () { return timers.length; },
    // The timer due first, as `kind(callback, delay)`, and the stack it
    // was set from; null when none is pending.
    next: function () {
      var t = timers[0];
      return t ? { name: t.kind + '(' + t.name + ', ' + t.delay + ')', stack: t.stack } : null;
    },
    // Runs the timer due first (an interval is set again after its
    // callback, unless the callback cleared it). An error its callback
    // throws is dropped, as a browser reports it and goes on.
    run: function () {
      var t = timers.shift();
      if (!t) return false;
      vnow = t.due;
      running = t;
      try {
        if (typeof t.fn === 'function') t.fn.apply(undefined, t.args);
        else (0, eval)(String(t.fn));
      } catch (e) {
        if (e instanceof RangeError && e.message === 'Maximum call stack size exceeded') throw e;
      } finally {
        running = null;
      }
      if (t.repeat && t.live) {
        t.due = vnow + Math.max(t.delay, 1);
        insert(t);
      }
      if (!timers.length) vnow = 0;
      return true;
    },
    // Drops every pending timer.
    clear: function () {
      for (var i = 0; i < timers.length; i++) timers[i].live = false;
      timers.length = 0;
      vnow = 0;
    },
  };

  // Events are built as a browser builds them (`new CustomEvent(type, {detail})`
  // before `window.dispatchEvent`); dispatching is inert, as window and
  // document are, so no listener runs, as no timer fires.
  function Event(type, init) {
    if (!(this instanceof Event)) throw new TypeError("Failed to construct 'Event'");
    this.type = String(type);
    this.bubbles = !!(init && init.bubbles);
    this.cancelable = !!(init && init.cancelable);
    this.composed = !!(init && init.composed);
    this.defaultPrevented = false;
    this.timeStamp = 0;
  }
  Event.prototype.preventDefault = function () {
    if (this.cancelable) this.defaultPrevented = true;
  };
  Event.prototype.stopPropagation = function () {};
  Event.prototype.stopImmediatePropagation = function () {};
  function CustomEvent(type, init) {
    Event.call(this, type, init);
    this.detail = init && init.detail !== undefined ? init.detail : null;
  }
  CustomEvent.prototype = Object.create(Event.prototype);
  CustomEvent.prototype.constructor = CustomEvent;

  G.document = inert('document');
  // `window.setTimeout(..)` is the timer, as in a browser (an inert stand-in
  // would drop it unseen); the rest of window is inert.
  var win = inert('window');
  var ON_WINDOW = ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'requestAnimationFrame', 'cancelAnimationFrame', 'queueMicrotask'];
  G.window = new Proxy(win, {
    get: function (t, k) { return ON_WINDOW.indexOf(k) >= 0 ? G[k] : win[k]; },
  });
  // The clipboard answers as a browser's does, with a promise, but one that
  // never settles (microtasks and timers do run): `writeText(..).then(..)`
  // and the code after `await writeText(..)` never run. Copying changes no
  // command; what a copy button does next ("Copied!", a timer that takes it
  // back) is feedback, not a state a reader picks, and `readText` reads
  // nothing from outside the sandbox.
  var never = function () { return new Promise(function () {}); };
  var clipboard = { writeText: never, readText: never, write: never, read: never };
  var nav = inert('navigator');
  G.navigator = new Proxy(nav, {
    get: function (t, k) { return k === 'clipboard' ? clipboard : nav[k]; },
  });
  G.localStorage = store;
  G.sessionStorage = store;
  G.MutationObserver = MutationObserver;
  G.Event = Event;
  G.CustomEvent = CustomEvent;
  G.URLSearchParams = URLSearchParams;
  G.setTimeout = setTimeout;
  G.setInterval = setInterval;
  G.clearTimeout = clearTimer;
  G.clearInterval = clearTimer;
  G.requestAnimationFrame = requestAnimationFrame;
  G.cancelAnimationFrame = clearTimer;
  // A browser's queueMicrotask (QuickJS has its own; Node's vm contexts, as
  // the oracle makes them, do not).
  if (typeof G.queueMicrotask !== 'function') {
    G.queueMicrotask = function queueMicrotask(fn) {
      if (typeof fn !== 'function') throw new TypeError('queueMicrotask: the argument is not a function');
      Promise.resolve().then(function () { fn(); });
    };
  }
  G.console = { log: noop, warn: noop, error: noop, info: noop, debug: noop };

  // Determinism: the same input renders the same bytes. The clock is fixed:
  // `Date.now()` and `new Date()` are 2025-01-01T00:00:00Z (recipe-drift's
  // worker runs with TZ=UTC), `Date()` is that date's string, and
  // `performance.now()` is 0. Dates built from explicit parts are untouched.
  var FIXED = 1735689600000;
  var RealDate = G.Date;
  var FixedDate = function Date() {
    if (new.target === undefined) return new RealDate(FIXED).toString();
    var args = arguments.length ? Array.prototype.slice.call(arguments) : [FIXED];
    return Reflect.construct(RealDate, args, new.target);
  };
  FixedDate.prototype = RealDate.prototype;
  Object.defineProperty(RealDate.prototype, 'constructor', { value: FixedDate, writable: true, configurable: true });
  FixedDate.now = function now() { return FIXED; };
  FixedDate.parse = RealDate.parse;
  FixedDate.UTC = RealDate.UTC;
  G.Date = FixedDate;
  G.performance = { now: function now() { return 0; }, timeOrigin: FIXED };

  var seed = 0x2545f491;
  Math.random = function () {
    seed ^= seed << 13; seed >>>= 0;
    seed ^= seed >>> 17;
    seed ^= seed << 5; seed >>>= 0;
    return seed / 4294967296;
  };

  // The props a component file's component is rendered with (the bundle
  // calls this; pages pass their own): those given (`--prop`), then, by
  // convention, the module's data exports (`data`: its exports that are not
  // components): each prop the component destructures from its first
  // parameter that a data export of the same name holds; when no name
  // matches, no prop is given, the module has one data export and the
  // component destructures one prop, that one. null when there are none.
  G.__rd_props = function (C, exports, data, given) {
    var props = {};
    var k;
    for (k in given) props[k] = given[k];
    var names = paramNames(C);
    var matched = false;
    for (var i = 0; i < names.length; i++) {
      if (Object.prototype.hasOwnProperty.call(props, names[i])) continue;
      if (data.indexOf(names[i]) >= 0) { props[names[i]] = exports[names[i]]; matched = true; }
    }
    var free = names.filter(function (n) { return !Object.prototype.hasOwnProperty.call(props, n); });
    if (!matched && Object.keys(given).length === 0 && data.length === 1 && names.length === 1 && free.length === 1) {
      props[free[0]] = exports[data[0]];
    }
    return Object.keys(props).length ? props : null;
  };
  G.__rd_props.names = paramNames;

  // The names a function destructures from its first parameter
  // (`({ recipes, isDark = false }) =>`), from its source text.
  function paramNames(C) {
    if (typeof C !== 'function') return [];
    var src = Function.prototype.toString.call(C);
    var m = /^\s*(?:async\s+)?(?:function\b[^(]*)?\(\s*\{([^{}]*)\}/.exec(src);
    if (!m) return [];
    var out = [];
    var parts = m[1].split(',');
    for (var i = 0; i < parts.length; i++) {
      var p = parts[i].trim();
      if (!p || p.slice(0, 3) === '...') continue;
      var name = /^([A-Za-z_$][\w$]*)/.exec(p);
      if (name) out.push(name[1]);
    }
    return out;
  }
})(globalThis);

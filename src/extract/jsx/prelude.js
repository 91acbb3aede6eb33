// Inert stand-ins for the browser globals cookbook generators touch (in event
// handlers and effects: copy buttons, theme observers, URL parameters). Nothing
// here does I/O; timers never fire. Shared by recipe-drift's sandbox and the
// real-React oracle of the differential test, so both see the same world.
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
  var timer = function () { return 0; };

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
  G.window = inert('window');
  // The clipboard answers as a browser's does, with a promise, one that never
  // settles (as timers never fire): `writeText(..).then(..)` runs nothing.
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
  G.setTimeout = timer;
  G.setInterval = timer;
  G.clearTimeout = noop;
  G.clearInterval = noop;
  G.requestAnimationFrame = timer;
  G.cancelAnimationFrame = noop;
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

// Inert stand-ins for the browser globals cookbook generators touch (in event
// handlers and effects: copy buttons, theme observers, URL parameters), and
// timers that fire in order under the fixed clock when the renderer runs them
// (`__rd_tasks`, below). Nothing here does I/O. Shared by recipe-drift's
// sandbox and the real-React oracle of the differential test, so both see the
// same world.
(function (G) {
  'use strict';

  // The reader's browser. What differs from one reader to the next (the
  // clock, randomness, the window's size, the navigator's properties, the
  // page's address and referrer, cookies, media queries) has one value per
  // world: world 0 is the one every render sees; world 1, a clearly
  // different browser (another date, the mirrored random sequence, a phone,
  // an http page reached from a search engine, every media query matching),
  // is chosen (`__rd_tasks.world(1)`) before the bundle runs when the
  // renderer explores the file again to learn whether what it printed
  // depends on any of them. Each read of such a source is recorded by name
  // (`__rd_tasks.reads()`): a file that read none is explored once.
  var world = 0;
  var readSet = Object.create(null);
  var readOrder = [];
  function read(name) {
    if (readSet[name] !== true) { readSet[name] = true; readOrder.push(name); }
  }
  var FIXED = 1735689600000; // 2025-01-01T00:00:00Z
  var WORLDS = [
    {
      now: FIXED, perf: 0,
      window: { innerWidth: 1280, innerHeight: 800, outerWidth: 1280, outerHeight: 900, devicePixelRatio: 1, screenX: 0, screenY: 0 },
      screen: { width: 1920, height: 1080, availWidth: 1920, availHeight: 1040, colorDepth: 24, pixelDepth: 24, orientation: { type: 'landscape-primary', angle: 0 } },
      navigator: {
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
        language: 'en-US', languages: ['en-US', 'en'], platform: 'Linux x86_64', vendor: 'Google Inc.',
        hardwareConcurrency: 8, deviceMemory: 8, maxTouchPoints: 0, onLine: true, cookieEnabled: true,
        webdriver: false, doNotTrack: null,
      },
      location: { protocol: 'https:', hostname: 'docs.example.com', port: '', pathname: '/', search: '', hash: '' },
      referrer: '', cookie: '', media: false,
    },
    {
      now: 1941889062123, perf: 987654.321, // 2031-07-15T13:37:42.123Z
      window: { innerWidth: 375, innerHeight: 667, outerWidth: 375, outerHeight: 812, devicePixelRatio: 3, screenX: 0, screenY: 0 },
      screen: { width: 375, height: 812, availWidth: 375, availHeight: 812, colorDepth: 32, pixelDepth: 32, orientation: { type: 'portrait-primary', angle: 0 } },
      navigator: {
        userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
        language: 'zh-CN', languages: ['zh-CN', 'zh'], platform: 'iPhone', vendor: 'Apple Computer, Inc.',
        hardwareConcurrency: 1, deviceMemory: 0.5, maxTouchPoints: 5, onLine: true, cookieEnabled: false,
        webdriver: false, doNotTrack: '1',
      },
      location: { protocol: 'http:', hostname: 'localhost', port: '3000', pathname: '/docs/', search: '?utm_source=recipe-drift', hash: '#recipe-drift' },
      referrer: 'https://www.google.com/', cookie: 'theme=dark; lang=de', media: true,
    },
  ];
  function W() { return WORLDS[world]; }

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
    // As a browser builds one: from a query string, a list of pairs, another
    // URLSearchParams, or a record's own enumerable properties.
    if (init instanceof URLSearchParams) init = init._p;
    if (Array.isArray(init)) {
      for (var a = 0; a < init.length; a++) this._p.push([String(init[a][0]), String(init[a][1])]);
      return;
    }
    if (init !== null && typeof init === 'object') {
      var ks = Object.keys(init);
      for (var b = 0; b < ks.length; b++) this._p.push([ks[b], String(init[ks[b]])]);
      return;
    }
    var s = init === undefined || init === null ? '' : String(init).replace(/^\?/, '');
    if (s) {
      var parts = s.split('&');
      for (var i = 0; i < parts.length; i++) {
        if (!parts[i]) continue;
        var kv = parts[i].split('=');
        this._p.push([formDecode(kv[0]), formDecode(kv.slice(1).join('='))]);
      }
    }
  }
  // application/x-www-form-urlencoded: `+` is a space, and a `%` that starts
  // no escape stays as it is (a browser never throws here).
  function formDecode(t) {
    return t.replace(/\+/g, ' ').replace(/(%[0-9A-Fa-f]{2})+/g, function (m) {
      try { return decodeURIComponent(m); } catch (e) { return m; }
    });
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

  // A MutationObserver is kept while it observes: a browser calls it after
  // a change to what it observes (the document's own elements, whose
  // writes are dropped here, or an element the page made), and
  // recipe-drift does not deliver mutation records, so such a change is an
  // error naming the observer (`mutated`), never a callback silently not
  // called. One that observes what never changes is quiet.
  var observers = [];
  function MutationObserver(cb) {
    if (!(this instanceof MutationObserver)) throw new TypeError("Failed to construct 'MutationObserver'");
    this._cb = cb;
  }
  MutationObserver.prototype.observe = function (target, opts) {
    observers.push({ obs: this, target: target, subtree: !!(opts && opts.subtree), stack: new Error().stack });
  };
  MutationObserver.prototype.disconnect = function () {
    var self = this;
    observers = observers.filter(function (o) { return o.obs !== self; });
  };
  MutationObserver.prototype.takeRecords = function () { return []; };
  function mutated(n, what) {
    if (!observers.length) return;
    for (var i = 0; i < observers.length; i++) {
      var o = observers[i];
      for (var a = n, first = true; a; a = a.parentNode, first = false) {
        if (a === o.target && (first || o.subtree)) {
          var msg = 'a MutationObserver observes a node the generator changes (' + what + '): a browser calls the ' +
            'observer with the change after it, and recipe-drift does not deliver mutation records, so the ' +
            'command may be another one (set the state where the change is made instead)';
          if (domProblem === null) domProblem = msg;
          throw new Error(msg);
        }
      }
    }
  }

  // The first read-back of a write (kept until the renderer takes it: a
  // `try` around the read cannot hide it).
  var storageProblem = null;
  // `localStorage` / `sessionStorage`: a first visit's, empty. A write is
  // not kept (a state is the same reached by replay or by snapshot, and
  // storage is no part of a snapshot), so reading back what the page wrote
  // since it was mounted would give a browser's value wrong: it is an error
  // naming the key, never a silent `null`.
  function storage(name) {
    var written = Object.create(null);
    function any() { for (var k in written) return true; return false; }
    function readBack(what) {
      var msg = ('`' + name + '.' + what + '` reads back what the page wrote to ' + name +
        ', which recipe-drift does not keep between states (the command would depend on it); keep the selection in React state');
      if (storageProblem === null) storageProblem = msg;
      throw new Error(msg);
    }
    var s = {
      getItem: function (k) { k = String(k); if (written[k] === 1) readBack('getItem(' + JSON.stringify(k) + ')'); return null; },
      setItem: function (k) { written[String(k)] = 1; },
      removeItem: function (k) { delete written[String(k)]; },
      clear: function () { written = Object.create(null); },
      key: function () { if (any()) readBack('key()'); return null; },
    };
    Object.defineProperty(s, 'length', { get: function () { if (any()) readBack('length'); return 0; } });
    Object.defineProperty(s, '__reset', { value: function () { written = Object.create(null); } });
    return s;
  }
  var local = storage('localStorage');
  var session = storage('sessionStorage');

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

  // An inert DOM, for what effects and handlers do with the page outside
  // React's tree: inject a <style> into document.head, lock the body's
  // scroll while a dialog is open, read the theme off <html>. Every call a
  // browser allows succeeds, and none changes what a render can see: an
  // element `document.createElement` makes is the caller's own object (its
  // properties, attributes, style, classes and children can be set and read
  // back), but the document never holds it: `document.head.appendChild(el)`
  // returns `el` and records nothing, lookups (`getElementById`,
  // `querySelector`, ...) find nothing (null, or an empty list), and writes
  // to the document's own elements (<html>, <head>, <body>: their style,
  // classes, attributes, children) are dropped, as `localStorage.setItem`
  // is (reading such a write back is an error, see `storage`). So the document is the same world before and after any effect, and
  // a state is the same whether it is reached by replaying clicks from a
  // fresh mount (the oracle) or by restoring a snapshot (react.js). Nothing
  // loads: a <script src> or <link href> is a string on an object, its
  // onload never runs (as the clipboard's promise never settles).
  var hasOwn = Object.prototype.hasOwnProperty;
  var dropWrite = function () { return true; };
  var refuse = function () { return false; }; // Object.defineProperty on a fixed object throws, as on a frozen one

  function DOMError(name, message) {
    var e = new Error(name + ': ' + message);
    e.name = name;
    return e;
  }

  function cssName(k) {
    return String(k).replace(/[A-Z]/g, function (c) { return '-' + c.toLowerCase(); });
  }

  // A CSSStyleDeclaration: a property reads '' until set; `fixed` drops writes.
  function makeStyle(fixed) {
    var decl = Object.create(null); // CSS names (`background-color`) to values
    function put(k, v) {
      if (fixed) return;
      k = cssName(k);
      if (v == null || v === '') delete decl[k];
      else decl[k] = String(v);
    }
    function cssText() {
      return Object.keys(decl).map(function (k) { return k + ': ' + decl[k] + ';'; }).join(' ');
    }
    var api = {
      setProperty: function (k, v) { put(k, v); },
      getPropertyValue: function (k) { k = cssName(k); return k in decl ? decl[k] : ''; },
      getPropertyPriority: function () { return ''; },
      removeProperty: function (k) {
        k = cssName(k);
        var old = k in decl ? decl[k] : '';
        put(k, '');
        return old;
      },
      item: function (i) { return Object.keys(decl)[i] || ''; },
      toString: function () { return '[object CSSStyleDeclaration]'; },
    };
    return new Proxy(decl, {
      get: function (t, k) {
        if (typeof k === 'symbol') return undefined;
        if (k === 'length') return Object.keys(decl).length;
        if (k === 'cssText') return cssText();
        if (hasOwn.call(api, k)) return api[k];
        k = cssName(k);
        return k in decl ? decl[k] : '';
      },
      set: function (t, k, v) {
        if (typeof k === 'symbol') return true;
        if (k === 'cssText') {
          if (fixed) return true;
          Object.keys(decl).forEach(function (n) { delete decl[n]; });
          String(v == null ? '' : v).split(';').forEach(function (d) {
            var i = d.indexOf(':');
            if (i > 0) put(d.slice(0, i).trim(), d.slice(i + 1).trim());
          });
          return true;
        }
        put(k, v);
        return true;
      },
      has: function (t, k) { return typeof k === 'string'; },
      deleteProperty: function (t, k) { put(k, ''); return true; },
    });
  }

  // A DOMTokenList over an element's className.
  function makeClassList(el) {
    function tokens() { return String(el.className).split(/\s+/).filter(Boolean); }
    function write(ts) { el.className = ts.join(' '); }
    var list = {
      contains: function (t) { return tokens().indexOf(String(t)) >= 0; },
      add: function () {
        var ts = tokens();
        for (var i = 0; i < arguments.length; i++) if (ts.indexOf(String(arguments[i])) < 0) ts.push(String(arguments[i]));
        write(ts);
      },
      remove: function () {
        var drop = Array.prototype.map.call(arguments, String);
        write(tokens().filter(function (t) { return drop.indexOf(t) < 0; }));
      },
      toggle: function (t, force) {
        t = String(t);
        var on = force === undefined ? !list.contains(t) : !!force;
        if (on) list.add(t); else list.remove(t);
        return list.contains(t);
      },
      replace: function (a, b) {
        var ts = tokens();
        var i = ts.indexOf(String(a));
        if (i < 0) return false;
        ts[i] = String(b);
        write(ts);
        return true;
      },
      item: function (i) { var ts = tokens(); return i < ts.length ? ts[i] : null; },
      forEach: function (fn, self) { tokens().forEach(fn, self); },
      toString: function () { return String(el.className); },
    };
    Object.defineProperty(list, 'length', { get: function () { return tokens().length; } });
    Object.defineProperty(list, 'value', { get: function () { return String(el.className); } });
    return list;
  }

  var rect = function () {
    return { x: 0, y: 0, width: 0, height: 0, top: 0, left: 0, right: 0, bottom: 0 };
  };

  // A node. Elements (nodeType 1), text and comment nodes (3, 8) and
  // fragments (11) share one prototype; `fixed` marks the document's own
  // elements, whose writes are dropped (they are wrapped in a Proxy).
  function DomNode(type, name) {
    this.nodeType = type;
    this.nodeName = name;
    this.parentNode = null;
    this.childNodes = [];
    this._data = ''; // a text or comment node's text
    this._fixed = false;
    if (type === 1) {
      this.tagName = name;
      this.localName = name.toLowerCase();
      this.namespaceURI = 'http://www.w3.org/1999/xhtml';
      this.id = '';
      this.className = '';
      this._attrs = Object.create(null);
      this._html = '';
      this.style = makeStyle(false);
      this.dataset = {};
      this.classList = makeClassList(this);
    }
  }
  var NP = DomNode.prototype;
  function accessor(name, get, set) {
    Object.defineProperty(NP, name, { get: get, set: set || function () {}, configurable: true });
  }
  accessor('parentElement', function () {
    return this.parentNode && this.parentNode.nodeType === 1 ? this.parentNode : null;
  });
  accessor('children', function () { return this.childNodes.filter(function (n) { return n.nodeType === 1; }); });
  accessor('firstChild', function () { return this.childNodes[0] || null; });
  accessor('lastChild', function () { return this.childNodes[this.childNodes.length - 1] || null; });
  accessor('firstElementChild', function () { return this.children[0] || null; });
  accessor('lastElementChild', function () { var c = this.children; return c[c.length - 1] || null; });
  accessor('childElementCount', function () { return this.children.length; });
  function sibling(n, d) {
    var p = n.parentNode;
    if (!p) return null;
    return p.childNodes[p.childNodes.indexOf(n) + d] || null;
  }
  accessor('nextSibling', function () { return sibling(this, 1); });
  accessor('previousSibling', function () { return sibling(this, -1); });
  accessor('isConnected', function () { return false; });
  accessor('ownerDocument', function () { return G.document; });
  accessor('textContent', function () {
    if (this.nodeType === 3 || this.nodeType === 8) return this._data;
    return this.childNodes.map(function (n) { return n.nodeType === 8 ? '' : n.textContent; }).join('');
  }, function (v) {
    mutated(this, 'textContent');
    if (this._fixed) return;
    v = v == null ? '' : String(v);
    if (this.nodeType === 3 || this.nodeType === 8) { this._data = v; return; }
    clear(this);
    if (v !== '') insertNode(this, text(v), null);
  });
  accessor('data', function () { return this._data; }, function (v) { mutated(this, 'data'); if (!this._fixed) this._data = String(v); });
  accessor('nodeValue', function () {
    return this.nodeType === 3 || this.nodeType === 8 ? this._data : null;
  }, function (v) { if (this.nodeType === 3 || this.nodeType === 8) this._data = String(v); });
  accessor('innerText', function () { return this.textContent; }, function (v) { this.textContent = v; });
  // innerHTML is kept as the string it was set to (it is not parsed).
  accessor('innerHTML', function () { return this._html || ''; }, function (v) {
    mutated(this, 'innerHTML');
    if (this._fixed) return;
    clear(this);
    this._html = v == null ? '' : String(v);
  });

  function clear(n) {
    for (var i = 0; i < n.childNodes.length; i++) n.childNodes[i].parentNode = null;
    n.childNodes = [];
    n._html = '';
  }
  function text(s) {
    var t = new DomNode(3, '#text');
    t._data = String(s);
    return t;
  }
  function node(x) { return x instanceof DomNode ? x : text(x); }
  function detach(n) {
    var p = n.parentNode;
    if (!p) return;
    mutated(p, 'a child removed');
    var i = p.childNodes.indexOf(n);
    if (i >= 0) p.childNodes.splice(i, 1);
    n.parentNode = null;
  }
  // Inserts `child` (a fragment: its children) before `ref` (null: last).
  // A node inserted into itself or a descendant of it throws, as in a
  // browser, so the tree has no cycle. Into a fixed element: nothing.
  function insertNode(parent, child, ref) {
    if (!(child instanceof DomNode)) {
      throw new TypeError("Failed to execute 'appendChild' on 'Node': parameter 1 is not of type 'Node'.");
    }
    mutated(parent, 'a child added');
    if (parent._fixed || child._fixed) return child; // the document's own elements stay put
    for (var a = parent; a; a = a.parentNode) {
      if (a === child) throw DOMError('HierarchyRequestError', 'The new child element contains the parent.');
    }
    var kids = child.nodeType === 11 ? child.childNodes.slice() : [child];
    if (child.nodeType === 11) clear(child);
    for (var i = 0; i < kids.length; i++) {
      detach(kids[i]);
      var at = ref ? parent.childNodes.indexOf(ref) : -1;
      if (at < 0) parent.childNodes.push(kids[i]);
      else parent.childNodes.splice(at, 0, kids[i]);
      kids[i].parentNode = parent;
    }
    parent._html = '';
    return child;
  }

  NP.appendChild = function (c) { return insertNode(this, c, null); };
  NP.insertBefore = function (c, ref) { return insertNode(this, c, ref || null); };
  NP.append = function () { for (var i = 0; i < arguments.length; i++) insertNode(this, node(arguments[i]), null); };
  NP.prepend = function () {
    var first = this.childNodes[0] || null;
    for (var i = 0; i < arguments.length; i++) insertNode(this, node(arguments[i]), first);
  };
  NP.replaceChildren = function () {
    if (this._fixed) return;
    clear(this);
    this.append.apply(this, arguments);
  };
  NP.removeChild = function (c) {
    if (!this._fixed && c instanceof DomNode && c.parentNode === this) detach(c);
    return c;
  };
  NP.replaceChild = function (n, old) {
    if (this._fixed || !(old instanceof DomNode) || old.parentNode !== this) return old;
    insertNode(this, n, old);
    detach(old);
    return old;
  };
  NP.remove = function () { if (!this._fixed) detach(this); };
  NP.before = function () {
    var p = this.parentNode;
    if (p) for (var i = 0; i < arguments.length; i++) insertNode(p, node(arguments[i]), this);
  };
  NP.after = function () {
    var p = this.parentNode;
    if (!p) return;
    var ref = this.nextSibling;
    for (var i = 0; i < arguments.length; i++) insertNode(p, node(arguments[i]), ref);
  };
  NP.contains = function (other) {
    for (var n = other; n instanceof DomNode; n = n.parentNode) if (n === this) return true;
    return false;
  };
  NP.hasChildNodes = function () { return this.childNodes.length > 0; };
  NP.cloneNode = function (deep) {
    var c = new DomNode(this.nodeType, this.nodeName);
    c._data = this._data;
    if (this.nodeType === 1) {
      c.id = this.id;
      c.className = this.className;
      for (var k in this._attrs) c._attrs[k] = this._attrs[k];
      c.style.cssText = this.style.cssText;
      for (var d in this.dataset) c.dataset[d] = this.dataset[d];
      c._html = this._html;
    }
    if (deep) for (var i = 0; i < this.childNodes.length; i++) insertNode(c, this.childNodes[i].cloneNode(true), null);
    return c;
  };

  function dataKey(name) {
    return name.slice(5).replace(/-([a-z])/g, function (m, c) { return c.toUpperCase(); });
  }
  NP.setAttribute = function (name, value) {
    mutated(this, 'an attribute set');
    if (this._fixed) return;
    name = String(name).toLowerCase();
    value = String(value);
    this._attrs[name] = value;
    if (name === 'id') this.id = value;
    else if (name === 'class') this.className = value;
    else if (name === 'style') this.style.cssText = value;
    else if (name.slice(0, 5) === 'data-') this.dataset[dataKey(name)] = value;
  };
  NP.getAttribute = function (name) {
    name = String(name).toLowerCase();
    if (name === 'id') return this.id !== '' || name in this._attrs ? this.id : null;
    if (name === 'class') return this.className !== '' || name in this._attrs ? this.className : null;
    if (name === 'style') return this.style.length || name in this._attrs ? this.style.cssText : null;
    return name in this._attrs ? this._attrs[name] : null;
  };
  NP.hasAttribute = function (name) { return this.getAttribute(name) !== null; };
  NP.removeAttribute = function (name) {
    mutated(this, 'an attribute removed');
    if (this._fixed) return;
    name = String(name).toLowerCase();
    delete this._attrs[name];
    if (name === 'id') this.id = '';
    else if (name === 'class') this.className = '';
    else if (name === 'style') this.style.cssText = '';
    else if (name.slice(0, 5) === 'data-') delete this.dataset[dataKey(name)];
  };
  NP.toggleAttribute = function (name, force) {
    var on = force === undefined ? !this.hasAttribute(name) : !!force;
    if (on) { if (!this.hasAttribute(name)) this.setAttribute(name, ''); } else this.removeAttribute(name);
    return on;
  };
  NP.getAttributeNames = function () { return Object.keys(this._attrs || {}); };
  // Lookups find nothing (the document holds no element a page made).
  NP.querySelector = function () { return null; };
  NP.querySelectorAll = function () { return []; };
  NP.getElementsByTagName = function () { return []; };
  NP.getElementsByClassName = function () { return []; };
  NP.closest = function () { return null; };
  NP.matches = function () { return false; };
  // Listeners on an element the page made run when the page dispatches an
  // event to it (see `fire`); the rest of what a page calls on an element
  // is inert.
  NP.addEventListener = function (type, fn) { addListener(this, type, fn); };
  NP.removeEventListener = function (type, fn) { removeListener(this, type, fn); };
  NP.dispatchEvent = function (e) { return fire(this, this, e); };
  NP.select = function () { selected = this; };
  ['click', 'focus', 'blur', 'scrollIntoView', 'scrollTo', 'scrollBy', 'scroll',
    'show', 'showModal', 'close', 'showPopover', 'hidePopover', 'setSelectionRange',
    'requestFullscreen', 'releasePointerCapture', 'setPointerCapture', 'normalize',
  ].forEach(function (m) { NP[m] = noop; });
  NP.getBoundingClientRect = rect;
  NP.getClientRects = function () { return []; };
  NP.attachShadow = function () { return new DomNode(11, '#document-fragment'); };
  NP.animate = function () { return { cancel: noop, finish: noop, play: noop, pause: noop, finished: new Promise(function () {}) }; };
  NP.toString = function () { return this.nodeType === 1 ? '[object HTMLElement]' : '[object Node]'; };

  // One of the document's own elements: reads as an empty element of that
  // tag; every write, to it or through it, is dropped.
  function fixedElement(tag, parent) {
    var n = new DomNode(1, tag);
    n._fixed = true;
    n.style = makeStyle(true);
    n.dataset = new Proxy({}, { set: dropWrite, defineProperty: refuse, deleteProperty: dropWrite });
    n.parentNode = parent || null;
    Object.freeze(n.childNodes);
    var p = new Proxy(n, {
      // Its size is the window's (reader-dependent: recorded when read).
      get: function (t, k) {
        if (typeof k === 'string' && hasOwn.call(LAYOUT, k)) { read('the layout (' + tag.toLowerCase() + '.' + k + ')'); return LAYOUT[k](); }
        if (k === 'getBoundingClientRect') return function () { read('the layout (' + tag.toLowerCase() + '.getBoundingClientRect())'); return windowRect(); };
        return t[k];
      },
      set: dropWrite,
      defineProperty: refuse,
      deleteProperty: dropWrite,
    });
    n.classList = makeClassList(p); // its writes go through the Proxy
    return p;
  }
  // Sizes that follow the reader's window: the document's, and an element's
  // width (an element React rendered is as wide as the window, 20 px high).
  var LAYOUT = {
    clientWidth: function () { return W().window.innerWidth; },
    clientHeight: function () { return W().window.innerHeight; },
    offsetWidth: function () { return W().window.innerWidth; },
    offsetHeight: function () { return W().window.innerHeight; },
    scrollWidth: function () { return W().window.innerWidth; },
    scrollHeight: function () { return W().window.innerHeight; },
  };
  function windowRect() {
    var w = W().window.innerWidth;
    var h = W().window.innerHeight;
    return { x: 0, y: 0, width: w, height: h, top: 0, left: 0, right: w, bottom: h };
  }
  var htmlEl = fixedElement('HTML');
  var headEl = fixedElement('HEAD', htmlEl);
  var bodyEl = fixedElement('BODY', htmlEl);

  var docApi = {
    nodeType: 9,
    nodeName: '#document',
    readyState: 'complete',
    visibilityState: 'visible',
    hidden: false,
    documentElement: htmlEl,
    head: headEl,
    body: bodyEl,
    activeElement: bodyEl,
    createElement: function (tag) { return new DomNode(1, String(tag).toUpperCase()); },
    createElementNS: function (ns, tag) {
      var n = new DomNode(1, String(tag));
      n.namespaceURI = ns == null ? null : String(ns);
      return n;
    },
    createTextNode: function (s) { return text(s); },
    createComment: function (s) { var c = new DomNode(8, '#comment'); c._data = String(s); return c; },
    createDocumentFragment: function () { return new DomNode(11, '#document-fragment'); },
    // Lookups find the elements React rendered (the renderer answers them,
    // see `setLookup`), never the ones a page made.
    getElementById: function (id) { return lookup('id', String(id), false); },
    querySelector: function (sel) { return lookup('selector', String(sel), false); },
    querySelectorAll: function (sel) { return lookup('selector', String(sel), true); },
    getElementsByTagName: function (tag) { return lookup('selector', String(tag), true); },
    getElementsByClassName: function (c) {
      var cs = String(c).split(/\s+/).filter(Boolean);
      return cs.length ? lookup('selector', '.' + cs.join('.'), true) : [];
    },
    getElementsByName: function (n) { return lookup('selector', '[name="' + String(n).replace(/"/g, '') + '"]', true); },
    elementFromPoint: function () { return null; },
    hasFocus: function () { return false; },
    addEventListener: function (type, fn) { listen('document', type, fn); },
    removeEventListener: function (type, fn) { unlisten('document', type, fn); },
    dispatchEvent: function (e) { return fire('document', doc, e); },
    // `execCommand('copy')` copies what is selected (an element's `select()`,
    // or a range over an element's contents).
    execCommand: function (cmd) {
      if (String(cmd).toLowerCase() !== 'copy') return false;
      if (selected !== null) copies.push(selectedText(selected));
      return true;
    },
    createRange: function () {
      return { node: null, selectNodeContents: function (n) { this.node = n; }, selectNode: function (n) { this.node = n; },
        setStart: noop, setEnd: noop, collapse: noop, detach: noop, getBoundingClientRect: rect };
    },
  };
  // What differs between readers' browsers (see WORLDS), read as recorded.
  Object.defineProperty(docApi, 'referrer', { enumerable: true, get: function () { read('document.referrer'); return W().referrer; } });
  Object.defineProperty(docApi, 'cookie', { enumerable: true, get: function () { read('document.cookie'); return W().cookie; }, set: noop });
  Object.defineProperty(docApi, 'location', { enumerable: true, get: function () { return locationObj; } });
  Object.defineProperty(docApi, 'URL', { enumerable: true, get: function () { read('document.URL'); return href(); } });
  Object.defineProperty(docApi, 'documentURI', { enumerable: true, get: function () { read('document.URL'); return href(); } });
  var docInert = inert('document');
  // The rest of the document (cookie, location, ...) stays inert.
  var doc = new Proxy(docApi, {
    get: function (t, k) { return hasOwn.call(docApi, k) ? docApi[k] : docInert[k]; },
    set: dropWrite,
    defineProperty: refuse,
    deleteProperty: dropWrite,
  });

  // window.matchMedia: in world 0 no query matches, in world 1 every one
  // does (each `matches` read is recorded); listeners never run.
  function matchMedia(q) {
    var media = String(q);
    return {
      get matches() { read('matchMedia(' + JSON.stringify(media) + ')'); return W().media; },
      media: media, onchange: null,
      addListener: noop, removeListener: noop, addEventListener: noop, removeEventListener: noop,
      dispatchEvent: function () { return true; },
    };
  }
  // window.getComputedStyle: every property is ''.
  function getComputedStyle() { return makeStyle(true); }

  G.document = doc;
  G.matchMedia = matchMedia;
  G.getComputedStyle = getComputedStyle;
  // `window.setTimeout(..)` is the timer and `window.document` the document,
  // as in a browser (an inert stand-in would drop them unseen); the rest of
  // window is inert.
  var win = inert('window');
  var ON_WINDOW = ['document', 'matchMedia', 'getComputedStyle', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'requestAnimationFrame', 'cancelAnimationFrame', 'queueMicrotask', 'navigator', 'location', 'screen', 'crypto', 'performance', 'localStorage', 'sessionStorage', 'Date', 'Math', 'Event', 'CustomEvent', 'URLSearchParams', 'MutationObserver'];
  var winOwn = {
    addEventListener: function (type, fn) { listen('window', type, fn); },
    removeEventListener: function (type, fn) { unlisten('window', type, fn); },
    dispatchEvent: function (e) { return fire('window', G.window, e); },
    // A message posted to the window is a task (the fixed clock's timer
    // queue, as `setTimeout(0)`) that delivers a `message` event to its
    // listeners.
    postMessage: function (data) {
      setTimeout(function () {
        var e = new Event('message');
        e.data = data;
        e.source = G.window;
        Object.defineProperty(e, 'origin', { enumerable: true, get: function () { return G.location.origin; } });
        fire('window', G.window, e);
      }, 0);
    },
    getSelection: function () { return selection; },
  };
  var visualViewport = { offsetLeft: 0, offsetTop: 0, pageLeft: 0, pageTop: 0, scale: 1, addEventListener: noop, removeEventListener: noop };
  Object.defineProperty(visualViewport, 'width', { enumerable: true, get: function () { read('visualViewport.width'); return W().window.innerWidth; } });
  Object.defineProperty(visualViewport, 'height', { enumerable: true, get: function () { read('visualViewport.height'); return W().window.innerHeight; } });
  winOwn.visualViewport = visualViewport;
  G.window = new Proxy(win, {
    get: function (t, k) {
      if (k === 'window' || k === 'self' || k === 'globalThis' || k === 'top' || k === 'parent') return G.window;
      if (typeof k === 'string' && ON_WINDOW.indexOf(k) >= 0) return G[k];
      if (typeof k === 'string' && hasOwn.call(winOwn, k)) return winOwn[k];
      if (typeof k === 'string' && hasOwn.call(WORLDS[0].window, k)) { read('window.' + k); return W().window[k]; }
      return win[k];
    },
    set: function (t, k, v) {
      if (k === 'onload' || k === 'onpageshow') listen('window', String(k).slice(2), v);
      return true;
    },
  });
  // The window's geometry as globals (`innerWidth`, `devicePixelRatio`).
  Object.keys(WORLDS[0].window).forEach(function (k) {
    Object.defineProperty(G, k, { configurable: true, get: function () { read('window.' + k); return W().window[k]; } });
  });
  var screenObj = {};
  Object.keys(WORLDS[0].screen).forEach(function (k) {
    Object.defineProperty(screenObj, k, { enumerable: true, get: function () { read('screen.' + k); return W().screen[k]; } });
  });
  G.screen = screenObj;

  // The page's address.
  function host() { var l = W().location; return l.hostname + (l.port ? ':' + l.port : ''); }
  function href() { var l = W().location; return l.protocol + '//' + host() + l.pathname + l.search + l.hash; }
  var LOCATION = {
    protocol: function () { return W().location.protocol; },
    hostname: function () { return W().location.hostname; },
    port: function () { return W().location.port; },
    pathname: function () { return W().location.pathname; },
    search: function () { return W().location.search; },
    hash: function () { return W().location.hash; },
    host: host,
    origin: function () { return W().location.protocol + '//' + host(); },
    href: href,
  };
  var locationObj = {
    assign: noop, replace: noop, reload: noop,
    toString: function () { read('location.href'); return href(); },
  };
  Object.keys(LOCATION).forEach(function (k) {
    Object.defineProperty(locationObj, k, { enumerable: true, get: function () { read('location.' + k); return LOCATION[k](); }, set: noop });
  });
  G.location = locationObj;

  // Listeners on the page's own events (`load`, `DOMContentLoaded`,
  // `pageshow`, `readystatechange`) are kept: whether they run depends on
  // how the reader reached the page (opened directly: after React's first
  // effects; by a client-side navigation: never), and the renderer
  // (`__rd_tasks.pageListeners`) says so when one changes the state. Other
  // listeners on window and document are inert.
  var PAGE_EVENTS = { load: 1, DOMContentLoaded: 1, pageshow: 1, readystatechange: 1 };
  var pageListeners = [];
  // Every listener on window, document and the elements the page made, by
  // target (`'window'`, `'document'` or the node) and type: an event the
  // page dispatches itself (`dispatchEvent`, `postMessage`) runs them at
  // once, in order, as in a browser. Emptied when a root mounts.
  var listeners = new Map();
  function addListener(target, type, fn) {
    if (typeof fn !== 'function' && !(fn && typeof fn.handleEvent === 'function')) return;
    type = String(type);
    var byType = listeners.get(target);
    if (!byType) { byType = Object.create(null); listeners.set(target, byType); }
    var list = byType[type] || (byType[type] = []);
    if (list.indexOf(fn) < 0) list.push(fn);
  }
  function removeListener(target, type, fn) {
    var byType = listeners.get(target);
    var list = byType && byType[String(type)];
    if (list) { var i = list.indexOf(fn); if (i >= 0) list.splice(i, 1); }
  }
  // Dispatches `e` to the listeners of `target` (`self` is what they get as
  // `this` and `e.currentTarget`): whether it was not cancelled.
  function fire(target, self, e) {
    if (!(e instanceof Event)) throw new TypeError("Failed to execute 'dispatchEvent': parameter 1 is not of type 'Event'.");
    var byType = listeners.get(target);
    var list = byType && byType[e.type] ? byType[e.type].slice() : [];
    e.target = self;
    e.currentTarget = self;
    // An error a listener throws is dropped, as a browser reports it and
    // goes on (a DOM problem is still the renderer's error after the task).
    for (var i = 0; i < list.length; i++) {
      try {
        if (typeof list[i] === 'function') list[i].call(self, e);
        else list[i].handleEvent(e);
      } catch (ignored) { /* reported by a browser, not thrown to the dispatcher */ }
    }
    return !e.defaultPrevented;
  }
  function listen(on, type, fn) {
    type = String(type);
    addListener(on, type, fn);
    if (PAGE_EVENTS[type] !== 1) return;
    if (typeof fn !== 'function' && !(fn && typeof fn.handleEvent === 'function')) return;
    for (var i = 0; i < pageListeners.length; i++) {
      if (pageListeners[i].on === on && pageListeners[i].type === type && pageListeners[i].fn === fn) return;
    }
    pageListeners.push({ on: on, type: type, fn: fn, stack: new Error().stack });
  }
  function unlisten(on, type, fn) {
    type = String(type);
    removeListener(on, type, fn);
    pageListeners = pageListeners.filter(function (l) { return !(l.on === on && l.type === type && l.fn === fn); });
  }

  // The clipboard answers as a browser's does, with a promise, but one that
  // never settles (microtasks and timers do run): `writeText(..).then(..)`
  // and the code after `await writeText(..)` never run. What a copy button
  // does next ("Copied!", a timer that takes it back) is feedback, not a
  // state a reader picks, and `readText` reads nothing from outside the
  // sandbox. What is copied is kept (`__rd_tasks.takeCopies`): the renderer
  // reads it as a command a reader runs.
  var never = function () { return new Promise(function () {}); };
  var copies = [];
  var clipboard = {
    writeText: function writeText(t) { copies.push(String(t)); return never(); },
    readText: never, write: never, read: never,
  };
  // What `select()` or a range selected last, for `execCommand('copy')`.
  var selected = null;
  var selection = {
    removeAllRanges: function () { selected = null; },
    addRange: function (r) { if (r && r.node) selected = r.node; },
    selectAllChildren: function (n) { selected = n; },
    toString: function () { return selected === null ? '' : selectedText(selected); },
    rangeCount: 0,
  };
  function selectedText(n) {
    if (n && typeof n.value === 'string' && n.value !== '') return n.value;
    return n && n.textContent != null ? String(n.textContent) : '';
  }
  var nav = inert('navigator');
  G.navigator = new Proxy(nav, {
    get: function (t, k) {
      if (k === 'clipboard') return clipboard;
      if (typeof k === 'symbol') return nav[k];
      read('navigator.' + k);
      var n = W().navigator;
      return hasOwn.call(n, k) ? n[k] : nav[k];
    },
  });
  // ---- elements React rendered -------------------------------------------
  //
  // What a ref holds and a lookup finds: the element React rendered, made by
  // `hostElement(access)` for the renderer, which answers from its tree
  // (`access`: the tag, the props, the text, the parent and children, the
  // selector queries, the click). It reads as the rendered element: tag, id,
  // class, attributes, dataset, style, text, children. Harmless calls work
  // (focus, select, scrollIntoView, measuring: every size is 0, listeners,
  // a style that neither shows nor hides it, attributes other than those
  // below), but a write that changes what a reader sees (its text or HTML,
  // its children, `hidden`, its class, `style` display/visibility/content,
  // a `checked` box) is an error naming the write: recipe-drift reads what
  // React rendered, and a page that rewrites it outside React shows another
  // command. The error is thrown where the page writes and again by the
  // renderer after the task (`domProblem`), so a `try` around the write
  // cannot hide it.
  var lookup = function (kind, arg, all) { return all ? [] : null; };
  var domProblem = null;
  function refuseWrite(what, tag) {
    var msg = 'the generator writes ' + what + ' of a <' + tag + '> React rendered (through a ref or a DOM lookup), ' +
      'outside React: a reader then sees what that write leaves, not what React rendered, and recipe-drift ' +
      'does not apply DOM writes (render the change through state instead)';
    if (domProblem === null) domProblem = msg;
    throw new Error(msg);
  }
  var SHOWING_STYLE = { display: 1, visibility: 1, content: 1, opacity: 1, 'content-visibility': 1 };
  var SHOWING_ATTRS = { hidden: 1, 'class': 1, style: 1, checked: 1 };
  var WRITES = ['appendChild', 'insertBefore', 'removeChild', 'replaceChild', 'append', 'prepend',
    'replaceChildren', 'remove', 'before', 'after', 'replaceWith', 'insertAdjacentHTML',
    'insertAdjacentText', 'insertAdjacentElement', 'normalize', 'setHTMLUnsafe'];
  var WRITE_PROPS = { textContent: 1, innerText: 1, outerText: 1, innerHTML: 1, outerHTML: 1, nodeValue: 1, hidden: 1, className: 1, checked: 1 };
  var MEASURES = ['offsetWidth', 'offsetHeight', 'offsetTop', 'offsetLeft', 'clientWidth', 'clientHeight',
    'clientTop', 'clientLeft', 'scrollWidth', 'scrollHeight', 'scrollTop', 'scrollLeft'];
  var ATTR_PROP = { 'class': 'className', 'for': 'htmlFor', tabindex: 'tabIndex', readonly: 'readOnly', maxlength: 'maxLength' };
  function attrOf(props, name) {
    name = String(name).toLowerCase();
    var v = hasOwn.call(ATTR_PROP, name) ? props[ATTR_PROP[name]] : props[name];
    if (v === undefined && name.indexOf('-') < 0) {
      for (var k in props) if (k.toLowerCase() === name) { v = props[k]; break; }
    }
    if (name === 'style' && v && typeof v === 'object') {
      return Object.keys(v).map(function (k) { return cssName(k) + ': ' + v[k] + ';'; }).join(' ');
    }
    if (v == null || v === false || typeof v === 'function') return null;
    return v === true ? '' : String(v);
  }
  function hostElement(a) {
    var tag = a.tag;
    var own = Object.create(null); // what the page set that changes nothing shown
    var attrs = Object.create(null);
    var styleOwn = Object.create(null);
    function props() { return a.props() || {}; }
    function write(what) { return function () { refuseWrite(what + '()', tag); }; }
    var style = new Proxy({}, {
      get: function (t, k) {
        if (typeof k === 'symbol') return undefined;
        if (k === 'setProperty') return function (n, v) { style[n] = v; };
        if (k === 'removeProperty') return function (n) { style[n] = ''; return ''; };
        if (k === 'getPropertyValue') return function (n) { return style[n]; };
        if (k === 'cssText') return attrOf(props(), 'style') || '';
        var name = cssName(k);
        if (name in styleOwn) return styleOwn[name];
        var st = props().style;
        if (st && typeof st === 'object') {
          for (var sk in st) if (cssName(sk) === name) return st[sk] == null ? '' : String(st[sk]);
        }
        return '';
      },
      set: function (t, k, v) {
        if (typeof k === 'symbol') return true;
        var name = cssName(k);
        if (k === 'cssText' || SHOWING_STYLE[name] === 1) refuseWrite('style.' + k, tag);
        styleOwn[name] = v == null ? '' : String(v);
        return true;
      },
    });
    var classList = {
      contains: function (c) { return String(props().className || '').split(/\s+/).indexOf(String(c)) >= 0; },
      item: function (i) { return String(props().className || '').split(/\s+/).filter(Boolean)[i] || null; },
      forEach: function (fn, self) { String(props().className || '').split(/\s+/).filter(Boolean).forEach(fn, self); },
      add: write('classList.add'), remove: write('classList.remove'), toggle: write('classList.toggle'), replace: write('classList.replace'),
      toString: function () { return String(props().className || ''); },
    };
    Object.defineProperty(classList, 'length', { get: function () { return String(props().className || '').split(/\s+/).filter(Boolean).length; } });
    Object.defineProperty(classList, 'value', { get: function () { return String(props().className || ''); } });
    var api = {
      nodeType: function () { return 1; },
      tagName: function () { return tag.toUpperCase(); },
      nodeName: function () { return tag.toUpperCase(); },
      localName: function () { return tag; },
      namespaceURI: function () { return 'http://www.w3.org/1999/xhtml'; },
      id: function () { return attrOf(props(), 'id') || ''; },
      className: function () { return String(props().className || ''); },
      hidden: function () { return !!props().hidden; },
      checked: function () { return !!props().checked; },
      disabled: function () { return !!props().disabled; },
      value: function () { return 'value' in own ? own.value : props().value != null ? String(props().value) : props().defaultValue != null ? String(props().defaultValue) : ''; },
      textContent: function () { return a.text(); },
      innerText: function () { return a.shown(); },
      outerText: function () { return a.shown(); },
      innerHTML: function () { return a.text(); },
      style: function () { return style; },
      classList: function () { return classList; },
      dataset: function () {
        var d = {};
        var p = props();
        for (var k in p) if (k.slice(0, 5) === 'data-') d[dataKey(k)] = String(p[k]);
        return Object.freeze(d);
      },
      parentElement: function () { return a.parent(); },
      parentNode: function () { return a.parent(); },
      children: function () { return a.children(); },
      childNodes: function () { return a.nodes().map(nodeOf); },
      firstChild: function () { var c = a.nodes(); return c.length ? nodeOf(c[0]) : null; },
      lastChild: function () { var c = a.nodes(); return c.length ? nodeOf(c[c.length - 1]) : null; },
      firstElementChild: function () { return a.children()[0] || null; },
      lastElementChild: function () { var c = a.children(); return c[c.length - 1] || null; },
      childElementCount: function () { return a.children().length; },
      isConnected: function () { return true; },
      ownerDocument: function () { return G.document; },
    };
    var methods = {
      getAttribute: function (n) { n = String(n).toLowerCase(); return n in attrs ? attrs[n] : attrOf(props(), n); },
      hasAttribute: function (n) { return methods.getAttribute(n) !== null; },
      getAttributeNames: function () { return Object.keys(props()).filter(function (k) { return k !== 'children' && attrOf(props(), k) !== null; }).concat(Object.keys(attrs)); },
      setAttribute: function (n, v) {
        n = String(n).toLowerCase();
        if (SHOWING_ATTRS[n] === 1) refuseWrite('the `' + n + '` attribute', tag);
        attrs[n] = String(v);
      },
      removeAttribute: function (n) {
        n = String(n).toLowerCase();
        if (SHOWING_ATTRS[n] === 1 && attrOf(props(), n) !== null) refuseWrite('the `' + n + '` attribute', tag);
        delete attrs[n];
      },
      toggleAttribute: function (n) { refuseWrite('the `' + String(n).toLowerCase() + '` attribute', tag); },
      querySelector: function (sel) { return a.query(String(sel), false); },
      querySelectorAll: function (sel) { return a.query(String(sel), true); },
      getElementsByTagName: function (t) { return a.query(String(t), true); },
      getElementsByClassName: function (c) { return a.query('.' + String(c).split(/\s+/).filter(Boolean).join('.'), true); },
      matches: function (sel) { return a.matches(String(sel)); },
      closest: function (sel) { return a.closest(String(sel)); },
      contains: function (o) { return a.contains(o); },
      click: function () { a.click(); },
      select: function () { selected = proxy; },
      getBoundingClientRect: function () {
        read("the layout (an element's getBoundingClientRect())");
        var w = W().window.innerWidth;
        return { x: 0, y: 0, width: w, height: 20, top: 0, left: 0, right: w, bottom: 20 };
      },
      getClientRects: function () { return []; },
      addEventListener: noop, removeEventListener: noop,
      dispatchEvent: function (e) { return !(e && e.defaultPrevented); },
      animate: NP.animate,
      cloneNode: function () { var c = new DomNode(1, tag.toUpperCase()); c.textContent = a.text(); return c; },
      toString: function () { return '[object HTMLElement]'; },
    };
    ['focus', 'blur', 'scrollIntoView', 'scrollTo', 'scrollBy', 'scroll', 'show', 'showModal', 'close',
      'showPopover', 'hidePopover', 'setSelectionRange', 'requestFullscreen', 'releasePointerCapture',
      'setPointerCapture'].forEach(function (m) { methods[m] = noop; });
    WRITES.forEach(function (m) { methods[m] = write(m); });
    MEASURES.forEach(function (m) {
      api[m] = function () {
        if (m in own) return own[m];
        read('the layout (an element\'s ' + m + ')');
        return /Width$/.test(m) ? W().window.innerWidth : /Height$/.test(m) ? 20 : 0;
      };
    });
    // A text child React rendered: it reads as its text; writing it is a
    // write to this element's text.
    function nodeOf(n) {
      if (typeof n !== 'string') return n;
      var t = { nodeType: 3, nodeName: '#text', parentNode: proxy, parentElement: proxy };
      ['data', 'nodeValue', 'textContent', 'wholeText'].forEach(function (k) {
        Object.defineProperty(t, k, { enumerable: true, get: function () { return n; }, set: function () { refuseWrite('the text', tag); } });
      });
      ['remove', 'replaceWith', 'before', 'after', 'appendData', 'insertData', 'replaceData', 'deleteData', 'splitText'].forEach(function (m) {
        t[m] = function () { refuseWrite('the text (' + m + '())', tag); };
      });
      return Object.freeze(t);
    }
    var proxy = new Proxy(Object.create(null), {
      get: function (t, k) {
        if (typeof k === 'symbol') return undefined;
        if (k in api) return api[k]();
        if (k in methods) return methods[k];
        return k in own ? own[k] : undefined;
      },
      set: function (t, k, v) {
        if (typeof k === 'symbol') return true;
        if (WRITE_PROPS[k] === 1) refuseWrite('`' + k + '`', tag);
        if (k === 'style') refuseWrite('`style`', tag);
        own[k] = v;
        return true;
      },
      has: function (t, k) { return typeof k === 'string' && (k in api || k in methods || k in own); },
      defineProperty: function (t, k) { refuseWrite('`' + String(k) + '`', tag); },
      deleteProperty: function () { return true; },
    });
    return proxy;
  }

  G.localStorage = local;
  G.sessionStorage = session;
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
  // In world 1 the clock shows another date and time (see WORLDS).
  var RealDate = G.Date;
  var FixedDate = function Date() {
    if (new.target === undefined) { read('the clock (Date)'); return new RealDate(W().now).toString(); }
    if (!arguments.length) read('the clock (Date)');
    var args = arguments.length ? Array.prototype.slice.call(arguments) : [W().now];
    return Reflect.construct(RealDate, args, new.target);
  };
  FixedDate.prototype = RealDate.prototype;
  Object.defineProperty(RealDate.prototype, 'constructor', { value: FixedDate, writable: true, configurable: true });
  FixedDate.now = function now() { read('the clock (Date.now)'); return W().now; };
  FixedDate.parse = RealDate.parse;
  FixedDate.UTC = RealDate.UTC;
  G.Date = FixedDate;
  var perf = { now: function now() { read('performance.now()'); return W().perf; } };
  Object.defineProperty(perf, 'timeOrigin', { enumerable: true, get: function () { read('performance.timeOrigin'); return W().now; } });
  G.performance = perf;

  // A seeded random sequence; world 1 gives each value mirrored (1 - x, in
  // [0, 1) too), so a comparison with any threshold flips.
  var seed = 0x2545f491;
  function nextRandom() {
    seed ^= seed << 13; seed >>>= 0;
    seed ^= seed >>> 17;
    seed ^= seed << 5; seed >>>= 0;
    return world === 0 ? seed / 4294967296 : (4294967295 - seed) / 4294967296;
  }
  Math.random = function random() { read('Math.random()'); return nextRandom(); };
  // crypto's randomness, from the same sequence.
  var cryptoApi = {
    getRandomValues: function getRandomValues(a) {
      read('crypto.getRandomValues()');
      if (!a || typeof a.length !== 'number') throw new TypeError("Failed to execute 'getRandomValues' on 'Crypto'");
      var bits = a.BYTES_PER_ELEMENT ? a.BYTES_PER_ELEMENT * 8 : 8;
      for (var i = 0; i < a.length; i++) {
        var v = Math.floor(nextRandom() * 4294967296);
        a[i] = bits >= 32 ? v : v % Math.pow(2, bits);
      }
      return a;
    },
    randomUUID: function randomUUID() {
      read('crypto.randomUUID()');
      var h = '';
      for (var i = 0; i < 32; i++) h += Math.floor(nextRandom() * 16).toString(16);
      return h.slice(0, 8) + '-' + h.slice(8, 12) + '-4' + h.slice(13, 16) + '-a' + h.slice(17, 20) + '-' + h.slice(20);
    },
    subtle: inert('crypto.subtle'),
  };
  G.crypto = cryptoApi;

  // For the renderer (react.js takes `__rd_tasks` and deletes the global):
  // the world (before the bundle runs), what was read, what was copied, the
  // page's own listeners, the elements React rendered and DOM writes.
  var T = G.__rd_tasks;
  T.world = function (n) { world = n === 1 ? 1 : 0; };
  T.reads = function () { return readOrder.slice(); };
  T.takeCopies = function () { var c = copies; copies = []; return c; };
  T.pageListeners = function () { var l = pageListeners; pageListeners = []; return l; };
  // A new root: no listener or observer of an earlier one is kept.
  T.resetListeners = function () { listeners = new Map(); observers = []; local.__reset(); session.__reset(); };
  T.setLookup = function (fn) { lookup = fn; };
  T.hostElement = hostElement;
  T.storageProblem = function () { var p = storageProblem; storageProblem = null; return p; };
  T.domProblem = function () { var p = domProblem; domProblem = null; return p; };
  T.fixedElement = function (tag) {
    tag = String(tag).toLowerCase();
    return tag === 'html' ? htmlEl : tag === 'head' ? headEl : tag === 'body' ? bodyEl : null;
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

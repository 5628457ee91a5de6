// deft's page agent: installed in every document (main world) of a browser tab.
// It lists controls in document order (through same-origin iframes and open shadow roots),
// keeps element keys stable for as long as the element lives, resolves keys for actions and
// waits for the page to settle (no XHR/fetch in flight, DOM quiet). Pure DOM; no network.
(function () {
  if (window.__deft) return;
  const doc = Math.random().toString(36).slice(2) + Date.now().toString(36);
  let nextKey = 1;
  const keyOf = new WeakMap();
  const byKey = new Map();
  let pending = 0;
  let lastMutation = performance.now();
  let mutationCount = 0;

  // ---- Page hooks, installed at document start (Page.addScriptToEvaluateOnNewDocument, every
  // frame): which elements have click listeners, and the timers, animation frames and
  // animations an action's own handlers start, so settling waits for them. Invisible to the
  // page: no enumerable global, patched functions keep their native name, length and
  // toString, and addEventListener pays one Map lookup per call (a bit set for click types).
  const apply = Reflect.apply;
  const nativeSetTimeout = window.setTimeout;
  const nativeQueueMicrotask = window.queueMicrotask;
  const nativeRequestAnimationFrame = window.requestAnimationFrame;
  // The agent is reachable as window.__deft but not enumerable, and the page cannot replace it.
  Object.defineProperty(window, '__deft', {
    configurable: true, enumerable: false,
    set(v) {
      // The hooks' entry points join the agent as it is published.
      Object.assign(v, { arm, settlingNow, held, takesClicks });
      Object.defineProperty(window, '__deft', { value: v, enumerable: false, writable: false, configurable: false });
    },
  });
  const disguised = new WeakMap();
  // Replaces `owner[name]` (a function) by `make(native)`, which must be a method (no
  // prototype, not constructible, like a native), keeping the property's attributes.
  const patch = (owner, name, make) => {
    try {
      const d = Object.getOwnPropertyDescriptor(owner, name);
      if (!d || typeof d.value !== 'function') return;
      const native = d.value;
      const repl = make(native);
      disguised.set(repl, native);
      Object.defineProperty(repl, 'name', { value: native.name });
      Object.defineProperty(repl, 'length', { value: native.length });
      Object.defineProperty(owner, name, { value: repl, writable: d.writable, enumerable: d.enumerable, configurable: d.configurable });
    } catch (e) { /* a frozen owner keeps its own */ }
  };
  patch(Function.prototype, 'toString', (native) => ({
    toString() { return apply(native, disguised.get(this) || this, []); },
  }).toString);

  // Requests in flight, so settling waits for XHR/fetch answers.
  patch(XMLHttpRequest.prototype, 'send', (native) => ({
    send() {
      pending++;
      let done = false;
      const fin = () => { if (!done) { done = true; pending--; } };
      this.addEventListener('loadend', fin);
      try { return apply(native, this, arguments); } catch (e) { fin(); throw e; }
    },
  }).send);
  patch(window, 'fetch', (native) => ({
    fetch() {
      pending++;
      let done = false;
      const fin = () => { if (!done) { done = true; pending--; } };
      try {
        const p = apply(native, this, arguments);
        p.then(fin, fin);
        return p;
      } catch (e) { fin(); throw e; }
    },
  }).fetch);

  // Click-ish listeners per target, as a bit set of these types (a removed listener still counts).
  const CLICK_TYPES = new Map([['click', 1], ['mousedown', 2], ['mouseup', 4], ['pointerdown', 8],
    ['pointerup', 16], ['touchstart', 32], ['dblclick', 64], ['contextmenu', 128]]);
  const listened = new WeakMap();
  patch(EventTarget.prototype, 'addEventListener', (native) => ({
    addEventListener(type, listener) {
      const bit = CLICK_TYPES.get(type);
      if (bit !== undefined && listener && this !== null && typeof this === 'object') {
        listened.set(this, (listened.get(this) | 0) | bit);
      }
      return apply(native, this, arguments);
    },
  }).addEventListener);

  // The causal context of the running callback: the action whose input (or whose timers,
  // frames and promise callbacks, transitively) is running, 0 for none. `cur` is the context of
  // the wrapped callback running now (undefined: none of ours); outside one, code that runs
  // while an action's input is being dispatched (its event handlers) belongs to the action.
  let action = 0;
  let armedAt = 0;
  let timerMs = 1000;
  let dispatching = false;
  let settling = false;
  let cur;
  // Whether the running code descends from one of the action's timers or frames (rather than
  // directly from its event handlers).
  let nested = false;
  const timers = new Map();
  const frames = new Set();
  let claimed = [];
  let seenAnims = new WeakSet();
  let lastHeld = -Infinity;
  const context = () => (cur !== undefined ? cur : (dispatching ? action : 0));
  // The context a callback scheduled now (due in `delay` ms) runs in, and whether it holds the
  // action's settle: a short timer its handlers schedule does; one that a timer or frame of the
  // action schedules in turn (a chain, a poll, an animation loop) only while it is due within
  // timerMs of the action, and after that the chain is no longer the action's.
  const lineage = (delay) => {
    const ctx = context();
    if (ctx === 0 || ctx !== action) return [ctx, false];
    if (nested && performance.now() + delay - armedAt > timerMs) return [0, false];
    return [ctx, delay <= timerMs];
  };
  // `fn` wrapped to run in context `ctx`; `started` (if any) is told when it starts.
  const inContext = (fn, ctx, started) => function () {
    if (started) started();
    const pc = cur, pn = nested;
    cur = ctx; nested = true;
    try { return apply(fn, this, arguments); } finally {
      cur = pc; nested = pn;
      if (started) lastHeld = performance.now();
      // What a page's own timer starts while an action settles is not the action's.
      if ((settling || dispatching) && ctx !== action) markAnimations();
    }
  };
  const inMicrotask = (fn, ctx) => {
    if (typeof fn !== 'function') return fn;
    const n = nested;
    return function () {
      const pc = cur, pn = nested;
      cur = ctx; nested = n;
      try { return apply(fn, this, arguments); } finally { cur = pc; nested = pn; }
    };
  };
  const withCallback = (args, fn) => {
    const a = [fn];
    for (let i = 1; i < args.length; i++) a.push(args[i]);
    return a;
  };
  patch(window, 'setTimeout', (native) => ({
    setTimeout(handler, timeout) {
      if (typeof handler !== 'function') return apply(native, this, arguments);
      const delay = Math.max(0, +timeout || 0);
      const [ctx, held] = lineage(delay);
      let id = 0;
      id = apply(native, this, withCallback(arguments, inContext(handler, ctx, held ? () => timers.delete(id) : null)));
      if (held) timers.set(id, performance.now() + delay);
      return id;
    },
  }).setTimeout);
  // An interval is periodic: only its first tick belongs to (and holds) the action.
  patch(window, 'setInterval', (native) => ({
    setInterval(handler, timeout) {
      if (typeof handler !== 'function') return apply(native, this, arguments);
      const delay = Math.max(0, +timeout || 0);
      const [ctx, held] = lineage(delay);
      let id = 0, first = true;
      const once = inContext(handler, ctx, held ? () => timers.delete(id) : null);
      const later = inContext(handler, 0, null);
      id = apply(native, this, withCallback(arguments, function () {
        const f = first ? once : later;
        first = false;
        return apply(f, this, arguments);
      }));
      if (held) timers.set(id, performance.now() + delay);
      return id;
    },
  }).setInterval);
  for (const name of ['clearTimeout', 'clearInterval']) {
    patch(window, name, (native) => ({
      [name](id) { timers.delete(id); return apply(native, this, arguments); },
    })[name]);
  }
  patch(window, 'requestAnimationFrame', (native) => ({
    requestAnimationFrame(callback) {
      if (typeof callback !== 'function') return apply(native, this, arguments);
      const [ctx, held] = lineage(16);
      let id = 0;
      id = apply(native, this, [inContext(callback, ctx, held ? () => frames.delete(id) : null)]);
      if (held) frames.add(id);
      return id;
    },
  }).requestAnimationFrame);
  patch(window, 'cancelAnimationFrame', (native) => ({
    cancelAnimationFrame(id) { frames.delete(id); return apply(native, this, arguments); },
  }).cancelAnimationFrame);
  // Promise callbacks and microtasks carry the context they were queued in (only while there
  // is one to carry: otherwise the call goes straight through).
  patch(Promise.prototype, 'then', (native) => ({
    then(onFulfilled, onRejected) {
      if (cur === undefined && !dispatching) return apply(native, this, arguments);
      const ctx = context();
      return apply(native, this, [inMicrotask(onFulfilled, ctx), inMicrotask(onRejected, ctx)]);
    },
  }).then);
  patch(window, 'queueMicrotask', (native) => ({
    queueMicrotask(callback) {
      if (cur === undefined && !dispatching) return apply(native, this, arguments);
      return apply(native, this, [inMicrotask(callback, context())]);
    },
  }).queueMicrotask);

  // Animations (CSS transitions and animations, element.animate) the action started hold its
  // settle until they finish, when they are finite, end within timerMs and move more than
  // colours and shadows. Those running when it was armed, and those a page's own timers start
  // meanwhile, are not the action's.
  const COSMETIC = new Set(['color', 'background', 'background-color', 'border-color',
    'border-top-color', 'border-right-color', 'border-bottom-color', 'border-left-color',
    'outline', 'outline-color', 'outline-width', 'outline-offset', 'box-shadow', 'text-shadow',
    'fill', 'stroke', 'caret-color', 'text-decoration-color', 'filter', 'backdrop-filter',
    'accent-color', 'column-rule-color']);
  const KEYFRAME_KEYS = new Set(['offset', 'computedOffset', 'easing', 'composite']);
  const animations = () => {
    try { return document.getAnimations ? document.getAnimations() : []; } catch (e) { return []; }
  };
  const markAnimations = () => { for (const a of animations()) seenAnims.add(a); };
  const movesLayout = (a) => {
    const e = a.effect;
    if (!e || !e.getComputedTiming) return false;
    if (!(e.getComputedTiming().endTime <= timerMs)) return false;
    let props = [];
    if (a.transitionProperty) props = [a.transitionProperty];
    else if (e.getKeyframes) {
      for (const f of e.getKeyframes()) {
        for (const k of Object.keys(f)) {
          if (!KEYFRAME_KEYS.has(k)) props.push(k.replace(/[A-Z]/g, (m) => '-' + m.toLowerCase()));
        }
      }
    }
    return props.some((p) => !COSMETIC.has(p));
  };
  // After a claimed animation ends, one more frame is held: the frame that sends its end events.
  let tailFrames = 0;
  const claimAnimations = () => {
    for (const a of animations()) {
      if (seenAnims.has(a)) continue;
      seenAnims.add(a);
      if (movesLayout(a)) claimed.push(a);
    }
    const before = claimed.length;
    claimed = claimed.filter((a) => a.playState === 'running');
    if (claimed.length < before && document.visibilityState !== 'hidden') {
      tailFrames++;
      apply(nativeRequestAnimationFrame, window, [() => {
        if (tailFrames > 0) tailFrames--;
        lastHeld = performance.now();
      }]);
    }
  };

  // Arms this document (and its same-origin frames) for an action about to be dispatched:
  // timers up to `ms` that its handlers schedule will hold the settle that follows.
  function arm(ms) {
    action++;
    armedAt = performance.now();
    timerMs = ms;
    dispatching = true;
    timers.clear();
    frames.clear();
    claimed = [];
    tailFrames = 0;
    seenAnims = new WeakSet();
    markAnimations();
    for (const c of childAgents()) {
      try { c.arm(ms); } catch (e) { /* a frame going away */ }
    }
  }

  // The action's input is dispatched; settling begins (`on`) or ends.
  function settlingNow(on) {
    dispatching = false;
    settling = on;
    for (const c of childAgents()) {
      try { c.settlingNow(on); } catch (e) { /* a frame going away */ }
    }
  }

  // What of the action still runs here and in same-origin frames: timers, animation frames and
  // animations held, and milliseconds since the last of them ended.
  function held() {
    claimAnimations();
    const visible = document.visibilityState !== 'hidden';
    const h = { n: timers.size + (visible ? frames.size + tailFrames : 0) + claimed.length,
      quiet: performance.now() - lastHeld };
    for (const c of childAgents()) {
      try {
        const b = c.held();
        h.n += b.n;
        h.quiet = Math.min(h.quiet, b.quiet);
      } catch (e) { /* a frame going away */ }
    }
    return h;
  }

  // ---- Script-only clickables: elements that take clicks without being native controls or
  // having a widget role.
  const CLICK_PROPS = ['onClick', 'onClickCapture', 'onMouseDown', 'onMouseDownCapture', 'onMouseUp',
    'onMouseUpCapture', 'onPointerDown', 'onPointerDownCapture', 'onPointerUp', 'onPointerUpCapture',
    'onTouchStart', 'onDoubleClick', 'onContextMenu'];
  const ON_HANDLERS = ['onclick', 'onmousedown', 'onmouseup', 'onpointerdown', 'onpointerup',
    'ontouchstart', 'ondblclick', 'oncontextmenu'];
  const NOT_CLICKABLE_TAGS = new Set(['HTML', 'BODY', 'LABEL', 'OPTION', 'OPTGROUP', 'IFRAME',
    'TBODY', 'THEAD', 'TFOOT', 'TR', 'COLGROUP', 'COL', 'FORM', 'LEGEND', 'CAPTION']);
  const NOT_CLICKABLE_ROLES = new Set(['dialog', 'alertdialog', 'table', 'grid', 'list', 'tree',
    'treegrid', 'tablist', 'tabpanel', 'menu', 'menubar', 'toolbar', 'group', 'region', 'form',
    'navigation', 'main', 'document', 'listbox', 'radiogroup', 'row', 'rowgroup', 'Iframe',
    'presentation', 'none']);
  const ITEM_CONTAINERS = new Set(['list', 'listbox', 'menu', 'menubar', 'tablist', 'tree', 'treegrid',
    'grid', 'table', 'row', 'rowgroup', 'toolbar', 'radiogroup']);
  const CONTROLS_IN = 'a[href],button,input,select,textarea,summary,[tabindex],[contenteditable],[onclick],' +
    '[role=button],[role=link],[role=checkbox],[role=radio],[role=switch],[role=tab],[role=menuitem],' +
    '[role=option],[role=treeitem],[role=gridcell]';
  // Per-run caches (a listing is one synchronous run; they are dropped after it).
  let memo = null;
  const cache = () => {
    if (!memo) {
      memo = { cursor: new Map(), clicks: new Map() };
      apply(nativeQueueMicrotask, window, [() => { memo = null; }]);
    }
    return memo;
  };
  const pointer = (el) => {
    const m = cache().cursor;
    let v = m.get(el);
    if (v === undefined) {
      v = getComputedStyle(el).cursor === 'pointer';
      m.set(el, v);
    }
    return v;
  };
  // 1: framework handler props on the node (React's __reactProps$… / __reactEventHandlers$…
  // with onClick and the like, Solid's delegated $$click); -1: a framework's root container,
  // whose delegated listeners are not its own; 0: neither.
  function frameworkClick(el) {
    try {
      for (const k of Object.keys(el)) {
        if (k.startsWith('__reactProps$') || k.startsWith('__reactEventHandlers$')) {
          const p = el[k];
          if (p && typeof p === 'object' && CLICK_PROPS.some((n) => typeof p[n] === 'function')) return 1;
        } else if (k.startsWith('__reactContainer$') || k === '_reactRootContainer') {
          return -1;
        } else if (k.startsWith('$$') && CLICK_TYPES.has(k.slice(2)) && typeof el[k] === 'function') {
          return 1;
        }
      }
    } catch (e) { /* a property of the page's that throws */ }
    return 0;
  }
  const onHandler = (el) => el.attributes.length > 0 && ON_HANDLERS.some((a) => el.hasAttribute(a)) ||
    ON_HANDLERS.some((a) => typeof el[a] === 'function');
  const bits = (m) => { let n = 0; for (; m; m &= m - 1) n++; return n; };
  // Whether a handler-only element is a container delegating its children's clicks: it holds
  // controls, or more than a card's worth of elements.
  function delegates(el) {
    if (el.querySelector(CONTROLS_IN)) return true;
    const all = el.getElementsByTagName('*');
    if (all.length > 40) return true;
    for (const d of all) if (listened.has(d) || frameworkClick(d) > 0) return true;
    return false;
  }
  // Whether element `el` (of role `role`, '' for none) takes clicks through script: a click
  // listener, an on… handler or a framework's handler prop of its own (a container that only
  // delegates does not count, nor does a root listening to every click type), or the pointer
  // cursor where it starts (not inherited from its parent, unless that is a list-like container).
  function takesClicks(el, role) {
    if (NOT_CLICKABLE_TAGS.has(el.tagName) || NOT_CLICKABLE_ROLES.has(role)) return false;
    if (el.ownerDocument !== document) {
      // A same-origin frame's element: its own agent saw its listeners.
      const w = el.ownerDocument.defaultView;
      return !!(w && w.__deft && w.__deft.takesClicks && w.__deft.takesClicks(el, role));
    }
    const m = cache().clicks;
    let v = m.get(el);
    if (v !== undefined) return v;
    v = false;
    const fw = frameworkClick(el);
    const mask = listened.get(el) | 0;
    const own = fw > 0 || onHandler(el) || (mask !== 0 && bits(mask) < 6);
    // The pointer cursor starts here, or is inherited from a list-like container whose items
    // are what takes the clicks. The parent is the one the cursor inherits from: a slot, or the
    // shadow host for a shadow tree's top element.
    const p = el.assignedSlot || el.parentElement || (el.parentNode && el.parentNode.host) || null;
    // A pointer element that holds a control of its own (a menu's <li> around its focusable
    // item) is not what takes the clicks: the control is.
    const ownPointer = pointer(el) && (!p || !pointer(p) || ITEM_CONTAINERS.has(roleOf(p))) &&
      !el.querySelector(HOLDS_CONTROL);
    if (fw >= 0 && (ownPointer || (own && !delegates(el)))) v = true;
    m.set(el, v);
    return v;
  }
  // The role of an element that takes clicks through script: its own, else button.
  const clickRole = (el) => (takesClicks(el, '') ? 'button' : '');
  // Whether node `c` is prose: text, or an inline element or link with no form control in it.
  const isProse = (c) => c.nodeType === 3 || (c.nodeType === 1 && (INLINE.has(c.tagName) ||
    c.tagName === 'A') && !c.querySelector('button,input,select,textarea'));
  // Whether element `el` holds a link or clickable word (for a block of prose).
  function holdsControls(el) {
    for (const d of el.getElementsByTagName('*')) if (isInteractive(d, roleOf(d))) return true;
    return false;
  }
  // Whether `n` has text outside the controls in it.
  function textAround(n) {
    for (const c of n.childNodes) {
      if (c.nodeType === 3 && clean(c.data)) return true;
      if (c.nodeType === 1 && !isInteractive(c, roleOf(c)) && textAround(c)) return true;
    }
    return false;
  }

  // DOM mutations of the document, and of each open shadow root once a listing has walked it
  // (a document observer does not see inside shadow trees).
  const observer = new MutationObserver((ms) => {
    lastMutation = performance.now();
    mutationCount += ms.length;
  });
  const observed = new WeakSet();
  const observe = (target) => {
    if (!target || observed.has(target)) return;
    try {
      observer.observe(target, { subtree: true, childList: true, attributes: true, characterData: true });
      observed.add(target);
    } catch (e) { /* no document yet */ }
  };
  observe(document);

  const key = (el) => {
    let k = keyOf.get(el);
    if (!k) {
      k = nextKey++;
      keyOf.set(el, k);
      byKey.set(k, new WeakRef(el));
    }
    return k;
  };
  const find = (k) => {
    const r = byKey.get(k);
    const el = r && r.deref();
    return el && el.isConnected ? el : null;
  };

  const WIDGET_ROLES = new Set(['button', 'checkbox', 'combobox', 'link', 'listbox', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'scrollbar', 'searchbox', 'slider',
    'spinbutton', 'switch', 'tab', 'textbox', 'treeitem', 'gridcell']);
  const CONTAINER_ROLES = new Set(['dialog', 'alertdialog', 'table', 'grid', 'list', 'tree',
    'treegrid', 'tablist', 'menu', 'menubar', 'toolbar', 'group', 'region', 'form',
    'navigation', 'main', 'document', 'listbox', 'radiogroup']);
  const NAME_FROM_CONTENT = new Set(['button', 'link', 'heading', 'columnheader', 'rowheader',
    'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'treeitem', 'checkbox',
    'radio', 'switch', 'cell', 'gridcell', 'tooltip', 'listitem']);
  const INLINE = new Set(['B', 'I', 'EM', 'STRONG', 'SPAN', 'SMALL', 'CODE', 'ABBR', 'SUP', 'SUB',
    'MARK', 'U', 'S', 'BR', 'TIME', 'KBD', 'Q', 'CITE', 'DFN', 'VAR', 'SAMP', 'FONT', 'WBR']);
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'TITLE']);
  const TEXT_INPUTS = new Set(['text', 'email', 'search', 'tel', 'url', 'password', '']);

  const clean = (s) => (s || '').replace(/\s+/g, ' ').trim();

  function implicitRole(el) {
    const tag = el.tagName;
    switch (tag) {
      case 'A': case 'AREA': return el.hasAttribute('href') ? 'link' : '';
      case 'BUTTON': return 'button';
      case 'INPUT': {
        const t = (el.getAttribute('type') || '').toLowerCase();
        if (t === 'hidden') return '';
        if (['button', 'submit', 'reset', 'image'].includes(t)) return 'button';
        if (t === 'checkbox') return 'checkbox';
        if (t === 'radio') return 'radio';
        if (t === 'range') return 'slider';
        if (t === 'number') return 'spinbutton';
        if (t === 'search') return 'searchbox';
        if (t === 'file') return 'button';
        if (t === 'date' || t === 'datetime-local' || t === 'time' || t === 'month' || t === 'week') return 'Date';
        if (t === 'color') return 'ColorWell';
        return 'textbox';
      }
      case 'TEXTAREA': return 'textbox';
      case 'SELECT': return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
      case 'OPTION': return 'option';
      case 'SUMMARY': return 'DisclosureTriangle';
      case 'H1': case 'H2': case 'H3': case 'H4': case 'H5': case 'H6': return 'heading';
      case 'IMG': return el.getAttribute('alt') === '' ? '' : 'img';
      case 'TABLE': return 'table';
      case 'TR': return 'row';
      case 'TD': return 'cell';
      case 'TH': return el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
      case 'UL': case 'OL': return 'list';
      case 'LI': return 'listitem';
      case 'NAV': return 'navigation';
      case 'MAIN': return 'main';
      case 'FORM': return 'form';
      case 'FIELDSET': return 'group';
      case 'DIALOG': return 'dialog';
      case 'PROGRESS': return 'progressbar';
      case 'METER': return 'meter';
      case 'IFRAME': return 'Iframe';
      default: return '';
    }
  }
  // The role an element declares or has by its tag; roleOf adds the button of a script clickable.
  const plainRole = (el) => clean(el.getAttribute('role')).split(' ')[0].toLowerCase() || implicitRole(el);
  const roleOf = (el) => plainRole(el) || clickRole(el);

  function textOf(el) {
    if (el.tagName === 'IMG') return el.getAttribute('alt') || '';
    let out = '';
    const walk = (n) => {
      if (n.nodeType === 3) { out += n.data; return; }
      if (n.nodeType !== 1) return;
      if (SKIP.has(n.tagName) || n.getAttribute('aria-hidden') === 'true') return;
      if (n.tagName === 'IMG') { out += ' ' + (n.getAttribute('alt') || '') + ' '; return; }
      const kids = n.shadowRoot ? n.shadowRoot.childNodes : n.childNodes;
      for (const c of kids) walk(c);
      if (!INLINE.has(n.tagName)) out += ' ';
    };
    walk(el);
    return clean(out);
  }

  function byIds(el, ids) {
    const root = el.getRootNode();
    return ids.split(/\s+/).map((id) => {
      const t = (root.getElementById ? root.getElementById(id) : null) || document.getElementById(id);
      return t ? textOf(t) : '';
    }).join(' ');
  }

  function nameOf(el, role) {
    const lb = el.getAttribute('aria-labelledby');
    if (lb) { const n = clean(byIds(el, lb)); if (n) return n; }
    const al = clean(el.getAttribute('aria-label'));
    if (al) return al;
    const tag = el.tagName;
    if (tag === 'INPUT') {
      const t = (el.getAttribute('type') || '').toLowerCase();
      if (t === 'button' || t === 'submit' || t === 'reset') {
        return clean(el.value) || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '');
      }
      if (t === 'image') return clean(el.getAttribute('alt'));
    }
    if (el.labels && el.labels.length) {
      const n = clean(Array.from(el.labels).map(textOf).join(' '));
      if (n) return n;
    }
    if (tag === 'FIELDSET') { const lg = el.querySelector(':scope > legend'); if (lg) return textOf(lg); }
    if (tag === 'TABLE') { const c = el.querySelector(':scope > caption'); if (c) return textOf(c); }
    if (tag === 'IMG') return clean(el.getAttribute('alt')) || clean(el.getAttribute('title'));
    if (tag === 'SELECT' || tag === 'TEXTAREA' || tag === 'INPUT') {
      return clean(el.getAttribute('title')) || clean(el.getAttribute('placeholder'));
    }
    if (NAME_FROM_CONTENT.has(role) || role === 'DisclosureTriangle') {
      const n = ITEM_ROLES.has(role) ? ownText(el) : textOf(el);
      if (n) return n;
    }
    return clean(el.getAttribute('title'));
  }

  const isEditable = (el, role) => role === 'textbox' || role === 'searchbox' || role === 'spinbutton' ||
    role === 'Date' || el.isContentEditable;

  function isInteractive(el, role) {
    const tag = el.tagName;
    if (tag === 'A' && el.hasAttribute('href')) return true;
    if (tag === 'BUTTON' || tag === 'SELECT' || tag === 'TEXTAREA' || tag === 'SUMMARY') return true;
    if (tag === 'INPUT') return (el.getAttribute('type') || '').toLowerCase() !== 'hidden';
    if (el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) return true;
    if (WIDGET_ROLES.has(role)) return true;
    if (role && takesClicks(el, role)) return true;
    const ti = el.getAttribute('tabindex');
    return ti !== null && parseInt(ti, 10) >= 0;
  }

  // Items of a composite widget or a focusable container (a menu, listbox, tree, grid, or any
  // element with tabindex >= 0 holding items): options, menu items, tree items and grid cells
  // by role are interactive already; `li` items, `td` cells of a grid and `tabindex="-1"`
  // elements inside such a host are items too, each a control of its own typed by its host.
  const ITEM_ROLES = new Set(['option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem',
    'gridcell', 'listitem']);
  const COMPOSITE_HOSTS = new Set(['listbox', 'menu', 'menubar', 'tree', 'treegrid', 'grid']);
  const FOCUS_HOSTS = new Set(['', 'list', 'table', 'group', 'toolbar']);
  const LIST_HOSTS = new Set(['', 'list', 'listbox', 'menu', 'menubar', 'tree', 'treegrid', 'group']);
  const ITEM_OF_HOST = { listbox: 'option', menu: 'menuitem', menubar: 'menuitem', tree: 'treeitem',
    treegrid: 'treeitem', grid: 'gridcell' };
  const HOLDS_CONTROL = 'a[href],button,input,select,textarea,summary,[tabindex],[contenteditable],' +
    '[role=button],[role=link],[role=checkbox],[role=radio],[role=switch],[role=tab],[role=option],' +
    '[role=menuitem],[role=menuitemcheckbox],[role=menuitemradio],[role=treeitem],[role=gridcell]';
  const LEAF_TAGS = new Set(['A', 'BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'SUMMARY', 'LABEL']);

  // The host kind of `el` (its role, or '' for a generic focusable element), or null.
  function hostKind(el) {
    const role = roleOf(el);
    if (COMPOSITE_HOSTS.has(role)) return role;
    if (LEAF_TAGS.has(el.tagName) || el.isContentEditable || !FOCUS_HOSTS.has(role)) return null;
    const ti = el.getAttribute('tabindex');
    return ti !== null && parseInt(ti, 10) >= 0 ? role : null;
  }

  // The nearest host around `el` (across shadow boundaries, not out of its frame): its kind.
  function hostAround(el) {
    let a = el.parentElement || (el.getRootNode() && el.getRootNode().host) || null;
    while (a) {
      const kind = hostKind(a);
      if (kind !== null) return kind;
      a = a.parentElement || (a.parentNode && a.parentNode.host) || null;
    }
    return null;
  }

  // The role `el` is listed with as an item of its host, or '' when it is no item.
  function itemRole(el) {
    const tag = el.tagName;
    const ti = el.getAttribute('tabindex');
    if (tag !== 'LI' && tag !== 'TD' && ti === null) return '';
    // An item's role is its declared or native one: the pointer cursor an item has as a rule
    // must not turn it into a script clickable's button.
    const own = plainRole(el);
    const minus = ti !== null && parseInt(ti, 10) < 0;
    if (!((tag === 'LI' && own === 'listitem') || (tag === 'TD' && own === 'cell') || (minus && own === ''))) {
      return '';
    }
    const kind = hostAround(el);
    if (kind === null) return '';
    if (tag === 'TD' && kind !== 'grid' && kind !== 'treegrid') return '';
    if (tag === 'LI' && !LIST_HOSTS.has(kind)) return '';
    if (el.querySelector(HOLDS_CONTROL)) return '';
    if (tag === 'TD') return 'gridcell';
    return ITEM_OF_HOST[kind] || 'listitem';
  }

  // An item's own text: what it says without the items and groups nested in it (a tree item
  // is "Fruits", not "Fruits Apples Pears").
  function ownText(el) {
    let out = '';
    const walk = (n) => {
      if (n.nodeType === 3) { out += n.data; return; }
      if (n.nodeType !== 1) return;
      if (SKIP.has(n.tagName) || n.getAttribute('aria-hidden') === 'true') return;
      if (n !== el) {
        const r = roleOf(n);
        if (n.tagName === 'LI' || ITEM_ROLES.has(r) || r === 'group' || r === 'list' || r === 'listbox' ||
          r === 'menu' || r === 'tree') return;
      }
      if (n.tagName === 'IMG') { out += ' ' + (n.getAttribute('alt') || '') + ' '; return; }
      for (const c of (n.shadowRoot ? n.shadowRoot.childNodes : n.childNodes)) walk(c);
      if (!INLINE.has(n.tagName)) out += ' ';
    };
    walk(el);
    return clean(out);
  }

  function valueOf(el, role) {
    const tag = el.tagName;
    if (tag === 'SELECT') {
      const o = el.selectedOptions && el.selectedOptions[0];
      return role === 'combobox' ? (o ? clean(o.text) : '') : null;
    }
    if (tag === 'INPUT') {
      const t = (el.getAttribute('type') || '').toLowerCase();
      if (t === 'password') return '•'.repeat(el.value.length);
      if (['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file'].includes(t)) return null;
      return el.value;
    }
    if (tag === 'TEXTAREA') return el.value;
    if (tag === 'PROGRESS' || tag === 'METER') return String(el.value);
    if (el.isContentEditable) return el.innerText;
    const vn = el.getAttribute('aria-valuenow');
    if (vn !== null) return vn;
    if (role === 'textbox') return el.textContent;
    return null;
  }

  function statesOf(el, role, editable) {
    const s = [];
    const aria = (a) => el.getAttribute(a);
    if (el.matches(':disabled') || aria('aria-disabled') === 'true') s.push('disabled');
    if (deepActive() === el) s.push('focused');
    const t = (el.getAttribute('type') || '').toLowerCase();
    if (el.tagName === 'INPUT' && (t === 'checkbox' || t === 'radio')) {
      if (el.indeterminate) s.push('mixed'); else if (el.checked) s.push('checked');
    } else if (aria('aria-checked') === 'true' || aria('aria-pressed') === 'true') s.push('checked');
    else if (aria('aria-checked') === 'mixed') s.push('mixed');
    if ((el.tagName === 'OPTION' && el.selected) || aria('aria-selected') === 'true') s.push('selected');
    const ex = aria('aria-expanded');
    if (ex === 'true') s.push('expanded');
    else if (ex === 'false' || (el.tagName === 'SELECT' && role === 'combobox')) s.push('collapsed');
    if (el.tagName === 'SUMMARY' && el.parentElement && el.parentElement.tagName === 'DETAILS') {
      s.push(el.parentElement.open ? 'expanded' : 'collapsed');
    }
    if (editable && (el.readOnly || aria('aria-readonly') === 'true')) s.push('readonly');
    if (el.required || aria('aria-required') === 'true') s.push('required');
    if (aria('aria-invalid') === 'true' ||
        (editable && el.checkValidity && el.value !== '' && !el.checkValidity())) s.push('invalid');
    return s;
  }

  function deepActive() {
    let a = document.activeElement;
    while (a) {
      if (a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
      else if (a.tagName === 'IFRAME') {
        let d = null;
        try { d = a.contentDocument; } catch (e) { d = null; }
        if (d && d.activeElement && d.activeElement !== d.body) a = d.activeElement; else break;
      } else break;
    }
    return a;
  }

  const hidden = (el) => {
    if (el.getAttribute('aria-hidden') === 'true') return true;
    if (el.checkVisibility) return !el.checkVisibility({ checkVisibilityCSS: true });
    return el.getClientRects().length === 0;
  };

  function rectOf(el, off) {
    const r = el.getBoundingClientRect();
    return [Math.round(r.left + off[0]), Math.round(r.top + off[1]),
      Math.round(r.right + off[0]), Math.round(r.bottom + off[1])];
  }

  // One listing: controls in document order. `fields` asks for optional extras.
  function list(fields) {
    const want = new Set(fields || []);
    const out = [];
    const push = (el, role, name, interactive, off, extra, depth) => {
      const editable = isEditable(el, role);
      const c = { k: key(el), role, name, interactive, d: depth };
      const v = valueOf(el, role);
      if (v !== null && v !== undefined && (editable || role === 'combobox' || role === 'slider' ||
        role === 'spinbutton' || role === 'progressbar' || role === 'meter' || role === 'scrollbar')) c.value = v;
      const st = statesOf(el, role, editable);
      if (st.length) c.states = st;
      const r = rectOf(el, off);
      c.rect = r;
      if (want.has('class')) c.class = el.tagName.toLowerCase();
      if (want.has('url') && el.href) c.url = String(el.href);
      if (want.has('placeholder') && el.placeholder) c.placeholder = el.placeholder;
      if (want.has('description') && el.title && el.title !== name) c.description = el.title;
      if (want.has('level') && /^H[1-6]$/.test(el.tagName)) c.level = parseInt(el.tagName[1], 10);
      if (want.has('shortcut') && el.accessKey) c.shortcut = el.accessKey;
      if (extra) Object.assign(c, extra);
      out.push(c);
      return c;
    };
    // rowHost: the row/listitem ancestor holding interactive controls (text in it is row text).
    const walk = (node, off, consumed, rowCtx, depth) => {
      if (node.nodeType === 3) {
        if (consumed) return;
        const t = clean(node.data);
        if (!t) return;
        const p = node.parentElement;
        if (!p) return;
        const range = document.createRange();
        range.selectNodeContents(node);
        const r = range.getBoundingClientRect();
        if (r.width === 0 && r.height === 0) return;
        out.push({ k: key(node), role: 'StaticText', name: t, interactive: false, text: true, d: depth,
          row: rowCtx ? rowCtx.id : 0,
          rect: [Math.round(r.left + off[0]), Math.round(r.top + off[1]), Math.round(r.right + off[0]), Math.round(r.bottom + off[1])] });
        return;
      }
      if (node.nodeType !== 1 && node.nodeType !== 11) return;
      if (node.nodeType === 11) { for (const c of node.childNodes) walk(c, off, consumed, rowCtx, depth); return; }
      const el = node;
      if (SKIP.has(el.tagName)) return;
      if (el.tagName === 'SLOT') {
        for (const c of el.assignedNodes({ flatten: true })) walk(c, off, consumed, rowCtx, depth);
        return;
      }
      if (el.id === '__deft_overlay') return;
      if (hidden(el)) {
        // visibility:hidden children may be visible again; display:none / aria-hidden are final.
        if (el.getAttribute('aria-hidden') === 'true' || el.getClientRects().length === 0) return;
        if (getComputedStyle(el).display === 'none') return;
      }
      observe(el.shadowRoot);
      const item = itemRole(el);
      const role = item || roleOf(el);
      if (role === 'presentation' || role === 'none') {
        for (const c of (el.shadowRoot || el).childNodes) walk(c, off, consumed, rowCtx, depth);
        return;
      }
      if (el.tagName === 'IFRAME') {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) return;
        let d = null;
        try { d = el.contentDocument; } catch (e) { d = null; }
        const cs = getComputedStyle(el);
        const inner = [off[0] + r.left + el.clientLeft + parseFloat(cs.paddingLeft || '0'),
          off[1] + r.top + el.clientTop + parseFloat(cs.paddingTop || '0')];
        if (d && d.documentElement) {
          if (d.defaultView && !d.defaultView.__deft) { /* agent installs per document */ }
          walk(d.documentElement, inner, consumed, rowCtx, depth);
        } else {
          out.push({ k: key(el), role: 'Iframe', name: clean(el.title), interactive: false, d: depth,
            frame: String(el.src || ''), origin: [Math.round(inner[0]), Math.round(inner[1])],
            rect: rectOf(el, off) });
        }
        return;
      }
      const interactive = item !== '' || isInteractive(el, role);
      let emitted = false;
      let consumesText = consumed;
      let name = '';
      const isRow = role === 'row' || role === 'listitem' || role === 'treeitem';
      let ctx = rowCtx;
      if (isRow && el.querySelector('a[href],button,input,select,textarea,[tabindex],[role=button],[role=link],[role=checkbox]')) {
        ctx = { id: key(el) };
      }
      if (interactive) {
        name = nameOf(el, role);
        push(el, role, name, true, off, null, depth);
        emitted = true;
        consumesText = true;
      } else if (role === 'heading' || role === 'columnheader' || role === 'rowheader' || role === 'img' ||
        role === 'progressbar' || role === 'meter' || role === 'status') {
        name = nameOf(el, role);
        if (role === 'status' && !name) name = textOf(el);
        if (name || role === 'progressbar') {
          const extra = role === 'heading' && want.has('level') ? { level: parseInt((el.getAttribute('aria-level') || el.tagName[1] || '0'), 10) } : null;
          push(el, role, name, false, off, extra, depth);
          emitted = true;
          consumesText = true;
        }
      } else if (CONTAINER_ROLES.has(role)) {
        const n = nameOf(el, role);
        if (n && (el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ||
          el.tagName === 'TABLE' || el.tagName === 'FIELDSET' || role === 'dialog')) {
          push(el, role, n, false, off, null, depth);
          emitted = true;
        }
      } else if (el.tagName === 'LABEL' && el.control) {
        consumesText = true;
      } else if ((el.tagName === 'LEGEND' || el.tagName === 'CAPTION')) {
        consumesText = true;
      }
      void emitted;
      const kids = el.shadowRoot ? el.shadowRoot.childNodes : el.childNodes;
      // A block of prose (inline text, links and clickable words in it) becomes one text line;
      // its links and clickable words follow as its children.
      if (!consumesText && kids.length > 1 && Array.from(kids).every(isProse)) {
        const t = textOf(el);
        const controls = holdsControls(el);
        const line = t && (!controls || textAround(el));
        if (line) {
          out.push({ k: key(el), role: 'StaticText', name: t, interactive: false, text: true, d: depth,
            row: ctx ? ctx.id : 0, rect: rectOf(el, off) });
        }
        if (controls) for (const c of kids) walk(c, off, true, ctx, line ? depth + 1 : depth);
        return;
      }
      const childDepth = emitted ? depth + 1 : depth;
      for (const c of kids) walk(c, off, consumesText, ctx, childDepth);
    };
    if (document.documentElement) walk(document.documentElement, [0, 0], false, null, 0);
    return { doc, title: document.title, url: location.href, controls: out, dead: forgetDead() };
  }

  // The keys whose nodes left the document (or were collected) since the last listing, each
  // reported once and forgotten: the session can hand a vanished control's id to its
  // re-created twin, and a node put back later gets a new key.
  function forgetDead() {
    const dead = [];
    for (const [k, r] of byKey) {
      const node = r.deref();
      if (node && node.isConnected) continue;
      byKey.delete(k);
      if (node) keyOf.delete(node);
      dead.push(k);
    }
    return dead;
  }

  // Where an element is now, after scrolling it into view: its centre in this frame's viewport
  // (plus same-origin frame offsets), whether it is visible and enabled.
  function locate(k, scroll) {
    const found = find(k);
    if (!found) return { gone: true };
    const el = found.nodeType === 3 ? found.parentElement : found;
    if (!el) return { gone: true };
    if (scroll) {
      const r0 = el.getBoundingClientRect();
      const vw = window.innerWidth, vh = window.innerHeight;
      if (r0.top < 0 || r0.left < 0 || r0.bottom > vh || r0.right > vw) {
        el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      }
    }
    // A word wrapped over two lines is clicked on its first line (the first box with an area:
    // an inline element around a block has empty boxes too).
    const boxes = Array.from(el.getClientRects()).filter((b) => b.width > 0 && b.height > 0);
    let r = boxes.length > 1 ? boxes[0] : el.getBoundingClientRect();
    let x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
    let w = el.ownerDocument.defaultView;
    while (w && w !== window && w.frameElement) {
      const fr = w.frameElement.getBoundingClientRect();
      x += fr.left + w.frameElement.clientLeft;
      y += fr.top + w.frameElement.clientTop;
      w = w.parent;
    }
    const role = roleOf(el);
    const disabled = el.matches(':disabled') || el.getAttribute('aria-disabled') === 'true';
    return { x, y, w: r.width, h: r.height, visible: !hidden(el) && r.width > 0 && r.height > 0,
      disabled, role, name: nameOf(el, role), tag: el.tagName.toLowerCase(),
      type: (el.getAttribute('type') || '').toLowerCase() };
  }

  // Waiting for a control (wait_for_control): the server lists the page again only when it
  // changed. `watchMark()` is this document, its mutation count (same-origin frames included)
  // and whether it is still being parsed; `changed(mark, capMs, token)` resolves true at the first change after `mark` —
  // at once when there was one already or `mark` is another document's — and false at capMs.
  // A change is a DOM mutation of this document, the open shadow roots in it or its same-origin
  // frames (nested too), a frame or image loading, or a field or focus event. A newer wait with
  // the same token, or `unwatch(token)`, ends an older one (false).
  const WAKE_EVENTS = ['load', 'input', 'change', 'toggle', 'focusin', 'focusout', 'transitionend',
    'animationend', 'readystatechange'];
  const watches = new Map();

  function watchMark() {
    return [doc, activity().mutations, document.readyState === 'loading'];
  }

  // `root` (a document or a shadow root) and the open shadow roots and same-origin frame
  // documents inside it, nested ones included.
  function watchRoots(root, out) {
    out.push(root);
    const walker = (root.ownerDocument || root).createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.shadowRoot) watchRoots(n.shadowRoot, out);
      if (n.tagName === 'IFRAME' || n.tagName === 'FRAME') {
        let d = null;
        try { d = n.contentDocument; } catch (e) { d = null; }
        if (d && d.documentElement) watchRoots(d, out);
      }
    }
    return out;
  }

  function changed(mark, capMs, token) {
    unwatch(token);
    return new Promise((resolve) => {
      if (!Array.isArray(mark) || mark[0] !== doc || mark[1] !== activity().mutations) {
        resolve(true);
        return;
      }
      const roots = watchRoots(document, []);
      let done = false;
      let timer = 0;
      const finish = (v) => {
        if (done) return;
        done = true;
        observer.disconnect();
        clearTimeout(timer);
        for (const r of roots) for (const t of WAKE_EVENTS) r.removeEventListener(t, wake, true);
        if (watches.get(token) === finish) watches.delete(token);
        resolve(v);
      };
      const wake = () => finish(true);
      const observer = new MutationObserver(wake);
      for (const r of roots) {
        try {
          observer.observe(r, { subtree: true, childList: true, attributes: true, characterData: true });
        } catch (e) { /* a document going away */ }
        for (const t of WAKE_EVENTS) r.addEventListener(t, wake, true);
      }
      timer = setTimeout(() => finish(false), capMs);
      watches.set(token, finish);
    });
  }

  function unwatch(token) {
    const finish = watches.get(token);
    if (finish) finish(false);
    return true;
  }

  // The agents of same-origin child frames (cross-origin ones throw and are left out: they
  // have their own CDP sessions).
  function childAgents() {
    const out = [];
    for (let i = 0; i < window.frames.length; i++) {
      try {
        const a = window.frames[i].__deft;
        if (a && a !== window.__deft) out.push(a);
      } catch (e) { /* cross-origin */ }
    }
    return out;
  }

  // This document's activity with its same-origin frames': requests in flight, milliseconds
  // since the last DOM mutation (each frame measures its own clock), mutations so far.
  function activity() {
    const a = { pending, quiet: performance.now() - lastMutation, mutations: mutationCount };
    for (const c of childAgents()) {
      try {
        const b = c.activity();
        a.pending += b.pending;
        a.quiet = Math.min(a.quiet, b.quiet);
        a.mutations += b.mutations;
      } catch (e) { /* a frame going away */ }
    }
    return a;
  }

  // Resolves when no XHR/fetch is in flight, nothing the armed action started (short timers,
  // animation frames, animations) still runs, and the DOM and those have been quiet for
  // `quietMs` in this document and its same-origin frames, or at `capMs`.
  function settle(quietMs, capMs) {
    const t0 = performance.now();
    settlingNow(true);
    return new Promise((resolve) => {
      const tick = () => {
        const now = performance.now();
        const a = activity();
        const h = held();
        const quiet = Math.min(a.quiet, h.quiet);
        if ((a.pending === 0 && h.n === 0 && quiet >= quietMs) || now - t0 >= capMs) {
          settlingNow(false);
          resolve({ ms: Math.round(now - t0), pending: a.pending, held: h.n, capped: now - t0 >= capMs });
          return;
        }
        const wait = a.pending > 0 || h.n > 0 ? 5 : Math.max(1, quietMs - quiet);
        apply(nativeSetTimeout, window, [tick, wait]);
      };
      tick();
    });
  }

  // The form fields' values and check states of this document and its same-origin frames.
  function formState() {
    const own = Array.from(document.querySelectorAll('input,select,textarea'))
      .map((e) => (e.type === 'checkbox' || e.type === 'radio' ? (e.checked ? '1' : '0') : e.value));
    for (const c of childAgents()) {
      try { own.push(c.formState()); } catch (e) { /* a frame going away */ }
    }
    return own.join('\u0001');
  }

  // What `effect` compares before and after an action: URL, title, DOM mutations, focus, form
  // state and scroll, this document and its same-origin frames together.
  function fingerprint() {
    const a = deepActive();
    return [location.href, document.title, activity().mutations, a ? key(a) : 0, formState(),
      scrollX, scrollY].join('\u0002');
  }

  window.__deft = { doc, key, find, list, locate, settle, nameOf, roleOf, textOf,
    deepActive, activity, formState, fingerprint };
  Object.assign(window.__deft, { watchMark, changed, unwatch });
})();

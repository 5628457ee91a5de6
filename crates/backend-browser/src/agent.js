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

  // Requests in flight, so settling waits for XHR/fetch answers.
  try {
    const XO = XMLHttpRequest.prototype.open, XS = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function () {
      pending++;
      let done = false;
      const fin = () => { if (!done) { done = true; pending--; } };
      this.addEventListener('loadend', fin);
      try { return XS.apply(this, arguments); } catch (e) { fin(); throw e; }
    };
    XMLHttpRequest.prototype.open = XO;
    const F = window.fetch;
    if (F) {
      window.fetch = function () {
        pending++;
        let done = false;
        const fin = () => { if (!done) { done = true; pending--; } };
        try {
          const p = F.apply(this, arguments);
          p.then(fin, fin);
          return p;
        } catch (e) { fin(); throw e; }
      };
    }
  } catch (e) { /* a page that froze these keeps them */ }

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
  const roleOf = (el) => clean(el.getAttribute('role')).split(' ')[0].toLowerCase() || implicitRole(el);

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
    const own = roleOf(el);
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
      // A block of inline text becomes one text line.
      if (!consumesText && kids.length > 1 && Array.from(kids).every((c) =>
        c.nodeType === 3 || (c.nodeType === 1 && INLINE.has(c.tagName) && !c.querySelector('a,button,input,select,textarea,[tabindex]')))) {
        const t = textOf(el);
        if (t) {
          out.push({ k: key(el), role: 'StaticText', name: t, interactive: false, text: true, d: depth,
            row: ctx ? ctx.id : 0, rect: rectOf(el, off) });
        }
        return;
      }
      const childDepth = emitted ? depth + 1 : depth;
      for (const c of kids) walk(c, off, consumesText, ctx, childDepth);
    };
    if (document.documentElement) walk(document.documentElement, [0, 0], false, null, 0);
    return { doc, title: document.title, url: location.href, controls: out };
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
    let r = el.getBoundingClientRect();
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

  // Resolves when no XHR/fetch is in flight and the DOM has been quiet for `quietMs` in this
  // document and its same-origin frames, or at `capMs`.
  function settle(quietMs, capMs) {
    const t0 = performance.now();
    return new Promise((resolve) => {
      const tick = () => {
        const now = performance.now();
        const a = activity();
        if ((a.pending === 0 && a.quiet >= quietMs) || now - t0 >= capMs) {
          resolve({ ms: Math.round(now - t0), pending: a.pending, capped: now - t0 >= capMs });
          return;
        }
        const wait = a.pending > 0 ? 5 : Math.max(1, quietMs - a.quiet);
        setTimeout(tick, wait);
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

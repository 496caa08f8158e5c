// Top-down, bottom-up and butterfly tabs: tree tables over api/view and api/children, with a
// sidebar for the selected row (its costs and its per-context plots, views/contexts.js).
import { api, isAbort } from '../api.js';
import { ctx } from '../ctx.js';
import * as S from '../state.js';
import { h, clear, fmtCost, fmtPct, debounce, unitLabel, showOf } from '../util.js';
import { paneError } from '../ui.js';
import { TreeTable, shortPath, linePart } from './tree.js';
import { ContextsPlot } from './contexts.js';
import { rowMenu, rowKey, inCenter, sourceOf, stackOf, rowScope } from '../rowmenu.js';

// ---- the sidebar of a tree tab ----

class RowSidebar {
  constructor() {
    this.el = h('aside', { class: 'sidebar' });
    this.plot = null;
    // the section goes when the query has one context (the answer says)
    this.fetchPlot = debounce(() => this.plot.show(this.plotParams, (n) => {
      const sec = this.plot.el.closest('.ctx-section');
      if (sec) sec.hidden = n <= 1;
    }), 120);
    this.showEmpty();
  }
  showEmpty() {
    clear(this.el);
    this.el.append(h('div', { class: 'dim', text: 'Select a row to see its costs and how they spread over the threads.' }));
  }
  show(node, resp, view, inverted) {
    if (!node) { this.showEmpty(); return; }
    const row = node.row;
    clear(this.el);
    this.el.append(h('h3', { text: row.name }));
    const info = h('div', { class: 'kv-grid' });
    const add = (k, v) => { if (v !== null && v !== undefined && v !== '') info.append(h('span', { class: 'k', text: k }), h('span', { text: String(v) })); };
    add('kind', row.kind);
    add('function', row.function); // a line's or a loop's
    add('module', row.module);
    add('file', row.file ? row.file + linePart(row) : null);
    add('scope', row.scope);
    this.el.append(info);
    const b = resp.base;
    const costs = h('table');
    resp.metrics.forEach((m, i) => {
      costs.append(h('tr', null, h('td', { class: 'k', text: `total ${m.name}` }),
        h('td', { class: 'num', text: fmtCost(row.total[i], m.shown || m.unit) }), h('td', { class: 'num dim', text: fmtPct(row.total[i], b[i]) })));
      costs.append(h('tr', null, h('td', { class: 'k', text: `self ${m.name}` }),
        h('td', { class: 'num', text: fmtCost(row.self[i], m.shown || m.unit) }), h('td', { class: 'num dim', text: fmtPct(row.self[i], b[i]) })));
    });
    this.el.append(h('h4', { text: 'Cost' }), costs);
    const actions = h('div', { class: 'actions' });
    const scope = rowScope(row);
    if (scope) actions.append(h('button', { class: 'small', text: 'Set as center', onclick: () => ctx.actions.setCenter(scope) }));
    const src = sourceOf(row);
    if (src !== null) actions.append(h('button', { class: 'small', text: 'Show source', onclick: () => ctx.actions.openSource(src, row.line) }));
    this.el.append(actions);
    const stack = stackOf(node, inverted);
    if (stack.length > 1) {
      this.el.append(h('h4', { text: inverted ? 'Call path (outermost first)' : 'Call path' }),
        h('div', { class: 'stack', text: stack.map((s, i) => ' '.repeat(Math.min(i, 20)) + s).join('\n') }));
    }
    // the row's values over the contexts: a top-down row by its key, another by its scope;
    // a profile (or a query) of one context has nothing to spread over: no section
    if (ctx.profile.threads.length <= 1) return;
    const down = view === 'tree' || (view === 'butterfly' && node.key.startsWith('down:'));
    const which = down ? ['key', node.key] : row.kind === 'center' ? null : scope ? ['scope', scope] : undefined;
    const section = h('section', { class: 'ctx-section' }, h('h4', { text: 'Per context' }));
    this.el.append(section);
    if (which === undefined) {
      section.append(h('div', { class: 'dim', text: 'This row has no scope to plot over the contexts.' }));
      return;
    }
    if (!this.plot) this.plot = new ContextsPlot();
    section.append(this.plot.el);
    this.plotParams = [...S.queryParams(view), ...(which ? [which] : [])];
    this.fetchPlot();
  }
}

// ---- top-down / bottom-up ----

export class TreePane {
  constructor(view) {
    this.view = view; // 'tree' | 'callers'
    this.inverted = view === 'callers';
    this.gen = 0;
    this.lastKey = null;
    this.el = h('div', { class: 'pane' });
    this.find = h('input', { type: 'search', placeholder: 'Find a function (/)', 'aria-label': 'Find' });
    this.find.addEventListener('input', () => this.tree.setFind(this.find.value));
    this.find.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') { this.tree.findNext(e.shiftKey); e.preventDefault(); }
      if (e.key === 'Escape') { this.find.value = ''; this.tree.setFind(''); this.tree.focus(); }
    });
    this.label = h('span', { class: 'dim' });
    const toolbar = h('div', { class: 'pane-toolbar' }, this.find,
      h('button', { class: 'small', text: 'Expand all', title: 'Expand every row below the selected one (*)', onclick: () => this.tree.expandAll(this.tree.selected() || this.tree.roots[0]) }),
      h('button', { class: 'small', text: 'Collapse all', onclick: () => { this.tree.open.clear(); this.tree.reflatten(); } }),
      h('span', { class: 'spacer' }), this.label);
    this.tree = new TreeTable({
      nameHeader: this.inverted ? 'Function (callers below)' : 'Function',
      fetchChildren: (key, offset) => api('children', [...S.queryParams(this.view), ['key', key], ...pageParams(offset)]).then((r) => r.rows),
      fetchSubtree: (key, signal) => api('subtree', [...S.queryParams(this.view), ['key', key]], { signal }),
      onSelect: (node) => this.onSelect(node),
      onContext: (node, x, y) => rowMenu(node, x, y, { tree: this.tree, inverted: this.inverted }),
      onKey: (e, node) => {
        if (e.key === 'h' && node) { this.hotPath(node); return true; }
        return rowKey(e, node, { inverted: this.inverted });
      },
      onOpen: (node) => { const s = sourceOf(node.row); if (s !== null) ctx.actions.openSource(s, node.row.line); },
      isCenter: inCenter,
      status: (t) => ctx.status(t, this),
      onError: (e) => ctx.actions.error(e.message),
    });
    this.sidebar = new RowSidebar();
    this.content = h('div', { class: 'split' }, this.tree.el, this.sidebar.el);
    this.el.append(toolbar, this.content);
  }

  focusSearch() { this.find.focus(); this.find.select(); }
  focus() { this.tree.focus(); }

  onSelect(node) {
    S.state.sel = node ? node.key : null;
    S.commit('sel', false);
    this.sidebar.show(node, this.resp, this.view, this.inverted);
  }

  async update(force) {
    const params = S.queryParams(this.view);
    const key = JSON.stringify(params);
    const reveal = this.revealKeys;
    if (!force && key === this.lastKey && !reveal) {
      if (S.state.sel && S.state.sel !== this.tree.selKey) this.tree.selectKey(S.state.sel);
      return;
    }
    const gen = ++this.gen;
    this.tree.cancelExpand(); // a new query: an expand-all in flight is of the old one
    const firstTime = this.lastKey === null;
    const open = firstTime ? [] : this.tree.openKeys();
    if (firstTime && S.state.sel) open.push(...ancestorsOf(S.state.sel));
    // rows to show (search, the activity graph): their ancestors opened, the first selected
    if (reveal) for (const k of reveal) open.push(...ancestorsOf(k));
    ctx.status('computing…', this);
    let resp;
    try {
      // one request: the open rows and the path to the row a view opens on (shown when no
      // open row is kept: the library's rule, pv_view_first_path)
      resp = await api('view', [...params, ...open.map((k) => ['open', k]), ['first', 1], ...pageParams(0)]);
    } catch (e) {
      if (gen !== this.gen || isAbort(e)) return;
      this.lastKey = null;
      this.showError(e.message);
      return;
    }
    if (gen !== this.gen) return;
    this.lastKey = key;
    this.resp = resp;
    if (this.errorEl) { this.errorEl.remove(); this.errorEl = null; this.content.hidden = false; }
    this.label.textContent = describe(resp);
    const opened = resp.opened || [];
    const keptOpen = reveal || keptOpenKeys(resp.rows, open);
    this.tree.setData(resp.rows, resp.metrics, resp.base, keptOpen ? open : [...open, ...opened]);
    this.tree.setNote(resp.rows.length ? '' : (resp.centered
      ? `No sample of this query reaches the center ${resp.center_label} (its total is 0).`
      : 'No sample is left by this query.'));
    if (!resp.rows.length) {
      ctx.status('no samples', this);
      this.sidebar.showEmpty();
      return;
    }
    if (reveal) {
      this.revealKeys = null;
      S.state.sel = reveal[0];
      this.tree.selKey = null;
    } else if (!keptOpen) this.tree.selectFirst(resp.selected);
    let want = S.state.sel;
    if (reveal && want && !this.tree.nodes.has(want)) {
      // a row the query's filters or center changed: its deepest ancestor the view has
      want = ancestorsOf(want).reverse().find((k) => this.tree.nodes.has(k)) || null;
    }
    if (want && this.tree.selectKey(want)) {
      if (reveal) this.onSelect(this.tree.selected());
      else this.sidebar.show(this.tree.selected(), resp, this.view, this.inverted);
    } else if (this.tree.selected()) {
      this.onSelect(this.tree.selected());
    } else {
      this.sidebar.showEmpty();
    }
    // a timestamp for bench/page.mjs: the view's rows are all in place (drawn on the next frame)
    performance.mark('pv-tree-shown', { detail: this.view });
  }

  // Opens the paths to keys (row keys of this tree) and selects the first (the deepest row of
  // it that the view has); the URL's sel follows.
  renumber() { this.tree.renumber(); }

  reveal(keys) {
    this.revealKeys = keys.length ? keys : null;
    return this.update(true);
  }

  // h: hpcviewer's hot path from the selected row (the view's hot=KEY: the server's rule), opened
  // and its end selected.
  async hotPath(node) {
    const params = S.queryParams(this.view);
    let resp;
    try {
      resp = await api('view', [...params, ...this.tree.openKeys().map((k) => ['open', k]), ['hot', node.key], ...pageParams(0)]);
    } catch (e) {
      if (!isAbort(e)) ctx.actions.error(e.message);
      return;
    }
    const opened = resp.opened || [];
    this.resp = resp;
    this.tree.setData(resp.rows, resp.metrics, resp.base, [...this.tree.openKeys(), ...opened]);
    const end = opened.length ? opened[opened.length - 1] : node.key;
    this.tree.selectKey(end);
    if (this.tree.selected()) this.onSelect(this.tree.selected());
  }

  showError(msg) {
    this.content.hidden = true;
    if (!this.errorEl) { this.errorEl = h('div'); this.el.append(this.errorEl); }
    paneError(this.errorEl, msg);
    ctx.status('', this);
  }
}

// At most this many rows of one list (a row's children, the roots) per request: the rest is a
// "more" row that loads the next page when it is scrolled into view or clicked (doc/api.md).
const PAGE_ROWS = 2000;
function pageParams(offset) {
  return offset ? [['limit', PAGE_ROWS], ['offset', offset]] : [['limit', PAGE_ROWS]];
}

// Butterfly: callers and callees, each this deep.
const BUTTERFLY_LEVELS = 4;

// Whether an open key other than the center's names a row of the answer with children in it
// (the page then keeps the user's open rows instead of the first display's path).
function keptOpenKeys(rows, open) {
  const want = new Set(open.filter((k) => k !== 'c' && k !== 'up:c' && k !== 'down:c'));
  if (!want.size) return false;
  for (let i = 0; i + 1 < rows.length; i++) {
    if (want.has(rows[i].key) && rows[i + 1].depth > rows[i].depth) return true;
  }
  return false;
}

function ancestorsOf(key) {
  const parts = key.split('/');
  const out = [];
  for (let i = 1; i < parts.length; i++) out.push(parts.slice(0, i).join('/'));
  return out;
}

function describe(resp) {
  const m = resp.metrics[0];
  const parts = [];
  // "0.994165 CPUTIME (sec)", "88.192 ms time": a time's unit once (a count's is its name's)
  const sh = showOf(m.shown || m.unit);
  const u = sh.per > 1 || sh.unit === 'ns' ? unitLabel(sh) : '';
  const what = `${u ? u + ' ' : ''}${m.name}`;
  if (resp.centered) parts.push(`center ${resp.center_label}: ${fmtCost(resp.center_total[0], m.shown || m.unit)} of ${fmtCost(resp.whole[0], m.shown || m.unit)} ${what}`);
  else parts.push(`${fmtCost(resp.whole[0], m.shown || m.unit)} ${what}`);
  if (resp.samples !== undefined && m.name !== 'samples') parts.push(`${resp.samples.toLocaleString('en-US')} samples`);
  if (resp.note) parts.push(resp.note); // how exact a call-graph profile's numbers are
  return parts.join(' · ');
}

// ---- butterfly: callers above, callees below ----

export class ButterflyPane {
  constructor() {
    this.gen = 0;
    this.lastKey = null;
    this.el = h('div', { class: 'pane' });
    this.label = h('span', { class: 'dim' });
    this.el.append(h('div', { class: 'pane-toolbar' }, h('span', { text: 'Callers of the center (bottom-up) above, its callees (top-down) below' }), h('span', { class: 'spacer' }), this.label));
    const mk = (inverted) => new TreeTable({
      nameHeader: inverted ? 'Callers' : 'Callees',
      fetchChildren: (key, offset) => api('children', [...S.queryParams('butterfly'), ['key', key], ...pageParams(offset)]).then((r) => r.rows),
      fetchSubtree: (key, signal) => api('subtree', [...S.queryParams('butterfly'), ['key', key]], { signal }),
      onSelect: (node) => this.onSelect(node, inverted),
      onContext: (node, x, y) => rowMenu(node, x, y, { tree: inverted ? this.callers : this.callees, inverted }),
      onKey: (e, node) => rowKey(e, node, { inverted }),
      isCenter: inCenter,
      status: (t) => ctx.status(t, this),
      onError: (e) => ctx.actions.error(e.message),
    });
    this.callers = mk(true);
    this.callees = mk(false);
    this.sidebar = new RowSidebar();
    const left = h('div', { class: 'pane' },
      h('div', { class: 'bf-part' }, this.callers.el),
      h('div', { class: 'bf-section', text: 'Callees' }),
      h('div', { class: 'bf-part' }, this.callees.el));
    this.content = h('div', { class: 'split' }, left, this.sidebar.el);
    this.note = h('div', { class: 'pane-note' });
    this.el.append(this.content, this.note);
  }
  focusSearch() {}
  focus() { this.callees.focus(); }
  renumber() { this.callers.renumber(); this.callees.renumber(); }

  onSelect(node, inverted) {
    const other = inverted ? this.callees : this.callers;
    if (node && other.selKey) { other.selKey = null; other.list.refresh(true); }
    S.state.sel = node ? node.key : null;
    S.commit('sel', false);
    this.sidebar.show(node, this.resp, 'butterfly', inverted);
  }
  async update(force) {
    if (!S.centers().length) {
      this.content.hidden = true;
      this.note.hidden = false;
      clear(this.note);
      this.note.append('The butterfly view shows the callers and callees of the center. Pick a center: select a row in another view and press ',
        h('b', { text: 'c' }), ' (or use its context menu).');
      this.lastKey = null;
      ctx.status('', this);
      return;
    }
    this.note.hidden = true;
    this.content.hidden = false;
    const params = S.queryParams('butterfly');
    const key = JSON.stringify(params);
    if (!force && key === this.lastKey) return;
    const gen = ++this.gen;
    const open = this.lastKey === null ? [] : [...this.callers.openKeys(3000), ...this.callees.openKeys(3000)];
    ctx.status('computing…', this);
    let resp;
    try {
      resp = await api('view', [...params, ...open.map((k) => ['open', k]), ['heaviest', BUTTERFLY_LEVELS], ...pageParams(0)]);
    } catch (e) {
      if (gen !== this.gen || isAbort(e)) return;
      this.lastKey = null;
      this.content.hidden = true;
      this.note.hidden = false;
      paneError(this.note, e.message);
      ctx.status('', this);
      return;
    }
    if (gen !== this.gen) return;
    this.lastKey = key;
    this.resp = resp;
    this.label.textContent = describe(resp);
    const b = resp.base;
    const shown = open.length ? open : (resp.opened || []);
    this.callers.setData(resp.callers || [], resp.metrics, b, shown);
    this.callees.setData(resp.rows || [], resp.metrics, b, shown);
    const none = (resp.rows || []).length ? '' : `No sample of this query reaches the center ${resp.center_label}.`;
    this.callers.setNote(none);
    this.callees.setNote('');
    ctx.status(`${this.callers.flat.length + this.callees.flat.length} rows shown`, this);
    if (S.state.sel && (this.callers.selectKey(S.state.sel) || this.callees.selectKey(S.state.sel))) {
      const n = this.callers.selected() || this.callees.selected();
      this.sidebar.show(n, resp, 'butterfly', !!this.callers.selected());
    } else if (this.callees.roots.length) {
      // nothing (still) selected: the center row, shown in the sidebar
      const c = this.callees.roots[0];
      this.callers.selKey = null;
      this.callees.select(c, false);
      this.onSelect(c, false);
    } else {
      this.sidebar.showEmpty();
    }
  }
}

export { shortPath };

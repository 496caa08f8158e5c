// The page's state lives in the URL: the query in its URL notation (include/pv/query.h:
// center, filter, metric, by, thread, range, percent, ...) plus the page's own parameters
// (tab, sel, mk, zoom, search, src, line, p; a pane's own: PANE_KEYS). A reload or a shared URL gives the same view;
// center, filter and range changes are pushed to the history so back/forward walk them.

export const QUERY_KEYS = ['center', 'filter', 'metric', 'derive', 'by', 'thread', 'range', 'percent',
  'min-percent', 'depth', 'n', 'sort', 'inside-markers', 'inline'];
const REPEATED = new Set(['center', 'filter', 'thread', 'derive']);

// The tabs: one per view kind, in the order /api/profile lists them ("views": the library's
// table, src/view/kinds.c; setViews), then the page's other panes. A view kind's tab is its
// label in lower case with dashes ("Top-down": tab=top-down).
const OTHER_TABS = ['flame', 'stack-chart', 'marker-chart', 'marker-table', 'source', 'trace', 'diff'];
let views = [];      // /api/profile's "views", each with its tab
let TAB_VIEW = {};   // tab -> view kind name (the flame graph draws the top-down tree)
let VIEW_TAB = {};   // view kind name -> tab
// Parameters a pane keeps for itself (the trace pane's window, contexts, depth, crosshair and
// context filter; the stack chart's window and context; the
// diff's view kind, normalize and order; fd=0: the flame graph without the base's colours;
// fi=1: the flame graph as an icicle; fc=category: coloured by category).
export const PANE_KEYS = ['tw', 'tc', 'td', 'tx', 'tk', 'sw', 'sc', 'dv', 'dn', 'ds', 'fd', 'fi', 'fc'];

// The view kinds /api/profile lists: their tabs come first. Call readUrl() again after it.
export function setViews(list) {
  views = list.map((v) => ({ ...v, tab: v.label.toLowerCase().replace(/\s+/g, '-') }));
  TAB_VIEW = { flame: 'tree' };
  VIEW_TAB = {};
  for (const v of views) {
    TAB_VIEW[v.tab] = v.name;
    VIEW_TAB[v.name] = v.tab;
  }
}
export function viewKinds() { return views; }
// the tab of a view kind (an unknown one: the top-down tree's)
export function tabOfView(view) { return VIEW_TAB[view] || VIEW_TAB.tree || 'top-down'; }
function allTabs() { return [...views.map((v) => v.tab), ...OTHER_TABS]; }

export const state = {
  p: 0,
  q: new Map(),   // query key -> array of values (in order)
  tab: 'top-down',
  sel: null,      // selected tree row key
  mk: null,       // selected marker index
  zoom: [],       // committed zoom ranges [[t0, t1], ...] (ms)
  search: '',     // marker search
  src: null,      // source file id
  line: null,     // source line to show
  pane: {},       // PANE_KEYS -> value (null: absent)
};

const listeners = [];
export function onChange(fn) { listeners.push(fn); }
function emit(what) { for (const fn of listeners) fn(what); }

export function readUrl() {
  const usp = new URLSearchParams(location.search);
  state.q = new Map();
  for (const [k, v] of usp) {
    if (!QUERY_KEYS.includes(k)) continue;
    if (!state.q.has(k)) state.q.set(k, []);
    if (REPEATED.has(k)) state.q.get(k).push(v);
    else state.q.set(k, [v]);
  }
  state.p = parseInt(usp.get('p') || '0', 10) || 0;
  const tab = usp.get('tab');
  const view = usp.get('view');
  state.tab = allTabs().includes(tab) ? tab : tabOfView(view);
  state.sel = usp.get('sel');
  const mk = usp.get('mk');
  state.mk = mk !== null && /^\d+$/.test(mk) ? parseInt(mk, 10) : null;
  state.zoom = [];
  const z = usp.get('zoom');
  if (z) {
    for (const part of z.split(',')) {
      const r = parseRange(part);
      if (r) state.zoom.push(r);
    }
  }
  state.search = usp.get('search') || '';
  const src = usp.get('src');
  state.src = src !== null && /^\d+$/.test(src) ? parseInt(src, 10) : null;
  const line = usp.get('line');
  state.line = line !== null && /^\d+$/.test(line) ? parseInt(line, 10) : null;
  state.pane = {};
  for (const k of PANE_KEYS) state.pane[k] = usp.get(k);
}

export function toSearch() {
  const usp = new URLSearchParams();
  const view = TAB_VIEW[state.tab];
  if (view) usp.append('view', view);
  for (const k of QUERY_KEYS) {
    for (const v of state.q.get(k) || []) usp.append(k, v);
  }
  if (state.p) usp.append('p', state.p);
  usp.append('tab', state.tab);
  if (state.sel) usp.append('sel', state.sel);
  if (state.mk !== null) usp.append('mk', state.mk);
  if (state.zoom.length) usp.append('zoom', state.zoom.map(fmtRange).join(','));
  if (state.search) usp.append('search', state.search);
  if (state.src !== null) usp.append('src', state.src);
  if (state.line !== null) usp.append('line', state.line);
  for (const k of PANE_KEYS) if (state.pane[k] !== null && state.pane[k] !== undefined) usp.append(k, state.pane[k]);
  return '?' + usp.toString();
}

// Writes the state to the URL: push = a new history entry (query changes), else replace.
// what names the kind of change for the listeners ('query', 'tab', 'sel', 'page').
export function commit(what, push) {
  const url = location.pathname + toSearch();
  if (url !== location.pathname + location.search) {
    if (push) history.pushState(null, '', url);
    else history.replaceState(null, '', url);
  }
  emit(what);
}

window.addEventListener('popstate', () => {
  readUrl();
  emit('pop');
});

// ---- the query ----

export function get(k) { return state.q.get(k) || []; }
export function get1(k) { const v = state.q.get(k); return v && v.length ? v[0] : null; }
export function set(k, values) {
  if (values === null || values === undefined || (Array.isArray(values) && !values.length)) state.q.delete(k);
  else state.q.set(k, Array.isArray(values) ? values.slice() : [String(values)]);
}

export function centers() { return get('center'); }
export function filters() {
  return get('filter').map((f) => {
    const i = f.indexOf(':');
    return i < 0 ? { kind: f, arg: '' } : { kind: f.slice(0, i), arg: f.slice(i + 1) };
  });
}
export function setFilters(list) { set('filter', list.map((f) => f.kind + ':' + f.arg)); }
export function addFilter(kind, arg) { setFilters([...filters(), { kind, arg }]); }

export function range() { return parseRange(get1('range')); }
export function setRange(r) { set('range', r ? [fmtRange(r)] : null); }

export function parseRange(s) {
  if (!s) return null;
  const i = s.indexOf(':');
  if (i < 0) return null;
  const a = parseFloat(s.slice(0, i)), b = parseFloat(s.slice(i + 1));
  if (!Number.isFinite(a) || !Number.isFinite(b) || b <= a) return null;
  return [a, b];
}
// Enough digits for nanoseconds, no trailing noise.
export function fmtMsParam(v) {
  return String(Math.round(v * 1e6) / 1e6);
}
export function fmtRange(r) { return fmtMsParam(r[0]) + ':' + fmtMsParam(r[1]); }
// A range's two ends to read (the range chip): to the digit that gives its length 3 significant
// digits (55.24 ms long: 0.1 ms; 12.3 µs: 0.0001 ms), never past the ns the URL keeps.
export function fmtRangeShort(r) {
  const span = r[1] - r[0];
  const lead = span > 0 ? Math.floor(Math.log10(span)) : 0;
  const dec = Math.max(0, Math.min(6, 2 - lead));
  return [r[0].toFixed(dec), r[1].toFixed(dec)];
}

// The query as API parameters. view: the view to ask for (null: none). Options drop parts
// the caller does not want (the timeline shows every thread and the whole window).
export function queryParams(view, opts = {}) {
  const out = [];
  if (state.p) out.push(['p', state.p]);
  if (view) out.push(['view', view]);
  for (const k of QUERY_KEYS) {
    if (opts.noRange && k === 'range') continue;
    if (opts.noThread && k === 'thread') continue;
    if (opts.onlyThreads && k !== 'thread') continue;
    for (const v of state.q.get(k) || []) out.push([k, v]);
  }
  return out;
}

export function viewOfTab(tab) { return TAB_VIEW[tab] || null; }

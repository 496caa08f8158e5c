// profview's page: loads (with progress), then the timeline, the query bar and the tabs, all
// driven by the query in the URL (state.js). Every number comes from the JSON API
// (doc/api.md), computed by the same library calls as the CLI.
import { api } from './api.js';
import { ctx } from './ctx.js';
import * as S from './state.js';
import { h, clear, debounce, metricTitle, FORMS, numberForm, setNumberForm } from './util.js';
import { pickFile, renderLoading, watchFiles, FileMenu } from './files.js';
import { showError, clearError, showChecks, hideMenu, menuOpen, hideTooltip } from './ui.js';
import { Timeline } from './timeline.js';
import { crumbLabel } from './rowmenu.js';
import { SearchBox } from './search.js';
import { toggleHelp, helpOpen, closeHelp } from './help.js';
import { onThemeChange } from './util.js';
import { TreePane, ButterflyPane } from './views/calltree.js';
import { FlatPane } from './views/flat.js';
import { FlamePane } from './views/flame.js';
import { MarkerChartPane } from './views/markerchart.js';
import { MarkerTablePane } from './views/markers.js';
import { SourcePane } from './views/source.js';
import { TracePane } from './views/trace.js';
import { StackChartPane } from './views/stackchart.js';
import { DiffPane } from './views/diff.js';

const $ = (id) => document.getElementById(id);

const panes = new Map();
let timeline = null;
let statusFiles = [];

// A view kind's pane: its own when it has one, else the tree or flat table its outputs fill
// (/api/profile's "views": a kind added to the library's table gets a tab by itself).
const VIEW_PANES = { butterfly: () => new ButterflyPane() };
function viewPane(v) {
  if (VIEW_PANES[v.name]) return VIEW_PANES[v.name](v);
  return v.outputs.includes('flat') ? new FlatPane(v) : new TreePane(v.name);
}

function paneFor(tab) {
  if (!panes.has(tab)) {
    let p;
    const v = S.viewKinds().find((x) => x.tab === tab);
    switch (v ? 'view' : tab) {
      case 'view': p = viewPane(v); break;
      case 'flame': p = new FlamePane(); break;
      case 'marker-chart': p = new MarkerChartPane(); break;
      case 'marker-table': p = new MarkerTablePane(); break;
      case 'source': p = new SourcePane(); break;
      case 'trace': p = new TracePane(); break;
      case 'stack-chart': p = new StackChartPane(); break;
      case 'diff': p = new DiffPane(); break;
      default: p = new TreePane('tree');
    }
    p.el.dataset.tab = tab;
    p.el.hidden = true;
    $('panel').append(p.el);
    panes.set(tab, p);
  }
  return panes.get(tab);
}

// ---- actions (every view calls these) ----

function queryChanged() {
  hideMenu();
  hideTooltip();
  S.commit('query', true);
}

const actions = {
  queryChanged,
  error: (msg) => showError(msg),
  setCenter(scope) {
    if (!scope) return;
    S.set('center', [scope]);
    S.state.sel = null;
    queryChanged();
  },
  addCenter(scope) {
    if (!scope) return;
    const cs = S.centers();
    if (!cs.includes(scope)) S.set('center', [...cs, scope]);
    S.state.sel = null;
    queryChanged();
  },
  removeCenter(i) {
    const cs = S.centers().slice();
    cs.splice(i, 1);
    S.set('center', cs);
    S.state.sel = null;
    queryChanged();
  },
  resetCenter() {
    S.set('center', null);
    S.state.sel = null;
    queryChanged();
  },
  addFilter(kind, arg) {
    if (!arg) return;
    S.addFilter(kind, arg);
    queryChanged();
  },
  popFilters(n) {
    S.setFilters(S.filters().slice(0, n));
    queryChanged();
  },
  setRange(r) {
    S.setRange(r);
    queryChanged();
  },
  zoomTo(r) {
    S.state.zoom = [...S.state.zoom, r];
    S.setRange(r);
    queryChanged();
  },
  popZoom(n) {
    S.state.zoom = S.state.zoom.slice(0, n);
    S.setRange(n ? S.state.zoom[n - 1] : null);
    queryChanged();
  },
  selectThread(id, multi) {
    const cur = S.get('thread');
    let next;
    if (multi) next = cur.includes(id) ? cur.filter((x) => x !== id) : [...cur, id];
    else next = cur.length === 1 && cur[0] === id ? [] : [id];
    S.set('thread', next);
    queryChanged();
  },
  setInsideMarkers(search) {
    S.set('inside-markers', search ? [search] : null);
    queryChanged();
  },
  // Shows rows of the top-down tree (the search box, the activity graph): their paths opened,
  // the first selected.
  reveal(keys) {
    if (!keys.length) return;
    S.state.tab = S.tabOfView('tree');
    paneFor(S.state.tab).revealKeys = keys;
    S.commit('tab', false);
  },
  openSource(id, line) {
    S.state.tab = 'source';
    S.state.src = id;
    S.state.line = line || null;
    S.commit('tab', true);
  },
};
ctx.actions = actions;
// The status line belongs to the tab shown: each pane's last line is kept, and shown when its
// tab is (an answer arriving for a hidden tab does not write over the visible one's).
const statusText = new Map();
ctx.status = (text, pane) => {
  const tab = pane && pane.el && pane.el.dataset.tab ? pane.el.dataset.tab : S.state.tab;
  statusText.set(tab, text || '');
  if (tab === S.state.tab) $('view-status').textContent = text || '';
};

// ---- the query bar ----

function chip(text, cls, onRemove, title) {
  const el = h('span', { class: 'chip ' + (cls || ''), title: title || text },
    h('span', { class: 'chip-text', text }));
  if (onRemove) el.append(h('button', { class: 'chip-x', title: 'Remove', 'aria-label': 'Remove ' + text, onclick: onRemove }, '×'));
  else el.style.paddingRight = '8px';
  return el;
}

function renderQueryBar() {
  const cs = S.centers();
  const chips = clear($('center-chips'));
  if (!cs.length) {
    chips.append(h('span', { class: 'dim', text: 'root (the whole profile)' }));
  } else {
    if (cs.length > 1) chips.append(h('span', { class: 'chip-label', text: '<multiple contexts>' }));
    cs.forEach((c, i) => chips.append(chip(c, 'center', () => actions.removeCenter(i))));
  }
  $('center-reset').disabled = !cs.length;

  const crumbs = clear($('filter-crumbs'));
  const fs = S.filters();
  const items = [{ label: 'Complete profile' }, ...fs.map((f) => ({ label: `${crumbLabel(f.kind)}: ${f.arg}` }))];
  items.forEach((it, i) => {
    if (i) crumbs.append(h('span', { class: 'crumb-sep', text: '›' }));
    const last = i === items.length - 1;
    const b = h('button', { class: 'crumb' + (last ? ' last' : ''), text: it.label, title: last ? 'The current filters' : 'Go back to this point (drop the later filters)' });
    if (!last) b.addEventListener('click', () => actions.popFilters(i));
    crumbs.append(b);
  });

  const rc = clear($('range-chip'));
  const r = S.range();
  if (r) {
    // one time zero: the chip shows what the URL's range= and the CLI's --range take, to 3
    // significant digits (the title: exact)
    const fmt = (t) => S.fmtMsParam(t);
    const [a, b] = S.fmtRangeShort(r);
    rc.append(chip(`Range ${a} – ${b} ms`, '', () => actions.popZoom(0), `samples with ${fmt(r[0])} <= time < ${fmt(r[1])} ms from the profile's zero: --range ${S.fmtRange(r)}`));
  }
  const tc = clear($('thread-chip'));
  const ths = S.get('thread');
  const all = ctx.profile.threads;
  if (ths.length) {
    const names = ths.map((t) => {
      const th = /^#\d+$/.test(t) ? all[+t.slice(1)] : all.find((x) => String(x.tid) === t || x.name === t);
      return th ? threadLabel(th) : t;
    });
    // the busiest thread a fresh page opened on says so (independent threads: the Firefox
    // Profiler's default)
    const ot = ctx.profile.open_thread;
    const busiest = ths.length === 1 && ot !== null && ot !== undefined && ths[0] === '#' + ot ? ` (busiest of ${all.length})` : '';
    tc.append(chip(`Thread${ths.length > 1 ? 's' : ''}: ${names.join(', ')}${busiest}`, 'threads', () => { S.set('thread', null); queryChanged(); }, 'The threads of the query (× merges all threads)'));
    if (all.length > 1) tc.append(h('button', { id: 'merge-all', class: 'small', text: 'Merge all threads', title: 'Every thread of the profile, merged', onclick: () => { S.set('thread', null); queryChanged(); } }));
  } else if (all.length > 1) {
    // one program's threads (an HPCToolkit database's execution contexts, callgrind, pprof, a
    // merge) add up to the whole, as hpcviewer shows them; a browser's or a system's are
    // independent threads merged
    const one = ctx.profile.one_program;
    tc.append(h('span', { class: 'chip threads plain', title: one ? `One program: its ${all.length} execution contexts (threads, ranks, GPU streams) summed, as hpcviewer opens it; pick one in the per-context pane or the Trace tab` : 'Every thread of the profile, merged: click a track to pick one' },
      h('span', { class: 'chip-text', text: one ? `All ${all.length} contexts summed` : `All threads merged (${all.length})` })));
  }
  const mc = clear($('marker-filter-chip'));
  const im = S.get1('inside-markers');
  if (im) mc.append(chip(`Inside markers: ${im}`, '', () => actions.setInsideMarkers(null)));

  // top bar controls
  $('by-select').value = S.get1('by') || 'function';
  $('percent-select').value = S.get1('percent') || 'center';
  $('inline-fold').checked = S.get1('inline') === 'fold';
  const ms = S.get1('metric');
  const shown = ms ? ms.split(',') : [ctx.profile.default_metric || 'default'];
  for (const d of S.get('derive')) { const n = d.slice(0, d.indexOf('=')); if (!shown.includes(n)) shown.push(n); }
  $('metric-button').textContent = shown.join(', ');
}

// The chooser's form for a derived metric (hpcviewer's formulas, doc/hpctoolkit.md): the query's
// derive=NAME=FORMULA; the library checks it and the pane shows its error.
function deriveForm() {
  const name = h('input', { type: 'text', name: 'name', placeholder: 'name', size: 8, 'aria-label': 'Derived metric name' });
  const formula = h('input', { type: 'text', name: 'formula', placeholder: '$instructions / $cycles', 'aria-label': 'Formula' });
  const form = h('form', { class: 'derive-form' },
    h('div', { class: 'dim', text: 'Derived metric: $name, $N or ${name with spaces} the row’s value, @name the whole’s; + - * / ^ ( ), sum avg min max stdev sqrt abs log ln exp pow round …' }),
    h('div', { class: 'derive-row' }, name, h('span', { text: '=' }), formula, h('button', { type: 'submit', text: 'Add' })));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const n = name.value.trim(), f = formula.value.trim();
    if (!n || !f) return;
    S.set('derive', [...S.get('derive'), `${n}=${f}`]);
    hideMenu();
    S.commit('query', true);
  });
  return form;
}

// "Web Content — GeckoMain 27844": the process, the thread's name and tid.
function threadLabel(th) {
  const tid = th.tid !== null && th.tid !== undefined ? ' ' + th.tid : '';
  return (th.process ? th.process + ' — ' : '') + th.name + tid;
}

// ---- tabs ----

function showTab() {
  for (const b of document.querySelectorAll('#tabs button[data-tab]')) b.classList.toggle('active', b.dataset.tab === S.state.tab);
  for (const [tab, p] of panes) if (tab !== S.state.tab) p.el.hidden = true;
  const p = paneFor(S.state.tab);
  p.el.hidden = false;
  $('view-status').textContent = statusText.get(S.state.tab) || '';
  return p;
}

// Resolves when the active pane has its rows (never rejects). The pane's data-state is
// "busy" until then and "ready" once they are drawn (the virtual lists draw on the next
// animation frame): what the browser tests wait for before they read the rows.
let updateGen = 0;
function updateActive(force) {
  const p = showTab();
  const gen = ++updateGen;
  p.el.dataset.state = 'busy';
  return p.update(force).catch((e) => showError(e.message)).finally(() => {
    requestAnimationFrame(() => { if (gen === updateGen) p.el.dataset.state = 'ready'; });
  });
}

function onState(what) {
  if (!ctx.profile) return;
  switch (what) {
    case 'sel':
    case 'mk':
    case 'pane':
    case 'init':
      return;
    case 'tab':
    case 'src':
      updateActive();
      if (what === 'tab') renderQueryBar();
      return;
    case 'search':
      updateActive();
      return;
    default: // 'query', 'pop'
      clearError();
      renderQueryBar();
      // the timeline's graph of the new query is asked for once the pane has its answer
      timeline.update(false, updateActive());
  }
}

// ---- loading ----

// Waits until the profile to open is loaded (files.js pickFile: the URL's p, else the first
// file that loads) and sets S.state.p to it; true then. False when none can be opened: the
// loading screen then lists every file's state and error, a loaded one as a link, and keeps
// doing so until no file is loading.
async function waitLoaded() {
  const box = $('loading');
  const asked = new URLSearchParams(location.search).has('p') ? S.state.p : null;
  let shown = false;
  const t = setTimeout(() => { box.hidden = false; shown = true; }, 150);
  for (;;) {
    let st;
    try {
      st = await api('status');
    } catch (e) {
      clearTimeout(t);
      box.hidden = false;
      showError(e.message);
      await new Promise((r) => setTimeout(r, 1000));
      continue;
    }
    statusFiles = st.files || [];
    const pick = pickFile(statusFiles, asked);
    renderLoading(statusFiles, asked, !!pick.fail);
    if (pick.p !== undefined) {
      clearTimeout(t);
      box.hidden = true;
      S.state.p = pick.p;
      return true;
    }
    if (pick.fail) {
      clearTimeout(t);
      box.hidden = false;
      $('loading-title').textContent = 'The profile could not be loaded';
      showError(pick.fail);
      watchFiles((files) => { statusFiles = files; renderLoading(files, asked, true); });
      return false;
    }
    if (!shown) { box.hidden = false; shown = true; clearTimeout(t); }
    await new Promise((r) => setTimeout(r, 200));
  }
}

function setupTopbar() {
  const p = ctx.profile;
  const f = statusFiles[S.state.p];
  const file = (f && f.path) || p.file || '';
  $('file-name').textContent = `${file.split('/').pop()} · ${p.format || ''}${p.product ? ' · ' + p.product : ''}`;
  $('file-name').title = file;
  document.title = `${file.split('/').pop()} – profview`;
  // several files: the file menu (their states, a file still loading updated until it is done)
  const menu = new FileMenu(S.state.p);
  menu.set(statusFiles);
  if (statusFiles.some((x) => x.state === 'loading')) watchFiles((files) => { statusFiles = files; menu.set(files); });
  // the number form (exact, k/M/G, 1.48e+09): kept in this browser; the tables fit it
  const ns = clear($('num-select'));
  for (const [v, label] of FORMS) ns.append(h('option', { value: v, text: label }));
  ns.value = numberForm();
  ns.addEventListener('change', () => {
    setNumberForm(ns.value);
    for (const pane of panes.values()) if (pane.renumber) pane.renumber();
  });
  // By: the granularities the profile has (the library's list: a loop only for HPCToolkit's
  // loops, a line only where frames have lines), the URL's own if it names another; fold
  // inlined only when some frame is inlined code
  const by = clear($('by-select'));
  const gs = [...(p.granularities || ['function', 'line', 'file', 'module'])];
  const cur = S.get1('by');
  if (cur && !gs.includes(cur)) gs.push(cur);
  for (const g of gs) by.append(h('option', { value: g, text: g }));
  $('inline-fold-ctl').hidden = p.inlines === false && S.get1('inline') !== 'fold';
  $('by-select').addEventListener('change', (e) => {
    S.set('by', e.target.value === 'function' ? null : e.target.value);
    queryChanged();
  });
  $('percent-select').addEventListener('change', (e) => {
    S.set('percent', e.target.value === 'center' ? null : e.target.value);
    queryChanged();
  });
  $('inline-fold').addEventListener('change', (e) => {
    S.set('inline', e.target.checked ? 'fold' : null);
    queryChanged();
  });
  $('metric-button').addEventListener('click', (e) => {
    const r = e.target.getBoundingClientRect();
    const cur = (S.get1('metric') || p.default_metric || '').split(',').filter(Boolean);
    const options = p.metrics.map((m) => ({ value: m.name, label: metricTitle(m), checked: cur.includes(m.name) }));
    // the database's own derived metrics (an HPCToolkit database's formulas): chosen as metrics
    for (const d of p.derived || []) options.push({ value: d.name, label: `${d.name} = ${[d.formula, d.self && `self: ${d.self}`].filter(Boolean).join('; ')}`, checked: cur.includes(d.name) });
    // the query's derived metrics, always shown: unchecked, one goes
    for (const d of S.get('derive')) options.push({ value: '=' + d, label: d.replace('=', ' = '), checked: true });
    showChecks(r.left, r.bottom + 2, options, (name, on) => {
      let next = (S.get1('metric') || p.default_metric || '').split(',').filter(Boolean);
      if (name.startsWith('=')) {
        if (on) return;
        const d = name.slice(1);
        S.set('derive', S.get('derive').filter((x) => x !== d));
        next = next.filter((x) => x !== d.slice(0, d.indexOf('=')));
      } else {
        if (on && !next.includes(name)) next.push(name);
        if (!on) next = next.filter((x) => x !== name);
        if (!next.length) return;
        const order = p.metrics.map((m) => m.name).concat((p.derived || []).map((d) => d.name));
        next.sort((a, b) => order.indexOf(a) - order.indexOf(b));
      }
      S.set('metric', !next.length || (next.length === 1 && next[0] === p.default_metric) ? null : [next.join(',')]);
      S.commit('query', true);
    }, deriveForm());
  });
  $('center-reset').addEventListener('click', () => actions.resetCenter());
  $('tabs').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-tab]');
    if (!b || S.state.tab === b.dataset.tab) return;
    S.state.tab = b.dataset.tab;
    S.commit('tab', false);
  });
}

document.addEventListener('keydown', (e) => {
  if (menuOpen()) return;
  const tag = (e.target.tagName || '').toLowerCase();
  const typing = tag === 'input' || tag === 'textarea' || tag === 'select';
  if (helpOpen() && (e.key === 'Escape' || e.key === '?')) { closeHelp(); e.preventDefault(); return; }
  if (e.key === '?' && !typing) { toggleHelp(); e.preventDefault(); return; }
  if (e.key === 's' && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
    $('search-box').focus();
    $('search-box').select();
    e.preventDefault();
    return;
  }
  if (e.key === '/' && !typing && !e.ctrlKey && !e.metaKey) {
    const p = panes.get(S.state.tab);
    if (p && p.focusSearch) { p.focusSearch(); e.preventDefault(); }
  } else if (e.key === 'Escape' && typing) {
    const p = panes.get(S.state.tab);
    if (p && p.focus) p.focus();
  }
});

// ---- resizing: the sidebars' width and the number columns (CSS variables, kept across
// reloads in localStorage) ----

const LAYOUT_KEY = 'profview.layout';
const LAYOUT_VARS = { sidebar: ['--sidebar-w', 160, 900], num: ['--num-w', 50, 260], pct: ['--pct-w', 40, 140] };
function setLayout(which, px, save) {
  const [v, lo, hi] = LAYOUT_VARS[which];
  const w = Math.round(Math.max(lo, Math.min(hi, px)));
  document.documentElement.style.setProperty(v, w + 'px');
  if (!save) return;
  try {
    const all = JSON.parse(localStorage.getItem(LAYOUT_KEY) || '{}');
    all[which] = w;
    localStorage.setItem(LAYOUT_KEY, JSON.stringify(all));
  } catch (e) { /* no storage: the width lasts the page */ }
}
function setupResizers() {
  try {
    const all = JSON.parse(localStorage.getItem(LAYOUT_KEY) || '{}');
    for (const k of Object.keys(LAYOUT_VARS)) if (typeof all[k] === 'number') setLayout(k, all[k], false);
  } catch (e) { /* none kept */ }
  const EDGE = 5;
  // what a pointer at (x, y) over el would resize: the sidebar by its left edge, a number or
  // percent column of a table head by its right edge
  const grip = (el, x) => {
    const sb = el.closest && el.closest('.split > .sidebar');
    if (sb && x - sb.getBoundingClientRect().left <= EDGE) return { which: 'sidebar', el: sb, from: 'right' };
    const cell = el.closest && el.closest('.tt-head .num');
    if (cell && cell.getBoundingClientRect().right - x <= EDGE) return { which: cell.textContent.startsWith('%') ? 'pct' : 'num', el: cell, from: 'left' };
    return null;
  };
  document.addEventListener('mousemove', (e) => {
    if (drag) return;
    const g = grip(e.target, e.clientX);
    document.body.classList.toggle('col-resize', !!g);
  });
  let drag = null;
  document.addEventListener('mousedown', (e) => {
    if (e.button !== 0) return;
    const g = grip(e.target, e.clientX);
    if (!g) return;
    const r = g.el.getBoundingClientRect();
    drag = { ...g, x0: e.clientX, w0: r.width };
    e.preventDefault();
    e.stopPropagation();
  }, true);
  window.addEventListener('mousemove', (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x0;
    setLayout(drag.which, drag.from === 'right' ? drag.w0 - dx : drag.w0 + dx, false);
  });
  window.addEventListener('mouseup', (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x0;
    setLayout(drag.which, drag.from === 'right' ? drag.w0 - dx : drag.w0 + dx, true);
    drag = null;
    // the click that ends a drag is not a click on the header (no sort)
    const eat = (ev) => { ev.stopPropagation(); ev.preventDefault(); };
    window.addEventListener('click', eat, { capture: true, once: true });
    setTimeout(() => window.removeEventListener('click', eat, { capture: true }), 0);
    document.body.classList.remove('col-resize');
  }, true);
}

async function main() {
  setupResizers();
  S.readUrl();
  S.onChange(onState);
  if (!(await waitLoaded())) return;
  try {
    ctx.profile = await api('profile', S.state.p ? [['p', S.state.p]] : []);
  } catch (e) {
    $('loading').hidden = false;
    clear($('loading-files'));
    showError(e.message);
    return;
  }
  // a tab per view kind the library lists, ahead of the page's other panes; then the URL's tab
  // (one of them) can be read
  S.setViews(ctx.profile.views);
  const opened = S.state.p; // the file waitLoaded chose (the URL may name none)
  S.readUrl();
  S.state.p = opened;
  $('tabs').prepend(...S.viewKinds().map((v) => h('button', {
    dataset: { tab: v.tab, view: v.name },
    text: v.label,
    title: v.needs_center ? `${v.label}: needs a center` : v.label,
  })));
  $('app').hidden = false;
  // serve --base: the Diff tab, and the flame graph coloured by delta
  document.querySelector('#tabs button[data-tab="diff"]').hidden = !ctx.profile.base;
  if (S.state.tab === 'diff' && !ctx.profile.base) S.state.tab = S.tabOfView('tree');
  // the stack chart: for a profile with sample times (or trace records)
  const stackChart = !!(ctx.profile.timed || ctx.profile.trace);
  document.querySelector('#tabs button[data-tab="stack-chart"]').hidden = !stackChart;
  if (S.state.tab === 'stack-chart' && !stackChart) S.state.tab = S.tabOfView('tree');
  // a fresh URL (the page's own always names its tab) opens on what the library says
  // (open_thread): all threads summed for one program (hpcviewer's habit), else the busiest
  // thread (the Firefox Profiler's); merging every thread is one click in the query bar
  const fresh = !new URLSearchParams(location.search).has('tab');
  const ot = ctx.profile.open_thread;
  if (fresh && !S.get('thread').length && ot !== null && ot !== undefined) S.set('thread', ['#' + ot]);
  setupTopbar();
  timeline = new Timeline();
  new SearchBox($('search-box'), $('search-drop'));
  // the system's theme changes: the canvases redraw in its colours (style.css follows by itself)
  onThemeChange(() => {
    timeline.draw();
    for (const p of panes.values()) if (!p.el.hidden && p.draw) p.draw();
  });
  renderQueryBar();
  S.commit('init', false); // canonical URL (tab=...) without a new entry
  timeline.update();
  updateActive();
  const p = panes.get(S.state.tab);
  if (p && p.focus) setTimeout(() => p.focus(), 0);
  window.profview = { ctx, state: S.state, panes, timeline, ready: true }; // for tests and the console
}

window.addEventListener('error', (e) => {
  if (/ResizeObserver loop/.test(e.message || '')) return; // benign
  showError(`page error: ${e.message}`);
});
window.addEventListener('unhandledrejection', (e) => {
  if (e.reason && e.reason.name === 'AbortError') return;
  showError(`page error: ${e.reason && e.reason.message ? e.reason.message : e.reason}`);
});

main();

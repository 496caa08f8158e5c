// Markers: one marker in full (api/marker), its details (tooltip and sidebar), its context menu,
// and the marker table (api/markers) with the search syntax, paged as it scrolls.
import { api, isAbort } from '../api.js';
import { ctx } from '../ctx.js';
import * as S from '../state.js';
import { h, clear, fmtMs, fmtTime, categoryColor, copyText, debounce } from '../util.js';
import { paneError, showMenu } from '../ui.js';
import { PagedTable } from './paged.js';

const cache = new Map(); // "p:i" -> marker JSON
export function fetchMarker(i) {
  const k = `${S.state.p}:${i}`;
  if (!cache.has(k)) {
    const pr = api('marker', [['p', S.state.p], ['i', i]]);
    cache.set(k, pr);
    pr.catch(() => cache.delete(k));
  }
  return cache.get(k);
}

export function rel(t) { return t - (ctx.profile ? ctx.profile.start : 0); }

// The cause stack as a center: the library's path: of scopes that name each function alone.
export function causeScope(m) {
  return (m && m.cause && m.cause.scope) || null;
}

export function hasDuration(m) { return m.end !== null && m.end !== undefined && m.end > m.start; }

// The marker in full: duration + tooltip label, description, fields, thread, cause stack.
export function markerDetails(m, compact) {
  const el = h('div', { class: 'marker-details' });
  // an incomplete marker has an end (where it was clamped) but no known duration
  const dur = m.incomplete ? 'unknown duration' : m.end === null || m.end === undefined ? '' : fmtMs(m.duration ?? m.end - m.start);
  el.append(h('div', { class: 'tt-title' }, dur ? h('span', { class: 'tt-dur', text: dur }) : null, dur ? ' ' : null, m.tooltip_label || m.label || m.name));
  if (m.description) el.append(h('div', { class: 'dim', text: m.description, style: { margin: '2px 0 4px' } }));
  const t = h('table');
  const row = (k, v) => t.append(h('tr', null, h('td', { class: 'k', text: k }), h('td', { class: 'v', text: v })));
  row('Name', m.name);
  row('Category', m.category);
  if (m.type) row('Type', m.type);
  row('Start', fmtTime(rel(m.start)) + (m.incomplete ? ' (incomplete)' : ''));
  if (m.synthetic) row('Origin', 'derived from the samples');
  if (m.end !== null && m.end !== undefined) row('End', fmtTime(rel(m.end)));
  for (const f of m.fields || []) if (!f.hidden) row(f.label || f.key, f.value);
  row('Thread', `${m.thread_name}${m.tid !== undefined && m.tid !== null ? ` (${m.tid})` : ''}`);
  if (!compact) row('Index', String(m.index));
  el.append(t);
  if (m.cause && m.cause.stack && m.cause.stack.length) {
    const before = m.cause.time !== undefined && m.cause.time !== null && m.cause.time < m.start
      ? `Triggered ${fmtMs(m.start - m.cause.time)} before, at:` : 'Stack:';
    const frames = compact ? m.cause.stack.slice(0, 12) : m.cause.stack;
    el.append(h('div', { class: 'dim', text: before, style: { marginTop: '4px' } }),
      h('div', { class: 'stack', text: frames.join('\n') + (frames.length < m.cause.stack.length ? `\n… ${m.cause.stack.length - frames.length} more` : '') }));
  }
  return el;
}

export function markerItems(m) {
  const a = ctx.actions;
  const cs = causeScope(m);
  return [
    { label: 'Use as time range', disabled: !hasDuration(m), action: () => a.setRange([m.start, m.end]) },
    { label: 'Zoom to the marker', disabled: !hasDuration(m), action: () => a.zoomTo([m.start, m.end]) },
    { label: 'Center on cause stack', disabled: !cs, action: () => a.setCenter(cs) },
    { label: `Keep only samples inside ${m.name} markers`, action: () => a.setInsideMarkers('name:' + m.name) },
    'sep',
    { label: 'Copy description', action: () => copyText(`${m.name}${m.label ? ' — ' + m.label : ''}`) },
    { label: 'Copy cause stack', disabled: !cs, action: () => copyText(m.cause.stack.join('\n')) },
    { label: 'Copy as JSON', action: () => copyText(JSON.stringify(m, null, 2)) },
  ];
}

export async function markerMenu(i, x, y) {
  try {
    const m = await fetchMarker(i);
    showMenu(x, y, markerItems(m));
  } catch (e) {
    if (!isAbort(e)) ctx.actions.error(e.message);
  }
}

// The window the marker views show: the selection, else the zoomed range, else everything.
export function markerWindow(useSelection) {
  const r = useSelection ? S.range() : null;
  if (r) return r;
  const z = S.state.zoom;
  if (z.length) return z[z.length - 1];
  return null;
}

export function threadParams() {
  return S.queryParams(null, { onlyThreads: true });
}

// The sidebar showing the selected marker.
export class MarkerSidebar {
  constructor() {
    this.el = h('aside', { class: 'sidebar' });
    this.gen = 0;
    this.show(null);
  }
  // data-marker names the marker the sidebar shows once its details are in (tests wait for it)
  async show(i) {
    const gen = ++this.gen;
    delete this.el.dataset.marker;
    if (i === null || i === undefined) {
      clear(this.el);
      this.el.append(h('div', { class: 'dim', text: 'Select a marker to see it in full.' }));
      return;
    }
    try {
      const m = await fetchMarker(i);
      if (gen !== this.gen) return;
      clear(this.el);
      this.el.append(markerDetails(m, false));
      const acts = h('div', { class: 'actions' });
      for (const it of markerItems(m)) {
        if (it === 'sep' || it.label.startsWith('Copy')) continue;
        acts.append(h('button', { class: 'small', text: it.label, disabled: it.disabled, onclick: it.action }));
      }
      this.el.append(acts);
      this.el.dataset.marker = String(i);
    } catch (e) {
      if (gen !== this.gen || isAbort(e)) return;
      paneError(this.el, e.message);
    }
  }
}

// ---- the marker table ----

export class MarkerTablePane extends PagedTable {
  constructor() {
    super('markers');
    this.sort = 'start';
    this.el = h('div', { class: 'pane' });
    this.searchBox = h('input', { type: 'search', placeholder: 'Filter markers: DOMEvent, -name:mouse, cat:GC (/)', 'aria-label': 'Marker search' });
    this.searchBox.value = S.state.search;
    const apply = debounce(() => { S.state.search = this.searchBox.value.trim(); S.commit('search', false); }, 250);
    this.searchBox.addEventListener('input', apply);
    this.label = h('span', { class: 'dim' });
    this.el.append(h('div', { class: 'pane-toolbar' }, this.searchBox, h('span', { class: 'spacer' }), this.label));
    this.tt = h('div', { class: 'tt' });
    this.head = h('div', { class: 'tt-head' });
    const col = (cls, text, sortKey) => {
      const el = h('div', { class: cls, text });
      if (sortKey) el.addEventListener('click', () => { this.sort = sortKey; this.update(true); });
      return el;
    };
    this.hStart = col('num c-start', 'Start', 'start');
    this.hDur = col('num c-dur', 'Duration', 'duration');
    this.head.append(this.hStart, this.hDur, col('c-name', 'Name'), col('c-thread', 'Thread'), col('c-label', 'Details'));
    for (const c of this.head.children) c.style.flex = c.classList.contains('c-label') ? '1' : 'none';
    this.hStart.style.width = '90px'; this.hDur.style.width = '80px';
    this.head.children[2].style.width = '200px'; this.head.children[3].style.width = '130px';
    this.body = h('div', { class: 'tt-body', tabindex: '0' });
    this.tt.append(this.head, this.body);
    this.sidebar = new MarkerSidebar();
    this.content = h('div', { class: 'split' }, this.tt, this.sidebar.el);
    this.el.append(this.content);
    this.initList();
    this.body.addEventListener('keydown', (e) => {
      if (this.moveKey(e)) return;
      if (e.key === 'Enter') {
        const m = this.rowOf(this.sel);
        if (m) this.open(m);
      }
    });
  }
  focusSearch() { this.searchBox.focus(); this.searchBox.select(); }

  open(m) { if (hasDuration(m)) ctx.actions.setRange([m.start, m.end]); }
  openMenu(m, e) { markerMenu(m.index, e.clientX, e.clientY); }
  selected(m) {
    S.state.mk = m.index;
    S.commit('mk', false);
    this.sidebar.show(m.index);
  }

  params() {
    const out = [['p', S.state.p], ...threadParams()];
    if (S.state.search) out.push(['search', S.state.search]);
    const w = markerWindow(true);
    if (w) out.push(['start', S.fmtMsParam(w[0])], ['end', S.fmtMsParam(w[1])]);
    if (this.sort !== 'start') out.push(['sort', this.sort]);
    return out;
  }

  renderRow(div, i) {
    const m = this.rowOf(i);
    div.className = 'tt-row mt-row' + (i % 2 ? ' odd' : '') + (i === this.sel ? ' selected' : '');
    div.dataset.index = i;
    clear(div);
    if (!m) { this.placeholder(div, i); return; }
    div.dataset.marker = m.index;
    const dur = m.instant ? '' : (m.incomplete || m.duration === null ? 'unknown' : fmtMs(m.duration));
    const sw = h('span', { style: { display: 'inline-block', width: '8px', height: '8px', borderRadius: '2px', marginRight: '5px', background: categoryColor(colorOfCategory(m.category)) } });
    div.append(
      h('div', { class: 'c-num c-start', style: { flex: 'none' }, text: fmtTime(rel(m.start)) }),
      h('div', { class: 'c-num c-dur', style: { flex: 'none' }, text: dur }),
      h('div', { class: 'c-name', style: { flex: 'none' }, title: m.category }, sw, m.name),
      h('div', { class: 'c-thread dim', style: { flex: 'none' }, text: m.thread_name }),
      h('div', { class: 'c-label', text: m.label || '' }));
  }

  async update(force) {
    if (this.searchBox.value.trim() !== S.state.search && document.activeElement !== this.searchBox) this.searchBox.value = S.state.search;
    const params = this.params();
    const key = JSON.stringify(params);
    this.hStart.classList.toggle('sorted', this.sort === 'start');
    this.hDur.classList.toggle('sorted', this.sort === 'duration');
    if (!force && key === this.lastKey) {
      if (S.state.mk !== null) this.sidebar.show(S.state.mk);
      return;
    }
    const gen = ++this.gen;
    let r;
    try {
      r = await this.fetchPage(params, 0);
    } catch (e) {
      if (gen !== this.gen || isAbort(e)) return;
      this.lastKey = null;
      this.pages = new Map();
      this.n = 0;
      this.list.setCount(0);
      clear(this.label);
      this.label.append(h('span', { style: { color: '#a4000f' }, text: e.message }));
      return;
    }
    if (gen !== this.gen) return;
    this.lastKey = key;
    this.pages = new Map([[0, r.rows]]);
    this.n = r.total;
    const w = markerWindow(true);
    this.label.textContent = `${r.total.toLocaleString('en-US')} markers` + (w ? ` in ${fmtTime(rel(w[0]))} – ${fmtTime(rel(w[1]))}` : '');
    ctx.status(`${r.total.toLocaleString('en-US')} markers`, this);
    this.sel = S.state.mk !== null ? r.rows.findIndex((m) => m.index === S.state.mk) : -1;
    this.list.setCount(this.n);
    if (this.sel >= 0) this.list.scrollTo(this.sel);
    this.sidebar.show(S.state.mk);
    if (!r.total) {
      this.list.setCount(0);
    }
  }
}

export function colorOfCategory(name) {
  const cats = ctx.profile && ctx.profile.categories;
  if (!cats) return 'grey';
  const c = cats.find((x) => x.name === name);
  return c ? c.color : 'grey';
}

// The marker chart (api/marker-chart) of the timeline's selection (else its zoom): one row per marker
// name, grouped by thread then category; intervals as bars with their chart label, instants as
// diamonds; markers of one row that overlap go on sub-rows below it (like the Firefox
// Profiler). Hover: the tooltip (api/marker); click selects; double-click uses the marker as
// the time range; right-click: use as range, center on cause stack, ... Ctrl/⌘+wheel zooms
// around the pointer (inside the committed zoom); the plain wheel scrolls.
import { api, isAbort } from '../api.js';
import { ctx } from '../ctx.js';
import * as S from '../state.js';
import { h, ink, categoryColor, fade, fitText, sizeCanvas, niceStep, fmtTime, fmtMs, debounce, WheelView } from '../util.js';
import { paneFailed, paneOk, showTooltip, moveTooltip, hideTooltip } from '../ui.js';
import { fetchMarker, markerDetails, markerMenu, MarkerSidebar, markerWindow, threadParams, rel, hasDuration } from './markers.js';

const RH = 16;
const LABEL_W = 200;
const AXIS_H = 20;
const MAX_SUBROWS = 32; // deeper overlaps share the last sub-row

export class MarkerChartPane {
  constructor() {
    this.gen = 0;
    this.lastKey = null;
    this.data = null;
    this.lines = [];
    this.el = h('div', { class: 'pane' });
    this.searchBox = h('input', { type: 'search', placeholder: 'Filter markers: DOMEvent, -name:mouse, cat:GC (/)', 'aria-label': 'Marker search' });
    this.searchBox.value = S.state.search;
    const apply = debounce(() => { S.state.search = this.searchBox.value.trim(); S.commit('search', false); }, 250);
    this.searchBox.addEventListener('input', apply);
    this.info = h('span', { class: 'dim' });
    this.el.append(h('div', { class: 'pane-toolbar' }, this.searchBox, h('span', { class: 'spacer' }), this.info));
    this.wrap = h('div', { class: 'canvas-wrap', tabindex: '0' });
    this.canvas = h('canvas');
    this.wrap.append(this.canvas);
    this.sidebar = new MarkerSidebar();
    this.content = h('div', { class: 'split' }, this.wrap, this.sidebar.el);
    this.el.append(this.content);
    this.canvas.addEventListener('mousemove', (e) => this.onMove(e));
    this.canvas.addEventListener('mouseleave', () => { this.hoverI = null; hideTooltip(); this.draw(); });
    this.canvas.addEventListener('click', (e) => {
      const hit = this.hit(e);
      if (!hit) return;
      S.state.mk = hit.m.i;
      S.commit('mk', false);
      this.sidebar.show(hit.m.i);
      this.draw();
    });
    this.canvas.addEventListener('dblclick', async (e) => {
      const hit = this.hit(e);
      if (!hit || hit.m.end === null) return;
      try {
        const m = await fetchMarker(hit.m.i);
        if (hasDuration(m)) ctx.actions.setRange([m.start, m.end]);
      } catch (err) { ctx.actions.error(err.message); }
    });
    this.canvas.addEventListener('contextmenu', (e) => {
      const hit = this.hit(e);
      if (!hit) return;
      e.preventDefault();
      hideTooltip();
      S.state.mk = hit.m.i;
      S.commit('mk', false);
      this.sidebar.show(hit.m.i);
      this.draw();
      markerMenu(hit.m.i, e.clientX, e.clientY);
    });
    this.view = new WheelView(); // ctrl+wheel
    this.canvas.addEventListener('wheel', (e) => this.onWheel(e), { passive: false });
    this.refetch = debounce(() => this.update(true), 200);
    this.lastW = 0;
    new ResizeObserver(() => {
      const w = this.wrap.clientWidth;
      if (this.data && Math.abs(w - this.lastW) > 40) this.refetch(); else this.draw();
    }).observe(this.wrap);
  }
  focusSearch() { this.searchBox.focus(); this.searchBox.select(); }
  focus() { this.wrap.focus({ preventScroll: true }); }

  // the committed window (the timeline's selection, else its zoom: the Firefox Profiler's
  // marker chart shows the preview selection), and what is drawn: the wheel's view inside it
  base() {
    const w = markerWindow(true);
    if (w) return w;
    return [ctx.profile.start, ctx.profile.activity_end ?? ctx.profile.end]; // as the timeline: the last marker counted
  }
  window() { return this.view.window(this.base()); }

  onWheel(e) {
    if (!(e.ctrlKey || e.metaKey)) return; // the plain wheel scrolls the rows
    const rect = this.canvas.getBoundingClientRect();
    const x = e.clientX - rect.left;
    if (x < LABEL_W || !this.data) return;
    e.preventDefault();
    const t = this.t0 + ((x - LABEL_W) / (rect.width - LABEL_W)) * (this.t1 - this.t0);
    [this.t0, this.t1] = this.view.zoom(this.base(), t, e.deltaY);
    this.draw(); // the markers in hand; the answer for the new view (merging by pixel) follows
    this.refetch();
  }

  async update(force) {
    if (this.searchBox.value.trim() !== S.state.search && document.activeElement !== this.searchBox) this.searchBox.value = S.state.search;
    const [t0, t1] = this.window();
    const width = Math.max(100, (this.wrap.clientWidth || 900) - LABEL_W);
    const params = [['p', S.state.p], ['start', S.fmtMsParam(t0)], ['end', S.fmtMsParam(t1)], ['width', Math.round(width)], ...threadParams()];
    if (S.state.search) params.push(['search', S.state.search]);
    const key = JSON.stringify(params);
    if (!force && key === this.lastKey) { this.sidebar.show(S.state.mk); this.draw(); return; }
    const gen = ++this.gen;
    let d;
    try {
      d = await api('marker-chart', params);
    } catch (e) {
      if (gen !== this.gen || isAbort(e)) return;
      paneFailed(this, this.content, e.message);
      return;
    }
    if (gen !== this.gen) return;
    paneOk(this, this.content);
    this.lastKey = key;
    this.lastW = this.wrap.clientWidth;
    this.data = d;
    this.t0 = d.start ?? t0;
    this.t1 = d.end ?? t1;
    // Lines: a header per (thread, category) group, then the rows.
    const lines = [];
    const threads = new Set(d.rows.map((r) => r.thread));
    let lastThread = null, lastCat = null;
    let count = 0, rowCount = 0;
    for (const r of d.rows) {
      if (threads.size > 1 && r.thread !== lastThread) {
        lines.push({ header: 'thread', text: r.thread_name || `thread ${r.thread}` });
        lastCat = null;
      }
      if (r.category !== lastCat) lines.push({ header: 'category', text: r.category, color: r.color });
      lastThread = r.thread;
      lastCat = r.category;
      const band = rowCount++;
      subRows(r.markers).forEach((markers, sub) => lines.push({ row: r, markers, sub, band }));
      count += r.markers.reduce((a, m) => a + (m.merged || 1), 0);
    }
    this.lines = lines;
    // nothing to draw: say why (the Firefox Profiler's empty chart does), and no time axis
    // made up for a profile without times
    this.empty = d.rows.length ? null
      : ctx.profile.marker_names === 0 ? 'This profile has no markers.'
        : S.state.search ? 'No marker in this window matches the search.'
          : 'No markers in this window.';
    this.info.textContent = ctx.profile.marker_names === 0 ? 'no markers'
      : `${count.toLocaleString('en-US')} markers in ${d.rows.length} rows · ${fmtTime(rel(this.t0))} – ${fmtTime(rel(this.t1))}`;
    ctx.status(`${count.toLocaleString('en-US')} markers`, this);
    this.sidebar.show(S.state.mk);
    this.draw();
  }

  x(t, width) { return LABEL_W + ((t - this.t0) / (this.t1 - this.t0)) * (width - LABEL_W); }

  draw() {
    if (!this.data) return;
    const width = this.wrap.clientWidth || 900;
    const height = Math.max(this.wrap.clientHeight - 2, AXIS_H + this.lines.length * RH + 8);
    const c = sizeCanvas(this.canvas, width, height);
    c.clearRect(0, 0, width, height);
    c.font = '11px system-ui, sans-serif';
    c.textBaseline = 'middle';
    if (this.empty) {
      c.fillStyle = ink('#737373');
      c.textAlign = 'center';
      c.fillText(this.empty, width / 2, AXIS_H + 2 * RH);
      c.textAlign = 'start';
      return;
    }
    // axis
    const span = this.t1 - this.t0;
    const step = niceStep(span, Math.max(2, (width - LABEL_W) / 110));
    const z = ctx.profile.start;
    c.fillStyle = ink('#f9f9fa');
    c.fillRect(0, 0, width, AXIS_H);
    c.strokeStyle = ink('#ececf0');
    c.fillStyle = ink('#737373');
    for (let t = Math.ceil((this.t0 - z) / step) * step + z; t <= this.t1; t += step) {
      const x = Math.round(this.x(t, width)) + 0.5;
      c.beginPath(); c.moveTo(x, AXIS_H - 4); c.lineTo(x, height); c.stroke();
      c.fillText(fmtMs(t - z), x + 3, AXIS_H / 2);
    }
    const sel = S.state.mk;
    this.lines.forEach((line, li) => {
      const y = AXIS_H + li * RH;
      if (line.header) {
        c.fillStyle = line.header === 'thread' ? ink('#e0e0e6') : ink('#f0f0f4');
        c.fillRect(0, y, width, RH);
        c.fillStyle = ink('#0c0c0d');
        c.font = '600 11px system-ui, sans-serif';
        if (line.color) {
          c.fillStyle = categoryColor(line.color);
          c.fillRect(6, y + 4, 8, 8);
          c.fillStyle = ink('#0c0c0d');
        }
        c.fillText(line.text, line.color ? 18 : 6, y + RH / 2);
        c.font = '11px system-ui, sans-serif';
        return;
      }
      const row = line.row;
      if (line.band % 2) { c.fillStyle = ink('#fafafb'); c.fillRect(0, y, width, RH); }
      if (!line.sub) {
        c.fillStyle = ink('#38383d');
        c.fillText(fitText(c, row.name, LABEL_W - 24), 14, y + RH / 2);
      }
      const col = categoryColor(row.color);
      c.save();
      c.beginPath();
      c.rect(LABEL_W, y, width - LABEL_W, RH);
      c.clip();
      for (const m of line.markers) {
        const x0 = this.x(m.start, width);
        const selected = m.i === sel;
        const hot = m.i === this.hoverI;
        if (m.end === null || m.end === undefined) {
          c.fillStyle = selected ? '#0060df' : col;
          c.beginPath();
          c.moveTo(x0, y + 2); c.lineTo(x0 + 5, y + RH / 2); c.lineTo(x0, y + RH - 2); c.lineTo(x0 - 5, y + RH / 2);
          c.closePath();
          c.fill();
          if (hot || selected) { c.strokeStyle = ink('#0c0c0d'); c.stroke(); }
          continue;
        }
        const x1 = Math.max(x0 + 1, this.x(m.end, width));
        c.fillStyle = selected ? '#0060df' : hot ? col : fade(col, 0.75);
        c.fillRect(x0, y + 2, x1 - x0, RH - 4);
        if (hot && !selected) { c.strokeStyle = ink('#0c0c0d'); c.strokeRect(x0 + 0.5, y + 2.5, x1 - x0 - 1, RH - 5); }
        const vx0 = Math.max(x0, LABEL_W), vx1 = Math.min(x1, width);
        const label = m.merged ? `${m.merged} markers` : (m.label || row.name);
        if (vx1 - vx0 > 24) {
          c.fillStyle = selected ? '#fff' : '#0c0c0d'; // on the marker's colour
          c.fillText(fitText(c, label, vx1 - vx0 - 6), vx0 + 3, y + RH / 2);
        }
      }
      c.restore();
    });
    c.strokeStyle = ink('#d7d7db');
    c.beginPath(); c.moveTo(LABEL_W - 0.5, 0); c.lineTo(LABEL_W - 0.5, height); c.stroke();
  }

  // Where marker i is drawn (client coordinates), or null: for tests and keyboard use.
  locate(i) {
    const rect = this.canvas.getBoundingClientRect();
    for (let li = 0; li < this.lines.length; li++) {
      const line = this.lines[li];
      const m = line.row && line.markers.find((x) => x.i === i);
      if (!m) continue;
      const x0 = this.x(m.start, rect.width);
      const x1 = m.end === null || m.end === undefined ? x0 : Math.max(x0 + 2, this.x(m.end, rect.width));
      return { x: rect.left + (x0 + x1) / 2, y: rect.top + AXIS_H + li * RH + RH / 2 };
    }
    return null;
  }

  hit(e) {
    if (!this.data) return null;
    const rect = this.canvas.getBoundingClientRect();
    const x = e.clientX - rect.left, y = e.clientY - rect.top;
    const li = Math.floor((y - AXIS_H) / RH);
    const line = this.lines[li];
    if (!line || !line.row || x < LABEL_W) return null;
    const width = rect.width;
    let best = null, bestD = Infinity;
    for (const m of line.markers) {
      const x0 = this.x(m.start, width);
      if (m.end === null || m.end === undefined) {
        const d = Math.abs(x - x0);
        if (d <= 6 && d < bestD) { best = m; bestD = d; }
      } else {
        const x1 = Math.max(x0 + 2, this.x(m.end, width));
        if (x >= x0 - 1 && x <= x1 + 1) {
          const d = (x1 - x0) / 1e6; // prefer the narrowest (nested markers)
          if (d < bestD) { best = m; bestD = d; }
        }
      }
    }
    return best ? { m: best, row: line.row } : null;
  }

  async onMove(e) {
    const hit = this.hit(e);
    const i = hit ? hit.m.i : null;
    if (i !== this.hoverI) { this.hoverI = i; this.draw(); }
    if (!hit) { hideTooltip(); return; }
    const cx = e.clientX, cy = e.clientY;
    this.tipFor = i;
    try {
      const m = await fetchMarker(i);
      if (this.tipFor !== i || this.hoverI !== i) return;
      const el = markerDetails(m, true);
      if (hit.m.merged) el.prepend(h('div', { class: 'dim', text: `${hit.m.merged} markers merged at this zoom; the first:` }));
      showTooltip(cx, cy, el);
    } catch (err) {
      if (!isAbort(err)) showTooltip(cx, cy, err.message);
    }
    moveTooltip(e.clientX, e.clientY);
  }
}

// The markers of one row on sub-rows: each marker (by start) goes on the first sub-row whose
// last marker ended by its start, so markers that overlap (nested or not) never share one.
export function subRows(markers) {
  const order = markers.slice().sort((a, b) => a.start - b.start);
  const rows = [], ends = [];
  for (const m of order) {
    const end = m.end === null || m.end === undefined ? m.start : m.end;
    let k = ends.findIndex((e) => e <= m.start);
    if (k < 0) {
      k = rows.length < MAX_SUBROWS ? rows.length : MAX_SUBROWS - 1;
      if (k === rows.length) { rows.push([]); ends.push(-Infinity); }
    }
    rows[k].push(m);
    ends[k] = Math.max(ends[k], end);
  }
  return rows.length ? rows : [[]];
}

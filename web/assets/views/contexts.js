// hpcviewer's per-context plots of the selected row (api/contexts, doc/contexts.md): its value
// on each execution context (thread, process, rank) by context index, the same sorted (largest
// first), or their histogram. The server reduces the shown window of contexts to one column
// per pixel (the min and max of the contexts in it), so 10,000 contexts draw as fast as 10:
// light bars reach each column's max, dark ones its min. The wheel zooms around the pointer
// (double-click: all), hover names the context and its value, a click makes that context
// (a histogram bin: its contexts) the thread filter. Both axes have ticks: the value on the
// left, the context's position (the histogram: the value) below. A query of one context has
// nothing to spread: the plot hides itself (onShape) and the sidebar drops its section.
import { api, isAbort } from '../api.js';
import { ctx } from '../ctx.js';
import * as S from '../state.js';
import { h, clear, sizeCanvas, fmtCost, niceStep, ink } from '../util.js';
import { showTooltip, moveTooltip, hideTooltip } from '../ui.js';

const HEIGHT = 140;
const BINS = 30;
// the axes (hpcviewer's thread graph): values on the left, context positions (a histogram:
// values) below
const AXIS_L = 46;
const AXIS_B = 16;
const TOP = 6;
// A ratio to the mean (cv, imbalance): null when the mean is 0, shown as '-'
const ratio = (x) => (x === null ? '-' : x.toFixed(3));
const MODES = [['plot', 'Plot'], ['sorted', 'Sorted'], ['histogram', 'Histogram']];

export class ContextsPlot {
  constructor() {
    this.mode = 'plot';
    this.value = 'total';
    this.win = null; // [from, to) positions; null: every context
    this.gen = 0;
    this.data = null;
    this.modeButtons = MODES.map(([m, label]) => h('button', {
      class: 'small', text: label, 'data-mode': m, onclick: () => this.setMode(m),
    }));
    this.valueSel = h('select', { 'aria-label': 'Value', onchange: () => { this.value = this.valueSel.value; this.load(); } },
      h('option', { value: 'total', text: 'total' }), h('option', { value: 'self', text: 'self' }));
    this.canvas = h('canvas', { class: 'cplot-canvas' });
    this.summary = h('div', { class: 'dim cplot-summary' });
    this.el = h('div', { class: 'cplot' },
      h('div', { class: 'cplot-bar' }, ...this.modeButtons, this.valueSel), this.canvas, this.summary);
    this.canvas.addEventListener('mousemove', (e) => this.hover(e));
    this.canvas.addEventListener('mouseleave', () => hideTooltip());
    this.canvas.addEventListener('click', (e) => this.click(e));
    this.canvas.addEventListener('dblclick', () => { this.win = null; this.load(); });
    this.canvas.addEventListener('wheel', (e) => this.wheel(e), { passive: false });
    this.markMode();
  }

  // The row: params of its query plus key=KEY or scope=SCOPE (none: the query's center).
  // onShape(contexts) is told how many contexts each answer has.
  show(params, onShape) {
    this.onShape = onShape || null;
    this.params = params;
    this.win = null;
    this.load();
  }

  setMode(m) {
    if (m === this.mode) return;
    this.mode = m;
    this.win = null;
    this.markMode();
    this.load();
  }

  markMode() {
    for (const b of this.modeButtons) b.classList.toggle('active', b.dataset.mode === this.mode);
    this.el.dataset.mode = this.mode;
  }

  width() { return Math.max(160, (this.el.clientWidth || 290) - 2); }

  async load() {
    if (!this.params) return;
    const gen = ++this.gen;
    this.el.dataset.state = 'busy';
    const ps = [...this.params, ['value', this.value], ['width', this.width()], ['bins', BINS],
      ['order', this.mode === 'sorted' ? 'value' : 'index']];
    if (this.win) ps.push(['from', this.win[0]], ['to', this.win[1]]);
    try {
      const data = await api('contexts', ps);
      if (gen !== this.gen) return;
      this.data = data;
      if (this.onShape) this.onShape(data.contexts);
      this.draw();
    } catch (e) {
      if (gen !== this.gen || isAbort(e)) return;
      this.data = null;
      clear(this.summary).append(h('span', { class: 'pane-error', text: e.message }));
      sizeCanvas(this.canvas, this.width(), 1);
    }
    this.el.dataset.state = 'ready';
  }

  // the plot's area inside the canvas (its axes around it)
  area() {
    const W = this.width();
    return { x: AXIS_L, y: TOP, w: Math.max(10, W - AXIS_L - 4), h: HEIGHT - TOP - AXIS_B };
  }

  draw() {
    const d = this.data;
    const W = this.width();
    const c = sizeCanvas(this.canvas, W, HEIGHT);
    c.clearRect(0, 0, W, HEIGHT);
    const unit = d.metric.shown || d.metric.unit;
    const s = d.summary[this.value];
    this.canvas.dataset.contexts = d.contexts;
    this.canvas.dataset.from = d.from;
    this.canvas.dataset.to = d.to;
    const A = this.area();
    const bottom = A.y + A.h;
    let yTop; // the value (count) at the top of the plot
    let xFrom, xTo, xFmt; // the x axis: its range and tick labels
    if (this.mode === 'histogram') {
      const counts = d.histogram.counts;
      yTop = Math.max(1, ...counts);
      const bw = A.w / counts.length;
      counts.forEach((n, i) => {
        const bh = (A.h * n) / yTop;
        c.fillStyle = '#0a84ff';
        c.fillRect(A.x + i * bw + 0.5, bottom - bh, Math.max(1, bw - 1), bh);
      });
      this.canvas.dataset.columns = counts.length;
      xFrom = d.histogram.min;
      xTo = d.histogram.min + d.histogram.width * counts.length;
      xFmt = (v) => fmtAxis(v, unit);
    } else {
      const cols = d.columns;
      yTop = Math.max(1e-12, ...cols.map((k) => k[1]));
      const cw = A.w / Math.max(1, cols.length);
      const y = (v) => bottom - (A.h * Math.max(0, v)) / yTop;
      cols.forEach((k, i) => {
        c.fillStyle = '#8fc3ff'; // the column's max
        c.fillRect(A.x + i * cw, y(k[1]), Math.max(1, cw - (cw > 3 ? 1 : 0)), bottom - y(k[1]));
        c.fillStyle = '#0a84ff'; // its min
        c.fillRect(A.x + i * cw, y(k[0]), Math.max(1, cw - (cw > 3 ? 1 : 0)), bottom - y(k[0]));
      });
      this.canvas.dataset.columns = cols.length;
      xFrom = d.from;
      xTo = d.to;
      xFmt = (v) => String(v);
    }
    const ticks = drawAxes(c, A, yTop, this.mode === 'histogram' ? (v) => String(v) : (v) => fmtAxis(v, unit), xFrom, xTo, xFmt, this.mode !== 'histogram');
    this.canvas.dataset.yTicks = ticks.y.join('|');
    this.canvas.dataset.xTicks = ticks.x.join('|');
    const f = (v) => fmtCost(Math.round(v * 1000) / 1000, unit);
    clear(this.summary).append(
      `${d.row}: ${d.contexts} contexts${d.to - d.from < d.contexts && this.mode !== 'histogram' ? ` (showing ${d.from}–${d.to})` : ''} · `
      + `mean ${f(s.mean)} · min ${f(s.min)} · max ${f(s.max)} · stddev ${f(s.stddev)} · `
      + `cv ${ratio(s.cv)} · imbalance ${ratio(s.imbalance)} (max/mean) · ${s.nonzero} nonzero`);
    if (d.note) this.summary.append(h('div', { text: d.note }));
  }

  // What is under the pointer: {col, text, threads}
  at(e) {
    const d = this.data;
    if (!d) return null;
    const r = this.canvas.getBoundingClientRect();
    const A = this.area();
    const x = e.clientX - r.left - A.x;
    if (x < 0) return null; // over the value axis
    const unit = d.metric.shown || d.metric.unit;
    if (this.mode === 'histogram') {
      const counts = d.histogram.counts;
      const i = Math.min(counts.length - 1, Math.max(0, Math.floor((x / A.w) * counts.length)));
      const lo = d.histogram.min + i * d.histogram.width, hi = lo + d.histogram.width;
      const ths = d.histogram.threads[i];
      return { col: i, threads: ths, text: `${counts[i]} contexts with ${fmtCost(lo, unit)} – ${fmtCost(hi, unit)}${ths === null ? ' (too many to select)' : ''}` };
    }
    const cols = d.columns;
    if (!cols.length) return null;
    const i = Math.min(cols.length - 1, Math.max(0, Math.floor((x / A.w) * cols.length)));
    const [mn, mx, tmin, tmax, first, n] = cols[i];
    const name = (t) => d.names[t] || `#${t}`;
    const text = n === 1
      ? `${name(tmax)} (#${tmax}): ${fmtCost(mx, unit)}`
      : `${n} contexts (positions ${first}–${first + n - 1}): ${fmtCost(mn, unit)} – ${fmtCost(mx, unit)}; max ${name(tmax)} (#${tmax})`;
    return { col: i, threads: [tmax], text };
  }

  hover(e) {
    const a = this.at(e);
    if (!a) { hideTooltip(); return; }
    showTooltip(e.clientX, e.clientY, a.text);
    moveTooltip(e.clientX, e.clientY);
  }

  click(e) {
    const a = this.at(e);
    if (!a || !a.threads || !a.threads.length) return;
    hideTooltip();
    S.set('thread', a.threads.map((t) => `#${t}`));
    ctx.actions.queryChanged();
  }

  wheel(e) {
    const d = this.data;
    if (!d || this.mode === 'histogram' || !d.contexts) return;
    e.preventDefault();
    const r = this.canvas.getBoundingClientRect();
    const A = this.area();
    const [a, b] = this.win || [0, d.contexts];
    const t = a + (Math.max(0, Math.min(A.w, e.clientX - r.left - A.x)) / A.w) * (b - a);
    const span = Math.max(2, Math.min(d.contexts, Math.round((b - a) * Math.exp(Math.max(-300, Math.min(300, e.deltaY)) * 0.002))));
    if (span >= d.contexts) { this.win = null; this.load(); return; }
    let from = Math.round(t - ((t - a) * span) / (b - a));
    from = Math.max(0, Math.min(d.contexts - span, from));
    this.win = [from, from + span];
    this.load();
  }
}

// A value on an axis: short (3 significant digits, k/M/G), in the unit fmtCost shows.
function fmtAxis(v, unit) {
  const x = unit === 'ns' ? v / 1e6 : unit === 'us' || unit === 'µs' ? v / 1e3 : v;
  const a = Math.abs(x);
  if (a === 0) return '0';
  const [dv, suf] = a >= 1e9 ? [1e9, 'G'] : a >= 1e6 ? [1e6, 'M'] : a >= 1e4 ? [1e3, 'k'] : [1, ''];
  return String(Number((x / dv).toPrecision(3))) + suf;
}

// The two axes of area A of canvas c: y from 0 to yTop (labels by yFmt), x from xFrom to xTo
// (labels by xFmt; positions: integers, each tick under the middle of its column). Returns the
// ticks drawn ({y: [...], x: [...]}) for the tests.
function drawAxes(c, A, yTop, yFmt, xFrom, xTo, xFmt, positions) {
  const bottom = A.y + A.h;
  c.font = '10px system-ui, sans-serif';
  c.strokeStyle = ink('#737373');
  c.fillStyle = ink('#737373');
  c.lineWidth = 1;
  c.beginPath();
  c.moveTo(A.x - 0.5, A.y); c.lineTo(A.x - 0.5, bottom + 0.5); c.lineTo(A.x + A.w, bottom + 0.5);
  c.stroke();
  const ticks = { y: [], x: [] };
  // y: about one tick per 28 px
  const ys = niceStep(yTop, Math.max(2, Math.floor(A.h / 28)));
  c.textAlign = 'right';
  c.textBaseline = 'middle';
  for (let v = 0; v <= yTop * (1 + 1e-9); v += ys) {
    const y = Math.round(bottom - (A.h * v) / yTop) + 0.5;
    c.beginPath(); c.moveTo(A.x - 4, y); c.lineTo(A.x, y); c.stroke();
    const label = yFmt(v);
    c.fillText(label, A.x - 6, y);
    ticks.y.push(label);
  }
  // x: about one tick per 60 px
  const span = xTo - xFrom;
  c.textAlign = 'center';
  c.textBaseline = 'top';
  if (span > 0) {
    let xs = niceStep(span, Math.max(2, Math.floor(A.w / 60)));
    if (positions) xs = Math.max(1, Math.round(xs));
    const mid = positions ? 0.5 : 0;
    for (let v = Math.ceil(xFrom / xs) * xs; positions ? v < xTo : v <= xTo + 1e-9; v += xs) {
      const x = Math.round(A.x + ((v - xFrom + mid) / span) * A.w) + 0.5;
      c.beginPath(); c.moveTo(x, bottom); c.lineTo(x, bottom + 4); c.stroke();
      const label = xFmt(v);
      const tw = c.measureText(label).width / 2;
      c.fillText(label, Math.min(A.x + A.w - tw, Math.max(A.x + tw, x)), bottom + 5);
      ticks.x.push(label);
    }
  }
  c.textAlign = 'start';
  c.textBaseline = 'alphabetic';
  return ticks;
}

// hpcviewer's per-context plots of the selected row (api/contexts, doc/contexts.md): its value
// on each execution context (thread, process, rank) by context index, the same sorted (largest
// first), or their histogram. The server reduces the shown window of contexts to one column
// per pixel (the min and max of the contexts in it), so 10,000 contexts draw as fast as 10:
// light bars reach each column's max, dark ones its min. The wheel zooms around the pointer
// (double-click: all), hover names the context and its value, a click makes that context
// (a histogram bin: its contexts) the thread filter.
import { api, isAbort } from '../api.js';
import { ctx } from '../ctx.js';
import * as S from '../state.js';
import { h, clear, sizeCanvas, fmtCost } from '../util.js';
import { showTooltip, moveTooltip, hideTooltip } from '../ui.js';

const HEIGHT = 120;
const BINS = 30;
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
  show(params) {
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
      this.draw();
    } catch (e) {
      if (gen !== this.gen || isAbort(e)) return;
      this.data = null;
      clear(this.summary).append(h('span', { class: 'pane-error', text: e.message }));
      sizeCanvas(this.canvas, this.width(), 1);
    }
    this.el.dataset.state = 'ready';
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
    if (this.mode === 'histogram') {
      const counts = d.histogram.counts;
      const top = Math.max(1, ...counts);
      const bw = W / counts.length;
      counts.forEach((n, i) => {
        const bh = ((HEIGHT - 4) * n) / top;
        c.fillStyle = '#0a84ff';
        c.fillRect(i * bw + 0.5, HEIGHT - bh, Math.max(1, bw - 1), bh);
      });
      this.canvas.dataset.columns = counts.length;
    } else {
      const cols = d.columns;
      const top = Math.max(1e-12, ...cols.map((k) => k[1]));
      const cw = W / Math.max(1, cols.length);
      cols.forEach((k, i) => {
        const y = (v) => HEIGHT - ((HEIGHT - 4) * Math.max(0, v)) / top;
        c.fillStyle = '#8fc3ff'; // the column's max
        c.fillRect(i * cw, y(k[1]), Math.max(1, cw - (cw > 3 ? 1 : 0)), HEIGHT - y(k[1]));
        c.fillStyle = '#0a84ff'; // its min
        c.fillRect(i * cw, y(k[0]), Math.max(1, cw - (cw > 3 ? 1 : 0)), HEIGHT - y(k[0]));
      });
      this.canvas.dataset.columns = cols.length;
    }
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
    const x = e.clientX - r.left;
    const unit = d.metric.shown || d.metric.unit;
    if (this.mode === 'histogram') {
      const counts = d.histogram.counts;
      const i = Math.min(counts.length - 1, Math.max(0, Math.floor((x / r.width) * counts.length)));
      const lo = d.histogram.min + i * d.histogram.width, hi = lo + d.histogram.width;
      const ths = d.histogram.threads[i];
      return { col: i, threads: ths, text: `${counts[i]} contexts with ${fmtCost(lo, unit)} – ${fmtCost(hi, unit)}${ths === null ? ' (too many to select)' : ''}` };
    }
    const cols = d.columns;
    if (!cols.length) return null;
    const i = Math.min(cols.length - 1, Math.max(0, Math.floor((x / r.width) * cols.length)));
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
    const [a, b] = this.win || [0, d.contexts];
    const t = a + ((e.clientX - r.left) / r.width) * (b - a);
    const span = Math.max(2, Math.min(d.contexts, Math.round((b - a) * Math.exp(Math.max(-300, Math.min(300, e.deltaY)) * 0.002))));
    if (span >= d.contexts) { this.win = null; this.load(); return; }
    let from = Math.round(t - ((t - a) * span) / (b - a));
    from = Math.max(0, Math.min(d.contexts - span, from));
    this.win = [from, from + span];
    this.load();
  }
}

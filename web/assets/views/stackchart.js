// The Stack Chart pane (doc/trace.md, "The stack chart"): one context's samples over time as the
// Firefox Profiler and speedscope draw them, a box per call depth and run of samples that share
// their call path down to it, named. The boxes are the library's (api/trace-boxes, the trace
// view's depth view: pv_trace_boxes); the page only draws them. The context is the query's
// selected thread (its first; a picker offers the query's others), the time window the
// timeline's selection (the query's range) or the whole trace; wheel, drag and keys zoom inside
// it. Hover: the box's call path; click: its call node selected in the top-down tree; the
// query's center and filters apply (a sample that does not pass them has no box).
// A window's boxes come as drawn at the pane's width (api/trace-boxes?width=: pv_trace_chart),
// at most one a pixel column and depth: [GAP, WIDTH, ID, N] per box in a row per depth (its
// columns), the boxes under a pixel merged (N of them; ID -1 when their functions differ). A step
// costs what the pane's width holds, not what the window's samples do. Each function's name
// comes once a session (known=LOG:N: the names after the N the page holds of the server's log;
// a long C++ name is not sent again at every step). Hover asks the hovered box's exact times
// (box-depth=&box-x=: its start, end and, for boxes merged under a pixel, their count and span).
// URL: sw=T0:T1 (ms, the window when zoomed), sc=C (the context when not the first).
import { api, isAbort } from '../api.js';
import { ctx } from '../ctx.js';
import * as S from '../state.js';
import { h, clear, traceColor, traceAssign, textOn, ink, isDark, textWidth, sizeCanvas, niceStep, fmtMs, fmtTime, zoomAround } from '../util.js';
import { paneFailed, paneOk, showTooltip, moveTooltip, hideTooltip } from '../ui.js';

const AXIS_H = 20;
const RH = 17; // a depth's row
const MIN_SPAN_MS = 1e-4; // 100 ns
const SEVERAL = '#a9a9b3'; // a box of several functions, each under a pixel
const NB = 4; // numbers a box in a row: X0, X1, ID, N (the answer's GAP, WIDTH made columns)
const ns = (ms) => Math.round(ms * 1e6);
// ns as exact ms: every digit the server sent ("1,234.000125 ms")
const exactMs = (n) => {
  const a = Math.abs(n), f = a % 1e6;
  return (n < 0 ? '-' : '') + Math.floor(a / 1e6).toLocaleString('en-US') + (f ? '.' + String(f).padStart(6, '0').replace(/0+$/, '') : '') + ' ms';
};
const clamp = (v, a, b) => Math.max(a, Math.min(b, v));
// '#rrggbb' as the canvas's RGBA pixel word (little-endian: A B G R)
const rgbaOf = new Map();
const rgba = (hex) => {
  let v = rgbaOf.get(hex);
  if (v === undefined) {
    const n = parseInt(hex.length === 4 ? hex.slice(1).replace(/./g, '$&$&') : hex.slice(1), 16);
    v = (0xff000000 | ((n & 0xff) << 16) | (n & 0xff00) | ((n >> 16) & 0xff)) >>> 0;
    rgbaOf.set(hex, v);
  }
  return v;
};

// A name cut to width px: its whole width measured once (util.js's cache), the cut from its
// mean character width (a step labels a thousand boxes: measuring prefixes cost ~10 ms a step).
function fitName(c, text, width) {
  if (width < 8) return '';
  const full = textWidth(c, text);
  if (full <= width) return text;
  const n = Math.floor((width / full) * text.length) - 1;
  return n > 0 ? text.slice(0, n) + '…' : '';
}

export class StackChartPane {
  constructor() {
    this.el = h('div', { class: 'pane stack-chart-pane' });
    this.full = null; // {t0, t1 (ms), contexts, labels}
    this.win = null; // [t0, t1] ms
    this.c = 0;
    this.data = null; // the last boxes answer drawn: {d, win, c, width, names}
    this.names = null; // the names the server sent: {p, log, known, map: id -> name}
    this.gen = 0;
    this.lastKey = null;
    this.picker = h('select', { class: 'sc-context', title: 'The context (thread) drawn: the query\'s threads' });
    this.picker.addEventListener('change', () => this.setContext(+this.picker.value));
    this.info = h('span', { class: 'flame-info' });
    const btn = (text, title, fn) => h('button', { class: 'small', text, title, onclick: fn });
    this.el.append(h('div', { class: 'pane-toolbar' },
      h('label', { class: 'ctl', text: 'Context ' }, this.picker),
      btn('Whole range', 'Show the timeline\'s selection, or the whole profile (0)', () => this.setWin(this.baseWin())),
      h('span', { class: 'spacer' }), this.info,
      h('span', { class: 'dim', text: 'wheel: zoom · drag: zoom to it · shift+drag: pan · click: select in the tree' })));
    this.axis = h('canvas', { class: 'sc-axis' });
    this.canvas = h('canvas', { class: 'sc-canvas' });
    this.wrap = h('div', { class: 'sc-wrap', tabindex: '0' }, this.canvas);
    this.body = h('div', { class: 'sc-col' }, this.axis, this.wrap);
    this.el.append(this.body);
    this.canvas.addEventListener('mousemove', (e) => this.onHover(e));
    this.canvas.addEventListener('mouseleave', () => { this.hover = null; this.mouse = null; hideTooltip(); this.draw(); });
    this.canvas.addEventListener('mousedown', (e) => this.onDown(e));
    window.addEventListener('mousemove', (e) => this.onDrag(e));
    window.addEventListener('mouseup', (e) => this.onUp(e));
    this.canvas.addEventListener('wheel', (e) => this.onWheel(e), { passive: false });
    this.wrap.addEventListener('keydown', (e) => this.onKey(e));
    new ResizeObserver(() => {
      if (!this.wrap.clientWidth || !this.data) return;
      if (Math.abs(this.wrap.clientWidth - this.data.width) > 8) this.fetch();
      else this.draw();
    }).observe(this.wrap);
  }

  focus() { this.wrap.focus({ preventScroll: true }); }

  // the query as the trace endpoints take it: no tree depth (depth= is the call depth there), no
  // range (the window is the time range)
  params() { return S.queryParams(null).filter(([k]) => k !== 'depth' && k !== 'range'); }

  // the timeline's selection (the query's range), else the whole trace
  baseWin() {
    const r = S.range();
    if (!r) return [this.full.t0, this.full.t1];
    return [clamp(r[0], this.full.t0, this.full.t1), clamp(r[1], this.full.t0, this.full.t1)];
  }

  clampWin(w) {
    const [b0, b1] = this.baseWin();
    const span = clamp(w[1] - w[0], MIN_SPAN_MS, b1 - b0 || MIN_SPAN_MS);
    if (span === w[1] - w[0] && w[0] >= b0 && w[1] <= b1) return [w[0], w[1]]; // as asked, exactly
    const t0 = clamp(w[0], b0, Math.max(b0, b1 - span));
    return t0 + span >= b1 ? [Math.max(b0, b1 - span), b1] : [t0, t0 + span];
  }

  writeState() {
    clearTimeout(this.stateTimer);
    const ps = S.state.pane;
    const b = this.baseWin();
    ps.sw = this.win[0] === b[0] && this.win[1] === b[1] ? null : S.fmtRange(this.win);
    ps.sc = this.c ? String(this.c) : null;
    S.commit('pane', false);
  }

  async update(force) {
    const key = JSON.stringify(this.params()) + '|' + (S.get1('range') || '');
    if (!force && key === this.lastKey && this.full) { this.draw(); return; }
    const first = this.lastKey === null;
    this.lastKey = key;
    this.el.dataset.state = 'busy';
    try {
      // the trace's range and the query's contexts with their names (one pixel column)
      // records=1: each context's records (its samples), to open on the busiest
      const d = await api('trace', [...this.params(), ['width', 1], ['height', 1024], ['records', 1]]);
      if (!d.contexts || !(d.t1 > d.t0)) {
        this.full = null;
        paneFailed(this, this.body, 'This profile has no sample times: no stack chart.');
        return;
      }
      paneOk(this, this.body);
      this.full = { t0: d.t0, t1: d.t1, contexts: d.contexts, labels: d.labels, maxDepth: d.max_depth || 0, records: d.records || [] };
    } catch (e) {
      if (!isAbort(e)) paneFailed(this, this.body, e.message);
      return;
    }
    const ps = S.state.pane;
    // the URL's window and context on a first display; a new query (a new selection) starts
    // from its range
    const sw = first ? S.parseRange(ps.sw) : null;
    const sc = first && /^\d+$/.test(ps.sc || '') ? +ps.sc : first ? this.busiest() : this.c;
    this.c = sc < this.full.contexts ? sc : 0;
    this.win = this.clampWin(sw || this.baseWin());
    this.fillPicker();
    this.writeState();
    await this.fetch();
  }

  // The context with the most records (samples), the first of equals: the one a profile of
  // several threads opens on (the Firefox Profiler's habit), not an idle context 0.
  busiest() {
    const r = this.full.records;
    let best = 0;
    for (let c = 1; c < r.length; c++) if (r[c] > r[best]) best = c;
    return best;
  }

  fillPicker() {
    const sel = clear(this.picker);
    const labels = this.full.labels || [];
    const seen = new Set();
    for (const [c, name] of labels) {
      if (seen.has(c)) continue;
      seen.add(c);
      sel.append(h('option', { value: String(c), text: `${c}: ${name}` }));
    }
    if (!seen.has(this.c)) sel.append(h('option', { value: String(this.c), text: `${this.c}` }));
    sel.value = String(this.c);
  }

  setContext(c) {
    this.c = c;
    this.selBox = null;
    this.writeState();
    this.fetch();
  }

  setWin(w) {
    const next = this.clampWin(w);
    if (this.win && next[0] === this.win[0] && next[1] === this.win[1]) return;
    this.stepStart = performance.now();
    this.win = next;
    // the tooltip told of a box of the last window: hidden until the new one is drawn
    this.hover = null;
    clearTimeout(this.exactTimer);
    hideTooltip();
    // the URL once the steps pause (history.replaceState costs ~20 ms a call)
    clearTimeout(this.stateTimer);
    this.stateTimer = setTimeout(() => this.writeState(), 300);
    this.preview(); // the last paint stretched to the new window at once
    this.fetch();
  }

  // The boxes of the window: the newest request wins (older ones are aborted). The pane's
  // data-state is "busy" until its answer is drawn.
  async fetch(again) {
    if (!this.full) return;
    const gen = ++this.gen;
    if (this.ctrl) this.ctrl.abort();
    const ac = (this.ctrl = new AbortController());
    this.el.dataset.state = 'busy';
    const width = Math.max(1, this.wrap.clientWidth || 800);
    const w = this.win.slice();
    const t0 = this.stepStart || performance.now();
    this.stepStart = 0;
    const p = S.state.p;
    if (!this.names || this.names.p !== p) this.names = { p, log: 0, known: 0, map: new Map() };
    const nm = this.names;
    const q = [...this.params(), ['context', this.c], ['t0', ns(w[0])], ['t1', ns(w[1])], ['width', width]];
    try {
      const d = await api('trace-boxes', [...q, ['known', `${nm.log}:${nm.known}`]], { signal: ac.signal });
      if (gen !== this.gen) return;
      const tAnswer = performance.now();
      // the names the page lacked (all of them when the server's log is another one)
      if (nm !== this.names) return;
      if (d.known[0] !== nm.log) nm.map.clear();
      for (const [id, name] of d.functions) nm.map.set(id, name);
      nm.log = d.known[0];
      nm.known = d.known[1];
      let lacks = false;
      // the rows as columns [X0, X1, ID, N, ...]; the palette's slots: the functions widest
      // in the window first
      const tot = new Map();
      d.rows = d.rows.map((r) => {
        const o = new Int32Array(r.length);
        for (let i = 0, x = 0; i < r.length; i += NB) {
          o[i] = x += r[i];
          o[i + 1] = x += r[i + 1];
          o[i + 2] = r[i + 2];
          o[i + 3] = r[i + 3];
          if (r[i + 2] >= 0) tot.set(r[i + 2], (tot.get(r[i + 2]) || 0) + r[i + 1]);
        }
        return o;
      });
      for (const id of tot.keys()) if (!nm.map.has(id)) lacks = true;
      if (lacks && !again) {
        // a name the page should hold but does not (another server answered): all of them
        this.names = null;
        this.stepStart = t0;
        return this.fetch(true);
      }
      traceAssign(p, [...tot.keys()].sort((a, b) => tot.get(b) - tot.get(a) || a - b));
      // each function's colour once an answer, not once a box or a draw
      const colors = new Map([[-1, SEVERAL]]);
      for (const id of tot.keys()) colors.set(id, traceColor(p, id));
      this.data = { d, win: w, c: this.c, width, names: nm.map, colors, q, exact: new Map() };
      const tBuilt = performance.now();
      // the box under a pointer that stayed on the chart: its tooltip told again
      this.hover = this.mouse ? this.boxAt(this.mouse) : null;
      this.draw();
      if (this.mouse) this.tip(this.hover, this.mouse);
      // a zoom step's time: from the window change to its boxes drawn (bench/stackchart.mjs),
      // and its parts: the answer (request and JSON parse), the boxes built, the canvas
      const tDrawn = performance.now();
      this.lastStep = tDrawn - t0;
      this.lastParts = { answer: tAnswer - t0, build: tBuilt - tAnswer, draw: tDrawn - tBuilt };
      this.steps = (this.steps || 0) + 1;
      requestAnimationFrame(() => { if (gen === this.gen) this.el.dataset.state = 'ready'; });
    } catch (e) {
      if (gen !== this.gen || isAbort(e)) return;
      paneFailed(this, this.body, e.message);
      this.el.dataset.state = 'ready';
    }
  }

  // While a step's boxes are on their way: the last paint on screen, moved and stretched to
  // the new window by a CSS transform (no redraw: the browser scales the bitmap), and the axis.
  preview() {
    const W = this.wrap.clientWidth, dw = this.drawnWin;
    if (!W || !dw || !(this.win[1] > this.win[0])) { this.draw(); return; }
    const k = (dw[1] - dw[0]) / (this.win[1] - this.win[0]);
    const tx = ((dw[0] - this.win[0]) / (this.win[1] - this.win[0])) * W;
    this.canvas.style.transformOrigin = '0 0';
    this.canvas.style.transform = `translateX(${tx}px) scaleX(${k})`;
    this.drawAxis(W);
  }

  xOf(t, W) { return ((t - this.win[0]) / (this.win[1] - this.win[0])) * W; }
  tOf(x, W) { return this.win[0] + (x / W) * (this.win[1] - this.win[0]); }

  draw() {
    if (!this.full || !this.win) return;
    const W = this.wrap.clientWidth;
    if (!W) return;
    this.drawAxis(W);
    const data = this.data;
    const rows = data ? data.d.rows : [];
    const nboxes = data ? data.d.boxes : 0;
    // the trace's deepest depth, not the window's: the canvas keeps its size across steps
    const depths = Math.max(this.full.maxDepth, rows.length);
    const H = Math.max(this.wrap.clientHeight - 2, depths * RH + 4);
    const c = sizeCanvas(this.canvas, W, H);
    this.canvas.style.transform = '';
    this.drawnWin = this.win.slice();
    c.font = '11px system-ui, sans-serif';
    c.textBaseline = 'middle';
    const named = this.paintBoxes(c, rows, W);
    for (const n of named) {
      if (c.fillStyle !== n.ink) c.fillStyle = n.ink;
      c.fillText(fitName(c, n.name, n.x1 - n.x0 - 6), n.x0 + 3, n.y + RH / 2);
    }
    const hv = this.hover;
    if (hv && data && hv.d === data.d) {
      const m = this.colMap(W);
      const x0 = Math.max(0, m.off + hv.x0 * m.k), x1 = Math.min(W, m.off + hv.x1 * m.k);
      c.strokeStyle = ink('#0c0c0d');
      c.strokeRect(x0 + 0.5, hv.depth * RH + 2.5, Math.max(0.5, x1 - x0 - 1.5), RH - 2);
    }
    const dr = this.drag;
    if (dr && dr.moved && dr.mode === 'zoom') {
      c.fillStyle = 'rgba(10,132,255,0.18)';
      c.fillRect(Math.min(dr.x0, dr.x1), 0, Math.abs(dr.x1 - dr.x0), H);
    }
    if (data && !nboxes) {
      c.fillStyle = ink('#737373');
      c.fillText('No sample of this context in the window passes the query.', 8, 12);
    }
    this.canvas.dataset.window = `${S.fmtRange(this.win)}|${this.c}`;
    const th = data ? data.d.thread : '';
    this.info.textContent = `${th} · ${fmtTime(this.win[0] - ctx.profile.start)} – ${fmtTime(this.win[1] - ctx.profile.start)} (${fmtMs(this.win[1] - this.win[0])}) · ${nboxes.toLocaleString('en-US')} boxes`;
  }

  // The answer's pixel columns on the canvas (CSS px): column X at off + X k. The answer's
  // window may differ from the pane's (a drag pans before the next answer).
  colMap(W) {
    const { win, width } = this.data, span = this.win[1] - this.win[0];
    return { off: ((win[0] - this.win[0]) / span) * W, k: ((win[1] - win[0]) / width / span) * W };
  }

  // The boxes as pixels (a zoom step draws thousands of boxes: a canvas path or a fillRect
  // each costs tens of ms, the pixels a few): the background, then each box's first pixel row
  // in its colour (a 1-pixel gap on its right when it is 3 pixels wide or more), then each
  // depth's row copied down its band. Returns the boxes wide enough for a name.
  paintBoxes(c, rows, W) {
    const cw = this.canvas.width, ch = this.canvas.height, dpr = cw / W;
    if (!this.img || this.img.width !== cw || this.img.height !== ch) this.img = c.createImageData(cw, ch);
    const px = new Uint32Array(this.img.data.buffer);
    px.fill(rgba(ink('#fff')));
    if (!rows.length) { c.putImageData(this.img, 0, 0); return []; }
    const named = [], names = this.data.names, colors = this.data.colors;
    const words = new Map(); // colour -> pixel word, this draw's (the theme may have changed)
    const word = (col) => { let v = words.get(col); if (v === undefined) words.set(col, (v = rgba(col))); return v; };
    const { off, k } = this.colMap(W);
    const top = (d) => Math.round((d * RH + 2) * dpr), bottom = (d) => Math.min(ch, Math.round((d * RH + 1 + RH) * dpr));
    const sb = this.selBox, sx = sb ? this.colOf(sb.t) : -1;
    for (let d = 0; d < rows.length; d++) {
      const r = rows[d], y0 = top(d);
      if (y0 >= ch) break;
      const base = y0 * cw;
      for (let i = 0; i < r.length; i += NB) {
        let x0 = off + r[i] * k, x1 = off + r[i + 1] * k;
        if (x1 < 0 || x0 > W) continue;
        x0 = Math.max(0, x0);
        x1 = Math.min(W, x1);
        const id = r[i + 2];
        const sel = sb && sb.depth === d && r[i] <= sx && sx < r[i + 1];
        const col = sel ? '#0a84ff' : colors.get(id) || SEVERAL;
        const a = Math.min(cw - 1, Math.floor(x0 * dpr));
        let e = Math.min(cw, Math.round(x1 * dpr));
        if (e - a >= 3) e--;
        px.fill(word(col), base + a, base + Math.max(a + 1, e));
        if (x1 - x0 > 20 && id >= 0) named.push({ name: names.get(id), x0, x1, y: d * RH + 2, ink: sel ? '#fff' : textOn(col) });
      }
      const y1 = bottom(d);
      for (let y = y0 + 1; y < y1; y++) px.copyWithin(y * cw, base, base + cw);
    }
    c.putImageData(this.img, 0, 0);
    return named;
  }

  drawAxis(W) {
    const c = sizeCanvas(this.axis, W, AXIS_H);
    c.fillStyle = ink('#f9f9fa');
    c.fillRect(0, 0, W, AXIS_H);
    const z = ctx.profile.start;
    const span = this.win[1] - this.win[0];
    const step = niceStep(span, Math.max(2, W / 110));
    c.font = '10px system-ui, sans-serif';
    c.fillStyle = isDark() ? '#b1b1b8' : '#4a4a4f';
    c.strokeStyle = isDark() ? '#55545e' : '#c8c8cf';
    c.textBaseline = 'middle';
    for (let t = Math.ceil((this.win[0] - z) / step) * step; t + z <= this.win[1]; t += step) {
      const x = Math.round(this.xOf(t + z, W)) + 0.5;
      c.beginPath(); c.moveTo(x, AXIS_H - 6); c.lineTo(x, AXIS_H); c.stroke();
      c.fillText(fmtTime(t), x + 3, AXIS_H / 2);
    }
  }

  // The box of depth d at column X of the answer: {d, depth, x0, x1, id, n, start, end, name}
  // (a binary search: a row's boxes are in column order), or null.
  boxIn(d, X) {
    const r = this.data && this.data.d.rows[d];
    if (!r) return null;
    let lo = 0, hi = r.length / NB - 1;
    while (lo <= hi) {
      const m = (lo + hi) >> 1, i = m * NB;
      if (r[i + 1] <= X) lo = m + 1;
      else if (r[i] > X) hi = m - 1;
      else {
        const id = r[i + 2];
        return { d: this.data.d, depth: d, x0: r[i], x1: r[i + 1], id, n: r[i + 3], start: this.tOfCol(r[i]), end: this.tOfCol(r[i + 1]),
          name: id < 0 ? `several functions, each under a pixel` : this.data.names.get(id) };
      }
    }
    return null;
  }

  // The answer's column of time t, and the time at column X's left edge.
  colOf(t) { const { win, width } = this.data; return Math.floor(((t - win[0]) / (win[1] - win[0])) * width); }
  tOfCol(X) { const { win, width } = this.data; return win[0] + (X / width) * (win[1] - win[0]); }

  boxAt(e) {
    if (!this.data) return null;
    const r = this.canvas.getBoundingClientRect();
    const x = e.clientX - r.left, y = e.clientY - r.top;
    const { off, k } = this.colMap(r.width);
    return this.boxIn(Math.floor((y - 2) / RH), Math.floor((x - off) / k));
  }

  // A box's call path: the boxes above it at its first column, root first.
  callPath(b) {
    const path = [];
    for (let d = 0; d < b.depth; d++) {
      const a = this.boxIn(d, b.x0);
      if (a) path.push(a);
    }
    path.push(b);
    return path;
  }

  onHover(e) {
    if (this.drag) return;
    this.mouse = { clientX: e.clientX, clientY: e.clientY };
    const b = this.boxAt(e);
    const same = (x, y) => x === y || (x && y && x.d === y.d && x.depth === y.depth && x.x0 === y.x0);
    if (!same(b, this.hover)) { this.hover = b; this.draw(); }
    this.tip(b, e);
  }

  // The tooltip of box b at the pointer (hidden when there is no box): its call path, and its
  // exact times once the server told them (exact()).
  tip(b, e) {
    if (!b) { hideTooltip(); return; }
    const x = this.exact(b);
    let title = b.name, times;
    if (x) {
      const z = ns(ctx.profile.start), s0 = ns(x.start), s1 = ns(x.end);
      const w0 = ns(this.data.win[0]), w1 = ns(this.data.win[1]);
      const cut = s0 <= w0 || s1 >= w1 ? ' (cut at the window\'s edge)' : '';
      const span = `${exactMs(s0 - z)} to ${exactMs(s1 - z)}`;
      title = `${exactMs(s1 - s0)} ${b.name}`;
      times = h('div', { class: 'dim sc-times', 'data-start': String(x.start), 'data-end': String(x.end), 'data-n': String(x.n),
        text: x.n > 1 ? `depth ${b.depth} · ${x.n.toLocaleString('en-US')} boxes, each under a pixel, from ${span}${cut}: zoom in to see them`
          : `depth ${b.depth} · ${span}${cut}` });
    } else {
      times = h('div', { class: 'dim sc-times', text: `depth ${b.depth} · ${b.n > 1 ? `${b.n.toLocaleString('en-US')} boxes, each under a pixel · ` : ''}…` });
    }
    const el = h('div', { class: 'sc-tip' },
      h('div', { class: 'tt-title', text: title }), times,
      h('div', { class: 'stack', text: this.callPath(b).map((y) => y.name).reverse().join('\n') }),
      h('div', { class: 'dim', text: 'click: select this call node in the top-down tree' }));
    showTooltip(e.clientX, e.clientY, el);
    moveTooltip(e.clientX, e.clientY);
  }

  // Box b's exact times from the server (its start and end; for boxes merged under a pixel,
  // their count and span), asked once a box of an answer: null until they come, then the
  // tooltip is told again if b is still hovered.
  // The request waits until the pointer rests 120 ms on the box (a zoom step or a move across
  // boxes cancels it: the server computes the window's chart again for it).
  exact(b) {
    const data = this.data, key = `${b.depth}:${b.x0}`;
    if (data.exact.has(key)) return data.exact.get(key);
    clearTimeout(this.exactTimer);
    this.exactTimer = setTimeout(() => {
      if (this.data !== data || data.exact.has(key)) return;
      data.exact.set(key, null);
      api('trace-boxes', [...data.q, ['box-depth', b.depth], ['box-x', b.x0]]).then((r) => {
        data.exact.set(key, r.box);
        const hv = this.hover;
        if (this.data === data && hv && hv.depth === b.depth && hv.x0 === b.x0 && this.mouse) this.tip(hv, this.mouse);
      }).catch(() => data.exact.delete(key));
    }, 120);
    return null;
  }

  // A click on a box: its call node selected in the top-down tree. The node's key is its code
  // frames' functions from the root (with a center: the frames after the last one it names),
  // from the stack at the box's start (api/trace-stack, the library's frames and scopes).
  async selectBox(b) {
    // the middle of its first column: a time the box holds (the column is drawn as the box
    // holding its middle)
    const t = this.tOfCol(b.x0 + 0.5);
    this.selBox = { depth: b.depth, t };
    this.draw();
    const st = await api('trace-stack', [...this.params(), ['context', this.data.c], ['at', ns(t)]]);
    const frames = st.frames.filter((f) => f.depth !== null && f.depth <= b.depth);
    let key;
    const cs = S.centers();
    if (cs.length) {
      let last = -1;
      frames.forEach((f, i) => { if (cs.includes(f.scope) || cs.includes(f.function)) last = i; });
      if (last < 0) return;
      key = ['c', ...frames.slice(last + 1).map((f) => 'f' + f.id)].join('/');
    } else {
      if ((S.get1('by') || 'function') !== 'function') return;
      key = frames.map((f) => 'f' + f.id).join('/');
    }
    this.selectedKey = key;
    ctx.actions.reveal([key]);
  }

  local(e) {
    const r = this.canvas.getBoundingClientRect();
    return { x: clamp(e.clientX - r.left, 0, r.width), W: r.width };
  }

  onDown(e) {
    if (e.button !== 0 || !this.win) return;
    e.preventDefault();
    this.focus();
    const p = this.local(e);
    this.drag = { mode: e.shiftKey ? 'pan' : 'zoom', x0: p.x, x1: p.x, W: p.W, win: this.win.slice(), moved: false, e };
  }

  onDrag(e) {
    const dr = this.drag;
    if (!dr) return;
    dr.x1 = this.local(e).x;
    if (Math.abs(dr.x1 - dr.x0) > 3) dr.moved = true;
    if (!dr.moved) return;
    if (dr.mode === 'pan') {
      const dt = ((dr.x1 - dr.x0) / dr.W) * (dr.win[1] - dr.win[0]);
      this.win = this.clampWin([dr.win[0] - dt, dr.win[1] - dt]);
    }
    this.draw();
  }

  onUp() {
    const dr = this.drag;
    if (!dr) return;
    this.drag = null;
    if (!dr.moved) {
      const b = this.boxAt(dr.e);
      if (b) this.selectBox(b).catch(() => {});
      return;
    }
    if (dr.mode === 'pan') {
      const w = this.win;
      this.win = dr.win;
      this.setWin(w);
      return;
    }
    const xa = Math.min(dr.x0, dr.x1), xb = Math.max(dr.x0, dr.x1);
    this.setWin([this.tOf(xa, dr.W), this.tOf(xb, dr.W)]);
  }

  zoom(t, deltaY) {
    const b = this.baseWin();
    this.setWin(zoomAround(this.win, b, t, deltaY) || b);
  }

  onWheel(e) {
    if (!this.win) return;
    e.preventDefault();
    const p = this.local(e);
    if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      const dt = (e.deltaX / p.W) * (this.win[1] - this.win[0]);
      this.setWin([this.win[0] + dt, this.win[1] + dt]);
    } else this.zoom(this.tOf(p.x, p.W), e.deltaY);
  }

  onKey(e) {
    if (!this.win || e.altKey || e.ctrlKey || e.metaKey) return;
    const w = this.win, span = w[1] - w[0], mid = (w[0] + w[1]) / 2;
    const k = e.key;
    if (k === 'ArrowLeft') this.setWin([w[0] - span / 4, w[1] - span / 4]);
    else if (k === 'ArrowRight') this.setWin([w[0] + span / 4, w[1] + span / 4]);
    else if (k === '+' || k === '=') this.zoom(mid, -200);
    else if (k === '-' || k === '_') this.zoom(mid, 200);
    else if (k === '0' || k === 'Home') this.setWin(this.baseWin());
    else return;
    e.preventDefault();
    e.stopPropagation();
  }
}

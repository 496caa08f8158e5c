// The trace pane (doc/trace.md): execution contexts x time, each pixel the colour of the function
// at the chosen call depth (api/trace: the server finds every pixel's record; the browser never
// gets the records). Above it a mini map of the whole trace (its window framed), the time axis
// and the summary strip (per column, the share of each function over the shown contexts); below
// it the depth view of the crosshair's context (api/trace-boxes, the Firefox Profiler's stack
// chart); at the right the call stack at the crosshair (api/trace-stack: choosing a frame sets
// the depth) and the statistics of the visible region.
//
// Click: crosshair. Drag: zoom to the rectangle. Shift+drag: pan. Wheel: zoom in time around
// the pointer (shift+wheel: in contexts). Keys: arrows pan, +/- zoom time, shift+up/down zoom
// contexts, [ and ] the depth, z/ctrl+z undo, shift+z/ctrl+y redo, 0 the whole trace. Window,
// contexts, depth and crosshair are in the URL (tw, tc, td, tx); undo/redo walk window changes.
import { api, isAbort } from '../api.js';
import { ctx } from '../ctx.js';
import * as S from '../state.js';
import { h, clear, traceColor, traceAssign, traceAssignBoxes, traceBlank, textOn, ink, isDark, fitText, sizeCanvas, niceStep, fmtMs, fmtTime, copyText, zoomAround } from '../util.js';
import { paneFailed, paneOk, showTooltip, moveTooltip, hideTooltip, showMenu } from '../ui.js';

const MINI_H = 34;
const AXIS_H = 18;
const SUM_H = 28;
const RH = 16; // a depth-view row
const MIN_SPAN_MS = 1e-4; // 100 ns
const GROUP_MS = 400; // wheel and key steps closer than this are one undo step

// A function's colour (util.js's traceColor: distinct hues, one per function for the page's
// life) as [r, g, b]; blank pixels (not running, "no activity", left out by the query) are the
// background's. Each answer's functions get theirs, most pixels first (traceAssign).
const hexRgb = (hex) => { const v = parseInt(hex.slice(1), 16); return [(v >> 16) & 255, (v >> 8) & 255, v & 255]; };
const colorOf = (id) => traceColor(S.state.p, id);
// why a record is blank (api/trace-stack's state: the library's one rule, as `trace --at` says)
const BLANK_WHY = { 'not running': 'not running', 'no activity': 'no activity (idle)', 'left out': 'left out by the query' };
const rgbOf = (id) => hexRgb(colorOf(id));
const assign = (d) => traceAssign(S.state.p, (d.shares || []).map((x) => x.id));
const blankRgb = () => hexRgb(traceBlank());
const cssOf = (rgb) => `rgb(${rgb[0]},${rgb[1]},${rgb[2]})`;

const ns = (ms) => Math.round(ms * 1e6);
const clamp = (v, a, b) => Math.max(a, Math.min(b, v));

// A window response's rows ([id, count, ...] runs) as one Int32Array of width x height ids.
function unrun(d) {
  const ids = new Int32Array(d.width * d.height);
  d.rows.forEach((row, y) => {
    let x = y * d.width;
    for (let i = 0; i < row.length; i += 2) ids.fill(row[i], x, (x += row[i + 1]));
  });
  return ids;
}

export class TracePane {
  constructor() {
    this.el = h('div', { class: 'pane trace-pane' });
    this.funcs = new Map(); // id -> {name, scope}: ids are the profile's, stable
    this.full = null; // {t0, t1, contexts, maxDepth} of the whole trace (the query's contexts)
    this.win = null; // {t0, t1 (ms), c0, c1}
    this.depth = 0;
    this.cross = null; // {c, t (ms)}
    this.undoStack = [];
    this.redoStack = [];
    this.last = { kind: null, at: 0 };
    this.gens = { mini: 0, window: 0, boxes: 0, stack: 0 };
    this.pending = new Set();
    this.ctrl = {};
    this.lastKey = null;

    const btn = (text, title, fn) => h('button', { class: 'small', text, title, onclick: fn });
    this.depthLabel = h('span', { class: 'trace-depth' });
    // the call depth the image is coloured at, and the deepest there is: a slider
    this.depthSlider = h('input', { type: 'range', class: 'trace-depth-slider', min: '0', max: '0', value: '0', title: 'The call depth the trace is coloured at ([ and ])' });
    this.depthSlider.addEventListener('input', () => this.setDepth(+this.depthSlider.value));
    // the contexts shown: a name pattern (text: the names holding it; re:REGEX), as
    // hpctraceviewer's filter of ranks and threads; the pane's own (URL tk), the query keeps its threads
    this.cfilter = '';
    this.filterBox = h('input', { type: 'search', class: 'trace-filter', placeholder: 'Filter contexts', title: 'Show the contexts whose name holds this text (re:REGEX for a regular expression); empty: every context of the query', 'aria-label': 'Filter contexts' });
    this.filterBox.addEventListener('change', () => this.setFilter(this.filterBox.value.trim()));
    this.undoBtn = btn('↶ Undo', 'Undo the last window change (z, ctrl+z)', () => this.undo());
    this.redoBtn = btn('↷ Redo', 'Redo (shift+z, ctrl+y)', () => this.redo());
    this.info = h('span', { class: 'flame-info' });
    this.el.append(h('div', { class: 'pane-toolbar' },
      btn('−', 'Shallower call depth ([)', () => this.setDepth(this.depth - 1)), this.depthSlider,
      btn('+', 'Deeper call depth (])', () => this.setDepth(this.depth + 1)), this.depthLabel, this.filterBox,
      this.undoBtn, this.redoBtn,
      btn('Whole trace', 'Show every context over the whole time (0)', () => this.setWindow(this.fullWindow(), 'reset')),
      h('span', { class: 'spacer' }), this.info,
      h('span', { class: 'dim', text: 'drag: zoom · shift+drag: pan · wheel: zoom (shift: contexts)', title: 'Keys: arrows pan, +/- zoom time, shift+up/down zoom contexts, [ ] depth, z undo, shift+z redo, 0 whole trace' })));

    this.mini = h('canvas', { class: 'trace-mini' });
    this.axis = h('canvas', { class: 'trace-axis' });
    this.sum = h('canvas', { class: 'trace-sum' });
    this.main = h('canvas', { class: 'trace-main' });
    this.mainWrap = h('div', { class: 'trace-main-wrap', tabindex: '0' }, this.main);
    this.legend = h('div', { class: 'trace-legend' });
    this.boxCanvas = h('canvas', { class: 'trace-boxes' });
    this.boxTitle = h('div', { class: 'trace-box-title' });
    this.boxWrap = h('div', { class: 'trace-box-wrap' }, this.boxCanvas);
    this.stackEl = h('div', { class: 'trace-stack' });
    this.statsEl = h('div', { class: 'trace-stats' });
    this.body = h('div', { class: 'split' },
      h('div', { class: 'trace-col' }, this.mini, this.axis, this.sum, this.mainWrap, this.legend, this.boxTitle, this.boxWrap),
      h('div', { class: 'sidebar trace-side' },
        h('h4', { text: 'Call stack at the crosshair' }), this.stackEl,
        h('h4', { text: 'Visible region' }), this.statsEl));
    this.el.append(this.body);

    this.main.addEventListener('mousedown', (e) => this.onDown(e));
    this.main.addEventListener('mousemove', (e) => this.onHover(e));
    this.main.addEventListener('mouseleave', () => hideTooltip());
    this.main.addEventListener('wheel', (e) => this.onWheel(e), { passive: false });
    window.addEventListener('mousemove', (e) => this.onDrag(e));
    window.addEventListener('mouseup', (e) => this.onUp(e));
    this.mainWrap.addEventListener('keydown', (e) => this.onKey(e));
    this.mini.addEventListener('mousedown', (e) => this.onMiniDown(e));
    this.boxCanvas.addEventListener('mousemove', (e) => this.onBoxHover(e));
    this.boxCanvas.addEventListener('mouseleave', () => { this.hoverBox = null; hideTooltip(); this.drawBoxes(); });
    this.boxCanvas.addEventListener('click', (e) => this.onBoxClick(e));
    this.boxCanvas.addEventListener('dblclick', (e) => this.onBoxDouble(e));
    this.boxCanvas.addEventListener('contextmenu', (e) => {
      const b = this.boxAt(e);
      if (b) { e.preventDefault(); this.funcMenu(e, b.id, b.name); }
    });
    new ResizeObserver(() => {
      const w = this.mainWrap.clientWidth, hh = this.mainWrap.clientHeight;
      if (!w) return; // hidden
      const wd = this.winData;
      if (wd && this.pending.size === 0 && (Math.abs(w - wd.css[0]) > 8 || Math.abs(hh - wd.css[1]) > 8)) {
        this.refresh({ mini: true, window: true, boxes: true });
      } else this.drawAll();
    }).observe(this.mainWrap);
  }

  focus() { this.mainWrap.focus({ preventScroll: true }); }

  // the theme changed: the images again in its background
  draw() {
    if (this.winData) { this.paintImage(); this.drawStats(); }
    this.miniImage = null;
    this.drawAll();
  }

  setFilter(text) {
    if (text === this.cfilter) return;
    this.cfilter = text;
    this.filterBox.value = text;
    S.state.pane.tk = text || null;
    S.state.pane.tw = S.state.pane.tc = S.state.pane.tx = null;
    this.undoStack = [];
    this.redoStack = [];
    S.commit('pane', false);
    this.update(true);
  }

  // ---- state: the URL's tw, tc, td, tx ----

  readState() {
    const ps = S.state.pane;
    const tw = S.parseRange(ps.tw);
    this.cfilter = ps.tk || '';
    this.filterBox.value = this.cfilter;
    const tc = /^(\d+):(\d+)$/.exec(ps.tc || '');
    this.depth = /^\d+$/.test(ps.td || '') ? +ps.td : 0;
    const tx = /^(\d+):(-?[\d.]+)$/.exec(ps.tx || '');
    this.cross = tx ? { c: +tx[1], t: +tx[2] } : null;
    const r = S.range();
    const t = tw || r || [this.full.t0, this.full.t1];
    this.win = this.clampWin({ t0: t[0], t1: t[1], c0: tc ? +tc[1] : 0, c1: tc ? +tc[2] : this.full.contexts });
    if (this.cross && (this.cross.c >= this.full.contexts)) this.cross = null;
  }

  writeState() {
    const ps = S.state.pane;
    const w = this.win;
    const whole = this.fullWindow();
    ps.tw = w.t0 === whole.t0 && w.t1 === whole.t1 ? null : S.fmtRange([w.t0, w.t1]);
    ps.tc = w.c0 === 0 && w.c1 === whole.c1 ? null : `${w.c0}:${w.c1}`;
    ps.td = this.depth ? String(this.depth) : null;
    ps.tx = this.cross ? `${this.cross.c}:${S.fmtMsParam(this.cross.t)}` : null;
    S.commit('pane', false);
  }

  fullWindow() { return { t0: this.full.t0, t1: this.full.t1, c0: 0, c1: this.full.contexts }; }

  clampWin(w) {
    const f = this.full;
    const span = clamp(w.t1 - w.t0, MIN_SPAN_MS, f.t1 - f.t0 || MIN_SPAN_MS);
    const t0 = clamp(w.t0, f.t0, Math.max(f.t0, f.t1 - span));
    const n = Math.max(1, f.contexts);
    const cn = clamp(Math.round(w.c1 - w.c0), 1, n);
    const c0 = clamp(Math.round(w.c0), 0, n - cn);
    return { t0, t1: t0 + span, c0, c1: c0 + cn };
  }

  // A window change: one undo step (kind: wheel and key steps in a row are one), URL, redraw.
  setWindow(w, kind) {
    const next = this.clampWin(w);
    const cur = this.win;
    if (next.t0 === cur.t0 && next.t1 === cur.t1 && next.c0 === cur.c0 && next.c1 === cur.c1) return;
    const now = Date.now();
    const grouped = kind && kind === this.last.kind && now - this.last.at < GROUP_MS && (kind === 'wheel' || kind === 'key');
    if (!grouped) this.undoStack.push(cur);
    this.last = { kind, at: now };
    this.redoStack = [];
    this.win = next;
    this.afterWindow();
  }

  afterWindow() {
    this.writeState();
    this.drawAll(); // the old image stretched at once, the new one when it comes
    this.refresh({ window: true, boxes: true });
  }

  undo() { this.step(this.undoStack, this.redoStack); }
  redo() { this.step(this.redoStack, this.undoStack); }
  // the window popped from one stack, the current one pushed on the other
  step(from, to) {
    if (!from.length) return;
    to.push(this.win);
    this.win = this.clampWin(from.pop());
    this.last = { kind: null, at: 0 };
    this.afterWindow();
  }

  setDepth(d) {
    const max = Math.max(0, (this.full ? this.full.maxDepth : 1) - 1);
    d = clamp(d, 0, max);
    if (d === this.depth) return;
    this.depth = d;
    this.writeState();
    this.drawAll(); // the stack's and the depth view's marks of the depth
    this.refresh({ mini: true, window: true });
  }

  setCross(c, t) {
    const prev = this.cross;
    this.cross = { c, t };
    this.writeState();
    this.drawAll();
    this.refresh({ stack: true, boxes: !prev || prev.c !== c });
  }

  // ---- fetching ----

  params() {
    // the query without its tree depth (depth= is the call depth here) and range (the window is
    // the time range)
    const ps = S.queryParams(null).filter(([k]) => k !== 'depth' && k !== 'range');
    if (!this.cfilter) return ps;
    // the context filter: its threads instead of the query's (text: the names holding it)
    const re = this.cfilter.startsWith('re:') ? this.cfilter : 're:' + this.cfilter.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return [...ps.filter(([k]) => k !== 'thread'), ['thread', re]];
  }

  async update(force) {
    if (!this.full && !force) this.cfilter = S.state.pane.tk || '';
    const key = JSON.stringify(this.params());
    if (force || key !== this.lastKey || !this.full) {
      this.lastKey = key;
      this.full = null;
      await this.refresh({ mini: true, window: true, boxes: true, stack: true });
    } else {
      this.drawAll();
    }
  }

  // Fetches the parts asked for (the newest request of each wins; older ones are aborted). The
  // pane's data-state is "busy" until every part asked for so far has its answer drawn.
  async refresh(parts) {
    this.el.dataset.state = 'busy';
    if (!this.full) {
      // the whole trace at the mini map's size: its range and contexts too
      await this.run('mini', (sig) => this.fetchMini(sig));
      if (!this.full) return this.settle();
      this.readState();
      this.writeState();
      parts = { window: true, boxes: true, stack: true };
    }
    const jobs = [];
    for (const part of ['mini', 'window', 'boxes', 'stack']) {
      const fn = { mini: this.fetchMini, window: this.fetchWindow, boxes: this.fetchBoxes, stack: this.fetchStack }[part];
      if (parts[part]) jobs.push(this.run(part, (sig) => fn.call(this, sig)));
    }
    await Promise.all(jobs);
    this.settle();
  }

  // One part's request: resolves once its answer is drawn, or it failed, or a newer one took over.
  async run(part, fetcher) {
    const gen = ++this.gens[part];
    if (this.ctrl[part]) this.ctrl[part].abort();
    const ac = (this.ctrl[part] = new AbortController());
    this.pending.add(part);
    try {
      const ok = await fetcher(ac.signal);
      if (gen !== this.gens[part]) return;
      this.pending.delete(part);
      if (ok !== false) this.drawPart(part);
    } catch (e) {
      if (gen !== this.gens[part] || isAbort(e)) return;
      this.pending.delete(part);
      paneFailed(this, this.body, e.message);
    }
  }

  settle() {
    if (!this.pending.size) requestAnimationFrame(() => { if (!this.pending.size) this.el.dataset.state = 'ready'; });
  }

  learn(d) {
    for (const f of d.functions || []) this.funcs.set(f.id, { name: f.name, scope: f.scope });
  }

  async fetchMini(signal) {
    const width = Math.max(100, Math.round(this.mainWrap.clientWidth || 800));
    const p = [...this.params(), ['width', width], ['height', MINI_H], ['depth', this.depth]];
    if (this.full) p.push(['t0', ns(this.full.t0)], ['t1', ns(this.full.t1)]);
    const d = await api('trace', p, { signal });
    this.learn(d);
    assign(d);
    if (!this.full) {
      this.full = { t0: d.t0, t1: d.t1, contexts: d.contexts, maxDepth: d.max_depth };
      if (!d.contexts || !(d.t1 > d.t0)) {
        paneFailed(this, this.body, 'This profile has no trace: no thread has records or samples with times.');
        this.full = null;
        return false;
      }
    }
    paneOk(this, this.body);
    this.miniData = { d, ids: unrun(d) };
    return true;
  }

  async fetchWindow(signal) {
    const w = this.win;
    const width = Math.max(1, Math.round(this.mainWrap.clientWidth || 800));
    const cssH = Math.max(1, Math.round(this.mainWrap.clientHeight || 300));
    const height = Math.min(cssH, w.c1 - w.c0);
    const d = await api('trace', [...this.params(), ['t0', ns(w.t0)], ['t1', ns(w.t1)], ['c0', w.c0], ['c1', w.c1],
      ['width', width], ['height', height], ['depth', this.depth]], { signal });
    this.learn(d);
    assign(d);
    this.winData = { d, ids: unrun(d), win: { ...w }, css: [width, cssH] };
    return true;
  }

  boxContext() { return this.cross ? this.cross.c : this.win.c0; }

  async fetchBoxes(signal) {
    const w = this.win;
    const width = Math.max(1, this.mainWrap.clientWidth || 800);
    const c = this.boxContext();
    const d = await api('trace-boxes', [...this.params(), ['context', c], ['t0', ns(w.t0)], ['t1', ns(w.t1)],
      ['min', Math.floor(ns(w.t1 - w.t0) / width)], ['depth', this.depth]], { signal });
    traceAssignBoxes(S.state.p, d.boxes);
    this.boxData = { d, win: { ...w }, c };
    return true;
  }

  async fetchStack(signal) {
    if (!this.cross) { this.stackData = null; return true; }
    const d = await api('trace-stack', [...this.params(), ['context', this.cross.c], ['at', ns(this.cross.t)], ['depth', this.depth]], { signal });
    this.stackData = d;
    return true;
  }

  // ---- drawing ----

  drawPart(part) {
    if (part === 'window') { this.paintImage(); this.drawStats(); this.drawLegend(); }
    this.drawAll();
  }

  drawAll() {
    if (!this.full || !this.win) return;
    this.drawMini();
    this.drawAxis();
    this.drawMain();
    this.drawSummary();
    this.drawBoxes();
    this.drawStack();
    const w = this.win;
    const deepest = Math.max(0, this.full.maxDepth - 1);
    this.depthLabel.textContent = `depth ${this.depth} of ${deepest}`;
    this.depthSlider.max = String(deepest);
    this.depthSlider.value = String(this.depth);
    this.info.textContent = `${fmtTime(w.t0 - ctx.profile.start)} – ${fmtTime(w.t1 - ctx.profile.start)} (${fmtMs(w.t1 - w.t0)}) · contexts ${w.c0}–${w.c1 - 1} of ${this.full.contexts}`;
    this.undoBtn.disabled = !this.undoStack.length;
    this.redoBtn.disabled = !this.redoStack.length;
  }

  // ids -> an offscreen canvas of the answer's pixels
  toImage(ids, width, height) {
    const cv = document.createElement('canvas');
    cv.width = width;
    cv.height = height;
    const c = cv.getContext('2d');
    const img = c.createImageData(width, height);
    const px = img.data;
    const lut = new Map();
    const blank = blankRgb();
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      let rgb = lut.get(id);
      if (!rgb) {
        const f = this.funcs.get(id);
        rgb = id < 0 || !f ? blankRgb() : rgbOf(id);
        lut.set(id, rgb);
      }
      px[i * 4] = rgb[0]; px[i * 4 + 1] = rgb[1]; px[i * 4 + 2] = rgb[2]; px[i * 4 + 3] = 255;
    }
    c.putImageData(img, 0, 0);
    return cv;
  }

  paintImage() {
    const { d, ids } = this.winData;
    this.image = this.toImage(ids, d.width, d.height);
  }

  // x of time t (ms) and back, in the main canvas's CSS pixels
  xOf(t, width) { return ((t - this.win.t0) / (this.win.t1 - this.win.t0)) * width; }
  tOf(x, width) { return this.win.t0 + (x / width) * (this.win.t1 - this.win.t0); }
  // the context a CSS y shows: the server's row rule (the middle of the row's share of contexts)
  cOf(y, height) {
    const w = this.win, n = w.c1 - w.c0;
    const rows = Math.min(Math.round(height), n);
    const r = clamp(Math.floor((y / height) * rows), 0, rows - 1);
    return w.c0 + Math.floor(((r + 0.5) * n) / rows);
  }
  yOf(c, height) { return ((c - this.win.c0) / (this.win.c1 - this.win.c0)) * height; }

  drawMain() {
    const W = this.mainWrap.clientWidth, H = this.mainWrap.clientHeight;
    if (!W || !H) return;
    const c = sizeCanvas(this.main, W, H);
    c.fillStyle = traceBlank();
    c.fillRect(0, 0, W, H);
    const wd = this.winData;
    if (this.image && wd) {
      // the answer's window placed in the current one (stretched until the new answer comes)
      const a = wd.win;
      const x0 = this.xOf(a.t0, W), x1 = this.xOf(a.t1, W);
      const y0 = this.yOf(a.c0, H), y1 = this.yOf(a.c1, H);
      c.imageSmoothingEnabled = false;
      c.drawImage(this.image, x0, y0, x1 - x0, y1 - y0);
    }
    const n = this.win.c1 - this.win.c0, rowH = H / n;
    if (rowH >= 5) {
      c.strokeStyle = isDark() ? 'rgba(0,0,0,0.7)' : 'rgba(255,255,255,0.9)';
      c.lineWidth = 1;
      for (let i = 1; i < n; i++) { const y = Math.round(i * rowH) + 0.5; c.beginPath(); c.moveTo(0, y); c.lineTo(W, y); c.stroke(); }
    }
    this.drawLabels(c, H);
    if (this.cross && this.cross.c >= this.win.c0 && this.cross.c < this.win.c1) {
      const x = Math.round(this.xOf(this.cross.t, W)) + 0.5;
      const y0 = this.yOf(this.cross.c, H), y1 = this.yOf(this.cross.c + 1, H);
      c.strokeStyle = ink('#0c0c0d');
      c.lineWidth = 1;
      c.beginPath(); c.moveTo(x, 0); c.lineTo(x, H); c.stroke();
      const ym = Math.round((y0 + y1) / 2) + 0.5;
      c.beginPath(); c.moveTo(0, ym); c.lineTo(W, ym); c.stroke();
      c.strokeStyle = '#0a84ff';
      c.strokeRect(0.5, y0 + 0.5, W - 1, Math.max(1, y1 - y0 - 1));
    } else if (this.cross) {
      const x = Math.round(this.xOf(this.cross.t, W)) + 0.5;
      c.strokeStyle = ink('#0c0c0d');
      c.beginPath(); c.moveTo(x, 0); c.lineTo(x, H); c.stroke();
    }
    const dr = this.drag;
    if (dr && dr.mode === 'zoom' && dr.moved) {
      c.fillStyle = 'rgba(10,132,255,0.18)';
      c.strokeStyle = '#0a84ff';
      const x = Math.min(dr.x0, dr.x1), y = Math.min(dr.y0, dr.y1);
      c.fillRect(x, y, Math.abs(dr.x1 - dr.x0), Math.abs(dr.y1 - dr.y0));
      c.strokeRect(x + 0.5, y + 0.5, Math.abs(dr.x1 - dr.x0), Math.abs(dr.y1 - dr.y0));
    }
    this.main.dataset.window = `${S.fmtRange([this.win.t0, this.win.t1])}|${this.win.c0}:${this.win.c1}|${this.depth}`;
  }

  // The context labels (hpctraceviewer's habit, at any count): the answer's labels (one per
  // context, or per pixel row when they outnumber the rows), every Nth drawn so that they are
  // 14 px apart at least; the hover names the others. Kept while the window's contexts are
  // the answer's.
  labelsShown() {
    const wd = this.winData;
    if (!wd || !wd.d.labels || wd.win.c0 !== this.win.c0 || wd.win.c1 !== this.win.c1) return null;
    return wd.d.labels;
  }

  drawLabels(c, H) {
    const labels = this.labelsShown();
    this.labelStep = 0;
    if (!labels || !labels.length) return;
    const lh = H / labels.length;
    const step = Math.max(1, Math.ceil(14 / lh));
    this.labelStep = step;
    c.font = '11px system-ui, sans-serif';
    c.textBaseline = 'middle';
    const boxH = Math.min(14, Math.max(lh * step - 1, 12));
    for (let i = 0; i < labels.length; i += step) {
      const [cx, nm] = labels[i];
      const label = `${cx}: ${nm}`;
      const tw = Math.min(240, c.measureText(label).width + 8);
      const y = Math.min(H - boxH, Math.max(0, (i + 0.5) * lh - boxH / 2));
      c.fillStyle = isDark() ? 'rgba(28,27,34,0.85)' : 'rgba(255,255,255,0.85)';
      c.fillRect(0, y, tw, boxH);
      c.fillStyle = ink('#0c0c0d');
      c.fillText(fitText(c, label, tw - 6), 3, y + boxH / 2);
    }
  }

  // The legend: a swatch and the name of each function the window shows, most pixels first.
  drawLegend() {
    const el = clear(this.legend);
    const wd = this.winData;
    if (!wd) return;
    const shown = wd.d.shares.filter((x) => x.id >= 0);
    const MAX = 24;
    for (const x of shown.slice(0, MAX)) {
      const f = this.funcs.get(x.id);
      const name = f ? f.name : `#${x.id}`;
      el.append(h('span', { class: 'trace-leg', dataset: { id: x.id }, title: `${name}: ${x.percent.toFixed(2)}% of the region` },
        h('span', { class: 'swatch', style: { background: colorOf(x.id) } }), h('span', { class: 'trace-leg-name', text: name })));
    }
    if (shown.length > MAX) el.append(h('span', { class: 'dim', text: `+${shown.length - MAX} more (Visible region)` }));
    if (!shown.length) el.append(h('span', { class: 'dim', text: 'nothing shown in this region' }));
  }

  drawAxis() {
    const W = this.mainWrap.clientWidth;
    if (!W) return;
    const c = sizeCanvas(this.axis, W, AXIS_H);
    c.clearRect(0, 0, W, AXIS_H);
    const z = ctx.profile.start;
    const span = this.win.t1 - this.win.t0;
    const step = niceStep(span, Math.max(2, W / 110));
    c.font = '10px system-ui, sans-serif';
    c.fillStyle = isDark() ? '#b1b1b8' : '#4a4a4f';
    c.strokeStyle = isDark() ? '#55545e' : '#c8c8cf';
    c.textBaseline = 'middle';
    for (let t = Math.ceil((this.win.t0 - z) / step) * step; t + z <= this.win.t1; t += step) {
      const x = Math.round(this.xOf(t + z, W)) + 0.5;
      c.beginPath(); c.moveTo(x, AXIS_H - 5); c.lineTo(x, AXIS_H); c.stroke();
      c.fillText(fmtTime(t), x + 3, AXIS_H / 2);
    }
  }

  drawSummary() {
    const W = this.mainWrap.clientWidth;
    if (!W) return;
    const c = sizeCanvas(this.sum, W, SUM_H);
    c.fillStyle = traceBlank();
    c.fillRect(0, 0, W, SUM_H);
    const wd = this.winData;
    if (!wd || !wd.d.summary) return;
    const { d } = wd;
    const x0 = this.xOf(wd.win.t0, W), cw = (this.xOf(wd.win.t1, W) - x0) / d.width;
    d.summary.forEach((col, x) => {
      let y = SUM_H;
      for (let i = 0; i < col.length; i += 2) {
        const id = col[i], hgt = (col[i + 1] / d.height) * SUM_H;
        y -= hgt;
        if (id < 0) continue;
        const f = this.funcs.get(id);
        c.fillStyle = f ? colorOf(id) : traceBlank();
        c.fillRect(x0 + x * cw, y, Math.max(cw, 1), hgt);
      }
    });
  }

  drawMini() {
    const W = this.mainWrap.clientWidth;
    if (!W || !this.full) return;
    const c = sizeCanvas(this.mini, W, MINI_H);
    c.fillStyle = traceBlank();
    c.fillRect(0, 0, W, MINI_H);
    const md = this.miniData;
    if (md) {
      if (!this.miniImage || this.miniImage.src !== md) this.miniImage = { src: md, cv: this.toImage(md.ids, md.d.width, md.d.height) };
      c.imageSmoothingEnabled = false;
      c.drawImage(this.miniImage.cv, 0, 0, W, MINI_H);
    }
    // the window: outside it faded
    const f = this.full, w = this.win;
    const x0 = ((w.t0 - f.t0) / (f.t1 - f.t0)) * W, x1 = ((w.t1 - f.t0) / (f.t1 - f.t0)) * W;
    const y0 = (w.c0 / f.contexts) * MINI_H, y1 = (w.c1 / f.contexts) * MINI_H;
    c.fillStyle = isDark() ? 'rgba(28,27,34,0.7)' : 'rgba(255,255,255,0.65)';
    c.fillRect(0, 0, W, y0);
    c.fillRect(0, y1, W, MINI_H - y1);
    c.fillRect(0, y0, x0, y1 - y0);
    c.fillRect(x1, y0, W - x1, y1 - y0);
    c.strokeStyle = '#0a84ff';
    c.lineWidth = 1;
    c.strokeRect(Math.round(x0) + 0.5, Math.round(y0) + 0.5, Math.max(2, x1 - x0 - 1), Math.max(2, y1 - y0 - 1));
    this.miniRect = { x0, x1, y0, y1, W };
  }

  drawStats() {
    const wd = this.winData;
    const list = clear(this.statsEl);
    if (!wd) return;
    const rows = wd.d.shares.slice(0, 40);
    const tb = h('table', { class: 'trace-stats-table' });
    for (const s of rows) {
      const f = this.funcs.get(s.id);
      const name = s.id < 0 ? '(blank: not running or left out)' : f ? f.name : `#${s.id}`;
      const tr = h('tr', { class: s.id < 0 ? 'dim' : 'trace-fn', dataset: { id: s.id }, title: s.id < 0 ? name : `${name}: right-click to center on it` },
        h('td', null, h('span', { class: 'swatch', style: { background: s.id < 0 ? traceBlank() : colorOf(s.id) } })),
        h('td', { class: 'v', text: name }),
        h('td', { class: 'num', text: s.percent.toFixed(2) + '%' }));
      if (s.id >= 0) tr.addEventListener('contextmenu', (e) => { e.preventDefault(); this.funcMenu(e, s.id, name); });
      if (s.id >= 0) tr.addEventListener('click', (e) => this.funcMenu(e, s.id, name));
      tb.append(tr);
    }
    list.append(tb);
    if (wd.d.shares.length > rows.length) list.append(h('div', { class: 'dim', text: `${wd.d.shares.length - rows.length} more` }));
  }

  drawStack() {
    const el = clear(this.stackEl);
    const d = this.stackData;
    if (!this.cross) { el.append(h('div', { class: 'dim', text: 'Click the trace to place the crosshair.' })); return; }
    if (!d) return;
    el.append(h('div', { class: 'trace-stack-head' },
      h('div', { text: `context ${d.context}: ${d.thread}` }),
      h('div', { class: 'dim', text: `at ${fmtTime(d.time - ctx.profile.start)}` + (d.record === null ? ' · no record' : ` · record ${d.record}, ${fmtMs(d.end - d.start)}`) + (d.shown || d.record === null ? '' : ' · ' + (BLANK_WHY[d.state] || d.state)) })));
    for (const fr of d.frames) {
      const at = fr.depth === this.depth || (fr.depth !== null && fr.depth < this.depth && fr === this.deepest(d.frames));
      const row = h('div', {
        class: 'tf' + (fr.depth === null ? ' tf-loop' : '') + (at ? ' at-depth' : ''),
        dataset: { depth: fr.depth === null ? '' : fr.depth, scope: fr.scope },
        title: fr.depth === null ? fr.name : `${fr.name}: click to colour by depth ${fr.depth}; right-click to center on ${fr.scope}`,
      },
      h('span', { class: 'tf-depth', text: fr.depth === null ? '' : String(fr.depth) }),
      h('span', { class: 'swatch', style: { background: colorOf(fr.id) } }),
      h('span', { class: 'tf-name', text: fr.name }));
      if (fr.depth !== null) row.addEventListener('click', () => this.setDepth(fr.depth));
      row.addEventListener('contextmenu', (e) => { e.preventDefault(); this.funcMenu(e, fr.id, fr.function, fr.scope); });
      el.append(row);
    }
  }

  deepest(frames) {
    for (let i = frames.length - 1; i >= 0; i--) if (frames[i].depth !== null) return frames[i];
    return null;
  }

  // ---- the depth view ----

  boxGeom(b, W) {
    const x0 = this.xOf(b.start, W), x1 = this.xOf(b.end, W);
    return { x0, x1, y: b.depth * RH + 2 };
  }

  drawBoxes() {
    const W = this.boxWrap.clientWidth;
    const bd = this.boxData;
    if (!W || !bd) return;
    const boxes = bd.d.boxes;
    let maxD = 0;
    for (const b of boxes) if (b.depth > maxD) maxD = b.depth;
    const H = Math.max(this.boxWrap.clientHeight - 2, (maxD + 1) * RH + 4);
    const c = sizeCanvas(this.boxCanvas, W, H);
    c.clearRect(0, 0, W, H);
    c.font = '11px system-ui, sans-serif';
    c.textBaseline = 'middle';
    // the call depth coloured in the trace
    c.fillStyle = 'rgba(10,132,255,0.07)';
    c.fillRect(0, this.depth * RH + 2, W, RH);
    for (const b of boxes) {
      const g = this.boxGeom(b, W);
      if (g.x1 < 0 || g.x0 > W) continue;
      const x0 = Math.max(0, g.x0), x1 = Math.min(W, g.x1);
      const sel = this.selBox && this.selBox.depth === b.depth && this.selBox.start === b.start;
      const col = colorOf(b.id);
      c.fillStyle = sel ? '#0a84ff' : col;
      c.fillRect(x0, g.y, Math.max(0.5, x1 - x0 - 0.5), RH - 1);
      if (this.hoverBox === b) { c.strokeStyle = ink('#0c0c0d'); c.strokeRect(x0 + 0.5, g.y + 0.5, Math.max(0.5, x1 - x0 - 1.5), RH - 2); }
      if (x1 - x0 > 24) {
        c.fillStyle = sel ? '#fff' : textOn(col);
        c.fillText(fitText(c, b.name, x1 - x0 - 6), x0 + 3, g.y + RH / 2);
      }
    }
    if (this.cross) {
      const x = Math.round(this.xOf(this.cross.t, W)) + 0.5;
      c.strokeStyle = ink('#0c0c0d');
      c.beginPath(); c.moveTo(x, 0); c.lineTo(x, H); c.stroke();
    }
    this.boxTitle.textContent = `Depth view · context ${bd.c}: ${bd.d.thread} · ${boxes.length.toLocaleString('en-US')} boxes (hover: call path; click: select and move the crosshair; double-click: zoom to it)`;
  }

  boxAt(e) {
    const bd = this.boxData;
    if (!bd) return null;
    const r = this.boxCanvas.getBoundingClientRect();
    const x = e.clientX - r.left, y = e.clientY - r.top;
    const depth = Math.floor((y - 2) / RH);
    for (const b of bd.d.boxes) {
      if (b.depth !== depth) continue;
      const g = this.boxGeom(b, r.width);
      if (x >= g.x0 && x < g.x1) return b;
    }
    return null;
  }

  // A box's call path: the boxes above it that hold its start (same run, lower depths).
  callPath(b) {
    const path = [];
    for (let d = 0; d < b.depth; d++) {
      const a = this.boxData.d.boxes.find((x) => x.depth === d && x.start <= b.start && x.end >= b.end);
      if (a) path.push(a.name);
    }
    path.push(b.name);
    return path;
  }

  onBoxHover(e) {
    const b = this.boxAt(e);
    if (b !== this.hoverBox) { this.hoverBox = b; this.drawBoxes(); }
    if (!b) { hideTooltip(); return; }
    const el = h('div', null,
      h('div', { class: 'tt-title', text: `${fmtMs(b.end - b.start)} ${b.name}` }),
      h('div', { class: 'dim', text: `depth ${b.depth} · ${fmtTime(b.start - ctx.profile.start)} to ${fmtTime(b.end - ctx.profile.start)}` }),
      h('div', { class: 'stack', text: this.callPath(b).join('\n') }));
    showTooltip(e.clientX, e.clientY, el);
    moveTooltip(e.clientX, e.clientY);
  }

  onBoxClick(e) {
    const b = this.boxAt(e);
    this.selBox = b ? { depth: b.depth, start: b.start } : null;
    if (b) {
      const t = clamp((Math.max(b.start, this.win.t0) + Math.min(b.end, this.win.t1)) / 2, this.win.t0, this.win.t1);
      this.setCross(this.boxContext(), t);
    } else this.drawBoxes();
  }

  onBoxDouble(e) {
    const b = this.boxAt(e);
    if (b) this.setWindow({ ...this.win, t0: b.start, t1: b.end }, 'box');
  }

  // The function's scope (the library's: it names that function alone), never its name.
  funcMenu(e, id, name, scope) {
    const f = this.funcs.get(id);
    const sc = scope || (f && f.scope) || null;
    const a = ctx.actions;
    showMenu(e.clientX, e.clientY, [
      { label: 'Set as center', key: 'c', disabled: !sc, action: () => a.setCenter(sc) },
      { label: 'Add to center', disabled: !sc, action: () => a.addCenter(sc) },
      'sep',
      { label: 'Include only samples with it', disabled: !sc, action: () => a.addFilter('include', sc) },
      { label: 'Drop samples with it', disabled: !sc, action: () => a.addFilter('drop', sc) },
      { label: 'Merge it', disabled: !sc, action: () => a.addFilter('merge', sc) },
      'sep',
      { label: 'Copy name', action: () => copyText(name) },
    ]);
  }

  // ---- the main canvas: crosshair, zoom, pan ----

  local(e) {
    const r = this.main.getBoundingClientRect();
    return { x: clamp(e.clientX - r.left, 0, r.width), y: clamp(e.clientY - r.top, 0, r.height), W: r.width, H: r.height };
  }

  onDown(e) {
    if (e.button !== 0 || !this.win) return;
    e.preventDefault();
    this.focus();
    const p = this.local(e);
    this.drag = { mode: e.shiftKey ? 'pan' : 'zoom', x0: p.x, y0: p.y, x1: p.x, y1: p.y, moved: false, win: { ...this.win }, W: p.W, H: p.H };
  }

  onDrag(e) {
    const dr = this.drag;
    if (!dr) return;
    const r = this.main.getBoundingClientRect();
    dr.x1 = clamp(e.clientX - r.left, 0, r.width);
    dr.y1 = clamp(e.clientY - r.top, 0, r.height);
    if (Math.abs(dr.x1 - dr.x0) > 3 || Math.abs(dr.y1 - dr.y0) > 3) dr.moved = true;
    if (!dr.moved) return;
    if (dr.mode === 'pan') {
      const w = dr.win, n = w.c1 - w.c0;
      const dt = ((dr.x1 - dr.x0) / dr.W) * (w.t1 - w.t0);
      const dc = Math.round(((dr.y1 - dr.y0) / dr.H) * n);
      this.win = this.clampWin({ t0: w.t0 - dt, t1: w.t1 - dt, c0: w.c0 - dc, c1: w.c1 - dc });
      this.drawAll();
    } else {
      this.drawMain();
    }
  }

  onUp() {
    const dr = this.drag;
    if (!dr) return;
    this.drag = null;
    if (!dr.moved) { // a click: the crosshair
      this.setCross(this.cOf(dr.y0, dr.H), this.tOf(dr.x0, dr.W));
      return;
    }
    if (dr.mode === 'pan') {
      const moved = this.win;
      this.win = dr.win;
      this.setWindow(moved, 'pan');
      return;
    }
    const xa = Math.min(dr.x0, dr.x1), xb = Math.max(dr.x0, dr.x1);
    const w = this.win;
    const next = { ...w };
    if (xb - xa > 3) { next.t0 = this.tOf(xa, dr.W); next.t1 = this.tOf(xb, dr.W); }
    const ya = Math.min(dr.y0, dr.y1), yb = Math.max(dr.y0, dr.y1);
    if (yb - ya > 3) {
      const ca = this.cOf(ya, dr.H), cb = this.cOf(Math.max(ya, yb - 1e-6), dr.H);
      if (cb > ca || yb - ya > dr.H / (w.c1 - w.c0)) { next.c0 = ca; next.c1 = cb + 1; }
    }
    this.setWindow(next, 'zoom');
    this.drawMain();
  }

  onHover(e) {
    if (this.drag || !this.winData) return;
    const p = this.local(e);
    const wd = this.winData, d = wd.d;
    if (wd.win.t0 !== this.win.t0 || wd.win.t1 !== this.win.t1 || wd.win.c0 !== this.win.c0 || wd.win.c1 !== this.win.c1) { hideTooltip(); return; }
    const x = clamp(Math.floor((p.x / p.W) * d.width), 0, d.width - 1);
    const y = clamp(Math.floor((p.y / p.H) * d.height), 0, d.height - 1);
    const id = wd.ids[y * d.width + x];
    const f = this.funcs.get(id);
    const c = this.cOf(p.y, p.H);
    const labels = d.labels || [];
    const li = clamp(Math.floor((p.y / p.H) * labels.length), 0, labels.length - 1);
    const name = labels.length && labels[li][0] === c ? labels[li][1] : null;
    const el = h('div', null,
      h('div', { class: 'tt-title', text: id < 0 ? '(blank)' : f ? f.name : `#${id}` }),
      h('div', { class: 'dim', text: `context ${c}${name ? ': ' + name : ''} · ${fmtTime(this.tOf(p.x, p.W) - ctx.profile.start)}` }));
    showTooltip(e.clientX, e.clientY, el);
    moveTooltip(e.clientX, e.clientY);
  }

  zoomTime(t, deltaY, kind) {
    const w = this.win;
    const r = zoomAround([w.t0, w.t1], [this.full.t0, this.full.t1], t, deltaY) || [this.full.t0, this.full.t1];
    this.setWindow({ ...w, t0: r[0], t1: r[1] }, kind);
  }

  zoomContexts(c, deltaY, kind) {
    const w = this.win;
    const r = zoomAround([w.c0, w.c1], [0, this.full.contexts], c, deltaY) || [0, this.full.contexts];
    let c0 = Math.round(r[0]), c1 = Math.round(r[1]);
    if (c1 - c0 === w.c1 - w.c0) { // a step of less than a context: one context at least
      const grow = deltaY > 0 ? 1 : -1;
      c0 -= grow * (c >= (w.c0 + w.c1) / 2 ? 1 : 0);
      c1 += grow * (c < (w.c0 + w.c1) / 2 ? 1 : 0);
    }
    this.setWindow({ ...w, c0, c1 }, kind);
  }

  onWheel(e) {
    if (!this.win) return;
    e.preventDefault();
    const p = this.local(e);
    if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      const dt = (e.deltaX / p.W) * (this.win.t1 - this.win.t0);
      this.setWindow({ ...this.win, t0: this.win.t0 + dt, t1: this.win.t1 + dt }, 'wheel');
    } else if (e.shiftKey) {
      this.zoomContexts(this.win.c0 + (p.y / p.H) * (this.win.c1 - this.win.c0), e.deltaY, 'wheel');
    } else {
      this.zoomTime(this.tOf(p.x, p.W), e.deltaY, 'wheel');
    }
  }

  onKey(e) {
    if (!this.win || e.altKey) return;
    const w = this.win, span = w.t1 - w.t0, n = w.c1 - w.c0;
    const mid = (w.t0 + w.t1) / 2, cmid = (w.c0 + w.c1) / 2;
    const k = e.key, mod = e.ctrlKey || e.metaKey;
    let done = true;
    if (k === 'z' && !e.shiftKey) this.undo();
    else if (((k === 'Z' || k === 'z') && e.shiftKey) || (mod && k === 'y')) this.redo();
    else if (mod) done = false;
    else if (k === 'ArrowLeft') this.setWindow({ ...w, t0: w.t0 - span / 4, t1: w.t1 - span / 4 }, 'key');
    else if (k === 'ArrowRight') this.setWindow({ ...w, t0: w.t0 + span / 4, t1: w.t1 + span / 4 }, 'key');
    else if (k === 'ArrowUp' && e.shiftKey) this.zoomContexts(cmid, -200, 'key');
    else if (k === 'ArrowDown' && e.shiftKey) this.zoomContexts(cmid, 200, 'key');
    else if (k === 'ArrowUp') { const s = Math.max(1, Math.round(n / 4)); this.setWindow({ ...w, c0: w.c0 - s, c1: w.c1 - s }, 'key'); }
    else if (k === 'ArrowDown') { const s = Math.max(1, Math.round(n / 4)); this.setWindow({ ...w, c0: w.c0 + s, c1: w.c1 + s }, 'key'); }
    else if (k === '+' || k === '=') this.zoomTime(this.cross ? this.cross.t : mid, -200, 'key');
    else if (k === '-' || k === '_') this.zoomTime(this.cross ? this.cross.t : mid, 200, 'key');
    else if (k === '0' || k === 'Home') this.setWindow(this.fullWindow(), 'reset');
    else if (k === '[') this.setDepth(this.depth - 1);
    else if (k === ']') this.setDepth(this.depth + 1);
    else done = false;
    if (done) { e.preventDefault(); e.stopPropagation(); }
  }

  // ---- the mini map: drag the frame to pan, click elsewhere to move the window there ----

  onMiniDown(e) {
    if (e.button !== 0 || !this.miniRect) return;
    e.preventDefault();
    const r = this.mini.getBoundingClientRect(), m = this.miniRect, f = this.full;
    const x = e.clientX - r.left, y = e.clientY - r.top;
    const w0 = { ...this.win };
    const span = w0.t1 - w0.t0, n = w0.c1 - w0.c0;
    const toT = (px) => f.t0 + (px / m.W) * (f.t1 - f.t0);
    const toC = (py) => (py / MINI_H) * f.contexts;
    let base = w0;
    if (!(x >= m.x0 && x <= m.x1 && y >= m.y0 - 2 && y <= m.y1 + 2)) {
      base = this.clampWin({ t0: toT(x) - span / 2, t1: toT(x) + span / 2, c0: Math.round(toC(y) - n / 2), c1: Math.round(toC(y) - n / 2) + n });
      this.win = base;
      this.drawAll();
    }
    const move = (ev) => {
      const dt = ((ev.clientX - e.clientX) / m.W) * (f.t1 - f.t0);
      const dc = Math.round(((ev.clientY - e.clientY) / MINI_H) * f.contexts);
      this.win = this.clampWin({ t0: base.t0 + dt, t1: base.t1 + dt, c0: base.c0 + dc, c1: base.c1 + dc });
      this.drawAll();
    };
    const up = () => {
      window.removeEventListener('mousemove', move);
      window.removeEventListener('mouseup', up);
      const moved = this.win;
      this.win = w0;
      this.setWindow(moved, 'mini');
    };
    window.addEventListener('mousemove', move);
    window.addEventListener('mouseup', up);
  }
}

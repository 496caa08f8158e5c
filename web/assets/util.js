// Small helpers shared by every view: DOM building, number and time formats, colours.

export function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k === 'text') el.textContent = v;
      else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
      else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else if (k === 'dataset') Object.assign(el.dataset, v);
      else el.setAttribute(k, v === true ? '' : v);
    }
  }
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

const intFmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const dec1 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const dec3 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 });

// ---- costs: the library's unit rule and the three forms of a number ----

// How a metric's costs are shown: the library's unit rule (pv_cost_unit), which every answer
// that carries costs gives as "shown": {unit, per, decimals, named} — "REALTIME (sec)" in
// seconds, another time in ms (us, ns for a tiny whole), a count as it is. show is that object,
// or (an answer without one) the model unit's name.
export function showOf(show) {
  if (show && typeof show === 'object') return show;
  if (show === 'ns') return { unit: 'ms', per: 1e6, decimals: 3, named: false };
  if (show === 'us' || show === 'µs') return { unit: 'ms', per: 1e3, decimals: 3, named: false };
  return { unit: show && show !== 'count' ? show : '', per: 1, decimals: null, named: false };
}

// The form numbers are shown in (the top bar's switch, kept in this browser): 'exact' (all the
// digits, thousands separated), 'short' (k/M/G with 3 significant digits: 978M) or 'sci'
// (hpcviewer's 1.48e+09). A cell's title always has the exact value.
export const FORMS = [['exact', 'exact'], ['short', 'k/M/G'], ['sci', '1.48e+09']];
let numForm = (() => { try { return localStorage.getItem('profview-numbers') || 'exact'; } catch (e) { return 'exact'; } })();
if (!FORMS.some((f) => f[0] === numForm)) numForm = 'exact';
export function numberForm() { return numForm; }
export function setNumberForm(f) {
  numForm = FORMS.some((x) => x[0] === f) ? f : 'exact';
  try { localStorage.setItem('profview-numbers', numForm); } catch (e) { /* private mode */ }
}

const decFmts = new Map();
function decFmt(d) {
  if (!decFmts.has(d)) decFmts.set(d, new Intl.NumberFormat('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }));
  return decFmts.get(d);
}

// A cost, exact, in its metric's unit (the same digits as the CLI's text, with thousands
// separators).
export function fmtCost(v, show) {
  if (v === null || v === undefined) return '';
  if (!Number.isFinite(v)) return String(v);
  const u = showOf(show);
  if (u.per > 1) return decFmt(u.decimals || 0).format(v / u.per);
  // a count is an integer; a derived metric's number is shown as it is
  if (Number.isInteger(v)) return intFmt.format(v);
  if (Math.abs(v) >= 100) return dec1.format(v);
  return dec3.format(v);
}

// x (in the shown unit) as k/M/G/T with 3 significant digits, or as it is below 1000.
function shortNum(x) {
  const a = Math.abs(x);
  if (a < 999.5) return a === 0 ? '0' : Number(x.toPrecision(3)).toString();
  const sfx = 'kMGTPE';
  let q = x / 1000, k = 0;
  while (Math.abs(q) >= 999.5 && k < sfx.length - 1) { q /= 1000; k++; }
  const b = Math.abs(q);
  return (b >= 99.95 ? q.toFixed(0) : b >= 9.995 ? q.toFixed(1) : q.toFixed(2)) + sfx[k];
}
// hpcviewer's scientific form: 1.48e+09 (two digits of exponent at least, as C's %.2e)
function sciNum(x) {
  return x.toExponential(2).replace(/e([+-])(\d)$/, 'e$10$2');
}

// A cost in the page's number form (numberForm()): [shown, exact].
export function fitCost(v, show) {
  const exact = fmtCost(v, show);
  if (v === null || v === undefined || !Number.isFinite(v) || numForm === 'exact') return [exact, exact];
  const u = showOf(show);
  const x = u.per > 1 ? v / u.per : v;
  return [numForm === 'sci' ? sciNum(x) : shortNum(x), exact];
}

export function fmtPct(v, base) {
  if (!base) return '—';
  const p = (100 * v) / base;
  if (p === 0) return '0%';
  if (p < 0.01 && p > 0) return '<0.01%';
  return p.toFixed(p >= 99.995 ? 0 : 2) + '%';
}

// The unit a column header names for a metric's costs ('' for a count, and for a metric whose
// name says its unit: "REALTIME (sec)" is not followed by "(sec)" again).
export function unitLabel(show) {
  const u = showOf(show);
  return u.named || u.unit === 'count' ? '' : u.unit;
}
// A metric's name with its unit as a chooser or a status line says it: "cycles (cycles)",
// "REALTIME (sec)".
export function metricTitle(m) {
  const u = unitLabel(m.shown || m.unit);
  return u ? `${m.name} (${u})` : m.name;
}

// Durations in ms, adaptive like the Firefox Profiler.
export function fmtMs(ms) {
  if (ms === null || ms === undefined) return 'unknown';
  const a = Math.abs(ms);
  if (a === 0) return '0ms';
  if (a < 0.001) return (ms * 1e6).toFixed(0) + 'ns';
  if (a < 1) return (ms * 1e3).toFixed(a < 0.01 ? 2 : a < 0.1 ? 1 : 0) + 'μs';
  if (a < 10) return ms.toFixed(3) + 'ms';
  if (a < 100) return ms.toFixed(2) + 'ms';
  if (a < 1000) return ms.toFixed(1) + 'ms';
  if (a < 60000) return (ms / 1000).toFixed(a < 10000 ? 3 : 2) + 's';
  const m = Math.floor(a / 60000), s = Math.round((a % 60000) / 1000);
  return (ms < 0 ? '-' : '') + m + 'm' + s + 's';
}

// A timestamp relative to the profile start (the page's zero), for axes and tables.
export function fmtTime(ms) {
  const a = Math.abs(ms);
  if (a >= 1000) return (ms / 1000).toFixed(3) + 's';
  return ms.toFixed(3) + 'ms';
}

export function fmtBytes(n) {
  if (n < 10000) return intFmt.format(n) + 'B';
  const u = ['KB', 'MB', 'GB', 'TB'];
  let v = n, i = -1;
  while (v >= 1000 && i < u.length - 1) { v /= 1000; i++; }
  return (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)) + u[i];
}

// Category colours: the Firefox Profiler's names (photon palette); anything else is used as CSS.
const CATEGORY_COLORS = {
  transparent: 'rgba(0,0,0,0)',
  purple: '#9059ff',
  green: '#2ac3a2',
  orange: '#ff9f1a',
  yellow: '#ffd500',
  lightblue: '#75c4ff',
  blue: '#0a84ff',
  brown: '#b07a48',
  magenta: '#ed00b5',
  red: '#ff4f5e',
  lightred: '#ff9aa2',
  darkgrey: '#7a7a80',
  darkgray: '#7a7a80',
  lightgreen: '#87e5b0',
  grey: '#b8b8bd',
  gray: '#b8b8bd',
};
export function categoryColor(name) {
  if (!name) return CATEGORY_COLORS.grey;
  return CATEGORY_COLORS[name] || name;
}

// A lighter shade of a colour (for unselected samples and marker fills): its alpha times
// alpha, so a transparent colour (the Idle category) stays transparent.
export function fade(color, alpha) {
  const c = parseColor(color);
  if (!c) return color;
  return `rgba(${c[0]},${c[1]},${c[2]},${alpha * c[3]})`;
}
const colorCache = new Map();
function parseColor(color) {
  if (colorCache.has(color)) return colorCache.get(color);
  let r = null;
  const m = /^#([0-9a-f]{6})$/i.exec(color);
  if (m) {
    const v = parseInt(m[1], 16);
    r = [(v >> 16) & 255, (v >> 8) & 255, v & 255, 1];
  } else {
    const m2 = /^rgba?\((\d+),\s*(\d+),\s*(\d+)(?:,\s*([\d.]+))?/.exec(color);
    if (m2) r = [+m2[1], +m2[2], +m2[3], m2[4] === undefined ? 1 : +m2[4]];
  }
  colorCache.set(color, r);
  return r;
}

// A stable warm colour for a name (flame graphs).
export function hashColor(name, dim) {
  let x = 2166136261;
  for (let i = 0; i < name.length; i++) x = Math.imul(x ^ name.charCodeAt(i), 16777619);
  const u = (x >>> 0) / 4294967296;
  const hue = 8 + u * 42;
  const light = dim ? 88 : 62 + ((x >>> 8) & 15);
  const sat = dim ? 30 : 80;
  return `hsl(${hue.toFixed(1)},${sat}%,${light}%)`;
}

// The trace's and the stack chart's colours (hpctraceviewer's habit): 24 clearly distinct hues,
// none grey, none near the background of either theme (kept for gaps and "no activity"). A
// function keeps one colour for the page's life: its own slot (its id modulo 24: functions the
// importer met together, close ids, differ), or, when a function shown beside it already has
// that slot, the next free one, given in the order of traceAssign's list (most visible first).
const TRACE_PALETTE = [
  '#e6194b', '#3cb44b', '#ffe119', '#4363d8', '#f58231', '#911eb4', '#42d4f4', '#f032e6',
  '#bfef45', '#fabed4', '#469990', '#dcbeff', '#9a6324', '#800000', '#aaffc3', '#808000',
  '#ffd8b1', '#1f9e89', '#c51b7d', '#7b8bd9', '#d4a017', '#5ab4ac', '#b2182b', '#8c6bb1',
];
const traceSlots = new Map(); // "P:ID" (file, function) -> palette slot
const slotKey = (p, id) => p + ':' + id;
// Gives the functions ids of file p (most visible first) their colours: distinct while there
// are colours, a function given one before keeps it.
export function traceAssign(p, ids) {
  const N = TRACE_PALETTE.length;
  const taken = new Set();
  for (const id of ids) if (traceSlots.has(slotKey(p, id))) taken.add(traceSlots.get(slotKey(p, id)));
  for (const id of ids) {
    if (id < 0 || traceSlots.has(slotKey(p, id))) continue;
    let s = id % N;
    for (let k = 0; k < N && taken.has(s); k++) s = (s + 1) % N;
    traceSlots.set(slotKey(p, id), s);
    taken.add(s);
  }
}
// traceAssign for boxes ({id, start, end}): the longest in all first.
export function traceAssignBoxes(p, boxes) {
  const tot = new Map();
  for (const b of boxes) tot.set(b.id, (tot.get(b.id) || 0) + (b.end - b.start));
  traceAssign(p, [...tot.keys()].sort((a, b) => tot.get(b) - tot.get(a) || a - b));
}
// The colour of function id of file p ('#rrggbb').
export function traceColor(p, id) {
  const s = traceSlots.get(slotKey(p, id));
  return TRACE_PALETTE[s === undefined ? id % TRACE_PALETTE.length : s];
}
// The background blank pixels and gaps are drawn in: light grey, or dark in the dark theme.
export function traceBlank() { return isDark() ? '#1c1b22' : '#f4f4f6'; }
// Text on a colour: black on light ones, white on dark ones.
export function textOn(hex) {
  const v = parseInt(hex.slice(1), 16);
  const l = 0.299 * ((v >> 16) & 255) + 0.587 * ((v >> 8) & 255) + 0.114 * (v & 255);
  return l > 140 ? '#1d1d1f' : '#ffffff';
}

// Fit a text into width px, cutting with an ellipsis: the longest prefix that fits with "…".
// A text's width is measured once per font (a chart redraws the same names at every step); the
// cut starts from the estimate of its mean character width and walks to the exact answer (the
// widths grow with the prefix), a measure or two instead of a binary search's dozen.
const textWidths = new Map(); // font + '\n' + text -> width
export function textWidth(ctx, text) {
  const k = ctx.font + '\n' + text;
  let w = textWidths.get(k);
  if (w === undefined) {
    if (textWidths.size > 50000) textWidths.clear();
    textWidths.set(k, (w = ctx.measureText(text).width));
  }
  return w;
}
export function fitText(ctx, text, width) {
  if (width < 8) return '';
  const full = textWidth(ctx, text);
  if (full <= width) return text;
  const fits = (n) => n === 0 || ctx.measureText(text.slice(0, n) + '…').width <= width;
  let n = Math.max(0, Math.min(text.length - 1, Math.floor((width / full) * text.length)));
  if (fits(n)) { while (n + 1 < text.length && fits(n + 1)) n++; } else { while (n > 0 && !fits(n)) n--; }
  return n > 0 ? text.slice(0, n) + '…' : '';
}

// A canvas sized to its CSS box at the device pixel ratio; returns the 2d context.
export function sizeCanvas(canvas, cssW, cssH) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(cssW * dpr)), hh = Math.max(1, Math.round(cssH * dpr));
  if (canvas.width !== w) canvas.width = w;
  if (canvas.height !== hh) canvas.height = hh;
  canvas.style.width = cssW + 'px';
  canvas.style.height = cssH + 'px';
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return ctx;
}

// Nice tick step for an axis covering span units in about n ticks.
export function niceStep(span, n) {
  const raw = span / Math.max(1, n);
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const f = raw / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

export function debounce(fn, ms) {
  let t = 0;
  return (...a) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...a), ms);
  };
}

export function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    return navigator.clipboard.writeText(text).catch(() => fallbackCopy(text));
  }
  fallbackCopy(text);
  return Promise.resolve();
}
function fallbackCopy(text) {
  const ta = h('textarea', { style: { position: 'fixed', left: '-1000px', top: '0' } });
  ta.value = text;
  document.body.append(ta);
  ta.select();
  try { document.execCommand('copy'); } catch (e) { /* ignore */ }
  ta.remove();
}

// Ctrl/⌘+wheel zoom of a time axis around the time t under the pointer: the window win
// ([t0, t1] ms) scaled by the wheel's deltaY (up zooms in), t staying where it is, kept inside
// bounds. Returns the new window, or null when it is all of bounds (zoomed out fully).
export function zoomAround(win, bounds, t, deltaY) {
  const span = win[1] - win[0];
  const full = bounds[1] - bounds[0];
  if (!(span > 0) || !(full > 0)) return null;
  const dy = Math.max(-300, Math.min(300, deltaY));
  const next = Math.max(full * 1e-6, Math.min(full, span * Math.exp(dy * 0.002)));
  if (next >= full * (1 - 1e-9)) return null;
  let a = t - ((t - win[0]) * next) / span;
  a = Math.max(bounds[0], Math.min(bounds[1] - next, a));
  return [a, a + next];
}

// The ctrl/⌘+wheel view of a time axis inside its committed window (base): none at first,
// dropped when the base changes (another zoom crumb).
export class WheelView {
  constructor() { this.vp = null; this.key = null; }
  window(base) {
    const key = base.join(':');
    if (key !== this.key) { this.key = key; this.vp = null; }
    return this.vp || base;
  }
  zoom(base, t, deltaY) {
    this.vp = zoomAround(this.window(base), base, t, deltaY);
    return this.window(base);
  }
}

// ---- the dark theme (it follows the system: prefers-color-scheme) ----
// The canvases' interface colours, light first: ink(c) is c, or its dark counterpart while the
// system asks for a dark theme (style.css does the same for the page through its variables).
const DARK = {
  '#fff': '#1c1b22', '#ffffff': '#1c1b22', '#0c0c0d': '#f9f9fa', '#737373': '#a8a8b0',
  '#f9f9fa': '#23222b', '#fafafb': '#23222b', '#f0f0f4': '#2b2a33', '#e6e6ea': '#3a3944',
  '#ececf0': '#34333c', '#e0e0e6': '#3a3944', '#d7d7db': '#4a4a55', '#e8f2ff': '#0b3a70',
  '#9a9aa0': '#75757d', '#8a8a90': '#9a9aa0', '#38383d': '#d7d7db', '#b1b1b3': '#5b5b66',
};
const darkQuery = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;
export function isDark() { return !!(darkQuery && darkQuery.matches); }
export function ink(c) { return isDark() ? DARK[c] || c : c; }
// fn runs when the system's theme changes (the canvases redraw).
export function onThemeChange(fn) { if (darkQuery) darkQuery.addEventListener('change', fn); }

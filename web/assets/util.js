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

// A cost in its metric's unit. Counts and integral values are exact (the same digits as the
// CLI's --json, with thousands separators); times are in the unit the API gives.
export function fmtCost(v, unit) {
  if (v === null || v === undefined) return '';
  if (!Number.isFinite(v)) return String(v);
  if (unit === 'ns') return dec3.format(v / 1e6); // shown in ms, like the CLI's text
  if (unit === 'us' || unit === 'µs') return dec3.format(v / 1e3);
  if (Number.isInteger(v)) return intFmt.format(v);
  if (Math.abs(v) >= 100) return dec1.format(v);
  return dec3.format(v);
}

// A cost that fits a number column (about 11 characters, callgrind's 10-digit costs included):
// the exact text when it fits, else k/M/G/T with 3 significant digits; the exact text is the
// cell's title (fitCost(v, unit) -> [shown, exact]).
const COLUMN_CHARS = 11;
export function fitCost(v, unit) {
  const exact = fmtCost(v, unit);
  if (exact.length <= COLUMN_CHARS || !Number.isFinite(v)) return [exact, exact];
  const x = unit === 'ns' ? v / 1e6 : unit === 'us' || unit === 'µs' ? v / 1e3 : v;
  const a = Math.abs(x);
  const [d, s] = a >= 1e12 ? [1e12, 'T'] : a >= 1e9 ? [1e9, 'G'] : a >= 1e6 ? [1e6, 'M'] : [1e3, 'k'];
  const q = x / d;
  return [(Math.abs(q) >= 100 ? q.toFixed(0) : Math.abs(q) >= 10 ? q.toFixed(1) : q.toFixed(2)) + s, exact];
}

export function fmtPct(v, base) {
  if (!base) return '—';
  const p = (100 * v) / base;
  if (p === 0) return '0%';
  if (p < 0.01 && p > 0) return '<0.01%';
  return p.toFixed(p >= 99.995 ? 0 : 2) + '%';
}

// The unit a column header names for a metric unit.
export function unitLabel(unit) {
  if (unit === 'ns' || unit === 'us' || unit === 'µs') return 'ms';
  if (!unit || unit === 'count') return '';
  return unit;
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

// Fit a text into width px, cutting with an ellipsis.
export function fitText(ctx, text, width) {
  if (width < 8) return '';
  if (ctx.measureText(text).width <= width) return text;
  let lo = 0, hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.measureText(text.slice(0, mid) + '…').width <= width) lo = mid; else hi = mid - 1;
  }
  return lo > 0 ? text.slice(0, lo) + '…' : '';
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

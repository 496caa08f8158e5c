// Number columns that never cut a value: each metric's Total and Self columns are as wide as
// the widest text of its values shown so far (the whole, the rows drawn) in the page's number
// form (exact, k/M/G, 1.48e+09: util.js numberForm), and its header's; a wider value widens
// them (never the other way while the view stays). The CSS variable --num-w (the header's
// resizer, app.js) stays a minimum.
import { h, fitCost, unitLabel, metricTitle } from '../util.js';

const PAD = 14; // the cell's padding (6 + 6) and a border
let canvas = null;
const fonts = new Map();

// The width of text in the font of elements of that class (measured on a canvas, once per
// font).
export function textWidth(text, cls) {
  if (!canvas) canvas = document.createElement('canvas').getContext('2d');
  let font = fonts.get(cls);
  if (!font) {
    const probe = h('div', { class: cls, style: { position: 'absolute', visibility: 'hidden' } });
    document.body.append(probe);
    const cs = getComputedStyle(probe);
    font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    probe.remove();
    fonts.set(cls, font);
  }
  canvas.font = font;
  return canvas.measureText(text).width;
}

export class NumCols {
  constructor() { this.px = []; this.metrics = []; }

  // New metrics (a new view): the widths start from the headers and the given values
  // (per metric: the whole, the base, the first rows).
  reset(metrics, values) {
    this.metrics = metrics;
    this.px = metrics.map((m, mi) => {
      // header() reads this.metrics: set before
      let w = Math.max(textWidth(this.header('Total', m), 'tt-head-cell'), textWidth(this.header('Self', m), 'tt-head-cell'));
      for (const v of values[mi] || []) w = Math.max(w, textWidth(this.text(v, m, false), 'tt-num'));
      return Math.ceil(w + PAD);
    });
  }

  // A number column's header: "Total (ms)"; with several metrics the unit is in the metric's
  // name over the columns (group()), "Total" alone here.
  header(what, m) {
    const u = this.metrics.length > 1 ? '' : unitLabel(m.shown || m.unit);
    return what + (u ? ` (${u})` : '');
  }

  // The name over a metric's columns when there are several: "Ir (instructions)".
  group(m) { return metricTitle(m); }

  // A value's text in the number form, and its exact text (the cell's title); mark: a prefix
  // ("~": a call-graph estimate).
  cell(v, mi, mark) {
    const m = this.metrics[mi];
    const [shown, exact] = fitCost(v, m.shown || m.unit);
    return [(mark || '') + shown, exact];
  }

  text(v, m, mark) { return (mark || '') + fitCost(v, m.shown || m.unit)[0]; }

  // Whether text in column mi needs a wider column (then it is widened).
  fits(mi, text) {
    const w = Math.ceil(textWidth(text, 'tt-num') + PAD);
    if (w <= this.px[mi]) return true;
    this.px[mi] = w;
    return false;
  }

  // The CSS width of metric mi's number columns.
  width(mi) { return `max(var(--num-w, 86px), ${this.px[mi] || 0}px)`; }
}

// The flame graph of the current query (api/flame), on a canvas. Not centered: the top-down
// tree grows upward from "(all)". Centered (speedscope's sandwich): the center's callees grow
// upward from the center row and its callers hang below it as an icicle; the center row is
// outlined across the graph and the toolbar gives its total. "Icicle" (pane key fi=1) turns
// it upside down (the root on top); "colour" by category (fc=category) fills each box with its
// function's category colour (the timeline's). Click zooms into a node (click its root or
// press Escape to zoom out); the search box highlights matches.
import { api, isAbort } from '../api.js';
import { ctx } from '../ctx.js';
import * as S from '../state.js';
import { h, clear, fmtCost, fmtPct, hashColor, fitText, sizeCanvas, categoryColor, ink } from '../util.js';
import { paneFailed, paneOk, showTooltip, moveTooltip, hideTooltip, showMenu } from '../ui.js';
import { copyText } from '../util.js';
import { rowScope, transformItems } from '../rowmenu.js';

const RH = 17;
const PAD = 6;
const CENTER_FILL = '#f5c542'; // the center row of a sandwich (gold)

// A differential flame graph's fill (serve --base): red where the node grew against the base,
// blue where it shrank, by its change as a share of the whole (the profile's total, as
// differential flame graphs colour: a -0.4 % change stays pale whatever the largest delta), on
// a log scale from DIFF_FLOOR (below: grey, no change worth a colour) to DIFF_FULL (the
// deepest); grey when equal.
export const DIFF_FLOOR = 0.001;
export const DIFF_FULL = 0.1;
export function diffShade(share) {
  const a = Math.abs(share);
  if (!(a >= DIFF_FLOOR)) return 0;
  return Math.min(1, (0.15 + 0.85 * Math.log(a / DIFF_FLOOR) / Math.log(DIFF_FULL / DIFF_FLOOR)));
}
export function diffColor(delta, whole) {
  const k = whole > 0 ? diffShade(delta / whole) : 0;
  if (!k) return 'rgb(225,225,228)';
  const c = Math.round(225 - 190 * k);
  return delta > 0 ? `rgb(255,${c},${c})` : `rgb(${c},${c},255)`;
}

// The legend of those colours: swatches from -10 % to +10 % of the whole, the floor's grey
// between.
function diffLegend() {
  const shares = [-DIFF_FULL, -0.01, -DIFF_FLOOR, 0, DIFF_FLOOR, 0.01, DIFF_FULL];
  const pct = (x) => (x > 0 ? '+' : x < 0 ? '−' : '') + `${Math.abs(x * 100)}%`;
  return h('span', { class: 'diff-legend', title: `The change of a box against the base, as a share of the whole profile (its total): grey within ±${DIFF_FLOOR * 100}%, the deepest from ±${DIFF_FULL * 100}%` },
    h('span', { class: 'dim', text: 'shrank' }),
    ...shares.map((x) => h('span', { class: 'diff-swatch', style: { background: diffColor(x, 1) }, text: x ? pct(x) : `±${DIFF_FLOOR * 100}%` })),
    h('span', { class: 'dim', text: 'grew' }));
}

function layout(root) {
  // Flatten to [{node, depth, x0, x1, parent}] with x in [0, 1] of the root's total.
  const out = [];
  if (!root) return { items: out, depth: 0 };
  const total = root.total || 1;
  let maxDepth = 0;
  const walk = (node, depth, x0, parent) => {
    const x1 = x0 + node.total / total;
    const item = { node, depth, x0, x1, parent };
    out.push(item);
    if (depth > maxDepth) maxDepth = depth;
    const kids = (node.children || []).slice().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    let x = x0;
    for (const k of kids) {
      walk(k, depth + 1, x, item);
      x += k.total / total;
    }
  };
  walk(root, 0, 0, null);
  return { items: out, depth: maxDepth + 1 };
}

export class FlamePane {
  constructor() {
    this.gen = 0;
    this.lastKey = null;
    this.data = null;
    this.zoom = { callees: null, callers: null };
    this.search = '';
    this.el = h('div', { class: 'pane' });
    this.searchBox = h('input', { type: 'search', placeholder: 'Highlight functions (/)', 'aria-label': 'Search' });
    this.searchBox.addEventListener('input', () => { this.search = this.searchBox.value.toLowerCase(); this.draw(); });
    this.info = h('span', { class: 'flame-info' });
    this.resetBtn = h('button', { class: 'small', text: 'Reset zoom', onclick: () => this.resetZoom() });
    // serve --base: colour by the delta against the base (pane key fd=0 turns it off)
    this.diffBox = h('input', { type: 'checkbox', onchange: () => {
      S.state.pane.fd = this.diffBox.checked ? null : '0';
      S.commit('pane', false);
      this.update(false);
    } });
    this.diffLabel = h('label', { class: 'ctl', title: 'Red: grew against the base; blue: shrank (widths of this profile)', hidden: true }, this.diffBox, ' differential (vs base)');
    this.legend = diffLegend();
    this.legend.hidden = true;
    // icicle (fi=1) and colour by category (fc=category): the pane's keys in the URL
    this.icicleBox = h('input', { type: 'checkbox', onchange: () => {
      S.state.pane.fi = this.icicleBox.checked ? '1' : null;
      S.commit('pane', false);
      this.draw(true);
    } });
    this.colorSel = h('select', { 'aria-label': 'Colour', onchange: () => {
      S.state.pane.fc = this.colorSel.value === 'category' ? 'category' : null;
      S.commit('pane', false);
      this.draw();
    } }, h('option', { value: 'function', text: 'function' }), h('option', { value: 'category', text: 'category' }));
    this.center = h('span', { class: 'flame-center', hidden: true });
    this.el.append(h('div', { class: 'pane-toolbar' }, this.searchBox, this.resetBtn,
      h('label', { class: 'ctl', title: 'The root on top, callees below it (an icicle graph)' }, this.icicleBox, ' icicle'),
      h('label', { class: 'ctl', title: 'Fill each box by its function (warm hues) or by its category (the timeline\'s colours)' }, 'colour', this.colorSel),
      this.diffLabel, this.legend, this.center, h('span', { class: 'spacer' }), this.info));
    this.wrap = h('div', { class: 'canvas-wrap', tabindex: '0' });
    this.canvas = h('canvas');
    this.wrap.append(this.canvas);
    this.el.append(this.wrap);
    this.canvas.addEventListener('mousemove', (e) => this.onMove(e));
    this.canvas.addEventListener('mouseleave', () => { this.hover = null; hideTooltip(); this.draw(); });
    this.canvas.addEventListener('click', (e) => this.onClick(e));
    this.canvas.addEventListener('contextmenu', (e) => this.onContext(e));
    this.wrap.addEventListener('keydown', (e) => { if (e.key === 'Escape') this.resetZoom(); });
    new ResizeObserver(() => this.draw()).observe(this.wrap);
  }
  focusSearch() { this.searchBox.focus(); this.searchBox.select(); }
  focus() { this.wrap.focus({ preventScroll: true }); }

  resetZoom() {
    this.zoom = { callees: null, callers: null };
    this.draw();
  }

  async update(force) {
    const params = S.queryParams('tree');
    const diff = !!ctx.profile.base && S.state.pane.fd !== '0';
    this.diffLabel.hidden = !ctx.profile.base;
    this.diffBox.checked = diff;
    if (diff) {
      params.push(['diff', 1]);
      if (S.state.pane.dn) params.push(['normalize', 1]);
    }
    const key = JSON.stringify(params);
    if (!force && key === this.lastKey) { this.draw(); return; }
    const gen = ++this.gen;
    ctx.status('computing…', this);
    let d;
    try {
	    // nodes narrower than a quarter pixel are left out: a zoom of 4x is still complete
	    const px = Math.max(1, Math.round((this.wrap.clientWidth || 800) * 4));
	    d = await api('flame', [...params, [ 'max-nodes', 20000 ], [ 'width', px ] ]);
    } catch (e) {
      if (gen !== this.gen || isAbort(e)) return;
      paneFailed(this, this.wrap, e.message);
      ctx.status('', this);
      return;
    }
    if (gen !== this.gen) return;
    paneOk(this, this.wrap);
    this.lastKey = key;
    this.data = d;
    this.up = layout(d.callees);
    this.down = layout(d.callers);
    this.zoom = { callees: null, callers: null };
    let n = this.up.items.length + this.down.items.length;
    ctx.status(`${n.toLocaleString('en-US')} nodes`, this);
    this.draw(true);
  }

  // Upside down (the pane's fi=1): the root on top.
  icicle() { return S.state.pane.fi === '1'; }

  // The center row's y: a flame sits at the bottom of the pane (it grows upward), an icicle at
  // the top; a sandwich is centred on its center row when it fits.
  centerY() {
    const above = this.icicle() ? Math.max(0, this.down.depth - 1) : this.up.depth - 1;
    return (this.offY || 0) + PAD + above * RH;
  }

  // Geometry of an item: side 'callees' grows upward from the center row, 'callers' downward
  // (an icicle: the other way).
  geom(item, side, width) {
    const z = this.zoom[side];
    const a = z ? z.x0 : 0, b = z ? z.x1 : 1;
    const x0 = ((item.x0 - a) / (b - a)) * width, x1 = ((item.x1 - a) / (b - a)) * width;
    const up = (side === 'callees') !== this.icicle();
    const y = up ? this.centerY() - item.depth * RH : this.centerY() + item.depth * RH;
    return { x0, x1, y };
  }

  // A box's category colour: its node's category, else the nearest caller's (frames without
  // one inherit it), else grey.
  categoryFill(it) {
    const cats = ctx.profile.categories || [];
    for (let x = it; x; x = x.parent) {
      const c = x.node.category;
      if (c !== undefined && c !== null && cats[c]) return categoryColor(cats[c].color);
    }
    return categoryColor('grey');
  }

  // scroll: show the center row (or the root) as on a first display
  draw(scroll) {
    if (!this.data) return;
    this.icicleBox.checked = this.icicle();
    this.colorSel.value = S.state.pane.fc === 'category' ? 'category' : 'function';
    const byCategory = this.colorSel.value === 'category';
    const width = this.wrap.clientWidth || 800;
    const rows = this.up.depth + Math.max(0, this.down.depth - 1);
    const content = PAD * 2 + rows * RH;
    const height = Math.max(this.wrap.clientHeight - 2, content);
    this.offY = 0;
    if (height > content) this.offY = this.down.depth > 1 ? Math.floor((height - content) / 2) : this.icicle() ? 0 : height - content;
    const c = sizeCanvas(this.canvas, width, height);
    c.clearRect(0, 0, width, height);
    c.font = '11px system-ui, sans-serif';
    c.textBaseline = 'middle';
    const total = this.data.total || 0;
    let matched = 0;
    const centered = !!this.data.callers;
    const diff = this.data.base_total !== undefined;
    this.legend.hidden = !diff;
    this.fills = new Map();
    const drawSide = (lay, side) => {
      for (const it of lay.items) {
        if (side === 'callers' && it.depth === 0) continue; // the center is drawn once
        const g = this.geom(it, side, width);
        if (g.x1 < 0 || g.x0 > width || g.x1 - g.x0 < 0.4) continue;
        const x0 = Math.max(0, g.x0), x1 = Math.min(width, g.x1);
        const name = it.node.name;
        const isRoot = it.depth === 0;
        const match = this.search && name.toLowerCase().includes(this.search);
        if (match && side === 'callees' && !(it.parent && it.parent.matchAbove)) { matched += it.node.total; }
        it.matchAbove = match || (it.parent && it.parent.matchAbove);
        let fill;
        if (isRoot) fill = centered ? CENTER_FILL : '#c8c8cf';
        else if (this.search && !match) fill = hashColor(name, true);
        else if (match) fill = '#5b8def';
        else if (diff) fill = diffColor(it.node.total - it.node.base, total);
        else fill = byCategory ? this.categoryFill(it) : hashColor(name, false);
        this.fills.set(it.node.key, fill);
        c.fillStyle = fill;
        c.fillRect(x0, g.y, Math.max(0.5, x1 - x0 - 0.5), RH - 1);
        if (this.hover && this.hover.item === it) {
          c.strokeStyle = '#0c0c0d';
          c.lineWidth = 1;
          c.strokeRect(x0 + 0.5, g.y + 0.5, Math.max(0.5, x1 - x0 - 1.5), RH - 2);
        }
        if (x1 - x0 > 28) {
          c.fillStyle = match ? '#fff' : '#1d1d1f';
          c.fillText(fitText(c, name, x1 - x0 - 6), x0 + 3, g.y + RH / 2);
        }
      }
    };
    drawSide(this.up, 'callees');
    if (this.down.items.length) drawSide(this.down, 'callers');
    if (centered) this.markCenter(c, width);
    const unit = this.data.shown || this.data.unit;
    let info = `${this.data.metric}: ${fmtCost(total, unit)}`;
    // the center: its name and total in the toolbar (of the whole: the query's)
    this.center.hidden = !centered;
    if (centered) {
      const ct = this.data.callees.total;
      clear(this.center).append(h('span', { class: 'flame-center-swatch' }), 'center ',
        h('b', { text: this.data.callees.name }), `: ${fmtCost(ct, unit)} ${this.data.metric} (${fmtPct(ct, total)} of ${fmtCost(total, unit)})`);
      info = this.icicle() ? 'callers above the center, callees below' : 'callees above the center, callers below';
    }
    if (diff) info += ` · vs base ${fmtCost(this.data.base_total, unit)}`;
    if (this.search) info += ` · matched ${fmtPct(matched, this.data.callees ? this.data.callees.total : total)}`;
    this.info.textContent = info;
    this.resetBtn.disabled = !this.zoom.callees && !this.zoom.callers;
    if (scroll) {
      requestAnimationFrame(() => {
        const y = this.centerY();
        if (this.offY) return;
        if (this.icicle() && this.down.depth <= 1) { this.wrap.scrollTop = 0; return; }
        const below = this.icicle() ? this.up.depth : this.down.depth;
        this.wrap.scrollTop = Math.max(0, y - this.wrap.clientHeight + RH * (below > 1 ? Math.min(below, 8) : 2));
      });
    }
  }

  // The center row of a sandwich: outlined, with a line across the whole width on both sides
  // (the callees' and the callers' halves meet there) and a label on the left.
  markCenter(c, width) {
    const y = this.centerY();
    c.save();
    c.strokeStyle = ink('#0c0c0d');
    c.lineWidth = 2;
    const g = this.geom(this.up.items[0], 'callees', width);
    c.strokeRect(Math.max(1, g.x0 + 1), y + 0.5, Math.min(width, g.x1) - Math.max(1, g.x0 + 1) - 1, RH - 2);
    c.strokeStyle = CENTER_FILL;
    c.setLineDash([6, 3]);
    c.lineWidth = 1;
    c.beginPath();
    c.moveTo(0, y - 1.5); c.lineTo(width, y - 1.5);
    c.moveTo(0, y + RH + 0.5); c.lineTo(width, y + RH + 0.5);
    c.stroke();
    c.restore();
  }

  hit(e) {
    if (!this.data) return null;
    const r = this.canvas.getBoundingClientRect();
    const x = e.clientX - r.left, y = e.clientY - r.top;
    const width = r.width;
    // rows from the center row (0) downward; the callees' side is above it (an icicle: below)
    const k = Math.floor((y - this.centerY()) / RH);
    const ice = this.icicle();
    let side, depth;
    if (k === 0 || (k < 0) !== ice) { side = 'callees'; depth = Math.abs(k); }
    else { side = 'callers'; depth = Math.abs(k); }
    const lay = side === 'callees' ? this.up : this.down;
    for (const it of lay.items) {
      if (it.depth !== depth) continue;
      const g = this.geom(it, side, width);
      if (x >= g.x0 && x < g.x1) return { item: it, side };
    }
    return null;
  }

  onMove(e) {
    const hit = this.hit(e);
    const prev = this.hover && this.hover.item;
    this.hover = hit;
    if ((hit && hit.item) !== prev) this.draw();
    if (!hit) { hideTooltip(); return; }
    const n = hit.item.node;
    const root = (hit.side === 'callees' ? this.data.callees : this.data.callers) || n;
    const unit = this.data.shown || this.data.unit;
    const el = h('div', null,
      h('div', { class: 'tt-title', text: n.name }),
      h('table', null,
        h('tr', null, h('td', { class: 'k', text: 'total' }), h('td', { class: 'num', text: `${fmtCost(n.total, unit)} (${fmtPct(n.total, root.total)})` })),
        h('tr', null, h('td', { class: 'k', text: 'self' }), h('td', { class: 'num', text: fmtCost(n.self, unit) })),
        n.base !== undefined ? h('tr', null, h('td', { class: 'k', text: 'base' }), h('td', { class: 'num', text: fmtCost(n.base, unit) })) : null,
        n.base !== undefined ? h('tr', null, h('td', { class: 'k', text: 'delta' }), h('td', { class: 'num', text: `${n.total - n.base > 0 ? '+' : ''}${fmtCost(n.total - n.base, unit)}` })) : null,
        h('tr', null, h('td', { class: 'k', text: 'side' }), h('td', { text: hit.side === 'callers' ? 'caller of the center' : (hit.item.depth === 0 ? 'root' : 'callee') }))));
    showTooltip(e.clientX, e.clientY, el);
    moveTooltip(e.clientX, e.clientY);
  }

  onClick(e) {
    const hit = this.hit(e);
    if (!hit) return;
    const it = hit.item;
    if (it.depth === 0) this.zoom = { callees: null, callers: null };
    else this.zoom[hit.side] = { x0: it.x0, x1: it.x1 };
    this.draw();
  }

  onContext(e) {
    const hit = this.hit(e);
    if (!hit) return;
    e.preventDefault();
    const n = hit.item.node;
    // the box's node: its scope (NAME@FILE:LINE for one of several functions of a name, file:,
    // module:, line: under another By), never its display name
    const sc = rowScope(n);
    const virtual = hit.item.depth === 0 || !sc;
    const a = ctx.actions;
    const path = [];
    for (let it = hit.item; it; it = it.parent) path.push(it.node.name);
    if (hit.side === 'callees') path.reverse();
    // the box as a row of the tree (its category inherited from the boxes below it)
    const asRow = (it) => (it && it.depth ? { row: it.node, parent: asRow(it.parent) } : null);
    showMenu(e.clientX, e.clientY, [
      { label: 'Set as center', key: 'c', disabled: virtual, action: () => a.setCenter(sc) },
      { label: 'Add to center', disabled: virtual, action: () => a.addCenter(sc) },
      'sep',
      ...(virtual ? [] : transformItems(asRow(hit.item))),
      'sep',
      { label: 'Zoom into it', action: () => { this.zoom[hit.side] = { x0: hit.item.x0, x1: hit.item.x1 }; this.draw(); } },
      { label: 'Copy stack', action: () => copyText(path.filter((x) => x !== '(all)').join('\n')) },
      { label: 'Copy name', action: () => copyText(n.name) },
    ]);
  }
}

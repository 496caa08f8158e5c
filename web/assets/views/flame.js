// The flame graph of the current query (api/flame), on a canvas. Not centered: the top-down
// tree grows upward from "(all)". Centered (speedscope's sandwich): the center's callees grow
// upward from the center row and its callers hang below it as an icicle. Click zooms into a
// node (click its root or press Escape to zoom out); the search box highlights matches.
import { api, isAbort } from '../api.js';
import { ctx } from '../ctx.js';
import * as S from '../state.js';
import { h, clear, fmtCost, fmtPct, hashColor, fitText, sizeCanvas } from '../util.js';
import { paneFailed, paneOk, showTooltip, moveTooltip, hideTooltip, showMenu } from '../ui.js';
import { copyText } from '../util.js';

const RH = 17;
const PAD = 6;

// A differential flame graph's fill (serve --base): red where the node grew against the base,
// blue where it shrank, the deeper the larger its delta against the largest one; grey when equal.
export function diffColor(delta, maxAbs) {
  if (!delta || !maxAbs) return 'rgb(225,225,228)';
  const c = Math.round(225 - 190 * Math.min(1, Math.abs(delta) / maxAbs));
  return delta > 0 ? `rgb(255,${c},${c})` : `rgb(${c},${c},255)`;
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
    this.el.append(h('div', { class: 'pane-toolbar' }, this.searchBox, this.resetBtn, this.diffLabel, h('span', { class: 'spacer' }), this.info));
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
    this.maxDelta = undefined;
    this.up = layout(d.callees);
    this.down = layout(d.callers);
    this.zoom = { callees: null, callers: null };
    let n = this.up.items.length + this.down.items.length;
    ctx.status(`${n.toLocaleString('en-US')} nodes`, this);
    this.draw();
    // Show the center row (or the root) on first display.
    requestAnimationFrame(() => {
      const y = this.centerY();
      if (this.offY) return;
      this.wrap.scrollTop = Math.max(0, y - this.wrap.clientHeight + RH * (this.down.depth > 1 ? Math.min(this.down.depth, 8) : 2));
    });
  }

  // The center row's y: the graph sits at the bottom of the pane (a flame grows upward); a
  // sandwich is centred on its center row when it fits.
  centerY() { return (this.offY || 0) + PAD + (this.up.depth - 1) * RH; }

  // Geometry of an item: side 'callees' grows upward from the center row, 'callers' downward.
  geom(item, side, width) {
    const z = this.zoom[side];
    const a = z ? z.x0 : 0, b = z ? z.x1 : 1;
    const x0 = ((item.x0 - a) / (b - a)) * width, x1 = ((item.x1 - a) / (b - a)) * width;
    const y = side === 'callees' ? this.centerY() - item.depth * RH : this.centerY() + item.depth * RH;
    return { x0, x1, y };
  }

  draw() {
    if (!this.data) return;
    const width = this.wrap.clientWidth || 800;
    const rows = this.up.depth + Math.max(0, this.down.depth - 1);
    const content = PAD * 2 + rows * RH;
    const height = Math.max(this.wrap.clientHeight - 2, content);
    this.offY = 0;
    if (height > content) this.offY = this.down.depth > 1 ? Math.floor((height - content) / 2) : height - content;
    const c = sizeCanvas(this.canvas, width, height);
    c.clearRect(0, 0, width, height);
    c.font = '11px system-ui, sans-serif';
    c.textBaseline = 'middle';
    const total = this.data.total || 0;
    let matched = 0;
    const centered = !!this.data.callers;
    const diff = this.data.base_total !== undefined;
    if (diff && this.maxDelta === undefined) {
      this.maxDelta = 0;
      for (const lay of [this.up, this.down])
        for (const it of lay.items) if (it.depth) this.maxDelta = Math.max(this.maxDelta, Math.abs(it.node.total - it.node.base));
    }
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
        if (isRoot) fill = centered ? '#f5c542' : '#c8c8cf';
        else if (this.search && !match) fill = hashColor(name, true);
        else if (match) fill = '#5b8def';
        else fill = diff ? diffColor(it.node.total - it.node.base, this.maxDelta) : hashColor(name, false);
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
    const unit = this.data.shown || this.data.unit;
    let info = `${this.data.metric}: ${fmtCost(total, unit)}`;
    if (centered) info += ' · center row in gold: callees above, callers below';
    if (diff) info += ` · vs base ${fmtCost(this.data.base_total, unit)}: red grew, blue shrank`;
    if (this.search) info += ` · matched ${fmtPct(matched, this.data.callees ? this.data.callees.total : total)}`;
    this.info.textContent = info;
    this.resetBtn.disabled = !this.zoom.callees && !this.zoom.callers;
  }

  hit(e) {
    if (!this.data) return null;
    const r = this.canvas.getBoundingClientRect();
    const x = e.clientX - r.left, y = e.clientY - r.top;
    const width = r.width;
    const cy = this.centerY();
    let side, depth;
    if (y < cy + RH) { side = 'callees'; depth = y >= cy ? 0 : Math.ceil((cy - y) / RH); }
    else { side = 'callers'; depth = Math.floor((y - cy) / RH); }
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
    const sc = n.scope;
    const virtual = hit.item.depth === 0 || !sc;
    const a = ctx.actions;
    const path = [];
    for (let it = hit.item; it; it = it.parent) path.push(it.node.name);
    if (hit.side === 'callees') path.reverse();
    showMenu(e.clientX, e.clientY, [
      { label: 'Set as center', key: 'c', disabled: virtual, action: () => a.setCenter(sc) },
      { label: 'Add to center', disabled: virtual, action: () => a.addCenter(sc) },
      'sep',
      { label: 'Include only samples with it', disabled: virtual, action: () => a.addFilter('include', sc) },
      { label: 'Drop samples with it', disabled: virtual, action: () => a.addFilter('drop', sc) },
      { label: 'Merge it', disabled: virtual, action: () => a.addFilter('merge', sc) },
      'sep',
      { label: 'Zoom into it', action: () => { this.zoom[hit.side] = { x0: hit.item.x0, x1: hit.item.x1 }; this.draw(); } },
      { label: 'Copy stack', action: () => copyText(path.filter((x) => x !== '(all)').join('\n')) },
      { label: 'Copy name', action: () => copyText(n.name) },
    ]);
  }
}

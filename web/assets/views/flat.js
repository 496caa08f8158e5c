// The flat tab (hpcviewer's flat view): module > file > function > line rows from api/view
// (view=flat), fetched in pages of 500 as they scroll into view; rows in the center marked.
import { api, isAbort } from '../api.js';
import { ctx } from '../ctx.js';
import * as S from '../state.js';
import { h, clear, fmtCost, fmtPct, unitLabel } from '../util.js';
import { paneError } from '../ui.js';
import { VList } from './vlist.js';
import { rowMenu, rowKey, inCenter, sourceOf } from '../rowmenu.js';
import { shortPath } from './tree.js';

const ROW_H = 18;
const PAGE = 500;
const NUM_W = 86, PCT_W = 60;

export class FlatPane {
  constructor() {
    this.gen = 0;
    this.lastKey = null;
    this.pages = new Map();
    this.loading = new Set();
    this.n = 0;
    this.sel = -1;
    this.el = h('div', { class: 'pane' });
    this.label = h('span', { class: 'dim' });
    this.el.append(h('div', { class: 'pane-toolbar' },
      h('span', { text: 'Every module, file, function and line with its own total (each sample counted once) and self' }),
      h('span', { class: 'spacer' }), this.label));
    this.tt = h('div', { class: 'tt' });
    this.head = h('div', { class: 'tt-head' });
    this.body = h('div', { class: 'tt-body', tabindex: '0' });
    this.tt.append(this.head, this.body);
    this.el.append(this.tt);
    this.list = new VList(this.body, ROW_H, (div, i) => this.renderRow(div, i));
    this.body.addEventListener('mousedown', (e) => { const i = this.idx(e); this.downIdx = i; if (i >= 0) this.select(i); });
    this.body.addEventListener('dblclick', (e) => {
      const r = this.rowOf(this.idx(e) >= 0 ? this.idx(e) : this.downIdx);
      const s = r && sourceOf(r);
      if (s !== null && s !== undefined) ctx.actions.openSource(s, r.line);
    });
    this.body.addEventListener('contextmenu', (e) => {
      const i = this.idx(e);
      const row = this.rowOf(i);
      if (!row) return;
      e.preventDefault();
      this.select(i);
      rowMenu({ key: row.key, row, parent: null }, e.clientX, e.clientY, {});
    });
    this.body.addEventListener('keydown', (e) => this.onKey(e));
  }
  focusSearch() {}
  focus() { this.body.focus({ preventScroll: true }); }

  idx(e) {
    const el = e.target.closest('.tt-row');
    return el && el.dataset.index !== undefined ? +el.dataset.index : -1;
  }
  rowOf(i) {
    if (i < 0) return null;
    const page = this.pages.get(Math.floor(i / PAGE));
    return page ? page[i % PAGE] || null : null;
  }
  select(i) {
    if (i === this.sel) { this.list.scrollTo(i); return; }
    this.sel = i;
    this.list.scrollTo(i);
    this.list.refresh(true);
    const row = this.rowOf(i);
    if (row) { S.state.sel = row.key; S.commit('sel', false); }
  }
  onKey(e) {
    if (!this.n) return;
    const page = Math.max(1, Math.floor(this.body.clientHeight / ROW_H) - 1);
    const moves = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
    if (e.key in moves) {
      this.select(Math.max(0, Math.min(this.n - 1, this.sel + moves[e.key])));
      e.preventDefault();
      return;
    }
    const row = this.rowOf(this.sel);
    if (row && rowKey(e, { key: row.key, row, parent: null }, {})) e.preventDefault();
  }

  renderHead(metrics) {
    clear(this.head);
    const sort = S.get1('sort') || 'self';
    const many = metrics.length > 1;
    metrics.forEach((m, mi) => {
      const u = unitLabel(m.unit);
      const suffix = (many ? ' ' + m.name : '') + (u ? ` (${u})` : '');
      const mk = (label, field, w) => {
        const el = h('div', { class: 'num' + (field && mi === 0 && field === sort ? ' sorted' : ''), style: { width: w + 'px', flex: 'none' }, text: label, title: `${label} ${m.name}${field && mi === 0 ? ' (click to sort)' : ''}` });
        if (field && mi === 0) el.addEventListener('click', () => { S.set('sort', field === 'self' ? null : field); ctx.actions.queryChanged(); });
        return el;
      };
      this.head.append(mk('Total' + suffix, 'total', NUM_W), mk('%', null, PCT_W), mk('Self' + suffix, 'self', NUM_W), mk('%', null, PCT_W));
    });
    this.head.append(h('div', { class: 'name', text: 'Module › file › function › line' }));
  }

  renderRow(div, i) {
    const row = this.rowOf(i);
    div.className = 'tt-row' + (i % 2 ? ' odd' : '') + (i === this.sel ? ' selected' : '') + (row && inCenter(row) ? ' in-center' : '');
    div.dataset.index = i;
    clear(div);
    if (!row) {
      this.ensurePage(Math.floor(i / PAGE));
      div.append(h('div', { class: 'dim', text: '…' }));
      return;
    }
    div.dataset.key = row.key;
    this.metrics.forEach((m, mi) => {
      div.append(
        h('div', { class: 'c-num c-total', style: { width: NUM_W + 'px', flex: 'none' }, text: fmtCost(row.total[mi], m.unit) }),
        h('div', { class: 'c-pct', style: { width: PCT_W + 'px', flex: 'none' }, text: fmtPct(row.total[mi], this.bases[mi]) }),
        h('div', { class: 'c-num c-self', style: { width: NUM_W + 'px', flex: 'none' }, text: fmtCost(row.self[mi], m.unit) }),
        h('div', { class: 'c-pct', style: { width: PCT_W + 'px', flex: 'none' }, text: fmtPct(row.self[mi], this.bases[mi]) }));
    });
    const extra = row.kind === 'function' && row.file ? `${shortPath(row.file)}${row.line ? ':' + row.line : ''}` : '';
    div.append(h('div', { class: 'name', title: row.scope || row.name },
      h('span', { style: { display: 'inline-block', width: (row.level || 0) * 14 + 4 + 'px' } }),
      row.kind !== 'function' ? h('span', { class: 'badge', text: row.kind }) : null,
      h('span', { class: 'nm', text: row.name }),
      extra ? h('span', { class: 'extra', text: extra }) : null));
  }

  async ensurePage(p) {
    if (this.pages.has(p) || this.loading.has(p)) return;
    this.loading.add(p);
    const gen = this.gen;
    try {
      const r = await api('view', [...S.queryParams('flat'), ['offset', p * PAGE], ['limit', PAGE]]);
      if (gen !== this.gen) return;
      this.pages.set(p, r.rows);
      this.list.refresh(true);
    } catch (e) {
      if (gen === this.gen && !isAbort(e)) ctx.actions.error(e.message);
    } finally {
      this.loading.delete(p);
    }
  }

  async update(force) {
    const params = S.queryParams('flat');
    const key = JSON.stringify(params);
    if (!force && key === this.lastKey) return;
    const gen = ++this.gen;
    ctx.status('computing…');
    let r;
    try {
      r = await api('view', [...params, ['offset', 0], ['limit', PAGE]]);
    } catch (e) {
      if (gen !== this.gen || isAbort(e)) return;
      this.lastKey = null;
      this.tt.hidden = true;
      if (!this.errorEl) { this.errorEl = h('div'); this.el.append(this.errorEl); }
      paneError(this.errorEl, e.message);
      ctx.status('');
      return;
    }
    if (gen !== this.gen) return;
    if (this.errorEl) { this.errorEl.remove(); this.errorEl = null; }
    this.tt.hidden = false;
    this.lastKey = key;
    this.metrics = r.metrics;
    const whole = S.get1('percent') === 'whole';
    this.bases = r.metrics.map((_, i) => (whole || !r.centered ? r.whole[i] : r.center_total[i]));
    this.pages = new Map([[0, r.rows]]);
    this.n = r.nr_rows ?? r.rows.length;
    this.renderHead(r.metrics);
    this.label.textContent = `${this.n.toLocaleString('en-US')} rows`;
    ctx.status(`${this.n.toLocaleString('en-US')} rows`);
    this.sel = -1;
    if (S.state.sel) this.sel = r.rows.findIndex((x) => x.key === S.state.sel);
    this.list.setCount(this.n);
  }
}

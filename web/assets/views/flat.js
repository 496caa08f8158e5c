// The flat tab (hpcviewer's flat view): module > file > function > line rows from api/view
// (view=flat), fetched in pages of 500 as they scroll into view; rows in the center marked.
// The same table shows any view kind whose output is flat rows (top: one ranked list). The
// Total and Self headers sort (the query's sort; the kind's own order when none is named).
import { isAbort } from '../api.js';
import { ctx } from '../ctx.js';
import * as S from '../state.js';
import { h, clear, fmtCost, fitCost, fmtPct, unitLabel } from '../util.js';
import { paneFailed, paneOk } from '../ui.js';
import { PagedTable } from './paged.js';
import { rowMenu, rowKey, inCenter, sourceOf } from '../rowmenu.js';
import { shortPath, linePart } from './tree.js';

const NUM_W = 'var(--num-w, 86px)', PCT_W = 'var(--pct-w, 66px)'; // resizable (app.js)

export class FlatPane extends PagedTable {
  // kind: the view kind's row of /api/profile's "views" (name, sort: its own order)
  constructor(kind) {
    super('view');
    this.kind = kind;
    this.el = h('div', { class: 'pane' });
    this.label = h('span', { class: 'dim' });
    this.el.append(h('div', { class: 'pane-toolbar' },
      h('span', { text: kind.name === 'flat' ? 'Every module, file, function and line with its own total (each sample counted once) and self' : `${kind.label}: one row each, ranked` }),
      h('span', { class: 'spacer' }), this.label));
    this.tt = h('div', { class: 'tt' });
    this.head = h('div', { class: 'tt-head' });
    this.body = h('div', { class: 'tt-body', tabindex: '0' });
    this.tt.append(this.head, this.body);
    this.el.append(this.tt);
    this.initList();
    this.body.addEventListener('keydown', (e) => this.onKey(e));
  }
  focusSearch() {}

  params() { return S.queryParams(this.kind.name); }
  open(r) {
    const s = sourceOf(r);
    if (s !== null && s !== undefined) ctx.actions.openSource(s, r.line);
  }
  openMenu(row, e) { rowMenu({ key: row.key, row, parent: null }, e.clientX, e.clientY, {}); }
  selected(row) { S.state.sel = row.key; S.commit('sel', false); }
  onKey(e) {
    if (!this.n) return;
    if (this.moveKey(e)) return;
    const row = this.rowOf(this.sel);
    if (row && rowKey(e, { key: row.key, row, parent: null }, {})) e.preventDefault();
  }

  renderHead(metrics) {
    clear(this.head);
    const own = this.kind.sort; // the order without a sort named
    const sort = S.get1('sort') || own;
    const many = metrics.length > 1;
    metrics.forEach((m, mi) => {
      const u = unitLabel(m.unit);
      const suffix = (many ? ' ' + m.name : '') + (u ? ` (${u})` : '');
      const mk = (label, field, w) => {
        const el = h('div', { class: 'num' + (field && mi === 0 && field === sort ? ' sorted' : ''), style: { width: w, flex: 'none' }, text: label, title: `${label} ${m.name}${field && mi === 0 ? ' (click to sort)' : ''}` });
        if (field && mi === 0) el.addEventListener('click', () => { S.set('sort', field === own ? null : [field]); ctx.actions.queryChanged(); });
        return el;
      };
      this.head.append(mk('Total' + suffix, 'total', NUM_W), mk('%', null, PCT_W), mk('Self' + suffix, 'self', NUM_W), mk('%', null, PCT_W));
    });
    this.head.append(h('div', { class: 'name', text: this.kind.name === 'flat' ? 'Module › file › function › line' : 'Name' }));
  }

  renderRow(div, i) {
    const row = this.rowOf(i);
    div.className = 'tt-row' + (i % 2 ? ' odd' : '') + (i === this.sel ? ' selected' : '') + (row && inCenter(row) ? ' in-center' : '');
    div.dataset.index = i;
    clear(div);
    if (!row) { this.placeholder(div, i); return; }
    div.dataset.key = row.key;
    div.dataset.level = row.level || 0;
    this.metrics.forEach((m, mi) => {
      div.append(
        h('div', { class: 'c-num c-total', style: { width: NUM_W, flex: 'none' }, text: fitCost(row.total[mi], m.unit)[0], title: fmtCost(row.total[mi], m.unit) }),
        h('div', { class: 'c-pct', style: { width: PCT_W, flex: 'none' }, text: fmtPct(row.total[mi], this.bases[mi]) }),
        h('div', { class: 'c-num c-self', style: { width: NUM_W, flex: 'none' }, text: fitCost(row.self[mi], m.unit)[0], title: fmtCost(row.self[mi], m.unit) }),
        h('div', { class: 'c-pct', style: { width: PCT_W, flex: 'none' }, text: fmtPct(row.self[mi], this.bases[mi]) }));
    });
    const extra = (row.kind === 'function' || row.kind === 'inline') && row.file ? shortPath(row.file) + linePart(row) : '';
    div.append(h('div', { class: 'name', title: row.scope || row.name },
      h('span', { style: { display: 'inline-block', width: (row.level || 0) * 14 + 4 + 'px' } }),
      row.kind !== 'function' ? h('span', { class: 'badge k-' + row.kind, text: row.kind }) : null,
      h('span', { class: 'nm', text: row.name }),
      extra ? h('span', { class: 'extra', text: extra }) : null));
  }

  async update(force) {
    const params = this.params();
    const key = JSON.stringify(params);
    if (!force && key === this.lastKey) return;
    const gen = ++this.gen;
    ctx.status('computing…', this);
    let r;
    try {
      r = await this.fetchPage(params, 0);
    } catch (e) {
      if (gen !== this.gen || isAbort(e)) return;
      paneFailed(this, this.tt, e.message);
      ctx.status('', this);
      return;
    }
    if (gen !== this.gen) return;
    paneOk(this, this.tt);
    this.lastKey = key;
    this.metrics = r.metrics;
    this.bases = r.base; // what the percentages are of, as the library computed it
    this.pages = new Map([[0, r.rows]]);
    this.n = r.nr_rows ?? r.rows.length;
    this.renderHead(r.metrics);
    this.label.textContent = `${this.n.toLocaleString('en-US')} rows`;
    ctx.status(`${this.n.toLocaleString('en-US')} rows`, this);
    this.sel = -1;
    if (S.state.sel) this.sel = r.rows.findIndex((x) => x.key === S.state.sel);
    this.list.setCount(this.n);
  }
}

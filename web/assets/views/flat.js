// The flat tab (hpcviewer's flat view): module > file > function > line rows from api/view
// (view=flat), fetched in pages of 500 as they scroll into view; rows in the center marked.
// The same table shows any view kind whose output is flat rows (top: one ranked list). The
// Total and Self headers sort (the query's sort; the kind's own order when none is named).
import { isAbort } from '../api.js';
import { ctx } from '../ctx.js';
import * as S from '../state.js';
import { h, clear, fmtPct } from '../util.js';
import { paneFailed, paneOk } from '../ui.js';
import { PagedTable } from './paged.js';
import { rowMenu, rowKey, inCenter, sourceOf } from '../rowmenu.js';
import { shortPath, linePart } from './tree.js';
import { NumCols } from './numcols.js';

const PCT_W = 'var(--pct-w, 66px)'; // resizable (app.js); the number columns fit their values

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
    this.groups = h('div', { class: 'tt-groups', hidden: true }); // the metrics' names
    this.body = h('div', { class: 'tt-body', tabindex: '0' });
    this.tt.append(this.groups, this.head, this.body);
    this.nums = new NumCols();
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

  // The number form changed (the top bar's switch): the columns fit the new texts.
  renumber() {
    if (!this.metrics) return;
    this.nums.reset(this.metrics, this.metrics.map((m, mi) => [this.bases[mi]]));
    this.renderHead(this.metrics);
    this.list.refresh(true);
  }

  renderHead(metrics) {
    clear(this.head);
    clear(this.groups);
    const own = this.kind.sort; // the order without a sort named
    const sort = S.get1('sort') || own;
    // several metrics: each one's name over its four columns
    const many = metrics.length > 1;
    this.groups.hidden = !many;
    metrics.forEach((m, mi) => {
      const NUM_W = this.nums.width(mi);
      if (many) this.groups.append(h('div', { class: 'tt-group', style: { width: `calc(2 * ${NUM_W} + 2 * ${PCT_W})`, flex: 'none' }, title: this.nums.group(m), text: this.nums.group(m) }));
      const mk = (label, field, w) => {
        const el = h('div', { class: 'num' + (field && mi === 0 && field === sort ? ' sorted' : ''), style: { width: w, flex: 'none' }, text: label, title: `${label} ${m.name}${field && mi === 0 ? ' (click to sort)' : ''}` });
        if (field && mi === 0) el.addEventListener('click', () => { S.set('sort', field === own ? null : [field]); ctx.actions.queryChanged(); });
        return el;
      };
      this.head.append(mk(this.nums.header('Total', m), 'total', NUM_W), mk('%', null, PCT_W), mk(this.nums.header('Self', m), 'self', NUM_W), mk('%', null, PCT_W));
    });
    if (many) this.groups.append(h('div', { class: 'name' }));
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
      const [tt, te] = this.nums.cell(row.total[mi], mi), [ss, se] = this.nums.cell(row.self[mi], mi);
      // a value wider than its column widens it (the header and the rows, next frame)
      if ((!this.nums.fits(mi, tt) | !this.nums.fits(mi, ss)) && !this.widen) {
        this.widen = requestAnimationFrame(() => { this.widen = 0; this.renderHead(this.metrics); this.list.refresh(true); });
      }
      const NUM_W = this.nums.width(mi);
      div.append(
        h('div', { class: 'c-num c-total', style: { width: NUM_W, flex: 'none' }, text: tt, title: te }),
        h('div', { class: 'c-pct', style: { width: PCT_W, flex: 'none' }, text: fmtPct(row.total[mi], this.bases[mi]) }),
        h('div', { class: 'c-num c-self', style: { width: NUM_W, flex: 'none' }, text: ss, title: se }),
        h('div', { class: 'c-pct', style: { width: PCT_W, flex: 'none' }, text: fmtPct(row.self[mi], this.bases[mi]) }));
    });
    // a line or a loop (named by its file and line, as hpcviewer names it): its function beside
    const extra = row.function ? 'in ' + row.function : (row.kind === 'function' || row.kind === 'inline') && row.file ? shortPath(row.file) + linePart(row) : '';
    div.append(h('div', { class: 'name', title: [row.name, row.function && 'function: ' + row.function, row.scope && 'scope: ' + row.scope].filter(Boolean).join('\n') },
      h('span', { style: { display: 'inline-block', width: (row.level || 0) * 14 + 4 + 'px' } }),
      row.kind !== 'function' && row.kind !== 'loop' ? h('span', { class: 'badge k-' + row.kind, text: row.kind }) : null,
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
    // the columns fit the base and the first page from the start (wider rows widen them)
    this.nums.reset(r.metrics, r.metrics.map((m, mi) => [r.base[mi], ...r.rows.slice(0, 100).flatMap((x) => [x.total[mi], x.self[mi]])]));
    this.renderHead(r.metrics);
    this.label.textContent = `${this.n.toLocaleString('en-US')} rows`;
    ctx.status(`${this.n.toLocaleString('en-US')} rows`, this);
    this.sel = -1;
    if (S.state.sel) this.sel = r.rows.findIndex((x) => x.key === S.state.sel);
    this.list.setCount(this.n);
  }
}

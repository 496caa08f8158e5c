// A table whose rows come from the server in pages of PAGE as they scroll into view (the flat
// tab, the marker table): the pages, the virtual list over this.body, the row under the mouse,
// the selection and the keys that move it. A pane extending it sets this.body and calls
// initList(), and gives params() (the query), renderRow(div, i), selected(row) (row i became
// the selection), open(row) (a double click) and openMenu(row, e) (a right click).
import { api, isAbort } from '../api.js';
import { ctx } from '../ctx.js';
import { h } from '../util.js';
import { VList } from './vlist.js';

export const ROW_H = 18;
export const PAGE = 500;

export class PagedTable {
  // endpoint: the api the pages come from (offset and limit added to params()).
  constructor(endpoint) {
    this.endpoint = endpoint;
    this.gen = 0;
    this.lastKey = null;
    this.pages = new Map();
    this.loading = new Set();
    this.n = 0;
    this.sel = -1;
  }

  initList() {
    this.list = new VList(this.body, ROW_H, (div, i) => this.renderRow(div, i));
    this.body.addEventListener('mousedown', (e) => { const i = this.idx(e); this.downIdx = i; if (i >= 0) this.select(i); });
    this.body.addEventListener('dblclick', (e) => {
      const row = this.rowOf(this.idx(e) >= 0 ? this.idx(e) : this.downIdx);
      if (row) this.open(row);
    });
    this.body.addEventListener('contextmenu', (e) => {
      const i = this.idx(e);
      const row = this.rowOf(i);
      if (!row) return;
      e.preventDefault();
      this.select(i);
      this.openMenu(row, e);
    });
  }
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
    if (row) this.selected(row);
  }
  // The arrow and page keys move the selection (true when e was one of them and there are rows).
  moveKey(e) {
    const page = Math.max(1, Math.floor(this.body.clientHeight / ROW_H) - 1);
    const moves = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
    if (!(e.key in moves) || !this.n) return false;
    this.select(Math.max(0, Math.min(this.n - 1, this.sel + moves[e.key])));
    e.preventDefault();
    return true;
  }

  // Row i is not in yet: fetch its page and show a placeholder meanwhile.
  placeholder(div, i) {
    this.ensurePage(Math.floor(i / PAGE));
    div.append(h('div', { class: 'dim', text: '…' }));
  }

  // Page p of the rows for params.
  fetchPage(params, p) {
    return api(this.endpoint, [...params, ['offset', p * PAGE], ['limit', PAGE]]);
  }

  async ensurePage(p) {
    if (this.pages.has(p) || this.loading.has(p)) return;
    this.loading.add(p);
    const gen = this.gen;
    try {
      const r = await this.fetchPage(this.params(), p);
      if (gen !== this.gen) return;
      this.pages.set(p, r.rows);
      this.list.refresh(true);
    } catch (e) {
      if (gen === this.gen && !isAbort(e)) ctx.actions.error(e.message);
    } finally {
      this.loading.delete(p);
    }
  }
}

// The whole-profile search box of the query bar (api/search: the library's scope matching over
// every function of the query, not only the rows already open). Typing lists the matching
// functions with their totals; Enter on one opens the heaviest path to it in the top-down tree,
// Enter without a choice opens the heaviest path to each match listed; "Set as center" (or
// shift+Enter) makes the text itself the center.
import { api, isAbort } from './api.js';
import { ctx } from './ctx.js';
import * as S from './state.js';
import { h, clear, fmtCost, fmtPct, debounce } from './util.js';

const LIMIT = 20;

export class SearchBox {
  constructor(input, drop) {
    this.input = input;
    this.drop = drop;
    this.gen = 0;
    this.resp = null;
    this.hot = -1;
    this.ac = null;
    this.ask = debounce(() => this.fetch(), 150);
    input.addEventListener('input', () => { this.hot = -1; if (input.value.trim()) this.ask(); else this.close(); });
    input.addEventListener('focus', () => { if (this.resp && input.value.trim()) this.drop.hidden = false; });
    input.addEventListener('blur', () => setTimeout(() => this.close(), 150));
    input.addEventListener('keydown', (e) => this.onKey(e));
  }

  close() { this.drop.hidden = true; }

  async fetch() {
    const text = this.input.value.trim();
    if (!text) return;
    const gen = ++this.gen;
    if (this.ac) this.ac.abort();
    this.ac = new AbortController();
    this.drop.dataset.state = 'busy';
    let resp;
    try {
      resp = await api('search', [...S.queryParams('tree'), ['text', text], ['limit', LIMIT]], { signal: this.ac.signal });
    } catch (e) {
      if (isAbort(e) || gen !== this.gen) return;
      resp = { text, matches: 0, rows: [], note: e.message };
    }
    if (gen !== this.gen) return;
    this.resp = resp;
    this.render();
    this.drop.dataset.state = 'ready';
  }

  render() {
    const r = this.resp;
    clear(this.drop);
    if (!r.rows.length) {
      this.drop.append(h('div', { class: 'sr-none', text: r.note ? `No match: ${r.note}` : `No function matches “${r.text}” in this query.` }));
    } else {
      const m = r.metrics[0];
      r.rows.forEach((row, i) => {
        const el = h('div', { class: 'sr-row' + (i === this.hot ? ' hot' : ''), dataset: { i, key: row.key || '' }, title: row.key ? 'Enter: open its heaviest path' : row.key_cut ? 'Its heaviest row is too deep to open from the search: center on it (its menu, or shift+Enter)' : 'No row of the top-down tree' },
          h('span', { class: 'sr-name', text: row.name }),
          h('span', { class: 'sr-place dim', text: row.file ? row.file.split('/').pop() + (row.line ? ':' + row.line : '') : row.module || '' }),
          h('span', { class: 'sr-num', text: fmtCost(row.total[0], m.shown || m.unit), title: `total ${m.name}` }),
          h('span', { class: 'sr-pct dim', text: fmtPct(row.total[0], r.base[0]) }));
        el.addEventListener('mousedown', (e) => { e.preventDefault(); this.open([row]); });
        this.drop.append(el);
      });
      const more = r.matches - r.rows.length;
      this.drop.append(h('div', { class: 'sr-foot dim', text: `${r.matches.toLocaleString('en-US')} match${r.matches === 1 ? '' : 'es'}${more > 0 ? ` (the ${r.rows.length} heaviest listed)` : ''} · Enter opens ${this.hot >= 0 ? 'this one' : 'each'} · shift+Enter sets the text as center` }));
    }
    const c = h('div', { class: 'sr-row sr-center', text: `Set “${r.text}” as the center` });
    c.addEventListener('mousedown', (e) => { e.preventDefault(); this.center(); });
    this.drop.append(c);
    this.drop.hidden = false;
  }

  onKey(e) {
    const rows = this.resp ? this.resp.rows : [];
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (!rows.length) return;
      this.hot = e.key === 'ArrowDown' ? Math.min(rows.length - 1, this.hot + 1) : Math.max(-1, this.hot - 1);
      this.render();
      e.preventDefault();
    } else if (e.key === 'Enter') {
      e.preventDefault();
      if (e.shiftKey) { this.center(); return; }
      // the answer for the text typed (an Enter typed fast comes before the debounce)
      const text = this.input.value.trim();
      if (!text) return;
      const go = () => {
        const list = this.hot >= 0 ? [rows[this.hot]] : this.resp.rows;
        this.open(list);
      };
      if (!this.resp || this.resp.text !== text) this.fetch().then(() => { if (this.resp && this.resp.text === text) go(); });
      else go();
    } else if (e.key === 'Escape') {
      this.close();
      this.input.blur();
    }
  }

  open(list) {
    const keys = list.filter((r) => r && r.key).map((r) => r.key);
    if (!keys.length) return;
    this.close();
    ctx.actions.reveal(keys);
  }

  center() {
    const text = this.input.value.trim();
    if (!text) return;
    this.close();
    ctx.actions.setCenter(text);
  }
}

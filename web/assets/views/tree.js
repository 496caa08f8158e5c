// The tree table of the top-down, bottom-up and butterfly views: a flat array of the visible
// rows (pre-order over the open rows) drawn by a VList, children fetched on demand.
import { h, clear, fmtPct } from '../util.js';
import { VList } from './vlist.js';
import { NumCols } from './numcols.js';

const ROW_H = 18;
// column widths: the percent column a CSS variable the header's resizer changes (app.js);
// "<0.01%" and "100%" fit it without an ellipsis. The number columns are as wide as their
// values (numcols.js), --num-w their minimum.
const PCT_W = 'var(--pct-w, 66px)';

export class TreeTable {
  // opts: {fetchChildren(key, offset) -> Promise<rows>, onSelect(node), onContext(node, x, y),
  //        onKey(e, node) -> bool (handled), onOpen(node) (double click on a leaf),
  //        isCenter(row), nameHeader, status(text)}
  constructor(opts) {
    this.opts = opts;
    this.metrics = [];
    this.bases = [];
    this.nodes = new Map();
    this.roots = [];
    this.open = new Set();
    this.flat = [];
    this.selKey = null;
    this.sort = null; // {field: 'total'|'self'|'name', m, asc}
    this.find = '';
    this.gen = 0;
    this.el = h('div', { class: 'tt' });
    this.head = h('div', { class: 'tt-head' });
    this.groups = h('div', { class: 'tt-groups', hidden: true }); // the metrics' names
    this.body = h('div', { class: 'tt-body', tabindex: '0' });
    this.el.append(this.groups, this.head, this.body);
    this.nums = new NumCols();
    this.list = new VList(this.body, ROW_H, (div, i) => this.renderRow(div, i));
    this.body.addEventListener('keydown', (e) => this.onKey(e));
    this.body.addEventListener('mousedown', (e) => this.onMouse(e));
    this.body.addEventListener('dblclick', (e) => this.onDbl(e));
    this.body.addEventListener('contextmenu', (e) => this.onContext(e));
  }

  // ---- data ----

  // rows: pre-order with depth (doc/api.md); open: the keys to show open (those whose
  // children are in rows; other loaded rows stay closed, their children kept for a click).
  setData(rows, metrics, bases, open) {
    this.gen++;
    if (this.expanding) { this.expanding.abort(); this.expanding = null; }
    const metricsChanged = JSON.stringify(metrics) !== JSON.stringify(this.metrics);
    this.metrics = metrics;
    this.bases = bases;
    this.nodes = new Map();
    this.roots = [];
    const stack = [];
    for (const row of rows) {
      const node = { key: row.key, row, depth: row.depth, parent: null, kids: row.children > 0 ? null : [] };
      while (stack.length && stack[stack.length - 1].depth >= row.depth) stack.pop();
      const parent = stack.length ? stack[stack.length - 1] : null;
      if (parent) {
        node.parent = parent;
        if (!parent.kids) parent.kids = [];
        parent.kids.push(node);
      } else {
        this.roots.push(node);
      }
      this.nodes.set(row.key, node);
      stack.push(node);
    }
    this.open = new Set();
    for (const k of open) {
      const n = this.nodes.get(k);
      if (n && n.kids && n.kids.length) this.open.add(k);
    }
    // the center row is always open (the server always sends its children)
    for (const n of this.roots) if (n.row.kind === 'center' && n.kids && n.kids.length) this.open.add(n.key);
    if (this.selKey && !this.nodes.has(this.selKey)) this.selKey = null;
    if (metricsChanged || !this.head.firstChild) {
      // the columns fit the base and the first rows from the start (wider rows widen them)
      this.nums.reset(metrics, metrics.map((m, mi) => [bases[mi], ...rows.slice(0, 50).flatMap((r) => [r.total[mi], r.self[mi]])]));
      this.renderHead();
    }
    this.reflatten();
  }

  empty() { return this.roots.length === 0; }

  // A note in place of the rows (an empty result).
  setNote(text) {
    if (!this.note) {
      this.note = h('div', { class: 'tt-empty' });
      this.body.append(this.note);
    }
    this.note.textContent = text || '';
    this.note.hidden = !text;
  }

  // The open keys to send with the next query (stable keys: the page keeps its open rows
  // when the center or a filter changes), lowest depth first, cut to a reasonable URL and to
  // the server's parameter count (an expand-all opens thousands: the rest reopen on demand).
  openKeys(maxChars = 6000, maxKeys = 200) {
    const keys = [...this.open].sort((a, b) => a.length - b.length);
    const out = [];
    let len = 0;
    for (const k of keys) {
      len += k.length + 6;
      if (len > maxChars || out.length >= maxKeys) break;
      out.push(k);
    }
    return out;
  }

  sortedKids(node) {
    const kids = node.kids || [];
    if (!this.sort) return kids;
    const { field, m, asc } = this.sort;
    const s = asc ? 1 : -1;
    // a "more" placeholder (rows not loaded yet) stays last
    const arr = kids.filter((k) => !isMore(k));
    if (field === 'name') arr.sort((a, b) => s * a.row.name.localeCompare(b.row.name));
    else arr.sort((a, b) => s * ((a.row[field][m] || 0) - (b.row[field][m] || 0)));
    for (const k of kids) if (isMore(k)) arr.push(k);
    return arr;
  }

  reflatten() {
    const flat = [];
    const walk = (nodes) => {
      for (const n of nodes) {
        flat.push(n);
        if (this.open.has(n.key) && n.kids) walk(this.sortedKids(n));
      }
    };
    const roots = this.sort ? this.sortedKids({ kids: this.roots }) : this.roots;
    walk(roots);
    this.flat = flat;
    this.index = new Map();
    flat.forEach((n, i) => this.index.set(n.key, i));
    this.list.setCount(flat.length);
    if (this.opts.status) this.opts.status(`${flat.length.toLocaleString('en-US')} rows shown`);
  }

  async ensureKids(node) {
    if (node.kids) return true;
    const gen = this.gen;
    const rows = await this.opts.fetchChildren(node.key);
    if (gen !== this.gen || this.nodes.get(node.key) !== node) return false;
    node.kids = [];
    for (const row of rows) {
      const kid = { key: row.key, row, depth: row.depth ?? node.depth + 1, parent: node, kids: row.children > 0 ? null : [] };
      node.kids.push(kid);
      this.nodes.set(row.key, kid);
    }
    return true;
  }

  // The next page of the rows a "more" placeholder stands for (api/children with its parent's
  // key and offset): they replace it, followed by a new placeholder when rows are still left.
  async loadMore(node) {
    if (node.loading || !this.nodes.has(node.key)) return;
    node.loading = true;
    this.list.refresh(true); // "(loading…)"
    const gen = this.gen;
    let rows;
    try {
      rows = await this.opts.fetchChildren(node.row.parent, node.row.offset);
    } catch (e) {
      node.loading = false;
      if (this.opts.onError) this.opts.onError(e);
      return;
    }
    if (gen !== this.gen || this.nodes.get(node.key) !== node) return;
    const list = node.parent ? node.parent.kids : this.roots;
    const at = list.indexOf(node);
    if (at < 0) return;
    const added = rows.map((row) => ({ key: row.key, row, depth: row.depth ?? node.depth, parent: node.parent, kids: row.children > 0 ? null : [] }));
    list.splice(at, 1, ...added);
    this.nodes.delete(node.key);
    for (const n of added) this.nodes.set(n.key, n);
    const wasSelected = this.selKey === node.key;
    if (wasSelected) this.selKey = added.length ? added[0].key : null;
    this.reflatten();
    if (wasSelected && added.length && this.opts.onSelect) this.opts.onSelect(added[0]);
  }

  async expand(node) {
    if (!node || !(node.row.children > 0)) return;
    try {
      if (!(await this.ensureKids(node))) return;
    } catch (e) {
      if (this.opts.onError) this.opts.onError(e);
      return;
    }
    this.open.add(node.key);
    this.reflatten();
  }

  collapse(node) {
    this.open.delete(node.key);
    this.reflatten();
  }

  toggle(node) {
    if (this.open.has(node.key)) this.collapse(node); else return this.expand(node);
  }

  // '*': every row below node in one request (opts.fetchSubtree: api/subtree, the server
  // opens the rows above its share threshold); a new query (setData) or Escape cancels it.
  async expandAll(node) {
    if (!node || !this.opts.fetchSubtree) return;
    if (this.expanding) this.expanding.abort();
    const ac = new AbortController();
    this.expanding = ac;
    const gen = this.gen;
    const t0 = performance.now();
    const tick = setInterval(() => {
      if (this.opts.status) this.opts.status(`expanding ${node.row.name}… ${((performance.now() - t0) / 1000).toFixed(1)} s (Esc cancels)`);
    }, 250);
    let resp;
    try {
      resp = await this.opts.fetchSubtree(node.key, ac.signal);
    } catch (e) {
      if (e.name !== 'AbortError' && this.opts.onError) this.opts.onError(e);
      return;
    } finally {
      clearInterval(tick);
      if (this.expanding === ac) this.expanding = null;
    }
    if (gen !== this.gen || ac.signal.aborted || this.nodes.get(node.key) !== node) return;
    // the rows come in pre-order under node: rebuild its subtree from them
    const stack = [node];
    node.kids = [];
    for (const row of resp.rows) {
      while (stack.length > 1 && stack[stack.length - 1].depth >= row.depth) stack.pop();
      const parent = stack[stack.length - 1];
      const kid = { key: row.key, row, depth: row.depth, parent, kids: row.children > 0 ? null : [] };
      if (!parent.kids) parent.kids = [];
      parent.kids.push(kid);
      this.nodes.set(row.key, kid);
      stack.push(kid);
    }
    const opened = (n) => {
      if (n.kids && n.kids.length && n.row.children > 0) this.open.add(n.key);
      for (const k of n.kids || []) if (k.kids && k.kids.length) opened(k);
    };
    opened(node);
    this.reflatten();
    // rows past the answer's budget (max-rows, or the keys of a deep chain: doc/api.md) come as
    // "more" placeholders, each loaded on a click
    const cut = resp.rows.reduce((n, r) => n + (r.kind === 'more' ? r.more : 0), 0);
    if (this.opts.status) this.opts.status(`${this.flat.length.toLocaleString('en-US')} rows shown · expanded ${resp.rows.length.toLocaleString('en-US')} rows in ${((performance.now() - t0) / 1000).toFixed(2)} s${cut ? ` · ${cut.toLocaleString('en-US')} more past the answer's budget (click a “more” row, or * again below it)` : ''}`);
    performance.mark('pv-expand-all-shown', { detail: resp.rows.length });
  }

  cancelExpand() {
    if (!this.expanding) return false;
    this.expanding.abort();
    this.expanding = null;
    if (this.opts.status) this.opts.status('expand all cancelled');
    return true;
  }

  // First display: the path to the row a view opens on is open (the view's first=1, its keys
  // in "opened"); that row (its "selected": the library's rule) is selected, unless one is.
  selectFirst(key) {
    const n = key ? this.nodes.get(key) : null;
    if (n && !this.selKey) this.select(n, false);
  }

  // ---- selection ----

  selected() { return this.selKey ? this.nodes.get(this.selKey) || null : null; }

  select(node, notify = true) {
    if (node && node.key === this.selKey) {
      if (this.index.has(node.key)) this.list.scrollTo(this.index.get(node.key));
      return;
    }
    this.selKey = node ? node.key : null;
    if (node && this.index.has(node.key)) this.list.scrollTo(this.index.get(node.key));
    this.list.refresh(true);
    if (notify && this.opts.onSelect) this.opts.onSelect(node);
  }

  // Select a key, opening its ancestors when they are loaded.
  selectKey(key, notify = false) {
    const node = this.nodes.get(key);
    if (!node) return false;
    for (let p = node.parent; p; p = p.parent) this.open.add(p.key);
    this.reflatten();
    this.select(node, notify);
    return true;
  }

  focus() { this.body.focus({ preventScroll: true }); }

  setFind(text) {
    this.find = (text || '').toLowerCase();
    this.list.refresh(true);
  }
  findNext(back) {
    if (!this.find) return;
    const n = this.flat.length;
    const start = this.selKey && this.index.has(this.selKey) ? this.index.get(this.selKey) : -1;
    for (let j = 1; j <= n; j++) {
      const i = ((start + (back ? -j : j)) % n + n) % n;
      if (this.flat[i].row.name.toLowerCase().includes(this.find)) {
        this.select(this.flat[i]);
        return;
      }
    }
  }

  // ---- drawing ----

  // The number form changed (the top bar's switch): the columns fit the new texts.
  renumber() {
    this.nums.reset(this.metrics, this.metrics.map((m, mi) => [this.bases[mi]]));
    this.renderHead();
    this.list.refresh(true);
  }

  renderHead() {
    clear(this.head);
    clear(this.groups);
    const cols = [];
    // several metrics: each one's name over its four columns (hpcviewer's header), so
    // "Total" and "Self" need not repeat it
    const many = this.metrics.length > 1;
    this.groups.hidden = !many;
    this.metrics.forEach((m, mi) => {
      const w = this.nums.width(mi);
      if (many) this.groups.append(h('div', { class: 'tt-group', style: { width: `calc(2 * ${w} + 2 * ${PCT_W})`, flex: 'none' }, title: this.nums.group(m), text: this.nums.group(m) }));
      cols.push(this.headCell(this.nums.header('Total', m), w, 'total', mi, m.name));
      cols.push(this.headCell('%', PCT_W, 'total', mi, m.name));
      cols.push(this.headCell(this.nums.header('Self', m), w, 'self', mi, m.name));
      cols.push(this.headCell('%', PCT_W, 'self', mi, m.name));
    });
    if (many) this.groups.append(h('div', { class: 'name' }));
    const name = h('div', { class: 'name', title: 'Sort by name' }, this.opts.nameHeader || 'Function');
    name.addEventListener('click', () => this.setSort('name', 0));
    cols.push(name);
    this.head.append(...cols);
    this.markSorted();
  }

  headCell(label, w, field, m, metric) {
    const el = h('div', { class: 'num', style: { width: w, flex: 'none' }, title: `${label === '%' ? 'percent of ' + field : label} ${metric} (click to sort)`, dataset: { field, m } }, label);
    el.addEventListener('click', () => this.setSort(field, m));
    return el;
  }

  setSort(field, m) {
    const cur = this.sort;
    if (cur && cur.field === field && cur.m === m) {
      if (cur.asc === (field === 'name')) this.sort = { field, m, asc: !cur.asc };
      else this.sort = null; // third click: the server's order
    } else {
      this.sort = { field, m, asc: field === 'name' };
    }
    this.markSorted();
    this.reflatten();
    const sel = this.selected();
    if (sel && this.index.has(sel.key)) this.list.scrollTo(this.index.get(sel.key));
  }

  markSorted() {
    for (const c of this.head.children) {
      const s = this.sort;
      const on = s && c.dataset.field === s.field && (s.field === 'name' || +c.dataset.m === s.m) && !c.textContent.startsWith('%');
      const isName = c.classList.contains('name');
      const onName = s && s.field === 'name' && isName;
      c.classList.toggle('sorted', !!(on || onName));
      c.classList.toggle('asc', !!(s && s.asc));
    }
  }

  // Fills a row div; its cells are made once per div and then only updated (scrolling a
  // page of rows a frame makes no new elements).
  renderRow(div, i) {
    const node = this.flat[i];
    const row = node.row;
    const sel = node.key === this.selKey;
    let cls = 'tt-row' + (i % 2 ? ' odd' : '') + (sel ? ' selected' : '');
    if (this.opts.isCenter && this.opts.isCenter(row)) cls += ' in-center';
    if (this.find && row.name.toLowerCase().includes(this.find)) cls += ' match';
    div.className = cls;
    div.dataset.key = node.key;
    div.dataset.depth = node.depth;
    div.dataset.index = i;
    let c = div._cells;
    if (!c || c.metrics !== this.metrics.length) {
      clear(div);
      c = div._cells = { metrics: this.metrics.length, nums: [] };
      for (let mi = 0; mi < c.metrics; mi++) {
        const cells = [
          h('div', { class: 'c-num c-total', style: { flex: 'none' } }),
          h('div', { class: 'c-pct c-total-pct', style: { width: PCT_W, flex: 'none' } }),
          h('div', { class: 'c-num c-self', style: { flex: 'none' } }),
          h('div', { class: 'c-pct c-self-pct', style: { width: PCT_W, flex: 'none' } }),
        ];
        div.append(...cells);
        c.nums.push(cells);
      }
      c.indent = h('span', { style: { display: 'inline-block' } });
      c.twisty = h('span', { class: 'twisty' });
      c.badge = h('span', { class: 'badge' });
      c.nm = h('span', { class: 'nm' });
      c.extra = h('span', { class: 'extra' });
      c.name = h('div', { class: 'name' }, c.indent, c.twisty, c.badge, c.nm, c.extra);
      div.append(c.name);
    }
    this.metrics.forEach((m, mi) => {
      const t = row.total[mi], s = row.self[mi];
      const cells = c.nums[mi];
      const [tt, te] = this.nums.cell(t, mi, row.estimated ? '~' : ''), [ss, se] = this.nums.cell(s, mi); // ~: a call-graph estimate
      // a value wider than its column widens it (the header and the rows, next frame)
      if ((!this.nums.fits(mi, tt) | !this.nums.fits(mi, ss)) && !this.widen) {
        this.widen = requestAnimationFrame(() => { this.widen = 0; this.renderHead(); this.list.refresh(true); });
      }
      const w = this.nums.width(mi);
      if (cells[0]._w !== w) { cells[0]._w = w; cells[0].style.width = w; cells[2].style.width = w; }
      setText(cells[0], tt);
      cells[0].title = te;
      setText(cells[1], fmtPct(t, this.bases[mi]));
      setText(cells[2], ss);
      cells[2].title = se;
      setText(cells[3], fmtPct(s, this.bases[mi]));
    });
    if (isMore(node)) {
      div.classList.add('more-row');
      // drawn means scrolled into view: ask for the rows it stands for
      if (!node.loading) queueMicrotask(() => this.loadMore(node));
    }
    const open = this.open.has(node.key);
    c.name.title = isMore(node) ? 'Rows not loaded yet: scroll to them or click to load them' : rowTitle(row);
    const indent = node.depth * 12 + 'px';
    if (c.indent.style.width !== indent) c.indent.style.width = indent;
    setText(c.twisty, row.children > 0 ? (open ? '▾' : '▸') : '');
    // a loop's name says it ("loop at loops.c: 1010", hpcviewer's): no badge
    const badge = row.kind && row.kind !== 'function' && row.kind !== 'center' && row.kind !== 'more' && row.kind !== 'loop' ? row.kind : '';
    setText(c.badge, badge);
    c.badge.className = badge ? 'badge k-' + badge : 'badge';
    c.badge.style.display = badge ? '' : 'none';
    setText(c.nm, isMore(node) ? `… ${row.more.toLocaleString('en-US')} more row${row.more === 1 ? '' : 's'}${node.loading ? ' (loading…)' : ''}` : row.name);
    const extra = extraText(row);
    setText(c.extra, extra);
    c.extra.style.display = extra ? '' : 'none';
  }

  rowAt(e) {
    const el = e.target.closest('.tt-row');
    if (!el || el.dataset.index === undefined) return null;
    return this.flat[+el.dataset.index] || null;
  }

  onMouse(e) {
    if (e.button !== 0) return;
    const node = this.rowAt(e);
    this.downNode = node;
    if (!node) return;
    if (isMore(node)) { this.loadMore(node); return; }
    if (e.target.classList.contains('twisty')) {
      this.toggle(node);
      e.preventDefault();
    }
    this.select(node);
  }

  onDbl(e) {
    const node = this.rowAt(e) || this.downNode; // the row may be redrawn between the clicks
    if (!node) return;
    if (node.row.children > 0) this.toggle(node);
    else if (this.opts.onOpen) this.opts.onOpen(node);
  }

  onContext(e) {
    const node = this.rowAt(e);
    if (!node || isMore(node)) return;
    e.preventDefault();
    this.select(node);
    this.focus();
    if (this.opts.onContext) this.opts.onContext(node, e.clientX, e.clientY);
  }

  onKey(e) {
    if (e.ctrlKey && e.key !== 'c' && e.key !== 'C') return;
    if (e.altKey || e.metaKey) return;
    const n = this.flat.length;
    if (!n) return;
    let i = this.selKey && this.index.has(this.selKey) ? this.index.get(this.selKey) : -1;
    const node = i >= 0 ? this.flat[i] : null;
    const page = Math.max(1, Math.floor(this.body.clientHeight / ROW_H) - 1);
    let handled = true;
    switch (e.key) {
      case 'ArrowDown': this.select(this.flat[Math.min(n - 1, i + 1)]); break;
      case 'ArrowUp': this.select(this.flat[Math.max(0, i - 1)]); break;
      case 'PageDown': this.select(this.flat[Math.min(n - 1, i + page)]); break;
      case 'PageUp': this.select(this.flat[Math.max(0, i - page)]); break;
      case 'Home': this.select(this.flat[0]); break;
      case 'End': this.select(this.flat[n - 1]); break;
      case 'ArrowRight':
        if (!node) { this.select(this.flat[0]); break; }
        if (node.row.children > 0 && !this.open.has(node.key)) this.expand(node);
        else if (this.open.has(node.key) && i + 1 < n) this.select(this.flat[i + 1]);
        break;
      case 'ArrowLeft':
        if (!node) break;
        if (this.open.has(node.key)) this.collapse(node);
        else if (node.parent) this.select(node.parent);
        break;
      case '*': this.expandAll(node || this.roots[0]); break;
      case 'Escape': handled = this.cancelExpand(); break;
      case 'Enter': if (node) this.toggle(node); break;
      default:
        handled = !!(this.opts.onKey && this.opts.onKey(e, node));
    }
    if (handled) {
      e.preventDefault();
      e.stopPropagation();
    }
  }

  destroy() { this.list.destroy(); }
}

// A placeholder for the rows of a list past the page the server sent (doc/api.md "more").
function isMore(node) { return node.row.kind === 'more'; }

function setText(el, text) {
  if (el._text !== text) {
    el._text = text;
    el.textContent = text;
  }
}

function extraText(row) {
  if (row.kind === 'file' || row.kind === 'module') return '';
  // a line or a loop is named by its file and line, as hpcviewer names it
  // ("pair_lj_cut_omp.cpp: 118"): its function beside the name, after the line number
  if (row.function) return 'in ' + row.function;
  const parts = [];
  if (row.file) parts.push(shortPath(row.file) + linePart(row));
  else if (row.module) parts.push(row.module);
  return parts.join(' ');
}

// ":LINE" or ":LINE:COLUMN" (JavaScript: two functions of one line differ by column), or ''
export function linePart(row) {
  if (!row.line) return '';
  return row.column ? `:${row.line}:${row.column}` : `:${row.line}`;
}

export function shortPath(p) {
  if (!p) return '';
  const s = p.replace(/^file:\/\//, '');
  const parts = s.split('/');
  return parts.length > 2 ? '…/' + parts.slice(-2).join('/') : s;
}

function rowTitle(row) {
  const lines = [row.name];
  if (row.function) lines.push('function: ' + row.function);
  if (row.module) lines.push('module: ' + row.module);
  if (row.file) lines.push('file: ' + row.file + linePart(row));
  if (row.scope) lines.push('scope: ' + row.scope);
  return lines.join('\n');
}

// The Diff tab (serve --base BASE FILE, doc/diff.md): the current query's view of this profile
// against the base, as /api/diff answers it (the library's matched rows: base, new, delta;
// rows of one side only marked). The pane keeps its own choices in the URL: dv (the view
// kind), dn=1 (normalize: compare shares), ds=1 (rows by the size of their delta).
import { api, isAbort } from '../api.js';
import { ctx } from '../ctx.js';
import * as S from '../state.js';
import { h, clear, fmtCost, fmtPct } from '../util.js';
import { paneFailed, paneOk } from '../ui.js';

// the view kinds, as /api/profile lists them (state.js: setViews)
const kinds = () => S.viewKinds().map((v) => v.name);
const OPEN_LEVELS = 3; // levels open on first display

function fmtDelta(v, unit) {
  const s = fmtCost(v, unit);
  return v > 0 ? '+' + s : s;
}

function fmtRel(base, delta) {
  if (!base) return delta ? 'new' : '—';
  const p = (100 * delta) / base;
  return (p > 0 ? '+' : '') + p.toFixed(2) + '%';
}

export class DiffPane {
  constructor() {
    this.gen = 0;
    this.lastKey = null;
    this.data = null;
    this.closed = new Set(); // paths of rows the user closed (or opened past OPEN_LEVELS)
    this.el = h('div', { class: 'pane' });
    this.kind = h('select', { 'aria-label': 'View', onchange: () => this.setPane('dv', this.kind.value === 'tree' ? null : this.kind.value) },
      ...kinds().map((k) => h('option', { value: k, text: k })));
    this.norm = h('input', { type: 'checkbox', onchange: () => this.setPane('dn', this.norm.checked ? '1' : null) });
    this.byDelta = h('input', { type: 'checkbox', onchange: () => this.setPane('ds', this.byDelta.checked ? '1' : null) });
    this.info = h('span', { class: 'flame-info' });
    this.el.append(h('div', { class: 'pane-toolbar' },
      h('label', { class: 'ctl' }, 'View ', this.kind),
      h('label', { class: 'ctl', title: 'Scale the base to the new total: deltas compare shares (pprof -normalize)' }, this.norm, ' normalize'),
      h('label', { class: 'ctl', title: 'Rows by the size of their delta' }, this.byDelta, ' sort by delta'),
      h('span', { class: 'spacer' }), this.info));
    this.wrap = h('div', { class: 'diff-wrap', tabindex: '0' });
    this.el.append(this.wrap);
  }
  focus() { this.wrap.focus({ preventScroll: true }); }

  setPane(k, v) {
    S.state.pane[k] = v;
    S.commit('pane', false);
    this.update(false);
  }

  params() {
    const pane = S.state.pane;
    const kind = kinds().includes(pane.dv) ? pane.dv : 'tree';
    const centered = S.centers().length > 0;
    const view = kind === 'butterfly' && !centered ? 'tree' : kind;
    const ps = S.queryParams(view).filter(([k]) => k !== 'sort' || !pane.ds);
    if (pane.ds) ps.push(['sort', 'delta']);
    if (pane.dn) ps.push(['normalize', 1]);
    ps.push(['max-rows', 20000]);
    return { kind, ps };
  }

  async update(force) {
    const { kind, ps } = this.params();
    this.kind.value = kind;
    this.norm.checked = !!S.state.pane.dn;
    this.byDelta.checked = !!S.state.pane.ds;
    const key = JSON.stringify(ps);
    if (!force && key === this.lastKey) return;
    const gen = ++this.gen;
    ctx.status('computing…');
    let d;
    try {
      d = await api('diff', ps);
    } catch (e) {
      if (gen !== this.gen || isAbort(e)) return;
      paneFailed(this, this.wrap, e.message);
      ctx.status('');
      return;
    }
    if (gen !== this.gen) return;
    paneOk(this, this.wrap);
    this.lastKey = key;
    this.data = d;
    this.render();
  }

  render() {
    const d = this.data;
    const m = d.metrics[0];
    const unit = (d.metrics && d.metrics[0] && d.metrics[0].shown) || d.unit;
    const base = ctx.profile.base ? ctx.profile.base.path.split('/').pop() : 'base';
    this.info.textContent = `${d.metric}: base ${fmtCost(m.base_total, unit)} · new ${fmtCost(m.new_total, unit)} · vs ${base}`;
    const col = d.column;
    const table = h('table', { class: 'diff-table' },
      h('thead', null, h('tr', null,
        h('th', { class: 'num', text: `base ${col}` }), h('th', { class: 'num', text: 'base%' }),
        h('th', { class: 'num', text: `new ${col}` }), h('th', { class: 'num', text: 'new%' }),
        h('th', { class: 'num', text: 'delta' }), h('th', { class: 'num', text: 'delta%' }),
        h('th', { text: 'name' }))));
    const body = h('tbody');
    table.append(body);
    let shown = 0;
    const addRows = (rows, depth, prefix) => {
      for (const r of rows) {
        const path = prefix + '\u0001' + r.name;
        const kids = r.children || [];
        const open = kids.length && (depth < OPEN_LEVELS) !== this.closed.has(path);
        const b = r.base[col], n = r.new[col], dl = r.delta[col];
        const toggle = h('span', { class: 'diff-toggle', text: kids.length ? (open ? '▾' : '▸') : '' });
        const tr = h('tr', { class: `diff-row side-${r.side || 'more'}${dl > 0 ? ' grew' : dl < 0 ? ' shrank' : ''}`,
          dataset: { depth: String(depth), side: r.side || 'more', path } },
          h('td', { class: 'num c-base', text: fmtCost(b, unit) }),
          h('td', { class: 'num c-basepct', text: fmtPct(b, m.base_scaled) }),
          h('td', { class: 'num c-new', text: fmtCost(n, unit) }),
          h('td', { class: 'num c-newpct', text: fmtPct(n, m.new_total) }),
          h('td', { class: 'num c-delta', text: fmtDelta(dl, unit) }),
          h('td', { class: 'num c-rel', text: fmtRel(b, dl) }),
          h('td', { class: 'c-name', style: { paddingLeft: `${4 + 14 * depth}px` } }, toggle,
            h('span', { class: 'nm', text: r.name }),
            r.side === 'base' ? h('span', { class: 'side-tag', text: 'base only' }) : null,
            r.side === 'new' ? h('span', { class: 'side-tag', text: 'new only' }) : null));
        if (kids.length) tr.addEventListener('click', () => {
          if (this.closed.has(path)) this.closed.delete(path); else this.closed.add(path);
          this.render();
        });
        body.append(tr);
        shown++;
        if (open) addRows(kids, depth + 1, path);
      }
    };
    if (d.callers) {
      body.append(h('tr', { class: 'diff-head' }, h('td', { colspan: 7, text: `callers of ${d.center ? d.center.label : 'the center'}` })));
      addRows(d.callers, 0, 'up:');
      body.append(h('tr', { class: 'diff-head' }, h('td', { colspan: 7, text: 'callees' })));
    }
    addRows(d.rows, 0, '');
    const top = this.wrap.scrollTop;
    clear(this.wrap).append(table);
    this.wrap.scrollTop = top;
    ctx.status(`${shown.toLocaleString('en-US')} rows`);
  }
}

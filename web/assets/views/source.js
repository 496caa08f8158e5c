// The source tab (api/source): a file the profile names (the hottest readable one when none is
// chosen: the server picks it), with the query's per-line total and self, hot lines shaded,
// the center's lines (line: scopes, the definition line of a function center, the line a row
// was opened at) highlighted; it scrolls to the line asked for, else the center function's
// definition, else the hottest line. A click on a line with a cost centers the query on it
// (its line:FILE:LINE scope), the file kept. Where the profile has addresses, an Address
// column gives each line's hottest instruction address; a click on it shows the line's
// instructions with their self costs under it (api/disasm: objdump of the binary when it is on
// the server's machine, else the note why not), a second click hides them. When no source file
// is readable, the hottest function's instructions from its binary alone (views/disasm.js).
import { api, isAbort } from '../api.js';
import { ctx } from '../ctx.js';
import * as S from '../state.js';
import { h, clear, fmtCost, fmtPct } from '../util.js';
import { paneError } from '../ui.js';
import { VList } from './vlist.js';
import { DisasmView } from './disasm.js';
import { textWidth } from './numcols.js';

const ROW_H = 17;
const NUM_W = 78; // at least; wider when the file's costs need it (never cut)
const ADDR_W = 130;

export class SourcePane {
  constructor() {
    this.gen = 0;
    this.lastKey = null;
    this.lines = [];
    this.el = h('div', { class: 'pane' });
    this.select = h('select', { 'aria-label': 'Source file' });
    this.select.addEventListener('change', () => {
      S.state.src = parseInt(this.select.value, 10);
      S.state.line = null;
      S.commit('src', false);
    });
    this.path = h('span', { class: 'source-path' });
    this.info = h('span', { class: 'dim' });
    this.fileLabel = h('span', { class: 'dim', text: 'File' });
    this.el.append(h('div', { class: 'pane-toolbar' }, this.fileLabel, this.select, this.path, h('span', { class: 'spacer' }), this.info));
    this.tt = h('div', { class: 'tt' });
    this.head = h('div', { class: 'tt-head' });
    this.body = h('div', { class: 'tt-body', tabindex: '0' });
    this.tt.append(this.head, this.body);
    this.msg = h('div');
    this.el.append(this.tt, this.msg);
    this.rows = [];
    this.open = new Map(); // line -> its instructions' rows, once asked
    this.list = new VList(this.body, ROW_H, (div, i) => this.renderRow(div, i));
    this.body.addEventListener('click', (e) => {
      const row = e.target.closest('.src-row');
      const l = row && this.rows[+row.dataset.i] && this.rows[+row.dataset.i].l;
      if (l && l.addr && e.target.closest('.c-addr')) { this.toggleDisasm(l.line); return; }
      if (!l || !l.scope || !this.data) return;
      S.state.src = this.data.id;
      S.state.line = l.line;
      ctx.actions.setCenter(l.scope);
    });
  }
  focusSearch() { this.select.focus(); }
  focus() { this.body.focus({ preventScroll: true }); }

  fillSelect() {
    const sources = (ctx.profile.sources || []).slice();
    sources.sort((a, b) => (b.available - a.available) || a.path.localeCompare(b.path));
    clear(this.select);
    for (const s of sources) {
      const o = h('option', { value: s.id, text: s.path + (s.available ? '' : '  (not available)') });
      if (!s.available) o.disabled = true;
      this.select.append(o);
    }
    this.filled = true;
  }

  note(text, isError) {
    this.tt.hidden = true;
    if (isError) paneError(this.msg, text);
    else { clear(this.msg); this.msg.append(h('div', { class: 'pane-note', text })); }
  }

  async update(force) {
    if (!this.filled) this.fillSelect();
    const sources = ctx.profile.sources || [];
    if (!sources.length) return this.binaryOnly('The profile names no source file.');
    let id = S.state.src;
    if (id === null || !sources.some((s) => s.id === id)) {
      if (!sources.some((s) => s.available)) {
        return this.binaryOnly(`None of the ${sources.length} source files the profile names is readable here (start the server with --source-root DIR to point at them).`);
      }
      id = null; // the server's choice: the hottest file it can read
    }
    if (this.disasm) this.disasm.el.hidden = true;
    if (id !== null) this.select.value = String(id);
    const params = [...S.queryParams(null), ...(id !== null ? [['file', id]] : [])];
    const key = JSON.stringify(params);
    if (!force && key === this.lastKey) { this.scrollToLine(); return; }
    const gen = ++this.gen;
    let d;
    try {
      d = await api('source', params);
    } catch (e) {
      if (gen !== this.gen || isAbort(e)) return;
      this.lastKey = null;
      this.note(e.message, true);
      return;
    }
    if (gen !== this.gen) return;
    this.lastKey = key;
    this.open = new Map();
    clear(this.msg);
    this.tt.hidden = false;
    this.data = d;
    this.select.value = String(d.id);
    this.lines = d.lines || [];
    this.metrics = d.metrics || [];
    this.path.textContent = d.path;
    let max = 0, sum = 0;
    for (const l of this.lines) if (l.total) { max = Math.max(max, l.total[0]); }
    for (const l of this.lines) if (l.self) sum += l.self[0];
    this.max = max;
    this.sum = sum;
    // line: centers in this file, and the definition lines of the functions the center names
    this.centerLines = centerLinesOf(d.path);
    this.defLines = d.center_lines || [];
    for (const l of this.defLines) this.centerLines.add(l);
    clear(this.head);
    const unit = this.metrics[0] && (this.metrics[0].shown || this.metrics[0].unit);
    const mname = this.metrics[0] ? this.metrics[0].name : '';
    // the columns fit the heaviest line's total (every other cost is at most it)
    this.numW = Math.max(NUM_W, Math.ceil(textWidth(fmtCost(max, unit), 'tt-num') + 14));
    this.head.append(h('div', { class: 'num', style: { width: '56px', flex: 'none' }, text: 'Line' }),
      h('div', { class: 'num', style: { width: this.numW + 'px', flex: 'none' }, text: 'Total', title: `Total ${mname}` }),
      h('div', { class: 'num', style: { width: this.numW + 'px', flex: 'none' }, text: 'Self', title: `Self ${mname}` }));
    // the address column: only when the profile has addresses (perf -F +srcline, pprof)
    this.addrs = !!d.addresses;
    if (this.addrs) this.head.append(h('div', { class: 'num src-addr-head', style: { width: ADDR_W + 'px', flex: 'none' }, text: 'Address', title: 'The hottest instruction address of the line (self), and how many more' }));
    this.head.append(h('div', { class: 'name', text: 'Source' }));
    this.unit = unit;
    this.info.textContent = `${this.lines.length.toLocaleString('en-US')} lines · self in this file ${fmtCost(Math.round(sum * 1000) / 1000, unit)} ${mname}`;
    this.rebuild();
    this.scrollToLine();
  }

  // No source file to show: the hottest function's instructions from its binary instead (or
  // the note why there are none), under why.
  binaryOnly(why) {
    this.select.hidden = true;
    this.fileLabel.hidden = true;
    this.tt.hidden = true;
    clear(this.msg);
    if (!this.disasm) {
      this.disasm = new DisasmView();
      this.el.append(this.disasm.el);
    }
    this.disasm.el.hidden = false;
    this.info.textContent = 'no source: disassembly';
    return this.disasm.show(why);
  }

  // the rows shown: each line, and under a line whose instructions were asked for, those
  rebuild() {
    this.rows = [];
    for (const l of this.lines) {
      this.rows.push({ l });
      const ins = this.open.get(l.line);
      if (ins) for (const r of ins) this.rows.push(r);
    }
    this.list.setCount(this.rows.length);
    this.list.refresh(true);
  }

  async toggleDisasm(line) {
    if (this.open.has(line)) { this.open.delete(line); this.rebuild(); return; }
    this.open.set(line, [{ note: 'disassembling…' }]);
    this.rebuild();
    const key = this.lastKey;
    let rows;
    try {
      const d = await api('disasm', [...S.queryParams(null), ['file', this.data.id], ['line', line]]);
      const here = (d.insns || []).filter((x) => x.here);
      rows = here.map((x) => ({ insn: x }));
      for (const n of d.notes || []) rows.push({ note: n });
      if (!rows.length) rows.push({ note: 'objdump places no instruction on this line' });
    } catch (e) {
      if (isAbort(e)) return;
      rows = [{ note: e.message }];
    }
    if (key !== this.lastKey || !this.open.has(line)) return;
    this.open.set(line, rows);
    this.rebuild();
  }

  scrollToLine() {
    let target = S.state.line;
    if (!target && this.defLines && this.defLines.length) target = this.defLines[0];
    if (!target && this.lines.length) {
      // the hottest line
      let best = null;
      for (const l of this.lines) if (l.total && (!best || l.total[0] > best.total[0])) best = l;
      target = best ? best.line : null;
    }
    if (!target) return;
    const i = this.rows.findIndex((r) => r.l && r.l.line === target);
    if (i < 0) return;
    requestAnimationFrame(() => {
      this.body.scrollTop = Math.max(0, i * ROW_H - this.body.clientHeight / 3);
      this.list.refresh(true);
    });
  }

  renderRow(div, i) {
    const r = this.rows[i];
    if (!r.l) return this.renderInsn(div, i, r);
    const l = r.l;
    const center = this.centerLines.has(l.line) || l.line === S.state.line;
    div.className = 'tt-row src-row' + (center ? ' center-line' : '') + (l.scope ? ' src-link' : '');
    div.dataset.line = l.line;
    div.dataset.i = i;
    div.title = l.scope ? `Click: center on ${l.scope}` : '';
    const heat = l.total && this.max ? l.total[0] / this.max : 0;
    div.style.background = center ? '' : heat ? `rgba(255, 79, 94, ${0.05 + 0.3 * heat})` : '';
    clear(div);
    div.append(
      h('div', { class: 'c-line num', style: { flex: 'none' }, text: String(l.line) }),
      h('div', { class: 'c-num', style: { width: this.numW + 'px', flex: 'none' }, text: l.total ? fmtCost(l.total[0], this.unit) : '', title: l.total ? fmtPct(l.total[0], this.sum) : '' }),
      h('div', { class: 'c-num', style: { width: this.numW + 'px', flex: 'none' }, text: l.self ? fmtCost(l.self[0], this.unit) : '' }));
    if (this.addrs) div.append(addrCell(l.addr, this.unit, this.open.has(l.line)));
    div.append(h('div', { class: 'c-text', text: l.text }));
  }

  // an instruction under its line: its self cost, address and objdump's text; or a note
  renderInsn(div, i, r) {
    div.className = 'tt-row src-row src-insn';
    div.dataset.i = i;
    delete div.dataset.line;
    div.title = '';
    div.style.background = '';
    clear(div);
    const x = r.insn;
    div.append(
      h('div', { class: 'c-line num', style: { flex: 'none' } }),
      h('div', { class: 'c-num', style: { width: this.numW + 'px', flex: 'none' } }),
      h('div', { class: 'c-num', style: { width: this.numW + 'px', flex: 'none' }, text: x && x.self ? fmtCost(x.self, this.unit) : '' }),
      h('div', { class: 'c-addr', style: { width: ADDR_W + 'px', flex: 'none' }, text: x ? x.addr : '' }),
      h('div', { class: 'c-text' + (x ? ' insn-text' : ' dim'), text: x ? x.text : r.note }));
  }
}

// A line's addresses (api/source's "addr"): the hottest, "+N" more, the range and costs on hover;
// a click shows or hides the line's instructions (open: ▾).
function addrCell(a, unit, open) {
  if (!a) return h('div', { class: 'c-addr', style: { width: ADDR_W + 'px', flex: 'none' } });
  const more = a.n > 1 ? ` +${a.n - 1}` : '';
  const range = a.n > 1 ? `${a.n} addresses ${a.lo}..${a.hi}; ` : '';
  return h('div', { class: 'c-addr src-disasm', style: { width: ADDR_W + 'px', flex: 'none' }, text: (open ? '▾ ' : '▸ ') + a.hot + more, title: `${range}hottest ${a.hot}: self ${fmtCost(a.hot_self, unit)}. Click: the line's instructions (disassembly)` });
}

// Lines the center names in this file: line:FILE:LINE scopes whose FILE ends the path.
function centerLinesOf(path) {
  const out = new Set();
  for (const c of S.centers()) {
    const m = /^line:(.*):(\d+)$/.exec(c);
    if (m && path && (path.endsWith(m[1]) || m[1].endsWith(path))) out.add(parseInt(m[2], 10));
  }
  return out;
}

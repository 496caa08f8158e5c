// Disassembly from the binary alone (the source tab when no source file is readable, as perf
// annotate, pprof's disasm and KCachegrind show it): api/disasm without a file, the
// instructions of the function with the most self cost at addresses in the query's view, each
// with its self cost (the hottest shaded), address, source line (objdump -l's) and text; or the
// note why there is none (no address, no binary, no objdump).
import { api, isAbort } from '../api.js';
import * as S from '../state.js';
import { ctx } from '../ctx.js';
import { h, clear, fmtCost, fmtPct } from '../util.js';
import { VList } from './vlist.js';

const ROW_H = 17;
const NUM_W = 78;
const ADDR_W = 130;
const LINE_W = 180;

export class DisasmView {
  constructor() {
    this.el = h('div', { class: 'disasm-view' });
    this.title = h('div', { class: 'pane-note disasm-title' });
    this.tt = h('div', { class: 'tt' });
    this.head = h('div', { class: 'tt-head' },
      h('div', { class: 'num', style: { width: NUM_W + 'px', flex: 'none' }, text: 'Self' }),
      h('div', { class: 'num', style: { width: '64px', flex: 'none' }, text: '%' }),
      h('div', { class: 'num', style: { width: ADDR_W + 'px', flex: 'none' }, text: 'Address' }),
      h('div', { style: { width: LINE_W + 'px', flex: 'none' }, text: 'Line' }),
      h('div', { class: 'name', text: 'Instruction' }));
    this.body = h('div', { class: 'tt-body', tabindex: '0' });
    this.tt.append(this.head, this.body);
    this.el.append(this.title, this.tt);
    this.rows = [];
    this.list = new VList(this.body, ROW_H, (div, i) => this.renderRow(div, i));
    this.gen = 0;
    this.key = null;
  }

  // Shows the instructions for the current query (why: the line above them); resolves once
  // they (or the note) are in. The element's data-state is "ready" then (tests wait for it).
  async show(why) {
    const params = S.queryParams(null);
    const key = JSON.stringify(params);
    if (key === this.key) return;
    const gen = ++this.gen;
    this.el.dataset.state = 'busy';
    clear(this.title).append(h('div', { text: why }), h('div', { class: 'dim', text: 'disassembling the hottest function…' }));
    let d;
    try {
      d = await api('disasm', params);
    } catch (e) {
      if (gen !== this.gen || isAbort(e)) return;
      this.key = null;
      clear(this.title).append(h('div', { text: why }), h('div', { class: 'pane-error', text: e.message }));
      this.tt.hidden = true;
      this.el.dataset.state = 'ready';
      return;
    }
    if (gen !== this.gen) return;
    this.key = key;
    const insns = d.insns || [];
    const funcs = [...new Set(insns.map((x) => x.func))];
    let sum = 0, max = 0;
    for (const x of insns) { sum += x.self; max = Math.max(max, x.self); }
    this.sum = sum;
    this.max = max;
    const m = (ctx.profile.metrics || []).find((x) => x.name === d.metric);
    this.unit = m ? m.unit : null;
    clear(this.title).append(h('div', { text: why }));
    if (insns.length) {
      this.title.append(h('div', { class: 'disasm-func' }, 'The hottest function\'s instructions (objdump of its binary): ',
        h('b', { text: funcs.join(', ') }), ` · self ${fmtCost(sum, this.unit)} ${d.metric || ''}${d.cut ? ' · cut by a bound' : ''}`));
    }
    for (const n of d.notes || []) this.title.append(h('div', { class: 'dim disasm-note', text: n }));
    this.rows = insns;
    this.tt.hidden = !insns.length;
    this.list.setCount(insns.length);
    this.list.refresh(true);
    // the hottest instruction in view
    let hot = 0;
    insns.forEach((x, i) => { if (x.self > insns[hot].self) hot = i; });
    requestAnimationFrame(() => {
      this.body.scrollTop = Math.max(0, hot * ROW_H - this.body.clientHeight / 3);
      this.list.refresh(true);
      this.el.dataset.state = 'ready';
    });
  }

  renderRow(div, i) {
    const x = this.rows[i];
    div.className = 'tt-row src-row disasm-row';
    div.dataset.addr = x.addr;
    const heat = this.max ? x.self / this.max : 0;
    div.style.background = heat ? `rgba(255, 79, 94, ${0.05 + 0.3 * heat})` : '';
    const line = x.line ? `${(x.file || '').split('/').pop()}:${x.line}` : '';
    clear(div);
    div.append(
      h('div', { class: 'c-num', style: { width: NUM_W + 'px', flex: 'none' }, text: x.self ? fmtCost(x.self, this.unit) : '' }),
      h('div', { class: 'c-num dim', style: { width: '64px', flex: 'none' }, text: x.self ? fmtPct(x.self, this.sum) : '' }),
      h('div', { class: 'c-addr', style: { width: ADDR_W + 'px', flex: 'none' }, text: x.addr }),
      h('div', { class: 'c-line-ref dim', style: { width: LINE_W + 'px', flex: 'none' }, text: line, title: x.file ? `${x.file}:${x.line}` : '' }),
      h('div', { class: 'c-text insn-text', text: x.text }));
  }
}

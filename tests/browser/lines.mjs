// Browser tests of per-line costs in the source pane (issue 15, point 4): a V8 profile's
// positionTicks and a callgrind file's line costs shown as the files and callgrind_annotate
// give them, the pane opening on the hottest file, and a click on a line centering the query on
// it. Called by test.mjs with its helpers (t: {test, serve, cli, waitRows, eq, assert, noError,
// OUT, SHOTS}); every expected figure is read from the profile itself or from the output of the
// tool that wrote it, never from profview.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const WORDFREQ = 'tests/data/chrome/node-wordfreq.cpuprofile';
const WORDFREQ_JS = 'tests/data/chrome/node-wordfreq.js';
const CALLGRIND = 'tests/data/callgrind/lines/lines.callgrind';
const ANNOTATE = 'tests/data/callgrind/lines/lines.callgrind.annotate';
const PERF_SRCLINE = 'tests/data/perf/srcline-by-hand.perf.txt';

const num = (s) => Number(String(s).replace(/,/g, ''));

// A small program built here in dir (prog.c, prog: gcc -O1 -g) whose work() loops 100 times;
// work's first address and its last byte (its ret), from nm, never assumed: {bin, work, last}.
export function workProgram(dir) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'prog.c'), [
    'volatile unsigned sink;',
    '__attribute__((noinline)) static unsigned work(unsigned x)',
    '{',
    '\tfor (int i = 0; i < 100; i++)',
    '\t\tx = x * 33 + (unsigned)i;',
    '\treturn x;',
    '}',
    'int main(void) { sink = work(sink); return 0; }', ''].join('\n'));
  const bin = path.join(dir, 'prog');
  execFileSync('gcc', ['-O1', '-g', '-o', bin, path.join(dir, 'prog.c')]);
  const nm = execFileSync('nm', ['-S', bin], { encoding: 'utf8' });
  const [, workHex, sizeHex] = /^([0-9a-f]+) ([0-9a-f]+) t work$/m.exec(nm);
  const work = parseInt(workHex, 16);
  return { bin, work, last: work + parseInt(sizeHex, 16) - 1 };
}

// The source pane's rows once drawn: [{line, center, link, total, self, text}]
async function sourceRows(page) {
  await page.waitForSelector('.pane[data-tab="source"][data-state="ready"] .src-row');
  return page.$$eval('.pane[data-tab="source"] .src-row', (els) => els.filter((e) => !e.hidden).map((e) => ({
    line: +e.dataset.line,
    center: e.classList.contains('center-line'),
    link: e.classList.contains('src-link'),
    total: e.children[1].textContent,
    self: e.children[2].textContent,
    text: e.querySelector('.c-text').textContent,
    addr: e.querySelector('.c-addr') ? e.querySelector('.c-addr').textContent.replace(/^[▸▾] /, '') : null,
  })));
}
// {line: self} of the rows whose self is shown and not 0
function selfByLine(rows) {
  const m = {};
  for (const r of rows) if (r.self !== '' && num(r.self) !== 0) m[r.line] = num(r.self);
  return m;
}

// The samples of each line of the V8 profile's nodes in `file`, from the file alone: a node's
// positionTicks ({line, ticks}), and its samples beyond them at the function's own line
// (callFrame.lineNumber is 0-based).
function v8Lines(profile, file) {
  const count = new Map();
  for (const id of profile.samples) count.set(id, (count.get(id) || 0) + 1);
  const m = {};
  const add = (line, n) => { if (n) m[line] = (m[line] || 0) + n; };
  for (const n of profile.nodes) {
    if (!n.callFrame.url.endsWith(file)) continue;
    let ticks = 0;
    for (const pt of n.positionTicks || []) { add(pt.line, pt.ticks); ticks += pt.ticks; }
    const samples = count.get(n.id) || 0;
    if (ticks > samples) throw new Error(`node ${n.id}: more ticks than samples`);
    add(n.callFrame.lineNumber + 1, samples - ticks);
  }
  return m;
}

// The leaf addresses of a perf script text with -F +srcline, from the text alone: per
// "FILE:LINE" the first frame's address (hexadecimal, as perf prints it) and its period summed,
// {"file:line": {addr: cost}}.
function perfLeafAddrs(text) {
  const m = {};
  for (const sample of text.split(/\n\s*\n/)) {
    const lines = sample.split('\n').filter((l) => l && !l.startsWith('#'));
    const head = /\s(\d+)\s+\S+:\s*$/.exec(lines[0] || '');
    const frame = /^\s+([0-9a-f]+) /.exec(lines[1] || '');
    const src = /^ {2}(\S+):(\d+)$/.exec(lines[2] || '');
    if (!head || !frame || !src) continue;
    const k = `${src[1]}:${src[2]}`;
    m[k] = m[k] || {};
    m[k]['0x' + frame[1]] = (m[k]['0x' + frame[1]] || 0) + Number(head[1]);
  }
  return m;
}

// callgrind_annotate's per-line numbers of one source file ({line: cost}, lines with ".":
// none), from its "Auto-annotated source" section; "=> callee" lines are calls, not lines.
function annotateLines(text, file) {
  const lines = text.split('\n');
  let i = lines.findIndex((l) => l === `-- Auto-annotated source: ${file}`);
  if (i < 0) throw new Error(`no section for ${file}`);
  i += 4; // the rule, the event names, a blank line
  const m = {};
  let ln = 0;
  for (; i < lines.length && lines[i] !== ''; i++) {
    const x = /^\s*([\d,]+|\.) {2}(.*)$/.exec(lines[i]);
    if (!x) throw new Error(`annotate line ${i + 1}: ${lines[i]}`);
    if (x[2].startsWith('=> ')) continue;
    ln++;
    if (x[1] !== '.') m[ln] = num(x[1]);
  }
  return m;
}

export async function linesTests(context, t) {
  const { test, serve, cli, waitRows, eq, assert, noError } = t;
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));

  // the profile names file:///tmp/rec/wordfreq.js: a copy under that name beneath --source-root
  const root = path.join(t.OUT, 'lines-src');
  mkdirSync(root, { recursive: true });
  copyFileSync(WORDFREQ_JS, path.join(root, 'wordfreq.js'));
  const v8 = await serve(WORDFREQ, '--source-root', root);

  await test('lines: a .cpuprofile\'s per-line samples in the source pane equal its positionTicks', async () => {
    await page.goto(v8 + '?tab=source&metric=samples');
    const rows = await sourceRows(page);
    eq(await page.textContent('.pane[data-tab="source"] .source-path'), 'file:///tmp/rec/wordfreq.js', 'the pane opens on the profile\'s file');
    const want = v8Lines(JSON.parse(readFileSync(WORDFREQ, 'utf8')), '/wordfreq.js');
    eq(want[17], 104, 'countWords:17 in the file');
    eq(want[18], 83, 'countWords:18 in the file');
    eq(selfByLine(rows), want, 'self samples per line');
    // a line's total is at least its self; a line without samples shows nothing
    for (const r of rows) if (r.self !== '') assert(num(r.total) >= num(r.self), `line ${r.line}: total ${r.total} < self ${r.self}`);
    assert(rows.find((r) => r.line === 2).total === '', 'line 2 has no cost');
    await page.screenshot({ path: path.join(t.SHOTS, 'source-lines-v8.png') });
    await noError(page);
  });

  await test('lines: a click on a line centers the query on line:FILE:LINE and the tree re-centers', async () => {
    const scope = 'line:file:///tmp/rec/wordfreq.js:15';
    await page.goto(v8 + '?tab=source&metric=samples');
    await sourceRows(page);
    const row = page.locator('.pane[data-tab="source"] .src-row[data-line="15"]');
    assert(await row.evaluate((e) => e.classList.contains('src-link')), 'line 15 (a cost) can be clicked');
    await row.click();
    await page.waitForFunction((s) => new URL(location.href).searchParams.getAll('center').join() === s, scope);
    // the pane stays on the file, the line highlighted as the center, its costs the center's
    const rows = await page.waitForFunction(() => {
      const e = document.querySelector('.pane[data-tab="source"][data-state="ready"] .src-row[data-line="15"]');
      return e && e.classList.contains('center-line');
    });
    eq(await page.textContent('.pane[data-tab="source"] .source-path'), 'file:///tmp/rec/wordfreq.js', 'the file kept');
    assert(rows, 'line 15 highlighted');
    const tree = cli('tree', WORDFREQ, '--center', scope, '--metric', 'samples', '--json');
    eq(tree.center.total, 41, 'the CLI\'s center total (countWords:15 in top --by line)');
    await page.click('#tabs button[data-tab="top-down"]');
    const shown = await waitRows(page, 'top-down', (r) => r[0].key === 'c', 'the centered tree');
    eq(shown[0].name, tree.rows[0].name, 'the center row');
    eq(num(shown[0].total), 41, 'the center row\'s total');
    // the center's children, as the CLI's centered tree
    const kids = shown.filter((r) => r.depth === 1).map((r) => [r.name, num(r.total)]);
    eq(kids, tree.rows[0].children.map((r) => [r.name, r.total]), 'the center\'s children');
    assert(kids.length > 0, 'line 15 calls something');
    await noError(page);
  });

  const cg = await serve(CALLGRIND);
  const annotate = readFileSync(ANNOTATE, 'utf8');
  await test('lines: a callgrind file\'s per-line costs in the source pane equal callgrind_annotate\'s; the pane opens on the hottest file', async () => {
    // no file chosen: the hottest readable one, lines.c (lines.h: 163,840 of 1,248,271 Ir)
    await page.goto(cg + '?tab=source');
    let rows = await sourceRows(page);
    eq(await page.textContent('.pane[data-tab="source"] .source-path'), '/tmp/pvlines/lines.c', 'the hottest file');
    const c = annotateLines(annotate, 'lines.c');
    eq(c[17], 287500, 'annotate: lines.c:17');
    eq(selfByLine(rows), c, 'lines.c: Ir per line');
    // lines.h chosen in the file menu
    const h = annotateLines(annotate, 'lines.h');
    eq(h, { 4: 81920, 5: 81920 }, 'annotate: lines.h');
    const id = await page.$eval('.pane[data-tab="source"] select', (s) => [...s.options].find((o) => o.text.startsWith('/tmp/pvlines/lines.h')).value);
    await page.selectOption('.pane[data-tab="source"] select', id);
    await page.waitForFunction(() => document.querySelector('.pane[data-tab="source"] .source-path').textContent === '/tmp/pvlines/lines.h');
    rows = await sourceRows(page);
    eq(selfByLine(rows), h, 'lines.h: Ir per line');
    // centered on the header's code, the hottest file of the center's view is lines.h
    await page.goto(cg + '?tab=source&center=file:lines.h');
    await page.waitForFunction(() => {
      const p = document.querySelector('.pane[data-tab="source"][data-state="ready"] .source-path');
      return p && p.textContent === '/tmp/pvlines/lines.h';
    });
    rows = await sourceRows(page);
    eq(selfByLine(rows), h, 'lines.h under its center');
    await page.screenshot({ path: path.join(t.SHOTS, 'source-lines-callgrind.png') });
    await noError(page);
  });

  // perf -F +srcline has addresses: the source pane's address column gives each line's hottest
  const perfDir = path.join(t.OUT, 'lines-perf');
  mkdirSync(perfDir, { recursive: true });
  copyFileSync(PERF_SRCLINE, path.join(perfDir, 'prog.perf.txt'));
  writeFileSync(path.join(perfDir, 'prog.c'), Array.from({ length: 30 }, (_, i) => `/* prog.c line ${i + 1} */`).join('\n') + '\n');
  const perf = await serve(path.join(perfDir, 'prog.perf.txt'));
  await test('lines: a perf profile\'s source pane shows each hot line\'s address; a .cpuprofile has no address column', async () => {
    await page.goto(perf + '?tab=source');
    const rows = await sourceRows(page);
    eq(await page.textContent('.pane[data-tab="source"] .source-path'), 'prog.c', 'the hottest file');
    const want = perfLeafAddrs(readFileSync(PERF_SRCLINE, 'utf8'));
    eq(want['prog.c:11'], { '0x1134': 2000 }, 'prog.c:11 in the file: two samples at 1134');
    const shown = {};
    for (const r of rows) if (r.addr) shown[`prog.c:${r.line}`] = r.addr;
    const expect = {};
    for (const [k, a] of Object.entries(want)) if (k.startsWith('prog.c:')) expect[k] = Object.keys(a)[0];
    eq(shown, expect, 'the address of each line with self samples');
    const l11 = page.locator('.pane[data-tab="source"] .src-row[data-line="11"] .c-addr');
    assert((await l11.getAttribute('title')).includes('hottest 0x1134'), 'the address\'s tooltip');
    assert(await page.isVisible('.pane[data-tab="source"] .src-addr-head'), 'the Address header');
    await page.screenshot({ path: path.join(t.SHOTS, 'source-lines-perf-addr.png') });
    await noError(page);
    // a .cpuprofile has no addresses: no column
    await page.goto(v8 + '?tab=source&metric=samples');
    const v8rows = await sourceRows(page);
    assert(v8rows.every((r) => r.addr === null), 'no address cell');
    eq(await page.$$eval('.pane[data-tab="source"] .src-addr-head', (e) => e.length), 0, 'no Address header');
  });

  // disassembly: a binary built here (its addresses from nm, never assumed) and a callgrind file
  // written for it; a click on a line's address shows its instructions with the file's costs
  const dis = path.join(t.OUT, 'lines-disasm');
  const { work, last } = workProgram(dis);
  const hex = (a) => '0x' + a.toString(16);
  writeFileSync(path.join(dis, 'prog.callgrind'), ['# callgrind format', 'events: Ir', 'positions: instr line',
    `ob=${dis}/prog`, `fl=${dis}/prog.c`, 'fn=main', `${hex(work - 0x40)} 8 1`, 'cfn=work', `calls=1 ${hex(work)} 3`, `${hex(work - 0x40)} 8 12`,
    'fn=work', `${hex(work)} 3 7`, `${hex(last)} 6 5`, 'totals: 13', ''].join('\n'));
  // the same costs with the binary gone
  writeFileSync(path.join(dis, 'gone.callgrind'), readFileSync(path.join(dis, 'prog.callgrind'), 'utf8').replace(`ob=${dis}/prog`, 'ob=/nonexistent/prog'));
  const dsrv = await serve(path.join(dis, 'prog.callgrind'));
  await test('lines: a click on a line\'s address shows its instructions (objdump of the binary) with the file\'s costs', async () => {
    await page.goto(dsrv + '?tab=source');
    let rows = await sourceRows(page);
    eq(rows.find((r) => r.line === 3).addr, hex(work), 'line 3: work\'s first address (nm)');
    await page.click('.pane[data-tab="source"] .src-row[data-line="3"] .c-addr');
    await page.waitForSelector('.pane[data-tab="source"] .src-insn .insn-text');
    const insns = await page.$$eval('.pane[data-tab="source"] .src-insn', (els) => els.map((e) => [e.children[2].textContent, e.children[3].textContent, e.children[4].textContent]));
    assert(insns.length >= 1, 'instructions under line 3');
    eq(insns[0][0], '7', 'the first instruction\'s self: the file\'s 7');
    eq(insns[0][1], hex(work), 'at work\'s address');
    assert(insns.every((x) => x[2].length > 0), 'each with its text');
    // the instructions sit right under line 3
    const order = await page.$$eval('.pane[data-tab="source"] .src-row', (els) => els.map((e) => e.dataset.line || 'i'));
    eq(order[order.indexOf('3') + 1], 'i', 'under line 3');
    await page.screenshot({ path: path.join(t.SHOTS, 'source-disasm.png') });
    // a second click hides them
    await page.click('.pane[data-tab="source"] .src-row[data-line="3"] .c-addr');
    await page.waitForFunction(() => !document.querySelector('.pane[data-tab="source"] .src-insn'));
    await noError(page);
  });
  const gsrv = await serve(path.join(dis, 'gone.callgrind'));
  await test('lines: a missing binary is one note under the line, not an error', async () => {
    await page.goto(gsrv + '?tab=source');
    await sourceRows(page);
    await page.click('.pane[data-tab="source"] .src-row[data-line="3"] .c-addr');
    await page.waitForFunction(() => [...document.querySelectorAll('.pane[data-tab="source"] .src-insn')].some((e) => e.textContent.includes('not found')));
    const notes = await page.$$eval('.pane[data-tab="source"] .src-insn', (els) => els.map((e) => e.children[4].textContent));
    eq(notes, ['binary /nonexistent/prog not found: no disassembly'], 'the note');
    await noError(page);
  });

  await test('lines: no uncaught page error', async () => {
    eq(errors.filter((e) => !/ResizeObserver/.test(e)), [], 'page errors');
  });
  await page.close();
}

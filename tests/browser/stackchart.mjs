// Browser tests of issue 26, points 5 and 6: the trace's legibility (gaps and "<no activity>" as
// the background, light or dark; distinct stable colours with a legend; context labels at any
// count, hover for the rest, a context filter; the depth slider) and the Stack Chart tab (the
// selected thread's samples as boxes by depth over time: hover shows the stack, a click selects
// the call node, the timeline's selection zooms it, the center and the filters apply). Called by
// test.mjs with its helpers (t: {test, serve, cli, waitRows, eq, assert, noError, SHOTS}).
// Every expected figure is the CLI's (`profview trace ... --json`: the same library rules, an
// independent printer) or the file's; each page is shot in the light and the dark theme
// (SHOTS/trace5-*-light.png, -dark.png, trace5-no-activity-* the XML database's idle records;
// SHOTS/stackchart-*).
import path from 'node:path';

const LOOPS = 'tests/data/hpctoolkit/loops-cputime-t.d'; // 4 threads, a trace
const GPU = 'tests/data/hpctoolkit/issue-328'; // a CPU thread and a GPU stream, idle 63 % of the time
const GECKO = 'tests/data/firefox/argument-values.json'; // a Gecko profile (Firefox 147), its main thread
const PERF = 'tests/data/corpus/firefox/test.perf.gz'; // perf script of 17 threads
const COLL = 'tests/data/collapsed/contexts-4.txt'; // no sample times
const INLINE = 'tests/data/hpctoolkit/inline-pair/xml/inline.xml.db'; // 8 threads, "<no activity>" records

// the palette of util.js's traceColor and the two backgrounds (traceBlank)
const BG_LIGHT = [0xf4, 0xf4, 0xf6], BG_DARK = [0x1c, 0x1b, 0x22];

export async function stackChartTests(context, t) {
  const { test, serve, cli, waitRows, eq, assert, noError, SHOTS } = t;
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const TP = '.pane[data-tab="trace"]', SC = '.pane[data-tab="stack-chart"]';
  const ready = async (sel) => { await page.waitForSelector(`${sel}[data-state="ready"]`); await noError(page); };
  const param = (k) => new URL(page.url()).searchParams.get(k);
  async function shots(name, sel) {
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(200);
      await page.screenshot({ path: path.join(SHOTS, `${name}-${scheme}.png`) });
      if (sel) await page.locator(sel).screenshot({ path: path.join(SHOTS, `${name}-pane-${scheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.waitForTimeout(100);
  }
  // the canvas's pixel at CSS (x, y) as [r, g, b]
  const pixel = (sel, x, y) => page.$eval(sel, (cv, [x, y]) => {
    const d = cv.width / cv.getBoundingClientRect().width;
    return Array.from(cv.getContext('2d').getImageData(Math.floor(x * d), Math.floor(y * d), 1, 1).data.slice(0, 3));
  }, [x, y]);
  const hex = (rgb) => '#' + rgb.map((v) => v.toString(16).padStart(2, '0')).join('');
  // the colours the page gives function ids (util.js's traceColor)
  const colorOf = (ids, pg = page) => pg.evaluate(async (xs) => {
    const u = await import('./util.js');
    return xs.map((id) => u.traceColor(window.profview.state.p, id));
  }, ids);
  const legendOf = (pg = page) => pg.$$eval(`${TP} .trace-legend .trace-leg`, (els) => els.map((e) => [e.querySelector('.trace-leg-name').textContent, e.querySelector('.swatch').style.background, +e.dataset.id]));
  const win = () => page.evaluate(() => window.profview.panes.get('trace').winData.d);
  const unrun = (d) => d.rows.map((r) => { const o = []; for (let i = 0; i < r.length; i += 2) for (let k = 0; k < r[i + 1]; k++) o.push(r[i]); return o; });

  // ---- 5: trace legibility ----

  await test('trace legibility: gaps are the background (light, dark), functions their palette colour, the legend the visible functions', async () => {
    const u = await serve(GPU);
    await page.goto(u + '?tab=trace&td=2');
    await ready(TP);
    const d = await win();
    const want = cli('trace', GPU, '--window', `${d.t0}:${d.t1}`, '--size', `${d.width}x${d.height}`, '--depth', '2', '--json');
    eq(unrun(d), want.rows, 'every pixel is the CLI\'s');
    const blank = want.shares.find((s) => s.id === -1);
    assert(blank && blank.percent > 50, `the window is mostly gaps (an idle GPU stream): ${JSON.stringify(blank)}`);
    const box = await page.locator(`${TP} .trace-main`).boundingBox();
    const rows = unrun(d);
    // a gap pixel and a coloured pixel of each shown row, away from the labels (left) and
    // the row separators (the middle of a context's band)
    const sx = box.width / d.width, sy = box.height / d.height;
    const names = new Map(want.functions.map((f) => [f.id, f.name]));
    const probes = [];
    for (let y = 0; y < d.height; y++) {
      const gap = rows[y].findIndex((id, x) => id === -1 && x * sx > 300 && (x + 1 < d.width && rows[y][x + 1] === -1) && (x > 0 && rows[y][x - 1] === -1));
      if (gap >= 0) probes.push({ x: (gap + 0.5) * sx, y: (y + 0.5) * sy, id: -1 });
      const fn = rows[y].findIndex((id, x) => id >= 0 && x * sx > 300 && rows[y][x + 1] === id && rows[y][x - 1] === id);
      if (fn >= 0) probes.push({ x: (fn + 0.5) * sx, y: (y + 0.5) * sy, id: rows[y][fn] });
    }
    assert(probes.some((p) => p.id === -1) && probes.some((p) => p.id >= 0), `probes: ${JSON.stringify(probes)}`);
    const fnCols = await colorOf(probes.filter((p) => p.id >= 0).map((p) => p.id));
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(200);
      let k = 0;
      for (const p of probes) {
        const got = await pixel(`${TP} .trace-main`, p.x, p.y);
        if (p.id === -1) eq(got, scheme === 'light' ? BG_LIGHT : BG_DARK, `${scheme}: a gap at ${p.x},${p.y} is the background`);
        else eq(hex(got), fnCols[k++], `${scheme}: ${names.get(p.id)} in its colour`);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    // the legend: the functions of the window, most pixels first (the CLI's shares)
    const legend = await legendOf();
    const shownIds = want.shares.filter((s) => s.id >= 0).slice(0, 24).map((s) => s.id);
    eq(legend.map((l) => l[0]), shownIds.map((id) => names.get(id)), 'the legend');
    const cols = await colorOf(shownIds);
    eq(legend.map((l) => hex(l[1].match(/\d+/g).map(Number))), cols, 'the legend\'s swatches');
    // distinct hues: the 6 visible functions' colours differ, and none is the background's
    eq(cols.length, 6, 'six functions at depth 2');
    eq(new Set(cols).size, cols.length, `the legend's colours are distinct: ${cols}`);
    assert(!cols.includes(hex(BG_LIGHT)) && !cols.includes(hex(BG_DARK)), 'no function in the background\'s colour');
    // stable: at another depth a function keeps its colour, and the new ones differ
    await page.$eval(`${TP} .trace-depth-slider`, (e) => { e.value = '6'; e.dispatchEvent(new Event('input')); });
    await page.waitForFunction(() => new URLSearchParams(location.search).get('td') === '6');
    await ready(TP);
    const legend3 = await legendOf();
    eq(new Set(legend3.map((l) => l[1])).size, legend3.length, `distinct at depth 6: ${legend3.map((l) => l[1])}`);
    for (const [n, c] of legend3) {
      const i = legend.findIndex((l) => l[0] === n);
      if (i >= 0) eq(c, legend[i][1], `${n} keeps its colour at depth 6`);
    }
    assert(legend3.some((l) => l[0] === 'main'), 'main is in both');
    await shots('trace5-gpu', TP);
  });

  await test('trace legibility: an XML database\'s "<no activity>" records are the background (light, dark), and the stack says why', async () => {
    const u = await serve(INLINE);
    // its threads are idle ("<no activity>") before their first work, in the first 1.3 ms
    await page.goto(u + '?tab=trace&tw=0:2.5');
    await ready(TP);
    const d = await win();
    const want = cli('trace', INLINE, '--window', `${d.t0}:${d.t1}`, '--size', `${d.width}x${d.height}`, '--depth', String(d.depth), '--json');
    const rows = unrun(d);
    eq(rows, want.rows, 'every pixel is the CLI\'s');
    const box = await page.locator(`${TP} .trace-main`).boundingBox();
    const sx = box.width / d.width, sy = box.height / d.height, nc = d.c1 - d.c0;
    // per context (the middle pixel row of its band): a blank pixel the CLI's `trace --at` says
    // is "no activity", and a pixel in a function's colour, each inside a run of its kind
    const idle = [], busy = [];
    for (let c = 0; c < nc; c++) {
      const y = Math.floor(((c + 0.5) * d.height) / nc);
      let calls = 0, gotIdle = false, gotBusy = false;
      for (let x = 2; x + 2 < d.width && (!gotIdle || !gotBusy); x++) {
        const id = rows[y][x];
        if (x * sx < 300 || [-2, -1, 1, 2].some((k) => rows[y][x + k] !== id)) continue;
        const probe = { x: (x + 0.5) * sx, y: (y + 0.5) * sy, id, c: d.c0 + c, t: d.t0 + ((x + 0.5) * (d.t1 - d.t0)) / d.width };
        if (id >= 0 && !gotBusy) { busy.push(probe); gotBusy = true; }
        if (id === -1 && !gotIdle && calls < 4) {
          calls++;
          const st = cli('trace', INLINE, '--context', String(probe.c), '--at', probe.t.toFixed(6), '--json');
          if (st.state === 'no activity') {
            eq(st.frames.map((f) => f.name), ['<no activity>'], `context ${probe.c} at ${probe.t} ms: the stack`);
            eq(st.shown, false, 'not shown');
            idle.push(probe);
            gotIdle = true;
          }
        }
      }
    }
    assert(idle.length >= 1 && busy.length >= 1, `probes: ${idle.length} "no activity", ${busy.length} in a colour`);
    const fnCols = await colorOf(busy.map((p) => p.id));
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(200);
      for (const p of idle) eq(await pixel(`${TP} .trace-main`, p.x, p.y), scheme === 'light' ? BG_LIGHT : BG_DARK, `${scheme}: "<no activity>" of context ${p.c} at ${p.t} ms is the background`);
      for (const [k, p] of busy.entries()) eq(hex(await pixel(`${TP} .trace-main`, p.x, p.y)), fnCols[k], `${scheme}: context ${p.c} at ${p.t} ms in its function's colour`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert(!fnCols.includes(hex(BG_LIGHT)) && !fnCols.includes(hex(BG_DARK)), 'no function in the background\'s colour');
    // the legend names no "<no activity>"; a click there: the stack says the context is idle
    eq((await legendOf()).filter((l) => l[0] === '<no activity>'), [], 'no "<no activity>" in the legend');
    const p = idle[0];
    await page.mouse.click(box.x + p.x, box.y + p.y);
    await page.waitForFunction((sel) => /no activity \(idle\)/.test((document.querySelector(sel) || {}).textContent || ''), `${TP} .trace-stack-head`);
    await shots('trace5-no-activity', TP);
  });

  await test('trace legibility: 17 contexts in a short image: every Nth labelled, hover names the rest, a filter by pattern', async () => {
    const small = await context.newPage();
    small.on('pageerror', (e) => errors.push(e.message));
    await small.setViewportSize({ width: 1400, height: 640 });
    const u = await serve(PERF);
    await small.goto(u + '?tab=trace');
    await small.waitForSelector(`${TP}[data-state="ready"]`);
    const d = await small.evaluate(() => window.profview.panes.get('trace').winData.d);
    const n = cli('info', PERF, '--json').threads.length;
    eq(d.contexts, n, 'every thread is a context');
    const want = cli('trace', PERF, '--window', `${d.t0}:${d.t1}`, '--size', `${d.width}x${d.height}`, '--json');
    eq(d.labels, want.labels, 'the labels are the CLI\'s');
    eq(d.labels.map((l) => l[0]), [...Array(n).keys()], 'one label a context');
    const box = await small.locator(`${TP} .trace-main`).boundingBox();
    const rowH = box.height / n;
    assert(rowH < 14, `a row is under 14 px (${rowH.toFixed(1)}): not every label fits`);
    const step = await small.evaluate(() => window.profview.panes.get('trace').labelStep);
    eq(step, Math.ceil(14 / rowH), 'every Nth label, N = ceil(14 / row height)');
    // a row without its label drawn: the hover names its context
    const c = 1;
    await small.mouse.move(box.x + box.width * 0.6, box.y + (c + 0.5) * rowH);
    await small.waitForSelector('#tooltip:not([hidden])');
    const tip = await small.textContent('#tooltip');
    assert(tip.includes(`context ${c}: ${d.labels[c][1]}`), `hover names context ${c}: ${tip}`);
    // the legend of these 17 threads' functions: one colour each
    const leg = await legendOf(small);
    assert(leg.length >= 8, `functions in view: ${leg.length}`);
    eq(new Set(leg.map((l) => l[1])).size, leg.length, `distinct colours: ${leg.map((l) => l[0] + ' ' + l[1])}`);
    await small.screenshot({ path: path.join(SHOTS, 'trace5-perf17-light.png') });
    await small.emulateMedia({ colorScheme: 'dark' });
    await small.waitForTimeout(200);
    await small.screenshot({ path: path.join(SHOTS, 'trace5-perf17-dark.png') });
    await small.emulateMedia({ colorScheme: 'light' });
    // the context filter: the names holding a text; the CLI's --thread re: gives the same
    const threads = cli('info', PERF, '--json').threads.map((th) => th.name);
    const word = threads[2];
    const keep = threads.filter((x) => x.includes(word)).length;
    await small.fill(`${TP} .trace-filter`, word);
    await small.press(`${TP} .trace-filter`, 'Enter');
    await small.waitForFunction((w) => new URLSearchParams(location.search).get('tk') === w, word);
    await small.waitForFunction((k) => { const p = window.profview.panes.get('trace'); return p.full && p.full.contexts === k && p.el.dataset.state === 'ready'; }, keep);
    const fd = await small.evaluate(() => window.profview.panes.get('trace').winData.d);
    eq(fd.labels.map((l) => l[1]), threads.filter((x) => x.includes(word)), 'the filtered contexts');
    const re = 're:' + word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    eq(cli('trace', PERF, '--window', `${fd.t0}:${fd.t1}`, '--size', `${fd.width}x${fd.height}`, '--thread', re, '--json').labels, fd.labels, 'the CLI with --thread re:');
    eq(new URL(small.url()).searchParams.getAll('thread'), [], 'the query keeps its threads');
    await small.close();
  });

  await test('trace legibility: the depth and the deepest depth, with a slider', async () => {
    const u = await serve(LOOPS);
    await page.goto(u + '?tab=trace');
    await ready(TP);
    const max = cli('trace', LOOPS, '--json').max_depth;
    eq(await page.$eval(`${TP} .trace-depth-slider`, (e) => [e.min, e.max, e.value]), ['0', String(max - 1), '0'], 'the slider\'s range');
    eq(await page.textContent(`${TP} .trace-depth`), `depth 0 of ${max - 1}`, 'the label');
    await page.$eval(`${TP} .trace-depth-slider`, (e) => { e.value = '3'; e.dispatchEvent(new Event('input')); });
    await page.waitForFunction(() => new URLSearchParams(location.search).get('td') === '3');
    await ready(TP);
    eq((await win()).depth, 3, 'the window answered at depth 3');
    eq(await page.textContent(`${TP} .trace-depth`), `depth 3 of ${max - 1}`, 'the label follows');
  });

  // ---- 6: the Stack Chart tab ----

  // the chart's rows ([GAP, WIDTH, ID, N] a box, or the page's decoded [X0, X1, ID, N]) as boxes
  // {depth, x0, x1, id, n, name, start, end}, the times those of the columns
  const boxesOf = (rows, names, t0, t1, width, decoded) => rows.flatMap((r, depth) => {
    const o = [];
    for (let i = 0, x = 0; i < r.length; i += 4) {
      const x0 = decoded ? r[i] : (x += r[i]), x1 = decoded ? r[i + 1] : (x += r[i + 1]);
      o.push({ depth, x0, x1, id: r[i + 2], n: r[i + 3], name: r[i + 2] < 0 ? null : names.get(r[i + 2]),
        start: t0 + (x0 / width) * (t1 - t0), end: t0 + (x1 / width) * (t1 - t0) });
    }
    return o;
  });
  const scData = async () => {
    // the names: the page's cache of the names the server sent (each once a session)
    const s = await page.evaluate(() => { const p = window.profview.panes.get('stack-chart'); return { d: { ...p.data.d, rows: p.data.d.rows.map((r) => Array.from(r)) }, win: p.win, c: p.c, width: p.data.width, names: [...p.data.names] }; });
    s.d.boxes = boxesOf(s.d.rows, new Map(s.names), s.win[0], s.win[1], s.width, true);
    return s;
  };
  // the CLI's chart of the pane's window, context and width, with the pane's query options
  const cliBoxes = (file, s, ...q) => {
    const d = cli('trace', file, '--boxes', '--context', String(s.c), '--window', `${s.win[0]}:${s.win[1]}`, '--width', String(s.width), '--json', ...q);
    return { ...d, boxes: boxesOf(d.rows, new Map(d.functions), s.win[0], s.win[1], s.width, false) };
  };
  // what the page and the CLI must agree on: each box's depth, columns, function and count
  const cols = (bs) => bs.map((b) => [b.depth, b.x0, b.x1, b.id, b.n]);

  await test('stack chart: a Gecko profile: its main thread\'s samples as the CLI\'s boxes; hover shows the stack, a click selects the call node', async () => {
    const u = await serve(GECKO);
    await page.goto(u);
    await page.waitForFunction(() => window.profview && window.profview.ready);
    // one thread: no thread in the query (the busiest of several would be)
    eq(new URL(page.url()).searchParams.getAll('thread'), [], 'the only thread');
    eq(cli('info', GECKO, '--json').threads.length, 1, 'one thread in the file');
    assert(await page.isVisible('#tabs button[data-tab="stack-chart"]'), 'the tab is shown');
    await page.click('#tabs button[data-tab="stack-chart"]');
    await ready(SC);
    const s = await scData();
    const want = cliBoxes(GECKO, s);
    eq(s.c, 0, 'the query\'s first context');
    eq(cols(s.d.boxes), cols(want.boxes), 'the boxes are the CLI\'s');
    // mousedown > foo > bar over 36 ms, then DOM calls: 17 boxes over 4 depths, the shortest
    // DOM calls (under a pixel's time) merged in the page's
    const all = cli('trace', GECKO, '--boxes', '--context', '0', '--json').boxes;
    eq([all.length, Math.max(...all.map((b) => b.depth))], [17, 3], 'the boxes of the main thread');
    assert(want.boxes.length >= 4 && want.boxes.length < 17, `the page's: ${want.boxes.length}`);
    for (const n of ['(root)', 'mousedown', 'foo', 'bar']) assert(s.d.boxes.some((b) => b.name === n), `a box of ${n}`);
    // hover a deep box: its call path is the stack the CLI prints at its start
    const deep = want.boxes.filter((b) => b.end - b.start > (s.win[1] - s.win[0]) / 60).sort((a, b) => b.depth - a.depth)[0];
    const cb = await page.locator(`${SC} .sc-canvas`).boundingBox();
    const x = cb.x + ((deep.start + deep.end) / 2 - s.win[0]) / (s.win[1] - s.win[0]) * cb.width;
    const y = cb.y + 2 + deep.depth * 17 + 8;
    await page.mouse.move(x, y);
    await page.waitForSelector('#tooltip:not([hidden]) .sc-tip');
    const st = cli('trace', GECKO, '--context', '0', '--at', String((deep.start + deep.end) / 2), '--json');
    const code = st.frames.filter((f) => f.depth !== null && f.depth <= deep.depth);
    eq((await page.textContent('#tooltip .sc-tip .stack')).split('\n'), code.map((f) => f.function).reverse(), 'the hovered box\'s stack');
    // its exact times (the server's box, not its columns'): the CLI's box there
    await page.waitForSelector('#tooltip .sc-tip .sc-times[data-start]');
    const ds = await page.$eval('#tooltip .sc-times', (e) => ({ ...e.dataset, text: e.textContent }));
    const mid = (deep.start + deep.end) / 2;
    const exact = all.find((b) => b.depth === deep.depth && b.start <= mid && mid < b.end);
    eq([+ds.start, +ds.end, +ds.n], [exact.start, exact.end, 1], 'the hovered box\'s exact times (the CLI\'s)');
    const dur = Math.round(exact.end * 1e6) - Math.round(exact.start * 1e6);
    const title = await page.textContent('#tooltip .sc-tip .tt-title');
    eq(title, `${Math.floor(dur / 1e6)}${dur % 1e6 ? '.' + String(dur % 1e6).padStart(6, '0').replace(/0+$/, '') : ''} ms ${exact.name}`, 'its exact duration');
    assert(!ds.text.includes('~') && ds.text.startsWith(`depth ${deep.depth} · `), ds.text);
    await shots('stackchart-gecko', SC);
    // click: the call node selected in the top-down tree
    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.up();
    const key = code.map((f) => 'f' + f.id).join('/');
    await page.waitForFunction((k) => new URL(location.href).searchParams.get('sel') === k, key);
    const rows = await waitRows(page, 'top-down', (r) => r.some((x) => x.selected && x.key === key), 'the box\'s row selected');
    eq(rows.find((r) => r.selected).path.split('\u0001'), code.map((f) => f.function), 'the selected path');
    // a box of several boxes each under a pixel: their count and exact span on hover, those of
    // the CLI's boxes (no width: every box, exact times) at its depth in that span
    // (a narrower pane: at 400-800 px the last DOM calls are 2 boxes under a pixel each)
    const vp = page.viewportSize();
    await page.click('#tabs button[data-tab="stack-chart"]');
    await page.setViewportSize({ width: 760, height: vp.height });
    await page.waitForFunction(() => { const p = window.profview.panes.get('stack-chart'); return p.data && p.data.width <= 760 && Math.abs(p.data.width - p.wrap.clientWidth) <= 8; }, null, { timeout: 5000 }).catch(async () => { throw new Error(JSON.stringify(await page.evaluate(() => { const p = window.profview.panes.get('stack-chart'); return [p.data && p.data.width, p.wrap.clientWidth, location.search]; }))); });
    await ready(SC);
    const sm = await scData();
    const cbm = await page.locator(`${SC} .sc-canvas`).boundingBox();
    const m = sm.d.boxes.filter((b) => b.n > 1).sort((a, b) => (b.x1 - b.x0) - (a.x1 - a.x0) || b.n - a.n)[0];
    assert(m, 'a box of several under a pixel');
    await page.mouse.move(cbm.x + ((m.x0 + m.x1) / 2 / sm.width) * cbm.width, cbm.y + 2 + m.depth * 17 + 8);
    await page.waitForSelector('#tooltip .sc-tip .sc-times[data-n]');
    const md = await page.$eval('#tooltip .sc-times', (e) => ({ ...e.dataset, text: e.textContent }));
    const inside = all.filter((b) => b.depth === m.depth && b.start >= +md.start && b.end <= +md.end);
    // (n counts the boxes that hold a column's middle: a shorter one between them is not drawn)
    eq([+md.n, inside[0].start, inside[inside.length - 1].end], [m.n, +md.start, +md.end], 'the merged boxes\' count and span');
    assert(inside.length >= m.n, `${inside.length} boxes of the CLI in the span`);
    assert(md.text.includes(`${m.n.toLocaleString('en-US')} boxes, each under a pixel, from `), md.text);
    await shots('stackchart-gecko-merged-hover', SC);
    await page.setViewportSize(vp);
  });

  await test('stack chart: a perf file: the timeline\'s selection zooms it, the wheel zooms inside, the center and the filters apply', async () => {
    const u = await serve(PERF);
    await page.goto(u);
    await page.waitForFunction(() => window.profview && window.profview.ready);
    const th = new URL(page.url()).searchParams.getAll('thread');
    await page.click('#tabs button[data-tab="stack-chart"]');
    await ready(SC);
    const s0 = await scData();
    eq(cols(s0.d.boxes), cols(cliBoxes(PERF, s0, '--thread', th[0]).boxes), 'the whole range: the CLI\'s boxes');
    eq(th, ['#0'], 'the busiest thread');
    assert(s0.d.boxes.length >= 5, `the busiest thread's boxes: ${s0.d.boxes.length}`);
    // the timeline's selection (the query's range) zooms the chart to it: the thread's samples
    const r = [Math.min(...s0.d.boxes.map((b) => b.start)), Math.max(...s0.d.boxes.map((b) => b.end))].map((v) => Math.round(v * 1000) / 1000);
    assert(r[1] - r[0] < 0.2 * (s0.win[1] - s0.win[0]), `the samples are a part of the profile: ${r}`);
    await page.evaluate((r) => window.profview.ctx.actions.setRange(r), r);
    await page.waitForFunction((r) => { const p = window.profview.panes.get('stack-chart'); return p.data && p.data.win[0] === r[0] && p.data.win[1] === r[1]; }, r);
    await ready(SC);
    const s1 = await scData();
    eq(s1.win, r, 'the window is the selection');
    eq(cols(s1.d.boxes), cols(cliBoxes(PERF, s1, '--thread', th[0]).boxes), 'the selection\'s boxes');
    assert(s1.d.boxes.every((b) => b.start >= r[0] - 1e-6 && b.end <= r[1] + 1e-6), 'every box inside the selection');
    // a wheel step zooms around the pointer
    const cb = await page.locator(`${SC} .sc-canvas`).boundingBox();
    await page.mouse.move(cb.x + cb.width * 0.5, cb.y + 10);
    await page.mouse.wheel(0, -300);
    await page.waitForFunction(() => new URLSearchParams(location.search).has('sw'));
    await ready(SC);
    const s2 = await scData();
    assert(s2.win[1] - s2.win[0] < 0.8 * (r[1] - r[0]), `zoomed in: ${s2.win}`);
    const mid = (r[0] + r[1]) / 2;
    assert(Math.abs((s2.win[0] + s2.win[1]) / 2 - mid) < 1e-3 * (r[1] - r[0]), `around the pointer: ${s2.win}`);
    eq(cols(s2.d.boxes), cols(cliBoxes(PERF, s2, '--thread', th[0]).boxes), 'the zoomed boxes');
    await shots('stackchart-perf', SC);
    // a filter (drop the samples through the heaviest leaf function) and a center apply
    const leaf = s0.d.boxes.filter((b) => b.depth >= 1).sort((a, b) => (b.end - b.start) - (a.end - a.start))[0].name;
    await page.evaluate((f) => window.profview.ctx.actions.addFilter('drop', f), leaf);
    await page.waitForFunction(() => new URLSearchParams(location.search).getAll('filter').length === 1);
    await ready(SC);
    const s3 = await scData();
    eq(s3.d.boxes.filter((b) => b.name === leaf), [], `no box of ${leaf} after dropping it`);
    eq(cols(s3.d.boxes), cols(cliBoxes(PERF, s3, '--thread', th[0], '--drop', leaf).boxes), 'the CLI with --drop');
    await page.evaluate(() => window.profview.ctx.actions.popFilters(0));
    const root1 = s0.d.boxes.filter((b) => b.depth === 0 && b.name !== '[unknown]').sort((a, b) => (b.end - b.start) - (a.end - a.start))[0].name;
    await page.evaluate((c) => window.profview.ctx.actions.setCenter(c), root1);
    await page.waitForFunction(() => new URLSearchParams(location.search).getAll('center').length === 1);
    await ready(SC);
    const s4 = await scData();
    eq(cols(s4.d.boxes), cols(cliBoxes(PERF, s4, '--thread', th[0], '--center', root1).boxes), 'the CLI with --center');
    // every run of samples left passes through the center
    const runs = s4.d.boxes.filter((b) => b.depth === 0);
    assert(runs.length >= 1 && runs.length < s0.d.boxes.filter((b) => b.depth === 0).length, `fewer runs with the center: ${runs.length}`);
    for (const b of runs) assert(s4.d.boxes.some((x) => x.name === root1 && x.start >= b.start && x.end <= b.end), `the run at ${b.start} holds ${root1}`);
    await noError(page);
  });

  await test('stack chart: an HPCToolkit database\'s trace: a picker of its contexts; no tab without sample times', async () => {
    const u = await serve(LOOPS);
    await page.goto(u + '?tab=stack-chart');
    await ready(SC);
    const opts = await page.$$eval(`${SC} .sc-context option`, (els) => els.map((e) => e.textContent));
    eq(opts, cli('info', LOOPS, '--json').threads.map((x, i) => `${i}: ${x.name}`), 'the contexts');
    await page.selectOption(`${SC} .sc-context`, '2');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('sc') === '2');
    await page.waitForFunction(() => window.profview.panes.get('stack-chart').data.c === 2);
    await ready(SC);
    const s = await scData();
    eq(cols(s.d.boxes), cols(cliBoxes(LOOPS, s).boxes), 'context 2\'s boxes');
    eq(s.d.thread, cli('info', LOOPS, '--json').threads[2].name, 'its thread');
    await shots('stackchart-hpctoolkit', SC);
    const cu = await serve(COLL);
    await page.goto(cu + '?tab=stack-chart');
    await page.waitForFunction(() => window.profview && window.profview.ready);
    assert(!(await page.isVisible('#tabs button[data-tab="stack-chart"]')), 'no tab for collapsed stacks');
    eq(param('tab'), 'top-down', 'the URL\'s tab falls back');
    eq(errors, [], 'page errors');
  });

  await test('stack chart: opens on the busiest context (a GPU stream here, not the idle CPU thread 0); a zoom step asks a new window', async () => {
    const u = await serve(GPU);
    await page.goto(u + '?tab=stack-chart');
    await ready(SC);
    const recs = cli('trace', GPU, '--window', '0:1', '--size', '1x1', '--json').records;
    eq(recs, [10, 268, 1], 'each context\'s records (the CLI\'s)');
    const s = await scData();
    eq(s.c, 1, 'the busiest context');
    eq(cols(s.d.boxes), cols(cliBoxes(GPU, s).boxes), 'its boxes are the CLI\'s');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('sc') === '1');
    await shots('stackchart-busiest', SC);
    // a wheel notch: a new api/trace-boxes request for a narrower window at the pane's width
    const held = new Set(s.names.map(([id]) => id));
    const asked = [];
    const on = (r) => { if (r.url().includes('/api/trace-boxes') && !r.url().includes('box-depth=')) asked.push(new URL(r.url()).searchParams); };
    page.on('request', on);
    const cb = await page.locator(`${SC} .sc-canvas`).boundingBox();
    await page.mouse.move(cb.x + cb.width * 0.5, cb.y + 10);
    await page.waitForSelector('#tooltip:not([hidden]) .sc-tip .sc-times[data-start]');
    const tipBefore = await page.textContent('#tooltip .sc-tip .tt-title');
    // the step's answer held back: the tooltip of the last window's box is hidden at once
    let release;
    const holdBack = new Promise((r) => { release = r; });
    await page.route('**/api/trace-boxes?*', async (r) => { await holdBack; await r.continue(); });
    await page.mouse.wheel(0, -300);
    await page.waitForFunction(() => window.profview.panes.get('stack-chart').el.dataset.state === 'busy');
    assert(await page.isHidden('#tooltip'), 'no tooltip of the last window while the step is on its way');
    release();
    await page.waitForFunction((w) => { const p = window.profview.panes.get('stack-chart'); return p.data && p.data.win[1] - p.data.win[0] < w; }, s.win[1] - s.win[0]);
    await ready(SC);
    await page.unroute('**/api/trace-boxes?*');
    page.off('request', on);
    // then the box under the pointer in the new window, without a move of the mouse (its
    // exact times: those of the box clipped to the narrower window)
    await page.waitForSelector('#tooltip:not([hidden]) .sc-tip .sc-times[data-start]');
    const under = await page.evaluate(() => { const p = window.profview.panes.get('stack-chart'); const b = p.boxAt(p.mouse); return b && [b.depth, b.x0, b.x1, b.name]; });
    assert(under && under[0] === 0, `a box under the pointer: ${under}`);
    const tipAfter = await page.textContent('#tooltip .sc-tip .tt-title');
    assert(tipAfter.endsWith(under[3]) && tipAfter !== tipBefore, `the tooltip told again: ${tipBefore} -> ${tipAfter}`);
    assert(asked.length >= 1, 'a request a step');
    const a = asked[asked.length - 1];
    const s2 = await scData();
    eq([+a.get('context'), +a.get('width')], [1, s2.width], 'the context and the pane\'s width');
    assert(+a.get('t1') - +a.get('t0') < (s.win[1] - s.win[0]) * 1e6, `a narrower window: ${a}`);
    const want2 = cliBoxes(GPU, s2);
    eq(cols(s2.d.boxes), cols(want2.boxes), 'the zoomed boxes are the CLI\'s');
    // each name once a session: the step asked with the count of names the page held, got
    // none of those again, and every box's name is the CLI's
    assert(/^\d+:\d+$/.test(a.get('known')) && +a.get('known').split(':')[1] === held.size, `known=${a.get('known')} (${held.size} held)`);
    eq(s2.d.functions.filter(([id]) => held.has(id)), [], 'no name sent again');
    eq(s2.d.boxes.map((b) => b.name), want2.boxes.map((b) => b.name), 'the names are the CLI\'s');
    assert(s2.d.boxes.every((b) => b.x1 <= s2.width && b.x0 < b.x1), 'at most the pane\'s columns');
    await shots('stackchart-busiest-zoomed', SC);
  });
  await page.close();
}

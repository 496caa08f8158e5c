// Browser tests of issue 26, points 1-4 (the whole program, its units, loops, whole numbers):
// an HPCToolkit database opens on all its execution contexts summed and its Trace tab on every
// context (the GPU stream too), independent threads (Gecko, perf) on the busiest; a "(sec)"
// metric in seconds everywhere; By offers loop and names lines and loops as hpcviewer does;
// number columns never cut a value in any number form. Called by test.mjs with its helpers
// (t: {test, serve, cli, api, waitRows, eq, assert, noError, SHOTS}). Every expected figure is
// the CLI's (--json: the model's integers) or the file's; each page is shot in the light and the
// dark theme (SHOTS/whole-*-light.png, -dark.png).
import path from 'node:path';

const LOOPS = 'tests/data/hpctoolkit/loops-cputime-t.d'; // 4 threads, loops, a trace
const GPU = 'tests/data/hpctoolkit/issue-328'; // a CPU thread, a GPU stream, 44 metrics, a trace
const PARTS = 'tests/data/callgrind/gzip-parts.callgrind'; // callgrind, 4 parts of one run
const BIG = 'tests/data/corpus/callgrind/gprof2dot-googlecode-issue34.callgrind'; // 12-digit costs
const GECKO = 'tests/data/firefox/gecko-2.json'; // a Gecko profile of 3 threads
const PERF = 'tests/data/corpus/firefox/test.perf.gz'; // perf script of 17 threads

export async function wholeTests(context, t) {
  const { test, serve, cli, waitRows, eq, assert, noError, SHOTS } = t;
  const page = await context.newPage();

  // the page in both themes (the system's: prefers-color-scheme), canvases redrawn
  async function shots(name) {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.waitForTimeout(150);
    await page.screenshot({ path: path.join(SHOTS, `whole-${name}-light.png`) });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForTimeout(150);
    await page.screenshot({ path: path.join(SHOTS, `whole-${name}-dark.png`) });
    await page.emulateMedia({ colorScheme: 'light' });
  }
  const state = () => page.evaluate(() => ({ thread: window.profview.state.q.get('thread') || [] }));
  const chip = () => page.textContent('#thread-chip');
  // the per-thread totals of the CLI (its views sum what they are given)
  const threadTotal = (file, i, ...more) => cli('top', file, '--json', '--thread', `#${i}`, ...more).total || 0;
  const idle = (file) => cli('info', file, '--json').categories > 0; // a profile without categories has no Idle
  // the tree tab's own status (its toolbar): the whole and its unit
  const treeStatus = (tab) => page.textContent(`.pane[data-tab="${tab}"] .pane-toolbar > span.dim:last-child`);

  // ---- 1: one program opens summed, independent threads on the busiest ----

  // a fresh page of file (no state in its URL): ready, and summing its n contexts
  async function openSummed(file, n) {
    const u = await serve(file);
    await page.goto(u);
    await page.waitForFunction(() => window.profview && window.profview.ready);
    eq((await state()).thread, [], `${file}: no thread in the query`);
    eq((await chip()).trim(), `All ${n} contexts summed`, `${file}: the query bar says it`);
  }

  await test('whole: an HPCToolkit database opens on its 4 contexts summed, as hpcviewer', async () => {
    await openSummed(LOOPS, 4);
    const want = cli('tree', LOOPS, '--json');
    const rows = await waitRows(page, 'top-down', (r) => r.length >= 2);
    // the roots: every context's (the CLI sums every thread): 2.979143 + 0.994165 s
    eq(rows.filter((r) => r.depth === 0).map((r) => [r.name, r.total]),
      want.rows.map((r) => [r.name, (r.total / 1e9).toFixed(6)]), 'the roots, in seconds');
    eq(want.total, 3973308000, 'the CLI\'s whole (ns)');
    await page.waitForFunction(() => /CPUTIME/.test(document.querySelector('.pane[data-tab="top-down"] .pane-toolbar > span.dim:last-child').textContent));
    eq(await treeStatus('top-down'), '3.973308 CPUTIME (sec) · 94 samples', 'the status line');
    await shots('hpctoolkit');
    await noError(page);
  });

  await test('whole: the Trace tab of a database opens on every context, its GPU stream too', async () => {
    const u = await serve(GPU);
    await page.goto(u + '?tab=trace');
    const info = cli('info', GPU, '--json');
    eq(info.threads.map((x) => x.name), ['NODE 0 GPUCONTEXT 2 GPUSTREAM 0', 'NODE 0 THREAD 0', 'NODE 0 THREAD 1'], 'the contexts');
    await page.waitForFunction(() => { const p = window.profview.panes.get('trace'); return p && p.full && p.el.dataset.state === 'ready'; });
    eq(await page.evaluate(() => window.profview.panes.get('trace').full.contexts), 3, 'the trace\'s contexts');
    const labels = await page.evaluate(() => window.profview.panes.get('trace').winData.d.names);
    assert(labels.some((l) => l.includes('GPUSTREAM')), `the GPU stream is drawn: ${labels}`);
    eq((await chip()).trim(), 'All 3 contexts summed', 'the query bar');
    await shots('trace-gpu');
    await noError(page);
  });

  await test('whole: callgrind\'s parts are one run: summed', async () => {
    await openSummed(PARTS, 4);
    const sum = [0, 1, 2, 3].reduce((a, i) => a + threadTotal(PARTS, i), 0);
    eq(cli('top', PARTS, '--json').total, sum, 'the whole is the parts\' sum');
    await waitRows(page, 'top-down', (r) => r.length > 0);
    await noError(page);
  });

  await test('whole: a Gecko profile and a perf file open on their busiest thread', async () => {
    for (const [file, name] of [[GECKO, 'gecko'], [PERF, 'perf']]) {
      const n = cli('info', file, '--json').threads.length;
      // the busiest: the most cost outside the Idle category, the lowest index of a tie
      let best = -1, most = 0;
      for (let i = 0; i < n; i++) {
        const active = threadTotal(file, i) - (idle(file) ? threadTotal(file, i, '--focus-category', 'Idle') : 0);
        if (active > most) { most = active; best = i; }
      }
      const u = await serve(file);
      await page.goto(u);
      await page.waitForFunction(() => window.profview && window.profview.ready);
      eq((await state()).thread, [`#${best}`], `${file}: the busiest thread`);
      const c = await chip();
      assert(c.includes(`(busiest of ${n})`), `${file}: the query bar says it: ${c}`);
      await waitRows(page, 'top-down', (r) => r.length > 0);
      await shots(name);
      // one click merges them all
      await page.click('#merge-all');
      await page.waitForFunction(() => (window.profview.state.q.get('thread') || []).length === 0);
      await noError(page);
    }
  });

  // ---- 2: one unit rule ----

  await test('whole: a "(sec)" metric is in seconds in the columns, the chooser and the sidebar', async () => {
    const u = await serve(GPU);
    await page.goto(u + '?tab=top-down');
    const rows = await waitRows(page, 'top-down', (r) => r.length > 1);
    const want = cli('tree', GPU, '--json');
    eq(rows[0].total, (want.rows[0].total / 1e9).toFixed(6), 'main thread\'s total in seconds');
    eq(rows[0].total, '1.534048', 'hpcviewer\'s 1.53e+00');
    const head = await page.$$eval('.pane[data-tab="top-down"] .tt-head > div', (els) => els.map((e) => e.textContent));
    eq(head.slice(0, 4), ['Total', '%', 'Self', '%'], 'the name says the unit: no "(ms)" after Total');
    await page.click('#metric-button');
    const labels = await page.$$eval('.menu .checks label.mi', (els) => els.map((e) => e.textContent.trim()));
    assert(labels.includes('GKER (sec)') && labels.includes('GMEM:UNK (B)') && labels.includes('GXCOPY:COUNT'), `chooser: ${labels.slice(0, 12)}`);
    assert(!labels.some((l) => /\) \(/.test(l)), `no unit said twice: ${labels.filter((l) => /\) \(/.test(l))}`);
    await page.keyboard.press('Escape');
    // two metrics of seconds: GKER's total, 2360962 ns: 0.002361 s (hpcviewer's 2.36e-03)
    await page.goto(u + '?tab=top-down&metric=REALTIME%20(sec),GKER%20(sec)');
    await waitRows(page, 'top-down', (r) => r.length > 1);
    const groups = await page.$$eval('.pane[data-tab="top-down"] .tt-groups > div', (els) => els.map((e) => e.textContent));
    eq(groups, ['REALTIME (sec)', 'GKER (sec)', ''], 'each metric\'s name over its columns');
    const gker = cli('tree', GPU, '--json', '--metric', 'REALTIME (sec),GKER (sec)', '--depth', '1');
    eq(gker.rows[0].values[1].total, 2360962, 'main thread\'s GKER (ns)');
    const first = await page.$$eval('.pane[data-tab="top-down"] .tt-row[data-index="0"] .c-total', (els) => els.map((e) => e.textContent));
    eq(first, ['1.534048', '0.002361'], 'both in seconds');
    await noError(page);
  });

  await test('whole: a time the name does not say is in ms, named once in its header', async () => {
    const u = await serve('tests/data/perf/xz.perf.txt.gz');
    await page.goto(u + '?tab=top-down');
    await waitRows(page, 'top-down', (r) => r.length > 0);
    const head = await page.$$eval('.pane[data-tab="top-down"] .tt-head > div', (els) => els.map((e) => e.textContent));
    eq(head.slice(0, 3), ['Total (ms)', '%', 'Self (ms)'], 'cpu-clock in ms');
    await page.waitForFunction(() => /cpu-clock/.test(document.querySelector('.pane[data-tab="top-down"] .pane-toolbar > span.dim:last-child').textContent));
    eq(await treeStatus('top-down'), '258.250 ms cpu-clock:pppH · 1,033 samples', 'the status line');
    await noError(page);
  });

  // ---- 3: By -> loop, hpcviewer's names ----

  await test('whole: By offers the granularities the profile has; loops and lines named as hpcviewer', async () => {
    const opts = async () => page.$$eval('#by-select option', (els) => els.map((e) => e.value));
    let u = await serve('tests/data/perf/xz.perf.txt.gz');
    await page.goto(u);
    await page.waitForFunction(() => window.profview && window.profview.ready);
    eq(await opts(), ['function', 'module'], 'perf without srcline: functions in modules');
    eq(await page.isHidden('#inline-fold-ctl'), true, 'no inlined code: no fold');
    u = await serve(LOOPS);
    await page.goto(u + '?tab=top-down');
    await page.waitForFunction(() => window.profview && window.profview.ready);
    eq(await opts(), ['function', 'line', 'file', 'module', 'loop'], 'a database: loop too');
    eq(await page.isHidden('#inline-fold-ctl'), false, 'an inlined procedure: fold offered');
    await page.selectOption('#by-select', 'loop');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('by') === 'loop');
    const want = cli('tree', LOOPS, '--json', '--by', 'loop');
    const loops = [];
    const walk = (rs) => { for (const r of rs) { if (r.kind === 'loop') loops.push([r.name, r.function]); walk(r.children || []); } };
    walk(want.rows);
    eq(loops[0], ['loop at loops.c: 1010', 'main._omp_fn.0'], 'the CLI\'s first loop');
    await page.click('.pane[data-tab="top-down"] button:has-text("Expand all")');
    const rows = await waitRows(page, 'top-down', (r) => r.some((x) => x.name.startsWith('loop at ')));
    const shown = await page.$$eval('.pane[data-tab="top-down"] .tt-row[data-key]', (els) => els.map((e) => [e.querySelector('.nm').textContent, e.querySelector('.extra').textContent]));
    const shownLoops = shown.filter((s) => s[0].startsWith('loop at '));
    assert(shownLoops.length > 0, 'loop rows shown');
    for (const [name, extra] of shownLoops) {
      assert(/^loop at loops\.c: \d+$/.test(name), `a loop's name: ${name}`);
      assert(loops.some((l) => l[0] === name && extra === 'in ' + l[1]), `its function beside it: ${name} ${extra}`);
    }
    assert(rows.length > 0, 'rows');
    await shots('by-loop');
    // by line: "loops.c: 1016 in main._omp_fn.0", the line number whole at 900 px
    await page.setViewportSize({ width: 900, height: 700 });
    await page.goto(u + '?tab=flat&by=line');
    await page.waitForSelector('.pane[data-tab="flat"][data-state="ready"] .tt-row[data-key]');
    const lines = await page.$$eval('.pane[data-tab="flat"] .tt-row[data-key]', (els) => els.map((e) => {
      const nm = e.querySelector('.nm');
      return { name: nm.textContent, extra: (e.querySelector('.extra') || {}).textContent || '', cut: nm.getBoundingClientRect().right > e.querySelector('.name').getBoundingClientRect().right };
    }).filter((r) => /^loops\.c: \d+$/.test(r.name)));
    assert(lines.length > 0, 'line rows in the flat view');
    assert(lines.every((l) => l.extra.startsWith('in ') && !l.cut), `named and whole: ${JSON.stringify(lines.slice(0, 3))}`);
    const flat = cli('flat', LOOPS, '--json', '--by', 'line');
    const cliLines = [];
    const all = (rs) => { for (const r of rs) { if (r.kind === 'line') cliLines.push(r.name); all(r.children || []); } };
    all(flat.rows);
    for (const l of lines) assert(cliLines.includes(l.name), `the CLI's name: ${l.name}`);
    await shots('by-line-900');
    await page.setViewportSize({ width: 1400, height: 900 });
    await noError(page);
  });

  // ---- 4: number columns never cut ----

  // every number cell and header of a tab: its text whole (no ellipsis), the exact value in
  // its title
  const cutCells = (tab) => page.$$eval(`.pane[data-tab="${tab}"] .tt-row[data-key] .c-num, .pane[data-tab="${tab}"] .tt-head > div.num, .pane[data-tab="${tab}"] .tt-groups > div:not(.name)`,
    (els) => els.filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent));
  const cells = (tab) => page.$$eval(`.pane[data-tab="${tab}"] .tt-row[data-key] .c-total`, (els) => els.map((e) => [e.textContent, e.title]));

  await test('whole: number columns fit 12-digit costs in every form, the exact value on hover', async () => {
    const u = await serve(BIG);
    await page.evaluate(() => localStorage.removeItem('profview-numbers'));
    await page.goto(u + '?tab=top-down&metric=Ir,Dr,Dw');
    await waitRows(page, 'top-down', (r) => r.length > 5);
    const want = cli('tree', BIG, '--json', '--metric', 'Ir,Dr,Dw', '--depth', '1');
    eq(want.total, 192717159265, 'the CLI\'s whole');
    const exact = await cells('top-down');
    eq(exact[0], ['192,717,159,265', '192,717,159,265'], 'exact: all the digits');
    eq(await cutCells('top-down'), [], 'no cell or header cut (exact)');
    const groups = await page.$$eval('.pane[data-tab="top-down"] .tt-groups > div', (els) => els.map((e) => e.textContent));
    eq(groups, ['Ir (instructions)', 'Dr', 'Dw', ''], 'the metrics over their columns');
    await shots('numbers-exact');
    for (const [form, first, re] of [['short', '193G', /^~?-?[\d.]+[kMGTPE]?$/], ['sci', '1.93e+11', /^~?-?\d\.\d\de[+-]\d\d$/]]) {
      await page.selectOption('#num-select', form);
      await page.waitForFunction((f) => document.querySelector('.pane[data-tab="top-down"] .tt-row[data-key] .c-total').textContent === f, first);
      const got = await cells('top-down');
      eq(got[0], [first, '192,717,159,265'], `${form}: the whole, exact on hover`);
      assert(got.every(([s]) => re.test(s)), `${form}: ${got.map((g) => g[0]).filter((s) => !re.test(s)).slice(0, 5)}`);
      eq(await cutCells('top-down'), [], `no cell cut (${form})`);
      await shots(`numbers-${form}`);
    }
    // the flat tab keeps the form and fits its columns too
    await page.click('#tabs button[data-tab="flat"]');
    await page.waitForSelector('.pane[data-tab="flat"][data-state="ready"] .tt-row[data-key]');
    eq(await cutCells('flat'), [], 'no flat cell cut');
    await page.selectOption('#num-select', 'exact');
    await page.waitForFunction(() => !/e\+/.test(document.querySelector('.pane[data-tab="flat"] .tt-row[data-key] .c-total').textContent));
    eq(await cutCells('flat'), [], 'no flat cell cut (exact)');
    await noError(page);
  });

  await page.close();
}

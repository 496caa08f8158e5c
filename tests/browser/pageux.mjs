// Browser tests of the page's first hour (issue 26, points 7 to 13) on real profiles of
// tests/data: an HPCToolkit database with threads and traces, a callgrind file, a Gecko profile,
// perf files. Each point keeps a screenshot in the light and the dark theme
// (SHOTS/ux-*-light.png, ux-*-dark.png). Called by test.mjs with its helpers (t: {test, serve,
// cli, api, waitRows, shownRows, eq, assert, noError, OUT, SHOTS, BIN}); every expected figure is
// hand-checked from the file, or the CLI's for the same query.
import { spawnSync } from 'node:child_process';
import { workProgram } from './lines.mjs';
import { cpSync, mkdirSync, openSync, writeSync, closeSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const HPC = 'tests/data/hpctoolkit/loops-cputime-t.d';
const GZIP_CG = 'tests/data/callgrind/gzip.callgrind';
const GECKO = 'tests/data/firefox/argument-values.json';
const XZ = 'tests/data/perf/xz.perf.txt.gz';
const PERF_BASE = 'tests/data/perf-diff/base.perf.txt.gz';
const PERF_NEW = 'tests/data/perf-diff/new.perf.txt.gz';

const num = (s) => Number(String(s).replace(/,/g, ''));
const param = (page, k) => new URL(page.url()).searchParams.get(k);

export async function pageUxTests(browser, context, t) {
  const { test, serve, cli, waitRows, eq, assert, noError, OUT, SHOTS } = t;
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // the dark theme: the same URL in a context whose system asks for it
  const dark = await browser.newContext({ viewport: { width: 1400, height: 900 }, colorScheme: 'dark' });
  dark.setDefaultTimeout(30000);
  const dpage = await dark.newPage();
  dpage.on('pageerror', (e) => errors.push(e.message));
  // The screenshot of p as ux-NAME-light.png, then the page's URL in the dark theme once
  // ready(page) holds there, as ux-NAME-dark.png.
  const shots = async (p, name, ready) => {
    await p.screenshot({ path: path.join(SHOTS, `ux-${name}-light.png`) });
    await dpage.goto(p.url());
    if (ready) await ready(dpage);
    await dpage.screenshot({ path: path.join(SHOTS, `ux-${name}-dark.png`) });
    assert(await dpage.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), 'the dark theme');
  };
  const paneReady = (tab) => async (p) => { await p.waitForSelector(`.pane[data-tab="${tab}"][data-state="ready"]`); };

  // ---- 7. a file that fails never leaves the page loading ----
  // a pre-release HPCToolkit layout: the database with its meta.db's major version 3
  const pre = path.join(OUT, 'ux-prerelease.d');
  cpSync(HPC, pre, { recursive: true });
  const fd = openSync(path.join(pre, 'meta.db'), 'r+');
  writeSync(fd, Buffer.from([3]), 0, 1, 14);
  closeSync(fd);
  // the importer's line, as the CLI prints it
  const r = spawnSync(t.BIN, ['info', pre], { encoding: 'utf8' });
  eq(r.status, 2, 'info on the pre-release layout exits 2');
  const why = r.stderr.trim().replace(/^profview: error: /, '');
  assert(why.includes('major version 3'), `the importer's error: ${why}`);
  const two = await serve(pre, GZIP_CG);
  await test('ux 7: the first file that loads opens; the file menu shows each file\'s state and error', async () => {
    await page.goto(two);
    await waitRows(page, 'top-down', (rows) => rows.some((x) => x.selected), 'the callgrind file\'s rows');
    eq(param(page, 'p'), '1', 'the loaded file (p=1) opened');
    assert((await page.textContent('#file-name')).includes('gzip.callgrind'), 'the top bar names it');
    const btn = await page.textContent('#file-button');
    eq(btn, '2 of 2 files · 1 failed', 'the file button');
    await page.click('#file-button');
    const rows = await page.$$eval('#file-menu .file-row', (els) => els.map((e) => ({
      state: e.dataset.state, name: e.querySelector('.file-text').firstChild.textContent, text: e.querySelector('.file-state').textContent })));
    eq(rows.map((x) => [x.state, x.name]), [['failed', 'ux-prerelease.d'], ['ready', 'gzip.callgrind']], 'the files and their states');
    eq(rows[0].text, `failed: ${why}`, 'the failed file\'s error: the importer\'s line');
    assert(rows[1].text.startsWith('loaded'), `the loaded file: ${rows[1].text}`);
    await shots(page, 'files-menu', async (p) => { await paneReady('top-down')(p); await p.click('#file-button'); });
    await page.keyboard.press('Escape');
    await noError(page);
  });
  await test('ux 7: asked for the file that failed, the page says why and links the loaded one', async () => {
    await page.goto(two + '?p=0');
    await page.waitForSelector('#loading:not([hidden]) .load-file[data-state="ready"] a.file-open');
    eq(await page.textContent('#loading-title'), 'The profile could not be loaded', 'the title');
    eq(await page.textContent('#error-text'), why, 'the error bar: the importer\'s line');
    const info = await page.$$eval('#loading-files .load-file', (els) => els.map((e) => [e.dataset.state, e.querySelector('.load-info').textContent]));
    eq(info[0], ['failed', `failed: ${why}`], 'the failed file');
    assert(info[1][0] === 'ready' && info[1][1].endsWith('open it'), `the loaded file: ${info[1]}`);
    await shots(page, 'files-failed', async (p) => { await p.waitForSelector('#loading:not([hidden]) a.file-open'); });
    await page.click('#loading-files a.file-open');
    await waitRows(page, 'top-down', (rows) => rows.length > 0, 'the loaded file after the link');
    eq(param(page, 'p'), '1', 'p=1');
  });

  // ---- 8. the first selection, the per-context plot ----
  const xz = await serve(XZ);
  await test('ux 8: the first display selects the heaviest significant row, not a 0.1 % callee (perf)', async () => {
    // bt_skip_func: 66.500 of 258.250 ms (25.75 %, self 65.750); its heaviest callee
    // asm_exc_page_fault is 0.750 ms (0.29 %, below the 1 % floor): the old rule went on through
    // it to _raw_spin_unlock_irqrestore (0.097 %)
    await page.goto(xz + '?tab=top-down');
    const rows = await waitRows(page, 'top-down', (x) => x.some((y) => y.selected), 'the selected row');
    const sel = rows.filter((x) => x.selected);
    eq(sel.map((x) => [x.name, x.depth, num(x.total)]), [['bt_skip_func', 0, 66.5]], 'the selected row');
    eq(rows.filter((x) => x.depth > 0).map((x) => x.name).slice(0, 1), ['asm_exc_page_fault'], 'its callees shown (it is open)');
    // one context: no per-context plot
    eq(await page.$$eval('.pane[data-tab="top-down"] .sidebar .ctx-section', (e) => e.length), 0, 'no per-context section');
    await shots(page, 'first-perf', paneReady('top-down'));
  });
  const hpc = await serve(HPC);
  await test('ux 8: HPCToolkit: the path to the heaviest significant row; the plot has axes and ticks', async () => {
    await page.goto(hpc + '?tab=top-down');
    const rows = await waitRows(page, 'top-down', (x) => x.some((y) => y.selected), 'the selected row');
    const sel = rows.find((x) => x.selected);
    // every row of the path above 1 % (the database's own tree, profview tree --json)
    eq(sel.path.split('\u0001'), ['application thread', 'libgomp.so.1.0.0@0x1a86d', 'main._omp_fn.0', 'test_separated_loops', 'test_separated_loops_helper'], 'the selected row\'s path');
    const tree = cli('tree', HPC, '--json');
    let want = tree.rows;
    for (const name of sel.path.split('\u0001').slice(0, -1)) want = want.find((x) => x.name === name).children;
    // CPUTIME (sec) names its unit: shown in seconds (the one unit rule), the JSON in ns
    eq(num(sel.total), want.find((x) => x.name === sel.name).total / 1e9, 'its total (s), the CLI\'s');
    // 4 contexts: the plot, its value axis from 0 and the context positions 0..3
    const plot = '.pane[data-tab="top-down"] .sidebar .cplot';
    await page.waitForSelector(`${plot}[data-state="ready"] canvas[data-contexts="4"]`);
    const ticks = await page.$eval(`${plot} canvas`, (e) => [e.dataset.xTicks, e.dataset.yTicks]);
    eq(ticks[0], '0|1|2|3', 'a tick per context');
    const ys = ticks[1].split('|');
    assert(ys[0] === '0' && ys.length >= 3, `value ticks from 0: ${ticks[1]}`);
    assert(await page.isVisible('.pane[data-tab="top-down"] .sidebar .ctx-section'), 'the per-context section');
    await shots(page, 'first-hpctoolkit', async (p) => { await p.waitForSelector(`${plot}[data-state="ready"] canvas[data-contexts="4"]`); });
    // one context of the four: the section goes
    await page.goto(hpc + '?tab=top-down&thread=%230');
    await waitRows(page, 'top-down', (x) => x.some((y) => y.selected), 'one thread');
    await page.waitForFunction(() => { const s = document.querySelector('.pane[data-tab="top-down"] .sidebar .ctx-section'); return !s || s.hidden; });
    await noError(page);
  });

  // ---- 9. every transform in the row menu ----
  const gecko = await serve(GECKO);
  const TRANSFORMS = [
    // [menu label, filter kind, argument, crumb]: foo (file://<URL>, category JavaScript)
    ['Merge function', 'merge', 'foo', 'Merge'],
    ['Focus on self only', 'focus-self', 'foo', 'Focus Self'],
    ['Focus on category JavaScript', 'focus-category', 'JavaScript', 'Focus category'],
    ['Collapse function', 'collapse-subtree', 'foo', 'Collapse subtree'],
    ['Collapse file://<URL>', 'collapse-module', 'file://<URL>', 'Collapse'],
    ['Collapse recursion', 'collapse-recursion', 'foo', 'Collapse recursion'],
    ['Collapse direct recursion only', 'collapse-direct-recursion', 'foo', 'Collapse direct recursion only'],
    ['Drop samples with this function', 'drop', 'foo', 'Drop'],
    ['Prune function and its callees', 'prune', 'foo', 'Prune'],
    ['Keep only samples with this function', 'include', 'foo', 'Include'],
  ];
  await test('ux 9: the row menu has every transform of the CLI, named as the Firefox Profiler names them', async () => {
    const foo = () => page.locator('.pane[data-tab="top-down"] .tt-row[data-key]', { has: page.locator('.nm', { hasText: /^foo$/ }) }).first();
    for (const [label, kind, arg, crumb] of TRANSFORMS) {
      await page.goto(gecko + '?tab=top-down');
      await waitRows(page, 'top-down', (x) => x.some((y) => y.name === 'foo'), 'foo');
      await foo().click({ button: 'right' });
      if (kind === 'merge') {
        const labels = await page.$$eval('.menu .mi', (els) => els.map((e) => e.dataset.label));
        for (const [l] of TRANSFORMS) assert(labels.includes(l), `the menu offers "${l}": ${labels.join(' | ')}`);
        assert(labels.includes('Focus on subtree only') && labels.includes('Set as center'), 'the centers');
        await shots(page, 'row-menu', async (p) => {
          await waitRows(p, 'top-down', (x) => x.some((y) => y.name === 'foo'), 'foo');
          await p.locator('.pane[data-tab="top-down"] .tt-row[data-key]', { has: p.locator('.nm', { hasText: /^foo$/ }) }).first().click({ button: 'right' });
        });
      }
      await page.click(`.menu .mi[data-label="${label}"]`);
      await page.waitForFunction((f) => new URLSearchParams(location.search).getAll('filter').join() === f, `${kind}:${arg}`);
      const crumbs = await page.$$eval('#filter-crumbs .crumb', (els) => els.map((e) => e.textContent));
      eq(crumbs, ['Complete profile', `${crumb}: ${arg}`], `${label}: the crumb`);
      // the rows are the CLI's with that filter
      const want = new Map();
      const walk = (list, prefix) => { for (const x of list) { const k = prefix ? prefix + '\u0001' + x.name : x.name; want.set(k, x.total); walk(x.children || [], k); } };
      walk(cli('tree', GECKO, `--${kind}`, arg, '--json').rows, '');
      const rows = await waitRows(page, 'top-down', (x) => x.every((y) => want.has(y.path)), `${label}: the filtered rows`);
      for (const x of rows) eq(num(x.total), want.get(x.path), `${label}: row ${x.path.replace(/\u0001/g, ' > ')}`);
    }
    await noError(page);
  });
  await test('ux 9: transforms from the keyboard and the flame graph\'s menu', async () => {
    await page.goto(gecko + '?tab=top-down');
    await waitRows(page, 'top-down', (x) => x.some((y) => y.name === 'foo'), 'foo');
    await page.locator('.pane[data-tab="top-down"] .tt-row[data-key]', { has: page.locator('.nm', { hasText: /^foo$/ }) }).first().click();
    for (const [key, f] of [['x', 'collapse-subtree:foo'], ['Shift+R', 'collapse-direct-recursion:foo'], ['Shift+F', 'focus-self:foo']]) {
      await page.keyboard.press(key);
      await page.waitForFunction((want) => new URLSearchParams(location.search).getAll('filter').pop() === want, f);
      await waitRows(page, 'top-down', (x) => x.some((y) => y.name === 'foo'), 'foo again');
      await page.locator('.pane[data-tab="top-down"] .tt-row[data-key]', { has: page.locator('.nm', { hasText: /^foo$/ }) }).first().click();
    }
    eq(new URL(page.url()).searchParams.getAll('filter'), ['collapse-subtree:foo', 'collapse-direct-recursion:foo', 'focus-self:foo'], 'three crumbs from keys');
    // the flame graph's box menu: the same list
    await page.goto(gecko + '?tab=flame');
    await page.waitForSelector('.pane[data-tab="flame"][data-state="ready"]');
    const at = await page.evaluate(() => {
      const p = window.profview.panes.get('flame');
      const it = p.up.items.find((i) => i.node.name === 'foo');
      const g = p.geom(it, 'callees', p.canvas.getBoundingClientRect().width);
      const r = p.canvas.getBoundingClientRect();
      return { x: r.left + (g.x0 + g.x1) / 2, y: r.top + g.y + 8 };
    });
    await page.mouse.click(at.x, at.y, { button: 'right' });
    await page.click('.menu .mi[data-label="Focus on category JavaScript"]');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('filter') === 'focus-category:JavaScript');
    await noError(page);
  });

  // ---- 10. the marker chart follows the selection; Zoom in under the axis; the chip ----
  await test('ux 10: the marker chart zooms to the timeline\'s selection; the range chip has 3 digits', async () => {
    const a = 324384.0, b = 324384.3;
    await page.goto(gecko + `?tab=marker-chart&range=${a}:${b}`);
    await page.waitForSelector('.pane[data-tab="marker-chart"][data-state="ready"]');
    await page.waitForFunction(([x, y]) => { const p = window.profview.panes.get('marker-chart'); return p.data && Math.abs(p.data.start - x) < 1e-6 && Math.abs(p.data.end - y) < 1e-6; }, [a, b]);
    // the markers of the window: those the CLI lists that overlap it (8 of the 11)
    const all = cli('markers', GECKO, '--json').rows;
    const inside = all.filter((m) => m.start < b && (m.end === null ? m.start : m.end) >= a).map((m) => m.index).sort((x, y) => x - y);
    eq(inside.length, 8, 'markers overlapping the range');
    const shown = await page.evaluate(() => window.profview.panes.get('marker-chart').data.rows.flatMap((r) => r.markers.map((m) => m.i)).sort((x, y) => x - y));
    eq(shown, inside, 'the chart\'s markers');
    // 0.3 ms long: to the µs, 3 significant digits of its length
    eq((await page.textContent('#range-chip')).replace('×', ''), 'Range 324384.000 – 324384.300 ms', 'the range chip');
    // the Zoom in button: shown, under the timeline's axis (18 px from the canvas's top)
    await page.waitForSelector('#zoom-button:not([hidden])');
    const geo = await page.evaluate(() => ({ btn: document.getElementById('zoom-button').getBoundingClientRect().top, canvas: document.getElementById('timeline-canvas').getBoundingClientRect().top }));
    assert(geo.btn >= geo.canvas + 18, `the button (${geo.btn}) is below the axis (${geo.canvas + 18})`);
    await shots(page, 'marker-chart-selection', paneReady('marker-chart'));
    await noError(page);
  });
  await test('ux 10: with hidden tracks above the canvas, Zoom in still clears the axis', async () => {
    // the HPCToolkit database has no sample times: a Chrome profile whose idle threads are hidden
    const u = await serve('tests/data/chrome/chromium-page.json.gz');
    await page.goto(u + '?tab=top-down');
    await page.waitForSelector('#timeline-canvas[data-state="ready"]');
    assert(await page.isVisible('#tracks-hidden'), 'the hidden tracks\' note');
    const span = await page.evaluate(() => [window.profview.ctx.profile.start, window.profview.ctx.profile.end]);
    const r0 = span[0] + (span[1] - span[0]) * 0.4, r1 = span[0] + (span[1] - span[0]) * 0.6;
    await page.goto(u + `?tab=top-down&range=${r0.toFixed(3)}:${r1.toFixed(3)}`);
    await page.waitForSelector('#timeline-canvas[data-state="ready"]');
    await page.waitForSelector('#zoom-button:not([hidden])');
    const geo = await page.evaluate(() => ({ btn: document.getElementById('zoom-button').getBoundingClientRect().top, canvas: document.getElementById('timeline-canvas').getBoundingClientRect().top }));
    assert(geo.btn >= geo.canvas + 18, `the button (${geo.btn}) is below the axis (${geo.canvas + 18})`);
    await shots(page, 'zoom-button', async (q) => { await q.waitForSelector('#zoom-button:not([hidden])'); });
  });

  // ---- 11. the differential flame graph ----
  const pdiff = await serve(PERF_NEW, '--base', PERF_BASE);
  await test('ux 11: the differential flame graph colours by the share of the whole, with a floor and a legend', async () => {
    await page.goto(pdiff + '?tab=flame');
    await page.waitForSelector('.pane[data-tab="flame"][data-state="ready"]');
    await page.waitForFunction(() => window.profview.panes.get('flame').data.base_total !== undefined);
    const got = await page.evaluate(() => {
      const p = window.profview.panes.get('flame');
      const w = p.canvas.getBoundingClientRect().width;
      const dpr = p.canvas.width / w;
      const c = p.canvas.getContext('2d');
      return { whole: p.data.total, nodes: p.up.items.filter((it) => it.depth).map((it) => {
        const g = p.geom(it, 'callees', w);
        const px = c.getImageData(Math.floor((g.x0 + 1) * dpr), Math.floor((g.y + 1) * dpr), 1, 1).data;
        return { name: it.node.name, total: it.node.total, base: it.node.base, width: g.x1 - g.x0, rgb: [px[0], px[1], px[2]] };
      }) };
    });
    // the whole: the new run's 1961 samples at 1999 Hz, as the CLI counts them
    eq(got.whole, cli('tree', PERF_NEW, '--json').total, 'the whole');
    let coloured = 0;
    for (const x of got.nodes) {
      if (x.width < 3) continue; // a box too narrow for its own pixel
      const d = x.total - x.base;
      const a = Math.abs(d) / got.whole;
      const k = a < 0.001 ? 0 : Math.min(1, 0.15 + 0.85 * Math.log(a / 0.001) / Math.log(100));
      const cc = Math.round(225 - 190 * k);
      const rgb = !k ? [225, 225, 228] : d > 0 ? [255, cc, cc] : [cc, cc, 255];
      eq(x.rgb, rgb, `${x.name} (delta ${d} of ${got.whole})`);
      if (k) coloured++;
    }
    assert(coloured > 3, `boxes coloured by their change: ${coloured}`);
    const legend = await page.$$eval('.pane[data-tab="flame"] .diff-legend .diff-swatch', (els) => els.map((e) => e.textContent));
    eq(legend, ['−10%', '−1%', '−0.1%', '±0.1%', '+0.1%', '+1%', '+10%'], 'the legend');
    await shots(page, 'flame-diff', paneReady('flame'));
    await noError(page);
    // the case: a -0.4 % change, the largest delta, was the darkest blue; a -0.01 % one
    // is below the floor. Folded stacks written here: a 1000 -> 960, d 5 -> 4 of 10005 -> 9964
    const fb = path.join(OUT, 'ux-diff-base.txt'), fn = path.join(OUT, 'ux-diff-new.txt');
    writeFileSync(fb, 'main;a 1000\nmain;b 9000\nmain;d 5\n');
    writeFileSync(fn, 'main;a 960\nmain;b 9000\nmain;d 4\n');
    const small = await serve(fn, '--base', fb);
    await page.goto(small + '?tab=flame');
    await page.waitForSelector('.pane[data-tab="flame"][data-state="ready"]');
    await page.waitForFunction(() => window.profview.panes.get('flame').data.base_total !== undefined);
    const byName = await page.evaluate(() => Object.fromEntries(window.profview.panes.get('flame').up.items.map((it) => [it.node.name, window.profview.panes.get('flame').fills.get(it.node.key)])));
    // a: -40 of 9964 = -0.401 %: 0.15 + 0.85 ln(4.01) / ln(100) = 0.407 of the way: rgb(148,148,255)
    eq(byName.a, 'rgb(148,148,255)', 'a, -0.4 % of the whole: a pale blue');
    eq(byName.d, 'rgb(225,225,228)', 'd, -0.01 %: below the floor, grey');
    eq(byName.b, 'rgb(225,225,228)', 'b, unchanged: grey');
  });

  // ---- 12. the centered flame graph, icicle, colour by category ----
  await test('ux 12: the centered flame graph marks its center and gives its total', async () => {
    await page.goto(gecko + '?tab=flame&center=mousedown');
    await page.waitForSelector('.pane[data-tab="flame"][data-state="ready"]');
    // mousedown: 5 of the 32 samples (profview tree --center mousedown)
    const want = cli('tree', GECKO, '--center', 'mousedown', '--json');
    eq(want.rows[0].total, 5, 'the center\'s total');
    eq(await page.textContent('.pane[data-tab="flame"] .flame-center'), 'center mousedown: 5 samples (15.63% of 32)', 'the toolbar');
    // the center row: outlined in the text colour, a dashed line in gold across the width
    const px = await page.evaluate(() => {
      const p = window.profview.panes.get('flame');
      const w = p.canvas.getBoundingClientRect().width;
      const dpr = p.canvas.width / w;
      const c = p.canvas.getContext('2d');
      const y = p.centerY();
      const at = (x, yy) => [...c.getImageData(Math.floor(x * dpr), Math.floor(yy * dpr), 1, 1).data].slice(0, 3);
      return { border: at(w / 2, y + 0.5), inside: at(w / 2, y + 8), line: at(w - 3, y - 1.5) };
    });
    eq(px.inside, [245, 197, 66], 'the center\'s gold');
    eq(px.border, [12, 12, 13], 'its outline');
    eq(px.line, [245, 197, 66], 'the line across');
    await shots(page, 'flame-center', paneReady('flame'));
  });
  await test('ux 12: icicle and colour by category', async () => {
    await page.goto(gecko + '?tab=flame&fi=1&fc=category');
    await page.waitForSelector('.pane[data-tab="flame"][data-state="ready"]');
    const g = await page.evaluate(() => {
      const p = window.profview.panes.get('flame');
      const w = p.canvas.getBoundingClientRect().width;
      const dpr = p.canvas.width / w;
      const c = p.canvas.getContext('2d');
      const find = (n) => p.up.items.find((i) => i.node.name === n);
      const box = (n) => { const it = find(n); const gg = p.geom(it, 'callees', w); return { y: gg.y, rgb: [...c.getImageData(Math.floor((gg.x0 + 2) * dpr), Math.floor((gg.y + 2) * dpr), 1, 1).data].slice(0, 3) }; };
      return { all: box('(all)'), root: box('(root)'), foo: box('foo'), mousedown: box('mousedown'), icicle: document.querySelector('.pane[data-tab="flame"] input[type=checkbox]').checked };
    });
    assert(g.all.y < g.root.y && g.root.y < g.mousedown.y && g.mousedown.y < g.foo.y, `the root on top: ${JSON.stringify(g)}`);
    assert(g.icicle, 'the icicle box is ticked');
    // foo: JavaScript (yellow, #ffd500); mousedown: DOM (blue, #0a84ff): the Firefox Profiler's palette
    eq(g.foo.rgb, [255, 213, 0], 'foo in JavaScript\'s yellow');
    eq(g.mousedown.rgb, [10, 132, 255], 'mousedown in DOM\'s blue');
    await shots(page, 'flame-icicle-category', paneReady('flame'));
    // unticked: the flame again (the root at the bottom)
    await page.click('.pane[data-tab="flame"] .pane-toolbar label:has-text("icicle") input');
    await page.waitForFunction(() => !new URLSearchParams(location.search).has('fi'));
    const up = await page.evaluate(() => { const p = window.profview.panes.get('flame'); const w = 800; return [p.geom(p.up.items[0], 'callees', w).y, p.geom(p.up.items[1], 'callees', w).y]; });
    assert(up[0] > up[1], `the root below its children: ${up}`);
    await noError(page);
  });

  // ---- 13. disassembly without a source file ----
  // a binary built here (its addresses from nm), a callgrind file written for it in a folder of
  // its own: prog.c is nowhere the server looks
  const dis = path.join(OUT, 'ux-disasm');
  mkdirSync(path.join(dis, 'profile'), { recursive: true });
  const { bin, work, last } = workProgram(path.join(dis, 'build'));
  const hex = (x) => '0x' + x.toString(16);
  const cg = path.join(dis, 'profile', 'prog.callgrind');
  writeFileSync(cg, ['# callgrind format', 'events: Ir', 'positions: instr line',
    `ob=${bin}`, 'fl=/nonexistent/src/prog.c', 'fn=main', `${hex(work - 0x40)} 8 1`, 'cfn=work', `calls=1 ${hex(work)} 3`, `${hex(work - 0x40)} 8 12`,
    'fn=work', `${hex(work)} 3 7`, `${hex(last)} 6 5`, 'totals: 13', ''].join('\n'));
  const dsrv = await serve(cg);
  await test('ux 13: no readable source: the Source tab shows the hottest function\'s instructions with their costs', async () => {
    await page.goto(dsrv + '?tab=source');
    await page.waitForSelector('.pane[data-tab="source"][data-state="ready"] .disasm-view[data-state="ready"] .disasm-row');
    const title = await page.textContent('.pane[data-tab="source"] .disasm-title');
    assert(title.includes('None of the 1 source files'), `why: ${title}`);
    assert(title.includes('work') && title.includes('self 12 Ir'), `the function and its self cost: ${title}`);
    const rows = await page.$$eval('.pane[data-tab="source"] .disasm-row', (els) => els.map((e) => ({ addr: e.dataset.addr, self: e.children[0].textContent, line: e.children[3].textContent, text: e.children[4].textContent })));
    // work's instructions from objdump: the first at nm's address with the file's 7, the last
    // (its ret, the size's last byte) with 5
    eq(rows[0].addr, hex(work), 'the first instruction: work\'s address');
    eq(rows[0].self, '7', 'its self cost: the file\'s');
    eq(rows[0].line, 'prog.c:3', 'its line (objdump -l)');
    const ret = rows.find((x) => x.addr === hex(last));
    assert(ret && ret.self === '5' && /^ret/.test(ret.text), `the ret at ${hex(last)}: ${JSON.stringify(ret)}`);
    eq(rows.filter((x) => x.self !== '').length, 2, 'two instructions with a cost');
    await shots(page, 'disasm-no-source', async (p) => { await p.waitForSelector('.disasm-view[data-state="ready"] .disasm-row'); });
    await noError(page);
  });

  await test('ux: no uncaught page error', async () => {
    eq(errors.filter((e) => !/ResizeObserver/.test(e)), [], 'page errors');
  });
  await page.close();
  await dark.close();
}

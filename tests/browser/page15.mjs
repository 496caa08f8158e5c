// Browser tests of the page's working habits (issue 15): the whole-profile search, threads and
// processes, the activity graph's samples, expand-all, the fixes, the layout. Called by
// test.mjs with its helpers (t: {test, serve, cli, api, waitRows, eq, assert, noError, OUT,
// SHOTS}); every expected figure is the CLI's or the API's for the same query.

const LARGE = 'tests/data/corpus/pprof/internal/proftest/testdata/large.cpu';
const PERF = 'tests/data/corpus/firefox/graphviz.perf.gz';
const CHROMIUM = 'tests/data/chrome/chromium-page.json.gz';
const MANY = 'tests/data/corpus/firefox/test.chrome.gz';

const param = (page, k) => new URL(page.url()).searchParams.get(k);

// The deepest leaf of `profview tree --json` (the first one met at the greatest depth).
function deepestLeaf(json) {
  let best = null;
  const walk = (rows, path) => {
    for (const r of rows) {
      const p = [...path, r.name];
      if (!(r.children || []).length && (!best || p.length > best.length)) best = p;
      walk(r.children || [], p);
    }
  };
  walk(json.rows, []);
  return best;
}

const EXAMPLE = 'examples/chromium-page.json.gz';
const ALL_TABS = ['top-down', 'bottom-up', 'flat', 'butterfly', 'flame', 'marker-chart', 'marker-table', 'source', 'trace', 'stack-chart'];

export async function page15Tests(context, t) {
  const { test, serve, cli, api, waitRows, eq, assert, noError } = t;
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));

  // ---- 2: threads and processes ----
  const chromium = await serve(CHROMIUM);
  await test('threads: the busiest thread is selected by default (the Firefox Profiler\'s rule), idle tracks hidden', async () => {
    const info = cli('info', CHROMIUM, '--json');
    // the CLI's own figures: a thread's active cost is its total less its Idle category's
    const active = info.threads.map((th, i) => th.samples ? cli('top', CHROMIUM, '--json', '--thread', `#${i}`).total - cli('top', CHROMIUM, '--json', '--thread', `#${i}`, '--focus-category', 'Idle').total : 0);
    const busiest = active.indexOf(Math.max(...active));
    eq(busiest, 3, 'the busiest thread by the CLI');
    await page.goto(chromium);
    await waitRows(page, 'top-down', null, 'rows');
    eq(param(page, 'thread'), `#${busiest}`, 'thread in the URL');
    const chip = await page.textContent('#thread-chip');
    assert(chip.includes('CrRendererMain') && chip.includes('10375'), `thread chip: ${chip}`);
    // the tree is the thread's: its total equals top --thread #3
    const resp = await page.evaluate(() => window.profview.panes.get('top-down').resp);
    eq(resp.whole[0], cli('top', CHROMIUM, '--json', '--thread', `#${busiest}`).total, 'the tree\'s whole');
    // 3 of 4 tracks are idle (two without samples, #2 under 5 % of #3's active cost)
    const note = await page.textContent('#tracks-hidden');
    assert(/3 idle tracks hidden/.test(note), `hidden note: ${note}`);
    const labels = await page.evaluate(() => window.profview.timeline.trackLabels());
    eq(labels.length, 1, 'one track shown');
    assert(labels[0].includes('Renderer') && labels[0].includes('CrRendererMain') && labels[0].includes('10375'), `label: ${labels[0]}`);
    await page.click('#tracks-hidden button');
    await page.waitForFunction(() => window.profview.timeline.trackLabels().length === 4);
    await noError(page);
  });

  await test('threads: merging all threads is one click, and shown in the query bar', async () => {
    await page.click('#merge-all');
    await page.waitForFunction(() => !new URL(location.href).searchParams.get('thread'));
    await waitRows(page, 'top-down', null, 'rows');
    const chip = await page.textContent('#thread-chip');
    assert(/All threads merged/.test(chip), `thread chip: ${chip}`);
    const whole = cli('top', CHROMIUM, '--json').total;
    await page.waitForFunction((w) => {
      const r = window.profview.panes.get('top-down').resp;
      return r && r.whole[0] === w;
    }, whole);
    // a reload keeps every thread merged (the default applies to a fresh URL only)
    await page.reload();
    await waitRows(page, 'top-down', null, 'rows');
    eq(param(page, 'thread'), null, 'no thread after a reload');
  });

  await test('threads: a track\'s context menu: only this thread, merge with the selection, hide', async () => {
    await page.evaluate(() => window.profview.timeline.showAll());
    await page.evaluate(() => window.profview.timeline.trackMenu(2, 100, 100));
    await page.click('#menu .mi:has-text("Only this thread")');
    await page.waitForFunction(() => new URL(location.href).searchParams.getAll('thread').join() === '#2');
    await page.evaluate(() => window.profview.timeline.trackMenu(3, 100, 100));
    await page.click('#menu .mi:has-text("Merge with the selection")');
    await page.waitForFunction(() => new URL(location.href).searchParams.getAll('thread').join() === '#2,#3');
    await page.evaluate(() => window.profview.timeline.trackMenu(1, 100, 100));
    await page.click('#menu .mi:has-text("Hide this track")');
    await page.waitForFunction(() => window.profview.timeline.trackLabels().length === 3);
    await noError(page);
  });

  // ---- 3: the activity graph is a way in ----
  await test('activity: a hovered point shows the sample\'s stack (the CLI\'s trace --at), a click selects its call node', async () => {
    await page.goto(chromium);
    await waitRows(page, 'top-down', null, 'rows');
    await page.waitForSelector('#timeline-canvas[data-state="ready"]');
    const box = await page.locator('#timeline-canvas').boundingBox();
    // the first track (the busiest thread, #3), at several points across the graph
    let checked = 0;
    for (const f of [0.45, 0.6, 0.75, 0.9]) {
      const x = box.x + 150 + (box.width - 150) * f, y = box.y + 18 + 38 - 8;
      await page.mouse.move(x, y);
      const s = await page.waitForFunction(() => {
        const tl = window.profview.timeline;
        return tl.sample && document.querySelector('#tooltip .sample-tip') ? { index: tl.sample.index, t: tl.sample.t } : null;
      }).then((h) => h.jsonValue());
      eq(s.index, 3, 'the hovered track');
      const cli3 = cli('trace', CHROMIUM, '--context', '3', '--at', String(s.t), '--json');
      const shown = await page.textContent('#tooltip .sample-tip .stack');
      eq(shown.split('\n'), cli3.frames.filter((fr) => fr.depth !== null).map((fr) => fr.name).reverse(), `stack at ${s.t} ms`);
      checked++;
      if (f === 0.9) {
        // a click: that sample's call node, selected in the top-down tree
        const key = cli3.frames.filter((fr) => fr.depth !== null).map((fr) => 'f' + fr.id).join('/');
        await page.mouse.down();
        await page.mouse.up();
        await page.waitForFunction((k) => new URL(location.href).searchParams.get('sel') === k, key);
        const rows = await waitRows(page, 'top-down', (r) => r.some((x) => x.selected && x.key === key), 'the sample\'s row selected');
        eq(rows.find((x) => x.selected).path.split('\u0001'), cli3.frames.filter((fr) => fr.depth !== null).map((fr) => fr.function), 'the selected path');
      }
    }
    eq(checked, 4, 'points checked');
    await noError(page);
  });

  await test('activity: the Idle category is drawn as idle (transparent) when a filter fades the rest', async () => {
    const alpha = await page.evaluate(async () => {
      const u = await import('./util.js');
      return [u.fade(u.categoryColor('transparent'), 0.3), u.fade('#ff0000', 0.3)];
    });
    eq(alpha, ['rgba(0,0,0,0)', 'rgba(255,0,0,0.3)'], 'faded transparent and red');
  });

  // ---- 1: whole-profile search ----
  const perf = await serve(PERF);
  await test('search: a deep function is found in the whole profile and its heaviest path opened', async () => {
    // the query the page starts with: the busiest thread (dot, #1)
    const tree = cli('tree', PERF, '--json', '--thread', '#1', '--max-rows', '0');
    const leaf = deepestLeaf(tree);
    const name = leaf[leaf.length - 1];
    assert(leaf.length >= 20, `a deep leaf: ${leaf.length}`);
    await page.goto(perf);
    await waitRows(page, 'top-down', null, 'rows');
    const found = await api(perf, 'search', `thread=%231&text=${encodeURIComponent(name)}`);
    assert(found.rows.length >= 1, `matches of ${name}`);
    const hit = found.rows.find((r) => r.name === name);
    // its total is top's row for the function
    const top = cli('top', PERF, '--json', '--thread', '#1', '-n', '0');
    eq(hit.total[0], top.rows.find((r) => r.name === name).total, `${name}'s total`);
    await page.fill('#search-box', name);
    await page.waitForSelector('#search-drop:not([hidden]) .sr-row');
    const listed = await page.$$eval('#search-drop .sr-name', (e) => e.map((x) => x.textContent));
    assert(listed.includes(name), `dropdown: ${listed.slice(0, 5)}`);
    await page.focus('#search-box');
    // Enter on the exact hit
    const idx = found.rows.indexOf(hit);
    for (let i = 0; i <= idx; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.waitForFunction((k) => new URL(location.href).searchParams.get('sel') === k, hit.key);
    const rows = await waitRows(page, 'top-down', (r) => r.some((x) => x.selected && x.key === hit.key), 'the hit selected');
    const sel = rows.find((x) => x.selected);
    // the path shown is a path of the CLI's tree to that function
    const names = sel.path.split('\u0001');
    eq(names[names.length - 1], name, 'the selected row');
    assert(names.length >= 2, `a path: ${names.length}`);
    await noError(page);
  });

  await test('search: "no match" says so; a scope typed into the box becomes the center', async () => {
    await page.fill('#search-box', 'no_such_function_anywhere');
    await page.waitForSelector('#search-drop:not([hidden]) .sr-none');
    const none = await page.textContent('#search-drop .sr-none');
    assert(/No function matches/.test(none), `no match: ${none}`);
    await page.fill('#search-box', 're:(');
    await page.waitForFunction(() => /bad regular expression/.test(document.querySelector('#search-drop').textContent));
    await page.fill('#search-box', 're:^main$');
    await page.waitForSelector('#search-drop:not([hidden]) .sr-row');
    await page.focus('#search-box');
    await page.keyboard.press('Shift+Enter');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('center') === 're:^main$');
    await waitRows(page, 'top-down', (r) => r.length && r[0].center, 'centered rows');
    await noError(page);
  });

  // ---- 5: expand-all ----
  const large = await serve(LARGE);
  await test('expand all: one request, 25,000+ rows, equal to api/subtree; a new query cancels it', async () => {
    await page.goto(large + '?tab=top-down');
    const rows0 = await waitRows(page, 'top-down', null, 'rows');
    const root = rows0[0];
    const want = await api(large, 'subtree', `view=tree&key=${encodeURIComponent(root.key)}`);
    assert(want.rows.length >= 25000, `subtree rows: ${want.rows.length}`);
    const reqs = [];
    page.on('request', (r) => { if (/\/api\/(subtree|children)/.test(r.url())) reqs.push(r.url()); });
    await page.click(`.pane[data-tab="top-down"] .tt-row[data-key="${root.key}"]`);
    const t0 = Date.now();
    await page.keyboard.press('*');
    await page.waitForFunction((n) => window.profview.panes.get('top-down').tree.flat.length >= n, want.rows.length / 2, { timeout: 120000 });
    const ms = Date.now() - t0;
    const shown = await page.evaluate(() => window.profview.panes.get('top-down').tree.flat.map((n) => n.key));
    // every row of the answer is shown (rows under a closed row are not)
    const keys = new Set(shown);
    const missing = want.rows.filter((r) => !keys.has(r.key));
    eq(missing.length, 0, 'rows of the answer not shown');
    eq(reqs.filter((u) => /subtree/.test(u)).length, 1, 'subtree requests');
    eq(reqs.filter((u) => /children/.test(u)).length, 0, 'children requests');
    const status = await page.textContent('#view-status');
    assert(/expanded/.test(status), `status: ${status}`);
    console.log(`#   expand-all: ${want.rows.length} rows in ${ms} ms`);
    // a second expand-all, then a query change at once: no error, the new query's rows
    await page.click('.tt-row[data-key]');
    await page.keyboard.press('Home');
    await page.keyboard.press('*');
    await page.selectOption('#by-select', 'module');
    await waitRows(page, 'top-down', (r) => r.length && r[0].key.startsWith('m'), 'module rows');
    await page.waitForTimeout(300);
    await noError(page);
  });

  // ---- 6: fixes ----
  await test('fixes: flame menu acts on the row\'s scope; timeline and marker chart count the last sample and marker; status per tab; one time zero', async () => {
    // the flame graph's nodes carry their scope (by=file: file:PATH; file: for no file), the
    // menu's argument
    const fl = await api(chromium, 'flame', 'by=file');
    const kids = fl.callees.children;
    eq(kids.map((k) => k.scope), kids.map((k) => (k.name === '<unknown file>' ? 'file:' : 'file:' + k.name)), 'flame scopes under by=file');
    // every sample is counted by the timeline (the last one too), as by info
    await page.goto(chromium + '?tab=marker-table');
    await page.waitForSelector('#timeline-canvas[data-state="ready"]');
    const info = cli('info', CHROMIUM, '--json');
    const counted = await page.evaluate(() => window.profview.timeline.full.threads.map((t) => t.samples));
    eq(counted, info.threads.map((t) => t.samples), 'samples per track');
    // the marker chart counts what the marker table counts (345: a marker at the last time)
    const table = await page.waitForFunction(() => /markers/.test(document.querySelector('#view-status').textContent) && document.querySelector('#view-status').textContent).then((h) => h.jsonValue());
    await page.click('#tabs button[data-tab="marker-chart"]');
    const chart = await page.waitForFunction((t) => { const x = document.querySelector('#view-status').textContent; return /markers/.test(x) && x !== '' ? x : null; }).then((h) => h.jsonValue());
    eq(chart, table, 'marker chart and table counts');
    eq(table, `${cli('markers', CHROMIUM, '--json').rows.length} markers`, 'the CLI\'s markers');
    // the status line belongs to the tab shown
    await page.click('#tabs button[data-tab="flat"]');
    const flat = await page.waitForFunction(() => /rows$/.test(document.querySelector('#view-status').textContent) && document.querySelector('#view-status').textContent).then((h) => h.jsonValue());
    await page.click('#tabs button[data-tab="marker-chart"]');
    eq(await page.textContent('#view-status'), chart, 'the chart\'s status again');
    await page.click('#tabs button[data-tab="flat"]');
    eq(await page.textContent('#view-status'), flat, 'the flat view\'s status again');
    // the range chip shows the numbers of the URL's range and of --range: to the digit that
    // gives its 99.75 ms 3 significant digits, the exact ends on hover
    await page.goto(chromium + '?tab=top-down&range=800.5:900.25');
    await waitRows(page, 'top-down', null, 'rows');
    const rc = await page.textContent('#range-chip .chip-text');
    eq(rc, 'Range 800.5 – 900.3 ms', 'range chip');
    const rt = await page.getAttribute('#range-chip .chip', 'title');
    assert(rt.includes('800.5') && rt.includes('900.25'), `range chip's title: ${rt}`);
    // a wide number in each number form (the top bar's switch; columns fit it), the exact
    // value on hover
    const fit = await page.evaluate(async () => {
      const u = await import('./util.js');
      const out = [];
      for (const f of ['exact', 'short', 'sci']) { u.setNumberForm(f); out.push(u.fitCost(1234567890, 'count')); }
      u.setNumberForm('exact');
      return out;
    });
    eq(fit, [['1,234,567,890', '1,234,567,890'], ['1.23G', '1,234,567,890'], ['1.23e+09', '1,234,567,890']], 'a 10-digit cost');
    await noError(page);
  });

  // ---- 7: layout and habits ----
  await test('layout: ? lists every key; the sidebar and the number columns can be dragged wider', async () => {
    await page.goto(chromium + '?tab=top-down');
    await waitRows(page, 'top-down', null, 'rows');
    await page.locator('.pane[data-tab="top-down"] .tt-body').focus();
    await page.keyboard.press('?');
    await page.waitForSelector('#help:not([hidden])');
    const keys = await page.$$eval('#help .help-key', (e) => e.map((x) => x.textContent));
    for (const k of ['?', '/', 's', '*', 'h', 'c', 'Enter', 'Ctrl+C']) assert(keys.includes(k), `key ${k} listed: ${keys.join(' ')}`);
    await page.keyboard.press('Escape');
    await page.waitForSelector('#help', { state: 'hidden' });
    // the sidebar: drag its left edge 100 px to the left
    const sb = page.locator('.pane[data-tab="top-down"] .sidebar');
    const b0 = await sb.boundingBox();
    await page.mouse.move(b0.x + 2, b0.y + 100);
    await page.mouse.down();
    await page.mouse.move(b0.x - 98, b0.y + 100, { steps: 5 });
    await page.mouse.up();
    const b1 = await sb.boundingBox();
    assert(Math.abs(b1.width - (b0.width + 100)) <= 2, `sidebar ${b0.width} -> ${b1.width}`);
    // a number column: drag the Total header's right edge 40 px to the right
    const cell = page.locator('.pane[data-tab="top-down"] .tt-head .num').first();
    const c0 = await cell.boundingBox();
    await page.mouse.move(c0.x + c0.width - 2, c0.y + c0.height / 2);
    await page.mouse.down();
    await page.mouse.move(c0.x + c0.width + 38, c0.y + c0.height / 2, { steps: 5 });
    await page.mouse.up();
    const c1 = await cell.boundingBox();
    assert(Math.abs(c1.width - (c0.width + 40)) <= 2, `column ${c0.width} -> ${c1.width}`);
    const rowCell = await page.locator('.pane[data-tab="top-down"] .tt-row .c-total').first().boundingBox();
    assert(Math.abs(rowCell.width - c1.width) <= 1, 'the rows follow the header');
    // kept across a reload
    await page.reload();
    await waitRows(page, 'top-down', null, 'rows');
    const b2 = await page.locator('.pane[data-tab="top-down"] .sidebar').boundingBox();
    assert(Math.abs(b2.width - b1.width) <= 2, `sidebar after a reload ${b2.width}`);
    await page.evaluate(() => localStorage.removeItem('profview.layout'));
  });

  await test('make run\'s example: several threads, markers, its page\'s source with per-line costs; serve says what to do', async () => {
    const ex = await serve(EXAMPLE);
    // the server loads in the background: its status says when
    for (let k = 0; k < 600 && (await api(ex, 'status', '')).state !== 'ready'; k++) await new Promise((r) => setTimeout(r, 50));
    const prof = await api(ex, 'profile', '');
    assert(prof.threads.length >= 2 && prof.markers.total > 100, 'threads and markers');
    const src = prof.sources.find((x) => x.available);
    assert(src, 'a source beside the profile');
    const sres = await api(ex, 'source', `file=${src.id}`);
    const costed = sres.lines.filter((l) => l.total);
    assert(costed.length >= 3, `lines with a cost: ${costed.length}`);
    const hint = await new Promise((resolve) => {
      import('node:child_process').then(({ spawn }) => {
        const p = spawn(process.argv[2], ['serve', EXAMPLE, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
        let err = '';
        p.stderr.on('data', (d) => { err += d; if (/Ctrl-C/.test(err)) { p.kill(); resolve(err); } });
        setTimeout(() => { p.kill(); resolve(err); }, 10000);
      });
    });
    assert(/open that URL in a browser \(--open starts one\); Ctrl-C stops/.test(hint), `serve's hint: ${hint}`);
  });

  await test('screenshots of every tab in the light and the dark theme (it follows the system)', async () => {
    const ex = await serve(EXAMPLE);
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const tab of ALL_TABS) {
        let q = `?tab=${tab}`;
        if (tab === 'butterfly') q += '&center=sortNumbers';
        if (tab === 'source') q += '&src=1';
        await page.goto(ex + q);
        await page.waitForSelector(`.pane[data-tab="${tab}"][data-state="ready"]`);
        await page.waitForSelector('#timeline-canvas[data-state="ready"]');
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        await noError(page);
        await page.screenshot({ path: `${t.SHOTS}/example-${tab}-${scheme}.png` });
      }
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      eq(bg, scheme === 'dark' ? 'rgb(28, 27, 34)' : 'rgb(255, 255, 255)', `${scheme} background`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  await test('page15: no uncaught page error', async () => {
    eq(errors.filter((e) => !/ResizeObserver/.test(e)), [], 'page errors');
  });
  await page.close();
}

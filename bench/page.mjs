// bench/page.mjs - issue 6's second figure: does the page of `profview serve` show a new center on
// a profile of 1 M distinct stacks without a visible stall, and does a 100,000-row tree scroll
// smoothly? Headless Debian Chromium through npm playwright-core (the browser tests' install,
// tests/browser/node_modules), the browser tests' flags.
//
//   node bench/page.mjs PROFVIEW BIG_PROFILE WIDE_PROFILE [ROUNDS]
//
// BIG_PROFILE: the profile whose center is moved (bench/run.sh: `gen firefox 250`, 1,000,006
// stacks, 14.6 M samples). WIDE_PROFILE: collapsed text whose top-down tree has 100,001 rows
// once its root is open (written by this script when missing). ROUNDS: center changes per tab
// (default 11), alternated top-down / bottom-up.
//
// A center change is done as a user does it: click a row of the tab, wait until the page is idle
// (the sidebar's per-thread request done), press `c`. Measured in the page (performance.now()):
// - the key press (its event timeStamp) -> the api/view request starts (page work before it);
// - the api/view request (Resource Timing): the server's part = requestStart -> responseStart,
//   the whole fetch = startTime -> responseEnd;
// - "first rows": the centered rows in the DOM (a MutationObserver sees the center row with the
//   new name) and painted (a task posted from there runs after the frame's paint);
//   page work after the answer = painted - responseEnd;
// - "settled": the heaviest path below the center opened (api/children requests, one per level)
//   and selected: the page's mark 'pv-tree-shown', then the next frame;
// - the longest main-thread task (PerformanceObserver 'longtask': tasks over 50 ms), the longest
//   gap between two animation frames, and the renderer's main-thread busy time (CDP
//   Performance.getMetrics TaskDuration) from the key press to settled + idle.
// Scrolling: on the wide profile, scripted scrolls driven by requestAnimationFrame (wheel-like
// small steps, a page per frame, random jumps like a scrollbar drag), 3 passes alternated; frame
// intervals, frames over 50 ms, long tasks.
// Prints a text report (bench/run.sh puts it in bench/RESULTS.md) and writes every figure to
// bench/out/page.json.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(ROOT, 'tests/browser/package.json'));
const { chromium } = require('playwright-core');

const [BIN, BIG, WIDE] = process.argv.slice(2, 5);
const ROUNDS = +(process.argv[5] || 11);
if (!BIN || !BIG || !WIDE || !(ROUNDS >= 1)) {
  console.error('usage: node bench/page.mjs PROFVIEW BIG_PROFILE WIDE_PROFILE [ROUNDS]');
  process.exit(2);
}
const OUTDIR = path.join(ROOT, 'bench/out');
mkdirSync(OUTDIR, { recursive: true });
const WIDE_ROWS = 100000;

const servers = [];
function serve(file) {
  return new Promise((resolve, reject) => {
    const p = spawn(BIN, ['serve', file, '--port', '0', '--quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
    servers.push(p);
    let out = '', err = '';
    const t = setTimeout(() => reject(new Error(`serve ${file}: no URL after 10 s: ${out} ${err}`)), 10000);
    p.stdout.on('data', (d) => {
      out += d;
      const m = /(http:\/\/\S+\/)/.exec(out);
      if (m) { clearTimeout(t); resolve(m[1]); }
    });
    p.stderr.on('data', (d) => { err += d; });
    p.on('exit', (code) => { clearTimeout(t); reject(new Error(`serve ${file} exited ${code}: ${err}`)); });
  });
}

async function waitReady(url) {
  for (let i = 0; i < 600; i++) {
    const st = await (await fetch(url + 'api/status')).json();
    if (st.state === 'ready') return;
    if (st.state === 'failed') throw new Error(`${url}: the profile failed to load`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url}: not loaded after 60 s`);
}

// Runs in the page before its own scripts.
function instrument() {
  const B = (window.__bench = { longtasks: [], resources: [], marks: [], frames: null });
  performance.setResourceTimingBufferSize(1000000);
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) B.longtasks.push({ start: e.startTime, dur: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) {
      B.resources.push({ name: e.name, start: e.startTime, reqStart: e.requestStart, resStart: e.responseStart, end: e.responseEnd, bytes: e.encodedBodySize });
    }
  }).observe({ type: 'resource', buffered: true });
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) {
      if (e.name !== 'pv-tree-shown') continue;
      const m = { at: e.startTime, view: e.detail, painted: null };
      B.marks.push(m);
      requestAnimationFrame(() => setTimeout(() => { m.painted = performance.now(); }, 0));
    }
  }).observe({ type: 'mark' });
  const tick = (t) => {
    if (!B.frames) return;
    B.frames.push(t);
    requestAnimationFrame(tick);
  };
  B.startFrames = () => { B.frames = []; requestAnimationFrame(tick); };
  B.stopFrames = () => { const f = B.frames || []; B.frames = null; return f; };
  window.addEventListener('keydown', (e) => { if (e.key === 'c') B.keyAt = e.timeStamp; }, true);
  // arm(tab, name): watch for the center row named `name` in the tab's pane
  B.arm = (tab, name) => {
    const pane = document.querySelector(`.pane[data-tab="${tab}"]`);
    const st = (B.cur = { tab, name, shown: null, painted: null });
    const seen = () => {
      for (const el of pane.querySelectorAll('.tt-row[data-key="c"]')) {
        if (!el.hidden && el.querySelector('.nm') && el.querySelector('.nm').textContent === name) return true;
      }
      return false;
    };
    const mo = new MutationObserver(() => {
      if (st.shown !== null || !seen()) return;
      st.shown = performance.now();
      mo.disconnect();
      setTimeout(() => { st.painted = performance.now(); }, 0);
    });
    mo.observe(pane, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['data-key', 'hidden'] });
    B.marks.length = 0;
    B.longtasks.length = 0;
    B.resources.length = 0;
    B.keyAt = null;
    B.startFrames();
  };
}

const median = (a) => {
  if (!a.length) return NaN;
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const max = (a) => (a.length ? Math.max(...a) : NaN);
const f0 = (x) => (Number.isFinite(x) ? x.toFixed(0) : '-');
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '-');

function netTracker(page) {
  let pending = 0, last = Date.now();
  const done = () => { pending = Math.max(0, pending - 1); last = Date.now(); };
  page.on('request', () => { pending++; last = Date.now(); });
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  return async (quietMs = 400, timeoutMs = 60000) => {
    // quiet for quietMs since the call too: a debounced request (the sidebar's plot, 120 ms
    // after a click) may not have started yet
    const t0 = Date.now();
    while (Date.now() - t0 < timeoutMs) {
      if (pending === 0 && Date.now() - Math.max(last, t0) >= quietMs) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('the page does not go idle');
  };
}

async function cdpMetrics(cdp) {
  const { metrics } = await cdp.send('Performance.getMetrics');
  const m = {};
  for (const x of metrics) m[x.name] = x.value;
  return m;
}

// The rows of a tab in view: [{key, name, depth, top}]
async function rowsInView(page, tab) {
  return page.$$eval(`.pane[data-tab="${tab}"] .tt-row[data-key]`, (els) => {
    const body = els.length ? els[0].closest('.tt-body') : null;
    const b = body ? body.getBoundingClientRect() : null;
    return els.filter((e) => !e.hidden).map((e) => {
      const r = e.getBoundingClientRect();
      return { i: +e.dataset.index, key: e.dataset.key, depth: +e.dataset.depth, name: e.querySelector('.nm') ? e.querySelector('.nm').textContent : '', inView: !!b && r.top >= b.top + 18 && r.bottom <= b.bottom - 4 };
    }).filter((r) => r.inView).sort((x, y) => x.i - y.i);
  });
}

async function centerChanges(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  context.setDefaultTimeout(60000);
  await context.addInitScript(instrument);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const idle = netTracker(page);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');

  // the first display, for the record
  const t0 = Date.now();
  await page.goto(url + '?tab=top-down');
  await page.waitForFunction(() => window.__bench.marks.some((m) => m.painted !== null), null, { timeout: 60000 });
  const firstDisplay = await page.evaluate(() => {
    const m = window.__bench.marks.find((x) => x.painted !== null);
    return { settled: m.painted, longest: Math.max(0, ...window.__bench.longtasks.map((l) => l.dur)) };
  });
  firstDisplay.wall = Date.now() - t0;
  await idle();

  const used = new Set();
  const results = [];
  const tabs = ['top-down', 'bottom-up'];
  for (let r = 0; r < 2 * ROUNDS; r++) {
    const tab = tabs[r % 2];
    const cur = await page.evaluate(() => window.profview.state.tab);
    if (cur !== tab) {
      await page.click(`#tabs button[data-tab="${tab}"]`);
      await page.waitForSelector(`.pane[data-tab="${tab}"] .tt-row[data-key="c"]`);
      await idle();
    }
    const rows = (await rowsInView(page, tab)).filter((x) => x.key !== 'c' && x.name && !used.has(x.name) && !x.name.startsWith('('));
    if (!rows.length) throw new Error(`round ${r}: no row to center on in ${tab}`);
    const pick = rows[(r * 7 + 3) % rows.length];
    used.add(pick.name);
    await page.click(`.pane[data-tab="${tab}"] .tt-row[data-key="${pick.key.replace(/"/g, '\\"')}"] .nm`);
    await idle();
    await page.evaluate(([t, n]) => window.__bench.arm(t, n), [tab, pick.name]);
    const m0 = await cdpMetrics(cdp);
    await page.keyboard.press('c');
    await page.waitForFunction(() => {
      const B = window.__bench;
      return B.cur.painted !== null && B.marks.some((m) => m.painted !== null);
    }, null, { timeout: 60000 });
    await idle();
    const m1 = await cdpMetrics(cdp);
    const got = await page.evaluate((name) => {
      const B = window.__bench;
      const frames = B.stopFrames();
      let gap = 0;
      for (let i = 1; i < frames.length; i++) gap = Math.max(gap, frames[i] - frames[i - 1]);
      const enc = encodeURIComponent(name);
      const isView = (x) => /\/api\/view\?/.test(x.name);
      // entries reach the observer late: keep the requests made after the key press
      const resources = B.resources.filter((x) => x.start >= B.keyAt);
      const view = resources.filter(isView).find((x) => new URL(x.name).searchParams.getAll('center').includes(name)) || null;
      const children = resources.filter((x) => /\/api\/children\?/.test(x.name));
      const others = resources.filter((x) => !isView(x) && !/\/api\/children\?/.test(x.name));
      const mark = B.marks.find((m) => m.painted !== null);
      return {
        key: B.keyAt, shown: B.cur.shown, painted: B.cur.painted, settledMark: mark.at, settled: mark.painted,
        view, children: children.map((x) => ({ start: x.start, end: x.end, server: x.resStart - x.reqStart })),
        others: others.map((x) => ({ what: new URL(x.name).pathname.split('/').pop(), start: x.start, end: x.end, server: x.resStart - x.reqStart })),
        longtasks: B.longtasks.filter((l) => l.start + l.dur >= B.keyAt),
        frameGap: gap, frames: frames.length, enc,
      };
    }, pick.name);
    if (!got.view) throw new Error(`round ${r}: no api/view request for ${pick.name}`);
    const v = got.view;
    const res = {
      tab, center: pick.name,
      firstPainted: got.painted - got.key,
      settled: got.settled - got.key,
      beforeRequest: v.start - got.key,
      viewServer: v.resStart - v.reqStart,
      viewFetch: v.end - v.start,
      viewBytes: v.bytes,
      afterAnswer: got.painted - v.end,
      children: got.children.length,
      childrenServer: got.children.reduce((s, c) => s + c.server, 0),
      pathOpen: got.settledMark - got.painted,
      others: got.others,
      longest: Math.max(0, ...got.longtasks.map((l) => l.dur)),
      longtasks: got.longtasks.length,
      frameGap: got.frameGap,
      mainBusy: (m1.TaskDuration - m0.TaskDuration) * 1000,
      script: (m1.ScriptDuration - m0.ScriptDuration) * 1000,
      layout: (m1.LayoutDuration + m1.RecalcStyleDuration - m0.LayoutDuration - m0.RecalcStyleDuration) * 1000,
    };
    results.push(res);
    console.error(`page: ${tab} center ${pick.name.slice(0, 50)}: first rows ${f0(res.firstPainted)} ms (server ${f0(res.viewServer)} ms, after the answer ${f1(res.afterAnswer)} ms), settled ${f0(res.settled)} ms, longest task ${f0(res.longest)} ms`);
  }
  await page.screenshot({ path: path.join(OUTDIR, 'page-center.png') });
  await context.close();
  return { firstDisplay, results, errors };
}

async function scrolling(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  context.setDefaultTimeout(60000);
  await context.addInitScript(instrument);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const idle = netTracker(page);
  const t0 = Date.now();
  await page.goto(url + '?tab=top-down');
  await page.waitForFunction((n) => {
    const s = document.querySelector('.pane[data-tab="top-down"] .tt-spacer');
    return s && s.offsetHeight === (n + 1) * 18 && window.__bench.marks.some((m) => m.painted !== null);
  }, WIDE_ROWS, { timeout: 60000 });
  const open = await page.evaluate(() => ({ settled: window.__bench.marks.find((m) => m.painted !== null).painted, longest: Math.max(0, ...window.__bench.longtasks.map((l) => l.dur)), longtasks: window.__bench.longtasks.map((l) => Math.round(l.dur)) }));
  open.wall = Date.now() - t0;
  await idle();
  await page.mouse.move(700, 500);
  // wheel: 40 px a frame; page: 900 px (every frame draws new rows); jump: anywhere, like
  // dragging the scrollbar fast. 300 frames each.
  const kinds = { wheel: { frames: 300 }, page: { frames: 300 }, jump: { frames: 300 } };
  const out = {};
  for (const k of Object.keys(kinds)) out[k] = { gaps: [], longtasks: [], blank: 0, frames: 0 };
  for (let pass = 0; pass < 3; pass++) {
    for (const [k, spec] of Object.entries(kinds)) {
      const got = await page.evaluate(async ([kind, frames]) => {
        const body = document.querySelector('.pane[data-tab="top-down"] .tt-body');
        const B = window.__bench;
        B.longtasks.length = 0;
        body.scrollTop = 0;
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        const t = [];
        let blank = 0;
        let pos = 0;
        const start = performance.now();
        await new Promise((resolve) => {
          let i = 0;
          const step = (ts) => {
            t.push(ts);
            // the rows drawn at this frame cover the viewport? (VList draws one frame after a scroll)
            if (i > 1) {
              const rows = [...body.querySelectorAll('.tt-row[data-index]')].filter((e) => !e.hidden).map((e) => +e.dataset.index);
              const top = Math.floor(body.scrollTop / 18), bottom = Math.floor((body.scrollTop + body.clientHeight - 1) / 18);
              const have = new Set(rows);
              if (!have.has(top) || !have.has(Math.min(bottom, 100000))) blank++;
            }
            if (i++ >= frames) { resolve(); return; }
            const max = body.scrollHeight - body.clientHeight;
            if (kind === 'jump') pos = Math.floor((((i * 7919) % 1000) / 1000) * max);
            else pos = (pos + (kind === 'wheel' ? 40 : 900)) % max;
            body.scrollTop = pos;
            requestAnimationFrame(step);
          };
          requestAnimationFrame(step);
        });
        const gaps = [];
        for (let j = 1; j < t.length; j++) gaps.push(t[j] - t[j - 1]);
        return { gaps, blank, longtasks: B.longtasks.filter((l) => l.start >= start).map((l) => l.dur) };
      }, [k, spec.frames]);
      out[k].gaps.push(...got.gaps);
      out[k].longtasks.push(...got.longtasks);
      out[k].blank += got.blank;
      out[k].frames += got.gaps.length;
    }
  }
  await context.close();
  return { open, scroll: out, errors };
}

function writeWide(file) {
  if (existsSync(file)) return;
  const lines = [];
  for (let i = 0; i < WIDE_ROWS; i++) lines.push(`main;f${String(i).padStart(6, '0')} ${1 + (i % 7)}`);
  writeFileSync(file, lines.join('\n') + '\n');
}

async function main() {
  writeWide(WIDE);
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const version = browser.version();
  const bigUrl = await serve(BIG);
  const tLoad = Date.now();
  await waitReady(bigUrl);
  const loadMs = Date.now() - tLoad;
  const cc = await centerChanges(browser, bigUrl);
  const wideUrl = await serve(WIDE);
  await waitReady(wideUrl);
  const sc = await scrolling(browser, wideUrl);
  await browser.close();

  const R = cc.results;
  const col = (k, tab) => R.filter((x) => !tab || x.tab === tab).map((x) => x[k]);
  const lines = [];
  lines.push(`Chromium ${version} headless, viewport 1400x900; profile loaded by the server in ${(loadMs / 1000).toFixed(1)} s;`);
  lines.push(`first display (top-down, heaviest path open): ${f0(cc.firstDisplay.settled)} ms after navigation, longest task ${f0(cc.firstDisplay.longest)} ms`);
  lines.push('');
  lines.push('Center moved with a row click + `c`, a new function each time (ms):');
  lines.push('tab        center                                    first rows  settled  before req  view: server  fetch  bytes   after answer  children  longest task  frame gap  main busy');
  for (const x of R) {
    lines.push(`${x.tab.padEnd(10)} ${x.center.slice(0, 40).padEnd(40)}  ${f0(x.firstPainted).padStart(10)}  ${f0(x.settled).padStart(7)}  ${f1(x.beforeRequest).padStart(10)}  ${f0(x.viewServer).padStart(12)}  ${f0(x.viewFetch).padStart(5)}  ${String(x.viewBytes).padStart(6)}  ${f1(x.afterAnswer).padStart(12)}  ${String(x.children).padStart(8)}  ${f0(x.longest).padStart(12)}  ${f0(x.frameGap).padStart(9)}  ${f0(x.mainBusy).padStart(9)}`);
  }
  lines.push('');
  lines.push('                         median (max) over the changes');
  const sum = (label, k, digits = 0) => {
    const fmt = digits ? f1 : f0;
    lines.push(`${label.padEnd(54)} ${['top-down', 'bottom-up', null].map((t) => `${fmt(median(col(k, t)))} (${fmt(max(col(k, t)))})`.padStart(14)).join('  ')}`);
  };
  lines.push(`${''.padEnd(54)} ${['top-down', 'bottom-up', 'all'].map((t) => t.padStart(14)).join('  ')}`);
  sum('key press -> centered rows painted', 'firstPainted');
  sum('key press -> heaviest path open, painted (settled)', 'settled');
  sum('page work before the api/view request', 'beforeRequest', 1);
  sum('api/view: server (request sent -> first byte)', 'viewServer');
  sum('api/view: whole fetch', 'viewFetch');
  sum('page work after the answer (-> rows painted)', 'afterAnswer', 1);
  sum('longest main-thread task (longtask, 0 = none > 50)', 'longest');
  sum('longest gap between two frames', 'frameGap');
  sum('renderer main-thread busy, key press -> idle', 'mainBusy');
  sum('  of which script', 'script');
  sum('api/children requests to open the heaviest path', 'children');
  lines.push(`long tasks (> 50 ms) over all ${R.length} changes: ${R.reduce((s, x) => s + x.longtasks, 0)}`);
  const other = new Map();
  for (const x of R) for (const o of x.others) { if (!other.has(o.what)) other.set(o.what, []); other.get(o.what).push(o.server); }
  lines.push(`the change's other requests, server part median (max), count: ${[...other].map(([k, v]) => `${k} ${f0(median(v))} (${f0(max(v))}) ms, ${v.length}`).join('; ') || 'none'}`);
  lines.push('(activity: the timeline\'s graph of the new center, asked once the tree is shown; thread-costs: the selected row\'s per-thread plot)');
  lines.push('');
  const o = sc.open;
  lines.push(`Scrolling the top-down tree of ${WIDE_ROWS.toLocaleString('en-US')} + 1 rows (${path.basename(WIDE)}): opening the root (100,000 children in one api/children answer) took ${f0(o.settled)} ms after navigation, long tasks then: ${o.longtasks.join(', ') || 'none'} ms`);
  lines.push('scroll                           frames  frame interval median  p99   max   frames > 50 ms  long tasks (max)  frames with rows missing');
  for (const [k, v] of Object.entries(sc.scroll)) {
    const s = [...v.gaps].sort((a, b) => a - b);
    const p99 = s[Math.min(s.length - 1, Math.floor(s.length * 0.99))];
    const label = { wheel: '40 px a frame (wheel)', page: '900 px a frame (a page)', jump: 'jumps anywhere (scrollbar drag)' }[k];
    lines.push(`${label.padEnd(32)} ${String(v.frames).padStart(6)}  ${f1(median(v.gaps)).padStart(21)}  ${f1(p99).padStart(4)}  ${f1(max(v.gaps)).padStart(5)}  ${String(v.gaps.filter((g) => g > 50).length).padStart(14)}  ${(v.longtasks.length + ' (' + f0(max(v.longtasks)) + ')').padStart(16)}  ${String(v.blank).padStart(24)}`);
  }
  const errs = [...cc.errors, ...sc.errors];
  if (errs.length) lines.push(`page errors: ${errs.join('; ')}`);
  console.log(lines.join('\n'));
  writeFileSync(path.join(OUTDIR, 'page.json'), JSON.stringify({ version, loadMs, ...cc, scrolling: sc }, null, 1));
  return errs.length ? 1 : 0;
}

let rc = 1;
try {
  rc = await main();
} catch (e) {
  console.error(`page: ${e.stack || e.message}`);
}
for (const s of servers) { try { s.kill(); } catch (e) { /* gone */ } }
process.exit(rc);

// bench/stackchart.mjs - issue 26's figure for the Stack Chart tab: on a large perf profile, does a
// zoom step (a wheel notch over the chart) draw its new boxes within 100 ms in headless Chromium?
// Headless Debian Chromium through npm playwright-core (the browser tests' install,
// tests/browser/node_modules), the browser tests' flags.
//
//   node bench/stackchart.mjs PROFVIEW PERF_FILE [STEPS]
//
// PERF_FILE: `perf script` text (bench/gen perf 168 FILE: the 168 MB class of issue 26). The page
// opens fresh (the busiest thread selected), the Stack Chart tab is clicked, then STEPS wheel
// notches (default 12) zoom in around points across the chart, then as many zoom out. A step is
// timed in the page (views/stackchart.js's lastStep, performance.now()): from the window change
// (the wheel event's handler) to the new window's boxes drawn — the api/trace-boxes request,
// its JSON and the canvas. Prints each step's time, the median, the 90th percentile and the
// worst, and the boxes drawn.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(ROOT, 'tests/browser/package.json'));
const { chromium } = require('playwright-core');

const [BIN, FILE] = process.argv.slice(2, 4);
const STEPS = +(process.argv[4] || 12);
if (!BIN || !FILE || !(STEPS >= 1)) {
  console.error('usage: node bench/stackchart.mjs PROFVIEW PERF_FILE [STEPS]');
  process.exit(2);
}

function serve(file) {
  return new Promise((resolve, reject) => {
    const p = spawn(BIN, ['serve', file, '--port', '0', '--quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    const t = setTimeout(() => reject(new Error(`serve ${file}: no URL after 600 s: ${err}`)), 600000);
    p.stdout.on('data', (d) => {
      out += d;
      const m = /(http:\/\/\S+\/)/.exec(out);
      if (m) { clearTimeout(t); resolve({ url: m[1], proc: p }); }
    });
    p.stderr.on('data', (d) => { err += d; });
    p.on('exit', (code) => { clearTimeout(t); reject(new Error(`serve exited ${code}: ${err}`)); });
  });
}

const q = (xs, f) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(f * s.length))]; };

const { url, proc } = await serve(FILE);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
try {
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
  page.setDefaultTimeout(600000);
  await page.goto(url);
  await page.waitForFunction(() => window.profview && window.profview.ready);
  const thread = new URL(page.url()).searchParams.getAll('thread');
  await page.click('#tabs button[data-tab="stack-chart"]');
  await page.waitForSelector('.pane[data-tab="stack-chart"][data-state="ready"]');
  const first = await page.evaluate(() => { const p = window.profview.panes.get('stack-chart'); return { boxes: p.data.d.boxes.length, win: p.win, thread: p.data.d.thread }; });
  console.log(`${FILE}: thread ${thread.join(',')} (${first.thread}), ${first.boxes} boxes over ${(first.win[1] - first.win[0]).toFixed(1)} ms`);
  const box = await page.locator('.pane[data-tab="stack-chart"] .sc-canvas').boundingBox();
  const times = [], boxes = [];
  for (let i = 0; i < 2 * STEPS; i++) {
    const f = 0.2 + 0.6 * ((i * 7) % STEPS) / STEPS;
    const before = await page.evaluate(() => window.profview.panes.get('stack-chart').steps || 0);
    await page.mouse.move(box.x + box.width * f, box.y + 20);
    await page.mouse.wheel(0, i < STEPS ? -200 : 200);
    await page.waitForFunction((n) => { const p = window.profview.panes.get('stack-chart'); return (p.steps || 0) > n && p.el.dataset.state === 'ready'; }, before);
    const r = await page.evaluate(() => {
      const p = window.profview.panes.get('stack-chart');
      const e = performance.getEntriesByType('resource').filter((x) => x.name.includes('/api/trace-boxes')).pop();
      return { ms: p.lastStep, n: p.data.d.boxes.length, span: p.win[1] - p.win[0], server: e.responseStart - e.requestStart, fetch: e.responseEnd - e.startTime };
    });
    times.push(r.ms);
    boxes.push(r.n);
    console.log(`step ${String(i + 1).padStart(2)} ${i < STEPS ? 'in ' : 'out'}: ${r.ms.toFixed(1).padStart(6)} ms, ${String(r.n).padStart(6)} boxes, window ${r.span.toFixed(3)} ms (request ${r.fetch.toFixed(1)} ms, server ${r.server.toFixed(1)} ms)`);
  }
  console.log(`zoom steps: median ${q(times, 0.5).toFixed(1)} ms, p90 ${q(times, 0.9).toFixed(1)} ms, worst ${Math.max(...times).toFixed(1)} ms; boxes ${Math.min(...boxes)} to ${Math.max(...boxes)}`);
} finally {
  await browser.close();
  proc.kill();
}

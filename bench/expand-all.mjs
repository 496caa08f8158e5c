// bench/expand-all.mjs - issue 15's expand-all figure: the page's '*' on a tree row against the
// single API request that returns the same rows (api/subtree). Headless Debian Chromium through
// npm playwright-core (the browser tests' install, tests/browser/node_modules).
//
//   node bench/expand-all.mjs PROFVIEW PROFILE [ROUNDS]
//
// The row expanded is the first root of the top-down tree. Per round: the API request alone
// (fetch from the page, the answer parsed: startTime -> JSON parsed), then the page's expand-all
// from the key press (its event timeStamp) to the rows drawn (the page's mark
// 'pv-expand-all-shown', then the next frame), the page idle before the key. Prints the medians and their ratio (the issue's
// bound: the page within 2x the request).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(ROOT, 'tests/browser/package.json'));
const { chromium } = require('playwright-core');

const [BIN, FILE] = process.argv.slice(2, 4);
const ROUNDS = +(process.argv[4] || 5);
if (!BIN || !FILE || !(ROUNDS >= 1)) {
  console.error('usage: node bench/expand-all.mjs PROFVIEW PROFILE [ROUNDS]');
  process.exit(2);
}

function serve(file) {
  return new Promise((resolve, reject) => {
    const p = spawn(BIN, ['serve', file, '--port', '0', '--quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const t = setTimeout(() => reject(new Error(`serve ${file}: no URL after 60 s`)), 60000);
    p.stdout.on('data', (d) => {
      out += d;
      const m = /(http:\/\/\S+\/)/.exec(out);
      if (m) { clearTimeout(t); resolve({ url: m[1], p }); }
    });
    p.on('exit', (code) => { clearTimeout(t); reject(new Error(`serve exited ${code}`)); });
  });
}

const median = (xs) => { const s = xs.slice().sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

const { url, p } = await serve(FILE);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
// requests in flight: the page is idle (the sidebar's per-context plot of the selected row
// answered) before '*' is pressed, so the figure is the expand-all's alone
let inflight = 0;
page.on('request', () => inflight++);
page.on('requestfinished', () => inflight--);
page.on('requestfailed', () => inflight--);
async function idle() {
  for (let quiet = 0; quiet < 5;) {
    await new Promise((r) => setTimeout(r, 50));
    quiet = inflight ? 0 : quiet + 1;
  }
}
await page.goto(url + '?tab=top-down');
await page.waitForSelector('.pane[data-tab="top-down"][data-state="ready"] .tt-row[data-key]', { timeout: 600000 });
const key = await page.$eval('.pane[data-tab="top-down"] .tt-row[data-key]', (e) => e.dataset.key);
const api = [], pg = [];
let rows = 0;
for (let r = 0; r < ROUNDS; r++) {
  const a = await page.evaluate(async (k) => {
    const t0 = performance.now();
    const res = await fetch(`api/subtree?view=tree&key=${encodeURIComponent(k)}`, { cache: 'no-store' });
    const j = await res.json();
    return { ms: performance.now() - t0, rows: j.rows.length };
  }, key);
  api.push(a.ms);
  rows = a.rows;
  // the page: collapse, select the root, '*'
  await page.click('.pane[data-tab="top-down"] button:has-text("Collapse all")');
  await page.click(`.pane[data-tab="top-down"] .tt-row[data-key="${key}"]`);
  await idle();
  await page.evaluate(() => { performance.clearMarks('pv-expand-all-shown'); window.__t0 = null; window.addEventListener('keydown', (e) => { if (e.key === '*') window.__t0 = e.timeStamp; }, { once: true, capture: true }); });
  await page.keyboard.press('*');
  const ms = await page.evaluate(() => new Promise((resolve) => {
    const poll = () => {
      const m = performance.getEntriesByName('pv-expand-all-shown');
      if (m.length) requestAnimationFrame(() => resolve(performance.now() - window.__t0));
      else setTimeout(poll, 5);
    };
    poll();
  }));
  pg.push(ms);
}
const ma = median(api), mp = median(pg);
console.log(`expand-all of ${rows.toLocaleString('en-US')} rows (${path.basename(FILE)}), ${ROUNDS} rounds, medians:`);
console.log(`  api/subtree request (fetch + JSON): ${ma.toFixed(0)} ms`);
console.log(`  the page's '*' to the rows drawn:  ${mp.toFixed(0)} ms  (${(mp / ma).toFixed(2)}x the request)`);
await browser.close();
p.kill();

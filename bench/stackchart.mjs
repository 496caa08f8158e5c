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

// CPU time (ms, user + system, from /proc) of a process and its descendants: the server's.
import { readFileSync, readdirSync } from 'node:fs';
const TICK_MS = 10; // getconf CLK_TCK = 100
function cpuMs(root) {
  const kids = new Map();
  const stat = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let f;
    try { f = readFileSync(`/proc/${d}/stat`, 'utf8'); } catch { continue; }
    const a = f.slice(f.lastIndexOf(')') + 2).split(' ');
    const pid = +d, ppid = +a[1];
    stat.set(pid, (+a[11] + +a[12]) * TICK_MS);
    if (!kids.has(ppid)) kids.set(ppid, []);
    kids.get(ppid).push(pid);
  }
  let ms = 0;
  const walk = (pid) => { ms += stat.get(pid) || 0; for (const k of kids.get(pid) || []) walk(k); };
  walk(root);
  return ms;
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
  const first = await page.evaluate(() => { const p = window.profview.panes.get('stack-chart'); return { boxes: p.data.d.boxes, win: p.win, thread: p.data.d.thread }; });
  console.log(`${FILE}: thread ${thread.join(',')} (${first.thread}), ${first.boxes} boxes over ${(first.win[1] - first.win[0]).toFixed(1)} ms`);
  const box = await page.locator('.pane[data-tab="stack-chart"] .sc-canvas').boundingBox();
  const times = [], boxes = [];
  // CPU time, which the machine's load does not inflate: the renderer's main thread and
  // process (Chrome's Performance metrics ThreadTime, ProcessTime) and the server's (/proc),
  // over each step; the step is awaited by a 5 ms timer in the page, not playwright's
  // per-frame polling (which would be counted)
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
  const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const cpuThread = [], cpuProcess = [], cpuServer = [];
  for (let i = 0; i < 2 * STEPS; i++) {
    const f = 0.2 + 0.6 * ((i * 7) % STEPS) / STEPS;
    const before = await page.evaluate(() => window.profview.panes.get('stack-chart').steps || 0);
    await page.mouse.move(box.x + box.width * f, box.y + 20);
    const m0 = await metrics(), s0 = cpuMs(proc.pid);
    await page.mouse.wheel(0, i < STEPS ? -200 : 200);
    await page.evaluate(async (n) => {
      const p = window.profview.panes.get('stack-chart');
      while (!((p.steps || 0) > n && p.el.dataset.state === 'ready')) await new Promise((r) => setTimeout(r, 5));
    }, before);
    const m1 = await metrics(), s1 = cpuMs(proc.pid);
    cpuThread.push((m1.ThreadTime - m0.ThreadTime) * 1000);
    cpuProcess.push((m1.ProcessTime - m0.ProcessTime) * 1000);
    cpuServer.push(s1 - s0);
    const r = await page.evaluate(() => {
      const p = window.profview.panes.get('stack-chart');
      const e = performance.getEntriesByType('resource').filter((x) => x.name.includes('/api/trace-boxes')).pop();
      return { ms: p.lastStep, parts: p.lastParts, n: p.data.d.boxes, span: p.win[1] - p.win[0], server: e.responseStart - e.requestStart, fetch: e.responseEnd - e.startTime };
    });
    times.push(r.ms);
    boxes.push(r.n);
    console.log(`step ${String(i + 1).padStart(2)} ${i < STEPS ? 'in ' : 'out'}: ${r.ms.toFixed(1).padStart(6)} ms, ${String(r.n).padStart(6)} boxes, window ${r.span.toFixed(3)} ms (request ${r.fetch.toFixed(1)} ms, server ${r.server.toFixed(1)} ms; answer ${r.parts.answer.toFixed(1)}, build ${r.parts.build.toFixed(1)}, draw ${r.parts.draw.toFixed(1)} ms); CPU: page thread ${cpuThread[i].toFixed(1)} ms, renderer ${cpuProcess[i].toFixed(1)} ms, server ${cpuServer[i]} ms`);
  }
  const mean = (xs) => (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(1);
  console.log(`CPU a step, median (mean): page main thread ${q(cpuThread, 0.5).toFixed(1)} (${mean(cpuThread)}) ms, renderer process ${q(cpuProcess, 0.5).toFixed(1)} (${mean(cpuProcess)}) ms, server ${q(cpuServer, 0.5)} (${mean(cpuServer)}) ms (/proc: 10 ms ticks); load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  console.log(`zoom steps: median ${q(times, 0.5).toFixed(1)} ms, p90 ${q(times, 0.9).toFixed(1)} ms, worst ${Math.max(...times).toFixed(1)} ms; boxes ${Math.min(...boxes)} to ${Math.max(...boxes)}`);
} finally {
  await browser.close();
  proc.kill();
}

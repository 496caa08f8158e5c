// bench/svg.mjs - issue 24's SVG figure: how long headless Chromium takes to open a flame graph
// SVG, run its script and paint it, for profview's `export --to svg` against flamegraph.pl's SVG
// of the same stacks. Debian Chromium through npm playwright-core (the browser tests' install,
// tests/browser/node_modules), the browser tests' flags.
//
//   node bench/svg.mjs [--rounds N] [--timeout S] NAME=FILE.svg ...
//
// Each round opens every file once, in the order given, in a new page: the time is the page's
// performance.now() when a frame after the load event has been drawn (two requestAnimationFrame
// callbacks after it): parsing, the script (profview's runs at the end of the document,
// flamegraph.pl's on the load event), style, layout and paint. On profview's page, then: a zoom
// into the widest box of the second row and the reset, each until the next frame is drawn.
// Prints per file the median and the range over the rounds, then one JSON line of every figure.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(ROOT, 'tests/browser/package.json'));
const { chromium } = require('playwright-core');

const args = process.argv.slice(2);
let rounds = 5;
let timeout = 600;
const files = [];
while (args.length) {
  const a = args.shift();
  if (a === '--rounds') rounds = +args.shift();
  else if (a === '--timeout') timeout = +args.shift();
  else {
    const eq = a.indexOf('=');
    if (eq < 1) throw new Error(`expected NAME=FILE, got ${a}`);
    files.push({ name: a.slice(0, eq), file: path.resolve(a.slice(eq + 1)), ms: [] });
  }
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
for (let r = 0; r < rounds; r++) {
  for (const f of files) {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    let ms;
    try {
      await page.goto(`file://${f.file}`, { waitUntil: 'load', timeout: timeout * 1000 });
      ms = await page.evaluate(() => new Promise((done) =>
        requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now())))));
      // profview's page: a click's zoom into the widest box of the second row, and the reset,
      // each to its next drawn frame
      const zu = await page.evaluate(async () => {
        if (!window.flamegraph) return null;
        const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        let g = null;
        for (const b of document.querySelectorAll('g.f[data-d="2"]'))
          if (!g || +b.getAttribute('data-w') > +g.getAttribute('data-w')) g = b;
        let t0 = performance.now();
        window.flamegraph.zoom(g);
        await frame();
        const z = performance.now() - t0;
        t0 = performance.now();
        window.flamegraph.unzoom();
        await frame();
        return [z, performance.now() - t0];
      });
      if (zu) (f.zoom ||= []).push(zu);
    } catch (e) {
      ms = Infinity; // not loaded within the timeout
    }
    if (errors.length) throw new Error(`${f.name}: page errors: ${errors.join('; ')}`);
    f.ms.push(ms);
    await page.close();
  }
}
await browser.close();
const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
for (const f of files) {
  const s = [...f.ms].sort((a, b) => a - b);
  const zoom = f.zoom ? `; zoom ${median(f.zoom.map((z) => z[0])).toFixed(0)} ms, reset ${median(f.zoom.map((z) => z[1])).toFixed(0)} ms` : '';
  console.log(`${f.name}: median ${median(f.ms).toFixed(0)} ms (${s[0].toFixed(0)}-${s[s.length - 1].toFixed(0)} ms, ${rounds} rounds)${zoom}`);
}
console.log(JSON.stringify(files.map((f) => ({ name: f.name, file: f.file, ms: f.ms.map((x) => +x.toFixed(1)),
  zoom: f.zoom && f.zoom.map((z) => z.map((x) => +x.toFixed(1))) }))));

#!/usr/bin/env node
// folded-readers.mjs - the collapsed exports of some files, read by other tools' own readers:
// speedscope's folded-stacks importer (npm `speedscope`, the module bench/speedscope-import.js
// loads) and, when one is given, Brendan Gregg's flamegraph.pl (its SVG's box titles). Each
// reader must find exactly the paths the export wrote, with their counts: every prefix of a
// line "f1;f2;...;fn COUNT" is one box named after its last frame, holding the counts of the
// lines under it (the one comment the export may write, "# no thread frames", is no stack).
// What a reader takes otherwise the export lists as lossy: of that, flamegraph.pl's reading of a
// last name ending in " NUMBER" as a count (the box is named without it) is expected here.
//
//   node tests/export/folded-readers.mjs PROFVIEW NODE_MODULES [--flamegraph PL] FILE...
//
// Prints "ok ..." / "not ok ..." lines per file and reader.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const args = process.argv.slice(2);
const pv = args.shift();
const nodeModules = args.shift();
let flamegraph = null;
if (args[0] === '--flamegraph') {
  args.shift();
  flamegraph = args.shift();
}
const here = path.dirname(new URL(import.meta.url).pathname);
const req = createRequire(import.meta.url);
const { loadImporters, importBuffer } = req(path.join(here, '../../bench/speedscope-import.js'));
const importers = loadImporters(nodeModules);
const tmp = mkdtempSync(path.join(tmpdir(), 'pv-folded-'));

// path (frames joined by NUL) -> summed count, from the folded text as written
function writtenPaths(text) {
  const paths = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line === '# no thread frames') continue;
    const sp = line.lastIndexOf(' ');
    const frames = line.slice(0, sp).split(';');
    const n = Number(line.slice(sp + 1));
    for (let i = 1; i <= frames.length; i++) {
      const k = frames.slice(0, i).join('\0');
      paths.set(k, (paths.get(k) || 0) + n);
    }
  }
  return paths;
}

function diff(want, got) {
  const out = [];
  for (const [k, v] of want) if (got.get(k) !== v) out.push(`${JSON.stringify(k)}: ${v} != ${got.get(k)}`);
  for (const [k, v] of got) if (!want.has(k)) out.push(`${JSON.stringify(k)}: none != ${v}`);
  return out;
}

function report(ok, what, details) {
  console.log(`${ok ? 'ok' : 'not ok'} ${what}`);
  if (!ok) for (const d of details.slice(0, 8)) console.log(`  ${d}`);
}

const unescape = (s) =>
  s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');

for (const file of args) {
  const out = path.join(tmp, 'export.collapsedstack.txt');
  execFileSync(pv, ['export', file, '--to', 'collapsed', '-o', out], { stdio: ['ignore', 'ignore', 'ignore'] });
  const text = readFileSync(out, 'utf8');
  const want = writtenPaths(text);

  // speedscope: its call tree, path by path
  const group = await importBuffer(importers, 'export.collapsedstack.txt', readFileSync(out));
  const got = new Map();
  const walk = (node, prefix) => {
    for (const c of node.children) {
      const k = prefix === null ? c.frame.name : `${prefix}\0${c.frame.name}`;
      got.set(k, (got.get(k) || 0) + c.getTotalWeight());
      walk(c, k);
    }
  };
  if (group) walk(group.profiles[0].getAppendOrderCalltreeRoot(), null);
  const d = group ? diff(want, got) : ['speedscope imported nothing'];
  report(d.length === 0, `${file}: speedscope reads the collapsed export's ${want.size} paths`, d);

  // flamegraph.pl: one box per path, titled "NAME (N samples, P%)" (annotations _[k] stripped)
  if (flamegraph) {
    const svg = execFileSync('perl', [flamegraph, '--minwidth', '0', out],
      { maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] }).toString();
    const boxes = new Map();
    for (const m of svg.matchAll(/<title>(.*) \(([\d,]+) samples, [\d.]+%(?:; [-+\d.]+%)?\)<\/title>/g)) {
      const k = `${unescape(m[1])}\0${m[2].replace(/,/g, '')}`;
      boxes.set(k, (boxes.get(k) || 0) + 1);
    }
    const expect = new Map([[`all\0${[...want].filter(([k]) => !k.includes('\0')).reduce((s, [, v]) => s + v, 0)}`, 1]]);
    const leaves = new Set(text.split('\n').map((l) => l.slice(0, l.lastIndexOf(' ')).split(';').join('\0')));
    for (const [k, v] of want) {
      let name = k.split('\0').pop().replace(/_\[[kwij]\]$/, '');
      // a line's last name ending in " NUMBER": flamegraph.pl takes the number for a first
      // count of a differential line (the export lists it as lossy)
      if (leaves.has(k)) name = name.replace(/\s+\d+(\.\d*)?$/, '');
      const key = `${name}\0${v}`;
      expect.set(key, (expect.get(key) || 0) + 1);
    }
    const e = diff(expect, boxes);
    report(e.length === 0, `${file}: flamegraph.pl draws the collapsed export's ${want.size} paths`, e);
  }
}
// speedscope's own file format: speedscope keys its frames by index, so functions of one name
// stay apart: its frames hold profview's per-function self and total (top's rows)
for (const file of args) {
  const out = path.join(tmp, 'export.speedscope.json');
  execFileSync(pv, ['export', file, '--to', 'speedscope', '-o', out], { stdio: ['ignore', 'ignore', 'ignore'] });
  const group = await importBuffer(importers, 'export.speedscope.json', readFileSync(out));
  const top = JSON.parse(execFileSync(pv, ['top', file, '--json', '-n', '100000']).toString());
  const want = new Map();
  for (const r of top.rows) {
    if (r.kind !== 'function') continue;
    const k = `${r.name}\0${r.self}\0${r.total}`;
    want.set(k, (want.get(k) || 0) + 1);
  }
  // a frame per shared entry (its key, the index), summed over the profiles (threads)
  const frames = new Map();
  for (const p of group ? group.profiles : []) {
    p.forEachFrame((f) => {
      const a = frames.get(f.key) || { name: f.name, self: 0, total: 0 };
      a.self += f.getSelfWeight();
      a.total += f.getTotalWeight();
      frames.set(f.key, a);
    });
  }
  const got = new Map();
  for (const f of frames.values()) {
    if (!f.total) continue;
    const k = `${f.name}\0${f.self}\0${f.total}`;
    got.set(k, (got.get(k) || 0) + 1);
  }
  const d = group ? diff(want, got) : ['speedscope imported nothing'];
  report(d.length === 0, `${file}: speedscope's frames of the speedscope export have top's ${want.size} functions`, d);
}
rmSync(tmp, { recursive: true, force: true });

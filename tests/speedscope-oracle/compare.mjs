#!/usr/bin/env node
// compare.mjs - profview's importers against speedscope's own (npm `speedscope`, the module
// bench/speedscope-import.js loads) on the same bytes: per thread (speedscope: per profile) the
// sample count, the total weight, and per function its self and total, all equal.
//
//   node tests/speedscope-oracle/compare.mjs PROFVIEW NODE_MODULES CASE...
//
// A CASE is FILE:HOW, HOW one of
//   deep-copy   an Instruments deep copy. speedscope reads "2.45 s" as 2 s (parseInt): both
//               readers are given a copy whose weights have no fraction ("2 s"), where they
//               must agree to the unit; speedscope's time is in ms, profview's in ns
//   jfr         a Java Flight Recorder file: speedscope's profile "NAME (TID)" per thread of
//               execution samples, weights in ns
// Prints "ok ..." / "not ok ..." per case.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const [pv, nodeModules, ...cases] = process.argv.slice(2);
const here = path.dirname(new URL(import.meta.url).pathname);
const req = createRequire(import.meta.url);
const { loadImporters, importBuffer } = req(path.join(here, '../../bench/speedscope-import.js'));
const importers = loadImporters(nodeModules);
const tmp = mkdtempSync(path.join(tmpdir(), 'pv-oracle-'));

const pvJson = (...args) => JSON.parse(execFileSync(pv, args, { maxBuffer: 1 << 28 }).toString());

function report(ok, what, details) {
  console.log(`${ok ? 'ok' : 'not ok'} ${what}`);
  if (!ok) for (const d of details.slice(0, 10)) console.log(`  ${d}`);
}

// the weight column of every row without its fraction, the rest as it was
function truncateWeights(text) {
  return text
    .split('\n')
    .map((line, i) => {
      if (i === 0) return line;
      const t = line.indexOf('\t');
      if (t < 0) return line;
      return line.slice(0, t).replace(/^(\s*\d+)\.\d+/, '$1') + line.slice(t);
    })
    .join('\n');
}

// speedscope profile -> Map name -> [self, total] (frames of one name summed: speedscope keys
// them by file too), the sample count, the total weight
function speedscopeFuncs(p) {
  const m = new Map();
  p.forEachFrame((f) => {
    const o = m.get(f.name) || [0, 0];
    m.set(f.name, [o[0] + f.getSelfWeight(), o[1] + f.getTotalWeight()]);
  });
  let n = 0;
  if (p.samples) n = p.samples.length;
  return { funcs: m, samples: n, total: p.getTotalWeight() };
}

function profviewFuncs(file, thread, scale) {
  const top = pvJson('top', '--json', '--max-rows', '0', '--thread', thread, file);
  const m = new Map();
  for (const r of top.rows) {
    const o = m.get(r.name) || [0, 0];
    m.set(r.name, [o[0] + r.self / scale, o[1] + r.total / scale]);
  }
  return { funcs: m, total: top.total / scale };
}

function diffFuncs(want, got) {
  const out = [];
  for (const [k, v] of want) {
    if (v[0] === 0 && v[1] === 0) continue;
    const g = got.get(k) || [0, 0];
    if (g[0] !== v[0] || g[1] !== v[1]) out.push(`${k}: speedscope self ${v[0]} total ${v[1]}, profview ${g[0]} ${g[1]}`);
  }
  for (const [k, g] of got) if (!want.has(k) && (g[0] || g[1])) out.push(`${k}: only profview's, ${g[0]} ${g[1]}`);
  return out;
}

for (const c of cases) {
  const k = c.lastIndexOf(':');
  const file = c.slice(0, k);
  const how = c.slice(k + 1);
  let bytes = readFileSync(file);
  let input = file;
  let scale = 1;
  if (how === 'deep-copy') {
    bytes = Buffer.from(truncateWeights(bytes.toString('utf8')));
    input = path.join(tmp, path.basename(file));
    writeFileSync(input, bytes);
  }
  const group = await importBuffer(importers, path.basename(file), bytes);
  if (!group) {
    report(false, `${file}: speedscope imported nothing`, []);
    continue;
  }
  const info = pvJson('info', '--json', input);
  const details = [];
  if (how === 'deep-copy') {
    const metric = info.metrics.find((m) => m.default);
    scale = metric.unit === 'ns' ? 1e6 : 1;
    if (group.profiles.length !== 1 || info.threads.length !== 1)
      details.push(`threads: speedscope ${group.profiles.length}, profview ${info.threads.length}`);
    const s = speedscopeFuncs(group.profiles[0]);
    const g = profviewFuncs(input, '#0', scale);
    if (s.total !== g.total) details.push(`total weight: speedscope ${s.total}, profview ${g.total}`);
    details.push(...diffFuncs(s.funcs, g.funcs));
    report(details.length === 0, `${file}: ${s.funcs.size} functions, total ${s.total}, as speedscope reads it`, details);
  } else if (how === 'jfr') {
    let nf = 0;
    let ns = 0;
    for (const p of group.profiles) {
      const m = /\((\d+)\)$/.exec(p.getName());
      const t = m && info.threads.findIndex((th) => String(th.tid) === m[1]);
      if (t === null || t < 0) {
        details.push(`speedscope profile ${p.getName()}: no thread of that tid`);
        continue;
      }
      const s = speedscopeFuncs(p);
      const th = info.threads[t];
      if (th.samples !== s.samples) details.push(`${p.getName()}: samples: speedscope ${s.samples}, profview ${th.samples}`);
      const g = profviewFuncs(input, `#${t}`, 1);
      if (s.total !== g.total) details.push(`${p.getName()}: total weight: speedscope ${s.total}, profview ${g.total}`);
      details.push(...diffFuncs(s.funcs, g.funcs).map((d) => `${p.getName()}: ${d}`));
      nf += s.funcs.size;
      ns += s.samples;
    }
    report(details.length === 0, `${file}: ${group.profiles.length} threads, ${ns} samples, ${nf} functions, as speedscope reads it`, details);
  } else {
    report(false, `${c}: unknown HOW ${how}`, []);
  }
}
rmSync(tmp, { recursive: true, force: true });

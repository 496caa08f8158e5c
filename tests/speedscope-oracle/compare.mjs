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
//   jfr         a Java Flight Recorder file: speedscope's two profiles of all threads, without
//               and with the native-method samples, each sample weighing 1
//   trace       a zipped Instruments .trace bundle: unzipped (unzip), handed to speedscope's
//               importFromFileSystemDirectoryEntry as the folder a user drops on its page; per
//               thread (speedscope: a profile per thread, listed once per process of the run:
//               kept once) the total weight and every function's self and total, in ns. A
//               bundle speedscope refuses must be refused by profview too (exit 2)
// Prints "ok ..." / "not ok ..." per case.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const [pv, nodeModules, ...cases] = process.argv.slice(2);
const here = path.dirname(new URL(import.meta.url).pathname);
const req = createRequire(import.meta.url);
const { loadImporters, importBuffer } = req(path.join(here, '../../bench/speedscope-import.js'));
const importers = loadImporters(nodeModules, true);
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
  if (how === 'trace') {
    await traceCase(file);
    continue;
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
    // speedscope merges the threads: profile "Without native calls" holds the execution samples
    // (profview's metric samples), "With native calls" those and the native-method samples
    // (native samples); its frames are "package.Class:method", profview's "package.Class.method"
    const byName = (n) => group.profiles.find((p) => p.getName() === n);
    const metrics = info.metrics.map((m) => m.name);
    const sum = (names) => {
      const m = new Map();
      let total = 0;
      for (const name of names) {
        if (!metrics.includes(name)) continue;
        const top = pvJson('top', '--json', '--max-rows', '0', '--metric', name, input);
        total += top.total;
        for (const r of top.rows) {
          const o = m.get(r.name) || [0, 0];
          m.set(r.name, [o[0] + r.self, o[1] + r.total]);
        }
      }
      return { funcs: m, total };
    };
    let nf = 0;
    for (const [pname, names] of [
      ['Without native calls', ['samples']],
      ['With native calls', ['samples', 'native samples']],
    ]) {
      const p = byName(pname);
      if (!p) {
        details.push(`speedscope made no profile "${pname}"`);
        continue;
      }
      const s = speedscopeFuncs(p);
      const renamed = new Map();
      for (const [k, v] of s.funcs) {
        const i = k.lastIndexOf(':');
        const n = i < 0 ? k : `${k.slice(0, i)}.${k.slice(i + 1)}`;
        const o = renamed.get(n) || [0, 0];
        renamed.set(n, [o[0] + v[0], o[1] + v[1]]);
      }
      const g = sum(names);
      if (s.total !== g.total) details.push(`${pname}: total weight: speedscope ${s.total}, profview ${g.total}`);
      details.push(...diffFuncs(renamed, g.funcs).map((d) => `${pname}: ${d}`));
      nf = Math.max(nf, renamed.size);
      details.push(`(${pname}: ${s.total} samples)`);
    }
    const real = details.filter((d) => !d.startsWith('('));
    const counts = details.filter((d) => d.startsWith('(')).join(' ');
    report(real.length === 0, `${file}: ${nf} functions, ${counts}, as speedscope reads it`, real);
  } else {
    report(false, `${c}: unknown HOW ${how}`, []);
  }
}
rmSync(tmp, { recursive: true, force: true });

// A folder on disk as the FileSystemDirectoryEntry a browser hands speedscope for a dropped
// folder; its files as Files that the context's FileReader reads (bench/speedscope-import.js)
function dirEntry(dir) {
  return {
    isDirectory: true,
    isFile: false,
    name: path.basename(dir),
    fullPath: dir,
    createReader: () => ({
      readEntries: (cb) =>
        cb(
          readdirSync(dir, { withFileTypes: true })
            .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name))
            .map((d) => {
              const p = path.join(dir, d.name);
              if (d.isDirectory()) return dirEntry(p);
              return { isDirectory: false, isFile: true, name: d.name, file: (ok) => ok({ name: d.name, path: p }) };
            })
        ),
    }),
  };
}

async function traceCase(file) {
  const dir = mkdtempSync(path.join(tmp, 'trace-'));
  execFileSync('unzip', ['-q', file, '-d', dir]);
  const bundle = readdirSync(dir).find((n) => n.endsWith('.trace'));
  let group = null;
  let refused = null;
  const quiet = console.log;
  console.log = () => {};
  try {
    group = await importers.importFromFileSystemDirectoryEntry(dirEntry(path.join(dir, bundle)));
  } catch (e) {
    refused = String(e.message || e);
  } finally {
    console.log = quiet;
  }
  let pvOut = '';
  let pvStatus = 0;
  try {
    execFileSync(pv, ['info', '--json', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    pvStatus = e.status;
    pvOut = String(e.stderr).trim();
  }
  if (refused !== null) {
    const ok = pvStatus === 2 && pvOut.split('\n').length === 1;
    report(ok, `${file}: refused by both (speedscope: ${refused}; profview: ${pvOut})`, [
      `profview exit ${pvStatus}: ${pvOut}`,
    ]);
    return;
  }
  const details = [];
  const info = pvJson('info', '--json', file);
  const profiles = new Map();
  for (const p of group.profiles) profiles.set(p.getName().replace(/^.* - /, ''), p);
  const names = info.threads.map((t) => t.name);
  if (names.length !== profiles.size || names.some((n) => !profiles.has(n)))
    details.push(`threads: speedscope ${[...profiles.keys()].join(', ')}; profview ${names.join(', ')}`);
  let nf = 0;
  for (const [name, p] of profiles) {
    if (!names.includes(name)) continue;
    const s = speedscopeFuncs(p);
    const g = profviewFuncs(file, name, 1);
    // the time before a thread's first sample: profview's stackless sample, speedscope's empty
    // stack; an address without a symbol is named by its hex, which speedscope reads as a
    // double (0xfffffffffffffffe is its 0x10000000000000000)
    g.funcs.delete('(no stack)');
    for (const [k, v] of [...g.funcs]) {
      if (!/^0x[0-9a-f]{16}$/.test(k)) continue;
      const d = `0x${Number(BigInt(k)).toString(16).padStart(16, '0')}`;
      if (d === k) continue;
      g.funcs.delete(k);
      const o = g.funcs.get(d) || [0, 0];
      g.funcs.set(d, [o[0] + v[0], o[1] + v[1]]);
    }
    if (s.total !== g.total) details.push(`${name}: total weight: speedscope ${s.total}, profview ${g.total}`);
    details.push(...diffFuncs(s.funcs, g.funcs).map((d) => `${name}: ${d}`));
    nf += s.funcs.size;
  }
  report(details.length === 0, `${file}: ${profiles.size} threads, ${nf} thread functions, as speedscope reads it`, details);
}

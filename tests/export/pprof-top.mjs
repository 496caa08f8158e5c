// pprof-top.mjs - pprof's own report of profview's pprof exports: for each file given,
// `profview export FILE --to pprof` then `pprof -top` on the result, and every function pprof
// lists must have the flat and cum values that `profview top --json` gives it (self, total).
//
//   node tests/export/pprof-top.mjs PROFVIEW PPROF FILE...
//   one line per file ("ok FILE: N functions" or "not ok FILE: ..."); the exit code is 1 when
//   one failed
//
// pprof runs with -symbolize=none (no symbol lookup: the names are those of the export),
// -nodefraction=0 -edgefraction=0 (no node dropped), -sample_index=<profview's metric> and
// -unit=ns (a time in exact nanoseconds; other units print as they are, with their suffix).
// A function name that two of profview's rows share (two modules) is not compared.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const NODES = 40;

// pprof -top's rows: "flat flat% sum% cum cum% name" after the header line
export function parseTop(text) {
  const rows = [];
  let body = false;
  for (const line of text.split('\n')) {
    if (!body) {
      body = /^\s*flat\s+flat%\s+sum%\s+cum\s+cum%/.test(line);
      continue;
    }
    const m = /^\s*(\S+)\s+\S+%\s+\S+%\s+(\S+)\s+\S+%\s+(.*)$/.exec(line);
    if (!m) continue;
    // "123ns", "76600796B", "0": the integer in the export's unit
    const num = (s) => (/^-?\d+/.test(s) ? Number(/^-?\d+/.exec(s)[0]) : NaN);
    rows.push({ name: m[3].replace(/ \(inline\)$/, ''), flat: num(m[1]), cum: num(m[2]) });
  }
  return rows;
}

function checkFile(bin, pprof, file, dir) {
  const out = path.join(dir, 'export.pb.gz');
  execFileSync(bin, ['export', file, '--to', 'pprof', '-o', out], { stdio: ['ignore', 'ignore', 'ignore'] });
  const top = JSON.parse(execFileSync(bin, ['top', file, '--json'], { maxBuffer: 1 << 28 }).toString());
  const text = execFileSync(pprof, ['-top', `-nodecount=${NODES}`, '-symbolize=none', '-nodefraction=0',
    '-edgefraction=0', '-unit=ns', `-sample_index=${top.metric}`, out],
  { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 }).toString();
  const rows = parseTop(text);
  const mine = new Map();
  const twice = new Set();
  for (const r of top.rows) {
    if (mine.has(r.name)) twice.add(r.name);
    mine.set(r.name, r);
  }
  const problems = [];
  let compared = 0;
  for (const r of rows) {
    if (twice.has(r.name)) continue;
    const m = mine.get(r.name);
    if (!m) {
      problems.push(`${r.name}: pprof lists it (flat ${r.flat}, cum ${r.cum}), profview does not`);
      continue;
    }
    if (m.self !== r.flat || m.total !== r.cum)
      problems.push(`${r.name}: pprof flat ${r.flat} cum ${r.cum}, profview self ${m.self} total ${m.total}`);
    compared++;
  }
  if (rows.length < Math.min(NODES, top.rows.length - twice.size) || compared === 0)
    problems.push(`pprof listed ${rows.length} functions (${compared} compared) of profview's ${top.rows.length}`);
  return { compared, problems };
}

function main([bin, pprof, ...files]) {
  const dir = mkdtempSync(path.join(tmpdir(), 'pv-pprof-top-'));
  let bad = 0;
  try {
    for (const file of files) {
      let r;
      try {
        r = checkFile(bin, pprof, file, dir);
      } catch (e) {
        r = { compared: 0, problems: [String(e.message).split('\n')[0]] };
      }
      if (r.problems.length === 0) {
        console.log(`ok ${file}: ${r.compared} functions`);
        continue;
      }
      bad++;
      console.log(`not ok ${file}`);
      for (const p of r.problems.slice(0, 8)) console.log(`  ${p}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return bad ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));

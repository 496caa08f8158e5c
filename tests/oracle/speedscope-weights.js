#!/usr/bin/env node
// speedscope-weights.js - what speedscope's own importer (npm `speedscope`, loaded as
// bench/speedscope-import.js does) builds from one file: per profile its sample runs, total
// weight, and per function name its self and total weight (a name counted once per sample
// however often it recurs), in the canonical text the unit tests compare profview's import with
// (tests/unit/test_formats_ss.c). Weights are printed times SCALE, rounded (1000: microseconds
// as nanoseconds); SCALE may be a comma-separated list, one per profile (GHC's time and bytes).
//
//   node tests/oracle/speedscope-weights.js NODE_MODULES FILE NAME SCALE > EXPECTED
//
// NAME is the file name speedscope is given (its extension picks the importer, as on its page).
'use strict';
const fs = require('fs');
const path = require('path');
const { loadImporters, importBuffer } = require(path.join(__dirname, '../../bench/speedscope-import.js'));

async function main() {
  const [nodeModules, file, name, scaleText] = process.argv.slice(2);
  const scales = (scaleText || '1').split(',').map(Number);
  const importers = loadImporters(nodeModules);
  const group = await importBuffer(importers, name || path.basename(file), fs.readFileSync(file));
  if (!group) {
    process.stderr.write(`speedscope: ${file}: not imported\n`);
    process.exit(1);
  }
  const out = [`# speedscope@${require(path.resolve(nodeModules, 'speedscope/package.json')).version} ` +
    `${path.basename(file)} as ${name} x${scales.join(',')}`];
  for (const [i, p] of group.profiles.entries()) {
    const scale = scales[Math.min(i, scales.length - 1)];
    const r = (w) => Math.round(w * scale);
    const fn = new Map(); // name -> [self, total]
    const walk = (node, open) => {
      const n = node.frame.name;
      const e = fn.get(n) || [0, 0];
      e[0] += node.getSelfWeight();
      if (!open.has(n)) e[1] += node.getTotalWeight();
      fn.set(n, e);
      const inner = new Set(open).add(n);
      for (const c of node.children) walk(c, inner);
    };
    for (const c of p.getGroupedCalltreeRoot().children) walk(c, new Set());
    out.push(`profile runs ${p.samples.length} total ${r(p.getTotalWeight())}`);
    const names = [...fn.keys()].sort();
    // a name of no weight (a node entered that cost nothing) is no row of profview's
    for (const n of names) if (r(fn.get(n)[1]) !== 0) out.push(`fn ${r(fn.get(n)[0])} ${r(fn.get(n)[1])} ${n}`);
  }
  process.stdout.write(out.join('\n') + '\n');
}

main().catch((e) => {
  process.stderr.write(`speedscope: ${e.stack || e}\n`);
  process.exit(1);
});

#!/usr/bin/env node
// speedscope-import.js - speedscope's own importer run under Node on one file: the peer of
// `profview tree` in bench/run.sh (doc/performance.md).
//
//   npm install --prefix bench --no-save --no-package-lock --ignore-scripts speedscope@1.25.0
//   node bench/speedscope-import.js FILE [NAME]
//
// The npm package ships only the browser bundle (dist/release/speedscope-*.js). Its module that
// holds the importers (exports importProfilesFromArrayBuffer, importProfileGroupFromText, ...)
// is built by esbuild as a lazily initialised namespace; this script loads the bundle's source
// up to the line where the app starts that module, hands the namespace to us instead of to the
// UI, and calls importProfilesFromArrayBuffer(NAME, bytes) as a file dropped on the page would.
// NAME defaults to "FILE.linux-perf.txt" so speedscope takes its `perf script` importer directly
// (it would also find it by content, after trying the other formats).
//
// Prints the import call's own time and what it built (profiles, samples, total weight) on
// standard error; the process's wall time and peak memory are measured from outside.
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

// The importers module of the speedscope package installed under nodeModules (default: bench's).
// wasm: what speedscope's Java Flight Recorder importer needs on top (its jfrview WebAssembly
// module, fetched from the bundle's folder; the context's own Object, whose prototype the module's
// loader compares with that of its arguments).
function loadImporters(nodeModules = path.join(__dirname, 'node_modules'), wasm = false) {
  const dist = path.join(nodeModules, 'speedscope', 'dist', 'release');
  const bundle = fs.readdirSync(dist).find((f) => /^speedscope-.*\.js$/.test(f));
  if (!bundle) throw new Error(`no speedscope bundle in ${dist} (npm install it first)`);
  const src = fs.readFileSync(path.join(dist, bundle), 'utf8');
  // var NS={};EXPORT(NS,{importFromFileSystemDirectoryEntry:...,importProfilesFromArrayBuffer:...
  const ns = /var ([\w$]+)=\{\};[\w$]+\(\1,\{importFromFileSystemDirectoryEntry:/.exec(src);
  if (!ns) throw new Error('cannot find the importers module in the bundle');
  // var X=Promise.resolve().then(()=>(INIT(),NS)); -- where the app starts that module
  const start = new RegExp(
    `var [\\w$]+=Promise\\.resolve\\(\\)\\.then\\(\\(\\)=>\\(([\\w$]+)\\(\\),${ns[1].replace('$', '\\$')}\\)\\);`
  ).exec(src);
  if (!start) throw new Error('cannot find where the bundle starts the importers module');
  const code =
    src.slice(0, start.index + start[0].length) +
    `globalThis.__speedscopeImporters=()=>(${start[1]}(),${ns[1]});})();`;
  // what the bundle's definitions touch of a browser before that point
  const noop = () => {};
  const fake = new Proxy(noop, { get: (t, k) => (k === Symbol.toPrimitive ? () => '' : fake), apply: () => fake });
  const ctx = {
    console, setTimeout, clearTimeout, TextDecoder, TextEncoder, Uint8Array, ArrayBuffer,
    DataView, Promise, Map, Set, WeakMap, Math, JSON, Date, Error, Symbol, Proxy, Reflect,
    Object, Array, String, Number, Boolean, RegExp, parseInt, parseFloat, isNaN, Infinity,
    performance, navigator: { userAgent: 'node', platform: 'node' }, document: fake,
    location: { search: '', hash: '', href: '' }, localStorage: fake, requestAnimationFrame: noop,
    addEventListener: noop, matchMedia: () => ({ matches: false, addListener: noop, addEventListener: noop }),
  };
  // a browser's FileReader for the Files of a dropped folder ({name, path} on disk: the .trace
  // bundles tests/speedscope-oracle hands to importFromFileSystemDirectoryEntry)
  ctx.FileReader = class {
    addEventListener(ev, cb) { this.cb = cb; }
    readAsArrayBuffer(f) {
      const b = fs.readFileSync(f.path);
      this.result = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
      setTimeout(() => this.cb());
    }
  };
  if (wasm) {
    delete ctx.Object;
    delete ctx.Array; // the context's own too: instruments.ts tests `instanceof Array` on its arrays
    ctx.Response = Response;
    ctx.fetch = async (u) =>
      new Response(fs.readFileSync(path.join(dist, String(u))), { headers: { 'Content-Type': 'application/wasm' } });
  }
  ctx.window = ctx;
  ctx.self = ctx;
  ctx.globalThis = ctx;
  vm.createContext(ctx);
  vm.runInContext(code, ctx, { filename: bundle });
  return ctx.__speedscopeImporters();
}

// What importers make of the bytes of buf as a file named name, speedscope's "Importing as ..."
// lines kept quiet; null when it recognises no format.
async function importBuffer(importers, name, buf) {
  const bytes = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const quiet = console.log;
  console.log = () => {};
  try {
    return await importers.importProfilesFromArrayBuffer(name, bytes);
  } finally {
    console.log = quiet;
  }
}

async function main() {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node speedscope-import.js FILE [NAME]\n');
    process.exit(2);
  }
  const name = process.argv[3] || `${path.basename(file)}.linux-perf.txt`;
  const importers = loadImporters();
  const buf = fs.readFileSync(file);
  const bytes = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const quiet = console.log;
  console.log = () => {}; // "Importing as ..."
  const t0 = performance.now();
  const group = await importers.importProfilesFromArrayBuffer(name, bytes);
  const t1 = performance.now();
  console.log = quiet;
  if (!group) {
    process.stderr.write(`speedscope: ${file}: not imported\n`);
    process.exit(1);
  }
  let samples = 0;
  let weight = 0;
  for (const p of group.profiles) {
    weight += p.getTotalWeight();
    samples += (p.samples || []).length;
  }
  process.stderr.write(
    `speedscope: import call ${(t1 - t0).toFixed(0)} ms: ${group.profiles.length} profiles, ` +
      `${samples} sample runs, total weight ${weight.toFixed(6)} s\n`
  );
}

module.exports = { loadImporters, importBuffer };

// as a script; tests/browser/test.mjs requires it for loadImporters only
if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`speedscope: ${e.stack || e}\n`);
    process.exit(1);
  });
}

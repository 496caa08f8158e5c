// Prints, per file, what the Firefox Profiler's importer builds: per thread its name, tid,
// sample count, weight total and per-function self/total (by function name).
import { readFileSync } from 'fs';
import { gunzipSync } from 'zlib';
import { attemptToConvertDhat } from 'firefox-profiler/profile-logic/import/dhat';
import { convertArtTraceProfile } from 'firefox-profiler/profile-logic/import/art-trace';
import { convertSimpleperfTraceProfile } from 'firefox-profiler/profile-logic/import/simpleperf';

type Acc = Map<string, [number, number]>;
function add(acc: Acc, names: string[], w: number) {
  // names: root first
  const seen = new Set<string>();
  names.forEach((n, i) => {
    let e = acc.get(n);
    if (!e) { e = [0, 0]; acc.set(n, e); }
    if (i === names.length - 1) e[0] += w;
    if (!seen.has(n)) { e[1] += w; seen.add(n); }
  });
}
function out(name: string, tid: any, n: number, wsum: number, acc: Acc) {
  const funcs = [...acc.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { name, tid, samples: n, weight: wsum, funcs: funcs.map(([k, v]) => [k, v[0], v[1]]) };
}
// processed profile (shared tables)
function processed(p: any, useAlloc: boolean) {
  const sh = p.shared;
  const names = (st: number | null) => {
    const r: string[] = [];
    for (let s = st; s !== null && s !== undefined; s = sh.stackTable.prefixOffset[s] === 0 ? null : s - sh.stackTable.prefixOffset[s])
      r.push(sh.stringArray[sh.funcTable.name[sh.frameTable.func[sh.stackTable.frame[s]]]]);
    return r.reverse();
  };
  return p.threads.map((t: any) => {
    const tab = useAlloc ? t.nativeAllocations : t.samples;
    const acc: Acc = new Map();
    let wsum = 0;
    for (let i = 0; i < tab.length; i++) {
      const w = tab.weight ? tab.weight[i] : 1;
      wsum += w;
      add(acc, names(tab.stack[i]), w);
    }
    return out(t.name, t.tid, tab.length, wsum, acc);
  });
}
// Gecko v11 (ART)
function gecko11(p: any) {
  return p.threads.map((t: any) => {
    const names = (st: number | null) => {
      const r: string[] = [];
      for (let s = st; s !== null; s = t.stackTable.data[s][1])
        r.push(t.stringTable[t.frameTable.data[t.stackTable.data[s][0]][0]]);
      return r.reverse();
    };
    const acc: Acc = new Map();
    for (const [st] of t.samples.data) add(acc, names(st), 1);
    return out(t.name, t.tid, t.samples.data.length, t.samples.data.length, acc);
  });
}
const [kind, file] = process.argv.slice(2);
let bytes = readFileSync(file);
if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
const u8 = new Uint8Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
let threads;
if (kind === 'dhat') threads = processed(attemptToConvertDhat(JSON.parse(bytes.toString('utf8'))), true);
else if (kind === 'art') {
  const g = convertArtTraceProfile(u8);
  threads = gecko11(g);
  console.log(JSON.stringify({ interval_ms: g.meta.interval }));
} else threads = processed(convertSimpleperfTraceProfile(u8), false);
console.log(JSON.stringify(threads));

// firefox-shape.mjs - checks that a file has the shape of the Firefox Profiler's processed
// format, version 70 (doc/export.md), as profview's `export --to firefox` claims to write it.
//
//   node tests/export/firefox-shape.mjs FILE...      one line per file: "ok FILE" or
//                                                     "not ok FILE" and its first problems
//   node tests/export/firefox-shape.mjs --self-test REFERENCE
//                                                     the reference file passes, and each of a
//                                                     list of damaged copies of it fails
//
// What is checked, from the format's documented types (the front-end's src/types/profile.ts
// and markers.ts, its processed-profile upgraders up to version 70) and from the files the
// front-end itself writes at that version (tests/data/corpus/firefox/generated-processed-v70-*):
//   - the top level: meta, libs, shared, threads (pages, counters, profilerOverhead and the
//     logs may be there); no other key;
//   - meta: interval > 0, startTime, processType, product, stackwalk 0|1, version (Gecko),
//     preprocessedProfileVersion 70, categories (each with a name, a colour of the documented
//     list and at least one subcategory; one at least of colour grey), markerSchema (below);
//     the keys the type lists, no other;
//   - libs: exactly arch, name, path, debugName, debugPath, breakpadId (strings) and codeId
//     (string or null);
//   - shared: stringArray (strings), stackTable, frameTable, funcTable, resourceTable,
//     nativeSymbols, sources, sourceLocationTable, each a table: exactly its documented
//     columns, each an array of `length` values of its type, every index in range (a string
//     index into stringArray, a frame into frameTable, ...); stackTable.prefixOffset 0 (a root)
//     or k <= i (the stack k rows before); a frame's subcategory set when its category is and
//     in that category's list;
//   - each thread: its documented keys (pid a string, tid a number or a string, the process
//     times), samples (stack, time or timeDeltas, weightType samples|tracing-ms|bytes, weight
//     null or numbers, optional eventDelay / threadCPUDelta; times never decrease) and markers
//     (data, name, startTime, endTime, phase, category): the times each phase needs (instant:
//     start; interval: start <= end; start: start; end: end), a category in meta.categories, a
//     payload an object or null, a cause {stack, time?, tid?} with a stack in range, and the
//     fields of a payload whose type names a schema of the value kind the field's format says
//     (a number, a string, a string index, a list);
//   - each marker schema: a name (unique), display locations of the documented list, fields
//     with a key, a format of the documented list (or a table of columns), optional labels.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

const VERSION = 70;

// the documented category colours, and two that Firefox itself writes (darkgray, lightgreen: the
// real capture tests/data/corpus/firefox/argument-values.json has them)
const CATEGORY_COLORS = new Set(['transparent', 'purple', 'green', 'orange', 'yellow', 'lightblue',
  'blue', 'brown', 'magenta', 'red', 'lightred', 'darkgrey', 'grey', 'darkgray', 'lightgreen']);
const DISPLAY = new Set(['marker-chart', 'marker-table', 'timeline-overview', 'timeline-memory',
  'timeline-ipc', 'timeline-fileio', 'timeline-network', 'stack-chart']);
const GRAPH_TYPES = new Set(['bar', 'line', 'line-filled']);
// value kinds of the field formats: text, a string table index, a number, a list; 'string'
// is shown as text whatever the value (the front-end's own IPC fixture has a boolean there)
const FORMAT_KIND = {
  url: 'string', 'file-path': 'string', 'sanitized-string': 'string', string: 'scalar',
  'unique-string': 'index', 'flow-id': 'index', 'terminating-flow-id': 'index',
  duration: 'number', time: 'number', seconds: 'number', milliseconds: 'number',
  microseconds: 'number', nanoseconds: 'number', bytes: 'number', percentage: 'number',
  integer: 'number', decimal: 'number', hexadecimal: 'number',
  pid: 'id', tid: 'id', list: 'list',
};
const WEIGHT_TYPES = new Set(['samples', 'tracing-ms', 'bytes']);

const TOP_REQUIRED = ['meta', 'libs', 'shared', 'threads'];
const TOP_OPTIONAL = ['pages', 'counters', 'profilerOverhead', 'profilingLog', 'profileGatheringLog'];
const META_REQUIRED = ['interval', 'startTime', 'processType', 'product', 'stackwalk', 'version',
  'preprocessedProfileVersion', 'markerSchema'];
const META_OPTIONAL = ['startTimeAsClockMonotonicNanosecondsSinceBoot',
  'startTimeAsMachAbsoluteTimeNanoseconds', 'startTimeAsQueryPerformanceCounterValue', 'endTime',
  'profilingStartTime', 'profilingEndTime', 'extensions', 'categories', 'debug', 'abi', 'misc',
  'oscpu', 'mainMemory', 'platform', 'toolkit', 'appBuildID', 'arguments', 'sourceURL',
  'physicalCPUs', 'logicalCPUs', 'CPUName', 'symbolicated', 'symbolicationNotSupported',
  'updateChannel', 'visualMetrics', 'configuration', 'sampleUnits', 'device', 'importedFrom',
  'fileName', 'fileSize', 'usesOnlyOneStackType', 'sourceCodeIsNotOnSearchfox', 'extra',
  'initialVisibleThreads', 'initialSelectedThreads', 'keepProfileThreadOrder', 'gramsOfCO2ePerKWh'];
const LIB_KEYS = ['arch', 'name', 'path', 'debugName', 'debugPath', 'breakpadId', 'codeId'];
const THREAD_REQUIRED = ['processType', 'processStartupTime', 'processShutdownTime', 'registerTime',
  'unregisterTime', 'pausedRanges', 'name', 'isMainThread', 'pid', 'tid', 'samples', 'markers'];
const THREAD_OPTIONAL = ['showMarkersInTimeline', 'eTLD+1', 'processName', 'isJsTracer',
  'jsAllocations', 'nativeAllocations', 'jsTracer', 'isPrivateBrowsing', 'userContextId',
  'usedInnerWindowIDs', 'tracedValuesBuffer', 'tracedObjectShapes'];

class Checker {
  constructor() {
    this.problems = [];
  }

  bad(where, what) {
    if (this.problems.length < 1000) this.problems.push(`${where}: ${what}`);
  }

  isObject(v) {
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  }

  // the object's keys: every required one, none outside required + optional
  keys(where, o, required, optional = []) {
    if (!this.isObject(o)) {
      this.bad(where, `expected an object, found ${JSON.stringify(o)?.slice(0, 40)}`);
      return false;
    }
    for (const k of required) if (!(k in o)) this.bad(where, `missing '${k}'`);
    const known = new Set([...required, ...optional]);
    for (const k of Object.keys(o)) if (!known.has(k)) this.bad(where, `unexpected key '${k}'`);
    return true;
  }

  num(where, v, { int = false, min = -Infinity, nullable = false } = {}) {
    if (v === null && nullable) return;
    if (typeof v !== 'number' || !Number.isFinite(v) || (int && !Number.isInteger(v)) || v < min)
      this.bad(where, `expected ${int ? 'an integer' : 'a number'}${min > -Infinity ? ` >= ${min}` : ''}` +
        `${nullable ? ' or null' : ''}, found ${JSON.stringify(v)}`);
  }

  str(where, v, { nullable = false } = {}) {
    if (v === null && nullable) return;
    if (typeof v !== 'string') this.bad(where, `expected a string${nullable ? ' or null' : ''}, found ${JSON.stringify(v)}`);
  }

  // an index into a table of n rows; `none` is the value that means "no row" (null or -1)
  index(where, v, n, what, none) {
    if (none !== undefined && v === none) return;
    if (!Number.isInteger(v) || v < 0 || v >= n)
      this.bad(where, `expected an index into ${what} (0..${n - 1}${none !== undefined ? ` or ${none}` : ''}), found ${JSON.stringify(v)}`);
  }

  // a column table: exactly the given columns, each an array of `length` values (and the
  // given other keys, not columns)
  table(where, t, columns, optional = [], scalars = []) {
    if (!this.keys(where, t, [...columns, ...scalars, 'length'], optional)) return 0;
    const n = t.length;
    this.num(`${where}.length`, n, { int: true, min: 0 });
    if (!Number.isInteger(n)) return 0;
    for (const c of [...columns, ...optional]) {
      if (!(c in t)) continue;
      if (!Array.isArray(t[c])) this.bad(`${where}.${c}`, 'expected an array');
      else if (t[c].length !== n) this.bad(`${where}.${c}`, `${t[c].length} values for length ${n}`);
    }
    return n;
  }

  // each row of column c: f(value, row)
  each(t, c, f) {
    if (!t || !Array.isArray(t[c])) return;
    t[c].forEach((v, i) => f(v, i));
  }
}

function checkCategories(ck, meta) {
  const cats = meta.categories;
  if (cats === undefined) return [];
  if (!Array.isArray(cats) || cats.length === 0) {
    ck.bad('meta.categories', 'expected a non-empty array');
    return [];
  }
  cats.forEach((c, i) => {
    const w = `meta.categories[${i}]`;
    if (!ck.keys(w, c, ['name', 'color', 'subcategories'])) return;
    ck.str(`${w}.name`, c.name);
    if (!CATEGORY_COLORS.has(c.color)) ck.bad(`${w}.color`, `not a category colour: ${JSON.stringify(c.color)}`);
    if (!Array.isArray(c.subcategories) || c.subcategories.length === 0)
      ck.bad(`${w}.subcategories`, 'expected a non-empty array');
    else c.subcategories.forEach((s, k) => ck.str(`${w}.subcategories[${k}]`, s));
  });
  if (!cats.some((c) => c && c.color === 'grey')) ck.bad('meta.categories', 'no category of colour grey (the default one)');
  return cats.map((c) => (c && Array.isArray(c.subcategories) ? c.subcategories.length : 0));
}

function checkFormat(ck, where, f) {
  if (typeof f === 'string') {
    if (!(f in FORMAT_KIND)) ck.bad(where, `not a field format: ${JSON.stringify(f)}`);
    return;
  }
  if (!ck.keys(where, f, ['type', 'columns'])) return;
  if (f.type !== 'table') ck.bad(`${where}.type`, `expected 'table', found ${JSON.stringify(f.type)}`);
  if (!Array.isArray(f.columns)) ck.bad(`${where}.columns`, 'expected an array');
  else f.columns.forEach((c, i) => {
    if (!ck.keys(`${where}.columns[${i}]`, c, [], ['type', 'label'])) return;
    if (c.type !== undefined) checkFormat(ck, `${where}.columns[${i}].type`, c.type);
    if (c.label !== undefined) ck.str(`${where}.columns[${i}].label`, c.label);
  });
}

function checkSchemas(ck, schemas) {
  const byName = new Map();
  if (!Array.isArray(schemas)) {
    ck.bad('meta.markerSchema', 'expected an array');
    return byName;
  }
  schemas.forEach((s, i) => {
    const w = `meta.markerSchema[${i}]`;
    if (!ck.keys(w, s, ['name', 'display', 'fields'], ['tooltipLabel', 'tableLabel', 'chartLabel',
      'description', 'graphs', 'colorField', 'isStackBased', 'style'])) return;
    ck.str(`${w}.name`, s.name);
    if (byName.has(s.name)) ck.bad(`${w}.name`, `a second schema named ${JSON.stringify(s.name)}`);
    byName.set(s.name, s);
    for (const k of ['tooltipLabel', 'tableLabel', 'chartLabel', 'description', 'colorField'])
      if (s[k] !== undefined) ck.str(`${w}.${k}`, s[k]);
    if (s.isStackBased !== undefined && typeof s.isStackBased !== 'boolean') ck.bad(`${w}.isStackBased`, 'expected a boolean');
    if (!Array.isArray(s.display)) ck.bad(`${w}.display`, 'expected an array');
    else s.display.forEach((d, k) => DISPLAY.has(d) || ck.bad(`${w}.display[${k}]`, `not a display location: ${JSON.stringify(d)}`));
    if (!Array.isArray(s.fields)) ck.bad(`${w}.fields`, 'expected an array');
    else s.fields.forEach((f, k) => {
      const wf = `${w}.fields[${k}]`;
      if (!ck.keys(wf, f, ['key', 'format'], ['label', 'hidden', 'searchable'])) return;
      ck.str(`${wf}.key`, f.key);
      if (f.label !== undefined) ck.str(`${wf}.label`, f.label);
      if (f.hidden !== undefined && typeof f.hidden !== 'boolean') ck.bad(`${wf}.hidden`, 'expected a boolean');
      checkFormat(ck, `${wf}.format`, f.format);
    });
    if (s.graphs !== undefined) {
      if (!Array.isArray(s.graphs)) ck.bad(`${w}.graphs`, 'expected an array');
      else s.graphs.forEach((g, k) => {
        if (!ck.keys(`${w}.graphs[${k}]`, g, ['key', 'type'], ['color'])) return;
        ck.str(`${w}.graphs[${k}].key`, g.key);
        if (!GRAPH_TYPES.has(g.type)) ck.bad(`${w}.graphs[${k}].type`, `not a graph type: ${JSON.stringify(g.type)}`);
      });
    }
  });
  return byName;
}

// one field value of a payload against its schema format
function checkField(ck, where, v, format, nstrings) {
  if (v === undefined || v === null) return; // every field is optional
  const kind = typeof format === 'string' ? FORMAT_KIND[format] : 'table';
  if (kind === 'string' && typeof v !== 'string') ck.bad(where, `format ${format}: expected a string, found ${JSON.stringify(v)}`);
  if (kind === 'scalar' && !['string', 'number', 'boolean'].includes(typeof v))
    ck.bad(where, `format string: expected a string, a number or a boolean, found ${JSON.stringify(v)}`);
  if (kind === 'index') ck.index(where, v, nstrings, `shared.stringArray (format ${format})`);
  if (kind === 'number' && (typeof v !== 'number' || !Number.isFinite(v)))
    ck.bad(where, `format ${format}: expected a number, found ${JSON.stringify(v)}`);
  if (kind === 'id' && typeof v !== 'number' && typeof v !== 'string')
    ck.bad(where, `format ${format}: expected a number or a string, found ${JSON.stringify(v)}`);
  if ((kind === 'list' || kind === 'table') && !Array.isArray(v)) ck.bad(where, `format ${kind}: expected an array`);
}

function checkProfile(ck, p) {
  if (!ck.keys('profile', p, TOP_REQUIRED, TOP_OPTIONAL)) return;
  const meta = p.meta;
  let nsub = [];
  let schemas = new Map();
  if (ck.keys('meta', meta, META_REQUIRED, META_OPTIONAL)) {
    ck.num('meta.interval', meta.interval, { min: Number.MIN_VALUE });
    ck.num('meta.startTime', meta.startTime);
    ck.num('meta.processType', meta.processType, { int: true });
    ck.str('meta.product', meta.product);
    if (meta.stackwalk !== 0 && meta.stackwalk !== 1) ck.bad('meta.stackwalk', `expected 0 or 1, found ${JSON.stringify(meta.stackwalk)}`);
    ck.num('meta.version', meta.version, { int: true, min: 0 });
    if (meta.preprocessedProfileVersion !== VERSION)
      ck.bad('meta.preprocessedProfileVersion', `expected ${VERSION}, found ${JSON.stringify(meta.preprocessedProfileVersion)}`);
    for (const k of ['debug', 'symbolicated']) if (k in meta && typeof meta[k] !== 'boolean') ck.bad(`meta.${k}`, 'expected a boolean');
    for (const k of ['abi', 'misc', 'oscpu', 'platform', 'toolkit', 'appBuildID', 'sourceURL', 'CPUName', 'importedFrom'])
      if (k in meta) ck.str(`meta.${k}`, meta[k]);
    if ('extensions' in meta) ck.table('meta.extensions', meta.extensions, ['id', 'name', 'baseURL']);
    nsub = checkCategories(ck, meta);
    schemas = checkSchemas(ck, meta.markerSchema);
  }
  const ncat = nsub.length || 1; // no categories: the front-end's default list has one at least

  if (!Array.isArray(p.libs)) ck.bad('libs', 'expected an array');
  const nlibs = Array.isArray(p.libs) ? p.libs.length : 0;
  (p.libs || []).forEach((l, i) => {
    if (!ck.keys(`libs[${i}]`, l, LIB_KEYS)) return;
    for (const k of LIB_KEYS.slice(0, 6)) ck.str(`libs[${i}].${k}`, l[k]);
    ck.str(`libs[${i}].codeId`, l.codeId, { nullable: true });
  });

  const sh = p.shared;
  if (!ck.keys('shared', sh, ['stringArray', 'stackTable', 'frameTable', 'funcTable', 'resourceTable',
    'nativeSymbols', 'sources', 'sourceLocationTable'])) return;
  if (!Array.isArray(sh.stringArray)) ck.bad('shared.stringArray', 'expected an array');
  const strings = Array.isArray(sh.stringArray) ? sh.stringArray : [];
  strings.forEach((s, i) => typeof s === 'string' || ck.bad(`shared.stringArray[${i}]`, 'expected a string'));
  const ns = strings.length;
  const str = (w, t, c, nullable) => ck.each(t, c, (v, i) => ck.index(`${w}.${c}[${i}]`, v, ns, 'shared.stringArray', nullable ? null : undefined));

  const S = sh.stackTable, F = sh.frameTable, U = sh.funcTable, R = sh.resourceTable;
  const N = sh.nativeSymbols, SRC = sh.sources, L = sh.sourceLocationTable;
  const nstack = ck.table('shared.stackTable', S, ['frame', 'prefixOffset']);
  const nframe = ck.table('shared.frameTable', F, ['address', 'inlineDepth', 'category', 'subcategory',
    'func', 'lib', 'nativeSymbol', 'innerWindowID', 'line', 'column', 'originalLocation']);
  const nfunc = ck.table('shared.funcTable', U, ['isJS', 'relevantForJS', 'name', 'resource', 'source',
    'lineNumber', 'columnNumber', 'originalLocation']);
  const nres = ck.table('shared.resourceTable', R, ['name', 'host', 'type']);
  const nsym = ck.table('shared.nativeSymbols', N, ['libIndex', 'address', 'name', 'functionSize']);
  const nsrc = ck.table('shared.sources', SRC, ['id', 'filename', 'startLine', 'startColumn', 'sourceMapURL', 'content']);
  const nloc = ck.table('shared.sourceLocationTable', L, ['source', 'line', 'column']);

  ck.each(S, 'frame', (v, i) => ck.index(`shared.stackTable.frame[${i}]`, v, nframe, 'shared.frameTable'));
  ck.each(S, 'prefixOffset', (v, i) => ck.num(`shared.stackTable.prefixOffset[${i}]`, v, { int: true, min: 0 }) ||
    (Number.isInteger(v) && v > i && ck.bad(`shared.stackTable.prefixOffset[${i}]`, `${v} rows back from row ${i}`)));

  const w = 'shared.frameTable';
  ck.each(F, 'address', (v, i) => ck.num(`${w}.address[${i}]`, v, { int: true, min: -1 }));
  ck.each(F, 'inlineDepth', (v, i) => ck.num(`${w}.inlineDepth[${i}]`, v, { int: true, min: 0 }));
  ck.each(F, 'category', (v, i) => {
    ck.index(`${w}.category[${i}]`, v, ncat, 'meta.categories', null);
    const sub = F.subcategory?.[i];
    if (v === null) return;
    if (sub === null || sub === undefined) ck.bad(`${w}.subcategory[${i}]`, `null for category ${v}`);
    else if (Number.isInteger(v) && v < nsub.length) ck.index(`${w}.subcategory[${i}]`, sub, nsub[v], `the subcategories of category ${v}`);
  });
  ck.each(F, 'func', (v, i) => ck.index(`${w}.func[${i}]`, v, nfunc, 'shared.funcTable'));
  ck.each(F, 'lib', (v, i) => ck.index(`${w}.lib[${i}]`, v, nlibs, 'libs', -1));
  ck.each(F, 'nativeSymbol', (v, i) => ck.index(`${w}.nativeSymbol[${i}]`, v, nsym, 'shared.nativeSymbols', null));
  ck.each(F, 'innerWindowID', (v, i) => ck.num(`${w}.innerWindowID[${i}]`, v, { int: true, min: 0, nullable: true }));
  ck.each(F, 'line', (v, i) => ck.num(`${w}.line[${i}]`, v, { int: true, min: 0, nullable: true }));
  ck.each(F, 'column', (v, i) => ck.num(`${w}.column[${i}]`, v, { int: true, min: 0, nullable: true }));
  ck.each(F, 'originalLocation', (v, i) => ck.index(`${w}.originalLocation[${i}]`, v, nloc, 'shared.sourceLocationTable', null));

  const u = 'shared.funcTable';
  for (const c of ['isJS', 'relevantForJS'])
    ck.each(U, c, (v, i) => typeof v === 'boolean' || ck.bad(`${u}.${c}[${i}]`, `expected a boolean, found ${JSON.stringify(v)}`));
  str(u, U, 'name');
  ck.each(U, 'resource', (v, i) => ck.index(`${u}.resource[${i}]`, v, nres, 'shared.resourceTable', -1));
  ck.each(U, 'source', (v, i) => ck.index(`${u}.source[${i}]`, v, nsrc, 'shared.sources', null));
  ck.each(U, 'lineNumber', (v, i) => ck.num(`${u}.lineNumber[${i}]`, v, { int: true, min: 0, nullable: true }));
  ck.each(U, 'columnNumber', (v, i) => ck.num(`${u}.columnNumber[${i}]`, v, { int: true, min: 0, nullable: true }));
  ck.each(U, 'originalLocation', (v, i) => ck.index(`${u}.originalLocation[${i}]`, v, nloc, 'shared.sourceLocationTable', null));

  str('shared.resourceTable', R, 'name');
  str('shared.resourceTable', R, 'host', true);
  // resource types: 0 unknown, 1 library, 2 addon, 3 webhost, 4 otherhost, 5 url
  ck.each(R, 'type', (v, i) => ck.index(`shared.resourceTable.type[${i}]`, v, 6, 'the resource types'));

  ck.each(N, 'libIndex', (v, i) => ck.index(`shared.nativeSymbols.libIndex[${i}]`, v, nlibs, 'libs'));
  ck.each(N, 'address', (v, i) => ck.num(`shared.nativeSymbols.address[${i}]`, v, { int: true, min: 0 }));
  str('shared.nativeSymbols', N, 'name');
  ck.each(N, 'functionSize', (v, i) => ck.num(`shared.nativeSymbols.functionSize[${i}]`, v, { int: true, min: 0, nullable: true }));

  ck.each(SRC, 'id', (v, i) => ck.str(`shared.sources.id[${i}]`, v, { nullable: true }));
  str('shared.sources', SRC, 'filename');
  ck.each(SRC, 'startLine', (v, i) => ck.num(`shared.sources.startLine[${i}]`, v, { int: true, min: 1 }));
  ck.each(SRC, 'startColumn', (v, i) => ck.num(`shared.sources.startColumn[${i}]`, v, { int: true, min: 1 }));
  ck.each(SRC, 'sourceMapURL', (v, i) => ck.str(`shared.sources.sourceMapURL[${i}]`, v, { nullable: true }));
  ck.each(SRC, 'content', (v, i) => ck.str(`shared.sources.content[${i}]`, v, { nullable: true }));
  ck.each(L, 'source', (v, i) => ck.index(`shared.sourceLocationTable.source[${i}]`, v, nsrc, 'shared.sources'));

  if (!Array.isArray(p.threads)) {
    ck.bad('threads', 'expected an array');
    return;
  }
  p.threads.forEach((t, ti) => checkThread(ck, `threads[${ti}]`, t, { nstack, ncat, ns, schemas }));
}

function checkThread(ck, w, t, { nstack, ncat, ns, schemas }) {
  if (!ck.keys(w, t, THREAD_REQUIRED, THREAD_OPTIONAL)) return;
  ck.str(`${w}.processType`, t.processType);
  ck.num(`${w}.processStartupTime`, t.processStartupTime);
  ck.num(`${w}.processShutdownTime`, t.processShutdownTime, { nullable: true });
  ck.num(`${w}.registerTime`, t.registerTime);
  ck.num(`${w}.unregisterTime`, t.unregisterTime, { nullable: true });
  if (!Array.isArray(t.pausedRanges)) ck.bad(`${w}.pausedRanges`, 'expected an array');
  ck.str(`${w}.name`, t.name);
  if (typeof t.isMainThread !== 'boolean') ck.bad(`${w}.isMainThread`, 'expected a boolean');
  ck.str(`${w}.pid`, t.pid);
  if (typeof t.tid !== 'number' && typeof t.tid !== 'string') ck.bad(`${w}.tid`, 'expected a number or a string');
  if ('processName' in t) ck.str(`${w}.processName`, t.processName);

  // samples: time or timeDeltas (one of them), weight null or a column
  const s = t.samples;
  const ws = `${w}.samples`;
  if (ck.isObject(s)) {
    const timeCol = 'time' in s ? 'time' : 'timeDeltas';
    if ('time' in s && 'timeDeltas' in s) ck.bad(ws, 'both time and timeDeltas');
    if (!(timeCol in s)) ck.bad(ws, 'neither time nor timeDeltas');
    const optional = ['eventDelay', 'threadCPUDelta', 'responsiveness', 'threadId'];
    const n = ck.table(ws, s, ['stack', timeCol], optional, ['weight', 'weightType']);
    if (!WEIGHT_TYPES.has(s.weightType)) ck.bad(`${ws}.weightType`, `not a weight type: ${JSON.stringify(s.weightType)}`);
    if (s.weight !== null) {
      if (!Array.isArray(s.weight) || s.weight.length !== n) ck.bad(`${ws}.weight`, `expected null or ${n} numbers`);
      else s.weight.forEach((v, i) => ck.num(`${ws}.weight[${i}]`, v));
    }
    ck.each(s, 'stack', (v, i) => ck.index(`${ws}.stack[${i}]`, v, nstack, 'shared.stackTable', null));
    let last = -Infinity;
    let at = 0;
    ck.each(s, timeCol, (v, i) => {
      ck.num(`${ws}.${timeCol}[${i}]`, v);
      at = timeCol === 'time' ? v : at + v;
      if (at < last) ck.bad(`${ws}.${timeCol}[${i}]`, `time ${at} before the one before (${last})`);
      last = at;
    });
    for (const c of ['eventDelay', 'threadCPUDelta'])
      ck.each(s, c, (v, i) => ck.num(`${ws}.${c}[${i}]`, v, { nullable: true }));
  } else {
    ck.bad(ws, 'expected an object');
  }

  const m = t.markers;
  const wm = `${w}.markers`;
  ck.table(wm, m, ['data', 'name', 'startTime', 'endTime', 'phase', 'category'], ['threadId']);
  if (!ck.isObject(m)) return;
  ck.each(m, 'name', (v, i) => ck.index(`${wm}.name[${i}]`, v, ns, 'shared.stringArray'));
  ck.each(m, 'category', (v, i) => ck.index(`${wm}.category[${i}]`, v, ncat, 'meta.categories'));
  ck.each(m, 'phase', (ph, i) => {
    const a = m.startTime?.[i], b = m.endTime?.[i];
    const here = `${wm}[${i}]`;
    ck.num(`${wm}.startTime[${i}]`, a, { nullable: true });
    ck.num(`${wm}.endTime[${i}]`, b, { nullable: true });
    if (ph === 0 || ph === 2) { if (typeof a !== 'number') ck.bad(here, `phase ${ph} without a startTime`); }
    else if (ph === 3) { if (typeof b !== 'number') ck.bad(here, 'an end marker (phase 3) without an endTime'); }
    else if (ph === 1) {
      if (typeof a !== 'number' || typeof b !== 'number') ck.bad(here, 'an interval marker (phase 1) without both times');
      else if (b < a) ck.bad(here, `an interval marker ending (${b}) before it starts (${a})`);
    } else ck.bad(`${wm}.phase[${i}]`, `expected 0, 1, 2 or 3, found ${JSON.stringify(ph)}`);
  });
  ck.each(m, 'data', (d, i) => {
    const wd = `${wm}.data[${i}]`;
    if (d === null) return;
    if (!ck.isObject(d)) {
      ck.bad(wd, `expected an object or null, found ${JSON.stringify(d)?.slice(0, 40)}`);
      return;
    }
    if ('cause' in d) {
      const c = d.cause;
      if (ck.keys(`${wd}.cause`, c, ['stack'], ['time', 'tid'])) {
        ck.index(`${wd}.cause.stack`, c.stack, nstack, 'shared.stackTable', null);
        if ('time' in c) ck.num(`${wd}.cause.time`, c.time);
      }
    }
    if ('type' in d) ck.str(`${wd}.type`, d.type);
    const schema = schemas.get(d.type);
    if (!schema || !Array.isArray(schema.fields)) return; // a type the front-end knows, or none
    for (const f of schema.fields) if (f && typeof f.key === 'string') checkField(ck, `${wd}.${f.key}`, d[f.key], f.format, ns);
  });
}

export function checkText(text) {
  const ck = new Checker();
  let p;
  try {
    p = JSON.parse(text);
  } catch (e) {
    ck.bad('file', `not JSON: ${e.message}`);
    return ck.problems;
  }
  checkProfile(ck, p);
  return ck.problems;
}

function readText(file) {
  const buf = readFileSync(file);
  return (buf[0] === 0x1f && buf[1] === 0x8b ? gunzipSync(buf) : buf).toString('utf8');
}

// damaged copies of a valid profile, each one rule broken: the validator must reject each
const DAMAGES = [
  ['version 69', (p) => { p.meta.preprocessedProfileVersion = 69; }],
  ['interval 0', (p) => { p.meta.interval = 0; }],
  ['no markerSchema', (p) => { delete p.meta.markerSchema; }],
  ['a category colour outside the list', (p) => { p.meta.categories[0].color = 'pink'; }],
  ['no subcategory', (p) => { p.meta.categories[0].subcategories = []; }],
  ['a lib with start', (p) => { p.libs.push({ arch: '', name: 'x', path: 'x', debugName: 'x', debugPath: 'x', breakpadId: '', codeId: null, start: 0 }); }],
  ['a frame column short by one', (p) => { p.shared.frameTable.func.pop(); }],
  ['a stack frame out of range', (p) => { p.shared.stackTable.frame[0] = p.shared.frameTable.length; }],
  ['a prefixOffset past row 0', (p) => { p.shared.stackTable.prefixOffset[0] = 1; }],
  ['the stackTable with prefix', (p) => { p.shared.stackTable.prefix = p.shared.stackTable.prefixOffset; delete p.shared.stackTable.prefixOffset; }],
  ['a func name out of range', (p) => { p.shared.funcTable.name[0] = p.shared.stringArray.length; }],
  ['a frame lib null', (p) => { p.shared.frameTable.lib[0] = null; }],
  ['a subcategory out of range', (p) => { p.shared.frameTable.category[0] = 0; p.shared.frameTable.subcategory[0] = 99; }],
  ['no sourceLocationTable', (p) => { delete p.shared.sourceLocationTable; }],
  ['a source startLine null', (p) => { p.shared.sources.startLine[0] = null; }],
  ['a weight type outside the list', (p) => { p.threads[0].samples.weightType = 'ms'; }],
  ['samples with time and timeDeltas', (p) => { const s = p.threads[0].samples; s.time = s.stack.map(() => 0); s.timeDeltas = s.time; }],
  ['a sample stack out of range', (p) => { p.threads[0].samples.stack[0] = p.shared.stackTable.length; }],
  ['a pid as a number', (p) => { p.threads[0].pid = 1; }],
  ['an end marker without endTime', (p) => { const m = p.threads[0].markers; m.phase[0] = 3; m.endTime[0] = null; }],
  ['a marker category out of range', (p) => { p.threads[0].markers.category[0] = 99; }],
  ['a marker payload string', (p) => { p.threads[0].markers.data[0] = 'x'; }],
  ['a cause stack out of range', (p) => { p.threads[0].markers.data[0] = { type: 'tracing', cause: { stack: 1e9 } }; }],
  ['a schema field of a bad format', (p) => { p.meta.markerSchema.push({ name: 'Z', display: [], fields: [{ key: 'k', format: 'weird' }] }); }],
  ['a display location outside the list', (p) => { p.meta.markerSchema.push({ name: 'Z', display: ['sidebar'], fields: [] }); }],
  ['a payload field not of its format', (p) => {
    p.meta.markerSchema.push({ name: 'Z', display: [], fields: [{ key: 'n', format: 'integer' }, { key: 'u', format: 'unique-string' }] });
    p.threads[0].markers.data[0] = { type: 'Z', n: 'three', u: 1e9 };
  }],
];

function selfTest(reference) {
  const text = readText(reference);
  let pass = 0, fail = 0;
  const clean = checkText(text);
  if (clean.length === 0) pass++;
  else {
    fail++;
    console.log(`not ok ${reference}: the reference is rejected:\n  ${clean.slice(0, 10).join('\n  ')}`);
  }
  for (const [name, damage] of DAMAGES) {
    const p = JSON.parse(text);
    damage(p);
    const problems = checkText(JSON.stringify(p));
    if (problems.length) pass++;
    else {
      fail++;
      console.log(`not ok ${reference}: damage '${name}' not seen`);
    }
  }
  console.log(`firefox-shape self-test: ${pass} passed, ${fail} failed`);
  return fail === 0;
}

function main(args) {
  if (args[0] === '--self-test') return selfTest(args[1]) ? 0 : 1;
  let bad = 0;
  for (const file of args) {
    const problems = checkText(readText(file));
    if (problems.length === 0) {
      console.log(`ok ${file}`);
      continue;
    }
    bad++;
    console.log(`not ok ${file} (${problems.length}${problems.length >= 1000 ? '+' : ''} problems)`);
    for (const p of problems.slice(0, 8)) console.log(`  ${p}`);
  }
  return bad ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));

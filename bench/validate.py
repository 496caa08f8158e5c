#!/usr/bin/env python3
"""validate.py - checks a generated Firefox processed profile independently of profview.

    python3 bench/validate.py FILE [REFERENCE]

Loads FILE with json.load and checks the shape of a processed profile v70 (the keys of every
shared table, thread and samples object are those of REFERENCE, by default the corpus file
generated-processed-v70-from-gecko.json made by the Firefox Profiler itself) and the invariants
the profiler relies on: columns as long as `length`, prefixOffset pointing backwards, every
index in range, categories with a grey default, subcategory non-null where category is.
Prints a summary per thread; exits 1 on the first broken rule.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_REF = os.path.join(HERE, '..', 'tests', 'data', 'corpus', 'firefox',
                           'generated-processed-v70-from-gecko.json')


def fail(msg):
    print('validate: ' + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def table(obj, name, ref):
    t = obj[name]
    n = t['length']
    for key, val in t.items():
        if isinstance(val, list):
            check(len(val) == n, f'{name}.{key}: {len(val)} values, length {n}')
    if ref is not None:
        missing = set(ref) - set(t)
        check(not missing, f'{name}: missing {sorted(missing)}')
    return n


def main():
    if len(sys.argv) not in (2, 3):
        fail('usage: validate.py FILE [REFERENCE]')
    path = sys.argv[1]
    ref = json.load(open(sys.argv[2] if len(sys.argv) == 3 else DEFAULT_REF))
    with open(path, 'rb') as f:
        p = json.load(f)

    meta = p['meta']
    check(meta['preprocessedProfileVersion'] == 70, 'meta.preprocessedProfileVersion != 70')
    check(meta['version'] == 36, 'meta.version != 36')
    check(meta.get('markerSchema') == [], 'meta.markerSchema is not []')
    for key in ('interval', 'startTime', 'processType', 'product', 'stackwalk', 'categories'):
        check(key in meta, 'meta.' + key + ' missing')
    cats = meta['categories']
    colors = {'transparent', 'purple', 'green', 'orange', 'yellow', 'lightblue', 'blue',
              'brown', 'magenta', 'red', 'lightred', 'darkgrey', 'grey'}
    check(any(c['color'] == 'grey' for c in cats), 'no grey (default) category')
    for c in cats:
        check(c['color'] in colors, 'bad category color ' + c['color'])
        check(c['subcategories'][0] == 'Other', 'subcategory 0 of ' + c['name'] + ' is not Other')
    check(set(ref) - set(p) <= {'counters', 'profilerOverhead', 'profilingLog',
                                'profileGatheringLog'}, 'top-level keys missing')
    for lib in p['libs']:
        check(set(lib) == set(ref['libs'][0]), 'libs entry keys differ from the reference')

    sh, rsh = p['shared'], ref['shared']
    check(set(sh) == set(rsh), f'shared keys {sorted(sh)} != {sorted(rsh)}')
    strings = sh['stringArray']
    ns = len(strings)
    check(all(isinstance(s, str) for s in strings), 'stringArray holds a non-string')
    nst = table(sh, 'stackTable', rsh['stackTable'])
    nfr = table(sh, 'frameTable', rsh['frameTable'])
    nfu = table(sh, 'funcTable', rsh['funcTable'])
    nre = table(sh, 'resourceTable', rsh['resourceTable'])
    nsy = table(sh, 'nativeSymbols', rsh['nativeSymbols'])
    nso = table(sh, 'sources', rsh['sources'])
    check(set(sh['stackTable']) == {'frame', 'prefixOffset', 'length'}, 'stackTable keys')
    check(set(sh['resourceTable']) == set(rsh['resourceTable']), 'resourceTable keys (no lib in v70)')

    st = sh['stackTable']
    for i, (fr, off) in enumerate(zip(st['frame'], st['prefixOffset'])):
        check(0 <= fr < nfr, f'stack {i}: frame {fr} out of range')
        check(0 <= off <= i, f'stack {i}: prefixOffset {off} does not point backwards')
    pairs = set(zip(st['frame'], (i - o if o else -1 for i, o in enumerate(st['prefixOffset']))))
    dup = nst - len(pairs)  # allowed by the format (the reference has some), counted
    depth = [0] * nst
    for i, off in enumerate(st['prefixOffset']):
        depth[i] = depth[i - off] + 1 if off else 1

    ft = sh['frameTable']
    nlibs = len(p['libs'])
    for i in range(nfr):
        check(0 <= ft['func'][i] < nfu, f'frame {i}: func out of range')
        c, s = ft['category'][i], ft['subcategory'][i]
        if c is not None:
            check(0 <= c < len(cats), f'frame {i}: category out of range')
            check(s is not None and 0 <= s < len(cats[c]['subcategories']),
                  f'frame {i}: bad subcategory')
        check(ft['lib'][i] == -1 or 0 <= ft['lib'][i] < nlibs, f'frame {i}: lib out of range')
        ns_ = ft['nativeSymbol'][i]
        check(ns_ is None or 0 <= ns_ < nsy, f'frame {i}: nativeSymbol out of range')
        check(ft['address'][i] >= -1, f'frame {i}: address')
    fu = sh['funcTable']
    for i in range(nfu):
        check(0 <= fu['name'][i] < ns, f'func {i}: name out of range')
        check(fu['resource'][i] == -1 or 0 <= fu['resource'][i] < nre, f'func {i}: resource')
        check(fu['source'][i] is None or 0 <= fu['source'][i] < nso, f'func {i}: source')
        check(isinstance(fu['isJS'][i], bool), f'func {i}: isJS')
    for i in range(nre):
        check(0 <= sh['resourceTable']['name'][i] < ns, f'resource {i}: name')
    for i in range(nsy):
        check(0 <= sh['nativeSymbols']['libIndex'][i] < nlibs, f'symbol {i}: libIndex')
        check(0 <= sh['nativeSymbols']['name'][i] < ns, f'symbol {i}: name')
    for i in range(nso):
        check(0 <= sh['sources']['filename'][i] < ns, f'source {i}: filename')

    names = [strings[fu['name'][i]] for i in range(nfu)]
    native = [len(n) for i, n in enumerate(names) if not fu['isJS'][i]]
    print(f'{path}: {os.path.getsize(path)} bytes, {ns} strings, {nst} stacks '
          f'(depth {min(depth)}..{max(depth)}, {dup} duplicate (prefix, frame) pairs), {nfr} frames, {nfu} funcs '
          f'({len(set(names))} distinct names, native names {min(native)}..{max(native)} '
          f'bytes, mean {sum(native) / len(native):.0f}), {nre} resources, {nsy} symbols, '
          f'{nso} sources, {nlibs} libs')

    rth = ref['threads'][0]
    total = 0
    for t in p['threads']:
        for key in ('name', 'isMainThread', 'processType', 'processStartupTime',
                    'processShutdownTime', 'registerTime', 'unregisterTime', 'tid', 'pid',
                    'pausedRanges', 'markers', 'samples'):
            check(key in t, f'thread {t.get("name")}: {key} missing')
        check(isinstance(t['pid'], str), 'pid is not a string')
        sm = t['samples']
        n = table(t, 'samples', None)
        check({'stack', 'timeDeltas', 'weightType', 'weight', 'length'} <= set(sm),
              'samples keys')
        check('time' not in sm, 'samples have both time and timeDeltas')
        check(sm['weight'] is None and sm['weightType'] == 'samples', 'samples weight')
        check(all(s is None or 0 <= s < nst for s in sm['stack']), 'sample stack out of range')
        check(all(d >= 0 for d in sm['timeDeltas']), 'negative timeDelta')
        mk = t['markers']
        nm = table(t, 'markers', rth['markers'])
        for i in range(nm):
            check(0 <= mk['name'][i] < ns, 'marker name out of range')
            check(0 <= mk['category'][i] < len(cats), 'marker category out of range')
            ph = mk['phase'][i]
            check(ph in (0, 1, 2, 3), 'marker phase')
            if ph in (0, 1, 2):
                check(mk['startTime'][i] is not None, 'marker without startTime')
            if ph in (1, 3):
                check(mk['endTime'][i] is not None, 'marker without endTime')
            d = mk['data'][i]
            if d and 'cause' in d:
                check(0 <= d['cause']['stack'] < nst, 'cause stack out of range')
        distinct = len(set(sm['stack']))
        dur = sum(sm['timeDeltas'])
        total += n
        print(f'  thread {t["name"]!r} pid {t["pid"]} tid {t["tid"]}: {n} samples '
              f'({distinct} distinct stacks), {dur / 1000:.1f} s, {nm} markers')
    print(f'  total {total} samples; OK')


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
"""pbsummary.py FILE... - an independent reading of pprof profile.proto files (plain or gzip),
straight from the protobuf wire format with no protobuf library, printing what test_pprof.c
asserts: sample count, per sample type its type/unit and total, the default sample type, table
sizes, labels. Written for profview's tests; it shares no code with the importer."""
import gzip, sys

def varint(b, i):
    x = s = 0
    while True:
        c = b[i]; i += 1
        x |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return x, i

def fields(b):
    i = 0
    while i < len(b):
        tag, i = varint(b, i)
        num, wt = tag >> 3, tag & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            v = b[i:i + n]; i += n
        elif wt == 1:
            v = b[i:i + 8]; i += 8
        elif wt == 5:
            v = b[i:i + 4]; i += 4
        else:
            raise ValueError('wire type %d' % wt)
        yield num, wt, v

def ints(wt, v):
    if wt == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out

def s64(x):
    return x - (1 << 64) if x >= 1 << 63 else x

def summary(path):
    b = open(path, 'rb').read()
    if b[:2] == b'\x1f\x8b':
        b = gzip.decompress(b)
    strings, types, samples = [], [], []
    counts = {3: 0, 4: 0, 5: 0}
    default = 0
    for num, wt, v in fields(b):
        if num == 6:
            strings.append(bytes(v).decode('utf-8', 'replace'))
        elif num == 1:
            t = dict((n, x) for n, _, x in fields(v))
            types.append((t.get(1, 0), t.get(2, 0)))
        elif num == 2:
            vals, labels, nloc = [], [], 0
            for n, w, x in fields(v):
                if n == 1:
                    nloc += len(ints(w, x))
                elif n == 2:
                    vals += [s64(y) for y in ints(w, x)]
                elif n == 3:
                    labels.append(dict((k, y) for k, _, y in fields(x)))
            samples.append((vals, labels, nloc))
        elif num in counts:
            counts[num] += 1
        elif num == 14:
            default = v
    print('file', path)
    print('samples', len(samples))
    for i, (t, u) in enumerate(types):
        print('type %s/%s total %d' % (strings[t], strings[u], sum(s[0][i] for s in samples if i < len(s[0]))))
    if not types:
        width = max((len(s[0]) for s in samples), default=0)
        for i in range(width):
            print('value%d total %d' % (i + 1, sum(s[0][i] for s in samples if i < len(s[0]))))
    print('default', strings[default] if default else '-')
    print('mappings %d locations %d functions %d' % (counts[3], counts[4], counts[5]))
    print('deepest %d' % max((s[2] for s in samples), default=0))
    keys = {}
    for _, labels, _ in samples:
        for l in labels:
            k = strings[l.get(1, 0)]
            keys[k] = keys.get(k, 0) + 1
    for k in sorted(keys):
        print('label %s on %d samples' % (k, keys[k]))

for p in sys.argv[1:]:
    summary(p)

#!/usr/bin/env python3
"""A Chrome trace of V8 CPU samples in ProfileChunk events, for bench/RESULTS.md: one Profile
event and CHUNKS ProfileChunk events of 1,000 samples each (4 nodes, the first chunk carries them;
time deltas 90-109 us). Deterministic. Usage: chrome_chunks.py OUT [CHUNKS (2000)]"""

import sys
out = open(sys.argv[1], 'w')
out.write('{"traceEvents":[\n{"name":"Profile","ph":"P","ts":1000,"pid":1,"tid":1,"id":"0x1","args":{"data":{"startTime":1000}}}')
names = ["(root)", "main", "work", "idle"]
for c in range(int(sys.argv[2]) if len(sys.argv) > 2 else 2000):
    cp = {}
    parts = []
    if c == 0:
        nodes = []
        for i, n in enumerate(names):
            node = '{"id":%d,"callFrame":{"functionName":"%s","scriptId":"1","url":"app.js","lineNumber":%d,"columnNumber":1}%s}' % (i + 1, n, i * 10, ',"parent":%d' % (1 if i != 2 else 2) if i else '')
            nodes.append(node)
        parts.append('"nodes":[' + ','.join(nodes) + ']')
    samples = ','.join(str(2 + (s * 7 + c) % 3) for s in range(1000))
    deltas = ','.join(str(90 + (s * 13 + c) % 20) for s in range(1000))
    parts.append('"samples":[' + samples + ']')
    out.write(',\n{"name":"ProfileChunk","ph":"P","ts":%d,"pid":1,"tid":1,"id":"0x1","args":{"data":{"cpuProfile":{%s},"timeDeltas":[%s]}}}' % (1000 + c * 100000, ','.join(parts), deltas))
out.write('\n]}\n')

#!/usr/bin/env python3
"""cg_self.py ANNOTATE_OUT TOP_JSON - compares every function's self cost of
`callgrind_annotate --inclusive=no --threshold=100` with `profview top --json`; prints
"N functions, M differ" (bench/run.sh's callgrind section)."""
import json, re, sys
ann = open(sys.argv[1]).read().split('\n')
top = json.load(open(sys.argv[2]))
i = [k for k, l in enumerate(ann) if l.endswith(' file:function')][0] + 2
want = {}
for l in ann[i:]:
    if not l.strip() or l.startswith('--'):
        break
    m = re.match(r'\s*([\d,]+)(?: \(\s*[\d.]+%\))?\s+(.*?)(?: \[[^]]*\])?$', l)
    want[m.group(2)] = int(m.group(1).replace(',', ''))
got = {}
for r in top['rows']:
    got['%s:%s' % (r.get('file') or '', r['name'])] = r['self']
bad = sum(1 for k, v in want.items() if v and got.get(k) != v)
print('%d functions, %d differ' % (len(want), bad))

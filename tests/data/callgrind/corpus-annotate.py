#!/usr/bin/env python3
"""corpus-annotate.py OUT FILE... - per function of each callgrind file, callgrind_annotate's
exclusive and inclusive cost of the first event, as one TSV line "file<TAB>function<TAB>self<TAB>inclusive"
(callgrind_annotate --inclusive=no / yes --threshold=100, run from / so no path is shortened).
test_callgrind.c compares profview's per-function costs with it."""
import os, re, subprocess, sys

def annotate(path, incl):
    out = subprocess.run(['callgrind_annotate', '--inclusive=' + ('yes' if incl else 'no'),
                          '--threshold=100', '--auto=no', path], capture_output=True, text=True, cwd='/').stdout
    lines = out.split('\n')
    if not any(l.endswith(' file:function') for l in lines):
        return None
    nev = len([l for l in lines if l.startswith('Events shown:')][0].split()[2:])
    i = [k for k, l in enumerate(lines) if l.endswith(' file:function')][0] + 2
    res = {}
    for l in lines[i:]:
        if not l.strip() or l.startswith('----'):
            break
        rest, vals = l, []
        for _ in range(nev):
            m = re.match(r'\s*(-?[\d,]+(?: \(\s*-?[\d.]+%\))?|\.)(?=\s)', rest)
            tok = m.group(1)
            vals.append(0 if tok == '.' else int(tok.split(' ')[0].replace(',', '')))
            rest = rest[m.end():]
        name = rest.strip()
        if name.endswith(']') and ' [' in name:
            name = name[:name.rindex(' [')]
        res[name] = vals[0]
    return res

with open(sys.argv[1], 'w') as out:
    for path in sys.argv[2:]:
        inc, slf = annotate(os.path.abspath(path), True), annotate(os.path.abspath(path), False)
        if inc is None:
            continue
        base = os.path.relpath(os.path.abspath(path), os.path.abspath(os.path.join(os.path.dirname(__file__), '../corpus')))
        for name in sorted(inc):
            out.write('%s\t%s\t%d\t%d\n' % (base, name, slf.get(name, 0), inc[name]))

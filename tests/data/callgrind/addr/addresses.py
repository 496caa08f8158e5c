#!/usr/bin/env python3
# addresses.py - per (file, line, address) self costs of a callgrind file with "positions: instr
# line", first event, one line "FILE<TAB>LINE<TAB>0xADDRESS<TAB>SELF" each, sorted; written from
# the Callgrind Format Specification for profview's tests (addr.callgrind.addresses.tsv), as an
# independent reading: subpositions are absolute (decimal or 0x hex), +N / -N relative to the
# previous cost line's, or * the same; a calls= line's target position does not move them and
# the cost line after it is the call's inclusive cost, not self; jump=/jcnd= lines are skipped
# with the position line after them only when it has no cost.
import re, sys
from collections import defaultdict

names = {}
def name(kind, v):
    m = re.match(r"\((\d+)\)(?:\s+(.*))?$", v.strip())
    if not m:
        return v.strip()
    if m.group(2) is not None:
        names[kind, m.group(1)] = m.group(2)
    return names.get((kind, m.group(1)), "")

cost = defaultdict(int)
pos = [0, 0]
fl = fi = None
after_call = False
for raw in open(sys.argv[1]):
    l = raw.rstrip("\n")
    if not l or l.startswith("#"):
        continue
    if re.match(r"[0-9+*-]", l):
        f = l.split()
        for i in range(2):
            s = f[i]
            if s == "*":
                pass
            elif s[0] in "+-":
                pos[i] += int(s, 0) if s[1:].startswith("0x") else int(s)
            else:
                pos[i] = int(s, 0)
        if not after_call and len(f) > 2 and pos[1] > 0:
            cost[(fi or fl), pos[1], pos[0]] += int(f[2])
        after_call = False
        continue
    k, _, v = l.partition("=")
    if k == "fl":
        fl = name("fl", v); fi = None
    elif k in ("fi", "fe"):
        fi = name("fl", v)
    elif k in ("cfi", "cfl"):
        name("fl", v)
    elif k in ("fn", "cfn"):
        name("fn", v)
    elif k in ("ob", "cob"):
        name("ob", v)
    elif k == "calls":
        after_call = True
for (f, ln, a), c in sorted(cost.items()):
    print("%s\t%d\t0x%x\t%d" % (f, ln, a, c))

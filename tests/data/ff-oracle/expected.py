#!/usr/bin/env python3
# Turns oracle.js's JSON (its last line) into the text test_ff_oracle.c reads:
#   thread <TAB> tid <TAB> samples <TAB> weight <TAB> name
#   <TAB> self <TAB> total <TAB> function
# Weights in milliseconds (simpleperf's "tracing-ms") are written in ns when SCALE says so.
import json, sys
scale = float(sys.argv[1]) if len(sys.argv) > 1 else 1
threads = json.loads(sys.stdin.read().strip().split('\n')[-1])
r = lambda x: int(round(x * scale))
for t in threads:
    print('thread\t%s\t%d\t%d\t%s' % (t['tid'], t['samples'], r(t['weight']), t['name']))
    for name, s, tot in t['funcs']:
        print('\t%d\t%d\t%s' % (r(s), r(tot), name))

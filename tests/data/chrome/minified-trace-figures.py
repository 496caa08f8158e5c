# Independent reading of chromium-minified.json.gz: the V8 samples of each Profile (pid, id),
# nodes gathered over its ProfileChunks; functions keyed by (functionName, url, lineNumber,
# columnNumber); self samples per function.
import json,gzip,collections,sys
d=json.load(gzip.open(sys.argv[1],'rt'))
ev=d['traceEvents'] if isinstance(d,dict) else d
nodes=collections.defaultdict(dict); selfc=collections.Counter(); keys=set()
for e in ev:
    if e.get('name')!='ProfileChunk': continue
    cp=e['args']['data'].get('cpuProfile',{})
    prof=(e['pid'],e['id'])
    for n in cp.get('nodes',[]):
        cf=n['callFrame']
        k=(cf.get('functionName'),cf.get('url',''),cf.get('lineNumber',-1),cf.get('columnNumber',-1))
        nodes[prof][n['id']]=k; keys.add(k)
    for s in cp.get('samples',[]):
        selfc[nodes[prof][s]]+=1
print('functions', len(keys), 'samples', sum(selfc.values()))
for k,c in sorted(selfc.items(), key=lambda x:-x[1]):
    if 'minified' in k[1]: print(k, c)

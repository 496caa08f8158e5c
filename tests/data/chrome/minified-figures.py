# Independent reading of node-minified.cpuprofile: functions keyed by
# (functionName, url, lineNumber, columnNumber); per function: self samples, inclusive samples
# (a sample counts once per function on its stack), self time (each sample lasts until the next,
# the last until endTime).
import json,collections,sys
d=json.load(open(sys.argv[1]))
nodes={n['id']:n for n in d['nodes']}
parent={}
for n in d['nodes']:
    for c in n.get('children',[]): parent[c]=n['id']
def key(n):
    cf=n['callFrame']; return (cf['functionName'],cf['url'],cf['lineNumber'],cf['columnNumber'])
keys=set(key(n) for n in d['nodes'])
print('functions', len(keys), 'by (name,url,line)', len(set(k[:3] for k in keys)))
selfc=collections.Counter(); incl=collections.Counter(); selft=collections.Counter()
t=d['startTime']; times=[]
for dt in d['timeDeltas']:
    t+=dt; times.append(t)
for i,s in enumerate(d['samples']):
    dur=(times[i+1] if i+1<len(times) else d['endTime'])-times[i]
    k=key(nodes[s]); selfc[k]+=1; selft[k]+=dur
    seen=set(); x=s
    while x is not None:
        kk=key(nodes[x])
        if kk not in seen: seen.add(kk); incl[kk]+=1
        x=parent.get(x)
print('samples', len(d['samples']))
for k in sorted(keys, key=lambda k:(k[1],k[2],k[3],k[0])):
    if 'minified' in k[1]:
        print(k, 'self', selfc[k], 'incl', incl[k], 'self_us', selft[k])

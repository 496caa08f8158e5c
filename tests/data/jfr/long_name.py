# Makes long-thread-name.jfr (see README.md): the main thread named by a 4005-character
# char-array string.
import sys, struct
src, dst = sys.argv[1], sys.argv[2]
d = bytes(open(src, 'rb').read())

def varint(b, p):
    v = 0
    for i in range(9):
        x = b[p + i]
        if i == 8:
            return v | x << 56, p + 9
        v |= (x & 0x7f) << (7 * i)
        if not x & 0x80:
            return v, p + i + 1

def enc(v, n=None):
    v &= (1 << 64) - 1
    out = bytearray()
    i = 0
    while True:
        if i == 8:
            out.append(v & 0xff)
            return bytes(out)
        b = v & 0x7f
        v >>= 7
        last = (v == 0) if n is None else (i == n - 1)
        out.append(b | (0 if last else 0x80))
        if last:
            assert v == 0
            return bytes(out)
        i += 1

# the events of the single chunk, as (start, bytes)
events = []
p = 68
while p < len(d):
    size, _ = varint(d, p)
    events.append([p, d[p:p + size]])
    p += size
name = 'main-' + '\u00e9' * 4000
new = bytes([4]) + enc(len(name)) + b''.join(enc(ord(c)) for c in name)
patched = 0
for ev in events:
    body = ev[1]
    size, q = varint(body, 0)
    ty, _ = varint(body, q)
    if ty != 1:
        continue
    i = body.find(b'\x03\x04main\x01')  # javaName "main", then javaThreadId 1
    if i < 0:
        continue
    rest = body[q:i] + new + body[i + 6:]
    n = len(rest) + 1
    while len(enc(n)) + len(rest) != n:
        n = len(enc(n)) + len(rest)
    ev[1] = enc(n) + rest
    patched += 1
# new positions; every checkpoint's delta points at the previous checkpoint
pos = 68
prev = None
out = bytearray()
cp_last = None
meta_old = struct.unpack('>Q', d[24:32])[0]
meta_new = None
for ev in events:
    old, body = ev
    if old == meta_old:
        meta_new = pos
    size, q = varint(body, 0)
    ty, q = varint(body, q)
    if ty == 1:
        _, q = varint(body, q)
        _, q = varint(body, q)
        dl, q2 = varint(body, q)
        delta = 0 if prev is None else prev - pos
        body = body[:q] + enc(delta, q2 - q) + body[q2:]
        assert len(enc(delta, q2 - q)) == q2 - q
        prev = pos
        cp_last = pos
    out += body
    pos += len(body)
head = bytearray(d[:68])
head[8:32] = struct.pack('>QQQ', 68 + len(out), cp_last, meta_new)
open(dst, 'wb').write(bytes(head) + bytes(out))
print('patched', patched, 'size', 68 + len(out))

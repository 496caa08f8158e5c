#!/usr/bin/env python3
"""A perf.data of a given size from a real one: its records once, then its SAMPLE records again
and again, each copy moved later in time by the recording's span (with a FINISHED_ROUND after
each), the header and feature sections rewritten around the longer data section. The samples
stay in the processes, maps and binaries of the real recording, so both perf script and profview
name them from this machine's binaries as for the original.

With --zstd the records of OUT (SIZE_MB of them, inflated) are written compressed, as
`perf record -z` writes them: one zstd stream (the zstd program) cut into COMPRESSED records.
IN itself must be a recording without -z.

usage: perf_data_grow.py [--zstd] IN.data OUT.data SIZE_MB
"""
import struct
import subprocess
import sys

SAMPLE, FINISHED_ROUND, COMPRESSED = 9, 68, 81
S_IDENTIFIER, S_IP, S_TID, S_TIME = 1 << 16, 1, 2, 4


def compressed(path):
    """The records in path as COMPRESSED records of one zstd stream."""
    z = subprocess.run(['zstd', '-3', '-c', path], stdout=subprocess.PIPE, check=True).stdout
    out, piece = bytearray(), 65000
    for i in range(0, len(z), piece):
        c = z[i:i + piece]
        out += struct.pack('<IHH', COMPRESSED, 0, 8 + len(c)) + c
    return bytes(out)


def main():
    args = [a for a in sys.argv[1:] if a != '--zstd']
    zstd = len(args) + 1 < len(sys.argv)
    src, dst, mb = args[0], args[1], float(args[2])
    b = open(src, 'rb').read()
    if b[:8] != b'PERFILE2':
        sys.exit('%s: not a native-endian perf.data file' % src)
    hsize, asize = struct.unpack_from('<QQ', b, 8)
    a_off, a_size, d_off, d_size = struct.unpack_from('<QQQQ', b, 24)
    features = struct.unpack_from('<4Q', b, 72)
    # the first event's sample_type says where a sample's time is
    stype = struct.unpack_from('<Q', b, a_off + 24)[0]
    if not stype & S_TIME:
        sys.exit('%s: samples without times' % src)
    tpos = 8 + 8 * (bool(stype & S_IDENTIFIER) + bool(stype & S_IP) + bool(stype & S_TID))
    recs, samples, tmin, tmax = [], [], None, None
    e = d_off + d_size
    data = b[d_off:e]
    p = 0
    while p < len(data):
        typ, misc, size = struct.unpack_from('<IHH', data, p)
        r = data[p:p + size]
        if typ == COMPRESSED:
            sys.exit('%s: compressed records (perf record -z): grow a recording without -z' % src)
        recs.append(r)
        if typ == SAMPLE:
            samples.append(r)
            t = struct.unpack_from('<Q', r, tpos)[0]
            tmin = t if tmin is None else min(tmin, t)
            tmax = t if tmax is None else max(tmax, t)
        p += size
    span = tmax - tmin + 1000
    nfeat = sum(bin(w).count('1') for w in features)
    ftable = b[e:e + 16 * nfeat]
    fdata = []
    for i in range(nfeat):
        o, s = struct.unpack_from('<QQ', ftable, 16 * i)
        fdata.append(b[o:o + s])
    want = int(mb * 1e6)
    out = open(dst + '.records' if zstd else dst, 'wb')
    if not zstd:
        out.write(b[:d_off])  # header and attributes as they were (the header is rewritten below)
    n = 0
    for r in recs:
        out.write(r)
        n += len(r)
    fin = struct.pack('<IHH', FINISHED_ROUND, 0, 8)
    k = 1
    while d_off + n < want:
        chunk = bytearray()
        for r in samples:
            r = bytearray(r)
            t = struct.unpack_from('<Q', r, tpos)[0]
            struct.pack_into('<Q', r, tpos, t + k * span)
            chunk += r
        chunk += fin
        out.write(chunk)
        n += len(chunk)
        k += 1
    size = d_off + n
    if zstd:
        out.close()
        z = compressed(dst + '.records')
        subprocess.run(['rm', dst + '.records'], check=True)
        out = open(dst, 'wb')
        out.write(b[:d_off])
        out.write(z)
        n = len(z)
    # the features after the new data section
    fo = d_off + n + 16 * nfeat
    table = bytearray()
    for f in fdata:
        table += struct.pack('<QQ', fo, len(f))
        fo += len(f)
    out.write(table)
    for f in fdata:
        out.write(f)
    out.seek(24)
    out.write(struct.pack('<QQQQ', a_off, a_size, d_off, n))
    out.close()
    print('%s: %d bytes%s, %d copies of %d samples' %
          (dst, d_off + n, ' (%d inflated)' % size if zstd else '', k, len(samples)))


main()

#!/usr/bin/env python3
"""bench/simpleperf_grow.py - a large simpleperf report (`report-sample --protobuf`) for the
import benchmark (bench/RESULTS.md): the sample records of a real one repeated until the output
has SIZE_MB x 10^6 bytes, each copy's times shifted past the one before, then its other records
(files, threads, meta info) once, as simpleperf writes them (samples first).

    python3 bench/simpleperf_grow.py IN.trace[.gz] OUT SIZE_MB
"""
import gzip
import struct
import sys


def varint(b, i):
    """(value, next index) of the varint at b[i]."""
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def put_varint(v):
    out = bytearray()
    while True:
        c = v & 0x7F
        v >>= 7
        out.append(c | (0x80 if v else 0))
        if not v:
            return bytes(out)


def shift_time(rec, dt):
    """Record rec (field 1: a Sample) with its Sample's time (field 1, varint) plus dt."""
    ln, i = varint(rec, 1)
    body = rec[i:i + ln]
    assert body[0] == 0x08, "a sample whose first field is not its time"
    t, j = varint(body, 1)
    body = b"\x08" + put_varint(t + dt) + body[j:]
    return b"\x0a" + put_varint(len(body)) + body


def main():
    src, out, size = sys.argv[1], sys.argv[2], int(sys.argv[3]) * 1000000
    data = open(src, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    assert data[:10] == b"SIMPLEPERF"
    head, i = data[:12], 12
    samples, others = [], []
    while i + 4 <= len(data):
        (n,) = struct.unpack_from("<I", data, i)
        i += 4
        if n == 0:
            break
        rec = data[i:i + n]
        i += n
        (samples if rec[0] == 0x0A else others).append(rec)
    times = [varint(r[varint(r, 1)[1]:], 1)[0] for r in samples]
    span = max(times) - min(times) + 1000000
    with open(out, "wb") as f:
        f.write(head)
        w, k = len(head), 0
        while w < size:
            for r in samples:
                r2 = shift_time(r, k * span) if k else r
                f.write(struct.pack("<I", len(r2)) + r2)
                w += 4 + len(r2)
            k += 1
        for r in others:
            f.write(struct.pack("<I", len(r)) + r)
        f.write(struct.pack("<I", 0))
    print(f"{out}: {len(samples)} samples x {k} copies")


main()

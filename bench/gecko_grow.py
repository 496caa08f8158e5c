#!/usr/bin/env python3
"""A Gecko profile (the Firefox profiler's raw format) of a given size from a small one: each
thread's samples are replaced by rows drawn from its own stacks (seeded), at times one interval
apart with the float noise of real captures (written as Python's repr of the sum, e.g.
1000.0199999999999), until the file reaches the size. The tables, strings and markers stay those
of the input, so the time goes to the samples as in a long capture.

usage: gecko_grow.py IN.json OUT.json SIZE_MB [SEED]
"""
import json
import random
import sys


def main():
    src, dst, mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    prof = json.load(open(src, encoding="utf-8"))
    threads = prof["threads"] + [t for p in prof.get("processes", []) for t in p["threads"]]
    base = len(json.dumps(prof, separators=(",", ":")))
    per_row = 28  # about "[12,1000.0199999999999,0,3]," with the noise
    rows = max(1, int((mb * 1e6 - base) / per_row / len(threads)))
    for t in threads:
        s = t["samples"]
        schema = s["schema"]
        nstacks = len(t["stackTable"]["data"])
        width = max(schema.values()) + 1
        time, data = float(s["data"][0][schema["time"]]) if s["data"] else 0.0, []
        for _ in range(rows):
            time += rng.choice((0.987, 1.0, 1.013, 0.9580000000000755, 1.0199999999999388))
            row = [0] * width
            row[schema["stack"]] = rng.randrange(nstacks) if nstacks else None
            row[schema["time"]] = round(time, 13)
            if "threadCPUDelta" in schema:
                row[schema["threadCPUDelta"]] = rng.randrange(1, 2000)
            data.append(row)
        s["data"] = data
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(prof, f, separators=(",", ":"))


if __name__ == "__main__":
    main()

#!/bin/sh
# Instruments deep copies and Java Flight Recorder recordings: `profview tree --depth 3` on a
# large generated file of each format against the floor, `bench/scan FILE` (a byte scan), with
# hyperfine. The target (issue 30): each reader within 10x the scan.
#
#   sh bench/formats-apple-java.sh [BUILD]       (BUILD defaults to build; results in bench/out/)
#
# The files: an Instruments deep copy of 2,000,000 rows (a tree of 20 levels, 1000 function names,
# weights in ms with fractions), written by awk; a JFR recording of 100 chunks, each the corpus's
# heavy.jfr (a recording may hold any number of chunks; the JDK's `jfr summary` reads it as such).
set -eu
BUILD=${1:-build}
OUT=bench/out/formats-apple-java
mkdir -p "$OUT"
ninja -C "$BUILD" profview bench/scan >/dev/null
dc=$OUT/big-deep-copy.txt
if [ ! -f "$dc" ]; then
	awk 'BEGIN {
		srand(30); print "Weight\tSelf Weight\tSymbol Name"
		d = 0
		for (i = 0; i < 2000000; i++) {
			pad = ""; for (k = 0; k < d; k++) pad = pad " "
			printf "%.2f ms  %.1f%%\t0 ms\t%sfunction_%d(int, char const*)\n", rand() * 1000, rand() * 100, pad, int(rand() * 1000)
			if (d < 19 && rand() < 0.6) d++; else d = int(rand() * (d + 1))
		}
	}' >"$dc"
fi
jfr=$OUT/big.jfr
if [ ! -f "$jfr" ]; then
	: >"$jfr"
	for i in $(seq 100); do cat tests/data/corpus/speedscope/java-flight-recorder/heavy.jfr >>"$jfr"; done
fi
for f in "$dc" "$jfr"; do
	ls -l "$f" | awk '{ printf "%s: %d bytes\n", $NF, $5 }'
	"$BUILD/profview" info "$f" | sed -n '2,3p'
	hyperfine -N --warmup 1 --runs 5 --export-csv "$f.csv" \
		-n profview "$BUILD/profview tree --depth 3 $f" -n scan "$BUILD/bench/scan $f" >/dev/null
	awk -F, 'NR > 1 { m[$1] = $4 } END { printf "profview %.3f s, scan %.4f s, ratio %.1f\n", m["profview"], m["scan"], m["profview"] / m["scan"] }' "$f.csv"
done

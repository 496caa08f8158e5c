#!/bin/sh
# bench/hpctoolkit.sh - opening an HPCToolkit database of many execution contexts.
#
# Makes synthetic format-4 databases (bench/gen_hpctoolkit.c) of CONTEXTS contexts and 1,000 and
# 10,000 execution contexts (about 1 GB of profile.db for the largest), then times
# `profview tree --depth 3 DIR` against the floor `gen-hpctoolkit scan DIR` (a byte scan of
# meta.db and of the summary profile's part of profile.db), alternating the two with
# hyperfine, and takes profview's peak RSS from /usr/bin/time -v. Prints a Markdown section for
# bench/RESULTS.md on standard output.
#
# Environment: BUILD (default build), BENCH_ROUNDS (default 9), BENCH_HPC_CONTEXTS (default
# 100000), BENCH_HPC_PROFILES (default "1000 10000"), BENCH_HPC_VALUES (sampled statements per
# execution context, default 300).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ROUNDS=${BENCH_ROUNDS:-9}
CTX=${BENCH_HPC_CONTEXTS:-100000}
PROFILES=${BENCH_HPC_PROFILES:-1000 10000}
VALUES=${BENCH_HPC_VALUES:-300}
OUT=bench/out
ninja -C "$BUILD" profview bench/gen-hpctoolkit >/dev/null
GEN=$BUILD/bench/gen-hpctoolkit
PV=$BUILD/profview
mkdir -p "$OUT/hyperfine"

median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "## HPCToolkit databases: the summary of many execution contexts"
echo
echo "\`sh bench/hpctoolkit.sh\`, $(date -u '+%Y-%m-%d %H:%M UTC'), profview $(git rev-parse --short HEAD),"
echo "$(nproc) CPUs, hyperfine $(hyperfine --version | awk '{ print $2 }'). Databases of $CTX contexts, 2 metrics,"
echo "$VALUES sampled statements per execution context (their values and their ancestors':"
echo "sparse profiles), written by \`$GEN DIR $CTX N $VALUES\`."
echo
echo "| execution contexts | profile.db | meta.db | floor bytes | profview median | floor median | profview / floor | profview peak RSS | RSS / floor bytes |"
echo "|---|---|---|---|---|---|---|---|---|"
for n in $PROFILES; do
	db=$OUT/hpctoolkit-$n
	if [ ! -f "$db/profile.db" ] || [ "$GEN" -nt "$db/profile.db" ]; then
		"$GEN" "$db" "$CTX" "$n" "$VALUES" >/dev/null
	fi
	pbytes=$(stat -c %s "$db/profile.db")
	mbytes=$(stat -c %s "$db/meta.db")
	floor=$("$GEN" scan "$db" | awk '{ print $1 }')
	"$PV" tree --depth 3 "$db" >/dev/null
	"$GEN" scan "$db" >/dev/null
	: >"$OUT/hyperfine/hpc-pv-$n"
	: >"$OUT/hyperfine/hpc-scan-$n"
	i=0
	while [ $i -lt "$ROUNDS" ]; do
		hyperfine -N -r 1 --export-json "$OUT/hyperfine/one.json" \
			"$PV tree --depth 3 $db" "$GEN scan $db" >/dev/null 2>&1
		awk '/"times"/ { getline; gsub(/[ ,]/, ""); print }' "$OUT/hyperfine/one.json" |
			sed -n 1p >>"$OUT/hyperfine/hpc-pv-$n"
		awk '/"times"/ { getline; gsub(/[ ,]/, ""); print }' "$OUT/hyperfine/one.json" |
			sed -n 2p >>"$OUT/hyperfine/hpc-scan-$n"
		i=$((i + 1))
	done
	tp=$(median <"$OUT/hyperfine/hpc-pv-$n")
	ts=$(median <"$OUT/hyperfine/hpc-scan-$n")
	rss=$(/usr/bin/time -v "$PV" tree --depth 3 "$db" 2>&1 >/dev/null |
		awk -F': ' '/Maximum resident set size/ { print $2 }')
	awk -v n="$n" -v pb="$pbytes" -v mb="$mbytes" -v fb="$floor" -v tp="$tp" -v ts="$ts" \
		-v rss="$rss" 'BEGIN {
		printf "| %d | %.1f MB | %.1f MB | %.1f MB | %.3f s | %.3f s | %.1f× | %.0f MB | %.2f |\n",
			n, pb / 1e6, mb / 1e6, fb / 1e6, tp, ts, tp / ts, rss * 1024 / 1e6, rss * 1024 / fb }'
done
echo
echo "Medians of $ROUNDS runs each, alternated (one hyperfine call of one run of each per round);"
echo "the files are in the page cache. The floor reads meta.db and the summary profile's values"
echo "and context index in profile.db; profview reads those, the headers of every execution"
echo "context's profile (48 bytes and an identifier tuple each: the only part that grows with"
echo "them) and nothing of their values: past 4M values of execution contexts it opens the summary"
echo "profile alone (doc/hpctoolkit.md)."

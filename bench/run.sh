#!/bin/sh
# bench/run.sh - the "open" benchmarks of bench/README.md.
#
# Makes the inputs in bench/out/ when missing (or older than the generator), then for each
# input times `profview tree --depth 3 FILE` against the floor `bench/scan FILE` with hyperfine,
# alternating the two (A B A B ...: one hyperfine call per round, one run of each), takes peak
# RSS from /usr/bin/time -v, and writes the table and the exact commands to bench/RESULTS.md.
#
# Environment: BUILD (build folder, default build), BENCH_ROUNDS (runs of each command, default 9),
# BENCH_FIREFOX_MB / BENCH_COLLAPSED_MB (the 100 % sizes, default 200 / 200),
# BENCH_ONLY (firefox, collapsed, center, callgrind, perf, markers, serve, page, deep, deep-api,
# memory, cgmem, snapshot, tui, svg or cpu: run only that kind; cpu only runs when named), BENCH_DEEP (deep: the depth, default 100000), BENCH_MEMORY_N (memory: unique
# stacks and samples, default 10000000),
# BENCH_PAGE_ROUNDS (page: center changes per tab, default 11), BENCH_SVG_BOXES / BENCH_SVG_ROUNDS
# (svg: boxes of the flame graph and rounds, default 50000 / 5), FLAMEGRAPH_PL (svg: Brendan
# Gregg's flamegraph.pl, default bench/out/FlameGraph/flamegraph.pl, cloned there when missing),
# BENCH_MARKERS (markers: the 100 % count of raw markers, default 1000000),
# BENCH_CALLGRIND_MB / BENCH_CALLGRIND_ROUNDS (callgrind: 100 % size and runs, default 100 / 3),
# BENCH_CGMEM_MB (cgmem: the sizes of the generated callgrind files, default "10 25"), BENCH_REVISION (what RESULTS.md names
# as the code measured, by default the checkout's HEAD).
set -eu

cd "$(dirname "$0")/.."
invocation="sh bench/run.sh"
for v in BENCH_ONLY BENCH_CPU_ROUNDS BENCH_CPU_ANNOTATE_ROUNDS BENCH_CPU_BEFORE BENCH_CPU_CHROME_N BENCH_CGMEM_MB BENCH_DEEP BENCH_MEMORY_N BENCH_COLLAPSED_MB BENCH_FIREFOX_MB BENCH_ROUNDS BENCH_CALLGRIND_MB BENCH_CALLGRIND_ROUNDS BENCH_MARKERS BENCH_PAGE_ROUNDS BENCH_SVG_BOXES BENCH_SVG_ROUNDS BUILD; do
	eval "val=\${$v:-}"
	[ -n "$val" ] && invocation="$v=$val $invocation"
done
BUILD=${BUILD:-build}
ROUNDS=${BENCH_ROUNDS:-9}
FF_MB=${BENCH_FIREFOX_MB:-200}
COLL_MB=${BENCH_COLLAPSED_MB:-200}
ONLY=${BENCH_ONLY:-}
OUT=bench/out
HF=$OUT/hyperfine
RESULTS=bench/RESULTS.md
PV=$BUILD/profview
GEN=$BUILD/bench/gen
SCAN=$BUILD/bench/scan

for tool in hyperfine /usr/bin/time awk; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "bench: '$tool' is missing (Debian packages hyperfine, time)" >&2
		exit 1
	}
done
ninja -C "$BUILD" profview bench/gen bench/scan >/dev/null
mkdir -p "$HF"

# median of the numbers on standard input
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# peak RSS in KiB of a command (its standard output discarded)
peak_rss() {
	log=$1
	shift
	/usr/bin/time -v "$@" >/dev/null 2>"$log" || return 1
	awk -F': ' '/Maximum resident set size/ { print $2 }' "$log"
}

# peak RssAnon and RssFile (KiB) of a command, sampled from /proc every few ms: where the
# memory goes (heap and scratch vs. pages of the mapped input)
rss_split() {
	"$@" >/dev/null 2>&1 &
	pid=$!
	ma=0 mf=0 state=R
	while [ "$state" != Z ]; do
		state=Z
		{ while read -r k v _; do
			case $k in
			State:) state=$v ;;
			RssAnon:) [ "$v" -gt "$ma" ] && ma=$v ;;
			RssFile:) [ "$v" -gt "$mf" ] && mf=$v ;;
			esac
		done; } 2>/dev/null </proc/$pid/status || break
		sleep 0.005
	done
	wait "$pid" || true
	echo "$ma $mf"
}

# removes the section of RESULTS.md whose title starts with "## $1" (it is written again)
drop_section() {
	awk -v t="## $1" 'index($0, t) == 1 { skip = 1; next } /^## / { skip = 0 } !skip' \
		"$RESULTS" >"$RESULTS.tmp"
	mv "$RESULTS.tmp" "$RESULTS"
}

rows=""
details=""
gen_cmds=""

run_one() { # kind size_mb percent
	kind=$1 mb=$2 pct=$3
	case $kind in
	firefox) file=$OUT/firefox-$mb.json ;;
	collapsed) file=$OUT/collapsed-$mb.txt ;;
	esac
	name=$kind-$mb
	gen_cmds="$gen_cmds
$GEN $kind $mb $file"
	if [ ! -s "$file" ] || [ "$GEN" -nt "$file" ]; then
		echo "bench: generating $file" >&2
		"$GEN" "$kind" "$mb" "$file.tmp" 2>"$OUT/gen-$name.log"
		mv "$file.tmp" "$file"
	fi
	bytes=$(wc -c <"$file" | tr -d ' ')

	# a first open that must succeed, kept as the import report of this input
	if ! "$PV" info "$file" >"$OUT/info-$name.txt" 2>&1; then
		why=$(head -n 1 "$OUT/info-$name.txt")
		echo "bench: $PV cannot open $file: $why" >&2
		rows="$rows
| $name | $pct % | $(awk -v b="$bytes" 'BEGIN { printf "%.1f MB", b / 1e6 }') | fails: $why | | | | | | | | |"
		return 0
	fi

	echo "bench: $name: $ROUNDS rounds" >&2
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		warm=""
		[ "$r" -eq 1 ] && warm="--warmup 1"
		# shellcheck disable=SC2086
		hyperfine -N $warm --runs 1 --style none \
			--export-csv "$HF/$name-r$r.csv" --export-json "$HF/$name-r$r.json" \
			-n profview "$PV tree --depth 3 $file" -n scan "$SCAN $file" >/dev/null
		r=$((r + 1))
	done
	pv_times=$(cat "$HF/$name"-r*.csv | awk -F, '$1 == "profview" { print $4 }')
	sc_times=$(cat "$HF/$name"-r*.csv | awk -F, '$1 == "scan" { print $4 }')
	pv_med=$(echo "$pv_times" | median)
	sc_med=$(echo "$sc_times" | median)
	pv_rss=$(peak_rss "$OUT/time-$name-profview.txt" "$PV" tree --depth 3 "$file")
	sc_rss=$(peak_rss "$OUT/time-$name-scan.txt" "$SCAN" "$file")
	split=$(rss_split "$PV" tree --depth 3 "$file")
	rows="$rows
$(awk -v n="$name" -v p="$pct" -v b="$bytes" -v pv="$pv_med" -v sc="$sc_med" \
		-v pr="$pv_rss" -v sr="$sc_rss" -v mem="$split" 'BEGIN {
		split(mem, a, " ")
		printf "| %s | %s %% | %.1f MB | %.3f s | %.1f MB/s | %.3f s | %.1f× | %.0f MB | %.2f | %.0f MB | %.0f MB | %.0f MB |",
			n, p, b / 1e6, pv, b / 1e6 / pv, sc, pv / sc, pr * 1024 / 1e6,
			pr * 1024 / b, a[1] * 1024 / 1e6, a[2] * 1024 / 1e6, sr * 1024 / 1e6 }')"
	details="$details
- $name: profview $(echo "$pv_times" | sort -g | awk '{ printf "%s%.3f", (NR > 1 ? " " : ""), $1 }') s;
  scan $(echo "$sc_times" | sort -g | awk '{ printf "%s%.4f", (NR > 1 ? " " : ""), $1 }') s"
}

for kind in firefox collapsed; do
	[ -n "$ONLY" ] && [ "$ONLY" != "$kind" ] && continue
	full=$FF_MB
	[ "$kind" = collapsed ] && full=$COLL_MB
	for pct in 25 50 100; do
		run_one "$kind" $((full * pct / 100)) "$pct"
	done
done

if [ -n "${BENCH_REVISION:-}" ]; then
	commit=$BENCH_REVISION
else
	commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
	git diff --quiet HEAD -- src include cli 2>/dev/null ||
		commit="$commit (+ uncommitted changes in src/)"
fi
cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
buildtype=$(meson introspect "$BUILD" --buildoptions 2>/dev/null |
	tr '{' '\n' | awk -F'"value": "' '/"name": "buildtype"/ { split($2, a, "\""); print a[1] }')

[ "$ONLY" = callgrind ] || [ "$ONLY" = markers ] || [ "$ONLY" = perf ] || [ "$ONLY" = serve ] ||
	[ "$ONLY" = page ] || [ "$ONLY" = deep ] || [ "$ONLY" = memory ] || [ "$ONLY" = snapshot ] ||
	[ "$ONLY" = tui ] || [ "$ONLY" = svg ] || [ "$ONLY" = cgmem ] || [ "$ONLY" = deep-api ] || [ "$ONLY" = cpu ] || cat >"$RESULTS" <<EOF
# Benchmark results

Written by \`sh bench/run.sh\` (\`make bench\`); bench/README.md says what each figure means.
Run of $(date -u '+%Y-%m-%d %H:%M UTC') at profview $commit, build \`$BUILD\` (${buildtype:-?}),
$(nproc) CPUs ($cpu), $(hyperfine --version).

Targets (doc/performance.md): opening the 200 MB Firefox processed profile costs at most
6× the scan, peak memory stays below the file size, and the ratios stay flat from 25 % to 100 %.

| input | of full | size | profview median | profview speed | scan median | profview / scan | profview peak RSS | RSS / size | profview peak anon | profview peak file-backed | scan peak RSS |
|---|---|---|---|---|---|---|---|---|---|---|---|$rows

Medians of $ROUNDS runs each, alternated (profview, scan, profview, scan, ...), after one warm-up
run of each; the file is in the page cache. Peak RSS is \`Maximum resident set size\` of
\`/usr/bin/time -v\`, one run; it counts the pages of the memory-mapped input that were touched,
which is all of the scan's peak RSS. The two "peak anon / file-backed" columns split profview's
memory into its own (heap, scratch: RssAnon) and the mapped input (RssFile), each the largest
value seen polling /proc/PID/status every ~5 ms in another run; the two peaks need not coincide.

Every run (seconds, sorted):
$details

## Commands

This file: \`$invocation\`.

Inputs (seeded; the same bytes on every run):
\`\`\`sh$gen_cmds
\`\`\`

Each round, for each input FILE (round 1 adds \`--warmup 1\`):
\`\`\`sh
hyperfine -N --runs 1 --style none --export-csv $HF/NAME-rK.csv --export-json $HF/NAME-rK.json \\
  -n profview "$PV tree --depth 3 FILE" -n scan "$SCAN FILE"
\`\`\`
(hyperfine sends the commands' standard output to /dev/null.)

Peak memory:
\`\`\`sh
/usr/bin/time -v $PV tree --depth 3 FILE >/dev/null
/usr/bin/time -v $SCAN FILE >/dev/null
\`\`\`
EOF

# "move the center" (issue 3): a centered view against one plain inclusive pass, in process
if [ -z "$ONLY" ] || [ "$ONLY" = center ]; then
	ninja -C "$BUILD" bench/center >/dev/null
	center_out=$("$BUILD/bench/center" 10000000 1000000 "$ROUNDS")
	cat >>"$RESULTS" <<EOF

## Move the center

\`$BUILD/bench/center 10000000 1000000 $ROUNDS\` builds a seeded profile of 10 M samples over 1 M
distinct stacks (50 k functions, depths 20-60) in memory, then alternates one plain inclusive pass
(each sample onto its stack, totals up the prefix tree) with a top-down and a bottom-up view
centered on a different function each round. Target: a centered view costs at most 3x the pass.

\`\`\`
$center_out
\`\`\`
EOF
fi
# callgrind (issue 5): `profview top` against `callgrind_annotate --inclusive=yes` on a generated
# callgrind file at 25/50/100 % of BENCH_CALLGRIND_MB (default 100), BENCH_CALLGRIND_ROUNDS runs
# each (default 3: callgrind_annotate takes over a minute on 100 MB), alternated; the program
# totals must be identical, and at 25 % every function's self cost (profview top --json against
# callgrind_annotate --inclusive=no).
if [ -z "$ONLY" ] || [ "$ONLY" = callgrind ]; then
	CG_MB=${BENCH_CALLGRIND_MB:-100}
	CG_ROUNDS=${BENCH_CALLGRIND_ROUNDS:-3}
	CGA=$(command -v callgrind_annotate) || { echo "bench: callgrind_annotate is missing (Debian package valgrind)" >&2; exit 1; }
	cg_rows=""
	cg_details=""
	for pct in 25 50 100; do
		mb=$((CG_MB * pct / 100))
		file=$OUT/callgrind-$mb.out
		if [ ! -s "$file" ] || [ "$GEN" -nt "$file" ]; then
			echo "bench: generating $file" >&2
			"$GEN" callgrind "$mb" "$file.tmp" 2>"$OUT/gen-callgrind-$mb.log"
			mv "$file.tmp" "$file"
		fi
		abs=$(cd "$(dirname "$file")" && pwd)/$(basename "$file")
		bytes=$(wc -c <"$file" | tr -d ' ')
		echo "bench: callgrind-$mb: $CG_ROUNDS rounds" >&2
		r=1
		while [ "$r" -le "$CG_ROUNDS" ]; do
			hyperfine -N --runs 1 --style none \
				--export-csv "$HF/callgrind-$mb-r$r.csv" \
				-n profview "$PV top -n 20 $abs" \
				-n annotate "$CGA --inclusive=yes $abs" >/dev/null
			r=$((r + 1))
		done
		pv_times=$(cat "$HF/callgrind-$mb"-r*.csv | awk -F, '$1 == "profview" { print $4 }')
		an_times=$(cat "$HF/callgrind-$mb"-r*.csv | awk -F, '$1 == "annotate" { print $4 }')
		pv_med=$(echo "$pv_times" | median)
		an_med=$(echo "$an_times" | median)
		pv_rss=$(peak_rss "$OUT/time-callgrind-$mb-profview.txt" "$PV" top -n 20 "$abs")
		# identical totals: annotate's PROGRAM TOTALS against profview's metric total
		an_total=$(cd / && callgrind_annotate --inclusive=yes "$abs" |
			awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')
		pv_total=$("$PV" info "$abs" | awk '/^  Ir \(instructions\): total/ { print $4; exit }')
		same=no
		[ "$an_total" = "$pv_total" ] && same=yes
		selfcheck=""
		if [ "$pct" = 25 ]; then
			(cd / && callgrind_annotate --inclusive=no --threshold=100 "$abs") >"$OUT/annotate-self-$mb.txt"
			"$PV" top --json "$abs" >"$OUT/top-$mb.json"
			selfcheck=$(python3 bench/cg_self.py "$OUT/annotate-self-$mb.txt" "$OUT/top-$mb.json")
		fi
		cg_rows="$cg_rows
$(awk -v n="callgrind-$mb" -v p="$pct" -v b="$bytes" -v pv="$pv_med" -v an="$an_med" -v pr="$pv_rss" \
			-v at="$an_total" -v pt="$pv_total" -v same="$same" 'BEGIN {
			printf "| %s | %s %% | %.1f MB | %.3f s | %.3f s | %.1f× | %.0f MB | %s | %s | %s |",
				n, p, b / 1e6, pv, an, an / pv, pr * 1024 / 1e6, at, pt, same }')"
		cg_details="$cg_details
- callgrind-$mb: profview $(echo "$pv_times" | sort -g | awk '{ printf "%s%.3f", (NR > 1 ? " " : ""), $1 }') s;
  callgrind_annotate $(echo "$an_times" | sort -g | awk '{ printf "%s%.2f", (NR > 1 ? " " : ""), $1 }') s${selfcheck:+;
  self cost per function against callgrind_annotate --inclusive=no: $selfcheck}"
	done
	# a centered view of the largest file (computed from its call graph, doc/callgraph.md)
	# against top on it: tree and callers centered on the third heaviest function by total
	heavy=$("$PV" top --sort total -n 3 --json "$abs" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["rows"][2]["name"])')
	hyperfine -N --runs "$CG_ROUNDS" --style none --export-csv "$HF/callgrind-center.csv" \
		-n top "$PV top -n 20 $abs" \
		-n tree "$PV tree --center '$heavy' --min-percent 0.1 $abs" \
		-n callers "$PV callers --center '$heavy' --min-percent 0.1 $abs" >/dev/null
	c_top=$(awk -F, '$1 == "top" { print $2 }' "$HF/callgrind-center.csv")
	c_tree=$(awk -F, '$1 == "tree" { print $2 }' "$HF/callgrind-center.csv")
	c_callers=$(awk -F, '$1 == "callers" { print $2 }' "$HF/callgrind-center.csv")
	cg_center=$(awk -v f="callgrind-$mb" -v h="$heavy" -v t="$c_top" -v a="$c_tree" -v b="$c_callers" 'BEGIN {
		printf "| %s | %s | %.3f s | %.3f s (%.2f×) | %.3f s (%.2f×) |", f, h, t, a, a / t, b, b / t }')
	# the section replaces the one of an earlier run
	drop_section "Callgrind: "
	cat >>"$RESULTS" <<EOF

## Callgrind: profview top against callgrind_annotate

Target (doc/performance.md): per-function inclusive/exclusive of a 100 MB callgrind file
at least 20× faster than \`callgrind_annotate --inclusive=yes\`, identical totals, the ratio flat
from 25 % to 100 %. Medians of $CG_ROUNDS runs each, alternated (profview, annotate, ...).

| input | of full | size | profview top | callgrind_annotate | ratio | profview peak RSS | annotate total Ir | profview total Ir | identical |
|---|---|---|---|---|---|---|---|---|---|$cg_rows

Every run (seconds, sorted):
$cg_details

A centered view against top on the largest file (target: at most 2×; means of $CG_ROUNDS runs):
\`profview tree --center F --min-percent 0.1 FILE\` and \`profview callers --center F --min-percent 0.1
FILE\`, F the third heaviest function by total; the view is computed from the call graph (every
row up to the row budget, the threshold only cuts what is printed).

| input | center F | profview top | tree --center F | callers --center F |
|---|---|---|---|---|
$cg_center

Commands (FILE = the absolute path of bench/out/callgrind-MB.out, made by
\`$GEN callgrind MB FILE\`):
\`\`\`sh
hyperfine -N --runs 1 --style none --export-csv $HF/callgrind-MB-rK.csv \\
  -n profview "$PV top -n 20 FILE" -n annotate "callgrind_annotate --inclusive=yes FILE"
cd / && callgrind_annotate --inclusive=yes FILE | grep 'PROGRAM TOTALS'; $PV info FILE | grep total
python3 bench/cg_self.py ANNOTATE-SELF-OUTPUT TOP-JSON   # at 25 %
\`\`\`
EOF
fi
# markers (issue 4): on generated profiles of 25/50/100 % of BENCH_MARKERS raw markers, the
# marker work alone (derivation and per-name summary, timed in one process by bench/marker-time
# after one import: it must cost the same per marker at every size), and the whole command
# `profview markers --summary` against `profview info` (the import alone), BENCH_ROUNDS runs each,
# alternated.
if [ -z "$ONLY" ] || [ "$ONLY" = markers ]; then
	MK_N=${BENCH_MARKERS:-1000000}
	ninja -C "$BUILD" bench/gen-markers bench/marker-time >/dev/null
	MKGEN=$BUILD/bench/gen-markers
	MKTIME=$BUILD/bench/marker-time
	mk_rows=""
	mk_details=""
	base=""
	for pct in 25 50 100; do
		n=$((MK_N * pct / 100))
		file=$OUT/markers-$n.json
		if [ ! -s "$file" ] || [ "$MKGEN" -nt "$file" ]; then
			echo "bench: generating $file" >&2
			"$MKGEN" "$n" "$file.tmp"
			mv "$file.tmp" "$file"
		fi
	done
	# the marker work: 3 passes over the three sizes, so a busy spell of this shared machine
	# falls on all of them; each size keeps its least disturbed round
	for pass in 1 2 3; do
		for pct in 25 50 100; do
			n=$((MK_N * pct / 100))
			echo "bench: markers-$n: marker-time pass $pass" >&2
			"$MKTIME" "$OUT/markers-$n.json" "$ROUNDS" >>"$OUT/marker-time-$n.txt.new"
		done
	done
	for pct in 25 50 100; do
		n=$((MK_N * pct / 100))
		mv "$OUT/marker-time-$n.txt.new" "$OUT/marker-time-$n.txt"
	done
	for pct in 25 50 100; do
		n=$((MK_N * pct / 100))
		file=$OUT/markers-$n.json
		bytes=$(wc -c <"$file" | tr -d ' ')
		# the pass with the smallest minimum
		work=$(awk '{ for (i = 1; i < NF; i++) if ($i == "cpu_min") v = $(i + 1)
			if (best == "" || v < best) { best = v; line = $0 } } END { print line }' \
			"$OUT/marker-time-$n.txt")
		echo "bench: markers-$n: $ROUNDS rounds" >&2
		r=1
		while [ "$r" -le "$ROUNDS" ]; do
			warm=""
			[ "$r" -eq 1 ] && warm="--warmup 1"
			# shellcheck disable=SC2086
			hyperfine -N $warm --runs 1 --style none --export-csv "$HF/markers-$n-r$r.csv" \
				-n summary "$PV markers --summary $file" -n info "$PV info $file" >/dev/null
			r=$((r + 1))
		done
		su_times=$(cat "$HF/markers-$n"-r*.csv | awk -F, '$1 == "summary" { print $4 }')
		in_times=$(cat "$HF/markers-$n"-r*.csv | awk -F, '$1 == "info" { print $4 }')
		su_med=$(echo "$su_times" | median)
		in_med=$(echo "$in_times" | median)
		su_rss=$(peak_rss "$OUT/time-markers-$n-summary.txt" "$PV" markers --summary "$file")
		per=$(echo "$work" | awk '{ for (i = 1; i < NF; i++) if ($i == "ns_per_raw") print $(i + 1) }')
		[ -z "$base" ] && base=$per
		mk_rows="$mk_rows
$(echo "$work" | awk -v n="$n" -v p="$pct" -v b="$bytes" -v su="$su_med" -v in_="$in_med" \
			-v sr="$su_rss" -v base="$base" '{
			for (i = 1; i < NF; i++) v[$i] = $(i + 1)
			printf "| markers-%s | %s %% | %.1f MB | %d | %d | %.3f s | %.3f s | %.0f ns | %.2f | %.3f s | %.3f s | %.0f MB |",
				n, p, b / 1e6, v["raw"], v["derived"], v["cpu_min"], v["cpu_median"],
				v["ns_per_raw"], v["ns_per_raw"] / base, su, in_, sr * 1024 / 1e6 }')"
		mk_details="$mk_details
- markers-$n: marker-time, 3 passes:
$(sed 's/^/  /; s/$/;/' "$OUT/marker-time-$n.txt")
  markers --summary $(echo "$su_times" | sort -g | awk '{ printf "%s%.3f", (NR > 1 ? " " : ""), $1 }') s;
  info $(echo "$in_times" | sort -g | awk '{ printf "%s%.3f", (NR > 1 ? " " : ""), $1 }') s"
	done
	# the section replaces the one of an earlier run
	drop_section "Markers: "
	cat >>"$RESULTS" <<EOF

## Markers: the per-name summary of up to 1 M markers

\`$MKGEN N FILE\` writes a Firefox processed profile of N raw markers (bench/markers.c: 8 threads,
intervals, instants, nested start/end pairs, Network loads, incomplete ones, 48 names).
\`$MKTIME FILE $ROUNDS\` imports it once, then derives the markers and summarizes them by name
$ROUNDS times in the same process; this is done in 3 passes over the three inputs (so that a busy
spell of this shared machine falls on all of them) and each input keeps its best pass. "Marker
work" is that pass's CPU time, the minimum of its rounds (the round least disturbed: the figure
compared) and their median; "per raw marker" divides the minimum by N, and "vs 25 %" compares
that with the 25 % input.
Target (issue 4): time linear in the marker count, i.e. "vs 25 %" near 1.00. The whole command
\`$PV markers --summary FILE\` (import, derivation, summary) and \`$PV info FILE\` (the import
alone) are timed too, alternated, medians of $ROUNDS runs (wall time; other processes share this
machine, so these two are the noisier figures).

| input | of full | size | raw markers | derived | marker work (CPU, min) | marker work (CPU, median) | per raw marker | vs 25 % | markers --summary | info | summary peak RSS |
|---|---|---|---|---|---|---|---|---|---|---|---|$mk_rows

Every run:
$mk_details

Commands (FILE = bench/out/markers-N.json):
\`\`\`sh
$MKGEN N FILE
$MKTIME FILE $ROUNDS
hyperfine -N --runs 1 --style none --export-csv $HF/markers-N-rK.csv \\
  -n summary "$PV markers --summary FILE" -n info "$PV info FILE"
/usr/bin/time -v $PV markers --summary FILE >/dev/null
\`\`\`
EOF
fi
# perf script (issue 5): open + top-down tree of a generated `perf script` text (bench/gen.c perf)
# at 25/50/100 % of BENCH_PERF_MB (default 200) against the byte scan of the same file and
# against speedscope's importer under Node (bench/speedscope-import.js, npm package speedscope,
# installed into bench/node_modules when missing), BENCH_PERF_ROUNDS runs of each (default 5:
# speedscope takes ~10 s on 200 MB), alternated (profview, scan, speedscope, ...). BENCH_ONLY=perf
# runs only this and replaces its section of bench/RESULTS.md.
if [ -z "$ONLY" ] || [ "$ONLY" = perf ]; then
	PF_MB=${BENCH_PERF_MB:-200}
	PF_ROUNDS=${BENCH_PERF_ROUNDS:-5}
	command -v node >/dev/null 2>&1 || { echo "bench: node is missing (Debian package nodejs)" >&2; exit 1; }
	if [ ! -d bench/node_modules/speedscope ]; then
		npm install --prefix bench --no-save --no-package-lock --ignore-scripts speedscope@1.25.0 >&2
	fi
	ss_version=$(awk -F'"' '/"version":/ { print $4; exit }' bench/node_modules/speedscope/package.json)
	pf_rows=""
	pf_details=""
	for pct in 25 50 100; do
		mb=$((PF_MB * pct / 100))
		file=$OUT/perf-$mb.txt
		if [ ! -s "$file" ] || [ "$GEN" -nt "$file" ]; then
			echo "bench: generating $file" >&2
			"$GEN" perf "$mb" "$file.tmp" 2>"$OUT/gen-perf-$mb.log"
			mv "$file.tmp" "$file"
		fi
		bytes=$(wc -c <"$file" | tr -d ' ')
		"$PV" info "$file" >"$OUT/info-perf-$mb.txt"
		echo "bench: perf-$mb: $PF_ROUNDS rounds" >&2
		r=1
		while [ "$r" -le "$PF_ROUNDS" ]; do
			warm=""
			[ "$r" -eq 1 ] && warm="--warmup 1"
			# shellcheck disable=SC2086
			hyperfine -N $warm --runs 1 --style none --export-csv "$HF/perf-$mb-r$r.csv" \
				-n profview "$PV tree --depth 3 $file" -n scan "$SCAN $file" \
				-n speedscope "node bench/speedscope-import.js $file" >/dev/null
			r=$((r + 1))
		done
		col() { cat "$HF/perf-$mb"-r*.csv | awk -F, -v c="$1" -v k="$2" '$1 == c { print (k == "cpu" ? $5 + $6 : $4) }'; }
		pv_med=$(col profview wall | median)
		sc_med=$(col scan wall | median)
		ss_med=$(col speedscope wall | median)
		pv_cpu=$(col profview cpu | median)
		sc_cpu=$(col scan cpu | median)
		ss_call=$(node bench/speedscope-import.js "$file" 2>&1 >/dev/null | tee "$OUT/speedscope-perf-$mb.txt" |
			awk '{ for (i = 1; i < NF; i++) if ($i == "call") print $(i + 1) / 1000 }')
		pv_rss=$(peak_rss "$OUT/time-perf-$mb-profview.txt" "$PV" tree --depth 3 "$file")
		sc_rss=$(peak_rss "$OUT/time-perf-$mb-scan.txt" "$SCAN" "$file")
		ss_rss=$(peak_rss "$OUT/time-perf-$mb-speedscope.txt" node bench/speedscope-import.js "$file")
		split=$(rss_split "$PV" tree --depth 3 "$file")
		pf_rows="$pf_rows
$(awk -v n="perf-$mb" -v p="$pct" -v b="$bytes" -v pv="$pv_med" -v sc="$sc_med" -v ss="$ss_med" \
			-v pc="$pv_cpu" -v scc="$sc_cpu" -v call="$ss_call" -v pr="$pv_rss" -v sr="$ss_rss" \
			-v scr="$sc_rss" -v mem="$split" 'BEGIN {
			split(mem, a, " ")
			printf "| %s | %s %% | %.1f MB | %.3f s | %.0f MB/s | %.3f s | %.1f× | %.1f× | %.2f s (import call %.2f s) | %.0f× (%.0f×) | %.0f MB (anon %.0f MB) | %.2f | %.0f MB | %.0f MB |",
				n, p, b / 1e6, pv, b / 1e6 / pv, sc, pv / sc, pc / scc, ss, call, ss / pv,
				call / pv, pr * 1024 / 1e6, a[1] * 1024 / 1e6, pr * 1024 / b, sr * 1024 / 1e6,
				scr * 1024 / 1e6 }')"
		pf_details="$pf_details
- perf-$mb: profview $(col profview wall | sort -g | awk '{ printf "%s%.3f", (NR > 1 ? " " : ""), $1 }') s;
  scan $(col scan wall | sort -g | awk '{ printf "%s%.4f", (NR > 1 ? " " : ""), $1 }') s;
  speedscope $(col speedscope wall | sort -g | awk '{ printf "%s%.2f", (NR > 1 ? " " : ""), $1 }') s;
  $(cat "$OUT/speedscope-perf-$mb.txt")"
	done
	# the section replaces the one of an earlier run
	drop_section "perf script: "
	cat >>"$RESULTS" <<EOF

## perf script: profview tree against a byte scan and speedscope's importer

Run of $(date -u '+%Y-%m-%d %H:%M UTC') at profview $commit, build \`$BUILD\` (${buildtype:-?}),
$(nproc) CPUs ($cpu), $(hyperfine --version).

Targets (doc/performance.md): opening a 200 MB \`perf script\` text and printing the
top-down tree costs at most 4× the byte scan of the file and is at least 10× faster than
speedscope's importer under Node, with peak memory at most ¼ of speedscope's and at most the
input size; the ratios stay flat from 25 % to 100 %. Medians of $PF_ROUNDS runs each, alternated
(profview, scan, speedscope, ...) after one warm-up run of each; wall time, and CPU time (user +
system) for profview / scan, since other processes share this machine. speedscope $ss_version
(npm), Node $(node --version); "import call" is speedscope's importProfilesFromArrayBuffer alone,
timed inside the process (bench/speedscope-import.js), the other figure is the whole process.
Peak memory: \`/usr/bin/time -v\`, one run each; profview's "anon" is its own memory (RssAnon),
the rest is pages of the mapped input.

| input | of full | size | profview | profview speed | scan | profview / scan (wall) | profview / scan (CPU) | speedscope | speedscope / profview | profview peak RSS | RSS / size | speedscope peak RSS | scan peak RSS |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|$pf_rows

Every run (seconds, sorted):
$pf_details

Commands (FILE = bench/out/perf-MB.txt; this section: \`BENCH_PERF_MB=$PF_MB BENCH_PERF_ROUNDS=$PF_ROUNDS BENCH_ONLY=perf sh bench/run.sh\`):
\`\`\`sh
npm install --prefix bench --no-save --no-package-lock --ignore-scripts speedscope@1.25.0
$GEN perf MB FILE
hyperfine -N --runs 1 --style none --export-csv $HF/perf-MB-rK.csv \\
  -n profview "$PV tree --depth 3 FILE" -n scan "$SCAN FILE" \\
  -n speedscope "node bench/speedscope-import.js FILE"
/usr/bin/time -v $PV tree --depth 3 FILE >/dev/null    # and the same for the other two
\`\`\`
EOF
fi
# the web UI (issue 6): moving the center through the view endpoint of the API of
# `profview serve` against pv_view_compute of the same query, in one process (bench/serve.c):
# the answer may cost at most 1.5x the computation. BENCH_ONLY=serve
if [ -z "$ONLY" ] || [ "$ONLY" = serve ]; then
	ninja -C "$BUILD" bench/serve >/dev/null
	serve_out=$("$BUILD/bench/serve" 10000000 1000000 "$ROUNDS")
	# the section replaces the one of an earlier run
	drop_section "Move the center through the web API"
	cat >>"$RESULTS" <<EOF

## Move the center through the web API

Run of $(date -u '+%Y-%m-%d %H:%M UTC') at profview $commit, build \`$BUILD\` (${buildtype:-?}),
$(nproc) CPUs ($cpu).

\`$BUILD/bench/serve 10000000 1000000 $ROUNDS\` (this section: \`BENCH_ONLY=serve sh bench/run.sh\`)
builds the profile of "Move the center" (10 M samples over 1 M distinct stacks, 50 k functions)
in memory, hands it to an in-process API (\`pv_api_add_profile\`), then alternates, for a new
center each round, \`pv_view_compute\` of a centered top-down (then bottom-up) view with
\`pv_api_call("view", "view=tree&center=...&open=...")\` of the same query with the heaviest path
open 30 rows deep, as the page asks: a miss of the API's view cache, so the request's parsing,
the same computation, resolving the open keys, the rows sent (the center, the children of the
open rows) and the JSON. Target (issue 6): the answer costs at most 1.5x the computation. The
machine is shared: the two columns move together from run to run, their ratio less so.

\`\`\`
$serve_out
\`\`\`
EOF
fi
# the page (issue 6): the same center move seen in the browser. bench/page.mjs drives `profview
# serve`'s page in headless Chromium (playwright-core from tests/browser/node_modules, Debian's
# /usr/bin/chromium) on a generated Firefox profile of 1 M distinct stacks: a row click + `c` in
# the top-down and bottom-up tabs alternately, a new function each time, timed in the page; then
# scripted scrolls of a 100,001-row tree. BENCH_ONLY=page
if [ -z "$ONLY" ] || [ "$ONLY" = page ]; then
	PG_ROUNDS=${BENCH_PAGE_ROUNDS:-11}
	command -v node >/dev/null 2>&1 || { echo "bench: node is missing (Debian package nodejs)" >&2; exit 1; }
	[ -x /usr/bin/chromium ] || { echo "bench: /usr/bin/chromium is missing (Debian package chromium; sh tests/browser/run.sh installs it)" >&2; exit 1; }
	if [ ! -f tests/browser/node_modules/playwright-core/package.json ]; then
		(cd tests/browser && npm ci --no-audit --no-fund --loglevel=error) >&2
	fi
	pg_file=$OUT/page-firefox-250.json
	if [ ! -s "$pg_file" ] || [ "$GEN" -nt "$pg_file" ]; then
		echo "bench: generating $pg_file" >&2
		"$GEN" firefox 250 "$pg_file.tmp" 2>"$OUT/gen-page-firefox-250.log"
		mv "$pg_file.tmp" "$pg_file"
	fi
	"$PV" info "$pg_file" >"$OUT/info-page-firefox-250.txt"
	pg_stacks=$(awk '/^tables:/ { print $6; exit }' "$OUT/info-page-firefox-250.txt")
	pg_samples=$(awk '/^samples:/ { print $2; exit }' "$OUT/info-page-firefox-250.txt")
	pg_commit=$commit
	case $pg_commit in
	*uncommitted*) ;;
	*) git diff --quiet HEAD -- web 2>/dev/null || pg_commit="$pg_commit (+ uncommitted changes in web/)" ;;
	esac
	echo "bench: page: $PG_ROUNDS center changes per tab in headless Chromium" >&2
	pg_load0=$(cut -d' ' -f1-3 /proc/loadavg)
	page_out=$(node bench/page.mjs "$PV" "$pg_file" "$OUT/page-wide-100k.txt" "$PG_ROUNDS")
	pg_load1=$(cut -d' ' -f1-3 /proc/loadavg)
	# the section replaces the one of an earlier run
	drop_section "The page: move the center and scroll"
	cat >>"$RESULTS" <<EOF

## The page: move the center and scroll (headless Chromium)

Run of $(date -u '+%Y-%m-%d %H:%M UTC') at profview $pg_commit, build \`$BUILD\` (${buildtype:-?}),
$(nproc) CPUs ($cpu), Node $(node --version). The machine is shared with other busy sessions
(2 cores for the server, Chromium and other people's builds and fuzzers), so absolute times move
from run to run (load average $pg_load0 at the start of this run, $pg_load1 at its end); the
changes alternate between the two tabs.

This section: \`$invocation\` (BENCH_ONLY=page runs only it), i.e.
\`$GEN firefox 250 $pg_file\` ($pg_stacks distinct stacks, $pg_samples samples, 8 threads) then
\`node bench/page.mjs $PV $pg_file $OUT/page-wide-100k.txt $PG_ROUNDS\`. The script starts
\`$PV serve FILE --port 0 --quiet\`, waits for the profile to load and opens the page in
Debian's Chromium (headless, the browser tests' flags, 1400x900). Then, $PG_ROUNDS times in the
top-down tab and $PG_ROUNDS times in the bottom-up tab, alternately, it does what a user does:
clicks a row of the tab (a function not centered before), waits until the page is idle, presses
\`c\`. Timed in the page (performance.now()): from the key press to the api/view request, and to
the centered rows painted (a MutationObserver sees the center row with the new name; a task
posted from there runs after the frame's paint); the api/view request's Resource Timing (server
part: request sent to first byte); "page work after the answer" = rows painted - response end
(JSON, rows, the wait for the next frame, style, layout, paint); "settled" = the heaviest path
below the center opened (one api/children request a level) and selected (the page's mark
\`pv-tree-shown\`, then the next frame). Stalls: the longest main-thread task (PerformanceObserver
\`longtask\`, which reports tasks over 50 ms; 0 = none), the longest gap between two animation
frames, and the renderer's main-thread busy time from the key press until the page is idle (CDP
Performance.getMetrics TaskDuration; it includes the timeline's graph of the new center and the
sidebar's per-thread plot). Scrolling: a tree of 100,001 rows (\`main\` and 100,000 children, a
collapsed file the script writes), 300 frames of each kind driven by requestAnimationFrame, in 3
passes alternating the kinds; "rows missing" counts frames whose drawn rows did not cover the view.
Target (issue 6): the page shows the new center without a visible stall: no main-thread task
near 100 ms, and the page's own work small next to the server's computation (the section "Move
the center through the web API" has the server's answer against the library's).

The page changes that came with this benchmark (web/assets/, first run before them: 3 changes
a tab, the same script): a center change then cost 688 ms median to the rows (840 max) with a
94 ms longest task and 7 long tasks over 6 changes, and scrolling had 42-89 frames over 50 ms in
900 with long tasks up to 161 ms. The causes: the timeline redrew its activity graph with a
fillRect and a fillStyle per bucket and category (~25,000 calls, 110 ms of script + 25 ms of
canvas) - now one path per colour; the timeline asked the server again for the whole profile's
graph (unchanged by a center) and asked for the center's graph at the same time as the tree, so
the three computations shared the 2 cores (the view's answer took ~600 ms instead of ~150) - now
the whole graph is kept and the center's is asked once the tree is shown; the virtual list
rendered every row again on every scroll step and rebuilt each row's elements - now a row keeps
its div while it stays in view and its cells are updated in place.

\`\`\`
$page_out
\`\`\`
EOF
fi
echo "bench: wrote $RESULTS" >&2
cat "$RESULTS"

# deep stacks (issue 11): every command and /api/flame on one stack BENCH_DEEP frames deep (a
# collapsed line, and a Chrome trace of nested events with time of their own in every frame)
# against a flat profile of the same size; time (median of ROUNDS) and peak RSS. BENCH_ONLY=deep
if [ -z "$ONLY" ] || [ "$ONLY" = deep ]; then
	DEPTH=${BENCH_DEEP:-100000}
	ninja -C "$BUILD" bench/api >/dev/null
	deep_rows=""
	for pair in collapsed chrome; do
		for shape in deep flat; do
			f=$OUT/$shape-$pair-$DEPTH.txt
			[ -s "$f" ] && [ "$f" -nt "$GEN" ] || "$GEN" "$shape-$pair" "$DEPTH" "$f" 2>/dev/null
		done
		bytes=$(wc -c <"$OUT/deep-$pair-$DEPTH.txt" | tr -d ' ')
		for cmd in tree callers flat top "butterfly --center f$((DEPTH / 2))" flame; do
			line="| $pair, $(awk -v b="$bytes" 'BEGIN { printf "%.2f MB", b / 1e6 }') | \`$cmd\` |"
			for shape in deep flat; do
				f=$OUT/$shape-$pair-$DEPTH.txt
				name=$shape-$pair-$(echo "$cmd" | cut -d' ' -f1)
				if [ "$cmd" = flame ]; then
					run="$BUILD/bench/api $f flame view=tree"
				else
					run="$PV $cmd $f"
				fi
				hyperfine -N --runs "$ROUNDS" --style none --export-csv "$HF/$name.csv" \
					-n "$name" "$run" >/dev/null 2>&1 || true
				t=$(awk -F, 'NR == 2 { print $4 }' "$HF/$name.csv")
				# shellcheck disable=SC2086
				rss=$(peak_rss "$OUT/time-$name.txt" $run || echo 0)
				# shellcheck disable=SC2086
				if [ "$cmd" = flame ]; then
					bytes_out=$($run | sed -n 's/.*status 200, \([0-9]*\) bytes.*/\1/p')
				else
					bytes_out=$($run 2>/dev/null | wc -c | tr -d ' ')
				fi
				eval "t_$shape=\$t rss_$shape=\$rss out_$shape=\$bytes_out"
			done
			# shellcheck disable=SC2154
			deep_rows="$deep_rows
$line $(awk -v td="$t_deep" -v tf="$t_flat" -v rd="$rss_deep" -v rf="$rss_flat" \
				-v od="$out_deep" -v of="$out_flat" 'BEGIN {
				printf "%.3f s | %.0f MB | %.1f MB | %.3f s | %.0f MB | %.1f MB | %.1f× | %.1f× |",
					td, rd * 1024 / 1e6, od / 1e6, tf, rf * 1024 / 1e6, of / 1e6,
					td / tf, rd / rf }')"
		done
	done
	drop_section "Deep stacks"
	cat >>"$RESULTS" <<EOF

## Deep stacks: one stack $DEPTH frames deep against a flat profile of the same size

Run of $(date -u '+%Y-%m-%d %H:%M UTC') at profview $commit, build \`$BUILD\` (${buildtype:-?}),
$(nproc) CPUs ($cpu). This section: \`BENCH_ONLY=deep sh bench/run.sh\`.

Target (issue 11): a stack $DEPTH frames deep costs every command and endpoint time and memory
linear in the file, at most 10× a flat profile of the same size (doc/deep-stacks.md). The inputs:
\`deep-collapsed\` is one line of $DEPTH frames, \`flat-collapsed\` as many bytes of one-frame
lines; \`deep-chrome\` is $DEPTH nested trace events, each with 2 µs of its own (so the bottom-up
tree has $DEPTH roots over their callers and stops at its row budget), \`flat-chrome\` the same
events side by side. Times are hyperfine medians of $ROUNDS runs (the command's output to
/dev/null), peak RSS from \`/usr/bin/time -v\`, "out" the bytes written; \`flame\` is
\`$BUILD/bench/api FILE flame view=tree\` (one /api/flame answer in process, import included).

| input | command | deep: time | deep: peak RSS | deep: out | flat: time | flat: peak RSS | flat: out | time deep / flat | memory deep / flat |
|---|---|---|---|---|---|---|---|---|---|$deep_rows

Before issue 11 (at 86830f7): \`tree\` of the deep collapsed stack wrote 10 GB (two spaces of
indentation a level), \`callers\` of a 5,000-deep trace took 688 MB and wrote 42 GB (its
12.5 M rows, all printed), one /api/flame answer of the deep stack was 1.2 GB (every node's key
is its whole path), and a call-graph tree 100,000 calls deep took 25 s.

Commands:
\`\`\`sh
$GEN deep-collapsed $DEPTH $OUT/deep-collapsed-$DEPTH.txt    # and flat-collapsed, deep-chrome, flat-chrome
hyperfine -N --runs $ROUNDS "$PV tree FILE"      # callers, flat, top, butterfly --center f$((DEPTH / 2))
hyperfine -N --runs $ROUNDS "$BUILD/bench/api FILE flame view=tree"
/usr/bin/time -v $PV tree FILE >/dev/null        # and the others
\`\`\`
EOF
fi

# memory per unique stack and per sample (issue 11): BENCH_MEMORY_N unique one-frame stacks (a
# collapsed file) and BENCH_MEMORY_N samples of a V8 .cpuprofile; peak RSS against the file's
# size. BENCH_ONLY=memory
if [ -z "$ONLY" ] || [ "$ONLY" = memory ]; then
	MEM_N=${BENCH_MEMORY_N:-10000000}
	mem_load=$(cut -d' ' -f1-3 /proc/loadavg)
	mem_rows=""
	for kind in unique-stacks cpuprofile; do
		f=$OUT/$kind-$MEM_N.txt
		[ -s "$f" ] && [ "$f" -nt "$GEN" ] || "$GEN" "$kind" "$MEM_N" "$f" 2>/dev/null
		bytes=$(wc -c <"$f" | tr -d ' ')
		hyperfine -N --runs 3 --style none --export-csv "$HF/memory-$kind.csv" \
			-n "$kind" "$PV tree --depth 3 $f" >/dev/null 2>&1 || true
		t=$(awk -F, 'NR == 2 { print $4 }' "$HF/memory-$kind.csv")
		rss=$(peak_rss "$OUT/time-memory-$kind.txt" "$PV" tree --depth 3 "$f" || echo 0)
		split=$(rss_split "$PV" tree --depth 3 "$f")
		mem_rows="$mem_rows
$(awk -v k="$kind" -v n="$MEM_N" -v b="$bytes" -v t="$t" -v r="$rss" -v m="$split" 'BEGIN {
			split(m, a, " ")
			printf "| %s | %d | %.1f MB | %.3f s | %.0f MB | %.2f× | %.0f MB | %.0f MB | %.0f |",
				k, n, b / 1e6, t, r * 1024 / 1e6, r * 1024 / b, a[1] * 1024 / 1e6,
				a[2] * 1024 / 1e6, r * 1024 / n }')"
	done
	drop_section "Memory per unique stack and per sample"
	cat >>"$RESULTS" <<EOF

## Memory per unique stack and per sample

Run of $(date -u '+%Y-%m-%d %H:%M UTC') at profview $commit, build \`$BUILD\` (${buildtype:-?}),
$(nproc) CPUs ($cpu), load average at the start $mem_load (a shared machine: the times vary with
it, the memory figures do not). This section: \`BENCH_ONLY=memory sh bench/run.sh\`.

\`unique-stacks\`: $MEM_N lines \`fK 1\`, each a stack of its own (one string, function, frame,
stack and sample each); \`cpuprofile\`: a V8 profile of 4 nodes and $MEM_N samples. The command
is \`$PV tree --depth 3 FILE\` (open and print); time: hyperfine median of 3 runs; peak RSS from
\`/usr/bin/time -v\` (anon and file-backed: polled from /proc as in the first table).
Target (issue 11): under 5× the file.

| input | rows | size | time | peak RSS | RSS / size | peak anon | peak file-backed | bytes a row |
|---|---|---|---|---|---|---|---|---|$mem_rows

Before issue 11 (at 86830f7, the same inputs and command): unique-stacks 2.45 GB (22.5×, 36 s),
cpuprofile 747 MB (13.6×); at 0a86ecc: 1733 MB (15.9×) and 370 MB (6.7×); at 211ee9a (this
section's run of 2026-12-01 22:47, 24.3 s): 1565 MB (14.4×) and 210 MB (3.83×). The steps from
there to 529 MB, each measured on unique-stacks with \`/usr/bin/time -v\` (and the import alone,
\`info\`, polled): function and frame columns absent when constant, 1565 -> 1258 MB; strings
unaligned in the arena, import 814 -> 754 MiB; the printed tree's tail, the tree no longer above
the import; glibc's mmap threshold kept at 128 KiB, 796 -> 683 MB; bare indices as runs,
562 MB (5.17×); the string map's 6-byte slots, 548 MB; no per-stack table for the tail at
function granularity, 529 MB (4.86×).
doc/deep-stacks.md ("Memory per unique stack and per sample") says what each row costs now and
what would still come off.

Commands:
\`\`\`sh
$GEN unique-stacks $MEM_N $OUT/unique-stacks-$MEM_N.txt
$GEN cpuprofile $MEM_N $OUT/cpuprofile-$MEM_N.txt
hyperfine -N --runs 3 "$PV tree --depth 3 FILE"
/usr/bin/time -v $PV tree --depth 3 FILE >/dev/null
\`\`\`
EOF
fi
# CPU time against the floor (issue 28): the 200 MB Firefox profile (`tree --depth 3`) and the
# 100 MB callgrind file (`top -n 20`) against bench/scan on the same file, and the callgrind file
# against callgrind_annotate --inclusive=yes: each command's CPU time (perf stat's task-clock:
# user and system time of all its threads; /usr/bin/time's user + sys without perf), which a
# loaded machine moves less than the wall clock. BENCH_CPU_ROUNDS rounds (default 15) alternate
# the commands (BENCH_CPU_BEFORE=PROFVIEW adds an older binary to each round), then
# BENCH_CPU_ANNOTATE_ROUNDS (default 3) alternate profview and callgrind_annotate. A Chrome
# trace of BENCH_CPU_CHROME_N (default 1000000) begin/end events (`gen flat-chrome`) is timed
# with the first two: it goes through the same JSON tokenizer (no target of its own).
# BENCH_ONLY=cpu (not part of a full run: callgrind_annotate takes minutes)
if [ "$ONLY" = cpu ]; then
	CPU_ROUNDS=${BENCH_CPU_ROUNDS:-15}
	AN_ROUNDS=${BENCH_CPU_ANNOTATE_ROUNDS:-3}
	BEFORE=${BENCH_CPU_BEFORE:-}
	CGA=$(command -v callgrind_annotate) || { echo "bench: callgrind_annotate is missing (Debian package valgrind)" >&2; exit 1; }
	ff=$OUT/firefox-$FF_MB.json
	cgmb=${BENCH_CALLGRIND_MB:-100}
	cg=$OUT/callgrind-$cgmb.out
	[ -s "$ff" ] && [ "$ff" -nt "$GEN" ] || "$GEN" firefox "$FF_MB" "$ff" 2>/dev/null
	[ -s "$cg" ] && [ "$cg" -nt "$GEN" ] || "$GEN" callgrind "$cgmb" "$cg" 2>/dev/null
	abs_out=$(cd "$OUT" && pwd)
	cg_abs=$abs_out/callgrind-$cgmb.out
	# a Chrome trace (the JSON tokenizer of the Firefox profile): BENCH_CPU_CHROME_N events
	chn=${BENCH_CPU_CHROME_N:-1000000}
	ch=$OUT/flat-chrome-$chn.json
	[ -s "$ch" ] && [ "$ch" -nt "$GEN" ] || "$GEN" flat-chrome "$chn" "$ch" 2>/dev/null
	# cpu_ms NAME CMD...: the command's CPU time in ms, appended to OUT/cpu-NAME.txt
	cpu_ms() {
		n=$1
		shift
		if command -v perf >/dev/null 2>&1; then
			perf stat -x, -e task-clock "$@" 2>&1 >/dev/null |
				awk -F, '/task-clock/ { print $1 }' >>"$abs_out/cpu-$n.txt"
		else
			/usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -n 1 |
				awk '{ print ($1 + $2) * 1000 }' >>"$abs_out/cpu-$n.txt"
		fi
	}
	rm -f "$OUT"/cpu-*.txt
	cpu_load0=$(cut -d' ' -f1-3 /proc/loadavg)
	"$PV" tree --depth 3 "$ff" >/dev/null
	"$SCAN" "$ff" >/dev/null
	for r in $(seq "$CPU_ROUNDS"); do
		echo "bench: cpu round $r" >&2
		[ -z "$BEFORE" ] || cpu_ms ff-before "$BEFORE" tree --depth 3 "$ff"
		cpu_ms ff-pv "$PV" tree --depth 3 "$ff"
		cpu_ms ff-scan "$SCAN" "$ff"
		[ -z "$BEFORE" ] || cpu_ms cg-before "$BEFORE" top -n 20 "$cg"
		cpu_ms cg-pv "$PV" top -n 20 "$cg"
		cpu_ms cg-scan "$SCAN" "$cg"
		[ -z "$BEFORE" ] || cpu_ms ch-before "$BEFORE" tree --depth 3 "$ch"
		cpu_ms ch-pv "$PV" tree --depth 3 "$ch"
		cpu_ms ch-scan "$SCAN" "$ch"
	done
	for r in $(seq "$AN_ROUNDS"); do
		echo "bench: cpu annotate round $r" >&2
		cpu_ms an-pv "$PV" top -n 20 "$cg_abs"
		(cd / && cpu_ms an-annotate "$CGA" --inclusive=yes "$cg_abs")
	done
	cpu_load1=$(cut -d' ' -f1-3 /proc/loadavg)
	med() { median <"$OUT/cpu-$1.txt"; }
	runs() { sort -g "$OUT/cpu-$1.txt" | awk '{ printf "%s%.0f", (NR > 1 ? " " : ""), $1 }'; }
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
	ff_pv=$(med ff-pv) ff_scan=$(med ff-scan) cg_pv=$(med cg-pv) cg_scan=$(med cg-scan)
	an_pv=$(med an-pv) an_an=$(med an-annotate)
	ch_pv=$(med ch-pv) ch_scan=$(med ch-scan)
	before_rows=""
	if [ -n "$BEFORE" ]; then
		before_rows="
| firefox-$FF_MB, before ($BEFORE) | $(med ff-before) ms | $ff_scan ms | $(ratio "$(med ff-before)" "$ff_scan")× |
| callgrind-$cgmb, before ($BEFORE) | $(med cg-before) ms | $cg_scan ms | $(ratio "$(med cg-before)" "$cg_scan")× |
| flat-chrome-$chn, before ($BEFORE) | $(med ch-before) ms | $ch_scan ms | $(ratio "$(med ch-before)" "$ch_scan")× |"
	fi
	an_total=$( (cd / && "$CGA" --inclusive=yes "$cg_abs") | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')
	pv_total=$("$PV" info "$cg" | awk '/total/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) { print $i; exit } }')
	drop_section "CPU time against the floor"
	cat >>"$RESULTS" <<EOF

## CPU time against the floor (issue 28)

Run of $(date -u '+%Y-%m-%d %H:%M UTC') at profview $commit, build \`$BUILD\` (${buildtype:-?}),
$(nproc) CPUs ($cpu), shared with other sessions: load average $cpu_load0 at the start,
$cpu_load1 at the end. This section: \`$invocation\`.

Each figure is a command's CPU time (perf stat's task-clock: the user and system time of all its
threads), the median of $CPU_ROUNDS rounds in which the commands alternate (${BEFORE:+before, }profview,
scan on the Firefox file, then the same on the callgrind file and on a Chrome trace of
$chn begin/end events, \`bench/gen flat-chrome\`), after one warm-up run; the files
are in the page cache. Then $AN_ROUNDS rounds of profview and callgrind_annotate, alternated.
Targets (issue 28): the Firefox profile at most 10× the scan, the callgrind file at most 8×, and
callgrind_annotate at least 50× slower.

| input | profview | scan | profview / scan |
|---|---|---|---|
| firefox-$FF_MB (\`tree --depth 3\`) | $ff_pv ms | $ff_scan ms | **$(ratio "$ff_pv" "$ff_scan")×** |
| callgrind-$cgmb (\`top -n 20\`) | $cg_pv ms | $cg_scan ms | **$(ratio "$cg_pv" "$cg_scan")×** |
| flat-chrome-$chn (\`tree --depth 3\`, no target) | $ch_pv ms | $ch_scan ms | $(ratio "$ch_pv" "$ch_scan")× |$before_rows

| input | profview top -n 20 | callgrind_annotate --inclusive=yes | annotate / profview |
|---|---|---|---|
| callgrind-$cgmb | $an_pv ms | $an_an ms | **$(ratio "$an_an" "$an_pv")×** |

Program totals (Ir): callgrind_annotate $an_total, profview $pv_total.

Every run (ms, sorted):

- firefox-$FF_MB: profview $(runs ff-pv); scan $(runs ff-scan)${BEFORE:+; before $(runs ff-before)}
- callgrind-$cgmb: profview $(runs cg-pv); scan $(runs cg-scan)${BEFORE:+; before $(runs cg-before)}
- flat-chrome-$chn: profview $(runs ch-pv); scan $(runs ch-scan)${BEFORE:+; before $(runs ch-before)}
- against callgrind_annotate: profview $(runs an-pv); callgrind_annotate $(runs an-annotate)

Commands:
\`\`\`sh
$GEN firefox $FF_MB $ff
$GEN callgrind $cgmb $cg
$GEN flat-chrome $chn $ch
perf stat -x, -e task-clock $PV tree --depth 3 $ff
perf stat -x, -e task-clock $SCAN $ff
perf stat -x, -e task-clock $PV top -n 20 $cg
perf stat -x, -e task-clock $SCAN $cg
perf stat -x, -e task-clock $PV tree --depth 3 $ch
perf stat -x, -e task-clock $SCAN $ch
cd / && perf stat -x, -e task-clock $CGA --inclusive=yes $cg_abs
\`\`\`
EOF
fi
# callgrind memory (issue 25): peak memory of opening a callgrind file (the call graph kept, the
# calling contexts estimated from it) against its size, on CPython's profile of tests/data
# (gunzipped) and on generated files of BENCH_CGMEM_MB MB. BENCH_ONLY=cgmem
if [ -z "$ONLY" ] || [ "$ONLY" = cgmem ]; then
	cgm_load=$(cut -d' ' -f1-3 /proc/loadavg)
	cgm_rows=""
	f=$OUT/cpython.callgrind
	[ -s "$f" ] && [ "$f" -nt tests/data/callgrind/cpython.callgrind.gz ] ||
		gzip -dc tests/data/callgrind/cpython.callgrind.gz >"$f"
	files=$f
	for mb in ${BENCH_CGMEM_MB:-10 25}; do
		g=$OUT/callgrind-$mb.out
		[ -s "$g" ] && [ "$g" -nt "$GEN" ] || "$GEN" callgrind "$mb" "$g" 2>/dev/null
		files="$files $g"
	done
	for f in $files; do
		bytes=$(wc -c <"$f" | tr -d ' ')
		name=$(basename "$f")
		rss=$(peak_rss "$OUT/time-cgmem-$name.txt" "$PV" top -n 20 "$f")
		split=$(rss_split "$PV" top -n 20 "$f")
		stacks=$("$PV" info "$f" | awk '/^tables:/ { print $6; exit }')
		cgm_rows="$cgm_rows
$(awk -v k="$name" -v b="$bytes" -v r="$rss" -v m="$split" -v s="$stacks" 'BEGIN {
			split(m, a, " ")
			printf "| %s | %.2f MB | %s | %.1f MB | %.2f× | %.1f MB | %.2f× | %.1f MB |",
				k, b / 1e6, s, r * 1024 / 1e6, r * 1024 / b, a[1] * 1024 / 1e6,
				a[1] * 1024 / b, a[2] * 1024 / 1e6 }')"
	done
	drop_section "Callgrind memory"
	cat >>"$RESULTS" <<EOF

## Callgrind memory

Run of $(date -u '+%Y-%m-%d %H:%M UTC') at profview $commit, build \`$BUILD\` (${buildtype:-?}),
$(nproc) CPUs ($cpu), load average at the start $cgm_load. This section:
\`BENCH_ONLY=cgmem sh bench/run.sh\`.

Target (issue 25): a callgrind file opens in at most 5× its size. The command is
\`$PV top -n 20 FILE\` (the import: the call graph kept and the calling contexts estimated from
it, doc/callgraph.md); peak RSS from \`/usr/bin/time -v\`, peak anon (RssAnon: the heap) and
file-backed (the mapped input, the binary) polled from /proc as in the first table. A process
that opens a one-line collapsed file peaks at about 3.6 MB (the binary and libc): most of the
1.4 MB CPython file's figure.

| input | size | stacks | peak RSS | RSS / size | peak anon | anon / size | peak file-backed |
|---|---|---|---|---|---|---|---|$cgm_rows

Before (at f8ba890: contexts capped at 64 a function, the rest at the root; the same files and
command, \`/usr/bin/time -v\`): cpython.callgrind 31.3 MB (22.4×, 261,021 stacks),
callgrind-10.out 140.9 MB (14.1×, 1,658,773 stacks), callgrind-25.out 155.0 MB (6.2×); before
the call graph was kept (5b84743~1, no per-line frames): cpython.callgrind 15.9 MB (11.4×).
The steps: contexts built from the graph (a call's share under 1/65536 of the part's cost no
context of its own; doc/callgraph.md), stacks appended without the stack map (each context is
new), the last part's line and edge tables freed before the whole graph is built, the line rows
freed (not kept at their capacity) when a part goes past 2^18 of them, scratch grown by a quarter
(not doubled). The import got no slower: instructions of the same command under
\`valgrind --tool=callgrind\` (Collected), f8ba890 -> now: cpython.callgrind 345,690,262 ->
327,835,732 (-5 %), callgrind-10.out 1,928,338,331 -> 1,169,135,115 (-39 %).
The 1.4 MB CPython file stays above 5×: 3.6 MB of it is the process itself, and its 55,531
line frames and 115,131 stacks (a per-line split of every function's self cost over its contexts,
doc/lines.md) are most of the heap.

Commands:
\`\`\`sh
gzip -dc tests/data/callgrind/cpython.callgrind.gz >$OUT/cpython.callgrind
$GEN callgrind MB $OUT/callgrind-MB.out
/usr/bin/time -v $PV top -n 20 FILE >/dev/null
\`\`\`
EOF
fi
# snapshots (issue 16): the BENCH_FIREFOX_MB (200) Firefox profile opened from the file (a parse)
# and from its snapshot (a map), each open alone in a process of its own (bench/open.c:
# pv_import_file timed, peak RssAnon polled in process), BENCH_ROUNDS runs each, alternated; then
# the whole `profview info` on each. Targets: the reopen at least 50x faster than the first open,
# its peak anonymous memory at most a tenth. BENCH_ONLY=snapshot
if [ -z "$ONLY" ] || [ "$ONLY" = snapshot ]; then
	ninja -C "$BUILD" bench/open >/dev/null
	OPEN=$BUILD/bench/open
	file=$OUT/firefox-$FF_MB.json
	snap=$OUT/firefox-$FF_MB.pvs
	if [ ! -s "$file" ] || [ "$GEN" -nt "$file" ]; then
		echo "bench: generating $file" >&2
		"$GEN" firefox "$FF_MB" "$file.tmp" 2>"$OUT/gen-firefox-$FF_MB.log"
		mv "$file.tmp" "$file"
	fi
	t0=$(date +%s.%N)
	"$PV" snapshot "$file" -o "$snap"
	t1=$(date +%s.%N)
	write_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	: >"$OUT/open-file.txt"
	: >"$OUT/open-snapshot.txt"
	"$OPEN" "$file" >/dev/null # warm-up: both files in the page cache
	"$OPEN" "$snap" >/dev/null
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		"$OPEN" "$file" >>"$OUT/open-file.txt"
		"$OPEN" "$snap" >>"$OUT/open-snapshot.txt"
		r=$((r + 1))
	done
	field() { # field FILE NAME: the median of NAME=V over the lines of FILE
		tr ' ' '\n' <"$1" | awk -F= -v n="$2" '$1 == n { print $2 }' | median
	}
	fw=$(field "$OUT/open-file.txt" seconds) fc=$(field "$OUT/open-file.txt" cpu)
	fa=$(field "$OUT/open-file.txt" anon_kb) fh=$(field "$OUT/open-file.txt" hwm_kb)
	sw=$(field "$OUT/open-snapshot.txt" seconds) scpu=$(field "$OUT/open-snapshot.txt" cpu)
	fk=$(field "$OUT/open-file.txt" checked) sk=$(field "$OUT/open-snapshot.txt" checked)
	sa=$(field "$OUT/open-snapshot.txt" anon_kb) shwm=$(field "$OUT/open-snapshot.txt" hwm_kb)
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		hyperfine -N --runs 1 --style none --export-csv "$HF/snapshot-info-r$r.csv" \
			-n file "$PV info $file" -n snapshot "$PV info $snap" >/dev/null
		r=$((r + 1))
	done
	iw=$(cat "$HF"/snapshot-info-r*.csv | awk -F, '$1 == "file" { print $4 }' | median)
	isw=$(cat "$HF"/snapshot-info-r*.csv | awk -F, '$1 == "snapshot" { print $4 }' | median)
	mb() { awk -v b="$1" -v k="${2:-1}" -v d="${3:-1}" 'BEGIN { printf "%.*f MB", d, b * k / 1e6 }'; }
	sec() { awk -v v="$1" -v d="$2" 'BEGIN { printf "%.*f s", d, v }'; }
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f×", a / b }'; }
	drop_section "Snapshot: reopen"
	cat >>"$RESULTS" <<EOF

## Snapshot: reopen of the ${FF_MB} MB Firefox profile

Run of $(date -u '+%Y-%m-%d %H:%M UTC') at profview $commit, build \`$BUILD\` (${buildtype:-?}),
$(nproc) CPUs ($cpu), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end.
This section: \`BENCH_ONLY=snapshot sh bench/run.sh\` (doc/snapshot.md).

\`$PV snapshot FILE -o FILE.pvs\` wrote a $(mb "$(wc -c <"$snap")") snapshot of the
$(mb "$(wc -c <"$file")") file in $write_s s (the import included). Each open alone, in a process
of its own, both files in the page cache, $ROUNDS runs of each alternated (\`$OPEN FILE\`,
bench/open.c: \`pv_import_file\` timed, wall and the CPU of its thread; "checked": the wall time
until \`pv_profile_check\` has returned too; peak RssAnon, the anonymous memory, polled every
0.5 ms in process from /proc/self/statm and read after the open; VmHWM, all resident memory, the
mapped file's pages too), medians. The snapshot's open checks every invariant of the model and the
checksums of the sections under 1 MiB; the big sections' checksums are verified by a second thread
started at the end of the open and left running (doc/snapshot.md), done by "checked". Targets (issue 16): at least 50× faster, at
most a tenth of the anonymous memory. The machine is shared (the load average below): wall times
move with the other jobs, the CPU of the open's thread much less.

| open | wall | CPU | checked | peak anon | peak RSS (file pages too) |
|---|---|---|---|---|---|
| first (parse the JSON) | $(sec "$fw" 3) | $(sec "$fc" 3) | $(sec "$fk" 3) | $(mb "$fa" 1024) | $(mb "$fh" 1024) |
| reopen (map the snapshot) | $(sec "$sw" 4) | $(sec "$scpu" 4) | $(sec "$sk" 4) | $(mb "$sa" 1024 2) | $(mb "$shwm" 1024) |
| first / reopen | $(ratio "$fw" "$sw") | $(ratio "$fc" "$scpu") | $(ratio "$fk" "$sk") | $(ratio "$fa" "$sa") | |

Every run (seconds = wall, cpu, checked, anon_kb = peak RssAnon, hwm_kb = VmHWM):
\`\`\`
$(sed 's/^/file:     /' "$OUT/open-file.txt")
$(sed 's/^/snapshot: /' "$OUT/open-snapshot.txt")
\`\`\`

The whole command \`$PV info\` (the open, then per-thread spans and totals over every sample,
then the report), hyperfine median of $ROUNDS alternated runs: $(sec "$iw" 3) from the file,
$(sec "$isw" 3) from the snapshot.

Commands:
\`\`\`sh
$GEN firefox $FF_MB $file
$PV snapshot $file -o $snap
$OPEN $file; $OPEN $snap      # alternated, $ROUNDS times each
hyperfine -N --runs 1 "$PV info $file" "$PV info $snap"      # $ROUNDS times
\`\`\`
EOF
fi
# the TUI (issue 17): moving the center in `profview tui` (the key c and the next screen, by the
# state machine without a terminal) against pv_view_compute of the same query, in one process,
# on the 10 M-sample profile of "Move the center". Target: at most 2x. BENCH_ONLY=tui
if [ -z "$ONLY" ] || [ "$ONLY" = tui ]; then
	ninja -C "$BUILD" bench/tui >/dev/null
	tui_out=$("$BUILD/bench/tui" 10000000 1000000 "$ROUNDS" 2>"$OUT/tui-screen.txt")
	drop_section "Move the center in the TUI"
	cat >>"$RESULTS" <<EOF

## Move the center in the TUI

Run of $(date -u '+%Y-%m-%d %H:%M UTC') at profview $commit, build \`$BUILD\` (${buildtype:-?}),
$(nproc) CPUs ($cpu), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end.
This section: \`BENCH_ONLY=tui sh bench/run.sh\`.

\`$BUILD/bench/tui 10000000 1000000 $ROUNDS\` (bench/tui.c) builds the profile of "Move the center"
(10 M samples over 1 M distinct stacks, 50 k functions) and opens the TUI's state machine on it
(tui/tui.h, no terminal, 120x40, the top-down tab). Each round, untimed: Backspace, \`/\` and the
name of a function of middling weight (a different one each round), Enter (the search selects
its row); then timed, alternately: the key \`c\` and the next screen (\`tui_key\` + \`tui_render\`:
the new query, its view, the rows shown, every line's cells), \`pv_view_compute\` of the very
query the TUI shows (\`tui_query\`), and the key \`c\` again with the tab as a flame graph (\`f\`:
\`pv_flame_build\` at the width and the icicle's cells too). Medians of the wall time and of the
process's CPU time (the machine is shared: the CPU time moves less with the other jobs).
Target (issue 17): the TUI's redraw at most 2x the library's view time.

\`\`\`
$tui_out
\`\`\`
EOF
fi

# the SVG flame graph (issue 24): `export --to svg` of a generated graph of BENCH_SVG_BOXES boxes
# opened in headless Chromium (its script run, a frame drawn) against flamegraph.pl's SVG of the
# same stacks (--minwidth 0: every box drawn). Target: at most 3x. BENCH_ONLY=svg
if [ -z "$ONLY" ] || [ "$ONLY" = svg ]; then
	SV_BOXES=${BENCH_SVG_BOXES:-50000}
	SV_ROUNDS=${BENCH_SVG_ROUNDS:-5}
	command -v node >/dev/null 2>&1 || { echo "bench: node is missing (Debian package nodejs)" >&2; exit 1; }
	command -v perl >/dev/null 2>&1 || { echo "bench: perl is missing (Debian package perl)" >&2; exit 1; }
	[ -x /usr/bin/chromium ] || { echo "bench: /usr/bin/chromium is missing (Debian package chromium; sh tests/browser/run.sh installs it)" >&2; exit 1; }
	if [ ! -f tests/browser/node_modules/playwright-core/package.json ]; then
		(cd tests/browser && npm ci --no-audit --no-fund --loglevel=error) >&2
	fi
	# flamegraph.pl: Debian does not package FlameGraph; fetched into bench/out, never committed
	FG=${FLAMEGRAPH_PL:-$OUT/FlameGraph/flamegraph.pl}
	if [ ! -f "$FG" ] && [ -z "${FLAMEGRAPH_PL:-}" ]; then
		git clone --quiet --depth 1 https://github.com/brendangregg/FlameGraph "$OUT/FlameGraph" >&2 ||
			true
	fi
	[ -f "$FG" ] || {
		echo "bench: no flamegraph.pl at $FG: put Brendan Gregg's FlameGraph (brendangregg/FlameGraph) in $OUT/FlameGraph or set FLAMEGRAPH_PL" >&2
		exit 1
	}
	fg_rev="sha256 $(sha256sum "$FG" | cut -c1-12)"
	[ -d "$(dirname "$FG")/.git" ] && fg_rev=$(git -C "$(dirname "$FG")" log -1 --format='%h (%cs)')
	sv_in=$OUT/flame-$SV_BOXES.txt
	"$GEN" flame-boxes "$SV_BOXES" "$sv_in" 2>"$OUT/gen-flame-$SV_BOXES.log"
	"$PV" export "$sv_in" --to svg -o "$OUT/flame-$SV_BOXES.svg" 2>/dev/null
	perl "$FG" --minwidth 0 "$sv_in" >"$OUT/flame-$SV_BOXES-flamegraph.svg" 2>/dev/null
	sv_pv_boxes=$(grep -c '<g class="f"' "$OUT/flame-$SV_BOXES.svg")
	sv_fg_boxes=$(($(grep -c '<title>' "$OUT/flame-$SV_BOXES-flamegraph.svg") - 1))
	echo "bench: svg: $SV_ROUNDS rounds in headless Chromium" >&2
	sv_load0=$(cut -d' ' -f1-3 /proc/loadavg)
	sv_out=$(node bench/svg.mjs --rounds "$SV_ROUNDS" "profview=$OUT/flame-$SV_BOXES.svg" \
		"flamegraph.pl=$OUT/flame-$SV_BOXES-flamegraph.svg")
	sv_load1=$(cut -d' ' -f1-3 /proc/loadavg)
	sv_ratio=$(echo "$sv_out" | awk '/^profview: median/ { p = $3 } /^flamegraph.pl: median/ { f = $3 }
		END { if (f > 0) printf "%.2f", p / f; else print "nan" }')
	drop_section "SVG flame graph"
	cat >>"$RESULTS" <<EOF

## SVG flame graph: $SV_BOXES boxes in headless Chromium against flamegraph.pl's

Run of $(date -u '+%Y-%m-%d %H:%M UTC') at profview $commit, build \`$BUILD\` (${buildtype:-?}),
$(nproc) CPUs ($cpu), Node $(node --version), $(/usr/bin/chromium --version 2>/dev/null | head -n 1),
flamegraph.pl of FlameGraph $fg_rev. Load average $sv_load0 at the start, $sv_load1 at the end
(a shared machine: the two files alternate, so both see about the same load).
This section: \`BENCH_ONLY=svg sh bench/run.sh\`, i.e.

\`\`\`sh
$GEN flame-boxes $SV_BOXES $sv_in
$PV export $sv_in --to svg -o $OUT/flame-$SV_BOXES.svg              # $sv_pv_boxes boxes
perl $FG --minwidth 0 $sv_in > $OUT/flame-$SV_BOXES-flamegraph.svg  # $sv_fg_boxes boxes and "all"
node bench/svg.mjs --rounds $SV_ROUNDS profview=$OUT/flame-$SV_BOXES.svg flamegraph.pl=$OUT/flame-$SV_BOXES-flamegraph.svg
\`\`\`

Each round opens each SVG in a new page of Debian's Chromium (headless, the browser tests'
flags) and takes the page's performance.now() once a frame after the load event is drawn:
parsing, the script (profview's at the end of the document, flamegraph.pl's on load), style,
layout, paint. On profview's page, then, a zoom into the widest box of the second row and the
reset, each to its next drawn frame. Target (issue 24): profview's SVG at most 3x
flamegraph.pl's. **profview / flamegraph.pl: $sv_ratio** (medians).

Before (profview 81c6546, the same input and command, one round): profview's SVG had not
finished after 300 s (the timeout) where flamegraph.pl's took 8.7 s; 10,000 boxes took 6.7 s and
20,000 boxes 52 s (quadratic). The cause: every box's \`<title>\` in a \`<g>\` right under the root
\`<svg>\` (with the script removed, the 10,000-box file still took 6.2 s; its boxes in one group,
0.96 s); and the script fitted every box's label at load. Now the boxes are in one group, the
export writes the labels, and the script does nothing per box until a click.

\`\`\`
$sv_out
\`\`\`

# deep stacks through every endpoint of the web API (issue 25): one request of each, in process
# (bench/api: import, then the answer; median of 3 calls), on the 100,000-deep collapsed stack
# and the flat file of the same size; the answer's bytes, its time and the peak RSS. Target:
# every answer bounded by its row budget and linear in the file, at most 10x the largest the
# flat file gives on that endpoint. BENCH_ONLY=deep-api
if [ -z "$ONLY" ] || [ "$ONLY" = deep-api ]; then
	DEPTH=${BENCH_DEEP:-100000}
	ninja -C "$BUILD" bench/api bench/gen >/dev/null
	for shape in deep flat; do
		f=$OUT/$shape-collapsed-$DEPTH.txt
		[ -s "$f" ] && [ "$f" -nt "$GEN" ] || "$GEN" "$shape-collapsed" "$DEPTH" "$f" 2>/dev/null
	done
	bytes=$(wc -c <"$OUT/deep-collapsed-$DEPTH.txt" | tr -d ' ')
	mid=$((DEPTH / 2))
	reqs="profile|p=0 view|view=tree&heaviest=1024 view|view=callers&heaviest=1024
view|view=tree&hot=f0&hot-percent=0 view|view=flat view|view=top
view|view=butterfly&center=f$mid&heaviest=4 children|view=tree&key= children|view=tree&key=f0
subtree|view=tree&key=&prune=0 subtree|view=callers&key=&prune=0
subtree|view=butterfly&center=f$mid&key=up:&prune=0 search|text=f&limit=10000 search|text=f9
flame|view=tree flame|view=tree&center=f$mid thread-costs|view=tree&key=f0
contexts|center=f$mid markers|p=0 marker-summary|p=0 marker-chart|p=0 activity|p=0 trace|p=0
trace-stack|context=0&at=0 trace-boxes|context=0"
	for shape in deep flat; do
		: >"$OUT/deep-api-$shape.txt"
		for r in $reqs; do
			ep=${r%%|*} q=${r#*|}
			run="$BUILD/bench/api $OUT/$shape-collapsed-$DEPTH.txt $ep $q 3"
			# shellcheck disable=SC2086
			line=$($run 2>/dev/null | tail -n 1)
			# shellcheck disable=SC2086
			rss=$(peak_rss "$OUT/time-deep-api.txt" $run || echo 0)
			st=$(echo "$line" | sed -n 's/.*status \([0-9]*\),.*/\1/p')
			b=$(echo "$line" | sed -n 's/.*, \([0-9]*\) bytes,.*/\1/p')
			t=$(echo "$line" | sed -n 's/.*median \([0-9.]*\) s.*/\1/p')
			echo "$ep $q ${st:-?} ${b:-0} ${t:-0} ${rss:-0}" >>"$OUT/deep-api-$shape.txt"
		done
	done
	api_rows=$(awk 'NR == FNR { fb[FNR] = $4; ft[FNR] = $5; fr[FNR] = $6; fs[FNR] = $3
			if ($4 > most[$1]) most[$1] = $4; next }
		{ m = most[$1] > 65536 ? most[$1] : 65536
		  printf "| `%s?%s` | %s | %.2f MB | %.3f s | %.0f MB | %s | %.2f MB | %.3f s | %.0f MB | %.1f× | %s |\n",
			$1, $2, $3, $4 / 1e6, $5, $6 * 1024 / 1e6, fs[FNR], fb[FNR] / 1e6,
			ft[FNR], fr[FNR] * 1024 / 1e6, $4 / m, $4 <= 10 * m ? "yes" : "**no**" }' \
		"$OUT/deep-api-flat.txt" "$OUT/deep-api-deep.txt")
	drop_section "Deep stacks through every endpoint"
	cat >>"$RESULTS" <<EOF

## Deep stacks through every endpoint

Run of $(date -u '+%Y-%m-%d %H:%M UTC') at profview $commit, build \`$BUILD\` (${buildtype:-?}),
$(nproc) CPUs ($cpu), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end.
This section: \`BENCH_ONLY=deep-api sh bench/run.sh\`.

Target (issue 25): every endpoint's answer on one stack $DEPTH frames deep (\`deep-collapsed\`,
$(awk -v b="$bytes" 'BEGIN { printf "%.2f MB", b / 1e6 }')) bounded by its row budget and linear
in the file: at most 10× the largest answer that endpoint gives on the flat file of the same size
(\`flat-collapsed\`: one-frame lines). One request each, in process: \`$BUILD/bench/api FILE
ENDPOINT QUERY 3\` (import, then the median of 3 calls, each of a new API, so never from the view
cache); peak RSS of that process (3 imports and calls) from \`/usr/bin/time -v\`. Keys and paths
of an answer stop at 256 bytes a row (4 MiB at least: \`pv_key_text_budget\`, doc/api.md); before
(issue 25), \`subtree\` of a 10,000-deep stack was a 581 MB answer and of this one no answer
(the server at 7.5 GB), \`search\` took any limit (1.2 GB from a 2.2 MB file).

| request | deep: status | deep: answer | deep: time | deep: peak RSS | flat: status | flat: answer | flat: time | flat: peak RSS | deep / largest flat of the endpoint | within 10× |
|---|---|---|---|---|---|---|---|---|---|---|
$api_rows
EOF
fi

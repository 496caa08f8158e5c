#!/bin/sh
# Runs fuzz targets under libFuzzer, each for SECONDS, with its dictionary (fuzz/dict/), its seeds
# (fuzz/corpus/<target>/) and a working corpus kept between runs (BUILD/fuzz-work/corpus/<target>/),
# then prints one line per target: executions, edges covered (cov), features (ft), corpus size,
# and what it found. `make fuzz` calls it; BUILD is a meson build with -Dfuzz=true (clang).
#
#   sh fuzz/run.sh BUILD SECONDS [TARGET...]     (no TARGET: every folder of fuzz/corpus/)
#
# A find (crash, leak, timeout, out of memory) is written to BUILD/fuzz-work/crashes/<target>/;
# replay it with `BUILD/fuzz/fuzz_<target> FILE`. Exit status 1 when any target found something.
set -u
build=${1:?usage: fuzz/run.sh BUILD SECONDS [TARGET...]}
secs=${2:?usage: fuzz/run.sh BUILD SECONDS [TARGET...]}
shift 2
targets="$*"
[ -n "$targets" ] || targets=$(cd fuzz/corpus && for d in */; do printf '%s ' "${d%/}"; done)
work=$build/fuzz-work
mkdir -p "$work"
# every target has its seeds and its dictionary: a missing one stops the run before it starts
for t in $targets; do
	[ -d "fuzz/corpus/$t" ] || { echo "fuzz/run.sh: no seed folder fuzz/corpus/$t"; exit 2; }
	[ "$t" = probe ] || [ -f "fuzz/dict/$t.dict" ] ||
		{ echo "fuzz/run.sh: no dictionary fuzz/dict/$t.dict"; exit 2; }
done
# the probe reads every format: its dictionary is all of them
cat fuzz/dict/*.dict >"$work/probe.dict"
bins=""
for t in $targets; do bins="$bins fuzz/fuzz_$t"; done
out=$(ninja -C "$build" $bins 2>&1) || { echo "$out" | tail -n 30; exit 2; }
found=0
printf '%-18s %12s %8s %6s %7s %12s  %s\n' target execs exec/s cov ft corpus result
for t in $targets; do
	dict=fuzz/dict/$t.dict
	[ "$t" = probe ] && dict=$work/probe.dict
	mkdir -p "$work/corpus/$t" "$work/crashes/$t"
	log=$work/$t.log
	"$build/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -dict="$dict" -artifact_prefix="$work/crashes/$t/" \
		"$work/corpus/$t" "fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p')
	result=ok
	if [ $rc -ne 0 ]; then
		found=1
		what=$(grep -m 1 -E '^==[0-9]+==ERROR|^SUMMARY|ALARM|out-of-memory|deadly signal|fuzz:' "$log")
		art=$(ls -t "$work/crashes/$t" 2>/dev/null | head -n 1)
		result="FOUND: ${what:-exit $rc} ($work/crashes/$t/$art; log $log)"
	fi
	printf '%-18s %12s %8s %6s %7s %12s  %s\n' "$t" "${execs:-?}" "${speed:-?}" "${cov:-?}" \
		"${ft:-?}" "${corp:-?}" "$result"
done
exit $found

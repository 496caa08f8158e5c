#!/bin/sh
# Importers checked against speedscope's own (npm `speedscope`, installed into
# tests/browser/node_modules by `npm ci` there when missing) on the corpus files of their formats:
# per thread the sample count, the total weight and every function's self and total equal
# (compare.mjs says how each format's files are compared).
#
#   sh tests/speedscope-oracle/run.sh build/profview   last line: "speedscope-oracle: N passed, N failed"
set -u
pv=${1:?usage: run.sh PROFVIEW}
here=$(dirname "$0")
c=tests/data/corpus/speedscope
mods=tests/browser/node_modules
if [ ! -f "$mods/speedscope/package.json" ] && command -v npm >/dev/null 2>&1; then
	(cd tests/browser && npm ci --no-audit --no-fund --loglevel=error >/dev/null 2>&1)
fi
if ! command -v node >/dev/null 2>&1 || [ ! -f "$mods/speedscope/package.json" ]; then
	echo "not ok speedscope's importer: no node or no $mods/speedscope (npm ci in tests/browser failed)"
	echo "speedscope-oracle: 0 passed, 1 failed"
	exit 1
fi
out=$(node "$here/compare.mjs" "$pv" "$mods" \
	$c/Instruments/7.3.1/simple-time-profile-deep-copy.txt:deep-copy \
	$c/Instruments/7.3.1/random-allocations-deep-copy.txt:deep-copy \
	$c/Instruments/13.4/cycles-example-deep-copy.txt:deep-copy \
	$c/Instruments/16.0/simple-time-profile-deep-copy.txt:deep-copy \
	$c/java-flight-recorder/heavy.jfr:jfr \
	$c/Instruments/8.3.3/simple-time-profile.trace.zip:trace \
	$c/Instruments/10.0/simple-time-profile.trace.zip:trace \
	$c/Instruments/7.3.1/simple-time-profile.trace.zip:trace \
	$c/Instruments/8.3.3/simple-allocations.trace.zip:trace 2>&1)
echo "$out"
pass=$(echo "$out" | grep -c '^ok ')
fail=$(echo "$out" | grep -c '^not ok')
[ "$pass" -gt 0 ] || fail=$((fail + 1))
echo "speedscope-oracle: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/bin/sh
# Runs every test (unit and golden) in each build folder given, then prints one total line:
# "N passed, N failed".
set -u
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# a test binary that hangs fails (exit 124) instead of holding CI until its own limit
limit=1500
pass=0
fail=0
add() { # add "LINE" -> updates pass/fail from "...: N passed, N failed"
	p=$(echo "$1" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed.*/\1/p')
	f=$(echo "$1" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed.*/\2/p')
	if [ -z "$p" ]; then fail=$((fail + 1)); return; fi
	pass=$((pass + p))
	fail=$((fail + f))
}
# no file of the repository holds a merge's conflict markers (a document is not compiled, so
# nothing else would see them)
if git rev-parse --git-dir >/dev/null 2>&1; then
	echo "== conflict markers"
	marked=$(git grep -l -E '^(<<<<<<<|>>>>>>>)( |$)|^=======$' -- . 2>/dev/null)
	if [ -n "$marked" ]; then
		echo "conflict markers in: $marked"
		add "conflict markers: 0 passed, 1 failed"
	else
		add "conflict markers: 1 passed, 0 failed"
	fi
fi
for b in "$@"; do
	echo "== $b"
	out=$(timeout "$limit" "$b/tests/unit" 2>&1)
	rc=$?
	echo "$out" | grep -v '^ok ' | tail -n 60
	last=$(echo "$out" | grep 'passed, .* failed' | tail -n 1)
	[ $rc -ne 0 ] && [ -z "$last" ] && echo "unit tests crashed (exit $rc)"
	add "$last"
	# the web API and server (web/): in process and over a loopback socket
	if [ -x "$b/tests/unit-web" ]; then
		out=$(timeout "$limit" "$b/tests/unit-web" 2>&1)
		rc=$?
		echo "$out" | grep -v '^ok ' | tail -n 60
		last=$(echo "$out" | grep 'passed, .* failed' | tail -n 1)
		[ $rc -ne 0 ] && [ -z "$last" ] && echo "web unit tests crashed (exit $rc)"
		add "$last"
	fi
	out=$(sh tests/golden/run.sh "$b/profview" 2>&1)
	echo "$out" | tail -n 60
	add "$(echo "$out" | tail -n 1)"
	# the fuzz targets replay their seed corpora (fuzz/corpus/<format>/)
	out=$(sh fuzz/replay.sh "$b" 2>&1)
	echo "$out" | tail -n 40
	add "$(echo "$out" | tail -n 1)"
done
# every profile of tests/data from its snapshot and through --cache, against the first build's
# binary (tests/snapshot/run.sh; its last line is "snapshot: N passed, N failed")
if [ "$#" -gt 0 ]; then
	echo "== snapshot"
	out=$(sh tests/snapshot/run.sh "$1/profview" 2>&1)
	echo "$out" | tail -n 30
	add "$(echo "$out" | tail -n 1)"
fi
# exports checked by other tools: firefox exports of the corpus against the processed format's
# documented shape, pprof's own `pprof -top` of pprof exports (tests/export/run.sh; its last
# line is "export: N passed, N failed")
if [ "$#" -gt 0 ]; then
	echo "== export"
	out=$(sh tests/export/run.sh "$1/profview" 2>&1)
	echo "$out" | tail -n 30
	add "$(echo "$out" | tail -n 1)"
fi
# profview merge: per-thread splits of multi-thread profiles merged back, and under mpirun with
# 1, 2 and 4 ranks byte for byte the single-process merge (tests/merge/run.sh; its last line is
# "merge: N passed, N failed")
if [ "$#" -gt 0 ]; then
	echo "== merge"
	out=$(sh tests/merge/run.sh "$1/profview" 2>&1)
	echo "$out" | tail -n 30
	add "$(echo "$out" | tail -n 1)"
fi
# importers against speedscope's own on the same files: per thread samples, total weight, every
# function's self and total (tests/speedscope-oracle/run.sh; its last line is
# "speedscope-oracle: N passed, N failed")
if [ "$#" -gt 0 ]; then
	echo "== speedscope-oracle"
	out=$(sh tests/speedscope-oracle/run.sh "$1/profview" 2>&1)
	echo "$out" | tail -n 30
	add "$(echo "$out" | tail -n 1)"
fi
# the TUI in a real terminal under tmux (one line and no failure when tmux is absent)
if [ -f tests/tui/e2e.sh ] && [ "$#" -gt 0 ]; then
	echo "== tui"
	out=$(sh tests/tui/e2e.sh "$1/profview" 2>&1)
	echo "$out" | tail -n 30
	add "$(echo "$out" | tail -n 1)"
fi
# the page in a real Chromium (tests/browser/run.sh installs chromium and playwright-core when
# missing), against the first build's binary; its last line is "browser: N passed, N failed"
if [ -f tests/browser/run.sh ] && [ "$#" -gt 0 ]; then
	echo "== browser"
	out=$(sh tests/browser/run.sh "$1/profview" 2>&1)
	echo "$out" | tail -n 60
	add "$(echo "$out" | tail -n 1)"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

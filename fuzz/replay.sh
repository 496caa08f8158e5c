#!/bin/sh
# Replays every fuzz target's seeds (fuzz/corpus/<name>/) with the build's replay binaries
# (BUILD/fuzz/fuzz_<name>, built without -Dfuzz=true: replay.c is their main()).
# usage: fuzz/replay.sh BUILD   (from the repository root; meson test --suite fuzz, make test)
# The last line is "fuzz: N passed, N failed" (N: inputs replayed; a target that fails or
# crashes counts one failure more).
set -u
b=$1
pass=0
fail=0
for dir in fuzz/corpus/*/; do
	name=$(basename "$dir")
	[ -x "$b/fuzz/fuzz_$name" ] || continue
	[ -n "$(ls "$dir")" ] || continue
	out=$("$b/fuzz/fuzz_$name" "$dir" 2>&1)
	line=$(echo "$out" | tail -n 1)
	echo "$line"
	p=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed, 0 failed$/\1/p')
	if [ -n "$p" ]; then
		pass=$((pass + p))
	else
		echo "$out" | tail -n 20
		fail=$((fail + 1))
	fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

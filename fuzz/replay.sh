#!/bin/sh
# Replays every fuzz target's seeds (fuzz/corpus/<name>/) with the build's replay binaries
# (BUILD/fuzz/fuzz_<name>, built without -Dfuzz=true: replay.c is their main()), and checks that
# every target built has seeds and a dictionary (make fuzz runs it with them) and every seed
# folder a target.
# usage: fuzz/replay.sh BUILD   (from the repository root; meson test --suite fuzz, make test)
# The last line is "fuzz: N passed, N failed" (N: inputs replayed; a target that fails or
# crashes, or lacks seeds or a dictionary, counts one failure more).
set -u
b=$1
pass=0
fail=0
for bin in "$b"/fuzz/fuzz_*; do
	[ -f "$bin" ] && [ -x "$bin" ] || continue # not the objects' folders (fuzz_api.p)
	name=${bin##*/fuzz_}
	if [ ! -d "fuzz/corpus/$name" ] ||
		{ [ "$name" != probe ] && [ ! -f "fuzz/dict/$name.dict" ]; }; then
		echo "fuzz target $name: no seed folder fuzz/corpus/$name or no fuzz/dict/$name.dict"
		fail=$((fail + 1))
	fi
done
for dir in fuzz/corpus/*/; do
	name=$(basename "$dir")
	if [ ! -x "$b/fuzz/fuzz_$name" ] || [ -z "$(ls "$dir")" ]; then
		echo "fuzz/corpus/$name: no target $b/fuzz/fuzz_$name, or no seed"
		fail=$((fail + 1))
		continue
	fi
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

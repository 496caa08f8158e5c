#!/bin/sh
# Every profile under tests/data, read as it is and from its snapshot (doc/snapshot.md), must
# give the same output in every command: info, tree, flat, callers, markers, trace, each with --json
# (the paths given, which info and messages name, are written FILE). The same through --cache:
# its first run imports the file and writes the entry, the next ones open the entry.
#
#   sh tests/snapshot/run.sh build/profview     last line: "snapshot: N passed, N failed"
set -u
pv=${1:?usage: run.sh PROFVIEW}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
skip=0
n=0
files=0

# the profiles: every file, and the folders that are HPCToolkit databases
list() {
	find tests/data -type f ! -name '*.md' ! -name '*.py' ! -name '*.tsv' | sort
	find tests/data \( -name meta.db -o -name experiment.xml \) -exec dirname {} \; | sort -u
}

run() { # run OUT ARGS...: stdout and stderr of profview ARGS, the exit code appended, the
	# paths given written FILE (messages name them)
	out=$1
	shift
	"$pv" "$@" >"$out.raw" 2>&1
	echo "exit $?" >>"$out.raw"
	awk -v f="$f" -v s="$snap" '{
		while ((i = index($0, f)) > 0) $0 = substr($0, 1, i - 1) "FILE" substr($0, i + length(f))
		while ((i = index($0, s)) > 0) $0 = substr($0, 1, i - 1) "FILE" substr($0, i + length(s))
		print }' "$out.raw" >"$out"
}

same() { # same NAME A B
	if cmp -s "$2" "$3"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $1"
		diff "$2" "$3" | head -n 6
	fi
}

list >"$tmp/list"
while IFS= read -r f; do
	n=$((n + 1))
	snap="$tmp/$n.pvs"
	if ! "$pv" snapshot "$f" -o "$snap" >/dev/null 2>&1; then
		skip=$((skip + 1)) # not a profile (a source file, a damaged sample): nothing to compare
		continue
	fi
	for cmd in info tree flat callers markers trace; do
		run "$tmp/a" "$cmd" --json "$f"
		run "$tmp/b" "$cmd" --json "$snap"
		same "$cmd $f (snapshot)" "$tmp/a" "$tmp/b"
		# the first run with --cache imports and writes the entry, the others open it
		run "$tmp/c" "$cmd" --json --cache "$tmp/cache" "$f"
		same "$cmd $f (--cache)" "$tmp/a" "$tmp/c"
	done
	[ -f "$f" ] && files=$((files + 1))
done <"$tmp/list"
# the cache holds one entry per file (folders are not cached: their files are many)
entries=$(ls "$tmp/cache" | grep -c '\.pvs$')
if [ "$entries" -eq "$files" ]; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
	echo "FAIL cache: $entries entries for $files profile files"
fi
echo "($((n - skip)) profiles compared, $skip files that are not profiles skipped)"
echo "snapshot: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/bin/sh
# Records what a profview binary prints for every golden case and for every file under tests/data
# (info, tree, flat and markers, each with --json), so that a refactoring can show that it changed
# no output: record once with the binary before the change, then compare with the one after.
#   tests/compare-imports.sh PROFVIEW OUTDIR            record into OUTDIR (created, emptied)
#   tests/compare-imports.sh PROFVIEW OUTDIR REFDIR     record, then compare with REFDIR
# Each output file holds the standard output, then the standard error and the exit code.
# Run from the repository root. The last line is "compare: N outputs, N identical, N differ"
# (with REFDIR) or "recorded: N outputs".
set -u
pv=$1
out=$2
ref=${3:-}
export LC_ALL=C TZ=UTC COLUMNS=100
rm -rf "$out"
mkdir -p "$out"
n=0
run() { # run NAME ARGS... -> OUTDIR/NAME
	f="$out/$1"
	shift
	mkdir -p "$(dirname "$f")"
	"$pv" "$@" >"$f" 2>"$f.err"
	rc=$?
	{
		echo "--- stderr"
		cat "$f.err"
		echo "--- exit $rc"
	} >>"$f"
	rm -f "$f.err"
	n=$((n + 1))
}
for dir in $(find tests/golden -mindepth 2 -maxdepth 2 -type d | sort); do
	[ -f "$dir/cmd" ] || continue
	f="$out/$dir.out"
	mkdir -p "$(dirname "$f")"
	eval "\"\$pv\" $(cat "$dir/cmd")" >"$f" 2>"$f.err"
	rc=$?
	{
		echo "--- stderr"
		cat "$f.err"
		echo "--- exit $rc"
	} >>"$f"
	rm -f "$f.err"
	n=$((n + 1))
done
find tests/data -type f | sort | while IFS= read -r file; do
	for cmd in info tree flat markers; do
		run "$file.$cmd.json" "$cmd" --json "$file"
	done
done
# the loop above runs in a subshell: count its outputs from the folder
n=$(find "$out" -type f | wc -l)
if [ -z "$ref" ]; then
	echo "recorded: $n outputs"
	exit 0
fi
differ=$(diff -rq "$ref" "$out" | wc -l)
diff -ru "$ref" "$out" | head -200
echo "compare: $n outputs, $((n - differ)) identical, $differ differ"
[ "$differ" -eq 0 ]

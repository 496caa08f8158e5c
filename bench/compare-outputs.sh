#!/bin/sh
# Compares what two profview binaries print for the same files: top, tree, info and an export
# to the collapsed format, byte for byte. Used before and after an importer speed change.
# Usage: sh bench/compare-outputs.sh BEFORE AFTER FILE...   (exit 1 when any output differs)
before=$1
after=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
n=0
for f in "$@"; do
	for cmd in "top -n 50" "tree --depth 6" "info" "export --to collapsed -o -"; do
		# shellcheck disable=SC2086
		"$before" $cmd "$f" >"$tmp/a" 2>&1
		ra=$?
		# shellcheck disable=SC2086
		"$after" $cmd "$f" >"$tmp/b" 2>&1
		rb=$?
		n=$((n + 1))
		if [ $ra != $rb ] || ! cmp -s "$tmp/a" "$tmp/b"; then
			echo "DIFFER: $cmd $f (exit $ra / $rb)"
			status=1
		fi
	done
done
echo "$n outputs compared, $([ $status = 0 ] && echo all identical || echo some differ)"
exit $status

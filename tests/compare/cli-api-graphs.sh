#!/bin/sh
# cli-api-graphs.sh - `profview flame` and `profview activity` print what /api/flame and
# /api/activity answer: for every profile of tests/data that opens, four requests each way
# (defaults and with options), compared byte for byte. Needs build/profview and build/api-dump
# (tests/compare-outputs.sh builds it). Last line: "graphs: N same, N differ".
#
# usage: sh tests/compare/cli-api-graphs.sh      (from the repository root)
set -u
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
printf 'flame\nflame width=800&max-nodes=100\nactivity\nactivity buckets=50&start=1&end=20\n' \
	>"$tmp/req"
same=0
differ=0
for f in $(find tests/data -type f ! -name README.md | sort); do
	build/profview info "$f" >/dev/null 2>&1 || continue
	build/api-dump "$f" "$tmp/req" >"$tmp/api" 2>&1
	i=0
	for args in "flame" "flame --width 800 --max-nodes 100" "activity" \
		"activity --buckets 50 --start 1 --end 20"; do
		i=$((i + 1))
		build/profview $args "$f" >"$tmp/cli" 2>&1
		# the i-th answer's body: the lines after its "== " line and its status
		awk -v n=$i '/^== /{k++; s=1; next} k==n{if (s) {s=0; next} print}' "$tmp/api" |
			sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$tmp/one"
		if cmp -s "$tmp/cli" "$tmp/one"; then
			same=$((same + 1))
		else
			differ=$((differ + 1))
			echo "DIFFERS: $f: $args"
			diff "$tmp/cli" "$tmp/one" | head -6
		fi
	done
done
echo "graphs: $same same, $differ differ"
[ $differ -eq 0 ]

#!/bin/sh
# compare-outputs.sh - this tree's outputs against an earlier commit's, byte for byte: every
# golden case, every command's output (text and --json: info, tree, callers, flat, top,
# butterfly, markers, marker, contexts, trace) on every file of tests/data (tests/data/corpus
# included), and the answers of the web API to the requests of tests/compare/api-requests.txt on each of them
# (tests/compare/api-dump.c, in process). A step that should change no output (issue 12: the
# seam between libpv and its front ends) runs it once before it is merged.
#
# usage: sh tests/compare-outputs.sh [BASE]      (from the repository root; BASE: 4fdf94f)
#
# The earlier commit is extracted (git archive) and built once under $PV_COMPARE_DIR (default
# /tmp/pv-compare); its outputs are kept there too, so a second run records only this tree's.
# Differences listed in tests/compare/allowed (one output file name per line, with the reason
# after a '#') are reported but do not fail. The last line: "compare: N outputs identical, N
# allowed differences, N differ".
set -u
base=${1:-4fdf94f}
root=$(pwd)
work=${PV_COMPARE_DIR:-/tmp/pv-compare}
export LC_ALL=C TZ=UTC COLUMNS=100
commit=$(git rev-parse --short "$base") || exit 2
bdir=$work/base-$commit
libs="$(pkg-config --libs zlib libxxhash libprotobuf-c libmicrohttpd libelf libdw libzstd) -liberty -ldl -lpthread -lm"

# api-dump against a build folder ($1) and its source tree ($2)
dump_build() {
	cc -O1 -D_GNU_SOURCE -I"$2/include" tests/compare/api-dump.c "$1/libpvweb.a" \
		"$1/src/libpv.a" $libs -o "$1/api-dump"
}

if [ ! -x "$bdir/build/api-dump" ]; then
	echo "compare: building $commit in $bdir"
	rm -rf "$bdir" && mkdir -p "$bdir/src" || exit 2
	git archive "$commit" | tar -x -C "$bdir/src" || exit 2
	(meson setup "$bdir/build" "$bdir/src" >/dev/null &&
		ninja -C "$bdir/build" profview >/dev/null) || exit 2
	dump_build "$bdir/build" "$bdir/src" || exit 2
fi
[ -f build/build.ninja ] || meson setup build -Dwerror=true >/dev/null || exit 2
ninja -C build profview >/dev/null || exit 2
dump_build build "$root" || exit 2

# record PROFVIEW API_DUMP OUTDIR
record() {
	pv=$1
	dump=$2
	out=$3
	rm -rf "$out" && mkdir -p "$out" || exit 2
	for dir in $(find tests/golden -mindepth 2 -maxdepth 2 -type d | sort); do
		[ -f "$dir/cmd" ] || continue
		name=golden_$(echo "${dir#tests/golden/}" | tr / _)
		args=$(cat "$dir/cmd")
		eval "\"\$pv\" $args" >"$out/$name.out" 2>"$out/$name.err"
		echo $? >"$out/$name.rc"
	done
	for f in $(find tests/data -type f ! -name README.md | sort); do
		name=$(echo "$f" | tr / _)
		o=$out/$name
		"$pv" info "$f" >"$o.info" 2>&1
		echo "rc $?" >>"$o.info"
		tail -n 1 "$o.info" | grep -q '^rc 0$' || continue
		scope=$("$dump" --scope "$f")
		for cmd in "info --json" "tree" "tree --json" "callers --json" "flat --json" \
			"flat --json --by line" "top" "top --json" "top --json --by line" "markers" \
			"markers --json" "markers --summary --json" "marker 0 --json" "marker 0"; do
			set -- $cmd
			c=$1
			shift
			if [ "$c" = marker ]; then
				"$pv" marker "$f" "$@" >>"$o.cli" 2>&1
			else
				"$pv" $c "$@" "$f" >>"$o.cli" 2>&1
			fi
			echo "== rc $? for $cmd" >>"$o.cli"
		done
		for cmd in "contexts" "contexts --json --sort value" "trace" "trace --json --window 0:1 --size 8x3"; do
			set -- $cmd
			c=$1
			shift
			"$pv" $c "$f" "$@" >>"$o.cli" 2>&1
			echo "== rc $? for $cmd" >>"$o.cli"
		done
		if [ -n "$scope" ]; then
			for cmd in "butterfly" "tree" "callers" "top"; do
				"$pv" $cmd --json --center "$scope" "$f" >>"$o.cli" 2>&1
				echo "== rc $? for $cmd --json --center $scope" >>"$o.cli"
			done
		fi
		"$dump" "$f" tests/compare/api-requests.txt >"$o.api" 2>&1
	done
}

if [ ! -f "$bdir/out.done" ]; then
	echo "compare: recording $commit's outputs"
	record "$bdir/build/profview" "$bdir/build/api-dump" "$bdir/out" && touch "$bdir/out.done"
fi
echo "compare: recording this tree's outputs"
record "$root/build/profview" "$root/build/api-dump" "$work/new"

same=0
allowed=0
differ=0
for f in $(cd "$bdir/out" && ls) $(cd "$work/new" && ls); do
	echo "$f"
done | sort -u >"$work/names"
while read -r f; do
	if cmp -s "$bdir/out/$f" "$work/new/$f"; then
		same=$((same + 1))
	elif [ -f tests/compare/allowed ] && grep -q "^$f " tests/compare/allowed; then
		allowed=$((allowed + 1))
		echo "allowed: $f ($(grep "^$f " tests/compare/allowed | sed 's/^[^#]*# *//'))"
	else
		differ=$((differ + 1))
		echo "DIFFERS: $f"
		diff "$bdir/out/$f" "$work/new/$f" 2>&1 | head -10
	fi
done <"$work/names"
echo "compare: $same outputs identical, $allowed allowed differences, $differ differ"
[ $differ -eq 0 ]

#!/bin/sh
# Exports checked by what other tools say of them (doc/export.md):
#   - firefox: every profile of tests/data/corpus that profview opens, exported with
#     `--to firefox`, has the processed format's documented shape (firefox-shape.mjs); the
#     validator itself passes the files the Firefox Profiler wrote at that version and rejects
#     each of a list of damaged copies of one (--self-test);
#   - pprof: pprof's own `pprof -top` of the pprof exports of a few corpus files gives each
#     function the flat and cum values `profview top` gives it (pprof-top.mjs). pprof is built
#     from Debian's golang-github-google-pprof-dev with golang-go (make test installs both),
#     offline, once, into BUILD/pprof-tool/ (GOPATH mode: the Debian package and the two it
#     depends on hold every package pprof imports). Without go or that source the check is
#     skipped with one line that says why;
#   - collapsed and speedscope: the exports of tests/data/export read by speedscope's own
#     importer (npm `speedscope`, installed into tests/browser/node_modules by `npm ci` there when
#     missing) and, when FLAMEGRAPH_PL names Brendan Gregg's flamegraph.pl (Debian does not
#     package it; bench/out/FlameGraph/flamegraph.pl is taken when it is there), by flamegraph.pl:
#     every path with its count, every function with profview's self and total
#     (folded-readers.mjs).
#
#   sh tests/export/run.sh build/profview      last line: "export: N passed, N failed"
set -u
pv=${1:?usage: run.sh PROFVIEW}
here=$(cd "$(dirname "$0")" && pwd) # absolute: one check below runs in another folder
# the build folder, absolute (meson test passes an absolute path, run-all.sh a relative one)
build=$(cd "$(dirname "$pv")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

count() { # count OUTPUT: "ok"/"not ok" lines into pass/fail, the failures shown
	p=$(echo "$1" | grep -c '^ok ')
	f=$(echo "$1" | grep -c '^not ok')
	pass=$((pass + p))
	fail=$((fail + f))
	echo "$1" | grep -v '^ok ' | head -n 40
}

if ! command -v node >/dev/null 2>&1; then
	echo "export: node is missing (Debian: nodejs)"
	echo "export: 0 passed, 1 failed"
	exit 1
fi

# the validator against the Firefox Profiler's own files of the version, and damaged copies
ref=tests/data/corpus/firefox
count "$(node "$here/firefox-shape.mjs" "$ref"/generated-processed-v70-*.json)"
out=$(node "$here/firefox-shape.mjs" --self-test "$ref/generated-processed-v70-from-gecko.json")
echo "$out" | tail -n 1
case "$out" in
*" 0 failed") pass=$((pass + 1)) ;;
*) echo "$out" | head -n 20; fail=$((fail + 1)) ;;
esac

# every corpus profile that opens, exported to firefox
n=0
find tests/data/corpus -type f ! -name '*.md' | sort >"$tmp/list"
: >"$tmp/map"
while IFS= read -r f; do
	n=$((n + 1))
	if "$pv" export "$f" --to firefox -o "$tmp/$n.json" >/dev/null 2>&1; then
		echo "$tmp/$n.json $f" >>"$tmp/map"
	fi
done <"$tmp/list"
if [ "$(wc -l <"$tmp/map")" -lt 50 ]; then
	echo "FAIL: only $(wc -l <"$tmp/map") corpus files exported to firefox"
	fail=$((fail + 1))
fi
out=$(cd "$tmp" && node "$here/firefox-shape.mjs" $(cut -d' ' -f1 "$tmp/map") 2>&1)
# a validator that did not run (no "ok" line) is a failure, not an empty pass
case "$out" in
*"ok "*) ;;
*) out="not ok firefox-shape over the corpus exports: $(echo "$out" | head -n 3)" ;;
esac
# name the corpus file of each export in the failures
out=$(echo "$out" | while IFS= read -r line; do
	case "$line" in
	"ok "* | "not ok "*)
		x=$(echo "$line" | sed 's/^\(not \)\{0,1\}ok \([^ ]*\).*/\2/')
		src=$(grep "^$x " "$tmp/map" | cut -d' ' -f2-)
		echo "$line" | sed "s|$x|$src (firefox export)|" ;;
	*) echo "$line" ;;
	esac
done)
count "$out"

# pprof -top over the pprof exports
pprof_tool() { # builds pprof once into $build/pprof-tool; prints its path, or why not
	bin="$build/pprof-tool/pprof"
	[ -x "$bin" ] && { echo "$bin"; return 0; }
	src=/usr/share/gocode/src/github.com/google/pprof
	command -v go >/dev/null 2>&1 || { echo "no go compiler (Debian: golang-go)"; return 1; }
	[ -f "$src/pprof.go" ] || { echo "no pprof source in $src (Debian: golang-github-google-pprof-dev)"; return 1; }
	mkdir -p "$build/pprof-tool"
	if ! GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="$build/pprof-tool/cache" \
		GOFLAGS= go build -o "$bin" github.com/google/pprof >"$build/pprof-tool/build.log" 2>&1; then
		echo "go build of github.com/google/pprof failed: $(tail -n 1 "$build/pprof-tool/build.log")"
		return 1
	fi
	echo "$bin"
}
if tool=$(pprof_tool); then
	c=tests/data/corpus
	count "$(node "$here/pprof-top.mjs" "$pv" "$tool" \
		$c/pprof/profile/testdata/cppbench.cpu $c/pprof/profile/testdata/go.crc32.cpu \
		$c/pprof/profile/testdata/java.cpu $c/pprof/profile/testdata/cppbench.heap \
		$c/pprof/profile/testdata/gobench.heap $c/pprof/profile/testdata/cppbench.contention \
		$c/pprof/profile/testdata/go.godoc.thread $c/firefox/test.perf.gz \
		$c/firefox/hello.cjs-20231120T211435.cpuprofile $c/firefox/argument-values.json \
		$c/speedscope/stackcollapse/recursion.txt)"
else
	echo "SKIP pprof -top: $tool"
fi

# folded stacks and speedscope files read by speedscope's (and flamegraph.pl's) own code
mods=tests/browser/node_modules
if [ ! -f "$mods/speedscope/package.json" ] && command -v npm >/dev/null 2>&1; then
	(cd tests/browser && npm ci --no-audit --no-fund --loglevel=error >/dev/null 2>&1)
fi
if [ -f "$mods/speedscope/package.json" ]; then
	fg=${FLAMEGRAPH_PL:-bench/out/FlameGraph/flamegraph.pl}
	set -- tests/data/export/names.speedscope.json tests/data/export/same-names.perf.txt \
		tests/data/export/private-methods.cpuprofile tests/data/export/task-like-roots.txt \
		tests/data/export/threads-stackless.txt tests/data/chrome/node-minified.cpuprofile
	if [ -f "$fg" ] && command -v perl >/dev/null 2>&1; then
		count "$(node "$here/folded-readers.mjs" "$pv" "$mods" --flamegraph "$fg" "$@")"
	else
		echo "SKIP flamegraph.pl: none at $fg (set FLAMEGRAPH_PL)"
		count "$(node "$here/folded-readers.mjs" "$pv" "$mods" "$@")"
	fi
else
	echo "not ok speedscope's importer: no $mods/speedscope (npm ci in tests/browser failed)"
	fail=$((fail + 1))
fi

echo "export: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

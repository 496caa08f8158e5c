#!/bin/sh
# profview merge (doc/merge.md) against the first build's binary, from the repository root:
#   - each multi-thread profile below is split into one pprof file per thread (profview export
#     --thread '#N'); merging the pieces gives the original's per-function totals: `top` prints
#     the same lines, header included;
#   - under mpirun (when installed and profview is built with MPI) the merge of every split with
#     1, 2 and 4 ranks is byte for byte the single-process merge; profview links no OpenMPI (its
#     MPI part is profview-mpi, beside it).
# usage: tests/merge/run.sh PROFVIEW; the last line is "merge: N passed, N failed".
set -u
pv=$1
export LC_ALL=C TZ=UTC COLUMNS=100
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# one of each importer that keeps several threads: perf script, Firefox (Gecko), Chrome trace,
# speedscope (Chrome), HPCToolkit (format 4), callgrind parts, collapsed with threads
profiles="tests/data/corpus/flamegraph/test/perf-iperf-stacks-pidtid-01.txt
tests/data/corpus/firefox/simple-perf.txt.gz
tests/data/firefox/gecko-2.json
tests/data/chrome/chromium-page.json.gz
tests/data/corpus/speedscope/Chrome/70/worker.json
tests/data/hpctoolkit/loops-cputime-t.d
tests/data/callgrind/gzip-parts.callgrind
tests/data/perf/tracepoints.perf.txt
tests/data/collapsed/contexts-4.txt"

mpi=""
if ! command -v mpirun >/dev/null 2>&1; then
	echo "merge: mpirun not found (OpenMPI not installed): the MPI runs skipped"
elif ! "$pv" merge --help | grep -q 'this profview is built with MPI'; then
	echo "merge: $pv is built without MPI (meson -Dmpi=disabled): the MPI runs skipped"
else
	mpi=mpirun
	# mpirun refuses root unless told (containers, CI)
	[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_rmaps_base_oversubscribe=1
fi

i=0
for f in $profiles; do
	i=$((i + 1))
	d="$tmp/split-$i"
	mkdir -p "$d"
	n=$("$pv" info "$f" | awk '/^threads:/ {print $2}')
	if [ -z "$n" ] || [ "$n" -lt 2 ]; then
		bad "$f: not a profile of several threads"
		continue
	fi
	t=0
	while [ "$t" -lt "$n" ]; do
		"$pv" export "$f" --to pprof -o "$d/thread-$(printf %03d "$t").pb.gz" --thread "#$t" \
			2>/dev/null || bad "$f: export of thread #$t failed"
		t=$((t + 1))
	done
	if ! "$pv" merge -o "$tmp/one-$i.pvs" "$d" 2>"$tmp/err"; then
		bad "$f: merge failed: $(cat "$tmp/err")"
		continue
	fi
	"$pv" top --limit 1000000 "$f" >"$tmp/want" 2>&1
	"$pv" top --limit 1000000 "$tmp/one-$i.pvs" >"$tmp/got" 2>&1
	got_n=$("$pv" info "$tmp/one-$i.pvs" | awk '/^threads:/ {print $2}')
	if cmp -s "$tmp/want" "$tmp/got" && [ "$got_n" = "$n" ]; then
		ok
	else
		bad "$f: the merge of its $n threads ($got_n contexts) has other per-function totals:"
		diff "$tmp/want" "$tmp/got" | head -10
	fi
	[ -n "$mpi" ] || continue
	for np in 1 2 4; do
		if ! timeout 300 mpirun --oversubscribe -np $np "$pv" merge -o "$tmp/np$np-$i.pvs" "$d" \
			>"$tmp/err" 2>&1; then
			bad "$f: mpirun -np $np: $(head -3 "$tmp/err")"
		elif cmp -s "$tmp/one-$i.pvs" "$tmp/np$np-$i.pvs"; then
			ok
		else
			bad "$f: mpirun -np $np wrote other bytes than the single-process merge"
		fi
	done
done
# the inputs of every split at once: 60 files over 4 ranks, one snapshot
if [ -n "$mpi" ]; then
	"$pv" merge -o "$tmp/all-1.pvs" "$tmp"/split-* 2>/dev/null
	timeout 300 mpirun --oversubscribe -np 4 "$pv" merge -o "$tmp/all-4.pvs" "$tmp"/split-* \
		>/dev/null 2>&1
	if cmp -s "$tmp/all-1.pvs" "$tmp/all-4.pvs"; then ok; else bad "all splits: -np 4 differs"; fi
	# the MPI part is profview-mpi beside it (doc/merge.md): profview itself loads no OpenMPI,
	# and without its helper it says so under a launcher
	if ldd "$pv" | grep -q 'libmpi'; then bad "$pv links OpenMPI"; else ok; fi
	cp "$pv" "$tmp/alone"
	if OMPI_COMM_WORLD_SIZE=2 "$tmp/alone" merge -o "$tmp/x.pvs" "$tmp/split-1" 2>"$tmp/err" ||
		! grep -q "cannot start $tmp/profview-mpi, the MPI part of profview merge" "$tmp/err"; then
		bad "no profview-mpi beside profview: $(cat "$tmp/err")"
	else
		ok
	fi
fi
echo "merge: $pass passed, $fail failed"
[ $fail -eq 0 ]

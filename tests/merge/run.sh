#!/bin/sh
# profview merge (doc/merge.md) against the first build's binary, from the repository root:
#   - each multi-thread profile below is split into one pprof file per thread (profview export
#     --thread '#N'); merging the pieces gives the original's per-function totals: `top` prints
#     the same lines, header included;
#   - under mpirun (when installed and profview is built with MPI) the merge of every split with
#     1, 2 and 4 ranks is byte for byte the single-process merge; profview links no OpenMPI (its
#     MPI part is profview-mpi, beside it);
#   - --skip-bad (exit 3, the skipped inputs named, a diagnostic in info's lossy list), contexts
#     named from the path (--context-regex-path, {dir}), duplicate names numbered, the output
#     checked before any input is read: alone and under mpirun -np 1, 2, 4;
#   - under mpirun every rank writes its own rows into the file (doc/merge.md): -np 3 too, and
#     more ranks than inputs (ranks with nothing to write, rank 0 among them).
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
	for np in 1 2 3 4; do
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
	# two inputs over 3 and 5 ranks: rank 0 (and others) merge nothing, write no row
	two=$(ls "$tmp"/split-1/* | head -2)
	"$pv" merge -o "$tmp/two-1.pvs" $two 2>/dev/null
	for np in 3 5; do
		timeout 300 mpirun --oversubscribe -np $np "$pv" merge -o "$tmp/two-$np.pvs" $two \
			>/dev/null 2>&1
		if cmp -s "$tmp/two-1.pvs" "$tmp/two-$np.pvs"; then
			ok
		else
			bad "two inputs: -np $np differs"
		fi
	done
	# each rank reads the share the launcher's numbers give while MPI starts, and keeps it only
	# when rank 0's list is its own and MPI numbers it the same (doc/merge.md): a rank told it
	# is rank 0, and a rank whose @LIST (relative, in its own folder) is in another order, read
	# their share again from rank 0's list, say so, and the bytes are the single-process ones
	all=$(ls "$tmp"/split-*/*)
	"$pv" merge -o "$tmp/order-1.pvs" $all 2>/dev/null
	mkdir -p "$tmp/lists/0" "$tmp/lists/1"
	echo "$all" >"$tmp/lists/0/in.txt"
	echo "$all" | sort -r >"$tmp/lists/1/in.txt"
	timeout 300 mpirun --oversubscribe -np 2 sh -c 'cd "$1/lists/$OMPI_COMM_WORLD_RANK" &&
		exec "$2" merge -o "$1/order-2.pvs" @in.txt' sh "$tmp" "$(realpath "$pv")" \
		>/dev/null 2>"$tmp/err"
	if cmp -s "$tmp/order-1.pvs" "$tmp/order-2.pvs" && [ "$(grep -c 'read its inputs again' "$tmp/err")" = 1 ] &&
		grep -q "^profview: note: merge: rank 1 read its inputs again: its listing of the arguments was not rank 0's" "$tmp/err"; then
		ok
	else
		bad "ranks listing the inputs in other orders: $(head -3 "$tmp/err")"
	fi
	timeout 300 mpirun --oversubscribe -np 2 sh -c 'OMPI_COMM_WORLD_RANK=0 exec "$@"' sh \
		"$pv" merge -o "$tmp/renum-2.pvs" $all >/dev/null 2>"$tmp/err"
	if cmp -s "$tmp/order-1.pvs" "$tmp/renum-2.pvs" &&
		grep -q "^profview: note: merge: rank 1 read its inputs again: MPI numbered the ranks otherwise than the launcher" "$tmp/err"; then
		ok
	else
		bad "a rank numbered otherwise by the launcher: $(head -3 "$tmp/err")"
	fi
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

# --skip-bad, the output checked first, contexts named from paths, duplicate names numbered: one
# folder per rank holding one file name (out.txt), rank 2's unreadable, rank 5's missing
r="$tmp/ranks"
for k in 0 1 2 3 4; do mkdir -p "$r/r$k"; done
cp tests/data/merge/ranks/rank-0.txt "$r/r0/out.txt"
cp tests/data/merge/ranks/rank-1.txt "$r/r1/out.txt"
printf 'not a profile\n' >"$r/r2/out.txt"
cp tests/data/merge/ranks/rank-2.txt "$r/r3/out.txt"
cp tests/data/merge/ranks/rank-0.txt "$r/r4/out.txt"
printf '%s\n' "$r/r0/out.txt" "$r/r1/out.txt" "$r/r2/out.txt" "$r/r3/out.txt" "$r/r4/out.txt" \
	"$r/r5/out.txt" >"$tmp/ranks.txt"
# the probe's own line for r2 (the list of formats it tried is the registry's, not repeated here)
not_profile=$("$pv" info "$r/r2/out.txt" 2>&1 | sed -n 's/^profview: error: //p')
case $not_profile in "$r/r2/out.txt: not a profile format profview reads (tried "*) ;;
*) bad "the probe's line for a text that is no profile: $not_profile" ;; esac
skip_err="profview: skipped: $not_profile
profview: skipped: $r/r5/out.txt: cannot open: No such file or directory"
"$pv" merge -o "$tmp/bad.pvs" @"$tmp/ranks.txt" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && [ ! -e "$tmp/bad.pvs" ] &&
	[ "$(cat "$tmp/err")" = "profview: error: $r/r5/out.txt: cannot read: No such file or directory" ]; then
	ok
else
	bad "a bad input without --skip-bad: exit $rc (2 wanted), $(cat "$tmp/err")"
fi
"$pv" merge --skip-bad -o "$tmp/skip.pvs" @"$tmp/ranks.txt" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 3 ] && [ "$(grep skipped: "$tmp/err")" = "$skip_err" ] &&
	grep -qx "profview: note: merge: 2 of the 6 inputs skipped (--skip-bad): $tmp/skip.pvs holds the other 4" "$tmp/err"; then
	ok
else
	bad "--skip-bad: exit $rc (3 wanted): $(cat "$tmp/err")"
fi
# the lossy list says it, with the count; the four others are the contexts, numbered
if "$pv" info "$tmp/skip.pvs" | grep -q "^ *2  merge --skip-bad: an input that could not be read was left out"; then
	ok
else
	bad "--skip-bad: info's lossy list: $("$pv" info "$tmp/skip.pvs" 2>&1 | grep -A3 lossy)"
fi
want_ctx="0 out.txt 10
1 out.txt #2 4
2 out.txt #3 10
3 out.txt #4 10"
got_ctx=$("$pv" contexts --sort index "$tmp/skip.pvs" | awk '/^ *[0-9]/ {$NF=""; print}' | sed 's/ *$//')
if [ "$got_ctx" = "$want_ctx" ] &&
	grep -qx "profview: note: merge: 3 context names already taken by earlier contexts: numbered ' #2', ' #3', ... (the first: 'out.txt')" "$tmp/err"; then
	ok
else
	bad "duplicate names: $got_ctx / $(grep 'already taken' "$tmp/err")"
fi
# the path's folders name the contexts: --context-regex-path, {dir}
"$pv" merge --skip-bad -o "$tmp/path.pvs" --context-regex-path '/r([0-9]+)/[^/]*$' \
	--context-name 'rank {1} ({dir}/{file})' "$r" >/dev/null 2>&1
rc=$?
got_ctx=$("$pv" contexts --sort index "$tmp/path.pvs" | awk '/^ *[0-9]/ {$NF=""; print}' | sed 's/ *$//')
want_ctx="0 rank 0 (r0/out.txt) 10
1 rank 1 (r1/out.txt) 4
2 rank 3 (r3/out.txt) 10
3 rank 4 (r4/out.txt) 10"
if [ $rc -eq 3 ] && [ "$got_ctx" = "$want_ctx" ]; then ok; else bad "--context-regex-path: exit $rc, $got_ctx"; fi
"$pv" merge -o "$tmp/x.pvs" --context-regex-path '/node/' "$r/r0" >/dev/null 2>"$tmp/err"
if [ $? -eq 2 ] && [ "$(cat "$tmp/err")" = "profview: error: $r/r0/out.txt: the path does not match --context-regex-path '/node/'" ]; then
	ok
else
	bad "--context-regex-path without a match: $(cat "$tmp/err")"
fi
# the output is checked before any input is read: a FIFO as input would block its reader
mkfifo "$tmp/fifo"
for o in "$tmp" "$tmp/no/such.pvs" "$tmp/fifo"; do
	case $o in
	"$tmp") why="a folder, not a regular file: not written" ;;
	"$tmp/fifo") why="a FIFO, not a regular file: not written" ;;
	*) why="cannot write: No such file or directory" ;;
	esac
	timeout 20 "$pv" merge -o "$o" "$tmp/fifo" "$r" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(cat "$tmp/err")" = "profview: error: $o: $why" ]; then
		ok
	else
		bad "-o $o: exit $rc: $(cat "$tmp/err")"
	fi
done
if [ -n "$mpi" ]; then
	for np in 1 2 4; do
		timeout 300 mpirun --oversubscribe -np $np "$pv" merge --skip-bad -o "$tmp/skip-$np.pvs" \
			@"$tmp/ranks.txt" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		# mpirun reports the exit code 3 of its ranks as a failure (its own lines, exit 3)
		if [ $rc -eq 3 ] && cmp -s "$tmp/skip.pvs" "$tmp/skip-$np.pvs" &&
			[ "$(grep skipped: "$tmp/err" | sort)" = "$skip_err" ]; then
			ok
		else
			bad "--skip-bad under mpirun -np $np: exit $rc: $(grep profview "$tmp/err")"
		fi
		timeout 300 mpirun --oversubscribe -np $np "$pv" merge -o "$tmp/path-$np.pvs" \
			--skip-bad --context-regex-path '/r([0-9]+)/[^/]*$' \
			--context-name 'rank {1} ({dir}/{file})' "$r" >/dev/null 2>&1
		if cmp -s "$tmp/path.pvs" "$tmp/path-$np.pvs"; then ok; else bad "--context-regex-path: -np $np differs"; fi
		timeout 60 mpirun --oversubscribe -np $np "$pv" merge -o "$tmp/no/such.pvs" "$tmp/fifo" \
			>/dev/null 2>"$tmp/err"
		rc=$?
		if [ $rc -eq 2 ] && grep -q "^profview: error: $tmp/no/such.pvs: cannot write: No such file or directory" "$tmp/err"; then
			ok
		else
			bad "-o in a missing folder under mpirun -np $np: exit $rc: $(head -3 "$tmp/err")"
		fi
	done
fi
echo "merge: $pass passed, $fail failed"
[ $fail -eq 0 ]

#!/bin/sh
# profview merge of per-rank profiles (bench/RESULTS.md "Merge"), from the repository root:
#   sh bench/merge.sh [N...]      (default: 1000 10000; FORMATS='collapsed pprof' by default)
# For each N: bench/gen-ranks writes N collapsed per-rank profiles and the same as pprof (written by
# libpv's pprof writer in the generator's process: the bytes `profview export --to pprof` writes);
# then, one after the other, wall times of
#   baseline  cat the collapsed files into one and `profview snapshot` it (one context)
#   merge     profview merge alone (no MPI), then mpirun -np 1, 2, 4 (--stats: each rank's peak RSS)
# every merged snapshot compared byte for byte with the single-process one, and the open of the
# merged snapshot against the open of the baseline's snapshot (bench/open, median of 5).
set -eu
pv=build/profview
out=bench/out/merge
mkdir -p "$out"
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t() { # t CMD... : wall seconds of CMD on stdout, its output to $out/last.err
	s=$(date +%s.%N)
	"$@" >"$out/last.out" 2>"$out/last.err"
	e=$(date +%s.%N)
	echo "$e - $s" | bc
}
median_open() { # median_open FILE: the median wall seconds of 5 opens
	for i in 1 2 3 4 5; do build/bench/open "$1" | sed 's/.*seconds=\([0-9.]*\).*/\1/'; done |
		sort -n | sed -n 3p
}
for n in ${@:-1000 10000}; do
	d="$out/ranks-$n"
	if [ ! -f "$d/done" ]; then
		rm -rf "$d"
		mkdir -p "$d/collapsed" "$d/pprof"
		build/bench/gen-ranks "$n" "$d/collapsed"
		touch "$d/done"
	fi
	case "${FORMATS:-collapsed pprof}" in
	*pprof*)
		if [ ! -f "$d/pprof-done" ]; then
			build/bench/gen-ranks "$n" "$d/pprof" 2000 pprof
			touch "$d/pprof-done"
		fi ;;
	esac
	echo "## N=$n ranks: collapsed $(du -sm "$d/collapsed" | cut -f1) MB, pprof $(du -sm "$d/pprof" | cut -f1) MB (${FORMATS:-collapsed pprof} measured)"
	base=$(t sh -c "cat $d/collapsed/*.txt > $out/all.txt && $pv snapshot $out/all.txt -o $out/base.pvs")
	echo "baseline cat + profview snapshot (one context): ${base} s, snapshot $(du -m $out/base.pvs | cut -f1) MB"
	for fmt in ${FORMATS:-collapsed pprof}; do
		one=$(t $pv merge --stats -o "$out/one-$fmt.pvs" "$d/$fmt")
		echo "$fmt: profview merge (no MPI): ${one} s; $(grep -o 'peak RSS.*' "$out/last.err")"
		for np in 1 2 4; do
			w=$(t mpirun --oversubscribe -np $np $pv merge --stats -o "$out/np$np-$fmt.pvs" "$d/$fmt")
			same=differs
			cmp -s "$out/one-$fmt.pvs" "$out/np$np-$fmt.pvs" && same=identical
			echo "$fmt: mpirun -np $np: ${w} s (speed-up $(echo "scale=2; $one / $w" | bc) over no MPI), $same"
			sed 's/^/    /' "$out/last.err"
		done
		echo "$fmt: merged snapshot $(du -m "$out/one-$fmt.pvs" | cut -f1) MB opens in $(median_open "$out/one-$fmt.pvs") s; baseline snapshot $(du -m $out/base.pvs | cut -f1) MB in $(median_open $out/base.pvs) s"
	done
done

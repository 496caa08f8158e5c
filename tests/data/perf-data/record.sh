#!/bin/sh
# Builds the test programs and records them with perf, as the perf.data oracle tests do
# (tests/unit/test_perf_data.c), into OUT (a folder): prog (C, -g), prog-stripped (built without a
# build id, stripped), prog-cpp (C++),
# a python3 run and a shell pipeline, one perf record -g of all of them (EVENT: cpu-clock, or
# cpu-clock:u for recordings kept in the repository, whose kernel is another machine's), then
# what perf says of it: perf script, and perf report's self and children per symbol.
# usage: record.sh SRC_DIR OUT EVENT FREQ SCALE
set -e
src=$1 out=$2 ev=$3 freq=$4 scale=$5
mkdir -p "$out"
gcc -O2 -g -fno-omit-frame-pointer -o "$out/prog" "$src/prog.c"
# prog-stripped: without a build id (perf then cannot find another file for it: its frames are
# [unknown] in perf script), prog-nobid the same build with its symbols
gcc -O2 -g -fno-omit-frame-pointer -Wl,--build-id=none -o "$out/prog-nobid" "$src/prog.c"
strip -o "$out/prog-stripped" "$out/prog-nobid"
g++ -O2 -g -fno-omit-frame-pointer -o "$out/prog-cpp" "$src/prog.cpp"
cd "$out"
perf record -q -e "$ev" -F "$freq" -g -o mix.data -- sh -c "
./prog 2000 $((300 * scale)) >/dev/null
./prog-stripped 2000 $((200 * scale)) >/dev/null
./prog-cpp $((300 * scale)) >/dev/null
python3 -c 'import json; print(len(json.dumps([{\"a\": i} for i in range($((20000 * scale)))])))' >/dev/null
seq 1 $((20000 * scale)) | sort -r | gzip -1 | wc -c >/dev/null" 2>perf.err
perf script --ns -i mix.data > mix.script.txt 2>/dev/null
perf report -i mix.data --stdio --no-children --sort symbol -g none --percent-limit 0 \
	> mix.report-self.txt 2>/dev/null
perf report -i mix.data --stdio --children --sort symbol -g none --percent-limit 0 \
	> mix.report-children.txt 2>/dev/null

#!/bin/sh
# End-to-end test of `profview tui` in a real terminal: tmux runs it, send-keys types, and
# capture-pane reads the screen back. Checks that the rows on the screen carry the numbers
# `profview tree --json` prints for the same query, that resizing to 80x24 and 40x12 keeps a
# whole screen, that a terminal without colours (TERM=vt100, NO_COLOR) works, that several
# files switch with ] (and f draws the flame graph), and that q
# prints the query; the flame graph's labels and zoom on a perf profile, and the disassembly
# pane ('a') of a binary gcc builds here. usage: tests/tui/e2e.sh PROFVIEW   (from the repository root)
# The last line is "tui-e2e: N passed, N failed".
set -u
pv=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
if ! command -v tmux >/dev/null 2>&1; then
	echo "tui-e2e: skipped, tmux is not installed ('make test' installs it): 0 passed, 0 failed"
	exit 0
fi
pass=0
fail=0
tmp=$(mktemp -d)
n=0
sock="pv-e2e-$$-$n"
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
file=tests/data/collapsed/worked-example.txt
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL tui-e2e: $1"; fail=$((fail + 1)); }
screen() { tmux -L "$sock" capture-pane -p -t pv >"$tmp/screen" 2>/dev/null; }
# waits (up to 10 s) until the screen shows $1
wait_for() {
	i=0
	while [ $i -lt 100 ]; do
		screen
		grep -qF -- "$1" "$tmp/screen" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
keys() { tmux -L "$sock" send-keys -t pv "$@"; }
start() { # start TERM EXTRA-ENV ARGS...
	term=$1
	extra=$2
	shift 2
	tmux -L "$sock" kill-server 2>/dev/null
	n=$((n + 1))
	sock="pv-e2e-$$-$n" # a server of its own: a new session never races the old one's exit
	tmux -L "$sock" -f /dev/null new-session -d -s pv -x 100 -y 30 \
		"env LC_ALL=C.UTF-8 TERM=$term $extra $pv tui $* $file; echo EXIT=\$?; sleep 30"
}

# 1. the numbers: the centered tree opened everywhere equals tree --json
start xterm-256color "" --query "center=foo"
if wait_for "query: --center foo"; then
	keys '*'
	sleep 0.3
	wait_for "baz" || true
	# rows: total, self and name of each tree line (marks and the selection cut off)
	awk -F'|' 'NR > 0' "$tmp/screen" |
		sed -n 's/^[> ] *\([0-9][0-9]*\) *[0-9.]*% *\([0-9][0-9]*\) *[0-9.]*%  *[-+▾▸ ]* *\([^ ].*[^ ]\) *$/\1 \2 \3/p' >"$tmp/got"
	"$pv" tree --json --center foo "$file" |
		sed -n 's/.*"name": "\([^"]*\)".*"total": \([0-9]*\), "self": \([0-9]*\).*/\2 \3 \1/p' >"$tmp/want"
	[ -n "${E2E_VERBOSE:-}" ] && cat "$tmp/got"
	if [ -s "$tmp/want" ] && cmp -s "$tmp/got" "$tmp/want"; then ok; else
		bad "screen rows differ from tree --json"
		diff "$tmp/want" "$tmp/got" | head -20
	fi
else
	bad "the TUI did not open (screen: $(head -3 "$tmp/screen"))"
fi

# 2. resizing: the screen is redrawn whole at each size, the process lives on
for size in 80x24 40x12 100x30; do
	w=${size%x*}
	h=${size#*x}
	tmux -L "$sock" resize-window -t pv -x "$w" -y "$h"
	sleep 0.5
	screen
	lines=$(wc -l <"$tmp/screen")
	wide=$(awk -v w="$w" 'length($0) > w' "$tmp/screen" | wc -l)
	if [ "$lines" -eq "$h" ] && [ "$wide" -eq 0 ] && head -1 "$tmp/screen" | grep -q '\[1 top-down\]' &&
		tail -1 "$tmp/screen" | grep -q 'help'; then ok; else
		bad "at $size the screen is not whole:"
		cat "$tmp/screen"
	fi
done

# 2b. the help at 80x20 (issue 26): '?' shows every line of it, the last one too, then closes
tmux -L "$sock" resize-window -t pv -x 80 -y 20
sleep 0.3
keys '?'
if wait_for "help: lines 1-17 of 17" && grep -qF "keys (the page's):" "$tmp/screen" &&
	grep -qF "u  the query as flags and URL   q  quit" "$tmp/screen" &&
	[ "$(wc -l <"$tmp/screen")" -eq 20 ]; then ok; else
	bad "the help at 80x20 is not whole:"
	cat "$tmp/screen"
fi
keys x
wait_for "? help" || bad "a key did not close the help"
tmux -L "$sock" resize-window -t pv -x 100 -y 30
sleep 0.3

# 3. q quits and prints the query
keys q
if wait_for "EXIT=0" && grep -qF "profview tree --center foo $file" "$tmp/screen"; then ok; else
	bad "q did not print the query: $(cat "$tmp/screen")"
fi

# 4. no colours: vt100 and NO_COLOR; tabs, markers and back work
start vt100 "NO_COLOR=1" ""
if wait_for "[1 top-down]"; then
	keys Down c
	wait_for "query: --center real_main" && ok || bad "c did not center (vt100)"
	keys BSpace
	wait_for "query: (the whole profile)" && ok || bad "Backspace did not go back"
	keys 6
	wait_for "[6 markers]" && ok || bad "tab 6 did not open the markers"
	keys q
else
	bad "the TUI did not open on a vt100"
fi
# 5. several files: ] opens the second, f draws the flame graph, q prints its query
start xterm-256color "" tests/data/perf/variants.perf.txt
if wait_for "[1/2 variants.perf.txt]"; then
	keys ']'
	wait_for "[2/2 worked-example.txt]" && ok || bad "] did not open the second file"
	keys f
	wait_for "flame graph (icicle)" && ok || bad "f did not draw the flame graph"
	keys q
	if wait_for "EXIT=0" && grep -qF "profview tree $file" "$tmp/screen"; then ok; else
		bad "q did not print the second file's query: $(cat "$tmp/screen")"
	fi
else
	bad "the TUI did not open two files (screen: $(head -3 "$tmp/screen"))"
fi
# 6. issue 26's keys: '/' again starts a new marker search (Esc puts the last one back), b
# changes the granularity, T the thread, a shows the disassembly pane
file=tests/data/corpus/firefox/gecko-2.json
start xterm-256color ""
if wait_for "query:"; then
	keys 6 / R e f l o w Enter
	wait_for "Reflow" && ok || bad "the marker search did not apply"
	keys / R a s t
	wait_for "search markers: Rast_" && ok || bad "/ again did not start a new search"
	keys Escape
	sleep 0.3
	wait_for "? help" && screen && grep -qF "Reflow" "$tmp/screen" &&
		! grep -qF "Rasterize" "$tmp/screen" && ok ||
		bad "Esc did not put the search back"
	keys 1 b
	wait_for "query: --by line" && ok || bad "b did not change the granularity"
	keys T
	# the busiest thread (#0) opens: T goes to the next one
	wait_for "thread #1: Compositor (2 of 3" && ok || bad "T did not name the thread"
	keys a
	wait_for "disassembly of" && ok || bad "a did not open the disassembly"
	keys Escape q
else
	bad "the TUI did not open $file"
fi
# 7. the flame graph of a real perf profile (CPython, tests/data/perf): labelled blocks, and
# Enter zooms into the selected block: [unknown] (50.000 ms) fills the 100 columns, so its
# child _PyEval_EvalFrameDefault (19.500 ms) takes 100 x 19.5 / 50 = 39 columns and the
# [unknown] beside it (14.000 ms) the 28 up to 100 x 33.5 / 50 = 67; Esc zooms out again
# (19.5 / 335.5 of 100: 6 columns)
file=tests/data/perf/python3.perf.txt.gz
start xterm-256color ""
if wait_for "query:"; then
	keys f Down
	wait_for "flame graph (icicle)" && grep -qF "gc_co" "$tmp/screen" && ok ||
		bad "f did not draw the labelled flame graph"
	keys Enter
	if wait_for "zoomed into [unknown] (Esc: out)"; then
		# the block line below the zoomed one: widths from one '|' (a block's right edge) to the next
		line=$(grep -F "_PyEval_EvalFrameDefault" "$tmp/screen" | head -1)
		w1=$(printf '%s\n' "$line" | awk -F'|' '{ print length($1) + 1 }')
		w2=$(printf '%s\n' "$line" | awk -F'|' '{ print length($2) + 1 }')
		lab=$(printf '%s\n' "$line" | awk -F'|' '{ sub(/ +$/, "", $2); print $2 }')
		[ "$w1" = 39 ] && [ "$w2" = 28 ] && [ "$lab" = "[unknown]" ] && ok ||
			bad "zoomed widths $w1 and $w2 ($lab), expected 39 and 28 ([unknown]): $line"
	else
		bad "Enter did not zoom: $(sed -n 3,5p "$tmp/screen")"
	fi
	keys Escape
	if wait_for "flame graph (icicle)"; then
		# (the cut label's ellipsis one column: awk counts bytes)
		w1=$(grep -E '^_PyE' "$tmp/screen" | head -1 | sed 's/\xe2\x80\xa6/~/g' |
			awk -F'|' '{ print length($1) + 1 }')
		[ "$w1" = 6 ] && ok || bad "after Esc _PyEval_EvalFrameDefault is $w1 columns, not 6"
	else
		bad "Esc did not zoom out"
	fi
	keys q
else
	bad "the TUI did not open $file"
fi
# 8. a: the disassembly of a function of a binary built here (tests/data/tui/hello.c, gcc -O0
# -g), from a callgrind profile written here whose addresses are add's first and seventh
# instructions (as objdump lists them): 2 and 5 Ir, on lines 2 and 3 of hello.c
if command -v gcc >/dev/null 2>&1 && command -v objdump >/dev/null 2>&1 &&
	gcc -O0 -g -o "$tmp/hello" tests/data/tui/hello.c 2>"$tmp/gcc.err"; then
	set -- $(objdump -d --no-show-raw-insn "$tmp/hello" | awk '/<add>:$/ { on = 1; next }
		on && /^$/ { exit } on { sub(/:.*/, ""); print $1 }')
	a1=$1 a7=$7
	main=$(nm "$tmp/hello" | awk '$3 == "main" { print $1 }')
	printf '# callgrind format\nevents: Ir\npositions: instr line\nob=%s\nfl=%s\nfn=main\n0x%s 13 1\nfn=add\n0x%s 2 2\n0x%s 3 5\n' \
		"$tmp/hello" "$PWD/tests/data/tui/hello.c" "$main" "$a1" "$a7" >"$tmp/hello.callgrind"
	file=$tmp/hello.callgrind
	start xterm-256color ""
	if wait_for "query:"; then
		keys 5 a
		if wait_for "disassembly of add"; then
			grep -qE "^ +2 +$a1: +push " "$tmp/screen" && grep -qE "^ +5 +$a7: +add " "$tmp/screen" &&
				grep -qE "^ +5 +/.*/hello\.c:3 *$" "$tmp/screen" && ok ||
				bad "the disassembly lacks add's costed instructions ($a1: 2, $a7: 5): $(cat "$tmp/screen")"
		else
			bad "a did not open add's disassembly: $(sed -n 3,6p "$tmp/screen")"
		fi
		keys Escape q
	else
		bad "the TUI did not open $file"
	fi
else
	bad "gcc could not build tests/data/tui/hello.c: $(cat "$tmp/gcc.err" 2>/dev/null)"
fi
echo "tui-e2e: $pass passed, $fail failed"
[ $fail -eq 0 ]

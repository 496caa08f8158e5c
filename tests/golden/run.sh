#!/bin/sh
# Golden tests: each folder tests/golden/<area>/<case>/ holds
#   cmd           the arguments to profview, one line, paths relative to the repository root,
#                 quoted as in a shell ('...' keeps spaces and special characters)
#   expected.out  the exact standard output
#   expected.err  the exact standard error (optional; empty when absent)
#   expected.rc   the exit code (optional; 0 when absent)
#   (--update rewrites expected.out, and expected.err and expected.rc when they exist or are
#   needed: a non-empty standard error, a non-zero exit code; it deletes no file)
#   same-as       another case whose expected output this one must equal (optional)
# usage: tests/golden/run.sh PROFVIEW [--update]   (run from the repository root)
# The last line is "golden: N passed, N failed".
set -u
pv=$1
update=${2:-}
export LC_ALL=C TZ=UTC COLUMNS=100
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for dir in $(find tests/golden -mindepth 2 -maxdepth 2 -type d | sort); do
	[ -f "$dir/cmd" ] || continue
	args=$(cat "$dir/cmd")
	eval "\"\$pv\" $args" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$update" = "--update" ]; then
		cp "$tmp/out" "$dir/expected.out"
		# expected.err and expected.rc are written when there is something to say or when the
		# case already has them (an empty expected.err, an expected.rc of 0 stay): never deleted
		if [ -s "$tmp/err" ] || [ -f "$dir/expected.err" ]; then cp "$tmp/err" "$dir/expected.err"; fi
		if [ $rc -ne 0 ] || [ -f "$dir/expected.rc" ]; then echo $rc >"$dir/expected.rc"; fi
	fi
	want_rc=0
	[ -f "$dir/expected.rc" ] && want_rc=$(cat "$dir/expected.rc")
	[ -f "$dir/expected.err" ] && cp "$dir/expected.err" "$tmp/want_err" || : >"$tmp/want_err"
	ok=1
	if ! cmp -s "$tmp/out" "$dir/expected.out"; then
		echo "FAIL $dir: standard output differs:"
		diff -u "$dir/expected.out" "$tmp/out" | head -40
		ok=0
	fi
	if ! cmp -s "$tmp/err" "$tmp/want_err"; then
		echo "FAIL $dir: standard error differs:"
		diff -u "$tmp/want_err" "$tmp/err" | head -20
		ok=0
	fi
	if [ -f "$dir/same-as" ] && ! cmp -s "$tmp/out" "tests/golden/$(cat "$dir/same-as")/expected.out"; then
		echo "FAIL $dir: output differs from $(cat "$dir/same-as")"
		ok=0
	fi
	if [ "$rc" != "$want_rc" ]; then
		echo "FAIL $dir: exit code $rc, expected $want_rc"
		ok=0
	fi
	if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "golden: $pass passed, $fail failed"
[ $fail -eq 0 ]

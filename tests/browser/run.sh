#!/bin/sh
# Browser tests of `profview serve`'s page in Debian's Chromium through npm's playwright-core.
# Usage: tests/browser/run.sh PROFVIEW_BINARY   (called by tests/run-all.sh)
# Installs what is missing (chromium, nodejs/npm, node_modules from package-lock.json), runs
# test.mjs, and prints as its last line "browser: N passed, N failed". Screenshots of every
# tab go to $OUT/screenshots/ (OUT defaults to tests/browser/out/).
set -u
fail() {
	echo "browser: $*"
	echo "browser: 0 passed, 1 failed"
	exit 1
}
[ $# -ge 1 ] || fail "usage: run.sh PROFVIEW_BINARY"
case "$1" in
/*) bin=$1 ;;
*) bin=$(pwd)/$1 ;;
esac
[ -x "$bin" ] || fail "no binary at $bin"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
apt_updated=""
apt_install() {
	if [ -z "$apt_updated" ]; then
		$sudo apt-get update -qq >/dev/null 2>&1
		apt_updated=1
	fi
	echo "browser: installing $*"
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1
}
if [ "$(dpkg-query -W -f='${Status}' chromium 2>/dev/null)" != "install ok installed" ]; then
	apt_install chromium || fail "could not install chromium"
fi
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	apt_install nodejs npm || fail "could not install nodejs and npm"
fi
if [ ! -f "$here/node_modules/playwright-core/package.json" ] ||
	[ "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]; then
	(cd "$here" && npm ci --no-audit --no-fund --loglevel=error >/dev/null 2>&1) ||
		fail "npm ci (playwright-core) failed"
fi
OUT=${OUT:-$here/out}
export OUT
mkdir -p "$OUT/screenshots"
cd "$root" || fail "no repository root"
node "$here/test.mjs" "$bin"

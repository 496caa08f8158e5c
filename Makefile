# profview - the commands a person types. The build itself is Meson + ninja (meson.build).
#   make          build build/profview (gcc, -Werror)
#   make run      install what is missing, build profview alone, and serve the bundled profiles in the web UI (prints
#                 the URL to open; OPEN=1 opens it with --open; Ctrl-C stops)
#   make test     install what is missing, build, run every test, then again under ASan+UBSan
#   make check    the inner loop: every suite of the release build only (meson test; SUITE=NAME
#                 runs one of `meson test -C build --list`)
#   make bench    the benchmarks of bench/ (see bench/RESULTS.md)
#   make fuzz     every fuzz target under libFuzzer for FUZZ_SECONDS each (default 600), with its
#                 dictionary; FUZZ_TARGETS="chrome pprof" runs some (fuzz/README.md)

# Debian packages the build and the tests need (checked with dpkg, installed only when missing;
# golang-go and golang-github-google-pprof-dev build pprof for tests/export/run.sh; binutils'
# objdump disassembles for the source pane and `profview annotate`)
DEB_PACKAGES := meson ninja-build pkg-config gcc clang libclang-rt-14-dev zlib1g-dev libxxhash-dev \
	libprotobuf-c-dev protobuf-c-compiler libmicrohttpd-dev libopenmpi-dev openmpi-bin \
	libncurses-dev tmux golang-go golang-github-google-pprof-dev nodejs binutils \
	libelf-dev libdw-dev libzstd-dev libiberty-dev linux-perf \
	libtraceevent-dev libzip-dev
# make run: a Chromium trace recorded here (two renderer threads with CPU samples, 345 markers,
# its page's source beside it: the Source tab's per-line costs) and a real Firefox capture
# (markers with schemas); OPEN=1 starts a browser (--open)
EXAMPLE := examples/chromium-page.json.gz examples/firefox-argument-values.json

# and what `make bench` needs on top
BENCH_PACKAGES := hyperfine time

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

FUZZ_SECONDS := 600
FUZZ_TARGETS :=

.PHONY: all run test check deps hooks build build-san bench fuzz format format-check clean

all: build

deps:
	@missing=""; for p in $(DEB_PACKAGES) $(EXTRA_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y --no-install-recommends $$missing; \
	fi

build/build.ninja:
	meson setup build -Dwerror=true

build: deps build/build.ninja hooks
	ninja -C build

# the repository's git hooks (tools/hooks/commit-msg: a subject of at most 72 characters), in a
# git checkout only
hooks:
	@if git rev-parse --git-dir >/dev/null 2>&1 && \
		[ "$$(git config --get core.hooksPath)" != tools/hooks ]; then \
		git config core.hooksPath tools/hooks; fi

build-san/build.ninja:
	CC=clang meson setup build-san -Dwerror=true -Db_sanitize=address,undefined \
		-Db_lundef=false -Dc_args=-fno-sanitize-recover=all -Dbuildtype=debug

build-san: deps build-san/build.ninja
	ninja -C build-san

build-fuzz/build.ninja:
	CC=clang meson setup build-fuzz -Dwerror=true -Dfuzz=true -Db_sanitize=address,undefined \
		-Db_lundef=false -Dc_args=-fno-sanitize-recover=all -Dbuildtype=debugoptimized

fuzz: deps build-fuzz/build.ninja
	sh fuzz/run.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# serve needs build/profview alone: its own 126 compile steps (of 241 in the whole build, which
# adds the tests, fuzzers, benchmarks and profview-mpi that make, make check and make test build)
run: deps build/build.ninja hooks
	ninja -C build profview
	@echo "make run: open the URL printed below in a browser (make run OPEN=1 starts one); the"
	@echo "          profile menu at the top switches between the two examples; Ctrl-C stops"
	./build/profview serve $(EXAMPLE) $(if $(OPEN),--open)

test: deps
	@$(MAKE) --no-print-directory build build-san
	@sh tests/run-all.sh build build-san

# the inner loop: every suite of the release build (meson test; a few minutes, no ASan build);
# SUITE=golden runs one (meson test --list shows them)
check: build
	meson test -C build --print-errorlogs $(if $(SUITE),--suite $(SUITE))

# The C sources as .clang-format says (Debian's clang-format 14): format-check fails on any
# difference (.ci/run runs it after make test); format rewrites them.
FORMAT_FILES = git ls-files '*.c' '*.h' ':!tests/data'
format-check:
	@$(MAKE) --no-print-directory deps EXTRA_PACKAGES=clang-format
	@$(FORMAT_FILES) | xargs clang-format --dry-run --Werror && echo "format-check: every C file as .clang-format says"
format:
	@$(MAKE) --no-print-directory deps EXTRA_PACKAGES=clang-format
	@$(FORMAT_FILES) | xargs clang-format -i

bench: build
	@$(MAKE) --no-print-directory deps EXTRA_PACKAGES="$(BENCH_PACKAGES)"
	sh bench/run.sh

clean:
	rm -rf build build-san build-fuzz

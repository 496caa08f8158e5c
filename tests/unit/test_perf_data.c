/*
 * perf.data (src/import/perf/perf_data.c, symbols from src/import/symbols.c) against perf itself on
 * the same file: programs built and recorded at test time (tests/data/perf-data/record.sh: C with
 * -g, the same stripped, C++, python3, a shell pipeline, one `perf record -g`), then
 *
 *  - per sample: the same thread (comm, tid), time, period and stack of names (function and
 *    module, frame by frame) as `perf script` prints for the file, read by the perf script
 *    importer;
 *  - per symbol: the same self and children as `perf report --stdio` (perf_report.h), to 0.05
 *    points (one run in several differed by 0.013 points in one symbol's children, under ASan:
 *    not understood yet, doc/perf-data.md);
 *  - per instruction of leaf(): the same share as `perf annotate --stdio`.
 *
 * Where perf cannot record (perf_event_paranoid, no perf), the test says so and uses the
 * recording kept in tests/data/perf-data (user space only, its binaries beside it, found with
 * --symbols).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "perf_report.h"
#include "perf_swap.h"
#include "perf_test.h"
#include "pv/disasm.h"
#include "pv/import.h"
#include "pv/query.h"
#include "t.h"
#include "tp.h"

int run(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	int rc = system(cmd);
	return rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

bool temp_dir(char *dir, const char *name)
{
	snprintf(dir, 64, "/tmp/pv-%s-XXXXXX", name);
	if (mkdtemp(dir))
		return true;
	t_fail(__FILE__, __LINE__, "mkdtemp failed");
	return false;
}

void skip_unpermitted(const char *dir, const char *what)
{
	printf("# SKIP %s: perf record is not permitted here (perf missing, or "
	       "kernel.perf_event_paranoid)\n",
	       what);
	run("rm -rf '%s'", dir);
}

static char workdir[64];

static void remove_workdir(void)
{
	if (workdir[0])
		run("rm -rf '%s'", workdir);
}

/*
 * The recording: made once per run in a temporary folder (HOME there too, so perf's build-id
 * cache is the test's own), else the one kept in the repository. *kept tells which.
 */
static const char *recording(bool *kept)
{
	char *dir = workdir;
	static int state; /* 0 not tried, 1 recorded, 2 kept */
	if (!state) {
		snprintf(workdir, sizeof(workdir), "/tmp/pv-perfdata-XXXXXX");
		state = 2;
		/* PV_TEST_PERF_KEPT=1: the kept recording even where perf works */
		const char *force = getenv("PV_TEST_PERF_KEPT");
		if (force && *force == '1')
			printf(
			    "# PV_TEST_PERF_KEPT=1: the recording kept in tests/data/perf-data\n");
		else if (mkdtemp(dir) && !atexit(remove_workdir) &&
			 run("perf record -q -e cpu-clock -o %s/probe.data -- true "
			     ">/dev/null 2>&1",
			     dir) == 0) {
			setenv("HOME", dir, 1);
			if (run("sh %s/perf-data/record.sh %s/perf-data %s/rec cpu-clock 4000 4",
				T_DATA, T_DATA, dir) == 0)
				state = 1;
			else
				t_fail(__FILE__, __LINE__, "record.sh failed in %s", dir);
		} else {
			printf("# perf record is not permitted here (perf missing, or "
			       "kernel.perf_event_paranoid): the recording kept in "
			       "tests/data/perf-data is used\n");
		}
	}
	*kept = state == 2;
	if (state == 2)
		return T_DATA "/perf-data";
	static char rec[80];
	snprintf(rec, sizeof(rec), "%s/rec", dir);
	return rec;
}

/* The perf.data at path, validated; the binaries looked for in symbols first (NULL: none). */
static struct pv_profile *import_perf(const char *path, const char *symbols)
{
	struct pv_import_opts o = {.format = "perf-data"};
	struct pv_error err;
	if (symbols) {
		o.symbol_dirs[0] = symbols;
		o.nr_symbol_dirs = 1;
	}
	struct pv_profile *p = NULL;
	if (pv_import_open(path, &o, &p, &err, NULL))
		t_fail(__FILE__, __LINE__, "%s", err.msg);
	struct pv_error verr;
	if (p && pv_profile_validate(p, &verr))
		t_fail(__FILE__, __LINE__, "%s", verr.msg);
	return p;
}

static struct pv_profile *load_data(const char *dir, bool kept)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/mix.data", dir);
	/* kept: the binaries are beside the recording */
	return import_perf(path, kept ? dir : NULL);
}

/* A module of the kept recording's own programs (their binaries are in tests/data). */
static bool own_module(const char *m)
{
	return strcmp(m, "prog") == 0 || strcmp(m, "prog-stripped") == 0 ||
	       strcmp(m, "prog-cpp") == 0;
}

/*
 * The names of a sample's stack, leaf first: "name [module]; ..."; kept: the frames of other
 * modules than the test's programs by their module only (another machine's libraries may name
 * them otherwise).
 */
static bool show_lines; /* stack_text: the source lines of the own programs' frames too
			   ("name@file.c:12") */

/* The base name of frame fr's source file and its line ("" when none) in out. */
static const char *frame_srcline(const struct pv_profile *p, pv_frame_ix fr, char *out, size_t cap)
{
	pv_source_ix src = pv_func_source(p, p->frames.func[fr]);
	uint32_t line = pv_frame_line(p, fr);
	out[0] = 0;
	if (src != PV_NONE && line) {
		const char *path = pv_str(p, p->sources.path[src]), *sl = strrchr(path, '/');
		snprintf(out, cap, "@%s:%u", sl ? sl + 1 : path, line);
	}
	return out;
}

void stack_text(const struct pv_profile *p, pv_stack_ix st, bool kept, char *out, size_t cap)
{
	size_t n = 0;
	out[0] = 0;
	for (; st != PV_NONE && n + 1 < cap; st = p->stacks.prefix[st]) {
		pv_frame_ix fr = p->stacks.frame[st];
		pv_func_ix f = p->frames.func[fr];
		pv_module_ix m = pv_func_module(p, f);
		const char *mn = m == PV_NONE ? "" : pv_str(p, p->modules.name[m]);
		char sl[300] = "";
		if (show_lines && own_module(mn))
			frame_srcline(p, fr, sl, sizeof(sl));
		int w =
		    snprintf(out + n, cap - n, "%s%s [%s]; ",
			     kept && !own_module(mn) ? "" : pv_str(p, p->funcs.name[f]), sl, mn);
		if (w < 0)
			break;
		n += (size_t)w;
	}
}

static pv_thread_ix same_thread(const struct pv_profile *a, pv_thread_ix t,
				const struct pv_profile *b)
{
	for (pv_thread_ix u = 0; u < b->threads.len; u++)
		if (b->threads.tid[u] == a->threads.tid[t] &&
		    strcmp(pv_str(b, b->threads.name[u]), pv_str(a, a->threads.name[t])) == 0)
			return u;
	return PV_NONE;
}

/*
 * --call-graph dwarf recordings (doc/perf-data.md's known differences), when set: samples whose
 * stack differs from perf script's are counted, the first shown, and bounded by the caller.
 * Seen: a sample in the kernel at a process's start for which perf script prints no user frame
 * where profview shows the sampled user address's one frame (the unwinder stopped there), and a
 * libc frame perf prints as "NAME (inlined)" alone (its DWARF name not the ELF symbol's) that
 * the perf script importer gives its caller's module.
 */
static uint32_t dwarf_differ;
static bool allow_dwarf_differ;

/*
 * Whether k samples of n showing one of the known rare differences is few enough: at most 6 and
 * one in `one_in` more. They come at random (the dwarf ones about 1 sample a 170-sample
 * recording, 0 to 2 a run): a bound of 1 % alone failed about one run in 14 at that size; with
 * 6 of slack a Poisson count of mean 1 passes all but one run in 10,000, while a broken unwinder
 * or symbolizer (most samples) still fails.
 */
static bool rare(uint32_t k, uint32_t n, uint32_t one_in)
{
	return k <= 6 + n / one_in;
}

/*
 * Whether two stack texts (leaf first) differ only in their outermost frame, "[unknown] []" in
 * perf script's and the kernel's unnamed frame in the import's.
 */
static bool kernel_root_differs(const char *x, const char *y)
{
	static const char ux[] = "[unknown] []; ", ky[] = "[kernel.kallsyms] [[kernel.kallsyms]]; ";
	size_t nx = strlen(x), ny = strlen(y), ux_n = sizeof(ux) - 1, ky_n = sizeof(ky) - 1;
	if (nx < ux_n || ny < ky_n || strcmp(x + nx - ux_n, ux) || strcmp(y + ny - ky_n, ky))
		return false;
	return nx - ux_n == ny - ky_n && memcmp(x, y, nx - ux_n) == 0;
}

/* Every sample of the text (perf script) in the native import: thread, time, period, stack
 * (perf_test.h). */
void compare_samples(const struct pv_profile *text, const struct pv_profile *nat, bool kept)
{
	T_EQ_INT(nat->samples.len, text->samples.len);
	T_EQ_INT(nat->threads.len, text->threads.len);
	T_EQ_STR(pv_str(nat, nat->metrics.name[0]), pv_str(text, text->metrics.name[0]));
	static char x[65536], y[65536];
	uint32_t bad = 0, same = 0, headers_alone = 0, kernel_root = 0;
	for (pv_thread_ix t = 0; t < text->threads.len; t++) {
		pv_thread_ix u = same_thread(text, t, nat);
		if (u == PV_NONE) {
			t_fail(__FILE__, __LINE__, "thread %s/%lld of perf script not in perf.data",
			       pv_str(text, text->threads.name[t]),
			       (long long)text->threads.tid[t]);
			bad++;
			continue;
		}
		uint32_t s0 = text->threads.sample_begin[t], n0 = text->threads.sample_end[t] - s0;
		uint32_t s1 = nat->threads.sample_begin[u], n1 = nat->threads.sample_end[u] - s1;
		T_EQ_INT(n1, n0);
		for (uint32_t k = 0; k < n0 && k < n1; k++) {
			stack_text(text, text->samples.stack[s0 + k], kept, x, sizeof(x));
			stack_text(nat, nat->samples.stack[s1 + k], kept, y, sizeof(y));
			int64_t tx = pv_sample_time(text, s0 + k), ty = pv_sample_time(nat, s1 + k);
			int64_t wx = pv_sample_weight(text, 0, s0 + k),
				wy = pv_sample_weight(nat, 0, s1 + k);
			if (!x[0] && y[0] && tx == ty && wx == wy) {
				/* perf script printed the header alone (no frame at all) where the
				 * file has a call chain: rare (about 1 in 3,000 python3 samples,
				 * not understood yet), counted and bounded below */
				if (headers_alone++ < 3)
					printf("# perf script printed no frame for %s/%lld at %lld "
					       "ns; "
					       "perf.data: %s\n",
					       pv_str(text, text->threads.name[t]),
					       (long long)text->threads.tid[t], (long long)tx, y);
			} else if (tx == ty && wx == wy && kernel_root_differs(x, y)) {
				/* the outermost frame: perf script "[unknown]" of no module, the
				 * import the kernel's unnamed frame (about 1 in 3,000 samples of a
				 * live recording, seen once: doc/perf-data.md), counted and bounded
				 */
				if (kernel_root++ < 3)
					printf("# %s/%lld at %lld ns: perf script %s\n#   "
					       "perf.data %s\n",
					       pv_str(text, text->threads.name[t]),
					       (long long)text->threads.tid[t], (long long)tx, x,
					       y);
			} else if (allow_dwarf_differ && tx == ty && wx == wy && strcmp(x, y)) {
				if (dwarf_differ++ < 3)
					printf(
					    "# %s/%lld at %lld ns: perf script %s\n#   perf.data "
					    "%s\n",
					    pv_str(text, text->threads.name[t]),
					    (long long)text->threads.tid[t], (long long)tx, x, y);
			} else if (strcmp(x, y) != 0 || tx != ty || wx != wy) {
				if (bad++ < 5)
					t_fail(__FILE__, __LINE__,
					       "%s/%lld sample %u: perf script %lld ns, %lld: %s\n"
					       "  perf.data %lld ns, %lld: %s",
					       pv_str(text, text->threads.name[t]),
					       (long long)text->threads.tid[t], k, (long long)tx,
					       (long long)wx, x, (long long)ty, (long long)wy, y);
			} else {
				same++;
			}
		}
	}
	T_EQ_INT(bad, 0);
	T_TRUE(rare(headers_alone, same, 500));
	T_TRUE(rare(kernel_root, same, 500));
	printf("# perf.data against perf script: %u samples the same, %u printed without frames\n",
	       same, headers_alone);
}

/*
 * annotate's instructions of leaf() in prog against `perf annotate --stdio -s leaf` of the same
 * file: each instruction's share of the function's samples to 0.01 points (perf prints two
 * decimals), the same addresses.
 */
static void compare_annotate(const struct pv_profile *p, const char *dir, const char *what)
{
	if (run("cd '%s' && perf annotate -i mix.data --stdio -s leaf > annotate.txt 2>/dev/null",
		dir) != 0) {
		t_fail(__FILE__, __LINE__, "perf annotate failed in %s", dir);
		return;
	}
	char path[256];
	snprintf(path, sizeof(path), "%s/annotate.txt", dir);
	size_t len;
	char *text = t_read_file(path, &len);
	uint8_t *mark = calloc(p->funcs.len, 1);
	for (pv_func_ix f = 0; f < p->funcs.len; f++) {
		pv_module_ix m = pv_func_module(p, f);
		mark[f] = strcmp(pv_str(p, p->funcs.name[f]), "leaf") == 0 && m != PV_NONE &&
			  strcmp(pv_str(p, p->modules.name[m]), "prog") == 0;
	}
	struct pv_query q;
	pv_query_init(&q);
	struct pv_disasm *d = NULL;
	struct pv_error err;
	T_EQ_INT(pv_disasm_funcs(p, &q, mark, NULL, &d, &err), 0);
	int64_t total = 0;
	for (uint32_t i = 0; d && i < d->n; i++)
		total += d->insn[i].self;
	T_TRUE(total > 0);
	/* perf's block "... Disassembly of prog for cpu-clock ...": "  12.50 :   1220:   add ..."
	 */
	uint32_t compared = 0, in_block = 0;
	for (char *l = text ? strtok(text, "\n") : NULL; l; l = strtok(NULL, "\n")) {
		if (strstr(l, "Percent |")) {
			in_block = strstr(l, "Disassembly of prog for") != NULL;
			continue;
		}
		double pct;
		unsigned long long a;
		if (!in_block || sscanf(l, " %lf : %llx:", &pct, &a) != 2)
			continue;
		double mine = -1;
		for (uint32_t i = 0; d && i < d->n; i++)
			if (d->insn[i].addr == a)
				mine =
				    100.0 * (double)d->insn[i].self / (double)(total ? total : 1);
		if (mine < 0 || mine - pct > 0.006 || pct - mine > 0.006)
			t_fail(__FILE__, __LINE__,
			       "%s: leaf at %llx: perf annotate %.2f%%, profview %.4f%%", what, a,
			       pct, mine);
		compared++;
	}
	T_TRUE(compared >= 10);
	printf("# annotate of %s against perf annotate: %u instructions of leaf\n", what, compared);
	pv_disasm_free(d);
	pv_query_release(&q);
	free(mark);
	free(text);
}

T_TEST(perf_data_matches_perf_script_and_report)
{
	bool kept;
	const char *dir = recording(&kept);
	char path[256], self[256], children[256];
	struct pv_profile *nat = load_data(dir, kept);
	snprintf(path, sizeof(path), "%s/mix.script.txt", dir);
	struct pv_profile *text = t_load_as(path, "perf-script");
	if (!nat || !text) {
		pv_profile_free(nat);
		pv_profile_free(text);
		return;
	}
	T_EQ_STR(pv_str(nat, nat->meta.format), "perf-data");
	T_TRUE(nat->samples.len > (kept ? 50u : 500u));
	compare_samples(text, nat, kept);
	/* perf script text keeps each sample's leaf address (issue 26.15): annotate from it */
	if (!kept)
		compare_annotate(text, dir, "perf script");
	/* the leaf addresses: every sample with a stack has one */
	uint32_t with = 0, stacked = 0;
	for (uint32_t s = 0; s < nat->samples.len; s++) {
		stacked += nat->samples.stack[s] != PV_NONE;
		with += pv_sample_addr(nat, s) != PV_ADDR_NONE;
	}
	T_EQ_INT(with, stacked);
	pv_profile_free(text);
	snprintf(path, sizeof(path), "%s/none", dir);
	snprintf(self, sizeof(self), "%s/mix.report-self.txt", dir);
	snprintf(children, sizeof(children), "%s/mix.report-children.txt", dir);
	if (!kept)
		compare_annotate(nat, dir, "perf.data");
	if (kept) /* other machines name other libraries otherwise: the samples only */
		pv_profile_free(nat);
	else
		compare_report_files("perf.data", nat, path, self, children, 50, NULL,
				     CMP_BOTH | CMP_LOOSE);
}

/*
 * A --call-graph dwarf recording made to say it was recorded on another architecture (its ARCH
 * feature section's "x86_64" made "aarch64"): no user stack is unwound (the x86_64 register
 * numbers would be wrong there), each such sample is counted in one lossy line naming the
 * reason, and its user part is the sampled address alone.
 */
static void dwarf_of_another_arch(const char *dir)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/dw.data", dir);
	size_t n = 0;
	unsigned char *b = (unsigned char *)t_read_file(path, &n);
	uint64_t d_off = 0, d_size = 0, feat = 0;
	if (b && n > 104) {
		memcpy(&d_off, b + 40, 8);
		memcpy(&d_size, b + 48, 8);
		memcpy(&feat, b + 72, 8);
	}
	/* HEADER_ARCH is feature bit 6: its entry is after those of the bits set below it */
	uint32_t ix = (uint32_t)__builtin_popcountll(feat & 0x3f);
	uint64_t at = d_off + d_size + 16ull * ix, off = 0;
	T_TRUE(b && (feat >> 6 & 1) && at + 16 <= n);
	if (!b || !(feat >> 6 & 1) || at + 16 > n) {
		free(b);
		return;
	}
	memcpy(&off, b + at, 8);
	T_TRUE(off + 4 + 8 <= n && memcmp(b + off + 4, "x86_64", 7) == 0);
	if (off + 4 + 8 <= n)
		memcpy(b + off + 4, "aarch64", 8);
	snprintf(path, sizeof(path), "%s/arch.data", dir);
	FILE *f = fopen(path, "wb");
	T_TRUE(f && fwrite(b, 1, n, f) == n);
	if (f)
		fclose(f);
	free(b);
	struct pv_import_opts o = {.format = "perf-data"};
	struct pv_profile *p = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_open(path, &o, &p, &err, NULL), 0);
	uint64_t lossy = 0;
	for (uint32_t d = 0; p && d < p->diags.len; d++)
		if (strstr(pv_str(p, p->diags.msg[d]),
			   "not unwound, their user part the sampled address alone: registers of "
			   "another architecture than x86_64"))
			lossy = p->diags.count[d];
	/* every sample had a user stack (the program's, in user space or the kernel) */
	T_TRUE(p && lossy > 100 && lossy <= p->samples.len);
	/* no sample has a caller in prog: the user part is one frame */
	uint32_t callers = 0;
	static char x[65536];
	for (uint32_t k = 0; p && k < p->samples.len; k++) {
		stack_text(p, p->samples.stack[k], false, x, sizeof(x));
		const char *first = strstr(x, "[prog]; ");
		callers += first && strstr(first + 1, "[prog]; ");
	}
	T_EQ_INT(callers, 0);
	printf("# dwarf samples of another architecture: %llu counted lossy of %u\n",
	       (unsigned long long)lossy, p ? p->samples.len : 0);
	pv_profile_free(p);
}

/*
 * --call-graph dwarf: prog.c built now without frame pointers (-fomit-frame-pointer: only its
 * CFI says where callers are), recorded with `perf record --call-graph dwarf`, its user stacks
 * unwound by libdwfl: every sample's stack, frame by frame, as `perf script --ns` prints it for
 * the same file (prog's frames by name, other modules' by module), with the functions DWARF says
 * are inlined at each unwound address as perf script shows them (mid, inlined into rec); and the
 * unwinding reaches main from leaf through mid and rec; the same file said to be of another
 * architecture unwinds nothing and says so (dwarf_of_another_arch). Skipped, said, where perf
 * cannot record.
 */
T_TEST(perf_data_dwarf_unwound_as_perf_script)
{
	char dir[64];
	if (!temp_dir(dir, "dwarf"))
		return;
	if (run("perf record -q -e cpu-clock --call-graph dwarf -o %s/probe.data -- true "
		">/dev/null 2>&1",
		dir) != 0) {
		skip_unpermitted(dir,
				 "perf_data_dwarf_unwound_as_perf_script (--call-graph dwarf)");
		return;
	}
	int rc = run("cd %s && gcc -O2 -g -fomit-frame-pointer -o prog %s/perf-data/prog.c && "
		     "HOME=%s perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o dw.data "
		     "-- ./prog 20000 6000 >/dev/null 2>perf.err && "
		     "HOME=%s perf script --ns -i dw.data > dw.script.txt 2>/dev/null",
		     dir, T_DATA, dir, dir);
	T_EQ_INT(rc, 0);
	char path[256];
	snprintf(path, sizeof(path), "%s/dw.data", dir);
	struct pv_import_opts o = {.format = "perf-data"};
	struct pv_profile *nat = NULL;
	struct pv_error err;
	if (!rc)
		T_EQ_INT(pv_import_open(path, &o, &nat, &err, NULL), 0);
	snprintf(path, sizeof(path), "%s/dw.script.txt", dir);
	struct pv_profile *text = rc ? NULL : t_load_as(path, "perf-script");
	if (nat && text) {
		T_TRUE(nat->samples.len > 100);
		allow_dwarf_differ = true;
		compare_samples(text, nat, true);
		allow_dwarf_differ = false;
		T_TRUE(rare(dwarf_differ, nat->samples.len, 100));
		printf("# --call-graph dwarf: %u samples of %u unlike perf script's\n",
		       dwarf_differ, nat->samples.len);
		/* leaf's samples reach main through mid (its two calls of leaf inlined or not)
		 * and rec: the frames a frame-pointer walk could not find */
		uint32_t leaf = 0, to_main = 0;
		static char x[65536];
		for (uint32_t k = 0; k < nat->samples.len; k++) {
			stack_text(nat, nat->samples.stack[k], false, x, sizeof(x));
			if (strncmp(x, "leaf [prog]; ", 13) != 0)
				continue;
			leaf++;
			to_main += strncmp(x, "leaf [prog]; mid [prog]; rec [prog]; rec [prog]; ",
					   49) == 0 &&
				   strstr(x, "main [prog]; ");
		}
		T_TRUE(leaf > 50);
		T_TRUE(to_main * 10 >= leaf * 9);
		/* mid is an inlined frame (inline depth 1) */
		pv_func_ix mid = t_find_func(nat, "mid");
		bool mid_inline = false;
		for (pv_frame_ix f = 0; mid != PV_NONE && f < nat->frames.len; f++)
			mid_inline |=
			    nat->frames.func[f] == mid && pv_frame_inline_depth(nat, f) == 1;
		T_TRUE(mid_inline);
		printf("# --call-graph dwarf: %u samples in leaf, %u of them unwound to main\n",
		       leaf, to_main);
		dwarf_of_another_arch(dir);
	}
	pv_profile_free(nat);
	pv_profile_free(text);
	run("rm -rf '%s'", dir);
}

/* `addr2line`'s "file.c:12" of address a of path, the file by its base name ("" when none). */
static void addr2line_line(const char *path, uint64_t a, char *out, size_t cap)
{
	char cmd[512], buf[1024] = "";
	snprintf(cmd, sizeof(cmd), "addr2line -e '%s' 0x%llx 2>/dev/null", path,
		 (unsigned long long)a);
	FILE *f = popen(cmd, "r");
	out[0] = 0;
	if (f && fgets(buf, (int)sizeof(buf), f)) {
		buf[strcspn(buf, " \n")] = 0;
		const char *sl = strrchr(buf, '/');
		if (!strstr(buf, "?"))
			snprintf(out, cap, "@%s", sl ? sl + 1 : buf);
	}
	if (f)
		pclose(f);
}

/*
 * Where perf cannot record: every sample of the kept recording whose leaf is in prog has the
 * source line addr2line gives for its address (samples.addr), and there are such samples.
 */
static void srclines_of_kept_recording(void)
{
	const char *dir = T_DATA "/perf-data";
	struct pv_profile *p = load_data(dir, true);
	uint32_t checked = 0;
	for (uint32_t k = 0; p && k < p->samples.len; k++) {
		pv_stack_ix st = p->samples.stack[k];
		uint64_t a = pv_sample_addr(p, k);
		if (st == PV_NONE || a == PV_ADDR_NONE)
			continue;
		pv_frame_ix fr = p->stacks.frame[st];
		pv_module_ix m = pv_func_module(p, p->frames.func[fr]);
		const char *mn = m == PV_NONE ? "" : pv_str(p, p->modules.name[m]);
		if (strcmp(mn, "prog") != 0 && strcmp(mn, "prog-cpp") != 0)
			continue;
		char want[300], got[300];
		char bin[256];
		snprintf(bin, sizeof(bin), "%s/%s", dir, mn);
		addr2line_line(bin, a, want, sizeof(want));
		frame_srcline(p, fr, got, sizeof(got));
		T_EQ_STR(got, want);
		checked++;
	}
	T_TRUE(checked >= 20);
	printf("# kept recording: %u samples in prog and prog-cpp at addr2line's source line\n",
	       checked);
	pv_profile_free(p);
}

/* The recording dir/NAME.data against dir/NAME.txt (perf script --ns -F +srcline), with lines. */
static void compare_srclines(const char *dir, const char *name, bool dwarf)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s.data", dir, name);
	struct pv_import_opts o = {.format = "perf-data"};
	struct pv_profile *nat = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_open(path, &o, &nat, &err, NULL), 0);
	snprintf(path, sizeof(path), "%s/%s.txt", dir, name);
	struct pv_profile *text = t_load_as(path, "perf-script");
	if (nat && text) {
		show_lines = true;
		allow_dwarf_differ = dwarf;
		dwarf_differ = 0;
		compare_samples(text, nat, true);
		T_TRUE(rare(dwarf_differ, nat->samples.len, 100));
		allow_dwarf_differ = show_lines = false;
		/* leaf's line is one of its loop's, from the perf.data's own DWARF lookup */
		uint32_t at_line = 0;
		for (pv_frame_ix f = 0; f < nat->frames.len; f++) {
			char sl[300];
			frame_srcline(nat, f, sl, sizeof(sl));
			at_line += strcmp(pv_str(nat, nat->funcs.name[nat->frames.func[f]]),
					  "leaf") == 0 &&
				   (strcmp(sl, "@prog.c:10") == 0 || strcmp(sl, "@prog.c:11") == 0);
		}
		T_TRUE(at_line > 0);
	}
	pv_profile_free(nat);
	pv_profile_free(text);
}

/*
 * Source lines from DWARF (perf script's srcline): prog.c built with -g, recorded with -g (frame
 * pointers: callers at their return addresses) and with --call-graph dwarf (callers at the call
 * instruction, inlined frames each at its own line, the holder at the call of the outermost
 * one); every sample's stack, frame by frame, with each frame's file (base name) and line, as
 * `perf script --ns -F +srcline` prints them. Where perf cannot record: the kept recording's
 * samples in prog against addr2line.
 */
T_TEST(perf_data_srclines_as_perf_script)
{
	char dir[64];
	if (!temp_dir(dir, "srcline"))
		return;
	if (run("perf record -q -e cpu-clock --call-graph dwarf -o %s/probe.data -- true "
		">/dev/null 2>&1",
		dir) != 0) {
		printf("# perf record is not permitted here (perf missing, or "
		       "kernel.perf_event_paranoid): source lines of the kept recording against "
		       "addr2line\n");
		run("rm -rf '%s'", dir);
		srclines_of_kept_recording();
		return;
	}
	int rc = run("cd %s && gcc -O2 -g -fno-omit-frame-pointer -o prog %s/perf-data/prog.c && "
		     "HOME=%s perf record -q -e cpu-clock -F 2000 -g -o fp.data "
		     "-- ./prog 20000 3000 >/dev/null 2>perf.err && "
		     "HOME=%s perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o dw.data "
		     "-- ./prog 20000 3000 >/dev/null 2>>perf.err && "
		     "HOME=%s perf script --ns -F +srcline -i fp.data > fp.txt 2>/dev/null && "
		     "HOME=%s perf script --ns -F +srcline -i dw.data > dw.txt 2>/dev/null",
		     dir, T_DATA, dir, dir, dir, dir);
	T_EQ_INT(rc, 0);
	if (!rc) {
		compare_srclines(dir, "fp", false);
		compare_srclines(dir, "dw", true);
	}
	run("rm -rf '%s'", dir);
	srclines_of_kept_recording();
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Each marker of p as "time name payload", sorted, into out (n of them; free each and out). */
static char **marker_lines(const struct pv_profile *p, uint32_t *n)
{
	const struct pv_raw_markers *m = &p->markers;
	char **out = calloc(m->len + 1, sizeof(*out));
	for (uint32_t i = 0; out && i < m->len; i++) {
		const char *pl = m->payload[i] ? pv_str(p, m->payload[i]) : "";
		size_t len = strlen(pl) + 256;
		out[i] = malloc(len);
		if (out[i])
			snprintf(out[i], len, "%lld %s %s", (long long)m->start_ns[i],
				 pv_str(p, m->name[i]), pl);
	}
	if (out)
		qsort(out, m->len, sizeof(*out), str_cmp);
	*n = out ? m->len : 0;
	return out;
}

/*
 * Tracepoints: the perf.data dir/NAME.data's markers, their fields decoded from the file's
 * tracing data (the events' formats), against the perf script importer's of dir/NAME.txt
 * (perf script --ns of the same file: the fields as perf prints them): the same markers, times,
 * names and payloads, none undecoded. The number of markers in *n.
 */
static void compare_tracepoints(const char *data, const char *txt, uint32_t *n)
{
	struct pv_import_opts o = {.format = "perf-data"};
	struct pv_profile *nat = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_open(data, &o, &nat, &err, NULL), 0);
	/* named: a text of tracepoints alone is not probed as perf script */
	struct pv_import_opts ot = {.format = "perf-script"};
	struct pv_profile *text = NULL;
	T_EQ_INT(pv_import_open(txt, &ot, &text, &err, NULL), 0);
	*n = 0;
	if (!nat || !text) {
		pv_profile_free(nat);
		pv_profile_free(text);
		return;
	}
	uint32_t na, nb;
	char **a = marker_lines(nat, &na), **b = marker_lines(text, &nb);
	T_EQ_INT(na, nb);
	for (uint32_t i = 0; i < na && i < nb; i++)
		T_EQ_STR(a[i], b[i]);
	for (uint32_t d = 0; d < nat->diags.len; d++)
		T_TRUE(!strstr(pv_str(nat, nat->diags.msg[d]), "tracepoint"));
	for (uint32_t i = 0; i < na; i++)
		free(a[i]);
	for (uint32_t i = 0; i < nb; i++)
		free(b[i]);
	free(a);
	free(b);
	*n = na;
	pv_profile_free(nat);
	pv_profile_free(text);
}

/*
 * Tracepoint payloads: the kept tp.data (four sched events of a shell run, README.md) against its
 * perf script text, two payloads by hand; then, where perf may record tracepoints (root or
 * kernel.perf_event_paranoid -1), a recording made now the same way.
 */
T_TEST(perf_data_tracepoint_fields_as_perf_script)
{
	uint32_t n = 0;
	compare_tracepoints(T_DATA "/perf-data/tp.data", T_DATA "/perf-data/tp.script.txt", &n);
	T_EQ_INT(n, 26);
	struct pv_import_opts o = {.format = "perf-data"};
	struct pv_profile *p = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_open(T_DATA "/perf-data/tp.data", &o, &p, &err, NULL), 0);
	uint32_t hand = 0;
	for (uint32_t i = 0; p && i < p->markers.len; i++) {
		const char *pl = pv_str(p, p->markers.payload[i]);
		hand +=
		    strcmp(pl, "{\"filename\":\"/usr/bin/ls\",\"pid\":21543,\"old_pid\":21543}") ==
		    0;
		hand += strcmp(pl, "{\"comm\":\"ls\",\"pid\":21543,\"prio\":120,\"group_dead\":"
				   "\"true\"}") == 0;
	}
	T_EQ_INT(hand, 2);
	pv_profile_free(p);
	char dir[64];
	if (!temp_dir(dir, "tp"))
		return;
	if (run("cd %s && perf record -q -e sched:sched_process_exec -e sched:sched_process_fork "
		"-e sched:sched_process_exit -e sched:sched_switch -o tp.data -- sh -c "
		"'ls / >/dev/null; echo x | cat >/dev/null' >/dev/null 2>&1 && "
		"perf script --ns -i tp.data > tp.txt 2>/dev/null",
		dir) != 0) {
		printf("# SKIP recording tracepoints now: not permitted here (perf missing, or "
		       "kernel.perf_event_paranoid above -1 for a user)\n");
	} else {
		char data[128], txt[128];
		snprintf(data, sizeof(data), "%s/tp.data", dir);
		snprintf(txt, sizeof(txt), "%s/tp.txt", dir);
		compare_tracepoints(data, txt, &n);
		T_TRUE(n >= 6); /* 3 execs, 3 exits at least */
		printf("# tracepoints recorded now: %u markers as perf script prints them\n", n);
	}
	run("rm -rf '%s'", dir);
}

/*
 * The pipe form (perf record -o -) and zstd-compressed records (perf record -z), recorded of the
 * kept prog (user space): every sample as perf script --ns prints it.
 */
T_TEST(perf_data_pipe_and_compressed)
{
	static const char *const names[] = {"pipe", "zstd"};
	for (int i = 0; i < 2; i++) {
		char path[256];
		struct pv_import_opts o = {.format = "perf-data", .nr_symbol_dirs = 1};
		o.symbol_dirs[0] = T_DATA "/perf-data";
		struct pv_profile *nat = NULL;
		struct pv_error err;
		snprintf(path, sizeof(path), "%s/perf-data/%s.data", T_DATA, names[i]);
		T_EQ_INT(pv_import_open(path, &o, &nat, &err, NULL), 0);
		snprintf(path, sizeof(path), "%s/perf-data/%s.script.txt", T_DATA, names[i]);
		struct pv_profile *text = t_load_as(path, "perf-script");
		if (nat && text) {
			T_TRUE(nat->samples.len > 80);
			compare_samples(text, nat, true);
			/* prog's own frames are named (kept mode compares them) */
			T_TRUE(t_find_func(nat, "leaf") != PV_NONE);
		}
		pv_profile_free(nat);
		pv_profile_free(text);
	}
}

/*
 * --no-symbols: the kept recording's frames of prog are "[prog]" (its module, as perf script
 * names an address it has no symbol for), none of its functions is named; with the binaries'
 * folder leaf is. The feature sections not read are named in one lossy line.
 */
T_TEST(perf_data_no_symbols)
{
	struct pv_import_opts o = {.format = "perf-data", .nr_symbol_dirs = 1};
	o.symbol_dirs[0] = T_DATA "/perf-data";
	struct pv_profile *named = NULL, *bare = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_open(T_DATA "/perf-data/mix.data", &o, &named, &err, NULL), 0);
	o.no_symbols = true;
	T_EQ_INT(pv_import_open(T_DATA "/perf-data/mix.data", &o, &bare, &err, NULL), 0);
	if (named && bare) {
		T_TRUE(t_find_func(named, "leaf") != PV_NONE);
		T_TRUE(t_find_func(bare, "leaf") == PV_NONE);
		T_TRUE(t_find_func(bare, "[prog]") != PV_NONE);
		T_EQ_INT(bare->samples.len, named->samples.len);
		/* every function of prog is its module's name alone */
		uint32_t in_prog = 0, other = 0;
		for (pv_func_ix f = 0; f < bare->funcs.len; f++) {
			pv_module_ix m = pv_func_module(bare, f);
			if (m == PV_NONE || strcmp(pv_str(bare, bare->modules.name[m]), "prog"))
				continue;
			in_prog++;
			other += strcmp(pv_str(bare, bare->funcs.name[f]), "[prog]") != 0;
		}
		T_TRUE(in_prog >= 1);
		T_EQ_INT(other, 0);
		/* the feature sections not read are named */
		int said = 0;
		for (uint32_t i = 0; i < bare->diags.len; i++)
			said += strstr(pv_str(bare, bare->diags.msg[i]),
				       "feature sections not read: NRCPUS, CPUID, TOTAL_MEM, "
				       "CPU_TOPOLOGY, NUMA_TOPOLOGY") != NULL;
		T_EQ_INT(said, 1);
	}
	pv_profile_free(named);
	pv_profile_free(bare);
}

/*
 * Two events in one recording (cpu-clock and task-clock, recorded now; skipped, said, where perf
 * may not record): two metrics, each with as many samples as perf script prints of its event.
 */
T_TEST(perf_data_two_events_two_metrics)
{
	char dir[64];
	if (!temp_dir(dir, "events"))
		return;
	if (run("cd %s && gcc -O2 -g -o prog %s/perf-data/prog.c && HOME=%s perf record -q -e "
		"cpu-clock -e task-clock -g -F 2000 -o ev.data -- ./prog 20000 6000 >/dev/null "
		"2>&1 && perf script -i ev.data -F event > ev.txt 2>/dev/null",
		dir, T_DATA, dir) != 0) {
		skip_unpermitted(dir, "perf_data_two_events_two_metrics");
		return;
	}
	char path[96];
	snprintf(path, sizeof(path), "%s/ev.txt", dir);
	size_t len;
	char *txt = t_read_file(path, &len);
	uint32_t want[2] = {0, 0};
	for (char *l = txt ? strtok(txt, "\n") : NULL; l; l = strtok(NULL, "\n")) {
		want[0] += strstr(l, "cpu-clock:") != NULL;
		want[1] += strstr(l, "task-clock:") != NULL;
	}
	free(txt);
	snprintf(path, sizeof(path), "%s/ev.data", dir);
	struct pv_profile *p = t_load_as(path, "perf-data");
	T_TRUE(p && p->metrics.len == 2);
	if (p && p->metrics.len == 2) {
		T_EQ_STR(pv_str(p, p->metrics.name[0]), "cpu-clock");
		T_EQ_STR(pv_str(p, p->metrics.name[1]), "task-clock");
		uint32_t got[2] = {0, 0};
		for (uint32_t k = 0; k < p->samples.len; k++)
			for (int m = 0; m < 2; m++)
				got[m] += pv_sample_weight(p, (pv_metric_ix)m, k) != 0;
		T_TRUE(want[0] > 50 && want[1] > 50);
		T_EQ_INT(got[0], want[0]);
		T_EQ_INT(got[1], want[1]);
		printf("# two events: %u and %u samples as perf script prints them\n", got[0],
		       got[1]);
	}
	pv_profile_free(p);
	run("rm -rf '%s'", dir);
}

/*
 * The kept recording with its whole data section in COMPRESSED records (one zstd stream cut
 * every 2,000 bytes, as bench/perf_data_grow.py --zstd writes it every 65,000): its FINISHED_ROUND
 * records inflated among the samples (perf writes them outside), records cut between two COMPRESSED
 * records, and a record that inflates to more than the first output buffer. The same samples
 * and stacks as the file itself.
 */
T_TEST(perf_data_rounds_inside_compressed)
{
	enum { PIECE = 2000 }; /* mix.data's 75 KB of records compress to 14 KB */
	size_t len;
	unsigned char *b = (unsigned char *)t_read_file(T_DATA "/perf-data/mix.data", &len);
	uint64_t d_off = 0, d_size = 0;
	if (b && len > 104) {
		memcpy(&d_off, b + 40, 8);
		memcpy(&d_size, b + 48, 8);
	}
	T_TRUE(b && d_off + d_size <= len);
	if (!b || d_off + d_size > len) {
		free(b);
		return;
	}
	size_t zcap = ZSTD_compressBound(d_size);
	unsigned char *z = malloc(zcap);
	size_t zn = ZSTD_compress(z, zcap, b + d_off, d_size, 3);
	T_TRUE(!ZSTD_isError(zn));
	/* header and attributes, the COMPRESSED records, the feature sections moved after them */
	size_t pieces = (zn + PIECE - 1) / PIECE,
	       out_n = d_off + zn + 8 * pieces + (len - d_off - d_size);
	unsigned char *o = malloc(out_n), *w = o + d_off;
	memcpy(o, b, d_off);
	for (size_t i = 0; i < zn; i += PIECE) {
		uint32_t type = 81;
		uint16_t misc = 0, sz = (uint16_t)(8 + (zn - i < PIECE ? zn - i : PIECE));
		memcpy(w, &type, 4);
		memcpy(w + 4, &misc, 2);
		memcpy(w + 6, &sz, 2);
		memcpy(w + 8, z + i, sz - 8u);
		w += sz;
	}
	uint64_t new_size = (uint64_t)(w - o) - d_off, delta = new_size - d_size;
	memcpy(w, b + d_off + d_size, len - d_off - d_size);
	memcpy(o + 48, &new_size, 8);
	/* the feature table's offsets move by the change of the data section's size */
	uint64_t feat[4];
	memcpy(feat, b + 72, sizeof(feat));
	uint32_t nf = 0;
	for (int i = 0; i < 4; i++)
		nf += (uint32_t)__builtin_popcountll(feat[i]);
	for (uint32_t i = 0; i < nf; i++) {
		uint64_t off;
		memcpy(&off, w + 16 * i, 8);
		off += delta;
		memcpy(w + 16 * i, &off, 8);
	}
	struct pv_import_opts opt = {.format = "perf-data", .nr_symbol_dirs = 1};
	opt.symbol_dirs[0] = T_DATA "/perf-data";
	struct pv_profile *plain = NULL, *zp = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_open(T_DATA "/perf-data/mix.data", &opt, &plain, &err, NULL), 0);
	char path[64];
	snprintf(path, sizeof(path), "/tmp/pv-mixz-%d.data", (int)getpid());
	FILE *f = fopen(path, "wb");
	T_TRUE(f && fwrite(o, 1, out_n, f) == out_n);
	if (f)
		fclose(f);
	T_EQ_INT(pv_import_open(path, &opt, &zp, &err, NULL), 0);
	unlink(path);
	if (plain && zp) {
		T_TRUE(pieces >= 2);
		T_EQ_INT(zp->samples.len, plain->samples.len);
		static char x[65536], y[65536];
		uint32_t differ = 0;
		for (uint32_t k = 0; k < plain->samples.len && k < zp->samples.len; k++) {
			stack_text(plain, plain->samples.stack[k], true, x, sizeof(x));
			stack_text(zp, zp->samples.stack[k], true, y, sizeof(y));
			differ +=
			    strcmp(x, y) != 0 || pv_sample_time(plain, k) != pv_sample_time(zp, k);
		}
		T_EQ_INT(differ, 0);
	}
	pv_profile_free(plain);
	pv_profile_free(zp);
	free(o);
	free(z);
	free(b);
}

/*
 * Every cut and many mutations of the kept recording import to a valid profile or fail with one
 * line naming the file and a byte; the positioned errors of a few made-up damages.
 */
T_TEST(perf_data_damage)
{
	size_t len;
	char *buf = t_read_file(T_DATA "/perf-data/mix.data", &len);
	T_TRUE(buf != NULL);
	if (!buf)
		return;
	static uint64_t rng = 0x2545f4914f6cdd1dULL;
	static const char *const formats[] = {NULL, "perf-data"};
	const struct t_damage d = {formats, 2, 120, "perf-data", 300, "\x01\x08\xff\x7f\x40\x10",
				   &rng};
	t_damage("mix.data", buf, len, &d);
	struct pv_profile *p = NULL;
	struct pv_error err;
	/* the header cut inside */
	T_EQ_INT(pv_import_memory("h.data", buf, 60, "perf-data", &p, &err), PV_EPARSE);
	T_CONTAINS(err.msg, "h.data: byte 0: a perf.data header of 60 bytes (104 expected");
	/* the data section's size past the end */
	char *c = malloc(len);
	memcpy(c, buf, len);
	uint64_t big = (uint64_t)len * 2;
	memcpy(c + 48, &big, 8);
	T_EQ_INT(pv_import_memory("d.data", c, len, NULL, &p, &err), PV_EPARSE);
	T_CONTAINS(err.msg, "d.data: byte 40: the data section");
	T_CONTAINS(err.msg, "is past the end of the file");
	/* a record claiming 4 bytes */
	memcpy(c, buf, len);
	uint64_t data_off;
	memcpy(&data_off, buf + 40, 8);
	uint16_t four = 4;
	memcpy(c + data_off + 6, &four, 2);
	T_EQ_INT(pv_import_memory("r.data", c, len, NULL, &p, &err), PV_EPARSE);
	char want[128];
	snprintf(want, sizeof(want), "r.data: byte %llu: a record of type ",
		 (unsigned long long)data_off);
	T_CONTAINS(err.msg, want);
	T_CONTAINS(err.msg, "claims 4 bytes");
	free(c);
	free(buf);
}

/*
 * perf script's [unknown] frames named from the machine's binaries (the symbolizer shared with
 * perf.data): prog-stripped's frames (built without a build id, so perf finds no other file),
 * [unknown] in perf script's text, named from the unstripped build given with --symbols, are
 * the names the perf.data import gives them with the same folder, sample by sample.
 */
T_TEST(perf_script_unknown_frames_named)
{
	bool kept;
	const char *dir = recording(&kept);
	if (kept) {
		printf("# perf record is not permitted here: [unknown] frames not checked\n");
		return;
	}
	T_EQ_INT(run("mkdir -p '%s/syms' && cp '%s/prog' '%s/syms/prog-stripped'", dir, dir, dir),
		 0);
	char syms[256], path[256];
	snprintf(syms, sizeof(syms), "%s/syms", dir);
	struct pv_import_opts o = {.format = "perf-script", .nr_symbol_dirs = 1};
	o.symbol_dirs[0] = syms;
	struct pv_profile *text = NULL, *nat = NULL;
	struct pv_error err;
	snprintf(path, sizeof(path), "%s/mix.script.txt", dir);
	T_EQ_INT(pv_import_open(path, &o, &text, &err, NULL), 0);
	o.format = "perf-data";
	snprintf(path, sizeof(path), "%s/mix.data", dir);
	T_EQ_INT(pv_import_open(path, &o, &nat, &err, NULL), 0);
	if (!text || !nat) {
		pv_profile_free(text);
		pv_profile_free(nat);
		return;
	}
	compare_samples(text, nat, false);
	/* leaf is named in prog-stripped now, and the report says so */
	int leaf = 0;
	for (pv_func_ix f = 0; f < text->funcs.len; f++) {
		pv_module_ix m = pv_func_module(text, f);
		leaf += m != PV_NONE && strcmp(pv_str(text, text->funcs.name[f]), "leaf") == 0 &&
			strcmp(pv_str(text, text->modules.name[m]), "prog-stripped") == 0;
	}
	T_EQ_INT(leaf, 1);
	int said = 0;
	for (uint32_t i = 0; i < text->diags.len; i++)
		said +=
		    strstr(pv_str(text, text->diags.msg[i]), "printed as [unknown] in ") != NULL &&
		    strstr(pv_str(text, text->diags.msg[i]), "prog-stripped named") != NULL;
	T_EQ_INT(said, 1);
	pv_profile_free(text);
	pv_profile_free(nat);
}

/*
 * profview record: perf record on a command, then its top (the test's own program: its leaf()
 * among the rows); without a command, or without perf on the PATH, one line and exit 2.
 */
T_TEST(perf_data_record_command)
{
	char out[512];
	snprintf(out, sizeof(out), "/tmp/pv-record-%d", (int)getpid());
	T_EQ_INT(run("'%s' record >/dev/null 2>%s.err", T_PROFVIEW, out), 2);
	size_t len;
	snprintf(out + strlen(out), 8, ".err");
	char *e = t_read_file(out, &len);
	T_TRUE(e && strstr(e, "no command to run"));
	free(e);
	T_EQ_INT(run("PATH=/nonexistent '%s' record -- true >/dev/null 2>%s", T_PROFVIEW, out), 2);
	e = t_read_file(out, &len);
	T_TRUE(e && strstr(e, "perf not found (Debian package linux-perf)"));
	free(e);
	unlink(out);
	bool kept;
	const char *dir = recording(&kept);
	if (kept) {
		printf("# perf record is not permitted here: profview record not run\n");
		return;
	}
	out[strlen(out) - 4] = 0;
	T_EQ_INT(run("cd '%s' && '%s' record -o %s.data -- ./prog 2000 3000 >%s.top 2>/dev/null",
		     dir, T_PROFVIEW, out, out),
		 0);
	snprintf(out + strlen(out), 8, ".top");
	char *top = t_read_file(out, &len);
	T_TRUE(top && strstr(top, "# metric: cpu-clock"));
	T_TRUE(top && strstr(top, "  leaf  [prog]"));
	T_TRUE(top && strstr(top, "  rec  [prog]"));
	free(top);
	unlink(out);
	out[strlen(out) - 4] = 0;
	snprintf(out + strlen(out), 8, ".data");
	unlink(out);
}

/* ---------------------------------------------------------------- pprof without names */

#include "profile.pb-c.h"

/* `nm`'s address of symbol name in path, 0 when none. */
static uint64_t nm_addr(const char *path, const char *name)
{
	char cmd[512], line[256];
	snprintf(cmd, sizeof(cmd), "nm '%s' 2>/dev/null", path);
	FILE *f = popen(cmd, "r");
	uint64_t a = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long v;
		char t, n[200];
		if (sscanf(line, "%llx %c %199s", &v, &t, n) == 3 && strcmp(n, name) == 0)
			a = v;
	}
	if (f)
		pclose(f);
	return a;
}

/* `addr2line -f`'s function name for address a of path ("" when none). */
static void addr2line_func(const char *path, uint64_t a, char *out, size_t cap)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "addr2line -f -e '%s' 0x%llx 2>/dev/null", path,
		 (unsigned long long)a);
	FILE *f = popen(cmd, "r");
	out[0] = 0;
	if (f && fgets(out, (int)cap, f))
		out[strcspn(out, "\n")] = 0;
	if (f)
		pclose(f);
}

static char built_dir[64];

static void remove_built_dir(void)
{
	if (built_dir[0])
		run("rm -rf '%s'", built_dir);
}

/*
 * tests/data/perf-data/prog.c built now with gcc (-O2 -g, a build id) into a temporary folder:
 * the binary the pprof, Gecko and HPCToolkit profiles below point into; NULL when gcc fails.
 */
static const char *built_prog(void)
{
	static int state; /* 0 not tried, 1 built, 2 failed */
	static char path[96];
	if (!state) {
		state = 2;
		snprintf(built_dir, sizeof(built_dir), "/tmp/pv-symprog-XXXXXX");
		if (mkdtemp(built_dir) && !atexit(remove_built_dir) &&
		    run("gcc -O2 -g -o %s/prog %s/perf-data/prog.c", built_dir, T_DATA) == 0)
			state = 1;
		else
			t_fail(__FILE__, __LINE__, "gcc could not build prog.c in %s", built_dir);
		snprintf(path, sizeof(path), "%s/prog", built_dir);
	}
	return state == 1 ? path : NULL;
}

/* The build id of path as `readelf -n` prints it ("" when none). */
static void readelf_build_id(const char *path, char *out, size_t cap)
{
	char cmd[512], line[256];
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	FILE *f = popen(cmd, "r");
	out[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char *b = strstr(line, "Build ID: ");
		if (b && sscanf(b + 10, "%63s", out) != 1)
			out[0] = 0;
	}
	if (f)
		pclose(f);
	(void)cap;
}

/*
 * A pprof profile whose locations have addresses into prog.c built by the test (built_prog) and
 * no function (what a profiler without symbols writes): the names are nm's and addr2line's for
 * those addresses, through the mapping's build id; a mapping of the same file with another build
 * id keeps the addresses and says why.
 */
T_TEST(pprof_addresses_named_from_the_binary)
{
	const char *prog = built_prog();
	if (!prog)
		return;
	static const char *const syms[] = {"leaf", "rec", "main"};
	uint64_t at[3];
	for (int i = 0; i < 3; i++) {
		at[i] = nm_addr(prog, syms[i]);
		T_TRUE(at[i] != 0);
		char a2l[200];
		addr2line_func(prog, at[i] + 4, a2l, sizeof(a2l));
		T_EQ_STR(a2l, syms[i]);
	}
	char bid[64];
	readelf_build_id(prog, bid, sizeof(bid));
	T_TRUE(strlen(bid) == 40);
	const uint64_t base = 0x555555554000ull;
	ProtobufCBinaryData strs[] = {{0, (uint8_t *)""},
				      {7, (uint8_t *)"samples"},
				      {5, (uint8_t *)"count"},
				      {strlen(prog), (uint8_t *)prog},
				      {strlen(bid), (uint8_t *)bid},
				      {40, (uint8_t *)"0000000000000000000000000000000000000000"}};
	Perftools__Profiles__ValueType vt = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	vt.type = 1;
	vt.unit = 2;
	Perftools__Profiles__ValueType *vts[] = {&vt};
	Perftools__Profiles__Mapping m1 = PERFTOOLS__PROFILES__MAPPING__INIT,
				     m2 = PERFTOOLS__PROFILES__MAPPING__INIT;
	m1.id = 1;
	m1.memory_start = base;
	m1.memory_limit = base + 0x10000;
	m1.filename = 3;
	m1.build_id = 4;
	m2 = m1;
	m2.id = 2;
	m2.memory_start = m2.memory_limit = 0x7f0000000000ull;
	m2.memory_limit += 0x10000;
	m2.build_id = 5;
	Perftools__Profiles__Mapping *maps[] = {&m1, &m2};
	/* locations 1-3: leaf+4, rec+4, main+4 in mapping 1; 4: leaf+4 in mapping 2 */
	Perftools__Profiles__Location loc[4];
	Perftools__Profiles__Location *locs[4];
	for (int i = 0; i < 4; i++) {
		Perftools__Profiles__Location l = PERFTOOLS__PROFILES__LOCATION__INIT;
		loc[i] = l;
		loc[i].id = (uint64_t)i + 1;
		loc[i].mapping_id = i < 3 ? 1 : 2;
		loc[i].address = (i < 3 ? base + at[i] : m2.memory_start + at[0]) + 4;
		locs[i] = &loc[i];
	}
	uint64_t chain1[] = {1, 2, 3}, chain2[] = {4};
	int64_t v1[] = {5}, v2[] = {2};
	Perftools__Profiles__Sample s1 = PERFTOOLS__PROFILES__SAMPLE__INIT,
				    s2 = PERFTOOLS__PROFILES__SAMPLE__INIT;
	s1.n_location_id = 3;
	s1.location_id = chain1;
	s1.n_value = 1;
	s1.value = v1;
	s2.n_location_id = 1;
	s2.location_id = chain2;
	s2.n_value = 1;
	s2.value = v2;
	Perftools__Profiles__Sample *samples[] = {&s1, &s2};
	Perftools__Profiles__Profile pr = PERFTOOLS__PROFILES__PROFILE__INIT;
	pr.n_sample_type = 1;
	pr.sample_type = vts;
	pr.n_sample = 2;
	pr.sample = samples;
	pr.n_mapping = 2;
	pr.mapping = maps;
	pr.n_location = 4;
	pr.location = locs;
	pr.n_string_table = sizeof(strs) / sizeof(strs[0]);
	pr.string_table = strs;
	size_t len = perftools__profiles__profile__get_packed_size(&pr);
	uint8_t *buf = malloc(len);
	perftools__profiles__profile__pack(&pr, buf);
	struct pv_profile *p = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_memory("noname.pb", buf, len, "pprof", &p, &err), 0);
	free(buf);
	if (!p)
		return;
	/* sample 1's stack, leaf first: nm's names */
	T_EQ_INT(p->samples.len, 2);
	pv_stack_ix st = p->samples.stack[0];
	int depth = 0;
	for (; st != PV_NONE; st = p->stacks.prefix[st], depth++)
		if (depth < 3)
			T_EQ_STR(pv_str(p, p->funcs.name[p->frames.func[p->stacks.frame[st]]]),
				 syms[depth]);
	T_EQ_INT(depth, 3);
	/* sample 2: the other build id, its address kept */
	char want[40];
	snprintf(want, sizeof(want), "0x%llx", (unsigned long long)(m2.memory_start + at[0] + 4));
	st = p->samples.stack[1];
	T_EQ_STR(pv_str(p, p->funcs.name[p->frames.func[p->stacks.frame[st]]]), want);
	uint64_t n = 0;
	T_TRUE(t_diag(p, "named from this machine's binary", &n) != NULL);
	T_EQ_U64(n, 3);
	T_TRUE(t_diag(p, "not named: binary found, but its build id differs", &n) != NULL);
	T_EQ_U64(n, 1);
	pv_profile_free(p);
}

/* ---------------------------------------------------------------- Gecko native frames */

/*
 * A Gecko (raw) profile whose native frames are addresses into prog.c built by the test
 * (built_prog), its lib entry with the Breakpad id of its build id: the frames are named as nm
 * and addr2line name those addresses; a lib whose Breakpad id is another build's keeps the hex
 * name.
 */
T_TEST(gecko_native_frames_named_from_the_binary)
{
	const char *prog = built_prog();
	if (!prog)
		return;
	uint64_t leaf = nm_addr(prog, "leaf"), rec = nm_addr(prog, "rec");
	char a2l[200];
	addr2line_func(prog, leaf + 4, a2l, sizeof(a2l));
	T_EQ_STR(a2l, "leaf");
	addr2line_func(prog, rec + 4, a2l, sizeof(a2l));
	T_EQ_STR(a2l, "rec");
	char bid[64];
	readelf_build_id(prog, bid, sizeof(bid));
	T_TRUE(strlen(bid) == 40);
	/* the Breakpad id: the first 16 bytes as a GUID (fields 1-3 byte-swapped), age 0 */
	char bp[34];
	static const int order[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
	for (int i = 0; i < 16; i++) {
		bp[2 * i] = (char)toupper((unsigned char)bid[2 * order[i]]);
		bp[2 * i + 1] = (char)toupper((unsigned char)bid[2 * order[i] + 1]);
	}
	bp[32] = '0';
	bp[33] = 0;
	const unsigned long long base = 0x555555554000ull, other = 0x7f0000000000ull;
	char json[4096];
	snprintf(json, sizeof(json),
		 "{\"meta\":{\"version\":36,\"startTime\":5,\"interval\":1},"
		 "\"libs\":[{\"start\":%llu,\"end\":%llu,\"offset\":0,\"name\":\"prog\","
		 "\"path\":\"%s\",\"breakpadId\":\"%s\"},"
		 "{\"start\":%llu,\"end\":%llu,\"offset\":0,\"name\":\"prog\","
		 "\"path\":\"%s\",\"breakpadId\":\"00000000000000000000000000000000A\"}],"
		 "\"threads\":[{\"name\":\"T\",\"tid\":7,"
		 "\"samples\":{\"schema\":{\"stack\":0,\"time\":1},\"data\":[[1,0],[2,1]]},"
		 "\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},"
		 "\"data\":[[null,0],[0,1],[null,2]]},"
		 "\"frameTable\":{\"schema\":{\"location\":0},\"data\":[[0],[1],[2]]},"
		 "\"stringTable\":[\"0x%llx\",\"0x%llx\",\"0x%llx\"]}]}",
		 base, base + 0x10000, prog, bp, other, other + 0x10000, prog, base + rec + 4,
		 base + leaf + 4, other + leaf + 4);
	struct pv_profile *p = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_memory("native.json", json, strlen(json), "firefox-gecko", &p, &err), 0);
	if (!p)
		return;
	T_EQ_INT(p->samples.len, 2);
	pv_stack_ix st = p->samples.stack[0];
	T_TRUE(st != PV_NONE && p->stacks.prefix[st] != PV_NONE);
	if (st != PV_NONE && p->stacks.prefix[st] != PV_NONE) {
		T_EQ_STR(pv_str(p, p->funcs.name[p->frames.func[p->stacks.frame[st]]]), "leaf");
		st = p->stacks.prefix[st];
		T_EQ_STR(pv_str(p, p->funcs.name[p->frames.func[p->stacks.frame[st]]]), "rec");
	}
	char want[40];
	snprintf(want, sizeof(want), "0x%llx", other + leaf + 4);
	st = p->samples.stack[1];
	T_EQ_STR(pv_str(p, p->funcs.name[p->frames.func[p->stacks.frame[st]]]), want);
	uint64_t n = 0;
	T_TRUE(t_diag(p, "native addresses named from the libraries on this machine", &n) != NULL);
	T_EQ_U64(n, 2);
	T_TRUE(t_diag(p, "not named: binary found, but its build id differs", &n) != NULL);
	T_EQ_U64(n, 1);
	pv_profile_free(p);
}

/* ---------------------------------------------------------------- HPCToolkit addresses */

/* The names of sample i's stack, leaf first, "a;b;c". */
static void stack_names(const struct pv_profile *p, pv_stack_ix st, char *out, size_t cap)
{
	size_t n = 0;
	out[0] = 0;
	for (; st != PV_NONE && n + 1 < cap; st = p->stacks.prefix[st]) {
		int w = snprintf(out + n, cap - n, "%s%s", n ? ";" : "",
				 pv_str(p, p->funcs.name[p->frames.func[p->stacks.frame[st]]]));
		if (w < 0)
			break;
		n += (size_t)w;
	}
}

/*
 * An experiment.xml (HPCToolkit 2020-2022) whose procedures hpcprof could not name,
 * "<unknown procedure> 0xADDR [prog]", in a load module recorded at another path: with
 * --symbols naming the folder of prog.c built by the test, they are nm's and addr2line's names;
 * a module of no file keeps its name and says why; without --symbols nothing changes (a database
 * records no build id: the recorded path is never used).
 */
T_TEST(hpctoolkit_xml_unknown_procedures_named_from_symbols)
{
	const char *prog = built_prog();
	if (!prog)
		return;
	uint64_t leaf = nm_addr(prog, "leaf"), rec = nm_addr(prog, "rec");
	T_TRUE(leaf && rec);
	char xml[4096];
	snprintf(
	    xml, sizeof(xml),
	    "<?xml version=\"1.0\"?>\n<HPCToolkitExperiment version=\"2.2\">\n"
	    "<Header n=\"t\"><Info/></Header>\n<SecCallPathProfile i=\"0\" n=\"t\">\n"
	    "<SecHeader>\n<MetricTable>\n"
	    "<Metric i=\"0\" n=\"cycles:Sum (I)\" o=\"0\" v=\"derived-incr\" "
	    "t=\"inclusive\" partner=\"1\" show=\"1\" show-percent=\"1\"/>\n"
	    "<Metric i=\"1\" n=\"cycles:Sum (E)\" o=\"-1\" v=\"derived-incr\" "
	    "t=\"exclusive\" partner=\"0\" show=\"1\" show-percent=\"1\"/>\n"
	    "</MetricTable>\n<LoadModuleTable><LoadModule i=\"2\" n=\"/opt/elsewhere/prog\"/>"
	    "<LoadModule i=\"3\" n=\"/nonexistent/libz.so\"/></LoadModuleTable>\n"
	    "<FileTable><File i=\"4\" n=\"~unknown-file~\"/></FileTable>\n<ProcedureTable>\n"
	    "<Procedure i=\"5\" n=\"&lt;unknown procedure&gt; 0x%llx [prog]\" v=\"0\"/>\n"
	    "<Procedure i=\"6\" n=\"&lt;unknown procedure&gt; 0x%llx [prog]\" v=\"0\"/>\n"
	    "<Procedure i=\"7\" n=\"&lt;unknown procedure&gt; 0x1234 [libz.so]\" v=\"0\"/>\n"
	    "</ProcedureTable>\n</SecHeader>\n<SecCallPathProfileData>\n<M n=\"0\" v=\"10\"/>\n"
	    "<PF i=\"8\" s=\"5\" l=\"0\" lm=\"2\" f=\"4\" n=\"5\"><M n=\"0\" v=\"10\"/>"
	    "<M n=\"1\" v=\"1\"/>\n<C i=\"9\" s=\"5\" l=\"0\" v=\"0x10\"><M n=\"0\" v=\"9\"/>\n"
	    "<PF i=\"10\" s=\"6\" l=\"0\" lm=\"2\" f=\"4\" n=\"6\"><M n=\"0\" v=\"7\"/>"
	    "<M n=\"1\" v=\"7\"/></PF>\n"
	    "<PF i=\"11\" s=\"7\" l=\"0\" lm=\"3\" f=\"4\" n=\"7\"><M n=\"0\" v=\"2\"/>"
	    "<M n=\"1\" v=\"2\"/></PF>\n</C>\n</PF>\n</SecCallPathProfileData>\n"
	    "</SecCallPathProfile>\n</HPCToolkitExperiment>\n",
	    (unsigned long long)rec + 4, (unsigned long long)leaf + 4);
	char path[128];
	snprintf(path, sizeof(path), "%s/experiment.xml", built_dir);
	FILE *f = fopen(path, "w");
	T_TRUE(f != NULL);
	if (!f)
		return;
	fputs(xml, f);
	fclose(f);
	char a2l[200], want[400], got[400];
	addr2line_func(prog, rec + 4, a2l, sizeof(a2l));
	T_EQ_STR(a2l, "rec");
	addr2line_func(prog, leaf + 4, a2l, sizeof(a2l));
	T_EQ_STR(a2l, "leaf");
	for (int with = 0; with < 2; with++) {
		struct pv_import_opts o = {.format = "hpctoolkit-xml"};
		if (with) {
			o.symbol_dirs[0] = built_dir;
			o.nr_symbol_dirs = 1;
		}
		struct pv_profile *p = NULL;
		struct pv_error err;
		T_EQ_INT(pv_import_open(path, &o, &p, &err, NULL), 0);
		if (!p)
			return;
		/* the samples: leaf under rec (7), libz under rec (2), rec itself (1) */
		bool seen_leaf = false, seen_z = false;
		snprintf(want, sizeof(want), "%s;%s", with ? "leaf" : "", with ? "rec" : "");
		if (!with)
			snprintf(
			    want, sizeof(want),
			    "<unknown procedure> 0x%llx [prog];<unknown procedure> 0x%llx [prog]",
			    (unsigned long long)leaf + 4, (unsigned long long)rec + 4);
		for (uint32_t i = 0; i < p->samples.len; i++) {
			stack_names(p, p->samples.stack[i], got, sizeof(got));
			if (strcmp(got, want) == 0)
				seen_leaf = true;
			if (strncmp(got, "<unknown procedure> 0x1234 [libz.so];", 37) == 0)
				seen_z = true;
		}
		T_TRUE(seen_leaf);
		T_TRUE(seen_z);
		uint64_t n = 0;
		T_EQ_INT(t_diag(p, "named from --symbols' file of that name", &n) != NULL, with);
		if (with)
			T_EQ_U64(n, 2);
		T_EQ_INT(t_diag(p, "/nonexistent/libz.so not named: binary not found", &n) != NULL,
			 with);
		if (with)
			T_EQ_U64(n, 1);
		pv_profile_free(p);
	}
}

/*
 * A meta.db (HPCToolkit 2023-) whose function without a name hpcviewer shows as
 * libgomp.so.1.0.0@0x1a86d (tests/data/hpctoolkit/loops-cputime-t.d): with --symbols naming a
 * folder that holds a libgomp.so.1.0.0 the test assembles, with one function over 0x1a800 -
 * 0x1aa00, it is that function, as nm and addr2line name the address.
 */
T_TEST(hpctoolkit_v4_functions_named_from_symbols)
{
	if (!built_prog())
		return;
	char lib[128];
	snprintf(lib, sizeof(lib), "%s/libgomp.so.1.0.0", built_dir);
	T_EQ_INT(run("printf '.text\\n.globl gomp_fn\\n.type gomp_fn,@function\\ngomp_fn:\\n"
		     ".fill 512,1,0x90\\n.size gomp_fn,512\\n' > %s/fn.s && "
		     "gcc -nostdlib -shared -Wl,-Ttext=0x1a800 -o %s %s/fn.s",
		     built_dir, lib, built_dir),
		 0);
	T_EQ_U64(nm_addr(lib, "gomp_fn"), 0x1a800);
	char a2l[200];
	addr2line_func(lib, 0x1a86d, a2l, sizeof(a2l));
	T_EQ_STR(a2l, "gomp_fn");
	struct pv_import_opts o = {.format = "hpctoolkit"};
	o.symbol_dirs[0] = built_dir;
	o.nr_symbol_dirs = 1;
	struct pv_profile *p = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_open(T_DATA "/hpctoolkit/loops-cputime-t.d", &o, &p, &err, NULL), 0);
	if (!p)
		return;
	bool named = false, hex = false;
	for (uint32_t f = 0; f < p->funcs.len; f++) {
		const char *n = pv_str(p, p->funcs.name[f]);
		named |= strcmp(n, "gomp_fn") == 0;
		hex |= strcmp(n, "libgomp.so.1.0.0@0x1a86d") == 0;
	}
	T_TRUE(named);
	T_TRUE(!hex);
	uint64_t n = 0;
	T_TRUE(t_diag(p, "libgomp.so.1.0.0 named from --symbols' file of that name", &n) != NULL);
	T_EQ_U64(n, 1);
	pv_profile_free(p);
}

/* ---------------------------------------------------------------- JIT maps, debug files */

/* A perf script text written to path: nsamples samples, sample i with per_sample[i] frames
 * "ADDR [unknown] (module)", their addresses in turn from addrs (leaf first). */
static bool write_unknown_script(const char *path, const char *module, const uint64_t *addrs,
				 const int *per_sample, int nsamples)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return false;
	for (int i = 0, k = 0; i < nsamples; i++) {
		fprintf(f, "            prog  4242/4242  [001]  100.%06d:     1000 cpu-clock: \n",
			i + 1);
		for (int j = 0; j < per_sample[i]; j++, k++)
			fprintf(f, "\t%16llx [unknown] (%s)\n", (unsigned long long)addrs[k],
				module);
		fprintf(f, "\n");
	}
	return fclose(f) == 0;
}

/* The perf script import of path with --symbols dir (NULL: none); NULL (a failure said). */
static struct pv_profile *import_script(const char *path, const char *dir)
{
	struct pv_import_opts o = {.format = "perf-script"};
	if (dir) {
		o.symbol_dirs[0] = dir;
		o.nr_symbol_dirs = 1;
	}
	struct pv_profile *p = NULL;
	struct pv_error err;
	if (pv_import_open(path, &o, &p, &err, NULL))
		t_fail(__FILE__, __LINE__, "%s: %s", path, err.msg);
	return p;
}

/* The function names of sample i's stack, leaf first, "a;b". */
static void sample_names(const struct pv_profile *p, uint32_t i, char *out, size_t cap)
{
	stack_names(p, p->samples.stack[i], out, cap);
}

/*
 * JIT code: a frame perf script printed as [unknown] in /tmp/perf-PID.map ("START SIZE name"
 * lines in hex, the name the rest of the line) is named by the entry that holds its address
 * (START <= a < START + SIZE); an address in no entry stays [perf-PID.map] and is counted, with
 * why, in a lossy line (said of a binary that named others), as the named ones are in theirs
 * (distinct addresses).
 */
T_TEST(perf_script_jit_map_named)
{
	char map[64], dir[64], script[128];
	/* a PID-like number of this run: no process of that PID writes it meanwhile (the test's
	 * own PID runs no JIT) */
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(map, "wx");
	if (!f) {
		t_fail(__FILE__, __LINE__, "%s exists or cannot be written", map);
		return;
	}
	fputs("7f0000001000 40 jit_alpha\n"
	      "7f0000001080 20 LazyCompile:~beta /app/b.js:7\n"
	      "not a map line\n",
	      f);
	fclose(f);
	if (!temp_dir(dir, "jit")) {
		remove(map);
		return;
	}
	snprintf(script, sizeof(script), "%s/jit.script.txt", dir);
	/* sample 1: alpha's first byte, beta's last; sample 2: alpha's end (outside), before the
	 * first entry; sample 3: alpha again (the same address: counted once) */
	static const uint64_t addrs[] = {0x7f0000001000, 0x7f000000109f, 0x7f0000001040,
					 0x7f0000000fff, 0x7f0000001000};
	static const int per[] = {2, 2, 1};
	T_TRUE(write_unknown_script(script, map, addrs, per, 3));
	struct pv_profile *p = import_script(script, NULL);
	remove(map);
	run("rm -rf '%s'", dir);
	if (!p)
		return;
	char got[512], want[512];
	T_EQ_INT(p->samples.len, 3);
	sample_names(p, 0, got, sizeof(got));
	T_EQ_STR(got, "jit_alpha;LazyCompile:~beta /app/b.js:7");
	sample_names(p, 1, got, sizeof(got));
	snprintf(want, sizeof(want), "[perf-%d.map];[perf-%d.map]", (int)getpid(), (int)getpid());
	T_EQ_STR(got, want);
	sample_names(p, 2, got, sizeof(got));
	T_EQ_STR(got, "jit_alpha");
	uint64_t n = 0;
	snprintf(want, sizeof(want), "printed as [unknown] in %s named from", map);
	T_TRUE(t_diag(p, want, &n) != NULL);
	T_EQ_U64(n, 2);
	snprintf(want, sizeof(want),
		 "printed as [unknown] in %s not named: address in no symbol of its binary", map);
	T_TRUE(t_diag(p, want, &n) != NULL);
	T_EQ_U64(n, 2);
	pv_profile_free(p);
}

/*
 * prog.c built with -g (built_prog), its debug information split out as distributions do
 * (objcopy --only-keep-debug, then strip --strip-all: no .symtab left), in a new folder of the
 * given name; *leaf and *rec: their addresses (nm's, from the debug file), bid the build id
 * (readelf's, 64 bytes). false (said, the folder removed) when the tools failed.
 */
static bool split_prog(char *dir, const char *name, uint64_t *leaf, uint64_t *rec, char *bid)
{
	const char *prog = built_prog();
	if (!prog || !temp_dir(dir, name))
		return false;
	if (run("cp '%s' '%s/prog' && cd '%s' && objcopy --only-keep-debug prog prog.debug && "
		"strip --strip-all prog",
		prog, dir, dir) != 0) {
		t_fail(__FILE__, __LINE__, "objcopy or strip failed in %s", dir);
		run("rm -rf '%s'", dir);
		return false;
	}
	char path[128];
	snprintf(path, sizeof(path), "%s/prog", dir);
	T_EQ_U64(nm_addr(path, "leaf"), 0); /* stripped: nm finds nothing */
	readelf_build_id(path, bid, 64);
	snprintf(path, sizeof(path), "%s/prog.debug", dir);
	*leaf = nm_addr(path, "leaf");
	*rec = nm_addr(path, "rec");
	T_TRUE(*leaf != 0 && *rec != 0);
	T_TRUE(strlen(bid) == 40);
	if (*leaf && *rec && strlen(bid) == 40)
		return true;
	run("rm -rf '%s'", dir);
	return false;
}

/*
 * The import of a script of one sample, leaf+4 and rec+4 in dir/prog (--symbols symbols):
 * its names want ("leaf;rec", "[prog];[prog]"), and said a lossy line it holds (count 2); said
 * NULL: no "not named" line (nothing said of a binary that named none).
 */
static void check_leaf_rec(const char *dir, uint64_t leaf, uint64_t rec, const char *symbols,
			   const char *want, const char *said)
{
	char script[128], mod[128], got[256];
	snprintf(script, sizeof(script), "%s/prog.script.txt", dir);
	snprintf(mod, sizeof(mod), "%s/prog", dir);
	const uint64_t addrs[] = {leaf + 4, rec + 4};
	static const int per[] = {2};
	T_TRUE(write_unknown_script(script, mod, addrs, per, 1));
	struct pv_profile *p = import_script(script, symbols);
	if (!p)
		return;
	sample_names(p, 0, got, sizeof(got));
	T_EQ_STR(got, want);
	uint64_t n = 0;
	if (said) {
		T_TRUE(t_diag(p, said, &n) != NULL);
		T_EQ_U64(n, 2);
	} else {
		snprintf(got, sizeof(got), "in %s not named", mod);
		T_TRUE(t_diag(p, got, &n) == NULL);
	}
	pv_profile_free(p);
}

/*
 * A stripped binary whose .gnu_debuglink names its debug file beside it: its [unknown] frames
 * are named from the debug file's .symtab (nm's names for those addresses); without the link,
 * they stay [prog] as perf printed them (not said: the binary named none).
 */
T_TEST(perf_script_debuglink_named)
{
	char dir[64], bid[64], said[256];
	uint64_t leaf, rec;
	if (!split_prog(dir, "dbglink", &leaf, &rec, bid))
		return;
	check_leaf_rec(dir, leaf, rec, NULL, "[prog];[prog]", NULL);
	T_EQ_INT(run("cd '%s' && objcopy --add-gnu-debuglink=prog.debug prog", dir), 0);
	snprintf(said, sizeof(said), "in %s/prog named from", dir);
	check_leaf_rec(dir, leaf, rec, NULL, "leaf;rec", said);
	run("rm -rf '%s'", dir);
}

/*
 * A stripped binary (no link) whose debug file is in a --symbols folder as
 * DIR/.build-id/XX/REST.debug (XX/REST its build id): named from it, unnamed without --symbols.
 */
T_TEST(perf_script_build_id_folder_named)
{
	char dir[64], bid[64], said[256], syms[96];
	uint64_t leaf, rec;
	if (!split_prog(dir, "bidfolder", &leaf, &rec, bid))
		return;
	snprintf(syms, sizeof(syms), "%s/syms", dir);
	T_EQ_INT(run("mkdir -p '%s/.build-id/%.2s' && mv '%s/prog.debug' "
		     "'%s/.build-id/%.2s/%s.debug'",
		     syms, bid, dir, syms, bid, bid + 2),
		 0);
	check_leaf_rec(dir, leaf, rec, NULL, "[prog];[prog]", NULL);
	snprintf(said, sizeof(said), "in %s/prog named from", dir);
	check_leaf_rec(dir, leaf, rec, syms, "leaf;rec", said);
	run("rm -rf '%s'", dir);
}

/*
 * A debug file of another build (the same code linked with another build id, so that its
 * .symtab would name the addresses right) is never used, through .gnu_debuglink nor under the
 * binary's build id in a --symbols folder: the frames stay [prog] and the lossy line names the
 * file not used.
 */
T_TEST(perf_script_debug_file_of_another_build_not_used)
{
	char dir[64], bid[64], said[512], syms[96];
	uint64_t leaf, rec;
	if (!split_prog(dir, "otherbuild", &leaf, &rec, bid))
		return;
	/* the other build: the same program, another build id; its debug file put where prog's
	 * would be, and linked */
	snprintf(syms, sizeof(syms), "%s/syms", dir);
	T_EQ_INT(
	    run("cd '%s' && gcc -O2 -g -Wl,--build-id=0x0123456789abcdef0123456789abcdef01234567 "
		"-o other %s/perf-data/prog.c && objcopy --only-keep-debug other prog.debug && "
		"objcopy --add-gnu-debuglink=prog.debug prog && mkdir -p 'syms/.build-id/%.2s' "
		"&& cp prog.debug 'syms/.build-id/%.2s/%s.debug'",
		dir, T_DATA, bid, bid, bid + 2),
	    0);
	snprintf(said, sizeof(said), "%s/prog.debug", dir);
	T_EQ_U64(nm_addr(said, "leaf"), leaf); /* it would name them right */
	/* the link's file; with the folder, the folder's file is tried first */
	snprintf(said, sizeof(said),
		 "debug file %s/prog.debug not used: its build id is another "
		 "build's",
		 dir);
	check_leaf_rec(dir, leaf, rec, NULL, "[prog];[prog]", said);
	snprintf(said, sizeof(said),
		 "debug file %s/.build-id/%.2s/%s.debug not used: its build id "
		 "is another build's",
		 syms, bid, bid + 2);
	check_leaf_rec(dir, leaf, rec, syms, "[prog];[prog]", said);
	run("rm -rf '%s'", dir);
}

/* ---------------------------------------------------------------- the other byte order */

/*
 * perf.data of the other byte order: the recordings kept in tests/data/perf-data rewritten at
 * test time as a machine of the other byte order writes them (perf_swap.c), then profview's
 * import of each swapped file is the native one's (every thread, sample, marker and lossy
 * line), and, where perf is installed, `perf script --ns` prints the same for both files (perf
 * reads the other byte order: this checks the writer).
 */

/* The stack st as "name [module]; ..." leaf first, onto f. */
static void put_stack(FILE *f, const struct pv_profile *p, pv_stack_ix st)
{
	for (; st != PV_NONE; st = p->stacks.prefix[st]) {
		pv_func_ix fn = p->frames.func[p->stacks.frame[st]];
		pv_module_ix m = pv_func_module(p, fn);
		fprintf(f, "%s [%s]; ", pv_str(p, p->funcs.name[fn]),
			m == PV_NONE ? "" : pv_str(p, p->modules.name[m]));
	}
}

/*
 * What a test compares of an import, one line a thing: metrics, threads, each sample (thread,
 * time, weights, address, stack), each marker, each lossy line. *nsamples, *nmarkers: counts.
 */
static char *profile_text(const struct pv_profile *p, uint32_t *nsamples, uint32_t *nmarkers)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fprintf(f, "interval %lld\n", (long long)p->meta.interval_ns);
	for (uint32_t m = 0; m < p->metrics.len; m++)
		fprintf(f, "metric %s\n", pv_str(p, p->metrics.name[m]));
	for (pv_thread_ix t = 0; t < p->threads.len; t++) {
		fprintf(f, "thread %s (%s) %lld/%lld\n", pv_str(p, p->threads.name[t]),
			pv_str(p, p->threads.process_name[t]), (long long)p->threads.pid[t],
			(long long)p->threads.tid[t]);
		for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t]; s++) {
			fprintf(f, "  %lld", (long long)pv_sample_time(p, s));
			for (uint32_t m = 0; m < p->metrics.len; m++)
				fprintf(f, " %lld", (long long)pv_sample_weight(p, m, s));
			fprintf(f, " %llx: ",
				p->samples.addr ? (unsigned long long)p->samples.addr[s] : 0ull);
			put_stack(f, p, p->samples.stack[s]);
			fputc('\n', f);
		}
	}
	for (uint32_t i = 0; i < p->markers.len; i++) {
		fprintf(f, "marker %lld %s thread %u %s: ", (long long)p->markers.start_ns[i],
			pv_str(p, p->markers.name[i]), p->markers.thread[i],
			p->markers.payload[i] ? pv_str(p, p->markers.payload[i]) : "");
		put_stack(f, p, p->markers.cause_stack ? p->markers.cause_stack[i] : PV_NONE);
		fputc('\n', f);
	}
	for (uint32_t d = 0; d < p->diags.len; d++)
		fprintf(f, "lossy %llu %s\n", (unsigned long long)p->diags.count[d],
			pv_str(p, p->diags.msg[d]));
	fclose(f);
	*nsamples = p->samples.len;
	*nmarkers = p->markers.len;
	return buf;
}

/* The first line where a and b differ, as a failure; whether they are the same. */
static bool same_lines(const char *what, const char *a, const char *b)
{
	for (uint32_t line = 1;; line++) {
		size_t na = strcspn(a, "\n"), nb = strcspn(b, "\n");
		if (na != nb || memcmp(a, b, na) != 0) {
			t_fail(__FILE__, __LINE__, "%s, line %u:\n  native:  %.*s\n  swapped: %.*s",
			       what, line, (int)na, a, (int)nb, b);
			return false;
		}
		if (!a[na])
			return !b[nb];
		a += na + 1;
		b += nb + 1;
	}
}

/*
 * The perf.data native swapped into a temporary folder as NAME.data: the native and the swapped
 * imports the same (*nsamples, *nmarkers counted), and with_perf: perf script's text of both
 * where perf is (*perf_same: whether it was compared and the same).
 */
static void check_swapped(const char *native, const char *name, bool with_perf, uint32_t *nsamples,
			  uint32_t *nmarkers, bool *perf_same)
{
	char dir[64] = "/tmp/pv-perfswap-XXXXXX", swapped[320], why[256];
	*nsamples = *nmarkers = 0;
	*perf_same = false;
	if (!mkdtemp(dir)) {
		t_fail(__FILE__, __LINE__, "mkdtemp failed");
		return;
	}
	snprintf(swapped, sizeof(swapped), "%s/%s.data", dir, name);
	if (perf_swap_file(native, swapped, why, sizeof(why)) != 0) {
		t_fail(__FILE__, __LINE__, "%s: %s", native, why);
		run("rm -rf '%s'", dir);
		return;
	}
	const char *keep = getenv("PV_TEST_KEEP_SWAPPED"); /* a folder: the fuzz seeds made so */
	if (keep)
		run("cp '%s' '%s/%s-swapped.data'", swapped, keep, name);
	struct pv_profile *a = import_perf(native, T_DATA "/perf-data"),
			  *b = import_perf(swapped, T_DATA "/perf-data");
	uint32_t ns = 0, nm = 0;
	char *ta = a ? profile_text(a, nsamples, nmarkers) : NULL;
	char *tb = b ? profile_text(b, &ns, &nm) : NULL;
	T_TRUE(ta && tb);
	if (ta && tb)
		same_lines(name, ta, tb);
	free(ta);
	free(tb);
	pv_profile_free(a);
	pv_profile_free(b);
	if (with_perf && run("perf --version >/dev/null 2>&1") == 0) {
		T_EQ_INT(run("perf script --ns -i '%s' >'%s/native.txt' 2>/dev/null", native, dir),
			 0);
		T_EQ_INT(
		    run("perf script --ns -i '%s' >'%s/swapped.txt' 2>/dev/null", swapped, dir), 0);
		*perf_same = run("cmp -s '%s/native.txt' '%s/swapped.txt'", dir, dir) == 0;
		T_TRUE(*perf_same);
	} else if (with_perf) {
		printf("# SKIP perf script of the swapped %s.data: no perf here\n", name);
	}
	run("rm -rf '%s'", dir);
}

/*
 * Each kept recording in the other byte order: the user-space mix (453 samples, five programs,
 * MMAP2, FORK, COMM exec), the pipe form (91 samples, its attribute and features as records),
 * zstd-compressed records (92 samples; the writer inflates, swaps and compresses them again),
 * tracepoints (26 markers: raw fields in the other order, decoded by the tracing data's flag).
 */
T_TEST(perf_data_other_byte_order_as_native)
{
	static const struct {
		const char *name;
		uint32_t samples, markers;
	} files[] = {{"mix", 453, 0}, {"pipe", 91, 0}, {"zstd", 92, 0}, {"tp", 0, 26}};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		uint32_t ns, nm;
		bool perf_same;
		char native[256];
		snprintf(native, sizeof(native), "%s/perf-data/%s.data", T_DATA, files[i].name);
		check_swapped(native, files[i].name, true, &ns, &nm, &perf_same);
		T_EQ_INT(ns, files[i].samples);
		T_EQ_INT(nm, files[i].markers);
		printf("# %s.data swapped: %u samples, %u markers the same; perf script %s\n",
		       files[i].name, ns, nm, perf_same ? "the same" : "not compared or differs");
	}
}

/*
 * `perf record -q -o FILE ARGS` run now into a new folder's NAME.data (pipe: `-o -`, its output
 * into that file), whose path is data (128 bytes); false (the test skipped, said) where perf may
 * not record.
 */
static bool record_now(char *dir, char *data, const char *name, bool pipe, const char *args)
{
	if (!temp_dir(dir, name))
		return false;
	snprintf(data, 128, "%s/%s.data", dir, name);
	int rc = pipe ? run("perf record -q -o - %s >'%s' 2>/dev/null", args, data)
		      : run("perf record -q -o '%s' %s >/dev/null 2>&1", data, args);
	if (rc == 0)
		return true;
	skip_unpermitted(dir, name);
	return false;
}

/*
 * The pipe form's tracing data (a HEADER_TRACING_DATA record, the data after it) and tracepoint
 * samples of the other byte order: where perf may record tracepoints, a recording made now with
 * `-o -`, swapped, imports as the native one. perf script is no oracle here: perf 6.1 marks the
 * events of HEADER_ATTR records as needing no swap (only the file header's are), so it reads a
 * sample's pid/tid and the raw data's size wrongly and stops: "Can't parse sample, err = -14",
 * "failed to process type: 68".
 */
T_TEST(perf_data_other_byte_order_pipe_tracepoints)
{
	char dir[64], data[128];
	if (!record_now(
		dir, data, "pipe-tp", true,
		"-e sched:sched_process_exec -e sched:sched_process_fork "
		"-e sched:sched_switch -- sh -c 'ls / >/dev/null; echo x | cat >/dev/null'"))
		return;
	uint32_t ns, nm;
	bool perf_same;
	check_swapped(data, "pipe-tp", false, &ns, &nm, &perf_same);
	T_TRUE(nm >= 4); /* two execs, a fork, switches */
	/* the fields decoded by the tracing data after the HEADER_TRACING_DATA record, which is
	 * used, so not a lossy line */
	struct pv_profile *p = import_perf(data, NULL);
	uint32_t fields = 0;
	for (uint32_t i = 0; p && i < p->markers.len; i++)
		fields += p->markers.payload[i] != 0;
	T_EQ_INT(fields, nm);
	T_TRUE(p && !t_diag(p, "HEADER_TRACING_DATA", NULL));
	pv_profile_free(p);
	printf("# pipe-form tracepoints swapped: %u markers the same, %u with fields\n", nm,
	       fields);
	run("rm -rf '%s'", dir);
}

/*
 * --call-graph dwarf of the other byte order: a recording made now where perf may record
 * (prog, -F 1000), swapped (the registers as 8-byte numbers, the stack copy as 8-byte words, as
 * perf reads them), imports as the native one, every user stack unwound the same; perf script
 * prints the same for both.
 */
T_TEST(perf_data_other_byte_order_dwarf_stacks)
{
	char dir[64], data[128];
	if (!record_now(dir, data, "dwarf", false,
			"--call-graph dwarf -e cpu-clock:u -F 1000 -- '" T_DATA
			"/perf-data/prog' 2000 40000"))
		return;
	uint32_t ns, nm;
	bool perf_same;
	check_swapped(data, "dwarf", true, &ns, &nm, &perf_same);
	T_TRUE(ns >= 20);
	printf("# --call-graph dwarf swapped: %u samples the same; perf script %s\n", ns,
	       perf_same ? "the same" : "not compared or differs");
	run("rm -rf '%s'", dir);
}

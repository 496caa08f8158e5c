/*
 * tests of speedscope's other formats (issue 30): stackprof, pmcstat, GHC, papyrus, Safari and
 * V8 logs. Each file of tests/data/<format>/ is checked against what speedscope's own importer
 * builds from it, recorded once next to it as FILE.speedscope.txt by
 *
 *   node tests/oracle/speedscope-weights.js tests/browser/node_modules FILE NAME SCALE \
 *       > FILE.speedscope.txt
 *
 * (npm `speedscope` 1.25.0, `npm ci` in tests/browser; the first line of each says the name and
 * scale used): per profile (thread) its sample runs (consecutive samples of one stack, as
 * speedscope merges them; samples of weight 0 it drops) and total weight, then per function
 * name its self and total weight (a name counted once per sample however often it recurs).
 * The same text is made here from profview's import, in the metric speedscope weighs by.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "pv/import.h"
#include "t.h"
#include "tp.h"

struct fnw {
	const char *name;
	int64_t self, total;
};

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * "profile ..." then sorted "fn ..." lines per thread, as speedscope-weights.js prints them;
 * for each of the metrics (comma-separated) in turn, speedscope making a profile of each.
 */
static char **oracle_lines(const struct pv_profile *p, const char *metrics, bool evented,
			   size_t *nlines)
{
	size_t cap = 16, n = 0;
	char **out = malloc(cap * sizeof(*out));
	struct fnw *fn = calloc(p->funcs.len + 1, sizeof(*fn));
	uint32_t *seen = calloc(p->funcs.len + 1, sizeof(*seen));
	/* functions of one name are one speedscope frame here: index them by the first */
	uint32_t *rep = calloc(p->funcs.len + 1, sizeof(*rep));
	for (uint32_t f = 0; f < p->funcs.len; f++) {
		rep[f] = f;
		for (uint32_t g = 0; g < f; g++)
			if (p->funcs.name[g] == p->funcs.name[f]) {
				rep[f] = g;
				break;
			}
	}
	char mbuf[256];
	snprintf(mbuf, sizeof(mbuf), "%s", metrics);
	for (char *save, *metric = strtok_r(mbuf, ",", &save); metric;
	     metric = strtok_r(NULL, ",", &save)) {
		pv_metric_ix m = pv_metric_find(p, metric);
		for (uint32_t t = 0; t < p->threads.len && m != PV_NONE; t++) {
			memset(fn, 0, (p->funcs.len + 1) * sizeof(*fn));
			uint32_t runs = 0, stamp = 0;
			int64_t total = 0;
			pv_stack_ix last = PV_NONE;
			bool any = false;
			for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t];
			     s++) {
				int64_t w = pv_sample_weight(p, m, s);
				if (!w)
					continue;
				pv_stack_ix st = p->samples.stack[s];
				/* speedscope merges a sampled profile's samples of one stack in
				 * a row, not an evented one's */
				if (!any || st != last || evented)
					runs++;
				any = true;
				last = st;
				total += w;
				stamp++;
				for (pv_stack_ix k = st; k != PV_NONE; k = p->stacks.prefix[k]) {
					uint32_t f = rep[p->frames.func[p->stacks.frame[k]]];
					if (k == st)
						fn[f].self += w;
					if (seen[f] != stamp) {
						seen[f] = stamp;
						fn[f].total += w;
					}
				}
			}
			memset(seen, 0, (p->funcs.len + 1) * sizeof(*seen));
			size_t first = n + 1;
			for (uint32_t f = 0; f <= p->funcs.len; f++) {
				if (n + 2 > cap)
					out = realloc(out, (cap *= 2) * sizeof(*out));
				char buf[1024];
				if (f == p->funcs.len)
					snprintf(buf, sizeof(buf), "profile runs %u total %lld",
						 runs, (long long)total);
				else if (rep[f] == f && fn[f].total)
					snprintf(buf, sizeof(buf), "fn %lld %lld %s",
						 (long long)fn[f].self, (long long)fn[f].total,
						 pv_str(p, p->funcs.name[f]));
				else
					continue;
				out[n++] = strdup(buf);
			}
			/* the profile line first, the functions sorted */
			char *head = out[n - 1];
			memmove(out + first, out + first - 1, (n - first) * sizeof(*out));
			out[first - 1] = head;
			qsort(out + first, n - first, sizeof(*out), line_cmp);
		}
	}
	free(fn);
	free(seen);
	free(rep);
	*nlines = n;
	return out;
}

/*
 * Whether two canonical lines agree: the same text, or the same kind, runs and name with
 * numbers at most tol apart (speedscope sums seconds as doubles, profview whole ns).
 */
static bool lines_agree(const char *a, const char *b, long long tol)
{
	if (strcmp(a, b) == 0)
		return true;
	long long x1, y1, x2, y2;
	unsigned r1, r2;
	int n1 = 0, n2 = 0;
	if (sscanf(a, "profile runs %u total %lld", &r1, &x1) == 2 &&
	    sscanf(b, "profile runs %u total %lld", &r2, &x2) == 2)
		return r1 == r2 && llabs(x1 - x2) <= tol;
	if (sscanf(a, "fn %lld %lld %n", &x1, &y1, &n1) == 2 &&
	    sscanf(b, "fn %lld %lld %n", &x2, &y2, &n2) == 2)
		return strcmp(a + n1, b + n2) == 0 && llabs(x1 - x2) <= tol &&
		       llabs(y1 - y2) <= tol;
	return false;
}

/*
 * The import of data/path equals the oracle's text data/path.speedscope.txt, in metric, each
 * weight within tol.
 */
static void check_oracle_at(const char *file, int line, const char *path, const char *metric,
			    bool evented, long long tol)
{
	char exp_path[512];
	snprintf(exp_path, sizeof(exp_path), "%s.speedscope.txt", t_data(path));
	struct pv_profile *p = tp_load_at(file, line, t_data(path), NULL, NULL);
	size_t len;
	char *want = t_read_file(exp_path, &len);
	if (!p || !want) {
		t_fail(file, line, "%s: %s", path, p ? "no oracle file" : "not imported");
		free(want);
		if (p)
			pv_profile_free(p);
		return;
	}
	size_t n;
	char **got = oracle_lines(p, metric, evented, &n);
	/* the oracle's lines, its functions sorted as ours are (it sorts by UTF-16 units) */
	char **exp = malloc((len / 2 + 2) * sizeof(*exp));
	size_t ne = 0, first = 0;
	for (char *s = strtok(want, "\n"); s; s = strtok(NULL, "\n")) {
		if (*s == '#')
			continue;
		if (strncmp(s, "profile ", 8) == 0) {
			if (ne > first)
				qsort(exp + first, ne - first, sizeof(*exp), line_cmp);
			first = ne + 1;
		}
		exp[ne++] = s;
	}
	if (ne > first)
		qsort(exp + first, ne - first, sizeof(*exp), line_cmp);
	size_t i = 0;
	for (; i < n && i < ne; i++)
		if (!lines_agree(got[i], exp[i], tol)) {
			t_fail(file, line, "%s: line %zu: profview \"%s\" != speedscope \"%s\"",
			       path, i, got[i], exp[i]);
			break;
		}
	if (i == n && n != ne)
		t_fail(file, line, "%s: profview has %zu lines, speedscope %zu", path, n, ne);
	for (size_t k = 0; k < n; k++)
		free(got[k]);
	free(got);
	free(exp);
	free(want);
	pv_profile_free(p);
}
#define check_oracle(path, metric) check_oracle_at(__FILE__, __LINE__, (path), (metric), false, 0)
/* The same for a format speedscope reads as events (enter, leave): one run per sample. */
#define check_oracle_evented(path, metric) \
	check_oracle_at(__FILE__, __LINE__, (path), (metric), true, 0)

/* ---- stackprof ---- */

T_TEST(stackprof_equals_speedscope)
{
	check_oracle("stackprof/simple-cpu-stackprof.json", "time");
	check_oracle("stackprof/simple-stackprof.json", "time");
	check_oracle("stackprof/object-stackprof.json", "allocations");
	check_oracle("stackprof/stackprof-last-frame-no-name.json", "allocations");
}

T_TEST(stackprof_keeps)
{
	struct pv_profile *p =
	    t_load_as(t_data("stackprof/simple-cpu-stackprof.json"), "stackprof");
	if (!p)
		return;
	/* 489 samples of interval 1000 us; the first record's time is 0, the next after the
	 * deltas of the first's samples */
	T_EQ_INT(t_total_named(p, "samples"), 489);
	T_EQ_INT(t_total_named(p, "time"), 489000000);
	T_EQ_INT(p->meta.interval_ns, 1000000);
	T_EQ_STR(pv_str(p, p->meta.format_version), "1.2");
	T_EQ_INT(pv_sample_time(p, 0), 0);
	pv_func_ix d = t_find_func(p, "Object#d");
	T_TRUE(d != PV_NONE);
	if (d != PV_NONE) {
		T_EQ_INT(pv_func_line(p, d), 24);
		T_CONTAINS(pv_str(p, p->sources.path[pv_func_source(p, d)]), "ruby/simple.rb");
	}
	T_TRUE(t_diag_count(p, "per-line sample counts") == 7);
	pv_profile_free(p);
	/* a frame without a name is "(unknown)", as speedscope names it */
	p = t_load(t_data("stackprof/stackprof-last-frame-no-name.json"));
	if (p) {
		T_TRUE(t_find_func(p, "(unknown)") != PV_NONE);
		pv_profile_free(p);
	}
}

T_TEST(stackprof_modes_and_gc)
{
	/* wall mode: weights are the deltas; a (garbage collection) stack of its own goes on the
	 * stack before it */
	const char *wall = "{\"mode\":\"wall\",\"interval\":1000,\"frames\":{"
			   "\"1\":{\"name\":\"main\",\"file\":\"a.rb\",\"line\":3},"
			   "\"2\":{\"name\":\"f\"},\"3\":{\"name\":\"(garbage collection)\"}},"
			   "\"raw\":[2,1,2,2,1,3,1],\"raw_timestamp_deltas\":[5,7,11]}";
	struct pv_profile *p = t_load_text("w.json", wall, "stackprof");
	if (p) {
		T_EQ_INT(p->samples.len, 2);
		T_EQ_INT(pv_sample_weight(p, 0, 0), 12000);
		T_EQ_INT(pv_sample_weight(p, 0, 1), 11000);
		T_EQ_INT(pv_sample_weight(p, 1, 0), 2);
		T_EQ_INT(pv_sample_time(p, 1), 12000);
		char path[256];
		t_stack_path(p, p->samples.stack[1], ";", path, sizeof(path));
		T_EQ_STR(path, "main;f;(garbage collection)");
		pv_profile_free(p);
	}
	/* cpu mode: count x interval; deltas that do not cover the samples give no times */
	const char *cpu = "{\"mode\":\"cpu\",\"interval\":250,\"frames\":{\"1\":{\"name\":\"m\"}},"
			  "\"raw\":[1,1,4],\"raw_timestamp_deltas\":[1]}";
	p = t_load_text("c.json", cpu, "stackprof");
	if (p) {
		T_EQ_INT(pv_sample_weight(p, 0, 0), 1000000);
		T_EQ_INT(pv_sample_time(p, 0), PV_TIME_NONE);
		T_EQ_INT(t_diag_count(p, "do not match the samples"), 1);
		pv_profile_free(p);
	}
}

T_TEST(stackprof_errors)
{
	t_expect_error("e.json",
		       "{\"mode\":\"cpu\",\"interval\":1,\"frames\":{\"1\":{\"name\":\"m\"}},\n"
		       "\"raw\":[1,1,1, 1,9,1]}",
		       "stackprof", PV_EPARSE,
		       "e.json: line 2, column 17: raw[4]: frame id 9 is not in 'frames'", NULL);
	t_expect_error("e.json", "{\"mode\":\"cpu\",\"interval\":1,\"frames\":{},\"raw\":[3,1,1]}",
		       "stackprof", PV_EPARSE,
		       "column 47: raw[0]: a stack of 3 frames and its count do not fit", NULL);
	t_expect_error("e.json", "{\"mode\":\"cpu\",\"frames\":{\"x\":{}},\"raw\":[]}", "stackprof",
		       PV_EPARSE, "column 25: expected a frame id (digits)", NULL);
	t_expect_error("e.json", "{\"mode\":\"cpu\",\"interval\":1,\"frames\":{}}", "stackprof",
		       PV_EPARSE, "needs 'mode', 'frames' and 'raw' ('raw' missing)", NULL);
	t_expect_error("e.json", "{\"mode\":\"cpu\",\"frames\":{},\"raw\":[1,\"a\"]}", "stackprof",
		       PV_EPARSE, "column 36: expected a number in 'raw', found a string", NULL);
}

/* ---- pmcstat ---- */

T_TEST(pmcstat_equals_speedscope)
{
	check_oracle("pmcstat/simple.txt", "inst_retired.any");
	check_oracle("pmcstat/simple-with-invalids.txt", "inst_retired.any");
}

T_TEST(pmcstat_keeps)
{
	struct pv_profile *p = t_load_as(t_data("pmcstat/simple-with-invalids.txt"), "pmcstat");
	if (!p)
		return;
	/* the three paths, outermost caller first, weighing their last line's count */
	T_EQ_INT(p->samples.len, 3);
	char path[2048];
	t_stack_path(p, p->samples.stack[0], ";", path, sizeof(path));
	T_EQ_STR(path, "fork_exit;taskqueue_thread_loop;taskqueue_run_locked;zio_execute;"
		       "zio_write_compress;zio_compress_data;zfs_lz4_compress");
	T_EQ_INT(pv_sample_weight(p, 0, 0), 7447);
	T_EQ_INT(pv_sample_weight(p, 0, 1), 1489);
	T_EQ_INT(pv_sample_weight(p, 0, 2), 1);
	/* images are modules, the last one named holding for the lines after it */
	pv_func_ix f = t_find_func(p, "zio_execute");
	T_TRUE(f != PV_NONE && pv_func_module(p, f) != PV_NONE);
	if (f != PV_NONE && pv_func_module(p, f) != PV_NONE)
		T_EQ_STR(pv_str(p, p->modules.name[pv_func_module(p, f)]), "zfs.ko");
	/* 12603 listed = 8937 weighed + 3666 that no path holds; the header's 35705 */
	T_EQ_INT(t_diag_count(p, "above the sum of their callers"), 3666);
	T_EQ_INT(t_diag_count(p, "that no entry lists"), 35705 - 12603);
	T_EQ_INT(t_diag_count(p, "not of the call graph's form"), 3);
	pv_profile_free(p);
}

T_TEST(pmcstat_errors)
{
	t_expect_error(
	    "g.txt", "@ cycles [3 samples]\n\n50.0%  [3]  f @ /bin/x\n   100.0%  [3]  g\n",
	    "pmcstat", PV_EPARSE,
	    "g.txt: line 4, column 4: a caller indented 3 spaces under a line of 0", NULL);
	t_expect_error("g.txt", "50.0%  [99999999999999999999]  f\n", "pmcstat", PV_EPARSE,
		       "g.txt: line 1, column 9: count out of range", NULL);
}

/* ---- GHC ---- */

T_TEST(ghc_equals_speedscope)
{
	/* speedscope's two profiles: time (ticks, 1000 us each) and allocation */
	check_oracle_evented("ghc/simple.prof", "time,bytes");
}

T_TEST(ghc_keeps)
{
	struct pv_profile *p = t_load_as(t_data("ghc/simple.prof"), "ghc");
	if (!p)
		return;
	/* total_ticks 798 of tick_interval 1000 us; total_alloc 1921672664 */
	T_EQ_INT(t_total_named(p, "time"), 798000000);
	T_EQ_INT(t_total_named(p, "bytes"), 1921672664);
	T_EQ_INT(p->meta.interval_ns, 1000000);
	T_EQ_STR(pv_str(p, p->threads.name[0]), "binary-trees");
	pv_func_ix f = t_find_func(p, "Main.make");
	T_TRUE(f != PV_NONE);
	if (f != PV_NONE) {
		T_EQ_INT(pv_func_line(p, f), 61);
		T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, f)]), "src/Main.hs");
		T_EQ_STR(pv_str(p, p->modules.name[pv_func_module(p, f)]), "Main");
	}
	T_EQ_INT(t_diag_count(p, "CAF flags"), 124);
	pv_profile_free(p);
}

T_TEST(ghc_errors)
{
	t_expect_error(
	    "g.prof",
	    "{\"rts_arguments\":[],\"initial_capabilities\":0,\"cost_centres\":[{\"id\":1,"
	    "\"label\":\"main\",\"module\":\"Main\",\"src_loc\":\"<built-in>\"}],\n"
	    "\"profile\":{\"id\":1,\"ticks\":1,\"children\":[{\"id\":7,\"ticks\":2,"
	    "\"children\":[]}]}}",
	    "ghc", PV_EPARSE, "g.prof: line 2, column 41: cost centre 7 is not in", NULL);
	t_expect_error("g.prof",
		       "{\"rts_arguments\":[],\"initial_capabilities\":0,\"cost_centres\":[],"
		       "\"profile\":{\"id\":1,\"ticks\":-1}}",
		       "ghc", PV_EPARSE, "column 90: 'ticks' is negative", NULL);
	t_expect_error("g.prof", "{\"rts_arguments\":[],\"initial_capabilities\":0}", "ghc",
		       PV_EPARSE, "needs 'cost_centres' and 'profile' ('cost_centres' missing)",
		       NULL);
}

/* ---- papyrus ---- */

T_TEST(papyrus_equals_speedscope)
{
	check_oracle_evented("papyrus/script.log", "time");
	check_oracle_evented("papyrus/stack.log", "time");
}

T_TEST(papyrus_keeps)
{
	struct pv_profile *p = t_load_as(t_data("papyrus/stack.log"), "papyrus");
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->threads.name[0]), "Stack_3185");
	/* 50002 to 50619 ms: 617 ms with the stack frame open */
	T_EQ_INT(t_total_named(p, "time"), 617000000);
	/* START and the three QUEUE_PUSH lines and the QUEUE_POP are markers, not frames */
	T_EQ_INT(p->markers.len, 6);
	T_EQ_INT(t_diag_count(p, "functions not entered"), 3);
	pv_profile_free(p);
}

T_TEST(papyrus_errors)
{
	t_expect_error("p.log",
		       "Script_x log opened (PC)\n100:PUSH:1:1:None:a..f\n90:POP:1:1:None:a..f\n"
		       "Log closed\n",
		       "papyrus", PV_EPARSE,
		       "p.log: line 3, column 1: an event before the one above", NULL);
	t_expect_error("p.log", "Script_x log opened (PC)\nx:PUSH:1:1:None:a..f\n", "papyrus",
		       PV_EPARSE, "p.log: line 2, column 1: expected a time in ms", NULL);
	t_expect_error("p.log", "Script_x log opened (PC)\n1:PUSH:1:1:None:a..f\nnot a line\n",
		       "papyrus", PV_EPARSE,
		       "p.log: line 3, column 1: expected TIME:EVENT:STACK on the log's last line",
		       NULL);
}

/* ---- Safari ---- */

T_TEST(safari_equals_speedscope)
{
	/* seconds as doubles there, ns here: within 100 ns of 330 ms */
	check_oracle_at(__FILE__, __LINE__, "safari/simple.html-recording.json", "time", false,
			100);
}

T_TEST(safari_keeps)
{
	struct pv_profile *p = t_load_as(t_data("safari/simple.html-recording.json"), "safari");
	if (!p)
		return;
	/* 23 samples and 3 gaps of more than 2 ms without a stack */
	T_EQ_INT(p->samples.len, 26);
	T_EQ_STR(pv_str(p, p->threads.name[0]), "Grabación de Control temporal 1");
	/* the first sample ends at 4.472667262976756 s and lasts 1 ms, from startTime
	 * 4.163978071999736 s */
	T_EQ_INT(pv_sample_time(p, 0), 4472667263 - 1000000 - 4163978072);
	/* 37 records, 2 without a time of their own */
	T_EQ_INT(p->markers.len, 35);
	pv_func_ix f = t_find_func(p, "injectModule");
	T_TRUE(f != PV_NONE);
	if (f != PV_NONE) {
		T_EQ_INT(pv_func_line(p, f), 109);
		T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, f)]),
			 "__InjectedScript_InjectedScriptSource.js");
	}
	T_EQ_INT(t_diag_count(p, "the recording's markers"), 2);
	pv_profile_free(p);
}

T_TEST(safari_errors)
{
	t_expect_error(
	    "r.json",
	    "{\"recording\":{\"sampleStackTraces\":[{\"timestamp\":1,\"stackFrames\":[]},\n"
	    "{\"timestamp\":2,\"stackFrames\":[]}],\"sampleDurations\":[0.001]}}",
	    "safari", PV_EPARSE, "r.json: line 2, column 54: 1 sample durations for 2", NULL);
	t_expect_error("r.json", "{\"recording\":{\"sampleStackTraces\":[{\"stackFrames\":[]}]}}",
		       "safari", PV_EPARSE, "column 36: a sample without a 'timestamp'", NULL);
}

/* ---- V8 --prof logs ---- */

T_TEST(v8log_equals_speedscope)
{
	check_oracle("v8log/simple-cut.v8log.json", "time");
}

T_TEST(v8log_keeps)
{
	struct pv_profile *p = t_load_as(t_data("v8log/simple-cut.v8log.json"), "v8log");
	if (!p)
		return;
	/* 26 ticks, the last at 116424 us; the first weighs its time since 0 */
	T_EQ_INT(p->samples.len, 26);
	T_EQ_INT(t_total_named(p, "time"), 116424000);
	T_EQ_INT(pv_sample_weight(p, 0, 0), 29385000);
	T_EQ_INT(pv_sample_time(p, 1), 29385000);
	pv_func_ix f = t_find_func(p, "(anonymous fs.js:1)");
	T_TRUE(f != PV_NONE);
	if (f != PV_NONE) {
		T_EQ_INT(pv_func_line(p, f), 1);
		T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, f)]), "fs.js");
	}
	T_EQ_INT(t_diag_count(p, "VM states of ticks"), 26);
	pv_profile_free(p);
	/* names as speedscope gives them, an address past the code table, ticks out of order */
	const char *log = "{\"code\":[{\"name\":\"T v8::internal::Foo(int)\",\"type\":\"CPP\"},"
			  "{\"name\":\"/lib/libc.so\",\"type\":\"SHARED_LIB\"},"
			  "{\"name\":\"Add\",\"type\":\"CODE\",\"kind\":\"Builtin\"},"
			  "{\"name\":\"f /a/b.js:3:7\",\"type\":\"JS\",\"kind\":\"Opt\"}],"
			  "\"functions\":[],\"ticks\":[{\"tm\":30,\"vm\":0,\"s\":[3,0,99,0,-1,0]},"
			  "{\"tm\":10,\"vm\":0,\"s\":[0,0,2,0,1,0]}]}";
	p = t_load_text("l.v8log.json", log, "v8log");
	if (p) {
		char path[512];
		t_stack_path(p, p->samples.stack[0], ";", path, sizeof(path));
		T_EQ_STR(path, "(LIB) /lib/libc.so;(builtin) Add;(c++) v8::internal::Foo");
		T_EQ_INT(pv_sample_weight(p, 0, 0), 10000);
		t_stack_path(p, p->samples.stack[1], ";", path, sizeof(path));
		T_EQ_STR(path, "0x63;f");
		T_EQ_INT(pv_sample_weight(p, 0, 1), 20000);
		pv_func_ix g = t_find_func(p, "f");
		if (g != PV_NONE)
			T_EQ_INT(pv_func_line(p, g), 3);
		pv_profile_free(p);
	}
}

T_TEST(v8log_errors)
{
	t_expect_error("l.json", "{\"code\":[],\"functions\":[],\"ticks\":[{\"tm\":1}]}", "v8log",
		       PV_EPARSE, "column 36: a tick without 's'", NULL);
	t_expect_error("l.json",
		       "{\"code\":[],\"functions\":[],\"ticks\":[\n{\"tm\":1,\"s\":[-5,0]}]}",
		       "v8log", PV_EPARSE, "l.json: line 2, column 14: stack entry -5", NULL);
	t_expect_error("l.json", "{\"code\":[],\"functions\":[]}", "v8log", PV_EPARSE,
		       "needs 'code' and 'ticks' ('ticks' missing)", NULL);
}

/* ticks before the code table are kept and made into stacks once the table is read */
T_TEST(v8log_ticks_first)
{
	const char *log = "{\"ticks\":[{\"tm\":5,\"s\":[1,0,0,0]},{\"tm\":9,\"s\":[3,0,0,0]}],"
			  "\"code\":[{\"name\":\"a /x.js:1:1\",\"type\":\"JS\"},"
			  "{\"name\":\"b /x.js:2:1\",\"type\":\"JS\"}],\"functions\":[]}";
	struct pv_profile *p = t_load_text("l.v8log.json", log, "v8log");
	if (!p)
		return;
	char path[512];
	t_stack_path(p, p->samples.stack[0], ";", path, sizeof(path));
	T_EQ_STR(path, "a;b");
	t_stack_path(p, p->samples.stack[1], ";", path, sizeof(path));
	T_EQ_STR(path, "a;0x3"); /* entry 3 is past the two codes: an address */
	T_EQ_INT(pv_sample_weight(p, 0, 1), 4000);
	pv_profile_free(p);
	/* a code table after ticks that were made into stacks with the one before */
	t_expect_error("l.json", "{\"code\":[],\"ticks\":[{\"tm\":1,\"s\":[0,0]}],\"code\":[]}",
		       "v8log", PV_EPARSE, "column 41: a second 'code' table after the ticks",
		       NULL);
}

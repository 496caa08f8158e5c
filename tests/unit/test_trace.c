/*
 * test_trace.c - the trace view (pv/trace.h, doc/trace.md): HPCToolkit traces read from trace.db,
 * experiment.mt and *.hpctrace, the stack at a (context, time), windows, shares, the depth view.
 *
 * The expected stacks were read by hand from the databases: the record in force (trace.db's
 * elements, experiment.mt's big-endian records) and the path of its context id in meta.db's
 * context tree, or of its trace id (the it attribute) in experiment.xml.
 */
#include <string.h>

#include "harness/t.h"
#include "harness/tp.h"
#include "pv/import.h"
#include "pv/trace.h"

/* The profile at path and its trace; false (after failing) when either cannot be had. */
static bool open_trace(const char *path, struct pv_profile **p, struct pv_trace **t)
{
	struct pv_error err;
	*t = NULL;
	if (!(*p = t_load(path)))
		return false;
	if (pv_trace_open(*p, t, &err)) {
		t_fail(__FILE__, __LINE__, "pv_trace_open: %s", err.msg);
		pv_profile_free(*p);
		return false;
	}
	return true;
}

#define NO_DEPTH UINT32_MAX

/* The stack of context c at time_ms is names[0..n) root first, with those depths. */
static void expect_stack(const struct pv_trace *t, uint32_t c, double time_ms,
			 const char *const *names, const uint32_t *depths, uint32_t n, int line)
{
	pv_stack_ix s = PV_NONE;
	uint32_t r = pv_trace_at(t, c, (int64_t)(time_ms * 1e6), &s, NULL, NULL);
	if (r == PV_NONE || s == PV_NONE) {
		t_fail(__FILE__, line, "context %u at %.3f ms: no stack", c, time_ms);
		return;
	}
	pv_frame_ix fr[64];
	uint32_t dp[64];
	uint32_t m = pv_trace_frames(t, s, fr, dp, 64);
	if (m != n) {
		t_fail(__FILE__, line, "context %u at %.3f ms: %u frames, expected %u", c, time_ms,
		       m, n);
		return;
	}
	char buf[512];
	for (uint32_t k = 0; k < n; k++) {
		const char *got = pv_trace_frame_name(pv_trace_profile(t), fr[k], buf, sizeof(buf));
		if (strcmp(got, names[k]) != 0 || dp[k] != depths[k])
			t_fail(__FILE__, line,
			       "context %u at %.3f ms, frame %u: '%s' depth %d, "
			       "expected '%s' depth %d",
			       c, time_ms, k, got, (int)dp[k], names[k], (int)depths[k]);
	}
}

#define EXPECT_STACK(t, c, ms, names, depths) \
	expect_stack(t, c, ms, names, depths, sizeof(names) / sizeof(names[0]), __LINE__)

/*
 * loops-cputime-t.d: context 0 (NODE 0 CORE 0 THREAD 0) is trace.db's trace 3; its records are
 * at +0 (context 0: not running), +5.735 ms .. +23.686 ms (context 190), +29.695 ms .. +41.693
 * ms (context 194), +47.690 ms (190), +53.689 ms (175). Context 3 is trace 2: +24.690 ms at
 * context 2, +30.692 ms at context 1.
 */
T_TEST(trace_hpctoolkit_v4_loops)
{
	struct pv_profile *p;
	struct pv_trace *t;
	if (!open_trace(t_data("hpctoolkit/loops-cputime-t.d"), &p, &t))
		return;
	T_EQ_INT(pv_trace_lines(t), 4);
	T_EQ_U64(pv_trace_records(t), 4 * 167);
	int64_t a, b;
	pv_trace_range(t, &a, &b);
	T_EQ_INT(a, 0);
	T_EQ_INT(b, 1000874000); /* maxTimestamp - minTimestamp */
	static const char *const s190[] = {"main thread",
					   "main:1004",
					   "GOMP_parallel [libgomp.so.1.0.0]",
					   "main._omp_fn.0",
					   "loop at loops.c:1010",
					   "loop at loops.c:1010",
					   "loop at loops.c:1011",
					   "main._omp_fn.0:1016",
					   "test_separated_loops:38"};
	static const uint32_t d190[] = {0, 1, 2, 3, NO_DEPTH, NO_DEPTH, NO_DEPTH, NO_DEPTH, 4};
	EXPECT_STACK(t, 0, 5.735, s190, d190);
	EXPECT_STACK(t, 0, 20.0, s190, d190);
	EXPECT_STACK(t, 0, 47.690, s190, d190);
	static const char *const s194[] = {
	    "main thread", "main:1004", "GOMP_parallel [libgomp.so.1.0.0]", "main._omp_fn.0:1005"};
	static const uint32_t d194[] = {0, 1, 2, 3};
	EXPECT_STACK(t, 0, 29.695, s194, d194);
	EXPECT_STACK(t, 0, 41.0, s194, d194);
	static const char *const s2[] = {"application thread",
					 "libgomp.so.1.0.0@0x1a86d",
					 "main._omp_fn.0",
					 "loop at loops.c:1010",
					 "loop at loops.c:1010",
					 "main._omp_fn.0:1021",
					 "func2:24"};
	static const uint32_t d2[] = {0, 1, 2, NO_DEPTH, NO_DEPTH, NO_DEPTH, 3};
	EXPECT_STACK(t, 3, 30.0, s2, d2);
	/* the record's interval; context 0 at +0: not running; before a line's first record */
	pv_stack_ix s;
	int64_t st, en;
	T_EQ_INT(pv_trace_at(t, 0, 6740000, &s, &st, &en), 1);
	T_EQ_INT(st, 5735000);
	T_EQ_INT(en, 11693000);
	T_EQ_INT(pv_trace_at(t, 0, 500000, &s, NULL, NULL), 0);
	T_EQ_INT(s, PV_NONE);
	T_EQ_INT(pv_trace_at(t, 3, 500000, &s, NULL, NULL), PV_NONE);
	T_EQ_INT(pv_trace_at(t, 0, 1000874000, &s, NULL, NULL), PV_NONE); /* the end */
	pv_trace_free(t);
	pv_profile_free(p);
}

/* inline-pair, format 4: context 0 (NODE 0 THREAD 0) is trace 1: +8.810 ms at context 100. */
T_TEST(trace_hpctoolkit_v4_inline_pair)
{
	struct pv_profile *p;
	struct pv_trace *t;
	if (!open_trace(t_data("hpctoolkit/inline-pair/metadb/inline.meta.db"), &p, &t))
		return;
	T_EQ_INT(pv_trace_lines(t), 8);
	T_EQ_U64(pv_trace_records(t), 9845);
	static const char *const s100[] = {"main thread",
					   "main:11",
					   "f:2",
					   "GOMP_parallel [libgomp.so.1.0.0]:176",
					   "gomp_team_start.cold [libgomp.so.1.0.0]",
					   "gomp_simple_barrier_wait:60",
					   "gomp_barrier_wait_end [libgomp.so.1.0.0]:36"};
	static const uint32_t d100[] = {0, 1, 2, 3, 4, 5, 6};
	EXPECT_STACK(t, 0, 9.0, s100, d100);
	pv_trace_free(t);
	pv_profile_free(p);
}

/*
 * inline-pair, experiment.xml 2.2 with experiment.mt: RANK 0 THREAD 0's records 0 (+0 ms, trace
 * id 19: <no activity>), 33 (+99.552 ms) and 602 (+1998.122 ms), both trace id 195: the S at
 * line 2 of f._omp_fn.0 under GOMP_parallel, under f's inlined code at line 2 (an <inline>
 * scope: f's own line), under main's call site at line 11.
 */
T_TEST(trace_hpctoolkit_xml_inline_pair)
{
	struct pv_profile *p;
	struct pv_trace *t;
	if (!open_trace(t_data("hpctoolkit/inline-pair/xml/inline.xml.db"), &p, &t))
		return;
	T_EQ_INT(pv_trace_lines(t), 8);
	T_EQ_U64(pv_trace_records(t), 1549 + 1546 + 1132 + 1212 + 1614 + 1620 + 1217 + 1196);
	static const char *const s19[] = {"<no activity>"};
	static const uint32_t d19[] = {0};
	EXPECT_STACK(t, 0, 1.0, s19, d19);
	static const char *const s195[] = {"<program root>", "main:11", "f:2",
					   "GOMP_parallel [libgomp.so.1.0.0]", "f._omp_fn.0:2"};
	static const uint32_t d195[] = {0, 1, 2, 3, 4};
	EXPECT_STACK(t, 0, 100.0, s195, d195);
	EXPECT_STACK(t, 0, 2000.0, s195, d195);
	pv_stack_ix s;
	T_EQ_INT(pv_trace_at(t, 0, 100000000, &s, NULL, NULL), 33);
	T_EQ_INT(pv_trace_at(t, 0, 2000000000, &s, NULL, NULL), 602);
	pv_trace_free(t);
	pv_profile_free(p);
}

/* experiment.xml 2.0 with one *.hpctrace per rank (version 01.00: microseconds). */
T_TEST(trace_hpctoolkit_xml_hpctrace)
{
	struct pv_profile *p;
	struct pv_trace *t;
	if (!open_trace(t_data("hpctoolkit/legacy-xml-gauss"), &p, &t))
		return;
	/* RANK 0 THREAD 0, RANK 0 THREAD 1 (no trace), RANK 1 THREAD 0, ..., RANK 3 THREAD 0 */
	T_EQ_U64(pv_trace_records(t), 8862 + 8868 + 8867 + 8867);
	pv_stack_ix s;
	int64_t st;
	/* rank 0's first record: 1305720300685567 us; the zero: db-min-time, 1305720300545607 */
	T_EQ_INT(pv_trace_at(t, 0, (1305720300685567 - 1305720300545607) * 1000, &s, &st, NULL), 0);
	T_EQ_INT(st, (1305720300685567 - 1305720300545607) * 1000);
	T_EQ_INT(pv_trace_at(t, 1, 1000000000, &s, NULL, NULL), PV_NONE);
	pv_trace_free(t);
	pv_profile_free(p);
}

/*
 * A Firefox profile: each thread's samples are its trace; the stack at a sample's time (and
 * until the next sample) is that sample's. gecko-2.json's GeckoMain samples at 0..6 ms, by hand:
 * 3 ms is (root) > 0x100000f84 > Startup::XRE_Main (line 4391 in its frame).
 */
T_TEST(trace_firefox_samples)
{
	struct pv_profile *p;
	struct pv_trace *t;
	if (!open_trace(t_corpus("firefox/gecko-2.json"), &p, &t))
		return;
	T_EQ_INT(pv_trace_lines(t), p->threads.len);
	for (uint32_t th = 0; th < p->threads.len; th++) {
		uint32_t b = p->threads.sample_begin[th], e = p->threads.sample_end[th];
		for (uint32_t i = b; i < e; i++) {
			pv_stack_ix s = 12345;
			int64_t tm = pv_sample_time(p, i);
			uint32_t r = pv_trace_at(t, th, tm, &s, NULL, NULL);
			T_EQ_INT(r, i - b);
			T_EQ_INT(s, p->samples.stack[i]);
			/* half an interval later: still the same sample */
			T_EQ_INT(pv_trace_at(t, th, tm + 500000, &s, NULL, NULL), i - b);
		}
	}
	static const char *const s3[] = {"(root)", "0x100000f84", "Startup::XRE_Main:4391"};
	static const uint32_t d3[] = {0, 1, 2};
	EXPECT_STACK(t, 0, 3.5, s3, d3);
	pv_trace_free(t);
	pv_profile_free(p);
}

static const char *fname(const struct pv_profile *p, pv_func_ix f)
{
	return f == PV_NONE ? "(blank)" : pv_str(p, p->funcs.name[f]);
}

/* Windows: every pixel is the function at the depth of the record in force at its time. */
T_TEST(trace_window_pixels_and_query)
{
	struct pv_profile *p;
	struct pv_trace *t;
	if (!open_trace(t_data("hpctoolkit/loops-cputime-t.d"), &p, &t))
		return;
	struct pv_error err;
	struct pv_query q;
	pv_query_init(&q);
	struct pv_trace_paint *pt = NULL;
	/* 60 columns of 1 ms over [0, 60) ms, 4 rows: pixel x at x + 0.5 ms */
	struct pv_trace_window w = {0, 60000000, 0, 4, 60, 4};
	pv_func_ix px[240];
	for (uint32_t depth = 0; depth < 6; depth++) {
		T_EQ_INT(pv_trace_paint_new(t, &q, depth, &pt, &err), 0);
		T_EQ_INT(pv_trace_image(pt, &w, px, &err), 0);
		uint32_t bad = 0;
		for (uint32_t y = 0; y < 4; y++)
			for (uint32_t x = 0; x < 60; x++) {
				pv_stack_ix s = PV_NONE;
				pv_trace_at(t, y, (int64_t)x * 1000000 + 500000, &s, NULL, NULL);
				bad += px[y * 60 + x] != pv_trace_paint_func(pt, s);
			}
		T_EQ_INT(bad, 0);
		/* context 0 at 6.5 ms: stack 190 (depths 0-4) */
		static const char *const want[] = {"main thread",
						   "main",
						   "GOMP_parallel [libgomp.so.1.0.0]",
						   "main._omp_fn.0",
						   "test_separated_loops",
						   "test_separated_loops"};
		T_EQ_STR(fname(p, px[6]), want[depth]);
		T_EQ_STR(fname(p, px[0]), "(blank)"); /* 0.5 ms: not running */
		struct pv_trace_share sh[64];
		uint32_t n = pv_trace_shares(px, 60, 4, 0, 60, sh, 64), sum = 0;
		for (uint32_t i = 0; i < n && i < 64; i++)
			sum += sh[i].pixels;
		T_EQ_INT(sum, 240);
		for (uint32_t i = 1; i < n && i < 64; i++)
			T_TRUE(sh[i - 1].pixels >= sh[i].pixels);
		pv_trace_paint_free(pt);
	}
	/* a drop filter blanks its records; the others keep their colour */
	pv_query_set_option(&q, "drop", "test_separated_loops", &err);
	T_EQ_INT(pv_trace_paint_new(t, &q, 3, &pt, &err), 0);
	T_EQ_INT(pv_trace_image(pt, &w, px, &err), 0);
	T_EQ_STR(fname(p, px[6]), "(blank)");	      /* 6.5 ms: stack 190 */
	T_EQ_STR(fname(p, px[30]), "main._omp_fn.0"); /* 30.5 ms: stack 194 */
	pv_trace_paint_free(pt);
	pv_query_release(&q);
	/* --thread picks the contexts: one row, thread 3 */
	pv_query_init(&q);
	pv_query_set_option(&q, "thread", "#3", &err);
	T_EQ_INT(pv_trace_paint_new(t, &q, 3, &pt, &err), 0);
	T_EQ_INT(pv_trace_paint_contexts(pt), 1);
	T_EQ_INT(pv_trace_paint_thread(pt, 0), 3);
	struct pv_trace_window w1 = {0, 60000000, 0, 1, 60, 1};
	T_EQ_INT(pv_trace_image(pt, &w1, px, &err), 0);
	T_EQ_STR(fname(p, px[30]), "func2"); /* 30.5 ms: record at 30.692 not yet: context 2 */
	struct pv_trace_window bad = {0, 60000000, 0, 2, 60, 1};
	T_EQ_INT(pv_trace_image(pt, &bad, px, &err), PV_EINVAL);
	T_TRUE(err.msg[0] != 0);
	pv_trace_paint_free(pt);
	pv_query_release(&q);
	pv_trace_free(t);
	pv_profile_free(p);
}

/* The depth view: boxes of runs of records sharing a call path down to their depth. */
T_TEST(trace_depth_boxes)
{
	struct pv_profile *p;
	struct pv_trace *t;
	if (!open_trace(t_data("hpctoolkit/loops-cputime-t.d"), &p, &t))
		return;
	struct pv_error err;
	struct pv_trace_paint *pt = NULL;
	T_EQ_INT(pv_trace_paint_new(t, NULL, 0, &pt, &err), 0);
	struct pv_trace_box *b = NULL;
	uint32_t n = 0;
	/* context 0 over [0, 53.689) ms: 190 x4, 194 x3, 190 (the record at 53.689 is cut) */
	T_EQ_INT(pv_trace_boxes(pt, 0, 0, 53689000, 0, &b, &n, &err), 0);
	/* depth 0..3 run through all 8 records (one box each); test_separated_loops at depth 4
	 * twice: [5.735, 29.695) and [47.690, 53.689) */
	uint32_t at4 = 0, at3 = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (b[i].depth == 3) {
			at3++;
			T_EQ_INT(b[i].start, 5735000);
			T_EQ_INT(b[i].end, 53689000);
			T_EQ_STR(fname(p, b[i].func), "main._omp_fn.0");
		}
		if (b[i].depth == 4) {
			T_EQ_STR(fname(p, b[i].func), "test_separated_loops");
			T_EQ_INT(b[i].start, at4 ? 47690000 : 5735000);
			T_EQ_INT(b[i].end, at4 ? 53689000 : 29695000);
			at4++;
		}
	}
	T_EQ_INT(at3, 1);
	T_EQ_INT(at4, 2);
	T_EQ_INT(n, 6);
	pv_free_boxes(b);
	/* boxes shorter than min_ns are left out: the second box at depth 4 (6 ms) */
	T_EQ_INT(pv_trace_boxes(pt, 0, 0, 53689000, 10000000, &b, &n, &err), 0);
	T_EQ_INT(n, 5);
	pv_free_boxes(b);
	pv_trace_paint_free(pt);
	pv_trace_free(t);
	pv_profile_free(p);
}

/*
 * HPCToolkit's "<no activity>" (an idle GPU stream or thread in an XML database) is a gap: a
 * record whose stack passes through it has no function at any depth, as a blank pixel and no
 * box. A V8 profile of 4 samples 1 ms apart, work and <no activity> in turn (nodes: 1 the root,
 * which the V8 reader leaves out, 2 work, 3 <no activity>, 4 a child of 3), the last one lasting
 * the 1 ms interval.
 */
T_TEST(trace_no_activity_is_blank)
{
	static const char js[] =
	    "{\"nodes\": [{\"id\": 1, \"callFrame\": {\"functionName\": \"(root)\"}, "
	    "\"children\": [2, 3]}, {\"id\": 2, \"callFrame\": {\"functionName\": \"work\"}}, "
	    "{\"id\": 3, \"callFrame\": {\"functionName\": \"<no activity>\"}, \"children\": [4]}, "
	    "{\"id\": 4, \"callFrame\": {\"functionName\": \"stream\"}}], "
	    "\"startTime\": 0, \"endTime\": 4000, \"samples\": [2, 3, 2, 4], "
	    "\"timeDeltas\": [1000, 1000, 1000, 1000]}";
	struct pv_profile *p = NULL;
	struct pv_trace *t = NULL;
	struct pv_trace_paint *pt = NULL;
	struct pv_error err;
	if (pv_import_memory("idle.cpuprofile", js, sizeof(js) - 1, NULL, &p, &err)) {
		t_fail(__FILE__, __LINE__, "import: %s", err.msg);
		return;
	}
	T_EQ_INT(pv_trace_open(p, &t, &err), 0);
	for (uint32_t depth = 0; depth < 3; depth++) {
		T_EQ_INT(pv_trace_paint_new(t, NULL, depth, &pt, &err), 0);
		/* 4 pixels over [1, 5) ms, one a sample: work, gap, work, gap (3 and 4 below it) */
		struct pv_trace_window w = {1000000, 5000000, 0, 1, 4, 1};
		pv_func_ix px[4];
		T_EQ_INT(pv_trace_image(pt, &w, px, &err), 0);
		T_EQ_STR(fname(p, px[0]), "work");
		T_EQ_STR(fname(p, px[1]), "(blank)");
		T_EQ_STR(fname(p, px[2]), "work");
		T_EQ_STR(fname(p, px[3]), "(blank)");
		struct pv_trace_box *b = NULL;
		uint32_t n = 0;
		T_EQ_INT(pv_trace_boxes(pt, 0, 1000000, 5000000, 0, &b, &n, &err), 0);
		for (uint32_t i = 0; i < n; i++) {
			T_EQ_INT(b[i].start == 2000000 || b[i].start == 4000000, 0);
			T_EQ_INT(strcmp(fname(p, b[i].func), "<no activity>") != 0, 1);
		}
		T_EQ_INT(n, 2); /* work, twice */
		pv_free_boxes(b);
		/* why each time shows what it shows: the rule of trace --at and the page's stack */
		pv_stack_ix s = PV_NONE;
		uint32_t rec = pv_trace_at(t, 0, 2500000, &s, NULL, NULL); /* the 2nd sample: 3 */
		T_EQ_INT(rec, 1);
		T_EQ_STR(pv_trace_state_name(pv_trace_paint_state(pt, rec, s)), "no activity");
		rec = pv_trace_at(t, 0, 4500000, &s, NULL, NULL); /* the 4th: 4, below 3 */
		T_EQ_STR(pv_trace_state_name(pv_trace_paint_state(pt, rec, s)), "no activity");
		rec = pv_trace_at(t, 0, 1500000, &s, NULL, NULL);
		T_EQ_STR(pv_trace_state_name(pv_trace_paint_state(pt, rec, s)), "shown");
		rec = pv_trace_at(t, 0, 9000000, &s, NULL, NULL); /* after the line's end */
		T_EQ_INT(rec, PV_NONE);
		T_EQ_STR(pv_trace_state_name(pv_trace_paint_state(pt, rec, PV_NONE)), "no record");
		T_EQ_STR(pv_trace_state_name(pv_trace_paint_state(pt, 0, PV_NONE)), "not running");
		pv_trace_paint_free(pt);
	}
	pv_trace_free(t);
	pv_profile_free(p);
}

/*
 * Profiles whose samples have no time (a collapsed file; an HPCToolkit database without
 * trace.db): a trace of one empty line per thread, no record, nothing at any time (issue 25:
 * the copy of a thread's timed samples was NULL + 0, undefined behaviour under UBSan).
 */
T_TEST(trace_without_times)
{
	const char *files[] = {t_data("collapsed/worked-example.txt"),
			       t_data("hpctoolkit/derived.d")};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct pv_profile *p;
		struct pv_trace *t;
		if (!open_trace(files[i], &p, &t))
			continue;
		T_TRUE(p->samples.len > 0);
		T_TRUE(p->samples.time_ns == NULL);
		T_EQ_INT(pv_trace_lines(t), p->threads.len);
		T_EQ_INT(pv_trace_records(t), 0);
		pv_stack_ix s = 12345;
		T_EQ_INT(pv_trace_at(t, 0, 0, &s, NULL, NULL), PV_NONE);
		pv_trace_free(t);
		pv_profile_free(p);
	}
}

/*
 * tests of the chrome importer: Chrome trace events (array and object form) and V8 CPU profiles.
 *
 * Figures of the corpus files and of the two recordings made here (tests/data/chrome/README.md)
 * were computed once by a script over the JSON, independently of profview (kept out of the
 * tree): sample counts per thread, the time metric (each sample lasting until the profile's next
 * one, the last until the profile's end), marker rows per phase, self time per function.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sort.h"
#include "pv/import.h"
#include "t.h"
#include "tp.h"

/* The shared helpers bound to this format and its test file name. */
#define text(json) t_load_text("t.json", (json), "chrome")
#define expect_error(json, code, want) \
	t_expect_error("t.json", (json), "chrome", (code), (want), NULL)

/* Self weight (metric) and sample count of the function named name. */
static int64_t self_of(const struct pv_profile *p, const char *metric, const char *name,
		       uint32_t *count)
{
	pv_metric_ix m = pv_metric_find(p, metric);
	int64_t s = 0;
	*count = 0;
	for (uint32_t i = 0; i < p->samples.len; i++)
		if (strcmp(t_leaf_name(p, i), name) == 0) {
			s += pv_sample_weight(p, m, i);
			(*count)++;
		}
	return s;
}

static pv_thread_ix thread_by_tid(const struct pv_profile *p, int64_t pid, int64_t tid)
{
	for (uint32_t t = 0; t < p->threads.len; t++)
		if (p->threads.pid[t] == pid && p->threads.tid[t] == tid)
			return t;
	return PV_NONE;
}

static void phases_of(const struct pv_profile *p, pv_thread_ix t, uint32_t ph[4])
{
	memset(ph, 0, 4 * sizeof(ph[0]));
	for (uint32_t i = 0; i < p->markers.len; i++)
		if (t == PV_NONE || p->markers.thread[i] == t)
			ph[p->markers.phase[i] & 3]++;
}

static uint32_t find_marker(const struct pv_profile *p, const char *name)
{
	for (uint32_t i = 0; i < p->markers.len; i++)
		if (strcmp(pv_str(p, p->markers.name[i]), name) == 0)
			return i;
	return PV_NONE;
}

/* ---- the corpus ---- */

struct corpus_case {
	const char *path;
	uint32_t threads, samples;
	int64_t time_ns;
	uint32_t phases[4]; /* instant, interval, start, end */
};

static const struct corpus_case corpus[] = {
    {"speedscope/Chrome/116/Trace-20230603T221323.json",
     12,
     1600,
     265139000,
     {110, 2456, 234, 234}},
    {"speedscope/Chrome/141/no-arg-data.json", 1, 421, 55862000, {0, 0, 0, 0}},
    {"speedscope/Chrome/65/simple-timeline.json", 21, 4081, 545683000, {274, 2253, 473, 476}},
    {"speedscope/Chrome/66/worker.json", 21, 8239, 1917332000, {150, 1536, 354, 353}},
    {"speedscope/Chrome/69/simple.json", 16, 2051, 276450000, {66, 927, 149, 146}},
    {"speedscope/Chrome/70/worker.json", 20, 3380, 452252000, {105, 1988, 198, 197}},
    {"speedscope/Chrome/65/simple.cpuprofile", 1, 29, 36317000, {0, 0, 0, 0}},
    {"speedscope/Chrome/65/sucrase.cpuprofile", 1, 17138, 22003906000, {0, 0, 0, 0}},
    {"speedscope/node/10.11.0/example.cpuprofile", 1, 29, 44777000, {0, 0, 0, 0}},
    {"speedscope/source-maps/chrome-85-esbuild.json", 13, 1490, 204640000, {103, 1213, 5, 0}},
    {"firefox/chrome-trace-issue-5429.json.gz", 4, 206, 254459000, {0, 0, 51, 51}},
    /* no CPU samples: the call tree of the duration events (time: the union of the X events) */
    {"firefox/chrome-tracing.json.gz", 14, 248, 18838000, {8, 186, 0, 0}},
    {"firefox/test.chrome-unchunked.json", 2, 20, 6291251000, {28, 39, 40, 37}},
    {"firefox/test.chrome.gz", 15, 3711, 480113000, {245, 4074, 185, 185}},
    {"firefox/hello.cjs-20231120T211435.cpuprofile", 1, 150, 168955000, {0, 0, 0, 0}},
    {"speedscope/trace-event/bex-interaction.json", 1, 10, 12000, {0, 6, 6, 6}},
    {"speedscope/trace-event/multiprocess.json", 8, 8, 8000, {0, 8, 0, 0}},
    {"speedscope/trace-event/multi-thread-with-samples.json", 2, 8, 88192000, {0, 2, 0, 0}},
    {"speedscope/trace-event/simple-with-samples.json", 1, 7, 64710000, {0, 0, 0, 0}},
    {"speedscope/trace-event/simple-partial.json", 1, 6, 14000, {0, 2, 2, 2}},
    {"speedscope/trace-event/simple-partial-whitespace.json", 1, 6, 14000, {0, 2, 2, 2}},
    {"speedscope/trace-event/too-many-end-events.json", 1, 4, 14000, {0, 0, 2, 4}},
    {"speedscope/trace-event/zero-duration-events.json", 1, 4, 10000, {0, 1, 3, 3}},
};

T_TEST(chrome_corpus_figures)
{
	for (size_t i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++) {
		const struct corpus_case *c = &corpus[i];
		struct pv_profile *p = t_load(t_corpus(c->path));
		if (!p)
			continue;
		if (strcmp(pv_str(p, p->meta.format), "chrome") != 0)
			t_fail(__FILE__, __LINE__, "%s: read as %s", c->path,
			       pv_str(p, p->meta.format));
		if (p->threads.len != c->threads || p->samples.len != c->samples)
			t_fail(__FILE__, __LINE__, "%s: %u threads, %u samples; expected %u, %u",
			       c->path, p->threads.len, p->samples.len, c->threads, c->samples);
		if (t_total_named(p, "time") != c->time_ns)
			t_fail(__FILE__, __LINE__, "%s: time %lld, expected %lld", c->path,
			       (long long)t_total_named(p, "time"), (long long)c->time_ns);
		if (c->samples && pv_metric_find(p, "samples") != PV_NONE &&
		    t_total_named(p, "samples") != c->samples)
			t_fail(__FILE__, __LINE__, "%s: samples metric %lld", c->path,
			       (long long)t_total_named(p, "samples"));
		uint32_t ph[4];
		phases_of(p, PV_NONE, ph);
		if (memcmp(ph, c->phases, sizeof(ph)) != 0)
			t_fail(__FILE__, __LINE__, "%s: phases %u %u %u %u, expected %u %u %u %u",
			       c->path, ph[0], ph[1], ph[2], ph[3], c->phases[0], c->phases[1],
			       c->phases[2], c->phases[3]);
		pv_profile_free(p);
	}
}

T_TEST(chrome_corpus_details)
{
	/* 116: threads ordered by process_sort_index (Browser -6, Renderer -5, GPU -1) */
	struct pv_profile *p = t_load(t_corpus("speedscope/Chrome/116/Trace-20230603T221323.json"));
	if (p) {
		T_EQ_STR(pv_str(p, p->threads.name[0]), "CrBrowserMain");
		T_EQ_STR(pv_str(p, p->threads.process_name[0]), "Browser");
		pv_thread_ix t = thread_by_tid(p, 6543, 259);
		T_EQ_INT(t, 3);
		T_EQ_STR(pv_str(p, p->threads.name[t]), "CrRendererMain");
		T_EQ_STR(pv_str(p, p->threads.process_name[9]), "GPU Process");
		/* the CPU samples are the Profile's thread's, not the sampler thread's */
		T_EQ_INT(p->threads.sample_end[t] - p->threads.sample_begin[t], 1600);
		T_EQ_INT(t_diag_count(p, "flow events"), 26);
		T_EQ_INT(t_diag_count(p, "object events"), 3);
		T_EQ_INT(t_diag_count(p, "top-level 'metadata'"), 1);
		/* b/e carry their id2 in the payload */
		uint32_t m = PV_NONE;
		for (uint32_t i = 0; i < p->markers.len && m == PV_NONE; i++)
			if (p->markers.phase[i] == PV_PHASE_START &&
			    strstr(pv_str(p, p->markers.payload[i]), "\"id\":\"local:"))
				m = i;
		T_TRUE(m != PV_NONE);
		pv_profile_free(p);
	}
	/* a whole cpuProfile inside a chunk (rspack) on the Profile's own clock */
	p = t_load(t_corpus("firefox/chrome-trace-issue-5429.json.gz"));
	if (p) {
		pv_thread_ix t = thread_by_tid(p, 44554, 44554);
		T_TRUE(t != PV_NONE);
		if (t != PV_NONE)
			T_EQ_INT(p->threads.sample_end[t] - p->threads.sample_begin[t], 206);
		pv_profile_free(p);
	}
	/* README: 307 events, M 113, X 186, I 8; threads are the 14 with events */
	p = t_load(t_corpus("firefox/chrome-tracing.json.gz"));
	if (p) {
		T_EQ_INT(p->markers.len, 194);
		T_EQ_INT(t_diag_count(p, "metadata events 'process_uptime_seconds'"), 12);
		pv_profile_free(p);
	}
	/* README: 164 nodes, 150 samples; the (root) node is no frame: 163 stacks, and one more
	 * per positionTicks entry (116, each a line of its node's samples, all used up) */
	p = t_load(t_corpus("firefox/hello.cjs-20231120T211435.cpuprofile"));
	if (p) {
		T_EQ_INT(p->stacks.len, 163 + 116);
		T_EQ_INT(t_diag_count(p, "positionTicks"), 0);
		T_EQ_STR(pv_str(p, p->meta.product), "V8 CPU profile");
		pv_profile_free(p);
	}
	/* a zipped tick log opens as the v8log format it holds (zip.c; heap profiles:
	 * test_chrome_heap.c) */
	static const char *const others[] = {
	    "speedscope/node/8.5.0/simple.v8log.json.zip",
	};
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		struct pv_error err;
		p = NULL;
		T_TRUE(pv_import_file(t_corpus(others[i]), NULL, &p, &err) == 0);
		if (p)
			T_EQ_STR(pv_str(p, p->meta.format), "v8log");
		pv_profile_free(p);
	}
}

/* ---- the recordings made here ---- */

T_TEST(chrome_node_cpu_prof_recorded)
{
	struct pv_profile *p = t_load(t_data("chrome/node-wordfreq.cpuprofile"));
	if (!p)
		return;
	T_EQ_INT(p->threads.len, 1);
	T_EQ_STR(pv_str(p, p->threads.name[0]), "Main");
	T_EQ_INT(p->samples.len, 504);
	T_EQ_INT(t_total_named(p, "time"), 1127167000);
	T_EQ_INT(p->meta.default_metric, pv_metric_find(p, "time"));
	uint32_t n;
	T_EQ_INT(self_of(p, "time", "countWords", &n), 395494000);
	T_EQ_INT(n, 188);
	T_EQ_INT(self_of(p, "time", "makeText", &n), 274161000);
	T_EQ_INT(n, 140);
	T_EQ_INT(self_of(p, "time", "(garbage collector)", &n), 219683000);
	T_EQ_INT(self_of(p, "time", "sieve", &n), 73778000);
	T_EQ_INT(n, 28);
	/* lineNumber is 0-based in the file, 1-based here: countWords is on line 15 */
	for (uint32_t f = 0; f < p->funcs.len; f++) {
		if (strcmp(pv_str(p, p->funcs.name[f]), "countWords") != 0)
			continue;
		T_EQ_INT(pv_func_line(p, f), 15);
		T_EQ_STR(pv_str(p, p->modules.name[pv_func_module(p, f)]),
			 "file:///tmp/rec/wordfreq.js");
		T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, f)]),
			 "file:///tmp/rec/wordfreq.js");
	}
	pv_profile_free(p);
}

/* The samples of metric "samples" whose leaf is function name at line ln. */
static int64_t line_self(const struct pv_profile *p, const char *name, uint32_t ln)
{
	pv_metric_ix m = pv_metric_find(p, "samples");
	int64_t s = 0;
	for (uint32_t i = 0; i < p->samples.len; i++) {
		pv_stack_ix st = p->samples.stack[i];
		if (st == PV_NONE)
			continue;
		pv_frame_ix f = p->stacks.frame[st];
		if (pv_frame_line(p, f) == ln && strcmp(t_leaf_name(p, i), name) == 0)
			s += pv_sample_weight(p, m, i);
	}
	return s;
}

/*
 * positionTicks kept: each line's samples are the ticks the file gives it (counted from the JSON
 * by hand: 19 nodes, 386 ticks). Three nodes have one, one and three samples more than their
 * ticks (their hitCount): those samples keep the function's line, and the report says so.
 */
T_TEST(chrome_position_ticks_lines)
{
	struct pv_profile *p = t_load(t_data("chrome/node-wordfreq.cpuprofile"));
	if (!p)
		return;
	T_EQ_INT(line_self(p, "countWords", 17), 104);
	T_EQ_INT(line_self(p, "countWords", 18), 83);
	T_EQ_INT(line_self(p, "makeText", 12), 74);
	T_EQ_INT(line_self(p, "makeText", 10), 52);
	T_EQ_INT(line_self(p, "makeText", 9), 11);
	T_EQ_INT(line_self(p, "sieve", 33), 13);
	T_EQ_INT(line_self(p, "sieve", 32), 5);
	T_EQ_INT(line_self(p, "sieve", 30), 4);
	T_EQ_INT(line_self(p, "sieve", 31), 3);
	T_EQ_INT(line_self(p, "roundTrip", 39), 9);
	T_EQ_INT(line_self(p, "main", 46), 6);
	T_EQ_INT(line_self(p, "main", 48), 4);
	/* the samples past the ticks: countWords 1, makeText 1, sieve 3, on the definition line */
	T_EQ_INT(line_self(p, "countWords", 15), 1);
	T_EQ_INT(line_self(p, "makeText", 5), 1);
	T_EQ_INT(line_self(p, "sieve", 27), 3);
	int64_t lined = 0;
	pv_metric_ix m = pv_metric_find(p, "samples");
	for (uint32_t i = 0; i < p->samples.len; i++) {
		pv_stack_ix st = p->samples.stack[i];
		pv_frame_ix f = st == PV_NONE ? PV_NONE : p->stacks.frame[st];
		if (f != PV_NONE && pv_frame_line(p, f) &&
		    pv_frame_line(p, f) != pv_func_line(p, p->frames.func[f]))
			lined += pv_sample_weight(p, m, i);
	}
	T_EQ_INT(lined, 386);
	T_EQ_INT(t_diag_count(p, "positionTicks"), 3);
	pv_profile_free(p);
}

T_TEST(chrome_chromium_trace_recorded)
{
	struct pv_profile *p = t_load(t_data("chrome/chromium-page.json.gz"));
	if (!p)
		return;
	T_EQ_INT(p->threads.len, 4);
	T_EQ_INT(p->samples.len, 8533);
	T_EQ_INT(t_total_named(p, "time"), 2379199000);
	static const struct {
		int64_t pid, tid;
		const char *name, *process;
		uint32_t samples, ph[4];
	} th[] = {
	    {0, 0, "swapper", "", 0, {3, 0, 0, 0}},
	    {10356, 10356, "CrRendererMain", NULL, 0, {30, 0, 0, 0}},
	    {10381, 10381, "CrRendererMain", "Renderer", 4896, {20, 23, 1, 0}},
	    {10375, 10375, "CrRendererMain", "Renderer", 3637, {101, 167, 0, 0}},
	};
	for (uint32_t i = 0; i < 4; i++) {
		T_EQ_INT(p->threads.pid[i], th[i].pid);
		T_EQ_INT(p->threads.tid[i], th[i].tid);
		T_EQ_STR(pv_str(p, p->threads.name[i]), th[i].name);
		if (th[i].process)
			T_EQ_STR(pv_str(p, p->threads.process_name[i]), th[i].process);
		T_EQ_INT(p->threads.sample_end[i] - p->threads.sample_begin[i], th[i].samples);
		uint32_t ph[4];
		phases_of(p, i, ph);
		T_TRUE(memcmp(ph, th[i].ph, sizeof(ph)) == 0);
	}
	/* the page's User Timing mark, an instant with its args */
	uint32_t m = find_marker(p, "work-start");
	T_TRUE(m != PV_NONE);
	if (m != PV_NONE) {
		T_EQ_INT(p->markers.phase[m], PV_PHASE_INSTANT);
		T_EQ_INT(p->markers.thread[m], 3);
		T_CONTAINS(pv_str(p, p->markers.payload[m]), "\"callTime\":4442920033");
		T_EQ_STR(pv_str(p, p->categories.name[p->markers.category[m]]),
			 "blink.user_timing");
	}
	/* the page's functions, with their file and 1-based line */
	uint32_t n;
	T_TRUE(self_of(p, "time", "sortNumbers", &n) > 300000000);
	for (uint32_t f = 0; f < p->funcs.len; f++)
		if (strcmp(pv_str(p, p->funcs.name[f]), "sortNumbers") == 0) {
			T_EQ_INT(pv_func_line(p, f), 8);
			T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, f)]),
				 "file:///tmp/rec/page.html");
		}
	pv_profile_free(p);
}

/*
 * A trace without CPU samples: its duration events as a call tree, as speedscope draws it (its
 * snapshot tests of the same files: frame self and total weights in µs).
 */
T_TEST(chrome_duration_events_tree)
{
	static const struct {
		const char *file;
		const char *names[4];
		int64_t self_us[4];
	} cases[] = {
	    {"simple.json", {"alpha", "beta", "gamma", "epsilon"}, {2, 3, 5, 4}},
	    {"simple-object.json", {"alpha", "beta", "(unnamed)", NULL}, {2, 8, 4, 0}},
	    {"too-many-end-events.json", {"alpha", "beta", NULL, NULL}, {2, 12, 0, 0}},
	    {"must-retain-original-order.json", {"A", "B", "C", "X"}, {2, 2, 2, 3}},
	    {"multiprocess.json", {"alpha", "beta", "gamma", "delta"}, {1, 1, 1, 1}},
	};
	char path[128];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(path, sizeof(path), "speedscope/trace-event/%s", cases[i].file);
		struct pv_profile *p = t_load(t_corpus(path));
		if (!p)
			continue;
		T_EQ_INT(p->metrics.len, 1);
		for (int k = 0; k < 4 && cases[i].names[k]; k++) {
			uint32_t n;
			int64_t got = self_of(p, "time", cases[i].names[k], &n);
			if (got != cases[i].self_us[k] * 1000)
				t_fail(__FILE__, __LINE__, "%s: %s self %lld ns, expected %lld µs",
				       cases[i].file, cases[i].names[k], (long long)got,
				       (long long)cases[i].self_us[k]);
		}
		pv_profile_free(p);
	}
	/* an E that ends nothing open, a B never ended */
	struct pv_profile *p =
	    text("[{\"ph\":\"B\",\"name\":\"a\",\"ts\":0,\"pid\":1,\"tid\":1},"
		 "{\"ph\":\"E\",\"name\":\"zzz\",\"ts\":1,\"pid\":1,\"tid\":1},"
		 "{\"ph\":\"X\",\"name\":\"b\",\"ts\":2,\"dur\":3,\"pid\":1,\"tid\":1}]");
	if (p) {
		char buf[128];
		t_stack_path(p, p->samples.stack[p->samples.len - 1], " > ", buf, sizeof(buf));
		T_EQ_STR(buf, "a > b");
		T_EQ_INT(t_total_named(p, "time"), 5000);
		T_EQ_INT(t_diag_count(p, "'E' events ending no open event"), 1);
		T_EQ_INT(t_diag_count(p, "events begun and never ended"), 1);
		pv_profile_free(p);
	}
}

/* ---- semantics, on small inputs ---- */

T_TEST(chrome_times_exact)
{
	/* µs as integers, fractions, strings and exponents; the zero is the earliest time */
	struct pv_profile *p =
	    text("[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1.5,\"dur\":\"2.25\",\"pid\":1,\"tid\":2},"
		 "{\"ph\":\"i\",\"name\":\"b\",\"ts\":\"3\",\"pid\":1,\"tid\":2,\"s\":\"g\"},"
		 "{\"ph\":\"B\",\"name\":\"c\",\"ts\":1e1,\"pid\":1,\"tid\":2},"
		 "{\"ph\":\"E\",\"name\":\"c\",\"ts\":10.0005,\"pid\":1,\"tid\":2},"
		 "{\"ph\":\"X\",\"name\":\"d\",\"ts\":1234567890123.456,\"dur\":0.001,\"pid\":1,"
		 "\"tid\":2}]");
	if (!p)
		return;
	T_EQ_INT(p->markers.len, 5);
	uint32_t a = find_marker(p, "a"), b = find_marker(p, "b"), d = find_marker(p, "d");
	T_EQ_INT(p->markers.phase[a], PV_PHASE_INTERVAL);
	T_EQ_INT(p->markers.start_ns[a], 0);
	T_EQ_INT(p->markers.end_ns[a], 2250);
	T_EQ_INT(p->markers.start_ns[b], 1500);
	T_EQ_INT(p->markers.end_ns[b], PV_TIME_NONE);
	/* B then E of c, in time order */
	T_EQ_INT(p->markers.phase[2], PV_PHASE_START);
	T_EQ_INT(p->markers.start_ns[2], 8500);
	T_EQ_INT(p->markers.phase[3], PV_PHASE_END);
	T_EQ_INT(p->markers.end_ns[3], 8501); /* 10000.5 ns rounds half up */
	T_EQ_INT(p->markers.start_ns[d], 1234567890123456LL - 1500);
	T_EQ_INT(p->markers.end_ns[d] - p->markers.start_ns[d], 1);
	pv_profile_free(p);
}

T_TEST(chrome_metadata_threads)
{
	/* M events anywhere name and order threads; tids may be strings */
	struct pv_profile *p = text(
	    "{\"traceEvents\":["
	    "{\"ph\":\"X\",\"name\":\"w\",\"ts\":5,\"dur\":1,\"pid\":7,\"tid\":\"71\"},"
	    "{\"ph\":\"X\",\"name\":\"x\",\"ts\":1,\"dur\":1,\"pid\":8,\"tid\":81},"
	    "{\"ph\":\"X\",\"name\":\"y\",\"ts\":2,\"dur\":1,\"pid\":8,\"tid\":82},"
	    "{\"ph\":\"X\",\"name\":\"z\",\"ts\":3,\"dur\":1,\"pid\":9,\"tid\":\"worker\"},"
	    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":8,\"tid\":82,\"args\":{\"name\":"
	    "\"Main\"}},"
	    "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":8,\"tid\":82,\"args\":{\"sort_"
	    "index\":-1}},"
	    "{\"args\":{\"name\":\"Browser\"},\"name\":\"process_name\",\"ph\":\"M\",\"pid\":8},"
	    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":8,\"args\":{\"labels\":\"tab\"}},"
	    "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":8,\"args\":{\"sort_index\":-3}},"
	    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":9,\"args\":{\"labels\":\"gpu\"}},"
	    "{\"ph\":\"M\",\"name\":\"num_cpus\",\"pid\":9,\"args\":{\"number\":8}}]}");
	if (!p)
		return;
	T_EQ_INT(p->threads.len, 4);
	/* process 8 first (sort index -3), its thread 82 first (-1); then 7, then 9 */
	T_EQ_INT(p->threads.tid[0], 82);
	T_EQ_STR(pv_str(p, p->threads.name[0]), "Main");
	T_EQ_STR(pv_str(p, p->threads.process_name[0]), "Browser (tab)");
	T_EQ_INT(p->threads.tid[1], 81);
	T_EQ_STR(pv_str(p, p->threads.name[1]), "Thread 81");
	T_EQ_INT(p->threads.pid[2], 7);
	T_EQ_INT(p->threads.tid[2], 71);
	T_EQ_INT(p->threads.tid[3], PV_ID_NONE);
	T_EQ_STR(pv_str(p, p->threads.name[3]), "Thread worker");
	T_EQ_STR(pv_str(p, p->threads.process_name[3]), "Process 9 (gpu)");
	T_EQ_INT(t_diag_count(p, "metadata events 'num_cpus'"), 1);
	pv_profile_free(p);
}

T_TEST(chrome_markers_phases_payloads)
{
	struct pv_profile *p = text(
	    "[{\"ph\":\"B\",\"name\":\"job\",\"cat\":\"sched\",\"ts\":1,\"pid\":1,\"tid\":1,"
	    "\"args\":{\"n\": 1, \"s\":\"a\\\"b\"}},"
	    "{\"ph\":\"E\",\"name\":\"job\",\"ts\":4,\"pid\":1,\"tid\":1,\"args\":{}},"
	    "{\"args\":{\"url\":\"x\"},\"ph\":\"b\",\"name\":\"load\",\"cat\":\"net\",\"id\":"
	    "\"0x5\","
	    "\"ts\":2,\"pid\":1,\"tid\":1},"
	    "{\"ph\":\"e\",\"name\":\"load\",\"cat\":\"net\",\"id2\":{\"local\":\"0x5\"},\"scope\":"
	    "\"s\","
	    "\"ts\":6,\"pid\":1,\"tid\":2,\"args\":{\"id\":7,\"ok\":true}},"
	    "{\"ph\":\"n\",\"name\":\"step\",\"cat\":\"net\",\"id\":5,\"ts\":3,\"pid\":1,\"tid\":1}"
	    ","
	    "{\"ph\":\"S\",\"name\":\"old\",\"id\":\"9\",\"ts\":3,\"pid\":1,\"tid\":1},"
	    "{\"ph\":\"T\",\"name\":\"old\",\"id\":\"9\",\"ts\":4,\"pid\":1,\"tid\":1,\"args\":{"
	    "\"step\":\"s1\"}},"
	    "{\"ph\":\"F\",\"name\":\"old\",\"id\":\"9\",\"ts\":5,\"pid\":1,\"tid\":1},"
	    "{\"ph\":\"R\",\"name\":\"firstPaint\",\"ts\":5,\"pid\":1,\"tid\":1},"
	    "{\"ph\":\"I\",\"name\":\"old-instant\",\"ts\":5,\"pid\":1,\"tid\":1,\"args\":{\"id\":"
	    "3}},"
	    "{\"ph\":\"C\",\"name\":\"counter\",\"ts\":5,\"pid\":1,\"tid\":1,\"args\":{\"v\":1}},"
	    "{\"ph\":\"s\",\"name\":\"flow\",\"id\":1,\"ts\":5,\"pid\":1,\"tid\":1},"
	    "{\"ph\":\"f\",\"name\":\"flow\",\"id\":1,\"ts\":6,\"pid\":1,\"tid\":1},"
	    "{\"ph\":\"i\",\"name\":\"no time\",\"pid\":1,\"tid\":1},"
	    "{\"ph\":\"X\",\"name\":\"neg\",\"ts\":1,\"dur\":-5,\"pid\":1,\"tid\":1}]");
	if (!p)
		return;
	T_EQ_INT(p->markers.len, 11);
	uint32_t ph[4];
	phases_of(p, PV_NONE, ph);
	T_EQ_INT(ph[PV_PHASE_INSTANT], 4); /* n, T, R, I */
	T_EQ_INT(ph[PV_PHASE_INTERVAL], 1);
	T_EQ_INT(ph[PV_PHASE_START], 3); /* B, b, S */
	T_EQ_INT(ph[PV_PHASE_END], 3);	 /* E, e, F */
	uint32_t m = find_marker(p, "job");
	T_EQ_INT(p->markers.phase[m], PV_PHASE_START);
	T_EQ_STR(pv_str(p, p->markers.payload[m]), "{\"n\":1,\"s\":\"a\\\"b\"}");
	T_EQ_STR(pv_str(p, p->categories.name[p->markers.category[m]]), "sched");
	/* an E with empty args has no payload */
	for (uint32_t i = 0; i < p->markers.len; i++)
		if (p->markers.phase[i] == PV_PHASE_END &&
		    strcmp(pv_str(p, p->markers.name[i]), "job") == 0)
			T_EQ_INT(p->markers.payload[i], 0);
	/* async ids: id, id2 with scope; the event's id replaces an args id */
	m = find_marker(p, "load");
	T_EQ_STR(pv_str(p, p->markers.payload[m]), "{\"id\":\"0x5\",\"url\":\"x\"}");
	for (uint32_t i = 0; i < p->markers.len; i++)
		if (p->markers.phase[i] == PV_PHASE_END &&
		    strcmp(pv_str(p, p->markers.name[i]), "load") == 0) {
			T_EQ_STR(pv_str(p, p->markers.payload[i]),
				 "{\"id\":\"s:local:0x5\",\"ok\":true}");
			T_EQ_INT(p->threads.tid[p->markers.thread[i]], 2);
		}
	T_EQ_STR(pv_str(p, p->markers.payload[find_marker(p, "step")]), "{\"id\":\"5\"}");
	/* a non-async event keeps its args id */
	T_EQ_STR(pv_str(p, p->markers.payload[find_marker(p, "old-instant")]), "{\"id\":3}");
	m = find_marker(p, "neg");
	T_EQ_INT(p->markers.end_ns[m], p->markers.start_ns[m]);
	T_EQ_INT(t_diag_count(p, "async events' args 'id'"), 1);
	T_EQ_INT(t_diag_count(p, "counter events"), 1);
	T_EQ_INT(t_diag_count(p, "flow events"), 2);
	T_EQ_INT(t_diag_count(p, "events without a time"), 1);
	T_EQ_INT(t_diag_count(p, "negative duration"), 1);
	/* by time within the thread: job start (1), load start (2), ... */
	T_EQ_STR(pv_str(p, p->markers.name[0]), "job");
	T_EQ_STR(pv_str(p, p->markers.name[1]), "neg");
	pv_profile_free(p);
}

T_TEST(chrome_array_form_tolerance)
{
	static const char *const ok[] = {
	    "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1}",
	    "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1},\n",
	    "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1},\n  \n",
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct pv_profile *p = text(ok[i]);
		if (!p)
			continue;
		T_EQ_INT(p->markers.len, 1);
		T_EQ_INT(t_diag_count(p, "truncated"), 0);
		pv_profile_free(p);
	}
	/* a last event cut off: dropped and reported */
	struct pv_profile *p =
	    text("[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1},"
		 "{\"ph\":\"X\",\"name\":\"b\",\"ts\":2,\"args\":{\"x\":[1,");
	if (p) {
		T_EQ_INT(p->markers.len, 1);
		T_EQ_INT(t_diag_count(p, "truncated"), 1);
		pv_profile_free(p);
	}
	/* the object form must be whole */
	struct pv_error err;
	T_EQ_INT(t_import_str("t.json", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1}",
			      NULL, &p, &err),
		 PV_EPARSE);
	T_CONTAINS(err.msg, "t.json: line 1, column 45: expected ',' or ']'");
	/* a non-event element is skipped and counted */
	p = text("[1, {\"ph\":\"i\",\"name\":\"a\",\"ts\":1}, \"x\"]");
	if (p) {
		T_EQ_INT(p->markers.len, 1);
		T_EQ_INT(t_diag_count(p, "array elements that are not events"), 2);
		pv_profile_free(p);
	}
}

T_TEST(chrome_profile_chunks)
{
	/*
	 * A Profile on the renderer thread, chunks from the sampler thread, out of file order
	 * (ordered by ts); nodes with parents across chunks; a negative delta (samples put in time
	 * order); per-sample lines; the last chunk's endTime (its ts ends the profile).
	 */
	struct pv_profile *p = text(
	    "{\"traceEvents\":["
	    "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x1\",\"pid\":5,\"tid\":99,\"ts\":"
	    "300,"
	    "\"args\":{\"data\":{\"cpuProfile\":{\"samples\":[3,2]},\"timeDeltas\":[10,-5],"
	    "\"lines\":[7,0]}}},"
	    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":5,\"tid\":1,\"args\":{\"name\":"
	    "\"CrRendererMain\"}},"
	    "{\"args\":{\"data\":{\"startTime\":100}},\"ph\":\"P\",\"name\":\"Profile\",\"id\":"
	    "\"0x1\","
	    "\"pid\":5,\"tid\":1,\"ts\":99},"
	    "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x1\",\"pid\":5,\"tid\":99,\"ts\":"
	    "200,"
	    "\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":["
	    "{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":0}},"
	    "{\"id\":2,\"parent\":1,\"callFrame\":{\"functionName\":\"main\",\"url\":\"https://"
	    "a.example/x/app.js\","
	    "\"lineNumber\":0,\"columnNumber\":4,\"scriptId\":7}},"
	    "{\"id\":3,\"parent\":2,\"callFrame\":{\"functionName\":\"\",\"url\":\"https://"
	    "a.example/x/app.js\","
	    "\"lineNumber\":5,\"columnNumber\":0}}],\"samples\":[2,3]},\"timeDeltas\":[20,30]}}},"
	    "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x1\",\"pid\":5,\"tid\":99,\"ts\":"
	    "400,"
	    "\"args\":{\"data\":{\"endTime\":123456789}}},"
	    "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x2\",\"pid\":5,\"tid\":99,\"ts\":"
	    "400,"
	    "\"args\":{\"data\":{\"cpuProfile\":{\"samples\":[1]},\"timeDeltas\":[1]}}}]}");
	if (!p)
		return;
	T_EQ_INT(p->threads.len, 1);
	T_EQ_STR(pv_str(p, p->threads.name[0]), "CrRendererMain");
	T_EQ_INT(p->threads.tid[0], 1);
	T_EQ_INT(p->samples.len, 4);
	/* times: 100+20=120, 150, 160, 155 -> sorted 120 150 155 160; zero is the start (100) */
	static const int64_t want_t[] = {20000, 50000, 55000, 60000};
	static const int64_t want_w[] = {30000, 5000, 5000, 240000}; /* last: until ts 400 */
	static const char *const want_leaf[] = {"main", "(anonymous)", "main", "(anonymous)"};
	pv_metric_ix mt = pv_metric_find(p, "time");
	for (uint32_t i = 0; i < 4; i++) {
		T_EQ_INT(pv_sample_time(p, i), want_t[i]);
		T_EQ_INT(pv_sample_weight(p, mt, i), want_w[i]);
		T_EQ_STR(t_leaf_name(p, i), want_leaf[i]);
	}
	char path[256];
	t_stack_path(p, p->samples.stack[1], " > ", path, sizeof(path));
	T_EQ_STR(path, "main > (anonymous)");
	/* the sample with a line gets a frame of that line; others the function's (1-based) */
	pv_frame_ix f1 = p->stacks.frame[p->samples.stack[1]];
	pv_frame_ix f3 = p->stacks.frame[p->samples.stack[3]];
	T_EQ_INT(pv_frame_line(p, f1), 6);
	T_EQ_INT(pv_frame_line(p, f3), 7);
	pv_frame_ix f0 = p->stacks.frame[p->samples.stack[0]];
	T_EQ_INT(pv_frame_line(p, f0), 1);
	T_EQ_INT(pv_frame_column(p, f0), 5);
	pv_func_ix fn = p->frames.func[f0];
	T_EQ_STR(pv_str(p, p->modules.name[pv_func_module(p, fn)]), "https://a.example");
	T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, fn)]), "https://a.example/x/app.js");
	T_EQ_STR(pv_str(p, p->categories.name[pv_frame_category(p, f0)]), "JavaScript");
	T_EQ_INT(t_diag_count(p, "ProfileChunk events of no Profile"), 1);
	T_EQ_INT(p->meta.interval_ns, 5000);
	pv_profile_free(p);
}

T_TEST(chrome_cpuprofile_shapes)
{
	/* children lists, ids in any order, a sample of a missing node, no endTime */
	struct pv_profile *p = text(
	    "{\"nodes\":[{\"id\":3,\"callFrame\":{\"functionName\":\"leaf\",\"url\":\"/srv/"
	    "app.js\","
	    "\"lineNumber\":9,\"columnNumber\":-1},\"children\":[]},"
	    "{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"url\":\"\",\"lineNumber\":-1},"
	    "\"children\":[2]},"
	    "{\"id\":2,\"callFrame\":{\"functionName\":\"(program)\",\"lineNumber\":-1},"
	    "\"children\":[3]}],"
	    "\"samples\":[3,3,42],\"timeDeltas\":[5,5,5],\"startTime\":1000}");
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.product), "V8 CPU profile");
	T_EQ_INT(p->samples.len, 3);
	char path[128];
	t_stack_path(p, p->samples.stack[0], " > ", path, sizeof(path));
	T_EQ_STR(path, "(program) > leaf");
	T_EQ_INT(p->samples.stack[2], PV_NONE);
	T_EQ_INT(t_diag_count(p, "samples naming no node"), 1);
	T_EQ_INT(t_total_named(p, "time"), 10000); /* the last sample lasts 0 without endTime */
	pv_func_ix f = p->frames.func[p->stacks.frame[p->samples.stack[0]]];
	T_EQ_INT(pv_func_line(p, f), 10);
	/* a script that is no web page's: its URL is its module (doc/modules.md) */
	T_EQ_STR(pv_str(p, p->modules.name[pv_func_module(p, f)]), "/srv/app.js");
	pv_profile_free(p);

	/* the old layout: a nested head tree, timestamps, start and end in seconds */
	p = text("{\"head\":{\"functionName\":\"(root)\",\"id\":1,\"children\":["
		 "{\"functionName\":\"a\",\"url\":\"\",\"lineNumber\":2,\"id\":2,\"children\":["
		 "{\"functionName\":\"b\",\"lineNumber\":4,\"id\":3,\"children\":[]}]}]},"
		 "\"startTime\":10.5,\"endTime\":10.6,\"samples\":[3,2,3],"
		 "\"timestamps\":[10500010,10500030,10500040]}");
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.product), "V8 CPU profile (head tree)");
	t_stack_path(p, p->samples.stack[0], " > ", path, sizeof(path));
	T_EQ_STR(path, "a > b");
	T_EQ_INT(pv_sample_time(p, 0), 10000);
	T_EQ_INT(t_total_named(p, "time"), 99990000); /* the last sample lasts until 10.6 s */
	pv_profile_free(p);
}

T_TEST(chrome_cpuprofile_in_place)
{
	/*
	 * One samples/timeDeltas pair in time order: read in place into the model's columns (no
	 * copy). Times 1005, 1015, 1015, 1035 µs from a start of 1000 (the zero); each lasts until
	 * the next, the last until endTime 1100; the fifth sample has no delta.
	 */
	struct pv_profile *p = text(
	    "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"lineNumber\":-1},"
	    "\"children\":[2]},{\"id\":2,\"callFrame\":{\"functionName\":\"a\",\"lineNumber\":1},"
	    "\"children\":[3]},{\"id\":3,\"callFrame\":{\"functionName\":\"b\",\"lineNumber\":2}}],"
	    "\"samples\":[2,3,3,9,3],\"timeDeltas\":[5,10,0,20],\"startTime\":1000,"
	    "\"endTime\":1100}");
	if (!p)
		return;
	T_EQ_INT(p->samples.len, 4);
	T_EQ_INT(t_diag_count(p, "samples without a time delta"), 1);
	T_EQ_INT(t_diag_count(p, "samples naming no node"), 1);
	const int64_t times[4] = {5000, 15000, 15000, 35000};
	const int64_t lasts[4] = {10000, 0, 20000, 65000};
	pv_metric_ix m = pv_metric_find(p, "time");
	T_TRUE(m != PV_NONE);
	for (uint32_t i = 0; i < 4; i++) {
		T_EQ_INT(pv_sample_time(p, i), times[i]);
		T_EQ_INT(pv_sample_weight(p, m, i), lasts[i]);
		T_EQ_INT(pv_sample_weight(p, 0, i), 1);
	}
	char path[64];
	t_stack_path(p, p->samples.stack[1], " > ", path, sizeof(path));
	T_EQ_STR(path, "a > b");
	T_EQ_INT(p->samples.stack[3], PV_NONE);
	T_EQ_INT(p->meta.interval_ns, 20000); /* gaps 10 and 20 µs (0 is no gap): the upper */
	pv_profile_free(p);
}

/* The k-th smallest by selection, against a sort, on orders selection finds hard. */
T_TEST(chrome_select_median)
{
	int64_t hand[7] = {9, -3, 7, 7, 0, 12, 7};
	T_EQ_INT(pv_select_i64(hand, 7, 0), -3);
	T_EQ_INT(pv_select_i64(hand, 7, 3), 7);
	T_EQ_INT(pv_select_i64(hand, 7, 6), 12);
	enum { N = 5000 };
	int64_t *v = malloc(N * sizeof(*v)), *w = malloc(N * sizeof(*w));
	if (!v || !w) {
		free(v);
		free(w);
		T_TRUE(0);
		return;
	}
	uint64_t x = 88172645463325252ull;
	for (int shape = 0; shape < 4; shape++) {
		for (int i = 0; i < N; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			v[i] = shape == 0   ? (int64_t)(x % 1000)
			       : shape == 1 ? i
			       : shape == 2 ? N - i
					    : (i % 2 ? i : -i); /* organ pipe */
		}
		memcpy(w, v, N * sizeof(*v));
		pv_sort(w, N, sizeof(*w), pv_cmp_i64);
		for (size_t k = 0; k < N; k += 499) {
			int64_t *u = malloc(N * sizeof(*u));
			if (!u)
				break;
			memcpy(u, v, N * sizeof(*v));
			T_EQ_INT(pv_select_i64(u, N, k), w[k]);
			free(u);
		}
	}
	free(v);
	free(w);
}

T_TEST(chrome_stack_frames_samples)
{
	struct pv_profile *p = text(
	    "{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":3,\"tid\":\"7\","
	    "\"args\":{\"name\":\"js\"}},"
	    "{\"ph\":\"i\",\"name\":\"gc\",\"ts\":\"15\",\"pid\":3,\"tid\":7,\"sf\":\"3\"}],"
	    "\"samples\":[{\"cpu\":\"-1\",\"tid\":\"7\",\"ts\":\"10\",\"weight\":\"2\",\"sf\":3},"
	    "{\"tid\":7,\"ts\":\"20\",\"sf\":\"2\"},{\"tid\":7,\"ts\":\"25\",\"sf\":\"99\"}],"
	    "\"stackFrames\":{\"1\":{\"name\":\"[root]\",\"category\":\"root\"},"
	    "\"2\":{\"name\":\"run(http://h.example/"
	    "b.js?x=1:12:3)\",\"category\":\"JavaScript\",\"parent\":1},"
	    "\"3\":{\"name\":\"[GC]\",\"category\":\"Metadata\",\"parent\":\"2\"}}}");
	if (!p)
		return;
	T_EQ_INT(p->threads.len, 1);
	T_EQ_INT(p->threads.pid[0], 3); /* samples without a pid: the one thread with their tid */
	T_EQ_INT(p->samples.len, 3);
	char path[256];
	t_stack_path(p, p->samples.stack[0], " > ", path, sizeof(path));
	T_EQ_STR(path, "[root] > run > [GC]");
	T_EQ_INT(t_total_named(p, "samples"), 4);
	T_EQ_INT(t_total_named(p, "time"), 15000);
	T_EQ_INT(t_diag_count(p, "samples naming no stack frame"), 1);
	pv_frame_ix f = p->stacks.frame[p->samples.stack[1]];
	T_EQ_INT(pv_frame_line(p, f), 12);
	T_EQ_INT(pv_frame_column(p, f), 3);
	T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, p->frames.func[f])]),
		 "http://h.example/b.js?x=1");
	T_EQ_STR(pv_str(p, p->categories.name[pv_frame_category(p, f)]), "JavaScript");
	/* an event's sf: its cause stack */
	uint32_t m = find_marker(p, "gc");
	T_EQ_INT(p->markers.cause_stack[m], p->samples.stack[0]);
	T_EQ_INT(p->markers.cause_time_ns[m], 5000);
	pv_profile_free(p);
}

/* ---- malformed input ---- */

T_TEST(chrome_malformed)
{
	expect_error("[{\"ph\":\"X\",\"ts\":{}}]", PV_EPARSE,
		     "t.json: line 1, column 17: expected 'ts' (a number), found an object");
	expect_error(
	    "[{\"ph\":\"X\",\"ts\":\"soon\"}]", PV_EPARSE,
	    "line 1, column 17: expected 'ts' (a number), found a string that is not a number");
	expect_error("[{\"ph\":5}]", PV_EPARSE, "line 1, column 8: expected 'ph' (a phase letter)");
	expect_error("[{\"ph\":\"X\",\"ts\":1e400}]", PV_EPARSE,
		     "line 1, column 17: number out of range");
	expect_error("[{\"ph\":\"X\",\"ts\":1,\"pid\":[]}]", PV_EPARSE,
		     "expected 'pid' (a number or a string), found an array");
	expect_error("[{\"ph\":\"X\",\"ts\":9e15,\"dur\":9e15}]", PV_EPARSE,
		     "past the largest time");
	expect_error("[{\"ph\":\"X\",\"ts\":-9e15},{\"ph\":\"X\",\"ts\":9e15}]", PV_ELIMIT,
		     "t.json: the times span more than the model holds");
	expect_error("{\"nodes\":\"x\",\"samples\":[]}", PV_EPARSE,
		     "line 1, column 10: expected 'nodes' to be an array, found a string");
	expect_error("{\"nodes\":[{\"callFrame\":{}}],\"samples\":[]}", PV_EPARSE,
		     "a node without an 'id'");
	expect_error("{\"nodes\":[{\"id\":1}],\"samples\":[1,\"2\"]}", PV_EPARSE,
		     "line 1, column 34: expected a number in 'samples', found a string");
	expect_error("{\"traceEvents\":{}}", PV_EPARSE, "expected 'traceEvents' to be an array");
	expect_error("{\"traceEvents\":[{\"ph\":\"P\",\"name\":\"Profile\",\"args\":{\"data\":"
		     "{\"cpuProfile\":{\"nodes\":[{\"id\":1,\"callFrame\":[]}]}}}}]}",
		     PV_EPARSE, "expected 'callFrame' to be an object, found an array");
	expect_error("{\"traceEvents\":[{\"args\":{\"data\":{\"timeDeltas\":[1,{}]}},\"ph\":\"P\","
		     "\"name\":\"ProfileChunk\"}]}",
		     PV_EPARSE, "expected a number in 'timeDeltas', found an object");
	expect_error("\"just a string\"", PV_EPARSE, "expected a Chrome trace");
	/* a cycle in the node tree is cut, not followed */
	struct pv_profile *p =
	    text("{\"nodes\":[{\"id\":1,\"parent\":2,\"callFrame\":{\"functionName\":\"a\"}},"
		 "{\"id\":2,\"parent\":1,\"callFrame\":{\"functionName\":\"b\"}}],"
		 "\"samples\":[1,2],\"timeDeltas\":[1,1],\"startTime\":0}");
	if (p) {
		T_EQ_INT(t_diag_count(p, "node parent cycles"), 1);
		pv_profile_free(p);
	}
}

/* n nodes, each the child of the one before (a stack n deep), one sample at the deepest */
static char *deep_cpuprofile(size_t n, bool nested, size_t *len)
{
	size_t cap = n * 96 + 256, o = 0;
	char *buf = malloc(cap);
	if (!buf)
		return NULL;
	if (!nested) {
		o += (size_t)snprintf(buf + o, cap - o, "{\"nodes\":[");
		for (size_t i = 1; i <= n; i++)
			o += (size_t)snprintf(buf + o, cap - o,
					      "%s{\"id\":%zu,\"parent\":%zu,\"callFrame\":{"
					      "\"functionName\":\"f%zu\"}}",
					      i > 1 ? "," : "", i, i - 1, i % 7);
		o += (size_t)snprintf(
		    buf + o, cap - o,
		    "],\"samples\":[%zu,%zu],\"timeDeltas\":[1,2],\"startTime\":0,\"endTime\":10}",
		    n, n / 2);
	} else {
		o += (size_t)snprintf(buf + o, cap - o, "{\"head\":");
		for (size_t i = 1; i <= n; i++)
			o += (size_t)snprintf(buf + o, cap - o,
					      "{\"functionName\":\"f\",\"id\":%zu,\"children\":[",
					      i);
		for (size_t i = 1; i <= n; i++)
			o += (size_t)snprintf(buf + o, cap - o, "]}");
		o += (size_t)snprintf(buf + o, cap - o,
				      ",\"samples\":[%zu],\"timestamps\":[1],\"startTime\":0}", n);
	}
	*len = o;
	return buf;
}

T_TEST(chrome_deep_stacks)
{
	size_t len;
	char *buf = deep_cpuprofile(100000, false, &len);
	if (!buf)
		return;
	struct pv_profile *p = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_memory("deep.cpuprofile", buf, len, NULL, &p, &err), 0);
	free(buf);
	if (p) {
		T_EQ_INT(pv_profile_validate(p, &err), 0);
		uint32_t depth = 0;
		for (pv_stack_ix s = p->samples.stack[0]; s != PV_NONE; s = p->stacks.prefix[s])
			depth++;
		T_EQ_INT(depth, 100000);
		T_EQ_INT(p->stacks.len, 100000);
		pv_profile_free(p);
	}
	/* the old layout nests JSON as deep as the stack: refused past the tokenizer's limit */
	buf = deep_cpuprofile(100000, true, &len);
	if (!buf)
		return;
	p = NULL;
	T_EQ_INT(pv_import_memory("deep.cpuprofile", buf, len, NULL, &p, &err), PV_ELIMIT);
	T_CONTAINS(err.msg, "deep.cpuprofile: line 1, column");
	free(buf);
	/* a stackFrames chain 100,000 deep */
	size_t n = 100000, cap = n * 64 + 256, o = 0;
	buf = malloc(cap);
	if (!buf)
		return;
	o += (size_t)snprintf(buf + o, cap - o, "{\"traceEvents\":[],\"stackFrames\":{");
	for (size_t i = 1; i <= n; i++)
		o += (size_t)snprintf(buf + o, cap - o,
				      "%s\"%zu\":{\"name\":\"g%zu\",\"parent\":%zu}",
				      i > 1 ? "," : "", i, i % 5, i - 1);
	o += (size_t)snprintf(buf + o, cap - o, "},\"samples\":[{\"tid\":1,\"ts\":1,\"sf\":%zu}]}",
			      n);
	p = NULL;
	T_EQ_INT(pv_import_memory("deep.json", buf, o, NULL, &p, &err), 0);
	free(buf);
	if (p) {
		uint32_t depth = 0;
		for (pv_stack_ix s = p->samples.stack[0]; s != PV_NONE; s = p->stacks.prefix[s])
			depth++;
		T_EQ_INT(depth, 100000);
		T_EQ_INT(t_diag_count(p, "parent does not exist"), 1); /* "0" names no frame */
		pv_profile_free(p);
	}
}

/* ---- truncations and mutations never crash, and fail with one positioned line ---- */

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

T_TEST(chrome_truncations_and_mutations)
{
	static const char *const files[] = {
	    "chrome/simple.cpuprofile",
	    "chrome/example.cpuprofile",
	    "chrome/trace-event-simple.json",
	    "chrome/trace-event-multi-thread-with-samples.json",
	    "chrome/node-wordfreq.cpuprofile",
	    "chrome/trace-event-simple-partial-trailing-comma.json",
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		size_t len;
		char *raw = t_read_file(t_data(files[i]), &len);
		if (!raw) {
			t_fail(__FILE__, __LINE__, "cannot read %s", files[i]);
			continue;
		}
		static const char *const formats[] = {NULL, "chrome"};
		const struct t_damage d = {
		    formats, 2, 120, "chrome", 250, "{}[]\",:0-9e.\\ \n;ax\xff", &rng_state};
		t_damage(files[i], raw, len, &d);
		free(raw);
	}
}

#include "pv/format.h"
#include "pv/query.h"
#include "pv/view.h"

/* Huge times print without overflowing (found by fuzzing the chrome importer) */
T_TEST(chrome_huge_times_print)
{
	struct pv_profile *p =
	    text("[{\"ph\":\"X\",\"name\":\"long\",\"ts\":0,\"dur\":9300000000000,"
		 "\"pid\":1,\"tid\":1}]");
	if (!p)
		return;
	T_EQ_INT(t_total_named(p, "time"), 9300000000000000LL);
	FILE *null = fopen("/dev/null", "w");
	struct pv_query q;
	pv_query_init(&q);
	struct pv_view *v;
	struct pv_error err;
	T_EQ_INT(pv_view_compute(p, &q, &v, &err), 0);
	struct pv_print_opts po = {.json = false};
	if (null)
		pv_print_view(null, v, &po);
	pv_view_free(v);
	pv_query_release(&q);
	if (null)
		fclose(null);
	pv_profile_free(p);
}

/* Probing: each shape is found without --format */
T_TEST(chrome_probe_shapes)
{
	/* a .cpuprofile with its big sample arrays first and its nodes last */
	size_t n = 20000, cap = n * 8 + 512, o = 0;
	char *buf = malloc(cap);
	if (!buf)
		return;
	o += (size_t)snprintf(buf + o, cap - o, "{\"samples\":[");
	for (size_t i = 0; i < n; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s2", i ? "," : "");
	o += (size_t)snprintf(buf + o, cap - o, "],\"timeDeltas\":[");
	for (size_t i = 0; i < n; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s10", i ? "," : "");
	o += (size_t)snprintf(
	    buf + o, cap - o,
	    "],\"startTime\":0,\"endTime\":200010,\"nodes\":[{\"id\":1,\"callFrame\":"
	    "{\"functionName\":\"(root)\"},\"children\":[2]},{\"id\":2,\"callFrame\":"
	    "{\"functionName\":\"work\",\"url\":\"w.js\",\"lineNumber\":0}}]}");
	struct pv_profile *p = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_memory("late-nodes.cpuprofile", buf, o, NULL, &p, &err), 0);
	if (p) {
		T_EQ_STR(pv_str(p, p->meta.format), "chrome");
		T_EQ_INT(p->samples.len, 20000);
		T_EQ_INT(t_total_named(p, "time"), 200000000);
		pv_profile_free(p);
	}
	free(buf);
	/* a DevTools export whose "metadata" (first) is bigger than the probe's window */
	cap = (2u << 20) + 512;
	buf = malloc(cap);
	if (!buf)
		return;
	o = (size_t)snprintf(buf, cap, "{\"metadata\":{\"source\":\"DevTools\",\"pad\":\"");
	memset(buf + o, 'x', 2u << 20);
	o += 2u << 20;
	o += (size_t)snprintf(
	    buf + o, cap - o,
	    "\"},\"traceEvents\":[{\"ph\":\"i\",\"name\":\"a\",\"ts\":1,\"pid\":1,\"tid\":1}]}");
	p = NULL;
	T_EQ_INT(pv_import_memory("devtools.json", buf, o, NULL, &p, &err), 0);
	if (p) {
		T_EQ_STR(pv_str(p, p->meta.format), "chrome");
		T_EQ_INT(p->markers.len, 1);
		T_EQ_INT(t_diag_count(p, "top-level 'metadata'"), 1);
		pv_profile_free(p);
	}
	free(buf);
	/* an empty array is no trace; an array of objects with "ph" is */
	T_EQ_INT(t_import_str("t.json", "[]", NULL, &p, &err), PV_EFORMAT);
	T_CONTAINS(err.msg, "not a profile format profview reads");
	p = text("[{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":"
		 "\"x\"}}]");
	if (p) {
		T_EQ_INT(p->threads.len, 0); /* named, but without events */
		pv_profile_free(p);
	}
}

/* ---- V8 sampling heap profiles (.heapprofile) ---- */

/*
 * Figures from a python walk of the JSON, independent of profview: the sample per node with a
 * selfSize (no 'samples' in the file) or per allocation sample, the stacks (distinct paths of
 * (functionName, url, lineNumber, columnNumber) below (root)), the deepest path below (root),
 * a function's total (the weight of the samples whose path holds it, once each) and self.
 */
struct heap_case {
	const char *path;
	bool corpus;
	uint32_t samples, stacks, depth;
	int64_t bytes, allocations; /* -1: no such metric */
	const char *fn;
	int64_t fn_total, fn_self;
};

static const struct heap_case heap_cases[] = {
    {"speedscope/node/10.11.0/Heap-20181003T105432.heapprofile", true, 11, 79, 16, 525704, -1,
     "emit", 295472, 0},
    {"speedscope/Chrome/69/Heap-20181005T144546.heapprofile", true, 201, 539, 39, 10030888, -1,
     "(V8 API)", 1894920, 1894920},
    {"chrome/node-heapalloc.heapprofile", false, 299, 12, 10, 39561520, 299, "makeStrings",
     13078688, 3770672},
};

/* Weight (metric) of the samples whose stack holds a function named name, once per sample. */
static int64_t total_of(const struct pv_profile *p, const char *metric, const char *name)
{
	pv_metric_ix m = pv_metric_find(p, metric);
	int64_t s = 0;
	for (uint32_t i = 0; i < p->samples.len; i++)
		for (pv_stack_ix st = p->samples.stack[i]; st != PV_NONE; st = p->stacks.prefix[st])
			if (strcmp(pv_str(p, p->funcs.name[p->frames.func[p->stacks.frame[st]]]),
				   name) == 0) {
				s += pv_sample_weight(p, m, i);
				break;
			}
	return s;
}

T_TEST(chrome_heap_profiles)
{
	for (size_t i = 0; i < sizeof(heap_cases) / sizeof(heap_cases[0]); i++) {
		const struct heap_case *h = &heap_cases[i];
		struct pv_profile *p = t_load(h->corpus ? t_corpus(h->path) : t_data(h->path));
		if (!p)
			continue;
		T_EQ_STR(pv_str(p, p->meta.format), "chrome");
		T_EQ_STR(pv_str(p, p->meta.product), "V8 sampling heap profile");
		T_EQ_INT(p->threads.len, 1);
		T_EQ_STR(pv_str(p, p->threads.name[0]), "heap");
		T_EQ_INT(p->samples.len, h->samples);
		T_EQ_INT(p->stacks.len, h->stacks);
		T_EQ_STR(pv_str(p, p->metrics.name[p->meta.default_metric]), "bytes");
		T_EQ_INT(p->metrics.unit[p->meta.default_metric], PV_UNIT_BYTES);
		T_EQ_INT(t_total_named(p, "bytes"), h->bytes);
		T_EQ_INT(t_total_named(p, "allocations"), h->allocations);
		if (h->allocations >= 0)
			T_EQ_INT(p->metrics.unit[pv_metric_find(p, "allocations")], PV_UNIT_COUNT);
		uint32_t depth = 0, no_time = 0, n;
		for (uint32_t s = 0; s < p->stacks.len; s++) {
			uint32_t d = 0;
			for (pv_stack_ix x = s; x != PV_NONE; x = p->stacks.prefix[x])
				d++;
			depth = d > depth ? d : depth;
		}
		for (uint32_t s = 0; s < p->samples.len; s++)
			no_time += pv_sample_time(p, s) == PV_TIME_NONE;
		T_EQ_INT(depth, h->depth);
		T_EQ_INT(no_time, h->samples);
		T_EQ_INT(total_of(p, "bytes", h->fn), h->fn_total);
		T_EQ_INT(self_of(p, "bytes", h->fn, &n), h->fn_self);
		/* (root) is no frame */
		T_EQ_INT(total_of(p, "bytes", "(root)"), 0);
		pv_profile_free(p);
	}
	/*
	 * The recording: samples in 'ordinal' order (the file lists them otherwise): the first
	 * three are ordinals 3, 4, 6 (131088 bytes at the script's top level, 131104 in
	 * makeStrings, 131088 in repeat), the last ordinal 377 (132048 in makeBuffers). Four nodes'
	 * selfSize differ from their samples' sizes (tests/data/chrome/README.md), reported.
	 */
	struct pv_profile *p = t_load(t_data("chrome/node-heapalloc.heapprofile"));
	if (!p)
		return;
	pv_metric_ix bytes = pv_metric_find(p, "bytes");
	T_EQ_INT(pv_sample_weight(p, bytes, 0), 131088);
	T_EQ_STR(t_leaf_name(p, 0), "(anonymous)");
	T_EQ_INT(pv_sample_weight(p, bytes, 1), 131104);
	T_EQ_STR(t_leaf_name(p, 1), "makeStrings");
	T_EQ_INT(pv_sample_weight(p, bytes, 2), 131088);
	T_EQ_STR(t_leaf_name(p, 2), "repeat");
	T_EQ_INT(pv_sample_weight(p, bytes, 298), 132048);
	T_EQ_STR(t_leaf_name(p, 298), "makeBuffers");
	T_EQ_INT(t_diag_count(p, "selfSize differs from their samples"), 4);
	uint32_t n;
	T_EQ_INT(self_of(p, "bytes", "makeBuffers", &n), 14978160);
	T_EQ_INT(n, 113);
	T_EQ_INT(self_of(p, "allocations", "makeObjects", &n), 86);
	pv_profile_free(p);
}

T_TEST(chrome_heap_shapes)
{
	/* ids and samples: ordinal order, a sample of no node, a node whose samples differ */
	struct pv_profile *p = text(
	    "{\"head\":{\"callFrame\":{\"functionName\":\"(root)\",\"url\":\"\",\"lineNumber\":-1},"
	    "\"selfSize\":0,\"id\":1,\"children\":[{\"callFrame\":{\"functionName\":\"\",\"url\":"
	    "\"file:///a/app.js\",\"lineNumber\":4,\"columnNumber\":2},\"selfSize\":300,\"id\":2,"
	    "\"children\":[{\"callFrame\":{\"functionName\":\"alloc\",\"url\":\"https://x.org/"
	    "l.js\","
	    "\"lineNumber\":9},\"selfSize\":50,\"id\":3,\"children\":[]}]}]},\"samples\":["
	    "{\"size\":100,\"nodeId\":2,\"ordinal\":5},{\"size\":200,\"nodeId\":2,\"ordinal\":2},"
	    "{\"size\":40,\"nodeId\":3,\"ordinal\":9},{\"size\":7,\"nodeId\":42,\"ordinal\":1}]}");
	if (p) {
		T_EQ_INT(p->samples.len, 4);
		T_EQ_INT(t_total_named(p, "bytes"), 347);
		T_EQ_INT(t_total_named(p, "allocations"), 4);
		pv_metric_ix m = pv_metric_find(p, "bytes");
		T_EQ_INT(pv_sample_weight(p, m, 0), 7); /* ordinal 1: no node, no stack */
		T_EQ_INT(p->samples.stack[0], PV_NONE);
		T_EQ_INT(pv_sample_weight(p, m, 1), 200);
		T_EQ_INT(pv_sample_weight(p, m, 2), 100);
		T_EQ_STR(t_leaf_name(p, 2), "(anonymous)");
		char buf[256];
		t_stack_path(p, p->samples.stack[3], " > ", buf, sizeof(buf));
		T_EQ_STR(buf, "(anonymous) > alloc");
		pv_frame_ix f = p->stacks.frame[p->samples.stack[3]];
		T_EQ_INT(pv_frame_line(p, f), 10);
		T_EQ_STR(pv_str(p, p->modules.name[pv_func_module(p, p->frames.func[f])]),
			 "https://x.org");
		T_EQ_INT(t_diag_count(p, "samples naming no node"), 1);
		T_EQ_INT(t_diag_count(p, "selfSize differs"), 1); /* node 3: 50 vs 40 */
		pv_profile_free(p);
	}
	/* the old layout: no ids, no samples: one sample per node with a selfSize */
	p = text(
	    "{\"head\":{\"callFrame\":{\"functionName\":\"(root)\"},\"selfSize\":0,\"children\":["
	    "{\"callFrame\":{\"functionName\":\"a\"},\"selfSize\":10,\"children\":["
	    "{\"callFrame\":{\"functionName\":\"b\"},\"selfSize\":0,\"children\":[]},"
	    "{\"callFrame\":{\"functionName\":\"c\"},\"selfSize\":5,\"children\":[]}]},"
	    "{\"callFrame\":{\"functionName\":\"a\"},\"selfSize\":1,\"children\":[]}]}}");
	if (p) {
		T_EQ_INT(p->samples.len, 3);
		T_EQ_INT(p->metrics.len, 1);
		T_EQ_INT(t_total_named(p, "bytes"), 16);
		T_EQ_INT(total_of(p, "bytes", "a"), 16);
		T_EQ_INT(p->stacks.len, 3); /* a, a > b, a > c: the two a nodes are one stack */
		T_EQ_INT(p->diags.len, 0);
		pv_profile_free(p);
	}
	/* a cpuprofile's head tree (no selfSize) is still a cpuprofile */
	p = text("{\"head\":{\"functionName\":\"(root)\",\"id\":1,\"children\":[{\"functionName\":"
		 "\"f\",\"id\":2,\"children\":[]}]},\"samples\":[2],\"timestamps\":[1],"
		 "\"startTime\":0}");
	if (p) {
		T_EQ_STR(pv_str(p, p->meta.product), "V8 CPU profile (head tree)");
		pv_profile_free(p);
	}
}

/* a heap profile nested n deep: {"head":{...,"children":[{...,"children":[...]}]}} */
static char *deep_heapprofile(size_t n, size_t *len)
{
	size_t cap = n * 80 + 64, o = 0;
	char *buf = malloc(cap);
	if (!buf)
		return NULL;
	o += (size_t)snprintf(buf + o, cap - o, "{\"head\":");
	for (size_t i = 0; i < n; i++)
		o += (size_t)snprintf(
		    buf + o, cap - o,
		    "{\"callFrame\":{\"functionName\":\"f\"},\"selfSize\":1,\"children\":[");
	for (size_t i = 0; i < n; i++)
		o += (size_t)snprintf(buf + o, cap - o, "]}");
	o += (size_t)snprintf(buf + o, cap - o, "}");
	*len = o;
	return buf;
}

T_TEST(chrome_heap_malformed)
{
	/* after a head node's call frame: what follows, the error */
	static const struct {
		const char *rest, *want;
	} bad[] = {
	    {"\"selfSize\":-1}}",
	     "t.json: line 1, column 54: 'selfSize' out of range (0 to 2^53 bytes): -1"},
	    {"\"selfSize\":9007199254740993}}", "line 1, column 54: 'selfSize' out of range"},
	    {"\"selfSize\":1e300}}", "line 1, column 54: expected an integer"},
	    {"\"selfSize\":\"12\"}}",
	     "line 1, column 54: expected 'selfSize' to be a number, found a string"},
	    {"\"selfSize\":1.5}}", "line 1, column 54: expected an integer, found 1.5"},
	    {"\"selfSize\":1,\"children\":{}}}",
	     "expected 'children' to be an array, found an object"},
	    {"\"selfSize\":1,\"children\":[\"x\"]}}",
	     "expected a child node id (a number), found a string"},
	    {"\"selfSize\":1,\"id\":1},\"samples\":[{\"size\":-5,\"nodeId\":1,\"ordinal\":1}]}",
	     "'size' out of range (0 to 2^53 bytes): -5"},
	    {"\"selfSize\":1,\"id\":1},\"samples\":[{\"size\":5,\"nodeId\":\"1\",\"ordinal\":1}]}",
	     "expected an integer, found a string"},
	    {"\"selfSize\":1,\"id\":1},\"samples\":[{\"size\":5,\"nodeId\":1,\"ordinal\":{}}]}",
	     "expected 'ordinal' to be a number, found an object"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char buf[512];
		snprintf(buf, sizeof(buf), "{\"head\":{\"callFrame\":{\"functionName\":\"f\"},%s",
			 bad[i].rest);
		expect_error(buf, PV_EPARSE, bad[i].want);
	}
	/* sums past int64: 1025 nodes of 2^53 bytes */
	size_t cap = 1100 * 64, o = 0;
	char *big = malloc(cap);
	if (big) {
		o += (size_t)snprintf(big + o, cap - o, "{\"head\":{\"selfSize\":0,\"children\":[");
		for (int i = 0; i < 1025; i++)
			o += (size_t)snprintf(big + o, cap - o, "%s{\"selfSize\":9007199254740992}",
					      i ? "," : "");
		o += (size_t)snprintf(big + o, cap - o, "]}}");
		expect_error(big, PV_EPARSE, "the nodes' selfSize sum out of range");
		free(big);
	}
	/* truncated: every cut of the recording fails with one positioned line, or reads */
	size_t len;
	char *raw = t_read_file(t_data("chrome/node-heapalloc.heapprofile"), &len);
	if (raw) {
		for (size_t cut = 0; cut < len; cut += len / 150 + 1) {
			t_check_damaged("node-heapalloc.heapprofile", raw, cut, NULL);
			t_check_damaged("node-heapalloc.heapprofile", raw, cut, "chrome");
		}
		struct pv_profile *p = NULL;
		struct pv_error err;
		T_EQ_INT(pv_import_memory("cut.heapprofile", raw, len / 2, "chrome", &p, &err),
			 PV_EPARSE);
		T_CONTAINS(err.msg, "cut.heapprofile: line 1, column");
		free(raw);
	}
	/* 100,000 deep: refused past the tokenizer's depth limit, at a position */
	char *deep = deep_heapprofile(100000, &len);
	if (deep) {
		struct pv_profile *p = NULL;
		struct pv_error err;
		T_EQ_INT(pv_import_memory("deep.heapprofile", deep, len, NULL, &p, &err),
			 PV_ELIMIT);
		T_CONTAINS(err.msg, "deep.heapprofile: line 1, column");
		T_TRUE(p == NULL);
		free(deep);
	}
	/* 200 deep (400 JSON levels) reads */
	deep = deep_heapprofile(200, &len);
	if (deep) {
		struct pv_profile *p = NULL;
		struct pv_error err;
		T_EQ_INT(pv_import_memory("deep.heapprofile", deep, len, NULL, &p, &err), 0);
		if (p) {
			T_EQ_INT(p->samples.len, 200);
			T_EQ_INT(p->stacks.len, 200);
			pv_profile_free(p);
		}
		free(deep);
	}
}

/*
 * A Profile event whose id is 40 bytes or more (a fuzzer's find, fuzz/corpus/chrome/): the id was
 * appended to the importer's string pool from the pool itself, and the growth freed the bytes
 * being copied (a use-after-free under ASan). Now: one CPU profile without samples or start time.
 */
T_TEST(chrome_long_profile_id)
{
	char json[512], id[201];
	memset(id, 'a', 200);
	for (int n = 40; n <= 200; n += 160) {
		id[n] = 0;
		snprintf(json, sizeof(json), "[{\"ph\":\"P\",\"name\":\"Profile\",\"id\":\"%s\"}]",
			 id);
		struct pv_profile *p = text(json);
		if (!p)
			continue;
		T_EQ_INT(p->samples.len, 0);
		T_EQ_INT(p->threads.len, 0);
		T_EQ_INT(p->diags.len, 2);
		T_EQ_INT(t_diag_count(p, "CPU profiles without a start time (timed from 0)"), 1);
		T_EQ_INT(t_diag_count(p, "no sample and no marker in "), 1);
		pv_profile_free(p);
	}
}

/* The self and total of function f's row in a top view, metric 0; -1 when it has no row. */
static void top_row(const struct pv_view *v, pv_func_ix f, int64_t *self, int64_t *tot)
{
	*self = *tot = -1;
	for (uint32_t r = 0; r < v->flat->len; r++)
		if (v->flat->kind[r] == PV_ROW_FUNCTION && v->flat->id[r] == f) {
			*self = v->flat->self[0][r];
			*tot = v->flat->total[0][r];
		}
}

/* Computes a view of p with the CLI options (name, value)..., NULL-ended; 0 or the error. */
static int view_of(const struct pv_profile *p, enum pv_view_kind kind, struct pv_view **v,
		   struct pv_error *err, ...)
{
	struct pv_query q;
	pv_query_init(&q);
	q.view = kind;
	va_list ap;
	va_start(ap, err);
	const char *name;
	int rc = 0;
	while (!rc && (name = va_arg(ap, const char *)) != NULL)
		rc = pv_query_set_option(&q, name, va_arg(ap, const char *), err);
	va_end(ap);
	*v = NULL;
	if (!rc)
		rc = pv_view_compute(p, &q, v, err);
	pv_query_release(&q);
	return rc;
}

/*
 * Minified JavaScript: node-minified.min.js has four anonymous callbacks and the script's own
 * top level on its one line (tests/data/chrome/README.md). Functions are (name, script, line,
 * column), as DevTools and the Firefox Profiler key them. The figures are those of
 * tests/data/chrome/minified-figures.py, a walk of the file's nodes keyed by (functionName, url,
 * lineNumber, columnNumber): 64 functions (60 by name, url and line), and per function the
 * samples where it is the leaf (self) and those whose stack holds it (total).
 */
T_TEST(chrome_minified_columns)
{
	struct pv_profile *p = t_load(t_data("chrome/node-minified.cpuprofile"));
	if (!p)
		return;
	T_EQ_INT(p->funcs.len, 64);
	static const struct {
		uint32_t col;
		int64_t self, total;
	} want[] = {
	    {1, 10, 4648}, {105, 1434, 1434}, {185, 1870, 1870}, {274, 80, 80}, {312, 689, 689}};
	struct pv_view *v;
	struct pv_error err;
	T_EQ_INT(view_of(p, PV_VIEW_TOP, &v, &err, "metric", "samples", NULL), 0);
	uint32_t anon = 0;
	for (pv_func_ix f = 0; f < p->funcs.len; f++) {
		pv_source_ix s = pv_func_source(p, f);
		if (strcmp(pv_str(p, p->funcs.name[f]), "(anonymous)") != 0 || s == PV_NONE ||
		    strcmp(pv_str(p, p->sources.path[s]), "file:///tmp/rec/minified.min.js") != 0)
			continue;
		anon++;
		T_EQ_INT(pv_func_line(p, f), 1);
		size_t k = 0;
		while (k < 5 && want[k].col != pv_func_column(p, f))
			k++;
		if (k == 5) {
			t_fail(__FILE__, __LINE__, "an anonymous function at column %u",
			       pv_func_column(p, f));
			continue;
		}
		int64_t self, tot;
		if (v) {
			top_row(v, f, &self, &tot);
			T_EQ_INT(self, want[k].self);
			T_EQ_INT(tot, want[k].total);
		}
	}
	T_EQ_INT(anon, 5);
	pv_view_free(v);

	/* a scope names one of them, or all those of a line */
	T_EQ_INT(view_of(p, PV_VIEW_TREE, &v, &err, "metric", "samples", "center",
			 "(anonymous)@minified.min.js:1:105", NULL),
		 0);
	if (v)
		T_EQ_INT(v->center[0], 1434);
	pv_view_free(v);
	T_EQ_INT(view_of(p, PV_VIEW_TREE, &v, &err, "metric", "samples", "center",
			 "(anonymous)@file:///tmp/rec/minified.min.js:1", NULL),
		 0);
	if (v)
		T_EQ_INT(v->center[0], 4648);
	pv_view_free(v);
	T_EQ_INT(view_of(p, PV_VIEW_TREE, &v, &err, "metric", "samples", "drop",
			 "(anonymous)@minified.min.js:1:185", NULL),
		 0);
	if (v)
		T_EQ_INT(v->whole[0], 4696 - 1870);
	pv_view_free(v);
	/* merged: its samples go to its caller, work (549 of its own) */
	T_EQ_INT(view_of(p, PV_VIEW_TOP, &v, &err, "metric", "samples", "merge",
			 "(anonymous)@minified.min.js:1:105", NULL),
		 0);
	for (pv_func_ix f = 0; v && f < p->funcs.len; f++) {
		if (strcmp(pv_str(p, p->funcs.name[f]), "work") != 0)
			continue;
		int64_t self, tot;
		top_row(v, f, &self, &tot);
		T_EQ_INT(self, 549 + 1434);
		T_EQ_INT(tot, 4622);
	}
	pv_view_free(v);
	/* a path of them: the node top level (any anonymous function), the script's, work, one */
	T_EQ_INT(
	    view_of(p, PV_VIEW_TREE, &v, &err, "metric", "samples", "center",
		    "path:(anonymous);executeUserEntryPoint;Module._load;Module.load;"
		    "Module._extensions..js;Module._compile;(anonymous)@minified.min.js:1:1;work;"
		    "(anonymous)@minified.min.js:1:274",
		    NULL),
	    0);
	if (v)
		T_EQ_INT(v->center[0], 80);
	pv_view_free(v);
	T_EQ_INT(
	    view_of(p, PV_VIEW_TREE, &v, &err, "center", "(anonymous)@minified.min.js:1:106", NULL),
	    PV_EINVAL);
	T_EQ_STR(err.msg,
		 "center '(anonymous)@minified.min.js:1:106' matches no function of the profile");
	pv_view_free(v);
	pv_profile_free(p);
}

/*
 * The same script in Chromium (chromium-minified.json.gz: V8 samples in ProfileChunk events of
 * two renderer threads). Figures of tests/data/chrome/minified-trace-figures.py: 22 functions by
 * (functionName, url, lineNumber, columnNumber), 19 without the column; self samples of the four
 * callbacks 585, 706, 21, 239 and of work 218.
 */
T_TEST(chrome_trace_minified_columns)
{
	struct pv_profile *p = t_load(t_data("chrome/chromium-minified.json.gz"));
	if (!p)
		return;
	T_EQ_INT(p->funcs.len, 22);
	T_EQ_INT(p->samples.len, 5547);
	static const struct {
		const char *name;
		uint32_t col;
		int64_t self;
	} want[] = {{"(anonymous)", 105, 585},
		    {"(anonymous)", 185, 706},
		    {"(anonymous)", 274, 21},
		    {"(anonymous)", 312, 239},
		    {"work", 27, 218}};
	struct pv_view *v;
	struct pv_error err;
	T_EQ_INT(view_of(p, PV_VIEW_TOP, &v, &err, "metric", "samples", NULL), 0);
	for (size_t k = 0; v && k < sizeof(want) / sizeof(want[0]); k++) {
		uint32_t found = 0;
		for (pv_func_ix f = 0; f < p->funcs.len; f++) {
			if (strcmp(pv_str(p, p->funcs.name[f]), want[k].name) != 0 ||
			    pv_func_line(p, f) != 1 || pv_func_column(p, f) != want[k].col)
				continue;
			int64_t self, tot;
			top_row(v, f, &self, &tot);
			T_EQ_INT(self, want[k].self);
			found++;
		}
		T_EQ_INT(found, 1);
	}
	pv_view_free(v);
	pv_profile_free(p);
}

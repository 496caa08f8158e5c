/*
 * Derived markers (doc/markers.md): pairing on the Firefox corpus against the counts the
 * Firefox Profiler's own code gives (corpus/firefox/README.md), pairing rules one by one on
 * small built profiles, every field format of doc/markers.md's table value by value, label
 * templates, search and the per-name summary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "model/builder.h"
#include "pv/import.h"
#include "pv/marker.h"
#include "pv/view.h"
#include "t.h"

#define MS(x) ((int64_t)((x)*1000000.0 + ((x) < 0 ? -0.5 : 0.5)))
#define NO    PV_TIME_NONE

static struct pv_markers *derive_file(const char *path, struct pv_profile **pp)
{
	struct pv_error err;
	struct pv_markers *ms = NULL;
	*pp = NULL;
	if (pv_import_file(path, NULL, pp, &err)) {
		t_fail(__FILE__, __LINE__, "%s: %s", path, err.msg);
		return NULL;
	}
	if (pv_markers_derive(*pp, &ms, &err)) {
		t_fail(__FILE__, __LINE__, "%s: %s", path, err.msg);
		pv_profile_free(*pp);
		*pp = NULL;
		return NULL;
	}
	return ms;
}

/* ---- the corpus ---- */

struct count_case {
	const char *file;
	uint32_t thread, raw, derived, instant, incomplete;
	double range_start, range_end; /* ms */
};

/* corpus/firefox/README.md, "Expected derived markers" */
static const struct count_case counts[] = {
    {"generated-gecko-v36.json", 0, 27, 19, 2, 3, 0, 7},
    {"generated-gecko-v36.json", 1, 23, 17, 2, 2, 0, 7},
    {"generated-gecko-v36.json", 2, 25, 18, 2, 2, 1000, 1007},
    {"generated-processed-v70-from-gecko.json", 0, 27, 19, 2, 3, 0, 7},
    {"generated-processed-v70-from-gecko.json", 1, 23, 17, 2, 2, 0, 7},
    {"generated-processed-v70-from-gecko.json", 2, 25, 18, 2, 2, 1000, 1007},
    {"generated-processed-v70-marker-table.json", 0, 7, 7, 2, 1, 12.5, 176},
    {"generated-processed-v70-network.json", 0, 26, 16, 3, 0, 3, 9},
    {"argument-values.json", 0, 13, 11, 2, 1, 324347.532151375, 324385.2655263752},
};

T_TEST(markers_corpus_counts)
{
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		const struct count_case *c = &counts[k];
		char rel[256];
		snprintf(rel, sizeof(rel), "firefox/%s", c->file);
		struct pv_profile *p;
		struct pv_markers *ms = derive_file(t_corpus(rel), &p);
		if (!ms)
			continue;
		uint32_t raw = 0, n = 0, inst = 0, inc = 0;
		for (uint32_t r = 0; r < p->markers.len; r++)
			raw += p->markers.thread[r] == c->thread;
		for (uint32_t i = 0; i < ms->len; i++) {
			if (ms->thread[i] != c->thread)
				continue;
			n++;
			inst += ms->end_ns[i] == PV_TIME_NONE;
			inc += (ms->flags[i] & PV_MARKER_INCOMPLETE) != 0;
			if (i)
				T_TRUE(ms->start_ns[i - 1] <= ms->start_ns[i]);
		}
		if (raw != c->raw || n != c->derived || inst != c->instant || inc != c->incomplete)
			t_fail(__FILE__, __LINE__,
			       "%s thread %u: raw %u derived %u instant %u "
			       "incomplete %u",
			       c->file, c->thread, raw, n, inst, inc);
		/* exact to the nanosecond the importer kept */
		T_EQ_INT(ms->thread_start_ns[c->thread], MS(c->range_start));
		T_EQ_INT(ms->thread_end_ns[c->thread], MS(c->range_end));
		pv_markers_free(ms);
		pv_profile_free(p);
	}
}

/* The first marker of thread t named name starting at start_ms; UINT32_MAX when none. */
static uint32_t find(const struct pv_markers *ms, pv_thread_ix t, const char *name, double start_ms)
{
	for (uint32_t i = 0; i < ms->len; i++)
		if (ms->thread[i] == t && strcmp(ms->name[i], name) == 0 &&
		    ms->start_ns[i] == MS(start_ms))
			return i;
	return UINT32_MAX;
}

static void expect(const struct pv_markers *ms, pv_thread_ix t, const char *name, double s,
		   double e, bool incomplete, int line)
{
	uint32_t i = find(ms, t, name, s);
	if (i == UINT32_MAX) {
		t_fail(__FILE__, line, "no %s at %g on thread %u", name, s, t);
		return;
	}
	if (ms->end_ns[i] != MS(e) || !!(ms->flags[i] & PV_MARKER_INCOMPLETE) != incomplete)
		t_fail(__FILE__, line, "%s at %g: end %lld incomplete %d", name, s,
		       (long long)ms->end_ns[i], ms->flags[i]);
}

/* README: Reflow 3, 13, 14 / 8, 15, 18 pair LIFO; lone Rasterize ends and starts clamp. */
T_TEST(markers_reflow_rasterize_example)
{
	static const char *const files[] = {"firefox/generated-gecko-v36.json",
					    "firefox/generated-processed-v70-from-gecko.json"};
	for (int f = 0; f < 2; f++) {
		struct pv_profile *p;
		struct pv_markers *ms = derive_file(t_corpus(files[f]), &p);
		if (!ms)
			continue;
		expect(ms, 0, "Reflow", 3, 8, false, __LINE__);
		expect(ms, 0, "Reflow", 14, 15, false, __LINE__);
		expect(ms, 0, "Reflow", 13, 18, false, __LINE__);
		expect(ms, 0, "Rasterize", 0, 1, true, __LINE__);
		expect(ms, 0, "Rasterize", 4, 5, false, __LINE__);
		expect(ms, 0, "Rasterize", 100, 100, true, __LINE__);
		expect(ms, 0, "IPCOut", 30, 1031, false, __LINE__);
		expect(ms, 0, "IPCOut", 40, 40, true, __LINE__);
		expect(ms, 2, "IPCIn", 30, 1031, false, __LINE__);
		expect(ms, 0, "CompositorScreenshot", 25, 25, false, __LINE__);
		/* the pairs keep both raw rows, start first; the lone end its own */
		uint32_t i = find(ms, 0, "Reflow", 13);
		T_TRUE(i != UINT32_MAX && p->markers.start_ns[ms->raw[2 * i]] == MS(13) &&
		       p->markers.end_ns[ms->raw[2 * i + 1]] == MS(18));
		i = find(ms, 0, "Rasterize", 0);
		T_TRUE(i != UINT32_MAX && ms->raw[2 * i + 1] == PV_NONE &&
		       p->markers.phase[ms->raw[2 * i]] == PV_PHASE_END);
		/* the cause of a pair: the start's (the end has none) */
		i = find(ms, 0, "Reflow", 3);
		T_TRUE(i != UINT32_MAX && ms->cause_stack[i] != PV_NONE);
		T_EQ_INT(ms->cause_time_ns[i], MS(1));
		pv_markers_free(ms);
		pv_profile_free(p);
	}
}

/* ---- built profiles ---- */

struct mk {
	const char *name;
	int phase;
	double start, end; /* ms; NO-like: -1 for none */
	const char *payload;
	pv_thread_ix thread;
	const char *cat;
};

/* A thread of a built profile. */
struct th {
	const char *name, *process_type;
	int64_t pid, tid;
};

static const struct th two_threads[] = {
    {"Main", "", 1, 10}, {"Worker", "", 1, 11}, {NULL, NULL, 0, 0}};

/*
 * A profile of the threads th (samples at samples[] ms on thread 0), the markers and schemas;
 * category 0 is "Other".
 */
static struct pv_profile *build_threads(const struct mk *m, size_t n, const double *samples,
					size_t ns, const char *schema, const struct th *th)
{
	struct pv_builder b;
	struct pv_profile *p = NULL;
	if (builder_init(&b))
		return NULL;
	builder_metric(&b, builder_cstr(&b, "samples"), PV_UNIT_COUNT);
	b.p->meta.interval_ns = MS(1);
	pv_cat_ix other = builder_category(&b, builder_cstr(&b, "Other"), 0);
	for (; th->name; th++) {
		pv_thread_ix t =
		    builder_thread(&b, builder_cstr(&b, th->name), th->pid, th->tid, 0);
		if (t != PV_NONE)
			b.p->threads.process_type[t] = builder_cstr(&b, th->process_type);
	}
	pv_func_ix f = builder_func(&b, builder_cstr(&b, "main"), PV_NONE, PV_NONE, 0);
	pv_stack_ix st = builder_stack(&b, PV_NONE, builder_func_frame(&b, f));
	for (size_t i = 0; i < ns; i++)
		builder_sample(&b, 0, st, MS(samples[i]), NULL);
	for (size_t i = 0; i < n; i++) {
		struct raw_marker r = {
		    .name = builder_cstr(&b, m[i].name),
		    .category =
			m[i].cat ? builder_category(&b, builder_cstr(&b, m[i].cat), 0) : other,
		    .phase = (enum pv_marker_phase)m[i].phase,
		    .start_ns = m[i].start < 0 ? NO : MS(m[i].start),
		    .end_ns = m[i].end < 0 ? NO : MS(m[i].end),
		    .thread = m[i].thread,
		    .payload = m[i].payload ? builder_cstr(&b, m[i].payload) : 0,
		    .cause_stack = PV_NONE,
		    .cause_time_ns = NO,
		};
		builder_marker(&b, &r);
	}
	if (schema)
		b.p->meta.marker_schema = builder_cstr(&b, schema);
	if (builder_finish(&b, &p)) {
		builder_release(&b);
		return NULL;
	}
	builder_release(&b);
	return p;
}

/* The threads Main (pid 1, tid 10) and Worker (pid 1, tid 11). */
static struct pv_profile *build(const struct mk *m, size_t n, const double *samples, size_t ns,
				const char *schema)
{
	return build_threads(m, n, samples, ns, schema, two_threads);
}

static struct pv_markers *derive(struct pv_profile *p)
{
	struct pv_markers *ms = NULL;
	struct pv_error err;
	if (!p || pv_markers_derive(p, &ms, &err)) {
		t_fail(__FILE__, __LINE__, "derive: %s", p ? err.msg : "no profile");
		return NULL;
	}
	return ms;
}

enum { I = PV_PHASE_INSTANT, V = PV_PHASE_INTERVAL, S = PV_PHASE_START, E = PV_PHASE_END };

T_TEST(markers_pairing_rules)
{
	/* thread 0 runs from 10 (first sample) to 21 (last + 1 ms) */
	static const double samples[] = {10, 15, 20};
	static const struct mk m[] = {
	    {"A", S, 11, 99, "{\"type\":\"t\",\"a\":1,\"b\":1}", 0, "Start"}, /* 99: unused */
	    {"A", S, 12, -1, NULL, 0, NULL},
	    {"A", E, 99, 13, "{\"b\":2,\"c\":3}", 0, "End"}, /* pairs with the start at 12 */
	    {"A", E, -1, 14, "{\"b\":2,\"c\":3}", 0, "End"}, /* with 11: payloads merged */
	    {"B", E, -1, 5, NULL, 0, NULL},		     /* before the thread: [5, 5] */
	    {"B", E, -1, 16, NULL, 0, NULL},		     /* [10, 16] */
	    {"C", S, 17, -1, NULL, 0, NULL},		     /* [17, 21] */
	    {"D", S, 30, -1, NULL, 0, NULL},		     /* after the thread: [30, 30] */
	    {"X", I, 12, 77, NULL, 0, NULL},		     /* an instant: its end slot is junk */
	    {"Y", V, 12, 12.5, NULL, 0, NULL},
	    {"W", S, 3, -1, NULL, 1, NULL}, /* thread 1, no samples: its range is [1, 9] */
	    {"W", V, 1, 8, NULL, 1, NULL},
	    {"Z", E, -1, 4, NULL, 1, NULL},
	};
	struct pv_profile *p = build(m, sizeof(m) / sizeof(m[0]), samples, 3, NULL);
	struct pv_markers *ms = derive(p);
	if (!ms) {
		pv_profile_free(p);
		return;
	}
	T_EQ_INT(ms->len, 11);
	expect(ms, 0, "A", 12, 13, false, __LINE__);
	expect(ms, 0, "A", 11, 14, false, __LINE__);
	expect(ms, 0, "B", 5, 5, true, __LINE__);
	expect(ms, 0, "B", 10, 16, true, __LINE__);
	expect(ms, 0, "C", 17, 21, true, __LINE__);
	expect(ms, 0, "D", 30, 30, true, __LINE__);
	uint32_t x = find(ms, 0, "X", 12);
	T_TRUE(x != UINT32_MAX && ms->end_ns[x] == PV_TIME_NONE && !ms->flags[x]);
	expect(ms, 0, "Y", 12, 12.5, false, __LINE__);
	expect(ms, 1, "W", 1, 8, false, __LINE__);
	expect(ms, 1, "W", 3, 9, true, __LINE__); /* open to the thread's end: 8 + 1 */
	expect(ms, 1, "Z", 1, 4, true, __LINE__); /* from the thread's start */
	/* the pair 11-14: the end's category, the payloads merged with the end's keys winning */
	uint32_t a = find(ms, 0, "A", 11);
	if (a != UINT32_MAX) {
		T_EQ_STR(ms->data[a], "{\"type\":\"t\",\"a\":1,\"b\":2,\"c\":3}");
		T_EQ_STR(pv_str(p, p->categories.name[ms->category[a]]), "End");
		T_EQ_INT(ms->raw[2 * a], 0);
		T_EQ_INT(ms->raw[2 * a + 1], 3);
	}
	/* the pair 12-13: the start had no payload, the end's is kept as it is */
	a = find(ms, 0, "A", 12);
	if (a != UINT32_MAX)
		T_EQ_STR(ms->data[a], "{\"b\":2,\"c\":3}");
	/* sorted by start; equal starts keep the order the pass made them in: the pair 12-13 when
	 * its end came (row 2), then X and Y (rows 8 and 9) */
	for (uint32_t i = 1; i < ms->len; i++)
		T_TRUE(ms->start_ns[i - 1] <= ms->start_ns[i]);
	uint32_t at12[3], k = 0;
	for (uint32_t i = 0; i < ms->len && k < 3; i++)
		if (ms->start_ns[i] == MS(12) && ms->thread[i] == 0)
			at12[k++] = i;
	T_EQ_INT(k, 3);
	if (k == 3) {
		T_EQ_STR(ms->name[at12[0]], "A");
		T_EQ_STR(ms->name[at12[1]], "X");
		T_EQ_STR(ms->name[at12[2]], "Y");
	}
	pv_markers_free(ms);
	pv_profile_free(p);
}

T_TEST(markers_network_pairing)
{
	static const double samples[] = {10, 20};
#define NET(id, st) "{\"type\":\"Network\",\"id\":" #id ",\"status\":\"" st "\",\"URI\":\"u\"}"
	static const struct mk m[] = {
	    {"Load 1", V, 11, 12, NET(1, "STATUS_START"), 0, NULL},
	    {"Load 2", V, 11.5, 12, NET(2, "STATUS_START"), 0, NULL},
	    {"Load 1", V, 12, 15, NET(1, "STATUS_STOP"), 0, "Network"},
	    {"Load 2", V, 12, 13, NET(2, "STATUS_REDIRECT"), 0, NULL},
	    {"Load 3", V, 4, 6, NET(3, "STATUS_STOP"), 0, NULL},    /* began before the thread */
	    {"Load 4", V, 18, 19, NET(4, "STATUS_START"), 0, NULL}, /* never ends */
	};
	struct pv_profile *p = build(m, sizeof(m) / sizeof(m[0]), samples, 2, NULL);
	struct pv_markers *ms = derive(p);
	if (!ms) {
		pv_profile_free(p);
		return;
	}
	T_EQ_INT(ms->len, 4);
	expect(ms, 0, "Load 1", 11, 15, false, __LINE__);
	expect(ms, 0, "Load 2", 11.5, 13, false, __LINE__);
	expect(ms, 0, "Load 3", 4, 6, true, __LINE__);
	expect(ms, 0, "Load 4", 18, 21, true, __LINE__);
	uint32_t i = find(ms, 0, "Load 1", 11);
	if (i != UINT32_MAX) {
		/* the end's data with the load's start and the end's start as fetchStart */
		T_EQ_STR(ms->data[i], "{\"type\":\"Network\",\"id\":1,\"status\":\"STATUS_STOP\","
				      "\"URI\":\"u\",\"startTime\":11,\"fetchStart\":12}");
		T_EQ_STR(pv_str(p, p->categories.name[ms->category[i]]), "Network");
		T_EQ_INT(ms->raw[2 * i], 0);
		T_EQ_INT(ms->raw[2 * i + 1], 2);
	}
	pv_markers_free(ms);
	pv_profile_free(p);
}

/* ---- formats ---- */

static void fmt_is(const char *format, const char *value, const char *want, int line)
{
	struct sbuf t = {0};
	pv_marker_format(NULL, format, strlen(format), value, value ? strlen(value) : 0, &t);
	if (strcmp(sbuf_str(&t), want) != 0)
		t_fail(__FILE__, line, "%s of %s: \"%s\", expected \"%s\"", format,
		       value ? value : "(missing)", sbuf_str(&t), want);
	sbuf_release(&t);
}

#define FMT(f, v, want) fmt_is("\"" f "\"", v, want, __LINE__)

T_TEST(markers_formats_spec_table)
{
	/* string, url, file-path, sanitized-string: as is, empty -> (empty) */
	FMT("string", "\"hello\"", "hello");
	FMT("url", "\"https://mozilla.org\"", "https://mozilla.org");
	FMT("file-path", "\"/foo/bar\"", "/foo/bar");
	FMT("sanitized-string", "\"x y\"", "x y");
	FMT("string", "\"\"", "(empty)");
	FMT("string", "12.5", "12.5");
	FMT("string", "true", "true");
	/* unique-string, flow-id, terminating-flow-id: the importers put the string in */
	FMT("unique-string", "\"resolved\"", "resolved");
	FMT("flow-id", "\"0x1f\"", "0x1f");
	FMT("terminating-flow-id", "\"0x20\"", "0x20");
	/* duration, time */
	FMT("duration", "0.0005", "500ns");
	FMT("duration", "0.25", "250μs");
	FMT("duration", "12.345678", "12.346ms");
	FMT("duration", "1500", "1.500s");
	FMT("duration", "65000", "1m5s");
	FMT("duration", "3725000", "1h2m");
	FMT("time", "12.345678", "12.346ms");
	FMT("duration", "0", "0s");
	FMT("duration", "5", "5ms");
	FMT("duration", "90061000", "1d1h");
	/* seconds and milliseconds take milliseconds */
	FMT("seconds", "5000", "5.000s");
	FMT("milliseconds", "5", "5.0ms");
	FMT("milliseconds", "123.456", "123ms");
	FMT("microseconds", "5", "5.0μs");
	FMT("nanoseconds", "5", "5.00ns");
	/* bytes: below 10,000 as they are, then 1000-based with 3 significant digits */
	FMT("bytes", "9360", "9,360B");
	FMT("bytes", "313000", "313KB");
	FMT("bytes", "5200000", "5.20MB");
	FMT("bytes", "1230000000", "1.23GB");
	FMT("bytes", "20000", "20.0KB");
	FMT("integer", "1234567.8", "1,234,568");
	FMT("integer", "2.5", "3"); /* half away from zero, as Intl.NumberFormat */
	FMT("integer", "-1234", "-1,234");
	FMT("decimal", "52.23", "52");
	FMT("decimal", "0.0054", "0.005");
	FMT("decimal", "0.125", "0.13");
	FMT("decimal", "1.23", "1.2");
	FMT("percentage", "0.5", "50%");
	FMT("percentage", "0.0123", "1.2%");
	FMT("percentage", "1", "100%");
	FMT("hexadecimal", "255", "0xff");
	FMT("pid", "123", "PID: 123");
	FMT("pid", "\"123\"", "PID: 123");
	FMT("tid", "456", "TID: 456");
	FMT("list", "[\"a\", 1, \"b\"]", "a, 1, b");
	FMT("list", "[\"a\", \"\"]", "a, (empty)");
	fmt_is("{\"type\":\"table\",\"columns\":[{\"label\":\"Name\"},{\"label\":\"Size\","
	       "\"type\":\"bytes\"}]}",
	       "[[\"a\", 20000], [\"b\", 3]]", "(Name, Size),(a, 20.0KB),(b, 3B)", __LINE__);
	fmt_is("{\"type\":\"table\",\"columns\":[{},{\"type\":\"integer\"}]}", "[[\"x\", 1234]]",
	       "(x, 1,234)", __LINE__);
	/* missing or null: (empty); unknown formats: the raw value */
	FMT("bytes", "null", "(empty)");
	FMT("bytes", NULL, "(empty)");
	FMT("frobnicate", "[1,2]", "1,2");
	FMT("frobnicate", "1.50", "1.5"); /* numbers as JavaScript prints them */
	FMT("frobnicate", "1e21", "1e+21");
	FMT("string", "0.0000001", "1e-7");
	FMT("string", "165.87091900000001", "165.87091900000001");
}

/* The pid and tid formats name a known thread or process. */
T_TEST(markers_formats_pid_tid_named)
{
	struct pv_profile *p = build(NULL, 0, NULL, 0, NULL);
	struct pv_markers *ms = derive(p);
	if (ms) {
		struct sbuf t = {0};
		pv_marker_format(ms, "\"tid\"", 5, "11", 2, &t);
		T_EQ_STR(sbuf_str(&t), "Worker (11)");
		sbuf_reset(&t);
		pv_marker_format(ms, "\"pid\"", 5, "1", 1, &t);
		T_EQ_STR(sbuf_str(&t), "PID: 1"); /* no process name */
		sbuf_release(&t);
	}
	pv_markers_free(ms);
	pv_profile_free(p);
}

/* ---- labels, fields, search ---- */

static const char label_schema[] =
    "[{\"name\":\"T\","
    "\"tooltipLabel\":\"{marker.name} took {marker.duration} from {marker.start} to "
    "{marker.end}\","
    "\"tableLabel\":\"{marker.name} \xe2\x80\x94 {marker.data.size} "
    "{ marker.data.flag ? 'yes' : \\\"no\\\" } [{marker.category}]\","
    "\"chartLabel\":\"{marker.data.missing}|{marker.data.raw}|{bad.thing}|"
    "{marker.data.a.b}|{}\","
    "\"description\":\"A test schema.\","
    "\"fields\":[{\"key\":\"size\",\"label\":\"Size\",\"format\":\"bytes\"},"
    "{\"key\":\"secret\",\"label\":\"Secret\",\"format\":\"string\",\"hidden\":true},"
    "{\"key\":\"weird\",\"format\":\"frobnicate\"}]},"
    "{\"name\":\"Old\",\"data\":[{\"key\":\"x\",\"label\":\"X\",\"format\":\"integer\"},"
    "{\"label\":\"Description\",\"value\":\"An old schema\"},"
    "{\"label\":\"Static\",\"value\":\"row\"}]},"
    "{\"name\":\"Dash\",\"tableLabel\":\"{marker.name} - {marker.data.x}\"}]";

static const struct mk label_markers[] = {
    {"Alloc", V, 1.5, 4,
     "{\"type\":\"T\",\"size\":313000,\"flag\":1,\"secret\":\"s3\",\"weird\":[1,2],\"raw\":12.50}",
     0, NULL},
    {"Tick", I, 2, -1, "{\"type\":\"T\",\"flag\":0}", 0, NULL},
    {"Legacy", V, 3, 4, "{\"type\":\"Old\",\"x\":1234}", 0, NULL},
    {"Bare", I, 5, -1, NULL, 0, NULL},
    {"Read", V, 6, 7,
     "{\"type\":\"FileIO\",\"source\":\"src\",\"operation\":\"read\","
     "\"filename\":\"/f\"}",
     0, "IO"},
    {"Dashed", I, 8, -1, "{\"type\":\"Dash\",\"x\":\"y\"}", 0, NULL},
};

T_TEST(markers_labels_and_fields)
{
	struct pv_profile *p = build(label_markers, 6, NULL, 0, label_schema);
	struct pv_markers *ms = derive(p);
	if (!ms) {
		pv_profile_free(p);
		return;
	}
	struct pv_marker_detail d = {0};
	T_EQ_INT(ms->len, 6);
	/* Alloc: every placeholder form */
	T_EQ_INT(pv_marker_detail(ms, 0, &d), 0);
	T_EQ_STR(d.type, "T");
	T_EQ_STR(d.label[PV_LABEL_TOOLTIP], "Alloc took 2.500ms from 1.500ms to 4ms");
	T_EQ_STR(d.label[PV_LABEL_TABLE], "313KB yes [Other]"); /* "{marker.name} — " dropped */
	T_EQ_STR(d.label[PV_LABEL_CHART], "|12.5|||{}");
	T_EQ_STR(d.description, "A test schema.");
	T_EQ_INT(d.nr_fields, 3);
	if (d.nr_fields == 3) {
		T_EQ_STR(d.fields[0].label, "Size");
		T_EQ_STR(d.fields[0].value, "313KB");
		T_TRUE(!d.fields[0].hidden);
		T_EQ_STR(d.fields[1].value, "s3");
		T_TRUE(d.fields[1].hidden);
		T_EQ_STR(d.fields[2].label, "weird"); /* no label: the key */
		T_EQ_STR(d.fields[2].value, "1,2");   /* unknown format: raw */
	}
	/* Tick: an instant has no end or duration; a falsy flag takes the ternary's else */
	T_EQ_INT(pv_marker_detail(ms, 1, &d), 0);
	T_EQ_STR(d.label[PV_LABEL_TOOLTIP], "Tick took unknown from 2ms to unknown");
	T_EQ_STR(d.label[PV_LABEL_TABLE], " no [Other]");
	T_EQ_INT(d.nr_fields, 0);
	/* an old schema: keyed rows are fields, a static Description row the description */
	T_EQ_INT(pv_marker_detail(ms, 2, &d), 0);
	T_EQ_STR(d.description, "An old schema");
	T_EQ_STR(d.label[PV_LABEL_TOOLTIP], "Legacy");
	T_EQ_INT(d.nr_fields, 2);
	if (d.nr_fields == 2) {
		T_EQ_STR(d.fields[0].value, "1,234");
		T_TRUE(d.fields[1].key == NULL);
		T_EQ_STR(d.fields[1].label, "Static");
		T_EQ_STR(d.fields[1].value, "row");
	}
	/* no payload: the name, and empty table and chart labels */
	T_EQ_INT(pv_marker_detail(ms, 3, &d), 0);
	T_TRUE(d.type == NULL);
	T_EQ_STR(d.label[PV_LABEL_TOOLTIP], "Bare");
	T_EQ_STR(d.label[PV_LABEL_TABLE], "");
	T_EQ_STR(d.label[PV_LABEL_CHART], "");
	/* FileIO without a schema: the table's own fallback */
	T_EQ_INT(pv_marker_detail(ms, 4, &d), 0);
	T_EQ_STR(d.label[PV_LABEL_TABLE], "(src) read \xe2\x80\x94 /f");
	/* "{marker.name} - " is dropped too */
	T_EQ_INT(pv_marker_detail(ms, 5, &d), 0);
	T_EQ_STR(d.label[PV_LABEL_TABLE], "y");
	/* each problem said once */
	T_EQ_INT(ms->nr_notes, 3);
	if (ms->nr_notes == 3) {
		T_CONTAINS(ms->notes[0], "'weird' has an unknown format 'frobnicate'");
		T_CONTAINS(ms->notes[1], "'{bad.thing}' is not a placeholder");
		T_CONTAINS(ms->notes[2], "'{marker.data.a.b}' is not a placeholder");
	}
	pv_marker_detail_release(&d);
	pv_markers_free(ms);
	pv_profile_free(p);
}

/* The names of the markers a search keeps, comma-separated. */
static void search_is(const struct pv_markers *ms, const char *search, const char *want, int line)
{
	struct pv_marker_search *s = NULL;
	struct pv_marker_detail d = {0};
	char got[1024] = "";
	if (pv_marker_search_new(search, &s)) {
		t_fail(__FILE__, line, "search '%s': out of memory", search);
		return;
	}
	for (uint32_t i = 0; i < ms->len; i++) {
		if (!pv_marker_search_match(ms, i, s, &d))
			continue;
		if (*got)
			text_append(got, sizeof(got), ",");
		text_append(got, sizeof(got), ms->name[i]);
	}
	if (strcmp(got, want) != 0)
		t_fail(__FILE__, line, "search '%s' kept \"%s\", expected \"%s\"", search, got,
		       want);
	pv_marker_detail_release(&d);
	pv_marker_search_free(s);
}

T_TEST(markers_search_syntax)
{
	struct pv_profile *p = build(label_markers, 6, NULL, 0, label_schema);
	struct pv_markers *ms = derive(p);
	if (!ms) {
		pv_profile_free(p);
		return;
	}
	search_is(ms, "", "Alloc,Tick,Legacy,Bare,Read,Dashed", __LINE__);
	search_is(ms, " , ", "Alloc,Tick,Legacy,Bare,Read,Dashed", __LINE__);
	search_is(ms, "ALLOC", "Alloc", __LINE__);		/* case-insensitive */
	search_is(ms, "313kb", "Alloc", __LINE__);		/* a formatted field value */
	search_is(ms, "313000", "Alloc", __LINE__);		/* the raw value too */
	search_is(ms, "s3", "Alloc", __LINE__);			/* hidden fields are searched */
	search_is(ms, "tick, legacy", "Tick,Legacy", __LINE__); /* OR */
	search_is(ms, "type:fileio", "Read", __LINE__);
	search_is(ms, "cat:io", "Read", __LINE__);
	search_is(ms, "name:e", "Legacy,Bare,Read,Dashed", __LINE__);
	search_is(ms, "size:313", "Alloc", __LINE__);
	search_is(ms, "secret:313", "", __LINE__);  /* the key must match */
	search_is(ms, "-name:a", "Tick", __LINE__); /* excludes */
	search_is(ms, "e,-type:t", "Legacy,Bare,Read,Dashed", __LINE__);
	search_is(ms, "-name", "", __LINE__);	      /* no key: a plain substring */
	search_is(ms, "x:1,234", "Legacy", __LINE__); /* "x:1" as a term, then "234" */
	pv_markers_free(ms);
	pv_profile_free(p);
}

/*
 * "(" finds no marker by the "(empty)" the formatter shows for an empty value: the Firefox
 * Profiler tests a field's raw value, and skips an empty one (markerPayloadMatchesSearch). An
 * empty string field, a string index that names no string, a list with an empty item; a field
 * holding "(" is found.
 */
T_TEST(markers_search_empty_placeholder)
{
	static const struct mk m[] = {
	    {"Str", V, 1, 2, "{\"type\":\"E\",\"s\":\"\"}", 0, NULL},
	    {"Idx", V, 1, 2, "{\"type\":\"E\",\"u\":99}", 0, NULL},
	    {"List", V, 1, 2, "{\"type\":\"E\",\"l\":[\"a\",\"\"]}", 0, NULL},
	    {"Paren", V, 1, 2, "{\"type\":\"E\",\"s\":\"f(x)\"}", 0, NULL},
	};
	struct pv_profile *p =
	    build(m, 4, NULL, 0,
		  "[{\"name\":\"E\",\"fields\":[{\"key\":\"s\",\"format\":\"string\"},"
		  "{\"key\":\"u\",\"format\":\"unique-string\"},{\"key\":\"l\",\"format\":"
		  "\"list\"}]}]");
	struct pv_markers *ms = derive(p);
	struct pv_marker_detail d = {0};
	if (ms && !pv_marker_detail(ms, 0, &d) && d.nr_fields)
		T_EQ_STR(d.fields[0].value, "(empty)"); /* shown so */
	if (ms && !pv_marker_detail(ms, 2, &d) && d.nr_fields)
		T_EQ_STR(d.fields[0].value, "a, (empty)");
	if (ms) {
		search_is(ms, "(", "Paren", __LINE__);
		search_is(ms, "empty", "", __LINE__);
		search_is(ms, "s:(", "Paren", __LINE__);
		search_is(ms, "a", "List,Paren",
			  __LINE__); /* the list's raw "a," ("Paren": its name) */
	}
	pv_marker_detail_release(&d);
	pv_markers_free(ms);
	pv_profile_free(p);
}

T_TEST(markers_summary_by_name)
{
	static const struct mk m[] = {
	    {"A", V, 0, 1, NULL, 0, NULL},  {"A", V, 1, 4, NULL, 0, NULL},
	    {"A", V, 2, 4, NULL, 0, NULL},  {"A", V, 3, 13, NULL, 0, NULL},
	    {"A", I, 5, -1, NULL, 0, NULL}, {"A", S, 6, -1, NULL, 0, NULL},
	    {"B", V, 0, 20, NULL, 1, NULL}, {"C", I, 1, -1, NULL, 0, NULL},
	    {"D", V, 0, 3, NULL, 0, NULL},  {"D", V, 0, 5, NULL, 0, NULL},
	    {"D", V, 0, 4, NULL, 0, NULL},
	};
	struct pv_profile *p = build(m, sizeof(m) / sizeof(m[0]), NULL, 0, NULL);
	struct pv_markers *ms = derive(p);
	struct pv_marker_summary_row *rows = NULL;
	uint32_t n = 0;
	if (!ms || pv_marker_summary(ms, NULL, &rows, &n)) {
		pv_markers_free(ms);
		pv_profile_free(p);
		return;
	}
	T_EQ_INT(n, 4);
	if (n == 4) {
		/* by total: B 20, A 16, D 12, C (nothing timed) */
		T_EQ_STR(rows[0].name, "B");
		T_EQ_STR(rows[1].name, "A");
		T_EQ_U64(rows[1].count, 6);
		T_EQ_U64(rows[1].instant, 1);
		T_EQ_U64(rows[1].incomplete, 1);
		T_EQ_U64(rows[1].timed, 4);
		T_EQ_INT(rows[1].total_ns, MS(16));
		T_EQ_INT(rows[1].min_ns, MS(1));
		T_EQ_INT(rows[1].median_ns, MS(2.5)); /* (2 + 3) / 2 */
		T_EQ_INT(rows[1].max_ns, MS(10));
		T_EQ_STR(rows[2].name, "D");
		T_EQ_INT(rows[2].median_ns, MS(4));
		T_EQ_STR(rows[3].name, "C");
		T_EQ_U64(rows[3].timed, 0);
	}
	/* only the kept markers count */
	uint8_t *keep = calloc(ms->len, 1);
	for (uint32_t i = 0; keep && i < ms->len; i++)
		keep[i] = strcmp(ms->name[i], "D") == 0;
	pv_marker_summary_free(rows);
	rows = NULL;
	if (keep && !pv_marker_summary(ms, keep, &rows, &n)) {
		T_EQ_INT(n, 1);
		T_EQ_U64(rows[0].count, 3);
	}
	free(keep);
	pv_marker_summary_free(rows);
	pv_markers_free(ms);
	pv_profile_free(p);
}

/* A schema list that is not a JSON array is an error with the format's name. */
T_TEST(markers_bad_schema_list)
{
	struct pv_profile *p = build(NULL, 0, NULL, 0, "{\"name\":\"x\"}");
	struct pv_markers *ms = NULL;
	struct pv_error err;
	T_EQ_INT(pv_markers_derive(p, &ms, &err), PV_EPARSE);
	T_CONTAINS(err.msg, "the marker schema list: expected a JSON array");
	pv_profile_free(p);
}

/*
 * The Gecko importer keeps meta.markerSchema of the main process and the sub-processes, the first
 * schema of a name winning, each in the shape it was written; old "data" schemas read as fields
 * and static rows.
 */
T_TEST(markers_gecko_schemas_unioned)
{
	struct pv_profile *p;
	struct pv_markers *ms = derive_file(t_data("firefox/gecko-v36-schemas.json"), &p);
	if (!ms)
		return;
	const char *s = pv_str(p, p->meta.marker_schema);
	T_TRUE(strncmp(s, "[{\"name\":\"tracing\",\"display\":[\"marker-chart\"],", 45) == 0);
	T_CONTAINS(s, "{\"name\":\"DOMEvent\",");
	T_CONTAINS(s, "},{\"name\":\"FileIO\",\"display\":[\"marker-table\"],");
	T_TRUE(strstr(s, "sub-process") ==
	       NULL); /* the sub-process's "tracing" lost to the main's */
	struct pv_marker_detail d = {0};
	uint32_t i = find(ms, 2, "Reflow", 1003); /* a marker of the sub-process */
	T_TRUE(i != UINT32_MAX);
	if (i != UINT32_MAX && !pv_marker_detail(ms, i, &d)) {
		T_EQ_STR(d.label[PV_LABEL_TABLE], "Paint");
		T_EQ_STR(d.description, "Paint and layout phases.");
		T_EQ_INT(d.nr_fields, 2);
		if (d.nr_fields == 2) {
			T_EQ_STR(d.fields[0].label, "Type");
			T_EQ_STR(d.fields[0].value, "Paint");
			T_EQ_STR(d.fields[1].label, "Source");
			T_EQ_STR(d.fields[1].value, "Gecko");
		}
	}
	i = find(ms, 0, "DOMEvent", 9);
	if (i != UINT32_MAX && !pv_marker_detail(ms, i, &d)) {
		T_EQ_STR(d.label[PV_LABEL_TOOLTIP], "mouseout \xe2\x80\x94 DOMEvent");
		T_EQ_STR(d.fields[0].value, "8ms"); /* the end's latency won the merge */
	}
	i = find(ms, 0, "FileIO", 22);
	if (i != UINT32_MAX && !pv_marker_detail(ms, i, &d))
		T_EQ_STR(d.label[PV_LABEL_TABLE], "create/open /foo/bar/");
	pv_marker_detail_release(&d);
	pv_markers_free(ms);
	pv_profile_free(p);
}

/* --inside-markers keeps the samples inside a matching marker of their own thread. */
T_TEST(markers_inside_markers_view)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	if (pv_import_file(t_corpus("firefox/generated-gecko-v36.json"), NULL, &p, &err)) {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
		return;
	}
	static const struct {
		const char *search;
		uint64_t samples;
	} cases[] = {
	    /* samples at 0..6 ms (threads 0, 1) and 1000..1006 (thread 2); Reflow [3, 8] and
	     * [1003, 1008] hold 3, 4, 5, 6 of each thread */
	    {"Reflow", 12},
	    {"Rasterize", 6}, /* [0, 1] incomplete, [4, 5]: 0 and 4; [1000, 1001]: 1000 */
	    {"DOMEvent", 0},  /* [9, 10]: after the samples */
	    {"Reflow,-cat:Other", 0},
	    {"IPC", 7}, /* IPCIn [30, 1031] on thread 2; IPCOut on 0 after its samples */
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct pv_query q;
		struct pv_view *v = NULL;
		pv_query_init(&q);
		T_EQ_INT(pv_query_set_option(&q, "inside-markers", cases[k].search, &err), 0);
		if (pv_view_compute(p, &q, &v, &err)) {
			t_fail(__FILE__, __LINE__, "%s: %s", cases[k].search, err.msg);
		} else if (v->nr_samples != cases[k].samples) {
			t_fail(__FILE__, __LINE__, "inside '%s': %llu samples, expected %llu",
			       cases[k].search, (unsigned long long)v->nr_samples,
			       (unsigned long long)cases[k].samples);
		}
		pv_view_free(v);
		pv_query_release(&q);
	}
	pv_profile_free(p);
}

/* A pair with payloads of many keys merges through a hash table: the same result. */
T_TEST(markers_merge_many_keys)
{
	char s[4096], e[4096];
	size_t ns = (size_t)snprintf(s, sizeof(s), "{\"type\":\"big\""), ne = 1;
	e[0] = '{';
	for (int k = 0; k < 100; k++) {
		ns += (size_t)snprintf(s + ns, sizeof(s) - ns, ",\"k%d\":%d", k, k);
		ne += (size_t)snprintf(e + ne, sizeof(e) - ne, "%s\"k%d\":\"end\"", k ? "," : "",
				       2 * k);
	}
	snprintf(s + ns, sizeof(s) - ns, "}");
	snprintf(e + ne, sizeof(e) - ne, "}");
	const struct mk m[] = {{"M", S, 1, -1, s, 0, NULL}, {"M", E, -1, 2, e, 0, NULL}};
	struct pv_profile *p = build(m, 2, NULL, 0, NULL);
	struct pv_markers *ms = derive(p);
	if (ms && ms->len == 1) {
		const char *d = ms->data[0];
		T_TRUE(strncmp(d, "{\"type\":\"big\",\"k0\":\"end\",\"k1\":1,\"k2\":\"end\",",
			       43) == 0);
		T_CONTAINS(d, ",\"k98\":\"end\",\"k99\":99,\"k100\":\"end\",\"k102\":\"end\",");
		T_CONTAINS(d, ",\"k196\":\"end\",\"k198\":\"end\"}");
	} else {
		T_TRUE(ms && ms->len == 1);
	}
	pv_markers_free(ms);
	pv_profile_free(p);
}
/* ---- labels, search and summary on the Firefox corpus (the processed importer's schemas) ---- */

struct corpus_labels {
	const char *file;
	const char *table[24]; /* the table label of each marker, in order; NULL ends */
};

static const struct corpus_labels corpus_labels[] = {
    {"firefox/generated-processed-v70-marker-table.json",
     {"foobar", "", "PContent::Msg_PreferenceUpdate \xe2\x80\x94 sent to 2222", "5.5", "5.5",
      "(nsJarProtocol) nsJARChannel::nsJARChannel [this=0x87f1ec80]\n",
      "(PoisonIOInterposer) create/open \xe2\x80\x94 /foo/bar", NULL}},
    {"firefox/generated-processed-v70-network.json",
     {"", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", NULL}},
    {"firefox/argument-values.json",
     {"", "PBrowser::Msg_RealMouseButtonEvent - priority: InputHigh (6) task: f67ae7353bf8e5000",
      "Coalesced input move flusher [Event]", "mousedown - html@10bc0c080", "",
      "resource:///actors/GenAIChild.sys.mjs", "(empty)",
      "TaskController::AddTask (flow=f67ae7353bf8e9600)",
      "browser.drag_out_of_frame_style: 1 (Int)", "resource://gre/actors/AutoScrollChild.sys.mjs",
      "(empty)", NULL}},
};

T_TEST(markers_corpus_table_labels)
{
	for (size_t k = 0; k < sizeof(corpus_labels) / sizeof(corpus_labels[0]); k++) {
		const struct corpus_labels *c = &corpus_labels[k];
		struct pv_profile *p;
		struct pv_markers *ms = derive_file(t_data(c->file), &p);
		if (!ms)
			continue;
		struct pv_marker_detail d = {0};
		uint32_t i = 0;
		for (; c->table[i] && i < ms->len; i++) {
			if (pv_marker_detail(ms, i, &d) ||
			    strcmp(d.label[PV_LABEL_TABLE], c->table[i]))
				t_fail(__FILE__, __LINE__,
				       "%s marker %u: table label \"%s\", expected "
				       "\"%s\"",
				       c->file, i, d.label[PV_LABEL_TABLE], c->table[i]);
		}
		T_EQ_INT(i, ms->len);
		T_EQ_INT(ms->nr_notes, 0);
		pv_marker_detail_release(&d);
		pv_markers_free(ms);
		pv_profile_free(p);
	}
}

/* Tooltip and chart labels, descriptions and fields of a few markers, as the tooltip shows them. */
T_TEST(markers_corpus_tooltips)
{
	struct pv_profile *p;
	struct pv_markers *ms = derive_file(t_data("firefox/argument-values.json"), &p);
	if (!ms)
		return;
	struct pv_marker_detail d = {0};
	/* Runnable: a Task payload; its terminating-flow-id resolved by the importer */
	T_EQ_INT(pv_marker_detail(ms, 1, &d), 0);
	T_EQ_STR(d.type, "Task");
	T_EQ_STR(d.label[PV_LABEL_TOOLTIP], "Runnable");
	T_EQ_STR(d.label[PV_LABEL_CHART], "PBrowser::Msg_RealMouseButtonEvent");
	T_EQ_STR(d.description, "Marker representing a task being executed in TaskController.");
	T_EQ_INT(d.nr_fields, 4);
	if (d.nr_fields == 4) {
		T_EQ_STR(d.fields[1].label, "Priority level");
		T_EQ_STR(d.fields[1].value, "6");
		T_EQ_STR(d.fields[2].label, "Task");
		T_EQ_STR(d.fields[2].value, "f67ae7353bf8e5000");
	}
	/* DOMEvent: the start's and end's payloads merged; latency as a duration */
	T_EQ_INT(pv_marker_detail(ms, 3, &d), 0);
	T_EQ_STR(d.label[PV_LABEL_TOOLTIP], "mousedown - DOMEvent");
	T_EQ_STR(d.fields[1].label, "Latency");
	T_EQ_STR(d.fields[1].value, "2.966ms");
	/* Awake: the end's payload keys win, the start's stay ("CPU Time" has no label) */
	T_EQ_INT(pv_marker_detail(ms, 0, &d), 0);
	T_EQ_STR(ms->data[0], "{\"type\":\"Awake\",\"QoS\":\"User Interactive\","
			      "\"CPU Time\":37.453}");
	T_EQ_INT(d.nr_fields, 2);
	if (d.nr_fields == 2) {
		T_EQ_STR(d.fields[0].label, "CPU Time");
		T_EQ_STR(d.fields[0].value, "37.453ms");
		T_EQ_STR(d.fields[1].label, "Quality of Service");
	}
	/* a TextStack marker's cause: its time (ms to the ns, half away from zero) and stack */
	T_EQ_INT(ms->cause_time_ns[5], 324383877234);
	T_TRUE(pv_marker_cause(ms, 5, NULL, 0) > 0);
	pv_marker_detail_release(&d);
	pv_markers_free(ms);
	pv_profile_free(p);

	ms = derive_file(t_data("firefox/generated-processed-v70-network.json"), &p);
	if (!ms)
		return;
	T_EQ_INT(pv_marker_detail(ms, 0, &d), 0);
	T_EQ_STR(d.label[PV_LABEL_TOOLTIP], "Load 0: https://mozilla.org");
	T_EQ_STR(d.label[PV_LABEL_CHART], "https://mozilla.org");
	T_EQ_INT(d.nr_fields, 1);
	if (d.nr_fields == 1) {
		T_EQ_STR(d.fields[0].label, "Content Type");
		T_EQ_STR(d.fields[0].value, "text/html");
		T_TRUE(d.fields[0].hidden);
	}
	pv_marker_detail_release(&d);
	pv_markers_free(ms);
	pv_profile_free(p);
}

T_TEST(markers_corpus_search)
{
	static const struct {
		const char *file, *search, *want;
	} cases[] = {
	    {"generated-processed-v70-marker-table.json", "ipc", "IPCOut"},
	    {"generated-processed-v70-marker-table.json", "5.5", "setTimeout,Lorem"},
	    {"generated-processed-v70-marker-table.json", "-type:text",
	     "UserTiming,NotifyDidPaint,IPCOut,LogMessages,FileIO"},
	    /* "name:" also tries the fields whose key is "name" (the Firefox Profiler's rule):
	     * UserTiming's "foobar" and LogMessages' "...0x87f1ec80" go too */
	    {"generated-processed-v70-marker-table.json", "cat:other,-name:f", "IPCOut,setTimeout"},
	    {"generated-processed-v70-marker-table.json", "filename:bar,nsjar",
	     "LogMessages,FileIO"},
	    {"generated-processed-v70-marker-table.json", "paint", "NotifyDidPaint"},
	    {"generated-processed-v70-network.json", "text/html",
	     "Load 0,Load 1,Load 2,Load 3,Load 4,Load 5,Load 6,Load 7,Load 8,Load 9"},
	    {"generated-processed-v70-network.json", "type:network,-name:load 1,-name:load 2",
	     "Load 0,Load 3,Load 4,Load 5,Load 6,Load 7,Load 8,Load 9"},
	    /* Load and DOMContentLoaded are tracing markers of the category (field) Navigation */
	    {"generated-processed-v70-network.json", "navigation",
	     "Load,DOMContentLoaded,Navigation,Navigation"},
	    {"generated-processed-v70-network.json", "tti, firstcontentful",
	     "TTI,FirstContentfulPaint"},
	    {"argument-values.json", "flow", "TaskController"},
	    {"argument-values.json", "priorityname:inputhigh", "Runnable"},
	    {"argument-values.json", "cat:javascript,-name:chrome",
	     "ModuleEvaluation,ModuleEvaluation"},
	    {"argument-values.json", "mousedown,f67ae7353bf8e9600", "DOMEvent,TaskController"},
	    {"argument-values.json", "cat:dom,-type:domevent", ""},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char rel[256], got[1024] = "";
		snprintf(rel, sizeof(rel), "firefox/%s", cases[k].file);
		struct pv_profile *p;
		struct pv_markers *ms = derive_file(t_data(rel), &p);
		struct pv_marker_search *s = NULL;
		struct pv_marker_detail d = {0};
		if (!ms || pv_marker_search_new(cases[k].search, &s)) {
			pv_markers_free(ms);
			pv_profile_free(p);
			continue;
		}
		/* the prebuilt text (the TUI's search as it is typed) keeps the same markers */
		struct pv_marker_text *tx = NULL;
		if (pv_marker_text_new(ms, &tx))
			t_fail(__FILE__, __LINE__, "out of memory");
		for (uint32_t i = 0; tx && i < ms->len; i++)
			if (pv_marker_search_match_text(tx, i, s) !=
			    pv_marker_search_match(ms, i, s, &d))
				t_fail(__FILE__, __LINE__,
				       "%s: search '%s' by the text differs at %u", cases[k].file,
				       cases[k].search, i);
		/* and a selection within a list (the even markers) keeps the listed ones it keeps
		 */
		uint32_t *even = malloc(sizeof(*even) * (ms->len + 1)), ne = 0, *all = NULL, na = 0,
			 *got_idx = NULL, ng = 0;
		for (uint32_t i = 0; even && i < ms->len; i += 2)
			even[ne++] = i;
		struct pv_marker_select sa = {.search = s}, sw = {.search = s, .text = tx};
		sw.within = even;
		sw.nr_within = ne;
		if (!even || !tx || pv_marker_select(ms, &sa, &all, &na) ||
		    pv_marker_select(ms, &sw, &got_idx, &ng))
			t_fail(__FILE__, __LINE__, "out of memory");
		uint32_t want_n = 0;
		for (uint32_t j = 0; all && j < na; j++)
			if (all[j] % 2 == 0 && (want_n >= ng || got_idx[want_n++] != all[j]))
				t_fail(__FILE__, __LINE__, "%s: within: marker %u", cases[k].file,
				       all[j]);
		if (want_n != ng)
			t_fail(__FILE__, __LINE__, "%s: within kept %u, expected %u", cases[k].file,
			       ng, want_n);
		pv_free_indexes(all);
		pv_free_indexes(got_idx);
		free(even);
		pv_marker_text_free(tx);
		for (uint32_t i = 0; i < ms->len; i++) {
			if (!pv_marker_search_match(ms, i, s, &d))
				continue;
			/* names up to their first ':' or space, to keep the table short */
			size_t n = strcspn(ms->name[i], ": ");
			if (*got)
				text_append(got, sizeof(got), ",");
			if (strncmp(ms->name[i], "Load ", 5) == 0)
				n = 5 + strcspn(ms->name[i] + 5, ":");
			size_t l = strlen(got);
			snprintf(got + l, sizeof(got) - l, "%.*s", (int)n, ms->name[i]);
		}
		if (strcmp(got, cases[k].want) != 0)
			t_fail(__FILE__, __LINE__, "%s: search '%s' kept \"%s\", expected \"%s\"",
			       cases[k].file, cases[k].search, got, cases[k].want);
		pv_marker_detail_release(&d);
		pv_marker_search_free(s);
		pv_markers_free(ms);
		pv_profile_free(p);
	}
}

T_TEST(markers_corpus_summary)
{
	static const struct {
		const char *file;
		const char *rows; /* name count instant incomplete total_us median_us; ... */
	} cases[] = {
	    {"argument-values.json",
	     "Awake 1 0 0 37473 37473;Runnable 1 0 0 37120 37120;RefreshObserver 1 0 0 37096 37096;"
	     "DOMEvent 1 0 0 36772 36772;ChromeUtils.importESModule 2 0 0 73 37;"
	     "ModuleEvaluation 2 0 0 8 4;IPC Accumulator 1 0 1 0 0;Preference Read 1 1 0 0 0;"
	     "TaskController::AddTask 1 1 0 0 0;"},
	    {"generated-processed-v70-marker-table.json",
	     /* equal totals and counts: by name */
	     "FileIO 1 0 0 1000 1000;Lorem 1 0 0 1 1;setTimeout 1 0 0 1 1;IPCOut 1 0 1 0 0;"
	     "LogMessages 1 1 0 0 0;NotifyDidPaint 1 1 0 0 0;UserTiming 1 0 0 0 0;"},
	    {"generated-processed-v70-network.json",
	     "Load 1 0 0 2000 2000;DOMContentLoaded 1 0 0 1000 1000;FirstContentfulPaint 1 0 0 "
	     "1000 "
	     "1000;Load 0: https 1 0 0 1000 1000;Load 1: https 1 0 0 1000 1000;Load 2: https 1 0 0 "
	     "1000 1000;Load 3: https 1 0 0 1000 1000;Load 4: https 1 0 0 1000 1000;Load 5: https "
	     "1 "
	     "0 0 1000 1000;Load 6: https 1 0 0 1000 1000;Load 7: https 1 0 0 1000 1000;Load 8: "
	     "https 1 0 0 1000 1000;Load 9: https 1 0 0 1000 1000;Navigation::Start 2 2 0 0 0;"
	     "TTI 1 1 0 0 0;"},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char rel[256], got[2048] = "";
		snprintf(rel, sizeof(rel), "firefox/%s", cases[k].file);
		struct pv_profile *p;
		struct pv_markers *ms = derive_file(t_data(rel), &p);
		struct pv_marker_summary_row *rows = NULL;
		uint32_t n = 0;
		if (!ms || pv_marker_summary(ms, NULL, &rows, &n)) {
			pv_markers_free(ms);
			pv_profile_free(p);
			continue;
		}
		for (uint32_t r = 0; r < n; r++) {
			char line[200];
			/* a long name to its first space or ':' + "https" (the Lorem and the loads)
			 */
			int nl = (int)strlen(rows[r].name);
			if (strncmp(rows[r].name, "Lorem", 5) == 0)
				nl = 5;
			else if (strncmp(rows[r].name, "Load ", 5) == 0 && nl > 13)
				nl = (int)(strchr(rows[r].name, ':') - rows[r].name) + 7;
			snprintf(line, sizeof(line), "%.*s %llu %llu %llu %lld %lld;", nl,
				 rows[r].name, (unsigned long long)rows[r].count,
				 (unsigned long long)rows[r].instant,
				 (unsigned long long)rows[r].incomplete,
				 (long long)((rows[r].total_ns + 500) / 1000),
				 (long long)((rows[r].median_ns + 500) / 1000));
			text_append(got, sizeof(got), line);
		}
		if (strcmp(got, cases[k].rows) != 0)
			t_fail(__FILE__, __LINE__, "%s summary:\n  got  %s\n  want %s",
			       cases[k].file, got, cases[k].rows);
		pv_marker_summary_free(rows);
		pv_markers_free(ms);
		pv_profile_free(p);
	}
}

/* ====================================================================================== */
/*
 * Issue 10, point 4: markers as the Firefox Profiler derives and shows them. Each expected
 * text below is what its code gives (src/profile-logic/marker-data.ts, marker-schema.ts,
 * profile-data.ts, src/utils/format-numbers.ts, src/components/tooltip/Marker.tsx), worked
 * out by hand from that code; the comment next to each says how.
 */

#include "base/alloc.h"
#include "pv/format.h"

/* ---- derivation never returns a stale status ---- */

/*
 * A CompositorScreenshot row, then an interval start on the same thread: the screenshot's "done
 * with this row" once leaked out as the thread's status, so every `markers` failed with an
 * empty message. Both become markers: the screenshot until the thread's end, the start
 * incomplete.
 */
T_TEST(markers_screenshot_then_start)
{
	static const double samples[] = {0, 9};
	static const struct mk m[] = {
	    {"CompositorScreenshot", I, 1, -1,
	     "{\"type\":\"CompositorScreenshot\",\"windowID\":\"0x1\",\"url\":\"u\"}", 0, NULL},
	    {"Reflow", S, 2, -1, NULL, 0, NULL},
	    {"X", I, 3, -1, NULL, 0, NULL},
	};
	struct pv_profile *p = build(m, 3, samples, 2, NULL);
	struct pv_markers *ms = derive(p);
	if (ms) {
		T_EQ_INT(ms->len, 3);
		expect(ms, 0, "CompositorScreenshot", 1, 10, false, __LINE__);
		expect(ms, 0, "Reflow", 2, 10, true, __LINE__);
	}
	pv_markers_free(ms);
	pv_profile_free(p);
	/* the fuzz seed that reproduces it, through the importer */
	ms = derive_file(t_data("../../fuzz/corpus/firefox-processed/screenshot-then-start.json"),
			 &p);
	if (ms) {
		T_EQ_INT(ms->len, 2);
		expect(ms, 0, "CompositorScreenshot", 1, 3, false,
		       __LINE__); /* no samples: 2 + 1 */
		expect(ms, 0, "Reflow", 2, 3, true, __LINE__);
	}
	pv_markers_free(ms);
	pv_profile_free(p);
}

/*
 * Every error path of the marker code says what: each allocation in turn fails while deriving
 * (every kind of marker: pairs, Network, IPC, screenshots, Jank) and resolving, searching and
 * summarizing; a failure is PV_ENOMEM saying "out of memory", never an empty message or a status
 * that is no error. A schema list that is no array names the format.
 */
T_TEST(markers_errors_say_what)
{
	static const char *const files[] = {"firefox/generated-gecko-v36.json",
					    "firefox/generated-processed-v70-network.json",
					    "firefox/jank-processed.json"};
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct pv_profile *p = NULL;
		struct pv_error err;
		if (pv_import_file(t_data(files[f]), NULL, &p, &err)) {
			t_fail(__FILE__, __LINE__, "%s: %s", files[f], err.msg);
			continue;
		}
		uint32_t failed = 0, ok = 0;
		for (uint64_t k = 1; k < 100000 && !ok; k++) {
			struct pv_markers *ms = NULL;
			pv_error_clear(&err);
			pv_alloc_fail_after(k);
			int rc = pv_markers_derive(p, &ms, &err);
			struct pv_marker_detail d = {0};
			struct pv_marker_search *s = NULL;
			uint32_t *idx = NULL, n = 0;
			struct pv_marker_summary_row *rows = NULL;
			int rc2 = 0;
			if (!rc) {
				for (uint32_t i = 0; i < ms->len && !rc2; i++)
					rc2 = pv_marker_detail(ms, i, &d);
				if (!rc2)
					rc2 = pv_marker_search_new("a,-cat:x,size:1", &s);
				struct pv_marker_select sel = {.search = s};
				if (!rc2)
					rc2 = pv_marker_select(ms, &sel, &idx, &n);
				if (!rc2)
					rc2 = pv_marker_summary(ms, NULL, &rows, &n);
			}
			pv_alloc_fail_after(0);
			if (rc) {
				failed++;
				if (rc != PV_ENOMEM || !strstr(err.msg, "out of memory"))
					t_fail(__FILE__, __LINE__,
					       "%s, allocation %llu: status %d '%s'", files[f],
					       (unsigned long long)k, rc, err.msg);
			} else if (rc2 && rc2 != PV_ENOMEM) {
				t_fail(__FILE__, __LINE__, "%s, allocation %llu: status %d",
				       files[f], (unsigned long long)k, rc2);
			}
			ok = !rc && !rc2;
			pv_marker_summary_free(rows);
			pv_free_indexes(idx);
			pv_marker_search_free(s);
			pv_marker_detail_release(&d);
			pv_markers_free(ms);
		}
		T_TRUE(ok && failed > 10);
		pv_profile_free(p);
	}
	/* the one error of bad input: a schema list that is no array, named with its format */
	struct pv_profile *p = build(NULL, 0, NULL, 0, "\"x\"");
	struct pv_markers *ms = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	T_EQ_INT(pv_markers_derive(p, &ms, &err), PV_EPARSE);
	T_CONTAINS(err.msg, "the marker schema list: expected a JSON array");
	pv_profile_free(p);
}

/* ---- Jank ---- */

struct jank {
	pv_thread_ix thread;
	double start, end; /* ms */
};

/*
 * tests/data/firefox/jank-*.json (the same samples in both formats), by deriveJankMarkers'
 * walk: the delay of the sample before a drop, if at least 50 ms, is a Jank ending at that
 * sample; one still at 50 ms or more at the last sample is one too.
 *   GeckoMain, times 100, 110, ... 250, delays 5 25 33 3 23 42 65 71 3 10 22 31 42 3 20 40
 *     (the example of marker-data.ts): drops after 33 (< 50), 71 (a Jank at 170, 71 ms long),
 *     42; the last is 40: one Jank [99, 170].
 *   Worker, times 1000..1008, delays 50 20 60 60 10 55.5 null 54 80.25: 50 drops to 20 (exactly
 *     50 counts): [950, 1000]; 60 then 60 is no drop, 10 is: [943, 1003]; the null is passed
 *     over, so 54 drops from 55.5: [949.5, 1005]; 80.25 is last: [927.75, 1008].
 *   Old (responsiveness, not eventDelay), times 2000..2002, delays 0 70 0: [1931, 2001].
 *   Both: eventDelay 0 10 0 and responsiveness 90 90 90: eventDelay wins, no Jank.
 * Sorted by start, a Jank after the derived markers of its start (the Paint instant at 99).
 */
static const struct jank janks[] = {
    {0, 99, 170},     {1, 927.75, 1008}, {1, 943, 1003},
    {1, 949.5, 1005}, {1, 950, 1000},	 {2, 1931, 2001},
};

T_TEST(markers_jank_from_event_delay)
{
	static const char *const files[] = {"firefox/jank-processed.json",
					    "firefox/jank-gecko.json"};
	for (size_t f = 0; f < 2; f++) {
		struct pv_profile *p;
		struct pv_markers *ms = derive_file(t_data(files[f]), &p);
		if (!ms)
			continue;
		/* the model keeps the column: ns, null where the sample had none */
		const int64_t *ed = p->samples.event_delay_ns;
		T_TRUE(ed != NULL);
		if (ed) {
			uint32_t w = p->threads.sample_begin[1];
			T_EQ_INT(ed[w + 5], MS(55.5));
			T_EQ_INT(ed[w + 6], PV_TIME_NONE);
			T_EQ_INT(ed[w + 8], MS(80.25));
		}
		uint32_t k = 0;
		struct pv_marker_detail d = {0};
		for (uint32_t i = 0; i < ms->len; i++) {
			if (strcmp(ms->name[i], "Jank") != 0)
				continue;
			if (k < 6 && (ms->thread[i] != janks[k].thread ||
				      ms->start_ns[i] != MS(janks[k].start) ||
				      ms->end_ns[i] != MS(janks[k].end)))
				t_fail(__FILE__, __LINE__, "%s: Jank %u on thread %u [%lld, %lld]",
				       files[f], k, ms->thread[i], (long long)ms->start_ns[i],
				       (long long)ms->end_ns[i]);
			T_EQ_INT(ms->flags[i], PV_MARKER_SYNTHETIC);
			T_EQ_INT(ms->raw[2 * i], PV_NONE);
			T_EQ_INT(ms->raw[2 * i + 1], PV_NONE);
			T_EQ_STR(ms->data[i], "{\"type\":\"Jank\"}");
			/* the front end's default category: the first grey one (index 1) */
			T_EQ_INT(ms->category[i], 1);
			k++;
		}
		T_EQ_INT(k, 6);
		/* the Paint instant at 99 sorts before the Jank of that start */
		T_EQ_STR(ms->name[0], "Paint");
		T_EQ_STR(ms->name[1], "Jank");
		/* the front-end Jank schema's labels and description */
		T_EQ_INT(pv_marker_detail(ms, 1, &d), 0);
		T_EQ_STR(d.type, "Jank");
		T_EQ_STR(d.label[PV_LABEL_TOOLTIP], "Jank \xe2\x80\x93 event processing delay");
		T_EQ_STR(d.label[PV_LABEL_TABLE], "Event processing delay");
		T_CONTAINS(d.description, "Jank markers show when the main event loop of a thread");
		pv_marker_detail_release(&d);
		/* --inside-markers Jank: 7 + 8 + 1 samples (ends excluded: 170, 1008, 2001) */
		struct pv_query q;
		struct pv_view *v = NULL;
		struct pv_error err;
		pv_query_init(&q);
		T_EQ_INT(pv_query_set_option(&q, "inside-markers", "Jank", &err), 0);
		if (pv_view_compute(p, &q, &v, &err) == 0)
			T_EQ_U64(v->nr_samples, 16);
		else
			t_fail(__FILE__, __LINE__, "%s", err.msg);
		pv_view_free(v);
		pv_query_release(&q);
		pv_markers_free(ms);
		pv_profile_free(p);
	}
}

/* The corpus files carry eventDelay, all 0 (or null): the column is kept, no Jank comes. */
T_TEST(markers_jank_corpus)
{
	static const char *const files[] = {"firefox/generated-gecko-v36.json",
					    "firefox/generated-processed-v70-from-gecko.json",
					    "firefox/argument-values.json", "firefox/gecko-2.json"};
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct pv_profile *p;
		struct pv_markers *ms = derive_file(t_data(files[f]), &p);
		if (!ms)
			continue;
		T_TRUE(p->samples.event_delay_ns != NULL);
		for (uint32_t i = 0; i < ms->len; i++)
			if (ms->flags[i] & PV_MARKER_SYNTHETIC)
				t_fail(__FILE__, __LINE__, "%s: a Jank at %lld", files[f],
				       (long long)ms->start_ns[i]);
		pv_markers_free(ms);
		pv_profile_free(p);
	}
}

/* ---- incomplete markers in --json ---- */

static char *print_json(const struct pv_markers *ms, uint32_t i, bool one)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	if (one)
		pv_print_marker(f, ms, i, true);
	else
		pv_print_markers(f, ms, &i, 1, true);
	fclose(f);
	return buf;
}

/* An incomplete marker keeps its clamped start and end; its duration is unknown (null). */
T_TEST(markers_incomplete_json)
{
	static const double samples[] = {10, 20};
	static const struct mk m[] = {{"C", S, 17, -1, NULL, 0, NULL},
				      {"B", E, -1, 16, NULL, 0, NULL}};
	struct pv_profile *p = build(m, 2, samples, 2, NULL);
	struct pv_markers *ms = derive(p);
	for (uint32_t i = 0; ms && i < ms->len; i++) {
		char *j = print_json(ms, i, i == 1);
		const char *want = i == 0 ? "\"start\": 10, \"end\": 16, \"duration\": null"
					  : "\"start\": 17, \"end\": 21, \"duration\": null";
		T_CONTAINS(j, want);
		T_CONTAINS(j, "\"incomplete\": true, \"synthetic\": false");
		free(j);
	}
	pv_markers_free(ms);
	pv_profile_free(p);
}

/* ---- formats ---- */

T_TEST(markers_formats_upstream)
{
	/* formatTimestamp rounds to the unit before it splits (formatMinutes rounds to seconds,
	 * formatHours to minutes, formatDays to hours, Math.round) */
	FMT("duration", "59999", "1m"); /* 59.999 s -> 60 s: 1m, no "0m60s" */
	FMT("duration", "59500", "1m"); /* 59.5 s is the first value shown as 1m */
	FMT("duration", "59499", "59.499s");
	FMT("duration", "3599000", "59m59s");
	FMT("duration", "3599500", "1h");  /* 59.99 min -> 60 min */
	FMT("duration", "86370000", "1d"); /* 23.99 h -> 24 h */
	FMT("duration", "90061000", "1d1h");
	/* Intl.NumberFormat rounds the double's shortest digits half away from zero */
	FMT("duration", "1.0005", "1.001ms"); /* "1.0005", not 1.000499999... */
	FMT("seconds", "59.5", "0.060s");     /* 0.0595 s to 3 decimals */
	FMT("milliseconds", "0.0125", "0.013ms");
	FMT("decimal", "1.005", "1.0");	     /* 2 significant digits: 1.0|05 */
	FMT("percentage", "0.0005", "0.1%"); /* 0.05 % to one decimal */
	FMT("integer", "-2.5", "-3");
	/* unique-string and flow-ids hold the string the importer resolved: an empty one shows
	 * empty; a value still a number indexed no string: getString's "(empty)" */
	FMT("unique-string", "\"\"", "");
	FMT("unique-string", "99", "(empty)");
	FMT("flow-id", "\"f67ae7353bf8e9600\"", "f67ae7353bf8e9600");
	FMT("terminating-flow-id", "7", "(empty)");
	FMT("string", "\"\"", "(empty)"); /* String(value) || "(empty)" */
	/*
	 * hexadecimal: formatHexadecimal, '0x' + (value >>> 0).toString(16); every expected value
	 * is what node printed for that expression on the value (upstream's test list first:
	 * 0, 0xff, 0xffffffff, -255)
	 */
	FMT("hexadecimal", "0", "0x0");
	FMT("hexadecimal", "255", "0xff");
	FMT("hexadecimal", "4294967295", "0xffffffff");
	FMT("hexadecimal", "-255", "0xffffff01");
	FMT("hexadecimal", "-1", "0xffffffff");
	FMT("hexadecimal", "4294967296", "0x0"); /* modulo 2^32 */
	FMT("hexadecimal", "4294967301", "0x5");
	FMT("hexadecimal", "18446744073709551615", "0x0"); /* the double 2^64 */
	FMT("hexadecimal", "1e21", "0xdea00000");
	FMT("hexadecimal", "-1e21", "0x21600000");
	FMT("hexadecimal", "9007199254740993", "0x0"); /* the double 2^53 */
	FMT("hexadecimal", "2147483648", "0x80000000");
	FMT("hexadecimal", "-2147483649", "0x7fffffff");
	FMT("hexadecimal", "3.5", "0x3"); /* truncated */
	FMT("hexadecimal", "3.99", "0x3");
	FMT("hexadecimal", "-3.5", "0xfffffffd");
	FMT("hexadecimal", "-0.5", "0x0");
	FMT("hexadecimal", "\"12\"", "0xc"); /* strings as JavaScript's Number() reads them */
	FMT("hexadecimal", "\"0x1f\"", "0x1f");
	FMT("hexadecimal", "\" 7 \"", "0x7");
	FMT("hexadecimal", "\"-8\"", "0xfffffff8");
	FMT("hexadecimal", "\"\"", "0x0");
	FMT("hexadecimal", "\"abc\"", "0x0"); /* NaN */
	FMT("hexadecimal", "\"Infinity\"", "0x0");
	FMT("hexadecimal", "true", "0x1");
	FMT("hexadecimal", "false", "0x0");
	FMT("hexadecimal", "[]", "0x0");
	FMT("hexadecimal", "[5]", "0x5");
	FMT("hexadecimal", "[1,2]", "0x0");
	FMT("hexadecimal", "{}", "0x0");
	FMT("hexadecimal", "null", "(empty)");
}

/* A chart label of a hexadecimal field shows it as the field does: -1 is 0xffffffff. */
T_TEST(markers_hexadecimal_label)
{
	static const struct mk m[] = {
	    {"A", V, 1, 2, "{\"type\":\"H\",\"flags\":-1,\"big\":4294967301}", 0, NULL},
	};
	struct pv_profile *p = build(m, 1, NULL, 0,
				     "[{\"name\":\"H\",\"chartLabel\":\"{marker.data.flags} "
				     "{marker.data.big}\",\"fields\":[{\"key\":\"flags\","
				     "\"format\":\"hexadecimal\"},{\"key\":\"big\",\"format\":"
				     "\"hexadecimal\"}]}]");
	struct pv_markers *ms = derive(p);
	struct pv_marker_detail d = {0};
	if (ms && !pv_marker_detail(ms, 0, &d)) {
		T_EQ_STR(d.label[PV_LABEL_CHART], "0xffffffff 0x5");
		T_EQ_INT(d.nr_fields, 2);
		if (d.nr_fields == 2)
			T_EQ_STR(d.fields[0].value, "0xffffffff");
	}
	pv_marker_detail_release(&d);
	pv_markers_free(ms);
	pv_profile_free(p);
}

/*
 * {marker.duration} is formatTimestamp(marker.end - marker.start) of the two times in ms: from
 * 1.0001 to 1.0005 ms that difference is 0.00039999999999995595, 399.99999999995595 ns, so
 * formatNanoseconds shows 5 significant digits: "400.00ns"; from 0 it is exactly 400: "400ns".
 */
T_TEST(markers_duration_placeholder)
{
	static const struct mk m[] = {
	    {"A", V, 1.0001, 1.0005, "{\"type\":\"D\"}", 0, NULL},
	    {"B", V, 0, 0.0004, "{\"type\":\"D\"}", 0, NULL},
	};
	struct pv_profile *p =
	    build(m, 2, NULL, 0, "[{\"name\":\"D\",\"tableLabel\":\"{marker.duration}\"}]");
	struct pv_markers *ms = derive(p);
	struct pv_marker_detail d = {0};
	if (ms && !pv_marker_detail(ms, 1, &d))
		T_EQ_STR(d.label[PV_LABEL_TABLE], "400.00ns");
	if (ms && !pv_marker_detail(ms, 0, &d))
		T_EQ_STR(d.label[PV_LABEL_TABLE], "400ns");
	pv_marker_detail_release(&d);
	pv_markers_free(ms);
	pv_profile_free(p);
}

/*
 * pid and tid as the front end resolves them. Labels are formatted without the maps: "PID:
 * 2222". The tooltip's fields use them: a tid (a number) names the last thread of that tid by
 * its friendly name; a pid, a string as processed pids are, the last main (GeckoMain) thread of
 * that process. In generated-gecko-v36.json thread 0 is the parent process's GeckoMain (tid
 * 3333), thread 1 its Compositor (3334), thread 2 the content process's GeckoMain (pid 2222,
 * tid 1111): getFriendlyThreadName gives "Parent Process", "Compositor", "Content Process".
 */
T_TEST(markers_pid_tid_friendly_names)
{
	struct pv_profile *p;
	struct pv_markers *ms = derive_file(t_data("firefox/generated-gecko-v36.json"), &p);
	if (!ms)
		return;
	T_EQ_STR(ms->friendly[0], "Parent Process");
	T_EQ_STR(ms->friendly[1], "Compositor");
	T_EQ_STR(ms->friendly[2], "Content Process");
	static const struct {
		const char *format, *value, *want;
	} cases[] = {
	    {"\"tid\"", "1111", "Content Process (1111)"},
	    {"\"tid\"", "3334", "Compositor (3334)"},
	    {"\"tid\"", "\"1111\"", "TID: 1111"}, /* a tid map has number keys */
	    {"\"tid\"", "42", "TID: 42"},
	    {"\"pid\"", "\"2222\"", "Content Process (2222)"},
	    {"\"pid\"", "\"3333\"", "Parent Process (3333)"},
	    {"\"pid\"", "2222", "PID: 2222"}, /* processed pids are strings */
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct sbuf t = {0};
		pv_marker_format(ms, cases[k].format, strlen(cases[k].format), cases[k].value,
				 strlen(cases[k].value), &t);
		if (strcmp(sbuf_str(&t), cases[k].want) != 0)
			t_fail(__FILE__, __LINE__, "%s of %s: \"%s\", expected \"%s\"",
			       cases[k].format, cases[k].value, sbuf_str(&t), cases[k].want);
		sbuf_release(&t);
	}
	pv_markers_free(ms);
	pv_profile_free(p);

	/* homonyms are numbered; labels do not resolve; fields do */
	static const struct th threads[] = {{"GeckoMain", "tab", 2000, 2000},
					    {"GeckoMain", "tab", 2001, 2001},
					    {"GeckoMain", "default", 1, 1},
					    {NULL, NULL, 0, 0}};
	static const struct mk m[] = {
	    {"P", I, 1, -1, "{\"type\":\"Pid\",\"pid\":\"2000\"}", 0, NULL}};
	p = build_threads(
	    m, 1, NULL, 0,
	    "[{\"name\":\"Pid\",\"tableLabel\":\"{marker.data.pid}\","
	    "\"fields\":[{\"key\":\"pid\",\"label\":\"Process\",\"format\":\"pid\"}]}]",
	    threads);
	ms = derive(p);
	struct pv_marker_detail d = {0};
	if (ms && !pv_marker_detail(ms, 0, &d)) {
		T_EQ_STR(ms->friendly[0], "Content Process (1/2)");
		T_EQ_STR(ms->friendly[1], "Content Process (2/2)");
		T_EQ_STR(ms->friendly[2], "Parent Process");
		T_EQ_STR(d.label[PV_LABEL_TABLE], "PID: 2000");
		T_EQ_INT(d.nr_fields, 1);
		if (d.nr_fields == 1)
			T_EQ_STR(d.fields[0].value, "Content Process (1/2) (2000)");
	}
	pv_marker_detail_release(&d);
	pv_markers_free(ms);
	pv_profile_free(p);
}

/* ---- labels ---- */

/*
 * IPC: the front end's tooltip label "IPC —\u00a0{marker.data.niceDirection}" (a no-break space
 * after the dash), its table label with an ordinary space; the tooltip's head is
 * formatTimestamp(1001, 3, 1): "1.0s". The thread names are friendly names.
 */
T_TEST(markers_ipc_labels)
{
	struct pv_profile *p;
	struct pv_markers *ms = derive_file(t_data("firefox/generated-gecko-v36.json"), &p);
	if (!ms)
		return;
	uint32_t i = find(ms, 0, "IPCOut", 30);
	struct pv_marker_detail d = {0};
	struct sbuf t = {0};
	if (i != UINT32_MAX && !pv_marker_detail(ms, i, &d)) {
		T_EQ_STR(d.label[PV_LABEL_TOOLTIP],
			 "IPC \xe2\x80\x94\xc2\xa0sent to Content Process (Thread ID: 1111)");
		T_EQ_STR(d.label[PV_LABEL_TABLE],
			 "PContent::Msg_PreferenceUpdate \xe2\x80\x94 sent to Content Process "
			 "(Thread ID: 1111)");
		pv_marker_duration_text(ms, i, &t);
		T_EQ_STR(sbuf_str(&t), "1.0s");
	}
	i = find(ms, 2, "IPCIn", 30);
	if (i != UINT32_MAX && !pv_marker_detail(ms, i, &d))
		T_EQ_STR(d.label[PV_LABEL_TOOLTIP],
			 "IPC \xe2\x80\x94\xc2\xa0received from Parent Process (Thread ID: 3333)");
	i = find(ms, 0, "IPCOut", 40); /* incomplete */
	sbuf_reset(&t);
	if (i != UINT32_MAX)
		pv_marker_duration_text(ms, i, &t);
	T_EQ_STR(sbuf_str(&t), "unknown duration");
	sbuf_release(&t);
	pv_marker_detail_release(&d);
	pv_markers_free(ms);
	pv_profile_free(p);
}

/*
 * The table's FileIO fallback: "(source) " + operation, then " — filename" when the operation is
 * not empty, else the filename alone; a missing operation prints as JavaScript's undefined.
 */
T_TEST(markers_fileio_labels)
{
	static const struct mk m[] = {
	    {"F1", I, 1, -1,
	     "{\"type\":\"FileIO\",\"source\":\"s\",\"operation\":\"\","
	     "\"filename\":\"/f\"}",
	     0, NULL},
	    {"F2", I, 2, -1, "{\"type\":\"FileIO\",\"source\":\"s\",\"operation\":\"\"}", 0, NULL},
	    {"F3", I, 3, -1, "{\"type\":\"FileIO\",\"source\":\"s\"}", 0, NULL},
	    {"F4", I, 4, -1, "{\"type\":\"FileIO\",\"operation\":\"read\",\"filename\":\"/f\"}", 0,
	     NULL},
	    {"F5", I, 5, -1, "{\"type\":\"FileIO\",\"filename\":\"/f\"}", 0, NULL},
	    {"F6", I, 6, -1, "{\"type\":\"FileIO\",\"operation\":null}", 0, NULL},
	};
	static const char *const want[] = {"/f", "(s) ", "(s) undefined", "read \xe2\x80\x94 /f",
					   "/f", "null"};
	struct pv_profile *p = build(m, 6, NULL, 0, NULL);
	struct pv_markers *ms = derive(p);
	struct pv_marker_detail d = {0};
	for (uint32_t i = 0; ms && i < ms->len; i++)
		if (!pv_marker_detail(ms, i, &d) && strcmp(d.label[PV_LABEL_TABLE], want[i]) != 0)
			t_fail(__FILE__, __LINE__, "%s: \"%s\", expected \"%s\"", ms->name[i],
			       d.label[PV_LABEL_TABLE], want[i]);
	pv_marker_detail_release(&d);
	pv_markers_free(ms);
	pv_profile_free(p);
}

/* ---- search ---- */

/*
 * Search tests each schema field's raw value, String(value), as markerPayloadMatchesSearch
 * does, besides the formatted one profview tests too: 1234567 finds a bytes field shown
 * "1.23MB", "count:1234" an integer shown "1,234"; a string index that stayed a number is
 * skipped, and so are empty values.
 */
T_TEST(markers_search_raw_values)
{
	static const struct mk m[] = {
	    {"Big", I, 1, -1, "{\"type\":\"S\",\"size\":1234567,\"count\":1234,\"u\":77}", 0, NULL},
	    {"Small", I, 2, -1, "{\"type\":\"S\",\"size\":20,\"count\":5,\"u\":\"\"}", 0, NULL},
	};
	struct pv_profile *p =
	    build(m, 2, NULL, 0,
		  "[{\"name\":\"S\",\"fields\":[{\"key\":\"size\",\"format\":\"bytes\"},"
		  "{\"key\":\"count\",\"format\":\"integer\"},{\"key\":\"u\",\"format\":\"unique-"
		  "string\"}]}]");
	struct pv_markers *ms = derive(p);
	if (ms) {
		search_is(ms, "1234567", "Big", __LINE__); /* raw */
		search_is(ms, "1.23mb", "Big", __LINE__);  /* formatted */
		search_is(ms, "count:1234", "Big", __LINE__);
		search_is(ms, "count:1,234", "Big", __LINE__);
		search_is(ms, "-count:1234", "Small", __LINE__);
		search_is(ms, "u:77", "", __LINE__); /* an index that named no string */
		search_is(ms, "20", "Small", __LINE__);
	}
	pv_markers_free(ms);
	pv_profile_free(p);
}

/*
 * Tests of the Firefox processed-format importer (src/import/firefox/firefox_processed.c).
 *
 * Figures for the real files come from tests/data/corpus/firefox/README.md and were checked with an
 * independent script (Python's json module over the same file: walking prefix / prefixOffset
 * to function-name paths, summing the weight column, counting marker phases, with cumulative
 * timeDeltas and cpu deltas summed in decimal). Small documents written here cover the version
 * differences and every error path, each with its exact message.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pv/import.h"
#include "pv/view.h"
#include "t.h"
#include "tp.h"
#include "view/calltree.h"

#define MS(x) ((int64_t)(x)*1000000)

static uint32_t nr_samples(const struct pv_profile *p, pv_thread_ix t)
{
	return p->threads.sample_end[t] - p->threads.sample_begin[t];
}

static int64_t thread_weight(const struct pv_profile *p, pv_thread_ix t, pv_metric_ix m)
{
	int64_t sum = 0;
	for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t]; s++)
		sum += pv_sample_weight(p, m, s);
	return sum;
}

/* Raw markers of thread t (PV_NONE = all) in phase ph (-1 = any). */
static uint32_t count_markers(const struct pv_profile *p, pv_thread_ix t, int ph)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < p->markers.len; i++)
		n += (t == PV_NONE || p->markers.thread[i] == t) &&
		     (ph < 0 || p->markers.phase[i] == ph);
	return n;
}

static uint64_t lossy_count(const struct pv_profile *p, const char *msg)
{
	for (uint32_t i = 0; i < p->diags.len; i++)
		if (strcmp(pv_str(p, p->diags.msg[i]), msg) == 0)
			return p->diags.count[i];
	return 0;
}

/* The call node at a path of function names "A>B>C", PV_NONE when absent. */
static uint32_t node_at(const struct pv_profile *p, const struct pv_calltree *t, const char *path)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", path);
	const uint32_t *cand = t->roots;
	uint32_t n = t->nr_roots, node = PV_NONE;
	for (char *tok = strtok(buf, ">"); tok; tok = strtok(NULL, ">")) {
		uint32_t found = PV_NONE;
		for (uint32_t i = 0; i < n && found == PV_NONE; i++)
			if (strcmp(pv_str(p, p->funcs.name[t->func[cand[i]]]), tok) == 0)
				found = cand[i];
		if (found == PV_NONE)
			return PV_NONE;
		node = found;
		cand = t->children + t->child_first[node];
		n = t->child_len[node];
	}
	return node;
}

static void check_node(const struct pv_profile *p, const struct pv_calltree *t, const char *path,
		       int64_t total, int64_t self, int line)
{
	uint32_t n = node_at(p, t, path);
	if (n == PV_NONE) {
		t_fail(__FILE__, line, "no call node %s", path);
		return;
	}
	if (t->total[n] != total || t->self[n] != self)
		t_fail(__FILE__, line, "%s: total %lld self %lld, expected %lld %lld", path,
		       (long long)t->total[n], (long long)t->self[n], (long long)total,
		       (long long)self);
}
#define CHECK_NODE(p, t, path, total, self) check_node(p, t, path, total, self, __LINE__)

/* Self and total of the function(s) named name in the function list (summed over modules). */
static void top_of(const struct pv_profile *p, const struct pv_top *t, const char *name,
		   int64_t *self, int64_t *total)
{
	*self = *total = 0;
	for (uint32_t i = 0; i < t->len; i++) {
		if (strcmp(pv_str(p, p->funcs.name[t->func[i]]), name) == 0) {
			*self += t->self[i];
			*total += t->total[i];
		}
	}
}

/* ---- real files ---- */

T_TEST(firefox_processed_calltree_v70)
{
	struct pv_profile *p =
	    t_load_as(t_data("firefox/generated-processed-v70-calltree.json"), "firefox-processed");
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.format_version), "70 (gecko 36)");
	T_EQ_STR(pv_str(p, p->meta.product), "Firefox");
	T_EQ_INT(p->meta.interval_ns, MS(1));
	T_EQ_INT(p->threads.len, 1);
	T_EQ_STR(pv_str(p, p->threads.name[0]), "Empty");
	T_EQ_INT(nr_samples(p, 0), 5);
	T_EQ_INT(p->metrics.len, 1);
	T_EQ_STR(pv_str(p, p->metrics.name[0]), "samples");
	T_EQ_INT(p->samples.weight[0] == NULL, 1);
	T_EQ_INT(pv_sample_time(p, 0), 0);
	T_EQ_INT(pv_sample_time(p, 4), MS(4));
	T_EQ_INT(p->markers.len, 0);
	T_EQ_INT(p->categories.len, 8);
	T_EQ_INT(p->funcs.len, 9);
	T_EQ_INT(p->stacks.len, 16);
	/* the 18 marker schemas are kept whole, not reported lost */
	T_EQ_U64(lossy_count(p, "marker schemas not kept"), 0);
	T_TRUE(strncmp(pv_str(p, p->meta.marker_schema), "[{\"name\":\"GCMajor\",", 19) == 0);

	/* the five sample stacks, as the README lists them */
	char buf[256];
	static const char *const want[] = {"A>B>C>D>E", "A>B>C>F>G", "A>B>H>F", "A>B>C>B>B>D",
					   "A>X>B>C>D"};
	for (uint32_t s = 0; s < 5; s++) {
		t_stack_path(p, p->samples.stack[s], ">", buf, sizeof(buf));
		T_EQ_STR(buf, want[s]);
	}

	/* every call node (reference: function paths summed in Python) */
	struct pv_view_opts o = {.metric = PV_NONE};
	struct pv_calltree *t = NULL;
	struct pv_error err;
	T_EQ_INT(pv_calltree_build(p, &o, &t, &err), 0);
	if (t) {
		T_EQ_INT(t->total_cost, 5);
		T_EQ_INT(t->nr_roots, 1);
		T_EQ_INT(t->len, 16);
		CHECK_NODE(p, t, "A", 5, 0);
		CHECK_NODE(p, t, "A>B", 4, 0);
		CHECK_NODE(p, t, "A>B>C", 3, 0);
		CHECK_NODE(p, t, "A>B>C>B", 1, 0);
		CHECK_NODE(p, t, "A>B>C>B>B", 1, 0);
		CHECK_NODE(p, t, "A>B>C>B>B>D", 1, 1);
		CHECK_NODE(p, t, "A>B>C>D", 1, 0);
		CHECK_NODE(p, t, "A>B>C>D>E", 1, 1);
		CHECK_NODE(p, t, "A>B>C>F", 1, 0);
		CHECK_NODE(p, t, "A>B>C>F>G", 1, 1);
		CHECK_NODE(p, t, "A>B>H", 1, 0);
		CHECK_NODE(p, t, "A>B>H>F", 1, 1);
		CHECK_NODE(p, t, "A>X", 1, 0);
		CHECK_NODE(p, t, "A>X>B", 1, 0);
		CHECK_NODE(p, t, "A>X>B>C", 1, 0);
		CHECK_NODE(p, t, "A>X>B>C>D", 1, 1);
		/* children sorted by total: B (4) before X (1) */
		uint32_t a = node_at(p, t, "A");
		if (a != PV_NONE && t->child_len[a] == 2)
			T_EQ_STR(pv_str(p, p->funcs.name[t->func[t->children[t->child_first[a]]]]),
				 "B");
	}
	pv_calltree_free(t);

	/* the function list: recursion counts a sample once */
	struct pv_top *top = NULL;
	T_EQ_INT(pv_top_build(p, &o, PV_TOP_BY_SELF, &top, &err), 0);
	if (top) {
		static const struct {
			const char *name;
			int64_t self, total;
		} f[] = {{"D", 2, 3}, {"F", 1, 2}, {"E", 1, 1}, {"G", 1, 1}, {"A", 0, 5},
			 {"B", 0, 5}, {"C", 0, 4}, {"H", 0, 1}, {"X", 0, 1}};
		T_EQ_INT(top->len, 9);
		for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
			int64_t self, total;
			top_of(p, top, f[i].name, &self, &total);
			T_EQ_INT(self, f[i].self);
			T_EQ_INT(total, f[i].total);
		}
		T_EQ_STR(pv_str(p, p->funcs.name[top->func[0]]), "D");
	}
	pv_top_free(top);
	pv_profile_free(p);
}

T_TEST(firefox_processed_from_gecko_v70)
{
	struct pv_profile *p = t_load_as(t_data("firefox/generated-processed-v70-from-gecko.json"),
					 "firefox-processed");
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.format_version), "70 (gecko 36)");
	/* meta.startTime 1460221352723.438 ms */
	T_EQ_INT(p->meta.start_unix_ns, 1460221352723438000LL);
	T_EQ_INT(p->threads.len, 3);
	static const char *const names[] = {"GeckoMain", "Compositor", "GeckoMain"};
	static const int64_t pid[] = {3333, 3333, 2222}, tid[] = {3333, 3334, 1111};
	static const int64_t reg[] = {0, 0, 1000}, unreg[] = {100, 100, 1100};
	static const uint32_t markers[] = {27, 23, 25};
	for (uint32_t t = 0; t < 3; t++) {
		T_EQ_STR(pv_str(p, p->threads.name[t]), names[t]);
		T_EQ_INT(p->threads.pid[t], pid[t]);
		T_EQ_INT(p->threads.tid[t], tid[t]);
		T_EQ_INT(p->threads.start_ns[t], MS(reg[t]));
		T_EQ_INT(p->threads.end_ns[t], MS(unreg[t]));
		T_EQ_INT(nr_samples(p, t), 7);
		/* timeDeltas [reg, 1, 1, 1, 1, 1, 1] */
		T_EQ_INT(pv_sample_time(p, p->threads.sample_begin[t]), MS(reg[t]));
		T_EQ_INT(pv_sample_time(p, p->threads.sample_end[t] - 1), MS(reg[t] + 6));
		T_EQ_INT(count_markers(p, t, -1), markers[t]);
	}
	T_EQ_INT(p->samples.len, 21);
	/* metrics: samples (default), then threadCPUDelta in ns, first value of each thread 0 */
	T_EQ_INT(p->metrics.len, 2);
	T_EQ_INT(p->meta.default_metric, 0);
	T_EQ_STR(pv_str(p, p->metrics.name[1]), "cpu-delta");
	T_EQ_INT(p->metrics.unit[1], PV_UNIT_NS);
	for (uint32_t t = 0; t < 3; t++)
		T_EQ_INT(thread_weight(p, t, 1), 21); /* [2, 1, 3, 6, 7, 3, 1] without the first */
	T_EQ_INT(pv_sample_weight(p, 1, 0), 0);
	T_EQ_INT(pv_sample_weight(p, 1, 1), 1);

	/* README phases 0:15 1:24 2:18 3:18 */
	T_EQ_INT(p->markers.len, 75);
	T_EQ_INT(count_markers(p, PV_NONE, PV_PHASE_INSTANT), 15);
	T_EQ_INT(count_markers(p, PV_NONE, PV_PHASE_INTERVAL), 24);
	T_EQ_INT(count_markers(p, PV_NONE, PV_PHASE_START), 18);
	T_EQ_INT(count_markers(p, PV_NONE, PV_PHASE_END), 18);
	/* 4 payloads a thread hold a cause {time: 1 (1001 in the tab process), stack: 4 or 12} */
	uint32_t causes = 0;
	for (uint32_t i = 0; i < p->markers.len; i++) {
		if (p->markers.cause_stack[i] == PV_NONE) {
			T_EQ_INT(p->markers.cause_time_ns[i], PV_TIME_NONE);
			continue;
		}
		causes++;
		T_EQ_INT(p->markers.cause_time_ns[i], MS(p->markers.thread[i] == 2 ? 1001 : 1));
		/* the cause became the columns: the payload keeps the rest */
		T_TRUE(!strstr(pv_str(p, p->markers.payload[i]), "cause"));
	}
	T_EQ_INT(causes, 12);
	T_EQ_U64(lossy_count(p, "marker cause thread ids (tid of a marker's stack)"), 12);
	/* marker 2 of thread 0: Reflow start at 3 ms, its cause = shared stack 4 =
	 * (root)>0x100000f84>0x100001a45 */
	T_EQ_STR(pv_str(p, p->markers.name[2]), "Reflow");
	T_EQ_INT(p->markers.phase[2], PV_PHASE_START);
	T_EQ_INT(p->markers.start_ns[2], MS(3));
	T_EQ_INT(p->markers.end_ns[2], PV_TIME_NONE);
	char buf[256];
	t_stack_path(p, p->markers.cause_stack[2], ">", buf, sizeof(buf));
	T_EQ_STR(buf, "(root)>0x100000f84>0x100001a45");
	T_EQ_STR(pv_str(p, p->markers.payload[2]), "{\"category\":\"Paint\",\"type\":\"tracing\"}");
	/* marker 0: a Rasterize end at 1 ms keeps only its end */
	T_EQ_INT(p->markers.phase[0], PV_PHASE_END);
	T_EQ_INT(p->markers.start_ns[0], PV_TIME_NONE);
	T_EQ_INT(p->markers.end_ns[0], MS(1));

	/* modules: 4 resources; 2 libraries get their lib's path through frameTable.lib (v70) */
	T_EQ_INT(p->modules.len, 4);
	uint32_t libs = 0;
	for (uint32_t m = 0; m < p->modules.len; m++) {
		const char *name = pv_str(p, p->modules.name[m]);
		if (strcmp(name, "firefox") == 0) {
			T_EQ_STR(pv_str(p, p->modules.path[m]),
				 "/Applications/FirefoxNightly.app/Contents/MacOS/firefox");
			T_EQ_INT(p->modules.kind[m], PV_MODULE_LIBRARY);
			libs++;
		} else if (strcmp(name, "firefox-webcontent") == 0) {
			T_EQ_INT(p->modules.kind[m], PV_MODULE_LIBRARY);
			libs++;
		} else if (strcmp(name, "chrome://blargh") == 0) {
			T_EQ_INT(p->modules.kind[m], PV_MODULE_RESOURCE);
		}
	}
	T_EQ_INT(libs, 2);
	/* the JS function: source chrome://blargh line 34; its frame line 34, no address */
	pv_func_ix f = t_find_func(p, "frobnicate");
	T_TRUE(f != PV_NONE);
	if (f != PV_NONE) {
		T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, f)]), "chrome://blargh");
		T_EQ_INT(pv_func_line(p, f), 34);
	}
	/* function totals over all threads (reference: same-named functions summed) */
	struct pv_view_opts o = {.metric = PV_NONE};
	struct pv_top *top = NULL;
	struct pv_error err;
	T_EQ_INT(pv_top_build(p, &o, PV_TOP_BY_SELF, &top, &err), 0);
	if (top) {
		int64_t self, total;
		top_of(p, top, "0x100000f84", &self, &total);
		T_EQ_INT(self, 6);
		T_EQ_INT(total, 18);
		top_of(p, top, "(root)", &self, &total);
		T_EQ_INT(self, 3);
		T_EQ_INT(total, 21);
		top_of(p, top, "0x100001a45", &self, &total);
		T_EQ_INT(self, 6);
		top_of(p, top, "frobnicate", &self, &total);
		T_EQ_INT(self, 3);
	}
	pv_top_free(top);
	T_EQ_U64(lossy_count(p, "counters not kept"), 1);
	T_EQ_U64(lossy_count(p, "profilerOverhead not kept"), 1);
	T_EQ_U64(lossy_count(p, "pages not kept"), 3);
	pv_profile_free(p);
}

T_TEST(firefox_processed_argument_values_v58)
{
	/* v58: per-thread tables with prefix, shared stringArray and sources */
	struct pv_profile *p =
	    t_load_as(t_data("firefox/argument-values.json"), "firefox-processed");
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.format_version), "58 (gecko 32)");
	T_EQ_INT(p->threads.len, 1);
	T_EQ_STR(pv_str(p, p->threads.name[0]), "GeckoMain");
	T_EQ_STR(pv_str(p, p->threads.process_name[0]), "file:// Content");
	T_EQ_INT(p->threads.pid[0], 39156);
	T_EQ_INT(p->threads.tid[0], 2503164);
	T_EQ_INT(p->threads.start_ns[0], 5605748109LL); /* registerTime 5605.748109375 ms */
	T_EQ_INT(p->threads.end_ns[0], PV_TIME_NONE);
	T_EQ_INT(nr_samples(p, 0), 32);
	T_EQ_INT(pv_sample_time(p, 0), 324347532151LL); /* 324347.532151375 ms */
	T_EQ_INT(p->metrics.len, 1);			/* no threadCPUDelta column */
	T_EQ_INT(p->categories.len, 25);
	/* README: 13 raw markers, phases 0:2 1:6 2:2 3:3 */
	T_EQ_INT(p->markers.len, 13);
	T_EQ_INT(count_markers(p, 0, PV_PHASE_INSTANT), 2);
	T_EQ_INT(count_markers(p, 0, PV_PHASE_INTERVAL), 6);
	T_EQ_INT(count_markers(p, 0, PV_PHASE_START), 2);
	T_EQ_INT(count_markers(p, 0, PV_PHASE_END), 3);
	/* the junk in unused slots (5584.52 ms) is not kept */
	T_EQ_INT(p->markers.phase[0], PV_PHASE_START);
	T_EQ_INT(p->markers.start_ns[0], 324347219609LL);
	T_EQ_INT(p->markers.end_ns[0], PV_TIME_NONE);
	T_EQ_INT(p->markers.phase[8], PV_PHASE_END);
	T_EQ_INT(p->markers.start_ns[8], PV_TIME_NONE);
	T_EQ_INT(p->markers.end_ns[8], 324384271151LL);
	/* the null-payload marker */
	T_EQ_INT(p->markers.payload[12], 0);
	/* three causes, into the thread's own stack table */
	uint32_t causes = 0;
	for (uint32_t i = 0; i < p->markers.len; i++)
		causes += p->markers.cause_stack[i] != PV_NONE;
	T_EQ_INT(causes, 3);
	T_EQ_INT(p->markers.cause_time_ns[4], 324383877234LL); /* 324383.877234375 ms */
	/* funcs through shared.sources */
	pv_func_ix f = t_find_func(p, "foo");
	T_TRUE(f != PV_NONE);
	if (f != PV_NONE) {
		T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, f)]), "file://<URL>");
		T_EQ_INT(pv_func_line(p, f), 19);
		T_EQ_STR(pv_str(p, p->modules.name[pv_func_module(p, f)]), "file://<URL>");
		T_EQ_INT(p->modules.kind[pv_func_module(p, f)], PV_MODULE_RESOURCE);
	}
	/* resourceTable.lib (v69 and older): XUL with the lib's path */
	uint32_t xul = 0;
	for (uint32_t m = 0; m < p->modules.len; m++)
		if (strcmp(pv_str(p, p->modules.name[m]), "XUL") == 0) {
			T_EQ_STR(pv_str(p, p->modules.path[m]),
				 "/Users/alexical/mozilla-unified/obj-opt/dist/Nightly.app/"
				 "Contents/MacOS/XUL");
			xul++;
		}
	T_EQ_INT(xul, 1);
	/* the top of the function list (reference: Python over the file) */
	struct pv_view_opts o = {.metric = PV_NONE};
	struct pv_top *top = NULL;
	struct pv_error err;
	T_EQ_INT(pv_top_build(p, &o, PV_TOP_BY_SELF, &top, &err), 0);
	if (top) {
		int64_t self, total;
		top_of(p, top, "(root)", &self, &total);
		T_EQ_INT(self, 14);
		T_EQ_INT(total, 32);
		top_of(p, top, "mousedown", &self, &total);
		T_EQ_INT(self, 2);
		T_EQ_INT(total, 5);
		top_of(p, top, "foo", &self, &total);
		T_EQ_INT(self, 2);
		T_EQ_INT(total, 3);
	}
	pv_top_free(top);
	T_EQ_U64(lossy_count(p, "samples.argumentValues not kept"), 2);
	T_EQ_U64(lossy_count(p, "marker schemas not kept"), 0);
	T_TRUE(strncmp(pv_str(p, p->meta.marker_schema), "[{\"name\":\"Awake\",", 17) == 0);
	T_EQ_U64(lossy_count(p, "threads[].pausedRanges not kept"), 1);
	T_EQ_U64(lossy_count(p, "nativeSymbols not kept"), 3);
	pv_profile_free(p);
}

T_TEST(firefox_processed_unsymbolicated_v49)
{
	/* v49 (samply): per-thread stringArray and tables, weights, threadCPUDelta in µs */
	struct pv_profile *p =
	    t_load_as(t_data("firefox/unsymbolicated.json"), "firefox-processed");
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.format_version), "49 (gecko 24)");
	T_EQ_STR(pv_str(p, p->meta.product), "a.out");
	T_EQ_INT(p->threads.len, 6);
	static const uint32_t rows[] = {11, 2, 4, 6, 9, 10};
	static const int64_t weight[] = {60, 12, 22, 35, 47, 60};
	static const int64_t cpu_us[] = {66, 0, 5, 8, 37, 19}; /* without each first value */
	for (uint32_t t = 0; t < 6; t++) {
		T_EQ_INT(nr_samples(p, t), rows[t]);
		T_EQ_INT(thread_weight(p, t, 0), weight[t]);
		T_EQ_INT(thread_weight(p, t, 1), cpu_us[t] * 1000);
		T_EQ_STR(pv_str(p, p->threads.process_name[t]), "a.out");
		T_EQ_INT(p->threads.pid[t], 56127);
	}
	T_EQ_STR(pv_str(p, p->threads.name[0]), "a.out");
	T_EQ_STR(pv_str(p, p->threads.name[5]), "Thread <6274165>");
	T_EQ_INT(p->threads.tid[5], 6274165);
	T_EQ_INT(p->threads.start_ns[0], 237805292);
	T_EQ_INT(p->threads.end_ns[0], 300814417);
	T_EQ_INT(p->samples.len, 42);
	T_EQ_STR(pv_str(p, p->metrics.name[0]), "samples");
	T_EQ_STR(pv_str(p, p->metrics.name[1]), "cpu-delta");
	T_EQ_INT(p->metrics.unit[1], PV_UNIT_NS);
	T_EQ_INT(p->markers.len, 0);
	/* six libs as modules, with paths */
	T_EQ_INT(p->modules.len, 6);
	T_EQ_STR(pv_str(p, p->modules.name[0]), "dyld");
	T_EQ_STR(pv_str(p, p->modules.path[0]), "/usr/lib/dyld");
	T_EQ_INT(p->modules.kind[0], PV_MODULE_LIBRARY);
	/* per-thread tables merged: 15 distinct functions and frames */
	T_EQ_INT(p->funcs.len, 15);
	T_EQ_INT(p->frames.len, 15);
	/* the root frame of thread 0: 0x6153 in dyld at lib-relative address 24915 */
	pv_func_ix f = t_find_func(p, "0x6153");
	T_TRUE(f != PV_NONE);
	for (uint32_t i = 0; i < p->frames.len; i++)
		if (p->frames.func[i] == f)
			T_EQ_U64(pv_frame_addr(p, i), 24915);
	/* stackTable category columns agree with the frames: nothing to report */
	T_EQ_INT(p->diags.len, 1);
	T_EQ_U64(lossy_count(p, "libs: arch, debug names, breakpad and code ids not kept"), 6);
	struct pv_view_opts o = {.metric = PV_NONE};
	struct pv_top *top = NULL;
	struct pv_error err;
	T_EQ_INT(pv_top_build(p, &o, PV_TOP_BY_SELF, &top, &err), 0);
	if (top) {
		T_EQ_INT(top->total_cost, 236);
		T_EQ_STR(pv_str(p, p->funcs.name[top->func[0]]), "0x43e8");
		T_EQ_INT(top->self[0], 175);
		T_EQ_INT(top->total[0], 175);
		int64_t self, total;
		top_of(p, top, "0x2bac", &self, &total);
		T_EQ_INT(self, 60);
		top_of(p, top, "0x3d67", &self, &total);
		T_EQ_INT(total, 115);
	}
	pv_top_free(top);
	pv_profile_free(p);
}

T_TEST(firefox_processed_other_corpus_files)
{
	struct pv_profile *p =
	    t_load_as(t_corpus("firefox/sourcemap-two.json"), "firefox-processed");
	if (p) {
		/* v68: prefixOffset, resourceTable.lib; two threads, one sample each */
		T_EQ_INT(p->threads.len, 2);
		T_EQ_INT(nr_samples(p, 0), 1);
		T_EQ_INT(nr_samples(p, 1), 1);
		T_EQ_INT(p->threads.tid[1], 1);
		T_EQ_INT(p->funcs.len, 2); /* "Ajs" in bundle-a.js and in bundle-b.js */
		T_EQ_STR(pv_str(p, p->funcs.name[0]), "Ajs");
		T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, 0)]), "bundle-a.js");
		T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, 1)]), "bundle-b.js");
		T_EQ_U64(lossy_count(p, "sources.sourceMapURL not kept"), 2);
		pv_profile_free(p);
	}
	p = t_load_as(t_corpus("firefox/generated-processed-v70-marker-table.json"),
		      "firefox-processed");
	if (p) {
		T_EQ_INT(p->threads.len, 1);
		T_EQ_INT(p->samples.len, 0);
		T_EQ_INT(p->markers.len, 7);
		T_EQ_INT(count_markers(p, 0, PV_PHASE_INSTANT), 2);
		T_EQ_INT(count_markers(p, 0, PV_PHASE_INTERVAL), 5);
		pv_profile_free(p);
	}
	p = t_load_as(t_corpus("firefox/generated-processed-v70-network.json"),
		      "firefox-processed");
	if (p) {
		T_EQ_INT(p->markers.len, 26);
		T_EQ_INT(count_markers(p, 0, PV_PHASE_INSTANT), 3);
		T_EQ_INT(count_markers(p, 0, PV_PHASE_INTERVAL), 23);
		T_EQ_STR(pv_str(p, p->metrics.name[p->meta.default_metric]), "samples");
		pv_profile_free(p);
	}
}

/* ---- small documents: versions and key orders ---- */

/* v70, with every column kind; BASE_META first, as the front-end writes it */
#define BASE_META                                                                           \
	"\"meta\":{\"preprocessedProfileVersion\":70,\"version\":36,\"startTime\":1000.5,"  \
	"\"interval\":0.5,\"product\":\"T\",\"categories\":[{\"name\":\"Other\",\"color\":" \
	"\"grey\",\"subcategories\":[\"Other\"]},{\"name\":\"JS\",\"color\":\"yellow\","    \
	"\"subcategories\":[\"Other\",\"Baseline\"]}],\"sampleUnits\":{\"time\":\"ms\","    \
	"\"threadCPUDelta\":\"variable CPU cycles\"}}"
#define BASE_LIBS                                                    \
	"\"libs\":[{\"name\":\"libc.so\",\"path\":\"/lib/libc.so\"," \
	"\"breakpadId\":\"X\"}]"
#define BASE_STRINGS "\"stringArray\":[\"main\",\"work\",\"libc.so\",\"leaf\",\"Mark\",\"a.c\"]"
#define BASE_TABLES                                                                       \
	"\"stackTable\":{\"frame\":[0,1,2],\"prefixOffset\":[0,1,1],\"length\":3},"       \
	"\"frameTable\":{\"func\":[0,1,2],\"address\":[-1,16,32],\"lib\":[-1,0,0],"       \
	"\"category\":[0,1,null],\"subcategory\":[0,1,null],\"inlineDepth\":[0,0,1],"     \
	"\"line\":[10,null,null],\"column\":[3,null,null],\"length\":3},"                 \
	"\"funcTable\":{\"name\":[0,1,3],\"resource\":[-1,0,0],\"source\":[0,null,null]," \
	"\"lineNumber\":[9,null,null],\"length\":3},"                                     \
	"\"resourceTable\":{\"name\":[2],\"type\":[1],\"length\":1},"                     \
	"\"sources\":{\"filename\":[5],\"length\":1}"
#define BASE_THREADS                                                                         \
	"\"threads\":[{\"name\":\"Main\",\"pid\":\"42\",\"tid\":43,\"processName\":\"app\"," \
	"\"registerTime\":0,\"unregisterTime\":null,\"samples\":{\"stack\":[2,1,null,2],"    \
	"\"timeDeltas\":[1,0.5,0.25,1],\"weight\":null,\"weightType\":\"samples\","          \
	"\"threadCPUDelta\":[99,10,20,30],\"length\":4},\"markers\":{\"name\":[4,4],"        \
	"\"startTime\":[1,2],\"endTime\":[7,3],\"phase\":[0,1],\"category\":[1,0],"          \
	"\"data\":[null,{\"type\":\"X\",\"cause\":{\"stack\":1,\"time\":0.5}}],\"length\":2}}]"

static const char base_doc[] =
    "{" BASE_META "," BASE_LIBS ",\"shared\":{" BASE_STRINGS "," BASE_TABLES "}," BASE_THREADS "}";
/* the same content with meta last, threads first, tables before the strings */
static const char reordered_doc[] =
    "{" BASE_THREADS ",\"shared\":{" BASE_TABLES "," BASE_STRINGS "}," BASE_LIBS "," BASE_META "}";

/* Everything a test can compare, as text. */
static void summary(const struct pv_profile *p, char *out, size_t n)
{
	char buf[256];
	size_t o = 0;
	out[0] = 0;
#define PUT(...) (o += (size_t)snprintf(out + o, o < n ? n - o : 0, __VA_ARGS__))
	PUT("%s|%s|%lld|%lld|", pv_str(p, p->meta.format_version), pv_str(p, p->meta.product),
	    (long long)p->meta.interval_ns, (long long)p->meta.start_unix_ns);
	for (uint32_t t = 0; t < p->threads.len; t++)
		PUT("T %s %lld %lld %s;", pv_str(p, p->threads.name[t]),
		    (long long)p->threads.pid[t], (long long)p->threads.tid[t],
		    pv_str(p, p->threads.process_name[t]));
	for (uint32_t s = 0; s < p->samples.len; s++) {
		t_stack_path(p, p->samples.stack[s], ">", buf, sizeof(buf));
		PUT("S %s @%lld", buf, (long long)pv_sample_time(p, s));
		for (uint32_t m = 0; m < p->metrics.len; m++)
			PUT(" %lld", (long long)pv_sample_weight(p, m, s));
		PUT(";");
	}
	for (uint32_t i = 0; i < p->markers.len; i++) {
		t_stack_path(p, p->markers.cause_stack[i], ">", buf, sizeof(buf));
		PUT("M %s %u %lld %lld %s %s %lld;", pv_str(p, p->markers.name[i]),
		    p->markers.phase[i], (long long)p->markers.start_ns[i],
		    (long long)p->markers.end_ns[i], pv_str(p, p->markers.payload[i]), buf,
		    (long long)p->markers.cause_time_ns[i]);
	}
	for (uint32_t f = 0; f < p->frames.len; f++) {
		pv_func_ix fn = p->frames.func[f];
		pv_module_ix m = pv_func_module(p, fn);
		PUT("F %s %s %s:%u %u:%u %llx %u %d %u;", pv_str(p, p->funcs.name[fn]),
		    m == PV_NONE ? "-" : pv_str(p, p->modules.path[m]),
		    pv_func_source(p, fn) == PV_NONE
			? "-"
			: pv_str(p, p->sources.path[pv_func_source(p, fn)]),
		    pv_func_line(p, fn), pv_frame_line(p, f), pv_frame_column(p, f),
		    (unsigned long long)pv_frame_addr(p, f), pv_frame_inline_depth(p, f),
		    (int)pv_frame_category(p, f), pv_frame_subcategory(p, f));
	}
	for (uint32_t i = 0; i < p->diags.len; i++)
		PUT("L %s %llu;", pv_str(p, p->diags.msg[i]),
		    (unsigned long long)p->diags.count[i]);
#undef PUT
}

T_TEST(firefox_processed_small_v70)
{
	struct pv_profile *p = t_load_text_format("mem.json", base_doc, "firefox-processed");
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.format_version), "70 (gecko 36)");
	T_EQ_INT(p->meta.start_unix_ns, 1000500000);
	T_EQ_INT(p->meta.interval_ns, 500000);
	T_EQ_INT(p->threads.pid[0], 42);
	T_EQ_INT(p->threads.tid[0], 43);
	T_EQ_INT(p->threads.start_ns[0], 0);
	T_EQ_INT(p->threads.end_ns[0], PV_TIME_NONE);
	/* cumulative timeDeltas; a null stack is kept as a sample without a stack */
	T_EQ_INT(p->samples.len, 4);
	T_EQ_INT(pv_sample_time(p, 0), 1000000);
	T_EQ_INT(pv_sample_time(p, 1), 1500000);
	T_EQ_INT(pv_sample_time(p, 2), 1750000);
	T_EQ_INT(pv_sample_time(p, 3), 2750000);
	T_EQ_INT(p->samples.stack[2], PV_NONE);
	char buf[256];
	t_stack_path(p, p->samples.stack[0], ">", buf, sizeof(buf));
	T_EQ_STR(buf, "main>work>leaf");
	/* cpu deltas in cycles, the first one dropped */
	T_EQ_INT(p->metrics.len, 2);
	T_EQ_INT(p->metrics.unit[1], PV_UNIT_CYCLES);
	T_EQ_INT(pv_sample_weight(p, 1, 0), 0);
	T_EQ_INT(pv_sample_weight(p, 1, 3), 30);
	/* frames: address -1 -> none, lib-relative otherwise; categories and subcategories */
	T_EQ_INT(p->frames.len, 3);
	T_EQ_U64(pv_frame_addr(p, 0), PV_ADDR_NONE);
	T_EQ_U64(pv_frame_addr(p, 1), 16);
	T_EQ_INT(pv_frame_line(p, 0), 10);
	T_EQ_INT(pv_frame_column(p, 0), 3);
	T_EQ_STR(pv_str(p, p->categories.name[pv_frame_category(p, 1)]), "JS");
	T_EQ_INT(pv_frame_subcategory(p, 1), 1);
	T_EQ_INT(pv_frame_category(p, 2), PV_NONE);
	T_EQ_INT(pv_frame_inline_depth(p, 2), 1);
	/* functions: main has a source and a line, work and leaf are in libc.so (frameTable.lib) */
	T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, 0)]), "a.c");
	T_EQ_INT(pv_func_line(p, 0), 9);
	T_EQ_INT(pv_func_module(p, 0), PV_NONE);
	T_EQ_STR(pv_str(p, p->modules.path[pv_func_module(p, 1)]), "/lib/libc.so");
	/* markers: the instant's end slot is dropped; the cause maps to main>work at 0.5 ms */
	T_EQ_INT(p->markers.len, 2);
	T_EQ_INT(p->markers.end_ns[0], PV_TIME_NONE);
	T_EQ_INT(p->markers.payload[0], 0);
	T_EQ_STR(pv_str(p, p->categories.name[p->markers.category[0]]), "JS");
	T_EQ_INT(p->markers.start_ns[1], MS(2));
	T_EQ_INT(p->markers.end_ns[1], MS(3));
	t_stack_path(p, p->markers.cause_stack[1], ">", buf, sizeof(buf));
	T_EQ_STR(buf, "main>work");
	T_EQ_INT(p->markers.cause_time_ns[1], 500000);
	T_EQ_STR(pv_str(p, p->markers.payload[1]), "{\"type\":\"X\"}");
	T_EQ_U64(lossy_count(p, "marker cause thread ids (tid of a marker's stack)"), 0);
	pv_profile_free(p);
}

T_TEST(firefox_processed_key_order_does_not_matter)
{
	struct pv_profile *a = t_load_text_format("mem.json", base_doc, "firefox-processed"),
			  *b = t_load_text_format("mem.json", reordered_doc, "firefox-processed");
	if (a && b) {
		static char sa[8192], sb[8192];
		summary(a, sa, sizeof(sa));
		summary(b, sb, sizeof(sb));
		T_EQ_STR(sb, sa);
		T_CONTAINS(sa, "S main>work>leaf @1000000 1 0;");
	}
	pv_profile_free(a);
	pv_profile_free(b);
}

T_TEST(firefox_processed_small_old_versions)
{
	/*
	 * v30: per-thread stringTable and tables, prefix (null = root), funcTable.fileName,
	 * samples.time, markers without phase, stack category columns, no categories in meta
	 */
	static const char doc[] =
	    "{\"meta\":{\"preprocessedProfileVersion\":30,\"startTime\":0,\"interval\":1},"
	    "\"threads\":[{\"name\":\"T\",\"pid\":1,\"tid\":\"7\","
	    "\"stringTable\":[\"a\",\"b\",\"f.js\",\"M\"],"
	    "\"stackTable\":{\"frame\":[0,1],\"prefix\":[null,0],\"category\":[0,0],"
	    "\"subcategory\":[0,0],\"length\":2},"
	    "\"frameTable\":{\"func\":[0,1],\"address\":[-1,-1],\"category\":[null,null],"
	    "\"subcategory\":[null,null],\"implementation\":[null,\"ion\"],\"line\":[null,3],"
	    "\"column\":[null,null],\"inlineDepth\":[0,0],\"length\":2},"
	    "\"funcTable\":{\"name\":[0,1],\"resource\":[-1,-1],\"fileName\":[null,2],"
	    "\"lineNumber\":[null,1],\"isJS\":[false,true],\"length\":2},"
	    "\"resourceTable\":{\"name\":[],\"type\":[],\"lib\":[],\"length\":0},"
	    "\"samples\":{\"stack\":[1,1,0],\"time\":[5,6.5,7],\"length\":3},"
	    "\"markers\":{\"name\":[3,3],\"startTime\":[1,2],\"endTime\":[null,4],"
	    "\"data\":[null,null],\"category\":[0,0],\"length\":2}}]}";
	struct pv_profile *p = t_load_text_format("mem.json", doc, "firefox-processed");
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.format_version), "30");
	T_EQ_INT(p->threads.tid[0], 7);
	T_EQ_INT(p->samples.len, 3);
	T_EQ_INT(pv_sample_time(p, 1), 6500000);
	char buf[64];
	t_stack_path(p, p->samples.stack[0], ">", buf, sizeof(buf));
	T_EQ_STR(buf, "a>b");
	/* the default category list */
	T_EQ_INT(p->categories.len, 1);
	T_EQ_STR(pv_str(p, p->categories.name[0]), "Other");
	T_EQ_STR(pv_str(p, p->categories.color[0]), "grey");
	/* fileName is a string index */
	pv_func_ix f = t_find_func(p, "b");
	T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, f)]), "f.js");
	T_EQ_INT(pv_func_line(p, f), 1);
	/* phases derived from the end times */
	T_EQ_INT(p->markers.phase[0], PV_PHASE_INSTANT);
	T_EQ_INT(p->markers.phase[1], PV_PHASE_INTERVAL);
	T_EQ_INT(p->markers.end_ns[1], MS(4));
	T_EQ_STR(pv_str(p, p->markers.name[1]), "M");
	T_EQ_U64(lossy_count(p, "frameTable.implementation not kept"), 1);
	T_EQ_U64(lossy_count(p, "funcTable.isJS not kept"), 1);
	/* the stack categories agree with the default one: not reported */
	T_EQ_INT(p->diags.len, 2);
	pv_profile_free(p);

	/* the same with a stack category that the frames do not give: reported */
	char *d2 = strdup(doc);
	char *c = strstr(d2, "\"category\":[0,0],\"subcategory\":[0,0]");
	c[12] = '5';
	p = t_load_text_format("mem.json", d2, "firefox-processed");
	if (p) {
		T_EQ_U64(lossy_count(p, "stackTable category/subcategory columns not kept (stacks "
					"whose category differs from their frames')"),
			 1);
		pv_profile_free(p);
	}
	free(d2);
}

/* A v70 document with one thread whose samples are given, and no stacks. */
static struct pv_profile *samples_doc(const char *samples, const char *units)
{
	char doc[1024];
	snprintf(doc, sizeof(doc),
		 "{\"meta\":{\"preprocessedProfileVersion\":70%s},\"shared\":{\"stringArray\":[]},"
		 "\"threads\":[{\"name\":\"T\",\"samples\":{%s}}]}",
		 units, samples);
	return t_load_text_format("mem.json", doc, "firefox-processed");
}

T_TEST(firefox_processed_weights)
{
	struct pv_profile *p = samples_doc("\"stack\":[null,null],\"time\":[0,1],\"weightType\":"
					   "\"tracing-ms\",\"weight\":[0.5,1.2500004]",
					   "");
	if (p) {
		T_EQ_STR(pv_str(p, p->metrics.name[0]), "time");
		T_EQ_INT(p->metrics.unit[0], PV_UNIT_NS);
		T_EQ_INT(pv_sample_weight(p, 0, 0), 500000);
		T_EQ_INT(pv_sample_weight(p, 0, 1), 1250000);
		pv_profile_free(p);
	}
	/* the weight before its type; bytes */
	p = samples_doc("\"stack\":[null,null],\"time\":[0,1],\"weight\":[100,2e3],"
			"\"weightType\":\"bytes\"",
			"");
	if (p) {
		T_EQ_STR(pv_str(p, p->metrics.name[0]), "bytes");
		T_EQ_INT(p->metrics.unit[0], PV_UNIT_BYTES);
		T_EQ_INT(pv_sample_weight(p, 0, 0), 100);
		T_EQ_INT(pv_sample_weight(p, 0, 1), 2000);
		pv_profile_free(p);
	}
	/* sample counts (samply coalesces samples); threadCPUDelta in µs becomes ns */
	p = samples_doc("\"stack\":[null,null],\"time\":[0,1],\"weightType\":\"samples\","
			"\"weight\":[3,4],\"threadCPUDelta\":[5,1.5]",
			",\"sampleUnits\":{\"threadCPUDelta\":\"\\u00b5s\"}");
	if (p) {
		T_EQ_STR(pv_str(p, p->metrics.name[0]), "samples");
		T_EQ_INT(pv_sample_weight(p, 0, 0), 3);
		T_EQ_INT(pv_sample_weight(p, 0, 1), 4);
		T_EQ_INT(p->metrics.unit[1], PV_UNIT_NS);
		T_EQ_INT(pv_sample_weight(p, 1, 1), 1500);
		pv_profile_free(p);
	}
	/* two threads of two weight types: the first thread's is the default metric */
	static const char doc[] =
	    "{\"meta\":{\"preprocessedProfileVersion\":70},\"threads\":["
	    "{\"name\":\"A\",\"samples\":{\"stack\":[null],\"time\":[0],\"weightType\":\"bytes\","
	    "\"weight\":[64]}},"
	    "{\"name\":\"B\",\"samples\":{\"stack\":[null],\"time\":[0],\"weightType\":"
	    "\"tracing-ms\",\"weight\":[2]}}]}";
	p = t_load_text_format("mem.json", doc, "firefox-processed");
	if (p) {
		T_EQ_INT(p->metrics.len, 2);
		T_EQ_STR(pv_str(p, p->metrics.name[p->meta.default_metric]), "bytes");
		T_EQ_INT(thread_weight(p, 0, 0), 64);
		T_EQ_INT(thread_weight(p, 0, 1), 0);
		T_EQ_INT(thread_weight(p, 1, 0), 0);
		T_EQ_INT(thread_weight(p, 1, 1), MS(2));
		pv_profile_free(p);
	}
}

T_TEST(firefox_processed_probe)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	T_EQ_INT(pv_import_memory("a.json", base_doc, strlen(base_doc), NULL, &p, &err), 0);
	if (p)
		T_EQ_STR(pv_str(p, p->meta.format), "firefox-processed");
	pv_profile_free(p);
	/* meta at the end: found by the funcTable */
	p = NULL;
	T_EQ_INT(pv_import_memory("b.json", reordered_doc, strlen(reordered_doc), NULL, &p, &err),
		 0);
	if (p)
		T_EQ_STR(pv_str(p, p->meta.format), "firefox-processed");
	pv_profile_free(p);
	/* not claimed */
	p = NULL;
	static const char other[] = "{\"someOtherTool\":[]}";
	T_EQ_INT(pv_import_memory("c.json", other, strlen(other), NULL, &p, &err), PV_EFORMAT);
	T_CONTAINS(err.msg, "not a profile format profview reads");
}

/* ---- errors ---- */

/* Imports doc; the error must be code with message "mem.json: " + want. */
static void expect_error(const char *doc, int code, const char *want, int line)
{
	struct pv_profile *p;
	struct pv_error err;
	char full[600];
	snprintf(full, sizeof(full), "mem.json: %s", want);
	int rc = t_import_str("mem.json", doc, "firefox-processed", &p, &err);
	if (rc == 0) {
		t_fail(__FILE__, line, "imported, expected '%s'", full);
		pv_profile_free(p);
		return;
	}
	if (rc != code)
		t_fail(__FILE__, line, "code %d, expected %d (%s)", rc, code, err.msg);
	if (strcmp(err.msg, full) != 0)
		t_fail(__FILE__, line, "message '%s', expected '%s'", err.msg, full);
}
#define EXPECT_ERROR(doc, code, want) expect_error(doc, code, want, __LINE__)

/* "line 1, column C" of the first occurrence of needle in doc (+ skip bytes) */
static void at(char *buf, size_t n, const char *doc, const char *needle, size_t skip,
	       const char *what)
{
	const char *s = strstr(doc, needle);
	snprintf(buf, n, "line 1, column %zu: %s", s ? (size_t)(s - doc) + skip + 1 : 0, what);
}

/* base_doc with one substring replaced */
static char *edit(const char *from, const char *to)
{
	const char *s = strstr(base_doc, from);
	if (!s)
		return NULL;
	size_t a = (size_t)(s - base_doc), fl = strlen(from), tl = strlen(to);
	char *d = malloc(strlen(base_doc) - fl + tl + 1);
	memcpy(d, base_doc, a);
	memcpy(d + a, to, tl);
	memcpy(d + a + tl, base_doc + a + fl, strlen(base_doc + a + fl) + 1);
	return d;
}

/* base_doc with from replaced by to must fail to import with what at the first needle in it
 * (+ skip bytes): "line 1, column C: what". */
static void edit_error(const char *from, const char *to, const char *needle, size_t skip,
		       const char *what, int line)
{
	char want[200], *doc = edit(from, to);
	at(want, sizeof(want), doc, needle, skip, what);
	expect_error(doc, PV_EPARSE, want, line);
	free(doc);
}
#define EXPECT_EDIT_ERROR(from, to, needle, skip, what) \
	edit_error(from, to, needle, skip, what, __LINE__)

T_TEST(firefox_processed_error_truncated)
{
	char want[200];
	/* cut inside the samples' stack column */
	const char *s = strstr(base_doc, "\"stack\":[2,1,");
	size_t len = (size_t)(s - base_doc) + strlen("\"stack\":[2,1,");
	char *doc = strndup(base_doc, len);
	snprintf(want, sizeof(want),
		 "line 1, column %zu: expected a value, found the end of the input", len + 1);
	EXPECT_ERROR(doc, PV_EPARSE, want);
	free(doc);
	/* cut after a complete member */
	doc = strndup(base_doc, strlen(base_doc) - 1);
	snprintf(want, sizeof(want),
		 "line 1, column %zu: expected ',' or '}', found the end of the input",
		 strlen(base_doc));
	EXPECT_ERROR(doc, PV_EPARSE, want);
	free(doc);
	EXPECT_ERROR("", PV_EPARSE,
		     "line 1, column 1: expected a value, found the end of the input");
}

T_TEST(firefox_processed_error_wrong_types)
{
	EXPECT_EDIT_ERROR("\"stack\":[2,1,null,2]", "\"stack\":[2,\"x\",null,2]", "\"x\"", 0,
			  "expected an integer or null for samples.stack, found a string");
	EXPECT_EDIT_ERROR(
	    "\"timeDeltas\":[1,", "\"timeDeltas\":[true,", "true", 0,
	    "expected a time in milliseconds or null for samples.timeDeltas, found a boolean");
	EXPECT_EDIT_ERROR("\"frame\":[0,1,2]", "\"frame\":{}", "\"frame\":{}", 8,
			  "expected an array for stackTable.frame, found an object");
	EXPECT_EDIT_ERROR("\"stack\":[2,1,null,2]", "\"stack\":[2,1.5,null,2]", "1.5", 0,
			  "expected an integer, found 1.5");
	EXPECT_EDIT_ERROR(
	    "\"weightType\":\"samples\"", "\"weightType\":\"kg\"", "\"kg\"", 0,
	    "expected samples.weightType 'samples', 'tracing-ms' or 'bytes', found 'kg'");
	EXPECT_ERROR(
	    "[1]", PV_EPARSE,
	    "line 1, column 1: expected an object (a Firefox processed profile), found an array");
	EXPECT_EDIT_ERROR(
	    "\"preprocessedProfileVersion\":70", "\"preprocessedProfileVersion\":\"70\"", "\"70\"",
	    0, "expected an integer for meta.preprocessedProfileVersion, found a string");
}

T_TEST(firefox_processed_error_stack_order)
{
	/* prefixOffset 2 at stack 1 points before the first stack */
	EXPECT_EDIT_ERROR("\"prefixOffset\":[0,1,1]", "\"prefixOffset\":[0,2,1]", "[0,2,1]", 3,
			  "expected a prefixOffset from 0 to 1 for stack 1, found 2");
	/* a negative offset points forward */
	EXPECT_EDIT_ERROR("\"prefixOffset\":[0,1,1]", "\"prefixOffset\":[0,1,-1]", "-1]", 0,
			  "expected a prefixOffset from 0 to 2 for stack 2, found -1");
	/* the old prefix column: stack 1's prefix is itself, stack 2's is later */
	EXPECT_EDIT_ERROR("\"prefixOffset\":[0,1,1]", "\"prefix\":[null,1,0]", "[null,1,0]", 6,
			  "expected the prefix of stack 1 to be an earlier stack or null, found 1");
	EXPECT_EDIT_ERROR("\"prefixOffset\":[0,1,1]", "\"prefix\":[null,0,7]", "7]", 0,
			  "expected the prefix of stack 2 to be an earlier stack or null, found 7");
	/* prefixOffset must not be null */
	EXPECT_EDIT_ERROR("\"prefixOffset\":[0,1,1]", "\"prefixOffset\":[null,1,1]", "null,1,1", 0,
			  "expected an integer for stackTable.prefixOffset, found null");
}

T_TEST(firefox_processed_error_indices)
{
	/* checked once the funcTable is known, at the offending number */
	EXPECT_EDIT_ERROR("\"func\":[0,1,2]", "\"func\":[0,5,2]", "5,2]", 0,
			  "expected a funcTable index below 3 for frameTable.func, found 5");
	EXPECT_EDIT_ERROR("\"stack\":[2,1,null,2]", "\"stack\":[2,1,null,3]", "3],\"timeDeltas\"",
			  0, "expected a stackTable index below 3 for samples.stack, found 3");
	EXPECT_EDIT_ERROR("\"name\":[0,1,3]", "\"name\":[0,1,6]", "6],\"resource\"", 0,
			  "expected a string index below 6 for funcTable.name, found 6");
	EXPECT_EDIT_ERROR("\"category\":[0,1,null]", "\"category\":[0,2,null]", "2,null]", 0,
			  "expected a category index below 2 for frameTable.category, found 2");
	EXPECT_EDIT_ERROR("\"func\":[0,1,2]", "\"func\":[0,null,2]", "null,2]", 0,
			  "expected an index for frameTable.func, found null or -1");
	EXPECT_EDIT_ERROR("\"phase\":[0,1]", "\"phase\":[0,7]", "7],\"category\"", 0,
			  "expected a marker phase from 0 to 3, found 7");
	/* columns of different lengths */
	EXPECT_EDIT_ERROR("\"timeDeltas\":[1,0.5,0.25,1]", "\"timeDeltas\":[1,0.5,0.25]",
			  "[1,0.5,0.25]", 0,
			  "expected 4 values for samples.time (one per row), found 3");
	EXPECT_EDIT_ERROR(
	    "\"stackTable\":{\"frame\":[0,1,2],\"prefixOffset\":[0,1,1],\"length\":3}",
	    "\"stackTable\":{\"frame\":[0,1,2],\"prefixOffset\":[0,1,1],\"length\":4}", "[0,1,2]",
	    0, "expected 4 values for stackTable.frame (its length), found 3");
}

T_TEST(firefox_processed_error_versions)
{
	char *doc = edit("\"preprocessedProfileVersion\":70", "\"preprocessedProfileVersion\":99");
	EXPECT_ERROR(doc, PV_EFORMAT,
		     "processed profile version 99 is not supported (profview reads 24 to 70)");
	free(doc);
	doc = edit("\"preprocessedProfileVersion\":70", "\"preprocessedProfileVersion\":23");
	EXPECT_ERROR(doc, PV_EFORMAT,
		     "processed profile version 23 is not supported (profview reads 24 to 70)");
	free(doc);
	/* found only after the threads: the same answer */
	static const char late[] = "{\"threads\":[],\"meta\":{\"preprocessedProfileVersion\":71}}";
	EXPECT_ERROR(late, PV_EFORMAT,
		     "processed profile version 71 is not supported (profview reads 24 to 70)");
	static const char none[] = "{\"meta\":{\"version\":36},\"threads\":[]}";
	EXPECT_ERROR(none, PV_EFORMAT,
		     "not a Firefox processed profile (no meta.preprocessedProfileVersion)");
	/* the oldest and newest supported */
	static const char v24[] = "{\"meta\":{\"preprocessedProfileVersion\":24},\"threads\":[]}";
	struct pv_profile *p = t_load_text_format("mem.json", v24, "firefox-processed");
	if (p)
		T_EQ_STR(pv_str(p, p->meta.format_version), "24");
	pv_profile_free(p);
}

T_TEST(firefox_processed_exact_times)
{
	/* ms -> ns, rounded half away from zero (reference: Python Decimal, ROUND_HALF_UP) */
	struct pv_profile *p = samples_doc(
	    "\"stack\":[null,null,null,null,null,null,null,null,null,null,null],"
	    "\"time\":[1.0000004,1.0000005,-1.0000005,0.9999995,123456.1234565,1e3,1.5E-3,"
	    "2.00000049999999,3,-0.0000005,999999999999.999999]",
	    "");
	static const int64_t want[] = {
	    1000000, 1000001, -1000001, 1000000, 123456123457,	      1000000000,
	    1500,    2000000, 3000000,	-1,	 999999999999999999LL};
	if (!p)
		return;
	T_EQ_INT(p->samples.len, 11);
	for (uint32_t i = 0; i < p->samples.len && i < 11; i++)
		T_EQ_INT(pv_sample_time(p, i), want[i]);
	pv_profile_free(p);
}

/* A payload's cause object becomes the cause columns and leaves the payload text. */
T_TEST(firefox_processed_cause_leaves_the_payload)
{
	static const char *const cases[][4] = {
	    /* payload in the file, payload kept, cause stack, cause time (ns) */
	    {"{\"cause\":{\"stack\":1,\"time\":0.5},\"type\":\"X\"}", "{\"type\":\"X\"}",
	     "main>work", "500000"},
	    {"{\"cause\":{\"stack\":0,\"tid\":7}}", "{}", "main", "-"},
	    {"{\"type\":\"X\",\"cause\":5}", "{\"type\":\"X\",\"cause\":5}", "", "-"},
	    {"{\"a\":1,\"cause\":{\"stack\":1},\"b\":{\"cause\":{\"stack\":0}},\"cause\":{\"time\":"
	     "2}}",
	     "{\"a\":1,\"b\":{\"cause\":{\"stack\":0}}}", "main>work", "2000000"},
	    {"{\"type\":\"X\", \"cause\" : { \"stack\" : 1 , \"x\":[1,{\"y\":2}] } }",
	     "{\"type\":\"X\"}", "main>work", "-"},
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char *doc =
		    edit("{\"type\":\"X\",\"cause\":{\"stack\":1,\"time\":0.5}}", cases[c][0]);
		struct pv_profile *p =
		    doc ? t_load_text_format("mem.json", doc, "firefox-processed") : NULL;
		free(doc);
		T_TRUE(p != NULL);
		if (!p)
			continue;
		char buf[256], t[32];
		T_EQ_STR(pv_str(p, p->markers.payload[1]), cases[c][1]);
		t_stack_path(p, p->markers.cause_stack[1], ">", buf, sizeof(buf));
		T_EQ_STR(buf, cases[c][2]);
		if (p->markers.cause_time_ns[1] == PV_TIME_NONE)
			snprintf(t, sizeof(t), "-");
		else
			snprintf(t, sizeof(t), "%lld", (long long)p->markers.cause_time_ns[1]);
		T_EQ_STR(t, cases[c][3]);
		T_EQ_U64(lossy_count(p, "marker cause thread ids (tid of a marker's stack)"),
			 c == 1);
		pv_profile_free(p);
	}
}

/*
 * Sample stacks are mapped in place in the model's columns: through the shared tables, or
 * through a thread's own tables even when they come after its samples (no writer does this), and
 * the deferred order (threads first) gives the same profile. The shared table repeats its root,
 * so its map is not the identity.
 */
#define OWN_TABLES(frames, offsets, len)                                                        \
	"\"stackTable\":{\"frame\":[" frames "],\"prefixOffset\":[" offsets "],\"length\":" len \
	"},\"frameTable\":{\"func\":[0,1,2],\"length\":3},\"funcTable\":{\"name\":[0,1,3],"     \
	"\"length\":3}"
#define MORE_THREADS                                                                         \
	",{\"name\":\"Plain\",\"samples\":{\"stack\":[3,null,2,1,0],\"time\":[1,2,3,4,5]}}," \
	"{\"name\":\"OwnAfter\",\"samples\":{\"stack\":[1,2],\"time\":[5,6]}," OWN_TABLES(   \
	    "0,1,2", "0,1,1", "3") "},"                                                      \
				   "{\"name\":\"OwnPast\",\"samples\":{\"stack\":[0,4,2],"   \
				   "\"time\":[7,8,9]}," OWN_TABLES("0,1,2,0,1", "0,1,1,0,1", \
								   "5") "}]"

T_TEST(firefox_processed_samples_mapped_in_place)
{
	size_t n = strlen(BASE_THREADS) - 1; /* without its closing ']' */
	char *threads = malloc(n + sizeof(MORE_THREADS));
	memcpy(threads, BASE_THREADS, n);
	memcpy(threads + n, MORE_THREADS, sizeof(MORE_THREADS));
	/* shared stacks: main, main again, main>work, main>work>leaf */
	char tables[4096];
	snprintf(tables, sizeof(tables),
		 "\"stackTable\":{\"frame\":[0,0,1,2],\"prefixOffset\":[0,0,1,1],\"length\":4},%s",
		 strstr(BASE_TABLES, "\"frameTable\""));
	size_t dl = strlen(threads) + 8192;
	char *doc = malloc(dl), *late = malloc(dl);
	snprintf(doc, dl, "{%s,%s,\"shared\":{%s,%s},%s}", BASE_META, BASE_LIBS, BASE_STRINGS,
		 tables, threads);
	snprintf(late, dl, "{%s,\"shared\":{%s,%s},%s,%s}", threads, tables, BASE_STRINGS,
		 BASE_LIBS, BASE_META);
	struct pv_profile *a = t_load_text_format("mem.json", doc, "firefox-processed"),
			  *b = t_load_text_format("mem.json", late, "firefox-processed");
	if (a && b) {
		static char sa[16384], sb[16384];
		summary(a, sa, sizeof(sa));
		summary(b, sb, sizeof(sb));
		T_EQ_STR(sb, sa);
		static const char *const want[] = {
		    /* Plain: shared stacks 3, none, 2, 1 (main again) and 0 */
		    "main>work>leaf", "", "main>work", "main", "main",
		    /* OwnAfter: its own stacks 1 and 2 */
		    "main>work", "main>work>leaf",
		    /* OwnPast: its own 0, 4 (past the shared table: main again > work) and 2 */
		    "main", "main>work", "main>work>leaf"};
		uint32_t nw = sizeof(want) / sizeof(want[0]);
		T_EQ_INT(a->threads.len, 4);
		T_EQ_INT(a->samples.len, 4 + nw);
		for (uint32_t i = 0; i < nw && 4 + i < a->samples.len; i++) {
			char buf[256];
			t_stack_path(a, a->samples.stack[4 + i], ">", buf, sizeof(buf));
			T_EQ_STR(buf, want[i]);
		}
	}
	pv_profile_free(a);
	pv_profile_free(b);
	free(threads);
	free(doc);
	free(late);
}

/*
 * Two functions of one name, file and line that differ by column (funcTable.columnNumber, as two
 * anonymous functions on one line of minified code) are two functions, as in the Firefox
 * Profiler, whose funcTable rows they are; the same column is one function.
 */
T_TEST(firefox_processed_function_columns)
{
	static const char *const cols[] = {"[5,40,null]", "[5,5,null]"};
	static const uint32_t want[] = {2, 1};
	for (int k = 0; k < 2; k++) {
		char doc[4096];
		snprintf(
		    doc, sizeof(doc),
		    "{" BASE_META "," BASE_LIBS ",\"shared\":{" BASE_STRINGS ","
		    "\"stackTable\":{\"frame\":[0,1,2],\"prefixOffset\":[0,1,1],\"length\":3},"
		    "\"frameTable\":{\"func\":[0,1,2],\"address\":[-1,-1,32],\"lib\":[-1,-1,0],"
		    "\"category\":[0,1,null],\"subcategory\":[0,1,null],\"inlineDepth\":[0,0,1],"
		    "\"line\":[10,10,null],\"column\":[3,3,null],\"length\":3},"
		    "\"funcTable\":{\"name\":[0,0,3],\"resource\":[-1,-1,0],\"source\":[0,0,null],"
		    "\"lineNumber\":[9,9,null],\"columnNumber\":%s,\"length\":3},"
		    "\"resourceTable\":{\"name\":[2],\"type\":[1],\"length\":1},"
		    "\"sources\":{\"filename\":[5],\"length\":1}}," BASE_THREADS "}",
		    cols[k]);
		struct pv_profile *p = t_load_text_format("mem.json", doc, "firefox-processed");
		if (!p)
			continue;
		uint32_t n = 0;
		for (pv_func_ix f = 0; f < p->funcs.len; f++) {
			if (strcmp(pv_str(p, p->funcs.name[f]), "main") != 0)
				continue;
			T_EQ_INT(pv_func_line(p, f), 9);
			T_EQ_INT(pv_func_column(p, f), n == 0 ? 5 : 40);
			n++;
		}
		T_EQ_INT(n, want[k]);
		T_EQ_INT(lossy_count(p, "funcTable.columnNumber"), 0);
		pv_profile_free(p);
	}
}

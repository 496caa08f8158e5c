/*
 * tests of firefox_gecko: the raw Gecko format and the DevTools export that wraps it.
 *
 * Figures come from the corpus README (tests/data/corpus/firefox/README.md) and from the Firefox
 * Profiler's own processing of the same profile, generated-processed-v70-from-gecko.json: its call
 * tree and function list, computed once with a script over that JSON (kept out of the tree), are
 * the constants below; the same file read by the processed importer must agree with ours.
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "base/text.h"
#include "pv/import.h"
#include "pv/view.h"
#include "t.h"
#include "tp.h"
#include "view/calltree.h"

static uint32_t thread_markers(const struct pv_profile *p, pv_thread_ix t, uint32_t phases[4])
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < p->markers.len; i++) {
		if (p->markers.thread[i] != t)
			continue;
		n++;
		if (phases)
			phases[p->markers.phase[i]]++;
	}
	return n;
}

static const char *module_of(const struct pv_profile *p, pv_func_ix f)
{
	if (f == PV_NONE || pv_func_module(p, f) == PV_NONE)
		return "";
	return pv_str(p, p->modules.name[pv_func_module(p, f)]);
}

/* The i-th marker of thread t, PV_NONE past the end. */
static uint32_t nth_marker(const struct pv_profile *p, pv_thread_ix t, uint32_t i)
{
	for (uint32_t m = 0; m < p->markers.len; m++)
		if (p->markers.thread[m] == t && i-- == 0)
			return m;
	return PV_NONE;
}

/* ---- generated-gecko-v36.json: the README's figures ---- */

T_TEST(gecko_v36_threads_samples_markers)
{
	struct pv_profile *p = t_load_format(t_data("firefox/generated-gecko-v36.json"), NULL);
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.format), "firefox-gecko");
	T_EQ_STR(pv_str(p, p->meta.format_version), "36");
	T_EQ_STR(pv_str(p, p->meta.product), "Firefox");
	T_EQ_INT(p->meta.interval_ns, 1000000);
	T_EQ_INT(p->meta.start_unix_ns, 1460221352723438000LL);
	T_EQ_INT(p->threads.len, 3);
	static const char *const names[] = {"GeckoMain", "Compositor", "GeckoMain"};
	static const int64_t pids[] = {3333, 3333, 2222}, tids[] = {3333, 3334, 1111};
	/* the tab process starts 1000 ms after the parent: its times are shifted */
	static const int64_t first_ms[] = {0, 0, 1000};
	static const uint32_t rows[] = {27, 23, 25};
	for (uint32_t t = 0; t < 3; t++) {
		T_EQ_STR(pv_str(p, p->threads.name[t]), names[t]);
		T_EQ_INT(p->threads.pid[t], pids[t]);
		T_EQ_INT(p->threads.tid[t], tids[t]);
		T_EQ_INT(p->threads.sample_end[t] - p->threads.sample_begin[t], 7);
		T_EQ_INT(pv_sample_time(p, p->threads.sample_begin[t]), first_ms[t] * 1000000);
		T_EQ_INT(pv_sample_time(p, p->threads.sample_end[t] - 1),
			 (first_ms[t] + 6) * 1000000);
		T_EQ_INT(p->threads.start_ns[t], first_ms[t] * 1000000);
		T_EQ_INT(p->threads.end_ns[t], (first_ms[t] + 100) * 1000000);
		T_EQ_INT(thread_markers(p, t, NULL), rows[t]);
	}
	T_EQ_INT(p->samples.len, 21);
	uint32_t ph[4] = {0};
	for (uint32_t i = 0; i < p->markers.len; i++)
		ph[p->markers.phase[i]]++;
	T_EQ_INT(p->markers.len, 75);
	T_EQ_INT(ph[0], 15);
	T_EQ_INT(ph[1], 24);
	T_EQ_INT(ph[2], 18);
	T_EQ_INT(ph[3], 18);
	/* samples, plus threadCPUDelta as "cpu-delta" like the processed importer */
	T_EQ_INT(p->metrics.len, 2);
	T_EQ_STR(pv_str(p, p->metrics.name[1]), "cpu-delta");
	int64_t cpu = 0;
	for (uint32_t s = 0; s < p->samples.len; s++)
		cpu += pv_sample_weight(p, 1, s);
	T_EQ_INT(cpu, 63); /* 1+3+6+7+3+1 ns per thread: a thread's first delta weighs 0 */
	pv_profile_free(p);
}

T_TEST(gecko_v36_markers_causes_payloads)
{
	struct pv_profile *p = t_load_format(t_data("firefox/generated-gecko-v36.json"), NULL);
	if (!p)
		return;
	/* sorted by time as the Firefox Profiler stores them: Rasterize end at 1 comes first */
	uint32_t m = nth_marker(p, 0, 0);
	T_EQ_STR(pv_str(p, p->markers.name[m]), "Rasterize");
	T_EQ_INT(p->markers.phase[m], PV_PHASE_END);
	T_EQ_INT(p->markers.start_ns[m], PV_TIME_NONE);
	T_EQ_INT(p->markers.end_ns[m], 1000000);
	/* a marker stack becomes the cause; the payload keeps the rest */
	uint32_t causes = 0;
	for (uint32_t i = 0; i < p->markers.len; i++) {
		if (p->markers.cause_stack[i] == PV_NONE)
			continue;
		causes++;
		char path[256];
		t_stack_path(p, p->markers.cause_stack[i], " > ", path, sizeof(path));
		T_EQ_STR(path, "(root) > 0x100000f84 > 0x100001a45");
		T_EQ_INT(p->markers.cause_time_ns[i],
			 p->markers.thread[i] == 2 ? 1001000000 : 1000000);
		T_TRUE(strstr(pv_str(p, p->markers.payload[i]), "stack") == NULL);
	}
	T_EQ_INT(causes, 12);
	m = nth_marker(p, 0, 2);
	T_EQ_STR(pv_str(p, p->markers.name[m]), "Reflow");
	T_EQ_STR(pv_str(p, p->markers.payload[m]), "{\"category\":\"Paint\",\"type\":\"tracing\"}");
	/* the tab process's payload times move with its markers (+1000 ms) */
	m = nth_marker(p, 2, 16);
	T_EQ_STR(pv_str(p, p->markers.name[m]),
		 "Load 32: https://github.com/rustwasm/wasm-bindgen/issues/5");
	T_EQ_INT(p->markers.start_ns[m], 1023000000);
	T_EQ_INT(p->markers.end_ns[m], 1024000000);
	T_CONTAINS(pv_str(p, p->markers.payload[m]),
		   "\"startTime\":1023,\"endTime\":1024,\"id\":388634410746504");
	T_CONTAINS(pv_str(p, p->markers.payload[m]), "\"domainLookupStart\":1023.1,");
	T_CONTAINS(pv_str(p, p->markers.payload[m]), "\"responseEnd\":1023.9}");
	/* a string index (CompositorScreenshot.url) becomes the string; otherPid a string */
	m = nth_marker(p, 0, 18);
	T_EQ_STR(
	    pv_str(p, p->markers.payload[m]),
	    "{\"type\":\"CompositorScreenshot\",\"url\":\"data:image/jpeg;base64,/9j/"
	    "4AAQSkZJRgABAQAAAQABAAD/"
	    "2wBDAAUD\",\"windowID\":\"0x136888400\",\"windowWidth\":1280,\"windowHeight\":1000}");
	m = nth_marker(p, 0, 22);
	T_CONTAINS(pv_str(p, p->markers.payload[m]), "\"otherPid\":\"2222\"");
	pv_profile_free(p);
}

T_TEST(gecko_v36_functions_modules_addresses)
{
	struct pv_profile *p = t_load_format(t_data("firefox/generated-gecko-v36.json"), NULL);
	if (!p)
		return;
	T_EQ_INT(p->funcs.len, 11);
	/* an unsymbolicated address keeps its name; its lib becomes the module */
	uint32_t libs = 0;
	for (uint32_t f = 0; f < p->funcs.len; f++) {
		if (strcmp(pv_str(p, p->funcs.name[f]), "0x100000f84") != 0)
			continue;
		libs++;
		pv_module_ix mo = pv_func_module(p, f);
		T_EQ_INT(p->modules.kind[mo], PV_MODULE_LIBRARY);
		for (uint32_t fr = 0; fr < p->frames.len; fr++)
			if (p->frames.func[fr] == f)
				T_EQ_U64(pv_frame_addr(p, fr), 0xf84); /* start 0x100000000 */
	}
	T_EQ_INT(libs, 2); /* firefox in the parent, firefox-webcontent in the tab */
	pv_func_ix f = t_find_func(p, "frobnicate");
	T_TRUE(f != PV_NONE);
	T_EQ_STR(module_of(p, f), "chrome://blargh");
	T_EQ_INT(p->modules.kind[pv_func_module(p, f)], PV_MODULE_RESOURCE);
	T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, f)]), "chrome://blargh");
	T_EQ_INT(pv_func_line(p, f), 34);
	f = t_find_func(p, "Startup::XRE_Main");
	T_TRUE(f != PV_NONE);
	T_EQ_INT(pv_func_module(p, f), PV_NONE);
	for (uint32_t fr = 0; fr < p->frames.len; fr++) {
		if (p->frames.func[fr] != f)
			continue;
		T_EQ_INT(pv_frame_line(p, fr), 4391);
		T_EQ_STR(pv_str(p, p->categories.name[pv_frame_category(p, fr)]), "Other");
	}
	pv_profile_free(p);
}

/*
 * The Firefox Profiler's call tree of the same profile (from
 * generated-processed-v70-from-gecko.json, its own processing of it), as "depth total self name
 * [module]".
 */
static const char *const v36_tree[] = {
    "0 21 3 (root)",
    "1 12 4 0x100000f84 [firefox]",
    "2 4 4 0x100001a45 [firefox]",
    "2 2 2 Startup::XRE_Main",
    "2 2 2 frobnicate [chrome://blargh]",
    "1 6 2 0x100000f84 [firefox-webcontent]",
    "2 2 2 0x100001a45 [firefox-webcontent]",
    "2 1 1 Startup::XRE_Main",
    "2 1 1 frobnicate [chrome://blargh]",
};

/* and its function list: "self total name [module]", by self */
static const char *const v36_top[] = {
    "4 12 0x100000f84 [firefox]",
    "4 4 0x100001a45 [firefox]",
    "3 21 (root)",
    "3 3 Startup::XRE_Main",
    "3 3 frobnicate [chrome://blargh]",
    "2 6 0x100000f84 [firefox-webcontent]",
    "2 2 0x100001a45 [firefox-webcontent]",
};

static void tree_lines(const struct pv_profile *p, const struct pv_calltree *t, uint32_t node,
		       char lines[][96], uint32_t *n)
{
	pv_func_ix f = t->func[node];
	const char *mod = module_of(p, f);
	snprintf(lines[*n], 96, "%u %lld %lld %s%s%s%s", t->depth[node], (long long)t->total[node],
		 (long long)t->self[node], pv_str(p, p->funcs.name[f]), *mod ? " [" : "", mod,
		 *mod ? "]" : "");
	(*n)++;
	for (uint32_t c = 0; c < t->child_len[node] && *n < 64; c++)
		tree_lines(p, t, t->children[t->child_first[node] + c], lines, n);
}

static uint32_t views(const struct pv_profile *p, char tree[][96], char top[][96], uint32_t *ntop)
{
	struct pv_view_opts o = {.metric = PV_NONE};
	struct pv_calltree *t = NULL;
	struct pv_top *tp = NULL;
	struct pv_error err;
	uint32_t n = 0;
	*ntop = 0;
	if (pv_calltree_build(p, &o, &t, &err) || pv_top_build(p, &o, PV_TOP_BY_SELF, &tp, &err)) {
		t_fail(__FILE__, __LINE__, "views: %s", err.msg);
		pv_calltree_free(t);
		return 0;
	}
	for (uint32_t r = 0; r < t->nr_roots; r++)
		tree_lines(p, t, t->roots[r], tree, &n);
	for (uint32_t i = 0; i < tp->len && i < 64; i++) {
		const char *mod = module_of(p, tp->func[i]);
		snprintf(top[i], 96, "%lld %lld %s%s%s%s", (long long)tp->self[i],
			 (long long)tp->total[i], pv_str(p, p->funcs.name[tp->func[i]]),
			 *mod ? " [" : "", mod, *mod ? "]" : "");
		(*ntop)++;
	}
	pv_calltree_free(t);
	pv_top_free(tp);
	return n;
}

T_TEST(gecko_v36_call_tree_as_the_firefox_profiler)
{
	struct pv_profile *p = t_load_format(t_data("firefox/generated-gecko-v36.json"), NULL);
	if (!p)
		return;
	char tree[64][96], top[64][96];
	uint32_t ntop, n = views(p, tree, top, &ntop);
	T_EQ_INT(n, sizeof(v36_tree) / sizeof(v36_tree[0]));
	for (uint32_t i = 0; i < n && i < sizeof(v36_tree) / sizeof(v36_tree[0]); i++)
		T_EQ_STR(tree[i], v36_tree[i]);
	T_EQ_INT(ntop, sizeof(v36_top) / sizeof(v36_top[0]));
	for (uint32_t i = 0; i < ntop && i < sizeof(v36_top) / sizeof(v36_top[0]); i++)
		T_EQ_STR(top[i], v36_top[i]);
	pv_profile_free(p);
}

T_TEST(gecko_v36_equals_its_processed_form)
{
	struct pv_profile *g =
	    t_load_format(t_data("firefox/generated-gecko-v36.json"), "firefox-gecko");
	struct pv_profile *p = t_load_format(
	    t_data("firefox/generated-processed-v70-from-gecko.json"), "firefox-processed");
	if (!g || !p) {
		pv_profile_free(g);
		pv_profile_free(p);
		return;
	}
	char gtree[64][96], gtop[64][96], ptree[64][96], ptop[64][96];
	uint32_t gntop, pntop;
	uint32_t gn = views(g, gtree, gtop, &gntop), pn = views(p, ptree, ptop, &pntop);
	T_EQ_INT(gn, pn);
	for (uint32_t i = 0; i < gn && i < pn; i++)
		T_EQ_STR(gtree[i], ptree[i]);
	T_EQ_INT(gntop, pntop);
	for (uint32_t i = 0; i < gntop && i < pntop; i++)
		T_EQ_STR(gtop[i], ptop[i]);
	T_EQ_INT(g->threads.len, p->threads.len);
	for (uint32_t t = 0; t < g->threads.len && t < p->threads.len; t++) {
		T_EQ_STR(pv_str(g, g->threads.name[t]), pv_str(p, p->threads.name[t]));
		T_EQ_INT(g->threads.pid[t], p->threads.pid[t]);
		T_EQ_INT(g->threads.tid[t], p->threads.tid[t]);
		T_EQ_INT(g->threads.start_ns[t], p->threads.start_ns[t]);
	}
	T_EQ_INT(g->samples.len, p->samples.len);
	for (uint32_t s = 0; s < g->samples.len && s < p->samples.len; s++) {
		T_EQ_INT(g->samples.time_ns[s], pv_sample_time(p, s));
		char a[256], b[256];
		t_stack_path(g, g->samples.stack[s], " > ", a, sizeof(a));
		t_stack_path(p, p->samples.stack[s], " > ", b, sizeof(b));
		T_EQ_STR(a, b);
	}
	/*
	 * raw markers: same rows in the same order, the same payloads (both importers turn the
	 * marker's stack, Gecko's "stack" and processed's "cause", into the cause columns)
	 */
	T_EQ_INT(g->markers.len, p->markers.len);
	uint32_t causes = 0;
	for (uint32_t i = 0; i < g->markers.len && i < p->markers.len; i++) {
		T_EQ_STR(pv_str(g, g->markers.name[i]), pv_str(p, p->markers.name[i]));
		T_EQ_INT(g->markers.thread[i], p->markers.thread[i]);
		T_EQ_INT(g->markers.phase[i], p->markers.phase[i]);
		T_EQ_INT(g->markers.start_ns[i], p->markers.start_ns[i]);
		T_EQ_INT(g->markers.end_ns[i], p->markers.end_ns[i]);
		T_EQ_STR(pv_str(g, g->categories.name[g->markers.category[i]]),
			 pv_str(p, p->categories.name[p->markers.category[i]]));
		T_EQ_INT(g->markers.cause_time_ns[i], p->markers.cause_time_ns[i]);
		char a[256], b[256];
		t_stack_path(g, g->markers.cause_stack[i], " > ", a, sizeof(a));
		t_stack_path(p, p->markers.cause_stack[i], " > ", b, sizeof(b));
		T_EQ_STR(a, b);
		causes += p->markers.cause_stack[i] != PV_NONE;
		if (strcmp(pv_str(g, g->markers.name[i]), "CompositorScreenshot") == 0)
			continue; /* url: we resolve the string index, processed keeps its own */
		T_EQ_STR(pv_str(g, g->markers.payload[i]), pv_str(p, p->markers.payload[i]));
	}
	T_EQ_INT(causes, 12);
	/* what neither keeps is reported alike */
	static const char cause_tids[] = "marker cause thread ids (tid of a marker's stack)";
	uint64_t gt = 0, pt = 0;
	for (uint32_t d = 0; d < g->diags.len; d++)
		if (strcmp(pv_str(g, g->diags.msg[d]), cause_tids) == 0)
			gt = g->diags.count[d];
	for (uint32_t d = 0; d < p->diags.len; d++)
		if (strcmp(pv_str(p, p->diags.msg[d]), cause_tids) == 0)
			pt = p->diags.count[d];
	T_EQ_U64(gt, 12);
	T_EQ_U64(pt, gt);
	pv_profile_free(g);
	pv_profile_free(p);
}

/* ---- gecko-2.json: Gecko 13, old marker rows ---- */

T_TEST(gecko_2_old_version)
{
	struct pv_profile *p = t_load_format(t_data("firefox/gecko-2.json"), NULL);
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.format), "firefox-gecko");
	T_EQ_STR(pv_str(p, p->meta.format_version), "13");
	T_EQ_INT(p->threads.len, 3);
	T_EQ_INT(p->samples.len, 21);
	T_EQ_INT(p->categories.len, 8);
	/* libs without "offset" (what stops the Firefox Profiler) read as offset 0 */
	pv_func_ix f = t_find_func(p, "0x100000f84");
	T_EQ_STR(module_of(p, f), "firefox");
	/* the sub-process (tab) is shifted by its start time, 1000 ms later */
	T_EQ_INT(pv_sample_time(p, p->threads.sample_begin[2]), 1000000000);
	/* {name, time, data} rows became phases (upgrader 20) */
	uint32_t ph[4] = {0};
	T_EQ_INT(thread_markers(p, 0, ph), 10);
	T_EQ_INT(thread_markers(p, 1, ph), 8);
	T_EQ_INT(thread_markers(p, 2, ph), 10);
	T_EQ_INT(ph[PV_PHASE_INSTANT], 4);
	T_EQ_INT(ph[PV_PHASE_INTERVAL], 6);
	T_EQ_INT(ph[PV_PHASE_START], 9);
	T_EQ_INT(ph[PV_PHASE_END], 9);
	uint32_t m = nth_marker(p, 0, 8); /* MinorGC {startTime: 11, endTime: 12} */
	T_EQ_STR(pv_str(p, p->markers.name[m]), "MinorGC");
	T_EQ_INT(p->markers.phase[m], PV_PHASE_INTERVAL);
	T_EQ_INT(p->markers.start_ns[m], 11000000);
	T_EQ_INT(p->markers.end_ns[m], 12000000);
	T_EQ_STR(pv_str(p, p->markers.payload[m]), "{}");
	T_EQ_STR(pv_str(p, p->categories.name[p->markers.category[m]]), "Other");
	m = nth_marker(p, 0, 1); /* tracing, interval start, with a stack */
	T_EQ_STR(pv_str(p, p->markers.name[m]), "Reflow");
	T_EQ_INT(p->markers.phase[m], PV_PHASE_START);
	T_EQ_STR(pv_str(p, p->categories.name[p->markers.category[m]]), "Graphics");
	T_TRUE(p->markers.cause_stack[m] != PV_NONE);
	/* DiskIO became FileIO (upgrader 15); tracing DOMEvent a DOMEvent with latency (21) */
	m = nth_marker(p, 2, 9);
	T_EQ_STR(pv_str(p, p->markers.name[m]), "FileIO");
	T_EQ_INT(p->markers.start_ns[m], 1013500000);
	T_EQ_INT(p->markers.end_ns[m], 1014000000);
	T_CONTAINS(pv_str(p, p->markers.payload[m]), "{\"type\":\"FileIO\",\"operation\":\"stat\"");
	m = nth_marker(p, 2, 5);
	T_EQ_STR(pv_str(p, p->markers.name[m]), "DOMEvent");
	T_EQ_STR(pv_str(p, p->categories.name[p->markers.category[m]]), "DOM");
	T_CONTAINS(pv_str(p, p->markers.payload[m]), "{\"type\":\"DOMEvent\",");
	T_CONTAINS(pv_str(p, p->markers.payload[m]), ",\"latency\":1.45}");
	/* "AutoEntryScript " left the frame names (upgrader 14) */
	T_TRUE(t_find_func(p, "Promise resolution or rejection") != PV_NONE);
	pv_profile_free(p);
}

/* ---- the DevTools performance panel's export ---- */

T_TEST(gecko_devtools_export)
{
	struct pv_profile *p =
	    t_load_format(t_corpus("speedscope/Firefox/59/simple-firefox.json"), NULL);
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.format), "firefox-gecko");
	T_EQ_STR(pv_str(p, p->meta.format_version), "9");
	T_EQ_INT(p->threads.len, 1);
	T_EQ_INT(p->samples.len, 38);
	T_EQ_INT(p->markers.len, 5);
	pv_profile_free(p);
	/* its profile starts past the probe's first megabyte: found by the file's end */
	p = t_load_format(t_corpus("speedscope/Firefox/59/firefox.json"), NULL);
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.format), "firefox-gecko");
	T_EQ_INT(p->samples.len, 10161);
	T_EQ_INT(p->markers.len, 2747);
	pv_profile_free(p);
}

/* ---- location strings ---- */

#define LOC_PROFILE(strings, frames)                                                              \
	"{\"meta\":{\"version\":36,\"startTime\":5,\"interval\":0.5,"                             \
	"\"extensions\":{\"schema\":{\"id\":0,\"name\":1,\"baseURL\":2},"                         \
	"\"data\":[[\"e@x\",\"My Ext\",\"moz-extension://abc/\"]]}},"                             \
	"\"libs\":[{\"start\":8192,\"end\":12288,\"offset\":16,\"name\":\"libb.so\",\"path\":\"/" \
	"b\"},"                                                                                   \
	"{\"start\":4096,\"end\":8192,\"name\":\"liba.so\",\"path\":\"/a\"}],"                    \
	"\"threads\":[{\"name\":\"T\",\"tid\":\"7\",\"pid\":\"x\","                               \
	"\"samples\":{\"schema\":{\"stack\":0,\"time\":1},\"data\":[[0,0.25],[null,1]]},"         \
	"\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[[null,0]]},"             \
	"\"frameTable\":{\"schema\":{\"location\":0,\"line\":1,\"column\":2},\"data\":[" frames   \
	"]},"                                                                                     \
	"\"stringTable\":[" strings "]}]}"

T_TEST(gecko_location_strings)
{
	static const char json[] = LOC_PROFILE(
	    "\"(root)\",\"0x1234\",\"0x2010\",\"0x9999999\",\"0xzz\","
	    "\"Foo::bar() (in libxul.so) + 42\",\"non-virtual thunk to Baz (in libxul.so)\","
	    "\"qux (in libc.so) (malloc.c:12)\",\"fn (https://Example.COM:443/app.js:10:5)\","
	    "\"https://x.org/b.js:3\",\"load (resource://a.js -> chrome://b/c.js:7:1)[2]\","
	    "\"ext (moz-extension://abc/x.js:1:1)\",\"nsThread::ProcessNextEvent\"",
	    "[0],[1],[2],[3],[4],[5],[6],[7],[8,99,null],[9],[10],[11],[12]");
	struct pv_profile *p;
	struct pv_error err;
	if (t_import_str("t.json", json, "firefox-gecko", &p, &err)) {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
		return;
	}
	T_EQ_INT(p->meta.interval_ns, 500000);
	T_EQ_INT(p->meta.start_unix_ns, 5000000);
	T_EQ_INT(p->threads.tid[0], 7);
	T_EQ_INT(p->threads.pid[0], PV_ID_NONE);
	T_EQ_INT(pv_sample_time(p, 0), 250000);
	T_EQ_INT(p->samples.stack[1], PV_NONE);
	/* name as written; module the lib holding it; address lib-relative (+ offset) */
	struct {
		const char *name, *module;
		uint64_t addr;
	} addrs[] = {
	    {"0x1234", "liba.so", 0x234},
	    {"0x2010", "libb.so", 0x20},
	    {"0x9999999", "", 0x9999999},
	    {"0xzz", "", PV_ADDR_NONE},
	};
	for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		pv_func_ix f = t_find_func(p, addrs[i].name);
		T_TRUE(f != PV_NONE);
		T_EQ_STR(module_of(p, f), addrs[i].module);
		for (uint32_t fr = 0; fr < p->frames.len; fr++)
			if (p->frames.func[fr] == f)
				T_EQ_U64(pv_frame_addr(p, fr), addrs[i].addr);
	}
	T_EQ_STR(module_of(p, t_find_func(p, "Foo::bar()")), "libxul.so");
	T_EQ_STR(module_of(p, t_find_func(p, "Baz")), "libxul.so");
	T_EQ_STR(module_of(p, t_find_func(p, "qux")), "libc.so");
	T_EQ_INT(p->modules.kind[pv_func_module(p, t_find_func(p, "qux"))], PV_MODULE_LIBRARY);
	pv_func_ix f = t_find_func(p, "fn");
	T_EQ_STR(module_of(p, f), "https://example.com");
	T_EQ_INT(p->modules.kind[pv_func_module(p, f)], PV_MODULE_RESOURCE);
	T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, f)]),
		 "https://Example.COM:443/app.js");
	T_EQ_INT(pv_func_line(p, f), 10);
	for (uint32_t fr = 0; fr < p->frames.len; fr++) {
		if (p->frames.func[fr] != f)
			continue;
		T_EQ_INT(pv_frame_line(p, fr), 99); /* the frameTable's line wins */
		T_EQ_INT(pv_frame_column(p, fr), 5);
	}
	f = t_find_func(p, "(root scope) https://x.org/b.js");
	T_EQ_STR(module_of(p, f), "https://x.org");
	T_EQ_INT(pv_func_line(p, f), 3);
	f = t_find_func(p, "load");
	T_EQ_STR(module_of(p, f), "chrome://b/c.js");
	T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, f)]), "chrome://b/c.js");
	T_EQ_INT(pv_func_line(p, f), 7);
	T_EQ_STR(module_of(p, t_find_func(p, "ext")), "Extension \"My Ext\" (ID: e@x)");
	f = t_find_func(p, "nsThread::ProcessNextEvent");
	T_EQ_INT(pv_func_module(p, f), PV_NONE);
	T_EQ_INT(pv_func_source(p, f), PV_NONE);
	pv_profile_free(p);
}

/* ---- key order: the same profile however its keys are ordered ---- */

#define KO_META	     "\"meta\":{\"version\":36,\"startTime\":1000,\"interval\":1}"
#define KO_LIBS	     "\"libs\":[{\"start\":4096,\"end\":8192,\"name\":\"liba.so\"}]"
#define KO_SUB_META  "\"meta\":{\"version\":36,\"startTime\":1500.5}"
#define KO_SAMPLES_S "\"schema\":{\"stack\":0,\"time\":1}"
#define KO_SAMPLES_D "\"data\":[[1,0],[2,1],[0,2.5]]"
#define KO_STACKS_S  "\"schema\":{\"frame\":1,\"prefix\":0}"
#define KO_STACKS_D  "\"data\":[[null,0],[0,1],[1,2]]"
#define KO_FRAMES_S  "\"schema\":{\"location\":0}"
#define KO_FRAMES_D  "\"data\":[[0],[1],[2]]"
#define KO_MARKERS_S                                                                       \
	"\"schema\":{\"name\":0,\"startTime\":1,\"endTime\":2,\"phase\":3,\"category\":4," \
	"\"data\":5}"
#define KO_MARKERS_D                                                                          \
	"\"data\":[[3,5,null,0,null,{\"type\":\"T\",\"startTime\":5,\"stack\":{\"samples\":{" \
	"\"data\":[[2,4]],\"schema\":{\"stack\":0,\"time\":1}}}}],[3,1,2,1,null,null]]"
#define KO_STRINGS "\"stringTable\":[\"(root)\",\"0x1010\",\"f (https://a.org/x.js:1)\",\"M\"]"
#define KO_THREAD_ORDERED                                                                 \
	"{\"name\":\"T\",\"samples\":{" KO_SAMPLES_S "," KO_SAMPLES_D                     \
	"},\"stackTable\":{" KO_STACKS_S "," KO_STACKS_D "},\"frameTable\":{" KO_FRAMES_S \
	"," KO_FRAMES_D "},\"markers\":{" KO_MARKERS_S "," KO_MARKERS_D "}," KO_STRINGS "}"
#define KO_THREAD_REVERSED                                                                \
	"{" KO_STRINGS ",\"markers\":{" KO_MARKERS_D "," KO_MARKERS_S                     \
	"},\"frameTable\":{" KO_FRAMES_D "," KO_FRAMES_S "},\"stackTable\":{" KO_STACKS_D \
	"," KO_STACKS_S "},\"samples\":{" KO_SAMPLES_D "," KO_SAMPLES_S "},\"name\":\"T\"}"

/* threads, their samples as stack paths with times, markers with their payloads and causes */
static void fingerprint(const struct pv_profile *p, char *out, size_t n)
{
	out[0] = 0;
	char line[512], path[256];
	for (uint32_t t = 0; t < p->threads.len; t++) {
		snprintf(line, sizeof(line), "thread %s %lld\n", pv_str(p, p->threads.name[t]),
			 (long long)p->threads.pid[t]);
		text_append(out, n, line);
		for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t]; s++) {
			t_stack_path(p, p->samples.stack[s], " > ", path, sizeof(path));
			snprintf(line, sizeof(line), "  %lld %s\n", (long long)pv_sample_time(p, s),
				 path);
			text_append(out, n, line);
		}
	}
	for (uint32_t m = 0; m < p->markers.len; m++) {
		t_stack_path(p, p->markers.cause_stack[m], " > ", path, sizeof(path));
		snprintf(line, sizeof(line), "marker %u %s %u %lld %lld %s %lld %s\n",
			 p->markers.thread[m], pv_str(p, p->markers.name[m]), p->markers.phase[m],
			 (long long)p->markers.start_ns[m], (long long)p->markers.end_ns[m],
			 pv_str(p, p->markers.payload[m]), (long long)p->markers.cause_time_ns[m],
			 path);
		text_append(out, n, line);
	}
}

T_TEST(gecko_key_order)
{
	static const char ordered[] = "{" KO_META "," KO_LIBS ",\"threads\":[" KO_THREAD_ORDERED
				      "],\"processes\":[{" KO_SUB_META "," KO_LIBS
				      ",\"threads\":[" KO_THREAD_ORDERED "],\"processes\":[]}]}";
	/* data before schema, stringTable first, threads before meta and libs, processes first */
	static const char reversed[] =
	    "{\"processes\":[{\"threads\":[" KO_THREAD_REVERSED "]," KO_LIBS "," KO_SUB_META
	    "}],\"threads\":[" KO_THREAD_REVERSED "]," KO_LIBS "," KO_META "}";
	static const char expected[] =
	    "thread T -9223372036854775808\n"
	    "  0 (root) > 0x1010\n"
	    "  1000000 (root) > 0x1010 > f\n"
	    "  2500000 (root)\n"
	    "thread T -9223372036854775808\n"
	    "  500500000 (root) > 0x1010\n"
	    "  501500000 (root) > 0x1010 > f\n"
	    "  503000000 (root)\n"
	    "marker 0 M 1 1000000 2000000  -9223372036854775808 \n"
	    "marker 0 M 0 5000000 -9223372036854775808 {\"type\":\"T\",\"startTime\":5} 4000000 "
	    "(root) > 0x1010 > f\n"
	    "marker 1 M 1 501500000 502500000  -9223372036854775808 \n"
	    "marker 1 M 0 505500000 -9223372036854775808 {\"type\":\"T\",\"startTime\":505.5} "
	    "504500000 (root) > 0x1010 > f\n";
	const char *inputs[] = {ordered, reversed};
	for (int i = 0; i < 2; i++) {
		struct pv_profile *p;
		struct pv_error err;
		if (t_import_str("t.json", inputs[i], "firefox-gecko", &p, &err)) {
			t_fail(__FILE__, __LINE__, "input %d: %s", i, err.msg);
			continue;
		}
		char fp[4096];
		fingerprint(p, fp, sizeof(fp));
		T_EQ_STR(fp, expected);
		pv_profile_free(p);
	}
}

/* ---- malformed input: positioned errors ---- */

#define BAD_HEAD                                                                               \
	"{\"meta\":{\"version\":36,\"categories\":[{\"name\":\"Other\",\"color\":\"grey\"}]}," \
	"\"libs\":[],\"threads\":[{\"name\":\"T\","
#define BAD_SAMPLES(rows) "\"samples\":{\"schema\":{\"stack\":0,\"time\":1},\"data\":[" rows "]},"
#define BAD_STACKS(rows) \
	"\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[" rows "]},"
#define BAD_FRAMES(rows) \
	"\"frameTable\":{\"schema\":{\"location\":0,\"category\":1},\"data\":[" rows "]},"
#define BAD_MARKERS(rows)                                                                \
	"\"markers\":{\"schema\":{\"name\":0,\"startTime\":1,\"endTime\":2,\"phase\":3," \
	"\"category\":4,\"data\":5},\"data\":[" rows "]},"
#define BAD_TAIL "\"stringTable\":[\"a\",\"b\"]}]}"

struct bad_case {
	const char *json;
	const char *at; /* the error's position: the first occurrence of this text ... */
	int skip;	/* ... plus these bytes; NULL at: no position */
	int code;
	const char *msg; /* after "t.json: line 1, column N: " */
};

static const struct bad_case bad_cases[] = {
    {BAD_HEAD BAD_STACKS("[null,0],[7,0]") BAD_FRAMES("[0,null]") BAD_TAIL, "[7,", 1, PV_EPARSE,
     "expected a stack prefix below 1 (the row's own index) or null, found 7"},
    {BAD_HEAD BAD_STACKS("[null,0],[1,0]") BAD_FRAMES("[0,null]") BAD_TAIL, "[1,0]", 1, PV_EPARSE,
     "expected a stack prefix below 1 (the row's own index) or null, found 1"},
    {BAD_HEAD BAD_STACKS("[null,0],[0,3]") BAD_FRAMES("[0,null]") BAD_TAIL, "3]", 0, PV_EPARSE,
     "expected a frame index below 1 (the frameTable's length), found 3"},
    {BAD_HEAD BAD_STACKS("[null,\"x\"]") BAD_TAIL, "\"x\"", 0, PV_EPARSE,
     "expected a frame index, found a string"},
    {BAD_HEAD BAD_STACKS("[null]") BAD_TAIL, "[null]", 0, PV_EPARSE,
     "expected a frame index, found no cell"},
    {BAD_HEAD BAD_STACKS("[-1,0]") BAD_TAIL, "-1", 0, PV_EPARSE,
     "expected a stack prefix or null, found -1"},
    {BAD_HEAD BAD_FRAMES("[0,null],[5,null]") BAD_TAIL, "5,", 0, PV_EPARSE,
     "expected a string index below 2 (the stringTable's length), found 5"},
    {BAD_HEAD BAD_FRAMES("[0,3]") BAD_TAIL, "3]", 0, PV_EPARSE,
     "expected a category index below 1 (the length of meta.categories), found 3"},
    {BAD_HEAD BAD_FRAMES("[0,{}]") BAD_TAIL, "{}", 0, PV_EPARSE,
     "expected a number, a string or null in frameTable column 'category', found an object"},
    {BAD_HEAD BAD_SAMPLES("[0,1],[4,2]") BAD_STACKS("[null,0]") BAD_FRAMES("[0,null]") BAD_TAIL,
     "4,", 0, PV_EPARSE,
     "expected a stack index below 1 (the stackTable's length) or null, found 4"},
    {BAD_HEAD BAD_SAMPLES("[null,true]") BAD_TAIL, "true", 0, PV_EPARSE,
     "expected a time in milliseconds, found a boolean"},
    {BAD_HEAD BAD_SAMPLES("7") BAD_TAIL, "7]", 0, PV_EPARSE,
     "expected a samples row (an array), found a number"},
    {BAD_HEAD "\"samples\":{\"data\":[[0,1]]}," BAD_TAIL, "[[0", 0, PV_EPARSE,
     "expected a \"schema\" for the samples rows"},
    {BAD_HEAD "\"samples\":{\"schema\":{\"stack\":99},\"data\":[]}," BAD_TAIL, "99", 0, PV_EPARSE,
     "expected a column index below 64, found 99"},
    {BAD_HEAD BAD_MARKERS("[0,1,null,7,null,null]") BAD_TAIL, "7,", 0, PV_EPARSE,
     "expected a marker phase (0 to 3), found 7"},
    {BAD_HEAD BAD_MARKERS("[0,1,null,0,null,null],[9,1,null,0,null,null]") BAD_TAIL, "9,", 0,
     PV_EPARSE, "expected a string index below 2 (the stringTable's length), found 9"},
    {BAD_HEAD BAD_MARKERS("[0,1,null,0,null,\"x\"]") BAD_TAIL, "\"x\"", 0, PV_EPARSE,
     "expected a marker payload (an object) or null, found a string"},
    {BAD_HEAD BAD_MARKERS("[0,1,null,0,2,null]") BAD_TAIL, "2,null]", 0, PV_EPARSE,
     "expected a category index below 1 (the length of meta.categories), found 2"},
    {BAD_HEAD BAD_MARKERS(
	 "[0,1,null,0,null,{\"stack\":{\"samples\":{\"schema\":{\"stack\":0},\"data\":[[5]]}}}]")
	 BAD_TAIL,
     "{\"stack\"", 0, PV_EPARSE,
     "expected a marker stack index below 0 (the stackTable's length), found 5"},
    {"[1]", "[", 0, PV_EPARSE, "expected a Gecko profile (a JSON object), found an array"},
    {"{\"threads\":[]}", "{", 0, PV_EPARSE, "expected a \"meta\" object in the Gecko profile"},
    {"{\"meta\":{\"version\":36},\"processes\":[{\"threads\":[]}]}", "{\"threads", 0, PV_EPARSE,
     "expected a \"meta\" object in the sub-process profile"},
    {"{\"meta\":{\"version\":\"36\"}}", "\"36\"", 0, PV_EPARSE,
     "expected meta.version (a number), found a string"},
    {"{\"meta\":{\"version\":36},\"threads\":{}}", "{}", 0, PV_EPARSE,
     "expected \"threads\" (an array), found an object"},
    {"{\"meta\":{\"version\":36}", NULL, 0, PV_EPARSE, NULL},
    {"{\"meta\":{\"version\":37}}", NULL, 0, PV_EFORMAT,
     "t.json: Gecko profile version 37 is not supported (profview reads versions 5 to 36)"},
    {"{\"meta\":{\"version\":4}}", NULL, 0, PV_EFORMAT,
     "t.json: Gecko profile version 4 is not supported (profview reads versions 5 to 36)"},
    {"{\"meta\":{\"startTime\":1}}", NULL, 0, PV_EFORMAT,
     "t.json: not a Gecko profile profview reads: meta has no \"version\""},
    {"{\"meta\":{\"version\":36,\"preprocessedProfileVersion\":70}}", NULL, 0, PV_EFORMAT,
     "t.json: a processed Firefox profile (meta.preprocessedProfileVersion), not a Gecko one: read "
     "it as firefox-processed"},
};

T_TEST(gecko_malformed_inputs)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct pv_profile *p;
		struct pv_error err;
		int rc = t_import_str("t.json", c->json, "firefox-gecko", &p, &err);
		if (rc == 0) {
			t_fail(__FILE__, __LINE__, "case %zu: imported, expected an error", i);
			pv_profile_free(p);
			continue;
		}
		T_EQ_INT(rc, c->code);
		char want[600];
		if (c->at) {
			const char *a = strstr(c->json, c->at);
			long col = a ? (long)(a - c->json) + 1 + c->skip : -1;
			snprintf(want, sizeof(want), "t.json: line 1, column %ld: %s", col, c->msg);
			if (strcmp(err.msg, want) != 0)
				t_fail(__FILE__, __LINE__, "case %zu:\n  got  %s\n  want %s", i,
				       err.msg, want);
			T_EQ_INT(err.has_pos, 1);
			T_EQ_INT(err.column, col);
		} else if (c->msg) {
			T_EQ_STR(err.msg, c->msg);
		} else {
			T_CONTAINS(err.msg, "t.json: line 1, column ");
		}
	}
}

T_TEST(gecko_probe)
{
	static const char gecko[] = "{\"meta\":{\"version\":36},\"threads\":[]}";
	struct pv_profile *p = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_memory("g.json", gecko, strlen(gecko), NULL, &p, &err), 0);
	if (p)
		T_EQ_STR(pv_str(p, p->meta.format), "firefox-gecko");
	pv_profile_free(p);
	p = t_load_format(t_data("firefox/generated-processed-v70-from-gecko.json"), NULL);
	if (p)
		T_EQ_STR(pv_str(p, p->meta.format), "firefox-processed");
	pv_profile_free(p);
}

T_TEST(gecko_allocation_failures)
{
	static const char json[] =
	    "{" KO_META "," KO_LIBS ",\"threads\":[" KO_THREAD_ORDERED
	    "],\"processes\":[{" KO_SUB_META "," KO_LIBS ",\"threads\":[" KO_THREAD_REVERSED "]}]}";
	int failed = 0;
	struct pv_profile *p =
	    t_import_oom("oom.json", json, strlen(json), "firefox-gecko", 600, &failed);
	T_TRUE(p != NULL);
	pv_profile_free(p);
	T_TRUE(failed > 20);
}

/*
 * Location strings of two anonymous functions on one line of minified code, "(anonymous)
 * (URL:1:10)" and "(anonymous) (URL:1:50)", are two functions (the Firefox Profiler makes a
 * function of each location string); the same string twice is one.
 */
T_TEST(gecko_function_columns)
{
	static const char json[] = LOC_PROFILE(
	    "\"(anonymous) (https://a.org/x.min.js:1:10)\",\"(anonymous) "
	    "(https://a.org/x.min.js:1:50)\","
	    "\"(anonymous) (https://a.org/x.min.js:1:10)\",\"f (https://a.org/x.min.js:1)\"",
	    "[0],[1],[2],[3]");
	struct pv_profile *p;
	struct pv_error err;
	if (t_import_str("t.json", json, "firefox-gecko", &p, &err)) {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
		return;
	}
	uint32_t n = 0, cols = 0;
	for (pv_func_ix f = 0; f < p->funcs.len; f++) {
		if (strcmp(pv_str(p, p->funcs.name[f]), "(anonymous)") != 0)
			continue;
		n++;
		T_EQ_INT(pv_func_line(p, f), 1);
		cols += pv_func_column(p, f);
	}
	T_EQ_INT(n, 2);
	T_EQ_INT(cols, 10 + 50);
	pv_func_ix f = t_find_func(p, "f");
	T_EQ_INT(pv_func_column(p, f), 0); /* no column written */
	pv_profile_free(p);
}

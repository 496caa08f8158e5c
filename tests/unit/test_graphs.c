/*
 * test_graphs.c - the page's analyses in libpv, without the web front end: thread selection
 * (pv_thread_select), the flame graph (pv_flame_build), row keys and their resolution
 * (pv/rows.h), per-thread costs of a row (pv_thread_costs), activity (pv_activity_build), the
 * marker chart (pv_marker_chart) and the schemas' display locations (pv_markers_displayed).
 * Expected figures are worked out by hand from the input files (comments say how).
 */
#include <stdlib.h>
#include <string.h>

#include "pv/graphs.h"
#include "pv/import.h"
#include "pv/info.h"
#include "pv/rows.h"
#include "t.h"
#include "tp.h"

static struct pv_profile *import_text(const char *text, const char *format)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	if (pv_import_memory("test", text, strlen(text), format, &p, &err))
		t_fail(__FILE__, __LINE__, "cannot import: %s", err.msg);
	return p;
}

static struct pv_view *view(const struct pv_profile *p, enum pv_view_kind kind, const char *center)
{
	struct pv_query q;
	pv_query_init(&q);
	q.view = kind;
	if (center)
		T_EQ_INT(pv_query_add_center(&q, center), 0);
	struct pv_view *v = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	T_EQ_INT(pv_view_compute(p, &q, &v, &err), 0);
	pv_query_release(&q);
	return v;
}

/* two threads of one process: main;foo (2 samples, tid 100), main;bar and main;foo (tid 101) */
static const char TWO_THREADS[] =
    "app 7/100 1.000000: 1 cycles:\n\t1 foo (/bin/app)\n\t2 main "
    "(/bin/app)\n\napp 7/100 1.001000: 1 cycles:\n\t1 foo (/bin/app)\n"
    "\t2 main (/bin/app)\n\nwrk 7/101 1.002000: 1 cycles:\n\t3 bar "
    "(/bin/app)\n\t2 main (/bin/app)\n\nwrk 7/101 1.003000: 1 cycles:\n"
    "\t1 foo (/bin/app)\n\t2 main (/bin/app)\n\n";

T_TEST(graphs_thread_select)
{
	struct pv_profile *p = import_text(TWO_THREADS, "perf-script");
	T_EQ_INT(p->threads.len, 2);
	pv_thread_ix *t = NULL;
	uint32_t n = 0;
	struct pv_error err;
	pv_error_clear(&err);
	/* no names: every thread; a tid and a name finding the same thread: it once */
	T_EQ_INT(pv_thread_select(p, NULL, 0, &t, &n, &err), 0);
	T_EQ_INT(n, 2);
	free(t);
	const char *both[] = {"101", "wrk", "100"};
	T_EQ_INT(pv_thread_select(p, both, 3, &t, &n, &err), 0);
	T_EQ_INT(n, 2);
	T_EQ_INT(t[0], 0); /* index order, not the names' */
	T_EQ_INT(t[1], 1);
	free(t);
	/* re:REGEX: every thread whose name matches ("app" and "wrk": only wrk ends in k) */
	const char *re[] = {"re:k$"};
	T_EQ_INT(pv_thread_select(p, re, 1, &t, &n, &err), 0);
	T_EQ_INT(n, 1);
	T_EQ_INT(t[0], 1);
	free(t);
	const char *nore[] = {"re:^z"};
	T_EQ_INT(pv_thread_select(p, nore, 1, &t, &n, &err), PV_EINVAL);
	T_CONTAINS(err.msg, "no thread name matches 're:^z'");
	T_TRUE(t == NULL && n == 0);
	const char *nope[] = {"100", "nope"};
	T_EQ_INT(pv_thread_select(p, nope, 2, &t, &n, &err), PV_EINVAL);
	T_CONTAINS(err.msg, "no thread named 'nope'");
	T_TRUE(t == NULL && n == 0);
	pv_profile_free(p);
}

T_TEST(graphs_thread_costs)
{
	struct pv_profile *p = import_text(TWO_THREADS, "perf-script");
	struct pv_view *v = view(p, PV_VIEW_TREE, NULL);
	/* main/foo: 2 samples on tid 100, 1 on tid 101 */
	struct pv_row_ref ref;
	const char *key = NULL;
	uint32_t main_f = PV_NONE, foo_f = PV_NONE;
	for (uint32_t f = 0; f < p->funcs.len; f++) {
		if (strcmp(pv_str(p, p->funcs.name[f]), "main") == 0)
			main_f = f;
		if (strcmp(pv_str(p, p->funcs.name[f]), "foo") == 0)
			foo_f = f;
	}
	char kb[64];
	snprintf(kb, sizeof(kb), "f%u/f%u", main_f, foo_f);
	key = kb;
	T_TRUE(pv_view_find(v, key, &ref));
	T_EQ_INT(ref.tree->id[ref.row], foo_f);
	struct pv_thread_costs *tc = NULL;
	T_EQ_INT(pv_thread_costs(v, &v->q, key, &ref, &tc), 0);
	T_EQ_INT(tc->nr_threads, 2);
	T_TRUE(!tc->truncated && tc->known[0] && tc->known[1]);
	T_EQ_INT(tc->total[0 * tc->nr_metrics], 2);
	T_EQ_INT(tc->total[1 * tc->nr_metrics], 1);
	T_EQ_INT(tc->self[1 * tc->nr_metrics], 1);
	pv_thread_costs_free(tc);
	pv_view_free(v);
	pv_profile_free(p);
}

/* The row of t whose function is named name under parent (PV_NONE: a root). */
static uint32_t child(const struct pv_profile *p, const struct pv_tree *t, uint32_t parent,
		      const char *name)
{
	const uint32_t *list = parent == PV_NONE ? t->roots : t->children + t->child_first[parent];
	uint32_t n = parent == PV_NONE ? t->nr_roots : t->child_len[parent];
	for (uint32_t i = 0; i < n; i++)
		if (t->kind[list[i]] == PV_ROW_FUNCTION &&
		    strcmp(pv_str(p, p->funcs.name[t->id[list[i]]]), name) == 0)
			return list[i];
	return PV_NONE;
}

T_TEST(graphs_row_keys)
{
	struct pv_profile *p = t_load_data("collapsed/worked-example.txt");
	struct pv_view *v = view(p, PV_VIEW_TREE, NULL);
	const struct pv_tree *t = v->tree;
	uint32_t m = child(p, t, PV_NONE, "main"), rm = child(p, t, m, "real_main");
	uint32_t foo = child(p, t, rm, "foo");
	char key[64];
	snprintf(key, sizeof(key), "f%u/f%u/f%u", t->id[m], t->id[rm], t->id[foo]);
	struct pv_row_ref ref;
	T_TRUE(pv_view_find(v, key, &ref));
	T_TRUE(ref.tree == t && ref.row == foo && strcmp(ref.prefix, "") == 0);
	/* a leading zero, a missing step, a trailing '/', a prefix on a plain tree: no row */
	T_TRUE(!pv_view_find(v, "f0/", &ref));
	T_TRUE(!pv_view_find(v, "f00", &ref));
	T_TRUE(!pv_view_find(v, "f999", &ref));
	T_TRUE(!pv_view_find(v, "up:f0", &ref));
	pv_view_free(v);
	/* a butterfly on foo: the callers' rows under "up:", the callees' under "down:" (the
	 * center row c first), found in the right tree */
	v = view(p, PV_VIEW_BUTTERFLY, "foo");
	T_TRUE(pv_view_find(v, "down:c", &ref));
	T_TRUE(ref.tree == v->tree && ref.tree->kind[ref.row] == PV_ROW_CENTER);
	T_TRUE(pv_view_find(v, "up:c", &ref));
	T_TRUE(ref.tree == v->callers && strcmp(ref.prefix, "up:") == 0);
	T_TRUE(!pv_view_find(v, "c", &ref));
	pv_view_free(v);
	pv_profile_free(p);
}

T_TEST(graphs_flame)
{
	/* worked example: main 26 > real_main 15 > foo 11 (10 + 1) is the heaviest chain, then
	 * main > foo 7 (5 + 2); three nodes asked: main, real_main and real_main's foo */
	struct pv_profile *p = t_load_data("collapsed/worked-example.txt");
	struct pv_view *v = view(p, PV_VIEW_TREE, NULL);
	struct pv_flame *fl = NULL;
	struct pv_flame_opts o = {3, 0};
	T_EQ_INT(pv_flame_build(v, &o, &fl), 0);
	T_EQ_INT(fl->nr_graphs, 1);
	T_EQ_INT(fl->len, 4); /* the virtual root and three rows */
	const struct pv_tree *t = v->tree;
	uint32_t m = child(p, t, PV_NONE, "main"), rm = child(p, t, m, "real_main");
	uint32_t kept[3] = {PV_NONE, PV_NONE, PV_NONE};
	for (uint32_t i = 1; i < fl->len; i++)
		kept[i - 1] = fl->row[i];
	T_TRUE(kept[0] == m || kept[1] == m || kept[2] == m);
	T_TRUE(kept[0] == rm || kept[1] == rm || kept[2] == rm);
	T_TRUE(kept[0] == child(p, t, rm, "foo") || kept[1] == child(p, t, rm, "foo") ||
	       kept[2] == child(p, t, rm, "foo"));
	pv_flame_free(fl);
	/* 26 on 5 pixels: a pixel is 6 (rounded up); main 26, real_main 15, its foo 11, that
	 * foo's bar 10 and main's foo 7 are kept, main > foo > baz (5) and qux (3) are not */
	o = (struct pv_flame_opts){1000, 5};
	T_EQ_INT(pv_flame_build(v, &o, &fl), 0);
	T_EQ_INT(fl->len, 6);
	for (uint32_t i = 1; i < fl->len; i++)
		T_TRUE(t->total[0][fl->row[i]] >= 6);
	pv_flame_free(fl);
	pv_view_free(v);
	/* a butterfly: two graphs, node 1 the callers' virtual root */
	v = view(p, PV_VIEW_BUTTERFLY, "malloc");
	o = (struct pv_flame_opts){100, 0};
	T_EQ_INT(pv_flame_build(v, &o, &fl), 0);
	T_EQ_INT(fl->nr_graphs, 2);
	T_EQ_INT(fl->graph[1], 1);
	T_EQ_INT(fl->row[1], PV_NONE);
	pv_flame_free(fl);
	pv_view_free(v);
	pv_profile_free(p);
}

T_TEST(graphs_flame_zoom_layout)
{
	/* worked-example: main 26 > real_main 15 (foo 11 > bar 10, malloc 4), foo 7 (baz 5,
	 * bar 2 > foo 2 > baz 2), qux 3 > malloc 3. In 26 columns a column is a sample. */
	struct pv_profile *p = t_load_data("collapsed/worked-example.txt");
	struct pv_view *v = view(p, PV_VIEW_TREE, NULL);
	const struct pv_tree *t = v->tree;
	uint32_t m = child(p, t, PV_NONE, "main"), foo = child(p, t, m, "foo");
	struct pv_flame *fl = NULL;
	struct pv_flame_opts o = {1000, 26};
	T_EQ_INT(pv_flame_build(v, &o, &fl), 0);
	T_EQ_INT(fl->zoom, 0);
	uint32_t x0[16], x1[16], d[16];
	T_TRUE(fl->len <= 16);
	T_EQ_INT(pv_flame_layout(fl, 26, x0, x1, d), 0);
	/* main's children: real_main [0, 15), foo [15, 22), qux [22, 25) */
	for (uint32_t k = 1; k < fl->len; k++) {
		if (fl->row[k] == foo) {
			T_EQ_INT(x0[k], 15);
			T_EQ_INT(x1[k], 22);
			T_EQ_INT(d[k], 2);
		}
		if (fl->row[k] == m) {
			T_EQ_INT(x0[k], 0);
			T_EQ_INT(x1[k], 26);
			T_EQ_INT(d[k], 1);
		}
	}
	pv_flame_free(fl);
	/* zoomed into main > foo (7) in 70 columns: main and foo span them, baz 5 -> [0, 50),
	 * bar 2 -> [50, 70), its foo and baz too; real_main and qux are not nodes */
	o = (struct pv_flame_opts){1000, 70};
	T_EQ_INT(pv_flame_build_zoomed(v, &o, foo, &fl), 0);
	T_EQ_INT(fl->len, 7); /* the virtual root, main, foo, baz, bar, bar's foo, its baz */
	T_EQ_INT(fl->row[fl->zoom], foo);
	T_EQ_INT(pv_flame_layout(fl, 70, x0, x1, d), 0);
	T_EQ_INT(x0[fl->zoom], 0);
	T_EQ_INT(x1[fl->zoom], 70);
	T_EQ_INT(d[fl->zoom], 2);
	uint32_t baz = child(p, t, foo, "baz"), bar = child(p, t, foo, "bar");
	for (uint32_t k = 1; k < fl->len; k++) {
		T_TRUE(fl->row[k] != child(p, t, m, "real_main"));
		if (fl->row[k] == m) {
			T_EQ_INT(x0[k], 0);
			T_EQ_INT(x1[k], 70);
		}
		if (fl->row[k] == baz) {
			T_EQ_INT(x0[k], 0);
			T_EQ_INT(x1[k], 50);
		}
		if (fl->row[k] == bar) {
			T_EQ_INT(x0[k], 50);
			T_EQ_INT(x1[k], 70);
			T_EQ_INT(d[k], 3);
		}
	}
	pv_flame_free(fl);
	/* a row that is not the tree's */
	T_EQ_INT(pv_flame_build_zoomed(v, &o, t->len, &fl), PV_EINVAL);
	pv_view_free(v);
	pv_profile_free(p);
}

T_TEST(graphs_activity)
{
	/* 5 samples at 0..4 ms, one a bucket; the frames have no category: "Other" (0) */
	struct pv_profile *p = t_load_data("firefox/generated-processed-v70-calltree.json");
	struct pv_markers *ms = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	T_EQ_INT(pv_markers_derive(p, &ms, &err), 0);
	struct pv_query q;
	pv_query_init(&q);
	struct pv_activity_opts o = {.buckets = 5};
	struct pv_activity *a = NULL;
	T_EQ_INT(pv_activity_build(p, ms, &q, &o, &a, &err), 0);
	T_EQ_INT(a->start_ns, 0);
	T_EQ_INT(a->end_ns, 5000000);
	T_EQ_INT(a->nr_threads, 1);
	T_EQ_U64(a->samples[0], 5);
	for (uint32_t b = 0; b < 5; b++) {
		T_EQ_INT(a->cell_first[b + 1] - a->cell_first[b], 1);
		T_EQ_INT(a->cell_category[a->cell_first[b]], 0);
		T_EQ_INT(a->cell_cost[a->cell_first[b]], 1);
	}
	pv_activity_free(a);
	/* the query's range 2 <= t < 4 in one bucket: 2 */
	T_EQ_INT(pv_query_set_option(&q, "range", "2:4", &err), 0);
	o.buckets = 1;
	T_EQ_INT(pv_activity_build(p, ms, &q, &o, &a, &err), 0);
	T_EQ_U64(a->samples[0], 2);
	T_EQ_INT(a->cell_cost[0], 2);
	pv_activity_free(a);
	/* a window that ends before it starts */
	o = (struct pv_activity_opts){.buckets = 2,
				      .has_start = true,
				      .start_ns = 3000000,
				      .has_end = true,
				      .end_ns = 1000000};
	T_EQ_INT(pv_activity_build(p, ms, &q, &o, &a, &err), PV_EINVAL);
	pv_query_release(&q);
	pv_markers_free(ms);
	pv_profile_free(p);
}

T_TEST(graphs_marker_chart_and_display)
{
	/* the marker table file: UserTiming (0), IPCOut (2) and FileIO (6) rows of thread 0,
	 * sorted by name within the category "Other" */
	struct pv_profile *p = t_load_data("firefox/generated-processed-v70-marker-table.json");
	struct pv_markers *ms = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	T_EQ_INT(pv_markers_derive(p, &ms, &err), 0);
	struct pv_marker_search *s = NULL;
	T_EQ_INT(pv_marker_search_new("UserTiming,FileIO,ipc", &s), 0);
	struct pv_marker_select sel = {
	    .search = s, .has_range = true, .range_start_ns = 12500000, .range_end_ns = 175000000};
	struct pv_marker_chart *ch = NULL;
	T_EQ_INT(pv_marker_chart(ms, &sel, 100, &ch), 0);
	T_EQ_INT(ch->nr_rows, 3);
	T_EQ_STR(ch->row_name[0], "FileIO");
	T_EQ_STR(ch->row_name[1], "IPCOut");
	T_EQ_STR(ch->row_name[2], "UserTiming");
	T_EQ_INT(ch->nr_entries, 3);
	T_EQ_INT(ch->marker[ch->row_first[0]], 6);
	T_EQ_INT(ch->marker[ch->row_first[1]], 2);
	T_EQ_INT(ch->marker[ch->row_first[2]], 0);
	pv_marker_chart_free(ch);
	pv_marker_search_free(s);
	pv_markers_free(ms);
	pv_profile_free(p);

	/* the network file: the Network loads (no schema in the file) are in the timeline
	 * overview, TTI (no schema) is not; no marker is in a location nothing lists */
	p = t_load_data("firefox/generated-processed-v70-network.json");
	T_EQ_INT(pv_markers_derive(p, &ms, &err), 0);
	uint32_t idx[64], n = 0, tti = PV_NONE, load0 = PV_NONE;
	for (uint32_t i = 0; i < ms->len && n < 64; i++, n++) {
		idx[n] = i;
		if (strcmp(ms->name[i], "TTI") == 0)
			tti = i;
		if (strncmp(ms->name[i], "Load 0", 6) == 0)
			load0 = i;
	}
	T_TRUE(tti != PV_NONE && load0 != PV_NONE && tti < n && load0 < n);
	uint8_t shown[64];
	T_EQ_INT(pv_markers_displayed(ms, PV_DISPLAY_TIMELINE_OVERVIEW, idx, n, shown), 0);
	T_EQ_INT(shown[load0], 1);
	T_EQ_INT(shown[tti], 0);
	T_EQ_INT(pv_markers_displayed(ms, PV_DISPLAY_TIMELINE_IPC, idx, n, shown), 0);
	T_EQ_INT(shown[load0], 0);
	pv_markers_free(ms);
	pv_profile_free(p);
}

/* The busiest thread and the idle tracks (pv_profile_info): chromium-page has two renderers;
 * their active cost is the thread's total less its Idle category's ('profview top --thread
 * #N' minus the same with '--focus-category Idle': 1305157000 - 1276703000 and 1074042000 -
 * 10095000). #2 has under 5 % of #3's: idle, like the two threads without samples. */
T_TEST(graphs_busiest_thread)
{
	struct pv_profile *p = t_load_data("chrome/chromium-page.json.gz");
	struct pv_profile_info *in = NULL;
	T_EQ_INT(pv_profile_info(p, &in), 0);
	T_EQ_U64(in->busiest, 3);
	T_EQ_U64(in->threads[2].active, 28454000);
	T_EQ_U64(in->threads[3].active, 1063947000);
	T_TRUE(in->threads[0].idle && in->threads[1].idle && in->threads[2].idle);
	T_TRUE(!in->threads[3].idle);
	pv_profile_info_free(in);
	pv_profile_free(p);
	/* no category: every sample with a stack is active; a tie goes to the lower index */
	p = import_text(TWO_THREADS, "perf-script");
	T_EQ_INT(pv_profile_info(p, &in), 0);
	T_EQ_U64(in->busiest, 0);
	T_EQ_U64(in->threads[0].active, 2);
	T_EQ_U64(in->threads[1].active, 2);
	T_TRUE(!in->threads[0].idle && !in->threads[1].idle);
	pv_profile_info_free(in);
	pv_profile_free(p);
}

/* The profile of a data file and its info (NULL, reported, when either fails). */
static struct pv_profile_info *info_of(const char *rel, struct pv_profile **pp)
{
	struct pv_profile *p = *pp = t_load_data(rel);
	struct pv_profile_info *in = NULL;
	if (!p || pv_profile_info(p, &in)) {
		T_TRUE(0);
		pv_profile_free(p);
		*pp = NULL;
		return NULL;
	}
	return in;
}

/* What a viewer opens on (open_thread): a browser's independent threads on the busiest, as the
 * Firefox Profiler does; the execution contexts of an HPCToolkit database (4 threads), a
 * callgrind file's parts and pprof's one program on all of them summed, as hpcviewer does. */
T_TEST(graphs_open_thread)
{
	static const struct {
		const char *file;
		bool one;
		uint32_t threads, open;
	} cases[] = {
	    {"chrome/chromium-page.json.gz", false, 4, 3},
	    {"hpctoolkit/loops-cputime-t.d", true, 4, PV_NONE},
	    {"hpctoolkit/issue-328", true, 3, PV_NONE},
	    {"hpctoolkit/legacy-xml-gauss", true, 6, PV_NONE},
	    {"callgrind/gzip-parts.callgrind", true, 4, PV_NONE},
	    {"corpus/pprof/profile/testdata/go.crc32.cpu", true, 1, PV_NONE},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pv_profile *p = NULL;
		struct pv_profile_info *in = info_of(cases[i].file, &p);
		if (!in)
			continue;
		T_EQ_U64(p->threads.len, cases[i].threads);
		T_EQ_INT(in->one_program, cases[i].one);
		T_EQ_U64(in->open_thread, cases[i].open);
		pv_profile_info_free(in);
		pv_profile_free(p);
	}
	/* perf: independent threads, the busiest (a tie: the lower index) */
	struct pv_profile *p = import_text(TWO_THREADS, "perf-script");
	struct pv_profile_info *in = NULL;
	T_EQ_INT(pv_profile_info(p, &in), 0);
	T_TRUE(!in->one_program);
	T_EQ_U64(in->open_thread, 0);
	pv_profile_info_free(in);
	pv_profile_free(p);
}

/* The granularities a profile has (what the page's By offers): an HPCToolkit database with
 * loops, lines and an inlined procedure (test_separated_loops_helper) has them all; perf
 * script without -F +srcline has functions in modules, no line, no file. */
T_TEST(graphs_granularities)
{
	static const struct {
		const char *file;
		bool by[PV_BY_LOOP + 1];
		bool inlines;
	} cases[] = {
	    {"hpctoolkit/loops-cputime-t.d", {true, true, true, true, true}, true},
	    {"perf/xz.perf.txt.gz", {true, false, false, true, false}, false},
	    {"perf/srcline-by-hand.perf.txt",
	     {true, true, true, true, false},
	     true}, /* mix (inline) */
	    {"collapsed/worked-example.txt", {true, false, false, false, false}, false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pv_profile *p = NULL;
		struct pv_profile_info *in = info_of(cases[i].file, &p);
		if (!in)
			continue;
		for (int g = 0; g <= PV_BY_LOOP; g++)
			T_EQ_INT(in->by[g], cases[i].by[g]);
		T_EQ_INT(in->inlines, cases[i].inlines);
		pv_profile_info_free(in);
		pv_profile_free(p);
	}
}

/*
 * The front ends' marker selection (pv/marker_sel.h) on firefox/jank-gecko.json, whose values
 * are worked out by hand from the file: four threads GeckoMain (samples 100..250 ms, a Paint
 * instant at 99 ms, a Busy interval 1002..1004 ms), Worker (samples 1000..1008 ms), Old
 * (2000..2002 ms), Both (3000..3002 ms); interval 1 ms. The profile's span is 99 .. 3002 ms
 * (the Paint instant before the first sample), the chart's default end one interval past it.
 */
#include <stdint.h>

#include "pv/marker_sel.h"
#include "t.h"
#include "tp.h"

#define MS(x) ((int64_t)(x)*1000000)

T_TEST(marker_sel_terms)
{
	struct pv_profile *p = t_load_data("firefox/jank-gecko.json");
	if (!p)
		return;
	struct pv_error err;
	struct pv_marker_sel s;
	/* no terms: every thread, every marker, no range */
	T_EQ_INT(pv_marker_sel_new(p, &(struct pv_marker_terms){.search = ""}, &s, &err), 0);
	T_TRUE(!s.sel.threads && s.sel.nr_threads == 0 && !s.sel.search && !s.search);
	T_TRUE(!s.sel.has_range);
	pv_marker_sel_release(&s);
	/* two threads by name and by regex, a search, an open end, the order carried */
	const char *names[] = {"Old", "re:^W"};
	struct pv_marker_terms t = {.threads = names,
				    .nr_threads = 2,
				    .search = "Busy",
				    .has_start = true,
				    .start_ns = MS(1000),
				    .order = PV_MARKERS_BY_DURATION};
	T_EQ_INT(pv_marker_sel_new(p, &t, &s, &err), 0);
	T_EQ_INT(s.sel.nr_threads, 2);
	T_TRUE(s.sel.threads == s.threads);
	/* in the profile's order (Worker is thread 1, Old thread 2), not the terms' */
	T_EQ_INT(s.threads[0], 1);
	T_EQ_INT(s.threads[1], 2);
	T_EQ_STR(pv_str(p, p->threads.name[s.threads[0]]), "Worker");
	T_EQ_STR(pv_str(p, p->threads.name[s.threads[1]]), "Old");
	T_TRUE(s.search && s.sel.search == s.search);
	T_TRUE(s.sel.has_range);
	T_TRUE(s.sel.range_start_ns == MS(1000));
	T_TRUE(s.sel.range_end_ns == INT64_MAX);
	T_EQ_INT(s.sel.order, PV_MARKERS_BY_DURATION);
	pv_marker_sel_release(&s);
	T_TRUE(!s.threads && !s.search);
	/* an end alone: the start open */
	t = (struct pv_marker_terms){.has_end = true, .end_ns = MS(5)};
	T_EQ_INT(pv_marker_sel_new(p, &t, &s, &err), 0);
	T_TRUE(s.sel.has_range && s.sel.range_start_ns == INT64_MIN && s.sel.range_end_ns == MS(5));
	pv_marker_sel_release(&s);
	/* a thread that is not there */
	const char *none[] = {"Nope"};
	t = (struct pv_marker_terms){.threads = none, .nr_threads = 1};
	T_EQ_INT(pv_marker_sel_new(p, &t, &s, &err), PV_EINVAL);
	T_CONTAINS(err.msg, "Nope");
	pv_marker_sel_release(&s);
	pv_profile_free(p);
}

T_TEST(marker_sel_chart_window)
{
	struct pv_profile *p = t_load_data("firefox/jank-gecko.json");
	if (!p)
		return;
	struct pv_error err;
	struct pv_marker_sel s;
	/* no range: the profile's first time (the Paint instant) to one interval past its last */
	struct pv_marker_terms t = {.search = "Busy"};
	T_EQ_INT(pv_marker_sel_new(p, &t, &s, &err), 0);
	T_EQ_INT(pv_marker_chart_window(p, &t, &s, &err), 0);
	T_TRUE(s.sel.has_range);
	T_TRUE(s.sel.range_start_ns == MS(99));
	T_TRUE(s.sel.range_end_ns == MS(3003));
	/* the window keeps the one Busy marker (GeckoMain, 1002..1004 ms) */
	struct pv_markers *ms = NULL;
	T_EQ_INT(pv_markers_derive(p, &ms, &err), 0);
	uint32_t *idx = NULL, n = 0;
	T_EQ_INT(pv_marker_select(ms, &s.sel, &idx, &n), 0);
	T_EQ_INT(n, 1);
	if (n == 1) {
		T_EQ_STR(ms->name[idx[0]], "Busy");
		T_TRUE(ms->start_ns[idx[0]] == MS(1002) && ms->end_ns[idx[0]] == MS(1004));
	}
	pv_free_indexes(idx);
	pv_marker_sel_release(&s);
	/* a start alone: the end stays the default */
	t = (struct pv_marker_terms){.has_start = true, .start_ns = MS(1003)};
	T_EQ_INT(pv_marker_sel_new(p, &t, &s, &err), 0);
	T_EQ_INT(pv_marker_chart_window(p, &t, &s, &err), 0);
	T_TRUE(s.sel.range_start_ns == MS(1003) && s.sel.range_end_ns == MS(3003));
	pv_marker_sel_release(&s);
	/* an end before the default start */
	t = (struct pv_marker_terms){.has_end = true, .end_ns = MS(50)};
	T_EQ_INT(pv_marker_sel_new(p, &t, &s, &err), 0);
	T_EQ_INT(pv_marker_chart_window(p, &t, &s, &err), PV_EINVAL);
	T_CONTAINS(err.msg, "end is before start");
	pv_marker_sel_release(&s);
	pv_markers_free(ms);
	pv_profile_free(p);
}

/*
 * selection.c - the front ends' marker selection from their terms (pv/marker_sel.h): the
 * threads by name (pv_thread_select, the views' rule), the search, the range; and the marker
 * chart's default window.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pv/graphs.h"
#include "pv/info.h"
#include "pv/marker_sel.h"
#include "pv/view.h"

void pv_marker_sel_release(struct pv_marker_sel *s)
{
	pv_marker_search_free(s->search);
	free(s->threads);
	memset(s, 0, sizeof(*s));
}

int pv_marker_sel_new(const struct pv_profile *p, const struct pv_marker_terms *t,
		      struct pv_marker_sel *out, struct pv_error *err)
{
	memset(out, 0, sizeof(*out));
	out->sel.order = t->order;
	if (t->nr_threads) {
		int rc = pv_thread_select(p, t->threads, t->nr_threads, &out->threads,
					  &out->sel.nr_threads, err);
		if (rc)
			return rc;
		out->sel.threads = out->threads;
	}
	if (t->search && *t->search) {
		if (pv_marker_search_new(t->search, &out->search))
			return pv_error_set(err, PV_ENOMEM, "out of memory");
		out->sel.search = out->search;
	}
	if (t->has_start || t->has_end) {
		out->sel.has_range = true;
		out->sel.range_start_ns = t->has_start ? t->start_ns : INT64_MIN;
		out->sel.range_end_ns = t->has_end ? t->end_ns : INT64_MAX;
	}
	return 0;
}

int pv_marker_chart_window(const struct pv_profile *p, const struct pv_marker_terms *t,
			   struct pv_marker_sel *s, struct pv_error *err)
{
	int64_t lo, hi;
	pv_profile_span(p, &lo, &hi);
	s->sel.range_start_ns = t->has_start ? t->start_ns : lo;
	s->sel.range_end_ns = t->has_end ? t->end_ns : pv_activity_end(p);
	s->sel.has_range = true;
	if (s->sel.range_end_ns < s->sel.range_start_ns)
		return pv_error_set(err, PV_EINVAL, "end is before start");
	return 0;
}

/*
 * marker_sel.h - the marker selection of the front ends, made from their terms in one place:
 * the page's marker endpoints (search, thread, start, end), `profview markers` (--search, the
 * query's threads and range) and the TUI's marker tab (its search, the query's threads and
 * range); and the marker chart's default window.
 */
#ifndef PV_MARKER_SEL_H
#define PV_MARKER_SEL_H

#include <stdbool.h>
#include <stdint.h>

#include "pv/error.h"
#include "pv/marker.h"
#include "pv/profile.h"

/* What a front end asks for. */
struct pv_marker_terms {
	const char *const *threads; /* thread names or patterns (pv_thread_select); none: every */
	uint32_t nr_threads;
	const char *search; /* pv_marker_search_new's text; NULL or "": every marker */
	/* the range [start_ns, end_ns): an absent side is open (the chart's window fills it) */
	bool has_start, has_end;
	int64_t start_ns, end_ns;
	enum pv_marker_order order;
};

/* A selection: sel is pv_marker_select's (and pv_marker_chart's) argument, pointing into the
 * rest; a front end may set sel's text and within before it selects. */
struct pv_marker_sel {
	struct pv_marker_select sel;
	struct pv_marker_search *search;
	pv_thread_ix *threads;
};

/* The selection of terms t on profile p (out released with pv_marker_sel_release, also after
 * an error). Returns 0; PV_EINVAL with err when a thread name finds no thread; PV_ENOMEM. */
int pv_marker_sel_new(const struct pv_profile *p, const struct pv_marker_terms *t,
		      struct pv_marker_sel *out, struct pv_error *err);
void pv_marker_sel_release(struct pv_marker_sel *s);

/* The marker chart's window on s: the terms' range, an absent start the profile's first time
 * (pv_profile_span), an absent end one interval past its last (pv_activity_end: a marker at the
 * last time is in the chart, as in the table). PV_EINVAL with err when the end is before the
 * start. */
int pv_marker_chart_window(const struct pv_profile *p, const struct pv_marker_terms *t,
			   struct pv_marker_sel *s, struct pv_error *err);

#endif

/*
 * graphs.h - the two graphs the page draws from a query, computed by the library so that every
 * front end draws the same: the flame graph (its nodes pruned to what a canvas can show) and
 * the activity graph (per thread, the samples' cost by time bucket and leaf category, and the
 * markers the thread's track shows). `profview flame --json` and `profview activity --json`
 * print what /api/flame and /api/activity answer (doc/api.md), from these calls.
 */
#ifndef PV_GRAPHS_H
#define PV_GRAPHS_H

#include <stdbool.h>
#include <stdint.h>

#include "pv/marker.h"
#include "pv/view.h"

/* ---- the flame graph ---- */

#define PV_FLAME_NODES	   20000   /* nodes kept by default */
#define PV_FLAME_MAX_NODES 1000000 /* at most */
#define PV_FLAME_MAX_WIDTH 100000  /* pixels */

struct pv_flame_opts {
	uint32_t max_nodes; /* 1 .. PV_FLAME_MAX_NODES */
	uint32_t width;	    /* pixels of the graph; 0: no pixel rule */
};

/*
 * The heaviest max_nodes rows of a view's tree (top-down), or of both trees of a butterfly (its
 * callees and callers: speedscope's sandwich), best first. Children are sorted by total, so the
 * kept children of a row are a prefix of its list and the work is O(max_nodes log max_nodes)
 * whatever the size of the trees. With a width, a row whose total is below one pixel (the
 * graph's total / width, rounded up: the roots' total, or the center's) is left out, and so
 * are its lighter siblings; and taking stops once the keys of the kept nodes (pv/rows.h: a key
 * names a node's whole path) would pass pv_key_text_budget(max_nodes), so a chain 100,000 rows
 * deep costs keys linear in what is sent.
 *
 * Nodes are columns; node 0 is the virtual root over the top-down tree's roots, node 1 (two
 * graphs) the one over the callers' roots.
 */
struct pv_diff;
struct pv_flame {
	const struct pv_view *v;
	const struct pv_diff *diff; /* a differential flame graph (pv/diff.h): row[] names rows of
				     * the diff's trees, v is its new view; NULL otherwise */
	uint32_t nr_graphs;	    /* 1, or 2 for a butterfly */
	uint32_t len;
	uint8_t *graph;		/* 0: v->tree, 1: v->callers */
	uint32_t *row;		/* a row of the graph's tree, PV_NONE for a virtual root */
	uint32_t *first, *next; /* the first kept child, the next kept sibling (PV_NONE: none) */
	uint32_t zoom;		/* the node zoomed into (pv_flame_build_zoomed), 0: none */
};

/* v: a tree view (one graph) or a butterfly (two). Returns 0 or PV_ENOMEM. */
int pv_flame_build(const struct pv_view *v, const struct pv_flame_opts *o, struct pv_flame **out);

/*
 * The flame graph of a top-down view zoomed into row `row` of v->tree (a click on a box of the
 * page's flame tab, Enter on a block of the TUI's): the row's ancestors (one node each, a chain
 * from the virtual root), the row (fl->zoom) and the heaviest of its descendants as
 * pv_flame_build keeps them, the pixel rule of o->width applied to the row's total. Returns 0,
 * PV_EINVAL (row not of v->tree, or a butterfly), or PV_ENOMEM.
 */
int pv_flame_build_zoomed(const struct pv_view *v, const struct pv_flame_opts *o, uint32_t row,
			  struct pv_flame **out);

/*
 * The flame graph laid out in `width` columns (the page's layout): a virtual root and the
 * zoomed node with its ancestors span [0, width); a node's children follow each other from its
 * start, each as wide as its total (a column = the graph's whole / width: the roots' total, or
 * the zoomed row's), edges rounded to the nearest column, so a node may get no column
 * (x0 == x1). depth: 0 for a virtual root, else its parent's + 1. Arrays of fl->len. Returns 0,
 * PV_EINVAL (a differential flame graph), or PV_ENOMEM.
 */
int pv_flame_layout(const struct pv_flame *fl, uint32_t width, uint32_t *x0, uint32_t *x1,
		    uint32_t *depth);
void pv_flame_free(struct pv_flame *fl);

/* ---- activity ---- */

#define PV_ACTIVITY_BUCKETS	400  /* by default */
#define PV_ACTIVITY_MAX_BUCKETS 4000 /* at most */
#define PV_ACTIVITY_MARKERS	2000 /* track markers per thread, at most */

struct pv_activity_opts {
	uint32_t buckets;	  /* 1 .. PV_ACTIVITY_MAX_BUCKETS */
	bool has_start, has_end;  /* else the profile's span (pv_profile_span), the end one */
	int64_t start_ns, end_ns; /* interval past the last time */
};

/*
 * Per thread of the query (all when it names none), the cost of the query's first metric (the
 * profile's default without one) of the samples that count in the query's view (threads,
 * range, tags, inside-markers, the stack filters and the center: pv_view_compute_keep's
 * selection) in each of the buckets equal time buckets of [start, end), by the leaf category
 * of the sample's stack (a frame without one inherits its caller's; none at all: the profile's
 * "Other" category, else one more category after the profile's, listed only when a sample
 * needs it). And the markers of those threads in the window whose type's schema shows them in
 * the timeline overview (pv_marker_displayed), at most PV_ACTIVITY_MARKERS per thread.
 *
 * Cells are columns: thread k's bucket b holds the cells cell_first[k * buckets + b] ..
 * cell_first[k * buckets + b + 1] - 1, each a category and a cost, by category.
 */
struct pv_activity {
	const struct pv_profile *p;
	int64_t start_ns, end_ns;
	uint32_t buckets;
	bool timed; /* some sample or marker has a time (pv_profile_span): else no bucket has any */
	uint32_t nr_categories; /* the profile's, plus one ("Other", "grey") when other */
	bool other;
	uint32_t nr_threads;
	pv_thread_ix *thread;
	uint64_t *samples;    /* per thread: the samples counted */
	uint32_t *cell_first; /* nr_threads * buckets + 1 */
	uint32_t *cell_category;
	int64_t *cell_cost;
	uint32_t nr_markers; /* the tracks' markers, by index */
	uint32_t *marker;
};

/*
 * Returns 0, PV_ENOMEM, or PV_EINVAL with err for a query or a window that does not fit (an
 * unknown metric or thread, end not after start).
 */
int pv_activity_build(const struct pv_profile *p, const struct pv_markers *ms,
		      const struct pv_query *q, const struct pv_activity_opts *o,
		      struct pv_activity **out, struct pv_error *err);
void pv_activity_free(struct pv_activity *a);
/* The end of the activity's default window: one sampling interval (1 ns when the profile
 * states none) past the profile's last time, so the last sample is counted. */
int64_t pv_activity_end(const struct pv_profile *p);

#endif

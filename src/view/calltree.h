/*
 * view/calltree.h - the test oracle: the uncentered top-down function tree and the per-function
 * list of a profile, built without a query (calltree.c). The importers' tests check their
 * profiles with it, independently of the view engine (pv/view.h); nothing else uses it.
 *
 * Rows of the call tree are call nodes: a function at one place in a path from a root, merged
 * across frames, lines and stacks (the Firefox Profiler's rule). Costs are int64 in the
 * metric's unit. Building costs one pass over the distinct stacks and one over the selected
 * samples.
 */
#ifndef PV_VIEW_CALLTREE_H
#define PV_VIEW_CALLTREE_H

#include "pv/profile.h"

struct pv_view_opts {
	pv_metric_ix metric;	     /* PV_NONE = the profile's default metric */
	const pv_thread_ix *threads; /* threads to merge; NULL/0 = all */
	uint32_t nr_threads;
};

struct pv_calltree {
	uint32_t len; /* call nodes */
	pv_func_ix *func;
	uint32_t *parent; /* PV_NONE for a root */
	uint32_t *depth;  /* 0 for a root */
	int64_t *total, *self;
	/* children of each node, sorted by total (descending), then name, then function index */
	uint32_t *child_first, *child_len, *children;
	uint32_t *roots; /* roots, sorted the same way */
	uint32_t nr_roots;
	int64_t total_cost;   /* every selected sample with a stack */
	int64_t nostack_cost; /* selected samples without a stack (not in the tree) */
	uint64_t nr_samples;  /* selected samples */
	pv_metric_ix metric;
};

/* Builds the top-down tree. Returns 0, PV_ENOMEM or PV_EINVAL (bad metric/thread). */
int pv_calltree_build(const struct pv_profile *p, const struct pv_view_opts *o,
		      struct pv_calltree **out, struct pv_error *err);
void pv_calltree_free(struct pv_calltree *t);

enum pv_top_sort {
	PV_TOP_BY_SELF = 0,
	PV_TOP_BY_TOTAL,
};

struct pv_top {
	uint32_t len;	       /* functions with cost */
	pv_func_ix *func;      /* sorted as asked, ties by name then index */
	int64_t *self, *total; /* total counts each sample once, however often f recurs */
	int64_t total_cost;
	pv_metric_ix metric;
};

int pv_top_build(const struct pv_profile *p, const struct pv_view_opts *o, enum pv_top_sort sort,
		 struct pv_top **out, struct pv_error *err);
void pv_top_free(struct pv_top *t);

#endif

/*
 * internal.h - what the view engine (engine.c and the files of view/engine.h) and the call-graph
 * views (callgraph.c) share.
 */
#ifndef PV_VIEW_INTERNAL_H
#define PV_VIEW_INTERNAL_H

#include <stdbool.h>

#include "pv/view.h"
#include "view/formula.h"

/* What only libpv reads of a view (pv/view.h's v->priv, allocated with the view). */
struct pv_view_priv {
	struct pv_derived *derived; /* derived metrics (derive.c); NULL when the query has none */
	bool scoped;		    /* the profile has loop or statement frames (HPCToolkit) */
	uint32_t nr_pseudo;	    /* collapsed-module functions, ids funcs.len + i */
	pv_module_ix *pseudo_module;
	bool from_graph; /* computed from a call graph (callgraph.c), not from stacks */
};

/*
 * Views of a call-graph profile computed from its graph (callgraph.c): sets *done when the
 * query is one the graph answers (the view's trees and costs are then complete), else leaves
 * the view to the sample pipeline, with v->note saying its contexts are estimated. 0 or an error.
 */
int pv__callgraph_view(struct pv_view *v, bool *done, struct pv_error *err);

/* engine.c: the functions of the view's center scopes into mask[func]; *funcs_only is false
 * when a scope is a line or a path (not a set of functions). Sets v->center_label. */
int pv__view_center_funcs(struct pv_view *v, uint8_t *mask, bool *funcs_only, struct pv_error *err);
/* engine.c: marks the functions a scope names (every notation of query.h; a path: its last
 * step's; a loop: the functions holding it) into mark[func]. Returns 1 when it marked one, 0
 * when none, or an error (a bad regex: PV_EINVAL with err). */
int pv__scope_funcs(const struct pv_profile *p, const char *scope, uint8_t *mark,
		    struct pv_error *err);
/* kinds.c: v->base, what the view's percentages are of, from its whole and center totals. */
void pv__view_set_base(struct pv_view *v);
/* engine.c: children lists and order of a tree whose rows, totals and selves are set. */
int pv__tree_finish(struct pv_view *v, struct pv_tree *t, struct pv_error *err);
void pv__tree_free(struct pv_tree *t, uint32_t nm);

/*
 * engine.c: the part of a profile a query selects, for pv_profile_select (select.c): the
 * working stack table once the query's transforms ran (its frames: < frames.len a profile
 * frame, else the pseudo-function of the collapsed module v->priv->pseudo_module[vf - frames.len];
 * a prefix always before its stack), each profile stack's image in it (PV_NONE: every frame
 * removed), each working stack's center match (anchor; NULL without a center) and the samples
 * the view keeps (pv_view_compute_keep's samples mask).
 */
struct pv__selection {
	uint32_t len;
	uint32_t *frame, *prefix;
	bool owned; /* frame and prefix are the selection's, not the profile's stack table */
	uint32_t *origin;
	uint32_t *anchor;
	uint8_t *samples;
};
int pv__view_select(const struct pv_profile *p, const struct pv_query *q, struct pv_view **out,
		    struct pv__selection *sel, struct pv_error *err);
void pv__selection_release(struct pv__selection *sel);

/* srclines.c: the first metric of v that sums (not a formula's), or PV_NONE. */
uint32_t pv__view_summed_metric(const struct pv_view *v);
/* srclines.c: the samples q's view keeps (*keep, to pv_free_keep) and the metric a per-sample
 * cost of it is summed in (its first summing column's; PV_NONE: none). */
int pv__view_keep(const struct pv_profile *p, const struct pv_query *q, uint8_t **keep,
		  pv_metric_ix *metric, struct pv_error *err);
/* srclines.c: the kept samples' leaf (line, address, self in metric m), sorted by (line,
 * address): of file id's lines 1 .. nr_lines, or with mark of the functions mark[f] != 0 (any
 * line). Returns 0 or PV_ENOMEM. */
/*
 * The address sample s hit: its own (samples.addr, perf's leaf IP), else its leaf frame's
 * (frames.addr); PV_ADDR_NONE when neither is known.
 */
static inline uint64_t pv__sample_leaf_addr(const struct pv_profile *p, uint32_t s,
					    pv_frame_ix leaf)
{
	uint64_t a = pv_sample_addr(p, s);
	return a != PV_ADDR_NONE ? a : pv_frame_addr(p, leaf);
}
/* Whether any sample or frame of p has an address. */
static inline bool pv__has_addrs(const struct pv_profile *p)
{
	return p->frames.addr || p->samples.addr;
}
struct pv__line_addr {
	uint32_t line;
	uint64_t addr;
	int64_t self;
};
struct vec;
int pv__leaf_addrs(const struct pv_profile *p, const uint8_t *keep, pv_source_ix id,
		   uint32_t nr_lines, const uint8_t *mark, pv_metric_ix m, struct vec *out);

/* stats.c: metric name or "NAME:STAT" to the metric and its statistic (PV_NONE: none). */
pv_metric_ix pv__metric_stat(const struct pv_profile *p, const char *name, enum pv_stat *stat);
/*
 * stats.c: the columns of statistics of a computed view v, from one view per selected thread
 * that the engine computes (engine.c): pv__stats_begin, then for each i < v->nr_threads the
 * view of pv__stats_thread_query's query (released by the caller when 0) given to
 * pv__stats_add, then pv__stats_end with the first error (0: the columns are set), which frees
 * the state and returns the error (ENOMEM named).
 */
struct pv__stats;
int pv__stats_begin(struct pv_view *v, struct pv__stats **out);
int pv__stats_thread_query(const struct pv_view *v, uint32_t i, struct pv_query *q);
int pv__stats_add(struct pv__stats *st, const struct pv_view *t);
int pv__stats_end(struct pv__stats *st, int rc, struct pv_error *err);

/* flame.c: the flame graph's nodes over one tree or two (t1 NULL: one); the caller sets the
 * flame's view. */
struct pv_flame;
struct pv_flame_opts;
int pv__flame_of_trees(const struct pv_tree *t0, const struct pv_tree *t1,
		       const struct pv_flame_opts *o, struct pv_flame **out);

/* stats.c: the rows of a computed view in the order of its first column (trees, and the list
 * of the top view by its sort column), after that column changed. 0 or PV_ENOMEM. */
int pv__view_resort(struct pv_view *v);

/* ---- derive.c: derived metrics (doc/hpctoolkit.md) ---- */
/* (parsing the formulas: view/formula.h, which this includes for the importers) */
/* The view's derived metrics from its query and its profile's formulas (v->priv->derived). */
int pv__derive_begin(struct pv_view *v, struct pv_error *err);
/* name as a derived metric's column (0); 1 when name is none; an error. */
int pv__derive_column(struct pv_view *v, const char *name, struct pv_error *err);
/* After the query's metrics: the query's other derived metrics as columns, then hidden columns
 * of the metrics their formulas read. */
int pv__derive_setup(struct pv_view *v, struct pv_error *err);
/* Once the view is computed: the derived columns' values; the hidden columns go. */
int pv__view_derive(struct pv_view *v, struct pv_error *err);
void pv__derived_free(struct pv_derived *dv);

/*
 * engine.c, for the per-context values (contexts.c): the view of q, whose view kind must be a
 * top-down tree (tree or butterfly), and
 *   stack_row[stack] (p->stacks.len entries): the row of v->tree that holds the cost of that
 *     profile stack's samples as its self, PV_NONE when they count in no row (dropped, lost to
 *     a transform, not reaching the center);
 *   selected[sample] (p->samples.len bytes): 1 when the sample is selected by the query's time
 *     range, label filters and inside-markers; NULL when every sample of the view's threads is.
 * Both are freed with pv_free. Never the call-graph views: the rows are the samples' (callgrind's
 * estimated contexts, v->note says so). When selected is NULL the view's costs are not the
 * samples' (every stack weighs 1: no pass over the samples) and only its rows are meant: every
 * row a stack of the filtered profile reaches is in the tree.
 */
struct pv__rows {
	uint32_t *stack_row;
	uint8_t *selected;
};
int pv__view_rows(const struct pv_profile *p, const struct pv_query *q, struct pv_view **out,
		  struct pv__rows *rows, struct pv_error *err);

#endif

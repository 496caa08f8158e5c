/*
 * internal.h - what the view engine (engine.c) and the call-graph views (callgraph.c) share.
 */
#ifndef PV_VIEW_INTERNAL_H
#define PV_VIEW_INTERNAL_H

#include <stdbool.h>

#include "pv/view.h"

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
/* engine.c: v->base, what the view's percentages are of, from its whole and center totals. */
void pv__view_set_base(struct pv_view *v);
/* engine.c: children lists and order of a tree whose rows, totals and selves are set. */
int pv__tree_finish(struct pv_view *v, struct pv_tree *t, struct pv_error *err);
void pv__tree_free(struct pv_tree *t, uint32_t nm);

/* stats.c: metric name or "NAME:STAT" to the metric and its statistic (PV_NONE: none). */
pv_metric_ix pv__metric_stat(const struct pv_profile *p, const char *name, enum pv_stat *stat);
/* stats.c: the columns of statistics of a computed view, from one view per selected thread. */
int pv__view_stats(struct pv_view *v, struct pv_error *err);

/* engine.c: the builders of the view kinds (kinds.c), each filling its kind's outputs. */
int pv__build_tree(struct pv_engine *e);
int pv__build_callers(struct pv_engine *e);
int pv__build_butterfly(struct pv_engine *e);
int pv__build_flat(struct pv_engine *e); /* flat and top (the kind's list) */

#endif

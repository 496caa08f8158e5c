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
/* engine.c: v->base, what the view's percentages are of, from its whole and center totals. */
void pv__view_set_base(struct pv_view *v);
/* engine.c: children lists and order of a tree whose rows, totals and selves are set. */
int pv__tree_finish(struct pv_view *v, struct pv_tree *t, struct pv_error *err);
void pv__tree_free(struct pv_tree *t, uint32_t nm);

/*
 * engine.c: the part of a profile a query selects, for pv_profile_select (select.c): the
 * working stack table once the query's transforms ran (its frames: < frames.len a profile
 * frame, else the pseudo-function of the collapsed module v->pseudo_module[vf - frames.len];
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

/* stats.c: metric name or "NAME:STAT" to the metric and its statistic (PV_NONE: none). */
pv_metric_ix pv__metric_stat(const struct pv_profile *p, const char *name, enum pv_stat *stat);
/* stats.c: the columns of statistics of a computed view, from one view per selected thread. */
int pv__view_stats(struct pv_view *v, struct pv_error *err);

#endif

/*
 * diff.h - the difference of two profiles (doc/diff.md): one query computed over a base and a
 * new profile, the two views' rows matched into one view with base, new and delta columns.
 *
 * Rows are matched level by level: under two matched rows (or among the roots), a row of one
 * side matches the row of the other with the same kind, name, file and module (base names:
 * the last path component, so two builds in two folders match); what is left matches by kind
 * and name alone when that name is once on each side (a profile with files against one
 * without). Function ids differ between profiles; names do not. A row on one side only keeps
 * its costs there and 0 on the other.
 *
 * --normalize (pprof's -normalize) scales the base's costs by new whole / base whole, metric
 * by metric, so the delta compares shares: delta / new whole is the change in percentage
 * points (perf diff's "Delta").
 */
#ifndef PV_DIFF_H
#define PV_DIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "pv/graphs.h"
#include "pv/view.h"

enum pv_diff_side {
	PV_DIFF_BOTH = 0,
	PV_DIFF_BASE_ONLY,
	PV_DIFF_NEW_ONLY,
};

/*
 * Matched rows of one output (a tree, the butterfly's callers, the flat rows), numbered parents
 * first. row[0] / row[1]: the row of the base / new view's same output, PV_NONE when the row is
 * not on that side. Costs are [metric][row]; the base's are scaled with normalize. Children of
 * a row are sorted by the larger of the two sides' totals (lists: of the query's sort column),
 * or with --sort delta by the size of the delta (trees: of the total, lists: of self), ties in
 * the new view's order, then the base's.
 */
struct pv_diff_rows {
	uint32_t len;
	uint32_t *row[2];
	uint32_t *parent; /* PV_NONE for a root */
	uint32_t *depth;
	int64_t **total[2], **self[2];
	uint32_t *child_first, *child_len, *children;
	uint32_t *roots;
	uint32_t nr_roots;
};

struct pv_diff {
	struct pv_view *v[2]; /* base, new: the query's view of each profile */
	bool normalize;
	uint32_t nr_metrics;
	int64_t whole[2][PV_QUERY_MAX]; /* each view's whole (the base's scaled with normalize) */
	struct pv_diff_rows *tree;	/* tree, callers, butterfly (callees) */
	struct pv_diff_rows *callers;	/* butterfly */
	struct pv_diff_rows *flat;	/* flat, top: a flat view's rows nested by level */
};

struct pv_diff_opts {
	bool normalize;
};

/*
 * The query's view of base and of new, matched. The query's "--sort delta" orders the rows by
 * delta. Returns 0; PV_EINVAL with err when the query does not fit a profile (the message says
 * which), when the columns measure different units without normalize or a column is a derived
 * metric (--derive); PV_ENOMEM. The diff
 * borrows both profiles.
 */
int pv_diff_compute(const struct pv_profile *base, const struct pv_profile *new_,
		    const struct pv_query *q, const struct pv_diff_opts *o, struct pv_diff **out,
		    struct pv_error *err);
void pv_diff_free(struct pv_diff *d);

/* Which side's view names row r (the new one's when the row is there). */
static inline int pv_diff_row_side(const struct pv_diff_rows *t, uint32_t r)
{
	return t->row[1][r] != PV_NONE ? 1 : 0;
}
static inline enum pv_diff_side pv_diff_side_of(const struct pv_diff_rows *t, uint32_t r)
{
	return t->row[0][r] == PV_NONE	 ? PV_DIFF_NEW_ONLY
	       : t->row[1][r] == PV_NONE ? PV_DIFF_BASE_ONLY
					 : PV_DIFF_BOTH;
}
/* "both", "base", "new" */
const char *pv_diff_side_name(enum pv_diff_side s);

/*
 * The differential flame graph (Brendan Gregg's): the top-down tree of the diff (of a
 * butterfly: its callees and callers) with the new profile's widths; each node's base and
 * delta colour it. Rows of the base only have no width and are left out. The heaviest
 * max_nodes rows by the new total, kept as pv_flame_build keeps them; the flame's rows are
 * rows of d->tree (graph 0) and d->callers (graph 1), its view d->v[1]. Free with
 * pv_flame_free. Returns 0 or PV_ENOMEM.
 */
int pv_diff_flame_build(const struct pv_diff *d, const struct pv_flame_opts *o,
			struct pv_flame **out);

#endif

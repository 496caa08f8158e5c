/*
 * cgtree.h - trees grown from a call graph (model/callgraph.h), the rule of doc/callgraph.md
 * in one place: the views of a call-graph profile (view/callgraph.c) and the calling contexts
 * its importer estimates (import/callgrind/callgrind_synth.c) grow their rows with it.
 *
 * A tree grows from its roots, best first (the heaviest row waiting is expanded next), each row
 * splitting its total over what it holds:
 *   - top-down, a row of function g and total T: g's self cost and g's calls to functions not
 *     already on the row's path (recursion ends there: the outer row holds it), in proportion
 *     to their costs; so a row's total is its self plus its children's totals, and no row is
 *     above its parent;
 *   - bottom-up, a row of function g and flow V: g's callers not on the path, each in
 *     proportion to its calls' share of g's inclusive cost (a part of g's cost no call brought
 *     stays at the row);
 *   - the center row is the center's exact inclusive and self cost; a child holding a call's
 *     whole cost (its parent holds all of its function's cost, and the split gives the call its
 *     full cost) is exact, every other row is marked estimated.
 * Rows whose every cost splits to 0 are not made; past a row budget the lightest rows are left
 * unexpanded (counted). Cost: per expanded row its calls and its depth.
 */
#ifndef PV_MODEL_CGTREE_H
#define PV_MODEL_CGTREE_H

#include <stdbool.h>
#include <stdint.h>

#include "model/callgraph.h"

struct cg_rows {
	uint32_t len, cap, nm;
	uint32_t *func; /* PV_NONE: the center */
	uint32_t *parent, *depth;
	int64_t *total, *self; /* [r * nm + k] */
	uint8_t *est, *full;
};

/* A max-heap of rows by the first metric's total (ties: the older row first). */
struct cg_heap {
	uint32_t *a;
	uint32_t n, cap;
	const struct cg_rows *R;
};

struct cg_grow {
	const struct cg_graph *g;
	const uint8_t *cmask; /* the center's functions, NULL without a center */
	const uint32_t *cmem;
	uint32_t ncmem;
	const struct cg_set *set; /* the center's costs and its functions' shares */
	const uint8_t
	    *only; /* rows of a function f with !only[f] are not expanded (NULL: all are) */
	bool up;   /* bottom-up */
	uint32_t max_depth; /* rows at this depth are not made (0: no limit) */
	struct cg_rows R;
	struct cg_heap H;
	uint8_t *on;	     /* per function: on the path of row cur */
	uint32_t cur;	     /* the row whose path is marked (PV_NONE: none) */
	uint32_t *climb;     /* path_move's rows to mark, deepest first */
	uint32_t *slot;	     /* per function: its neighbour slot + 1 in this expansion */
	uint32_t *nb;	     /* neighbours of the row being expanded */
	int64_t *w, *raw;    /* [slot * nm + k]: effective and file costs of the calls */
	uint8_t *part;	     /* [slot]: w holds an estimated part of a call */
	int64_t *all;	     /* [k]: the effective costs of every call of the row's function */
	int64_t *wk, *ok;    /* [1 + slot]: one metric's split */
	int64_t *val, *sval; /* [slot * nm + k]: the children's totals and selves */
	uint32_t budget;     /* rows: expansion stops past this many */
	uint32_t unexpanded;
};

/* The state for trees of graph g (rows of nf functions, nm metrics); 0 or -1 (out of memory). */
int cg_grow_init(struct cg_grow *G, const struct cg_graph *g);
void cg_grow_release(struct cg_grow *G);
/* No row left, the state kept for the next tree (its options too). */
void cg_grow_clear(struct cg_grow *G);
/* A row of func (PV_NONE: the center) under parent (PV_NONE: a root); 0 or -1. */
int cg_rows_add(struct cg_rows *R, uint32_t func, uint32_t parent, const int64_t *total,
		const int64_t *self, bool est, bool full);
/* A top-down row's self before it is expanded: its function's share of its total. */
void cg_first_self(const struct cg_grow *G, uint32_t f, const int64_t *total, int64_t *self);
/* Grows the tree from the rows already made (its roots) until none is left to expand; 0 or -1. */
int cg_grow_all(struct cg_grow *G);

#endif

/*
 * callgraph.h - the call graph of a call-graph profile (profile.h struct pv_callgraph): adding
 * rows while importing, checking them, and the graph merged over a set of threads with each
 * function's and each set's inclusive cost (doc/callgraph.md).
 */
#ifndef PV_MODEL_CALLGRAPH_H
#define PV_MODEL_CALLGRAPH_H

#include <stdbool.h>

#include "pv/profile.h"

/*
 * Adding rows (importers). cost has one value per metric of the profile (nm of them, at most
 * p->metrics.len; missing ones are 0). The metric columns are made by the first add; no metric
 * may be added to the profile after it. Return 0 or PV_ENOMEM / PV_ELIMIT.
 */
/* Room for that many more nodes and edges, so that the adds below do not move the columns. */
int pv_callgraph_reserve(struct pv_profile *p, uint32_t nodes, uint32_t edges);
int pv_callgraph_add_node(struct pv_profile *p, pv_thread_ix t, pv_func_ix f, const int64_t *self,
			  uint32_t nm);
int pv_callgraph_add_edge(struct pv_profile *p, pv_thread_ix t, pv_func_ix caller,
			  pv_func_ix callee, uint64_t calls, uint8_t kind, const int64_t *cost,
			  uint32_t nm);

/* The invariants of the graph (pv_profile_validate). */
int pv_callgraph_check(const struct pv_profile *p, struct pv_error *err);

/* Splits total over weights w[0..n) in proportion, exactly (largest remainders, ties to the
 * first); all to out[0] when the weights sum to 0 or less. */
void pv_apportion(int64_t total, const int64_t *w, uint32_t n, int64_t *out);

/*
 * The graph over a set of threads, edges of one (caller, callee, kind) merged, metrics as chosen.
 * Costs are [x * nm + k] for metric k.
 */
struct cg_graph {
	uint32_t nf, nm;
	int64_t *self; /* [f * nm + k] */
	uint32_t ne;
	uint32_t *from, *to; /* edges sorted by caller, then callee and kind */
	uint8_t *kind;
	int64_t *cost;		      /* [e * nm + k]: the file's inclusive cost of the calls */
	uint32_t *out_first;	      /* [nf + 1]: f's edges are out_first[f] .. out_first[f + 1] */
	uint32_t *in_first, *in_edge; /* [nf + 1], [ne]: the edges into f */
	uint32_t *scc;		      /* per function: its strongly connected component */
	uint8_t *cyclic; /* per component: more than one function, or a call to itself */
	uint32_t *comp_first, *comp_mem; /* [nf + 1], [nf]: the functions of each component */
	uint8_t *called;		 /* per function: some call (kind 0) names it */
	uint8_t *present; /* per function: a node or an edge of the selected threads */
	int64_t *incl;	  /* [f * nm + k]: the inclusive cost (doc/callgraph.md) */
	int64_t *eff_out; /* [e * nm + k]: the part of the caller's cost in the call */
	int64_t *eff_in;  /* [e * nm + k]: the part of the callee's cost due to the call */
};

/* metrics[k] for k < nm; threads: sel[t] != 0 keeps thread t (NULL: all). 0 or PV_ENOMEM. */
int cg_graph_build(const struct pv_profile *p, const pv_metric_ix *metrics, uint32_t nm,
		   const uint8_t *sel, struct cg_graph *g);
/*
 * The graph of nf functions numbered 0 .. nf - 1 (an importer's own numbering, every one
 * present) from n edge rows: from[x], to[x], kind[x], cost[x * nm + k], rows of one (caller,
 * callee, kind) merged. self[f * nm + k] (nf * nm values, allocated with pv_malloc) is taken
 * over, also on failure. effective: eff_out and eff_in too (else NULL: the inclusive costs are
 * what is wanted). 0 or PV_ENOMEM.
 */
int cg_graph_of(uint32_t nf, uint32_t nm, int64_t *self, uint32_t n, const uint32_t *from,
		const uint32_t *to, const uint8_t *kind, const int64_t *cost, bool effective,
		struct cg_graph *g);
void cg_graph_release(struct cg_graph *g);

/*
 * Edges for cg_sccs: f's edges are x = first[f], then next[x] until UINT32_MAX (next NULL: x + 1
 * up to first[f + 1]); the callee of x is to[x * to_stride].
 */
struct cg_adj {
	const uint32_t *first, *next, *to;
	size_t to_stride;
};
/*
 * Strongly connected components (Tarjan's, iterative) of the n functions order[0..n) (NULL: 0 ..
 * n - 1) below nid, every callee among them: scc[f] numbered in completion order, roots taken in
 * that order and each function's edges in theirs; comp_size[k] (room for n) the size of each of
 * the *ncomp components. 0 or PV_ENOMEM.
 */
int cg_sccs(const struct cg_adj *a, uint32_t nid, const uint32_t *order, uint32_t n, uint32_t *scc,
	    uint32_t *comp_size, uint32_t *ncomp);

/*
 * A set of functions as a center (doc/callgraph.md "A set of functions"): the cost of the union
 * of its members' runs. A call into S from a function that never runs inside a member starts
 * such a run; one from a function that only runs inside a member is nested in one; one from a
 * function that can run both ways (reachable from S and, avoiding S, from a root) is counted
 * between 0 (lo) and its cost (hi), estimated by the share of that function's runs outside S.
 * The total is at least the largest member's, at most min(whole, sum of the members'), exact
 * when the bounds meet (always when no member reaches another: the members' sum). One function
 * is g->incl, as callgrind_annotate's rule gives it.
 */
struct cg_set {
	int64_t *total, *lo, *hi,
	    *self;	     /* [k]; self: the members' self costs in the center's runs */
	bool estimated;	     /* the total is not exact: lo < hi in some metric */
	bool self_estimated; /* self (and the calls next to the center) hold estimated parts */
	/* [f * nm + k]: a member: the part of its cost in the center's own runs (started by a
	 * call from outside, continued by calls between members); another function: the part of
	 * its cost outside every member's run */
	double *share;
	uint8_t *mixed; /* [f]: share is an estimate between 0 and 1, else exactly 0 or 1 */
};

/* 0 or PV_ENOMEM; release with cg_set_release either way. */
int cg_set_costs(const struct cg_graph *g, const uint8_t *in, const uint32_t *mem, uint32_t n,
		 struct cg_set *s);
void cg_set_release(struct cg_set *s);

#endif

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
	int64_t *incl;	  /* [f * nm + k]: the inclusive cost (cg_set_inclusive of {f}) */
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
 * over, also on failure. 0 or PV_ENOMEM.
 */
int cg_graph_of(uint32_t nf, uint32_t nm, int64_t *self, uint32_t n, const uint32_t *from,
		const uint32_t *to, const uint8_t *kind, const int64_t *cost, struct cg_graph *g);
void cg_graph_release(struct cg_graph *g);

/*
 * The inclusive cost of a set S of functions (in[f] != 0; members listed in mem[0..n)): the
 * calls into S from outside it, plus, for a member nobody calls, its self cost and its calls out
 * of S (callgrind_annotate's rule for one function, which KCachegrind follows: a call of a
 * function to itself is not counted). When S's members recurse through other functions (their
 * strongly connected components reach outside S), calls into S nest and their sum counts time
 * twice: the cost is then at most that of S with those components, whose entering calls never
 * nest. work is nf bytes of zeros, left zero. out[k] per metric.
 */
int cg_set_inclusive(const struct cg_graph *g, const uint8_t *in, const uint32_t *mem, uint32_t n,
		     uint8_t *work, int64_t *out);

#endif

/*
 * callgraph.c - the call graph of call-graph profiles (callgrind): its rows, their checks, and
 * the graph of a set of threads with the inclusive costs the views use (doc/callgraph.md).
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sort.h"
#include "model/callgraph.h"

__extension__ typedef __int128 i128;

/* ---- rows ---- */

static int cg_columns(struct pv_profile *p)
{
	struct pv_callgraph *cg = &p->callgraph;
	if (cg->node_self)
		return 0;
	uint32_t nm = p->metrics.len;
	cg->node_self = pv_calloc(nm ? nm : 1, sizeof(int64_t *));
	cg->edge_cost = pv_calloc(nm ? nm : 1, sizeof(int64_t *));
	if (!cg->node_self || !cg->edge_cost)
		return PV_ENOMEM;
	cg->nr_metrics = nm;
	return 0;
}

int pv_callgraph_reserve(struct pv_profile *p, uint32_t nodes, uint32_t edges)
{
	struct pv_callgraph *cg = &p->callgraph;
	if (cg_columns(p))
		return PV_ENOMEM;
	uint64_t nn = (uint64_t)cg->nr_nodes + nodes, ne = (uint64_t)cg->nr_edges + edges;
	if (nn > UINT32_MAX || ne > UINT32_MAX)
		return PV_ELIMIT;
	if (nn > cg->cap_nodes) {
		if (COL_GROW(cg->node_thread, nn) || COL_GROW(cg->node_func, nn))
			return PV_ENOMEM;
		for (uint32_t m = 0; m < cg->nr_metrics; m++)
			if (COL_GROW(cg->node_self[m], nn))
				return PV_ENOMEM;
		cg->cap_nodes = (uint32_t)nn;
	}
	if (ne > cg->cap_edges) {
		if (COL_GROW(cg->edge_thread, ne) || COL_GROW(cg->caller, ne) ||
		    COL_GROW(cg->callee, ne) || COL_GROW(cg->calls, ne) || COL_GROW(cg->kind, ne))
			return PV_ENOMEM;
		for (uint32_t m = 0; m < cg->nr_metrics; m++)
			if (COL_GROW(cg->edge_cost[m], ne))
				return PV_ENOMEM;
		cg->cap_edges = (uint32_t)ne;
	}
	return 0;
}

int pv_callgraph_add_node(struct pv_profile *p, pv_thread_ix t, pv_func_ix f, const int64_t *self,
			  uint32_t nm)
{
	struct pv_callgraph *cg = &p->callgraph;
	if (cg_columns(p))
		return PV_ENOMEM;
	if (cg->nr_nodes == cg->cap_nodes) {
		uint32_t nc = grow_cap(cg->cap_nodes, (uint64_t)cg->nr_nodes + 1);
		if (!nc)
			return PV_ELIMIT;
		if (COL_GROW(cg->node_thread, nc) || COL_GROW(cg->node_func, nc))
			return PV_ENOMEM;
		for (uint32_t m = 0; m < cg->nr_metrics; m++)
			if (COL_GROW(cg->node_self[m], nc))
				return PV_ENOMEM;
		cg->cap_nodes = nc;
	}
	uint32_t x = cg->nr_nodes++;
	cg->node_thread[x] = t;
	cg->node_func[x] = f;
	for (uint32_t m = 0; m < cg->nr_metrics; m++)
		cg->node_self[m][x] = m < nm ? self[m] : 0;
	return 0;
}

int pv_callgraph_add_edge(struct pv_profile *p, pv_thread_ix t, pv_func_ix caller,
			  pv_func_ix callee, uint64_t calls, uint8_t kind, const int64_t *cost,
			  uint32_t nm)
{
	struct pv_callgraph *cg = &p->callgraph;
	if (cg_columns(p))
		return PV_ENOMEM;
	if (cg->nr_edges == cg->cap_edges) {
		uint32_t nc = grow_cap(cg->cap_edges, (uint64_t)cg->nr_edges + 1);
		if (!nc)
			return PV_ELIMIT;
		if (COL_GROW(cg->edge_thread, nc) || COL_GROW(cg->caller, nc) ||
		    COL_GROW(cg->callee, nc) || COL_GROW(cg->calls, nc) || COL_GROW(cg->kind, nc))
			return PV_ENOMEM;
		for (uint32_t m = 0; m < cg->nr_metrics; m++)
			if (COL_GROW(cg->edge_cost[m], nc))
				return PV_ENOMEM;
		cg->cap_edges = nc;
	}
	uint32_t x = cg->nr_edges++;
	cg->edge_thread[x] = t;
	cg->caller[x] = caller;
	cg->callee[x] = callee;
	cg->calls[x] = calls;
	cg->kind[x] = kind;
	for (uint32_t m = 0; m < cg->nr_metrics; m++)
		cg->edge_cost[m][x] = m < nm ? cost[m] : 0;
	return 0;
}

#define FAIL(...) return pv_error_set(err, PV_EPARSE, __VA_ARGS__)

int pv_callgraph_check(const struct pv_profile *p, struct pv_error *err)
{
	const struct pv_callgraph *cg = &p->callgraph;
	for (uint32_t i = 0; i < cg->nr_nodes; i++) {
		if (cg->node_thread[i] >= p->threads.len)
			FAIL("callgraph.nodes[%u].thread: %u out of range", i, cg->node_thread[i]);
		if (cg->node_func[i] >= p->funcs.len)
			FAIL("callgraph.nodes[%u].func: %u out of range", i, cg->node_func[i]);
	}
	for (uint32_t i = 0; i < cg->nr_edges; i++) {
		if (cg->edge_thread[i] >= p->threads.len)
			FAIL("callgraph.edges[%u].thread: %u out of range", i, cg->edge_thread[i]);
		if (cg->caller[i] >= p->funcs.len || cg->callee[i] >= p->funcs.len)
			FAIL("callgraph.edges[%u]: function out of range", i);
		if (cg->kind[i] > 1)
			FAIL("callgraph.edges[%u].kind: %u is not a kind", i, cg->kind[i]);
		if (cg->kind[i] == 1 && (cg->calls[i] || cg->caller[i] == cg->callee[i]))
			FAIL("callgraph.edges[%u]: inlined code is no call, and not the function "
			     "itself",
			     i);
	}
	/* the nodes hold every self cost of the file: the exact per-function self costs */
	const struct pv_func_costs *fc = &p->func_costs;
	if (!fc->self || fc->funcs_len != p->funcs.len)
		return 0;
	int64_t *sum = pv_calloc(p->funcs.len ? p->funcs.len : 1, sizeof(int64_t));
	if (!sum)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	for (uint32_t m = 0; m < cg->nr_metrics; m++) {
		memset(sum, 0, (size_t)p->funcs.len * sizeof(int64_t));
		for (uint32_t i = 0; i < cg->nr_nodes; i++)
			sum[cg->node_func[i]] += cg->node_self[m][i];
		for (uint32_t f = 0; f < p->funcs.len; f++) {
			if (sum[f] != fc->self[m][f]) {
				int64_t a = sum[f], b = fc->self[m][f];
				pv_free(sum);
				FAIL("callgraph: function %u, metric %u: the nodes' self costs add "
				     "up to "
				     "%lld, func_costs.self says %lld",
				     f, m, (long long)a, (long long)b);
			}
		}
	}
	pv_free(sum);
	return 0;
}

/* ---- apportioning ---- */

struct rem {
	i128 r; /* remainder * sum, sign-adjusted: larger first */
	uint32_t i;
};

static int rem_cmp(const void *a, const void *b)
{
	const struct rem *x = a, *y = b;
	if (x->r != y->r)
		return x->r > y->r ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

void pv_apportion(int64_t total, const int64_t *w, uint32_t n, int64_t *out)
{
	i128 sum = 0;
	uint64_t wmax = 0;
	for (uint32_t i = 0; i < n; i++) {
		sum += w[i];
		uint64_t a = w[i] < 0 ? 0 - (uint64_t)w[i] : (uint64_t)w[i];
		wmax = a > wmax ? a : wmax;
	}
	if (n == 0)
		return;
	if (sum <= 0) {
		for (uint32_t i = 0; i < n; i++)
			out[i] = i == 0 ? total : 0;
		return;
	}
	/* what the quotients give, in wrapping arithmetic: with negative weights a quotient may
	 * exceed int64_t while the units left over (total - given) stay fewer than n */
	uint64_t given = 0;
	/*
	 * In 64 bits when every product total * w[i] fits (|total| * max |w[i]| does; and n *
	 * max |w[i]| bounds the sum): the same truncated quotients as in 128 bits, without the
	 * 128-bit division (a library call, many times slower).
	 */
	uint64_t t = total < 0 ? 0 - (uint64_t)total : (uint64_t)total, p1, p2;
	if (!__builtin_mul_overflow(t, wmax, &p1) && p1 <= (uint64_t)INT64_MAX &&
	    !__builtin_mul_overflow(wmax, (uint64_t)n, &p2) && p2 <= (uint64_t)INT64_MAX) {
		int64_t s64 = (int64_t)sum, r64[16];
		for (uint32_t i = 0; i < n; i++) {
			out[i] = total * w[i] / s64;
			given += (uint64_t)out[i];
		}
		int64_t left = (int64_t)((uint64_t)total - given);
		if (left != 0 && n <= 16) {
			/* the few units left, each to the largest remainder * sum (ties: the
			 * first), as below, in 64 bits: the remainders fit */
			int64_t step = left > 0 ? 1 : -1;
			for (uint32_t i = 0; i < n; i++)
				r64[i] = (total * w[i] - out[i] * s64) * step;
			while (left != 0) {
				uint32_t best = UINT32_MAX;
				for (uint32_t i = 0; i < n; i++)
					if (w[i] > 0 && (best == UINT32_MAX || r64[i] > r64[best]))
						best = i;
				out[best] += step;
				r64[best] -= s64;
				left -= step;
			}
			return;
		}
	} else {
		for (uint32_t i = 0; i < n; i++) {
			out[i] = (int64_t)((i128)total * w[i] / sum);
			given += (uint64_t)out[i];
		}
	}
	int64_t gap = (int64_t)((uint64_t)total - given);
	if (gap == 0)
		return;
	/* the units rounding left over (fewer than n), one each, to the largest remainders (ties:
	 * the first); the remainders sorted when there are many */
	int64_t step = gap > 0 ? 1 : -1;
	struct rem *rs = n > 16 ? pv_malloc((size_t)n * sizeof(*rs)) : NULL;
	if (rs) {
		uint32_t k = 0;
		for (uint32_t i = 0; i < n; i++) {
			if (w[i] <= 0)
				continue;
			i128 r = (i128)total * w[i] - (i128)out[i] * sum;
			rs[k++] = (struct rem){step < 0 ? -r : r, i};
		}
		pv_sort(rs, k, sizeof(*rs), rem_cmp);
		for (uint32_t j = 0; gap != 0; j = (j + 1) % k) {
			out[rs[j].i] += step;
			gap -= step;
		}
		pv_free(rs);
		return;
	}
	while (gap != 0) {
		uint32_t best = UINT32_MAX;
		i128 bestr = 0;
		for (uint32_t i = 0; i < n; i++) {
			if (w[i] <= 0)
				continue;
			i128 r = (i128)total * w[i] - (i128)out[i] * sum; /* remainder * sum */
			if (step < 0)
				r = -r;
			if (best == UINT32_MAX || r > bestr) {
				best = i;
				bestr = r;
			}
		}
		out[best] += step;
		gap -= step;
	}
}

/* ---- the graph of a set of threads ---- */

void cg_graph_release(struct cg_graph *g)
{
	pv_free(g->self);
	pv_free(g->from);
	pv_free(g->to);
	pv_free(g->kind);
	pv_free(g->cost);
	pv_free(g->out_first);
	pv_free(g->in_first);
	pv_free(g->in_edge);
	pv_free(g->scc);
	pv_free(g->cyclic);
	pv_free(g->comp_first);
	pv_free(g->comp_mem);
	pv_free(g->called);
	pv_free(g->present);
	pv_free(g->incl);
	pv_free(g->eff_out);
	pv_free(g->eff_in);
	memset(g, 0, sizeof(*g));
}

/* One stable counting-sort pass of idx[0..n) by key[idx[i]] < nk. */
static int count_sort(uint32_t *idx, uint32_t n, const uint32_t *key, uint32_t nk, uint32_t *tmp)
{
	uint32_t *cnt = pv_calloc((size_t)nk + 1, sizeof(uint32_t));
	if (!cnt)
		return PV_ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		cnt[key[idx[i]] + 1]++;
	for (uint32_t k = 0; k < nk; k++)
		cnt[k + 1] += cnt[k];
	for (uint32_t i = 0; i < n; i++)
		tmp[cnt[key[idx[i]]]++] = idx[i];
	memcpy(idx, tmp, (size_t)n * sizeof(uint32_t));
	pv_free(cnt);
	return 0;
}

int cg_sccs(const struct cg_adj *a, uint32_t nid, const uint32_t *order, uint32_t n, uint32_t *scc,
	    uint32_t *comp_size, uint32_t *ncomp_out)
{
	/*
	 * Each function's number and lowest link side by side (one cache line for both); on the
	 * stack is a number below T_DONE (a function done has T_DONE, above every link)
	 */
	struct tnode {
		uint32_t index, low;
	};
	const uint32_t T_NEW = UINT32_MAX, T_DONE = UINT32_MAX - 1;
	size_t i1 = nid ? nid : 1, n1 = n ? n : 1;
	struct tnode *t = pv_malloc(i1 * sizeof(*t));
	uint32_t *stk = pv_malloc(n1 * sizeof(uint32_t)), *call = pv_malloc(n1 * sizeof(uint32_t));
	uint32_t *it = pv_malloc(n1 * sizeof(uint32_t));
	int rc = PV_ENOMEM;
	if (!t || !stk || !call || !it || (uint64_t)n >= T_DONE)
		goto out;
	for (uint32_t i = 0; i < n; i++)
		t[order ? order[i] : i].index = T_NEW;
		/* f's edges: x from first[f] on, through next[x] to UINT32_MAX, or up to first[f +
		 * 1] */
#define ADJ_END(f, x) (a->next ? (x) == UINT32_MAX : (x) == a->first[(f) + 1])
	uint32_t next = 0, sp = 0, ncomp = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = order ? order[i] : i;
		if (t[r].index != T_NEW)
			continue;
		uint32_t csp = 0;
		call[csp] = r;
		it[csp++] = a->first[r];
		t[r].index = t[r].low = next++;
		stk[sp++] = r;
		while (csp) {
			uint32_t f = call[csp - 1], x = it[csp - 1];
			if (!ADJ_END(f, x)) {
				uint32_t v = a->to[(size_t)x * a->to_stride];
				it[csp - 1] = a->next ? a->next[x] : x + 1;
				if (t[v].index == T_NEW) {
					t[v].index = t[v].low = next++;
					stk[sp++] = v;
					call[csp] = v;
					it[csp++] = a->first[v];
				} else if (t[v].index < t[f].low) { /* on the stack */
					t[f].low = t[v].index;
				}
				continue;
			}
			csp--;
			if (csp && t[f].low < t[call[csp - 1]].low)
				t[call[csp - 1]].low = t[f].low;
			if (t[f].low != t[f].index)
				continue;
			uint32_t size = 0, v;
			do {
				v = stk[--sp];
				t[v].index = T_DONE;
				scc[v] = ncomp;
				size++;
			} while (v != f);
			comp_size[ncomp++] = size;
		}
	}
#undef ADJ_END
	*ncomp_out = ncomp;
	rc = 0;
out:
	pv_free(t);
	pv_free(stk);
	pv_free(call);
	pv_free(it);
	return rc;
}

/* Strongly connected components: scc[f], numbered in completion order, and cyclic[]. */
static int find_sccs(struct cg_graph *g)
{
	uint32_t nf = g->nf, ncomp;
	size_t n1 = nf ? nf : 1;
	uint32_t *size = pv_malloc(n1 * sizeof(uint32_t));
	g->scc = pv_malloc(n1 * sizeof(uint32_t));
	g->cyclic = pv_calloc(n1, 1);
	struct cg_adj adj = {.first = g->out_first, .to = g->to, .to_stride = 1};
	int rc = !size || !g->scc || !g->cyclic ? PV_ENOMEM
						: cg_sccs(&adj, nf, NULL, nf, g->scc, size, &ncomp);
	for (uint32_t k = 0; !rc && k < ncomp; k++)
		g->cyclic[k] = size[k] > 1;
	for (uint32_t e = 0; !rc && e < g->ne; e++)
		if (g->from[e] == g->to[e])
			g->cyclic[g->scc[g->from[e]]] = 1;
	pv_free(size);
	return rc;
}

/* Whether v, a member of the set in[], starts its own runs: nobody calls it, and it is not the
 * inlined code of another member (whose cost holds it). */
static bool set_root(const struct cg_graph *g, const uint8_t *in, uint32_t v)
{
	if (g->called[v])
		return false;
	for (uint32_t j = g->in_first[v]; j < g->in_first[v + 1]; j++) {
		uint32_t e = g->in_edge[j];
		if (g->kind[e] && g->from[e] != v && in[g->from[e]])
			return false;
	}
	return true;
}

/*
 * The inclusive cost of a set S of functions (in[f] != 0; members mem[0..n)): the calls into S
 * from outside it, plus, for a member nobody calls, its self cost and its calls out of S
 * (callgrind_annotate's rule for one function, which KCachegrind follows: a call of a function
 * to itself is not counted). all_inclusive takes it for one function, bounded by that for its
 * recursion cycle (whose entering calls never nest).
 */
static void set_rule(const struct cg_graph *g, const uint8_t *in, const uint32_t *mem, uint32_t n,
		     int64_t *out)
{
	uint32_t nm = g->nm;
	bool entered = false, rooted = false;
	for (uint32_t k = 0; k < nm; k++)
		out[k] = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = mem[i];
		for (uint32_t j = g->in_first[v]; j < g->in_first[v + 1]; j++) {
			uint32_t e = g->in_edge[j];
			if (in[g->from[e]] || g->kind[e])
				continue;
			entered = true;
			for (uint32_t k = 0; k < nm; k++)
				out[k] += g->cost[(size_t)e * nm + k];
		}
		rooted |= set_root(g, in, v);
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = mem[i];
		/* a member nobody calls: its own cost and its calls out; when nothing enters the
		 * set and no member is such a root (a cycle with no way in: a dump's boundary),
		 * the set's own cost and its calls out */
		if ((entered || rooted) && !set_root(g, in, v))
			continue;
		for (uint32_t k = 0; k < nm; k++)
			out[k] += g->self[(size_t)v * nm + k];
		/* its calls out of the set, and the inlined code of other members it holds (not
		 * roots themselves: their cost is in this edge) */
		for (uint32_t e = g->out_first[v]; e < g->out_first[v + 1]; e++)
			if (!in[g->to[e]] || (g->kind[e] && g->to[e] != v))
				for (uint32_t k = 0; k < nm; k++)
					out[k] += g->cost[(size_t)e * nm + k];
	}
}

/* ---- a set of functions as a center ---- */

static int64_t pos(int64_t x)
{
	return x > 0 ? x : 0;
}

void cg_set_release(struct cg_set *s)
{
	pv_free(s->total);
	pv_free(s->lo);
	pv_free(s->hi);
	pv_free(s->self);
	pv_free(s->share);
	pv_free(s->mixed);
	memset(s, 0, sizeof(*s));
}

/* Per function while a set is weighed (st[f]). */
enum {
	SR = 1,	      /* reachable from a member by a call (or inlined code) */
	SN = 2,	      /* reachable from a root by calls that avoid every member */
	SQ = 4,	      /* queued in the search for SR */
	SC = 8,	      /* a member: some of its runs are the center's own */
	SX = 16,      /* a member: some of its runs are nested in another member's through others */
	SCLOSED = 32, /* a member of a cycle nothing enters, every function of it a member */
	SW = 64,      /* queued while SC / SX grow */
	SB = 128      /* reaches a member (or is one) */
};

/* What a call from u brings to a member (SC / SX): u a member passes on its own; another
 * function only outside S brings SC, only inside SX, both ways both. */
static uint8_t brings(const uint8_t *in, const uint8_t *st, uint32_t u)
{
	if (in[u])
		return st[u] & (SC | SX);
	if (!(st[u] & SN))
		return SX;
	return st[u] & SR ? SC | SX : SC;
}

/* The share of f's runs (doc: struct cg_set) from its callers' shares, in proportion to the
 * calls' costs (or their number when they cost nothing): one step of the estimate. */
static double share_step(const struct cg_graph *g, const uint8_t *in, const double *sh, uint32_t f,
			 uint32_t k)
{
	uint32_t nm = g->nm, cnt = 0;
	double num = 0, den = 0, numc = 0;
	for (uint32_t j = g->in_first[f]; j < g->in_first[f + 1]; j++) {
		uint32_t e = g->in_edge[j], u = g->from[e];
		if (u == f)
			continue;
		double t = in[u] && !in[f] ? 0 : sh[(size_t)u * nm + k];
		double c = (double)pos(g->cost[(size_t)e * nm + k]);
		num += c * t;
		den += c;
		numc += t;
		cnt++;
	}
	if (den > 0)
		return num / den;
	return cnt ? numc / cnt : sh[(size_t)f * nm + k];
}

/* x * a / b, exactly (b > 0; 0 <= a <= b). */
static int64_t scale(int64_t x, int64_t a, int64_t b)
{
	return a == b ? x : (int64_t)((i128)x * a / b);
}

/* cg_set_costs' state: the set, the marks of every function (SN ...) and the sums. */
struct set_work {
	const struct cg_graph *g;
	const uint8_t *in;
	const uint32_t *mem;
	uint32_t n;
	size_t n1;
	struct cg_set *s;
	uint8_t *st, *entered;
	uint32_t *q, *mix;
	double *est;	    /* [k]: the estimated total */
	int64_t *ilo, *ihi; /* [k]: its bounds from the calls that start runs */
};

/* SR: what the members reach; SN: what the roots (the functions of components nothing enters)
 * reach avoiding S; SCLOSED: the cycles nothing enters whose every function is a member. */
static void set_reach(struct set_work *W)
{
	const struct cg_graph *g = W->g;
	const uint8_t *in = W->in;
	uint8_t *st = W->st, *entered = W->entered;
	uint32_t *q = W->q, qn = 0;
	for (uint32_t i = 0; i < W->n; i++) {
		q[qn++] = W->mem[i];
		st[W->mem[i]] |= SQ;
	}
	for (uint32_t i = 0; i < qn; i++) {
		uint32_t f = q[i];
		for (uint32_t e = g->out_first[f]; e < g->out_first[f + 1]; e++) {
			uint32_t x = g->to[e];
			if (x == f)
				continue;
			st[x] |= SR;
			if (!(st[x] & SQ)) {
				st[x] |= SQ;
				q[qn++] = x;
			}
		}
	}
	for (uint32_t e = 0; e < g->ne; e++)
		if (g->scc[g->from[e]] != g->scc[g->to[e]])
			entered[g->scc[g->to[e]]] = 1;
	qn = 0;
	for (uint32_t f = 0; f < g->nf; f++) {
		if (g->present[f] && !in[f] && !entered[g->scc[f]]) {
			st[f] |= SN;
			q[qn++] = f;
		}
	}
	for (uint32_t i = 0; i < qn; i++) {
		uint32_t f = q[i];
		for (uint32_t e = g->out_first[f]; e < g->out_first[f + 1]; e++) {
			uint32_t x = g->to[e];
			if (!in[x] && !(st[x] & SN)) {
				st[x] |= SN;
				q[qn++] = x;
			}
		}
	}
	for (uint32_t i = 0; i < W->n; i++) {
		uint32_t c = g->scc[W->mem[i]];
		uint32_t a = g->comp_first[c], b = g->comp_first[c + 1];
		if (entered[c] || b - a < 2)
			continue;
		bool closed = true;
		for (uint32_t j = a; j < b && closed; j++)
			closed = in[g->comp_mem[j]];
		if (closed)
			st[W->mem[i]] |= SCLOSED | SC;
	}
}

/* SC / SX of the members: what their callers bring, to a fixed point (a member whose bits grow
 * passes them on to the members it calls). */
static void set_runs(struct set_work *W)
{
	const struct cg_graph *g = W->g;
	const uint8_t *in = W->in;
	uint8_t *st = W->st;
	uint32_t *q = W->q, head = 0, len = 0, n1 = (uint32_t)W->n1;
	for (uint32_t i = 0; i < W->n; i++) {
		q[len++] = W->mem[i];
		st[W->mem[i]] |= SW;
	}
	while (len) {
		uint32_t v = q[head];
		head = (head + 1) % n1;
		len--;
		st[v] &= (uint8_t)~SW;
		uint8_t fl = 0;
		bool any = false;
		for (uint32_t j = g->in_first[v]; j < g->in_first[v + 1]; j++) {
			uint32_t u = g->from[g->in_edge[j]];
			if (u != v) {
				fl |= brings(in, st, u);
				any = true;
			}
		}
		if (!any)
			fl |= SC; /* a root */
		if ((fl | st[v]) == st[v])
			continue;
		st[v] |= fl;
		for (uint32_t e = g->out_first[v]; e < g->out_first[v + 1]; e++) {
			uint32_t x = g->to[e];
			if (in[x] && x != v && !(st[x] & SW)) {
				st[x] |= SW;
				q[(head + len++) % n1] = x;
			}
		}
	}
}

/* The shares: exact where one kind of run is possible, else estimated. */
static void set_shares(struct set_work *W)
{
	const struct cg_graph *g = W->g;
	const uint8_t *in = W->in;
	struct cg_set *s = W->s;
	uint8_t *st = W->st;
	uint32_t nf = g->nf, nm = g->nm, nmix = 0, qn = 0, *q = W->q, *mix = W->mix;
	for (uint32_t f = 0; f < nf; f++) {
		double v = 1;
		s->mixed[f] = 0;
		if (in[f]) {
			uint8_t fl = st[f] & (SC | SX);
			v = fl == SX ? 0 : fl == (SC | SX) ? 0.5 : 1;
			s->mixed[f] = fl == (SC | SX);
		} else if (!(st[f] & SN)) {
			v = 0;
		} else if (st[f] & SR) {
			v = 0.5;
			s->mixed[f] = 1;
		}
		for (uint32_t k = 0; k < nm; k++)
			s->share[(size_t)f * nm + k] = v;
	}
	/* the estimated ones that reach a member (the others' shares reach no figure of the
	 * center's), callers first (components in reverse order of completion): one round
	 * settles them but in cycles, where the rounds converge */
	for (uint32_t i = 0; i < W->n; i++) {
		q[qn++] = W->mem[i];
		st[W->mem[i]] |= SB;
	}
	for (uint32_t i = 0; i < qn; i++)
		for (uint32_t j = g->in_first[q[i]]; j < g->in_first[q[i] + 1]; j++) {
			uint32_t u = g->from[g->in_edge[j]];
			if (!(st[u] & SB)) {
				st[u] |= SB;
				q[qn++] = u;
			}
		}
	for (uint32_t c = nf; c-- > 0;)
		for (uint32_t j = g->comp_first[c]; j < g->comp_first[c + 1]; j++)
			if (s->mixed[g->comp_mem[j]] && (st[g->comp_mem[j]] & SB))
				mix[nmix++] = g->comp_mem[j];
	for (uint32_t round = 0; round < 64 && nmix; round++) {
		double moved = 0;
		for (uint32_t i = 0; i < nmix; i++) {
			for (uint32_t k = 0; k < nm; k++) {
				double *sh = &s->share[(size_t)mix[i] * nm + k];
				double v = share_step(g, in, s->share, mix[i], k);
				moved = v - *sh > moved	  ? v - *sh
					: *sh - v > moved ? *sh - v
							  : moved;
				*sh = v;
			}
		}
		if (moved < 1e-6)
			break;
	}
}

/* Member v, called: the calls into it that start a run. */
static void set_called(struct set_work *W, uint32_t v)
{
	const struct cg_graph *g = W->g;
	uint32_t nm = g->nm;
	for (uint32_t j = g->in_first[v]; j < g->in_first[v + 1]; j++) {
		uint32_t e = g->in_edge[j], u = g->from[e];
		if (u == v || W->in[u] || g->kind[e] || brings(W->in, W->st, u) == SX)
			continue;
		bool sure = brings(W->in, W->st, u) == SC;
		for (uint32_t k = 0; k < nm; k++) {
			int64_t c = g->cost[(size_t)e * nm + k];
			W->ihi[k] += c;
			if (sure)
				W->ilo[k] += c;
			W->est[k] += (double)c * W->s->share[(size_t)u * nm + k];
		}
	}
}

/*
 * Member v, which nobody calls: its self cost and every call it makes, in the runs of the
 * functions it is inlined into (their kind-1 edges' costs) when it is inlined code.
 */
static void set_uncalled(struct set_work *W, uint32_t v, uint32_t k)
{
	const struct cg_graph *g = W->g;
	uint32_t nm = g->nm, cnt = 0;
	int64_t a = g->self[(size_t)v * nm + k], all = 0, sure = 0, maybe = 0;
	double part = 0;
	for (uint32_t e = g->out_first[v]; e < g->out_first[v + 1]; e++)
		if (g->to[e] != v)
			a += g->cost[(size_t)e * nm + k];
	for (uint32_t j = g->in_first[v]; j < g->in_first[v + 1]; j++)
		cnt += g->from[g->in_edge[j]] != v;
	/* weights: the edges' costs, or one each when they all cost nothing */
	for (int ones = 0; cnt && ones < 2 && all == 0; ones++) {
		sure = maybe = 0;
		part = 0;
		for (uint32_t j = g->in_first[v]; j < g->in_first[v + 1]; j++) {
			uint32_t e = g->in_edge[j], u = g->from[e];
			if (u == v)
				continue;
			int64_t c = ones ? 1 : pos(g->cost[(size_t)e * nm + k]);
			all += c;
			if (W->in[u] || brings(W->in, W->st, u) == SX)
				continue;
			if (brings(W->in, W->st, u) == SC)
				sure += c;
			else
				maybe += c;
			part += (double)c * W->s->share[(size_t)u * nm + k];
		}
	}
	if (!cnt) {
		W->ilo[k] += a;
		W->ihi[k] += a;
		W->est[k] += (double)a;
	} else if (all > 0) {
		W->ilo[k] += scale(a, sure, all);
		W->ihi[k] += scale(a, sure + maybe, all);
		W->est[k] += (double)a * part / (double)all;
	}
}

/* The total: the calls that start a run, the runs nothing calls, the closed cycles' costs. */
static void set_total(struct set_work *W)
{
	const struct cg_graph *g = W->g;
	uint32_t nm = g->nm;
	for (uint32_t i = 0; i < W->n; i++) {
		uint32_t v = W->mem[i];
		if (W->st[v] & SCLOSED)
			continue;
		if (g->called[v])
			set_called(W, v);
		else
			for (uint32_t k = 0; k < nm; k++)
				set_uncalled(W, v, k);
	}
	/* a closed cycle: its self costs and its calls out of it */
	for (uint32_t i = 0; i < W->n; i++) {
		uint32_t c = g->scc[W->mem[i]];
		if (!(W->st[W->mem[i]] & SCLOSED) || W->mem[i] != g->comp_mem[g->comp_first[c]])
			continue;
		for (uint32_t j = g->comp_first[c]; j < g->comp_first[c + 1]; j++) {
			uint32_t v = g->comp_mem[j];
			for (uint32_t k = 0; k < nm; k++) {
				int64_t a = g->self[(size_t)v * nm + k];
				for (uint32_t e = g->out_first[v]; e < g->out_first[v + 1]; e++)
					if (g->scc[g->to[e]] != c)
						a += g->cost[(size_t)e * nm + k];
				W->ilo[k] += a;
				W->ihi[k] += a;
				W->est[k] += (double)a;
			}
		}
	}
}

/*
 * Metric k's total within the bounds every set has where no cost is negative (its largest
 * member, the whole and the members' sum), and its self.
 */
static void set_bounds(struct set_work *W, uint32_t k)
{
	const struct cg_graph *g = W->g;
	struct cg_set *s = W->s;
	uint32_t nm = g->nm;
	int64_t whole = 0, sum = 0, max = 0;
	bool neg = false;
	for (uint32_t f = 0; f < g->nf; f++) {
		whole += g->self[(size_t)f * nm + k];
		neg |= g->self[(size_t)f * nm + k] < 0;
	}
	for (uint32_t e = 0; e < g->ne; e++)
		neg |= g->cost[(size_t)e * nm + k] < 0;
	for (uint32_t i = 0; i < W->n; i++) {
		int64_t x = g->incl[(size_t)W->mem[i] * nm + k];
		sum += x;
		max = x > max ? x : max;
	}
	int64_t up = whole < sum ? whole : sum, down = max < up ? max : up;
	if (neg) {
		up = INT64_MAX;
		down = INT64_MIN;
	}
	int64_t l = W->ilo[k] < down ? down : W->ilo[k] > up ? up : W->ilo[k];
	int64_t h = W->ihi[k] > up ? up : W->ihi[k] < l ? l : W->ihi[k];
	int64_t t = (int64_t)(W->est[k] + 0.5);
	t = t < l ? l : t > h ? h : t;
	s->estimated |= l < h;
	s->lo[k] = l;
	s->hi[k] = h;
	s->total[k] = t;
	double self = 0;
	for (uint32_t i = 0; i < W->n; i++) {
		uint32_t v = W->mem[i];
		if (s->mixed[v])
			self += (double)g->self[(size_t)v * nm + k] * s->share[(size_t)v * nm + k];
		else if (s->share[(size_t)v * nm + k] > 0)
			s->self[k] += g->self[(size_t)v * nm + k];
	}
	s->self[k] += (int64_t)(self + 0.5);
}

int cg_set_costs(const struct cg_graph *g, const uint8_t *in, const uint32_t *mem, uint32_t n,
		 struct cg_set *s)
{
	uint32_t nf = g->nf, nm = g->nm;
	size_t n1 = nf ? nf : 1, m1 = nm ? nm : 1;
	memset(s, 0, sizeof(*s));
	s->total = pv_calloc(m1, sizeof(int64_t));
	s->lo = pv_calloc(m1, sizeof(int64_t));
	s->hi = pv_calloc(m1, sizeof(int64_t));
	s->self = pv_calloc(m1, sizeof(int64_t));
	s->share = pv_malloc(n1 * m1 * sizeof(double));
	s->mixed = pv_calloc(n1, 1);
	struct set_work W = {.g = g, .in = in, .mem = mem, .n = n, .n1 = n1, .s = s};
	W.st = pv_calloc(n1, 1);
	W.entered = pv_calloc(n1, 1);
	W.q = pv_malloc(n1 * sizeof(uint32_t));
	W.mix = pv_malloc(n1 * sizeof(uint32_t));
	W.est = pv_calloc(m1, sizeof(double));
	W.ilo = pv_calloc(m1, sizeof(int64_t));
	W.ihi = pv_calloc(m1, sizeof(int64_t));
	int rc = PV_ENOMEM;
	if (!s->total || !s->lo || !s->hi || !s->self || !s->share || !s->mixed || !W.st ||
	    !W.entered || !W.q || !W.mix || !W.est || !W.ilo || !W.ihi)
		goto out;
	for (size_t i = 0; i < n1 * m1; i++)
		s->share[i] = 1;
	rc = 0;
	if (n == 1) {
		/* one function: its own rule (callgrind_annotate's, bounded in a recursion) */
		for (uint32_t k = 0; k < nm; k++) {
			s->total[k] = s->lo[k] = s->hi[k] = g->incl[(size_t)mem[0] * nm + k];
			s->self[k] = g->self[(size_t)mem[0] * nm + k];
		}
		goto out;
	}
	set_reach(&W);
	set_runs(&W);
	set_shares(&W);
	set_total(&W);
	for (uint32_t k = 0; k < nm; k++)
		set_bounds(&W, k);
	for (uint32_t i = 0; i < n; i++)
		s->self_estimated |= s->mixed[mem[i]];
out:
	pv_free(W.st);
	pv_free(W.entered);
	pv_free(W.q);
	pv_free(W.mix);
	pv_free(W.est);
	pv_free(W.ilo);
	pv_free(W.ihi);
	return rc;
}

/* incl of every function: its own rule, bounded by its cyclic component's (one pass each). */
static int all_inclusive(struct cg_graph *g)
{
	uint32_t nf = g->nf, nm = g->nm;
	size_t n1 = nf ? nf : 1;
	g->incl = pv_malloc(n1 * (nm ? nm : 1) * sizeof(int64_t));
	uint8_t *in = pv_calloc(n1, 1);
	uint32_t *first = g->comp_first = pv_calloc(n1 + 1, sizeof(uint32_t));
	uint32_t *mem = g->comp_mem = pv_malloc(n1 * sizeof(uint32_t));
	uint32_t *fill = pv_calloc(n1, sizeof(uint32_t));
	int64_t *cyc = pv_malloc(n1 * (nm ? nm : 1) * sizeof(int64_t));
	int rc = PV_ENOMEM;
	if (!g->incl || !in || !first || !mem || !fill || !cyc)
		goto out;
	/* the members of each component */
	for (uint32_t f = 0; f < nf; f++)
		first[g->scc[f] + 1]++;
	for (uint32_t c = 0; c < nf; c++)
		first[c + 1] += first[c];
	for (uint32_t f = 0; f < nf; f++)
		mem[first[g->scc[f]] + fill[g->scc[f]]++] = f;
	for (uint32_t c = 0; c < nf; c++) {
		uint32_t a = first[c], b = first[c + 1];
		if (a == b || !g->cyclic[c])
			continue;
		for (uint32_t i = a; i < b; i++)
			in[mem[i]] = 1;
		set_rule(g, in, mem + a, b - a, cyc + (size_t)c * nm);
		for (uint32_t i = a; i < b; i++)
			in[mem[i]] = 0;
	}
	for (uint32_t f = 0; f < nf; f++) {
		int64_t *o = g->incl + (size_t)f * nm;
		in[f] = 1;
		set_rule(g, in, &f, 1, o);
		in[f] = 0;
		uint32_t c = g->scc[f];
		if (g->cyclic[c] && first[c + 1] - first[c] > 1)
			for (uint32_t k = 0; k < nm; k++)
				if (cyc[(size_t)c * nm + k] < o[k])
					o[k] = cyc[(size_t)c * nm + k];
	}
	rc = 0;
out:
	pv_free(in);
	pv_free(fill);
	pv_free(cyc);
	return rc;
}

/*
 * eff_out: a call out of the caller's component is the file's cost; a call to itself is 0; the
 * calls inside the component (each counting nested calls again) share what is left of the
 * caller's inclusive cost past its self cost and its other calls, in proportion to their costs.
 * eff_in the same way from the callee's side: its calls from outside its component are the
 * file's costs, the ones from inside share what is left of its inclusive cost.
 */
static int effective_costs(struct cg_graph *g)
{
	uint32_t nm = g->nm;
	size_t ne1 = g->ne ? g->ne : 1;
	g->eff_out = pv_malloc(ne1 * (nm ? nm : 1) * sizeof(int64_t));
	g->eff_in = pv_malloc(ne1 * (nm ? nm : 1) * sizeof(int64_t));
	int64_t *w = pv_malloc(ne1 * sizeof(int64_t)), *o = pv_malloc(ne1 * sizeof(int64_t));
	uint32_t *ix = pv_malloc(ne1 * sizeof(uint32_t));
	if (!g->eff_out || !g->eff_in || !w || !o || !ix) {
		pv_free(w);
		pv_free(o);
		pv_free(ix);
		return PV_ENOMEM;
	}
	for (int side = 0; side < 2; side++) {
		int64_t *eff = side ? g->eff_in : g->eff_out;
		for (uint32_t f = 0; f < g->nf; f++) {
			uint32_t a = side ? g->in_first[f] : g->out_first[f];
			uint32_t b = side ? g->in_first[f + 1] : g->out_first[f + 1];
			for (uint32_t k = 0; k < nm; k++) {
				int64_t left = g->incl[(size_t)f * nm + k];
				if (!side)
					left -= g->self[(size_t)f * nm + k];
				uint32_t n = 0;
				for (uint32_t j = a; j < b; j++) {
					uint32_t e = side ? g->in_edge[j] : j;
					uint32_t other = side ? g->from[e] : g->to[e];
					int64_t c = g->cost[(size_t)e * nm + k];
					if (other == f) {
						eff[(size_t)e * nm + k] = 0;
					} else if (g->scc[other] != g->scc[f]) {
						eff[(size_t)e * nm + k] = c;
						left -= pos(c);
					} else {
						ix[n] = e;
						w[n++] = pos(c);
					}
				}
				if (!n)
					continue;
				pv_apportion(pos(left), w, n, o);
				for (uint32_t i = 0; i < n; i++)
					eff[(size_t)ix[i] * nm + k] = w[i] ? o[i] : 0;
			}
		}
	}
	pv_free(w);
	pv_free(o);
	pv_free(ix);
	return 0;
}

/*
 * The rows a graph's edges come from: row x's caller, callee and kind, and its cost of metric k:
 * col[metrics[k]][x] (the model's columns) or flat[x * nm + k].
 */
struct edge_rows {
	const uint32_t *from, *to;
	const uint8_t *kind;
	int64_t *const *col;
	const pv_metric_ix *metrics;
	const int64_t *flat;
};

/*
 * The edges of rows idx[0..n) (idx taken over), one per (caller, callee, kind), then the indexes,
 * components, inclusive and effective costs. g->nf, nm, self, present and called are set; called
 * and present are updated from the edges. 0, or PV_ENOMEM with g released.
 */
static int graph_edges(struct cg_graph *g, const struct edge_rows *s, uint32_t *idx, uint32_t n,
		       bool effective)
{
	uint32_t nf = g->nf, nm = g->nm;
	size_t n1 = nf ? nf : 1, m1 = nm ? nm : 1, e1 = n ? n : 1;
	uint32_t *tmp = pv_malloc(e1 * sizeof(uint32_t));
	uint32_t *last = pv_calloc(2 * n1, sizeof(uint32_t)); /* (callee, kind) -> its edge */
	int rc = tmp && last ? count_sort(idx, n, s->from, nf, tmp) : PV_ENOMEM;
	pv_free(tmp);
	g->from = pv_malloc(e1 * sizeof(uint32_t));
	g->to = pv_malloc(e1 * sizeof(uint32_t));
	g->kind = pv_malloc(e1);
	g->cost = pv_calloc(e1 * m1, sizeof(int64_t));
	g->out_first = pv_calloc(n1 + 1, sizeof(uint32_t));
	g->in_first = pv_calloc(n1 + 1, sizeof(uint32_t));
	g->in_edge = pv_malloc(e1 * sizeof(uint32_t));
	if (rc || !g->from || !g->to || !g->kind || !g->cost || !g->out_first || !g->in_first ||
	    !g->in_edge) {
		pv_free(idx);
		pv_free(last);
		goto oom;
	}
	uint32_t ne = 0, group = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = idx[i];
		uint32_t a = s->from[x], b = s->to[x];
		uint8_t kd = s->kind[x];
		if (!ne || g->from[ne - 1] != a)
			group = ne; /* a new caller: its edges start here */
		uint32_t *l = &last[2 * (size_t)b + kd];
		if (!(*l >= group && *l < ne && g->from[*l] == a && g->to[*l] == b &&
		      g->kind[*l] == kd)) {
			*l = ne;
			g->from[ne] = a;
			g->to[ne] = b;
			g->kind[ne] = kd;
			ne++;
		}
		for (uint32_t k = 0; k < nm; k++)
			g->cost[(size_t)*l * nm + k] +=
			    s->col ? s->col[s->metrics[k]][x] : s->flat[(size_t)x * nm + k];
		g->present[a] = g->present[b] = 1;
		if (!kd && a != b)
			g->called[b] = 1;
	}
	pv_free(idx);
	pv_free(last);
	g->ne = ne;
	for (uint32_t e = 0; e < ne; e++) {
		g->out_first[g->from[e] + 1]++;
		g->in_first[g->to[e] + 1]++;
	}
	for (uint32_t f = 0; f < nf; f++) {
		g->out_first[f + 1] += g->out_first[f];
		g->in_first[f + 1] += g->in_first[f];
	}
	uint32_t *fill = pv_calloc(n1, sizeof(uint32_t));
	if (!fill)
		goto oom;
	for (uint32_t e = 0; e < ne; e++)
		g->in_edge[g->in_first[g->to[e]] + fill[g->to[e]]++] = e;
	pv_free(fill);
	if (find_sccs(g) || all_inclusive(g) || (effective && effective_costs(g)))
		goto oom;
	return 0;
oom:
	cg_graph_release(g);
	return PV_ENOMEM;
}

int cg_graph_build(const struct pv_profile *p, const pv_metric_ix *metrics, uint32_t nm,
		   const uint8_t *sel, struct cg_graph *g)
{
	const struct pv_callgraph *cg = &p->callgraph;
	memset(g, 0, sizeof(*g));
	uint32_t nf = p->funcs.len;
	size_t n1 = nf ? nf : 1, m1 = nm ? nm : 1;
	g->nf = nf;
	g->nm = nm;
	g->self = pv_calloc(n1 * m1, sizeof(int64_t));
	g->present = pv_calloc(n1, 1);
	g->called = pv_calloc(n1, 1);
	uint32_t *idx = pv_malloc((cg->nr_edges ? cg->nr_edges : 1) * sizeof(uint32_t));
	if (!g->self || !g->present || !g->called || !idx) {
		pv_free(idx);
		goto oom;
	}
	for (uint32_t i = 0; i < cg->nr_nodes; i++) {
		if (sel && !sel[cg->node_thread[i]])
			continue;
		uint32_t f = cg->node_func[i];
		g->present[f] = 1;
		for (uint32_t k = 0; k < nm; k++)
			g->self[(size_t)f * nm + k] += cg->node_self[metrics[k]][i];
	}
	/* the selected edges, grouped by caller in graph_edges */
	uint32_t n = 0;
	for (uint32_t i = 0; i < cg->nr_edges; i++)
		if (!sel || sel[cg->edge_thread[i]])
			idx[n++] = i;
	struct edge_rows s = {.from = cg->caller,
			      .to = cg->callee,
			      .kind = cg->kind,
			      .col = cg->edge_cost,
			      .metrics = metrics};
	return graph_edges(g, &s, idx, n, true);
oom:
	cg_graph_release(g);
	return PV_ENOMEM;
}

int cg_graph_of(uint32_t nf, uint32_t nm, int64_t *self, uint32_t n, const uint32_t *from,
		const uint32_t *to, const uint8_t *kind, const int64_t *cost, bool effective,
		struct cg_graph *g)
{
	memset(g, 0, sizeof(*g));
	size_t n1 = nf ? nf : 1;
	g->nf = nf;
	g->nm = nm;
	g->self = self;
	g->present = pv_malloc(n1);
	g->called = pv_calloc(n1, 1);
	uint32_t *idx = pv_malloc((n ? n : 1) * sizeof(uint32_t));
	if (!g->present || !g->called || !idx) {
		pv_free(idx);
		goto oom;
	}
	memset(g->present, 1, nf);
	for (uint32_t i = 0; i < n; i++)
		idx[i] = i;
	struct edge_rows s = {.from = from, .to = to, .kind = kind, .flat = cost};
	return graph_edges(g, &s, idx, n, effective);
oom:
	cg_graph_release(g);
	return PV_ENOMEM;
}

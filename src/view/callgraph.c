/*
 * callgraph.c - views of a call-graph profile (callgrind) computed from its call graph, as
 * KCachegrind computes them, not from estimated stacks (doc/callgraph.md).
 *
 * The graph of the selected threads (model/callgraph.h) gives every function's self cost, its
 * inclusive cost, and each call's cost; the trees grow from it by the rule of model/cgtree.h,
 * from the center or from the roots (the functions nothing calls). Past a row budget the
 * lightest rows are left unexpanded (the view's note says how many). Cost: the graph (linear in
 * the file's calls), then per expanded row its calls and its depth.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "model/cgtree.h"
#include "view/internal.h"

#define ROW_BUDGET 100000u /* rows, at least (or the query's max_rows) */

/* The rows as a view's tree (sorted and linked by the engine). */
static int to_tree(struct pv_view *v, const struct cg_rows *R, struct pv_tree **out,
		   struct pv_error *err)
{
	uint32_t nm = R->nm, n = R->len ? R->len : 1;
	struct pv_tree *t = pv_calloc(1, sizeof(*t));
	if (!t)
		return pv_error_set(err, PV_ENOMEM, "out of memory building a tree");
	t->len = R->len;
	t->kind = pv_malloc(n);
	t->id = pv_malloc((size_t)n * sizeof(uint32_t));
	t->line = pv_calloc(n, sizeof(uint32_t));
	t->parent = pv_malloc((size_t)n * sizeof(uint32_t));
	t->depth = pv_malloc((size_t)n * sizeof(uint32_t));
	t->estimated = pv_malloc(n);
	t->total = pv_calloc(nm, sizeof(int64_t *));
	t->self = pv_calloc(nm, sizeof(int64_t *));
	bool ok = t->kind && t->id && t->line && t->parent && t->depth && t->estimated &&
		  t->total && t->self;
	for (uint32_t k = 0; ok && k < nm; k++) {
		t->total[k] = pv_malloc((size_t)n * sizeof(int64_t));
		t->self[k] = pv_malloc((size_t)n * sizeof(int64_t));
		ok = t->total[k] && t->self[k];
	}
	if (ok) {
		for (uint32_t r = 0; r < R->len; r++) {
			bool c = R->func[r] == PV_NONE;
			t->kind[r] = c ? PV_ROW_CENTER : PV_ROW_FUNCTION;
			t->id[r] = c ? 0 : R->func[r];
			t->parent[r] = R->parent[r];
			t->depth[r] = R->depth[r];
			t->estimated[r] = R->est[r];
			for (uint32_t k = 0; k < nm; k++) {
				t->total[k][r] = R->total[(size_t)r * nm + k];
				t->self[k][r] = R->self[(size_t)r * nm + k];
			}
		}
	}
	int rc = ok ? pv__tree_finish(v, t, err)
		    : pv_error_set(err, PV_ENOMEM, "out of memory building a tree");
	if (rc) {
		pv__tree_free(t, nm);
		return rc;
	}
	*out = t;
	return 0;
}

struct center {
	uint8_t *mask;
	uint32_t *mem;
	uint32_t n;
	struct cg_set set; /* its costs (model/callgraph.h) */
};

/* One tree: top-down or bottom-up, centered (c) or from the roots. */
static int one_tree(struct pv_view *v, const struct cg_graph *g, const struct center *c, bool up,
		    struct pv_tree **out, uint32_t *unexpanded, struct pv_error *err)
{
	struct cg_grow G;
	memset(&G, 0, sizeof(G));
	uint32_t nm = g->nm, nf = g->nf;
	int rc = 0;
	if (cg_grow_init(&G, g))
		goto oom;
	G.up = up;
	G.max_depth = v->q.depth;
	G.budget = v->q.max_rows > ROW_BUDGET ? v->q.max_rows : ROW_BUDGET;
	int64_t zero[PV_QUERY_MAX] = {0}, sv[PV_QUERY_MAX];
	if (c) {
		G.cmask = c->mask;
		G.cmem = c->mem;
		G.ncmem = c->n;
		G.set = &c->set;
		bool est = c->set.estimated || c->set.self_estimated;
		if (cg_rows_add(&G.R, PV_NONE, PV_NONE, c->set.total, c->set.self, est, !est))
			goto oom;
	} else if (up) {
		/* the inverted tree: every function with a self cost, flowing to its callers */
		for (uint32_t f = 0; f < nf; f++) {
			const int64_t *s = g->self + (size_t)f * nm;
			bool any = false, full = true;
			for (uint32_t k = 0; k < nm; k++) {
				any |= s[k] != 0;
				full &= s[k] == g->incl[(size_t)f * nm + k];
			}
			if (any && cg_rows_add(&G.R, f, PV_NONE, s, s, false, full))
				goto oom;
		}
	} else {
		/* the roots: functions nothing calls (or inlines), and one function of each cycle
		 * nothing enters */
		uint8_t *entered = pv_calloc((size_t)nf + 1, 1),
			*root = pv_calloc((size_t)nf + 1, 1);
		uint32_t *best = pv_malloc(((size_t)nf + 1) * sizeof(uint32_t));
		if (!entered || !root || !best) {
			pv_free(entered);
			pv_free(root);
			pv_free(best);
			goto oom;
		}
		for (uint32_t f = 0; f < nf; f++) {
			bool in = false;
			for (uint32_t j = g->in_first[f]; j < g->in_first[f + 1]; j++) {
				uint32_t u = g->from[g->in_edge[j]];
				in |= u != f;
				if (g->scc[u] != g->scc[f])
					entered[g->scc[f]] = 1;
			}
			root[f] = g->present[f] && !in;
			best[f] = PV_NONE;
		}
		for (uint32_t f = 0; f < nf; f++) {
			uint32_t cc = g->scc[f];
			if (root[f])
				entered[cc] = 1;
		}
		for (uint32_t f = 0; f < nf; f++) {
			uint32_t cc = g->scc[f];
			if (!g->present[f] || entered[cc])
				continue;
			if (best[cc] == PV_NONE ||
			    g->incl[(size_t)f * nm] > g->incl[(size_t)best[cc] * nm])
				best[cc] = f;
		}
		for (uint32_t cc = 0; cc < nf; cc++)
			if (best[cc] != PV_NONE)
				root[best[cc]] = 1;
		for (uint32_t f = 0; f < nf && !rc; f++) {
			if (!root[f])
				continue;
			const int64_t *t = g->incl + (size_t)f * nm;
			bool any = false;
			for (uint32_t k = 0; k < nm; k++)
				any |= t[k] != 0 || g->self[(size_t)f * nm + k] != 0;
			if (!any)
				continue;
			cg_first_self(&G, f, t, sv);
			if (cg_rows_add(&G.R, f, PV_NONE, t, sv, false, true))
				rc = -1;
		}
		pv_free(entered);
		pv_free(root);
		pv_free(best);
		if (rc)
			goto oom;
	}
	(void)zero;
	if (cg_grow_all(&G))
		goto oom;
	*unexpanded += G.unexpanded;
	rc = to_tree(v, &G.R, out, err);
	cg_grow_release(&G);
	return rc;
oom:
	cg_grow_release(&G);
	return pv_error_set(err, PV_ENOMEM, "out of memory building a call-graph tree");
}

static const char fallback_note[] =
    "calling contexts estimated from the call graph (callgrind stores no stacks): this "
    "query needs stacks (a filter, a time range, lines, files or modules as rows, a line or "
    "path center); without them the tree, callers and butterfly views are computed from the "
    "call graph";

/*
 * A query the graph does not answer (a filter, a time range, rows other than functions, views
 * other than the trees): the engine's estimated stacks, with a note; top and flat of the whole
 * profile show the file's exact costs (engine.c), without one. Returns 1 when so (*rc: the
 * error, or 0), 0 when the graph answers.
 */
static int not_from_graph(struct pv_view *v, int *rc, struct pv_error *err)
{
	const struct pv_query *q = &v->q;
	bool whole = !q->nr_filters && !q->has_range && !q->inside_markers &&
		     v->nr_threads == v->p->threads.len && !q->nr_center && q->by == PV_BY_FUNCTION;
	bool tree = q->view == PV_VIEW_TREE || q->view == PV_VIEW_CALLERS ||
		    (q->view == PV_VIEW_BUTTERFLY && q->nr_center);
	bool plain =
	    !q->nr_filters && !q->has_range && !q->inside_markers && q->by == PV_BY_FUNCTION;
	*rc = 0;
	if (tree && plain)
		return 0;
	if (!((q->view == PV_VIEW_TOP || q->view == PV_VIEW_FLAT) && whole) &&
	    !(v->note = pv_strdup(fallback_note)))
		*rc = pv_error_set(err, PV_ENOMEM, "out of memory");
	return 1;
}

/* The center's functions into c->mask (v has a center). Returns 1 when the graph cannot take
 * the center (a line, a path: the engine's stacks then, with a note; *rc the error or 0). */
static int center_funcs(struct pv_view *v, struct center *c, int *rc, struct pv_error *err)
{
	bool funcs_only = true;
	*rc = 0;
	c->mask = pv_calloc((size_t)v->p->funcs.len + 1, 1);
	if (!c->mask) {
		*rc = pv_error_set(err, PV_ENOMEM, "out of memory");
		return 1;
	}
	*rc = pv__view_center_funcs(v, c->mask, &funcs_only, err);
	if (!*rc && funcs_only)
		return 0;
	pv_free(c->mask);
	c->mask = NULL;
	pv_free(v->center_label); /* the engine's pipeline sets it again */
	v->center_label = NULL;
	if (!*rc && !(v->note = pv_strdup(fallback_note)))
		*rc = pv_error_set(err, PV_ENOMEM, "out of memory");
	return 1;
}

/* The call graph of the view's threads, and the view's sample count and whole. */
static int threads_graph(struct pv_view *v, struct cg_graph *g, struct pv_error *err)
{
	const struct pv_profile *p = v->p;
	uint32_t nm = v->nr_metrics;
	uint8_t *sel = NULL;
	if (v->nr_threads != p->threads.len) {
		sel = pv_calloc((size_t)p->threads.len + 1, 1);
		if (!sel)
			return pv_error_set(err, PV_ENOMEM, "out of memory");
		for (uint32_t i = 0; i < v->nr_threads; i++)
			sel[v->threads[i]] = 1;
	}
	int rc = cg_graph_build(p, v->metrics, nm, sel, g);
	pv_free(sel);
	if (rc)
		return pv_error_set(err, PV_ENOMEM, "out of memory building the call graph");
	for (uint32_t i = 0; i < v->nr_threads; i++)
		v->nr_samples +=
		    p->threads.sample_end[v->threads[i]] - p->threads.sample_begin[v->threads[i]];
	for (uint32_t f = 0; f < p->funcs.len; f++)
		for (uint32_t k = 0; k < nm; k++)
			v->whole[k] += g->self[(size_t)f * nm + k];
	return 0;
}

/* The center's members and costs (c->set), and the view's center total. */
static int center_costs(struct pv_view *v, const struct cg_graph *g, struct center *c,
			struct pv_error *err)
{
	uint32_t nf = v->p->funcs.len;
	c->mem = pv_malloc(((size_t)nf + 1) * sizeof(uint32_t));
	if (!c->mem)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	for (uint32_t f = 0; f < nf; f++)
		if (c->mask[f])
			c->mem[c->n++] = f;
	if (cg_set_costs(g, c->mask, c->mem, c->n, &c->set))
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	memcpy(v->center, c->set.total, v->nr_metrics * sizeof(int64_t));
	return 0;
}

/* The view's note: what is exact and what estimated, and the rows a budget left unexpanded. */
static int graph_note(struct pv_view *v, const struct center *c, uint32_t unexpanded,
		      struct pv_error *err)
{
	const struct pv_profile *p = v->p;
	uint32_t nm = v->nr_metrics,
		 budget = v->q.max_rows > ROW_BUDGET ? v->q.max_rows : ROW_BUDGET;
	char note[640];
	int n;
	uint32_t kb = 0; /* the first metric whose total is only bounded */
	while (v->centered && c->set.estimated && kb + 1 < nm && c->set.lo[kb] == c->set.hi[kb])
		kb++;
	if (v->centered && c->set.estimated)
		n = snprintf(note, sizeof(note),
			     "call graph: the center's functions run inside one another through "
			     "other functions, so the file bounds its total: at least %lld, at "
			     "most %lld (%s); rows marked ~ are estimated (split in proportion to "
			     "the calls' costs)",
			     (long long)c->set.lo[kb], (long long)c->set.hi[kb],
			     pv_str(p, p->metrics.name[v->metrics[kb]]));
	else if (v->centered && c->set.self_estimated)
		n = snprintf(note, sizeof(note), "%s",
			     "call graph: the center's total is the file's exact cost; some of its "
			     "functions also run inside others' through other functions, so its "
			     "self and the calls next to it are estimated where marked ~ (split in "
			     "proportion to the calls' costs), as are the rows further away");
	else
		n = snprintf(note, sizeof(note), "%s",
			     v->centered
				 ? "call graph: the center's total and self and the calls next to "
				   "it are the file's exact costs; rows marked ~ are estimated "
				   "(split in proportion to the calls' costs)"
				 : "call graph: a root's total is its function's exact inclusive "
				   "cost; rows marked ~ are estimated (split in proportion to the "
				   "calls' costs)");
	if (unexpanded && n > 0 && (size_t)n < sizeof(note))
		snprintf(note + n, sizeof(note) - (size_t)n,
			 "; %u light rows not expanded (at most %u rows)", unexpanded, budget);
	if (!(v->note = pv_strdup(note)))
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	return 0;
}

int pv__callgraph_view(struct pv_view *v, bool *done, struct pv_error *err)
{
	const struct pv_profile *p = v->p;
	const struct pv_query *q = &v->q;
	*done = false;
	if (!p->callgraph.nr_nodes && !p->callgraph.nr_edges)
		return 0;
	struct center c;
	memset(&c, 0, sizeof(c));
	struct cg_graph g;
	memset(&g, 0, sizeof(g));
	int rc = 0;
	if (not_from_graph(v, &rc, err) || (q->nr_center && center_funcs(v, &c, &rc, err)))
		return rc;
	if ((rc = threads_graph(v, &g, err)))
		goto out;
	v->centered = q->nr_center > 0;
	if (v->centered && (rc = center_costs(v, &g, &c, err)))
		goto out;
	if (!v->centered)
		memcpy(v->center, v->whole, sizeof(v->whole));
	pv__view_set_base(v);
	uint32_t unexpanded = 0;
	const struct center *cp = v->centered ? &c : NULL;
	if (q->view == PV_VIEW_BUTTERFLY) {
		rc = one_tree(v, &g, cp, true, &v->callers, &unexpanded, err);
		if (!rc)
			rc = one_tree(v, &g, cp, false, &v->tree, &unexpanded, err);
	} else {
		rc = one_tree(v, &g, cp, q->view == PV_VIEW_CALLERS, &v->tree, &unexpanded, err);
	}
	if (!rc && !(rc = graph_note(v, &c, unexpanded, err)))
		*done = v->priv->from_graph = true;
out:
	cg_graph_release(&g);
	cg_set_release(&c.set);
	pv_free(c.mask);
	pv_free(c.mem);
	return rc;
}

/*
 * callgraph.c - views of a call-graph profile (callgrind) computed from its call graph, as
 * KCachegrind computes them, not from estimated stacks (doc/callgraph.md).
 *
 * The graph of the selected threads (model/callgraph.h) gives every function's self cost, its
 * inclusive cost, and each call's cost. A tree grows from its roots, best first (the heaviest
 * row waiting is expanded next), each row splitting its total over what it holds:
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
 * unexpanded (the view's note says how many). Cost: the graph (linear in the file's calls),
 * then per expanded row its calls and its depth.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "model/callgraph.h"
#include "view/internal.h"

#define ROW_BUDGET 100000u /* rows, at least (or the query's max_rows) */

struct rows {
	uint32_t len, cap, nm;
	uint32_t *func; /* PV_NONE: the center */
	uint32_t *parent, *depth;
	int64_t *total, *self; /* [r * nm + k] */
	uint8_t *est, *full;
};

static int rows_add(struct rows *R, uint32_t func, uint32_t parent, const int64_t *total,
		    const int64_t *self, bool est, bool full)
{
	uint32_t nm = R->nm;
	if (R->len == R->cap) {
		uint32_t nc = grow_cap(R->cap, (uint64_t)R->len + 1);
		if (!nc || COL_GROW(R->func, nc) || COL_GROW(R->parent, nc) ||
		    COL_GROW(R->depth, nc) || COL_GROW(R->est, nc) || COL_GROW(R->full, nc) ||
		    col_realloc((void **)&R->total, nm * sizeof(int64_t), nc) ||
		    col_realloc((void **)&R->self, nm * sizeof(int64_t), nc))
			return -1;
		R->cap = nc;
	}
	uint32_t r = R->len++;
	R->func[r] = func;
	R->parent[r] = parent;
	R->depth[r] = parent == PV_NONE ? 0 : R->depth[parent] + 1;
	memcpy(R->total + (size_t)r * nm, total, nm * sizeof(int64_t));
	memcpy(R->self + (size_t)r * nm, self, nm * sizeof(int64_t));
	R->est[r] = est;
	R->full[r] = full;
	return 0;
}

static void rows_release(struct rows *R)
{
	pv_free(R->func);
	pv_free(R->parent);
	pv_free(R->depth);
	pv_free(R->total);
	pv_free(R->self);
	pv_free(R->est);
	pv_free(R->full);
}

/* A max-heap of rows by the first metric's total (ties: the older row first). */
struct heap {
	uint32_t *a;
	uint32_t n, cap;
	const struct rows *R;
};

static bool heap_before(const struct heap *h, uint32_t x, uint32_t y)
{
	int64_t a = h->R->total[(size_t)x * h->R->nm], b = h->R->total[(size_t)y * h->R->nm];
	a = a < 0 ? -a : a;
	b = b < 0 ? -b : b;
	return a != b ? a > b : x < y;
}

static int heap_push(struct heap *h, uint32_t r)
{
	if (h->n == h->cap) {
		uint32_t nc = grow_cap(h->cap, (uint64_t)h->n + 1);
		if (!nc || COL_GROW(h->a, nc))
			return -1;
		h->cap = nc;
	}
	uint32_t i = h->n++;
	while (i && heap_before(h, r, h->a[(i - 1) / 2])) {
		h->a[i] = h->a[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->a[i] = r;
	return 0;
}

static uint32_t heap_pop(struct heap *h)
{
	uint32_t top = h->a[0], last = h->a[--h->n], i = 0;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && heap_before(h, h->a[c + 1], h->a[c]))
			c++;
		if (!heap_before(h, h->a[c], last))
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	if (h->n)
		h->a[i] = last;
	return top;
}

struct grow {
	const struct cg_graph *g;
	const uint8_t *cmask; /* the center's functions, NULL without a center */
	const uint32_t *cmem;
	uint32_t ncmem;
	const struct cg_set *set; /* the center's costs and its functions' shares */
	bool up;		  /* bottom-up */
	uint32_t max_depth;	  /* rows at this depth are not made (0: no limit) */
	struct rows R;
	struct heap H;
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

/*
 * Whether f is on the path of the row being expanded: a row above it, or the center. Above the
 * center (bottom-up) no member comes: the center is the outermost. Below a center of one
 * function, the function is not expanded again (the center holds its cost, as a recursion's
 * outer row does). Below a set, a member called by another function is a run nested in the
 * center's (a member whose every run is the center's own is never called from below it), a
 * row of its own as in the stacks' views.
 */
static bool on_path(const struct grow *G, uint32_t f)
{
	return G->on[f] || (G->cmask && G->cmask[f] && (G->up || G->ncmem == 1));
}

/*
 * The neighbours of the functions fs[0..n) (callees, or callers when up) off the path. The
 * center's (center: fs are its members) are the calls that its own runs make, or that start
 * them: a member's calls in the part of its runs that are the center's, the calls into it from
 * a function in the part of that function's runs outside the center (struct cg_set).
 */
static uint32_t neighbours(struct grow *G, const uint32_t *fs, uint32_t n, bool center)
{
	const struct cg_graph *g = G->g;
	uint32_t nm = g->nm, nn = 0;
	for (uint32_t k = 0; k < nm; k++)
		G->all[k] = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t f = fs[i];
		uint32_t a = G->up ? g->in_first[f] : g->out_first[f];
		uint32_t b = G->up ? g->in_first[f + 1] : g->out_first[f + 1];
		for (uint32_t j = a; j < b; j++) {
			uint32_t e = G->up ? g->in_edge[j] : j;
			uint32_t x = G->up ? g->from[e] : g->to[e];
			const int64_t *eff = (G->up ? g->eff_in : g->eff_out) + (size_t)e * nm;
			if (x == f || (center && G->cmask[x]))
				continue; /* a call to itself, or inside the center */
			/* the part of the call in the center's runs */
			uint32_t by = G->up ? x : f;
			const double *sh = center ? G->set->share + (size_t)by * nm : NULL;
			bool part = center && G->set->mixed[by];
			if (sh && !part && sh[0] == 0)
				continue;
			int64_t c[PV_QUERY_MAX];
			for (uint32_t k = 0; k < nm; k++) {
				c[k] = eff[k] > 0 ? eff[k] : 0;
				if (part)
					c[k] = (int64_t)((double)c[k] * sh[k] + 0.5);
				G->all[k] += c[k];
			}
			if (on_path(G, x))
				continue;
			uint32_t s = G->slot[x];
			if (!s) {
				s = G->slot[x] = ++nn;
				G->nb[s - 1] = x;
				memset(G->w + (size_t)(s - 1) * nm, 0, nm * sizeof(int64_t));
				memset(G->raw + (size_t)(s - 1) * nm, 0, nm * sizeof(int64_t));
				G->part[s - 1] = 0;
			}
			G->part[s - 1] |= part;
			for (uint32_t k = 0; k < nm; k++) {
				G->w[(size_t)(s - 1) * nm + k] += c[k];
				G->raw[(size_t)(s - 1) * nm + k] += g->cost[(size_t)e * nm + k];
			}
		}
	}
	for (uint32_t i = 0; i < nn; i++)
		G->slot[G->nb[i]] = 0;
	return nn;
}

/* A top-down row's self before it is expanded: its function's share of its total. */
static void first_self(const struct grow *G, uint32_t f, const int64_t *total, int64_t *self)
{
	const struct cg_graph *g = G->g;
	uint32_t nm = g->nm;
	for (uint32_t k = 0; k < nm; k++) {
		int64_t w[2] = {g->self[(size_t)f * nm + k], 0}, o[2];
		for (uint32_t e = g->out_first[f]; e < g->out_first[f + 1]; e++)
			w[1] +=
			    g->eff_out[(size_t)e * nm + k] > 0 ? g->eff_out[(size_t)e * nm + k] : 0;
		w[0] = w[0] > 0 ? w[0] : 0;
		pv_apportion(total[k], w, 2, o);
		self[k] = o[0];
	}
}

/*
 * Marks the functions on the path of row r: unmarks cur's path up to the rows they share and
 * marks r's from there, so the cost is the distance between the two rows (a child expanded
 * after its parent: one row), not r's depth.
 */
static void path_move(struct grow *G, uint32_t r)
{
	const struct rows *R = &G->R;
	uint32_t a = G->cur, b = r, n = 0;
	while (a != PV_NONE && (b == PV_NONE || R->depth[a] > R->depth[b])) {
		if (R->func[a] != PV_NONE)
			G->on[R->func[a]] = 0;
		a = R->parent[a];
	}
	while (b != PV_NONE && (a == PV_NONE || R->depth[b] > R->depth[a])) {
		G->climb[n++] = b;
		b = R->parent[b];
	}
	while (a != b) {
		if (R->func[a] != PV_NONE)
			G->on[R->func[a]] = 0;
		a = R->parent[a];
		G->climb[n++] = b;
		b = R->parent[b];
	}
	while (n)
		if (R->func[G->climb[--n]] != PV_NONE)
			G->on[R->func[G->climb[n]]] = 1;
	G->cur = r;
}

static int expand(struct grow *G, uint32_t r)
{
	const struct cg_graph *g = G->g;
	uint32_t nm = g->nm;
	struct rows *R = &G->R;
	if (G->max_depth && R->depth[r] + 1 >= G->max_depth)
		return 0;
	if (R->len >= G->budget) {
		G->unexpanded++;
		return 0;
	}
	path_move(G, r);
	uint32_t f = R->func[r];
	bool center = f == PV_NONE;
	uint32_t nn = center ? neighbours(G, G->cmem, G->ncmem, true) : neighbours(G, &f, 1, false);
	int64_t *T = R->total + (size_t)r * nm, *S = R->self + (size_t)r * nm;
	if (!nn) {
		if (!G->up && !center)
			memcpy(S, T, nm * sizeof(int64_t));
		return 0;
	}
	for (uint32_t k = 0; k < nm; k++) {
		int64_t sum = 0;
		for (uint32_t i = 0; i < nn; i++) {
			G->wk[i + 1] = G->w[(size_t)i * nm + k];
			sum += G->wk[i + 1];
		}
		if (!G->up && center) {
			/* the center: its self is exact, its calls share the rest */
			G->wk[0] = 0;
			if (sum > 0)
				pv_apportion(T[k] > S[k] ? T[k] - S[k] : 0, G->wk, nn + 1, G->ok);
			else
				memset(G->ok, 0, (nn + 1) * sizeof(int64_t));
		} else if (!G->up) {
			/* the total over the function's self and its calls off the path */
			int64_t own = g->self[(size_t)f * nm + k];
			G->wk[0] = own > 0 ? own : 0;
			pv_apportion(T[k], G->wk, nn + 1, G->ok);
			S[k] = G->ok[0];
		} else {
			/* bottom-up: the callers off the path get their part of the function's
			 * inclusive cost; the rest (callers on the path, runs no call brought)
			 * stays */
			int64_t d = center ? T[k] : g->incl[(size_t)f * nm + k];
			if (G->all[k] > d)
				d = G->all[k];
			G->wk[0] = d > sum ? d - sum : 0;
			pv_apportion(S[k], G->wk, nn + 1, G->ok);
			for (uint32_t i = 0; i < nn; i++)
				G->sval[(size_t)i * nm + k] = G->ok[i + 1];
			pv_apportion(T[k], G->wk, nn + 1, G->ok);
		}
		for (uint32_t i = 0; i < nn; i++)
			G->val[(size_t)i * nm + k] = G->ok[i + 1];
	}
	for (uint32_t i = 0; i < nn; i++) {
		uint32_t x = G->nb[i];
		int64_t *v = G->val + (size_t)i * nm, *sv = G->sval + (size_t)i * nm;
		bool any = false, exact = !R->est[r] && R->full[r] && !G->part[i], full = true;
		for (uint32_t k = 0; k < nm; k++) {
			any |= v[k] != 0;
			exact &= v[k] == G->raw[(size_t)i * nm + k];
			full &= v[k] == g->incl[(size_t)x * nm + k];
		}
		if (!any)
			continue;
		if (!G->up)
			first_self(G, x, v, sv);
		if (rows_add(R, x, r, v, sv, !exact, full && exact) || heap_push(&G->H, R->len - 1))
			return -1;
	}
	return 0;
}

/* Grows a tree from the rows already made (its roots) until none is left to expand. */
static int grow_all(struct grow *G)
{
	for (uint32_t r = 0; r < G->R.len; r++)
		if (heap_push(&G->H, r))
			return -1;
	while (G->H.n)
		if (expand(G, heap_pop(&G->H)))
			return -1;
	return 0;
}

static int grow_init(struct grow *G, const struct cg_graph *g)
{
	uint32_t nf = g->nf, nm = g->nm;
	size_t n1 = (size_t)nf + 1, m1 = nm ? nm : 1;
	G->g = g;
	G->R.nm = nm;
	G->H.R = &G->R;
	G->on = pv_calloc(n1, 1);
	G->cur = PV_NONE;
	G->climb = pv_malloc((n1 + 1) * sizeof(uint32_t)); /* a path: distinct functions */
	G->slot = pv_calloc(n1, sizeof(uint32_t));
	G->nb = pv_malloc(n1 * sizeof(uint32_t));
	G->w = pv_malloc(n1 * m1 * sizeof(int64_t));
	G->raw = pv_malloc(n1 * m1 * sizeof(int64_t));
	G->part = pv_malloc(n1);
	G->val = pv_malloc(n1 * m1 * sizeof(int64_t));
	G->sval = pv_calloc(n1 * m1, sizeof(int64_t));
	G->all = pv_malloc(m1 * sizeof(int64_t));
	G->wk = pv_malloc((n1 + 1) * sizeof(int64_t));
	G->ok = pv_malloc((n1 + 1) * sizeof(int64_t));
	return G->on && G->climb && G->slot && G->nb && G->w && G->raw && G->part && G->val &&
		       G->sval && G->all && G->wk && G->ok
		   ? 0
		   : -1;
}

static void grow_release(struct grow *G)
{
	rows_release(&G->R);
	pv_free(G->H.a);
	pv_free(G->on);
	pv_free(G->climb);
	pv_free(G->slot);
	pv_free(G->nb);
	pv_free(G->w);
	pv_free(G->raw);
	pv_free(G->part);
	pv_free(G->val);
	pv_free(G->sval);
	pv_free(G->all);
	pv_free(G->wk);
	pv_free(G->ok);
}

/* The rows as a view's tree (sorted and linked by the engine). */
static int to_tree(struct pv_view *v, const struct rows *R, struct pv_tree **out,
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
	struct grow G;
	memset(&G, 0, sizeof(G));
	uint32_t nm = g->nm, nf = g->nf;
	int rc = 0;
	if (grow_init(&G, g))
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
		if (rows_add(&G.R, PV_NONE, PV_NONE, c->set.total, c->set.self, est, !est))
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
			if (any && rows_add(&G.R, f, PV_NONE, s, s, false, full))
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
			first_self(&G, f, t, sv);
			if (rows_add(&G.R, f, PV_NONE, t, sv, false, true))
				rc = -1;
		}
		pv_free(entered);
		pv_free(root);
		pv_free(best);
		if (rc)
			goto oom;
	}
	(void)zero;
	if (grow_all(&G))
		goto oom;
	*unexpanded += G.unexpanded;
	rc = to_tree(v, &G.R, out, err);
	grow_release(&G);
	return rc;
oom:
	grow_release(&G);
	return pv_error_set(err, PV_ENOMEM, "out of memory building a call-graph tree");
}

static const char fallback_note[] =
    "calling contexts estimated from the call graph (callgrind stores no stacks): this "
    "query needs stacks (a filter, a time range, lines, files or modules as rows, a line or "
    "path center); without them the tree, callers and butterfly views are computed from the "
    "call graph";

int pv__callgraph_view(struct pv_view *v, bool *done, struct pv_error *err)
{
	const struct pv_profile *p = v->p;
	const struct pv_query *q = &v->q;
	*done = false;
	if (!p->callgraph.nr_nodes && !p->callgraph.nr_edges)
		return 0;
	bool whole = !q->nr_filters && !q->has_range && !q->inside_markers &&
		     v->nr_threads == p->threads.len && !q->nr_center && q->by == PV_BY_FUNCTION;
	bool tree = q->view == PV_VIEW_TREE || q->view == PV_VIEW_CALLERS ||
		    (q->view == PV_VIEW_BUTTERFLY && q->nr_center);
	bool plain =
	    !q->nr_filters && !q->has_range && !q->inside_markers && q->by == PV_BY_FUNCTION;
	if (!tree || !plain) {
		/* top and flat of the whole profile show the file's exact costs (engine.c) */
		if (!((q->view == PV_VIEW_TOP || q->view == PV_VIEW_FLAT) && whole) &&
		    !(v->note = pv_strdup(fallback_note)))
			return pv_error_set(err, PV_ENOMEM, "out of memory");
		return 0;
	}
	uint32_t nf = p->funcs.len, nm = v->nr_metrics;
	struct center c;
	memset(&c, 0, sizeof(c));
	struct cg_graph g;
	memset(&g, 0, sizeof(g));
	uint8_t *sel = NULL;
	int rc = 0;
	if (q->nr_center) {
		bool funcs_only = true;
		c.mask = pv_calloc((size_t)nf + 1, 1);
		if (!c.mask)
			return pv_error_set(err, PV_ENOMEM, "out of memory");
		rc = pv__view_center_funcs(v, c.mask, &funcs_only, err);
		if (rc || !funcs_only) {
			pv_free(c.mask);
			pv_free(v->center_label); /* the engine's pipeline sets it again */
			v->center_label = NULL;
			if (!rc && !(v->note = pv_strdup(fallback_note)))
				rc = pv_error_set(err, PV_ENOMEM, "out of memory");
			return rc;
		}
	}
	if (v->nr_threads != p->threads.len) {
		sel = pv_calloc((size_t)p->threads.len + 1, 1);
		if (!sel) {
			rc = pv_error_set(err, PV_ENOMEM, "out of memory");
			goto out;
		}
		for (uint32_t i = 0; i < v->nr_threads; i++)
			sel[v->threads[i]] = 1;
	}
	if (cg_graph_build(p, v->metrics, nm, sel, &g)) {
		rc = pv_error_set(err, PV_ENOMEM, "out of memory building the call graph");
		goto out;
	}
	for (uint32_t i = 0; i < v->nr_threads; i++)
		v->nr_samples +=
		    p->threads.sample_end[v->threads[i]] - p->threads.sample_begin[v->threads[i]];
	for (uint32_t f = 0; f < nf; f++)
		for (uint32_t k = 0; k < nm; k++)
			v->whole[k] += g.self[(size_t)f * nm + k];
	v->centered = q->nr_center > 0;
	if (v->centered) {
		c.mem = pv_malloc(((size_t)nf + 1) * sizeof(uint32_t));
		if (!c.mem) {
			rc = pv_error_set(err, PV_ENOMEM, "out of memory");
			goto out;
		}
		for (uint32_t f = 0; f < nf; f++)
			if (c.mask[f])
				c.mem[c.n++] = f;
		if (cg_set_costs(&g, c.mask, c.mem, c.n, &c.set)) {
			rc = pv_error_set(err, PV_ENOMEM, "out of memory");
			goto out;
		}
		memcpy(v->center, c.set.total, nm * sizeof(int64_t));
	} else {
		memcpy(v->center, v->whole, sizeof(v->whole));
	}
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
	if (rc)
		goto out;
	char note[640];
	int n;
	uint32_t kb = 0; /* the first metric whose total is only bounded */
	while (v->centered && c.set.estimated && kb + 1 < nm && c.set.lo[kb] == c.set.hi[kb])
		kb++;
	if (v->centered && c.set.estimated)
		n = snprintf(note, sizeof(note),
			     "call graph: the center's functions run inside one another through "
			     "other functions, so the file bounds its total: at least %lld, at "
			     "most %lld (%s); rows marked ~ are estimated (split in proportion to "
			     "the calls' costs)",
			     (long long)c.set.lo[kb], (long long)c.set.hi[kb],
			     pv_str(p, p->metrics.name[v->metrics[kb]]));
	else if (v->centered && c.set.self_estimated)
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
			 "; %u light rows not expanded (at most %u rows)", unexpanded,
			 q->max_rows > ROW_BUDGET ? q->max_rows : ROW_BUDGET);
	if (!(v->note = pv_strdup(note)))
		rc = pv_error_set(err, PV_ENOMEM, "out of memory");
	else
		*done = v->from_graph = true;
out:
	cg_graph_release(&g);
	pv_free(sel);
	cg_set_release(&c.set);
	pv_free(c.mask);
	pv_free(c.mem);
	return rc;
}

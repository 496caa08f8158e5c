/*
 * cgtree.c - trees grown from a call graph (cgtree.h says the rule).
 */
#include <string.h>

#include "base/alloc.h"
#include "model/cgtree.h"

int cg_rows_add(struct cg_rows *R, uint32_t func, uint32_t parent, const int64_t *total,
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

static void rows_release(struct cg_rows *R)
{
	pv_free(R->func);
	pv_free(R->parent);
	pv_free(R->depth);
	pv_free(R->total);
	pv_free(R->self);
	pv_free(R->est);
	pv_free(R->full);
}

static bool heap_before(const struct cg_heap *h, uint32_t x, uint32_t y)
{
	int64_t a = h->R->total[(size_t)x * h->R->nm], b = h->R->total[(size_t)y * h->R->nm];
	a = a < 0 ? -a : a;
	b = b < 0 ? -b : b;
	return a != b ? a > b : x < y;
}

static int heap_push(struct cg_heap *h, uint32_t r)
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

static uint32_t heap_pop(struct cg_heap *h)
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

/* The part of a call's effective cost c in the center's runs (share sh: 1 for all of it). */
static inline int64_t call_part(int64_t c, double sh)
{
	c = c > 0 ? c : 0;
	return sh == 1 ? c : (int64_t)((double)c * sh + 0.5);
}

/*
 * Whether f is on the path of the row being expanded: a row above it, or the center. Above the
 * center (bottom-up) no member comes: the center is the outermost. Below a center of one
 * function, the function is not expanded again (the center holds its cost, as a recursion's
 * outer row does). Below a set, a member called by another function is a run nested in the
 * center's (a member whose every run is the center's own is never called from below it), a
 * row of its own as in the stacks' views.
 */
static bool on_path(const struct cg_grow *G, uint32_t f)
{
	return G->on[f] || (G->cmask && G->cmask[f] && (G->up || G->ncmem == 1));
}

/*
 * The neighbours of the functions fs[0..n) (callees, or callers when up) off the path. The
 * center's (center: fs are its members) are the calls that its own runs make, or that start
 * them: a member's calls in the part of its runs that are the center's, the calls into it from
 * a function in the part of that function's runs outside the center (struct cg_set).
 */
static uint32_t neighbours(struct cg_grow *G, const uint32_t *fs, uint32_t n, bool center)
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
			for (uint32_t k = 0; k < nm; k++)
				G->all[k] += call_part(eff[k], part ? sh[k] : 1);
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
				G->w[(size_t)(s - 1) * nm + k] +=
				    call_part(eff[k], part ? sh[k] : 1);
				G->raw[(size_t)(s - 1) * nm + k] += g->cost[(size_t)e * nm + k];
			}
		}
	}
	for (uint32_t i = 0; i < nn; i++)
		G->slot[G->nb[i]] = 0;
	return nn;
}

/* A top-down row's self before it is expanded: its function's share of its total. */
void cg_first_self(const struct cg_grow *G, uint32_t f, const int64_t *total, int64_t *self)
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
static void path_move(struct cg_grow *G, uint32_t r)
{
	const struct cg_rows *R = &G->R;
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

static int expand(struct cg_grow *G, uint32_t r)
{
	const struct cg_graph *g = G->g;
	uint32_t nm = g->nm;
	struct cg_rows *R = &G->R;
	if (G->max_depth && R->depth[r] + 1 >= G->max_depth)
		return 0;
	if (R->len >= G->budget) {
		G->unexpanded++;
		return 0;
	}
	uint32_t f = R->func[r];
	if (f != PV_NONE && G->only && !G->only[f])
		return 0;
	path_move(G, r);
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
			cg_first_self(G, x, v, sv);
		if (cg_rows_add(R, x, r, v, sv, !exact, full && exact) ||
		    heap_push(&G->H, R->len - 1))
			return -1;
	}
	return 0;
}

/* Grows a tree from the rows already made (its roots) until none is left to expand. */
int cg_grow_all(struct cg_grow *G)
{
	for (uint32_t r = 0; r < G->R.len; r++)
		if (heap_push(&G->H, r))
			return -1;
	while (G->H.n)
		if (expand(G, heap_pop(&G->H)))
			return -1;
	return 0;
}

int cg_grow_init(struct cg_grow *G, const struct cg_graph *g)
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

void cg_grow_release(struct cg_grow *G)
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

void cg_grow_clear(struct cg_grow *G)
{
	path_move(G, PV_NONE); /* the marks of the last path go */
	G->R.len = 0;
	G->H.n = 0;
	G->unexpanded = 0;
}

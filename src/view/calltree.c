/*
 * calltree.c - the call node table and the views over it.
 *
 * Stacks are frame paths; call nodes are function paths. node_of_stack is computed in stack
 * index order (a prefix comes first), interning (parent node, function) pairs, so nodes are also
 * parent-first: self costs take one pass over the samples, totals one backward pass over nodes.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/sort.h"
#include "view/calltree.h"

void pv_calltree_free(struct pv_calltree *t)
{
	if (!t)
		return;
	pv_free(t->func);
	pv_free(t->parent);
	pv_free(t->depth);
	pv_free(t->total);
	pv_free(t->self);
	pv_free(t->child_first);
	pv_free(t->child_len);
	pv_free(t->children);
	pv_free(t->roots);
	pv_free(t);
}

static int check_opts(const struct pv_profile *p, const struct pv_view_opts *o, pv_metric_ix *m,
		      struct pv_error *err)
{
	*m = o && o->metric != PV_NONE ? o->metric : p->meta.default_metric;
	if (p->metrics.len == 0 || *m >= p->metrics.len)
		return pv_error_set(err, PV_EINVAL, "metric %u does not exist", *m);
	for (uint32_t i = 0; o && i < o->nr_threads; i++)
		if (o->threads[i] >= p->threads.len)
			return pv_error_set(err, PV_EINVAL, "thread %u does not exist",
					    o->threads[i]);
	return 0;
}

/*
 * Sums the metric per stack over the selected samples: cost[s] for each stack, and the cost of
 * samples without a stack. One pass over the samples.
 */
static int stack_costs(const struct pv_profile *p, const struct pv_view_opts *o, pv_metric_ix m,
		       int64_t **out, int64_t *nostack, uint64_t *nr)
{
	int64_t *cost = pv_calloc(p->stacks.len ? p->stacks.len : 1, sizeof(*cost));
	if (!cost)
		return PV_ENOMEM;
	const int64_t *w = p->samples.weight[m];
	const pv_stack_ix *st = p->samples.stack;
	int64_t ns = 0;
	uint64_t n = 0;
	uint32_t nt = o && o->nr_threads ? o->nr_threads : p->threads.len;
	for (uint32_t i = 0; i < nt; i++) {
		pv_thread_ix t = o && o->nr_threads ? o->threads[i] : i;
		/* a thread named twice is merged once */
		int dup = 0;
		for (uint32_t k = 0; o && o->nr_threads && k < i; k++)
			dup |= o->threads[k] == t;
		if (dup)
			continue;
		uint32_t b = p->threads.sample_begin[t], e = p->threads.sample_end[t];
		n += e - b;
		for (uint32_t s = b; s < e; s++) {
			int64_t x = w ? w[s] : 1;
			if (st[s] == PV_NONE)
				ns += x;
			else
				cost[st[s]] += x;
		}
	}
	*out = cost;
	*nostack = ns;
	*nr = n;
	return 0;
}

/* Maps every stack to a call node; fills func/parent/depth of the nodes. */
static int build_nodes(const struct pv_profile *p, struct pv_calltree *t, uint32_t **node_of_stack)
{
	uint32_t ns = p->stacks.len;
	uint32_t *nos = pv_malloc((size_t)(ns ? ns : 1) * sizeof(*nos));
	uint32_t cap = ns ? ns : 1; /* never more nodes than stacks */
	t->func = pv_malloc((size_t)cap * sizeof(*t->func));
	t->parent = pv_malloc((size_t)cap * sizeof(*t->parent));
	t->depth = pv_malloc((size_t)cap * sizeof(*t->depth));
	struct u64map map = {0};
	if (!nos || !t->func || !t->parent || !t->depth)
		goto oom;
	uint32_t len = 0;
	for (uint32_t s = 0; s < ns; s++) {
		pv_stack_ix pre = p->stacks.prefix[s];
		uint32_t parent = pre == PV_NONE ? PV_NONE : nos[pre];
		pv_func_ix f = p->frames.func[p->stacks.frame[s]];
		uint64_t key = ((uint64_t)parent << 32) | f;
		uint32_t n = u64map_get(&map, key);
		if (n == UINT32_MAX) {
			n = len++;
			t->func[n] = f;
			t->parent[n] = parent;
			t->depth[n] = parent == PV_NONE ? 0 : t->depth[parent] + 1;
			if (u64map_put(&map, key, n))
				goto oom;
		}
		nos[s] = n;
	}
	u64map_release(&map);
	t->len = len;
	*node_of_stack = nos;
	return 0;
oom:
	u64map_release(&map);
	pv_free(nos);
	return PV_ENOMEM;
}

/* Rows sort by key (descending), then key2 (descending, optional), then name, then index. */
struct sort_ctx {
	const struct pv_profile *p;
	const int64_t *key, *key2;
	const pv_func_ix *func; /* row -> function; NULL when rows are function indices */
};

static int cmp_rows(const void *a, const void *b, void *ctx)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct sort_ctx *c = ctx;
	if (c->key[x] != c->key[y])
		return c->key[x] > c->key[y] ? -1 : 1;
	if (c->key2 && c->key2[x] != c->key2[y])
		return c->key2[x] > c->key2[y] ? -1 : 1;
	pv_func_ix fx = c->func ? c->func[x] : x, fy = c->func ? c->func[y] : y;
	int r = strcmp(pv_str(c->p, c->p->funcs.name[fx]), pv_str(c->p, c->p->funcs.name[fy]));
	if (r)
		return r;
	if (fx != fy)
		return fx < fy ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void sort_rows(const struct pv_profile *p, uint32_t *rows, uint32_t n, const int64_t *key,
		      const int64_t *key2, const pv_func_ix *func)
{
	struct sort_ctx c = {p, key, key2, func};
	pv_sort_r(rows, n, sizeof(*rows), cmp_rows, &c);
}

/* Children lists in CSR form, each sorted; nodes without cost are left out. */
static int build_children(const struct pv_profile *p, struct pv_calltree *t)
{
	uint32_t n = t->len;
	t->child_first = pv_calloc(n ? n : 1, sizeof(uint32_t));
	t->child_len = pv_calloc(n ? n : 1, sizeof(uint32_t));
	t->children = pv_malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
	t->roots = pv_malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
	if (!t->child_first || !t->child_len || !t->children || !t->roots)
		return PV_ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		if (t->parent[i] != PV_NONE && (t->total[i] || t->self[i]))
			t->child_len[t->parent[i]]++;
	uint32_t off = 0;
	for (uint32_t i = 0; i < n; i++) {
		t->child_first[i] = off;
		off += t->child_len[i];
		t->child_len[i] = 0;
	}
	t->nr_roots = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!t->total[i] && !t->self[i])
			continue;
		uint32_t par = t->parent[i];
		if (par == PV_NONE)
			t->roots[t->nr_roots++] = i;
		else
			t->children[t->child_first[par] + t->child_len[par]++] = i;
	}
	for (uint32_t i = 0; i < n; i++)
		if (t->child_len[i] > 1)
			sort_rows(p, t->children + t->child_first[i], t->child_len[i], t->total,
				  NULL, t->func);
	sort_rows(p, t->roots, t->nr_roots, t->total, NULL, t->func);
	return 0;
}

int pv_calltree_build(const struct pv_profile *p, const struct pv_view_opts *o,
		      struct pv_calltree **out, struct pv_error *err)
{
	pv_metric_ix m;
	int rc = check_opts(p, o, &m, err);
	if (rc)
		return rc;
	struct pv_calltree *t = pv_calloc(1, sizeof(*t));
	int64_t *cost = NULL;
	uint32_t *nos = NULL;
	if (!t)
		goto oom;
	t->metric = m;
	if (stack_costs(p, o, m, &cost, &t->nostack_cost, &t->nr_samples))
		goto oom;
	if (build_nodes(p, t, &nos))
		goto oom;
	t->self = pv_calloc(t->len ? t->len : 1, sizeof(*t->self));
	t->total = pv_calloc(t->len ? t->len : 1, sizeof(*t->total));
	if (!t->self || !t->total)
		goto oom;
	for (uint32_t s = 0; s < p->stacks.len; s++)
		t->self[nos[s]] += cost[s];
	for (uint32_t n = 0; n < t->len; n++)
		t->total[n] = t->self[n];
	int64_t sum = 0;
	for (uint32_t n = t->len; n-- > 0;) {
		if (t->parent[n] != PV_NONE)
			t->total[t->parent[n]] += t->total[n];
		else
			sum += t->total[n];
	}
	t->total_cost = sum;
	if (build_children(p, t))
		goto oom;
	pv_free(cost);
	pv_free(nos);
	*out = t;
	return 0;
oom:
	pv_free(cost);
	pv_free(nos);
	pv_calltree_free(t);
	return pv_error_set(err, PV_ENOMEM, "out of memory building the call tree");
}

void pv_top_free(struct pv_top *t)
{
	if (!t)
		return;
	pv_free(t->func);
	pv_free(t->self);
	pv_free(t->total);
	pv_free(t);
}

/*
 * Per-function costs from the call tree. A function's total is the total of its outermost
 * nodes (no ancestor of the same function), so recursion counts each sample once (pprof's
 * rule). A depth-first walk keeps, per function, how many of its nodes are on the current path.
 */
int pv_top_build(const struct pv_profile *p, const struct pv_view_opts *o, enum pv_top_sort sort,
		 struct pv_top **out, struct pv_error *err)
{
	struct pv_calltree *ct;
	int rc = pv_calltree_build(p, o, &ct, err);
	if (rc)
		return rc;
	uint32_t nf = p->funcs.len ? p->funcs.len : 1;
	struct pv_top *t = pv_calloc(1, sizeof(*t));
	int64_t *fself = pv_calloc(nf, sizeof(int64_t));
	int64_t *ftotal = pv_calloc(nf, sizeof(int64_t));
	uint32_t *active = pv_calloc(nf, sizeof(uint32_t));
	uint32_t *stack = pv_malloc((size_t)(ct->len + 1) * sizeof(uint32_t));
	uint32_t *iter = pv_malloc((size_t)(ct->len + 1) * sizeof(uint32_t));
	if (!t || !fself || !ftotal || !active || !stack || !iter)
		goto oom;
	t->metric = ct->metric;
	t->total_cost = ct->total_cost;
	for (uint32_t r = 0; r < ct->nr_roots; r++) {
		uint32_t sp = 0;
		stack[sp] = ct->roots[r];
		iter[sp] = 0;
		sp++;
		uint32_t n0 = ct->roots[r];
		if (active[ct->func[n0]]++ == 0)
			ftotal[ct->func[n0]] += ct->total[n0];
		fself[ct->func[n0]] += ct->self[n0];
		while (sp) {
			uint32_t n = stack[sp - 1];
			if (iter[sp - 1] < ct->child_len[n]) {
				uint32_t c = ct->children[ct->child_first[n] + iter[sp - 1]++];
				if (active[ct->func[c]]++ == 0)
					ftotal[ct->func[c]] += ct->total[c];
				fself[ct->func[c]] += ct->self[c];
				stack[sp] = c;
				iter[sp] = 0;
				sp++;
			} else {
				active[ct->func[n]]--;
				sp--;
			}
		}
	}
	uint32_t len = 0;
	for (uint32_t f = 0; f < p->funcs.len; f++)
		if (ftotal[f] || fself[f])
			len++;
	t->func = pv_malloc((size_t)(len ? len : 1) * sizeof(*t->func));
	t->self = pv_malloc((size_t)(len ? len : 1) * sizeof(*t->self));
	t->total = pv_malloc((size_t)(len ? len : 1) * sizeof(*t->total));
	if (!t->func || !t->self || !t->total)
		goto oom;
	uint32_t i = 0;
	for (uint32_t f = 0; f < p->funcs.len; f++)
		if (ftotal[f] || fself[f])
			t->func[i++] = f;
	t->len = len;
	/* by the chosen column, then the other one, then name */
	if (sort == PV_TOP_BY_TOTAL)
		sort_rows(p, t->func, len, ftotal, fself, NULL);
	else
		sort_rows(p, t->func, len, fself, ftotal, NULL);
	for (uint32_t k = 0; k < len; k++) {
		t->self[k] = fself[t->func[k]];
		t->total[k] = ftotal[t->func[k]];
	}
	pv_free(fself);
	pv_free(ftotal);
	pv_free(active);
	pv_free(stack);
	pv_free(iter);
	pv_calltree_free(ct);
	*out = t;
	return 0;
oom:
	pv_free(fself);
	pv_free(ftotal);
	pv_free(active);
	pv_free(stack);
	pv_free(iter);
	pv_calltree_free(ct);
	pv_top_free(t);
	return pv_error_set(err, PV_ENOMEM, "out of memory building the function list");
}

/*
 * contexts.c - one row's values over the execution contexts (include/pv/contexts.h,
 * doc/contexts.md).
 *
 * The query's top-down tree is computed once, keeping the row of each profile stack (the row
 * whose self its samples' cost is: pv__view_rows). The row asked for and the rows below it are
 * marked in one pass over the rows (numbered parents first): each stack is then 2 (its row is
 * the row: exclusive and inclusive), 1 (a row below: inclusive) or 0. One pass over each
 * selected context's samples adds their weights. So a context's values are exactly the row's
 * total and self in the view of that context alone, whatever the filters and the center. A
 * call-graph profile's tree from its graph (callgraph.c) is asked of each context's graph.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sort.h"
#include "pv/contexts.h"
#include "view/internal.h"

void pv_contexts_free(struct pv_contexts *c)
{
	if (!c)
		return;
	pv_free(c->thread);
	pv_free(c->value[0]);
	pv_free(c->value[1]);
	pv_free(c->name);
	pv_free(c->note);
	pv_free(c);
}

uint32_t pv_tree_row_path(const struct pv_tree *t, uint32_t r, struct pv_row_step *steps,
			  uint32_t cap)
{
	uint32_t depth = t->depth[r] + 1;
	for (uint32_t k = depth; k-- > 0 && r != PV_NONE; r = t->parent[r])
		if (k < cap)
			steps[k] = (struct pv_row_step){t->kind[r], t->id[r], t->line[r]};
	return depth;
}

static bool step_is(const struct pv_tree *t, uint32_t r, const struct pv_row_step *s)
{
	if (t->kind[r] != s->kind)
		return false;
	if (s->kind == PV_ROW_CENTER || s->kind == PV_ROW_NOSTACK)
		return true;
	return t->id[r] == s->id && (s->kind != PV_ROW_LINE || t->line[r] == s->line);
}

/* The row of t at path[0..depth), PV_NONE when none. */
static uint32_t find_row(const struct pv_tree *t, const struct pv_row_step *path, uint32_t depth)
{
	const uint32_t *list = t->roots;
	uint32_t n = t->nr_roots, r = PV_NONE;
	for (uint32_t k = 0; k < depth; k++) {
		r = PV_NONE;
		for (uint32_t i = 0; i < n && r == PV_NONE; i++)
			if (step_is(t, list[i], &path[k]))
				r = list[i];
		if (r == PV_NONE)
			return PV_NONE;
		list = t->children + t->child_first[r];
		n = t->child_len[r];
	}
	return r;
}

static void summarize(const int64_t *x, uint32_t n, struct pv_ctx_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	/* ratios to a mean of 0 (no context, or values that cancel) are undefined */
	s->cv = s->imbalance = NAN;
	if (!n)
		return;
	s->min = INT64_MAX;
	s->max = INT64_MIN;
	for (uint32_t i = 0; i < n; i++) {
		s->sum = pv_add_sat(s->sum, x[i]);
		s->nonzero += x[i] != 0;
		if (x[i] < s->min)
			s->min = x[i];
		if (x[i] > s->max)
			s->max = x[i];
	}
	s->mean = (double)s->sum / n;
	double sq = 0; /* two passes: no cancellation of large, close values */
	for (uint32_t i = 0; i < n; i++)
		sq += ((double)x[i] - s->mean) * ((double)x[i] - s->mean);
	s->stddev = sqrt(sq / n);
	if (s->mean != 0) {
		s->cv = s->stddev / fabs(s->mean);
		s->imbalance = (double)s->max / s->mean;
	}
}

/* The query the tree is computed for: q as a top-down tree of one plain metric. */
static int tree_query(const struct pv_profile *p, const struct pv_query *q, struct pv_query *cq,
		      struct pv_error *err)
{
	if (pv_query_copy(cq, q))
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	cq->view = PV_VIEW_TREE;
	if (!cq->nr_metrics)
		return 0;
	enum pv_stat stat;
	pv_metric_ix m = pv__metric_stat(p, cq->metrics[0], &stat);
	for (uint32_t k = 1; k < cq->nr_metrics; k++)
		pv_free(cq->metrics[k]);
	cq->nr_metrics = 1;
	if (m == PV_NONE)
		return 0; /* the engine says which metrics there are */
	char ix[16];
	snprintf(ix, sizeof(ix), "%u", m); /* the metric by its index */
	char *s = pv_strdup(ix);
	if (!s)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	pv_free(cq->metrics[0]);
	cq->metrics[0] = s;
	return 0;
}

/*
 * The inclusive and exclusive sums over samples [a, b): scls[stack + 1] is a stack's class (2:
 * the row, 1: below it, 0: elsewhere), w the weights (NULL: 1 each), sel the selected samples
 * (NULL: all). No branch on the class, which is as good as random from one sample to the next;
 * inlined in each call, so the common one (weights, no selection) is a loop without tests.
 */
static inline __attribute__((always_inline)) void
sum_samples(const uint8_t *scls, const pv_stack_ix *stack, const int64_t *w, const uint8_t *sel,
	    uint32_t a, uint32_t b, int64_t *incl, int64_t *excl)
{
	int64_t in = 0, ex = 0;
	for (uint32_t s = a; s < b; s++) {
		uint32_t k = scls[(uint32_t)(stack[s] + 1u)];
		if (sel)
			k &= -(uint32_t)sel[s]; /* 0 when not selected */
		int64_t x = w ? w[s] : 1;
		in += x & -(int64_t)(k != 0);
		ex += x & -(int64_t)(k >> 1);
	}
	*incl = in;
	*excl = ex;
}

/* The row of v asked for: path[0..depth) (PV_NONE: none), the center row, or the whole. */
static uint32_t the_row(const struct pv_view *v, const struct pv_row_step *path, uint32_t depth,
			bool *whole)
{
	const struct pv_tree *t = v->tree;
	uint32_t row = PV_NONE;
	*whole = !depth && !v->centered;
	if (depth)
		return find_row(t, path, depth);
	for (uint32_t i = 0; v->centered && i < t->nr_roots && row == PV_NONE; i++)
		if (t->kind[t->roots[i]] == PV_ROW_CENTER)
			row = t->roots[i];
	return row;
}

/* The contexts of v's threads for its row (whole: the whole profile), values 0; NULL when
 * memory runs out. */
static struct pv_contexts *contexts_new(const struct pv_view *v, uint32_t row, bool whole)
{
	const struct pv_tree *t = v->tree;
	struct pv_contexts *c = pv_calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->p = v->p;
	c->metric = v->metrics[0];
	c->len = v->nr_threads;
	c->thread = pv_malloc((size_t)(c->len ? c->len : 1) * sizeof(*c->thread));
	c->value[0] = pv_calloc(c->len ? c->len : 1, sizeof(int64_t));
	c->value[1] = pv_calloc(c->len ? c->len : 1, sizeof(int64_t));
	char buf[512];
	const char *name =
	    whole ? "(all)"
	    : row == PV_NONE || t->kind[row] == PV_ROW_CENTER
		? (v->center_label ? v->center_label : "")
		: pv_view_row_name(v, t->kind[row], t->id[row], buf, sizeof(buf), t->line[row]);
	c->name = pv_strdup(name);
	c->note = v->note ? pv_strdup(v->note) : NULL;
	if (!c->thread || !c->value[0] || !c->value[1] || !c->name || (v->note && !c->note)) {
		pv_contexts_free(c);
		return NULL;
	}
	memcpy(c->thread, v->threads, (size_t)c->len * sizeof(*c->thread));
	return c;
}

/*
 * A call-graph profile whose top-down tree the graph answers (callgraph.c): its stacks are
 * estimated from the graph and do not hold that tree's rows, so each context's values are the
 * row's total and self in the graph's view of that context alone, one view each. *done false:
 * the view is not such a one (or the profile has no graph).
 */
static int graph_contexts(const struct pv_profile *p, const struct pv_query *cq,
			  const struct pv_row_step *path, uint32_t depth, struct pv_contexts **out,
			  bool *done, struct pv_error *err)
{
	*done = false;
	if (!p->callgraph.nr_nodes && !p->callgraph.nr_edges)
		return 0;
	struct pv_view *v = NULL;
	int rc = pv_view_compute(p, cq, &v, err);
	if (rc || !v->priv->from_graph) {
		pv_view_free(v);
		return rc;
	}
	*done = true;
	bool whole;
	uint32_t row = the_row(v, path, depth, &whole);
	struct pv_contexts *c = NULL;
	if (depth && row == PV_NONE)
		rc = pv_error_set(err, PV_EINVAL, "no such row in this view");
	else if (!(c = contexts_new(v, row, whole)))
		rc = pv_error_set(err, PV_ENOMEM, "out of memory");
	for (uint32_t i = 0; !rc && i < c->len; i++) {
		struct pv_query tq;
		char th[16];
		snprintf(th, sizeof(th), "#%u", c->thread[i]);
		struct pv_view *tv = NULL;
		if (pv_query_copy(&tq, cq)) {
			rc = pv_error_set(err, PV_ENOMEM, "out of memory");
			break;
		}
		for (uint32_t k = 0; k < tq.nr_threads; k++)
			pv_free(tq.threads[k]);
		tq.nr_threads = 0;
		rc = pv_query_add_thread(&tq, th) ? pv_error_set(err, PV_ENOMEM, "out of memory")
						  : pv_view_compute(p, &tq, &tv, err);
		pv_query_release(&tq);
		if (rc)
			break;
		bool w;
		uint32_t r = the_row(tv, path, depth, &w);
		c->value[PV_CTX_INCLUSIVE][i] = w	       ? tv->whole[0]
						: r == PV_NONE ? 0
							       : tv->tree->total[0][r];
		c->value[PV_CTX_EXCLUSIVE][i] = w || r == PV_NONE ? 0 : tv->tree->self[0][r];
		pv_view_free(tv);
	}
	if (!rc) {
		summarize(c->value[0], c->len, &c->summary[0]);
		summarize(c->value[1], c->len, &c->summary[1]);
		*out = c;
	} else {
		pv_contexts_free(c);
	}
	pv_view_free(v);
	return rc;
}

int pv_contexts_compute(const struct pv_profile *p, const struct pv_query *q,
			const struct pv_row_step *path, uint32_t depth, struct pv_contexts **out,
			struct pv_error *err)
{
	*out = NULL;
	struct pv_query cq;
	bool done = false;
	int rc = tree_query(p, q, &cq, err);
	if (!rc)
		rc = graph_contexts(p, &cq, path, depth, out, &done, err);
	if (rc || done) {
		pv_query_release(&cq);
		return rc;
	}
	struct pv_view *v = NULL;
	struct pv__rows rows = {NULL, NULL};
	rc = pv__view_rows(p, &cq, &v, &rows, err);
	pv_query_release(&cq);
	if (rc)
		return rc;
	const struct pv_tree *t = v->tree;
	bool whole;
	uint32_t row = the_row(v, path, depth, &whole);
	if (depth && row == PV_NONE) {
		rc = pv_error_set(err, PV_EINVAL, "no such row in this view");
		goto done;
	}
	uint8_t *cls = pv_malloc(t->len ? t->len : 1);
	uint8_t *scls = pv_malloc((size_t)p->stacks.len + 1);
	struct pv_contexts *c = contexts_new(v, row, whole);
	if (!c || !cls || !scls) {
		pv_free(cls);
		pv_free(scls);
		pv_contexts_free(c);
		rc = pv_error_set(err, PV_ENOMEM, "out of memory");
		goto done;
	}
	*out = c;
	/* 2: the row, 1: below it (rows come parents first), 0: elsewhere; the whole: every row */
	uint8_t nostack = 0;
	for (uint32_t r = 0; r < t->len; r++) {
		cls[r] = whole						? 1
			 : r == row					? 2
			 : t->parent[r] != PV_NONE && cls[t->parent[r]] ? 1
									: 0;
		if (t->kind[r] == PV_ROW_NOSTACK)
			nostack = cls[r]; /* the samples without a stack */
	}
	/* scls[st + 1]: the class of stack st, scls[0] that of the samples without a stack
	 * (PV_NONE + 1 wraps to 0): the pass reads one table, with no test for PV_NONE */
	scls[0] = nostack;
	for (uint32_t s = 0; s < p->stacks.len; s++)
		scls[s + 1] = rows.stack_row[s] == PV_NONE ? 0 : cls[rows.stack_row[s]];
	/* one pass over each context's samples */
	const int64_t *w = p->samples.weight[c->metric];
	const pv_stack_ix *stack = p->samples.stack;
	const uint8_t *sel = rows.selected;
	for (uint32_t i = 0; i < c->len; i++) {
		pv_thread_ix th = c->thread[i];
		uint32_t a = p->threads.sample_begin[th], b = p->threads.sample_end[th];
		int64_t *incl = &c->value[PV_CTX_INCLUSIVE][i],
			*excl = &c->value[PV_CTX_EXCLUSIVE][i];
		if (w && !sel)
			sum_samples(scls, stack, w, NULL, a, b, incl, excl);
		else
			sum_samples(scls, stack, w, sel, a, b, incl, excl);
	}
	pv_free(cls);
	pv_free(scls);
	summarize(c->value[0], c->len, &c->summary[0]);
	summarize(c->value[1], c->len, &c->summary[1]);
done:
	if (rc) {
		pv_contexts_free(*out);
		*out = NULL;
	}
	pv_free(rows.stack_row);
	pv_free(rows.selected);
	pv_view_free(v);
	return rc;
}

/* ---- the sorted plot, the histogram and the pixel columns ---- */

/* contexts by value, largest first; ctx: the values */
static int cmp_desc(const void *a, const void *b, void *ctx)
{
	const int64_t *sort_values = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (sort_values[x] != sort_values[y])
		return sort_values[x] > sort_values[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * A stable radix sort (pv_radix_order_u64) of the contexts by the key ~(v ^ sign): ascending
 * keys are descending values, and stability keeps ties in index order, as cmp_desc orders them.
 * qsort_r with cmp_desc when the scratch memory cannot be had.
 */
void pv_contexts_sort(const struct pv_contexts *c, enum pv_ctx_value which, uint32_t *order)
{
	uint32_t n = c->len;
	const int64_t *x = c->value[which];
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	if (n < 2)
		return;
	uint64_t *key = pv_malloc((size_t)n * sizeof(*key));
	uint32_t *tmp = pv_malloc((size_t)n * sizeof(*tmp));
	if (!key || !tmp) {
		pv_free(key);
		pv_free(tmp);
		pv_sort_r(order, n, sizeof(*order), cmp_desc, x);
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		key[i] = ~((uint64_t)x[i] ^ UINT64_C(0x8000000000000000));
	pv_radix_order_u64(key, n, order, tmp);
	pv_free(key);
	pv_free(tmp);
}

double pv_contexts_histogram(const struct pv_contexts *c, enum pv_ctx_value which, uint32_t bins,
			     uint32_t *count, uint32_t *bin)
{
	const struct pv_ctx_summary *s = &c->summary[which];
	if (!bins)
		return 0;
	memset(count, 0, (size_t)bins * sizeof(*count));
	double range = (double)s->max - (double)s->min;
	double width = c->len && range > 0 ? range / bins : 0;
	for (uint32_t i = 0; i < c->len; i++) {
		uint32_t k = 0;
		if (width > 0) {
			double f = ((double)c->value[which][i] - (double)s->min) / width;
			k = f >= bins ? bins - 1 : (uint32_t)f;
		}
		count[k]++;
		if (bin)
			bin[i] = k;
	}
	return width;
}

uint32_t pv_contexts_columns(const struct pv_contexts *c, enum pv_ctx_value which,
			     const uint32_t *order, uint32_t from, uint32_t to, uint32_t width,
			     struct pv_ctx_column *cols)
{
	if (to > c->len)
		to = c->len;
	if (from >= to || !width)
		return 0;
	uint32_t span = to - from, n = width < span ? width : span;
	const int64_t *x = c->value[which];
	for (uint32_t col = 0; col < n; col++) {
		uint32_t a = from + (uint32_t)((uint64_t)col * span / n);
		uint32_t b = from + (uint32_t)((uint64_t)(col + 1) * span / n);
		struct pv_ctx_column *k = &cols[col];
		k->first = a;
		k->n = b - a;
		k->min = INT64_MAX;
		k->max = INT64_MIN;
		for (uint32_t pos = a; pos < b; pos++) {
			uint32_t i = order ? order[pos] : pos;
			if (x[i] < k->min) {
				k->min = x[i];
				k->at_min = i;
			}
			if (x[i] > k->max) {
				k->max = x[i];
				k->at_max = i;
			}
		}
	}
	return n;
}

void pv_contexts_plot_release(struct pv_contexts_plot *pl)
{
	pv_free(pl->order);
	pv_free(pl->cols);
	pv_free(pl->count);
	pv_free(pl->bin);
	memset(pl, 0, sizeof(*pl));
}

int pv_contexts_plot(const struct pv_contexts *c, const struct pv_contexts_plot_opts *o,
		     struct pv_contexts_plot *pl)
{
	size_t n = c->len ? c->len : 1;
	*pl = (struct pv_contexts_plot){
	    .which = o->which,
	    .from = o->from < c->len ? o->from : c->len,
	    .to = o->to < c->len ? o->to : c->len,
	    .bins = o->bins,
	};
	if (pl->to < pl->from)
		pl->to = pl->from;
	if ((o->by_value && !(pl->order = pv_malloc(n * sizeof(*pl->order)))) ||
	    (o->width && !(pl->cols = pv_malloc((size_t)o->width * sizeof(*pl->cols)))) ||
	    (o->bins && (!(pl->count = pv_malloc((size_t)o->bins * sizeof(*pl->count))) ||
			 !(pl->bin = pv_malloc(n * sizeof(*pl->bin)))))) {
		pv_contexts_plot_release(pl);
		return PV_ENOMEM;
	}
	if (pl->order)
		pv_contexts_sort(c, o->which, pl->order);
	if (pl->cols)
		pl->nr_cols = pv_contexts_columns(c, o->which, pl->order, pl->from, pl->to,
						  o->width, pl->cols);
	if (o->bins)
		pl->bin_width = pv_contexts_histogram(c, o->which, o->bins, pl->count, pl->bin);
	return 0;
}

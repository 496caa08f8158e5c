/*
 * stats.c - statistics of a metric across the selected threads (execution contexts), row by
 * row: "--metric CPUTIME:mean" (doc/hpctoolkit.md). hpcprof's summary statistics (Sum, Mean,
 * StdDev, CfVar, Min, Max), computed by profview for any profile with threads.
 *
 * A view with such columns is first computed as usual (every column the sum over the selected
 * threads), then once per selected thread with that thread alone; each row of a thread's view is
 * found in the view by its path of row keys from the root, and the statistic of each row is taken
 * over the threads, a thread without the row counting 0. So every filter, center and granularity
 * applies to each thread as to the whole. The cost is one view per thread.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/sort.h"
#include "pv/view.h"
#include "view/internal.h"

static const char *const stat_names[] = {"sum", "mean", "stddev", "cfvar", "min", "max"};

const char *pv_stat_name(enum pv_stat s)
{
	return (unsigned)s < sizeof(stat_names) / sizeof(stat_names[0]) ? stat_names[s] : "sum";
}

pv_metric_ix pv__metric_stat(const struct pv_profile *p, const char *name, enum pv_stat *stat)
{
	*stat = PV_STAT_SUM;
	pv_metric_ix m = pv_metric_find(p, name);
	if (m != PV_NONE)
		return m;
	const char *colon = strrchr(name, ':');
	if (!colon)
		return PV_NONE;
	for (unsigned s = 0; s < sizeof(stat_names) / sizeof(stat_names[0]); s++) {
		if (strcasecmp(colon + 1, stat_names[s]) != 0)
			continue;
		size_t n = (size_t)(colon - name);
		char *base = pv_malloc(n + 1);
		if (!base)
			return PV_NONE;
		memcpy(base, name, n);
		base[n] = 0;
		m = pv_metric_find(p, base);
		pv_free(base);
		*stat = (enum pv_stat)s;
		return m;
	}
	return PV_NONE;
}

/* ---- rows by their path ---- */

static uint64_t step(uint64_t parent, uint8_t kind, uint32_t id, uint32_t line, uint8_t level)
{
	return hash_u64(
	    parent * 0x9e3779b97f4a7c15ULL ^
	    (((uint64_t)kind << 56) ^ ((uint64_t)level << 48) ^ ((uint64_t)line << 32) ^ id));
}

/* hash of each row's path: tree rows are numbered parents first */
static void tree_hashes(const struct pv_tree *t, uint64_t *h)
{
	for (uint32_t r = 0; r < t->len; r++)
		h[r] = step(t->parent[r] == PV_NONE ? 1 : h[t->parent[r]], t->kind[r], t->id[r],
			    t->line[r], 0);
}

/* flat rows come depth first: a row's parent is the last row of the level above */
static void flat_hashes(const struct pv_flat *f, uint64_t *h)
{
	uint64_t last[PV_FLAT_LEVELS];
	for (uint32_t l = 0; l < PV_FLAT_LEVELS; l++)
		last[l] = 1;
	for (uint32_t r = 0; r < f->len; r++) {
		uint8_t l = f->level[r] < PV_FLAT_LEVELS ? f->level[r] : PV_FLAT_LEVELS - 1;
		h[r] = step(l ? last[l - 1] : 1, f->kind[r], f->id[r], f->line[r], l);
		last[l] = h[r];
	}
}

struct acc {
	double *sum, *sq; /* [row] */
	int64_t *lo, *hi;
	uint32_t *seen;
};

static int acc_init(struct acc *a, uint32_t n)
{
	size_t k = n ? n : 1;
	a->sum = pv_calloc(k, sizeof(double));
	a->sq = pv_calloc(k, sizeof(double));
	a->lo = pv_malloc(k * sizeof(int64_t));
	a->hi = pv_malloc(k * sizeof(int64_t));
	a->seen = pv_calloc(k, sizeof(uint32_t));
	if (!a->sum || !a->sq || !a->lo || !a->hi || !a->seen)
		return PV_ENOMEM;
	for (size_t i = 0; i < k; i++) {
		a->lo[i] = INT64_MAX;
		a->hi[i] = INT64_MIN;
	}
	return 0;
}

static void acc_free(struct acc *a)
{
	pv_free(a->sum);
	pv_free(a->sq);
	pv_free(a->lo);
	pv_free(a->hi);
	pv_free(a->seen);
}

static void acc_add(struct acc *a, uint32_t r, int64_t x)
{
	a->sum[r] += (double)x;
	a->sq[r] += (double)x * (double)x;
	if (x < a->lo[r])
		a->lo[r] = x;
	if (x > a->hi[r])
		a->hi[r] = x;
	a->seen[r]++;
}

/* The statistic of row r over n threads (those that did not see the row: 0). */
static int64_t acc_get(const struct acc *a, uint32_t r, uint32_t n, enum pv_stat s)
{
	if (!n)
		return 0;
	bool all = a->seen[r] >= n;
	double mean = a->sum[r] / n;
	double var = a->sq[r] / n - mean * mean;
	double sd = var > 0 ? sqrt(var) : 0;
	switch (s) {
	case PV_STAT_MEAN: return llround(mean);
	case PV_STAT_STDDEV: return llround(sd);
	case PV_STAT_CFVAR: return mean != 0 ? llround(sd / mean * 1e6) : 0; /* millionths */
	case PV_STAT_MIN: return !a->seen[r] ? 0 : all ? a->lo[r] : (a->lo[r] < 0 ? a->lo[r] : 0);
	case PV_STAT_MAX: return !a->seen[r] ? 0 : all ? a->hi[r] : (a->hi[r] > 0 ? a->hi[r] : 0);
	default: return llround(a->sum[r]);
	}
}

/* ---- re-sorting a tree by its first column ---- */

/* Rows by ctx's column (int64_t per row), largest first, then by index. */
static int cmp_rows(const void *x, const void *y, void *ctx)
{
	const int64_t *sort_key = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	if (sort_key[a] != sort_key[b])
		return sort_key[a] > sort_key[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

static void resort(struct pv_tree *t)
{
	for (uint32_t r = 0; r < t->len; r++)
		pv_sort_r(t->children + t->child_first[r], t->child_len[r], sizeof(uint32_t),
			  cmp_rows, t->total[0]);
	pv_sort_r(t->roots, t->nr_roots, sizeof(uint32_t), cmp_rows, t->total[0]);
}

/* A list view (top) in the order of its sort column, when that column became a statistic. */
static int resort_list(struct pv_view *v)
{
	struct pv_flat *f = v->flat;
	uint32_t n = f->len;
	uint32_t *ix = pv_malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
	void *tmp = pv_malloc((size_t)(n ? n : 1) * sizeof(int64_t));
	if (!ix || !tmp) {
		pv_free(ix);
		pv_free(tmp);
		return PV_ENOMEM;
	}
	for (uint32_t r = 0; r < n; r++)
		ix[r] = r;
	pv_sort_r(ix, n, sizeof(uint32_t), cmp_rows,
		  pv_query_sort(&v->q) == PV_SORT_SELF ? f->self[0] : f->total[0]);
#define PERMUTE(col, type)                                   \
	do {                                                 \
		type *t_ = tmp;                              \
		for (uint32_t r = 0; r < n; r++)             \
			t_[r] = (col)[ix[r]];                \
		memcpy((col), t_, (size_t)n * sizeof(type)); \
	} while (0)
	PERMUTE(f->kind, uint8_t);
	PERMUTE(f->id, uint32_t);
	PERMUTE(f->line, uint32_t);
	PERMUTE(f->level, uint8_t);
	PERMUTE(f->in_center, uint8_t);
	if (f->inlined)
		PERMUTE(f->inlined, uint8_t);
	for (uint32_t c = 0; c < v->nr_metrics; c++) {
		PERMUTE(f->total[c], int64_t);
		PERMUTE(f->self[c], int64_t);
	}
#undef PERMUTE
	pv_free(ix);
	pv_free(tmp);
	return 0;
}

int pv__view_resort(struct pv_view *v)
{
	struct pv_tree *trees[2] = {v->tree, v->callers};
	for (int k = 0; k < 2; k++)
		if (trees[k])
			resort(trees[k]);
	return v->flat && v->q.view == PV_VIEW_TOP ? resort_list(v) : 0;
}

/* ---- the statistics of one view ---- */

/* The rows of one kind of a view (a tree, the callers tree, the flat rows) and their sums. */
struct part {
	uint32_t len;
	uint64_t *hash;
	struct u64map rows; /* hash -> row */
	struct acc total[PV_QUERY_MAX], self[PV_QUERY_MAX];
	int64_t **tot, **slf; /* the view's columns */
};

static int part_init(struct part *pt, uint32_t len, const uint64_t *h, int64_t **tot, int64_t **slf,
		     const struct pv_view *v)
{
	memset(pt, 0, sizeof(*pt));
	pt->len = len;
	pt->tot = tot;
	pt->slf = slf;
	for (uint32_t r = 0; r < len; r++)
		if (u64map_get(&pt->rows, h[r]) == UINT32_MAX && u64map_put(&pt->rows, h[r], r))
			return PV_ENOMEM;
	for (uint32_t c = 0; c < v->nr_metrics; c++)
		if (v->stat[c] != PV_STAT_SUM &&
		    (acc_init(&pt->total[c], len) || acc_init(&pt->self[c], len)))
			return PV_ENOMEM;
	return 0;
}

static void part_add(struct part *pt, const struct pv_view *v, uint32_t len, const uint64_t *h,
		     int64_t *const *tot, int64_t *const *slf)
{
	for (uint32_t r = 0; r < len; r++) {
		uint32_t x = u64map_get(&pt->rows, h[r]);
		if (x == UINT32_MAX)
			continue; /* a row of one thread the whole view cut (min-percent, a limit)
				   */
		for (uint32_t c = 0; c < v->nr_metrics; c++) {
			if (v->stat[c] == PV_STAT_SUM)
				continue;
			acc_add(&pt->total[c], x, tot[c][r]);
			acc_add(&pt->self[c], x, slf[c][r]);
		}
	}
}

static void part_finish(struct part *pt, const struct pv_view *v)
{
	for (uint32_t c = 0; c < v->nr_metrics; c++) {
		if (v->stat[c] == PV_STAT_SUM)
			continue;
		for (uint32_t r = 0; r < pt->len; r++) {
			pt->tot[c][r] = acc_get(&pt->total[c], r, v->nr_threads, v->stat[c]);
			pt->slf[c][r] = acc_get(&pt->self[c], r, v->nr_threads, v->stat[c]);
		}
	}
}

static void part_release(struct part *pt)
{
	u64map_release(&pt->rows);
	for (uint32_t c = 0; c < PV_QUERY_MAX; c++) {
		acc_free(&pt->total[c]);
		acc_free(&pt->self[c]);
	}
}

struct pv__stats {
	struct pv_view *v;
	struct part parts[3]; /* the tree, the callers tree, the flat rows */
	uint64_t *h[3];	      /* their rows' path hashes */
	struct acc whole[PV_QUERY_MAX], center[PV_QUERY_MAX];
};

static int stats_init(struct pv__stats *st)
{
	struct pv_view *v = st->v;
	struct pv_tree *trees[2] = {v->tree, v->callers};
	uint32_t lens[3] = {v->tree ? v->tree->len : 0, v->callers ? v->callers->len : 0,
			    v->flat ? v->flat->len : 0};
	for (int k = 0; k < 3; k++) {
		st->h[k] = pv_malloc((size_t)(lens[k] ? lens[k] : 1) * sizeof(uint64_t));
		if (!st->h[k])
			return PV_ENOMEM;
		int rc = 0;
		if (k < 2 && trees[k]) {
			tree_hashes(trees[k], st->h[k]);
			rc = part_init(&st->parts[k], lens[k], st->h[k], trees[k]->total,
				       trees[k]->self, v);
		} else if (k == 2 && v->flat) {
			flat_hashes(v->flat, st->h[k]);
			rc = part_init(&st->parts[k], lens[k], st->h[k], v->flat->total,
				       v->flat->self, v);
		}
		if (rc)
			return rc;
	}
	for (uint32_t c = 0; c < v->nr_metrics; c++)
		if (v->stat[c] != PV_STAT_SUM &&
		    (acc_init(&st->whole[c], 3) || acc_init(&st->center[c], 1)))
			return PV_ENOMEM;
	return 0;
}

int pv__stats_begin(struct pv_view *v, struct pv__stats **out)
{
	struct pv__stats *st = pv_calloc(1, sizeof(*st));
	*out = st;
	if (!st)
		return PV_ENOMEM;
	st->v = v;
	return stats_init(st);
}

int pv__stats_thread_query(const struct pv_view *v, uint32_t i, struct pv_query *q)
{
	if (pv_query_copy(q, &v->q))
		return PV_ENOMEM;
	for (uint32_t k = 0; k < q->nr_threads; k++)
		pv_free(q->threads[k]);
	q->nr_threads = 0;
	for (uint32_t k = 0; k < q->nr_metrics; k++)
		pv_free(q->metrics[k]);
	q->nr_metrics = 0;
	for (uint32_t k = 0; k < q->nr_derive; k++) /* derived columns are the whole view's */
		pv_free(q->derive[k]);
	q->nr_derive = 0;
	char tn[24];
	snprintf(tn, sizeof(tn), "#%u", v->threads[i]);
	int rc = pv_query_add_thread(q, tn);
	for (uint32_t c = 0; c < v->nr_metrics && !rc; c++) {
		char mi[16];
		snprintf(mi, sizeof(mi), "%u", v->metrics[c]); /* the metric by its index */
		rc = pv_query_add_metric(q, mi);
	}
	if (rc)
		pv_query_release(q);
	return rc;
}

/* One kind of rows of thread view t (tt: its tree, callers tree or NULL for its flat rows). */
static int stats_add_part(struct pv__stats *st, int k, uint32_t len, const struct pv_tree *tt,
			  const struct pv_flat *tf, int64_t *const *tot, int64_t *const *slf)
{
	uint64_t *th = pv_malloc((size_t)(len ? len : 1) * sizeof(uint64_t));
	if (!th)
		return PV_ENOMEM;
	if (tt)
		tree_hashes(tt, th);
	else
		flat_hashes(tf, th);
	part_add(&st->parts[k], st->v, len, th, tot, slf);
	pv_free(th);
	return 0;
}

int pv__stats_add(struct pv__stats *st, const struct pv_view *t)
{
	const struct pv_view *v = st->v;
	const struct pv_tree *trees[2] = {v->tree, v->callers};
	const struct pv_tree *tt[2] = {t->tree, t->callers};
	int rc = 0;
	for (int k = 0; k < 2 && !rc; k++)
		if (trees[k] && tt[k])
			rc = stats_add_part(st, k, tt[k]->len, tt[k], NULL, tt[k]->total,
					    tt[k]->self);
	if (!rc && v->flat && t->flat)
		rc = stats_add_part(st, 2, t->flat->len, NULL, t->flat, t->flat->total,
				    t->flat->self);
	for (uint32_t c = 0; c < v->nr_metrics && !rc; c++) {
		if (v->stat[c] == PV_STAT_SUM)
			continue;
		acc_add(&st->whole[c], 0, t->whole[c]);
		acc_add(&st->whole[c], 1, t->nostack[c]);
		acc_add(&st->whole[c], 2, t->base[c]);
		acc_add(&st->center[c], 0, t->center[c]);
	}
	return rc;
}

static int stats_finish(struct pv__stats *st)
{
	struct pv_view *v = st->v;
	for (int k = 0; k < 3; k++)
		if (st->parts[k].len)
			part_finish(&st->parts[k], v);
	for (uint32_t c = 0; c < v->nr_metrics; c++) {
		if (v->stat[c] == PV_STAT_SUM)
			continue;
		enum pv_stat s = (enum pv_stat)v->stat[c];
		v->whole[c] = acc_get(&st->whole[c], 0, v->nr_threads, s);
		v->nostack[c] = acc_get(&st->whole[c], 1, v->nr_threads, s);
		v->base[c] = acc_get(&st->whole[c], 2, v->nr_threads, s);
		v->center[c] = acc_get(&st->center[c], 0, v->nr_threads, s);
	}
	/* a statistic in the first column orders the rows */
	return v->stat[0] != PV_STAT_SUM ? pv__view_resort(v) : 0;
}

int pv__stats_end(struct pv__stats *st, int rc, struct pv_error *err)
{
	if (!st)
		return pv_error_set(err, PV_ENOMEM, "out of memory computing statistics");
	if (!rc)
		rc = stats_finish(st);
	for (int k = 0; k < 3; k++) {
		pv_free(st->h[k]);
		part_release(&st->parts[k]);
	}
	for (uint32_t c = 0; c < PV_QUERY_MAX; c++) {
		acc_free(&st->whole[c]);
		acc_free(&st->center[c]);
	}
	pv_free(st);
	if (rc == PV_ENOMEM)
		return pv_error_set(err, PV_ENOMEM, "out of memory computing statistics");
	return rc;
}

/*
 * test_contexts.c - one row's values over the execution contexts (include/pv/contexts.h).
 *
 * collapsed/contexts-4.txt (4 contexts, hand-computed):
 *   rank 0: main;solve;kernel 6, main;solve 2, main;io 2
 *   rank 1: main;solve;kernel 3, main;io 1
 *   rank 2: main;solve;kernel 9, main;solve 1
 *   rank 3: main;io 4
 * solve: inclusive 8 3 10 0 (sum 21, mean 5.25, population variance 43.25 - 5.25^2 = 15.6875,
 * stddev 3.96074, cv 0.754427, imbalance 10 / 5.25 = 1.904762), exclusive 2 0 1 0.
 */
#include <math.h>
#include <stdlib.h>

#include "pv/contexts.h"
#include "pv/import.h"
#include "pv/info.h"
#include "t.h"
#include "tp.h"
#include "view/internal.h"

#define NEAR(a, b) T_TRUE(fabs((double)(a) - (double)(b)) < 1e-5 * (fabs((double)(b)) + 1))

/* The contexts of the query given by flags name=value ("center=solve", ...), row path. */
static struct pv_contexts *ctx_of(const struct pv_profile *p, const char *const *opts,
				  const struct pv_row_step *path, uint32_t depth,
				  struct pv_error *err)
{
	struct pv_query q;
	pv_query_init(&q);
	for (; opts && *opts; opts += 2)
		if (pv_query_set_option(&q, opts[0], opts[1], err))
			t_fail(__FILE__, __LINE__, "option %s: %s", opts[0], err->msg);
	struct pv_contexts *c = NULL;
	if (pv_contexts_compute(p, &q, path, depth, &c, err))
		c = NULL;
	pv_query_release(&q);
	return c;
}

static void values_are(const struct pv_contexts *c, enum pv_ctx_value w, const int64_t *want,
		       uint32_t n)
{
	T_EQ_INT(c->len, n);
	for (uint32_t i = 0; i < n && i < c->len; i++)
		T_EQ_INT(c->value[w][i], want[i]);
}

T_TEST(contexts_center_values_and_summary)
{
	struct pv_profile *p = t_load_data("collapsed/contexts-4.txt");
	if (!p)
		return;
	struct pv_error err;
	const char *opts[] = {"center", "solve", NULL};
	struct pv_contexts *c = ctx_of(p, opts, NULL, 0, &err);
	T_TRUE(c != NULL);
	if (c) {
		T_EQ_STR(c->name, "solve");
		values_are(c, PV_CTX_INCLUSIVE, (const int64_t[]){8, 3, 10, 0}, 4);
		values_are(c, PV_CTX_EXCLUSIVE, (const int64_t[]){2, 0, 1, 0}, 4);
		const struct pv_ctx_summary *s = &c->summary[PV_CTX_INCLUSIVE];
		T_EQ_INT(s->n, 4);
		T_EQ_INT(s->nonzero, 3);
		T_EQ_INT(s->sum, 21);
		T_EQ_INT(s->min, 0);
		T_EQ_INT(s->max, 10);
		NEAR(s->mean, 5.25);
		NEAR(s->stddev, sqrt(15.6875));
		NEAR(s->cv, sqrt(15.6875) / 5.25);
		NEAR(s->imbalance, 10 / 5.25);
		/* exclusive 2 0 1 0: mean 0.75, variance 5/4 - 0.5625 = 0.6875 */
		s = &c->summary[PV_CTX_EXCLUSIVE];
		T_EQ_INT(s->sum, 3);
		NEAR(s->stddev, sqrt(0.6875));
		NEAR(s->imbalance, 2 / 0.75);
		/* the sorted plot: rank 2 (10), rank 0 (8), rank 1 (3), rank 3 (0) */
		uint32_t order[4];
		pv_contexts_sort(c, PV_CTX_INCLUSIVE, order);
		T_EQ_INT(order[0], 2);
		T_EQ_INT(order[1], 0);
		T_EQ_INT(order[2], 1);
		T_EQ_INT(order[3], 3);
		/* two pixel columns in index order: {8, 3} and {10, 0} */
		struct pv_ctx_column col[4];
		T_EQ_INT(pv_contexts_columns(c, PV_CTX_INCLUSIVE, NULL, 0, 4, 2, col), 2);
		T_EQ_INT(col[0].first, 0);
		T_EQ_INT(col[0].n, 2);
		T_EQ_INT(col[0].min, 3);
		T_EQ_INT(col[0].at_min, 1);
		T_EQ_INT(col[0].max, 8);
		T_EQ_INT(col[0].at_max, 0);
		T_EQ_INT(col[1].min, 0);
		T_EQ_INT(col[1].at_min, 3);
		T_EQ_INT(col[1].max, 10);
		T_EQ_INT(col[1].at_max, 2);
		/* sorted, positions 1..4 in 3 columns: one context each, 8 3 0 */
		T_EQ_INT(pv_contexts_columns(c, PV_CTX_INCLUSIVE, order, 1, 4, 100, col), 3);
		T_EQ_INT(col[0].max, 8);
		T_EQ_INT(col[1].max, 3);
		T_EQ_INT(col[2].max, 0);
		T_EQ_INT(col[2].at_max, 3);
		/* histogram in 4 bins of width 2.5 over [0, 10]: 0 | 3 | - | 8 10 */
		uint32_t count[4], bin[4];
		NEAR(pv_contexts_histogram(c, PV_CTX_INCLUSIVE, 4, count, bin), 2.5);
		T_EQ_INT(count[0], 1);
		T_EQ_INT(count[1], 1);
		T_EQ_INT(count[2], 0);
		T_EQ_INT(count[3], 2);
		T_EQ_INT(bin[0], 3);
		T_EQ_INT(bin[3], 0);
		/* the page's plot: sorted, window [1, 9) clamped to [1, 4), 2 columns of positions
		 * {1} and {2, 3} (8 | 3 0), 4 bins as above */
		struct pv_contexts_plot pl;
		struct pv_contexts_plot_opts po = {PV_CTX_INCLUSIVE, true, 1, 9, 2, 4};
		T_EQ_INT(pv_contexts_plot(c, &po, &pl), 0);
		T_EQ_INT(pl.from, 1);
		T_EQ_INT(pl.to, 4);
		T_EQ_INT(pl.order[0], 2);
		T_EQ_INT(pl.nr_cols, 2);
		T_EQ_INT(pl.cols[0].n, 1);
		T_EQ_INT(pl.cols[0].max, 8);
		T_EQ_INT(pl.cols[1].first, 2);
		T_EQ_INT(pl.cols[1].min, 0);
		T_EQ_INT(pl.cols[1].at_min, 3);
		T_EQ_INT(pl.cols[1].max, 3);
		NEAR(pl.bin_width, 2.5);
		T_EQ_INT(pl.count[3], 2);
		T_EQ_INT(pl.bin[2], 3);
		pv_contexts_plot_release(&pl);
		/* index order, no columns, no bins: nothing allocated; from past to: an empty
		 * window */
		po = (struct pv_contexts_plot_opts){PV_CTX_EXCLUSIVE, false, 3, 2, 0, 0};
		T_EQ_INT(pv_contexts_plot(c, &po, &pl), 0);
		T_TRUE(!pl.order && !pl.cols && !pl.count && !pl.bin);
		T_EQ_INT(pl.from, 3);
		T_EQ_INT(pl.to, 3);
		T_EQ_INT(pl.nr_cols, 0);
		pv_contexts_plot_release(&pl);
	}
	pv_contexts_free(c);
	pv_profile_free(p);
}

T_TEST(contexts_rows_of_a_tree)
{
	struct pv_profile *p = t_load_data("collapsed/contexts-4.txt");
	if (!p)
		return;
	struct pv_error err;
	/* the whole: each context's samples, no exclusive */
	struct pv_contexts *c = ctx_of(p, NULL, NULL, 0, &err);
	T_TRUE(c != NULL);
	if (c) {
		T_EQ_STR(c->name, "(all)");
		values_are(c, PV_CTX_INCLUSIVE, (const int64_t[]){10, 4, 10, 4}, 4);
		values_are(c, PV_CTX_EXCLUSIVE, (const int64_t[]){0, 0, 0, 0}, 4);
		/* inclusive 10 4 10 4: mean 7, stddev 3; exclusive all 0: mean 0, so cv and
		 * imbalance (ratios to it) are undefined, not 0 */
		NEAR(c->summary[PV_CTX_INCLUSIVE].cv, 3.0 / 7);
		NEAR(c->summary[PV_CTX_INCLUSIVE].imbalance, 10.0 / 7);
		T_EQ_INT(c->summary[PV_CTX_EXCLUSIVE].mean, 0);
		T_TRUE(isnan(c->summary[PV_CTX_EXCLUSIVE].cv));
		T_TRUE(isnan(c->summary[PV_CTX_EXCLUSIVE].imbalance));
	}
	pv_contexts_free(c);
	/* the row main > io of the uncentered tree, found by its path */
	struct pv_query q;
	pv_query_init(&q);
	struct pv_view *v = NULL;
	T_EQ_INT(pv_view_compute(p, &q, &v, &err), 0);
	uint32_t io = PV_NONE;
	for (uint32_t r = 0; v && r < v->tree->len; r++)
		if (v->tree->depth[r] == 1 &&
		    strcmp(pv_str(p, p->funcs.name[v->tree->id[r]]), "io") == 0)
			io = r;
	T_TRUE(io != PV_NONE);
	struct pv_row_step path[4];
	if (io != PV_NONE) {
		T_EQ_INT(pv_tree_row_path(v->tree, io, path, 4), 2);
		c = ctx_of(p, NULL, path, 2, &err);
		T_TRUE(c != NULL);
		if (c) {
			T_EQ_STR(c->name, "io");
			values_are(c, PV_CTX_INCLUSIVE, (const int64_t[]){2, 1, 0, 4}, 4);
			values_are(c, PV_CTX_EXCLUSIVE, (const int64_t[]){2, 1, 0, 4}, 4);
		}
		pv_contexts_free(c);
	}
	pv_view_free(v);
	pv_query_release(&q);
	/* centered on main: the row kernel is center > solve > kernel */
	const char *opts[] = {"center", "main", NULL};
	pv_query_init(&q);
	pv_query_add_center(&q, "main");
	T_EQ_INT(pv_view_compute(p, &q, &v, &err), 0);
	uint32_t kernel = PV_NONE;
	for (uint32_t r = 0; v && r < v->tree->len; r++)
		if (v->tree->depth[r] == 2)
			kernel = r;
	T_TRUE(kernel != PV_NONE);
	if (kernel != PV_NONE) {
		T_EQ_INT(pv_tree_row_path(v->tree, kernel, path, 4), 3);
		T_EQ_INT(path[0].kind, PV_ROW_CENTER);
		c = ctx_of(p, opts, path, 3, &err);
		T_TRUE(c != NULL);
		if (c) {
			T_EQ_STR(c->name, "kernel");
			values_are(c, PV_CTX_INCLUSIVE, (const int64_t[]){6, 3, 9, 0}, 4);
			values_are(c, PV_CTX_EXCLUSIVE, (const int64_t[]){6, 3, 9, 0}, 4);
		}
		pv_contexts_free(c);
	}
	pv_view_free(v);
	pv_query_release(&q);
	/* a path that names no row */
	struct pv_row_step bad = {PV_ROW_FUNCTION, 999, 0};
	T_TRUE(ctx_of(p, NULL, &bad, 1, &err) == NULL);
	T_CONTAINS(err.msg, "no such row");
	pv_profile_free(p);
}

T_TEST(contexts_filters_and_threads)
{
	struct pv_profile *p = t_load_data("collapsed/contexts-4.txt");
	if (!p)
		return;
	struct pv_error err;
	/* --drop kernel: solve keeps its own samples only */
	const char *drop[] = {"center", "solve", "drop", "kernel", NULL};
	struct pv_contexts *c = ctx_of(p, drop, NULL, 0, &err);
	T_TRUE(c != NULL);
	if (c)
		values_are(c, PV_CTX_INCLUSIVE, (const int64_t[]){2, 0, 1, 0}, 4);
	pv_contexts_free(c);
	/* --merge kernel: kernel's cost becomes solve's own */
	const char *merge[] = {"center", "solve", "merge", "kernel", NULL};
	c = ctx_of(p, merge, NULL, 0, &err);
	T_TRUE(c != NULL);
	if (c)
		values_are(c, PV_CTX_EXCLUSIVE, (const int64_t[]){8, 3, 10, 0}, 4);
	pv_contexts_free(c);
	/* contexts by a pattern on their names: ranks 1 and 2 */
	const char *re[] = {"center", "solve", "thread", "re:rank (1|2)$", NULL};
	c = ctx_of(p, re, NULL, 0, &err);
	T_TRUE(c != NULL);
	if (c) {
		values_are(c, PV_CTX_INCLUSIVE, (const int64_t[]){3, 10}, 2);
		T_EQ_INT(c->thread[0], 1);
		T_EQ_INT(c->thread[1], 2);
		T_EQ_INT(c->summary[0].sum, 13);
	}
	pv_contexts_free(c);
	/* the view of the same threads sums them */
	struct pv_query q;
	struct pv_view *v = NULL;
	pv_query_init(&q);
	pv_query_add_thread(&q, "re:rank [02]");
	pv_query_add_center(&q, "solve");
	T_EQ_INT(pv_view_compute(p, &q, &v, &err), 0);
	if (v) {
		T_EQ_INT(v->nr_threads, 2);
		T_EQ_INT(v->center[0], 18);
	}
	pv_view_free(v);
	pv_query_release(&q);
	const char *none[] = {"thread", "re:^node", NULL};
	T_TRUE(ctx_of(p, none, NULL, 0, &err) == NULL);
	T_EQ_INT(err.code, PV_EINVAL);
	T_CONTAINS(err.msg, "no thread name matches 're:^node'");
	const char *broken[] = {"thread", "re:rank (", NULL};
	T_TRUE(ctx_of(p, broken, NULL, 0, &err) == NULL);
	T_CONTAINS(err.msg, "--thread 're:rank (': bad regular expression");
	const char *huge[] = {"thread", "re:(a{1,200}){1,200}", NULL};
	T_TRUE(ctx_of(p, huge, NULL, 0, &err) == NULL);
	T_CONTAINS(err.msg, "too large");
	pv_profile_free(p);
}

/*
 * HPCToolkit loops-cputime-t.d (4 threads): main._omp_fn.0 holds every sample of each thread,
 * so its inclusive values are the threads' totals of the database (994.165, 992.977, 992.704,
 * 993.462 ms; sum 3973.308 ms, the profile's total); its exclusive values sum to its two rows'
 * self in the tree (963.364 + 281.529 ms).
 */
T_TEST(contexts_hpctoolkit_threads)
{
	struct pv_profile *p = t_load_data("hpctoolkit/loops-cputime-t.d");
	if (!p)
		return;
	struct pv_error err;
	const char *omp[] = {"center", "main._omp_fn.0", NULL};
	struct pv_contexts *c = ctx_of(p, omp, NULL, 0, &err);
	T_TRUE(c != NULL);
	if (c) {
		values_are(c, PV_CTX_INCLUSIVE,
			   (const int64_t[]){994165000, 992977000, 992704000, 993462000}, 4);
		T_EQ_INT(c->summary[0].sum, 3973308000);
		T_EQ_INT(c->summary[1].sum, 963364000 + 281529000);
		T_EQ_INT(c->value[1][0], 281529000); /* the main thread's */
	}
	pv_contexts_free(c);
	const char *f2[] = {
	    "center", "func2", "thread", "re:THREAD (1|2)$", "metric", "CPUTIME (sec):mean", NULL};
	c = ctx_of(p, f2, NULL, 0, &err);
	T_TRUE(c != NULL);
	if (c) {
		values_are(c, PV_CTX_INCLUSIVE, (const int64_t[]){305066000, 227221000}, 2);
		NEAR(c->summary[0].imbalance, 305066000.0 / ((305066000.0 + 227221000.0) / 2));
	}
	pv_contexts_free(c);
	pv_profile_free(p);
}

/*
 * With a time range (the selection by sample) and a merge (stacks rebuilt): each context's values
 * equal the row's total and self in the view of that context alone, for every row of the tree.
 */
T_TEST(contexts_equal_views_of_one_thread)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	if (pv_import_file(t_corpus("firefox/chrome-trace-issue-5429.json.gz"), NULL, &p, &err)) {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
		return;
	}
	int64_t lo, hi;
	T_TRUE(pv_samples_span(p, &lo, &hi));
	struct pv_query q;
	pv_query_init(&q);
	q.has_range = true;
	q.range_start_ns = lo + (hi - lo) / 4;
	q.range_end_ns = hi;
	pv_query_add_filter(&q, PV_FILTER_MERGE, "__nccwpck_require__");
	struct pv_view *v = NULL;
	T_EQ_INT(pv_view_compute(p, &q, &v, &err), 0);
	uint32_t checked = 0, nonzero = 0;
	for (uint32_t r = 0; v && r < v->tree->len; r++) {
		struct pv_row_step path[64];
		uint32_t d = pv_tree_row_path(v->tree, r, path, 64);
		if (d > 64 || (!v->tree->total[0][r] && !v->tree->self[0][r]))
			continue; /* a row a filter left without cost is not shown */
		struct pv_contexts *c = NULL;
		T_EQ_INT(pv_contexts_compute(p, &q, path, d, &c, &err), 0);
		for (uint32_t i = 0; c && i < c->len; i++) {
			struct pv_query tq;
			pv_query_copy(&tq, &q);
			char tn[16];
			snprintf(tn, sizeof(tn), "#%u", c->thread[i]);
			pv_query_add_thread(&tq, tn);
			struct pv_view *tv = NULL;
			T_EQ_INT(pv_view_compute(p, &tq, &tv, &err), 0);
			int64_t tot = 0, self = 0;
			/* the same path in the thread's own tree */
			const uint32_t *list = tv ? tv->tree->roots : NULL;
			uint32_t n = tv ? tv->tree->nr_roots : 0, row = PV_NONE;
			for (uint32_t k = 0; k < d && list; k++) {
				row = PV_NONE;
				for (uint32_t j = 0; j < n && row == PV_NONE; j++)
					if (tv->tree->kind[list[j]] == path[k].kind &&
					    tv->tree->id[list[j]] == path[k].id &&
					    tv->tree->line[list[j]] == path[k].line)
						row = list[j];
				if (row == PV_NONE)
					break;
				list = tv->tree->children + tv->tree->child_first[row];
				n = tv->tree->child_len[row];
			}
			if (row != PV_NONE) {
				tot = tv->tree->total[0][row];
				self = tv->tree->self[0][row];
			}
			nonzero += tot != 0;
			T_EQ_INT(c->value[0][i], tot);
			T_EQ_INT(c->value[1][i], self);
			checked++;
			pv_view_free(tv);
			pv_query_release(&tq);
		}
		pv_contexts_free(c);
	}
	T_TRUE(checked > 200);
	T_TRUE(nonzero > 50);
	pv_view_free(v);
	pv_query_release(&q);
	pv_profile_free(p);
}

/*
 * A call-graph profile (one thread): its top-down tree comes from the graph, and its one
 * context holds each row's total and self as the tree shows them, also for rows the stacks
 * estimated from the graph do not have (the deep rows of gprof2dot-bool: a 400, "no such row in
 * this view", on the page's first display) and for a center asked for by its scope.
 */
T_TEST(contexts_of_a_call_graph)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	if (pv_import_file(t_corpus("callgrind/gprof2dot-bool.callgrind"), NULL, &p, &err)) {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
		return;
	}
	struct pv_query q;
	pv_query_init(&q);
	struct pv_view *v = NULL;
	T_EQ_INT(pv_view_compute(p, &q, &v, &err), 0);
	T_TRUE(v && v->priv->from_graph);
	uint32_t checked = 0, deep = 0;
	/* 30 rows spread over the tree (rows come parents first, the deep ones last) */
	for (uint32_t r = 0; v && r < v->tree->len; r += 1 + v->tree->len / 30) {
		struct pv_row_step path[64];
		uint32_t d = pv_tree_row_path(v->tree, r, path, 64);
		if (d > 64)
			continue;
		struct pv_contexts *c = NULL;
		T_EQ_INT(pv_contexts_compute(p, &q, path, d, &c, &err), 0);
		if (!c)
			break;
		T_EQ_INT(c->len, 1);
		T_EQ_INT(c->value[PV_CTX_INCLUSIVE][0], v->tree->total[0][r]);
		T_EQ_INT(c->value[PV_CTX_EXCLUSIVE][0], v->tree->self[0][r]);
		checked++;
		deep += d >= 12;
		pv_contexts_free(c);
	}
	T_TRUE(checked >= 30);
	T_TRUE(deep > 5);
	pv_view_free(v);
	/* by its scope: the graph's centered view, g_type_create_instance's inclusive cost */
	pv_query_add_center(&q, "g_type_create_instance");
	T_EQ_INT(pv_view_compute(p, &q, &v, &err), 0);
	struct pv_contexts *c = NULL;
	T_EQ_INT(pv_contexts_compute(p, &q, NULL, 0, &c, &err), 0);
	if (c && v) {
		T_EQ_STR(c->name, "g_type_create_instance");
		T_EQ_INT(c->value[PV_CTX_INCLUSIVE][0], v->center[0]);
		T_EQ_INT(c->value[PV_CTX_INCLUSIVE][0],
			 p->func_costs.total[0][t_find_func(p, "g_type_create_instance")]);
	}
	pv_contexts_free(c);
	pv_view_free(v);
	pv_query_release(&q);
	pv_profile_free(p);
}

/*
 * The sorted order on values chosen by hand: negatives, the extremes, ties (kept in index
 * order), values that differ only in a high byte or only in the low one. Sorted by value,
 * largest first, ties by index (the expected order written out by hand):
 *   INT64_MAX (5), 1 << 40 (1), 256 (3), 256 (7), 255 (0), 1 (8), 0 (4), -1 (2), -1 (9),
 *   -(1 << 40) (6), INT64_MIN (10).
 */
T_TEST(contexts_sort_order)
{
	int64_t v[11] = {255, INT64_C(1) << 40, -1, 256, 0, INT64_MAX, -(INT64_C(1) << 40), 256, 1,
			 -1,  INT64_MIN};
	const uint32_t want[11] = {5, 1, 3, 7, 0, 8, 4, 2, 9, 6, 10};
	struct pv_contexts c = {0};
	c.len = 11;
	c.value[PV_CTX_INCLUSIVE] = v;
	uint32_t order[11];
	pv_contexts_sort(&c, PV_CTX_INCLUSIVE, order);
	for (uint32_t k = 0; k < 11; k++)
		T_EQ_INT(order[k], want[k]);
	/* all equal: index order; one context: itself */
	int64_t same[3] = {7, 7, 7};
	c.len = 3;
	c.value[PV_CTX_INCLUSIVE] = same;
	pv_contexts_sort(&c, PV_CTX_INCLUSIVE, order);
	T_EQ_INT(order[0], 0);
	T_EQ_INT(order[1], 1);
	T_EQ_INT(order[2], 2);
	c.len = 1;
	pv_contexts_sort(&c, PV_CTX_INCLUSIVE, order);
	T_EQ_INT(order[0], 0);
}

/*
 * test_first.c - the row a view opens on (pv_view_first_path, include/pv/view.h): the Firefox
 * Profiler's heaviest non-idle path, at most PV_FIRST_DEPTH levels, stopping before a row below
 * PV_FIRST_FLOOR of the first row; and each function's category (pv_func_categories). The
 * profiles are built here; every expected row is counted by hand from the stacks below.
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "model/builder.h"
#include "pv/rows.h"
#include "pv/view.h"
#include "t.h"

/* n samples of stack st on thread t */
static void samples(struct pv_builder *b, pv_thread_ix t, pv_stack_ix st, int n)
{
	for (int i = 0; i < n; i++)
		builder_sample(b, t, st, i, NULL);
}

static pv_frame_ix frame(struct pv_builder *b, const char *name, pv_cat_ix cat)
{
	pv_func_ix f = builder_func(b, builder_cstr(b, name), PV_NONE, PV_NONE, 0);
	struct frame_key k = {.func = f, .addr = PV_ADDR_NONE, .category = cat};
	return builder_frame(b, &k);
}

/*
 * Categories Other (0) and Idle (1); the samples:
 *   R;I      500   I an Idle function: the heaviest child of R, never opened on
 *   R;A;B    295
 *   R;A;B;T    5   T is 0.23 % of the whole 2200: below the 1 % floor
 *   R;A      200
 *   (no stack) 1200: the heaviest root, never opened on
 * so the first path is R (1000) > A (500) > B (300), B selected.
 */
static struct pv_profile *idle_profile(void)
{
	struct pv_builder b;
	if (builder_init(&b))
		return NULL;
	pv_cat_ix other = builder_category(&b, builder_cstr(&b, "Other"), builder_cstr(&b, "grey"));
	pv_cat_ix idle =
	    builder_category(&b, builder_cstr(&b, "Idle"), builder_cstr(&b, "transparent"));
	pv_stack_ix r = builder_stack(&b, PV_NONE, frame(&b, "R", other));
	pv_stack_ix ri = builder_stack(&b, r, frame(&b, "I", idle));
	pv_stack_ix ra = builder_stack(&b, r, frame(&b, "A", PV_NONE));
	pv_stack_ix rab = builder_stack(&b, ra, frame(&b, "B", other));
	pv_stack_ix rabt = builder_stack(&b, rab, frame(&b, "T", other));
	builder_metric(&b, builder_cstr(&b, "samples"), PV_UNIT_COUNT);
	pv_thread_ix t = builder_thread(&b, builder_cstr(&b, "main"), 1, 1, 0);
	samples(&b, t, ri, 500);
	samples(&b, t, rab, 295);
	samples(&b, t, rabt, 5);
	samples(&b, t, ra, 200);
	samples(&b, t, PV_NONE, 1200);
	struct pv_profile *p = NULL;
	if (builder_finish(&b, &p))
		p = NULL;
	builder_release(&b);
	return p;
}

static struct pv_view *view_of(const struct pv_profile *p, const char *center)
{
	struct pv_query q;
	pv_query_init(&q);
	struct pv_error err;
	struct pv_view *v = NULL;
	if (center)
		T_EQ_INT(pv_query_set_option(&q, "center", center, &err), 0);
	if (pv_view_compute(p, &q, &v, &err)) {
		t_fail(__FILE__, __LINE__, "view: %s", err.msg);
		v = NULL;
	}
	pv_query_release(&q);
	return v;
}

static const char *row_func(const struct pv_profile *p, const struct pv_tree *t, uint32_t r)
{
	return pv_str(p, p->funcs.name[t->id[r]]);
}

T_TEST(first_path_skips_idle_and_stops_at_the_floor)
{
	struct pv_profile *p = idle_profile();
	T_TRUE(p != NULL);
	if (!p)
		return;
	/* each function's category: its frames' (A has none) */
	pv_cat_ix *cat = NULL;
	T_EQ_INT(pv_func_categories(p, &cat), 0);
	T_TRUE(cat != NULL);
	if (cat) {
		T_EQ_INT(cat[0], 0); /* R */
		T_EQ_INT(cat[1], 1); /* I */
		T_EQ_INT(cat[2], PV_NONE);
		T_EQ_INT(cat[3], 0); /* B */
	}
	pv_free(cat);
	T_EQ_INT(pv_idle_category(p), 1);
	struct pv_view *v = view_of(p, NULL);
	if (v) {
		uint32_t rows[PV_FIRST_DEPTH + 1], n = 0;
		T_EQ_INT(pv_view_first_path(v, v->tree, rows, PV_FIRST_DEPTH + 1, &n), 0);
		T_EQ_INT(n, 3);
		if (n == 3) {
			T_EQ_STR(row_func(p, v->tree, rows[0]), "R");
			T_EQ_INT(v->tree->total[0][rows[0]], 1000);
			T_EQ_STR(row_func(p, v->tree, rows[1]), "A");
			T_EQ_INT(v->tree->total[0][rows[1]], 500);
			T_EQ_STR(row_func(p, v->tree, rows[2]), "B");
			T_EQ_INT(v->tree->total[0][rows[2]], 300);
		}
		/* the heaviest root is the (no stack) row, the heaviest path goes into I */
		T_EQ_INT(v->tree->kind[v->tree->roots[0]], PV_ROW_NOSTACK);
		uint32_t heavy[4];
		T_EQ_INT(pv_tree_heaviest(v->tree, 4, heavy), 0); /* no stack: no children */
		pv_view_free(v);
	}
	/* centered on A: A (500) > B (300); T (5) is 1 % of A's 500 and stays above the floor */
	v = view_of(p, "A");
	if (v) {
		uint32_t rows[PV_FIRST_DEPTH + 1], n = 0;
		T_EQ_INT(pv_view_first_path(v, v->tree, rows, PV_FIRST_DEPTH + 1, &n), 0);
		T_EQ_INT(n, 3);
		if (n == 3) {
			T_EQ_INT(v->tree->kind[rows[0]], PV_ROW_CENTER);
			T_EQ_STR(row_func(p, v->tree, rows[1]), "B");
			T_EQ_STR(row_func(p, v->tree, rows[2]), "T");
			T_EQ_INT(v->tree->total[0][rows[2]], 5);
		}
		pv_view_free(v);
	}
	pv_profile_free(p);
}

/* A chain of 20 calls, one sample at its end: the path stops 17 levels below the root. */
T_TEST(first_path_depth)
{
	struct pv_builder b;
	if (builder_init(&b))
		return;
	pv_stack_ix st = PV_NONE;
	char name[16];
	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		st = builder_stack(&b, st, frame(&b, name, PV_NONE));
	}
	builder_metric(&b, builder_cstr(&b, "samples"), PV_UNIT_COUNT);
	samples(&b, builder_thread(&b, builder_cstr(&b, "main"), 1, 1, 0), st, 1);
	struct pv_profile *p = NULL;
	int rc = builder_finish(&b, &p);
	builder_release(&b);
	T_EQ_INT(rc, 0);
	if (rc)
		return;
	/* no category at all: none to tell */
	pv_cat_ix *cat = (pv_cat_ix *)1;
	T_EQ_INT(pv_func_categories(p, &cat), 0);
	T_TRUE(cat == NULL);
	struct pv_view *v = view_of(p, NULL);
	if (v) {
		uint32_t rows[64], n = 0;
		T_EQ_INT(pv_view_first_path(v, v->tree, rows, 64, &n), 0);
		T_EQ_INT(n, PV_FIRST_DEPTH + 1);
		T_EQ_STR(row_func(p, v->tree, rows[n - 1]), "f17");
		/* a short buffer: cut there */
		T_EQ_INT(pv_view_first_path(v, v->tree, rows, 5, &n), 0);
		T_EQ_INT(n, 5);
		T_EQ_STR(row_func(p, v->tree, rows[4]), "f4");
		pv_view_free(v);
	}
	pv_profile_free(p);
}

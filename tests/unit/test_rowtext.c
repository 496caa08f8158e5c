/*
 * test_rowtext.c - one row's text on demand (pv_row_key, pv_row_scope, pv_row_path), the search
 * of a view's rows by name (pv_view_find_name), a marker's cause stack as a center and the
 * default source folder of a profile: what the TUI asks of the library.
 *
 * tests/data/collapsed/worked-example.txt interns main f0, real_main f1, foo f2, bar f3,
 * baz f4, qux f5, malloc f6 (order of first appearance). Its top-down tree in pre-order
 * (children by total): main 26 > real_main 15 > foo 11 > bar 10; real_main > malloc 4;
 * main > foo 7 > baz 5; foo > bar 2 > foo 2 > baz 2; main > qux 3 > malloc 3.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pv/import.h"
#include "pv/marker.h"
#include "pv/rows.h"
#include "pv/source.h"
#include "t.h"

static struct pv_view *worked(enum pv_view_kind kind, const char *center, struct pv_profile **pp)
{
	struct pv_error err;
	pv_error_clear(&err);
	*pp = NULL;
	if (pv_import_file(t_data("collapsed/worked-example.txt"), NULL, pp, &err))
		t_fail(__FILE__, __LINE__, "cannot import: %s", err.msg);
	struct pv_query q;
	pv_query_init(&q);
	q.view = kind;
	if (center)
		T_EQ_INT(pv_query_add_center(&q, center), 0);
	struct pv_view *v = NULL;
	T_EQ_INT(pv_view_compute(*pp, &q, &v, &err), 0);
	pv_query_release(&q);
	return v;
}

/* The row of v->tree named key. */
static uint32_t row(const struct pv_view *v, const char *key)
{
	struct pv_row_ref ref;
	T_TRUE(pv_view_find(v, key, &ref));
	return ref.row;
}

T_TEST(rowtext_key_scope_path)
{
	struct pv_profile *p;
	struct pv_view *v = worked(PV_VIEW_TREE, NULL, &p);
	struct pv_row_namer *nm;
	T_EQ_INT(pv_row_namer_new(v, &nm), 0);
	uint32_t baz = row(v, "f0/f2/f4");
	T_EQ_STR(pv_row_key(nm, v->tree, baz), "f0/f2/f4");
	T_EQ_STR(pv_row_scope(nm, v->tree, baz), "baz");
	T_EQ_STR(pv_row_path(nm, v->tree, baz), "path:main;foo;baz");
	uint32_t deep = row(v, "f0/f2/f3/f2/f4");
	T_EQ_STR(pv_row_key(nm, v->tree, deep), "f0/f2/f3/f2/f4");
	T_EQ_STR(pv_row_path(nm, v->tree, deep), "path:main;foo;bar;foo;baz");
	T_TRUE(!pv_row_namer_oom(nm));
	pv_row_namer_free(nm);
	pv_view_free(v);
	pv_profile_free(p);

	/* centered on foo: the center row has a key (c) and no scope; rows below have no path */
	v = worked(PV_VIEW_TREE, "foo", &p);
	T_EQ_INT(pv_row_namer_new(v, &nm), 0);
	uint32_t c = v->tree->roots[0];
	T_EQ_STR(pv_row_key(nm, v->tree, c), "c");
	T_TRUE(pv_row_scope(nm, v->tree, c) == NULL);
	uint32_t bar = row(v, "c/f3");
	T_EQ_STR(pv_row_key(nm, v->tree, bar), "c/f3");
	T_EQ_STR(pv_row_scope(nm, v->tree, bar), "bar");
	T_TRUE(pv_row_path(nm, v->tree, bar) == NULL);
	pv_row_namer_free(nm);
	pv_view_free(v);
	pv_profile_free(p);

	/* butterfly: callers' keys start with up:, callees' with down: */
	v = worked(PV_VIEW_BUTTERFLY, "bar", &p);
	T_EQ_INT(pv_row_namer_new(v, &nm), 0);
	struct pv_row_ref ref;
	T_TRUE(pv_view_find(v, "up:c/f2", &ref));
	T_TRUE(ref.tree == v->callers);
	T_EQ_STR(pv_row_key(nm, v->callers, ref.row), "up:c/f2");
	T_TRUE(pv_view_find(v, "down:c", &ref));
	T_EQ_STR(pv_row_key(nm, v->tree, ref.row), "down:c");
	pv_row_namer_free(nm);
	pv_view_free(v);
	pv_profile_free(p);
}

T_TEST(rowtext_flat_keys)
{
	struct pv_profile *p;
	struct pv_view *v = worked(PV_VIEW_TOP, NULL, &p);
	struct pv_row_namer *nm;
	T_EQ_INT(pv_row_namer_new(v, &nm), 0);
	/* every row's key names it again */
	for (uint32_t r = 0; r < v->flat->len; r++) {
		struct pv_row_ref ref;
		const char *k = pv_row_key(nm, NULL, r);
		T_TRUE(k && pv_view_find(v, k, &ref) && ref.row == r);
	}
	pv_row_namer_free(nm);
	pv_view_free(v);
	pv_profile_free(p);
	v = worked(PV_VIEW_FLAT, NULL, &p);
	T_EQ_INT(pv_row_namer_new(v, &nm), 0);
	uint32_t nfunc = 0;
	for (uint32_t r = 0; r < v->flat->len; r++) {
		struct pv_row_ref ref;
		const char *k = pv_row_key(nm, NULL, r);
		T_TRUE(k && pv_view_find(v, k, &ref) && ref.row == r);
		if (v->flat->level[r] == 2) { /* module/file/function: m-/s-/fN */
			T_TRUE(strncmp(k, "m-/s-/f", 7) == 0);
			nfunc++;
		}
	}
	T_EQ_INT(nfunc, 7);
	pv_row_namer_free(nm);
	pv_view_free(v);
	pv_profile_free(p);
}

T_TEST(rowtext_find_name)
{
	struct pv_profile *p;
	struct pv_view *v = worked(PV_VIEW_TREE, NULL, &p);
	const struct pv_tree *t = v->tree;
	uint32_t baz1 = row(v, "f0/f2/f4"), baz2 = row(v, "f0/f2/f3/f2/f4");
	T_EQ_INT(pv_view_find_name(v, t, PV_NONE, "baz", false), baz1);
	T_EQ_INT(pv_view_find_name(v, t, baz1, "baz", false), baz2);
	T_EQ_INT(pv_view_find_name(v, t, baz2, "baz", false), baz1); /* wraps */
	T_EQ_INT(pv_view_find_name(v, t, baz1, "baz", true), baz2);  /* wraps back */
	T_EQ_INT(pv_view_find_name(v, t, baz2, "baz", true), baz1);
	/* ASCII case ignored; pre-order finds real_main's malloc before qux's */
	T_EQ_INT(pv_view_find_name(v, t, PV_NONE, "MALLOC", false), row(v, "f0/f1/f6"));
	T_EQ_INT(pv_view_find_name(v, t, PV_NONE, "zzz", false), PV_NONE);
	/* the only match is found again from itself */
	uint32_t q = row(v, "f0/f5");
	T_EQ_INT(pv_view_find_name(v, t, q, "qux", false), q);
	pv_view_free(v);
	pv_profile_free(p);
	/* a list: rows in order (top by self: bar 12, baz 7, malloc 7, ...) */
	v = worked(PV_VIEW_TOP, NULL, &p);
	uint32_t m = pv_view_find_name(v, NULL, PV_NONE, "mall", false);
	T_TRUE(m != PV_NONE);
	char b[64];
	T_EQ_STR(
	    pv_view_row_name(v, v->flat->kind[m], v->flat->id[m], b, sizeof(b), v->flat->line[m]),
	    "malloc");
	pv_view_free(v);
	pv_profile_free(p);
}

T_TEST(rowtext_source_profile_root)
{
	char dir[PATH_MAX], want[PATH_MAX];
	T_TRUE(realpath(t_data("collapsed"), want) != NULL);
	T_EQ_INT(pv_source_profile_root(t_data("collapsed/worked-example.txt"), dir, sizeof(dir)),
		 1);
	T_EQ_STR(dir, want);
	/* a folder is its own root */
	T_EQ_INT(pv_source_profile_root(t_data("collapsed"), dir, sizeof(dir)), 1);
	T_EQ_STR(dir, want);
	T_EQ_INT(pv_source_profile_root(t_data("collapsed/worked-example.txt"), dir, 3), 0);
}

/* The worked example of doc/views.md (no-center parts), through the collapsed importer. */
#include <stdlib.h>

#include "pv/format.h"
#include "pv/import.h"
#include "pv/view.h"
#include "t.h"
#include "view/calltree.h"

static struct pv_profile *load_example(void)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	int rc = pv_import_file(t_data("collapsed/worked-example.txt"), NULL, &p, &err);
	if (rc) {
		t_fail(__FILE__, __LINE__, "import: %s", err.msg);
		return NULL;
	}
	T_EQ_INT(pv_profile_validate(p, &err), 0);
	return p;
}

/* name of node n */
static const char *nname(const struct pv_profile *p, const struct pv_calltree *t, uint32_t n)
{
	return pv_str(p, p->funcs.name[t->func[n]]);
}

static uint32_t child(const struct pv_calltree *t, uint32_t n, uint32_t i)
{
	return t->children[t->child_first[n] + i];
}

#define ROW(n, name, tot, slf)                  \
	do {                                    \
		T_EQ_STR(nname(p, t, n), name); \
		T_EQ_INT(t->total[n], tot);     \
		T_EQ_INT(t->self[n], slf);      \
	} while (0)

T_TEST(worked_example_top_down)
{
	struct pv_profile *p = load_example();
	if (!p)
		return;
	struct pv_calltree *t;
	struct pv_error err;
	T_EQ_INT(pv_calltree_build(p, NULL, &t, &err), 0);
	T_EQ_INT(t->total_cost, 26);
	T_EQ_INT(t->nr_roots, 1);
	uint32_t main_ = t->roots[0];
	ROW(main_, "main", 26, 1);
	T_EQ_INT(t->child_len[main_], 3);
	uint32_t rm = child(t, main_, 0), foo = child(t, main_, 1), qux = child(t, main_, 2);
	ROW(rm, "real_main", 15, 0);
	ROW(child(t, rm, 0), "foo", 11, 1);
	ROW(child(t, child(t, rm, 0), 0), "bar", 10, 10);
	ROW(child(t, rm, 1), "malloc", 4, 4);
	ROW(foo, "foo", 7, 0);
	ROW(child(t, foo, 0), "baz", 5, 5);
	uint32_t bar = child(t, foo, 1);
	ROW(bar, "bar", 2, 0);
	ROW(child(t, bar, 0), "foo", 2, 0);
	ROW(child(t, child(t, bar, 0), 0), "baz", 2, 2);
	ROW(qux, "qux", 3, 0);
	ROW(child(t, qux, 0), "malloc", 3, 3);
	/* invariant: self sums to the root total; total = self + children */
	int64_t selfsum = 0;
	for (uint32_t n = 0; n < t->len; n++) {
		selfsum += t->self[n];
		int64_t c = t->self[n];
		for (uint32_t i = 0; i < t->child_len[n]; i++)
			c += t->total[child(t, n, i)];
		T_EQ_INT(t->total[n], c);
	}
	T_EQ_INT(selfsum, 26);
	pv_calltree_free(t);
	pv_profile_free(p);
}

T_TEST(worked_example_flat_by_function)
{
	struct pv_profile *p = load_example();
	if (!p)
		return;
	struct pv_top *t;
	struct pv_error err;
	T_EQ_INT(pv_top_build(p, NULL, PV_TOP_BY_TOTAL, &t, &err), 0);
	/* main 26/1, foo 18/1, real_main 15/0, bar 12/10, baz 7/7, malloc 7/7, qux 3/0 */
	static const struct {
		const char *name;
		int64_t total, self;
	} want[] = {
	    {"main", 26, 1}, {"foo", 18, 1},   {"real_main", 15, 0}, {"bar", 12, 10},
	    {"baz", 7, 7},   {"malloc", 7, 7}, {"qux", 3, 0},
	};
	T_EQ_INT(t->len, 7);
	for (uint32_t i = 0; i < t->len && i < 7; i++) {
		T_EQ_STR(pv_str(p, p->funcs.name[t->func[i]]), want[i].name);
		T_EQ_INT(t->total[i], want[i].total);
		T_EQ_INT(t->self[i], want[i].self);
	}
	pv_top_free(t);
	/* by self: bar 10, then baz and malloc (7, ties by total then name), main 1, foo 1 ... */
	T_EQ_INT(pv_top_build(p, NULL, PV_TOP_BY_SELF, &t, &err), 0);
	T_EQ_STR(pv_str(p, p->funcs.name[t->func[0]]), "bar");
	T_EQ_STR(pv_str(p, p->funcs.name[t->func[1]]), "baz");
	T_EQ_STR(pv_str(p, p->funcs.name[t->func[2]]), "malloc");
	T_EQ_STR(pv_str(p, p->funcs.name[t->func[3]]), "main");
	T_EQ_STR(pv_str(p, p->funcs.name[t->func[4]]), "foo");
	pv_top_free(t);
	pv_profile_free(p);
}

T_TEST(view_rejects_bad_metric_and_thread)
{
	struct pv_profile *p = load_example();
	if (!p)
		return;
	struct pv_calltree *t = NULL;
	struct pv_error err;
	struct pv_view_opts o = {.metric = 5};
	T_EQ_INT(pv_calltree_build(p, &o, &t, &err), PV_EINVAL);
	pv_thread_ix th = 9;
	struct pv_view_opts o2 = {.metric = PV_NONE, .threads = &th, .nr_threads = 1};
	T_EQ_INT(pv_calltree_build(p, &o2, &t, &err), PV_EINVAL);
	T_TRUE(t == NULL);
	pv_profile_free(p);
}

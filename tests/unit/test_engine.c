/*
 * The views of doc/views.md on its worked example, every number by hand; and the invariants of
 * doc/views.md on every corpus file (top-down selves sum to the root, bottom-up totals are callers
 * plus the stacks ending at the row, centered roots equal the function's total).
 */
#include <stdlib.h>

#include "model/builder.h"
#include "pv/format.h"
#include "pv/import.h"
#include "pv/query.h"
#include "pv/view.h"
#include "t.h"
#include "tp.h"

static struct pv_profile *example(void)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	if (pv_import_file(t_data("collapsed/worked-example.txt"), NULL, &p, &err))
		t_fail(__FILE__, __LINE__, "import: %s", err.msg);
	return p;
}

/*
 * Renders a tree as "name total/self" lines indented by depth, so expected trees are written as
 * in doc/views.md.
 */
static void render(const struct pv_view *v, const struct pv_tree *t, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	uint32_t stack[256], iter[256], sp = 0;
	for (uint32_t ri = 0; ri < t->nr_roots; ri++) {
		stack[0] = t->roots[ri];
		iter[0] = 0;
		sp = 1;
		uint32_t r = stack[0];
		char nb[128];
		used += (size_t)snprintf(
		    buf + used, len - used, "%s %lld/%lld\n",
		    pv_view_row_name(v, t->kind[r], t->id[r], nb, sizeof(nb), t->line[r]),
		    (long long)t->total[0][r], (long long)t->self[0][r]);
		while (sp && used < len) {
			r = stack[sp - 1];
			if (iter[sp - 1] == t->child_len[r]) {
				sp--;
				continue;
			}
			uint32_t c = t->children[t->child_first[r] + iter[sp - 1]++];
			used += (size_t)snprintf(
			    buf + used, len - used, "%*s%s %lld/%lld\n", 2 * (int)sp, "",
			    pv_view_row_name(v, t->kind[c], t->id[c], nb, sizeof(nb), t->line[c]),
			    (long long)t->total[0][c], (long long)t->self[0][c]);
			stack[sp] = c;
			iter[sp] = 0;
			sp++;
		}
	}
}

/* Computes view kind with flags given as "name=value" pairs, returns the rendered tree. */
static char *run(struct pv_profile *p, enum pv_view_kind kind, const char *const *opts, int callers)
{
	struct pv_query q;
	pv_query_init(&q);
	q.view = kind;
	struct pv_error err;
	for (int i = 0; opts && opts[i]; i += 2)
		if (pv_query_set_option(&q, opts[i], opts[i + 1], &err))
			t_fail(__FILE__, __LINE__, "option %s: %s", opts[i], err.msg);
	struct pv_view *v;
	char *out = calloc(1, 8192);
	if (pv_view_compute(p, &q, &v, &err)) {
		snprintf(out, 8192, "error: %s", err.msg);
	} else {
		render(v, callers ? v->callers : v->tree, out, 8192);
		pv_view_free(v);
	}
	pv_query_release(&q);
	return out;
}

#define EXPECT_VIEW(kind, opts, callers, want)            \
	do {                                              \
		char *got_ = run(p, kind, opts, callers); \
		T_EQ_STR(got_, want);                     \
		free(got_);                               \
	} while (0)

T_TEST(engine_worked_example_top_down)
{
	struct pv_profile *p = example();
	if (!p)
		return;
	EXPECT_VIEW(PV_VIEW_TREE, NULL, 0,
		    "main 26/1\n"
		    "  real_main 15/0\n"
		    "    foo 11/1\n"
		    "      bar 10/10\n"
		    "    malloc 4/4\n"
		    "  foo 7/0\n"
		    "    baz 5/5\n"
		    "    bar 2/0\n"
		    "      foo 2/0\n"
		    "        baz 2/2\n"
		    "  qux 3/0\n"
		    "    malloc 3/3\n");
	static const char *const foo[] = {"center", "foo", NULL};
	EXPECT_VIEW(PV_VIEW_TREE, foo, 0,
		    "foo 18/1\n"
		    "  bar 12/10\n"
		    "    foo 2/0\n"
		    "      baz 2/2\n"
		    "  baz 5/5\n");
	static const char *const barbaz[] = {"center", "bar", "center", "baz", NULL};
	EXPECT_VIEW(PV_VIEW_TREE, barbaz, 0,
		    "<multiple contexts> 17/15\n"
		    "  foo 2/0\n"
		    "    baz 2/2\n");
	pv_profile_free(p);
}

T_TEST(engine_worked_example_bottom_up)
{
	struct pv_profile *p = example();
	if (!p)
		return;
	static const char *const foo[] = {"center", "foo", NULL};
	EXPECT_VIEW(PV_VIEW_CALLERS, foo, 0,
		    "foo 18/1\n"
		    "  real_main 11/1\n"
		    "    main 11/1\n"
		    "  main 7/0\n");
	static const char *const barbaz[] = {"center", "bar", "center", "baz", NULL};
	EXPECT_VIEW(PV_VIEW_CALLERS, barbaz, 0,
		    "<multiple contexts> 17/15\n"
		    "  foo 17/15\n"
		    "    real_main 10/10\n"
		    "      main 10/10\n"
		    "    main 7/5\n");
	/* butterfly: the same two trees */
	EXPECT_VIEW(PV_VIEW_BUTTERFLY, foo, 1,
		    "foo 18/1\n"
		    "  real_main 11/1\n"
		    "    main 11/1\n"
		    "  main 7/0\n");
	EXPECT_VIEW(PV_VIEW_BUTTERFLY, foo, 0,
		    "foo 18/1\n"
		    "  bar 12/10\n"
		    "    foo 2/0\n"
		    "      baz 2/2\n"
		    "  baz 5/5\n");
	/* the classic inverted tree: roots are functions with self cost, all of it self */
	EXPECT_VIEW(PV_VIEW_CALLERS, NULL, 0,
		    "bar 10/10\n"
		    "  foo 10/10\n"
		    "    real_main 10/10\n"
		    "      main 10/10\n"
		    "baz 7/7\n"
		    "  foo 7/7\n"
		    "    main 5/5\n"
		    "    bar 2/2\n"
		    "      foo 2/2\n"
		    "        main 2/2\n"
		    "malloc 7/7\n"
		    "  real_main 4/4\n"
		    "    main 4/4\n"
		    "  qux 3/3\n"
		    "    main 3/3\n"
		    "foo 1/1\n"
		    "  real_main 1/1\n"
		    "    main 1/1\n"
		    "main 1/1\n");
	pv_profile_free(p);
}

T_TEST(engine_worked_example_filters)
{
	struct pv_profile *p = example();
	if (!p)
		return;
	/* center malloc, include real_main: malloc 4/4; drop real_main: malloc 3/3 */
	static const char *const inc[] = {"center", "malloc", "include", "real_main", NULL};
	EXPECT_VIEW(PV_VIEW_TREE, inc, 0, "malloc 4/4\n");
	static const char *const drop[] = {"center", "malloc", "drop", "real_main", NULL};
	EXPECT_VIEW(PV_VIEW_TREE, drop, 0, "malloc 3/3\n");
	/* merge foo: main;real_main;bar 10, main;baz 5, main;bar;baz 2, main;real_main 1 */
	static const char *const merge[] = {"merge", "foo", NULL};
	EXPECT_VIEW(PV_VIEW_TREE, merge, 0,
		    "main 26/1\n"
		    "  real_main 15/1\n"
		    "    bar 10/10\n"
		    "    malloc 4/4\n"
		    "  baz 5/5\n"
		    "  qux 3/0\n"
		    "    malloc 3/3\n"
		    "  bar 2/0\n"
		    "    baz 2/2\n");
	/* collapse recursion of foo: main;foo;bar;foo;baz becomes main;foo;baz */
	static const char *const rec[] = {"collapse-recursion", "foo", NULL};
	EXPECT_VIEW(PV_VIEW_TREE, rec, 0,
		    "main 26/1\n"
		    "  real_main 15/0\n"
		    "    foo 11/1\n"
		    "      bar 10/10\n"
		    "    malloc 4/4\n"
		    "  foo 7/0\n"
		    "    baz 7/7\n"
		    "  qux 3/0\n"
		    "    malloc 3/3\n");
	/* filters compose in order: merge real_main, then center foo */
	static const char *const both[] = {"merge", "real_main", "center", "foo", NULL};
	EXPECT_VIEW(PV_VIEW_CALLERS, both, 0, "foo 18/1\n  main 18/1\n");
	/* path center: main;foo (not the foo under real_main) */
	static const char *const path[] = {"center", "path:main;foo", NULL};
	EXPECT_VIEW(PV_VIEW_TREE, path, 0,
		    "foo 7/0\n"
		    "  baz 5/5\n"
		    "  bar 2/0\n"
		    "    foo 2/0\n"
		    "      baz 2/2\n");
	static const char *const nosuch[] = {"center", "nosuch", NULL};
	EXPECT_VIEW(PV_VIEW_TREE, nosuch, 0,
		    "error: center 'nosuch' matches no function of the profile");
	static const char *const re[] = {"center", "re:^(bar|baz)$", NULL};
	EXPECT_VIEW(PV_VIEW_TREE, re, 0,
		    "re:^(bar|baz)$ 17/15\n"
		    "  foo 2/0\n"
		    "    baz 2/2\n");
	pv_profile_free(p);
}

/*
 * --focus-self as the Firefox Profiler's focus-self (transforms.ts focusSelf, implementation
 * "combined"): a sample whose own frame is in the scope keeps that frame alone, a root; the
 * others go. The samples of its test (src/test/store/transforms.test.ts): A;X, A;B;X, A;B;X;Y
 * give "X (total: 2, self: 2)"; A;X;Y;X three times, the innermost X: "X (total: 3, self: 3)".
 */
T_TEST(engine_focus_self_as_firefox)
{
	static const char tree[] = "A;X 1\nA;B;X 1\nA;B;X;Y 1\n", rec[] = "A;X;Y;X 3\n";
	static const char *const x[] = {"focus-self", "X", NULL};
	struct pv_profile *p = t_load_text("focus-self.txt", tree, NULL);
	if (p) {
		EXPECT_VIEW(PV_VIEW_TREE, x, 0, "X 2/2\n");
		EXPECT_VIEW(PV_VIEW_CALLERS, x, 0, "X 2/2\n");
		pv_profile_free(p);
	}
	p = t_load_text("focus-self-recursion.txt", rec, NULL);
	if (p) {
		EXPECT_VIEW(PV_VIEW_TREE, x, 0, "X 3/3\n");
		pv_profile_free(p);
	}
	/* the worked example: bar's 10 samples without their callers; a set, each its own root */
	p = example();
	if (p) {
		static const char *const bar[] = {"focus-self", "bar", NULL};
		EXPECT_VIEW(PV_VIEW_TREE, bar, 0, "bar 10/10\n");
		static const char *const set[] = {"focus-self", "re:^(bar|baz)$", NULL};
		EXPECT_VIEW(PV_VIEW_TREE, set, 0, "bar 10/10\nbaz 7/7\n");
		static const char *const then[] = {"focus-self", "baz", "center", "baz", NULL};
		EXPECT_VIEW(PV_VIEW_CALLERS, then, 0, "baz 7/7\n");
		pv_profile_free(p);
	}
}

T_TEST(engine_worked_example_flat)
{
	struct pv_profile *p = example();
	if (!p)
		return;
	struct pv_query q;
	pv_query_init(&q);
	q.view = PV_VIEW_TOP;
	q.sort = PV_SORT_TOTAL;
	struct pv_view *v;
	struct pv_error err;
	T_EQ_INT(pv_view_compute(p, &q, &v, &err), 0);
	/* main 26/1, foo 18/1, real_main 15/0, bar 12/10, baz 7/7, malloc 7/7, qux 3/0 */
	static const char *const names[] = {"main", "foo",    "real_main", "bar",
					    "baz",  "malloc", "qux"};
	static const int64_t tot[] = {26, 18, 15, 12, 7, 7, 3}, slf[] = {1, 1, 0, 10, 7, 7, 0};
	T_EQ_INT(v->flat->len, 7);
	for (uint32_t r = 0; r < v->flat->len && r < 7; r++) {
		char b[64];
		T_EQ_STR(pv_view_row_name(v, v->flat->kind[r], v->flat->id[r], b, sizeof(b), 0),
			 names[r]);
		T_EQ_INT(v->flat->total[0][r], tot[r]);
		T_EQ_INT(v->flat->self[0][r], slf[r]);
	}
	pv_view_free(v);
	/* the flat view: one unknown module > one unknown file > the functions, in that nesting */
	q.view = PV_VIEW_FLAT;
	T_EQ_INT(pv_view_compute(p, &q, &v, &err), 0);
	T_EQ_INT(v->flat->len, 9);
	T_EQ_INT(v->flat->level[0], 0);
	T_EQ_INT(v->flat->total[0][0], 26);
	T_EQ_INT(v->flat->self[0][0], 26);
	T_EQ_INT(v->flat->level[1], 1);
	T_EQ_INT(v->flat->level[2], 2);
	char b[64];
	T_EQ_STR(pv_view_row_name(v, v->flat->kind[2], v->flat->id[2], b, sizeof(b), 0), "main");
	T_EQ_INT(v->flat->total[0][3], 18);
	pv_view_free(v);
	/* --sort self: each level by self, then total, then name (the functions of the file) */
	q.sort = PV_SORT_SELF;
	T_EQ_INT(pv_view_compute(p, &q, &v, &err), 0);
	static const char *const by_self[] = {"bar", "baz",	  "malloc", "main",
					      "foo", "real_main", "qux"};
	T_EQ_INT(v->flat->len, 9);
	for (uint32_t r = 2; r < v->flat->len && r < 9; r++)
		T_EQ_STR(pv_view_row_name(v, v->flat->kind[r], v->flat->id[r], b, sizeof(b), 0),
			 by_self[r - 2]);
	pv_view_free(v);
	pv_query_release(&q);
	pv_profile_free(p);
}

/* ---- doc/views.md's invariants on real profiles ---- */

static const char *const invariant_files[] = {
    "firefox/generated-processed-v70-calltree.json",
    "firefox/generated-processed-v70-from-gecko.json",
    "firefox/argument-values.json",
    "firefox/unsymbolicated.json",
    "firefox/sourcemap-two.json",
    "firefox/generated-gecko-v36.json",
    "firefox/gecko-2.json",
    "firefox/flamegraph.txt",
    "speedscope/stackcollapse/recursion.txt",
    "speedscope/stackcollapse/perf-vertx-stacks-01-collapsed-all.txt",
    "flamegraph/test/results/perf-iperf-stacks-pidtid-01-collapsed-tid.txt",
    "flamegraph/test/results/perf-java-stacks-01-collapsed-all.txt",
};

static struct pv_view *compute(const struct pv_profile *p, enum pv_view_kind kind,
			       const char *center, const char *path)
{
	struct pv_query q;
	pv_query_init(&q);
	q.view = kind;
	if (center)
		pv_query_add_center(&q, center);
	struct pv_view *v = NULL;
	struct pv_error err;
	if (pv_view_compute(p, &q, &v, &err))
		t_fail(__FILE__, __LINE__, "%s: %s view centered on '%s': %s", path,
		       pv_view_name(kind), center ? center : "", err.msg);
	pv_query_release(&q);
	return v;
}

/* top-down: total = self + children's totals, and the selves sum to the roots' totals */
static void check_top_down(const char *path, const struct pv_tree *t, int64_t whole)
{
	int64_t selfsum = 0, rootsum = 0;
	for (uint32_t r = 0; r < t->len; r++) {
		selfsum += t->self[0][r];
		int64_t c = t->self[0][r];
		for (uint32_t i = 0; i < t->child_len[r]; i++)
			c += t->total[0][t->children[t->child_first[r] + i]];
		if (c != t->total[0][r])
			t_fail(__FILE__, __LINE__,
			       "%s: top-down row %u: total %lld != self + children %lld", path, r,
			       (long long)t->total[0][r], (long long)c);
		if (t->total[0][r] > whole)
			t_fail(__FILE__, __LINE__, "%s: row %u above 100%%", path, r);
	}
	for (uint32_t i = 0; i < t->nr_roots; i++)
		rootsum += t->total[0][t->roots[i]];
	if (selfsum != rootsum)
		t_fail(__FILE__, __LINE__, "%s: selves %lld != root totals %lld", path,
		       (long long)selfsum, (long long)rootsum);
}

/*
 * bottom-up: a row's total = its callers' totals + the cost of the stacks whose call chain ends
 * at the row; that last part is total minus children, which must not be negative, and the self
 * of a row never exceeds its total.
 */
static void check_bottom_up(const char *path, const struct pv_tree *t)
{
	for (uint32_t r = 0; r < t->len; r++) {
		int64_t c = 0;
		for (uint32_t i = 0; i < t->child_len[r]; i++)
			c += t->total[0][t->children[t->child_first[r] + i]];
		if (c > t->total[0][r] || t->self[0][r] > t->total[0][r])
			t_fail(__FILE__, __LINE__,
			       "%s: bottom-up row %u: total %lld < callers %lld", path, r,
			       (long long)t->total[0][r], (long long)c);
	}
}

T_TEST(engine_invariants_on_the_corpus)
{
	for (size_t i = 0; i < sizeof(invariant_files) / sizeof(invariant_files[0]); i++) {
		const char *path = invariant_files[i];
		struct pv_profile *p = NULL;
		struct pv_error err;
		if (pv_import_file(t_corpus(path), NULL, &p, &err)) {
			t_fail(__FILE__, __LINE__, "%s: %s", path, err.msg);
			continue;
		}
		struct pv_view *top = compute(p, PV_VIEW_TOP, NULL, path);
		struct pv_view *tree = compute(p, PV_VIEW_TREE, NULL, path);
		struct pv_view *inv = compute(p, PV_VIEW_CALLERS, NULL, path);
		if (!top || !tree || !inv)
			goto next;
		check_top_down(path, tree->tree, tree->whole[0]);
		check_bottom_up(path, inv->tree);
		/* the inverted tree's roots hold every sample once: their totals sum to the whole
		 */
		int64_t roots = 0;
		for (uint32_t k = 0; k < inv->tree->nr_roots; k++)
			roots += inv->tree->total[0][inv->tree->roots[k]];
		T_EQ_INT(roots, inv->whole[0]);
		/* for every function F: tree --center F and callers --center F have F's total */
		for (uint32_t r = 0; r < top->flat->len; r++) {
			if (top->flat->kind[r] != PV_ROW_FUNCTION) /* (no stack) */
				continue;
			const char *name = p->strings.ptr[p->funcs.name[top->flat->id[r]]];
			/* functions sharing a name (two modules) are one center: sum their totals
			 */
			int64_t want = 0;
			for (uint32_t k = 0; k < top->flat->len; k++)
				if (top->flat->kind[k] == PV_ROW_FUNCTION &&
				    strcmp(p->strings.ptr[p->funcs.name[top->flat->id[k]]], name) ==
					0)
					want += top->flat->total[0][k];
			bool shared = want != top->flat->total[0][r];
			struct pv_view *c = compute(p, PV_VIEW_TREE, name, path);
			struct pv_view *b = compute(p, PV_VIEW_CALLERS, name, path);
			if (c && b && c->tree->nr_roots == 1 && b->tree->nr_roots == 1) {
				int64_t ct = c->tree->total[0][c->tree->roots[0]];
				int64_t bt = b->tree->total[0][b->tree->roots[0]];
				if ((!shared && ct != want) || ct != bt || ct != c->center[0])
					t_fail(__FILE__, __LINE__,
					       "%s: center '%s': top %lld, tree %lld, callers %lld",
					       path, name, (long long)want, (long long)ct,
					       (long long)bt);
				check_top_down(path, c->tree, c->whole[0]);
				check_bottom_up(path, b->tree);
			} else if (c && b) {
				t_fail(__FILE__, __LINE__, "%s: center '%s': %u and %u roots", path,
				       name, c->tree->nr_roots, b->tree->nr_roots);
			}
			pv_view_free(c);
			pv_view_free(b);
		}
	next:
		pv_view_free(top);
		pv_view_free(tree);
		pv_view_free(inv);
		pv_profile_free(p);
	}
}

/* recursion A>B>C>B>B>D: no total above 100 % of the whole, in any view */
T_TEST(engine_recursion_never_above_whole)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	if (pv_import_file(t_corpus("firefox/generated-processed-v70-calltree.json"), NULL, &p,
			   &err)) {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
		return;
	}
	struct pv_view *v = compute(p, PV_VIEW_TOP, NULL, "calltree");
	if (v) {
		for (uint32_t r = 0; r < v->flat->len; r++)
			T_TRUE(v->flat->total[0][r] <= v->whole[0]);
		/* B is on every stack: 5 of 5, counted once although A>B>C>B>B>D has it three times
		 */
		for (uint32_t r = 0; r < v->flat->len; r++)
			if (strcmp(p->strings.ptr[p->funcs.name[v->flat->id[r]]], "B") == 0)
				T_EQ_INT(v->flat->total[0][r], 5);
		pv_view_free(v);
	}
	v = compute(p, PV_VIEW_TREE, "B", "calltree");
	if (v) {
		T_EQ_INT(v->center[0], 5);
		T_EQ_INT(v->tree->total[0][v->tree->roots[0]], 5);
		pv_view_free(v);
	}
	pv_profile_free(p);
}

/* ---- the stack mask (pv_view_compute_keep): which samples count in a view ---- */

/* The cost of the samples whose stack the mask keeps (all threads, the default metric). */
static int64_t kept_cost(const struct pv_profile *p, const uint8_t *keep)
{
	int64_t sum = 0;
	for (uint32_t s = 0; s < p->samples.len; s++)
		if (p->samples.stack[s] != PV_NONE && keep[p->samples.stack[s]])
			sum += pv_sample_weight(p, p->meta.default_metric, s);
	return sum;
}

static int64_t keep_of(const struct pv_profile *p, const char *const *opts, int64_t *view_total)
{
	struct pv_query q;
	struct pv_error err = {0};
	pv_query_init(&q);
	for (const char *const *o = opts; *o; o += 2)
		T_EQ_INT(pv_query_set_option(&q, o[0], o[1], &err), 0);
	struct pv_view *v = NULL;
	uint8_t *keep = NULL, *samples = NULL;
	int64_t sum = -1;
	T_EQ_INT(pv_view_compute_keep(p, &q, &v, &keep, &samples, &err), 0);
	if (v && keep && samples) {
		*view_total = v->centered ? v->center[0] : v->whole[0];
		/* the sample mask is the stack mask within the per-sample selections (threads,
		 * range): never more */
		sum = 0;
		for (uint32_t s = 0; s < p->samples.len; s++)
			if (samples[s] && p->samples.stack[s] != PV_NONE)
				sum += pv_sample_weight(p, p->meta.default_metric, s);
		T_TRUE(kept_cost(p, keep) >= sum);
		if (!q.has_range && !q.nr_threads)
			T_EQ_INT(kept_cost(p, keep), sum);
	}
	pv_free_keep(keep);
	pv_free_keep(samples);
	pv_view_free(v);
	pv_query_release(&q);
	return sum;
}

T_TEST(engine_keep_mask_worked_example)
{
	struct pv_profile *p = example();
	if (!p)
		return;
	/* by hand from the seven lines of worked-example.txt (26 samples in all) */
	static const struct {
		const char *opts[7];
		int64_t kept;
	} cases[] = {
	    {{NULL}, 26},
	    {{"center", "foo", NULL}, 18},		  /* lines 1, 2, 3, 5 */
	    {{"drop", "bar", "center", "foo", NULL}, 6},  /* lines 2, 5 */
	    {{"merge", "foo", "center", "baz", NULL}, 7}, /* lines 2, 3 */
	    {{"include", "malloc", NULL}, 7},		  /* lines 4, 6 */
	    {{"merge", "main", NULL}, 25},		  /* "main 1" loses its only frame */
	    {{"collapse-recursion", "foo", "center", "baz", NULL}, 7},
	    {{"range", "0:1", NULL}, 0}, /* collapsed stacks have no time: no sample in a range */
	    {{"thread", "#0", "center", "malloc", NULL}, 7},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t total = -1;
		T_EQ_INT(keep_of(p, cases[i].opts, &total), cases[i].kept);
		T_EQ_INT(total, cases[i].kept); /* the view counts exactly the kept samples */
	}
	pv_profile_free(p);
}

T_TEST(engine_keep_mask_on_the_corpus)
{
	/* for the heaviest function of each file as the center, and a drop of it: the mask's
	 * samples cost what the view says */
	for (size_t f = 0; f < sizeof(invariant_files) / sizeof(invariant_files[0]); f++) {
		struct pv_profile *p = NULL;
		struct pv_error err;
		if (pv_import_file(t_corpus(invariant_files[f]), NULL, &p, &err)) {
			t_fail(__FILE__, __LINE__, "%s: %s", invariant_files[f], err.msg);
			continue;
		}
		struct pv_view *top = compute(p, PV_VIEW_TOP, NULL, invariant_files[f]);
		if (top && top->flat->len) {
			char name[512];
			snprintf(name, sizeof(name), "%s",
				 pv_str(p, p->funcs.name[top->flat->id[0]]));
			const char *c1[] = {"center", name, NULL};
			const char *c2[] = {"drop", name, NULL};
			const char *c3[] = {"merge", name, "center", "re:.", NULL};
			const char *const *qs[] = {c1, c2, c3};
			for (size_t k = 0; k < 3; k++) {
				int64_t total = -1;
				int64_t kept = keep_of(p, qs[k], &total);
				if (kept != total)
					t_fail(__FILE__, __LINE__,
					       "%s, query %zu on '%s': kept %lld != view %lld",
					       invariant_files[f], k, name, (long long)kept,
					       (long long)total);
			}
		}
		pv_view_free(top);
		pv_profile_free(p);
	}
}

/* ---- scopes that name one of several functions of one name (doc/functions.md) ---- */

static int64_t center_total(const struct pv_profile *p, const char *scope, int *rc)
{
	struct pv_query q;
	pv_query_init(&q);
	pv_query_add_center(&q, scope);
	struct pv_view *v = NULL;
	struct pv_error err;
	*rc = pv_view_compute(p, &q, &v, &err);
	int64_t t = v ? v->center[0] : -1;
	pv_view_free(v);
	pv_query_release(&q);
	return t;
}

T_TEST(engine_scopes_name_one_function)
{
	struct pv_builder b;
	T_EQ_INT(builder_init(&b), 0);
	static const struct {
		const char *name, *src;
		uint32_t line, col, samples;
	} fns[] = {
	    {"(anonymous)", "https://unpkg.com/@babel/x.min.js", 1, 10, 1},
	    {"(anonymous)", "https://unpkg.com/@babel/x.min.js", 1, 50, 2},
	    {"(anonymous)", "/app/b.js", 1, 10, 4},
	    {"a@b", "/p/@c/y.js", 3, 0, 8},
	    {"a@b:1", NULL, 0, 0, 16},
	};
	builder_metric(&b, builder_cstr(&b, "samples"), PV_UNIT_COUNT);
	pv_thread_ix t = builder_thread(&b, builder_cstr(&b, "main"), 1, 1, 0);
	pv_func_ix f[5];
	for (int i = 0; i < 5; i++) {
		pv_source_ix s =
		    fns[i].src ? builder_source(&b, builder_cstr(&b, fns[i].src)) : PV_NONE;
		f[i] = builder_func_at(&b, builder_cstr(&b, fns[i].name), PV_NONE, s, fns[i].line,
				       fns[i].col);
		pv_stack_ix st = builder_stack(&b, PV_NONE, builder_func_frame(&b, f[i]));
		for (uint32_t k = 0; k < fns[i].samples; k++)
			builder_sample(&b, t, st, k, NULL);
	}
	struct pv_profile *p = NULL;
	T_EQ_INT(builder_finish(&b, &p), 0);
	builder_release(&b);
	if (!p)
		return;
	static const struct {
		const char *scope;
		int64_t total;
	} cases[] = {
	    {"(anonymous)", 7},
	    {"(anonymous)@x.min.js:1:50", 2},
	    {"(anonymous)@https://unpkg.com/@babel/x.min.js:1:10", 1},
	    {"(anonymous)@x.min.js:1", 3},
	    {"(anonymous)@b.js:1:10", 4},
	    {"(anonymous)@/app/b.js:1", 4},
	    {"a@b@y.js:3", 8}, /* a name with '@' */
	    {"a@b:1", 16},     /* a whole name that exists wins */
	    {"path:(anonymous)@x.min.js:1:50", 2},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;
		int64_t got = center_total(p, cases[i].scope, &rc);
		if (rc || got != cases[i].total)
			t_fail(__FILE__, __LINE__, "%s: rc %d, total %lld, expected %lld",
			       cases[i].scope, rc, (long long)got, (long long)cases[i].total);
	}
	/* not whole path components, another line or column: no function */
	static const char *const none[] = {"(anonymous)@js:1:10", "(anonymous)@x.min.js:2",
					   "(anonymous)@x.min.js:1:11", "(anonymous)@:1:10"};
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		int rc;
		center_total(p, none[i], &rc);
		T_EQ_INT(rc, PV_EINVAL);
	}
	/* the writer: qualified when the name is shared, and each scope names its function alone */
	uint8_t mark[5];
	struct pv_scope_names *sn = NULL;
	T_EQ_INT(pv_scope_names_new(p, &sn), 0);
	static const char *const want_scope[] = {
	    "(anonymous)@https://unpkg.com/@babel/x.min.js:1:10",
	    "(anonymous)@https://unpkg.com/@babel/x.min.js:1:50", "(anonymous)@/app/b.js:1:10",
	    "a@b", "a@b:1"};
	for (int i = 0; sn && i < 5; i++) {
		char buf[128];
		T_EQ_U64(pv_func_scope(sn, f[i], buf, sizeof(buf)), strlen(want_scope[i]));
		T_EQ_STR(buf, want_scope[i]);
		memset(mark, 0, sizeof(mark));
		T_EQ_INT(pv_scope_functions(p, buf, mark), 1);
		T_EQ_INT(mark[f[i]], 1);
	}
	char small[8];
	T_EQ_U64(pv_func_scope(sn, f[0], small, sizeof(small)), strlen(want_scope[0]));
	T_EQ_STR(small, "(anonym");
	pv_scope_names_free(sn);
	memset(mark, 0, sizeof(mark));
	T_EQ_INT(pv_scope_functions(p, "path:a@b;(anonymous)@b.js:1:10", mark), 1);
	T_EQ_INT(mark[f[2]], 1);
	T_EQ_INT(pv_scope_functions(p, "re:.*", mark), 0);
	T_EQ_INT(pv_scope_functions(p, "file:b.js", mark), 0);
	pv_profile_free(p);
}

/* A re: scope has a budget: its text, its size once repetitions are expanded, no
 * back-references (glibc matches them by backtracking); within it, a pattern just works. */
T_TEST(engine_regex_budget)
{
	struct pv_profile *p = example();
	if (!p)
		return;
	char big[1100];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	memcpy(big, "re:", 3);
	const struct {
		const char *scope, *error;
	} cases[] = {
	    {"re:a\\1", "center 're:a\\1': back-references (\\1 ... \\9) are not allowed in a "
			"regular expression: matching them can take exponential time"},
	    {"re:(a{1,1000}){1,1000}", "center 're:(a{1,1000}){1,1000}': regular expression too "
				       "large once its repetitions are expanded (over 80000 "
				       "states, at most 20000)"},
	    {"re:((((a{10}){10}){10}){10}){3}", "regular expression too large once its "
						"repetitions are expanded (30000 states, at "
						"most 20000)"},
	    {big, "regular expression of 1096 bytes (at most 1024)"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pv_query q;
		pv_query_init(&q);
		pv_query_add_center(&q, cases[i].scope);
		struct pv_view *v = NULL;
		struct pv_error err;
		T_EQ_INT(pv_view_compute(p, &q, &v, &err), PV_EINVAL);
		T_CONTAINS(err.msg, cases[i].error);
		pv_query_release(&q);
	}
	/* within the budget: real_main and main, a bracket, an alternation, a bound */
	struct pv_query q;
	pv_query_init(&q);
	q.view = PV_VIEW_TOP;
	pv_query_add_center(&q, "re:^(real_)?m[a]{1,2}in$");
	struct pv_view *v = NULL;
	struct pv_error err;
	T_EQ_INT(pv_view_compute(p, &q, &v, &err), 0);
	T_EQ_INT(v ? v->center[0] : 0, 26);
	pv_view_free(v);
	pv_query_release(&q);
	pv_profile_free(p);
}

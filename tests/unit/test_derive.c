/*
 * Derived metrics (--derive, a profile's own formulas): hpcviewer's formula syntax and its values
 * row by row, on a profile built by hand so that every expected value is computed here.
 */
#include <math.h>
#include <string.h>

#include "model/builder.h"
#include "pv/query.h"
#include "pv/view.h"
#include "t.h"

/*
 * main (self: cycles 50, instr 25) > a (cycles 100, instr 250)
 *                                  > b (cycles 0, instr 10)
 * and a formula of the profile's own: ipc = $instr / $cycles.
 */
static struct pv_profile *ipc_profile(void)
{
	struct pv_builder b;
	if (builder_init(&b))
		return NULL;
	builder_metric(&b, builder_cstr(&b, "cycles"), PV_UNIT_COUNT);
	builder_metric(&b, builder_cstr(&b, "instr"), PV_UNIT_COUNT);
	T_EQ_INT(builder_formula(&b, builder_cstr(&b, "ipc"), builder_cstr(&b, "$instr / $cycles"),
				 0, 0),
		 0);
	/* a formula of the selves alone (no totals), and one whose selves have their own */
	T_EQ_INT(
	    builder_formula(&b, builder_cstr(&b, "cyc2"), 0, builder_cstr(&b, "$cycles * 2"), 0),
	    0);
	T_EQ_INT(builder_formula(&b, builder_cstr(&b, "both"), builder_cstr(&b, "$instr"),
				 builder_cstr(&b, "$cycles + 1"), 0),
		 0);
	pv_thread_ix t = builder_thread(&b, builder_cstr(&b, "main"), 1, 1, 0);
	pv_stack_ix s_main =
	    builder_stack(&b, PV_NONE,
			  builder_func_frame(
			      &b, builder_func(&b, builder_cstr(&b, "main"), PV_NONE, PV_NONE, 0)));
	pv_stack_ix s_a = builder_stack(
	    &b, s_main,
	    builder_func_frame(&b, builder_func(&b, builder_cstr(&b, "a"), PV_NONE, PV_NONE, 0)));
	pv_stack_ix s_b = builder_stack(
	    &b, s_main,
	    builder_func_frame(&b, builder_func(&b, builder_cstr(&b, "b"), PV_NONE, PV_NONE, 0)));
	int64_t w_main[2] = {50, 25}, w_a[2] = {100, 250}, w_b[2] = {0, 10};
	builder_sample(&b, t, s_main, 0, w_main);
	builder_sample(&b, t, s_a, 1, w_a);
	builder_sample(&b, t, s_b, 2, w_b);
	struct pv_profile *p = NULL;
	T_EQ_INT(builder_finish(&b, &p), 0);
	builder_release(&b);
	struct pv_error err;
	if (p)
		T_EQ_INT(pv_profile_validate(p, &err), 0);
	return p;
}

/* The view of a query given as options (name, value, ...); NULL with err on a failure. */
static struct pv_view *view_of(const struct pv_profile *p, const char *const *opts, int n,
			       struct pv_error *err)
{
	struct pv_query q;
	struct pv_view *v = NULL;
	pv_query_init(&q);
	int rc = 0;
	for (int i = 0; i + 1 < n && !rc; i += 2)
		rc = pv_query_set_option(&q, opts[i], opts[i + 1], err);
	if (!rc)
		rc = pv_view_compute(p, &q, &v, err);
	pv_query_release(&q);
	return rc ? NULL : v;
}

/* The tree row named name, PV_NONE when none is. */
static uint32_t row_named(const struct pv_view *v, const char *name)
{
	char b[64];
	for (uint32_t r = 0; r < v->tree->len; r++)
		if (strcmp(pv_view_row_name(v, v->tree->kind[r], v->tree->id[r], b, sizeof(b),
					    v->tree->line[r]),
			   name) == 0)
			return r;
	return PV_NONE;
}

#define T_NEAR(a, b) T_TRUE(fabs((a) - (b)) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1))

/* The operators and functions of hpcviewer's syntax, on constants (the view's whole). */
T_TEST(derive_syntax_values)
{
	struct pv_profile *p = ipc_profile();
	if (!p)
		return;
	static const struct {
		const char *def;
		double want;
	} cases[] = {
	    {"x=-2^2", -4},	/* '^' binds tighter than unary minus */
	    {"x=2^3^2", 512},	/* and to the right */
	    {"x=1+2*3-8/4", 5}, /* * / before + - */
	    {"x=(1+2)*3", 9},
	    {"x=log(8, 2) + log(100)", 5},    /* log(x, base), log10 */
	    {"x=avg(1,2,3) * stdev(2,4)", 2}, /* population stdev of 2, 4: 1 */
	    {"x=SUM(1, 2, 3.5) + max(1, 7, 3) - min(4, -2)", 15.5}, /* case-blind names */
	    {"x=round(2.5) + floor(-1.5) + ceil(1.2) + abs(-3) + sign(-7)", 3 - 2 + 2 + 3 - 1},
	    {"x=pow(2, 10) + mod(7, 3) + fact(5) + combin(5, 2)", 1024 + 1 + 120 + 10},
	    {"x=sqrt(16) + exp(0) + ln(e()) + lg(8)", 4 + 1 + 1 + 3},
	    {"x=1.5e3 + .5", 1500.5},
	    {"x=@cycles + @1", 150 + 285}, /* by name and by number: the whole's values */
	    {"x=${cycles} * 2", 300},
	    {"x=$ipc * 10", 19}, /* the profile's formula: 285 / 150 */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pv_error err;
		const char *opts[] = {"derive", cases[i].def, "metric", "x"};
		struct pv_view *v = view_of(p, opts, 4, &err);
		if (!v) {
			t_fail(__FILE__, __LINE__, "%s: %s", cases[i].def, err.msg);
			continue;
		}
		T_TRUE(pv_view_metric_derived(v, 0));
		double got = pv_view_value(v, 0, v->whole[0]);
		if (fabs(got - cases[i].want) > 1e-9 * (fabs(cases[i].want) + 1))
			t_fail(__FILE__, __LINE__, "%s: %.17g, expected %.17g", cases[i].def, got,
			       cases[i].want);
		pv_view_free(v);
	}
	pv_profile_free(p);
}

/*
 * Row by row: a derived value of a row's total comes from the inputs' totals, its self from their
 * selves; a division by zero has no value (PV_VALUE_NONE: empty in text, null in JSON); a derived
 * first column orders the rows.
 */
T_TEST(derive_rows)
{
	struct pv_profile *p = ipc_profile();
	if (!p)
		return;
	struct pv_error err;
	const char *opts[] = {"metric", "ipc,cycles",	 "derive", "share=100*$cycles/@cycles",
			      "derive", "twice=$share*2"};
	struct pv_view *v = view_of(p, opts, 6, &err);
	if (!v) {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
		pv_profile_free(p);
		return;
	}
	T_EQ_INT(v->nr_metrics, 4); /* ipc, cycles, share, twice; instr is a hidden input */
	char b[64];
	T_EQ_STR(pv_view_metric_name(v, 0, b, sizeof(b)), "ipc");
	T_EQ_STR(pv_view_metric_formula(v, 0), "$instr / $cycles");
	T_EQ_STR(pv_view_metric_name(v, 1, b, sizeof(b)), "cycles");
	T_TRUE(!pv_view_metric_derived(v, 1));
	T_TRUE(pv_view_metric_formula(v, 1) == NULL);
	T_EQ_STR(pv_view_metric_name(v, 3, b, sizeof(b)), "twice");
	T_NEAR(pv_view_value(v, 0, v->whole[0]), 1.9); /* 285 / 150 */
	const struct pv_tree *t = v->tree;
	uint32_t m = row_named(v, "main"), a = row_named(v, "a"), bb = row_named(v, "b");
	T_TRUE(m != PV_NONE && a != PV_NONE && bb != PV_NONE);
	if (m == PV_NONE || a == PV_NONE || bb == PV_NONE) {
		pv_view_free(v);
		pv_profile_free(p);
		return;
	}
	T_NEAR(pv_view_value(v, 0, t->total[0][m]), 1.9);
	T_NEAR(pv_view_value(v, 0, t->self[0][m]), 0.5); /* 25 / 50 */
	T_NEAR(pv_view_value(v, 0, t->total[0][a]), 2.5);
	T_EQ_INT(t->total[0][bb], PV_VALUE_NONE); /* 10 / 0 */
	T_TRUE(isnan(pv_view_value(v, 0, t->total[0][bb])));
	T_EQ_INT(t->total[1][a], 100); /* a metric's column as it is */
	T_NEAR(pv_view_value(v, 2, t->total[2][a]), 100.0 * 100 / 150);
	T_NEAR(pv_view_value(v, 3, t->total[3][a]), 200.0 * 100 / 150);
	T_NEAR(pv_view_value(v, 2, t->self[2][m]), 100.0 * 50 / 150);
	/* main's children by ipc: a (2.5), then b (none) */
	T_EQ_INT(t->child_len[m], 2);
	T_EQ_INT(t->children[t->child_first[m]], a);
	char cell[40];
	pv_view_value_text(v, 0, t->total[0][bb], false, cell, sizeof(cell));
	T_EQ_STR(cell, "");
	pv_view_value_text(v, 0, t->total[0][bb], true, cell, sizeof(cell));
	T_EQ_STR(cell, "null");
	pv_view_value_text(v, 0, t->self[0][m], false, cell, sizeof(cell));
	T_EQ_STR(cell, "0.5");
	pv_view_value_text(v, 1, t->total[1][a], true, cell, sizeof(cell));
	T_EQ_STR(cell, "100");
	pv_view_free(v);
	pv_profile_free(p);
}

/*
 * A profile's formula may give the selves a formula of their own (cyc2 = self: $cycles * 2, no
 * totals; both = $instr, self: $cycles + 1): a row's self and total each from its own, and a
 * formula that reads one of them (x = $cyc2 + 1) reads the same side of it.
 */
T_TEST(derive_self_formulas)
{
	struct pv_profile *p = ipc_profile();
	if (!p)
		return;
	struct pv_error err;
	const char *opts[] = {"metric", "cyc2,both", "derive", "x=$cyc2 + 1"};
	struct pv_view *v = view_of(p, opts, 4, &err);
	if (!v) {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
		pv_profile_free(p);
		return;
	}
	T_EQ_STR(pv_view_metric_formula(v, 0), "self: $cycles * 2");
	T_EQ_STR(pv_view_metric_formula(v, 1), "$instr; self: $cycles + 1");
	T_EQ_INT(v->whole[0], PV_VALUE_NONE);
	T_NEAR(pv_view_value(v, 1, v->whole[1]), 285.0);
	T_EQ_INT(v->whole[2], PV_VALUE_NONE);
	const struct pv_tree *t = v->tree;
	uint32_t m = row_named(v, "main"), a = row_named(v, "a");
	T_TRUE(m != PV_NONE && a != PV_NONE);
	if (m != PV_NONE && a != PV_NONE) {
		T_EQ_INT(t->total[0][m], PV_VALUE_NONE);
		T_NEAR(pv_view_value(v, 0, t->self[0][m]), 100.0);
		T_NEAR(pv_view_value(v, 0, t->self[0][a]), 200.0);
		T_NEAR(pv_view_value(v, 1, t->total[1][m]), 285.0);
		T_NEAR(pv_view_value(v, 1, t->self[1][m]), 51.0);
		T_NEAR(pv_view_value(v, 1, t->total[1][a]), 250.0);
		T_NEAR(pv_view_value(v, 1, t->self[1][a]), 101.0);
		T_EQ_INT(t->total[2][a], PV_VALUE_NONE);
		T_NEAR(pv_view_value(v, 2, t->self[2][a]), 201.0);
	}
	pv_view_free(v);
	pv_profile_free(p);
}

/* A mistake names its column in NAME=FORMULA; a metric that is none is found at view time. */
T_TEST(derive_errors)
{
	struct pv_profile *p = ipc_profile();
	if (!p)
		return;
	static const struct {
		const char *def, *msg;
		bool at_view; /* the query takes it; the view refuses it */
	} cases[] = {
	    {"x=1+", "--derive 'x=1+': column 5: expected a number", false},
	    {"x=(1", "column 5: expected ')' to close a '('", false},
	    {"x=1 2", "column 5: expected an operator", false},
	    {"x=foo(1)", "column 3: unknown function 'foo'", false},
	    {"x=sqrt(1, 2)", "column 3: sqrt() takes 1 argument", false},
	    {"x=cycles", "column 3: 'cycles' is not a function call", false},
	    {"x=$", "column 4: expected a metric number or name", false},
	    {"x=${cycles", "column 3: a metric name in ${...} has no closing '}'", false},
	    {"=1", "takes NAME=FORMULA", false},
	    {"x", "takes NAME=FORMULA", false},
	    {"x=$cycels/2", "column 3: no metric named 'cycels'", true},
	    {"x=$x+1", "the derived metric 'x' refers to itself", true},
	    {"cycles=1", "the profile has a metric named 'cycles'", true},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pv_query q;
		struct pv_error err;
		struct pv_view *v = NULL;
		pv_query_init(&q);
		int rc = pv_query_set_option(&q, "derive", cases[i].def, &err);
		if (cases[i].at_view) {
			T_EQ_INT(rc, 0);
			rc = pv_view_compute(p, &q, &v, &err);
		}
		T_EQ_INT(rc, PV_EINVAL);
		if (rc == PV_EINVAL && !strstr(err.msg, cases[i].msg))
			t_fail(__FILE__, __LINE__, "%s: '%s' lacks '%s'", cases[i].def, err.msg,
			       cases[i].msg);
		pv_view_free(v);
		pv_query_release(&q);
	}
	/* nesting deeper than the parser allows: an error, not a crash */
	char deep[400] = "x=";
	memset(deep + 2, '(', 150);
	deep[152] = 0;
	struct pv_query q;
	struct pv_error err;
	pv_query_init(&q);
	T_EQ_INT(pv_query_set_option(&q, "derive", deep, &err), PV_EINVAL);
	T_CONTAINS(err.msg, "nests too deep");
	pv_query_release(&q);
	pv_profile_free(p);
}

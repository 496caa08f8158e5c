/*
 * The unit rule (pv_cost_unit, doc/views.md "Units"): a metric whose name says its unit is shown
 * in it (HPCToolkit's "REALTIME (sec)" in seconds, as hpcviewer shows it), other times in ms, us
 * or ns by the whole; and the three forms of a number (exact, k/M/G, hpcviewer's 1.48e+09).
 * The values are hand-computed; the database ones are issue-328's (`profview info`: REALTIME
 * 1534048000 ns, GKER 2360962 ns, hpcviewer's 1.53e+00 and 2.36e-03).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/format.h"
#include "pv/import.h"
#include "pv/view.h"
#include "t.h"

static const char *text(const char *metric, enum pv_unit u, int64_t whole, int64_t v,
			enum pv_num_form f)
{
	static char b[64];
	struct pv_cost_unit cu;
	pv_cost_unit(metric, u, whole, &cu);
	pv_cost_text(&cu, v, f, b, sizeof(b));
	return b;
}

T_TEST(units_named_in_the_metric)
{
	struct pv_cost_unit cu;
	pv_cost_unit("REALTIME (sec)", PV_UNIT_NS, 1534048000, &cu);
	T_EQ_STR(cu.name, "sec");
	T_EQ_U64(cu.per, 1000000000);
	T_EQ_INT(cu.decimals, 6);
	T_TRUE(cu.named);
	T_EQ_STR(text("REALTIME (sec)", PV_UNIT_NS, 0, 1534048000, PV_NUM_EXACT), "1.534048");
	T_EQ_STR(text("GKER (sec)", PV_UNIT_NS, 0, 2360962, PV_NUM_EXACT), "0.002361");
	T_EQ_STR(text("REALTIME (sec)", PV_UNIT_NS, 0, 1534048000, PV_NUM_SCI), "1.53e+00");
	T_EQ_STR(text("GKER (sec)", PV_UNIT_NS, 0, 2360962, PV_NUM_SCI), "2.36e-03");
	/* 68,431 s of 24 threads: past what ms * 1000 holds in a double's exact digits */
	T_EQ_STR(text("REALTIME (sec)", PV_UNIT_NS, 0, 68431123456789, PV_NUM_EXACT),
		 "68431.123457");
	/* rounding carries into the whole seconds */
	T_EQ_STR(text("CPUTIME (s)", PV_UNIT_NS, 0, 999999999, PV_NUM_EXACT), "1.000000");
	T_EQ_STR(text("CPUTIME (sec)", PV_UNIT_NS, 0, -1500000, PV_NUM_EXACT), "-0.001500");
	T_EQ_STR(text("GPUOP (ms)", PV_UNIT_NS, 0, 378959000, PV_NUM_EXACT), "378.959");
	T_EQ_STR(text("x (us)", PV_UNIT_NS, 0, 1234567, PV_NUM_EXACT), "1234.567");
	/* a count or bytes named: as they are, and the header says no unit again */
	pv_cost_unit("GMEM:UNK (B)", PV_UNIT_BYTES, 0, &cu);
	T_EQ_STR(cu.name, "B");
	T_TRUE(cu.named);
	pv_cost_unit("GXCOPY:COUNT (count)", PV_UNIT_COUNT, 0, &cu);
	T_EQ_STR(cu.name, "count");
	T_TRUE(cu.named);
	T_EQ_STR(text("GXCOPY:COUNT (count)", PV_UNIT_COUNT, 0, 3, PV_NUM_EXACT), "3");
	/* a derived metric's own value ("CPUTIME (ms)" = sec * 1000): in its unit, not scaled */
	pv_cost_unit("CPUTIME (ms)", PV_UNIT_OTHER, 0, &cu);
	T_EQ_STR(cu.name, "ms");
	T_EQ_U64(cu.per, 1);
	/* no unit in the name: a C++ signature, a space inside, a word glued to the '(' */
	pv_cost_unit("f(int)", PV_UNIT_COUNT, 0, &cu);
	T_TRUE(!cu.named);
	pv_cost_unit("time (two words)", PV_UNIT_NS, 5000000, &cu);
	T_TRUE(!cu.named);
	T_EQ_STR(cu.name, "ms");
	pv_cost_unit("REALTIME (furlongs)", PV_UNIT_NS, 5000000, &cu);
	T_TRUE(!cu.named);
}

T_TEST(units_times_by_the_whole)
{
	struct pv_cost_unit cu;
	pv_cost_unit("cpu-clock", PV_UNIT_NS, 258250000, &cu);
	T_EQ_STR(cu.name, "ms");
	T_TRUE(!cu.named);
	T_EQ_STR(text("cpu-clock", PV_UNIT_NS, 258250000, 65750000, PV_NUM_EXACT), "65.750");
	T_EQ_STR(text("time", PV_UNIT_NS, 14000, 14000, PV_NUM_EXACT), "14.000");
	pv_cost_unit("time", PV_UNIT_NS, 14000, &cu);
	T_EQ_STR(cu.name, "us");
	T_EQ_STR(text("time", PV_UNIT_NS, 63, 63, PV_NUM_EXACT), "63");
	pv_cost_unit("Ir", PV_UNIT_INSTRUCTIONS, 8333155, &cu);
	T_EQ_STR(cu.name, "instructions");
	T_TRUE(!cu.named);
	/* the old rule's name for a time, kept for the callers without a metric */
	T_EQ_STR(pv_format_cost_unit(PV_UNIT_NS), "ms");
}

/* The forms of the values: 10-11 characters exact, short in k/M/G, hpcviewer's form. */
T_TEST(units_number_forms)
{
	T_EQ_STR(text("Ir", PV_UNIT_INSTRUCTIONS, 0, 978293312, PV_NUM_EXACT), "978293312");
	T_EQ_STR(text("Ir", PV_UNIT_INSTRUCTIONS, 0, 978293312, PV_NUM_SHORT), "978M");
	T_EQ_STR(text("Ir", PV_UNIT_INSTRUCTIONS, 0, 1479999999, PV_NUM_SHORT), "1.48G");
	T_EQ_STR(text("Ir", PV_UNIT_INSTRUCTIONS, 0, 1479999999, PV_NUM_SCI), "1.48e+09");
	T_EQ_STR(text("Ir", PV_UNIT_INSTRUCTIONS, 0, 192717159265, PV_NUM_SHORT), "193G");
	T_EQ_STR(text("Ir", PV_UNIT_INSTRUCTIONS, 0, 999, PV_NUM_SHORT), "999");
	T_EQ_STR(text("Ir", PV_UNIT_INSTRUCTIONS, 0, 999999, PV_NUM_SHORT), "1.00M");
	T_EQ_STR(text("Ir", PV_UNIT_INSTRUCTIONS, 0, 0, PV_NUM_SHORT), "0");
	T_EQ_STR(text("Ir", PV_UNIT_INSTRUCTIONS, 0, -25000, PV_NUM_SHORT), "-25.0k");
	T_EQ_STR(text("cpu-clock", PV_UNIT_NS, 821064000000, 821064000000, PV_NUM_SHORT), "821k");
	T_EQ_STR(text("REALTIME (sec)", PV_UNIT_NS, 0, 2979143000, PV_NUM_SHORT), "2.98");
}

/* A view's columns by the rule: issue-328's default metric in seconds, its text header
 * naming the unit once (the CLI printed "REALTIME (sec) (ms)"). */
T_TEST(units_view_columns)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_file(T_DATA "/hpctoolkit/issue-328", NULL, &p, &err), 0);
	if (!p)
		return;
	struct pv_query q;
	pv_query_init(&q);
	q.view = PV_VIEW_TOP;
	struct pv_view *v = NULL;
	T_EQ_INT(pv_view_compute(p, &q, &v, &err), 0);
	if (v) {
		struct pv_cost_unit cu;
		pv_view_cost_unit(v, 0, &cu);
		T_EQ_STR(cu.name, "sec");
		char b[64];
		pv_view_cost_text(v, 0, v->whole[0], PV_NUM_EXACT, b, sizeof(b));
		T_EQ_STR(b, "1.534048");
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);
		struct pv_print_opts po = {0};
		pv_print_view(f, v, &po);
		fclose(f);
		T_CONTAINS(out, "# metric: REALTIME (sec), total 1.534048, all threads\n");
		free(out);
	}
	pv_view_free(v);
	pv_query_release(&q);
	pv_profile_free(p);
}

/* pv_pct_text writes what printf's "%.2f%%" writes, ties to even included, and cuts as
 * snprintf cuts. */
T_TEST(units_pct_text_as_printf)
{
	char b[32];
	pv_pct_text(100.0 / 3, b, sizeof(b));
	T_EQ_STR(b, "33.33%");
	pv_pct_text(200.0 / 3, b, sizeof(b));
	T_EQ_STR(b, "66.67%");
	pv_pct_text(100.0, b, sizeof(b));
	T_EQ_STR(b, "100.00%");
	pv_pct_text(0.125, b, sizeof(b)); /* a tie: to even */
	T_EQ_STR(b, "0.12%");
	pv_pct_text(0.375, b, sizeof(b));
	T_EQ_STR(b, "0.38%");
	pv_pct_text(-0.001, b, sizeof(b));
	T_EQ_STR(b, "-0.00%");
	pv_pct_text(-0.0, b, sizeof(b));
	T_EQ_STR(b, "-0.00%");
	pv_pct_text(1e7, b, sizeof(b));
	T_EQ_STR(b, "10000000.00%");
	T_EQ_U64(pv_pct_text(100.0 / 3, b, 4), 6);
	T_EQ_STR(b, "33.");
	/* a sweep of the shares of two wholes, either sign, against libc */
	static const int64_t wholes[] = {7919, 1000, 300000, 8};
	for (size_t w = 0; w < sizeof(wholes) / sizeof(wholes[0]); w++)
		for (int64_t v = -2 * wholes[w]; v <= 2 * wholes[w]; v += 1 + wholes[w] / 5000) {
			double p = 100.0 * (double)v / (double)wholes[w];
			char want[32];
			snprintf(want, sizeof(want), "%.2f%%", p);
			pv_pct_text(p, b, sizeof(b));
			T_EQ_STR(b, want);
		}
}

T_TEST(units_exact_text_ends)
{
	T_EQ_STR(text("samples", PV_UNIT_COUNT, 10, INT64_MIN, PV_NUM_EXACT),
		 "-9223372036854775808");
	T_EQ_STR(text("time", PV_UNIT_NS, 5000000, -1000, PV_NUM_EXACT), "-0.001");
	T_EQ_STR(text("time", PV_UNIT_NS, 5000000, -499, PV_NUM_EXACT), "-0.000");
	T_EQ_STR(text("time", PV_UNIT_NS, 5000000, 999500, PV_NUM_EXACT), "1.000");
	char b[8];
	struct pv_cost_unit cu;
	pv_cost_unit("time", PV_UNIT_NS, 5000000, &cu);
	T_EQ_U64(pv_cost_text(&cu, 123456789, PV_NUM_EXACT, b, 5), 7);
	T_EQ_STR(b, "123.");
}

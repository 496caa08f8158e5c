/*
 * test_fastpaths.c - the fast paths of issue 28 (doc/performance.md, "Fast paths") give what the
 * general code gives: the key sort against qsort, pv_apportion's 64-bit quotients against the
 * 128-bit rule, callgrind's one-pass cost lines against the same costs written in shapes only
 * the general parser reads, a Firefox index column's maximum and first null against the row by
 * row rule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sort.h"
#include "import/firefox/firefox_processed.h"
#include "model/builder.h"
#include "model/callgraph.h"
#include "pv/import.h"
#include "pv/profile.h"
#include "t.h"
#include "tp.h"

/* splitmix64: a reproducible stream */
static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int kix_ref(const void *a, const void *b)
{
	const struct pv_kix *x = a, *y = b;
	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->ix < y->ix ? -1 : x->ix > y->ix;
}

T_TEST(sort_kix_desc_is_qsorts_order)
{
	uint64_t seed = 28;
	/* sizes around the insertion-sort cut and well past it; few distinct keys (many ties),
	 * sorted and reversed runs (the partition's worst shapes) */
	static const size_t sizes[] = {0, 1, 2, 3, 15, 16, 17, 18, 100, 1000, 5000};
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		for (int shape = 0; shape < 4; shape++) {
			size_t n = sizes[si];
			struct pv_kix *a = malloc((n + 1) * sizeof(*a)),
				      *b = malloc((n + 1) * sizeof(*b));
			for (size_t i = 0; i < n; i++) {
				int64_t k = shape == 0	 ? (int64_t)(rnd(&seed) % 5) - 2
					    : shape == 1 ? (int64_t)rnd(&seed)
					    : shape == 2 ? (int64_t)i
							 : -(int64_t)i / 3;
				a[i] = b[i] = (struct pv_kix){k, (uint32_t)(n - i)};
			}
			pv_sort_kix_desc(a, n);
			if (n)
				qsort(b, n, sizeof(*b), kix_ref);
			size_t bad = 0;
			for (size_t i = 0; i < n; i++)
				bad += a[i].key != b[i].key || a[i].ix != b[i].ix;
			T_EQ_INT(bad, 0);
			free(a);
			free(b);
		}
	}
	/* by hand: the larger key first, ties by the smaller index */
	struct pv_kix h[] = {{5, 3}, {7, 9}, {5, 1}, {-1, 0}, {7, 2}};
	pv_sort_kix_desc(h, 5);
	T_EQ_INT(h[0].ix, 2);
	T_EQ_INT(h[1].ix, 9);
	T_EQ_INT(h[2].ix, 1);
	T_EQ_INT(h[3].ix, 3);
	T_EQ_INT(h[4].ix, 0);
}

/* the rule of pv_apportion, written plainly in 128 bits */
__extension__ typedef __int128 i128;
static void apportion_ref(int64_t total, const int64_t *w, uint32_t n, int64_t *out)
{
	i128 sum = 0;
	for (uint32_t i = 0; i < n; i++)
		sum += w[i];
	if (sum <= 0) {
		for (uint32_t i = 0; i < n; i++)
			out[i] = i == 0 ? total : 0;
		return;
	}
	uint64_t given = 0; /* wrapping: a quotient may not fit when weights are negative */
	for (uint32_t i = 0; i < n; i++) {
		out[i] = (int64_t)((i128)total * w[i] / sum);
		given += (uint64_t)out[i];
	}
	int64_t left = (int64_t)((uint64_t)total - given);
	int64_t step = left > 0 ? 1 : -1;
	while (left != 0) {
		uint32_t best = UINT32_MAX;
		i128 bestr = 0;
		for (uint32_t i = 0; i < n; i++) {
			if (w[i] <= 0)
				continue;
			i128 r = ((i128)total * w[i] - (i128)out[i] * sum) * step;
			if (best == UINT32_MAX || r > bestr) {
				best = i;
				bestr = r;
			}
		}
		out[best] += step;
		left -= step;
	}
}

T_TEST(apportion_64_bit_path_is_the_rule)
{
	int64_t o[3];
	/* by hand: 10 over 1:1:1 is 4 3 3 (the first of equal remainders), -10 is -4 -3 -3 */
	pv_apportion(10, (const int64_t[]){1, 1, 1}, 3, o);
	T_EQ_INT(o[0], 4);
	T_EQ_INT(o[1], 3);
	T_EQ_INT(o[2], 3);
	pv_apportion(-10, (const int64_t[]){1, 1, 1}, 3, o);
	T_EQ_INT(o[0], -4);
	T_EQ_INT(o[1], -3);
	T_EQ_INT(o[2], -3);
	/* 7 over 1:2:4 (remainders 0 0 0): exact */
	pv_apportion(7, (const int64_t[]){1, 2, 4}, 3, o);
	T_EQ_INT(o[0], 1);
	T_EQ_INT(o[1], 2);
	T_EQ_INT(o[2], 4);
	/* products past 2^63: the 128-bit path, 2^62 + 1 over 3:1 */
	pv_apportion((1LL << 62) + 1, (const int64_t[]){3000, 1000}, 2, o);
	T_EQ_INT(o[0], 3458764513820540929LL); /* 3/4 of 2^62, and the unit left over */
	T_EQ_INT(o[1], 1152921504606846976LL);
	uint64_t seed = 7;
	int64_t w[40], a[40], b[40];
	uint32_t bad = 0;
	for (int round = 0; round < 4000; round++) {
		uint32_t n = 1 + (uint32_t)(rnd(&seed) % 40);
		int scale = (int)(rnd(&seed) % 4);
		for (uint32_t i = 0; i < n; i++) {
			int64_t x = (int64_t)(rnd(&seed) % 1000);
			if (scale == 1)
				x = (int64_t)(rnd(&seed) >>
					      20); /* large weights: 128-bit products */
			if (scale == 2 && rnd(&seed) % 4 == 0)
				x = -x; /* some negative */
			if (scale == 3 && rnd(&seed) % 3 == 0)
				x = 0;
			w[i] = x;
		}
		int64_t total = (int64_t)(rnd(&seed) % 100000) - 20000;
		if (round % 7 == 0)
			total = (int64_t)(rnd(&seed) >> 2);
		pv_apportion(total, w, n, a);
		apportion_ref(total, w, n, b);
		for (uint32_t i = 0; i < n; i++)
			bad += a[i] != b[i];
	}
	T_EQ_INT(bad, 0);
}

/* Two callgrind texts whose costs must import to the same functions, lines and samples. */
static void same_callgrind(const char *x, const char *y)
{
	struct pv_profile *p = t_load_text_format("x.callgrind", x, "callgrind");
	struct pv_profile *q = t_load_text_format("y.callgrind", y, "callgrind");
	T_TRUE(p && q);
	if (!p || !q) {
		pv_profile_free(p);
		pv_profile_free(q);
		return;
	}
	T_EQ_INT(p->funcs.len, q->funcs.len);
	T_EQ_INT(p->frames.len, q->frames.len);
	T_EQ_INT(p->samples.len, q->samples.len);
	T_EQ_INT(p->metrics.len, q->metrics.len);
	for (uint32_t m = 0; m < p->metrics.len && m < q->metrics.len; m++) {
		for (uint32_t f = 0; f < p->funcs.len && f < q->funcs.len; f++) {
			T_EQ_INT(p->func_costs.self[m][f], q->func_costs.self[m][f]);
			T_EQ_INT(p->func_costs.total[m][f], q->func_costs.total[m][f]);
		}
		for (uint32_t s = 0; s < p->samples.len && s < q->samples.len; s++)
			T_EQ_INT(pv_sample_weight(p, m, s), pv_sample_weight(q, m, s));
	}
	for (uint32_t f = 0; f < p->frames.len && f < q->frames.len; f++)
		T_EQ_INT(p->frames.line[f], q->frames.line[f]);
	pv_profile_free(p);
	pv_profile_free(q);
}

T_TEST(callgrind_fast_cost_lines_read_as_the_general_ones)
{
	/* the common shape (one space, '\n'), then the same costs with tabs, two spaces, a
	 * trailing blank, "\r\n", and a position in hex: the general parser's shapes */
	const char *head = "# callgrind format\nversion: 1\npositions: line\nevents: Ir Dr\n"
			   "fl=(1) a.c\nfn=(1) main\n";
	char fast[1024], slow[1024];
	snprintf(fast, sizeof(fast),
		 "%s10 5 1\n+2 7\n* 3 4\n-1 2 0\n"
		 "cfn=(2) f\ncalls=2 20\n12 100 9\n"
		 "fn=(2)\n20 60 5\n+1 40\n+1\n123456789012345678 1\n",
		 head);
	snprintf(slow, sizeof(slow),
		 "%s10\t5 1\n+2  7\n* 3 4 \r\n-1 2\t0\n"
		 "cfn=(2) f\ncalls=2 20\n0xc 100 9\n"
		 "fn=(2)\n20 60\t5\n+1\t40\n+1 \n123456789012345678\t1\n",
		 head);
	same_callgrind(fast, slow);
	/* what the fast path gave, by hand: main's self is 5+7+3+2 Ir and 1+0+4+0 Dr; f's self
	 * 60+40+0+1 Ir and 5 Dr; main's inclusive adds the call's 100 and 9 */
	struct pv_profile *p = t_load_text_format("x.callgrind", fast, "callgrind");
	T_TRUE(p != NULL);
	if (!p)
		return;
	int64_t main_self = -1, f_self = -1, main_incl = -1, main_dr = -1;
	for (uint32_t f = 0; f < p->funcs.len; f++) {
		const char *nm = pv_str(p, p->funcs.name[f]);
		if (!strcmp(nm, "main")) {
			main_self = p->func_costs.self[0][f];
			main_incl = p->func_costs.total[0][f];
			main_dr = p->func_costs.self[1][f];
		} else if (!strcmp(nm, "f")) {
			f_self = p->func_costs.self[0][f];
		}
	}
	T_EQ_INT(main_self, 17);
	T_EQ_INT(main_dr, 5);
	T_EQ_INT(main_incl, 117);
	T_EQ_INT(f_self, 101);
	pv_profile_free(p);
	/* 19 digits: past the fast path, read (and refused) by the general one */
	struct pv_error err;
	char big[512];
	snprintf(big, sizeof(big), "%s1 99999999999999999999\n", head);
	t_expect_error("big.callgrind", big, "callgrind", PV_EPARSE, "too large", &err);
}

T_TEST(samples_room_keeps_the_columns_in_place)
{
	/* the room asked once: reserves and commits within it never move the columns */
	struct pv_builder b;
	T_EQ_INT(builder_init(&b), 0);
	builder_samples_room(&b, 100000);
	T_EQ_INT(b.status, 0);
	T_TRUE(b.p->samples.cap >= 100000);
	pv_stack_ix *st = b.p->samples.stack;
	int64_t *tm = b.p->samples.time_ns;
	T_TRUE(st != NULL && tm != NULL);
	T_EQ_INT(builder_samples_reserve(&b, 50000, false), 0);
	T_EQ_INT(builder_samples_reserve(&b, 100000, true), 0);
	T_TRUE(b.p->samples.stack == st && b.p->samples.time_ns == tm);
	/* no room past the row limit, and no error for it */
	builder_samples_room(&b, (uint64_t)PV_MAX_ROWS + 1);
	T_EQ_INT(b.status, 0);
	T_TRUE(b.p->samples.stack == st);
	builder_release(&b);
}

/* fxp_ucol_track's reference: the row by row rule */
static void ucol_track_ref(struct ucol *c, uint32_t from, uint32_t n)
{
	for (uint32_t k = from; k < from + n; k++) {
		if (c->v[k] == PV_NONE) {
			if (!c->null_pos)
				c->null_pos = k + 1;
		} else if (!c->max_pos || c->v[k] > c->max) {
			c->max = c->v[k];
			c->max_pos = k + 1;
		}
	}
}

T_TEST(ucol_track_finds_the_maximum_and_first_null)
{
	uint32_t v[16] = {3, 7, PV_NONE, 7, 2, 1, 9, 0, 0, 0, 0};
	struct ucol c = {.v = v};
	fxp_ucol_track(&c, 0, 5);
	T_EQ_INT(c.max, 7);
	T_EQ_INT(c.max_pos, 2); /* row 1 */
	T_EQ_INT(c.null_pos, 3);
	fxp_ucol_track(&c, 5, 6); /* four rows a step, then the rest */
	T_EQ_INT(c.max, 9);
	T_EQ_INT(c.max_pos, 7);
	T_EQ_INT(c.null_pos, 3);
	/* the largest rows below PV_NONE: unsigned, not signed, order */
	uint32_t w[5] = {0x7fffffffu, 0xfffffffeu, 5, 0x80000000u, 8};
	struct ucol d = {.v = w};
	fxp_ucol_track(&d, 0, 5);
	T_EQ_INT(d.max, 0xfffffffeu);
	T_EQ_INT(d.max_pos, 2);
	T_EQ_INT(d.null_pos, 0);
	/* nulls only: no maximum */
	uint32_t z[6] = {PV_NONE, PV_NONE, PV_NONE, PV_NONE, PV_NONE, PV_NONE};
	struct ucol e = {.v = z};
	fxp_ucol_track(&e, 0, 6);
	T_EQ_INT(e.max_pos, 0);
	T_EQ_INT(e.null_pos, 1);
	/* random runs against the row by row rule */
	uint64_t seed = 281;
	uint32_t r[64];
	for (int round = 0; round < 2000; round++) {
		for (int k = 0; k < 64; k++) {
			uint64_t x = rnd(&seed);
			r[k] = x % 5 == 0   ? PV_NONE
			       : x % 7 == 0 ? (uint32_t)(x >> 32)
					    : (uint32_t)(x % 50);
		}
		struct ucol a = {.v = r}, b = {.v = r};
		for (uint32_t from = 0; from < 64;) {
			uint32_t n = (uint32_t)(rnd(&seed) % 12);
			n = n > 64 - from ? 64 - from : n;
			fxp_ucol_track(&a, from, n);
			ucol_track_ref(&b, from, n);
			from += n ? n : 1;
		}
		T_EQ_INT(a.max_pos, b.max_pos);
		T_EQ_INT(a.null_pos, b.null_pos);
		if (b.max_pos)
			T_EQ_INT(a.max, b.max);
	}
}

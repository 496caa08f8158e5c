/*
 * ranges.c - the value ranges of the model (profile.h: PV_TIME_MAX, PV_WEIGHT_SUM_MAX), in one
 * place: the columns they cover, their check (pv_profile_validate: a snapshot past them is
 * refused, naming the column and the row) and their saturation (builder_finish: an importer's
 * values past them are brought inside, with one note per kind that the builder makes lossy). Within
 * them no sum of a weight column, no difference of two times and no time plus the interval
 * overflows.
 */
#include <stdio.h>

#include "model/ranges.h"
#include "pv/export.h"

/* ---- the columns ---- */

struct time_col {
	int64_t *col; /* NULL: none (every row PV_TIME_NONE) */
	uint32_t n;
	const char *name;
};

/* The time columns of p, at most RANGE_TIME_COLS. */
enum { RANGE_TIME_COLS = 8 };
static uint32_t time_cols(const struct pv_profile *p, struct time_col *c)
{
	uint32_t k = 0;
	c[k++] = (struct time_col){p->samples.time_ns, p->samples.len, "samples.time_ns"};
	c[k++] =
	    (struct time_col){p->samples.event_delay_ns, p->samples.len, "samples.event_delay_ns"};
	c[k++] = (struct time_col){p->threads.start_ns, p->threads.len, "threads.start_ns"};
	c[k++] = (struct time_col){p->threads.end_ns, p->threads.len, "threads.end_ns"};
	c[k++] = (struct time_col){p->markers.start_ns, p->markers.len, "markers.start_ns"};
	c[k++] = (struct time_col){p->markers.end_ns, p->markers.len, "markers.end_ns"};
	c[k++] =
	    (struct time_col){p->markers.cause_time_ns, p->markers.len, "markers.cause_time_ns"};
	c[k++] = (struct time_col){p->trace.time_ns, p->trace.len, "trace.time_ns"};
	return k;
}

struct weight_col {
	int64_t *col; /* NULL: every row weighs 1 (a sample weight column) */
	uint32_t n;
	const char *name; /* the column, as the check names it */
	const char *what; /* its values, as the lossy note names them */
};

/* The weight columns of metric m (at most 5): sample weights, call graph, function costs. */
static uint32_t weight_cols(const struct pv_profile *p, uint32_t m, struct weight_col *c)
{
	uint32_t k = 0;
	const struct pv_callgraph *cg = &p->callgraph;
	const struct pv_func_costs *fc = &p->func_costs;
	if (p->samples.weight)
		c[k++] = (struct weight_col){p->samples.weight[m], p->samples.len, "samples.weight",
					     "sample weights"};
	if (cg->node_self && m < cg->nr_metrics)
		c[k++] = (struct weight_col){cg->node_self[m], cg->nr_nodes, "callgraph.node_self",
					     "call graph self costs"};
	if (cg->edge_cost && m < cg->nr_metrics)
		c[k++] = (struct weight_col){cg->edge_cost[m], cg->nr_edges, "callgraph.edge_cost",
					     "call graph call costs"};
	if (fc->self && fc->total) {
		c[k++] = (struct weight_col){fc->self[m], fc->funcs_len, "func_costs.self",
					     "function self costs"};
		c[k++] = (struct weight_col){fc->total[m], fc->funcs_len, "func_costs.total",
					     "function total costs"};
	}
	return k;
}

/* |x| as unsigned (INT64_MIN's is 2^63). */
static inline uint64_t mag(int64_t x)
{
	return x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
}

/* ---- the check ---- */

/*
 * Full blocks of BLOCK rows are looked at without a branch and with SSE2's 64-bit operations
 * only (shifts, xor, add, or), so the loops vectorize at -O2 (a fixed trip count; not inlined,
 * as validate.c's): a block that passes needs no other look, one that does not is looked at
 * row by row. A snapshot's open checks every row (pv/snapshot.h), so this is most of its cost.
 */
enum { BLOCK = 4096 };

/* Whether a block has a time whose two top bits differ (outside -2^62 .. 2^62 - 1, or
 * PV_TIME_NONE): then its rows are looked at one by one. */
__attribute__((noinline)) static int times_odd(const int64_t *t)
{
	uint64_t acc = 0;
	for (uint32_t i = 0; i < BLOCK; i++) {
		uint64_t u = (uint64_t)t[i];
		acc |= u ^ (u << 1);
	}
	return (int)(acc >> 63);
}

/* The sum of |w| over a block when each is below 2^50 (then it fits), else UINT64_MAX. */
__attribute__((noinline)) static uint64_t block_mag_sum(const int64_t *w)
{
	uint64_t sum = 0, high = 0;
	for (uint32_t i = 0; i < BLOCK; i++) {
		uint64_t u = (uint64_t)w[i], s = 0 - (u >> 63); /* all ones when negative */
		uint64_t a = (u ^ s) - s;
		sum += a;
		high |= a;
	}
	return high >> 50 ? UINT64_MAX : sum;
}

static bool time_ok(int64_t t)
{
	return t == PV_TIME_NONE || (t >= -PV_TIME_MAX && t <= PV_TIME_MAX);
}

/* The first row of c whose time is past +-PV_TIME_MAX, n when none. */
static uint32_t first_bad_time(const int64_t *c, uint32_t n)
{
	for (uint32_t b = 0; c && b < n; b += BLOCK) {
		if (n - b >= BLOCK && !times_odd(c + b))
			continue;
		for (uint32_t i = b; i < n && i - b < BLOCK; i++)
			if (!time_ok(c[i]))
				return i;
	}
	return n;
}

/* The first row of w where the running sum of |w| passes PV_WEIGHT_SUM_MAX, n when none. */
static uint32_t first_past_sum(const int64_t *w, uint32_t n)
{
	uint64_t sum = 0;
	for (uint32_t b = 0; b < n; b += BLOCK) {
		uint64_t s = n - b >= BLOCK ? block_mag_sum(w + b) : UINT64_MAX;
		if (s != UINT64_MAX && s <= (uint64_t)PV_WEIGHT_SUM_MAX - sum) {
			sum += s;
			continue;
		}
		for (uint32_t i = b; i < n && i - b < BLOCK; i++) {
			uint64_t a = mag(w[i]);
			if (a > (uint64_t)PV_WEIGHT_SUM_MAX - sum)
				return i;
			sum += a;
		}
	}
	return n;
}

int pv__ranges_check(const struct pv_profile *p, struct pv_error *err)
{
	struct time_col tc[RANGE_TIME_COLS];
	uint32_t nt = time_cols(p, tc);
	for (uint32_t k = 0; k < nt; k++) {
		uint32_t i = first_bad_time(tc[k].col, tc[k].n);
		if (i < tc[k].n)
			return pv_error_set(err, PV_EPARSE, "%s[%u]: %lld is past +-2^62 ns",
					    tc[k].name, i, (long long)tc[k].col[i]);
	}
	if (!time_ok(p->trace.end_ns) && p->trace.len)
		return pv_error_set(err, PV_EPARSE, "trace.end_ns: %lld is past +-2^62 ns",
				    (long long)p->trace.end_ns);
	if (p->meta.interval_ns < 0 || p->meta.interval_ns > PV_TIME_MAX)
		return pv_error_set(err, PV_EPARSE, "meta.interval_ns: %lld is not in 0 .. 2^62",
				    (long long)p->meta.interval_ns);
	if (p->meta.start_unix_ns < -PV_TIME_MAX || p->meta.start_unix_ns > PV_TIME_MAX)
		return pv_error_set(err, PV_EPARSE, "meta.start_unix_ns: %lld is past +-2^62 ns",
				    (long long)p->meta.start_unix_ns);
	for (uint32_t m = 0; m < p->metrics.len; m++) {
		struct weight_col wc[5];
		uint32_t nw = weight_cols(p, m, wc);
		for (uint32_t k = 0; k < nw; k++) {
			if (!wc[k].col)
				continue;
			uint32_t i = first_past_sum(wc[k].col, wc[k].n);
			if (i < wc[k].n)
				return pv_error_set(err, PV_EPARSE,
						    "%s[%u][%u]: %lld takes the column's sum of "
						    "absolute values past 2^62",
						    wc[k].name, m, i, (long long)wc[k].col[i]);
		}
	}
	return 0;
}

/* ---- the saturation ---- */

static int64_t clamp_time(int64_t t, uint64_t *n)
{
	if (time_ok(t))
		return t;
	++*n;
	return t < 0 ? -PV_TIME_MAX : PV_TIME_MAX;
}

void pv__ranges_saturate(struct pv_profile *p, struct pv_lossy *notes)
{
	struct time_col tc[RANGE_TIME_COLS];
	uint32_t nt = time_cols(p, tc);
	uint64_t times = 0;
	for (uint32_t k = 0; k < nt; k++)
		for (uint32_t i = first_bad_time(tc[k].col, tc[k].n); i < tc[k].n; i++)
			tc[k].col[i] = clamp_time(tc[k].col[i], &times);
	if (p->trace.len)
		p->trace.end_ns = clamp_time(p->trace.end_ns, &times);
	int64_t su = p->meta.start_unix_ns; /* 0 when unknown, never PV_TIME_NONE */
	if (su < -PV_TIME_MAX || su > PV_TIME_MAX) {
		p->meta.start_unix_ns = su < 0 ? -PV_TIME_MAX : PV_TIME_MAX;
		times++;
	}
	pv_lossy_add(notes, times, "times past +-2^62 ns (146 years) saturated");
	if (p->meta.interval_ns < 0) {
		pv_lossy_add(notes, 1, "a negative sampling interval (%lld ns) dropped",
			     (long long)p->meta.interval_ns);
		p->meta.interval_ns = 0;
	} else if (p->meta.interval_ns > PV_TIME_MAX) {
		pv_lossy_add(notes, 1, "a sampling interval past 2^62 ns (146 years) saturated");
		p->meta.interval_ns = PV_TIME_MAX;
	}
	for (uint32_t m = 0; m < p->metrics.len; m++) {
		struct weight_col wc[5];
		uint32_t nw = weight_cols(p, m, wc);
		for (uint32_t k = 0; k < nw; k++) {
			int64_t *w = wc[k].col;
			uint32_t i = w ? first_past_sum(w, wc[k].n) : wc[k].n;
			if (i == wc[k].n)
				continue;
			/* the running sum of |w| up to i, then each value cut to what is left */
			uint64_t sum = 0, cut = 0;
			for (uint32_t r = 0; r < i; r++)
				sum += mag(w[r]);
			for (uint32_t r = i; r < wc[k].n; r++) {
				uint64_t a = mag(w[r]), room = (uint64_t)PV_WEIGHT_SUM_MAX - sum;
				if (a > room) {
					w[r] = w[r] < 0 ? -(int64_t)room : (int64_t)room;
					a = room;
					cut++;
				}
				sum += a;
			}
			pv_lossy_add(notes, cut,
				     "metric '%s': %s summing past 2^62 in absolute value "
				     "saturated (each cut to what the sum had left)",
				     pv_str(p, p->metrics.name[m]), wc[k].what);
		}
	}
}

/*
 * contexts.c - a per-context plot of one row against one pass over that row's values.
 *
 * Builds a seeded profile in memory: CONTEXTS execution contexts (default 10,000) of SAMPLES
 * weighted samples each (default 500) over a shared table of 20,000 distinct stacks (depths up to
 * 30, 2,000 functions). Then, alternating A B A B for ROUNDS rounds, times
 *   A  the floor: one pass over the row's values, each context's samples whose stack is in the
 *      row (a mask over the stacks made once, untimed) added into that context's sum;
 *   B  the plot as the page asks for it: pv_contexts_compute of the row (the query's top-down
 *      tree, each stack's row, one pass over the samples), the sorted order, the histogram
 *      (30 bins) and the 1600 pixel columns of the plot;
 * for the row a center names (a different function each round), and prints the medians and
 * B / A (target: <= 3, issue 14), on the wall clock and on the thread's CPU clock (which the
 * other jobs of a loaded machine move least), and how B splits: pv_contexts_compute, and the
 * sort, histogram and columns after it.
 *
 * usage: contexts [CONTEXTS [SAMPLES [ROUNDS]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/builder.h"
#include "pv/contexts.h"
#include "synth.h"

#define NFUNCS	2000
#define NSTACKS 20000

static struct pv_profile *build(uint32_t nctx, uint32_t per)
{
	struct pv_builder b;
	if (builder_init(&b))
		return NULL;
	pv_frame_ix *frames = malloc(sizeof(*frames) * NFUNCS);
	uint8_t *depth = malloc(NSTACKS);
	for (uint32_t f = 0; f < NFUNCS; f++)
		frames[f] = builder_func_frame(
		    &b, builder_func(&b, builder_strf(&b, "fn_%u", f), PV_NONE, PV_NONE, 0));
	builder_metric(&b, builder_cstr(&b, "cycles"), PV_UNIT_CYCLES);
	while (b.p->stacks.len < NSTACKS && !b.status) {
		pv_stack_ix pre = b.p->stacks.len && synth_rng() % 8
				      ? (pv_stack_ix)(synth_rng() % b.p->stacks.len)
				      : PV_NONE;
		if (pre != PV_NONE && depth[pre] >= 30)
			pre = b.p->stacks.prefix[pre];
		pv_stack_ix s = builder_stack(&b, pre, frames[synth_skewed(NFUNCS)]);
		if (s == b.p->stacks.len - 1)
			depth[s] = (uint8_t)(pre == PV_NONE ? 0 : depth[pre] + 1);
	}
	uint32_t ns = b.p->stacks.len;
	for (uint32_t c = 0; c < nctx && !b.status; c++) {
		pv_thread_ix t =
		    builder_thread(&b, builder_strf(&b, "RANK %u THREAD 0", c), c, c, 0);
		uint32_t first = b.p->samples.len;
		if (builder_samples_reserve(&b, (uint64_t)first + per, false))
			break;
		for (uint32_t i = 0; i < per; i++) {
			b.p->samples.stack[first + i] = (pv_stack_ix)(synth_rng() % ns);
			b.p->samples.time_ns[first + i] = (int64_t)i * 1000000;
		}
		builder_samples_commit(&b, t, first, per);
		int64_t *w = builder_samples_weight(&b, 0);
		for (uint32_t i = 0; w && i < per; i++)
			w[first + i] = 1000 + (int64_t)(synth_rng() % 9000) * (1 + c % 7);
	}
	free(frames);
	free(depth);
	struct pv_profile *p = NULL;
	if (builder_finish(&b, &p))
		p = NULL;
	builder_release(&b);
	return p;
}

/* the floor: each context's samples in the row (inrow[stack], 0 or 1) summed, with no branch on
 * inrow (a sample's stack is as good as random: a branch on it is mispredicted half the time) */
static int64_t floor_pass(const struct pv_profile *p, const uint8_t *inrow, int64_t *sum)
{
	int64_t all = 0;
	const int64_t *w = p->samples.weight[0];
	for (uint32_t t = 0; t < p->threads.len; t++) {
		int64_t x = 0;
		for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t]; s++)
			x += w[s] & -(int64_t)inrow[p->samples.stack[s]];
		sum[t] = x;
		all += x;
	}
	return all;
}

int main(int argc, char **argv)
{
	uint32_t nctx = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 10000;
	uint32_t per = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 500;
	int rounds = argc > 3 ? atoi(argv[3]) : 7;
	if (rounds < 1 || rounds > 101)
		rounds = 7;
	double t0 = synth_now();
	struct pv_profile *p = build(nctx, per);
	if (!p) {
		fprintf(stderr, "contexts: cannot build the profile\n");
		return 1;
	}
	printf("profile: %u contexts, %u samples, %u stacks, %u functions (built in %.2f s)\n",
	       p->threads.len, p->samples.len, p->stacks.len, p->funcs.len, synth_now() - t0);
	int64_t *sum = malloc(sizeof(*sum) * p->threads.len);
	uint8_t *inrow = malloc(p->stacks.len);
	uint32_t *order = malloc(sizeof(*order) * p->threads.len);
	uint32_t *bin = malloc(sizeof(*bin) * p->threads.len);
	uint32_t count[30];
	struct pv_ctx_column cols[1600];
	double a[101], bt[101], ca[101], cb[101], cc[101];
	int64_t sink = 0;
	for (int r = -1; r < rounds; r++) { /* round -1 warms up */
		/* the row: a center on a function of middling weight, a different one each round */
		char center[32];
		unsigned f = 20u + 7u * (unsigned)(r + 1);
		snprintf(center, sizeof(center), "fn_%u", f);
		/* its stacks: those with fn_f on their path (the center's inclusive samples) */
		for (uint32_t s = 0; s < p->stacks.len; s++) {
			pv_stack_ix pre = p->stacks.prefix[s];
			inrow[s] = (pre != PV_NONE && inrow[pre]) ||
				   p->frames.func[p->stacks.frame[s]] == f;
		}
		double s1 = synth_now(), s1c = synth_cpu();
		int64_t floor_total = floor_pass(p, inrow, sum);
		double e1 = synth_now(), e1c = synth_cpu();
		struct pv_query q;
		pv_query_init(&q);
		pv_query_add_center(&q, center);
		struct pv_contexts *c = NULL;
		struct pv_error err;
		double s2 = synth_now(), s2c = synth_cpu();
		if (pv_contexts_compute(p, &q, NULL, 0, &c, &err)) {
			fprintf(stderr, "contexts: %s\n", err.msg);
			return 1;
		}
		double m2c = synth_cpu();
		pv_contexts_sort(c, PV_CTX_INCLUSIVE, order);
		pv_contexts_histogram(c, PV_CTX_INCLUSIVE, 30, count, bin);
		uint32_t n = pv_contexts_columns(c, PV_CTX_INCLUSIVE, order, 0, c->len, 1600, cols);
		double e2 = synth_now(), e2c = synth_cpu();
		if (c->summary[0].sum != floor_total) {
			fprintf(stderr, "contexts: %s: the plot sums %lld, the floor %lld\n",
				center, (long long)c->summary[0].sum, (long long)floor_total);
			return 1;
		}
		sink += n + cols[0].max;
		pv_contexts_free(c);
		pv_query_release(&q);
		if (r >= 0) {
			a[r] = e1 - s1;
			bt[r] = e2 - s2;
			ca[r] = e1c - s1c;
			cb[r] = e2c - s2c;
			cc[r] = m2c - s2c;
		}
	}
	double ma = synth_median(a, rounds), mb = synth_median(bt, rounds);
	printf("floor (one pass over the row's values):  median %.4f s\n", ma);
	printf("per-context plot (compute, sort, histogram, 1600 columns):  median %.4f s\n", mb);
	printf("ratio: %.2fx (target <= 3x)   [%lld]\n", mb / ma, (long long)(sink & 1));
	double mca = synth_median(ca, rounds), mcb = synth_median(cb, rounds);
	double mcc = synth_median(cc, rounds);
	printf("CPU time: floor %.4f s, plot %.4f s (compute %.4f s, sort + histogram + columns "
	       "%.4f s), ratio %.2fx\n",
	       mca, mcb, mcc, mcb - mcc, mcb / mca);
	free(sum);
	free(inrow);
	free(order);
	free(bin);
	pv_profile_free(p);
	return 0;
}

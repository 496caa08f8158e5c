/*
 * center.c - "move the center": the cost of a centered view against one plain inclusive pass.
 *
 * Builds a seeded synthetic profile in memory (default 10 M samples over 1 M distinct stacks,
 * 50 k functions, depths 20-60), then, alternating A B A B, times
 *   A  the plain inclusive pass: each sample's weight onto its stack, then one backward pass
 *      adding every stack's total to its prefix (what any call-tree view costs at least);
 *   B  pv_view_compute of a top-down tree centered on a function (a different one each round),
 *      and the same for a bottom-up tree;
 * and prints the medians and the ratios B / A (target: <= 3, doc/performance.md).
 *
 * usage: center [SAMPLES [STACKS [ROUNDS]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pv/query.h"
#include "pv/view.h"
#include "synth.h"

/* the floor: each sample onto its stack, then totals up the prefix tree */
static int64_t plain_pass(const struct pv_profile *p, int64_t *cost)
{
	memset(cost, 0, sizeof(*cost) * p->stacks.len);
	for (uint32_t s = 0; s < p->samples.len; s++)
		if (p->samples.stack[s] != PV_NONE)
			cost[p->samples.stack[s]] += pv_sample_weight(p, 0, s);
	for (uint32_t s = p->stacks.len; s-- > 0;)
		if (p->stacks.prefix[s] != PV_NONE)
			cost[p->stacks.prefix[s]] += cost[s];
	return cost[0];
}

int main(int argc, char **argv)
{
	int rounds;
	double built;
	struct pv_profile *p = synth_args(argc, argv, "center", &rounds, &built);
	if (!p)
		return 1;
	printf("profile: %u samples, %u stacks, %u functions, %u frames (built in %.2f s)\n",
	       p->samples.len, p->stacks.len, p->funcs.len, p->frames.len, built);
	int64_t *cost = malloc(sizeof(*cost) * p->stacks.len);
	double a[101], tree[101], callers[101];
	int64_t sink = 0;
	for (int r = -1; r < rounds; r++) { /* round -1 warms up */
		double s = synth_now();
		sink += plain_pass(p, cost);
		double e = synth_now();
		/* a function of middling weight: a different one each round */
		char center[32];
		snprintf(center, sizeof(center), "re:method_%u\\(", 200u + 37u * (unsigned)(r + 1));
		struct pv_query q;
		pv_query_init(&q);
		pv_query_add_center(&q, center);
		struct pv_view *v;
		struct pv_error err;
		double s2 = synth_now();
		if (pv_view_compute(p, &q, &v, &err)) {
			fprintf(stderr, "center: %s\n", err.msg);
			return 1;
		}
		double e2 = synth_now();
		sink += v->center[0];
		pv_view_free(v);
		q.view = PV_VIEW_CALLERS;
		double s3 = synth_now();
		if (pv_view_compute(p, &q, &v, &err)) {
			fprintf(stderr, "center: %s\n", err.msg);
			return 1;
		}
		double e3 = synth_now();
		sink += v->center[0];
		pv_view_free(v);
		pv_query_release(&q);
		if (r >= 0) {
			a[r] = e - s;
			tree[r] = e2 - s2;
			callers[r] = e3 - s3;
		}
	}
	double ma = synth_median(a, rounds), mt = synth_median(tree, rounds),
	       mc = synth_median(callers, rounds);
	printf("plain inclusive pass      %8.1f ms\n", ma * 1e3);
	printf("centered top-down tree    %8.1f ms  %.2fx\n", mt * 1e3, mt / ma);
	printf("centered bottom-up tree   %8.1f ms  %.2fx\n", mc * 1e3, mc / ma);
	printf("(medians of %d alternated rounds; checksum %lld)\n", rounds, (long long)sink);
	free(cost);
	pv_profile_free(p);
	return 0;
}

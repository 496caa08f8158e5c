/*
 * center.c - "move the center": the cost of a centered view against one plain inclusive pass.
 *
 * Builds a seeded synthetic profile in memory (default 10 M samples over 1 M distinct stacks,
 * 50 k functions, depths 20-60), then, alternating A B A B, times
 *   A  the plain inclusive pass: each sample's weight onto its stack, then one backward pass
 *      adding every stack's total to its prefix (what any call-tree view costs at least);
 *   B  pv_view_compute of a top-down tree centered on a function (a different one each round),
 *      and the same for a bottom-up tree;
 * and prints the medians and the ratios B / A (target: <= 3, spec/performance.md).
 *
 * usage: center [SAMPLES [STACKS [ROUNDS]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/builder.h"
#include "pv/query.h"
#include "pv/view.h"

static uint64_t rng_state = 0x5eed5eed5eedULL;

static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* a skewed pick in [0, n): small indices are hot */
static uint32_t skewed(uint32_t n)
{
	double u = (double)(rng() >> 11) / (double)(1ULL << 53);
	return (uint32_t)((double)n * u * u * u);
}

static struct pv_profile *make_profile(uint32_t nsamples, uint32_t nstacks, uint32_t nfuncs)
{
	struct pv_builder b;
	if (builder_init(&b))
		return NULL;
	pv_frame_ix *frames = malloc(sizeof(*frames) * nfuncs);
	uint8_t *depth = malloc(nstacks);
	for (uint32_t f = 0; f < nfuncs; f++) {
		pv_str_ix name = builder_strf(&b, "ns%u::Class%u<std::vector<int>>::method_%u(int, char const*)",
					      f % 97, f % 1013, f);
		frames[f] = builder_func_frame(&b, builder_func(&b, name, PV_NONE, PV_NONE, 0));
	}
	pv_thread_ix th[4];
	for (int t = 0; t < 4; t++)
		th[t] = builder_thread(&b, builder_strf(&b, "thread-%d", t), 1, 100 + t, 0);
	builder_metric(&b, builder_cstr(&b, "samples"), PV_UNIT_COUNT);
	/* a prefix tree that mostly deepens the last path and branches from earlier stacks */
	pv_stack_ix last = PV_NONE;
	uint32_t d = 0;
	while (b.p->stacks.len < nstacks && !b.status) {
		pv_stack_ix pre;
		if (last != PV_NONE && d < 60 && (d < 20 || rng() % 10 < 8)) {
			pre = last;
		} else {
			/* branch off an existing stack that is not too deep */
			pre = b.p->stacks.len ? (pv_stack_ix)(rng() % b.p->stacks.len) : PV_NONE;
			if (pre != PV_NONE && depth[pre] >= 40)
				pre = b.p->stacks.prefix[pre] == PV_NONE ? PV_NONE : b.p->stacks.prefix[pre];
		}
		uint32_t pd = pre == PV_NONE ? 0 : depth[pre] + 1u;
		pv_stack_ix s = builder_stack(&b, pre, frames[skewed(nfuncs)]);
		if (s == b.p->stacks.len - 1)
			depth[s] = (uint8_t)(pd > 255 ? 255 : pd);
		last = s;
		d = depth[s];
	}
	uint32_t ns = b.p->stacks.len;
	int64_t t = 0;
	for (uint32_t i = 0; i < nsamples; i++) {
		t += 1000000;
		builder_sample(&b, th[i % 4], (pv_stack_ix)(ns - 1 - skewed(ns)), t, NULL);
	}
	free(frames);
	free(depth);
	struct pv_profile *p = NULL;
	if (builder_finish(&b, &p)) {
		builder_release(&b);
		return NULL;
	}
	builder_release(&b);
	return p;
}

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
	uint32_t nsamples = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 10000000;
	uint32_t nstacks = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 1000000;
	int rounds = argc > 3 ? atoi(argv[3]) : 7;
	if (rounds < 1 || rounds > 101)
		rounds = 7;
	double t0 = now();
	struct pv_profile *p = make_profile(nsamples, nstacks, 50000);
	if (!p) {
		fprintf(stderr, "center: cannot build the profile\n");
		return 1;
	}
	printf("profile: %u samples, %u stacks, %u functions, %u frames (built in %.2f s)\n",
	       p->samples.len, p->stacks.len, p->funcs.len, p->frames.len, now() - t0);
	int64_t *cost = malloc(sizeof(*cost) * p->stacks.len);
	double a[101], tree[101], callers[101];
	int64_t sink = 0;
	for (int r = -1; r < rounds; r++) { /* round -1 warms up */
		double s = now();
		sink += plain_pass(p, cost);
		double e = now();
		/* a function of middling weight: a different one each round */
		char center[32];
		snprintf(center, sizeof(center), "re:method_%u\\(", 200u + 37u * (unsigned)(r + 1));
		struct pv_query q;
		pv_query_init(&q);
		pv_query_add_center(&q, center);
		struct pv_view *v;
		struct pv_error err;
		double s2 = now();
		if (pv_view_compute(p, &q, &v, &err)) {
			fprintf(stderr, "center: %s\n", err.msg);
			return 1;
		}
		double e2 = now();
		sink += v->center[0];
		pv_view_free(v);
		q.view = PV_VIEW_CALLERS;
		double s3 = now();
		if (pv_view_compute(p, &q, &v, &err)) {
			fprintf(stderr, "center: %s\n", err.msg);
			return 1;
		}
		double e3 = now();
		sink += v->center[0];
		pv_view_free(v);
		pv_query_release(&q);
		if (r >= 0) {
			a[r] = e - s;
			tree[r] = e2 - s2;
			callers[r] = e3 - s3;
		}
	}
	double ma = median(a, rounds), mt = median(tree, rounds), mc = median(callers, rounds);
	printf("plain inclusive pass      %8.1f ms\n", ma * 1e3);
	printf("centered top-down tree    %8.1f ms  %.2fx\n", mt * 1e3, mt / ma);
	printf("centered bottom-up tree   %8.1f ms  %.2fx\n", mc * 1e3, mc / ma);
	printf("(medians of %d alternated rounds; checksum %lld)\n", rounds, (long long)sink);
	free(cost);
	pv_profile_free(p);
	return 0;
}

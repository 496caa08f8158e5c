/* synth.c - the synthetic profile of the in-process benchmarks (synth.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/builder.h"
#include "synth.h"

static uint64_t rng_state = 0x5eed5eed5eedULL;

uint64_t synth_rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double synth_now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

double synth_cpu(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double synth_median(const double *v, int n)
{
	double *s = n > 0 ? malloc(sizeof(*s) * (size_t)n) : NULL;
	if (!s)
		return 0;
	memcpy(s, v, sizeof(*v) * (size_t)n);
	qsort(s, (size_t)n, sizeof(*s), cmp_double);
	double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

uint32_t synth_skewed(uint32_t n)
{
	double u = (double)(synth_rng() >> 11) / (double)(1ULL << 53);
	return (uint32_t)((double)n * u * u * u);
}

struct pv_profile *synth_profile(uint32_t nsamples, uint32_t nstacks, uint32_t nfuncs)
{
	struct pv_builder b;
	if (builder_init(&b))
		return NULL;
	pv_frame_ix *frames = malloc(sizeof(*frames) * nfuncs);
	uint8_t *depth = malloc(nstacks);
	for (uint32_t f = 0; f < nfuncs; f++) {
		pv_str_ix name =
		    builder_strf(&b, "ns%u::Class%u<std::vector<int>>::method_%u(int, char const*)",
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
		if (last != PV_NONE && d < 60 && (d < 20 || synth_rng() % 10 < 8)) {
			pre = last;
		} else {
			/* branch off an existing stack that is not too deep */
			pre = b.p->stacks.len ? (pv_stack_ix)(synth_rng() % b.p->stacks.len)
					      : PV_NONE;
			if (pre != PV_NONE && depth[pre] >= 40)
				pre = b.p->stacks.prefix[pre] == PV_NONE ? PV_NONE
									 : b.p->stacks.prefix[pre];
		}
		uint32_t pd = pre == PV_NONE ? 0 : depth[pre] + 1u;
		pv_stack_ix s = builder_stack(&b, pre, frames[synth_skewed(nfuncs)]);
		if (s == b.p->stacks.len - 1)
			depth[s] = (uint8_t)(pd > 255 ? 255 : pd);
		last = s;
		d = depth[s];
	}
	uint32_t ns = b.p->stacks.len;
	int64_t t = 0;
	for (uint32_t i = 0; i < nsamples; i++) {
		t += 1000000;
		builder_sample(&b, th[i % 4], (pv_stack_ix)(ns - 1 - synth_skewed(ns)), t, NULL);
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

struct pv_profile *synth_args(int argc, char **argv, const char *name, int *rounds, double *built_s)
{
	uint32_t nsamples = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 10000000;
	uint32_t nstacks = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 1000000;
	*rounds = argc > 3 ? atoi(argv[3]) : 7;
	if (*rounds < 1 || *rounds > 101)
		*rounds = 7;
	double t0 = synth_now();
	struct pv_profile *p = synth_profile(nsamples, nstacks, 50000);
	*built_s = synth_now() - t0;
	if (!p)
		fprintf(stderr, "%s: cannot build the profile\n", name);
	return p;
}

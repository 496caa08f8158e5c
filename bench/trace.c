/*
 * trace.c - the trace view's window against its floor (issue 14, bench/RESULTS.md "Trace").
 *
 *   build/bench/trace [CONTEXTS [RECORDS [WIDTH [HEIGHT]]]]   (default 10000 100000 1600 1000)
 *
 * A generated trace of CONTEXTS contexts of RECORDS records each, over the stacks of the
 * seeded synthetic profile (synth.h). So that 10,000 x 100,000 records fit in memory, the
 * contexts share 64 distinct record lines (each context a line of its own times and stacks,
 * drawn once; context c uses line c mod 64), which changes no search: each is a binary search
 * in 100,000 records. The line's times step by 1 to 2,000 ns.
 *
 * Timed, in one process, medians of 7 runs after one warm-up:
 *   floor: per pixel, a plain binary search of the pixel's time in its context's records (the
 *          last record at or before it), its stack summed so the search is kept;
 *   image: pv_trace_image over the same window at depth 3 (the pixel's function, blank
 *          checks), with pv_trace_paint_new timed apart (once per query and depth).
 * Printed: both medians, image / floor, and the figures of each run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/trace.h"
#include "synth.h"

#define LINES 64
#define RUNS  7

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	uint32_t nctx = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 10000;
	uint32_t nrec = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 100000;
	uint32_t W = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 1600;
	uint32_t H = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : 1000;
	if (!nctx || !nrec || !W || !H) {
		fputs("usage: trace [CONTEXTS [RECORDS [WIDTH [HEIGHT]]]]\n", stderr);
		return 2;
	}
	struct pv_profile *p = synth_profile(20000, 5000, 500);
	if (!p)
		return 1;
	uint32_t ns = p->stacks.len;
	int64_t *times[LINES];
	pv_stack_ix *stacks[LINES];
	int64_t lend[LINES];
	for (int l = 0; l < LINES; l++) {
		times[l] = malloc((size_t)nrec * sizeof(int64_t));
		stacks[l] = malloc((size_t)nrec * sizeof(pv_stack_ix));
		if (!times[l] || !stacks[l])
			return 1;
		int64_t t = 0;
		for (uint32_t i = 0; i < nrec; i++) {
			t += 1 + (int64_t)(synth_rng() % 2000);
			times[l][i] = t;
			stacks[l][i] = (pv_stack_ix)(synth_rng() % ns);
		}
		lend[l] = t + 1000;
	}
	const int64_t **ct = malloc((size_t)nctx * sizeof(*ct));
	const pv_stack_ix **cs = malloc((size_t)nctx * sizeof(*cs));
	uint32_t *cl = malloc((size_t)nctx * sizeof(*cl));
	int64_t *ce = malloc((size_t)nctx * sizeof(*ce));
	pv_func_ix *px = malloc((size_t)W * H * sizeof(*px));
	int64_t *tx = malloc((size_t)W * sizeof(*tx));
	if (!ct || !cs || !cl || !ce || !px || !tx)
		return 1;
	int64_t t_end = 0;
	for (uint32_t c = 0; c < nctx; c++) {
		ct[c] = times[c % LINES];
		cs[c] = stacks[c % LINES];
		cl[c] = nrec;
		ce[c] = lend[c % LINES];
		t_end = ce[c] > t_end ? ce[c] : t_end;
	}
	struct pv_error err;
	struct pv_trace *t = NULL;
	if (pv_trace_from_lines(p, nctx, ct, cs, cl, ce, &t, &err)) {
		fprintf(stderr, "trace: %s\n", err.msg);
		return 1;
	}
	struct pv_trace_window w = {0, t_end, 0, nctx, W, H};
	for (uint32_t x = 0; x < W; x++)
		tx[x] = w.t0 + (int64_t)((double)(w.t1 - w.t0) * (2.0 * x + 1) / (2.0 * W));
	double floor_s[RUNS + 1], image_s[RUNS + 1], paint_s[RUNS + 1];
	uint64_t sink = 0;
	for (int run = 0; run <= RUNS; run++) {
		/* the floor: one plain binary search per pixel */
		double t0 = synth_now();
		for (uint32_t y = 0; y < H; y++) {
			uint32_t c = (uint32_t)(((2ull * y + 1) * nctx) / (2ull * H));
			const int64_t *tm = ct[c];
			for (uint32_t x = 0; x < W; x++) {
				uint32_t lo = 0, hi = cl[c];
				while (lo < hi) {
					uint32_t mid = lo + (hi - lo) / 2;
					if (tm[mid] <= tx[x])
						lo = mid + 1;
					else
						hi = mid;
				}
				sink += lo ? cs[c][lo - 1] : 0;
			}
		}
		double t1 = synth_now();
		struct pv_trace_paint *pt = NULL;
		if (pv_trace_paint_new(t, NULL, 3, &pt, &err)) {
			fprintf(stderr, "trace: %s\n", err.msg);
			return 1;
		}
		double t2 = synth_now();
		if (pv_trace_image(pt, &w, px, &err)) {
			fprintf(stderr, "trace: %s\n", err.msg);
			return 1;
		}
		double t3 = synth_now();
		sink += px[(size_t)W * H / 2];
		pv_trace_paint_free(pt);
		floor_s[run] = t1 - t0;
		paint_s[run] = t2 - t1;
		image_s[run] = t3 - t2;
	}
	double fm = synth_median(floor_s + 1, RUNS), im = synth_median(image_s + 1, RUNS),
	       pm = synth_median(paint_s + 1, RUNS);
	printf("contexts %u, records %u per context (%llu in all), window %ux%u, %u stacks\n", nctx,
	       nrec, (unsigned long long)nctx * nrec, W, H, ns);
	printf("floor (a binary search per pixel): %.4f s\n", fm);
	printf("image (pv_trace_image, depth 3):   %.4f s   image / floor: %.2f\n", im, im / fm);
	printf("paint (pv_trace_paint_new, once per query and depth): %.4f s\n", pm);
	qsort(floor_s + 1, RUNS, sizeof(double), cmp_d);
	qsort(image_s + 1, RUNS, sizeof(double), cmp_d);
	printf("runs, floor:");
	for (int i = 1; i <= RUNS; i++)
		printf(" %.4f", floor_s[i]);
	printf("\nruns, image:");
	for (int i = 1; i <= RUNS; i++)
		printf(" %.4f", image_s[i]);
	printf("\n(checksum %llu)\n", (unsigned long long)(sink % 1000));
	pv_trace_free(t);
	for (int l = 0; l < LINES; l++) {
		free(times[l]);
		free(stacks[l]);
	}
	free(ct);
	free(cs);
	free(cl);
	free(ce);
	free(px);
	free(tx);
	pv_profile_free(p);
	return 0;
}

/*
 * fuzz_import.c - the fuzz target of every importer: import, validate, compute views, derive and
 * print the markers.
 *
 * Built once per format with -DFUZZ_FORMAT="name" (or none: the probe picks). Under libFuzzer
 * (meson -Dfuzz=true, clang) it runs as a fuzzer; otherwise replay.c gives it a main() that
 * replays the seed corpus fuzz/corpus/<format>/, so `make test` runs every seed every time.
 * An input must import into a valid profile or fail with a message: anything else aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pv/format.h"
#include "pv/import.h"
#include "pv/info.h"
#include "pv/marker.h"
#include "pv/query.h"
#include "pv/view.h"

#ifndef FUZZ_FORMAT
#define FUZZ_FORMAT NULL
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A failure must say what failed: an empty message (or a status that is no error) aborts. */
static void said(const char *what, int rc, const struct pv_error *err)
{
	if (rc < 0 && err->msg[0])
		return;
	fprintf(stderr, "fuzz: %s failed without a message (status %d, code %d)\n", what, rc,
		err->code);
	abort();
}

__extension__ typedef __int128 i128;

/* Metric m's total over every sample, recounted in 128 bits. */
static i128 recount(const struct pv_profile *p, pv_metric_ix m)
{
	i128 sum = 0;
	for (uint32_t s = 0; s < p->samples.len; s++)
		sum += pv_sample_weight(p, m, s);
	return sum;
}

/*
 * The totals against a recount in 128 bits (issue 25): within the model's ranges (profile.h)
 * a metric's total fits in int64, so info's total and an unfiltered view's whole are exact.
 */
static void check_total(const char *what, const struct pv_profile *p, pv_metric_ix m, int64_t got)
{
	i128 want = recount(p, m);
	if (want == got)
		return;
	fprintf(stderr, "fuzz: %s of metric %u is %lld, the samples sum to %lld%s\n", what, m,
		(long long)got, (long long)want,
		want > INT64_MAX || want < INT64_MIN ? " (past int64)" : "");
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	int rc = pv_import_memory("fuzz-input", data, size, FUZZ_FORMAT, &p, &err);
	if (rc) {
		said("the import", rc, &err);
		return 0;
	}
	if (pv_profile_validate(p, &err)) {
		fprintf(stderr, "fuzz: invalid profile: %s\n", err.msg);
		abort();
	}
	if ((rc = pv_profile_check(p, &err))) { /* a snapshot's checksums */
		said("the check", rc, &err);
		pv_profile_free(p);
		return 0;
	}
	struct pv_profile_info *in = NULL;
	if (pv_profile_info(p, &in) == 0) {
		for (pv_metric_ix m = 0; m < p->metrics.len; m++)
			check_total("info's total", p, m, in->metric_total[m]);
		pv_profile_info_free(in);
	}
	static const enum pv_view_kind kinds[] = {PV_VIEW_TREE, PV_VIEW_CALLERS, PV_VIEW_FLAT};
	FILE *null = fopen("/dev/null", "w");
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && null; k++) {
		struct pv_query q;
		pv_query_init(&q);
		q.view = kinds[k];
		struct pv_view *v;
		if ((rc = pv_view_compute(p, &q, &v, &err)) == 0) {
			/* a call-graph profile's views come from its graph (doc/callgraph.md) */
			for (uint32_t c = 0; c < v->nr_metrics && !p->callgraph.nr_nodes; c++)
				if (v->stat[c] == PV_STAT_SUM && v->metrics[c] < p->metrics.len)
					check_total("a view's whole", p, v->metrics[c],
						    v->whole[c]);
			struct pv_print_opts po = {.json = k == 1};
			pv_print_view(null, v, &po);
			pv_view_free(v);
		} else {
			said("a view", rc, &err);
		}
		pv_query_release(&q);
	}
	/* markers: derived, every one as the table and the tooltip show it, searched, summarized */
	struct pv_markers *ms = NULL;
	if (null && (rc = pv_markers_derive(p, &ms, &err)) != 0)
		said("the markers", rc, &err);
	if (null && rc == 0) {
		struct pv_marker_search *s = NULL;
		struct pv_marker_select sel = {.order = PV_MARKERS_BY_DURATION};
		uint32_t *idx = NULL, n = 0;
		if (pv_marker_search_new("a,-cat:b,name:e,x:1", &s) == 0) {
			sel.search = s;
			if (pv_marker_select(ms, &sel, &idx, &n) == 0)
				pv_print_markers(null, ms, idx, n, false);
			pv_free_indexes(idx);
			pv_marker_search_free(s);
		}
		sel.search = NULL;
		if (pv_marker_select(ms, &sel, &idx, &n) == 0) {
			pv_print_markers(null, ms, idx, n, true);
			for (uint32_t i = 0; i < n && i < 64; i++)
				pv_print_marker(null, ms, idx[i], i & 1);
		}
		pv_free_indexes(idx);
		struct pv_marker_summary_row *rows;
		uint32_t nr;
		if (pv_marker_summary(ms, NULL, &rows, &nr) == 0) {
			pv_print_marker_summary(null, rows, nr, false);
			pv_marker_summary_free(rows);
		}
		pv_markers_free(ms);
	}
	if (null)
		fclose(null);
	pv_profile_free(p);
	return 0;
}

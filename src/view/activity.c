/*
 * activity.c - the timeline's per-thread graphs (pv/graphs.h): one pass over each listed
 * thread's samples into a dense bucket-by-category accumulator, kept as sparse cells.
 */
#include <string.h>

#include "base/alloc.h"
#include "pv/graphs.h"
#include "pv/info.h"

void pv_activity_free(struct pv_activity *a)
{
	if (!a)
		return;
	pv_free(a->thread);
	pv_free(a->samples);
	pv_free(a->cell_first);
	pv_free(a->cell_category);
	pv_free(a->cell_cost);
	pv_free(a->marker);
	pv_free(a);
}

/* The samples that count in q's view (its tree): pv_view_compute_keep's selection. */
static int kept_samples(const struct pv_profile *p, const struct pv_query *q, uint8_t **keep,
			struct pv_error *err)
{
	struct pv_query vq;
	struct pv_view *v = NULL;
	if (pv_query_copy(&vq, q))
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	vq.view = PV_VIEW_TREE;
	int rc = pv_view_compute_keep(p, &vq, &v, NULL, keep, err);
	pv_view_free(v);
	pv_query_release(&vq);
	return rc;
}

/* Appends a cell; returns 0 or PV_ENOMEM. */
static int cell_add(struct pv_activity *a, uint32_t *cap, uint32_t n, uint32_t c, int64_t v)
{
	if (n == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 256;
		uint32_t *cc = pv_realloc(a->cell_category, nc * sizeof(*cc));
		if (cc)
			a->cell_category = cc;
		int64_t *cv = pv_realloc(a->cell_cost, nc * sizeof(*cv));
		if (cv)
			a->cell_cost = cv;
		if (!cc || !cv || nc < *cap)
			return PV_ENOMEM;
		*cap = nc;
	}
	a->cell_category[n] = c;
	a->cell_cost[n] = v;
	return 0;
}

/* The samples of each thread by bucket and leaf category. */
static int cells(struct pv_activity *a, const struct pv_profile *p, pv_metric_ix metric,
		 const uint8_t *keep, const pv_cat_ix *leaf, pv_cat_ix none)
{
	uint32_t nb = a->buckets, ncat = a->nr_categories, cap = 0, n = 0;
	uint64_t *acc = pv_calloc((size_t)nb * ncat, sizeof(*acc));
	a->cell_first = pv_malloc(((size_t)a->nr_threads * nb + 1) * sizeof(*a->cell_first));
	if (!acc || !a->cell_first) {
		pv_free(acc);
		return PV_ENOMEM;
	}
	double span = (double)pv_time_diff(a->end_ns, a->start_ns);
	int rc = 0;
	for (uint32_t k = 0; k < a->nr_threads && !rc; k++) {
		pv_thread_ix t = a->thread[k];
		memset(acc, 0, (size_t)nb * ncat * sizeof(*acc));
		for (uint32_t x = p->threads.sample_begin[t]; x < p->threads.sample_end[t]; x++) {
			int64_t tm = pv_sample_time(p, x);
			if (tm == PV_TIME_NONE || tm < a->start_ns || tm >= a->end_ns || !keep[x])
				continue;
			pv_stack_ix st = p->samples.stack[x];
			uint32_t c = st == PV_NONE ? none : leaf[st];
			uint32_t b = (uint32_t)((double)pv_time_diff(tm, a->start_ns) * nb / span);
			if (b >= nb)
				b = nb - 1;
			acc[(size_t)b * ncat + c] += (uint64_t)pv_sample_weight(p, metric, x);
			a->samples[k]++;
		}
		for (uint32_t b = 0; b < nb && !rc; b++) {
			a->cell_first[(size_t)k * nb + b] = n;
			for (uint32_t c = 0; c < ncat && !rc; c++) {
				int64_t v = (int64_t)acc[(size_t)b * ncat + c];
				if (v && !(rc = cell_add(a, &cap, n, c, v)))
					n++;
			}
		}
	}
	a->cell_first[(size_t)a->nr_threads * nb] = n;
	pv_free(acc);
	return rc;
}

/* The markers of the listed threads in the window that the timeline overview shows. */
static int track_markers(struct pv_activity *a, const struct pv_markers *ms)
{
	const struct pv_profile *p = a->p;
	uint32_t len = p->threads.len ? p->threads.len : 1, n = 0;
	uint32_t *per = pv_calloc(len, sizeof(*per));
	uint8_t *listed = pv_calloc(len, 1);
	uint32_t *cand = pv_malloc((ms->len ? ms->len : 1) * sizeof(*cand));
	uint8_t *shown = pv_malloc(ms->len ? ms->len : 1);
	int rc = per && listed && cand && shown ? 0 : PV_ENOMEM;
	for (uint32_t k = 0; !rc && k < a->nr_threads; k++)
		listed[a->thread[k]] = 1;
	for (uint32_t i = 0; !rc && i < ms->len; i++) {
		int64_t e = ms->end_ns[i] == PV_TIME_NONE ? ms->start_ns[i] : ms->end_ns[i];
		if (listed[ms->thread[i]] && ms->start_ns[i] < a->end_ns && e >= a->start_ns)
			cand[n++] = i;
	}
	if (!rc)
		rc = pv_markers_displayed(ms, PV_DISPLAY_TIMELINE_OVERVIEW, cand, n, shown);
	for (uint32_t k = 0; !rc && k < n; k++) {
		pv_thread_ix t = ms->thread[cand[k]];
		if (shown[k] && per[t] < PV_ACTIVITY_MARKERS) {
			per[t]++;
			cand[a->nr_markers++] = cand[k];
		}
	}
	pv_free(per);
	pv_free(listed);
	pv_free(shown);
	a->marker = cand;
	return rc;
}

int64_t pv_activity_end(const struct pv_profile *p)
{
	int64_t lo, hi;
	pv_profile_span(p, &lo, &hi);
	return pv_time_add(hi, p->meta.interval_ns > 0 ? p->meta.interval_ns : 1);
}

int pv_activity_build(const struct pv_profile *p, const struct pv_markers *ms,
		      const struct pv_query *q, const struct pv_activity_opts *o,
		      struct pv_activity **out, struct pv_error *err)
{
	int64_t lo, hi;
	bool timed = pv_profile_span(p, &lo, &hi);
	int64_t start = o->has_start ? o->start_ns : lo;
	int64_t end = o->has_end ? o->end_ns : pv_activity_end(p);
	if (end <= start)
		return pv_error_set(err, PV_EINVAL, "end must be after start");
	/* the first metric */
	pv_metric_ix metric = p->metrics.len ? p->meta.default_metric : PV_NONE;
	if (q->nr_metrics)
		metric = pv_metric_find(p, q->metrics[0]);
	if (metric == PV_NONE || metric >= p->metrics.len)
		return pv_error_set(err, PV_EINVAL, "no metric named '%.200s'",
				    q->nr_metrics ? q->metrics[0] : "");
	struct pv_activity *a = pv_calloc(1, sizeof(*a));
	if (!a)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	a->p = p;
	a->start_ns = start;
	a->end_ns = end;
	a->buckets = o->buckets;
	a->timed = timed;
	uint8_t *keep = NULL;
	pv_cat_ix *leaf = NULL;
	int rc = pv_thread_select(p, (const char *const *)q->threads, q->nr_threads, &a->thread,
				  &a->nr_threads, err);
	if (rc)
		goto done;
	if (!(a->samples = pv_calloc(a->nr_threads ? a->nr_threads : 1, sizeof(uint64_t)))) {
		rc = pv_error_set(err, PV_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = kept_samples(p, q, &keep, err)))
		goto done;
	/* the leaf category of every stack (a frame without one inherits its caller's); none is
	 * the profile's "Other" category, else one more listed after the profile's */
	pv_cat_ix none = p->categories.len;
	for (uint32_t c = 0; c < p->categories.len && none == p->categories.len; c++)
		if (strcmp(pv_str(p, p->categories.name[c]), "Other") == 0)
			none = c;
	if (!(leaf = pv_stack_leaf_categories(p, none))) {
		rc = pv_error_set(err, PV_ENOMEM, "out of memory");
		goto done;
	}
	/* the extra "Other" is listed when some sample of the threads needs it */
	for (uint32_t k = 0; k < a->nr_threads && !a->other && none == p->categories.len; k++)
		for (uint32_t x = p->threads.sample_begin[a->thread[k]];
		     x < p->threads.sample_end[a->thread[k]] && !a->other; x++)
			a->other = p->samples.stack[x] == PV_NONE ||
				   leaf[p->samples.stack[x]] == p->categories.len;
	a->nr_categories = p->categories.len + 1; /* the accumulator's: the extra one included */
	if ((rc = cells(a, p, metric, keep, leaf, none)) || (rc = track_markers(a, ms)))
		rc = pv_error_set(err, PV_ENOMEM, "out of memory");
	a->nr_categories = p->categories.len + a->other;
done:
	pv_free(leaf);
	pv_free_keep(keep);
	if (rc) {
		pv_activity_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

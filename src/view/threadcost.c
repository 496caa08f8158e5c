/*
 * threadcost.c - the cost of one row of a view on each of its threads (pv/rows.h).
 */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "view/naming.h"

void pv_thread_costs_free(struct pv_thread_costs *tc)
{
	if (!tc)
		return;
	pv_free(tc->thread);
	pv_free(tc->known);
	pv_free(tc->total);
	pv_free(tc->self);
	pv_free(tc);
}

/*
 * The sample mask of the query base centered on row r's call path (2: the row is the sample's
 * leaf, 1: below it), when r is a row of a plain top-down function tree whose path names it
 * alone; NULL otherwise (and on an error: the caller then computes a view per thread).
 */
static uint8_t *path_mask(const struct pv_view *v, const struct pv_query *base,
			  const struct pv_row_ref *ref, bool *oom)
{
	const struct pv_tree *t = ref->tree;
	if (!t || t != v->tree || v->q.view != PV_VIEW_TREE || v->q.by != PV_BY_FUNCTION)
		return NULL;
	struct row_names names = {0};
	struct sbuf path = SBUF_INIT;
	uint8_t *mask = NULL;
	if (path_unambiguous(v, &names, t, ref->row, oom) &&
	    path_of(v, &names, t, ref->row, &path, oom) != NO_PATH && !*oom) {
		struct pv_query cq;
		struct pv_view *cv = NULL;
		struct pv_error err;
		struct sbuf scope = SBUF_INIT;
		if (pv_query_copy(&cq, base) == 0) {
			for (uint32_t c = 0; c < cq.nr_center; c++)
				pv_free(cq.center[c]);
			cq.nr_center = 0;
			cq.view = PV_VIEW_TREE;
			if (!sbuf_puts(&scope, "path:") && !sbuf_put(&scope, path.buf, path.len) &&
			    pv_query_add_center(&cq, sbuf_str(&scope)) == 0 &&
			    pv_view_compute_keep(v->p, &cq, &cv, NULL, &mask, &err) != 0)
				mask = NULL;
			pv_view_free(cv);
			pv_query_release(&cq);
		}
		sbuf_release(&scope);
	}
	sbuf_release(&path);
	row_names_release(&names);
	return mask;
}

int pv_thread_costs(const struct pv_view *v, const struct pv_query *q, const char *key,
		    const struct pv_row_ref *ref, struct pv_thread_costs **out)
{
	const struct pv_profile *p = v->p;
	uint32_t nm = v->nr_metrics;
	uint32_t n = v->nr_threads < PV_THREAD_COSTS_MAX ? v->nr_threads : PV_THREAD_COSTS_MAX;
	struct pv_thread_costs *tc = pv_calloc(1, sizeof(*tc));
	if (!tc)
		return PV_ENOMEM;
	tc->nr_threads = n;
	tc->truncated = v->nr_threads > n;
	tc->nr_metrics = nm;
	tc->thread = pv_malloc((n ? n : 1) * sizeof(*tc->thread));
	tc->known = pv_malloc(n ? n : 1);
	tc->total = pv_calloc((size_t)(n ? n : 1) * nm, sizeof(int64_t));
	tc->self = pv_calloc((size_t)(n ? n : 1) * nm, sizeof(int64_t));
	if (!tc->thread || !tc->known || !tc->total || !tc->self) {
		pv_thread_costs_free(tc);
		return PV_ENOMEM;
	}
	/* the per-thread queries: q without its threads, the view the key was found in */
	struct pv_query base = *q, tq;
	base.nr_threads = 0;
	base.view = v->q.view;
	bool oom = false;
	uint8_t *mask = path_mask(v, &base, ref, &oom);
	int rc = 0;
	for (uint32_t i = 0; i < n && !rc; i++) {
		pv_thread_ix t = v->threads[i];
		int64_t *tot = tc->total + (size_t)i * nm, *self = tc->self + (size_t)i * nm;
		char tname[32];
		snprintf(tname, sizeof(tname), "#%u", t); /* the one thread of index t */
		tc->thread[i] = t;
		tc->known[i] = 1;
		if (mask) {
			for (uint32_t x = p->threads.sample_begin[t]; x < p->threads.sample_end[t];
			     x++) {
				if (!mask[x])
					continue;
				for (uint32_t m = 0; m < nm; m++) {
					int64_t wgt = pv_sample_weight(p, v->metrics[m], x);
					tot[m] += wgt;
					if (mask[x] == 2)
						self[m] += wgt;
				}
			}
		} else if (p->threads.sample_end[t] > p->threads.sample_begin[t]) {
			struct pv_view *tv = NULL;
			struct pv_error err;
			pv_query_init(&tq);
			if (pv_query_copy(&tq, &base) || pv_query_add_thread(&tq, tname)) {
				rc = PV_ENOMEM;
			} else if (pv_view_compute(p, &tq, &tv, &err)) {
				/* not expected: "#N" always picks the thread */
				rc = err.code == PV_ENOMEM ? PV_ENOMEM : 0;
				tc->known[i] = 0;
			} else {
				struct pv_row_ref tf;
				if (pv_view_find(tv, key, &tf)) {
					int64_t *const *ct =
					    tf.tree ? tf.tree->total : tv->flat->total;
					int64_t *const *cs =
					    tf.tree ? tf.tree->self : tv->flat->self;
					for (uint32_t m = 0; m < nm; m++) {
						tot[m] = ct[m][tf.row];
						self[m] = cs[m][tf.row];
					}
				}
			}
			pv_view_free(tv);
			pv_query_release(&tq);
		}
		for (uint32_t m = 0; m < nm; m++) /* no derived metric per thread (hpcviewer) */
			if (pv_view_metric_derived(v, m))
				tot[m] = self[m] = PV_VALUE_NONE;
	}
	pv_free_keep(mask);
	if (rc) {
		pv_thread_costs_free(tc);
		return rc;
	}
	*out = tc;
	return 0;
}

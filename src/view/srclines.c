/*
 * srclines.c - what the source pane shows beside a file's lines (pv/rows.h): each line's costs
 * from a line-granularity list, and the lines where the query's center functions are defined.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/vec.h"
#include "pv/rows.h"
#include "view/internal.h"

void pv_source_costs_free(struct pv_source_costs *sc)
{
	if (!sc)
		return;
	pv_free(sc->has);
	pv_free(sc->func);
	pv_free(sc->cost);
	pv_free(sc);
}

int pv_source_costs(const struct pv_view *v, pv_source_ix id, uint32_t nr_lines,
		    struct pv_source_costs **out)
{
	const struct pv_profile *p = v->p;
	uint32_t nm = v->nr_metrics;
	struct pv_source_costs *sc = pv_calloc(1, sizeof(*sc));
	if (!sc)
		return PV_ENOMEM;
	sc->nr_lines = nr_lines;
	sc->nr_metrics = nm;
	sc->cost = pv_calloc((size_t)(nr_lines + 1) * 2 * nm, sizeof(*sc->cost));
	sc->has = pv_calloc((size_t)nr_lines + 1, 1);
	sc->func = pv_malloc(((size_t)nr_lines + 1) * sizeof(*sc->func));
	if (!sc->cost || !sc->has || !sc->func) {
		pv_source_costs_free(sc);
		return PV_ENOMEM;
	}
	const struct pv_flat *f = v->flat;
	for (uint32_t ln = 0; ln <= nr_lines; ln++)
		sc->func[ln] = PV_NONE;
	for (uint32_t r = 0; f && r < f->len; r++) {
		uint32_t fn = f->id[r], ln = f->line[r];
		if (f->kind[r] != PV_ROW_LINE || fn >= p->funcs.len ||
		    pv_func_source(p, fn) != id || ln == 0 || ln > nr_lines)
			continue;
		if (!sc->has[ln])
			sc->func[ln] = fn;
		sc->has[ln] = 1;
		for (uint32_t m = 0; m < nm; m++) {
			sc->cost[((size_t)ln * nm + m) * 2] += f->total[m][r];
			sc->cost[((size_t)ln * nm + m) * 2 + 1] += f->self[m][r];
		}
	}
	for (uint32_t m = 0; m < nm; m++) /* no line sums of a formula's values */
		if (pv_view_metric_derived(v, m))
			for (uint32_t ln = 0; ln <= nr_lines; ln++)
				sc->cost[((size_t)ln * nm + m) * 2] =
				    sc->cost[((size_t)ln * nm + m) * 2 + 1] = PV_VALUE_NONE;
	*out = sc;
	return 0;
}

uint32_t pv__view_summed_metric(const struct pv_view *v)
{
	for (uint32_t m = 0; m < v->nr_metrics; m++)
		if (!pv_view_metric_derived(v, m))
			return m;
	return PV_NONE;
}

int pv__view_keep(const struct pv_profile *p, const struct pv_query *q, uint8_t **keep,
		  pv_metric_ix *metric, struct pv_error *err)
{
	struct pv_view *v = NULL;
	*keep = NULL;
	*metric = PV_NONE;
	int rc = pv_view_compute_keep(p, q, &v, NULL, keep, err);
	if (!rc) {
		uint32_t col = pv__view_summed_metric(v);
		*metric = col == PV_NONE ? PV_NONE : v->metrics[col];
	}
	pv_view_free(v);
	return rc;
}

int pv_source_ranking(const struct pv_view *v, pv_source_ix **ids, uint32_t *n)
{
	const struct pv_profile *p = v->p;
	const struct pv_flat *f = v->flat;
	uint32_t m = pv__view_summed_metric(v), ns = p->sources.len;
	*ids = NULL;
	*n = 0;
	if (!f || m == PV_NONE || !ns)
		return 0;
	int64_t *self = pv_calloc(ns, sizeof(*self));
	uint8_t *has = pv_calloc(ns, 1);
	pv_source_ix *out = pv_malloc(ns * sizeof(*out));
	if (!self || !has || !out) {
		pv_free(self);
		pv_free(has);
		pv_free(out);
		return PV_ENOMEM;
	}
	for (uint32_t r = 0; r < f->len; r++) { /* the rows pv_source_costs counts */
		uint32_t fn = f->id[r];
		if (f->kind[r] != PV_ROW_LINE || fn >= p->funcs.len || !f->line[r] ||
		    pv_func_source(p, fn) >= ns)
			continue;
		self[pv_func_source(p, fn)] += f->self[m][r];
		has[pv_func_source(p, fn)] = 1;
	}
	uint32_t k = 0;
	for (pv_source_ix s = 0; s < ns; s++)
		if (has[s])
			out[k++] = s;
	/* insertion sort, heaviest first, then by id: a profile names few files with costs */
	for (uint32_t i = 1; i < k; i++) {
		pv_source_ix s = out[i];
		uint32_t j = i;
		while (j && self[out[j - 1]] < self[s]) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = s;
	}
	pv_free(self);
	pv_free(has);
	if (!k) {
		pv_free(out);
		out = NULL;
	}
	*ids = out;
	*n = k;
	return 0;
}

int pv_source_center_lines(const struct pv_profile *p, const struct pv_query *q, pv_source_ix id,
			   uint32_t **lines, uint32_t *n)
{
	*lines = NULL;
	*n = 0;
	uint8_t *mark = pv_calloc(p->funcs.len ? p->funcs.len : 1, 1);
	if (!mark)
		return PV_ENOMEM;
	for (uint32_t c = 0; c < q->nr_center; c++)
		pv_scope_functions(p, q->center[c], mark);
	uint32_t cnt = 0;
	for (pv_func_ix f = 0; f < p->funcs.len; f++)
		cnt += mark[f] && pv_func_source(p, f) == id && pv_func_line(p, f);
	uint32_t *v = cnt ? pv_malloc(cnt * sizeof(*v)) : NULL;
	if (cnt && !v) {
		pv_free(mark);
		return PV_ENOMEM;
	}
	uint32_t last = 0;
	for (;;) { /* the next line above last: the file's center functions are few */
		uint32_t next = UINT32_MAX;
		for (pv_func_ix f = 0; f < p->funcs.len; f++) {
			uint32_t ln = pv_func_line(p, f);
			if (mark[f] && pv_func_source(p, f) == id && ln > last && ln < next)
				next = ln;
		}
		if (next == UINT32_MAX)
			break;
		v[(*n)++] = next;
		last = next;
	}
	pv_free(mark);
	*lines = v;
	return 0;
}

/* ---- the addresses of a file's lines ---- */

void pv_source_addrs_free(struct pv_source_addrs *sa)
{
	if (!sa)
		return;
	pv_free(sa->n);
	pv_free(sa->lo);
	pv_free(sa->hi);
	pv_free(sa->hot);
	pv_free(sa->hot_self);
	pv_free(sa);
}

static int line_addr_cmp(const void *a, const void *b)
{
	const struct pv__line_addr *x = a, *y = b;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int pv__leaf_addrs(const struct pv_profile *p, const uint8_t *keep, pv_source_ix id,
		   uint32_t nr_lines, const uint8_t *mark, pv_metric_ix m, struct vec *out)
{
	for (uint32_t s = 0; s < p->samples.len; s++) {
		pv_stack_ix st = p->samples.stack[s];
		if (!keep[s] || st == PV_NONE)
			continue;
		pv_frame_ix f = p->stacks.frame[st];
		uint64_t a = pv__sample_leaf_addr(p, s, f);
		uint32_t ln = pv_frame_line(p, f);
		if (a == PV_ADDR_NONE ||
		    (mark ? !mark[p->frames.func[f]]
			  : !ln || ln > nr_lines || pv_func_source(p, p->frames.func[f]) != id))
			continue;
		struct pv__line_addr *la = vec_push(out, sizeof(*la));
		if (!la)
			return PV_ENOMEM;
		*la = (struct pv__line_addr){ln, a, pv_sample_weight(p, m, s)};
	}
	if (out->len)
		qsort(out->p, out->len, sizeof(struct pv__line_addr), line_addr_cmp);
	return 0;
}

int pv_source_addrs(const struct pv_profile *p, const struct pv_query *q, pv_source_ix id,
		    uint32_t nr_lines, struct pv_source_addrs **out, struct pv_error *err)
{
	*out = NULL;
	if (!pv__has_addrs(p))
		return 0;
	uint8_t *keep;
	pv_metric_ix metric;
	int rc = pv__view_keep(p, q, &keep, &metric, err);
	if (rc)
		return rc;
	struct vec lv = {0};
	rc = metric == PV_NONE ? 0 : pv__leaf_addrs(p, keep, id, nr_lines, NULL, metric, &lv);
	const struct pv__line_addr *la = VEC(lv, struct pv__line_addr);
	uint32_t n = lv.len;
	pv_free_keep(keep);
	struct pv_source_addrs *sa = rc ? NULL : pv_calloc(1, sizeof(*sa));
	size_t nl = (size_t)nr_lines + 1;
	if (sa) {
		sa->nr_lines = nr_lines;
		sa->n = pv_calloc(nl, sizeof(*sa->n));
		sa->lo = pv_calloc(nl, sizeof(*sa->lo));
		sa->hi = pv_calloc(nl, sizeof(*sa->hi));
		sa->hot = pv_calloc(nl, sizeof(*sa->hot));
		sa->hot_self = pv_calloc(nl, sizeof(*sa->hot_self));
	}
	if (!sa || !sa->n || !sa->lo || !sa->hi || !sa->hot || !sa->hot_self) {
		vec_free(&lv);
		pv_source_addrs_free(sa);
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < n;) { /* one run per (line, address) */
		uint32_t ln = la[i].line, k = i;
		int64_t self = 0;
		while (k < n && la[k].line == ln && la[k].addr == la[i].addr)
			self += la[k++].self;
		if (!sa->n[ln]++) {
			sa->lo[ln] = la[i].addr;
			sa->hot[ln] = la[i].addr;
			sa->hot_self[ln] = self;
		} else if (self > sa->hot_self[ln]) {
			sa->hot[ln] = la[i].addr;
			sa->hot_self[ln] = self;
		}
		sa->hi[ln] = la[i].addr;
		i = k;
	}
	vec_free(&lv);
	*out = sa;
	return 0;
}

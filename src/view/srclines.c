/*
 * srclines.c - what the source pane shows beside a file's lines (pv/rows.h): each line's costs
 * from a line-granularity list, and the lines where the query's center functions are defined.
 */
#include <string.h>

#include "base/alloc.h"
#include "pv/rows.h"

void pv_source_costs_free(struct pv_source_costs *sc)
{
	if (!sc)
		return;
	pv_free(sc->has);
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
	if (!sc->cost || !sc->has) {
		pv_source_costs_free(sc);
		return PV_ENOMEM;
	}
	const struct pv_flat *f = v->flat;
	for (uint32_t r = 0; f && r < f->len; r++) {
		uint32_t fn = f->id[r], ln = f->line[r];
		if (f->kind[r] != PV_ROW_LINE || fn >= p->funcs.len || p->funcs.source[fn] != id ||
		    ln == 0 || ln > nr_lines)
			continue;
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
		cnt += mark[f] && p->funcs.source[f] == id && p->funcs.line[f];
	uint32_t *v = cnt ? pv_malloc(cnt * sizeof(*v)) : NULL;
	if (cnt && !v) {
		pv_free(mark);
		return PV_ENOMEM;
	}
	uint32_t last = 0;
	for (;;) { /* the next line above last: the file's center functions are few */
		uint32_t next = UINT32_MAX;
		for (pv_func_ix f = 0; f < p->funcs.len; f++) {
			uint32_t ln = p->funcs.line[f];
			if (mark[f] && p->funcs.source[f] == id && ln > last && ln < next)
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

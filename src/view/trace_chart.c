/*
 * trace_chart.c - the stack chart as drawn (pv/trace.h, pv_trace_chart): the depth view's
 * boxes of a context, at most one a pixel column and depth, so that what a page draws and what
 * it receives grow with its width, not with the samples of the window.
 */
#include <math.h>

#include "base/alloc.h"
#include "pv/trace.h"

/* The first column whose middle, t0 + (x + 1/2) span / width, is at or after time. */
static uint32_t first_column(int64_t time, int64_t t0, int64_t span, uint32_t width)
{
	double x = ceil((double)(time - t0) * width / (double)span - 0.5);
	return x <= 0 ? 0 : x >= width ? width : (uint32_t)x;
}

struct chart {
	int64_t t0, span;
	uint32_t width;
	struct pv_trace_chart_box *v;
	uint32_t n, cap;
	uint32_t *run; /* per depth: the index of its open run of narrow boxes, or UINT32_MAX */
	uint32_t nrun;
};

/* A box of the walk (each depth's in time order) into the chart: dropped when it holds no
 * column's middle, added to its depth's open run when it is narrow and the run ends where its
 * columns start, else a chart box of its own (and the depth's open run when narrow). */
static int chart_box(void *arg, const struct pv_trace_box *b)
{
	struct chart *ch = arg;
	uint32_t xa = first_column(b->start, ch->t0, ch->span, ch->width);
	uint32_t xb = first_column(b->end, ch->t0, ch->span, ch->width);
	if (xa >= xb)
		return 0;
	if (b->depth >= ch->nrun) {
		uint32_t nr = b->depth + 16;
		uint32_t *g = pv_realloc(ch->run, (size_t)nr * sizeof(*g));
		if (!g)
			return PV_ENOMEM;
		for (uint32_t d = ch->nrun; d < nr; d++)
			g[d] = UINT32_MAX;
		ch->run = g;
		ch->nrun = nr;
	}
	bool narrow = (double)(b->end - b->start) * ch->width < (double)ch->span;
	uint32_t r = ch->run[b->depth];
	if (narrow && r != UINT32_MAX && ch->v[r].x1 == xa) {
		struct pv_trace_chart_box *o = &ch->v[r];
		o->end = b->end;
		o->x1 = xb;
		o->n++;
		if (o->func != b->func)
			o->func = PV_NONE;
		return 0;
	}
	if (ch->n == ch->cap) {
		uint32_t nc = ch->cap ? ch->cap * 2 : 1024;
		struct pv_trace_chart_box *g = pv_realloc(ch->v, (size_t)nc * sizeof(*g));
		if (!g)
			return PV_ENOMEM;
		ch->v = g;
		ch->cap = nc;
	}
	ch->run[b->depth] = narrow ? ch->n : UINT32_MAX;
	ch->v[ch->n++] = (struct pv_trace_chart_box){.start = b->start,
						     .end = b->end,
						     .depth = b->depth,
						     .x0 = xa,
						     .x1 = xb,
						     .func = b->func,
						     .stack = b->stack,
						     .n = 1};
	return 0;
}

/* The chart's boxes by depth (a stable counting sort: each depth's stay in time order). */
static struct pv_trace_chart_box *by_depth(const struct chart *ch)
{
	uint32_t *at = pv_calloc((size_t)ch->nrun + 1, sizeof(*at));
	struct pv_trace_chart_box *o = pv_malloc((size_t)(ch->n ? ch->n : 1) * sizeof(*o));
	if (at && o) {
		for (uint32_t i = 0; i < ch->n; i++)
			at[ch->v[i].depth + 1]++;
		for (uint32_t d = 0; d < ch->nrun; d++)
			at[d + 1] += at[d];
		for (uint32_t i = 0; i < ch->n; i++)
			o[at[ch->v[i].depth]++] = ch->v[i];
	} else {
		pv_free(o);
		o = NULL;
	}
	pv_free(at);
	return o;
}

int pv_trace_chart(const struct pv_trace_paint *pt, uint32_t c, int64_t t0, int64_t t1,
		   uint32_t width, struct pv_trace_chart_box **out, uint32_t *n,
		   struct pv_error *err)
{
	if (width == 0 || width > (1u << 20))
		return pv_error_set(err, PV_EINVAL,
				    "a stack chart %u pixels wide: it needs 1 to %u", width,
				    1u << 20);
	struct chart ch = {.t0 = t0, .span = t1 - t0, .width = width};
	int rc = pv_trace_boxes_each(pt, c, t0, t1, 0, chart_box, &ch, err);
	struct pv_trace_chart_box *o = rc ? NULL : by_depth(&ch);
	pv_free(ch.v);
	pv_free(ch.run);
	if (rc)
		return rc == PV_ENOMEM ? pv_error_set(err, PV_ENOMEM, "out of memory") : rc;
	if (!o)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	*out = o;
	*n = ch.n;
	return 0;
}

void pv_free_chart(struct pv_trace_chart_box *b)
{
	pv_free(b);
}

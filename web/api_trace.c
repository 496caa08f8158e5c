/*
 * api_trace.c - the trace view's endpoints (doc/trace.md, doc/api.md):
 *   trace?p=&t0=&t1=&c0=&c1=&width=&height=&depth=[&records=1][&query]   a window: functions,
 *                                         shares, rows as runs [id, count, ...], summary (and
 *                                         each context's records: the busiest is opened first)
 *   trace-stack?p=&context=&at=[&query]                      the call stack there
 *   trace-boxes?p=&context=&t0=&t1=&min=&depth=[&compact=1][&query]  the depth view's boxes
 *   trace-boxes?p=&context=&t0=&t1=&width=&depth=[&known=ID:N][&query]  the stack chart as
 *                                         drawn, width px (known=: only the names the page lacks)
 *   trace-boxes?...&width=&box-depth=D&box-x=X  its box at depth D, column X: exact times
 * Times are ns from the profile's zero; context C is the query's C-th thread (all threads
 * without a thread filter), as in `profview trace`. The browser never gets the records.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "pv/trace.h"

/* The slot's trace: opened on first use and kept with the slot (as its markers). */
static const struct pv_trace *slot_trace(struct pv_api *a, struct api_slot *s, struct pv_json *out,
					 int *status)
{
	pthread_mutex_lock(&a->lock);
	struct pv_trace *t = s->trace;
	pthread_mutex_unlock(&a->lock);
	if (t)
		return t;
	struct pv_error err;
	pv_error_clear(&err);
	if (pv_trace_open(s->p, &t, &err)) {
		*status = api_error(out, 500, "%s", err.msg);
		return NULL;
	}
	pthread_mutex_lock(&a->lock);
	if (s->trace) {
		pv_trace_free(t); /* another request opened it meanwhile */
		t = s->trace;
	} else {
		s->trace = t;
	}
	pthread_mutex_unlock(&a->lock);
	return t;
}

static void paint_free_obj(void *pt)
{
	pv_trace_paint_free(pt);
}

/* The paint of q at depth on trace t of the request's slot, from the cache (a zoom step of the
 * stack chart asks the same query again: its paint, a view of the query's filters, is made
 * once) or made and kept. Release with paint_release. */
static int paint_get(struct pv_api *a, const struct api_params *ps, const struct pv_trace *t,
		     const struct pv_query *q, uint32_t depth, struct pv_trace_paint **paint,
		     struct pv_json *out)
{
	uint32_t slot = api_slot_index(ps);
	char *url = pv_query_to_url(q);
	size_t n = url ? strlen(url) + 32 : 0;
	char *key = url ? malloc(n) : NULL;
	if (!key) {
		free(url);
		return api_error(out, 500, "out of memory");
	}
	snprintf(key, n, "trace-paint:%u:%s", depth, url);
	free(url);
	if ((*paint = api_cache_take(a, slot, key))) {
		free(key);
		return 0;
	}
	struct pv_error err;
	pv_error_clear(&err);
	int rc = pv_trace_paint_new(t, q, depth, paint, &err);
	if (rc) {
		free(key);
		return api_error(out, rc == PV_ENOMEM ? 500 : 400, "%s", err.msg);
	}
	*paint = api_cache_keep(a, slot, key, *paint, paint_free_obj);
	return 0;
}

static void paint_release(struct pv_api *a, struct pv_trace_paint *pt)
{
	api_cache_release(a, pt, paint_free_obj);
}

/* The slot's trace and, unless paint is NULL, its paint for the request's query q and depth
 * (release with paint_release; the trace lives with the slot). */
static int trace_open(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		      struct pv_json *out, const struct pv_trace **t, struct pv_trace_paint **paint)
{
	int status = 0;
	struct api_slot *s = api_slot(a, ps, out, &status);
	if (!s)
		return status;
	if (!(*t = slot_trace(a, s, out, &status)))
		return status;
	if (!paint)
		return 0;
	uint32_t depth;
	if (!api_param_u32(ps, "depth", 0, &depth, out, &status))
		return status;
	/* depth is the call depth here (an own parameter), not the query's tree depth */
	return paint_get(a, ps, *t, q, depth, paint, out);
}

int api_trace(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
	      struct pv_json *out)
{
	const struct pv_trace *t = NULL;
	struct pv_trace_paint *pt = NULL;
	int status = trace_open(a, ps, q, out, &t, &pt);
	if (!status) {
		int64_t start, end;
		pv_trace_range(t, &start, &end);
		struct pv_trace_window w;
		struct pv_error err;
		uint32_t records;
		if (api_param_i64(ps, "t0", start, &w.t0, out, &status) &&
		    api_param_i64(ps, "t1", end > start ? end : start + 1, &w.t1, out, &status) &&
		    api_param_u32(ps, "c0", 0, &w.c0, out, &status) &&
		    api_param_u32(ps, "c1", pv_trace_paint_contexts(pt), &w.c1, out, &status) &&
		    api_param_u32(ps, "width", 800, &w.width, out, &status) &&
		    api_param_u32(ps, "height", 400, &w.height, out, &status) &&
		    api_param_u32(ps, "records", 0, &records, out, &status)) {
			struct pv_trace_print o = {
			    .json = true, .runs = true, .summary = true, .records = records != 0};
			int rc = pv_json_trace_window(out, pt, &w, &o, &err);
			status =
			    rc ? api_error(out, rc == PV_ENOMEM ? 500 : 400, "%s", err.msg) : 200;
		}
	}
	paint_release(a, pt);
	return status;
}

int api_trace_stack(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		    struct pv_json *out)
{
	const struct pv_trace *t = NULL;
	struct pv_trace_paint *pt = NULL;
	int status = trace_open(a, ps, q, out, &t, &pt);
	uint32_t c;
	int64_t at;
	if (!status && api_param_u32(ps, "context", 0, &c, out, &status) &&
	    api_param_i64(ps, "at", 0, &at, out, &status)) {
		if (c >= pv_trace_paint_contexts(pt))
			status = api_error(out, 400, "context %u: the query has %u", c,
					   pv_trace_paint_contexts(pt));
		else
			status = pv_json_trace_stack(out, pt, c, at)
				     ? api_error(out, 500, "out of memory")
				     : 200;
	}
	paint_release(a, pt);
	return status;
}

/* The names the chart's boxes b, n need that a page holding the first known of the slot's log
 * lacks (under the api lock): the functions of b not yet sent join the log, and *named (to free)
 * gets the log's entries from known, *nnamed their count; ids[0] the log's id, ids[1] its
 * length. PV_ENOMEM. */
static int names_after(struct pv_api *a, struct api_slot *s, const struct pv_trace_chart_box *b,
		       uint32_t n, uint32_t log, uint32_t known, pv_func_ix **named,
		       uint32_t *nnamed, uint32_t ids[2])
{
	int rc = PV_ENOMEM;
	pthread_mutex_lock(&a->lock);
	struct api_names *l = s->names;
	if (!l && (l = calloc(1, sizeof(*l)))) {
		l->sent = calloc(s->p->funcs.len ? s->p->funcs.len : 1, 1);
		l->id = ((uint32_t)time(NULL) * 2654435761u ^ (uint32_t)getpid()) & 0x7fffffff;
		if (l->sent)
			s->names = l;
		else
			l = (free(l), NULL);
	}
	for (uint32_t i = 0; l && i < n; i++) {
		pv_func_ix f = b[i].func;
		if (f == PV_NONE || l->sent[f])
			continue;
		if (l->len == l->cap) {
			uint32_t nc = l->cap ? l->cap * 2 : 1024;
			uint32_t *g = realloc(l->order, (size_t)nc * sizeof(*g));
			if (!g)
				goto out;
			l->order = g;
			l->cap = nc;
		}
		l->sent[f] = 1;
		l->order[l->len++] = f;
	}
	if (l) {
		if (log != l->id || known > l->len)
			known = 0; /* another log's count: from the start */
		*nnamed = l->len - known;
		if ((*named = malloc((size_t)(*nnamed ? *nnamed : 1) * sizeof(**named)))) {
			memcpy(*named, l->order + known, (size_t)*nnamed * sizeof(**named));
			ids[0] = l->id;
			ids[1] = l->len;
			rc = 0;
		}
	}
out:
	pthread_mutex_unlock(&a->lock);
	return rc;
}

/* The stack chart as drawn (trace-boxes?width=): with known=ID:N, only the names the page
 * lacks (names_after); with box-depth=&box-x=, the one box there with its exact times. */
static int chart_answer(struct pv_api *a, const struct api_params *ps,
			const struct pv_trace_paint *pt, uint32_t c, int64_t t0, int64_t t1,
			uint32_t width, struct pv_json *out)
{
	struct pv_error err;
	pv_error_clear(&err);
	int status = 0, rc;
	uint32_t bd, bx;
	if (!api_param_u32(ps, "box-depth", UINT32_MAX, &bd, out, &status) ||
	    !api_param_u32(ps, "box-x", 0, &bx, out, &status))
		return status;
	const char *known = api_param(ps, "known");
	uint32_t log = 0, k = 0;
	char tail;
	if (known && sscanf(known, "%u:%u%c", &log, &k, &tail) != 2)
		return api_error(out, 400, "known=%s: expected ID:COUNT (the names log's)", known);
	if (bd != UINT32_MAX) {
		rc = pv_json_trace_chart_box(out, pt, c, t0, t1, width, bd, bx, &err);
	} else if (!known) {
		rc = pv_json_trace_chart(out, pt, c, t0, t1, width, &err);
	} else {
		struct pv_trace_chart_box *b = NULL;
		pv_func_ix *named = NULL;
		uint32_t n = 0, nnamed = 0, ids[2];
		rc = pv_trace_chart(pt, c, t0, t1, width, &b, &n, &err);
		if (!rc && names_after(a, api_slot_at(a, api_slot_index(ps)), b, n, log, k, &named,
				       &nnamed, ids))
			rc = pv_error_set(&err, PV_ENOMEM, "out of memory");
		if (!rc)
			rc = pv_json_trace_chart_named(out, pt, c, t0, t1, width, b, n, named,
						       nnamed, ids, &err);
		free(named);
		pv_free_chart(b);
	}
	return rc ? api_error(out, rc == PV_ENOMEM ? 500 : 400, "%s", err.msg) : 200;
}

int api_trace_boxes(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		    struct pv_json *out)
{
	const struct pv_trace *t = NULL;
	struct pv_trace_paint *pt = NULL;
	int status = trace_open(a, ps, q, out, &t, &pt);
	uint32_t c, compact, width;
	int64_t t0, t1, min_ns, start = 0, end = 0;
	if (t)
		pv_trace_range(t, &start, &end);
	if (!status && api_param_u32(ps, "context", 0, &c, out, &status) &&
	    api_param_i64(ps, "t0", start, &t0, out, &status) &&
	    api_param_i64(ps, "t1", end, &t1, out, &status) &&
	    api_param_i64(ps, "min", 0, &min_ns, out, &status) &&
	    api_param_u32(ps, "compact", 0, &compact, out, &status) &&
	    api_param_u32(ps, "width", 0, &width, out, &status)) {
		struct pv_error err;
		/* width: the stack chart as drawn (at most a box a pixel column and depth) */
		if (width) {
			status = chart_answer(a, ps, pt, c, t0, t1, width, out);
		} else {
			int rc =
			    pv_json_trace_boxes(out, pt, c, t0, t1, min_ns, compact != 0, &err);
			status =
			    rc ? api_error(out, rc == PV_ENOMEM ? 500 : 400, "%s", err.msg) : 200;
		}
	}
	paint_release(a, pt);
	return status;
}

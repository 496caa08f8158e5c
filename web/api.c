/*
 * api.c - the JSON API of `profview serve` (doc/api.md): the dispatch (a request's parameters
 * split and its query parsed once, before its handler runs), and the status, profile, marker
 * and activity endpoints. The state is in state.c, the parameters in params.c.
 *
 * Every answer is computed and written by the library (pv_profile_info, pv_marker_select,
 * pv_marker_chart, pv_activity_build, ... and their pv_json_* writers), so the page and the
 * CLI's --json agree. A handler writes its body through a memory JSON writer; on an error,
 * api_error() replaces whatever the handler had written by {"error": "..."}.
 */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "pv/marker_sel.h"
#include "pv/source.h"
#include "pv/trace.h"

#define JSON_TYPE "application/json; charset=utf-8"

/* ---- status and profile ---- */

int api_status(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
	       struct pv_json *out)
{
	(void)ps, (void)q; /* no parameters */
	pthread_mutex_lock(&a->lock);
	uint32_t n = a->nr_slots;
	struct api_slot **slots = malloc((n ? n : 1) * sizeof(*slots));
	if (slots && n)
		memcpy(slots, a->slots, n * sizeof(*slots));
	pthread_mutex_unlock(&a->lock);
	int *states = malloc((n ? n : 1) * sizeof(*states));
	if (!slots || !states) {
		free(slots);
		free(states);
		return api_error(out, 500, "out of memory");
	}
	int st[3] = {0};
	for (uint32_t i = 0; i < n; i++) {
		states[i] = atomic_load(&slots[i]->state);
		st[states[i] < 3 && states[i] >= 0 ? states[i] : 0]++;
	}
	static const char *const names[] = {"loading", "ready", "failed"};
	pv_json_object(out);
	pv_json_kstr(out, "state",
		     st[API_FAILED]    ? "failed"
		     : st[API_LOADING] ? "loading"
				       : "ready");
	pv_json_key(out, "files");
	pv_json_open(out, '[', PV_JSON_LINES, 2);
	for (uint32_t i = 0; i < n; i++) {
		struct api_slot *s = slots[i];
		int ph =
		    states[i] == API_READY ? PV_PROGRESS_DONE : atomic_load(&s->progress.phase);
		pv_json_object(out);
		pv_json_kstr(out, "path", s->path);
		pv_json_kstr(out, "state", names[states[i]]);
		pv_json_kstr(out, "phase", api_phase_name(ph));
		pv_json_kuint(out, "done", atomic_load(&s->progress.done));
		pv_json_kuint(out, "total", atomic_load(&s->progress.total));
		pv_json_key(out, "error");
		if (states[i] == API_FAILED)
			pv_json_str(out, s->error ? s->error : "out of memory");
		else
			pv_json_null(out);
		pv_json_end(out);
	}
	pv_json_end(out);
	pv_json_end(out);
	pv_json_eol(out);
	free(slots);
	free(states);
	return 200;
}

/* The folders a slot's source files are looked up beneath: the profile's own folder (made
 * absolute, so the working directory never matters later) and --source-root; their count. */
int api_profile(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		struct pv_json *out)
{
	(void)q; /* no query: the dispatcher took none */
	int status = 200;
	struct api_slot *s = api_slot(a, ps, out, &status);
	if (!s)
		return status;
	const struct pv_profile *p = s->p;
	struct pv_profile_info *in;
	if (pv_profile_info(p, &in))
		return api_error(out, 500, "out of memory");
	const struct pv_markers *ms = api_markers(a, s, NULL, &status);
	pv_json_object(out);
	pv_json_info(out, in, s->path, PV_INFO_PAGE);
	pv_json_newline(out);
	pv_json_kuint(out, "index", api_slot_index(ps));
	pv_json_kms(out, "start", in->start_ns);
	pv_json_kms(out, "end", in->end_ns);
	pv_json_kms(out, "activity_end", pv_activity_end(p));
	pv_json_kbool(out, "timed", in->timed);
	pv_profile_info_free(in);
	pv_json_key(out, "default_metric");
	if (p->metrics.len)
		pv_json_str(out, pv_str(p, p->metrics.name[p->meta.default_metric]));
	else
		pv_json_null(out);
	pv_json_key(out, "sources");
	pv_json_open(out, '[', PV_JSON_LINES, 2);
	for (uint32_t i = 0; i < p->sources.len; i++) {
		bool readable = api_source_readable(a, s, i);
		pv_json_object(out);
		pv_json_kuint(out, "id", i);
		pv_json_kstr(out, "path", pv_str(p, p->sources.path[i]));
		pv_json_kbool(out, "available", readable);
		pv_json_end(out);
	}
	pv_json_end(out);
	uint32_t names = ms ? pv_marker_names(ms) : 0;
	pv_json_kuint(out, "marker_names", names == PV_NONE ? 0 : names);
	/* serve --base: the profile this one is compared with (the Diff tab); absent without */
	struct api_slot *b =
	    a->base_slot != api_slot_index(ps) ? api_slot_at(a, a->base_slot) : NULL;
	if (b) {
		pv_json_key(out, "base");
		pv_json_object(out);
		pv_json_kuint(out, "index", a->base_slot);
		pv_json_kstr(out, "path", b->path);
		pv_json_end(out);
	}
	pv_json_view_kinds(out);
	pv_json_end(out);
	pv_json_eol(out);
	return 200;
}

/* ---- markers ---- */

/* The terms of the marker endpoints' selection (pv/marker_sel.h): search, thread (repeated),
 * start, end (ms); names holds the thread values. 0 or the status of the error it wrote. */
static int mterms_parse(const struct api_params *ps, struct pv_json *out, struct pv_marker_terms *t,
			const char *names[PV_QUERY_MAX])
{
	int status = 0;
	memset(t, 0, sizeof(*t));
	if (!api_param_ms(ps, "start", &t->has_start, &t->start_ns, out, &status) ||
	    !api_param_ms(ps, "end", &t->has_end, &t->end_ns, out, &status))
		return status;
	uint32_t k = api_param_all(ps, "thread", names, PV_QUERY_MAX);
	if (k > PV_QUERY_MAX)
		return api_error(out, 400, "at most %d thread values", PV_QUERY_MAX);
	t->threads = names;
	t->nr_threads = k;
	t->search = api_param(ps, "search");
	return 0;
}

/* The selection of the request's terms (t: its terms, for the chart's window). */
static int msel_parse(const struct pv_profile *p, const struct api_params *ps, struct pv_json *out,
		      struct pv_marker_terms *t, struct pv_marker_sel *m)
{
	const char *names[PV_QUERY_MAX];
	memset(m, 0, sizeof(*m));
	int status = mterms_parse(ps, out, t, names);
	if (status)
		return status;
	struct pv_error err;
	pv_error_clear(&err);
	int rc = pv_marker_sel_new(p, t, m, &err);
	t->threads = NULL; /* names are this function's */
	if (rc) {
		pv_marker_sel_release(m);
		return api_lib_error(out, rc, &err, 400);
	}
	return 0;
}

int api_markers_table(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		      struct pv_json *out)
{
	(void)q; /* no query: the dispatcher took none */
	int status = 200;
	struct api_slot *s = api_slot(a, ps, out, &status);
	const struct pv_markers *ms = s ? api_markers(a, s, out, &status) : NULL;
	if (!ms)
		return status;
	uint32_t offset, limit;
	if (!api_param_u32(ps, "offset", 0, &offset, out, &status) ||
	    !api_param_u32(ps, "limit", 500, &limit, out, &status))
		return status;
	const char *sort = api_param(ps, "sort");
	enum pv_marker_order order = PV_MARKERS_BY_START;
	if (sort && strcmp(sort, "duration") == 0)
		order = PV_MARKERS_BY_DURATION;
	else if (sort && strcmp(sort, "start") != 0)
		return api_error(out, 400, "sort takes start or duration, not '%.100s'", sort);
	struct pv_marker_terms t;
	struct pv_marker_sel m;
	if ((status = msel_parse(s->p, ps, out, &t, &m)))
		return status;
	m.sel.order = order;
	uint32_t *idx = NULL, n = 0;
	int rc = pv_marker_select(ms, &m.sel, &idx, &n);
	pv_marker_sel_release(&m);
	if (rc)
		return api_error(out, 500, "out of memory");
	uint32_t from = offset < n ? offset : n;
	uint32_t count = n - from < limit ? n - from : limit;
	pv_json_object(out);
	pv_json_kuint(out, "total", n);
	pv_json_kuint(out, "offset", from);
	rc = pv_json_markers(out, ms, idx + from, count);
	pv_json_end(out);
	pv_json_eol(out);
	pv_free_indexes(idx);
	return api_written(out, rc);
}

int api_marker_one(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		   struct pv_json *out)
{
	(void)q; /* no query: the dispatcher took none */
	int status = 200;
	struct api_slot *s = api_slot(a, ps, out, &status);
	const struct pv_markers *ms = s ? api_markers(a, s, out, &status) : NULL;
	if (!ms)
		return status;
	uint32_t i;
	if (!api_param(ps, "i"))
		return api_error(out, 400, "marker needs i (a marker index)");
	if (!api_param_u32(ps, "i", 0, &i, out, &status))
		return status;
	if (i >= ms->len)
		return api_error(out, 404, "no marker %u (the profile has %u)", i, ms->len);
	if (pv_json_marker(out, ms, i))
		return api_error(out, 500, "out of memory");
	pv_json_eol(out);
	return 200;
}

int api_marker_summary(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		       struct pv_json *out)
{
	(void)q; /* no query: the dispatcher took none */
	int status = 200;
	struct api_slot *s = api_slot(a, ps, out, &status);
	const struct pv_markers *ms = s ? api_markers(a, s, out, &status) : NULL;
	if (!ms)
		return status;
	struct pv_marker_terms t;
	struct pv_marker_sel m;
	if ((status = msel_parse(s->p, ps, out, &t, &m)))
		return status;
	uint32_t *idx = NULL, n = 0;
	int rc = pv_marker_select(ms, &m.sel, &idx, &n);
	pv_marker_sel_release(&m);
	uint8_t *keep = rc ? NULL : calloc(ms->len ? ms->len : 1, 1);
	struct pv_marker_summary_row *rows = NULL;
	uint32_t nr = 0;
	for (uint32_t k = 0; keep && k < n; k++)
		keep[idx[k]] = 1;
	pv_free_indexes(idx);
	if (!keep || pv_marker_summary(ms, keep, &rows, &nr)) {
		free(keep);
		return api_error(out, 500, "out of memory");
	}
	free(keep);
	pv_json_object(out);
	pv_json_marker_summary(out, rows, nr);
	pv_json_end(out);
	pv_json_eol(out);
	pv_marker_summary_free(rows);
	return 200;
}

int api_marker_chart(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		     struct pv_json *out)
{
	(void)q; /* no query: the dispatcher took none */
	int status = 200;
	struct api_slot *s = api_slot(a, ps, out, &status);
	const struct pv_markers *ms = s ? api_markers(a, s, out, &status) : NULL;
	if (!ms)
		return status;
	uint32_t width;
	if (!api_param_u32(ps, "width", 1000, &width, out, &status))
		return status;
	if (width == 0 || width > 100000)
		return api_error(out, 400, "width takes 1 to 100000 pixels, not %u", width);
	struct pv_marker_terms t;
	struct pv_marker_sel m;
	if ((status = msel_parse(s->p, ps, out, &t, &m)))
		return status;
	struct pv_error err;
	pv_error_clear(&err);
	int rc = pv_marker_chart_window(s->p, &t, &m, &err);
	if (rc) {
		pv_marker_sel_release(&m);
		return api_lib_error(out, rc, &err, 400);
	}
	struct pv_marker_chart *ch = NULL;
	rc = pv_marker_chart(ms, &m.sel, width, &ch);
	pv_marker_sel_release(&m);
	if (!rc)
		rc = pv_json_marker_chart(out, ms, ch);
	pv_marker_chart_free(ch);
	return api_written(out, rc);
}

int api_activity(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		 struct pv_json *out)
{
	int status = 200;
	struct api_slot *s = api_slot(a, ps, out, &status);
	if (!s)
		return status;
	struct pv_activity_opts o = {0};
	if (!api_param_u32(ps, "buckets", PV_ACTIVITY_BUCKETS, &o.buckets, out, &status) ||
	    !api_param_ms(ps, "start", &o.has_start, &o.start_ns, out, &status) ||
	    !api_param_ms(ps, "end", &o.has_end, &o.end_ns, out, &status))
		return status;
	if (o.buckets == 0 || o.buckets > PV_ACTIVITY_MAX_BUCKETS)
		return api_error(out, 400, "buckets takes 1 to %d, not %u", PV_ACTIVITY_MAX_BUCKETS,
				 o.buckets);
	const struct pv_markers *ms = api_markers(a, s, out, &status);
	struct pv_activity *act = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	int rc = ms ? pv_activity_build(s->p, ms, q, &o, &act, &err) : 0;
	if (!ms)
		return status;
	if (rc)
		return api_lib_error(out, rc, &err, 400);
	rc = pv_json_activity(out, act, ms);
	pv_activity_free(act);
	return api_written(out, rc);
}

/* ---- dispatch ---- */

/*
 * Each endpoint with its own parameters (doc/api.md); query: it reads the query too, which
 * takes every other parameter (an unknown one is its 400). An endpoint without a query answers
 * an unknown parameter with the same error.
 */
#define OWN(...) ((const char *const[]){"p", __VA_ARGS__, NULL})
static const struct api_endpoint endpoints[] = {
    {"status", api_status, false, (const char *const[]){NULL}},
    {"profile", api_profile, false, (const char *const[]){"p", NULL}},
    {"view", api_view, true,
     OWN("offset", "limit", "heaviest", "first", "hot", "hot-percent", "open")},
    {"children", api_children, true, OWN("key", "offset", "limit")},
    {"subtree", api_subtree, true, OWN("key", "prune")},
    {"search", api_search, true, OWN("text", "limit")},
    {"flame", api_flame, true, OWN("max-nodes", "width", "diff", "normalize")},
    {"diff", api_diff, true, OWN("normalize")},
    {"thread-costs", api_thread_costs, true, OWN("key")},
    {"contexts", api_contexts, true,
     OWN("key", "scope", "value", "order", "from", "to", "width", "bins")},
    {"source", api_source, true, OWN("file")},
    {"disasm", api_disasm, true, OWN("file", "line")},
    {"markers", api_markers_table, false,
     OWN("start", "end", "thread", "search", "offset", "limit", "sort")},
    {"marker", api_marker_one, false, OWN("i")},
    {"marker-summary", api_marker_summary, false, OWN("start", "end", "thread", "search")},
    {"marker-chart", api_marker_chart, false, OWN("start", "end", "thread", "search", "width")},
    {"activity", api_activity, true, OWN("buckets", "start", "end")},
    {"trace", api_trace, true, OWN("depth", "t0", "t1", "c0", "c1", "width", "height", "records")},
    {"trace-stack", api_trace_stack, true, OWN("depth", "context", "at")},
    {"trace-boxes", api_trace_boxes, true,
     OWN("depth", "context", "t0", "t1", "min", "compact", "width", "known", "box-depth", "box-x")},
};
#undef OWN

/* An endpoint without a query: a parameter not its own is the query reader's error. */
static int unknown_param(const struct api_params *ps, struct pv_json *out)
{
	for (uint32_t i = 0; i < ps->len; i++)
		if (!api_param_own(ps, ps->key[i]))
			return api_error(out, 400, "unknown query key '%.200s'", ps->key[i]);
	return 0;
}

int api_dispatch(struct pv_api *a, const struct api_endpoint *e, const char *query,
		 struct pv_json *out)
{
	struct api_params ps;
	int rc = api_params_parse(&ps, query);
	if (rc)
		return api_error(out, rc == PV_ENOMEM ? 500 : 400, "%s",
				 rc == PV_ELIMIT   ? "too many parameters"
				 : rc == PV_EPARSE ? "a broken percent escape in the query"
						   : "out of memory");
	ps.own = e->own;
	struct pv_query q;
	pv_query_init(&q);
	int status = e->query ? api_query(&ps, &q, out) : unknown_param(&ps, out);
	if (!status)
		status = e->fn(a, &ps, &q, out);
	pv_query_release(&q);
	api_params_free(&ps);
	return status;
}

static int out_of_memory(char **body, size_t *len)
{
	*body = strdup("{\"error\": \"out of memory\"}");
	*len = *body ? strlen(*body) : 0;
	return 500;
}

int pv_api_call(struct pv_api *a, const char *endpoint, const char *query, char **body, size_t *len,
		const char **content_type)
{
	*content_type = JSON_TYPE;
	*body = NULL;
	*len = 0;
	struct pv_json *out = pv_json_new(NULL);
	if (!out)
		return out_of_memory(body, len);
	size_t e = 0, ne = sizeof(endpoints) / sizeof(endpoints[0]);
	while (endpoint && e < ne && strcmp(endpoints[e].name, endpoint) != 0)
		e++;
	int status = !endpoint || e == ne
			 ? api_error(out, 404, "no endpoint '%.100s'", endpoint ? endpoint : "")
			 : api_dispatch(a, &endpoints[e], query, out);
	*body = pv_json_detach(out, len);
	pv_json_free(out);
	return *body ? status : out_of_memory(body, len);
}

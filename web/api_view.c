/*
 * api_view.c - the view endpoints of the JSON API (doc/api.md): view, children, flame,
 * thread-costs, source, and the difference against the base (serve --base): diff, flame?diff=1.
 *
 * Every answer is cut from one computed view (api_view_get: the view cache) by the library:
 * pv_json_view writes the roots and the children of the open rows only, pv_json_children one
 * row's children, pv_flame_build keeps the heaviest N rows; rows are named by keys
 * (pv/rows.h) that pv_view_find resolves.
 */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "pv/diff.h"
#include "pv/disasm.h"
#include "pv/source.h"

#define FLAT_DEFAULT_LIMIT 500

/* The ready slot of a request and its index. Returns 0, or the status of the error it wrote. */
static int req_slot(struct pv_api *a, const struct api_params *ps, struct pv_json *out,
		    uint32_t *slot, struct api_slot **s)
{
	int status = 0;
	*s = api_slot(a, ps, out, &status);
	if (!*s)
		return status ? status : 500;
	if (!api_param_u32(ps, "p", 0, slot, out, &status))
		return status;
	return 0;
}

/* Into c, q with another view kind (kind >= 0) and granularity (by >= 0): 0, or the status of
 * the error it wrote. Release c when 0. */
static int query_as(const struct pv_query *q, int kind, int by, struct pv_query *c,
		    struct pv_json *out)
{
	if (pv_query_copy(c, q))
		return api_error(out, 500, "out of memory");
	if (kind >= 0)
		c->view = (enum pv_view_kind)kind;
	if (by >= 0)
		c->by = (enum pv_granularity)by;
	return 0;
}

/* The view of q with another view kind and (by >= 0) granularity, through the cache. */
static struct pv_view *view_as(struct pv_api *a, uint32_t slot, const struct pv_query *q,
			       enum pv_view_kind kind, int by, struct pv_json *out, int *status)
{
	struct pv_query c;
	if ((*status = query_as(q, (int)kind, by, &c, out)))
		return NULL;
	struct pv_view *v = api_view_get(a, slot, &c, out, status);
	pv_query_release(&c);
	return v;
}

int api_view(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
	     struct pv_json *out)
{
	struct api_slot *s;
	uint32_t slot;
	int status = req_slot(a, ps, out, &slot, &s);
	struct pv_view_answer ans = {.limit = FLAT_DEFAULT_LIMIT};
	if (status || !api_param_u32(ps, "offset", 0, &ans.offset, out, &status) ||
	    !api_param_u32(ps, "limit", FLAT_DEFAULT_LIMIT, &ans.limit, out, &status) ||
	    !api_param_u32(ps, "heaviest", 0, &ans.heaviest, out, &status))
		return status;
	ans.opened = api_param(ps, "heaviest") != NULL;
	/* first=1: the page's first display, the row it selects (pv_view_first_path) */
	ans.first = api_param(ps, "first") != NULL;
	/* hot=KEY (the page's key h): hpcviewer's hot path from that row, opened from the root */
	ans.hot = api_param(ps, "hot");
	if (ans.hot && !api_param_u32(ps, "hot-percent", 50, &ans.hot_percent, out, &status))
		return status;
	/* trees: limit caps each list of rows (none by default); flat and top: the page size */
	ans.per_parent = api_param(ps, "limit") ? ans.limit : 0;
	struct pv_view *v = api_view_get(a, slot, q, out, &status);
	if (!v)
		return status;
	const char **open = malloc(sizeof(*open) * API_MAX_PARAMS);
	int rc = PV_ENOMEM;
	if (open) {
		ans.nr_open = api_param_all(ps, "open", open, API_MAX_PARAMS);
		if (ans.nr_open > API_MAX_PARAMS)
			ans.nr_open = API_MAX_PARAMS;
		ans.open = open;
		rc = pv_json_view(out, v, &ans);
	}
	free(open);
	api_view_release(a, v);
	return api_written(out, rc);
}

/*
 * The view of the request's query q for a row key (the butterfly for up:/down: keys), with the
 * key; NULL with *status on an error.
 */
static struct pv_view *keyed_view(struct pv_api *a, const struct api_params *ps,
				  const struct pv_query *q, struct pv_json *out, int *status,
				  const char **key)
{
	struct api_slot *s;
	uint32_t slot;
	*status = req_slot(a, ps, out, &slot, &s);
	if (*status)
		return NULL;
	*key = api_param(ps, "key");
	if (!*key) {
		*status = api_error(out, 400, "missing parameter 'key'");
		return NULL;
	}
	return view_as(a, slot, q, pv_view_kind_of_key(q, *key), -1, out, status);
}

/* The answer for a key that names no row of the view: 404. */
static int no_row(struct pv_json *out, const char *key)
{
	return api_error(out, 404, "no row '%s' in this view", key);
}

/* The row key names in v; an empty key (or only up:/down:) names the roots (the pages of a
 * long list of roots). False when none. */
static bool key_ref(const struct pv_view *v, const char *key, struct pv_row_ref *ref)
{
	const char *rest = key, *prefix = "";
	const struct pv_tree *rt = v->flat ? NULL : pv_view_key_tree(v, &rest, &prefix);
	*ref = (struct pv_row_ref){rt, PV_NONE, prefix};
	return (rt && !*rest) || pv_view_find(v, key, ref);
}

struct pv_view *api_view_row(struct pv_api *a, uint32_t slot, const struct pv_query *q,
			     const char *key, const struct pv_tree **t, uint32_t *row,
			     struct pv_json *out, int *status)
{
	struct pv_view *v = view_as(a, slot, q, pv_view_kind_of_key(q, key), -1, out, status);
	struct pv_row_ref ref;
	if (v && !pv_view_find(v, key, &ref)) {
		api_view_release(a, v);
		*status = no_row(out, key);
		return NULL;
	}
	if (v) {
		*t = ref.tree;
		*row = ref.row;
	}
	return v;
}

int api_children(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		 struct pv_json *out)
{
	const char *key;
	int status = 0;
	struct pv_view *v = keyed_view(a, ps, q, out, &status, &key);
	if (!v)
		return status;
	uint32_t offset = 0, limit = 0;
	if (!api_param_u32(ps, "offset", 0, &offset, out, &status) ||
	    !api_param_u32(ps, "limit", 0, &limit, out, &status)) {
		api_view_release(a, v);
		return status;
	}
	struct pv_row_ref ref;
	if (!key_ref(v, key, &ref)) {
		api_view_release(a, v);
		return no_row(out, key);
	}
	int rc = pv_json_children(out, v, key, &ref, offset, limit);
	api_view_release(a, v);
	return api_written(out, rc);
}

/*
 * The difference of q over the request's profile against the base (serve --base), q's view
 * replaced by kind when kind >= 0; normalize=1 compares shares. NULL after writing the error:
 * 404 without a base, 400 for the base itself or a query that does not fit.
 */
static struct pv_diff *req_diff(struct pv_api *a, const struct api_params *ps, uint32_t slot,
				struct api_slot *s, const struct pv_query *q, int kind,
				struct pv_json *out, int *status)
{
	uint32_t norm;
	if (!api_param_u32(ps, "normalize", 0, &norm, out, status))
		return NULL;
	if (norm > 1) {
		*status = api_error(out, 400, "normalize takes 0 or 1, not %u", norm);
		return NULL;
	}
	if (a->base_slot == PV_NONE) {
		*status = api_error(out, 404, "no base profile (profview serve --base BASE FILE)");
		return NULL;
	}
	if (slot == a->base_slot) {
		*status = api_error(out, 400, "profile %u is the base", slot);
		return NULL;
	}
	struct api_slot *b = api_slot_ready(a, a->base_slot, out, status);
	struct pv_query c;
	if (!b || (*status = query_as(q, kind, -1, &c, out)))
		return NULL;
	struct pv_diff *d = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_diff_opts o = {.normalize = norm == 1};
	int rc = pv_diff_compute(b->p, s->p, &c, &o, &d, &err);
	pv_query_release(&c);
	if (rc) {
		*status = api_lib_error(out, rc, &err, 400);
		return NULL;
	}
	return d;
}

int api_diff(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
	     struct pv_json *out)
{
	struct api_slot *s;
	uint32_t slot;
	int status = req_slot(a, ps, out, &slot, &s);
	struct pv_diff *d = status ? NULL : req_diff(a, ps, slot, s, q, -1, out, &status);
	if (!d)
		return status;
	int rc = pv_json_diff(out, d);
	pv_diff_free(d);
	return api_written(out, rc);
}

int api_flame(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
	      struct pv_json *out)
{
	struct api_slot *s;
	uint32_t slot;
	struct pv_flame_opts o;
	int status = req_slot(a, ps, out, &slot, &s);
	if (status || !api_param_u32(ps, "max-nodes", PV_FLAME_NODES, &o.max_nodes, out, &status) ||
	    !api_param_u32(ps, "width", 0, &o.width, out, &status))
		return status;
	if (o.max_nodes == 0 || o.max_nodes > PV_FLAME_MAX_NODES)
		return api_error(out, 400, "max-nodes takes 1 to %u", PV_FLAME_MAX_NODES);
	if (o.width > PV_FLAME_MAX_WIDTH)
		return api_error(out, 400, "width takes 0 to 100000 pixels, not %u", o.width);
	/* one computation gives both graphs of a centered query: the butterfly */
	enum pv_view_kind kind = q->nr_center ? PV_VIEW_BUTTERFLY : PV_VIEW_TREE;
	uint32_t diff;
	if (!api_param_u32(ps, "diff", 0, &diff, out, &status) || diff > 1)
		return status ? status : api_error(out, 400, "diff takes 0 or 1, not %u", diff);
	if (diff) { /* the differential flame graph against the base */
		struct pv_diff *d = req_diff(a, ps, slot, s, q, (int)kind, out, &status);
		if (!d)
			return status;
		struct pv_flame *fl = NULL;
		int rc = pv_diff_flame_build(d, &o, &fl);
		if (!rc)
			rc = pv_json_flame(out, fl);
		pv_flame_free(fl);
		pv_diff_free(d);
		return api_written(out, rc);
	}
	struct pv_view *v = view_as(a, slot, q, kind, -1, out, &status);
	if (!v)
		return status;
	struct pv_flame *fl = NULL;
	int rc = pv_flame_build(v, &o, &fl);
	if (!rc)
		rc = pv_json_flame(out, fl);
	pv_flame_free(fl);
	api_view_release(a, v);
	return api_written(out, rc);
}

int api_thread_costs(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		     struct pv_json *out)
{
	const char *key;
	int status = 0;
	struct pv_view *v = keyed_view(a, ps, q, out, &status, &key);
	struct pv_row_ref ref;
	if (v && !pv_view_find(v, key, &ref))
		status = no_row(out, key);
	struct pv_thread_costs *tc = NULL;
	int rc = v && !status ? pv_thread_costs(v, q, key, &ref, &tc) : 0;
	if (!rc && tc)
		rc = pv_json_thread_costs(out, v, key, &ref, tc);
	pv_thread_costs_free(tc);
	api_view_release(a, v);
	return rc || !status ? api_written(out, rc) : status;
}

/* The source file the pane opens on when none is asked: the hottest one it can read
 * (pv_source_ranking), else the first readable one; PV_NONE when none is. */
static pv_source_ix hottest_source(const struct pv_api *a, const struct api_slot *s,
				   const struct pv_view *v, int *rc)
{
	pv_source_ix *ids = NULL, best = PV_NONE;
	uint32_t n = 0;
	*rc = pv_source_ranking(v, &ids, &n);
	for (uint32_t k = 0; k < n && best == PV_NONE; k++)
		if (api_source_readable(a, s, ids[k]))
			best = ids[k];
	free(ids);
	for (pv_source_ix i = 0; i < s->p->sources.len && best == PV_NONE && !*rc; i++)
		if (api_source_readable(a, s, i))
			best = i;
	return best;
}

int api_source(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
	       struct pv_json *out)
{
	struct api_slot *s;
	uint32_t slot, id = PV_NONE;
	int status = req_slot(a, ps, out, &slot, &s);
	if (status)
		return status;
	const struct pv_profile *p = s->p;
	const char *fp = api_param(ps, "file");
	if (fp && *fp &&
	    (!pv_key_number(&fp, &id) || *fp || id >= p->sources.len ||
	     !*pv_str(p, p->sources.path[id])))
		return api_error(out, 404, "no such source file");
	/* per-line costs: the query at line granularity, one row per (function, line) */
	struct pv_view *v = view_as(a, slot, q, PV_VIEW_TOP, PV_BY_LINE, out, &status);
	int rc = 0;
	if (v && id == PV_NONE) { /* no file asked: the hottest */
		id = hottest_source(a, s, v, &rc);
		if (!rc && id == PV_NONE)
			status =
			    api_error(out, 404, "no source file of the profile is readable here");
	}
	char *data = NULL;
	size_t len = 0;
	if (v && !rc && !status) {
		const char *path = pv_str(p, p->sources.path[id]);
		char dir[4096];
		const char *roots[2];
		uint32_t nr = api_source_roots(a, s, dir, sizeof(dir), roots);
		if (pv_source_read(path, roots, nr, API_SOURCE_MAX, &data, &len))
			status = api_error(out, 404, "cannot read source file '%s'", path);
		else
			rc = pv_json_source(out, v, q, id, data, len);
	}
	free(data);
	api_view_release(a, v);
	return rc || !status ? api_written(out, rc) : status;
}

/* disasm?<query>&file=ID&line=N: the instructions of a source line's functions (pv_disasm_line);
 * disasm?<query> alone: those of the function with the most self cost at addresses (the source
 * pane when no source file is readable); a binary that is missing is a note of the answer, not
 * an error */
int api_disasm(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
	       struct pv_json *out)
{
	struct api_slot *s;
	uint32_t slot, id = 0, line = 0;
	int status = req_slot(a, ps, out, &slot, &s);
	bool hottest = !api_param(ps, "file") && !api_param(ps, "line");
	if (!status && !hottest && !api_param(ps, "file"))
		status = api_error(out, 400, "missing parameter 'file'");
	if (!status && !hottest && !api_param(ps, "line"))
		status = api_error(out, 400, "missing parameter 'line'");
	if (status || (!hottest && (!api_param_u32(ps, "file", 0, &id, out, &status) ||
				    !api_param_u32(ps, "line", 0, &line, out, &status))))
		return status;
	(void)slot;
	const struct pv_profile *p = s->p;
	if (!hottest && id >= p->sources.len)
		return api_error(out, 404, "no such source file");
	struct pv_disasm *d = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_disasm_opts opts = {.stop = &a->stop};
	int rc = hottest ? pv_disasm_funcs(p, q, NULL, &opts, &d, &err)
			 : pv_disasm_line(p, q, id, line, &opts, &d, &err);
	if (rc == PV_ENOMEM || !d) {
		pv_disasm_free(d);
		return api_written(out, rc ? rc : PV_ENOMEM);
	}
	if (rc) {
		pv_disasm_free(d);
		return api_error(out, 400, "%s", err.msg);
	}
	rc = pv_json_disasm(out, p, d);
	pv_disasm_free(d);
	return api_written(out, rc);
}

/* search?<query>&text=TEXT&limit=N: the whole-profile search (pv_find_functions) */
int api_search(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
	       struct pv_json *out)
{
	struct api_slot *s;
	uint32_t slot, limit;
	int status = req_slot(a, ps, out, &slot, &s);
	const char *text = api_param(ps, "text");
	if (!status && (!text || !*text))
		status = api_error(out, 400, "missing parameter 'text'");
	if (!status && api_param_u32(ps, "limit", 50, &limit, out, &status) &&
	    (limit < 1 || limit > PV_SEARCH_LIMIT_MAX))
		status = api_error(out, 400, "limit takes 1 to %d rows, not %u",
				   PV_SEARCH_LIMIT_MAX, limit);
	if (status)
		return status;
	/* the totals: the list at function granularity; the rows to open: the top-down tree */
	struct pv_view *top = view_as(a, slot, q, PV_VIEW_TOP, PV_BY_FUNCTION, out, &status);
	struct pv_view *tree = top ? view_as(a, slot, q, PV_VIEW_TREE, -1, out, &status) : NULL;
	if (!tree) {
		api_view_release(a, top);
		return status;
	}
	struct pv_find *fd = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	int rc = pv_find_functions(top, tree, text, limit, &fd, &err);
	if (rc == PV_EINVAL) {
		/* a scope that names nothing or does not parse: no match, and why */
		pv_json_object(out);
		pv_json_kstr(out, "text", text);
		pv_json_kuint(out, "matches", 0);
		pv_json_kstr(out, "note", err.msg);
		pv_json_key(out, "rows");
		pv_json_array(out);
		pv_json_end(out);
		pv_json_end(out);
		pv_json_eol(out);
		rc = 0;
	} else if (!rc) {
		rc = pv_json_find(out, top, tree, text, fd);
	}
	pv_find_free(fd);
	api_view_release(a, top);
	api_view_release(a, tree);
	return api_written(out, rc);
}

/* subtree?<query>&key=KEY&prune=P: expand-all of one row, rows under P percent (of the view's
 * base; default 0.005) left closed (pv_json_subtree) */
int api_subtree(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		struct pv_json *out)
{
	const char *key;
	int status = 0;
	struct pv_view *v = keyed_view(a, ps, q, out, &status, &key);
	if (!v)
		return status;
	const char *pp = api_param(ps, "prune");
	char *end = NULL;
	double prune = pp ? strtod(pp, &end) : 0.005;
	if (pp && (end == pp || *end || !(prune >= 0 && prune <= 100))) {
		api_view_release(a, v);
		return api_error(out, 400, "prune takes a percentage from 0 to 100, not '%.40s'",
				 pp);
	}
	struct pv_row_ref ref;
	if (!key_ref(v, key, &ref)) {
		api_view_release(a, v);
		return no_row(out, key);
	}
	int64_t min_total = (int64_t)((double)v->base[0] * prune / 100.0);
	int rc = pv_json_subtree(out, v, key, &ref, min_total);
	api_view_release(a, v);
	return api_written(out, rc);
}

/*
 * api_contexts.c - the contexts endpoint (doc/api.md): one row's values over the execution
 * contexts, reduced to what the page draws (include/pv/contexts.h).
 *
 *   contexts?p=&<query>&key=KEY|scope=SCOPE&value=total|self&order=index|value
 *           &from=&to=&width=&bins=
 *
 * The row: key names a row of a top-down tree of the query (the tree, the butterfly's callees),
 * found by its path; scope=SCOPE takes the scope as the query's center (how the page asks for a
 * bottom-up or list row); neither: the query's center (the whole without one). The plot's window is
 * positions [from, to) of the order (default: every context), reduced to at most width pixel
 * columns (default 1000), each [min, max, context of min, context of max, first, n]. The histogram
 * has bins bins (default 20) of the same values.
 */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "pv/contexts.h"
#include "pv/format.h"

#define COLUMNS_MAX 10000
#define BINS_MAX    1000

/* The answer, in one place: the summary, the window's columns, the histogram, the names. */
static void write_contexts(struct pv_json *j, const struct pv_contexts *c,
			   const struct pv_contexts_plot *pl)
{
	const struct pv_profile *p = c->p;
	pv_json_object(j);
	pv_json_kstr(j, "row", c->name);
	pv_json_key(j, "metric");
	pv_json_object(j);
	pv_json_kstr(j, "name", pv_str(p, p->metrics.name[c->metric]));
	pv_json_kstr(j, "unit", pv_unit_name((enum pv_unit)p->metrics.unit[c->metric]));
	struct pv_cost_unit cu;
	pv_cost_unit(pv_str(p, p->metrics.name[c->metric]),
		     (enum pv_unit)p->metrics.unit[c->metric], c->summary[PV_CTX_INCLUSIVE].sum,
		     &cu);
	pv_json_key(j, "shown");
	pv_json_cost_unit(j, &cu);
	pv_json_end(j);
	pv_json_key(j, "note");
	pv_json_str_or_null(j, c->note);
	pv_json_kstr(j, "value", pl->which == PV_CTX_EXCLUSIVE ? "self" : "total");
	pv_json_kstr(j, "order", pl->order ? "value" : "index");
	pv_json_kuint(j, "contexts", c->len);
	pv_json_kuint(j, "from", pl->from);
	pv_json_kuint(j, "to", pl->to);
	pv_json_key(j, "summary");
	pv_json_object(j);
	pv_json_key(j, "total");
	pv_json_contexts_summary(j, &c->summary[PV_CTX_INCLUSIVE]);
	pv_json_key(j, "self");
	pv_json_contexts_summary(j, &c->summary[PV_CTX_EXCLUSIVE]);
	pv_json_end(j);
	pv_json_key(j, "columns");
	pv_json_array(j);
	for (uint32_t k = 0; k < pl->nr_cols; k++) {
		const struct pv_ctx_column *col = &pl->cols[k];
		pv_json_array(j);
		pv_json_int(j, col->min);
		pv_json_int(j, col->max);
		pv_json_uint(j, c->thread[col->at_min]);
		pv_json_uint(j, c->thread[col->at_max]);
		pv_json_uint(j, col->first);
		pv_json_uint(j, col->n);
		pv_json_end(j);
	}
	pv_json_end(j);
	pv_json_key(j, "histogram");
	pv_json_object(j);
	pv_json_kuint(j, "bins", pl->bins);
	pv_json_kint(j, "min", c->summary[pl->which].min);
	pv_json_key(j, "width");
	pv_json_real(j, pl->bin_width, 12);
	pv_json_key(j, "counts");
	pv_json_array(j);
	for (uint32_t b = 0; b < pl->bins; b++)
		pv_json_uint(j, pl->count[b]);
	pv_json_end(j);
	/* each bin's contexts when they are few enough to be a thread filter */
	pv_json_key(j, "threads");
	pv_json_array(j);
	for (uint32_t b = 0; b < pl->bins; b++) {
		if (pl->count[b] > PV_QUERY_MAX) {
			pv_json_null(j);
			continue;
		}
		pv_json_array(j);
		for (uint32_t i = 0; i < c->len && pl->count[b]; i++)
			if (pl->bin[i] == b)
				pv_json_uint(j, c->thread[i]);
		pv_json_end(j);
	}
	pv_json_end(j);
	pv_json_end(j);
	/* the names of the contexts the columns name (hover, click) */
	pv_json_key(j, "names");
	pv_json_object(j);
	for (uint32_t k = 0; k < pl->nr_cols; k++) {
		const struct pv_ctx_column *col = &pl->cols[k];
		for (int e = 0; e < 2; e++) {
			uint32_t i = e ? col->at_max : col->at_min;
			if (e && col->at_max == col->at_min)
				break;
			char id[16];
			snprintf(id, sizeof(id), "%u", c->thread[i]);
			pv_json_kstr(j, id, pv_str(p, p->threads.name[c->thread[i]]));
		}
	}
	pv_json_end(j);
	pv_json_end(j);
	pv_json_eol(j);
}

/* The path of the top-down row key names, from the query's top-down tree. */
static int row_of_key(struct pv_api *a, uint32_t slot, const struct pv_query *q, const char *key,
		      struct pv_row_step **path, uint32_t *depth, struct pv_json *out)
{
	const struct pv_tree *t = NULL;
	uint32_t row = PV_NONE;
	int status = 0;
	struct pv_view *v = api_view_row(a, slot, q, key, &t, &row, out, &status);
	if (!v)
		return status;
	bool top_down =
	    t && t == v->tree && (v->q.view == PV_VIEW_TREE || v->q.view == PV_VIEW_BUTTERFLY);
	if (top_down) {
		*depth = t->depth[row] + 1;
		*path = malloc(*depth * sizeof(**path));
		if (*path)
			pv_tree_row_path(t, row, *path, *depth);
		else
			status = api_error(out, 500, "out of memory");
		api_view_release(a, v);
		return status;
	}
	api_view_release(a, v);
	/* a bottom-up or list row has no path from a root: the page asks for its scope instead */
	return api_error(out, 400,
			 "row '%.200s' is not a row of a top-down tree: ask for its scope "
			 "(scope=SCOPE)",
			 key);
}

int api_contexts(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		 struct pv_json *out)
{
	int status = 0;
	struct api_slot *s = api_slot(a, ps, out, &status);
	if (!s)
		return status ? status : 500;
	uint32_t slot = 0, from = 0, to = UINT32_MAX, width = 1000, bins = 20;
	if (!api_param_u32(ps, "p", 0, &slot, out, &status) ||
	    !api_param_u32(ps, "from", 0, &from, out, &status) ||
	    !api_param_u32(ps, "to", UINT32_MAX, &to, out, &status) ||
	    !api_param_u32(ps, "width", 1000, &width, out, &status) ||
	    !api_param_u32(ps, "bins", 20, &bins, out, &status))
		return status;
	if (width < 1 || width > COLUMNS_MAX || bins < 1 || bins > BINS_MAX)
		return api_error(out, 400, "width is 1 to %d and bins 1 to %d", COLUMNS_MAX,
				 BINS_MAX);
	const char *value = api_param(ps, "value"), *order = api_param(ps, "order");
	if (value && strcmp(value, "total") != 0 && strcmp(value, "self") != 0)
		return api_error(out, 400, "value is total or self, not '%.100s'", value);
	if (order && strcmp(order, "index") != 0 && strcmp(order, "value") != 0)
		return api_error(out, 400, "order is index or value, not '%.100s'", order);
	const char *key = api_param(ps, "key"), *scope = api_param(ps, "scope");
	struct pv_row_step *path = NULL;
	uint32_t depth = 0;
	struct pv_query scoped; /* scope=: q centered on the scope instead */
	pv_query_init(&scoped);
	if (key && scope)
		status = api_error(out, 400, "key or scope, not both");
	else if (key)
		status = row_of_key(a, slot, q, key, &path, &depth, out);
	else if (scope) {
		bool oom = pv_query_copy(&scoped, q) != 0;
		for (uint32_t i = 0; i < scoped.nr_center; i++)
			free(scoped.center[i]);
		scoped.nr_center = 0;
		if (oom || pv_query_add_center(&scoped, scope))
			status = api_error(out, 500, "out of memory");
	}
	struct pv_contexts *c = NULL;
	struct pv_error err;
	if (!status) {
		int rc = pv_contexts_compute(s->p, scope ? &scoped : q, path, depth, &c, &err);
		if (rc)
			status = api_error(out, rc == PV_ENOMEM ? 500 : 400, "%s", err.msg);
	}
	free(path);
	pv_query_release(&scoped);
	if (status)
		return status;
	struct pv_contexts_plot_opts po = {
	    .which = value && strcmp(value, "self") == 0 ? PV_CTX_EXCLUSIVE : PV_CTX_INCLUSIVE,
	    .by_value = order && strcmp(order, "value") == 0,
	    .from = from,
	    .to = to,
	    .width = width,
	    .bins = bins,
	};
	struct pv_contexts_plot pl;
	if (pv_contexts_plot(c, &po, &pl)) {
		status = api_error(out, 500, "out of memory");
	} else {
		write_contexts(out, c, &pl);
		status = pv_json_error(out) ? api_error(out, 500, "out of memory") : 200;
		pv_contexts_plot_release(&pl);
	}
	pv_contexts_free(c);
	return status;
}

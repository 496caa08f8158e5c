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

#include "pv/contexts.h"
#include "pv/format.h"
#include "web/api.h"

#define COLUMNS_MAX 10000
#define BINS_MAX    1000

struct plot {
	enum pv_ctx_value which;
	const uint32_t *order; /* NULL: index order */
	uint32_t from, to, nr_cols, bins;
	const struct pv_ctx_column *cols;
	const uint32_t *count, *bin;
	double width;
};

/* The answer, in one place: the summary, the window's columns, the histogram, the names. */
static void write_contexts(FILE *out, const struct pv_contexts *c, const struct plot *pl)
{
	const struct pv_profile *p = c->p;
	fputs("{\"row\": ", out);
	pv_json_string(out, c->name);
	fputs(", \"metric\": {\"name\": ", out);
	pv_json_string(out, pv_str(p, p->metrics.name[c->metric]));
	fputs(", \"unit\": ", out);
	pv_json_string(out, pv_unit_name((enum pv_unit)p->metrics.unit[c->metric]));
	fputs("}, \"note\": ", out);
	if (c->note)
		pv_json_string(out, c->note);
	else
		fputs("null", out);
	fprintf(out,
		", \"value\": \"%s\", \"order\": \"%s\", \"contexts\": %u, \"from\": %u, "
		"\"to\": %u, \"summary\": {\"total\": ",
		pl->which == PV_CTX_EXCLUSIVE ? "self" : "total", pl->order ? "value" : "index",
		c->len, pl->from, pl->to);
	pv_contexts_summary_json(out, &c->summary[PV_CTX_INCLUSIVE]);
	fputs(", \"self\": ", out);
	pv_contexts_summary_json(out, &c->summary[PV_CTX_EXCLUSIVE]);
	fputs("}, \"columns\": [", out);
	for (uint32_t k = 0; k < pl->nr_cols; k++) {
		const struct pv_ctx_column *col = &pl->cols[k];
		fprintf(out, "%s[%lld, %lld, %u, %u, %u, %u]", k ? ", " : "", (long long)col->min,
			(long long)col->max, c->thread[col->at_min], c->thread[col->at_max],
			col->first, col->n);
	}
	/* each bin's contexts when they are few enough to be a thread filter */
	fprintf(out,
		"], \"histogram\": {\"bins\": %u, \"min\": %lld, \"width\": %.12g, \"counts\": [",
		pl->bins, (long long)c->summary[pl->which].min, pl->width);
	for (uint32_t b = 0; b < pl->bins; b++)
		fprintf(out, "%s%u", b ? ", " : "", pl->count[b]);
	fputs("], \"threads\": [", out);
	for (uint32_t b = 0; b < pl->bins; b++) {
		fputs(b ? ", " : "", out);
		if (pl->count[b] > PV_QUERY_MAX || !pl->count[b]) {
			fputs(pl->count[b] ? "null" : "[]", out);
			continue;
		}
		fputc('[', out);
		for (uint32_t i = 0, n = 0; i < c->len; i++)
			if (pl->bin[i] == b)
				fprintf(out, "%s%u", n++ ? ", " : "", c->thread[i]);
		fputc(']', out);
	}
	/* the names of the contexts the columns name (hover, click) */
	fputs("]}, \"names\": {", out);
	bool first = true;
	for (uint32_t k = 0; k < pl->nr_cols; k++) {
		const struct pv_ctx_column *col = &pl->cols[k];
		for (int e = 0; e < 2; e++) {
			uint32_t i = e ? col->at_max : col->at_min;
			if (e && col->at_max == col->at_min)
				break;
			fprintf(out, "%s\"%u\": ", first ? "" : ", ", c->thread[i]);
			pv_json_string(out, pv_str(p, p->threads.name[c->thread[i]]));
			first = false;
		}
	}
	fputs("}}\n", out);
}

/* The path of the top-down row key names, from the query's top-down tree. */
static int row_of_key(struct pv_api *a, uint32_t slot, const struct pv_query *q, const char *key,
		      struct pv_row_step **path, uint32_t *depth, FILE *out)
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

int api_contexts(struct pv_api *a, const struct api_params *ps, FILE *out)
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
	struct pv_query q;
	pv_query_init(&q);
	if ((status = api_query(ps, &q, out)))
		return status;
	const char *key = api_param(ps, "key"), *scope = api_param(ps, "scope");
	struct pv_row_step *path = NULL;
	uint32_t depth = 0;
	if (key && scope)
		status = api_error(out, 400, "key or scope, not both");
	else if (key)
		status = row_of_key(a, slot, &q, key, &path, &depth, out);
	else if (scope) {
		for (uint32_t i = 0; i < q.nr_center; i++)
			free(q.center[i]);
		q.nr_center = 0;
		if (pv_query_add_center(&q, scope))
			status = api_error(out, 500, "out of memory");
	}
	struct pv_contexts *c = NULL;
	struct pv_error err;
	if (!status) {
		int rc = pv_contexts_compute(s->p, &q, path, depth, &c, &err);
		if (rc)
			status = api_error(out, rc == PV_ENOMEM ? 500 : 400, "%s", err.msg);
	}
	free(path);
	pv_query_release(&q);
	if (status)
		return status;
	struct plot pl = {
	    .which = value && strcmp(value, "self") == 0 ? PV_CTX_EXCLUSIVE : PV_CTX_INCLUSIVE,
	    .from = from < c->len ? from : c->len,
	    .to = to < c->len ? to : c->len,
	    .bins = bins,
	};
	size_t n = c->len ? c->len : 1;
	uint32_t *ord = malloc(n * sizeof(*ord)), *bin = malloc(n * sizeof(*bin));
	uint32_t *count = malloc(bins * sizeof(*count));
	struct pv_ctx_column *cols = malloc((size_t)width * sizeof(*cols));
	if (!ord || !bin || !count || !cols) {
		status = api_error(out, 500, "out of memory");
	} else {
		if (order && strcmp(order, "value") == 0) {
			pv_contexts_sort(c, pl.which, ord);
			pl.order = ord;
		}
		if (pl.to < pl.from)
			pl.to = pl.from;
		pl.nr_cols =
		    pv_contexts_columns(c, pl.which, pl.order, pl.from, pl.to, width, cols);
		pl.cols = cols;
		pl.width = pv_contexts_histogram(c, pl.which, bins, count, bin);
		pl.count = count;
		pl.bin = bin;
		write_contexts(out, c, &pl);
		status = 200;
	}
	free(ord);
	free(bin);
	free(count);
	free(cols);
	pv_contexts_free(c);
	return status;
}

/*
 * cmd_view.c - the view commands: one per row of the view-kind table (pv_view_kinds: tree,
 * callers, flat, butterfly, top), each printing the query's view as text or --json.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pv/format.h"
#include "pv/view.h"
#include "say.h"

/* "all threads (3)" or "threads: GeckoMain 1234" for the header */
static void threads_label(const struct pv_view *v, const struct cli *c, char *buf, size_t len)
{
	if (!c->q.nr_threads) {
		snprintf(buf, len, "all threads (%u)", v->p->threads.len);
		return;
	}
	size_t used = (size_t)snprintf(buf, len, "threads:");
	for (uint32_t i = 0; i < c->q.nr_threads && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, " %s", c->q.threads[i]);
}

/*
 * --range-from-marker and --center-from-marker: the marker's interval becomes the range, its
 * cause stack a path center (function names from the root, path:a;b;c).
 */
static int resolve_markers(const char *path, const struct pv_profile *p, const struct cli *c,
			   struct pv_query *q)
{
	struct pv_markers *ms;
	uint32_t n;
	int rc;
	if (c->range_marker) {
		if ((rc = cli_marker_of(path, p, "--range-from-marker", c->range_marker, &ms, &n)))
			return rc;
		if (ms->end_ns[n] == PV_TIME_NONE || ms->end_ns[n] <= ms->start_ns[n]) {
			cli_say("error",
				"%s: --range-from-marker: marker %u (%s) has "
				"no duration",
				path, n, ms->name[n]);
			pv_markers_free(ms);
			return EXIT_INPUT;
		}
		q->has_range = true;
		q->range_start_ns = ms->start_ns[n];
		q->range_end_ns = ms->end_ns[n];
		pv_markers_free(ms);
	}
	if (c->center_marker) {
		if ((rc =
			 cli_marker_of(path, p, "--center-from-marker", c->center_marker, &ms, &n)))
			return rc;
		struct sbuf scope = SBUF_INIT;
		rc = pv_marker_cause_scope(ms, n, &scope);
		if (rc == 0)
			cli_say("error",
				"%s: --center-from-marker: marker %u (%s) has no cause stack", path,
				n, ms->name[n]);
		pv_markers_free(ms);
		int added = rc == 1 ? pv_query_add_center(q, sbuf_str(&scope)) : 0;
		sbuf_release(&scope);
		if (rc == 0)
			return EXIT_INPUT;
		if (rc < 0 || added) {
			cli_say("error", "%s",
				added == PV_ELIMIT ? "too many center values" : "out of memory");
			return added == PV_ELIMIT ? EXIT_INPUT : EXIT_RUNTIME;
		}
	}
	return 0;
}

int cli_view_query(const char *path, const struct pv_profile *p, const struct cli *c,
		   struct pv_query *q)
{
	if (pv_query_copy(q, &c->q)) {
		fputs("profview: error: out of memory\n", stderr);
		return EXIT_RUNTIME;
	}
	return resolve_markers(path, p, c, q);
}

int cmd_view(const struct cli *c, const char *path, const struct pv_profile *p)
{
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_view *v;
	struct pv_query q;
	int rc = cli_view_query(path, p, c, &q);
	if (rc) {
		pv_query_release(&q);
		return rc;
	}
	rc = pv_view_compute_printed(p, &q, &v, &err);
	pv_query_release(&q);
	if (rc) {
		cli_say("error", "%s: %s", path, err.msg);
		return rc == PV_ENOMEM ? EXIT_RUNTIME : EXIT_INPUT;
	}
	char label[256];
	threads_label(v, c, label, sizeof(label));
	struct pv_print_opts po = {.json = c->json, .threads_label = label};
	if (c->hot_path > 0 && v->tree) {
		uint32_t *rows = malloc(sizeof(*rows) * (v->tree->len ? v->tree->len : 1));
		if (!rows) {
			pv_view_free(v);
			cli_say("error", "out of memory");
			return EXIT_RUNTIME;
		}
		uint32_t n = pv_tree_hot_path(v->tree, PV_NONE, c->hot_path, rows, v->tree->len);
		pv_tree_keep_path(v->tree, rows, n);
		free(rows);
	}
	rc = pv_print_view(stdout, v, &po);
	pv_view_free(v);
	if (rc)
		cli_say("error", "%s", pv_strerror(rc));
	return rc ? EXIT_RUNTIME : 0;
}

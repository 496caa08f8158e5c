/*
 * cmd_markers.c - the marker commands: markers (the table, or --summary per name) and marker N
 * (one marker in full); and the marker a view option names (--range-from-marker,
 * --center-from-marker).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pv/format.h"
#include "pv/marker_sel.h"
#include "say.h"

/* keep[i] for the markers of idx; returns keep. */
static const uint8_t *keep_all(uint8_t *keep, const uint32_t *idx, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		keep[idx[k]] = 1;
	return keep;
}

/* A marker index N given on the command line; false when it is not a count. */
static bool marker_number(const char *s, uint32_t *out)
{
	char *end;
	if (!*s || *s < '0' || *s > '9')
		return false;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || v >= UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

static void print_notes(const char *path, const struct pv_markers *ms)
{
	for (uint32_t i = 0; i < ms->nr_notes; i++)
		cli_say("note", "%s: %s", path, ms->notes[i]);
}

int cli_marker_of(const char *path, const struct pv_profile *p, const char *option, const char *arg,
		  struct pv_markers **ms, uint32_t *n)
{
	struct pv_error err;
	pv_error_clear(&err);
	int rc = pv_markers_derive(p, ms, &err);
	if (rc) {
		cli_say("error", "%s: %s", path, err.msg);
		return rc == PV_ENOMEM ? EXIT_RUNTIME : EXIT_INPUT;
	}
	if (!marker_number(arg, n) || *n >= (*ms)->len) {
		if ((*ms)->len)
			cli_say("error",
				"%s: %s%s'%s' is not a marker (the profile has "
				"%u: 0 to %u, see 'profview markers')",
				path, option, *option ? " " : "", arg, (*ms)->len, (*ms)->len - 1);
		else
			cli_say("error",
				"%s: %s%s'%s' is not a marker (the profile has "
				"none)",
				path, option, *option ? " " : "", arg);
		pv_markers_free(*ms);
		*ms = NULL;
		return EXIT_INPUT;
	}
	return 0;
}

int cmd_marker(const struct cli *c, const char *path, const struct pv_profile *p)
{
	struct pv_markers *ms = NULL;
	uint32_t i;
	int rc = cli_marker_of(path, p, "", c->marker_arg, &ms, &i);
	if (rc)
		return rc;
	print_notes(path, ms);
	rc = pv_print_marker(stdout, ms, i, c->json) ? EXIT_RUNTIME : 0;
	pv_markers_free(ms);
	return rc;
}

/* The marker table or, with --summary, the summary per name. */
int cmd_markers(const struct cli *c, const char *path, const struct pv_profile *p)
{
	struct pv_markers *ms = NULL;
	struct pv_marker_sel sel = {0};
	uint32_t *idx = NULL, n = 0;
	int rc = 0;
	struct pv_error err;
	pv_error_clear(&err);
	if ((rc = pv_markers_derive(p, &ms, &err))) {
		cli_say("error", "%s: %s", path, err.msg);
		return rc == PV_ENOMEM ? EXIT_RUNTIME : EXIT_INPUT;
	}
	print_notes(path, ms);
	const struct pv_marker_terms terms = {
	    .threads = (const char *const *)c->q.threads,
	    .nr_threads = c->q.nr_threads,
	    .search = c->search,
	    .has_start = c->q.has_range,
	    .has_end = c->q.has_range,
	    .start_ns = c->q.range_start_ns,
	    .end_ns = c->q.range_end_ns,
	    .order = c->order,
	};
	pv_error_clear(&err);
	int r = pv_marker_sel_new(p, &terms, &sel, &err);
	if (r == PV_EINVAL) {
		cli_say("error", "%s: %s", path, err.msg);
		rc = EXIT_INPUT;
		goto done;
	}
	if (r) {
		rc = EXIT_RUNTIME;
		goto done;
	}
	if (pv_marker_select(ms, &sel.sel, &idx, &n)) {
		rc = EXIT_RUNTIME;
		goto done;
	}
	if (c->summary) {
		uint8_t *keep = calloc(ms->len ? ms->len : 1, 1);
		struct pv_marker_summary_row *rows;
		uint32_t nr;
		if (!keep || pv_marker_summary(ms, keep_all(keep, idx, n), &rows, &nr)) {
			free(keep);
			rc = EXIT_RUNTIME;
			goto done;
		}
		free(keep);
		if (c->q.limit && nr > c->q.limit)
			nr = c->q.limit;
		rc = pv_print_marker_summary(stdout, rows, nr, c->json) ? EXIT_RUNTIME : 0;
		pv_marker_summary_free(rows);
	} else {
		if (c->q.limit && n > c->q.limit)
			n = c->q.limit;
		rc = pv_print_markers(stdout, ms, idx, n, c->json) ? EXIT_RUNTIME : 0;
	}
done:
	if (rc == EXIT_RUNTIME)
		fputs("profview: error: out of memory\n", stderr);
	pv_free_indexes(idx);
	pv_marker_sel_release(&sel);
	pv_markers_free(ms);
	return rc;
}

/*
 * cmd_diff.c - `profview diff BASE NEW`: the difference of two profiles (pv/diff.h) in the view
 * --view names (tree by default; the query's other options as in every view), as text or
 * --json; with --flame, the differential flame graph the page draws, as JSON.
 */
#include <stdio.h>

#include "cli.h"
#include "pv/diff.h"
#include "pv/format.h"
#include "say.h"

int cmd_diff(const struct cli *c, const char *const paths[2], const struct pv_profile *ps[2])
{
	struct pv_query q;
	pv_query_init(&q);
	if (pv_query_copy(&q, &c->q)) {
		cli_say("error", "out of memory");
		return EXIT_RUNTIME;
	}
	if (c->flame) /* one computation gives both graphs of a centered query */
		q.view = q.nr_center ? PV_VIEW_BUTTERFLY : PV_VIEW_TREE;
	struct pv_diff *d = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_diff_opts o = {.normalize = c->normalize};
	int rc = pv_diff_compute(ps[0], ps[1], &q, &o, &d, &err);
	pv_query_release(&q);
	if (rc) {
		cli_say("error", "%s vs %s: %s", paths[0], paths[1], err.msg);
		return rc == PV_ENOMEM ? EXIT_RUNTIME : EXIT_INPUT;
	}
	if (c->flame) {
		struct pv_flame_opts fo = {c->max_nodes ? c->max_nodes : PV_FLAME_NODES, c->width};
		struct pv_flame *fl = NULL;
		struct pv_json *j = pv_json_new(stdout);
		rc = j ? pv_diff_flame_build(d, &fo, &fl) : PV_ENOMEM;
		if (!rc)
			rc = pv_json_flame(j, fl);
		int frc = j ? pv_json_finish(j) : 0;
		pv_json_free(j);
		pv_flame_free(fl);
		if (!rc)
			rc = frc;
	} else {
		struct pv_print_opts po = {
		    .json = c->json, .base_label = paths[0], .new_label = paths[1]};
		rc = pv_print_diff(stdout, d, &po);
	}
	pv_diff_free(d);
	if (rc)
		cli_say("error", "%s", pv_strerror(rc));
	return rc ? EXIT_RUNTIME : 0;
}

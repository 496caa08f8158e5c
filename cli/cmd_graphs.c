/*
 * cmd_graphs.c - the graphs the page draws, as JSON: flame (the flame graph of the query, or
 * of a centered query both graphs of its butterfly) and activity (per thread, the cost by time
 * bucket and category, and the markers of each track). They print what /api/flame and
 * /api/activity answer (doc/api.md), from the same library calls (pv/graphs.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pv/disasm.h"
#include "pv/format.h"
#include "pv/graphs.h"
#include "say.h"

/* Writes one answer through a JSON writer on stdout: 0 or EXIT_RUNTIME. */
static int finish(struct pv_json *j, int rc)
{
	int frc = j ? pv_json_finish(j) : PV_ENOMEM;
	pv_json_free(j);
	if (!rc)
		rc = frc;
	if (rc)
		cli_say("error", "%s", pv_strerror(rc));
	return rc ? EXIT_RUNTIME : 0;
}

int cmd_flame(const struct cli *c, const char *path, const struct pv_profile *p)
{
	struct pv_query q;
	int rc = cli_view_query(path, p, c, &q);
	if (rc) {
		pv_query_release(&q);
		return rc;
	}
	/* one computation gives both graphs of a centered query: the butterfly */
	q.view = q.nr_center ? PV_VIEW_BUTTERFLY : PV_VIEW_TREE;
	struct pv_view *v;
	struct pv_error err;
	pv_error_clear(&err);
	rc = pv_view_compute(p, &q, &v, &err);
	pv_query_release(&q);
	if (rc)
		return cli_lib_error(path, rc, err.msg);
	struct pv_flame_opts o = {c->max_nodes ? c->max_nodes : PV_FLAME_NODES, c->width};
	struct pv_flame *fl = NULL;
	struct pv_json *j = pv_json_new(stdout);
	rc = j ? pv_flame_build(v, &o, &fl) : PV_ENOMEM;
	if (!rc)
		rc = pv_json_flame(j, fl);
	pv_flame_free(fl);
	pv_view_free(v);
	return finish(j, rc);
}

int cmd_activity(const struct cli *c, const char *path, const struct pv_profile *p)
{
	struct pv_query q;
	int rc = cli_view_query(path, p, c, &q);
	struct pv_markers *ms = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	if (!rc && (rc = pv_markers_derive(p, &ms, &err)))
		rc = cli_lib_error(path, rc, err.msg);
	if (rc) {
		pv_query_release(&q);
		return rc;
	}
	struct pv_activity_opts o = {
	    .buckets = c->buckets ? c->buckets : PV_ACTIVITY_BUCKETS,
	    .has_start = c->has_start,
	    .has_end = c->has_end,
	    .start_ns = c->start_ns,
	    .end_ns = c->end_ns,
	};
	struct pv_activity *a = NULL;
	rc = pv_activity_build(p, ms, &q, &o, &a, &err);
	pv_query_release(&q);
	if (rc) {
		pv_markers_free(ms);
		return cli_lib_error(path, rc, err.msg);
	}
	if (!a->timed)
		cli_say("note",
			"%s: no sample or marker has a time: every bucket is empty "
			"(\"timed\": false)",
			path);
	struct pv_json *j = pv_json_new(stdout);
	rc = j ? pv_json_activity(j, a, ms) : PV_ENOMEM;
	pv_activity_free(a);
	pv_markers_free(ms);
	return finish(j, rc);
}

/*
 * annotate: the instructions of the center's functions (else of the function with the most self
 * cost at addresses) with their self costs, under their source lines, as perf annotate prints;
 * --json: pv_json_disasm.
 */
int cmd_annotate(const struct cli *c, const char *path, const struct pv_profile *p)
{
	struct pv_query q;
	int rc = cli_view_query(path, p, c, &q);
	uint8_t *mark = NULL;
	if (!rc && q.nr_center) {
		if (!(mark = calloc(p->funcs.len ? p->funcs.len : 1, 1)))
			rc = PV_ENOMEM;
		for (uint32_t k = 0; mark && k < q.nr_center; k++)
			pv_scope_functions(p, q.center[k], mark);
	}
	struct pv_disasm *d = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	if (!rc)
		rc = pv_disasm_funcs(p, &q, mark, NULL, &d, &err);
	pv_query_release(&q);
	free(mark);
	if (rc) {
		pv_disasm_free(d);
		return cli_lib_error(path, rc, err.msg);
	}
	if (c->json) {
		struct pv_json *j = pv_json_new(stdout);
		rc = j ? pv_json_disasm(j, p, d) : PV_ENOMEM;
		pv_disasm_free(d);
		return finish(j, rc);
	}
	/* names from the profile, objdump's text and the notes: control characters escaped */
	char e1[4096], e2[4096], e3[4096];
	const char *metric =
	    pv_escaped(e3, sizeof(e3),
		       d->metric < p->metrics.len ? pv_str(p, p->metrics.name[d->metric]) : "");
	for (uint32_t i = 0; i < d->n; i++) {
		const struct pv_disasm_insn *in = &d->insn[i], *prev = i ? &d->insn[i - 1] : NULL;
		if (!prev || prev->func != in->func) {
			pv_module_ix m = pv_func_module(p, in->func);
			printf("%s%s  %s  (self %s per instruction)\n", prev ? "\n" : "",
			       pv_escaped(e1, sizeof(e1), pv_str(p, p->funcs.name[in->func])),
			       pv_escaped(e2, sizeof(e2),
					  m < p->modules.len ? pv_str(p, p->modules.path[m]) : ""),
			       metric);
		}
		if (!prev || prev->func != in->func || prev->line != in->line ||
		    (prev->file == NULL) != (in->file == NULL) ||
		    (in->file && strcmp(prev->file, in->file))) {
			int64_t sum = 0;
			for (uint32_t k = i;
			     k < d->n && d->insn[k].func == in->func && d->insn[k].line == in->line;
			     k++)
				sum += d->insn[k].self;
			if (in->file)
				printf("%14lld  %s:%u\n", (long long)sum,
				       pv_escaped(e1, sizeof(e1), in->file), in->line);
			else
				printf("%14lld  (no line)\n", (long long)sum);
		}
		const char *text = pv_escaped(e1, sizeof(e1), in->text);
		if (in->self)
			printf("%14lld  %10llx:  %s\n", (long long)in->self,
			       (unsigned long long)in->addr, text);
		else
			printf("%14s  %10llx:  %s\n", ".", (unsigned long long)in->addr, text);
	}
	for (uint32_t i = 0; i < d->nr_notes; i++)
		printf("note: %s\n", pv_escaped(e1, sizeof(e1), d->notes[i]));
	pv_disasm_free(d);
	return 0;
}

/*
 * cmd_contexts.c - `profview contexts FILE...`: one row's values over the execution contexts
 * (threads, processes, ranks, GPU streams), their summary and histogram (include/pv/contexts.h,
 * doc/contexts.md). The row is the query's center (the whole profile without one).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pv/contexts.h"
#include "pv/import.h"
#include "pv/query.h"
#include "say.h"

static void contexts_usage(FILE *out)
{
	fputs(
	    "usage: profview contexts [--center SCOPE] [OPTIONS] FILE...\n"
	    "\n"
	    "One row's values over the execution contexts (threads, processes, MPI ranks, GPU\n"
	    "streams): for each selected context the inclusive and exclusive value of the\n"
	    "center (the whole profile without a center), then their summary: sum, mean, min,\n"
	    "max, standard deviation, coefficient of variation (stddev/mean) and imbalance\n"
	    "(max/mean), over every selected context (those without the row count 0).\n"
	    "\n"
	    "  --center SCOPE     the row (repeat to merge several scopes)\n"
	    "  --metric M         the metric (default: the profile's own)\n"
	    "  --thread T         the contexts: a name, a tid, #INDEX or re:REGEX on the names\n"
	    "                     (repeatable; default every context)\n"
	    "  --sort value|index contexts by inclusive value, largest first, or by index\n"
	    "  --histogram N      N bins of equal width from min to max of the inclusive values\n"
	    "                     instead of one line per context\n"
	    "  --json             {\"metric\", \"unit\", \"row\", \"contexts\", \"summary\", ...}\n"
	    "  --format NAME      read FILE as this format instead of probing it\n"
	    "  --cache DIR        keep a snapshot of FILE in DIR, open it next time\n"
	    "  --query Q          a whole query as a URL query string or JSON\n"
	    "  and every filter of the views: --include, --drop, --merge, --range, --tag, ...\n"
	    "  (profview --help)\n",
	    out);
}

#define usage_error(...) cli_fail_usage_of("contexts", __VA_ARGS__)

static int run(const char *path, const struct pv_import_opts *imp, const struct pv_query *q,
	       const struct pv_contexts_print_opts *po)
{
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_profile *p = NULL;
	int rc = cli_open(path, imp, 1, &p, &err);
	if (rc) {
		cli_say("error", "%s", err.msg);
		return rc == PV_ENOMEM ? EXIT_RUNTIME : EXIT_INPUT;
	}
	struct pv_contexts *c = NULL;
	rc = pv_contexts_compute(p, q, NULL, 0, &c, &err);
	if (rc) {
		cli_say("error", "%s: %s", path, err.msg);
		pv_profile_free(p);
		return rc == PV_ENOMEM ? EXIT_RUNTIME : EXIT_INPUT;
	}
	rc = pv_print_contexts(stdout, c, po);
	pv_contexts_free(c);
	pv_profile_free(p);
	if (rc)
		cli_say("error", "out of memory");
	return rc ? EXIT_RUNTIME : 0;
}

int cmd_contexts(int argc, char **argv)
{
	struct pv_query q;
	pv_query_init(&q);
	struct pv_contexts_print_opts po = {0};
	struct pv_import_opts imp = {0};
	const char **files = calloc((size_t)argc + 1, sizeof(*files));
	int nfiles = 0, rc = 0;
	struct pv_error err;
	if (!files) {
		cli_say("error", "out of memory");
		return EXIT_RUNTIME;
	}
	for (int i = 1; i < argc && !rc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			contexts_usage(stdout);
			free(files);
			pv_query_release(&q);
			return 0;
		}
		if (strncmp(a, "--", 2) != 0 || !a[2]) {
			files[nfiles++] = a;
			continue;
		}
		/* --name VALUE or --name=VALUE */
		char name[64];
		const char *eq = strchr(a + 2, '=');
		size_t nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		if (nl >= sizeof(name)) {
			rc = usage_error("unknown option '%s'", a);
			break;
		}
		memcpy(name, a + 2, nl);
		name[nl] = 0;
		if (strcmp(name, "json") == 0) {
			if (eq)
				rc = usage_error("--json takes no value");
			po.json = true;
			continue;
		}
		const char *value = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
		if (!value) {
			rc = usage_error("option '%s' needs a value", a);
		} else if (strcmp(name, "sort") == 0) {
			if (strcmp(value, "value") != 0 && strcmp(value, "index") != 0)
				rc = usage_error("--sort takes value or index, not '%s'", value);
			po.sorted = strcmp(value, "value") == 0;
		} else if (strcmp(name, "histogram") == 0) {
			char *end;
			unsigned long n = strtoul(value, &end, 10);
			if (end == value || *end || n < 1 || n > 10000)
				rc = usage_error(
				    "--histogram takes a number of bins from 1 to 10000, "
				    "not '%s'",
				    value);
			po.histogram = (uint32_t)n;
		} else if (strcmp(name, "format") == 0 || strcmp(name, "cache") == 0) {
			if (pv_import_set_option(&imp, name, value, &err))
				rc = usage_error("%s", err.msg);
		} else if (strcmp(name, "query") == 0) {
			int r = value[0] == '{' ? pv_query_from_json(&q, value, strlen(value), &err)
						: pv_query_from_url(&q, value, &err);
			if (r)
				rc = usage_error("--query: %s", err.msg);
		} else {
			int r = pv_query_set_option(&q, name, value, &err);
			if (r == 1)
				rc = usage_error("unknown option '--%s'", name);
			else if (r)
				rc = usage_error("%s", err.msg);
		}
	}
	if (!rc && !nfiles) {
		contexts_usage(stderr);
		rc = EXIT_INPUT;
	}
	bool usage_ok = !rc;
	for (int i = 0; usage_ok && i < nfiles; i++) {
		char shown[4096];
		if (nfiles > 1 && !po.json)
			printf("%s== %s ==\n", i ? "\n" : "",
			       pv_escaped(shown, sizeof(shown), files[i]));
		int r = run(files[i], &imp, &q, &po);
		fflush(stdout);
		if (r && !rc)
			rc = r;
	}
	free(files);
	pv_query_release(&q);
	return rc;
}

/*
 * main.c - the profview command line: a thin front end over libprofview.
 *
 *   profview COMMAND [OPTIONS] FILE...     (profview FILE = profview tree FILE)
 *
 * Exit codes: 0 success; 1 a runtime failure (out of memory); 2 bad usage, or input that cannot
 * be read or parsed (one line on stderr naming the file and the position).
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/format.h"
#include "pv/import.h"
#include "pv/profile.h"
#include "pv/query.h"
#include "pv/view.h"

#define EXIT_RUNTIME 1
#define EXIT_INPUT 2

struct cli {
	const char *format;
	int json;
	int no_validate;
	struct pv_query q;
};

static void usage(FILE *out)
{
	fputs("usage: profview COMMAND [OPTIONS] FILE...\n"
	      "       profview FILE...              (same as 'profview tree FILE...')\n"
	      "\n"
	      "commands:\n"
	      "  info        format, threads, metrics, table sizes, markers, what the import lost\n"
	      "  tree        top-down call tree (with --center: the center's callees)\n"
	      "  callers     bottom-up tree (with --center: the center's callers)\n"
	      "  butterfly   callers, the center, callees (needs --center)\n"
	      "  flat        module > file > function > line rows (--by picks the depth)\n"
	      "  top         one row per function: self, total (recursion counted once)\n"
	      "  formats     the formats profview reads\n"
	      "  query       print the query given by the options as flags, URL and JSON\n"
	      "\n"
	      "the query (the same in every command):\n"
	      "  --center SCOPE        the context of the view; repeat to merge several\n"
	      "  --include SCOPE       keep samples whose stack has SCOPE\n"
	      "  --drop SCOPE          drop samples whose stack has SCOPE\n"
	      "  --merge SCOPE         remove SCOPE's frames, cost to the caller\n"
	      "  --collapse-recursion SCOPE   A>B>A>C becomes A>C\n"
	      "  --collapse-module M   consecutive frames of module M become one\n"
	      "  --focus-category C    keep only frames of category C\n"
	      "  --range T0:T1         samples with T0 <= time < T1 (ms from the profile start)\n"
	      "  --thread NAME|TID     only these threads (repeatable, merged; default all)\n"
	      "  --metric A[,B]        metrics to show (default: the profile's own)\n"
	      "  --by function|line|file|module   granularity of the rows\n"
	      "  --percent center|whole           percentages of the center or the whole\n"
	      "  --depth N, --min-percent P, -n N, --sort self|total   what to print\n"
	      "  SCOPE is NAME, re:REGEX, file:PATH, module:NAME, line:FILE:LINE,\n"
	      "  FUNCTION:LINE or path:a;b;c. Filters apply in the order given.\n"
	      "\n"
	      "other options:\n"
	      "  --query Q       a whole query as a URL query string or JSON (from 'query')\n"
	      "  --format NAME   read FILE as this format instead of probing it\n"
	      "  --json          JSON: {\"metric\",\"unit\",\"total\",\"rows\":[...]}\n"
	      "  -h, --help      this text;  --version   the version\n",
	      out);
}

__attribute__((format(printf, 1, 2))) static int fail_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("profview: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see 'profview --help')\n", stderr);
	return EXIT_INPUT;
}

static int error_exit(const struct pv_error *err)
{
	fprintf(stderr, "profview: error: %s\n", err->msg);
	return err->code == PV_ENOMEM ? EXIT_RUNTIME : EXIT_INPUT;
}

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

static int run_view(const char *path, const struct pv_profile *p, const struct cli *c)
{
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_view *v;
	int rc = pv_view_compute(p, &c->q, &v, &err);
	if (rc) {
		fprintf(stderr, "profview: error: %s: %s\n", path, err.msg);
		return rc == PV_ENOMEM ? EXIT_RUNTIME : EXIT_INPUT;
	}
	char label[256];
	threads_label(v, c, label, sizeof(label));
	struct pv_print_opts po = {.json = c->json, .threads_label = label};
	pv_print_view(stdout, v, &po);
	pv_view_free(v);
	return 0;
}

static int run_file(const char *cmd, const char *path, const struct cli *c)
{
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_profile *p = NULL;
	int rc = pv_import_file(path, c->format, &p, &err);
	if (rc)
		return error_exit(&err);
	if (!c->no_validate && pv_profile_validate(p, &err)) {
		fprintf(stderr, "profview: error: %s: the import broke an invariant: %s\n", path,
			err.msg);
		pv_profile_free(p);
		return EXIT_RUNTIME;
	}
	if (strcmp(cmd, "info") == 0)
		pv_print_info(stdout, p, path, c->json);
	else
		rc = run_view(path, p, c);
	pv_profile_free(p);
	return rc;
}

static const char *const commands[] = {"info", "top", "tree", "callers", "flat", "butterfly",
				      "formats", "query"};

/* Options that belong to the query (query.h); their values go to pv_query_set_option. */
static const char *const query_options[] = {
	"center", "include", "drop", "merge", "collapse-recursion", "collapse-module",
	"focus-category", "metric", "by", "thread", "range", "percent", "min-percent", "depth",
	"sort",
};

#define NR_QUERY_OPTIONS (sizeof(query_options) / sizeof(query_options[0]))

int main(int argc, char **argv)
{
	struct cli c = {0};
	pv_query_init(&c.q);
	const char *cmd = "tree";
	int argi = 1;
	if (argc > 1) {
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
			if (strcmp(argv[1], commands[i]) == 0) {
				cmd = commands[i];
				argi = 2;
			}
		}
	}
	if (strcmp(cmd, "formats") != 0 && strcmp(cmd, "info") != 0)
		pv_view_parse(strcmp(cmd, "top") == 0 ? "top" : cmd, &c.q.view);
	if (strcmp(cmd, "top") == 0)
		c.q.view = PV_VIEW_TOP;
	enum { OPT_FORMAT = 256, OPT_JSON, OPT_NOVALIDATE, OPT_FROM, OPT_QUERY };
	struct option longopts[NR_QUERY_OPTIONS + 7];
	size_t nl = 0;
	longopts[nl++] = (struct option){"format", required_argument, NULL, OPT_FORMAT};
	longopts[nl++] = (struct option){"json", no_argument, NULL, OPT_JSON};
	longopts[nl++] = (struct option){"no-validate", no_argument, NULL, OPT_NOVALIDATE};
	longopts[nl++] = (struct option){"help", no_argument, NULL, 'h'};
	longopts[nl++] = (struct option){"version", no_argument, NULL, 'V'};
	longopts[nl++] = (struct option){"query", required_argument, NULL, OPT_FROM};
	for (size_t i = 0; i < NR_QUERY_OPTIONS; i++)
		longopts[nl++] = (struct option){query_options[i], required_argument, NULL,
						 OPT_QUERY + (int)i};
	longopts[nl] = (struct option){NULL, 0, NULL, 0};
	/* getopt over argv shifted past the command */
	int sub_argc = argc - argi + 1;
	char **sub_argv = argv + argi - 1;
	optind = 1;
	opterr = 0;
	int ch;
	int rc = 0;
	struct pv_error err;
	while ((ch = getopt_long(sub_argc, sub_argv, ":hn:", longopts, NULL)) != -1) {
		switch (ch) {
		case OPT_FORMAT: c.format = optarg; break;
		case OPT_JSON: c.json = 1; break;
		case OPT_NOVALIDATE: c.no_validate = 1; break;
		case OPT_FROM: {
			/* a whole query as a URL query string or JSON; later flags add to it */
			enum pv_view_kind view = c.q.view;
			int r = optarg[0] == '{'
					? pv_query_from_json(&c.q, optarg, strlen(optarg), &err)
					: pv_query_from_url(&c.q, optarg, &err);
			if (r)
				rc = fail_usage("--query: %s", err.msg);
			else if (strcmp(cmd, "query") != 0)
				c.q.view = view; /* the command names the view */
			break;
		}
		case 'n':
			if (pv_query_set_option(&c.q, "n", optarg, &err))
				rc = fail_usage("%s", err.msg);
			break;
		case 'V':
			printf("profview %s\n", PV_VERSION);
			pv_query_release(&c.q);
			return 0;
		case 'h':
			usage(stdout);
			pv_query_release(&c.q);
			return 0;
		case ':':
			rc = fail_usage("option '%s' needs a value", sub_argv[optind - 1]);
			break;
		case '?':
			rc = fail_usage("unknown option '%s'", sub_argv[optind - 1]);
			break;
		default:
			if (ch >= OPT_QUERY && ch < OPT_QUERY + (int)NR_QUERY_OPTIONS &&
			    pv_query_set_option(&c.q, query_options[ch - OPT_QUERY], optarg, &err))
				rc = fail_usage("%s", err.msg);
			break;
		}
		if (rc) {
			pv_query_release(&c.q);
			return rc;
		}
	}
	if (strcmp(cmd, "query") == 0) {
		/* the query in its three notations, each of which reads back to the same query */
		char *args = pv_query_to_args(&c.q), *url = pv_query_to_url(&c.q),
		     *json = pv_query_to_json(&c.q);
		if (!args || !url || !json)
			rc = EXIT_RUNTIME;
		else
			printf("args: %s\nurl:  %s\njson: %s\n", args, url, json);
		free(args);
		free(url);
		free(json);
		pv_query_release(&c.q);
		return rc;
	}
	if (strcmp(cmd, "formats") == 0) {
		for (size_t i = 0; i < pv_importer_count(); i++)
			printf("%-20s %s\n", pv_importer_name(i), pv_importer_description(i));
		pv_query_release(&c.q);
		return 0;
	}
	if (optind >= sub_argc) {
		usage(stderr);
		pv_query_release(&c.q);
		return EXIT_INPUT;
	}
	int nfiles = sub_argc - optind;
	for (int i = optind; i < sub_argc; i++) {
		if (nfiles > 1 && !c.json)
			printf("%s== %s ==\n", i > optind ? "\n" : "", sub_argv[i]);
		int r = run_file(cmd, sub_argv[i], &c);
		fflush(stdout);
		if (r && !rc)
			rc = r;
	}
	pv_query_release(&c.q);
	return rc;
}

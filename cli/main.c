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
#include "pv/view.h"

#define EXIT_RUNTIME 1
#define EXIT_INPUT 2

struct cli {
	const char *format;
	const char *metric;
	const char **threads;
	int nr_threads;
	int json;
	int sort_total;
	long limit;
	long depth;
	double min_percent;
	int no_validate;
};

static void usage(FILE *out)
{
	fputs("usage: profview COMMAND [OPTIONS] FILE...\n"
	      "       profview FILE...              (same as 'profview tree FILE...')\n"
	      "\n"
	      "commands:\n"
	      "  info      format, threads, metrics, table sizes, markers, and what the import lost\n"
	      "  top       one row per function: self, total (recursion counted once), name, module\n"
	      "  tree      the top-down call tree with total and self per row\n"
	      "  formats   the formats profview reads\n"
	      "\n"
	      "options:\n"
	      "  --format NAME       read FILE as this format instead of probing it\n"
	      "  --metric NAME       the metric to show (default: the profile's first)\n"
	      "  --thread NAME|TID   only this thread; repeat to merge several (default: all)\n"
	      "  --json              print JSON: {\"metric\",\"unit\",\"total\",\"rows\":[...]}\n"
	      "  --sort self|total   top: the column to sort by (default: self)\n"
	      "  -n N                top: print at most N rows\n"
	      "  --depth N           tree: print rows up to depth N\n"
	      "  --min-percent P     tree: leave out rows below P% of the total\n"
	      "  -h, --help          this text\n"
	      "  --version           the version\n",
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

static int select_threads(const struct pv_profile *p, const struct cli *c, pv_thread_ix **out,
			  uint32_t *nr, char *label, size_t label_len, const char *path)
{
	*out = NULL;
	*nr = 0;
	snprintf(label, label_len, "all threads (%u)", p->threads.len);
	if (!c->nr_threads)
		return 0;
	pv_thread_ix *sel = malloc(sizeof(*sel) * (p->threads.len + 1));
	if (!sel)
		return EXIT_RUNTIME;
	uint32_t n = 0;
	size_t used = (size_t)snprintf(label, label_len, "threads:");
	for (int i = 0; i < c->nr_threads; i++) {
		uint32_t k = pv_thread_find(p, c->threads[i], sel + n, p->threads.len - n);
		if (k == 0) {
			fprintf(stderr, "profview: error: %s: no thread named '%s' (see 'profview info')\n",
				path, c->threads[i]);
			free(sel);
			return EXIT_INPUT;
		}
		if (k > p->threads.len - n)
			k = p->threads.len - n;
		n += k;
		if (used < label_len)
			used += (size_t)snprintf(label + used, label_len - used, " %s", c->threads[i]);
	}
	*out = sel;
	*nr = n;
	return 0;
}

static int run_view(const char *cmd, const char *path, const struct pv_profile *p,
		    const struct cli *c)
{
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_view_opts vo = {.metric = PV_NONE};
	if (c->metric) {
		vo.metric = pv_metric_find(p, c->metric);
		if (vo.metric == PV_NONE) {
			fprintf(stderr, "profview: error: %s: no metric named '%s' (it has:", path,
				c->metric);
			for (uint32_t m = 0; m < p->metrics.len; m++)
				fprintf(stderr, " %s", pv_str(p, p->metrics.name[m]));
			fputs(")\n", stderr);
			return EXIT_INPUT;
		}
	}
	pv_thread_ix *sel;
	uint32_t nsel;
	char label[256];
	int rc = select_threads(p, c, &sel, &nsel, label, sizeof(label), path);
	if (rc)
		return rc;
	vo.threads = sel;
	vo.nr_threads = nsel;
	struct pv_print_opts po = {
		.json = c->json,
		.max_depth = c->depth > 0 ? (uint32_t)c->depth : 0,
		.min_percent = c->min_percent,
		.limit = c->limit > 0 ? (uint32_t)c->limit : 0,
		.threads_label = label,
	};
	if (strcmp(cmd, "top") == 0) {
		struct pv_top *t;
		rc = pv_top_build(p, &vo, c->sort_total ? PV_TOP_BY_TOTAL : PV_TOP_BY_SELF, &t, &err);
		if (!rc) {
			pv_print_top(stdout, p, t, &po);
			pv_top_free(t);
		}
	} else {
		struct pv_calltree *t;
		rc = pv_calltree_build(p, &vo, &t, &err);
		if (!rc) {
			pv_print_tree(stdout, p, t, &po);
			pv_calltree_free(t);
		}
	}
	free(sel);
	if (rc)
		return error_exit(&err);
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
		rc = run_view(cmd, path, p, c);
	pv_profile_free(p);
	return rc;
}

static const char *const commands[] = {"info", "top", "tree", "formats"};

int main(int argc, char **argv)
{
	struct cli c = {0};
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
	enum { OPT_FORMAT = 256, OPT_METRIC, OPT_THREAD, OPT_JSON, OPT_SORT, OPT_DEPTH, OPT_MINPCT,
	       OPT_NOVALIDATE };
	static const struct option longopts[] = {
		{"format", required_argument, NULL, OPT_FORMAT},
		{"metric", required_argument, NULL, OPT_METRIC},
		{"thread", required_argument, NULL, OPT_THREAD},
		{"json", no_argument, NULL, OPT_JSON},
		{"sort", required_argument, NULL, OPT_SORT},
		{"depth", required_argument, NULL, OPT_DEPTH},
		{"min-percent", required_argument, NULL, OPT_MINPCT},
		{"no-validate", no_argument, NULL, OPT_NOVALIDATE},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	c.threads = calloc((size_t)argc, sizeof(*c.threads));
	if (!c.threads)
		return EXIT_RUNTIME;
	/* getopt over argv shifted past the command */
	int sub_argc = argc - argi + 1;
	char **sub_argv = argv + argi - 1;
	optind = 1;
	opterr = 0;
	int ch;
	char *end;
	int rc = 0;
	while ((ch = getopt_long(sub_argc, sub_argv, ":hn:", longopts, NULL)) != -1) {
		switch (ch) {
		case OPT_FORMAT: c.format = optarg; break;
		case OPT_METRIC: c.metric = optarg; break;
		case OPT_THREAD: c.threads[c.nr_threads++] = optarg; break;
		case OPT_JSON: c.json = 1; break;
		case OPT_NOVALIDATE: c.no_validate = 1; break;
		case OPT_SORT:
			if (strcmp(optarg, "self") == 0)
				c.sort_total = 0;
			else if (strcmp(optarg, "total") == 0)
				c.sort_total = 1;
			else
				rc = fail_usage("--sort takes 'self' or 'total', not '%s'", optarg);
			break;
		case 'n':
			c.limit = strtol(optarg, &end, 10);
			if (*end || c.limit < 0)
				rc = fail_usage("-n takes a count, not '%s'", optarg);
			break;
		case OPT_DEPTH:
			c.depth = strtol(optarg, &end, 10);
			if (*end || c.depth < 1)
				rc = fail_usage("--depth takes a positive count, not '%s'", optarg);
			break;
		case OPT_MINPCT:
			c.min_percent = strtod(optarg, &end);
			if (*end || c.min_percent < 0 || c.min_percent > 100)
				rc = fail_usage("--min-percent takes a percentage, not '%s'", optarg);
			break;
		case 'V':
			printf("profview %s\n", PV_VERSION);
			free(c.threads);
			return 0;
		case 'h':
			usage(stdout);
			free(c.threads);
			return 0;
		case ':':
			rc = fail_usage("option '%s' needs a value", sub_argv[optind - 1]);
			break;
		default:
			rc = fail_usage("unknown option '%s'", sub_argv[optind - 1]);
			break;
		}
		if (rc) {
			free(c.threads);
			return rc;
		}
	}
	if (strcmp(cmd, "formats") == 0) {
		for (size_t i = 0; i < pv_importer_count(); i++)
			printf("%-20s %s\n", pv_importer_name(i), pv_importer_description(i));
		free(c.threads);
		return 0;
	}
	if (optind >= sub_argc) {
		usage(stderr);
		free(c.threads);
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
	free(c.threads);
	return rc;
}

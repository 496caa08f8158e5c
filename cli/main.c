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
#include "pv/marker.h"
#include "pv/profile.h"
#include "pv/query.h"
#include "pv/view.h"
#include "say.h"

#define EXIT_RUNTIME 1
#define EXIT_INPUT 2

struct cli {
	const char *format;
	int json;
	struct pv_query q;
	/* markers and marker */
	const char *search;
	int summary;
	enum pv_marker_order order;
	const char *marker_arg; /* marker: N */
	/* views: resolved against each profile */
	const char *range_marker, *center_marker;
	double hot_path; /* tree, callers: print the hot path only, of this share (0: off) */
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
	      "  markers     the marker table (--search, --thread, --range, --sort, --summary)\n"
	      "  marker      one marker in full: profview marker FILE N\n"
	      "  formats     the formats profview reads\n"
	      "  serve       the web UI: serves the profiles on a local page and prints its URL\n"
	      "              (profview serve --help)\n"
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
	      "  --collapse-subtree SCOPE   keep SCOPE, its callees' cost becomes its self\n"
	      "  --prune SCOPE         remove SCOPE and its callees, their cost to the caller\n"
	      "  --collapse-direct-recursion SCOPE   A>A>B becomes A>B (A>B>A stays)\n"
	      "  --focus-self SCOPE    only the samples whose own frame (leaf) is in SCOPE\n"
	      "  --tag KEY=VALUE       keep samples with this label (pprof); --drop-tag drops them\n"
	      "  --range T0:T1         samples with T0 <= time < T1 (ms from the profile start)\n"
	      "  --thread NAME|TID|#N  only these threads (repeatable, merged; default all)\n"
	      "  --metric A[,B]        metrics to show (default: the profile's own)\n"
	      "  --by function|line|file|module|loop   granularity of the rows (loop: functions\n"
	      "                        and the loops in them, HPCToolkit)\n"
	      "  --percent center|whole           percentages of the center or the whole\n"
	      "  --inline keep|fold    inlined frames as frames (kind inline) or folded into\n"
	      "                        the function they are inlined in\n"
	      "  --self own|nested     a tree row's self: its own, or with the loops nested in\n"
	      "                        it (HPCToolkit's exclusive cost of procedures and loops)\n"
	      "  --depth N, --min-percent P, -n N, --sort self|total   what to print (-n: in\n"
	      "                        a tree, rows a list; the rest is one '... N more' row)\n"
	      "  --max-rows N          a tree prints at most N rows (default 100000; 0: all)\n"
	      "  --hot-path[=T]        tree, callers: only the hot path (hpcviewer): from the\n"
	      "                        top row, the heaviest child while it has T%% (50) of its\n"
	      "                        parent's total\n"
	      "  --inside-markers SEARCH   keep only samples inside markers matching SEARCH\n"
	      "  --range-from-marker N     the time range of marker N (see 'markers')\n"
	      "  --center-from-marker N    the center: marker N's cause stack, as a path\n"
	      "  SCOPE is NAME, re:REGEX, file:PATH, module:NAME, line:FILE:LINE,\n"
	      "  FUNCTION:LINE, loop:FILE:LINE, loop:FUNCTION:LINE or path:a;b;c. Filters apply\n"
	      "  in the order given.\n"
	      "\n"
	      "markers:\n"
	      "  --search TERMS        comma-separated substrings (OR) of name, category, type\n"
	      "                        and fields; key:value for one key, -key:value excludes\n"
	      "  --thread, --range     markers of these threads, overlapping this range\n"
	      "  --sort start|duration the table's order (default start); -n N: the first N rows\n"
	      "  --summary             per name: count, total, min, median, max duration\n"
	      "  --json                {\"rows\": [MARKER, ...]} with labels, fields and payloads\n"
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
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cli_say("error", "%s (see 'profview --help')", msg);
	return EXIT_INPUT;
}

static int error_exit(const struct pv_error *err)
{
	cli_say("error", "%s", err->msg);
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

/* Derives the markers of p and checks that option's N names one; 0 or an exit code. */
static int marker_of(const char *path, const struct pv_profile *p, const char *option,
		     const char *arg, struct pv_markers **ms, uint32_t *n)
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
			cli_say("error", "%s: %s%s'%s' is not a marker (the profile has "
				"%u: 0 to %u, see 'profview markers')", path, option,
				*option ? " " : "", arg, (*ms)->len, (*ms)->len - 1);
		else
			cli_say("error", "%s: %s%s'%s' is not a marker (the profile has "
				"none)", path, option, *option ? " " : "", arg);
		pv_markers_free(*ms);
		*ms = NULL;
		return EXIT_INPUT;
	}
	return 0;
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
		if ((rc = marker_of(path, p, "--range-from-marker", c->range_marker, &ms, &n)))
			return rc;
		if (ms->end_ns[n] == PV_TIME_NONE || ms->end_ns[n] <= ms->start_ns[n]) {
			cli_say("error", "%s: --range-from-marker: marker %u (%s) has "
				"no duration", path, n, ms->name[n]);
			pv_markers_free(ms);
			return EXIT_INPUT;
		}
		q->has_range = true;
		q->range_start_ns = ms->start_ns[n];
		q->range_end_ns = ms->end_ns[n];
		pv_markers_free(ms);
	}
	if (c->center_marker) {
		if ((rc = marker_of(path, p, "--center-from-marker", c->center_marker, &ms, &n)))
			return rc;
		uint32_t nf = pv_marker_cause(ms, n, NULL, 0);
		const char **fr = nf ? malloc(nf * sizeof(*fr)) : NULL;
		if (!nf || !fr) {
			if (nf)
				fputs("profview: error: out of memory\n", stderr);
			else
				cli_say("error", "%s: --center-from-marker: marker %u (%s) "
					"has no cause stack", path, n, ms->name[n]);
			pv_markers_free(ms);
			return nf ? EXIT_RUNTIME : EXIT_INPUT;
		}
		pv_marker_cause(ms, n, fr, nf);
		size_t len = 6;
		for (uint32_t k = 0; k < nf; k++)
			len += strlen(fr[k]) + 1;
		char *scope = malloc(len);
		rc = 0;
		if (scope) {
			strcpy(scope, "path:");
			for (uint32_t k = nf; k-- > 0;) { /* the stack lists the leaf first */
				strcat(scope, fr[k]);
				if (k)
					strcat(scope, ";");
			}
			rc = pv_query_add_center(q, scope);
		}
		free(scope);
		free(fr);
		pv_markers_free(ms);
		if (!scope || rc) {
			cli_say("error", "%s",
				rc == PV_ELIMIT ? "too many center values" : "out of memory");
			return rc == PV_ELIMIT ? EXIT_INPUT : EXIT_RUNTIME;
		}
	}
	return 0;
}

static int run_view(const char *path, const struct pv_profile *p, const struct cli *c)
{
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_view *v;
	struct pv_query q;
	if (pv_query_copy(&q, &c->q)) {
		fputs("profview: error: out of memory\n", stderr);
		return EXIT_RUNTIME;
	}
	int rc = resolve_markers(path, p, c, &q);
	if (rc) {
		pv_query_release(&q);
		return rc;
	}
	rc = pv_view_compute(p, &q, &v, &err);
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

/* markers (the table or the summary) and marker N. */
static int run_markers(const char *cmd, const char *path, const struct pv_profile *p,
		       const struct cli *c)
{
	struct pv_markers *ms = NULL;
	struct pv_marker_search *search = NULL;
	pv_thread_ix *threads = NULL;
	uint32_t *idx = NULL, n = 0, nt = 0;
	int rc = 0;
	if (strcmp(cmd, "marker") == 0) {
		uint32_t i;
		if ((rc = marker_of(path, p, "", c->marker_arg, &ms, &i)))
			return rc;
		print_notes(path, ms);
		rc = pv_print_marker(stdout, ms, i, c->json) ? EXIT_RUNTIME : 0;
		pv_markers_free(ms);
		return rc;
	}
	struct pv_error err;
	pv_error_clear(&err);
	if ((rc = pv_markers_derive(p, &ms, &err))) {
		cli_say("error", "%s: %s", path, err.msg);
		return rc == PV_ENOMEM ? EXIT_RUNTIME : EXIT_INPUT;
	}
	print_notes(path, ms);
	struct pv_marker_select sel = {
	    .has_range = c->q.has_range,
	    .range_start_ns = c->q.range_start_ns,
	    .range_end_ns = c->q.range_end_ns,
	    .order = c->order,
	};
	if (c->q.nr_threads) {
		/* the threads each name or tid finds, marked, then listed once each */
		uint32_t len = p->threads.len ? p->threads.len : 1;
		pv_thread_ix *found = malloc(len * sizeof(*found));
		uint8_t *mark = calloc(len, 1);
		threads = malloc(len * sizeof(*threads));
		for (uint32_t i = 0; found && mark && threads && i < c->q.nr_threads; i++) {
			uint32_t k = pv_thread_find(p, c->q.threads[i], found, len);
			if (!k) {
				cli_say("error", "%s: no thread named '%s' (see "
					"'profview info')", path, c->q.threads[i]);
				rc = EXIT_INPUT;
				break;
			}
			for (uint32_t j = 0; j < k; j++)
				mark[found[j]] = 1;
		}
		if (!found || !mark || !threads)
			rc = EXIT_RUNTIME;
		for (uint32_t t = 0; !rc && t < p->threads.len; t++)
			if (mark[t])
				threads[nt++] = t;
		free(found);
		free(mark);
		if (rc)
			goto done;
		sel.threads = threads;
		sel.nr_threads = nt;
	}
	if (c->search && pv_marker_search_new(c->search, &search)) {
		rc = EXIT_RUNTIME;
		goto done;
	}
	sel.search = search;
	if (pv_marker_select(ms, &sel, &idx, &n)) {
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
	pv_marker_search_free(search);
	free(threads);
	pv_markers_free(ms);
	return rc;
}

static int run_file(const char *cmd, const char *path, const struct cli *c)
{
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_profile *p = NULL;
	int rc = pv_import_file(path, c->format, &p, &err);
	if (rc)
		return error_exit(&err);
	if (strcmp(cmd, "info") == 0 && (rc = pv_print_info(stdout, p, path, c->json))) {
		cli_say("error", "%s", pv_strerror(rc));
		rc = EXIT_RUNTIME;
	} else if (strcmp(cmd, "info") == 0)
		;
	else if (strcmp(cmd, "markers") == 0 || strcmp(cmd, "marker") == 0)
		rc = run_markers(cmd, path, p, c);
	else
		rc = run_view(path, p, c);
	pv_profile_free(p);
	return rc;
}

static const char *const commands[] = {"info",	   "top",     "tree",	"callers", "flat",
				      "butterfly", "formats", "query", "markers", "marker"};

/* Options that belong to the query (query.h); their values go to pv_query_set_option. */
static const char *const query_options[] = {
	"center", "include", "drop", "merge", "collapse-recursion", "collapse-module",
	"focus-category", "tag", "drop-tag", "metric", "by", "thread", "range", "percent",
	"min-percent", "depth", "sort", "inside-markers", "inline", "self", "collapse-subtree",
	"prune", "collapse-direct-recursion", "focus-self", "max-rows",
};

/* The query options that apply to the marker commands (the rest shape call trees). */
static bool marker_option(const char *name)
{
	return strcmp(name, "thread") == 0 || strcmp(name, "range") == 0;
}

#define NR_QUERY_OPTIONS (sizeof(query_options) / sizeof(query_options[0]))

/* cli/cmd_serve.c */
int cmd_serve(int argc, char **argv);

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "serve") == 0)
		return cmd_serve(argc - 1, argv + 1);
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
	bool markers = strcmp(cmd, "markers") == 0 || strcmp(cmd, "marker") == 0;
	if (strcmp(cmd, "formats") != 0 && strcmp(cmd, "info") != 0 && !markers)
		pv_view_parse(strcmp(cmd, "top") == 0 ? "top" : cmd, &c.q.view);
	if (strcmp(cmd, "top") == 0)
		c.q.view = PV_VIEW_TOP;
	enum {
		OPT_FORMAT = 256, OPT_JSON, OPT_FROM, OPT_SEARCH, OPT_SUMMARY,
		OPT_RANGE_MARKER, OPT_CENTER_MARKER, OPT_HOT, OPT_QUERY
	};
	struct option longopts[NR_QUERY_OPTIONS + 12];
	size_t nl = 0;
	longopts[nl++] = (struct option){"format", required_argument, NULL, OPT_FORMAT};
	longopts[nl++] = (struct option){"json", no_argument, NULL, OPT_JSON};
	longopts[nl++] = (struct option){"help", no_argument, NULL, 'h'};
	longopts[nl++] = (struct option){"version", no_argument, NULL, 'V'};
	longopts[nl++] = (struct option){"query", required_argument, NULL, OPT_FROM};
	longopts[nl++] = (struct option){"search", required_argument, NULL, OPT_SEARCH};
	longopts[nl++] = (struct option){"summary", no_argument, NULL, OPT_SUMMARY};
	longopts[nl++] =
	    (struct option){"range-from-marker", required_argument, NULL, OPT_RANGE_MARKER};
	longopts[nl++] =
	    (struct option){"center-from-marker", required_argument, NULL, OPT_CENTER_MARKER};
	longopts[nl++] = (struct option){"hot-path", optional_argument, NULL, OPT_HOT};
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
		case OPT_SEARCH:
		case OPT_SUMMARY:
			if (strcmp(cmd, "markers") != 0)
				rc = fail_usage("--%s applies to 'markers' only",
						ch == OPT_SEARCH ? "search" : "summary");
			else if (ch == OPT_SEARCH)
				c.search = optarg;
			else
				c.summary = 1;
			break;
		case OPT_RANGE_MARKER:
		case OPT_CENTER_MARKER:
			if (markers || strcmp(cmd, "info") == 0 || strcmp(cmd, "formats") == 0 ||
			    strcmp(cmd, "query") == 0)
				rc = fail_usage("--%s applies to the views (tree, callers, flat, "
						"butterfly, top)",
						ch == OPT_RANGE_MARKER ? "range-from-marker"
								       : "center-from-marker");
			else if (ch == OPT_RANGE_MARKER)
				c.range_marker = optarg;
			else
				c.center_marker = optarg;
			break;
		case OPT_HOT: {
			char *end = NULL;
			double t = optarg ? strtod(optarg, &end) : 50;
			if (strcmp(cmd, "tree") != 0 && strcmp(cmd, "callers") != 0)
				rc = fail_usage("--hot-path applies to 'tree' and 'callers'");
			else if (optarg && (end == optarg || *end || !(t > 0 && t <= 100)))
				rc = fail_usage("--hot-path takes a percent in (0, 100], not '%s'",
						optarg);
			else
				c.hot_path = t / 100;
			break;
		}
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
		default: {
			if (ch < OPT_QUERY || ch >= OPT_QUERY + (int)NR_QUERY_OPTIONS)
				break;
			const char *name = query_options[ch - OPT_QUERY];
			if (markers && strcmp(name, "sort") == 0 && strcmp(cmd, "markers") == 0) {
				/* the marker table's own order */
				if (strcmp(optarg, "start") == 0)
					c.order = PV_MARKERS_BY_START;
				else if (strcmp(optarg, "duration") == 0)
					c.order = PV_MARKERS_BY_DURATION;
				else
					rc = fail_usage("--sort takes start or duration, not '%s'",
							optarg);
			} else if (markers && !marker_option(name)) {
				rc = fail_usage("--%s does not apply to '%s'", name, cmd);
			} else if (pv_query_set_option(&c.q, name, optarg, &err)) {
				rc = fail_usage("%s", err.msg);
			}
			break;
		}
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
	if (strcmp(cmd, "marker") == 0) {
		/* profview marker FILE N */
		if (nfiles != 2) {
			pv_query_release(&c.q);
			return fail_usage("'marker' takes a file and a marker number: profview marker "
					  "FILE N");
		}
		c.marker_arg = sub_argv[optind + 1];
		nfiles = 1;
		sub_argc--;
	}
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

/*
 * main.c - the profview command line: a thin front end over libprofview.
 *
 *   profview COMMAND [OPTIONS] FILE...     (profview FILE = profview tree FILE)
 *
 * A command is a row of the command table below ({name, fn, flags}, git's) or of the view-kind
 * table (pv_view_kinds: one view command each, cmd_view.c); each family runs in its own
 * cli/cmd_*.c. An option is a row of the option table with the command flag it needs: a
 * command without it rejects the option with the row's message.
 *
 * Exit codes: 0 success; 1 a runtime failure (out of memory); 2 bad usage, or input that cannot
 * be read or parsed (one line on stderr naming the file and the position).
 */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "heap.h"
#include "pv/format.h"
#include "pv/import.h"
#include "pv/view.h"
#include "say.h"
#include "tui/tui.h"

/* What a command takes. */
enum {
	CMD_FILES = 1u << 0,	    /* runs once per FILE (fn gets its profile) */
	CMD_VIEW = 1u << 1,	    /* the query names the view (the command's kind) */
	CMD_FROM_MARKER = 1u << 2,  /* --range-from-marker, --center-from-marker */
	CMD_HOT = 1u << 3,	    /* --hot-path */
	CMD_MARKERS = 1u << 4,	    /* of the query, only --thread, --range and -n apply */
	CMD_MARKER_TABLE = 1u << 5, /* --search, --summary, --sort start|duration */
	CMD_MARKER_ARG = 1u << 6,   /* FILE N */
	CMD_FLAME = 1u << 7,	    /* --max-nodes, --width */
	CMD_ACTIVITY = 1u << 8,	    /* --buckets, --start, --end */
	CMD_JSON = 1u << 9,	    /* prints JSON only */
	CMD_QUERY = 1u << 10,	    /* --query sets the view too */
	CMD_TUI = 1u << 11,	    /* --keys, --size, --source-root; --query takes a page's URL */
	CMD_DIFF = 1u << 12,	    /* two files (BASE NEW): --view, --normalize, --flame */
};

struct command {
	const char *name;
	int (*fn)(const struct cli *c, const char *path, const struct pv_profile *p);
	unsigned flags;
	const char *summary;
	/* a command with options of its own: it reads argv past its name (--help: its usage) */
	int (*own)(int argc, char **argv);
};

#define GRAPH (CMD_FILES | CMD_FROM_MARKER | CMD_JSON)
static const struct command commands[] = {
    {"info", cmd_info, CMD_FILES,
     "format, threads, metrics, table sizes, markers, what the import lost", NULL},
    /* here: one command per view kind (pv_view_kinds), cmd_view */
    {"flame", cmd_flame, GRAPH | CMD_FLAME,
     "the flame graph the page draws, as JSON (with --center: both graphs)", NULL},
    {"activity", cmd_activity, GRAPH | CMD_ACTIVITY,
     "the activity graph the page draws, as JSON: per thread, cost by time and category", NULL},
    {"annotate", cmd_annotate, CMD_FILES | CMD_FROM_MARKER,
     "the center's instructions with their self costs, by source line, from\n"
     "              objdump of the binary (perf annotate); --json",
     NULL},
    {"markers", cmd_markers, CMD_FILES | CMD_MARKERS | CMD_MARKER_TABLE,
     "the marker table (--search, --thread, --range, --sort, --summary)", NULL},
    {"marker", cmd_marker, CMD_FILES | CMD_MARKERS | CMD_MARKER_ARG,
     "one marker in full: profview marker FILE N", NULL},
    {"tui", NULL, CMD_FILES | CMD_FROM_MARKER | CMD_QUERY | CMD_TUI,
     "the terminal UI: every view around a movable center, markers, source\n"
     "              (keys: '?' inside, README.md, doc/tui.md)",
     NULL},
    {"diff", NULL, CMD_DIFF | CMD_FLAME,
     "two profiles' difference in a view: profview diff BASE NEW [--view V]", NULL},
    {"formats", cmd_formats, 0, "the formats profview reads", NULL},
    {"contexts", NULL, 0,
     "one row's values over the threads/ranks: per context, summary,\n"
     "              histogram (profview contexts --help)",
     cmd_contexts},
    {"export", NULL, 0, "write FILE in another tool's format (profview export --help)", cmd_export},
    {"trace", NULL, 0, "contexts x time (profview trace --help)", cmd_trace},
    {"snapshot", NULL, 0,
     "write FILE's profile as a snapshot that opens at once: profview\n"
     "              snapshot FILE -o OUT.pvs (profview snapshot --help)",
     cmd_snapshot},
    {"merge", NULL, 0,
     "many profiles as one snapshot, each input a context; over MPI\n"
     "              ranks under mpirun (profview merge --help)",
     cmd_merge},
    {"serve", NULL, 0,
     "the web UI: serves the profiles on a local page and prints its URL\n"
     "              (profview serve --help)",
     cmd_serve},
    {"record", NULL, 0,
     "run a command under perf record -g, then print its top or serve it\n"
     "              (profview record [-o FILE] [--serve] -- COMMAND ARGS...)",
     cmd_record},
    {"query", cmd_query, CMD_QUERY, "print the query given by the options as flags, URL and JSON",
     NULL},
};
#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* The command named s (a view kind's: *view set), else NULL. */
static const struct command *command_find(const char *s, struct command *view)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (strcmp(commands[i].name, s) == 0)
			return &commands[i];
	enum pv_view_kind k;
	if (pv_view_parse(s, &k))
		return NULL;
	const struct pv_view_kind_row *row = pv_view_kind(k);
	/* the hot path of a single tree (tree, callers) */
	*view = (struct command){row->name, cmd_view,
				 CMD_FILES | CMD_VIEW | CMD_FROM_MARKER |
				     (row->outputs == PV_OUT_TREE ? CMD_HOT : 0),
				 row->summary, NULL};
	return view;
}

static void usage(FILE *out)
{
	fputs("usage: profview COMMAND [OPTIONS] FILE...\n"
	      "       profview FILE...              (same as 'profview tree FILE...')\n"
	      "\n"
	      "commands:\n",
	      out);
	for (size_t i = 0; i < NR_COMMANDS; i++) {
		if (i == 1) /* the views after info */
			for (uint32_t k = 0; k < PV_NR_VIEW_KINDS; k++)
				fprintf(out, "  %-11s %s\n", pv_view_kinds[k].name,
					pv_view_kinds[k].summary);
		fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].summary);
	}
	fputs(
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
	    "  --focus-self SCOPE    only the samples whose own frame (leaf) is in SCOPE, alone\n"
	    "  --focus-inverted path:LEAF;CALLER;...   a node of the inverted tree: only the\n"
	    "                        samples whose stack ends so, cut at its last step\n"
	    "  --tag KEY=VALUE       keep samples with this label (pprof); --drop-tag drops them\n"
	    "  --range T0:T1         samples with T0 <= time < T1 (ms from the profile start)\n"
	    "  --thread NAME|TID|#N  only these threads (repeatable, merged; default all)\n"
	    "  --metric A[,B]        metrics to show (default: the profile's own)\n"
	    "  --derive 'NAME=FORMULA'   a derived metric, hpcviewer's syntax: $name, $N\n"
	    "                        or ${NAME} the row's value, @name the whole's,\n"
	    "                        + - * / ^ ( ), sum avg min max stdev sqrt log ...\n"
	    "  --by function|line|file|module|loop   granularity of the rows (loop: functions\n"
	    "                        and the loops in them, HPCToolkit)\n"
	    "  --percent center|whole           percentages of the center or the whole\n"
	    "  --inline keep|fold    inlined frames as frames (kind inline) or folded into\n"
	    "                        the function they are inlined in\n"
	    "  --self own|nested     a tree (or flat loop) row's self: its own, or with the\n"
	    "                        loops nested in it (HPCToolkit's exclusive cost of\n"
	    "                        procedures and loops)\n"
	    "  --depth N, --min-percent P, -n N, --sort self|total|delta   what to print (-n:\n"
	    "                        in a tree, rows a list; the rest is one '... N more'\n"
	    "                        row; delta: 'diff' only)\n"
	    "  --max-rows N          a tree prints at most N rows (default 100000; 0: all)\n"
	    "  --hot-path[=T]        tree, callers: only the hot path (hpcviewer): from the\n"
	    "                        top row, the heaviest child while it has T% (50) of its\n"
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
	    "\n",
	    out);
	fputs("diff BASE NEW (every view of two profiles: base, new, delta columns):\n"
	      "  --view KIND           tree (default), callers, flat, butterfly or top\n"
	      "  --normalize           scale the base to the new total: deltas compare shares\n"
	      "  --sort delta          rows by the size of their delta (lists: of self)\n"
	      "  --flame               the differential flame graph the page draws, as JSON\n"
	      "\n",
	      out);
	fputs("flame, activity (the page's graphs, as JSON):\n"
	      "  --max-nodes N, --width PX   flame: the heaviest N nodes (20000), none under a\n"
	      "                        pixel of a graph PX pixels wide\n"
	      "  --buckets N, --start MS, --end MS   activity: N time buckets (400) over the\n"
	      "                        window (default the profile's span)\n"
	      "\n"
	      "other options:\n"
	      "  --query Q       a whole query as a URL query string or JSON (from 'query')\n"
	      "  --format NAME   read FILE as this format instead of probing it\n"
	      "  --cache DIR     keep a snapshot of each file read in DIR (keyed by its path,\n"
	      "                  size and modification time) and open it from there next time\n"
	      "  --symbols DIR   perf.data: look for the binaries in DIR first (repeatable)\n"
	      "  --vmlinux FILE  perf.data: the kernel's symbols from FILE (perf's -k), used\n"
	      "                  when its build id is the recorded kernel's\n"
	      "  --no-symbols    perf.data: name no address (frames [MODULE])\n"
	      "  --json          JSON: {\"metric\",\"unit\",\"total\",\"rows\":[...]}\n"
	      "  -h, --help      this text;  --version   the version\n",
	      out);
}

/* profview tui --help: the UI's own options and its keys (the '?' overlay's lines). */
static void tui_usage(FILE *out)
{
	fputs("usage: profview tui [OPTIONS] FILE...\n"
	      "\n"
	      "the terminal UI: every view around a movable center, the markers, the source\n"
	      "(doc/tui.md); ']' and '[' switch between the FILEs\n"
	      "\n"
	      "options:\n"
	      "  --query URL           open on a page's state: its URL or query string (tab, sel,\n"
	      "                        mk, search and the query)\n"
	      "  --source-root DIR     where the source files of the profile are\n"
	      "  --keys 'K K ...'      no terminal: run the key names (Down, Enter, c, ...,\n"
	      "                        type:TEXT, size:WxH, click:Y,X, shot) and print the screen\n"
	      "  --size WxH            the screen's size with --keys (default 80x24)\n"
	      "  and every query option of 'profview --help' (--center, --thread, --by, ...)\n"
	      "\n",
	      out);
	size_t n;
	const char *const *lines = tui_help(&n);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s\n", lines[i]);
}

static int error_exit(const struct pv_error *err)
{
	cli_say("error", "%s", err->msg);
	return err->code == PV_ENOMEM ? EXIT_RUNTIME : EXIT_INPUT;
}

/* ---- options ---- */

enum {
	OPT_FORMAT = 256,
	OPT_CACHE,
	OPT_SYMBOLS,
	OPT_VMLINUX,
	OPT_NO_SYMBOLS,
	OPT_JSON,
	OPT_FROM,
	OPT_SEARCH,
	OPT_SUMMARY,
	OPT_RANGE_MARKER,
	OPT_CENTER_MARKER,
	OPT_HOT,
	OPT_MAX_NODES,
	OPT_WIDTH,
	OPT_BUCKETS,
	OPT_START,
	OPT_END,
	OPT_KEYS,
	OPT_SIZE,
	OPT_SOURCE_ROOT,
	OPT_VIEW,
	OPT_NORMALIZE,
	OPT_DIFF_FLAME,
	OPT_QUERY, /* + i: the query option pv_query_option_name(i) */
};

/* The command line's own options, each with the command flag it needs (0: any command) and
 * what the message says where it does not apply. */
static const struct cli_option {
	const char *name;
	int has_arg, id;
	unsigned needs;
	const char *applies; /* "--NAME applies to ..." */
} options[] = {
    {"format", required_argument, OPT_FORMAT, 0, NULL},
    {"cache", required_argument, OPT_CACHE, 0, NULL},
    {"symbols", required_argument, OPT_SYMBOLS, 0, NULL},
    {"vmlinux", required_argument, OPT_VMLINUX, 0, NULL},
    {"no-symbols", no_argument, OPT_NO_SYMBOLS, 0, NULL},
    {"json", no_argument, OPT_JSON, 0, NULL},
    {"help", no_argument, 'h', 0, NULL},
    {"version", no_argument, 'V', 0, NULL},
    {"query", required_argument, OPT_FROM, 0, NULL},
    {"search", required_argument, OPT_SEARCH, CMD_MARKER_TABLE, "'markers' only"},
    {"summary", no_argument, OPT_SUMMARY, CMD_MARKER_TABLE, "'markers' only"},
    {"range-from-marker", required_argument, OPT_RANGE_MARKER, CMD_FROM_MARKER, NULL},
    {"center-from-marker", required_argument, OPT_CENTER_MARKER, CMD_FROM_MARKER, NULL},
    {"hot-path", optional_argument, OPT_HOT, CMD_HOT, NULL},
    {"max-nodes", required_argument, OPT_MAX_NODES, CMD_FLAME, "'flame' and 'diff --flame'"},
    {"width", required_argument, OPT_WIDTH, CMD_FLAME, "'flame' and 'diff --flame'"},
    {"view", required_argument, OPT_VIEW, CMD_DIFF, "'diff'"},
    {"normalize", no_argument, OPT_NORMALIZE, CMD_DIFF, "'diff'"},
    {"flame", no_argument, OPT_DIFF_FLAME, CMD_DIFF, "'diff'"},
    {"buckets", required_argument, OPT_BUCKETS, CMD_ACTIVITY, "'activity'"},
    {"start", required_argument, OPT_START, CMD_ACTIVITY, "'activity'"},
    {"end", required_argument, OPT_END, CMD_ACTIVITY, "'activity'"},
    {"keys", required_argument, OPT_KEYS, CMD_TUI, "'tui'"},
    {"size", required_argument, OPT_SIZE, CMD_TUI, "'tui'"},
    {"source-root", required_argument, OPT_SOURCE_ROOT, CMD_TUI, "'tui' (and 'serve')"},
};
#define NR_OPTIONS (sizeof(options) / sizeof(options[0]))

/* The query's options (query.h) are long options too: OPT_QUERY + i names
 * pv_query_option_name(i); their values go to pv_query_set_option. */
#define NR_QUERY_OPTIONS PV_QUERY_NR_OPTIONS

/* The query options that apply to the marker commands (the rest shape call trees). */
static bool marker_option(const char *name)
{
	return strcmp(name, "thread") == 0 || strcmp(name, "range") == 0;
}

/* Where an option the command lacks applies, as its message says it. */
static int not_here(const struct cli_option *o)
{
	char list[256];
	size_t n = 0;
	if (o->applies)
		return cli_fail_usage("--%s applies to %s", o->name, o->applies);
	if (o->needs == CMD_HOT) { /* the kinds whose view is one tree */
		const char *names[PV_NR_VIEW_KINDS];
		uint32_t k = 0;
		for (uint32_t i = 0; i < PV_NR_VIEW_KINDS; i++)
			if (pv_view_kinds[i].outputs == PV_OUT_TREE)
				names[k++] = pv_view_kinds[i].name;
		for (uint32_t i = 0; i < k && n < sizeof(list); i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s'%s'",
					      i == 0	   ? ""
					      : i + 1 == k ? " and "
							   : ", ",
					      names[i]);
		return cli_fail_usage("--%s applies to %s", o->name, list);
	}
	for (uint32_t i = 0; i < PV_NR_VIEW_KINDS && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
				      pv_view_kinds[i].name);
	return cli_fail_usage("--%s applies to the views (%s)", o->name, list);
}

/* A count of at most max for option name. */
static int count_option(const char *name, const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long long v = *s >= '0' && *s <= '9' ? strtoull(s, &end, 10) : 0;
	if (!(*s >= '0' && *s <= '9') || *end || v < min || v > max)
		return cli_fail_usage("--%s takes %u to %u, not '%s'", name, min, max, s);
	*out = (uint32_t)v;
	return 0;
}

/* A time in ms from the profile's zero, as ns. */
static int ms_option(const char *name, const char *s, bool *has, int64_t *ns)
{
	char *end;
	double x = *s ? strtod(s, &end) : NAN;
	if (!*s || *end || !isfinite(x) || fabs(x) > 1e12)
		return cli_fail_usage("--%s takes a time in ms, not '%s'", name, s);
	*has = true;
	*ns = (int64_t)llround(x * 1e6);
	return 0;
}

/* One option of the command line (getopt's ch and optarg) into c: 0, an exit code, or -1 when
 * it was --help or --version (done). */
static int apply_option(struct cli *c, const struct command *cmd, int ch, const char *arg,
			const char *text)
{
	struct pv_error err;
	for (size_t i = 0; i < NR_OPTIONS; i++)
		if (options[i].id == ch && options[i].needs && !(cmd->flags & options[i].needs))
			return not_here(&options[i]);
	switch (ch) {
	case OPT_FORMAT:
	case OPT_CACHE:
	case OPT_SYMBOLS:
	case OPT_VMLINUX:
	case OPT_NO_SYMBOLS:
		if (pv_import_set_option(&c->imp,
					 ch == OPT_FORMAT    ? "format"
					 : ch == OPT_CACHE   ? "cache"
					 : ch == OPT_SYMBOLS ? "symbols"
					 : ch == OPT_VMLINUX ? "vmlinux"
							     : "no-symbols",
					 arg, &err))
			return cli_fail_usage("%s", err.msg);
		return 0;
	case OPT_JSON: c->json = 1; return 0;
	case OPT_FROM: {
		if (cmd->flags & CMD_TUI)
			return cli_tui_url(c, arg);
		/* a whole query as a URL query string or JSON; later flags add to it */
		enum pv_view_kind view = c->q.view;
		int r = arg[0] == '{' ? pv_query_from_json(&c->q, arg, strlen(arg), &err)
				      : pv_query_from_url(&c->q, arg, &err);
		if (r)
			return cli_fail_usage("--query: %s", err.msg);
		if (!(cmd->flags & (CMD_QUERY | CMD_DIFF)))
			c->q.view = view; /* the command names the view */
		return 0;
	}
	case 'n':
		return pv_query_set_option(&c->q, "n", arg, &err) ? cli_fail_usage("%s", err.msg)
								  : 0;
	case OPT_SEARCH: c->search = arg; return 0;
	case OPT_SUMMARY: c->summary = 1; return 0;
	case OPT_RANGE_MARKER: c->range_marker = arg; return 0;
	case OPT_CENTER_MARKER: c->center_marker = arg; return 0;
	case OPT_HOT: {
		char *end = NULL;
		double t = arg ? strtod(arg, &end) : 50;
		if (arg && (end == arg || *end || !(t > 0 && t <= 100)))
			return cli_fail_usage("--hot-path takes a percent in (0, 100], not '%s'",
					      arg);
		c->hot_path = t / 100;
		return 0;
	}
	case OPT_MAX_NODES:
		return count_option("max-nodes", arg, 1, PV_FLAME_MAX_NODES, &c->max_nodes);
	case OPT_WIDTH: return count_option("width", arg, 0, PV_FLAME_MAX_WIDTH, &c->width);
	case OPT_BUCKETS:
		return count_option("buckets", arg, 1, PV_ACTIVITY_MAX_BUCKETS, &c->buckets);
	case OPT_VIEW:
		if (pv_view_parse(arg, &c->q.view))
			return cli_fail_usage("--view takes tree, callers, flat, butterfly or top, "
					      "not '%s'",
					      arg);
		return 0;
	case OPT_NORMALIZE: c->normalize = true; return 0;
	case OPT_DIFF_FLAME: c->flame = true; return 0;
	case OPT_START: return ms_option("start", arg, &c->has_start, &c->start_ns);
	case OPT_END: return ms_option("end", arg, &c->has_end, &c->end_ns);
	case OPT_KEYS: c->tui_keys = arg; return 0;
	case OPT_SIZE: c->tui_size = arg; return 0;
	case OPT_SOURCE_ROOT: c->source_root = arg; return 0;
	case 'V': printf("profview %s\n", PV_VERSION); return -1;
	case 'h':
		if (cmd->flags & CMD_TUI)
			tui_usage(stdout);
		else
			usage(stdout);
		return -1;
	case ':': return cli_fail_usage("option '%s' needs a value", text);
	case '?': return cli_fail_usage("unknown option '%s'", text);
	default: break;
	}
	if (ch < OPT_QUERY || ch >= OPT_QUERY + (int)NR_QUERY_OPTIONS)
		return 0;
	const char *name = pv_query_option_name((uint32_t)(ch - OPT_QUERY));
	if ((cmd->flags & CMD_MARKER_TABLE) && strcmp(name, "sort") == 0) {
		/* the marker table's own order */
		if (strcmp(arg, "start") == 0)
			c->order = PV_MARKERS_BY_START;
		else if (strcmp(arg, "duration") == 0)
			c->order = PV_MARKERS_BY_DURATION;
		else
			return cli_fail_usage("--sort takes start or duration, not '%s'", arg);
		return 0;
	}
	if ((cmd->flags & CMD_MARKERS) && !marker_option(name))
		return cli_fail_usage("--%s does not apply to '%s'", name, cmd->name);
	if (pv_query_set_option(&c->q, name, arg, &err))
		return cli_fail_usage("%s", err.msg);
	return 0;
}

/* ---- running ---- */

/*
 * `top` of the whole profile by function, printed as text: a call-graph format answers it from
 * the file's own costs (eng_graph_top), so its importer need not estimate calling contexts.
 */
static bool reads_no_context(const struct command *cmd, const struct cli *c)
{
	const struct pv_query *q = &c->q;
	return (cmd->flags & CMD_VIEW) && q->view == PV_VIEW_TOP && !c->json && !q->nr_center &&
	       !q->nr_filters && !q->nr_metrics && !q->nr_threads && !q->has_range &&
	       !q->inside_markers && !q->nr_derive && q->by == PV_BY_FUNCTION && !c->range_marker &&
	       !c->center_marker;
}

static int run_file(const struct command *cmd, const char *path, const struct cli *c)
{
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_profile *p = NULL;
	/* a snapshot's checksums verified before the command prints */
	int rc = cli_open(path, &c->imp, 1, &p, &err);
	if (rc)
		return error_exit(&err);
	rc = cmd->fn(c, path, p);
	pv_profile_free(p);
	return rc;
}

/* Opens the n files into ps (a snapshot's checksums verified), all or none: an exit code. */
static int open_all(const struct cli *c, int n, char **files, struct pv_profile **ps)
{
	int rc = 0;
	for (int i = 0; i < n && !rc; i++) {
		struct pv_error err;
		pv_error_clear(&err);
		if (cli_open(files[i], &c->imp, 1, &ps[i], &err))
			rc = error_exit(&err);
	}
	return rc;
}

/* profview diff BASE NEW */
static int run_diff(struct cli *c, int nfiles, char **files)
{
	if (nfiles != 2)
		return cli_fail_usage("'diff' takes two files: profview diff BASE NEW");
	if (c->q.sort == PV_SORT_DELTA && c->flame)
		return cli_fail_usage("--flame draws the new profile's widths: --sort delta "
				      "does not apply");
	struct pv_profile *ps[2] = {NULL, NULL};
	int rc = open_all(c, 2, files, ps);
	if (!rc)
		rc = cmd_diff(c, (const char *const *)files, (const struct pv_profile **)ps);
	pv_profile_free(ps[0]);
	pv_profile_free(ps[1]);
	return rc;
}

/* profview tui FILE...: every file open at once, one TUI switching between them */
static int run_tui(struct cli *c, int nfiles, char **files)
{
	struct pv_profile **ps = calloc((size_t)nfiles, sizeof(*ps));
	if (!ps)
		return cli_fail_usage("out of memory");
	int rc = open_all(c, nfiles, files, ps);
	if (!rc)
		rc = cmd_tui(c, nfiles, (const char *const *)files, (const struct pv_profile **)ps);
	for (int i = 0; i < nfiles; i++)
		pv_profile_free(ps[i]);
	free(ps);
	return rc;
}

static int run(struct cli *c, const struct command *cmd, int argc, char **argv)
{
	struct option longopts[NR_OPTIONS + NR_QUERY_OPTIONS + 1];
	size_t nl = 0;
	for (size_t i = 0; i < NR_OPTIONS; i++)
		longopts[nl++] =
		    (struct option){options[i].name, options[i].has_arg, NULL, options[i].id};
	for (uint32_t i = 0; i < NR_QUERY_OPTIONS; i++) {
		/* one letter (n) too: --n 3 is -n 3, not an abbreviation of --normalize */
		longopts[nl++] = (struct option){pv_query_option_name(i), required_argument, NULL,
						 OPT_QUERY + (int)i};
	}
	longopts[nl] = (struct option){NULL, 0, NULL, 0};
	optind = 1;
	opterr = 0;
	int ch, rc;
	while ((ch = getopt_long(argc, argv, ":hn:", longopts, NULL)) != -1)
		if ((rc = apply_option(c, cmd, ch, optarg, argv[optind - 1])))
			return rc < 0 ? 0 : rc;
	if (cmd->flags & CMD_DIFF)
		return run_diff(c, argc - optind, argv + optind);
	if (!(cmd->flags & CMD_FILES))
		return cmd->fn(c, NULL, NULL);
	if (optind >= argc) /* tree --center FILE: FILE was --center's value */
		return cli_fail_usage_of(cmd->name, "'%s' needs a FILE (after the options' values)",
					 cmd->name);
	int nfiles = argc - optind;
	if (cmd->flags & CMD_MARKER_ARG) {
		/* profview marker FILE N */
		if (nfiles != 2)
			return cli_fail_usage("'marker' takes a file and a marker number: profview "
					      "marker FILE N");
		c->marker_arg = argv[optind + 1];
		nfiles = 1;
		argc--;
	}
	if (cmd->flags & CMD_TUI)
		return run_tui(c, nfiles, argv + optind);
	if (cmd->flags & CMD_JSON)
		c->json = 1;
	c->imp.no_contexts = reads_no_context(cmd, c);
	rc = 0;
	for (int i = optind; i < argc; i++) {
		char shown[4096];
		if (nfiles > 1 && !c->json)
			printf("%s== %s ==\n", i > optind ? "\n" : "",
			       pv_escaped(shown, sizeof(shown), argv[i]));
		int r = run_file(cmd, argv[i], c);
		fflush(stdout);
		if (r && !rc)
			rc = r;
	}
	return rc;
}

/* Edits (insert, delete, substitute, swap two neighbours) from a to b, up to 3 (more: 3). */
static unsigned edit_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	if (n > 32 || m > 32)
		return 3;
	unsigned d[33][33];
	for (size_t i = 0; i <= n; i++)
		for (size_t j = 0; j <= m; j++) {
			if (!i || !j) {
				d[i][j] = (unsigned)(i + j);
				continue;
			}
			unsigned sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			unsigned del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
			unsigned best = sub < del ? sub : del;
			best = ins < best ? ins : best;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[n][m] < 3 ? d[n][m] : 3;
}

/*
 * profview WORD ... where WORD is neither a command nor a file (nor looks like a path: with a
 * '/' or a '.', it is a missing file): one line naming it and the nearest command (git's "did
 * you mean"), nothing on standard output, exit 2.
 */
static int unknown_command(const char *word)
{
	const char *best = NULL;
	unsigned bd = 3;
	for (size_t i = 0; i < NR_COMMANDS + PV_NR_VIEW_KINDS; i++) {
		const char *name =
		    i < NR_COMMANDS ? commands[i].name : pv_view_kinds[i - NR_COMMANDS].name;
		unsigned d = edit_distance(word, name);
		/* a prefix of a command ("butter") is as near as one edit */
		if (strncmp(word, name, strlen(word)) == 0 && d > 1)
			d = 1;
		if (d < bd) {
			bd = d;
			best = name;
		}
	}
	if (best)
		cli_say("error", "unknown command '%s' (did you mean '%s'?)", word, best);
	else
		cli_say("error", "unknown command '%s', and no such file (see 'profview --help')",
			word);
	return EXIT_INPUT;
}

int main(int argc, char **argv)
{
	struct command view;
	const struct command *cmd = argc > 1 ? command_find(argv[1], &view) : NULL;
	cli_heap(!cmd || (strcmp(cmd->name, "serve") != 0 && strcmp(cmd->name, "tui") != 0));
	if (cmd && cmd->own)
		return cmd->own(argc - 1, argv + 1);
	int argi = 2;
	if (!cmd && argc > 1 && argv[1][0] != '-' && !strpbrk(argv[1], "/.") &&
	    access(argv[1], F_OK) != 0)
		return unknown_command(argv[1]);
	if (!cmd) { /* profview FILE... */
		cmd = command_find("tree", &view);
		argi = 1;
	}
	struct cli c = {.cmd = cmd->name, .tui_marker = -1};
	pv_query_init(&c.q);
	if (cmd->flags & CMD_VIEW)
		pv_view_parse(cmd->name, &c.q.view);
	/* getopt over argv shifted past the command */
	int rc = run(&c, cmd, argc - argi + 1, argv + argi - 1);
	pv_query_release(&c.q);
	free(c.tui_tab);
	free(c.tui_sel);
	free(c.tui_search);
	return rc;
}

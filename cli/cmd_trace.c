/*
 * cmd_trace.c - `profview trace FILE`: the trace view on the command line (doc/trace.md).
 *
 *   profview trace FILE                          the trace's size: contexts, records, time range
 *   profview trace FILE --context N --at T       the call stack of context N at T ms
 *   profview trace FILE --window T0:T1 [--contexts C0:C1] [--size WxH] [--depth D]
 *                                                a window: pixels per function (--json: the
 *                                                function id of every pixel)
 *   profview trace FILE --boxes --context N [--window T0:T1] [--min MS | --width PX]
 *                                                the stack chart of context N: its boxes
 *
 * The query options (--center, --thread, the filters) apply as in every command: the contexts
 * (--context, --contexts) are the query's threads in thread order, and only the records
 * passing the query are coloured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pv/format.h"
#include "pv/import.h"
#include "pv/query.h"
#include "pv/trace.h"
#include "say.h"

struct trace_args {
	const char *file;
	struct pv_import_opts imp; /* --format, --cache */
	bool json;
	bool has_context, has_at, has_window, has_contexts, boxes;
	double min_ms;
	uint32_t context, chart_width;
	double at_ms;
	double t0_ms, t1_ms;
	uint32_t c0, c1, width, height, depth;
	struct pv_query q;
};

static void trace_usage(FILE *out)
{
	fputs(
	    "usage: profview trace FILE [OPTIONS]\n"
	    "\n"
	    "The trace view: execution contexts (threads, ranks) x time, each context's records\n"
	    "(HPCToolkit traces) or timed samples in time order.\n"
	    "\n"
	    "  (no option)           contexts, records and the time range\n"
	    "  --context N --at T    the call stack of context N at T ms, root first, each\n"
	    "                        frame with its depth; N counts the query's threads\n"
	    "                        (--thread; all threads, as 'info' numbers them, without)\n"
	    "  --window T0:T1        a window of the trace (ms): the share of pixels per\n"
	    "                        function; with --json the function id of each pixel\n"
	    "  --contexts C0:C1      the window's contexts [C0, C1) of the query's (default all)\n"
	    "  --size WxH            the window's pixels (default 80x24)\n"
	    "  --depth D             the call depth coloured (default 0; a shorter stack shows\n"
	    "                        its deepest frame)\n"
	    "  --boxes --context N   the stack chart of context N over --window (default the\n"
	    "                        whole trace): a box per depth and run of records\n"
	    "                        sharing their call path down to it\n"
	    "  --min MS              --boxes: leave out boxes shorter than MS\n"
	    "  --width PX            --boxes: as drawn PX pixels wide, at most a box a pixel\n"
	    "                        and depth (the page's Stack Chart)\n"
	    "  --json                JSON (doc/trace.md)\n"
	    "  --format NAME         read FILE as this format\n"
	    "  --cache DIR           keep a snapshot of FILE in DIR, open it next time\n"
	    "  query options (--center, --thread, --drop, --merge, ...): only the records\n"
	    "  that pass the query are coloured; --thread picks the contexts\n",
	    out);
}

#define bad(...) cli_fail_usage_of("trace", __VA_ARGS__)

static bool parse_u32(const char *s, uint32_t *out)
{
	char *e;
	if (*s < '0' || *s > '9')
		return false;
	unsigned long long v = strtoull(s, &e, 10);
	if (*e || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

static bool parse_ms(const char *s, double *out)
{
	char *e;
	double v = strtod(s, &e);
	if (e == s || *e || !(v > -1e12 && v < 1e12))
		return false;
	*out = v;
	return true;
}

/* "A:B" into two values of one parser. */
static bool parse_pair(const char *s, char sep, char *a, char *b, size_t n)
{
	const char *c = strchr(s, sep);
	if (!c || (size_t)(c - s) >= n || strlen(c + 1) >= n)
		return false;
	memcpy(a, s, (size_t)(c - s));
	a[c - s] = 0;
	memcpy(b, c + 1, strlen(c + 1) + 1);
	return true;
}

static int parse_args(int argc, char **argv, struct trace_args *a)
{
	struct pv_error err;
	char x[64], y[64];
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			trace_usage(stdout);
			return -1;
		}
		if (strcmp(arg, "--json") == 0) {
			a->json = true;
			continue;
		}
		if (strcmp(arg, "--boxes") == 0) {
			a->boxes = true;
			continue;
		}
		if (strncmp(arg, "--", 2) != 0) {
			if (a->file)
				return bad("one file at a time ('%s' is a second)", arg);
			a->file = arg;
			continue;
		}
		/* --name value or --name=value */
		char name[64];
		const char *eq = strchr(arg, '='), *val;
		if (eq) {
			snprintf(name, sizeof(name), "%.*s", (int)(eq - arg - 2), arg + 2);
			val = eq + 1;
		} else {
			snprintf(name, sizeof(name), "%s", arg + 2);
			if (i + 1 >= argc)
				return bad("option '%s' needs a value", arg);
			val = argv[++i];
		}
		if (strcmp(name, "format") == 0 || strcmp(name, "cache") == 0) {
			struct pv_error e;
			if (pv_import_set_option(&a->imp, name, val, &e))
				return bad("%s", e.msg);
		} else if (strcmp(name, "context") == 0) {
			if (!parse_u32(val, &a->context))
				return bad("--context takes a context number, not '%s'", val);
			a->has_context = true;
		} else if (strcmp(name, "min") == 0) {
			if (!parse_ms(val, &a->min_ms) || a->min_ms < 0)
				return bad("--min takes a duration in ms (0 or more), not '%s'",
					   val);
		} else if (strcmp(name, "width") == 0) {
			if (!parse_u32(val, &a->chart_width) || !a->chart_width)
				return bad("--width takes pixels (above 0), not '%s'", val);
		} else if (strcmp(name, "at") == 0) {
			if (!parse_ms(val, &a->at_ms))
				return bad("--at takes a time in ms, not '%s'", val);
			a->has_at = true;
		} else if (strcmp(name, "window") == 0) {
			if (!parse_pair(val, ':', x, y, sizeof(x)) || !parse_ms(x, &a->t0_ms) ||
			    !parse_ms(y, &a->t1_ms) || !(a->t0_ms < a->t1_ms))
				return bad("--window takes T0:T1 in ms with T0 < T1, not '%s'",
					   val);
			a->has_window = true;
		} else if (strcmp(name, "contexts") == 0) {
			if (!parse_pair(val, ':', x, y, sizeof(x)) || !parse_u32(x, &a->c0) ||
			    !parse_u32(y, &a->c1) || a->c0 >= a->c1)
				return bad("--contexts takes C0:C1 with C0 < C1, not '%s'", val);
			a->has_contexts = true;
		} else if (strcmp(name, "size") == 0) {
			if (!parse_pair(val, 'x', x, y, sizeof(x)) || !parse_u32(x, &a->width) ||
			    !parse_u32(y, &a->height) || !a->width || !a->height)
				return bad("--size takes WxH (pixels, both above 0), not '%s'",
					   val);
		} else if (strcmp(name, "depth") == 0) {
			if (!parse_u32(val, &a->depth))
				return bad("--depth takes a call depth (0 is the root), not '%s'",
					   val);
		} else {
			int rc = pv_query_set_option(&a->q, name, val, &err);
			if (rc == 1)
				return bad("unknown option '%s'", arg);
			if (rc)
				return bad("%s", err.msg);
		}
	}
	if (!a->file) {
		trace_usage(stderr);
		return 2;
	}
	if (a->boxes && (!a->has_context || a->has_at))
		return bad("%s", "--boxes takes --context N (and --window, not --at)");
	if (a->chart_width && (!a->boxes || a->min_ms > 0))
		return bad("%s", "--width goes with --boxes (and not with --min)");
	if (!a->boxes && a->has_at != a->has_context)
		return bad("%s", "--context and --at go together");
	if (a->has_at && a->has_window)
		return bad("%s", "--at and --window are two questions: ask one at a time");
	return 0;
}

/* ms as given on the command line to the nearest ns (0.1 + 0.2 ms is 300000 ns, not 299999) */
static int64_t ms_ns(double ms)
{
	return (int64_t)(ms * 1e6 + (ms < 0 ? -0.5 : 0.5));
}

/* The call stack of context --context of the query at --at (pv_print_trace_stack). */
static int run_at(const struct trace_args *a, const struct pv_trace_paint *pt)
{
	uint32_t n = pv_trace_paint_contexts(pt);
	if (a->context >= n) {
		cli_say("error", "%s: --context %u: the query has %u contexts (0 to %u)", a->file,
			a->context, n, n ? n - 1 : 0);
		return 2;
	}
	return pv_print_trace_stack(stdout, pt, a->context, ms_ns(a->at_ms), a->json) ? 1 : 0;
}

static int run(const struct trace_args *a, const struct pv_trace *t)
{
	struct pv_error err;
	pv_error_clear(&err);
	if (!a->has_window && !a->has_at && !a->boxes)
		return pv_print_trace_overview(stdout, t, a->json) ? 1 : 0;
	struct pv_trace_paint *pt = NULL;
	int rc = pv_trace_paint_new(t, &a->q, a->depth, &pt, &err);
	if (rc) {
		cli_say("error", "%s: %s", a->file, err.msg);
		return rc == PV_ENOMEM ? 1 : 2;
	}
	if (a->has_at) {
		rc = run_at(a, pt);
		pv_trace_paint_free(pt);
		return rc;
	}
	if (a->boxes) {
		int64_t start, end;
		pv_trace_range(t, &start, &end);
		int64_t t0 = a->has_window ? ms_ns(a->t0_ms) : start;
		int64_t t1 = a->has_window ? ms_ns(a->t1_ms) : end;
		rc = a->chart_width ? pv_print_trace_chart(stdout, pt, a->context, t0, t1,
							   a->chart_width, a->json, &err)
				    : pv_print_trace_boxes(stdout, pt, a->context, t0, t1,
							   ms_ns(a->min_ms), a->json, &err);
		pv_trace_paint_free(pt);
		if (rc)
			cli_say("error", "%s: %s", a->file, err.msg);
		return rc == PV_ENOMEM || rc == PV_EIO ? 1 : rc ? 2 : 0;
	}
	struct pv_trace_window w = {
	    .t0 = ms_ns(a->t0_ms),
	    .t1 = ms_ns(a->t1_ms),
	    .c0 = a->has_contexts ? a->c0 : 0,
	    .c1 = a->has_contexts ? a->c1 : pv_trace_paint_contexts(pt),
	    .width = a->width ? a->width : 80,
	    .height = a->height ? a->height : 24,
	};
	struct pv_trace_print o = {.json = a->json, .records = a->json};
	rc = pv_print_trace_window(stdout, pt, &w, &o, &err);
	pv_trace_paint_free(pt);
	if (rc) {
		cli_say("error", "%s: %s", a->file, err.msg);
		return rc == PV_ENOMEM ? 1 : 2;
	}
	return 0;
}

int cmd_trace(int argc, char **argv)
{
	struct trace_args a;
	memset(&a, 0, sizeof(a));
	pv_query_init(&a.q);
	int rc = parse_args(argc, argv, &a);
	if (rc) {
		pv_query_release(&a.q);
		return rc < 0 ? 0 : rc;
	}
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_profile *p = NULL;
	struct pv_trace *t = NULL;
	rc = cli_open(a.file, &a.imp, 1, &p, &err);
	if (!rc)
		rc = pv_trace_open(p, &t, &err);
	if (rc) {
		cli_say("error", "%s", err.msg);
		rc = rc == PV_ENOMEM ? 1 : 2;
	} else {
		rc = run(&a, t);
	}
	pv_trace_free(t);
	pv_profile_free(p);
	pv_query_release(&a.q);
	return rc;
}

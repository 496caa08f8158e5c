/*
 * query.h - one value that says which view of a profile to compute.
 *
 * A query holds the view kind, the center (a set of scopes), the filters in the order they apply,
 * the metrics, the granularity, the threads, the time range, the percent base and the thresholds.
 * Everything is kept as text as the user wrote it (a scope "re:^std::", a thread "GeckoMain"), so
 * a query needs no profile to exist, prints back exactly, and reads the same from CLI flags, a URL
 * query string and JSON. It is resolved against a profile when a view is computed (view.h).
 *
 * Scope syntax (center and filters):
 *   NAME                every function of that exact name
 *   NAME@FILE:LINE[:COL] the function NAME defined at LINE (and column COL) of a file whose
 *                       path ends with FILE (two anonymous JavaScript functions of one line)
 *   NAME@FILE           the function NAME of a file whose path ends with FILE, at any line
 *                       (callgrind's functions of one name in two files)
 *   re:REGEX            every function whose name matches (POSIX extended)
 *   file:PATH           every function of a file whose path ends with PATH
 *   module:NAME         every function of a module (binary, library, resource)
 *   line:FILE:LINE      a source line; FUNCTION:LINE also names a line
 *   path:a;b;c          one call path from the root (a step: NAME or NAME@FILE:LINE[:COL])
 *   loop:FILE:LINE      the loops whose header is at that line (HPCToolkit, doc/hpctoolkit.md);
 *                       loop:FUNCTION:LINE names them by their function
 *
 * Ownership: a query owns its strings; pv_query_release() frees them. pv_query_init() sets the
 * defaults (top-down view, no center, no filter, the profile's default metric, function
 * granularity, all threads, whole time range, percentages of the center).
 */
#ifndef PV_QUERY_H
#define PV_QUERY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pv/error.h"

enum pv_view_kind {
	PV_VIEW_TREE = 0,  /* top-down */
	PV_VIEW_CALLERS,   /* bottom-up */
	PV_VIEW_FLAT,	   /* module > file > function > line */
	PV_VIEW_BUTTERFLY, /* callers, center, callees */
	PV_VIEW_TOP,	   /* one row per function (or per scope at the granularity) */
};

enum pv_filter_kind {
	PV_FILTER_INCLUDE = 0,	      /* keep samples whose stack has the scope */
	PV_FILTER_DROP,		      /* drop samples whose stack has the scope */
	PV_FILTER_MERGE,	      /* remove the scope's frames; cost goes to the caller */
	PV_FILTER_COLLAPSE_RECURSION, /* A>B>A>C becomes A>C */
	PV_FILTER_COLLAPSE_MODULE,    /* consecutive frames of a module become one */
	PV_FILTER_FOCUS_CATEGORY, /* keep only frames of a category (others merge into callers) */
	PV_FILTER_TAG,		  /* keep samples with the label KEY=VALUE (pprof's -tagfocus) */
	PV_FILTER_DROP_TAG,	  /* drop samples with the label KEY=VALUE (pprof's -tagignore) */
	/* hpcviewer's CCT filters and Firefox Profiler transforms (doc/hpctoolkit.md) */
	PV_FILTER_COLLAPSE_SUBTREE, /* keep the scope's frame, its callees' cost becomes its self */
	PV_FILTER_PRUNE, /* remove the scope's frame and its callees, cost to the caller */
	PV_FILTER_COLLAPSE_DIRECT_RECURSION, /* A>A>B becomes A>B; A>B>A stays */
	PV_FILTER_FOCUS_SELF, /* keep the samples whose own frame (the leaf) is in the scope */
	/* the Firefox Profiler's focus on a node of the inverted tree: path:LEAF;CALLER;... read
	 * from the leaf (a plain scope: one step); keep the samples whose stack ends so, cut at the
	 * last step (its callees' cost becomes its self) */
	PV_FILTER_FOCUS_INVERTED,
};

enum pv_granularity {
	PV_BY_FUNCTION = 0,
	PV_BY_LINE,
	PV_BY_FILE,
	PV_BY_MODULE,
	PV_BY_LOOP, /* functions and the loops in them (HPCToolkit: doc/hpctoolkit.md) */
};

enum pv_percent_base {
	PV_PERCENT_CENTER = 0, /* of the center's total (the whole profile without a center) */
	PV_PERCENT_WHOLE,      /* of the whole filtered profile */
};

enum pv_sort_key {
	PV_SORT_DEFAULT = 0, /* none named: the view kind's own order (pv_view_kind_row.sort) */
	PV_SORT_SELF,
	PV_SORT_TOTAL,
	PV_SORT_DELTA, /* a diff's rows by the size of their delta (diff.h); other views refuse it
			*/
};

/* Inlined frames (doc/samples-and-inlines.md). */
enum pv_inline_mode {
	PV_INLINE_KEEP = 0, /* frames of their own, rows of kind "inline" */
	PV_INLINE_FOLD,	    /* folded into the function they are inlined in (pprof's -noinlines) */
};

/*
 * The self column of a top-down tree (doc/hpctoolkit.md): a row's own cost, or (nested) its own
 * cost and that of the loops and the statements of loops nested in it: HPCToolkit's exclusive
 * cost of a procedure and of a loop in a format-4 database.
 */
enum pv_self_mode {
	PV_SELF_OWN = 0,
	PV_SELF_NESTED,
};

struct pv_filter {
	enum pv_filter_kind kind;
	char *arg; /* a scope, a module name or a category name */
};

#define PV_QUERY_MAX 64	    /* scopes, filters, metrics, threads: at most this many each */
#define PV_TREE_ROWS 100000 /* the default row budget of a printed tree (max_rows) */

struct pv_query {
	enum pv_view_kind view;
	char *center[PV_QUERY_MAX];
	uint32_t nr_center;
	struct pv_filter filters[PV_QUERY_MAX];
	uint32_t nr_filters;
	char *metrics[PV_QUERY_MAX]; /* none = the profile's default */
	uint32_t nr_metrics;
	enum pv_granularity by;
	char *threads[PV_QUERY_MAX]; /* names, tids, #INDEX or re:REGEX (pv_threads_mark);
				      * none = all, merged */
	uint32_t nr_threads;
	bool has_range;
	int64_t range_start_ns, range_end_ns; /* from the profile's zero: start <= t < end;
					       * an open end is INT64_MIN / INT64_MAX */
	char *inside_markers; /* a marker search (marker.h): keep only the samples inside the
			       * interval of a matching marker of their thread; NULL = all */
	enum pv_percent_base percent;
	double min_percent;    /* rows below this share are cut (0 = none); kept to 1e-6 % */
	uint32_t depth;	       /* rows deeper than this are cut (0 = no limit) */
	uint32_t limit;	       /* list views: at most this many rows; trees: at most this many rows
				* of each list, the rest as one "more" row (0 = all) */
	uint32_t max_rows;     /* trees: at most this many rows printed in all, the rest counted
				* (0 = no limit; default PV_TREE_ROWS) */
	enum pv_sort_key sort; /* list views: the column to sort by */
	enum pv_inline_mode inlines; /* inlined frames: kept (default) or folded, before the
				      * filters */
	enum pv_self_mode self;	     /* top-down trees' self column: own (default) or nested */
	char *derive[PV_QUERY_MAX];  /* derived metrics "NAME=FORMULA" (doc/hpctoolkit.md) */
	uint32_t nr_derive;
};

void pv_query_init(struct pv_query *q);
/* The smallest cost that q's --min-percent keeps of base: rows below it are cut (0: none is). */
int64_t pv_query_min_cost(const struct pv_query *q, int64_t base);
void pv_query_release(struct pv_query *q);
/* A deep copy; returns 0 or PV_ENOMEM. */
int pv_query_copy(struct pv_query *dst, const struct pv_query *src);
/* Same query (every field, filters in order). */
bool pv_query_equal(const struct pv_query *a, const struct pv_query *b);

/* Adders (copy their arguments); PV_ELIMIT past PV_QUERY_MAX, PV_ENOMEM. */
int pv_query_add_center(struct pv_query *q, const char *scope);
int pv_query_add_filter(struct pv_query *q, enum pv_filter_kind k, const char *arg);
int pv_query_add_metric(struct pv_query *q, const char *name);
int pv_query_add_thread(struct pv_query *q, const char *thread);
int pv_query_add_derive(struct pv_query *q, const char *name_formula);

/* Names used in every notation: "tree", "include", "line", "whole", ... */
const char *pv_view_name(enum pv_view_kind v);
const char *pv_filter_name(enum pv_filter_kind k);
const char *pv_granularity_name(enum pv_granularity g);
int pv_view_parse(const char *s, enum pv_view_kind *out);
int pv_filter_parse(const char *s, enum pv_filter_kind *out);
int pv_granularity_parse(const char *s, enum pv_granularity *out);

/*
 * Command-line notation. pv_query_set_option() takes one long option name (without "--") and
 * its value, as the CLI parses them: center, include, drop, merge, collapse-recursion,
 * collapse-module, focus-category, tag, drop-tag, metric (a,b), by, thread, range (T0:T1 in ms),
 * percent, min-percent, depth, n, sort, inside-markers, inline (keep|fold), max-rows, self
 * (own|nested), derive (NAME=FORMULA, repeatable; the formula's syntax is checked here, its
 * metrics when a view is computed). Returns 0, PV_EINVAL with err ("--by takes ...") or 1 when the
 * name is not a query option.
 */
int pv_query_set_option(struct pv_query *q, const char *name, const char *value,
			struct pv_error *err);
/* The long option names pv_query_set_option takes: name i < PV_QUERY_NR_OPTIONS. */
#define PV_QUERY_NR_OPTIONS 28
const char *pv_query_option_name(uint32_t i);
/*
 * The flags that rebuild q (view not included: it is the command), as one line.
 * Every writer returns a string to free(), NULL when out of memory. The readers overwrite q
 * (it needs no pv_query_init, but must not hold strings) and leave the defaults on failure.
 */
char *pv_query_to_args(const struct pv_query *q);

/* URL query string: view=tree&center=foo&filter=merge:bar&metric=a,b&by=line&...
 * (inside-markers=SEARCH, inline=fold, max-rows=N, self=nested, derive=NAME%3DFORMULA) */
char *pv_query_to_url(const struct pv_query *q);
/* Percent-decodes s[0..n) ('+' is a space) into a new string to free(); NULL when out of memory,
 * or with *bad set for a broken escape or %00 (which would cut the string short). */
char *pv_url_decode(const char *s, size_t n, bool *bad);
int pv_query_from_url(struct pv_query *q, const char *s, struct pv_error *err);
/*
 * One decoded key=value pair of the URL notation set in q (a request's parameter, decoded
 * once): the keys and values pv_query_from_url reads, metric's value split at its commas.
 * Returns 0, or PV_EINVAL with err ("unknown query key 'K'", "by takes ...") or PV_ENOMEM.
 */
int pv_query_set_param(struct pv_query *q, const char *key, const char *value,
		       struct pv_error *err);
/* The query of decoded pairs (a request's parameters) through pv_query_set_param, those skip()
 * names left out. Overwrites q as the readers do. */
int pv_query_from_params(struct pv_query *q, const char *const *keys, const char *const *values,
			 uint32_t n, bool (*skip)(const char *key), struct pv_error *err);

/* JSON: {"view": "tree", "center": [...], "filters": [{"merge": "bar"}], ...,
 * "inside_markers": null or "SEARCH", "inline": "keep" or "fold", "max_rows": N, "self": "own"
 * or "nested", "derive": ["NAME=FORMULA", ...]} ("inline", "inside_markers", "max_rows", "self"
 * and "derive" are written only when set) */
char *pv_query_to_json(const struct pv_query *q);
int pv_query_from_json(struct pv_query *q, const char *s, size_t len, struct pv_error *err);

#endif

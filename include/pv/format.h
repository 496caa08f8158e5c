/*
 * format.h - text and JSON renderings of views, shared by every front end.
 *
 * Output is locale-independent and deterministic (no hash order), so it can be compared byte for
 * byte. Text tables are for people; JSON has one shape for every view:
 *   {"metric": NAME, "unit": UNIT, "total": N, "rows": [ROW, ...]}
 *   ROW = {"name", "module", "file", "line", "total", "self", "children": [ROW, ...]}
 * (unknown fields are null; list views have no "children").
 */
#ifndef PV_FORMAT_H
#define PV_FORMAT_H

#include <stdbool.h>
#include <stdio.h>

#include "pv/graphs.h"
#include "pv/info.h"
#include "pv/jsonw.h"
#include "pv/marker.h"
#include "pv/rows.h"
#include "pv/view.h"

/*
 * Every printer returns 0, PV_ENOMEM or PV_EIO (the output failed); after an error the output
 * may hold part of an answer, so a front end reports the error and exits non-zero.
 */

struct pv_print_opts {
	bool json;
	const char *threads_label; /* "all threads" or the selection, for the text header */
	const char *base_label, *new_label; /* a diff's two profiles, for the text header */
};

/*
 * A view of a query (view.h): trees, butterfly, flat or list, as text or JSON. What is printed
 * is the query's: --depth, --min-percent, -n and --max-rows cut trees, -n lists.
 */
int pv_print_view(FILE *out, const struct pv_view *v, const struct pv_print_opts *o);
/*
 * The difference of two profiles (diff.h) in its view's shape: text with base, base%, new,
 * new%, delta and delta% (relative to the base) columns per metric; JSON {"metric", "unit",
 * "normalize", "metrics": [{"name", "base_name", "unit", "base_total", "base_scaled",
 * "new_total"}], "view", "sort", "column" ("self" or "total": the one the text shows), "center"?,
 * "callers"?, "rows": [ROW]}, ROW {"name", "kind", "module", "file", "line", "side":
 * "both"|"base"|"new", "base": {"total", "self"}, "new", "delta", "values"? (the other metrics'),
 * "children"}. pv_json_diff writes the object into j (the page's /api/diff answer).
 */
struct pv_diff;
int pv_print_diff(FILE *out, const struct pv_diff *d, const struct pv_print_opts *o);
int pv_json_diff(struct pv_json *j, const struct pv_diff *d);
/* The import report (info.h): format, threads, metrics, table sizes, markers, lossy steps. */
int pv_print_info(FILE *out, const struct pv_profile *p, const char *path, bool json);

/*
 * The members of the report's JSON object (`info --json`) written into the open object of j.
 * With PV_INFO_PAGE, the page's variant (doc/api.md "profile"): each thread with its "index",
 * the count of sources as "nr_sources", the categories listed (pv_json_categories).
 */
#define PV_INFO_PAGE 1u
void pv_json_info(struct pv_json *j, const struct pv_profile_info *in, const char *path,
		  unsigned flags);
/* [{"name", "color"}, ...] of the profile's categories, and {"Other", "grey"} after with other. */
void pv_json_categories(struct pv_json *j, const struct pv_profile *p, bool other);

/*
 * The marker table: start and duration in ms from the profile's start, name, category, thread
 * and the table label, one row per index of idx. JSON: {"rows": [MARKER, ...]}, each MARKER
 * {"index", "start", "end", "duration", "name", "category", "thread", "thread_name", "tid",
 * "instant", "incomplete", "type", "label", "fields": [{"key", "label", "value", "hidden"}],
 * "data", "raw"}; times are milliseconds, end and duration null when unknown. Returns 0 or
 * PV_ENOMEM.
 */
int pv_print_markers(FILE *out, const struct pv_markers *ms, const uint32_t *idx, uint32_t n,
		     bool json);
/* One marker in full as the tooltip shows it, with its thread and cause stack. */
int pv_print_marker(FILE *out, const struct pv_markers *ms, uint32_t i, bool json);
/* The table's rows as the member "rows" of the open object of j; returns 0 or PV_ENOMEM. */
int pv_json_markers(struct pv_json *j, const struct pv_markers *ms, const uint32_t *idx,
		    uint32_t n);
/* Marker i in full (the tooltip's: labels, description, cause) as an object. */
int pv_json_marker(struct pv_json *j, const struct pv_markers *ms, uint32_t i);
/* The summary's rows as the member "rows" of the open object of j. */
void pv_json_marker_summary(struct pv_json *j, const struct pv_marker_summary_row *rows,
			    uint32_t n);
/* The per-name summary; JSON {"rows": [{"name", "count", ..., "total", "min", ...}]}. */
int pv_print_marker_summary(FILE *out, const struct pv_marker_summary_row *rows, uint32_t n,
			    bool json);

/* ---- the page's answers (doc/api.md); web/ and the CLI's flame and activity write them ---- */

#define PV_HEAVIEST_MAX 1024 /* rows of a heaviest path opened, at most */

#define PV_SEARCH_LIMIT_MAX 10000 /* search rows asked, at most (/api/search's limit) */

/* What a view answer holds besides the view. */
struct pv_view_answer {
	const char *const *open; /* keys of the tree rows whose children are sent */
	uint32_t nr_open;
	uint32_t per_parent;	/* trees: at most this many rows of each list, then a "more" row
				 * (0: all) */
	uint32_t offset, limit; /* flat and top: the rows sent */
	bool opened;		/* open the heaviest path (its rows' keys as "opened") */
	uint32_t heaviest;	/* its rows, at most (PV_HEAVIEST_MAX) */
	const char *hot;	/* a row's key: open the path to it and its hot path (hpcviewer's,
				 * pv_tree_hot_path) from it instead, with its keys as "opened" */
	uint32_t hot_percent;	/* the hot path's threshold in percent (0: 1) */
	bool first;		/* open the first selection's path instead (pv_view_first_path)
				 * of the tree (a butterfly's callees): its keys as "opened", its
				 * last row's as "selected" */
};

/* Each writes one answer object and a newline; returns 0 or PV_ENOMEM (the answer is then
 * unfinished: a front end replaces it by its error). */
int pv_json_view(struct pv_json *j, const struct pv_view *v, const struct pv_view_answer *a);
/* The children of the row key names (ref: pv_view_find, or the roots: a tree and PV_NONE),
 * from offset, at most limit (0: all). */
int pv_json_children(struct pv_json *j, const struct pv_view *v, const char *key,
		     const struct pv_row_ref *ref, uint32_t offset, uint32_t limit);
/* Expand-all of the row key names (the page's '*'): {"key", "expanded": N, "rows": [...]}, its
 * children and, in pre-order, the children of every row of its subtree whose first-metric
 * total is at least min_total (pv_tree_expand), at most the query's max-rows rows in all. */
int pv_json_subtree(struct pv_json *j, const struct pv_view *v, const char *key,
		    const struct pv_row_ref *ref, int64_t min_total);
/* The whole-profile search's answer (pv_find_functions): {"text", "scope": bool, "matches": N,
 * "rows": [{"name", "scope", "module", "file", "line", "total", "self", "key": KEY|null}]},
 * key naming the hit's heaviest row of the tree's view. */
int pv_json_find(struct pv_json *j, const struct pv_view *top, const struct pv_view *tree,
		 const char *text, const struct pv_find *fd);
int pv_json_flame(struct pv_json *j, const struct pv_flame *fl);
int pv_json_thread_costs(struct pv_json *j, const struct pv_view *v, const char *key,
			 const struct pv_row_ref *ref, const struct pv_thread_costs *tc);
/* Source file id's text with each line's costs from v (a list at line granularity) and the
 * lines of the functions q's centers name. */
int pv_json_source(struct pv_json *j, const struct pv_view *v, const struct pv_query *q,
		   pv_source_ix id, const char *text, size_t len);
/* A disassembly (pv/disasm.h): {"metric": NAME|null, "notes": [TEXT], "insns": [{"addr": "0x..",
 * "func": NAME, "line": N (0: none), "file": PATH|null, "here": BOOL, "self": N, "text": TEXT}]},
 * addresses in hexadecimal text (JSON numbers stop at 2^53). */
struct pv_disasm;
int pv_json_disasm(struct pv_json *j, const struct pv_profile *p, const struct pv_disasm *d);
int pv_json_activity(struct pv_json *j, const struct pv_activity *a, const struct pv_markers *ms);
int pv_json_marker_chart(struct pv_json *j, const struct pv_markers *ms,
			 const struct pv_marker_chart *ch);

/* The member "views": the view kinds (pv_view_kinds), each {"name", "needs_center", "outputs":
 * ["tree", "callers", "flat"]}, in table order. */
void pv_json_view_kinds(struct pv_json *j);

/*
 * A time or a cost without a metric's name: an integer in the unit, or milliseconds with 3
 * decimals for ns (a marker's start, the sampling interval). A metric's costs follow
 * pv_cost_unit instead.
 */
void pv_format_cost(char *buf, size_t n, int64_t v, enum pv_unit u);
/* The unit pv_format_cost writes a cost of unit u in: "ms" for ns, else u's name (what
 * pv_cost_unit says of a metric whose name says no unit and whose whole is 1 ms or more). */
const char *pv_format_cost_unit(enum pv_unit u);

/*
 * The unit rule, one for every front end (CLI, page, TUI, exports; doc/views.md "Units"): how
 * the costs of a metric are shown. A metric whose name ends in its unit in parentheses is
 * shown in that unit and its headers do not name the unit again: "REALTIME (sec)" in seconds
 * (6 decimals: the microsecond), "GPUOP (ms)" in ms, "GMEM (B)" in bytes, "GMEM:COUNT (count)"
 * as counted; hpcviewer shows them so. Any other time is shown in ms (3 decimals), in us or ns
 * when the whole is under 1 ms or 1 us; any other unit as its integers.
 */
struct pv_cost_unit {
	char name[16];	  /* the unit shown: "sec", "ms", "us", "ns", "B", "bytes", "count"... */
	int64_t per;	  /* the model's units in one shown unit: 1000000000 for sec of ns, 1 */
	uint8_t decimals; /* digits after the point of the exact form */
	bool named;	  /* the metric's name says the unit (a header does not repeat it) */
};
/* The rule for a metric of that name and unit whose whole (the view's total) is whole. */
void pv_cost_unit(const char *metric, enum pv_unit u, int64_t whole, struct pv_cost_unit *cu);
/* The rule for column col of v (its metric, statistic or derived metric; a derived metric's
 * values are shown as they are, in the unit its name may say). */
void pv_view_cost_unit(const struct pv_view *v, uint32_t col, struct pv_cost_unit *cu);

/* The three forms of a number: exact; k/M/G with 3 significant digits (978M, 2.98); and
 * hpcviewer's scientific form (1.48e+09). */
enum pv_num_form { PV_NUM_EXACT = 0, PV_NUM_SHORT, PV_NUM_SCI };
/* v (the model's units) in the unit cu says, in a form; snprintf's contract. The exact form
 * is computed in integers (no thousands separators: the text commands print it so). */
size_t pv_cost_text(const struct pv_cost_unit *cu, int64_t v, enum pv_num_form form, char *buf,
		    size_t n);
/* A percentage p as printf's "%.2f%%" writes it ("12.50%", "-0.00%"); snprintf's contract. */
size_t pv_pct_text(double p, char *buf, size_t n);
/* v in cu's unit as a number (seconds of a "(sec)" metric). */
double pv_cost_value(const struct pv_cost_unit *cu, int64_t v);
/* A number in a form (the exact form of a double: 6 significant digits). */
size_t pv_number_text(double x, enum pv_num_form form, char *buf, size_t n);
/* Cell x of column col of v as text in a form, by pv_view_cost_unit (a derived metric's value,
 * empty for none). */
size_t pv_view_cost_text(const struct pv_view *v, uint32_t col, int64_t x, enum pv_num_form form,
			 char *buf, size_t n);
/* The rule as the page's answers carry it: {"unit", "per", "decimals", "named"}. */
void pv_json_cost_unit(struct pv_json *j, const struct pv_cost_unit *cu);

#endif

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

#include "pv/marker.h"
#include "pv/view.h"

struct pv_print_opts {
	bool json;
	uint32_t max_depth;  /* tree: rows deeper than this are cut (0 = no limit) */
	double min_percent;  /* tree: rows below this share of the total are cut (0 = none) */
	uint32_t limit;      /* list: at most this many rows (0 = all) */
	const char *threads_label; /* "all threads" or the selection, for the header */
};

/* A view of a query (view.h): trees, butterfly, flat or list, as text or JSON. */
void pv_print_view(FILE *out, const struct pv_view *v, const struct pv_print_opts *o);
/* The import report: format, threads, metrics, table sizes, markers, lossy steps. */
void pv_print_info(FILE *out, const struct pv_profile *p, const char *path, bool json);

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
/* The per-name summary; JSON {"rows": [{"name", "count", ..., "total", "min", ...}]}. */
void pv_print_marker_summary(FILE *out, const struct pv_marker_summary_row *rows, uint32_t n,
			     bool json);

/* A cost as text: an integer in the unit, or milliseconds with 3 decimals for ns. */
void pv_format_cost(char *buf, size_t n, int64_t v, enum pv_unit u);
/* A JSON string literal of s (quotes and escapes). */
void pv_json_string(FILE *out, const char *s);
/* ns as a JSON number of exact milliseconds ("12.5", "165.870919"), as every --json writes times. */
void pv_json_ms(FILE *out, int64_t ns);

#endif

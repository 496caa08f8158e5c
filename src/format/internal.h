/*
 * internal.h - what the JSON printers of src/format/ share.
 */
#ifndef PV_FORMAT_INTERNAL_H
#define PV_FORMAT_INTERNAL_H

#include <stdio.h>

#include "pv/jsonw.h"
#include "pv/sbuf.h"
#include "pv/view.h"

/* a string, or null when NULL or empty */
void json_nonempty(struct pv_json *j, const char *s);
/* The members "module", "file", "line" (and "column" when known) of a row of v. */
void json_row_place(struct pv_json *j, const struct pv_view *v, enum pv_row_kind kind, uint32_t id,
		    uint32_t line);
/* Column m's name (its metric's, with ":STAT" for a statistic), valid until the same thread
 * asks for the same column again. */
const char *fmt_column_name(const struct pv_view *v, uint32_t m);
/* The members "name", "unit" of column m, and its "formula" when it is a derived metric. */
void json_column(struct pv_json *j, const struct pv_view *v, uint32_t m);
/* Cell x of column m: an integer cost, a derived metric's number, or null (pv_view_value_text). */
void json_cost(struct pv_json *j, const struct pv_view *v, uint32_t m, int64_t x);
/* The member "scope": the text of row_scope's answer rc (view/naming.h) in scope, null when no
 * scope names the row. Returns 0, or rc when it is an error. */
int json_scope_member(struct pv_json *j, int rc, const struct sbuf *scope);
/* The members "index", "name", "tid" of thread t. */
void json_thread(struct pv_json *j, const struct pv_profile *p, pv_thread_ix t);

/* ---- text (view_out.c), shared with the diff's printer (diff_out.c) ---- */

/*
 * A name from the profile (a function, thread, module, file, metric, marker field...) as every
 * text printer shows it: s itself, or its copy with control characters escaped in buf
 * (FMT_NAME bytes): pv_escaped, the one rule of pv/error.h.
 */
enum { FMT_NAME = 4096 };
static inline const char *fmt_name(char *buf, const char *s)
{
	return pv_escaped(buf, FMT_NAME, s);
}

/* Column m's name as a header says it, into buf (FMT_NAME bytes), with its unit by the unit
 * rule (pv_view_cost_unit): "cycles (cycles)", "time (ms)", "REALTIME (sec)" (a name that says
 * its unit is not followed by it again). */
const char *fmt_metric_title(char *buf, const struct pv_view *v, uint32_t m);
/* A cost of column m in that unit, exact (pv_view_cost_text). */
void fmt_cost_text(const struct pv_view *v, uint32_t m, char *buf, size_t n, int64_t x);
/* "12.34%" of whole, "-" when whole is 0. */
void fmt_pct(char *buf, size_t n, int64_t v, int64_t whole);
/* After a row's name: "  [module]  file:line" when known. */
void fmt_row_suffix(FILE *out, const struct pv_view *v, enum pv_row_kind kind, uint32_t id,
		    uint32_t line);
/* " (inline)" after the name of a row of kind inline. */
void fmt_inline_mark(FILE *out, enum pv_row_kind kind, bool inlined);
/* A tree row's indent (deep rows: "[depth] ") and name. */
void fmt_text_name(FILE *out, uint32_t depth, const char *name);
/* The rows a printed tree left out, by the query's option that cut them. */
struct fmt_cuts {
	uint64_t pct, depth, limit, budget;
};
/* The footer lines that count them ("# N rows deeper than D not shown"). */
void fmt_cuts_footer(FILE *out, const struct pv_query *q, const struct fmt_cuts *c);
/* The name of the row standing for n rows left out of a list: "... n more rows". */
void fmt_more_name(char *buf, size_t size, uint32_t n);

#endif

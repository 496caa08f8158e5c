/*
 * internal.h - what the JSON printers of src/format/ share.
 */
#ifndef PV_FORMAT_INTERNAL_H
#define PV_FORMAT_INTERNAL_H

#include "pv/jsonw.h"
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
/* The members "index", "name", "tid" of thread t. */
void json_thread(struct pv_json *j, const struct pv_profile *p, pv_thread_ix t);

#endif

/*
 * marker.h - derived markers: the markers every view shows, their schemas, labels, formats,
 * search and per-name summary (doc/markers.md; the Firefox Profiler's marker model).
 *
 * pv_markers_derive() turns the raw marker rows of a profile (profile.h) into derived markers,
 * per thread in one pass in raw-row order: instants; intervals; interval starts paired with the
 * latest open start of the same name (last in, first out); Network markers paired by payload id;
 * IPC rows correlated across threads into one IPCOut / IPCIn marker per thread;
 * CompositorScreenshot instants made to last until the next one of their window. What has no
 * other end becomes an incomplete marker clamped to the thread's range (first sample to last
 * sample + interval; without samples, the earliest and latest marker times). A thread whose
 * samples have event delays (samples.event_delay_ns) gets synthetic Jank markers after its own,
 * by the Firefox Profiler's rule (a delay of 50 ms or more that then drops). The list is sorted
 * by start (stable: raw order, then thread order, breaks ties).
 *
 * The marker set borrows the profile, which must outlive it. Everything it hands out (names,
 * payload text, schemas) is borrowed from it and valid until pv_markers_free(). Times are
 * nanoseconds from the profile's zero, like every time of the model. Nothing here prints.
 */
#ifndef PV_MARKER_H
#define PV_MARKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pv/error.h"
#include "pv/profile.h"
#include "pv/sbuf.h" /* the text the formatting functions append to */

enum pv_marker_flag {
	PV_MARKER_INCOMPLETE = 1, /* an end was missing: clamped to the thread's range */
	PV_MARKER_SYNTHETIC = 2, /* made from samples (Jank), not from raw rows: raw[] is PV_NONE */
};

struct pv_marker_schema; /* one payload type's schema (opaque) */

struct pv_markers {
	const struct pv_profile *p;
	uint32_t len;
	int64_t *start_ns;
	int64_t *end_ns;     /* PV_TIME_NONE: an instant */
	const char **name;   /* profile strings, or "IPCOut", "SyncIPCIn", ... */
	pv_cat_ix *category; /* PV_NONE when unknown */
	pv_thread_ix *thread;
	uint8_t *flags;		  /* enum pv_marker_flag */
	uint32_t *raw;		  /* raw rows of marker i: raw[2i], raw[2i+1] (PV_NONE if one;
				   * both for a synthetic marker) */
	const char **data;	  /* the payload as compact JSON text, NULL when none; pairs merged
				   * (the end's keys win) */
	pv_stack_ix *cause_stack; /* PV_NONE when none */
	int64_t *cause_time_ns;	  /* PV_TIME_NONE when unknown */
	int64_t *thread_start_ns, *thread_end_ns; /* the range of each thread (see above) */
	/* schemas: the profile's (meta.marker_schema) and the built-in IPC, Network, Jank */
	uint32_t nr_schemas;
	struct pv_marker_schema *schemas;
	/*
	 * What could not be shown as the file meant it, each said once: schema fields of an
	 * unknown format (shown raw), label placeholders that are not understood (shown empty),
	 * raw rows missing the time their phase needs (left out).
	 */
	uint32_t nr_notes;
	char **notes;
	/* the Firefox Profiler's friendly name of each thread ("Content (1/2)" for a GeckoMain) */
	const char **friendly;
	/* libpv's own (the strings' arena, the schemas' display lists): opaque, defined in
	 * src/marker/internal.h */
	struct pv_markers_priv *priv;
};

/*
 * Derives the markers of p. Returns 0, PV_ENOMEM, or PV_EPARSE for a marker schema list that is
 * not a JSON array of objects (err says where). Cost: one pass over the raw rows (payload text is
 * read only for the few types that pair specially), one linear sort by start.
 */
int pv_markers_derive(const struct pv_profile *p, struct pv_markers **out, struct pv_error *err);
void pv_markers_free(struct pv_markers *ms);

/* b - a, saturated at the int64 range (times near its ends come from damaged files). */
static inline int64_t pv_time_diff(int64_t b, int64_t a)
{
	return pv_sub_sat(b, a);
}

/* a + d, saturated at the int64 range. */
static inline int64_t pv_time_add(int64_t a, int64_t d)
{
	return pv_add_sat(a, d);
}

/* The duration of marker i in ns, PV_TIME_NONE for an instant. */
static inline int64_t pv_marker_duration(const struct pv_markers *ms, uint32_t i)
{
	return ms->end_ns[i] == PV_TIME_NONE ? PV_TIME_NONE
					     : pv_time_diff(ms->end_ns[i], ms->start_ns[i]);
}

/* The schema for a payload type, NULL when there is none. */
const struct pv_marker_schema *pv_marker_schema_find(const struct pv_markers *ms, const char *type);

/* Where a marker may be shown: the locations of a schema's "display" list. */
enum pv_marker_display {
	PV_DISPLAY_MARKER_CHART = 1u << 0,
	PV_DISPLAY_MARKER_TABLE = 1u << 1,
	PV_DISPLAY_TIMELINE_OVERVIEW = 1u << 2,
	PV_DISPLAY_TIMELINE_MEMORY = 1u << 3,
	PV_DISPLAY_TIMELINE_IPC = 1u << 4,
	PV_DISPLAY_TIMELINE_FILEIO = 1u << 5,
	PV_DISPLAY_SIDEBAR = 1u << 6,
	PV_DISPLAY_STACK_CHART = 1u << 7,
};

/*
 * shown[k] = 1 when marker idx[k] is shown at location loc, else 0: the display list of the
 * file's first schema named after its payload's type decides; a type the file has no schema
 * for is shown in the timeline overview when it is IPC or Network (the tracks the Firefox
 * Profiler draws for them), nowhere else; a marker without a type nowhere. Returns 0 or
 * PV_ENOMEM.
 */
int pv_markers_displayed(const struct pv_markers *ms, enum pv_marker_display loc,
			 const uint32_t *idx, uint32_t n, uint8_t *shown);

/* ---- one marker as the tooltip, the sidebar and the table show it ---- */

enum pv_label_kind { PV_LABEL_TOOLTIP = 0, PV_LABEL_TABLE, PV_LABEL_CHART };

struct pv_marker_field {
	const char *key;   /* NULL for a static row of an old Gecko schema */
	const char *label; /* the schema's label, else the key */
	const char *value; /* formatted */
	bool hidden;	   /* out of tooltips and the sidebar; still in labels and search */
};

/*
 * A marker resolved for display. Reuse one between calls (its buffers are kept); release it
 * with pv_marker_detail_release. Pointers are valid until the next pv_marker_detail call on it.
 */
struct pv_marker_detail {
	const char *type;	 /* the payload's "type", NULL when none */
	const char *label[3];	 /* by enum pv_label_kind, with doc/markers.md's fallbacks */
	const char *description; /* NULL when the schema has none */
	uint32_t nr_fields;	 /* the schema's fields that have a value, in schema order */
	struct pv_marker_field *fields;
	/* the buffers kept between calls: opaque, defined in src/marker/internal.h */
	struct pv_marker_detail_priv *priv;
};

/* Resolves marker i. Returns 0 or PV_ENOMEM. */
int pv_marker_detail(const struct pv_markers *ms, uint32_t i, struct pv_marker_detail *d);
void pv_marker_detail_release(struct pv_marker_detail *d);

/*
 * One value formatted as a schema field format says (doc/markers.md, "Formats"): format is the
 * format's JSON text ("\"bytes\"" or {"type": "table", "columns": [...]}), value a JSON value's
 * text. A missing or null value is "(empty)"; an unknown format shows the raw value. ms may be
 * NULL (pid and tid then show as "PID: n" / "TID: n").
 */
void pv_marker_format(const struct pv_markers *ms, const char *format, size_t format_len,
		      const char *value, size_t value_len, struct sbuf *out);

/* A time in milliseconds as the Firefox Profiler shows one: 500ns, 250μs, 12.346ms, 1m5s. */
void pv_format_timestamp(double ms, struct sbuf *out);

/*
 * Appends the duration at the head of marker i's tooltip: "unknown duration" for an incomplete
 * marker, nothing for an instant, else the time with 3 significant digits and at most one
 * decimal ("2.5ms", "1.2s").
 */
void pv_marker_duration_text(const struct pv_markers *ms, uint32_t i, struct sbuf *out);

/*
 * The cause stack of marker i as function names from the leaf to the root (one per frame);
 * returns how many, 0 when the marker has none. names may be NULL to count.
 */
uint32_t pv_marker_cause(const struct pv_markers *ms, uint32_t i, const char **names, uint32_t cap);
/*
 * The cause stack of marker i as a center (query.h): "path:ROOT;...;LEAF", each function from
 * the root by the scope that names it alone (pv_func_scope), into out (replacing its text).
 * Returns 1, 0 when the marker has no cause stack, or PV_ENOMEM. What --center-from-marker and
 * the TUI's key on a marker set.
 */
int pv_marker_cause_scope(const struct pv_markers *ms, uint32_t i, struct sbuf *out);

/* ---- search: "a,b,key:value,-key:value" ---- */

struct pv_marker_search;

/*
 * Compiles a search: comma-separated terms, trimmed, each a case-insensitive substring of the
 * name, the category, the payload type or a field's value, formatted or raw (OR); "key:value"
 * matches one key (name, cat, type or a field key) and is also a plain term; "-key:value"
 * excludes. A marker is kept when (there is no positive term or one matches) and no negative
 * term matches. An empty search keeps everything. Returns 0 or PV_ENOMEM.
 */
int pv_marker_search_new(const char *text, struct pv_marker_search **out);
void pv_marker_search_free(struct pv_marker_search *s);
/* Whether marker i is kept; scratch is a detail reused between calls. */
bool pv_marker_search_match(const struct pv_markers *ms, uint32_t i,
			    const struct pv_marker_search *s, struct pv_marker_detail *scratch);

/*
 * The text a search tests of every marker (the category, name, type and field values, raw
 * and formatted, lowercased), built once: linear in the markers, about what one search costs.
 * A search over it keeps exactly the markers pv_marker_search_match keeps, without resolving
 * payloads again (the TUI's search as it is typed). Returns 0 or PV_ENOMEM.
 */
struct pv_marker_text;
int pv_marker_text_new(const struct pv_markers *ms, struct pv_marker_text **out);
void pv_marker_text_free(struct pv_marker_text *tx);
bool pv_marker_search_match_text(const struct pv_marker_text *tx, uint32_t i,
				 const struct pv_marker_search *s);

/* ---- a selection, as the marker table shows it ---- */

enum pv_marker_order {
	PV_MARKERS_BY_START = 0, /* the list's own order */
	PV_MARKERS_BY_DURATION,	 /* longest first; instants and incomplete ones last, by start */
};

struct pv_marker_select {
	const struct pv_marker_search *search; /* NULL: every marker */
	const pv_thread_ix *threads;	       /* NULL or none: every thread */
	uint32_t nr_threads;
	bool has_range; /* keep markers that overlap [range_start_ns, range_end_ns): start before
			 * its end, and end (start for an instant) at or after its start */
	int64_t range_start_ns, range_end_ns;
	enum pv_marker_order order;
	/* NULL: the search resolves each marker's payload; else its prebuilt text */
	const struct pv_marker_text *text;
	/* NULL: every marker; else only these (ascending), e.g. what a shorter search kept */
	const uint32_t *within;
	uint32_t nr_within;
};

/*
 * The markers sel keeps, in its order, as indexes into ms (*idx is freed with pv_free_indexes).
 * Returns 0 or PV_ENOMEM.
 */
int pv_marker_select(const struct pv_markers *ms, const struct pv_marker_select *sel,
		     uint32_t **idx, uint32_t *n);
void pv_free_indexes(uint32_t *idx);

/* ---- the marker chart ---- */

#define PV_CHART_ENTRIES 5000 /* entries of a row, at most (the rest are left out) */

/*
 * The marker chart of the markers sel keeps in its window (sel->range_start_ns ..
 * range_end_ns, which must be set): one row per (thread, name), sorted by thread, category
 * (unknown last), name; in a row, the markers by start. Drawn width pixels wide, two narrow
 * markers (under a pixel) that touch within a pixel become one entry over both, merged counting
 * them, so a row holds what can be seen. Entries are columns: row r holds entries
 * row_first[r] .. row_first[r + 1] - 1.
 */
struct pv_marker_chart {
	int64_t start_ns, end_ns;
	uint32_t nr_rows;
	pv_thread_ix *row_thread;
	const char **row_name;
	pv_cat_ix *row_category; /* PV_NONE when unknown */
	uint32_t *row_first;	 /* nr_rows + 1 */
	uint32_t nr_entries;
	uint32_t *marker;		  /* the first marker of the entry */
	uint32_t *merged;		  /* markers in the entry (1: one) */
	int64_t *start_ns_of, *end_ns_of; /* the entry's span; end PV_TIME_NONE: one instant */
};

/* Returns 0 or PV_ENOMEM; width >= 1. */
int pv_marker_chart(const struct pv_markers *ms, const struct pv_marker_select *sel, uint32_t width,
		    struct pv_marker_chart **out);
void pv_marker_chart_free(struct pv_marker_chart *ch);

/* How many distinct names the markers have; PV_NONE when out of memory. */
uint32_t pv_marker_names(const struct pv_markers *ms);

/* ---- per-name summary ---- */

struct pv_marker_summary_row {
	const char *name;
	uint64_t count;	     /* markers of this name */
	uint64_t instant;    /* of which instants (no duration) */
	uint64_t incomplete; /* of which incomplete (duration unknown) */
	uint64_t timed;	     /* with a known duration: the rest; the durations below are theirs */
	int64_t total_ns, min_ns, median_ns, max_ns; /* 0 when timed is 0; median of an even
						      * count: the mean of the middle two */
};

/*
 * Per name over the markers with keep[i] set (keep NULL: all), sorted by total duration
 * (descending), then count (descending), then name. Returns 0 or PV_ENOMEM; *rows is freed by
 * pv_marker_summary_free. Linear in the markers (medians by selection).
 */
int pv_marker_summary(const struct pv_markers *ms, const uint8_t *keep,
		      struct pv_marker_summary_row **rows, uint32_t *nr_rows);
void pv_marker_summary_free(struct pv_marker_summary_row *rows);

#endif

/*
 * internal.h - what the marker module's files share: a small JSON document over payload text
 * (payloads are short, and labels, fields and pairing need random access by key), JavaScript's
 * way of turning values into text (the formats are defined by what the Firefox Profiler shows),
 * and the compiled schemas.
 */
#ifndef PV_MARKER_INTERNAL_H
#define PV_MARKER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "import/json.h"
#include "pv/marker.h"

#define JN_NONE UINT32_MAX

/* One value of a document. Offsets index the source text, or the decoded text when *_dec. */
struct jnode {
	uint8_t kind; /* enum json_kind: OBJECT, ARRAY, STRING, NUMBER, TRUE, FALSE, NULL */
	bool key_dec, str_dec;
	uint32_t next;	/* next sibling, JN_NONE */
	uint32_t first; /* first child of an object or array, JN_NONE */
	uint32_t nkids;
	uint32_t key, key_len; /* an object member's key */
	uint32_t str, str_len; /* a string's decoded bytes; a number's or literal's text */
	uint32_t off, end;     /* the value's own text in the source */
};

struct jdoc {
	const char *src;
	size_t src_len;
	struct jnode *n; /* n[0] is the root */
	uint32_t nr, cap;
	char *dec; /* decoded strings and keys that held escapes */
	size_t dec_len, dec_cap;
};

/* Parses src (reusing d's buffers). Returns 0, PV_EPARSE (not JSON) or PV_ENOMEM. */
int jdoc_parse(struct jdoc *d, const char *src, size_t len, struct pv_error *err);
void jdoc_release(struct jdoc *d);
const char *jn_key(const struct jdoc *d, uint32_t n, size_t *len);
const char *jn_str(const struct jdoc *d, uint32_t n, size_t *len);
bool jn_is(const struct jdoc *d, uint32_t n, const char *lit); /* a string equal to lit */
/* The member of object obj named key, JN_NONE when absent (or obj is not an object). */
uint32_t jn_get(const struct jdoc *d, uint32_t obj, const char *key);
/* JavaScript's Number(value) for numbers, numeric strings and booleans; false when NaN. */
bool jn_number(const struct jdoc *d, uint32_t n, double *out);
/* JavaScript's Number(text) of a string s[0..n); false when NaN. */
bool js_str_number(const char *s, size_t n, double *out);
/* JavaScript truthiness (missing: false). */
bool jn_truthy(const struct jdoc *d, uint32_t n);
/* JavaScript's String(value): strings as they are, numbers as JS prints them, [a,b] as "a,b". */
void jn_js_string(const struct jdoc *d, uint32_t n, struct sbuf *out);

/*
 * The shortest decimal digits that read back as |v| (finite, not 0), as JavaScript and ICU take
 * a double: digits[0..k) with the decimal point after *point of them (0.00123: "123", -2).
 * Returns k; digits holds JS_DIGITS_MAX bytes.
 */
#define JS_DIGITS_MAX 24
int js_shortest(double v, char *digits, int *point);
/* A number as JavaScript's Number.prototype.toString prints it (shortest round trip). */
void js_number(double v, struct sbuf *out);
/* Exact milliseconds text (a JSON number) to nanoseconds; false when not a plain number. */
bool ms_text_to_ns(const char *s, size_t n, int64_t *out);
/* Nanoseconds as exact milliseconds JSON text: "1022", "1030.1", "-0.5". */
void ns_to_ms_text(int64_t ns, struct sbuf *out);

/* ---- formats ---- */

enum mfmt_kind {
	F_UNKNOWN = 0,
	F_STRING,
	F_UNIQUE_STRING,
	F_DURATION,
	F_SECONDS,
	F_MILLISECONDS,
	F_MICROSECONDS,
	F_NANOSECONDS,
	F_BYTES,
	F_INTEGER,
	F_DECIMAL,
	F_PERCENTAGE,
	F_HEX,
	F_PID,
	F_TID,
	F_LIST,
	F_TABLE,
};

struct mcol {
	const char *label; /* NULL when the column has none */
	uint8_t kind;	   /* enum mfmt_kind (not a table) */
	const char *name;  /* the format's name as written (for unknown ones) */
};

struct mfmt {
	uint8_t kind;
	const char *name; /* as written; "" for a table */
	uint32_t nr_cols;
	struct mcol *cols;
};

/* The kind of a format name ("bytes" -> F_BYTES), F_UNKNOWN when it is not one. */
enum mfmt_kind mfmt_kind_of(const char *name, size_t len);
enum {
	MFMT_IDS = 1, /* pid and tid values name their process or thread (the tooltip's fields),
		       * else they show as "PID: n" (labels) */
	MFMT_BARE = 2 /* an empty value or part prints nothing, not the "(empty)" placeholder */
};
/* Formats value node n of d (JN_NONE: missing) as f says, how: MFMT_* flags. */
void mfmt_value(const struct pv_markers *ms, const struct mfmt *f, unsigned how,
		const struct jdoc *d, uint32_t n, struct sbuf *out);
/* formatTimestamp of the Firefox Profiler with sig significant digits, maxfrac decimals. */
void fmt_timestamp(double ms, int sig, int maxfrac, struct sbuf *out);
/* formatNumber of the Firefox Profiler: significant digits, at most maxfrac decimals. */
void fmt_number(double v, int sig, int maxfrac, bool percent, struct sbuf *out);

/* ---- schemas ---- */

enum lpart_kind {
	LP_TEXT,
	LP_NAME,
	LP_START,
	LP_END,
	LP_DURATION,
	LP_CATEGORY,
	LP_DATA,
	LP_TERNARY,
	LP_EMPTY
};

struct lpart {
	uint8_t kind;
	const char *text;	/* LP_TEXT; LP_DATA/LP_TERNARY: the key */
	const struct mfmt *fmt; /* LP_DATA: the key's field format, NULL for raw */
	const char *yes, *no;	/* LP_TERNARY */
};

struct label {
	uint32_t nr;
	struct lpart *parts; /* NULL with nr 0: no label (the fallback applies) */
};

struct mfield {
	const char *key; /* NULL: a static row (old Gecko schemas) */
	const char *label;
	const char *value; /* a static row's text */
	struct mfmt fmt;
	bool hidden;
};

struct pv_marker_schema {
	const char *name;
	const char *description;
	struct label label[3]; /* by enum pv_label_kind */
	uint32_t nr_fields;
	struct mfield *fields;
};

/* Where the file's schema of a type shows its markers (the schema's "display" list). */
struct marker_display {
	const char *name; /* the schema's name (its payload type) */
	uint32_t mask;	  /* enum pv_marker_display bits */
};

/* What only libpv reads of a marker list (pv/marker.h's ms->priv, allocated with it). */
struct pv_markers_priv {
	struct pv_arena *arena;
	uint32_t nr_displays;		 /* the file's schemas' display lists, in file order */
	struct marker_display *displays; /* (schema.c) */
};

/* A marker list with its private part, in one block (freed with pv_free(ms)); NULL: no memory. */
struct pv_markers *markers_alloc(void);

/* pv_marker_detail's buffers (d->priv, allocated by its first call). */
struct pv_marker_detail_priv {
	struct sbuf buf, raw; /* the strings; scratch for the search */
	size_t *offs;	      /* their ends in buf */
	uint32_t cap;	      /* offs's and the fields' room */
	struct jdoc doc;      /* the payload parsed */
};

/* Reads the schemas of ms->p (and the built-ins) into ms. Returns 0, PV_ENOMEM or PV_EPARSE. */
int schemas_load(struct pv_markers *ms, struct pv_error *err);
/* The last thread with that tid (a map filled in thread order keeps the last), PV_NONE. */
pv_thread_ix thread_of_tid(const struct pv_profile *p, int64_t tid);

/* Records a note once (same text, one note). */
void markers_note(struct pv_markers *ms, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif

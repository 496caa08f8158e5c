/*
 * jsonw.h - the one JSON writer of libpv: every --json printer (src/format/) and every answer of
 * the web API (web/) is written through it.
 *
 * A writer holds the text (in memory, or flushed to a FILE every 64 KiB and at the end) and the
 * state of each open object and array: whether it has a member yet (the commas) and its layout
 * (the whitespace), so a caller says what to write and never where a comma goes.
 *
 * Layouts of a container, chosen when it opens:
 *   PV_JSON_INLINE   [a, b] and {"k": a, "l": b}            (", " between members)
 *   PV_JSON_COMPACT  [a,b]                                  ("," between members)
 *   PV_JSON_LINES    each member on a line of its own after a newline and `indent` spaces; the
 *                    closing bracket, when there was a member, on a line after indent - 2
 *                    spaces (none below 2): [\n  a,\n  b\n]
 *   PV_JSON_ROWS     each member on a line of its own after a newline and `indent` spaces, the
 *                    closing bracket right after the last member: [\n  a,\n  b]
 * pv_json_newline() makes the next member of an inline container start a line (",\n").
 *
 * Strings: one escaping policy for every string the library writes (sbuf_json_string): '"' and
 * '\\' escaped, \n \r \t by name, the other control characters as \u00XX; valid UTF-8 passes
 * through as it is; every byte that is not part of a valid UTF-8 sequence (a stray continuation
 * byte, an overlong form, a surrogate, past U+10FFFF, a cut sequence) becomes U+FFFD, so the
 * output is always valid JSON (RFC 8259) whatever bytes a profile holds.
 *
 * Errors are sticky: a write after a failure does nothing, and pv_json_finish() or
 * pv_json_error() gives the first (PV_ENOMEM, or PV_EIO when the FILE failed). Memory comes from
 * pv_malloc (fault injection reaches it).
 */
#ifndef PV_JSONW_H
#define PV_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct pv_json;

enum pv_json_layout {
	PV_JSON_INLINE = 0,
	PV_JSON_COMPACT,
	PV_JSON_LINES,
	PV_JSON_ROWS,
};

/* A writer into memory (sink NULL) or into sink. NULL when out of memory. */
struct pv_json *pv_json_new(FILE *sink);
/* Writes what is left to the sink (fflush included); returns 0 or the first error. */
int pv_json_finish(struct pv_json *j);
int pv_json_error(const struct pv_json *j);
/* Memory writers: the text so far (NUL-terminated; borrowed until the next write). */
const char *pv_json_text(const struct pv_json *j, size_t *len);
/* Memory writers: hands the text to the caller (free()); NULL after an error. */
char *pv_json_detach(struct pv_json *j, size_t *len);
/* Memory writers: forgets everything written and every open container (errors too). */
void pv_json_reset(struct pv_json *j);
void pv_json_free(struct pv_json *j);

/* Containers. pv_json_end() closes the innermost one. */
void pv_json_object(struct pv_json *j);
void pv_json_array(struct pv_json *j);
void pv_json_open(struct pv_json *j, char bracket, enum pv_json_layout layout, uint32_t indent);
void pv_json_end(struct pv_json *j);

/* A member's key (its value is the next thing written). */
void pv_json_key(struct pv_json *j, const char *key);

/* Values. */
void pv_json_str(struct pv_json *j, const char *s);
void pv_json_strn(struct pv_json *j, const char *s, size_t n);
void pv_json_str_or_null(struct pv_json *j, const char *s); /* NULL: null */
void pv_json_int(struct pv_json *j, int64_t v);
/* v, or null for INT64_MIN (PV_ID_NONE, PV_TIME_NONE: unknown). */
void pv_json_int_or_null(struct pv_json *j, int64_t v);
void pv_json_uint(struct pv_json *j, uint64_t v);
/* ns as exact milliseconds ("12.5", "165.870919"), as every JSON output writes times. */
void pv_json_ms(struct pv_json *j, int64_t ns);
void pv_json_ms_or_null(struct pv_json *j, int64_t ns); /* null for INT64_MIN */
/* A double with 9 significant digits ("%.9g"); null when not finite. */
void pv_json_double(struct pv_json *j, double v);
/* A double with `significant` digits ("%.*g") or `decimals` after the point ("%.*f"); null when
 * not finite. */
void pv_json_real(struct pv_json *j, double v, int significant);
void pv_json_fixed(struct pv_json *j, double v, int decimals);
void pv_json_null(struct pv_json *j);
void pv_json_bool(struct pv_json *j, bool v);
/* A value given as JSON text (a payload, a query's JSON), written as it is. */
void pv_json_raw(struct pv_json *j, const char *json, size_t n);

/* Members: a key and its value. */
void pv_json_kstr(struct pv_json *j, const char *key, const char *s);
void pv_json_kint(struct pv_json *j, const char *key, int64_t v);
void pv_json_kuint(struct pv_json *j, const char *key, uint64_t v);
void pv_json_kms(struct pv_json *j, const char *key, int64_t ns);
void pv_json_kbool(struct pv_json *j, const char *key, bool v);
void pv_json_knull(struct pv_json *j, const char *key);

/* The next member of the innermost (inline) container starts a new line. */
void pv_json_newline(struct pv_json *j);
/* A newline after the top-level value (the end of a printed answer). */
void pv_json_eol(struct pv_json *j);

/* A JSON string literal of s (quotes and escapes) on a FILE: query.h's JSON notation and the
 * export formats' (src/export/) that stream to a file. */
int pv_json_fput_string(FILE *out, const char *s);
/* ns as pv_json_ms writes it, on a FILE. */
int pv_json_fput_ms(FILE *out, int64_t ns);

#endif

/*
 * sbuf.h - the library's one growable byte string (git's strbuf is the model): its scratch text,
 * string pools, and the text the public functions write (marker fields, timestamps).
 *
 * Invariants:
 *   - A zeroed struct sbuf (SBUF_INIT, or memory from pv_calloc/memset) is an empty string;
 *     nothing is allocated until the first write, so tables of them need no init call.
 *   - buf is NULL until the first write; after it, buf is never NULL, len < cap and buf[len] is
 *     NUL. sbuf_str() is always a NUL-terminated string ("" before the first write), so the text
 *     can be handed to C string functions; the bytes themselves may hold NULs (string pools).
 *   - len is the only length: callers read buf[0..len); they write through these functions, or
 *     into room reserved with sbuf_grow() followed by sbuf_setlen().
 *
 * Ownership: the sbuf owns buf. sbuf_release() frees it and leaves an empty sbuf (reusable);
 * sbuf_detach() is the only way to take the bytes: the caller then owns them (pv_free) and the
 * sbuf is empty again. Pointers into buf are borrowed until the next write, which may move it.
 *
 * Errors: every write returns 0 or PV_ENOMEM; on PV_ENOMEM the string is unchanged (a write is
 * all or nothing) and oom is set, so a chain of writes may be checked once at its end; oom stays
 * set until sbuf_reset, sbuf_release or sbuf_detach. Memory comes from pv_malloc/pv_realloc
 * (alloc.h), so fault injection reaches it. Capacity doubles from 64 bytes, overflow-checked.
 */
#ifndef PV_SBUF_H
#define PV_SBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pv/error.h"

struct sbuf {
	char *buf;
	size_t len, cap;
	bool oom; /* a write failed since the last reset: the text lacks it */
};

#define SBUF_INIT \
	{         \
		0 \
	}

/* Room for extra more bytes and the NUL. Returns 0 or PV_ENOMEM (the string unchanged, oom
 * set). */
int sbuf_grow(struct sbuf *b, size_t extra);

/*
 * Appends s[0..n) (s may be NULL when n is 0). s may lie in b's own bytes (a string pool that
 * appends one of its strings again): the growth that moves them moves s with them. Returns 0 or
 * PV_ENOMEM.
 */
static inline int sbuf_put(struct sbuf *b, const void *s, size_t n)
{
	if (b->cap - b->len <= n) {
		uintptr_t at = (uintptr_t)s - (uintptr_t)b->buf;
		bool inside = b->buf && (uintptr_t)s >= (uintptr_t)b->buf && at < b->len;
		if (sbuf_grow(b, n))
			return PV_ENOMEM;
		if (inside)
			s = b->buf + at;
	}
	if (n)
		memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = 0;
	return 0;
}

/* Appends the C string s. Returns 0 or PV_ENOMEM. */
static inline int sbuf_puts(struct sbuf *b, const char *s)
{
	return sbuf_put(b, s, strlen(s));
}

/* The text, NUL-terminated: "" before the first write. Borrowed until the next write. */
static inline const char *sbuf_str(const struct sbuf *b)
{
	return b->buf ? b->buf : "";
}

/*
 * Sets the length to n and writes the NUL after it: shortens (n <= len), or takes in bytes the
 * caller wrote at buf[len..n) into room reserved with sbuf_grow (n < cap), as git's
 * strbuf_setlen. The allocation is kept.
 */
static inline void sbuf_setlen(struct sbuf *b, size_t n)
{
	b->len = n;
	if (b->buf)
		b->buf[n] = 0;
}

/* Empties the string and clears oom, keeping the allocation for reuse. */
static inline void sbuf_reset(struct sbuf *b)
{
	sbuf_setlen(b, 0);
	b->oom = false;
}

/* Appends printf's text of fmt. Returns 0 or PV_ENOMEM. */
int sbuf_addf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Replaces the string by s[0..n). Returns 0 or PV_ENOMEM (then the string is empty). */
static inline int sbuf_set(struct sbuf *b, const void *s, size_t n)
{
	sbuf_reset(b);
	return sbuf_put(b, s, n);
}

/*
 * The one JSON string escaping of the library (include/pv/jsonw.h states the policy): hands
 * s[0..n) to put piece by piece as the body of a JSON string literal (no quotes): runs of bytes
 * that stand for themselves (printable ASCII but '"' and '\\', DEL, valid UTF-8 sequences), and
 * an escape for each other byte ("\\n", "\\u001f", or U+FFFD for a byte that is not valid
 * UTF-8). Returns 0, or the first nonzero value put returned.
 */
int json_escape(const char *s, size_t n, int (*put)(void *ctx, const char *s, size_t n), void *ctx);

/*
 * Appends s[0..n) as a JSON string literal: quotes around it, escaped as json_escape does. s
 * must not lie in b (it is written in several steps, each of which may move b). Returns 0 or
 * PV_ENOMEM.
 */
int sbuf_json_string(struct sbuf *b, const char *s, size_t n);

/* Longest text of sbuf_u64_text with its NUL: "18446744073709551615". */
#define SBUF_U64_MAX 21

/* v in decimal into t, NUL-terminated, as "%" PRIu64 writes it (without printf: the JSON writer's
 * numbers). Returns the length. */
size_t sbuf_u64_text(char t[SBUF_U64_MAX], uint64_t v);

/* Longest text of sbuf_ms_text with its NUL: "-9223372036854.775808". */
#define SBUF_MS_MAX 24

/*
 * Exact milliseconds of ns as JSON number text into t: integer part, then the fraction without
 * trailing zeros ("1022", "1030.1", "-0.5", "165.870919"), for any int64. Returns the length.
 */
size_t sbuf_ms_text(char t[SBUF_MS_MAX], int64_t ns);

/* Appends sbuf_ms_text(ns). Returns 0 or PV_ENOMEM. */
int sbuf_ms(struct sbuf *b, int64_t ns);

/* Frees the bytes; b is an empty sbuf again. */
void sbuf_release(struct sbuf *b);

/*
 * Hands the bytes to the caller, NUL-terminated (an empty string is allocated when nothing was
 * written), with their length in *len when len is not NULL; b is an empty sbuf again. Returns
 * NULL only when that empty string cannot be allocated (then b is unchanged).
 */
char *sbuf_detach(struct sbuf *b, size_t *len);

#endif

/*
 * error.h - status codes and error details of libprofview.
 *
 * Every library call that can fail returns 0 or a negative enum pv_status and, when the caller
 * passes a non-NULL struct pv_error, fills it with a constant-free message and the position of
 * the problem in the input (line/column for text, byte offset for binary). The library never
 * prints, exits or aborts on bad input.
 */
#ifndef PV_ERROR_H
#define PV_ERROR_H

#include <stddef.h>
#include <stdint.h>

enum pv_status {
	PV_OK = 0,
	PV_ENOMEM = -1,	 /* allocation failed */
	PV_EIO = -2,	 /* the file could not be read */
	PV_EFORMAT = -3, /* no importer recognises the input, or a version we do not read */
	PV_EPARSE = -4,	 /* malformed input */
	PV_ELIMIT = -5,	 /* input past a documented limit */
	PV_EINVAL = -6,	 /* bad argument (unknown metric, thread, format name, ...) */
};

struct pv_error {
	int code;	 /* enum pv_status */
	char msg[512];	 /* one line, lowercase, no trailing full stop */
	uint64_t line;	 /* 1-based line of a text input, 0 when unknown */
	uint64_t column; /* 1-based column (bytes), 0 when unknown */
	uint64_t offset; /* byte offset into the (decompressed) input */
	int has_pos;	 /* 1 when line/column are set, 2 when only the byte offset is */
};

/* Constant text for a status code. */
const char *pv_strerror(int code);

/* Resets err (NULL allowed). */
void pv_error_clear(struct pv_error *err);

/*
 * The one rule for text from a file (a function, thread or file name, a marker's field) shown on
 * a terminal: every control character is written as an escape, so no name retitles, clears or
 * moves the terminal or forges a line. Control characters: C0 (bytes 0x00-0x1f), DEL (0x7f) and
 * C1 (U+0080-U+009F, UTF-8 0xc2 0x80-0x9f); escapes: \n, \r, \t, \x1b, \u009b.
 *
 * pv_control_escape: when s (n bytes) starts with a control character, its escape into esc
 * (NUL-ended) and the bytes it takes of s in *len; returns the escape's length, 0 when s does not
 * start with one (*len untouched).
 */
size_t pv_control_escape(const char *s, size_t n, char esc[8], size_t *len);
/*
 * Copies src into dst (cap bytes, NUL-terminated, cut short when full) with every control
 * character escaped, so a name from a file or a command line prints as one inert line. Returns
 * the length written.
 */
size_t pv_escape_controls(char *dst, size_t cap, const char *src);
/* s itself when it holds no control character (no copy, whatever its length), else its
 * escaped copy in buf (pv_escape_controls); NULL s: "". For a name printed as text. */
const char *pv_escaped(char *buf, size_t cap, const char *s);

/* Fills err (NULL allowed) with code and a printf-style message, control bytes escaped
 * (pv_escape_controls); returns code. */
int pv_error_set(struct pv_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif

/*
 * text.h - the character tests and range scanners the text readers share (importers, the query
 * parser). Text is a range [p, e) of bytes, not NUL-terminated; the tests take a char and read
 * ASCII only, so bytes >= 0x80 (UTF-8) are never digits or blanks.
 */
#ifndef PV_BASE_TEXT_H
#define PV_BASE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

static inline bool text_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The value of the hexadecimal digit c (either case), -1 when c is none. */
static inline bool text_is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline int text_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static inline bool text_is_hex(char c)
{
	return text_hex_digit(c) >= 0;
}

/* A blank inside a line: space or tab. */
static inline bool text_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The first byte of [p, e) that is not a blank (e when none). */
static inline const char *text_skip_blanks(const char *p, const char *e)
{
	while (p < e && text_is_blank(*p))
		p++;
	return p;
}

/* The '\n' that ends the line starting at p, or e when the text ends first. */
static inline const char *text_line_end(const char *p, const char *e)
{
	const char *n = memchr(p, '\n', (size_t)(e - p));
	return n ? n : e;
}

/* Whether [s, e) starts with the C string lit. */
static inline bool text_starts(const char *s, const char *e, const char *lit)
{
	size_t n = strlen(lit);
	return (size_t)(e - s) >= n && memcmp(s, lit, n) == 0;
}

/* Whether [s, e) is the C string lit. */
static inline bool text_eq(const char *s, const char *e, const char *lit)
{
	return (size_t)(e - s) == strlen(lit) && memcmp(s, lit, (size_t)(e - s)) == 0;
}

/*
 * Appends the C string s to the C string in buf[0..n), cut to fit: buf stays NUL-terminated
 * (strncat(buf, s, n - strlen(buf) - 1), which banned.h bans). For short fixed-size texts such as
 * the list of names in a message. Returns the new length.
 */
static inline size_t text_append(char *buf, size_t n, const char *s)
{
	size_t len = strlen(buf), k = strlen(s);
	if (len + 1 >= n)
		return len;
	if (k > n - 1 - len)
		k = n - 1 - len;
	memcpy(buf + len, s, k);
	buf[len + k] = 0;
	return len + k;
}

#endif

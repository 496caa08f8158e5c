/*
 * cells.c - screen lines of an exact width (cells.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "cells.h"
#include "pv/error.h"

void cells_start(struct cells *c, int w)
{
	c->len = 0;
	c->col = 0;
	c->w = w < 0 ? 0 : w;
	c->oom = false;
	if (!c->buf) {
		c->cap = 256;
		c->buf = malloc(c->cap);
		c->oom = !c->buf;
	}
}

static void put_bytes(struct cells *c, const char *s, size_t n)
{
	if (c->oom)
		return;
	if (c->len + n + 1 > c->cap) {
		size_t cap = c->cap * 2 > c->len + n + 1 ? c->cap * 2 : c->len + n + 1;
		char *b = realloc(c->buf, cap);
		if (!b) {
			c->oom = true;
			return;
		}
		c->buf = b;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, s, n);
	c->len += n;
}

/* The code point at s (n bytes left) and its length; -1 for a broken sequence (length 1). */
static int32_t decode(const unsigned char *s, size_t n, size_t *len)
{
	*len = 1;
	if (s[0] < 0x80)
		return s[0];
	size_t k = s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	if (!k || k > n || s[0] >= 0xf5)
		return -1;
	int32_t cp = s[0] & (0x7f >> k);
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp < 0xe000))
		return -1;
	*len = k;
	return cp;
}

/* Columns of code point cp: the locale's wcwidth, 1 when it does not know. */
static int cp_width(int32_t cp)
{
	if (cp < 0x80)
		return 1;
	int w = wcwidth((wchar_t)cp);
	return w < 0 ? 1 : w;
}

void cells_put(struct cells *c, const char *s, size_t n, int max)
{
	if (n == SIZE_MAX)
		n = strlen(s);
	int room = c->w - c->col;
	if (max >= 0 && max < room)
		room = max;
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n && room > 0;) {
		size_t k;
		int32_t cp = decode(u + i, n - i, &k);
		if (cp == '\t')
			cp = ' ';
		char esc[8];
		size_t el = 0;
		if (cp >= 0 && cp != ' ') /* a control character: libpv's escape (pv/error.h) */
			el = pv_control_escape(s + i, n - i, esc, &k);
		if (el) {
			if ((int)el > room)
				break;
			put_bytes(c, esc, el);
			c->col += (int)el;
			room -= (int)el;
			i += k;
			continue;
		}
		int w = cp < 0 ? 1 : cp_width(cp);
		if (w > room)
			break;
		if (cp == -1)
			put_bytes(c, "?", 1);
		else if (cp == ' ')
			put_bytes(c, " ", 1);
		else
			put_bytes(c, s + i, k);
		c->col += w;
		room -= w;
		i += k;
	}
}

void cells_puts(struct cells *c, const char *s)
{
	cells_put(c, s, SIZE_MAX, -1);
}

void cells_pad(struct cells *c, int col)
{
	if (col > c->w)
		col = c->w;
	while (c->col < col) {
		put_bytes(c, " ", 1);
		c->col++;
	}
}

void cells_right(struct cells *c, const char *s, int width)
{
	int n = cells_width(s); /* columns, not bytes: "3μs" takes 3 */
	if (n < width)
		cells_pad(c, c->col + width - n);
	cells_put(c, s, SIZE_MAX, width);
}

char *cells_end(struct cells *c)
{
	cells_pad(c, c->w);
	put_bytes(c, "", 1);
	if (c->oom)
		return NULL;
	return strdup(c->buf);
}

int cells_width(const char *s)
{
	int w = 0;
	size_t n = strlen(s);
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t k;
		int32_t cp = decode(u + i, n - i, &k);
		char esc[8];
		size_t el = cp >= 0 && cp != '\t' ? pv_control_escape(s + i, n - i, esc, &k) : 0;
		w += el ? (int)el : cp < 0x20 ? 1 : cp_width(cp);
		i += k;
	}
	return w;
}

/* The byte offset in s of its longest suffix (starting at a character) of at most k columns. */
static size_t suffix_of(const char *s, int k)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 && cells_width(s + i) <= k)
			return i;
	return n;
}

void cells_path(struct cells *c, const char *s, int max, bool ascii)
{
	int room = c->w - c->col;
	if (max < 0 || max > room)
		max = room;
	if (cells_width(s) <= max || max < 2) {
		cells_put(c, s, SIZE_MAX, max);
		return;
	}
	const char *ell = ascii ? "~" : "\u2026";
	/* the file name whole when it fits with a few columns of the head, else its end */
	const char *slash = strrchr(s, '/');
	size_t tail = slash ? (size_t)(slash - s) : strlen(s);
	if (!slash || cells_width(s + tail) > max - 1 - 4)
		tail = suffix_of(s, max - 1 - (max > 8 ? 4 : 0));
	int head = max - 1 - cells_width(s + tail);
	int col0 = c->col;
	cells_put(c, s, tail, head);
	cells_pad(c, col0 + head);
	cells_puts(c, ell);
	cells_puts(c, s + tail);
}

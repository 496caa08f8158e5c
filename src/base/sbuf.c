/*
 * sbuf.c - the growable byte string (sbuf.h has the invariants).
 */
#include <stdarg.h>
#include <stdio.h>

#include "base/alloc.h"
#include "base/sbuf.h"

static int grow_failed(struct sbuf *b)
{
	b->oom = true;
	return PV_ENOMEM;
}

int sbuf_grow(struct sbuf *b, size_t extra)
{
	if (extra >= SIZE_MAX - b->len)
		return grow_failed(b);
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	size_t nc = b->cap ? b->cap : 64;
	while (nc < need)
		nc = nc > SIZE_MAX / 2 ? need : nc * 2;
	char *p = pv_realloc(b->buf, nc);
	if (!p)
		return grow_failed(b);
	if (!b->buf)
		p[0] = 0;
	b->buf = p;
	b->cap = nc;
	return 0;
}

int sbuf_addf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return grow_failed(b); /* a format C cannot print: taken as a failed write */
	if (sbuf_grow(b, (size_t)n))
		return PV_ENOMEM;
	va_start(ap, fmt);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

/* Length of the valid UTF-8 sequence at p (2..4 bytes), 0 when the bytes there are not one. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0], lo = 0x80, hi = 0xbf;
	size_t n;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0; /* overlong */
	else if (c == 0xed)
		hi = 0x9f; /* surrogates */
	else if (c == 0xf0)
		lo = 0x90; /* overlong */
	else if (c == 0xf4)
		hi = 0x8f; /* past U+10FFFF */
	if ((size_t)(end - p) < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

int json_escape(const char *s, size_t n, int (*put)(void *ctx, const char *s, size_t n), void *ctx)
{
	static const char hex[] = "0123456789abcdef";
	if (!n) /* s may be NULL */
		return 0;
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	int rc;
	while (p < end) {
		const unsigned char *run = p;
		for (;;) { /* bytes written as they are */
			if (p == end)
				break;
			if (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\') {
				p++;
				continue;
			}
			size_t len = *p >= 0x80 ? utf8_len(p, end) : 0;
			if (!len)
				break;
			p += len;
		}
		if (p > run && (rc = put(ctx, (const char *)run, (size_t)(p - run))))
			return rc;
		if (p == end)
			break;
		unsigned c = *p++;
		char e[8] = {'\\', 0, 0, 0, 0, 0, 0, 0};
		size_t en = 2;
		switch (c) {
		case '"': e[1] = '"'; break;
		case '\\': e[1] = '\\'; break;
		case '\n': e[1] = 'n'; break;
		case '\r': e[1] = 'r'; break;
		case '\t': e[1] = 't'; break;
		default:
			if (c < 0x80) {
				memcpy(e, "\\u00", 4);
				e[4] = hex[c >> 4];
				e[5] = hex[c & 15];
				en = 6;
			} else {
				memcpy(e, "\xef\xbf\xbd", 3); /* not UTF-8: U+FFFD for the byte */
				en = 3;
			}
		}
		if ((rc = put(ctx, e, en)))
			return rc;
	}
	return 0;
}

static int put_sbuf(void *ctx, const char *s, size_t n)
{
	return sbuf_put(ctx, s, n);
}

int sbuf_json_string(struct sbuf *b, const char *s, size_t n)
{
	if (sbuf_put(b, "\"", 1) || json_escape(s, n, put_sbuf, b))
		return PV_ENOMEM;
	return sbuf_put(b, "\"", 1);
}

size_t sbuf_u64_text(char t[SBUF_U64_MAX], uint64_t v)
{
	char r[SBUF_U64_MAX];
	size_t n = 0;
	do {
		r[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		t[i] = r[n - 1 - i];
	t[n] = 0;
	return n;
}

size_t sbuf_ms_text(char t[SBUF_MS_MAX], int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	size_t n = ns < 0;
	t[0] = '-';
	n += sbuf_u64_text(t + n, a / 1000000);
	uint32_t frac = (uint32_t)(a % 1000000);
	if (frac) {
		/* six digits, the trailing zeros cut */
		int fl = 6;
		while (frac % 10 == 0) {
			frac /= 10;
			fl--;
		}
		t[n++] = '.';
		for (int i = fl - 1; i >= 0; i--, frac /= 10)
			t[n + (size_t)i] = (char)('0' + frac % 10);
		n += (size_t)fl;
		t[n] = 0;
	}
	return n;
}

int sbuf_ms(struct sbuf *b, int64_t ns)
{
	char t[SBUF_MS_MAX];
	size_t n = sbuf_ms_text(t, ns);
	return sbuf_put(b, t, n);
}

void sbuf_release(struct sbuf *b)
{
	pv_free(b->buf);
	memset(b, 0, sizeof(*b));
}

char *sbuf_detach(struct sbuf *b, size_t *len)
{
	if (!b->buf && sbuf_grow(b, 0))
		return NULL;
	char *p = b->buf;
	if (len)
		*len = b->len;
	memset(b, 0, sizeof(*b));
	return p;
}

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

int sbuf_json_string(struct sbuf *b, const char *s, size_t n)
{
	if (sbuf_put(b, "\"", 1))
		return PV_ENOMEM;
	size_t run = 0; /* s[run..i) is still to be written as it is */
	for (size_t i = 0; i < n; i++) {
		char e[8];
		size_t en = sbuf_json_escape((unsigned char)s[i], e);
		if (!en)
			continue;
		if (sbuf_put(b, s + run, i - run) || sbuf_put(b, e, en))
			return PV_ENOMEM;
		run = i + 1;
	}
	if (run < n && sbuf_put(b, s + run, n - run)) /* s may be NULL when n is 0 */
		return PV_ENOMEM;
	return sbuf_put(b, "\"", 1);
}

size_t sbuf_ms_text(char t[SBUF_MS_MAX], int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	int n = snprintf(t, SBUF_MS_MAX, "%s%llu", ns < 0 ? "-" : "",
			 (unsigned long long)(a / 1000000));
	uint32_t frac = (uint32_t)(a % 1000000);
	if (frac) {
		char f[8];
		snprintf(f, sizeof(f), "%06u", frac);
		int fl = 6;
		while (f[fl - 1] == '0')
			fl--;
		n += snprintf(t + n, SBUF_MS_MAX - (size_t)n, ".%.*s", fl, f);
	}
	return (size_t)n;
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

/*
 * json.c - the JSON writer (include/pv/jsonw.h): an sbuf, a stack of open containers, and
 * sbuf_json_string's one escaping policy for every string.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sbuf.h"
#include "pv/error.h"
#include "pv/jsonw.h"

#define FLUSH_AT (64u << 10)

struct level {
	uint8_t layout; /* enum pv_json_layout */
	bool any;	/* a member was written */
	char close;	/* ']' or '}' */
	uint32_t indent;
};

struct pv_json {
	struct sbuf b;
	FILE *sink;
	int err;
	bool key;     /* a key was written: the next value is its member's */
	bool newline; /* the next member starts a new line */
	uint32_t depth, cap;
	struct level *lv;
};

struct pv_json *pv_json_new(FILE *sink)
{
	struct pv_json *j = pv_calloc(1, sizeof(*j));
	if (j)
		j->sink = sink;
	return j;
}

void pv_json_free(struct pv_json *j)
{
	if (!j)
		return;
	sbuf_release(&j->b);
	pv_free(j->lv);
	pv_free(j);
}

int pv_json_error(const struct pv_json *j)
{
	return j->err;
}

static void flush(struct pv_json *j)
{
	if (!j->sink || !j->b.len)
		return;
	if (!j->err && fwrite(j->b.buf, 1, j->b.len, j->sink) != j->b.len)
		j->err = PV_EIO;
	sbuf_reset(&j->b);
}

int pv_json_finish(struct pv_json *j)
{
	flush(j);
	if (j->sink && fflush(j->sink) != 0 && !j->err)
		j->err = PV_EIO;
	return j->err;
}

const char *pv_json_text(const struct pv_json *j, size_t *len)
{
	if (len)
		*len = j->b.len;
	return sbuf_str(&j->b);
}

char *pv_json_detach(struct pv_json *j, size_t *len)
{
	if (j->err)
		return NULL;
	char *s = sbuf_detach(&j->b, len);
	if (!s)
		j->err = PV_ENOMEM;
	return s;
}

void pv_json_reset(struct pv_json *j)
{
	sbuf_reset(&j->b);
	j->err = 0;
	j->depth = 0;
	j->key = j->newline = false;
}

static void put(struct pv_json *j, const char *s, size_t n)
{
	if (j->err)
		return;
	if (sbuf_put(&j->b, s, n))
		j->err = PV_ENOMEM;
	else if (j->b.len >= FLUSH_AT)
		flush(j);
}

static void puts_(struct pv_json *j, const char *s)
{
	put(j, s, strlen(s));
}

static void spaces(struct pv_json *j, uint32_t n)
{
	static const char blank[] = "                                ";
	while (n) {
		uint32_t k = n < sizeof(blank) - 1 ? n : (uint32_t)sizeof(blank) - 1;
		put(j, blank, k);
		n -= k;
	}
}

/* What goes before a value or a key: nothing after a key, else the container's separator. */
static void before(struct pv_json *j)
{
	if (j->key) {
		j->key = false;
		return;
	}
	if (!j->depth)
		return;
	struct level *l = &j->lv[j->depth - 1];
	if (l->layout == PV_JSON_LINES || l->layout == PV_JSON_ROWS) {
		put(j, l->any ? ",\n" : "\n", l->any ? 2 : 1);
		spaces(j, l->indent);
	} else if (l->any) {
		if (j->newline)
			put(j, ",\n", 2);
		else if (l->layout == PV_JSON_COMPACT)
			put(j, ",", 1);
		else
			put(j, ", ", 2);
	}
	j->newline = false;
	l->any = true;
}

void pv_json_open(struct pv_json *j, char bracket, enum pv_json_layout layout, uint32_t indent)
{
	before(j);
	if (j->err)
		return;
	if (j->depth == j->cap) {
		uint32_t nc = j->cap ? j->cap * 2 : 16;
		struct level *nl = nc > j->cap ? pv_realloc(j->lv, nc * sizeof(*nl)) : NULL;
		if (!nl) {
			j->err = PV_ENOMEM;
			return;
		}
		j->lv = nl;
		j->cap = nc;
	}
	j->lv[j->depth++] =
	    (struct level){(uint8_t)layout, false, bracket == '{' ? '}' : ']', indent};
	put(j, bracket == '{' ? "{" : "[", 1);
}

void pv_json_object(struct pv_json *j)
{
	pv_json_open(j, '{', PV_JSON_INLINE, 0);
}

void pv_json_array(struct pv_json *j)
{
	pv_json_open(j, '[', PV_JSON_INLINE, 0);
}

void pv_json_end(struct pv_json *j)
{
	if (j->err || !j->depth)
		return;
	struct level *l = &j->lv[--j->depth];
	if (l->layout == PV_JSON_LINES && l->any) {
		put(j, "\n", 1);
		spaces(j, l->indent >= 2 ? l->indent - 2 : 0);
	}
	put(j, &l->close, 1);
	j->newline = false;
}

void pv_json_key(struct pv_json *j, const char *key)
{
	before(j);
	if (j->err)
		return;
	if (sbuf_json_string(&j->b, key, strlen(key)))
		j->err = PV_ENOMEM;
	put(j, ": ", 2);
	j->key = true;
}

void pv_json_strn(struct pv_json *j, const char *s, size_t n)
{
	before(j);
	if (!j->err && sbuf_json_string(&j->b, s, n))
		j->err = PV_ENOMEM;
	if (!j->err && j->b.len >= FLUSH_AT)
		flush(j);
}

void pv_json_str(struct pv_json *j, const char *s)
{
	pv_json_strn(j, s, strlen(s));
}

void pv_json_str_or_null(struct pv_json *j, const char *s)
{
	if (s)
		pv_json_str(j, s);
	else
		pv_json_null(j);
}

void pv_json_int(struct pv_json *j, int64_t v)
{
	char t[SBUF_U64_MAX + 1];
	t[0] = '-';
	size_t n = v < 0;
	n += sbuf_u64_text(t + n, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
	before(j);
	put(j, t, n);
}

void pv_json_int_or_null(struct pv_json *j, int64_t v)
{
	if (v == INT64_MIN)
		pv_json_null(j);
	else
		pv_json_int(j, v);
}

void pv_json_uint(struct pv_json *j, uint64_t v)
{
	char t[SBUF_U64_MAX];
	size_t n = sbuf_u64_text(t, v);
	before(j);
	put(j, t, n);
}

void pv_json_ms(struct pv_json *j, int64_t ns)
{
	char t[SBUF_MS_MAX];
	size_t n = sbuf_ms_text(t, ns);
	before(j);
	put(j, t, n);
}

void pv_json_ms_or_null(struct pv_json *j, int64_t ns)
{
	if (ns == INT64_MIN)
		pv_json_null(j);
	else
		pv_json_ms(j, ns);
}

/* v as "%.*g" (g) or "%.*f"; null when not finite */
static void real(struct pv_json *j, double v, int digits, bool g)
{
	if (!isfinite(v)) {
		pv_json_null(j);
		return;
	}
	char t[352]; /* "%.4f" of DBL_MAX: 309 digits */
	int n = g ? snprintf(t, sizeof(t), "%.*g", digits, v)
		  : snprintf(t, sizeof(t), "%.*f", digits, v);
	before(j);
	put(j, t, n > 0 && (size_t)n < sizeof(t) ? (size_t)n : strlen(t));
}

void pv_json_double(struct pv_json *j, double v)
{
	real(j, v, 9, true);
}

void pv_json_real(struct pv_json *j, double v, int significant)
{
	real(j, v, significant, true);
}

void pv_json_fixed(struct pv_json *j, double v, int decimals)
{
	real(j, v, decimals, false);
}

void pv_json_null(struct pv_json *j)
{
	before(j);
	put(j, "null", 4);
}

void pv_json_bool(struct pv_json *j, bool v)
{
	before(j);
	puts_(j, v ? "true" : "false");
}

void pv_json_raw(struct pv_json *j, const char *json, size_t n)
{
	before(j);
	put(j, json, n);
}

void pv_json_kstr(struct pv_json *j, const char *key, const char *s)
{
	pv_json_key(j, key);
	pv_json_str(j, s);
}

void pv_json_kint(struct pv_json *j, const char *key, int64_t v)
{
	pv_json_key(j, key);
	pv_json_int(j, v);
}

void pv_json_kuint(struct pv_json *j, const char *key, uint64_t v)
{
	pv_json_key(j, key);
	pv_json_uint(j, v);
}

void pv_json_kms(struct pv_json *j, const char *key, int64_t ns)
{
	pv_json_key(j, key);
	pv_json_ms(j, ns);
}

void pv_json_kbool(struct pv_json *j, const char *key, bool v)
{
	pv_json_key(j, key);
	pv_json_bool(j, v);
}

void pv_json_knull(struct pv_json *j, const char *key)
{
	pv_json_key(j, key);
	pv_json_null(j);
}

void pv_json_newline(struct pv_json *j)
{
	j->newline = true;
}

void pv_json_eol(struct pv_json *j)
{
	put(j, "\n", 1);
}

static int put_file(void *ctx, const char *s, size_t n)
{
	return fwrite(s, 1, n, ctx) == n ? 0 : PV_EIO;
}

int pv_json_fput_string(FILE *out, const char *s)
{
	if (fputc('"', out) == EOF || json_escape(s, strlen(s), put_file, out) ||
	    fputc('"', out) == EOF)
		return PV_EIO;
	return 0;
}

int pv_json_fput_ms(FILE *out, int64_t ns)
{
	char t[SBUF_MS_MAX];
	size_t n = sbuf_ms_text(t, ns);
	return fwrite(t, 1, n, out) == n ? 0 : PV_EIO;
}

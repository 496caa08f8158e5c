/*
 * payload.c - marker payloads as small JSON documents, and JavaScript's rules for turning values
 * into text.
 *
 * A payload is kept in the model as compact JSON text. Pairing, labels and fields need its
 * members by key, so it is read into a flat node array (one allocation reused from payload to
 * payload) with the pull tokenizer of the importers: its depth limit and syntax checks apply, and
 * no recursion happens here. Values the Firefox Profiler prints with String(value) are printed
 * the way JavaScript does, so a number reads "165.870919" whether the file wrote
 * "165.87091900000001" or not.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/file.h"
#include "base/sbuf.h"
#include "marker/internal.h"

/* ---- documents ---- */

static uint32_t node_new(struct jdoc *d)
{
	if (d->nr == d->cap) {
		uint32_t nc = grow_cap(d->cap, (uint64_t)d->nr + 1);
		if (!nc || COL_GROW(d->n, nc))
			return JN_NONE;
		d->cap = nc;
	}
	struct jnode *x = &d->n[d->nr];
	memset(x, 0, sizeof(*x));
	x->next = x->first = JN_NONE;
	return d->nr++;
}

/* A string or key token's bytes: a view of the source, or a copy in d->dec when escaped. */
static int tok_text(struct jdoc *d, struct json *j, const struct json_tok *t, uint32_t *off,
		    uint32_t *len, bool *dec)
{
	if (!t->escaped) {
		*off = (uint32_t)(t->s - d->src);
		*len = (uint32_t)t->len;
		*dec = false;
		return 0;
	}
	const char *s;
	size_t n;
	int rc = json_str(j, t, &s, &n);
	if (rc)
		return rc;
	if (d->dec_len + n > UINT32_MAX)
		return PV_ENOMEM;
	if (d->dec_len + n > d->dec_cap) {
		size_t nc = d->dec_cap ? d->dec_cap : 256;
		while (nc < d->dec_len + n)
			nc *= 2;
		char *p = pv_realloc(d->dec, nc);
		if (!p)
			return PV_ENOMEM;
		d->dec = p;
		d->dec_cap = nc;
	}
	memcpy(d->dec + d->dec_len, s, n);
	*off = (uint32_t)d->dec_len;
	*len = (uint32_t)n;
	*dec = true;
	d->dec_len += n;
	return 0;
}

int jdoc_parse(struct jdoc *d, const char *src, size_t len, struct pv_error *err)
{
	struct pv_input in;
	struct json j;
	struct json_tok t;
	struct pv_error local;
	uint32_t stack[JSON_MAX_DEPTH + 1], last[JSON_MAX_DEPTH + 1];
	uint32_t depth = 0;
	int rc = 0;
	d->src = src;
	d->src_len = len;
	d->nr = 0;
	d->dec_len = 0;
	if (len > UINT32_MAX)
		return pv_error_set(err, PV_ELIMIT, "a marker payload of 4 GiB or more");
	memset(&in, 0, sizeof(in));
	in.name = "marker payload";
	in.data = src;
	in.len = len;
	json_init(&j, &in, err ? err : &local);
	bool have_key = false;
	struct json_tok key = {0};
	for (;;) {
		if ((rc = json_next(&j, &t)))
			break;
		if (t.kind == JSON_EOF)
			break;
		if (t.kind == JSON_KEY) {
			key = t;
			have_key = true;
			continue;
		}
		if (t.kind == JSON_END) {
			uint32_t c = stack[--depth];
			d->n[c].end = (uint32_t)(t.s + 1 - src);
			continue;
		}
		uint32_t x = node_new(d);
		if (x == JN_NONE) {
			rc = PV_ENOMEM;
			break;
		}
		struct jnode *n = &d->n[x];
		n->kind = (uint8_t)t.kind;
		if (have_key) {
			if ((rc = tok_text(d, &j, &key, &n->key, &n->key_len, &n->key_dec)))
				break;
			have_key = false;
		}
		if (t.kind == JSON_STRING) {
			if ((rc = tok_text(d, &j, &t, &n->str, &n->str_len, &n->str_dec)))
				break;
			n->off = (uint32_t)(t.s - 1 - src);
			n->end = (uint32_t)(t.s + t.len + 1 - src);
		} else {
			n->str = (uint32_t)(t.s - src);
			n->str_len = (uint32_t)t.len;
			n->off = n->str;
			n->end = n->str + n->str_len;
		}
		if (depth) {
			uint32_t parent = stack[depth - 1];
			if (d->n[parent].first == JN_NONE)
				d->n[parent].first = x;
			else
				d->n[last[depth - 1]].next = x;
			last[depth - 1] = x;
			d->n[parent].nkids++;
		}
		if (t.kind == JSON_OBJECT || t.kind == JSON_ARRAY) {
			stack[depth] = x;
			last[depth] = JN_NONE;
			depth++;
		}
	}
	json_release(&j);
	if (rc == PV_ENOMEM)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	if (!rc && d->nr == 0)
		return pv_error_set(err, PV_EPARSE, "an empty marker payload");
	return rc;
}

void jdoc_release(struct jdoc *d)
{
	pv_free(d->n);
	pv_free(d->dec);
	memset(d, 0, sizeof(*d));
}

const char *jn_key(const struct jdoc *d, uint32_t n, size_t *len)
{
	const struct jnode *x = &d->n[n];
	*len = x->key_len;
	return (x->key_dec ? d->dec : d->src) + x->key;
}

const char *jn_str(const struct jdoc *d, uint32_t n, size_t *len)
{
	const struct jnode *x = &d->n[n];
	*len = x->str_len;
	return (x->str_dec ? d->dec : d->src) + x->str;
}

bool jn_is(const struct jdoc *d, uint32_t n, const char *lit)
{
	size_t len;
	if (n == JN_NONE || d->n[n].kind != JSON_STRING)
		return false;
	const char *s = jn_str(d, n, &len);
	return strlen(lit) == len && memcmp(s, lit, len) == 0;
}

uint32_t jn_get(const struct jdoc *d, uint32_t obj, const char *key)
{
	if (obj == JN_NONE || obj >= d->nr || d->n[obj].kind != JSON_OBJECT)
		return JN_NONE;
	size_t kl = strlen(key), len;
	uint32_t found = JN_NONE;
	/* the last of duplicate keys wins, as in JSON.parse */
	for (uint32_t c = d->n[obj].first; c != JN_NONE; c = d->n[c].next) {
		const char *k = jn_key(d, c, &len);
		if (len == kl && memcmp(k, key, kl) == 0)
			found = c;
	}
	return found;
}

/*
 * JavaScript's Number("text") (StringToNumber): blanks trimmed, empty = 0, a decimal, Infinity
 * with a sign, or 0x / 0o / 0b digits without one; false (NaN) else.
 */
bool js_str_number(const char *s, size_t n, double *out)
{
	char buf[64];
	while (n && *s && strchr(" \t\n\r\v\f", *s))
		s++, n--;
	while (n && s[n - 1] && strchr(" \t\n\r\v\f", s[n - 1]))
		n--;
	if (n == 0) {
		*out = 0;
		return true;
	}
	size_t sign = s[0] == '+' || s[0] == '-';
	if (n - sign == 8 && memcmp(s + sign, "Infinity", 8) == 0) {
		*out = s[0] == '-' ? -INFINITY : INFINITY;
		return true;
	}
	if (n > 2 && s[0] == '0' && strchr("xXoObB", s[1])) {
		int base = s[1] == 'x' || s[1] == 'X' ? 16 : s[1] == 'o' || s[1] == 'O' ? 8 : 2;
		double v = 0;
		for (size_t i = 2; i < n; i++) {
			int c = (unsigned char)s[i], dv = c >= '0' && c <= '9'	 ? c - '0'
							  : c >= 'a' && c <= 'f' ? c - 'a' + 10
							  : c >= 'A' && c <= 'F' ? c - 'A' + 10
										 : 99;
			if (dv >= base)
				return false;
			v = v * base + dv; /* exact below 2^53, as JavaScript's */
		}
		*out = v;
		return true;
	}
	if (n >= sizeof(buf))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789+-.eE", s[i]))
			return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	char *end;
	*out = strtod(buf, &end);
	return *end == 0;
}

bool jn_number(const struct jdoc *d, uint32_t n, double *out)
{
	size_t len;
	if (n == JN_NONE)
		return false;
	const char *s = jn_str(d, n, &len);
	switch (d->n[n].kind) {
	case JSON_NUMBER: {
		char buf[400];
		if (len >= sizeof(buf))
			return false;
		memcpy(buf, s, len);
		buf[len] = 0;
		*out = strtod(buf, NULL);
		return true;
	}
	case JSON_STRING: return js_str_number(s, len, out);
	case JSON_TRUE: *out = 1; return true;
	case JSON_FALSE: *out = 0; return true;
	case JSON_NULL: *out = 0; return true;
	default: return false;
	}
}

bool jn_truthy(const struct jdoc *d, uint32_t n)
{
	if (n == JN_NONE)
		return false;
	switch (d->n[n].kind) {
	case JSON_FALSE:
	case JSON_NULL: return false;
	case JSON_STRING: return d->n[n].str_len > 0;
	case JSON_NUMBER: {
		double v;
		return jn_number(d, n, &v) && v != 0 && !isnan(v);
	}
	default: return true;
	}
}

void jn_js_string(const struct jdoc *d, uint32_t n, struct sbuf *out)
{
	size_t len;
	if (n == JN_NONE) {
		sbuf_puts(out, "undefined");
		return;
	}
	const char *s = jn_str(d, n, &len);
	switch (d->n[n].kind) {
	case JSON_STRING:
	case JSON_TRUE:
	case JSON_FALSE:
	case JSON_NULL: sbuf_put(out, s, len); return;
	case JSON_NUMBER: {
		/* an integer of up to 15 digits prints as written (ids, counts: the common case) */
		size_t i = len && s[0] == '-', digits = len - i;
		bool plain = digits && digits <= 15 && (s[i] != '0' || digits == 1);
		for (size_t k = i; plain && k < len; k++)
			plain = s[k] >= '0' && s[k] <= '9';
		if (plain && !(digits == 1 && s[i] == '0' && i)) {
			sbuf_put(out, s, len);
			return;
		}
		double v = 0;
		jn_number(d, n, &v);
		js_number(v, out);
		return;
	}
	case JSON_OBJECT: sbuf_puts(out, "[object Object]"); return;
	default: /* an array: its items joined by ",", null as "" */
		for (uint32_t c = d->n[n].first; c != JN_NONE; c = d->n[c].next) {
			if (c != d->n[n].first)
				sbuf_put(out, ",", 1);
			if (d->n[c].kind != JSON_NULL)
				jn_js_string(d, c, out);
		}
		return;
	}
}

/* ---- numbers ---- */

int js_shortest(double v, char *digits, int *point)
{
	/* the fewest significant digits that read back as v */
	char e[40];
	int prec;
	for (prec = 1; prec <= 17; prec++) {
		snprintf(e, sizeof(e), "%.*e", prec - 1, fabs(v));
		if (strtod(e, NULL) == fabs(v))
			break;
	}
	int k = 0;
	const char *p = e;
	for (; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9')
			digits[k++] = *p;
	while (k > 1 && digits[k - 1] == '0')
		k--;
	digits[k] = 0;
	*point = atoi(p + 1) + 1;
	return k;
}

void js_number(double v, struct sbuf *out)
{
	if (isnan(v)) {
		sbuf_puts(out, "NaN");
		return;
	}
	if (isinf(v)) {
		sbuf_puts(out, v < 0 ? "-Infinity" : "Infinity");
		return;
	}
	if (v == 0) {
		sbuf_puts(out, "0");
		return;
	}
	char digits[JS_DIGITS_MAX];
	int n, k = js_shortest(v, digits, &n);
	if (v < 0)
		sbuf_put(out, "-", 1);
	if (k <= n && n <= 21) {
		sbuf_put(out, digits, (size_t)k);
		for (int i = k; i < n; i++)
			sbuf_put(out, "0", 1);
	} else if (0 < n && n <= 21) {
		sbuf_put(out, digits, (size_t)n);
		sbuf_put(out, ".", 1);
		sbuf_put(out, digits + n, (size_t)(k - n));
	} else if (-6 < n && n <= 0) {
		sbuf_put(out, "0.", 2);
		for (int i = 0; i < -n; i++)
			sbuf_put(out, "0", 1);
		sbuf_put(out, digits, (size_t)k);
	} else {
		sbuf_put(out, digits, 1);
		if (k > 1) {
			sbuf_put(out, ".", 1);
			sbuf_put(out, digits + 1, (size_t)(k - 1));
		}
		sbuf_addf(out, "e%c%d", n - 1 < 0 ? '-' : '+', abs(n - 1));
	}
}

bool ms_text_to_ns(const char *s, size_t n, int64_t *out)
{
	/* digits scaled by 10^6 exactly; an exponent moves the point; beyond the ns: rounded */
	const char *p = s, *e = s + n;
	bool neg = false;
	if (p < e && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	char dig[48];
	int nd = 0, point = -1, exp = 0;
	bool any = false;
	for (; p < e; p++) {
		if (*p >= '0' && *p <= '9') {
			any = true;
			if (nd == 0 && *p == '0' && point < 0)
				continue; /* leading zeros of the integer part */
			if (nd < (int)sizeof(dig) - 1)
				dig[nd++] = *p;
			else if (point < 0)
				return false; /* too large */
		} else if (*p == '.' && point < 0) {
			point = nd;
		} else {
			break;
		}
	}
	if (!any)
		return false;
	if (point < 0)
		point = nd;
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		bool eneg = false;
		if (p < e && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		if (p >= e)
			return false;
		for (; p < e && *p >= '0' && *p <= '9'; p++)
			if (exp < 10000)
				exp = exp * 10 + (*p - '0');
		if (eneg)
			exp = -exp;
	}
	if (p != e)
		return false;
	/* value = 0.dig * 10^point * 10^exp ms; in ns: shift by 6 */
	int int_digits = point + exp + 6;
	if (int_digits > 18)
		return false;
	uint64_t v = 0;
	for (int i = 0; i < int_digits; i++)
		v = v * 10 + (uint64_t)(i < nd ? dig[i] - '0' : 0);
	if (int_digits >= 0 && int_digits < nd && dig[int_digits] >= '5')
		v++; /* half away from zero, like json_fixed */
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

void ns_to_ms_text(int64_t ns, struct sbuf *out)
{
	char t[SBUF_MS_MAX];
	sbuf_put(out, t, sbuf_ms_text(t, ns));
}

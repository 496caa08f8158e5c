/*
 * bplist.c - binary property lists and NSKeyedArchiver archives (bplist.h), after Apple's
 * CFBinaryPList.c: an 8-byte header, objects, an offset table and a 32-byte trailer.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "import/instruments/bplist.h"

static bool bad(struct bplist *bp, uint64_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool bad(struct bplist *bp, uint64_t at, const char *fmt, ...)
{
	if (bp->bad)
		return false;
	bp->bad = true;
	bp->bad_at = at;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(bp->why, sizeof(bp->why), fmt, ap);
	va_end(ap);
	return false;
}

/* A big-endian unsigned integer of size bytes at at (the caller checked the bounds). */
static uint64_t be(const unsigned char *p, unsigned size)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v = v << 8 | p[i];
	return v;
}

bool bp_open(struct bplist *bp, const void *data, size_t len)
{
	memset(bp, 0, sizeof(*bp));
	bp->d = data;
	bp->len = len;
	if (len < 8 + 32 || memcmp(data, "bplist00", 8) != 0)
		return bad(bp, 0, "a binary property list (bplist00 and its 32-byte trailer)");
	const unsigned char *t = bp->d + len - 32;
	bp->off_size = t[6];
	bp->ref_size = t[7];
	bp->nobj = be(t + 8, 8);
	bp->top = be(t + 16, 8);
	bp->table = be(t + 24, 8);
	if (bp->off_size < 1 || bp->off_size > 8 || bp->ref_size < 1 || bp->ref_size > 8)
		return bad(bp, len - 26, "offset and reference sizes of 1 to 8 bytes");
	if (bp->table < 8 || bp->table > len - 32 ||
	    bp->nobj > (len - 32 - bp->table) / bp->off_size)
		return bad(bp, len - 24, "an offset table of %llu entries within the file",
			   (unsigned long long)bp->nobj);
	if (bp->top >= bp->nobj)
		return bad(bp, len - 16, "a top object among the %llu objects",
			   (unsigned long long)bp->nobj);
	return true;
}

/* The length of a data, string, array or dict object whose marker is at at: its low nibble,
 * or an integer object after it when 0xf; *body is where its contents start. */
static bool length(struct bplist *bp, uint64_t at, uint64_t *n, uint64_t *body)
{
	unsigned low = bp->d[at] & 0xf;
	*body = at + 1;
	*n = low;
	if (low != 0xf)
		return true;
	if (at + 2 > bp->len || (bp->d[at + 1] & 0xf0) != 0x10)
		return bad(bp, at + 1, "an integer length after the marker");
	unsigned size = 1u << (bp->d[at + 1] & 0xf);
	if (size > 8 || at + 2 + size > bp->len)
		return bad(bp, at + 1, "an integer length of at most 8 bytes within the file");
	*n = be(bp->d + at + 2, size);
	*body = at + 2 + size;
	return true;
}

static bool fits(struct bplist *bp, uint64_t at, uint64_t n, uint64_t unit)
{
	if (unit && n > (bp->len - at) / unit)
		return bad(bp, at, "%llu bytes of the object within the file",
			   (unsigned long long)(n * unit));
	return true;
}

/* The contents of a marker's object of kind k whose low nibble says its size (ints, reals,
 * dates, uids). */
static bool scalar(struct bplist *bp, uint64_t at, struct bp_obj *o)
{
	unsigned m = bp->d[at], low = m & 0xf;
	unsigned size = (m >> 4) == 8 ? low + 1 : 1u << low;
	if (size > 16 || !fits(bp, at + 1, size, 1))
		return bad(bp, at, "a number of at most 16 bytes within the file");
	const unsigned char *p = bp->d + at + 1;
	if (o->kind == BP_INT || o->kind == BP_UID) {
		o->u = be(p + (size > 8 ? size - 8 : 0), size > 8 ? 8 : size);
	} else if (size == 4) {
		uint32_t v = (uint32_t)be(p, 4);
		float f;
		memcpy(&f, &v, 4);
		o->f = f;
	} else if (size == 8) {
		uint64_t v = be(p, 8);
		memcpy(&o->f, &v, 8);
	} else {
		return bad(bp, at, "a real of 4 or 8 bytes");
	}
	return true;
}

bool bp_get(struct bplist *bp, uint64_t ix, struct bp_obj *o)
{
	memset(o, 0, sizeof(*o));
	if (bp->bad)
		return false;
	if (ix >= bp->nobj)
		return bad(bp, bp->table, "an object number below %llu, not %llu",
			   (unsigned long long)bp->nobj, (unsigned long long)ix);
	uint64_t at = be(bp->d + bp->table + ix * bp->off_size, bp->off_size);
	if (at < 8 || at >= bp->table)
		return bad(bp, bp->table + ix * bp->off_size,
			   "the offset of object %llu within the objects", (unsigned long long)ix);
	o->at = at;
	unsigned m = bp->d[at];
	static const enum bp_kind kinds[16] = {
	    [0x1] = BP_INT,   [0x2] = BP_REAL, [0x3] = BP_DATE,	 [0x4] = BP_DATA, [0x5] = BP_ASCII,
	    [0x6] = BP_UTF16, [0x8] = BP_UID,  [0xa] = BP_ARRAY, [0xd] = BP_DICT, [0x0] = BP_NULL};
	unsigned hi = m >> 4;
	if (hi == 0) {
		if (m != 0 && m != 8 && m != 9)
			return bad(bp, at, "null, true or false (0x00, 0x08, 0x09), not 0x%02x", m);
		o->kind = m ? BP_BOOL : BP_NULL;
		o->u = m == 9;
		return true;
	}
	if (hi == 0x7 || hi == 0x9 || hi == 0xb || hi == 0xc || hi > 0xd)
		return bad(bp, at, "an object marker, not 0x%02x", m);
	o->kind = kinds[hi];
	if (hi == 1 || hi == 2 || hi == 3 || hi == 8)
		return scalar(bp, at, o);
	uint64_t body;
	if (!length(bp, at, &o->n, &body))
		return false;
	o->p = bp->d + body;
	uint64_t unit = o->kind == BP_UTF16   ? 2
			: o->kind == BP_ARRAY ? bp->ref_size
			: o->kind == BP_DICT  ? 2 * (uint64_t)bp->ref_size
					      : 1;
	return fits(bp, body, o->n, unit);
}

bool bp_ref(struct bplist *bp, const struct bp_obj *o, uint64_t i, uint64_t *ix)
{
	uint64_t n = o->kind == BP_DICT ? 2 * o->n : o->n;
	if ((o->kind != BP_ARRAY && o->kind != BP_DICT) || i >= n)
		return bad(bp, o->at, "an array or dict of more than %llu items",
			   (unsigned long long)i);
	*ix = be(o->p + i * bp->ref_size, bp->ref_size);
	return true;
}

/* Whether plist string object o is s (ASCII or UTF-16 strings of ASCII). */
static bool str_is(const struct bp_obj *o, const char *s)
{
	size_t n = strlen(s);
	if (o->n != n)
		return false;
	if (o->kind == BP_ASCII)
		return memcmp(o->p, s, n) == 0;
	if (o->kind != BP_UTF16)
		return false;
	for (size_t i = 0; i < n; i++)
		if (o->p[2 * i] || o->p[2 * i + 1] != (unsigned char)s[i])
			return false;
	return true;
}

/* The value of plist dict d's key, without dereferencing. */
static bool dict_get(struct bplist *bp, const struct bp_obj *d, const char *key, struct bp_obj *v)
{
	if (d->kind != BP_DICT)
		return false;
	for (uint64_t i = 0; i < d->n; i++) {
		uint64_t k, x;
		struct bp_obj ko;
		if (!bp_ref(bp, d, i, &k) || !bp_get(bp, k, &ko))
			return false;
		if (str_is(&ko, key))
			return bp_ref(bp, d, d->n + i, &x) && bp_get(bp, x, v);
	}
	return false;
}

bool ka_open(struct karchive *ka, const void *data, size_t len)
{
	struct bplist *bp = &ka->bp;
	struct bp_obj root, v;
	uint64_t ver;
	/* $objects first: a $version given as a UID refers to it */
	ka->objects = (struct bp_obj){.kind = BP_NULL};
	ka->top = (struct bp_obj){.kind = BP_NULL};
	if (!bp_open(bp, data, len) || !bp_get(bp, bp->top, &root))
		return false;
	if (!dict_get(bp, &root, "$archiver", &v) || !str_is(&v, "NSKeyedArchiver"))
		return bad(bp, root.at, "an NSKeyedArchiver archive ($archiver)");
	if (!dict_get(bp, &root, "$objects", &ka->objects) || ka->objects.kind != BP_ARRAY)
		return bad(bp, root.at, "an array of $objects");
	if (!dict_get(bp, &root, "$version", &v) || !ka_int(ka, &v, &ver) || ver != 100000)
		return bad(bp, root.at, "an archive of $version 100000");
	if (!dict_get(bp, &root, "$top", &ka->top) || ka->top.kind != BP_DICT)
		return bad(bp, root.at, "a dict $top");
	return true;
}

bool ka_deref(struct karchive *ka, const struct bp_obj *v, struct bp_obj *o)
{
	if (v->kind != BP_UID) {
		*o = *v;
		return true;
	}
	uint64_t ix;
	if (!bp_ref(&ka->bp, &ka->objects, v->u, &ix) || !bp_get(&ka->bp, ix, o))
		return false;
	if (v->u == 0 && str_is(o, "$null")) {
		memset(o, 0, sizeof(*o));
		o->kind = BP_NULL;
	}
	return true;
}

bool ka_field(struct karchive *ka, const struct bp_obj *d, const char *key, struct bp_obj *v)
{
	return dict_get(&ka->bp, d, key, v);
}

void ka_class(struct karchive *ka, const struct bp_obj *o, char *buf, size_t size)
{
	struct bp_obj c, cd, name;
	buf[0] = 0;
	if (o->kind != BP_DICT || !dict_get(&ka->bp, o, "$class", &c) || !ka_deref(ka, &c, &cd) ||
	    !dict_get(&ka->bp, &cd, "$classname", &name) || name.kind != BP_ASCII)
		return;
	snprintf(buf, size, "%.*s", (int)(name.n < size ? name.n : size - 1), (const char *)name.p);
}

bool ka_is(struct karchive *ka, const struct bp_obj *o, const char *name)
{
	char c[64];
	ka_class(ka, o, c, sizeof(c));
	return strcmp(c, name) == 0;
}

bool ka_elem(struct karchive *ka, const struct bp_obj *a, uint64_t i, struct bp_obj *o)
{
	uint64_t ix;
	struct bp_obj v;
	return bp_ref(&ka->bp, a, i, &ix) && bp_get(&ka->bp, ix, &v) && ka_deref(ka, &v, o);
}

bool ka_array(struct karchive *ka, const struct bp_obj *o, struct bp_obj *items)
{
	if (!ka_is(ka, o, "NSArray") && !ka_is(ka, o, "NSMutableArray"))
		return false;
	return ka_field(ka, o, "NS.objects", items) && items->kind == BP_ARRAY;
}

bool ka_dict(struct karchive *ka, const struct bp_obj *o, struct bp_obj *keys,
	     struct bp_obj *values)
{
	if (!ka_is(ka, o, "NSDictionary") && !ka_is(ka, o, "NSMutableDictionary"))
		return false;
	return ka_field(ka, o, "NS.keys", keys) && keys->kind == BP_ARRAY &&
	       ka_field(ka, o, "NS.objects", values) && values->kind == BP_ARRAY &&
	       keys->n == values->n;
}

bool ka_int(struct karchive *ka, const struct bp_obj *v, uint64_t *out)
{
	struct bp_obj o;
	if (!ka_deref(ka, v, &o) || o.kind != BP_INT)
		return false;
	*out = o.u;
	return true;
}

/* UTF-16 (big-endian, n units) as UTF-8 into a new buffer. */
static char *utf16_to_utf8(const unsigned char *p, uint64_t n)
{
	char *s = pv_malloc(3 * n + 1), *w = s;
	if (!s)
		return NULL;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t c = (uint32_t)p[2 * i] << 8 | p[2 * i + 1];
		if (c >= 0xd800 && c < 0xdc00 && i + 1 < n) {
			uint32_t d = (uint32_t)p[2 * i + 2] << 8 | p[2 * i + 3];
			if (d >= 0xdc00 && d < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
				i++;
			}
		}
		if (c < 0x80) {
			*w++ = (char)c;
		} else if (c < 0x800) {
			*w++ = (char)(0xc0 | c >> 6);
			*w++ = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			*w++ = (char)(0xe0 | c >> 12);
			*w++ = (char)(0x80 | ((c >> 6) & 0x3f));
			*w++ = (char)(0x80 | (c & 0x3f));
		} else {
			*w++ = (char)(0xf0 | c >> 18);
			*w++ = (char)(0x80 | ((c >> 12) & 0x3f));
			*w++ = (char)(0x80 | ((c >> 6) & 0x3f));
			*w++ = (char)(0x80 | (c & 0x3f));
		}
	}
	*w = 0;
	return s;
}

char *ka_string(struct karchive *ka, const struct bp_obj *v, bool *nomem)
{
	struct bp_obj o, s;
	if (!ka_deref(ka, v, &o))
		return NULL;
	if (o.kind == BP_DICT && (ka_is(ka, &o, "NSString") || ka_is(ka, &o, "NSMutableString"))) {
		if (ka_field(ka, &o, "NS.string", &s) && ka_deref(ka, &s, &s))
			o = s;
		else if (ka_field(ka, &o, "NS.bytes", &s) && ka_deref(ka, &s, &s) &&
			 s.kind == BP_DATA) {
			o = s;
			if (o.n && o.p[o.n - 1] == 0) /* one trailing NUL dropped, as speedscope */
				o.n--;
			o.kind = BP_ASCII;
		}
	}
	char *out = NULL;
	if (o.kind == BP_ASCII) {
		out = pv_malloc(o.n + 1);
		if (out) {
			memcpy(out, o.p, o.n);
			out[o.n] = 0;
		}
	} else if (o.kind == BP_UTF16) {
		out = utf16_to_utf8(o.p, o.n);
	} else {
		return NULL;
	}
	if (!out)
		*nomem = true;
	return out;
}

bool ka_string_is(struct karchive *ka, const struct bp_obj *v, const char *s)
{
	bool nomem = false;
	char *t = ka_string(ka, v, &nomem);
	bool eq = t && strcmp(t, s) == 0;
	pv_free(t);
	return eq;
}

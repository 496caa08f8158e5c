#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sbuf.h"
#include "base/text.h"
#include "import/json.h"

/* Per-container state: what the next token may be. */
enum {
	ST_OPEN,  /* just after '{' or '[': a key/value or the end */
	ST_KEY,	  /* object, after a key: a value */
	ST_AFTER, /* after a value: ',' or the end */
};

void json_init(struct json *j, struct pv_input *in, struct pv_error *err)
{
	memset(j, 0, sizeof(*j));
	j->in = in;
	j->p = in->data;
	j->end = in->data + in->len;
	j->err = err;
	j->forget_mark = in->data;
}

void json_release(struct json *j)
{
	pv_free(j->scratch);
	j->scratch = NULL;
	j->scratch_cap = 0;
}

const char *json_kind_name(enum json_kind k)
{
	switch (k) {
	case JSON_EOF: return "the end of the input";
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_END: return "the end of a container";
	case JSON_KEY: return "a key";
	case JSON_STRING: return "a string";
	case JSON_NUMBER: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "a token";
}

int json_fail(struct json *j, const char *p, const char *fmt, ...)
{
	if (j->failed)
		return j->failed;
	if (!p)
		p = j->p;
	if (p > j->end)
		p = j->end;
	char what[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	int code = PV_EPARSE;
	if (strncmp(what, "nesting", 7) == 0)
		code = PV_ELIMIT;
	input_fail(j->in, j->err, code, p, "%s", what);
	if (j->err)
		j->err->offset = (uint64_t)(p - j->in->data);
	j->failed = code;
	return code;
}

/* Where the JSON whitespace from p stops. */
static const char *skip_ws_from(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

static inline void skip_ws(struct json *j)
{
	j->p = skip_ws_from(j->p, j->end);
}

/* Where the bytes of a string without escapes or control bytes stop (a '"' when it is one). */
static inline const char *plain_end(const char *p, const char *e)
{
	while (p < e && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
		p++;
	return p;
}

static const char *describe(const struct json *j)
{
	if (j->p >= j->end)
		return "the end of the input";
	return NULL;
}

/* Error "expected X, found Y" at the current position. */
static int expected(struct json *j, const char *what)
{
	const char *d = describe(j);
	if (d)
		return json_fail(j, NULL, "expected %s, found %s", what, d);
	unsigned char c = (unsigned char)*j->p;
	if (c >= 0x20 && c < 0x7f)
		return json_fail(j, NULL, "expected %s, found '%c'", what, c);
	return json_fail(j, NULL, "expected %s, found byte 0x%02x", what, c);
}

static int scan_string(struct json *j, struct json_tok *t)
{
	const char *p = j->p + 1, *e = j->end;
	bool esc = false;
	for (;;) {
		p = plain_end(p, e);
		if (p >= e) {
			j->p = p;
			return json_fail(
			    j, t->s,
			    "unterminated string (expected '\"' before the end of the input)");
		}
		if (*p == '"')
			break;
		if (*p == '\\') {
			esc = true;
			if (p + 1 >= e) {
				j->p = e;
				return json_fail(j, p, "unterminated escape in a string");
			}
			char c = p[1];
			if (c == 'u') {
				for (int i = 2; i < 6; i++) {
					if (p + i >= e || !((p[i] >= '0' && p[i] <= '9') ||
							    (p[i] >= 'a' && p[i] <= 'f') ||
							    (p[i] >= 'A' && p[i] <= 'F')))
						return json_fail(
						    j, p, "expected four hex digits after '\\u'");
				}
				p += 6;
			} else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' ||
				   c == 'n' || c == 'r' || c == 't') {
				p += 2;
			} else {
				if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
					return json_fail(j, p,
							 "invalid escape: byte 0x%02x after '\\'",
							 (unsigned char)c);
				return json_fail(j, p, "invalid escape '\\%c' in a string", c);
			}
			continue;
		}
		return json_fail(j, p, "control character 0x%02x in a string (expected it escaped)",
				 (unsigned char)*p);
	}
	t->s = j->p + 1;
	t->len = (size_t)(p - t->s);
	t->escaped = esc;
	j->p = p + 1;
	return 0;
}

static int scan_number(struct json *j, struct json_tok *t)
{
	const char *p = j->p, *e = j->end, *s = p;
	if (p < e && *p == '-')
		p++;
	if (p >= e || *p < '0' || *p > '9') {
		j->p = p;
		return expected(j, "a digit");
	}
	if (*p == '0') {
		p++;
	} else {
		while (p < e && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < e && *p == '.') {
		p++;
		if (p >= e || *p < '0' || *p > '9') {
			j->p = p;
			return expected(j, "a digit after '.'");
		}
		while (p < e && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		if (p >= e || *p < '0' || *p > '9') {
			j->p = p;
			return expected(j, "a digit in the exponent");
		}
		while (p < e && *p >= '0' && *p <= '9')
			p++;
	}
	t->kind = JSON_NUMBER;
	t->s = s;
	t->len = (size_t)(p - s);
	j->p = p;
	return 0;
}

static int scan_lit(struct json *j, struct json_tok *t, const char *lit, enum json_kind k)
{
	size_t n = strlen(lit);
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n) != 0)
		return expected(j, "a value");
	t->kind = k;
	t->s = j->p;
	t->len = n;
	j->p += n;
	return 0;
}

/* A value at the current position (whitespace skipped). */
static int scan_value(struct json *j, struct json_tok *t)
{
	if (j->p >= j->end)
		return expected(j, "a value");
	t->escaped = false;
	switch (*j->p) {
	case '{':
	case '[':
		if (j->depth >= JSON_MAX_DEPTH)
			return json_fail(j, NULL, "nesting deeper than %d levels", JSON_MAX_DEPTH);
		t->kind = *j->p == '{' ? JSON_OBJECT : JSON_ARRAY;
		t->s = j->p;
		t->len = 1;
		j->kind[j->depth] = *j->p == '{' ? 'o' : 'a';
		j->state[j->depth] = ST_OPEN;
		j->depth++;
		j->p++;
		return 0;
	case '"':
		t->kind = JSON_STRING;
		t->s = j->p;
		return scan_string(j, t);
	case 't': return scan_lit(j, t, "true", JSON_TRUE);
	case 'f': return scan_lit(j, t, "false", JSON_FALSE);
	case 'n': return scan_lit(j, t, "null", JSON_NULL);
	default:
		if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9'))
			return scan_number(j, t);
		return expected(j, "a value");
	}
}

static int close_container(struct json *j, struct json_tok *t)
{
	t->kind = JSON_END;
	t->s = j->p;
	t->len = 1;
	t->escaped = false;
	j->p++;
	j->depth--;
	return 0;
}

static int scan_key(struct json *j, struct json_tok *t)
{
	if (j->p >= j->end || *j->p != '"')
		return expected(j, "a key (a string)");
	t->kind = JSON_KEY;
	t->s = j->p;
	int rc = scan_string(j, t);
	if (rc)
		return rc;
	t->kind = JSON_KEY;
	skip_ws(j);
	if (j->p >= j->end || *j->p != ':')
		return expected(j, "':' after a key");
	j->p++;
	j->state[j->depth - 1] = ST_KEY;
	return 0;
}

static int lenient_eof(struct json *j, struct json_tok *t)
{
	/* a truncated trace: close every open container */
	j->depth = 0;
	j->top_done = true;
	t->kind = JSON_EOF;
	t->s = j->end;
	t->len = 0;
	return 0;
}

/*
 * Every 2 * JSON_FORGET_LAG bytes: the pages more than JSON_FORGET_LAG behind go back to the
 * kernel, and those ahead are mapped in bulk (input_ahead; the first time from the start).
 */
static inline void keep_up(struct json *j)
{
	if ((size_t)(j->p - j->forget_mark) > 2 * JSON_FORGET_LAG) {
		input_forget(j->in, j->p - JSON_FORGET_LAG);
		input_ahead(j->in, j->p);
		j->forget_mark = j->p;
	}
}

int json_next(struct json *j, struct json_tok *t)
{
	if (j->failed)
		return j->failed;
	keep_up(j);
	skip_ws(j);
	if (j->depth == 0) {
		if (j->top_done) {
			if (j->p < j->end)
				return expected(j,
						"the end of the input after the top-level value");
			t->kind = JSON_EOF;
			t->s = j->p;
			t->len = 0;
			return 0;
		}
		int rc = scan_value(j, t);
		if (!rc && j->depth == 0)
			j->top_done = true;
		return rc;
	}
	uint32_t d = j->depth - 1;
	bool obj = j->kind[d] == 'o';
	int rc;
	switch (j->state[d]) {
	case ST_OPEN:
		if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
			rc = close_container(j, t);
			goto after_value;
		}
		if (j->p >= j->end && j->lenient_tail)
			return lenient_eof(j, t);
		if (obj)
			return scan_key(j, t);
		j->state[d] = ST_AFTER;
		return scan_value(j, t);
	case ST_KEY: j->state[d] = ST_AFTER; return scan_value(j, t);
	default: /* ST_AFTER */
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			skip_ws(j);
			if (j->p >= j->end && j->lenient_tail)
				return lenient_eof(j, t);
			if (obj)
				return scan_key(j, t);
			return scan_value(j, t);
		}
		if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
			rc = close_container(j, t);
			goto after_value;
		}
		if (j->p >= j->end && j->lenient_tail)
			return lenient_eof(j, t);
		return expected(j, obj ? "',' or '}'" : "',' or ']'");
	}
after_value:
	if (j->depth == 0)
		j->top_done = true;
	return rc;
}

/* ---- arrays of numbers ---- */

/*
 * The fast path reads an element only when RUN_SLACK bytes of input follow its start, so its
 * loops need no bounds checks: a number it accepts is at most '-', 12 digits, '.', 7 digits,
 * RUN_NOISE more digits and the byte after it (RUN_SLACK covers them).
 */
#define RUN_SLACK 64
#define RUN_NOISE 32

enum run_kind { RUN_U32, RUN_I64, RUN_FIXED };

/*
 * One element at q (RUN_SLACK bytes readable): its value and the byte after it in *end, or
 * false to leave it to json_next. A number must not go on with a digit, '.', 'e' or 'E' (it
 * would be another number, read the slow way); any other byte after it is the separator's
 * business, as in json_next.
 */
static const int64_t run_scale[] = {1, 10, 100, 1000, 10000, 100000, 1000000};

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * Eight bytes at a time (little-endian: the first byte is the lowest). digits8 counts the
 * leading ASCII digits of w; a carry out of a byte only happens above a non-digit, so the
 * first non-digit is found right. conv8 is the value of the first k (1 to 8) digits.
 */
static inline uint64_t load8(const char *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
	return w;
}

static inline unsigned digits8(uint64_t w)
{
	uint64_t x = w ^ 0x3030303030303030ULL;
	uint64_t nd = ((x + 0x7676767676767676ULL) | x) & 0x8080808080808080ULL;
	return nd ? (unsigned)__builtin_ctzll(nd) >> 3 : 8;
}

static inline uint64_t conv8(uint64_t w, unsigned k)
{
	w = (w & 0x0F0F0F0F0F0F0F0FULL) << (8 * (8 - k));
	w = (w * 2561) >> 8 & 0x00FF00FF00FF00FFULL;
	w = (w * 6553601) >> 16 & 0x0000FFFF0000FFFFULL;
	return (w * 42949672960001ULL) >> 32;
}

/*
 * The common shapes (up to 8 integer digits, a short or float-noise fraction) word by word;
 * false leaves the element to run_elem's byte loop, which reads every shape it accepts.
 */
static inline __attribute__((always_inline)) bool
run_swar(const char *q, enum run_kind kind, int pow10, int64_t *out, const char **end)
{
	bool neg = kind != RUN_U32 && *q == '-';
	q += neg;
	uint64_t w = load8(q);
	unsigned k = digits8(w);
	if (k == 0 || k == 8 || (k > 1 && (w & 0xff) == '0'))
		return false;
	int64_t v = (int64_t)conv8(w, k);
	q += k;
	if (kind == RUN_FIXED) {
		if (*q == '.') {
			w = load8(++q);
			unsigned f = digits8(w);
			if (f == 0)
				return false;
			if (f <= (unsigned)pow10) {
				v = v * run_scale[pow10] +
				    (int64_t)conv8(w, f) * run_scale[pow10 - (int)f];
				q += f;
			} else {
				/* as json_fixed: the first dropped digit rounds, the rest only ends
				 */
				bool up = (w >> (8 * pow10) & 0xff) >= '5';
				v = v * run_scale[pow10] + (int64_t)conv8(w, (unsigned)pow10) + up;
				q += f;
				for (int i = 0; f == 8; i++) {
					if (i == RUN_NOISE / 8)
						return false;
					f = digits8(load8(q));
					q += f;
				}
			}
		} else {
			v *= run_scale[pow10];
		}
	} else if (*q == '.') {
		return false;
	}
	if ((*q | 0x20) == 'e')
		return false;
	*out = neg ? -v : v;
	*end = q;
	return true;
}
#endif

#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define RUN_BLOCK 1
/*
 * Compact arrays 64 bytes at a time: one pass of SSE2 compares finds every digit, comma, '.'
 * and '-' of the window, so each element's bounds are known before it is read and no element
 * waits for the digits of the one before. The window is taken from a comma (after an element);
 * the elements read are those ended by a comma before the first byte that is none of these
 * (whitespace, ']', a letter...). An element of another shape (too long, a leading zero, two
 * dots, ...) ends the block there; the per-element path takes it, as it takes whatever the
 * window did not reach. Needs 128 readable bytes at b. Returns how many values it stored
 * (at most cap) and where it stopped: after the last element read, on its comma.
 */
#include <emmintrin.h>

/* The elements of a window whose commas (from the second on) are cm, from byte 1 on. */
static inline __attribute__((always_inline)) size_t run_block_elems(const char *b, uint64_t cm,
								    uint64_t X, enum run_kind kind,
								    int pow10, void *out,
								    uint32_t *ps)
{
	uint32_t s = 1;
	size_t n = 0;
	for (; cm; cm &= cm - 1) {
		uint32_t e = (uint32_t)__builtin_ctzll(cm), len = e - s;
		const char *q = b + s;
		uint64_t w = load8(q);
		int64_t v;
		if (kind != RUN_FIXED) {
			if (len - 1 > 7 || (len > 1 && *q == '0'))
				break;
			v = (int64_t)conv8(w, len);
		} else {
			/* k integer digits, then maybe '.' and f fraction digits, fd of which count
			 */
			uint32_t k = (uint32_t)__builtin_ctzll(X >> s | 1ULL << len);
			uint32_t f = k < len ? len - k - 1 : 0;
			if (k - 1 > 7 || (k > 1 && *q == '0'))
				break;
			uint32_t fd = f < (uint32_t)pow10 ? f : (uint32_t)pow10;
			if (k + 1 + fd <= 8) {
				/* all the digits that count are in w: drop the '.' between them */
				uint64_t lo = (1ULL << (8 * k)) - 1;
				w = (w & lo) | (w >> 8 & ~lo);
				v = (int64_t)conv8(w, k + fd) * run_scale[pow10 - (int)fd];
			} else {
				v = (int64_t)conv8(w, k) * run_scale[pow10];
				if (fd)
					v += (int64_t)conv8(load8(q + k + 1), fd) *
					     run_scale[pow10 - (int)fd];
			}
			/* as json_fixed: the first dropped digit rounds */
			v += (f > fd) & (q[k + 1 + fd] >= '5');
		}
		if (kind == RUN_U32)
			((uint32_t *)out)[n++] = (uint32_t)v;
		else
			((int64_t *)out)[n++] = v;
		s = e + 1;
	}
	*ps = s;
	return n;
}

/*
 * Non-negative numbers only: a '-' ends the window like any other byte of no element, and the
 * per-element path reads it.
 */
static inline __attribute__((always_inline)) size_t run_block(const char **pb, enum run_kind kind,
							      int pow10, void *out, size_t cap)
{
	const char *b = *pb;
	uint64_t OK = 0, C = 0, X = 0;
	const __m128i zero = _mm_set1_epi8('0'), nine = _mm_set1_epi8(9);
	const __m128i comma = _mm_set1_epi8(','), dot = _mm_set1_epi8('.');
	for (int i = 0; i < 4; i++) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(b + 16 * i));
		__m128i t = _mm_sub_epi8(x, zero);
		__m128i c = _mm_cmpeq_epi8(x, comma);
		__m128i ok = _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(t, nine), t), c);
		uint64_t sh = 16 * (uint64_t)i;
		if (kind == RUN_FIXED) {
			__m128i d = _mm_cmpeq_epi8(x, dot);
			ok = _mm_or_si128(ok, d);
			X |= (uint64_t)(uint16_t)_mm_movemask_epi8(d) << sh;
		}
		OK |= (uint64_t)(uint16_t)_mm_movemask_epi8(ok) << sh;
		C |= (uint64_t)(uint16_t)_mm_movemask_epi8(c) << sh;
	}
	/*
	 * The window ends at the first byte of no element, or at a '.' that is not between
	 * digits of its own element: before a comma, or after another '.' with no comma between
	 * (subtracting the bit after each '.' from the commas borrows up to the next comma).
	 */
	uint64_t bad = ~OK;
	if (kind == RUN_FIXED)
		bad |= X & ((C >> 1) | (C ^ (C - (X << 1))));
	uint64_t cm = bad ? C & ((1ULL << __builtin_ctzll(bad)) - 1) : C;
	if (!(cm & 1))
		return 0;
	cm &= cm - 1;
	if (cap < 64) {
		/* at most cap elements: drop the last commas */
		uint64_t keep = 0;
		for (size_t i = 0; i < cap && cm; i++) {
			keep |= cm & (0 - cm);
			cm &= cm - 1;
		}
		cm = keep;
	}
	uint32_t s;
	size_t n = run_block_elems(b, cm, X, kind, pow10, out, &s);
	*pb = b + s - 1;
	return n;
}
#endif

static inline __attribute__((always_inline)) bool run_elem(const char *q, enum run_kind kind,
							   int pow10, bool null_ok,
							   int64_t null_value, int64_t *out,
							   const char **end)
{
	const int64_t *scale = run_scale;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (run_swar(q, kind, pow10, out, end))
		return true;
#endif
	bool neg = false;
	if (kind != RUN_U32 && *q == '-') {
		neg = true;
		q++;
	}
	unsigned d = (unsigned)((unsigned char)*q - '0');
	if (d > 9) {
		if (!neg && null_ok && q[0] == 'n' && q[1] == 'u' && q[2] == 'l' && q[3] == 'l') {
			*out = null_value;
			*end = q + 4;
			return true;
		}
		return false;
	}
	int64_t v = d;
	q++;
	if (d == 0) {
		if (text_is_digit(*q))
			return false; /* a leading zero: not a JSON number */
	} else {
		int max = kind == RUN_U32 ? 9 : kind == RUN_I64 ? 18 : 12;
		for (int nd = 1; (d = (unsigned)((unsigned char)*q - '0')) <= 9; q++) {
			if (++nd > max)
				return false;
			v = v * 10 + d;
		}
	}
	if (kind == RUN_FIXED) {
		int frac = 0;
		bool up = false;
		if (*q == '.') {
			q++;
			if (!text_is_digit(*q))
				return false;
			for (; frac < pow10 && text_is_digit(*q); q++, frac++)
				v = v * 10 + (*q - '0');
			if (text_is_digit(*q)) {
				/* as json_fixed: the first dropped digit rounds, the rest only ends
				 */
				up = *q >= '5';
				const char *stop = ++q + RUN_NOISE;
				for (; text_is_digit(*q); q++)
					if (q == stop)
						return false;
			}
		}
		v = v * scale[pow10 - frac] + up;
	} else if (*q == '.') {
		return false;
	}
	if ((*q | 0x20) == 'e')
		return false;
	*out = neg ? -v : v;
	*end = q;
	return true;
}

static inline __attribute__((always_inline)) size_t run_array(struct json *j, enum run_kind kind,
							      int pow10, void *out, size_t cap,
							      bool null_ok, int64_t null_value,
							      enum json_run *stop)
{
	*stop = JSON_RUN_OTHER;
	if (j->failed || j->depth == 0 || j->kind[j->depth - 1] != 'a')
		return 0;
	keep_up(j);
	uint8_t *state = &j->state[j->depth - 1];
	const char *p = j->p, *e = j->end;
	const char *lim = e - p > RUN_SLACK ? e - RUN_SLACK : p;
	bool open = *state == ST_OPEN;
	size_t n = 0;
#ifdef RUN_BLOCK
	/* per-element steps before the block path is tried again, after it read nothing */
	unsigned wait = 0;
#endif
	for (;;) {
#ifdef RUN_BLOCK
		if (!open && !wait && (size_t)(e - p) >= 128 && n < cap) {
			size_t got = run_block(&p, kind, pow10,
					       kind == RUN_U32 ? (void *)((uint32_t *)out + n)
							       : (void *)((int64_t *)out + n),
					       cap - n);
			n += got;
			if (got)
				continue;
			wait = 8;
		} else if (wait) {
			wait--;
		}
#endif
		const char *q = p;
		if (q < e && (unsigned char)*q <= ' ')
			q = skip_ws_from(q, e);
		if (q >= lim)
			break;
		if (*q == ']') {
			j->p = q + 1;
			j->depth--;
			if (j->depth == 0)
				j->top_done = true;
			*stop = JSON_RUN_END;
			return n;
		}
		if (!open) {
			if (*q != ',')
				break;
			q++;
			if ((unsigned char)*q <= ' ') {
				q = skip_ws_from(q, e);
				if (q >= lim)
					break;
			}
		}
		if (n == cap) {
			*stop = JSON_RUN_FULL;
			break;
		}
		int64_t v;
		if (!run_elem(q, kind, pow10, null_ok, null_value, &v, &q))
			break;
		if (kind == RUN_U32)
			((uint32_t *)out)[n++] = (uint32_t)v;
		else
			((int64_t *)out)[n++] = v;
		p = q;
		open = false;
	}
	j->p = p;
	if (n)
		*state = ST_AFTER;
	return n;
}

size_t json_run_u32(struct json *j, uint32_t *out, size_t cap, bool null_ok, uint32_t null_value,
		    enum json_run *stop)
{
	return run_array(j, RUN_U32, 0, out, cap, null_ok, null_value, stop);
}

size_t json_run_i64(struct json *j, int pow10, int64_t *out, size_t cap, bool null_ok,
		    int64_t null_value, enum json_run *stop)
{
	if (pow10 < 0 || pow10 > 6) {
		*stop = JSON_RUN_OTHER;
		return 0;
	}
	/* a constant pow10 for the common scales (times and weights, CPU deltas) */
	switch (pow10) {
	case 0: return run_array(j, RUN_I64, 0, out, cap, null_ok, null_value, stop);
	case 6: return run_array(j, RUN_FIXED, 6, out, cap, null_ok, null_value, stop);
	case 3: return run_array(j, RUN_FIXED, 3, out, cap, null_ok, null_value, stop);
	default: return run_array(j, RUN_FIXED, pow10, out, cap, null_ok, null_value, stop);
	}
}

/* Whitespace from q, and whether a byte at q has its RUN_SLACK bytes after it (q < lim). */
static inline const char *run_ws(const char *q, const char *e)
{
	return q < e && (unsigned char)*q <= ' ' ? skip_ws_from(q, e) : q;
}

/* One cell of a row at q (q < lim): as its kind reads it, or false. */
static inline bool run_cell(const char *q, struct json_run_cell c, int64_t null_value, int64_t *out,
			    const char **end)
{
	if (c.index)
		return run_elem(q, RUN_U32, 0, true, null_value, out, end);
	switch (c.pow10) {
	case 0: return run_elem(q, RUN_I64, 0, true, null_value, out, end);
	case 3: return run_elem(q, RUN_FIXED, 3, true, null_value, out, end);
	case 6: return run_elem(q, RUN_FIXED, 6, true, null_value, out, end);
	default:
		return c.pow10 > 0 && c.pow10 <= 6 &&
		       run_elem(q, RUN_FIXED, c.pow10, true, null_value, out, end);
	}
}

bool json_run_row(struct json *j, const struct json_run_cell *cell, unsigned n, int64_t null_value,
		  int64_t *out)
{
	if (j->failed || n == 0 || j->depth == 0 || j->depth >= JSON_MAX_DEPTH ||
	    j->kind[j->depth - 1] != 'a')
		return false;
	keep_up(j);
	uint8_t *state = &j->state[j->depth - 1];
	const char *e = j->end, *q = run_ws(j->p, e);
	const char *lim = e - j->p > RUN_SLACK ? e - RUN_SLACK : j->p;
	if (*state != ST_OPEN) {
		if (q >= lim || *q != ',')
			return false;
		q = run_ws(q + 1, e);
	}
	if (q >= lim || *q != '[')
		return false;
	for (unsigned k = 0; k < n; k++) {
		q = run_ws(q + 1, e); /* past the '[' or the comma */
		if (q >= lim || !run_cell(q, cell[k], null_value, &out[k], &q))
			return false;
		q = run_ws(q, e);
		if (q >= lim || *q != (k + 1 < n ? ',' : ']'))
			return false;
	}
	j->p = q + 1;
	*state = ST_AFTER;
	return true;
}

int json_skip(struct json *j, const struct json_tok *t)
{
	if (t->kind != JSON_OBJECT && t->kind != JSON_ARRAY)
		return j->failed;
	uint32_t target = j->depth - 1;
	struct json_tok x;
	while (j->depth > target) {
		int rc = json_next(j, &x);
		if (rc)
			return rc;
		if (x.kind == JSON_EOF)
			return 0; /* lenient end */
	}
	return 0;
}

int json_skip_value(struct json *j)
{
	struct json_tok t;
	int rc = json_next(j, &t);
	if (rc)
		return rc;
	return json_skip(j, &t);
}

int json_want(struct json *j, const struct json_tok *t, enum json_kind k, const char *what)
{
	if (t->kind != k && !(k == JSON_TRUE && t->kind == JSON_FALSE)) {
		if (t->kind == JSON_EOF)
			return json_fail(j, t->s, "expected %s, found the end of the input", what);
		return json_fail_at(j, t, "expected %s, found %s", what, json_kind_name(t->kind));
	}
	return 0;
}

int json_expect(struct json *j, struct json_tok *t, enum json_kind k, const char *what)
{
	int rc = json_next(j, t);
	return rc ? rc : json_want(j, t, k, what);
}

/*
 * json_next_member's common case in one step: the next member of an object is a key without
 * escapes and a string without escapes or a number (trace events: 5 or so a 56-byte event).
 * False, nothing moved, for anything else (json_next then reads it, errors included); a
 * malformed number fails as json_next would fail on it, at the same byte.
 */
static inline bool member_fast(struct json *j, struct json_tok *k, struct json_tok *v, int *rc)
{
	if (j->failed || !j->depth || (size_t)(j->p - j->forget_mark) > 2 * JSON_FORGET_LAG)
		return false;
	uint32_t d = j->depth - 1;
	if (j->kind[d] != 'o' || j->state[d] == ST_KEY)
		return false;
	const char *e = j->end, *p = skip_ws_from(j->p, e);
	if (j->state[d] == ST_AFTER) {
		if (p >= e || *p != ',')
			return false;
		p = skip_ws_from(p + 1, e);
	}
	if (p >= e || *p != '"')
		return false;
	const char *ks = p + 1;
	p = plain_end(ks, e);
	if (p >= e || *p != '"')
		return false;
	const char *ke = p;
	p = skip_ws_from(p + 1, e);
	if (p >= e || *p != ':')
		return false;
	p = skip_ws_from(p + 1, e);
	if (p >= e)
		return false;
	v->escaped = false;
	if (*p == '"') {
		const char *vs = p + 1;
		p = plain_end(vs, e);
		if (p >= e || *p != '"')
			return false;
		v->kind = JSON_STRING;
		v->s = vs;
		v->len = (size_t)(p - vs);
		j->p = p + 1;
	} else if (*p == '-' || (*p >= '0' && *p <= '9')) {
		j->p = p;
		*rc = scan_number(j, v);
	} else {
		return false;
	}
	k->kind = JSON_KEY;
	k->s = ks;
	k->len = (size_t)(ke - ks);
	k->escaped = false;
	j->state[d] = ST_AFTER;
	return true;
}

int json_next_member(struct json *j, struct json_tok *k, struct json_tok *v)
{
	int rc = 0;
	if (member_fast(j, k, v, &rc))
		return rc;
	rc = json_next(j, k);
	if (rc || k->kind != JSON_KEY)
		return rc;
	return json_next(j, v); /* after a key the tokenizer reads a value or fails */
}

int json_text(struct json *j, const struct json_tok *t, struct sbuf *out)
{
	sbuf_reset(out);
	if (t->kind == JSON_NUMBER)
		return sbuf_put(out, t->s, t->len) ? json_fail(j, NULL, "out of memory") : 0;
	if (t->kind != JSON_STRING && t->kind != JSON_KEY)
		return 1;
	const char *s;
	size_t n;
	int rc = json_str(j, t, &s, &n);
	if (rc)
		return rc;
	return sbuf_put(out, s, n) ? json_fail(j, NULL, "out of memory") : 0;
}

int json_f64(struct json *j, const struct json_tok *t, double *out)
{
	if (t->kind != JSON_NUMBER)
		return json_fail_at(j, t, "expected a number, found %s", json_kind_name(t->kind));
	char buf[64];
	if (t->len >= sizeof(buf)) {
		/* very long numbers: copy through the heap */
		char *h = pv_malloc(t->len + 1);
		if (!h)
			return json_fail_at(j, t, "out of memory reading a number");
		memcpy(h, t->s, t->len);
		h[t->len] = 0;
		*out = strtod(h, NULL);
		pv_free(h);
		return 0;
	}
	memcpy(buf, t->s, t->len);
	buf[t->len] = 0;
	*out = strtod(buf, NULL);
	return 0;
}

int json_fixed(struct json *j, const struct json_tok *t, int pow10, int64_t *out)
{
	if (t->kind != JSON_NUMBER)
		return json_fail_at(j, t, "expected a number, found %s", json_kind_name(t->kind));
	const char *p = t->s, *e = t->s + t->len;
	bool neg = false;
	if (p < e && *p == '-') {
		neg = true;
		p++;
	}
	/* mantissa digits as an integer; decimal point moves the exponent */
	uint64_t m = 0;
	int exp10 = pow10, digits = 0;
	bool round_up = false, overflow = false;
	for (; p < e && *p >= '0' && *p <= '9'; p++) {
		if (m > (UINT64_MAX - 9) / 10) {
			exp10++;
			overflow = true;
			continue;
		}
		m = m * 10 + (uint64_t)(*p - '0');
		digits++;
	}
	if (p < e && *p == '.') {
		for (p++; p < e && *p >= '0' && *p <= '9'; p++) {
			if (m > (UINT64_MAX - 9) / 10)
				continue;
			m = m * 10 + (uint64_t)(*p - '0');
			exp10--;
		}
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		bool eneg = false;
		if (p < e && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		int ev = 0;
		for (; p < e && *p >= '0' && *p <= '9'; p++)
			if (ev < 100000)
				ev = ev * 10 + (*p - '0');
		exp10 += eneg ? -ev : ev;
	}
	(void)overflow;
	(void)digits;
	while (exp10 < 0 && m) {
		round_up = (m % 10) >= 5;
		m /= 10;
		exp10++;
		if (exp10 < 0)
			round_up = false; /* only the last dropped digit decides */
	}
	if (exp10 < 0)
		m = 0;
	if (round_up)
		m++;
	while (exp10 > 0 && m) {
		if (m > (uint64_t)INT64_MAX / 10)
			return json_fail_at(j, t, "number out of range (expected at most %lld)",
					    (long long)INT64_MAX);
		m *= 10;
		exp10--;
	}
	if (m > (uint64_t)INT64_MAX)
		return json_fail_at(j, t, "number out of range (expected at most %lld)",
				    (long long)INT64_MAX);
	*out = neg ? -(int64_t)m : (int64_t)m;
	return 0;
}

int json_i64(struct json *j, const struct json_tok *t, int64_t *out)
{
	if (t->kind != JSON_NUMBER)
		return json_fail_at(j, t, "expected an integer, found %s", json_kind_name(t->kind));
	const char *p = t->s, *e = t->s + t->len;
	bool neg = p < e && *p == '-';
	if (neg)
		p++;
	uint64_t v = 0;
	const char *q = p;
	for (; q < e && *q >= '0' && *q <= '9'; q++) {
		if (v > (UINT64_MAX - 9) / 10)
			return json_fail_at(j, t, "integer out of range");
		v = v * 10 + (uint64_t)(*q - '0');
	}
	if (q != e) {
		/* 3.0 or 1e3: accept when integral */
		double d;
		json_f64(j, t, &d);
		if (d != floor(d) || fabs(d) > 9.2e18)
			return json_fail_at(j, t, "expected an integer, found %.*s", (int)t->len,
					    t->s);
		*out = (int64_t)d;
		return 0;
	}
	if (v > (uint64_t)INT64_MAX + neg)
		return json_fail_at(j, t, "integer out of range");
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

static size_t put_utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

int json_str(struct json *j, const struct json_tok *t, const char **s, size_t *len)
{
	if (t->kind != JSON_STRING && t->kind != JSON_KEY)
		return json_fail_at(j, t, "expected a string, found %s", json_kind_name(t->kind));
	if (!t->escaped) {
		*s = t->s;
		*len = t->len;
		return 0;
	}
	if (j->scratch_cap < t->len + 1) {
		size_t cap = t->len + 1 < 256 ? 256 : t->len + 1;
		char *n = pv_realloc(j->scratch, cap);
		if (!n)
			return json_fail_at(j, t, "out of memory decoding a string");
		j->scratch = n;
		j->scratch_cap = cap;
	}
	char *o = j->scratch;
	const char *p = t->s, *e = t->s + t->len;
	while (p < e) {
		if (*p != '\\') {
			*o++ = *p++;
			continue;
		}
		char c = p[1];
		p += 2;
		switch (c) {
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u': {
			uint32_t cp =
			    (uint32_t)(text_hex_digit(p[0]) << 12 | text_hex_digit(p[1]) << 8 |
				       text_hex_digit(p[2]) << 4 | text_hex_digit(p[3]));
			p += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && e - p >= 6 && p[0] == '\\' &&
			    p[1] == 'u') {
				uint32_t lo =
				    (uint32_t)(text_hex_digit(p[2]) << 12 |
					       text_hex_digit(p[3]) << 8 |
					       text_hex_digit(p[4]) << 4 | text_hex_digit(p[5]));
				if (lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					p += 6;
				} else {
					cp = 0xfffd;
				}
			} else if (cp >= 0xd800 && cp < 0xe000) {
				cp = 0xfffd;
			}
			/* a \uXXXX escape is 6 bytes and yields at most 4 (a pair: 12 -> 4) */
			o += put_utf8(o, cp);
			break;
		}
		default: *o++ = c; break;
		}
	}
	*s = j->scratch;
	*len = (size_t)(o - j->scratch);
	return 0;
}

static int cap_put(struct json *j, struct sbuf *buf, const char *s, size_t n)
{
	return sbuf_put(buf, s, n) ? json_fail(j, NULL, "out of memory keeping a value") : 0;
}

static int cap_tok(struct json *j, const struct json_tok *t, struct sbuf *buf)
{
	switch (t->kind) {
	case JSON_OBJECT: return cap_put(j, buf, "{", 1);
	case JSON_ARRAY: return cap_put(j, buf, "[", 1);
	case JSON_END: return cap_put(j, buf, t->s, 1);
	case JSON_KEY:
		if (cap_put(j, buf, "\"", 1) || cap_put(j, buf, t->s, t->len))
			return j->failed;
		return cap_put(j, buf, "\":", 2);
	case JSON_STRING:
		if (cap_put(j, buf, "\"", 1) || cap_put(j, buf, t->s, t->len))
			return j->failed;
		return cap_put(j, buf, "\"", 1);
	case JSON_EOF: return 0;
	default: return cap_put(j, buf, t->s, t->len);
	}
}

int json_capture(struct json *j, const struct json_tok *t, struct sbuf *buf)
{
	if (cap_tok(j, t, buf))
		return j->failed;
	if (t->kind != JSON_OBJECT && t->kind != JSON_ARRAY)
		return 0;
	uint32_t target = j->depth - 1;
	struct json_tok x;
	int need_comma = 0;
	while (j->depth > target) {
		int rc = json_next(j, &x);
		if (rc)
			return rc;
		if (x.kind == JSON_EOF)
			return 0;
		if (x.kind == JSON_END) {
			need_comma = 1;
		} else {
			/* a comma before every member but the first of its container */
			char prev = buf->len ? buf->buf[buf->len - 1] : 0;
			if (need_comma && prev != '{' && prev != '[' && prev != ':' &&
			    cap_put(j, buf, ",", 1))
				return j->failed;
			need_comma =
			    x.kind != JSON_KEY && x.kind != JSON_OBJECT && x.kind != JSON_ARRAY;
		}
		if (cap_tok(j, &x, buf))
			return j->failed;
	}
	return 0;
}

/*
 * pprof_legacy_text.c - the text forms of pprof's legacy profiles: heap (heapz v2, growth),
 * Go count profiles, threadz, contention, and Java heap and contention (pprof_legacy.c tells
 * the formats and the model they make).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/text.h"
#include "base/vec.h"
#include "import/importer.h"
#include "import/pprof/pprof_legacy.h"

int lp_heap_header(const char *s, const char *e, struct lp_heap_header *h)
{
	const char *c = memmem(s, (size_t)(e - s), "heap profile:", 13);
	if (!c)
		return 0;
	c += 13;
	for (int i = 0; i < 4; i++) {
		c = text_skip_blanks(c, e);
		if (i == 2) {
			if (c >= e || *c != '[')
				return 0;
			c = text_skip_blanks(c + 1, e);
		}
		h->n[i][0] = c;
		c = lp_digit_run(c, e);
		if (c == h->n[i][0])
			return 0;
		h->n[i][1] = c;
		if (i % 2 == 0) {
			c = text_skip_blanks(c, e);
			if (c >= e || *c != ':')
				return 0;
			c++;
		}
	}
	c = text_skip_blanks(c, e);
	if (c >= e || *c != ']')
		return 0;
	c = text_skip_blanks(c + 1, e);
	if (c >= e || *c != '@')
		return 0;
	c = text_skip_blanks(c + 1, e);
	h->what = c;
	if (text_starts(c, e, "heap")) {
		c += 4;
		while (c < e && (*c == '_' || (*c >= 'a' && *c <= 'z') || text_is_digit(*c)))
			c++;
		h->what_end = c;
		if (c < e && *c == '/')
			c++;
		h->rate = c;
		h->rate_end = lp_digit_run(c, e);
		return 1;
	}
	if (text_starts(c, e, "growthz") || text_starts(c, e, "fragmentationz")) {
		h->what_end = c + (*c == 'g' ? 7 : 14);
		h->rate = h->rate_end = h->what_end;
		return 1;
	}
	return 0;
}

static int span_eq(const char *const a[2], const char *const b[2])
{
	return a[1] - a[0] == b[1] - b[0] && memcmp(a[0], b[0], (size_t)(a[1] - a[0])) == 0;
}

/* pprof's scaleHeapSample: *count and *size divided by the chance of being sampled. */
static int unsample(int64_t *count, int64_t *size, int64_t rate)
{
	if (*count == 0 || *size == 0) {
		*count = *size = 0;
		return 0;
	}
	if (rate <= 1)
		return 0;
	double avg = (double)*size / (double)*count;
	double scale = 1 / (1 - exp(-avg / (double)rate));
	double c = (double)*count * scale, z = (double)*size * scale;
	if (!(c > -9223372036854775808.0 && c < 9223372036854775808.0) ||
	    !(z > -9223372036854775808.0 && z < 9223372036854775808.0))
		return -1;
	*count = (int64_t)c;
	*size = (int64_t)z;
	return 0;
}

/*
 * Appends a sample of val's values and block size whose stack is the addresses after the '@' at
 * `at` ("@([ x0-9a-f]*)" up to e), moved back onto their calls as adjust says. The one way the
 * text profiles add a sample of one line.
 */
static int text_sample(struct lp *t, const struct lsample *val, const char *at, const char *e,
		       enum adjust adjust)
{
	struct lsample *sm = lp_new_sample(t);
	if (!sm)
		return lp_oom(t);
	uint32_t first = sm->first, n = 0;
	*sm = *val;
	sm->first = first;
	sm->n = 0;
	int rc = lp_scan_addrs(t, at + 1, lp_addr_span_end(at + 1, e), adjust, &n);
	if (rc)
		return rc;
	VEC(t->samples, struct lsample)[t->samples.len - 1].n = n;
	return 0;
}

/* A heap sample's block size label: size / count (count not 0), the size field at `at`. */
static int block_size(struct lp *t, struct lsample *val, int64_t count, int64_t size,
		      const char *at)
{
	if (count == -1 && size == INT64_MIN)
		return lp_text_error(t, at, "block size out of range");
	val->bytes = size / count;
	val->has_bytes = 1;
	return 0;
}

/* What lp_parse_heap's header says of its samples. */
struct heap_kind {
	int v2;	       /* sampled: values are unsampled at the rate t->period */
	int has_alloc; /* allocation values before the in-use ones */
};

/* The types, units, period and format version of a heap profile from its header h. */
static int heap_types(struct lp *t, const struct lp_heap_header *h, struct heap_kind *k)
{
	*k = (struct heap_kind){0};
	t->period = 1;
	t->version = "heap";
	if (text_starts(h->what, h->what_end, "heap")) {
		int64_t rate = 0;
		if (h->rate_end > h->rate && lp_parse_dec(h->rate, h->rate_end, &rate))
			return lp_text_error(t, h->rate, "sampling rate '%.*s' is too large",
					     (int)(h->rate_end - h->rate), h->rate);
		if (text_eq(h->what, h->what_end, "heapz_v2") ||
		    text_eq(h->what, h->what_end, "heap_v2")) {
			k->v2 = 1;
			t->period = rate;
		} else if (text_eq(h->what, h->what_end, "heapprofile")) {
			t->period = 1;
		} else if (text_eq(h->what, h->what_end, "heap")) {
			k->v2 = 1;
			t->period = rate / 2;
		} else {
			return lp_text_error(t, h->what, "unknown heap profile kind '%.*s'",
					     (int)(h->what_end - h->what), h->what);
		}
		static const char zs[] = "0";
		const char *const zero[2] = {zs, zs + 1};
		k->has_alloc = (!span_eq(h->n[2], h->n[0]) && !span_eq(h->n[2], zero)) ||
			       (!span_eq(h->n[3], h->n[1]) && !span_eq(h->n[3], zero));
		t->version = k->v2 ? "heap-v2" : "heap";
	} else {
		t->version = *h->what == 'g' ? "growth" : "fragmentation";
	}
	t->period_type = "space";
	t->period_unit = "bytes";
	if (k->has_alloc) {
		t->nvals = 4;
		t->type[0] = "alloc_objects";
		t->type[1] = "alloc_space";
		t->type[2] = "inuse_objects";
		t->type[3] = "inuse_space";
	} else {
		t->nvals = 2;
		t->type[0] = "objects";
		t->type[1] = "space";
	}
	for (unsigned i = 0; i < t->nvals; i++)
		t->unit[i] = i % 2 ? "bytes" : "count";
	t->heap_sampling = k->v2 && t->period > 1;
	t->heap_rate = t->period;
	return 0;
}

/*
 * The four number fields of a heap sample line "(-?\d+): *(-?\d+) *\[ *(\d+): *(\d+) *] @",
 * f[i] the span of each; returns the '@', or NULL when the line is not of that shape.
 */
static const char *heap_fields(const char *s, const char *e, const char *f[4][2])
{
	const char *c = s;
	for (int i = 0; i < 4; i++) {
		if (i == 2) {
			if (c >= e || *c != '[')
				return NULL;
			c = text_skip_blanks(c + 1, e);
		}
		f[i][0] = c;
		if (i < 2 && c < e && *c == '-')
			c++;
		c = lp_digit_run(c, e);
		if (c == f[i][0] || (c == f[i][0] + 1 && *f[i][0] == '-'))
			return NULL;
		f[i][1] = c;
		if (i % 2 == 0) {
			if (c >= e || *c != ':')
				return NULL;
			c++;
		}
		c = text_skip_blanks(c, e);
	}
	if (c >= e || *c != ']')
		return NULL;
	c = text_skip_blanks(c + 1, e);
	return c < e && *c == '@' ? c : NULL;
}

/* One heap sample line [s, e): in-use (and allocation) counts and bytes, then the stack. */
static int heap_sample(struct lp *t, const struct heap_kind *k, const char *s, const char *e)
{
	const char *f[4][2];
	const char *at = heap_fields(s, e, f);
	if (!at)
		return lp_text_error(t, s, "expected a heap sample 'N: B [N: B] @ ADDRESS...'");
	int64_t val[4];
	for (int i = 0; i < 4; i++)
		if (lp_parse_dec(f[i][0], f[i][1], &val[i]))
			return lp_text_error(t, f[i][0], "number '%.*s' is out of the 64-bit range",
					     (int)(f[i][1] - f[i][0] > 40 ? 40 : f[i][1] - f[i][0]),
					     f[i][0]);
	struct lsample sm = {0};
	unsigned n = 0;
	int scaled = 0, rc;
	for (int pass = k->has_alloc ? 0 : 1; pass < 2; pass++) {
		int64_t cnt = val[pass ? 0 : 2], size = val[pass ? 1 : 3];
		if (cnt == 0 && size != 0)
			return lp_text_error(t, f[pass ? 0 : 2][0],
					     "%s count is 0 but its bytes are %lld",
					     pass ? "inuse" : "allocation", (long long)size);
		if (cnt != 0) {
			if ((rc = block_size(t, &sm, cnt, size, f[pass ? 1 : 3][0])))
				return rc;
			if (k->v2) {
				if (unsample(&cnt, &size, t->period))
					return lp_text_error(
					    t, f[pass ? 0 : 2][0],
					    "unsampled value out of the 64-bit range");
				scaled = t->heap_sampling;
			}
		}
		sm.v[n++] = cnt;
		sm.v[n++] = size;
	}
	t->heap_unsampled += scaled;
	return text_sample(t, &sm, at, e, ADJUST_ALL);
}

int lp_parse_heap(struct lp *t)
{
	const char *s, *e;
	lp_first_text_line(&t->p, t->end, &s, &e);
	struct lp_heap_header h;
	if (!lp_heap_header(s, e, &h))
		return lp_text_error(
		    t, s, "not a heap profile header ('heap profile: N: B [N: B] @ heap...')");
	struct heap_kind k;
	int rc = heap_types(t, &h, &k), have = 0;
	if (rc)
		return rc;
	while (lp_next_line(&t->p, t->end, &s, &e)) {
		if (lp_blank_or_comment(s, e))
			continue;
		lp_trim(&s, &e);
		if (lp_map_trigger(s, e)) {
			have = 1;
			break;
		}
		if ((rc = heap_sample(t, &k, s, e)))
			return rc;
	}
	return lp_additional_sections(t, s, e, have);
}

/* ---------------------------------------------------------------- Go count profiles */

int lp_parse_count(struct lp *t)
{
	const char *s, *e;
	lp_first_text_line(&t->p, t->end, &s, &e);
	lp_trim(&s, &e);
	/* "(\S+) profile: total \d+" (the name printable: a NUL would end it in C) */
	const char *w = s;
	while (w < e && (unsigned char)*w > ' ' && *w != 0x7f)
		w++;
	pv_str_ix name = builder_str(t->b, s, (size_t)(w - s));
	if (t->b->status)
		return lp_oom(t);
	t->type[0] = t->period_type = pv_str(t->b->p, name);
	t->unit[0] = t->period_unit = "count";
	t->nvals = 1;
	t->period = 1;
	t->version = t->type[0];
	int have = 0;
	while (lp_next_line(&t->p, t->end, &s, &e)) {
		if (lp_blank_or_comment(s, e))
			continue;
		if (text_starts(s, e, "---")) {
			lp_trim(&s, &e);
			have = 1;
			break;
		}
		/* "(\d+) @(( 0x[0-9a-f]+)+)" */
		const char *c = lp_digit_run(s, e);
		const char *tail = e;
		if (tail > s && tail[-1] == '\r')
			tail--;
		if (c == s || c + 2 > tail || c[0] != ' ' || c[1] != '@')
			return lp_text_error(t, s, "expected 'COUNT @ ADDRESS...'");
		int64_t cnt;
		int r = lp_parse_int0(s, c, &cnt);
		if (r)
			return lp_text_error(t, s,
					     r == -2 ? "count '%.*s' is out of the 64-bit range"
						     : "count '%.*s' is not a number",
					     (int)(c - s > 40 ? 40 : c - s), s);
		c += 2;
		const char *q = c;
		while (q < tail) {
			if (q + 3 > tail || q[0] != ' ' || q[1] != '0' || q[2] != 'x')
				return lp_text_error(t, q, "expected ' 0xADDRESS'");
			const char *h0 = q + 3, *h1 = h0;
			while (h1 < tail && (text_is_digit(*h1) || (*h1 >= 'a' && *h1 <= 'f')))
				h1++;
			if (h1 == h0)
				return lp_text_error(t, q, "expected ' 0xADDRESS'");
			q = h1;
		}
		if (c == tail)
			return lp_text_error(t, c, "expected ' 0xADDRESS'");
		/* the addresses checked above are all of the span after '@' */
		if ((r = text_sample(t, &(struct lsample){.v = {cnt}}, c - 1, tail, ADJUST_ALL)))
			return r;
	}
	return lp_additional_sections(t, s, e, have);
}

/* ---------------------------------------------------------------- threadz */

/* "--- Thread HEX (name: NAME/TID) stack: ---" */
int lp_thread_start(const char *s, const char *e)
{
	const char *c = memmem(s, (size_t)(e - s), "--- Thread ", 11);
	if (!c)
		return 0;
	c += 11;
	const char *h = lp_hex_run(c, e);
	if (h == c || !text_starts(h, e, " (name: "))
		return 0;
	return memmem(h, (size_t)(e - h), ") stack: ---", 12) != NULL;
}

int lp_parse_thread(struct lp *t)
{
	const char *s, *e;
	int have = 0;
	have = lp_first_text_line(&t->p, t->end, &s, &e);
	t->nvals = 1;
	t->type[0] = t->period_type = "thread";
	t->unit[0] = t->period_unit = "count";
	t->period = 1;
	t->version = "threadz";
	if (have && text_starts(s, e, "--- threadz ")) {
		/* comments up to the first stack */
		while ((have = lp_next_line(&t->p, t->end, &s, &e))) {
			if (lp_map_trigger(s, e) || (s < e && *s == '-'))
				break;
			if (!lp_blank_or_comment(s, e))
				t->skipped_lines++;
		}
	}
	while (have && !lp_map_trigger(s, e)) {
		if (text_starts(s, e, "---- no stack trace for")) {
			have = 0;
			break;
		}
		if (!lp_thread_start(s, e))
			return lp_text_error(
			    t, s, "expected '--- Thread ID (name: NAME/TID) stack: ---'");
		t->threads++;
		/* the stack: every address of every line up to the next "---" line */
		struct lsample *sm = lp_new_sample(t);
		if (!sm)
			return lp_oom(t);
		uint32_t first = t->stk.len, n = 0;
		int same = 0;
		have = 0;
		while (lp_next_line(&t->p, t->end, &s, &e)) {
			lp_trim(&s, &e);
			if (s == e)
				continue;
			if (text_starts(s, e, "---")) {
				have = 1;
				break;
			}
			if (memmem(s, (size_t)(e - s), "same as previous thread", 23)) {
				same = 1;
				continue;
			}
			int rc = lp_scan_addrs(t, s, e, ADJUST_CALLERS, &n);
			if (rc)
				return rc;
		}
		if (same || n == 0) {
			/* the previous thread's stack once more (pprof's counter bump) */
			t->samples.len--;
			t->stk.len = first;
			if (t->samples.len)
				VEC(t->samples, struct lsample)[t->samples.len - 1].v[0]++;
			t->same_as_prev++;
			continue;
		}
		sm = &VEC(t->samples, struct lsample)[t->samples.len - 1];
		sm->v[0] = 1;
		sm->n = n;
	}
	lp_drop_dup_leaves(t);
	return lp_additional_sections(t, s, e, have);
}

/* ---------------------------------------------------------------- contention */

static void report_attr(struct lp *t, const char *k0, const char *k1, const char *v0,
			const char *v1)
{
	builder_lossy(t->b, 1, "header attribute '%.*s = %.*s' not kept", (int)(k1 - k0), k0,
		      (int)(v1 - v0), v0);
}

/* One "key = value" attribute of a contention header; *hz takes cycles/second. */
static int contention_attr(struct lp *t, const char *k0, const char *k1, const char *v0,
			   const char *v1, int64_t *hz)
{
	int64_t v = 0;
	int r = lp_parse_int0(v0, v1, &v);
	int known = text_eq(k0, k1, "cycles/second") || text_eq(k0, k1, "sampling period") ||
		    text_eq(k0, k1, "ms since reset");
	if (known && r)
		return lp_text_error(t, v0, "attribute '%.*s': '%.*s' is %s", (int)(k1 - k0), k0,
				     (int)(v1 - v0 > 40 ? 40 : v1 - v0), v0,
				     r == -2 ? "out of the 64-bit range" : "not a number");
	if (text_eq(k0, k1, "cycles/second")) {
		*hz = v;
	} else if (text_eq(k0, k1, "sampling period")) {
		t->period = v;
	} else if (text_eq(k0, k1, "ms since reset")) {
		if (v > INT64_MAX / 1000000 || v < INT64_MIN / 1000000)
			return lp_text_error(t, v0, "'ms since reset' is out of range");
		t->duration_ns = v * 1000000;
	} else if (text_eq(k0, k1, "discarded samples")) {
		if (!r && v)
			t->discarded = (uint64_t)v;
	} else {
		report_attr(t, k0, k1, v0, v1);
	}
	return 0;
}

/* One contention sample line "DELAY COUNT @ ADDRESS...", scaled to ns and by the period. */
static int contention_sample(struct lp *t, int64_t hz, const char *s, const char *e)
{
	const char *a0 = s, *a1 = lp_digit_run(s, e);
	const char *b0 = text_skip_blanks(a1, e), *b1 = lp_digit_run(b0, e);
	const char *at = text_skip_blanks(b1, e);
	if (a1 == a0 || b1 == b0 || at >= e || *at != '@')
		return lp_text_error(t, s,
				     "expected a contention sample 'DELAY COUNT @ ADDRESS...'");
	int64_t v1, v2;
	if (lp_parse_dec(a0, a1, &v1))
		return lp_text_error(t, a0, "delay '%.*s' is out of the 64-bit range",
				     (int)(a1 - a0 > 40 ? 40 : a1 - a0), a0);
	if (lp_parse_dec(b0, b1, &v2))
		return lp_text_error(t, b0, "count '%.*s' is out of the 64-bit range",
				     (int)(b1 - b0 > 40 ? 40 : b1 - b0), b0);
	if (t->period > 0) {
		if (hz > 0) {
			double ghz = (double)hz / 1e9;
			double x = (double)v1 * (double)t->period / ghz;
			if (!(x < 9223372036854775808.0))
				return lp_text_error(t, a0, "delay in ns out of the 64-bit range");
			v1 = (int64_t)x;
		}
		if (v2 > INT64_MAX / t->period)
			return lp_text_error(t, b0,
					     "count times the sampling period is out "
					     "of the 64-bit range");
		v2 *= t->period;
	}
	return text_sample(t, &(struct lsample){.v = {v2, v1}}, at, e, ADJUST_ALL);
}

int lp_parse_contention(struct lp *t)
{
	const char *s, *e;
	lp_first_text_line(&t->p, t->end, &s, &e);
	t->nvals = 2;
	t->type[0] = "contentions";
	t->unit[0] = "count";
	t->type[1] = "delay";
	t->unit[1] = "nanoseconds";
	t->period_type = "contentions";
	t->period_unit = "count";
	t->period = 1;
	t->version = "contention";
	int64_t hz = 0;
	int have = 0, rc;
	/* the header's "key = value" attributes */
	while ((have = lp_next_line(&t->p, t->end, &s, &e))) {
		lp_trim(&s, &e);
		if (s == e || *s == '#')
			continue;
		if (text_starts(s, e, "---"))
			break;
		const char *q = memchr(s, '=', (size_t)(e - s));
		if (!q)
			break;
		const char *k0 = s, *k1 = q, *v0 = q + 1, *v1 = e;
		lp_trim(&k0, &k1);
		lp_trim(&v0, &v1);
		if ((rc = contention_attr(t, k0, k1, v0, v1, &hz)))
			return rc;
	}
	/* samples: "DELAY COUNT @ ADDRESS..." */
	while (have) {
		lp_trim(&s, &e);
		if (text_starts(s, e, "---"))
			break;
		if (s < e && *s != '#' && (rc = contention_sample(t, hz, s, e)))
			return rc;
		have = lp_next_line(&t->p, t->end, &s, &e);
	}
	return lp_additional_sections(t, s, e, have);
}

/* ---------------------------------------------------------------- Java heap and contention */

static int is_word(char c)
{
	return text_is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static void java_unit(struct lp *t, unsigned i, const char *v0, const char *v1)
{
	pv_str_ix u = builder_str(t->b, v0, (size_t)(v1 - v0));
	t->unit[i] = pv_str(t->b->p, u);
}

/* The value types of a Java heap or contention profile (the second one's unit apart). */
static void java_types(struct lp *t, int heap)
{
	t->type[0] = heap ? "inuse_objects" : "contentions";
	t->unit[0] = "count";
	t->type[1] = heap ? "inuse_space" : "delay";
}

/*
 * A Java header attribute "([\w ]+)=([\w ]+)" in [s, e): the key's and value's words around
 * the '=', trimmed. Returns 0 when the line is not one.
 */
static int java_attr_span(const char *s, const char *e, const char *k[2], const char *v[2])
{
	const char *q = memchr(s, '=', (size_t)(e - s));
	if (!q || q == s || !(is_word(q[-1]) || q[-1] == ' ') || q + 1 >= e ||
	    !(is_word(q[1]) || q[1] == ' '))
		return 0;
	/* the attribute's words: back from '=' and on from it */
	const char *k0 = q, *k1 = q, *v0 = q + 1, *v1 = q + 1;
	while (k0 > s && (is_word(k0[-1]) || k0[-1] == ' '))
		k0--;
	while (v1 < e && (is_word(*v1) || *v1 == ' '))
		v1++;
	lp_trim(&k0, &k1);
	lp_trim(&v0, &v1);
	k[0] = k0, k[1] = k1, v[0] = v0, v[1] = v1;
	return 1;
}

/* One Java header attribute; *have_types is set by "resolution" (the unit of the values). */
static int java_attr(struct lp *t, int heap, const char *const k[2], const char *const v[2],
		     int *have_types)
{
	const char *k0 = k[0], *k1 = k[1], *v0 = v[0], *v1 = v[1];
	if (text_eq(k0, k1, "format")) {
		if (!text_eq(v0, v1, "java"))
			return lp_text_error(t, v0, "format '%.*s' is not java", (int)(v1 - v0),
					     v0);
	} else if (text_eq(k0, k1, "resolution")) {
		java_types(t, heap);
		java_unit(t, 1, v0, v1);
		*have_types = 1;
	} else if (!heap && text_eq(k0, k1, "sampling period")) {
		t->period_type = "contentions";
		t->period_unit = "count";
		int r = lp_parse_int0(v0, v1, &t->period);
		if (r)
			return lp_text_error(t, v0, "sampling period '%.*s' is %s", (int)(v1 - v0),
					     v0,
					     r == -2 ? "out of the 64-bit range" : "not a number");
	} else if (!heap && text_eq(k0, k1, "ms since reset")) {
		int64_t x;
		int r = lp_parse_int0(v0, v1, &x);
		if (r || x > INT64_MAX / 1000000 || x < INT64_MIN / 1000000)
			return lp_text_error(t, v0, "'ms since reset' is not a number in range");
		t->duration_ns = x * 1000000;
	} else {
		report_attr(t, k0, k1, v0, v1);
	}
	return 0;
}

/*
 * One Java sample line " *(\d+) +(\d+) +@ +([ x0-9a-f]*)" (size, count, stack), unsampled
 * (heap) or scaled by the sampling period (contention). *not_one is set when the line is not
 * of that shape (the samples end there).
 */
static int java_sample(struct lp *t, int heap, const char *s, const char *e, int *not_one)
{
	const char *a0 = s, *a1 = lp_digit_run(s, e), *b0 = text_skip_blanks(a1, e);
	const char *b1 = lp_digit_run(b0, e), *at = text_skip_blanks(b1, e);
	if (a1 == a0 || b0 == a1 || b1 == b0 || at == b1 || at >= e || *at != '@' || at + 1 >= e ||
	    at[1] != ' ') {
		*not_one = 1;
		return 0;
	}
	int64_t size, count;
	int r1 = lp_parse_int0(a0, a1, &size), r2 = lp_parse_int0(b0, b1, &count), rc;
	if (r1 || r2)
		return lp_text_error(t, r1 ? a0 : b0, "sample value is %s",
				     (r1 ? r1 : r2) == -2 ? "out of the 64-bit range"
							  : "not a number");
	struct lsample sm = {0};
	if (heap) {
		if (count == 0)
			return lp_text_error(t, b0,
					     "the object count of a heap sample must not be 0");
		if ((rc = block_size(t, &sm, count, size, a0)))
			return rc;
		if (unsample(&count, &size, 524288))
			return lp_text_error(t, a0, "unsampled value out of the 64-bit range");
		t->heap_unsampled++;
	} else if (t->period) {
		if (__builtin_mul_overflow(count, t->period, &count) ||
		    __builtin_mul_overflow(size, t->period, &size))
			return lp_text_error(
			    t, a0, "value times the sampling period is out of the 64-bit range");
	}
	sm.v[0] = count;
	sm.v[1] = size;
	return text_sample(t, &sm, at, e, ADJUST_NONE);
}

int lp_parse_java(struct lp *t, int heap)
{
	const char *s, *e;
	lp_first_text_line(&t->p, t->end, &s, &e);
	t->fam = heap ? FAM_JAVA_HEAP : FAM_JAVA_CONTENTION;
	t->version = heap ? "java-heap" : "java-contention";
	t->nvals = 2;
	t->period_type = "";
	t->period_unit = "";
	t->period = 0;
	int have_types = 0, rc;
	/* attributes up to the first line that is not one */
	const char *line_start = t->p, *k[2], *v[2];
	while (lp_next_line(&t->p, t->end, &s, &e)) {
		lp_trim(&s, &e);
		if (s == e) {
			line_start = t->p;
			continue;
		}
		if (!java_attr_span(s, e, k, v)) {
			t->p = line_start;
			break;
		}
		if ((rc = java_attr(t, heap, k, v, &have_types)))
			return rc;
		line_start = t->p;
	}
	if (!have_types) {
		builder_lossy(t->b, 1, "no 'resolution' attribute (read as %s)",
			      heap ? "bytes" : "microseconds");
		java_types(t, heap);
		t->unit[1] = heap ? "bytes" : "microseconds";
	}
	/* samples up to the first line that is not one */
	line_start = t->p;
	while (lp_next_line(&t->p, t->end, &s, &e)) {
		lp_trim(&s, &e);
		if (s == e) {
			line_start = t->p;
			continue;
		}
		int not_one = 0;
		if ((rc = java_sample(t, heap, s, e, &not_one)))
			return rc;
		if (not_one) {
			t->p = line_start;
			break;
		}
		line_start = t->p;
	}
	if (heap) {
		t->heap_sampling = 1;
		t->heap_rate = 524288;
	}
	return lp_parse_java_symbols(t, t->p, t->end);
}

/* The base name of a path as Go's filepath.Base gives it ("" is ".", "//" is "/"). */
static void base_name(const char **s, const char **e)
{
	static const char dot[] = ".", slash[] = "/";
	if (*s == *e) {
		*s = dot;
		*e = dot + 1;
		return;
	}
	while (*e > *s && (*e)[-1] == '/')
		(*e)--;
	if (*s == *e) {
		*s = slash;
		*e = slash + 1;
		return;
	}
	const char *c = *e;
	while (c > *s && c[-1] != '/')
		c--;
	*s = c;
}

/* pprof's parseJavaLocations: "0xADDR function (File.java:LINE)" lines name the locations. */
int lp_parse_java_symbols(struct lp *t, const char *p, const char *end)
{
	struct u64map fn_file = {0}; /* function name -> its file (the first seen) + 1 */
	const char *s, *e;
	int rc = 0;
	while (lp_next_line(&p, end, &s, &e)) {
		lp_trim(&s, &e);
		if (!text_starts(s, e, "0x"))
			continue;
		const char *h0 = s + 2, *h1 = lp_hex_run(h0, e);
		if (h1 == h0 || h1 >= e || !lp_ws(*h1))
			continue;
		const char *r0 = h1;
		while (r0 < e && lp_ws(*r0))
			r0++;
		uint64_t a;
		if (lp_parse_hex(h0, h1, &a)) {
			rc = lp_text_error(t, s, "address '%.*s' is longer than 64 bits",
					   (int)(h1 - s > 40 ? 40 : h1 - s), s);
			break;
		}
		uint32_t li = u64map_get(&t->addr_map, a);
		if (li == UINT32_MAX)
			continue;
		const char *f0 = r0, *f1 = r0, *n0 = r0, *n1 = e;
		int64_t line = 0;
		int matched = 0;
		if (e > r0 && e[-1] == ')') {
			/* "^(.*)\s+\((.+):(-?\d+)\)$", then "^(.*)\s+\((.*)\)$" */
			const char *colon = NULL;
			for (const char *c = e - 1; c > r0; c--)
				if (*c == ':') {
					colon = c;
					break;
				}
			if (colon) {
				const char *d0 = colon + 1, *d1 = e - 1;
				const char *dd = d0 < d1 && *d0 == '-' ? d0 + 1 : d0;
				if (dd < d1 && lp_digit_run(dd, d1) == d1) {
					for (const char *c = colon - 2; c > r0; c--)
						if (*c == '(' && lp_ws(c[-1])) {
							n1 = c - 1;
							f0 = c + 1;
							f1 = colon;
							int64_t v;
							if (lp_parse_dec(d0, d1, &v) == 0 && v > 0)
								line = v;
							matched = 1;
							break;
						}
				}
			}
			if (!matched) {
				for (const char *c = e - 2; c > r0; c--)
					if (*c == '(' && lp_ws(c[-1])) {
						n1 = c - 1;
						f0 = c + 1;
						f1 = e - 1;
						base_name(&f0, &f1);
						matched = 1;
						break;
					}
			}
		}
		if (!matched) {
			f0 = f1 = r0;
			if (memmem(r0, (size_t)(e - r0), "generated stub/JIT", 18)) {
				n0 = "STUB";
				n1 = n0 + 4;
			}
		}
		pv_str_ix name = builder_str(t->b, n0, (size_t)(n1 - n0));
		pv_str_ix file = builder_str(t->b, f0, (size_t)(f1 - f0));
		if (t->b->status) {
			rc = lp_oom(t);
			break;
		}
		uint32_t known = u64map_get(&fn_file, name);
		if (known == UINT32_MAX) {
			if (u64map_put(&fn_file, name, file)) {
				rc = lp_oom(t);
				break;
			}
		} else {
			file = known;
		}
		if (line > UINT32_MAX) {
			t->line_range++;
			line = 0;
		}
		struct lloc *l = &VEC(t->locs, struct lloc)[li];
		l->name = name;
		l->file = file;
		l->line = (uint32_t)line;
	}
	u64map_release(&fn_file);
	return rc;
}

/*
 * firefox_processed_common.c - what the parts of the Firefox processed importer share
 * (firefox_processed.h): errors, the growth of columns (in the builder's sample columns or on
 * their own), index columns' checks, and the small readers of keys and values. It calls no other
 * file of the importer.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "base/alloc.h"
#include "base/sbuf.h"
#include "base/vec.h"
#include "import/firefox/firefox.h"
#include "import/firefox/firefox_processed.h"
#include "import/importer.h"
#include "import/json.h"

/* ---- errors and small helpers ---- */

int fxp_oom(struct fxp *x)
{
	return pv_error_set(x->err, PV_ENOMEM, "%s: out of memory", x->in->name);
}

int fxp_bad_kind(struct fxp *x, const struct json_tok *t, const char *what, const char *name)
{
	return json_fail_at(&x->j, t, "expected %s for %s, found %s", what, name,
			    json_kind_name(t->kind));
}

int fxp_grow(struct fxp *x, void **v, size_t elt, uint32_t *cap, uint32_t len)
{
	uint32_t nc = grow_cap(*cap, (uint64_t)len + 1);
	if (!nc)
		return pv_error_set(x->err, PV_ELIMIT, "%s: more than %u rows in one column",
				    x->in->name, PV_MAX_ROWS);
	if (col_realloc(v, elt, nc))
		return fxp_oom(x);
	*cap = nc;
	return 0;
}

/* Empties a column; one in the builder stays there. */
void fxp_ucol_free(struct ucol *c)
{
	bool in_builder = c->in_builder;
	uint32_t base = c->base;
	if (!in_builder)
		pv_free(c->v);
	memset(c, 0, sizeof(*c));
	c->in_builder = in_builder;
	c->base = base;
}

void fxp_lcol_free(struct lcol *c)
{
	bool in_builder = c->in_builder;
	uint32_t base = c->base;
	if (!in_builder)
		pv_free(c->v);
	memset(c, 0, sizeof(*c));
	c->in_builder = in_builder;
	c->base = base;
}

/*
 * Room for one more row at least: the stated length (a table's "length") when it is more, else
 * twice the rows. A column in the builder grows the builder's sample columns.
 */
static int col_room(struct fxp *x, void **v, size_t elt, uint32_t *cap, uint32_t len,
		    bool in_builder, uint32_t base, int64_t stated)
{
	uint64_t need = (uint64_t)base + len + 1;
	bool exact = stated > (int64_t)len;
	if (exact)
		need = (uint64_t)base + (uint64_t)stated;
	if (need > PV_MAX_ROWS)
		return pv_error_set(x->err, PV_ELIMIT, "%s: more than %u rows in one column",
				    x->in->name, PV_MAX_ROWS);
	if (!in_builder) {
		uint32_t nc = exact ? (uint32_t)need : grow_cap(*cap, need);
		if (col_realloc(v, elt, nc))
			return fxp_oom(x);
		*cap = nc;
		return 0;
	}
	struct pv_samples *t = &x->b->p->samples;
	if (!x->samples_room) {
		/*
		 * The first growth: room for as many samples as the rest of the input could hold
		 * (each has at least "0," in its stack column and in its time column), so the
		 * columns never move again; the pages never written cost nothing.
		 */
		x->samples_room = true;
		size_t left = (size_t)(x->in->data + x->in->len - x->j.p);
		builder_samples_room(x->b, need + left / 4);
	}
	if (builder_samples_reserve(x->b, need, exact))
		return x->b->status == PV_ENOMEM ? fxp_oom(x) : x->b->status;
	*v = elt == sizeof(*t->stack) ? (void *)(t->stack + base) : (void *)(t->time_ns + base);
	*cap = t->cap - base;
	return 0;
}

int fxp_ucol_room(struct fxp *x, struct ucol *c, int64_t stated)
{
	return col_room(x, (void **)&c->v, sizeof(*c->v), &c->cap, c->len, c->in_builder, c->base,
			stated);
}

int fxp_lcol_room(struct fxp *x, struct lcol *c, int64_t stated)
{
	return col_room(x, (void **)&c->v, sizeof(*c->v), &c->cap, c->len, c->in_builder, c->base,
			stated);
}

/* Where a thread's sample columns are now (any reserve may have moved the builder's). */
void fxp_tail_sync(struct fxp *x, struct thread *th)
{
	struct pv_samples *t = &x->b->p->samples;
	if (th->s_stack.cap) {
		th->s_stack.v = t->stack + th->s_base;
		th->s_stack.cap = t->cap - th->s_base;
	}
	if (th->s_time.cap) {
		th->s_time.v = t->time_ns + th->s_base;
		th->s_time.cap = t->cap - th->s_base;
	}
}

/* The maximum and first null of rows [from, from + n), read in bulk. */
void fxp_ucol_track(struct ucol *c, uint32_t from, uint32_t n)
{
	const uint32_t *v = c->v + from;
	/*
	 * Two maxima, with no branch per row (SSE2, or a scalar loop): of the rows (PV_NONE
	 * is the largest: a null is there when that is PV_NONE) and of the rows plus one (a null
	 * wraps to 0, any other row is at least 1).
	 */
	uint32_t hi = 0, m1 = 0, k = 0;
#ifdef __SSE2__
	/* four rows a step: unsigned order is signed order with the top bit flipped */
	const __m128i top = _mm_set1_epi32(INT32_MIN), one = _mm_set1_epi32(1);
	__m128i vh = top, vm = top;
	for (; k + 4 <= n; k += 4) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(v + k));
		__m128i x = _mm_xor_si128(a, top);
		__m128i x1 = _mm_xor_si128(_mm_add_epi32(a, one), top);
		__m128i g = _mm_cmpgt_epi32(x, vh), g1 = _mm_cmpgt_epi32(x1, vm);
		vh = _mm_or_si128(_mm_and_si128(g, x), _mm_andnot_si128(g, vh));
		vm = _mm_or_si128(_mm_and_si128(g1, x1), _mm_andnot_si128(g1, vm));
	}
	uint32_t lh[4], lm[4];
	_mm_storeu_si128((__m128i *)(void *)lh, _mm_xor_si128(vh, top));
	_mm_storeu_si128((__m128i *)(void *)lm, _mm_xor_si128(vm, top));
	for (int i = 0; i < 4; i++) {
		hi = lh[i] > hi ? lh[i] : hi;
		m1 = lm[i] > m1 ? lm[i] : m1;
	}
#endif
	for (; k < n; k++) {
		uint32_t a = v[k], a1 = a + 1;
		hi = a > hi ? a : hi;
		m1 = a1 > m1 ? a1 : m1;
	}
	bool nul = hi == PV_NONE, any = m1 != 0;
	uint32_t m = any ? m1 - 1 : 0;
	if (any && (!c->max_pos || m > c->max)) {
		k = 0;
		while (v[k] != m)
			k++;
		c->max = m;
		c->max_pos = from + k + 1;
	}
	if (nul && !c->null_pos) {
		k = 0;
		while (v[k] != PV_NONE)
			k++;
		c->null_pos = from + k + 1;
	}
}

/*
 * The token of row `row` of the array whose '[' is at `at`, read again for a message: columns
 * keep rows, not positions. A column read whole parsed once already, so this cannot fail.
 */
struct json_tok fxp_row_tok(struct fxp *x, const char *at, uint32_t row)
{
	struct json sj;
	struct pv_error e;
	struct json_tok t = {.kind = JSON_NUMBER, .s = at, .len = 0};
	json_init(&sj, x->in, &e);
	sj.p = sj.forget_mark = at;
	if (!json_next(&sj, &t) && t.kind == JSON_ARRAY) {
		for (uint32_t i = 0; i <= row; i++)
			if (json_next(&sj, &t) || t.kind == JSON_END)
				break;
	}
	json_release(&sj);
	return t;
}

/* Reads tokens until the tokenizer is back at depth d (the rest of a container). */
static int skip_to(struct fxp *x, uint32_t d)
{
	struct json_tok t;
	while (json_depth(&x->j) > d) {
		int rc = json_next(&x->j, &t);
		if (rc)
			return rc;
	}
	return 0;
}

static bool carries(const struct json_tok *t)
{
	switch (t->kind) {
	case JSON_NULL:
	case JSON_FALSE: return false;
	case JSON_STRING: return t->len != 0;
	case JSON_NUMBER:
		return !(t->len == 1 && t->s[0] == '0') &&
		       !(t->len == 2 && t->s[0] == '-' && t->s[1] == '1');
	default: return true;
	}
}

/*
 * Skips the value that starts with t and counts what it carries: for a container, its
 * elements (or members) that are not null, false, 0, -1, "" or empty; for a scalar, 1 or 0.
 */
int fxp_count_value(struct fxp *x, const struct json_tok *t, uint64_t *n)
{
	*n = 0;
	if (t->kind != JSON_ARRAY && t->kind != JSON_OBJECT) {
		*n = carries(t);
		return 0;
	}
	uint32_t d = json_depth(&x->j);
	int64_t rows = -1;
	bool length_key = false;
	for (;;) {
		struct json_tok e;
		int rc = json_next(&x->j, &e);
		if (rc)
			return rc;
		if (e.kind == JSON_END) {
			/* a column table (nativeSymbols, jsAllocations, ...) counts its rows */
			if (rows >= 0)
				*n = (uint64_t)rows;
			return 0;
		}
		if (e.kind == JSON_KEY) {
			length_key = json_is(&e, "length");
			continue;
		}
		if (length_key && e.kind == JSON_NUMBER && small_int(&e, &rows) && rows < 0)
			rows = -1;
		length_key = false;
		if (e.kind != JSON_OBJECT && e.kind != JSON_ARRAY) {
			*n += carries(&e);
			continue;
		}
		struct json_tok f;
		if ((rc = json_next(&x->j, &f)))
			return rc;
		if (f.kind != JSON_END) {
			(*n)++;
			if ((rc = skip_to(x, d)))
				return rc;
		}
	}
}

/* Skips a value the model has no place for and reports it when it carried something. */
int fxp_not_kept(struct fxp *x, const char *where, const struct json_tok *key)
{
	struct json_tok v;
	uint64_t n;
	int rc = json_next(&x->j, &v);
	if (!rc)
		rc = fxp_count_value(x, &v, &n);
	if (!rc && n) {
		int kl = key->len > 60 ? 60 : (int)key->len;
		builder_lossy(x->b, n, "%s%.*s not kept", where, kl, key->s);
	}
	return rc;
}

/* Reads the next value, which must be an object (t is its '{'). */
/* The next value, which must be an object / an array: "expected an object for NAME, ...". */
static int expect_kind(struct fxp *x, struct json_tok *t, enum json_kind k, const char *name)
{
	char what[160];
	snprintf(what, sizeof(what), "%s for %s", k == JSON_OBJECT ? "an object" : "an array",
		 name);
	return json_expect(&x->j, t, k, what);
}

int fxp_expect_object(struct fxp *x, struct json_tok *t, const char *name)
{
	return expect_kind(x, t, JSON_OBJECT, name);
}

int fxp_expect_array(struct fxp *x, struct json_tok *t, const char *name)
{
	return expect_kind(x, t, JSON_ARRAY, name);
}

/* A table's "length": -1 when null (tolerated), an error when not a count. */
int fxp_read_length(struct fxp *x, const char *name, int64_t *out)
{
	struct json_tok t;
	int rc = json_next(&x->j, &t);
	if (rc)
		return rc;
	if (t.kind == JSON_NULL) {
		*out = -1;
		return 0;
	}
	if (t.kind != JSON_NUMBER)
		return fxp_bad_kind(x, &t, "a row count", name);
	if ((rc = json_i64(&x->j, &t, out)))
		return rc;
	if (*out < 0 || *out > PV_MAX_ROWS)
		return json_fail_at(&x->j, &t, "expected a row count for %s, found %.*s", name,
				    (int)t.len, t.s);
	return 0;
}

/* A string value (or null -> 0) interned. */
int fxp_read_str(struct fxp *x, const char *name, pv_str_ix *out)
{
	struct json_tok t;
	const char *s;
	size_t n;
	int rc = json_next(&x->j, &t);
	if (rc)
		return rc;
	if (t.kind == JSON_NULL) {
		*out = 0;
		return 0;
	}
	if (t.kind != JSON_STRING)
		return fxp_bad_kind(x, &t, "a string", name);
	if ((rc = json_str(&x->j, &t, &s, &n)))
		return rc;
	*out = builder_str(x->b, s, n);
	return 0;
}

/* threads[].processType: a string names the thread's process kind; anything else is skipped. */

/* Positioned error when an index column points past its table. */
int fxp_check_ix(struct fxp *x, const struct ucol *c, uint32_t n, const char *table,
		 const char *name)
{
	if (!c->max_pos || c->max < n)
		return 0;
	struct json_tok t = fxp_row_tok(x, c->at, c->max_pos - 1);
	return json_fail(&x->j, t.s, "expected %s index below %u for %s, found %u", table, n, name,
			 c->max);
}

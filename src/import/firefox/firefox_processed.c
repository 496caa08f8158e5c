/*
 * firefox_processed.c - the Firefox Profiler's own format, the "processed profile", versions 24
 * to 70: what profiler.firefox.com uploads and saves, and what samply writes.
 *
 * The file is one JSON object of column tables (upstream: src/types/profile.ts). It is read in
 * one pass with the pull tokenizer and no DOM: JSON key order is not fixed (threads may come
 * before shared, frameTable before stringArray, meta last), so every column lands first in a
 * temporary array, 32-bit for indices and 64-bit only for times, weights and addresses. The
 * model is then built through the builder: libs and resources become modules, then funcs,
 * frames and stacks in index order, then per thread its samples and raw markers. When meta,
 * libs and shared come before the threads (as the front-end and samply write them), each
 * thread is built as soon as its object ends, so only one thread's columns are ever held;
 * otherwise every thread waits for the end of the file. Either way a table's temporary
 * columns are freed as soon as its rows are interned, and the result is the same.
 *
 * Versions differ in where tables live and how columns are named; the reader goes by the keys
 * it finds, not by the version number:
 *   - shared.{stackTable,frameTable,funcTable,resourceTable} (v60+) or the same per thread;
 *   - shared.stringArray (v56+) or a per-thread stringArray (older: stringTable);
 *   - stackTable.prefix (null = root, v65 and older) or prefixOffset (0 = root, k > 0 = the
 *     stack k rows before, v66+);
 *   - funcTable.source (into shared.sources, v58+) or fileName (a string index);
 *   - resourceTable.lib (v69 and older) or frameTable.lib (v70);
 *   - samples.time or samples.timeDeltas (summed from 0).
 * Stack tables of v52 and older also have category and subcategory columns; the model derives
 * a stack's category from its frames (as the front-end does since v53), so those columns are
 * only compared with that and the stacks that disagree are reported.
 *
 * Marker payloads are kept as compact JSON text, except that a cause object becomes the cause
 * columns and that fields whose schema format is unique-string, flow-id or terminating-flow-id
 * (and CompositorScreenshot's url) get the string their index names; meta.markerSchema is kept
 * whole as the model's meta.marker_schema.
 *
 * Times are milliseconds since meta.startTime and become nanoseconds exactly (decimal fixed
 * point, no floating point). Whatever the model has no place for is reported once as a lossy
 * step, counted in values that carried something (not null, 0, -1, false, "" or empty).
 *
 * This file reads meta, libs, shared, the marker schemas and the threads, and holds the
 * importer; firefox_processed_columns.c reads the column tables, firefox_processed_build.c
 * builds the model from them (firefox_processed.h).
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
static int count_value(struct fxp *x, const struct json_tok *t, uint64_t *n)
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
		rc = count_value(x, &v, &n);
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

static int read_int(struct fxp *x, const char *name, int64_t *out)
{
	struct json_tok t;
	int rc = json_next(&x->j, &t);
	if (rc)
		return rc;
	if (t.kind != JSON_NUMBER)
		return fxp_bad_kind(x, &t, "an integer", name);
	return json_i64(&x->j, &t, out);
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
static int read_process_type(struct fxp *x, pv_str_ix *out)
{
	struct json_tok t;
	const char *s;
	size_t n;
	int rc = json_next(&x->j, &t);
	if (rc || t.kind != JSON_STRING)
		return rc ? rc : json_skip(&x->j, &t);
	if ((rc = json_str(&x->j, &t, &s, &n)))
		return rc;
	*out = builder_str(x->b, s, n);
	return 0;
}

/* A time in ms (or null) as ns. */
static int read_ms(struct fxp *x, const char *name, int64_t *out)
{
	struct json_tok t;
	int rc = json_next(&x->j, &t);
	if (rc)
		return rc;
	if (t.kind == JSON_NULL) {
		*out = PV_TIME_NONE;
		return 0;
	}
	if (t.kind != JSON_NUMBER)
		return fxp_bad_kind(x, &t, "a time in milliseconds or null", name);
	return json_fixed(&x->j, &t, 6, out);
}

/* A pid or tid: a number or a string holding one; anything else is unknown. */
static int read_id(struct fxp *x, const char *name, int64_t *out)
{
	struct json_tok t;
	int rc = json_next(&x->j, &t);
	if (rc)
		return rc;
	*out = PV_ID_NONE;
	if (t.kind == JSON_NUMBER)
		return json_i64(&x->j, &t, out);
	if (t.kind == JSON_STRING) {
		struct json_tok n = {.kind = JSON_NUMBER, .s = t.s, .len = t.len};
		int64_t v;
		if (!t.escaped && small_int(&n, &v))
			*out = v;
		return 0;
	}
	if (t.kind == JSON_NULL)
		return 0;
	return fxp_bad_kind(x, &t, "a number or a string", name);
}

static int read_sample_units(struct fxp *x)
{
	struct json_tok t, k;
	int rc = fxp_expect_object(x, &t, "meta.sampleUnits");
	if (rc)
		return rc;
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		if (!json_is(&k, "threadCPUDelta")) {
			if ((rc = json_skip_value(&x->j)))
				return rc;
			continue;
		}
		if ((rc = json_next(&x->j, &t)))
			return rc;
		if (t.kind != JSON_STRING)
			return fxp_bad_kind(x, &t, "a string", "meta.sampleUnits.threadCPUDelta");
		if (json_is(&t, "ns"))
			x->cpu_unit = CPU_NS;
		else if (json_is(&t, "\xc2\xb5s") || json_is(&t, "\\u00b5s") || json_is(&t, "us"))
			x->cpu_unit = CPU_US;
		else if (json_is(&t, "variable CPU cycles"))
			x->cpu_unit = CPU_CYCLES;
		else
			x->cpu_unit = CPU_UNKNOWN;
	}
	return rc;
}

/* ---- marker schemas ---- */

/* Appends s[0..n) to the capture buffer. */
static int cap_put(struct fxp *x, const char *s, size_t n)
{
	return sbuf_put(&x->cap, s, n) ? fxp_oom(x) : 0;
}

/*
 * s as a JSON string literal appended to the capture buffer: only '"', '\\' and control
 * characters escaped, the last as \u00XX (not sbuf_json_string's \n: the text is kept as is).
 */
static int cap_quote(struct fxp *x, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	if (sbuf_grow(&x->cap, 6 * n + 2))
		return fxp_oom(x);
	char *o = x->cap.buf + x->cap.len;
	*o++ = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
		} else if (c < 0x20) {
			memcpy(o, "\\u00", 4);
			o[4] = hex[c >> 4];
			o[5] = hex[c & 15];
			o += 6;
		} else {
			*o++ = (char)c;
		}
	}
	*o++ = '"';
	sbuf_setlen(&x->cap, (size_t)(o - x->cap.buf));
	return 0;
}

/* One schema's string-index fields (firefox.h), noted by the schema's name (64 at most). */
static int schema_fields(struct fxp *x, const char *text, size_t len)
{
	struct pv_error serr;
	struct vec keys = {0};
	pv_str_ix name;
	int rc = ff_schema_string_keys(x->b, x->in->name, text, len, &serr, &name, &keys);
	if (rc == PV_ENOMEM || x->b->status) {
		vec_free(&keys);
		return fxp_oom(x);
	}
	uint32_t nkeys = keys.len < 64 ? keys.len : 64;
	for (uint32_t i = 0; name && name != PV_NONE && i < nkeys; i++) {
		struct strfield *sf = pv_realloc(x->strfields, (x->nr_strfields + 1) * sizeof(*sf));
		if (!sf) {
			vec_free(&keys);
			return fxp_oom(x);
		}
		x->strfields = sf;
		sf[x->nr_strfields].type = name;
		sf[x->nr_strfields++].key = VEC(keys, pv_str_ix)[i];
	}
	vec_free(&keys);
	return 0;
}

/*
 * meta.markerSchema: kept whole as compact JSON (the model's meta.marker_schema, read by the
 * marker module), each schema's string-index fields noted for build_markers.
 */
static int read_marker_schemas(struct fxp *x)
{
	struct json_tok v, t;
	int rc = json_next(&x->j, &v);
	if (rc)
		return rc;
	if (v.kind != JSON_ARRAY)
		return json_skip(&x->j, &v);
	sbuf_reset(&x->cap);
	if ((rc = json_capture(&x->j, &v, &x->cap)))
		return rc;
	if (x->cap.len <= 2)
		return 0; /* [] */
	pv_str_ix all = builder_str(x->b, x->cap.buf, x->cap.len);
	x->b->p->meta.marker_schema = all == PV_NONE ? 0 : all;
	if (all == PV_NONE)
		return fxp_oom(x);
	/* the array's objects: each found by its braces (the text is compact and valid) */
	const char *text = x->b->p->strings.ptr[all];
	size_t len = x->b->p->strings.size[all];
	struct pv_input sin;
	struct pv_error serr;
	struct json sj;
	ff_sub_json(&sj, &sin, &serr, x->in->name, text, len);
	rc = json_next(&sj, &t);
	while (!rc && !(rc = json_next(&sj, &t)) && t.kind != JSON_END) {
		if (t.kind != JSON_OBJECT) {
			rc = json_skip(&sj, &t);
			continue;
		}
		const char *from = t.s;
		uint32_t depth = 0;
		const char *p = from;
		bool in_str = false;
		for (; p < text + len; p++) {
			if (in_str) {
				if (*p == '\\')
					p++;
				else if (*p == '"')
					in_str = false;
			} else if (*p == '"') {
				in_str = true;
			} else if (*p == '{' || *p == '[') {
				depth++;
			} else if ((*p == '}' || *p == ']') && --depth == 0) {
				break;
			}
		}
		if ((rc = json_skip(&sj, &t)) || p >= text + len)
			break;
		rc = schema_fields(x, from, (size_t)(p + 1 - from));
	}
	json_release(&sj);
	return rc == PV_ENOMEM ? rc : 0;
}

/* Whether key k of a payload of type (t, tn) holds a string index. */
static bool is_strfield(const struct fxp *x, const char *t, size_t tn, const char *k, size_t kn)
{
	const struct pv_profile *p = x->b->p;
	if (tn == 20 && memcmp(t, "CompositorScreenshot", 20) == 0 && kn == 3 &&
	    memcmp(k, "url", 3) == 0)
		return true; /* no schema says so (upstream #5303): hard-wired there too */
	for (uint32_t i = 0; i < x->nr_strfields; i++) {
		pv_str_ix a = x->strfields[i].type, b = x->strfields[i].key;
		if (p->strings.size[a] == tn && memcmp(p->strings.ptr[a], t, tn) == 0 &&
		    p->strings.size[b] == kn && memcmp(p->strings.ptr[b], k, kn) == 0)
			return true;
	}
	return false;
}

/* Whether payloads of type (t, tn) have string-index fields at all. */
static bool type_has_strfields(const struct fxp *x, const char *t, size_t tn)
{
	const struct pv_profile *p = x->b->p;
	if (tn == 20 && memcmp(t, "CompositorScreenshot", 20) == 0)
		return true;
	for (uint32_t i = 0; i < x->nr_strfields; i++) {
		pv_str_ix a = x->strfields[i].type;
		if (p->strings.size[a] == tn && memcmp(p->strings.ptr[a], t, tn) == 0)
			return true;
	}
	return false;
}

/*
 * A payload whose schema says some of its fields hold string-array indexes, with each such index
 * replaced by its string, so the model's payloads stand alone (the Gecko importer does the same
 * with its string tables). Returns the payload to keep: the same one when nothing changed.
 */
pv_str_ix fxp_resolve_strings(struct fxp *x, const struct strs *S, pv_str_ix payload)
{
	const struct pv_profile *p = x->b->p;
	const char *text = p->strings.ptr[payload];
	size_t len = p->strings.size[payload];
	if (!x->nr_strfields && !memmem(text, len, "CompositorScreenshot", 20))
		return payload;
	struct pv_input sin;
	struct pv_error serr;
	struct json sj;
	struct json_tok o, k, v;
	/* the type first: the fields to replace depend on it, wherever it comes */
	const char *type = NULL;
	size_t tn = 0;
	ff_sub_json(&sj, &sin, &serr, x->in->name, text, len);
	bool ok = !json_next(&sj, &o) && o.kind == JSON_OBJECT;
	while (ok && !json_next_member(&sj, &k, &v) && k.kind == JSON_KEY) {
		if (json_is(&k, "type") && v.kind == JSON_STRING && !v.escaped) {
			type = v.s;
			tn = v.len;
			break;
		}
		ok = !json_skip(&sj, &v);
	}
	json_release(&sj);
	if (!type || !type_has_strfields(x, type, tn))
		return payload;
	/* copied member by member (keys as written), the index values replaced */
	sbuf_reset(&x->cap);
	bool changed = false;
	int rc = cap_put(x, "{", 1);
	ff_sub_json(&sj, &sin, &serr, x->in->name, text, len);
	if (!rc)
		rc = json_next(&sj, &o);
	while (!rc && !(rc = json_next_member(&sj, &k, &v)) && k.kind == JSON_KEY) {
		bool comma = changed || x->cap.len > 1 || x->cap.buf[x->cap.len - 1] != '{';
		if ((comma && (rc = cap_put(x, ",", 1))) || (rc = cap_put(x, "\"", 1)) ||
		    (rc = cap_put(x, k.s, k.len)) || (rc = cap_put(x, "\":", 2)))
			break;
		int64_t ix;
		if (v.kind == JSON_NUMBER && !k.escaped && is_strfield(x, type, tn, k.s, k.len)) {
			if (small_int(&v, &ix) && ix >= 0 && ix < (int64_t)S->len) {
				pv_str_ix s = S->ix[ix];
				rc = cap_quote(x, p->strings.ptr[s], p->strings.size[s]);
				changed = true;
				continue;
			}
			x->str_ix_bad++;
		}
		rc = json_capture(&sj, &v, &x->cap);
	}
	json_release(&sj);
	if (rc || !changed || cap_put(x, "}", 1))
		return payload;
	pv_str_ix r = builder_str(x->b, x->cap.buf, x->cap.len);
	return r == PV_NONE ? payload : r;
}

int fxp_read_meta(struct fxp *x)
{
	struct json_tok t, k;
	struct pv_meta *m = &x->b->p->meta;
	int rc;
	if (x->have_meta) {
		builder_lossy(x->b, 1, "a second meta object ignored");
		return json_skip_value(&x->j);
	}
	x->have_meta = true;
	if ((rc = fxp_expect_object(x, &t, "meta")))
		return rc;
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		if (json_is(&k, "preprocessedProfileVersion")) {
			if ((rc = read_int(x, "meta.preprocessedProfileVersion", &x->version)))
				return rc;
			if (x->version < FXP_MIN_VERSION || x->version > FXP_MAX_VERSION)
				return pv_error_set(x->err, PV_EFORMAT,
						    "%s: processed profile version %lld is not "
						    "supported (profview reads %d to %d)",
						    x->in->name, (long long)x->version,
						    FXP_MIN_VERSION, FXP_MAX_VERSION);
			x->have_version = true;
		} else if (json_is(&k, "version")) {
			rc = read_int(x, "meta.version", &x->gecko_version);
		} else if (json_is(&k, "startTime")) {
			int64_t v;
			if (!(rc = read_ms(x, "meta.startTime", &v)))
				m->start_unix_ns = v == PV_TIME_NONE ? 0 : v;
		} else if (json_is(&k, "interval")) {
			int64_t v;
			if (!(rc = read_ms(x, "meta.interval", &v)))
				m->interval_ns = v > 0 ? v : 0; /* null or nonsense: unknown */
		} else if (json_is(&k, "product")) {
			rc = fxp_read_str(x, "meta.product", &m->product);
		} else if (json_is(&k, "categories")) {
			if (x->nr_cat) {
				rc = json_skip_value(&x->j);
			} else if (!(rc = fxp_expect_array(x, &t, "meta.categories"))) {
				for (;;) {
					if ((rc = json_next(&x->j, &t)) || t.kind == JSON_END)
						break;
					if ((rc = fxp_read_category(x, &t)))
						break;
				}
			}
		} else if (json_is(&k, "sampleUnits")) {
			rc = read_sample_units(x);
		} else if (json_is(&k, "markerSchema")) {
			rc = read_marker_schemas(x);
		} else if (json_is(&k, "extra") || json_is(&k, "configuration") ||
			   json_is(&k, "extensions") || json_is(&k, "visualMetrics") ||
			   json_is(&k, "pausedRanges")) {
			rc = fxp_not_kept(x, "meta.", &k);
		} else {
			/* descriptive scalars (platform, oscpu, appBuildID, ...) */
			rc = json_skip_value(&x->j);
		}
		if (rc)
			return rc;
	}
	return rc;
}

int fxp_read_libs(struct fxp *x)
{
	struct json_tok t, k;
	int rc;
	if (x->libs_done || x->prepared) {
		builder_lossy(x->b, 1, "a second or late libs array ignored");
		return json_skip_value(&x->j);
	}
	x->libs_done = true;
	if ((rc = fxp_expect_array(x, &t, "libs")))
		return rc;
	uint64_t ids = 0;
	for (;;) {
		if ((rc = json_next(&x->j, &t)))
			return rc;
		if (t.kind == JSON_END)
			break;
		if (t.kind != JSON_OBJECT)
			return fxp_bad_kind(x, &t, "an object", "libs[]");
		if (x->nr_libs == x->cap_libs) {
			uint32_t nc = grow_cap(x->cap_libs, (uint64_t)x->nr_libs + 1);
			if (!nc || COL_GROW(x->lib_name, nc) || COL_GROW(x->lib_path, nc))
				return fxp_oom(x);
			x->cap_libs = nc;
		}
		pv_str_ix name = 0, path = 0;
		uint64_t more = 0;
		while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
			if (json_is(&k, "name")) {
				rc = fxp_read_str(x, "libs[].name", &name);
			} else if (json_is(&k, "path")) {
				rc = fxp_read_str(x, "libs[].path", &path);
			} else {
				struct json_tok v;
				uint64_t n;
				if (!(rc = json_next(&x->j, &v)) && !(rc = count_value(x, &v, &n)))
					more += n;
			}
			if (rc)
				return rc;
		}
		if (rc)
			return rc;
		ids += more != 0;
		x->lib_name[x->nr_libs] = name;
		x->lib_path[x->nr_libs] = path;
		x->nr_libs++;
	}
	if (ids)
		builder_lossy(x->b, ids, "libs: arch, debug names, breakpad and code ids not kept");
	return 0;
}

static const struct colspec source_cols[] = {
    {"filename", C_INDEX, offsetof(struct fxp, src_file), "sources.filename"},
    {"length", C_LENGTH, offsetof(struct fxp, sources_n), "sources.length"},
    /* identify a source, no content */
    {"id", C_SKIP, 0, NULL},
    {"uuid", C_SKIP, 0, NULL},
    {"startLine", C_SKIP, 0, NULL},
    {"startColumn", C_SKIP, 0, NULL},
    {NULL, C_SKIP, 0, NULL},
};

static int read_sources(struct fxp *x)
{
	bool unused;
	return fxp_read_table(x, "shared.sources", source_cols, x, &x->sources_at, &x->sources_n,
			      "sources.", &unused);
}

int fxp_read_shared(struct fxp *x)
{
	struct json_tok t, k;
	int rc;
	if (x->shared_done || x->prepared) {
		builder_lossy(x->b, 1, "a second or late shared object ignored");
		return json_skip_value(&x->j);
	}
	if ((rc = fxp_expect_object(x, &t, "shared")))
		return rc;
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		if (fxp_read_table_key(x, &x->shared, &k, &rc))
			;
		else if (json_is(&k, "sources"))
			rc = read_sources(x);
		else
			rc = fxp_not_kept(x, "", &k);
		if (rc)
			return rc;
	}
	x->shared_done = !rc;
	return rc;
}

/* ---- threads ---- */

/*
 * Reads a marker payload: kept as compact JSON text, without its "cause" object, whose stack (an
 * index into the file's own stack table, meaningless in the model) and time become the marker's
 * cause columns, as the Gecko importer does with a payload's "stack".
 */
static int read_payload(struct fxp *x, struct thread *th, const struct json_tok *t)
{
	pv_str_ix payload = 0;
	uint32_t cause = PV_NONE;
	int64_t cause_time = PV_TIME_NONE;
	int rc;
	if (t->kind != JSON_NULL) {
		sbuf_reset(&x->cap);
		if ((rc = json_capture(&x->j, t, &x->cap)))
			return rc;
		/*
		 * A cause is rare and its payload small, so it is found by reading the captured
		 * text again rather than by slowing down every capture.
		 */
		if (t->kind == JSON_OBJECT && memmem(x->cap.buf, x->cap.len, "\"cause\"", 7)) {
			struct pv_input sin;
			struct pv_error serr;
			struct json sj;
			struct json_tok a, k;
			/* the bytes of the cause members read whole, cut from the text after */
			size_t cut_from[8], cut_to[8];
			uint32_t ncut = 0;
			ff_sub_json(&sj, &sin, &serr, x->in->name, x->cap.buf, x->cap.len);
			bool ok = !json_next(&sj, &a) && a.kind == JSON_OBJECT;
			while (ok && !json_next(&sj, &k) && k.kind == JSON_KEY) {
				if (!json_is(&k, "cause") || json_depth(&sj) != 1) {
					ok = !json_skip_value(&sj);
					continue;
				}
				size_t from =
				    (size_t)(k.s - 1 - x->cap.buf); /* its opening quote */
				if (json_next(&sj, &a) || a.kind != JSON_OBJECT) {
					ok = !json_skip(&sj, &a);
					continue;
				}
				bool closed = false, tid = false;
				while (!json_next_member(&sj, &k, &a)) {
					int64_t v;
					if (k.kind != JSON_KEY) {
						closed = k.kind == JSON_END;
						break;
					}
					if (json_is(&k, "stack") && a.kind == JSON_NUMBER &&
					    !json_i64(&sj, &a, &v) && v >= 0 && v < PV_NONE)
						cause = (uint32_t)v;
					else if (json_is(&k, "time") && a.kind == JSON_NUMBER &&
						 !json_fixed(&sj, &a, 6, &v))
						cause_time = v;
					else if (json_is(&k, "tid") && a.kind != JSON_NULL)
						tid = true;
					if (json_skip(&sj, &a)) /* a container; scalars are read */
						break;
				}
				if (closed && ncut < sizeof(cut_from) / sizeof(cut_from[0])) {
					cut_from[ncut] = from;
					cut_to[ncut++] = (size_t)(sj.p - x->cap.buf);
					x->cause_tids += tid;
				}
			}
			json_release(&sj);
			/* last first, each with one comma: the one before, or after a first member
			 */
			while (ncut--) {
				size_t from = cut_from[ncut], to = cut_to[ncut];
				if (x->cap.buf[from - 1] == ',')
					from--;
				else if (to < x->cap.len && x->cap.buf[to] == ',')
					to++;
				memmove(x->cap.buf + from, x->cap.buf + to, x->cap.len - to);
				sbuf_setlen(&x->cap, x->cap.len - (to - from));
			}
		}
		payload = builder_str(x->b, x->cap.buf, x->cap.len);
	}
	if ((rc = ucol_push(x, &th->m_payload, payload)) ||
	    (rc = ucol_push(x, &th->m_cause, cause)))
		return rc;
	return lcol_push(x, &th->m_cause_time, cause_time);
}

static int read_marker_data(struct fxp *x, struct thread *th)
{
	struct json_tok t;
	int rc = fxp_expect_array(x, &t, "markers.data");
	if (rc)
		return rc;
	fxp_ucol_free(&th->m_payload);
	fxp_ucol_free(&th->m_cause);
	fxp_lcol_free(&th->m_cause_time);
	th->m_payload.at = t.s;
	for (;;) {
		if ((rc = json_next(&x->j, &t)))
			return rc;
		if (t.kind == JSON_END)
			return 0;
		if ((rc = read_payload(x, th, &t)))
			return rc;
	}
}

static int read_markers(struct fxp *x, struct thread *th)
{
	struct json_tok t, k;
	int rc = fxp_expect_object(x, &t, "markers");
	if (rc)
		return rc;
	th->markers_at = t.s;
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		if (json_is(&k, "name"))
			rc = fxp_read_ucol(x, &th->m_name, U_INDEX, "markers.name");
		else if (json_is(&k, "startTime"))
			rc = fxp_read_lcol(x, &th->m_start, L_MS, "markers.startTime");
		else if (json_is(&k, "endTime"))
			rc = fxp_read_lcol(x, &th->m_end, L_MS, "markers.endTime");
		else if (json_is(&k, "phase"))
			rc = fxp_read_ucol(x, &th->m_phase, U_INDEX, "markers.phase");
		else if (json_is(&k, "category"))
			rc = fxp_read_ucol(x, &th->m_cat, U_INDEX, "markers.category");
		else if (json_is(&k, "data"))
			rc = read_marker_data(x, th);
		else if (json_is(&k, "length"))
			rc = fxp_read_length(x, "markers.length", &th->m_n);
		else
			rc = fxp_not_kept(x, "markers.", &k);
		if (rc)
			return rc;
	}
	return rc;
}

static int read_weight_type(struct fxp *x, struct thread *th)
{
	struct json_tok t;
	int rc = json_next(&x->j, &t);
	if (rc)
		return rc;
	if (t.kind == JSON_NULL) {
		th->wtype = W_SAMPLES;
		return 0;
	}
	if (t.kind != JSON_STRING)
		return fxp_bad_kind(x, &t, "a string", "samples.weightType");
	if (json_is(&t, "samples"))
		th->wtype = W_SAMPLES;
	else if (json_is(&t, "tracing-ms"))
		th->wtype = W_TRACING_MS;
	else if (json_is(&t, "bytes"))
		th->wtype = W_BYTES;
	else
		return json_fail_at(
		    &x->j, &t,
		    "expected samples.weightType 'samples', 'tracing-ms' or 'bytes', found '%.*s'",
		    (int)(t.len > 40 ? 40 : t.len), t.s);
	return 0;
}

static int read_samples(struct fxp *x, struct thread *th)
{
	struct json_tok t, k;
	int rc = fxp_expect_object(x, &t, "samples");
	if (rc)
		return rc;
	th->samples_at = t.s;
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		if (json_is(&k, "stack")) {
			rc = fxp_read_ucol_n(x, &th->s_stack, U_INDEX, "samples.stack", th->s_n);
		} else if (json_is(&k, "time")) {
			rc = fxp_read_lcol_n(x, &th->s_time, L_MS, "samples.time", th->s_n);
		} else if (json_is(&k, "timeDeltas")) {
			rc = fxp_read_lcol_n(x, &th->s_time, L_MS_DELTAS, "samples.timeDeltas",
					     th->s_n);
		} else if (json_is(&k, "weight")) {
			struct json_tok v;
			if ((rc = json_next(&x->j, &v)))
				return rc;
			if (v.kind == JSON_NULL)
				fxp_lcol_free(&th->s_weight);
			else if (v.kind == JSON_ARRAY)
				rc = fxp_lcol_fill(x, &th->s_weight, L_E6, "samples.weight", &v,
						   th->s_n);
			else
				rc = fxp_bad_kind(x, &v, "an array or null", "samples.weight");
		} else if (json_is(&k, "weightType")) {
			rc = read_weight_type(x, th);
		} else if (json_is(&k, "threadCPUDelta")) {
			rc =
			    fxp_read_lcol_n(x, &th->s_cpu, L_E3, "samples.threadCPUDelta", th->s_n);
		} else if (json_is(&k, "eventDelay") ||
			   (json_is(&k, "responsiveness") && !th->s_delay_event)) {
			/* the Firefox Profiler reads eventDelay when a thread has it, else this */
			bool event = json_is(&k, "eventDelay");
			const char *what = event ? "samples.eventDelay" : "samples.responsiveness";
			struct json_tok v;
			if ((rc = json_next(&x->j, &v)))
				return rc;
			if (v.kind == JSON_ARRAY) {
				th->s_delay_event = event;
				rc = fxp_lcol_fill(x, &th->s_delay, L_MS, what, &v, th->s_n);
			} else if (v.kind != JSON_NULL) {
				rc = fxp_bad_kind(x, &v, "an array or null", what);
			}
		} else if (json_is(&k, "length")) {
			rc = fxp_read_length(x, "samples.length", &th->s_n);
		} else {
			rc = fxp_not_kept(x, "samples.", &k);
		}
		if (rc)
			return rc;
	}
	return rc;
}

static int read_thread(struct fxp *x, const struct json_tok *open)
{
	struct json_tok k;
	int rc;
	if (open->kind != JSON_OBJECT)
		return fxp_bad_kind(x, open, "an object", "threads[]");
	if (x->nr_threads == x->cap_threads) {
		if ((rc = fxp_grow(x, (void **)&x->threads, sizeof(*x->threads), &x->cap_threads,
				   x->nr_threads)))
			return rc;
	}
	struct thread *th = &x->threads[x->nr_threads++];
	memset(th, 0, sizeof(*th));
	fxp_tables_init(&th->t);
	th->pid = th->tid = PV_ID_NONE;
	th->reg_ns = th->unreg_ns = PV_TIME_NONE;
	th->s_n = th->m_n = -1;
	th->wtype = W_SAMPLES;
	th->s_base = th->s_stack.base = th->s_time.base = x->tail_end;
	th->s_stack.in_builder = th->s_time.in_builder = true;
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		if (fxp_read_table_key(x, &th->t, &k, &rc))
			;
		else if (json_is(&k, "nativeSymbols"))
			rc = fxp_not_kept(x, "", &k);
		else if (json_is(&k, "name"))
			rc = fxp_read_str(x, "threads[].name", &th->name);
		else if (json_is(&k, "processName"))
			rc = fxp_read_str(x, "threads[].processName", &th->process_name);
		else if (json_is(&k, "processType"))
			rc = read_process_type(x, &th->process_type);
		else if (json_is(&k, "pid"))
			rc = read_id(x, "threads[].pid", &th->pid);
		else if (json_is(&k, "tid"))
			rc = read_id(x, "threads[].tid", &th->tid);
		else if (json_is(&k, "registerTime"))
			rc = read_ms(x, "threads[].registerTime", &th->reg_ns);
		else if (json_is(&k, "unregisterTime"))
			rc = read_ms(x, "threads[].unregisterTime", &th->unreg_ns);
		else if (json_is(&k, "samples"))
			rc = read_samples(x, th);
		else if (json_is(&k, "markers"))
			rc = read_markers(x, th);
		else if (json_is(&k, "processStartupTime") || json_is(&k, "processShutdownTime") ||
			 json_is(&k, "isMainThread") || json_is(&k, "showMarkersInTimeline") ||
			 json_is(&k, "eTLD+1") || json_is(&k, "isPrivateBrowsing") ||
			 json_is(&k, "userContextId") || json_is(&k, "isJsTracer"))
			rc = json_skip_value(&x->j); /* descriptive, like most of meta */
		else
			rc = fxp_not_kept(x, "threads[].", &k);
		if (rc)
			return rc;
	}
	if (rc)
		return rc;
	/* the next thread's samples go after this one's, which stay until it is built */
	x->tail_end =
	    th->s_base + (th->s_stack.len > th->s_time.len ? th->s_stack.len : th->s_time.len);
	if (fxp_can_build_now(x, th))
		rc = fxp_build_thread(x, x->nr_threads - 1);
	return rc;
}

int fxp_read_threads(struct fxp *x)
{
	struct json_tok t;
	int rc = fxp_expect_array(x, &t, "threads");
	if (rc)
		return rc;
	for (;;) {
		if ((rc = json_next(&x->j, &t)))
			return rc;
		if (t.kind == JSON_END)
			return 0;
		if ((rc = read_thread(x, &t)))
			return rc;
	}
}

/* ---- building ---- */

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

static int probe(const struct pv_input *in)
{
	if (probe_first_char(in) != '{')
		return 0;
	if (probe_has(in, PROBE_BYTES, "\"preprocessedProfileVersion\""))
		return 90;
	/* meta may come last: a funcTable is only in processed profiles (Gecko has none) */
	if (probe_has(in, PROBE_BYTES, "\"funcTable\""))
		return 50;
	return 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct fxp *x = pv_calloc(1, sizeof(*x));
	if (!x)
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
	x->b = b;
	x->in = in;
	x->err = err;
	x->default_cat = PV_NONE;
	x->sources_n = -1;
	x->wmetric[W_SAMPLES] = x->wmetric[W_TRACING_MS] = x->wmetric[W_BYTES] = PV_NONE;
	x->cpu_metric = PV_NONE;
	fxp_tables_init(&x->shared);
	json_init(&x->j, in, err);
	int rc = fxp_read_top(x);
	if (!rc)
		rc = fxp_build(x);
	if (!rc && b->status)
		rc = b->status;
	json_release(&x->j);
	for (uint32_t i = 0; i < x->nr_threads; i++)
		fxp_thread_free(&x->threads[i]);
	pv_free(x->threads);
	fxp_tables_free(&x->shared);
	fxp_ucol_free(&x->src_file);
	pv_free(x->src_map);
	pv_free(x->lib_name);
	pv_free(x->lib_path);
	pv_free(x->lib_module);
	pv_free(x->cat_map);
	pv_free(x->strfields);
	sbuf_release(&x->cap);
	pv_free(x);
	return rc;
}

const struct importer importer_firefox_processed = {
    .name = "firefox-processed",
    .description = "Firefox Profiler processed profile (profiler.firefox.com, samply), v24-70",
    .probe = probe,
    .import = import,
};

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
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sbuf.h"
#include "base/vec.h"
#include "import/firefox.h"
#include "import/importer.h"
#include "import/json.h"

#define FXP_MIN_VERSION 24
#define FXP_MAX_VERSION 70
#define PROBE_BYTES	((size_t)1 << 20)

enum wtype { W_SAMPLES, W_TRACING_MS, W_BYTES, NR_WTYPES };

enum cpu_unit { CPU_UNKNOWN, CPU_NS, CPU_US, CPU_CYCLES };

/*
 * A column of 32-bit values: indices (PV_NONE for null and -1) or small integers. Its values
 * are its own array, or (in_builder) the builder's sample stack column from row base on: a
 * thread's samples are read straight into the profile.
 */
struct ucol {
	uint32_t *v;
	uint32_t len, cap;
	const char *at; /* the column's '[' in the input; NULL when there is none */
	/* the largest value other than PV_NONE, checked once the target is known */
	uint32_t max;
	uint32_t max_pos;  /* 1 + the first row holding max, 0 when none */
	uint32_t null_pos; /* 1 + the first null (or -1) row, for columns that must not have one */
	bool in_builder;
	uint32_t base;
};

/*
 * A column of 64-bit values: times in ns, scaled weights, addresses; PV_TIME_NONE for null.
 * in_builder: the builder's sample time column from row base on.
 */
struct lcol {
	int64_t *v;
	uint32_t len, cap;
	const char *at;
	bool in_builder;
	uint32_t base;
};

/* A string table: the builder's index of every string of the file's array. */
struct strs {
	pv_str_ix *ix;
	uint32_t len, cap;
	const char *at;
};

/* One set of stack/frame/func/resource tables: shared (v60+) or a thread's own. */
struct tables {
	const char *stack_at, *frame_at, *func_at, *res_at; /* each table's '{', NULL if absent */
	int64_t stack_n, frame_n, func_n, res_n;	    /* their "length", -1 if absent */
	struct ucol stack_frame, stack_prefix, stack_cat;   /* prefix: absolute, PV_NONE = root */
	struct ucol frame_func, frame_line, frame_col, frame_cat, frame_sub, frame_inl, frame_lib;
	struct lcol frame_addr;
	struct ucol func_name, func_res, func_src, func_line, func_col;
	bool func_src_is_str; /* funcTable.fileName (a string index) rather than .source */
	struct ucol res_name, res_host, res_lib, res_type;
	struct strs str;
	/* built: local stack index -> profile stack */
	pv_stack_ix *stack_map;
	uint32_t nr_stack;
};

struct thread {
	pv_str_ix name, process_name, process_type;
	int64_t pid, tid, reg_ns, unreg_ns;
	struct tables t; /* the thread's own tables (older versions) */
	/* samples */
	const char *samples_at;
	int64_t s_n;
	uint32_t s_base;      /* the samples' first row in the builder's columns */
	struct ucol s_stack;  /* in the builder's columns */
	struct lcol s_time;   /* ns (deltas summed as read); in the builder's columns */
	struct lcol s_weight; /* value * 10^6 (the weight type may come after the column) */
	struct lcol s_cpu;    /* threadCPUDelta * 10^3 (its unit is in meta, maybe not read yet) */
	struct lcol s_delay;  /* eventDelay (else the older responsiveness) in ns */
	bool s_delay_event;   /* s_delay holds eventDelay, which wins over responsiveness */
	enum wtype wtype;
	/* markers */
	const char *markers_at;
	int64_t m_n;
	struct ucol m_name, m_phase, m_cat, m_payload, m_cause;
	struct lcol m_start, m_end, m_cause_time;
};

struct fxp {
	struct json j;
	struct pv_builder *b;
	struct pv_input *in;
	struct pv_error *err;
	/* meta */
	bool have_meta, have_version;
	int64_t version, gecko_version;
	enum cpu_unit cpu_unit;
	pv_cat_ix *cat_map; /* the file's category index -> the profile's */
	uint32_t nr_cat;
	/* the first grey category (the front-end's default), in the file's numbering */
	uint32_t default_cat;
	/* libs */
	pv_str_ix *lib_name, *lib_path;
	pv_module_ix *lib_module;
	uint32_t nr_libs, cap_libs;
	/* shared */
	struct tables shared;
	const char *sources_at;
	int64_t sources_n;
	struct ucol src_file;  /* shared.sources.filename: string indices */
	pv_source_ix *src_map; /* built on first use */
	/* threads */
	struct thread *threads;
	uint32_t nr_threads, cap_threads;
	/*
	 * Every thread's samples are read into the builder's sample columns past its committed
	 * rows, one thread after the other in file order (the order threads are built in): the
	 * next thread's start there.
	 */
	uint32_t tail_end;
	/* one marker payload at a time, as compact JSON text */
	struct sbuf cap;
	/* threads built so far (in file order: once one has to wait, all later ones do) */
	bool libs_done, shared_done, prepared;
	uint32_t nr_built;
	pv_metric_ix wmetric[NR_WTYPES], cpu_metric; /* made on first use, PV_NONE before */
	/* lossy counts gathered while reading, reported once at the end */
	uint64_t subcat_clamped, cause_dropped, stack_cat_differ, weight_rounded, ends_clamped;
	uint64_t lifetimes_clamped, cause_tids;
	/* meta.markerSchema: which payload keys of which types hold string-array indexes */
	struct strfield *strfields;
	uint32_t nr_strfields;
	uint64_t str_ix_bad; /* such values that index no string (kept as they are) */
};

/* A payload key of a marker type whose values are string-array indexes (unique-string, ...). */
struct strfield {
	pv_str_ix type, key;
};

/* ---- errors and small helpers ---- */

static int oom(struct fxp *x)
{
	return pv_error_set(x->err, PV_ENOMEM, "%s: out of memory", x->in->name);
}

static int bad_kind(struct fxp *x, const struct json_tok *t, const char *what, const char *name)
{
	return json_fail_at(&x->j, t, "expected %s for %s, found %s", what, name,
			    json_kind_name(t->kind));
}

/* The common number: up to 18 digits, maybe a '-'; anything else goes the slow way. */
static inline bool small_int(const struct json_tok *t, int64_t *out)
{
	const char *p = t->s;
	size_t n = t->len;
	bool neg = n && *p == '-';
	if (neg) {
		p++;
		n--;
	}
	if (n == 0 || n > 18)
		return false;
	int64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(unsigned char)p[i] - '0';
		if (d > 9)
			return false;
		v = v * 10 + d;
	}
	*out = neg ? -v : v;
	return true;
}

/*
 * The common time or weight: a plain decimal ("12.345", "-3") times 10^pow10, exact and rounded
 * like json_fixed (half away from zero, decided by the first dropped digit). Exponents and
 * longer integer parts take the slow way.
 */
static inline bool small_fixed(const struct json_tok *t, int pow10, int64_t *out)
{
	const char *p = t->s, *e = t->s + t->len;
	bool neg = p < e && *p == '-';
	bool up = false;
	int64_t v = 0;
	int nd = 0, frac = 0;
	if (neg)
		p++;
	for (; p < e && (unsigned)(*p - '0') <= 9; p++) {
		if (++nd > 12)
			return false;
		v = v * 10 + (*p - '0');
	}
	if (nd == 0)
		return false;
	if (p < e && *p == '.') {
		size_t room = (size_t)(e - ++p);
		const char *stop = p + (room < (size_t)pow10 ? room : (size_t)pow10);
		for (; p < stop && (unsigned)(*p - '0') <= 9; p++, frac++)
			v = v * 10 + (*p - '0');
		/* float noise ("1.0199999999999388"): one digit rounds, the rest only ends */
		if (p < e && (unsigned)(*p - '0') <= 9) {
			up = *p >= '5';
			while (++p < e && (unsigned)(*p - '0') <= 9)
				;
		}
	}
	static const int64_t scale[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
	if (p != e)
		return false;
	if (frac < pow10)
		v *= scale[pow10 - frac];
	v += up;
	*out = neg ? -v : v;
	return true;
}

static int grow(struct fxp *x, void **v, size_t elt, uint32_t *cap, uint32_t len)
{
	uint32_t nc = grow_cap(*cap, (uint64_t)len + 1);
	if (!nc)
		return pv_error_set(x->err, PV_ELIMIT, "%s: more than %u rows in one column",
				    x->in->name, PV_MAX_ROWS);
	if (col_realloc(v, elt, nc))
		return oom(x);
	*cap = nc;
	return 0;
}

/* Empties a column; one in the builder stays there. */
static void ucol_free(struct ucol *c)
{
	bool in_builder = c->in_builder;
	uint32_t base = c->base;
	if (!in_builder)
		pv_free(c->v);
	memset(c, 0, sizeof(*c));
	c->in_builder = in_builder;
	c->base = base;
}

static void lcol_free(struct lcol *c)
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
			return oom(x);
		*cap = nc;
		return 0;
	}
	struct pv_samples *t = &x->b->p->samples;
	if (builder_samples_reserve(x->b, need, exact))
		return x->b->status == PV_ENOMEM ? oom(x) : x->b->status;
	*v = elt == sizeof(*t->stack) ? (void *)(t->stack + base) : (void *)(t->time_ns + base);
	*cap = t->cap - base;
	return 0;
}

static int ucol_room(struct fxp *x, struct ucol *c, int64_t stated)
{
	return col_room(x, (void **)&c->v, sizeof(*c->v), &c->cap, c->len, c->in_builder, c->base,
			stated);
}

static int lcol_room(struct fxp *x, struct lcol *c, int64_t stated)
{
	return col_room(x, (void **)&c->v, sizeof(*c->v), &c->cap, c->len, c->in_builder, c->base,
			stated);
}

/* Where a thread's sample columns are now (any reserve may have moved the builder's). */
static void tail_sync(struct fxp *x, struct thread *th)
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

static inline int ucol_push(struct fxp *x, struct ucol *c, uint32_t v)
{
	if (c->len == c->cap) {
		int rc = ucol_room(x, c, -1);
		if (rc)
			return rc;
	}
	uint32_t row = c->len++;
	c->v[row] = v;
	if (v == PV_NONE) {
		if (!c->null_pos)
			c->null_pos = row + 1;
	} else if (!c->max_pos || v > c->max) {
		c->max = v;
		c->max_pos = row + 1;
	}
	return 0;
}

/* The maximum and first null of rows [from, from + n), read in bulk. */
static void ucol_track(struct ucol *c, uint32_t from, uint32_t n)
{
	const uint32_t *v = c->v + from;
	uint32_t m = 0;
	bool nul = false, any = false;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t a = v[k];
		nul |= a == PV_NONE;
		any |= a != PV_NONE;
		a = a == PV_NONE ? 0 : a;
		m = a > m ? a : m;
	}
	if (any && (!c->max_pos || m > c->max)) {
		uint32_t k = 0;
		while (v[k] != m)
			k++;
		c->max = m;
		c->max_pos = from + k + 1;
	}
	if (nul && !c->null_pos) {
		uint32_t k = 0;
		while (v[k] != PV_NONE)
			k++;
		c->null_pos = from + k + 1;
	}
}

static inline int lcol_push(struct fxp *x, struct lcol *c, int64_t v)
{
	if (c->len == c->cap) {
		int rc = lcol_room(x, c, -1);
		if (rc)
			return rc;
	}
	c->v[c->len++] = v;
	return 0;
}

/*
 * The token of row `row` of the array whose '[' is at `at`, read again for a message: columns
 * keep rows, not positions. A column read whole parsed once already, so this cannot fail.
 */
static struct json_tok row_tok(struct fxp *x, const char *at, uint32_t row)
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
static int not_kept(struct fxp *x, const char *where, const struct json_tok *key)
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

static int expect_object(struct fxp *x, struct json_tok *t, const char *name)
{
	return expect_kind(x, t, JSON_OBJECT, name);
}

static int expect_array(struct fxp *x, struct json_tok *t, const char *name)
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
		return bad_kind(x, &t, "an integer", name);
	return json_i64(&x->j, &t, out);
}

/* A table's "length": -1 when null (tolerated), an error when not a count. */
static int read_length(struct fxp *x, const char *name, int64_t *out)
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
		return bad_kind(x, &t, "a row count", name);
	if ((rc = json_i64(&x->j, &t, out)))
		return rc;
	if (*out < 0 || *out > PV_MAX_ROWS)
		return json_fail_at(&x->j, &t, "expected a row count for %s, found %.*s", name,
				    (int)t.len, t.s);
	return 0;
}

/* A string value (or null -> 0) interned. */
static int read_str(struct fxp *x, const char *name, pv_str_ix *out)
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
		return bad_kind(x, &t, "a string", name);
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
		return bad_kind(x, &t, "a time in milliseconds or null", name);
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
	return bad_kind(x, &t, "a number or a string", name);
}

/* ---- columns ---- */

enum ukind {
	U_INDEX,	 /* null and -1 are PV_NONE */
	U_PREFIX,	 /* stackTable.prefix: null (or -1) = root, else an earlier stack */
	U_PREFIX_OFFSET, /* stackTable.prefixOffset: 0 = root, k = the stack k rows before */
};

/* One value of an index column, read the general way; *end at the column's end. */
static int ucol_one(struct fxp *x, struct ucol *c, enum ukind kind, const char *name, bool *end)
{
	struct json *j = &x->j;
	struct json_tok t;
	int rc;
	*end = false;
	if ((rc = json_next(j, &t)))
		return rc;
	if (t.kind == JSON_END) {
		*end = true;
		return 0;
	}
	uint32_t i = c->len, v;
	int64_t n;
	if (t.kind == JSON_NUMBER) {
		if (!small_int(&t, &n) && (rc = json_i64(j, &t, &n)))
			return rc;
	} else if (t.kind == JSON_NULL && kind != U_PREFIX_OFFSET) {
		n = -1;
	} else {
		return bad_kind(
		    x, &t, kind == U_PREFIX_OFFSET ? "an integer" : "an integer or null",
		    name);
	}
	if (kind == U_PREFIX_OFFSET) {
		if (n < 0 || n > i)
			return json_fail_at(
			    j, &t,
			    "expected a prefixOffset from 0 to %u for stack %u, found %.*s",
			    i, i, (int)t.len, t.s);
		v = n == 0 ? PV_NONE : i - (uint32_t)n;
	} else if (n == -1) {
		v = PV_NONE;
	} else if (kind == U_PREFIX && (n < 0 || n >= i)) {
		return json_fail_at(j, &t,
				    "expected the prefix of stack %u to be an earlier "
				    "stack or null, found %.*s",
				    i, (int)t.len, t.s);
	} else if (n < 0 || n >= PV_NONE) {
		return json_fail_at(j, &t, "expected an index or null for %s, found %.*s",
				    name, (int)t.len, t.s);
	} else {
		v = (uint32_t)n;
	}
	return ucol_push(x, c, v);
}

#define RUN_CHUNK 4096u

/* Checks and converts the n rows the fast path stored from row c->len, and takes them. */
static int ucol_take(struct fxp *x, struct ucol *c, enum ukind kind, uint32_t n)
{
	uint32_t *v = c->v + c->len, i0 = c->len;
	struct json_tok t;
	if (kind == U_PREFIX) {
		for (uint32_t k = 0; k < n; k++) {
			if (v[k] != PV_NONE && v[k] >= i0 + k) {
				t = row_tok(x, c->at, i0 + k);
				return json_fail_at(&x->j, &t,
						    "expected the prefix of stack %u to be an earlier "
						    "stack or null, found %.*s",
						    i0 + k, (int)t.len, t.s);
			}
		}
	} else if (kind == U_PREFIX_OFFSET) {
		for (uint32_t k = 0; k < n; k++) {
			uint32_t i = i0 + k;
			if (v[k] > i) {
				t = row_tok(x, c->at, i);
				return json_fail_at(
				    &x->j, &t,
				    "expected a prefixOffset from 0 to %u for stack %u, found %.*s", i,
				    i, (int)t.len, t.s);
			}
			v[k] = v[k] == 0 ? PV_NONE : i - v[k];
		}
	}
	ucol_track(c, i0, n);
	c->len += n;
	return 0;
}

/* Fills c from the array whose '[' was just read, plain numbers by the tokenizer's fast path. */
static int ucol_fill(struct fxp *x, struct ucol *c, enum ukind kind, const char *name,
		     int64_t stated)
{
	int rc;
	for (;;) {
		if (c->len == c->cap && (rc = ucol_room(x, c, stated)))
			return rc;
		uint32_t room = c->cap - c->len;
		enum json_run stop;
		size_t got = json_run_u32(&x->j, c->v + c->len, room < RUN_CHUNK ? room : RUN_CHUNK,
					  kind != U_PREFIX_OFFSET, PV_NONE, &stop);
		if (got && (rc = ucol_take(x, c, kind, (uint32_t)got)))
			return rc;
		if (stop == JSON_RUN_END)
			return 0;
		if (stop == JSON_RUN_OTHER) {
			bool end;
			if ((rc = ucol_one(x, c, kind, name, &end)) || end)
				return rc;
		}
	}
}

static int read_ucol_n(struct fxp *x, struct ucol *c, enum ukind kind, const char *name,
		       int64_t stated)
{
	struct json_tok t;
	int rc = expect_array(x, &t, name);
	if (rc)
		return rc;
	ucol_free(c);
	c->at = t.s;
	return ucol_fill(x, c, kind, name, stated);
}

static int read_ucol(struct fxp *x, struct ucol *c, enum ukind kind, const char *name)
{
	return read_ucol_n(x, c, kind, name, -1);
}

enum lkind {
	L_MS,	/* ms -> ns; null = PV_TIME_NONE */
	L_MS_DELTAS, /* the same, summed from 0 as read (a null adds nothing) */
	L_E6,	/* value * 10^6 (weights) */
	L_E3,	/* value * 10^3 (threadCPUDelta) */
	L_ADDR, /* an integer address; -1 and null = PV_TIME_NONE, converted when built */
};

/* One value of a 64-bit column, read the general way; *end at the column's end. */
static int lcol_one(struct fxp *x, struct lcol *c, enum lkind kind, const char *name, int64_t *acc,
		    bool *end)
{
	struct json *j = &x->j;
	struct json_tok t;
	int rc;
	int pow10 = kind == L_E3 ? 3 : 6;
	*end = false;
	if ((rc = json_next(j, &t)))
		return rc;
	if (t.kind == JSON_END) {
		*end = true;
		return 0;
	}
	int64_t v;
	if (t.kind == JSON_NULL) {
		v = PV_TIME_NONE;
	} else if (t.kind != JSON_NUMBER) {
		return bad_kind(x, &t,
				kind == L_MS || kind == L_MS_DELTAS ? "a time in milliseconds or null"
								    : "a number or null",
				name);
	} else if (kind == L_ADDR) {
		if (!small_int(&t, &v) && (rc = json_i64(j, &t, &v)))
			return rc;
		if (v == -1)
			v = PV_TIME_NONE;
		else if (v < 0)
			return json_fail_at(j, &t, "expected an address or -1 for %s, found %.*s", name,
					    (int)t.len, t.s);
	} else if (!small_fixed(&t, pow10, &v) && (rc = json_fixed(j, &t, pow10, &v))) {
		return rc;
	}
	if (kind == L_MS_DELTAS) {
		if (v != PV_TIME_NONE)
			*acc += v;
		v = *acc;
	}
	return lcol_push(x, c, v);
}

/* Fills c from the array whose '[' is open, plain numbers by the tokenizer's fast path. */
static int lcol_fill(struct fxp *x, struct lcol *c, enum lkind kind, const char *name,
		     const struct json_tok *open, int64_t stated)
{
	int rc;
	int64_t acc = 0;
	int pow10 = kind == L_E3 ? 3 : kind == L_ADDR ? 0 : 6;
	lcol_free(c);
	c->at = open->s;
	for (;;) {
		if (c->len == c->cap && (rc = lcol_room(x, c, stated)))
			return rc;
		uint32_t room = c->cap - c->len;
		enum json_run stop;
		int64_t *v = c->v + c->len;
		uint32_t n = (uint32_t)json_run_i64(&x->j, pow10, v,
						    room < RUN_CHUNK ? room : RUN_CHUNK, true,
						    PV_TIME_NONE, &stop);
		if (kind == L_ADDR) {
			for (uint32_t k = 0; k < n; k++) {
				if (v[k] == -1) {
					v[k] = PV_TIME_NONE;
				} else if (v[k] < 0 && v[k] != PV_TIME_NONE) {
					struct json_tok t = row_tok(x, c->at, c->len + k);
					return json_fail_at(&x->j, &t,
							    "expected an address or -1 for %s, found %.*s",
							    name, (int)t.len, t.s);
				}
			}
		} else if (kind == L_MS_DELTAS) {
			for (uint32_t k = 0; k < n; k++) {
				if (v[k] != PV_TIME_NONE)
					acc += v[k];
				v[k] = acc;
			}
		}
		c->len += n;
		if (stop == JSON_RUN_END)
			return 0;
		if (stop == JSON_RUN_OTHER) {
			bool end;
			if ((rc = lcol_one(x, c, kind, name, &acc, &end)) || end)
				return rc;
		}
	}
}

static int read_lcol_n(struct fxp *x, struct lcol *c, enum lkind kind, const char *name,
		       int64_t stated)
{
	struct json_tok t;
	int rc = expect_array(x, &t, name);
	return rc ? rc : lcol_fill(x, c, kind, name, &t, stated);
}

static int read_lcol(struct fxp *x, struct lcol *c, enum lkind kind, const char *name)
{
	return read_lcol_n(x, c, kind, name, -1);
}

static int read_strs(struct fxp *x, struct strs *s, const char *name)
{
	struct json_tok t;
	int rc = expect_array(x, &t, name);
	if (rc)
		return rc;
	s->len = 0;
	s->at = t.s;
	for (;;) {
		const char *p;
		size_t n;
		if ((rc = json_next(&x->j, &t)))
			return rc;
		if (t.kind == JSON_END)
			return 0;
		if (t.kind != JSON_STRING)
			return bad_kind(x, &t, "a string", name);
		if ((rc = json_str(&x->j, &t, &p, &n)))
			return rc;
		if (s->len == s->cap &&
		    (rc = grow(x, (void **)&s->ix, sizeof(*s->ix), &s->cap, s->len)))
			return rc;
		s->ix[s->len++] = builder_str(x->b, p, n);
	}
}

/* ---- tables ---- */

/*
 * The column tables are read by one loop from a description of their keys: which column a key
 * fills (an offset into the struct holding the table) and how, and what it is called in
 * messages. A key not described is reported as not kept.
 */
enum colkind {
	C_INDEX,	 /* a ucol of indices (U_INDEX) */
	C_PREFIX,	 /* stackTable.prefix */
	C_PREFIX_OFFSET, /* stackTable.prefixOffset */
	C_ADDR,		 /* an lcol of addresses */
	C_SOURCE,	 /* funcTable.source: a ucol, into shared.sources */
	C_FILENAME,	 /* funcTable.fileName: the same ucol, string indices */
	C_LENGTH,	 /* the table's "length" */
	C_SKIP,		 /* read elsewhere or describing only: skipped, not reported */
};

struct colspec {
	const char *key;
	enum colkind kind;
	size_t off;	   /* of the column in the struct (tables or fxp) */
	const char *label; /* for messages */
};

#define TCOL(key, kind, field, label) {key, kind, offsetof(struct tables, field), label}

static const struct colspec stack_cols[] = {
    TCOL("frame", C_INDEX, stack_frame, "stackTable.frame"),
    TCOL("prefix", C_PREFIX, stack_prefix, "stackTable.prefix"),
    TCOL("prefixOffset", C_PREFIX_OFFSET, stack_prefix, "stackTable.prefixOffset"),
    TCOL("category", C_INDEX, stack_cat, "stackTable.category"),
    {"subcategory", C_SKIP, 0, NULL}, /* reported with the category column */
    TCOL("length", C_LENGTH, stack_n, "stackTable.length"),
    {NULL, C_SKIP, 0, NULL},
};

static const struct colspec frame_cols[] = {
    TCOL("func", C_INDEX, frame_func, "frameTable.func"),
    TCOL("line", C_INDEX, frame_line, "frameTable.line"),
    TCOL("column", C_INDEX, frame_col, "frameTable.column"),
    TCOL("category", C_INDEX, frame_cat, "frameTable.category"),
    TCOL("subcategory", C_INDEX, frame_sub, "frameTable.subcategory"),
    TCOL("inlineDepth", C_INDEX, frame_inl, "frameTable.inlineDepth"),
    TCOL("lib", C_INDEX, frame_lib, "frameTable.lib"),
    TCOL("address", C_ADDR, frame_addr, "frameTable.address"),
    TCOL("length", C_LENGTH, frame_n, "frameTable.length"),
    {NULL, C_SKIP, 0, NULL},
};

static const struct colspec func_cols[] = {
    TCOL("name", C_INDEX, func_name, "funcTable.name"),
    TCOL("resource", C_INDEX, func_res, "funcTable.resource"),
    TCOL("source", C_SOURCE, func_src, "funcTable.source"),
    TCOL("fileName", C_FILENAME, func_src, "funcTable.fileName"),
    TCOL("lineNumber", C_INDEX, func_line, "funcTable.lineNumber"),
    TCOL("columnNumber", C_INDEX, func_col, "funcTable.columnNumber"),
    TCOL("length", C_LENGTH, func_n, "funcTable.length"),
    {NULL, C_SKIP, 0, NULL},
};

static const struct colspec resource_cols[] = {
    TCOL("name", C_INDEX, res_name, "resourceTable.name"),
    TCOL("host", C_INDEX, res_host, "resourceTable.host"),
    TCOL("lib", C_INDEX, res_lib, "resourceTable.lib"),
    TCOL("type", C_INDEX, res_type, "resourceTable.type"),
    TCOL("length", C_LENGTH, res_n, "resourceTable.length"),
    {NULL, C_SKIP, 0, NULL},
};

/*
 * Reads the object named name (its '{' next) as the column table spec describes, into the
 * struct at base; *at is its '{' and *len its "length" (-1 until read). lossy prefixes the
 * keys reported as not kept. func_src_is_str is set by C_SOURCE and C_FILENAME.
 */
static int read_table(struct fxp *x, const char *name, const struct colspec *spec, void *base,
		      const char **at, int64_t *len, const char *lossy, bool *func_src_is_str)
{
	struct json_tok t, k;
	int rc = expect_object(x, &t, name);
	if (rc)
		return rc;
	*at = t.s;
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		const struct colspec *c = spec;
		while (c->key && !json_is(&k, c->key))
			c++;
		if (!c->key) {
			rc = not_kept(x, lossy, &k);
		} else {
			void *col = (char *)base + c->off;
			switch (c->kind) {
			case C_INDEX:
			case C_SOURCE:
			case C_FILENAME:
				rc = read_ucol_n(x, col, U_INDEX, c->label, *len);
				if (c->kind != C_INDEX)
					*func_src_is_str = c->kind == C_FILENAME;
				break;
			case C_PREFIX: rc = read_ucol_n(x, col, U_PREFIX, c->label, *len); break;
			case C_PREFIX_OFFSET:
				rc = read_ucol_n(x, col, U_PREFIX_OFFSET, c->label, *len);
				break;
			case C_ADDR: rc = read_lcol_n(x, col, L_ADDR, c->label, *len); break;
			case C_LENGTH: rc = read_length(x, c->label, col); break;
			case C_SKIP: rc = json_skip_value(&x->j); break;
			}
		}
		if (rc)
			return rc;
	}
	return rc;
}

static int read_stack_table(struct fxp *x, struct tables *T)
{
	return read_table(x, "stackTable", stack_cols, T, &T->stack_at, &T->stack_n,
			  "stackTable.", &T->func_src_is_str);
}

static int read_frame_table(struct fxp *x, struct tables *T)
{
	return read_table(x, "frameTable", frame_cols, T, &T->frame_at, &T->frame_n,
			  "frameTable.", &T->func_src_is_str);
}

static int read_func_table(struct fxp *x, struct tables *T)
{
	return read_table(x, "funcTable", func_cols, T, &T->func_at, &T->func_n, "funcTable.",
			  &T->func_src_is_str);
}

static int read_resource_table(struct fxp *x, struct tables *T)
{
	return read_table(x, "resourceTable", resource_cols, T, &T->res_at, &T->res_n,
			  "resourceTable.", &T->func_src_is_str);
}

/* A key that names one of the tables (shared or per thread); *rc is set when it did. */
static bool read_table_key(struct fxp *x, struct tables *T, const struct json_tok *k, int *rc)
{
	if (json_is(k, "stackTable"))
		*rc = read_stack_table(x, T);
	else if (json_is(k, "frameTable"))
		*rc = read_frame_table(x, T);
	else if (json_is(k, "funcTable"))
		*rc = read_func_table(x, T);
	else if (json_is(k, "resourceTable"))
		*rc = read_resource_table(x, T);
	else if (json_is(k, "stringArray"))
		*rc = read_strs(x, &T->str, "stringArray");
	else if (json_is(k, "stringTable"))
		*rc = read_strs(x, &T->str, "stringTable");
	else
		return false;
	return true;
}

static void tables_free_columns(struct tables *T)
{
	ucol_free(&T->stack_frame);
	ucol_free(&T->stack_prefix);
	ucol_free(&T->stack_cat);
	ucol_free(&T->frame_func);
	ucol_free(&T->frame_line);
	ucol_free(&T->frame_col);
	ucol_free(&T->frame_cat);
	ucol_free(&T->frame_sub);
	ucol_free(&T->frame_inl);
	ucol_free(&T->frame_lib);
	lcol_free(&T->frame_addr);
	ucol_free(&T->func_name);
	ucol_free(&T->func_res);
	ucol_free(&T->func_src);
	ucol_free(&T->func_line);
	ucol_free(&T->func_col);
	ucol_free(&T->res_name);
	ucol_free(&T->res_host);
	ucol_free(&T->res_lib);
	ucol_free(&T->res_type);
}

static void tables_free(struct tables *T)
{
	tables_free_columns(T);
	pv_free(T->str.ix);
	pv_free(T->stack_map);
	T->str.ix = NULL;
	T->stack_map = NULL;
}

static void tables_init(struct tables *T)
{
	memset(T, 0, sizeof(*T));
	T->stack_n = T->frame_n = T->func_n = T->res_n = -1;
}

/* ---- meta, libs, shared ---- */

static int read_category(struct fxp *x, const struct json_tok *open)
{
	struct json_tok t, k;
	pv_str_ix name = 0, color = 0;
	pv_str_ix sub[256];
	uint32_t nsub = 0, extra = 0;
	int rc;
	if (open->kind != JSON_OBJECT)
		return bad_kind(x, open, "an object", "meta.categories[]");
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		if (json_is(&k, "name")) {
			rc = read_str(x, "meta.categories[].name", &name);
		} else if (json_is(&k, "color")) {
			rc = read_str(x, "meta.categories[].color", &color);
		} else if (json_is(&k, "subcategories")) {
			if ((rc = expect_array(x, &t, "meta.categories[].subcategories")))
				return rc;
			nsub = extra = 0;
			for (;;) {
				const char *s;
				size_t n;
				if ((rc = json_next(&x->j, &t)))
					return rc;
				if (t.kind == JSON_END)
					break;
				if (t.kind != JSON_STRING)
					return bad_kind(x, &t, "a string",
							"meta.categories[].subcategories");
				if ((rc = json_str(&x->j, &t, &s, &n)))
					return rc;
				if (nsub < sizeof(sub) / sizeof(sub[0]))
					sub[nsub++] = builder_str(x->b, s, n);
				else
					extra++;
			}
		} else {
			rc = json_skip_value(&x->j);
		}
		if (rc)
			return rc;
	}
	if (rc)
		return rc;
	if (x->nr_cat % 16 == 0) {
		uint32_t nc = x->nr_cat + 16;
		if (col_realloc((void **)&x->cat_map, sizeof(*x->cat_map), nc))
			return oom(x);
	}
	pv_cat_ix c = builder_category(x->b, name, color);
	for (uint32_t i = 0; i < nsub; i++)
		builder_subcategory(x->b, c, sub[i]);
	if (extra)
		builder_lossy(x->b, extra, "subcategories past the 256th of a category not kept");
	if (x->default_cat == PV_NONE && color && strcmp(pv_str(x->b->p, color), "grey") == 0)
		x->default_cat = x->nr_cat;
	x->cat_map[x->nr_cat] = c;
	x->nr_cat++;
	return 0;
}

static int read_sample_units(struct fxp *x)
{
	struct json_tok t, k;
	int rc = expect_object(x, &t, "meta.sampleUnits");
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
			return bad_kind(x, &t, "a string", "meta.sampleUnits.threadCPUDelta");
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
	return sbuf_put(&x->cap, s, n) ? oom(x) : 0;
}

/*
 * s as a JSON string literal appended to the capture buffer: only '"', '\\' and control
 * characters escaped, the last as \u00XX (not sbuf_json_string's \n: the text is kept as is).
 */
static int cap_quote(struct fxp *x, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	if (sbuf_grow(&x->cap, 6 * n + 2))
		return oom(x);
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
		return oom(x);
	}
	uint32_t nkeys = keys.len < 64 ? keys.len : 64;
	for (uint32_t i = 0; name && name != PV_NONE && i < nkeys; i++) {
		struct strfield *sf = pv_realloc(x->strfields, (x->nr_strfields + 1) * sizeof(*sf));
		if (!sf) {
			vec_free(&keys);
			return oom(x);
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
		return oom(x);
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
static pv_str_ix resolve_strings(struct fxp *x, const struct strs *S, pv_str_ix payload)
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

static int read_meta(struct fxp *x)
{
	struct json_tok t, k;
	struct pv_meta *m = &x->b->p->meta;
	int rc;
	if (x->have_meta) {
		builder_lossy(x->b, 1, "a second meta object ignored");
		return json_skip_value(&x->j);
	}
	x->have_meta = true;
	if ((rc = expect_object(x, &t, "meta")))
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
			rc = read_str(x, "meta.product", &m->product);
		} else if (json_is(&k, "categories")) {
			if (x->nr_cat) {
				rc = json_skip_value(&x->j);
			} else if (!(rc = expect_array(x, &t, "meta.categories"))) {
				for (;;) {
					if ((rc = json_next(&x->j, &t)) || t.kind == JSON_END)
						break;
					if ((rc = read_category(x, &t)))
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
			rc = not_kept(x, "meta.", &k);
		} else {
			/* descriptive scalars (platform, oscpu, appBuildID, ...) */
			rc = json_skip_value(&x->j);
		}
		if (rc)
			return rc;
	}
	return rc;
}

static int read_libs(struct fxp *x)
{
	struct json_tok t, k;
	int rc;
	if (x->libs_done || x->prepared) {
		builder_lossy(x->b, 1, "a second or late libs array ignored");
		return json_skip_value(&x->j);
	}
	x->libs_done = true;
	if ((rc = expect_array(x, &t, "libs")))
		return rc;
	uint64_t ids = 0;
	for (;;) {
		if ((rc = json_next(&x->j, &t)))
			return rc;
		if (t.kind == JSON_END)
			break;
		if (t.kind != JSON_OBJECT)
			return bad_kind(x, &t, "an object", "libs[]");
		if (x->nr_libs == x->cap_libs) {
			uint32_t nc = grow_cap(x->cap_libs, (uint64_t)x->nr_libs + 1);
			if (!nc || COL_GROW(x->lib_name, nc) || COL_GROW(x->lib_path, nc))
				return oom(x);
			x->cap_libs = nc;
		}
		pv_str_ix name = 0, path = 0;
		uint64_t more = 0;
		while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
			if (json_is(&k, "name")) {
				rc = read_str(x, "libs[].name", &name);
			} else if (json_is(&k, "path")) {
				rc = read_str(x, "libs[].path", &path);
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
	return read_table(x, "shared.sources", source_cols, x, &x->sources_at, &x->sources_n,
			  "sources.", &unused);
}

static int read_shared(struct fxp *x)
{
	struct json_tok t, k;
	int rc;
	if (x->shared_done || x->prepared) {
		builder_lossy(x->b, 1, "a second or late shared object ignored");
		return json_skip_value(&x->j);
	}
	if ((rc = expect_object(x, &t, "shared")))
		return rc;
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		if (read_table_key(x, &x->shared, &k, &rc))
			;
		else if (json_is(&k, "sources"))
			rc = read_sources(x);
		else
			rc = not_kept(x, "", &k);
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
				size_t from = (size_t)(k.s - 1 - x->cap.buf); /* its opening quote */
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
			/* last first, each with one comma: the one before, or after a first member */
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
	int rc = expect_array(x, &t, "markers.data");
	if (rc)
		return rc;
	ucol_free(&th->m_payload);
	ucol_free(&th->m_cause);
	lcol_free(&th->m_cause_time);
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
	int rc = expect_object(x, &t, "markers");
	if (rc)
		return rc;
	th->markers_at = t.s;
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		if (json_is(&k, "name"))
			rc = read_ucol(x, &th->m_name, U_INDEX, "markers.name");
		else if (json_is(&k, "startTime"))
			rc = read_lcol(x, &th->m_start, L_MS, "markers.startTime");
		else if (json_is(&k, "endTime"))
			rc = read_lcol(x, &th->m_end, L_MS, "markers.endTime");
		else if (json_is(&k, "phase"))
			rc = read_ucol(x, &th->m_phase, U_INDEX, "markers.phase");
		else if (json_is(&k, "category"))
			rc = read_ucol(x, &th->m_cat, U_INDEX, "markers.category");
		else if (json_is(&k, "data"))
			rc = read_marker_data(x, th);
		else if (json_is(&k, "length"))
			rc = read_length(x, "markers.length", &th->m_n);
		else
			rc = not_kept(x, "markers.", &k);
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
		return bad_kind(x, &t, "a string", "samples.weightType");
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
	int rc = expect_object(x, &t, "samples");
	if (rc)
		return rc;
	th->samples_at = t.s;
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		if (json_is(&k, "stack")) {
			rc = read_ucol_n(x, &th->s_stack, U_INDEX, "samples.stack", th->s_n);
		} else if (json_is(&k, "time")) {
			rc = read_lcol_n(x, &th->s_time, L_MS, "samples.time", th->s_n);
		} else if (json_is(&k, "timeDeltas")) {
			rc = read_lcol_n(x, &th->s_time, L_MS_DELTAS, "samples.timeDeltas", th->s_n);
		} else if (json_is(&k, "weight")) {
			struct json_tok v;
			if ((rc = json_next(&x->j, &v)))
				return rc;
			if (v.kind == JSON_NULL)
				lcol_free(&th->s_weight);
			else if (v.kind == JSON_ARRAY)
				rc = lcol_fill(x, &th->s_weight, L_E6, "samples.weight", &v, th->s_n);
			else
				rc = bad_kind(x, &v, "an array or null", "samples.weight");
		} else if (json_is(&k, "weightType")) {
			rc = read_weight_type(x, th);
		} else if (json_is(&k, "threadCPUDelta")) {
			rc = read_lcol_n(x, &th->s_cpu, L_E3, "samples.threadCPUDelta", th->s_n);
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
				rc = lcol_fill(x, &th->s_delay, L_MS, what, &v, th->s_n);
			} else if (v.kind != JSON_NULL) {
				rc = bad_kind(x, &v, "an array or null", what);
			}
		} else if (json_is(&k, "length")) {
			rc = read_length(x, "samples.length", &th->s_n);
		} else {
			rc = not_kept(x, "samples.", &k);
		}
		if (rc)
			return rc;
	}
	return rc;
}

/* building, below: a thread may be built as soon as it is read */
static bool can_build_now(const struct fxp *x, const struct thread *th);
static int build_thread(struct fxp *x, uint32_t i);

static int read_thread(struct fxp *x, const struct json_tok *open)
{
	struct json_tok k;
	int rc;
	if (open->kind != JSON_OBJECT)
		return bad_kind(x, open, "an object", "threads[]");
	if (x->nr_threads == x->cap_threads) {
		if ((rc = grow(x, (void **)&x->threads, sizeof(*x->threads), &x->cap_threads,
			       x->nr_threads)))
			return rc;
	}
	struct thread *th = &x->threads[x->nr_threads++];
	memset(th, 0, sizeof(*th));
	tables_init(&th->t);
	th->pid = th->tid = PV_ID_NONE;
	th->reg_ns = th->unreg_ns = PV_TIME_NONE;
	th->s_n = th->m_n = -1;
	th->wtype = W_SAMPLES;
	th->s_base = th->s_stack.base = th->s_time.base = x->tail_end;
	th->s_stack.in_builder = th->s_time.in_builder = true;
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		if (read_table_key(x, &th->t, &k, &rc))
			;
		else if (json_is(&k, "nativeSymbols"))
			rc = not_kept(x, "", &k);
		else if (json_is(&k, "name"))
			rc = read_str(x, "threads[].name", &th->name);
		else if (json_is(&k, "processName"))
			rc = read_str(x, "threads[].processName", &th->process_name);
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
			rc = not_kept(x, "threads[].", &k);
		if (rc)
			return rc;
	}
	if (rc)
		return rc;
	/* the next thread's samples go after this one's, which stay until it is built */
	x->tail_end = th->s_base + (th->s_stack.len > th->s_time.len ? th->s_stack.len
								      : th->s_time.len);
	if (can_build_now(x, th))
		rc = build_thread(x, x->nr_threads - 1);
	return rc;
}

static int read_threads(struct fxp *x)
{
	struct json_tok t;
	int rc = expect_array(x, &t, "threads");
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
static int check_ix(struct fxp *x, const struct ucol *c, uint32_t n, const char *table,
		    const char *name)
{
	if (!c->max_pos || c->max < n)
		return 0;
	struct json_tok t = row_tok(x, c->at, c->max_pos - 1);
	return json_fail(&x->j, t.s, "expected %s index below %u for %s, found %u", table, n,
			 name, c->max);
}

static int check_nonnull(struct fxp *x, const struct ucol *c, const char *name)
{
	if (!c->null_pos)
		return 0;
	struct json_tok t = row_tok(x, c->at, c->null_pos - 1);
	return json_fail(&x->j, t.s, "expected an index for %s, found null or -1", name);
}

/* Row count of a table: its length key, else its main column; every column must match. */
static int table_rows(struct fxp *x, const char *table_at, int64_t length, const struct ucol *main,
		      const char *main_name, uint32_t *n)
{
	*n = 0;
	if (!table_at)
		return 0;
	if (!main->at && length > 0)
		return json_fail(&x->j, table_at, "expected a %s column in this table", main_name);
	*n = main->at ? main->len : 0;
	if (length >= 0 && main->at && (uint64_t)length != main->len)
		return json_fail(&x->j, main->at,
				 "expected %lld values for %s (its length), found %u",
				 (long long)length, main_name, main->len);
	return 0;
}

static int check_len(struct fxp *x, const char *at, uint32_t len, uint32_t n, const char *name)
{
	if (!at || len == n)
		return 0;
	return json_fail(&x->j, at, "expected %u values for %s (one per row), found %u", n, name,
			 len);
}

static pv_module_ix lib_module(struct fxp *x, uint32_t lib)
{
	if (lib >= x->nr_libs)
		return PV_NONE;
	if (!x->lib_module) {
		x->lib_module = pv_malloc((size_t)x->nr_libs * sizeof(*x->lib_module));
		if (!x->lib_module) {
			x->b->status = PV_ENOMEM;
			return PV_NONE;
		}
		for (uint32_t i = 0; i < x->nr_libs; i++)
			x->lib_module[i] = PV_NONE;
	}
	if (x->lib_module[lib] == PV_NONE)
		x->lib_module[lib] =
		    builder_module(x->b, x->lib_name[lib], x->lib_path[lib], PV_MODULE_LIBRARY);
	return x->lib_module[lib];
}

static pv_source_ix source_of(struct fxp *x, uint32_t src)
{
	const struct strs *S = &x->shared.str;
	if (src >= x->src_file.len)
		return PV_NONE;
	if (!x->src_map) {
		x->src_map = pv_malloc((size_t)x->src_file.len * sizeof(*x->src_map));
		if (!x->src_map) {
			x->b->status = PV_ENOMEM;
			return PV_NONE;
		}
		for (uint32_t i = 0; i < x->src_file.len; i++)
			x->src_map[i] = PV_NONE;
	}
	uint32_t f = x->src_file.v[src];
	if (x->src_map[src] == PV_NONE && f != PV_NONE && f < S->len)
		x->src_map[src] = builder_source(x->b, S->ix[f]);
	return x->src_map[src];
}

static enum pv_module_kind resource_kind(uint32_t type)
{
	switch (type) {
	case 1: return PV_MODULE_LIBRARY;
	case 2:
	case 3:
	case 4:
	case 5: return PV_MODULE_RESOURCE;
	default: return PV_MODULE_UNKNOWN;
	}
}

/*
 * Interns one table set into the profile: resources and libs as modules, funcs, frames, then
 * stacks in index order (a prefix always comes before its stack, checked while reading).
 * Leaves T->stack_map and frees the other columns.
 */
static int build_tables(struct fxp *x, struct tables *T, const struct strs *S)
{
	struct pv_builder *b = x->b;
	uint32_t ns, nf, nu, nr;
	int rc;
	uint32_t *res_lib = NULL, *func_lib = NULL;
	pv_module_ix *res_mod = NULL;
	pv_func_ix *func_map = NULL;
	pv_frame_ix *frame_map = NULL;
	uint32_t *eff = NULL;
	if ((rc = table_rows(x, T->stack_at, T->stack_n, &T->stack_frame, "stackTable.frame",
			     &ns)) ||
	    (rc = table_rows(x, T->frame_at, T->frame_n, &T->frame_func, "frameTable.func", &nf)) ||
	    (rc = table_rows(x, T->func_at, T->func_n, &T->func_name, "funcTable.name", &nu)) ||
	    (rc = table_rows(x, T->res_at, T->res_n, &T->res_name, "resourceTable.name", &nr)))
		return rc;
	if (ns && !T->stack_prefix.at)
		return json_fail(&x->j, T->stack_at,
				 "expected a prefix or prefixOffset column in this stackTable");
	if ((rc = check_len(x, T->stack_prefix.at, T->stack_prefix.len, ns, "stackTable.prefix")) ||
	    (rc = check_len(x, T->stack_cat.at, T->stack_cat.len, ns, "stackTable.category")) ||
	    (rc = check_len(x, T->frame_line.at, T->frame_line.len, nf, "frameTable.line")) ||
	    (rc = check_len(x, T->frame_col.at, T->frame_col.len, nf, "frameTable.column")) ||
	    (rc = check_len(x, T->frame_cat.at, T->frame_cat.len, nf, "frameTable.category")) ||
	    (rc = check_len(x, T->frame_sub.at, T->frame_sub.len, nf, "frameTable.subcategory")) ||
	    (rc = check_len(x, T->frame_inl.at, T->frame_inl.len, nf, "frameTable.inlineDepth")) ||
	    (rc = check_len(x, T->frame_lib.at, T->frame_lib.len, nf, "frameTable.lib")) ||
	    (rc = check_len(x, T->frame_addr.at, T->frame_addr.len, nf, "frameTable.address")) ||
	    (rc = check_len(x, T->func_res.at, T->func_res.len, nu, "funcTable.resource")) ||
	    (rc = check_len(x, T->func_src.at, T->func_src.len, nu, "funcTable.source")) ||
	    (rc = check_len(x, T->func_line.at, T->func_line.len, nu, "funcTable.lineNumber")) ||
	    (rc = check_len(x, T->func_col.at, T->func_col.len, nu, "funcTable.columnNumber")) ||
	    (rc = check_len(x, T->res_host.at, T->res_host.len, nr, "resourceTable.host")) ||
	    (rc = check_len(x, T->res_lib.at, T->res_lib.len, nr, "resourceTable.lib")) ||
	    (rc = check_len(x, T->res_type.at, T->res_type.len, nr, "resourceTable.type")))
		return rc;
	if ((rc = check_nonnull(x, &T->stack_frame, "stackTable.frame")) ||
	    (rc = check_nonnull(x, &T->frame_func, "frameTable.func")))
		return rc;
	uint32_t nsrc = T->func_src_is_str ? S->len : x->src_file.len;
	if ((rc = check_ix(x, &T->stack_frame, nf, "a frameTable", "stackTable.frame")) ||
	    (rc = check_ix(x, &T->frame_func, nu, "a funcTable", "frameTable.func")) ||
	    (rc = check_ix(x, &T->frame_cat, x->nr_cat, "a category", "frameTable.category")) ||
	    (rc = check_ix(x, &T->frame_lib, x->nr_libs, "a lib", "frameTable.lib")) ||
	    (rc = check_ix(x, &T->func_name, S->len, "a string", "funcTable.name")) ||
	    (rc = check_ix(x, &T->func_res, nr, "a resourceTable", "funcTable.resource")) ||
	    (rc = check_ix(x, &T->func_src, nsrc, T->func_src_is_str ? "a string" : "a source",
			   T->func_src_is_str ? "funcTable.fileName" : "funcTable.source")) ||
	    (rc = check_ix(x, &T->res_name, S->len, "a string", "resourceTable.name")) ||
	    (rc = check_ix(x, &T->res_host, S->len, "a string", "resourceTable.host")) ||
	    (rc = check_ix(x, &T->res_lib, x->nr_libs, "a lib", "resourceTable.lib")))
		return rc;

	res_mod = pv_malloc((size_t)(nr ? nr : 1) * sizeof(*res_mod));
	res_lib = pv_malloc((size_t)(nr ? nr : 1) * sizeof(*res_lib));
	func_lib = pv_malloc((size_t)(nu ? nu : 1) * sizeof(*func_lib));
	func_map = pv_malloc((size_t)(nu ? nu : 1) * sizeof(*func_map));
	frame_map = pv_malloc((size_t)(nf ? nf : 1) * sizeof(*frame_map));
	T->stack_map = pv_malloc((size_t)(ns ? ns : 1) * sizeof(*T->stack_map));
	if (!res_mod || !res_lib || !func_lib || !func_map || !frame_map || !T->stack_map) {
		rc = oom(x);
		goto out;
	}
	T->nr_stack = ns;

	/* the lib of each resource: its own column (v69 and older) or its frames' (v70) */
	for (uint32_t r = 0; r < nr; r++)
		res_lib[r] = T->res_lib.at ? T->res_lib.v[r] : PV_NONE;
	for (uint32_t f = 0; f < nu; f++)
		func_lib[f] = PV_NONE;
	if (T->frame_lib.at) {
		for (uint32_t i = 0; i < nf; i++) {
			uint32_t lib = T->frame_lib.v[i], fu = T->frame_func.v[i];
			if (lib == PV_NONE)
				continue;
			uint32_t r = T->func_res.at ? T->func_res.v[fu] : PV_NONE;
			if (r != PV_NONE) {
				if (res_lib[r] == PV_NONE)
					res_lib[r] = lib;
			} else if (func_lib[fu] == PV_NONE) {
				func_lib[fu] = lib;
			}
		}
	}
	for (uint32_t r = 0; r < nr; r++) {
		uint32_t lib = res_lib[r], host = T->res_host.at ? T->res_host.v[r] : PV_NONE;
		enum pv_module_kind kind = resource_kind(T->res_type.at ? T->res_type.v[r] : 0);
		pv_str_ix name = T->res_name.v[r] == PV_NONE ? 0 : S->ix[T->res_name.v[r]];
		pv_str_ix path = host == PV_NONE ? 0 : S->ix[host];
		if (lib != PV_NONE) {
			if (x->lib_name[lib])
				name = x->lib_name[lib];
			path = x->lib_path[lib];
		}
		res_mod[r] = builder_module(b, name, path, kind);
	}

	for (uint32_t f = 0; f < nu; f++) {
		uint32_t r = T->func_res.at ? T->func_res.v[f] : PV_NONE;
		uint32_t src = T->func_src.at ? T->func_src.v[f] : PV_NONE;
		uint32_t line = T->func_line.at ? T->func_line.v[f] : PV_NONE;
		uint32_t col = T->func_col.at ? T->func_col.v[f] : PV_NONE;
		uint32_t name = T->func_name.v[f];
		pv_module_ix mod = r != PV_NONE ? res_mod[r] : lib_module(x, func_lib[f]);
		pv_source_ix so = PV_NONE;
		if (src != PV_NONE)
			so = T->func_src_is_str ? builder_source(b, S->ix[src]) : source_of(x, src);
		func_map[f] = builder_func_at(b, name == PV_NONE ? 0 : S->ix[name], mod, so,
					      line == PV_NONE ? 0 : line, col == PV_NONE ? 0 : col);
	}

	for (uint32_t i = 0; i < nf; i++) {
		uint32_t cat = T->frame_cat.at ? T->frame_cat.v[i] : PV_NONE;
		uint32_t sub = T->frame_sub.at ? T->frame_sub.v[i] : PV_NONE;
		uint32_t line = T->frame_line.at ? T->frame_line.v[i] : PV_NONE;
		uint32_t col = T->frame_col.at ? T->frame_col.v[i] : PV_NONE;
		uint32_t inl = T->frame_inl.at ? T->frame_inl.v[i] : PV_NONE;
		int64_t addr = T->frame_addr.at ? T->frame_addr.v[i] : PV_TIME_NONE;
		/* against the profile's category: two of the file's may share a name, hence one row
		 */
		if (cat == PV_NONE || sub == PV_NONE) {
			sub = 0;
		} else if (sub >= b->p->categories.sub_len[x->cat_map[cat]] && sub != 0) {
			x->subcat_clamped++;
			sub = 0;
		}
		struct frame_key key = {
		    .func = func_map[T->frame_func.v[i]],
		    .line = line == PV_NONE ? 0 : line,
		    .column = col == PV_NONE ? 0 : col,
		    .addr = addr == PV_TIME_NONE ? PV_ADDR_NONE : (uint64_t)addr,
		    .inline_depth = inl == PV_NONE     ? 0
				    : inl > UINT16_MAX ? UINT16_MAX
						       : (uint16_t)inl,
		    .category = cat == PV_NONE ? PV_NONE : x->cat_map[cat],
		    .subcategory = (uint16_t)(sub > UINT16_MAX ? 0 : sub),
		};
		frame_map[i] = builder_frame(b, &key);
	}

	builder_stacks_reserve(b, ns);
	/* v52 and older: compare the stack's own category with the one its frames give */
	if (T->stack_cat.at && ns) {
		eff = pv_malloc((size_t)ns * sizeof(*eff));
		if (!eff) {
			rc = oom(x);
			goto out;
		}
	}
	for (uint32_t i = 0; i < ns; i++) {
		uint32_t p = T->stack_prefix.v[i], fr = T->stack_frame.v[i];
		T->stack_map[i] =
		    builder_stack(b, p == PV_NONE ? PV_NONE : T->stack_map[p], frame_map[fr]);
		if (eff) {
			uint32_t c = T->frame_cat.at ? T->frame_cat.v[fr] : PV_NONE;
			if (c == PV_NONE)
				c = p != PV_NONE ? eff[p] : x->default_cat;
			eff[i] = c;
			/* not kept, so an index past the categories only counts as a difference */
			if (T->stack_cat.v[i] != PV_NONE && T->stack_cat.v[i] != c)
				x->stack_cat_differ++;
		}
	}
out:
	pv_free(eff);
	pv_free(res_mod);
	pv_free(res_lib);
	pv_free(func_lib);
	pv_free(func_map);
	pv_free(frame_map);
	tables_free_columns(T);
	return rc;
}

/*
 * Metrics are made on first use, in thread order, so the first thread with samples gives the
 * default metric whether threads are built while reading or at the end.
 */
static pv_metric_ix weight_metric(struct fxp *x, enum wtype w)
{
	static const char *const names[NR_WTYPES] = {"samples", "time", "bytes"};
	static const enum pv_unit units[NR_WTYPES] = {PV_UNIT_COUNT, PV_UNIT_NS, PV_UNIT_BYTES};
	if (x->wmetric[w] == PV_NONE)
		x->wmetric[w] = builder_metric(x->b, builder_cstr(x->b, names[w]), units[w]);
	return x->wmetric[w];
}

static pv_metric_ix cpu_metric(struct fxp *x)
{
	if (x->cpu_metric == PV_NONE) {
		enum pv_unit u = PV_UNIT_OTHER;
		if (x->cpu_unit == CPU_NS || x->cpu_unit == CPU_US)
			u = PV_UNIT_NS;
		else if (x->cpu_unit == CPU_CYCLES)
			u = PV_UNIT_CYCLES;
		x->cpu_metric = builder_metric(x->b, builder_cstr(x->b, "cpu-delta"), u);
	}
	return x->cpu_metric;
}

static int64_t div_round(int64_t v, int64_t d)
{
	return v >= 0 ? (v + d / 2) / d : -((-v + d / 2) / d);
}

/* Sets metric m's weights of rows [first, first + n) to w[] (NULL: all to v). */
static void set_weights(struct fxp *x, pv_metric_ix m, uint32_t first, uint32_t n,
			const int64_t *w, int64_t v)
{
	struct pv_samples *t = &x->b->p->samples;
	if (!t->weight[m]) {
		/* no column yet: every sample weighs 1 until one does not */
		if (!w && v == 1)
			return;
		uint32_t k = 0;
		while (k < n && (w ? w[k] : v) == 1)
			k++;
		if (k == n)
			return;
	}
	int64_t *col = builder_samples_weight(x->b, m);
	if (!col)
		return;
	for (uint32_t k = 0; k < n; k++)
		col[first + k] = w ? w[k] : v;
}

static int build_samples(struct fxp *x, struct thread *th, pv_thread_ix ti, const struct tables *T)
{
	struct pv_builder *b = x->b;
	uint32_t n = th->s_stack.len;
	int rc;
	if (!th->samples_at)
		return 0;
	tail_sync(x, th);
	if (!th->s_stack.at && th->s_n > 0)
		return json_fail(&x->j, th->samples_at, "expected a stack column in these samples");
	if (th->s_n >= 0 && th->s_stack.at && (uint64_t)th->s_n != n)
		return json_fail(&x->j, th->s_stack.at,
				 "expected %lld values for samples.stack (its length), found %u",
				 (long long)th->s_n, n);
	if (n && !th->s_time.at)
		return json_fail(&x->j, th->samples_at,
				 "expected a time or timeDeltas column in these samples");
	if ((rc = check_len(x, th->s_time.at, th->s_time.len, n, "samples.time")) ||
	    (rc = check_len(x, th->s_weight.at, th->s_weight.len, n, "samples.weight")) ||
	    (rc = check_len(x, th->s_cpu.at, th->s_cpu.len, n, "samples.threadCPUDelta")) ||
	    (rc = check_len(x, th->s_delay.at, th->s_delay.len, n,
			    th->s_delay_event ? "samples.eventDelay" : "samples.responsiveness")) ||
	    (rc = check_ix(x, &th->s_stack, T->nr_stack, "a stackTable", "samples.stack")))
		return rc;
	if (n == 0)
		return 0;
	pv_metric_ix wm = weight_metric(x, th->wtype);
	pv_metric_ix cm = th->s_cpu.len ? cpu_metric(x) : PV_NONE;
	if (wm == PV_NONE || (th->s_cpu.len && cm == PV_NONE))
		return b->status ? b->status : oom(x);
	/* the file's stack indices become the profile's, in place */
	uint32_t *sv = th->s_stack.v;
	const pv_stack_ix *map = T->stack_map;
	for (uint32_t i = 0; i < n; i++)
		sv[i] = sv[i] == PV_NONE ? PV_NONE : map[sv[i]];
	uint32_t first = b->p->samples.len;
	builder_samples_commit(b, ti, th->s_base, n);
	if (b->status)
		return b->status;
	/* weights: the thread's type from its column (1 per sample without), the CPU delta, 0
	 * for the other metrics */
	int64_t *wv = th->s_weight.at ? th->s_weight.v : NULL;
	for (uint32_t i = 0; wv && i < n; i++) {
		if (wv[i] == PV_TIME_NONE) { /* no weight: one unit of the type (1 ms for tracing-ms) */
			wv[i] = th->wtype == W_TRACING_MS ? 1000000 : 1;
		} else if (th->wtype != W_TRACING_MS) {
			int64_t r = div_round(wv[i], 1000000);
			x->weight_rounded += r * 1000000 != wv[i];
			wv[i] = r;
		}
	}
	int64_t *dv = th->s_delay.at ? builder_samples_event_delay(b) : NULL;
	if (th->s_delay.at && !dv)
		return b->status;
	if (dv)
		memcpy(dv + first, th->s_delay.v, (size_t)n * sizeof(*dv));
	int64_t *cv = cm != PV_NONE ? th->s_cpu.v : NULL;
	for (uint32_t i = 0; cv && i < n; i++) {
		int64_t c = i > 0 ? cv[i] : 0;
		if (c == PV_TIME_NONE)
			c = 0;
		else if (x->cpu_unit != CPU_US)
			c = div_round(c, 1000);
		cv[i] = c;
	}
	for (pv_metric_ix m = 0; m < b->p->metrics.len; m++) {
		if (m == wm)
			set_weights(x, m, first, n, wv, th->wtype == W_TRACING_MS ? 1000000 : 1);
		else if (m == cm)
			set_weights(x, m, first, n, cv, 0);
		else
			set_weights(x, m, first, n, NULL, 0);
	}
	return b->status;
}

static int build_markers(struct fxp *x, struct thread *th, pv_thread_ix ti, const struct tables *T,
			 const struct strs *S)
{
	uint32_t n = th->m_name.len;
	int rc;
	if (!th->markers_at)
		return 0;
	if (!th->m_name.at && th->m_n > 0)
		return json_fail(&x->j, th->markers_at, "expected a name column in these markers");
	if (th->m_n >= 0 && th->m_name.at && (uint64_t)th->m_n != n)
		return json_fail(&x->j, th->m_name.at,
				 "expected %lld values for markers.name (its length), found %u",
				 (long long)th->m_n, n);
	if ((rc = check_len(x, th->m_start.at, th->m_start.len, n, "markers.startTime")) ||
	    (rc = check_len(x, th->m_end.at, th->m_end.len, n, "markers.endTime")) ||
	    (rc = check_len(x, th->m_phase.at, th->m_phase.len, n, "markers.phase")) ||
	    (rc = check_len(x, th->m_cat.at, th->m_cat.len, n, "markers.category")) ||
	    (rc = check_len(x, th->m_payload.at, th->m_payload.len, n, "markers.data")) ||
	    (rc = check_ix(x, &th->m_name, S->len, "a string", "markers.name")) ||
	    (rc = check_ix(x, &th->m_cat, x->nr_cat, "a category", "markers.category")))
		return rc;
	if (th->m_phase.max_pos && th->m_phase.max > 3)
		return json_fail(&x->j, row_tok(x, th->m_phase.at, th->m_phase.max_pos - 1).s,
				 "expected a marker phase from 0 to 3, found %u", th->m_phase.max);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t name = th->m_name.v[i];
		uint32_t cat = th->m_cat.at ? th->m_cat.v[i] : PV_NONE;
		int64_t start = th->m_start.at ? th->m_start.v[i] : PV_TIME_NONE;
		int64_t end = th->m_end.at ? th->m_end.v[i] : PV_TIME_NONE;
		uint32_t phase = th->m_phase.at ? th->m_phase.v[i] : PV_NONE;
		/* before phases (and for a null one): an end time makes an interval */
		if (phase == PV_NONE)
			phase = end == PV_TIME_NONE ? PV_PHASE_INSTANT : PV_PHASE_INTERVAL;
		/* unused slots may hold anything (stale values in real files): keep only used ones
		 */
		if (phase == PV_PHASE_INSTANT || phase == PV_PHASE_START)
			end = PV_TIME_NONE;
		else if (phase == PV_PHASE_END)
			start = PV_TIME_NONE;
		else if (start != PV_TIME_NONE && end != PV_TIME_NONE && end < start) {
			/* the model wants intervals forward; one bad row should not sink the file
			 */
			end = start;
			x->ends_clamped++;
		}
		struct raw_marker m = {
		    .name = name == PV_NONE ? 0 : S->ix[name],
		    .category = cat == PV_NONE ? PV_NONE : x->cat_map[cat],
		    .phase = (enum pv_marker_phase)phase,
		    .start_ns = start,
		    .end_ns = end,
		    .thread = ti,
		    .payload = th->m_payload.at && th->m_payload.v[i]
				   ? resolve_strings(x, S, th->m_payload.v[i])
				   : 0,
		    .cause_stack = PV_NONE,
		    .cause_time_ns = th->m_payload.at ? th->m_cause_time.v[i] : PV_TIME_NONE,
		};
		/*
		 * A cause stack indexes the table its thread uses: the shared one (v60+), else the
		 * thread's own (the cause's tid names the marker's own thread in those files).
		 */
		uint32_t cs = th->m_payload.at ? th->m_cause.v[i] : PV_NONE;
		if (cs != PV_NONE) {
			if (cs < T->nr_stack)
				m.cause_stack = T->stack_map[cs];
			else
				x->cause_dropped++;
		}
		builder_marker(x->b, &m);
	}
	return 0;
}

static void thread_free(struct thread *th)
{
	tables_free(&th->t);
	ucol_free(&th->s_stack);
	lcol_free(&th->s_time);
	lcol_free(&th->s_weight);
	lcol_free(&th->s_cpu);
	lcol_free(&th->s_delay);
	ucol_free(&th->m_name);
	ucol_free(&th->m_phase);
	ucol_free(&th->m_cat);
	ucol_free(&th->m_payload);
	ucol_free(&th->m_cause);
	lcol_free(&th->m_start);
	lcol_free(&th->m_end);
	lcol_free(&th->m_cause_time);
}

static bool has_tables(const struct tables *T)
{
	return T->stack_at || T->frame_at || T->func_at || T->res_at;
}

/* Once, before the first thread is built: the checks and tables every thread relies on. */
static int prepare(struct fxp *x)
{
	struct pv_builder *b = x->b;
	struct pv_meta *m = &b->p->meta;
	int rc;
	if (x->prepared)
		return 0;
	x->prepared = true;
	if (!x->have_version)
		return pv_error_set(
		    x->err, PV_EFORMAT,
		    "%s: not a Firefox processed profile (no meta.preprocessedProfileVersion)",
		    x->in->name);
	if (x->gecko_version)
		m->format_version = builder_strf(b, "%lld (gecko %lld)", (long long)x->version,
						 (long long)x->gecko_version);
	else
		m->format_version = builder_strf(b, "%lld", (long long)x->version);
	if (x->nr_cat == 0) {
		/* the front-end substitutes a default list; its first entry is enough here */
		if (col_realloc((void **)&x->cat_map, sizeof(*x->cat_map), 16))
			return oom(x);
		x->cat_map[0] =
		    builder_category(b, builder_cstr(b, "Other"), builder_cstr(b, "grey"));
		builder_subcategory(b, x->cat_map[0], builder_cstr(b, "Other"));
		x->nr_cat = 1;
	}
	if (x->default_cat == PV_NONE)
		x->default_cat = 0;
	if (x->sources_at) {
		uint32_t nsrc;
		if ((rc = table_rows(x, x->sources_at, x->sources_n, &x->src_file,
				     "sources.filename", &nsrc)) ||
		    (rc = check_ix(x, &x->src_file, x->shared.str.len, "a string",
				   "sources.filename")))
			return rc;
	}
	if (!has_tables(&x->shared))
		return 0;
	if ((rc = build_tables(x, &x->shared, &x->shared.str)))
		return rc;
	/* the threads map their stack indices through shared.stack_map from now on */
	builder_stacks_done(b);
	return 0;
}

/* Hands thread i (the next in file order) to the builder and frees its columns. */
static int build_thread(struct fxp *x, uint32_t i)
{
	struct pv_builder *b = x->b;
	struct thread *th = &x->threads[i];
	const struct strs *S = th->t.str.at ? &th->t.str : &x->shared.str;
	struct tables *T = has_tables(&th->t) ? &th->t : &x->shared;
	int rc = prepare(x);
	if (rc)
		return rc;
	if (T == &th->t && (rc = build_tables(x, T, S)))
		return rc;
	pv_thread_ix ti = builder_thread(b, th->name, th->pid, th->tid, th->process_name);
	if (ti != PV_NONE)
		b->p->threads.process_type[ti] = th->process_type;
	if (ti == PV_NONE)
		return b->status ? b->status : oom(x);
	if (th->reg_ns != PV_TIME_NONE && th->unreg_ns != PV_TIME_NONE &&
	    th->unreg_ns < th->reg_ns) {
		th->unreg_ns = th->reg_ns;
		x->lifetimes_clamped++;
	}
	b->p->threads.start_ns[ti] = th->reg_ns;
	b->p->threads.end_ns[ti] = th->unreg_ns;
	if ((rc = build_samples(x, th, ti, T)) || (rc = build_markers(x, th, ti, T, S)))
		return rc;
	thread_free(th);
	x->nr_built++;
	return b->status;
}

/* Whether the thread just read can be built now: all it refers to was read before it. */
static bool can_build_now(const struct fxp *x, const struct thread *th)
{
	if (x->nr_built + 1 != x->nr_threads || !x->have_version || !x->libs_done)
		return false;
	if (x->shared_done)
		return true;
	/* an older file: the thread holds all its tables and strings */
	return has_tables(&th->t) && th->t.str.at &&
	       (th->t.func_src_is_str || !th->t.func_src.max_pos);
}

static int build(struct fxp *x)
{
	struct pv_builder *b = x->b;
	int rc = prepare(x);
	for (uint32_t i = x->nr_built; !rc && i < x->nr_threads; i++)
		rc = build_thread(x, i);
	if (rc)
		return rc;
	if (b->p->metrics.len == 0)
		weight_metric(x, W_SAMPLES);
	b->p->meta.default_metric = 0;
	if (x->subcat_clamped)
		builder_lossy(b, x->subcat_clamped,
			      "frame subcategories out of their category's range, set to 0");
	if (x->stack_cat_differ)
		builder_lossy(b, x->stack_cat_differ,
			      "stackTable category/subcategory columns not kept (stacks whose "
			      "category differs from their frames')");
	if (x->cause_dropped)
		builder_lossy(b, x->cause_dropped, "marker cause stacks out of range, dropped");
	if (x->str_ix_bad)
		builder_lossy(b, x->str_ix_bad,
			      "marker fields of a string format that index no string (kept as "
			      "numbers)");
	if (x->cause_tids)
		builder_lossy(b, x->cause_tids, "marker cause thread ids (tid of a marker's stack)");
	if (x->weight_rounded)
		builder_lossy(b, x->weight_rounded, "fractional sample weights rounded");
	if (x->lifetimes_clamped)
		builder_lossy(b, x->lifetimes_clamped,
			      "threads that unregister before they register: end set to the start");
	if (x->ends_clamped)
		builder_lossy(b, x->ends_clamped,
			      "interval markers that end before they start: end set to the start");
	return 0;
}

/* ---- the importer ---- */

static int read_top(struct fxp *x)
{
	struct json_tok t, k;
	int rc = json_next(&x->j, &t);
	if (rc)
		return rc;
	if (t.kind != JSON_OBJECT)
		return json_fail_at(&x->j, &t,
				    "expected an object (a Firefox processed profile), found %s",
				    json_kind_name(t.kind));
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		if (json_is(&k, "meta"))
			rc = read_meta(x);
		else if (json_is(&k, "libs"))
			rc = read_libs(x);
		else if (json_is(&k, "shared"))
			rc = read_shared(x);
		else if (json_is(&k, "threads"))
			rc = read_threads(x);
		else
			rc = not_kept(x, "", &k);
		if (rc)
			return rc;
	}
	if (rc)
		return rc;
	if ((rc = json_next(&x->j, &t)))
		return rc;
	return 0;
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
	tables_init(&x->shared);
	json_init(&x->j, in, err);
	int rc = read_top(x);
	if (!rc)
		rc = build(x);
	if (!rc && b->status)
		rc = b->status;
	json_release(&x->j);
	for (uint32_t i = 0; i < x->nr_threads; i++)
		thread_free(&x->threads[i]);
	pv_free(x->threads);
	tables_free(&x->shared);
	ucol_free(&x->src_file);
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

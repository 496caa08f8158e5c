/*
 * firefox_processed_columns.c - the column tables of a Firefox processed profile (stackTable,
 * frameTable, funcTable, resourceTable, a thread's samples and markers), each column into a
 * temporary array as it comes (firefox_processed.c tells the format).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sbuf.h"
#include "base/vec.h"
#include "import/firefox/firefox.h"
#include "import/firefox/firefox_processed.h"
#include "import/importer.h"
#include "import/json.h"

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
		return fxp_bad_kind(
		    x, &t, kind == U_PREFIX_OFFSET ? "an integer" : "an integer or null", name);
	}
	if (kind == U_PREFIX_OFFSET) {
		if (n < 0 || n > i)
			return json_fail_at(
			    j, &t, "expected a prefixOffset from 0 to %u for stack %u, found %.*s",
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
		return json_fail_at(j, &t, "expected an index or null for %s, found %.*s", name,
				    (int)t.len, t.s);
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
				t = fxp_row_tok(x, c->at, i0 + k);
				return json_fail_at(
				    &x->j, &t,
				    "expected the prefix of stack %u to be an earlier "
				    "stack or null, found %.*s",
				    i0 + k, (int)t.len, t.s);
			}
		}
	} else if (kind == U_PREFIX_OFFSET) {
		for (uint32_t k = 0; k < n; k++) {
			uint32_t i = i0 + k;
			if (v[k] > i) {
				t = fxp_row_tok(x, c->at, i);
				return json_fail_at(
				    &x->j, &t,
				    "expected a prefixOffset from 0 to %u for stack %u, found %.*s",
				    i, i, (int)t.len, t.s);
			}
			v[k] = v[k] == 0 ? PV_NONE : i - v[k];
		}
	}
	fxp_ucol_track(c, i0, n);
	c->len += n;
	return 0;
}

/* Fills c from the array whose '[' was just read, plain numbers by the tokenizer's fast path. */
static int ucol_fill(struct fxp *x, struct ucol *c, enum ukind kind, const char *name,
		     int64_t stated)
{
	int rc;
	for (;;) {
		if (c->len == c->cap && (rc = fxp_ucol_room(x, c, stated)))
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

int fxp_read_ucol_n(struct fxp *x, struct ucol *c, enum ukind kind, const char *name,
		    int64_t stated)
{
	struct json_tok t;
	int rc = fxp_expect_array(x, &t, name);
	if (rc)
		return rc;
	fxp_ucol_free(c);
	c->at = t.s;
	return ucol_fill(x, c, kind, name, stated);
}

int fxp_read_ucol(struct fxp *x, struct ucol *c, enum ukind kind, const char *name)
{
	return fxp_read_ucol_n(x, c, kind, name, -1);
}

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
		return fxp_bad_kind(x, &t,
				    kind == L_MS || kind == L_MS_DELTAS
					? "a time in milliseconds or null"
					: "a number or null",
				    name);
	} else if (kind == L_ADDR) {
		if (!small_int(&t, &v) && (rc = json_i64(j, &t, &v)))
			return rc;
		if (v == -1)
			v = PV_TIME_NONE;
		else if (v < 0)
			return json_fail_at(j, &t, "expected an address or -1 for %s, found %.*s",
					    name, (int)t.len, t.s);
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
int fxp_lcol_fill(struct fxp *x, struct lcol *c, enum lkind kind, const char *name,
		  const struct json_tok *open, int64_t stated)
{
	int rc;
	int64_t acc = 0;
	int pow10 = kind == L_E3 ? 3 : kind == L_ADDR ? 0 : 6;
	fxp_lcol_free(c);
	c->at = open->s;
	for (;;) {
		if (c->len == c->cap && (rc = fxp_lcol_room(x, c, stated)))
			return rc;
		uint32_t room = c->cap - c->len;
		enum json_run stop;
		int64_t *v = c->v + c->len;
		uint32_t n =
		    (uint32_t)json_run_i64(&x->j, pow10, v, room < RUN_CHUNK ? room : RUN_CHUNK,
					   true, PV_TIME_NONE, &stop);
		if (kind == L_ADDR) {
			for (uint32_t k = 0; k < n; k++) {
				if (v[k] == -1) {
					v[k] = PV_TIME_NONE;
				} else if (v[k] < 0 && v[k] != PV_TIME_NONE) {
					struct json_tok t = fxp_row_tok(x, c->at, c->len + k);
					return json_fail_at(
					    &x->j, &t,
					    "expected an address or -1 for %s, found %.*s", name,
					    (int)t.len, t.s);
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

int fxp_read_lcol_n(struct fxp *x, struct lcol *c, enum lkind kind, const char *name,
		    int64_t stated)
{
	struct json_tok t;
	int rc = fxp_expect_array(x, &t, name);
	return rc ? rc : fxp_lcol_fill(x, c, kind, name, &t, stated);
}

int fxp_read_lcol(struct fxp *x, struct lcol *c, enum lkind kind, const char *name)
{
	return fxp_read_lcol_n(x, c, kind, name, -1);
}

static int read_strs(struct fxp *x, struct strs *s, const char *name)
{
	struct json_tok t;
	int rc = fxp_expect_array(x, &t, name);
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
			return fxp_bad_kind(x, &t, "a string", name);
		if ((rc = json_str(&x->j, &t, &p, &n)))
			return rc;
		if (s->len == s->cap &&
		    (rc = fxp_grow(x, (void **)&s->ix, sizeof(*s->ix), &s->cap, s->len)))
			return rc;
		s->ix[s->len++] = builder_str(x->b, p, n);
	}
}

#define TCOL(key, kind, field, label)                            \
	{                                                        \
		key, kind, offsetof(struct tables, field), label \
	}

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
int fxp_read_table(struct fxp *x, const char *name, const struct colspec *spec, void *base,
		   const char **at, int64_t *len, const char *lossy, bool *func_src_is_str)
{
	struct json_tok t, k;
	int rc = fxp_expect_object(x, &t, name);
	if (rc)
		return rc;
	*at = t.s;
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		const struct colspec *c = spec;
		while (c->key && !json_is(&k, c->key))
			c++;
		if (!c->key) {
			rc = fxp_not_kept(x, lossy, &k);
		} else {
			void *col = (char *)base + c->off;
			switch (c->kind) {
			case C_INDEX:
			case C_SOURCE:
			case C_FILENAME:
				rc = fxp_read_ucol_n(x, col, U_INDEX, c->label, *len);
				if (c->kind != C_INDEX)
					*func_src_is_str = c->kind == C_FILENAME;
				break;
			case C_PREFIX:
				rc = fxp_read_ucol_n(x, col, U_PREFIX, c->label, *len);
				break;
			case C_PREFIX_OFFSET:
				rc = fxp_read_ucol_n(x, col, U_PREFIX_OFFSET, c->label, *len);
				break;
			case C_ADDR: rc = fxp_read_lcol_n(x, col, L_ADDR, c->label, *len); break;
			case C_LENGTH: rc = fxp_read_length(x, c->label, col); break;
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
	return fxp_read_table(x, "stackTable", stack_cols, T, &T->stack_at, &T->stack_n,
			      "stackTable.", &T->func_src_is_str);
}

static int read_frame_table(struct fxp *x, struct tables *T)
{
	return fxp_read_table(x, "frameTable", frame_cols, T, &T->frame_at, &T->frame_n,
			      "frameTable.", &T->func_src_is_str);
}

static int read_func_table(struct fxp *x, struct tables *T)
{
	return fxp_read_table(x, "funcTable", func_cols, T, &T->func_at, &T->func_n, "funcTable.",
			      &T->func_src_is_str);
}

static int read_resource_table(struct fxp *x, struct tables *T)
{
	return fxp_read_table(x, "resourceTable", resource_cols, T, &T->res_at, &T->res_n,
			      "resourceTable.", &T->func_src_is_str);
}

/* A key that names one of the tables (shared or per thread); *rc is set when it did. */
bool fxp_read_table_key(struct fxp *x, struct tables *T, const struct json_tok *k, int *rc)
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

void fxp_tables_free_columns(struct tables *T)
{
	fxp_ucol_free(&T->stack_frame);
	fxp_ucol_free(&T->stack_prefix);
	fxp_ucol_free(&T->stack_cat);
	fxp_ucol_free(&T->frame_func);
	fxp_ucol_free(&T->frame_line);
	fxp_ucol_free(&T->frame_col);
	fxp_ucol_free(&T->frame_cat);
	fxp_ucol_free(&T->frame_sub);
	fxp_ucol_free(&T->frame_inl);
	fxp_ucol_free(&T->frame_lib);
	fxp_lcol_free(&T->frame_addr);
	fxp_ucol_free(&T->func_name);
	fxp_ucol_free(&T->func_res);
	fxp_ucol_free(&T->func_src);
	fxp_ucol_free(&T->func_line);
	fxp_ucol_free(&T->func_col);
	fxp_ucol_free(&T->res_name);
	fxp_ucol_free(&T->res_host);
	fxp_ucol_free(&T->res_lib);
	fxp_ucol_free(&T->res_type);
}

void fxp_tables_free(struct tables *T)
{
	fxp_tables_free_columns(T);
	pv_free(T->str.ix);
	pv_free(T->stack_map);
	T->str.ix = NULL;
	T->stack_map = NULL;
}

void fxp_tables_init(struct tables *T)
{
	memset(T, 0, sizeof(*T));
	T->stack_n = T->frame_n = T->func_n = T->res_n = -1;
}

/* ---- meta, libs, shared ---- */

int fxp_read_category(struct fxp *x, const struct json_tok *open)
{
	struct json_tok t, k;
	pv_str_ix name = 0, color = 0;
	pv_str_ix sub[256];
	uint32_t nsub = 0, extra = 0;
	int rc;
	if (open->kind != JSON_OBJECT)
		return fxp_bad_kind(x, open, "an object", "meta.categories[]");
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		if (json_is(&k, "name")) {
			rc = fxp_read_str(x, "meta.categories[].name", &name);
		} else if (json_is(&k, "color")) {
			rc = fxp_read_str(x, "meta.categories[].color", &color);
		} else if (json_is(&k, "subcategories")) {
			if ((rc = fxp_expect_array(x, &t, "meta.categories[].subcategories")))
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
					return fxp_bad_kind(x, &t, "a string",
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
			return fxp_oom(x);
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

/*
 * firefox_gecko_common.c - what the parts of the Gecko importer share (firefox_gecko.h): errors,
 * token and cell readers, the {schema, data} tables, and the sections read before the threads
 * (categories, meta, libs). It calls no other file of the importer.
 */
#include "base/alloc.h"
#include "base/sbuf.h"
#include "base/sort.h"
#include "base/text.h"
#include "base/vec.h"
#include "import/firefox/firefox.h"
#include "import/firefox/firefox_gecko.h"
#include "import/importer.h"
#include "import/json.h"
#include "import/script_url.h"
#include "import/symbols.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gk_oom(struct gk *g)
{
	return pv_error_set(g->err, PV_ENOMEM, "%s: out of memory", g->in->name);
}

int gk_push_row(struct gk *g, struct vec *v, const void *row, size_t n)
{
	void *e = vec_push(v, n);
	if (!e)
		return gk_oom(g);
	memcpy(e, row, n);
	return 0;
}

/* ---- token helpers ---- */

/* Error at a cell, or at its row when the row has no such cell. */
const struct json_tok *gk_cell_at(const struct json_tok *cell, const struct json_tok *row)
{
	return cell->kind == JSON_EOF ? row : cell;
}

/* An index cell: a non-negative integer, or null (PV_NONE). */
int gk_cell_index(struct json *j, const struct json_tok *t, const struct json_tok *row,
		  uint32_t *out, const char *what)
{
	if (gk_tok_null(t)) {
		*out = PV_NONE;
		return 0;
	}
	if (t->kind != JSON_NUMBER)
		return json_fail_at(j, t, "expected %s, found %s", what, json_kind_name(t->kind));
	int64_t v;
	int rc = json_i64(j, t, &v);
	if (rc)
		return rc;
	if (v < 0 || v >= (int64_t)PV_NONE)
		return json_fail_at(j, gk_cell_at(t, row), "expected %s, found %lld", what,
				    (long long)v);
	*out = (uint32_t)v;
	return 0;
}

/* A time in milliseconds to ns, or null (PV_TIME_NONE). */
int gk_cell_time(struct json *j, const struct json_tok *t, int64_t *out, const char *what)
{
	if (gk_tok_null(t)) {
		*out = PV_TIME_NONE;
		return 0;
	}
	if (t->kind != JSON_NUMBER)
		return json_fail_at(j, t, "expected %s, found %s", what, json_kind_name(t->kind));
	return json_fixed(j, t, 6, out);
}

/* An unsigned 64-bit integer (lib addresses run past INT64_MAX). */
static int tok_u64(struct json *j, const struct json_tok *t, uint64_t *out, const char *what)
{
	if (t->kind != JSON_NUMBER)
		return json_fail_at(j, t, "expected %s, found %s", what, json_kind_name(t->kind));
	uint64_t v = 0;
	size_t i = 0;
	for (; i < t->len && t->s[i] >= '0' && t->s[i] <= '9'; i++) {
		uint64_t d = (uint64_t)(t->s[i] - '0');
		if (v > UINT64_MAX / 10 || (v == UINT64_MAX / 10 && d > UINT64_MAX % 10))
			return json_fail_at(j, t, "expected %s, found a number of 2^64 or more",
					    what);
		v = v * 10 + d;
	}
	if (i != t->len) {
		double d;
		int rc = json_f64(j, t, &d);
		if (rc)
			return rc;
		if (!(d >= 0 && d < 18446744073709551616.0))
			return json_fail_at(j, t, "expected %s, found %.*s", what, (int)t->len,
					    t->s);
		v = (uint64_t)d;
	}
	*out = v;
	return 0;
}

/* A pid or tid: a number, or a string of digits; anything else is unknown. */
int gk_tok_id(struct json *j, const struct json_tok *t, int64_t *out)
{
	*out = PV_ID_NONE;
	if (t->kind == JSON_NUMBER)
		return json_i64(j, t, out);
	if (t->kind != JSON_STRING || t->len == 0 || t->len > 18)
		return 0;
	int64_t v = 0;
	for (size_t i = 0; i < t->len; i++) {
		if (t->s[i] < '0' || t->s[i] > '9')
			return 0;
		v = v * 10 + (t->s[i] - '0');
	}
	*out = v;
	return 0;
}

int gk_tok_str(struct gk *g, struct json *j, const struct json_tok *t, pv_str_ix *out)
{
	return ff_tok_str(g->b, j, t, out);
}

/* A non-negative integer below 2^32 written as plain digits. */
bool gk_tok_small_uint(const struct json_tok *t, uint32_t *out)
{
	if (t->kind != JSON_NUMBER || t->len == 0 || t->len > 9)
		return false;
	uint32_t v = 0;
	for (size_t i = 0; i < t->len; i++) {
		if (t->s[i] < '0' || t->s[i] > '9')
			return false;
		v = v * 10 + (uint32_t)(t->s[i] - '0');
	}
	*out = v;
	return true;
}

/* Counts the elements of an array (or members of an object) and skips it. */
static int count_skip(struct json *j, const struct json_tok *t, uint64_t *n)
{
	*n = 0;
	if (t->kind != JSON_ARRAY && t->kind != JSON_OBJECT)
		return 0;
	for (;;) {
		struct json_tok x;
		int rc = json_next(j, &x);
		if (rc)
			return rc;
		if (x.kind == JSON_END || x.kind == JSON_EOF)
			return 0;
		if (x.kind == JSON_KEY) {
			rc = json_next(j, &x);
			if (rc)
				return rc;
		}
		(*n)++;
		rc = json_skip(j, &x);
		if (rc)
			return rc;
	}
}

/* The longest array among an object's members (DevTools "allocations"), skipping it. */
int gk_count_longest(struct json *j, const struct json_tok *t, uint64_t *n)
{
	*n = 0;
	if (t->kind != JSON_OBJECT)
		return count_skip(j, t, n);
	for (;;) {
		struct json_tok k, v;
		uint64_t m;
		int rc = json_next_member(j, &k, &v);
		if (rc || k.kind != JSON_KEY)
			return rc;
		if ((rc = count_skip(j, &v, &m)))
			return rc;
		if (m > *n)
			*n = m;
	}
}

/* Rows of a {schema, data} table (or of a plain array), skipping it. */
int gk_count_table_rows(struct json *j, const struct json_tok *t, uint64_t *n)
{
	*n = 0;
	if (t->kind != JSON_OBJECT)
		return count_skip(j, t, n);
	for (;;) {
		struct json_tok k, v;
		int rc = json_next_member(j, &k, &v);
		if (rc)
			return rc;
		if (k.kind != JSON_KEY)
			return 0;
		if (json_is(&k, "data") || json_is(&k, "samples") || json_is(&k, "sample_groups")) {
			uint64_t m;
			rc = json_is(&k, "data") ? count_skip(j, &v, &m)
						 : gk_count_table_rows(j, &v, &m);
			*n += m;
		} else {
			rc = json_skip(j, &v);
		}
		if (rc)
			return rc;
	}
}

/* ---- {schema, data} tables ---- */

void gk_table_init(struct table *t, const char *what, const char *const *fields, row_fn row,
		   cell_fn cell, void *ctx)
{
	memset(t, 0, sizeof(*t));
	t->what = what;
	t->fields = fields;
	t->row = row;
	t->cell = cell;
	t->ctx = ctx;
	memset(t->col_field, -1, sizeof(t->col_field));
	memset(t->col_unknown, -1, sizeof(t->col_unknown));
	memset(t->field_col, -1, sizeof(t->field_col));
}

void gk_table_reset(struct table *t)
{
	run_fn run = t->run;
	gk_table_init(t, t->what, t->fields, t->row, t->cell, t->ctx);
	t->run = run;
}

static int read_schema(struct json *j, struct table *t, const struct json_tok *open)
{
	int rc = json_want(j, open, JSON_OBJECT, "a schema (an object of column indexes)");
	if (rc)
		return rc;
	for (;;) {
		struct json_tok k, v;
		if ((rc = json_next_member(j, &k, &v)))
			return rc;
		if (k.kind != JSON_KEY)
			break;
		if (v.kind != JSON_NUMBER)
			return json_fail_at(j, &v, "expected a column index (a number), found %s",
					    json_kind_name(v.kind));
		int64_t c;
		if ((rc = json_i64(j, &v, &c)))
			return rc;
		if (c < 0 || c >= GK_MAX_COLS)
			return json_fail_at(j, &v, "expected a column index below %d, found %lld",
					    GK_MAX_COLS, (long long)c);
		int f = -1;
		for (int i = 0; t->fields[i]; i++)
			if (json_is(&k, t->fields[i]))
				f = i;
		if (f >= 0) {
			t->col_field[c] = (int8_t)f;
			t->field_col[f] = (int8_t)c;
		} else if (t->nr_unknown < GK_MAX_UNKNOWN && t->col_unknown[c] < 0) {
			uint32_t u = t->nr_unknown++;
			size_t n = k.len < sizeof(t->unknown_name[u]) - 1
				       ? k.len
				       : sizeof(t->unknown_name[u]) - 1;
			memcpy(t->unknown_name[u], k.s, n);
			t->unknown_name[u][n] = 0;
			t->unknown_count[u] = 0;
			t->col_unknown[c] = (int8_t)u;
		}
	}
	t->have_schema = true;
	return 0;
}

static int read_rows(struct gk *g, struct json *j, struct table *t, const struct json_tok *open)
{
	if (open->kind != JSON_ARRAY)
		return json_fail_at(j, open, "expected the %s rows (an array), found %s", t->what,
				    json_kind_name(open->kind));
	t->data = open->s;
	t->run_n = 0; /* the schema may have changed */
	struct json_tok cells[16];
	for (;;) {
		struct json_tok r;
		bool took = false;
		int rc = t->run ? t->run(g, j, t, &took) : 0;
		if (rc)
			return rc;
		if (took) {
			t->rows++;
			continue;
		}
		rc = json_next(j, &r);
		if (rc)
			return rc;
		if (r.kind == JSON_END)
			return 0;
		if (r.kind != JSON_ARRAY)
			return json_fail_at(j, &r, "expected a %s row (an array), found %s",
					    t->what, json_kind_name(r.kind));
		for (int f = 0; t->fields[f]; f++)
			cells[f].kind = JSON_EOF;
		for (uint32_t c = 0;; c++) {
			struct json_tok v;
			if ((rc = json_next(j, &v)))
				return rc;
			if (v.kind == JSON_END)
				break;
			int f = c < GK_MAX_COLS ? t->col_field[c] : -1;
			if (f < 0) {
				int u = c < GK_MAX_COLS ? t->col_unknown[c] : -1;
				if (u >= 0 && v.kind != JSON_NULL && v.kind != JSON_FALSE)
					t->unknown_count[u]++;
				rc = json_skip(j, &v);
			} else if (v.kind == JSON_OBJECT || v.kind == JSON_ARRAY) {
				if (!t->cell)
					return json_fail_at(j, &v,
							    "expected a number, a string or null "
							    "in %s column '%s', found %s",
							    t->what, t->fields[f],
							    json_kind_name(v.kind));
				rc = t->cell(g, j, t, f, &v);
			}
			if (rc)
				return rc;
			if (f >= 0)
				cells[f] = v;
		}
		if ((rc = t->row(g, j, t, &r, cells)))
			return rc;
		t->rows++;
	}
}

/* Reads a table whose '{' is open; rows that come before the schema are read again after it. */
int gk_read_table(struct gk *g, struct json *j, struct table *t, const struct json_tok *open)
{
	int rc = json_want(j, open, JSON_OBJECT, "a table (an object with schema and data)");
	if (rc)
		return rc;
	gk_table_reset(t);
	const char *deferred = NULL;
	for (;;) {
		struct json_tok k, v;
		if ((rc = json_next_member(j, &k, &v)))
			return rc;
		if (k.kind != JSON_KEY)
			break;
		if (json_is(&k, "schema")) {
			rc = read_schema(j, t, &v);
		} else if (json_is(&k, "data") && t->have_schema) {
			rc = read_rows(g, j, t, &v);
		} else if (json_is(&k, "data")) {
			if ((rc = json_want(j, &v, JSON_ARRAY, "the rows (an array)")))
				return rc;
			deferred = v.s;
			rc = json_skip(j, &v);
		} else {
			rc = json_skip(j, &v);
		}
		if (rc)
			return rc;
	}
	if (!deferred)
		return 0;
	struct json j2;
	json_init(&j2, g->in, g->err);
	j2.p = deferred;
	j2.forget_mark = deferred;
	struct json_tok v, first;
	rc = json_next(&j2, &v);
	if (!rc && !t->have_schema) {
		/* rows without a schema cannot be read; no rows need none */
		rc = json_next(&j2, &first);
		if (!rc && first.kind != JSON_END)
			rc =
			    json_fail_at(&j2, &v, "expected a \"schema\" for the %s rows", t->what);
	} else if (!rc) {
		rc = read_rows(g, &j2, t, &v);
	}
	json_release(&j2);
	return rc;
}

int gk_fail_cell(struct gk *g, const struct table *t, uint32_t row, int field, const char *fmt, ...)
{
	char msg[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!t->data)
		return pv_error_set(g->err, PV_EPARSE, "%s: %s", g->in->name, msg);
	struct json j;
	json_init(&j, g->in, g->err);
	j.p = t->data;
	j.forget_mark = t->data;
	struct json_tok x, r;
	int rc = json_next(&j, &x);
	for (uint32_t i = 0; !rc && i <= row; i++) {
		rc = json_next(&j, &r);
		if (!rc && i < row)
			rc = json_skip(&j, &r);
	}
	int col = field >= 0 ? t->field_col[field] : -1;
	const struct json_tok *pos = &r;
	for (int c = 0; !rc && col >= 0 && c <= col; c++) {
		rc = json_next(&j, &x);
		if (rc || x.kind == JSON_END)
			break;
		if (c == col)
			pos = &x;
		else
			rc = json_skip(&j, &x);
	}
	if (!rc)
		rc = json_fail_at(&j, pos, "%s", msg);
	json_release(&j);
	return rc;
}

/* ---- categories ---- */

struct default_cat {
	const char *name, *color;
};

/* The list Gecko 11 to 15 implied (upgrader 11): old bit-flag categories map into it. */
/* clang-format off */
static const struct default_cat cats_v11[] = {
	{"Idle", "transparent"}, {"Other", "grey"}, {"JavaScript", "yellow"}, {"Layout", "purple"},
	{"Graphics", "green"}, {"DOM", "blue"}, {"GC / CC", "orange"}, {"Network", "lightblue"},
};

/* The default categories the Firefox Profiler makes sure exist (upgrader 16). */
static const struct default_cat cats_default[] = {
	{"Idle", "transparent"}, {"Other", "grey"}, {"Layout", "purple"}, {"JavaScript", "yellow"},
	{"GC / CC", "orange"}, {"Network", "lightblue"}, {"Graphics", "green"}, {"DOM", "blue"},
};
/* clang-format on */

const char *gk_default_color(const char *name)
{
	for (size_t i = 0; i < sizeof(cats_default) / sizeof(cats_default[0]); i++)
		if (strcmp(cats_default[i].name, name) == 0)
			return cats_default[i].color;
	return "grey";
}

/* The profile's subcategory index of name within category c, adding it when it is new. */
static uint32_t subcat_of(struct gk *g, pv_cat_ix c, pv_str_ix name)
{
	const struct pv_profile *p = g->b->p;
	if (c >= p->categories.len)
		return 0;
	for (uint32_t i = 0; i < p->categories.sub_len[c]; i++)
		if (p->subcategories.name[p->categories.sub_first[c] + i] == name)
			return i;
	return builder_subcategory(g->b, c, name);
}

/* Adds one category of a process's list, with its subcategories ("Other" when none). */
static int add_category(struct gk *g, struct gk_proc *pr, pv_str_ix name, pv_str_ix color,
			const pv_str_ix *subs, uint32_t nr_subs)
{
	pv_cat_ix c = builder_category(g->b, name, color);
	pv_str_ix other = builder_cstr(g->b, "Other");
	struct gk_cat *gc = vec_push(&pr->cats, sizeof(*gc));
	if (!gc)
		return gk_oom(g);
	gc->cat = c;
	gc->sub_first = pr->submap.len;
	gc->sub_len = nr_subs ? nr_subs : 1;
	for (uint32_t i = 0; i < gc->sub_len; i++) {
		uint32_t *m = vec_push(&pr->submap, sizeof(*m));
		if (!m)
			return gk_oom(g);
		*m = subcat_of(g, c, nr_subs ? subs[i] : other);
	}
	return 0;
}

static int default_categories(struct gk *g, struct gk_proc *pr)
{
	const struct default_cat *d = pr->version < 11 ? cats_v11 : cats_default;
	for (size_t i = 0; i < 8; i++) {
		int rc = add_category(g, pr, builder_cstr(g->b, d[i].name),
				      builder_cstr(g->b, d[i].color), NULL, 0);
		if (rc)
			return rc;
	}
	return 0;
}

static int parse_categories(struct gk *g, struct json *j, struct gk_proc *pr,
			    const struct json_tok *open)
{
	int rc = json_want(j, open, JSON_ARRAY, "meta.categories (an array)");
	if (rc)
		return rc;
	struct vec subs = {0};
	for (;;) {
		struct json_tok o, k, v;
		if ((rc = json_next(j, &o)))
			break;
		if (o.kind == JSON_END)
			break;
		if ((rc = json_want(j, &o, JSON_OBJECT, "a category (an object)")))
			break;
		pv_str_ix name = 0, color = 0;
		subs.len = 0;
		for (;;) {
			if ((rc = json_next_member(j, &k, &v)) || k.kind != JSON_KEY)
				break;
			if (json_is(&k, "name") && v.kind == JSON_STRING) {
				rc = gk_tok_str(g, j, &v, &name);
			} else if (json_is(&k, "color") && v.kind == JSON_STRING) {
				rc = gk_tok_str(g, j, &v, &color);
			} else if (json_is(&k, "subcategories") && v.kind == JSON_ARRAY) {
				for (;;) {
					struct json_tok s;
					if ((rc = json_next(j, &s)) || s.kind == JSON_END)
						break;
					if ((rc = json_want(j, &s, JSON_STRING,
							    "a subcategory name (a string)")))
						break;
					pv_str_ix *e = vec_push(&subs, sizeof(*e));
					if (!e) {
						rc = gk_oom(g);
						break;
					}
					if ((rc = gk_tok_str(g, j, &s, e)))
						break;
				}
			} else {
				rc = json_skip(j, &v);
			}
			if (rc)
				break;
		}
		if (rc || (rc = add_category(g, pr, name, color, VEC(subs, pv_str_ix), subs.len)))
			break;
	}
	vec_free(&subs);
	return rc;
}

/* ---- meta ---- */

static const char *const ext_fields[] = {"id", "name", "baseURL", NULL};

static int ext_row_cb(struct gk *g, struct json *j, struct table *t, const struct json_tok *row,
		      const struct json_tok *cells)
{
	(void)t;
	(void)row;
	pv_str_ix id = 0, name = 0;
	if (cells[0].kind == JSON_STRING && gk_tok_str(g, j, &cells[0], &id))
		return j->failed;
	if (cells[1].kind == JSON_STRING && gk_tok_str(g, j, &cells[1], &name))
		return j->failed;
	if (cells[2].kind != JSON_STRING)
		return 0;
	const char *s;
	size_t n;
	if (json_str(j, &cells[2], &s, &n))
		return j->failed;
	char o[512];
	size_t on = script_url_origin(s, n, o, sizeof(o));
	if (!on)
		return 0;
	struct gk_ext *e = vec_push(&g->exts, sizeof(*e));
	if (!e)
		return gk_oom(g);
	e->origin = builder_str(g->b, o, on);
	/* the resource name the Firefox Profiler gives an add-on */
	sbuf_reset(&g->out);
	const char *nm = pv_str(g->b->p, name);
	if (sbuf_put(&g->out, "Extension ", 10) || sbuf_json_string(&g->out, nm, strlen(nm)) ||
	    sbuf_put(&g->out, " (ID: ", 6) ||
	    sbuf_put(&g->out, pv_str(g->b->p, id), strlen(pv_str(g->b->p, id))) ||
	    sbuf_put(&g->out, ")", 1))
		return gk_oom(g);
	e->name = builder_str(g->b, g->out.buf, g->out.len);
	return 0;
}

static bool schema_seen(struct gk *g, pv_str_ix name)
{
	for (uint32_t i = 0; i < g->schemas.len; i++)
		if (VEC(g->schemas, pv_str_ix)[i] == name)
			return true;
	return false;
}

/*
 * meta.markerSchema of the root and of each sub-process: the union by name (the first schema
 * of a name wins, as the Firefox Profiler merges them) kept as compact JSON text in
 * g->schema_json for meta.marker_schema, in the shape the file wrote (the marker module reads
 * old "data" schemas too). Which payload keys hold string-table indexes is noted on the way.
 */
static int parse_marker_schemas(struct gk *g, struct json *j, const struct json_tok *open)
{
	if (open->kind != JSON_ARRAY)
		return json_skip(j, open);
	struct vec keys = {0};
	int rc = 0;
	for (;;) {
		struct json_tok o;
		if ((rc = json_next(j, &o)) || o.kind == JSON_END)
			break;
		if (o.kind != JSON_OBJECT) {
			if ((rc = json_skip(j, &o)))
				break;
			continue;
		}
		/* captured after the ones kept so far; dropped again when its name is taken */
		size_t at = g->schema_json.len;
		if (sbuf_put(&g->schema_json, at ? "," : "[", 1)) {
			rc = gk_oom(g);
			break;
		}
		size_t from = g->schema_json.len;
		if ((rc = json_capture(j, &o, &g->schema_json)))
			break;
		pv_str_ix name;
		if ((rc = ff_schema_string_keys(g->b, g->in->name, g->schema_json.buf + from,
						g->schema_json.len - from, g->err, &name, &keys)))
			break;
		if (!name || schema_seen(g, name)) {
			sbuf_setlen(&g->schema_json, at);
			continue;
		}
		pv_str_ix *e = vec_push(&g->schemas, sizeof(*e));
		if (!e) {
			rc = gk_oom(g);
			break;
		}
		*e = name;
		for (uint32_t i = 0; i < keys.len; i++) {
			struct gk_strfield *sf = vec_push(&g->strfields, sizeof(*sf));
			if (!sf) {
				rc = gk_oom(g);
				break;
			}
			sf->type = name;
			sf->key = VEC(keys, pv_str_ix)[i];
		}
		if (rc)
			break;
	}
	vec_free(&keys);
	return rc;
}

/* meta.sampleUnits.threadCPUDelta: "ns", "µs" (raw or escaped) or "variable CPU cycles" */
static int cpu_unit_of(const struct json_tok *t)
{
	if (json_is(t, "ns"))
		return CPU_NS;
	if (json_is(t, "\xc2\xb5s") || json_is(t, "\\u00b5s") || json_is(t, "\\u00B5s"))
		return CPU_US;
	if (json_is(t, "variable CPU cycles"))
		return CPU_CYCLES;
	return CPU_UNKNOWN;
}

int gk_parse_meta(struct gk *g, struct json *j, struct gk_proc *pr, const struct json_tok *open)
{
	int rc = json_want(j, open, JSON_OBJECT, "\"meta\" (an object)");
	if (rc)
		return rc;
	int64_t version = -1, interval = 0;
	pv_str_ix product = 0;
	bool have_cats = false;
	for (;;) {
		struct json_tok k, v;
		if ((rc = json_next_member(j, &k, &v)))
			return rc;
		if (k.kind != JSON_KEY)
			break;
		if (json_is(&k, "version")) {
			if (v.kind != JSON_NUMBER)
				return json_fail_at(j, &v,
						    "expected meta.version (a number), found %s",
						    json_kind_name(v.kind));
			rc = json_i64(j, &v, &version);
		} else if (json_is(&k, "startTime") && v.kind == JSON_NUMBER) {
			rc = json_fixed(j, &v, 6, &pr->start_ns);
			pr->have_start = true;
		} else if (json_is(&k, "interval") && v.kind == JSON_NUMBER) {
			rc = json_fixed(j, &v, 6, &interval);
		} else if (json_is(&k, "product") && v.kind == JSON_STRING) {
			rc = gk_tok_str(g, j, &v, &product);
		} else if (json_is(&k, "categories") && v.kind != JSON_NULL) {
			rc = parse_categories(g, j, pr, &v);
			have_cats = true;
		} else if (json_is(&k, "markerSchema")) {
			rc = parse_marker_schemas(g, j, &v);
		} else if (json_is(&k, "preprocessedProfileVersion")) {
			return pv_error_set(
			    g->err, PV_EFORMAT,
			    "%s: a processed Firefox profile (meta.preprocessedProfileVersion), "
			    "not a Gecko one: read it as firefox-processed",
			    g->in->name);
		} else if (json_is(&k, "sampleUnits") && pr->root && v.kind == JSON_OBJECT) {
			for (;;) {
				struct json_tok uk, uv;
				if ((rc = json_next_member(j, &uk, &uv)) || uk.kind != JSON_KEY)
					break;
				if (json_is(&uk, "threadCPUDelta") && uv.kind == JSON_STRING)
					g->cpu_unit = cpu_unit_of(&uv);
				else if ((rc = json_skip(j, &uv)))
					break;
			}
		} else if (json_is(&k, "extensions") && pr->root && v.kind == JSON_OBJECT) {
			struct table t;
			gk_table_init(&t, "meta.extensions", ext_fields, ext_row_cb, NULL, NULL);
			rc = gk_read_table(g, j, &t, &v);
		} else {
			rc = json_skip(j, &v);
		}
		if (rc)
			return rc;
	}
	if (!pr->root) {
		/* upstream upgrades the whole tree from the root's version (gecko-2.json's
		 * sub-process says 5 under a root of 13) */
		version = g->root_version;
	} else if (version < 0) {
		return pv_error_set(
		    g->err, PV_EFORMAT,
		    "%s: not a Gecko profile profview reads: meta has no \"version\"", g->in->name);
	}
	if (version < GK_MIN_VERSION || version > GK_MAX_VERSION)
		return pv_error_set(g->err, PV_EFORMAT,
				    "%s: Gecko profile version %lld is not supported (profview "
				    "reads versions %d to %d)",
				    g->in->name, (long long)version, GK_MIN_VERSION,
				    GK_MAX_VERSION);
	pr->version = (int)version;
	pr->have_meta = true;
	if (!have_cats && (rc = default_categories(g, pr)))
		return rc;
	if (pr->root) {
		struct pv_meta *m = &g->b->p->meta;
		m->format_version = builder_strf(g->b, "%d", pr->version);
		m->product = product;
		m->interval_ns = interval > 0 ? interval : 0;
		m->start_unix_ns = pr->have_start ? pr->start_ns : 0;
		g->have_root = true;
		g->root_version = pr->version;
		g->root_start_ns = pr->start_ns;
		g->have_root_start = pr->have_start;
	} else if (pr->have_start && g->have_root_start) {
		pr->delta_ns = pr->start_ns - g->root_start_ns;
	} else {
		builder_lossy(g->b, 1, "sub-processes without meta.startTime (times not aligned)");
	}
	return 0;
}

/* ---- libs ---- */

static int lib_cmp(const void *a, const void *b)
{
	const struct gk_lib *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

int gk_parse_libs(struct gk *g, struct json *j, struct gk_proc *pr, const struct json_tok *open)
{
	int rc = json_want(j, open, JSON_ARRAY, "\"libs\" (an array)");
	if (rc)
		return rc;
	pr->libs.len = 0;
	for (;;) {
		struct json_tok o, k, v;
		if ((rc = json_next(j, &o)))
			return rc;
		if (o.kind == JSON_END)
			break;
		if ((rc = json_want(j, &o, JSON_OBJECT, "a lib (an object)")))
			return rc;
		struct gk_lib l = {.module = PV_NONE, .bin = UINT32_MAX};
		for (;;) {
			if ((rc = json_next_member(j, &k, &v)))
				return rc;
			if (k.kind != JSON_KEY)
				break;
			if (json_is(&k, "start"))
				rc = tok_u64(j, &v, &l.start, "a lib start address");
			else if (json_is(&k, "end"))
				rc = tok_u64(j, &v, &l.end, "a lib end address");
			else if (json_is(&k, "offset") && v.kind != JSON_NULL)
				rc = tok_u64(j, &v, &l.offset, "a lib offset");
			else if (json_is(&k, "name") && v.kind == JSON_STRING)
				rc = gk_tok_str(g, j, &v, &l.name);
			else if (json_is(&k, "path") && v.kind == JSON_STRING)
				rc = gk_tok_str(g, j, &v, &l.path);
			else if (json_is(&k, "breakpadId") && v.kind == JSON_STRING)
				rc = gk_tok_str(g, j, &v, &l.breakpad);
			else
				rc = json_skip(j, &v);
			if (rc)
				return rc;
		}
		struct gk_lib *e = vec_push(&pr->libs, sizeof(*e));
		if (!e)
			return gk_oom(g);
		*e = l;
	}
	if (pr->libs.len > 1)
		pv_sort(pr->libs.p, pr->libs.len, sizeof(struct gk_lib), lib_cmp);
	pr->have_libs = true;
	return 0;
}

const char *gk_thread_string(const struct gk_thread *th, uint32_t i, size_t *n)
{
	*n = VEC(th->str_len, uint32_t)[i];
	return th->stext.buf + VEC(th->str_off, uint64_t)[i];
}

/*
 * firefox_gecko.c - the Firefox Profiler's raw "Gecko" format, what Firefox itself writes
 * (meta.version 5 to 36), and the old DevTools performance-panel export that wraps one
 * ({"profile": {meta, threads, ...}, "label": ..., "markers": ..., ...}).
 *
 * Shape (upstream src/types/gecko-profile.ts): {meta, libs, threads[], processes[], ...}. A thread
 * holds tables {"schema": {column: index}, "data": [[row...], ...]} (samples, stackTable,
 * frameTable, markers) and a stringTable they index; a frame is a location string that names its
 * function ("0x7fff1234", "name (in lib) + 12", "fn (url:line:col)", a label). processes[] are
 * nested profiles on their own clock (meta.startTime) and are shifted onto the root's.
 *
 * One streaming pass with the pull tokenizer, no DOM. A thread's tables are kept as small integer
 * rows until the thread object ends, because its stringTable comes last; then frames, stacks,
 * samples and markers go to the builder and the row buffers are reused for the next thread. Keys
 * in an unhelpful order (a table's data before its schema, threads before meta or libs) are
 * handled by remembering where the value starts, skipping it, and reading it again from there
 * with a second tokenizer once what it needs is known (the input stays mapped, so re-reading is
 * safe). The same re-read turns an index found bad only at the thread's end into an error at the
 * line and column of the bad cell.
 *
 * Where the Firefox Profiler's own import (src/profile-logic/process-profile.ts) decides what a
 * user sees, it is followed: function names and modules from location strings, lib-relative
 * addresses, old marker rows (Gecko < 20) turned into phases, markers sorted by time per thread,
 * the first sample of a marker's "stack" as its cause. Marker payloads are kept as compact JSON
 * without "stack" (it became the cause columns), with times of sub-processes shifted like the
 * marker's own, and with string-table indexes (unique-string fields) replaced by the string.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sbuf.h"
#include "base/sort.h"
#include "base/text.h"
#include "base/vec.h"
#include "import/firefox.h"
#include "import/importer.h"
#include "import/json.h"
#include "import/script_url.h"

#define GK_MIN_VERSION 5  /* older: libs as a JSON string, processes inside threads */
#define GK_MAX_VERSION 36 /* GECKO_PROFILE_VERSION of the Firefox Profiler we follow */
#define GK_MAX_COLS    64 /* a schema column index past this is refused */
#define GK_MAX_UNKNOWN 8  /* columns we do not keep, reported by name, per table */
#define PROBE_WINDOW   ((size_t)1 << 20)

static bool mem_is(const char *s, size_t n, const char *lit)
{
	size_t l = strlen(lit);
	return n == l && memcmp(s, lit, n) == 0;
}

static bool mem_starts(const char *s, size_t n, const char *lit)
{
	size_t l = strlen(lit);
	return n >= l && memcmp(s, lit, l) == 0;
}

/* ---- importer state ---- */

struct gk;
struct table;

typedef int (*row_fn)(struct gk *g, struct json *j, struct table *t, const struct json_tok *row,
		      const struct json_tok *cells);
typedef int (*cell_fn)(struct gk *g, struct json *j, struct table *t, int field,
		       const struct json_tok *v);

/*
 * One {schema, data} table being read. The row callback gets the scalar cells by field (kind
 * JSON_EOF when the row has no such cell); container cells go to the cell callback as they come.
 */
struct table {
	const char *what;	   /* name in messages: "samples", "frameTable" */
	const char *const *fields; /* known column names, NULL-terminated */
	row_fn row;
	cell_fn cell; /* NULL: a container in a known column is an error */
	void *ctx;
	bool have_schema;
	int8_t col_field[GK_MAX_COLS];	 /* column -> field, -1 when not known */
	int8_t col_unknown[GK_MAX_COLS]; /* column -> slot of unknown[], -1 */
	int8_t field_col[16];		 /* field -> column, -1 when absent */
	uint32_t nr_unknown;
	char unknown_name[GK_MAX_UNKNOWN][48];
	uint64_t unknown_count[GK_MAX_UNKNOWN];
	const char *data; /* the '[' of the rows, for re-reads */
	uint32_t rows;
};

struct gk_lib {
	uint64_t start, end, offset;
	pv_str_ix name, path;
	pv_module_ix module; /* made when a frame first lands in the lib */
};

struct gk_cat {
	pv_cat_ix cat;
	uint32_t sub_first, sub_len; /* into gk_proc.submap */
};

/* One Gecko (sub-)process profile: what its threads need from its meta and libs. */
struct gk_proc {
	bool root, have_meta, have_libs, threads_done;
	int version;
	int64_t start_ns; /* meta.startTime in ns since the epoch */
	bool have_start;
	int64_t delta_ns;  /* added to every time of this process: its clock onto the root's */
	struct vec libs;   /* struct gk_lib, sorted by start */
	struct vec cats;   /* struct gk_cat, by meta.categories index */
	struct vec submap; /* uint32_t: the profile's subcategory index of each */
	const char *deferred_threads, *deferred_processes;
};

struct gk_sample {
	uint32_t stack;
	int64_t time;
	int64_t cpu;   /* threadCPUDelta * 10^3, PV_TIME_NONE when null */
	int64_t delay; /* eventDelay (else responsiveness) in ns, PV_TIME_NONE when null */
};

struct gk_stack {
	uint32_t prefix, frame;
};

struct gk_frame {
	uint32_t loc, line, column, cat, sub;
};

/* One member of a marker payload: key and value text in gk_thread.ptext. */
struct gk_member {
	uint64_t key_off, val_off;
	uint32_t key_len, val_len;
	bool is_time;  /* a number read as a time: ns holds it */
	bool is_index; /* a small non-negative integer: maybe a string index */
	int64_t ns;
	uint32_t index;
};

struct gk_payload {
	bool present;
	uint32_t first, nr;	  /* members */
	pv_str_ix type, category; /* "type" and "category" when strings */
	int interval;		  /* "interval": 1 "start", 2 "end" (Gecko < 20 tracing) */
	int64_t start, end;	  /* numeric "startTime" / "endTime", PV_TIME_NONE otherwise */
	int64_t timestamp;	  /* numeric "timeStamp" (DOMEvent, Gecko < 21) */
	bool has_cause, cause_tid;
	uint32_t cause_stack; /* Gecko stack index of the thread */
	int64_t cause_time;
};

struct gk_marker {
	uint32_t name, cat;
	uint8_t phase;		  /* from the phase column (new-style rows) */
	int64_t start, end, time; /* as read, on the process's clock; PV_TIME_NONE */
	struct gk_payload pl;
	pv_str_ix payload; /* assembled text, once */
	/* what the upgraders of old versions change (upgrade_marker) */
	pv_str_ix name_out, type_out; /* 0: as written */
	bool drop_category, drop_timestamp, latency;
	int64_t latency_ns;
	bool assembled;
};

/* The thread being read; buffers are reused from one thread to the next. */
struct gk_thread {
	struct gk_proc *proc;
	pv_str_ix name, process_name, process_type;
	int64_t pid, tid, reg, unreg;
	struct table t_samples, t_stacks, t_frames, t_markers;
	bool markers_old; /* {name, time, data} rows of Gecko < 20 */
	struct vec samples, stacks, frames, markers, members;
	struct sbuf ptext;	     /* payload members */
	struct sbuf stext;	     /* the stringTable, decoded */
	struct vec str_off, str_len; /* uint64_t, uint32_t */
	struct vec locs, frame_map, stack_map, emits;
	struct gk_payload cur; /* the payload of the marker row being read */
	uint64_t bad_times;
};

struct gk_ext {
	pv_str_ix origin, name;
};

struct gk_strfield {
	pv_str_ix type, key;
};

enum cpu_unit { CPU_UNKNOWN, CPU_NS, CPU_US, CPU_CYCLES };

struct gk {
	struct pv_builder *b;
	struct pv_input *in;
	struct pv_error *err;
	bool have_root;
	int root_version;
	int64_t root_start_ns;
	bool have_root_start;
	struct gk_thread th;
	struct vec exts;      /* struct gk_ext: moz-extension origins -> resource names */
	struct vec strfields; /* struct gk_strfield: payload keys holding string indexes */
	struct vec schemas;   /* pv_str_ix: marker schema names seen */
	struct sbuf schema_json; /* "[" and the schemas kept, comma-separated */
	struct sbuf out;	      /* scratch: a payload being assembled, a name */
	/* threadCPUDelta as a second metric, like the processed importer's "cpu-delta" */
	int cpu_unit; /* enum cpu_unit, from meta.sampleUnits */
	pv_metric_ix cpu_metric;
};

static int oom(struct gk *g)
{
	return pv_error_set(g->err, PV_ENOMEM, "%s: out of memory", g->in->name);
}

/* ---- token helpers ---- */

static bool tok_null(const struct json_tok *t)
{
	return t->kind == JSON_EOF || t->kind == JSON_NULL;
}

/* Error at a cell, or at its row when the row has no such cell. */
static const struct json_tok *at(const struct json_tok *cell, const struct json_tok *row)
{
	return cell->kind == JSON_EOF ? row : cell;
}

/* An index cell: a non-negative integer, or null (PV_NONE). */
static int cell_index(struct json *j, const struct json_tok *t, const struct json_tok *row,
		      uint32_t *out, const char *what)
{
	if (tok_null(t)) {
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
		return json_fail_at(j, at(t, row), "expected %s, found %lld", what, (long long)v);
	*out = (uint32_t)v;
	return 0;
}

/* A time in milliseconds to ns, or null (PV_TIME_NONE). */
static int cell_time(struct json *j, const struct json_tok *t, int64_t *out, const char *what)
{
	if (tok_null(t)) {
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
static int tok_id(struct json *j, const struct json_tok *t, int64_t *out)
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

static int tok_str(struct gk *g, struct json *j, const struct json_tok *t, pv_str_ix *out)
{
	return ff_tok_str(g->b, j, t, out);
}

/* A non-negative integer below 2^32 written as plain digits. */
static bool tok_small_uint(const struct json_tok *t, uint32_t *out)
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
static int count_longest(struct json *j, const struct json_tok *t, uint64_t *n)
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
static int count_table_rows(struct json *j, const struct json_tok *t, uint64_t *n)
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
						 : count_table_rows(j, &v, &m);
			*n += m;
		} else {
			rc = json_skip(j, &v);
		}
		if (rc)
			return rc;
	}
}

/* ---- {schema, data} tables ---- */

static void table_init(struct table *t, const char *what, const char *const *fields, row_fn row,
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

static void table_reset(struct table *t)
{
	table_init(t, t->what, t->fields, t->row, t->cell, t->ctx);
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
	struct json_tok cells[16];
	for (;;) {
		struct json_tok r;
		int rc = json_next(j, &r);
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
static int read_table(struct gk *g, struct json *j, struct table *t, const struct json_tok *open)
{
	int rc = json_want(j, open, JSON_OBJECT, "a table (an object with schema and data)");
	if (rc)
		return rc;
	table_reset(t);
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

/*
 * An error at row `row`, field `field` of a table read earlier: reads the rows again up to that
 * cell so the message has its line and column (or the row's, when the row has no such cell).
 */
static int fail_cell(struct gk *g, const struct table *t, uint32_t row, int field, const char *fmt,
		     ...) __attribute__((format(printf, 5, 6)));
static int fail_cell(struct gk *g, const struct table *t, uint32_t row, int field, const char *fmt,
		     ...)
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

/* Which category a marker of a Gecko < 16 profile gets, from its name or payload type. */
static const char *const marker_cat_keys[][2] = {
	{"DOMEvent", "DOM"}, {"Navigation::DOMComplete", "DOM"},
	{"Navigation::DOMInteractive", "DOM"}, {"Navigation::Start", "DOM"}, {"UserTiming", "DOM"},
	{"CC", "GC / CC"}, {"GCMajor", "GC / CC"}, {"GCMinor", "GC / CC"}, {"GCSlice", "GC / CC"},
	{"Paint", "Graphics"}, {"VsyncTimestamp", "Graphics"}, {"CompositorScreenshot", "Graphics"},
	{"JS allocation", "JavaScript"}, {"Styles", "Layout"},
	{"nsRefreshDriver::Tick waiting for paint", "Layout"}, {"Navigation", "Network"},
	{"Network", "Network"},
};
/* clang-format on */

static const char *default_color(const char *name)
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
		return oom(g);
	gc->cat = c;
	gc->sub_first = pr->submap.len;
	gc->sub_len = nr_subs ? nr_subs : 1;
	for (uint32_t i = 0; i < gc->sub_len; i++) {
		uint32_t *m = vec_push(&pr->submap, sizeof(*m));
		if (!m)
			return oom(g);
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
				rc = tok_str(g, j, &v, &name);
			} else if (json_is(&k, "color") && v.kind == JSON_STRING) {
				rc = tok_str(g, j, &v, &color);
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
						rc = oom(g);
						break;
					}
					if ((rc = tok_str(g, j, &s, e)))
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
	if (cells[0].kind == JSON_STRING && tok_str(g, j, &cells[0], &id))
		return j->failed;
	if (cells[1].kind == JSON_STRING && tok_str(g, j, &cells[1], &name))
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
		return oom(g);
	e->origin = builder_str(g->b, o, on);
	/* the resource name the Firefox Profiler gives an add-on */
	sbuf_reset(&g->out);
	const char *nm = pv_str(g->b->p, name);
	if (sbuf_put(&g->out, "Extension ", 10) || sbuf_json_string(&g->out, nm, strlen(nm)) ||
	    sbuf_put(&g->out, " (ID: ", 6) ||
	    sbuf_put(&g->out, pv_str(g->b->p, id), strlen(pv_str(g->b->p, id))) ||
	    sbuf_put(&g->out, ")", 1))
		return oom(g);
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
			rc = oom(g);
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
			rc = oom(g);
			break;
		}
		*e = name;
		for (uint32_t i = 0; i < keys.len; i++) {
			struct gk_strfield *sf = vec_push(&g->strfields, sizeof(*sf));
			if (!sf) {
				rc = oom(g);
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

static int parse_meta(struct gk *g, struct json *j, struct gk_proc *pr, const struct json_tok *open)
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
			rc = tok_str(g, j, &v, &product);
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
			table_init(&t, "meta.extensions", ext_fields, ext_row_cb, NULL, NULL);
			rc = read_table(g, j, &t, &v);
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

static int parse_libs(struct gk *g, struct json *j, struct gk_proc *pr, const struct json_tok *open)
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
		struct gk_lib l = {.module = PV_NONE};
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
				rc = tok_str(g, j, &v, &l.name);
			else if (json_is(&k, "path") && v.kind == JSON_STRING)
				rc = tok_str(g, j, &v, &l.path);
			else
				rc = json_skip(j, &v);
			if (rc)
				return rc;
		}
		struct gk_lib *e = vec_push(&pr->libs, sizeof(*e));
		if (!e)
			return oom(g);
		*e = l;
	}
	if (pr->libs.len > 1)
		pv_sort(pr->libs.p, pr->libs.len, sizeof(struct gk_lib), lib_cmp);
	pr->have_libs = true;
	return 0;
}

/* The lib whose [start, end) holds addr (binary search, as the Firefox Profiler's). */
static struct gk_lib *find_lib(struct gk_proc *pr, uint64_t addr)
{
	struct gk_lib *l = pr->libs.p;
	uint32_t lo = 0, hi = pr->libs.len;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (addr >= l[mid].end)
			lo = mid + 1;
		else if (addr < l[mid].start)
			hi = mid;
		else
			return &l[mid];
	}
	return NULL;
}

/* ---- location strings -> functions ---- */

struct locinfo {
	pv_func_ix func; /* PV_NONE until resolved */
	uint32_t line, column;
	uint64_t addr;
};

static bool all_digits(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static uint32_t digits_u32(const char *s, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n && v <= UINT32_MAX; i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	return v > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)v;
}

/*
 * "name (in lib) + 123", "name (in lib) (file:line)", "name (in lib)": the Firefox Profiler's
 * three regular expressions, tried in that order; "(.*)" is greedy, so the last " (in " that
 * fits wins, and the lib name runs to the first ')' after it.
 */
static bool parse_native(const char *s, size_t n, size_t *name_len, const char **lib,
			 size_t *lib_len)
{
	for (int form = 0; form < 3; form++) {
		for (size_t p = n; p-- > 0;) {
			if (n - p < 5 || memcmp(s + p, " (in ", 5) != 0)
				continue;
			const char *l = s + p + 5;
			const char *q = memchr(l, ')', n - (p + 5));
			if (!q)
				continue;
			const char *tail = q + 1;
			size_t tn = (size_t)(s + n - tail);
			bool ok;
			if (form == 0) {
				ok = tn >= 4 && memcmp(tail, " + ", 3) == 0 &&
				     all_digits(tail + 3, tn - 3);
			} else if (form == 1) {
				ok = tn >= 4 && tail[0] == ' ' && tail[1] == '(' &&
				     tail[tn - 1] == ')' && memchr(tail + 2, ':', tn - 3);
			} else {
				ok = tn == 0;
			}
			if (ok) {
				*name_len = p;
				*lib = l;
				*lib_len = (size_t)(q - l);
				return true;
			}
		}
	}
	return false;
}

/*
 * The tail "url:line[:col]" of a JS location ending at e (exclusive), with the url starting at
 * url: the shortest url wins (the regular expression's lazy "(.+?)"), so "a:1:2" is url "a",
 * line 1, column 2.
 */
static bool split_js_tail(const char *url, const char *e, size_t *url_len, uint32_t *line,
			  uint32_t *col)
{
	const char *a = e;
	while (a > url && a[-1] >= '0' && a[-1] <= '9')
		a--;
	if (a == e || a - url < 2 || a[-1] != ':')
		return false;
	const char *b = a - 1;
	while (b > url && b[-1] >= '0' && b[-1] <= '9')
		b--;
	if (b < a - 1 && b - url >= 2 && b[-1] == ':') {
		*url_len = (size_t)(b - 1 - url);
		*line = digits_u32(b, (size_t)(a - 1 - b));
		*col = digits_u32(a, (size_t)(e - a));
		return true;
	}
	*url_len = (size_t)(a - 1 - url);
	*line = digits_u32(a, (size_t)(e - a));
	*col = 0;
	return true;
}

/*
 * "func (url:line:col)[source]" or "url:line:col[source]": the Firefox Profiler's two JS regular
 * expressions. Sets the name (may be empty), the url, line and column.
 */
static bool parse_js(const char *s, size_t n, size_t *name_len, const char **url, size_t *url_len,
		     uint32_t *line, uint32_t *col)
{
	size_t m = n;
	/* an optional "[digits]" suffix: the index of the script in the sources table */
	if (m > 2 && s[m - 1] == ']') {
		size_t k = m - 1;
		while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
			k--;
		if (k > 0 && k < m - 1 && s[k - 1] == '[')
			m = k - 1;
	}
	if (m > 0 && s[m - 1] == ')') {
		/* "(.*) \((.+?):L(:C)?\)": the last " (" that leaves a non-empty url */
		for (size_t p = m - 1; p-- > 0;) {
			if (s[p] != ' ' || s[p + 1] != '(')
				continue;
			size_t ul;
			if (split_js_tail(s + p + 2, s + m - 1, &ul, line, col) && ul > 0) {
				*name_len = p;
				*url = s + p + 2;
				*url_len = ul;
				return true;
			}
		}
	}
	size_t ul;
	if (split_js_tail(s, s + m, &ul, line, col) && ul > 0) {
		*name_len = 0;
		*url = s;
		*url_len = ul;
		return true;
	}
	return false;
}

/*
 * The module of a script URL (script_url.h, the rule of every JavaScript format); an add-on's
 * origin is named by the add-on when the profile lists it, as the Firefox Profiler does.
 */
static pv_module_ix url_module(struct gk *g, const char *u, size_t n)
{
	char o[512];
	size_t on = script_url_origin(u, n, o, sizeof(o));
	if (on) {
		pv_str_ix origin = builder_str(g->b, o, on);
		for (uint32_t i = 0; i < g->exts.len; i++)
			if (VEC(g->exts, struct gk_ext)[i].origin == origin)
				return builder_module(g->b, VEC(g->exts, struct gk_ext)[i].name,
						      origin, PV_MODULE_RESOURCE);
	}
	return script_module(g->b, u, n, PV_MODULE_RESOURCE);
}

static void resolve_location(struct gk *g, struct gk_proc *pr, const char *s, size_t n,
			     struct locinfo *li)
{
	struct pv_builder *b = g->b;
	li->line = li->column = 0;
	li->addr = PV_ADDR_NONE;
	/* Gecko < 14 marked JS entry points with this prefix (upgrader 14 drops it) */
	if (pr->version < 14 && mem_starts(s, n, "AutoEntryScript ")) {
		s += 16;
		n -= 16;
	}
	if (mem_starts(s, n, "0x")) {
		/* an unsymbolicated address: its own function, named as written */
		pv_module_ix mod = PV_NONE;
		uint64_t a = 0;
		bool ok = n > 2 && n <= 18;
		for (size_t i = 2; ok && i < n; i++) {
			int d = text_hex_digit(s[i]);
			ok = d >= 0;
			a = a << 4 | (uint64_t)(d & 15);
		}
		if (ok) {
			struct gk_lib *l = find_lib(pr, a);
			li->addr = a;
			if (l) {
				if (l->module == PV_NONE)
					l->module =
					    builder_module(b, l->name, l->path, PV_MODULE_LIBRARY);
				mod = l->module;
				li->addr = a - l->start + l->offset;
			}
		}
		li->func = builder_func(b, builder_str(b, s, n), mod, PV_NONE, 0);
		return;
	}
	size_t name_len, lib_len;
	const char *lib;
	if (parse_native(s, n, &name_len, &lib, &lib_len)) {
		if (mem_starts(s, name_len, "non-virtual thunk to ")) {
			s += 21;
			name_len -= 21;
		}
		pv_module_ix mod =
		    builder_module(b, builder_str(b, lib, lib_len), 0, PV_MODULE_LIBRARY);
		li->func = builder_func(b, builder_str(b, s, name_len), mod, PV_NONE, 0);
		return;
	}
	const char *url;
	size_t url_len;
	uint32_t line, col;
	if (parse_js(s, n, &name_len, &url, &url_len, &line, &col)) {
		/* "a -> b" chains of loaders: the last URL is the script */
		for (size_t i = url_len; i >= 4; i--) {
			if (memcmp(url + i - 4, " -> ", 4) == 0) {
				url_len -= i;
				url += i;
				break;
			}
		}
		pv_str_ix urls = builder_str(b, url, url_len);
		pv_str_ix name;
		if (name_len) {
			name = builder_str(b, s, name_len);
		} else {
			/* the top level of a script, as the Firefox Profiler names it */
			sbuf_reset(&g->out);
			if (sbuf_put(&g->out, "(root scope) ", 13) || sbuf_put(&g->out, url, url_len))
				b->status = PV_ENOMEM;
			name = builder_str(b, g->out.buf, g->out.len);
		}
		/* each location string is a function in the Firefox Profiler: the column counts */
		li->func = builder_func_at(b, name, url_module(g, url, url_len),
					   builder_source(b, urls), line, col);
		li->line = line;
		li->column = col;
		return;
	}
	li->func = builder_func(b, builder_str(b, s, n), PV_NONE, PV_NONE, 0);
}

/* ---- threads ---- */

enum { S_STACK, S_TIME, S_CPU, S_DELAY, S_RESP };
static const char *const sample_fields[] = {"stack",	  "time",	    "threadCPUDelta",
					    "eventDelay", "responsiveness", NULL};
enum { K_PREFIX, K_FRAME };
static const char *const stack_fields[] = {"prefix", "frame", NULL};
enum { F_LOCATION, F_LINE, F_COLUMN, F_CATEGORY, F_SUBCATEGORY };
static const char *const frame_fields[] = {"location", "line",	      "column",
					   "category", "subcategory", NULL};
enum { M_NAME, M_START, M_END, M_PHASE, M_CATEGORY, M_DATA, M_TIME };
static const char *const marker_fields[] = {"name",	"startTime", "endTime", "phase",
					    "category", "data",	     "time",	NULL};

static const char *thread_string(const struct gk_thread *th, uint32_t i, size_t *n)
{
	*n = VEC(th->str_len, uint32_t)[i];
	return th->stext.buf + VEC(th->str_off, uint64_t)[i];
}

static int sample_row(struct gk *g, struct json *j, struct table *t, const struct json_tok *row,
		      const struct json_tok *c)
{
	struct gk_sample s;
	int rc = cell_index(j, &c[S_STACK], row, &s.stack, "a stack index or null");
	if (!rc)
		rc = cell_time(j, &c[S_TIME], &s.time, "a time in milliseconds");
	/* the Firefox Profiler reads eventDelay when the schema has it, else responsiveness */
	if (!rc)
		rc = cell_time(j, &c[t->field_col[S_DELAY] >= 0 ? S_DELAY : S_RESP], &s.delay,
			       "an event delay in milliseconds or null");
	s.cpu = PV_TIME_NONE;
	if (!rc && !tok_null(&c[S_CPU]) && c[S_CPU].kind != JSON_NUMBER)
		rc = json_fail_at(j, &c[S_CPU], "expected a CPU delta (a number) or null, found %s",
				  json_kind_name(c[S_CPU].kind));
	else if (!rc && c[S_CPU].kind == JSON_NUMBER)
		rc = json_fixed(j, &c[S_CPU], 3, &s.cpu);
	if (rc)
		return rc;
	struct gk_sample *e = vec_push(&g->th.samples, sizeof(*e));
	if (!e)
		return oom(g);
	*e = s;
	return 0;
}

static int stack_row(struct gk *g, struct json *j, struct table *t, const struct json_tok *row,
		     const struct json_tok *c)
{
	struct gk_stack s;
	int rc = cell_index(j, &c[K_PREFIX], row, &s.prefix, "a stack prefix or null");
	if (!rc)
		rc = cell_index(j, &c[K_FRAME], row, &s.frame, "a frame index");
	if (rc)
		return rc;
	/* parents come first, so one pass in row order sees a prefix before its children */
	if (s.prefix != PV_NONE && s.prefix >= t->rows)
		return json_fail_at(
		    j, &c[K_PREFIX],
		    "expected a stack prefix below %u (the row's own index) or null, found %u",
		    t->rows, s.prefix);
	if (s.frame == PV_NONE)
		return json_fail_at(j, at(&c[K_FRAME], row), "expected a frame index, found %s",
				    c[K_FRAME].kind == JSON_EOF ? "no cell" : "null");
	struct gk_stack *e = vec_push(&g->th.stacks, sizeof(*e));
	if (!e)
		return oom(g);
	*e = s;
	return 0;
}

static int frame_row(struct gk *g, struct json *j, struct table *t, const struct json_tok *row,
		     const struct json_tok *c)
{
	(void)t;
	struct gk_frame f;
	int rc = cell_index(j, &c[F_LOCATION], row, &f.loc, "a location (a string index)");
	if (!rc)
		rc = cell_index(j, &c[F_LINE], row, &f.line, "a line number or null");
	if (!rc)
		rc = cell_index(j, &c[F_COLUMN], row, &f.column, "a column number or null");
	if (!rc)
		rc = cell_index(j, &c[F_CATEGORY], row, &f.cat, "a category index or null");
	if (!rc)
		rc = cell_index(j, &c[F_SUBCATEGORY], row, &f.sub, "a subcategory index or null");
	if (rc)
		return rc;
	if (f.loc == PV_NONE)
		return json_fail_at(j, at(&c[F_LOCATION], row),
				    "expected a location (a string index), found %s",
				    c[F_LOCATION].kind == JSON_EOF ? "no cell" : "null");
	struct gk_frame *e = vec_push(&g->th.frames, sizeof(*e));
	if (!e)
		return oom(g);
	*e = f;
	return 0;
}

/* ---- marker payloads ---- */

static const char *const sync_fields[] = {"stack", "time", NULL};

struct sync_ctx {
	bool got;
	uint32_t stack;
	int64_t time;
};

static int sync_row(struct gk *g, struct json *j, struct table *t, const struct json_tok *row,
		    const struct json_tok *c)
{
	(void)g;
	struct sync_ctx *s = t->ctx;
	if (s->got)
		return 0;
	s->got = true;
	int rc = cell_index(j, &c[0], row, &s->stack, "a stack index or null");
	if (!rc)
		rc = cell_time(j, &c[1], &s->time, "a time in milliseconds");
	return rc;
}

/*
 * A payload's "stack": a tiny thread ("SyncProfile") whose first sample is the stack (an index
 * into the marker's thread's stackTable) and the time it was taken.
 */
static int parse_sync_stack(struct gk *g, struct json *j, const struct json_tok *open,
			    struct gk_payload *pl)
{
	(void)open; /* its members follow */
	struct sync_ctx s = {.stack = PV_NONE, .time = PV_TIME_NONE};
	struct table t;
	table_init(&t, "marker stack samples", sync_fields, sync_row, NULL, &s);
	bool own_tables = false, tid = false;
	for (;;) {
		struct json_tok k, v;
		int rc = json_next_member(j, &k, &v);
		if (rc)
			return rc;
		if (k.kind != JSON_KEY)
			break;
		if (json_is(&k, "samples"))
			rc = read_table(g, j, &t, &v);
		else if (json_is(&k, "stackTable") || json_is(&k, "frameTable"))
			own_tables = true;
		else if (json_is(&k, "tid") && v.kind != JSON_NULL)
			tid = true;
		if (!rc && !json_is(&k, "samples"))
			rc = json_skip(j, &v);
		if (rc)
			return rc;
	}
	if (own_tables) {
		builder_lossy(g->b, 1, "marker stacks with their own stack tables (no cause kept)");
		return 0;
	}
	if (!s.got) {
		builder_lossy(g->b, 1, "marker stacks without a sample (no cause kept)");
		return 0;
	}
	if (s.stack == PV_NONE)
		return 0;
	pl->has_cause = true;
	pl->cause_tid = tid;
	pl->cause_stack = s.stack;
	pl->cause_time = s.time;
	return 0;
}

static const char *const network_times[] = {
    "domainLookupStart",     "domainLookupEnd",
    "connectStart",	     "tcpConnectEnd",
    "secureConnectionStart", "connectEnd",
    "requestStart",	     "responseStart",
    "responseEnd",	     NULL,
};

static bool is_time_key(const char *k, size_t n, bool network_too)
{
	if (mem_is(k, n, "startTime") || mem_is(k, n, "endTime"))
		return true;
	for (int i = 0; network_too && network_times[i]; i++)
		if (mem_is(k, n, network_times[i]))
			return true;
	return false;
}

/* A payload object: its members are kept as text, to be assembled at the thread's end. */
static int parse_payload(struct gk *g, struct json *j, const struct json_tok *open)
{
	(void)open; /* its members follow */
	struct gk_thread *th = &g->th;
	struct gk_payload *pl = &th->cur;
	pl->present = true;
	pl->first = th->members.len;
	for (;;) {
		struct json_tok k, v;
		int rc = json_next_member(j, &k, &v);
		if (rc)
			return rc;
		if (k.kind != JSON_KEY)
			return 0;
		if (json_is(&k, "stack") && v.kind == JSON_OBJECT) {
			/* becomes the cause columns; dropped from the payload text */
			if ((rc = parse_sync_stack(g, j, &v, pl)))
				return rc;
			continue;
		}
		struct gk_member *m = vec_push(&th->members, sizeof(*m));
		if (!m)
			return oom(g);
		memset(m, 0, sizeof(*m));
		m->key_off = th->ptext.len;
		m->key_len = (uint32_t)k.len;
		if (sbuf_put(&th->ptext, k.s, k.len))
			return oom(g);
		if (v.kind == JSON_STRING && json_is(&k, "type"))
			rc = tok_str(g, j, &v, &pl->type);
		else if (v.kind == JSON_STRING && json_is(&k, "category"))
			rc = tok_str(g, j, &v, &pl->category);
		else if (v.kind == JSON_STRING && json_is(&k, "interval"))
			pl->interval = json_is(&v, "start") ? 1 : json_is(&v, "end") ? 2 : 0;
		if (rc)
			return rc;
		if (v.kind == JSON_NUMBER && json_is(&k, "timeStamp")) {
			double d;
			if ((rc = json_f64(j, &v, &d)))
				return rc;
			if (d > -9e12 && d < 9e12 && (rc = json_fixed(j, &v, 6, &pl->timestamp)))
				return rc;
		}
		if (v.kind == JSON_NUMBER && is_time_key(k.s, k.len, true)) {
			double d;
			if ((rc = json_f64(j, &v, &d)))
				return rc;
			/* far past any clock: leave the text alone rather than overflow */
			if (d > -9e12 && d < 9e12) {
				if ((rc = json_fixed(j, &v, 6, &m->ns)))
					return rc;
				m->is_time = true;
				if (json_is(&k, "startTime"))
					pl->start = m->ns;
				else if (json_is(&k, "endTime"))
					pl->end = m->ns;
			}
		}
		m->is_index = tok_small_uint(&v, &m->index);
		m->val_off = th->ptext.len;
		if ((rc = json_capture(j, &v, &th->ptext)))
			return rc;
		if (th->ptext.len - m->val_off > UINT32_MAX)
			return json_fail_at(j, &v, "expected a marker payload value below 4 GiB");
		m->val_len = (uint32_t)(th->ptext.len - m->val_off);
		pl->nr++;
	}
}

static int marker_cell(struct gk *g, struct json *j, struct table *t, int field,
		       const struct json_tok *v)
{
	(void)t;
	if (field != M_DATA || v->kind != JSON_OBJECT)
		return json_fail_at(j, v, "expected %s, found %s",
				    field == M_DATA ? "a marker payload (an object) or null"
						    : "a number, a string or null",
				    json_kind_name(v->kind));
	return parse_payload(g, j, v);
}

static void payload_reset(struct gk_payload *pl)
{
	memset(pl, 0, sizeof(*pl));
	pl->start = pl->end = pl->cause_time = pl->timestamp = PV_TIME_NONE;
	pl->cause_stack = PV_NONE;
}

static int marker_row(struct gk *g, struct json *j, struct table *t, const struct json_tok *row,
		      const struct json_tok *c)
{
	struct gk_thread *th = &g->th;
	struct gk_marker m = {.phase = 0};
	m.pl = th->cur;
	payload_reset(&th->cur);
	if (c[M_DATA].kind != JSON_EOF && c[M_DATA].kind != JSON_NULL &&
	    c[M_DATA].kind != JSON_OBJECT)
		return json_fail_at(j, &c[M_DATA],
				    "expected a marker payload (an object) or null, found %s",
				    json_kind_name(c[M_DATA].kind));
	if (t->rows == 0) {
		th->markers_old = t->field_col[M_PHASE] < 0;
		if (th->markers_old && t->field_col[M_TIME] < 0)
			return json_fail_at(
			    j, row,
			    "expected a \"phase\" or a \"time\" column in the markers schema");
	}
	int rc = cell_index(j, &c[M_NAME], row, &m.name, "a marker name (a string index)");
	if (!rc)
		rc = cell_index(j, &c[M_CATEGORY], row, &m.cat, "a category index or null");
	if (!rc)
		rc = cell_time(j, &c[M_START], &m.start, "a start time in milliseconds or null");
	if (!rc)
		rc = cell_time(j, &c[M_END], &m.end, "an end time in milliseconds or null");
	if (!rc)
		rc = cell_time(j, &c[M_TIME], &m.time, "a time in milliseconds or null");
	if (rc)
		return rc;
	if (m.name == PV_NONE)
		return json_fail_at(j, at(&c[M_NAME], row),
				    "expected a marker name (a string index), found %s",
				    c[M_NAME].kind == JSON_EOF ? "no cell" : "null");
	if (!th->markers_old) {
		uint32_t ph;
		if ((rc = cell_index(j, &c[M_PHASE], row, &ph, "a marker phase (0 to 3)")))
			return rc;
		if (ph == PV_NONE)
			return json_fail_at(j, at(&c[M_PHASE], row),
					    "expected a marker phase (0 to 3), found %s",
					    c[M_PHASE].kind == JSON_EOF ? "no cell" : "null");
		if (ph > PV_PHASE_END)
			return json_fail_at(j, &c[M_PHASE],
					    "expected a marker phase (0 to 3), found %u", ph);
		m.phase = (uint8_t)ph;
	}
	/* allocations are samples of another kind, not markers (process-profile.ts) */
	const char *type = pv_str(g->b->p, m.pl.type);
	if (m.pl.present &&
	    (strcmp(type, "JS allocation") == 0 || strcmp(type, "Native allocation") == 0)) {
		builder_lossy(g->b, 1, "%s markers (allocation samples)", type);
		th->members.len = m.pl.first;
		return 0;
	}
	m.payload = 0;
	m.assembled = false;
	struct gk_marker *e = vec_push(&th->markers, sizeof(*e));
	if (!e)
		return oom(g);
	*e = m;
	return 0;
}

static int parse_string_table(struct gk *g, struct json *j, const struct json_tok *open)
{
	struct gk_thread *th = &g->th;
	int rc = json_want(j, open, JSON_ARRAY, "a stringTable (an array of strings)");
	if (rc)
		return rc;
	sbuf_reset(&th->stext);
	th->str_off.len = th->str_len.len = 0;
	for (;;) {
		struct json_tok s;
		if ((rc = json_next(j, &s)))
			return rc;
		if (s.kind == JSON_END)
			return 0;
		if ((rc = json_want(j, &s, JSON_STRING, "a string")))
			return rc;
		const char *p;
		size_t n;
		if ((rc = json_str(j, &s, &p, &n)))
			return rc;
		if (n > UINT32_MAX - 1)
			return json_fail_at(j, &s, "expected a string below 4 GiB");
		uint64_t *off = vec_push(&th->str_off, sizeof(*off));
		uint32_t *len = vec_push(&th->str_len, sizeof(*len));
		if (!off || !len)
			return oom(g);
		*off = th->stext.len;
		*len = (uint32_t)n;
		if (sbuf_put(&th->stext, p, n))
			return oom(g);
	}
}

/* ---- a thread's end: everything to the builder ---- */

struct emit {
	uint32_t m;
	uint8_t phase;
	int64_t start, end, key;
	uint32_t seq;
};

static int emit_cmp(const void *a, const void *b)
{
	const struct emit *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool str_is(const struct pv_profile *p, pv_str_ix s, const char *lit)
{
	return strcmp(pv_str(p, s), lit) == 0;
}

static bool is_string_field(struct gk *g, pv_str_ix type, const char *k, size_t n)
{
	const struct pv_profile *p = g->b->p;
	if (!type)
		return false;
	if (str_is(p, type, "CompositorScreenshot") && mem_is(k, n, "url"))
		return true; /* no schema says so (upstream #5303): hard-wired there too */
	for (uint32_t i = 0; i < g->strfields.len; i++) {
		const struct gk_strfield *f = &VEC(g->strfields, struct gk_strfield)[i];
		if (f->type == type && mem_is(k, n, pv_str(p, f->key)))
			return true;
	}
	return false;
}

/*
 * The payload as compact JSON: members as written, except times of a sub-process shifted onto
 * the root's clock, string indexes replaced by the string, and (Gecko < 20) the old
 * startTime/endTime dropped where the upgrader drops them.
 */
static int assemble_payload(struct gk *g, struct gk_marker *m)
{
	struct gk_thread *th = &g->th;
	const struct pv_profile *p = g->b->p;
	m->assembled = true;
	if (!m->pl.present)
		return 0;
	int64_t delta = th->proc->delta_ns;
	pv_str_ix type = m->type_out ? m->type_out : m->pl.type;
	bool network = str_is(p, type, "Network"), ipc = str_is(p, type, "IPC");
	bool keep_times = !th->markers_old || network || ipc;
	struct sbuf *o = &g->out;
	sbuf_reset(o);
	int rc = sbuf_put(o, "{", 1);
	bool first = true;
	for (uint32_t i = 0; !rc && i < m->pl.nr; i++) {
		const struct gk_member *mb = &VEC(th->members, struct gk_member)[m->pl.first + i];
		const char *k = th->ptext.buf + mb->key_off;
		bool tk = is_time_key(k, mb->key_len, false);
		if ((tk && !keep_times) ||
		    (m->drop_category && mem_is(k, mb->key_len, "category")) ||
		    (m->drop_timestamp && mem_is(k, mb->key_len, "timeStamp")))
			continue;
		if (!first)
			rc = sbuf_put(o, ",", 1);
		first = false;
		if (!rc)
			rc = sbuf_put(o, "\"", 1);
		if (!rc)
			rc = sbuf_put(o, k, mb->key_len);
		if (!rc)
			rc = sbuf_put(o, "\":", 2);
		if (rc)
			break;
		size_t sn;
		if (m->type_out && mem_is(k, mb->key_len, "type")) {
			const char *ts = pv_str(p, m->type_out);
			rc = sbuf_json_string(o, ts, strlen(ts));
		} else if (mb->is_time && delta &&
			   (tk || (network && is_time_key(k, mb->key_len, true)))) {
			rc = sbuf_ms(o, mb->ns + delta);
		} else if (mb->is_index && mb->index < th->str_off.len &&
			   is_string_field(g, type, k, mb->key_len)) {
			const char *s = thread_string(th, mb->index, &sn);
			rc = sbuf_json_string(o, s, sn);
		} else if (ipc && mem_is(k, mb->key_len, "otherPid") &&
			   th->ptext.buf[mb->val_off] != '"') {
			/* a string since processed version 47, as upstream's processing writes it
			 */
			rc = sbuf_json_string(o, th->ptext.buf + mb->val_off, mb->val_len);
		} else {
			rc = sbuf_put(o, th->ptext.buf + mb->val_off, mb->val_len);
		}
	}
	if (!rc && m->latency) {
		rc = sbuf_put(o, first ? "\"latency\":" : ",\"latency\":", first ? 10 : 11);
		if (!rc)
			rc = sbuf_ms(o, m->latency_ns);
	}
	if (!rc)
		rc = sbuf_put(o, "}", 1);
	if (rc)
		return oom(g);
	m->payload = builder_str(g->b, o->buf, o->len);
	return 0;
}

/* The category of a marker of a Gecko < 16 profile, which had none (upgrader 16). */
static pv_cat_ix legacy_marker_category(struct gk *g, const struct gk_marker *m, const char *name,
					size_t nn)
{
	const struct pv_profile *p = g->b->p;
	const char *key = name;
	size_t kn = nn;
	pv_str_ix type = m->type_out ? m->type_out : m->pl.type;
	if (m->pl.present && type) {
		pv_str_ix k = str_is(p, type, "tracing") ? m->pl.category : type;
		key = pv_str(p, k);
		kn = strlen(key);
	}
	const char *cat = "Other";
	for (size_t i = 0; i < sizeof(marker_cat_keys) / sizeof(marker_cat_keys[0]); i++)
		if (mem_is(key, kn, marker_cat_keys[i][0]))
			cat = marker_cat_keys[i][1];
	uint32_t before = p->categories.len;
	pv_cat_ix c =
	    builder_category(g->b, builder_cstr(g->b, cat), builder_cstr(g->b, default_color(cat)));
	if (p->categories.len != before)
		builder_subcategory(g->b, c, builder_cstr(g->b, "Other"));
	return c;
}

/*
 * Renames the upgraders of Gecko < 15 make (gecko-profile-versioning.ts): 13 types a few payloads
 * after their marker (and drops their category), 15 turns DiskIO into FileIO, marker name too.
 * Returns the payload's type from then on.
 */
static pv_str_ix upgrade_old_marker(struct gk *g, struct gk_marker *m, int version)
{
	const struct pv_profile *p = g->b->p;
	if (!m->pl.present)
		return 0;
	size_t nn;
	const char *name = thread_string(&g->th, m->name, &nn);
	pv_str_ix type = m->pl.type;
	if (version < 13 &&
	    (mem_is(name, nn, "VsyncTimestamp") || mem_is(name, nn, "LayerTranslation") ||
	     mem_is(name, nn, "CompositorScreenshot"))) {
		type = m->type_out = builder_str(g->b, name, nn);
		m->drop_category = true;
	}
	if (version < 15 && str_is(p, type, "DiskIO")) {
		type = m->type_out = builder_cstr(g->b, "FileIO");
		m->name_out = type;
	}
	return type;
}

/* Upgrader 21: tracing DOMEvent payloads became DOMEvent ones, timeStamp became latency. */
static void upgrade_dom_event(struct gk *g, struct gk_marker *m, pv_str_ix type, int64_t start)
{
	const struct pv_profile *p = g->b->p;
	if (!m->pl.present || !str_is(p, type, "tracing") || !str_is(p, m->pl.category, "DOMEvent"))
		return;
	m->type_out = builder_cstr(g->b, "DOMEvent");
	m->drop_timestamp = true;
	/* upstream computes it from a null start too (giving -timeStamp); we leave it out */
	if (m->pl.timestamp != PV_TIME_NONE && start != PV_TIME_NONE) {
		m->latency = true;
		m->latency_ns = start - m->pl.timestamp;
	}
}

static int push_emit(struct gk *g, uint32_t mi, uint8_t phase, int64_t start, int64_t end,
		     int64_t key)
{
	struct emit *e = vec_push(&g->th.emits, sizeof(*e));
	if (!e)
		return oom(g);
	e->m = mi;
	e->phase = phase;
	e->start = start;
	e->end = end;
	e->key = key;
	e->seq = g->th.emits.len - 1;
	return 0;
}

/* Marker rows as the Firefox Profiler stores them: phases (Gecko < 20: derived), sorted. */
static int emit_markers(struct gk *g, pv_thread_ix tix)
{
	struct gk_thread *th = &g->th;
	struct gk_proc *pr = th->proc;
	struct gk_marker *mk = th->markers.p;
	uint32_t nm = th->markers.len, nstr = th->str_off.len, nstacks = th->stacks.len;
	th->emits.len = 0;
	/* Gecko < 10 DOMEvent rows become a start and an end row, appended after the others */
	uint32_t extra_from = nm;
	for (uint32_t i = 0; i < nm; i++) {
		struct gk_marker *m = &mk[i];
		if (m->name >= nstr)
			return fail_cell(
			    g, &th->t_markers, i, M_NAME,
			    "expected a string index below %u (the stringTable's length), found %u",
			    nstr, m->name);
		if (m->pl.has_cause && m->pl.cause_stack >= nstacks)
			return fail_cell(g, &th->t_markers, i, M_DATA,
					 "expected a marker stack index below %u (the stackTable's "
					 "length), found %u",
					 nstacks, m->pl.cause_stack);
		if (m->cat != PV_NONE && m->cat >= pr->cats.len)
			return fail_cell(g, &th->t_markers, i, M_CATEGORY,
					 "expected a category index below %u (the length of "
					 "meta.categories), found %u",
					 pr->cats.len, m->cat);
		int rc;
		if (!th->markers_old) {
			int64_t s = m->phase == PV_PHASE_END ? PV_TIME_NONE : m->start;
			int64_t e = m->phase == PV_PHASE_INTERVAL || m->phase == PV_PHASE_END
					? m->end
					: PV_TIME_NONE;
			/* upstream sorts by `endTime || startTime` of the raw columns */
			int64_t key = m->end != PV_TIME_NONE && m->end != 0 ? m->end : m->start;
			if (pr->version < 21)
				upgrade_dom_event(g, m, m->pl.type, s);
			rc = push_emit(g, i, m->phase, s, e, key);
		} else {
			/* upgrader 20: tracing start/end at time; payload start/end: interval */
			const struct pv_profile *p = g->b->p;
			size_t nn;
			const char *name = thread_string(th, m->name, &nn);
			pv_str_ix type = upgrade_old_marker(g, m, pr->version);
			uint8_t ph = PV_PHASE_INSTANT;
			int64_t s = m->time, e = PV_TIME_NONE;
			if (pr->version < 10 && mem_is(name, nn, "DOMEvent") && m->pl.present &&
			    !str_is(p, type, "tracing")) {
				if ((rc = push_emit(g, i, PV_PHASE_START, m->pl.start, PV_TIME_NONE,
						    m->pl.start)))
					return rc;
				extra_from++;
				continue;
			}
			if (m->pl.present && str_is(p, type, "tracing")) {
				if (m->pl.interval == 1) {
					ph = PV_PHASE_START;
				} else if (m->pl.interval == 2) {
					ph = PV_PHASE_END;
					e = s;
					s = PV_TIME_NONE;
				}
			} else if (m->pl.present && m->pl.start != PV_TIME_NONE &&
				   m->pl.end != PV_TIME_NONE && m->pl.start != m->pl.end) {
				ph = PV_PHASE_INTERVAL;
				s = m->pl.start;
				e = m->pl.end;
			}
			upgrade_dom_event(g, m, type, s);
			int64_t key = e != PV_TIME_NONE && e != 0 ? e : s;
			rc = push_emit(g, i, ph, s, e, key);
		}
		if (rc)
			return rc;
	}
	if (extra_from != nm) {
		for (uint32_t i = 0; i < nm; i++) {
			struct gk_marker *m = &mk[i];
			size_t nn;
			const char *name = thread_string(th, m->name, &nn);
			pv_str_ix type = m->type_out ? m->type_out : m->pl.type;
			if (th->markers_old && pr->version < 10 && mem_is(name, nn, "DOMEvent") &&
			    m->pl.present && !str_is(g->b->p, type, "tracing")) {
				int rc = push_emit(g, i, PV_PHASE_END, PV_TIME_NONE, m->pl.end,
						   m->pl.end);
				if (rc)
					return rc;
			}
		}
	}
	struct emit *em = th->emits.p;
	if (th->emits.len > 1)
		pv_sort(em, th->emits.len, sizeof(*em), emit_cmp);
	int64_t delta = pr->delta_ns;
	for (uint32_t i = 0; i < th->emits.len; i++) {
		struct gk_marker *m = &mk[em[i].m];
		if (!m->assembled) {
			int rc = assemble_payload(g, m);
			if (rc)
				return rc;
		}
		size_t nn;
		const char *name = thread_string(th, m->name, &nn);
		pv_cat_ix cat = PV_NONE;
		if (th->markers_old && th->t_markers.field_col[M_CATEGORY] < 0 && m->name_out)
			cat = legacy_marker_category(g, m, "FileIO", 6);
		else if (th->markers_old && th->t_markers.field_col[M_CATEGORY] < 0)
			cat = legacy_marker_category(g, m, name, nn);
		else if (m->cat != PV_NONE && m->cat < pr->cats.len)
			cat = VEC(pr->cats, struct gk_cat)[m->cat].cat;
		struct raw_marker r = {
		    .name = m->name_out ? m->name_out : builder_str(g->b, name, nn),
		    .category = cat,
		    .phase = (enum pv_marker_phase)em[i].phase,
		    .start_ns = em[i].start == PV_TIME_NONE ? PV_TIME_NONE : em[i].start + delta,
		    .end_ns = em[i].end == PV_TIME_NONE ? PV_TIME_NONE : em[i].end + delta,
		    .thread = tix,
		    .payload = m->payload,
		    .cause_stack = PV_NONE,
		    .cause_time_ns = PV_TIME_NONE,
		};
		if (r.phase == PV_PHASE_INTERVAL && r.start_ns != PV_TIME_NONE &&
		    r.end_ns != PV_TIME_NONE && r.end_ns < r.start_ns) {
			r.end_ns = r.start_ns;
			th->bad_times++;
		}
		if (m->pl.has_cause) {
			r.cause_stack = VEC(th->stack_map, pv_stack_ix)[m->pl.cause_stack];
			if (m->pl.cause_time != PV_TIME_NONE)
				r.cause_time_ns = m->pl.cause_time + delta;
			if (m->pl.cause_tid)
				builder_lossy(g->b, 1,
					      "marker cause thread ids (tid of a marker's stack)");
		}
		builder_marker(g->b, &r);
	}
	return 0;
}

static void report_columns(struct gk *g, const struct table *t)
{
	for (uint32_t u = 0; u < t->nr_unknown; u++)
		builder_lossy(g->b, t->unknown_count[u], "%s column '%s' values", t->what,
			      t->unknown_name[u]);
}

static int finish_thread(struct gk *g)
{
	struct gk_thread *th = &g->th;
	struct gk_proc *pr = th->proc;
	struct pv_builder *b = g->b;
	uint32_t nstr = th->str_off.len, nframes = th->frames.len, nstacks = th->stacks.len;
	if (vec_resize(&th->locs, sizeof(struct locinfo), nstr) ||
	    vec_resize(&th->frame_map, sizeof(pv_frame_ix), nframes) ||
	    vec_resize(&th->stack_map, sizeof(pv_stack_ix), nstacks))
		return oom(g);
	struct locinfo *locs = th->locs.p;
	for (uint32_t i = 0; i < nstr; i++)
		locs[i].func = PV_NONE;

	const struct gk_frame *fr = th->frames.p;
	pv_frame_ix *fmap = th->frame_map.p;
	for (uint32_t i = 0; i < nframes; i++) {
		if (fr[i].loc >= nstr)
			return fail_cell(
			    g, &th->t_frames, i, F_LOCATION,
			    "expected a string index below %u (the stringTable's length), found %u",
			    nstr, fr[i].loc);
		struct locinfo *li = &locs[fr[i].loc];
		if (li->func == PV_NONE) {
			size_t n;
			const char *s = thread_string(th, fr[i].loc, &n);
			resolve_location(g, pr, s, n, li);
		}
		struct frame_key k = {
		    .func = li->func,
		    .line = fr[i].line != PV_NONE ? fr[i].line : li->line,
		    .column = fr[i].column != PV_NONE ? fr[i].column : li->column,
		    .addr = li->addr,
		    .category = PV_NONE,
		};
		uint32_t c = fr[i].cat;
		if (c != PV_NONE && pr->version < 11) {
			/* bit flags before Gecko 11 (upgrader 11): into cats_v11 */
			switch (c) {
			case 1 << 5: c = 3; break;
			case 1 << 6: c = 2; break;
			case 1 << 7:
			case 1 << 8: c = 6; break;
			case 1 << 9: c = 7; break;
			case 1 << 10: c = 4; break;
			default: c = 1; break;
			}
		}
		if (c != PV_NONE) {
			if (c >= pr->cats.len)
				return fail_cell(g, &th->t_frames, i, F_CATEGORY,
						 "expected a category index below %u (the length "
						 "of meta.categories), found %u",
						 pr->cats.len, c);
			const struct gk_cat *gc = &VEC(pr->cats, struct gk_cat)[c];
			uint32_t sub = fr[i].sub == PV_NONE ? 0 : fr[i].sub;
			if (sub >= gc->sub_len)
				return fail_cell(g, &th->t_frames, i, F_SUBCATEGORY,
						 "expected a subcategory index below %u (the "
						 "category's subcategories), found %u",
						 gc->sub_len, sub);
			k.category = gc->cat;
			k.subcategory = (uint16_t)VEC(pr->submap, uint32_t)[gc->sub_first + sub];
		}
		fmap[i] = builder_frame(b, &k);
	}

	const struct gk_stack *st = th->stacks.p;
	pv_stack_ix *smap = th->stack_map.p;
	for (uint32_t i = 0; i < nstacks; i++) {
		if (st[i].frame >= nframes)
			return fail_cell(
			    g, &th->t_stacks, i, K_FRAME,
			    "expected a frame index below %u (the frameTable's length), found %u",
			    nframes, st[i].frame);
		smap[i] = builder_stack(b, st[i].prefix == PV_NONE ? PV_NONE : smap[st[i].prefix],
					fmap[st[i].frame]);
	}

	pv_thread_ix tix = builder_thread(b, th->name, th->pid, th->tid, th->process_name);
	if (b->status)
		return 0; /* the registry reports the builder's error */
	b->p->threads.process_type[tix] = th->process_type;
	int64_t delta = pr->delta_ns;
	int64_t reg = th->reg == PV_TIME_NONE ? PV_TIME_NONE : th->reg + delta;
	int64_t unreg = th->unreg == PV_TIME_NONE ? PV_TIME_NONE : th->unreg + delta;
	if (reg != PV_TIME_NONE && unreg != PV_TIME_NONE && unreg < reg) {
		builder_lossy(b, 1, "thread unregister times before the register time");
		unreg = PV_TIME_NONE;
	}
	b->p->threads.start_ns[tix] = reg;
	b->p->threads.end_ns[tix] = unreg;

	const struct gk_sample *sa = th->samples.p;
	bool cpu = th->t_samples.field_col[S_CPU] >= 0 && th->samples.len;
	if (cpu && g->cpu_metric == PV_NONE) {
		/* threads read before weigh 0 for it, as threads without the column do */
		enum pv_unit u = g->cpu_unit == CPU_NS || g->cpu_unit == CPU_US ? PV_UNIT_NS
				 : g->cpu_unit == CPU_CYCLES			? PV_UNIT_CYCLES
										: PV_UNIT_OTHER;
		g->cpu_metric = builder_metric(b, builder_cstr(b, "cpu-delta"), u);
		if (b->status)
			return 0;
	}
	bool delay =
	    (th->t_samples.field_col[S_DELAY] >= 0 || th->t_samples.field_col[S_RESP] >= 0) &&
	    th->samples.len;
	if (delay && !builder_samples_event_delay(b))
		return 0; /* the registry reports the builder's error */
	for (uint32_t i = 0; i < th->samples.len; i++) {
		if (sa[i].stack != PV_NONE && sa[i].stack >= nstacks)
			return fail_cell(g, &th->t_samples, i, S_STACK,
					 "expected a stack index below %u (the stackTable's "
					 "length) or null, found %u",
					 nstacks, sa[i].stack);
		int64_t w[2] = {1, 0}, c = sa[i].cpu;
		/* the first delta of a thread covers time before the profile: meaningless */
		if (cpu && i > 0 && c != PV_TIME_NONE)
			w[1] = g->cpu_unit == CPU_US ? c : (c + (c >= 0 ? 500 : -500)) / 1000;
		builder_sample(b, tix, sa[i].stack == PV_NONE ? PV_NONE : smap[sa[i].stack],
			       sa[i].time == PV_TIME_NONE ? PV_TIME_NONE : sa[i].time + delta,
			       g->cpu_metric == PV_NONE ? NULL : w);
		if (delay && !b->status)
			b->p->samples.event_delay_ns[b->p->samples.len - 1] = sa[i].delay;
	}
	int rc = emit_markers(g, tix);
	if (rc)
		return rc;
	builder_lossy(b, th->bad_times,
		      "interval markers ending before they start (end set to the start)");
	report_columns(g, &th->t_samples);
	report_columns(g, &th->t_stacks);
	report_columns(g, &th->t_frames);
	report_columns(g, &th->t_markers);
	return 0;
}

/* Thread keys that hold no profile data worth a word in the import report. */
static const char *const thread_meta_keys[] = {
    "processType", "isMainThread",	    "isPrivateBrowsing",  "userContextId",
    "eTLD+1",	   "showMarkersInTimeline", "processStartupTime", "processShutdownTime",
    NULL,
};

static bool in_list(const struct json_tok *k, const char *const *list)
{
	for (int i = 0; list[i]; i++)
		if (json_is(k, list[i]))
			return true;
	return false;
}

static int parse_thread(struct gk *g, struct json *j, struct gk_proc *pr,
			const struct json_tok *open)
{
	struct gk_thread *th = &g->th;
	int rc = json_want(j, open, JSON_OBJECT, "a thread (an object)");
	if (rc)
		return rc;
	th->proc = pr;
	th->name = th->process_name = th->process_type = 0;
	th->pid = th->tid = PV_ID_NONE;
	th->reg = th->unreg = PV_TIME_NONE;
	th->samples.len = th->stacks.len = th->frames.len = th->markers.len = 0;
	th->members.len = 0;
	sbuf_reset(&th->ptext);
	sbuf_reset(&th->stext);
	th->str_off.len = th->str_len.len = 0;
	th->markers_old = false;
	th->bad_times = 0;
	table_reset(&th->t_samples);
	table_reset(&th->t_stacks);
	table_reset(&th->t_frames);
	table_reset(&th->t_markers);
	payload_reset(&th->cur);
	for (;;) {
		struct json_tok k, v;
		if ((rc = json_next_member(j, &k, &v)))
			return rc;
		if (k.kind != JSON_KEY)
			break;
		if (json_is(&k, "name") && v.kind == JSON_STRING) {
			rc = tok_str(g, j, &v, &th->name);
		} else if (json_is(&k, "processName") && v.kind == JSON_STRING) {
			rc = tok_str(g, j, &v, &th->process_name);
		} else if (json_is(&k, "processType") && v.kind == JSON_STRING) {
			rc = tok_str(g, j, &v, &th->process_type);
		} else if (json_is(&k, "pid")) {
			rc = tok_id(j, &v, &th->pid);
		} else if (json_is(&k, "tid")) {
			rc = tok_id(j, &v, &th->tid);
		} else if (json_is(&k, "registerTime")) {
			rc = cell_time(j, &v, &th->reg, "a register time in milliseconds or null");
		} else if (json_is(&k, "unregisterTime")) {
			rc = cell_time(j, &v, &th->unreg,
				       "an unregister time in milliseconds or null");
		} else if (json_is(&k, "samples")) {
			th->samples.len = 0;
			rc = read_table(g, j, &th->t_samples, &v);
		} else if (json_is(&k, "stackTable")) {
			th->stacks.len = 0;
			rc = read_table(g, j, &th->t_stacks, &v);
		} else if (json_is(&k, "frameTable")) {
			th->frames.len = 0;
			rc = read_table(g, j, &th->t_frames, &v);
		} else if (json_is(&k, "markers")) {
			th->markers.len = th->members.len = 0;
			sbuf_reset(&th->ptext);
			rc = read_table(g, j, &th->t_markers, &v);
		} else if (json_is(&k, "stringTable")) {
			rc = parse_string_table(g, j, &v);
		} else if (in_list(&k, thread_meta_keys)) {
			rc = json_skip(j, &v);
		} else {
			/* tracedValues, jsTracerEvents, jsAllocations, ...: not in the model */
			if (v.kind != JSON_NULL)
				builder_lossy(g->b, 1, "thread section '%.*s'", (int)k.len, k.s);
			rc = json_skip(j, &v);
		}
		if (rc)
			return rc;
	}
	return finish_thread(g);
}

static int parse_profile(struct gk *g, struct json *j, const struct json_tok *open, bool root,
			 bool top);

static int parse_threads(struct gk *g, struct json *j, struct gk_proc *pr,
			 const struct json_tok *open)
{
	int rc = json_want(j, open, JSON_ARRAY, "\"threads\" (an array)");
	for (;;) {
		struct json_tok t;
		if (rc || (rc = json_next(j, &t)) || t.kind == JSON_END)
			break;
		rc = parse_thread(g, j, pr, &t);
	}
	pr->threads_done = !rc;
	return rc;
}

static int parse_processes(struct gk *g, struct json *j, const struct json_tok *open)
{
	int rc = json_want(j, open, JSON_ARRAY, "\"processes\" (an array)");
	for (;;) {
		struct json_tok t;
		if (rc || (rc = json_next(j, &t)) || t.kind == JSON_END)
			break;
		if (!(rc = json_want(j, &t, JSON_OBJECT, "a sub-process profile (an object)")))
			rc = parse_profile(g, j, &t, false, false);
	}
	return rc;
}

/* Reads a value skipped earlier, at p, with a second tokenizer. */
static int reread(struct gk *g, struct gk_proc *pr, const char *p, bool threads)
{
	struct json j2;
	json_init(&j2, g->in, g->err);
	j2.p = p;
	j2.forget_mark = p;
	struct json_tok t;
	int rc = json_next(&j2, &t);
	if (!rc)
		rc = threads ? parse_threads(g, &j2, pr, &t) : parse_processes(g, &j2, &t);
	json_release(&j2);
	return rc;
}

/* Top-level sections of a Gecko profile that the model has no place for. */
static const char *const lossy_sections[][2] = {
    {"counters", "counters (tracks of counted values)"},
    {"profilerOverhead", "profiler overhead samples"},
    {"pausedRanges", "paused ranges"},
    {"pages", "pages (tabs and windows)"},
    {"sources", "sources table rows (script ids, source maps)"},
    {"jsTracerDictionary", "JS tracer dictionary entries"},
    {"profilingLog", "profiling log entries"},
    {"profileGatheringLog", "profile gathering log entries"},
};

struct unknown_key {
	char name[48];
	uint64_t count;
};

/*
 * A (sub-)process profile whose '{' is open. top: the file's own top-level object, which may be
 * the DevTools wrapper {"profile": {...}}.
 */
static int parse_profile(struct gk *g, struct json *j, const struct json_tok *open, bool root,
			 bool top)
{
	struct gk_proc pr = {.root = root};
	struct unknown_key unk[16];
	uint32_t nr_unk = 0;
	bool wrapper = false;
	int rc = 0;
	for (;;) {
		struct json_tok k, v;
		if ((rc = json_next_member(j, &k, &v)))
			goto out;
		if (k.kind != JSON_KEY)
			break;
		if (json_is(&k, "meta") && !wrapper) {
			rc = parse_meta(g, j, &pr, &v);
		} else if (json_is(&k, "libs") && !wrapper) {
			rc = parse_libs(g, j, &pr, &v);
		} else if (json_is(&k, "threads") && !wrapper) {
			if ((rc = json_want(j, &v, JSON_ARRAY, "\"threads\" (an array)")))
				goto out;
			if (pr.have_meta && pr.have_libs) {
				rc = parse_threads(g, j, &pr, &v);
			} else {
				/* they need meta and libs: read them at the end */
				pr.deferred_threads = v.s;
				rc = json_skip(j, &v);
			}
		} else if (json_is(&k, "processes") && !wrapper) {
			if ((rc = json_want(j, &v, JSON_ARRAY, "\"processes\" (an array)")))
				goto out;
			if (pr.threads_done) {
				rc = parse_processes(g, j, &v);
			} else {
				/* the main process's threads come first, as upstream */
				pr.deferred_processes = v.s;
				rc = json_skip(j, &v);
			}
		} else if (top && json_is(&k, "profile") && v.kind == JSON_OBJECT &&
			   !pr.have_meta && !wrapper) {
			/* the DevTools performance panel's export */
			wrapper = true;
			rc = parse_profile(g, j, &v, true, false);
		} else {
			size_t s;
			for (s = 0; s < sizeof(lossy_sections) / sizeof(lossy_sections[0]); s++)
				if (json_is(&k, lossy_sections[s][0]))
					break;
			uint64_t n = 0;
			if (s < sizeof(lossy_sections) / sizeof(lossy_sections[0])) {
				if ((rc = count_table_rows(j, &v, &n)))
					goto out;
				builder_lossy(g->b, n, "%s", lossy_sections[s][1]);
				continue;
			}
			if ((rc = count_longest(j, &v, &n)))
				goto out;
			if ((v.kind == JSON_ARRAY || v.kind == JSON_OBJECT) && n && nr_unk < 16) {
				struct unknown_key *u = &unk[nr_unk++];
				size_t l =
				    k.len < sizeof(u->name) - 1 ? k.len : sizeof(u->name) - 1;
				memcpy(u->name, k.s, l);
				u->name[l] = 0;
				u->count = n;
			}
		}
		if (rc)
			goto out;
	}
	if (wrapper) {
		/* the panel's own views of the recording; the rest of the wrapper is metadata */
		static const char *const devtools_data[] = {"markers", "frames",      "memory",
							    "ticks",   "allocations", NULL};
		for (uint32_t i = 0; i < nr_unk; i++)
			for (int d = 0; devtools_data[d]; d++)
				if (strcmp(unk[i].name, devtools_data[d]) == 0)
					builder_lossy(g->b, unk[i].count,
						      "DevTools export section '%s' entries",
						      unk[i].name);
		goto out;
	}
	if (!pr.have_meta) {
		rc = json_fail_at(j, open, "expected a \"meta\" object in the %s",
				  root ? "Gecko profile" : "sub-process profile");
		goto out;
	}
	if (pr.deferred_threads && (rc = reread(g, &pr, pr.deferred_threads, true)))
		goto out;
	pr.threads_done = true;
	if (pr.deferred_processes && (rc = reread(g, &pr, pr.deferred_processes, false)))
		goto out;
	for (uint32_t i = 0; i < nr_unk; i++)
		builder_lossy(g->b, unk[i].count, "section '%s' entries", unk[i].name);
out:
	vec_free(&pr.libs);
	vec_free(&pr.cats);
	vec_free(&pr.submap);
	return rc;
}

/* ---- the importer ---- */

static int probe(const struct pv_input *in)
{
	if (probe_first_char(in) != '{')
		return 0;
	if (probe_has(in, PROBE_WINDOW, "\"preprocessedProfileVersion\""))
		return 0;
	if (probe_has(in, PROBE_WINDOW, "\"meta\"") &&
	    ((probe_has(in, PROBE_WINDOW, "\"schema\"") &&
	      probe_has(in, PROBE_WINDOW, "\"stringTable\"")) ||
	     probe_has(in, PROBE_WINDOW, "\"threads\"")))
		return 80;
	/* a DevTools export whose profile starts past the window: it ends with its file type */
	if (in->len > PROBE_WINDOW) {
		size_t tail = 4096;
		const char *t = in->data + in->len - tail;
		if (memmem(t, tail, "\"Recorded Performance Data\"", 27))
			return 70;
	}
	return 0;
}

static void release(struct gk *g)
{
	struct gk_thread *th = &g->th;
	vec_free(&th->samples);
	vec_free(&th->stacks);
	vec_free(&th->frames);
	vec_free(&th->markers);
	vec_free(&th->members);
	vec_free(&th->str_off);
	vec_free(&th->str_len);
	vec_free(&th->locs);
	vec_free(&th->frame_map);
	vec_free(&th->stack_map);
	vec_free(&th->emits);
	sbuf_release(&th->ptext);
	sbuf_release(&th->stext);
	vec_free(&g->exts);
	vec_free(&g->strfields);
	vec_free(&g->schemas);
	sbuf_release(&g->schema_json);
	sbuf_release(&g->out);
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct gk g = {.b = b, .in = in, .err = err, .cpu_metric = PV_NONE};
	struct gk_thread *th = &g.th;
	table_init(&th->t_samples, "samples", sample_fields, sample_row, NULL, NULL);
	table_init(&th->t_stacks, "stackTable", stack_fields, stack_row, NULL, NULL);
	table_init(&th->t_frames, "frameTable", frame_fields, frame_row, NULL, NULL);
	table_init(&th->t_markers, "markers", marker_fields, marker_row, marker_cell, NULL);
	builder_metric(b, builder_cstr(b, "samples"), PV_UNIT_COUNT);
	struct json j;
	json_init(&j, in, err);
	struct json_tok t;
	int rc = json_next(&j, &t);
	if (!rc && t.kind != JSON_OBJECT)
		rc = json_fail_at(&j, &t, "expected a Gecko profile (a JSON object), found %s",
				  json_kind_name(t.kind));
	if (!rc)
		rc = parse_profile(&g, &j, &t, true, true);
	if (!rc && !g.have_root)
		rc = json_fail_at(&j, &t, "expected a \"meta\" object in the Gecko profile");
	if (!rc && g.schemas.len) {
		if (sbuf_put(&g.schema_json, "]", 1))
			rc = oom(&g);
		else
			b->p->meta.marker_schema = builder_str(b, g.schema_json.buf, g.schema_json.len);
	}
	if (!rc && !(rc = json_next(&j, &t)) && t.kind != JSON_EOF)
		rc = json_fail_at(&j, &t, "expected the end of the input, found %s",
				  json_kind_name(t.kind));
	json_release(&j);
	release(&g);
	return rc;
}

const struct importer importer_firefox_gecko = {
    .name = "firefox-gecko",
    .description = "Firefox Profiler raw Gecko profile (what Firefox writes), DevTools export",
    .probe = probe,
    .import = import,
};

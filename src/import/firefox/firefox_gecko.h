/*
 * firefox_gecko.h - the Gecko importer's state and what its files share: firefox_gecko.c (the
 * importer, the rows of a thread's tables), firefox_gecko_build.c (the profile's sections and
 * threads, payloads, and a thread into the model), firefox_gecko_locations.c (location strings)
 * and firefox_gecko_common.c (tables, tokens, categories, meta, libs), which the others call and
 * which calls none of them. Internal to the importer: every shared function starts with gk_.
 */
#ifndef PV_IMPORT_FIREFOX_GECKO_H
#define PV_IMPORT_FIREFOX_GECKO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sbuf.h"
#include "base/vec.h"
#include "import/importer.h"
#include "import/json.h"

#define GK_MIN_VERSION 5  /* older: libs as a JSON string, processes inside threads */
#define GK_MAX_VERSION 36 /* GECKO_PROFILE_VERSION of the Firefox Profiler we follow */
#define GK_MAX_COLS    64 /* a schema column index past this is refused */
#define GK_MAX_UNKNOWN 8  /* columns we do not keep, reported by name, per table */
#define PROBE_WINDOW   ((size_t)1 << 20)

/* ---- importer state ---- */

struct gk;
struct table;

typedef int (*row_fn)(struct gk *g, struct json *j, struct table *t, const struct json_tok *row,
		      const struct json_tok *cells);
typedef int (*cell_fn)(struct gk *g, struct json *j, struct table *t, int field,
		       const struct json_tok *v);
/* Reads the next row whole the fast way (json_run_row) when it can (*took), else leaves it. */
typedef int (*run_fn)(struct gk *g, struct json *j, struct table *t, bool *took);

#define GK_RUN_COLS 8 /* the most columns a table's rows are read with run_fn */

/*
 * One {schema, data} table being read. The row callback gets the scalar cells by field (kind
 * JSON_EOF when the row has no such cell); container cells go to the cell callback as they come.
 */
struct table {
	const char *what;	   /* name in messages: "samples", "frameTable" */
	const char *const *fields; /* known column names, NULL-terminated */
	row_fn row;
	cell_fn cell; /* NULL: a container in a known column is an error */
	run_fn run;   /* NULL: every row is read token by token */
	int run_n;    /* cells per row for run: 0 until its first row, -1 when not read so */
	struct json_run_cell run_cell[GK_RUN_COLS];
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
	pv_str_ix breakpad;  /* breakpadId: the build id as Breakpad writes it, 0 when none */
	pv_module_ix module; /* made when a frame first lands in the lib */
	uint32_t bin;	     /* its binary in gk.z (import/symbols.h), UINT32_MAX until needed */
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

/* What a sample row has besides its stack and time (those go to the builder's columns). */
struct gk_sample {
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
	/* the sample rows read: in the builder's columns from row s_base (not yet taken), and
	 * in samples (struct gk_sample) when the schema has a CPU delta or event delay */
	uint32_t s_base, s_len;
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
	bool samples_room;	 /* the builder's sample columns have their room (gk_sample_room) */
	struct vec exts;	 /* struct gk_ext: moz-extension origins -> resource names */
	struct vec strfields;	 /* struct gk_strfield: payload keys holding string indexes */
	struct vec schemas;	 /* pv_str_ix: marker schema names seen */
	struct sbuf schema_json; /* "[" and the schemas kept, comma-separated */
	struct sbuf out;	 /* scratch: a payload being assembled, a name */
	/* threadCPUDelta as a second metric, like the processed importer's "cpu-delta" */
	int cpu_unit; /* enum cpu_unit, from meta.sampleUnits */
	pv_metric_ix cpu_metric;
	/* native addresses named from the libs' files on this machine (made at the first), and
	 * how many were named and not (with the last reason) */
	struct symz *z;
	uint64_t native_named, native_unnamed;
	int native_why;
};

/* A location string resolved (firefox_gecko_locations.c). */
struct locinfo {
	pv_func_ix func; /* PV_NONE until resolved */
	uint32_t line, column;
	uint64_t addr;
};

/* ---- threads ---- */

enum { S_STACK, S_TIME, S_CPU, S_DELAY, S_RESP };
enum { K_PREFIX, K_FRAME };
enum { F_LOCATION, F_LINE, F_COLUMN, F_CATEGORY, F_SUBCATEGORY };
enum { M_NAME, M_START, M_END, M_PHASE, M_CATEGORY, M_DATA, M_TIME };

/* ---- firefox_gecko_common.c ---- */

/* A cell that is null or missing (a row shorter than its schema). */
static inline bool gk_tok_null(const struct json_tok *t)
{
	return t->kind == JSON_EOF || t->kind == JSON_NULL;
}

int gk_oom(struct gk *g);
/* Appends the n bytes of row (a table row as read) to v. Returns 0 or gk_oom's error. */
int gk_push_row(struct gk *g, struct vec *v, const void *row, size_t n);
const struct json_tok *gk_cell_at(const struct json_tok *cell, const struct json_tok *row);
int gk_cell_index(struct json *j, const struct json_tok *t, const struct json_tok *row,
		  uint32_t *out, const char *what);
int gk_cell_time(struct json *j, const struct json_tok *t, int64_t *out, const char *what);
int gk_tok_id(struct json *j, const struct json_tok *t, int64_t *out);
int gk_tok_str(struct gk *g, struct json *j, const struct json_tok *t, pv_str_ix *out);
bool gk_tok_small_uint(const struct json_tok *t, uint32_t *out);
int gk_count_longest(struct json *j, const struct json_tok *t, uint64_t *n);
int gk_count_table_rows(struct json *j, const struct json_tok *t, uint64_t *n);
void gk_table_init(struct table *t, const char *what, const char *const *fields, row_fn row,
		   cell_fn cell, void *ctx);
void gk_table_reset(struct table *t);
int gk_read_table(struct gk *g, struct json *j, struct table *t, const struct json_tok *open);
int gk_fail_cell(struct gk *g, const struct table *t, uint32_t row, int field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
const char *gk_default_color(const char *name);
int gk_parse_meta(struct gk *g, struct json *j, struct gk_proc *pr, const struct json_tok *open);
int gk_parse_libs(struct gk *g, struct json *j, struct gk_proc *pr, const struct json_tok *open);
const char *gk_thread_string(const struct gk_thread *th, uint32_t i, size_t *n);

/* ---- firefox_gecko_locations.c ---- */

void gk_resolve_location(struct gk *g, struct gk_proc *pr, const char *s, size_t n,
			 struct locinfo *li);

/* ---- firefox_gecko_build.c ---- */

int gk_marker_cell(struct gk *g, struct json *j, struct table *t, int field,
		   const struct json_tok *v);
int gk_marker_row(struct gk *g, struct json *j, struct table *t, const struct json_tok *row,
		  const struct json_tok *c);
/* Room in the builder's sample columns for one more row of the thread; 0 or the error. */
int gk_sample_room(struct gk *g, const struct json *j);
int gk_parse_profile(struct gk *g, struct json *j, const struct json_tok *open, bool root,
		     bool top);

#endif

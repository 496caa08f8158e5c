/*
 * firefox_processed.h - the processed-profile importer's state and what its files share:
 * firefox_processed.c (the importer: meta, libs, shared, schemas, threads),
 * firefox_processed_build.c (the model), firefox_processed_columns.c (column tables) and
 * firefox_processed_common.c (errors, column growth, small readers), which the others call and
 * which calls none of them. Internal to the importer: every shared function starts with fxp_.
 */
#ifndef PV_IMPORT_FIREFOX_PROCESSED_H
#define PV_IMPORT_FIREFOX_PROCESSED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sbuf.h"
#include "base/vec.h"
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
	bool samples_room; /* builder_samples_room asked (col_room) */
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

/* ---- columns ---- */

enum ukind {
	U_INDEX,	 /* null and -1 are PV_NONE */
	U_PREFIX,	 /* stackTable.prefix: null (or -1) = root, else an earlier stack */
	U_PREFIX_OFFSET, /* stackTable.prefixOffset: 0 = root, k = the stack k rows before */
};

enum lkind {
	L_MS,	     /* ms -> ns; null = PV_TIME_NONE */
	L_MS_DELTAS, /* the same, summed from 0 as read (a null adds nothing) */
	L_E6,	     /* value * 10^6 (weights) */
	L_E3,	     /* value * 10^3 (threadCPUDelta) */
	L_ADDR,	     /* an integer address; -1 and null = PV_TIME_NONE, converted when built */
};

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

/* ---- firefox_processed_common.c ---- */

int fxp_oom(struct fxp *x);
int fxp_bad_kind(struct fxp *x, const struct json_tok *t, const char *what, const char *name);
int fxp_grow(struct fxp *x, void **v, size_t elt, uint32_t *cap, uint32_t len);
void fxp_ucol_free(struct ucol *c);
void fxp_lcol_free(struct lcol *c);
int fxp_ucol_room(struct fxp *x, struct ucol *c, int64_t stated);
int fxp_lcol_room(struct fxp *x, struct lcol *c, int64_t stated);
void fxp_tail_sync(struct fxp *x, struct thread *th);
void fxp_ucol_track(struct ucol *c, uint32_t from, uint32_t n);
struct json_tok fxp_row_tok(struct fxp *x, const char *at, uint32_t row);
int fxp_count_value(struct fxp *x, const struct json_tok *t, uint64_t *n);
int fxp_not_kept(struct fxp *x, const char *where, const struct json_tok *key);
int fxp_expect_object(struct fxp *x, struct json_tok *t, const char *name);
int fxp_expect_array(struct fxp *x, struct json_tok *t, const char *name);
int fxp_read_length(struct fxp *x, const char *name, int64_t *out);
int fxp_read_str(struct fxp *x, const char *name, pv_str_ix *out);
int fxp_check_ix(struct fxp *x, const struct ucol *c, uint32_t n, const char *table,
		 const char *name);

/* ---- firefox_processed_columns.c ---- */

int fxp_read_ucol_n(struct fxp *x, struct ucol *c, enum ukind kind, const char *name,
		    int64_t stated);
int fxp_read_ucol(struct fxp *x, struct ucol *c, enum ukind kind, const char *name);
int fxp_lcol_fill(struct fxp *x, struct lcol *c, enum lkind kind, const char *name,
		  const struct json_tok *open, int64_t stated);
int fxp_read_lcol_n(struct fxp *x, struct lcol *c, enum lkind kind, const char *name,
		    int64_t stated);
int fxp_read_lcol(struct fxp *x, struct lcol *c, enum lkind kind, const char *name);
int fxp_read_table(struct fxp *x, const char *name, const struct colspec *spec, void *base,
		   const char **at, int64_t *len, const char *lossy, bool *func_src_is_str);
bool fxp_read_table_key(struct fxp *x, struct tables *T, const struct json_tok *k, int *rc);
void fxp_tables_free_columns(struct tables *T);
void fxp_tables_free(struct tables *T);
void fxp_tables_init(struct tables *T);
int fxp_read_category(struct fxp *x, const struct json_tok *open);

/* ---- firefox_processed_build.c ---- */

void fxp_thread_free(struct thread *th);
int fxp_build_thread(struct fxp *x, uint32_t i);
bool fxp_can_build_now(const struct fxp *x, const struct thread *th);
int fxp_build(struct fxp *x);

/* ---- small inline helpers ---- */

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

static inline int ucol_push(struct fxp *x, struct ucol *c, uint32_t v)
{
	if (c->len == c->cap) {
		int rc = fxp_ucol_room(x, c, -1);
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

static inline int lcol_push(struct fxp *x, struct lcol *c, int64_t v)
{
	if (c->len == c->cap) {
		int rc = fxp_lcol_room(x, c, -1);
		if (rc)
			return rc;
	}
	c->v[c->len++] = v;
	return 0;
}

#endif

/*
 * profile.h - the columnar profile model.
 *
 * One struct pv_profile holds every table of one profile as a struct of arrays with 32-bit row
 * indices. Invariants (checked by pv_profile_validate):
 *   - string 0 is "", every *_str column indexes strings;
 *   - a stack's prefix is PV_NONE (a root) or smaller than the stack's own index, so every pass
 *     over stacks in index order sees a parent before its children; (prefix, frame) pairs are
 *     unique;
 *   - samples are grouped by thread: thread t owns samples [sample_begin[t], sample_end[t]);
 *   - sample times and marker times are nanoseconds from the profile's zero (the earliest
 *     start the file names), PV_TIME_NONE when unknown;
 *   - weight[m] is NULL when every sample weighs 1 for metric m; samples.time_ns is NULL when
 *     no sample has a time (read them with pv_sample_weight and pv_sample_time).
 *
 * Ownership: the profile owns everything reachable from it; pv_profile_free() releases it. All
 * pointers handed out (strings, columns) are borrowed and valid until then. A profile is
 * read-only once an importer returns it, so any number of threads may read it at once. Its
 * columns may also point into storage it does not own column by column (struct pv_storage: a
 * snapshot's read-only mapping, pv/snapshot.h); nothing but pv_profile_free needs to know.
 */
#ifndef PV_PROFILE_H
#define PV_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pv/error.h"

typedef uint32_t pv_str_ix;
typedef uint32_t pv_cat_ix;
typedef uint32_t pv_module_ix;
typedef uint32_t pv_source_ix;
typedef uint32_t pv_func_ix;
typedef uint32_t pv_frame_ix;
typedef uint32_t pv_stack_ix;
typedef uint32_t pv_thread_ix;
typedef uint32_t pv_metric_ix;
typedef uint32_t pv_marker_ix;

#define PV_NONE	     UINT32_MAX
#define PV_TIME_NONE INT64_MIN
#define PV_ID_NONE   INT64_MIN
#define PV_ADDR_NONE UINT64_MAX

/*
 * The value ranges of the model (checked by pv_profile_validate, so a snapshot past them is
 * refused; builder_finish saturates an importer's values past them, with a lossy note):
 *   - every time (samples, event delays, threads, markers, trace records, the profile's start)
 *     is PV_TIME_NONE or within +-PV_TIME_MAX ns (146 years), and the sampling interval within
 *     0..PV_TIME_MAX: a difference of two times, or a time plus the interval, never overflows;
 *   - the values of one weight column (a metric's sample weights, call graph node costs or
 *     edge costs, function self or total costs) sum, in absolute value, to at most
 *     PV_WEIGHT_SUM_MAX: any sum of a column's values, and the difference of two such sums
 *     (a total less a self, a diff's delta), fits in int64.
 * Accumulators that add other values (durations, per-context sums) use pv_add_sat.
 */
#define PV_TIME_MAX	  (((int64_t)1 << 62) - 1)
#define PV_WEIGHT_SUM_MAX (((int64_t)1 << 62) - 1)

/* a + b and a - b saturated at +-INT64_MAX (INT64_MIN is PV_TIME_NONE, PV_VALUE_NONE). */
static inline int64_t pv_add_sat(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : -INT64_MAX;
	return r == INT64_MIN ? -INT64_MAX : r;
}
static inline int64_t pv_sub_sat(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : -INT64_MAX;
	return r == INT64_MIN ? -INT64_MAX : r;
}

enum pv_module_kind {
	PV_MODULE_UNKNOWN = 0,
	PV_MODULE_BINARY,   /* the main executable */
	PV_MODULE_LIBRARY,  /* a shared library */
	PV_MODULE_KERNEL,   /* the kernel or a kernel module */
	PV_MODULE_JIT,	    /* JIT-compiled code */
	PV_MODULE_RESOURCE, /* a script URL, an add-on, a web host */
};

enum pv_unit {
	PV_UNIT_COUNT = 0, /* samples, calls, events */
	PV_UNIT_NS,
	PV_UNIT_BYTES,
	PV_UNIT_INSTRUCTIONS,
	PV_UNIT_CYCLES,
	PV_UNIT_OTHER,
};

enum pv_marker_phase {
	PV_PHASE_INSTANT = 0,
	PV_PHASE_INTERVAL = 1,
	PV_PHASE_START = 2,
	PV_PHASE_END = 3,
};

struct pv_strings {
	uint32_t len, cap;
	const char **ptr; /* NUL-terminated, owned by the profile */
	uint32_t *size;	  /* byte length without the NUL */
};

struct pv_categories {
	uint32_t len, cap;
	pv_str_ix *name;
	pv_str_ix *color;
	uint32_t *sub_first; /* first row of this category in pv_subcategories */
	uint32_t *sub_len;
};

struct pv_subcategories {
	uint32_t len, cap;
	pv_str_ix *name;
};

struct pv_modules {
	uint32_t len, cap;
	pv_str_ix *name; /* short name: libc.so.6, XUL, https://example.com */
	pv_str_ix *path; /* full path or URL, 0 when unknown */
	uint8_t *kind;	 /* enum pv_module_kind */
};

struct pv_sources {
	uint32_t len, cap;
	pv_str_ix *path;
};

/*
 * Every column but name (and frames' func) is NULL when every row has its default (the value
 * "unknown" below): read them with the accessors after struct pv_profile (pv_func_module,
 * pv_frame_line, ...), never directly. The builder makes a column at its first other value.
 */
struct pv_funcs {
	uint32_t len, cap;
	pv_str_ix *name;
	pv_module_ix *module; /* PV_NONE when unknown */
	pv_source_ix *source; /* PV_NONE when unknown */
	uint32_t *line;	      /* first line, 0 when unknown */
	uint32_t *column;     /* column of its first line (JavaScript: two functions of one line
			       * are two functions), 0 when unknown; always 0 without a line */
};

/*
 * What a frame stands for. Most formats have code frames only: a function at a line. HPCToolkit
 * databases also describe the lexical scopes inside a function (doc/hpctoolkit.md): a loop
 * frame stands for a loop of the function of the frame above it (line = the loop's header), a
 * statement frame for a source line inside that function or loop. Neither is a call: at function
 * granularity both belong to the function's row (see pv_view_compute's granularities).
 */
enum pv_frame_kind {
	PV_FRAME_CODE = 0,
	PV_FRAME_LOOP,
	PV_FRAME_STATEMENT,
};

struct pv_frames {
	uint32_t len, cap;
	pv_func_ix *func;
	uint32_t *line;	  /* 0 when unknown */
	uint32_t *column; /* 0 when unknown */
	uint64_t *addr;	  /* module-relative when the module is known; PV_ADDR_NONE when unknown */
	uint16_t *inline_depth; /* 0: not inlined */
	pv_cat_ix *category;	/* PV_NONE: inherited from the caller */
	uint16_t *subcategory;	/* 0 when unknown */
	uint8_t *kind;		/* enum pv_frame_kind; PV_FRAME_CODE when unknown */
	pv_source_ix *source;	/* the file of the frame's line when it is not its function's
				 * (code inlined from a header, a macro); PV_NONE: the function's */
};

struct pv_stacks {
	uint32_t len, cap;
	pv_frame_ix *frame;
	pv_stack_ix *prefix; /* PV_NONE for a root; always smaller than the own index */
};

struct pv_threads {
	uint32_t len, cap;
	pv_str_ix *name;
	pv_str_ix *process_name;
	pv_str_ix *process_type;    /* Firefox's "default", "tab", "gpu"...; 0 when unknown */
	int64_t *pid, *tid;	    /* PV_ID_NONE when unknown */
	int64_t *start_ns, *end_ns; /* registered lifetime; PV_TIME_NONE when unknown */
	uint32_t *sample_begin, *sample_end;
};

struct pv_samples {
	uint32_t len, cap;
	pv_stack_ix *stack;  /* PV_NONE: a sample without a stack */
	int64_t *time_ns;    /* PV_TIME_NONE when unknown; NULL when no sample has a time */
	int64_t **weight;    /* [metric][sample]; NULL column = every sample weighs 1 */
	uint32_t *label_set; /* [sample]: a row of label_sets (0 = no label); NULL = none has one */
	/*
	 * [sample]: the event delay in ns (Firefox's samples.eventDelay, or the older
	 * responsiveness), PV_TIME_NONE where the sample has none; NULL when no sample has one.
	 * Jank markers are derived from it (pv/marker.h).
	 */
	int64_t *event_delay_ns;
	/*
	 * [sample]: the address of the instruction the sample hit (its leaf frame's,
	 * module-relative as frames.addr), PV_ADDR_NONE where unknown; NULL when no sample has one.
	 * A frame stands for a function (or a line): the leaf address is the sample's attribute, so
	 * a profile of a million distinct addresses keeps one frame per function (perf annotate's
	 * per-instruction costs, pv/disasm.h).
	 */
	uint64_t *addr;
};

struct pv_metrics {
	uint32_t len, cap;
	pv_str_ix *name;
	uint8_t *unit;		/* enum pv_unit */
	pv_str_ix *description; /* what the metric measures, as the file says it; 0 when none */
};

/*
 * Metrics a file defines by a formula over the others (an HPCToolkit database's derived
 * metrics): no sample weighs anything for them; a view computes them as derived metrics
 * (pv/query.h's --derive, doc/hpctoolkit.md). A row's total is the formula over the inputs'
 * totals, its self the same formula over their selves, or a formula of its own (an HPCToolkit
 * metric's exclusive formula); a metric may have that one alone, and then no totals. Each has
 * at least one of formula and self.
 */
struct pv_formulas {
	uint32_t len, cap;
	pv_str_ix *name;
	pv_str_ix *formula; /* hpcviewer's syntax, with metrics by name: "$cycles / $instructions";
			     * 0 when none (the totals are empty) */
	pv_str_ix *self;    /* a row's self, when not formula's over the selves; 0 when it is */
	pv_str_ix *description; /* 0 when none */
};

struct pv_raw_markers {
	uint32_t len, cap;
	pv_str_ix *name;
	pv_cat_ix *category;	    /* PV_NONE when unknown */
	uint8_t *phase;		    /* enum pv_marker_phase */
	int64_t *start_ns, *end_ns; /* PV_TIME_NONE when unused */
	pv_thread_ix *thread;
	pv_str_ix *payload;	  /* the payload as compact JSON text, 0 when none */
	pv_stack_ix *cause_stack; /* PV_NONE when none */
	int64_t *cause_time_ns;
};

/* A lossy step of the import: something the file held that the model does not keep. */
struct pv_diags {
	uint32_t len, cap;
	pv_str_ix *msg;
	uint64_t *count;
};

struct pv_meta {
	pv_str_ix format;	  /* importer name, e.g. "firefox-processed" */
	pv_str_ix format_version; /* e.g. "70", "" when the format has none */
	pv_str_ix product;	  /* e.g. "Firefox", "" when unknown */
	int64_t interval_ns;	  /* sampling interval, 0 when unknown */
	int64_t start_unix_ns;	  /* wall-clock time of the profile's zero, 0 when unknown */
	pv_metric_ix default_metric;
	/*
	 * The marker schemas (how to label and format marker payloads, by payload type) as one
	 * compact JSON array of schema objects in the file's own shape (Firefox: processed
	 * "fields" or old Gecko "data"); 0 when the file has none. Read by pv/marker.h.
	 */
	pv_str_ix marker_schema;
	/*
	 * The profile says its threads are parts of one program whatever its format says: a merge
	 * of ranks (pv/merge.h). pv_profile_one_program (pv/import.h) reads it with the format.
	 */
	bool one_program;
};

/*
 * Labels of samples (pprof): key = value pairs, a string or a number with a unit. Each distinct
 * label is one row of pv_labels; each distinct set of labels is one row of pv_label_sets, its
 * labels being items[first .. first + count). Set 0 is the empty set. A filter on labels (pprof's
 * -tagfocus, profview's --tag key=value) tests a sample's set: pv_label_set_has().
 */
struct pv_labels {
	uint32_t len, cap;
	pv_str_ix *key;
	pv_str_ix *str;	 /* the string value; 0 for a numeric label */
	int64_t *num;	 /* the numeric value (0 for a string label) */
	pv_str_ix *unit; /* the numeric value's unit ("bytes", "nanoseconds"), 0 when none */
};

struct pv_label_sets {
	uint32_t len, cap;
	uint32_t *first, *count; /* rows of items */
	uint32_t nr_items, items_cap;
	uint32_t *items; /* rows of pv_labels, sorted by row within a set */
};

/*
 * Exact per-function costs stated by the file, for formats that store a call graph rather than
 * stacks (callgrind): self[m][f] and total[m][f] as the producer's own report computes them
 * (callgrind_annotate --inclusive=yes), one entry per function. Views of one row per function
 * over the whole, unfiltered profile (top, flat, the butterfly's first ring) should show these;
 * the samples then hold calling contexts estimated from the call graph (their self costs are
 * exact, their inclusive costs are exact where the call graph is a consistent DAG).
 * Both NULL when the file states no such costs. funcs_len is funcs.len when they were set.
 */
struct pv_func_costs {
	int64_t **self, **total; /* [metric][func] */
	uint32_t funcs_len;
};

/*
 * The call graph a call-graph format states (callgrind), per part of the file (a thread):
 * nodes are (thread, function) with the function's self cost there; edges are (thread, caller,
 * callee, kind) with the number of calls and their inclusive cost, the file's own figures.
 * An edge of kind 1 is not a call: it joins a function to its inlined code from another file
 * (callgrind's fi=/fe=, a function of its own in callgrind_annotate), and costs that code's self
 * cost plus its calls. Views of such a profile are computed from this graph (doc/callgraph.md).
 * Rows are unique: (thread, function) per node, (thread, caller, callee, kind) per edge; every
 * cost of the file is in one node. Empty (nr_nodes 0) for every other format.
 */
struct pv_callgraph {
	uint32_t nr_nodes, cap_nodes;
	pv_thread_ix *node_thread;
	pv_func_ix *node_func;
	int64_t **node_self; /* [metric][node] */
	uint32_t nr_edges, cap_edges;
	pv_thread_ix *edge_thread;
	pv_func_ix *caller, *callee;
	uint64_t *calls;     /* call count (0 for kind 1) */
	uint8_t *kind;	     /* 0 a call, 1 inlined code */
	int64_t **edge_cost; /* [metric][edge] */
	uint32_t nr_metrics; /* columns of node_self and edge_cost */
};

/*
 * Trace records (HPCToolkit's trace.db, *.hpctrace, experiment.mt): each says which calling
 * context an execution context (a thread) was in from its time until the next record of that
 * thread (the last one until end_ns). Records of one thread are contiguous and in time order.
 * Empty for every other format: there a thread's timed samples are its trace (pv/trace.h).
 */
struct pv_trace_records {
	uint32_t len, cap;
	pv_thread_ix *thread;
	int64_t *time_ns;
	pv_stack_ix *stack; /* PV_NONE: the context was not running (HPCToolkit's context 0) */
	int64_t end_ns;	    /* when the last record of each thread ends */
};

/*
 * Storage that columns of the profile may point into instead of owning them: a snapshot file
 * mapped read-only (pv/snapshot.h). pv_profile_free frees no column that lies inside
 * [base, base + len), then calls release(ctx) once. check (may be NULL) is what
 * pv_profile_check() asks. All zero: every column is owned.
 */
struct pv_storage {
	const void *base;
	size_t len;
	void (*release)(void *ctx);
	int (*check)(void *ctx, struct pv_error *err);
	void *ctx;
};

struct pv_profile {
	struct pv_meta meta;
	struct pv_strings strings;
	struct pv_categories categories;
	struct pv_subcategories subcategories;
	struct pv_modules modules;
	struct pv_sources sources;
	struct pv_funcs funcs;
	struct pv_frames frames;
	struct pv_stacks stacks;
	struct pv_threads threads;
	struct pv_samples samples;
	struct pv_metrics metrics;
	struct pv_formulas formulas;
	struct pv_raw_markers markers;
	struct pv_diags diags;
	struct pv_labels labels;
	struct pv_label_sets label_sets;
	struct pv_func_costs func_costs;
	struct pv_callgraph callgraph;
	struct pv_trace_records trace;
	struct pv_storage storage; /* what borrowed columns point into */
	/* libpv's own (where the strings' bytes live): opaque, defined in
	 * src/model/profile_priv.h */
	struct pv_profile_priv *priv;
};

/* Borrowed NUL-terminated string ix; "" for 0 or an out-of-range ix. */
static inline const char *pv_str(const struct pv_profile *p, pv_str_ix ix)
{
	return ix < p->strings.len ? p->strings.ptr[ix] : "";
}

/*
 * The optional columns of functions and frames (NULL when every row has the default): a row's
 * value, else the default.
 */
#define PV_OPT_COL(col, ix, none) ((col) ? (col)[ix] : (none))
static inline pv_module_ix pv_func_module(const struct pv_profile *p, pv_func_ix f)
{
	return PV_OPT_COL(p->funcs.module, f, PV_NONE);
}
static inline pv_source_ix pv_func_source(const struct pv_profile *p, pv_func_ix f)
{
	return PV_OPT_COL(p->funcs.source, f, PV_NONE);
}
static inline uint32_t pv_func_line(const struct pv_profile *p, pv_func_ix f)
{
	return PV_OPT_COL(p->funcs.line, f, 0);
}
static inline uint32_t pv_func_column(const struct pv_profile *p, pv_func_ix f)
{
	return PV_OPT_COL(p->funcs.column, f, 0);
}
static inline uint32_t pv_frame_line(const struct pv_profile *p, pv_frame_ix f)
{
	return PV_OPT_COL(p->frames.line, f, 0);
}
static inline uint32_t pv_frame_column(const struct pv_profile *p, pv_frame_ix f)
{
	return PV_OPT_COL(p->frames.column, f, 0);
}
static inline uint16_t pv_frame_inline_depth(const struct pv_profile *p, pv_frame_ix f)
{
	return PV_OPT_COL(p->frames.inline_depth, f, 0);
}
static inline pv_cat_ix pv_frame_category(const struct pv_profile *p, pv_frame_ix f)
{
	return PV_OPT_COL(p->frames.category, f, PV_NONE);
}
static inline uint16_t pv_frame_subcategory(const struct pv_profile *p, pv_frame_ix f)
{
	return PV_OPT_COL(p->frames.subcategory, f, 0);
}
static inline uint8_t pv_frame_kind(const struct pv_profile *p, pv_frame_ix f)
{
	return PV_OPT_COL(p->frames.kind, f, PV_FRAME_CODE);
}
static inline pv_source_ix pv_frame_source(const struct pv_profile *p, pv_frame_ix f)
{
	return PV_OPT_COL(p->frames.source, f, PV_NONE);
}

/* Address of frame f, PV_ADDR_NONE when unknown. */
static inline uint64_t pv_frame_addr(const struct pv_profile *p, pv_frame_ix f)
{
	return p->frames.addr ? p->frames.addr[f] : PV_ADDR_NONE;
}

/* Time of sample s, PV_TIME_NONE when unknown. */
static inline int64_t pv_sample_time(const struct pv_profile *p, uint32_t s)
{
	return p->samples.time_ns ? p->samples.time_ns[s] : PV_TIME_NONE;
}

/* The instruction address sample s hit (samples.addr), PV_ADDR_NONE when unknown. */
static inline uint64_t pv_sample_addr(const struct pv_profile *p, uint32_t s)
{
	return p->samples.addr ? p->samples.addr[s] : PV_ADDR_NONE;
}

/* Weight of sample s for metric m. */
static inline int64_t pv_sample_weight(const struct pv_profile *p, pv_metric_ix m, uint32_t s)
{
	const int64_t *w = p->samples.weight[m];
	return w ? w[s] : 1;
}

/*
 * Whether label set ls has a label key=value: value is a string label's text, or a number
 * (decimal, optionally followed by the label's unit, "4096" or "4096bytes"). ls 0 has none.
 */
int pv_label_set_has(const struct pv_profile *p, uint32_t ls, const char *key, const char *value);

/*
 * Waits for the checks an import left running and returns 0, or PV_EPARSE with err (one line:
 * the file, the byte, what is damaged). Only a snapshot leaves some: the checksums of its big
 * sections, verified on a second thread while the caller computes (pv/snapshot.h); every index
 * of the profile is checked before the import returns, so the profile is safe to read, but a
 * front end calls this before it shows what it computed. 0 at once for any other profile; may be
 * called any number of times, from any thread.
 */
int pv_profile_check(const struct pv_profile *p, struct pv_error *err);

/* Frees the profile and everything it owns; NULL is a no-op. */
void pv_profile_free(struct pv_profile *p);

/*
 * Checks every invariant of the model. Returns 0, or PV_EPARSE with err naming the first broken
 * invariant (table, row, column). Costs one pass over every table.
 */
int pv_profile_validate(const struct pv_profile *p, struct pv_error *err);

/* Name of a unit ("count", "ns", "bytes", ...). */
const char *pv_unit_name(enum pv_unit u);

/* Finds a metric by name (exact, else case-insensitive) or index text; PV_NONE when absent. */
pv_metric_ix pv_metric_find(const struct pv_profile *p, const char *name);

/*
 * Formula i of p (pv_formulas) as one text: "F", "F; self: S" when its selves have a formula of
 * their own, "self: S" when it has no total. snprintf's contract.
 */
size_t pv_formula_text(const struct pv_profile *p, uint32_t i, char *buf, size_t n);

/*
 * Finds threads whose name equals s or whose tid is s, or the one thread "#N" (its index, the
 * '#' column of `info`: names and tids can repeat, an index cannot); returns how many match
 * (at most cap are written to out).
 */
uint32_t pv_thread_find(const struct pv_profile *p, const char *s, pv_thread_ix *out, uint32_t cap);

/*
 * The leaf category of every stack: its frame's, else (a frame without one) its caller's, and
 * none for a stack no frame of which has one. Returns the array (pv_free) or NULL (no memory).
 */
pv_cat_ix *pv_stack_leaf_categories(const struct pv_profile *p, pv_cat_ix none);
/*
 * The category of every function: that of its first frame that has one (a function's frames
 * share their category but for a JIT tier's subcategory), PV_NONE when none of its frames has
 * one (its calls inherit their caller's). *out (pv_free) is NULL when no frame of the profile
 * has a category. Returns 0 or PV_ENOMEM.
 */
int pv_func_categories(const struct pv_profile *p, pv_cat_ix **out);
/* The index of the category named "Idle" (the Firefox Profiler's), PV_NONE when none is. */
pv_cat_ix pv_idle_category(const struct pv_profile *p);

#endif

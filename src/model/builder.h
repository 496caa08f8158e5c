/*
 * builder.h - how importers fill a profile.
 *
 * Every row goes through an intern call that deduplicates it (strings by bytes, functions by
 * (name, module, source, line, column), frames by all their columns, stacks by (prefix, frame)), so
 * an importer that reads per-thread tables, or a text format that repeats itself, gets one
 * profile-wide table without knowing it.
 *
 * Errors are sticky: after an allocation failure every call returns PV_NONE (or does nothing)
 * and builder_finish() returns PV_ENOMEM. Importers therefore check only the parse, not each call.
 */
#ifndef PV_MODEL_BUILDER_H
#define PV_MODEL_BUILDER_H

#include <stdbool.h>

#include "base/hash.h"
#include "pv/profile.h"

struct sample_run {
	pv_thread_ix thread;
	uint32_t begin; /* first sample of the run */
};

struct pv_builder {
	struct pv_profile *p;
	int status; /* 0 or the first error */
	/*
	 * Strings (builder.c's strmap): per slot a 16-bit tag of the hash (0: a free slot) and the
	 * row, 6 bytes instead of an ixmap's 8 (10 M unique names: 101 MB, not 134); the tags do
	 * not hold the hash, so a grow hashes the strings again, in row order.
	 */
	struct {
		uint16_t *tag;
		uint32_t *row;
		uint32_t mask, count;
	} str_map;
	struct ixmap module_map, source_map, func_map, frame_map, cat_map;
	/*
	 * Stacks by (prefix, frame), open addressing: a slot is three words, prefix, frame and
	 * row + 1 (0 when free), so a probe finds or rules out a key in one cache line.
	 */
	struct {
		uint32_t *slot;
		uint32_t mask, count;
	} stack_map;
	/*
	 * Most stacks have one child at most (the deep part of call paths): first_child[p + 1]
	 * (p = PV_NONE wraps to 0, the roots) holds the only child of stack p as frame << 32 |
	 * (row + 1), 0 when p has none, and low word UINT32_MAX once p has several: only those
	 * children are in stack_map.
	 */
	uint64_t *first_child;
	uint32_t fc_cap, fc_len; /* fc_len: the entries set (to 0 when new) */
	/*
	 * Bare keys, found by index instead of in a hash map (a file of unique stacks makes one of
	 * each per stack): [string] the function with only a name, [function] the frame with only
	 * a function, [frame] the root stack of that frame. Each holds row + 1, 0 when none; while
	 * the indices set run lo, lo + 1, ... with the rows base, base + 1, ..., no column (row1
	 * NULL, len the run's end: builder.c's bare_set).
	 */
	struct bare_index {
		uint32_t *row1;
		uint32_t len, cap;
		uint32_t lo, base;
	} bare_func, bare_frame, root_stack;
	/* labels (hash + k -> row) and label sets (hash of the items + k -> row) */
	struct u64map label_map, set_map;
	bool stacks_done; /* stack_map freed by builder_stacks_done: rebuilt on the next stack */
	/* frame_map freed by builder_frame_append: rebuilt on the next builder_frame that hashes */
	bool frames_unmapped, frame_appending;
	/* Samples arrive in runs of one thread; they are grouped by thread in builder_finish. */
	struct sample_run *runs;
	uint32_t nr_runs, runs_cap;
	/* the symbolizer's options (--symbols, --vmlinux, --no-symbols) for importers of addresses;
	 * NULL: the defaults (import/symbols.h) */
	const struct symz_opts *sym;
	/* the caller reads no calling context (pv_import_opts' no_contexts): an importer that
	 * estimates them (callgrind) may leave the samples out, and its call edges */
	bool no_contexts;
	/* scratch key for the eq callbacks */
	const void *key;
	size_t key_len;
};

struct frame_key {
	pv_func_ix func;
	uint32_t line, column;
	uint64_t addr;
	uint16_t inline_depth;
	uint16_t subcategory;
	pv_cat_ix category;
	uint8_t kind;	  /* enum pv_frame_kind: 0, a code frame, unless set */
	uint32_t source1; /* the frame's own source + 1 (frames.source); 0: its function's */
};

/* Starts a new, empty profile (string 0 = ""). Returns 0 or PV_ENOMEM. */
int builder_init(struct pv_builder *b);
/* Frees what the builder holds, including the profile if builder_finish did not take it. */
void builder_release(struct pv_builder *b);
/*
 * Groups samples by thread, fixes thread sample ranges, frees the maps and hands the profile
 * to *out. Returns 0, PV_ENOMEM, or the sticky error.
 */
int builder_finish(struct pv_builder *b, struct pv_profile **out);

pv_str_ix builder_str(struct pv_builder *b, const char *s, size_t len);
static inline pv_str_ix builder_cstr(struct pv_builder *b, const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return builder_str(b, s, n);
}
/* printf into an interned string. */
pv_str_ix builder_strf(struct pv_builder *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A category by name (interned); color used when it is new. */
pv_cat_ix builder_category(struct pv_builder *b, pv_str_ix name, pv_str_ix color);
/* Appends a subcategory name to category c (in order); returns its index within c. */
uint32_t builder_subcategory(struct pv_builder *b, pv_cat_ix c, pv_str_ix name);

pv_module_ix builder_module(struct pv_builder *b, pv_str_ix name, pv_str_ix path,
			    enum pv_module_kind kind);
pv_source_ix builder_source(struct pv_builder *b, pv_str_ix path);
/*
 * A function by (name, module, source, line, column); line and column of its definition, 0 when
 * unknown (a column without a line is dropped). Formats that place functions by column
 * (JavaScript) pass it: two functions on one line of minified code are two functions.
 */
pv_func_ix builder_func_at(struct pv_builder *b, pv_str_ix name, pv_module_ix module,
			   pv_source_ix source, uint32_t line, uint32_t column);
/*
 * A new function, even when one of the same key exists (a format whose functions are its own
 * entries, not their key: speedscope's shared frames); builder_func_at still finds the first.
 */
pv_func_ix builder_func_new(struct pv_builder *b, pv_str_ix name, pv_module_ix module,
			    pv_source_ix source, uint32_t line, uint32_t column);
/* A function of a format without columns. */
static inline pv_func_ix builder_func(struct pv_builder *b, pv_str_ix name, pv_module_ix module,
				      pv_source_ix source, uint32_t line)
{
	return builder_func_at(b, name, module, source, line, 0);
}
pv_frame_ix builder_frame(struct pv_builder *b, const struct frame_key *k);
/*
 * Appends the frame k, which the caller knows is not in the table yet (an importer that
 * deduplicates its own frames: hpc_cct_stacks), without looking it up. The map that deduplicates
 * frames is dropped (a later builder_frame rebuilds it from the frame table).
 */
pv_frame_ix builder_frame_append(struct pv_builder *b, const struct frame_key *k);
/* A frame with only a function (line/addr unknown, category inherited). */
pv_frame_ix builder_func_frame(struct pv_builder *b, pv_func_ix f);
/* Room for n more frames (an upper bound is fine: the rows not used are never touched). */
void builder_frames_reserve(struct pv_builder *b, uint32_t n);
pv_stack_ix builder_stack(struct pv_builder *b, pv_stack_ix prefix, pv_frame_ix frame);
/*
 * The importer will add no stack for a while (its stack table is complete; it maps its own
 * stack indices from now on): frees the map that deduplicates stacks. A later builder_stack
 * rebuilds it from the stack table.
 */
void builder_stacks_done(struct pv_builder *b);
/* Room for n more stacks (a table about to be interned): no growth, no rehashing on the way. */
void builder_stacks_reserve(struct pv_builder *b, uint32_t n);
/*
 * Appends the stack (prefix, frame), which the caller knows is not in the table yet (an importer
 * that deduplicates its own tree: hpc_cct_stacks), without looking it up. The map that
 * deduplicates stacks is dropped as by builder_stacks_done (a later builder_stack rebuilds it).
 * prefix is PV_NONE or an earlier stack.
 */
pv_stack_ix builder_stack_append(struct pv_builder *b, pv_stack_ix prefix, pv_frame_ix frame);

pv_thread_ix builder_thread(struct pv_builder *b, pv_str_ix name, int64_t pid, int64_t tid,
			    pv_str_ix process_name);
pv_metric_ix builder_metric(struct pv_builder *b, pv_str_ix name, enum pv_unit unit);
/* Sets metric m's description. */
void builder_metric_description(struct pv_builder *b, pv_metric_ix m, pv_str_ix desc);
/*
 * Reorders the metrics made so far: metric order[i] becomes metric i (order: a permutation of
 * 0..len-1), their weight columns and the default metric with them. For an importer that makes
 * each metric at its first sample and orders them as its file lists them, before any formula,
 * function cost or call graph cost names a metric.
 */
void builder_metrics_order(struct pv_builder *b, const pv_metric_ix *order);
/*
 * Adds a metric defined by a formula over the others (pv_formulas): formula that of its totals
 * (0: none), self that of its selves (0: formula's); 0 or PV_ENOMEM.
 */
int builder_formula(struct pv_builder *b, pv_str_ix name, pv_str_ix formula, pv_str_ix self,
		    pv_str_ix desc);

/*
 * Appends a sample. weights has one value per metric defined so far (NULL = all 1). Define every
 * metric before the first sample; a metric added later gets weight 0 for earlier samples.
 */
void builder_sample(struct pv_builder *b, pv_thread_ix t, pv_stack_ix stack, int64_t time_ns,
		    const int64_t *weights);

/*
 * Samples written in place, for importers that read whole columns: no per-sample call and no
 * copy from a temporary column.
 *
 * builder_samples_reserve makes the sample columns (stack, time, and the weight columns that
 * exist) hold at least rows samples in all, exactly rows when exact, else with room to grow.
 * Rows past samples.len belong to the importer: it writes samples.stack[i] and
 * samples.time_ns[i] there itself, and they are kept when the columns move (any reserve may move
 * them: take the pointers again after each). Returns 0 or the sticky error.
 *
 * builder_samples_commit appends the n rows written from row first (at least samples.len; rows
 * in between are dropped) as samples of thread t, each of weight 1 for every metric.
 *
 * builder_samples_weight returns metric m's weight column, made when it had none (every
 * sample so far weighing 1), for the importer to set the weights of rows it committed; NULL on
 * error. Define every metric before committing samples (as for builder_sample).
 */
int builder_samples_reserve(struct pv_builder *b, uint64_t rows, bool exact);
/*
 * Room for rows samples when memory allows (no error when not): an importer that knows an
 * upper bound of its samples (from the bytes left in its input) asks for it once, so the
 * columns never move (each move copied them, and the copies' fresh pages were the kernel's work).
 * Only the pages written are ever touched; the rest of the room stays address space.
 */
void builder_samples_room(struct pv_builder *b, uint64_t rows);
void builder_samples_commit(struct pv_builder *b, pv_thread_ix t, uint32_t first, uint32_t n);
int64_t *builder_samples_weight(struct pv_builder *b, pv_metric_ix m);
/*
 * builder_samples_adopt appends n samples of thread t, each of weight 1 for every metric, whose
 * stack and time columns the importer made itself (pv_malloc'd, at least n rows: a V8 profile's
 * node ids and time deltas converted in place). While the profile has no sample columns yet,
 * the arrays become them, so the samples are never held twice; else they are copied and freed.
 * The builder owns both arrays from the call on, also on error. Returns 0 or the sticky error.
 */
int builder_samples_adopt(struct pv_builder *b, pv_thread_ix t, pv_stack_ix *stack,
			  int64_t *time_ns, uint32_t n);
/*
 * The samples' event delay column (samples.event_delay_ns), made when there is none (every
 * sample so far without one), for the importer to set the rows it appended; NULL on error.
 */
int64_t *builder_samples_event_delay(struct pv_builder *b);
/*
 * The samples' instruction address column (samples.addr), made when there is none (every sample
 * so far without one), for the importer to set the rows it appended; NULL on error.
 */
uint64_t *builder_samples_addr(struct pv_builder *b);

struct raw_marker {
	pv_str_ix name;
	pv_cat_ix category;
	enum pv_marker_phase phase;
	int64_t start_ns, end_ns;
	pv_thread_ix thread;
	pv_str_ix payload;
	pv_stack_ix cause_stack;
	int64_t cause_time_ns;
};
void builder_marker(struct pv_builder *b, const struct raw_marker *m);
/* Room for n more markers (an importer that knows how many it will add: their pages are mapped
 * at once, not faulted in one by one); errors are sticky. */
void builder_markers_reserve(struct pv_builder *b, uint32_t n);

/*
 * Appends a trace record (pv_profile.trace): thread t was in stack (PV_NONE: not running) from
 * time_ns on. Any order: builder_finish sorts the records by thread, then time (stable). The
 * importer sets p->trace.end_ns.
 */
void builder_trace(struct pv_builder *b, pv_thread_ix t, int64_t time_ns, pv_stack_ix stack);

/*
 * A label row (pv_labels) by (key, str, num, unit), interned; PV_NONE on error. A label set
 * (pv_label_sets) of n label rows, interned: items are sorted and deduplicated in place; set 0
 * (the empty set, made with the first set) for n = 0; 0 on error too (status set).
 */
uint32_t builder_label(struct pv_builder *b, pv_str_ix key, pv_str_ix str, int64_t num,
		       pv_str_ix unit);
uint32_t builder_label_set(struct pv_builder *b, uint32_t *items, uint32_t n);

/* Records a lossy step (same message text = same row, counts add up). */
void builder_lossy(struct pv_builder *b, uint64_t count, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif

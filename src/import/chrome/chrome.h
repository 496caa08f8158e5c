/*
 * chrome.h - the Chrome importer's tables and what its files share: chrome.c (the entry:
 * building the profile, probe and import), chrome_trace.c (trace events, the top level of both
 * forms, stackFrames and their samples), chrome_v8.c (V8's node trees: .cpuprofile,
 * .heapprofile and the trace's profile events) and chrome_common.c (errors and small readers,
 * threads, frames), which the others call and which calls none of them. Internal to the
 * importer: every name here starts with ch_ or is one of its table types.
 */
#ifndef PV_IMPORT_CHROME_H
#define PV_IMPORT_CHROME_H

#include <stdbool.h>
#include <stdint.h>

#include "base/hash.h"
#include "base/sbuf.h"
#include "base/vec.h"
#include "import/importer.h"
#include "import/json.h"

#define PROBE_WINDOW ((size_t)1 << 20)
#define ID_MISSING   INT64_MIN
#define ID_STRANGE   (INT64_MIN / 2) /* + k: the k-th pid/tid text that is not a number */
#define NO_IX	     UINT32_MAX

/* ---- the importer's tables ---- */

struct cthread {
	int64_t pid, tid;
	uint32_t first; /* order of first appearance */
	uint32_t proc;	/* index into procs */
	int64_t sort_index;
	pv_str_ix name;
	bool used;
	pv_thread_ix out;
};

struct cproc {
	int64_t pid;
	uint32_t first;
	int64_t sort_index;
	pv_str_ix name, labels;
};

/* A marker as read; its index in marks is its order in the file (40 bytes). */
struct cmark {
	int64_t start, end; /* absolute ns */
	pv_str_ix name;
	pv_cat_ix cat;
	uint32_t thread;
	pv_str_ix payload;
	uint32_t sf; /* pool offset of the 'sf' id text, 0 when none */
	uint8_t phase;
	char ph; /* the event's phase letter */
};

struct vprof {
	int64_t pid;
	uint32_t key; /* pool offset of the id text */
	uint32_t thread;
	int64_t start; /* absolute ns, PV_TIME_NONE */
	int64_t end;   /* absolute ns, PV_TIME_NONE */
	uint32_t order;
	/* its samples in psamples, in time order (build) */
	uint32_t s_begin, s_len;
};

/*
 * The cpu profile data of one event (Profile, ProfileChunk, CpuProfile) or of a .cpuprofile:
 * ranges into the shared columns, set when each array is read (a repeated key replaces).
 */
struct vchunk {
	int64_t pid;
	uint32_t key;  /* pool offset of the profile id text */
	uint32_t prof; /* NO_IX until resolved */
	int64_t ts;    /* the event's ts, PV_TIME_NONE */
	int64_t end;   /* when the chunk says the profile ended, PV_TIME_NONE */
	int64_t span;  /* a whole profile in a chunk: endTime - startTime, PV_TIME_NONE */
	uint32_t order;
	uint32_t s_begin, s_len; /* node ids of samples (s_ids) */
	uint32_t d_begin, d_len; /* time deltas, ns (deltas) */
	uint32_t l_begin, l_len; /* per-sample lines (s_lines) */
	uint32_t c_begin, c_len; /* per-sample columns (s_cols) */
	uint32_t t_begin, t_len; /* old layout: absolute sample times, ns (stamps) */
	struct json_tok start_tok, end_tok;
	bool has_start, has_end, has_lines, has_cols, has_stamps, has_deltas, has_samples;
	bool done; /* its event was read whole */
};

struct vnode {
	uint32_t chunk;
	int64_t id;
	int64_t parent;
	bool has_parent;
	bool root_name; /* named (root): no frame of its own when it has no parent */
	bool has_self;	/* a sampling heap profile's node: selfSize */
	int64_t self;	/* its selfSize, bytes */
	pv_frame_ix frame;
	uint32_t t_begin, t_len; /* its positionTicks: {line, ticks} pairs in ticks */
};

struct vedge {
	uint32_t chunk;
	bool resolved; /* parent holds the parent's id */
	int64_t parent, child;
};

struct sframe {
	uint32_t id;	 /* pool offset */
	uint32_t parent; /* pool offset, 0 when none */
	pv_frame_ix frame;
};

struct gsample {
	int64_t pid, tid;
	int64_t ts;  /* absolute ns, PV_TIME_NONE */
	uint32_t sf; /* pool offset, 0 when none */
	int64_t weight;
	uint32_t thread; /* set at build */
	uint32_t seq;
};

/* A sample of a sampling heap profile: {size, nodeId, ordinal}. */
struct hsample {
	int64_t size, node, ordinal;
	uint32_t seq;
};

/* A sample ready for the builder (build). */
struct psample {
	int64_t time;  /* absolute ns */
	uint32_t node; /* index into nodes, NO_IX when unknown */
	uint32_t seq;  /* its place in its profile as read; its line in plines[s_begin + seq] */
};

/* Callframe fields of one node (one per nesting level of the old 'head' tree). */
struct cframe {
	struct sbuf fn, url;
	int64_t line, col; /* 0-based; -1 unknown */
};

enum ev_kind { EV_OTHER, EV_PROFILE, EV_CHUNK, EV_CPUPROFILE };

struct ev {
	char ph;
	bool has_ph, ph_long, has_name, has_cat, has_ts, has_dur, has_tdur, has_id, has_sf;
	bool has_scope;
	int64_t ts, dur, tdur, pid, tid;
	const char *args_p; /* deferred 'args' value */
	bool args_read;
	/* what the args said */
	bool has_payload, args_had_id;
	bool meta_name, meta_sort;
	int64_t sort_index;
	uint32_t chunk; /* the chunk record of a profile event, NO_IX */
};

#define TRUNCATED 2 /* the input ended inside an event (array form, lenient) */

/*
 * The next member of an object the Chrome reader walks: json_next_member, the end of the input
 * inside the object reported as TRUNCATED. Returns 0 with k a JSON_KEY (v its value) or the
 * object's end, else the error.
 */
static inline int ch_next_member(struct json *j, struct json_tok *k, struct json_tok *v)
{
	int rc = json_next_member(j, k, v);
	return rc ? rc : k->kind == JSON_EOF ? TRUNCATED : 0;
}

struct ch {
	struct pv_builder *b;
	struct pv_input *in;
	struct pv_error *err;
	struct json j;

	struct vec threads, procs, marks, profs, chunks, nodes, edges, sframes, gsamples;
	struct vec hsamples;		  /* struct hsample */
	struct vec s_ids, deltas, stamps; /* int64 */
	struct vec s_lines, s_cols;	  /* uint32 */
	struct vec psamples;
	/*
	 * The samples of a profile read whole from one array pair (a .cpuprofile): the time
	 * deltas turned into absolute times (int64) and the node ids into node indices (uint32,
	 * NO_IX when unknown) in the arrays read from the file, which then become the model's
	 * time and stack columns (builder_samples_adopt). Empty otherwise: psamples.
	 */
	struct vec dtimes, dnodes;
	uint32_t dprof; /* the profile they are of, NO_IX when none */
	struct vec
	    plines; /* uint32 line, column per psample as read; empty when no chunk has lines */
	struct vec strange; /* uint32 pool offsets of non-numeric ids */
	struct vec ticks;   /* uint32 line, ticks: the nodes' positionTicks */
	struct ixmap thread_map, proc_map, node_map, sframe_map, prof_map;
	struct sbuf pool; /* NUL-terminated texts; offset 0 is "" */

	/* the event being read */
	struct ev ev;
	struct sbuf name, cat, id, scope, sf, meta, cap, argid, payload, tmp;

	/* categories of frames, made on first use */
	pv_cat_ix cat_other, cat_idle, cat_js, cat_gc, cat_native;

	uint32_t order;
	uint32_t last_thread;	/* ch_get_thread's last answer (threads.len: none yet) */
	const char *marks_from; /* where the events began (mark_slot) */
	uint32_t nr_cpuprofiles;
	const char *product;
	/* a sampling heap profile (.heapprofile): the head tree's nodes carry selfSize */
	bool heap;
	uint32_t heap_prof; /* its profile */
	uint64_t heap_nodes;
	int64_t heap_self, heap_size; /* sums of selfSize and of samples' size (kept in range) */

	/* counts for the import report */
	uint64_t ph_count[128];
	uint64_t no_ph, no_ts, tts, not_event, truncated, unclosed, neg_dur, x_tdur, x_nodur;
	uint64_t orphan_samples, deltas_mismatch, lines_mismatch, no_start;
	uint64_t bad_ticks, ticks_mismatch, missing_parent, unknown_node, dup_nodes, args_id,
	    stack_fields;
	uint64_t flow_fields, gs_unknown_sf, sf_unknown, cycles;
	uint64_t dur_unmatched, dur_open;
	uint64_t heap_mismatch, heap_unused;
};

/* A stackFrames id looked up in sframe_map (ch_sframe_eq). */
struct text_key {
	const struct ch *c;
	const char *s;
};

/* ---- chrome_common.c ---- */

/* Whether id is the stand-in of a pid/tid text that is not a number (ch_read_id). */
static inline bool ch_id_is_strange(const struct ch *c, int64_t id)
{
	return id >= ID_STRANGE && id < ID_STRANGE + (int64_t)c->strange.len;
}

/* The id as the model keeps it: none when missing or not a number. */
static inline int64_t ch_id_model(const struct ch *c, int64_t id)
{
	return id == ID_MISSING || ch_id_is_strange(c, id) ? PV_ID_NONE : id;
}

int ch_oom(struct ch *c);
uint32_t ch_pool_add(struct ch *c, const char *s, size_t n);
const char *ch_pool_s(const struct ch *c, uint32_t off);
int ch_read_fixed(struct ch *c, struct json *j, const struct json_tok *t, int pow10,
		  const char *what, int64_t *out, bool *have);
int ch_text_member(struct json *j, const struct json_tok *v, struct sbuf *out, bool *has);
int ch_read_id(struct ch *c, struct json *j, const struct json_tok *t, const char *what,
	       int64_t *out);
uint32_t ch_get_proc(struct ch *c, int64_t pid);
uint32_t ch_get_thread(struct ch *c, int64_t pid, int64_t tid);
pv_frame_ix ch_v8_frame(struct ch *c, const char *fn, size_t fn_len, const char *url,
			size_t url_len, int64_t line0, int64_t col0);
pv_frame_ix ch_sf_frame(struct ch *c, const char *s, size_t n, const char *cat, size_t cat_len);
int ch_rel(struct ch *c, int64_t t, int64_t zero, int64_t *out);
/*
 * pv_sort_r for a total order (no two rows equal), skipped when the rows are in order already
 * (a trace written as it goes): n - 1 comparisons instead of a merge sort and its buffer.
 */
void ch_sort_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
	       const void *ctx);

/* ---- chrome_v8.c ---- */

struct vchunk *ch_chunk_at(struct ch *c, uint32_t ci);
uint32_t ch_new_chunk(struct ch *c);
int ch_read_numbers(struct ch *c, struct json *j, const struct json_tok *first, int pow10,
		    struct vec *v, bool u32, const char *what);
uint32_t ch_tick_line(struct ch *c, uint32_t node, uint32_t *cur);
void ch_ticks_check(struct ch *c, const uint32_t *cur);
int ch_heap_bytes(struct json *j, const struct json_tok *v, const char *what, int64_t *out);
int ch_cpu_member(struct ch *c, struct json *j, const struct json_tok *k, const struct json_tok *v,
		  uint32_t ci, uint32_t depth);
int ch_read_cpu_object(struct ch *c, struct json *j, const struct json_tok *t, uint32_t ci,
		       uint32_t depth);
int ch_chunk_time(struct ch *c, const struct json_tok *t, bool seconds, const char *what,
		  int64_t *out);
uint32_t ch_find_prof(struct ch *c, int64_t pid, const char *key, bool create);
const char *ch_prof_key_text(struct ch *c);
int ch_whole_profile(struct ch *c, uint32_t ci, uint32_t th, int64_t ts);
int ch_forest_stacks(struct ch *c, uint32_t n, const uint32_t *parent, const pv_frame_ix *frame,
		     const bool *skip, pv_stack_ix *stack);
int ch_build_nodes(struct ch *c, uint32_t *node_prof, pv_stack_ix *nstack, bool *skip);
int ch_build_profiles(struct ch *c, const uint32_t *node_prof);
int ch_heap_samples(struct ch *c, const uint32_t *node_prof, const pv_stack_ix *nstack,
		    pv_thread_ix tout);

/* ---- chrome_trace.c ---- */

int ch_read_events(struct ch *c, struct json *j);
int ch_read_top_object(struct ch *c, struct json *j);
bool ch_sframe_eq(const void *ctx, uint32_t row);
uint32_t ch_sframe_find(struct ch *c, const char *s);
int ch_cmp_gsample(const void *a, const void *b);
uint32_t ch_gsample_thread(struct ch *c, const struct gsample *g);
int ch_duration_samples(struct ch *c, int64_t zero, pv_metric_ix m);

#endif

/*
 * chrome.c - Chrome trace events (array and object form) and V8 CPU profiles (.cpuprofile).
 *
 * Inputs (Chrome's "Trace Event Format" document and V8's Profiler.Profile):
 *   - a trace, array form: [event, event, ...], where a missing closing ']' and a trailing comma
 *     are accepted (crashed writers); a truncated last event is dropped and reported;
 *   - a trace, object form: {"traceEvents": [...], "samples": [...], "stackFrames": {...}, ...};
 *   - a .cpuprofile (DevTools Profiler.Profile, node --cpu-prof): {nodes, samples, timeDeltas,
 *     startTime, endTime}, and the older V8 layout {head (a nested tree), samples, timestamps}.
 *   - a sampling heap profile (.heapprofile: DevTools "Allocation sampling", node --heap-prof):
 *     {head: NODE, samples: [{size, nodeId, ordinal}]}, NODE = {callFrame, selfSize, id,
 *     children: [NODE]}; older ones (Chrome 69, Node 10) have neither ids nor samples.
 *
 * What becomes what:
 *   - threads are (pid, tid) pairs that carry samples or markers; 'M' events name them
 *     (thread_name, process_name + process_labels) and order them (process_sort_index, then
 *     thread_sort_index, then first appearance in the file);
 *   - V8 CPU samples: a 'Profile' event opens a profile on its own thread, its 'ProfileChunk'
 *     events (matched by pid and id, wherever they are in the file, ordered by ts) bring nodes
 *     (callFrame, parent), samples, timeDeltas and per-sample source lines; the older single
 *     'CpuProfile' event and a .cpuprofile carry one whole profile (nodes with children). The
 *     (root) node is not a frame; lineNumber/columnNumber are 0-based in the file and 1-based in
 *     the model. A sample's time is startTime plus its timeDeltas (µs -> ns exactly); samples are
 *     put in time order when deltas were negative. Two metrics: "samples" (1 each) and "time"
 *     (ns, the default): the time up to the profile's next sample, the last one lasting until the
 *     profile's end (endTime, or the ts of the chunk that carries it), 0 when the file has none;
 *   - a sampling heap profile: one thread "heap", no times; its nodes become stacks as a
 *     .cpuprofile's do (the (root) node is no frame). With samples: one model sample per
 *     allocation sample in 'ordinal' order, metrics "bytes" (its size, the default) and
 *     "allocations" (1 each), and every node's selfSize checked against its samples' sizes (a
 *     mismatch is reported). Without: one sample per node with a selfSize, metric "bytes";
 *   - object form "samples" with "stackFrames" (Hermes and others): one sample each on its
 *     (pid, tid) thread, "weight" as its samples weight, time as above within its thread;
 *   - events as raw markers (the marker module pairs them later): B start, E end, X interval
 *     (ts, ts + dur; tdur when dur is missing), i/I/R instant, n instant, b/S start, e/F end,
 *     T/p instant (async steps); 'cat' becomes the category, 'args' the payload (compact JSON).
 *     Async events (b e n S T F p) carry their id in the payload as "id": the id text, or for
 *     id2 "local:ID" / "global:ID", prefixed by "SCOPE:" when the event has a scope; pairing is
 *     by that id and the category (a local id within the thread's process). An event 'sf' naming
 *     a stackFrames entry becomes the marker's cause stack.
 *   - a trace with no CPU samples at all (pure trace events: Hermes, clang -ftime-trace,
 *     instrumented programs) gets the call tree of its duration events (B/E, X) per thread, as
 *     speedscope draws it: every stretch of time with events open is a sample of the open stack
 *     weighing the stretch, metric "time" (see duration_samples); the markers stay as they are;
 *   - counters, flows, object snapshots, memory dumps, clock syncs, other 'M' and 'P' events,
 *     events without a time, thread-clock times, and every top-level key with no place in the
 *     model are counted in the import report.
 *
 * One streaming pass with the pull tokenizer, no DOM. Keys come in any order: an event's 'args'
 * met before its 'ph' and 'name' are known is skipped and read again from where it starts once the
 * event has ended (the input stays mapped). Everything is kept in small tables until the end,
 * where threads are ordered, stacks built, the profile's zero (the earliest time the file names)
 * found, and samples and markers handed to the builder.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/sbuf.h"
#include "base/sort.h"
#include "base/vec.h"
#include "import/importer.h"
#include "import/json.h"

#define PROBE_WINDOW ((size_t)1 << 20)
#define ID_MISSING INT64_MIN
#define ID_STRANGE (INT64_MIN / 2) /* + k: the k-th pid/tid text that is not a number */
#define NO_IX UINT32_MAX

/* ---- the importer's tables ---- */

struct cthread {
	int64_t pid, tid;
	uint32_t first; /* order of first appearance */
	uint32_t proc;  /* index into procs */
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

struct cmark {
	pv_str_ix name;
	pv_cat_ix cat;
	uint8_t phase;
	int64_t start, end; /* absolute ns */
	uint32_t thread;
	pv_str_ix payload;
	uint32_t sf; /* pool offset of the 'sf' id text, 0 when none */
	uint32_t order;
	char ph; /* the event's phase letter */
};

struct vprof {
	int64_t pid;
	uint32_t key;  /* pool offset of the id text */
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
	bool has_self;  /* a sampling heap profile's node: selfSize */
	int64_t self;   /* its selfSize, bytes */
	pv_frame_ix frame;
};

struct vedge {
	uint32_t chunk;
	bool resolved; /* parent holds the parent's id */
	int64_t parent, child;
};

struct sframe {
	uint32_t id;     /* pool offset */
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
	int64_t time; /* absolute ns */
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

struct ch {
	struct pv_builder *b;
	struct pv_input *in;
	struct pv_error *err;
	struct json j;

	struct vec threads, procs, marks, profs, chunks, nodes, edges, sframes, gsamples;
	struct vec hsamples; /* struct hsample */
	struct vec s_ids, deltas, stamps; /* int64 */
	struct vec s_lines, s_cols;       /* uint32 */
	struct vec psamples;
	struct vec
	    plines; /* uint32 line, column per psample as read; empty when no chunk has lines */
	struct vec strange; /* uint32 pool offsets of non-numeric ids */
	struct ixmap thread_map, proc_map, node_map, sframe_map, prof_map;
	struct sbuf pool; /* NUL-terminated texts; offset 0 is "" */

	/* the event being read */
	struct ev ev;
	struct sbuf name, cat, id, scope, sf, meta, cap, argid, payload, tmp;

	/* categories of frames, made on first use */
	pv_cat_ix cat_other, cat_idle, cat_js, cat_gc, cat_native;

	uint32_t order;
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
	uint64_t pos_ticks, missing_parent, unknown_node, dup_nodes, args_id, stack_fields;
	uint64_t flow_fields, gs_unknown_sf, sf_unknown, cycles;
	uint64_t dur_unmatched, dur_open;
	uint64_t heap_mismatch, heap_unused;
};

/* ---- errors and small readers ---- */

static int oom(struct ch *c)
{
	return json_fail(&c->j, NULL, "out of memory");
}

static uint32_t pool_add(struct ch *c, const char *s, size_t n)
{
	if (c->pool.len > UINT32_MAX - n - 2)
		return 0;
	uint32_t off = (uint32_t)c->pool.len;
	if (sbuf_put(&c->pool, s, n) || sbuf_put(&c->pool, "", 1))
		return 0;
	return off;
}

static const char *pool_s(const struct ch *c, uint32_t off)
{
	return off < c->pool.len ? c->pool.buf + off : "";
}

static bool is_number_text(const char *s, size_t n)
{
	size_t i = 0;
	if (i < n && s[i] == '-')
		i++;
	size_t d = i;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	bool digits = i > d;
	if (i < n && s[i] == '.') {
		i++;
		size_t f = i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		digits = digits || i > f;
	}
	if (!digits)
		return false;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		size_t e = i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == e)
			return false;
	}
	return i == n;
}

/*
 * A number, or a string holding one, times 10^pow10, as an exact integer. *have is false for
 * null. Strings that hold no number are an error naming what.
 */
static int read_fixed(struct ch *c, struct json *j, const struct json_tok *t, int pow10,
		      const char *what, int64_t *out, bool *have)
{
	*have = false;
	if (t->kind == JSON_NULL)
		return 0;
	if (t->kind == JSON_NUMBER) {
		int rc = json_fixed(j, t, pow10, out);
		if (!rc)
			*have = true;
		return rc;
	}
	if (t->kind == JSON_STRING && !t->escaped && is_number_text(t->s, t->len)) {
		struct json_tok n = {.kind = JSON_NUMBER, .s = t->s, .len = t->len};
		int rc = json_fixed(j, &n, pow10, out);
		if (!rc)
			*have = true;
		return rc;
	}
	(void)c;
	return json_fail_at(j, t, "expected %s (a number), found %s", what,
			    t->kind == JSON_STRING ? "a string that is not a number"
						   : json_kind_name(t->kind));
}

/* A member whose value is text (json_text) into out, *has set; any other value is skipped. */
static int text_member(struct json *j, const struct json_tok *v, struct sbuf *out, bool *has)
{
	int rc = json_text(j, v, out);
	if (rc == 1)
		return json_skip(j, v);
	if (!rc)
		*has = true;
	return rc;
}

/* A pid or tid: a number, a string (numeric or not), or null. */
static int read_id(struct ch *c, struct json *j, const struct json_tok *t, const char *what,
		   int64_t *out)
{
	if (t->kind == JSON_NULL) {
		*out = ID_MISSING;
		return 0;
	}
	if (t->kind == JSON_NUMBER) {
		int rc = json_i64(j, t, out);
		if (!rc && *out == ID_MISSING)
			*out = ID_MISSING + 1;
		return rc;
	}
	if (t->kind != JSON_STRING)
		return json_fail_at(j, t, "expected %s (a number or a string), found %s", what,
				    json_kind_name(t->kind));
	int rc = json_text(j, t, &c->tmp);
	if (rc)
		return rc;
	const char *s = sbuf_str(&c->tmp);
	size_t n = c->tmp.len;
	if (n && n < 19 && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))) {
		size_t i = s[0] == '-';
		int64_t v = 0;
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			v = v * 10 + (s[i] - '0');
		if (i == n && n > (size_t)(s[0] == '-')) {
			*out = s[0] == '-' ? -v : v;
			return 0;
		}
	}
	/* not a number: the k-th distinct such text */
	struct vec *v = &c->strange;
	for (uint32_t k = 0; k < v->len; k++)
		if (strcmp(pool_s(c, VEC(*v, uint32_t)[k]), s) == 0) {
			*out = ID_STRANGE + k;
			return 0;
		}
	uint32_t off = pool_add(c, s, n);
	uint32_t *slot = off ? vec_push(v, sizeof(uint32_t)) : NULL;
	if (!slot)
		return oom(c);
	*slot = off;
	*out = ID_STRANGE + (v->len - 1);
	return 0;
}

static bool id_is_strange(const struct ch *c, int64_t id)
{
	return id >= ID_STRANGE && id < ID_STRANGE + (int64_t)c->strange.len;
}

static int64_t id_model(const struct ch *c, int64_t id)
{
	return id == ID_MISSING || id_is_strange(c, id) ? PV_ID_NONE : id;
}

/* ---- threads and processes ---- */

struct pair_key {
	const struct ch *c;
	int64_t a, b;
};

static bool thread_eq(const void *ctx, uint32_t row)
{
	const struct pair_key *k = ctx;
	const struct cthread *t = &VEC(k->c->threads, struct cthread)[row];
	return t->pid == k->a && t->tid == k->b;
}

static bool proc_eq(const void *ctx, uint32_t row)
{
	const struct pair_key *k = ctx;
	return VEC(k->c->procs, struct cproc)[row].pid == k->a;
}

static uint32_t get_proc(struct ch *c, int64_t pid)
{
	struct pair_key k = {c, pid, 0};
	uint64_t h = hash_u64((uint64_t)pid);
	uint32_t slot;
	uint32_t r = ixmap_find(&c->proc_map, h, proc_eq, &k, &slot);
	if (r != UINT32_MAX)
		return r;
	struct cproc *p = vec_push(&c->procs, sizeof(*p));
	if (!p)
		return NO_IX;
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->first = c->procs.len - 1;
	r = c->procs.len - 1;
	if (ixmap_insert(&c->proc_map, slot, h, r))
		return NO_IX;
	return r;
}

static uint32_t get_thread(struct ch *c, int64_t pid, int64_t tid)
{
	struct pair_key k = {c, pid, tid};
	uint64_t h = hash_u64((uint64_t)pid * 0x9e3779b97f4a7c15ULL ^ hash_u64((uint64_t)tid));
	uint32_t slot;
	uint32_t r = ixmap_find(&c->thread_map, h, thread_eq, &k, &slot);
	if (r != UINT32_MAX)
		return r;
	uint32_t proc = get_proc(c, pid);
	if (proc == NO_IX)
		return NO_IX;
	struct cthread *t = vec_push(&c->threads, sizeof(*t));
	if (!t)
		return NO_IX;
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->proc = proc;
	t->first = c->threads.len - 1;
	t->out = PV_NONE;
	r = c->threads.len - 1;
	if (ixmap_insert(&c->thread_map, slot, h, r))
		return NO_IX;
	return r;
}

/* ---- frames ---- */

static pv_cat_ix frame_cat(struct ch *c, pv_cat_ix *slot, const char *name, const char *color)
{
	if (*slot == PV_NONE)
		*slot = builder_category(c->b, builder_cstr(c->b, name), builder_cstr(c->b, color));
	return *slot;
}

/* The module of a script URL: the origin of a web URL, else the file name. */
static pv_module_ix url_module(struct ch *c, const char *url, size_t n)
{
	if (!n)
		return PV_NONE;
	struct pv_builder *b = c->b;
	const char *sep = NULL;
	for (size_t i = 0; i + 2 < n; i++) {
		if (url[i] == '/' || url[i] == '?')
			break;
		if (url[i] == ':' && url[i + 1] == '/' && url[i + 2] == '/') {
			sep = url + i;
			break;
		}
	}
	pv_str_ix path = builder_str(b, url, n);
	if (sep && !(sep - url == 4 && memcmp(url, "file", 4) == 0)) {
		const char *host = sep + 3, *e = host;
		while (e < url + n && *e != '/' && *e != '?' && *e != '#')
			e++;
		if (e > host) {
			pv_str_ix origin = builder_str(b, url, (size_t)(e - url));
			return builder_module(b, origin, origin, PV_MODULE_RESOURCE);
		}
	}
	if (n > 5 && memcmp(url, "node:", 5) == 0)
		return builder_module(b, path, path, PV_MODULE_RESOURCE);
	const char *base = url;
	for (size_t i = 0; i < n; i++)
		if (url[i] == '/' || url[i] == '\\')
			base = url + i + 1;
	if (base == url + n)
		base = url;
	return builder_module(b, builder_str(b, base, (size_t)(url + n - base)), path,
			      PV_MODULE_RESOURCE);
}

static uint32_t line_of(int64_t zero_based)
{
	return zero_based >= 0 && zero_based < (int64_t)UINT32_MAX - 1 ? (uint32_t)zero_based + 1 : 0;
}

/* The frame of a function of a script: its name ("(anonymous)" when empty), the script's URL as
 * its module and source, 0-based line and column (-1 unknown), a category. */
static pv_frame_ix script_frame(struct ch *c, const char *fn, size_t fn_len, const char *url,
				size_t url_len, int64_t line0, int64_t col0, pv_cat_ix cat)
{
	struct pv_builder *b = c->b;
	pv_str_ix name = fn_len ? builder_str(b, fn, fn_len) : builder_cstr(b, "(anonymous)");
	pv_module_ix mod = url_module(c, url, url_len);
	pv_source_ix src = url_len ? builder_source(b, builder_str(b, url, url_len)) : PV_NONE;
	uint32_t line = line_of(line0), col = line_of(col0);
	/* name, script, line and column: two functions of one line are two, as in DevTools */
	pv_func_ix f = builder_func_at(b, name, mod, src, line, col);
	struct frame_key k = {
	    .func = f,
	    .line = line,
	    .column = col,
	    .addr = PV_ADDR_NONE,
	    .category = cat,
	};
	return builder_frame(b, &k);
}

/* A V8 call frame: name, script URL, 0-based line and column (-1 unknown). */
static pv_frame_ix v8_frame(struct ch *c, const char *fn, size_t fn_len, const char *url,
			    size_t url_len, int64_t line0, int64_t col0)
{
	pv_cat_ix cat;
	bool special = fn_len > 1 && fn[0] == '(' && fn[fn_len - 1] == ')';
	if (special && fn_len == 6 && memcmp(fn, "(idle)", 6) == 0)
		cat = frame_cat(c, &c->cat_idle, "Idle", "transparent");
	else if (special && fn_len == 19 && memcmp(fn, "(garbage collector)", 19) == 0)
		cat = frame_cat(c, &c->cat_gc, "GC / CC", "orange");
	else if (special && ((fn_len == 6 && memcmp(fn, "(root)", 6) == 0) ||
			     (fn_len == 9 && memcmp(fn, "(program)", 9) == 0)))
		cat = frame_cat(c, &c->cat_other, "Other", "grey");
	else if (url_len || line0 >= 0)
		cat = frame_cat(c, &c->cat_js, "JavaScript", "yellow");
	else
		cat = frame_cat(c, &c->cat_native, "Native", "blue");
	return script_frame(c, fn, fn_len, url, url_len, line0, col0, cat);
}

/*
 * A stackFrames entry's frame. Hermes writes "name(url:line:col)"; such names are split into the
 * function, its script and its position.
 */
static pv_frame_ix sf_frame(struct ch *c, const char *s, size_t n, const char *cat, size_t cat_len)
{
	struct pv_builder *b = c->b;
	pv_cat_ix ci = cat_len ? builder_category(b, builder_str(b, cat, cat_len),
						  builder_cstr(b, "grey"))
			       : PV_NONE;
	const char *url = NULL;
	size_t url_len = 0, fn_len = n;
	int64_t line = -1, col = -1;
	if (n > 2 && s[n - 1] == ')') {
		const char *open = memchr(s, '(', n);
		if (open && open > s) {
			/* url:line:col between the parentheses */
			const char *in = open + 1, *e = s + n - 1;
			const char *c2 = NULL, *c1 = NULL;
			for (const char *q = e - 1; q >= in; q--)
				if (*q == ':') {
					if (!c2)
						c2 = q;
					else {
						c1 = q;
						break;
					}
				}
			if (c1 && c2) {
				int64_t a = 0, bb = 0;
				bool ok = c2 > c1 + 1 && e > c2 + 1;
				for (const char *q = c1 + 1; ok && q < c2; q++)
					ok = *q >= '0' && *q <= '9' && (a = a * 10 + (*q - '0')) < 1000000000;
				for (const char *q = c2 + 1; ok && q < e; q++)
					ok = *q >= '0' && *q <= '9' && (bb = bb * 10 + (*q - '0')) < 1000000000;
				if (ok) {
					url = in;
					url_len = (size_t)(c1 - in);
					fn_len = (size_t)(open - s);
					line = a - 1; /* written 1-based */
					col = bb - 1;
				}
			}
		}
	}
	return script_frame(c, s, fn_len, url, url_len, line, col, ci);
}

/* ---- cpu profile data (nodes, samples, time deltas) ---- */

static struct vchunk *chunk_at(struct ch *c, uint32_t ci)
{
	return &VEC(c->chunks, struct vchunk)[ci];
}

/* A new chunk record (its pid, key and profile are set when its event ends). */
static uint32_t new_chunk(struct ch *c)
{
	struct vchunk *k = vec_push(&c->chunks, sizeof(*k));
	if (!k)
		return NO_IX;
	memset(k, 0, sizeof(*k));
	k->prof = NO_IX;
	k->ts = PV_TIME_NONE;
	k->end = PV_TIME_NONE;
	k->span = PV_TIME_NONE;
	k->order = c->order++;
	return c->chunks.len - 1;
}

static int next_val(struct json *j, struct json_tok *v)
{
	int rc = json_next(j, v);
	if (!rc && (v->kind == JSON_EOF || v->kind == JSON_END))
		return v->kind == JSON_EOF ? TRUNCATED : json_fail_at(j, v, "expected a value");
	return rc;
}

/*
 * The elements of an array of numbers (t is its '[', or first its first element already read)
 * appended to v: int64 scaled by 10^pow10, or uint32 (0 for what does not fit) with u32.
 */
static int read_numbers(struct ch *c, struct json *j, const struct json_tok *first, int pow10,
			struct vec *v, bool u32, const char *what)
{
	const struct json_tok *pending = first;
	for (;;) {
		if (!u32 && !pending) {
			if (v->cap - v->len < 1024) {
				uint32_t n = v->len;
				if ((uint64_t)n + 4096 > PV_MAX_ROWS)
					return json_fail(j, NULL, "too many values in '%s'", what);
				if (vec_resize(v, sizeof(int64_t), n + 4096))
					return oom(c);
				v->len = n;
			}
			enum json_run stop;
			size_t got = json_run_i64(j, pow10, VEC(*v, int64_t) + v->len,
						  v->cap - v->len, false, 0, &stop);
			v->len += (uint32_t)got;
			if (stop == JSON_RUN_END)
				return 0;
			if (stop == JSON_RUN_FULL)
				continue;
		}
		struct json_tok x;
		int rc = 0;
		if (pending) {
			x = *pending;
			pending = NULL;
		} else if ((rc = json_next(j, &x))) {
			return rc;
		}
		if (x.kind == JSON_END)
			return 0;
		if (x.kind == JSON_EOF)
			return TRUNCATED;
		if (x.kind != JSON_NUMBER)
			return json_fail_at(j, &x, "expected a number in '%s', found %s", what,
					    json_kind_name(x.kind));
		int64_t val;
		bool have;
		if (pow10 == 0)
			rc = json_i64(j, &x, &val);
		else
			rc = read_fixed(c, j, &x, pow10, what, &val, &have);
		if (rc)
			return rc;
		if (u32) {
			uint32_t *s = vec_push(v, sizeof(uint32_t));
			if (!s)
				return oom(c);
			*s = val > 0 && val < (int64_t)UINT32_MAX ? (uint32_t)val : 0;
		} else {
			int64_t *s = vec_push(v, sizeof(int64_t));
			if (!s)
				return oom(c);
			*s = val;
		}
	}
}

/* An array of numbers at t (null: none); *begin and *len get its range in v. */
static int read_number_array(struct ch *c, struct json *j, const struct json_tok *t, int pow10,
			     struct vec *v, bool u32, const char *what, uint32_t *begin,
			     uint32_t *len)
{
	if (t->kind == JSON_NULL)
		return 0;
	if (t->kind != JSON_ARRAY)
		return json_fail_at(j, t, "expected '%s' to be an array, found %s", what,
				    json_kind_name(t->kind));
	uint32_t b0 = v->len;
	int rc = read_numbers(c, j, NULL, pow10, v, u32, what);
	*begin = b0;
	*len = v->len - b0;
	return rc;
}

/* One field of a call frame (in callFrame, or on an old-layout node): 1 when k is not one. */
static int callframe_field(struct ch *c, struct json *j, const struct json_tok *k,
			   struct cframe *cf)
{
	(void)c;
	struct json_tok v;
	bool fn = json_is(k, "functionName"), url = json_is(k, "url");
	bool line = json_is(k, "lineNumber"), col = json_is(k, "columnNumber");
	if (!fn && !url && !line && !col)
		return 1;
	int rc = next_val(j, &v);
	if (rc)
		return rc;
	if (fn || url) {
		if (v.kind == JSON_NULL)
			return 0;
		if (v.kind != JSON_STRING)
			return json_fail_at(j, &v, "expected '%s' to be a string, found %s",
					    fn ? "functionName" : "url", json_kind_name(v.kind));
		return json_text(j, &v, fn ? &cf->fn : &cf->url);
	}
	if (v.kind == JSON_NULL)
		return 0;
	if (v.kind != JSON_NUMBER)
		return json_fail_at(j, &v, "expected '%s' to be a number, found %s",
				    line ? "lineNumber" : "columnNumber", json_kind_name(v.kind));
	int64_t x;
	if ((rc = json_i64(j, &v, &x)))
		return rc;
	*(line ? &cf->line : &cf->col) = x;
	return 0;
}

static int read_callframe(struct ch *c, struct json *j, struct cframe *cf)
{
	struct json_tok t, k;
	int rc = next_val(j, &t);
	if (rc)
		return rc;
	if (t.kind == JSON_NULL)
		return 0;
	if (t.kind != JSON_OBJECT)
		return json_fail_at(j, &t, "expected 'callFrame' to be an object, found %s",
				    json_kind_name(t.kind));
	for (;;) {
		if ((rc = json_next(j, &k)))
			return rc;
		if (k.kind == JSON_END)
			return 0;
		if (k.kind == JSON_EOF)
			return TRUNCATED;
		rc = callframe_field(c, j, &k, cf);
		if (rc == 1)
			rc = json_skip_value(j);
		if (rc)
			return rc;
	}
}

/* Bytes of a sampling heap profile (selfSize, a sample's size): at most 2^53, JavaScript's exact range. */
#define HEAP_MAX_BYTES ((int64_t)1 << 53)

/* A byte count v of a sampling heap profile (what names it). */
static int heap_bytes(struct json *j, const struct json_tok *v, const char *what, int64_t *out)
{
	if (v->kind != JSON_NUMBER)
		return json_fail_at(j, v, "expected '%s' to be a number, found %s", what,
				    json_kind_name(v->kind));
	int rc = json_i64(j, v, out);
	if (!rc && (*out < 0 || *out > HEAP_MAX_BYTES))
		rc = json_fail_at(j, v, "'%s' out of range (0 to 2^53 bytes): %.*s", what,
				  (int)(v->len > 40 ? 40 : v->len), v->s);
	return rc;
}

static int read_int_value(struct json *j, const char *what, int64_t *out, bool *have)
{
	struct json_tok v;
	int rc = next_val(j, &v);
	if (rc)
		return rc;
	*have = false;
	if (v.kind == JSON_NULL)
		return 0;
	if (v.kind != JSON_NUMBER)
		return json_fail_at(j, &v, "expected %s (a number), found %s", what,
				    json_kind_name(v.kind));
	if ((rc = json_i64(j, &v, out)))
		return rc;
	*have = true;
	return 0;
}

/*
 * One node object, its '{' read: {id, callFrame, parent, children: [ids], positionTicks, ...},
 * or an old-layout node {functionName, url, lineNumber, id, children: [node, ...]} whose nested
 * children are read first and get this node as parent when it ends, or a sampling heap profile's
 * node {callFrame, selfSize, id, children: [node, ...]} (older ones have no id: the node gets one
 * of its own, below any id a file writes). The recursion over nested children is bounded by the
 * tokenizer's JSON_MAX_DEPTH (a node and its 'children' array are two levels).
 */
static int read_node(struct ch *c, struct json *j, uint32_t ci, uint32_t depth)
{
	struct cframe cf = {.line = -1, .col = -1};
	struct json_tok k, v;
	int64_t id = 0, parent = 0, self = 0;
	bool has_id = false, has_parent = false, has_self = false;
	uint32_t node0 = c->nodes.len, edge0 = c->edges.len;
	int rc = 0;
	for (;;) {
		if ((rc = json_next(j, &k)))
			break;
		if (k.kind == JSON_END)
			break;
		if (k.kind == JSON_EOF) {
			rc = TRUNCATED;
			break;
		}
		if (json_is(&k, "id")) {
			rc = read_int_value(j, "a node 'id'", &id, &has_id);
		} else if (json_is(&k, "callFrame")) {
			rc = read_callframe(c, j, &cf);
		} else if (json_is(&k, "parent")) {
			rc = read_int_value(j, "a node 'parent'", &parent, &has_parent);
		} else if (json_is(&k, "selfSize")) {
			if ((rc = next_val(j, &v)))
				break;
			if (v.kind == JSON_NULL)
				continue;
			rc = heap_bytes(j, &v, "selfSize", &self);
			if (!rc && __builtin_add_overflow(c->heap_self, self, &c->heap_self))
				rc = json_fail_at(j, &v, "the nodes' selfSize sum out of range");
			has_self = !rc;
		} else if (json_is(&k, "children")) {
			if ((rc = next_val(j, &v)))
				break;
			if (v.kind == JSON_NULL)
				continue;
			if (v.kind != JSON_ARRAY) {
				rc = json_fail_at(j, &v, "expected 'children' to be an array, found %s",
						  json_kind_name(v.kind));
				break;
			}
			for (;;) {
				struct json_tok x;
				if ((rc = json_next(j, &x)))
					break;
				if (x.kind == JSON_END)
					break;
				if (x.kind == JSON_EOF) {
					rc = TRUNCATED;
					break;
				}
				if (x.kind == JSON_OBJECT) {
					/* old layout: the child itself */
					if ((rc = read_node(c, j, ci, depth + 1)))
						break;
					continue;
				}
				if (x.kind != JSON_NUMBER) {
					rc = json_fail_at(j, &x,
							  "expected a child node id (a number), found %s",
							  json_kind_name(x.kind));
					break;
				}
				int64_t child;
				if ((rc = json_i64(j, &x, &child)))
					break;
				struct vedge *e = vec_push(&c->edges, sizeof(*e));
				if (!e) {
					rc = oom(c);
					break;
				}
				e->chunk = ci;
				e->resolved = false; /* the parent's id may come later */
				e->parent = 0;
				e->child = child;
			}
		} else if (json_is(&k, "positionTicks")) {
			if ((rc = next_val(j, &v)))
				break;
			if (v.kind == JSON_ARRAY) {
				struct json_tok x;
				if ((rc = json_next(j, &x)))
					break;
				if (x.kind == JSON_EOF) {
					rc = TRUNCATED;
					break;
				}
				if (x.kind != JSON_END) {
					c->pos_ticks++;
					rc = json_skip(j, &x);
					while (!rc) {
						if ((rc = json_next(j, &x)))
							break;
						if (x.kind == JSON_END)
							break;
						if (x.kind == JSON_EOF) {
							rc = TRUNCATED;
							break;
						}
						rc = json_skip(j, &x);
					}
				}
			} else {
				rc = json_skip(j, &v);
			}
		} else {
			rc = callframe_field(c, j, &k, &cf);
			if (rc == 1)
				rc = json_skip_value(j);
		}
		if (rc)
			break;
	}
	if (!rc && !has_id && has_self) {
		id = INT64_MIN + 1 + (int64_t)c->nodes.len; /* an old heap profile's node */
		has_id = true;
	}
	if (!rc && !has_id)
		rc = json_fail(j, NULL, "a node without an 'id'");
	if (!rc) {
		/* children read inside this node: nested nodes without a parent, and id edges */
		struct vnode *nodes = VEC(c->nodes, struct vnode);
		for (uint32_t i = node0; i < c->nodes.len; i++)
			if (!nodes[i].has_parent) {
				nodes[i].parent = id;
				nodes[i].has_parent = true;
			}
		struct vedge *edges = VEC(c->edges, struct vedge);
		for (uint32_t e = edge0; e < c->edges.len; e++)
			if (!edges[e].resolved) {
				edges[e].parent = id;
				edges[e].resolved = true;
			}
		struct vnode *n = vec_push(&c->nodes, sizeof(*n));
		if (!n) {
			rc = oom(c);
		} else {
			const char *fn = sbuf_str(&cf.fn);
			n->chunk = ci;
			n->id = id;
			n->parent = parent;
			n->has_parent = has_parent;
			n->root_name = cf.fn.len == 6 && memcmp(fn, "(root)", 6) == 0;
			n->has_self = has_self;
			n->self = self;
			c->heap_nodes += has_self;
			n->frame = v8_frame(c, fn, cf.fn.len, sbuf_str(&cf.url), cf.url.len, cf.line,
					    cf.col);
		}
	}
	(void)depth;
	sbuf_release(&cf.fn);
	sbuf_release(&cf.url);
	return rc;
}

static int read_nodes(struct ch *c, struct json *j, const struct json_tok *t, uint32_t ci)
{
	if (t->kind == JSON_NULL)
		return 0;
	if (t->kind != JSON_ARRAY)
		return json_fail_at(j, t, "expected 'nodes' to be an array, found %s",
				    json_kind_name(t->kind));
	for (;;) {
		struct json_tok x;
		int rc = json_next(j, &x);
		if (rc)
			return rc;
		if (x.kind == JSON_END)
			return 0;
		if (x.kind == JSON_EOF)
			return TRUNCATED;
		if (x.kind != JSON_OBJECT)
			return json_fail_at(j, &x, "expected a node (an object), found %s",
					    json_kind_name(x.kind));
		if ((rc = read_node(c, j, ci, 0)))
			return rc;
	}
}

static int read_cpu_object(struct ch *c, struct json *j, const struct json_tok *t, uint32_t ci,
			   uint32_t depth);

/*
 * The number arrays of cpu profile data: each read into its column of struct ch, the chunk's
 * range of it and its flag set in struct vchunk (offsets, as firefox_processed.c's colspec).
 */
struct chunk_array {
	const char *key;
	int pow10; /* to ns: µs times 10^3; 0 for counts and positions */
	bool u32;  /* read_numbers' u32 (lines, columns) */
	size_t col; /* the struct vec in struct ch */
	size_t begin, len, has; /* in struct vchunk */
};

#define CHUNK_ARRAY(key, pow10, u32, col, pre, has)                                             \
	{key, pow10, u32, offsetof(struct ch, col), offsetof(struct vchunk, pre##_begin),        \
	 offsetof(struct vchunk, pre##_len), offsetof(struct vchunk, has)}

static const struct chunk_array chunk_arrays[] = {
    CHUNK_ARRAY("samples", 0, false, s_ids, s, has_samples),
    CHUNK_ARRAY("timeDeltas", 3, false, deltas, d, has_deltas),
    CHUNK_ARRAY("timestamps", 3, false, stamps, t, has_stamps),
    CHUNK_ARRAY("lines", 0, true, s_lines, l, has_lines),
    CHUNK_ARRAY("columns", 0, true, s_cols, c, has_cols),
};

/*
 * One member of cpu profile data (k is its key): nodes, samples, timeDeltas, lines, columns,
 * startTime, endTime, the old layout's head and timestamps, and the wrappers data/cpuProfile.
 * Returns 1 when k is none of them (the value is not read).
 */
static int cpu_member(struct ch *c, struct json *j, const struct json_tok *k, uint32_t ci,
		      uint32_t depth)
{
	struct json_tok v;
	int rc;
	struct vchunk *ck;
	if (json_is(k, "nodes")) {
		if ((rc = next_val(j, &v)))
			return rc;
		return read_nodes(c, j, &v, ci);
	}
	if (json_is(k, "head")) {
		if ((rc = next_val(j, &v)))
			return rc;
		chunk_at(c, ci)->has_stamps = true; /* the old layout */
		if (v.kind == JSON_NULL)
			return 0;
		if (v.kind != JSON_OBJECT)
			return json_fail_at(j, &v, "expected 'head' to be a node (an object), found %s",
					    json_kind_name(v.kind));
		return read_node(c, j, ci, 0);
	}
	for (size_t a = 0; a < sizeof(chunk_arrays) / sizeof(chunk_arrays[0]); a++) {
		const struct chunk_array *ca = &chunk_arrays[a];
		if (!json_is(k, ca->key))
			continue;
		uint32_t b0 = 0, n = 0;
		if ((rc = next_val(j, &v)))
			return rc;
		rc = read_number_array(c, j, &v, ca->pow10, (struct vec *)((char *)c + ca->col),
				       ca->u32, ca->key, &b0, &n);
		char *at = (char *)chunk_at(c, ci);
		*(uint32_t *)(at + ca->begin) = b0;
		*(uint32_t *)(at + ca->len) = n;
		*(bool *)(at + ca->has) = true;
		return rc;
	}
	if (json_is(k, "startTime") || json_is(k, "endTime")) {
		bool start = k->s[0] == 's';
		if ((rc = next_val(j, &v)))
			return rc;
		if (v.kind == JSON_OBJECT || v.kind == JSON_ARRAY)
			return json_fail_at(j, &v, "expected '%s' to be a number, found %s",
					    start ? "startTime" : "endTime", json_kind_name(v.kind));
		if (v.kind == JSON_NULL)
			return 0;
		ck = chunk_at(c, ci);
		if (start) {
			ck->start_tok = v;
			ck->has_start = true;
		} else {
			ck->end_tok = v;
			ck->has_end = true;
		}
		return 0;
	}
	if (json_is(k, "cpuProfile") || json_is(k, "data")) {
		if ((rc = next_val(j, &v)))
			return rc;
		if (v.kind == JSON_NULL)
			return 0;
		if (v.kind != JSON_OBJECT)
			return json_skip(j, &v);
		return read_cpu_object(c, j, &v, ci, depth + 1);
	}
	return 1;
}

static int read_cpu_object(struct ch *c, struct json *j, const struct json_tok *t, uint32_t ci,
			   uint32_t depth)
{
	if (t->kind != JSON_OBJECT)
		return json_skip(j, t);
	(void)depth;
	for (;;) {
		struct json_tok k;
		int rc = json_next(j, &k);
		if (rc)
			return rc;
		if (k.kind == JSON_END)
			return 0;
		if (k.kind == JSON_EOF)
			return TRUNCATED;
		rc = cpu_member(c, j, &k, ci, depth);
		if (rc == 1)
			rc = json_skip_value(j);
		if (rc)
			return rc;
	}
}

/* A time token saved in a chunk (µs, or seconds in the old layout) as ns. */
static int chunk_time(struct ch *c, const struct json_tok *t, bool seconds, const char *what,
		      int64_t *out)
{
	bool have;
	int rc = read_fixed(c, &c->j, t, seconds ? 9 : 3, what, out, &have);
	if (!rc && !have)
		*out = PV_TIME_NONE;
	return rc;
}

/* ---- profiles ---- */

struct prof_key {
	const struct ch *c;
	int64_t pid;
	const char *s;
};

static bool prof_eq(const void *ctx, uint32_t row)
{
	const struct prof_key *k = ctx;
	const struct vprof *p = &VEC(k->c->profs, struct vprof)[row];
	return p->pid == k->pid && strcmp(pool_s(k->c, p->key), k->s) == 0;
}

static uint64_t prof_hash(int64_t pid, const char *s)
{
	return hash_bytes(s, strlen(s)) ^ hash_u64((uint64_t)pid);
}

/* The profile of (pid, key text), NO_IX when there is none (and create is false). */
static uint32_t find_prof(struct ch *c, int64_t pid, const char *key, bool create)
{
	struct prof_key k = {c, pid, key};
	uint64_t h = prof_hash(pid, key);
	uint32_t slot;
	uint32_t r = ixmap_find(&c->prof_map, h, prof_eq, &k, &slot);
	if (r != UINT32_MAX || !create)
		return r == UINT32_MAX ? NO_IX : r;
	uint32_t off = pool_add(c, key, strlen(key));
	struct vprof *p = off ? vec_push(&c->profs, sizeof(*p)) : NULL;
	if (!p)
		return NO_IX;
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->key = off;
	p->thread = NO_IX;
	p->start = PV_TIME_NONE;
	p->end = PV_TIME_NONE;
	p->order = c->order++;
	r = c->profs.len - 1;
	if (ixmap_insert(&c->prof_map, slot, h, r))
		return NO_IX;
	return r;
}

/* The key text of a profile event: its id, else its thread. */
static const char *prof_key_text(struct ch *c)
{
	if (c->ev.has_id)
		return sbuf_str(&c->id);
	sbuf_reset(&c->tmp);
	char buf[64];
	snprintf(buf, sizeof(buf), "tid:%lld", (long long)c->ev.tid);
	sbuf_puts(&c->tmp, buf);
	return sbuf_str(&c->tmp);
}

/*
 * A whole profile (a CpuProfile event, a .cpuprofile): chunk ci on thread th. The old layout's
 * absolute timestamps become deltas from its start (seconds there).
 */
static int whole_profile(struct ch *c, uint32_t ci, uint32_t th, int64_t ts)
{
	char key[32];
	snprintf(key, sizeof(key), "#cpuprofile %u", c->nr_cpuprofiles++);
	uint32_t pi = find_prof(c, ID_MISSING, key, true);
	if (pi == NO_IX)
		return oom(c);
	struct vchunk *ck = chunk_at(c, ci);
	bool old = ck->has_stamps;
	int64_t start = PV_TIME_NONE, end = PV_TIME_NONE;
	int rc = 0;
	struct json_tok st = ck->start_tok, et = ck->end_tok;
	bool hs = ck->has_start, he = ck->has_end;
	if (hs && (rc = chunk_time(c, &st, old, "startTime", &start)))
		return rc;
	if (he && (rc = chunk_time(c, &et, old, "endTime", &end)))
		return rc;
	if (start == PV_TIME_NONE)
		start = ts;
	ck = chunk_at(c, ci);
	if (old && !ck->has_deltas) {
		/* absolute sample times: deltas from the start (or the first sample) */
		uint32_t n = ck->t_len, b0 = ck->t_begin;
		uint32_t d0 = c->deltas.len;
		if ((uint64_t)d0 + n > PV_MAX_ROWS || vec_resize(&c->deltas, sizeof(int64_t), d0 + n))
			return oom(c);
		const int64_t *st_ = n ? VEC(c->stamps, int64_t) + b0 : NULL;
		int64_t *d = n ? VEC(c->deltas, int64_t) + d0 : NULL;
		int64_t prev = start != PV_TIME_NONE ? start : (n ? st_[0] : 0);
		for (uint32_t i = 0; i < n; i++) {
			if (__builtin_sub_overflow(st_[i], prev, &d[i]))
				return json_fail(&c->j, NULL, "sample times out of range");
			prev = st_[i];
		}
		ck->d_begin = d0;
		ck->d_len = n;
		ck->has_deltas = true;
		if (start == PV_TIME_NONE && n)
			start = st_[0];
	}
	/* an end before the start (whole seconds in the old layout) says nothing */
	if (end != PV_TIME_NONE && start != PV_TIME_NONE && end < start)
		end = PV_TIME_NONE;
	ck->prof = pi;
	ck->pid = ID_MISSING;
	ck->key = VEC(c->profs, struct vprof)[pi].key;
	struct vprof *p = &VEC(c->profs, struct vprof)[pi];
	p->thread = th;
	p->start = start;
	p->end = end;
	return 0;
}

/* ---- events ---- */

static enum ev_kind ev_kind(const struct ch *c)
{
	if (!c->ev.has_name)
		return EV_OTHER;
	const char *n = sbuf_str(&c->name);
	if (strcmp(n, "Profile") == 0)
		return EV_PROFILE;
	if (strcmp(n, "ProfileChunk") == 0)
		return EV_CHUNK;
	if (strcmp(n, "CpuProfile") == 0)
		return EV_CPUPROFILE;
	return EV_OTHER;
}

static bool marker_phase(char ph)
{
	return ph && strchr("BEXiIRnbeSTFp", ph) != NULL;
}

static bool async_phase(char ph)
{
	return ph && strchr("nbeSTFp", ph) != NULL;
}

/* args of an event that becomes a marker: its members, without an "id" member, into cap. */
static int capture_args(struct ch *c, struct json *j, const struct json_tok *v)
{
	sbuf_reset(&c->cap);
	sbuf_reset(&c->argid);
	c->ev.args_had_id = false;
	c->ev.has_payload = false;
	if (v->kind == JSON_NULL)
		return 0;
	if (v->kind != JSON_OBJECT) {
		if (sbuf_puts(&c->cap, "\"args\":") ||
		    json_capture(j, v, &c->cap))
			return j->failed ? j->failed : oom(c);
		c->ev.has_payload = true;
		return 0;
	}
	for (;;) {
		struct json_tok k, x;
		int rc = json_next_member(j, &k, &x);
		if (rc)
			return rc;
		if (k.kind == JSON_EOF)
			return TRUNCATED;
		if (k.kind != JSON_KEY)
			break;
		if (json_is(&k, "id")) {
			c->ev.args_had_id = true;
			if (json_capture(j, &x, &c->argid))
				return j->failed;
			continue;
		}
		if ((c->cap.len && sbuf_put(&c->cap, ",", 1)) || sbuf_put(&c->cap, "\"", 1) ||
		    sbuf_put(&c->cap, k.s, k.len) || sbuf_put(&c->cap, "\":", 2))
			return oom(c);
		if (json_capture(j, &x, &c->cap))
			return j->failed;
	}
	c->ev.has_payload = c->cap.len > 0 || c->ev.args_had_id;
	return 0;
}

/* args of an 'M' event: name, labels, sort_index. */
static int meta_args(struct ch *c, struct json *j, const struct json_tok *v)
{
	if (v->kind != JSON_OBJECT)
		return json_skip(j, v);
	for (;;) {
		struct json_tok k, x;
		int rc = json_next_member(j, &k, &x);
		if (rc)
			return rc;
		if (k.kind == JSON_EOF)
			return TRUNCATED;
		if (k.kind != JSON_KEY)
			return 0;
		if ((json_is(&k, "name") || json_is(&k, "labels")) && x.kind == JSON_STRING) {
			if ((rc = json_text(j, &x, &c->meta)))
				return rc;
			c->ev.meta_name = true;
		} else if (json_is(&k, "sort_index") && x.kind == JSON_NUMBER) {
			if ((rc = json_i64(j, &x, &c->ev.sort_index)))
				return rc;
			c->ev.meta_sort = true;
		} else if ((rc = json_skip(j, &x))) {
			return rc;
		}
	}
}

static int handle_args(struct ch *c, struct json *j, const struct json_tok *v)
{
	struct ev *e = &c->ev;
	e->args_read = true;
	if (ev_kind(c) != EV_OTHER) {
		if (e->chunk == NO_IX && (e->chunk = new_chunk(c)) == NO_IX)
			return oom(c);
		return read_cpu_object(c, j, v, e->chunk, 0);
	}
	if (e->ph == 'M' && !e->ph_long)
		return meta_args(c, j, v);
	if (marker_phase(e->ph) && !e->ph_long)
		return capture_args(c, j, v);
	return json_skip(j, v);
}

static bool args_wanted(const struct ch *c)
{
	const struct ev *e = &c->ev;
	if (ev_kind(c) != EV_OTHER)
		return true;
	return !e->ph_long && (e->ph == 'M' || marker_phase(e->ph));
}

static int compose_payload(struct ch *c, pv_str_ix *out)
{
	struct ev *e = &c->ev;
	struct sbuf *p = &c->payload;
	*out = 0;
	bool async = async_phase(e->ph) && e->has_id;
	if (!async && !e->has_payload)
		return 0;
	sbuf_reset(p);
	if (sbuf_put(p, "{", 1))
		return oom(c);
	if (async) {
		if (e->has_scope && (sbuf_put(&c->scope, ":", 1) ||
				     sbuf_put(&c->scope, sbuf_str(&c->id), c->id.len)))
			return oom(c);
		const struct sbuf *id = e->has_scope ? &c->scope : &c->id;
		if (sbuf_put(p, "\"id\":", 5) || sbuf_json_string(p, sbuf_str(id), id->len))
			return oom(c);
		if (e->args_had_id)
			c->args_id++;
		if (c->cap.len && (sbuf_put(p, ",", 1) || sbuf_put(p, c->cap.buf, c->cap.len)))
			return oom(c);
	} else {
		if (c->cap.len && sbuf_put(p, c->cap.buf, c->cap.len))
			return oom(c);
		if (e->args_had_id && ((c->cap.len && sbuf_put(p, ",", 1)) ||
				       sbuf_put(p, "\"id\":", 5) ||
				       sbuf_put(p, c->argid.buf, c->argid.len)))
			return oom(c);
	}
	if (sbuf_put(p, "}", 1))
		return oom(c);
	*out = builder_str(c->b, p->buf, p->len);
	return 0;
}

static int add_marker(struct ch *c, enum pv_marker_phase phase)
{
	struct ev *e = &c->ev;
	if (!e->has_ts) {
		c->no_ts++;
		return 0;
	}
	uint32_t th = get_thread(c, e->pid, e->tid);
	if (th == NO_IX)
		return oom(c);
	VEC(c->threads, struct cthread)[th].used = true;
	struct cmark m = {
		.name = e->has_name ? builder_str(c->b, c->name.buf, c->name.len)
				    : builder_cstr(c->b, "(unnamed)"),
		.cat = e->has_cat && c->cat.len
			   ? builder_category(c->b, builder_str(c->b, c->cat.buf, c->cat.len),
					      builder_cstr(c->b, "grey"))
			   : PV_NONE,
		.phase = (uint8_t)phase,
		.start = PV_TIME_NONE,
		.end = PV_TIME_NONE,
		.thread = th,
		.order = c->order++,
		.ph = e->ph,
	};
	int rc = compose_payload(c, &m.payload);
	if (rc)
		return rc;
	if (e->has_sf && !(m.sf = pool_add(c, c->sf.buf, c->sf.len)))
		return oom(c);
	switch (phase) {
	case PV_PHASE_END:
		m.end = e->ts;
		break;
	case PV_PHASE_INTERVAL: {
		int64_t dur = 0;
		if (e->has_dur)
			dur = e->dur;
		else if (e->has_tdur) {
			dur = e->tdur;
			c->x_tdur++;
		} else
			c->x_nodur++;
		if (dur < 0) {
			dur = 0;
			c->neg_dur++;
		}
		m.start = e->ts;
		if (__builtin_add_overflow(e->ts, dur, &m.end))
			return json_fail(&c->j, NULL, "an event ends past the largest time");
		break;
	}
	default:
		m.start = e->ts;
	}
	struct cmark *slot = vec_push(&c->marks, sizeof(*slot));
	if (!slot)
		return oom(c);
	*slot = m;
	return 0;
}

static int meta_event(struct ch *c)
{
	struct ev *e = &c->ev;
	const char *n = sbuf_str(&c->name);
	bool thread = strcmp(n, "thread_name") == 0 || strcmp(n, "thread_sort_index") == 0;
	bool proc = strcmp(n, "process_name") == 0 || strcmp(n, "process_labels") == 0 ||
		    strcmp(n, "process_sort_index") == 0;
	if (!thread && !proc) {
		builder_lossy(c->b, 1, "metadata events '%.40s'", e->has_name ? n : "(unnamed)");
		return 0;
	}
	if (thread) {
		uint32_t t = get_thread(c, e->pid, e->tid);
		if (t == NO_IX)
			return oom(c);
		struct cthread *ct = &VEC(c->threads, struct cthread)[t];
		if (n[7] == 'n' && e->meta_name)
			ct->name = builder_str(c->b, c->meta.buf, c->meta.len);
		else if (n[7] == 's' && e->meta_sort)
			ct->sort_index = e->sort_index;
		return 0;
	}
	uint32_t p = get_proc(c, e->pid);
	if (p == NO_IX)
		return oom(c);
	struct cproc *cp = &VEC(c->procs, struct cproc)[p];
	if (n[8] == 'n' && e->meta_name)
		cp->name = builder_str(c->b, c->meta.buf, c->meta.len);
	else if (n[8] == 'l' && e->meta_name)
		cp->labels = builder_str(c->b, c->meta.buf, c->meta.len);
	else if (n[8] == 's' && e->meta_sort)
		cp->sort_index = e->sort_index;
	return 0;
}

static int profile_event(struct ch *c, enum ev_kind kind)
{
	struct ev *e = &c->ev;
	if (e->chunk == NO_IX && (e->chunk = new_chunk(c)) == NO_IX)
		return oom(c);
	uint32_t ci = e->chunk;
	uint32_t th = get_thread(c, e->pid, e->tid);
	if (th == NO_IX)
		return oom(c);
	int64_t ts = e->has_ts ? e->ts : PV_TIME_NONE;
	if (kind == EV_CPUPROFILE)
		return whole_profile(c, ci, th, ts);
	const char *key = prof_key_text(c);
	uint32_t off = pool_add(c, key, strlen(key));
	if (!off)
		return oom(c);
	struct vchunk *ck = chunk_at(c, ci);
	ck->pid = e->pid;
	ck->key = off;
	ck->ts = ts;
	if (ck->has_end) {
		/*
		 * V8 writes endTime alone in the last chunk, on another clock than ts: the ts of that
		 * chunk is the end. A chunk holding a whole profile (startTime and endTime, as
		 * rspack writes) ends endTime - startTime after the profile's start.
		 */
		struct json_tok et = ck->end_tok, st = ck->start_tok;
		bool whole = ck->has_start;
		int64_t end = ts, start = 0;
		int rc = 0;
		if (whole || end == PV_TIME_NONE)
			rc = chunk_time(c, &et, false, "endTime", &end);
		if (!rc && whole)
			rc = chunk_time(c, &st, false, "startTime", &start);
		if (rc)
			return rc;
		ck = chunk_at(c, ci);
		if (!whole)
			ck->end = end;
		else if (end != PV_TIME_NONE && start != PV_TIME_NONE && end >= start)
			ck->span = end - start;
	}
	if (kind != EV_PROFILE)
		return 0;
	uint32_t pi = find_prof(c, e->pid, sbuf_str(&c->pool) + off, true);
	if (pi == NO_IX)
		return oom(c);
	ck = chunk_at(c, ci);
	int64_t start = PV_TIME_NONE;
	if (ck->has_start) {
		struct json_tok st = ck->start_tok;
		int rc = chunk_time(c, &st, false, "startTime", &start);
		if (rc)
			return rc;
	}
	struct vprof *p = &VEC(c->profs, struct vprof)[pi];
	if (p->thread == NO_IX)
		p->thread = th;
	if (p->start == PV_TIME_NONE)
		p->start = start != PV_TIME_NONE ? start : ts;
	return 0;
}

static int finish_event(struct ch *c)
{
	struct ev *e = &c->ev;
	if (e->args_p && !e->args_read && args_wanted(c)) {
		struct json j2;
		json_init(&j2, c->in, c->err);
		j2.p = e->args_p;
		j2.forget_mark = e->args_p;
		struct json_tok v;
		int rc = json_next(&j2, &v);
		if (!rc)
			rc = handle_args(c, &j2, &v);
		json_release(&j2);
		if (rc == TRUNCATED)
			rc = json_fail(&c->j, e->args_p, "the input ends inside 'args'");
		if (rc)
			return rc;
	}
	enum ev_kind kind = ev_kind(c);
	if (kind != EV_OTHER)
		return profile_event(c, kind);
	if (!e->has_ph) {
		c->no_ph++;
		return 0;
	}
	if (e->ph_long) {
		c->ph_count[0]++;
		return 0;
	}
	switch (e->ph) {
	case 'M':
		return meta_event(c);
	case 'B':
	case 'b':
	case 'S':
		return add_marker(c, PV_PHASE_START);
	case 'E':
	case 'e':
	case 'F':
		return add_marker(c, PV_PHASE_END);
	case 'X':
		return add_marker(c, PV_PHASE_INTERVAL);
	case 'i':
	case 'I':
	case 'R':
	case 'n':
	case 'T':
	case 'p':
		return add_marker(c, PV_PHASE_INSTANT);
	default:
		c->ph_count[(unsigned char)e->ph & 127]++;
		return 0;
	}
}

/* One event object, its '{' read. Returns TRUNCATED when the input ends inside it. */
static int read_event(struct ch *c, struct json *j)
{
	struct ev *e = &c->ev;
	memset(e, 0, sizeof(*e));
	e->pid = e->tid = ID_MISSING;
	e->chunk = NO_IX;
	sbuf_reset(&c->name);
	sbuf_reset(&c->cat);
	sbuf_reset(&c->id);
	sbuf_reset(&c->scope);
	sbuf_reset(&c->sf);
	sbuf_reset(&c->cap);
	sbuf_reset(&c->argid);
	bool tts = false, stack = false, flow = false;
	for (;;) {
		struct json_tok k, v;
		int rc = json_next_member(j, &k, &v);
		if (rc)
			return rc;
		if (k.kind == JSON_EOF)
			return TRUNCATED;
		if (k.kind != JSON_KEY)
			break;
		bool have = false;
		if (json_is(&k, "ph")) {
			if (v.kind != JSON_STRING)
				return json_fail_at(j, &v, "expected 'ph' (a phase letter), found %s",
						    json_kind_name(v.kind));
			e->has_ph = true;
			e->ph = v.len ? v.s[0] : 0;
			e->ph_long = v.len != 1 || v.escaped;
		} else if (json_is(&k, "name")) {
			rc = text_member(j, &v, &c->name, &e->has_name);
		} else if (json_is(&k, "cat")) {
			rc = text_member(j, &v, &c->cat, &e->has_cat);
		} else if (json_is(&k, "ts")) {
			rc = read_fixed(c, j, &v, 3, "'ts'", &e->ts, &have);
			e->has_ts = have;
		} else if (json_is(&k, "dur")) {
			rc = read_fixed(c, j, &v, 3, "'dur'", &e->dur, &have);
			e->has_dur = have;
		} else if (json_is(&k, "tdur")) {
			rc = read_fixed(c, j, &v, 3, "'tdur'", &e->tdur, &have);
			e->has_tdur = have;
			tts = true;
		} else if (json_is(&k, "tts")) {
			tts = true;
			rc = json_skip(j, &v);
		} else if (json_is(&k, "pid")) {
			rc = read_id(c, j, &v, "'pid'", &e->pid);
		} else if (json_is(&k, "tid")) {
			rc = read_id(c, j, &v, "'tid'", &e->tid);
		} else if (json_is(&k, "id")) {
			rc = text_member(j, &v, &c->id, &e->has_id);
		} else if (json_is(&k, "id2")) {
			/* {"local": ID} or {"global": ID} */
			if (v.kind != JSON_OBJECT) {
				rc = json_skip(j, &v);
			} else {
				for (;;) {
					struct json_tok k2, v2;
					if ((rc = json_next_member(j, &k2, &v2)))
						break;
					if (k2.kind == JSON_EOF) {
						rc = TRUNCATED;
						break;
					}
					if (k2.kind != JSON_KEY)
						break;
					if (json_text(j, &v2, &c->tmp) == 0) {
						sbuf_reset(&c->id);
						if (sbuf_put(&c->id, k2.s, k2.len) ||
						    sbuf_put(&c->id, ":", 1) ||
						    sbuf_put(&c->id, c->tmp.buf, c->tmp.len))
							return oom(c);
						e->has_id = true;
					} else if ((rc = json_skip(j, &v2))) {
						break;
					}
				}
			}
		} else if (json_is(&k, "scope")) {
			rc = text_member(j, &v, &c->scope, &e->has_scope);
		} else if (json_is(&k, "sf")) {
			rc = text_member(j, &v, &c->sf, &e->has_sf);
		} else if (json_is(&k, "stack") || json_is(&k, "esf") || json_is(&k, "estack")) {
			stack = true;
			rc = json_skip(j, &v);
		} else if (json_is(&k, "bind_id") || json_is(&k, "flow_in") ||
			   json_is(&k, "flow_out")) {
			flow = true;
			rc = json_skip(j, &v);
		} else if (json_is(&k, "args")) {
			if (e->has_ph && e->has_name) {
				rc = handle_args(c, j, &v);
			} else {
				e->args_p = v.kind == JSON_STRING ? v.s - 1 : v.s;
				rc = json_skip(j, &v);
			}
		} else {
			rc = json_skip(j, &v);
		}
		if (rc)
			return rc;
	}
	c->tts += tts;
	c->stack_fields += stack;
	c->flow_fields += flow;
	return 0;
}

/* ---- the top level ---- */

static int read_events(struct ch *c, struct json *j)
{
	for (;;) {
		struct json_tok t;
		int rc = json_next(j, &t);
		if (rc)
			return rc;
		if (t.kind == JSON_END || t.kind == JSON_EOF) {
			c->unclosed += t.kind == JSON_EOF;
			return 0;
		}
		if (t.kind != JSON_OBJECT) {
			c->not_event++;
			if ((rc = json_skip(j, &t)))
				return rc;
			continue;
		}
		rc = read_event(c, j);
		if (rc == TRUNCATED) {
			c->truncated++;
			return 0;
		}
		if (rc || (rc = finish_event(c)))
			return rc;
		if (c->ev.chunk != NO_IX)
			chunk_at(c, c->ev.chunk)->done = true;
	}
}

/* "stackFrames": {ID: {name, category, parent}, ...} */
static int read_stack_frames(struct ch *c, struct json *j, const struct json_tok *t)
{
	if (t->kind == JSON_NULL)
		return 0;
	if (t->kind != JSON_OBJECT)
		return json_fail_at(j, t, "expected 'stackFrames' to be an object, found %s",
				    json_kind_name(t->kind));
	for (;;) {
		struct json_tok k, v;
		int rc = json_next_member(j, &k, &v);
		if (rc || k.kind != JSON_KEY)
			return rc; /* not lenient: the end is a '}' */
		const char *ks;
		size_t kn;
		if ((rc = json_str(j, &k, &ks, &kn)))
			return rc;
		uint32_t id = pool_add(c, ks, kn);
		if (!id)
			return oom(c);
		if (v.kind != JSON_OBJECT)
			return json_fail_at(j, &v, "expected a stack frame (an object), found %s",
					    json_kind_name(v.kind));
		uint32_t parent = 0;
		bool has_name = false;
		sbuf_reset(&c->name);
		sbuf_reset(&c->cat);
		for (;;) {
			struct json_tok k2, v2;
			if ((rc = json_next_member(j, &k2, &v2)))
				return rc;
			if (k2.kind != JSON_KEY)
				break;
			if (json_is(&k2, "name")) {
				rc = json_text(j, &v2, &c->name);
				has_name = rc == 0;
			} else if (json_is(&k2, "category")) {
				rc = json_text(j, &v2, &c->cat);
			} else if (json_is(&k2, "parent")) {
				rc = json_text(j, &v2, &c->tmp);
				if (!rc && !(parent = pool_add(c, c->tmp.buf, c->tmp.len)))
					return oom(c);
			} else {
				rc = 1;
			}
			if (rc == 1)
				rc = json_skip(j, &v2);
			if (rc)
				return rc;
		}
		struct sframe *f = vec_push(&c->sframes, sizeof(*f));
		if (!f)
			return oom(c);
		f->id = id;
		f->parent = parent;
		f->frame = sf_frame(c, has_name ? sbuf_str(&c->name) : "", has_name ? c->name.len : 0,
				    sbuf_str(&c->cat), c->cat.len);
	}
}

/* Object-form "samples": [{tid, pid, ts, sf, weight, ...}, ...]; first is the first element. */
static int read_gsamples(struct ch *c, struct json *j, const struct json_tok *first)
{
	struct json_tok t = *first;
	int rc = 0;
	for (;;) {
		if (t.kind == JSON_END)
			return 0;
		if (t.kind != JSON_OBJECT)
			return json_fail_at(j, &t, "expected a sample (an object), found %s",
					    json_kind_name(t.kind));
		struct gsample g = {
			.pid = ID_MISSING, .tid = ID_MISSING, .ts = PV_TIME_NONE, .weight = 1,
		};
		/* a sampling heap profile's sample: {size, nodeId, ordinal} */
		struct hsample hs = {.size = 0, .node = 0, .ordinal = 0};
		bool heap = false;
		for (;;) {
			struct json_tok k, v;
			bool have;
			if ((rc = json_next_member(j, &k, &v)))
				return rc;
			if (k.kind != JSON_KEY)
				break;
			if (json_is(&k, "pid")) {
				rc = read_id(c, j, &v, "'pid'", &g.pid);
			} else if (json_is(&k, "tid")) {
				rc = read_id(c, j, &v, "'tid'", &g.tid);
			} else if (json_is(&k, "ts")) {
				rc = read_fixed(c, j, &v, 3, "'ts'", &g.ts, &have);
				if (!rc && !have)
					g.ts = PV_TIME_NONE;
			} else if (json_is(&k, "weight")) {
				int64_t w;
				rc = read_fixed(c, j, &v, 0, "'weight'", &w, &have);
				if (!rc && have)
					g.weight = w;
			} else if (json_is(&k, "nodeId")) {
				heap = true;
				rc = json_i64(j, &v, &hs.node);
			} else if (json_is(&k, "size")) {
				rc = heap_bytes(j, &v, "size", &hs.size);
				if (!rc && __builtin_add_overflow(c->heap_size, hs.size, &c->heap_size))
					rc = json_fail_at(j, &v, "the samples' size sum out of range");
			} else if (json_is(&k, "ordinal")) {
				rc = v.kind == JSON_NUMBER
					     ? read_fixed(c, j, &v, 0, "'ordinal'", &hs.ordinal, &have)
					     : json_fail_at(j, &v,
							    "expected 'ordinal' to be a number, found %s",
							    json_kind_name(v.kind));
			} else if (json_is(&k, "sf")) {
				rc = json_text(j, &v, &c->tmp);
				if (!rc && !(g.sf = pool_add(c, c->tmp.buf, c->tmp.len)))
					return oom(c);
				if (rc == 1)
					rc = json_skip(j, &v);
			} else {
				rc = json_skip(j, &v);
			}
			if (rc)
				return rc;
		}
		if (heap) {
			hs.seq = c->hsamples.len;
			struct hsample *h = vec_push(&c->hsamples, sizeof(*h));
			if (!h)
				return oom(c);
			*h = hs;
		} else {
			g.seq = c->gsamples.len;
			struct gsample *s = vec_push(&c->gsamples, sizeof(*s));
			if (!s)
				return oom(c);
			*s = g;
		}
		if ((rc = json_next(j, &t)))
			return rc;
	}
}

static bool is_cpu_key(const struct json_tok *k)
{
	static const char *const keys[] = {"nodes", "timeDeltas", "startTime", "endTime", "head",
					   "timestamps", "lines", "columns"};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (json_is(k, keys[i]))
			return true;
	return false;
}

/* A trace in object form, or a .cpuprofile; the '{' is read. */
static int read_top_object(struct ch *c, struct json *j)
{
	uint32_t top = NO_IX; /* the chunk of a .cpuprofile */
	bool trace = false;
	for (;;) {
		struct json_tok k, v;
		int rc = json_next(j, &k);
		if (rc)
			return rc;
		if (k.kind == JSON_END)
			break;
		if (json_is(&k, "traceEvents")) {
			trace = true;
			if ((rc = next_val(j, &v)))
				return rc;
			if (v.kind != JSON_ARRAY)
				return json_fail_at(j, &v,
						    "expected 'traceEvents' to be an array, found %s",
						    json_kind_name(v.kind));
			rc = read_events(c, j);
		} else if (json_is(&k, "stackFrames")) {
			trace = true;
			if ((rc = next_val(j, &v)))
				return rc;
			rc = read_stack_frames(c, j, &v);
		} else if (json_is(&k, "samples")) {
			struct json_tok x;
			if ((rc = next_val(j, &v)))
				return rc;
			if (v.kind == JSON_NULL)
				continue;
			if (v.kind != JSON_ARRAY)
				return json_fail_at(j, &v, "expected 'samples' to be an array, found %s",
						    json_kind_name(v.kind));
			if ((rc = json_next(j, &x)))
				return rc;
			if (x.kind == JSON_OBJECT) {
				/* trace samples, or a sampling heap profile's (they name a nodeId) */
				uint32_t g0 = c->gsamples.len;
				rc = read_gsamples(c, j, &x);
				trace |= c->gsamples.len > g0;
			} else {
				/* a .cpuprofile's node ids */
				if (top == NO_IX && (top = new_chunk(c)) == NO_IX)
					return oom(c);
				uint32_t b0 = c->s_ids.len;
				rc = read_numbers(c, j, &x, 0, &c->s_ids, false, "samples");
				struct vchunk *ck = chunk_at(c, top);
				ck->s_begin = b0;
				ck->s_len = c->s_ids.len - b0;
				ck->has_samples = true;
			}
		} else if (is_cpu_key(&k)) {
			if (top == NO_IX && (top = new_chunk(c)) == NO_IX)
				return oom(c);
			rc = cpu_member(c, j, &k, top, 0);
		} else if (json_is(&k, "displayTimeUnit") || json_is(&k, "controllerTraceDataKey")) {
			rc = json_skip_value(j);
		} else {
			int kl = k.len > 40 ? 40 : (int)k.len;
			builder_lossy(c->b, 1, "top-level '%.*s' not kept", kl, k.s);
			rc = json_skip_value(j);
		}
		if (rc == TRUNCATED)
			rc = json_fail(j, NULL, "the input ends early");
		if (rc)
			return rc;
	}
	if (!trace && top == NO_IX)
		return pv_error_set(c->err, PV_EFORMAT,
				    "%s: not a Chrome trace or a V8 CPU profile (no 'traceEvents', "
				    "'samples', 'nodes' or 'head')",
				    c->in->name);
	/* a sampling heap profile: its head tree as a profile without times (see heap_samples) */
	bool heap = !trace && top != NO_IX && c->heap_nodes && !chunk_at(c, top)->has_samples &&
		    !chunk_at(c, top)->has_deltas;
	if (!heap)
		c->heap_unused += c->hsamples.len;
	if (top != NO_IX) {
		struct vchunk *ck = chunk_at(c, top);
		if (!trace || ck->has_samples || c->nodes.len) {
			uint32_t th = get_thread(c, ID_MISSING, ID_MISSING);
			if (th == NO_IX)
				return oom(c);
			int rc = whole_profile(c, top, th, PV_TIME_NONE);
			if (rc)
				return rc;
			chunk_at(c, top)->done = true;
			c->product = ck->has_stamps ? "V8 CPU profile (head tree)" : "V8 CPU profile";
			if (heap) {
				struct cthread *t = &VEC(c->threads, struct cthread)[th];
				t->name = builder_cstr(c->b, "heap");
				t->used = true;
				c->heap = true;
				c->heap_prof = ck->prof;
				c->product = "V8 sampling heap profile";
			}
		}
	}
	if (!c->product)
		c->product = "Chrome trace (object form)";
	return 0;
}

/* ---- building the profile ---- */

struct node_key {
	const struct ch *c;
	uint32_t prof;
	int64_t id;
	const uint32_t *node_prof;
};

static bool node_eq(const void *ctx, uint32_t row)
{
	const struct node_key *k = ctx;
	return k->node_prof[row] == k->prof && VEC(k->c->nodes, struct vnode)[row].id == k->id;
}

static uint64_t node_hash(uint32_t prof, int64_t id)
{
	return hash_u64((uint64_t)id ^ ((uint64_t)prof << 40) ^ 0x5851f42d4c957f2dULL);
}

static uint32_t node_find(struct ch *c, const uint32_t *node_prof, uint32_t prof, int64_t id)
{
	struct node_key k = {c, prof, id, node_prof};
	uint32_t slot;
	uint32_t r = ixmap_find(&c->node_map, node_hash(prof, id), node_eq, &k, &slot);
	return r == UINT32_MAX ? NO_IX : r;
}

struct text_key {
	const struct ch *c;
	const char *s;
};

static bool sframe_eq(const void *ctx, uint32_t row)
{
	const struct text_key *k = ctx;
	return strcmp(pool_s(k->c, VEC(k->c->sframes, struct sframe)[row].id), k->s) == 0;
}

static uint32_t sframe_find(struct ch *c, const char *s)
{
	struct text_key k = {c, s};
	uint32_t slot;
	uint32_t r = ixmap_find(&c->sframe_map, hash_bytes(s, strlen(s)), sframe_eq, &k, &slot);
	return r == UINT32_MAX ? NO_IX : r;
}

/*
 * The stack of every row of a forest given by parent rows (NO_IX: a root). A row whose parent
 * chain comes back to itself is cut there (counted). skip rows add no frame.
 */
static int forest_stacks(struct ch *c, uint32_t n, const uint32_t *parent,
			 const pv_frame_ix *frame, const bool *skip, pv_stack_ix *stack)
{
	uint8_t *state = pv_calloc(n ? n : 1, 1);
	struct vec path = {0};
	if (!state)
		return oom(c);
	int rc = 0;
	for (uint32_t r = 0; r < n && !rc; r++) {
		if (state[r] == 2)
			continue;
		path.len = 0;
		uint32_t x = r;
		while (x != NO_IX && state[x] == 0) {
			uint32_t *s = vec_push(&path, sizeof(uint32_t));
			if (!s) {
				rc = oom(c);
				break;
			}
			*s = x;
			state[x] = 1;
			x = parent[x];
		}
		if (rc)
			break;
		pv_stack_ix base = PV_NONE;
		if (x != NO_IX && state[x] == 2)
			base = stack[x];
		else if (x != NO_IX)
			c->cycles++;
		for (uint32_t i = path.len; i-- > 0;) {
			uint32_t y = VEC(path, uint32_t)[i];
			stack[y] = skip && skip[y] ? base : builder_stack(c->b, base, frame[y]);
			base = stack[y];
			state[y] = 2;
		}
	}
	vec_free(&path);
	pv_free(state);
	return rc;
}

static int cmp_psample(const void *a, const void *b)
{
	const struct psample *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_gsample(const void *a, const void *b)
{
	const struct gsample *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	int64_t tx = x->ts == PV_TIME_NONE ? INT64_MIN : x->ts;
	int64_t ty = y->ts == PV_TIME_NONE ? INT64_MIN : y->ts;
	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_thread(const void *a, const void *b, void *ctx)
{
	const struct ch *c = ctx;
	const struct cthread *t = VEC(c->threads, struct cthread);
	const struct cproc *p = VEC(c->procs, struct cproc);
	const struct cthread *x = &t[*(const uint32_t *)a], *y = &t[*(const uint32_t *)b];
	const struct cproc *px = &p[x->proc], *py = &p[y->proc];
	if (px->sort_index != py->sort_index)
		return px->sort_index < py->sort_index ? -1 : 1;
	if (px->first != py->first)
		return px->first < py->first ? -1 : 1;
	if (x->sort_index != y->sort_index)
		return x->sort_index < y->sort_index ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int cmp_chunk(const void *a, const void *b, void *ctx)
{
	const struct ch *c = ctx;
	const struct vchunk *k = VEC(c->chunks, struct vchunk);
	const struct vchunk *x = &k[*(const uint32_t *)a], *y = &k[*(const uint32_t *)b];
	if (x->prof != y->prof)
		return x->prof < y->prof ? -1 : 1;
	int64_t tx = x->ts == PV_TIME_NONE ? INT64_MIN : x->ts;
	int64_t ty = y->ts == PV_TIME_NONE ? INT64_MIN : y->ts;
	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_hsample(const void *a, const void *b)
{
	const struct hsample *x = a, *y = b;
	if (x->ordinal != y->ordinal)
		return x->ordinal < y->ordinal ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int64_t mark_time(const struct cmark *m)
{
	return m->phase == PV_PHASE_END ? m->end : m->start;
}

static int cmp_mark(const void *a, const void *b, void *ctx)
{
	const struct ch *c = ctx;
	const struct cmark *k = VEC(c->marks, struct cmark);
	const struct cthread *t = VEC(c->threads, struct cthread);
	const struct cmark *x = &k[*(const uint32_t *)a], *y = &k[*(const uint32_t *)b];
	pv_thread_ix ox = t[x->thread].out, oy = t[y->thread].out;
	if (ox != oy)
		return ox < oy ? -1 : 1;
	int64_t tx = mark_time(x), ty = mark_time(y);
	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_prof_out(const void *a, const void *b, void *ctx)
{
	const struct ch *c = ctx;
	const struct vprof *p = VEC(c->profs, struct vprof);
	const struct cthread *t = VEC(c->threads, struct cthread);
	const struct vprof *x = &p[*(const uint32_t *)a], *y = &p[*(const uint32_t *)b];
	pv_thread_ix ox = t[x->thread].out, oy = t[y->thread].out;
	if (ox != oy)
		return ox < oy ? -1 : 1;
	int64_t sx = x->start == PV_TIME_NONE ? INT64_MIN : x->start;
	int64_t sy = y->start == PV_TIME_NONE ? INT64_MIN : y->start;
	if (sx != sy)
		return sx < sy ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void zmin(int64_t *z, int64_t t)
{
	if (t != PV_TIME_NONE && (*z == PV_TIME_NONE || t < *z))
		*z = t;
}

static int rel(struct ch *c, int64_t t, int64_t zero, int64_t *out)
{
	if (t == PV_TIME_NONE) {
		*out = PV_TIME_NONE;
		return 0;
	}
	if (__builtin_sub_overflow(t, zero, out) || *out == PV_TIME_NONE)
		return pv_error_set(c->err, PV_ELIMIT,
				    "%s: the times span more than the model holds (292 years)",
				    c->in->name);
	return 0;
}

/* Node stacks: maps nodes to their profile, finds parents, builds the stacks. */
static int build_nodes(struct ch *c, uint32_t *node_prof, pv_stack_ix *nstack, bool *skip)
{
	uint32_t n = c->nodes.len;
	struct vnode *nodes = VEC(c->nodes, struct vnode);
	const struct vchunk *chunks = VEC(c->chunks, struct vchunk);
	uint32_t *parent = pv_malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
	pv_frame_ix *frame = pv_malloc((size_t)(n ? n : 1) * sizeof(pv_frame_ix));
	if (!parent || !frame) {
		pv_free(parent);
		pv_free(frame);
		return oom(c);
	}
	int rc = 0;
	for (uint32_t i = 0; i < n && !rc; i++) {
		const struct vchunk *k = &chunks[nodes[i].chunk];
		node_prof[i] = k->done ? k->prof : NO_IX;
		parent[i] = NO_IX;
		frame[i] = nodes[i].frame;
		skip[i] = false;
		if (node_prof[i] == NO_IX)
			continue;
		struct node_key key = {c, node_prof[i], nodes[i].id, node_prof};
		uint64_t h = node_hash(node_prof[i], nodes[i].id);
		uint32_t slot;
		if (ixmap_find(&c->node_map, h, node_eq, &key, &slot) != UINT32_MAX) {
			c->dup_nodes++;
			node_prof[i] = NO_IX - 1; /* a duplicate: not found, no stack of its own */
			continue;
		}
		if (ixmap_insert(&c->node_map, slot, h, i))
			rc = oom(c);
	}
	for (uint32_t i = 0; i < n && !rc; i++) {
		if (node_prof[i] >= NO_IX - 1 || !nodes[i].has_parent)
			continue;
		uint32_t p = node_find(c, node_prof, node_prof[i], nodes[i].parent);
		if (p == NO_IX)
			c->missing_parent++;
		parent[i] = p;
	}
	const struct vedge *edges = VEC(c->edges, struct vedge);
	for (uint32_t e = 0; e < c->edges.len && !rc; e++) {
		const struct vchunk *k = &chunks[edges[e].chunk];
		if (!k->done || k->prof == NO_IX || !edges[e].resolved)
			continue;
		uint32_t ch = node_find(c, node_prof, k->prof, edges[e].child);
		uint32_t p = node_find(c, node_prof, k->prof, edges[e].parent);
		if (ch != NO_IX && p != NO_IX && parent[ch] == NO_IX && !nodes[ch].has_parent)
			parent[ch] = p;
	}
	for (uint32_t i = 0; i < n; i++) {
		skip[i] = nodes[i].root_name && parent[i] == NO_IX;
		if (node_prof[i] >= NO_IX - 1) {
			/* not part of any profile: no stack, and no walk through it */
			skip[i] = true;
			parent[i] = NO_IX;
		}
	}
	if (!rc)
		rc = forest_stacks(c, n, parent, frame, skip, nstack);
	pv_free(parent);
	pv_free(frame);
	return rc;
}

/* Samples of every profile, in time order, into psamples (their lines into plines). */
static int build_profiles(struct ch *c, const uint32_t *node_prof)
{
	uint32_t nc = c->chunks.len;
	uint32_t *order = pv_malloc((size_t)(nc ? nc : 1) * sizeof(uint32_t));
	if (!order)
		return oom(c);
	uint32_t m = 0;
	struct vchunk *chunks = VEC(c->chunks, struct vchunk);
	for (uint32_t i = 0; i < nc; i++)
		if (chunks[i].done && chunks[i].prof != NO_IX)
			order[m++] = i;
	pv_sort_r(order, m, sizeof(uint32_t), cmp_chunk, c);
	bool any_lines = false;
	for (uint32_t i = 0; i < m; i++)
		any_lines |= chunks[order[i]].has_lines || chunks[order[i]].has_cols;
	int rc = 0;
	for (uint32_t a = 0; a < m && !rc;) {
		uint32_t pi = chunks[order[a]].prof;
		uint32_t z = a;
		while (z < m && chunks[order[z]].prof == pi)
			z++;
		struct vprof *p = &VEC(c->profs, struct vprof)[pi];
		int64_t start = p->start, end = p->end;
		for (uint32_t i = a; i < z; i++)
			if (start == PV_TIME_NONE)
				start = chunks[order[i]].ts;
		if (start == PV_TIME_NONE) {
			start = 0;
			c->no_start += !c->heap; /* a heap profile has no times at all */
		}
		for (uint32_t i = a; i < z; i++) {
			const struct vchunk *k = &chunks[order[i]];
			int64_t e = k->end;
			if (k->span != PV_TIME_NONE && __builtin_add_overflow(start, k->span, &e))
				e = PV_TIME_NONE;
			if (e != PV_TIME_NONE && (end == PV_TIME_NONE || e > end))
				end = e;
		}
		int64_t t = start;
		uint32_t s0 = c->psamples.len;
		bool sorted = true;
		for (uint32_t i = a; i < z && !rc; i++) {
			const struct vchunk *k = &chunks[order[i]];
			uint32_t n = k->s_len < k->d_len ? k->s_len : k->d_len;
			c->deltas_mismatch += (k->s_len > n ? k->s_len - n : 0) +
					      (k->d_len > n ? k->d_len - n : 0);
			bool lines = k->has_lines && k->l_len == k->s_len;
			bool cols = k->has_cols && k->c_len == k->s_len;
			if ((k->has_lines && !lines) || (k->has_cols && !cols))
				c->lines_mismatch++;
			if (!n)
				continue;
			const int64_t *ids = VEC(c->s_ids, int64_t) + k->s_begin;
			const int64_t *d = VEC(c->deltas, int64_t) + k->d_begin;
			for (uint32_t s = 0; s < n; s++) {
				if (__builtin_add_overflow(t, d[s], &t)) {
					rc = pv_error_set(c->err, PV_ELIMIT,
							  "%s: sample times out of range", c->in->name);
					break;
				}
				struct psample *ps = vec_push(&c->psamples, sizeof(*ps));
				if (!ps) {
					rc = oom(c);
					break;
				}
				ps->time = t;
				ps->node = node_find(c, node_prof, pi, ids[s]);
				ps->seq = c->psamples.len - 1 - s0;
				uint32_t *pl =
				    any_lines ? vec_push(&c->plines, 2 * sizeof(uint32_t)) : NULL;
				if (any_lines && !pl) {
					rc = oom(c);
					break;
				}
				if (pl) {
					pl[0] =
					    lines ? VEC(c->s_lines, uint32_t)[k->l_begin + s] : 0;
					pl[1] = cols ? VEC(c->s_cols, uint32_t)[k->c_begin + s] : 0;
				}
				if (ps->node == NO_IX)
					c->unknown_node++;
				if (c->psamples.len - 1 > s0 && ps[-1].time > t)
					sorted = false;
			}
		}
		if (rc)
			break;
		uint32_t len = c->psamples.len - s0;
		struct psample *ps = len ? VEC(c->psamples, struct psample) + s0 : NULL;
		if (!sorted)
			pv_sort(ps, len, sizeof(*ps), cmp_psample);
		p = &VEC(c->profs, struct vprof)[pi];
		p->start = start;
		p->end = end;
		p->s_begin = s0;
		p->s_len = len;
		if (len)
			VEC(c->threads, struct cthread)[p->thread].used = true;
		a = z;
	}
	pv_free(order);
	return rc;
}

/*
 * The sampling interval: the median gap between the samples of a profile (psamples), read
 * once the per-chunk arrays they were made from are freed.
 */
static int sample_interval(struct ch *c)
{
	struct vec gaps = {0};
	const struct vprof *pr = VEC(c->profs, struct vprof);
	const struct psample *ps = VEC(c->psamples, struct psample);
	for (uint32_t p = 0; p < c->profs.len; p++) {
		for (uint32_t i = 1; i < pr[p].s_len; i++) {
			const struct psample *s = &ps[pr[p].s_begin + i];
			int64_t g;
			if (!__builtin_sub_overflow(s[0].time, s[-1].time, &g) && g > 0) {
				int64_t *slot = vec_push(&gaps, sizeof(int64_t));
				if (!slot) {
					vec_free(&gaps);
					return oom(c);
				}
				*slot = g;
			}
		}
	}
	if (gaps.len) {
		pv_sort(gaps.p, gaps.len, sizeof(int64_t), cmp_i64);
		c->b->p->meta.interval_ns = VEC(gaps, int64_t)[gaps.len / 2];
	}
	vec_free(&gaps);
	return 0;
}

/* The thread of an object-form sample: without a pid, the one thread with its tid. */
static uint32_t gsample_thread(struct ch *c, const struct gsample *g)
{
	if (g->pid == ID_MISSING) {
		uint32_t found = NO_IX;
		const struct cthread *t = VEC(c->threads, struct cthread);
		for (uint32_t i = 0; i < c->threads.len; i++) {
			if (t[i].tid != g->tid || t[i].pid == ID_MISSING)
				continue;
			if (found != NO_IX) {
				found = NO_IX;
				break;
			}
			found = i;
		}
		if (found != NO_IX)
			return found;
	}
	return get_thread(c, g->pid, g->tid);
}

static pv_str_ix thread_name(struct ch *c, const struct cthread *t)
{
	if (t->name)
		return t->name;
	if (t->pid == ID_MISSING && t->tid == ID_MISSING)
		return builder_cstr(c->b, "Main");
	if (t->tid == ID_MISSING)
		return builder_cstr(c->b, "Thread");
	if (id_is_strange(c, t->tid))
		return builder_strf(c->b, "Thread %s",
				    pool_s(c, VEC(c->strange, uint32_t)[t->tid - ID_STRANGE]));
	return builder_strf(c->b, "Thread %lld", (long long)t->tid);
}

static pv_str_ix process_name(struct ch *c, const struct cproc *p)
{
	struct pv_builder *b = c->b;
	if (p->name && p->labels)
		return builder_strf(b, "%s (%s)", pv_str(b->p, p->name), pv_str(b->p, p->labels));
	if (p->name)
		return p->name;
	if (p->labels) {
		if (id_is_strange(c, p->pid) || p->pid == ID_MISSING)
			return builder_strf(b, "Process (%s)", pv_str(b->p, p->labels));
		return builder_strf(b, "Process %lld (%s)", (long long)p->pid,
				    pv_str(b->p, p->labels));
	}
	return 0;
}

static void report(struct ch *c)
{
	struct pv_builder *b = c->b;
	static const struct {
		char ph;
		const char *what;
	} phases[] = {
	    {'C', "counter events ('C')"},
	    {'s', "flow events ('s', 't', 'f')"},
	    {'t', "flow events ('s', 't', 'f')"},
	    {'f', "flow events ('s', 't', 'f')"},
	    {'N', "object events ('N', 'O', 'D')"},
	    {'O', "object events ('N', 'O', 'D')"},
	    {'D', "object events ('N', 'O', 'D')"},
	    {'V', "memory dump events ('V', 'v')"},
	    {'v', "memory dump events ('V', 'v')"},
	    {'c', "clock sync events ('c')"},
	    {'(', "context events ('(', ')')"},
	    {')', "context events ('(', ')')"},
	    {'P', "sample events ('P') other than V8 CPU profiles"},
	};
	for (size_t i = 0; i < sizeof(phases) / sizeof(phases[0]); i++) {
		builder_lossy(b, c->ph_count[(unsigned char)phases[i].ph], "%s", phases[i].what);
		c->ph_count[(unsigned char)phases[i].ph] = 0;
	}
	for (int ph = 0; ph < 128; ph++) {
		if (!c->ph_count[ph])
			continue;
		if (ph > ' ' && ph < 127)
			builder_lossy(b, c->ph_count[ph], "events of unknown phase '%c'", ph);
		else
			builder_lossy(b, c->ph_count[ph], "events of unknown phase");
	}
	builder_lossy(b, c->no_ph, "objects without a phase ('ph')");
	builder_lossy(b, c->no_ts, "events without a time ('ts')");
	builder_lossy(b, c->tts, "thread-clock times of events ('tts', 'tdur')");
	builder_lossy(b, c->not_event, "array elements that are not events");
	builder_lossy(b, c->truncated, "event cut off by the end of the input (truncated trace)");
	builder_lossy(b, c->unclosed && !c->truncated,
		      "the event array has no closing ']' (allowed: a trace is written as it goes; "
		      "a file cut short between two events looks the same)");
	builder_lossy(b, c->neg_dur, "'X' events with a negative duration (kept zero-length)");
	builder_lossy(b, c->x_tdur, "'X' events without 'dur' (their thread duration 'tdur' used)");
	builder_lossy(b, c->x_nodur, "'X' events without a duration (kept zero-length)");
	builder_lossy(b, c->stack_fields, "event stacks ('stack', 'esf', 'estack')");
	builder_lossy(b, c->flow_fields, "flow bindings of events ('bind_id', 'flow_in', 'flow_out')");
	builder_lossy(b, c->args_id, "async events' args 'id' (the event's id kept)");
	builder_lossy(b, c->orphan_samples, "samples of ProfileChunk events of no Profile");
	builder_lossy(b, c->deltas_mismatch, "samples without a time delta, or deltas without a sample");
	builder_lossy(b, c->lines_mismatch, "per-sample 'lines'/'columns' of the wrong length");
	builder_lossy(b, c->no_start, "CPU profiles without a start time (timed from 0)");
	builder_lossy(b, c->pos_ticks, "nodes' positionTicks (per-line sample counts)");
	builder_lossy(b, c->missing_parent, "nodes whose parent does not exist (made roots)");
	builder_lossy(b, c->dup_nodes, "nodes with a duplicate id (the first kept)");
	builder_lossy(b, c->cycles, "node parent cycles (cut)");
	builder_lossy(b, c->unknown_node, "samples naming no node (kept without a stack)");
	builder_lossy(b, c->gs_unknown_sf, "samples naming no stack frame (kept without a stack)");
	builder_lossy(b, c->sf_unknown, "events' 'sf' naming no stack frame (no cause stack)");
	builder_lossy(b, c->dur_unmatched,
		      "'E' events ending no open event of their name (not in the call tree)");
	builder_lossy(b, c->dur_open, "events begun and never ended (closed at the thread's last "
				      "event in the call tree)");
	builder_lossy(b, c->heap_mismatch,
		      "heap profile nodes whose selfSize differs from their samples' sizes (the "
		      "samples kept)");
	builder_lossy(b, c->heap_unused, "sampling heap profile samples outside a heap profile");
}

/*
 * A sampling heap profile's samples, all on one thread, times unknown. With 'samples': one per
 * allocation sample in 'ordinal' order, on its node's stack, weighing its size (metric "bytes",
 * the default) and 1 ("allocations"); each node's selfSize is checked against the sizes of its
 * samples (a mismatch is counted in the report). Without: one per node with a selfSize, weighing
 * it ("bytes" only).
 */
static int heap_samples(struct ch *c, const uint32_t *node_prof, const pv_stack_ix *nstack,
			pv_thread_ix tout)
{
	struct pv_builder *b = c->b;
	uint32_t nn = c->nodes.len, nh = c->hsamples.len;
	const struct vnode *nodes = VEC(c->nodes, struct vnode);
	pv_metric_ix bytes = builder_metric(b, builder_cstr(b, "bytes"), PV_UNIT_BYTES);
	b->p->meta.default_metric = bytes;
	if (!nh) {
		for (uint32_t i = 0; i < nn && !b->status; i++)
			if (node_prof[i] == c->heap_prof && nodes[i].self > 0)
				builder_sample(b, tout, nstack[i], PV_TIME_NONE, &nodes[i].self);
		return 0;
	}
	builder_metric(b, builder_cstr(b, "allocations"), PV_UNIT_COUNT);
	int64_t *sum = pv_calloc(nn ? nn : 1, sizeof(int64_t));
	if (!sum)
		return oom(c);
	struct hsample *hs = VEC(c->hsamples, struct hsample);
	pv_sort(hs, nh, sizeof(*hs), cmp_hsample);
	for (uint32_t i = 0; i < nh && !b->status; i++) {
		uint32_t n = node_find(c, node_prof, c->heap_prof, hs[i].node);
		pv_stack_ix st = PV_NONE;
		if (n == NO_IX) {
			c->unknown_node++;
		} else {
			st = nstack[n];
			sum[n] += hs[i].size; /* no overflow: the sum of all sizes is in range */
		}
		int64_t w[2] = {hs[i].size, 1};
		builder_sample(b, tout, st, PV_TIME_NONE, w);
	}
	for (uint32_t i = 0; i < nn; i++)
		if (node_prof[i] == c->heap_prof && nodes[i].self != sum[i])
			c->heap_mismatch++;
	pv_free(sum);
	return 0;
}

/*
 * A trace without CPU samples: its duration events (B/E and X) become a call tree, as speedscope
 * shows such a trace. Per thread, begins in time order (at one time B before X, a longer X
 * first), ends in time order; at one time an end goes first unless the begin has the end's name
 * (a zero-length event); an end closes the innermost open frame when their names match, an end
 * of the same time that matches it better going first, and is ignored (counted) otherwise. Each
 * stretch of time with a frame open is a sample of the open stack weighing the stretch.
 */
struct dur_ev {
	uint32_t thread; /* out thread */
	int64_t t;
	int kind;     /* begins: 0 B, 1 X; ends: 0 E, 1 X */
	int64_t dur;  /* X: the duration (longer first) */
	uint32_t order;
	pv_str_ix name;
	pv_cat_ix cat;
};

static int cmp_dur_ev(const void *a, const void *b)
{
	const struct dur_ev *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

struct open_frame {
	pv_stack_ix stack;
	pv_str_ix name;
};

static int duration_samples(struct ch *c, int64_t zero, pv_metric_ix m)
{
	struct pv_builder *b = c->b;
	const struct cmark *mk = VEC(c->marks, struct cmark);
	const struct cthread *th = VEC(c->threads, struct cthread);
	struct vec begins = {0}, ends = {0}, open = {0};
	int rc = 0;
	for (uint32_t i = 0; i < c->marks.len && !rc; i++) {
		const struct cmark *k = &mk[i];
		if (k->ph != 'B' && k->ph != 'E' && k->ph != 'X')
			continue;
		struct dur_ev e = {
			.thread = th[k->thread].out, .kind = k->ph == 'X', .order = k->order,
			.name = k->name, .cat = k->cat,
		};
		if (k->ph == 'X')
			e.dur = k->end - k->start;
		if (k->ph != 'E') {
			e.t = k->start;
			struct dur_ev *s = vec_push(&begins, sizeof(*s));
			if (!s) {
				rc = oom(c);
				break;
			}
			*s = e;
		}
		if (k->ph != 'B') {
			e.t = k->end;
			struct dur_ev *s = vec_push(&ends, sizeof(*s));
			if (!s) {
				rc = oom(c);
				break;
			}
			*s = e;
		}
	}
	struct dur_ev *bq = VEC(begins, struct dur_ev), *eq = VEC(ends, struct dur_ev);
	pv_sort(bq, begins.len, sizeof(*bq), cmp_dur_ev);
	pv_sort(eq, ends.len, sizeof(*eq), cmp_dur_ev);
	int64_t w[2] = {0, 0};
	uint32_t bi = 0, ei = 0;
	while (!rc && !b->status && (bi < begins.len || ei < ends.len)) {
		/* one thread at a time: the lower thread's queues first */
		uint32_t thread = bi < begins.len ? bq[bi].thread : eq[ei].thread;
		if (ei < ends.len && eq[ei].thread < thread)
			thread = eq[ei].thread;
		open.len = 0;
		int64_t last = 0;
		for (;;) {
			bool hb = bi < begins.len && bq[bi].thread == thread;
			bool he = ei < ends.len && eq[ei].thread == thread;
			if (!hb && !he)
				break;
			bool take_b = !he || (hb && (bq[bi].t < eq[ei].t ||
						     (bq[bi].t == eq[ei].t && bq[bi].name == eq[ei].name)));
			int64_t t = take_b ? bq[bi].t : eq[ei].t;
			if (open.len && t > last) {
				struct open_frame *top = &VEC(open, struct open_frame)[open.len - 1];
				int64_t rt;
				if ((rc = rel(c, last, zero, &rt)))
					break;
				w[m] = t - last;
				builder_sample(b, thread, top->stack, rt, w);
			}
			last = t;
			if (take_b) {
				const struct dur_ev *e = &bq[bi++];
				pv_func_ix f = builder_func(b, e->name, PV_NONE, PV_NONE, 0);
				struct frame_key k = {.func = f, .addr = PV_ADDR_NONE, .category = e->cat};
				pv_stack_ix prefix =
				    open.len ? VEC(open, struct open_frame)[open.len - 1].stack : PV_NONE;
				struct open_frame *o = vec_push(&open, sizeof(*o));
				if (!o) {
					rc = oom(c);
					break;
				}
				o->stack = builder_stack(b, prefix, builder_frame(b, &k));
				o->name = e->name;
				continue;
			}
			if (open.len) {
				/* an end at the same time that closes the innermost frame goes first */
				pv_str_ix top = VEC(open, struct open_frame)[open.len - 1].name;
				for (uint32_t j = ei + 1; j < ends.len && eq[j].thread == thread &&
							  eq[j].t == eq[ei].t && eq[ei].name != top;
				     j++)
					if (eq[j].name == top) {
						struct dur_ev tmp = eq[ei];
						eq[ei] = eq[j];
						eq[j] = tmp;
					}
			}
			const struct dur_ev *e = &eq[ei++];
			if (open.len && VEC(open, struct open_frame)[open.len - 1].name == e->name)
				open.len--;
			else
				c->dur_unmatched++;
		}
		c->dur_open += open.len;
	}
	vec_free(&begins);
	vec_free(&ends);
	vec_free(&open);
	return rc;
}

static int build(struct ch *c)
{
	struct pv_builder *b = c->b;
	int rc = 0;
	uint32_t nn = c->nodes.len;
	uint32_t *node_prof = pv_malloc((size_t)(nn ? nn : 1) * sizeof(uint32_t));
	pv_stack_ix *nstack = pv_malloc((size_t)(nn ? nn : 1) * sizeof(pv_stack_ix));
	bool *skip = pv_malloc(nn ? nn : 1);
	uint32_t ns = c->sframes.len;
	pv_stack_ix *sstack = pv_malloc((size_t)(ns ? ns : 1) * sizeof(pv_stack_ix));
	uint32_t *sparent = pv_malloc((size_t)(ns ? ns : 1) * sizeof(uint32_t));
	pv_frame_ix *sframe = pv_malloc((size_t)(ns ? ns : 1) * sizeof(pv_frame_ix));
	uint32_t nt = c->threads.len, nm = c->marks.len, np = c->profs.len;
	uint32_t *tord = pv_malloc((size_t)(nt ? nt : 1) * sizeof(uint32_t));
	uint32_t *mord = pv_malloc((size_t)(nm ? nm : 1) * sizeof(uint32_t));
	uint32_t *pord = pv_malloc((size_t)(np ? np : 1) * sizeof(uint32_t));
	if (!node_prof || !nstack || !skip || !sstack || !sparent || !sframe || !tord || !mord ||
	    !pord) {
		rc = oom(c);
		goto out;
	}

	/* V8 profiles: each chunk to its profile, by pid and id */
	struct vchunk *chunks = VEC(c->chunks, struct vchunk);
	for (uint32_t i = 0; i < c->chunks.len; i++) {
		struct vchunk *k = &chunks[i];
		if (!k->done)
			continue;
		if (k->prof == NO_IX)
			k->prof = find_prof(c, k->pid, pool_s(c, k->key), false);
		if (k->prof == NO_IX)
			c->orphan_samples += k->s_len;
	}
	if ((rc = build_nodes(c, node_prof, nstack, skip)))
		goto out;
	if ((rc = build_profiles(c, node_prof)))
		goto out;
	/* the samples are in psamples: the arrays read from the file go before more is made */
	vec_free(&c->s_ids);
	vec_free(&c->deltas);
	vec_free(&c->stamps);
	vec_free(&c->s_lines);
	vec_free(&c->s_cols);
	if ((rc = sample_interval(c)))
		goto out;

	/* stackFrames and object-form samples */
	struct sframe *sf = VEC(c->sframes, struct sframe);
	for (uint32_t i = 0; i < ns && !rc; i++) {
		struct text_key key = {c, pool_s(c, sf[i].id)};
		const char *s = key.s;
		uint64_t h = hash_bytes(s, strlen(s));
		uint32_t slot;
		if (ixmap_find(&c->sframe_map, h, sframe_eq, &key, &slot) == UINT32_MAX &&
		    ixmap_insert(&c->sframe_map, slot, h, i))
			rc = oom(c);
	}
	for (uint32_t i = 0; i < ns && !rc; i++) {
		sparent[i] = sf[i].parent ? sframe_find(c, pool_s(c, sf[i].parent)) : NO_IX;
		if (sf[i].parent && sparent[i] == NO_IX)
			c->missing_parent++;
		sframe[i] = sf[i].frame;
	}
	if (!rc)
		rc = forest_stacks(c, ns, sparent, sframe, NULL, sstack);
	if (rc)
		goto out;
	struct gsample *gs = VEC(c->gsamples, struct gsample);
	uint32_t ng = c->gsamples.len;
	for (uint32_t i = 0; i < ng; i++) {
		gs[i].thread = gsample_thread(c, &gs[i]);
		if (gs[i].thread == NO_IX) {
			rc = oom(c);
			goto out;
		}
		VEC(c->threads, struct cthread)[gs[i].thread].used = true;
	}
	pv_sort(gs, ng, sizeof(*gs), cmp_gsample);

	/* threads, in their order */
	nt = c->threads.len;
	pv_free(tord);
	tord = pv_malloc((size_t)(nt ? nt : 1) * sizeof(uint32_t));
	if (!tord) {
		rc = oom(c);
		goto out;
	}
	uint32_t used = 0;
	struct cthread *th = VEC(c->threads, struct cthread);
	for (uint32_t i = 0; i < nt; i++)
		if (th[i].used)
			tord[used++] = i;
	pv_sort_r(tord, used, sizeof(uint32_t), cmp_thread, c);
	for (uint32_t i = 0; i < used; i++) {
		struct cthread *t = &th[tord[i]];
		const struct cproc *p = &VEC(c->procs, struct cproc)[t->proc];
		t->out = builder_thread(b, thread_name(c, t), id_model(c, t->pid),
					id_model(c, t->tid), process_name(c, p));
	}

	/* the zero: the earliest time the file names */
	int64_t zero = PV_TIME_NONE;
	const struct vprof *pr = VEC(c->profs, struct vprof);
	const struct psample *ps = VEC(c->psamples, struct psample);
	for (uint32_t i = 0; i < np; i++)
		if (pr[i].s_len) {
			zmin(&zero, pr[i].start);
			zmin(&zero, ps[pr[i].s_begin].time);
		}
	for (uint32_t i = 0; i < ng; i++)
		zmin(&zero, gs[i].ts);
	const struct cmark *mk = VEC(c->marks, struct cmark);
	for (uint32_t i = 0; i < nm; i++) {
		zmin(&zero, mk[i].start);
		zmin(&zero, mk[i].end);
	}
	if (zero == PV_TIME_NONE)
		zero = 0;

	/* samples */
	pv_metric_ix m_time = PV_NONE;
	if (c->heap) {
		const struct vprof *hp = &pr[c->heap_prof];
		if ((rc = heap_samples(c, node_prof, nstack, th[hp->thread].out)))
			goto out;
	} else if (c->psamples.len || ng) {
		builder_metric(b, builder_cstr(b, "samples"), PV_UNIT_COUNT);
		m_time = builder_metric(b, builder_cstr(b, "time"), PV_UNIT_NS);
		b->p->meta.default_metric = m_time;
	} else if (nm) {
		/* no CPU samples: the duration events' call tree */
		m_time = builder_metric(b, builder_cstr(b, "time"), PV_UNIT_NS);
		b->p->meta.default_metric = m_time;
		if ((rc = duration_samples(c, zero, m_time)))
			goto out;
	}
	uint32_t npo = 0;
	for (uint32_t i = 0; i < np; i++)
		if (pr[i].s_len)
			pord[npo++] = i;
	pv_sort_r(pord, npo, sizeof(uint32_t), cmp_prof_out, c);
	const struct vnode *nodes = VEC(c->nodes, struct vnode);
	for (uint32_t a = 0; a < npo && !rc; a++) {
		const struct vprof *p = &pr[pord[a]];
		pv_thread_ix tout = th[p->thread].out;
		for (uint32_t i = 0; i < p->s_len && !b->status; i++) {
			const struct psample *s = &ps[p->s_begin + i];
			int64_t w[2] = {1, 0};
			if (i + 1 < p->s_len)
				w[1] = s[1].time - s->time;
			else if (p->end != PV_TIME_NONE && p->end >= s->time &&
				 __builtin_sub_overflow(p->end, s->time, &w[1]))
				w[1] = 0;
			pv_stack_ix st = s->node == NO_IX ? PV_NONE : nstack[s->node];
			const uint32_t *pl = c->plines.len ? VEC(c->plines, uint32_t) +
								 2 * (size_t)(p->s_begin + s->seq)
							   : NULL;
			if (s->node != NO_IX && pl && pl[0] && !skip[s->node]) {
				/* the sample's own line (and column) in the leaf function */
				const struct pv_frames *fr = &b->p->frames;
				pv_frame_ix f = nodes[s->node].frame;
				if (f < fr->len && (st == PV_NONE || st < b->p->stacks.len)) {
					struct frame_key k = {
					    .func = fr->func[f],
					    .line = pl[0],
					    .column = pl[1],
					    .addr = PV_ADDR_NONE,
					    .category = fr->category[f],
					    .subcategory = fr->subcategory[f],
					};
					pv_stack_ix pre = st == PV_NONE ? PV_NONE : b->p->stacks.prefix[st];
					st = builder_stack(b, pre, builder_frame(b, &k));
				}
			}
			int64_t t;
			if ((rc = rel(c, s->time, zero, &t)))
				break;
			builder_sample(b, tout, st, t, w);
		}
	}
	for (uint32_t i = 0; i < ng && !rc && !b->status; i++) {
		pv_stack_ix st = PV_NONE;
		if (gs[i].sf) {
			uint32_t f = sframe_find(c, pool_s(c, gs[i].sf));
			if (f == NO_IX)
				c->gs_unknown_sf++;
			else
				st = sstack[f];
		}
		int64_t w[2] = {gs[i].weight, 0};
		if (i + 1 < ng && gs[i + 1].thread == gs[i].thread && gs[i].ts != PV_TIME_NONE &&
		    gs[i + 1].ts != PV_TIME_NONE && __builtin_sub_overflow(gs[i + 1].ts, gs[i].ts, &w[1]))
			w[1] = 0;
		int64_t t;
		if ((rc = rel(c, gs[i].ts, zero, &t)))
			break;
		builder_sample(b, th[gs[i].thread].out, st, t, w);
	}
	if (rc)
		goto out;

	/* markers, by thread and time */
	for (uint32_t i = 0; i < nm; i++)
		mord[i] = i;
	pv_sort_r(mord, nm, sizeof(uint32_t), cmp_mark, c);
	for (uint32_t i = 0; i < nm && !b->status; i++) {
		const struct cmark *m = &mk[mord[i]];
		struct raw_marker r = {
			.name = m->name,
			.category = m->cat,
			.phase = m->phase,
			.thread = th[m->thread].out,
			.payload = m->payload,
			.cause_stack = PV_NONE,
			.cause_time_ns = PV_TIME_NONE,
		};
		if ((rc = rel(c, m->start, zero, &r.start_ns)) ||
		    (rc = rel(c, m->end, zero, &r.end_ns)))
			goto out;
		if (m->sf) {
			uint32_t f = sframe_find(c, pool_s(c, m->sf));
			if (f == NO_IX) {
				c->sf_unknown++;
			} else {
				r.cause_stack = sstack[f];
				r.cause_time_ns = r.start_ns != PV_TIME_NONE ? r.start_ns : r.end_ns;
			}
		}
		builder_marker(b, &r);
	}

	b->p->meta.product = builder_cstr(b, c->product ? c->product : "");
	report(c);
out:
	pv_free(node_prof);
	pv_free(nstack);
	pv_free(skip);
	pv_free(sstack);
	pv_free(sparent);
	pv_free(sframe);
	pv_free(tord);
	pv_free(mord);
	pv_free(pord);
	return rc;
}

/* ---- probe and import ---- */

static int probe(const struct pv_input *in)
{
	char first = probe_first_char(in);
	size_t win = 65536;
	if (first == '[')
		return probe_has(in, win, "\"ph\"") ? 90 : 0;
	if (first != '{')
		return 0;
	if (probe_has(in, PROBE_WINDOW, "\"traceEvents\""))
		return 90;
	/* a .cpuprofile: nodes with call frames, or the old head tree with timestamps */
	if (probe_has(in, win, "\"nodes\"") && probe_has(in, win, "\"callFrame\""))
		return 85;
	if (probe_has(in, win, "\"head\"") && probe_has(in, win, "\"functionName\"")) {
		size_t tail = in->len < 65536 ? in->len : 65536;
		if (memmem(in->data + in->len - tail, tail, "\"timestamps\"", 12) ||
		    probe_has(in, win, "\"timestamps\""))
			return 85;
	}
	/* a sampling heap profile (.heapprofile): the head tree's nodes carry selfSize */
	if (probe_has(in, win, "\"head\"") && probe_has(in, win, "\"selfSize\""))
		return 85;
	if (probe_has(in, win, "\"stackFrames\"") && probe_has(in, win, "\"samples\""))
		return 80;
	/* keys in another order: big sample arrays first, the nodes at the end */
	size_t tail = in->len < 65536 ? in->len : 65536;
	if ((probe_has(in, win, "\"samples\"") || probe_has(in, win, "\"timeDeltas\"")) &&
	    memmem(in->data + in->len - tail, tail, "\"callFrame\"", 11))
		return 85;
	/* a DevTools export with a big "metadata" before its "traceEvents" */
	const char *p = in->data, *e = in->data + in->len;
	while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t' || *p == '{'))
		p++;
	if ((size_t)(e - p) > 10 && memcmp(p, "\"metadata\"", 10) == 0)
		return 60;
	return 0;
}

static void release(struct ch *c)
{
	json_release(&c->j);
	struct vec *vecs[] = {&c->threads, &c->procs,	&c->marks,   &c->profs,	   &c->chunks,
			      &c->nodes,   &c->edges,	&c->sframes, &c->gsamples, &c->s_ids,
			      &c->deltas,  &c->stamps,	&c->s_lines, &c->s_cols,   &c->psamples,
			      &c->plines,  &c->strange, &c->hsamples};
	for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
		vec_free(vecs[i]);
	ixmap_release(&c->thread_map);
	ixmap_release(&c->proc_map);
	ixmap_release(&c->node_map);
	ixmap_release(&c->sframe_map);
	ixmap_release(&c->prof_map);
	struct sbuf *bufs[] = {&c->pool, &c->name, &c->cat,   &c->id,      &c->sf,  &c->meta,
			       &c->cap,  &c->argid, &c->payload, &c->tmp, &c->scope};
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		sbuf_release(bufs[i]);
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct ch *c = pv_calloc(1, sizeof(*c));
	if (!c)
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
	c->b = b;
	c->in = in;
	c->err = err;
	c->cat_other = c->cat_idle = c->cat_js = c->cat_gc = c->cat_native = PV_NONE;
	json_init(&c->j, in, err);
	int rc = 0;
	if (sbuf_put(&c->pool, "", 1)) /* offset 0: "" */
		rc = pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
	struct json_tok t;
	if (!rc && probe_first_char(in) == '[')
		c->j.lenient_tail = true;
	if (!rc)
		rc = json_next(&c->j, &t);
	if (!rc) {
		if (t.kind == JSON_ARRAY) {
			c->product = "Chrome trace (array form)";
			rc = read_events(c, &c->j);
		} else if (t.kind == JSON_OBJECT) {
			rc = read_top_object(c, &c->j);
		} else {
			rc = json_fail_at(&c->j, &t,
					  "expected a Chrome trace (an array or an object) or a "
					  ".cpuprofile, found %s",
					  json_kind_name(t.kind));
		}
	}
	if (!rc && (rc = json_next(&c->j, &t)) == 0 && t.kind != JSON_EOF)
		rc = json_fail_at(&c->j, &t, "expected the end of the input");
	if (!rc)
		rc = build(c);
	if (!rc && b->status)
		rc = pv_error_set(err, b->status, "%s: %s while importing", in->name,
				  pv_strerror(b->status));
	release(c);
	pv_free(c);
	return rc;
}

const struct importer importer_chrome = {
	.name = "chrome",
	.description = "Chrome trace events (array or object form), V8 .cpuprofile and .heapprofile",
	.probe = probe,
	.import = import,
};

/*
 * chrome.c - Chrome trace events (array and object form) and V8 CPU profiles (.cpuprofile).
 * This file holds the building of the profile, probe and import; chrome_v8.c reads V8's node
 * trees, chrome_trace.c the trace events, chrome_common.c has the helpers all share (chrome.h).
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
 *     weighing the stretch, metric "time" (see ch_duration_samples); the markers stay as they are;
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
#include "import/chrome/chrome.h"
#include "import/script_url.h"

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

static int64_t mark_time(const struct cmark *m)
{
	return m->phase == PV_PHASE_END ? m->end : m->start;
}

static int cmp_mark(const void *a, const void *b, void *ctx)
{
	const struct ch *c = ctx;
	const struct cmark *k = VEC(c->marks, struct cmark);
	const struct cthread *t = VEC(c->threads, struct cthread);
	uint32_t ix = *(const uint32_t *)a, iy = *(const uint32_t *)b;
	const struct cmark *x = &k[ix], *y = &k[iy];
	pv_thread_ix ox = t[x->thread].out, oy = t[y->thread].out;
	if (ox != oy)
		return ox < oy ? -1 : 1;
	int64_t tx = mark_time(x), ty = mark_time(y);
	if (tx != ty)
		return tx < ty ? -1 : 1;
	return ix < iy ? -1 : ix > iy;
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

/* The absolute time of sample i of profile pr: in dtimes (ch_direct) or psamples. */
static int64_t sample_time(const struct ch *c, const struct vprof *pr, uint32_t i)
{
	if (c->dtimes.len)
		return VEC(c->dtimes, int64_t)[pr->s_begin + i];
	return VEC(c->psamples, struct psample)[pr->s_begin + i].time;
}

/*
 * The sampling interval: the median gap between the samples of a profile (psamples), read
 * once the per-chunk arrays they were made from are freed.
 */
static int sample_interval(struct ch *c)
{
	struct vec gaps = {0};
	const struct vprof *pr = VEC(c->profs, struct vprof);
	for (uint32_t p = 0; p < c->profs.len; p++) {
		for (uint32_t i = 1; i < pr[p].s_len; i++) {
			int64_t g;
			if (!__builtin_sub_overflow(sample_time(c, &pr[p], i),
						    sample_time(c, &pr[p], i - 1), &g) &&
			    g > 0) {
				int64_t *slot = vec_push(&gaps, sizeof(int64_t));
				if (!slot) {
					vec_free(&gaps);
					return ch_oom(c);
				}
				*slot = g;
			}
		}
	}
	if (gaps.len) {
		c->b->p->meta.interval_ns = pv_select_i64(gaps.p, gaps.len, gaps.len / 2);
	}
	vec_free(&gaps);
	return 0;
}

/*
 * The stack of a sample of node with its own line (and column) in the leaf function: the
 * node's stack st with its leaf frame at that line.
 */
static pv_stack_ix line_stack(struct ch *c, uint32_t node, pv_stack_ix st, uint32_t line,
			      uint32_t col)
{
	struct pv_builder *b = c->b;
	const struct pv_frames *fr = &b->p->frames;
	pv_frame_ix f = VEC(c->nodes, struct vnode)[node].frame;
	if (f >= fr->len || (st != PV_NONE && st >= b->p->stacks.len))
		return st;
	struct frame_key k = {
	    .func = fr->func[f],
	    .line = line,
	    .column = col,
	    .addr = PV_ADDR_NONE,
	    .category = pv_frame_category(b->p, f),
	    .subcategory = pv_frame_subcategory(b->p, f),
	};
	pv_stack_ix pre = st == PV_NONE ? PV_NONE : b->p->stacks.prefix[st];
	return builder_stack(b, pre, builder_frame(b, &k));
}

/*
 * The samples of profile p read in place (ch_direct) become the model's columns: the node
 * indices their stacks, the times relative to zero their times; each weighs 1 and, for m_time,
 * the time to the next sample (the last: to the profile's end, 0 when it has none), as
 * build()'s loop weighs the samples of psamples.
 */
static int direct_samples(struct ch *c, const struct vprof *p, pv_thread_ix tout,
			  const pv_stack_ix *nstack, const bool *skip, uint32_t *tcur, int64_t zero,
			  pv_metric_ix m_time)
{
	struct pv_builder *b = c->b;
	uint32_t n = p->s_len;
	int64_t *t = VEC(c->dtimes, int64_t);
	uint32_t *st = VEC(c->dnodes, uint32_t);
	int64_t last = 0;
	if (p->end != PV_TIME_NONE && p->end >= t[n - 1] &&
	    __builtin_sub_overflow(p->end, t[n - 1], &last))
		last = 0;
	int rc = 0;
	for (uint32_t i = 0; i < n && !rc; i++) {
		uint32_t node = st[i], line = 0;
		st[i] = node == NO_IX ? PV_NONE : nstack[node];
		if (tcur && node != NO_IX && (line = ch_tick_line(c, node, tcur)) && !skip[node])
			st[i] = line_stack(c, node, st[i], line, 0);
		rc = ch_rel(c, t[i], zero, &t[i]);
	}
	if (rc)
		return rc;
	memset(&c->dtimes, 0, sizeof(c->dtimes));
	memset(&c->dnodes, 0, sizeof(c->dnodes));
	uint32_t first = b->p->samples.len;
	if (builder_samples_adopt(b, tout, st, t, n))
		return 0; /* the builder's status says why */
	bool ones = last == 1;
	const int64_t *tm = b->p->samples.time_ns + first;
	for (uint32_t i = 0; i + 1 < n && ones; i++)
		ones = tm[i + 1] - tm[i] == 1;
	int64_t *w = ones ? NULL : builder_samples_weight(b, m_time);
	if (!w)
		return 0;
	w += first;
	for (uint32_t i = 0; i + 1 < n; i++)
		w[i] = tm[i + 1] - tm[i];
	w[n - 1] = last;
	return 0;
}

static pv_str_ix thread_name(struct ch *c, const struct cthread *t)
{
	if (t->name)
		return t->name;
	if (t->pid == ID_MISSING && t->tid == ID_MISSING)
		return builder_cstr(c->b, "Main");
	if (t->tid == ID_MISSING)
		return builder_cstr(c->b, "Thread");
	if (ch_id_is_strange(c, t->tid))
		return builder_strf(c->b, "Thread %s",
				    ch_pool_s(c, VEC(c->strange, uint32_t)[t->tid - ID_STRANGE]));
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
		if (ch_id_is_strange(c, p->pid) || p->pid == ID_MISSING)
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
	builder_lossy(b, c->flow_fields,
		      "flow bindings of events ('bind_id', 'flow_in', 'flow_out')");
	builder_lossy(b, c->args_id, "async events' args 'id' (the event's id kept)");
	builder_lossy(b, c->orphan_samples, "samples of ProfileChunk events of no Profile");
	builder_lossy(b, c->deltas_mismatch,
		      "samples without a time delta, or deltas without a sample");
	builder_lossy(b, c->lines_mismatch, "per-sample 'lines'/'columns' of the wrong length");
	builder_lossy(b, c->no_start, "CPU profiles without a start time (timed from 0)");
	builder_lossy(b, c->bad_ticks, "positionTicks entries without a positive line and count");
	builder_lossy(b, c->ticks_mismatch,
		      "nodes whose positionTicks do not add up to their samples (the first samples "
		      "take the lines, any others the function's)");
	builder_lossy(b, c->missing_parent, "nodes whose parent does not exist (made roots)");
	builder_lossy(b, c->dup_nodes, "nodes with a duplicate id (the first kept)");
	builder_lossy(b, c->cycles, "node parent cycles (cut)");
	builder_lossy(b, c->unknown_node, "samples naming no node (kept without a stack)");
	builder_lossy(b, c->gs_unknown_sf, "samples naming no stack frame (kept without a stack)");
	builder_lossy(b, c->sf_unknown, "events' 'sf' naming no stack frame (no cause stack)");
	builder_lossy(b, c->dur_unmatched,
		      "'E' events ending no open event of their name (not in the call tree)");
	builder_lossy(b, c->dur_open,
		      "events begun and never ended (closed at the thread's last "
		      "event in the call tree)");
	builder_lossy(b, c->heap_mismatch,
		      "heap profile nodes whose selfSize differs from their samples' sizes (the "
		      "samples kept)");
	builder_lossy(b, c->heap_unused, "sampling heap profile samples outside a heap profile");
}

/* V8 profiles: each chunk read whole to its profile, by pid and id. */
static void resolve_chunks(struct ch *c)
{
	struct vchunk *chunks = VEC(c->chunks, struct vchunk);
	for (uint32_t i = 0; i < c->chunks.len; i++) {
		struct vchunk *k = &chunks[i];
		if (!k->done)
			continue;
		if (k->prof == NO_IX)
			k->prof = ch_find_prof(c, k->pid, ch_pool_s(c, k->key), false);
		if (k->prof == NO_IX)
			c->orphan_samples += k->s_len;
	}
}

/* The stackFrames entries' stacks (sstack, one per entry), their ids in sframe_map. */
static int sframe_stacks(struct ch *c, pv_stack_ix *sstack)
{
	uint32_t ns = c->sframes.len;
	uint32_t *sparent = pv_malloc((size_t)(ns ? ns : 1) * sizeof(uint32_t));
	pv_frame_ix *sframe = pv_malloc((size_t)(ns ? ns : 1) * sizeof(pv_frame_ix));
	int rc = !sparent || !sframe ? ch_oom(c) : 0;
	struct sframe *sf = VEC(c->sframes, struct sframe);
	for (uint32_t i = 0; i < ns && !rc; i++) {
		struct text_key key = {c, ch_pool_s(c, sf[i].id)};
		const char *s = key.s;
		uint64_t h = hash_bytes(s, strlen(s));
		uint32_t slot;
		if (ixmap_find(&c->sframe_map, h, ch_sframe_eq, &key, &slot) == UINT32_MAX &&
		    ixmap_insert(&c->sframe_map, slot, h, i))
			rc = ch_oom(c);
	}
	for (uint32_t i = 0; i < ns && !rc; i++) {
		sparent[i] = sf[i].parent ? ch_sframe_find(c, ch_pool_s(c, sf[i].parent)) : NO_IX;
		if (sf[i].parent && sparent[i] == NO_IX)
			c->missing_parent++;
		sframe[i] = sf[i].frame;
	}
	if (!rc)
		rc = ch_forest_stacks(c, ns, sparent, sframe, NULL, sstack);
	pv_free(sparent);
	pv_free(sframe);
	return rc;
}

/* The object-form samples' threads (marked used), the samples by thread and time. */
static int gsample_threads(struct ch *c)
{
	struct gsample *gs = VEC(c->gsamples, struct gsample);
	uint32_t ng = c->gsamples.len;
	for (uint32_t i = 0; i < ng; i++) {
		gs[i].thread = ch_gsample_thread(c, &gs[i]);
		if (gs[i].thread == NO_IX)
			return ch_oom(c);
		VEC(c->threads, struct cthread)[gs[i].thread].used = true;
	}
	pv_sort(gs, ng, sizeof(*gs), ch_cmp_gsample);
	return 0;
}

/* The threads used, in their order, made the model's. */
static int make_threads(struct ch *c)
{
	uint32_t nt = c->threads.len;
	uint32_t *tord = pv_malloc((size_t)(nt ? nt : 1) * sizeof(uint32_t));
	if (!tord)
		return ch_oom(c);
	uint32_t used = 0;
	struct cthread *th = VEC(c->threads, struct cthread);
	for (uint32_t i = 0; i < nt; i++)
		if (th[i].used)
			tord[used++] = i;
	pv_sort_r(tord, used, sizeof(uint32_t), cmp_thread, c);
	for (uint32_t i = 0; i < used; i++) {
		struct cthread *t = &th[tord[i]];
		const struct cproc *p = &VEC(c->procs, struct cproc)[t->proc];
		t->out = builder_thread(c->b, thread_name(c, t), ch_id_model(c, t->pid),
					ch_id_model(c, t->tid), process_name(c, p));
	}
	pv_free(tord);
	return 0;
}

/* The zero: the earliest time the file names (0 when it names none). */
static int64_t find_zero(const struct ch *c)
{
	int64_t zero = PV_TIME_NONE;
	const struct vprof *pr = VEC(c->profs, struct vprof);
	for (uint32_t i = 0; i < c->profs.len; i++)
		if (pr[i].s_len) {
			zmin(&zero, pr[i].start);
			zmin(&zero, sample_time(c, &pr[i], 0));
		}
	const struct gsample *gs = VEC(c->gsamples, struct gsample);
	for (uint32_t i = 0; i < c->gsamples.len; i++)
		zmin(&zero, gs[i].ts);
	const struct cmark *mk = VEC(c->marks, struct cmark);
	for (uint32_t i = 0; i < c->marks.len; i++) {
		zmin(&zero, mk[i].start);
		zmin(&zero, mk[i].end);
	}
	return zero == PV_TIME_NONE ? 0 : zero;
}

/*
 * The metrics of the samples, and the samples of a heap profile or the duration events' call
 * tree (a trace without CPU samples); *m_time the time metric (PV_NONE when none).
 */
static int sample_metrics(struct ch *c, const uint32_t *node_prof, const pv_stack_ix *nstack,
			  int64_t zero, pv_metric_ix *m_time)
{
	struct pv_builder *b = c->b;
	*m_time = PV_NONE;
	if (c->heap) {
		const struct vprof *hp = &VEC(c->profs, struct vprof)[c->heap_prof];
		pv_thread_ix tout = VEC(c->threads, struct cthread)[hp->thread].out;
		return ch_heap_samples(c, node_prof, nstack, tout);
	}
	if (c->psamples.len || c->dtimes.len || c->gsamples.len) {
		builder_metric(b, builder_cstr(b, "samples"), PV_UNIT_COUNT);
		*m_time = builder_metric(b, builder_cstr(b, "time"), PV_UNIT_NS);
		b->p->meta.default_metric = *m_time;
	} else if (c->marks.len) {
		/* no CPU samples: the duration events' call tree */
		*m_time = builder_metric(b, builder_cstr(b, "time"), PV_UNIT_NS);
		b->p->meta.default_metric = *m_time;
		return ch_duration_samples(c, zero, *m_time);
	}
	return 0;
}

/* What the samples of the V8 profiles are made of (profile_samples). */
struct v8_out {
	const pv_stack_ix *nstack;
	const bool *skip;
	uint32_t *tcur; /* positionTicks cursors, NULL when no node has them */
	int64_t zero;
	pv_metric_ix m_time;
};

/* The time weight of sample i of profile p's n (ps: its first): to the next sample, the last
 * to the profile's end (0 when it has none). */
static int64_t psample_weight(const struct vprof *p, const struct psample *ps, uint32_t i)
{
	int64_t w = 0;
	if (i + 1 < p->s_len)
		w = ps[i + 1].time - ps[i].time;
	else if (p->end != PV_TIME_NONE && p->end >= ps[i].time &&
		 __builtin_sub_overflow(p->end, ps[i].time, &w))
		w = 0;
	return w;
}

/*
 * The samples of profile p in psamples, written into the model's columns in place and
 * committed at once (builder_samples_reserve): each weighs 1 and its time weight (metric 1:
 * sample_metrics made "samples" and "time"), what a builder_sample call a sample did.
 */
static int psamples_out(struct ch *c, const struct vprof *p, pv_thread_ix tout,
			const struct v8_out *o)
{
	struct pv_builder *b = c->b;
	const struct psample *ps = VEC(c->psamples, struct psample) + p->s_begin;
	uint32_t n = p->s_len, first = b->p->samples.len;
	if (!n || builder_samples_reserve(b, (uint64_t)first + n, false))
		return 0; /* nothing, or the builder's status says why */
	for (uint32_t i = 0; i < n && !b->status; i++) {
		const struct psample *s = &ps[i];
		pv_stack_ix st = s->node == NO_IX ? PV_NONE : o->nstack[s->node];
		const uint32_t *pl =
		    c->plines.len ? VEC(c->plines, uint32_t) + 2 * (size_t)(p->s_begin + s->seq)
				  : NULL;
		uint32_t line = pl ? pl[0] : 0, col = pl && pl[0] ? pl[1] : 0;
		if (!line && o->tcur && s->node != NO_IX)
			line = ch_tick_line(c, s->node, o->tcur);
		if (s->node != NO_IX && line && !o->skip[s->node])
			st = line_stack(c, s->node, st, line, col);
		int64_t t;
		int rc = ch_rel(c, s->time, o->zero, &t);
		if (rc)
			return rc;
		b->p->samples.stack[first + i] = st;
		b->p->samples.time_ns[first + i] = t;
	}
	builder_samples_commit(b, tout, first, n);
	bool ones = b->p->samples.weight[1] == NULL;
	for (uint32_t i = 0; i < n && ones; i++)
		ones = psample_weight(p, ps, i) == 1;
	int64_t *w = ones || b->status ? NULL : builder_samples_weight(b, 1);
	for (uint32_t i = 0; w && i < n; i++)
		w[first + i] = psample_weight(p, ps, i);
	return 0;
}

/* The V8 profiles' samples, profile by profile in thread and start order. */
static int profile_samples(struct ch *c, struct v8_out *o)
{
	uint32_t np = c->profs.len, npo = 0;
	uint32_t *pord = pv_malloc((size_t)(np ? np : 1) * sizeof(uint32_t));
	if (!pord)
		return ch_oom(c);
	const struct vprof *pr = VEC(c->profs, struct vprof);
	for (uint32_t i = 0; i < np; i++)
		if (pr[i].s_len)
			pord[npo++] = i;
	pv_sort_r(pord, npo, sizeof(uint32_t), cmp_prof_out, c);
	const struct cthread *th = VEC(c->threads, struct cthread);
	int rc = 0;
	for (uint32_t a = 0; a < npo && !rc; a++) {
		const struct vprof *p = &pr[pord[a]];
		pv_thread_ix tout = th[p->thread].out;
		if (c->dtimes.len && pord[a] == c->dprof)
			rc = direct_samples(c, p, tout, o->nstack, o->skip, o->tcur, o->zero,
					    o->m_time);
		else
			rc = psamples_out(c, p, tout, o);
	}
	pv_free(pord);
	return rc;
}

/* The object-form samples, each on its thread, weighing the time to its thread's next. */
static int gsamples_out(struct ch *c, const pv_stack_ix *sstack, int64_t zero)
{
	struct pv_builder *b = c->b;
	const struct gsample *gs = VEC(c->gsamples, struct gsample);
	const struct cthread *th = VEC(c->threads, struct cthread);
	uint32_t ng = c->gsamples.len;
	int rc = 0;
	for (uint32_t i = 0; i < ng && !rc && !b->status; i++) {
		pv_stack_ix st = PV_NONE;
		if (gs[i].sf) {
			uint32_t f = ch_sframe_find(c, ch_pool_s(c, gs[i].sf));
			if (f == NO_IX)
				c->gs_unknown_sf++;
			else
				st = sstack[f];
		}
		int64_t w[2] = {gs[i].weight, 0};
		if (i + 1 < ng && gs[i + 1].thread == gs[i].thread && gs[i].ts != PV_TIME_NONE &&
		    gs[i + 1].ts != PV_TIME_NONE &&
		    __builtin_sub_overflow(gs[i + 1].ts, gs[i].ts, &w[1]))
			w[1] = 0;
		int64_t t;
		if ((rc = ch_rel(c, gs[i].ts, zero, &t)))
			break;
		builder_sample(b, th[gs[i].thread].out, st, t, w);
	}
	return rc;
}

/* The samples: V8 profiles', then the object form's. */
static int samples_out(struct ch *c, const pv_stack_ix *nstack, const bool *skip,
		       const pv_stack_ix *sstack, int64_t zero, pv_metric_ix m_time)
{
	uint32_t nn = c->nodes.len;
	/* positionTicks: each node's samples without a line of their own get its lines */
	struct v8_out o = {nstack, skip, NULL, zero, m_time};
	if (c->ticks.len && !(o.tcur = pv_calloc((size_t)nn * 2, sizeof(uint32_t))))
		return ch_oom(c);
	/*
	 * one sample per psample and object-form sample: room once, so the columns never move
	 * (not with a profile read in place, whose arrays become the columns: direct_samples)
	 */
	if (!c->dtimes.len)
		builder_samples_room(c->b, (uint64_t)c->b->p->samples.len + c->psamples.len +
					       c->gsamples.len);
	int rc = profile_samples(c, &o);
	if (!rc)
		rc = gsamples_out(c, sstack, zero);
	if (o.tcur)
		ch_ticks_check(c, o.tcur);
	pv_free(o.tcur);
	return rc;
}

/* The markers, by thread and time. */
static int markers_out(struct ch *c, const pv_stack_ix *sstack, int64_t zero)
{
	struct pv_builder *b = c->b;
	uint32_t nm = c->marks.len;
	uint32_t *mord = pv_malloc((size_t)(nm ? nm : 1) * sizeof(uint32_t));
	if (!mord)
		return ch_oom(c);
	for (uint32_t i = 0; i < nm; i++)
		mord[i] = i;
	ch_sort_r(mord, nm, sizeof(uint32_t), cmp_mark, c);
	builder_markers_reserve(b, nm);
	const struct cmark *mk = VEC(c->marks, struct cmark);
	const struct cthread *th = VEC(c->threads, struct cthread);
	int rc = 0;
	for (uint32_t i = 0; i < nm && !b->status && !rc; i++) {
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
		if ((rc = ch_rel(c, m->start, zero, &r.start_ns)) ||
		    (rc = ch_rel(c, m->end, zero, &r.end_ns)))
			break;
		if (m->sf) {
			uint32_t f = ch_sframe_find(c, ch_pool_s(c, m->sf));
			if (f == NO_IX) {
				c->sf_unknown++;
			} else {
				r.cause_stack = sstack[f];
				r.cause_time_ns =
				    r.start_ns != PV_TIME_NONE ? r.start_ns : r.end_ns;
			}
		}
		builder_marker(b, &r);
	}
	pv_free(mord);
	return rc;
}

static int build(struct ch *c)
{
	struct pv_builder *b = c->b;
	uint32_t nn = c->nodes.len, ns = c->sframes.len;
	uint32_t *node_prof = pv_malloc((size_t)(nn ? nn : 1) * sizeof(uint32_t));
	pv_stack_ix *nstack = pv_malloc((size_t)(nn ? nn : 1) * sizeof(pv_stack_ix));
	bool *skip = pv_malloc(nn ? nn : 1);
	pv_stack_ix *sstack = pv_malloc((size_t)(ns ? ns : 1) * sizeof(pv_stack_ix));
	int rc = !node_prof || !nstack || !skip || !sstack ? ch_oom(c) : 0;
	if (!rc) {
		resolve_chunks(c);
		rc = ch_build_nodes(c, node_prof, nstack, skip);
	}
	if (!rc)
		rc = ch_build_profiles(c, node_prof);
	if (!rc) {
		/* the samples are in psamples: the arrays read go before more is made */
		struct vec *read[] = {&c->s_ids, &c->deltas, &c->stamps, &c->s_lines, &c->s_cols};
		for (size_t i = 0; i < sizeof(read) / sizeof(read[0]); i++)
			vec_free(read[i]);
		rc = sample_interval(c);
	}
	if (!rc)
		rc = sframe_stacks(c, sstack);
	if (!rc)
		rc = gsample_threads(c);
	if (!rc)
		rc = make_threads(c);
	int64_t zero = rc ? 0 : find_zero(c);
	pv_metric_ix m_time = PV_NONE;
	if (!rc)
		rc = sample_metrics(c, node_prof, nstack, zero, &m_time);
	if (!rc)
		rc = samples_out(c, nstack, skip, sstack, zero, m_time);
	if (!rc)
		rc = markers_out(c, sstack, zero);
	if (!rc) {
		b->p->meta.product = builder_cstr(b, c->product ? c->product : "");
		report(c);
	}
	pv_free(node_prof);
	pv_free(nstack);
	pv_free(skip);
	pv_free(sstack);
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
	struct vec *vecs[] = {&c->threads, &c->procs,	&c->marks,    &c->profs,    &c->chunks,
			      &c->nodes,   &c->edges,	&c->sframes,  &c->gsamples, &c->s_ids,
			      &c->deltas,  &c->stamps,	&c->s_lines,  &c->s_cols,   &c->psamples,
			      &c->plines,  &c->strange, &c->hsamples, &c->ticks,    &c->dtimes,
			      &c->dnodes};
	for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
		vec_free(vecs[i]);
	ixmap_release(&c->thread_map);
	ixmap_release(&c->proc_map);
	ixmap_release(&c->node_map);
	ixmap_release(&c->sframe_map);
	ixmap_release(&c->prof_map);
	struct sbuf *bufs[] = {&c->pool, &c->name,  &c->cat,	 &c->id,  &c->sf,   &c->meta,
			       &c->cap,	 &c->argid, &c->payload, &c->tmp, &c->scope};
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
			rc = ch_read_events(c, &c->j);
		} else if (t.kind == JSON_OBJECT) {
			rc = ch_read_top_object(c, &c->j);
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

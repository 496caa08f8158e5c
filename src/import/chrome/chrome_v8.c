/*
 * chrome_v8.c - V8's profile node trees, for the Chrome importer (chrome.c tells what becomes
 * what): the nodes, samples, time deltas and lines of a .cpuprofile, of a sampling heap profile
 * (.heapprofile, a nested 'head' tree) and of a trace's Profile, ProfileChunk and CpuProfile
 * events; their profiles matched by id, and at the end their stacks, samples and times.
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

/* ---- cpu profile data (nodes, samples, time deltas) ---- */

struct vchunk *ch_chunk_at(struct ch *c, uint32_t ci)
{
	return &VEC(c->chunks, struct vchunk)[ci];
}

/* A new chunk record (its pid, key and profile are set when its event ends). */
uint32_t ch_new_chunk(struct ch *c)
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

/*
 * The elements of an array of numbers (t is its '[', or first its first element already read)
 * appended to v: int64 scaled by 10^pow10, or uint32 (0 for what does not fit) with u32.
 */
int ch_read_numbers(struct ch *c, struct json *j, const struct json_tok *first, int pow10,
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
					return ch_oom(c);
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
			rc = ch_read_fixed(c, j, &x, pow10, what, &val, &have);
		if (rc)
			return rc;
		if (u32) {
			uint32_t *s = vec_push(v, sizeof(uint32_t));
			if (!s)
				return ch_oom(c);
			*s = val > 0 && val < (int64_t)UINT32_MAX ? (uint32_t)val : 0;
		} else {
			int64_t *s = vec_push(v, sizeof(int64_t));
			if (!s)
				return ch_oom(c);
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
	int rc = ch_read_numbers(c, j, NULL, pow10, v, u32, what);
	*begin = b0;
	*len = v->len - b0;
	return rc;
}

/*
 * One field of a call frame (in callFrame, or on an old-layout node), k its key and v its
 * value's first token: 1 when k is not one (v not read).
 */
static int callframe_field(struct json *j, const struct json_tok *k, const struct json_tok *vp,
			   struct cframe *cf)
{
	struct json_tok v = *vp;
	bool fn = json_is(k, "functionName"), url = json_is(k, "url");
	bool line = json_is(k, "lineNumber"), col = json_is(k, "columnNumber");
	if (!fn && !url && !line && !col)
		return 1;
	int rc;
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

/* A callFrame value (t its first token) into cf. */
static int read_callframe(struct json *j, const struct json_tok *t, struct cframe *cf)
{
	struct json_tok k, v;
	int rc;
	if (t->kind == JSON_NULL)
		return 0;
	if (t->kind != JSON_OBJECT)
		return json_fail_at(j, t, "expected 'callFrame' to be an object, found %s",
				    json_kind_name(t->kind));
	for (;;) {
		if ((rc = ch_next_member(j, &k, &v)))
			return rc;
		if (k.kind != JSON_KEY)
			return 0;
		rc = callframe_field(j, &k, &v, cf);
		if (rc == 1)
			rc = json_skip(j, &v);
		if (rc)
			return rc;
	}
}

/* Bytes of a sampling heap profile (selfSize, a sample's size): at most 2^53, JavaScript's exact
 * range. */
#define HEAP_MAX_BYTES ((int64_t)1 << 53)

/* A byte count v of a sampling heap profile (what names it). */
int ch_heap_bytes(struct json *j, const struct json_tok *v, const char *what, int64_t *out)
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

/* An integer value v, or null (*have false); what names it. */
static int read_int_value(struct json *j, const struct json_tok *v, const char *what, int64_t *out,
			  bool *have)
{
	*have = false;
	if (v->kind == JSON_NULL)
		return 0;
	if (v->kind != JSON_NUMBER)
		return json_fail_at(j, v, "expected %s (a number), found %s", what,
				    json_kind_name(v->kind));
	int rc = json_i64(j, v, out);
	*have = !rc;
	return rc;
}

/*
 * A node's positionTicks, [{line, ticks}, ...] (1-based lines: the samples of the node per line
 * of its function), appended to c->ticks; *begin and *len get its range. Entries without a
 * positive line or count are skipped (counted).
 */
static int read_position_ticks(struct ch *c, struct json *j, const struct json_tok *t,
			       uint32_t *begin, uint32_t *len)
{
	if (t->kind == JSON_NULL)
		return 0;
	if (t->kind != JSON_ARRAY)
		return json_fail_at(j, t, "expected 'positionTicks' to be an array, found %s",
				    json_kind_name(t->kind));
	uint32_t b0 = c->ticks.len;
	for (;;) {
		struct json_tok x, k, v;
		int rc = json_next(j, &x);
		if (rc)
			return rc;
		if (x.kind == JSON_END)
			break;
		if (x.kind == JSON_EOF)
			return TRUNCATED;
		if (x.kind != JSON_OBJECT)
			return json_fail_at(
			    j, &x, "expected a positionTicks entry ({line, ticks}), found %s",
			    json_kind_name(x.kind));
		int64_t line = 0, ticks = 0;
		while (!(rc = json_next_member(j, &k, &v)) && k.kind == JSON_KEY) {
			bool is_line = json_is(&k, "line");
			if (!is_line && !json_is(&k, "ticks")) {
				rc = json_skip(j, &v);
			} else if (v.kind != JSON_NUMBER) {
				rc = json_fail_at(
				    j, &v, "expected a positionTicks '%s' (a number), found %s",
				    is_line ? "line" : "ticks", json_kind_name(v.kind));
			} else {
				rc = json_i64(j, &v, is_line ? &line : &ticks);
			}
			if (rc)
				return rc;
		}
		if (rc)
			return rc;
		if (k.kind == JSON_EOF)
			return TRUNCATED;
		if (line <= 0 || line > UINT32_MAX || ticks <= 0 || ticks > UINT32_MAX) {
			c->bad_ticks++;
			continue;
		}
		uint32_t *e = vec_push(&c->ticks, 2 * sizeof(uint32_t));
		if (!e)
			return ch_oom(c);
		e[0] = (uint32_t)line;
		e[1] = (uint32_t)ticks;
	}
	*begin = b0;
	*len = c->ticks.len - b0;
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
static int read_node(struct ch *c, struct json *j, uint32_t ci, uint32_t depth);

/* A node's "children": ids (edges, their parent set by add_node) or nested nodes. */
static int read_children(struct ch *c, struct json *j, const struct json_tok *v, uint32_t ci,
			 uint32_t depth)
{
	/* a value follows a key: never the end of the input (json_want's message as ours) */
	int rc =
	    v->kind == JSON_NULL ? 0 : json_want(j, v, JSON_ARRAY, "'children' to be an array");
	if (rc || v->kind == JSON_NULL)
		return rc;
	for (;;) {
		struct json_tok x;
		rc = json_next(j, &x);
		if (rc || x.kind == JSON_END)
			return rc;
		if (x.kind == JSON_EOF)
			return TRUNCATED;
		if (x.kind == JSON_OBJECT) {
			/* old layout: the child itself */
			if ((rc = read_node(c, j, ci, depth + 1)))
				return rc;
			continue;
		}
		if (x.kind != JSON_NUMBER)
			return json_fail_at(j, &x, "expected a child node id (a number), found %s",
					    json_kind_name(x.kind));
		int64_t child;
		if ((rc = json_i64(j, &x, &child)))
			return rc;
		struct vedge *e = vec_push(&c->edges, sizeof(*e));
		if (!e)
			return ch_oom(c);
		e->chunk = ci;
		e->resolved = false; /* the parent's id may come later */
		e->parent = 0;
		e->child = child;
	}
}

/* What a node said (read_node). */
struct node_read {
	struct cframe cf;
	int64_t id, parent, self;
	bool has_id, has_parent, has_self;
	uint32_t t_begin, t_len;
};

/* A node's "selfSize" (a sampling heap profile's), added to the nodes' sum. */
static int read_self(struct ch *c, struct json *j, const struct json_tok *v, struct node_read *r)
{
	if (v->kind == JSON_NULL)
		return 0;
	int rc = ch_heap_bytes(j, v, "selfSize", &r->self);
	if (!rc && __builtin_add_overflow(c->heap_self, r->self, &c->heap_self))
		rc = json_fail_at(j, v, "the nodes' selfSize sum out of range");
	r->has_self = !rc;
	return rc;
}

/*
 * The node read, its children read inside it (from node0 and edge0 on) given it as their
 * parent: nested nodes without a parent and id edges.
 */
static int add_node(struct ch *c, uint32_t ci, uint32_t node0, uint32_t edge0,
		    const struct node_read *r)
{
	struct vnode *nodes = VEC(c->nodes, struct vnode);
	for (uint32_t i = node0; i < c->nodes.len; i++)
		if (!nodes[i].has_parent) {
			nodes[i].parent = r->id;
			nodes[i].has_parent = true;
		}
	struct vedge *edges = VEC(c->edges, struct vedge);
	for (uint32_t e = edge0; e < c->edges.len; e++)
		if (!edges[e].resolved) {
			edges[e].parent = r->id;
			edges[e].resolved = true;
		}
	struct vnode *n = vec_push(&c->nodes, sizeof(*n));
	if (!n)
		return ch_oom(c);
	const struct cframe *cf = &r->cf;
	const char *fn = sbuf_str(&cf->fn);
	n->chunk = ci;
	n->id = r->id;
	n->parent = r->parent;
	n->has_parent = r->has_parent;
	n->root_name = cf->fn.len == 6 && memcmp(fn, "(root)", 6) == 0;
	n->has_self = r->has_self;
	n->self = r->self;
	n->t_begin = r->t_begin;
	n->t_len = r->t_len;
	c->heap_nodes += r->has_self;
	n->frame =
	    ch_v8_frame(c, fn, cf->fn.len, sbuf_str(&cf->url), cf->url.len, cf->line, cf->col);
	return 0;
}

/* One member of a node (key k, value v). */
static int node_member(struct ch *c, struct json *j, const struct json_tok *k,
		       const struct json_tok *v, uint32_t ci, uint32_t depth, struct node_read *r)
{
	if (json_is(k, "id"))
		return read_int_value(j, v, "a node 'id'", &r->id, &r->has_id);
	if (json_is(k, "callFrame"))
		return read_callframe(j, v, &r->cf);
	if (json_is(k, "parent"))
		return read_int_value(j, v, "a node 'parent'", &r->parent, &r->has_parent);
	if (json_is(k, "selfSize"))
		return read_self(c, j, v, r);
	if (json_is(k, "children"))
		return read_children(c, j, v, ci, depth);
	if (json_is(k, "positionTicks"))
		return read_position_ticks(c, j, v, &r->t_begin, &r->t_len);
	int rc = callframe_field(j, k, v, &r->cf);
	return rc == 1 ? json_skip(j, v) : rc;
}

static int read_node(struct ch *c, struct json *j, uint32_t ci, uint32_t depth)
{
	struct node_read r = {.cf = {.line = -1, .col = -1}};
	uint32_t node0 = c->nodes.len, edge0 = c->edges.len;
	int rc = 0;
	for (;;) {
		struct json_tok k, v;
		if ((rc = ch_next_member(j, &k, &v)) || k.kind != JSON_KEY)
			break;
		if ((rc = node_member(c, j, &k, &v, ci, depth, &r)))
			break;
	}
	if (!rc && !r.has_id && r.has_self) {
		r.id = INT64_MIN + 1 + (int64_t)c->nodes.len; /* an old heap profile's node */
		r.has_id = true;
	}
	if (!rc && !r.has_id)
		rc = json_fail(j, NULL, "a node without an 'id'");
	if (!rc)
		rc = add_node(c, ci, node0, edge0, &r);
	sbuf_release(&r.cf.fn);
	sbuf_release(&r.cf.url);
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

/*
 * The number arrays of cpu profile data: each read into its column of struct ch, the chunk's
 * range of it and its flag set in struct vchunk (offsets, as firefox_processed.c's colspec).
 */
struct chunk_array {
	const char *key;
	int pow10;		/* to ns: µs times 10^3; 0 for counts and positions */
	bool u32;		/* ch_read_numbers' u32 (lines, columns) */
	size_t col;		/* the struct vec in struct ch */
	size_t begin, len, has; /* in struct vchunk */
};

#define CHUNK_ARRAY(key, pow10, u32, col, pre, has)                                              \
	{                                                                                        \
		key, pow10, u32, offsetof(struct ch, col), offsetof(struct vchunk, pre##_begin), \
		    offsetof(struct vchunk, pre##_len), offsetof(struct vchunk, has)             \
	}

static const struct chunk_array chunk_arrays[] = {
    CHUNK_ARRAY("samples", 0, false, s_ids, s, has_samples),
    CHUNK_ARRAY("timeDeltas", 3, false, deltas, d, has_deltas),
    CHUNK_ARRAY("timestamps", 3, false, stamps, t, has_stamps),
    CHUNK_ARRAY("lines", 0, true, s_lines, l, has_lines),
    CHUNK_ARRAY("columns", 0, true, s_cols, c, has_cols),
};

/*
 * One member of cpu profile data (k is its key, vp its value's first token): nodes, samples,
 * timeDeltas, lines, columns, startTime, endTime, the old layout's head and timestamps, and the
 * wrappers data/cpuProfile. Returns 1 when k is none of them (the value is not read).
 */
int ch_cpu_member(struct ch *c, struct json *j, const struct json_tok *k, const struct json_tok *vp,
		  uint32_t ci, uint32_t depth)
{
	struct json_tok v = *vp;
	int rc;
	struct vchunk *ck;
	if (json_is(k, "nodes")) {
		return read_nodes(c, j, &v, ci);
	}
	if (json_is(k, "head")) {
		ch_chunk_at(c, ci)->has_stamps = true; /* the old layout */
		if (v.kind == JSON_NULL)
			return 0;
		if (v.kind != JSON_OBJECT)
			return json_fail_at(j, &v,
					    "expected 'head' to be a node (an object), found %s",
					    json_kind_name(v.kind));
		return read_node(c, j, ci, 0);
	}
	for (size_t a = 0; a < sizeof(chunk_arrays) / sizeof(chunk_arrays[0]); a++) {
		const struct chunk_array *ca = &chunk_arrays[a];
		if (!json_is(k, ca->key))
			continue;
		uint32_t b0 = 0, n = 0;
		rc = read_number_array(c, j, &v, ca->pow10, (struct vec *)((char *)c + ca->col),
				       ca->u32, ca->key, &b0, &n);
		char *at = (char *)ch_chunk_at(c, ci);
		*(uint32_t *)(at + ca->begin) = b0;
		*(uint32_t *)(at + ca->len) = n;
		*(bool *)(at + ca->has) = true;
		return rc;
	}
	if (json_is(k, "startTime") || json_is(k, "endTime")) {
		bool start = k->s[0] == 's';
		if (v.kind == JSON_OBJECT || v.kind == JSON_ARRAY)
			return json_fail_at(j, &v, "expected '%s' to be a number, found %s",
					    start ? "startTime" : "endTime",
					    json_kind_name(v.kind));
		if (v.kind == JSON_NULL)
			return 0;
		ck = ch_chunk_at(c, ci);
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
		if (v.kind == JSON_NULL)
			return 0;
		if (v.kind != JSON_OBJECT)
			return json_skip(j, &v);
		return ch_read_cpu_object(c, j, &v, ci, depth + 1);
	}
	return 1;
}

int ch_read_cpu_object(struct ch *c, struct json *j, const struct json_tok *t, uint32_t ci,
		       uint32_t depth)
{
	if (t->kind != JSON_OBJECT)
		return json_skip(j, t);
	(void)depth;
	for (;;) {
		struct json_tok k, v;
		int rc = ch_next_member(j, &k, &v);
		if (rc)
			return rc;
		if (k.kind != JSON_KEY)
			return 0;
		rc = ch_cpu_member(c, j, &k, &v, ci, depth);
		if (rc == 1)
			rc = json_skip(j, &v);
		if (rc)
			return rc;
	}
}

/* A time token saved in a chunk (µs, or seconds in the old layout) as ns. */
int ch_chunk_time(struct ch *c, const struct json_tok *t, bool seconds, const char *what,
		  int64_t *out)
{
	bool have;
	int rc = ch_read_fixed(c, &c->j, t, seconds ? 9 : 3, what, out, &have);
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
	return p->pid == k->pid && strcmp(ch_pool_s(k->c, p->key), k->s) == 0;
}

static uint64_t prof_hash(int64_t pid, const char *s)
{
	return hash_bytes(s, strlen(s)) ^ hash_u64((uint64_t)pid);
}

/* The profile of (pid, key text), NO_IX when there is none (and create is false). */
uint32_t ch_find_prof(struct ch *c, int64_t pid, const char *key, bool create)
{
	struct prof_key k = {c, pid, key};
	uint64_t h = prof_hash(pid, key);
	uint32_t slot;
	uint32_t r = ixmap_find(&c->prof_map, h, prof_eq, &k, &slot);
	if (r != UINT32_MAX || !create)
		return r == UINT32_MAX ? NO_IX : r;
	uint32_t off = ch_pool_add(c, key, strlen(key));
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
const char *ch_prof_key_text(struct ch *c)
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
int ch_whole_profile(struct ch *c, uint32_t ci, uint32_t th, int64_t ts)
{
	char key[32];
	snprintf(key, sizeof(key), "#cpuprofile %u", c->nr_cpuprofiles++);
	uint32_t pi = ch_find_prof(c, ID_MISSING, key, true);
	if (pi == NO_IX)
		return ch_oom(c);
	struct vchunk *ck = ch_chunk_at(c, ci);
	bool old = ck->has_stamps;
	int64_t start = PV_TIME_NONE, end = PV_TIME_NONE;
	int rc = 0;
	struct json_tok st = ck->start_tok, et = ck->end_tok;
	bool hs = ck->has_start, he = ck->has_end;
	if (hs && (rc = ch_chunk_time(c, &st, old, "startTime", &start)))
		return rc;
	if (he && (rc = ch_chunk_time(c, &et, old, "endTime", &end)))
		return rc;
	if (start == PV_TIME_NONE)
		start = ts;
	ck = ch_chunk_at(c, ci);
	if (old && !ck->has_deltas) {
		/* absolute sample times: deltas from the start (or the first sample) */
		uint32_t n = ck->t_len, b0 = ck->t_begin;
		uint32_t d0 = c->deltas.len;
		if ((uint64_t)d0 + n > PV_MAX_ROWS ||
		    vec_resize(&c->deltas, sizeof(int64_t), d0 + n))
			return ch_oom(c);
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

/*
 * The stack of every row of a forest given by parent rows (NO_IX: a root). A row whose parent
 * chain comes back to itself is cut there (counted). skip rows add no frame.
 */
int ch_forest_stacks(struct ch *c, uint32_t n, const uint32_t *parent, const pv_frame_ix *frame,
		     const bool *skip, pv_stack_ix *stack)
{
	uint8_t *state = pv_calloc(n ? n : 1, 1);
	struct vec path = {0};
	if (!state)
		return ch_oom(c);
	int rc = 0;
	for (uint32_t r = 0; r < n && !rc; r++) {
		if (state[r] == 2)
			continue;
		path.len = 0;
		uint32_t x = r;
		while (x != NO_IX && state[x] == 0) {
			uint32_t *s = vec_push(&path, sizeof(uint32_t));
			if (!s) {
				rc = ch_oom(c);
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

/* Node stacks: maps nodes to their profile, finds parents, builds the stacks. */
int ch_build_nodes(struct ch *c, uint32_t *node_prof, pv_stack_ix *nstack, bool *skip)
{
	uint32_t n = c->nodes.len;
	struct vnode *nodes = VEC(c->nodes, struct vnode);
	const struct vchunk *chunks = VEC(c->chunks, struct vchunk);
	uint32_t *parent = pv_malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
	pv_frame_ix *frame = pv_malloc((size_t)(n ? n : 1) * sizeof(pv_frame_ix));
	if (!parent || !frame) {
		pv_free(parent);
		pv_free(frame);
		return ch_oom(c);
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
			rc = ch_oom(c);
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
		rc = ch_forest_stacks(c, n, parent, frame, skip, nstack);
	pv_free(parent);
	pv_free(frame);
	return rc;
}

/*
 * The line of a node's next sample from its positionTicks (cur: per node, the entry and the
 * samples given its line so far), 0 when they are used up. The file gives each line's count of
 * the node's samples, not which sample: the samples take the lines in the order of the list, so
 * each line's count is exact and the times of the lines within the node are not known.
 */
uint32_t ch_tick_line(struct ch *c, uint32_t node, uint32_t *cur)
{
	const struct vnode *n = &VEC(c->nodes, struct vnode)[node];
	const uint32_t *t = VEC(c->ticks, uint32_t) + 2 * (size_t)n->t_begin;
	uint32_t *e = cur + 2 * (size_t)node;
	while (e[0] < n->t_len && e[1] == t[2 * e[0] + 1]) {
		e[0]++;
		e[1] = 0;
	}
	if (e[0] == n->t_len) {
		if (n->t_len)
			e[1]++; /* a sample past the ticks: counted by ch_ticks_check */
		return 0;
	}
	e[1]++;
	return t[2 * e[0]];
}

/* Counts the nodes whose positionTicks were not used up exactly by their samples. */
void ch_ticks_check(struct ch *c, const uint32_t *cur)
{
	const struct vnode *nodes = VEC(c->nodes, struct vnode);
	const uint32_t *t = VEC(c->ticks, uint32_t);
	for (uint32_t i = 0; i < c->nodes.len; i++) {
		const struct vnode *n = &nodes[i];
		if (!n->t_len)
			continue;
		const uint32_t *e = cur + 2 * (size_t)i;
		uint32_t last = n->t_begin + n->t_len - 1;
		bool exact = e[0] + 1 == n->t_len && e[1] == t[2 * last + 1];
		c->ticks_mismatch += !exact;
	}
}

/*
 * Whether the only samples of the input are the one array pair of chunk k, without per-sample
 * lines, already in time order (no negative delta): then they need no copy (ch_direct).
 */
static bool direct_ok(const struct ch *c, const struct vchunk *k)
{
	if (c->heap || c->gsamples.len || k->has_lines || k->has_cols || k->s_begin || k->d_begin ||
	    k->s_len != c->s_ids.len || k->d_len != c->deltas.len)
		return false;
	uint32_t n = k->s_len < k->d_len ? k->s_len : k->d_len;
	const int64_t *d = VEC(c->deltas, int64_t);
	for (uint32_t s = 1; s < n; s++)
		if (d[s] < 0)
			return false;
	return n > 0;
}

/*
 * The samples of chunk k (direct_ok) in place: deltas to absolute times from start, node ids to
 * node indices (4 bytes each, written over the 8-byte ids already read), both arrays then moved
 * to dtimes and dnodes; n samples.
 */
static int ch_direct(struct ch *c, const uint32_t *node_prof, uint32_t pi, int64_t start,
		     uint32_t n)
{
	int64_t *d = VEC(c->deltas, int64_t);
	char *ids = c->s_ids.p;
	int64_t t = start;
	for (uint32_t s = 0; s < n; s++) {
		if (__builtin_add_overflow(t, d[s], &t))
			return pv_error_set(c->err, PV_ELIMIT, "%s: sample times out of range",
					    c->in->name);
		d[s] = t;
		int64_t id;
		memcpy(&id, ids + (size_t)s * sizeof(int64_t), sizeof(id));
		uint32_t node = node_find(c, node_prof, pi, id);
		c->unknown_node += node == NO_IX;
		memcpy(ids + (size_t)s * sizeof(uint32_t), &node, sizeof(node));
	}
	c->dtimes = c->deltas;
	c->dtimes.len = n;
	c->dnodes = c->s_ids;
	c->dnodes.len = n;
	memset(&c->deltas, 0, sizeof(c->deltas));
	memset(&c->s_ids, 0, sizeof(c->s_ids));
	/* the upper half of the id array is free now */
	if (!col_realloc(&c->dnodes.p, sizeof(uint32_t), n))
		c->dnodes.cap = n;
	c->dprof = pi;
	return 0;
}

/*
 * Samples of every profile, in time order, into psamples (their lines into plines), or when
 * the input holds one array pair in order, in place into dtimes and dnodes (ch_direct).
 */
/* The chunks of one profile: order[a..z) (cmp_chunk), the profile pi. */
struct prof_chunks {
	const uint32_t *order;
	uint32_t a, z, pi;
	bool any_lines; /* some chunk of the file has per-sample lines or columns */
	bool one;	/* the file has one chunk of a profile: maybe read in place (ch_direct) */
};

/*
 * A profile's start (its own, else its first chunk's ts, else 0: reported) and end (its own,
 * or the latest a chunk says).
 */
static void prof_span(struct ch *c, const struct prof_chunks *pc, int64_t *start, int64_t *end)
{
	const struct vchunk *chunks = VEC(c->chunks, struct vchunk);
	const struct vprof *p = &VEC(c->profs, struct vprof)[pc->pi];
	*start = p->start;
	*end = p->end;
	for (uint32_t i = pc->a; i < pc->z; i++)
		if (*start == PV_TIME_NONE)
			*start = chunks[pc->order[i]].ts;
	if (*start == PV_TIME_NONE) {
		*start = 0;
		c->no_start += !c->heap; /* a heap profile has no times at all */
	}
	for (uint32_t i = pc->a; i < pc->z; i++) {
		const struct vchunk *k = &chunks[pc->order[i]];
		int64_t e = k->end;
		if (k->span != PV_TIME_NONE && __builtin_add_overflow(*start, k->span, &e))
			e = PV_TIME_NONE;
		if (e != PV_TIME_NONE && (*end == PV_TIME_NONE || e > *end))
			*end = e;
	}
}

/* The samples of a chunk: min(samples, timeDeltas), the rest reported. */
static uint32_t chunk_n(struct ch *c, const struct vchunk *k)
{
	uint32_t n = k->s_len < k->d_len ? k->s_len : k->d_len;
	c->deltas_mismatch += (k->s_len > n ? k->s_len - n : 0) + (k->d_len > n ? k->d_len - n : 0);
	return n;
}

/*
 * The samples of chunk k of profile pi appended to psamples (and their lines to plines when
 * any_lines), times from *t on; *sorted cleared when one goes back in time. Room is made.
 */
static int chunk_samples(struct ch *c, const struct vchunk *k, const uint32_t *node_prof,
			 const struct prof_chunks *pc, uint32_t s0, int64_t *t, bool *sorted)
{
	uint32_t n = chunk_n(c, k);
	bool lines = k->has_lines && k->l_len == k->s_len;
	bool cols = k->has_cols && k->c_len == k->s_len;
	if ((k->has_lines && !lines) || (k->has_cols && !cols))
		c->lines_mismatch++;
	if (!n) /* the columns may be empty (NULL): no pointer into them */
		return 0;
	const int64_t *ids = VEC(c->s_ids, int64_t) + k->s_begin;
	const int64_t *d = VEC(c->deltas, int64_t) + k->d_begin;
	uint32_t base = c->psamples.len;
	if (vec_resize(&c->psamples, sizeof(struct psample), base + n) ||
	    (pc->any_lines && vec_resize(&c->plines, 2 * sizeof(uint32_t), base + n)))
		return ch_oom(c);
	struct psample *ps = VEC(c->psamples, struct psample) + base;
	uint32_t *pl = pc->any_lines ? VEC(c->plines, uint32_t) + 2 * (size_t)base : NULL;
	/* the node of the ids seen last (a profile samples few nodes over and over): one lookup
	 * in node_map per id, not per sample */
	struct {
		int64_t id;
		uint32_t node;
		bool set;
	} memo[64] = {{0}};
	for (uint32_t s = 0; s < n; s++) {
		if (__builtin_add_overflow(*t, d[s], t))
			return pv_error_set(c->err, PV_ELIMIT, "%s: sample times out of range",
					    c->in->name);
		ps[s].time = *t;
		size_t mi = (uint64_t)ids[s] % 64;
		if (!memo[mi].set || memo[mi].id != ids[s]) {
			memo[mi].id = ids[s];
			memo[mi].node = node_find(c, node_prof, pc->pi, ids[s]);
			memo[mi].set = true;
		}
		ps[s].node = memo[mi].node;
		ps[s].seq = base + s - s0;
		if (pl) {
			pl[2 * s] = lines ? VEC(c->s_lines, uint32_t)[k->l_begin + s] : 0;
			pl[2 * s + 1] = cols ? VEC(c->s_cols, uint32_t)[k->c_begin + s] : 0;
		}
		if (ps[s].node == NO_IX)
			c->unknown_node++;
		if (base + s > s0 && (ps + s)[-1].time > *t)
			*sorted = false;
	}
	return 0;
}

/* The profile's samples made (psamples, in time order) and its span set. */
static int profile_chunks(struct ch *c, const uint32_t *node_prof, const struct prof_chunks *pc)
{
	const struct vchunk *chunks = VEC(c->chunks, struct vchunk);
	int64_t start, end;
	prof_span(c, pc, &start, &end);
	const struct vchunk *k0 = &chunks[pc->order[pc->a]];
	struct vprof *p;
	if (pc->one && direct_ok(c, k0)) {
		uint32_t n = chunk_n(c, k0);
		int rc = ch_direct(c, node_prof, pc->pi, start, n);
		if (rc)
			return rc;
		p = &VEC(c->profs, struct vprof)[pc->pi];
		p->start = start;
		p->end = end;
		p->s_begin = 0;
		p->s_len = n;
		VEC(c->threads, struct cthread)[p->thread].used = true;
		return 0;
	}
	int64_t t = start;
	uint32_t s0 = c->psamples.len;
	bool sorted = true;
	for (uint32_t i = pc->a; i < pc->z; i++) {
		int rc = chunk_samples(c, &chunks[pc->order[i]], node_prof, pc, s0, &t, &sorted);
		if (rc)
			return rc;
	}
	uint32_t len = c->psamples.len - s0;
	struct psample *ps = len ? VEC(c->psamples, struct psample) + s0 : NULL;
	if (!sorted)
		pv_sort(ps, len, sizeof(*ps), cmp_psample);
	p = &VEC(c->profs, struct vprof)[pc->pi];
	p->start = start;
	p->end = end;
	p->s_begin = s0;
	p->s_len = len;
	if (len)
		VEC(c->threads, struct cthread)[p->thread].used = true;
	return 0;
}

int ch_build_profiles(struct ch *c, const uint32_t *node_prof)
{
	uint32_t nc = c->chunks.len;
	uint32_t *order = pv_malloc((size_t)(nc ? nc : 1) * sizeof(uint32_t));
	if (!order)
		return ch_oom(c);
	uint32_t m = 0;
	const struct vchunk *chunks = VEC(c->chunks, struct vchunk);
	for (uint32_t i = 0; i < nc; i++)
		if (chunks[i].done && chunks[i].prof != NO_IX)
			order[m++] = i;
	pv_sort_r(order, m, sizeof(uint32_t), cmp_chunk, c);
	struct prof_chunks pc = {.order = order};
	for (uint32_t i = 0; i < m; i++)
		pc.any_lines |= chunks[order[i]].has_lines || chunks[order[i]].has_cols;
	pc.one = m == 1;
	/* the samples of every chunk: room once, so psamples never moves */
	uint64_t total = 0;
	for (uint32_t i = 0; i < m && !pc.one; i++) {
		const struct vchunk *k = &chunks[order[i]];
		total += k->s_len < k->d_len ? k->s_len : k->d_len;
	}
	if (total && total <= PV_MAX_ROWS && !c->psamples.cap &&
	    !col_realloc(&c->psamples.p, sizeof(struct psample), (uint32_t)total)) {
		c->psamples.cap = (uint32_t)total;
		/* filled chunk by chunk (2 M samples: 32 MB): in 2 MiB pages, mapped at once */
		pv_huge_hint(c->psamples.p, (size_t)total * sizeof(struct psample));
		pv_populate(c->psamples.p, (size_t)total * sizeof(struct psample));
	}
	int rc = 0;
	for (pc.a = 0; pc.a < m && !rc; pc.a = pc.z) {
		pc.pi = chunks[order[pc.a]].prof;
		for (pc.z = pc.a; pc.z < m && chunks[order[pc.z]].prof == pc.pi;)
			pc.z++;
		rc = profile_chunks(c, node_prof, &pc);
	}
	pv_free(order);
	return rc;
}

/*
 * A sampling heap profile's samples, all on one thread, times unknown. With 'samples': one per
 * allocation sample in 'ordinal' order, on its node's stack, weighing its size (metric "bytes",
 * the default) and 1 ("allocations"); each node's selfSize is checked against the sizes of its
 * samples (a mismatch is counted in the report). Without: one per node with a selfSize, weighing
 * it ("bytes" only).
 */
int ch_heap_samples(struct ch *c, const uint32_t *node_prof, const pv_stack_ix *nstack,
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
		return ch_oom(c);
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

/*
 * chrome_trace.c - Chrome trace events, for the Chrome importer (chrome.c tells what becomes
 * what): one event at a time (phases, args, metadata, profile events handed to chrome_v8.c),
 * the array and object forms' top level, the object form's stackFrames and samples, and the
 * call tree of the duration events of a trace without CPU samples.
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

/* ---- events ---- */

static enum ev_kind ev_kind(const struct ch *c)
{
	size_t len = c->name.len;
	if (!c->ev.has_name || (len != 7 && len != 10 && len != 12))
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
		if (sbuf_puts(&c->cap, "\"args\":") || json_capture(j, v, &c->cap))
			return j->failed ? j->failed : ch_oom(c);
		c->ev.has_payload = true;
		return 0;
	}
	for (;;) {
		struct json_tok k, x;
		int rc = ch_next_member(j, &k, &x);
		if (rc)
			return rc;
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
			return ch_oom(c);
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
		int rc = ch_next_member(j, &k, &x);
		if (rc)
			return rc;
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
		if (e->chunk == NO_IX && (e->chunk = ch_new_chunk(c)) == NO_IX)
			return ch_oom(c);
		return ch_read_cpu_object(c, j, v, e->chunk, 0);
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
		return ch_oom(c);
	if (async) {
		if (e->has_scope && (sbuf_put(&c->scope, ":", 1) ||
				     sbuf_put(&c->scope, sbuf_str(&c->id), c->id.len)))
			return ch_oom(c);
		const struct sbuf *id = e->has_scope ? &c->scope : &c->id;
		if (sbuf_put(p, "\"id\":", 5) || sbuf_json_string(p, sbuf_str(id), id->len))
			return ch_oom(c);
		if (e->args_had_id)
			c->args_id++;
		if (c->cap.len && (sbuf_put(p, ",", 1) || sbuf_put(p, c->cap.buf, c->cap.len)))
			return ch_oom(c);
	} else {
		if (c->cap.len && sbuf_put(p, c->cap.buf, c->cap.len))
			return ch_oom(c);
		if (e->args_had_id &&
		    ((c->cap.len && sbuf_put(p, ",", 1)) || sbuf_put(p, "\"id\":", 5) ||
		     sbuf_put(p, c->argid.buf, c->argid.len)))
			return ch_oom(c);
	}
	if (sbuf_put(p, "}", 1))
		return ch_oom(c);
	*out = builder_str(c->b, p->buf, p->len);
	return 0;
}

/*
 * A new mark's row. Past 65,536 marks the table grows once to what the rest of the input holds
 * at the bytes per mark read so far, and an eighth more, instead of doubling: each doubling
 * copied it into fresh pages (a third of the time of a trace of 600,000 events).
 */
static struct cmark *mark_slot(struct ch *c)
{
	struct vec *v = &c->marks;
	if (v->len == v->cap && v->len >= 65536 && c->j.p > c->marks_from) {
		uint64_t per = (uint64_t)(c->j.p - c->marks_from) / v->len + 1;
		uint64_t rest = (uint64_t)(c->j.end - c->j.p) / per;
		uint64_t rows = v->len + rest + rest / 8 + 16;
		if (rows <= PV_MAX_ROWS &&
		    !col_realloc(&v->p, sizeof(struct cmark), (uint32_t)rows)) {
			v->cap = (uint32_t)rows;
			/* filled row by row: in 2 MiB pages */
			pv_huge_hint(v->p, (size_t)v->cap * sizeof(struct cmark));
		}
	}
	return vec_push(v, sizeof(struct cmark));
}

static int add_marker(struct ch *c, enum pv_marker_phase phase)
{
	struct ev *e = &c->ev;
	if (!e->has_ts) {
		c->no_ts++;
		return 0;
	}
	uint32_t th = ch_get_thread(c, e->pid, e->tid);
	if (th == NO_IX)
		return ch_oom(c);
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
	    .ph = e->ph,
	};
	int rc = compose_payload(c, &m.payload);
	if (rc)
		return rc;
	if (e->has_sf && !(m.sf = ch_pool_add(c, c->sf.buf, c->sf.len)))
		return ch_oom(c);
	switch (phase) {
	case PV_PHASE_END: m.end = e->ts; break;
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
	default: m.start = e->ts;
	}
	struct cmark *slot = mark_slot(c);
	if (!slot)
		return ch_oom(c);
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
		uint32_t t = ch_get_thread(c, e->pid, e->tid);
		if (t == NO_IX)
			return ch_oom(c);
		struct cthread *ct = &VEC(c->threads, struct cthread)[t];
		if (n[7] == 'n' && e->meta_name)
			ct->name = builder_str(c->b, c->meta.buf, c->meta.len);
		else if (n[7] == 's' && e->meta_sort)
			ct->sort_index = e->sort_index;
		return 0;
	}
	uint32_t p = ch_get_proc(c, e->pid);
	if (p == NO_IX)
		return ch_oom(c);
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
	if (e->chunk == NO_IX && (e->chunk = ch_new_chunk(c)) == NO_IX)
		return ch_oom(c);
	uint32_t ci = e->chunk;
	uint32_t th = ch_get_thread(c, e->pid, e->tid);
	if (th == NO_IX)
		return ch_oom(c);
	int64_t ts = e->has_ts ? e->ts : PV_TIME_NONE;
	if (kind == EV_CPUPROFILE)
		return ch_whole_profile(c, ci, th, ts);
	const char *key = ch_prof_key_text(c);
	uint32_t off = ch_pool_add(c, key, strlen(key));
	if (!off)
		return ch_oom(c);
	struct vchunk *ck = ch_chunk_at(c, ci);
	ck->pid = e->pid;
	ck->key = off;
	ck->ts = ts;
	if (ck->has_end) {
		/*
		 * V8 writes endTime alone in the last chunk, on another clock than ts: the ts of
		 * that chunk is the end. A chunk holding a whole profile (startTime and endTime, as
		 * rspack writes) ends endTime - startTime after the profile's start.
		 */
		struct json_tok et = ck->end_tok, st = ck->start_tok;
		bool whole = ck->has_start;
		int64_t end = ts, start = 0;
		int rc = 0;
		if (whole || end == PV_TIME_NONE)
			rc = ch_chunk_time(c, &et, false, "endTime", &end);
		if (!rc && whole)
			rc = ch_chunk_time(c, &st, false, "startTime", &start);
		if (rc)
			return rc;
		ck = ch_chunk_at(c, ci);
		if (!whole)
			ck->end = end;
		else if (end != PV_TIME_NONE && start != PV_TIME_NONE && end >= start)
			ck->span = end - start;
	}
	if (kind != EV_PROFILE)
		return 0;
	uint32_t pi = ch_find_prof(c, e->pid, sbuf_str(&c->pool) + off, true);
	if (pi == NO_IX)
		return ch_oom(c);
	ck = ch_chunk_at(c, ci);
	int64_t start = PV_TIME_NONE;
	if (ck->has_start) {
		struct json_tok st = ck->start_tok;
		int rc = ch_chunk_time(c, &st, false, "startTime", &start);
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
	case 'M': return meta_event(c);
	case 'B':
	case 'b':
	case 'S': return add_marker(c, PV_PHASE_START);
	case 'E':
	case 'e':
	case 'F': return add_marker(c, PV_PHASE_END);
	case 'X': return add_marker(c, PV_PHASE_INTERVAL);
	case 'i':
	case 'I':
	case 'R':
	case 'n':
	case 'T':
	case 'p': return add_marker(c, PV_PHASE_INSTANT);
	default: c->ph_count[(unsigned char)e->ph & 127]++; return 0;
	}
}

/* An event's "id2": {"local": ID} or {"global": ID}, kept as "local:ID" / "global:ID". */
static int read_id2(struct ch *c, struct json *j, const struct json_tok *v)
{
	if (v->kind != JSON_OBJECT)
		return json_skip(j, v);
	for (;;) {
		struct json_tok k2, v2;
		int rc = ch_next_member(j, &k2, &v2);
		if (rc || k2.kind != JSON_KEY)
			return rc;
		if (json_text(j, &v2, &c->tmp) == 0) {
			sbuf_reset(&c->id);
			if (sbuf_put(&c->id, k2.s, k2.len) || sbuf_put(&c->id, ":", 1) ||
			    sbuf_put(&c->id, c->tmp.buf, c->tmp.len))
				return ch_oom(c);
			c->ev.has_id = true;
		} else if ((rc = json_skip(j, &v2))) {
			return rc;
		}
	}
}

/* What an event has that is counted, not kept. */
struct ev_extra {
	bool tts, stack, flow;
};

/* A time member of an event ('ts', 'dur', 'tdur'): µs as ns, *has set when a number. */
static int ev_time(struct ch *c, struct json *j, const struct json_tok *v, const char *what,
		   int64_t *out, bool *has)
{
	bool have = false;
	int rc = ch_read_fixed(c, j, v, 3, what, out, &have);
	*has = have;
	return rc;
}

/* The phase letter: a string of one letter, kept as long when longer or escaped. */
static int ev_phase(struct json *j, struct ev *e, const struct json_tok *v)
{
	if (v->kind != JSON_STRING)
		return json_fail_at(j, v, "expected 'ph' (a phase letter), found %s",
				    json_kind_name(v->kind));
	e->has_ph = true;
	e->ph = v->len ? v->s[0] : 0;
	e->ph_long = v->len != 1 || v->escaped;
	return 0;
}

/* One member of an event (key k, value v); the keys by length first (5 or so a trace event). */
static int event_member(struct ch *c, struct json *j, const struct json_tok *k,
			const struct json_tok *v, struct ev_extra *x)
{
	struct ev *e = &c->ev;
	switch (k->len) {
	case 2:
		if (json_is(k, "ph"))
			return ev_phase(j, e, v);
		if (json_is(k, "ts"))
			return ev_time(c, j, v, "'ts'", &e->ts, &e->has_ts);
		if (json_is(k, "id"))
			return ch_text_member(j, v, &c->id, &e->has_id);
		if (json_is(k, "sf"))
			return ch_text_member(j, v, &c->sf, &e->has_sf);
		break;
	case 3:
		if (json_is(k, "pid"))
			return ch_read_id(c, j, v, "'pid'", &e->pid);
		if (json_is(k, "tid"))
			return ch_read_id(c, j, v, "'tid'", &e->tid);
		if (json_is(k, "cat"))
			return ch_text_member(j, v, &c->cat, &e->has_cat);
		if (json_is(k, "dur"))
			return ev_time(c, j, v, "'dur'", &e->dur, &e->has_dur);
		if (json_is(k, "id2"))
			return read_id2(c, j, v);
		x->tts |= json_is(k, "tts");
		x->stack |= json_is(k, "esf");
		break;
	case 4:
		if (json_is(k, "name"))
			return ch_text_member(j, v, &c->name, &e->has_name);
		if (json_is(k, "tdur")) {
			x->tts = true;
			return ev_time(c, j, v, "'tdur'", &e->tdur, &e->has_tdur);
		}
		if (json_is(k, "args")) {
			if (e->has_ph && e->has_name)
				return handle_args(c, j, v);
			e->args_p = v->kind == JSON_STRING ? v->s - 1 : v->s;
			return json_skip(j, v);
		}
		break;
	case 5:
		if (json_is(k, "scope"))
			return ch_text_member(j, v, &c->scope, &e->has_scope);
		x->stack |= json_is(k, "stack");
		break;
	default:
		x->stack |= json_is(k, "estack");
		x->flow |= json_is(k, "bind_id") || json_is(k, "flow_in") || json_is(k, "flow_out");
	}
	return json_skip(j, v);
}

/* One event object, its '{' read. Returns TRUNCATED when the input ends inside it. */
static int read_event(struct ch *c, struct json *j)
{
	struct ev *e = &c->ev;
	memset(e, 0, sizeof(*e));
	e->pid = e->tid = ID_MISSING;
	e->chunk = NO_IX;
	struct sbuf *texts[] = {&c->name, &c->cat, &c->id, &c->scope, &c->sf, &c->cap, &c->argid};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		sbuf_reset(texts[i]);
	struct ev_extra x = {false, false, false};
	for (;;) {
		struct json_tok k, v;
		int rc = ch_next_member(j, &k, &v);
		if (!rc && k.kind != JSON_KEY)
			break;
		if (rc || (rc = event_member(c, j, &k, &v, &x)))
			return rc;
	}
	c->tts += x.tts;
	c->stack_fields += x.stack;
	c->flow_fields += x.flow;
	return 0;
}

/* ---- the top level ---- */

int ch_read_events(struct ch *c, struct json *j)
{
	if (!c->marks_from)
		c->marks_from = j->p;
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
			ch_chunk_at(c, c->ev.chunk)->done = true;
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
		uint32_t id = ch_pool_add(c, ks, kn);
		if (!id)
			return ch_oom(c);
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
				if (!rc && !(parent = ch_pool_add(c, c->tmp.buf, c->tmp.len)))
					return ch_oom(c);
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
			return ch_oom(c);
		f->id = id;
		f->parent = parent;
		f->frame = ch_sf_frame(c, has_name ? sbuf_str(&c->name) : "",
				       has_name ? c->name.len : 0, sbuf_str(&c->cat), c->cat.len);
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
		    .pid = ID_MISSING,
		    .tid = ID_MISSING,
		    .ts = PV_TIME_NONE,
		    .weight = 1,
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
				rc = ch_read_id(c, j, &v, "'pid'", &g.pid);
			} else if (json_is(&k, "tid")) {
				rc = ch_read_id(c, j, &v, "'tid'", &g.tid);
			} else if (json_is(&k, "ts")) {
				rc = ch_read_fixed(c, j, &v, 3, "'ts'", &g.ts, &have);
				if (!rc && !have)
					g.ts = PV_TIME_NONE;
			} else if (json_is(&k, "weight")) {
				int64_t w;
				rc = ch_read_fixed(c, j, &v, 0, "'weight'", &w, &have);
				if (!rc && have)
					g.weight = w;
			} else if (json_is(&k, "nodeId")) {
				heap = true;
				rc = json_i64(j, &v, &hs.node);
			} else if (json_is(&k, "size")) {
				rc = ch_heap_bytes(j, &v, "size", &hs.size);
				if (!rc &&
				    __builtin_add_overflow(c->heap_size, hs.size, &c->heap_size))
					rc = json_fail_at(j, &v,
							  "the samples' size sum out of range");
			} else if (json_is(&k, "ordinal")) {
				rc = v.kind == JSON_NUMBER
					 ? ch_read_fixed(c, j, &v, 0, "'ordinal'", &hs.ordinal,
							 &have)
					 : json_fail_at(
					       j, &v, "expected 'ordinal' to be a number, found %s",
					       json_kind_name(v.kind));
			} else if (json_is(&k, "sf")) {
				rc = json_text(j, &v, &c->tmp);
				if (!rc && !(g.sf = ch_pool_add(c, c->tmp.buf, c->tmp.len)))
					return ch_oom(c);
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
				return ch_oom(c);
			*h = hs;
		} else {
			g.seq = c->gsamples.len;
			struct gsample *s = vec_push(&c->gsamples, sizeof(*s));
			if (!s)
				return ch_oom(c);
			*s = g;
		}
		if ((rc = json_next(j, &t)))
			return rc;
	}
}

static bool is_cpu_key(const struct json_tok *k)
{
	static const char *const keys[] = {"nodes", "timeDeltas", "startTime", "endTime",
					   "head",  "timestamps", "lines",     "columns"};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (json_is(k, keys[i]))
			return true;
	return false;
}

/* A trace in object form, or a .cpuprofile; the '{' is read. */
int ch_read_top_object(struct ch *c, struct json *j)
{
	uint32_t top = NO_IX; /* the chunk of a .cpuprofile */
	bool trace = false;
	for (;;) {
		struct json_tok k, v;
		int rc = json_next_member(j, &k, &v);
		if (rc)
			return rc;
		if (k.kind != JSON_KEY)
			break;
		if (json_is(&k, "traceEvents")) {
			trace = true;
			if (v.kind != JSON_ARRAY)
				return json_fail_at(
				    j, &v, "expected 'traceEvents' to be an array, found %s",
				    json_kind_name(v.kind));
			rc = ch_read_events(c, j);
		} else if (json_is(&k, "stackFrames")) {
			trace = true;
			rc = read_stack_frames(c, j, &v);
		} else if (json_is(&k, "samples")) {
			struct json_tok x;
			if (v.kind == JSON_NULL)
				continue;
			if (v.kind != JSON_ARRAY)
				return json_fail_at(j, &v,
						    "expected 'samples' to be an array, found %s",
						    json_kind_name(v.kind));
			if ((rc = json_next(j, &x)))
				return rc;
			if (x.kind == JSON_OBJECT) {
				/* trace samples, or a sampling heap profile's (they name a nodeId)
				 */
				uint32_t g0 = c->gsamples.len;
				rc = read_gsamples(c, j, &x);
				trace |= c->gsamples.len > g0;
			} else {
				/* a .cpuprofile's node ids */
				if (top == NO_IX && (top = ch_new_chunk(c)) == NO_IX)
					return ch_oom(c);
				uint32_t b0 = c->s_ids.len;
				rc = ch_read_numbers(c, j, &x, 0, &c->s_ids, false, "samples");
				struct vchunk *ck = ch_chunk_at(c, top);
				ck->s_begin = b0;
				ck->s_len = c->s_ids.len - b0;
				ck->has_samples = true;
			}
		} else if (is_cpu_key(&k)) {
			if (top == NO_IX && (top = ch_new_chunk(c)) == NO_IX)
				return ch_oom(c);
			rc = ch_cpu_member(c, j, &k, &v, top, 0);
		} else if (json_is(&k, "displayTimeUnit") ||
			   json_is(&k, "controllerTraceDataKey")) {
			rc = json_skip(j, &v);
		} else {
			int kl = k.len > 40 ? 40 : (int)k.len;
			builder_lossy(c->b, 1, "top-level '%.*s' not kept", kl, k.s);
			rc = json_skip(j, &v);
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
	/* a sampling heap profile: its head tree as a profile without times (see ch_heap_samples)
	 */
	bool heap = !trace && top != NO_IX && c->heap_nodes && !ch_chunk_at(c, top)->has_samples &&
		    !ch_chunk_at(c, top)->has_deltas;
	if (!heap)
		c->heap_unused += c->hsamples.len;
	if (top != NO_IX) {
		struct vchunk *ck = ch_chunk_at(c, top);
		if (!trace || ck->has_samples || c->nodes.len) {
			uint32_t th = ch_get_thread(c, ID_MISSING, ID_MISSING);
			if (th == NO_IX)
				return ch_oom(c);
			int rc = ch_whole_profile(c, top, th, PV_TIME_NONE);
			if (rc)
				return rc;
			ch_chunk_at(c, top)->done = true;
			c->product =
			    ck->has_stamps ? "V8 CPU profile (head tree)" : "V8 CPU profile";
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

bool ch_sframe_eq(const void *ctx, uint32_t row)
{
	const struct text_key *k = ctx;
	return strcmp(ch_pool_s(k->c, VEC(k->c->sframes, struct sframe)[row].id), k->s) == 0;
}

uint32_t ch_sframe_find(struct ch *c, const char *s)
{
	struct text_key k = {c, s};
	uint32_t slot;
	uint32_t r = ixmap_find(&c->sframe_map, hash_bytes(s, strlen(s)), ch_sframe_eq, &k, &slot);
	return r == UINT32_MAX ? NO_IX : r;
}

int ch_cmp_gsample(const void *a, const void *b)
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

/* The thread of an object-form sample: without a pid, the one thread with its tid. */
uint32_t ch_gsample_thread(struct ch *c, const struct gsample *g)
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
	return ch_get_thread(c, g->pid, g->tid);
}

/*
 * A trace without CPU samples: its duration events (B/E and X) become a call tree, as speedscope
 * shows such a trace. Per thread, begins in time order (at one time B before X, a longer X
 * first), ends in time order; at one time an end goes first unless the begin has the end's name
 * (a zero-length event); an end closes the innermost open frame when their names match, an end
 * of the same time that matches it better going first, and is ignored (counted) otherwise. Each
 * stretch of time with a frame open is a sample of the open stack weighing the stretch.
 */
struct dur_key {
	uint32_t thread; /* out thread */
	int64_t t;
	int kind;    /* begins: 0 B, 1 X; ends: 0 E, 1 X */
	int64_t dur; /* X: the duration (longer first) */
};

/* The sort key of mark i as a begin (B, X) or an end (E, X). */
static struct dur_key dur_key(const struct ch *c, uint32_t i, bool end)
{
	const struct cmark *k = &VEC(c->marks, struct cmark)[i];
	struct dur_key d = {
	    .thread = VEC(c->threads, struct cthread)[k->thread].out,
	    .t = end ? k->end : k->start,
	    .kind = k->ph == 'X',
	    .dur = k->ph == 'X' ? k->end - k->start : 0,
	};
	return d;
}

/* Begins or ends (the context says which: struct dur_ctx) by thread, time, kind, duration. */
struct dur_ctx {
	const struct ch *c;
	bool end;
};

static int cmp_dur_ev(const void *a, const void *b, void *ctx)
{
	const struct dur_ctx *d = ctx;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	struct dur_key x = dur_key(d->c, ia, d->end), y = dur_key(d->c, ib, d->end);
	if (x.thread != y.thread)
		return x.thread < y.thread ? -1 : 1;
	if (x.t != y.t)
		return x.t < y.t ? -1 : 1;
	if (x.kind != y.kind)
		return x.kind < y.kind ? -1 : 1;
	if (x.dur != y.dur)
		return x.dur > y.dur ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

struct open_frame {
	pv_stack_ix stack;
	pv_str_ix name;
};

/*
 * The begins (B, X) and ends (E, X) of the duration events, each a queue of indices into marks,
 * sorted (the index is the event's order in the file).
 */
static int dur_queues(struct ch *c, uint32_t **begins, uint32_t *nb, uint32_t **ends, uint32_t *ne)
{
	const struct cmark *mk = VEC(c->marks, struct cmark);
	uint32_t n = c->marks.len, b = 0, e = 0;
	for (uint32_t i = 0; i < n; i++) {
		b += mk[i].ph == 'B' || mk[i].ph == 'X';
		e += mk[i].ph == 'E' || mk[i].ph == 'X';
	}
	*begins = pv_malloc((size_t)(b ? b : 1) * sizeof(uint32_t));
	*ends = pv_malloc((size_t)(e ? e : 1) * sizeof(uint32_t));
	if (!*begins || !*ends)
		return ch_oom(c);
	b = e = 0;
	for (uint32_t i = 0; i < n; i++) {
		char ph = mk[i].ph;
		if (ph == 'B' || ph == 'X')
			(*begins)[b++] = i;
		if (ph == 'E' || ph == 'X')
			(*ends)[e++] = i;
	}
	*nb = b;
	*ne = e;
	struct dur_ctx bc = {c, false}, ec = {c, true};
	ch_sort_r(*begins, b, sizeof(uint32_t), cmp_dur_ev, &bc);
	ch_sort_r(*ends, e, sizeof(uint32_t), cmp_dur_ev, &ec);
	return 0;
}

/* The walk of one thread's begins and ends: the queues, where each is, the open frames. */
struct dur_walk {
	const struct cmark *mk;
	const struct cthread *th;
	uint32_t *bq, *eq; /* indices into marks */
	uint32_t nb, ne, bi, ei;
	struct vec open; /* struct open_frame */
};

static uint32_t dur_thread_of(const struct dur_walk *w, uint32_t i)
{
	return w->th[w->mk[i].thread].out;
}

/* Begin e: a frame opened on top of the open ones. */
static int dur_open(struct ch *c, struct dur_walk *w, const struct cmark *e)
{
	struct pv_builder *b = c->b;
	pv_func_ix f = builder_func(b, e->name, PV_NONE, PV_NONE, 0);
	struct frame_key k = {.func = f, .addr = PV_ADDR_NONE, .category = e->cat};
	pv_stack_ix prefix =
	    w->open.len ? VEC(w->open, struct open_frame)[w->open.len - 1].stack : PV_NONE;
	struct open_frame *o = vec_push(&w->open, sizeof(*o));
	if (!o)
		return ch_oom(c);
	o->stack = builder_stack(b, prefix, builder_frame(b, &k));
	o->name = e->name;
	return 0;
}

/* The next end of the thread: it closes the innermost frame when it names it. */
static void dur_close(struct ch *c, struct dur_walk *w, uint32_t thread)
{
	const struct cmark *mk = w->mk;
	uint32_t *eq = w->eq;
	uint32_t ei = w->ei;
	if (w->open.len) {
		/* an end at the same time that closes the innermost frame goes first */
		pv_str_ix top = VEC(w->open, struct open_frame)[w->open.len - 1].name;
		for (uint32_t j = ei + 1; j < w->ne && dur_thread_of(w, eq[j]) == thread &&
					  mk[eq[j]].end == mk[eq[ei]].end && mk[eq[ei]].name != top;
		     j++)
			if (mk[eq[j]].name == top) {
				uint32_t tmp = eq[ei];
				eq[ei] = eq[j];
				eq[j] = tmp;
			}
	}
	const struct cmark *e = &mk[eq[w->ei++]];
	if (w->open.len && VEC(w->open, struct open_frame)[w->open.len - 1].name == e->name)
		w->open.len--;
	else
		c->dur_unmatched++;
}

/* One thread's stretches of open events as samples, in time order. */
static int dur_thread(struct ch *c, struct dur_walk *w, uint32_t thread, int64_t zero,
		      pv_metric_ix m)
{
	const struct cmark *mk = w->mk;
	int64_t wt[2] = {0, 0};
	int64_t last = 0;
	int rc = 0;
	w->open.len = 0;
	for (;;) {
		uint32_t bi = w->bi, ei = w->ei;
		bool hb = bi < w->nb && dur_thread_of(w, w->bq[bi]) == thread;
		bool he = ei < w->ne && dur_thread_of(w, w->eq[ei]) == thread;
		if (!hb && !he)
			break;
		const struct cmark *b = hb ? &mk[w->bq[bi]] : NULL;
		const struct cmark *e = he ? &mk[w->eq[ei]] : NULL;
		bool take_b =
		    !he ||
		    (hb && (b->start < e->end || (b->start == e->end && b->name == e->name)));
		int64_t t = take_b ? b->start : e->end;
		if (w->open.len && t > last) {
			struct open_frame *top = &VEC(w->open, struct open_frame)[w->open.len - 1];
			int64_t rt;
			if ((rc = ch_rel(c, last, zero, &rt)))
				return rc;
			wt[m] = t - last;
			builder_sample(c->b, thread, top->stack, rt, wt);
		}
		last = t;
		if (take_b) {
			w->bi++;
			if ((rc = dur_open(c, w, b)))
				return rc;
			continue;
		}
		dur_close(c, w, thread);
	}
	c->dur_open += w->open.len;
	return 0;
}

int ch_duration_samples(struct ch *c, int64_t zero, pv_metric_ix m)
{
	struct dur_walk w = {
	    .mk = VEC(c->marks, struct cmark),
	    .th = VEC(c->threads, struct cthread),
	};
	int rc = dur_queues(c, &w.bq, &w.nb, &w.eq, &w.ne);
	/* at most one sample per begin and per end: room once, so the columns never move */
	if (!rc)
		builder_samples_room(c->b, (uint64_t)w.nb + w.ne);
	while (!rc && !c->b->status && (w.bi < w.nb || w.ei < w.ne)) {
		/* one thread at a time: the lower thread's queues first */
		uint32_t thread =
		    w.bi < w.nb ? dur_thread_of(&w, w.bq[w.bi]) : dur_thread_of(&w, w.eq[w.ei]);
		if (w.ei < w.ne && dur_thread_of(&w, w.eq[w.ei]) < thread)
			thread = dur_thread_of(&w, w.eq[w.ei]);
		rc = dur_thread(c, &w, thread, zero, m);
	}
	pv_free(w.bq);
	pv_free(w.eq);
	vec_free(&w.open);
	return rc;
}

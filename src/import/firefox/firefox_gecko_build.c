/*
 * firefox_gecko_build.c - a Gecko thread's marker payloads read, and at the thread's end its
 * markers, samples and stacks handed to the builder (firefox_gecko.c tells the format).
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
#include "import/firefox/firefox.h"
#include "import/firefox/firefox_gecko.h"
#include "import/importer.h"
#include "import/json.h"
#include "import/script_url.h"

/* Which category a marker of a Gecko < 16 profile gets, from its name or payload type. */
static const char *const marker_cat_keys[][2] = {
    {"DOMEvent", "DOM"},
    {"Navigation::DOMComplete", "DOM"},
    {"Navigation::DOMInteractive", "DOM"},
    {"Navigation::Start", "DOM"},
    {"UserTiming", "DOM"},
    {"CC", "GC / CC"},
    {"GCMajor", "GC / CC"},
    {"GCMinor", "GC / CC"},
    {"GCSlice", "GC / CC"},
    {"Paint", "Graphics"},
    {"VsyncTimestamp", "Graphics"},
    {"CompositorScreenshot", "Graphics"},
    {"JS allocation", "JavaScript"},
    {"Styles", "Layout"},
    {"nsRefreshDriver::Tick waiting for paint", "Layout"},
    {"Navigation", "Network"},
    {"Network", "Network"},
};

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
	int rc = gk_cell_index(j, &c[0], row, &s->stack, "a stack index or null");
	if (!rc)
		rc = gk_cell_time(j, &c[1], &s->time, "a time in milliseconds");
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
	gk_table_init(&t, "marker stack samples", sync_fields, sync_row, NULL, &s);
	bool own_tables = false, tid = false;
	for (;;) {
		struct json_tok k, v;
		int rc = json_next_member(j, &k, &v);
		if (rc)
			return rc;
		if (k.kind != JSON_KEY)
			break;
		if (json_is(&k, "samples"))
			rc = gk_read_table(g, j, &t, &v);
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
	if (text_eq(k, k + n, "startTime") || text_eq(k, k + n, "endTime"))
		return true;
	for (int i = 0; network_too && network_times[i]; i++)
		if (text_eq(k, k + n, network_times[i]))
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
			return gk_oom(g);
		memset(m, 0, sizeof(*m));
		m->key_off = th->ptext.len;
		m->key_len = (uint32_t)k.len;
		if (sbuf_put(&th->ptext, k.s, k.len))
			return gk_oom(g);
		if (v.kind == JSON_STRING && json_is(&k, "type"))
			rc = gk_tok_str(g, j, &v, &pl->type);
		else if (v.kind == JSON_STRING && json_is(&k, "category"))
			rc = gk_tok_str(g, j, &v, &pl->category);
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
		m->is_index = gk_tok_small_uint(&v, &m->index);
		m->val_off = th->ptext.len;
		if ((rc = json_capture(j, &v, &th->ptext)))
			return rc;
		if (th->ptext.len - m->val_off > UINT32_MAX)
			return json_fail_at(j, &v, "expected a marker payload value below 4 GiB");
		m->val_len = (uint32_t)(th->ptext.len - m->val_off);
		pl->nr++;
	}
}

int gk_marker_cell(struct gk *g, struct json *j, struct table *t, int field,
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

int gk_marker_row(struct gk *g, struct json *j, struct table *t, const struct json_tok *row,
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
	int rc = gk_cell_index(j, &c[M_NAME], row, &m.name, "a marker name (a string index)");
	if (!rc)
		rc = gk_cell_index(j, &c[M_CATEGORY], row, &m.cat, "a category index or null");
	if (!rc)
		rc = gk_cell_time(j, &c[M_START], &m.start, "a start time in milliseconds or null");
	if (!rc)
		rc = gk_cell_time(j, &c[M_END], &m.end, "an end time in milliseconds or null");
	if (!rc)
		rc = gk_cell_time(j, &c[M_TIME], &m.time, "a time in milliseconds or null");
	if (rc)
		return rc;
	if (m.name == PV_NONE)
		return json_fail_at(j, gk_cell_at(&c[M_NAME], row),
				    "expected a marker name (a string index), found %s",
				    c[M_NAME].kind == JSON_EOF ? "no cell" : "null");
	if (!th->markers_old) {
		uint32_t ph;
		if ((rc = gk_cell_index(j, &c[M_PHASE], row, &ph, "a marker phase (0 to 3)")))
			return rc;
		if (ph == PV_NONE)
			return json_fail_at(j, gk_cell_at(&c[M_PHASE], row),
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
	return gk_push_row(g, &th->markers, &m, sizeof(m));
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
			return gk_oom(g);
		*off = th->stext.len;
		*len = (uint32_t)n;
		if (sbuf_put(&th->stext, p, n))
			return gk_oom(g);
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
	if (str_is(p, type, "CompositorScreenshot") && text_eq(k, k + n, "url"))
		return true; /* no schema says so (upstream #5303): hard-wired there too */
	for (uint32_t i = 0; i < g->strfields.len; i++) {
		const struct gk_strfield *f = &VEC(g->strfields, struct gk_strfield)[i];
		if (f->type == type && text_eq(k, k + n, pv_str(p, f->key)))
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
		    (m->drop_category && text_eq(k, k + mb->key_len, "category")) ||
		    (m->drop_timestamp && text_eq(k, k + mb->key_len, "timeStamp")))
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
		if (m->type_out && text_eq(k, k + mb->key_len, "type")) {
			const char *ts = pv_str(p, m->type_out);
			rc = sbuf_json_string(o, ts, strlen(ts));
		} else if (mb->is_time && delta &&
			   (tk || (network && is_time_key(k, mb->key_len, true)))) {
			rc = sbuf_ms(o, mb->ns + delta);
		} else if (mb->is_index && mb->index < th->str_off.len &&
			   is_string_field(g, type, k, mb->key_len)) {
			const char *s = gk_thread_string(th, mb->index, &sn);
			rc = sbuf_json_string(o, s, sn);
		} else if (ipc && text_eq(k, k + mb->key_len, "otherPid") &&
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
		return gk_oom(g);
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
		if (text_eq(key, key + kn, marker_cat_keys[i][0]))
			cat = marker_cat_keys[i][1];
	uint32_t before = p->categories.len;
	pv_cat_ix c = builder_category(g->b, builder_cstr(g->b, cat),
				       builder_cstr(g->b, gk_default_color(cat)));
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
	const char *name = gk_thread_string(&g->th, m->name, &nn);
	pv_str_ix type = m->pl.type;
	if (version < 13 && (text_eq(name, name + nn, "VsyncTimestamp") ||
			     text_eq(name, name + nn, "LayerTranslation") ||
			     text_eq(name, name + nn, "CompositorScreenshot"))) {
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
		return gk_oom(g);
	e->m = mi;
	e->phase = phase;
	e->start = start;
	e->end = end;
	e->key = key;
	e->seq = g->th.emits.len - 1;
	return 0;
}

/* The index errors of marker row i: its name, its cause's stack, its category. */
static int check_marker(struct gk *g, uint32_t i)
{
	struct gk_thread *th = &g->th;
	const struct gk_marker *m = &VEC(th->markers, struct gk_marker)[i];
	uint32_t nstr = th->str_off.len, nstacks = th->stacks.len, ncats = th->proc->cats.len;
	if (m->name >= nstr)
		return gk_fail_cell(
		    g, &th->t_markers, i, M_NAME,
		    "expected a string index below %u (the stringTable's length), found %u", nstr,
		    m->name);
	if (m->pl.has_cause && m->pl.cause_stack >= nstacks)
		return gk_fail_cell(g, &th->t_markers, i, M_DATA,
				    "expected a marker stack index below %u (the stackTable's "
				    "length), found %u",
				    nstacks, m->pl.cause_stack);
	if (m->cat != PV_NONE && m->cat >= ncats)
		return gk_fail_cell(g, &th->t_markers, i, M_CATEGORY,
				    "expected a category index below %u (the length of "
				    "meta.categories), found %u",
				    ncats, m->cat);
	return 0;
}

/* A marker row of Gecko >= 20 (name, startTime, endTime, phase...) as the row to emit. */
static int plan_marker(struct gk *g, uint32_t i)
{
	struct gk_marker *m = &VEC(g->th.markers, struct gk_marker)[i];
	int64_t s = m->phase == PV_PHASE_END ? PV_TIME_NONE : m->start;
	int64_t e =
	    m->phase == PV_PHASE_INTERVAL || m->phase == PV_PHASE_END ? m->end : PV_TIME_NONE;
	/* upstream sorts by `endTime || startTime` of the raw columns */
	int64_t key = m->end != PV_TIME_NONE && m->end != 0 ? m->end : m->start;
	if (g->th.proc->version < 21)
		upgrade_dom_event(g, m, m->pl.type, s);
	return push_emit(g, i, m->phase, s, e, key);
}

/* Whether marker m is a Gecko < 10 DOMEvent row, which becomes a start and an end row. */
static bool old_dom_event(struct gk *g, const struct gk_marker *m, pv_str_ix type)
{
	size_t nn;
	const char *name = gk_thread_string(&g->th, m->name, &nn);
	return g->th.proc->version < 10 && text_eq(name, name + nn, "DOMEvent") && m->pl.present &&
	       !str_is(g->b->p, type, "tracing");
}

/*
 * An old marker row (Gecko < 20: name, time, data) as the row to emit (upgrader 20: tracing
 * start/end at time; payload start/end: an interval); *split set for a DOMEvent whose end row
 * comes after the others.
 */
static int plan_old_marker(struct gk *g, uint32_t i, bool *split)
{
	struct gk_marker *m = &VEC(g->th.markers, struct gk_marker)[i];
	const struct pv_profile *p = g->b->p;
	pv_str_ix type = upgrade_old_marker(g, m, g->th.proc->version);
	uint8_t ph = PV_PHASE_INSTANT;
	int64_t s = m->time, e = PV_TIME_NONE;
	*split = old_dom_event(g, m, type);
	if (*split)
		return push_emit(g, i, PV_PHASE_START, m->pl.start, PV_TIME_NONE, m->pl.start);
	if (m->pl.present && str_is(p, type, "tracing")) {
		if (m->pl.interval == 1) {
			ph = PV_PHASE_START;
		} else if (m->pl.interval == 2) {
			ph = PV_PHASE_END;
			e = s;
			s = PV_TIME_NONE;
		}
	} else if (m->pl.present && m->pl.start != PV_TIME_NONE && m->pl.end != PV_TIME_NONE &&
		   m->pl.start != m->pl.end) {
		ph = PV_PHASE_INTERVAL;
		s = m->pl.start;
		e = m->pl.end;
	}
	upgrade_dom_event(g, m, type, s);
	int64_t key = e != PV_TIME_NONE && e != 0 ? e : s;
	return push_emit(g, i, ph, s, e, key);
}

/* The end rows of the Gecko < 10 DOMEvent markers, after every other row. */
static int push_dom_ends(struct gk *g)
{
	struct gk_thread *th = &g->th;
	struct gk_marker *mk = th->markers.p;
	for (uint32_t i = 0; i < th->markers.len; i++) {
		struct gk_marker *m = &mk[i];
		pv_str_ix type = m->type_out ? m->type_out : m->pl.type;
		if (th->markers_old && old_dom_event(g, m, type)) {
			int rc = push_emit(g, i, PV_PHASE_END, PV_TIME_NONE, m->pl.end, m->pl.end);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* The emitted row em of thread tix, on the root's clock, to the builder. */
static int write_marker(struct gk *g, pv_thread_ix tix, const struct emit *em)
{
	struct gk_thread *th = &g->th;
	struct gk_proc *pr = th->proc;
	struct gk_marker *m = &VEC(th->markers, struct gk_marker)[em->m];
	if (!m->assembled) {
		int rc = assemble_payload(g, m);
		if (rc)
			return rc;
	}
	size_t nn;
	const char *name = gk_thread_string(th, m->name, &nn);
	pv_cat_ix cat = PV_NONE;
	if (th->markers_old && th->t_markers.field_col[M_CATEGORY] < 0 && m->name_out)
		cat = legacy_marker_category(g, m, "FileIO", 6);
	else if (th->markers_old && th->t_markers.field_col[M_CATEGORY] < 0)
		cat = legacy_marker_category(g, m, name, nn);
	else if (m->cat != PV_NONE && m->cat < pr->cats.len)
		cat = VEC(pr->cats, struct gk_cat)[m->cat].cat;
	int64_t delta = pr->delta_ns;
	struct raw_marker r = {
	    .name = m->name_out ? m->name_out : builder_str(g->b, name, nn),
	    .category = cat,
	    .phase = (enum pv_marker_phase)em->phase,
	    .start_ns = em->start == PV_TIME_NONE ? PV_TIME_NONE : em->start + delta,
	    .end_ns = em->end == PV_TIME_NONE ? PV_TIME_NONE : em->end + delta,
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
			builder_lossy(g->b, 1, "marker cause thread ids (tid of a marker's stack)");
	}
	builder_marker(g->b, &r);
	return 0;
}

/* Marker rows as the Firefox Profiler stores them: phases (Gecko < 20: derived), sorted. */
static int emit_markers(struct gk *g, pv_thread_ix tix)
{
	struct gk_thread *th = &g->th;
	uint32_t nm = th->markers.len;
	bool any_split = false;
	th->emits.len = 0;
	for (uint32_t i = 0; i < nm; i++) {
		bool split = false;
		int rc = check_marker(g, i);
		if (!rc)
			rc = th->markers_old ? plan_old_marker(g, i, &split) : plan_marker(g, i);
		if (rc)
			return rc;
		any_split |= split;
	}
	int rc = any_split ? push_dom_ends(g) : 0;
	if (rc)
		return rc;
	struct emit *em = th->emits.p;
	if (th->emits.len > 1)
		pv_sort(em, th->emits.len, sizeof(*em), emit_cmp);
	for (uint32_t i = 0; i < th->emits.len && !rc; i++)
		rc = write_marker(g, tix, &em[i]);
	return rc;
}

static void report_columns(struct gk *g, const struct table *t)
{
	for (uint32_t u = 0; u < t->nr_unknown; u++)
		builder_lossy(g->b, t->unknown_count[u], "%s column '%s' values", t->what,
			      t->unknown_name[u]);
}

/* Frame row i's category and subcategory into k, checked against the process's categories. */
static int frame_category(struct gk *g, uint32_t i, struct frame_key *k)
{
	struct gk_thread *th = &g->th;
	struct gk_proc *pr = th->proc;
	const struct gk_frame *fr = &VEC(th->frames, struct gk_frame)[i];
	uint32_t c = fr->cat;
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
	if (c == PV_NONE)
		return 0;
	if (c >= pr->cats.len)
		return gk_fail_cell(g, &th->t_frames, i, F_CATEGORY,
				    "expected a category index below %u (the length "
				    "of meta.categories), found %u",
				    pr->cats.len, c);
	const struct gk_cat *gc = &VEC(pr->cats, struct gk_cat)[c];
	uint32_t sub = fr->sub == PV_NONE ? 0 : fr->sub;
	if (sub >= gc->sub_len)
		return gk_fail_cell(g, &th->t_frames, i, F_SUBCATEGORY,
				    "expected a subcategory index below %u (the "
				    "category's subcategories), found %u",
				    gc->sub_len, sub);
	k->category = gc->cat;
	k->subcategory = (uint16_t)VEC(pr->submap, uint32_t)[gc->sub_first + sub];
	return 0;
}

/* The thread's frame rows to the builder's frames (frame_map), their locations resolved. */
static int map_frames(struct gk *g)
{
	struct gk_thread *th = &g->th;
	uint32_t nstr = th->str_off.len, nframes = th->frames.len;
	struct locinfo *locs = th->locs.p;
	for (uint32_t i = 0; i < nstr; i++)
		locs[i].func = PV_NONE;
	const struct gk_frame *fr = th->frames.p;
	pv_frame_ix *fmap = th->frame_map.p;
	for (uint32_t i = 0; i < nframes; i++) {
		if (fr[i].loc >= nstr)
			return gk_fail_cell(
			    g, &th->t_frames, i, F_LOCATION,
			    "expected a string index below %u (the stringTable's length), found %u",
			    nstr, fr[i].loc);
		struct locinfo *li = &locs[fr[i].loc];
		if (li->func == PV_NONE) {
			size_t n;
			const char *s = gk_thread_string(th, fr[i].loc, &n);
			gk_resolve_location(g, th->proc, s, n, li);
		}
		struct frame_key k = {
		    .func = li->func,
		    .line = fr[i].line != PV_NONE ? fr[i].line : li->line,
		    .column = fr[i].column != PV_NONE ? fr[i].column : li->column,
		    .addr = li->addr,
		    .category = PV_NONE,
		};
		int rc = frame_category(g, i, &k);
		if (rc)
			return rc;
		fmap[i] = builder_frame(g->b, &k);
	}
	return 0;
}

/* The thread's stack rows to the builder's stacks (stack_map). */
static int map_stacks(struct gk *g)
{
	struct gk_thread *th = &g->th;
	uint32_t nframes = th->frames.len;
	const struct gk_stack *st = th->stacks.p;
	const pv_frame_ix *fmap = th->frame_map.p;
	pv_stack_ix *smap = th->stack_map.p;
	for (uint32_t i = 0; i < th->stacks.len; i++) {
		if (st[i].frame >= nframes)
			return gk_fail_cell(
			    g, &th->t_stacks, i, K_FRAME,
			    "expected a frame index below %u (the frameTable's length), found %u",
			    nframes, st[i].frame);
		smap[i] =
		    builder_stack(g->b, st[i].prefix == PV_NONE ? PV_NONE : smap[st[i].prefix],
				  fmap[st[i].frame]);
	}
	return 0;
}

/* The thread's row in the builder, its lifetime on the root's clock; PV_NONE on error. */
static pv_thread_ix make_thread(struct gk *g)
{
	struct gk_thread *th = &g->th;
	struct pv_builder *b = g->b;
	pv_thread_ix tix = builder_thread(b, th->name, th->pid, th->tid, th->process_name);
	if (b->status)
		return PV_NONE;
	b->p->threads.process_type[tix] = th->process_type;
	int64_t delta = th->proc->delta_ns;
	int64_t reg = th->reg == PV_TIME_NONE ? PV_TIME_NONE : th->reg + delta;
	int64_t unreg = th->unreg == PV_TIME_NONE ? PV_TIME_NONE : th->unreg + delta;
	if (reg != PV_TIME_NONE && unreg != PV_TIME_NONE && unreg < reg) {
		builder_lossy(b, 1, "thread unregister times before the register time");
		unreg = PV_TIME_NONE;
	}
	b->p->threads.start_ns[tix] = reg;
	b->p->threads.end_ns[tix] = unreg;
	return tix;
}

int gk_sample_room(struct gk *g, const struct json *j)
{
	struct pv_builder *b = g->b;
	uint64_t need = (uint64_t)g->th.s_base + g->th.s_len + 1;
	if (need > PV_MAX_ROWS)
		return pv_error_set(g->err, PV_ELIMIT, "%s: more than %u samples", g->in->name,
				    PV_MAX_ROWS);
	if (!g->samples_room) {
		/*
		 * The first room: as many samples as the rest of the input could hold (each row
		 * at least "[0,0],"), so the columns never move; the pages never written cost
		 * nothing.
		 */
		g->samples_room = true;
		builder_samples_room(b, need + (size_t)(g->in->data + g->in->len - j->p) / 6);
	}
	if (builder_samples_reserve(b, need, false))
		return b->status == PV_ENOMEM ? gk_oom(g) : b->status;
	return 0;
}

/*
 * The thread's samples, written in the builder's columns from row s_base as they were read:
 * their stacks checked and mapped, their times put on the root's clock, taken as thread tix's
 * with their weights (1, and the CPU delta) and event delays.
 */
static int finish_samples(struct gk *g, pv_thread_ix tix)
{
	struct gk_thread *th = &g->th;
	struct pv_builder *b = g->b;
	uint32_t n = th->s_len, nstacks = th->stacks.len;
	if (!n)
		return 0;
	const pv_stack_ix *smap = th->stack_map.p;
	pv_stack_ix *sv = b->p->samples.stack + th->s_base;
	int64_t *tv = b->p->samples.time_ns + th->s_base, delta = th->proc->delta_ns;
	for (uint32_t i = 0; i < n; i++) {
		if (sv[i] != PV_NONE && sv[i] >= nstacks)
			return gk_fail_cell(g, &th->t_samples, i, S_STACK,
					    "expected a stack index below %u (the stackTable's "
					    "length) or null, found %u",
					    nstacks, sv[i]);
		sv[i] = sv[i] == PV_NONE ? PV_NONE : smap[sv[i]];
		tv[i] = tv[i] == PV_TIME_NONE ? PV_TIME_NONE : tv[i] + delta;
	}
	uint32_t first = b->p->samples.len;
	builder_samples_commit(b, tix, th->s_base, n);
	if (b->status)
		return 0; /* the registry reports the builder's error */
	struct gk_sample *sx = th->samples.p;
	if (g->cpu_metric != PV_NONE && th->t_samples.field_col[S_CPU] < 0) {
		ff_set_weights(b, g->cpu_metric, first, n, NULL, 0, 0);
	} else if (g->cpu_metric != PV_NONE) {
		/* the first delta of a thread covers time before the profile: meaningless */
		for (uint32_t i = 0; i < n; i++) {
			int64_t c = i > 0 ? sx[i].cpu : PV_TIME_NONE;
			sx[i].cpu = c == PV_TIME_NONE	    ? 0
				    : g->cpu_unit == CPU_US ? c
							    : (c + (c >= 0 ? 500 : -500)) / 1000;
		}
		ff_set_weights(b, g->cpu_metric, first, n, &sx->cpu, sizeof(*sx) / sizeof(int64_t),
			       0);
	}
	if (th->t_samples.field_col[S_DELAY] >= 0 || th->t_samples.field_col[S_RESP] >= 0) {
		int64_t *dv = builder_samples_event_delay(b);
		for (uint32_t i = 0; dv && i < n; i++)
			dv[first + i] = sx[i].delay;
	}
	return 0;
}

static int finish_thread(struct gk *g)
{
	struct gk_thread *th = &g->th;
	struct pv_builder *b = g->b;
	if (vec_resize(&th->locs, sizeof(struct locinfo), th->str_off.len) ||
	    vec_resize(&th->frame_map, sizeof(pv_frame_ix), th->frames.len) ||
	    vec_resize(&th->stack_map, sizeof(pv_stack_ix), th->stacks.len))
		return gk_oom(g);
	int rc = map_frames(g);
	if (rc || (rc = map_stacks(g)))
		return rc;
	pv_thread_ix tix = make_thread(g);
	if (tix == PV_NONE)
		return 0; /* the registry reports the builder's error */
	if (th->t_samples.field_col[S_CPU] >= 0 && th->s_len && g->cpu_metric == PV_NONE) {
		/* threads read before weigh 0 for it, as threads without the column do */
		enum pv_unit u = g->cpu_unit == CPU_NS || g->cpu_unit == CPU_US ? PV_UNIT_NS
				 : g->cpu_unit == CPU_CYCLES			? PV_UNIT_CYCLES
										: PV_UNIT_OTHER;
		g->cpu_metric = builder_metric(b, builder_cstr(b, "cpu-delta"), u);
		if (b->status)
			return 0;
	}
	if ((rc = finish_samples(g, tix)) || b->status || (rc = emit_markers(g, tix)))
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
	th->s_base = g->b->p->samples.len;
	th->s_len = 0;
	th->members.len = 0;
	sbuf_reset(&th->ptext);
	sbuf_reset(&th->stext);
	th->str_off.len = th->str_len.len = 0;
	th->markers_old = false;
	th->bad_times = 0;
	gk_table_reset(&th->t_samples);
	gk_table_reset(&th->t_stacks);
	gk_table_reset(&th->t_frames);
	gk_table_reset(&th->t_markers);
	payload_reset(&th->cur);
	for (;;) {
		struct json_tok k, v;
		if ((rc = json_next_member(j, &k, &v)))
			return rc;
		if (k.kind != JSON_KEY)
			break;
		if (json_is(&k, "name") && v.kind == JSON_STRING) {
			rc = gk_tok_str(g, j, &v, &th->name);
		} else if (json_is(&k, "processName") && v.kind == JSON_STRING) {
			rc = gk_tok_str(g, j, &v, &th->process_name);
		} else if (json_is(&k, "processType") && v.kind == JSON_STRING) {
			rc = gk_tok_str(g, j, &v, &th->process_type);
		} else if (json_is(&k, "pid")) {
			rc = gk_tok_id(j, &v, &th->pid);
		} else if (json_is(&k, "tid")) {
			rc = gk_tok_id(j, &v, &th->tid);
		} else if (json_is(&k, "registerTime")) {
			rc = gk_cell_time(j, &v, &th->reg,
					  "a register time in milliseconds or null");
		} else if (json_is(&k, "unregisterTime")) {
			rc = gk_cell_time(j, &v, &th->unreg,
					  "an unregister time in milliseconds or null");
		} else if (json_is(&k, "samples")) {
			th->samples.len = th->s_len = 0;
			rc = gk_read_table(g, j, &th->t_samples, &v);
		} else if (json_is(&k, "stackTable")) {
			th->stacks.len = 0;
			rc = gk_read_table(g, j, &th->t_stacks, &v);
		} else if (json_is(&k, "frameTable")) {
			th->frames.len = 0;
			rc = gk_read_table(g, j, &th->t_frames, &v);
		} else if (json_is(&k, "markers")) {
			th->markers.len = th->members.len = 0;
			sbuf_reset(&th->ptext);
			rc = gk_read_table(g, j, &th->t_markers, &v);
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
			rc = gk_parse_profile(g, j, &t, false, false);
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
int gk_parse_profile(struct gk *g, struct json *j, const struct json_tok *open, bool root, bool top)
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
			rc = gk_parse_meta(g, j, &pr, &v);
		} else if (json_is(&k, "libs") && !wrapper) {
			rc = gk_parse_libs(g, j, &pr, &v);
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
			rc = gk_parse_profile(g, j, &v, true, false);
		} else {
			size_t s;
			for (s = 0; s < sizeof(lossy_sections) / sizeof(lossy_sections[0]); s++)
				if (json_is(&k, lossy_sections[s][0]))
					break;
			uint64_t n = 0;
			if (s < sizeof(lossy_sections) / sizeof(lossy_sections[0])) {
				if ((rc = gk_count_table_rows(j, &v, &n)))
					goto out;
				builder_lossy(g->b, n, "%s", lossy_sections[s][1]);
				continue;
			}
			if ((rc = gk_count_longest(j, &v, &n)))
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

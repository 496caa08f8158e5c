/*
 * derive.c - raw marker rows to derived markers (doc/markers.md, "Derived markers"), the
 * Firefox Profiler's deriveMarkersFromRawMarkerTable and correlateIPCMarkers step by step, so
 * that counts, pairs and even the order of ties come out as that code makes them.
 *
 * Per thread, one pass in raw-row order. Interval starts wait on a stack per name (a linked list
 * through one array, so a thread of a million starts costs no allocation per start); Network
 * starts and CompositorScreenshots wait in small maps ordered like JavaScript's Map (a key
 * deleted and set again moves to the end), because the leftovers are emitted in that order and
 * the final sort is stable. Payload text is parsed only for rows whose text names one of the
 * special types; the rest is decided by phase alone. IPC rows are correlated across threads in
 * a first pass over the rows whose payload mentions IPC.
 *
 * Pairs merge their payloads as {...start, ...end} does: the start's keys in their order, then
 * the end's new ones, the end's values winning. Causes are columns of the model (the importers
 * take them out of the payload), merged the same way: the end's, else the start's; Network
 * prefers the start's.
 *
 * The list is sorted by start with a stable radix sort (linear in the markers).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/hash.h"
#include "base/sort.h"
#include "marker/internal.h"
#include "pv/view.h"

/* ---- an insertion-ordered map from text keys to rows (JavaScript's Map) ---- */

struct oentry {
	uint32_t key, key_len; /* in keys */
	uint32_t val;
	bool alive;
};

struct omap {
	struct oentry *e;
	uint32_t n, cap;
	uint32_t *slot; /* entry + 1, 0 = empty; the latest entry of a key */
	uint32_t mask;
	char *keys;
	size_t keys_len, keys_cap;
};

static void omap_reset(struct omap *m)
{
	m->n = 0;
	m->keys_len = 0;
	if (m->slot)
		memset(m->slot, 0, ((size_t)m->mask + 1) * sizeof(*m->slot));
}

static void omap_release(struct omap *m)
{
	pv_free(m->e);
	pv_free(m->slot);
	pv_free(m->keys);
	memset(m, 0, sizeof(*m));
}

static uint32_t omap_find(const struct omap *m, const char *k, size_t n, uint32_t *slot)
{
	*slot = UINT32_MAX;
	if (!m->slot)
		return UINT32_MAX;
	uint32_t i = (uint32_t)hash_bytes(k, n) & m->mask;
	for (;;) {
		uint32_t v = m->slot[i];
		if (!v) {
			*slot = i;
			return UINT32_MAX;
		}
		const struct oentry *e = &m->e[v - 1];
		if (e->key_len == n && memcmp(m->keys + e->key, k, n) == 0) {
			*slot = i;
			return v - 1;
		}
		i = (i + 1) & m->mask;
	}
}

/* The row of a live key, UINT32_MAX when absent. */
static uint32_t omap_get(const struct omap *m, const char *k, size_t n)
{
	uint32_t slot, e = omap_find(m, k, n, &slot);
	return e != UINT32_MAX && m->e[e].alive ? m->e[e].val : UINT32_MAX;
}

static void omap_del(struct omap *m, const char *k, size_t n)
{
	uint32_t slot, e = omap_find(m, k, n, &slot);
	if (e != UINT32_MAX)
		m->e[e].alive = false;
}

static int omap_grow(struct omap *m)
{
	uint32_t cap = m->slot ? (m->mask + 1) * 2 : 64;
	uint32_t *s = pv_calloc(cap, sizeof(*s));
	if (!s)
		return PV_ENOMEM;
	pv_free(m->slot);
	m->slot = s;
	m->mask = cap - 1;
	/* the latest entry of each key: later entries overwrite earlier ones */
	for (uint32_t x = 0; x < m->n; x++) {
		const struct oentry *e = &m->e[x];
		uint32_t i = (uint32_t)hash_bytes(m->keys + e->key, e->key_len) & m->mask;
		while (m->slot[i]) {
			const struct oentry *o = &m->e[m->slot[i] - 1];
			if (o->key_len == e->key_len &&
			    memcmp(m->keys + o->key, m->keys + e->key, e->key_len) == 0)
				break;
			i = (i + 1) & m->mask;
		}
		m->slot[i] = x + 1;
	}
	return 0;
}

/* Map.set: a live key keeps its place, a new (or deleted) one goes to the end. */
static int omap_set(struct omap *m, const char *k, size_t n, uint32_t val)
{
	uint32_t slot, x = omap_find(m, k, n, &slot);
	if (x != UINT32_MAX && m->e[x].alive) {
		m->e[x].val = val;
		return 0;
	}
	if (!m->slot || (uint64_t)(m->n + 1) * 2 > (uint64_t)m->mask + 1) {
		if (omap_grow(m))
			return PV_ENOMEM;
		x = omap_find(m, k, n, &slot);
	}
	if (m->n == m->cap) {
		uint32_t nc = grow_cap(m->cap, (uint64_t)m->n + 1);
		if (!nc || COL_GROW(m->e, nc))
			return PV_ENOMEM;
		m->cap = nc;
	}
	if (m->keys_len + n > m->keys_cap || !m->keys) {
		size_t nc = m->keys_cap ? m->keys_cap : 256;
		while (nc < m->keys_len + n)
			nc *= 2;
		char *p = pv_realloc(m->keys, nc);
		if (!p)
			return PV_ENOMEM;
		m->keys = p;
		m->keys_cap = nc;
	}
	if (m->keys_len + n > UINT32_MAX)
		return PV_ENOMEM;
	memcpy(m->keys + m->keys_len, k, n);
	struct oentry *e = &m->e[m->n];
	e->key = (uint32_t)m->keys_len;
	e->key_len = (uint32_t)n;
	e->val = val;
	e->alive = true;
	m->keys_len += n;
	m->slot[slot] = ++m->n;
	return 0;
}

/* ---- the derivation ---- */

enum row_type { T_OTHER, T_NETWORK, T_IPC, T_SCREENSHOT };

/* One IPC message's shared data (IPCSharedData of the Firefox Profiler). */
struct ipc_shared {
	int64_t start, send_start, send_end, recv_end, end; /* PV_TIME_NONE when missing */
	int64_t send_tid, recv_tid;			    /* PV_ID_NONE when missing */
	const char *send_name, *recv_name;		    /* NULL when missing */
};

#define SPECIAL_CACHE 4096

struct ctx {
	const struct pv_profile *p;
	struct pv_markers *ms;
	struct pv_error *err;
	uint32_t cap; /* of the derived columns */
	struct jdoc doc, doc2;
	struct sbuf t, key;
	/* per thread */
	int64_t tstart, tend;
	uint32_t *below; /* below[row]: the open start under row on its name's stack */
	uint32_t *nslot_key, *nslot_val; /* name -> bucket (open addressing) */
	uint32_t nslot_mask;
	uint32_t *btop; /* buckets in creation order: the top row of each */
	uint32_t nb, bcap;
	struct omap net, shots;
	/* IPC */
	uint32_t *ipc_of; /* raw row -> shared data index, UINT32_MAX when none */
	struct ipc_shared *ipc;
	uint32_t nr_ipc;
	uint64_t no_time;   /* rows without the time their phase needs */
	pv_cat_ix jank_cat; /* the first grey category (the front end's default), PV_NONE */
	struct mkey *mk;    /* merge scratch */
	uint32_t mk_cap;
	uint32_t *slot, slot_cap; /* merge: key -> mk row, for payloads with many keys */
	uint8_t *special_row;	  /* per raw row: its payload names a special type (after pass 1) */
	uint32_t special_ix[SPECIAL_CACHE]; /* payload string + 1, 0 = empty (maybe_special) */
	bool special[SPECIAL_CACHE];
};

static int oom(struct ctx *c)
{
	return pv_error_set(c->err, PV_ENOMEM, "out of memory");
}

static const char *payload_of(const struct ctx *c, uint32_t r, size_t *len)
{
	pv_str_ix s = c->p->markers.payload[r];
	*len = s < c->p->strings.len ? c->p->strings.size[s] : 0;
	return s && s < c->p->strings.len ? c->p->strings.ptr[s] : NULL;
}

/*
 * Whether payload string s could be of a special type (it names one somewhere). Payloads are
 * interned and repeat a lot, so the answer is cached by string index in a small direct-mapped
 * table: most rows cost one lookup instead of three memmem calls.
 */
static bool maybe_special(struct ctx *c, pv_str_ix ix, const char *s, size_t n)
{
	uint32_t slot = (uint32_t)hash_u64(ix) & (SPECIAL_CACHE - 1);
	if (c->special_ix[slot] == ix + 1)
		return c->special[slot];
	bool yes = false;
	/* one pass over the bytes (three memmem calls cost more on payloads this short) */
	for (size_t i = 0; i + 3 <= n && !yes; i++) {
		switch (s[i]) {
		case 'I': yes = s[i + 1] == 'P' && s[i + 2] == 'C'; break;
		case 'N': yes = i + 7 <= n && memcmp(s + i + 1, "etwork", 6) == 0; break;
		case 'C':
			yes = i + 20 <= n && memcmp(s + i + 1, "ompositorScreenshot", 19) == 0;
			break;
		default: break;
		}
	}
	c->special_ix[slot] = ix + 1;
	c->special[slot] = yes;
	return yes;
}

/*
 * The row's special type, with the payload parsed into c->doc when it is one. Only text that
 * names a special type is parsed.
 */
static enum row_type row_type(struct ctx *c, uint32_t r)
{
	size_t n;
	const char *s = payload_of(c, r, &n);
	if (c->special_row && !c->special_row[r])
		return T_OTHER; /* decided by the first pass */
	if (!s || !maybe_special(c, c->p->markers.payload[r], s, n))
		return T_OTHER;
	if (jdoc_parse(&c->doc, s, n, NULL) || c->doc.n[0].kind != JSON_OBJECT)
		return T_OTHER;
	uint32_t t = jn_get(&c->doc, 0, "type");
	if (jn_is(&c->doc, t, "Network"))
		return T_NETWORK;
	if (jn_is(&c->doc, t, "IPC"))
		return T_IPC;
	if (jn_is(&c->doc, t, "CompositorScreenshot"))
		return T_SCREENSHOT;
	return T_OTHER;
}

/* The text of String(payload[key]) into c->key (a map key), "undefined" when missing. */
static void key_text(struct ctx *c, struct jdoc *d, const char *key)
{
	sbuf_reset(&c->key);
	jn_js_string(d, jn_get(d, 0, key), &c->key);
}

static int grow(struct ctx *c)
{
	struct pv_markers *ms = c->ms;
	uint32_t nc = grow_cap(c->cap, (uint64_t)ms->len + 1);
	if (!nc || COL_GROW(ms->start_ns, nc) || COL_GROW(ms->end_ns, nc) ||
	    COL_GROW(ms->name, nc) || COL_GROW(ms->category, nc) || COL_GROW(ms->thread, nc) ||
	    COL_GROW(ms->flags, nc) || COL_GROW(ms->data, nc) || COL_GROW(ms->cause_stack, nc) ||
	    COL_GROW(ms->cause_time_ns, nc) ||
	    col_realloc((void **)&ms->raw, 2 * sizeof(*ms->raw), nc))
		return oom(c);
	c->cap = nc;
	return 0;
}

/*
 * Appends a derived marker of raw rows a and b (b PV_NONE for one). Its cause is b's when b has
 * one (a pair: the end's keys win), else a's; prefer_a turns that round (Network pairs).
 */
static int add2(struct ctx *c, uint32_t a, uint32_t b, bool prefer_a, int64_t start, int64_t end,
		const char *name, pv_cat_ix cat, pv_thread_ix t, const char *data, bool incomplete)
{
	struct pv_markers *ms = c->ms;
	const struct pv_raw_markers *rm = &c->p->markers;
	if (ms->len == c->cap && grow(c))
		return PV_ENOMEM;
	uint32_t i = ms->len++;
	ms->start_ns[i] = start;
	ms->end_ns[i] = end;
	ms->name[i] = name;
	ms->category[i] = cat;
	ms->thread[i] = t;
	ms->flags[i] = incomplete ? PV_MARKER_INCOMPLETE : 0;
	ms->raw[2 * i] = a;
	ms->raw[2 * i + 1] = b;
	ms->data[i] = data;
	uint32_t x = prefer_a ? a : b, y = prefer_a ? b : a;
	uint32_t cr = x != PV_NONE && rm->cause_stack[x] != PV_NONE   ? x
		      : y != PV_NONE && rm->cause_stack[y] != PV_NONE ? y
								      : PV_NONE;
	ms->cause_stack[i] = cr == PV_NONE ? PV_NONE : rm->cause_stack[cr];
	ms->cause_time_ns[i] = cr == PV_NONE ? PV_TIME_NONE : rm->cause_time_ns[cr];
	return 0;
}

static int add(struct ctx *c, uint32_t r, int64_t start, int64_t end, const char *name,
	       pv_cat_ix cat, pv_thread_ix t, const char *data, bool incomplete)
{
	return add2(c, r, PV_NONE, false, start, end, name, cat, t, data, incomplete);
}

static const char *row_name(const struct ctx *c, uint32_t r)
{
	return pv_str(c->p, c->p->markers.name[r]);
}

/* An override of a merged payload: key = JSON text, or NULL to drop the key (undefined). */
struct ovr {
	const char *key;
	const char *json;
};

/* A key of a payload being merged, with the value of its last writer. */
struct mkey {
	const char *k, *v;
	size_t kl, vl;
	bool drop;
};

/*
 * merge's key index: keys are found by a linear search in small payloads (*mask 0), through a
 * hash table over c->mk in big ones (bound: the most keys there can be). -1 on OOM.
 */
static int merge_index(struct ctx *c, uint64_t bound, uint32_t *mask)
{
	*mask = 0;
	if (bound <= 32)
		return 0;
	uint64_t cap = 64;
	while (cap < 2 * bound)
		cap *= 2;
	if (cap > UINT32_MAX)
		return -1;
	if (cap > c->slot_cap) {
		uint32_t *sl = pv_realloc(c->slot, (size_t)cap * sizeof(*sl));
		if (!sl)
			return -1;
		c->slot = sl;
		c->slot_cap = (uint32_t)cap;
	}
	*mask = (uint32_t)cap - 1;
	memset(c->slot, 0xff, (size_t)cap * sizeof(*c->slot));
	return 0;
}

/* merge: key m takes its new value, or is appended to c->mk[0..*nk) (unless dropped). */
static int merge_key(struct ctx *c, uint32_t *nk, uint32_t mask, const struct mkey *m)
{
	uint32_t f = 0, h = 0;
	if (mask) {
		h = (uint32_t)hash_bytes(m->k, m->kl) & mask;
		while ((f = c->slot[h]) != UINT32_MAX &&
		       !(c->mk[f].kl == m->kl && memcmp(c->mk[f].k, m->k, m->kl) == 0))
			h = (h + 1) & mask;
		if (f == UINT32_MAX)
			f = *nk;
	} else {
		while (f < *nk && !(c->mk[f].kl == m->kl && memcmp(c->mk[f].k, m->k, m->kl) == 0))
			f++;
	}
	if (f < *nk) {
		c->mk[f].v = m->v;
		c->mk[f].vl = m->vl;
		c->mk[f].drop = m->drop;
		return 0;
	}
	if (m->drop)
		return 0;
	if (*nk == c->mk_cap) {
		uint32_t nc = grow_cap(c->mk_cap, (uint64_t)*nk + 1);
		if (!nc || COL_GROW(c->mk, nc))
			return -1;
		c->mk_cap = nc;
	}
	if (mask)
		c->slot[h] = *nk;
	c->mk[(*nk)++] = *m;
	return 0;
}

/* merge's result: the keys c->mk[0..nk) not dropped, as compact JSON into the arena. */
static const char *merge_text(struct ctx *c, uint32_t nk)
{
	struct sbuf *t = &c->t;
	sbuf_reset(t);
	sbuf_put(t, "{", 1);
	bool first = true;
	for (uint32_t f = 0; f < nk; f++) {
		if (c->mk[f].drop)
			continue;
		if (!first)
			sbuf_put(t, ",", 1);
		first = false;
		sbuf_json_string(t, c->mk[f].k, c->mk[f].kl);
		sbuf_put(t, ":", 1);
		sbuf_put(t, c->mk[f].v, c->mk[f].vl);
	}
	sbuf_put(t, "}", 1);
	if (t->oom)
		return NULL;
	return arena_strndup(c->ms->priv->arena, sbuf_str(t), t->len);
}

/*
 * {...s, ...e, ...o} as compact JSON into the arena: keys in the order their first writer has
 * them, values of their last writer. s may be NULL; a payload that is not an object counts as {}.
 */
static const char *merge(struct ctx *c, const char *s, const char *e, const struct ovr *o,
			 uint32_t no)
{
	struct jdoc *docs[2] = {&c->doc, &c->doc2};
	const char *src[2] = {s, e};
	bool obj[2];
	uint64_t bound = no;
	for (int w = 0; w < 2; w++) {
		obj[w] = src[w] && !jdoc_parse(docs[w], src[w], strlen(src[w]), NULL) &&
			 docs[w]->n[0].kind == JSON_OBJECT;
		bound += obj[w] ? docs[w]->n[0].nkids : 0;
	}
	uint32_t mask, nk = 0;
	if (merge_index(c, bound, &mask))
		return NULL;
	for (int w = 0; w < 2; w++) {
		const struct jdoc *d = docs[w];
		for (uint32_t x = obj[w] ? d->n[0].first : JN_NONE; x != JN_NONE;
		     x = d->n[x].next) {
			struct mkey m = {0};
			m.k = jn_key(d, x, &m.kl);
			m.v = d->src + d->n[x].off;
			m.vl = d->n[x].end - d->n[x].off;
			if (merge_key(c, &nk, mask, &m))
				return NULL;
		}
	}
	for (uint32_t q = 0; q < no; q++) {
		struct mkey m = {.k = o[q].key, .kl = strlen(o[q].key), .v = o[q].json};
		m.vl = m.v ? strlen(m.v) : 0;
		m.drop = !m.v;
		if (merge_key(c, &nk, mask, &m))
			return NULL;
	}
	return merge_text(c, nk);
}

/* The payload of a start/end pair: one side when the other has none or both are the same. */
static int pair_data(struct ctx *c, uint32_t a, uint32_t b, const char **out)
{
	size_t na, nb;
	const char *sa = payload_of(c, a, &na), *sb = payload_of(c, b, &nb);
	if (!sa || !sb || sa == sb) {
		*out = sb ? sb : sa;
		return 0;
	}
	*out = merge(c, sa, sb, NULL, 0);
	return *out ? 0 : oom(c);
}

/* ---- thread ranges ---- */

static void thread_range(struct ctx *c, pv_thread_ix t, const uint32_t *rows, uint32_t n)
{
	const struct pv_profile *p = c->p;
	int64_t first = PV_TIME_NONE, last = PV_TIME_NONE;
	for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t]; s++) {
		if (pv_sample_time(p, s) != PV_TIME_NONE) {
			first = pv_sample_time(p, s);
			break;
		}
	}
	for (uint32_t s = p->threads.sample_end[t]; s-- > p->threads.sample_begin[t];) {
		if (pv_sample_time(p, s) != PV_TIME_NONE) {
			last = pv_sample_time(p, s);
			break;
		}
	}
	if (first != PV_TIME_NONE) {
		c->tstart = first;
		c->tend = pv_time_add(last, p->meta.interval_ns);
		return;
	}
	/* no samples: the earliest and latest marker times (the slots each phase uses) */
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t r = rows[k];
		uint8_t ph = p->markers.phase[r];
		int64_t s = ph == PV_PHASE_END ? PV_TIME_NONE : p->markers.start_ns[r];
		int64_t e = ph == PV_PHASE_INTERVAL || ph == PV_PHASE_END ? p->markers.end_ns[r]
									  : PV_TIME_NONE;
		if (s != PV_TIME_NONE) {
			lo = s < lo ? s : lo;
			hi = s > hi ? s : hi;
		}
		if (e != PV_TIME_NONE) {
			lo = e < lo ? e : lo;
			hi = e > hi ? e : hi;
		}
	}
	c->tstart = lo;
	c->tend = hi == INT64_MIN ? INT64_MIN : pv_time_add(hi, p->meta.interval_ns);
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* ---- name stacks ---- */

static int names_init(struct ctx *c, uint32_t rows)
{
	uint32_t cap = 16;
	while (cap < 2 * (uint64_t)rows && cap < (1u << 31))
		cap *= 2;
	pv_free(c->nslot_key);
	pv_free(c->nslot_val);
	c->nslot_key = pv_malloc((size_t)cap * sizeof(uint32_t));
	c->nslot_val = pv_malloc((size_t)cap * sizeof(uint32_t));
	if (!c->nslot_key || !c->nslot_val)
		return oom(c);
	memset(c->nslot_val, 0xff, (size_t)cap * sizeof(uint32_t));
	c->nslot_mask = cap - 1;
	c->nb = 0;
	return 0;
}

/* The bucket of name (made when new, in creation order). */
static uint32_t bucket(struct ctx *c, pv_str_ix name, bool make)
{
	uint32_t i = (uint32_t)hash_u64(name) & c->nslot_mask;
	while (c->nslot_val[i] != UINT32_MAX) {
		if (c->nslot_key[i] == name)
			return c->nslot_val[i];
		i = (i + 1) & c->nslot_mask;
	}
	if (!make)
		return UINT32_MAX;
	if (c->nb == c->bcap) {
		uint32_t nc = grow_cap(c->bcap, (uint64_t)c->nb + 1);
		if (!nc || COL_GROW(c->btop, nc))
			return UINT32_MAX;
		c->bcap = nc;
	}
	c->btop[c->nb] = PV_NONE;
	c->nslot_key[i] = name;
	c->nslot_val[i] = c->nb;
	return c->nb++;
}

/* ---- one thread ---- */

static int network_row(struct ctx *c, uint32_t r, pv_thread_ix t)
{
	const struct pv_raw_markers *rm = &c->p->markers;
	struct jdoc *d = &c->doc;
	bool start = jn_is(d, jn_get(d, 0, "status"), "STATUS_START");
	key_text(c, d, "id");
	if (c->key.oom)
		return oom(c);
	if (start)
		return omap_set(&c->net, sbuf_str(&c->key), c->key.len, r) ? oom(c) : 0;
	uint32_t sr = omap_get(&c->net, sbuf_str(&c->key), c->key.len);
	size_t n;
	const char *e = payload_of(c, r, &n);
	struct sbuf ms_start = {0}, ms_fetch = {0};
	struct ovr o[2] = {{"startTime", NULL}, {"fetchStart", NULL}};
	int64_t s, end = rm->end_ns[r];
	bool incomplete = sr == UINT32_MAX;
	if (rm->start_ns[r] == PV_TIME_NONE || end == PV_TIME_NONE ||
	    (!incomplete && rm->start_ns[sr] == PV_TIME_NONE)) {
		c->no_time++;
		return 0;
	}
	if (!incomplete) {
		omap_del(&c->net, sbuf_str(&c->key), c->key.len);
		s = rm->start_ns[sr];
		ns_to_ms_text(rm->start_ns[r], &ms_fetch);
		o[1].json = ms_fetch.buf;
	} else {
		/* an end without its start: it began before the profile */
		s = min64(c->tstart, rm->start_ns[r]);
		uint32_t f = jn_get(&c->doc, 0, "startTime");
		if (f != JN_NONE)
			sbuf_put(&ms_fetch, c->doc.src + c->doc.n[f].off,
				 c->doc.n[f].end - c->doc.n[f].off);
		o[1].json = f != JN_NONE ? ms_fetch.buf : NULL;
	}
	ns_to_ms_text(s, &ms_start);
	o[0].json = ms_start.buf;
	int rc = 0;
	const char *data = ms_start.oom || ms_fetch.oom ? NULL : merge(c, NULL, e, o, 2);
	if (!data)
		rc = oom(c);
	else
		/* the start's cause first, as startData.cause || endData.cause */
		rc = add2(c, incomplete ? r : sr, incomplete ? PV_NONE : r, true, s, end,
			  row_name(c, r), rm->category[r], t, data, incomplete);
	sbuf_release(&ms_start);
	sbuf_release(&ms_fetch);
	return rc;
}

static int ipc_row(struct ctx *c, uint32_t r, pv_thread_ix t)
{
	const struct pv_raw_markers *rm = &c->p->markers;
	struct jdoc *d = &c->doc;
	uint32_t m = c->ipc_of ? c->ipc_of[r] : UINT32_MAX;
	if (m == UINT32_MAX)
		return 0; /* another row of the message stands for it on this thread */
	const struct ipc_shared *sh = &c->ipc[m];
	bool sending = jn_is(d, jn_get(d, 0, "direction"), "sending");
	if (sending && jn_is(d, jn_get(d, 0, "phase"), "transferEnd") &&
	    sh->send_start != PV_TIME_NONE)
		return 0; /* the transfer's start shows it on this thread */
	bool sync = jn_truthy(d, jn_get(d, 0, "sync"));
	const char *name =
	    sending ? (sync ? "SyncIPCOut" : "IPCOut") : (sync ? "SyncIPCIn" : "IPCIn");
	uint32_t st = jn_get(d, 0, "startTime");
	size_t sl;
	const char *stext = st == JN_NONE ? NULL : jn_str(d, st, &sl);
	int64_t start, end;
	if (!stext || d->n[st].kind != JSON_NUMBER || !ms_text_to_ns(stext, sl, &start)) {
		c->no_time++;
		return 0;
	}
	end = start;
	bool incomplete = true;
	if (sh->start != PV_TIME_NONE && sh->end != PV_TIME_NONE) {
		start = sh->start;
		end = sh->end;
		incomplete = false;
	}
	/* {...data, ...sharedData, niceDirection} */
	struct sbuf v[10] = {{0}};
	struct ovr o[10];
	const int64_t times[5] = {sh->start, sh->send_start, sh->send_end, sh->recv_end, sh->end};
	static const char *const tkeys[5] = {"startTime", "sendStartTime", "sendEndTime",
					     "recvEndTime", "endTime"};
	for (int k = 0; k < 5; k++) {
		o[k].key = tkeys[k];
		o[k].json = NULL;
		if (times[k] != PV_TIME_NONE) {
			ns_to_ms_text(times[k], &v[k]);
			o[k].json = v[k].buf;
		}
	}
	const int64_t tids[2] = {sh->send_tid, sh->recv_tid};
	for (int k = 0; k < 2; k++) {
		o[5 + k].key = k ? "recvTid" : "sendTid";
		o[5 + k].json = NULL;
		if (tids[k] != PV_ID_NONE) {
			sbuf_addf(&v[5 + k], "%lld", (long long)tids[k]);
			o[5 + k].json = v[5 + k].buf;
		}
	}
	const char *names[2] = {sh->send_name, sh->recv_name};
	for (int k = 0; k < 2; k++) {
		o[7 + k].key = k ? "recvThreadName" : "sendThreadName";
		o[7 + k].json = NULL;
		if (names[k]) {
			sbuf_json_string(&v[7 + k], names[k], strlen(names[k]));
			o[7 + k].json = v[7 + k].buf;
		}
	}
	struct sbuf nice = {0};
	sbuf_puts(&nice, sending ? "sent to " : "received from ");
	const char *other = sending ? sh->recv_name : sh->send_name;
	if (other && *other)
		sbuf_puts(&nice, other);
	else
		jn_js_string(d, jn_get(d, 0, "otherPid"), &nice);
	sbuf_json_string(&v[9], nice.buf, nice.len);
	o[9].key = "niceDirection";
	o[9].json = v[9].buf;
	bool bad = nice.oom;
	for (int k = 0; k < 10; k++)
		bad |= v[k].oom;
	size_t n;
	const char *e = payload_of(c, r, &n);
	const char *data = bad ? NULL : merge(c, NULL, e, o, 10);
	sbuf_release(&nice);
	for (int k = 0; k < 10; k++)
		sbuf_release(&v[k]);
	if (!data)
		return oom(c);
	return add(c, r, start, end, name, rm->category[r], t, data, incomplete);
}

/*
 * A CompositorScreenshot lasts until the next one of its window. Returns 0 or PV_ENOMEM; *done
 * is set when r is dealt with (a CompositorScreenshotWindowDestroyed row also goes on as itself).
 */
static int screenshot_row(struct ctx *c, uint32_t r, pv_thread_ix t, bool *done)
{
	const struct pv_raw_markers *rm = &c->p->markers;
	key_text(c, &c->doc, "windowID");
	if (c->key.oom)
		return oom(c);
	uint32_t prev = omap_get(&c->shots, sbuf_str(&c->key), c->key.len);
	if (prev != UINT32_MAX) {
		omap_del(&c->shots, sbuf_str(&c->key), c->key.len);
		if (rm->start_ns[r] == PV_TIME_NONE) {
			c->no_time++;
		} else {
			size_t n;
			int rc = add(c, prev, rm->start_ns[prev], rm->start_ns[r],
				     "CompositorScreenshot", rm->category[r], t,
				     payload_of(c, prev, &n), false);
			if (rc)
				return rc;
		}
	}
	if (strcmp(row_name(c, r), "CompositorScreenshotWindowDestroyed") == 0)
		return 0; /* kept as itself too */
	*done = true;
	if (rm->start_ns[r] == PV_TIME_NONE) {
		c->no_time++;
		return 0;
	}
	return omap_set(&c->shots, sbuf_str(&c->key), c->key.len, r) ? oom(c) : 0;
}

/* ---- Jank ---- */

#define JANK_THRESHOLD_NS 50000000 /* the Firefox Profiler's 50 ms */

static int add_jank(struct ctx *c, pv_thread_ix t, int64_t delay, int64_t at)
{
	struct pv_markers *ms = c->ms;
	int rc = add(c, PV_NONE, pv_time_diff(at, delay), at, "Jank", c->jank_cat, t,
		     "{\"type\":\"Jank\"}", false);
	if (!rc)
		ms->flags[ms->len - 1] |= PV_MARKER_SYNTHETIC;
	return rc;
}

/*
 * Jank markers of thread t from its samples' event delays, as the Firefox Profiler's
 * deriveJankMarkers walks them: a sample's delay grows while the event loop is blocked; when it
 * drops, the previous sample's delay (if at least 50 ms) is one jank, ending at that sample and
 * starting that delay before; a delay still at least 50 ms at the last sample is one too.
 * Samples without a delay (or a time) are passed over.
 */
static int derive_jank(struct ctx *c, pv_thread_ix t)
{
	const struct pv_profile *p = c->p;
	const int64_t *delay = p->samples.event_delay_ns, *time = p->samples.time_ns;
	int64_t last_delay = 0, last_time = 0;
	int rc;
	if (!delay || !time)
		return 0;
	for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t]; s++) {
		if (delay[s] == PV_TIME_NONE || time[s] == PV_TIME_NONE)
			continue;
		if (delay[s] < last_delay && last_delay >= JANK_THRESHOLD_NS &&
		    (rc = add_jank(c, t, last_delay, last_time)))
			return rc;
		last_delay = delay[s];
		last_time = time[s];
	}
	return last_delay >= JANK_THRESHOLD_NS ? add_jank(c, t, last_delay, last_time) : 0;
}

/* A row of no special type by its phase: instant and interval rows as they are, a start pushed
 * on its name's stack, an end paired with the latest open start of its name. */
static int phase_row(struct ctx *c, uint32_t r, pv_thread_ix t)
{
	const struct pv_raw_markers *rm = &c->p->markers;
	int64_t s = rm->start_ns[r], e = rm->end_ns[r];
	size_t len;
	switch (rm->phase[r]) {
	case PV_PHASE_INSTANT:
		if (s == PV_TIME_NONE) {
			c->no_time++;
			return 0;
		}
		return add(c, r, s, PV_TIME_NONE, row_name(c, r), rm->category[r], t,
			   payload_of(c, r, &len), false);
	case PV_PHASE_INTERVAL:
		if (s == PV_TIME_NONE || e == PV_TIME_NONE) {
			c->no_time++;
			return 0;
		}
		return add(c, r, s, e, row_name(c, r), rm->category[r], t, payload_of(c, r, &len),
			   false);
	case PV_PHASE_START: {
		if (s == PV_TIME_NONE) {
			c->no_time++;
			return 0;
		}
		uint32_t b = bucket(c, rm->name[r], true);
		if (b == UINT32_MAX)
			return oom(c);
		c->below[r] = c->btop[b];
		c->btop[b] = r;
		return 0;
	}
	default: break; /* an end: the latest open start of its name */
	}
	if (e == PV_TIME_NONE) {
		c->no_time++;
		return 0;
	}
	uint32_t b = bucket(c, rm->name[r], false);
	uint32_t sr = b == UINT32_MAX ? PV_NONE : c->btop[b];
	if (sr == PV_NONE)
		return add(c, r, min64(e, c->tstart), e, row_name(c, r), rm->category[r], t,
			   payload_of(c, r, &len), true);
	c->btop[b] = c->below[sr];
	const char *data;
	int rc = pair_data(c, sr, r, &data);
	if (rc)
		return rc;
	/* the end's cause wins, as its payload keys do */
	return add2(c, sr, r, false, rm->start_ns[sr], e, row_name(c, r), rm->category[r], t, data,
		    false);
}

/* One raw row of thread t: a special type's own rule first (it may deal with the row). */
static int derive_row(struct ctx *c, uint32_t r, pv_thread_ix t)
{
	bool done = false;
	int rc;
	switch (row_type(c, r)) {
	case T_NETWORK: return network_row(c, r, t);
	case T_IPC: return ipc_row(c, r, t);
	case T_SCREENSHOT:
		if ((rc = screenshot_row(c, r, t, &done)) || done)
			return rc;
		break;
	default: break;
	}
	return phase_row(c, r, t);
}

/* An incomplete marker of a start never closed: it lasts to the thread's end. */
static int add_open(struct ctx *c, uint32_t r, pv_thread_ix t, const char *name, bool incomplete)
{
	const struct pv_raw_markers *rm = &c->p->markers;
	int64_t s = rm->start_ns[r];
	size_t len;
	return add(c, r, s, max64(c->tend, s), name, rm->category[r], t, payload_of(c, r, &len),
		   incomplete);
}

/* The rows still open at the thread's end: starts by name in the order names first opened,
 * oldest first; then Network starts; then the last screenshot of each window. */
static int close_open(struct ctx *c, pv_thread_ix t)
{
	int rc;
	for (uint32_t b = 0; b < c->nb; b++) {
		if (c->btop[b] == PV_NONE)
			continue;
		/* reverse the stack in place through below[]: oldest first */
		uint32_t prev = PV_NONE, r = c->btop[b];
		while (r != PV_NONE) {
			uint32_t nx = c->below[r];
			c->below[r] = prev;
			prev = r;
			r = nx;
		}
		for (r = prev; r != PV_NONE; r = c->below[r])
			if ((rc = add_open(c, r, t, row_name(c, r), true)))
				return rc;
	}
	for (uint32_t x = 0; x < c->net.n; x++)
		if (c->net.e[x].alive &&
		    (rc = add_open(c, c->net.e[x].val, t, row_name(c, c->net.e[x].val), true)))
			return rc;
	for (uint32_t x = 0; x < c->shots.n; x++)
		if (c->shots.e[x].alive &&
		    (rc = add_open(c, c->shots.e[x].val, t, "CompositorScreenshot", false)))
			return rc;
	return 0;
}

static int derive_thread(struct ctx *c, pv_thread_ix t, const uint32_t *rows, uint32_t n)
{
	struct pv_markers *ms = c->ms;
	int rc;
	thread_range(c, t, rows, n);
	ms->thread_start_ns[t] = c->tstart == INT64_MAX ? PV_TIME_NONE : c->tstart;
	ms->thread_end_ns[t] = c->tend == INT64_MIN ? PV_TIME_NONE : c->tend;
	if ((rc = names_init(c, n)))
		return rc;
	omap_reset(&c->net);
	omap_reset(&c->shots);
	for (uint32_t k = 0; k < n; k++)
		if ((rc = derive_row(c, rows[k], t)))
			return rc;
	if ((rc = close_open(c, t)))
		return rc;
	return derive_jank(c, t);
}

/* ---- IPC correlation ---- */

/* ---- thread names ---- */

pv_thread_ix thread_of_tid(const struct pv_profile *p, int64_t tid)
{
	for (pv_thread_ix x = p->threads.len; tid != PV_ID_NONE && x-- > 0;)
		if (p->threads.tid[x] == tid)
			return x;
	return PV_NONE;
}

/* The name of a GeckoMain thread's process type, NULL when it has none. */
static const char *process_type_name(const char *type)
{
	static const char *const names[][2] = {
	    {"default", "Parent Process"},  {"gpu", "GPU Process"},
	    {"rdd", "Remote Data Decoder"}, {"tab", "Content Process"},
	    {"plugin", "Plugin Process"},   {"socket", "Socket Process"},
	};
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (strcmp(type, names[k][0]) == 0)
			return names[k][1];
	return NULL;
}

/*
 * The Firefox Profiler's friendly name of every thread (getFriendlyThreadName), as far as the
 * model knows a thread (it has no eTLD+1): a GeckoMain thread is named after its process name,
 * else its process type ("Parent Process", "Content Process"...), numbered "(i/n)" among the
 * GeckoMain threads of the same process name, or of the type "tab", when there are several; any
 * other thread by its own name.
 */
static int friendly_names(struct ctx *c)
{
	const struct pv_profile *p = c->p;
	const struct pv_threads *th = &p->threads;
	struct pv_markers *ms = c->ms;
	uint32_t nt = th->len;
	ms->friendly = arena_alloc(ms->priv->arena, (nt ? nt : 1) * sizeof(*ms->friendly));
	if (!ms->friendly)
		return oom(c);
	for (pv_thread_ix t = 0; t < nt; t++) {
		const char *name = pv_str(p, th->name[t]);
		bool by_proc = *pv_str(p, th->process_name[t]);
		const char *type = pv_str(p, th->process_type[t]);
		const char *label =
		    by_proc ? pv_str(p, th->process_name[t]) : process_type_name(type);
		if (strcmp(name, "GeckoMain") != 0 || !label) {
			ms->friendly[t] = name;
			continue;
		}
		/* homonyms: the same process name, or (by type) the content processes */
		uint32_t index = 0, total = 0;
		for (pv_thread_ix x = 0; (by_proc || strcmp(type, "tab") == 0) && x < nt; x++) {
			if (strcmp(pv_str(p, th->name[x]), "GeckoMain") != 0 ||
			    (by_proc ? th->process_name[x] != th->process_name[t]
				     : strcmp(pv_str(p, th->process_type[x]), "tab") != 0))
				continue;
			total++;
			index += x <= t;
		}
		sbuf_reset(&c->t);
		sbuf_puts(&c->t, label);
		if (total > 1)
			sbuf_addf(&c->t, " (%u/%u)", index, total);
		ms->friendly[t] =
		    c->t.oom ? NULL : arena_strndup(ms->priv->arena, sbuf_str(&c->t), c->t.len);
		if (!ms->friendly[t])
			return oom(c);
	}
	return 0;
}

/* correlate_ipc's messages: each one's rows by slot (IPC_SLOTS), found by the message's key. */
#define IPC_SLOTS 5 /* sender endpoint, transfer start, transfer end (sent, received), receiver */
struct ipc_msgs {
	struct omap by_key;
	uint32_t (*slots)[IPC_SLOTS];
	uint32_t n, cap;
};

/* Marks the raw rows whose payload names a special type (c->special_row), for every pass. */
static int mark_special(struct ctx *c)
{
	const struct pv_raw_markers *rm = &c->p->markers;
	uint8_t *special = pv_calloc(rm->len ? rm->len : 1, 1);
	if (!special)
		return oom(c);
	for (uint32_t r = 0; r < rm->len; r++) {
		size_t n;
		const char *s = payload_of(c, r, &n);
		special[r] = s && maybe_special(c, rm->payload[r], s, n);
	}
	c->special_row = special;
	return 0;
}

/* The slot of the IPC payload in c->doc by its phase and direction, -1 for a phase refused. */
static int ipc_slot(struct ctx *c, bool sending)
{
	struct jdoc *d = &c->doc;
	uint32_t ph = jn_get(d, 0, "phase");
	if (ph == JN_NONE || jn_is(d, ph, "endpoint"))
		return sending ? 0 : 4;
	if (jn_is(d, ph, "transferStart") && sending)
		return 1;
	if (jn_is(d, ph, "transferEnd"))
		return sending ? 2 : 3;
	return -1; /* a phase the Firefox Profiler refuses */
}

/* The key of the IPC message in c->doc seen on thread t into c->key: sender pid, receiver pid,
 * sequence number, message type. */
static int ipc_key(struct ctx *c, pv_thread_ix t, bool sending)
{
	const struct pv_profile *p = c->p;
	struct jdoc *d = &c->doc;
	struct sbuf *k = &c->key;
	sbuf_reset(k);
	char pid[32] = "undefined";
	if (p->threads.pid[t] != PV_ID_NONE)
		snprintf(pid, sizeof(pid), "%lld", (long long)p->threads.pid[t]);
	if (!sending) {
		jn_js_string(d, jn_get(d, 0, "otherPid"), k);
		sbuf_put(k, ",", 1);
	}
	sbuf_puts(k, pid);
	if (sending) {
		sbuf_put(k, ",", 1);
		jn_js_string(d, jn_get(d, 0, "otherPid"), k);
	}
	sbuf_put(k, ",", 1);
	jn_js_string(d, jn_get(d, 0, "messageSeqno"), k);
	sbuf_put(k, ",", 1);
	jn_js_string(d, jn_get(d, 0, "messageType"), k);
	return k->oom ? oom(c) : 0;
}

/* Files raw row r under its IPC message (made when new), if it is an IPC row of a known tid. */
static int ipc_file_row(struct ctx *c, struct ipc_msgs *g, uint32_t r)
{
	const struct pv_profile *p = c->p;
	pv_thread_ix t = p->markers.thread[r];
	if (!c->special_row[r] || p->threads.tid[t] == PV_ID_NONE || row_type(c, r) != T_IPC)
		return 0;
	bool sending = jn_is(&c->doc, jn_get(&c->doc, 0, "direction"), "sending");
	int idx = ipc_slot(c, sending), rc;
	if (idx < 0)
		return 0;
	if ((rc = ipc_key(c, t, sending)))
		return rc;
	struct sbuf *k = &c->key;
	uint32_t m = omap_get(&g->by_key, sbuf_str(k), k->len);
	if (m == UINT32_MAX) {
		if (g->n == g->cap) {
			uint32_t nc = grow_cap(g->cap, (uint64_t)g->n + 1);
			if (!nc || col_realloc((void **)&g->slots, sizeof(*g->slots), nc))
				return oom(c);
			g->cap = nc;
		}
		m = g->n++;
		for (int s = 0; s < IPC_SLOTS; s++)
			g->slots[m][s] = PV_NONE;
		if (omap_set(&g->by_key, sbuf_str(k), k->len, m))
			return oom(c);
	}
	if (g->slots[m][idx] == PV_NONE) /* the first of duplicates wins */
		g->slots[m][idx] = r;
	return 0;
}

/* The shared times of a message: each slot's startTime, PV_TIME_NONE when it has none. */
static void ipc_times(struct ctx *c, const uint32_t *slots, struct ipc_shared *sh)
{
	int64_t times[IPC_SLOTS];
	for (int s = 0; s < IPC_SLOTS; s++) {
		times[s] = PV_TIME_NONE;
		uint32_t r = slots[s];
		size_t n;
		const char *txt = r == PV_NONE ? NULL : payload_of(c, r, &n);
		if (!txt || jdoc_parse(&c->doc, txt, n, NULL))
			continue;
		uint32_t st = jn_get(&c->doc, 0, "startTime");
		if (st == JN_NONE || c->doc.n[st].kind != JSON_NUMBER)
			continue;
		size_t sl;
		const char *stext = jn_str(&c->doc, st, &sl);
		if (!ms_text_to_ns(stext, sl, &times[s]))
			times[s] = PV_TIME_NONE;
	}
	sh->start = times[0];
	sh->send_start = times[1];
	sh->send_end = times[2];
	sh->recv_end = times[3];
	sh->end = times[4];
}

/* The sender's and receiver's tids and names of a message (from its endpoints). */
static int ipc_ends(struct ctx *c, const uint32_t *slots, struct ipc_shared *sh)
{
	const struct pv_profile *p = c->p;
	const struct pv_raw_markers *rm = &p->markers;
	uint32_t sr = slots[0], rr = slots[4];
	sh->send_tid = sr == PV_NONE ? PV_ID_NONE : p->threads.tid[rm->thread[sr]];
	sh->recv_tid = rr == PV_NONE ? PV_ID_NONE : p->threads.tid[rm->thread[rr]];
	for (int k = 0; k < 2; k++) {
		uint32_t r = k ? rr : sr;
		if (r == PV_NONE)
			continue;
		/* "Name (Thread ID: tid)", the name of the last thread with that tid (a map from
		 * tids to names filled in thread order) */
		int64_t tid = p->threads.tid[rm->thread[r]];
		sbuf_reset(&c->t);
		sbuf_puts(&c->t, c->ms->friendly[thread_of_tid(p, tid)]);
		sbuf_addf(&c->t, " (Thread ID: %lld)", (long long)tid);
		const char *s =
		    c->t.oom ? NULL : arena_strndup(c->ms->priv->arena, sbuf_str(&c->t), c->t.len);
		if (!s)
			return oom(c);
		if (k)
			sh->recv_name = s;
		else
			sh->send_name = s;
	}
	return 0;
}

/* The rows that show message m: both endpoints when there are both, else one row per thread. */
static void ipc_owners(struct ctx *c, const uint32_t *slots, uint32_t m)
{
	const struct pv_profile *p = c->p;
	const struct pv_raw_markers *rm = &p->markers;
	int64_t added[IPC_SLOTS];
	int nadded = 0;
	for (int s = 0; s < IPC_SLOTS; s += 4) {
		if (slots[s] != PV_NONE) {
			c->ipc_of[slots[s]] = m;
			added[nadded++] = p->threads.tid[rm->thread[slots[s]]];
		}
	}
	if (slots[0] != PV_NONE && slots[4] != PV_NONE)
		return;
	for (int s = 1; s < 4; s++) {
		uint32_t r = slots[s];
		if (r == PV_NONE)
			continue;
		int64_t tid = p->threads.tid[rm->thread[r]];
		bool seen = false;
		for (int a = 0; a < nadded; a++)
			seen |= added[a] == tid;
		if (!seen) {
			c->ipc_of[r] = m;
			added[nadded++] = tid;
		}
	}
}

/*
 * The IPC messages: the rows of one message (on the sender's and the receiver's threads) are
 * matched by key, their shared data put in c->ipc, and c->ipc_of names the rows that show each.
 */
static int correlate_ipc(struct ctx *c)
{
	const struct pv_raw_markers *rm = &c->p->markers;
	struct ipc_msgs g = {0};
	int rc = mark_special(c);
	for (uint32_t r = 0; r < rm->len && !rc; r++)
		rc = ipc_file_row(c, &g, r);
	if (!rc && g.n) {
		c->ipc_of = pv_malloc((size_t)rm->len * sizeof(*c->ipc_of));
		c->ipc = pv_calloc(g.n, sizeof(*c->ipc));
		if (!c->ipc_of || !c->ipc)
			rc = oom(c);
		else
			memset(c->ipc_of, 0xff, (size_t)rm->len * sizeof(*c->ipc_of));
		c->nr_ipc = g.n;
	}
	for (uint32_t m = 0; m < g.n && !rc; m++) {
		ipc_times(c, g.slots[m], &c->ipc[m]);
		if (!(rc = ipc_ends(c, g.slots[m], &c->ipc[m])))
			ipc_owners(c, g.slots[m], m);
	}
	pv_free(g.slots);
	omap_release(&g.by_key);
	return rc;
}

/* ---- sort ---- */

/* A stable LSD radix sort of the markers by start, 16 bits a pass over the bits that differ. */
static int sort_by_start(struct ctx *c)
{
	struct pv_markers *ms = c->ms;
	uint32_t n = ms->len;
	if (n < 2)
		return 0;
	uint64_t lo = UINT64_MAX, hi = 0;
	bool sorted = true;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t k = (uint64_t)ms->start_ns[i] ^ (1ull << 63);
		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
		sorted &= i == 0 || ms->start_ns[i - 1] <= ms->start_ns[i];
	}
	if (sorted)
		return 0;
	uint32_t *a = pv_malloc((size_t)n * sizeof(*a)), *b = pv_malloc((size_t)n * sizeof(*b));
	uint32_t *cnt = pv_malloc(65536 * sizeof(*cnt));
	if (!a || !b || !cnt) {
		pv_free(a);
		pv_free(b);
		pv_free(cnt);
		return oom(c);
	}
	for (uint32_t i = 0; i < n; i++)
		a[i] = i;
	uint64_t range = hi - lo;
	for (int shift = 0; shift < 64 && (range >> shift); shift += 16) {
		memset(cnt, 0, 65536 * sizeof(*cnt));
		for (uint32_t i = 0; i < n; i++)
			cnt[((((uint64_t)ms->start_ns[a[i]] ^ (1ull << 63)) - lo) >> shift) &
			    0xffff]++;
		uint32_t sum = 0;
		for (uint32_t d = 0; d < 65536; d++) {
			uint32_t x = cnt[d];
			cnt[d] = sum;
			sum += x;
		}
		for (uint32_t i = 0; i < n; i++) {
			uint32_t d =
			    (uint32_t)(((((uint64_t)ms->start_ns[a[i]] ^ (1ull << 63)) - lo) >>
					shift) &
				       0xffff);
			b[cnt[d]++] = a[i];
		}
		uint32_t *x = a;
		a = b;
		b = x;
	}
	pv_free(cnt);
	/* permute every column through one scratch buffer of the widest element */
	void *tmp = pv_malloc((size_t)n * 2 * sizeof(uint32_t));
	if (!tmp) {
		pv_free(a);
		pv_free(b);
		return oom(c);
	}
#define PERMUTE(col, type)                                   \
	do {                                                 \
		type *t_ = tmp;                              \
		for (uint32_t i = 0; i < n; i++)             \
			t_[i] = (col)[a[i]];                 \
		memcpy((col), t_, (size_t)n * sizeof(type)); \
	} while (0)
	PERMUTE(ms->start_ns, int64_t);
	PERMUTE(ms->end_ns, int64_t);
	PERMUTE(ms->name, const char *);
	PERMUTE(ms->category, pv_cat_ix);
	PERMUTE(ms->thread, pv_thread_ix);
	PERMUTE(ms->flags, uint8_t);
	PERMUTE(ms->data, const char *);
	PERMUTE(ms->cause_stack, pv_stack_ix);
	PERMUTE(ms->cause_time_ns, int64_t);
	PERMUTE((uint64_t *)(void *)ms->raw, uint64_t);
#undef PERMUTE
	pv_free(tmp);
	pv_free(a);
	pv_free(b);
	return 0;
}

/* ---- the set ---- */

void pv_markers_free(struct pv_markers *ms)
{
	if (!ms)
		return;
	pv_free(ms->start_ns);
	pv_free(ms->end_ns);
	pv_free(ms->name);
	pv_free(ms->category);
	pv_free(ms->thread);
	pv_free(ms->flags);
	pv_free(ms->raw);
	pv_free(ms->data);
	pv_free(ms->cause_stack);
	pv_free(ms->cause_time_ns);
	pv_free(ms->thread_start_ns);
	pv_free(ms->thread_end_ns);
	pv_free(ms->schemas);
	for (uint32_t i = 0; i < ms->nr_notes; i++)
		pv_free(ms->notes[i]);
	pv_free(ms->notes);
	arena_free(ms->priv->arena);
	pv_free(ms);
}

int pv_markers_derive(const struct pv_profile *p, struct pv_markers **out, struct pv_error *err)
{
	struct pv_markers *ms = markers_alloc();
	if (!ms)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	struct ctx c = {.p = p, .ms = ms, .err = err};
	const struct pv_raw_markers *rm = &p->markers;
	uint32_t nt = p->threads.len;
	uint32_t *order = NULL, *first = NULL;
	int rc = 0;
	ms->p = p;
	ms->priv->arena = arena_new();
	ms->thread_start_ns = pv_malloc((nt ? nt : 1) * sizeof(int64_t));
	ms->thread_end_ns = pv_malloc((nt ? nt : 1) * sizeof(int64_t));
	c.below = pv_malloc((rm->len ? rm->len : 1) * sizeof(*c.below));
	order = pv_malloc((rm->len ? rm->len : 1) * sizeof(*order));
	first = pv_calloc((size_t)nt + 1, sizeof(*first));
	if (!ms->priv->arena || !ms->thread_start_ns || !ms->thread_end_ns || !c.below || !order ||
	    !first) {
		rc = oom(&c);
		goto done;
	}
	c.jank_cat = PV_NONE;
	for (pv_cat_ix k = p->categories.len; k-- > 0;)
		if (strcmp(pv_str(p, p->categories.color[k]), "grey") == 0)
			c.jank_cat = k;
	if ((rc = schemas_load(ms, err)) || (rc = friendly_names(&c)) || (rc = correlate_ipc(&c)))
		goto done;
	/* raw rows grouped by thread, raw order kept (a counting sort) */
	for (uint32_t r = 0; r < rm->len; r++)
		first[rm->thread[r] + 1]++;
	for (uint32_t t = 0; t < nt; t++)
		first[t + 1] += first[t];
	for (uint32_t r = 0; r < rm->len; r++)
		order[first[rm->thread[r]]++] = r;
	for (uint32_t t = nt; t > 0; t--)
		first[t] = first[t - 1];
	first[0] = 0;
	for (uint32_t t = 0; t < nt && !rc; t++)
		rc = derive_thread(&c, t, order + first[t], first[t + 1] - first[t]);
	if (!rc)
		rc = sort_by_start(&c);
	if (!rc && c.no_time)
		markers_note(ms, "%llu raw markers lack the time their phase needs (left out)",
			     (unsigned long long)c.no_time);
done:
	jdoc_release(&c.doc);
	jdoc_release(&c.doc2);
	sbuf_release(&c.t);
	sbuf_release(&c.key);
	pv_free(c.below);
	pv_free(c.nslot_key);
	pv_free(c.nslot_val);
	pv_free(c.btop);
	pv_free(c.mk);
	pv_free(c.slot);
	omap_release(&c.net);
	omap_release(&c.shots);
	pv_free(c.ipc_of);
	pv_free(c.ipc);
	pv_free(c.special_row);
	pv_free(order);
	pv_free(first);
	if (rc) {
		pv_markers_free(ms);
		return rc;
	}
	*out = ms;
	return 0;
}

/* ---- cause stacks ---- */

uint32_t pv_marker_cause(const struct pv_markers *ms, uint32_t i, const char **names, uint32_t cap)
{
	const struct pv_profile *p = ms->p;
	uint32_t n = 0;
	for (pv_stack_ix s = ms->cause_stack[i]; s != PV_NONE && s < p->stacks.len;
	     s = p->stacks.prefix[s]) {
		if (names && n < cap)
			names[n] = pv_str(p, p->funcs.name[p->frames.func[p->stacks.frame[s]]]);
		n++;
	}
	return n;
}

int pv_marker_cause_scope(const struct pv_markers *ms, uint32_t i, struct sbuf *out)
{
	const struct pv_profile *p = ms->p;
	uint32_t n = pv_marker_cause(ms, i, NULL, 0);
	sbuf_reset(out);
	if (!n)
		return 0;
	pv_stack_ix *chain = pv_malloc(sizeof(*chain) * n);
	if (!chain)
		return PV_ENOMEM;
	struct pv_scope_names *sn = NULL;
	if (pv_scope_names_new(p, &sn)) {
		pv_free(chain);
		return PV_ENOMEM;
	}
	uint32_t k = 0;
	for (pv_stack_ix s = ms->cause_stack[i]; s != PV_NONE && s < p->stacks.len && k < n;
	     s = p->stacks.prefix[s])
		chain[k++] = s;
	sbuf_puts(out, "path:");
	while (k-- > 0 && !out->oom) { /* the chain lists the leaf first */
		/* each step names its function alone (two of one name in two modules) */
		pv_func_ix f = p->frames.func[p->stacks.frame[chain[k]]];
		size_t len = pv_func_scope(sn, f, NULL, 0);
		if (!sbuf_grow(out, len + 1)) {
			pv_func_scope(sn, f, out->buf + out->len, len + 1);
			sbuf_setlen(out, out->len + len);
		}
		if (k)
			sbuf_put(out, ";", 1);
	}
	pv_scope_names_free(sn);
	pv_free(chain);
	return out->oom ? PV_ENOMEM : 1;
}

/* ---- per-name summary ---- */

/* Summary rows by total, count, ... (ctx: the rows). */
static int cmp_sum(const void *a, const void *b, void *ctx)
{
	const struct pv_marker_summary_row *sum_rows = ctx;
	const struct pv_marker_summary_row *x = &sum_rows[*(const uint32_t *)a],
					   *y = &sum_rows[*(const uint32_t *)b];
	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

int pv_marker_summary(const struct pv_markers *ms, const uint8_t *keep,
		      struct pv_marker_summary_row **rows_out, uint32_t *nr_out)
{
	/* names are interned strings or static text: one name, one pointer */
	uint32_t n = ms->len, cap = 64, ng = 0;
	while (cap < 2 * (uint64_t)n && cap < (1u << 31))
		cap *= 2;
	const char **key = pv_calloc(cap, sizeof(*key));
	uint32_t *val = pv_malloc((size_t)cap * sizeof(*val));
	uint32_t *group = pv_malloc((n ? n : 1) * sizeof(*group));
	struct pv_marker_summary_row *rows = pv_calloc(n ? n : 1, sizeof(*rows));
	uint32_t *off = NULL, *perm = NULL;
	int64_t *dur = NULL;
	int rc = PV_ENOMEM;
	if (!key || !val || !group || !rows)
		goto done;
	for (uint32_t i = 0; i < n; i++) {
		group[i] = UINT32_MAX;
		if (keep && !keep[i])
			continue;
		uint32_t h = (uint32_t)hash_u64((uint64_t)(uintptr_t)ms->name[i]) & (cap - 1);
		while (key[h] && key[h] != ms->name[i])
			h = (h + 1) & (cap - 1);
		if (!key[h]) {
			key[h] = ms->name[i];
			val[h] = ng;
			rows[ng].name = ms->name[i];
			rows[ng].min_ns = INT64_MAX;
			ng++;
		}
		struct pv_marker_summary_row *r = &rows[val[h]];
		group[i] = val[h];
		r->count++;
		if (ms->end_ns[i] == PV_TIME_NONE) {
			r->instant++;
			group[i] = UINT32_MAX;
		} else if (ms->flags[i] & PV_MARKER_INCOMPLETE) {
			r->incomplete++;
			group[i] = UINT32_MAX;
		} else {
			int64_t d = pv_marker_duration(ms, i);
			r->timed++;
			/* saturated both ways: a damaged file's marker may end before it starts */
			r->total_ns = pv_time_add(r->total_ns, d);
			r->min_ns = d < r->min_ns ? d : r->min_ns;
			r->max_ns = d > r->max_ns ? d : r->max_ns;
		}
	}
	/* durations grouped by name (a counting sort), then each group's median */
	off = pv_calloc((size_t)ng + 1, sizeof(*off));
	dur = pv_malloc((n ? n : 1) * sizeof(*dur));
	perm = pv_malloc((ng ? ng : 1) * sizeof(*perm));
	if (!off || !dur || !perm)
		goto done;
	for (uint32_t g = 0; g < ng; g++)
		off[g + 1] = off[g] + (uint32_t)rows[g].timed;
	for (uint32_t i = 0; i < n; i++)
		if (group[i] != UINT32_MAX)
			dur[off[group[i]]++] = pv_marker_duration(ms, i);
	for (uint32_t g = ng; g > 0; g--)
		off[g] = off[g - 1];
	off[0] = 0;
	for (uint32_t g = 0; g < ng; g++) {
		struct pv_marker_summary_row *r = &rows[g];
		uint32_t t = (uint32_t)r->timed;
		if (!t) {
			r->min_ns = 0;
			continue;
		}
		int64_t *v = dur + off[g];
		int64_t hi = pv_select_i64(v, t, t / 2);
		if (t % 2) {
			r->median_ns = hi;
		} else {
			int64_t lo = pv_select_i64(v, t / 2, t / 2 - 1); /* the largest below */
			/* the mean without overflow (durations of damaged files reach the int64
			 * ends) */
			r->median_ns = lo / 2 + hi / 2 + (lo % 2 + hi % 2) / 2;
		}
	}
	for (uint32_t g = 0; g < ng; g++)
		perm[g] = g;
	pv_sort_r(perm, ng, sizeof(*perm), cmp_sum, rows);
	struct pv_marker_summary_row *sorted = pv_malloc((ng ? ng : 1) * sizeof(*sorted));
	if (!sorted)
		goto done;
	for (uint32_t g = 0; g < ng; g++)
		sorted[g] = rows[perm[g]];
	*rows_out = sorted;
	*nr_out = ng;
	rc = 0;
done:
	pv_free(key);
	pv_free(val);
	pv_free(group);
	pv_free(rows);
	pv_free(off);
	pv_free(dur);
	pv_free(perm);
	return rc;
}

void pv_marker_summary_free(struct pv_marker_summary_row *rows)
{
	pv_free(rows);
}

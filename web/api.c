/*
 * api.c - the JSON API of `profview serve` (doc/api.md): the state (slots, view cache), the
 * request parameters, the dispatch, and the status, profile and marker endpoints.
 *
 * Every answer is computed and written by the library (pv_profile_info, pv_marker_select,
 * pv_marker_chart, pv_activity_build, ... and their pv_json_* writers), so the page and the
 * CLI's --json agree. A handler writes its body through a memory JSON writer; on an error,
 * api_error() replaces whatever the handler had written by {"error": "..."}.
 */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "pv/source.h"
#include "pv/trace.h"

#define JSON_TYPE "application/json; charset=utf-8"

int api_written(struct pv_json *out, int rc)
{
	return rc ? api_error(out, 500, "out of memory") : 200;
}

int api_error(struct pv_json *out, int status, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (char *c = msg; *c; c++) /* one line */
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	pv_json_reset(out);
	pv_json_object(out);
	pv_json_kstr(out, "error", msg);
	pv_json_end(out);
	return status;
}

int api_lib_error(struct pv_json *out, int rc, const struct pv_error *err, int bad)
{
	if (rc == PV_ENOMEM)
		return api_error(out, 500, "out of memory");
	return api_error(out, bad, "%s", err->msg);
}

/* ---- parameters ---- */

void api_params_free(struct api_params *ps)
{
	for (uint32_t i = 0; i < ps->len; i++) {
		free(ps->key[i]);
		free(ps->value[i]);
	}
	ps->len = 0;
}

int api_params_parse(struct api_params *ps, const char *q)
{
	ps->len = 0;
	if (!q)
		return 0;
	if (*q == '?')
		q++;
	while (*q) {
		size_t n = strcspn(q, "&");
		if (n) {
			if (ps->len == API_MAX_PARAMS) {
				api_params_free(ps);
				return PV_ELIMIT;
			}
			const char *eq = memchr(q, '=', n);
			size_t kl = eq ? (size_t)(eq - q) : n;
			bool bk, bv;
			char *k = pv_url_decode(q, kl, &bk);
			char *v =
			    eq ? pv_url_decode(eq + 1, n - kl - 1, &bv) : (bv = false, strdup(""));
			if (!k || !v) {
				free(k);
				free(v);
				api_params_free(ps);
				return bk || bv ? PV_EPARSE : PV_ENOMEM;
			}
			ps->key[ps->len] = k;
			ps->value[ps->len] = v;
			ps->len++;
		}
		q += n + (q[n] == '&');
	}
	return 0;
}

const char *api_param(const struct api_params *ps, const char *key)
{
	for (uint32_t i = 0; i < ps->len; i++)
		if (strcmp(ps->key[i], key) == 0)
			return ps->value[i];
	return NULL;
}

uint32_t api_param_all(const struct api_params *ps, const char *key, const char **out, uint32_t cap)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < ps->len; i++) {
		if (strcmp(ps->key[i], key) != 0)
			continue;
		if (n < cap)
			out[n] = ps->value[i];
		n++;
	}
	return n;
}

bool api_param_u32(const struct api_params *ps, const char *key, uint32_t def, uint32_t *out,
		   struct pv_json *out_json, int *status)
{
	const char *v = api_param(ps, key);
	*out = def;
	if (!v)
		return true;
	char *end;
	unsigned long long x = v[0] >= '0' && v[0] <= '9' ? strtoull(v, &end, 10) : 0;
	if (!(v[0] >= '0' && v[0] <= '9') || *end || x > UINT32_MAX) {
		*status = api_error(out_json, 400, "%s takes a count, not '%.200s'", key, v);
		return false;
	}
	*out = (uint32_t)x;
	return true;
}

bool api_param_i64(const struct api_params *ps, const char *key, int64_t def, int64_t *out,
		   struct pv_json *out_json, int *status)
{
	const char *v = api_param(ps, key);
	*out = def;
	if (!v)
		return true;
	char *end;
	bool digit = (v[0] >= '0' && v[0] <= '9') || (v[0] == '-' && v[1] >= '0' && v[1] <= '9');
	long long x = digit ? strtoll(v, &end, 10) : 0;
	if (!digit || *end || x == LLONG_MAX || x == LLONG_MIN) {
		*status = api_error(out_json, 400, "%s takes an integer, not '%.200s'", key, v);
		return false;
	}
	*out = x;
	return true;
}

/* A time in ms (a decimal number) as ns; *has false when absent. */
static bool param_ms(const struct api_params *ps, const char *key, bool *has, int64_t *ns,
		     struct pv_json *out, int *status)
{
	const char *v = api_param(ps, key);
	*has = v != NULL;
	if (!v)
		return true;
	char *end;
	double x = *v ? strtod(v, &end) : NAN;
	/* within ±10^12 ms (31 years) of the profile's zero: any difference of two fits in ns */
	if (!*v || *end || !isfinite(x) || fabs(x) > 1e12) {
		*status = api_error(out, 400,
				    "%s takes a time in ms within ±1e12 of the profile's zero, not "
				    "'%.200s'",
				    key, v);
		return false;
	}
	*ns = (int64_t)llround(x * 1e6);
	return true;
}

/* the API's own parameters, not part of the query */
static const char *const own_params[] = {
    "p", "open", "key", "offset", "limit", "i", "start", "end", "buckets", "width", "search",
    "file", "max-nodes", "tab", "sel", "heaviest", "hot", "hot-percent", "text", "prune", "first",
    /* contexts (api_contexts.c) */
    "scope", "value", "order", "from", "to", "bins", "t0", "t1", "c0", "c1", "height", "context",
    "at", "min", "compact", /* web/api_trace.c */
    "diff", "normalize",    /* the difference against the base (api_view.c) */
    "line",		    /* disasm (api_view.c) */
};

static bool own_param(const char *k)
{
	for (size_t i = 0; i < sizeof(own_params) / sizeof(own_params[0]); i++)
		if (strcmp(own_params[i], k) == 0)
			return true;
	return false;
}

int api_query(const struct api_params *ps, struct pv_query *q, struct pv_json *out)
{
	struct pv_error err;
	pv_error_clear(&err);
	int rc = pv_query_from_params(q, (const char *const *)ps->key,
				      (const char *const *)ps->value, ps->len, own_param, &err);
	if (rc) {
		pv_query_init(q);
		return api_lib_error(out, rc, &err, 400);
	}
	return 0;
}

/* ---- state ---- */

int pv_api_new(struct pv_api **out, const char *source_root)
{
	struct pv_api *a = calloc(1, sizeof(*a));
	if (!a)
		return PV_ENOMEM;
	if (source_root && !(a->source_root = strdup(source_root))) {
		free(a);
		return PV_ENOMEM;
	}
	pthread_mutex_init(&a->lock, NULL);
	a->base_slot = PV_NONE;
	*out = a;
	return 0;
}

void pv_api_set_base(struct pv_api *a, uint32_t slot)
{
	a->base_slot = slot;
}

void pv_api_stop(struct pv_api *a)
{
	atomic_store(&a->stop, 1);
}

void pv_api_free(struct pv_api *a)
{
	if (!a)
		return;
	for (uint32_t i = 0; i < API_VIEW_CACHE; i++) {
		if (a->cache[i].obj)
			a->cache[i].free_obj(a->cache[i].obj);
		free(a->cache[i].key);
	}
	for (uint32_t i = 0; i < a->nr_slots; i++) {
		struct api_slot *s = a->slots[i];
		pv_markers_free(s->markers);
		pv_trace_free(s->trace);
		pv_profile_free(s->p);
		free(s->path);
		free(s->error);
		free(s);
	}
	free(a->slots);
	free(a->source_root);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

uint32_t pv_api_add_file(struct pv_api *a, const char *path)
{
	struct api_slot *s = calloc(1, sizeof(*s));
	char *dup = strdup(path ? path : "");
	if (!s || !dup) {
		free(s);
		free(dup);
		return PV_NONE;
	}
	s->path = dup;
	atomic_init(&s->state, API_LOADING);
	pthread_mutex_lock(&a->lock);
	if (a->nr_slots == a->cap_slots) {
		uint32_t cap = a->cap_slots ? a->cap_slots * 2 : 4;
		struct api_slot **v = realloc(a->slots, cap * sizeof(*v));
		if (!v) {
			pthread_mutex_unlock(&a->lock);
			free(s->path);
			free(s);
			return PV_NONE;
		}
		a->slots = v;
		a->cap_slots = cap;
	}
	uint32_t ix = a->nr_slots;
	a->slots[a->nr_slots++] = s;
	pthread_mutex_unlock(&a->lock);
	return ix;
}

static struct api_slot *slot_at(struct pv_api *a, uint32_t ix)
{
	pthread_mutex_lock(&a->lock);
	struct api_slot *s = ix < a->nr_slots ? a->slots[ix] : NULL;
	pthread_mutex_unlock(&a->lock);
	return s;
}

struct pv_progress *pv_api_progress(struct pv_api *a, uint32_t slot)
{
	struct api_slot *s = slot_at(a, slot);
	return s ? &s->progress : NULL;
}

void pv_api_set_loaded(struct pv_api *a, uint32_t slot, struct pv_profile *p,
		       const struct pv_error *err)
{
	struct api_slot *s = slot_at(a, slot);
	if (!s) {
		pv_profile_free(p);
		return;
	}
	if (p) {
		s->p = p;
		atomic_store(&s->progress.phase, PV_PROGRESS_DONE);
		atomic_store(&s->state, API_READY);
	} else {
		s->error = strdup(err && err->msg[0] ? err->msg : "cannot load the profile");
		atomic_store(&s->state, API_FAILED);
	}
}

uint32_t pv_api_add_profile(struct pv_api *a, const char *path, struct pv_profile *p)
{
	uint32_t ix = pv_api_add_file(a, path);
	if (ix == PV_NONE) {
		pv_profile_free(p);
		return PV_NONE;
	}
	pv_api_set_loaded(a, ix, p, NULL);
	return ix;
}

static const char *phase_name(int ph)
{
	static const char *const names[] = {"reading", "parsing", "finishing", "done"};
	return ph >= 0 && ph <= PV_PROGRESS_DONE ? names[ph] : "reading";
}

/* the "p" of a request api_slot() accepted */
uint32_t api_slot_index(const struct api_params *ps)
{
	const char *v = api_param(ps, "p");
	return v ? (uint32_t)strtoul(v, NULL, 10) : 0;
}

struct api_slot *api_slot(struct pv_api *a, const struct api_params *ps, struct pv_json *out,
			  int *status)
{
	const char *v = api_param(ps, "p");
	uint32_t ix = 0;
	if (v) {
		char *end;
		unsigned long long x = v[0] >= '0' && v[0] <= '9' ? strtoull(v, &end, 10) : 0;
		if (!(v[0] >= '0' && v[0] <= '9') || *end || x >= UINT32_MAX) {
			*status = api_error(out, 404, "no profile '%.100s'", v);
			return NULL;
		}
		ix = (uint32_t)x;
	}
	return api_slot_ready(a, ix, out, status);
}

struct api_slot *api_slot_ready(struct pv_api *a, uint32_t ix, struct pv_json *out, int *status)
{
	struct api_slot *s = slot_at(a, ix);
	if (!s) {
		*status = api_error(out, 404, "no profile %u", ix);
		return NULL;
	}
	switch (atomic_load(&s->state)) {
	case API_READY: return s;
	case API_FAILED:
		*status = api_error(out, 500, "%s", s->error ? s->error : "out of memory");
		return NULL;
	default:
		pv_json_reset(out);
		pv_json_object(out);
		pv_json_kstr(out, "error", "loading");
		pv_json_kstr(out, "path", s->path);
		pv_json_kstr(out, "phase", phase_name(atomic_load(&s->progress.phase)));
		pv_json_kuint(out, "done", atomic_load(&s->progress.done));
		pv_json_kuint(out, "total", atomic_load(&s->progress.total));
		pv_json_end(out);
		*status = 503;
		return NULL;
	}
}

const struct pv_markers *api_markers(struct pv_api *a, struct api_slot *s, struct pv_json *out,
				     int *status)
{
	pthread_mutex_lock(&a->lock);
	struct pv_markers *ms = s->markers;
	pthread_mutex_unlock(&a->lock);
	if (ms)
		return ms;
	/* derived without the lock (a big profile takes a while); the first one in is kept */
	struct pv_error err;
	pv_error_clear(&err);
	int rc = pv_markers_derive(s->p, &ms, &err);
	if (rc) {
		if (out)
			*status = api_lib_error(out, rc, &err, 500);
		return NULL;
	}
	pthread_mutex_lock(&a->lock);
	if (s->markers) {
		pv_markers_free(ms);
		ms = s->markers;
	} else {
		s->markers = ms;
	}
	pthread_mutex_unlock(&a->lock);
	return ms;
}

/* ---- the cache of computed answers (views, trace paints) ---- */

static void view_free_obj(void *v)
{
	pv_view_free(v);
}

void *api_cache_take(struct pv_api *a, uint32_t slot, const char *key)
{
	pthread_mutex_lock(&a->lock);
	for (uint32_t i = 0; i < API_VIEW_CACHE; i++) {
		struct api_cached_view *c = &a->cache[i];
		if (c->obj && c->slot == slot && strcmp(c->key, key) == 0) {
			c->refs++;
			c->used = ++a->clock;
			void *obj = c->obj;
			pthread_mutex_unlock(&a->lock);
			return obj;
		}
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

void *api_cache_keep(struct pv_api *a, uint32_t slot, char *key, void *obj,
		     void (*free_obj)(void *))
{
	pthread_mutex_lock(&a->lock);
	struct api_cached_view *victim = NULL;
	for (uint32_t i = 0; i < API_VIEW_CACHE; i++) {
		struct api_cached_view *c = &a->cache[i];
		if (c->obj && c->slot == slot && strcmp(c->key, key) == 0) {
			/* another request computed it meanwhile: use that one */
			c->refs++;
			c->used = ++a->clock;
			void *w = c->obj;
			pthread_mutex_unlock(&a->lock);
			free(key);
			free_obj(obj);
			return w;
		}
		if (!c->obj) {
			if (!victim || victim->obj)
				victim = c;
		} else if (c->refs == 0 && (!victim || (victim->obj && c->used < victim->used))) {
			victim = c;
		}
	}
	if (victim) {
		void *old = victim->obj;
		void (*old_free)(void *) = victim->free_obj;
		char *oldkey = victim->key;
		victim->slot = slot;
		victim->key = key;
		victim->obj = obj;
		victim->free_obj = free_obj;
		victim->refs = 1;
		victim->used = ++a->clock;
		pthread_mutex_unlock(&a->lock);
		if (old)
			old_free(old);
		free(oldkey);
	} else {
		/* every entry is in use: this one lives for this request only */
		pthread_mutex_unlock(&a->lock);
		free(key);
	}
	return obj;
}

void api_cache_release(struct pv_api *a, void *obj, void (*free_obj)(void *))
{
	if (!obj)
		return;
	pthread_mutex_lock(&a->lock);
	for (uint32_t i = 0; i < API_VIEW_CACHE; i++) {
		if (a->cache[i].obj == obj) {
			if (a->cache[i].refs)
				a->cache[i].refs--;
			pthread_mutex_unlock(&a->lock);
			return;
		}
	}
	pthread_mutex_unlock(&a->lock);
	free_obj(obj);
}

struct pv_view *api_view_get(struct pv_api *a, uint32_t slot, const struct pv_query *q,
			     struct pv_json *out, int *status)
{
	struct api_slot *s = slot_at(a, slot);
	if (!s || atomic_load(&s->state) != API_READY) {
		*status = api_error(out, 404, "no profile %u", slot);
		return NULL;
	}
	char *key = pv_query_to_url(q);
	if (!key) {
		*status = api_error(out, 500, "out of memory");
		return NULL;
	}
	struct pv_view *v = api_cache_take(a, slot, key);
	if (v) {
		free(key);
		return v;
	}
	/* computed without the lock: two requests for the same new key may both compute */
	struct pv_error err;
	pv_error_clear(&err);
	int rc = pv_view_compute(s->p, q, &v, &err);
	if (rc) {
		free(key);
		*status = api_lib_error(out, rc, &err, 400);
		return NULL;
	}
	return api_cache_keep(a, slot, key, v, view_free_obj);
}

void api_view_release(struct pv_api *a, struct pv_view *v)
{
	api_cache_release(a, v, view_free_obj);
}

/* ---- status and profile ---- */

int api_status(struct pv_api *a, const struct api_params *ps, struct pv_json *out)
{
	(void)ps;
	pthread_mutex_lock(&a->lock);
	uint32_t n = a->nr_slots;
	struct api_slot **slots = malloc((n ? n : 1) * sizeof(*slots));
	if (slots && n)
		memcpy(slots, a->slots, n * sizeof(*slots));
	pthread_mutex_unlock(&a->lock);
	int *states = malloc((n ? n : 1) * sizeof(*states));
	if (!slots || !states) {
		free(slots);
		free(states);
		return api_error(out, 500, "out of memory");
	}
	int st[3] = {0};
	for (uint32_t i = 0; i < n; i++) {
		states[i] = atomic_load(&slots[i]->state);
		st[states[i] < 3 && states[i] >= 0 ? states[i] : 0]++;
	}
	static const char *const names[] = {"loading", "ready", "failed"};
	pv_json_object(out);
	pv_json_kstr(out, "state",
		     st[API_FAILED]    ? "failed"
		     : st[API_LOADING] ? "loading"
				       : "ready");
	pv_json_key(out, "files");
	pv_json_open(out, '[', PV_JSON_LINES, 2);
	for (uint32_t i = 0; i < n; i++) {
		struct api_slot *s = slots[i];
		int ph =
		    states[i] == API_READY ? PV_PROGRESS_DONE : atomic_load(&s->progress.phase);
		pv_json_object(out);
		pv_json_kstr(out, "path", s->path);
		pv_json_kstr(out, "state", names[states[i]]);
		pv_json_kstr(out, "phase", phase_name(ph));
		pv_json_kuint(out, "done", atomic_load(&s->progress.done));
		pv_json_kuint(out, "total", atomic_load(&s->progress.total));
		pv_json_key(out, "error");
		if (states[i] == API_FAILED)
			pv_json_str(out, s->error ? s->error : "out of memory");
		else
			pv_json_null(out);
		pv_json_end(out);
	}
	pv_json_end(out);
	pv_json_end(out);
	pv_json_eol(out);
	free(slots);
	free(states);
	return 200;
}

/* The folders a slot's source files are looked up beneath: the profile's own folder (made
 * absolute, so the working directory never matters later) and --source-root; their count. */
uint32_t api_source_roots(const struct pv_api *a, const struct api_slot *s, char *dir, size_t len,
			  const char *roots[2])
{
	uint32_t n = 0;
	if (pv_source_profile_root(s->path, dir, len))
		roots[n++] = dir;
	if (a->source_root)
		roots[n++] = a->source_root;
	return n;
}

bool api_source_readable(const struct pv_api *a, const struct api_slot *s, pv_source_ix id)
{
	const struct pv_profile *p = s->p;
	if (id >= p->sources.len || !*pv_str(p, p->sources.path[id]))
		return false;
	char dir[4096];
	const char *roots[2];
	uint32_t n = api_source_roots(a, s, dir, sizeof(dir), roots);
	int fd = pv_source_open(pv_str(p, p->sources.path[id]), roots, n, API_SOURCE_MAX);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* `info --json`'s object in the page's variant, then the profile's span (and whether it has one:
 * "timed"), its default metric,
 * its source files (whether the source pane can show each) and how many marker names it has */
int api_profile(struct pv_api *a, const struct api_params *ps, struct pv_json *out)
{
	int status = 200;
	struct api_slot *s = api_slot(a, ps, out, &status);
	if (!s)
		return status;
	const struct pv_profile *p = s->p;
	struct pv_profile_info *in;
	if (pv_profile_info(p, &in))
		return api_error(out, 500, "out of memory");
	const struct pv_markers *ms = api_markers(a, s, NULL, &status);
	pv_json_object(out);
	pv_json_info(out, in, s->path, PV_INFO_PAGE);
	pv_json_newline(out);
	pv_json_kuint(out, "index", api_slot_index(ps));
	pv_json_kms(out, "start", in->start_ns);
	pv_json_kms(out, "end", in->end_ns);
	pv_json_kms(out, "activity_end", pv_activity_end(p));
	pv_json_kbool(out, "timed", in->timed);
	pv_profile_info_free(in);
	pv_json_key(out, "default_metric");
	if (p->metrics.len)
		pv_json_str(out, pv_str(p, p->metrics.name[p->meta.default_metric]));
	else
		pv_json_null(out);
	pv_json_key(out, "sources");
	pv_json_open(out, '[', PV_JSON_LINES, 2);
	for (uint32_t i = 0; i < p->sources.len; i++) {
		bool readable = api_source_readable(a, s, i);
		pv_json_object(out);
		pv_json_kuint(out, "id", i);
		pv_json_kstr(out, "path", pv_str(p, p->sources.path[i]));
		pv_json_kbool(out, "available", readable);
		pv_json_end(out);
	}
	pv_json_end(out);
	uint32_t names = ms ? pv_marker_names(ms) : 0;
	pv_json_kuint(out, "marker_names", names == PV_NONE ? 0 : names);
	/* serve --base: the profile this one is compared with (the Diff tab); absent without */
	struct api_slot *b = a->base_slot != api_slot_index(ps) ? slot_at(a, a->base_slot) : NULL;
	if (b) {
		pv_json_key(out, "base");
		pv_json_object(out);
		pv_json_kuint(out, "index", a->base_slot);
		pv_json_kstr(out, "path", b->path);
		pv_json_end(out);
	}
	pv_json_view_kinds(out);
	pv_json_end(out);
	pv_json_eol(out);
	return 200;
}

/* ---- markers ---- */

/* the selection of the marker endpoints: search, thread (repeated), start, end (ms) */
struct msel {
	struct pv_marker_search *search;
	pv_thread_ix *threads;
	struct pv_marker_select sel;
	bool has_start, has_end;
	int64_t start_ns, end_ns;
};

static void msel_release(struct msel *m)
{
	pv_marker_search_free(m->search);
	free(m->threads);
}

static int msel_parse(const struct pv_profile *p, const struct api_params *ps, struct pv_json *out,
		      struct msel *m)
{
	int status = 0;
	memset(m, 0, sizeof(*m));
	if (!param_ms(ps, "start", &m->has_start, &m->start_ns, out, &status) ||
	    !param_ms(ps, "end", &m->has_end, &m->end_ns, out, &status))
		return status;
	const char *names[PV_QUERY_MAX];
	uint32_t k = api_param_all(ps, "thread", names, PV_QUERY_MAX);
	if (k > PV_QUERY_MAX)
		return api_error(out, 400, "at most %d thread values", PV_QUERY_MAX);
	struct pv_error err;
	pv_error_clear(&err);
	int rc = k ? pv_thread_select(p, names, k, &m->threads, &m->sel.nr_threads, &err) : 0;
	if (rc)
		return api_lib_error(out, rc, &err, 400);
	m->sel.threads = m->threads;
	const char *search = api_param(ps, "search");
	if (search && *search) {
		if (pv_marker_search_new(search, &m->search)) {
			msel_release(m);
			return api_error(out, 500, "out of memory");
		}
		m->sel.search = m->search;
	}
	if (m->has_start || m->has_end) {
		m->sel.has_range = true;
		m->sel.range_start_ns = m->has_start ? m->start_ns : INT64_MIN;
		m->sel.range_end_ns = m->has_end ? m->end_ns : INT64_MAX;
	}
	return 0;
}

int api_markers_table(struct pv_api *a, const struct api_params *ps, struct pv_json *out)
{
	int status = 200;
	struct api_slot *s = api_slot(a, ps, out, &status);
	const struct pv_markers *ms = s ? api_markers(a, s, out, &status) : NULL;
	if (!ms)
		return status;
	uint32_t offset, limit;
	if (!api_param_u32(ps, "offset", 0, &offset, out, &status) ||
	    !api_param_u32(ps, "limit", 500, &limit, out, &status))
		return status;
	const char *sort = api_param(ps, "sort");
	enum pv_marker_order order = PV_MARKERS_BY_START;
	if (sort && strcmp(sort, "duration") == 0)
		order = PV_MARKERS_BY_DURATION;
	else if (sort && strcmp(sort, "start") != 0)
		return api_error(out, 400, "sort takes start or duration, not '%.100s'", sort);
	struct msel m;
	if ((status = msel_parse(s->p, ps, out, &m)))
		return status;
	m.sel.order = order;
	uint32_t *idx = NULL, n = 0;
	int rc = pv_marker_select(ms, &m.sel, &idx, &n);
	msel_release(&m);
	if (rc)
		return api_error(out, 500, "out of memory");
	uint32_t from = offset < n ? offset : n;
	uint32_t count = n - from < limit ? n - from : limit;
	pv_json_object(out);
	pv_json_kuint(out, "total", n);
	pv_json_kuint(out, "offset", from);
	rc = pv_json_markers(out, ms, idx + from, count);
	pv_json_end(out);
	pv_json_eol(out);
	pv_free_indexes(idx);
	return api_written(out, rc);
}

int api_marker_one(struct pv_api *a, const struct api_params *ps, struct pv_json *out)
{
	int status = 200;
	struct api_slot *s = api_slot(a, ps, out, &status);
	const struct pv_markers *ms = s ? api_markers(a, s, out, &status) : NULL;
	if (!ms)
		return status;
	uint32_t i;
	if (!api_param(ps, "i"))
		return api_error(out, 400, "marker needs i (a marker index)");
	if (!api_param_u32(ps, "i", 0, &i, out, &status))
		return status;
	if (i >= ms->len)
		return api_error(out, 404, "no marker %u (the profile has %u)", i, ms->len);
	if (pv_json_marker(out, ms, i))
		return api_error(out, 500, "out of memory");
	pv_json_eol(out);
	return 200;
}

int api_marker_summary(struct pv_api *a, const struct api_params *ps, struct pv_json *out)
{
	int status = 200;
	struct api_slot *s = api_slot(a, ps, out, &status);
	const struct pv_markers *ms = s ? api_markers(a, s, out, &status) : NULL;
	if (!ms)
		return status;
	struct msel m;
	if ((status = msel_parse(s->p, ps, out, &m)))
		return status;
	uint32_t *idx = NULL, n = 0;
	int rc = pv_marker_select(ms, &m.sel, &idx, &n);
	msel_release(&m);
	uint8_t *keep = rc ? NULL : calloc(ms->len ? ms->len : 1, 1);
	struct pv_marker_summary_row *rows = NULL;
	uint32_t nr = 0;
	for (uint32_t k = 0; keep && k < n; k++)
		keep[idx[k]] = 1;
	pv_free_indexes(idx);
	if (!keep || pv_marker_summary(ms, keep, &rows, &nr)) {
		free(keep);
		return api_error(out, 500, "out of memory");
	}
	free(keep);
	pv_json_object(out);
	pv_json_marker_summary(out, rows, nr);
	pv_json_end(out);
	pv_json_eol(out);
	pv_marker_summary_free(rows);
	return 200;
}

int api_marker_chart(struct pv_api *a, const struct api_params *ps, struct pv_json *out)
{
	int status = 200;
	struct api_slot *s = api_slot(a, ps, out, &status);
	const struct pv_markers *ms = s ? api_markers(a, s, out, &status) : NULL;
	if (!ms)
		return status;
	uint32_t width;
	if (!api_param_u32(ps, "width", 1000, &width, out, &status))
		return status;
	if (width == 0 || width > 100000)
		return api_error(out, 400, "width takes 1 to 100000 pixels, not %u", width);
	struct msel m;
	if ((status = msel_parse(s->p, ps, out, &m)))
		return status;
	int64_t lo, hi;
	pv_profile_span(s->p, &lo, &hi);
	m.sel.range_start_ns = m.has_start ? m.start_ns : lo;
	/* the timeline's window (one interval past the last time): a marker at the last time is
	 * in the chart, as in the table */
	m.sel.range_end_ns = m.has_end ? m.end_ns : pv_activity_end(s->p);
	m.sel.has_range = true;
	if (m.sel.range_end_ns < m.sel.range_start_ns) {
		msel_release(&m);
		return api_error(out, 400, "end is before start");
	}
	struct pv_marker_chart *ch = NULL;
	int rc = pv_marker_chart(ms, &m.sel, width, &ch);
	msel_release(&m);
	if (!rc)
		rc = pv_json_marker_chart(out, ms, ch);
	pv_marker_chart_free(ch);
	return api_written(out, rc);
}

int api_activity(struct pv_api *a, const struct api_params *ps, struct pv_json *out)
{
	int status = 200;
	struct api_slot *s = api_slot(a, ps, out, &status);
	if (!s)
		return status;
	struct pv_activity_opts o = {0};
	if (!api_param_u32(ps, "buckets", PV_ACTIVITY_BUCKETS, &o.buckets, out, &status) ||
	    !param_ms(ps, "start", &o.has_start, &o.start_ns, out, &status) ||
	    !param_ms(ps, "end", &o.has_end, &o.end_ns, out, &status))
		return status;
	if (o.buckets == 0 || o.buckets > PV_ACTIVITY_MAX_BUCKETS)
		return api_error(out, 400, "buckets takes 1 to %d, not %u", PV_ACTIVITY_MAX_BUCKETS,
				 o.buckets);
	struct pv_query q;
	if ((status = api_query(ps, &q, out)))
		return status;
	const struct pv_markers *ms = api_markers(a, s, out, &status);
	struct pv_activity *act = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	int rc = ms ? pv_activity_build(s->p, ms, &q, &o, &act, &err) : 0;
	pv_query_release(&q);
	if (!ms)
		return status;
	if (rc)
		return api_lib_error(out, rc, &err, 400);
	rc = pv_json_activity(out, act, ms);
	pv_activity_free(act);
	return api_written(out, rc);
}

/* ---- dispatch ---- */

static const struct {
	const char *name;
	api_handler fn;
} endpoints[] = {
    {"status", api_status},
    {"profile", api_profile},
    {"view", api_view},
    {"children", api_children},
    {"subtree", api_subtree},
    {"search", api_search},
    {"flame", api_flame},
    {"diff", api_diff},
    {"thread-costs", api_thread_costs},
    {"contexts", api_contexts},
    {"source", api_source},
    {"disasm", api_disasm},
    {"markers", api_markers_table},
    {"marker", api_marker_one},
    {"marker-summary", api_marker_summary},
    {"marker-chart", api_marker_chart},
    {"activity", api_activity},
    {"trace", api_trace},
    {"trace-stack", api_trace_stack},
    {"trace-boxes", api_trace_boxes},
};

static int out_of_memory(char **body, size_t *len)
{
	*body = strdup("{\"error\": \"out of memory\"}");
	*len = *body ? strlen(*body) : 0;
	return 500;
}

int pv_api_call(struct pv_api *a, const char *endpoint, const char *query, char **body, size_t *len,
		const char **content_type)
{
	*content_type = JSON_TYPE;
	*body = NULL;
	*len = 0;
	struct pv_json *out = pv_json_new(NULL);
	if (!out)
		return out_of_memory(body, len);
	int status;
	api_handler fn = NULL;
	for (size_t i = 0; endpoint && i < sizeof(endpoints) / sizeof(endpoints[0]); i++)
		if (strcmp(endpoints[i].name, endpoint) == 0)
			fn = endpoints[i].fn;
	struct api_params ps;
	if (!fn) {
		status = api_error(out, 404, "no endpoint '%.100s'", endpoint ? endpoint : "");
	} else {
		int rc = api_params_parse(&ps, query);
		if (rc)
			status =
			    api_error(out, rc == PV_ENOMEM ? 500 : 400, "%s",
				      rc == PV_ELIMIT	? "too many parameters"
				      : rc == PV_EPARSE ? "a broken percent escape in the query"
							: "out of memory");
		else
			status = fn(a, &ps, out);
		if (!rc)
			api_params_free(&ps);
	}
	*body = pv_json_detach(out, len);
	pv_json_free(out);
	return *body ? status : out_of_memory(body, len);
}

/*
 * state.c - the API's state: the slots (files being loaded, loaded profiles, the base), the cache
 * of computed answers (views, trace paints) and the source roots. Below every handler; it calls
 * none.
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

void api_names_free(struct api_names *n)
{
	if (!n)
		return;
	free(n->order);
	free(n->sent);
	free(n);
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
		api_names_free(s->names);
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

struct api_slot *api_slot_at(struct pv_api *a, uint32_t ix)
{
	pthread_mutex_lock(&a->lock);
	struct api_slot *s = ix < a->nr_slots ? a->slots[ix] : NULL;
	pthread_mutex_unlock(&a->lock);
	return s;
}

struct pv_progress *pv_api_progress(struct pv_api *a, uint32_t slot)
{
	struct api_slot *s = api_slot_at(a, slot);
	return s ? &s->progress : NULL;
}

void pv_api_set_loaded(struct pv_api *a, uint32_t slot, struct pv_profile *p,
		       const struct pv_error *err)
{
	struct api_slot *s = api_slot_at(a, slot);
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

const char *api_phase_name(int ph)
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
	struct api_slot *s = api_slot_at(a, ix);
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
		pv_json_kstr(out, "phase", api_phase_name(atomic_load(&s->progress.phase)));
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
	struct api_slot *s = api_slot_at(a, slot);
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

/*
 * api.c - the JSON API of `profview serve` (doc/api.md): the state (slots, view cache), the
 * request parameters, the dispatch, and the status, profile and marker endpoints.
 *
 * Every answer is built by the library's own calls (pv_print_info, pv_print_markers,
 * pv_marker_select, pv_view_compute, ...), so the page and the CLI's --json agree. A handler
 * writes its body to an open_memstream; an error is {"error": "..."} written by api_error(), and
 * pv_api_call keeps only that object when a handler had already written part of an answer.
 */
#include <fcntl.h>
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

/* temporary: FILE writers until the endpoints write through pv/jsonw.h */
static inline void web_json_string(FILE *out, const char *s)
{
	pv_json_fput_string(out, s);
}

static inline void web_json_ms(FILE *out, int64_t ns)
{
	struct pv_json *j = pv_json_new(out);
	if (j)
		pv_json_ms(j, ns);
	if (j)
		pv_json_finish(j);
	pv_json_free(j);
}
#include "pv/format.h"
#include "pv/info.h"
#include "pv/source.h"

#define JSON_TYPE "application/json; charset=utf-8"

/* where the error object of the current request starts in its stream (-1: none) */
static _Thread_local long error_at = -1;

/* ---- JSON helpers ---- */

int api_error(FILE *out, int status, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (char *c = msg; *c; c++) /* one line */
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	fflush(out);
	error_at = ftell(out);
	fputs("{\"error\": ", out);
	web_json_string(out, msg);
	fputs("}", out);
	return status;
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
			char *v = eq ? pv_url_decode(eq + 1, n - kl - 1, &bv) : (bv = false, strdup(""));
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

uint32_t api_param_all(const struct api_params *ps, const char *key, const char **out,
		       uint32_t cap)
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
		   FILE *out_json, int *status)
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
		   FILE *out_json, int *status)
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
		     FILE *out, int *status)
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
	"file", "max-nodes", "tab", "sel", "heaviest",
};

static bool own_param(const char *k)
{
	for (size_t i = 0; i < sizeof(own_params) / sizeof(own_params[0]); i++)
		if (strcmp(own_params[i], k) == 0)
			return true;
	return false;
}

static void put_encoded(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.' || c == '~' || c == ':' || c == ',' || c == ';')
			fputc(c, f);
		else
			fprintf(f, "%%%02X", c);
	}
}

int api_query(const struct api_params *ps, struct pv_query *q, FILE *out)
{
	char *url = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&url, &len);
	if (!f) {
		pv_query_init(q);
		return api_error(out, 500, "out of memory");
	}
	bool first = true;
	for (uint32_t i = 0; i < ps->len; i++) {
		if (own_param(ps->key[i]))
			continue;
		if (!first)
			fputc('&', f);
		first = false;
		put_encoded(f, ps->key[i]);
		fputc('=', f);
		put_encoded(f, ps->value[i]);
	}
	if (fclose(f) != 0 || !url) {
		free(url);
		pv_query_init(q);
		return api_error(out, 500, "out of memory");
	}
	struct pv_error err;
	pv_error_clear(&err);
	int rc = pv_query_from_url(q, url, &err);
	free(url);
	if (rc) {
		pv_query_init(q);
		return api_error(out, rc == PV_ENOMEM ? 500 : 400, "%s", err.msg);
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
	*out = a;
	return 0;
}

void pv_api_free(struct pv_api *a)
{
	if (!a)
		return;
	for (uint32_t i = 0; i < API_VIEW_CACHE; i++) {
		pv_view_free(a->cache[i].v);
		free(a->cache[i].key);
	}
	for (uint32_t i = 0; i < a->nr_slots; i++) {
		struct api_slot *s = a->slots[i];
		pv_markers_free(s->markers);
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
static uint32_t slot_index(const struct api_params *ps)
{
	const char *v = api_param(ps, "p");
	return v ? (uint32_t)strtoul(v, NULL, 10) : 0;
}

struct api_slot *api_slot(struct pv_api *a, const struct api_params *ps, FILE *out, int *status)
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
		fflush(out);
		error_at = ftell(out);
		fputs("{\"error\": \"loading\", \"path\": ", out);
		web_json_string(out, s->path);
		fprintf(out, ", \"phase\": \"%s\", \"done\": %" PRIu64 ", \"total\": %" PRIu64 "}",
			phase_name(atomic_load(&s->progress.phase)), atomic_load(&s->progress.done),
			atomic_load(&s->progress.total));
		*status = 503;
		return NULL;
	}
}

const struct pv_markers *api_markers(struct pv_api *a, struct api_slot *s, FILE *out, int *status)
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
			*status = api_error(out, 500, "%s", rc == PV_ENOMEM ? "out of memory" : err.msg);
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

/* ---- the view cache ---- */

struct pv_view *api_view_get(struct pv_api *a, uint32_t slot, const struct pv_query *q, FILE *out,
			     int *status)
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
	pthread_mutex_lock(&a->lock);
	for (uint32_t i = 0; i < API_VIEW_CACHE; i++) {
		struct api_cached_view *c = &a->cache[i];
		if (c->v && c->slot == slot && strcmp(c->key, key) == 0) {
			c->refs++;
			c->used = ++a->clock;
			struct pv_view *v = c->v;
			pthread_mutex_unlock(&a->lock);
			free(key);
			return v;
		}
	}
	pthread_mutex_unlock(&a->lock);

	/* computed without the lock: two requests for the same new key may both compute */
	struct pv_view *v = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	int rc = pv_view_compute(s->p, q, &v, &err);
	if (rc) {
		free(key);
		*status = api_error(out, rc == PV_ENOMEM ? 500 : 400, "%s",
				    rc == PV_ENOMEM ? "out of memory" : err.msg);
		return NULL;
	}
	pthread_mutex_lock(&a->lock);
	struct api_cached_view *victim = NULL;
	for (uint32_t i = 0; i < API_VIEW_CACHE; i++) {
		struct api_cached_view *c = &a->cache[i];
		if (c->v && c->slot == slot && strcmp(c->key, key) == 0) {
			/* another request computed it meanwhile: use that one */
			c->refs++;
			c->used = ++a->clock;
			struct pv_view *w = c->v;
			pthread_mutex_unlock(&a->lock);
			free(key);
			pv_view_free(v);
			return w;
		}
		if (!c->v) {
			if (!victim || victim->v)
				victim = c;
		} else if (c->refs == 0 && (!victim || (victim->v && c->used < victim->used))) {
			victim = c;
		}
	}
	if (victim) {
		struct pv_view *old = victim->v;
		char *oldkey = victim->key;
		victim->slot = slot;
		victim->key = key;
		victim->v = v;
		victim->refs = 1;
		victim->used = ++a->clock;
		pthread_mutex_unlock(&a->lock);
		pv_view_free(old);
		free(oldkey);
	} else {
		/* every entry is in use: this view lives for this request only */
		pthread_mutex_unlock(&a->lock);
		free(key);
	}
	return v;
}

void api_view_release(struct pv_api *a, struct pv_view *v)
{
	if (!v)
		return;
	pthread_mutex_lock(&a->lock);
	for (uint32_t i = 0; i < API_VIEW_CACHE; i++) {
		if (a->cache[i].v == v) {
			if (a->cache[i].refs)
				a->cache[i].refs--;
			pthread_mutex_unlock(&a->lock);
			return;
		}
	}
	pthread_mutex_unlock(&a->lock);
	pv_view_free(v);
}

/* ---- status and profile ---- */

int api_status(struct pv_api *a, const struct api_params *ps, FILE *out)
{
	(void)ps;
	pthread_mutex_lock(&a->lock);
	uint32_t n = a->nr_slots;
	struct api_slot **slots = malloc((n ? n : 1) * sizeof(*slots));
	if (slots && n)
		memcpy(slots, a->slots, n * sizeof(*slots));
	pthread_mutex_unlock(&a->lock);
	if (!slots)
		return api_error(out, 500, "out of memory");
	int st[3] = {0};
	int *states = malloc((n ? n : 1) * sizeof(*states));
	if (!states) {
		free(slots);
		return api_error(out, 500, "out of memory");
	}
	for (uint32_t i = 0; i < n; i++) {
		states[i] = atomic_load(&slots[i]->state);
		st[states[i] < 3 && states[i] >= 0 ? states[i] : 0]++;
	}
	static const char *const names[] = {"loading", "ready", "failed"};
	fprintf(out, "{\"state\": \"%s\", \"files\": [",
		st[API_FAILED] ? "failed" : st[API_LOADING] ? "loading" : "ready");
	for (uint32_t i = 0; i < n; i++) {
		struct api_slot *s = slots[i];
		fputs(i ? ",\n  {\"path\": " : "\n  {\"path\": ", out);
		web_json_string(out, s->path);
		int ph = states[i] == API_READY ? PV_PROGRESS_DONE : atomic_load(&s->progress.phase);
		fprintf(out, ", \"state\": \"%s\", \"phase\": \"%s\", \"done\": %" PRIu64
			", \"total\": %" PRIu64 ", \"error\": ",
			names[states[i]], phase_name(ph), atomic_load(&s->progress.done),
			atomic_load(&s->progress.total));
		if (states[i] == API_FAILED)
			web_json_string(out, s->error ? s->error : "out of memory");
		else
			fputs("null", out);
		fputc('}', out);
	}
	fputs(n ? "\n]}\n" : "]}\n", out);
	free(slots);
	free(states);
	return 200;
}

/* The folders a slot's source files are looked up beneath: the profile's own folder (made
 * absolute, so the working directory never matters later) and --source-root; their count. */
uint32_t api_source_roots(const struct pv_api *a, const struct api_slot *s, char *dir,
			  size_t len, const char *roots[2])
{
	uint32_t n = 0;
	const char *slash = strrchr(s->path, '/');
	char d[4096];
	snprintf(d, sizeof(d), "%.*s", slash ? (int)(slash - s->path + (slash == s->path)) : 1,
		 slash ? s->path : ".");
	char *real = realpath(d, NULL);
	if (real && strlen(real) < len) {
		strcpy(dir, real);
		roots[n++] = dir;
	}
	free(real);
	if (a->source_root)
		roots[n++] = a->source_root;
	return n;
}

int api_source_open(const struct pv_api *a, const struct api_slot *s, pv_source_ix id)
{
	const struct pv_profile *p = s->p;
	if (id >= p->sources.len)
		return -1;
	char dir[4096];
	const char *roots[2];
	uint32_t n = api_source_roots(a, s, dir, sizeof(dir), roots);
	return pv_source_open(pv_str(p, p->sources.path[id]), roots, n, API_SOURCE_MAX);
}

static int cmp_cstr(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* distinct marker names */
static uint32_t marker_names(const struct pv_markers *ms)
{
	if (!ms || !ms->len)
		return 0;
	const char **v = malloc(ms->len * sizeof(*v));
	if (!v)
		return 0;
	memcpy(v, ms->name, ms->len * sizeof(*v));
	qsort(v, ms->len, sizeof(*v), cmp_cstr);
	uint32_t n = 1;
	for (uint32_t i = 1; i < ms->len; i++)
		n += strcmp(v[i], v[i - 1]) != 0;
	free(v);
	return n;
}

static void put_categories(FILE *out, const struct pv_profile *p)
{
	fputc('[', out);
	for (uint32_t c = 0; c < p->categories.len; c++) {
		fputs(c ? ", {\"name\": " : "{\"name\": ", out);
		web_json_string(out, pv_str(p, p->categories.name[c]));
		fputs(", \"color\": ", out);
		web_json_string(out, pv_str(p, p->categories.color[c]));
		fputc('}', out);
	}
	fputc(']', out);
}

int api_profile(struct pv_api *a, const struct api_params *ps, FILE *out)
{
	int status = 200;
	struct api_slot *s = api_slot(a, ps, out, &status);
	if (!s)
		return status;
	const struct pv_profile *p = s->p;
	/* pv_print_info's object, with the categories listed and the threads numbered */
	char *info = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&info, &len);
	if (!f)
		return api_error(out, 500, "out of memory");
	pv_print_info(f, p, s->path, true);
	if (fclose(f) != 0 || !info) {
		free(info);
		return api_error(out, 500, "out of memory");
	}
	char pat[96];
	snprintf(pat, sizeof(pat), "\"categories\": %u, \"markers\": {", p->categories.len);
	char *cat = strstr(info, pat);
	char *threads = strstr(info, "\"threads\": [");
	char *end = len >= 2 && info[len - 2] == '}' ? info + len - 2 : NULL;
	if (!cat || !threads || !end || threads > cat) {
		free(info);
		return api_error(out, 500, "the info object has an unexpected shape");
	}
	/* up to the threads, then each thread's object with "index" first */
	char *at = threads + strlen("\"threads\": [");
	fwrite(info, 1, (size_t)(at - info), out);
	for (uint32_t t = 0; t < p->threads.len; t++) {
		char *o = strstr(at, "\n  {");
		if (!o || o > cat)
			break;
		fwrite(at, 1, (size_t)(o - at) + 4, out);
		fprintf(out, "\"index\": %u, ", t);
		at = o + 4;
	}
	/* info's count of sources is "nr_sources" here: "sources" is the list, below */
	char *nsrc = strstr(at, "\"sources\": ");
	if (nsrc && nsrc < cat) {
		fwrite(at, 1, (size_t)(nsrc - at), out);
		fputs("\"nr_sources\": ", out);
		at = nsrc + strlen("\"sources\": ");
	}
	fwrite(at, 1, (size_t)(cat - at), out);
	fputs("\"categories\": ", out);
	put_categories(out, p);
	at = cat + strlen(pat) - strlen("\"markers\": {");
	fputs(", ", out);
	fwrite(at, 1, (size_t)(end - at), out);
	free(info);

	int64_t lo, hi;
	pv_profile_span(p, &lo, &hi);
	int st2 = 200;
	const struct pv_markers *ms = api_markers(a, s, NULL, &st2);
	fprintf(out, ",\n\"index\": %u, \"start\": ", slot_index(ps));
	web_json_ms(out, lo);
	fputs(", \"end\": ", out);
	web_json_ms(out, hi);
	fputs(", \"default_metric\": ", out);
	if (p->metrics.len)
		web_json_string(out, pv_str(p, p->metrics.name[p->meta.default_metric]));
	else
		fputs("null", out);
	fputs(", \"sources\": [", out);
	for (uint32_t i = 0; i < p->sources.len; i++) {
		int fd = api_source_open(a, s, i);
		if (fd >= 0)
			close(fd);
		fprintf(out, "%s{\"id\": %u, \"path\": ", i ? ",\n  " : "\n  ", i);
		web_json_string(out, pv_str(p, p->sources.path[i]));
		fprintf(out, ", \"available\": %s}", fd >= 0 ? "true" : "false");
	}
	fprintf(out, "%s], \"marker_names\": %u}\n", p->sources.len ? "\n" : "", marker_names(ms));
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

/* The threads named by the "thread" values (names or tids, like the query's); NULL and 0 for
 * none. Returns 0 or the status of the error it wrote. */
static int threads_param(const struct pv_profile *p, const struct api_params *ps, FILE *out,
			 pv_thread_ix **threads, uint32_t *nr)
{
	const char *names[PV_QUERY_MAX];
	uint32_t k = api_param_all(ps, "thread", names, PV_QUERY_MAX);
	*threads = NULL;
	*nr = 0;
	if (!k)
		return 0;
	if (k > PV_QUERY_MAX)
		return api_error(out, 400, "at most %d thread values", PV_QUERY_MAX);
	uint32_t len = p->threads.len ? p->threads.len : 1;
	uint8_t *mark = calloc(len, 1);
	pv_thread_ix *found = malloc(len * sizeof(*found));
	pv_thread_ix *t = malloc(len * sizeof(*t));
	int status = 0;
	if (!mark || !found || !t)
		status = api_error(out, 500, "out of memory");
	for (uint32_t i = 0; !status && i < k; i++) {
		uint32_t n = pv_thread_find(p, names[i], found, len);
		if (!n)
			status = api_error(out, 400, "no thread named '%.200s'", names[i]);
		for (uint32_t j = 0; j < n && j < len; j++)
			mark[found[j]] = 1;
	}
	for (uint32_t i = 0; !status && i < p->threads.len; i++)
		if (mark[i])
			t[(*nr)++] = i;
	free(mark);
	free(found);
	if (status) {
		free(t);
		*nr = 0;
		return status;
	}
	*threads = t;
	return 0;
}

static int msel_parse(const struct pv_profile *p, const struct api_params *ps, FILE *out,
		      struct msel *m)
{
	int status = 0;
	memset(m, 0, sizeof(*m));
	if (!param_ms(ps, "start", &m->has_start, &m->start_ns, out, &status) ||
	    !param_ms(ps, "end", &m->has_end, &m->end_ns, out, &status))
		return status;
	if ((status = threads_param(p, ps, out, &m->threads, &m->sel.nr_threads)))
		return status;
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

int api_markers_table(struct pv_api *a, const struct api_params *ps, FILE *out)
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
	if (pv_marker_select(ms, &m.sel, &idx, &n)) {
		msel_release(&m);
		return api_error(out, 500, "out of memory");
	}
	msel_release(&m);
	uint32_t from = offset < n ? offset : n;
	uint32_t count = n - from < limit ? n - from : limit;
	/* pv_print_markers' {"rows": [...]} with the total and the offset in front */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = f ? pv_print_markers(f, ms, idx + from, count, true) : PV_ENOMEM;
	if (f && fclose(f) != 0)
		rc = PV_ENOMEM;
	pv_free_indexes(idx);
	if (rc || !buf || len < 2 || buf[0] != '{') {
		free(buf);
		return api_error(out, 500, "out of memory");
	}
	fprintf(out, "{\"total\": %u, \"offset\": %u, ", n, from);
	fwrite(buf + 1, 1, len - 1, out);
	free(buf);
	return 200;
}

int api_marker_one(struct pv_api *a, const struct api_params *ps, FILE *out)
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
	if (pv_print_marker(out, ms, i, true))
		return api_error(out, 500, "out of memory");
	return 200;
}

int api_marker_summary(struct pv_api *a, const struct api_params *ps, FILE *out)
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
	if (keep)
		for (uint32_t k = 0; k < n; k++)
			keep[idx[k]] = 1;
	pv_free_indexes(idx);
	if (!keep || pv_marker_summary(ms, keep, &rows, &nr)) {
		free(keep);
		return api_error(out, 500, "out of memory");
	}
	free(keep);
	pv_print_marker_summary(out, rows, nr, true);
	pv_marker_summary_free(rows);
	return 200;
}

/* ---- the marker chart ---- */

#define CHART_MAX_ENTRIES 5000

struct chart_entry {
	uint32_t i, merged;
	int64_t start, end; /* end PV_TIME_NONE: one instant */
};

struct chart_row {
	pv_thread_ix thread;
	const char *name;
	pv_cat_ix category;
	uint32_t len, cap;
	struct chart_entry *e;
	bool full;
};

static uint64_t name_hash(const char *s, pv_thread_ix t)
{
	uint64_t h = 1469598103934665603ull ^ t;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int cmp_chart_row(const void *x, const void *y)
{
	const struct chart_row *a = x, *b = y;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->category != b->category)
		return a->category < b->category ? -1 : 1; /* PV_NONE (unknown) last */
	return strcmp(a->name, b->name);
}

static const char *category_name(const struct pv_profile *p, pv_cat_ix c)
{
	return c < p->categories.len ? pv_str(p, p->categories.name[c]) : "Other";
}

static const char *category_color(const struct pv_profile *p, pv_cat_ix c)
{
	return c < p->categories.len ? pv_str(p, p->categories.color[c]) : "grey";
}

int api_marker_chart(struct pv_api *a, const struct api_params *ps, FILE *out)
{
	int status = 200;
	struct api_slot *s = api_slot(a, ps, out, &status);
	const struct pv_markers *ms = s ? api_markers(a, s, out, &status) : NULL;
	if (!ms)
		return status;
	const struct pv_profile *p = s->p;
	uint32_t width;
	if (!api_param_u32(ps, "width", 1000, &width, out, &status))
		return status;
	if (width == 0 || width > 100000)
		return api_error(out, 400, "width takes 1 to 100000 pixels, not %u", width);
	struct msel m;
	if ((status = msel_parse(p, ps, out, &m)))
		return status;
	int64_t lo, hi;
	pv_profile_span(p, &lo, &hi);
	int64_t start = m.has_start ? m.start_ns : lo, end = m.has_end ? m.end_ns : hi;
	if (end < start) {
		msel_release(&m);
		return api_error(out, 400, "end is before start");
	}
	m.sel.has_range = true;
	m.sel.range_start_ns = start;
	m.sel.range_end_ns = end;
	uint32_t *idx = NULL, n = 0;
	int rc = pv_marker_select(ms, &m.sel, &idx, &n);
	msel_release(&m);
	if (rc)
		return api_error(out, 500, "out of memory");
	/* rows by (thread, name): an open-addressing map of row numbers */
	uint32_t cap = 64;
	while (cap < 2 * (n + 1))
		cap *= 2;
	uint32_t *map = malloc(cap * sizeof(*map));
	struct chart_row *rows = NULL;
	uint32_t nr = 0, rcap = 0;
	double px = (double)pv_time_diff(end, start) / width; /* ns per pixel */
	bool oom = !map;
	if (map)
		memset(map, 0xff, cap * sizeof(*map));
	for (uint32_t k = 0; k < n && !oom; k++) {
		uint32_t i = idx[k];
		uint64_t h = name_hash(ms->name[i], ms->thread[i]);
		uint32_t at = (uint32_t)h & (cap - 1);
		while (map[at] != PV_NONE && (rows[map[at]].thread != ms->thread[i] ||
					      strcmp(rows[map[at]].name, ms->name[i]) != 0))
			at = (at + 1) & (cap - 1);
		if (map[at] == PV_NONE) {
			if (nr == rcap) {
				rcap = rcap ? rcap * 2 : 16;
				struct chart_row *r = realloc(rows, rcap * sizeof(*r));
				if (!r) {
					oom = true;
					break;
				}
				rows = r;
			}
			rows[nr] = (struct chart_row){.thread = ms->thread[i], .name = ms->name[i],
						      .category = ms->category[i]};
			map[at] = nr++;
		}
		struct chart_row *r = &rows[map[at]];
		if (r->full)
			continue;
		int64_t e = ms->end_ns[i];
		int64_t w = e == PV_TIME_NONE ? 0 : pv_time_diff(e, ms->start_ns[i]);
		struct chart_entry *last = r->len ? &r->e[r->len - 1] : NULL;
		if (last && (double)w < px) {
			int64_t lend = last->end == PV_TIME_NONE ? last->start : last->end;
			int64_t lw = pv_time_diff(lend, last->start);
			/* two narrow ones that touch (within a pixel) become one entry */
			if ((double)lw < px || last->merged > 1) {
				if ((double)pv_time_diff(ms->start_ns[i], lend) <= px) {
					int64_t ne = e == PV_TIME_NONE ? ms->start_ns[i] : e;
					if (last->end != PV_TIME_NONE || ne > last->start)
						last->end = ne > lend ? ne : lend;
					last->merged++;
					continue;
				}
			}
		}
		if (r->len == CHART_MAX_ENTRIES) {
			r->full = true;
			continue;
		}
		if (r->len == r->cap) {
			r->cap = r->cap ? r->cap * 2 : 8;
			struct chart_entry *v = realloc(r->e, r->cap * sizeof(*v));
			if (!v) {
				oom = true;
				break;
			}
			r->e = v;
		}
		r->e[r->len++] = (struct chart_entry){.i = i, .merged = 1, .start = ms->start_ns[i],
						       .end = e};
	}
	free(map);
	pv_free_indexes(idx);
	if (oom) {
		for (uint32_t k = 0; k < nr; k++)
			free(rows[k].e);
		free(rows);
		return api_error(out, 500, "out of memory");
	}
	if (nr)
		qsort(rows, nr, sizeof(*rows), cmp_chart_row);
	struct pv_marker_detail d = {0};
	fputs("{\"start\": ", out);
	web_json_ms(out, start);
	fputs(", \"end\": ", out);
	web_json_ms(out, end);
	fputs(", \"rows\": [", out);
	for (uint32_t k = 0; k < nr; k++) {
		struct chart_row *r = &rows[k];
		fprintf(out, "%s{\"thread\": %u, \"thread_name\": ", k ? ",\n  " : "\n  ", r->thread);
		web_json_string(out, pv_str(p, p->threads.name[r->thread]));
		fputs(", \"name\": ", out);
		web_json_string(out, r->name);
		fputs(", \"category\": ", out);
		web_json_string(out, category_name(p, r->category));
		fputs(", \"color\": ", out);
		web_json_string(out, category_color(p, r->category));
		fputs(", \"markers\": [", out);
		for (uint32_t j = 0; j < r->len; j++) {
			struct chart_entry *e = &r->e[j];
			fprintf(out, "%s{\"i\": %u, \"start\": ", j ? ", " : "", e->i);
			web_json_ms(out, e->start);
			fputs(", \"end\": ", out);
			if (e->end == PV_TIME_NONE)
				fputs("null", out);
			else
				web_json_ms(out, e->end);
			fputs(", \"label\": ", out);
			web_json_string(out, pv_marker_detail(ms, e->i, &d) ? ""
								       : d.label[PV_LABEL_CHART]);
			if (e->merged > 1)
				fprintf(out, ", \"merged\": %u", e->merged);
			fputc('}', out);
		}
		fputs("]}", out);
		free(r->e);
	}
	fputs(nr ? "\n]}\n" : "]}\n", out);
	pv_marker_detail_release(&d);
	free(rows);
	return 200;
}

/* ---- activity: the timeline's per-thread graphs ---- */

/* A tiny reader of JSON text the library made compact and valid (schemas, payloads). */
static const char *jws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

/* past the value at s (NULL when broken) */
static const char *jskip(const char *s, int depth)
{
	s = jws(s);
	if (depth > 64)
		return NULL;
	if (*s == '"') {
		for (s++; *s && *s != '"'; s++)
			if (*s == '\\' && !*++s)
				return NULL;
		return *s ? s + 1 : NULL;
	}
	if (*s == '{' || *s == '[') {
		char close = *s == '{' ? '}' : ']';
		s = jws(s + 1);
		if (*s == close)
			return s + 1;
		for (;;) {
			if (close == '}') {
				s = jskip(s, depth + 1);
				if (!s || *(s = jws(s)) != ':')
					return NULL;
				s++;
			}
			s = jskip(s, depth + 1);
			if (!s)
				return NULL;
			s = jws(s);
			if (*s == close)
				return s + 1;
			if (*s != ',')
				return NULL;
			s++;
		}
	}
	const char *b = s;
	while (*s && !strchr(",]} \t\n\r", *s))
		s++;
	return s > b ? s : NULL;
}

/* whether the string token at s is lit (lit has no escapes) */
static bool jstr_eq(const char *s, const char *lit)
{
	size_t n = strlen(lit);
	return *s == '"' && strncmp(s + 1, lit, n) == 0 && s[n + 1] == '"';
}

/* the value of key in the object at s, NULL when absent */
static const char *jget(const char *s, const char *key)
{
	s = jws(s);
	if (*s != '{')
		return NULL;
	s = jws(s + 1);
	while (*s == '"') {
		bool hit = jstr_eq(s, key);
		s = jskip(s, 0);
		if (!s || *(s = jws(s)) != ':')
			return NULL;
		s = jws(s + 1);
		if (hit)
			return s;
		s = jskip(s, 0);
		if (!s || *(s = jws(s)) != ',')
			return NULL;
		s = jws(s + 1);
	}
	return NULL;
}

struct overview_types {
	uint32_t len;
	const char **name; /* the schema's "name" token (a JSON string) */
	bool *shown;       /* its display lists timeline-overview */
};

/* The file's schemas that list (or not) timeline-overview among their display locations. */
static int overview_types_read(const struct pv_profile *p, struct overview_types *o)
{
	memset(o, 0, sizeof(*o));
	const char *s = p->meta.marker_schema ? pv_str(p, p->meta.marker_schema) : "";
	s = jws(s);
	if (*s != '[')
		return 0;
	uint32_t cap = 0;
	s = jws(s + 1);
	while (*s == '{') {
		const char *name = jget(s, "name"), *disp = jget(s, "display");
		if (name && *name == '"') {
			bool shown = false;
			if (disp && *disp == '[') {
				const char *d = jws(disp + 1);
				while (*d == '"') {
					shown |= jstr_eq(d, "timeline-overview");
					d = jskip(d, 0);
					if (!d || *(d = jws(d)) != ',')
						break;
					d = jws(d + 1);
				}
			}
			if (o->len == cap) {
				cap = cap ? cap * 2 : 16;
				const char **n = realloc(o->name, cap * sizeof(*n));
				if (n)
					o->name = n;
				bool *sh = realloc(o->shown, cap * sizeof(*sh));
				if (sh)
					o->shown = sh;
				if (!n || !sh)
					return PV_ENOMEM;
			}
			o->name[o->len] = name;
			o->shown[o->len++] = shown;
		}
		s = jskip(s, 0);
		if (!s || *(s = jws(s)) != ',')
			break;
		s = jws(s + 1);
	}
	return 0;
}

/* whether marker i goes on the thread's track (doc/api.md: "overview") */
static bool overview_shows(const struct overview_types *o, const char *payload)
{
	const char *type = payload ? jget(payload, "type") : NULL;
	if (!type || *type != '"')
		return false;
	const char *end = jskip(type, 0);
	size_t n = end ? (size_t)(end - type) : 0;
	for (uint32_t k = 0; k < o->len; k++) {
		const char *e = jskip(o->name[k], 0);
		if (e && (size_t)(e - o->name[k]) == n && memcmp(o->name[k], type, n) == 0)
			return o->shown[k];
	}
	return jstr_eq(type, "IPC") || jstr_eq(type, "Network");
}

#define ACTIVITY_MAX_BUCKETS 4000
#define OVERVIEW_MAX 2000

int api_activity(struct pv_api *a, const struct api_params *ps, FILE *out)
{
	int status = 200;
	struct api_slot *s = api_slot(a, ps, out, &status);
	if (!s)
		return status;
	const struct pv_profile *p = s->p;
	uint32_t nb;
	bool has_start, has_end;
	int64_t start, end;
	if (!api_param_u32(ps, "buckets", 400, &nb, out, &status) ||
	    !param_ms(ps, "start", &has_start, &start, out, &status) ||
	    !param_ms(ps, "end", &has_end, &end, out, &status))
		return status;
	if (nb == 0 || nb > ACTIVITY_MAX_BUCKETS)
		return api_error(out, 400, "buckets takes 1 to %d, not %u", ACTIVITY_MAX_BUCKETS, nb);
	int64_t lo, hi;
	pv_profile_span(p, &lo, &hi);
	if (!has_start)
		start = lo;
	if (!has_end)
		end = pv_time_add(hi, p->meta.interval_ns > 0 ? p->meta.interval_ns : 1);
	if (end <= start)
		return api_error(out, 400, "end must be after start");
	struct pv_query q;
	if ((status = api_query(ps, &q, out)))
		return status;
	/* the first metric, the threads */
	pv_metric_ix metric = p->metrics.len ? p->meta.default_metric : PV_NONE;
	if (q.nr_metrics)
		metric = pv_metric_find(p, q.metrics[0]);
	if (metric == PV_NONE || metric >= p->metrics.len) {
		status = api_error(out, 400, "no metric named '%.200s'",
				   q.nr_metrics ? q.metrics[0] : "");
		pv_query_release(&q);
		return status;
	}
	const char *tnames[PV_QUERY_MAX];
	struct api_params tp = {0};
	for (uint32_t i = 0; i < q.nr_threads; i++) {
		tnames[i] = q.threads[i];
		tp.key[i] = (char *)"thread";
		tp.value[i] = (char *)tnames[i];
	}
	tp.len = q.nr_threads;
	pv_thread_ix *threads = NULL;
	uint32_t nt = 0;
	uint8_t *keep = NULL;
	pv_cat_ix *leaf = NULL;
	uint64_t *acc = NULL;
	struct overview_types ov = {0};
	const struct pv_markers *ms = NULL;
	if ((status = threads_param(p, &tp, out, &threads, &nt)))
		goto done;
	if (!q.nr_threads) {
		threads = malloc((p->threads.len ? p->threads.len : 1) * sizeof(*threads));
		if (!threads) {
			status = api_error(out, 500, "out of memory");
			goto done;
		}
		for (uint32_t t = 0; t < p->threads.len; t++)
			threads[nt++] = t;
	}
	/* the samples that count in the query's view (threads, range, tags, inside-markers, the
	 * stack filters and the center): the engine's own selection */
	{
		struct pv_query vq;
		struct pv_view *v = NULL;
		struct pv_error err = {0};
		if (pv_query_copy(&vq, &q)) {
			status = api_error(out, 500, "out of memory");
			goto done;
		}
		vq.view = PV_VIEW_TREE;
		int rc = pv_view_compute_keep(p, &vq, &v, NULL, &keep, &err);
		pv_view_free(v);
		pv_query_release(&vq);
		if (rc) {
			status = api_error(out, rc == PV_ENOMEM ? 500 : 400, "%s", err.msg);
			goto done;
		}
	}
	ms = api_markers(a, s, out, &status);
	if (!ms)
		goto done;
	/* the leaf category of every stack (a frame without one inherits its caller's); none is
	 * the profile's "Other" category, else one more listed after the profile's */
	uint32_t none = p->categories.len;
	for (uint32_t c = 0; c < p->categories.len && none == p->categories.len; c++)
		if (strcmp(pv_str(p, p->categories.name[c]), "Other") == 0)
			none = c;
	uint32_t ncat = p->categories.len + 1;
	leaf = malloc((p->stacks.len ? p->stacks.len : 1) * sizeof(*leaf));
	acc = calloc((size_t)nb * ncat, sizeof(*acc));
	if (!leaf || !acc || overview_types_read(p, &ov)) {
		status = api_error(out, 500, "out of memory");
		goto done;
	}
	bool other = false;
	for (uint32_t st = 0; st < p->stacks.len; st++) {
		pv_cat_ix c = p->frames.category[p->stacks.frame[st]];
		pv_stack_ix pre = p->stacks.prefix[st];
		leaf[st] = c < p->categories.len ? c : pre != PV_NONE ? leaf[pre] : none;
	}
	double span = (double)pv_time_diff(end, start);
	fputs("{\"start\": ", out);
	web_json_ms(out, start);
	fputs(", \"end\": ", out);
	web_json_ms(out, end);
	fprintf(out, ", \"bucket\": %.9g, \"categories\": ", span / nb / 1e6);
	/* the extra "Other" is listed when some sample needs it */
	for (uint32_t k = 0; k < nt && !other && none == p->categories.len; k++)
		for (uint32_t x = p->threads.sample_begin[threads[k]];
		     x < p->threads.sample_end[threads[k]] && !other; x++)
			other = p->samples.stack[x] == PV_NONE ||
				leaf[p->samples.stack[x]] == p->categories.len;
	if (other) {
		fputc('[', out);
		for (uint32_t c = 0; c < p->categories.len; c++) {
			fputs("{\"name\": ", out);
			web_json_string(out, pv_str(p, p->categories.name[c]));
			fputs(", \"color\": ", out);
			web_json_string(out, pv_str(p, p->categories.color[c]));
			fputs("}, ", out);
		}
		fputs("{\"name\": \"Other\", \"color\": \"grey\"}]", out);
	} else {
		put_categories(out, p);
	}
	fputs(", \"threads\": [", out);
	for (uint32_t k = 0; k < nt; k++) {
		pv_thread_ix t = threads[k];
		uint64_t nsamples = 0;
		memset(acc, 0, (size_t)nb * ncat * sizeof(*acc));
		for (uint32_t x = p->threads.sample_begin[t]; x < p->threads.sample_end[t]; x++) {
			int64_t tm = p->samples.time_ns[x];
			if (tm == PV_TIME_NONE || tm < start || tm >= end)
				continue;
			if (!keep[x])
				continue;
			pv_stack_ix st = p->samples.stack[x];
			uint32_t c = st == PV_NONE ? none : leaf[st];
			uint32_t b = (uint32_t)((double)pv_time_diff(tm, start) * nb / span);
			if (b >= nb)
				b = nb - 1;
			acc[(size_t)b * ncat + c] += (uint64_t)pv_sample_weight(p, metric, x);
			nsamples++;
		}
		fprintf(out, "%s{\"index\": %u, \"name\": ", k ? ",\n  " : "\n  ", t);
		web_json_string(out, pv_str(p, p->threads.name[t]));
		fputs(", \"tid\": ", out);
		if (p->threads.tid[t] == PV_ID_NONE)
			fputs("null", out);
		else
			fprintf(out, "%" PRId64, p->threads.tid[t]);
		fprintf(out, ", \"samples\": %" PRIu64 ", \"buckets\": [", nsamples);
		for (uint32_t b = 0; b < nb; b++) {
			fputs(b ? ",[" : "[", out);
			bool first = true;
			for (uint32_t c = 0; c < ncat; c++) {
				int64_t v = (int64_t)acc[(size_t)b * ncat + c];
				if (!v)
					continue;
				fprintf(out, "%s[%u,%" PRId64 "]", first ? "" : ",", c, v);
				first = false;
			}
			fputc(']', out);
		}
		fputs("]}", out);
	}
	fputs(nt ? "\n], \"overview\": [" : "], \"overview\": [", out);
	/* the markers of the listed threads shown on their tracks, in the window */
	uint32_t *per = calloc(p->threads.len ? p->threads.len : 1, sizeof(*per));
	uint8_t *listed = calloc(p->threads.len ? p->threads.len : 1, 1);
	uint32_t nov = 0;
	for (uint32_t k = 0; per && listed && k < nt; k++)
		listed[threads[k]] = 1;
	for (uint32_t i = 0; per && listed && i < ms->len; i++) {
		pv_thread_ix t = ms->thread[i];
		int64_t e = ms->end_ns[i] == PV_TIME_NONE ? ms->start_ns[i] : ms->end_ns[i];
		if (!listed[t] || ms->start_ns[i] >= end || e < start || per[t] >= OVERVIEW_MAX)
			continue;
		if (!overview_shows(&ov, ms->data[i]))
			continue;
		per[t]++;
		fprintf(out, "%s{\"thread\": %u, \"i\": %u, \"name\": ", nov++ ? ",\n  " : "\n  ", t, i);
		web_json_string(out, ms->name[i]);
		fputs(", \"start\": ", out);
		web_json_ms(out, ms->start_ns[i]);
		fputs(", \"end\": ", out);
		if (ms->end_ns[i] == PV_TIME_NONE)
			fputs("null", out);
		else
			web_json_ms(out, ms->end_ns[i]);
		fputs(", \"color\": ", out);
		web_json_string(out, category_color(p, ms->category[i]));
		fputc('}', out);
	}
	free(per);
	free(listed);
	fputs(nov ? "\n]}\n" : "]}\n", out);
	status = 200;
done:
	free(ov.name);
	free(ov.shown);
	free(leaf);
	free(acc);
	pv_free_keep(keep);
	free(threads);
	pv_query_release(&q);
	return status;
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
	{"flame", api_flame},
	{"thread-costs", api_thread_costs},
	{"source", api_source},
	{"markers", api_markers_table},
	{"marker", api_marker_one},
	{"marker-summary", api_marker_summary},
	{"marker-chart", api_marker_chart},
	{"activity", api_activity},
};

int pv_api_call(struct pv_api *a, const char *endpoint, const char *query, char **body,
		size_t *len, const char **content_type)
{
	*content_type = JSON_TYPE;
	*body = NULL;
	*len = 0;
	char *buf = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&buf, &n);
	if (!out) {
		*body = strdup("{\"error\": \"out of memory\"}");
		*len = *body ? strlen(*body) : 0;
		return 500;
	}
	error_at = -1;
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
			status = api_error(out, rc == PV_ENOMEM ? 500 : 400, "%s",
					   rc == PV_ELIMIT	? "too many parameters"
					   : rc == PV_EPARSE ? "a broken percent escape in the query"
							     : "out of memory");
		else
			status = fn(a, &ps, out);
		if (!rc)
			api_params_free(&ps);
	}
	long err_at = error_at;
	error_at = -1;
	if (fclose(out) != 0 || !buf) {
		free(buf);
		*body = strdup("{\"error\": \"out of memory\"}");
		*len = *body ? strlen(*body) : 0;
		return 500;
	}
	if (status >= 400 && err_at > 0 && (size_t)err_at < n) {
		/* a handler that failed after writing part of its answer: keep the error only */
		memmove(buf, buf + err_at, n - (size_t)err_at + 1);
		n -= (size_t)err_at;
	}
	*body = buf;
	*len = n;
	return status;
}

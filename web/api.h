/*
 * web/api.h - internals of the JSON API (include/pv/serve.h, doc/api.md), shared by its files:
 *   api.c         dispatch, status, profile, markers, marker, marker-summary, marker-chart,
 *                 activity
 *   api_view.c    view, children, flame, thread-costs, source, diff
 *   api_trace.c   trace, trace-stack, trace-boxes
 *   api_contexts.c  contexts (one row's values over the execution contexts)
 *   state.c       the state under every handler: slots, the cache of views and paints, sources
 *   params.c      a request's parameters and the error answer (the bottom layer)
 *   server.c      HTTP (libmicrohttpd): token, Host check, static assets, threads
 *
 * web/ parses requests, keeps the profiles and the views, and writes answers; libpv computes
 * and serializes every answer (pv/format.h, pv/graphs.h, pv/rows.h, pv/marker.h). A handler
 * writes its JSON body through out (pv/jsonw.h) and returns the HTTP status; on an error it
 * returns 400/404/500/503 after api_error(), which replaces what out holds by
 * {"error": "..."}.
 */
#ifndef PV_WEB_API_H
#define PV_WEB_API_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "pv/format.h"
#include "pv/import.h"
#include "pv/jsonw.h"
#include "pv/marker.h"
#include "pv/profile.h"
#include "pv/query.h"
#include "pv/serve.h"
#include "pv/view.h"

/* ---- the parameters of one request: decoded key=value pairs, in order ---- */

#define API_MAX_PARAMS 256

struct api_params {
	uint32_t len;
	char *key[API_MAX_PARAMS], *value[API_MAX_PARAMS]; /* decoded, owned */
	/* the endpoint's own parameters (its row in api.c's table, NULL-terminated): not part of
	 * the query; the others are the query's (api_query) */
	const char *const *own;
};

/* Whether key is one of the endpoint's own parameters (ps->own). */
bool api_param_own(const struct api_params *ps, const char *key);

/* Splits and percent-decodes q ('+' is a space). Returns 0, PV_ELIMIT (too many) or PV_ENOMEM. */
int api_params_parse(struct api_params *ps, const char *q);
void api_params_free(struct api_params *ps);
/* The first value of key, NULL when absent. */
const char *api_param(const struct api_params *ps, const char *key);
/* Every value of key in order (at most cap); returns how many there are. */
uint32_t api_param_all(const struct api_params *ps, const char *key, const char **out,
		       uint32_t cap);
/* An unsigned integer parameter: def when absent; false (and api_error 400) when bad. */
bool api_param_u32(const struct api_params *ps, const char *key, uint32_t def, uint32_t *out,
		   struct pv_json *out_json, int *status);
/* A signed integer parameter (trace times in ns): the same. */
bool api_param_i64(const struct api_params *ps, const char *key, int64_t def, int64_t *out,
		   struct pv_json *out_json, int *status);

/*
 * The query of a request: every parameter but the endpoint's own (ps->own), each decoded once
 * and set as the URL notation sets it (pv_query_set_param: view, center, filter, metric, by,
 * thread, range, percent, min-percent, depth, n, sort, inside-markers, ...); a key that is
 * neither is the query reader's error ("unknown query key 'K'", 400). Returns 0 or the status
 * of the error it wrote; q is initialized either way (release it). The dispatcher
 * (api_dispatch) is its only caller: handlers get the query parsed.
 */
int api_query(const struct api_params *ps, struct pv_query *q, struct pv_json *out);
/* A time parameter in ms (key=MS) as ns in *ns, *has set; false (and api_error 400) when bad. */
bool api_param_ms(const struct api_params *ps, const char *key, bool *has, int64_t *ns,
		  struct pv_json *out, int *status);

/* ---- state ---- */

enum api_slot_state { API_LOADING = 0, API_READY, API_FAILED };

struct api_slot {
	char *path;
	_Atomic int state; /* enum api_slot_state */
	struct pv_progress progress;
	struct pv_profile *p;	    /* when ready */
	struct pv_markers *markers; /* derived once, lazily (under the api lock) */
	struct pv_trace *trace;	    /* opened once, lazily (under the api lock): api_trace.c */
	struct api_names *names;    /* the chart's names sent (under the api lock) */
	char *error;		    /* when failed: the importer's one line */
};

/* The function names a slot's stack chart answers sent (api_trace.c): each once, in the order
 * first sent; a page says how many it has (known=ID:N) and gets the ones after. */
struct api_names {
	uint32_t id; /* this log's: a page's count of another log (a restarted server) is 0 */
	uint32_t *order, len, cap;
	uint8_t *sent; /* per function of the profile */
};
void api_names_free(struct api_names *n); /* state.c */

#define API_VIEW_CACHE 8

/* A computed answer kept for the next requests: a view (its key the canonical query URL,
 * pv_query_to_url) or a trace paint (api_trace.c: "trace-paint:DEPTH:" and the URL). */
struct api_cached_view {
	uint32_t slot;
	char *key;
	void *obj;
	void (*free_obj)(void *);
	uint32_t refs; /* requests using it */
	uint64_t used; /* LRU clock */
};

struct pv_api {
	pthread_mutex_t lock;
	uint32_t nr_slots, cap_slots;
	struct api_slot **slots;
	char *source_root;
	struct api_cached_view cache[API_VIEW_CACHE];
	uint64_t clock;
	uint32_t base_slot; /* serve --base: the slot the others are compared with; PV_NONE */
	atomic_int stop;    /* pv_api_stop: long answers (disassembly) end at once */
};

/*
 * The ready profile named by the "p" parameter (default 0). Returns it, or NULL after writing
 * the error: 404 for no such slot, 503 {"error": "loading", ...} while loading, 500 failed.
 */
struct api_slot *api_slot(struct pv_api *a, const struct api_params *ps, struct pv_json *out,
			  int *status);
/* Slot ix, or NULL past the slots (any state). */
struct api_slot *api_slot_at(struct pv_api *a, uint32_t ix);
/* The name of a loading phase (pv_progress). */
const char *api_phase_name(int ph);
/* The slot index ("p") of a request api_slot() accepted. */
uint32_t api_slot_index(const struct api_params *ps);
/* Slot ix when ready: as api_slot, for a slot the request does not name in "p" (the base). */
struct api_slot *api_slot_ready(struct pv_api *a, uint32_t ix, struct pv_json *out, int *status);
/* The derived markers of a ready slot (derived on first use). NULL after api_error on failure. */
const struct pv_markers *api_markers(struct pv_api *a, struct api_slot *s, struct pv_json *out,
				     int *status);

/*
 * The view of q on slot s, from the cache or computed (and cached). Release with
 * api_view_release. NULL after writing the error (400 for a query that does not fit).
 */
struct pv_view *api_view_get(struct pv_api *a, uint32_t slot, const struct pv_query *q,
			     struct pv_json *out, int *status);
void api_view_release(struct pv_api *a, struct pv_view *v);
/*
 * The cache under them: api_cache_take gives the object kept for (slot, key) with a reference,
 * or NULL; api_cache_keep keeps obj (computed by the caller without the lock) under key (taken:
 * freed by the cache) and returns the object to use -- an equal one another request kept
 * meanwhile (obj then freed) or obj (kept, or when every entry is in use, the caller's for this
 * request). api_cache_release drops the reference (or frees an object the cache does not hold).
 */
void *api_cache_take(struct pv_api *a, uint32_t slot, const char *key);
void *api_cache_keep(struct pv_api *a, uint32_t slot, char *key, void *obj,
		     void (*free_obj)(void *));
void api_cache_release(struct pv_api *a, void *obj, void (*free_obj)(void *));
/*
 * The view of q in which a row key names a row (the butterfly for up:/down: keys, doc/api.md)
 * and that row: *t its tree (NULL for a flat or list row), *row its index. NULL after writing
 * the error (404 when the key names no row). Release the view with api_view_release.
 */
struct pv_view *api_view_row(struct pv_api *a, uint32_t slot, const struct pv_query *q,
			     const char *key, const struct pv_tree **t, uint32_t *row,
			     struct pv_json *out, int *status);

/* Source files the page shows: at most this big, found beneath api_source_roots() only. */
#define API_SOURCE_MAX (16u << 20)
uint32_t api_source_roots(const struct pv_api *a, const struct api_slot *s, char *dir, size_t len,
			  const char *roots[2]);
/* Whether source id of the slot's profile is allowed and found (the source pane can show it). */
bool api_source_readable(const struct pv_api *a, const struct api_slot *s, pv_source_ix id);

/* Replaces what out holds by {"error": msg}; returns status. */
int api_error(struct pv_json *out, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The status of an answer a library writer returned rc for: 200 when it wrote it (rc 0), else
 * (PV_ENOMEM) the 500 "out of memory" answer in its place. */
int api_written(struct pv_json *out, int rc);
/* The error of a library call (err's message, "out of memory" for PV_ENOMEM): 500 for
 * PV_ENOMEM, else bad (400 or 404). */
int api_lib_error(struct pv_json *out, int rc, const struct pv_error *err, int bad);

/* ---- handlers ---- */

/*
 * A handler answers one request: ps its parameters (the endpoint's own read with api_param*),
 * q its query, parsed and checked by the dispatcher before the call (empty for an endpoint
 * without a query). Handlers never parse the query; one that needs another copies it
 * (pv_query_copy).
 */
typedef int (*api_handler)(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
			   struct pv_json *out);

/*
 * An endpoint (doc/api.md): its handler, whether it reads a query, and its own parameters
 * (NULL-terminated; every other parameter is the query's).
 */
struct api_endpoint {
	const char *name;
	api_handler fn;
	bool query;
	const char *const *own;
};

/*
 * The answer of endpoint e to the raw query string (NULL: none) into out: the parameters split
 * and decoded (api_params_parse), the query parsed (api_query; an endpoint without a query
 * takes no parameter but its own), and only then e->fn with both. Any error of the request is
 * answered here (400, "unknown query key 'K'" for a key that is neither the endpoint's nor the
 * query's) and the handler is not called. Returns the HTTP status.
 */
int api_dispatch(struct pv_api *a, const struct api_endpoint *e, const char *query,
		 struct pv_json *out);

int api_status(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
	       struct pv_json *out);
int api_profile(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		struct pv_json *out);
int api_markers_table(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		      struct pv_json *out);
int api_marker_one(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		   struct pv_json *out);
int api_marker_summary(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		       struct pv_json *out);
int api_marker_chart(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		     struct pv_json *out);
int api_activity(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		 struct pv_json *out);
/* api_trace.c: the trace view (doc/trace.md) */
int api_trace(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
	      struct pv_json *out);
int api_trace_stack(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		    struct pv_json *out);
int api_trace_boxes(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		    struct pv_json *out);

int api_view(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
	     struct pv_json *out);
int api_children(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		 struct pv_json *out);
int api_subtree(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		struct pv_json *out);
int api_search(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
	       struct pv_json *out);
int api_flame(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
	      struct pv_json *out);
int api_diff(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
	     struct pv_json *out);
int api_thread_costs(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		     struct pv_json *out);
int api_source(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
	       struct pv_json *out);
int api_disasm(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
	       struct pv_json *out);
/* api_contexts.c */
int api_contexts(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		 struct pv_json *out);

/* ---- static assets (generated at build time from web/assets/ by tools/embed.c) ---- */

struct pv_asset {
	const char *path; /* "index.html", "app.js", "views/tree.js" */
	const char *content_type;
	const unsigned char *data;
	size_t len;
};
extern const struct pv_asset pv_assets[];
extern const size_t pv_nr_assets;

#endif

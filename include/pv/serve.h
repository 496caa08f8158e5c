/*
 * serve.h - the web UI's JSON API and the HTTP server over it (`profview serve`).
 *
 * The API is a plain function of (loaded profiles, endpoint, URL query string) -> (HTTP status,
 * JSON body), so every endpoint is tested in process without a socket; the server (libmicrohttpd)
 * adds the token and Host checks, the embedded static assets and the threads. The contract of
 * every endpoint is doc/api.md.
 *
 * Profiles are loaded in the background: pv_api_add_file() registers a slot that answers 503
 * ("loading") until pv_api_set_loaded() fills it; /api/status shows each slot's progress.
 * Every view is computed by the same library calls as the CLI (pv_view_compute, marker.h), so the
 * page and `profview ... --json` give the same numbers.
 *
 * Thread safety: pv_api_call() may run on several threads at once (profiles are read-only after
 * loading; the view cache has its own lock).
 */
#ifndef PV_SERVE_H
#define PV_SERVE_H

#include <stddef.h>
#include <stdint.h>

#include "pv/error.h"
#include "pv/import.h"
#include "pv/profile.h"

struct pv_api;

/* source_root: a folder searched for the profile's relative source paths (NULL = none). */
int pv_api_new(struct pv_api **out, const char *source_root);
void pv_api_free(struct pv_api *a);

/* Registers a file to load (slot index = order of calls); its progress is updated by the loader. */
uint32_t pv_api_add_file(struct pv_api *a, const char *path);
struct pv_progress *pv_api_progress(struct pv_api *a, uint32_t slot);
/* The loader's result: p (taken over) or the error that stopped it (p NULL). */
void pv_api_set_loaded(struct pv_api *a, uint32_t slot, struct pv_profile *p,
		       const struct pv_error *err);
/* The profile every other slot is compared with (serve --base): /api/diff and /api/flame?diff=1
 * answer the difference of slot p against it (doc/diff.md). */
void pv_api_set_base(struct pv_api *a, uint32_t slot);
/* Ends the answers being computed as soon as they can (a disassembly kills objdump and answers
 * with a note) and every later one at once: the server is stopping (pv_server_stop calls it). */
void pv_api_stop(struct pv_api *a);
/* Convenience for tests: add_file + set_loaded with an already imported profile. */
uint32_t pv_api_add_profile(struct pv_api *a, const char *path, struct pv_profile *p);

/*
 * One request. endpoint is the path after "/api/" ("view", "markers", ...); query is the raw URL
 * query string (percent-encoded, without '?', may be NULL). Returns the HTTP status (200, 400,
 * 404, 503, 500) and sets *body to a malloc'ed JSON text of *len bytes (an error is
 * {"error": "one line"}); *content_type is a constant string.
 */
int pv_api_call(struct pv_api *a, const char *endpoint, const char *query, char **body, size_t *len,
		const char **content_type);

/* ---- the HTTP server ---- */

struct pv_serve_opts {
	const char *host;    /* address to bind: "127.0.0.1" by default */
	uint16_t port;	     /* 0 = a free port */
	const char *token;   /* NULL = a random one per run */
	int open_browser;    /* run xdg-open on the URL */
	int quiet;	     /* no progress lines on stderr */
	int head_timeout_ms; /* time a client has to send a request head; 0 = 10 s (tests) */
};

struct pv_server;

/* Starts serving a (borrowed; must outlive the server). *url_out: the page's URL with the token
 * (malloc'ed). Returns 0, PV_EIO (cannot bind, err says why) or PV_ENOMEM. */
int pv_server_start(struct pv_api *a, const struct pv_serve_opts *o, struct pv_server **out,
		    char **url_out, struct pv_error *err);
void pv_server_stop(struct pv_server *s);
/* The bound port (useful with port 0). */
uint16_t pv_server_port(const struct pv_server *s);
/* Whether the server listens beyond this machine's loopback (--host 0.0.0.0, a LAN address):
 * the page is then reachable from other machines, to anyone with the token. */
int pv_server_public(const struct pv_server *s);

#endif

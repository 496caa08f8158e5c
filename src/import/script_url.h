/*
 * script_url.h - the module of a script, from its URL: one rule for every format whose frames
 * name scripts by URL (Chrome trace events, .cpuprofile and .heapprofile; Firefox's Gecko
 * profile; speedscope's frame files). doc/modules.md states the rule.
 */
#ifndef PV_IMPORT_SCRIPT_URL_H
#define PV_IMPORT_SCRIPT_URL_H

#include <stddef.h>

#include "model/builder.h"

/*
 * The web origin of a URL, "scheme://host[:port]", for http, https and moz-extension URLs (the
 * ones the Firefox Profiler names by origin): scheme and host lowercased, user info and the
 * scheme's default port dropped. Returns its length in out (cap bytes), 0 when the URL is of
 * another kind or its origin does not fit.
 */
size_t script_url_origin(const char *url, size_t n, char *out, size_t cap);

/*
 * The module of the script at url[0..n): its web origin when it has one (script_url_origin),
 * else the URL itself (a file path, file://, node:, chrome://, resource://, ...); the module's
 * path is the same text, so `module:NAME` also matches its last path components. PV_NONE for
 * an empty URL.
 */
pv_module_ix script_module(struct pv_builder *b, const char *url, size_t n,
			   enum pv_module_kind kind);

#endif

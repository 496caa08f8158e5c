/*
 * tapi.h - the web API tests' helpers (unit-web): a profile in a fresh API, one call, and a call
 * whose answer is compared structurally with the expected JSON (tp.h's T_JSON_EQ).
 */
#ifndef PV_TEST_TAPI_H
#define PV_TEST_TAPI_H

#include <stdlib.h>

#include "api.h"
#include "tp.h"

/* An API holding the profile file at path (its slot 0) with source_root; NULL on failure. */
struct pv_api *t_api_of(const char *path, const char *source_root);
/*
 * The body of one call (malloc'ed), its HTTP status in *status; checks that it is JSON as its
 * content type says and that its length is the one returned.
 */
char *tp_api_call_at(const char *file, int line, struct pv_api *a, const char *endpoint,
		     const char *query, int *status);
#define t_api_call(a, endpoint, query, status) \
	tp_api_call_at(__FILE__, __LINE__, (a), (endpoint), (query), (status))

/* One call: its status must be want_status and its answer the JSON want. */
#define T_API(a, endpoint, query, want_status, want)                      \
	do {                                                              \
		int st_;                                                  \
		char *body_ = t_api_call((a), (endpoint), (query), &st_); \
		T_EQ_INT(st_, (want_status));                             \
		T_JSON_EQ(body_, (want));                                 \
		free(body_);                                              \
	} while (0)

#endif

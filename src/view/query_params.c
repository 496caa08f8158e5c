/*
 * query_params.c - a query from decoded key=value pairs (a request's parameters), each set as
 * the URL notation sets it (pv_query_set_param): decoded once, never re-encoded.
 */
#include <string.h>

#include "pv/query.h"

int pv_query_from_params(struct pv_query *q, const char *const *keys, const char *const *values,
			 uint32_t n, bool (*skip)(const char *key), struct pv_error *err)
{
	pv_query_init(q);
	for (uint32_t i = 0; i < n; i++) {
		if (skip && skip(keys[i]))
			continue;
		int rc = pv_query_set_param(q, keys[i], values[i], err);
		if (rc) {
			pv_query_release(q);
			return rc;
		}
	}
	return 0;
}

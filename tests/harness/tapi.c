/*
 * tapi.c - the web API tests' helpers (tapi.h).
 */
#include <string.h>

#include "t.h"
#include "tapi.h"

struct pv_api *t_api_of(const char *path, const char *source_root)
{
	struct pv_profile *p = t_load(path);
	if (!p)
		return NULL;
	struct pv_api *a = NULL;
	T_EQ_INT(pv_api_new(&a, source_root), 0);
	T_EQ_INT(pv_api_add_profile(a, path, p), 0);
	return a;
}

char *tp_api_call_at(const char *file, int line, struct pv_api *a, const char *endpoint,
		     const char *query, int *status)
{
	char *body = NULL;
	size_t len = 0;
	const char *type = NULL;
	*status = pv_api_call(a, endpoint, query, &body, &len, &type);
	if (!type || strcmp(type, "application/json; charset=utf-8") != 0)
		t_fail(file, line, "/api/%s?%s: content type '%s'", endpoint, query,
		       type ? type : "(null)");
	if (!body || strlen(body) != len)
		t_fail(file, line, "/api/%s?%s: no body, or its length is not %zu", endpoint, query,
		       len);
	return body;
}

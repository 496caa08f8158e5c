/* api.c - the JSON API of `profview serve` (doc/api.md): state, parameters, dispatch and the
 * status, profile and marker endpoints. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

int api_error(FILE *out, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("{\"error\": \"", out);
	vfprintf(out, fmt, ap);
	fputs("\"}", out);
	va_end(ap);
	return status;
}

int pv_api_new(struct pv_api **out, const char *source_root)
{
	(void)source_root;
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : PV_ENOMEM;
}

void pv_api_free(struct pv_api *a)
{
	free(a);
}

int pv_api_call(struct pv_api *a, const char *endpoint, const char *query, char **body,
		size_t *len, const char **content_type)
{
	(void)a, (void)endpoint, (void)query;
	*body = strdup("{\"error\": \"not implemented yet\"}");
	*len = *body ? strlen(*body) : 0;
	*content_type = "application/json; charset=utf-8";
	return 501;
}

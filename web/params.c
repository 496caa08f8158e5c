/*
 * params.c - a request's parameters (split, decoded, typed, the query of the page's URL) and the
 * error answer every handler writes. The bottom layer of web/: it calls no handler.
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
bool api_param_ms(const struct api_params *ps, const char *key, bool *has, int64_t *ns,
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
    "at", "min", "compact", "records", /* web/api_trace.c */
    "known", "box-depth", "box-x",     /* the stack chart (web/api_trace.c) */
    "diff", "normalize",	       /* the difference against the base (api_view.c) */
    "line",			       /* disasm (api_view.c) */
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

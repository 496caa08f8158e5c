/*
 * query_params.c - a query from decoded key=value pairs (a request's parameters), read as the
 * URL notation reads them.
 */
#include <string.h>

#include "base/sbuf.h"
#include "pv/query.h"

/* s percent-encoded: unreserved characters and ":,;" as they are, the rest as %XX */
static int put_encoded(struct sbuf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char e[3] = {'%', hex[c >> 4], hex[c & 15]};
		bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     (c >= '0' && c <= '9') || strchr("-_.~:,;", c);
		if (plain ? sbuf_put(b, s, 1) : sbuf_put(b, e, 3))
			return PV_ENOMEM;
	}
	return 0;
}

int pv_query_from_params(struct pv_query *q, const char *const *keys, const char *const *values,
			 uint32_t n, bool (*skip)(const char *key), struct pv_error *err)
{
	struct sbuf url = SBUF_INIT;
	bool first = true;
	int rc = 0;
	for (uint32_t i = 0; i < n && !rc; i++) {
		if (skip && skip(keys[i]))
			continue;
		if ((!first && sbuf_put(&url, "&", 1)) || put_encoded(&url, keys[i]) ||
		    sbuf_put(&url, "=", 1) || put_encoded(&url, values[i]))
			rc = PV_ENOMEM;
		first = false;
	}
	if (rc) {
		sbuf_release(&url);
		pv_query_init(q);
		return pv_error_set(err, rc, "out of memory");
	}
	rc = pv_query_from_url(q, sbuf_str(&url), err);
	sbuf_release(&url);
	return rc;
}

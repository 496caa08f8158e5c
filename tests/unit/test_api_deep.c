/*
 * test_api_deep.c - every endpoint of the API on one stack 100,000 frames deep (issue 25): each
 * answer is bounded by its row budget and linear in the file, at most 10x the same request's
 * answer on a flat file of the same size (100,000 one-frame lines). Before, /api/subtree sent
 * every row's whole key and path (581 MB for 10,000 frames; 100,000 took the server to 7.5 GB
 * with no answer) and /api/search took any limit (1.2 GB from a 2.2 MB file). A centered request
 * finds nothing around its center in the flat file: each endpoint's answers are measured against
 * the largest the flat file gives on that endpoint.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/format.h"
#include "pv/serve.h"
#include "t.h"
#include "tapi.h"

#define N 100000

/* "f0;f1;...;f99999 1" and, as many bytes or a few less, "f0 1", "f1 1", ... */
static char *deep_text(size_t *len)
{
	size_t cap = (size_t)N * 8 + 16, n = 0;
	char *b = malloc(cap);
	for (int i = 0; i < N; i++)
		n += (size_t)snprintf(b + n, cap - n, "%sf%d", i ? ";" : "", i);
	n += (size_t)snprintf(b + n, cap - n, " 1\n");
	*len = n;
	return b;
}

static char *flat_text(size_t want, size_t *len)
{
	char *b = malloc(want + 32);
	size_t n = 0;
	for (int i = 0; n + 16 < want; i++)
		n += (size_t)snprintf(b + n, want + 32 - n, "f%d 1\n", i);
	*len = n;
	return b;
}

static struct pv_api *api_of(const char *name, const char *text, size_t len)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	struct pv_api *a = NULL;
	T_EQ_INT(t_import_text(name, text, len, NULL, &p, &err), 0);
	T_EQ_INT(pv_api_new(&a, NULL), 0);
	if (p && a)
		T_EQ_INT(pv_api_add_profile(a, name, p), 0);
	return a;
}

static const struct {
	const char *endpoint, *query;
} requests[] = {
    {"status", ""},
    {"profile", ""},
    {"view", "view=tree&heaviest=1024"},
    {"view", "view=callers&heaviest=1024"},
    {"view", "view=tree&hot=f0&hot-percent=0"},
    {"view", "view=flat"},
    {"view", "view=top"},
    {"view", "view=butterfly&center=f50000&heaviest=4"},
    {"children", "view=tree&key="},
    {"children", "view=tree&key=f0"},
    {"subtree", "view=tree&key=&prune=0"},
    {"subtree", "view=callers&key=&prune=0"},
    {"subtree", "view=butterfly&center=f50000&key=down:&prune=0"},
    {"subtree", "view=butterfly&center=f50000&key=up:&prune=0"},
    {"search", "text=f&limit=10000"},
    {"search", "text=f9"},
    {"flame", "view=tree"},
    {"flame", "view=tree&center=f50000"},
    {"thread-costs", "view=tree&key=f0"},
    {"contexts", "center=f50000"},
    {"contexts", "view=tree&key=f0&value=self"},
    {"source", ""},
    {"disasm", "file=0&line=1"},
    {"markers", ""},
    {"marker-summary", ""},
    {"marker-chart", ""},
    {"activity", ""},
    {"trace", ""},
    {"trace-stack", "context=0&at=0"},
    {"trace-boxes", "context=0"},
};

T_TEST(api_deep_every_endpoint_linear)
{
	size_t dn, fn;
	char *deep = deep_text(&dn), *flat = flat_text(dn, &fn);
	T_TRUE(fn <= dn && fn + 16 >= dn);
	struct pv_api *d = api_of("deep.txt", deep, dn), *f = api_of("flat.txt", flat, fn);
	free(deep);
	free(flat);
	if (!d || !f)
		return;
	enum { NR = sizeof(requests) / sizeof(requests[0]) };
	size_t len[2][NR];
	int st[2][NR];
	struct pv_api *a[2] = {d, f};
	for (size_t i = 0; i < NR; i++) {
		for (int k = 0; k < 2; k++) {
			char *body =
			    t_api_call(a[k], requests[i].endpoint, requests[i].query, &st[k][i]);
			len[k][i] = body ? strlen(body) : 0;
			free(body);
		}
	}
	for (size_t i = 0; i < NR; i++) {
		/* the same status; at most 10x the flat file's largest answer of the endpoint (64
		 * KiB for the smallest) */
		size_t most = 65536;
		for (size_t k = 0; k < NR; k++)
			if (strcmp(requests[k].endpoint, requests[i].endpoint) == 0 &&
			    len[1][k] > most)
				most = len[1][k];
		if (st[0][i] != st[1][i] || st[0][i] == 500 || len[0][i] > 10 * most)
			t_fail(
			    __FILE__, __LINE__,
			    "/api/%s?%s: deep %d, %zu bytes; flat %d, %zu bytes (its largest %zu)",
			    requests[i].endpoint, requests[i].query, st[0][i], len[0][i], st[1][i],
			    len[1][i], most);
	}
	/* expand-all of the chain: the keys and paths stop at the budget (256 bytes a row of the
	 * tree: 25.6 MB here), the rest of the chain one "more" row to load on from */
	int status;
	char *body = t_api_call(d, "subtree", "view=tree&key=&prune=0", &status);
	T_EQ_INT(status, 200);
	size_t n = body ? strlen(body) : 0;
	T_TRUE(n > pv_key_text_budget(N) && n < pv_key_text_budget(N) * 2);
	T_CONTAINS(body, "\"expanded\": 99999,");
	T_CONTAINS(body, "\"name\": \"\u2026 1 more row\", \"kind\": \"more\"");
	free(body);
	/* a search row whose key would pass the budget has none, and says so */
	body = t_api_call(d, "search", "text=f&limit=10000", &status);
	T_CONTAINS(body, "\"key\": null, \"key_cut\": true}");
	free(body);
	body = t_api_call(d, "search", "text=f&limit=10001", &status);
	T_EQ_INT(status, 400);
	T_CONTAINS(body, "limit takes 1 to 10000 rows, not 10001");
	free(body);
	pv_api_free(d);
	pv_api_free(f);
}

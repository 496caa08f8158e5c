/*
 * serve.c - "move the center" through the web API: what serving a view costs on top of the
 * library's own computation of it (issue 6: at most 1.5x).
 *
 * Builds the seeded synthetic profile of bench/center.c in memory (default 10 M samples over
 * 1 M distinct stacks, 50 k functions, depths 20-60), hands it to an in-process API
 * (pv_api_add_profile), then, alternating A B A B, times for a new center each round
 *   A  pv_view_compute of the query (the library alone), and
 *   B  pv_api_call("view", "view=KIND&center=...&open=...") of the same query with the heaviest
 *      path open 30 rows deep (what the page asks for): a cache miss (the center is new to
 *      the API), so parsing, the same pv_view_compute, resolving the keys, the rows and JSON;
 * for a top-down and a bottom-up view, and prints the medians and the ratios B / A.
 *
 * usage: serve [SAMPLES [STACKS [ROUNDS]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pv/query.h"
#include "pv/serve.h"
#include "pv/view.h"
#include "synth.h"

/* rows the request opens below the center: the heaviest path, as the page opens it */
#define OPEN_DEPTH 30

struct kind_times {
	double lib[101], api[101];
	size_t bytes, rows;
};

/* one round of one view kind: A then B, for the scope */
static int round_of(struct pv_api *a, const struct pv_profile *p, enum pv_view_kind kind,
		    const char *scope, const char *scope_url, struct kind_times *kt, int r)
{
	struct pv_query q;
	pv_query_init(&q);
	q.view = kind;
	pv_query_add_center(&q, scope);
	struct pv_view *v;
	struct pv_error err;
	double s = synth_now();
	if (pv_view_compute(p, &q, &v, &err)) {
		fprintf(stderr, "serve: %s\n", err.msg);
		return -1;
	}
	double e = synth_now();
	/* the page keeps the heaviest path open: the keys of its first OPEN_DEPTH rows */
	char url[16384];
	int n = snprintf(url, sizeof(url), "view=%s&center=%s", pv_view_name(kind), scope_url);
	char key[8192] = "c";
	const struct pv_tree *t = v->tree;
	uint32_t row = t->nr_roots ? t->roots[0] : PV_NONE;
	for (int d = 0; d < OPEN_DEPTH && row != PV_NONE && t->child_len[row]; d++) {
		row = t->children[t->child_first[row]];
		size_t kl = strlen(key);
		snprintf(key + kl, sizeof(key) - kl, "/f%u", t->id[row]);
		if (t->child_len[row] && n + 6 + strlen(key) < sizeof(url))
			n += snprintf(url + n, sizeof(url) - (size_t)n, "&open=%s", key);
	}
	pv_view_free(v);
	pv_query_release(&q);

	char *body = NULL;
	size_t len = 0;
	const char *type;
	double s2 = synth_now();
	int status = pv_api_call(a, "view", url, &body, &len, &type);
	double e2 = synth_now();
	if (status != 200) {
		fprintf(stderr, "serve: %d %.*s\n", status, (int)len, body ? body : "");
		free(body);
		return -1;
	}
	size_t rows = 0;
	for (const char *x = body; (x = strstr(x, "{\"key\": ")); x++)
		rows++;
	free(body);
	if (r >= 0) {
		kt->lib[r] = e - s;
		kt->api[r] = e2 - s2;
		kt->bytes = len;
		kt->rows = rows;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rounds;
	double built;
	struct pv_profile *p = synth_args(argc, argv, "serve", &rounds, &built);
	if (!p)
		return 1;
	printf("profile: %u samples, %u stacks, %u functions, %u frames (built in %.2f s)\n",
	       p->samples.len, p->stacks.len, p->funcs.len, p->frames.len, built);
	struct pv_api *a;
	if (pv_api_new(&a, NULL) || pv_api_add_profile(a, "generated", p) == PV_NONE) {
		fprintf(stderr, "serve: out of memory\n");
		return 1;
	}
	static const enum pv_view_kind kinds[] = {PV_VIEW_TREE, PV_VIEW_CALLERS};
	static const char *const labels[] = {"centered top-down tree ", "centered bottom-up tree"};
	struct kind_times kt[2];
	memset(kt, 0, sizeof(kt));
	for (int r = -1; r < rounds; r++) { /* round -1 warms up */
		/* a function of middling weight: a different one each round, so the API's view
		 * cache never has it */
		unsigned f = 200u + 37u * (unsigned)(r + 1);
		char scope[64], scope_url[64];
		snprintf(scope, sizeof(scope), "re:method_%u\\(", f);
		snprintf(scope_url, sizeof(scope_url), "re%%3Amethod_%u%%5C%%28", f);
		for (int k = 0; k < 2; k++)
			if (round_of(a, p, kinds[k], scope, scope_url, &kt[k], r))
				return 1;
	}
	for (int k = 0; k < 2; k++) {
		double ml = synth_median(kt[k].lib, rounds), ma = synth_median(kt[k].api, rounds);
		double ratio[101];
		for (int r = 0; r < rounds; r++)
			ratio[r] = kt[k].api[r] / kt[k].lib[r];
		printf("%s  pv_view_compute %7.1f ms  view endpoint %7.1f ms  %.3fx "
		       "(median of per-round ratios %.3fx; answer %zu rows, %zu bytes)\n",
		       labels[k], ml * 1e3, ma * 1e3, ma / ml, synth_median(ratio, rounds),
		       kt[k].rows, kt[k].bytes);
	}
	printf("(medians of %d alternated rounds, a new center each round)\n", rounds);
	pv_api_free(a);
	return 0;
}

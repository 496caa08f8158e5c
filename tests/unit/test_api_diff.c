/*
 * test_api_diff.c - the difference against a base in the web API (serve --base, doc/diff.md):
 * /api/diff answers what `profview diff --json` prints (the same library writer), /api/flame
 * with diff=1 the differential flame graph, /api/profile names the base; the errors. Figures
 * are those of tests/data/diff/README.md: base 100 samples, new 140; eval 40 -> 110 (self).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/diff.h"
#include "pv/format.h"
#include "pv/import.h"
#include "pv/serve.h"
#include "t.h"
#include "tp.h"

static char *call(struct pv_api *a, const char *endpoint, const char *query, int *status)
{
	char *body = NULL;
	size_t len = 0;
	const char *type = NULL;
	*status = pv_api_call(a, endpoint, query, &body, &len, &type);
	T_TRUE(body != NULL);
	return body;
}

/* new.txt in slot 0, base.txt in slot 1 (the base) */
static struct pv_api *diff_api(bool with_base)
{
	struct pv_api *a = NULL;
	T_EQ_INT(pv_api_new(&a, NULL), 0);
	T_EQ_INT(pv_api_add_profile(a, "new.txt", t_load_data("diff/new.txt")), 0);
	T_EQ_INT(pv_api_add_profile(a, "base.txt", t_load_data("diff/base.txt")), 1);
	if (with_base)
		pv_api_set_base(a, 1);
	return a;
}

/* What profview diff --json prints for the query of url, and normalize. */
static char *cli_json(const char *url, bool normalize)
{
	struct pv_profile *b = t_load_data("diff/base.txt"), *n = t_load_data("diff/new.txt");
	struct pv_query q;
	struct pv_error err;
	pv_error_clear(&err);
	T_EQ_INT(pv_query_from_url(&q, url, &err), 0);
	struct pv_diff *d = NULL;
	struct pv_diff_opts o = {normalize};
	T_EQ_INT(pv_diff_compute(b, n, &q, &o, &d, &err), 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct pv_print_opts po = {.json = true};
	T_EQ_INT(pv_print_diff(f, d, &po), 0);
	fclose(f);
	pv_diff_free(d);
	pv_query_release(&q);
	pv_profile_free(b);
	pv_profile_free(n);
	return buf;
}

T_TEST(api_diff_answers)
{
	struct pv_api *a = diff_api(true);
	static const char *const urls[] = {
	    "view=tree",    "view=top&sort=delta",	  "view=flat",
	    "view=callers", "view=butterfly&center=eval", "view=tree&center=parse&depth=1",
	};
	for (size_t i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
		for (int norm = 0; norm < 2; norm++) {
			char q[256];
			snprintf(q, sizeof(q), "%s%s", urls[i], norm ? "&normalize=1" : "");
			int status;
			char *body = call(a, "diff", q, &status);
			T_EQ_INT(status, 200);
			char *want = cli_json(urls[i], norm);
			if (!body || !want || strcmp(body, want) != 0)
				t_fail(__FILE__, __LINE__,
				       "diff?%s: the API and the CLI differ:\n%s\n%s", q,
				       body ? body : "", want ? want : "");
			free(want);
			free(body);
		}
	}
	int status;
	char *body = call(a, "diff", "view=top&sort=delta", &status);
	/* eval first (+70), then gc, the base's only (-20) */
	T_CONTAINS(body, "\"rows\": [\n  {\"name\": \"eval\", \"kind\": \"function\", \"module\": "
			 "null, \"file\": null, \"line\": null, \"scope\": \"eval\", \"side\": "
			 "\"both\", \"base\": "
			 "{\"total\": 40, \"self\": 40}, \"new\": {\"total\": 110, \"self\": 110}, "
			 "\"delta\": {\"total\": 70, \"self\": 70}");
	T_CONTAINS(body, "\"name\": \"gc\", \"kind\": \"function\", \"module\": null, \"file\": "
			 "null, \"line\": null, \"scope\": \"gc\", \"side\": \"base\"");
	free(body);

	body = call(a, "profile", "", &status);
	T_EQ_INT(status, 200);
	T_CONTAINS(body, "\"base\": {\"index\": 1, \"path\": \"base.txt\"}");
	free(body);
	body = call(a, "profile", "p=1", &status);
	T_TRUE(body && !strstr(body, "\"base\""));
	free(body);

	/* the differential flame graph: widths of the new, the base's totals beside */
	body = call(a, "flame", "diff=1", &status);
	T_EQ_INT(status, 200);
	T_CONTAINS(body, "\"total\": 140, \"base_total\": 100, \"normalize\": false");
	T_CONTAINS(
	    body,
	    "\"name\": \"eval\", \"scope\": \"eval\", \"total\": 80, \"self\": 80, \"base\": 40, "
	    "\"base_self\": 40");
	T_CONTAINS(
	    body, "\"name\": \"jit\", \"scope\": \"jit\", \"total\": 30, \"self\": 0, \"base\": 0");
	T_TRUE(body && !strstr(body, "\"gc\""));
	free(body);
	body = call(a, "flame", "diff=1&normalize=1", &status);
	/* base scaled by 140/100: eval 40 -> 56 */
	T_CONTAINS(
	    body,
	    "\"name\": \"eval\", \"scope\": \"eval\", \"total\": 80, \"self\": 80, \"base\": 56");
	free(body);
	/* a centered diff flame: both graphs */
	body = call(a, "flame", "diff=1&center=eval", &status);
	T_EQ_INT(status, 200);
	T_CONTAINS(body, "\"callers\": {\"key\": \"up:c\"");
	free(body);

	/* errors */
	body = call(a, "diff", "p=1", &status);
	T_EQ_INT(status, 400);
	T_CONTAINS(body, "profile 1 is the base");
	free(body);
	body = call(a, "diff", "normalize=2", &status);
	T_EQ_INT(status, 400);
	free(body);
	body = call(a, "diff", "center=nothere", &status);
	T_EQ_INT(status, 400);
	T_CONTAINS(body, "base profile: center 'nothere'");
	free(body);
	body = call(a, "view", "view=top&sort=delta", &status);
	T_EQ_INT(status, 400);
	T_CONTAINS(body, "--sort delta");
	free(body);
	pv_api_free(a);

	a = diff_api(false);
	body = call(a, "diff", "", &status);
	T_EQ_INT(status, 404);
	T_CONTAINS(body, "no base profile");
	free(body);
	body = call(a, "profile", "", &status);
	T_TRUE(body && !strstr(body, "\"base\""));
	free(body);
	pv_api_free(a);
}

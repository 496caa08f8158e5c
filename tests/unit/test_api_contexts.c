/*
 * test_api_contexts.c - the contexts endpoint (web/api_contexts.c, doc/api.md) in process, as
 * exact JSON hand-checked on collapsed/contexts-4.txt (tests/unit/test_contexts.c has the
 * arithmetic: solve is 8 3 10 0 inclusive, 2 0 1 0 exclusive), and its error answers.
 * Functions are numbered as the importer meets them: main f0, solve f1, kernel f2, io f3.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pv/import.h"
#include "pv/merge.h"
#include "pv/serve.h"
#include "pv/snapshot.h"
#include "t.h"

static char *call(struct pv_api *a, const char *query, int *status)
{
	char *body = NULL;
	size_t len = 0;
	const char *type = NULL;
	*status = pv_api_call(a, "contexts", query, &body, &len, &type);
	T_TRUE(body != NULL);
	return body;
}

#define SOLVE_SUMMARY                                                                        \
	"\"summary\": {\"total\": {\"n\": 4, \"nonzero\": 3, \"sum\": 21, \"mean\": 5.25, "  \
	"\"min\": "                                                                          \
	"0, \"max\": 10, \"stddev\": 3.96074487944, \"cv\": 0.754427596084, \"imbalance\": " \
	"1.90476190476}, \"self\": {\"n\": 4, \"nonzero\": 2, \"sum\": 3, \"mean\": 0.75, "  \
	"\"min\": 0, \"max\": 2, \"stddev\": 0.829156197589, \"cv\": 1.10554159679, "        \
	"\"imbalance\": "                                                                    \
	"2.66666666667}}"

/* center=solve&width=2&bins=4 on contexts-4.txt: two pixel columns ({8, 3}, {10, 0}), 4 bins
 * of 2.5 */
#define SOLVE_WIDTH2_BINS4                                                                   \
	"{\"row\": \"solve\", \"metric\": {\"name\": \"samples\", \"unit\": \"count\", "     \
	"\"shown\": {\"unit\": \"count\", \"per\": 1, \"decimals\": 0, \"named\": false}}, " \
	"\"note\": null, \"value\": \"total\", \"order\": \"index\", \"contexts\": 4, "      \
	"\"from\": 0, \"to\": 4, " SOLVE_SUMMARY ", \"columns\": [[3, 8, 1, 0, 0, 2], [0, "  \
	"10, 3, 2, 2, 2]], \"histogram\": {\"bins\": 4, \"min\": 0, \"width\": 2.5, "        \
	"\"counts\": [1, 1, 0, 2], \"threads\": [[3], [1], [], [0, 2]]}, \"names\": "        \
	"{\"1\": \"rank 1\", \"0\": \"rank 0\", \"3\": \"rank 3\", \"2\": \"rank 2\"}}\n"

T_TEST(api_contexts_plot_and_histogram)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	struct pv_api *a = NULL;
	if (pv_import_file(t_data("collapsed/contexts-4.txt"), NULL, &p, &err)) {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
		return;
	}
	T_EQ_INT(pv_api_new(&a, NULL), 0);
	T_EQ_INT(pv_api_add_profile(a, "contexts-4.txt", p), 0);
	int st;
	/* the center, two pixel columns ({8, 3}, {10, 0}), 4 bins of 2.5 */
	char *b = call(a, "center=solve&width=2&bins=4", &st);
	T_EQ_INT(st, 200);
	T_EQ_STR(b, SOLVE_WIDTH2_BINS4);
	free(b);
	/* the same row by its key in the tree (main > solve), sorted, the window [1, 3) */
	b = call(a, "key=f0/f1&order=value&from=1&to=3&bins=1", &st);
	T_EQ_INT(st, 200);
	T_CONTAINS(b,
		   "\"order\": \"value\", \"contexts\": 4, \"from\": 1, \"to\": 3, " SOLVE_SUMMARY
		   ", \"columns\": [[8, 8, 0, 0, 1, 1], [3, 3, 1, 1, 2, 1]]");
	T_CONTAINS(b, "\"histogram\": {\"bins\": 1, \"min\": 0, \"width\": 10, \"counts\": [4], "
		      "\"threads\": [[0, 1, 2, 3]]}");
	free(b);
	/* the butterfly's callees: down:c/f1 under the center main is main > solve */
	b = call(a, "view=butterfly&center=main&key=down:c/f1&value=self&width=4", &st);
	T_EQ_INT(st, 200);
	T_CONTAINS(b, "\"value\": \"self\"");
	T_CONTAINS(b, "\"columns\": [[2, 2, 0, 0, 0, 1], [0, 0, 1, 1, 1, 1], [1, 1, 2, 2, 2, 1], "
		      "[0, 0, 3, 3, 3, 1]]");
	free(b);
	/* a bottom-up row by its scope; contexts by a pattern on their names */
	b = call(a, "view=callers&scope=kernel&thread=re:rank%20%5b12%5d", &st);
	T_EQ_INT(st, 200);
	T_CONTAINS(b, "\"row\": \"kernel\"");
	T_CONTAINS(b, "\"contexts\": 2");
	T_CONTAINS(b, "\"columns\": [[3, 3, 1, 1, 0, 1], [9, 9, 2, 2, 1, 1]]");
	free(b);
	/* errors: one line each */
	b = call(a, "view=callers&key=f2", &st);
	T_EQ_INT(st, 400);
	T_CONTAINS(b, "is not a row of a top-down tree");
	free(b);
	b = call(a, "key=f9", &st);
	T_EQ_INT(st, 404);
	free(b);
	b = call(a, "key=f1&scope=solve", &st);
	T_EQ_INT(st, 400);
	free(b);
	b = call(a, "value=both", &st);
	T_EQ_INT(st, 400);
	T_CONTAINS(b, "value is total or self");
	free(b);
	b = call(a, "thread=re:nothing", &st);
	T_EQ_INT(st, 400);
	T_CONTAINS(b, "no thread name matches");
	free(b);
	pv_api_free(a);
}

/*
 * The four ranks of contexts-4.txt as four files of two formats (tests/data/merge/ranks), merged
 * into a snapshot as `profview merge` writes it and opened from the file as serve opens it: the
 * plot of solve over the ranks is the one of the original profile, the same answer to the byte.
 */
T_TEST(api_contexts_of_a_merged_snapshot)
{
	char *args[] = {(char *)t_data("merge/ranks")};
	char **paths = NULL;
	uint64_t n = 0;
	struct pv_error err;
	struct pv_merge *m = NULL;
	struct pv_profile *p = NULL;
	struct pv_merge_opts o = {.context_regex = "rank-([0-9]+)", .context_name = "rank {1}"};
	T_EQ_INT(pv_merge_inputs(args, 1, &paths, &n, &err), 0);
	T_EQ_INT(pv_merge_new(&o, &m, &err), 0);
	for (uint64_t i = 0; i < n; i++)
		T_EQ_INT(pv_merge_add_file(m, paths[i], i, &err), 0);
	pv_merge_inputs_free(paths, n);
	T_EQ_INT(pv_merge_finish(m, &p, &err), 0);
	pv_merge_free(m);
	char path[] = "/tmp/pv-merged-XXXXXX";
	int fd = mkstemp(path);
	T_TRUE(fd >= 0);
	close(fd);
	T_EQ_INT(pv_snapshot_write(p, path, NULL, &err), 0);
	pv_profile_free(p);
	p = NULL;
	T_EQ_INT(pv_import_file(path, NULL, &p, &err), 0);
	unlink(path);
	if (!p)
		return;
	T_EQ_INT(pv_profile_check(p, &err), 0);
	struct pv_api *a = NULL;
	T_EQ_INT(pv_api_new(&a, NULL), 0);
	T_EQ_INT(pv_api_add_profile(a, "merged.pvs", p), 0);
	int st;
	char *b = call(a, "center=solve&width=2&bins=4", &st);
	T_EQ_INT(st, 200);
	T_EQ_STR(b, SOLVE_WIDTH2_BINS4);
	free(b);
	pv_api_free(a);
}

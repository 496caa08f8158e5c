/*
 * test_api_view.c - the view endpoints of the web API (web/api_view.c, doc/api.md) in process:
 * view (tree, centered, callers, butterfly, flat and top pages), children, flame, thread-costs
 * and source, as exact JSON hand-checked against the worked example of doc/views.md; the
 * view endpoint's numbers against pv_view_compute on corpus files; the error answers.
 *
 * The worked example's functions are numbered in the order the collapsed importer meets them:
 * main f0, real_main f1, foo f2, bar f3, baz f4, qux f5, malloc f6.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/builder.h"
#include "pv/import.h"
#include "pv/serve.h"
#include "pv/view.h"
#include "t.h"
#include "tapi.h"

/* ---- helpers ---- */

/* The answer without its "query" object (the query reader's JSON is tested in test_query.c). */
static char *without_query(char *body)
{
	const char *q = "{\"query\": {";
	if (!body || strncmp(body, q, strlen(q)) != 0)
		return body;
	char *end = strstr(body, "}, \"url\": ");
	if (!end)
		return body;
	memmove(body + 1, end + 3, strlen(end + 3) + 1);
	return body;
}

#define EXPECT(a, ep, query, want_status, want)                                    \
	do {                                                                       \
		int st_;                                                           \
		char *body_ = without_query(t_api_call((a), (ep), (query), &st_)); \
		T_EQ_INT(st_, (want_status));                                      \
		T_JSON_EQ(body_, (want));                                          \
		free(body_);                                                       \
	} while (0)

/* the percentages' base is the center's total in these (no flat view with a center, no
 * percent=whole: api_view_percent_base) */
#define SHOWN_COUNT \
	"\"shown\": {\"unit\": \"count\", \"per\": 1, \"decimals\": 0, \"named\": false}"
#define HEAD(view, url, center_total, centered, label)                                    \
	"{\"url\": \"" url "\", \"view\": \"" view                                        \
	"\", \"metrics\": [{\"name\": \"samples\", \"unit\": "                            \
	"\"count\", " SHOWN_COUNT "}], \"whole\": [26], \"center_total\": [" center_total \
	"], \"nostack\": [0], \"base\": [" center_total "], \"centered\": " centered      \
	", \"center_label\": " label ", \"samples\": 7"

#define FN(key, name, depth, total, self, children, scope, path)                     \
	"{\"key\": \"" key "\", \"name\": \"" name                                   \
	"\", \"kind\": \"function\", \"module\": null, "                             \
	"\"file\": null, \"line\": null, \"depth\": " #depth ", \"total\": [" #total \
	"], \"self\": [" #self "], \"children\": " #children ", \"scope\": \"" scope \
	"\", \"path\": " path "}"

#define CENTER(key, name, total, self, children)                                                   \
	"{\"key\": \"" key "\", \"name\": \"" name "\", \"kind\": \"center\", \"module\": null, "  \
	"\"file\": null, \"line\": null, \"depth\": 0, \"total\": [" #total "], \"self\": [" #self \
	"], \"children\": " #children ", \"scope\": null, \"path\": null}"

#define EXPECT_VIEW(a, query, hd, rest) EXPECT(a, "view", query, 200, hd rest)

/* Its expected answers are literals pieced together by macros, which clang-format 14 breaks
 * apart differently on each run: the rest of the file is formatted by hand. */
/* clang-format off */
/* ---- view ---- */

T_TEST(api_view_tree)
{
	struct pv_api *a = t_api_of(t_data("collapsed/worked-example.txt"), NULL);
	if (!a)
		return;
	/* the roots only: nothing open */
	EXPECT_VIEW(a, "", HEAD("tree", "view=tree", "26", "false", "null"),
		    ", \"rows\": [\n" FN("f0", "main", 0, 26, 1, 3, "main", "\"path:main\"") "\n]}\n");
	/* main and real_main open; an open key of no row of this view is ignored */
	EXPECT_VIEW(a, "open=f0&open=f0/f1&open=f0/f9/f3&open=c", HEAD("tree", "view=tree", "26", "false", "null"),
		    ", \"rows\": [\n"
		    FN("f0", "main", 0, 26, 1, 3, "main", "\"path:main\"") ",\n"
		    FN("f0/f1", "real_main", 1, 15, 0, 2, "real_main", "\"path:main;real_main\"") ",\n"
		    FN("f0/f1/f2", "foo", 2, 11, 1, 1, "foo", "\"path:main;real_main;foo\"") ",\n"
		    FN("f0/f1/f6", "malloc", 2, 4, 4, 0, "malloc", "\"path:main;real_main;malloc\"") ",\n"
		    FN("f0/f2", "foo", 1, 7, 0, 2, "foo", "\"path:main;foo\"") ",\n"
		    FN("f0/f5", "qux", 1, 3, 0, 1, "qux", "\"path:main;qux\"") "\n]}\n");
	/* a row under a closed one is not sent, even when open */
	EXPECT_VIEW(a, "open=f0/f2", HEAD("tree", "view=tree", "26", "false", "null"),
		    ", \"rows\": [\n" FN("f0", "main", 0, 26, 1, 3, "main", "\"path:main\"") "\n]}\n");
	pv_api_free(a);
}

T_TEST(api_view_centered)
{
	struct pv_api *a = t_api_of(t_data("collapsed/worked-example.txt"), NULL);
	if (!a)
		return;
	/* doc/views.md: top-down, center foo: foo 18/1 > bar 12/10 > foo 2/0 > baz 2/2; baz 5/5 */
	EXPECT_VIEW(a, "center=foo&open=c/f3", HEAD("tree", "view=tree&center=foo", "18", "true", "\"foo\""),
		    ", \"rows\": [\n"
		    CENTER("c", "foo", 18, 1, 2) ",\n"
		    FN("c/f3", "bar", 1, 12, 10, 1, "bar", "null") ",\n"
		    FN("c/f3/f2", "foo", 2, 2, 0, 1, "foo", "null") ",\n"
		    FN("c/f4", "baz", 1, 5, 5, 0, "baz", "null") "\n]}\n");
	/* doc/views.md: bottom-up, center foo: real_main 11/1 > main 11/1; main 7/0 */
	EXPECT_VIEW(a, "view=callers&center=foo&open=c/f1", HEAD("callers", "view=callers&center=foo", "18", "true", "\"foo\""),
		    ", \"rows\": [\n"
		    CENTER("c", "foo", 18, 1, 2) ",\n"
		    FN("c/f1", "real_main", 1, 11, 1, 1, "real_main", "null") ",\n"
		    FN("c/f1/f0", "main", 2, 11, 1, 0, "main", "null") ",\n"
		    FN("c/f0", "main", 1, 7, 0, 0, "main", "null") "\n]}\n");
	/* doc/views.md: center {bar, baz}: <multiple contexts> 17/15 > foo 2/0 > baz 2/2 */
	EXPECT_VIEW(a, "center=bar&center=baz&open=c/f2", HEAD("tree", "view=tree&center=bar&center=baz", "17", "true", "\"<multiple contexts>\""),
		    ", \"rows\": [\n"
		    CENTER("c", "<multiple contexts>", 17, 15, 1) ",\n"
		    FN("c/f2", "foo", 1, 2, 0, 1, "foo", "null") ",\n"
		    FN("c/f2/f4", "baz", 2, 2, 2, 0, "baz", "null") "\n]}\n");
	/* centered on a call path: the rows below have paths through it */
	EXPECT_VIEW(a, "center=path:main;foo&open=c/f3", HEAD("tree", "view=tree&center=path%3Amain%3Bfoo", "7", "true", "\"foo\""),
		    ", \"rows\": [\n"
		    CENTER("c", "foo", 7, 0, 2) ",\n"
		    FN("c/f4", "baz", 1, 5, 5, 0, "baz", "\"path:main;foo;baz\"") ",\n"
		    FN("c/f3", "bar", 1, 2, 0, 1, "bar", "\"path:main;foo;bar\"") ",\n"
		    FN("c/f3/f2", "foo", 2, 2, 0, 1, "foo", "\"path:main;foo;bar;foo\"") "\n]}\n");
	/* the classic inverted tree: roots are the functions with self cost */
	EXPECT_VIEW(a, "view=callers", HEAD("callers", "view=callers", "26", "false", "null"),
		    ", \"rows\": [\n"
		    FN("f3", "bar", 0, 10, 10, 1, "bar", "null") ",\n"
		    FN("f4", "baz", 0, 7, 7, 1, "baz", "null") ",\n"
		    FN("f6", "malloc", 0, 7, 7, 2, "malloc", "null") ",\n"
		    FN("f2", "foo", 0, 1, 1, 1, "foo", "null") ",\n"
		    FN("f0", "main", 0, 1, 1, 0, "main", "null") "\n]}\n");
	pv_api_free(a);
}

/* the butterfly of center foo with its callers' real_main and its callees' bar open */
#define BUTTERFLY_FOO                                                               \
	", \"callers\": [\n" CENTER("up:c", "foo", 18, 1, 2) ",\n"                    \
	FN("up:c/f1", "real_main", 1, 11, 1, 1, "real_main", "null") ",\n"              \
	FN("up:c/f1/f0", "main", 2, 11, 1, 0, "main", "null") ",\n"                     \
	FN("up:c/f0", "main", 1, 7, 0, 0, "main", "null") "\n], \"rows\": [\n"           \
	CENTER("down:c", "foo", 18, 1, 2) ",\n"                                          \
	FN("down:c/f3", "bar", 1, 12, 10, 1, "bar", "null") ",\n"                       \
	FN("down:c/f3/f2", "foo", 2, 2, 0, 1, "foo", "null") ",\n"                      \
	FN("down:c/f4", "baz", 1, 5, 5, 0, "baz", "null") "\n]}\n"

T_TEST(api_view_butterfly)
{
	struct pv_api *a = t_api_of(t_data("collapsed/worked-example.txt"), NULL);
	if (!a)
		return;
	EXPECT_VIEW(a, "view=butterfly&center=foo&open=up:c/f1&open=down:c/f3&open=c/f4", HEAD("butterfly", "view=butterfly&center=foo", "18", "true", "\"foo\""),
		    BUTTERFLY_FOO);
	pv_api_free(a);
}

#define FLAT(key, name, kind, level, total, self, scope)                                         \
	"{\"key\": \"" key "\", \"name\": \"" name "\", \"kind\": \"" kind "\", \"level\": " #level \
	", \"in_center\": false, \"module\": null, \"file\": null, \"line\": null, \"total\": ["  \
	#total "], \"self\": [" #self "], \"scope\": " scope "}"

T_TEST(api_view_flat_and_top)
{
	struct pv_api *a = t_api_of(t_data("collapsed/worked-example.txt"), NULL);
	if (!a)
		return;
	/* doc/views.md: flat by function main 26/1, foo 18/1, real_main 15/0, bar 12/10, baz 7/7, ...;
	 * under the module and file rows ("no module", "no file"): rows 1 to 3 of 9 */
	EXPECT_VIEW(a, "view=flat&offset=1&limit=3", HEAD("flat", "view=flat", "26", "false", "null"),
		    ", \"nr_rows\": 9, \"rows\": [\n"
		    FLAT("m-/s-", "<unknown file>", "file", 1, 26, 26, "\"file:\"") ",\n"
		    FLAT("m-/s-/f0", "main", "function", 2, 26, 1, "\"main\"") ",\n"
		    FLAT("m-/s-/f2", "foo", "function", 2, 18, 1, "\"foo\"") "\n]}\n");
	/* the last page, past the end: nothing */
	EXPECT_VIEW(a, "view=flat&offset=8&limit=5", HEAD("flat", "view=flat", "26", "false", "null"),
		    ", \"nr_rows\": 9, \"rows\": [\n"
		    FLAT("m-/s-/f5", "qux", "function", 2, 3, 0, "\"qux\"") "\n]}\n");
	EXPECT_VIEW(a, "view=flat&offset=9", HEAD("flat", "view=flat", "26", "false", "null"),
		    ", \"nr_rows\": 9, \"rows\": []}\n");
	/* top, by total: one step per key */
	EXPECT_VIEW(a, "view=top&sort=total&limit=2&offset=1", HEAD("top", "view=top&sort=total", "26", "false", "null"),
		    ", \"nr_rows\": 7, \"rows\": [\n"
		    FLAT("f2", "foo", "function", 2, 18, 1, "\"foo\"") ",\n"
		    FLAT("f1", "real_main", "function", 2, 15, 0, "\"real_main\"") "\n]}\n");
	pv_api_free(a);
}

/* What the percentages are of ("base"): the whole for the flat view and with percent=whole. */
T_TEST(api_view_percent_base)
{
	struct pv_api *a = t_api_of(t_data("collapsed/worked-example.txt"), NULL);
	if (!a)
		return;
	int st;
	static const struct {
		const char *query, *base;
	} cases[] = {
	    {"center=foo", "\"base\": [18]"},
	    {"center=foo&percent=whole", "\"base\": [26]"},
	    {"view=flat&center=foo&limit=1", "\"base\": [26]"},
	    {"view=top&center=foo&limit=1", "\"base\": [18]"},
	    {"view=butterfly&center=foo&percent=whole", "\"base\": [26]"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *body = t_api_call(a, "view", cases[i].query, &st);
		T_EQ_INT(st, 200);
		if (body && !strstr(body, cases[i].base))
			t_fail(__FILE__, __LINE__, "%s: no %s in %.300s", cases[i].query,
			       cases[i].base, body);
		free(body);
	}
	pv_api_free(a);
}

/*
 * Samples without a stack (a window of a gcc run, tests/data/perf: 2 of 192 samples of 0.5 ms):
 * one (no stack) row, key "n", in the whole and the base, as `perf report` counts them.
 */
T_TEST(api_view_nostack_row)
{
	struct pv_api *a = t_api_of(t_data("perf/gcc.perf.txt.gz"), NULL);
	if (!a)
		return;
#define GCC_HEAD(view, url)                                                                     \
	"{\"url\": \"" url "\", \"view\": \"" view "\", \"metrics\": [{\"name\": \"cpu-clock\", "  \
	"\"unit\": \"ns\", \"shown\": {\"unit\": \"ms\", \"per\": 1000000, \"decimals\": 3, \"named\": false}}], \"whole\": [96000000], \"center_total\": [96000000], \"nostack\": "   \
	"[1000000], \"base\": [96000000], \"centered\": false, \"center_label\": null, "          \
	"\"samples\": 192"
#define NOSTACK_ROW(extra)                                                                      \
	"{\"key\": \"n\", \"name\": \"(no stack)\", \"kind\": \"nostack\", " extra "\"module\": " \
	"null, \"file\": null, \"line\": null, "
	/* top by self: [cc1] 34.5, exc_page_fault 2, _int_malloc 2, walk_stmt_load_store_addr_ops
	 * 2, __memset_avx2_unaligned_erms 1, then (no stack) 1 (before the other 1 ms rows: "(" sorts
	 * before letters) */
	EXPECT_VIEW(a, "view=top&limit=1&offset=5", GCC_HEAD("top", "view=top"),
		    ", \"nr_rows\": 151, \"rows\": [\n" NOSTACK_ROW("\"level\": 2, \"in_center\": false, ")
		    "\"total\": [1000000], \"self\": [1000000], \"scope\": null}\n]}\n");
	EXPECT(a, "children", "key=n", 200, "{\"rows\": []}\n");
	EXPECT(a, "thread-costs", "key=n", 200,
	       "{\"key\": \"n\", \"name\": \"(no stack)\", \"metrics\": [{\"name\": \"cpu-clock\", "
	       "\"unit\": \"ns\", \"shown\": {\"unit\": \"ms\", \"per\": 1000000, \"decimals\": 3, \"named\": false}}], \"truncated\": false, \"threads\": [\n"
	       "{\"index\": 0, \"name\": \"cc1\", \"tid\": 10406, \"total\": [1000000], \"self\": "
	       "[1000000]}\n]}\n");
	/* a root of the top-down and the inverted trees */
	int st;
	static const char *const views[] = {"view=tree", "view=callers"};
	for (size_t i = 0; i < 2; i++) {
		char *body = t_api_call(a, "view", views[i], &st);
		T_EQ_INT(st, 200);
		if (body && !strstr(body, NOSTACK_ROW("") "\"depth\": 0, \"total\": [1000000], "
					  "\"self\": [1000000], \"children\": 0, \"scope\": "
					  "null, \"path\": null}"))
			t_fail(__FILE__, __LINE__, "%s: no (no stack) row in %.300s", views[i], body);
		free(body);
	}
#undef GCC_HEAD
#undef NOSTACK_ROW
	pv_api_free(a);
}

/* the worked example's rows with main > real_main > foo opened */
#define HEAVIEST_ROWS \
	FN("f0", "main", 0, 26, 1, 3, "main", "\"path:main\"") ",\n" \
	FN("f0/f1", "real_main", 1, 15, 0, 2, "real_main", "\"path:main;real_main\"") ",\n" \
	FN("f0/f1/f2", "foo", 2, 11, 1, 1, "foo", "\"path:main;real_main;foo\"") ",\n" \
	FN("f0/f1/f2/f3", "bar", 3, 10, 10, 0, "bar", "\"path:main;real_main;foo;bar\"") ",\n" \
	FN("f0/f1/f6", "malloc", 2, 4, 4, 0, "malloc", "\"path:main;real_main;malloc\"") ",\n" \
	FN("f0/f2", "foo", 1, 7, 0, 2, "foo", "\"path:main;foo\"") ",\n" \
	FN("f0/f5", "qux", 1, 3, 0, 1, "qux", "\"path:main;qux\"") "\n]}\n"

/* heaviest=N: the heaviest path opened N rows deep in the same answer, its keys in "opened" */
T_TEST(api_view_heaviest)
{
	struct pv_api *a = t_api_of(t_data("collapsed/worked-example.txt"), NULL);
	if (!a)
		return;
	/* main 26 > real_main 15 > foo 11 > bar 10 (a leaf: the path ends at foo) */
	EXPECT_VIEW(a, "heaviest=12", HEAD("tree", "view=tree", "26", "false", "null"),
		    ", \"opened\": [\"f0\", \"f0/f1\", \"f0/f1/f2\"], \"rows\": [\n"
		    HEAVIEST_ROWS);
	/* two levels, with an open key of its own (main's foo) */
	EXPECT_VIEW(a, "heaviest=2&open=f0/f2", HEAD("tree", "view=tree", "26", "false", "null"),
		    ", \"opened\": [\"f0\", \"f0/f1\"], \"rows\": [\n"
		    FN("f0", "main", 0, 26, 1, 3, "main", "\"path:main\"") ",\n"
		    FN("f0/f1", "real_main", 1, 15, 0, 2, "real_main", "\"path:main;real_main\"") ",\n"
		    FN("f0/f1/f2", "foo", 2, 11, 1, 1, "foo", "\"path:main;real_main;foo\"") ",\n"
		    FN("f0/f1/f6", "malloc", 2, 4, 4, 0, "malloc", "\"path:main;real_main;malloc\"") ",\n"
		    FN("f0/f2", "foo", 1, 7, 0, 2, "foo", "\"path:main;foo\"") ",\n"
		    FN("f0/f2/f4", "baz", 2, 5, 5, 0, "baz", "\"path:main;foo;baz\"") ",\n"
		    FN("f0/f2/f3", "bar", 2, 2, 0, 1, "bar", "\"path:main;foo;bar\"") ",\n"
		    FN("f0/f5", "qux", 1, 3, 0, 1, "qux", "\"path:main;qux\"") "\n]}\n");
	/* from the center: foo 18 > bar 12 > foo 2 (> baz 2) */
	EXPECT_VIEW(a, "center=foo&heaviest=3", HEAD("tree", "view=tree&center=foo", "18", "true", "\"foo\""),
		    ", \"opened\": [\"c\", \"c/f3\", \"c/f3/f2\"], \"rows\": [\n"
		    CENTER("c", "foo", 18, 1, 2) ",\n"
		    FN("c/f3", "bar", 1, 12, 10, 1, "bar", "null") ",\n"
		    FN("c/f3/f2", "foo", 2, 2, 0, 1, "foo", "null") ",\n"
		    FN("c/f3/f2/f4", "baz", 3, 2, 2, 0, "baz", "null") ",\n"
		    FN("c/f4", "baz", 1, 5, 5, 0, "baz", "null") "\n]}\n");
	/* 0 levels: nothing opened (the center still is) */
	EXPECT_VIEW(a, "center=foo&heaviest=0", HEAD("tree", "view=tree&center=foo", "18", "true", "\"foo\""),
		    ", \"opened\": [], \"rows\": [\n"
		    CENTER("c", "foo", 18, 1, 2) ",\n"
		    FN("c/f3", "bar", 1, 12, 10, 1, "bar", "null") ",\n"
		    FN("c/f4", "baz", 1, 5, 5, 0, "baz", "null") "\n]}\n");
	/* the butterfly: both sides, callers first */
	EXPECT_VIEW(a, "view=butterfly&center=foo&heaviest=2", HEAD("butterfly", "view=butterfly&center=foo", "18", "true", "\"foo\""),
		    ", \"opened\": [\"up:c\", \"up:c/f1\", \"down:c\", \"down:c/f3\"]" BUTTERFLY_FOO);
	/* flat views have no path to open; a bad count is a 400 */
	EXPECT_VIEW(a, "view=top&sort=total&limit=1&heaviest=4", HEAD("top", "view=top&sort=total", "26", "false", "null"),
		    ", \"opened\": [], \"nr_rows\": 7, \"rows\": [\n"
		    FLAT("f0", "main", "function", 2, 26, 1, "\"main\"") "\n]}\n");
	EXPECT(a, "view", "heaviest=-1", 400, "{\"error\": \"heaviest takes a count, not '-1'\"}");
	pv_api_free(a);
}

/* first=1: the row the page opens on (pv_view_first_path), its path in "opened", the row itself
 * in "selected" */
T_TEST(api_view_first)
{
	struct pv_api *a = t_api_of(t_data("collapsed/worked-example.txt"), NULL);
	if (!a)
		return;
	/* main 26 > real_main 15 > foo 11 > bar 10: bar, 38 % of main, selected */
	EXPECT_VIEW(a, "first=1", HEAD("tree", "view=tree", "26", "false", "null"),
		    ", \"opened\": [\"f0\", \"f0/f1\", \"f0/f1/f2\", \"f0/f1/f2/f3\"], \"selected\": \"f0/f1/f2/f3\", \"rows\": [\n"
		    HEAVIEST_ROWS);
	/* a butterfly: its callees from the center, foo 18 > bar 12 > foo 2 > baz 2 */
	int st;
	char *b = t_api_call(a, "view", "view=butterfly&center=foo&first=1", &st);
	T_EQ_INT(st, 200);
	T_CONTAINS(b, "\"opened\": [\"down:c\", \"down:c/f3\", \"down:c/f3/f2\", \"down:c/f3/f2/f4\"], \"selected\": \"down:c/f3/f2/f4\"");
	free(b);
	/* nothing to select */
	b = t_api_call(a, "view", "first=1&range=1000:2000", &st);
	T_EQ_INT(st, 200);
	T_CONTAINS(b, "\"opened\": [], \"selected\": null, \"rows\": []");
	free(b);
	pv_api_free(a);
}

/* ---- children ---- */

T_TEST(api_view_children)
{
	struct pv_api *a = t_api_of(t_data("collapsed/worked-example.txt"), NULL);
	if (!a)
		return;
	EXPECT(a, "children", "key=f0", 200,
	       "{\"rows\": [\n"
	       FN("f0/f1", "real_main", 1, 15, 0, 2, "real_main", "\"path:main;real_main\"") ",\n"
	       FN("f0/f2", "foo", 1, 7, 0, 2, "foo", "\"path:main;foo\"") ",\n"
	       FN("f0/f5", "qux", 1, 3, 0, 1, "qux", "\"path:main;qux\"") "\n]}\n");
	EXPECT(a, "children", "key=f0/f2/f3", 200,
	       "{\"rows\": [\n"
	       FN("f0/f2/f3/f2", "foo", 3, 2, 0, 1, "foo", "\"path:main;foo;bar;foo\"") "\n]}\n");
	EXPECT(a, "children", "key=f0/f1/f6", 200, "{\"rows\": []}\n");
	/* up:/down: keys name rows of the butterfly of the same query */
	EXPECT(a, "children", "center=foo&key=up:c", 200,
	       "{\"rows\": [\n"
	       FN("up:c/f1", "real_main", 1, 11, 1, 1, "real_main", "null") ",\n"
	       FN("up:c/f0", "main", 1, 7, 0, 0, "main", "null") "\n]}\n");
	EXPECT(a, "children", "center=path:main;foo&key=c/f3", 200,
	       "{\"rows\": [\n"
	       FN("c/f3/f2", "foo", 2, 2, 0, 1, "foo", "\"path:main;foo;bar;foo\"") "\n]}\n");
	/* the module and file rows of the flat view have rows below them */
	EXPECT(a, "children", "view=flat&key=m-", 200,
	       "{\"rows\": [\n" FLAT("m-/s-", "<unknown file>", "file", 1, 26, 26, "\"file:\"") "\n]}\n");
	/* unknown rows and malformed keys: 404; no key: 400 */
	EXPECT(a, "children", "key=f0/f9", 404, "{\"error\": \"no row 'f0/f9' in this view\"}");
	EXPECT(a, "children", "key=f00", 404, "{\"error\": \"no row 'f00' in this view\"}");
	EXPECT(a, "children", "key=f0/", 404, "{\"error\": \"no row 'f0/' in this view\"}");
	EXPECT(a, "children", "key=c", 404, "{\"error\": \"no row 'c' in this view\"}");
	EXPECT(a, "children", "key=up:c", 404, "{\"error\": \"no row 'up:c' in this view\"}");
	EXPECT(a, "children", "key=f4294967295", 404,
	       "{\"error\": \"no row 'f4294967295' in this view\"}");
	/* the empty key names the roots */
	EXPECT(a, "children", "key=", 200,
	       "{\"rows\": [\n" FN("f0", "main", 0, 26, 1, 3, "main", "\"path:main\"") "\n]}\n");
	EXPECT(a, "children", "", 400, "{\"error\": \"missing parameter 'key'\"}");
	pv_api_free(a);
}

/* ---- per-parent limit: "more" rows ---- */

#define MORE(key, parent, offset, more, word, depth, total, self)                                    \
	"{\"key\": \"" key "\", \"name\": \"\xe2\x80\xa6 " #more " more " word "\", \"kind\": \"more\", " \
	"\"parent\": \"" parent "\", \"offset\": " #offset ", \"more\": " #more                \
	", \"depth\": " #depth ", \"total\": [" #total "], \"self\": [" #self "], \"children\": 0}"

T_TEST(api_view_limit)
{
	struct pv_api *a = t_api_of(t_data("collapsed/worked-example.txt"), NULL);
	if (!a)
		return;
	/* main's children real_main 15, foo 7, qux 3: two of them, then the rest as one row */
	EXPECT_VIEW(a, "open=f0&limit=2", HEAD("tree", "view=tree", "26", "false", "null"),
		    ", \"rows\": [\n"
		    FN("f0", "main", 0, 26, 1, 3, "main", "\"path:main\"") ",\n"
		    FN("f0/f1", "real_main", 1, 15, 0, 2, "real_main", "\"path:main;real_main\"") ",\n"
		    FN("f0/f2", "foo", 1, 7, 0, 2, "foo", "\"path:main;foo\"") ",\n"
		    MORE("f0/+2", "f0", 2, 1, "row", 1, 3, 0) "\n]}\n");
	/* every list is cut: real_main's (foo 11, malloc 4) and main's */
	EXPECT_VIEW(a, "open=f0&open=f0/f1&limit=1", HEAD("tree", "view=tree", "26", "false", "null"),
		    ", \"rows\": [\n"
		    FN("f0", "main", 0, 26, 1, 3, "main", "\"path:main\"") ",\n"
		    FN("f0/f1", "real_main", 1, 15, 0, 2, "real_main", "\"path:main;real_main\"") ",\n"
		    FN("f0/f1/f2", "foo", 2, 11, 1, 1, "foo", "\"path:main;real_main;foo\"") ",\n"
		    MORE("f0/f1/+1", "f0/f1", 1, 1, "row", 2, 4, 4) ",\n"
		    MORE("f0/+1", "f0", 1, 2, "rows", 1, 10, 0) "\n]}\n");
	/* the roots too: the inverted tree's bar 10, baz 7, then malloc 7, foo 1, main 1 */
	EXPECT_VIEW(a, "view=callers&limit=2", HEAD("callers", "view=callers", "26", "false", "null"),
		    ", \"rows\": [\n"
		    FN("f3", "bar", 0, 10, 10, 1, "bar", "null") ",\n"
		    FN("f4", "baz", 0, 7, 7, 1, "baz", "null") ",\n"
		    MORE("+2", "", 2, 3, "rows", 0, 9, 9) "\n]}\n");
	/* children pages: offset and limit; the empty key pages the roots */
	EXPECT(a, "children", "view=callers&key=&offset=2&limit=2", 200,
	       "{\"rows\": [\n"
	       FN("f6", "malloc", 0, 7, 7, 2, "malloc", "null") ",\n"
	       FN("f2", "foo", 0, 1, 1, 1, "foo", "null") ",\n"
	       MORE("+4", "", 4, 1, "row", 0, 1, 1) "\n]}\n");
	EXPECT(a, "children", "key=f0&offset=1&limit=1", 200,
	       "{\"rows\": [\n"
	       FN("f0/f2", "foo", 1, 7, 0, 2, "foo", "\"path:main;foo\"") ",\n"
	       MORE("f0/+2", "f0", 2, 1, "row", 1, 3, 0) "\n]}\n");
	/* the last page has no "more" row; past the end, nothing */
	EXPECT(a, "children", "key=f0&offset=2&limit=1", 200,
	       "{\"rows\": [\n" FN("f0/f5", "qux", 1, 3, 0, 1, "qux", "\"path:main;qux\"") "\n]}\n");
	EXPECT(a, "children", "key=f0&offset=3", 200, "{\"rows\": []}\n");
	EXPECT(a, "children", "key=f0&offset=99&limit=5", 200, "{\"rows\": []}\n");
	/* a butterfly side's roots; a placeholder's key names no row */
	EXPECT(a, "children", "view=butterfly&center=foo&key=up:&limit=1", 200,
	       "{\"rows\": [\n" CENTER("up:c", "foo", 18, 1, 2) "\n]}\n");
	EXPECT(a, "children", "key=f0/%2B2", 404, "{\"error\": \"no row 'f0/+2' in this view\"}");
	EXPECT(a, "children", "key=f0&limit=x", 400, "{\"error\": \"limit takes a count, not 'x'\"}");
	pv_api_free(a);
}

/* ---- flame ---- */

T_TEST(api_view_flame)
{
	struct pv_api *a = t_api_of(t_data("collapsed/worked-example.txt"), NULL);
	if (!a)
		return;
	/* the three heaviest rows: main 26, real_main 15, then real_main's foo 11 (not main's foo 7) */
	EXPECT(a, "flame", "max-nodes=3", 200,
	       "{\"metric\": \"samples\", \"unit\": \"count\", \"shown\": {\"unit\": \"count\", \"per\": 1, \"decimals\": 0, \"named\": false}, \"total\": 26, \"callees\": "
	       "{\"key\": \"\", \"name\": \"(all)\", \"scope\": null, \"total\": 26, \"self\": 0, \"children\": ["
	       "{\"key\": \"f0\", \"name\": \"main\", \"scope\": \"main\", \"total\": 26, \"self\": 1, \"children\": ["
	       "{\"key\": \"f0/f1\", \"name\": \"real_main\", \"scope\": \"real_main\", \"total\": 15, \"self\": 0, \"children\": ["
	       "{\"key\": \"f0/f1/f2\", \"name\": \"foo\", \"scope\": \"foo\", \"total\": 11, \"self\": 1, \"children\": []}"
	       "]}]}]}, \"callers\": null}\n");
	/* centered: the sandwich; the two centers, then bar 12 above and real_main 11 below */
	EXPECT(a, "flame", "center=foo&max-nodes=4", 200,
	       "{\"metric\": \"samples\", \"unit\": \"count\", \"shown\": {\"unit\": \"count\", \"per\": 1, \"decimals\": 0, \"named\": false}, \"total\": 26, \"callees\": "
	       "{\"key\": \"down:c\", \"name\": \"foo\", \"scope\": null, \"total\": 18, \"self\": 1, \"children\": ["
	       "{\"key\": \"down:c/f3\", \"name\": \"bar\", \"scope\": \"bar\", \"total\": 12, \"self\": 10, \"children\": []}"
	       "]}, \"callers\": "
	       "{\"key\": \"up:c\", \"name\": \"foo\", \"scope\": null, \"total\": 18, \"self\": 1, \"children\": ["
	       "{\"key\": \"up:c/f1\", \"name\": \"real_main\", \"scope\": \"real_main\", \"total\": 11, \"self\": 1, \"children\": []}"
	       "]}}\n");
	/* everything (the default 20000) */
	EXPECT(a, "flame", "center=foo", 200,
	       "{\"metric\": \"samples\", \"unit\": \"count\", \"shown\": {\"unit\": \"count\", \"per\": 1, \"decimals\": 0, \"named\": false}, \"total\": 26, \"callees\": "
	       "{\"key\": \"down:c\", \"name\": \"foo\", \"scope\": null, \"total\": 18, \"self\": 1, \"children\": ["
	       "{\"key\": \"down:c/f3\", \"name\": \"bar\", \"scope\": \"bar\", \"total\": 12, \"self\": 10, \"children\": ["
	       "{\"key\": \"down:c/f3/f2\", \"name\": \"foo\", \"scope\": \"foo\", \"total\": 2, \"self\": 0, \"children\": ["
	       "{\"key\": \"down:c/f3/f2/f4\", \"name\": \"baz\", \"scope\": \"baz\", \"total\": 2, \"self\": 2, \"children\": []}"
	       "]}]}, "
	       "{\"key\": \"down:c/f4\", \"name\": \"baz\", \"scope\": \"baz\", \"total\": 5, \"self\": 5, \"children\": []}"
	       "]}, \"callers\": "
	       "{\"key\": \"up:c\", \"name\": \"foo\", \"scope\": null, \"total\": 18, \"self\": 1, \"children\": ["
	       "{\"key\": \"up:c/f1\", \"name\": \"real_main\", \"scope\": \"real_main\", \"total\": 11, \"self\": 1, \"children\": ["
	       "{\"key\": \"up:c/f1/f0\", \"name\": \"main\", \"scope\": \"main\", \"total\": 11, \"self\": 1, \"children\": []}"
	       "]}, "
	       "{\"key\": \"up:c/f0\", \"name\": \"main\", \"scope\": \"main\", \"total\": 7, \"self\": 0, \"children\": []}"
	       "]}}\n");
	/* a center no sample reaches: a zero node each */
	EXPECT(a, "flame", "center=malloc&filter=drop:malloc", 200,
	       "{\"metric\": \"samples\", \"unit\": \"count\", \"shown\": {\"unit\": \"count\", \"per\": 1, \"decimals\": 0, \"named\": false}, \"total\": 19, \"callees\": "
	       "{\"key\": \"down:c\", \"name\": \"malloc\", \"scope\": null, \"total\": 0, \"self\": 0, \"children\": []}, "
	       "\"callers\": "
	       "{\"key\": \"up:c\", \"name\": \"malloc\", \"scope\": null, \"total\": 0, \"self\": 0, \"children\": []}}\n");
	EXPECT(a, "flame", "max-nodes=0", 400, "{\"error\": \"max-nodes takes 1 to 1000000\"}");
	EXPECT(a, "flame", "max-nodes=x", 400, "{\"error\": \"max-nodes takes a count, not 'x'\"}");
	pv_api_free(a);
}

/* max-rows: every answer's rows in all; past it, the rest of each open list is one MORE row */
T_TEST(api_view_max_rows)
{
	struct pv_api *a = t_api_of(t_data("collapsed/worked-example.txt"), NULL);
	if (!a)
		return;
	/* main, real_main, then main's foo 7 and qux 3 as one row */
	EXPECT_VIEW(a, "open=f0&max-rows=2",
		    HEAD("tree", "view=tree&max-rows=2", "26", "false", "null"),
		    ", \"rows\": [\n"
		    FN("f0", "main", 0, 26, 1, 3, "main", "\"path:main\"") ",\n"
		    FN("f0/f1", "real_main", 1, 15, 0, 2, "real_main", "\"path:main;real_main\"") ",\n"
		    MORE("f0/+1", "f0", 1, 2, "rows", 1, 10, 0) "\n]}\n");
	/* the roots of the inverted tree: bar 10, then baz 7, malloc 7, foo 1, main 1 */
	EXPECT(a, "children", "view=callers&key=&max-rows=1", 200,
	       "{\"rows\": [\n"
	       FN("f3", "bar", 0, 10, 10, 1, "bar", "null") ",\n"
	       MORE("+1", "", 1, 4, "rows", 0, 16, 16) "\n]}\n");
	EXPECT(a, "view", "max-rows=x", 400,
	       "{\"error\": \"max-rows takes a count of rows (0: no limit), not 'x'\"}");
	pv_api_free(a);
}

/* flame width=W: rows narrower than a pixel (total / W of the graph's width) are left out */
T_TEST(api_view_flame_width)
{
	struct pv_api *a = t_api_of(t_data("collapsed/worked-example.txt"), NULL);
	if (!a)
		return;
	/* a pixel of 26 over 2 pixels is 13: main 26 and real_main 15 stay, foo 11 goes */
	EXPECT(a, "flame", "width=2", 200,
	       "{\"metric\": \"samples\", \"unit\": \"count\", \"shown\": {\"unit\": \"count\", \"per\": 1, \"decimals\": 0, \"named\": false}, \"total\": 26, \"callees\": "
	       "{\"key\": \"\", \"name\": \"(all)\", \"scope\": null, \"total\": 26, \"self\": 0, \"children\": ["
	       "{\"key\": \"f0\", \"name\": \"main\", \"scope\": \"main\", \"total\": 26, \"self\": 1, \"children\": ["
	       "{\"key\": \"f0/f1\", \"name\": \"real_main\", \"scope\": \"real_main\", \"total\": 15, \"self\": 0, "
	       "\"children\": []}]}]}, \"callers\": null}\n");
	EXPECT(a, "flame", "width=100001", 400,
	       "{\"error\": \"width takes 0 to 100000 pixels, not 100001\"}");
	pv_api_free(a);
}

/* One stack 100,000 frames deep ("f0;...;f99999 7"): every answer stays small. */
T_TEST(api_view_deep_stack)
{
	uint32_t n = 100000;
	size_t cap = (size_t)n * 8 + 16, o = 0;
	char *t = malloc(cap);
	if (!t)
		return;
	for (uint32_t i = 0; i < n; i++)
		o += (size_t)snprintf(t + o, cap - o, "%sf%u", i ? ";" : "", i);
	o += (size_t)snprintf(t + o, cap - o, " 7\n");
	struct pv_profile *p = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_memory("deep.txt", t, o, NULL, &p, &err), 0);
	free(t);
	struct pv_api *a = NULL;
	T_EQ_INT(pv_api_new(&a, NULL), 0);
	if (!p || !a)
		return;
	T_EQ_INT(pv_api_add_profile(a, "deep.txt", p), 0);
	int st;
	/*
	 * flame: a key names the whole path, so the keys of a chain grow with the square of its
	 * depth (1.2 GB for 20,000 rows); they stop at 256 bytes a node asked (pv_key_text_budget):
	 * 5,120,000 bytes of keys for the default 20,000 nodes, i.e. the first 1,438 rows of the
	 * chain (f0 .. f1437: keys of 2 .. 7,516 bytes, the steps and their '/').
	 */
	char *b = t_api_call(a, "flame", "", &st);
	T_EQ_INT(st, 200);
	T_TRUE(b && strlen(b) < 5500000);
	T_TRUE(b && t_json_has(b, "\"key\": \"f0/f1/f2\", \"name\": \"f2\", \"scope\": \"f2\", \"total\": 7"));
	T_TRUE(b && t_json_has(b, "\"name\": \"f1437\""));
	T_TRUE(b && !t_json_has(b, "\"name\": \"f1438\""));
	free(b);
	/* the inverted tree: its heaviest path opened 12 rows deep, 13 rows sent */
	b = t_api_call(a, "view", "view=callers&heaviest=12", &st);
	T_EQ_INT(st, 200);
	T_TRUE(b && strlen(b) < 8000);
	T_TRUE(b && t_json_has(b, "\"opened\": [\"f99999\", \"f99999/f99998\""));
	free(b);
	/* the children of a row 1,000 deep: one row, its key and path 1,001 steps long */
	size_t kcap = 8 * 1000 + 16, ko = 0;
	char *q = malloc(kcap + 8);
	ko += (size_t)snprintf(q, kcap, "key=");
	for (uint32_t i = 0; i < 1000; i++)
		ko += (size_t)snprintf(q + ko, kcap - ko, "%sf%u", i ? "%2F" : "", i);
	b = t_api_call(a, "children", q, &st);
	free(q);
	T_EQ_INT(st, 200);
	T_TRUE(b && t_json_has(b, "\"name\": \"f1000\", \"kind\": \"function\""));
	T_TRUE(b && t_json_has(b, ";f999;f1000\"}"));
	free(b);
	pv_api_free(a);
}

/*
 * A small profile with a source file (tests/data/web/hello.c) and five threads: main (tid 1),
 * worker (tid 2), worker (tid 3), and twice w (tid 7), which no query can tell apart.
 *   main@5 > add@3: main x2, worker/2 x1, the first w x1
 *   main@5:         main x1, worker/3 x1, the second w x1
 */
static struct pv_profile *hello_profile(const char *source)
{
	struct pv_builder b;
	if (builder_init(&b))
		return NULL;
	pv_source_ix src = builder_source(&b, builder_cstr(&b, source));
	pv_func_ix fmain = builder_func(&b, builder_cstr(&b, "main"), PV_NONE, src, 5);
	pv_func_ix fadd = builder_func(&b, builder_cstr(&b, "add"), PV_NONE, src, 1);
	struct frame_key km = {.func = fmain, .line = 5, .addr = PV_ADDR_NONE, .category = PV_NONE};
	struct frame_key ka = {.func = fadd, .line = 3, .addr = PV_ADDR_NONE, .category = PV_NONE};
	pv_stack_ix s1 = builder_stack(&b, PV_NONE, builder_frame(&b, &km));
	pv_stack_ix s2 = builder_stack(&b, s1, builder_frame(&b, &ka));
	builder_metric(&b, builder_cstr(&b, "samples"), PV_UNIT_COUNT);
	pv_thread_ix tmain = builder_thread(&b, builder_cstr(&b, "main"), 1, 1, 0);
	pv_thread_ix tw2 = builder_thread(&b, builder_cstr(&b, "worker"), 1, 2, 0);
	pv_thread_ix tw3 = builder_thread(&b, builder_cstr(&b, "worker"), 1, 3, 0);
	pv_thread_ix tx = builder_thread(&b, builder_cstr(&b, "w"), 1, 7, 0);
	pv_thread_ix ty = builder_thread(&b, builder_cstr(&b, "w"), 1, 7, 0);
	int64_t t = 0;
	builder_sample(&b, tmain, s2, t++, NULL);
	builder_sample(&b, tmain, s2, t++, NULL);
	builder_sample(&b, tmain, s1, t++, NULL);
	builder_sample(&b, tw2, s2, t++, NULL);
	builder_sample(&b, tw3, s1, t++, NULL);
	builder_sample(&b, tx, s2, t++, NULL);
	builder_sample(&b, ty, s1, t++, NULL);
	struct pv_profile *p = NULL;
	if (builder_finish(&b, &p)) {
		builder_release(&b);
		return NULL;
	}
	builder_release(&b);
	return p;
}

static struct pv_api *hello_api(const char *profile_path, const char *source,
				const char *source_root)
{
	struct pv_profile *p = hello_profile(source);
	struct pv_api *a = NULL;
	T_TRUE(p != NULL);
	if (!p || pv_api_new(&a, source_root)) {
		pv_profile_free(p);
		return NULL;
	}
	T_EQ_INT(pv_api_add_profile(a, profile_path, p), 0);
	return a;
}

/* ---- thread-costs ---- */

T_TEST(api_view_thread_costs)
{
	struct pv_api *a = hello_api(t_data("web/profile"), "hello.c", NULL);
	if (!a)
		return;
	/* main > add on each thread; the two "w" threads share name and tid: picked by index ("#3") */
	EXPECT(a, "thread-costs", "key=f0/f1", 200,
	       "{\"key\": \"f0/f1\", \"name\": \"add\", \"metrics\": [{\"name\": \"samples\", "
	       "\"unit\": \"count\", \"shown\": {\"unit\": \"count\", \"per\": 1, \"decimals\": 0, \"named\": false}}], \"truncated\": false, \"threads\": [\n"
	       "{\"index\": 0, \"name\": \"main\", \"tid\": 1, \"total\": [2], \"self\": [2]},\n"
	       "{\"index\": 1, \"name\": \"worker\", \"tid\": 2, \"total\": [1], \"self\": [1]},\n"
	       "{\"index\": 2, \"name\": \"worker\", \"tid\": 3, \"total\": [0], \"self\": [0]},\n"
	       "{\"index\": 3, \"name\": \"w\", \"tid\": 7, \"total\": [1], \"self\": [1]},\n"
	       "{\"index\": 4, \"name\": \"w\", \"tid\": 7, \"total\": [0], \"self\": [0]}\n]}\n");
	/* the query's own threads only; a line row of a flat view (by line) */
	EXPECT(a, "thread-costs", "thread=worker&view=top&by=line&key=l0:5", 200,
	       "{\"key\": \"l0:5\", \"name\": \"hello.c: 5\", \"metrics\": [{\"name\": \"samples\", "
	       "\"unit\": \"count\", \"shown\": {\"unit\": \"count\", \"per\": 1, \"decimals\": 0, \"named\": false}}], \"truncated\": false, \"threads\": [\n"
	       "{\"index\": 1, \"name\": \"worker\", \"tid\": 2, \"total\": [1], \"self\": [0]},\n"
	       "{\"index\": 2, \"name\": \"worker\", \"tid\": 3, \"total\": [1], \"self\": [1]}\n]}\n");
	/* the callers' side of a butterfly, asked with the tree's query (self: the center's self
	 * that flows through the row) */
	EXPECT(a, "thread-costs", "center=add&key=up:c/f0", 200,
	       "{\"key\": \"up:c/f0\", \"name\": \"main\", \"metrics\": [{\"name\": \"samples\", "
	       "\"unit\": \"count\", \"shown\": {\"unit\": \"count\", \"per\": 1, \"decimals\": 0, \"named\": false}}], \"truncated\": false, \"threads\": [\n"
	       "{\"index\": 0, \"name\": \"main\", \"tid\": 1, \"total\": [2], \"self\": [2]},\n"
	       "{\"index\": 1, \"name\": \"worker\", \"tid\": 2, \"total\": [1], \"self\": [1]},\n"
	       "{\"index\": 2, \"name\": \"worker\", \"tid\": 3, \"total\": [0], \"self\": [0]},\n"
	       "{\"index\": 3, \"name\": \"w\", \"tid\": 7, \"total\": [1], \"self\": [1]},\n"
	       "{\"index\": 4, \"name\": \"w\", \"tid\": 7, \"total\": [0], \"self\": [0]}\n]}\n");
	EXPECT(a, "thread-costs", "key=f1", 404, "{\"error\": \"no row 'f1' in this view\"}");
	EXPECT(a, "thread-costs", "thread=nobody&key=f0", 400,
	       "{\"error\": \"no thread named 'nobody' (see 'profview info')\"}");
	pv_api_free(a);
}

/* ---- source ---- */

#define HELLO_HEAD "\"metrics\": [{\"name\": \"samples\", \"unit\": \"count\", \"shown\": {\"unit\": \"count\", \"per\": 1, \"decimals\": 0, \"named\": false}}], \"addresses\": false"

T_TEST(api_view_source)
{
	/* relative to the profile's folder; text escaped, bad UTF-8 bytes as U+FFFD, CR dropped */
	struct pv_api *a = hello_api(t_data("web/profile"), "hello.c", NULL);
	if (!a)
		return;
	EXPECT(a, "source", "file=0", 200,
	       "{\"id\": 0, \"path\": \"hello.c\", " HELLO_HEAD ", \"center_lines\": [], \"lines\": [\n"
	       "{\"line\": 1, \"text\": \"int add(int a, int b)\", \"total\": null, \"self\": null},\n"
	       "{\"line\": 2, \"text\": \"{\", \"total\": null, \"self\": null},\n"
	       "{\"line\": 3, \"text\": \"\\treturn a + b; /* \\\"sum\\\" \\\\ */\", \"total\": [4], "
	       "\"self\": [4], \"scope\": \"line:hello.c:3\"},\n"
	       "{\"line\": 4, \"text\": \"}\", \"total\": null, \"self\": null},\n"
	       "{\"line\": 5, \"text\": \"int main(void) { return add(1, 2); } // caf\xc3\xa9 "
	       "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\", \"total\": [7], \"self\": [3], "
	       "\"scope\": \"line:hello.c:5\"}\n]}\n");
	/* costs of the query: one thread, a center */
	EXPECT(a, "source", "file=0&thread=1&center=add", 200,
	       "{\"id\": 0, \"path\": \"hello.c\", " HELLO_HEAD ", \"center_lines\": [1], \"lines\": [\n"
	       "{\"line\": 1, \"text\": \"int add(int a, int b)\", \"total\": null, \"self\": null},\n"
	       "{\"line\": 2, \"text\": \"{\", \"total\": null, \"self\": null},\n"
	       "{\"line\": 3, \"text\": \"\\treturn a + b; /* \\\"sum\\\" \\\\ */\", \"total\": [2], "
	       "\"self\": [2], \"scope\": \"line:hello.c:3\"},\n"
	       "{\"line\": 4, \"text\": \"}\", \"total\": null, \"self\": null},\n"
	       "{\"line\": 5, \"text\": \"int main(void) { return add(1, 2); } // caf\xc3\xa9 "
	       "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\", \"total\": null, \"self\": null}\n]}\n");
	/* the definition lines of the functions the center names (add at 1, main at 5; a path's
	 * last step), not those of line: or file: scopes */
	{
		int st;
		char *b = t_api_call(a, "source", "file=0&center=main&center=add", &st);
		T_JSON_HAS(b, "\"center_lines\": [1, 5], \"lines\"");
		free(b);
		b = t_api_call(a, "source", "file=0&center=path:main;add", &st);
		T_JSON_HAS(b, "\"center_lines\": [1], \"lines\"");
		free(b);
		b = t_api_call(a, "source", "file=0&center=line:hello.c:5", &st);
		T_JSON_HAS(b, "\"center_lines\": [], \"lines\"");
		free(b);
	}
	/* only ids of the source table */
	EXPECT(a, "source", "file=1", 404, "{\"error\": \"no such source file\"}");
	EXPECT(a, "source", "file=../../etc/passwd", 404, "{\"error\": \"no such source file\"}");
	EXPECT(a, "source", "file=%2Fetc%2Fpasswd", 404, "{\"error\": \"no such source file\"}");
	EXPECT(a, "source", "file=00", 404, "{\"error\": \"no such source file\"}");
	EXPECT(a, "source", "file=-1", 404, "{\"error\": \"no such source file\"}");
	/* no file asked: the hottest readable one (here the only one) */
	for (int k = 0; k < 2; k++) {
		int st;
		char *b = t_api_call(a, "source", k ? "file=" : "", &st);
		T_EQ_INT(st, 200);
		T_JSON_HAS(b, "{\"id\": 0, \"path\": \"hello.c\", ");
		free(b);
	}
	EXPECT(a, "source", "file=0&center=nothing", 400,
	       "{\"error\": \"center 'nothing' matches no function of the profile\"}");
	pv_api_free(a);

	/* not found next to the profile: the source root; else 404 */
	a = hello_api("/nonexistent/profile", "hello.c", t_data("web"));
	if (a) {
		int st;
		char *b = t_api_call(a, "source", "file=0", &st);
		T_EQ_INT(st, 200);
		T_JSON_HAS(b, "\"text\": \"int add(int a, int b)\"");
		free(b);
		pv_api_free(a);
	}
	a = hello_api("/nonexistent/profile", "hello.c", NULL);
	if (a) {
		EXPECT(a, "source", "file=0", 404,
		       "{\"error\": \"cannot read source file 'hello.c'\"}");
		EXPECT(a, "source", "", 404,
		       "{\"error\": \"no source file of the profile is readable here\"}");
		pv_api_free(a);
	}
	/* a folder is not a regular file */
	a = hello_api(t_data("web/profile"), t_data("web"), NULL);
	if (a) {
		int st;
		free(t_api_call(a, "source", "file=0", &st));
		T_EQ_INT(st, 404);
		pv_api_free(a);
	}
}

T_TEST(api_view_source_moved)
{
	/* an absolute path recorded on another machine: its file name in the profile's folder */
	const char *moved[] = {"/home/someone/src/hello.c", "file:///home/someone/src/hello.c"};
	for (int i = 0; i < 2; i++) {
		struct pv_api *a = hello_api(t_data("web/profile"), moved[i], NULL);
		if (!a)
			continue;
		int st;
		char *b = t_api_call(a, "source", "file=0", &st);
		T_EQ_INT(st, 200);
		T_JSON_HAS(b, "\"text\": \"int add(int a, int b)\"");
		free(b);
		b = t_api_call(a, "profile", "", &st);
		T_JSON_HAS(b, "\"available\": true");
		free(b);
		pv_api_free(a);
	}
	/* else under the source root */
	struct pv_api *a = hello_api("/nonexistent/profile", "/home/someone/src/hello.c", t_data("web"));
	if (a) {
		int st;
		char *b = t_api_call(a, "source", "file=0", &st);
		T_EQ_INT(st, 200);
		free(b);
		pv_api_free(a);
	}
	/* a name that is no file name (".." or empty) is not looked up; never outside the folders */
	const char *bad[] = {"/home/someone/..", "/home/someone/", "/..", "file:///..", "/nonexistent/hello.c/.."};
	for (int i = 0; i < 5; i++) {
		a = hello_api(t_data("web/profile"), bad[i], t_data("web"));
		if (!a)
			continue;
		int st;
		free(t_api_call(a, "source", "file=0", &st));
		T_EQ_INT(st, 404);
		char *b = t_api_call(a, "profile", "", &st);
		T_JSON_HAS(b, "\"available\": false");
		free(b);
		pv_api_free(a);
	}
	a = hello_api(t_data("web/profile"), "/home/someone/src/hello.c", NULL);
	if (a) {
		EXPECT(a, "source", "file=..%2F..%2Fetc%2Fpasswd", 404, "{\"error\": \"no such source file\"}");
		pv_api_free(a);
	}
}

T_TEST(api_view_source_symlink)
{
	/* a symlink is not followed, wherever it points; a FIFO is not read */
	char dir[] = "/tmp/pv-api-view-XXXXXX";
	if (!mkdtemp(dir)) {
		t_fail(__FILE__, __LINE__, "mkdtemp failed");
		return;
	}
	char link[64], prof[64];
	snprintf(link, sizeof(link), "%s/link.c", dir);
	snprintf(prof, sizeof(prof), "%s/profile", dir);
	char target[4096];
	T_TRUE(realpath(t_data("web/hello.c"), target) != NULL);
	T_EQ_INT(symlink(target, link), 0);
	struct pv_api *a = hello_api(prof, "link.c", NULL);
	if (a) {
		EXPECT(a, "source", "file=0", 404, "{\"error\": \"cannot read source file 'link.c'\"}");
		pv_api_free(a);
	}
	a = hello_api(prof, link, NULL); /* absolute */
	if (a) {
		int st;
		free(t_api_call(a, "source", "file=0", &st));
		T_EQ_INT(st, 404);
		pv_api_free(a);
	}
	/* a FIFO is not a regular file (and the open does not wait for a writer) */
	char fifo[64];
	snprintf(fifo, sizeof(fifo), "%s/fifo.c", dir);
	T_EQ_INT(mkfifo(fifo, 0600), 0);
	a = hello_api(prof, "fifo.c", NULL);
	if (a) {
		EXPECT(a, "source", "file=0", 404, "{\"error\": \"cannot read source file 'fifo.c'\"}");
		pv_api_free(a);
	}
	unlink(fifo);
	unlink(link);
	rmdir(dir);
}

/* ---- errors ---- */

T_TEST(api_view_errors)
{
	struct pv_api *a = t_api_of(t_data("collapsed/worked-example.txt"), NULL);
	if (!a)
		return;
	EXPECT(a, "view", "view=nope", 400,
	       "{\"error\": \"view takes tree, callers, flat, butterfly or top, not 'nope'\"}");
	EXPECT(a, "view", "center=nothing", 400,
	       "{\"error\": \"center 'nothing' matches no function of the profile\"}");
	EXPECT(a, "view", "view=butterfly", 400,
	       "{\"error\": \"the butterfly view needs a center (--center NAME)\"}");
	EXPECT(a, "view", "metric=bytes", 400,
	       "{\"error\": \"no metric named 'bytes' (the profile has: samples)\"}");
	EXPECT(a, "view", "view=flat&offset=-1", 400,
	       "{\"error\": \"offset takes a count, not '-1'\"}");
	EXPECT(a, "view", "p=1", 404, "{\"error\": \"no profile 1\"}");
	EXPECT(a, "children", "center=nothing&key=c", 400,
	       "{\"error\": \"center 'nothing' matches no function of the profile\"}");
	EXPECT(a, "thread-costs", "key=f0/f4", 404, "{\"error\": \"no row 'f0/f4' in this view\"}");
	EXPECT(a, "flame", "filter=include:nothing", 400,
	       "{\"error\": \"--include 'nothing' matches no function of the profile\"}");
	pv_api_free(a);
}

/* ---- scopes ---- */

/*
 * Every scope the server writes names its row again: as the center, it gives a view whose
 * center total is the row's own total in the flat view (a function, a line, a file, a module).
 */
/* The value of a JSON string field at s (after its opening quote) as a URL value, into out. */
static void url_value(char *out, size_t cap, const char *s)
{
	size_t n = 0;
	for (const char *c = s; *c && *c != '"' && n + 4 < cap; c++) {
		if (*c == '\\' && c[1])
			c++;
		if (strchr("%&+#;", *c))
			n += (size_t)snprintf(out + n, cap - n, "%%%02X", (unsigned char)*c);
		else
			out[n++] = *c;
	}
	out[n] = 0;
}

/* Checks that the view of query url has the center total want (a row's total). */
static void expect_center_total(struct pv_api *a, const char *url, long long want, int line)
{
	int st;
	char *vb = t_api_call(a, "view", url, &st);
	T_EQ_INT(st, 200);
	const char *ct = vb ? strstr(vb, "\"center_total\": [") : NULL;
	long long got = ct ? strtoll(ct + 17, NULL, 10) : -1;
	if (got != want)
		t_fail(__FILE__, line, "%s: center total %lld, row total %lld", url, got, want);
	free(vb);
}

T_TEST(api_view_scopes_resolve)
{
	struct pv_builder b;
	T_EQ_INT(builder_init(&b), 0);
	pv_module_ix mod = builder_module(&b, builder_cstr(&b, "libx.so"), builder_cstr(&b, "/usr/lib/libx.so"),
					  PV_MODULE_LIBRARY);
	pv_source_ix src = builder_source(&b, builder_cstr(&b, "src/a:b.c"));
	/* names the query reader would take for other scopes */
	pv_func_ix f1 = builder_func(&b, builder_cstr(&b, "re:weird(x)"), mod, src, 3);
	pv_func_ix f2 = builder_func(&b, builder_cstr(&b, "file:x.c"), PV_NONE, PV_NONE, 0);
	pv_func_ix f3 = builder_func(&b, builder_cstr(&b, "plain"), mod, PV_NONE, 0);
	struct frame_key k1 = {.func = f1, .line = 4, .addr = PV_ADDR_NONE, .category = PV_NONE};
	struct frame_key k3 = {.func = f3, .line = 9, .addr = PV_ADDR_NONE, .category = PV_NONE};
	pv_stack_ix s1 = builder_stack(&b, PV_NONE, builder_frame(&b, &k1));
	pv_stack_ix s2 = builder_stack(&b, s1, builder_func_frame(&b, f2));
	pv_stack_ix s3 = builder_stack(&b, s2, builder_frame(&b, &k3));
	builder_metric(&b, builder_cstr(&b, "samples"), PV_UNIT_COUNT);
	pv_thread_ix t = builder_thread(&b, builder_cstr(&b, "main"), 1, 1, 0);
	builder_sample(&b, t, s1, 0, NULL);
	builder_sample(&b, t, s2, 1, NULL);
	builder_sample(&b, t, s3, 2, NULL);
	builder_sample(&b, t, s3, 3, NULL);
	struct pv_profile *p = NULL;
	T_EQ_INT(builder_finish(&b, &p), 0);
	builder_release(&b);
	if (!p)
		return;
	struct pv_api *a = NULL;
	T_EQ_INT(pv_api_new(&a, NULL), 0);
	T_EQ_INT(pv_api_add_profile(a, "scopes", p), 0);
	static const char *const granularity[] = {"function", "line", "file", "module"};
	uint32_t checked = 0;
	for (int g = 0; g < 4; g++) {
		char q[64];
		snprintf(q, sizeof(q), "view=flat&by=%s", granularity[g]);
		int st;
		char *body = t_api_call(a, "view", q, &st);
		T_EQ_INT(st, 200);
		/* each row: its scope and total, then the center total of that scope */
		for (const char *r = body ? strstr(body, "{\"key\": ") : NULL; r;
		     r = strstr(r + 1, "{\"key\": ")) {
			const char *sc = strstr(r, "\"scope\": ");
			const char *tot = strstr(r, "\"total\": [");
			if (!sc || !tot)
				break;
			sc += 9;
			long long want = strtoll(tot + 10, NULL, 10);
			if (strncmp(sc, "null", 4) == 0)
				continue;
			/* the scope as a URL value: only '%', '&', '+' and '#' need escaping here */
			char scope[256], url[512];
			url_value(scope, sizeof(scope), sc + 1);
			snprintf(url, sizeof(url), "center=%s&by=%s", scope, granularity[g]);
			expect_center_total(a, url, want, __LINE__);
			checked++;
		}
		free(body);
	}
	/* by function: 2 modules (libx.so, none), 3 files (src/a:b.c and none in libx.so, none in
	 * no module), 3 functions; by line: the same and 3 lines (f2's has none: line 0); by file:
	 * 2 modules, 3 files; by module: 2 */
	T_EQ_INT(checked, 26);
	/* the scopes themselves */
	EXPECT(a, "children", "view=top&by=line&key=l0:4", 200, "{\"rows\": []}\n");
	int st;
	char *body = t_api_call(a, "view", "view=top&by=line", &st);
	T_JSON_HAS(body, "\"scope\": \"line:src/a:b.c:4\"");
	T_JSON_HAS(body, "\"scope\": \"plain:9\"");
	T_JSON_HAS(body, "\"scope\": \"line:file:x.c:0\""); /* file:x.c:0 would be a file */
	free(body);
	/* the rows of no file: all of them, or in one module in the flat view */
	body = t_api_call(a, "view", "view=top&by=file", &st);
	T_JSON_HAS(body, "\"name\": \"<unknown file>\"");
	T_JSON_HAS(body, "\"scope\": \"file:\"");
	free(body);
	body = t_api_call(a, "view", "view=flat&by=file", &st);
	T_JSON_HAS(body, "\"scope\": \"file:libx.so!\"");
	T_JSON_HAS(body, "\"scope\": \"file:!\"");
	T_JSON_HAS(body, "\"scope\": \"file:src/a:b.c\""); /* a file of one module */
	T_JSON_HAS(body, "\"scope\": \"module:\"");
	free(body);
	body = t_api_call(a, "view", "view=top", &st);
	T_JSON_HAS(body, "\"scope\": \"re:^re:weird\\\\(x\\\\)$\"");
	T_JSON_HAS(body, "\"scope\": \"re:^file:x\\\\.c$\"");
	free(body);
	body = t_api_call(a, "view", "view=flat&by=module", &st);
	T_JSON_HAS(body, "\"scope\": \"module:libx.so\"");
	free(body);
	pv_api_free(a);
}

/* Every path the server writes, as the center, has the row's total (and "path:" scopes of
 * a path-centered tree too). */
/*
 * For each row of each view (query prefix + view): its "path" (and its "scope" when scopes), as
 * the center, gives the row's total. Returns how many were checked; *marked counts the scopes
 * and paths holding mark.
 */
static uint32_t rows_resolve(struct pv_api *a, const char *prefix, const char *const *views, int nv,
			     bool scopes, const char *mark, uint32_t *marked)
{
	uint32_t checked = 0;
	for (int i = 0; i < nv; i++) {
		int st;
		char url[640], q[256];
		snprintf(q, sizeof(q), "%s%s", prefix, views[i]);
		char *body = t_api_call(a, "view", q, &st);
		T_EQ_INT(st, 200);
		for (const char *r = body ? strstr(body, "{\"key\": ") : NULL; r;
		     r = strstr(r + 1, "{\"key\": ")) {
			const char *nl = strchr(r, '\n');
			const char *tot = strstr(r, "\"total\": [");
			if (!tot || (nl && tot > nl))
				break;
			long long want = strtoll(tot + 10, NULL, 10);
			static const char *const fields[] = {"\"path\": \"path:", "\"scope\": \""};
			for (int k = 0; k < (scopes ? 2 : 1); k++) {
				const char *sc = strstr(r, fields[k]);
				if (!sc || (nl && sc > nl))
					continue;
				char scope[512];
				url_value(scope, sizeof(scope), sc + (k ? 10 : 9));
				if (mark && strstr(scope, mark))
					(*marked)++;
				snprintf(url, sizeof(url), "%scenter=%s", prefix, scope);
				expect_center_total(a, url, want, __LINE__);
				checked++;
			}
		}
		free(body);
	}
	return checked;
}

/* Every path the server writes, as the center, has the row's total (and "path:" scopes of
 * a path-centered tree too). */
T_TEST(api_view_paths_resolve)
{
	struct pv_api *a = t_api_of(t_data("collapsed/worked-example.txt"), NULL);
	if (!a)
		return;
	static const char *const views[] = {
	    "open=f0&open=f0/f1&open=f0/f1/f2&open=f0/f2&open=f0/f2/f3&open=f0/f2/f3/f2&open=f0/f5",
	    "center=path:main;foo&open=c/f3&open=c/f3/f2",
	};
	/* every row of the tree; the 4 rows below the centered path */
	T_EQ_INT(rows_resolve(a, "", views, 2, false, NULL, NULL), 12 + 4);
	pv_api_free(a);
}

/*
 * Minified JavaScript (node-minified.cpuprofile: five functions named "(anonymous)" on line 1 of
 * minified.min.js): each row's scope and each row's path, as the center, give that row's total,
 * so the page can center, filter and follow a path on one of two same-named functions. Their
 * scopes are NAME@FILE:LINE:COL; rows carry the column.
 */
T_TEST(api_view_minified_scopes_resolve)
{
	struct pv_api *a = t_api_of(t_data("chrome/node-minified.cpuprofile"), NULL);
	if (!a)
		return;
	static const char *const views[] = {"view=top", "view=tree&heaviest=12"};
	uint32_t qualified = 0;
	uint32_t checked =
	    rows_resolve(a, "metric=samples&", views, 2, true,
			 "(anonymous)@file:///tmp/rec/minified.min.js:1:", &qualified);
	/* top: 64 rows, the 5 anonymous ones of the script qualified; the tree: the heaviest path
	 * (10 rows, each with a scope and a path) and work's 4 callbacks below it, whose scopes and
	 * paths are qualified */
	T_TRUE(checked >= 64 + 2 * 10);
	T_TRUE(qualified >= 5 + 4 + 4);
	int st;
	char *body = t_api_call(a, "view", "view=top&metric=samples", &st);
	T_JSON_HAS(body,
		   "\"file\": \"file:///tmp/rec/minified.min.js\", \"line\": 1, \"column\": 105, "
		   "\"total\": [1434], \"self\": [1434], \"scope\": "
		   "\"(anonymous)@file:///tmp/rec/minified.min.js:1:105\"");
	T_JSON_HAS(body, "\"scope\": \"work\"");
	free(body);
	pv_api_free(a);
}

/* ---- the numbers of the library ---- */

#define KEYLEN 1024

struct got_row {
	char key[KEYLEN];
	int64_t total[4], self[4];
};

/* The rows of an answer in order: key, total, self (up to 4 metrics). */
static uint32_t parse_rows(const char *body, const char *from, struct got_row *rows, uint32_t cap,
			   uint32_t nm)
{
	uint32_t n = 0;
	const char *r = body ? strstr(body, from) : NULL;
	for (r = r ? strstr(r, "{\"key\": \"") : NULL; r && n < cap;
	     r = strstr(r + 1, "{\"key\": \"")) {
		const char *k = r + 9, *e = strchr(k, '"');
		size_t kl = (size_t)(e - k) < sizeof(rows[n].key) ? (size_t)(e - k) : 0;
		memcpy(rows[n].key, k, kl);
		rows[n].key[kl] = 0;
		const char *t = strstr(r, "\"total\": [") + 10, *s = strstr(r, "\"self\": [") + 9;
		for (uint32_t m = 0; m < nm; m++) {
			char *end;
			rows[n].total[m] = strtoll(t, &end, 10);
			t = end + 2;
			rows[n].self[m] = strtoll(s, &end, 10);
			s = end + 2;
		}
		n++;
	}
	return n;
}

static void key_step(char *buf, size_t n, uint8_t kind, uint32_t id, uint32_t line)
{
	switch (kind) {
	case PV_ROW_FUNCTION: snprintf(buf, n, "f%u", id); break;
	case PV_ROW_LINE: snprintf(buf, n, "l%u:%u", id, line); break;
	case PV_ROW_FILE: id == PV_NONE ? snprintf(buf, n, "s-") : snprintf(buf, n, "s%u", id); break;
	case PV_ROW_MODULE: id == PV_NONE ? snprintf(buf, n, "m-") : snprintf(buf, n, "m%u", id); break;
	default: snprintf(buf, n, "c"); break;
	}
}

/* The expected rows: pre-order, roots and the children of the rows whose index is open. */
static uint32_t expect_rows(const struct pv_tree *t, const uint8_t *open, uint32_t nm,
			    struct got_row *rows, uint32_t cap)
{
	uint32_t n = 0, sp = 0;
	struct {
		uint32_t r, next;
		char key[KEYLEN];
	} *st;
	uint32_t maxd = 0;
	for (uint32_t r = 0; r < t->len; r++)
		maxd = t->depth[r] > maxd ? t->depth[r] : maxd;
	st = malloc(sizeof(*st) * (maxd + 2));
	if (!st)
		return 0;
	st[0].r = PV_NONE;
	st[0].next = 0;
	st[0].key[0] = 0;
	sp = 1;
	while (sp && n < cap) {
		uint32_t pr = st[sp - 1].r;
		const uint32_t *list = pr == PV_NONE ? t->roots : t->children + t->child_first[pr];
		uint32_t len = pr == PV_NONE ? t->nr_roots : t->child_len[pr];
		if (st[sp - 1].next == len) {
			sp--;
			continue;
		}
		uint32_t r = list[st[sp - 1].next++];
		char step[40];
		key_step(step, sizeof(step), t->kind[r], t->id[r], t->line[r]);
		size_t kl = strlen(st[sp - 1].key), sl = strlen(step);
		if (kl + sl + 2 > KEYLEN) {
			t_fail(__FILE__, __LINE__, "key too long for the test");
			break;
		}
		memcpy(rows[n].key, st[sp - 1].key, kl);
		if (pr != PV_NONE)
			rows[n].key[kl++] = '/';
		memcpy(rows[n].key + kl, step, sl + 1);
		for (uint32_t m = 0; m < nm; m++) {
			rows[n].total[m] = t->total[m][r];
			rows[n].self[m] = t->self[m][r];
		}
		if (open[r] || t->kind[r] == PV_ROW_CENTER) {
			st[sp].r = r;
			st[sp].next = 0;
			memcpy(st[sp].key, rows[n].key, sizeof(st[sp].key));
			sp++;
		}
		n++;
	}
	free(st);
	return n;
}

static void same_rows(const char *what, const struct got_row *g, uint32_t ng,
		      const struct got_row *w, uint32_t nw, uint32_t nm)
{
	if (ng != nw) {
		t_fail(__FILE__, __LINE__, "%s: %u rows, expected %u", what, ng, nw);
		return;
	}
	for (uint32_t i = 0; i < ng; i++) {
		bool same = strcmp(g[i].key, w[i].key) == 0;
		for (uint32_t m = 0; m < nm; m++)
			same &= g[i].total[m] == w[i].total[m] && g[i].self[m] == w[i].self[m];
		if (!same) {
			t_fail(__FILE__, __LINE__, "%s: row %u: %s %lld/%lld, expected %s %lld/%lld",
			       what, i, g[i].key, (long long)g[i].total[0], (long long)g[i].self[0],
			       w[i].key, (long long)w[i].total[0], (long long)w[i].self[0]);
			return;
		}
	}
}

/*
 * The view endpoint against pv_view_compute of the same query, on corpus files: every row
 * sent (the roots, and the children of up to 200 open rows, heaviest first) has the key, total
 * and self of the library's tree; the flat list is the library's, row for row.
 */
static void compare_file(const char *rel, const char *query, uint32_t nm)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	if (pv_import_file(t_corpus(rel), NULL, &p, &err)) {
		t_fail(__FILE__, __LINE__, "import %s: %s", rel, err.msg);
		return;
	}
	struct pv_query q;
	pv_query_init(&q);
	if (pv_query_from_url(&q, query, &err)) {
		t_fail(__FILE__, __LINE__, "%s: %s", query, err.msg);
		pv_profile_free(p);
		return;
	}
	struct pv_view *v = NULL;
	if (pv_view_compute(p, &q, &v, &err)) {
		t_fail(__FILE__, __LINE__, "%s %s: %s", rel, query, err.msg);
		pv_query_release(&q);
		pv_profile_free(p);
		return;
	}
	struct pv_api *a = NULL;
	pv_api_new(&a, NULL);
	pv_api_add_profile(a, t_corpus(rel), p);
	enum { CAP = 8000 };
	struct got_row *got = malloc(sizeof(*got) * CAP), *want = malloc(sizeof(*want) * CAP);
	char *url = NULL;
	char what[512];
	snprintf(what, sizeof(what), "%s ?%s", rel, query);
	if (v->flat) {
		size_t ul = strlen(query) + 32;
		url = malloc(ul);
		snprintf(url, ul, "%s&limit=%u", query, CAP);
		int st;
		char *body = t_api_call(a, "view", url, &st);
		T_EQ_INT(st, 200);
		uint32_t ng = parse_rows(body, "\"rows\": [", got, CAP, nm);
		if (ng < 2)
			t_fail(__FILE__, __LINE__, "%s: only %u rows", what, ng);
		uint32_t nw = 0;
		for (uint32_t r = 0; r < v->flat->len && nw < CAP; r++, nw++) {
			for (uint32_t m = 0; m < nm; m++) {
				want[nw].total[m] = v->flat->total[m][r];
				want[nw].self[m] = v->flat->self[m][r];
			}
			snprintf(want[nw].key, sizeof(want[nw].key), "%s", ng > nw ? got[nw].key : "");
		}
		same_rows(what, got, ng, want, nw, nm);
		free(body);
	} else {
		/* open the 200 heaviest rows with children, best first (a walk of the library's
		 * tree from the roots, by total, only through open rows) */
		const struct pv_tree *t = v->tree;
		uint8_t *open = calloc(t->len + 1, 1);
		for (int round = 0; round < 200; round++) {
			/* the heaviest row sent (its ancestors open) that is closed, with children */
			uint32_t best = PV_NONE;
			int64_t bw = INT64_MIN;
			for (uint32_t r = 0; r < t->len; r++) {
				if (open[r] || !t->child_len[r] || t->kind[r] == PV_ROW_CENTER ||
				    t->total[0][r] <= bw)
					continue;
				uint32_t x = t->parent[r];
				while (x != PV_NONE && (open[x] || t->kind[x] == PV_ROW_CENTER))
					x = t->parent[x];
				if (x == PV_NONE) {
					best = r;
					bw = t->total[0][r];
				}
			}
			if (best == PV_NONE)
				break;
			open[best] = 1;
		}
		uint32_t nw = expect_rows(t, open, nm, want, CAP);
		/* the query and the open keys (letters, digits, ':' and '/': no escaping) */
		size_t ul = 0;
		FILE *u = open_memstream(&url, &ul);
		fputs(query, u);
		for (uint32_t r = 0; r < t->len; r++) {
			if (!open[r])
				continue;
			char step[40];
			uint32_t chain[4096], n = 0;
			for (uint32_t x = r; x != PV_NONE && n < 4096; x = t->parent[x])
				chain[n++] = x;
			fputs("&open=", u);
			while (n-- > 0) {
				key_step(step, sizeof(step), t->kind[chain[n]], t->id[chain[n]],
					 t->line[chain[n]]);
				fprintf(u, "%s%s", step, n ? "/" : "");
			}
		}
		fclose(u);
		int st;
		char *body = t_api_call(a, "view", url, &st);
		T_EQ_INT(st, 200);
		uint32_t ng = parse_rows(body, "\"rows\": [", got, CAP, nm);
		if (ng <= t->nr_roots)
			t_fail(__FILE__, __LINE__, "%s: only %u rows", what, ng);
		same_rows(what, got, ng, want, nw, nm);
		free(body);
		free(open);
	}
	free(url);
	free(got);
	free(want);
	pv_view_free(v);
	pv_query_release(&q);
	pv_api_free(a);
}

T_TEST(api_view_corpus_numbers)
{
	static const struct {
		const char *file, *query;
		uint32_t nm;
	} cases[] = {
		{"firefox/argument-values.json", "view=tree", 1},
		{"firefox/argument-values.json", "view=callers", 1},
		{"firefox/unsymbolicated.json", "view=tree&by=module", 1},
		{"firefox/generated-processed-v70-from-gecko.json", "view=tree&by=line", 1},
		{"firefox/flamegraph.txt", "view=tree", 1},
		{"firefox/flamegraph.txt", "view=flat", 1},
		{"firefox/hello.cjs-20231120T211435.cpuprofile", "view=tree&metric=samples,time", 2},
		{"firefox/hello.cjs-20231120T211435.cpuprofile", "view=top&by=line&sort=total", 1},
		{"firefox/test.perf.gz", "view=tree&by=module", 1},
		{"firefox/test.perf.gz", "view=callers&center=re:^_dl_", 1},
		{"speedscope/stackcollapse/recursion.txt", "view=tree&filter=collapse-recursion:a", 1},
		{"flamegraph/test/results/perf-iperf-stacks-pidtid-01-collapsed-tid.txt",
		 "view=flat&by=line", 1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		compare_file(cases[i].file, cases[i].query, cases[i].nm);
}

/*
 * thread-costs of a top-down row with a call path is one computation centered on the path; it
 * must give what each thread's own view gives that row.
 */
static int64_t first_number(const char *s, const char *after)
{
	const char *p = s ? strstr(s, after) : NULL;
	return p ? strtoll(p + strlen(after), NULL, 10) : -1;
}

T_TEST(api_view_thread_costs_one_pass)
{
	static const char *const files[] = {
		"firefox/generated-gecko-v36.json",
		"flamegraph/test/perf-iperf-stacks-pidtid-01.txt",
	};
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct pv_profile *p = NULL;
		struct pv_error err;
		if (pv_import_file(t_corpus(files[f]), NULL, &p, &err)) {
			t_fail(__FILE__, __LINE__, "import %s: %s", files[f], err.msg);
			continue;
		}
		uint32_t nthreads = p->threads.len;
		struct pv_api *a = NULL;
		T_EQ_INT(pv_api_new(&a, NULL), 0);
		pv_api_add_profile(a, files[f], p);
		int st;
		char *body = t_api_call(a, "view", "heaviest=4", &st);
		T_EQ_INT(st, 200);
		static struct got_row rows[64];
		uint32_t nr = parse_rows(body, "\"rows\"", rows, 64, 1);
		free(body);
		T_TRUE(nr > 2);
		uint32_t checked = 0;
		for (uint32_t r = 0; r < nr && r < 12; r++) {
			char q[4 * KEYLEN];
			snprintf(q, sizeof(q), "key=%.*s", KEYLEN - 1, rows[r].key);
			char *tc = t_api_call(a, "thread-costs", q, &st);
			T_EQ_INT(st, 200);
			for (uint32_t t = 0; t < nthreads && tc; t++) {
				/* the thread's own view, the row's ancestors open */
				char vq[8 * KEYLEN];
				int n = snprintf(vq, sizeof(vq), "thread=%%23%u", t);
				for (const char *k = rows[r].key; (k = strchr(k, '/')); k++)
					n += snprintf(vq + n, sizeof(vq) - (size_t)n, "&open=%.*s",
						      (int)(k - rows[r].key), rows[r].key);
				char *tv = t_api_call(a, "view", vq, &st);
				T_EQ_INT(st, 200);
				static struct got_row trows[4096];
				uint32_t tn = parse_rows(tv, "\"rows\"", trows, 4096, 1);
				int64_t want_total = 0, want_self = 0;
				for (uint32_t i = 0; i < tn; i++) {
					if (strcmp(trows[i].key, rows[r].key) == 0) {
						want_total = trows[i].total[0];
						want_self = trows[i].self[0];
					}
				}
				free(tv);
				char at[64];
				snprintf(at, sizeof(at), "{\"index\": %u,", t);
				const char *th = strstr(tc, at);
				T_TRUE(th != NULL);
				if (!th)
					continue;
				int64_t got_total = first_number(th, "\"total\": ["),
					got_self = first_number(th, "\"self\": [");
				if (got_total != want_total || got_self != want_self)
					t_fail(__FILE__, __LINE__,
					       "%s, row %s, thread %u: total/self %lld/%lld, the "
					       "thread's view %lld/%lld",
					       files[f], rows[r].key, t, (long long)got_total,
					       (long long)got_self, (long long)want_total,
					       (long long)want_self);
				checked++;
			}
			free(tc);
		}
		T_TRUE(checked >= nthreads * 3);
		pv_api_free(a);
	}
}

/* An HPCToolkit database's loop rows: key o<frame>, kind loop, scope loop:FILE:LINE that the
 * query takes back as a center; a database folder's own sources are found in it. */
T_TEST(api_view_loop_rows)
{
	struct pv_api *a = t_api_of(t_data("hpctoolkit/small.d"), NULL);
	if (!a)
		return;
	int st;
	char *body = t_api_call(a, "view", "by=loop&heaviest=10", &st);
	T_EQ_INT(st, 200);
	/* hpcviewer's name, its function apart */
	T_JSON_HAS(body, "\"name\": \"loop at small.c: 3\", \"kind\": \"loop\"");
	T_JSON_HAS(body, "\"line\": 3, \"function\": \"spinsleep\"");
	T_JSON_HAS(body,
		   "\"scope\": \"loop:/builds/hpctoolkit/hpctoolkit/tests/data/meas/small.c:3\"");
	const char *k = body ? strstr(body, "/o") : NULL;
	T_TRUE(k != NULL);
	free(body);
	body = t_api_call(a, "view",
			  "by=loop&center=loop:/builds/hpctoolkit/hpctoolkit/tests/data/meas/"
			  "small.c:3",
			  &st);
	T_EQ_INT(st, 200);
	T_JSON_HAS(body, "\"center_total\": [1210259000]");
	free(body);
	/* the flat view by line nests the loop's line under the loop (level 4), and the loop's key
	 * names it for its children */
	body = t_api_call(a, "view", "view=flat&by=line", &st);
	T_EQ_INT(st, 200);
	const char *loop = body ? strstr(body, "\"name\": \"loop at small.c: 3\"") : NULL;
	const char *key = loop;
	while (key && key > body && strncmp(key, "{\"key\": \"", 9) != 0)
		key--;
	T_TRUE(loop && key > body);
	if (loop && key > body) {
		char q[256];
		int n = (int)strcspn(key + 9, "\"");
		snprintf(q, sizeof(q), "view=flat&by=line&key=%.*s", n, key + 9);
		T_CONTAINS(loop, "\"level\": 3");
		char *kids = t_api_call(a, "children", q, &st);
		T_EQ_INT(st, 200);
		T_CONTAINS(kids, "\"name\": \"small.c: 3\", \"kind\": \"line\"");
		T_CONTAINS(kids, "\"level\": 4");
		free(kids);
	}
	free(body);
	pv_api_free(a);
}

/* A derived metric through the API: its formula in "metrics", its values with a fraction (or null
 * for a division by zero) and no base for percentages. sort.cgout's whole: 100 * (6996 + 4001) /
 * (1931094 + 1093073) = 0.36363732558 (its summary line). */
T_TEST(api_view_derived_metric)
{
	struct pv_api *a = t_api_of(t_data("callgrind/sort.cgout"), NULL);
	if (!a)
		return;
	int st;
	char *body = t_api_call(a, "view",
			  "view=top&n=1&derive=D1miss%3D100*(%24D1mr%2B%24D1mw)%2F(%24Dr%2B%24Dw)", &st);
	T_EQ_INT(st, 200);
	T_CONTAINS(body, "{\"name\": \"D1miss\", \"unit\": \"count\", \"shown\": {\"unit\": \"\", \"per\": 1, \"decimals\": 0, \"named\": false}, \"formula\": "
			 "\"100*($D1mr+$D1mw)/($Dr+$Dw)\"}");
	T_CONTAINS(body, "\"whole\": [8333155, 0.36363732558]");
	T_CONTAINS(body, "\"base\": [8333155, null]");
	free(body);
	body = t_api_call(a, "view", "view=top&derive=x%3D%24Ir%2F0", &st);
	T_EQ_INT(st, 200);
	T_CONTAINS(body, "\"whole\": [8333155, null]");
	free(body);
	body = t_api_call(a, "view", "view=top&derive=x%3D%24Ir%2F", &st);
	T_EQ_INT(st, 400);
	T_CONTAINS(body, "column 7: expected a number");
	free(body);
	pv_api_free(a);
}

/* A database given as its folder looks for its sources in that folder (HPCToolkit's src/). */
T_TEST(api_view_database_sources)
{
	char dir[] = "/tmp/pv-hpc-XXXXXX";
	if (!mkdtemp(dir)) {
		t_fail(__FILE__, __LINE__, "mkdtemp");
		return;
	}
	static const char *const files[] = {"meta.db", "profile.db"};
	char path[256];
	for (int i = 0; i < 2; i++) {
		size_t n;
		char *b = t_read_file(t_data(files[i][0] == 'm' ? "hpctoolkit/small.d/meta.db"
							       : "hpctoolkit/small.d/profile.db"),
				      &n);
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		FILE *f = fopen(path, "wb");
		if (b && f)
			fwrite(b, 1, n, f);
		if (f)
			fclose(f);
		free(b);
	}
	snprintf(path, sizeof(path), "%s/small.c", dir); /* the file meta.db names, by its tail */
	FILE *f = fopen(path, "w");
	if (f) {
		fputs("void spinsleep(void) {}\n", f);
		fclose(f);
	}
	struct pv_profile *p = NULL;
	struct pv_error err;
	struct pv_api *a = NULL;
	if (pv_import_file(dir, NULL, &p, &err) == 0 && pv_api_new(&a, NULL) == 0 &&
	    pv_api_add_profile(a, dir, p) == 0) {
		int st;
		char *body = t_api_call(a, "profile", "", &st);
		T_EQ_INT(st, 200);
		T_JSON_HAS(body,
			   "\"path\": \"/builds/hpctoolkit/hpctoolkit/tests/data/meas/small.c\", "
			   "\"available\": true");
		free(body);
	} else {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
	}
	pv_api_free(a);
	remove(path);
	snprintf(path, sizeof(path), "%s/meta.db", dir);
	remove(path);
	snprintf(path, sizeof(path), "%s/profile.db", dir);
	remove(path);
	rmdir(dir);
}

/* hot=KEY: hpcviewer's hot path from a row, opened from the root (the page's key h). */
T_TEST(api_view_hot_path)
{
	struct pv_api *a = t_api_of(t_data("collapsed/worked-example.txt"), NULL);
	if (!a)
		return;
	int st;
	/* from real_main (15): foo (11, 73 %), bar (10, 91 %) */
	char *body = t_api_call(a, "view", "hot=f0/f1", &st);
	T_EQ_INT(st, 200);
	T_JSON_HAS(body, "\"opened\": [\"f0\", \"f0/f1\", \"f0/f1/f2\", \"f0/f1/f2/f3\"]");
	free(body);
	/* at 80 %, foo (73 %) is not hot: the path is real_main alone */
	body = t_api_call(a, "view", "hot=f0/f1&hot-percent=80", &st);
	T_EQ_INT(st, 200);
	T_JSON_HAS(body, "\"opened\": [\"f0\", \"f0/f1\"]");
	free(body);
	pv_api_free(a);
}

/* ---- search and subtree (the page's search box and expand-all) ---- */

#define HIT(name, total, self, key)                                                             \
	"{\"name\": \"" name "\", \"scope\": \"" name "\", \"module\": null, \"file\": null, "     \
	"\"line\": null, \"total\": [" #total "], \"self\": [" #self "], \"key\": " key "}"
#define FIND_HEAD(text, scope, base, n)                                                         \
	"{\"text\": \"" text "\", \"scope\": " scope ", \"metrics\": [{\"name\": \"samples\", "    \
	"\"unit\": \"count\", \"shown\": {\"unit\": \"count\", \"per\": 1, \"decimals\": 0, \"named\": false}}], \"base\": [" #base "], \"matches\": " #n ", \"rows\": ["

T_TEST(api_search)
{
	struct pv_api *a = t_api_of(t_data("collapsed/worked-example.txt"), NULL);
	if (!a)
		return;
	/* a substring, case ignored: foo's total counts main;foo;bar;foo;baz once (10+5+2+1),
	 * its heaviest row is main;real_main;foo (11) */
	EXPECT(a, "search", "text=FO", 200,
	       FIND_HEAD("FO", "false", 26, 1) "\n" HIT("foo", 18, 1, "\"f0/f1/f2\"") "\n]}\n");
	/* a scope: heaviest first; bar's heaviest row is under real_main (10), baz's under
	 * main;foo (5) */
	EXPECT(a, "search", "text=re:%5Eba", 200,
	       FIND_HEAD("re:^ba", "true", 26, 2) "\n" HIT("bar", 12, 10, "\"f0/f1/f2/f3\"") ",\n"
		   HIT("baz", 7, 7, "\"f0/f2/f4\"") "\n]}\n");
	/* limit keeps the heaviest; matches counts them all */
	EXPECT(a, "search", "text=re:%5Eba&limit=1", 200,
	       FIND_HEAD("re:^ba", "true", 26, 2) "\n" HIT("bar", 12, 10, "\"f0/f1/f2/f3\"") "\n]}\n");
	/* centered on real_main: only its callees' costs, keys of the centered tree */
	EXPECT(a, "search", "text=bar&center=real_main", 200,
	       FIND_HEAD("bar", "false", 15, 1) "\n" HIT("bar", 10, 10, "\"c/f2/f3\"") "\n]}\n");
	EXPECT(a, "search", "text=nothing", 200, FIND_HEAD("nothing", "false", 26, 0) "]}\n");
	EXPECT(a, "search", "text=re:(", 200,
	       "{\"text\": \"re:(\", \"matches\": 0, \"note\": \"search 're:(': bad regular "
	       "expression: Unmatched ( or \\\\(\", \"rows\": []}\n");
	EXPECT(a, "search", "", 400, "{\"error\": \"missing parameter 'text'\"}");
	pv_api_free(a);
}

#define FNP(key, name, depth, total, self, children, path)                                      \
	FN(key, name, depth, total, self, children, name, "\"path:" path "\"")

T_TEST(api_subtree)
{
	struct pv_api *a = t_api_of(t_data("collapsed/worked-example.txt"), NULL);
	if (!a)
		return;
	/* 20 % of 26 is 5.2: real_main (15), its foo (11) and main;foo (7) open; qux (3) stays
	 * closed, so do the leaves */
	EXPECT(a, "subtree", "key=f0&prune=20", 200,
	       "{\"key\": \"f0\", \"expanded\": 4, \"rows\": [\n"
	       FNP("f0/f1", "real_main", 1, 15, 0, 2, "main;real_main") ",\n"
	       FNP("f0/f1/f2", "foo", 2, 11, 1, 1, "main;real_main;foo") ",\n"
	       FNP("f0/f1/f2/f3", "bar", 3, 10, 10, 0, "main;real_main;foo;bar") ",\n"
	       FNP("f0/f1/f6", "malloc", 2, 4, 4, 0, "main;real_main;malloc") ",\n"
	       FNP("f0/f2", "foo", 1, 7, 0, 2, "main;foo") ",\n"
	       FNP("f0/f2/f4", "baz", 2, 5, 5, 0, "main;foo;baz") ",\n"
	       FNP("f0/f2/f3", "bar", 2, 2, 0, 1, "main;foo;bar") ",\n"
	       FNP("f0/f5", "qux", 1, 3, 0, 1, "main;qux") "\n]}\n");
	/* prune=0 opens every row with children: qux's one child */
	EXPECT(a, "subtree", "key=f0/f5&prune=0", 200,
	       "{\"key\": \"f0/f5\", \"expanded\": 1, \"rows\": [\n"
	       FNP("f0/f5/f6", "malloc", 2, 3, 3, 0, "main;qux;malloc") "\n]}\n");
	EXPECT(a, "subtree", "key=f0/f9", 404, "{\"error\": \"no row 'f0/f9' in this view\"}");
	EXPECT(a, "subtree", "key=f0&prune=x", 400,
	       "{\"error\": \"prune takes a percentage from 0 to 100, not 'x'\"}");
	pv_api_free(a);
}

/* The trace endpoints (web/api_trace.c, doc/trace.md): the same answers as profview trace. */
T_TEST(api_trace_endpoints)
{
	struct pv_api *a = t_api_of(t_data("hpctoolkit/loops-cputime-t.d"), NULL);
	if (!a)
		return;
	int st;
	char *b = t_api_call(a, "trace-stack", "p=0&context=0&at=20000000", &st);
	T_EQ_INT(st, 200);
	T_CONTAINS(b, "\"record\": 3, \"start\": 17.693, \"end\": 23.686");
	T_CONTAINS(b, "{\"depth\": 4, \"name\": \"test_separated_loops:38\"");
	free(b);
	/* profview trace --window 0:60 --size 12x4 --depth 4: row 0 is -1 5 5 5 5 5 4 4 4 4 5 8 */
	b = t_api_call(a, "trace", "p=0&t0=0&t1=60000000&width=12&height=4&depth=4", &st);
	T_EQ_INT(st, 200);
	T_CONTAINS(b, "\"rows\": [\n  [-1,1,5,5,4,4,5,1,8,1],");
	T_CONTAINS(b, "\"summary\": [\n  [-1,4],");
	free(b);
	b = t_api_call(a, "trace", "p=0&t0=0&t1=60000000&width=12&height=4&depth=3&filter=drop:"
			     "test_separated_loops", &st);
	T_EQ_INT(st, 200);
	free(b);
	b = t_api_call(a, "trace-boxes", "p=0&context=0&t0=0&t1=53689000&min=0", &st);
	T_EQ_INT(st, 200);
	T_CONTAINS(b, "{\"depth\": 4, \"start\": 5.735, \"end\": 29.695, \"id\": 5, \"name\": "
		      "\"test_separated_loops\"");
	free(b);
	b = t_api_call(a, "trace", "p=0&c0=0&c1=9", &st);
	T_EQ_INT(st, 400);
	T_CONTAINS(b, "c0 < c1 <= 4");
	free(b);
	b = t_api_call(a, "trace-stack", "p=0&context=7&at=0", &st);
	T_EQ_INT(st, 400);
	free(b);
	/* one numbering: context C is the query's C-th thread in trace, trace-stack and
	 * trace-boxes alike (threads #2 and #3: context 1 is thread 3) */
	b = t_api_call(a, "trace-stack", "p=0&thread=%232&thread=%233&context=1&at=30000000", &st);
	T_EQ_INT(st, 200);
	T_CONTAINS(b, "{\"context\": 1, \"thread\": \"NODE 0 CORE 0 THREAD 3\", "
		      "\"thread_index\": 3, \"shown\": true, \"state\": \"shown\", \"time\": 30, "
		      "\"record\": 3, \"start\": 24.69");
	free(b);
	/* a zoom step asks the same query again: the paint comes from the cache, the answer is
	 * the same */
	char *b1 = t_api_call(a, "trace-boxes", "p=0&thread=%233&context=0&t0=0&t1=60000000", &st);
	T_EQ_INT(st, 200);
	char *b2 = t_api_call(a, "trace-boxes", "p=0&thread=%233&context=0&t0=0&t1=60000000", &st);
	T_EQ_INT(st, 200);
	T_EQ_STR(b1, b2);
	T_CONTAINS(b1, "\"thread\": \"NODE 0 CORE 0 THREAD 3\"");
	free(b1);
	free(b2);
	b = t_api_call(a, "trace-boxes", "p=0&thread=%232&thread=%233&context=1&t0=0&t1=60000000",
		 &st);
	T_EQ_INT(st, 200);
	T_CONTAINS(b, "\"thread\": \"NODE 0 CORE 0 THREAD 3\"");
	free(b);
	b = t_api_call(a, "trace", "p=0&thread=%232&thread=%233&width=4&height=2", &st);
	T_EQ_INT(st, 200);
	T_CONTAINS(b, "\"names\": [\"NODE 0 CORE 0 THREAD 2\", \"NODE 0 CORE 0 THREAD 3\"]");
	free(b);
	b = t_api_call(a, "trace-stack", "p=0&thread=%232&thread=%233&context=2&at=0", &st);
	T_EQ_INT(st, 400);
	T_CONTAINS(b, "context 2: the query has 2");
	free(b);
	/* depth=0 is call depth 0, not a (bad) tree depth of the query */
	b = t_api_call(a, "trace", "p=0&width=4&height=1&depth=0", &st);
	T_EQ_INT(st, 200);
	T_CONTAINS(b, "\"depth\": 0, ");
	free(b);
	/* a record the query leaves out is still told, marked not shown */
	b = t_api_call(a, "trace-stack", "p=0&context=0&at=20000000&filter=drop:test_separated_loops",
		 &st);
	T_EQ_INT(st, 200);
	T_CONTAINS(b, "\"shown\": false");
	free(b);
	pv_api_free(a);
}
/* clang-format on */

/* The stack chart's names once a session (trace-boxes?width=&known=LOG:N): the first answer
 * names its boxes' functions (those of `profview trace --boxes --width 12 --json`), a second
 * step names only the functions new to the log, an unknown log gets every name again. */
T_TEST(api_trace_chart_names_once)
{
	struct pv_api *a = t_api_of(t_data("hpctoolkit/loops-cputime-t.d"), NULL);
	if (!a)
		return;
	int st;
	unsigned log = 0, n = 0;
	char q[160];
	char *b = t_api_call(a, "trace-boxes", "p=0&context=0&width=12&known=0:0", &st);
	T_EQ_INT(st, 200);
	T_CONTAINS(
	    b, "\"functions\": [\n  [1,\"main thread\"],\n  [2,\"main\"],\n  [3,\"GOMP_parallel "
	       "[libgomp.so.1.0.0]\"],\n  [4,\"main._omp_fn.0\"]], \"known\": [");
	T_CONTAINS(b, "\"rows\": [\n  [0,12,1,1],");
	const char *k = strstr(b, "\"known\": [");
	T_TRUE(k && sscanf(k, "\"known\": [%u,%u]", &log, &n) == 2);
	T_EQ_INT(n, 4);
	free(b);
	/* the same window again: no name */
	snprintf(q, sizeof(q), "p=0&context=0&width=12&known=%u:4", log);
	b = t_api_call(a, "trace-boxes", q, &st);
	T_EQ_INT(st, 200);
	T_CONTAINS(b, "\"functions\": [], \"known\": [");
	free(b);
	/* 0 to 60 ms: test_separated_loops and func2 are new (the CLI's rows there) */
	snprintf(q, sizeof(q), "p=0&context=0&width=12&t0=0&t1=60000000&known=%u:4", log);
	b = t_api_call(a, "trace-boxes", q, &st);
	T_EQ_INT(st, 200);
	T_CONTAINS(
	    b, "\"functions\": [\n  [5,\"test_separated_loops\"],\n  [8,\"func2\"]], \"known\": [");
	T_CONTAINS(b, "  [1,5,5,1,4,1,5,1,0,1,8,1]]}");
	free(b);
	/* another log's count (a restarted server): every name from the first */
	snprintf(q, sizeof(q), "p=0&context=0&width=12&known=%u:6", log + 1);
	b = t_api_call(a, "trace-boxes", q, &st);
	T_EQ_INT(st, 200);
	T_CONTAINS(b, "\"functions\": [\n  [1,\"main thread\"],");
	T_CONTAINS(b, "  [8,\"func2\"]], \"known\": [");
	free(b);
	b = t_api_call(a, "trace-boxes", "p=0&context=0&width=12&known=x", &st);
	T_EQ_INT(st, 400);
	free(b);
	pv_api_free(a);
}

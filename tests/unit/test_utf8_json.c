/*
 * test_utf8_json.c - one escaping policy for every JSON output (pv/jsonw.h): a function name
 * that is not valid UTF-8 reaches the CLI's --json printers and the web API's answers as the
 * same text, each invalid byte U+FFFD, and every output is JSON (valid UTF-8, checked with the
 * C library's own decoder, and parsed).
 */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "marker/internal.h"
#include "pv/format.h"
#include "pv/graphs.h"
#include "pv/import.h"
#include "pv/serve.h"
#include "t.h"
#include "tp.h"

/* collapsed stacks: "bad\xff\xfe" (two stray bytes) and "ok\xc3\xa9" (a valid é) */
static const char PROFILE[] = "main;bad\xff\xfename 5\nmain;ok\xc3\xa9 3\n";
#define BAD_AS_FFFD "bad\xef\xbf\xbd\xef\xbf\xbdname"

/* Every byte sequence of s decodes as UTF-8 by the C library's decoder (C.UTF-8). */
static bool valid_utf8(const char *s, size_t n)
{
	mbstate_t st;
	memset(&st, 0, sizeof(st));
	while (n) {
		wchar_t w;
		size_t k = mbrtowc(&w, s, n, &st);
		if (k == (size_t)-1 || k == (size_t)-2)
			return false;
		if (k == 0)
			k = 1;
		s += k;
		n -= k;
	}
	return true;
}

/* out is one JSON text (a value, then only white space), valid UTF-8, naming both functions
 * with the bad bytes replaced. */
static void check_json(const char *what, const char *out)
{
	size_t n = strlen(out);
	if (!valid_utf8(out, n))
		t_fail(__FILE__, __LINE__, "%s: not valid UTF-8", what);
	struct jdoc d = {0};
	struct pv_error err;
	pv_error_clear(&err);
	if (jdoc_parse(&d, out, n, &err))
		t_fail(__FILE__, __LINE__, "%s: not JSON: %s", what, err.msg);
	jdoc_release(&d);
	T_CONTAINS(out, BAD_AS_FFFD);
	T_CONTAINS(out, "ok\xc3\xa9");
}

/* The CLI's --json output of the view kind's command (pv_print_view). */
static char *cli_view(const struct pv_profile *p, enum pv_view_kind kind)
{
	struct pv_query q;
	pv_query_init(&q);
	q.view = kind;
	struct pv_view *v = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	T_EQ_INT(pv_view_compute(p, &q, &v, &err), 0);
	pv_query_release(&q);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct pv_print_opts o = {.json = true, .threads_label = "all threads (1)"};
	T_EQ_INT(pv_print_view(f, v, &o), 0);
	fclose(f);
	pv_view_free(v);
	return buf;
}

T_TEST(utf8_json_cli_and_api)
{
	T_TRUE(setlocale(LC_CTYPE, "C.UTF-8") != NULL);
	struct pv_profile *p = t_load_text_format("bad-utf8.txt", PROFILE, "collapsed");
	/* the CLI: tree, top and flat --json */
	static const enum pv_view_kind kinds[] = {PV_VIEW_TREE, PV_VIEW_TOP, PV_VIEW_FLAT};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		char *out = cli_view(p, kinds[i]);
		check_json(pv_view_name(kinds[i]), out);
		free(out);
	}
	/* the page's answers on the same profile */
	struct pv_api *a = NULL;
	T_EQ_INT(pv_api_new(&a, NULL), 0);
	T_EQ_INT(pv_api_add_profile(a, "bad-utf8.txt", p), 0);
	static const char *const req[][2] = {
	    {"view", "heaviest=5"}, {"view", "view=top"},   {"view", "view=flat"},
	    {"flame", ""},	    {"children", "key=f0"},
	};
	for (size_t i = 0; i < sizeof(req) / sizeof(req[0]); i++) {
		char *body = NULL;
		size_t len = 0;
		const char *type;
		T_EQ_INT(pv_api_call(a, req[i][0], req[i][1], &body, &len, &type), 200);
		check_json(req[i][0], body);
		free(body);
	}
	pv_api_free(a);
	setlocale(LC_CTYPE, "C");
}

/* The writer's layouts and numbers the trace and contexts answers use (hand-written texts). */
T_TEST(utf8_json_rows_layout_and_reals)
{
	struct pv_json *j = pv_json_new(NULL);
	T_TRUE(j != NULL);
	pv_json_object(j);
	pv_json_key(j, "rows");
	pv_json_open(j, '[', PV_JSON_ROWS, 2);
	for (int r = 0; r < 2; r++) {
		pv_json_open(j, '[', PV_JSON_COMPACT, 0);
		pv_json_int(j, r - 1);
		pv_json_uint(j, 3);
		pv_json_end(j);
	}
	pv_json_end(j);
	pv_json_newline(j);
	pv_json_key(j, "none");
	pv_json_open(j, '[', PV_JSON_ROWS, 2);
	pv_json_end(j);
	pv_json_key(j, "pct");
	pv_json_fixed(j, 100.0 / 3, 4);
	pv_json_key(j, "mean");
	pv_json_real(j, 2.0 / 3, 12);
	pv_json_key(j, "nan");
	pv_json_real(j, NAN, 12);
	pv_json_end(j);
	T_EQ_INT(pv_json_error(j), 0);
	T_EQ_STR(pv_json_text(j, NULL),
		 "{\"rows\": [\n  [-1,3],\n  [0,3]],\n\"none\": [], "
		 "\"pct\": 33.3333, \"mean\": 0.666666666667, \"nan\": null}");
	pv_json_free(j);
}

/* The query value and its three notations: CLI flags, URL query string, JSON. */
#include <stdio.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "base/sbuf.h"
#include "pv/query.h"
#include "pv/view.h"
#include "t.h"

struct opt {
	const char *name, *value;
};

/* A query from CLI options (the view is the command); every option must be accepted. */
static void build(struct pv_query *q, enum pv_view_kind view, const struct opt *o)
{
	struct pv_error err;
	pv_query_init(q);
	q->view = view;
	for (; o && o->name; o++) {
		int rc = pv_query_set_option(q, o->name, o->value, &err);
		if (rc)
			t_fail(__FILE__, __LINE__, "--%s '%s': rc %d: %s", o->name, o->value, rc,
			       err.msg);
	}
}

/*
 * Splits a line into shell words the way a POSIX shell does for what pv_query_to_args writes:
 * blanks separate words, '...' is literal, a backslash outside quotes escapes one character.
 * Returns the number of words; words[] point into buf.
 */
static int shell_split(const char *line, char *buf, char **words, int max)
{
	int n = 0;
	const char *p = line;
	char *o = buf;
	for (;;) {
		while (*p == ' ')
			p++;
		if (!*p || n == max)
			return n;
		words[n++] = o;
		while (*p && *p != ' ') {
			if (*p == '\'') {
				for (p++; *p && *p != '\''; p++)
					*o++ = *p;
				if (*p)
					p++;
			} else if (*p == '\\' && p[1]) {
				*o++ = p[1];
				p += 2;
			} else {
				*o++ = *p++;
			}
		}
		*o++ = 0;
	}
}

/* Reads flags back as the CLI does: "--name value" or "-n value". */
static int from_args(struct pv_query *q, const char *line, struct pv_error *err)
{
	size_t len = strlen(line);
	char *buf = malloc(len + 1);
	char *words[8 * PV_QUERY_MAX + 32];
	int n = shell_split(line, buf, words, (int)(sizeof(words) / sizeof(words[0])));
	int rc = 0;
	pv_query_init(q);
	for (int i = 0; i < n && !rc; i += 2) {
		const char *name = words[i];
		if (strncmp(name, "--", 2) == 0)
			name += 2;
		else if (strcmp(name, "-n") == 0)
			name += 1;
		else
			t_fail(__FILE__, __LINE__, "not a flag: '%s' in %s", name, line);
		if (i + 1 >= n) {
			t_fail(__FILE__, __LINE__, "no value after %s in %s", name, line);
			break;
		}
		rc = pv_query_set_option(q, name, words[i + 1], err);
	}
	free(buf);
	return rc;
}

/*
 * args -> query -> URL -> query -> JSON -> query: each reading gives a query equal to q0, and
 * each writer prints the same text for every equal query.
 */
static void round_trip(const struct pv_query *q0, int line)
{
	struct pv_query q1, q2, q3, q4;
	struct pv_error err;
	char *args = pv_query_to_args(q0);
	T_TRUE(args != NULL);
	if (from_args(&q1, args, &err))
		t_fail(__FILE__, line, "args %s: %s", args, err.msg);
	q1.view = q0->view;
	if (!pv_query_equal(q0, &q1))
		t_fail(__FILE__, line, "args %s read back differently", args);

	char *url = pv_query_to_url(&q1);
	if (pv_query_from_url(&q2, url, &err))
		t_fail(__FILE__, line, "url %s: %s", url, err.msg);
	if (!pv_query_equal(q0, &q2))
		t_fail(__FILE__, line, "url %s read back differently", url);

	char *json = pv_query_to_json(&q2);
	if (pv_query_from_json(&q3, json, strlen(json), &err))
		t_fail(__FILE__, line, "json %s: %s", json, err.msg);
	if (!pv_query_equal(q0, &q3))
		t_fail(__FILE__, line, "json %s read back differently", json);

	T_EQ_INT(pv_query_copy(&q4, &q3), 0);
	T_TRUE(pv_query_equal(&q4, q0));
	char *args4 = pv_query_to_args(&q4), *url4 = pv_query_to_url(&q4);
	char *json4 = pv_query_to_json(&q4);
	T_EQ_STR(args4, args);
	T_EQ_STR(url4, url);
	T_EQ_STR(json4, json);
	pv_free(args4);
	pv_free(url4);
	pv_free(json4);
	pv_free(args);
	pv_free(url);
	pv_free(json);
	pv_query_release(&q1);
	pv_query_release(&q2);
	pv_query_release(&q3);
	pv_query_release(&q4);
}

T_TEST(query_defaults)
{
	struct pv_query q;
	pv_query_init(&q);
	T_EQ_INT(q.view, PV_VIEW_TREE);
	T_EQ_INT(q.has_range, 0);
	char *s = pv_query_to_args(&q);
	T_EQ_STR(s, "");
	pv_free(s);
	s = pv_query_to_url(&q);
	T_EQ_STR(s, "view=tree");
	pv_free(s);
	s = pv_query_to_json(&q);
	T_EQ_STR(s, "{\"view\": \"tree\", \"center\": [], \"filters\": [], \"metrics\": [], "
		    "\"by\": \"function\", \"threads\": [], \"range\": null, "
		    "\"percent\": \"center\", \"min_percent\": 0, \"depth\": 0, \"limit\": 0, "
		    "\"sort\": \"self\"}");
	pv_free(s);
	round_trip(&q, __LINE__);

	/* an empty URL, a bare '?', an empty object and a range open at both ends are defaults */
	struct pv_query r;
	struct pv_error err;
	T_EQ_INT(pv_query_from_url(&r, "", &err), 0);
	T_TRUE(pv_query_equal(&q, &r));
	T_EQ_INT(pv_query_from_url(&r, "?", &err), 0);
	T_TRUE(pv_query_equal(&q, &r));
	T_EQ_INT(pv_query_from_json(&r, " { } ", 5, &err), 0);
	T_TRUE(pv_query_equal(&q, &r));
	T_EQ_INT(pv_query_set_option(&r, "range", ":", &err), 0);
	T_EQ_INT(r.has_range, 0);
	T_TRUE(pv_query_equal(&q, &r));
	r.has_range = true; /* set by hand, still the whole range */
	T_TRUE(pv_query_equal(&q, &r));
	s = pv_query_to_url(&r);
	T_EQ_STR(s, "view=tree");
	pv_free(s);
	pv_query_release(&r);
	pv_query_release(&r); /* twice is harmless */
}

static const struct opt example[] = {
    {"center", "foo"},	     {"center", "re:^std"},
    {"merge", "bar"},	     {"include", "path:main;foo"},
    {"metric", "a,b"},	     {"by", "line"},
    {"thread", "GeckoMain"}, {"range", "10.5:20"},
    {"percent", "whole"},    {"min-percent", "1"},
    {"depth", "3"},	     {"n", "20"},
    {"sort", "total"},	     {NULL, NULL},
};

T_TEST(query_exact_text)
{
	struct pv_query q;
	build(&q, PV_VIEW_TREE, example);
	T_EQ_INT(q.nr_center, 2);
	T_EQ_INT(q.nr_filters, 2);
	T_EQ_INT(q.filters[0].kind, PV_FILTER_MERGE);
	T_EQ_INT(q.nr_metrics, 2);
	T_EQ_STR(q.metrics[1], "b");
	T_TRUE(q.has_range);
	T_EQ_INT(q.range_start_ns, 10500000);
	T_EQ_INT(q.range_end_ns, 20000000);
	T_EQ_INT(q.limit, 20);

	char *s = pv_query_to_args(&q);
	T_EQ_STR(s, "--center foo --center 're:^std' --merge bar --include 'path:main;foo' "
		    "--metric a,b --by line --thread GeckoMain --range 10.5:20 --percent whole "
		    "--min-percent 1 --depth 3 -n 20 --sort total");
	pv_free(s);
	s = pv_query_to_url(&q);
	T_EQ_STR(s, "view=tree&center=foo&center=re%3A%5Estd&filter=merge%3Abar"
		    "&filter=include%3Apath%3Amain%3Bfoo&metric=a,b&by=line&thread=GeckoMain"
		    "&range=10.5:20&percent=whole&min=1&depth=3&n=20&sort=total");
	pv_free(s);
	s = pv_query_to_json(&q);
	T_EQ_STR(s, "{\"view\": \"tree\", \"center\": [\"foo\", \"re:^std\"], \"filters\": "
		    "[{\"merge\": \"bar\"}, {\"include\": \"path:main;foo\"}], \"metrics\": "
		    "[\"a\", \"b\"], \"by\": \"line\", \"threads\": [\"GeckoMain\"], \"range\": "
		    "[10.5, 20], \"percent\": \"whole\", \"min_percent\": 1, \"depth\": 3, "
		    "\"limit\": 20, \"sort\": \"total\"}");
	pv_free(s);
	round_trip(&q, __LINE__);
	pv_query_release(&q);
}

/* Awkward characters: shell quoting, percent-encoding and JSON escapes all have work to do. */
T_TEST(query_exact_text_quoting)
{
	static const struct opt o[] = {
	    {"center", "it's a \"test\""}, {"drop", "a+b&c=d%e"}, {"thread", "Gecko\xc3\xa9 \t1"},
	    {"range", ":0.000001"},	   {NULL, NULL},
	};
	struct pv_query q;
	build(&q, PV_VIEW_CALLERS, o);
	char *s = pv_query_to_args(&q);
	T_EQ_STR(s, "--center 'it'\\''s a \"test\"' --drop 'a+b&c=d%e' "
		    "--thread 'Gecko\xc3\xa9 \t1' --range :0.000001");
	pv_free(s);
	s = pv_query_to_url(&q);
	T_EQ_STR(s, "view=callers&center=it%27s%20a%20%22test%22&filter=drop%3Aa%2Bb%26c%3Dd%25e"
		    "&thread=Gecko%C3%A9%20%091&range=:0.000001");
	pv_free(s);
	s = pv_query_to_json(&q);
	T_EQ_STR(s, "{\"view\": \"callers\", \"center\": [\"it's a \\\"test\\\"\"], \"filters\": "
		    "[{\"drop\": \"a+b&c=d%e\"}], \"metrics\": [], \"by\": \"function\", "
		    "\"threads\": [\"Gecko\xc3\xa9 \\t1\"], \"range\": [null, 0.000001], "
		    "\"percent\": \"center\", \"min_percent\": 0, \"depth\": 0, \"limit\": 0, "
		    "\"sort\": \"self\"}");
	pv_free(s);
	round_trip(&q, __LINE__);
	pv_query_release(&q);
}

T_TEST(query_round_trips)
{
	static const struct opt every_filter[] = {
	    {"include", "a b"},
	    {"drop", "x&y=z"},
	    {"merge", "100%"},
	    {"collapse-recursion", "it's"},
	    {"collapse-module", "libc.so.6"},
	    {"focus-category", "Java Script"},
	    {"include", "module:libxul.so"},
	    {NULL, NULL},
	};
	static const struct opt scopes[] = {
	    {"center", "path:main;foo;bar"},
	    {"center", "line:src/a b.c:12"},
	    {"center", "file:dir/x%y.c"},
	    {"center", "re:^(a|b)\\$[0-9]*?{1,2}"},
	    {"center", "module:lib\"foo\""},
	    {"center", "\xe5\x90\x8d\xe5\x89\x8d::f"},
	    {"center", "'single' \"double\" `tick`"},
	    {"center", "~home #hash !bang"},
	    {"center", "a+b=c&d;e"},
	    {"center", "new\nline\ttab"},
	    {"center", "--center"},
	    {"center", "-n"},
	    {"center", "\\back\\slash"},
	    {"center", "fn:42"},
	    {"merge", "operator new[](unsigned long)"},
	    {"center", "(anonymous)@https://a.org/app.min.js?v=1&x=%20:1:2041"},
	    {"merge", "f@node_modules/@babel/core/lib/x.js:3"},
	    {NULL, NULL},
	};
	static const struct opt lists[] = {
	    {"thread", "GeckoMain"},  {"thread", "1234"},
	    {"thread", "DOM Worker"}, {"metric", "cpu-time"},
	    {"metric", "Ir,samples"}, {"range", ":20"},
	    {"by", "file"},	      {NULL, NULL},
	};
	static const struct opt thresholds[] = {
	    {"range", "10:"}, {"min-percent", "0.000001"}, {"depth", "1"}, {"n", "0"},
	    {"by", "module"}, {"sort", "total"},	   {NULL, NULL},
	};
	static const struct opt extremes[] = {
	    {"range", "-5.25:9223372036854.775806"},
	    {"min-percent", "100"},
	    {"n", "4294967295"},
	    {"depth", "4294967295"},
	    {"percent", "whole"},
	    {"metric", "a,b,c"},
	    {"thread", "'"},
	    {NULL, NULL},
	};
	static const struct {
		enum pv_view_kind view;
		const struct opt *o;
	} cases[] = {
	    {PV_VIEW_TREE, NULL},    {PV_VIEW_TREE, example},	 {PV_VIEW_CALLERS, every_filter},
	    {PV_VIEW_FLAT, scopes},  {PV_VIEW_BUTTERFLY, lists}, {PV_VIEW_TOP, thresholds},
	    {PV_VIEW_TOP, extremes},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pv_query q;
		build(&q, cases[i].view, cases[i].o);
		round_trip(&q, __LINE__);
		pv_query_release(&q);
	}

	/* the adders take what the CLI cannot say: a metric with a comma (URL: %2C) */
	struct pv_query q;
	pv_query_init(&q);
	T_EQ_INT(pv_query_add_metric(&q, "cpu/event=0x3c,umask=0x0/"), 0);
	T_EQ_INT(pv_query_add_metric(&q, "b"), 0);
	char *url = pv_query_to_url(&q);
	T_EQ_STR(url, "view=tree&metric=cpu%2Fevent%3D0x3c%2Cumask%3D0x0%2F,b");
	struct pv_query r;
	struct pv_error err;
	T_EQ_INT(pv_query_from_url(&r, url, &err), 0);
	T_TRUE(pv_query_equal(&q, &r));
	pv_query_release(&r);
	char *json = pv_query_to_json(&q);
	T_EQ_INT(pv_query_from_json(&r, json, strlen(json), &err), 0);
	T_TRUE(pv_query_equal(&q, &r));
	pv_query_release(&r);
	pv_free(url);
	pv_free(json);
	pv_query_release(&q);
}

/* Milliseconds <-> ns is exact: many values through all three notations. */
T_TEST(query_range_exact)
{
	struct pv_query q;
	struct pv_error err;
	pv_query_init(&q);
	T_EQ_INT(pv_query_set_option(&q, "range", ".5:1.", &err), 0);
	T_EQ_INT(q.range_start_ns, 500000);
	T_EQ_INT(q.range_end_ns, 1000000);
	T_EQ_INT(pv_query_set_option(&q, "range", "+0.000001:10.500000000", &err), 0);
	T_EQ_INT(q.range_start_ns, 1);
	T_EQ_INT(q.range_end_ns, 10500000);
	T_EQ_INT(pv_query_set_option(&q, "range", "-9223372036854.775806:0", &err), 0);
	T_EQ_INT(q.range_start_ns, -INT64_MAX + 1);
	T_EQ_INT(q.range_end_ns, 0);
	T_EQ_INT(pv_query_set_option(&q, "range", "3:", &err), 0);
	T_EQ_INT(q.range_start_ns, 3000000);
	T_TRUE(q.range_end_ns == INT64_MAX);
	char *s = pv_query_to_json(&q);
	T_CONTAINS(s, "\"range\": [3, null]");
	pv_free(s);

	uint64_t x = 88172645463325252ull;
	for (int i = 0; i < 2000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		/* short and long values, negative and positive */
		int64_t a = (int64_t)(x >> (i % 40 + 2)) * (i & 1 ? -1 : 1);
		q.has_range = true;
		q.range_start_ns = a;
		q.range_end_ns = a + 1 + (int64_t)(x % 1000003);
		q.min_percent = (double)(x % 100000001) / 1e6;
		round_trip(&q, __LINE__);
	}
	pv_query_release(&q);

	/* JSON times: exponents, trailing zeros, open ends */
	const char *j = "{\"range\": [1e3, 2.5000000e+3]}";
	T_EQ_INT(pv_query_from_json(&q, j, strlen(j), &err), 0);
	T_EQ_INT(q.range_start_ns, 1000000000);
	T_EQ_INT(q.range_end_ns, 2500000000);
	j = "{\"range\": [null, 0.25]}";
	T_EQ_INT(pv_query_from_json(&q, j, strlen(j), &err), 0);
	T_TRUE(q.has_range && q.range_start_ns == INT64_MIN);
	T_EQ_INT(q.range_end_ns, 250000);
	j = "{\"range\": [null, null]}";
	T_EQ_INT(pv_query_from_json(&q, j, strlen(j), &err), 0);
	T_EQ_INT(q.has_range, 0);
	pv_query_release(&q);
}

static void cli_error(const char *name, const char *value, int code, const char *msg, int line)
{
	struct pv_query q;
	struct pv_error err;
	pv_query_init(&q);
	pv_error_clear(&err);
	int rc = pv_query_set_option(&q, name, value, &err);
	if (rc != code || strcmp(err.msg, msg) != 0)
		t_fail(__FILE__, line, "--%s '%s': rc %d \"%s\", expected %d \"%s\"", name, value,
		       rc, err.msg, code, msg);
	pv_query_release(&q);
}

T_TEST(query_cli_errors)
{
	cli_error("by", "x", PV_EINVAL, "--by takes function, line, file, module or loop, not 'x'",
		  __LINE__);
	cli_error("percent", "all", PV_EINVAL, "--percent takes center or whole, not 'all'",
		  __LINE__);
	cli_error("sort", "name", PV_EINVAL, "--sort takes self, total or delta, not 'name'",
		  __LINE__);
	cli_error("depth", "0", PV_EINVAL, "--depth takes a positive count, not '0'", __LINE__);
	cli_error("depth", "3x", PV_EINVAL, "--depth takes a positive count, not '3x'", __LINE__);
	cli_error("depth", "", PV_EINVAL, "--depth takes a positive count, not ''", __LINE__);
	cli_error("n", "-1", PV_EINVAL, "-n takes a count, not '-1'", __LINE__);
	cli_error("n", "4294967296", PV_EINVAL, "-n takes a count, not '4294967296'", __LINE__);
	cli_error("min-percent", "101", PV_EINVAL,
		  "--min-percent takes a percentage from 0 to 100 with at most 6 decimals, "
		  "not '101'",
		  __LINE__);
	cli_error("min-percent", "0.0000001", PV_EINVAL,
		  "--min-percent takes a percentage from 0 to 100 with at most 6 decimals, "
		  "not '0.0000001'",
		  __LINE__);
	cli_error("min-percent", "1e1", PV_EINVAL,
		  "--min-percent takes a percentage from 0 to 100 with at most 6 decimals, "
		  "not '1e1'",
		  __LINE__);
	cli_error("range", "10", PV_EINVAL,
		  "--range takes T0:T1 in milliseconds (T0 or T1 may be empty), not '10'",
		  __LINE__);
	cli_error("range", "1:2:3", PV_EINVAL,
		  "--range takes T0:T1 in milliseconds (T0 or T1 may be empty), not '1:2:3'",
		  __LINE__);
	cli_error("range", "a:b", PV_EINVAL,
		  "--range takes T0:T1 in milliseconds (T0 or T1 may be empty), not 'a:b'",
		  __LINE__);
	cli_error("range", "1e3:", PV_EINVAL,
		  "--range takes T0:T1 in milliseconds (T0 or T1 may be empty), not '1e3:'",
		  __LINE__);
	cli_error("range", "9223372036854.775807:", PV_EINVAL,
		  "--range takes T0:T1 in milliseconds (T0 or T1 may be empty), "
		  "not '9223372036854.775807:'",
		  __LINE__);
	cli_error("range", "1.0000001:2", PV_EINVAL,
		  "--range takes milliseconds with at most 6 decimals, not '1.0000001:2'",
		  __LINE__);
	cli_error("range", "20:10", PV_EINVAL, "--range takes T0:T1 with T0 < T1, not '20:10'",
		  __LINE__);
	cli_error("range", "10:10", PV_EINVAL, "--range takes T0:T1 with T0 < T1, not '10:10'",
		  __LINE__);
	cli_error("center", "", PV_EINVAL, "--center takes a scope, not an empty string", __LINE__);
	cli_error("collapse-module", "", PV_EINVAL,
		  "--collapse-module takes a module name, not an empty string", __LINE__);
	cli_error("focus-category", "", PV_EINVAL,
		  "--focus-category takes a category name, not an empty string", __LINE__);
	cli_error("thread", "", PV_EINVAL,
		  "--thread takes a thread name or tid, not an empty string", __LINE__);
	cli_error("metric", "a,,b", PV_EINVAL,
		  "--metric takes metric names separated by commas, not 'a,,b'", __LINE__);
	cli_error("metric", "a,", PV_EINVAL,
		  "--metric takes metric names separated by commas, not 'a,'", __LINE__);

	/* not query options: left to the CLI, q untouched */
	struct pv_query q, d;
	struct pv_error err;
	pv_query_init(&q);
	pv_query_init(&d);
	T_EQ_INT(pv_query_set_option(&q, "format", "collapsed", &err), 1);
	T_EQ_INT(pv_query_set_option(&q, "view", "tree", &err), 1);
	T_EQ_INT(pv_query_set_option(&q, "--center", "foo", &err), 1);
	T_TRUE(pv_query_equal(&q, &d));

	/* a failed metric list appends nothing */
	T_EQ_INT(pv_query_set_option(&q, "metric", "a,,b", &err), PV_EINVAL);
	T_EQ_INT(q.nr_metrics, 0);

	/* the last value of a single-valued option wins; lists append */
	T_EQ_INT(pv_query_set_option(&q, "by", "line", &err), 0);
	T_EQ_INT(pv_query_set_option(&q, "by", "file", &err), 0);
	T_EQ_INT(q.by, PV_BY_FILE);
	T_EQ_INT(pv_query_set_option(&q, "metric", "a", &err), 0);
	T_EQ_INT(pv_query_set_option(&q, "metric", "b,c", &err), 0);
	T_EQ_INT(q.nr_metrics, 3);
	T_EQ_STR(q.metrics[2], "c");
	pv_query_release(&q);
}

T_TEST(query_limits)
{
	struct pv_query q;
	struct pv_error err;
	char name[16];
	pv_query_init(&q);
	for (int i = 0; i < PV_QUERY_MAX; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		T_EQ_INT(pv_query_set_option(&q, "center", name, &err), 0);
		T_EQ_INT(pv_query_set_option(&q, i % 2 ? "merge" : "drop", name, &err), 0);
		T_EQ_INT(pv_query_add_thread(&q, name), 0);
	}
	T_EQ_INT(pv_query_set_option(&q, "center", "one more", &err), PV_ELIMIT);
	T_EQ_STR(err.msg, "too many --center values (at most 64)");
	T_EQ_INT(pv_query_set_option(&q, "include", "x", &err), PV_ELIMIT);
	T_EQ_STR(err.msg, "too many --include values (at most 64)");
	T_EQ_INT(pv_query_add_center(&q, "x"), PV_ELIMIT);
	T_EQ_INT(pv_query_add_filter(&q, PV_FILTER_MERGE, "x"), PV_ELIMIT);
	T_EQ_INT(pv_query_add_thread(&q, "x"), PV_ELIMIT);
	T_EQ_INT(q.nr_center, PV_QUERY_MAX);
	round_trip(&q, __LINE__); /* 64 of each still fits every notation */

	T_EQ_INT(pv_query_set_option(&q, "metric", "m", &err), 0);
	/* 63 more fit, 64 do not: the list is checked whole, nothing appended */
	char list[4 * PV_QUERY_MAX];
	size_t n = 0;
	for (int i = 0; i < PV_QUERY_MAX; i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%sm", i ? "," : "");
	T_EQ_INT(pv_query_set_option(&q, "metric", list, &err), PV_ELIMIT);
	T_EQ_STR(err.msg, "too many --metric values (at most 64)");
	T_EQ_INT(q.nr_metrics, 1);
	pv_query_release(&q);

	/* the same limit in a URL and in JSON */
	struct sbuf url = SBUF_INIT;
	sbuf_puts(&url, "view=tree");
	for (int i = 0; i <= PV_QUERY_MAX; i++)
		sbuf_addf(&url, "&thread=t%d", i);
	T_TRUE(!url.oom);
	T_EQ_INT(pv_query_from_url(&q, url.buf, &err), PV_ELIMIT);
	T_EQ_STR(err.msg, "too many thread values (at most 64)");
	T_EQ_INT(q.nr_threads, 0); /* a failed read leaves the defaults */
	sbuf_set(&url, "{\"center\": [", 12);
	for (int i = 0; i <= PV_QUERY_MAX; i++)
		sbuf_addf(&url, "%s\"c\"", i ? "," : "");
	sbuf_puts(&url, "]}");
	T_TRUE(!url.oom);
	T_EQ_INT(pv_query_from_json(&q, url.buf, url.len, &err), PV_ELIMIT);
	T_EQ_STR(err.msg, "query: line 1, column 269: too many center values (at most 64)");
	sbuf_release(&url);
}

static void url_error(const char *url, int code, const char *msg, int line)
{
	struct pv_query q;
	struct pv_error err;
	pv_error_clear(&err);
	int rc = pv_query_from_url(&q, url, &err);
	if (rc != code || strcmp(err.msg, msg) != 0)
		t_fail(__FILE__, line, "%s: rc %d \"%s\", expected %d \"%s\"", url, rc, err.msg,
		       code, msg);
	pv_query_release(&q);
}

T_TEST(query_url_reading)
{
	struct pv_query q;
	struct pv_error err;
	/* '+' is a space, hex digits in either case, empty pairs skipped, a leading '?' */
	const char *u = "?center=a+b%20c&&center=%c3%A9&metric=a%2Cb,c&filter=collapse-recursion:f"
			"&range=1%3A2&by=file&by=line&view=top";
	T_EQ_INT(pv_query_from_url(&q, u, &err), 0);
	T_EQ_INT(q.nr_center, 2);
	T_EQ_STR(q.center[0], "a b c");
	T_EQ_STR(q.center[1], "\xc3\xa9");
	T_EQ_INT(q.nr_metrics, 2);
	T_EQ_STR(q.metrics[0], "a,b");
	T_EQ_STR(q.metrics[1], "c");
	T_EQ_INT(q.filters[0].kind, PV_FILTER_COLLAPSE_RECURSION);
	T_EQ_STR(q.filters[0].arg, "f");
	T_EQ_INT(q.range_end_ns, 2000000);
	T_EQ_INT(q.by, PV_BY_LINE);
	T_EQ_INT(q.view, PV_VIEW_TOP);
	pv_query_release(&q);

	url_error("view=tree&colour=red", PV_EINVAL, "unknown query key 'colour'", __LINE__);
	url_error("view=tree&min-percent=3", PV_EINVAL, "unknown query key 'min-percent'",
		  __LINE__);
	url_error("view", PV_EINVAL, "view takes tree, callers, flat, butterfly or top, not ''",
		  __LINE__);
	url_error("view=forest", PV_EINVAL,
		  "view takes tree, callers, flat, butterfly or top, not 'forest'", __LINE__);
	url_error("filter=squash%3Ax", PV_EINVAL,
		  "filter takes KIND:ARG with KIND one of include, drop, merge, "
		  "collapse-recursion, collapse-module or focus-category, not 'squash:x'",
		  __LINE__);
	url_error("filter=merge", PV_EINVAL,
		  "filter takes KIND:ARG with KIND one of include, drop, merge, "
		  "collapse-recursion, collapse-module or focus-category, not 'merge'",
		  __LINE__);
	url_error("filter=merge:", PV_EINVAL, "merge takes a scope, not an empty string", __LINE__);
	url_error("center=%zz", PV_EINVAL, "bad %-escape in 'center=%zz'", __LINE__);
	url_error("center=ab%2", PV_EINVAL, "bad %-escape in 'center=ab%2'", __LINE__);
	url_error("center=%00", PV_EINVAL, "bad %-escape in 'center=%00'", __LINE__);
	url_error("metric=a,,b", PV_EINVAL,
		  "metric takes metric names separated by commas, not 'a,,b'", __LINE__);
	url_error("min=200", PV_EINVAL,
		  "min takes a percentage from 0 to 100 with at most 6 decimals, not '200'",
		  __LINE__);
	url_error("range=5:1", PV_EINVAL, "range takes T0:T1 with T0 < T1, not '5:1'", __LINE__);
	url_error("depth=0", PV_EINVAL, "depth takes a positive count, not '0'", __LINE__);
	url_error("n=x", PV_EINVAL, "n takes a count, not 'x'", __LINE__);
	url_error("sort=size", PV_EINVAL, "sort takes self, total or delta, not 'size'", __LINE__);
	url_error("percent=half", PV_EINVAL, "percent takes center or whole, not 'half'", __LINE__);

	/* a failed read leaves q at the defaults, even if it got far */
	struct pv_query d;
	pv_query_init(&d);
	T_EQ_INT(pv_query_from_url(&q, "center=a&by=line&by=nope", NULL), PV_EINVAL);
	T_TRUE(pv_query_equal(&q, &d));
}

static void json_error(const char *json, int code, const char *msg, int line)
{
	struct pv_query q;
	struct pv_error err;
	pv_error_clear(&err);
	int rc = pv_query_from_json(&q, json, strlen(json), &err);
	if (rc != code || strcmp(err.msg, msg) != 0)
		t_fail(__FILE__, line, "%s: rc %d \"%s\", expected %d \"%s\"", json, rc, err.msg,
		       code, msg);
	pv_query_release(&q);
}

T_TEST(query_json_reading)
{
	struct pv_query q;
	struct pv_error err;
	/* any subset, any order, escapes in keys and values */
	const char *j = "{\"sort\": \"total\", \"filters\": [{\"focus-category\": \"JS\"}, "
			"{\"dr\\u006fp\": \"a\\u0000b\"}], \"view\": \"flat\"}";
	T_EQ_INT(pv_query_from_json(&q, j, strlen(j), &err), PV_EPARSE);
	T_EQ_STR(err.msg, "query: line 1, column 71: a NUL character (\\u0000) in a string");
	j = "{\"sort\": \"total\", \"filters\": [{\"focus-category\": \"JS\"}, "
	    "{\"dr\\u006fp\": \"a\\\"b\\u00e9\"}], \"view\": \"flat\", \"depth\": 2.0}";
	T_EQ_INT(pv_query_from_json(&q, j, strlen(j), &err), 0);
	T_EQ_INT(q.sort, PV_SORT_TOTAL);
	T_EQ_INT(q.view, PV_VIEW_FLAT);
	T_EQ_INT(q.nr_filters, 2);
	T_EQ_INT(q.filters[0].kind, PV_FILTER_FOCUS_CATEGORY);
	T_EQ_INT(q.filters[1].kind, PV_FILTER_DROP);
	T_EQ_STR(q.filters[1].arg, "a\"b\xc3\xa9");
	T_EQ_INT(q.depth, 2);
	T_EQ_INT(q.by, PV_BY_FUNCTION);
	pv_query_release(&q);

	json_error("{\"view\": \"tree\", \"colour\": 1}", PV_EPARSE,
		   "query: line 1, column 18: unknown key 'colour'", __LINE__);
	json_error("{\"view\": \"tree\", \"view\": \"top\"}", PV_EPARSE,
		   "query: line 1, column 18: duplicate key 'view'", __LINE__);
	json_error("{\"by\": 3}", PV_EPARSE,
		   "query: line 1, column 8: expected a string, found a number", __LINE__);
	json_error(
	    "{\"by\": \"x\"}", PV_EINVAL,
	    "query: line 1, column 8: by takes function, line, file, module or loop, not 'x'",
	    __LINE__);
	json_error("{\"center\": \"foo\"}", PV_EPARSE,
		   "query: line 1, column 12: expected an array of strings, found a string",
		   __LINE__);
	json_error("{\"center\": [\"foo\", 1]}", PV_EPARSE,
		   "query: line 1, column 20: expected a string, found a number", __LINE__);
	json_error("{\"threads\": [\"\"]}", PV_EINVAL,
		   "query: line 1, column 14: threads takes a thread name or tid, "
		   "not an empty string",
		   __LINE__);
	json_error("{\"filters\": [\"merge:bar\"]}", PV_EPARSE,
		   "query: line 1, column 14: expected a filter like {\"merge\": \"bar\"}, "
		   "found a string",
		   __LINE__);
	json_error("{\"filters\": [{}]}", PV_EPARSE,
		   "query: line 1, column 15: expected a filter kind, found the end of a container",
		   __LINE__);
	json_error("{\"filters\": [{\"squash\": \"x\"}]}", PV_EPARSE,
		   "query: line 1, column 15: unknown filter 'squash' (expected include, drop, "
		   "merge, collapse-recursion, collapse-module or focus-category)",
		   __LINE__);
	json_error("{\"filters\": [{\"merge\": \"a\", \"drop\": \"b\"}]}", PV_EPARSE,
		   "query: line 1, column 29: expected '}' after a filter's one key, found a key",
		   __LINE__);
	json_error("{\"range\": [1.0000001, 2]}", PV_EPARSE,
		   "query: line 1, column 12: range takes milliseconds with at most 6 decimals, "
		   "not 1.0000001",
		   __LINE__);
	json_error("{\"range\": [1, 2, 3]}", PV_EPARSE,
		   "query: line 1, column 18: expected ']' after [start_ms, end_ms], "
		   "found a number",
		   __LINE__);
	json_error("{\"range\": [2, 1]}", PV_EPARSE,
		   "query: line 1, column 16: range takes [start_ms, end_ms] with start < end",
		   __LINE__);
	json_error("{\"range\": [\"1\", 2]}", PV_EPARSE,
		   "query: line 1, column 12: expected a time in milliseconds or null, "
		   "found a string",
		   __LINE__);
	json_error("{\"range\": 10}", PV_EPARSE,
		   "query: line 1, column 11: expected null or [start_ms, end_ms], found a number",
		   __LINE__);
	json_error("{\"range\": [1e30, null]}", PV_EPARSE,
		   "query: line 1, column 12: range: 1e30 ms is out of range", __LINE__);
	json_error("{\n  \"depth\": -1\n}", PV_EPARSE,
		   "query: line 2, column 12: depth takes a count, not -1", __LINE__);
	json_error("{\"limit\": 1.5}", PV_EPARSE,
		   "query: line 1, column 11: limit takes a count, not 1.5", __LINE__);
	json_error("{\"min_percent\": 100.5}", PV_EPARSE,
		   "query: line 1, column 17: min_percent takes a percentage from 0 to 100 with at "
		   "most 6 decimals, not 100.5",
		   __LINE__);
	json_error("[]", PV_EPARSE,
		   "query: line 1, column 1: expected a query object, found an array", __LINE__);
	json_error("{} x", PV_EPARSE,
		   "query: line 1, column 4: expected the end of the input after the top-level "
		   "value, found 'x'",
		   __LINE__);
	json_error("{\"view\": \"tree\"", PV_EPARSE,
		   "query: line 1, column 16: expected ',' or '}', found the end of the input",
		   __LINE__);
	json_error("", PV_EPARSE,
		   "query: line 1, column 1: expected a value, found the end of the input",
		   __LINE__);

	/* without an error struct, the code alone */
	j = "{\"by\": 1}";
	T_EQ_INT(pv_query_from_json(&q, j, strlen(j), NULL), PV_EPARSE);
	j = "{\"by\": \"x\"}";
	T_EQ_INT(pv_query_from_json(&q, j, strlen(j), NULL), PV_EINVAL);
}

T_TEST(query_names)
{
	static const char *const views[] = {"tree", "callers", "flat", "butterfly", "top"};
	static const char *const filters[] = {
	    "include", "drop", "merge", "collapse-recursion", "collapse-module", "focus-category"};
	static const char *const bys[] = {"function", "line", "file", "module"};
	for (int i = 0; i < 5; i++) {
		enum pv_view_kind v;
		T_EQ_STR(pv_view_name((enum pv_view_kind)i), views[i]);
		T_EQ_INT(pv_view_parse(views[i], &v), 0);
		T_EQ_INT(v, i);
	}
	for (int i = 0; i < 6; i++) {
		enum pv_filter_kind k;
		T_EQ_STR(pv_filter_name((enum pv_filter_kind)i), filters[i]);
		T_EQ_INT(pv_filter_parse(filters[i], &k), 0);
		T_EQ_INT(k, i);
	}
	for (int i = 0; i < 4; i++) {
		enum pv_granularity g;
		T_EQ_STR(pv_granularity_name((enum pv_granularity)i), bys[i]);
		T_EQ_INT(pv_granularity_parse(bys[i], &g), 0);
		T_EQ_INT(g, i);
	}
	enum pv_view_kind v = PV_VIEW_TOP;
	T_EQ_INT(pv_view_parse("Tree", &v), PV_EINVAL);
	T_EQ_INT(v, PV_VIEW_TOP);
	T_TRUE(pv_view_name((enum pv_view_kind)99) == NULL);
	enum pv_filter_kind k;
	T_EQ_INT(pv_filter_parse("", &k), PV_EINVAL);
	enum pv_granularity g;
	T_EQ_INT(pv_granularity_parse("lines", &g), PV_EINVAL);
}

T_TEST(query_equal_and_copy)
{
	struct pv_query a, b;
	build(&a, PV_VIEW_BUTTERFLY, example);
	T_EQ_INT(pv_query_copy(&b, &a), 0);
	T_TRUE(pv_query_equal(&a, &b));
	T_TRUE(a.center[0] != b.center[0]); /* deep */

	/* every field counts; filters in order */
	struct pv_filter f = b.filters[0];
	b.filters[0] = b.filters[1];
	b.filters[1] = f;
	T_TRUE(!pv_query_equal(&a, &b));
	b.filters[1] = b.filters[0];
	b.filters[0] = f;
	T_TRUE(pv_query_equal(&a, &b));
	b.range_end_ns++;
	T_TRUE(!pv_query_equal(&a, &b));
	b.range_end_ns--;
	b.min_percent = 1.000001;
	T_TRUE(!pv_query_equal(&a, &b));
	b.min_percent = 1.0000000001; /* below the kept resolution */
	T_TRUE(pv_query_equal(&a, &b));
	b.depth = 4;
	T_TRUE(!pv_query_equal(&a, &b));
	b.depth = 3;
	b.view = PV_VIEW_TREE;
	T_TRUE(!pv_query_equal(&a, &b));
	b.view = PV_VIEW_BUTTERFLY;
	T_EQ_INT(pv_query_add_thread(&b, "x"), 0);
	T_TRUE(!pv_query_equal(&a, &b));
	pv_query_release(&b);
	pv_query_release(&a);
}

/* Reads text (a URL, or JSON) with its k-th allocation failing for k = 1, 2, ... until a read
 * succeeds: each failure is PV_ENOMEM, and the query read is a. */
static void read_failing(const struct pv_query *a, const char *text, bool json)
{
	struct pv_query b;
	struct pv_error err;
	for (uint64_t k = 1; k < 400; k++) {
		pv_alloc_fail_after(k);
		int rc = json ? pv_query_from_json(&b, text, strlen(text), &err)
			      : pv_query_from_url(&b, text, &err);
		pv_alloc_fail_after(0);
		if (rc == 0) {
			T_TRUE(pv_query_equal(a, &b));
			pv_query_release(&b);
			break;
		}
		T_EQ_INT(rc, PV_ENOMEM);
		T_EQ_INT(err.code, PV_ENOMEM);
	}
}

/* Every allocation failure is reported as PV_ENOMEM and leaks nothing (ASan checks the leaks). */
T_TEST(query_out_of_memory)
{
	struct pv_query a, b;
	struct pv_error err;
	build(&a, PV_VIEW_FLAT, example);
	char *url = pv_query_to_url(&a), *json = pv_query_to_json(&a);
	int fails = 0;
	for (uint64_t k = 1; k < 400; k++) {
		pv_alloc_fail_after(k);
		int rc = pv_query_copy(&b, &a);
		pv_alloc_fail_after(0);
		T_TRUE(rc == 0 || rc == PV_ENOMEM);
		if (rc == 0) {
			T_TRUE(pv_query_equal(&a, &b));
			pv_query_release(&b);
			break;
		}
		fails++;
	}
	T_TRUE(fails > 5);
	read_failing(&a, url, false);
	read_failing(&a, json, true);
	for (uint64_t k = 1; k < 3; k++) {
		pv_alloc_fail_after(k);
		int rc = pv_query_set_option(&b, "metric", "x,y", &err);
		pv_alloc_fail_after(0);
		T_EQ_INT(rc, PV_ENOMEM);
		T_EQ_STR(err.msg, "out of memory");
		pv_query_release(&b);
	}
	pv_alloc_fail_after(1);
	char *s = pv_query_to_args(&a);
	pv_alloc_fail_after(0);
	T_TRUE(s == NULL);
	pv_free(url);
	pv_free(json);
	pv_query_release(&a);
}

/* --inside-markers: a marker search, kept as written, in all three notations. */
T_TEST(query_inside_markers)
{
	static const struct opt o[] = {
	    {"inside-markers", "Reflow,-cat:Paint, name:it's a \"b&c=d\""},
	    {"range", "1:2"},
	    {NULL, NULL},
	};
	struct pv_query q;
	struct pv_error err;
	build(&q, PV_VIEW_TREE, o);
	T_EQ_STR(q.inside_markers, "Reflow,-cat:Paint, name:it's a \"b&c=d\"");
	char *s = pv_query_to_args(&q);
	T_EQ_STR(s, "--range 1:2 --inside-markers 'Reflow,-cat:Paint, name:it'\\''s a \"b&c=d\"'");
	pv_free(s);
	s = pv_query_to_url(&q);
	T_EQ_STR(s, "view=tree&range=1:2&inside-markers=Reflow%2C-cat%3APaint%2C%20name%3Ait%27s"
		    "%20a%20%22b%26c%3Dd%22");
	pv_free(s);
	s = pv_query_to_json(&q);
	T_EQ_STR(s, "{\"view\": \"tree\", \"center\": [], \"filters\": [], \"metrics\": [], "
		    "\"by\": \"function\", \"threads\": [], \"range\": [1, 2], \"inside_markers\": "
		    "\"Reflow,-cat:Paint, name:it's a \\\"b&c=d\\\"\", \"percent\": \"center\", "
		    "\"min_percent\": 0, \"depth\": 0, \"limit\": 0, \"sort\": \"self\"}");
	pv_free(s);
	round_trip(&q, __LINE__);

	/* a second value replaces the first; the same query is equal, another is not */
	struct pv_query r;
	T_EQ_INT(pv_query_copy(&r, &q), 0);
	T_TRUE(pv_query_equal(&q, &r));
	T_EQ_INT(pv_query_set_option(&r, "inside-markers", "GC", &err), 0);
	T_EQ_STR(r.inside_markers, "GC");
	T_TRUE(!pv_query_equal(&q, &r));
	pv_query_release(&r);

	/* empty is refused in every notation; JSON takes null as none */
	T_EQ_INT(pv_query_set_option(&q, "inside-markers", "", &err), PV_EINVAL);
	T_EQ_STR(err.msg, "--inside-markers takes a marker search, not an empty string");
	T_EQ_INT(pv_query_from_url(&r, "inside-markers=", &err), PV_EINVAL);
	T_EQ_STR(err.msg, "inside-markers takes a marker search, not an empty string");
	T_EQ_INT(pv_query_from_json(&r, "{\"inside_markers\": \"\"}", 22, &err), PV_EINVAL);
	T_CONTAINS(err.msg, "inside_markers takes a marker search, not an empty string");
	T_EQ_INT(pv_query_from_json(&r, "{\"inside_markers\": 3}", 21, &err), PV_EPARSE);
	T_CONTAINS(err.msg, "expected null or a marker search (a string), found a number");
	T_EQ_INT(pv_query_from_json(&r, "{\"inside_markers\": null}", 24, &err), 0);
	T_TRUE(r.inside_markers == NULL);
	pv_query_release(&r);
	pv_query_release(&q);
}

/* --inline keep|fold: written only when folding, read in all three notations. */
T_TEST(query_inline)
{
	static const struct opt o[] = {{"inline", "fold"}, {"center", "main"}, {NULL, NULL}};
	struct pv_query q, r;
	struct pv_error err;
	build(&q, PV_VIEW_TOP, o);
	T_EQ_INT(q.inlines, PV_INLINE_FOLD);
	char *s = pv_query_to_args(&q);
	T_EQ_STR(s, "--center main --inline fold");
	pv_free(s);
	s = pv_query_to_url(&q);
	T_EQ_STR(s, "view=top&center=main&inline=fold");
	pv_free(s);
	s = pv_query_to_json(&q);
	T_EQ_STR(s,
		 "{\"view\": \"top\", \"center\": [\"main\"], \"filters\": [], \"metrics\": [], "
		 "\"by\": \"function\", \"threads\": [], \"range\": null, \"percent\": "
		 "\"center\", \"min_percent\": 0, \"depth\": 0, \"limit\": 0, \"sort\": \"self\", "
		 "\"inline\": \"fold\"}");
	pv_free(s);
	round_trip(&q, __LINE__);

	/* keep is the default: not written, read from every notation, not equal to fold */
	T_EQ_INT(pv_query_copy(&r, &q), 0);
	T_EQ_INT(pv_query_set_option(&r, "inline", "keep", &err), 0);
	T_EQ_INT(r.inlines, PV_INLINE_KEEP);
	T_TRUE(!pv_query_equal(&q, &r));
	s = pv_query_to_url(&r);
	T_EQ_STR(s, "view=top&center=main");
	pv_free(s);
	round_trip(&r, __LINE__);
	pv_query_release(&r);
	T_EQ_INT(pv_query_from_url(&r, "inline=keep", &err), 0);
	T_EQ_INT(r.inlines, PV_INLINE_KEEP);
	pv_query_release(&r);
	T_EQ_INT(pv_query_from_url(&r, "view=top&center=main&inline=fold", &err), 0);
	T_TRUE(pv_query_equal(&q, &r));
	pv_query_release(&r);
	T_EQ_INT(pv_query_from_json(&r, "{\"inline\": \"keep\"}", 18, &err), 0);
	T_EQ_INT(r.inlines, PV_INLINE_KEEP);
	pv_query_release(&r);

	/* other values are refused with the same words in every notation */
	T_EQ_INT(pv_query_set_option(&q, "inline", "drop", &err), PV_EINVAL);
	T_EQ_STR(err.msg, "--inline takes keep or fold, not 'drop'");
	T_EQ_INT(pv_query_from_url(&r, "inline=yes", &err), PV_EINVAL);
	T_EQ_STR(err.msg, "inline takes keep or fold, not 'yes'");
	T_EQ_INT(pv_query_from_json(&r, "{\"inline\": \"\"}", 14, &err), PV_EINVAL);
	T_CONTAINS(err.msg, "inline takes keep or fold, not ''");
	T_EQ_INT(pv_query_from_json(&r, "{\"inline\": true}", 16, &err), PV_EPARSE);
	T_CONTAINS(err.msg, "expected a string");
	pv_query_release(&q);
}

/* A notation's text of a query (pv_query_to_args, _url, _json: freed here) is want, or with
 * part holds it. */
static void expect_text(char *got, const char *want, bool part, int line)
{
	if (!got || (part ? !strstr(got, want) : strcmp(got, want) != 0))
		t_fail(__FILE__, line, "'%s', expected %s'%s'", got ? got : "(null)",
		       part ? "a text holding " : "", want);
	pv_free(got);
}
#define EXPECT_TEXT(got, want)	   expect_text(got, want, false, __LINE__)
#define EXPECT_TEXT_HAS(got, want) expect_text(got, want, true, __LINE__)

/* A query that names no sort keeps its view kind's own order (flat: total; top and the trees:
 * self, the name the default has always been written with); naming that order is the same as
 * naming none, so the flags and the URL stay as they were. Naming the other one is written. */
T_TEST(query_sort_default)
{
	struct pv_query q, r;
	struct pv_error err;
	pv_query_init(&q);
	q.view = PV_VIEW_FLAT;
	T_EQ_INT(q.sort, PV_SORT_DEFAULT);
	T_EQ_INT(pv_query_sort(&q), PV_SORT_TOTAL);
	EXPECT_TEXT(pv_query_to_url(&q), "view=flat");
	EXPECT_TEXT_HAS(pv_query_to_json(&q), "\"limit\": 0, \"sort\": \"total\"}");
	round_trip(&q, __LINE__);

	/* flat by self: written in every notation, and read back */
	T_EQ_INT(pv_query_set_option(&q, "sort", "self", &err), 0);
	T_EQ_INT(pv_query_sort(&q), PV_SORT_SELF);
	EXPECT_TEXT(pv_query_to_args(&q), "--sort self");
	EXPECT_TEXT(pv_query_to_url(&q), "view=flat&sort=self");
	EXPECT_TEXT_HAS(pv_query_to_json(&q), "\"limit\": 0, \"sort\": \"self\"}");
	round_trip(&q, __LINE__);

	/* flat by total is flat's own order: equal to naming none, not written */
	pv_query_init(&r);
	r.view = PV_VIEW_FLAT;
	T_TRUE(!pv_query_equal(&q, &r));
	T_EQ_INT(pv_query_set_option(&q, "sort", "total", &err), 0);
	T_TRUE(pv_query_equal(&q, &r));
	EXPECT_TEXT(pv_query_to_url(&q), "view=flat");
	pv_query_release(&q);
	pv_query_release(&r);

	/* a tree or top: self is the default's name, total is written (as it always was) */
	T_EQ_INT(pv_query_from_url(&q, "view=top&sort=self", &err), 0);
	T_EQ_INT(pv_query_from_url(&r, "view=top", &err), 0);
	T_TRUE(pv_query_equal(&q, &r));
	EXPECT_TEXT(pv_query_to_url(&q), "view=top");
	pv_query_release(&q);
	pv_query_release(&r);
	T_EQ_INT(pv_query_from_url(&q, "view=callers&sort=total", &err), 0);
	EXPECT_TEXT(pv_query_to_url(&q), "view=callers&sort=total");
	T_EQ_INT(pv_query_sort(&q), PV_SORT_TOTAL);
	round_trip(&q, __LINE__);
	pv_query_release(&q);
}

/* Decoded pairs set one by one (a request's parameters): no second decoding, metric split at
 * its commas, a filter's kind at the first ':', the URL reader's errors. */
T_TEST(query_set_param)
{
	struct pv_query q;
	struct pv_error err;
	pv_query_init(&q);
	T_EQ_INT(pv_query_set_param(&q, "center", "a%41 b+", &err), 0);
	T_EQ_INT(pv_query_set_param(&q, "metric", "x,y", &err), 0);
	T_EQ_INT(pv_query_set_param(&q, "filter", "merge:f:12", &err), 0);
	T_EQ_INT(pv_query_set_param(&q, "range", "1:2", &err), 0);
	T_EQ_INT(pv_query_set_param(&q, "view", "flat", &err), 0);
	T_EQ_INT(q.nr_center, 1);
	T_EQ_STR(q.center[0], "a%41 b+");
	T_EQ_INT(q.nr_metrics, 2);
	T_EQ_STR(q.metrics[0], "x");
	T_EQ_STR(q.metrics[1], "y");
	T_EQ_INT(q.nr_filters, 1);
	T_EQ_INT(q.filters[0].kind, PV_FILTER_MERGE);
	T_EQ_STR(q.filters[0].arg, "f:12");
	T_TRUE(q.has_range && q.range_start_ns == 1000000 && q.range_end_ns == 2000000);
	T_EQ_INT(q.view, PV_VIEW_FLAT);
	T_EQ_INT(pv_query_set_param(&q, "colour", "red", &err), PV_EINVAL);
	T_EQ_STR(err.msg, "unknown query key 'colour'");
	T_EQ_INT(pv_query_set_param(&q, "filter", "bogus", &err), PV_EINVAL);
	T_CONTAINS(err.msg, "filter takes KIND:ARG");
	T_EQ_INT(pv_query_set_param(&q, "metric", "x,", &err), PV_EINVAL);
	T_CONTAINS(err.msg, "metric takes metric names separated by commas");
	pv_query_release(&q);
	/* the same pairs as a URL give the same query */
	const char *keys[] = {"p", "center", "metric", "filter", "range", "view"};
	const char *values[] = {"0", "a%41 b+", "x,y", "merge:f:12", "1:2", "flat"};
	struct pv_query r, u;
	T_EQ_INT(pv_query_from_params(&r, keys + 1, values + 1, 5, NULL, &err), 0);
	T_EQ_INT(
	    pv_query_from_url(
		&u, "center=a%2541%20b%2B&metric=x,y&filter=merge:f:12&range=1:2&view=flat", &err),
	    0);
	T_TRUE(pv_query_equal(&r, &u));
	pv_query_release(&r);
	pv_query_release(&u);
	T_EQ_INT(pv_query_from_params(&r, keys, values, 6, NULL, &err), PV_EINVAL);
	T_EQ_STR(err.msg, "unknown query key 'p'");
}

/* The pull tokenizer: tokens, conversions, and positioned errors. */
#include <stdio.h>
#include <stdlib.h>

#include "base/sbuf.h"
#include "import/json.h"
#include "t.h"
#include "tp.h"

struct jt {
	struct pv_input in;
	struct json j;
	struct pv_error err;
};

static void jt_open(struct jt *x, const char *text)
{
	T_EQ_INT(input_from_memory(&x->in, "t.json", text, strlen(text), &x->err), 0);
	json_init(&x->j, &x->in, &x->err);
}

static void jt_close(struct jt *x)
{
	json_release(&x->j);
	input_close(&x->in);
}

/* Reads every token; returns the rc of the first failure (0 at EOF). */
static int drain(struct jt *x, int *count)
{
	struct json_tok t;
	*count = 0;
	for (;;) {
		int rc = json_next(&x->j, &t);
		if (rc)
			return rc;
		if (t.kind == JSON_EOF)
			return 0;
		(*count)++;
	}
}

T_TEST(json_tokens)
{
	struct jt x;
	jt_open(
	    &x,
	    " {\"a\": [1, -2.5e3, \"s\\n\\u00e9\\ud83d\\ude00\", true, false, null], \"b\": {}}");
	struct json_tok t;
	T_EQ_INT(json_expect(&x.j, &t, JSON_OBJECT, "an object"), 0);
	T_EQ_INT(json_next(&x.j, &t), 0);
	T_EQ_INT(t.kind, JSON_KEY);
	T_TRUE(json_is(&t, "a"));
	T_EQ_INT(json_expect(&x.j, &t, JSON_ARRAY, "an array"), 0);
	T_EQ_INT(json_next(&x.j, &t), 0);
	int64_t v;
	T_EQ_INT(json_i64(&x.j, &t, &v), 0);
	T_EQ_INT(v, 1);
	T_EQ_INT(json_next(&x.j, &t), 0);
	T_EQ_INT(json_fixed(&x.j, &t, 0, &v), 0);
	T_EQ_INT(v, -2500);
	T_EQ_INT(json_next(&x.j, &t), 0);
	const char *s;
	size_t n;
	T_EQ_INT(json_str(&x.j, &t, &s, &n), 0);
	T_EQ_INT(n, 1 + 1 + 2 + 4);
	T_TRUE(memcmp(s, "s\n\xc3\xa9\xf0\x9f\x98\x80", n) == 0);
	T_EQ_INT(json_next(&x.j, &t), 0);
	T_EQ_INT(t.kind, JSON_TRUE);
	T_EQ_INT(json_next(&x.j, &t), 0);
	T_EQ_INT(t.kind, JSON_FALSE);
	T_EQ_INT(json_next(&x.j, &t), 0);
	T_EQ_INT(t.kind, JSON_NULL);
	T_EQ_INT(json_next(&x.j, &t), 0);
	T_EQ_INT(t.kind, JSON_END);
	T_EQ_INT(json_next(&x.j, &t), 0);
	T_TRUE(json_is(&t, "b"));
	T_EQ_INT(json_skip_value(&x.j), 0);
	T_EQ_INT(json_next(&x.j, &t), 0);
	T_EQ_INT(t.kind, JSON_END);
	T_EQ_INT(json_next(&x.j, &t), 0);
	T_EQ_INT(t.kind, JSON_EOF);
	jt_close(&x);
}

T_TEST(json_fixed_is_exact)
{
	struct jt x;
	jt_open(&x, "[1460221352723.438, 0.0005, 12.3456785, -0.0000004, 1e-3, 2.5E2]");
	struct json_tok t;
	int64_t v;
	json_next(&x.j, &t);
	json_next(&x.j, &t);
	T_EQ_INT(json_fixed(&x.j, &t, 6, &v), 0);
	T_EQ_INT(v, 1460221352723438000LL);
	json_next(&x.j, &t);
	json_fixed(&x.j, &t, 6, &v);
	T_EQ_INT(v, 500);
	json_next(&x.j, &t);
	json_fixed(&x.j, &t, 6, &v);
	T_EQ_INT(v, 12345679); /* rounded half up */
	json_next(&x.j, &t);
	json_fixed(&x.j, &t, 6, &v);
	T_EQ_INT(v, 0);
	json_next(&x.j, &t);
	json_fixed(&x.j, &t, 6, &v);
	T_EQ_INT(v, 1000);
	json_next(&x.j, &t);
	json_fixed(&x.j, &t, 6, &v);
	T_EQ_INT(v, 250000000);
	jt_close(&x);
}

static void expect_error(const char *text, const char *msg)
{
	struct jt x;
	int count;
	jt_open(&x, text);
	T_EQ_INT(drain(&x, &count), PV_EPARSE);
	T_EQ_STR(x.err.msg, msg);
	jt_close(&x);
}

T_TEST(json_errors_have_positions)
{
	expect_error("{\"a\": 1,\n \"b\" 2}",
		     "t.json: line 2, column 6: expected ':' after a key, found '2'");
	expect_error("[1, 2",
		     "t.json: line 1, column 6: expected ',' or ']', found the end of the input");
	expect_error("[1, 2,]", "t.json: line 1, column 7: expected a value, found ']'");
	expect_error("{\"a\": tru}", "t.json: line 1, column 7: expected a value, found 't'");
	expect_error("[\"abc", "t.json: line 1, column 2: unterminated string (expected '\"' "
			       "before the end of the input)");
	expect_error("[01]", "t.json: line 1, column 3: expected ',' or ']', found '1'");
	expect_error("[1] [2]", "t.json: line 1, column 5: expected the end of the input after the "
				"top-level value, found '['");
	expect_error("[\"a\\x\"]", "t.json: line 1, column 4: invalid escape '\\x' in a string");
	expect_error("", "t.json: line 1, column 1: expected a value, found the end of the input");
}

T_TEST(json_depth_limit)
{
	char buf[JSON_MAX_DEPTH + 10];
	memset(buf, '[', sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = 0;
	struct jt x;
	int count;
	jt_open(&x, buf);
	T_EQ_INT(drain(&x, &count), PV_ELIMIT);
	T_CONTAINS(x.err.msg, "nesting deeper than 512 levels");
	jt_close(&x);
}

T_TEST(json_lenient_tail)
{
	struct jt x;
	int count;
	jt_open(&x, "[{\"a\": 1}, {\"b\": 2},\n");
	x.j.lenient_tail = true;
	T_EQ_INT(drain(&x, &count), 0);
	T_EQ_INT(count, 9); /* [ { a 1 } { b 2 } */
	jt_close(&x);
}

T_TEST(json_capture_compacts)
{
	struct jt x;
	jt_open(&x, "{\"d\": { \"type\" : \"Text\", \"a\": [1, {\"b\": null}, \"x\\\"y\"], \"e\": "
		    "{} }, \"z\": 2}");
	struct json_tok t;
	json_next(&x.j, &t);
	json_next(&x.j, &t); /* key d */
	json_next(&x.j, &t); /* { */
	struct sbuf buf = SBUF_INIT;
	T_EQ_INT(json_capture(&x.j, &t, &buf), 0);
	T_EQ_STR(sbuf_str(&buf), "{\"type\":\"Text\",\"a\":[1,{\"b\":null},\"x\\\"y\"],\"e\":{}}");
	json_next(&x.j, &t);
	T_TRUE(json_is(&t, "z"));
	sbuf_release(&buf);
	jt_close(&x);
}

/*
 * The fast path for arrays of numbers against json_next: the same values, and the same error
 * at the same place, element by element, for every kind and many small chunks.
 */
enum { RUN_TEST_U32, RUN_TEST_INT, RUN_TEST_MS };

/* Appends the value of token t (or its conversion error) to out as text. */
static int run_slow_value(struct jt *x, const struct json_tok *t, int kind, char *out, size_t n)
{
	int64_t v = 0;
	if (t->kind == JSON_NULL) {
		snprintf(out, n, "null ");
		return 0;
	}
	int rc = kind == RUN_TEST_MS ? json_fixed(&x->j, t, 6, &v) : json_i64(&x->j, t, &v);
	if (rc)
		return rc;
	snprintf(out, n, "%lld ", (long long)v);
	return 0;
}

/* Reads the array in text both ways; returns both transcripts (values, then the error). */
static void run_two_ways(const char *text, int kind, size_t chunk, char *slow, char *fast, size_t n)
{
	struct jt x;
	struct json_tok t;
	char one[64];
	size_t sl = 0, fl = 0;
	slow[0] = fast[0] = 0;
	jt_open(&x, text);
	int rc = json_next(&x.j, &t);
	while (!rc) {
		if ((rc = json_next(&x.j, &t)) || t.kind == JSON_END || t.kind == JSON_EOF)
			break;
		if ((rc = run_slow_value(&x, &t, kind, one, sizeof(one))))
			break;
		sl += (size_t)snprintf(slow + sl, n - sl, "%s", one);
	}
	if (!rc)
		rc = json_next(&x.j, &t);
	snprintf(slow + sl, n - sl, "| %d %s", rc, rc ? x.err.msg : "");
	jt_close(&x);

	jt_open(&x, text);
	rc = json_next(&x.j, &t);
	uint32_t u[16];
	int64_t l[16];
	while (!rc) {
		enum json_run stop;
		size_t got = kind == RUN_TEST_U32
				 ? json_run_u32(&x.j, u, chunk, true, UINT32_MAX, &stop)
				 : json_run_i64(&x.j, kind == RUN_TEST_MS ? 6 : 0, l, chunk, true,
						INT64_MIN, &stop);
		for (size_t i = 0; i < got; i++) {
			int64_t v =
			    kind == RUN_TEST_U32 ? (u[i] == UINT32_MAX ? INT64_MIN : u[i]) : l[i];
			if (v == INT64_MIN)
				fl += (size_t)snprintf(fast + fl, n - fl, "null ");
			else
				fl += (size_t)snprintf(fast + fl, n - fl, "%lld ", (long long)v);
		}
		if (stop == JSON_RUN_END)
			break;
		if (stop == JSON_RUN_FULL)
			continue;
		if ((rc = json_next(&x.j, &t)) || t.kind == JSON_END || t.kind == JSON_EOF)
			break;
		if ((rc = run_slow_value(&x, &t, kind, one, sizeof(one))))
			break;
		fl += (size_t)snprintf(fast + fl, n - fl, "%s", one);
	}
	if (!rc)
		rc = json_next(&x.j, &t);
	snprintf(fast + fl, n - fl, "| %d %s", rc, rc ? x.err.msg : "");
	jt_close(&x);
}

T_TEST(json_run_matches_json_next)
{
	static const char *const elems[] = {"0",
					    "7",
					    "12",
					    "123456789",
					    "1234567890",
					    "-1",
					    "-0",
					    "null",
					    "nul",
					    "1.5",
					    "0.25",
					    "1.0229999999999791",
					    "12345678",
					    "1234567.5",
					    "0.1234567",
					    "0.12345678",
					    "-12.5",
					    "100",
					    "0.00",
					    "19.545",
					    "0.9199999999999987",
					    "-0.12345650",
					    "0.123456789012345678901234567890123456789",
					    "1.0000000000000000000000000000005",
					    "2.00000049999999",
					    "1.0000005",
					    "-1.0000005",
					    "999999999999.999999",
					    "9999999999999",
					    "1e3",
					    "1.5E-3",
					    "01",
					    "1.",
					    "-",
					    "\"7\"",
					    "true",
					    "[]",
					    "12x",
					    "123456789012345678",
					    "1234567890123456789",
					    "1.000000000000000000000000000000000000001",
					    "0.0000004",
					    "-0.0000005",
					    "4294967295",
					    " 3",
					    "3 ",
					    "\t4\n",
					    "1.25e",
					    "nullx",
					    "1.2.3",
					    "1-2",
					    "--1",
					    "1.-2",
					    "-.5",
					    ".5",
					    "00.5",
					    "-01"};
	const size_t ne = sizeof(elems) / sizeof(elems[0]);
	static char text[4096], slow[8192], fast[8192];
	uint64_t r = 12345;
	for (int round = 0; round < 4000; round++) {
		size_t tl = 0;
		text[tl++] = '[';
		int count = (int)(r % 64);
		for (int i = 0; i < count; i++) {
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			/* mostly plain numbers, so runs get long */
			const char *el =
			    (r >> 33) % 4 ? elems[(r >> 40) % 22] : elems[(r >> 40) % ne];
			tl += (size_t)snprintf(text + tl, sizeof(text) - tl, "%s%s", i ? "," : "",
					       el);
		}
		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		/* end: closed, closed with a trailing space, cut, or followed by more */
		static const char *const tails[] = {"]", " ]", "", "]   ", ",]", "] 1"};
		tl += (size_t)snprintf(text + tl, sizeof(text) - tl, "%s", tails[(r >> 35) % 6]);
		/* sometimes enough padding after it that the fast path reads everything */
		if ((r >> 45) % 2 && tails[(r >> 35) % 6][0] != 0)
			tl += (size_t)snprintf(text + tl, sizeof(text) - tl, "%130s", "");
		for (int kind = RUN_TEST_U32; kind <= RUN_TEST_MS; kind++) {
			size_t chunk = 1 + (size_t)(r >> 50) % 16;
			run_two_ways(text, kind, chunk, slow, fast, sizeof(slow));
			if (strcmp(slow, fast) != 0) {
				t_fail(__FILE__, __LINE__,
				       "kind %d chunk %zu on '%s':\n  slow %s\n  fast %s", kind,
				       chunk, text, slow, fast);
				return;
			}
		}
	}
}

/* The tests' structural JSON comparison (tests/harness/tp.c): layout is free, values are not. */
T_TEST(json_same_compares_values_not_layout)
{
	T_TRUE(t_json_same("{\"a\": [1, 2], \"b\": \"x\"}", "{\"a\":[1,2],\n \"b\":\"x\"}\n"));
	T_TRUE(t_json_same("{\"s\": \"\\u0041\"}", "{\"s\": \"A\"}")); /* decoded strings */
	T_TRUE(!t_json_same("{\"a\": 1}", "{\"a\": 2}"));
	T_TRUE(!t_json_same("{\"a\": 1, \"b\": 2}", "{\"b\": 2, \"a\": 1}")); /* order counts */
	T_TRUE(!t_json_same("{\"a\": \"x y\"}", "{\"a\": \"xy\"}")); /* spaces in strings count */
	T_TRUE(!t_json_same("[1]", "[1] x"));			     /* not JSON: bytes */
	T_TRUE(t_json_has("{\"a\": {\"b\": 1}}", "{\"b\":1}"));
	T_TRUE(!t_json_has("{\"a\": \"x y\"}", "\"xy\""));
}

T_TEST(json_run_row)
{
	/* rows of [index, ms, ms, cpu]: the plain ones read whole, the others left to json_next */
	static const struct json_run_cell cells[] = {
	    {.index = true}, {.pow10 = 6}, {.pow10 = 6}, {.pow10 = 3}};
	char text[256];
	snprintf(text, sizeof(text), "%s%80s",
		 "[[4, 1.0, null, 1736], [2 ,1.9875, 0, 242],[-1, 1, 2, 3], [5,1,2],"
		 " [7, 2.5e1, 0, 1]]",
		 "");
	struct jt x;
	jt_open(&x, text);
	struct json_tok t;
	int64_t v[4];
	T_EQ_INT(json_expect(&x.j, &t, JSON_ARRAY, "rows"), 0);
	T_TRUE(json_run_row(&x.j, cells, 4, -9, v));
	T_EQ_INT(v[0], 4);
	T_EQ_INT(v[1], 1000000);
	T_EQ_INT(v[2], -9);
	T_EQ_INT(v[3], 1736000);
	T_TRUE(json_run_row(&x.j, cells, 4, -9, v));
	T_EQ_INT(v[0], 2);
	T_EQ_INT(v[1], 1987500);
	T_EQ_INT(v[2], 0);
	T_EQ_INT(v[3], 242000);
	/* a negative index, a short row, an exponent: nothing consumed */
	for (int r = 0; r < 2; r++) {
		T_TRUE(!json_run_row(&x.j, cells, 4, -9, v));
		T_EQ_INT(json_next(&x.j, &t), 0);
		T_EQ_INT(t.kind, JSON_ARRAY);
		T_EQ_INT(json_skip(&x.j, &t), 0);
	}
	T_TRUE(!json_run_row(&x.j, cells, 4, -9, v));
	T_EQ_INT(json_next(&x.j, &t), 0);
	T_EQ_INT(t.kind, JSON_ARRAY);
	T_EQ_INT(json_next(&x.j, &t), 0);
	T_EQ_INT(json_i64(&x.j, &t, &v[0]), 0);
	T_EQ_INT(v[0], 7);
	T_EQ_INT(json_next(&x.j, &t), 0);
	T_EQ_INT((int)t.len, 5); /* 2.5e1 */
	T_EQ_INT(json_skip(&x.j, &(struct json_tok){.kind = JSON_ARRAY}), 0);
	T_TRUE(!json_run_row(&x.j, cells, 4, -9, v));
	T_EQ_INT(json_next(&x.j, &t), 0);
	T_EQ_INT(t.kind, JSON_END);
	jt_close(&x);
}

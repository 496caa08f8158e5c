/* The pull tokenizer: tokens, conversions, and positioned errors. */
#include <stdlib.h>

#include "import/json.h"
#include "t.h"

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
	jt_open(&x, " {\"a\": [1, -2.5e3, \"s\\n\\u00e9\\ud83d\\ude00\", true, false, null], \"b\": {}}");
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
	expect_error("{\"a\": 1,\n \"b\" 2}", "t.json: line 2, column 6: expected ':' after a key, found '2'");
	expect_error("[1, 2", "t.json: line 1, column 6: expected ',' or ']', found the end of the input");
	expect_error("[1, 2,]", "t.json: line 1, column 7: expected a value, found ']'");
	expect_error("{\"a\": tru}", "t.json: line 1, column 7: expected a value, found 't'");
	expect_error("[\"abc", "t.json: line 1, column 2: unterminated string (expected '\"' before the end of the input)");
	expect_error("[01]", "t.json: line 1, column 3: expected ',' or ']', found '1'");
	expect_error("[1] [2]", "t.json: line 1, column 5: expected the end of the input after the top-level value, found '['");
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
	jt_open(&x, "{\"d\": { \"type\" : \"Text\", \"a\": [1, {\"b\": null}, \"x\\\"y\"], \"e\": {} }, \"z\": 2}");
	struct json_tok t;
	json_next(&x.j, &t);
	json_next(&x.j, &t); /* key d */
	json_next(&x.j, &t); /* { */
	char *buf = NULL;
	size_t len = 0, cap = 0;
	T_EQ_INT(json_capture(&x.j, &t, &buf, &len, &cap), 0);
	T_EQ_STR(buf, "{\"type\":\"Text\",\"a\":[1,{\"b\":null},\"x\\\"y\"],\"e\":{}}");
	json_next(&x.j, &t);
	T_TRUE(json_is(&t, "z"));
	free(buf);
	jt_close(&x);
}

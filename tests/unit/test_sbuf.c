/* The growable string of src/base: invariants, JSON literals, exact milliseconds, ownership. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sbuf.h"
#include "t.h"

T_TEST(sbuf_empty_and_put)
{
	struct sbuf b = SBUF_INIT;
	T_EQ_STR(sbuf_str(&b), "");
	T_TRUE(b.buf == NULL);
	T_EQ_INT(sbuf_put(&b, NULL, 0), 0);
	T_TRUE(b.buf != NULL);
	T_EQ_STR(sbuf_str(&b), "");
	for (int i = 0; i < 100; i++)
		T_EQ_INT(sbuf_puts(&b, "abc"), 0);
	T_EQ_U64(b.len, 300);
	T_TRUE(b.len < b.cap);
	T_EQ_INT(b.buf[300], 0);
	T_EQ_INT(memcmp(b.buf + 297, "abc", 3), 0);
	/* NULs are bytes like the others */
	T_EQ_INT(sbuf_put(&b, "x\0y", 3), 0);
	T_EQ_U64(b.len, 303);
	T_EQ_INT(b.buf[301], 0);
	sbuf_setlen(&b, 2);
	T_EQ_STR(sbuf_str(&b), "ab");
	sbuf_reset(&b);
	T_EQ_STR(sbuf_str(&b), "");
	T_EQ_INT(sbuf_set(&b, "hello", 3), 0);
	T_EQ_STR(sbuf_str(&b), "hel");
	sbuf_release(&b);
	T_TRUE(b.buf == NULL && b.len == 0 && b.cap == 0);
	T_EQ_STR(sbuf_str(&b), "");
}

/* A pool that appends one of its own strings again (chrome.c's pool_add did with a Profile id
 * of 40 bytes: the growth freed the bytes being copied). */
T_TEST(sbuf_put_from_itself)
{
	struct sbuf b = SBUF_INIT;
	for (int i = 0; i < 40; i++)
		T_EQ_INT(sbuf_put(&b, "a", 1), 0);
	T_EQ_INT(sbuf_put(&b, "", 1), 0);
	T_EQ_U64(b.cap, 64); /* 41 bytes and the NUL: the next 40 must grow it */
	for (int k = 0; k < 3; k++) {
		size_t cap = b.cap;
		T_EQ_INT(sbuf_put(&b, b.buf, 40), 0);
		T_TRUE(k || b.cap > cap);
	}
	T_EQ_U64(b.len, 161);
	for (size_t i = 0; i < b.len; i++)
		if (i != 40)
			T_EQ_INT(b.buf[i], 'a');
	T_EQ_INT(b.buf[40], 0);
	/* from the middle, across a growth */
	sbuf_reset(&b);
	T_EQ_INT(sbuf_puts(&b, "0123456789"), 0);
	while (b.cap - b.len > 5)
		T_EQ_INT(sbuf_put(&b, "-", 1), 0);
	T_EQ_INT(sbuf_put(&b, b.buf + 3, 5), 0);
	T_EQ_INT(memcmp(b.buf + b.len - 5, "34567", 5), 0);
	sbuf_release(&b);
}

T_TEST(sbuf_json_string)
{
	struct sbuf b = SBUF_INIT;
	const char in[] = "a\"b\\c\nd\re\tf\x01g\x1f\x7fh\xc3\xa9";
	T_EQ_INT(sbuf_json_string(&b, in, sizeof(in) - 1), 0);
	T_EQ_STR(sbuf_str(&b), "\"a\\\"b\\\\c\\nd\\re\\tf\\u0001g\\u001f\x7fh\xc3\xa9\"");
	sbuf_reset(&b);
	T_EQ_INT(sbuf_json_string(&b, "x\0y", 3), 0);
	T_EQ_STR(sbuf_str(&b), "\"x\\u0000y\"");
	sbuf_reset(&b);
	T_EQ_INT(sbuf_json_string(&b, NULL, 0), 0);
	T_EQ_STR(sbuf_str(&b), "\"\"");
	sbuf_release(&b);
}

/* Bytes that are not valid UTF-8 become U+FFFD (EF BF BD), one per byte; valid sequences of
 * 2, 3 and 4 bytes pass through (RFC 3629's table of well-formed sequences). */
T_TEST(sbuf_json_string_utf8)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
	    {"\xc3\xa9", "\"\xc3\xa9\""},		  /* é */
	    {"\xe2\x80\xa6", "\"\xe2\x80\xa6\""},	  /* … */
	    {"\xf0\x9f\x94\xa5", "\"\xf0\x9f\x94\xa5\""}, /* U+1F525 */
	    {"a\xff"
	     "b",
	     "\"a\xef\xbf\xbd"
	     "b\""},					  /* never in UTF-8 */
	    {"\x80", "\"\xef\xbf\xbd\""},		  /* a lone continuation byte */
	    {"\xc0\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\""}, /* overlong '/' */
	    {"\xe0\x80\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""}, /* overlong */
	    {"\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""}, /* surrogate */
	    {"\xf4\x90\x80\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},
	    {"x\xc3", "\"x\xef\xbf\xbd\""},			/* cut at the end */
	    {"\xc3(", "\"\xef\xbf\xbd(\""},			/* cut by ASCII */
	    {"\xe2\x80\"", "\"\xef\xbf\xbd\xef\xbf\xbd\\\"\""}, /* cut by a quote */
	};
	struct sbuf b = SBUF_INIT;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sbuf_reset(&b);
		T_EQ_INT(sbuf_json_string(&b, cases[i].in, strlen(cases[i].in)), 0);
		T_EQ_STR(sbuf_str(&b), cases[i].out);
	}
	sbuf_release(&b);
}

T_TEST(sbuf_ms)
{
	static const struct {
		int64_t ns;
		const char *text;
	} cases[] = {
	    {0, "0"},
	    {1022000000, "1022"},
	    {1030100000, "1030.1"},
	    {-500000, "-0.5"},
	    {165870919, "165.870919"},
	    {1, "0.000001"},
	    {10, "0.00001"},
	    {120000, "0.12"},
	    {-1000000, "-1"},
	    {-1, "-0.000001"},
	    {999999, "0.999999"},
	    {INT64_MAX, "9223372036854.775807"},
	    {INT64_MIN, "-9223372036854.775808"},
	};
	struct sbuf b = SBUF_INIT;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char t[SBUF_MS_MAX];
		T_EQ_U64(sbuf_ms_text(t, cases[i].ns), strlen(cases[i].text));
		T_EQ_STR(t, cases[i].text);
		sbuf_reset(&b);
		T_EQ_INT(sbuf_ms(&b, cases[i].ns), 0);
		T_EQ_STR(sbuf_str(&b), cases[i].text);
	}
	sbuf_release(&b);
}

/* the JSON writer's integers without printf: as "%" PRIu64 writes them */
T_TEST(sbuf_u64_text)
{
	static const uint64_t cases[] = {0,	    1, 9, 10, 99, 100, 4294967295u, 1000000000000u,
					 UINT64_MAX};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char t[SBUF_U64_MAX], want[32];
		snprintf(want, sizeof(want), "%" PRIu64, cases[i]);
		T_EQ_U64(sbuf_u64_text(t, cases[i]), strlen(want));
		T_EQ_STR(t, want);
	}
}

T_TEST(sbuf_addf)
{
	struct sbuf b = SBUF_INIT;
	T_EQ_INT(sbuf_addf(&b, "%s=%d", "n", 42), 0);
	T_EQ_INT(sbuf_addf(&b, "%s", ""), 0);
	T_EQ_INT(sbuf_addf(&b, ";%%%02X", 0x2c), 0);
	T_EQ_STR(sbuf_str(&b), "n=42;%2C");
	T_EQ_U64(b.len, 8);
	/* past the first 64 bytes: the text is measured, then written into the grown room */
	T_EQ_INT(sbuf_addf(&b, "%0100d", 5), 0);
	T_EQ_U64(b.len, 108);
	T_EQ_INT(b.buf[107], '5');
	T_EQ_INT(b.buf[108], 0);
	T_TRUE(!b.oom);
	sbuf_release(&b);
}

T_TEST(sbuf_detach)
{
	struct sbuf b = SBUF_INIT;
	size_t n = 7;
	char *s = sbuf_detach(&b, &n);
	T_TRUE(s != NULL);
	T_EQ_U64(n, 0);
	T_EQ_STR(s, "");
	pv_free(s);
	T_EQ_INT(sbuf_puts(&b, "kept"), 0);
	s = sbuf_detach(&b, &n);
	T_EQ_STR(s, "kept");
	T_EQ_U64(n, 4);
	T_TRUE(b.buf == NULL && b.len == 0 && b.cap == 0);
	pv_free(s);
}

T_TEST(sbuf_out_of_memory)
{
	struct sbuf b = SBUF_INIT;
	T_EQ_INT(sbuf_puts(&b, "abc"), 0);
	size_t cap = b.cap;
	pv_alloc_fail_after(1);
	char big[200];
	memset(big, 'x', sizeof(big));
	T_EQ_INT(sbuf_put(&b, big, sizeof(big)), PV_ENOMEM);
	pv_alloc_fail_after(0);
	T_EQ_STR(sbuf_str(&b), "abc");
	T_EQ_U64(b.cap, cap);
	/* the failure is remembered for a check at the end of a chain of writes */
	T_TRUE(b.oom);
	T_EQ_INT(sbuf_puts(&b, "d"), 0);
	T_TRUE(b.oom);
	sbuf_reset(&b);
	T_TRUE(!b.oom);
	T_EQ_INT(sbuf_puts(&b, "abc"), 0);
	T_EQ_INT(sbuf_grow(&b, SIZE_MAX - 1), PV_ENOMEM);
	T_EQ_STR(sbuf_str(&b), "abc");
	T_TRUE(b.oom);
	pv_alloc_fail_after(1);
	T_EQ_INT(sbuf_addf(&b, "%0300d", 7), PV_ENOMEM);
	pv_alloc_fail_after(0);
	T_EQ_STR(sbuf_str(&b), "abc");
	sbuf_release(&b);
	T_TRUE(!b.oom);
	pv_alloc_fail_after(1);
	T_TRUE(sbuf_detach(&b, NULL) == NULL);
	pv_alloc_fail_after(0);
	T_TRUE(b.buf == NULL);
}

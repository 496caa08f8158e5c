/*
 * t.h - the unit test harness (about 150 lines, no dependency, no fork).
 *
 * T_TEST(name) { ... } registers a test at load time. Checks print file:line, both expressions
 * and both values, and let the test go on. The runner's last line is "N passed, N failed".
 * Flags: -t SUBSTRING runs matching tests only; -v names each test.
 * Tests find data files under T_DATA (tests/data) and the corpus under T_CORPUS.
 */
#ifndef PV_TEST_T_H
#define PV_TEST_T_H

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

typedef void (*t_fn)(void);
void t_register(const char *name, t_fn fn, const char *file);
void t_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Path of a data file: T_DATA "/" rel, in a static buffer (one at a time per call site). */
const char *t_data(const char *rel);
const char *t_corpus(const char *rel);
/* Whole file as a NUL-terminated heap string, NULL when unreadable. */
char *t_read_file(const char *path, size_t *len);

#define T_TEST(name)                                                \
	static void t_##name(void);                                 \
	__attribute__((constructor)) static void t_reg_##name(void) \
	{                                                           \
		t_register(#name, t_##name, __FILE__);              \
	}                                                           \
	static void t_##name(void)

#define T_EQ_INT(a, b)                                                                        \
	do {                                                                                  \
		long long a_ = (long long)(a), b_ = (long long)(b);                           \
		if (a_ != b_)                                                                 \
			t_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, a_, b_); \
	} while (0)

#define T_EQ_U64(a, b)                                                                          \
	do {                                                                                    \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                \
		if (a_ != b_)                                                                   \
			t_fail(__FILE__, __LINE__, "%s == %s: %" PRIu64 " != %" PRIu64, #a, #b, \
			       a_, b_);                                                         \
	} while (0)

#define T_EQ_STR(a, b)                                                                   \
	do {                                                                             \
		const char *a_ = (a), *b_ = (b);                                         \
		if (!a_ || !b_ || strcmp(a_, b_) != 0)                                   \
			t_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b, \
			       a_ ? a_ : "(null)", b_ ? b_ : "(null)");                  \
	} while (0)

#define T_TRUE(x)                                                            \
	do {                                                                 \
		if (!(x))                                                    \
			t_fail(__FILE__, __LINE__, "expected true: %s", #x); \
	} while (0)

/* Substring check, for error messages. */
#define T_CONTAINS(hay, needle)                                                            \
	do {                                                                               \
		const char *h_ = (hay), *n_ = (needle);                                    \
		if (!h_ || !strstr(h_, n_))                                                \
			t_fail(__FILE__, __LINE__, "%s contains \"%s\": \"%s\"", #hay, n_, \
			       h_ ? h_ : "(null)");                                        \
	} while (0)

#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"

#ifndef T_DATA
#define T_DATA "tests/data"
#endif
#ifndef T_CORPUS
#define T_CORPUS "tests/data/corpus"
#endif

struct test {
	const char *name, *file;
	t_fn fn;
};

static struct test tests[4096];
static int nr_tests;
static int cur_failed;
static const char *cur_name;

void t_register(const char *name, t_fn fn, const char *file)
{
	if (nr_tests < (int)(sizeof(tests) / sizeof(tests[0])))
		tests[nr_tests++] = (struct test){name, file, fn};
}

void t_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "FAIL %s: %s:%d: ", cur_name, file, line);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	cur_failed++;
}

const char *t_data(const char *rel)
{
	static char buf[8][4096];
	static int i;
	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", T_DATA, rel);
	return buf[i];
}

const char *t_corpus(const char *rel)
{
	static char buf[8][4096];
	static int i;
	i = (i + 1) % 8;
	const char *env = getenv("PV_CORPUS");
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", env ? env : T_CORPUS, rel);
	return buf[i];
}

char *t_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *b = malloc(cap);
	size_t r;
	while (b && (r = fread(b + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (n + 1 == cap) {
			char *nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (b)
		b[n] = 0;
	if (len)
		*len = n;
	return b;
}

static int by_name(const void *a, const void *b)
{
	const struct test *x = a, *y = b;
	int r = strcmp(x->file, y->file);
	return r ? r : strcmp(x->name, y->name);
}

int main(int argc, char **argv)
{
	const char *filter = NULL;
	int verbose = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
			filter = argv[++i];
		else if (strcmp(argv[i], "-v") == 0)
			verbose = 1;
	}
	qsort(tests, (size_t)nr_tests, sizeof(tests[0]), by_name);
	int passed = 0, failed = 0;
	for (int i = 0; i < nr_tests; i++) {
		if (filter && !strstr(tests[i].name, filter))
			continue;
		cur_name = tests[i].name;
		cur_failed = 0;
		tests[i].fn();
		if (cur_failed)
			failed++;
		else
			passed++;
		if (verbose || cur_failed)
			fprintf(stderr, "%s %s\n", cur_failed ? "not ok" : "ok", tests[i].name);
	}
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

/*
 * api.c - one request of the web API on a profile file, in process: what an endpoint costs
 * (bench/run.sh, "Deep stacks"). ROUNDS times: imports FILE into a new API and times one
 * pv_api_call(ENDPOINT, QUERY) (so the view is computed, never taken from the cache); prints the
 * status, the answer's bytes and the median time of the calls. Peak memory: run it under
 * /usr/bin/time -v.
 *
 * usage: api FILE ENDPOINT QUERY [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pv/import.h"
#include "pv/serve.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: api FILE ENDPOINT QUERY [ROUNDS]\n");
		return 2;
	}
	int rounds = argc > 4 ? atoi(argv[4]) : 1;
	if (rounds < 1 || rounds > 99)
		rounds = 1;
	double t[99], imp = 0;
	int status = 0;
	size_t bytes = 0;
	for (int r = 0; r < rounds; r++) {
		/* a new API each round: the view is computed, never taken from the cache */
		struct pv_profile *p;
		struct pv_error err;
		struct pv_api *a;
		double s = now();
		if (pv_import_file(argv[1], NULL, &p, &err)) {
			fprintf(stderr, "api: %s\n", err.msg);
			return 2;
		}
		imp = now() - s;
		if (pv_api_new(&a, NULL))
			return 2;
		pv_api_add_profile(a, argv[1], p);
		char *body;
		size_t len;
		const char *ct;
		s = now();
		status = pv_api_call(a, argv[2], argv[3], &body, &len, &ct);
		t[r] = now() - s;
		bytes = len;
		if (status != 200 && r == 0)
			fprintf(stderr, "api: %d %.*s\n", status, (int)(len > 300 ? 300 : len),
				body);
		free(body);
		pv_api_free(a);
	}
	qsort(t, (size_t)rounds, sizeof(t[0]), cmp_double);
	printf("import %.3f s; %s: status %d, %zu bytes, median %.3f s over %d calls\n", imp,
	       argv[2], status, bytes, t[rounds / 2], rounds);
	return status == 200 ? 0 : 1;
}

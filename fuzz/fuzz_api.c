/*
 * fuzz_api.c - the fuzz target of the page's JSON API (doc/api.md): an input is one request,
 * "ENDPOINT?QUERY" (the query string as a browser sends it, percent-encoding and all), answered by
 * pv_api_call over loaded profiles, each with something to break: p=0 the views' worked example
 * (collapsed: no time), p=1 a Firefox profile with markers and schemas, p=2 a Chrome trace with
 * samples and markers, p=3 the model's edges (tests/harness/tedge.c: times at +-2^62 ns, a weight
 * column summing to 2^62 - 1, a marker and trace records as wide), p=4 samples without a stack
 * or a time only, p=5 a call-graph profile (callgrind: views from its graph), p=6 an HPCToolkit
 * database without trace records. Every answer must be a status the API documents and a JSON
 * body that starts like one; an answer of 500 means the API broke (it is only for out of memory).
 *
 * Like fuzz_import.c: under libFuzzer (meson -Dfuzz=true) a fuzzer, else replay.c replays
 * fuzz/corpus/api/ in `make test`. Run from the repository's root (the profiles' paths).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/import.h"
#include "pv/serve.h"
#include "tedge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the files, in slot order; NULL: the slot's profile is made (tedge.h) */
static const char *const files[] = {
    "tests/data/collapsed/worked-example.txt",
    "tests/data/corpus/firefox/generated-processed-v70-from-gecko.json",
    "tests/data/chrome/trace-event-multi-thread-with-samples.json",
    NULL,
    NULL,
    "tests/data/callgrind/recursion.callgrind",
    "tests/data/hpctoolkit/derived.d",
};

static struct pv_api *api(void)
{
	static struct pv_api *a;
	if (a)
		return a;
	if (pv_api_new(&a, NULL)) {
		fprintf(stderr, "fuzz_api: out of memory\n");
		abort();
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct pv_profile *p = NULL;
		struct pv_error err;
		if (!files[i]) {
			p = i == 3 ? t_profile_edges() : t_profile_nostack();
			if (!p) {
				fprintf(stderr, "fuzz_api: the profile of slot %zu failed\n", i);
				abort();
			}
		} else if (pv_import_file(files[i], NULL, &p, &err)) {
			fprintf(stderr, "fuzz_api: %s (run from the repository's root)\n", err.msg);
			abort();
		}
		pv_api_add_profile(a, files[i] ? files[i] : i == 3 ? "edges" : "nostack", p);
	}
	return a;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 8192)
		return 0;
	char req[8193];
	memcpy(req, data, size);
	req[size] = 0;
	if (strlen(req) != size)
		return 0; /* a NUL never reaches the API: the server's URL parser stops there */
	char *q = strchr(req, '?');
	if (q)
		*q++ = 0;
	char *body = NULL;
	size_t len = 0;
	const char *type = NULL;
	int st = pv_api_call(api(), req, q, &body, &len, &type);
	if (!body || !type || (st != 200 && st != 400 && st != 404 && st != 503) || !len ||
	    strlen(body) != len || (body[0] != '{' && body[0] != '[')) {
		fprintf(stderr, "fuzz_api: '%s' ? '%s' answered %d: %.300s\n", req, q ? q : "", st,
			body ? body : "(no body)");
		abort();
	}
	free(body);
	return 0;
}

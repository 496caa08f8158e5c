/*
 * Every Firefox and collapsed-stack file of tests/data/corpus opens and passes the validator,
 * with the sample counts its README states; files of formats profview does not read yet are
 * answered with one clear error.
 */
#include "pv/import.h"
#include "t.h"

struct corpus_case {
	const char *path;
	const char *format; /* importer that must recognise it; NULL = must be rejected */
	int threads;	    /* -1 = not checked */
	long long samples;  /* sample rows, -1 = not checked */
	long long weight;   /* default-metric total, -1 = not checked */
	const char *error;  /* for rejected files: a substring of the message */
};

static const struct corpus_case cases[] = {
    /* corpus/firefox/README.md: threads and samples per file */
    {"firefox/generated-gecko-v36.json", "firefox-gecko", 3, 21, 21, NULL},
    {"firefox/generated-processed-v70-from-gecko.json", "firefox-processed", 3, 21, 21, NULL},
    {"firefox/generated-processed-v70-marker-table.json", "firefox-processed", 1, 0, 0, NULL},
    {"firefox/generated-processed-v70-network.json", "firefox-processed", 1, 0, 0, NULL},
    {"firefox/generated-processed-v70-calltree.json", "firefox-processed", 1, 5, 5, NULL},
    {"firefox/argument-values.json", "firefox-processed", 1, 32, 32, NULL},
    {"firefox/sourcemap-two.json", "firefox-processed", 2, 2, 2, NULL},
    {"firefox/unsymbolicated.json", "firefox-processed", 6, 42, 236, NULL}, /* weight column */
    {"firefox/gecko-2.json", "firefox-gecko", 3, 21, 21, NULL},
    {"firefox/flamegraph.txt", "collapsed", 1, 45, 152364, NULL},
    /* collapsed stacks (totals: awk over the count column) */
    {"speedscope/stackcollapse/alternating.txt", "collapsed", 1, 182, 182, NULL},
    {"speedscope/stackcollapse/perf-vertx-stacks-01-collapsed-all.txt", "collapsed", 1, 199, 285,
     NULL},
    {"speedscope/stackcollapse/recursion.txt", "collapsed", 1, 10, 10, NULL},
    {"speedscope/stackcollapse/simple-crlf.txt", "collapsed", 1, 5, 14, NULL},
    {"speedscope/stackcollapse/simple-utf16-be.txt", "collapsed", 1, 5, 14, NULL},
    {"speedscope/stackcollapse/simple-utf16-le.txt", "collapsed", 1, 5, 14, NULL},
    {"speedscope/stackcollapse/simple-with-invalids.txt", "collapsed", 1, 5, 14, NULL},
    {"speedscope/stackcollapse/simple.txt", "collapsed", 1, 5, 14, NULL},
    {"speedscope/stackcollapse/tall.txt", "collapsed", 1, 1, 1, NULL},
    {"flamegraph/test/results/perf-iperf-stacks-pidtid-01-collapsed-tid.txt", "collapsed", 11, 134,
     200, NULL},
    {"flamegraph/test/results/perf-java-stacks-01-collapsed-all.txt", "collapsed", 1, 33, 45, NULL},
    /* perf script text (more in test_perf_script.c): corpus/firefox/README.md ~73, ~420 */
    {"firefox/test.perf.gz", "perf-script", 17, 73, 587515833, NULL},
    {"firefox/gzip.perf.gz", "perf-script", 2, 420, 283922691, NULL},
    /* not Firefox's own format: a symbolication response, not a profile */
    {"firefox/symbol-server-response.json", NULL, -1, -1, -1,
     "not a profile format profview reads"},
    /* formats of later issues (perf script, Chrome, V8, DHAT, ART, simpleperf): a clear error */
    /* Chrome and V8 (tests/unit/test_chrome.c checks them in full): default metric time, ns */
    {"firefox/test.chrome-unchunked.json", "chrome", 2, 20, 6291251000, NULL},
    {"firefox/chrome-tracing.json.gz", "chrome", 14, 248, 18838000, NULL}, /* X events as a tree */
    {"firefox/hello.cjs-20231120T211435.cpuprofile", "chrome", 1, 150, 168955000, NULL},
    {"firefox/dhat.json.gz", "dhat", 1, 112, 21642, NULL}, /* test_ff_oracle.c in full */
    {"firefox/art-trace-regular.trace.gz", "art-trace", 40, 9450, 9450, NULL},
    /* cpu-clock weighs 231.75 ms (test_ff_oracle.c in full) */
    {"firefox/simpleperf-cpu-clock.trace.gz", "simpleperf", 15, 1234, 231750000, NULL},
};

T_TEST(corpus_firefox_and_collapsed_open)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct corpus_case *c = &cases[i];
		struct pv_profile *p = NULL;
		struct pv_error err;
		pv_error_clear(&err);
		int rc = pv_import_file(t_corpus(c->path), NULL, &p, &err);
		if (!c->format) {
			if (rc == 0) {
				t_fail(__FILE__, __LINE__, "%s: imported, expected an error",
				       c->path);
				pv_profile_free(p);
			} else {
				T_CONTAINS(err.msg, c->error);
			}
			continue;
		}
		if (rc) {
			t_fail(__FILE__, __LINE__, "%s: %s", c->path, err.msg);
			continue;
		}
		if (pv_profile_validate(p, &err))
			t_fail(__FILE__, __LINE__, "%s: invalid: %s", c->path, err.msg);
		if (strcmp(pv_str(p, p->meta.format), c->format) != 0)
			t_fail(__FILE__, __LINE__, "%s: read as %s, expected %s", c->path,
			       pv_str(p, p->meta.format), c->format);
		if (c->threads >= 0 && (int)p->threads.len != c->threads)
			t_fail(__FILE__, __LINE__, "%s: %u threads, expected %d", c->path,
			       p->threads.len, c->threads);
		if (c->samples >= 0 && p->samples.len != c->samples)
			t_fail(__FILE__, __LINE__, "%s: %u samples, expected %lld", c->path,
			       p->samples.len, c->samples);
		if (c->weight >= 0) {
			long long w = 0;
			for (uint32_t s = 0; s < p->samples.len; s++)
				w += pv_sample_weight(p, p->meta.default_metric, s);
			if (w != c->weight)
				t_fail(__FILE__, __LINE__, "%s: total %lld, expected %lld", c->path,
				       w, c->weight);
		}
		pv_profile_free(p);
	}
}

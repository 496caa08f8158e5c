/*
 * tests of the speedscope importer: speedscope's own JSON file format, sampled and evented.
 *
 * The expected trees are speedscope's own (its snapshot tests of the same sample files): the
 * evented simple.txt profile is a;b;c 2, a;b;d 4, a;b;c 3, a;b 5 - self c 5, d 4, b 5.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "pv/import.h"
#include "t.h"

static struct pv_profile *load(const char *path)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	if (pv_import_file(path, NULL, &p, &err)) {
		t_fail(__FILE__, __LINE__, "%s: %s", path, err.msg);
		return NULL;
	}
	if (pv_profile_validate(p, &err)) {
		t_fail(__FILE__, __LINE__, "%s: invalid: %s", path, err.msg);
		pv_profile_free(p);
		return NULL;
	}
	return p;
}

static int import_text(const char *json, const char *format, struct pv_profile **p,
		       struct pv_error *err)
{
	pv_error_clear(err);
	*p = NULL;
	int rc = pv_import_memory("s.json", json, strlen(json), format, p, err);
	if (!rc && pv_profile_validate(*p, err)) {
		t_fail(__FILE__, __LINE__, "invalid profile: %s", err->msg);
		pv_profile_free(*p);
		*p = NULL;
		return -100;
	}
	return rc;
}

static struct pv_profile *text(const char *json)
{
	struct pv_profile *p;
	struct pv_error err;
	if (import_text(json, NULL, &p, &err)) {
		t_fail(__FILE__, __LINE__, "import failed: %s", err.msg);
		return NULL;
	}
	T_EQ_STR(pv_str(p, p->meta.format), "speedscope");
	return p;
}

static int64_t total(const struct pv_profile *p, const char *metric)
{
	pv_metric_ix m = pv_metric_find(p, metric);
	if (m == PV_NONE)
		return -1;
	int64_t s = 0;
	for (uint32_t i = 0; i < p->samples.len; i++)
		s += pv_sample_weight(p, m, i);
	return s;
}

/* "a;b;c WEIGHT" per sample, joined by " | " (metric m) */
static void samples_text(const struct pv_profile *p, const char *metric, char *buf, size_t n)
{
	pv_metric_ix m = pv_metric_find(p, metric);
	buf[0] = 0;
	for (uint32_t s = 0; s < p->samples.len; s++) {
		const char *parts[64];
		int k = 0;
		for (pv_stack_ix st = p->samples.stack[s]; st != PV_NONE && k < 64;
		     st = p->stacks.prefix[st])
			parts[k++] = pv_str(p, p->funcs.name[p->frames.func[p->stacks.frame[st]]]);
		if (s)
			strncat(buf, " | ", n - strlen(buf) - 1);
		while (k-- > 0) {
			strncat(buf, parts[k], n - strlen(buf) - 1);
			if (k)
				strncat(buf, ";", n - strlen(buf) - 1);
		}
		char w[32];
		snprintf(w, sizeof(w), " %lld", (long long)pv_sample_weight(p, m, s));
		strncat(buf, w, n - strlen(buf) - 1);
	}
}

T_TEST(speedscope_corpus_files)
{
	char buf[512];
	/* evented, unit none, profiles before shared: self time per stack */
	struct pv_profile *p = load(t_data("speedscope/evented-simple.speedscope.json"));
	if (p) {
		T_EQ_STR(pv_str(p, p->meta.format_version), "0.0.1");
		T_EQ_INT(p->threads.len, 1);
		T_EQ_STR(pv_str(p, p->threads.name[0]), "simple.txt");
		samples_text(p, "samples", buf, sizeof(buf));
		T_EQ_STR(buf, "a;b;c 2 | a;b;d 4 | a;b;c 3 | a;b 5");
		T_EQ_INT(p->samples.time_ns[0], PV_TIME_NONE); /* unit none: no times */
		pv_profile_free(p);
	}
	/* sampled, in seconds: ns exactly, each sample starting where the weights before end */
	p = load(t_data("speedscope/sampled-simple.speedscope.json"));
	if (p) {
		samples_text(p, "time", buf, sizeof(buf));
		T_EQ_STR(buf, "a;b;c 1000000000 | a;b;c 1000000000 | a;b;d 4000000000 | a;b;c 3000000000 "
			      "| a;b 5000000000");
		static const int64_t t[] = {0, 1000000000, 2000000000, 6000000000, 9000000000};
		for (uint32_t i = 0; i < 5; i++)
			T_EQ_INT(p->samples.time_ns[i], t[i]);
		pv_profile_free(p);
	}
	p = load(t_data("speedscope/two-sampled.speedscope.json"));
	if (p) {
		T_EQ_INT(p->threads.len, 2);
		T_EQ_STR(pv_str(p, p->threads.name[1]), "two");
		T_EQ_STR(pv_str(p, p->meta.product), "speedscope@0.6.0");
		T_EQ_INT(total(p, "time"), 28000000000LL);
		pv_profile_free(p);
	}
	/* speedscope refuses these two; so do we, at the event */
	struct pv_error err;
	p = NULL;
	T_EQ_INT(pv_import_file(t_data("speedscope/invalid-out-of-order-events.json"), NULL, &p, &err),
		 PV_EPARSE);
	T_CONTAINS(err.msg, "invalid-out-of-order-events.json: line 20, column 9: closes frame 1 'B' "
			    "while frame 0 'A' is the innermost open one");
	T_EQ_INT(pv_import_file(t_data("speedscope/invalid-incomplete-trace.json"), NULL, &p, &err),
		 PV_EPARSE);
	T_CONTAINS(err.msg, "invalid-incomplete-trace.json: line 13, column 52: 1 frame still open at "
			    "the end of the events (the innermost: frame 0 'A')");
}

#define SCHEMA "\"$schema\":\"https://www.speedscope.app/file-format-schema.json\""

T_TEST(speedscope_units_and_key_order)
{
	/* weights and events before the unit, profiles before shared; several units */
	struct pv_profile *p = text(
	    "{\"profiles\":["
	    "{\"weights\":[1.5,2],\"samples\":[[0],[0,1]],\"type\":\"sampled\",\"name\":\"ms\","
	    "\"unit\":\"milliseconds\",\"startValue\":10,\"endValue\":13.5},"
	    "{\"events\":[{\"type\":\"O\",\"frame\":1,\"at\":100},{\"type\":\"O\",\"frame\":0,\"at\":100},"
	    "{\"type\":\"C\",\"frame\":0,\"at\":150},{\"type\":\"C\",\"frame\":1,\"at\":175}],"
	    "\"type\":\"evented\",\"name\":\"us\",\"unit\":\"microseconds\",\"startValue\":100,\"endValue\":200},"
	    "{\"type\":\"sampled\",\"name\":\"mem\",\"unit\":\"bytes\",\"startValue\":0,\"endValue\":9,"
	    "\"samples\":[[1]],\"weights\":[4096]}],"
	    SCHEMA ",\"shared\":{\"frames\":[{\"name\":\"main\",\"file\":\"/src/app.py\",\"line\":3,\"col\":1},"
	    "{\"name\":\"\"}]},\"exporter\":\"test@1\"}");
	if (!p)
		return;
	T_EQ_INT(p->metrics.len, 2); /* time (ms and µs), bytes */
	T_EQ_INT(p->meta.default_metric, pv_metric_find(p, "time"));
	T_EQ_INT(p->threads.len, 3);
	char buf[512];
	samples_text(p, "time", buf, sizeof(buf));
	T_EQ_STR(buf, "main 1500000 | main;(anonymous) 2000000 | (anonymous);main 50000 | (anonymous) 25000 "
		      "| (anonymous) 0");
	samples_text(p, "bytes", buf, sizeof(buf));
	T_EQ_STR(buf, "main 0 | main;(anonymous) 0 | (anonymous);main 0 | (anonymous) 0 | (anonymous) 4096");
	/* times from the earliest startValue (100 µs): ms profile at 10 ms */
	T_EQ_INT(p->samples.time_ns[0], 10000000 - 100000);
	T_EQ_INT(p->samples.time_ns[1], 11500000 - 100000);
	T_EQ_INT(p->samples.time_ns[2], 0);
	T_EQ_INT(p->samples.time_ns[3], 50000);
	T_EQ_INT(p->samples.time_ns[4], PV_TIME_NONE);
	pv_func_ix f = p->frames.func[p->stacks.frame[p->samples.stack[0]]];
	T_EQ_INT(p->funcs.line[f], 3);
	T_EQ_STR(pv_str(p, p->modules.name[p->funcs.module[f]]), "app.py");
	T_EQ_STR(pv_str(p, p->sources.path[p->funcs.source[f]]), "/src/app.py");
	T_EQ_INT(p->frames.column[p->stacks.frame[p->samples.stack[0]]], 1);
	T_EQ_STR(pv_str(p, p->meta.product), "test@1");
	pv_profile_free(p);
}

/*
 * tests of the speedscope importer: speedscope's own JSON file format, sampled and evented.
 *
 * The expected trees are speedscope's own (its snapshot tests of the same sample files): the
 * evented simple.txt profile is a;b;c 2, a;b;d 4, a;b;c 3, a;b 5 - self c 5, d 4, b 5.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/text.h"
#include "pv/import.h"
#include "t.h"
#include "tp.h"

/* The shared helpers bound to this format and its test file name. */
#define text(json) t_load_text("s.json", (json), "speedscope")
#define expect_error(json, code, want) \
	t_expect_error("s.json", (json), "speedscope", (code), (want), NULL)

/* "a;b;c WEIGHT" per sample, joined by " | " (metric m) */

static void samples_text(const struct pv_profile *p, const char *metric, char *buf, size_t n)
{
	pv_metric_ix m = pv_metric_find(p, metric);
	buf[0] = 0;
	for (uint32_t s = 0; s < p->samples.len; s++) {
		char path[1024], w[32];
		t_stack_path(p, p->samples.stack[s], ";", path, sizeof(path));
		if (s)
			text_append(buf, n, " | ");
		text_append(buf, n, path);
		snprintf(w, sizeof(w), " %lld", (long long)pv_sample_weight(p, m, s));
		text_append(buf, n, w);
	}
}

T_TEST(speedscope_corpus_files)
{
	char buf[512];
	/* evented, unit none, profiles before shared: self time per stack */
	struct pv_profile *p = t_load(t_data("speedscope/evented-simple.speedscope.json"));
	if (p) {
		T_EQ_STR(pv_str(p, p->meta.format_version), "0.0.1");
		T_EQ_INT(p->threads.len, 1);
		T_EQ_STR(pv_str(p, p->threads.name[0]), "simple.txt");
		samples_text(p, "samples", buf, sizeof(buf));
		T_EQ_STR(buf, "a;b;c 2 | a;b;d 4 | a;b;c 3 | a;b 5");
		T_EQ_INT(pv_sample_time(p, 0), PV_TIME_NONE); /* unit none: no times */
		pv_profile_free(p);
	}
	/* sampled, in seconds: ns exactly, each sample starting where the weights before end */
	p = t_load(t_data("speedscope/sampled-simple.speedscope.json"));
	if (p) {
		samples_text(p, "time", buf, sizeof(buf));
		T_EQ_STR(
		    buf,
		    "a;b;c 1000000000 | a;b;c 1000000000 | a;b;d 4000000000 | a;b;c 3000000000 "
		    "| a;b 5000000000");
		static const int64_t t[] = {0, 1000000000, 2000000000, 6000000000, 9000000000};
		for (uint32_t i = 0; i < 5; i++)
			T_EQ_INT(pv_sample_time(p, i), t[i]);
		pv_profile_free(p);
	}
	p = t_load(t_data("speedscope/two-sampled.speedscope.json"));
	if (p) {
		T_EQ_INT(p->threads.len, 2);
		T_EQ_STR(pv_str(p, p->threads.name[1]), "two");
		T_EQ_STR(pv_str(p, p->meta.product), "speedscope@0.6.0");
		T_EQ_INT(t_total_named(p, "time"), 28000000000LL);
		pv_profile_free(p);
	}
	/* speedscope refuses these two; so do we, at the event */
	struct pv_error err;
	p = NULL;
	T_EQ_INT(
	    pv_import_file(t_data("speedscope/invalid-out-of-order-events.json"), NULL, &p, &err),
	    PV_EPARSE);
	T_CONTAINS(err.msg,
		   "invalid-out-of-order-events.json: line 20, column 9: closes frame 1 'B' "
		   "while frame 0 'A' is the innermost open one");
	T_EQ_INT(pv_import_file(t_data("speedscope/invalid-incomplete-trace.json"), NULL, &p, &err),
		 PV_EPARSE);
	T_CONTAINS(err.msg,
		   "invalid-incomplete-trace.json: line 13, column 52: 1 frame still open at "
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
	    "{\"events\":[{\"type\":\"O\",\"frame\":1,\"at\":100},{\"type\":\"O\",\"frame\":0,"
	    "\"at\":100},"
	    "{\"type\":\"C\",\"frame\":0,\"at\":150},{\"type\":\"C\",\"frame\":1,\"at\":175}],"
	    "\"type\":\"evented\",\"name\":\"us\",\"unit\":\"microseconds\",\"startValue\":100,"
	    "\"endValue\":200},"
	    "{\"type\":\"sampled\",\"name\":\"mem\",\"unit\":\"bytes\",\"startValue\":0,"
	    "\"endValue\":9,"
	    "\"samples\":[[1]],\"weights\":[4096]}]," SCHEMA
	    ",\"shared\":{\"frames\":[{\"name\":\"main\",\"file\":\"/src/"
	    "app.py\",\"line\":3,\"col\":1},"
	    "{\"name\":\"\"}]},\"exporter\":\"test@1\"}");
	if (!p)
		return;
	T_EQ_INT(p->metrics.len, 2); /* time (ms and µs), bytes */
	T_EQ_INT(p->meta.default_metric, pv_metric_find(p, "time"));
	T_EQ_INT(p->threads.len, 3);
	char buf[512];
	samples_text(p, "time", buf, sizeof(buf));
	T_EQ_STR(
	    buf,
	    "main 1500000 | main;(anonymous) 2000000 | (anonymous);main 50000 | (anonymous) 25000 "
	    "| (anonymous) 0");
	samples_text(p, "bytes", buf, sizeof(buf));
	T_EQ_STR(
	    buf,
	    "main 0 | main;(anonymous) 0 | (anonymous);main 0 | (anonymous) 0 | (anonymous) 4096");
	/* times from the earliest startValue (100 µs): ms profile at 10 ms */
	T_EQ_INT(pv_sample_time(p, 0), 10000000 - 100000);
	T_EQ_INT(pv_sample_time(p, 1), 11500000 - 100000);
	T_EQ_INT(pv_sample_time(p, 2), 0);
	T_EQ_INT(pv_sample_time(p, 3), 50000);
	T_EQ_INT(pv_sample_time(p, 4), PV_TIME_NONE);
	pv_func_ix f = p->frames.func[p->stacks.frame[p->samples.stack[0]]];
	T_EQ_INT(pv_func_line(p, f), 3);
	T_EQ_STR(pv_str(p, p->modules.name[pv_func_module(p, f)]), "/src/app.py"); /* its file */
	T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, f)]), "/src/app.py");
	T_EQ_INT(pv_frame_column(p, p->stacks.frame[p->samples.stack[0]]), 1);
	T_EQ_STR(pv_str(p, p->meta.product), "test@1");
	pv_profile_free(p);
}

#define FRAMES ",\"shared\":{\"frames\":[{\"name\":\"a\"},{\"name\":\"b\"}]}"

T_TEST(speedscope_malformed)
{
	expect_error("{\"profiles\":[]}", PV_EFORMAT,
		     "s.json: not a speedscope file (no \"$schema\"");
	expect_error("{\"$schema\":\"https://example.com/x.json\"}", PV_EPARSE,
		     "line 1, column 12: not a speedscope file");
	expect_error("{" SCHEMA FRAMES ",\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\","
		     "\"samples\":[[0],[1]],\"weights\":[1]}]}",
		     PV_EPARSE, "a sampled profile with 2 samples and 1 weights");
	expect_error("{" SCHEMA FRAMES ",\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\","
		     "\"samples\":[[0,2]],\"weights\":[1]}]}",
		     PV_EPARSE, "line 1, column 171: frame 2 does not exist (2 frames)");
	expect_error("{" SCHEMA ",\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\","
		     "\"samples\":[[0,7]],\"weights\":[1]}]" FRAMES "}",
		     PV_EPARSE, "s.json: a sample names frame 7, shared.frames has 2");
	expect_error("{" SCHEMA FRAMES ",\"profiles\":[{\"type\":\"evented\",\"unit\":\"none\","
		     "\"events\":[{\"type\":\"O\",\"frame\":0,\"at\":5},{\"type\":\"C\",\"frame\":"
		     "0,\"at\":4}]}]}",
		     PV_EPARSE, "event at 4 goes back in time (the one before is at 5)");
	expect_error("{" SCHEMA FRAMES ",\"profiles\":[{\"type\":\"evented\",\"unit\":\"none\","
		     "\"events\":[{\"type\":\"C\",\"frame\":1,\"at\":4}]}]}",
		     PV_EPARSE, "closes frame 1 'b' while no frame is open");
	expect_error("{" SCHEMA FRAMES ",\"profiles\":[{\"type\":\"evented\",\"unit\":\"none\","
		     "\"events\":[{\"type\":\"X\",\"frame\":1,\"at\":4}]}]}",
		     PV_EPARSE, "expected an event type (\"O\" or \"C\")");
	expect_error("{" SCHEMA FRAMES ",\"profiles\":[{\"type\":\"evented\",\"unit\":\"none\","
		     "\"events\":[{\"type\":\"O\",\"at\":4}]}]}",
		     PV_EPARSE, "an event needs 'type', 'frame' and 'at'");
	expect_error("{" SCHEMA FRAMES ",\"profiles\":[{\"type\":\"sampled\",\"unit\":\"seconds\","
		     "\"samples\":[[0]],\"weights\":[1e30]}]}",
		     PV_EPARSE, "number out of range");
	expect_error("{" SCHEMA FRAMES ",\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\","
		     "\"samples\":[[0]],\"weights\":[\"1\"]}]}",
		     PV_EPARSE, "expected a number, found a string");
	expect_error("{" SCHEMA FRAMES ",\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\","
		     "\"samples\":{},\"weights\":[]}]}",
		     PV_EPARSE, "expected 'samples' (an array of stacks), found an object");
	expect_error("{" SCHEMA FRAMES ",\"profiles\":[{\"unit\":\"none\"}]}", PV_EPARSE,
		     "a profile without a 'type'");
	expect_error("{" SCHEMA FRAMES ",\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\","
		     "\"samples\":[[0]],\"weights\":[1]}]",
		     PV_EPARSE, "expected ',' or '}', found the end of the input");
	/* other types and units: kept out, and said */
	struct pv_profile *p = text("{" SCHEMA FRAMES ",\"profiles\":[{\"type\":\"flame\"},"
				    "{\"type\":\"sampled\",\"unit\":\"furlongs\",\"samples\":[[1]],"
				    "\"weights\":[3]},{\"type\":\"sampled\",\"unit\":\"none\","
				    "\"samples\":[[0],[0]]}]}");
	if (p) {
		T_EQ_INT(p->threads.len, 2);
		T_EQ_INT(t_total_named(p, "samples"), 5);
		T_EQ_INT(p->diags.len, 3);
		pv_profile_free(p);
	}
}

T_TEST(speedscope_deep_stacks)
{
	size_t n = 100000, cap = n * 100 + 512, o = 0;
	char *buf = malloc(cap);
	if (!buf)
		return;
	/* a sampled stack 100,000 frames deep, and an evented profile nesting as deep */
	o += (size_t)snprintf(buf + o, cap - o,
			      "{" SCHEMA FRAMES ",\"profiles\":["
			      "{\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[[");
	for (size_t i = 0; i < n; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s%zu", i ? "," : "", i % 2);
	o += (size_t)snprintf(buf + o, cap - o,
			      "]],\"weights\":[3]},"
			      "{\"type\":\"evented\",\"unit\":\"nanoseconds\",\"events\":[");
	for (size_t i = 0; i < n; i++)
		o += (size_t)snprintf(buf + o, cap - o,
				      "{\"type\":\"O\",\"frame\":%zu,\"at\":%zu},", i % 2, i);
	for (size_t i = n; i-- > 0;)
		o += (size_t)snprintf(buf + o, cap - o,
				      "{\"type\":\"C\",\"frame\":%zu,\"at\":%zu}%s", i % 2,
				      2 * n - i, i ? "," : "");
	o += (size_t)snprintf(buf + o, cap - o, "]}]}");
	struct pv_profile *p = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_memory("deep.json", buf, o, NULL, &p, &err), 0);
	free(buf);
	if (!p)
		return;
	T_EQ_INT(pv_profile_validate(p, &err), 0);
	uint32_t depth = 0;
	for (pv_stack_ix s = p->samples.stack[0]; s != PV_NONE; s = p->stacks.prefix[s])
		depth++;
	T_EQ_INT(depth, 100000);
	/* the sampled sample, then one per stretch between two events of the evented profile */
	T_EQ_INT(p->samples.len, 1 + (n - 1) + n);
	T_EQ_INT(t_total_named(p, "time"),
		 (int64_t)(2 * n)); /* 0 to n-1 opening, n+1 to 2n closing */
	pv_profile_free(p);
}

static uint64_t rng_state = 0x853c49e6748fea9bULL;

T_TEST(speedscope_truncations_and_mutations)
{
	static const char *const files[] = {
	    "speedscope/evented-simple.speedscope.json",
	    "speedscope/sampled-simple.speedscope.json",
	    "speedscope/two-sampled.speedscope.json",
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		size_t len;
		char *buf = t_read_file(t_data(files[i]), &len);
		if (!buf) {
			t_fail(__FILE__, __LINE__, "cannot read %s", files[i]);
			continue;
		}
		static const char *const formats[] = {NULL, "speedscope"};
		const struct t_damage d = {
		    formats, 2, 150, "speedscope", 300, "{}[]\",:0-9e.\\ \n;OCax\xff", &rng_state};
		t_damage(files[i], buf, len, &d);
		free(buf);
	}
}

/*
 * One URL -> module rule for the JavaScript formats (doc/modules.md): the same script URLs in a
 * speedscope file and a .cpuprofile get the same modules: the origin of http, https and
 * moz-extension URLs (lowercased, user and default port dropped), else the URL itself.
 */
T_TEST(script_url_module_rule_shared)
{
	static const struct {
		const char *url, *module;
	} cases[] = {
	    {"https://User@Example.COM:443/x/app.js", "https://example.com"},
	    {"http://x.org:80/a.js?v=1", "http://x.org"},
	    {"http://x.org:8080/a.js", "http://x.org:8080"},
	    {"moz-extension://abc-1/b.js", "moz-extension://abc-1"},
	    {"chrome-extension://id/e.js", "chrome-extension://id/e.js"},
	    {"node:internal/main/run_main_module", "node:internal/main/run_main_module"},
	    {"file:///srv/c.js", "file:///srv/c.js"},
	    {"/srv/d.js", "/srv/d.js"},
	};
	enum { N = sizeof(cases) / sizeof(cases[0]) };
	char ss[2048], cp[2048];
	size_t o = (size_t)snprintf(ss, sizeof(ss), "{" SCHEMA ",\"shared\":{\"frames\":[");
	size_t c = (size_t)snprintf(
	    cp, sizeof(cp), "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"}}");
	for (int i = 0; i < N; i++) {
		o +=
		    (size_t)snprintf(ss + o, sizeof(ss) - o, "%s{\"name\":\"f%d\",\"file\":\"%s\"}",
				     i ? "," : "", i, cases[i].url);
		c += (size_t)snprintf(
		    cp + c, sizeof(cp) - c,
		    ",{\"id\":%d,\"parent\":1,\"callFrame\":{\"functionName\":\"f%d\","
		    "\"url\":\"%s\"}}",
		    i + 2, i, cases[i].url);
	}
	o += (size_t)snprintf(
	    ss + o, sizeof(ss) - o,
	    "]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\",\"startValue\":0,"
	    "\"endValue\":%d,\"samples\":[",
	    N);
	c += (size_t)snprintf(cp + c, sizeof(cp) - c, "],\"samples\":[");
	for (int i = 0; i < N; i++) {
		o += (size_t)snprintf(ss + o, sizeof(ss) - o, "%s[%d]", i ? "," : "", i);
		c += (size_t)snprintf(cp + c, sizeof(cp) - c, "%s%d", i ? "," : "", i + 2);
	}
	o += (size_t)snprintf(ss + o, sizeof(ss) - o, "],\"weights\":[");
	for (int i = 0; i < N; i++)
		o += (size_t)snprintf(ss + o, sizeof(ss) - o, "%s1", i ? "," : "");
	snprintf(ss + o, sizeof(ss) - o, "]}]}");
	c += (size_t)snprintf(cp + c, sizeof(cp) - c, "],\"timeDeltas\":[");
	for (int i = 0; i < N; i++)
		c += (size_t)snprintf(cp + c, sizeof(cp) - c, "%s1", i ? "," : "");
	snprintf(cp + c, sizeof(cp) - c, "],\"startTime\":0,\"endTime\":%d}", N + 1);
	struct pv_profile *a = t_load_text("s.json", ss, "speedscope");
	struct pv_profile *b = t_load_text("t.cpuprofile", cp, "chrome");
	for (int i = 0; a && b && i < N; i++) {
		char fn[8];
		snprintf(fn, sizeof(fn), "f%d", i);
		pv_func_ix fa = t_find_func(a, fn), fb = t_find_func(b, fn);
		T_TRUE(fa != PV_NONE && fb != PV_NONE);
		if (fa == PV_NONE || fb == PV_NONE)
			continue;
		T_EQ_STR(pv_str(a, a->modules.name[pv_func_module(a, fa)]), cases[i].module);
		T_EQ_STR(pv_str(b, b->modules.name[pv_func_module(b, fb)]), cases[i].module);
	}
	pv_profile_free(a);
	pv_profile_free(b);
}

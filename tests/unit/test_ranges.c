/*
 * test_ranges.c - the model's value ranges (profile.h: PV_TIME_MAX, PV_WEIGHT_SUM_MAX; issue 25):
 * an importer's values past them are saturated with a lossy note, a snapshot's are refused with
 * the column and the row named, and a profile at their edges goes through every endpoint of the
 * API (and so every view, the info, the trace, the activity, the markers, the contexts) without
 * an overflow (this binary runs under ASan + UBSan in `make test`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pv/import.h"
#include "pv/info.h"
#include "pv/serve.h"
#include "pv/snapshot.h"
#include "t.h"
#include "tapi.h"
#include "tedge.h"

#define W PV_WEIGHT_SUM_MAX

/*
 * A speedscope file like the (249 bytes there, 242 here), two samples of weight 9e18: the
 * first is cut to 2^62 - 1, the second to 0 (the total had nothing left); before, `info` printed
 * a total of -446744073709551616 (golden speedscope/info-weights-9e18).
 */
T_TEST(ranges_speedscope_weights_9e18)
{
	struct pv_profile *p = t_load(t_data("speedscope/weights-9e18.json"));
	if (!p)
		return;
	T_EQ_INT(p->samples.len, 2);
	T_EQ_INT(pv_sample_weight(p, 0, 0), W);
	T_EQ_INT(pv_sample_weight(p, 0, 1), 0);
	T_EQ_INT(t_diag_count(p, "metric 'samples': sample weights summing past 2^62 in absolute "
				 "value saturated (each cut to what the sum had left)"),
		 2);
	struct pv_profile_info *in;
	T_EQ_INT(pv_profile_info(p, &in), 0);
	T_EQ_INT(in->metric_total[0], W);
	T_EQ_INT(in->threads[0].weight, W);
	pv_profile_info_free(in);
	struct pv_api *a = NULL;
	T_EQ_INT(pv_api_new(&a, NULL), 0);
	T_EQ_INT(pv_api_add_profile(a, "w.json", p), 0);
	int st;
	char *body = t_api_call(a, "view", "view=tree", &st);
	T_EQ_INT(st, 200);
	T_CONTAINS(body, "\"whole\": [4611686018427387903]");
	free(body);
	pv_api_free(a);
}

T_TEST(ranges_builder_saturates)
{
	struct pv_profile *p = t_profile_edges();
	if (!p)
		return;
	struct pv_error err;
	T_EQ_INT(pv_profile_validate(p, &err), 0);
	const int64_t T = PV_TIME_MAX;
	T_EQ_INT(p->samples.time_ns[0], -T);
	T_EQ_INT(p->samples.time_ns[1], 0);
	T_EQ_INT(p->samples.time_ns[2], T);
	T_EQ_INT(pv_sample_weight(p, 0, 0), W);
	T_EQ_INT(pv_sample_weight(p, 0, 1), 0);
	T_EQ_INT(pv_sample_weight(p, 0, 2), 0);
	T_EQ_INT(p->samples.event_delay_ns[0], T);
	T_EQ_INT(p->samples.event_delay_ns[1], PV_TIME_NONE);
	T_EQ_INT(p->markers.start_ns[0], -T);
	T_EQ_INT(p->markers.end_ns[0], T);
	T_EQ_INT(p->markers.cause_time_ns[0], PV_TIME_NONE);
	T_EQ_INT(p->threads.start_ns[0], -T);
	T_EQ_INT(p->threads.end_ns[0], T);
	T_EQ_INT(p->trace.time_ns[0], -T);
	T_EQ_INT(p->trace.end_ns, T);
	T_EQ_INT(p->meta.interval_ns, 0);
	T_EQ_INT(p->meta.start_unix_ns, T);
	/* sample times 2, event delay 1, marker 2, thread 2, trace 2, start 1 */
	T_EQ_INT(t_diag_count(p, "times past +-2^62 ns (146 years) saturated"), 10);
	T_EQ_INT(t_diag_count(p, "a negative sampling interval (-9223372036854775808 ns) dropped"),
		 1);
	T_EQ_INT(t_diag_count(p, "metric 'cpu': sample weights summing past 2^62"), 3);
	pv_profile_free(p);
}

/* Every endpoint of the API, a request each, on one profile: each answers 200 (or the status
 * given) with JSON; the names of those that did not, in the failure. */
static const struct {
	const char *endpoint, *query;
	int status;
} requests[] = {
    {"status", "", 200},
    {"profile", "", 200},
    {"view", "view=tree&heaviest=12", 200},
    {"view", "view=callers&heaviest=12", 200},
    {"view", "view=flat", 200},
    {"view", "view=top", 200},
    {"view", "view=butterfly&center=g&heaviest=4", 200},
    {"view", "view=tree&metric=cpu:mean,cpu:stddev,cpu:max", 200},
    {"children", "view=tree&key=f0", 200},
    {"subtree", "view=tree&key=&prune=0", 200},
    {"search", "text=f", 200},
    {"flame", "view=tree", 200},
    {"flame", "view=tree&center=g", 200},
    {"thread-costs", "view=tree&key=f0", 200},
    {"contexts", "center=g", 200},
    {"contexts", "view=tree&key=f0&value=self&order=value", 200},
    {"source", "", 404},
    {"disasm", "file=0&line=1", 404},
    {"markers", "sort=duration", 200},
    {"marker", "i=0", 200},
    {"marker-summary", "", 200},
    {"marker-chart", "width=100", 200},
    {"activity", "buckets=50", 200},
    {"activity", "start=-1e12&end=1e12", 200},
    {"trace", "width=50&height=5", 200},
    {"trace-stack", "context=0&at=0", 200},
    {"trace-boxes", "context=0", 200},
};

static void every_endpoint(struct pv_api *a, const char *what)
{
	for (size_t i = 0; i < sizeof(requests) / sizeof(requests[0]); i++) {
		int st;
		char *body = t_api_call(a, requests[i].endpoint, requests[i].query, &st);
		if (st != requests[i].status && !(requests[i].status == 404 && st == 400))
			t_fail(__FILE__, __LINE__, "%s: /api/%s?%s: %d %.300s", what,
			       requests[i].endpoint, requests[i].query, st, body ? body : "");
		free(body);
	}
}

T_TEST(ranges_edges_through_every_endpoint)
{
	struct pv_profile *p = t_profile_edges();
	if (!p)
		return;
	struct pv_api *a = NULL;
	T_EQ_INT(pv_api_new(&a, NULL), 0);
	T_EQ_INT(pv_api_add_profile(a, "edges", p), 0);
	every_endpoint(a, "edges");
	int st;
	char *body = t_api_call(a, "profile", "", &st);
	T_CONTAINS(body, "\"total\": 4611686018427387903");
	free(body);
	body = t_api_call(a, "markers", "", &st);
	T_CONTAINS(body, "\"duration\": 9223372036854.775806");
	free(body);
	pv_api_free(a);
}

/* ---- snapshots: values past the ranges, every checksum made valid again ---- */

/* The snapshot of t_profile_edges() (saturated), in memory. */
static unsigned char *snapshot_of_edges(size_t *len)
{
	struct pv_profile *p = t_profile_edges();
	if (!p)
		return NULL;
	char path[] = "/tmp/pv-ranges-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0) {
		pv_profile_free(p);
		return NULL;
	}
	close(fd);
	struct pv_error err;
	int rc = pv_snapshot_write(p, path, NULL, &err);
	pv_profile_free(p);
	unsigned char *b = rc ? NULL : (unsigned char *)t_read_file(path, len);
	unlink(path);
	T_EQ_INT(rc, 0);
	return b;
}

static void expect_refused(unsigned char *b, size_t len, const char *want, int line)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	int rc = pv_import_memory("s.pvs", b, len, NULL, &p, &err);
	pv_profile_free(p);
	char full[512];
	snprintf(full, sizeof(full),
		 "s.pvs: snapshot breaks an invariant of the model (damaged, or not written by "
		 "profview): %s",
		 want);
	if (rc != PV_EPARSE || strcmp(err.msg, full) != 0)
		t_fail(__FILE__, line, "%d '%s', expected '%s'", rc, err.msg, full);
}

T_TEST(ranges_snapshot_refused)
{
	static const struct {
		uint32_t id, word;
		int64_t v;
		const char *want;
	} cases[] = {
	    /* samples.weight of metric 0 (section 128), the first sample */
	    {128, 0, INT64_MAX,
	     "samples.weight[0][0]: 9223372036854775807 takes the column's sum of absolute values "
	     "past 2^62"},
	    /* samples.time_ns (52), the second sample */
	    {52, 1, INT64_MIN + 1, "samples.time_ns[1]: -9223372036854775807 is past +-2^62 ns"},
	    /* the meta section (1), word 25: interval_ns */
	    {1, 25, INT64_MIN, "meta.interval_ns: -9223372036854775808 is not in 0 .. 2^62"},
	    /* markers.end_ns (62) */
	    {62, 0, INT64_MAX, "markers.end_ns[0]: 9223372036854775807 is past +-2^62 ns"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len;
		unsigned char *b = snapshot_of_edges(&len);
		if (!b)
			return;
		struct pv_profile *p = NULL;
		struct pv_error err;
		T_EQ_INT(pv_import_memory("s.pvs", b, len, NULL, &p, &err), 0);
		pv_profile_free(p);
		T_TRUE(t_snapshot_set_word(b, cases[i].id, cases[i].word, cases[i].v));
		expect_refused(b, len, cases[i].want, __LINE__);
		free(b);
	}
}

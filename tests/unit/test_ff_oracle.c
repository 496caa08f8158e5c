/*
 * The formats the Firefox Profiler imports itself (DHAT, ART method traces, simpleperf's
 * protobuf report): per thread, the sample count, the weight total and every function's self
 * and total (recursion counted once, functions by name) equal what the Firefox Profiler's own
 * importer builds from the same file. The expected files (tests/data/FORMAT/FILE.expected) were
 * written once by tests/data/ff-oracle/ (its README has the commands); the Firefox Profiler is
 * not needed here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/import.h"
#include "t.h"
#include "tp.h"

struct fcost {
	const char *name;
	int64_t self, total;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct fcost *)a)->name, ((const struct fcost *)b)->name);
}

/* The functions met in thread th's samples with their self and total in metric m, by name. */
static struct fcost *costs(const struct pv_profile *p, pv_thread_ix th, pv_metric_ix m, uint32_t *n,
			   uint32_t *nsamples, int64_t *wsum)
{
	uint32_t ns = p->strings.len;
	int64_t *self = calloc(ns, sizeof(int64_t)), *total = calloc(ns, sizeof(int64_t));
	uint32_t *seen = calloc(ns, sizeof(uint32_t));
	bool *met = calloc(ns, sizeof(bool));
	*nsamples = 0;
	*wsum = 0;
	for (uint32_t s = p->threads.sample_begin[th]; s < p->threads.sample_end[th]; s++) {
		int64_t w = pv_sample_weight(p, m, s);
		++*nsamples;
		*wsum += w;
		bool leaf = true;
		for (pv_stack_ix st = p->samples.stack[s]; st != PV_NONE;
		     st = p->stacks.prefix[st]) {
			pv_str_ix name = p->funcs.name[p->frames.func[p->stacks.frame[st]]];
			met[name] = true;
			if (leaf)
				self[name] += w;
			leaf = false;
			if (seen[name] != s + 1) {
				seen[name] = s + 1;
				total[name] += w;
			}
		}
	}
	struct fcost *out = calloc(ns + 1, sizeof(*out));
	*n = 0;
	for (uint32_t i = 0; i < ns; i++)
		if (met[i])
			out[(*n)++] = (struct fcost){pv_str(p, i), self[i], total[i]};
	qsort(out, *n, sizeof(*out), by_name);
	free(self);
	free(total);
	free(seen);
	free(met);
	return out;
}

/*
 * Compares thread th (metric m) with the expected block that starts at line *at of lines; moves
 * *at past it. Reports the first few differences.
 */
static void compare_block(const struct pv_profile *p, pv_thread_ix th, pv_metric_ix m, char **lines,
			  uint32_t nlines, uint32_t *at, const char *what)
{
	char *h = lines[*at];
	long long tid, samples, weight;
	int used = 0;
	if (sscanf(h, "thread\t%lld\t%lld\t%lld\t%n", &tid, &samples, &weight, &used) != 3) {
		t_fail(__FILE__, __LINE__, "%s: bad expected line '%s'", what, h);
		*at = nlines;
		return;
	}
	uint32_t n, ns;
	int64_t wsum;
	struct fcost *c = costs(p, th, m, &n, &ns, &wsum);
	if (ns != (uint32_t)samples || wsum != weight)
		t_fail(__FILE__, __LINE__,
		       "%s: thread %s: %u samples weighing %lld, expected %lld "
		       "weighing %lld",
		       what, h + used, ns, (long long)wsum, samples, weight);
	uint32_t expected = 0, bad = 0;
	for ((*at)++; *at < nlines && lines[*at][0] == '\t'; (*at)++) {
		long long es, et;
		int u = 0;
		if (sscanf(lines[*at], "\t%lld\t%lld\t%n", &es, &et, &u) != 2)
			continue;
		expected++;
		struct fcost key = {.name = lines[*at] + u};
		struct fcost *f = bsearch(&key, c, n, sizeof(*c), by_name);
		if (!f || f->self != es || f->total != et) {
			if (bad++ < 5)
				t_fail(
				    __FILE__, __LINE__,
				    "%s: thread %s: function '%s': self %lld total %lld, expected "
				    "%lld %lld",
				    what, h + used, key.name, f ? (long long)f->self : -1LL,
				    f ? (long long)f->total : -1LL, es, et);
		}
	}
	if (expected != n)
		t_fail(__FILE__, __LINE__, "%s: thread %s: %u functions, expected %u", what,
		       h + used, n, expected);
	free(c);
}

static char **read_lines(const char *path, uint32_t *n, char **buf)
{
	size_t len;
	*buf = t_read_file(path, &len);
	*n = 0;
	if (!*buf)
		return NULL;
	char **lines = calloc(len + 1, sizeof(char *));
	for (char *s = *buf; *s;) {
		char *e = strchr(s, '\n');
		if (e)
			*e = 0;
		lines[(*n)++] = s;
		if (!e)
			break;
		s = e + 1;
	}
	return lines;
}

/*
 * Each expected thread is the profile's thread of the same tid and name, in the profile's
 * default metric (the format's weights).
 */
static void check_threads(const char *data, const char *expected)
{
	struct pv_profile *p = t_load(t_data(data));
	uint32_t nlines;
	char *buf;
	char **lines = read_lines(t_data(expected), &nlines, &buf);
	T_TRUE(lines != NULL);
	if (!p || !lines)
		goto out;
	uint32_t nthreads = 0;
	for (uint32_t at = 0; at < nlines;) {
		long long tid;
		int used = 0;
		if (sscanf(lines[at], "thread\t%lld\t%*d\t%*d\t%n", &tid, &used) != 1 || !used) {
			at++;
			continue;
		}
		nthreads++;
		pv_thread_ix th = PV_NONE;
		for (uint32_t t = 0; t < p->threads.len; t++)
			if (p->threads.tid[t] == tid &&
			    strcmp(pv_str(p, p->threads.name[t]), lines[at] + used) == 0)
				th = t;
		if (th == PV_NONE) {
			t_fail(__FILE__, __LINE__, "%s: no thread '%s' of tid %lld", data,
			       lines[at] + used, tid);
			at++;
			continue;
		}
		compare_block(p, th, p->meta.default_metric, lines, nlines, &at, data);
	}
	T_EQ_INT(p->threads.len, nthreads);
out:
	free(lines);
	free(buf);
	pv_profile_free(p);
}

/*
 * DHAT: the Firefox Profiler makes four "threads" of one allocation per program point, each
 * weighing one byte figure; profview has one thread and those figures as metrics.
 */
T_TEST(ff_oracle_dhat)
{
	static const char *const metric_of[][2] = {
	    {"Total Bytes", "total bytes"},
	    {"Maximum Bytes", "max bytes"},
	    {"Bytes at Global Max", "bytes at global max"},
	    {"Bytes at End", "bytes at end"},
	};
	struct pv_profile *p = t_load(t_data("dhat/dhat.json.gz"));
	uint32_t nlines;
	char *buf;
	char **lines = read_lines(t_data("dhat/dhat.json.gz.expected"), &nlines, &buf);
	T_TRUE(lines != NULL);
	if (p && lines) {
		T_EQ_INT(p->threads.len, 1);
		uint32_t blocks = 0;
		for (uint32_t at = 0; at < nlines;) {
			const char *name = strrchr(lines[at], '\t');
			const char *metric = NULL;
			for (size_t i = 0; name && i < 4; i++)
				if (strcmp(name + 1, metric_of[i][0]) == 0)
					metric = metric_of[i][1];
			if (!metric) {
				at++;
				continue;
			}
			blocks++;
			pv_metric_ix m = pv_metric_find(p, metric);
			T_TRUE(m != PV_NONE);
			/* the expected tid is the Firefox Profiler's thread index: the check is of
			 * the samples, weights and functions */
			compare_block(p, 0, m, lines, nlines, &at, "dhat");
		}
		T_EQ_INT(blocks, 4);
	}
	free(lines);
	free(buf);
	pv_profile_free(p);
}

/* A small DHAT file by hand: two program points of three frames, figures as metrics. */
#define DHAT_HEAD                                                                               \
	"{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"Allocated\",\"bklt\":true,"        \
	"\"bkacc\":true,\"tu\":\"instrs\",\"Mtu\":\"Minstr\",\"tuth\":500,\"cmd\":\"./a.out\"," \
	"\"pid\":42,\"te\":1000,\"tg\":500,"

T_TEST(dhat_small_by_hand)
{
	const char *text = DHAT_HEAD
	    "\"pps\":[{\"tb\":100,\"tbk\":2,\"tl\":300,\"mb\":64,\"mbk\":1,\"gb\":64,\"gbk\":1,"
	    "\"eb\":0,\"ebk\":0,\"rb\":10,\"wb\":20,\"acc\":[-3,4],\"fs\":[1,2]},"
	    "{\"tb\":7,\"tbk\":1,\"tl\":5,\"mb\":7,\"mbk\":1,\"gb\":0,\"gbk\":0,\"eb\":7,\"ebk\":1,"
	    "\"rb\":0,\"wb\":7,\"fs\":[3,2]}],"
	    "\"ftbl\":[\"[root]\",\"0x4C2A: malloc (in /usr/lib/vgpreload_dhat.so)\","
	    "\"0x10A0: main (a.c:12:3)\",\"0x10B0: f(int) (b.c:7)\"]}";
	struct pv_profile *p = t_load_text("a.json", text, "dhat");
	if (!p)
		return;
	T_EQ_INT(p->threads.len, 1);
	T_EQ_INT(p->threads.pid[0], 42);
	T_EQ_STR(pv_str(p, p->threads.name[0]), "./a.out");
	T_EQ_INT(p->samples.len, 2);
	T_EQ_INT(p->metrics.len, 11);
	T_EQ_INT(t_total_named(p, "total bytes"), 107);
	T_EQ_INT(t_total_named(p, "lifetime"), 305);
	T_EQ_INT(t_total_named(p, "bytes at end"), 7);
	T_EQ_INT(t_total_named(p, "writes"), 27);
	T_EQ_INT(p->metrics.unit[pv_metric_find(p, "lifetime")], PV_UNIT_INSTRUCTIONS);
	char path[256];
	t_stack_path(p, p->samples.stack[0], ";", path, sizeof(path));
	T_EQ_STR(path, "./a.out;main;malloc");
	t_stack_path(p, p->samples.stack[1], ";", path, sizeof(path));
	T_EQ_STR(path, "./a.out;main;f(int)");
	/* source positions: main's frame at a.c:12:3, malloc in its module */
	pv_func_ix f = t_find_func(p, "main");
	T_TRUE(f != PV_NONE);
	T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, f)]), "a.c");
	pv_stack_ix s = p->stacks.prefix[p->samples.stack[0]];
	T_EQ_INT(pv_frame_line(p, p->stacks.frame[s]), 12);
	T_EQ_INT(pv_frame_column(p, p->stacks.frame[s]), 3);
	f = t_find_func(p, "malloc");
	T_EQ_STR(pv_str(p, p->modules.name[pv_func_module(p, f)]), "vgpreload_dhat.so");
	T_EQ_INT(t_diag_count(p, "'acc'"), 1);
	pv_profile_free(p);
}

T_TEST(dhat_bad_input)
{
	t_expect_error("a.json", "{\"dhatFileVersion\":1,\"pps\":[],\"ftbl\":[]}", "dhat",
		       PV_EPARSE, "a.json: line 1, column 20: expected dhatFileVersion 2", NULL);
	t_expect_error("a.json", DHAT_HEAD "\"pps\":[{\"tb\":1,\"fs\":[0,5]}],\"ftbl\":[\"x\"]}",
		       "dhat", PV_EPARSE, "frame index 5 is past the frame table", NULL);
	t_expect_error("a.json", DHAT_HEAD "\"pps\":[{\"tb\":\"1\",\"fs\":[0]}],\"ftbl\":[\"x\"]}",
		       "dhat", PV_EPARSE, "expected 'tb' (a number), found a string", NULL);
	t_expect_error("a.json", DHAT_HEAD "\"pps\":[{\"tb\":1}],\"ftbl\":[]}", "dhat", PV_EPARSE,
		       "a program point without 'fs'", NULL);
	t_expect_error("a.json", DHAT_HEAD "\"pps\":[]}", "dhat", PV_EPARSE, "without 'ftbl'",
		       NULL);
	t_expect_error("a.json", DHAT_HEAD "\"pps\":[{\"tb\":1,\"fs\":[-1]}],\"ftbl\":[]}", "dhat",
		       PV_EPARSE, "expected a frame index, found -1", NULL);
}

/* ART method traces: the samples the Firefox Profiler makes from the enter and exit times. */
T_TEST(ff_oracle_art_trace)
{
	check_threads("art/art-trace-regular.trace.gz", "art/art-trace-regular.trace.gz.expected");
	check_threads("art/art-trace-streaming.trace.gz",
		      "art/art-trace-streaming.trace.gz.expected");
}

T_TEST(art_trace_bad_input)
{
	t_expect_error("a.trace",
		       "*version\n3\nclock=dual\n*threads\n1\tmain\n*methods\n*end\nXXXX",
		       "art-trace", PV_EPARSE,
		       "byte 52: expected the binary header (16 bytes), found the end", NULL);
	t_expect_error("a.trace", "*version\n3\n*methods\n", "art-trace", PV_EPARSE,
		       "expected '*threads'", NULL);
	t_expect_error("a.trace", "SLOW\x03\xf0\x20\x00", "art-trace", PV_EPARSE,
		       "expected the binary header", NULL);
}

/* simpleperf's report-sample records: cpu-clock weighs ms in the Firefox Profiler, ns here. */
T_TEST(ff_oracle_simpleperf)
{
	check_threads("simpleperf/simpleperf-cpu-clock.trace.gz",
		      "simpleperf/simpleperf-cpu-clock.trace.gz.expected");
	/* no cpu-clock event type: samples counted, as the Firefox Profiler does */
	check_threads("simpleperf/simpleperf-task-clock.trace.gz",
		      "simpleperf/simpleperf-task-clock.trace.gz.expected");
}

/* Appends a u32 size and the n bytes of a record at buf + *at. */
static void sp_record(char *buf, size_t *at, const char *rec, size_t n)
{
	for (int i = 0; i < 4; i++)
		buf[(*at)++] = (char)((n >> (8 * i)) & 0xff);
	memcpy(buf + *at, rec, n);
	*at += n;
}

#define SP_REC(buf, at, lit) sp_record(buf, at, lit, sizeof(lit) - 1)

/* The head, a meta record (cpu-clock, sched), a file of two symbols and thread 5. */
static size_t sp_head(char *buf)
{
	size_t at = 12;
	memcpy(buf, "SIMPLEPERF\x01\x00", 12);
	SP_REC(buf, &at,
	       "\x2a\x19\x0a\x09"
	       "cpu-clock"
	       "\x0a\x0c"
	       "sched:switch");
	SP_REC(buf, &at, "\x1a\x25\x08\x00\x12\x13/system/lib/libc.so\x1a\x06malloc\x1a\x04main");
	SP_REC(buf, &at, "\x22\x0a\x08\x05\x10\x05\x1a\x04main");
	return at;
}

T_TEST(simpleperf_by_hand)
{
	char buf[512];
	size_t at = sp_head(buf);
	/* t=1000 ns, tid 5, malloc (0x10) under main (0x20), 250000 ns of cpu-clock */
	SP_REC(buf, &at,
	       "\x0a\x1b\x08\xe8\x07\x10\x05\x1a\x06\x08\x10\x10\x00\x18\x00"
	       "\x1a\x06\x08\x20\x10\x00\x18\x01\x20\x90\xa1\x0f\x28\x00");
	/* t=2000, an entry without symbol (0x44), 3 sched switches */
	SP_REC(buf, &at,
	       "\x0a\x11\x08\xd0\x0f\x10\x05\x1a\x06\x08\x44\x10\x00\x18\x7f"
	       "\x20\x03\x28\x01");
	/* a sample of thread 9, which no Thread record declares */
	SP_REC(buf, &at, "\x0a\x04\x08\x01\x10\x09");
	memset(buf + at, 0, 4);
	at += 4;
	struct pv_profile *p = t_load_mem("a.trace", buf, at);
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.format), "simpleperf");
	T_EQ_INT(p->threads.len, 1);
	T_EQ_INT(p->threads.tid[0], 5);
	T_EQ_INT(p->samples.len, 2);
	T_EQ_INT(p->samples.time_ns[1], 2000);
	T_EQ_STR(pv_str(p, p->metrics.name[p->meta.default_metric]), "cpu-clock");
	T_EQ_INT(t_total_named(p, "cpu-clock"), 250000);
	T_EQ_INT(t_total_named(p, "sched:switch"), 3);
	T_EQ_INT(t_total_named(p, "samples"), 2);
	char path[256];
	t_stack_path(p, p->samples.stack[0], ";", path, sizeof(path));
	T_EQ_STR(path, "main;malloc");
	/* symbol 127 is past the table of two: named by address */
	t_stack_path(p, p->samples.stack[1], ";", path, sizeof(path));
	T_EQ_STR(path, "libc.so+0x44");
	T_EQ_INT(t_diag_count(p, "without a Thread record"), 1);
	T_EQ_INT(t_diag_count(p, "past their file's table"), 1);
	pv_profile_free(p);
}

T_TEST(simpleperf_bad_input)
{
	char buf[512];
	struct pv_profile *p = NULL;
	struct pv_error err;
	t_expect_error("a.trace", "SIMPLEPERF", "simpleperf", PV_EPARSE,
		       "a.trace: byte 0: expected the magic 'SIMPLEPERF' and a version", NULL);
	size_t at = sp_head(buf);
	/* no closing size 0 */
	T_EQ_INT(t_import_text("a.trace", buf, at, NULL, &p, &err), PV_EPARSE);
	T_CONTAINS(err.msg, "a.trace: byte 102: expected a record size (4 bytes) or the closing "
			    "0, found the end of the file");
	/* a record past the end */
	memcpy(buf + at, "\x20\x00\x00\x00\x0a", 5);
	T_EQ_INT(t_import_text("a.trace", buf, at + 5, NULL, &p, &err), PV_EPARSE);
	T_CONTAINS(err.msg,
		   "byte 102: record size 32 runs past the end of the file (1 bytes left)");
	/* a record that is no Record message (a length past its end) */
	size_t k = at;
	SP_REC(buf, &k, "\x0a\x30\x08");
	memset(buf + k, 0, 4);
	T_EQ_INT(t_import_text("a.trace", buf, k + 4, NULL, &p, &err), PV_EPARSE);
	T_CONTAINS(err.msg, "byte 106: expected a simpleperf Record message (3 bytes)");
	/* an entry of file 7 */
	k = at;
	SP_REC(buf, &k, "\x0a\x0a\x08\x01\x10\x05\x1a\x04\x08\x01\x10\x07");
	memset(buf + k, 0, 4);
	T_EQ_INT(t_import_text("a.trace", buf, k + 4, NULL, &p, &err), PV_EPARSE);
	T_CONTAINS(err.msg, "byte 106: a call chain entry of file id 7, which no File record "
			    "declares");
}

/*
 * A raw V8 --prof log equals what Node's tick processor makes of it: the .preprocessed.json next
 * to it is `node --prof-process --preprocess` of the log (Node 20; see tests/data/v8log/README.md),
 * read by the v8log importer. Same ticks, same times, same functions with the same self and
 * total.
 */
T_TEST(v8raw_equals_node_preprocess)
{
	struct pv_profile *raw = t_load(t_data("v8log/isolate-0x102802600-v8.log"));
	struct pv_profile *pre =
	    t_load(t_data("v8log/isolate-0x102802600-v8.log.preprocessed.json"));
	if (!raw || !pre)
		goto out;
	T_EQ_STR(pv_str(raw, raw->meta.format), "v8raw");
	T_EQ_INT(raw->samples.len, 93);
	T_EQ_INT(pre->samples.len, 93);
	uint32_t n1, n2, s1, s2;
	int64_t w1, w2;
	struct fcost *a = costs(raw, 0, raw->meta.default_metric, &n1, &s1, &w1);
	struct fcost *b = costs(pre, 0, pre->meta.default_metric, &n2, &s2, &w2);
	T_EQ_INT(n1, n2);
	T_EQ_INT(w1, w2);
	uint32_t bad = 0;
	for (uint32_t i = 0; i < n1 && i < n2; i++)
		if ((strcmp(a[i].name, b[i].name) || a[i].self != b[i].self ||
		     a[i].total != b[i].total) &&
		    bad++ < 5)
			t_fail(__FILE__, __LINE__,
			       "raw '%s' %lld/%lld, preprocessed '%s' %lld/%lld", a[i].name,
			       (long long)a[i].self, (long long)a[i].total, b[i].name,
			       (long long)b[i].self, (long long)b[i].total);
	free(a);
	free(b);
out:
	pv_profile_free(raw);
	pv_profile_free(pre);
}

T_TEST(v8raw_bad_input)
{
	t_expect_error("a.log", "v8-version,6\ntick,0x10,zz,0,0x0,4\n", "v8raw", PV_EPARSE,
		       "a.log: line 2, column 11: expected the time (a number), found 'zz'", NULL);
	t_expect_error("a.log", "code-creation,Stub,3,4225,0x3a00,374,\"JSEntry\n", "v8raw",
		       PV_EPARSE, "line 1, column 38: expected the closing '\"' of a name", NULL);
	t_expect_error("a.log", "shared-library,\"/x\"\n", "v8raw", PV_EPARSE,
		       "line 1, column 1: expected shared-library,\"PATH\",START,END", NULL);
}

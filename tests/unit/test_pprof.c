/*
 * test_pprof.c - the pprof (profile.proto) importer.
 *
 * The corpus figures are those of tests/data/pprof/pbsummary.py, an independent reading of the
 * wire format (tests/data/pprof/README.md). The other profiles are written here by a small
 * protobuf encoder of our own, so the importer's decoding (protobuf-c) is checked against bytes
 * it did not make.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/import.h"
#include "pv/profile.h"
#include "pv/rows.h"
#include "pv/view.h"
#include "t.h"
#include "tp.h"

/* ---- a protobuf writer ---- */

struct pb {
	unsigned char *p;
	size_t n, cap;
};

static void pb_byte(struct pb *b, unsigned char c)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 256;
		b->p = realloc(b->p, b->cap);
	}
	b->p[b->n++] = c;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	while (v >= 0x80) {
		pb_byte(b, (unsigned char)(v | 0x80));
		v >>= 7;
	}
	pb_byte(b, (unsigned char)v);
}

static void pb_int(struct pb *b, unsigned field, int64_t v)
{
	pb_varint(b, (uint64_t)field << 3);
	pb_varint(b, (uint64_t)v);
}

static void pb_bytes(struct pb *b, unsigned field, const void *d, size_t n)
{
	pb_varint(b, (uint64_t)field << 3 | 2);
	pb_varint(b, n);
	for (size_t i = 0; i < n; i++)
		pb_byte(b, ((const unsigned char *)d)[i]);
}

/* Appends sub as a nested message and empties it. */
static void pb_msg(struct pb *b, unsigned field, struct pb *sub)
{
	pb_bytes(b, field, sub->p, sub->n);
	sub->n = 0;
}

static void pb_packed(struct pb *b, unsigned field, const uint64_t *v, size_t n)
{
	struct pb t = {0};
	for (size_t i = 0; i < n; i++)
		pb_varint(&t, v[i]);
	pb_bytes(b, field, t.p, t.n);
	free(t.p);
}

enum {
	S_EMPTY,
	S_SAMPLES,
	S_COUNT,
	S_CPU,
	S_US,
	S_MAIN,
	S_WORK,
	S_INL,
	S_LEAF,
	S_DROP,
	S_PROG,
	S_LIBFOO,
	S_THREAD,
	S_WORKER,
	S_BYTES,
	S_MAINC,
	S_DROPRE,
	S_BUILDID,
	S_COMMENT,
	S_KEEPRE,
	NSTR
};
static const char *const strtab[NSTR] = {
    "",
    "samples",
    "count",
    "cpu",
    "microseconds",
    "main",
    "work",
    "inl_helper",
    "leaf",
    "drop_me(int)",
    "/usr/bin/prog",
    "/usr/lib/libfoo.so.1",
    "thread",
    "worker-1",
    "bytes",
    "main.c",
    "drop_.*",
    "abc123",
    "made by test_pprof.c",
    "drop_me",
};

static void value_type(struct pb *b, unsigned field, int64_t type, int64_t unit)
{
	struct pb t = {0};
	pb_int(&t, 1, type);
	pb_int(&t, 2, unit);
	pb_msg(b, field, &t);
	free(t.p);
}

static void location(struct pb *b, uint64_t id, uint64_t mapping, uint64_t addr,
		     const uint64_t *fns, const int64_t *lines, size_t n)
{
	struct pb l = {0}, ln = {0};
	pb_int(&l, 1, (int64_t)id);
	pb_int(&l, 2, (int64_t)mapping);
	pb_int(&l, 3, (int64_t)addr);
	for (size_t i = 0; i < n; i++) {
		pb_int(&ln, 1, (int64_t)fns[i]);
		pb_int(&ln, 2, lines[i]);
		pb_msg(&l, 4, &ln);
	}
	pb_msg(b, 4, &l);
	free(l.p);
	free(ln.p);
}

static void sample(struct pb *b, const uint64_t *locs, size_t nl, int64_t v0, int64_t v1,
		   int labels)
{
	struct pb s = {0}, lb = {0};
	pb_packed(&s, 1, locs, nl);
	uint64_t v[2] = {(uint64_t)v0, (uint64_t)v1};
	pb_packed(&s, 2, v, 2);
	if (labels) {
		pb_int(&lb, 1, S_THREAD);
		pb_int(&lb, 2, S_WORKER);
		pb_msg(&s, 3, &lb);
		pb_int(&lb, 1, S_BYTES);
		pb_int(&lb, 3, 4096);
		pb_int(&lb, 4, S_BYTES);
		pb_msg(&s, 3, &lb);
	}
	pb_msg(b, 2, &s);
	free(s.p);
	free(lb.p);
}

/*
 * A profile with two sample types (count, microseconds), two mappings, an inlined location, an
 * unsymbolized one, labels, drop_frames (and keep_frames when keep), default_sample_type.
 */
static struct pb make_profile(int keep)
{
	struct pb b = {0}, t = {0};
	value_type(&b, 1, S_SAMPLES, S_COUNT);
	value_type(&b, 1, S_CPU, S_US);
	uint64_t s1[] = {3, 2, 1}, s2[] = {4, 1}, s3[] = {3, 5, 1}, s4[] = {1};
	sample(&b, s1, 3, 1, 10, 1);
	sample(&b, s2, 2, 2, 20, 1);
	sample(&b, s3, 3, 3, 30, 0);
	sample(&b, s4, 1, 4, 40, 0);
	/* mappings */
	pb_int(&t, 1, 1);
	pb_int(&t, 2, 0x400000);
	pb_int(&t, 3, 0x500000);
	pb_int(&t, 5, S_PROG);
	pb_int(&t, 6, S_BUILDID);
	pb_msg(&b, 3, &t);
	pb_int(&t, 1, 2);
	pb_int(&t, 2, 0x7f0000000000);
	pb_int(&t, 3, 0x7f0000100000);
	pb_int(&t, 4, 0x2000);
	pb_int(&t, 5, S_LIBFOO);
	pb_msg(&b, 3, &t);
	/* locations: 2 is work with inl_helper inlined into it (the last line is the outer) */
	uint64_t f1[] = {1}, f2[] = {3, 2}, f3[] = {4}, f5[] = {6};
	int64_t l1[] = {12}, l2[] = {30, 20}, l3[] = {5}, l5[] = {1};
	location(&b, 1, 1, 0x401000, f1, l1, 1);
	location(&b, 2, 1, 0x402000, f2, l2, 2);
	location(&b, 3, 2, 0x7f0000001000, f3, l3, 1);
	location(&b, 4, 2, 0x7f0000002000, NULL, NULL, 0);
	location(&b, 5, 1, 0x403000, f5, l5, 1);
	/* functions */
	static const int64_t names[] = {S_MAIN, S_WORK, S_INL, S_LEAF, 0, S_DROP};
	for (int i = 0; i < 6; i++) {
		if (!names[i])
			continue;
		pb_int(&t, 1, i + 1);
		pb_int(&t, 2, names[i]);
		pb_int(&t, 4, S_MAINC);
		pb_int(&t, 5, 10 * (i + 1));
		pb_msg(&b, 5, &t);
	}
	for (int i = 0; i < NSTR; i++)
		pb_bytes(&b, 6, strtab[i], strlen(strtab[i]));
	pb_int(&b, 7, S_DROPRE);
	if (keep)
		pb_int(&b, 8, S_KEEPRE);
	pb_int(&b, 9, 1700000000000000000);
	pb_int(&b, 10, 2000000000);
	value_type(&b, 11, S_CPU, S_US);
	pb_int(&b, 12, 1000);
	pb_int(&b, 13, S_COMMENT);
	pb_int(&b, 14, S_SAMPLES);
	free(t.p);
	return b;
}

/* The function names of sample i's stack, root first, joined by ';' (with "+N" inline depths). */
static void stack_text(const struct pv_profile *p, uint32_t i, char *buf, size_t n)
{
	pv_stack_ix path[64];
	uint32_t d = 0;
	for (pv_stack_ix s = p->samples.stack[i]; s != PV_NONE && d < 64; s = p->stacks.prefix[s])
		path[d++] = s;
	buf[0] = 0;
	while (d--) {
		pv_frame_ix f = p->stacks.frame[path[d]];
		size_t used = strlen(buf);
		snprintf(buf + used, n - used, "%s%s", used ? ";" : "",
			 pv_str(p, p->funcs.name[p->frames.func[f]]));
		if (pv_frame_inline_depth(p, f)) {
			used = strlen(buf);
			snprintf(buf + used, n - used, "+%u", pv_frame_inline_depth(p, f));
		}
	}
}

static struct pv_profile *import_pb(const struct pb *b, const char *format)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	if (pv_import_memory("test.pb", b->p, b->n, format, &p, &err)) {
		t_fail(__FILE__, __LINE__, "import: %s", err.msg);
		return NULL;
	}
	if (pv_profile_validate(p, &err)) {
		t_fail(__FILE__, __LINE__, "invalid: %s", err.msg);
		pv_profile_free(p);
		return NULL;
	}
	return p;
}

T_TEST(pprof_written_profile)
{
	struct pb b = make_profile(0);
	struct pv_profile *p = import_pb(&b, NULL); /* found by the probe, not gzip */
	free(b.p);
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.format), "pprof");
	T_EQ_INT(p->metrics.len, 2);
	T_EQ_STR(pv_str(p, p->metrics.name[0]), "samples");
	T_EQ_INT(p->metrics.unit[0], PV_UNIT_COUNT);
	T_EQ_STR(pv_str(p, p->metrics.name[1]), "cpu");
	T_EQ_INT(p->metrics.unit[1], PV_UNIT_NS);
	T_EQ_INT(p->meta.default_metric, 0); /* default_sample_type, not the last */
	T_EQ_INT(p->meta.interval_ns, 1000000);
	T_EQ_INT(p->meta.start_unix_ns, 1700000000000000000);
	T_EQ_INT(p->samples.len, 4);
	int64_t t0 = 0, t1 = 0;
	for (uint32_t i = 0; i < p->samples.len; i++) {
		t0 += pv_sample_weight(p, 0, i);
		t1 += pv_sample_weight(p, 1, i);
	}
	T_EQ_INT(t0, 10);
	T_EQ_INT(t1, 100000); /* microseconds in ns */
	char buf[512];
	stack_text(p, 0, buf, sizeof(buf));
	T_EQ_STR(buf, "main;work;inl_helper+1;leaf");
	stack_text(p, 1, buf, sizeof(buf));
	T_EQ_STR(buf, "main;0x7f0000002000");
	stack_text(p, 2, buf, sizeof(buf));
	T_EQ_STR(buf, "main"); /* drop_me(int) matched drop_.*: it and its callees are gone */
	stack_text(p, 3, buf, sizeof(buf));
	T_EQ_STR(buf, "main");
	/* modules: the main binary and a library, addresses relative to them */
	T_EQ_INT(p->modules.len, 2);
	T_EQ_STR(pv_str(p, p->modules.name[0]), "prog");
	T_EQ_INT(p->modules.kind[0], PV_MODULE_BINARY);
	T_EQ_STR(pv_str(p, p->modules.name[1]), "libfoo.so.1");
	T_EQ_STR(pv_str(p, p->modules.path[1]), "/usr/lib/libfoo.so.1");
	T_EQ_INT(p->modules.kind[1], PV_MODULE_LIBRARY);
	pv_frame_ix leaf = p->stacks.frame[p->samples.stack[0]];
	T_EQ_U64(pv_frame_addr(p, leaf), 0x1000 + 0x2000);
	T_EQ_INT(pv_frame_line(p, leaf), 5);
	pv_func_ix lf = p->frames.func[leaf];
	T_EQ_INT(pv_func_module(p, lf), 1);
	T_EQ_INT(pv_func_line(p, lf), 40);
	T_EQ_STR(pv_str(p, p->sources.path[pv_func_source(p, lf)]), "main.c");
	/* labels: string and numeric with unit, usable as key=value filters */
	T_TRUE(p->samples.label_set != NULL);
	if (p->samples.label_set) {
		uint32_t s0 = p->samples.label_set[0];
		T_TRUE(s0 != 0);
		T_EQ_INT(p->samples.label_set[1], s0); /* the same set, interned once */
		T_EQ_INT(p->samples.label_set[2], 0);
		T_TRUE(pv_label_set_has(p, s0, "thread", "worker-1"));
		T_TRUE(pv_label_set_has(p, s0, "bytes", "4096"));
		T_TRUE(pv_label_set_has(p, s0, "bytes", "4096bytes"));
		T_TRUE(!pv_label_set_has(p, s0, "bytes", "4097"));
		T_TRUE(!pv_label_set_has(p, s0, "thread", "worker-2"));
		T_TRUE(!pv_label_set_has(p, 0, "thread", "worker-1"));
		T_EQ_INT(p->labels.len, 2);
		T_EQ_INT(p->label_sets.len, 2);
	}
	/* --tag keeps the labelled samples (counts 1 + 2), --drop-tag the others (3 + 4) */
	static const struct {
		const char *opt, *arg;
		int64_t total;
		uint64_t samples;
	} tags[] = {
	    {"tag", "thread=worker-1", 3, 2},	   {"tag", "bytes=4096bytes", 3, 2},
	    {"drop-tag", "thread=worker-1", 7, 2}, {"tag", "thread=worker-2", 0, 0},
	    {"drop-tag", "bytes=1", 10, 4},
	};
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		struct pv_query q;
		struct pv_error err = {0};
		pv_query_init(&q);
		T_EQ_INT(pv_query_set_option(&q, tags[i].opt, tags[i].arg, &err), 0);
		T_EQ_INT(pv_query_set_option(&q, "metric", "samples", &err), 0);
		struct pv_view *v = NULL;
		T_EQ_INT(pv_view_compute(p, &q, &v, &err), 0);
		if (v) {
			T_EQ_INT(v->whole[0], tags[i].total); /* nostack included */
			T_EQ_U64(v->nr_samples, tags[i].samples);
		}
		pv_view_free(v);
		pv_query_release(&q);
	}
	{
		/* a label key the profile lacks is an error, like a scope matching nothing */
		struct pv_query q;
		struct pv_error err = {0};
		pv_query_init(&q);
		T_EQ_INT(pv_query_set_option(&q, "tag", "nosuch=1", &err), 0);
		struct pv_view *v = NULL;
		T_EQ_INT(pv_view_compute(p, &q, &v, &err), PV_EINVAL);
		T_EQ_STR(err.msg, "--tag 'nosuch=1': the profile has no label 'nosuch'");
		T_EQ_INT(pv_query_set_option(&q, "tag", "novalue", &err), PV_EINVAL);
		T_EQ_STR(err.msg, "--tag takes a label KEY=VALUE, not 'novalue'");
		pv_query_release(&q);
	}
	/* the report: what the model does not keep */
	T_TRUE(t_diag(p, "period 1000 (period_type cpu/microseconds)", NULL));
	T_TRUE(t_diag(p, "duration 2000000000 ns", NULL));
	T_TRUE(t_diag(p, "comment: made by test_pprof.c", NULL));
	T_TRUE(t_diag(p, "mapping build ids not kept", NULL));
	T_TRUE(t_diag(p, "samples cut by the profile's drop_frames 'drop_.*'", NULL));
	pv_profile_free(p);

	/* keep_frames overrides drop_frames */
	b = make_profile(1);
	p = import_pb(&b, "pprof");
	free(b.p);
	if (!p)
		return;
	stack_text(p, 2, buf, sizeof(buf));
	T_EQ_STR(buf, "main;drop_me(int);leaf");
	T_TRUE(!t_diag(p, "samples cut", NULL));
	pv_profile_free(p);
}

struct corpus_case {
	const char *path;
	uint32_t samples;
	const char *m0, *m1;
	int64_t t0, t1;
	uint32_t nmetrics, default_metric;
};

/* Figures of tests/data/pprof/pbsummary.py (README.md there). */
T_TEST(pprof_corpus)
{
	static const struct corpus_case cases[] = {
	    {"speedscope/pprof/simple.prof", 9, "samples", "cpu", 150, 1500000000, 2, 1},
	    {"pprof/internal/driver/testdata/cppbench.cpu_no_samples_type", 52, "cpu", NULL,
	     7120000000, 0, 1, 0},
	    {"pprof/internal/driver/testdata/go.nomappings.crash", 2, "alloc_objects",
	     "alloc_space", 2, 1765955, 4, 3},
	    {"pprof/internal/proftest/testdata/large.cpu", 20430, "samples", "cpu", 24029,
	     240290000000, 2, 1},
	    {"pprof/internal/report/testdata/sample.cpu", 76, "samples", "cpu", 176, 1760000000, 2,
	     1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct corpus_case *c = &cases[i];
		struct pv_profile *p = NULL;
		struct pv_error err;
		if (pv_import_file(t_corpus(c->path), NULL, &p, &err)) {
			t_fail(__FILE__, __LINE__, "%s: %s", c->path, err.msg);
			continue;
		}
		T_EQ_INT(pv_profile_validate(p, &err), 0);
		T_EQ_STR(pv_str(p, p->meta.format), "pprof");
		T_EQ_INT(p->samples.len, c->samples);
		T_EQ_INT(p->metrics.len, c->nmetrics);
		T_EQ_INT(p->meta.default_metric, c->default_metric);
		T_EQ_STR(pv_str(p, p->metrics.name[0]), c->m0);
		int64_t t0 = 0, t1 = 0;
		for (uint32_t s = 0; s < p->samples.len; s++) {
			t0 += pv_sample_weight(p, 0, s);
			if (c->m1)
				t1 += pv_sample_weight(p, 1, s);
		}
		T_EQ_INT(t0, c->t0);
		if (c->m1) {
			T_EQ_STR(pv_str(p, p->metrics.name[1]), c->m1);
			T_EQ_INT(t1, c->t1);
		}
		pv_profile_free(p);
	}
	/* sample.cpu: inlined Go functions become inline frames */
	struct pv_profile *p = NULL;
	struct pv_error err;
	if (pv_import_file(t_corpus("pprof/internal/report/testdata/sample.cpu"), NULL, &p, &err) ==
	    0) {
		uint32_t inl = 0;
		for (uint32_t f = 0; f < p->frames.len; f++)
			inl += pv_frame_inline_depth(p, f) > 0;
		T_TRUE(inl > 0);
		T_EQ_INT(p->modules.len, 3);
		T_EQ_INT(p->modules.kind[0], PV_MODULE_BINARY);
		pv_profile_free(p);
	}
}

/* The rows of a view of the written profile: "name/kind total self" joined by ", ". */
static void rows_text(struct pv_profile *p, enum pv_view_kind view, const char *const *opts,
		      char *buf, size_t n)
{
	struct pv_query q;
	struct pv_error err = {0};
	pv_query_init(&q);
	q.view = view;
	for (const char *const *o = opts; o && *o; o += 2)
		T_EQ_INT(pv_query_set_option(&q, o[0], o[1], &err), 0);
	struct pv_view *v = NULL;
	T_EQ_INT(pv_view_compute(p, &q, &v, &err), 0);
	buf[0] = 0;
	for (uint32_t r = 0; v && r < v->flat->len; r++) {
		char b[64];
		size_t used = strlen(buf);
		snprintf(buf + used, n - used, "%s%s/%s %lld %lld", used ? ", " : "",
			 pv_view_row_name(v, v->flat->kind[r], v->flat->id[r], b, sizeof(b),
					  v->flat->line[r]),
			 pv_row_kind_name(v->flat->kind[r], v->flat->inlined[r]),
			 (long long)v->flat->total[0][r], (long long)v->flat->self[0][r]);
	}
	pv_view_free(v);
	pv_query_release(&q);
}

/*
 * Location 2 holds two lines: inl_helper (line 30) inlined into work (line 20), its last line.
 * Kept, inl_helper is a frame of kind inline; folded (pprof -noinlines keeps a location's last
 * line), its cost is work's, at work's line 20. Sample 1 (count 1) is main;work;inl_helper;leaf.
 */
T_TEST(pprof_inline_fold)
{
	struct pb b = make_profile(0);
	struct pv_profile *p = import_pb(&b, NULL);
	free(b.p);
	if (!p)
		return;
	static const char *const samples[] = {"metric", "samples", "sort", "total", NULL};
	static const char *const fold[] = {"metric", "samples", "sort", "total",
					   "inline", "fold",	NULL};
	static const char *const fold_lines[] = {"inline", "fold", "metric", "samples",
						 "by",	   "line", NULL};
	char buf[1024];
	/* main: 1 + 2 + 3 + 4 (sample 3 lost drop_me and below), self 3 + 4; the rest of sample
	 * 1 one each; sample 2's unsymbolized location 2 */
	rows_text(p, PV_VIEW_TOP, samples, buf, sizeof(buf));
	T_EQ_STR(buf, "main/function 10 7, 0x7f0000002000/function 2 2, leaf/function 1 1, "
		      "inl_helper/inline 1 0, work/function 1 0");
	rows_text(p, PV_VIEW_TOP, fold, buf, sizeof(buf));
	T_EQ_STR(buf, "main/function 10 7, 0x7f0000002000/function 2 2, leaf/function 1 1, "
		      "work/function 1 0");
	/* by line: the lines of location 2 are inl_helper:30 and work:20; folded, work:20 */
	rows_text(p, PV_VIEW_TOP, fold_lines, buf, sizeof(buf));
	T_EQ_STR(buf, "main:12/line 10 7, 0x7f0000002000:?/line 2 2, leaf:5/line 1 1, "
		      "work:20/line 1 0");
	rows_text(p, PV_VIEW_TOP, fold_lines + 2, buf, sizeof(buf)); /* by line, kept */
	T_EQ_STR(buf, "main:12/line 10 7, 0x7f0000002000:?/line 2 2, leaf:5/line 1 1, "
		      "inl_helper:30/line 1 0, work:20/line 1 0");
	pv_profile_free(p);
}

struct bad_case {
	size_t cut;	  /* bytes of the written profile kept (0 = all) */
	const char *tail; /* bytes appended */
	size_t tail_len;
	const char *msg;
	int64_t offset; /* -1: after the kept bytes */
};

T_TEST(pprof_malformed)
{
	struct pb good = make_profile(0);
	static const struct bad_case cases[] = {
	    {0, "\x3a\x02\x01", 3,
	     "Profile field 7: a length-delimited value where a number was expected", -1},
	    {0, "\x48\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12,
	     "Profile field 9: number longer than 64 bits", -1},
	    {0,
	     "\x32\x10"
	     "ab",
	     4, "Profile field 6: length 16 runs past the end of its message", -1},
	    {0, "\x0b", 1, "Profile field 1: wire type 3 is not supported", -1},
	    {0, "\x08\x05", 2,
	     "Profile field 1: a number where a length-delimited value was expected", -1},
	    {0, "\x12\x03\x08\x80\x80", 5, "Sample field 1: truncated number", -1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_case *c = &cases[i];
		size_t keep = c->cut ? c->cut : good.n;
		unsigned char *buf = malloc(keep + c->tail_len);
		memcpy(buf, good.p, keep);
		memcpy(buf + keep, c->tail, c->tail_len);
		struct pv_profile *p = NULL;
		struct pv_error err;
		pv_error_clear(&err);
		int rc = pv_import_memory("bad.pb", buf, keep + c->tail_len, "pprof", &p, &err);
		free(buf);
		T_EQ_INT(rc, PV_EPARSE);
		T_CONTAINS(err.msg, c->msg);
		T_EQ_INT(err.has_pos, 2);
		uint64_t want = c->offset < 0 ? keep : (uint64_t)c->offset;
		if (strstr(c->msg, "Sample field"))
			want = keep + 2; /* inside the nested sample */
		T_EQ_U64(err.offset, want);
		char at[32];
		snprintf(at, sizeof(at), "byte %llu", (unsigned long long)want);
		T_CONTAINS(err.msg, at);
		T_TRUE(strchr(err.msg, '\n') == NULL);
		if (!rc)
			pv_profile_free(p);
	}
	/* cut anywhere: an error with a position, or (cut between fields) a smaller profile */
	for (size_t cut = 1; cut < good.n; cut += 7) {
		struct pv_profile *p = NULL;
		struct pv_error err;
		pv_error_clear(&err);
		int rc = pv_import_memory("cut.pb", good.p, cut, "pprof", &p, &err);
		if (rc) {
			T_EQ_INT(rc, PV_EPARSE);
			T_EQ_INT(err.has_pos, 2);
			T_TRUE(err.offset < cut);
		} else {
			T_EQ_INT(pv_profile_validate(p, &err), 0);
			pv_profile_free(p);
		}
	}
	/* a truncated gzip profile of the corpus */
	size_t len;
	char *gz = t_read_file(t_corpus("pprof/internal/report/testdata/sample.cpu"), &len);
	if (gz) {
		struct pv_profile *p = NULL;
		struct pv_error err;
		int rc = pv_import_memory("sample.cpu", gz, len / 2, "pprof", &p, &err);
		T_TRUE(rc != 0);
		T_TRUE(err.msg[0] != 0);
		if (!rc)
			pv_profile_free(p);
		free(gz);
	}
	free(good.p);
}

/* A sample 100,000 frames deep (recursion between two locations); huge ids and values. */
T_TEST(pprof_deep_stack_and_huge_numbers)
{
	struct pb b = {0}, t = {0};
	value_type(&b, 1, S_SAMPLES, S_COUNT);
	value_type(&b, 1, S_CPU, S_US);
	uint32_t n = 100000;
	uint64_t *locs = malloc(n * sizeof(*locs));
	for (uint32_t i = 0; i < n; i++)
		locs[i] = i % 2 ? UINT64_MAX : 1;
	sample(&b, locs, n, 1, INT64_MAX / 10, 0); /* the microseconds overflow ns: saturated */
	free(locs);
	uint64_t f1[] = {1}, f2[] = {2};
	int64_t l1[] = {-5}, l2[] = {INT64_MAX};
	location(&b, 1, 0, 0x10, f1, l1, 1);
	location(&b, UINT64_MAX, 0, 0x20, f2, l2, 1);
	pb_int(&t, 1, 1);
	pb_int(&t, 2, S_MAIN);
	pb_msg(&b, 5, &t);
	pb_int(&t, 1, 2);
	pb_int(&t, 2, S_WORK);
	pb_int(&t, 4, 1000000); /* a string index past the table */
	pb_msg(&b, 5, &t);
	for (int i = 0; i < NSTR; i++)
		pb_bytes(&b, 6, strtab[i], strlen(strtab[i]));
	free(t.p);
	struct pv_profile *p = import_pb(&b, NULL);
	free(b.p);
	if (!p)
		return;
	uint32_t d = 0;
	for (pv_stack_ix s = p->samples.stack[0]; s != PV_NONE; s = p->stacks.prefix[s])
		d++;
	T_EQ_INT(d, n);
	/* saturated at int64 by the importer, then at the model's range (PV_WEIGHT_SUM_MAX) */
	T_EQ_INT(pv_sample_weight(p, 1, 0), PV_WEIGHT_SUM_MAX);
	T_TRUE(t_diag(p, "values too large for nanoseconds", NULL));
	T_TRUE(t_diag(p, "metric 'cpu': sample weights summing past 2^62", NULL));
	T_TRUE(t_diag(p, "line, column or start line numbers out of range", NULL));
	T_TRUE(t_diag(p, "string indices out of the string table", NULL));
	pv_profile_free(p);
}

T_TEST(pprof_probe)
{
	/* text and JSON are not pprof; neither is an empty input */
	static const char *const not_pprof[] = {"main;foo 1\n", "{\"a\": 1}",
						"# callgrind format\n", ""};
	for (size_t i = 0; i < sizeof(not_pprof) / sizeof(not_pprof[0]); i++) {
		struct pv_profile *p = NULL;
		struct pv_error err;
		int rc = pv_import_memory("x", not_pprof[i], strlen(not_pprof[i]), NULL, &p, &err);
		if (rc == 0) {
			T_TRUE(strcmp(pv_str(p, p->meta.format), "pprof") != 0);
			pv_profile_free(p);
		}
	}
	/*
	 * A Perfetto trace is protobuf too: repeated TracePacket packet = 1, each here a timestamp
	 * (field 8) and a trusted_packet_sequence_id (field 10). Few packets or many (past the
	 * probe's walk), it is not a profile.
	 */
	static const unsigned char packet[] = {0x0a, 0x04, 0x40, 0x01, 0x50, 0x02};
	static const size_t counts[] = {3, 5000};
	for (size_t c = 0; c < 2; c++) {
		size_t len = counts[c] * sizeof(packet);
		unsigned char *buf = malloc(len);
		if (!buf)
			continue;
		for (size_t i = 0; i < counts[c]; i++)
			memcpy(buf + i * sizeof(packet), packet, sizeof(packet));
		struct pv_profile *p = NULL;
		struct pv_error err;
		int rc = pv_import_memory("trace.perfetto-trace", buf, len, NULL, &p, &err);
		T_EQ_INT(rc, PV_EFORMAT);
		if (rc == 0)
			pv_profile_free(p);
		free(buf);
	}
}

/*
 * Two sample types of one name and unit (a fuzzer's find: it stopped with "the import broke an
 * invariant: meta.default_metric: 1 out of range"): both are read, the later one as NAME#2, and a
 * third of that name as NAME#3 even when a type is already called NAME#2.
 */
T_TEST(pprof_same_sample_type_twice)
{
	struct pb b = {0}, t = {0};
	value_type(&b, 1, S_SAMPLES, S_COUNT);
	value_type(&b, 1, S_SAMPLES, S_COUNT);
	uint64_t s1[] = {1};
	sample(&b, s1, 1, 3, 5, 0);
	sample(&b, s1, 1, 1, 2, 0);
	uint64_t f1[] = {1};
	int64_t l1[] = {12};
	location(&b, 1, 0, 0x401000, f1, l1, 1);
	pb_int(&t, 1, 1);
	pb_int(&t, 2, S_MAIN);
	pb_msg(&b, 5, &t);
	for (int i = 0; i < NSTR; i++)
		pb_bytes(&b, 6, strtab[i], strlen(strtab[i]));
	struct pv_profile *p = import_pb(&b, NULL);
	if (p) {
		T_EQ_INT(p->metrics.len, 2);
		T_EQ_STR(pv_str(p, p->metrics.name[0]), "samples");
		T_EQ_STR(pv_str(p, p->metrics.name[1]), "samples#2");
		T_EQ_INT(p->metrics.unit[1], PV_UNIT_COUNT);
		T_EQ_INT(p->meta.default_metric, 1); /* no default_sample_type: the last one */
		T_EQ_INT(p->samples.len, 2);
		T_EQ_INT(pv_sample_weight(p, 0, 0) + pv_sample_weight(p, 0, 1), 4);
		T_EQ_INT(pv_sample_weight(p, 1, 0) + pv_sample_weight(p, 1, 1), 7);
		pv_profile_free(p);
	}
	/* samples, samples#2 (by its own name), samples: the third is samples#3 */
	struct pb c = {0};
	static const char *const strs[] = {"", "samples", "count", "samples#2"};
	value_type(&c, 1, 1, 2);
	value_type(&c, 1, 3, 2);
	value_type(&c, 1, 1, 2);
	for (int i = 0; i < 4; i++)
		pb_bytes(&c, 6, strs[i], strlen(strs[i]));
	p = import_pb(&c, NULL);
	if (p) {
		T_EQ_INT(p->metrics.len, 3);
		T_EQ_STR(pv_str(p, p->metrics.name[1]), "samples#2");
		T_EQ_STR(pv_str(p, p->metrics.name[2]), "samples#3");
		pv_profile_free(p);
	}
	free(b.p);
	free(c.p);
	free(t.p);
}

/*
 * The corpus's Go CPU profile sample.cpu, its top view by line (*p, *v) and go tool pprof's
 * output for it (tests/data/<want>, returned to free()); NULL, with nothing to free, when one
 * of them cannot be had.
 */
static char *go_sample_cpu(const char *want_file, struct pv_profile **p, struct pv_view **v)
{
	*p = t_load_as(t_corpus("pprof/internal/report/testdata/sample.cpu"), "pprof");
	char *want = t_read_file(t_data(want_file), NULL);
	T_TRUE(want != NULL);
	*v = *p ? t_line_view(*p, NULL) : NULL;
	if (!*v || !want) {
		pv_view_free(*v);
		pv_profile_free(*p);
		free(want);
		return NULL;
	}
	return want;
}

/*
 * Per-line costs of a Go CPU profile against pprof's own: tests/data/pprof/sample.cpu.lines.top
 * is `go tool pprof -top -lines -nodecount=100000 -nodefraction=0 -unit=ms` of the corpus's
 * sample.cpu (go1.19.8): one row per (function, file:line) of a location's line entries, flat
 * and cum in ms. Ours: the top view by line, self and total, row for row.
 */
T_TEST(pprof_lines_equal_go_tool_pprof)
{
	struct pv_profile *p;
	struct pv_view *v;
	char *want = go_sample_cpu("pprof/sample.cpu.lines.top", &p, &v);
	if (!want)
		return;
	const struct pv_flat *f = v->flat;
	uint32_t rows = 0, lines = 0;
	for (char *l = want; l && *l;) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = 0;
		char flat[32], cum[32], name[256], place[512];
		/* "  250ms 14.20% 14.20%   250ms 14.20%  NAME FILE:LINE [(inline)]" */
		if (sscanf(l, " %31s %*s %*s %31s %*s %255s %511s", flat, cum, name, place) == 4 &&
		    strchr(place, ':')) {
			char *colon = strrchr(place, ':');
			*colon = 0;
			uint32_t line = (uint32_t)strtoul(colon + 1, NULL, 10);
			int64_t fl = strtoll(flat, NULL, 10) * 1000000,
				cu = strtoll(cum, NULL, 10) * 1000000;
			uint32_t found = 0;
			for (uint32_t r = 0; r < f->len; r++) {
				uint32_t fn = f->id[r];
				if (f->kind[r] != PV_ROW_LINE || f->line[r] != line ||
				    strcmp(pv_str(p, p->funcs.name[fn]), name) != 0 ||
				    pv_func_source(p, fn) == PV_NONE ||
				    strcmp(pv_str(p, p->sources.path[pv_func_source(p, fn)]),
					   place) != 0)
					continue;
				found++;
				if (f->self[0][r] != fl || f->total[0][r] != cu)
					t_fail(__FILE__, __LINE__,
					       "%s %s:%u: self %" PRId64 " total %" PRId64
					       ", pprof flat %" PRId64 " cum %" PRId64,
					       name, place, line, f->self[0][r], f->total[0][r], fl,
					       cu);
			}
			if (found != 1)
				t_fail(__FILE__, __LINE__, "%s %s:%u: %u rows", name, place, line,
				       found);
			lines++;
		}
		l = nl ? nl + 1 : NULL;
	}
	for (uint32_t r = 0; r < f->len; r++)
		rows += f->kind[r] == PV_ROW_LINE;
	T_EQ_INT(lines, 54);
	T_EQ_INT(rows, 54);
	pv_view_free(v);
	pv_profile_free(p);
	free(want);
}

/*
 * The source pane's addresses of a Go CPU profile against pprof's own:
 * tests/data/pprof/sample.cpu.addresses.top is `go tool pprof -top -addresses -nodecount=100000
 * -nodefraction=0 -unit=ms` of the corpus's sample.cpu (go1.19.8): one row per (address,
 * function, file:line), flat in ms. Its rows with a flat time, grouped by file:line, give each
 * line's addresses: how many, the lowest, the highest and the hottest (the lowest of equals) with
 * its flat time; pv_source_addrs must give the same for every line of every file, and no more.
 * The model keeps addresses module-relative: pprof's minus the start of the one mapping,
 * 0x400000 with file offset 0 (`go tool pprof -raw`: "1: 0x400000/0x4b5000/0x0 .../sample.bin").
 */
T_TEST(pprof_addresses_equal_go_tool_pprof)
{
	struct pv_profile *p;
	struct pv_view *v;
	char *want = go_sample_cpu("pprof/sample.cpu.addresses.top", &p, &v);
	if (!want)
		return;
	enum { MAXL = 128 };
	struct {
		char file[512];
		uint32_t line, n;
		uint64_t lo, hi, hot;
		int64_t hot_self;
	} *g = calloc(MAXL, sizeof(*g));
	uint32_t ng = 0, rows = 0;
	for (char *l = want; g && l && *l;) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = 0;
		char flat[32], addr[32], place[512];
		/* "  100ms  5.68%  5.68%   100ms  5.68%  ADDRESS NAME FILE:LINE [(inline)]" */
		if (sscanf(l, " %31s %*s %*s %*s %*s %31s %*s %511s", flat, addr, place) == 3 &&
		    strchr(place, ':') && strtoll(flat, NULL, 10) > 0) {
			char *colon = strrchr(place, ':');
			*colon = 0;
			uint32_t line = (uint32_t)strtoul(colon + 1, NULL, 10), k = 0;
			uint64_t a = strtoull(addr, NULL, 16) - 0x400000;
			int64_t fl = strtoll(flat, NULL, 10) * 1000000;
			while (k < ng && (g[k].line != line || strcmp(g[k].file, place) != 0))
				k++;
			if (k == ng && ng < MAXL) {
				snprintf(g[k].file, sizeof(g[k].file), "%s", place);
				g[k].line = line;
				g[k].lo = g[k].hi = a;
				ng++;
			}
			if (k < ng) {
				g[k].n++;
				g[k].lo = a < g[k].lo ? a : g[k].lo;
				g[k].hi = a > g[k].hi ? a : g[k].hi;
				if (fl > g[k].hot_self || (fl == g[k].hot_self && a < g[k].hot)) {
					g[k].hot = a;
					g[k].hot_self = fl;
				}
			}
			rows++;
		}
		l = nl ? nl + 1 : NULL;
	}
	T_EQ_INT(rows, 76);
	/* by hand from the file: hashmap.go:823 holds 8 addresses, 0x4095d0 the hottest (70ms) */
	uint32_t checked = 0, shown = 0, hm823 = 0;
	for (pv_source_ix id = 0; g && id < p->sources.len; id++) {
		const char *path = pv_str(p, p->sources.path[id]);
		struct pv_source_addrs *sa = NULL;
		struct pv_error err;
		T_EQ_INT(pv_source_addrs(p, &v->q, id, 2000, &sa, &err), 0);
		if (!sa)
			break;
		for (uint32_t ln = 1; ln <= 2000; ln++) {
			if (!sa->n[ln])
				continue;
			shown++;
			uint32_t k = 0;
			while (k < ng && (g[k].line != ln || strcmp(g[k].file, path) != 0))
				k++;
			if (k == ng) {
				t_fail(__FILE__, __LINE__, "%s:%u: addresses pprof has not", path,
				       ln);
				continue;
			}
			T_EQ_INT(sa->n[ln], g[k].n);
			T_EQ_U64(sa->lo[ln], g[k].lo);
			T_EQ_U64(sa->hi[ln], g[k].hi);
			T_EQ_U64(sa->hot[ln], g[k].hot);
			T_EQ_INT(sa->hot_self[ln], g[k].hot_self);
			if (ln == 823 && strstr(path, "hashmap.go")) {
				hm823 = 1;
				T_EQ_INT(sa->n[ln], 8);
				T_EQ_U64(sa->hot[ln], 0x4095d0 - 0x400000);
			}
			checked++;
		}
		pv_source_addrs_free(sa);
	}
	T_EQ_INT(checked, ng);
	T_EQ_INT(shown, ng);
	T_TRUE(hm823);
	free(g);
	pv_view_free(v);
	pv_profile_free(p);
	free(want);
}

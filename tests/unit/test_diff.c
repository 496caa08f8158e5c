/*
 * test_diff.c - the difference of two profiles (pv/diff.h): a profile against itself has zero
 * deltas in every view, rows match by name across profiles whose ids differ (hand-worked
 * texts), --normalize scales the base, the differential flame graph, and two perf recordings
 * of one program give perf diff's own table (tests/data/perf-diff/README.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/diff.h"
#include "pv/format.h"
#include "pv/import.h"
#include "t.h"
#include "tp.h"

static struct pv_profile *text(const char *s, const char *format)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	if (pv_import_memory("test", s, strlen(s), format, &p, &err))
		t_fail(__FILE__, __LINE__, "cannot import: %s", err.msg);
	return p;
}

static struct pv_diff *diff(const struct pv_profile *a, const struct pv_profile *b,
			    enum pv_view_kind kind, const char *center, bool normalize,
			    enum pv_sort_key sort)
{
	struct pv_query q;
	pv_query_init(&q);
	q.view = kind;
	q.sort = sort;
	if (center)
		pv_query_add_center(&q, center);
	struct pv_diff *d = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_diff_opts o = {normalize};
	if (pv_diff_compute(a, b, &q, &o, &d, &err))
		t_fail(__FILE__, __LINE__, "diff: %s", err.msg);
	pv_query_release(&q);
	return d;
}

/* Every row of t is on both sides with equal costs; t has as many rows as each side. */
static void all_zero(const char *what, const struct pv_diff *d, const struct pv_diff_rows *t,
		     uint32_t side_len)
{
	if (!t)
		return;
	if (t->len != side_len)
		t_fail(__FILE__, __LINE__, "%s: %u diff rows, %u rows on each side", what, t->len,
		       side_len);
	for (uint32_t r = 0; r < t->len; r++) {
		if (pv_diff_side_of(t, r) != PV_DIFF_BOTH) {
			t_fail(__FILE__, __LINE__, "%s: row %u on one side only", what, r);
			return;
		}
		for (uint32_t m = 0; m < d->nr_metrics; m++)
			if (t->total[0][m][r] != t->total[1][m][r] ||
			    t->self[0][m][r] != t->self[1][m][r]) {
				t_fail(__FILE__, __LINE__, "%s: row %u metric %u has a delta", what,
				       r, m);
				return;
			}
	}
}

T_TEST(diff_self_zero)
{
	static const char *const files[] = {
	    "perf/gcc.perf.txt.gz",
	    "collapsed/worked-example.txt",
	    "speedscope/two-sampled.speedscope.json",
	    "firefox/gecko-2.json",
	    "corpus/firefox/generated-processed-v70-calltree.json",
	    "chrome/simple.cpuprofile",
	    "callgrind/gzip.callgrind",
	    "corpus/pprof/profile/testdata/cppbench.cpu",
	    "hpctoolkit/small.d",
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		/* two imports: the same names, ids from two builders */
		struct pv_profile *a = t_load_data(files[i]), *b = t_load_data(files[i]);
		if (!a || !b) {
			pv_profile_free(a);
			pv_profile_free(b);
			continue;
		}
		/* the heaviest function of the list is the butterfly's center */
		struct pv_diff *top = diff(a, b, PV_VIEW_TOP, NULL, false, PV_SORT_TOTAL);
		char center[512] = "";
		if (top && top->flat->len) {
			const struct pv_view *v = top->v[1];
			uint32_t x = top->flat->row[1][top->flat->roots[0]];
			char buf[512];
			snprintf(center, sizeof(center), "%s",
				 pv_view_row_name(v, v->flat->kind[x], v->flat->id[x], buf,
						  sizeof(buf), v->flat->line[x]));
		}
		pv_diff_free(top);
		for (uint32_t k = 0; k < PV_NR_VIEW_KINDS; k++) {
			bool bf = pv_view_kinds[k].needs_center;
			if (bf && !center[0])
				continue;
			char what[300];
			snprintf(what, sizeof(what), "%s %s", files[i], pv_view_kinds[k].name);
			for (int norm = 0; norm < 2; norm++) {
				struct pv_diff *d =
				    diff(a, b, (enum pv_view_kind)k, bf ? center : NULL, norm,
					 norm ? PV_SORT_DELTA : PV_SORT_SELF);
				if (!d)
					continue;
				const struct pv_view *v = d->v[1];
				all_zero(what, d, d->tree, v->tree ? v->tree->len : 0);
				all_zero(what, d, d->callers, v->callers ? v->callers->len : 0);
				all_zero(what, d, d->flat, v->flat ? v->flat->len : 0);
				T_TRUE(d->tree || d->flat);
				pv_diff_free(d);
			}
		}
		pv_profile_free(a);
		pv_profile_free(b);
	}
}

/* The diff row under parent (PV_NONE: a root) named name, PV_NONE when none is. */
static uint32_t find(const struct pv_diff *d, const struct pv_diff_rows *t, bool flat,
		     uint32_t parent, const char *name)
{
	const uint32_t *list = parent == PV_NONE ? t->roots : t->children + t->child_first[parent];
	uint32_t n = parent == PV_NONE ? t->nr_roots : t->child_len[parent];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = list[i];
		int s = pv_diff_row_side(t, r);
		const struct pv_view *v = d->v[s];
		uint32_t x = t->row[s][r];
		char b[512];
		const char *nm = flat ? pv_view_row_name(v, v->flat->kind[x], v->flat->id[x], b,
							 sizeof(b), v->flat->line[x])
				      : pv_view_row_name(v, v->tree->kind[x], v->tree->id[x], b,
							 sizeof(b), v->tree->line[x]);
		if (strcmp(nm, name) == 0)
			return r;
	}
	return PV_NONE;
}

/*
 * base: a;b 3, a;c 1 (a=0 b=1 c=2 in the base's tables); new: a;d 5, a;c 2 (a=0 d=1 c=2):
 * tree a 4 -> 7; a>b base only 3; a>c 1 -> 2; a>d new only 5. Normalized (7/4): a 7, b 5.25
 * -> 5, c 1.75 -> 2.
 */
T_TEST(diff_match_by_name)
{
	struct pv_profile *a = text("a;b 3\na;c 1\n", "collapsed");
	struct pv_profile *b = text("a;d 5\na;c 2\n", "collapsed");
	struct pv_diff *d = diff(a, b, PV_VIEW_TREE, NULL, false, PV_SORT_SELF);
	T_EQ_INT(d->tree->len, 4);
	uint32_t ra = find(d, d->tree, false, PV_NONE, "a");
	T_TRUE(ra != PV_NONE);
	T_EQ_INT(d->tree->total[0][0][ra], 4);
	T_EQ_INT(d->tree->total[1][0][ra], 7);
	uint32_t rb = find(d, d->tree, false, ra, "b"), rc = find(d, d->tree, false, ra, "c"),
		 rd = find(d, d->tree, false, ra, "d");
	T_TRUE(rb != PV_NONE && rc != PV_NONE && rd != PV_NONE);
	T_EQ_INT(pv_diff_side_of(d->tree, rb), PV_DIFF_BASE_ONLY);
	T_EQ_INT(pv_diff_side_of(d->tree, rc), PV_DIFF_BOTH);
	T_EQ_INT(pv_diff_side_of(d->tree, rd), PV_DIFF_NEW_ONLY);
	T_EQ_INT(d->tree->total[0][0][rb], 3);
	T_EQ_INT(d->tree->total[1][0][rb], 0);
	T_EQ_INT(d->tree->total[0][0][rc], 1);
	T_EQ_INT(d->tree->total[1][0][rc], 2);
	T_EQ_INT(d->tree->total[1][0][rd], 5);
	/* children by the larger side's total: d (5), b (3), c (2) */
	T_EQ_INT(d->tree->children[d->tree->child_first[ra]], rd);
	T_EQ_INT(d->tree->children[d->tree->child_first[ra] + 1], rb);
	T_EQ_INT(d->tree->children[d->tree->child_first[ra] + 2], rc);
	pv_diff_free(d);

	/* --sort delta: d (+5), b (-3), c (+1) */
	d = diff(a, b, PV_VIEW_TOP, NULL, false, PV_SORT_DELTA);
	T_EQ_INT(d->flat->nr_roots, 4);
	/* then a: self 0 on both sides */
	uint32_t r0 = d->flat->roots[0], r1 = d->flat->roots[1], r2 = d->flat->roots[2];
	T_EQ_INT(d->flat->self[1][0][r0] - d->flat->self[0][0][r0], 5);
	T_EQ_INT(d->flat->self[1][0][r1] - d->flat->self[0][0][r1], -3);
	T_EQ_INT(d->flat->self[1][0][r2] - d->flat->self[0][0][r2], 1);
	pv_diff_free(d);

	d = diff(a, b, PV_VIEW_TREE, NULL, true, PV_SORT_SELF);
	ra = find(d, d->tree, false, PV_NONE, "a");
	T_EQ_INT(d->tree->total[0][0][ra], 7);
	T_EQ_INT(d->tree->total[0][0][find(d, d->tree, false, ra, "b")], 5);
	T_EQ_INT(d->tree->total[0][0][find(d, d->tree, false, ra, "c")], 2);
	T_EQ_INT(d->whole[0][0], 7);
	pv_diff_free(d);
	pv_profile_free(a);
	pv_profile_free(b);
}

/*
 * A profile with modules (perf script) against one without (collapsed): the full keys differ,
 * names once on each side match; "work" twice in the new (two modules) stays unmatched.
 */
T_TEST(diff_match_across_formats)
{
	struct pv_profile *a = text("main;work 4\nmain;idle 2\n", "collapsed");
	struct pv_profile *b = text("prog 1 1.000000: 1 cpu-clock:\n"
				    "\t401000 work+0x0 (/bin/prog)\n"
				    "\t401100 main+0x0 (/bin/prog)\n"
				    "\n"
				    "prog 1 1.001000: 1 cpu-clock:\n"
				    "\t402000 idle+0x0 (/bin/prog)\n"
				    "\t401100 main+0x0 (/bin/prog)\n"
				    "\n",
				    "perf-script");
	if (!a || !b) {
		pv_profile_free(a);
		pv_profile_free(b);
		return;
	}
	struct pv_diff *d = diff(a, b, PV_VIEW_TREE, NULL, true, PV_SORT_SELF);
	T_EQ_INT(d->tree->len, 3);
	uint32_t rm = find(d, d->tree, false, PV_NONE, "main");
	T_TRUE(rm != PV_NONE);
	T_EQ_INT(pv_diff_side_of(d->tree, rm), PV_DIFF_BOTH);
	uint32_t rw = find(d, d->tree, false, rm, "work");
	T_TRUE(rw != PV_NONE);
	T_EQ_INT(pv_diff_side_of(d->tree, rw), PV_DIFF_BOTH);
	pv_diff_free(d);

	/* units differ (count against ns): only normalized */
	struct pv_query q;
	pv_query_init(&q);
	struct pv_diff_opts o = {false};
	struct pv_error err;
	pv_error_clear(&err);
	T_EQ_INT(pv_diff_compute(a, b, &q, &o, &d, &err), PV_EINVAL);
	T_CONTAINS(err.msg, "--normalize");
	/* a query that does not fit one side says which */
	pv_query_add_center(&q, "idle");
	q.view = PV_VIEW_BUTTERFLY;
	pv_query_release(&q);
	pv_query_init(&q);
	pv_query_add_center(&q, "nothere");
	o.normalize = true;
	T_EQ_INT(pv_diff_compute(a, b, &q, &o, &d, &err), PV_EINVAL);
	T_CONTAINS(err.msg, "base profile: ");
	pv_query_release(&q);
	pv_profile_free(a);
	pv_profile_free(b);
}

/* The differential flame graph of the hand-worked texts: widths of the new, base beside. */
T_TEST(diff_flame)
{
	struct pv_profile *a = text("a;b 3\na;c 1\n", "collapsed");
	struct pv_profile *b = text("a;d 5\na;c 2\n", "collapsed");
	struct pv_diff *d = diff(a, b, PV_VIEW_TREE, NULL, false, PV_SORT_SELF);
	struct pv_flame_opts o = {100, 0};
	struct pv_flame *fl = NULL;
	T_EQ_INT(pv_diff_flame_build(d, &o, &fl), 0);
	/* (all), a, d, c: b (base only) has no width */
	T_EQ_INT(fl->len, 4);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct pv_json *j = pv_json_new(f);
	T_EQ_INT(pv_json_flame(j, fl), 0);
	pv_json_finish(j);
	pv_json_free(j);
	fclose(f);
	T_CONTAINS(buf, "\"base_total\": 4");
	T_CONTAINS(buf, "\"name\": \"a\", \"scope\": \"a\", \"total\": 7, \"self\": 0, \"base\": "
			"4, \"base_self\": 0");
	T_CONTAINS(buf, "\"name\": \"d\", \"scope\": \"d\", \"total\": 5, \"self\": 5, \"base\": "
			"0, \"base_self\": 0");
	T_CONTAINS(buf, "\"name\": \"c\", \"scope\": \"c\", \"total\": 2, \"self\": 2, \"base\": "
			"1, \"base_self\": 1");
	T_TRUE(!strstr(buf, "\"name\": \"b\""));
	free(buf);
	pv_flame_free(fl);
	pv_diff_free(d);
	pv_profile_free(a);
	pv_profile_free(b);
}

/* ---- perf diff ---- */

struct perf_row {
	bool has_base, has_delta;
	double base, delta;
	char dso[128], sym[256];
};

/* The rows of perf diff's table: "  36.15%  +38.35%  work  [.] mix" (either number may be
 * missing). */
static uint32_t read_perf_diff(const char *path, struct perf_row *rows, uint32_t cap)
{
	char *s = t_read_file(path, NULL);
	uint32_t n = 0;
	for (char *line = s ? strtok(s, "\n") : NULL; line && n < cap; line = strtok(NULL, "\n")) {
		if (line[0] == '#' || !strstr(line, "] "))
			continue;
		struct perf_row *r = &rows[n];
		memset(r, 0, sizeof(*r));
		char *p = line;
		for (int k = 0; k < 2; k++) {
			while (*p == ' ')
				p++;
			char *end;
			double x = strtod(p, &end);
			if (end == p || *end != '%')
				break;
			/* a signed number is the delta */
			if (*p == '+' || *p == '-') {
				r->has_delta = true;
				r->delta = x;
			} else {
				r->has_base = true;
				r->base = x;
			}
			p = end + 1;
		}
		char kind[8];
		if (sscanf(p, " %127s %7s %255[^\n]", r->dso, kind, r->sym) != 3)
			continue;
		size_t l = strlen(r->sym);
		while (l && r->sym[l - 1] == ' ')
			r->sym[--l] = 0;
		n++;
	}
	free(s);
	return n;
}

static double round2(double x)
{
	return round(x * 100.0) / 100.0;
}

T_TEST(diff_perf_diff)
{
	struct perf_row want[200];
	uint32_t nw = read_perf_diff(t_data("perf-diff/perf-diff.txt"), want, 200);
	T_TRUE(nw >= 10);
	struct pv_profile *a = t_load_data("perf-diff/base.perf.txt.gz");
	struct pv_profile *b = t_load_data("perf-diff/new.perf.txt.gz");
	if (!a || !b || nw == 0) {
		pv_profile_free(a);
		pv_profile_free(b);
		return;
	}
	struct pv_diff *d = diff(a, b, PV_VIEW_TOP, NULL, true, PV_SORT_DELTA);
	const struct pv_diff_rows *t = d->flat;
	const struct pv_view *vb = d->v[0], *vn = d->v[1];
	/* each of perf's rows: the same symbol of the same shared object, baseline and delta */
	for (uint32_t i = 0; i < nw; i++) {
		const struct perf_row *w = &want[i];
		uint32_t found = PV_NONE;
		for (uint32_t r = 0; r < t->len && found == PV_NONE; r++) {
			int s = pv_diff_row_side(t, r);
			const struct pv_view *v = d->v[s];
			uint32_t x = t->row[s][r];
			char nb[512];
			const char *name = pv_view_row_name(v, v->flat->kind[x], v->flat->id[x], nb,
							    sizeof(nb), v->flat->line[x]);
			pv_module_ix m;
			pv_source_ix src;
			uint32_t line;
			pv_view_row_place(v, v->flat->kind[x], v->flat->id[x], &m, &src, &line);
			const char *mod = m == PV_NONE ? "" : pv_str(v->p, v->p->modules.name[m]);
			const char *slash = strrchr(mod, '/');
			if (strcmp(name, w->sym) == 0 &&
			    strcmp(slash ? slash + 1 : mod, w->dso) == 0)
				found = r;
		}
		if (found == PV_NONE) {
			t_fail(__FILE__, __LINE__, "perf diff's %s %s: no row", w->dso, w->sym);
			continue;
		}
		uint32_t xb = t->row[0][found], xn = t->row[1][found];
		double base = xb == PV_NONE
				  ? 0
				  : 100.0 * (double)vb->flat->self[0][xb] / (double)vb->whole[0];
		double nw_ = xn == PV_NONE
				 ? 0
				 : 100.0 * (double)vn->flat->self[0][xn] / (double)vn->whole[0];
		/* perf prints no baseline for a symbol of the new only, no delta for one of the
		 * base only */
		T_EQ_INT(w->has_base, xb != PV_NONE);
		T_EQ_INT(w->has_delta, xn != PV_NONE);
		if (w->has_base && round2(base) != w->base)
			t_fail(__FILE__, __LINE__, "%s: baseline %.2f, perf %.2f", w->sym, base,
			       w->base);
		if (w->has_delta && round2(nw_ - base) != w->delta)
			t_fail(__FILE__, __LINE__, "%s: delta %+.2f, perf %+.2f", w->sym,
			       nw_ - base, w->delta);
	}
	/*
	 * The top deltas in perf's order (its first five have distinct deltas). perf diff lists
	 * the symbols of the base only last, without a delta; profview ranks them by theirs
	 * (the whole base share lost), so they are skipped here.
	 */
	for (uint32_t i = 0, k = 0; k < 5 && i < t->nr_roots; i++) {
		uint32_t r = t->roots[i], x = t->row[1][r];
		if (x == PV_NONE)
			continue;
		char nb[512];
		T_EQ_STR(pv_view_row_name(vn, vn->flat->kind[x], vn->flat->id[x], nb, sizeof(nb),
					  vn->flat->line[x]),
			 want[k].sym);
		k++;
	}
	pv_diff_free(d);
	pv_profile_free(a);
	pv_profile_free(b);
}

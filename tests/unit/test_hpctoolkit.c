/*
 * test_hpctoolkit.c - the HPCToolkit readers against HPCToolkit's own figures.
 *
 * tests/data/hpctoolkit/ (README.md there) holds real databases; small.yaml and
 * small.nostruct.yaml are HPCToolkit's own dumps of two of them: every context of the tree and
 * its stored values in every profile. The tests read the dumps with a small parser of their own
 * and check that the rows profview computes (their inclusive costs, summed from the own costs the
 * importer derives) equal the stored inclusive values, context by context.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import/hpctoolkit/hpctoolkit.h"
#include "model/builder.h"
#include "pv/import.h"
#include "pv/profile.h"
#include "pv/query.h"
#include "pv/view.h"
#include "t.h"
#include "tp.h"

/* ---- HPCToolkit's YAML dump (the tags and layout of its test tooling) ---- */

#define MAXN 256

struct ydump {
	/* anchors: &idNNN of functions (name), files (path), modules (path) */
	int anchor_id[MAXN];
	char anchor_text[MAXN][160];
	int nr_anchors;
	/* the context tree, entry points included */
	uint32_t ctx[MAXN];
	int parent[MAXN];   /* index, -1 for an entry point */
	char lex[MAXN][16]; /* "entry", "function", "loop", "line", "instruction" */
	char rel[MAXN][16];
	char name[MAXN][160]; /* entry: pretty name; function: its name */
	char file[MAXN][160]; /* a file's path */
	char module[MAXN][160];
	uint32_t line[MAXN];
	uint64_t offset[MAXN];
	int n;
	/* values[profile][ctx id] for metric id 3 (the inclusive, "execution" values) */
	double value[4][MAXN];
	int nr_profiles;
};

static const char *after(const char *s, const char *key)
{
	const char *p = strstr(s, key);
	return p ? p + strlen(key) : NULL;
}

static int indent(const char *s)
{
	int i = 0;
	while (s[i] == ' ')
		i++;
	return i;
}

static const char *anchor(const struct ydump *y, const char *ref)
{
	int id = atoi(ref + 3); /* "*idNNN" */
	for (int i = 0; i < y->nr_anchors; i++)
		if (y->anchor_id[i] == id)
			return y->anchor_text[i];
	return "";
}

static bool read_dump(const char *path, struct ydump *y)
{
	size_t len;
	char *text = t_read_file(path, &len);
	if (!text) {
		t_fail(__FILE__, __LINE__, "cannot read %s", path);
		return false;
	}
	memset(y, 0, sizeof(*y));
	int stack_indent[64], stack_ix[64], sp = 0;
	int cur_anchor = -1, cur = -1, prof = -1, vctx = -1;
	enum { META, PROFILE, DONE } part = META;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		int in = indent(line);
		const char *s = line + in;
		if (strncmp(line, "profile:", 8) == 0)
			part = PROFILE;
		else if (strncmp(line, "context:", 8) == 0)
			part = DONE;
		if (part == DONE)
			break;
		if (part == PROFILE) {
			if (strstr(s, "- !profile.db/v4/Profile")) {
				prof = ++y->nr_profiles - 1;
			} else if (prof >= 0 && prof < 4 && in == 8 && s[0] >= '0' && s[0] <= '9') {
				vctx = atoi(s);
			} else if (prof >= 0 && prof < 4 && in == 10 && strncmp(s, "3:", 2) == 0 &&
				   vctx >= 0 && vctx < MAXN) {
				y->value[prof][vctx] = strtod(s + 2, NULL);
			}
			continue;
		}
		if (s[0] == '-' && s[1] == ' ' && s[2] == '&') { /* - &idNNN !meta.db/v4/Xxx */
			cur_anchor = y->nr_anchors++;
			y->anchor_id[cur_anchor] = atoi(s + 5);
			cur = -1;
			continue;
		}
		bool entry = strstr(s, "- !meta.db/v4/EntryPoint") != NULL;
		if (entry || strstr(s, "- !meta.db/v4/Context") == s) {
			while (sp && stack_indent[sp - 1] >= in)
				sp--;
			cur = y->n++;
			y->parent[cur] = sp ? stack_ix[sp - 1] : -1;
			snprintf(y->lex[cur], sizeof(y->lex[cur]), "%s", entry ? "entry" : "?");
			stack_indent[sp] = in;
			stack_ix[sp++] = cur;
			cur_anchor = -1;
			continue;
		}
		const char *v;
		if (cur_anchor >= 0 && ((v = after(s, "name: ")) || (v = after(s, "path: "))) &&
		    (strncmp(s, "name:", 5) == 0 || strncmp(s, "path:", 5) == 0)) {
			snprintf(y->anchor_text[cur_anchor], 160, "%s", v);
			continue;
		}
		if (cur < 0)
			continue;
		if ((v = after(s, "ctx_id: ")) && s == v - 8)
			y->ctx[cur] = (uint32_t)atoi(v);
		else if ((v = after(s, "pretty_name: ")) && s == v - 13)
			snprintf(y->name[cur], 160, "%s", v);
		else if ((v = after(s, "lexical_type: !meta.db/v4/Context.LexicalType ")))
			snprintf(y->lex[cur], 16, "%s", v);
		else if ((v = after(s, "relation: !meta.db/v4/Context.Relation ")))
			snprintf(y->rel[cur], 16, "%s", v);
		else if ((v = after(s, "function: *")) && s == v - 11)
			snprintf(y->name[cur], 160, "%s", anchor(y, v - 1));
		else if ((v = after(s, "file: *")) && s == v - 7)
			snprintf(y->file[cur], 160, "%s", anchor(y, v - 1));
		else if ((v = after(s, "module: *")) && s == v - 9)
			snprintf(y->module[cur], 160, "%s", anchor(y, v - 1));
		else if ((v = after(s, "line: ")) && s == v - 6)
			y->line[cur] = (uint32_t)atoi(v);
		else if ((v = after(s, "offset: ")) && s == v - 8)
			y->offset[cur] = strtoull(v, NULL, 10);
	}
	free(text);
	return y->n > 0 && y->nr_profiles > 0;
}

static const char *base(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

static bool is_proc(const struct ydump *y, int i)
{
	return strcmp(y->lex[i], "entry") == 0 || strcmp(y->lex[i], "function") == 0 ||
	       (strcmp(y->lex[i], "instruction") == 0 && strcmp(y->rel[i], "lexical") != 0);
}

/* The enclosing procedure's name of context i (itself when it is one). */
static void proc_name(const struct ydump *y, int i, char *buf, size_t n)
{
	while (i >= 0 && !is_proc(y, i))
		i = y->parent[i];
	if (i < 0)
		snprintf(buf, n, "?");
	else if (strcmp(y->lex[i], "instruction") == 0)
		snprintf(buf, n, "%s@0x%" PRIx64, base(y->module[i]), y->offset[i]);
	else
		snprintf(buf, n, "%s", y->name[i]);
}

/*
 * The path of the row context i is at granularity by ("function", "loop", "line"), names
 * joined with ';', or "" when i is no row of its own there. At line granularity a line right
 * in a procedure is that procedure's row at the line ("f:7"), as a sampled stack is.
 */
static void row_path(const struct ydump *y, int i, const char *by, char *out, size_t n)
{
	int chain[64], k = 0;
	for (int j = i; j >= 0 && k < 64; j = y->parent[j])
		chain[k++] = j;
	out[0] = 0;
	bool line = strcmp(by, "line") == 0, loops = line || strcmp(by, "loop") == 0;
	bool own = is_proc(y, i) ? !line : strcmp(y->lex[i], "loop") == 0 ? loops : line;
	if (!own)
		return;
	size_t len = 0;
	for (int c = k - 1; c >= 0; c--) {
		int j = chain[c];
		char el[200] = "";
		if (is_proc(y, j)) {
			/* at line granularity a procedure with a line next on the path is that line
			 */
			if (line && c > 0 && strcmp(y->lex[chain[c - 1]], "line") == 0)
				continue;
			proc_name(y, j, el, sizeof(el));
		} else if (strcmp(y->lex[j], "loop") == 0) {
			if (!loops)
				continue;
			snprintf(el, sizeof(el), "loop at %s:%u", base(y->file[j]), y->line[j]);
		} else if (line) {
			char fn[160];
			proc_name(y, j, fn, sizeof(fn));
			snprintf(el, sizeof(el), "%s:%u", fn, y->line[j]);
		} else {
			continue;
		}
		len += (size_t)snprintf(out + len, n - len, "%s%s", len ? ";" : "", el);
	}
}

/* ---- rows of a view, by path ---- */

#define MAXROWS 2048
#define MAXPATH 8192

struct rows {
	char *path[MAXROWS];
	int64_t total[MAXROWS], self[MAXROWS];
	int n;
};

static void rows_clear(struct rows *r)
{
	for (int i = 0; i < r->n; i++)
		free(r->path[i]);
	r->n = 0;
}

static void collect(const struct pv_view *v, uint32_t r, const char *prefix, struct rows *out)
{
	const struct pv_tree *t = v->tree;
	char buf[256];
	const char *name = pv_view_row_name(v, t->kind[r], t->id[r], buf, sizeof(buf), t->line[r]);
	size_t n = strlen(prefix) + strlen(name) + 2;
	char *path = malloc(n);
	if (!path)
		return;
	snprintf(path, n, "%s%s%s", prefix, *prefix ? ";" : "", name);
	if (out->n < MAXROWS) {
		out->path[out->n] = path;
		out->self[out->n] = t->self[0][r];
		out->total[out->n++] = t->total[0][r];
	} else {
		t_fail(__FILE__, __LINE__, "more than %d rows", MAXROWS);
		free(path);
		return;
	}
	for (uint32_t c = 0; c < t->child_len[r]; c++)
		collect(v, t->children[t->child_first[r] + c], path, out);
}

/* The rows of the top-down tree by granularity by, of one thread (NULL: all); self "nested" or
 * NULL (own). */
static bool tree_rows_self(const struct pv_profile *p, const char *by, const char *thread,
			   const char *self, struct rows *out, int64_t *whole)
{
	struct pv_query q;
	struct pv_error err;
	pv_query_init(&q);
	bool ok = pv_query_set_option(&q, "by", by, &err) == 0 &&
		  (!thread || pv_query_set_option(&q, "thread", thread, &err) == 0) &&
		  (!self || pv_query_set_option(&q, "self", self, &err) == 0);
	struct pv_view *v = NULL;
	if (ok && pv_view_compute(p, &q, &v, &err) == 0) {
		rows_clear(out);
		for (uint32_t i = 0; i < v->tree->nr_roots; i++)
			collect(v, v->tree->roots[i], "", out);
		*whole = v->whole[0];
		pv_view_free(v);
	} else {
		t_fail(__FILE__, __LINE__, "view by %s: %s", by, err.msg);
		ok = false;
	}
	pv_query_release(&q);
	return ok;
}

/* The total of the k-th row (0 the first) whose path is path: two loops on one line are two rows
 * of one name, in the same order in two views of one tree. */
static bool tree_rows(const struct pv_profile *p, const char *by, const char *thread,
		      struct rows *out, int64_t *whole)
{
	return tree_rows_self(p, by, thread, NULL, out, whole);
}

static int64_t row_total_k(const struct rows *r, const char *path, int k, bool *found)
{
	for (int i = 0; i < r->n; i++)
		if (strcmp(r->path[i], path) == 0 && k-- == 0) {
			*found = true;
			return r->total[i];
		}
	*found = false;
	return 0;
}

static int64_t row_total(const struct rows *r, const char *path, bool *found)
{
	return row_total_k(r, path, 0, found);
}

/* Which occurrence of its path row i is. */
static int occurrence(const struct rows *r, int i)
{
	int k = 0;
	for (int j = 0; j < i; j++)
		k += strcmp(r->path[j], r->path[i]) == 0;
	return k;
}

/*
 * Every context of the dump at the granularity where it is a row: the row's inclusive cost (ns)
 * equals the sum of the stored inclusive values (seconds) of the contexts it stands for, to the
 * nanosecond. prof is the profile of the dump the view shows. Returns the contexts checked.
 */
static int check_against_dump(const struct pv_profile *p, const struct ydump *y, int prof,
			      const char *thread)
{
	static const char *const bys[] = {"function", "loop", "line"};
	int checked = 0;
	for (int b = 0; b < 3; b++) {
		static struct rows rows;
		int64_t whole;
		if (!tree_rows(p, bys[b], thread, &rows, &whole))
			return checked;
		/* (rows stays allocated for the next call: a test binary's static) */
		/* the whole program: the global context's value */
		T_EQ_INT(whole, llround(y->value[prof][0] * 1e9));
		for (int i = 0; i < y->n; i++) {
			char path[MAXPATH];
			row_path(y, i, bys[b], path, sizeof(path));
			if (!*path)
				continue;
			int64_t want = 0;
			for (int j = 0; j < y->n; j++) {
				char other[MAXPATH];
				row_path(y, j, bys[b], other, sizeof(other));
				if (strcmp(other, path) == 0)
					want += llround(y->value[prof][y->ctx[j]] * 1e9);
			}
			bool found;
			int64_t got = row_total(&rows, path, &found);
			if (want && !found)
				t_fail(__FILE__, __LINE__, "by %s: no row %s (context %u)", bys[b],
				       path, y->ctx[i]);
			else if (got != want)
				t_fail(__FILE__, __LINE__,
				       "by %s: %s (context %u): %" PRId64
				       " ns, the database says %" PRId64,
				       bys[b], path, y->ctx[i], got, want);
			checked++;
		}
	}
	return checked;
}

T_TEST(hpctoolkit_small_equals_dump)
{
	static struct ydump y;
	if (!read_dump(t_data("hpctoolkit/small.yaml"), &y))
		return;
	T_EQ_INT(y.n, 13); /* 1 entry point, 12 contexts */
	T_EQ_INT(y.nr_profiles, 2);
	struct pv_profile *p = t_load_format(t_data("hpctoolkit/small.d"), NULL);
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.format), "hpctoolkit");
	T_EQ_INT(p->threads.len, 1);
	T_EQ_STR(pv_str(p, p->threads.name[0]), "NODE 0 CORE 0 THREAD 0");
	T_EQ_INT(p->metrics.len, 1);
	T_EQ_STR(pv_str(p, p->metrics.name[0]), "CPUTIME (sec)");
	T_EQ_INT(p->metrics.unit[0], PV_UNIT_NS);
	T_EQ_STR(pv_str(p, p->metrics.description[0]), "CPUTIME (sec)");
	/*
	 * the 5 procedures (the entry point too) are rows by function, they and the 2 loops by
	 * loop, the 6 lines and the 2 loops by line
	 */
	T_EQ_INT(check_against_dump(p, &y, 1, NULL), 5 + (5 + 2) + (6 + 2));
	pv_profile_free(p);
	/* the summary profile on its own */
	p = t_load_format(t_data("hpctoolkit/small.d"), "hpctoolkit-summary");
	if (p) {
		T_EQ_STR(pv_str(p, p->threads.name[0]), "SUMMARY");
		check_against_dump(p, &y, 0, NULL);
		pv_profile_free(p);
	}
}

T_TEST(hpctoolkit_nostruct_equals_dump)
{
	static struct ydump y;
	if (!read_dump(t_data("hpctoolkit/small.nostruct.yaml"), &y))
		return;
	T_EQ_INT(y.n, 11);
	struct pv_profile *p = t_load_format(t_data("hpctoolkit/small.nostruct.d"), NULL);
	if (!p)
		return;
	/* no structure: procedures are instructions, named as hpcviewer names them */
	bool found = false;
	for (uint32_t f = 0; f < p->funcs.len; f++)
		found |= strcmp(pv_str(p, p->funcs.name[f]), "testmeas-small@0x11a6") == 0;
	T_TRUE(found);
	T_EQ_INT(check_against_dump(p, &y, 1, NULL), 11 + 11); /* by function and by loop */
	pv_profile_free(p);
}

/*
 * On every format-4 database, the views of the execution contexts' own profiles (every thread
 * merged) equal the views of the summary profile hpcprof computed, row by row: the per-thread
 * values summed are the summary's sums. Each thread's inclusive values are rounded to whole
 * units (ns) before they are summed, so a row may differ by up to one unit per thread.
 */
T_TEST(hpctoolkit_threads_sum_to_summary)
{
	static const char *const dbs[] = {"small.d", "small.nostruct.d", "loops-cputime-t.d",
					  "issue-328", "inline-pair/metadb/inline.meta.db"};
	static const char *const bys[] = {"function", "loop", "line"};
	static struct rows a, b;
	for (size_t d = 0; d < sizeof(dbs) / sizeof(dbs[0]); d++) {
		char path[256];
		snprintf(path, sizeof(path), "hpctoolkit/%s", dbs[d]);
		struct pv_profile *pt = t_load_format(t_data(path), NULL);
		struct pv_profile *ps = t_load_format(t_data(path), "hpctoolkit-summary");
		if (!pt || !ps) {
			pv_profile_free(pt);
			pv_profile_free(ps);
			continue;
		}
		int64_t slack = pt->threads.len;
		int rows = 0;
		for (int k = 0; k < 3; k++) {
			int64_t wa, wb;
			if (!tree_rows(pt, bys[k], NULL, &a, &wa) ||
			    !tree_rows(ps, bys[k], NULL, &b, &wb))
				break;
			T_TRUE(llabs(wa - wb) <= slack);
			T_TRUE(a.n > 0);
			/* rows without cost are left out of a tree: a rounding to 0 may differ */
			for (int i = 0; i < b.n; i++) {
				bool found;
				int64_t x = row_total_k(&a, b.path[i], occurrence(&b, i), &found);
				if (llabs(x - b.total[i]) > slack)
					t_fail(__FILE__, __LINE__,
					       "%s by %s: %s: threads %" PRId64
					       ", summary %" PRId64,
					       dbs[d], bys[k], b.path[i], x, b.total[i]);
				rows++;
			}
			for (int i = 0; i < a.n; i++) {
				bool found;
				int64_t x = row_total_k(&b, a.path[i], occurrence(&a, i), &found);
				if (llabs(x - a.total[i]) > slack)
					t_fail(__FILE__, __LINE__,
					       "%s by %s: %s: threads %" PRId64
					       ", summary %" PRId64,
					       dbs[d], bys[k], a.path[i], a.total[i], x);
			}
		}
		T_TRUE(rows > 10);
		pv_profile_free(pt);
		pv_profile_free(ps);
	}
}

/* Execution contexts are threads named by their id tuples, sorted as tuples. */
T_TEST(hpctoolkit_threads_by_tuple)
{
	struct pv_profile *p = t_load_format(t_data("hpctoolkit/loops-cputime-t.d"), NULL);
	if (p) {
		T_EQ_INT(p->threads.len, 4);
		for (uint32_t t = 0; t < p->threads.len && t < 4; t++) {
			char want[64];
			snprintf(want, sizeof(want), "NODE 0 CORE 0 THREAD %u", t);
			T_EQ_STR(pv_str(p, p->threads.name[t]), want);
			T_EQ_INT(p->threads.tid[t], t);
		}
		pv_profile_free(p);
	}
	p = t_load_format(t_data("hpctoolkit/issue-328"), NULL);
	if (p) {
		T_EQ_INT(p->threads.len, 3);
		T_EQ_STR(pv_str(p, p->threads.name[0]), "NODE 0 GPUCONTEXT 2 GPUSTREAM 0");
		T_EQ_STR(pv_str(p, p->threads.name[1]), "NODE 0 THREAD 0");
		T_EQ_INT(p->metrics.len, 44);
		/* the order and descriptions of metrics/default.yaml */
		T_EQ_STR(pv_str(p, p->metrics.name[0]), "REALTIME (sec)");
		T_EQ_STR(pv_str(p, p->metrics.name[1]), "GPUOP (sec)");
		T_EQ_STR(pv_str(p, p->metrics.description[1]),
			 "GPU time: all operations (seconds)");
		pv_profile_free(p);
	}
}

/* The value v rounded to 6 significant digits, as experiment.xml writes its values ("%g"). */
static double sig6(double v)
{
	char b[32];
	snprintf(b, sizeof(b), "%g", v);
	return strtod(b, NULL);
}

/*
 * The two generations of one program (two runs): the application's procedures and loops are the
 * same rows in both trees, and the older database's values, read from its per-thread
 * experiment-1.mdb, sum to what its experiment.xml states (6 significant digits).
 */
T_TEST(hpctoolkit_inline_pair)
{
	static struct rows a, b;
	int64_t wa, wb;
	struct pv_profile *v4 =
	    t_load_format(t_data("hpctoolkit/inline-pair/metadb/inline.meta.db"), NULL);
	struct pv_profile *xml =
	    t_load_format(t_data("hpctoolkit/inline-pair/xml/inline.xml.db"), NULL);
	if (!v4 || !xml)
		goto out;
	T_EQ_STR(pv_str(xml, xml->meta.format), "hpctoolkit-xml");
	T_EQ_STR(pv_str(xml, xml->meta.format_version), "2.2");
	T_EQ_INT(v4->threads.len, 8);
	T_EQ_INT(xml->threads.len, 8);
	T_EQ_STR(pv_str(xml, xml->threads.name[7]), "RANK 0 THREAD 7");
	if (!tree_rows(v4, "loop", NULL, &a, &wa) || !tree_rows(xml, "loop", NULL, &b, &wb))
		goto out;
	/* the program's own part, under each generation's root of the main thread */
	static const char *const own[] = {"main",
					  "main;f",
					  "main;f;GOMP_parallel [libgomp.so.1.0.0]",
					  "main;f;GOMP_parallel [libgomp.so.1.0.0];f._omp_fn.0",
					  "main;f;GOMP_parallel [libgomp.so.1.0.0];f._omp_fn.0;"
					  "loop at inline_f.c:14",
					  "main;f;GOMP_parallel [libgomp.so.1.0.0];f._omp_fn.0;"
					  "loop at inline_f.c:14;loop at inline_f.c:14"};
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		char p4[512], px[512];
		bool f4, fx;
		snprintf(p4, sizeof(p4), "main thread;%s", own[i]);
		snprintf(px, sizeof(px), "<program root>;%s", own[i]);
		row_total(&a, p4, &f4);
		int64_t x = row_total(&b, px, &fx);
		if (!f4 || !fx)
			t_fail(__FILE__, __LINE__, "%s: format 4 %s, xml %s", own[i],
			       f4 ? "has it" : "has not", fx ? "has it" : "has not");
		/* experiment.xml's own figures (cycles:Sum (I) of PF i=6 and L i=35) */
		if (i == 0)
			T_TRUE(sig6((double)x) == 1.57426e10);
		if (i == 4)
			T_TRUE(sig6((double)x) == 1.57221e10);
	}
	/* the whole program: M n="4" v="1.13528e+11" at the root */
	T_TRUE(sig6((double)wb) == 1.13528e11);
out:
	pv_profile_free(v4);
	pv_profile_free(xml);
}

/*
 * experiment.xml 2.0 with one metric-db per thread: ranks x threads; and one *.hpctrace per
 * rank 0-3 (thread 0): ranks 2 and 3 are threads with a trace and no values.
 */
T_TEST(hpctoolkit_legacy_gauss)
{
	struct pv_profile *p = t_load_format(t_data("hpctoolkit/legacy-xml-gauss"), NULL);
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.format_version), "2.0");
	T_EQ_INT(p->threads.len, 6);
	static const char *const names[] = {"RANK 0 THREAD 0", "RANK 0 THREAD 1",
					    "RANK 1 THREAD 0", "RANK 1 THREAD 1",
					    "RANK 2 THREAD 0", "RANK 3 THREAD 0"};
	T_EQ_INT(p->threads.sample_end[4] - p->threads.sample_begin[4], 0);
	for (uint32_t t = 0; t < 6 && t < p->threads.len; t++)
		T_EQ_STR(pv_str(p, p->threads.name[t]), names[t]);
	T_EQ_STR(pv_str(p, p->metrics.name[0]), "WALLCLOCK (us)");
	T_EQ_INT(p->metrics.unit[0], PV_UNIT_NS);
	/* each thread's whole program (µs in the files, ns here) */
	int64_t total[4] = {0};
	for (uint32_t t = 0; t < p->threads.len && t < 4; t++)
		for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t]; s++)
			total[t] += pv_sample_weight(p, 0, s);
	T_EQ_INT(total[0], 27273007000LL);
	T_EQ_INT(total[1], 0);
	T_EQ_INT(total[2], 27182721000LL);
	/* the XML's "WALLCLOCK (us):Max (I)" of the root, over its 64 sources, is rank 0's */
	T_TRUE(sig6((double)total[0] / 1000) == 2.7273e7);
	pv_profile_free(p);
}

/*
 * The two exclusive costs of format 4 (doc/hpctoolkit.md): by loop, a loop's self is its own
 * statements (the "lex_aware" values); with --self nested it also holds its nested loops, and a
 * procedure's its loops (the "function" values, HPCToolkit's standard exclusive). The expected
 * figures are the database's own stored values of those scopes (summary profile, seconds).
 */
T_TEST(hpctoolkit_exclusive_definitions)
{
	static struct rows own, nested;
	int64_t w;
	struct pv_profile *p =
	    t_load_format(t_data("hpctoolkit/loops-cputime-t.d"), "hpctoolkit-summary");
	if (!p || !tree_rows_self(p, "loop", NULL, NULL, &own, &w) ||
	    !tree_rows_self(p, "loop", NULL, "nested", &nested, &w)) {
		pv_profile_free(p);
		return;
	}
	static const struct {
		const char *path;
		double lex_aware, function; /* seconds, as stored */
	} want[] = {
	    {"main._omp_fn.0", 0, 0.963364}, /* own 0: all of it is in its loops */
	    {"main._omp_fn.0;loop at loops.c:1010", 0, 0.963364},
	    {"main._omp_fn.0;loop at loops.c:1010;loop at loops.c:1010", 0.216478, 0.963364},
	    {"main._omp_fn.0;loop at loops.c:1010;loop at loops.c:1010;loop at loops.c:1018",
	     0.208203, 0.208203},
	    {"main._omp_fn.0;loop at loops.c:1010;loop at loops.c:1010;loop at loops.c:1011",
	     0.323228, 0.538683},
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char path[512];
		snprintf(path, sizeof(path), "application thread;libgomp.so.1.0.0@0x1a86d;%s",
			 want[i].path);
		bool f1 = false, f2 = false;
		int k1 = -1, k2 = -1;
		for (int r = 0; r < own.n && !f1; r++)
			if ((f1 = strcmp(own.path[r], path) == 0))
				k1 = r;
		for (int r = 0; r < nested.n && !f2; r++)
			if ((f2 = strcmp(nested.path[r], path) == 0))
				k2 = r;
		if (!f1 || !f2) {
			t_fail(__FILE__, __LINE__, "no row %s", path);
			continue;
		}
		/* own costs come from inclusive values rounded to the ns: a few ns apart at most */
		if (llabs(own.self[k1] - llround(want[i].lex_aware * 1e9)) > 8 ||
		    llabs(nested.self[k2] - llround(want[i].function * 1e9)) > 8)
			t_fail(__FILE__, __LINE__,
			       "%s: self %" PRId64 " / nested %" PRId64
			       ", the database %.6f / %.6f",
			       want[i].path, own.self[k1], nested.self[k2], want[i].lex_aware,
			       want[i].function);
		/* the total is the same either way */
		T_EQ_INT(own.total[k1], nested.total[k2]);
	}
	pv_profile_free(p);
}

/* The first flat row after from named name at level (any level: -1); PV_NONE when none. */
static uint32_t flat_row(const struct pv_view *v, uint32_t from, const char *name, int level)
{
	char b[256];
	const struct pv_flat *f = v->flat;
	for (uint32_t r = from; r < f->len; r++)
		if ((level < 0 || f->level[r] == level) &&
		    strcmp(pv_view_row_name(v, f->kind[r], f->id[r], b, sizeof(b), f->line[r]),
			   name) == 0)
			return r;
	return PV_NONE;
}

/*
 * hpcviewer's flat view: function > loop > nested loop > line. On loops-cputime-t.d,
 * main._omp_fn.0's loop at 1011 is in two loops at 1010 (levels 3 and 4), holds the loop at 1012
 * and the lines 1013/1012 are in that one. A loop's self is its own lines' (HPCToolkit's lex_aware
 * exclusive), with --self nested also its nested loops' (the function scope's): summed over the
 * loop's two contexts, 0.323228 + 0.059911 s and 0.538683 + 0.137708 s (the application threads'
 * figures are the database's stored ones, hpctoolkit_exclusive_definitions).
 */
T_TEST(hpctoolkit_flat_loops_nest)
{
	struct pv_profile *p = t_load(t_data("hpctoolkit/loops-cputime-t.d"));
	if (!p)
		return;
	static const char *const modes[] = {"own", "nested"};
	static const int64_t self1011[] = {383139000, 676391000};
	for (int k = 0; k < 2; k++) {
		struct pv_query q;
		struct pv_error err;
		struct pv_view *v = NULL;
		pv_query_init(&q);
		T_EQ_INT(pv_query_set_option(&q, "by", "line", &err), 0);
		T_EQ_INT(pv_query_set_option(&q, "self", modes[k], &err), 0);
		q.view = PV_VIEW_FLAT;
		if (pv_view_compute(p, &q, &v, &err)) {
			t_fail(__FILE__, __LINE__, "%s", err.msg);
			pv_query_release(&q);
			continue;
		}
		const struct pv_flat *f = v->flat;
		uint32_t fn = flat_row(v, 0, "main._omp_fn.0", 2);
		uint32_t outer =
		    fn == PV_NONE ? PV_NONE : flat_row(v, fn, "loop at loops.c:1010", 3);
		uint32_t inner =
		    outer == PV_NONE ? PV_NONE : flat_row(v, outer, "loop at loops.c:1010", 4);
		uint32_t l1011 =
		    inner == PV_NONE ? PV_NONE : flat_row(v, inner, "loop at loops.c:1011", 5);
		uint32_t l1012 =
		    l1011 == PV_NONE ? PV_NONE : flat_row(v, l1011, "loop at loops.c:1012", 6);
		uint32_t s1013 =
		    l1012 == PV_NONE ? PV_NONE : flat_row(v, l1012, "main._omp_fn.0:1013", 7);
		T_TRUE(s1013 != PV_NONE);
		if (s1013 != PV_NONE) {
			/* nothing between a row and its parent but the parent's other children */
			for (uint32_t r = fn + 1; r < s1013; r++)
				T_TRUE(f->level[r] > 2);
			T_EQ_INT(outer, fn + 1);
			T_EQ_INT(inner, outer + 1);
			T_EQ_INT(l1011, inner + 1);
			T_TRUE(llabs(f->total[0][l1011] - 2423369000LL) <=
			       4); /* 0.640653 + 1.782716 */
			T_TRUE(llabs(f->self[0][l1011] - self1011[k]) <= 8);
			/* the innermost loop's self is its lines' either way */
			T_EQ_INT(f->self[0][l1012], f->total[0][l1012]);
			T_EQ_INT(f->self[0][l1012], 293252000LL);
			/* a procedure's self is every line of it, in loops or not */
			T_EQ_INT(f->self[0][fn], 1244893000LL);
		}
		pv_view_free(v);
		/* the list of every loop and line (top) gives the loops the same selves, and no
		 * row a self above its total (a line in and out of a loop is one row there) */
		q.view = PV_VIEW_TOP;
		if (pv_view_compute(p, &q, &v, &err) == 0) {
			uint32_t r = flat_row(v, 0, "loop at loops.c:1011", -1);
			T_TRUE(r != PV_NONE && llabs(v->flat->self[0][r] - self1011[k]) <= 8);
			for (uint32_t i = 0; i < v->flat->len; i++)
				T_TRUE(v->flat->self[0][i] <= v->flat->total[0][i]);
			pv_view_free(v);
		} else {
			t_fail(__FILE__, __LINE__, "%s", err.msg);
		}
		pv_query_release(&q);
	}
	pv_profile_free(p);
}

/*
 * A loop nested in itself: inline-pair's two loops on line 14 of inline_f.c have no address in
 * either database, so they are one frame, L > L (as are its libgomp loops at line 0 of a file
 * without lines). The lists (top by loop, by line) have one row for both: its self counts each
 * sample once, whether own (the loops' own lines) or nested (with their nested loops'). The
 * database's figures: format 4 (summary profile, "function" scope, which is also the inner
 * loops' own: nothing is nested in them) 86507049736 and 14405833356 at the outer contexts
 * 47 and 109, the same at the inner 50 and 111; the XML's per-thread exclusive values
 * (experiment-1.mdb, the 8 threads summed) 0 at the outer nodes 35 and 76, 15722128343 and
 * 97662725792 at the inner 36 and 77; its libgomp loops' 20438516 + 122672868 (nodes 44, 85 in
 * 0x1f720) and 25 + 13 (25, 53 in 0x1f670). --self nested counted the inner row twice.
 */
T_TEST(hpctoolkit_loop_nested_in_itself)
{
	static const struct {
		const char *db, *loop;
		int64_t self;
	} want[] = {
	    {"hpctoolkit/inline-pair/metadb/inline.meta.db", "loop at inline_f.c:14",
	     86507049736LL + 14405833356LL},
	    {"hpctoolkit/inline-pair/xml/inline.xml.db", "loop at inline_f.c:14",
	     15722128343LL + 97662725792LL},
	    {"hpctoolkit/inline-pair/xml/inline.xml.db", "loop at [libgomp.so.1.0.0]:0",
	     20438516 + 122672868},
	};
	static const char *const bys[] = {"loop", "line"}, *const selves[] = {"own", "nested"};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct pv_profile *p = t_load(t_data(want[i].db));
		if (!p)
			continue;
		for (int b = 0; b < 2; b++)
			for (int k = 0; k < 2; k++) {
				struct pv_query q;
				struct pv_error err;
				struct pv_view *v = NULL;
				pv_query_init(&q);
				T_EQ_INT(pv_query_set_option(&q, "by", bys[b], &err), 0);
				T_EQ_INT(pv_query_set_option(&q, "self", selves[k], &err), 0);
				q.view = PV_VIEW_TOP;
				if (pv_view_compute(p, &q, &v, &err)) {
					t_fail(__FILE__, __LINE__, "%s", err.msg);
					pv_query_release(&q);
					continue;
				}
				uint32_t r = flat_row(v, 0, want[i].loop, -1);
				T_TRUE(r != PV_NONE);
				if (r != PV_NONE && v->flat->self[0][r] != want[i].self)
					t_fail(__FILE__, __LINE__,
					       "%s by %s, self %s: %s %" PRId64
					       ", the database %" PRId64,
					       want[i].db, bys[b], selves[k], want[i].loop,
					       v->flat->self[0][r], want[i].self);
				for (uint32_t j = 0; j < v->flat->len; j++)
					T_TRUE(v->flat->self[0][j] <= v->flat->total[0][j]);
				pv_view_free(v);
				pv_query_release(&q);
			}
		pv_profile_free(p);
	}
}

/* tree --center loop:FILE:LINE: the loop's inclusive value at the top, the database's own. */
T_TEST(hpctoolkit_center_loop)
{
	struct pv_profile *p = t_load_format(t_data("hpctoolkit/loops-cputime-t.d"), NULL);
	if (!p)
		return;
	struct pv_query q;
	struct pv_error err;
	struct pv_view *v = NULL;
	pv_query_init(&q);
	T_EQ_INT(pv_query_set_option(&q, "center", "loop:loops.c:1011", &err), 0);
	T_EQ_INT(pv_query_set_option(&q, "by", "loop", &err), 0);
	if (pv_view_compute(p, &q, &v, &err) == 0) {
		/* the two contexts of the loop (main thread 0.640653 s, application threads
		 * 1.782716 s: "execution" values of the summary profile), summed over 4 threads */
		T_TRUE(llabs(v->center[0] - 2423369000LL) <= 4);
		T_EQ_INT(v->tree->nr_roots, 1);
		T_EQ_INT(v->tree->kind[v->tree->roots[0]], PV_ROW_CENTER);
		T_EQ_INT(v->tree->total[0][v->tree->roots[0]], v->center[0]);
		pv_view_free(v);
	} else {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
	}
	pv_query_release(&q);
	/* by function name, and a scope that names no loop */
	pv_query_init(&q);
	T_EQ_INT(pv_query_set_option(&q, "center", "loop:func2:26", &err), 0);
	if (pv_view_compute(p, &q, &v, &err) == 0) {
		T_TRUE(llabs(v->center[0] - 317062000LL) <= 4); /* 0.257138 + 0.059924 */
		pv_view_free(v);
	} else {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
	}
	pv_query_release(&q);
	pv_query_init(&q);
	T_EQ_INT(pv_query_set_option(&q, "center", "loop:func2:27", &err), 0);
	T_EQ_INT(pv_view_compute(p, &q, &v, &err), PV_EINVAL);
	T_CONTAINS(err.msg, "matches no loop of the profile");
	pv_query_release(&q);
	pv_profile_free(p);
}

/*
 * hpcviewer's hot path (pv_tree_hot_path), on doc/views.md's worked example: main 26 >
 * real_main 15 > foo 11 > bar 10; real_main holds 58 % of main, foo 73 % of real_main.
 */
T_TEST(hot_path)
{
	struct pv_profile *p = t_load_format(t_data("collapsed/worked-example.txt"), NULL);
	if (!p)
		return;
	struct pv_query q;
	struct pv_error err;
	struct pv_view *v = NULL;
	pv_query_init(&q);
	if (pv_view_compute(p, &q, &v, &err) == 0) {
		const struct pv_tree *t = v->tree;
		uint32_t rows[16];
		static const struct {
			double fraction;
			uint32_t n;
			int64_t last;
		} want[] = {{0.5, 4, 10}, {0.576, 4, 10}, {0.578, 1, 26}, {0.95, 1, 26}};
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			uint32_t n = pv_tree_hot_path(t, PV_NONE, want[i].fraction, rows, 16);
			T_EQ_INT(n, want[i].n);
			if (n)
				T_EQ_INT(t->total[0][rows[n - 1]], want[i].last);
		}
		/* from a row: real_main (15) > foo (11) > bar; foo has 73 % of real_main */
		uint32_t n = pv_tree_hot_path(t, PV_NONE, 0.5, rows, 16);
		if (n >= 2) {
			uint32_t from = rows[1];
			T_EQ_INT(pv_tree_hot_path(t, from, 0.5, rows, 16), 3);
			T_EQ_INT(t->total[0][rows[0]], 15);
			T_EQ_INT(pv_tree_hot_path(t, from, 0.75, rows, 16), 1);
		}
		/* cap */
		T_EQ_INT(pv_tree_hot_path(t, PV_NONE, 0.5, rows, 2), 2);
		pv_view_free(v);
	} else {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
	}
	pv_query_release(&q);
	pv_profile_free(p);
}

/* The tree transforms read back equal from each of the query's three notations. */
T_TEST(transform_notations)
{
	static const char *const opts[][2] = {{"collapse-subtree", "foo"},
					      {"prune", "re:^std::"},
					      {"collapse-direct-recursion", "a"},
					      {"focus-self", "loop:loops.c:1011"},
					      {"focus-inverted", "path:baz;foo"},
					      {"derive", "IPC=$instructions / ${cycles (x)}"},
					      {"derive", "d=@0^2"},
					      {"self", "nested"},
					      {"by", "loop"}};
	struct pv_query q, u, j;
	struct pv_error err;
	pv_query_init(&q);
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		T_EQ_INT(pv_query_set_option(&q, opts[i][0], opts[i][1], &err), 0);
	T_EQ_INT(q.nr_filters, 5);
	T_EQ_INT(q.filters[1].kind, PV_FILTER_PRUNE);
	T_EQ_INT(q.filters[4].kind, PV_FILTER_FOCUS_INVERTED);
	char *url = pv_query_to_url(&q), *json = pv_query_to_json(&q), *args = pv_query_to_args(&q);
	T_TRUE(url && json && args);
	if (url && json) {
		T_EQ_INT(pv_query_from_url(&u, url, &err), 0);
		T_EQ_INT(pv_query_from_json(&j, json, strlen(json), &err), 0);
		T_TRUE(pv_query_equal(&q, &u));
		T_TRUE(pv_query_equal(&q, &j));
		pv_query_release(&u);
		pv_query_release(&j);
	}
	T_CONTAINS(args, "--collapse-direct-recursion a");
	T_CONTAINS(url, "filter=focus-inverted%3Apath%3Abaz%3Bfoo");
	T_CONTAINS(json, "{\"focus-inverted\": \"path:baz;foo\"}");
	T_CONTAINS(json, "\"derive\": [\"IPC=$instructions / ${cycles (x)}\", \"d=@0^2\"]");
	T_CONTAINS(args, "--derive 'IPC=$instructions / ${cycles (x)}' --derive 'd=@0^2'");
	free(url);
	free(json);
	free(args);
	pv_query_release(&q);
}

/*
 * Statistics across threads (--metric NAME:STAT): loops-cputime-t.d's main thread runs on
 * thread 0 only (0.994165 s of 4 threads), clock_diff's 5.991 ms on one thread.
 */
T_TEST(stats_across_threads)
{
	struct pv_profile *p = t_load_format(t_data("hpctoolkit/loops-cputime-t.d"), NULL);
	if (!p)
		return;
	struct pv_query q;
	struct pv_error err;
	struct pv_view *v = NULL;
	pv_query_init(&q);
	T_EQ_INT(pv_query_set_option(&q, "metric",
				     "CPUTIME (sec):mean,CPUTIME (sec):max,CPUTIME (sec):min,"
				     "CPUTIME (sec):stddev,CPUTIME (sec):cfvar,CPUTIME (sec):sum",
				     &err),
		 0);
	if (pv_view_compute(p, &q, &v, &err) == 0) {
		char b[300];
		T_EQ_STR(pv_view_metric_name(v, 0, b, sizeof(b)), "CPUTIME (sec):mean");
		T_EQ_INT(v->stat[4], PV_STAT_CFVAR);
		T_EQ_INT(pv_view_metric_unit(v, 4), PV_UNIT_COUNT);
		/* the whole program: the mean of the 4 threads' totals, their max and min */
		T_EQ_INT(v->whole[0], 993327000); /* 3973.308 ms / 4 */
		T_EQ_INT(v->whole[1], 994165000);
		T_EQ_INT(v->whole[2], 992704000);
		T_EQ_INT(v->whole[5], 3973308000LL);
		/* the row "main thread" (a root): thread 0 alone */
		const struct pv_tree *t = v->tree;
		bool found = false;
		for (uint32_t i = 0; i < t->nr_roots; i++) {
			uint32_t r = t->roots[i];
			if (strcmp(
				pv_view_row_name(v, t->kind[r], t->id[r], b, sizeof(b), t->line[r]),
				"main thread") != 0)
				continue;
			found = true;
			T_EQ_INT(t->total[0][r], 248541250); /* 994165000 / 4 */
			T_EQ_INT(t->total[1][r], 994165000);
			T_EQ_INT(t->total[2][r], 0);
			/* one thread of 4 nonzero: stddev = x * sqrt(3) / 4, cfvar = sqrt(3) */
			T_EQ_INT(t->total[3][r], llround(994165000.0 * sqrt(3) / 4));
			T_EQ_INT(t->total[4][r], 1732051);
			T_EQ_INT(t->total[5][r], 994165000);
		}
		T_TRUE(found);
		/* the first column orders the rows: "main thread" (248 ms) after the
		 * application threads (745 ms) */
		T_TRUE(t->nr_roots >= 2 && t->total[0][t->roots[0]] >= t->total[0][t->roots[1]]);
		pv_view_free(v);
	} else {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
	}
	pv_query_release(&q);
	/* a bad statistic is a bad metric name */
	pv_query_init(&q);
	T_EQ_INT(pv_query_set_option(&q, "metric", "CPUTIME (sec):median", &err), 0);
	T_EQ_INT(pv_view_compute(p, &q, &v, &err), PV_EINVAL);
	T_CONTAINS(err.msg, "no metric named 'CPUTIME (sec):median'");
	pv_query_release(&q);
	pv_profile_free(p);
}

/* ---- the databases' own derived metrics ---- */

/* The count of the diag holding every one of words, 0 when none does. */
static uint64_t diag_count(const struct pv_profile *p, const char *const *words)
{
	for (uint32_t i = 0; i < p->diags.len; i++) {
		const char *msg = pv_str(p, p->diags.msg[i]);
		bool all = true;
		for (const char *const *w = words; *w && all; w++)
			all = strstr(msg, *w) != NULL;
		if (all)
			return p->diags.count[i];
	}
	return 0;
}

/* Whether a diag holds every one of words. */
static bool diag_has(const struct pv_profile *p, const char *const *words)
{
	return diag_count(p, words) > 0;
}

/* The whole program's value of each of the comma-separated metrics (derived ones too). */
static bool whole_values(const struct pv_profile *p, const char *metrics, double *out, int n)
{
	struct pv_query q;
	struct pv_view *v = NULL;
	struct pv_error err;
	pv_query_init(&q);
	int rc = pv_query_set_option(&q, "metric", metrics, &err);
	if (!rc)
		rc = pv_view_compute(p, &q, &v, &err);
	pv_query_release(&q);
	if (rc) {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
		return false;
	}
	for (int i = 0; i < n; i++)
		out[i] = pv_view_value(v, (uint32_t)i, v->whole[i]);
	pv_view_free(v);
	return true;
}

#define T_NEAR6(a, b) T_TRUE(fabs((a) - (b)) <= 1e-6 * fabs(b))

/* The whole program's value and the first row named row's self in a top list, of metric. */
static bool top_values(const struct pv_profile *p, const char *metric, const char *row,
		       double *whole, double *self)
{
	struct pv_query q;
	struct pv_view *v = NULL;
	struct pv_error err;
	pv_query_init(&q);
	q.view = PV_VIEW_TOP;
	int rc = pv_query_set_option(&q, "metric", metric, &err);
	if (!rc)
		rc = pv_view_compute(p, &q, &v, &err);
	pv_query_release(&q);
	if (rc) {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
		return false;
	}
	*whole = pv_view_value(v, 0, v->whole[0]);
	uint32_t r = flat_row(v, 0, row, -1);
	*self = r == PV_NONE ? NAN : pv_view_value(v, 0, v->flat->self[0][r]);
	T_TRUE(r != PV_NONE);
	pv_view_free(v);
	return r != PV_NONE;
}

/*
 * derived.d is small.d with metrics added to its metrics/default.yaml (README.md there):
 * CPUTIME (sec) is x = 1.210259 s in all (spinsleep under main: 0.604943 s), so
 * "CPUTIME (ms)" = [*exec, '*', 1000] (its variants after its children, whose second, "no
 * formula", has none) is 1210.259 and "log share" = [log:[[1000 *, *exec]], -, {log: [2, 10]}]
 * is ln(1210.259) - log10(2); in hpcprof's operator maps, "operators" = {-: [{^: [x, 2]},
 * {"*": [2, x]}, {-: [1]}]} is (x - 1)^2 and "logarithms" = {+: [{ln: [x]}, {log: [100, 10]},
 * {'/': [1, 4]}]} ln(x) + 2.25; "self only" has an exclusive formula alone (custom: lex_aware
 * input times 1000): no totals, selves of 1000 x; "two formulas" 1000 x for totals, 3000 x for
 * selves (the standard exclusive, not the custom 2000 x); "first variant" x + 1 (its second
 * variant, x + 2, is not read). "per thread" divides by an input of formula 1 (a count),
 * "broken" ends with its operator, "wrong scope" reads function values in an inclusive formula
 * and "bad map" is {+: 5}: those are left out, said in the diags.
 */
T_TEST(hpctoolkit_yaml_derived_metrics)
{
	struct pv_profile *p = t_load_format(t_data("hpctoolkit/derived.d"), NULL);
	if (!p)
		return;
	T_EQ_INT(p->metrics.len, 1);
	T_EQ_INT(p->formulas.len, 7);
	static const char *const want[][3] = {
	    {"CPUTIME (ms)", "(${CPUTIME (sec)} * 1000)", ""},
	    {"log share", "(ln((1000 * ${CPUTIME (sec)})) - log(2, 10))", ""},
	    {"operators", "((${CPUTIME (sec)} ^ 2) - (2 * ${CPUTIME (sec)}) - (-1))", ""},
	    {"logarithms", "(ln(${CPUTIME (sec)}) + log(100, 10) + (1 / 4))", ""},
	    {"self only", "", "(${CPUTIME (sec)} * 1000)"},
	    {"two formulas", "(${CPUTIME (sec)} * 1000)", "(${CPUTIME (sec)} * 3000)"},
	    {"first variant", "(${CPUTIME (sec)} + 1)", ""},
	};
	for (uint32_t i = 0; i < 7 && i < p->formulas.len; i++) {
		T_EQ_STR(pv_str(p, p->formulas.name[i]), want[i][0]);
		T_EQ_STR(pv_str(p, p->formulas.formula[i]), want[i][1]);
		T_EQ_STR(pv_str(p, p->formulas.self[i]), want[i][2]);
	}
	if (p->formulas.len)
		T_EQ_STR(pv_str(p, p->formulas.description[0]), "CPUTIME in milliseconds");
	const double x = 1.210259, s = 0.604943;
	double w[5];
	if (whole_values(p, "CPUTIME (ms),log share,CPUTIME (sec),operators,logarithms", w, 5)) {
		T_NEAR6(w[0], 1210.259);
		T_NEAR6(w[1], log(1210.259) - log10(2));
		T_EQ_INT((int64_t)w[2], 1210259000); /* the metric's own column, in ns */
		T_NEAR6(w[3], (x - 1) * (x - 1));
		T_NEAR6(w[4], log(x) + 2.25);
	}
	double whole, self;
	if (top_values(p, "self only", "spinsleep", &whole, &self)) {
		T_TRUE(isnan(whole)); /* no totals */
		T_NEAR6(self, 1000 * (s + 0.605316));
	}
	if (top_values(p, "two formulas", "spinsleep", &whole, &self)) {
		T_NEAR6(whole, 1000 * x);
		T_NEAR6(self, 3000 * (s + 0.605316));
	}
	if (top_values(p, "first variant", "spinsleep", &whole, &self))
		T_NEAR6(whole, x + 1);
	T_TRUE(diag_has(
	    p, (const char *const[]){"'per thread'", "*CPUTIME-count", "formula 1", NULL}));
	T_TRUE(diag_has(p, (const char *const[]){"'broken'", "not a formula", NULL}));
	T_TRUE(diag_has(p, (const char *const[]){"'wrong scope'", "function values", NULL}));
	T_TRUE(diag_has(p, (const char *const[]){"'bad map'", "{+: ...} without its [...]", NULL}));
	pv_profile_free(p);
}

/*
 * loops-cuda-nvidiapc-t.d is one of HPCToolkit's own test databases (hpcprof's GPU metrics):
 * two derived metrics in hpcprof's operator maps with an inclusive formula,
 * GINS:LAT_THR = {+: [{/: [COV, COV]}, {/: [UCV, COV]}]} (its inputs all 0: no value) and
 * GSAMP:UTIL = {min: [100, {max: [0, {/: [{"*": [100, TOT]}, EXP]}]}]} (GSAMP:TOT 657096 and
 * GSAMP:EXP 712800 in all: 92.185 %), and ten with an exclusive formula alone, as
 * GKER:LMEM (B) = {/: [LMEM_ACUMU, COUNT]}: no totals, the kernel kernmain()'s self
 * 13094092800 B / 100 launches, GKER:OCC_THR = {"*": [100, {/: [FGP_ACT_ACUMU,
 * FGP_MAX_ACUMU]}]} 100 * 800 / 6400. Nothing is left out.
 */
T_TEST(hpctoolkit_yaml_operator_maps)
{
	struct pv_profile *p = t_load_format(t_data("hpctoolkit/loops-cuda-nvidiapc-t.d"), NULL);
	if (!p)
		return;
	T_EQ_INT(p->formulas.len, 12);
	if (p->formulas.len == 12) {
		T_EQ_STR(pv_str(p, p->formulas.name[0]), "GINS:LAT_THR");
		T_EQ_STR(pv_str(p, p->formulas.formula[0]),
			 "((${GINS:LAT_COV} / ${GINS:LAT_COV}) + (${GINS:LAT_UCV} / "
			 "${GINS:LAT_COV}))");
		T_EQ_INT(p->formulas.self[0], 0);
		T_EQ_STR(pv_str(p, p->formulas.name[1]), "GSAMP:UTIL");
		T_EQ_STR(pv_str(p, p->formulas.formula[1]),
			 "min(100, max(0, ((100 * ${GSAMP:TOT}) / ${GSAMP:EXP})))");
		for (uint32_t i = 2; i < 12; i++) {
			T_EQ_INT(p->formulas.formula[i], 0);
			T_TRUE(p->formulas.self[i] != 0);
		}
		T_EQ_STR(pv_str(p, p->formulas.name[4]), "GKER:LMEM (B)");
		T_EQ_STR(pv_str(p, p->formulas.self[4]),
			 "(${GKER:LMEM_ACUMU (B)} / ${GKER:COUNT})");
	}
	double whole, self;
	if (top_values(p, "GSAMP:UTIL", "kernmain()", &whole, &self))
		T_NEAR6(whole, 100.0 * 657096 / 712800);
	if (top_values(p, "GINS:LAT_THR", "kernmain()", &whole, &self))
		T_TRUE(isnan(whole)); /* 0 / 0 */
	if (top_values(p, "GKER:LMEM (B)", "kernmain()", &whole, &self)) {
		T_TRUE(isnan(whole));
		T_NEAR6(self, 13094092800.0 / 100);
	}
	if (top_values(p, "GKER:OCC_THR", "kernmain()", &whole, &self))
		T_NEAR6(self, 100.0 * 800 / 6400);
	T_TRUE(!diag_has(p, (const char *const[]){"derived metric", NULL}));
	pv_profile_free(p);
}

/*
 * derived-xml is inline-pair's experiment.xml (and experiment-1.mdb) with four derived <Metric>s
 * added (README.md there): IPC = $6 / $4 (instructions:Sum over cycles:Sum: the 8 threads' root
 * values in experiment-1.mdb add up to 21566219051 instructions and 113527965558 cycles),
 * "cycles per 1000 of the whole" = 1000 * #0 / @4 (order 0 is cycles: 1000 at the root),
 * "broken" = ($6 + , "unknown reference" = $6 / $42 and "itself" = $12 * 2 (its own id): the
 * last three are left out.
 */
T_TEST(hpctoolkit_xml_derived_metrics)
{
	struct pv_profile *p = t_load_format(t_data("hpctoolkit/derived-xml"), NULL);
	if (!p)
		return;
	T_EQ_INT(p->metrics.len, 2);
	T_EQ_INT(p->formulas.len, 2);
	if (p->formulas.len == 2) {
		T_EQ_STR(pv_str(p, p->formulas.name[0]), "IPC");
		T_EQ_STR(pv_str(p, p->formulas.formula[0]), "${instructions} / ${cycles}");
		T_EQ_STR(pv_str(p, p->formulas.description[0]), "instructions per cycle");
		T_EQ_STR(pv_str(p, p->formulas.name[1]), "cycles per 1000 of the whole");
		T_EQ_STR(pv_str(p, p->formulas.formula[1]), "1000 * ${cycles} / @{cycles}");
	}
	double w[2];
	if (whole_values(p, "IPC,cycles per 1000 of the whole", w, 2)) {
		T_NEAR6(w[0], 21566219051.0 / 113527965558.0);
		T_NEAR6(w[1], 1000.0);
	}
	T_TRUE(diag_has(p, (const char *const[]){"'broken'", "not a formula", NULL}));
	T_TRUE(diag_has(p, (const char *const[]){"'unknown reference'", "$42", NULL}));
	T_TRUE(diag_has(p, (const char *const[]){"'itself'", "$12", NULL}));
	pv_profile_free(p);
}

/*
 * inline-xml-summary is inline-pair's experiment.xml without its per-thread files: its summary
 * values (6 digits) make one thread, a node's own cost its value less its children's. The
 * "<inline>" placeholders hold values of their own, those of their children: they are not
 * counted again in the node they stand in (f._omp_fn.0 under 0x1cc55 is 9.76627e10 once, not
 * twice, which gave its caller an own cost of -9.76627e10). The 4 contexts whose value is below
 * their children's sum get 0, said in the diags: the inner loop at inline_f.c:14 under main
 * holds 9.69935e9 + 6.02278e9 = 15722130000, 30000 above its own 1.57221e10.
 */
T_TEST(hpctoolkit_xml_summary_clamped)
{
	struct pv_profile *p = t_load_format(t_data("hpctoolkit/inline-xml-summary"), NULL);
	if (!p)
		return;
	static struct rows rows;
	int64_t whole = 0;
	if (tree_rows(p, "line", NULL, &rows, &whole)) {
		for (int i = 0; i < rows.n; i++) {
			if (rows.self[i] < 0 || rows.total[i] > whole)
				t_fail(__FILE__, __LINE__, "%s: self %" PRId64 ", total %" PRId64,
				       rows.path[i], rows.self[i], rows.total[i]);
		}
		bool found;
		T_EQ_INT(row_total(&rows,
				   "<thread root>;<unknown procedure> 0x1cc55 "
				   "[libgomp.so.1.0.0];f._omp_fn.0",
				   &found),
			 97662700000LL);
		T_TRUE(found);
		static const char loop[] = "<program root>;main:11;f:2;GOMP_parallel "
					   "[libgomp.so.1.0.0];f._omp_fn.0;loop at "
					   "inline_f.c:14;loop at inline_f.c:14";
		T_EQ_INT(row_total(&rows, loop, &found), 15722130000LL);
		T_TRUE(found);
		for (int i = 0; i < rows.n; i++)
			if (strcmp(rows.path[i], loop) == 0)
				T_EQ_INT(rows.self[i], 0);
	}
	T_EQ_U64(diag_count(p, (const char *const[]){"negative, shown as 0", NULL}), 4);
	pv_profile_free(p);
}

/*
 * A database's metrics/default.yaml opens the database, as its other files do: named from the
 * database's parent, from inside metrics/ (the working folder's name says where it is) and
 * through "..". A YAML file outside a metrics/ folder (HPCToolkit's dump small.yaml) is none.
 */
T_TEST(hpctoolkit_open_metrics_yaml)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	char cwd[4096];
	T_EQ_INT(pv_import_file(t_data("hpctoolkit/small.d/metrics/default.yaml"), NULL, &p, &err),
		 0);
	if (p) {
		T_EQ_STR(pv_str(p, p->metrics.name[0]), "CPUTIME (sec)");
		T_EQ_STR(pv_str(p, p->metrics.description[0]), "CPUTIME (sec)");
		T_EQ_INT(p->threads.len, 1);
		pv_profile_free(p);
		p = NULL;
	}
	T_TRUE(getcwd(cwd, sizeof(cwd)) != NULL);
	T_TRUE(chdir(t_data("hpctoolkit/small.d/metrics")) == 0);
	static const char *const names[] = {"default.yaml", "./default.yaml",
					    "../metrics/default.yaml"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		T_EQ_INT(pv_import_file(names[i], NULL, &p, &err), 0);
		if (p) {
			T_EQ_STR(pv_str(p, p->metrics.name[0]), "CPUTIME (sec)");
			T_EQ_INT(p->threads.len, 1);
			pv_profile_free(p);
			p = NULL;
		}
	}
	T_TRUE(chdir(cwd) == 0);
	T_TRUE(pv_import_file(t_data("hpctoolkit/small.yaml"), NULL, &p, &err) != 0);
	T_CONTAINS(err.msg, "not a profile format");
	pv_profile_free(p);
}

/*
 * hpc_cct_stacks deduplicates a tree's stacks itself (below each stack, a list of its children
 * and past 16 a map): a tree whose nodes repeat their siblings gets the stacks the builder's own
 * interning gives, counted by hand. main > g with loops at lines 1..20 twice (20 stacks below
 * g's: the map), main > h with loops at 1 2 3 1 2 (3: the list), and main's own line 7 twice
 * (a sibling of main's stack at line 7: one).
 */
static void cct_repeats(struct pv_builder *b, struct hpc_cct *t, uint32_t *loop_g, uint32_t *loop_h,
			uint32_t *line7)
{
	pv_func_ix fm = builder_func(b, builder_cstr(b, "main"), PV_NONE, PV_NONE, 0);
	pv_func_ix fg = builder_func(b, builder_cstr(b, "g"), PV_NONE, PV_NONE, 0);
	pv_func_ix fh = builder_func(b, builder_cstr(b, "h"), PV_NONE, PV_NONE, 0);
	uint32_t m = hpc_cct_add(t, 0, HPC_FUNC, fm, PV_NONE, 0, PV_ADDR_NONE);
	uint32_t g = hpc_cct_add(t, m, HPC_FUNC, fg, PV_NONE, 0, PV_ADDR_NONE);
	for (uint32_t i = 0; i < 40; i++)
		loop_g[i] = hpc_cct_add(t, g, HPC_LOOP, PV_NONE, PV_NONE, 1 + i % 20, PV_ADDR_NONE);
	uint32_t h = hpc_cct_add(t, m, HPC_FUNC, fh, PV_NONE, 0, PV_ADDR_NONE);
	static const uint32_t hl[5] = {1, 2, 3, 1, 2};
	for (uint32_t i = 0; i < 5; i++)
		loop_h[i] = hpc_cct_add(t, h, HPC_LOOP, PV_NONE, PV_NONE, hl[i], PV_ADDR_NONE);
	line7[0] = hpc_cct_add(t, m, HPC_LINE, PV_NONE, PV_NONE, 7, PV_ADDR_NONE);
	line7[1] = hpc_cct_add(t, m, HPC_LINE, PV_NONE, PV_NONE, 7, PV_ADDR_NONE);
}

T_TEST(hpctoolkit_cct_stacks_dedup)
{
	for (int pre = 0; pre < 2; pre++) {
		/* pre: a stack made before, so the builder's own interning does it all */
		struct pv_builder b;
		struct hpc_cct t;
		T_EQ_INT(builder_init(&b), 0);
		T_EQ_INT(hpc_cct_init(&t), 0);
		if (pre)
			builder_stack(&b, PV_NONE,
				      builder_func_frame(&b, builder_func(&b, builder_cstr(&b, "x"),
									  PV_NONE, PV_NONE, 0)));
		uint32_t lg[40], lh[5], l7[2];
		cct_repeats(&b, &t, lg, lh, l7);
		pv_func_ix unknown =
		    builder_func(&b, builder_cstr(&b, "<unknown procedure>"), PV_NONE, PV_NONE, 0);
		T_EQ_INT(hpc_cct_stacks(&b, &t, unknown), 0);
		/* main, g, h, 20 loops of g, 3 of h, main at line 7 */
		T_EQ_INT(b.p->stacks.len, (uint32_t)pre + 27);
		for (uint32_t i = 0; i < 20; i++) {
			T_EQ_INT(t.stack[lg[i + 20]], t.stack[lg[i]]);
			T_EQ_INT(pv_frame_line(b.p, b.p->stacks.frame[t.stack[lg[i]]]), i + 1);
			T_TRUE(i == 0 || t.stack[lg[i]] != t.stack[lg[i - 1]]);
		}
		T_EQ_INT(t.stack[lh[3]], t.stack[lh[0]]);
		T_EQ_INT(t.stack[lh[4]], t.stack[lh[1]]);
		T_TRUE(t.stack[lh[2]] != t.stack[lh[0]] && t.stack[lh[2]] != t.stack[lh[1]]);
		/* g's and h's loops at line 1 are loops of two functions */
		T_TRUE(t.stack[lh[0]] != t.stack[lg[0]]);
		T_EQ_INT(t.stack[l7[1]], t.stack[l7[0]]);
		T_EQ_INT(b.p->stacks.prefix[t.stack[l7[0]]], PV_NONE);
		/* the builder finds the same stacks afterwards (its map rebuilt) */
		T_EQ_INT(builder_stack(&b, b.p->stacks.prefix[t.stack[lg[5]]],
				       b.p->stacks.frame[t.stack[lg[5]]]),
			 t.stack[lg[5]]);
		T_EQ_INT(b.p->stacks.len, (uint32_t)pre + 27);
		hpc_cct_release(&t);
		builder_release(&b);
	}
}

/*
 * hpc_scaled rounds to the nearest integer, ties to even (nearbyint's rule in the default
 * rounding mode), and counts the values that were not whole numbers to 1e-6 of their size.
 */
T_TEST(hpctoolkit_scaled_rounding)
{
	uint64_t frac = 0;
	T_EQ_INT(hpc_scaled(2.5, 1, &frac), 2);
	T_EQ_INT(hpc_scaled(3.5, 1, &frac), 4);
	T_EQ_INT(hpc_scaled(-2.5, 1, &frac), -2);
	T_EQ_INT(hpc_scaled(-3.5, 1, &frac), -4);
	T_EQ_INT(hpc_scaled(-0.4, 1, &frac), 0);
	T_EQ_INT(frac, 5);
	frac = 0;
	/* 0.1 ms in seconds to ns: 100000, not 99999 (0.0001 * 1e9 is 100000.00000000001) */
	T_EQ_INT(hpc_scaled(0.0001, 1e9, &frac), 100000);
	T_EQ_INT(hpc_scaled(1.234567891, 1e9, &frac), 1234567891);
	/* past 2^52 every double is an integer: kept as it is */
	T_EQ_INT(hpc_scaled(9007199254740993.0, 1, &frac), 9007199254740992LL);
	T_EQ_INT(hpc_scaled(-4503599627370497.0, 1, &frac), -4503599627370497LL);
	/* 2^52 - 0.5 is a tie between 2^52 - 1 (odd) and 2^52 (even) */
	T_EQ_INT(hpc_scaled(4503599627370495.5, 1, &frac), 4503599627370496LL);
	T_EQ_INT(frac, 0); /* a half in 4.5e15 is below 1e-6 of it */
	T_EQ_INT(hpc_scaled(NAN, 1, &frac), 0);
	T_EQ_INT(hpc_scaled(1e19, 1, &frac), 0);
	T_EQ_INT(frac, 2);
}

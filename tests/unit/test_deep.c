/*
 * Deep stacks (issue 11): a stack 100,000 frames deep through every view and printer, with the
 * output bounded and every number by hand.
 *
 *   one     "f0;f1;...;f99999 7": one stack of depth N
 *   shared  "P;x 3", "P;y 2", "P';z 1": P = p0..p99999, P' = P without its last frame
 *   steps   a Chrome trace of 20,000 nested events g0 > g1 > ... each with 2 us of its own
 *           time: every frame has self cost, so the inverted tree has 20,000 * 20,001 / 2 rows;
 *           it stops at its row budget (max(1,000,000, 16 per stack): engine.c)
 *
 * Printed output goes to a counting stream that keeps the first and the last lines, so a
 * printer that writes quadratic text is caught by its size, not by the test's memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/builder.h"
#include "pv/format.h"
#include "pv/import.h"
#include "pv/query.h"
#include "pv/view.h"
#include "t.h"
#include "tp.h"

#define N 100000

/* ---- a counting sink: bytes and lines, the head and the tail of the text ---- */

#define KEEP 16384

struct sink {
	size_t bytes, lines;
	char head[KEEP + 1];
	size_t hlen;
	char ring[KEEP]; /* the last KEEP bytes */
	char tail[KEEP + 1];
};

static ssize_t sink_write(void *c, const char *buf, size_t n)
{
	struct sink *s = c;
	for (size_t i = 0; i < n; i++) {
		if (s->hlen < KEEP)
			s->head[s->hlen++] = buf[i];
		s->ring[(s->bytes + i) % KEEP] = buf[i];
		s->lines += buf[i] == '\n';
	}
	s->bytes += n;
	return (ssize_t)n;
}

/* Prints v into s (text or JSON); s->head and s->tail are NUL-terminated after. */
static void print_to(struct sink *s, const struct pv_view *v, bool json)
{
	memset(s, 0, sizeof(*s));
	cookie_io_functions_t io = {NULL, sink_write, NULL, NULL};
	FILE *f = fopencookie(s, "w", io);
	if (!f) {
		t_fail(__FILE__, __LINE__, "fopencookie");
		return;
	}
	struct pv_print_opts po = {.json = json};
	pv_print_view(f, v, &po);
	fclose(f);
	s->head[s->hlen] = 0;
	size_t n = s->bytes < KEEP ? s->bytes : KEEP;
	for (size_t i = 0; i < n; i++)
		s->tail[i] = s->ring[(s->bytes - n + i) % KEEP];
	s->tail[n] = 0;
}

/* The k-th line from the end of s's tail (1: the last), in a static buffer. */
static const char *last_line(const struct sink *s, int k)
{
	static char buf[1024];
	const char *end = s->tail + strlen(s->tail);
	if (end > s->tail && end[-1] == '\n')
		end--;
	const char *b = end;
	for (int i = 0; i < k; i++) {
		end = b;
		if (i)
			end--; /* past the newline of the line after */
		b = end;
		while (b > s->tail && b[-1] != '\n')
			b--;
	}
	size_t n = (size_t)(end - b) < sizeof(buf) - 1 ? (size_t)(end - b) : sizeof(buf) - 1;
	memcpy(buf, b, n);
	buf[n] = 0;
	return buf;
}

/* ---- profiles ---- */

static char *path_text(const char *prefix, uint32_t n, size_t *len)
{
	size_t cap = (size_t)n * 8 + 64, o = 0;
	char *t = malloc(cap);
	if (!t)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		o += (size_t)snprintf(t + o, cap - o, "%s%s%u", i ? ";" : "", prefix, i);
	*len = o;
	return t;
}

static struct pv_profile *one_stack(void)
{
	size_t n;
	char *path = path_text("f", N, &n);
	if (!path)
		return NULL;
	char *t = malloc(n + 8);
	memcpy(t, path, n);
	memcpy(t + n, " 7\n", 4);
	free(path);
	struct pv_profile *p = t_load_mem("one.txt", t, n + 3);
	free(t);
	return p;
}

static struct pv_profile *shared_prefix(void)
{
	size_t n;
	char *path = path_text("p", N, &n);
	if (!path)
		return NULL;
	size_t cut = n;
	while (path[cut - 1] != ';')
		cut--; /* P' ends before the last ';' */
	size_t cap = 3 * n + 64, o = 0;
	char *t = malloc(cap);
	o += (size_t)snprintf(t + o, cap - o, "%s;x 3\n%s;y 2\n", path, path);
	memcpy(t + o, path, cut);
	o += cut;
	o += (size_t)snprintf(t + o, cap - o, "z 1\n");
	free(path);
	struct pv_profile *p = t_load_mem("shared.txt", t, o);
	free(t);
	return p;
}

/* n nested Chrome trace events g0 > g1 > ...: B at i us, E at 2n - i us (2 us of self each) */
static struct pv_profile *steps(uint32_t n)
{
	size_t cap = (size_t)n * 110 + 64, o = 0;
	char *t = malloc(cap);
	if (!t)
		return NULL;
	o += (size_t)snprintf(t + o, cap - o, "[");
	for (uint32_t i = 0; i < n; i++)
		o += (size_t)snprintf(
		    t + o, cap - o,
		    "%s{\"name\":\"g%u\",\"ph\":\"B\",\"ts\":%u,\"pid\":1,\"tid\":1}", i ? "," : "",
		    i, i);
	for (uint32_t i = n; i-- > 0;)
		o += (size_t)snprintf(
		    t + o, cap - o,
		    ",{\"name\":\"g%u\",\"ph\":\"E\",\"ts\":%u,\"pid\":1,\"tid\":1}", i, 2 * n - i);
	o += (size_t)snprintf(t + o, cap - o, "]");
	struct pv_profile *p = t_load_mem("steps.json", t, o);
	free(t);
	return p;
}

/* The view of kind with CLI options "name=value" (NULL-terminated). */
static struct pv_view *view(const struct pv_profile *p, enum pv_view_kind kind, const char **opts)
{
	struct pv_query q;
	pv_query_init(&q);
	q.view = kind;
	struct pv_error err;
	for (const char **o = opts; o && *o; o++) {
		char name[64];
		const char *eq = strchr(*o, '=');
		snprintf(name, sizeof(name), "%.*s", (int)(eq - *o), *o);
		T_EQ_INT(pv_query_set_option(&q, name, eq + 1, &err), 0);
	}
	struct pv_view *v = NULL;
	if (pv_view_compute(p, &q, &v, &err))
		t_fail(__FILE__, __LINE__, "view: %s", err.msg);
	pv_query_release(&q);
	return v;
}

static const char *rname(const struct pv_view *v, const struct pv_tree *t, uint32_t r)
{
	static char b[64];
	return pv_view_row_name(v, t->kind[r], t->id[r], b, sizeof(b), t->line[r]);
}

/*
 * Checks that t is one chain from its only root: names prefix + index from first, stepping by
 * step, every total tot, every self slf except the last row's, last_self. Returns its length.
 */
static uint32_t check_chain(const struct pv_view *v, const struct pv_tree *t, uint32_t r,
			    const char *prefix, long first, long step, int64_t tot, int64_t slf,
			    int64_t last_self)
{
	uint32_t n = 0, bad = 0, d0 = t->depth[r];
	char want[32];
	for (;;) {
		snprintf(want, sizeof(want), "%s%ld", prefix, first + step * (long)n);
		bool last = t->child_len[r] == 0;
		if (strcmp(rname(v, t, r), want) != 0 || t->total[0][r] != tot ||
		    t->self[0][r] != (last ? last_self : slf) || t->depth[r] != d0 + n ||
		    t->child_len[r] > 1) {
			if (!bad++)
				t_fail(__FILE__, __LINE__, "chain row %u: %s %lld/%lld, want %s", n,
				       rname(v, t, r), (long long)t->total[0][r],
				       (long long)t->self[0][r], want);
		}
		n++;
		if (last)
			break;
		r = t->children[t->child_first[r]];
	}
	return n;
}

/* ---- one stack of depth N ---- */

T_TEST(deep_one_stack_tree)
{
	struct pv_profile *p = one_stack();
	if (!p)
		return;
	T_EQ_INT(p->stacks.len, N);
	struct pv_view *v = view(p, PV_VIEW_TREE, NULL);
	if (v) {
		T_EQ_INT(v->tree->len, N);
		T_EQ_INT(v->tree->nr_roots, 1);
		T_EQ_INT(check_chain(v, v->tree, v->tree->roots[0], "f", 0, 1, 7, 0, 7), N);
		/* every row fits the default budget of 100,000 rows; indentation stops at 50
		 * levels, so the text is linear: 2 header lines, N rows */
		struct sink s;
		print_to(&s, v, false);
		T_EQ_U64(s.lines, 2 + N);
		T_TRUE(s.bytes < (size_t)N * 180);
		T_CONTAINS(last_line(&s, 1), "[99999] f99999");
		T_EQ_STR(last_line(&s, 1), "           7  100.00%            7  100.00%  "
					   "                                                    "
					   "                                                "
					   "[99999] f99999");
		print_to(&s, v, true);	      /* JSON: nested, indented to 50 levels too */
		T_EQ_U64(s.lines, 1 + 2 * N); /* the head line, a row and its "]}" each */
		T_TRUE(s.bytes < (size_t)N * 400);
		T_CONTAINS(s.head, "\"name\": \"f1\"");
		pv_view_free(v);
	}
	/* --max-rows 1000: f0 .. f999, then f1000 (and its 98,999 rows) as one "more" row */
	v = view(p, PV_VIEW_TREE, (const char *[]){"max-rows=1000", NULL});
	if (v) {
		struct sink s;
		print_to(&s, v, false);
		T_EQ_U64(s.lines, 2 + 1000 + 1 + 1);
		T_CONTAINS(last_line(&s, 2), "[1000] ... 1 more row");
		T_EQ_STR(last_line(&s, 1),
			 "# 99000 rows past the first 1000 printed not shown (--max-rows)");
		pv_view_free(v);
	}
	/* --depth 3: three rows, the 99,997 below counted */
	v = view(p, PV_VIEW_TREE, (const char *[]){"depth=3", NULL});
	if (v) {
		struct sink s;
		print_to(&s, v, false);
		T_EQ_U64(s.lines, 2 + 3 + 1);
		T_EQ_STR(last_line(&s, 1), "# 99997 rows deeper than 3 not shown");
		pv_view_free(v);
	}
	pv_profile_free(p);
}

T_TEST(deep_one_stack_callers_butterfly)
{
	struct pv_profile *p = one_stack();
	if (!p)
		return;
	/* the inverted tree: f99999 (7, all self), its callers down to f0, each 7/7 */
	struct pv_view *v = view(p, PV_VIEW_CALLERS, NULL);
	if (v) {
		T_EQ_INT(v->tree->len, N);
		T_EQ_INT(v->tree->nr_roots, 1);
		T_EQ_INT(check_chain(v, v->tree, v->tree->roots[0], "f", N - 1, -1, 7, 7, 7), N);
		T_TRUE(v->note == NULL); /* nothing left unexpanded */
		struct sink s;
		print_to(&s, v, false);
		T_EQ_U64(s.lines, 2 + N);
		T_CONTAINS(last_line(&s, 1), "[99999] f0");
		pv_view_free(v);
	}
	/* centered on f50000: the center (7, self 0), its callers f49999 .. f0 (7, self 0) */
	v = view(p, PV_VIEW_CALLERS, (const char *[]){"center=f50000", NULL});
	if (v) {
		const struct pv_tree *t = v->tree;
		T_EQ_INT(t->len, 50001);
		uint32_t c = t->roots[0];
		T_EQ_INT(t->kind[c], PV_ROW_CENTER);
		T_EQ_INT(t->total[0][c], 7);
		T_EQ_INT(t->self[0][c], 0);
		T_EQ_INT(check_chain(v, t, t->children[t->child_first[c]], "f", 49999, -1, 7, 0, 0),
			 50000);
		pv_view_free(v);
	}
	/* the butterfly of f50000: those callers, and the callees f50001 .. f99999 (leaf 7/7) */
	v = view(p, PV_VIEW_BUTTERFLY, (const char *[]){"center=f50000", NULL});
	if (v) {
		T_EQ_INT(v->callers->len, 50001);
		T_EQ_INT(v->tree->len, 50000);
		uint32_t c = v->tree->roots[0];
		T_EQ_INT(check_chain(v, v->tree, v->tree->children[v->tree->child_first[c]], "f",
				     50001, 1, 7, 0, 7),
			 49999);
		/* both trees share the printed budget: 50,001 callers, then 49,999 callees */
		struct sink s;
		print_to(&s, v, false);
		T_EQ_STR(last_line(&s, 1),
			 "# 1 row past the first 100000 printed not shown (--max-rows)");
		T_CONTAINS(last_line(&s, 2), "[49999] ... 1 more row");
		pv_view_free(v);
	}
	pv_profile_free(p);
}

T_TEST(deep_one_stack_flat_top)
{
	struct pv_profile *p = one_stack();
	if (!p)
		return;
	struct pv_view *v = view(p, PV_VIEW_FLAT, NULL);
	if (v) {
		/* the unknown module, the unknown file, then the N functions by total and name */
		const struct pv_flat *f = v->flat;
		T_EQ_INT(f->len, N + 2);
		uint32_t bad = 0;
		for (uint32_t r = 2; r < f->len; r++) {
			bool leaf = strcmp(pv_str(p, p->funcs.name[f->id[r]]), "f99999") == 0;
			if (f->total[0][r] != 7 || f->self[0][r] != (leaf ? 7 : 0))
				bad++;
		}
		T_EQ_INT(bad, 0);
		T_EQ_INT(f->total[0][0], 7);
		struct sink s;
		print_to(&s, v, false);
		T_EQ_U64(s.lines, 2 + N + 2);
		pv_view_free(v);
	}
	v = view(p, PV_VIEW_TOP, (const char *[]){"n=3", NULL});
	if (v) {
		const struct pv_flat *f = v->flat;
		T_EQ_INT(f->len, N);
		T_EQ_STR(pv_str(p, p->funcs.name[f->id[0]]), "f99999"); /* by self */
		T_EQ_INT(f->self[0][0], 7);
		T_EQ_INT(f->total[0][1], 7);
		T_EQ_INT(f->self[0][1], 0);
		struct sink s;
		print_to(&s, v, false);
		T_EQ_STR(last_line(&s, 1), "# 99997 more rows not shown");
		pv_view_free(v);
	}
	pv_profile_free(p);
}

/* ---- a few stacks sharing a deep prefix ---- */

T_TEST(deep_shared_prefix)
{
	struct pv_profile *p = shared_prefix();
	if (!p)
		return;
	struct pv_view *v = view(p, PV_VIEW_TREE, NULL);
	if (v) {
		/* p0 .. p99998: 6; p99999: 5 with x 3/3 and y 2/2; z 1/1 under p99998 */
		const struct pv_tree *t = v->tree;
		T_EQ_INT(t->len, N + 3);
		uint32_t r = t->roots[0];
		for (uint32_t d = 0; d + 1 < N; d++) {
			if (t->total[0][r] != 6 || t->self[0][r] != 0)
				break;
			r = t->children[t->child_first[r]]; /* p(d+1) (5) before z (1) */
		}
		T_EQ_STR(rname(v, t, r), "p99999");
		T_EQ_INT(t->total[0][r], 5);
		T_EQ_INT(t->child_len[r], 2);
		uint32_t x = t->children[t->child_first[r]], y = t->children[t->child_first[r] + 1];
		T_EQ_STR(rname(v, t, x), "x");
		T_EQ_INT(t->self[0][x], 3);
		T_EQ_STR(rname(v, t, y), "y");
		T_EQ_INT(t->self[0][y], 2);
		uint32_t pp = t->parent[r];
		T_EQ_INT(t->child_len[pp], 2);
		T_EQ_STR(rname(v, t, t->children[t->child_first[pp] + 1]), "z");
		pv_view_free(v);
	}
	/* inverted: x (3) > p99999 .. p0, y (2) > p99999 .. p0, z (1) > p99998 .. p0 */
	v = view(p, PV_VIEW_CALLERS, NULL);
	if (v) {
		const struct pv_tree *t = v->tree;
		T_EQ_INT(t->len, 3 * N + 2);
		T_EQ_INT(t->nr_roots, 3);
		T_EQ_STR(rname(v, t, t->roots[0]), "x");
		T_EQ_INT(check_chain(v, t, t->children[t->child_first[t->roots[0]]], "p", N - 1, -1,
				     3, 3, 3),
			 N);
		T_EQ_INT(check_chain(v, t, t->children[t->child_first[t->roots[2]]], "p", N - 2, -1,
				     1, 1, 1),
			 N - 1);
		/* printed: x and 99,999 of its callers; p0, then y and z, as "more" rows */
		struct sink s;
		print_to(&s, v, false);
		T_EQ_U64(s.lines, 2 + 100000 + 2 + 1);
		T_CONTAINS(last_line(&s, 3), "[100000] ... 1 more row");
		T_EQ_STR(last_line(&s, 2),
			 "           3   50.00%            3   50.00%  ... 2 more rows");
		T_EQ_STR(last_line(&s, 1),
			 "# 200002 rows past the first 100000 printed not shown (--max-rows)");
		pv_view_free(v);
	}
	/* -n 1: one row a list, the rest as a "more" row (y and z: 3/3) */
	v = view(p, PV_VIEW_CALLERS, (const char *[]){"n=1", "depth=2", NULL});
	if (v) {
		struct sink s;
		print_to(&s, v, false);
		T_EQ_STR(s.head, "# metric: samples (count), total 6, all threads\n"
				 "       total   total%         self    self%  name\n"
				 "           3   50.00%            3   50.00%  x\n"
				 "           3   50.00%            3   50.00%    p99999\n"
				 "           3   50.00%            3   50.00%  ... 2 more rows\n"
				 "# 99999 rows deeper than 2 not shown\n"
				 "# 200001 rows past the first 1 of a list not shown (-n)\n");
		pv_view_free(v);
	}
	/* centered on p50000: 6, self 0, its callers p49999 .. p0 (6/0) */
	v = view(p, PV_VIEW_CALLERS, (const char *[]){"center=p50000", NULL});
	if (v) {
		const struct pv_tree *t = v->tree;
		T_EQ_INT(t->len, 50001);
		T_EQ_INT(t->total[0][t->roots[0]], 6);
		T_EQ_INT(check_chain(v, t, t->children[t->child_first[t->roots[0]]], "p", 49999, -1,
				     6, 0, 0),
			 50000);
		pv_view_free(v);
	}
	pv_profile_free(p);
}

/* ---- self cost in every frame: the inverted tree past its budget ---- */

T_TEST(deep_every_frame_self)
{
	uint32_t n = 20000;
	struct pv_profile *p = steps(n);
	if (!p)
		return;
	/* top-down: n rows, g_i 2 (n - i) us, 2 us of self each */
	struct pv_view *v = view(p, PV_VIEW_TREE, (const char *[]){"depth=2", NULL});
	if (v) {
		T_EQ_INT(v->tree->len, n);
		T_EQ_INT(v->whole[0], (int64_t)2000 * n);
		uint32_t r = v->tree->roots[0];
		T_EQ_INT(v->tree->total[0][r], (int64_t)2000 * n);
		T_EQ_INT(v->tree->self[0][r], 2000);
		pv_view_free(v);
	}
	/*
	 * bottom-up: n roots (2 us each, all self), each over its chain of callers; n (n + 1) / 2
	 * rows in all. Rows grow heaviest first (ties: the oldest first), level by level, until
	 * the budget: max(1,000,000, 16 * 20,000) = 1,000,000 rows.
	 */
	v = view(p, PV_VIEW_CALLERS, (const char *[]){"depth=1", NULL});
	if (v) {
		const struct pv_tree *t = v->tree;
		T_EQ_INT(t->len, 1000000);
		T_EQ_INT(t->nr_roots, n);
		T_CONTAINS(v->note,
			   "light rows of the bottom-up tree not expanded (at most 1000000 "
			   "rows)");
		uint32_t bad = 0;
		for (uint32_t r = 0; r < t->len; r++)
			bad += t->total[0][r] != 2000 || t->self[0][r] != 2000;
		T_EQ_INT(bad, 0);
		/* printed: the n roots; the rest is deeper */
		struct sink s;
		print_to(&s, v, false);
		T_EQ_U64(s.lines, 3 + n + 1); /* the header with the note, the roots, the footer */
		T_EQ_STR(last_line(&s, 1), "# 980000 rows deeper than 1 not shown");
		pv_view_free(v);
	}
	pv_profile_free(p);
}

/* ---- a call graph 100,000 calls deep (callgrind): its trees grow from the graph ---- */

T_TEST(deep_callgraph_chain)
{
	/* f_i: self 1, calls f_i+1 once, which costs N - 1 - i inclusive */
	size_t cap = (size_t)N * 64 + 64, o = 0;
	char *t = malloc(cap);
	if (!t)
		return;
	o += (size_t)snprintf(t + o, cap - o, "events: Ir\n");
	for (uint32_t i = 0; i < N; i++) {
		o += (size_t)snprintf(t + o, cap - o, "fn=(%u) f%u\n1 1\n", i + 1, i);
		if (i + 1 < N)
			o += (size_t)snprintf(t + o, cap - o, "cfn=(%u) f%u\ncalls=1 1\n1 %u\n",
					      i + 2, i + 1, N - 1 - i);
	}
	struct pv_profile *p = t_load_mem("deep.callgrind", t, o);
	free(t);
	if (!p)
		return;
	/* top-down from the graph: f0 (N, self 1) > f1 (N - 1) > ... > f99999 (1, self 1);
	 * each row marks its path by moving from its parent's, not by walking it */
	struct pv_view *v = view(p, PV_VIEW_TREE, NULL);
	if (v) {
		T_EQ_INT(v->tree->len, N);
		uint32_t r = v->tree->roots[0], bad = 0;
		for (uint32_t d = 0; d < N; d++) {
			bad += v->tree->total[0][r] != N - d || v->tree->self[0][r] != 1;
			if (!v->tree->child_len[r])
				break;
			r = v->tree->children[v->tree->child_first[r]];
		}
		T_EQ_INT(bad, 0);
		T_EQ_STR(rname(v, v->tree, r), "f99999");
		struct sink s;
		print_to(&s, v, false); /* the printers' budget: every row fits it */
		T_EQ_U64(s.lines, 3 + N);
		T_CONTAINS(last_line(&s, 1), "[99999] f99999");
		pv_view_free(v);
	}
	/* --max-rows 10: the same tree printed to 10 rows, the rest counted */
	v = view(p, PV_VIEW_TREE, (const char *[]){"max-rows=10", NULL});
	if (v) {
		struct sink s;
		print_to(&s, v, false);
		T_EQ_STR(last_line(&s, 1),
			 "# 99990 rows past the first 10 printed not shown (--max-rows)");
		pv_view_free(v);
	}
	/* centered on f50000: its callers f49999 .. f0, exact for the calls next to it */
	v = view(p, PV_VIEW_CALLERS, (const char *[]){"center=f50000", NULL});
	if (v) {
		T_EQ_INT(v->tree->len, 50001);
		T_EQ_INT(v->tree->total[0][v->tree->roots[0]], 50000);
		pv_view_free(v);
	}
	pv_profile_free(p);
}

/* ---- a printed tree's tail: leaf roots alone past the printers' bounds are counted ---- */

/* v printed as text (or JSON) into a new string (free). */
static char *printed(const struct pv_view *v, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	struct pv_print_opts po = {.json = json};
	pv_print_view(f, v, &po);
	fclose(f);
	return buf;
}

/*
 * Roots by total: a 6 ("a 5" and "a 1" are one stack), b 5 (a child x: not alone), c 3, d 3,
 * e 2, f 1, g 1; the whole is 21. Every root but b is a leaf alone on its stack.
 */
static void check_tail(const struct pv_profile *p, uint32_t max_rows, uint32_t limit, double pct,
		       uint32_t roots, uint32_t tail, int64_t tail_total, uint32_t cut,
		       const char *more)
{
	struct pv_query q;
	pv_query_init(&q);
	q.view = PV_VIEW_TREE;
	q.max_rows = max_rows;
	q.limit = limit;
	q.min_percent = pct;
	struct pv_view *full = NULL, *v = NULL;
	struct pv_error err;
	T_EQ_INT(pv_view_compute(p, &q, &full, &err), 0);
	T_EQ_INT(pv_view_compute_printed(p, &q, &v, &err), 0);
	if (full && v) {
		T_EQ_U64(full->tree->nr_roots, 7);
		T_EQ_U64(full->tree->tail_roots + full->tree->tail_cut, 0);
		T_EQ_U64(v->tree->nr_roots, roots);
		T_EQ_U64(v->tree->tail_roots, tail);
		T_EQ_INT(v->tree->tail_total[0], tail_total);
		T_EQ_INT(v->tree->tail_self[0], tail_total);
		T_EQ_U64(v->tree->tail_cut, cut);
		for (int json = 0; json < 2; json++) {
			char *a = printed(full, json), *b = printed(v, json);
			T_TRUE(a && b);
			if (a && b) {
				T_EQ_STR(b, a);
				if (!json && more)
					T_CONTAINS(b, more);
			}
			free(a);
			free(b);
		}
	}
	pv_view_free(full);
	pv_view_free(v);
	pv_query_release(&q);
}

T_TEST(printed_tree_tail)
{
	static const char text[] = "a 5\nb;x 4\nc 3\nd 3\nb 1\ne 2\na 1\nf 1\ng 1\n";
	struct pv_profile *p = t_load_mem("tail.txt", text, sizeof(text) - 1);
	if (!p)
		return;
	/* 3 rows: a, b, x; c and d are rows past the budget, e f g the tail: 5 more, 3+3+4 */
	check_tail(p, 3, 0, 0, 4, 3, 4, 0,
		   "          10   47.62%           10   47.62%  ... 5 more rows");
	/* -n 1: a; b (a row, self 1) and c..g (the tail) past it: 6 more, 5 + 10 */
	check_tail(p, 0, 1, 0, 2, 5, 10, 0,
		   "          15   71.43%           11   52.38%  ... 6 more rows");
	/* below 10% (3 of 21) is cut: c and d more, e f g in the tail, all three cut */
	check_tail(p, 3, 0, 10, 4, 0, 0, 3, "... 2 more rows");
	/* no bound: every root a row */
	check_tail(p, 0, 0, 0, 7, 0, 0, 0, NULL);
	pv_profile_free(p);
}

/* The row of t named name (the first), PV_NONE when none. */
static uint32_t row_named(const struct pv_view *v, const struct pv_tree *t, const char *name)
{
	for (uint32_t r = 0; r < t->len; r++) {
		char b[64];
		if (!strcmp(pv_view_row_name(v, t->kind[r], t->id[r], b, sizeof(b), t->line[r]),
			    name))
			return r;
	}
	return PV_NONE;
}

/*
 * A printed tree with --depth N sorts only the roots and the children of rows above depth N
 * (eng_tree_finish): what is printed, in text and JSON, with or without the hot path, is what
 * the whole sorted tree prints. Stacks come so that no list is made in its sorted order: main's
 * children c a b (sorted a 19, b 9, c 3), a's x y (y 14, x 5), x's p s (s 4, p 1).
 */
T_TEST(printed_tree_sorts_what_depth_shows)
{
	static const char text[] = "main;c 3\nmain;a;x;p 1\nmain;b;z 2\nmain;a;y;q 5\n"
				   "main;a;y;r 9\nmain;b;w 7\nmain;a;x;s 4\n";
	struct pv_profile *p = t_load_mem("depth.txt", text, sizeof(text) - 1);
	if (!p)
		return;
	static const struct {
		enum pv_view_kind view;
		uint32_t depth;
		bool hot;
		const char *center;
	} cases[] = {
	    {PV_VIEW_TREE, 2, false, NULL},	{PV_VIEW_TREE, 1, false, NULL},
	    {PV_VIEW_TREE, 3, false, NULL},	{PV_VIEW_TREE, 2, true, NULL},
	    {PV_VIEW_TREE, 3, true, NULL},	{PV_VIEW_CALLERS, 2, false, NULL},
	    {PV_VIEW_BUTTERFLY, 2, false, "a"}, {PV_VIEW_TREE, 2, false, "a"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pv_query q;
		pv_query_init(&q);
		q.view = cases[i].view;
		q.depth = cases[i].depth;
		if (cases[i].center)
			T_EQ_INT(pv_query_add_center(&q, cases[i].center), 0);
		struct pv_view *full = NULL, *v = NULL;
		struct pv_error err;
		T_EQ_INT(pv_view_compute(p, &q, &full, &err), 0);
		T_EQ_INT(pv_view_compute_printed(p, &q, &v, &err), 0);
		if (!full || !v) {
			pv_view_free(full);
			pv_view_free(v);
			pv_query_release(&q);
			continue;
		}
		if (cases[i].hot) { /* as the CLI's tree --hot-path */
			struct pv_view *both[2] = {full, v};
			for (int k = 0; k < 2; k++) {
				uint32_t rows[16];
				uint32_t n =
				    pv_tree_hot_path(both[k]->tree, PV_NONE, 0.5, rows, 16);
				/* main a y r; printed with --depth 2, y's children (depth 3, not
				 * printed) are left unsorted, q first: the path stops at y */
				T_EQ_U64(n, k && q.depth < 3 ? 3 : 4);
				pv_tree_keep_path(both[k]->tree, rows, n);
			}
		}
		for (int json = 0; json < 2; json++) {
			char *a = printed(full, json), *b = printed(v, json);
			T_TRUE(a && b);
			if (a && b)
				T_EQ_STR(b, a);
			free(a);
			free(b);
		}
		if (q.view == PV_VIEW_TREE && !cases[i].center && !cases[i].hot) {
			/* x (depth 2): its children sorted s p in the whole tree; printed with
			 * --depth 1 or 2, left as made (p s), sorted with --depth 3 */
			uint32_t xf = row_named(full, full->tree, "x"),
				 xv = row_named(v, v->tree, "x");
			T_TRUE(xf != PV_NONE && xv != PV_NONE);
			if (xf != PV_NONE && xv != PV_NONE) {
				const struct pv_tree *tf = full->tree, *tv = v->tree;
				T_EQ_U64(tf->child_len[xf], 2);
				T_EQ_U64(tv->child_len[xv], 2);
				T_EQ_INT(tf->total[0][tf->children[tf->child_first[xf]]], 4);
				T_EQ_INT(tv->total[0][tv->children[tv->child_first[xv]]],
					 q.depth > 2 ? 4 : 1);
			}
		}
		pv_view_free(full);
		pv_view_free(v);
		pv_query_release(&q);
	}
	pv_profile_free(p);
}

/*
 * A row's first 8 children are found on a list, the others in a map (treebuild.c td_row). Two
 * frames of one function (two lines) make one row by function: main calls f0..f19 from line 1
 * of each, then f19..f0 from line 2 with a callee g, so each (main, fK) row is looked up twice,
 * on the list for f0..f7 and in the map for f8..f19: 41 rows (main, 20 f, 20 g), not 61.
 */
T_TEST(top_down_children_past_the_list)
{
	struct pv_builder b;
	T_EQ_INT(builder_init(&b), 0);
	pv_func_ix mf = builder_func(&b, builder_cstr(&b, "main"), PV_NONE, PV_NONE, 0);
	pv_func_ix gf = builder_func(&b, builder_cstr(&b, "g"), PV_NONE, PV_NONE, 0);
	pv_stack_ix root = builder_stack(&b, PV_NONE, builder_func_frame(&b, mf));
	pv_thread_ix th = builder_thread(&b, builder_cstr(&b, "t"), 1, 1, 0);
	builder_metric(&b, builder_cstr(&b, "samples"), PV_UNIT_COUNT);
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < 20; i++) {
			int k = pass ? 19 - i : i;
			char name[8];
			snprintf(name, sizeof(name), "f%d", k);
			pv_func_ix f =
			    builder_func(&b, builder_cstr(&b, name), PV_NONE, PV_NONE, 0);
			struct frame_key fk = {.func = f,
					       .line = (uint32_t)pass + 1,
					       .addr = PV_ADDR_NONE,
					       .category = PV_NONE};
			pv_stack_ix s = builder_stack(&b, root, builder_frame(&b, &fk));
			if (pass)
				s = builder_stack(&b, s, builder_func_frame(&b, gf));
			int64_t w = pass ? 100 : k + 1;
			builder_sample(&b, th, s, 0, &w);
		}
	}
	struct pv_profile *p = NULL;
	T_EQ_INT(builder_finish(&b, &p), 0);
	builder_release(&b);
	if (!p)
		return;
	T_EQ_U64(p->stacks.len, 61); /* main, 40 calls, 20 g */
	struct pv_query q;
	pv_query_init(&q);
	struct pv_view *v = NULL;
	struct pv_error err;
	T_EQ_INT(pv_view_compute(p, &q, &v, &err), 0);
	if (v) {
		const struct pv_tree *t = v->tree;
		T_EQ_U64(t->len, 41);
		T_EQ_U64(t->nr_roots, 1);
		uint32_t main_row = t->roots[0];
		T_EQ_U64(t->child_len[main_row], 20);
		T_EQ_INT(t->total[0][main_row], 20 * 100 + 20 * 21 / 2);
		for (uint32_t i = 0; i < t->child_len[main_row]; i++) {
			uint32_t f = t->children[t->child_first[main_row] + i];
			char nb[64];
			int k =
			    atoi(pv_view_row_name(v, t->kind[f], t->id[f], nb, sizeof(nb), 0) + 1);
			T_EQ_INT(k, 19 - (int)i); /* sorted: f19 (120) first */
			T_EQ_INT(t->total[0][f], 100 + k + 1);
			T_EQ_INT(t->self[0][f], k + 1);
			T_EQ_U64(t->child_len[f], 1);
		}
		pv_view_free(v);
	}
	pv_query_release(&q);
	pv_profile_free(p);
}

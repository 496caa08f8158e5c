/*
 * test_callgraph.c - views of call-graph profiles computed from the call graph
 * (doc/callgraph.md), against callgrind_annotate's figures and the file's call costs.
 *
 * The invariant, on every function F of every callgrind / cachegrind file of the tests: the
 * total of `tree --center F`, of `callers --center F` and `top`'s inclusive cost of F are one
 * number (which test_callgrind.c checks against callgrind_annotate --inclusive=yes), in every
 * metric; each row of the first ring not marked estimated is the file's cost of those calls; no
 * row is above its parent in a top-down tree, and a top-down row's total is its self plus its
 * children's.
 */
#include <dirent.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/callgraph.h"
#include "pv/export.h"
#include "pv/import.h"
#include "pv/view.h"
#include "t.h"
#include "tp.h"
#include "view/calltree.h"

/* A view of p: kind, centers[0..nc), every metric, rows down to depth (0: all). */
static struct pv_view *view_n(const struct pv_profile *p, enum pv_view_kind kind,
			      const char *const *centers, uint32_t nc, uint32_t depth)
{
	struct pv_query q;
	pv_query_init(&q);
	q.view = kind;
	q.depth = depth;
	const char *center = nc ? centers[0] : NULL;
	for (uint32_t i = 0; i < nc; i++)
		pv_query_add_center(&q, centers[i]);
	for (uint32_t m = 0; m < p->metrics.len; m++) {
		char ix[16];
		snprintf(ix, sizeof(ix), "%u", m);
		pv_query_add_metric(&q, ix);
	}
	struct pv_view *v = NULL;
	struct pv_error err;
	if (pv_view_compute(p, &q, &v, &err)) {
		t_fail(__FILE__, __LINE__, "%s: %s", center ? center : "(no center)", err.msg);
		v = NULL;
	}
	pv_query_release(&q);
	return v;
}

/* A view of p: kind, center (NULL: none), every metric, rows down to depth (0: all). */
static struct pv_view *view(const struct pv_profile *p, enum pv_view_kind kind, const char *center,
			    uint32_t depth)
{
	return view_n(p, kind, &center, center ? 1 : 0, depth);
}

/* The file's cost of the calls from the functions named like f's center to callee g. */
static int64_t edge_cost(const struct pv_profile *p, const uint8_t *center, pv_func_ix g,
			 pv_metric_ix m)
{
	const struct pv_callgraph *cg = &p->callgraph;
	int64_t sum = 0;
	for (uint32_t e = 0; e < cg->nr_edges; e++)
		if (center[cg->caller[e]] && cg->callee[e] == g && !center[g])
			sum += cg->edge_cost[m][e];
	return sum;
}

/*
 * In v's top-down tree (rows at depth limit and deeper aside, 0: none), a row's total is its
 * self plus its children's and none is above its parent. A center's self and calls may hold
 * less than its total, or its self alone more, in a file whose inclusive costs are not the sums
 * of their parts (bzr's, rounded by its profiler; negative costs, cg_annotate's tests).
 */
static void check_rows(const struct pv_profile *p, const char *path, const char *label,
		       const struct pv_view *v, uint32_t limit, uint32_t *bad)
{
	const struct pv_tree *t = v->tree;
	for (uint32_t r = 0; r < t->len && *bad < 5; r++) {
		if ((limit && t->depth[r] >= limit) ||
		    (!t->child_len[r] && v->note && strstr(v->note, "not expanded")))
			continue; /* a row the depth or the budget left whole */
		for (uint32_t m = 0; m < v->nr_metrics; m++) {
			int64_t sum = t->self[m][r];
			for (uint32_t i = 0; i < t->child_len[r]; i++)
				sum += t->total[m][t->children[t->child_first[r] + i]];
			bool above = t->parent[r] != PV_NONE &&
				     t->total[m][r] > t->total[m][t->parent[r]] &&
				     t->total[m][r] > 0;
			bool bad_sum = sum != t->total[m][r];
			if (t->kind[r] == PV_ROW_CENTER) {
				bool neg = false;
				for (uint32_t f = 0; f < p->funcs.len; f++)
					neg |= p->func_costs.self[m][f] < 0;
				bad_sum =
				    !neg && sum > t->total[m][r] && t->self[m][r] <= t->total[m][r];
			}
			if ((bad_sum || above) && (*bad)++ < 5)
				t_fail(__FILE__, __LINE__,
				       "%s: %s: row %u (%s) metric %u: total %" PRId64
				       ", self + children %" PRId64 "%s",
				       path, label, r,
				       t->kind[r] == PV_ROW_CENTER
					   ? "the center"
					   : pv_str(p, p->funcs.name[t->id[r]]),
				       m, t->total[m][r], sum, above ? ", above its parent" : "");
		}
	}
}

struct stats {
	uint32_t files, centers, ring, ring_exact, ambiguous;
	/* the estimated contexts: functions compared, exact, not expected exact (in a recursion
	 * cycle, or reaching a function whose calls cost other than it spends) */
	uint64_t compared, exact, cyclic, inconsistent, mains;
	uint32_t sets, reaching, estimated, bounded; /* sets of functions as centers */
};

static void walk_dir(const char *dir, struct stats *st, void (*fn)(const char *, struct stats *));

/* The invariant on every function of one file, each named by its own scope. */
static void check_file(const char *path, struct stats *st)
{
	struct pv_profile *p = t_load(path);
	if (!p)
		return;
	st->files++;
	uint32_t nf = p->funcs.len, nm = p->metrics.len, bad = 0;
	uint8_t *center = calloc(nf + 1, 1);
	uint8_t *named = calloc(nf + 1, 1);
	struct pv_scope_names *sn = NULL;
	T_EQ_INT(pv_scope_names_new(p, &sn), 0);
	for (pv_func_ix f = 0; f < nf && bad < 5; f++) {
		/* its scope: NAME, or NAME@FILE when another function has the name, MODULE!... */
		char name[16384];
		pv_func_scope(sn, f, name, sizeof(name));
		memset(named, 0, nf);
		if (pv_scope_functions(p, name, named) != 1 || !named[f]) {
			st->ambiguous++; /* two functions of one name in one file (other modules) */
			continue;
		}
		if (!p->func_costs.total)
			continue;
		/* the butterfly: the callers' tree and the callees' tree of one computation, each
		 * the same as `callers` / `tree` (spot-checked in callgraph_recursion) */
		struct pv_view *td = view(p, PV_VIEW_BUTTERFLY, name, 2);
		if (!td) {
			bad++;
			continue;
		}
		struct {
			int64_t center[PV_QUERY_MAX];
			struct pv_tree *tree;
		} bu_, *bu = &bu_;
		memcpy(bu->center, td->center, sizeof(bu->center));
		bu->tree = td->callers;
		st->centers++;
		for (uint32_t m = 0; m < nm; m++) {
			int64_t top = p->func_costs.total[m][f], self = p->func_costs.self[m][f];
			int64_t t1 =
			    td->tree->nr_roots ? td->tree->total[m][td->tree->roots[0]] : 0;
			int64_t t2 =
			    bu->tree->nr_roots ? bu->tree->total[m][bu->tree->roots[0]] : 0;
			int64_t s1 = td->tree->nr_roots ? td->tree->self[m][td->tree->roots[0]] : 0;
			if ((td->center[m] != top || bu->center[m] != top ||
			     ((t1 != top || t2 != top || s1 != self) && (top || self))) &&
			    bad++ < 5)
				t_fail(__FILE__, __LINE__,
				       "%s: %s metric %u: top %" PRId64 "/%" PRId64
				       ", tree %" PRId64 "/%" PRId64 ", callers %" PRId64,
				       path, name, m, top, self, t1, s1, t2);
		}
		/* the first ring: the file's call costs, unless marked estimated */
		const struct pv_tree *t = td->tree;
		center[f] = 1;
		for (uint32_t i = 0; t->nr_roots && i < t->child_len[t->roots[0]]; i++) {
			uint32_t r = t->children[t->child_first[t->roots[0]] + i];
			st->ring++;
			if (t->estimated && t->estimated[r])
				continue;
			st->ring_exact++;
			for (uint32_t m = 0; m < nm; m++) {
				int64_t want = edge_cost(p, center, t->id[r], m);
				if (t->total[m][r] != want && bad++ < 5)
					t_fail(__FILE__, __LINE__,
					       "%s: %s -> %s metric %u: %" PRId64
					       ", the calls cost %" PRId64,
					       path, name, pv_str(p, p->funcs.name[t->id[r]]), m,
					       t->total[m][r], want);
			}
		}
		center[f] = 0;
		pv_view_free(td);
	}
	/* the whole tree: a row's total is its self plus its children's, none above its parent */
	struct pv_view *v = view(p, PV_VIEW_TREE, NULL, 0);
	if (v)
		check_rows(p, path, "tree", v, 0, &bad);
	pv_view_free(v);
	free(center);
	pv_scope_names_free(sn);
	free(named);
	T_EQ_INT(bad, 0);
	pv_profile_free(p);
}

/* Every callgrind / cachegrind file under dir (not the annotate outputs, sources, READMEs). */
static void walk_dir(const char *dir, struct stats *st, void (*fn)(const char *, struct stats *))
{
	DIR *d = opendir(dir);
	T_TRUE(d != NULL);
	if (!d)
		return;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;
	while ((de = readdir(d))) {
		const char *s = de->d_name;
		if (s[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", dir, s);
		DIR *sub = opendir(path);
		if (sub) {
			closedir(sub);
			walk_dir(path, st, fn);
			continue;
		}
		size_t len = strlen(s);
		if (strstr(s, "annotate") || strstr(s, ".md") || strstr(s, ".py") ||
		    strstr(s, ".tsv") || (len > 2 && s[len - 2] == '.' && strchr("ch", s[len - 1])))
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		names[n++] = strdup(path);
	}
	closedir(d);
	for (size_t i = 0; i < n; i++) {
		if (!strstr(names[i], "gprof2dot-empty") && !strstr(names[i], "/src/"))
			fn(names[i], st);
		free(names[i]);
	}
	free(names);
}

/* check on every callgrind / cachegrind file of the tests */
static void check_all(struct stats *st, void (*check)(const char *path, struct stats *st))
{
	walk_dir(t_data("callgrind"), st, check);
	walk_dir(t_corpus("callgrind"), st, check);
	walk_dir(t_corpus("speedscope/callgrind"), st, check);
}

T_TEST(callgraph_center_equals_top_everywhere)
{
	struct stats st = {0};
	check_all(&st, check_file);
	printf("# callgraph invariant: %u files, %u centers, %u of %u first-ring rows exact, %u "
	       "functions no scope names alone\n",
	       st.files, st.centers, st.ring_exact, st.ring, st.ambiguous);
	T_TRUE(st.files >= 20);
	T_EQ_INT(st.ambiguous, 0); /* MODULE!NAME, #N where nothing else tells two apart */
	T_TRUE(st.centers > 7000);
	/* most first-ring rows are the file's exact call costs (the others: calls in a recursion)
	 */
	T_TRUE(st.ring_exact * 100 >= st.ring * 95);
}

/* ---- sets of functions as centers ---- */

/* The file's edges by caller: edge ids of f at out[first[f] .. first[f + 1]). */
struct adj {
	uint32_t *first, *out;
};

static void adj_build(const struct pv_profile *p, struct adj *a)
{
	const struct pv_callgraph *cg = &p->callgraph;
	uint32_t nf = p->funcs.len;
	a->first = calloc(nf + 2, sizeof(uint32_t));
	a->out = malloc((cg->nr_edges + 1) * sizeof(uint32_t));
	for (uint32_t e = 0; e < cg->nr_edges; e++)
		a->first[cg->caller[e] + 2]++;
	for (uint32_t f = 0; f < nf; f++)
		a->first[f + 2] += a->first[f + 1];
	for (uint32_t e = 0; e < cg->nr_edges; e++)
		a->out[a->first[cg->caller[e] + 1]++] = e;
}

/* Whether a member of the set in[] reaches a member by calls or inlined code (a function's
 * calls to itself aside), from the file's edges. */
static bool set_reaches(const struct pv_profile *p, const struct adj *a, const uint8_t *in)
{
	const struct pv_callgraph *cg = &p->callgraph;
	uint32_t nf = p->funcs.len;
	uint8_t *seen = calloc(nf + 1, 1);
	uint32_t *q = malloc((nf + 1) * sizeof(uint32_t)), n = 0;
	bool hit = false;
	for (uint32_t f = 0; f < nf; f++)
		if (in[f])
			q[n++] = f;
	for (uint32_t i = 0; i < n && !hit; i++)
		for (uint32_t j = a->first[q[i]]; j < a->first[q[i] + 1]; j++) {
			uint32_t x = cg->callee[a->out[j]];
			if (x == q[i] || seen[x])
				continue;
			seen[x] = 1;
			hit |= in[x];
			if (!in[x])
				q[n++] = x;
		}
	free(seen);
	free(q);
	return hit;
}

/* The file's cost of the calls (and inlined code) from caller u into the set (u outside it). */
static int64_t calls_into(const struct pv_profile *p, const uint8_t *in, pv_func_ix u,
			  pv_metric_ix m)
{
	const struct pv_callgraph *cg = &p->callgraph;
	int64_t sum = 0;
	for (uint32_t e = 0; e < cg->nr_edges; e++)
		if (cg->caller[e] == u && in[cg->callee[e]] && !in[u])
			sum += cg->edge_cost[m][e];
	return sum;
}

/*
 * The invariant of a set of functions as a center (members in[], named by centers[0..nc)):
 * its total is at least its largest member's and at most the whole and the members' sum, the
 * same in the top-down and bottom-up trees; when no member reaches another it is the sum,
 * exact, and so are the rows next to the center not marked estimated; an estimated total says
 * its bounds in the note.
 */
static void check_set(const struct pv_profile *p, const struct adj *a, const char *path,
		      const char *const *centers, uint32_t nc, const uint8_t *in, bool deep,
		      struct stats *st, uint32_t *bad)
{
	uint32_t nf = p->funcs.len, nm = p->metrics.len, n = 0;
	for (uint32_t f = 0; f < nf; f++)
		n += in[f];
	if (n < 2 || !p->func_costs.total)
		return;
	struct pv_view *v = view_n(p, PV_VIEW_BUTTERFLY, centers, nc, deep ? 6 : 2);
	if (!v) {
		++*bad;
		return;
	}
	st->sets++;
	bool reach = set_reaches(p, a, in);
	st->reaching += reach;
	const struct pv_tree *td = v->tree, *bu = v->callers;
	if (!td->nr_roots || !bu->nr_roots) {
		/* a center of no cost makes no row */
		for (uint32_t m = 0; m < nm; m++)
			T_EQ_INT(v->center[m], 0);
		pv_view_free(v);
		return;
	}
	uint32_t c = td->roots[0], cb = bu->roots[0];
	bool est = td->estimated && td->estimated[c];
	st->estimated += est;
	/* an estimated total says its bounds: "at least LO, at most HI" */
	const char *b = v->note ? strstr(v->note, "at least ") : NULL;
	long long lo = 0, hi = 0;
	bool bounds = b && sscanf(b, "at least %lld, at most %lld", &lo, &hi) == 2;
	if (((est && (!reach || !strstr(v->note, "estimated"))) ||
	     (bounds && !(lo < hi && lo <= v->center[0] && v->center[0] <= hi))) &&
	    (*bad)++ < 5)
		t_fail(__FILE__, __LINE__, "%s: %s: total %" PRId64 ", estimated %d, reach %d (%s)",
		       path, centers[0], v->center[0], est, reach, v->note ? v->note : "no note");
	st->bounded += bounds;
	for (uint32_t m = 0; m < nm; m++) {
		int64_t sum = 0, max = 0, tot = v->center[m], ring = 0;
		for (uint32_t f = 0; f < nf; f++) {
			if (!in[f])
				continue;
			sum += p->func_costs.total[m][f];
			max = p->func_costs.total[m][f] > max ? p->func_costs.total[m][f] : max;
		}
		for (uint32_t i = 0; i < td->child_len[c]; i++)
			ring += td->total[m][td->children[td->child_first[c] + i]];
		int64_t up = sum < v->whole[m] ? sum : v->whole[m];
		bool neg = false; /* a file with negative costs (cg_annotate's tests): no bounds */
		for (uint32_t f = 0; f < nf; f++)
			neg |= p->func_costs.self[m][f] < 0;
		bool ok = (neg || (tot >= (max < up ? max : up) && tot <= up)) &&
			  td->total[m][c] == tot && bu->total[m][cb] == tot &&
			  (neg || ring <= tot) && (reach || (tot == sum && !est));
		if (!ok && (*bad)++ < 5)
			t_fail(__FILE__, __LINE__,
			       "%s: %s (%u functions%s) metric %u: total %" PRId64
			       " (trees %" PRId64 ", %" PRId64 "; first ring %" PRId64
			       "), largest member %" PRId64 ", members' sum %" PRId64
			       ", whole %" PRId64,
			       path, centers[0], n, reach ? ", reaching" : "", m, tot,
			       td->total[m][c], bu->total[m][cb], ring, max, sum, v->whole[m]);
		if (reach)
			continue;
		/* the rows next to the center, unless estimated: the file's calls */
		for (int side = 0; side < 2; side++) {
			const struct pv_tree *t = side ? bu : td;
			uint32_t r0 = side ? cb : c;
			for (uint32_t i = 0; i < t->child_len[r0]; i++) {
				uint32_t r = t->children[t->child_first[r0] + i];
				if (t->estimated && t->estimated[r])
					continue;
				int64_t want = side ? calls_into(p, in, t->id[r], m)
						    : edge_cost(p, in, t->id[r], m);
				if (t->total[m][r] != want && (*bad)++ < 5)
					t_fail(__FILE__, __LINE__,
					       "%s: %s %s %s metric %u: %" PRId64
					       ", the calls cost %" PRId64,
					       path, centers[0], side ? "<-" : "->",
					       pv_str(p, p->funcs.name[t->id[r]]), m,
					       t->total[m][r], want);
			}
		}
	}
	if (!deep) {
		pv_view_free(v);
		return;
	}
	/* the top-down tree five levels down */
	check_rows(p, path, centers[0], v, 5, bad);
	pv_view_free(v);
}

/* Whether string s ends with t. */
static bool ends_with(const char *s, const char *t)
{
	size_t a = strlen(s), b = strlen(t);
	return a >= b && !strcmp(s + a - b, t);
}

/* Every set of one file: each name several functions share, each module and source file, two
 * regular expressions, and pairs of the heaviest functions as several centers; the top-down
 * tree further down for the shared names and the heaviest functions together. */
static void check_sets(const char *path, struct stats *st)
{
	struct pv_profile *p = t_load(path);
	if (!p)
		return;
	st->files++;
	uint32_t nf = p->funcs.len, bad = 0;
	uint8_t *in = calloc(nf + 1, 1), *shared = calloc(nf + 1, 1), *done = calloc(nf + 1, 1);
	char name[1100];
	struct adj a;
	adj_build(p, &a);
	/* the functions whose name another function has (names are interned: one string each) */
	uint32_t *uses = calloc(p->strings.len + 1, sizeof(uint32_t));
	for (pv_func_ix f = 0; f < nf; f++)
		uses[p->funcs.name[f]]++;
	for (pv_func_ix f = 0; f < nf; f++)
		shared[f] = uses[p->funcs.name[f]] > 1;
	free(uses);
	for (pv_func_ix f = 0; f < nf && bad < 5; f++) {
		if (!shared[f] || done[f])
			continue;
		const char *nm = pv_str(p, p->funcs.name[f]);
		memset(in, 0, nf);
		T_TRUE(pv_scope_functions(p, nm, in) >= 2);
		for (uint32_t g = 0; g < nf; g++)
			done[g] |= in[g];
		check_set(p, &a, path, &nm, 1, in, true, st, &bad);
	}
	for (uint32_t m = 0; m < p->modules.len && bad < 5; m++) {
		const char *mn = pv_str(p, p->modules.name[m]);
		memset(in, 0, nf);
		for (pv_func_ix f = 0; f < nf; f++) {
			pv_module_ix fm = pv_func_module(p, f);
			in[f] = fm != PV_NONE && !strcmp(pv_str(p, p->modules.name[fm]), mn);
		}
		snprintf(name, sizeof(name), "module:%s", mn);
		const char *c = name;
		check_set(p, &a, path, &c, 1, in, false, st, &bad);
	}
	/* source files: every one, or on a profile of many (CPython's 569) one in stride */
	uint32_t stride = p->sources.len / 150 + 1;
	for (uint32_t s = 0; s < p->sources.len && bad < 5; s += stride) {
		const char *sp = pv_str(p, p->sources.path[s]);
		if (!*sp || strlen(sp) > 1000)
			continue;
		memset(in, 0, nf);
		for (pv_func_ix f = 0; f < nf; f++) {
			pv_source_ix fs = pv_func_source(p, f);
			in[f] = fs != PV_NONE && ends_with(pv_str(p, p->sources.path[fs]), sp);
		}
		snprintf(name, sizeof(name), "file:%s", sp);
		const char *c = name;
		check_set(p, &a, path, &c, 1, in, false, st, &bad);
	}
	static const char *const res[] = {"^_", "."};
	for (uint32_t i = 0; i < 2; i++) {
		regex_t re;
		T_EQ_INT(regcomp(&re, res[i], REG_EXTENDED | REG_NOSUB), 0);
		for (pv_func_ix f = 0; f < nf; f++)
			in[f] = !regexec(&re, pv_str(p, p->funcs.name[f]), 0, NULL, 0);
		regfree(&re);
		snprintf(name, sizeof(name), "re:%s", res[i]);
		const char *c = name;
		check_set(p, &a, path, &c, 1, in, false, st, &bad);
	}
	/* the six heaviest functions that a scope names alone: each pair, and all six */
	enum { TOP = 6 };
	pv_func_ix top[TOP];
	uint32_t nt = 0;
	for (pv_func_ix f = 0; f < nf && p->func_costs.total; f++) {
		if (shared[f])
			continue;
		uint32_t i = nt < TOP ? nt++ : TOP;
		while (i > 0 && p->func_costs.total[0][top[i - 1]] < p->func_costs.total[0][f]) {
			if (i < TOP)
				top[i] = top[i - 1];
			i--;
		}
		if (i < TOP)
			top[i] = f;
	}
	const char *names[TOP];
	for (uint32_t i = 0; i < nt; i++)
		names[i] = pv_str(p, p->funcs.name[top[i]]);
	for (uint32_t i = 0; i < nt && bad < 5; i++) {
		for (uint32_t j = i + 1; j < nt; j++) {
			memset(in, 0, nf);
			in[top[i]] = in[top[j]] = 1;
			const char *two[2] = {names[i], names[j]};
			check_set(p, &a, path, two, 2, in, false, st, &bad);
		}
	}
	memset(in, 0, nf);
	for (uint32_t i = 0; i < nt; i++)
		in[top[i]] = 1;
	check_set(p, &a, path, names, nt, in, true, st, &bad);
	T_EQ_INT(bad, 0);
	free(a.first);
	free(a.out);
	free(in);
	free(shared);
	free(done);
	pv_profile_free(p);
}

T_TEST(callgraph_sets_never_above_the_whole)
{
	struct stats st = {0};
	check_all(&st, check_sets);
	printf("# callgraph sets: %u files, %u sets, %u with a member reaching another, %u "
	       "estimated, %u of them with a total only bounded\n",
	       st.files, st.sets, st.reaching, st.estimated, st.bounded);
	T_TRUE(st.sets > 500);
	T_TRUE(st.reaching > 50);
}

/*
 * sets.callgrind (by hand): root calls A (80) and X (70), A calls X (70), X calls B (100 over
 * its two runs). The set {A, B} runs for A's 80 and the B under root's X, 130; the file cannot
 * say which run of X is A's: at least 100 (B alone), at most 151 (the whole; the members' sum
 * is 180). The estimate splits X's runs by its callers' calls: half outside A, so 80 + 50.
 */
T_TEST(callgraph_set_bounded)
{
	struct pv_profile *p = t_load(t_data("callgrind/sets.callgrind"));
	if (!p)
		return;
	const char *ab[] = {"A", "B"};
	struct pv_view *v = view_n(p, PV_VIEW_BUTTERFLY, ab, 2, 0);
	if (v) {
		const struct pv_tree *t = v->tree;
		uint32_t c = t->roots[0];
		T_EQ_INT(v->whole[0], 151);
		T_EQ_INT(v->center[0], 130);
		T_EQ_INT(t->total[0][c], 130);
		T_EQ_INT(t->self[0][c], 60); /* A's 10, half of B's 100 */
		T_TRUE(t->estimated && t->estimated[c]);
		T_TRUE(v->note && strstr(v->note, "at least 100, at most 151 (Ir)"));
		/* next to it A's call of X, 70; B under X, the other half */
		T_EQ_INT(t->child_len[c], 1);
		uint32_t x = t->children[t->child_first[c]];
		T_EQ_STR(pv_str(p, p->funcs.name[t->id[x]]), "X");
		T_EQ_INT(t->total[0][x], 70);
		T_EQ_INT(t->self[0][x], 20);
		T_EQ_INT(t->child_len[x], 1);
		uint32_t b = t->children[t->child_first[x]];
		T_EQ_STR(pv_str(p, p->funcs.name[t->id[b]]), "B");
		T_EQ_INT(t->total[0][b], 50);
		/* the callers: root's call of A, 80; X's calls of B outside A, half of 100 */
		const struct pv_tree *u = v->callers;
		uint32_t cu = u->roots[0];
		T_EQ_INT(u->total[0][cu], 130);
		T_EQ_INT(u->child_len[cu], 2);
		uint32_t r0 = u->children[u->child_first[cu]],
			 r1 = u->children[u->child_first[cu] + 1];
		T_EQ_STR(pv_str(p, p->funcs.name[u->id[r0]]), "root");
		T_EQ_INT(u->total[0][r0], 80);
		T_EQ_STR(pv_str(p, p->funcs.name[u->id[r1]]), "X");
		T_EQ_INT(u->total[0][r1], 50);
		pv_view_free(v);
	}
	/* {A, X}: X's run under root starts one of the set's, A's call of X is inside: exact */
	const char *ax[] = {"A", "X"};
	v = view_n(p, PV_VIEW_TREE, ax, 2, 0);
	if (v) {
		const struct pv_tree *t = v->tree;
		T_EQ_INT(v->center[0], 150);
		T_TRUE(!t->estimated || !t->estimated[t->roots[0]]);
		T_TRUE(v->note && !strstr(v->note, "at least"));
		pv_view_free(v);
	}
	/* the whole program as a set: the root's run */
	v = view(p, PV_VIEW_TREE, "re:.", 0);
	if (v) {
		T_EQ_INT(v->center[0], 151);
		T_TRUE(!v->tree->estimated || !v->tree->estimated[v->tree->roots[0]]);
		pv_view_free(v);
	}
	pv_profile_free(p);
}

/* recursion.c (src/): fib recursing, even and odd calling each other. */
T_TEST(callgraph_recursion)
{
	struct pv_profile *p = t_load(t_data("callgrind/recursion.callgrind"));
	if (!p)
		return;
	pv_func_ix fib2 = t_find_func(p, "fib'2"), even2 = t_find_func(p, "even'2"),
		   odd2 = t_find_func(p, "odd'2"), work = t_find_func(p, "work");
	T_TRUE(fib2 != PV_NONE && even2 != PV_NONE && odd2 != PV_NONE && work != PV_NONE);
	if (fib2 == PV_NONE || even2 == PV_NONE || odd2 == PV_NONE || work == PV_NONE) {
		pv_profile_free(p);
		return;
	}
	/*
	 * callgrind_annotate --inclusive=yes says fib'2 1,908,280 (526.4 %): it adds the calls of
	 * fib'2 to itself (1,673,258, 462x in --tree=caller), each holding the nested ones again.
	 * Without them: the calls from fib, 235,022 (recursion.callgrind.annotate-callers).
	 */
	T_EQ_INT(p->func_costs.total[0][fib2], 235022);
	T_EQ_INT(p->func_costs.self[0][fib2], 6725);
	/* even'2 and odd'2 call each other; the cycle is entered once, from odd: 228 */
	T_EQ_INT(p->func_costs.total[0][even2], 228);
	T_EQ_INT(p->func_costs.total[0][odd2], 228);
	struct pv_view *v = view(p, PV_VIEW_TREE, "fib'2", 0);
	if (v) {
		const struct pv_tree *t = v->tree;
		T_EQ_INT(t->nr_roots, 1);
		uint32_t c = t->roots[0];
		T_EQ_INT(t->total[0][c], 235022);
		T_EQ_INT(t->self[0][c], 6725);
		/* its one callee off the recursion: work, 228,297 (--tree=calling) */
		T_EQ_INT(t->child_len[c], 1);
		uint32_t w = t->children[t->child_first[c]];
		T_EQ_INT(t->id[w], work);
		T_EQ_INT(t->total[0][w], 228297);
		T_TRUE(!t->estimated[w]);
		pv_view_free(v);
	}
	/* tree and callers are the butterfly's two trees */
	struct pv_view *b = view(p, PV_VIEW_BUTTERFLY, "fib'2", 0);
	struct pv_view *d = view(p, PV_VIEW_TREE, "fib'2", 0);
	struct pv_view *u = view(p, PV_VIEW_CALLERS, "fib'2", 0);
	if (b && d && u) {
		T_EQ_INT(b->tree->len, d->tree->len);
		T_EQ_INT(b->callers->len, u->tree->len);
		for (uint32_t r = 0; r < b->tree->len && r < d->tree->len; r++)
			T_EQ_INT(b->tree->total[0][r], d->tree->total[0][r]);
		for (uint32_t r = 0; r < b->callers->len && r < u->tree->len; r++)
			T_EQ_INT(b->callers->total[0][r], u->tree->total[0][r]);
	}
	pv_view_free(b);
	pv_view_free(d);
	pv_view_free(u);
	v = view(p, PV_VIEW_CALLERS, "fib'2", 0);
	if (v) {
		const struct pv_tree *t = v->tree;
		uint32_t c = t->roots[0];
		T_EQ_INT(t->total[0][c], 235022);
		T_EQ_INT(t->child_len[c], 1); /* fib; not fib'2 itself */
		uint32_t r = t->children[t->child_first[c]];
		T_EQ_STR(pv_str(p, p->funcs.name[t->id[r]]), "fib");
		T_EQ_INT(t->total[0][r], 235022);
		pv_view_free(v);
	}
	pv_profile_free(p);
}

/* The row of function name under a parent row whose function is parent (depth first). */
static uint32_t find_row(const struct pv_profile *p, const struct pv_tree *t, const char *name,
			 const char *parent)
{
	for (uint32_t r = 0; r < t->len; r++) {
		if (t->kind[r] != PV_ROW_FUNCTION ||
		    strcmp(pv_str(p, p->funcs.name[t->id[r]]), name))
			continue;
		uint32_t q = t->parent[r];
		if (!parent ? q == PV_NONE
			    : q != PV_NONE && !strcmp(pv_str(p, p->funcs.name[t->id[q]]), parent))
			return r;
	}
	return PV_NONE;
}

/*
 * A Lua interpreter (src/luahost.c linked with Debian's liblua5.4.a) running src/fib.lua. The
 * figures are callgrind_annotate's (lua-fib.callgrind.annotate-inclusive).
 */
T_TEST(callgraph_lua)
{
	struct pv_profile *p = t_load(t_data("callgrind/lua-fib.callgrind.gz"));
	if (!p)
		return;
	pv_func_ix pcall = t_find_func(p, "luaD_pcall");
	T_TRUE(pcall != PV_NONE);
	if (pcall == PV_NONE) {
		pv_profile_free(p);
		return;
	}
	T_EQ_INT(p->func_costs.total[0][pcall], 5620915);
	struct pv_view *v = view(p, PV_VIEW_TREE, "luaD_pcall", 3);
	if (v) {
		T_EQ_INT(v->center[0], 5620915);
		T_EQ_INT(v->tree->total[0][v->tree->roots[0]], 5620915);
		/* the calls of luaD_pcall: luaD_rawrunprotected, exact */
		uint32_t r = find_row(p, v->tree, "luaD_rawrunprotected", NULL);
		T_TRUE(r == PV_NONE); /* under the center row, not a root */
		pv_view_free(v);
	}
	v = view(p, PV_VIEW_CALLERS, "luaD_pcall", 2);
	if (v) {
		T_EQ_INT(v->tree->total[0][v->tree->roots[0]], 5620915);
		pv_view_free(v);
	}
	/*
	 * (below main) names two functions: libc-start.c's, called by ld.so's entry, calls
	 * __libc_start_main, which calls libc_start_call_main.h's. The center is the outer one's
	 * runs, exact: 5,950,956, not both members' sum (11,900,883, 194.94 % of the whole); next
	 * to it only the outer one's calls, the inner one under __libc_start_main.
	 */
	v = view(p, PV_VIEW_BUTTERFLY, "(below main)", 0);
	if (v) {
		const struct pv_tree *t = v->tree;
		uint32_t c = t->roots[0];
		T_EQ_INT(v->center[0], 5950956);
		T_EQ_INT(t->total[0][c], 5950956);
		T_EQ_INT(t->self[0][c], 11);
		T_TRUE(!t->estimated || !t->estimated[c]);
		T_EQ_INT(t->child_len[c], 1);
		uint32_t r = t->children[t->child_first[c]];
		T_EQ_STR(pv_str(p, p->funcs.name[t->id[r]]), "__libc_start_main@@GLIBC_2.34");
		T_EQ_INT(t->total[0][r], 5950945);
		T_TRUE(!t->estimated || !t->estimated[r]);
		uint32_t b = find_row(p, t, "(below main)", "__libc_start_main@@GLIBC_2.34");
		T_TRUE(b != PV_NONE && t->parent[b] == r);
		if (b != PV_NONE) {
			T_EQ_INT(t->total[0][b], 5949927);
			T_TRUE(!t->estimated[b]);
		}
		/* its callers: ld.so's entry alone */
		const struct pv_tree *u = v->callers;
		T_EQ_INT(u->total[0][u->roots[0]], 5950956);
		T_EQ_INT(u->child_len[u->roots[0]], 1);
		T_EQ_STR(pv_str(p, p->funcs.name[u->id[u->children[u->child_first[u->roots[0]]]]]),
			 "0x000000000001ab70");
		T_TRUE(!v->note || !strstr(v->note, "at least"));
		pv_view_free(v);
	}
	/* a root and a function it calls: the root's runs, the whole program (before: the call
	 * between them left out, 5,951,432) */
	const char *two[] = {"0x000000000001ab70", "_dl_start"};
	v = view_n(p, PV_VIEW_TREE, two, 2, 2);
	if (v) {
		T_EQ_INT(v->center[0], 6104868);
		T_EQ_INT(v->whole[0], 6104868);
		pv_view_free(v);
	}
	/* a set whose total the file only bounds: libc's functions run both outside main and
	 * inside it (through the interpreter's calls) */
	v = view(p, PV_VIEW_TREE, "module:libc.so.6", 1);
	if (v) {
		const struct pv_tree *t = v->tree;
		T_TRUE(t->estimated && t->estimated[t->roots[0]]);
		T_TRUE(v->center[0] <= v->whole[0]);
		pv_view_free(v);
	}
	/* the plain tree: luaD_rawrunprotected is under its callers, everything under main */
	v = view(p, PV_VIEW_TREE, NULL, 0);
	if (v) {
		const struct pv_tree *t = v->tree;
		T_EQ_INT(find_row(p, t, "luaD_rawrunprotected", NULL), PV_NONE);
		T_TRUE(find_row(p, t, "luaD_rawrunprotected", "luaD_pcall") != PV_NONE);
		uint32_t m = find_row(p, t, "main", "(below main)");
		T_TRUE(m != PV_NONE);
		if (m != PV_NONE)
			T_EQ_INT(t->total[0][m], 5948265);
		T_TRUE(!v->note || strstr(v->note, "estimated"));
		pv_view_free(v);
	}
	pv_profile_free(p);
}

/* CPython 3.11 (a pyenv build with symbols) running python3 -c: fib(15) printed. */
T_TEST(callgraph_cpython)
{
	struct pv_profile *p = t_load(t_data("callgrind/cpython.callgrind.gz"));
	if (!p)
		return;
	pv_func_ix mainf = t_find_func(p, "main");
	T_TRUE(mainf != PV_NONE);
	if (mainf != PV_NONE)
		T_EQ_INT(p->func_costs.total[0][mainf], 139062250); /* callgrind_annotate's */
	struct pv_view *v = view(p, PV_VIEW_TREE, "main", 2);
	if (v) {
		T_EQ_INT(v->tree->total[0][v->tree->roots[0]], 139062250);
		pv_view_free(v);
	}
	v = view(p, PV_VIEW_TREE, NULL, 0);
	if (v) {
		uint32_t m = find_row(p, v->tree, "main", "(below main)");
		T_TRUE(m != PV_NONE);
		if (m != PV_NONE)
			T_EQ_INT(v->tree->total[0][m], 139062250);
		/* no row above the whole: recursion is not counted twice */
		for (uint32_t r = 0; r < v->tree->len; r++)
			if (v->tree->total[0][r] > v->whole[0])
				T_EQ_INT(v->tree->total[0][r], v->whole[0]);
		pv_view_free(v);
	}
	pv_profile_free(p);
}

/* ---- the estimated calling contexts (callgrind_synth.c, doc/callgraph.md) ---- */

/*
 * Which functions the estimated contexts must give their exact costs, per metric: want[f * nm +
 * m] is 1 for a function outside a recursion cycle that reaches no function (or cycle) whose calls
 * cost other than it spends in that metric (hand-written files, a dump's boundary: its contexts
 * are scaled to what it spends, so its callers' inclusive costs follow). st counts the others.
 */
static uint8_t *expected_exact(const struct pv_profile *p, const struct cg_graph *g,
			       struct stats *st)
{
	uint32_t nf = g->nf, nm = g->nm;
	uint8_t *bad = calloc((size_t)nf * nm + 1, 1), *want = calloc((size_t)nf * nm + 1, 1);
	uint32_t *queue = malloc(((size_t)nf + 1) * sizeof(uint32_t));
	(void)p;
	for (uint32_t c = 0; c < nf; c++) {
		uint32_t a = g->comp_first[c], b = g->comp_first[c + 1];
		for (uint32_t m = 0; m < nm && a < b; m++) {
			int64_t in = 0, out = 0;
			bool called = false;
			for (uint32_t i = a; i < b; i++) {
				uint32_t f = g->comp_mem[i];
				int64_t s = g->self[(size_t)f * nm + m];
				out += s > 0 ? s : 0;
				for (uint32_t j = g->in_first[f]; j < g->in_first[f + 1]; j++) {
					uint32_t e = g->in_edge[j];
					if (g->scc[g->from[e]] == c)
						continue;
					int64_t v = g->eff_out[(size_t)e * nm + m];
					in += v > 0 ? v : 0;
					called = true;
				}
				for (uint32_t e = g->out_first[f]; e < g->out_first[f + 1]; e++) {
					int64_t v = g->eff_out[(size_t)e * nm + m];
					if (g->scc[g->to[e]] != c)
						out += v > 0 ? v : 0;
				}
			}
			if (called && in != out)
				for (uint32_t i = a; i < b; i++)
					bad[(size_t)g->comp_mem[i] * nm + m] = 1;
		}
	}
	/* what reaches such a function: its callers, up */
	for (uint32_t m = 0; m < nm; m++) {
		uint32_t qh = 0, qt = 0;
		for (uint32_t f = 0; f < nf; f++)
			if (bad[(size_t)f * nm + m])
				queue[qt++] = f;
		while (qh < qt) {
			uint32_t f = queue[qh++];
			for (uint32_t j = g->in_first[f]; j < g->in_first[f + 1]; j++) {
				uint32_t u = g->from[g->in_edge[j]];
				if (!bad[(size_t)u * nm + m]) {
					bad[(size_t)u * nm + m] = 1;
					queue[qt++] = u;
				}
			}
		}
	}
	for (uint32_t f = 0; f < nf; f++) {
		if (!g->present[f])
			continue;
		bool cyc = g->comp_first[g->scc[f] + 1] - g->comp_first[g->scc[f]] > 1;
		st->cyclic += cyc;
		st->inconsistent += !cyc && bad[(size_t)f * nm];
		for (uint32_t m = 0; m < nm; m++)
			want[(size_t)f * nm + m] = !cyc && !bad[(size_t)f * nm + m];
	}
	free(bad);
	free(queue);
	return want;
}

/* Functions of q sorted by name (and source path when by_file), for finding p's. */
struct fkey {
	const struct pv_profile *p;
	bool by_file;
};

static const char *fsrc(const struct pv_profile *p, pv_func_ix f)
{
	pv_source_ix s = p->funcs.source[f];
	return s == PV_NONE ? "" : pv_str(p, p->sources.path[s]);
}

static int fkey_cmp(const struct fkey *k, const struct pv_profile *a, pv_func_ix x,
		    const struct pv_profile *b, pv_func_ix y)
{
	int c = strcmp(pv_str(a, a->funcs.name[x]), pv_str(b, b->funcs.name[y]));
	if (c || !k->by_file)
		return c;
	return strcmp(fsrc(a, x), fsrc(b, y));
}

static int fsort(const void *a, const void *b, void *ctx)
{
	const struct fkey *k = ctx;
	return fkey_cmp(k, k->p, *(const pv_func_ix *)a, k->p, *(const pv_func_ix *)b);
}

/* q's function of p's function f: PV_NONE when q has none, or when its key is not unique. */
static pv_func_ix find_in(const struct fkey *k, const pv_func_ix *sorted, uint32_t n,
			  const struct pv_profile *p, pv_func_ix f)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (fkey_cmp(k, k->p, sorted[mid], p, f) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || fkey_cmp(k, k->p, sorted[lo], p, f))
		return PV_NONE;
	if (lo + 1 < n && !fkey_cmp(k, k->p, sorted[lo + 1], p, f))
		return PV_NONE;
	return sorted[lo];
}

/*
 * Every function of p that want[] marks has, in q's samples (metric qm of q), the self and
 * inclusive cost of p's metric pm that top prints from the graph; p's functions of one key
 * (name, or name and file when by_file) are left out, as are those q does not have by that
 * key when several of p's share it.
 */
static void compare_costs(const char *path, const char *what, const struct pv_profile *p,
			  const uint8_t *want, uint32_t nm, pv_metric_ix pm,
			  const struct pv_profile *q, pv_metric_ix qm, bool by_file,
			  struct stats *st, uint32_t *bad)
{
	struct pv_view_opts o = {.metric = qm};
	struct pv_top *t = NULL;
	struct pv_error err;
	if (pv_top_build(q, &o, PV_TOP_BY_SELF, &t, &err)) {
		t_fail(__FILE__, __LINE__, "%s %s: %s", path, what, err.msg);
		(*bad)++;
		return;
	}
	int64_t *self = calloc(q->funcs.len + 1, sizeof(int64_t));
	int64_t *total = calloc(q->funcs.len + 1, sizeof(int64_t));
	for (uint32_t i = 0; i < t->len; i++) {
		self[t->func[i]] = t->self[i];
		total[t->func[i]] = t->total[i];
	}
	struct fkey kq = {q, by_file}, kp = {p, by_file};
	pv_func_ix *sq = malloc((q->funcs.len + 1) * sizeof(pv_func_ix));
	pv_func_ix *sp = malloc((p->funcs.len + 1) * sizeof(pv_func_ix));
	for (uint32_t f = 0; f < q->funcs.len; f++)
		sq[f] = f;
	for (uint32_t f = 0; f < p->funcs.len; f++)
		sp[f] = f;
	qsort_r(sq, q->funcs.len, sizeof(*sq), fsort, &kq);
	qsort_r(sp, p->funcs.len, sizeof(*sp), fsort, &kp);
	for (pv_func_ix f = 0; f < p->funcs.len; f++) {
		if (!want[(size_t)f * nm + pm] || find_in(&kp, sp, p->funcs.len, p, f) == PV_NONE)
			continue;
		pv_func_ix g = find_in(&kq, sq, q->funcs.len, p, f);
		int64_t ws = p->func_costs.self[pm][f], wt = p->func_costs.total[pm][f];
		int64_t gs = g == PV_NONE ? 0 : self[g], gt = g == PV_NONE ? 0 : total[g];
		st->compared++;
		if (gs == ws && gt == wt) {
			st->exact++;
		} else if ((*bad)++ < 5) {
			t_fail(__FILE__, __LINE__,
			       "%s %s: %s metric %u: self %" PRId64 ", total %" PRId64
			       " (top: %" PRId64 ", %" PRId64 ")",
			       path, what, pv_str(p, p->funcs.name[f]), pm, gs, gt, ws, wt);
		}
	}
	free(sq);
	free(sp);
	free(self);
	free(total);
	pv_top_free(t);
}

/* In q, every frame of a function named main (p has one) is under one of its callers in p. */
static void check_main(const char *path, const char *what, const struct pv_profile *p,
		       const struct cg_graph *g, const struct pv_profile *q, struct stats *st,
		       uint32_t *bad)
{
	pv_func_ix mainf = PV_NONE;
	for (pv_func_ix f = 0; f < p->funcs.len; f++)
		if (!strcmp(pv_str(p, p->funcs.name[f]), "main")) {
			if (mainf != PV_NONE)
				return; /* two: which is which */
			mainf = f;
		}
	if (mainf == PV_NONE || g->in_first[mainf] == g->in_first[mainf + 1])
		return;
	uint64_t seen = 0;
	for (uint32_t s = 0; s < q->stacks.len; s++) {
		pv_func_ix f = q->frames.func[q->stacks.frame[s]];
		if (strcmp(pv_str(q, q->funcs.name[f]), "main"))
			continue;
		seen++;
		pv_stack_ix up = q->stacks.prefix[s];
		const char *caller =
		    up == PV_NONE ? NULL
				  : pv_str(q, q->funcs.name[q->frames.func[q->stacks.frame[up]]]);
		bool ok = false;
		for (uint32_t j = g->in_first[mainf]; caller && j < g->in_first[mainf + 1]; j++)
			ok |= !strcmp(pv_str(p, p->funcs.name[g->from[g->in_edge[j]]]), caller);
		if (!ok && (*bad)++ < 5)
			t_fail(__FILE__, __LINE__, "%s %s: main under %s", path, what,
			       caller ? caller : "nothing (a root)");
	}
	st->mains += seen > 0;
}

/* q's metric named as p's metric m (a format of one metric: its only one), PV_NONE: none. */
static pv_metric_ix metric_of(const struct pv_profile *p, pv_metric_ix m,
			      const struct pv_profile *q)
{
	for (pv_metric_ix k = 0; k < q->metrics.len; k++)
		if (!strcmp(pv_str(q, q->metrics.name[k]), pv_str(p, p->metrics.name[m])))
			return k;
	return q->metrics.len == 1 && m == p->meta.default_metric ? 0 : PV_NONE;
}

static void check_contexts(const char *path, struct stats *st)
{
	struct pv_profile *p = t_load(path);
	if (!p)
		return;
	uint32_t nm = p->metrics.len, bad = 0;
	if (!p->callgraph.nr_edges || !p->func_costs.total) {
		pv_profile_free(p);
		return;
	}
	st->files++;
	pv_metric_ix ms[64];
	for (uint32_t m = 0; m < nm && m < 64; m++)
		ms[m] = m;
	struct cg_graph g;
	T_EQ_INT(cg_graph_build(p, ms, nm, NULL, &g), 0);
	uint8_t *want = expected_exact(p, &g, st);
	/* no context folded into "(other)" (a part's budget) in these files */
	for (uint32_t i = 0; i < p->diags.len; i++)
		if (strstr(pv_str(p, p->diags.msg[i]), "(other)") && bad++ < 5)
			t_fail(__FILE__, __LINE__, "%s: %s", path, pv_str(p, p->diags.msg[i]));
	/* the samples themselves (what every filter, range or granularity starts from) */
	for (pv_metric_ix m = 0; m < nm; m++)
		compare_costs(path, "samples", p, want, nm, m, p, m, true, st, &bad);
	/* a filter that keeps every sample: top computed from the stacks */
	struct pv_query qy;
	pv_query_init(&qy);
	qy.view = PV_VIEW_TOP;
	pv_query_add_filter(&qy, PV_FILTER_INCLUDE, "re:.");
	for (uint32_t m = 0; m < nm; m++) {
		char ix[16];
		snprintf(ix, sizeof(ix), "%u", m);
		pv_query_add_metric(&qy, ix);
	}
	struct pv_view *v = NULL;
	struct pv_error err;
	if (pv_view_compute(p, &qy, &v, &err) == 0) {
		const struct pv_flat *fl = v->flat;
		for (uint32_t r = 0; r < fl->len; r++) {
			if (fl->kind[r] != PV_ROW_FUNCTION)
				continue;
			pv_func_ix f = fl->id[r];
			for (uint32_t m = 0; m < nm; m++) {
				if (!want[(size_t)f * nm + m])
					continue;
				st->compared++;
				if (fl->self[m][r] == p->func_costs.self[m][f] &&
				    fl->total[m][r] == p->func_costs.total[m][f])
					st->exact++;
				else if (bad++ < 5)
					t_fail(__FILE__, __LINE__,
					       "%s --include re:.: %s metric %u: %" PRId64
					       " / %" PRId64 ", top %" PRId64 " / %" PRId64,
					       path, pv_str(p, p->funcs.name[f]), m, fl->self[m][r],
					       fl->total[m][r], p->func_costs.self[m][f],
					       p->func_costs.total[m][f]);
			}
		}
		pv_view_free(v);
	} else {
		t_fail(__FILE__, __LINE__, "%s: %s", path, err.msg);
	}
	pv_query_release(&qy);
	/* each export format, read back */
	static const enum pv_export_format formats[] = {PV_EXPORT_COLLAPSED, PV_EXPORT_SPEEDSCOPE,
							PV_EXPORT_PPROF, PV_EXPORT_FIREFOX};
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		enum pv_export_format fmt = formats[i];
		const char *what = pv_export_format_name(fmt);
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);
		struct pv_lossy lossy = {0};
		int rc = pv_export_write(out, p, fmt, NULL, &lossy, &err);
		fclose(out);
		struct pv_profile *q = rc ? NULL : t_load_mem(what, buf, len);
		if (rc)
			t_fail(__FILE__, __LINE__, "%s: export %s: %s", path, what, err.msg);
		free(buf);
		if (!q) {
			bad++;
			continue;
		}
		for (pv_metric_ix m = 0; m < nm; m++) {
			pv_metric_ix qm = metric_of(p, m, q);
			if (qm != PV_NONE)
				compare_costs(path, what, p, want, nm, m, q, qm,
					      fmt != PV_EXPORT_COLLAPSED, st, &bad);
		}
		check_main(path, what, p, &g, q, st, &bad);
		pv_profile_free(q);
	}
	free(want);
	cg_graph_release(&g);
	T_EQ_INT(bad, 0);
	pv_profile_free(p);
}

/*
 * On every callgrind file of the tests: after an export to each format and a re-import, after
 * a filter that keeps every sample, and in the samples themselves, every function outside a
 * recursion cycle keeps the exact inclusive and self cost top prints from the graph
 * (callgrind_annotate's), in every metric the format carries; main sits under its callers.
 */
T_TEST(callgraph_contexts_exact_everywhere)
{
	struct stats st = {0};
	walk_dir(t_data("callgrind"), &st, check_contexts);
	walk_dir(t_corpus("callgrind"), &st, check_contexts);
	walk_dir(t_corpus("speedscope/callgrind"), &st, check_contexts);
	printf("# estimated contexts: %u files, %" PRIu64 " of %" PRIu64
	       " function costs exact; %" PRIu64 " functions in recursion cycles, %" PRIu64
	       " reaching one whose calls cost other than it spends; main under its callers in "
	       "%" PRIu64 " re-imports\n",
	       st.files, st.exact, st.compared, st.cyclic, st.inconsistent, st.mains);
	T_TRUE(st.files >= 18);
	T_TRUE(st.compared > 100000);
	T_EQ_U64(st.exact, st.compared);
	T_TRUE(st.mains >= 20);
}

/*
 * A call graph of many paths: main calls W functions, each calls the W of the next layer, L
 * layers (W^L paths), every call's cost what its callee spends (each function self 1000 W).
 */
static char *lattice(uint32_t W, uint32_t L, int64_t *total)
{
	size_t cap = 64 + (size_t)W * W * L * 64 + (size_t)W * L * 32, len = 0;
	char *s = malloc(cap);
	int64_t self = 1000 * (int64_t)W;
	/* a call into layer d costs 1000 (L - d + 1); a function of layer d spends W times that */
	len += (size_t)snprintf(s + len, cap - len, "events: Ir\nfl=lattice.c\nfn=main\n1 5\n");
	for (uint32_t j = 0; j < W; j++)
		len += (size_t)snprintf(s + len, cap - len, "cfn=f1_%u\ncalls=1 1\n1 %" PRId64 "\n",
					j, (int64_t)W * 1000 * L);
	for (uint32_t d = 1; d <= L; d++)
		for (uint32_t i = 0; i < W; i++) {
			len += (size_t)snprintf(s + len, cap - len, "fn=f%u_%u\n%u %" PRId64 "\n",
						d, i, d, self);
			for (uint32_t j = 0; d < L && j < W; j++)
				len += (size_t)snprintf(s + len, cap - len,
							"cfn=f%u_%u\ncalls=1 1\n%u %" PRId64 "\n",
							d + 1, j, d, (int64_t)1000 * (L - d));
		}
	*total = 5 + self * W * L;
	return s;
}

static bool has_diag(const struct pv_profile *p, const char *what)
{
	for (uint32_t i = 0; i < p->diags.len; i++)
		if (strstr(pv_str(p, p->diags.msg[i]), what))
			return true;
	return false;
}

/*
 * The budget of contexts: past 8 per function and call (and line) of a part, a function's
 * contexts take its calls in turn, and every cost stays exact (6 x 7 layers: 280,000 paths);
 * past that, a function of more than 1024 contexts folds the lightest into "(other)" under
 * their callers (8 x 9 layers: 134 million paths), the samples adding up to the file's cost.
 */
T_TEST(callgraph_contexts_budget)
{
	int64_t total;
	char *text = lattice(6, 7, &total);
	struct pv_profile *p = t_load_text_format("lattice-6x7", text, "callgrind");
	free(text);
	if (p) {
		struct stats st = {0};
		struct cg_graph g;
		pv_metric_ix m = 0;
		T_EQ_INT(cg_graph_build(p, &m, 1, NULL, &g), 0);
		uint8_t *want = expected_exact(p, &g, &st);
		uint32_t bad = 0;
		compare_costs("lattice-6x7", "samples", p, want, 1, 0, p, 0, true, &st, &bad);
		T_EQ_INT(bad, 0);
		T_EQ_U64(st.compared, 43);
		T_TRUE(has_diag(p, "parts with more than 8 calling contexts"));
		T_TRUE(!has_diag(p, "(other)"));
		T_TRUE(p->stacks.len < 20000);
		free(want);
		cg_graph_release(&g);
		pv_profile_free(p);
	}
	text = lattice(8, 9, &total);
	p = t_load_text_format("lattice-8x9", text, "callgrind");
	free(text);
	if (p) {
		T_TRUE(has_diag(p, "folded into an \"(other)\" frame"));
		T_EQ_INT(t_total(p, 0), total);
		T_EQ_INT(total, 576005);
		T_TRUE(p->stacks.len < 60000);
		/* main and the first layer stay exact */
		struct pv_view_opts o = {.metric = 0};
		struct pv_top *t = NULL;
		struct pv_error err;
		T_EQ_INT(pv_top_build(p, &o, PV_TOP_BY_SELF, &t, &err), 0);
		uint32_t seen = 0;
		for (uint32_t i = 0; t && i < t->len; i++) {
			const char *name = pv_str(p, p->funcs.name[t->func[i]]);
			if (strcmp(name, "main") && strncmp(name, "f1_", 3))
				continue;
			seen++;
			T_EQ_INT(t->total[i], p->func_costs.total[0][t->func[i]]);
			T_EQ_INT(t->self[i], p->func_costs.self[0][t->func[i]]);
		}
		T_EQ_INT(seen, 9);
		pv_top_free(t);
		pv_profile_free(p);
	}
}

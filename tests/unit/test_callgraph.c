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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/import.h"
#include "pv/view.h"
#include "t.h"
#include "tp.h"

/* A view of p: kind, center (NULL: none), every metric, rows down to depth (0: all). */
static struct pv_view *view(const struct pv_profile *p, enum pv_view_kind kind, const char *center,
			    uint32_t depth)
{
	struct pv_query q;
	pv_query_init(&q);
	q.view = kind;
	q.depth = depth;
	if (center)
		pv_query_add_center(&q, center);
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

struct stats {
	uint32_t files, centers, ring, ring_exact, ambiguous;
};

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
	for (uint32_t r = 0; v && r < v->tree->len && bad < 5; r++) {
		const struct pv_tree *t = v->tree;
		if (!t->child_len[r] && v->note && strstr(v->note, "not expanded"))
			continue; /* a row the budget left whole */
		for (uint32_t m = 0; m < nm; m++) {
			int64_t sum = t->self[m][r];
			for (uint32_t i = 0; i < t->child_len[r]; i++)
				sum += t->total[m][t->children[t->child_first[r] + i]];
			bool above = t->parent[r] != PV_NONE &&
				     t->total[m][r] > t->total[m][t->parent[r]] &&
				     t->total[m][r] > 0;
			if ((sum != t->total[m][r] || above) && bad++ < 5)
				t_fail(__FILE__, __LINE__,
				       "%s: tree row %u (%s) metric %u: total %" PRId64
				       ", self + children %" PRId64 "%s",
				       path, r, pv_str(p, p->funcs.name[t->id[r]]), m,
				       t->total[m][r], sum, above ? ", above its parent" : "");
		}
	}
	pv_view_free(v);
	free(center);
	pv_scope_names_free(sn);
	free(named);
	T_EQ_INT(bad, 0);
	pv_profile_free(p);
}

static void check_dir(const char *dir, struct stats *st)
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
			check_dir(path, st);
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
			check_file(names[i], st);
		free(names[i]);
	}
	free(names);
}

T_TEST(callgraph_center_equals_top_everywhere)
{
	struct stats st = {0};
	check_dir(t_data("callgrind"), &st);
	check_dir(t_corpus("callgrind"), &st);
	check_dir(t_corpus("speedscope/callgrind"), &st);
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

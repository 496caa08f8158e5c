/*
 * test_callgrind.c - the callgrind / cachegrind importer against callgrind_annotate.
 *
 * tests/data/callgrind/ has callgrind files recorded here (valgrind 3.19 on gzip and sort) with
 * callgrind_annotate's own output beside them, and corpus.annotate.tsv, callgrind_annotate's
 * per-function costs of the corpus files (README.md there says how each was made).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pv/disasm.h"
#include "pv/format.h"
#include "pv/import.h"
#include "pv/profile.h"
#include "pv/rows.h"
#include "pv/view.h"
#include "t.h"
#include "tp.h"

/*
 * Whether f calls itself, directly or through other functions (a walk of the model's call
 * graph): its inclusive cost then leaves out what callgrind counts again for nested calls, so it
 * is below callgrind_annotate's (doc/callgraph.md).
 */
static bool recursive(const struct pv_profile *p, pv_func_ix f)
{
	const struct pv_callgraph *cg = &p->callgraph;
	uint8_t *seen = calloc(p->funcs.len + 1, 1);
	uint32_t *todo = malloc((p->funcs.len + 1) * sizeof(uint32_t)), n = 0;
	bool found = false;
	if (!seen || !todo) {
		free(seen);
		free(todo);
		return false;
	}
	todo[n++] = f;
	while (n && !found) {
		uint32_t g = todo[--n];
		for (uint32_t e = 0; e < cg->nr_edges && !found; e++) {
			if (cg->caller[e] != g)
				continue;
			uint32_t h = cg->callee[e];
			found = h == f;
			if (!seen[h]) {
				seen[h] = 1;
				todo[n++] = h;
			}
		}
	}
	free(seen);
	free(todo);
	return found;
}

/* Our inclusive cost of f against callgrind_annotate's. */
static bool incl_ok(const struct pv_profile *p, pv_func_ix f, int64_t ours, int64_t annotate)
{
	return ours == annotate || (ours < annotate && recursive(p, f));
}

/* The function named "FILE:NAME" as callgrind_annotate prints it; PV_NONE when absent. */
static pv_func_ix find_fn(const struct pv_profile *p, const char *key)
{
	for (uint32_t f = 0; f < p->funcs.len; f++) {
		pv_source_ix s = pv_func_source(p, f);
		const char *file = s == PV_NONE ? "" : pv_str(p, p->sources.path[s]);
		size_t fl = strlen(file);
		if (strncmp(key, file, fl) == 0 && key[fl] == ':' &&
		    strcmp(key + fl + 1, pv_str(p, p->funcs.name[f])) == 0)
			return f;
	}
	return PV_NONE;
}

/*
 * Compares one callgrind_annotate output (the function table: one cost per event, then
 * "file:function [object]") with func_costs (self or total). Returns the functions compared.
 */
static uint32_t check_annotate(const struct pv_profile *p, const char *path, int inclusive)
{
	char *text = t_read_file(path, NULL);
	if (!text) {
		t_fail(__FILE__, __LINE__, "cannot read %s", path);
		return 0;
	}
	char *line = strstr(text, " file:function\n");
	T_TRUE(line != NULL);
	if (!line) {
		free(text);
		return 0;
	}
	line = strchr(line + 1, '\n') + 1; /* the dashes */
	line = strchr(line, '\n') + 1;
	uint32_t n = 0, bad = 0;
	uint32_t nev = p->metrics.len;
	while (*line && *line != '\n' && *line != '-') {
		char *end = strchr(line, '\n');
		if (end)
			*end = 0;
		char *q = line;
		int64_t v[64] = {0};
		for (uint32_t e = 0; e < nev; e++) {
			while (*q == ' ')
				q++;
			if (*q == '.') {
				v[e] = 0;
				q++;
			} else {
				int neg = *q == '-';
				q += neg;
				int64_t x = 0;
				while ((*q >= '0' && *q <= '9') || *q == ',') {
					if (*q != ',')
						x = x * 10 + (*q - '0');
					q++;
				}
				v[e] = neg ? -x : x;
				if (q[0] == ' ' && q[1] == '(')
					q = strchr(q, ')') + 1;
			}
		}
		while (*q == ' ')
			q++;
		char *obj = strstr(q, " [");
		char *last = NULL;
		while (obj) { /* the object is the last " [...]" */
			last = obj;
			obj = strstr(obj + 2, " [");
		}
		if (last && last[strlen(last) - 1] == ']')
			*last = 0;
		pv_func_ix f = find_fn(p, q);
		if (f == PV_NONE) {
			if (bad++ < 5)
				t_fail(__FILE__, __LINE__, "%s: no function %s", path, q);
		} else {
			for (uint32_t e = 0; e < nev; e++) {
				int64_t ours = inclusive ? p->func_costs.total[e][f]
							 : p->func_costs.self[e][f];
				bool ok = inclusive ? incl_ok(p, f, ours, v[e]) : ours == v[e];
				if (!ok && bad++ < 5)
					t_fail(__FILE__, __LINE__,
					       "%s: %s event %u: %" PRId64 " != %" PRId64, path, q,
					       e, ours, v[e]);
			}
		}
		n++;
		if (!end)
			break;
		line = end + 1;
	}
	T_EQ_INT(bad, 0);
	free(text);
	return n;
}

/* Self cost per function from the samples (the leaf's function), metric m. */
static int64_t *sample_self(const struct pv_profile *p, pv_metric_ix m)
{
	int64_t *s = calloc(p->funcs.len + 1, sizeof(*s));
	for (uint32_t i = 0; i < p->samples.len; i++) {
		pv_stack_ix st = p->samples.stack[i];
		if (st == PV_NONE)
			continue;
		s[p->frames.func[p->stacks.frame[st]]] += pv_sample_weight(p, m, i);
	}
	return s;
}

/* Inclusive cost per function from the samples, each sample once per function. */
static int64_t *sample_total(const struct pv_profile *p, pv_metric_ix m)
{
	int64_t *t = calloc(p->funcs.len + 1, sizeof(*t));
	uint32_t *seen = calloc(p->funcs.len + 1, sizeof(*seen));
	for (uint32_t i = 0; i < p->samples.len; i++) {
		for (pv_stack_ix st = p->samples.stack[i]; st != PV_NONE;
		     st = p->stacks.prefix[st]) {
			pv_func_ix f = p->frames.func[p->stacks.frame[st]];
			if (seen[f] == i + 1)
				continue;
			seen[f] = i + 1;
			t[f] += pv_sample_weight(p, m, i);
		}
	}
	free(seen);
	return t;
}

T_TEST(callgrind_recorded_equal_annotate)
{
	/* the file, and callgrind_annotate's output for it (of the file before gzip) */
	static const struct {
		const char *file, *ann;
		bool self;
	} files[] = {{"gzip.callgrind", "gzip.callgrind", true},
		     {"sort-instr.callgrind", "sort-instr.callgrind", true},
		     {"recursion.callgrind", "recursion.callgrind", true},
		     {"lua-fib.callgrind.gz", "lua-fib.callgrind", true},
		     {"cpython.callgrind.gz", "cpython.callgrind", false}};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[512], ann[600];
		snprintf(path, sizeof(path), "%s%s", t_data("callgrind/"), files[i].file);
		struct pv_profile *p = t_load_as(path, "callgrind");
		if (!p)
			continue;
		snprintf(ann, sizeof(ann), "%s%s.annotate-inclusive", t_data("callgrind/"),
			 files[i].ann);
		T_TRUE(check_annotate(p, ann, 1) > 300);
		snprintf(ann, sizeof(ann), "%s%s.annotate-self", t_data("callgrind/"),
			 files[i].ann);
		if (files[i].self)
			T_TRUE(check_annotate(p, ann, 0) > 300);
		pv_profile_free(p);
	}
	/* cachegrind: no calls, self only (inclusive == self) */
	struct pv_profile *p = t_load_as(t_data("callgrind/sort.cgout"), "callgrind");
	if (p) {
		T_EQ_INT(p->metrics.len, 9);
		T_TRUE(check_annotate(p, t_data("callgrind/sort.cgout.annotate-self"), 0) > 400);
		T_TRUE(check_annotate(p, t_data("callgrind/sort.cgout.annotate-self"), 1) > 400);
		/* one sample per function and line: flat by line has the lines */
		uint32_t lines = 0;
		for (uint32_t i = 0; i < p->samples.len; i++)
			lines += pv_frame_line(p, p->stacks.frame[p->samples.stack[i]]) != 0;
		T_TRUE(lines > 100);
		pv_profile_free(p);
	}
}

T_TEST(callgrind_corpus_equal_annotate)
{
	char *tsv = t_read_file(t_data("callgrind/corpus.annotate.tsv"), NULL);
	T_TRUE(tsv != NULL);
	if (!tsv)
		return;
	char cur[256] = "";
	struct pv_profile *p = NULL;
	uint32_t n = 0, files = 0, bad = 0;
	for (char *line = tsv; *line;) {
		char *end = strchr(line, '\n');
		if (end)
			*end = 0;
		char *f1 = strchr(line, '\t'), *f2 = f1 ? strchr(f1 + 1, '\t') : NULL;
		char *f3 = f2 ? strchr(f2 + 1, '\t') : NULL;
		if (!f3)
			break;
		*f1 = *f2 = *f3 = 0;
		if (strcmp(cur, line) != 0) {
			pv_profile_free(p);
			snprintf(cur, sizeof(cur), "%s", line);
			p = t_load_as(t_corpus(cur), "callgrind");
			files++;
		}
		if (p) {
			pv_func_ix f = find_fn(p, f1 + 1);
			int64_t self = strtoll(f2 + 1, NULL, 10), incl = strtoll(f3 + 1, NULL, 10);
			if (f == PV_NONE || p->func_costs.self[0][f] != self ||
			    !incl_ok(p, f, p->func_costs.total[0][f], incl)) {
				if (bad++ < 5)
					t_fail(__FILE__, __LINE__,
					       "%s: %s: annotate %" PRId64 "/%" PRId64
					       ", ours %" PRId64 "/%" PRId64,
					       cur, f1 + 1, self, incl,
					       f == PV_NONE ? -1 : p->func_costs.self[0][f],
					       f == PV_NONE ? -1 : p->func_costs.total[0][f]);
			}
			n++;
		}
		if (!end)
			break;
		line = end + 1;
	}
	pv_profile_free(p);
	free(tsv);
	T_EQ_INT(bad, 0);
	T_EQ_INT(files, 11);
	T_TRUE(n > 4000);
}

/* The calling contexts: every function's self cost exact, the total the file's. */
T_TEST(callgrind_contexts_keep_self_exact)
{
	static const char *const files[] = {"callgrind/gzip.callgrind",
					    "callgrind/sort-instr.callgrind",
					    "callgrind/gzip-parts.callgrind"};
	for (size_t i = 0; i < 3; i++) {
		struct pv_profile *p = t_load_as(t_data(files[i]), "callgrind");
		if (!p)
			continue;
		for (pv_metric_ix m = 0; m < p->metrics.len; m++) {
			int64_t *s = sample_self(p, m);
			int64_t sum = 0;
			uint32_t bad = 0;
			for (uint32_t f = 0; f < p->funcs.len; f++) {
				bad += s[f] != p->func_costs.self[m][f];
				sum += p->func_costs.self[m][f];
			}
			T_EQ_INT(bad, 0);
			int64_t w = 0;
			for (uint32_t k = 0; k < p->samples.len; k++)
				w += pv_sample_weight(p, m, k);
			T_EQ_INT(w, sum);
			free(s);
		}
		T_TRUE(t_diag(p, "callgrind stores a call graph, not stacks", NULL));
		pv_profile_free(p);
	}
}

/* On a call graph without cycles, the contexts' inclusive costs are the exact ones. */
T_TEST(callgrind_contexts_inclusive_on_a_dag)
{
	struct pv_profile *p =
	    t_load_as(t_corpus("speedscope/callgrind/callgrind.example.log"), "callgrind");
	if (!p)
		return;
	int64_t *t = sample_total(p, 0);
	for (uint32_t f = 0; f < p->funcs.len; f++)
		T_EQ_INT(t[f], p->func_costs.total[0][f]);
	T_EQ_INT(t[find_fn(p, "file1.c:main")], 820);
	T_EQ_INT(t[find_fn(p, "file2.c:func2")], 700);
	free(t);
	pv_profile_free(p);
	/* gzip: every function but those in recursion or called from outside main's tree */
	p = t_load_as(t_data("callgrind/gzip.callgrind"), "callgrind");
	if (!p)
		return;
	t = sample_total(p, 0);
	uint32_t exact = 0, over = 0;
	for (uint32_t f = 0; f < p->funcs.len; f++) {
		exact += t[f] == p->func_costs.total[0][f];
		over += t[f] > p->func_costs.total[0][f] && p->func_costs.total[0][f] >= 0;
	}
	T_TRUE(exact * 100 >= p->funcs.len * 95);
	T_EQ_INT(over, 0);
	free(t);
	pv_profile_free(p);
}

T_TEST(callgrind_totals_checked)
{
	/* bzr's summary: does not match its own cost lines; issue34 says "summary: 0" */
	struct pv_profile *p =
	    t_load_as(t_corpus("callgrind/gprof2dot-bzr.callgrind"), "callgrind");
	if (p) {
		T_TRUE(t_diag(p,
			      "summary: (last at line 2) says 1482829, the cost lines add up "
			      "to 1482191 (used)",
			      NULL));
		int64_t w = 0;
		for (uint32_t k = 0; k < p->samples.len; k++)
			w += pv_sample_weight(p, 0, k);
		T_EQ_INT(w, 1482191);
		pv_profile_free(p);
	}
	p = t_load_as(t_corpus("callgrind/gprof2dot-googlecode-issue34.callgrind"), "callgrind");
	if (p) {
		T_TRUE(t_diag(p, "summary: (last at line 17) says 0 0 0 0 0 0 0 0 0", NULL));
		T_TRUE(!t_diag(p, "totals:", NULL));
		T_EQ_INT(p->metrics.len, 9);
		T_TRUE(t_diag(p, "jump= / jcnd= lines", NULL));
		pv_profile_free(p);
	}
	/* a right totals: line says nothing */
	p = t_load_as(t_data("callgrind/gzip.callgrind"), "callgrind");
	if (p) {
		T_TRUE(!t_diag(p, "summary:", NULL));
		T_TRUE(!t_diag(p, "totals:", NULL));
		pv_profile_free(p);
	}
}

T_TEST(callgrind_parts_are_threads)
{
	struct pv_profile *p = t_load_as(t_data("callgrind/gzip-parts.callgrind"), "callgrind");
	if (!p)
		return;
	T_EQ_INT(p->threads.len, 4);
	T_EQ_STR(pv_str(p, p->threads.name[1]), "part 2");
	int64_t w = 0;
	for (uint32_t k = 0; k < p->samples.len; k++)
		w += pv_sample_weight(p, 0, k);
	T_EQ_INT(w, 238214 + 293022 + 330467 + 6010); /* the four totals: lines */
	T_TRUE(!t_diag(p, "summary:", NULL));
	/* main's calls go on across dumps ("calls=0"): its inclusive cost is the four parts' */
	pv_func_ix f = find_fn(p, "???:0x0000000000003df0");
	T_TRUE(f != PV_NONE);
	if (f != PV_NONE)
		T_EQ_INT(p->func_costs.total[0][f], 109877 + 293022 + 330467 + 6010);
	pv_profile_free(p);
}

T_TEST(callgrind_grammar)
{
	/* name compression, fi/fe, relative positions, a call's inclusive cost, two events */
	static const char text[] = "# callgrind format\n"
				   "version: 1\n"
				   "positions: instr line\n"
				   "events: Ir Dr\n"
				   "\n"
				   "ob=(1) /bin/prog\n"
				   "fl=(1) main.c\n"
				   "fn=(1) main\n"
				   "0x10 10 5 1\n"
				   "+4 +1 3\n"
				   "cfi=(2) lib.c\n"
				   "cfn=(2) work\n"
				   "calls=2 0x100 20\n"
				   "* * 100 10\n"
				   "fi=(3) inl.h\n"
				   "+2 -9 7 7\n"
				   "fe=(1)\n"
				   "jump=1 +8 *\n"
				   "* *\n"
				   "\n"
				   "fl=(2)\n"
				   "fn=(2)\n"
				   "0x100 20 90 10\n"
				   "cfn=(3) leaf\n"
				   "calls=1 0x200 30\n"
				   "* * 10\n"
				   "fn=(3)\n"
				   "0x200 30 10\n"
				   "totals: 115 18\n";
	struct pv_profile *p = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_memory("grammar.callgrind", text, sizeof(text) - 1, NULL, &p, &err), 0);
	if (!p)
		return;
	T_EQ_INT(pv_profile_validate(p, &err), 0);
	T_EQ_INT(p->metrics.len, 2);
	pv_func_ix mainf = find_fn(p, "main.c:main"), inl = find_fn(p, "inl.h:main"),
		   work = find_fn(p, "lib.c:work"), leaf = find_fn(p, "lib.c:leaf");
	T_TRUE(mainf != PV_NONE && inl != PV_NONE && work != PV_NONE && leaf != PV_NONE);
	if (mainf == PV_NONE || inl == PV_NONE || work == PV_NONE || leaf == PV_NONE) {
		pv_profile_free(p);
		return;
	}
	T_EQ_INT(p->func_costs.self[0][mainf], 8);
	/* callgrind_annotate says 108: for a function nobody calls it leaves out the inlined code
	 * (inl.h), which it counts in a called function through the calls' costs; the whole
	 * program's root costs the whole program (doc/callgraph.md) */
	T_EQ_INT(p->func_costs.total[0][mainf], 115);
	T_EQ_INT(p->func_costs.self[1][mainf], 1);
	T_EQ_INT(p->func_costs.self[0][inl], 7);
	T_EQ_INT(p->func_costs.total[0][inl], 7);
	T_EQ_INT(p->func_costs.self[0][work], 90);
	T_EQ_INT(p->func_costs.total[0][work], 100);
	T_EQ_INT(p->func_costs.total[1][work], 10);
	T_EQ_INT(p->func_costs.total[0][leaf], 10);
	T_TRUE(!t_diag(p, "totals:", NULL));
	T_TRUE(t_diag(p, "jump=", NULL));
	/* the contexts: main > work > leaf; main's inlined code under main */
	int64_t *t = sample_total(p, 0);
	T_EQ_INT(t[mainf], 115);
	T_EQ_INT(t[work], 100);
	T_EQ_INT(t[leaf], 10);
	free(t);
	pv_profile_free(p);
}

struct bad_case {
	const char *text;
	const char *msg;
	uint64_t line, column;
};

T_TEST(callgrind_malformed)
{
	static const struct bad_case cases[] = {
	    {"events: Ir\nfn=a\n1 2\ncfn=b\ncalls=1 1\n", "without its cost line", 5, 1},
	    {"events: Ir\nfn=a\n1 99999999999999999999\n", "number too large", 3, 3},
	    {"events: Ir\nfn=a\n1 5 x\n", "more costs than the 1 events", 3, 5},
	    {"events: Ir Dr\nfn=a\n1 5 x\n", "expected a cost", 3, 5},
	    {"events: Ir\nfn=a\n1 9223372036854775807\n2 1\n", "costs add up past", 4, 1},
	    {"fn=a\nevents: Ir\n1 2\n", "before the events: line", 1, 1},
	    {"# callgrind format\n1 2\n", "a cost line before the events: line", 2, 1},
	    {"events: Ir\nfn=(99999999999999999999) x\n", "name id too large", 2, 5},
	    {"events: Ir\nfn=a\ncfn=b\ncalls=1 1\nfn=b\n", "must be followed by its cost line", 5,
	     1},
	    {"events: Ir\npositions: line bogus\n", "unknown position", 2, 17},
	    {"# callgrind format\nversion: 1\n", "no events: line", 2, 1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pv_profile *p = NULL;
		struct pv_error err;
		pv_error_clear(&err);
		int rc = pv_import_memory("bad.callgrind", cases[i].text, strlen(cases[i].text),
					  "callgrind", &p, &err);
		T_EQ_INT(rc, PV_EPARSE);
		T_CONTAINS(err.msg, cases[i].msg);
		T_EQ_INT(err.has_pos, 1);
		if (cases[i].line) {
			T_EQ_INT(err.line, cases[i].line);
			T_EQ_INT(err.column, cases[i].column);
		}
		T_TRUE(strchr(err.msg, '\n') == NULL);
		if (!rc)
			pv_profile_free(p);
	}
}

/* A call chain 100,000 functions deep, and a cycle through all of them: both end. */
T_TEST(callgrind_deep_chain_and_cycle)
{
	for (int cycle = 0; cycle < 2; cycle++) {
		uint32_t n = 100000;
		size_t cap = (size_t)n * 64 + 64, len = 0;
		char *t = malloc(cap);
		len += (size_t)snprintf(t + len, cap - len, "events: Ir\n");
		for (uint32_t i = 0; i < n; i++) {
			uint32_t next = i + 1 < n ? i + 1 : (cycle ? 0 : n);
			len += (size_t)snprintf(t + len, cap - len, "fn=(%u) f%u\n1 1\n", i + 1, i);
			if (next < n)
				len += (size_t)snprintf(t + len, cap - len,
							"cfn=(%u) f%u\ncalls=1 1\n1 %u\n", next + 1,
							next, n - 1 - i);
		}
		struct pv_profile *p = NULL;
		struct pv_error err;
		T_EQ_INT(pv_import_memory("deep.callgrind", t, len, NULL, &p, &err), 0);
		free(t);
		if (!p)
			continue;
		T_EQ_INT(pv_profile_validate(p, &err), 0);
		T_EQ_INT(p->funcs.len, n);
		int64_t w = 0;
		uint32_t depth = 0;
		uint32_t *d = calloc(p->stacks.len + 1, sizeof(*d)); /* prefixes come first */
		for (uint32_t s = 0; s < p->stacks.len; s++)
			d[s] = p->stacks.prefix[s] == PV_NONE ? 1 : d[p->stacks.prefix[s]] + 1;
		for (uint32_t k = 0; k < p->samples.len; k++) {
			w += pv_sample_weight(p, 0, k);
			uint32_t dk = p->samples.stack[k] == PV_NONE ? 0 : d[p->samples.stack[k]];
			depth = dk > depth ? dk : depth;
		}
		free(d);
		T_EQ_INT(w, n);
		if (!cycle)
			T_EQ_INT(depth, n);
		pv_func_ix f0 = find_fn(p, ":f0");
		T_TRUE(f0 != PV_NONE);
		if (!cycle && f0 != PV_NONE)
			T_EQ_INT(p->func_costs.total[0][f0], n);
		pv_profile_free(p);
	}
}

T_TEST(callgrind_probe)
{
	static const char *const corpus[] = {
	    "callgrind/gprof2dot-bool.callgrind",
	    "callgrind/gprof2dot-bzr.callgrind",
	    "callgrind/gprof2dot-empty.callgrind",
	    "callgrind/gprof2dot-selinux.callgrind",
	    "callgrind/cachegrind/valgrind-ann2.cgout",
	    "callgrind/cachegrind/valgrind-ann-diff2a.cgout",
	    "speedscope/callgrind/callgrind.multiple-event-types.log",
	    "speedscope/callgrind/callgrind.subposition-compression.log",
	};
	for (size_t i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++) {
		struct pv_profile *p = NULL;
		struct pv_error err;
		int rc = pv_import_file(t_corpus(corpus[i]), NULL, &p, &err);
		T_EQ_INT(rc, 0);
		if (rc) {
			t_fail(__FILE__, __LINE__, "%s: %s", corpus[i], err.msg);
			continue;
		}
		T_EQ_STR(pv_str(p, p->meta.format), "callgrind");
		T_EQ_INT(pv_profile_validate(p, &err), 0);
		pv_profile_free(p);
	}
	/* speedscope's fixture writes costs as positions: read as callgrind_annotate does */
	struct pv_profile *p = t_load_as(
	    t_corpus("speedscope/callgrind/callgrind.subposition-compression.log"), "callgrind");
	if (p) {
		T_TRUE(t_diag(p, "costs written as positions", NULL));
		T_EQ_INT(p->func_costs.self[0][find_fn(p, "file1.c:func1")], -300);
		pv_profile_free(p);
	}
}

/*
 * An event named twice on the events: line (a fuzzer's find, fuzz/corpus/callgrind/): metrics are
 * one per name, so the second Ir had no metric and the import read past the metric table (a
 * segmentation fault). Now refused where the name repeats.
 */
T_TEST(callgrind_event_named_twice)
{
	static const char *const texts[] = {"events: Ir Ir\nfn=main\n1 2 3\n",
					    "events: Ir Dr Ir\nfn=main\n1 2 3 4\n"};
	static const char *const msgs[] = {
	    "bad.callgrind: line 1, column 12: events: names 'Ir' twice",
	    "bad.callgrind: line 1, column 15: events: names 'Ir' twice"};
	for (size_t i = 0; i < 2; i++) {
		struct pv_profile *p = NULL;
		struct pv_error err;
		pv_error_clear(&err);
		int rc =
		    pv_import_memory("bad.callgrind", texts[i], strlen(texts[i]), NULL, &p, &err);
		T_EQ_INT(rc, PV_EPARSE);
		T_EQ_STR(err.msg, msgs[i]);
		if (!rc)
			pv_profile_free(p);
	}
}

/* Events whose names differ only by case are two metrics, each found by its own name. */
T_TEST(callgrind_events_differing_by_case)
{
	static const char text[] = "events: Ir ir\nfn=main\n1 2 3\n";
	struct pv_profile *p = NULL;
	struct pv_error err;
	T_EQ_INT(pv_import_memory("case.callgrind", text, strlen(text), NULL, &p, &err), 0);
	if (!p)
		return;
	T_EQ_INT(p->metrics.len, 2);
	T_EQ_INT(pv_metric_find(p, "Ir"), 0);
	T_EQ_INT(pv_metric_find(p, "ir"), 1);
	T_EQ_INT(pv_metric_find(p, "IR"), 0);
	T_EQ_INT(pv_sample_weight(p, 1, 0), 3);
	pv_profile_free(p);
}

/*
 * callgrind_annotate's per-line self costs of one source file (its "Auto-annotated source:"
 * section, made with --context=1000 so every line is listed): cost[line], 0 for ".", the "=>"
 * call lines left out; returns the number of lines, 0 when the section is missing.
 */
static uint32_t annotate_lines(const char *text, const char *file, int64_t *cost, uint32_t max)
{
	char head[256];
	snprintf(head, sizeof(head), "-- Auto-annotated source: %s\n", file);
	const char *p = strstr(text, head);
	if (!p)
		return 0;
	p = strstr(p, "\n\n"); /* the events' header line, then a blank line */
	if (!p)
		return 0;
	p += 2;
	uint32_t n = 0;
	while (*p && *p != '\n' && n + 1 < max) {
		const char *e = strchr(p, '\n');
		if (!e)
			break;
		const char *q = p;
		while (*q == ' ')
			q++;
		int64_t v = 0;
		for (; *q == ',' || (*q >= '0' && *q <= '9'); q++)
			if (*q != ',')
				v = v * 10 + (*q - '0');
		while (*q == ' ')
			q++;
		if (strncmp(q, "=>", 2) != 0) /* a call's line: its inclusive cost */
			cost[++n] = v;
		p = e + 1;
	}
	return n;
}

/*
 * Per-line self costs: the source pane's (the top view by line, pv_source_costs) of lines.c and
 * of the header whose inlined code it holds (fi=/fe=) equal callgrind_annotate's, line by line.
 * The file has calls and positions "instr line" (README.md there).
 */
T_TEST(callgrind_lines_equal_annotate)
{
	struct pv_profile *p = t_load_as(t_data("callgrind/lines/lines.callgrind"), "callgrind");
	char *ann = t_read_file(t_data("callgrind/lines/lines.callgrind.annotate"), NULL);
	T_TRUE(ann != NULL);
	if (!p || !ann) {
		pv_profile_free(p);
		free(ann);
		return;
	}
	struct pv_view *v = t_line_view(p, NULL);
	static const char *const files[] = {"lines.c", "lines.h"};
	uint32_t checked = 0, costly = 0;
	for (size_t k = 0; v && k < 2; k++) {
		int64_t want[64] = {0};
		uint32_t n = annotate_lines(ann, files[k], want, 64);
		T_TRUE(n > 6);
		char path[64];
		snprintf(path, sizeof(path), "/tmp/pvlines/%s", files[k]);
		pv_source_ix id = PV_NONE;
		for (uint32_t s = 0; s < p->sources.len; s++)
			if (strcmp(pv_str(p, p->sources.path[s]), path) == 0)
				id = s;
		T_TRUE(id != PV_NONE);
		struct pv_source_costs *sc = NULL;
		if (id == PV_NONE || pv_source_costs(v, id, n, &sc))
			continue;
		for (uint32_t ln = 1; ln <= n; ln++) {
			int64_t got =
			    sc->has[ln] ? sc->cost[(size_t)ln * sc->nr_metrics * 2 + 1] : 0;
			if (got != want[ln])
				t_fail(__FILE__, __LINE__,
				       "%s:%u: self %" PRId64 ", annotate %" PRId64, files[k], ln,
				       got, want[ln]);
			checked++;
			costly += want[ln] != 0;
		}
		pv_source_costs_free(sc);
	}
	T_EQ_INT(checked, 34 + 7);
	T_EQ_INT(costly, 18 + 2);
	pv_view_free(v);
	pv_profile_free(p);
	free(ann);
}

/* The file the source pane opens on: the heaviest by its lines' self cost. callgrind_annotate's
 * per-line sums: lines.c 957,089 Ir over its 18 lines, lines.h 163,840 (2 x 81,920), the
 * next file (glibc's dl-lookup.c) below 40,000; centered on the header's code, lines.h. */
static pv_source_ix ranked_first(struct pv_profile *p, const char *center, pv_source_ix *second)
{
	struct pv_view *v = t_line_view(p, center);
	pv_source_ix *ids = NULL, first = PV_NONE;
	uint32_t n = 0;
	*second = PV_NONE;
	if (v && !pv_source_ranking(v, &ids, &n) && n) {
		first = ids[0];
		*second = n > 1 ? ids[1] : PV_NONE;
	}
	free(ids);
	pv_view_free(v);
	return first;
}

T_TEST(callgrind_lines_hottest_source)
{
	struct pv_profile *p = t_load_as(t_data("callgrind/lines/lines.callgrind"), "callgrind");
	if (!p)
		return;
	pv_source_ix second = PV_NONE;
	pv_source_ix first = ranked_first(p, NULL, &second);
	T_TRUE(first != PV_NONE && second != PV_NONE);
	if (first != PV_NONE && second != PV_NONE) {
		T_EQ_STR(pv_str(p, p->sources.path[first]), "/tmp/pvlines/lines.c");
		T_EQ_STR(pv_str(p, p->sources.path[second]), "/tmp/pvlines/lines.h");
	}
	first = ranked_first(p, "file:lines.h", &second);
	T_TRUE(first != PV_NONE);
	if (first != PV_NONE)
		T_EQ_STR(pv_str(p, p->sources.path[first]), "/tmp/pvlines/lines.h");
	pv_profile_free(p);
}

/*
 * Instruction addresses (positions: instr line): callgrind/addr/addr.callgrind, a small program
 * recorded with --dump-instr=yes (README.md there). Each address's self cost of addr.c's code
 * equals addresses.py's independent reading of the file (addr.callgrind.addresses.tsv: file, line,
 * address, self; the addresses and lines checked by hand against objdump -d -l of the binary),
 * the per-line sums still equal callgrind_annotate's, and the source pane's address column
 * (pv_source_addrs) follows: line 15 of sum() runs 8 instructions, 0x1152 .. 0x1178, the loop's
 * three (0x1171, 0x1175, 0x1178) 4,096 times each, so the hottest is 0x1171.
 */
T_TEST(callgrind_instr_addresses)
{
	struct pv_profile *p = t_load_as(t_data("callgrind/addr/addr.callgrind"), "callgrind");
	char *want = t_read_file(t_data("callgrind/addr/addr.callgrind.addresses.tsv"), NULL);
	char *ann = t_read_file(t_data("callgrind/addr/addr.callgrind.annotate"), NULL);
	T_TRUE(want && ann);
	if (!p || !want || !ann) {
		pv_profile_free(p);
		free(want);
		free(ann);
		return;
	}
	T_TRUE(p->frames.addr != NULL);
	pv_source_ix id = PV_NONE;
	for (uint32_t s = 0; s < p->sources.len; s++)
		if (strcmp(pv_str(p, p->sources.path[s]), "/tmp/pvaddr/addr.c") == 0)
			id = s;
	T_TRUE(id != PV_NONE);
	/* the samples' self per leaf address in addr.c */
	enum { MAXA = 256 };
	uint64_t addr[MAXA];
	int64_t self[MAXA];
	uint32_t line[MAXA], na = 0;
	for (uint32_t s = 0; s < p->samples.len; s++) {
		pv_stack_ix st = p->samples.stack[s];
		if (st == PV_NONE)
			continue;
		pv_frame_ix f = p->stacks.frame[st];
		uint64_t a = pv_frame_addr(p, f);
		if (pv_func_source(p, p->frames.func[f]) != id)
			continue;
		T_TRUE(a != PV_ADDR_NONE);
		uint32_t k = 0;
		while (k < na && addr[k] != a)
			k++;
		if (k == na && na < MAXA) {
			addr[na] = a;
			self[na] = 0;
			line[na++] = pv_frame_line(p, f);
		}
		if (k < na)
			self[k] += pv_sample_weight(p, 0, s);
	}
	/* addresses.py's rows: every one, and no other */
	uint32_t rows = 0;
	struct {
		uint32_t n;
		uint64_t lo, hi, hot;
		int64_t hot_self, self;
	} byline[40] = {{0}};
	for (char *l = want; l && *l;) {
		char *nl = strchr(l, '\n');
		char file[256];
		unsigned ln;
		unsigned long long a;
		long long c;
		if (sscanf(l, "%255[^\t]\t%u\t%llx\t%lld", file, &ln, &a, &c) == 4 && ln < 40) {
			uint32_t k = 0;
			while (k < na && addr[k] != a)
				k++;
			if (k == na)
				t_fail(__FILE__, __LINE__, "0x%llx: no sample", a);
			else {
				T_EQ_INT(self[k], c);
				T_EQ_INT(line[k], ln);
			}
			if (!byline[ln].n++)
				byline[ln].lo = byline[ln].hot = a;
			if (c > byline[ln].hot_self ||
			    (c == byline[ln].hot_self && a < byline[ln].hot)) {
				byline[ln].hot = a;
				byline[ln].hot_self = c;
			}
			byline[ln].hi = a > byline[ln].hi ? a : byline[ln].hi;
			byline[ln].self += c;
			rows++;
		}
		l = nl ? nl + 1 : NULL;
	}
	T_EQ_INT(rows, 47);
	T_EQ_INT(na, rows);
	/* the per-line sums: callgrind_annotate's */
	int64_t cost[40] = {0};
	T_EQ_INT(annotate_lines(ann, "addr.c", cost, 40), 30);
	for (uint32_t ln = 1; ln < 40; ln++)
		T_EQ_INT(byline[ln].self, cost[ln]);
	/* the source pane's address column */
	struct pv_view *v = t_line_view(p, NULL);
	struct pv_source_addrs *sa = NULL;
	struct pv_error err;
	T_EQ_INT(v ? pv_source_addrs(p, &v->q, id, 30, &sa, &err) : -1, 0);
	for (uint32_t ln = 1; sa && ln <= 30; ln++) {
		T_EQ_INT(sa->n[ln], byline[ln].n);
		if (!sa->n[ln])
			continue;
		T_EQ_U64(sa->lo[ln], byline[ln].lo);
		T_EQ_U64(sa->hi[ln], byline[ln].hi);
		T_EQ_U64(sa->hot[ln], byline[ln].hot);
		T_EQ_INT(sa->hot_self[ln], byline[ln].hot_self);
	}
	T_TRUE(sa && sa->n[15] == 8 && sa->lo[15] == 0x1152 && sa->hi[15] == 0x1178 &&
	       sa->hot[15] == 0x1171 && sa->hot_self[15] == 4096);
	pv_source_addrs_free(sa);
	pv_view_free(v);
	pv_profile_free(p);
	free(want);
	free(ann);
}

/* A file without instruction positions keeps no address (no column, no memory for one). */
T_TEST(callgrind_no_instr_no_addresses)
{
	struct pv_profile *p = t_load_as(t_data("callgrind/gzip.callgrind"), "callgrind");
	if (!p)
		return;
	T_TRUE(p->frames.addr == NULL);
	pv_profile_free(p);
}

/*
 * A part with calls and more (function, address) rows than the cap (2^18) keeps its per-line
 * costs: the address rows merge into line rows (reported), the lines' self costs unchanged.
 * Generated: a() calls b(), then runs 2^18 + 1000 instructions, the k-th at line 1 + k % 50.
 */
T_TEST(callgrind_instr_addresses_past_cap)
{
	const uint32_t n = (1u << 18) + 1000;
	size_t cap = (size_t)n * 24 + 512, len = 0;
	char *t = malloc(cap);
	T_TRUE(t != NULL);
	if (!t)
		return;
	len += (size_t)snprintf(t + len, cap - len,
				"positions: instr line\nevents: Ir\nfl=a.c\nfn=a\n0x100 1 1\n"
				"cfn=b\ncalls=1 0x9000 60\n* * 7\n");
	for (uint32_t k = 0; k < n; k++)
		len +=
		    (size_t)snprintf(t + len, cap - len, "0x%x %u 1\n", 0x1000 + 4 * k, 1 + k % 50);
	len += (size_t)snprintf(t + len, cap - len, "fn=b\n0x9000 60 7\n");
	struct pv_profile *p = t_load_mem("past-cap.callgrind", t, len);
	free(t);
	if (!p)
		return;
	T_EQ_INT(t_diag_count(p, "(function, address) costs"), 1);
	T_TRUE(p->frames.addr == NULL);
	int64_t by_line[61] = {0};
	for (uint32_t s = 0; s < p->samples.len; s++) {
		pv_stack_ix st = p->samples.stack[s];
		uint32_t ln = st == PV_NONE ? 0 : pv_frame_line(p, p->stacks.frame[st]);
		by_line[ln <= 60 ? ln : 0] += pv_sample_weight(p, 0, s);
	}
	/* line L runs the instructions k with k % 50 == L - 1; line 1 also the first one */
	for (uint32_t ln = 1; ln <= 50; ln++)
		T_EQ_INT(by_line[ln], (int64_t)(n / 50 + (ln - 1 < n % 50)) + (ln == 1));
	T_EQ_INT(by_line[60], 7);
	T_EQ_INT(by_line[0], 0);
	pv_profile_free(p);
}

/* ---- disassembly (pv/disasm.h) ---- */

/*
 * A binary built here (gcc -O1 -g, the machine's compiler: its addresses are read with nm at
 * test time, never assumed) and a callgrind file written for it: work() at its first address
 * (nm) costs 7 and at its last byte, its ret, 5. The disassembly of work is objdump's: it
 * starts at nm's address, ends with the ret at work + size - 1 (nm -S), and carries exactly
 * those self costs; the first instruction is on work's line (3) of the source. A module whose
 * file is missing gives one note and no instruction.
 */
static bool build_prog(char *dir, size_t n, const char *flags, uint64_t *work, uint64_t *size)
{
	snprintf(dir, n, "/tmp/pv-disasm-XXXXXX");
	if (!mkdtemp(dir))
		return false;
	char cmd[1024], path[600];
	snprintf(path, sizeof(path), "%s/prog.c", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return false;
	fputs("volatile unsigned sink;\n"
	      "__attribute__((noinline)) static unsigned work(unsigned x)\n"
	      "{\n"
	      "\tfor (int i = 0; i < 100; i++)\n"
	      "\t\tx = x * 33 + (unsigned)i;\n"
	      "\treturn x;\n"
	      "}\n"
	      "int main(void) { sink = work(sink); return 0; }\n",
	      f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cd %s && gcc -O1 -g %s -o prog prog.c && nm -S prog > nm.txt",
		 dir, flags);
	if (system(cmd) != 0)
		return false;
	snprintf(path, sizeof(path), "%s/nm.txt", dir);
	char *nm = t_read_file(path, NULL);
	bool ok = false;
	for (char *l = nm; l && *l;) {
		char *nl = strchr(l, '\n');
		unsigned long long a, s;
		char t, name[64];
		if (sscanf(l, "%llx %llx %c %63s", &a, &s, &t, name) == 4 &&
		    !strcmp(name, "work")) {
			*work = a;
			*size = s;
			ok = true;
		}
		l = nl ? nl + 1 : NULL;
	}
	free(nm);
	return ok;
}

T_TEST(disasm_built_binary)
{
#if defined(__x86_64__)
	if (system("command -v gcc >/dev/null && command -v objdump >/dev/null && command -v nm "
		   ">/dev/null") != 0) {
		t_fail(__FILE__, __LINE__, "gcc, objdump and nm are needed (make deps)");
		return;
	}
	char dir[64], text[2048], cmd[256];
	uint64_t work = 0, size = 0;
	T_TRUE(build_prog(dir, sizeof(dir), "", &work, &size));
	if (!work || size < 2)
		return;
	uint64_t last = work + size - 1;
	int len = snprintf(text, sizeof(text),
			   "# callgrind format\nevents: Ir\npositions: instr line\n"
			   "ob=%s/prog\nfl=%s/prog.c\nfn=main\n0x%llx 8 1\n"
			   "cfn=work\ncalls=1 0x%llx 3\n0x%llx 8 12\n"
			   "fn=work\n0x%llx 3 7\n0x%llx 6 5\n"
			   "ob=/nonexistent/lib.so\nfl=lib.c\nfn=gone\n0x10 2 4\ntotals: 17\n",
			   dir, dir, (unsigned long long)work - 0x40, (unsigned long long)work,
			   (unsigned long long)work - 0x40, (unsigned long long)work,
			   (unsigned long long)last);
	struct pv_profile *p = t_load_mem("built.callgrind", text, (size_t)len);
	if (!p)
		return;
	uint8_t *mark = calloc(p->funcs.len, 1);
	pv_func_ix fw = t_find_func(p, "work");
	T_TRUE(mark && fw != PV_NONE);
	struct pv_query q;
	pv_query_init(&q);
	struct pv_disasm *d = NULL;
	struct pv_error err;
	if (mark && fw != PV_NONE) {
		mark[fw] = 1;
		T_EQ_INT(pv_disasm_funcs(p, &q, mark, NULL, &d, &err), 0);
	}
	T_TRUE(d && d->n >= 2);
	if (d && d->n >= 2) {
		T_EQ_INT(d->nr_notes, 0);
		T_EQ_U64(d->insn[0].addr, work);
		T_EQ_INT(d->insn[0].self, 7);
		T_EQ_INT(d->insn[0].line, 3);
		T_EQ_U64(d->insn[d->n - 1].addr, last);
		T_EQ_INT(d->insn[d->n - 1].self, 5);
		T_EQ_STR(d->insn[d->n - 1].text, "ret");
		int64_t sum = 0;
		for (uint32_t i = 0; i < d->n; i++) {
			sum += d->insn[i].self;
			T_TRUE(d->insn[i].func == fw && d->insn[i].addr >= work &&
			       d->insn[i].addr <= last && *d->insn[i].text);
		}
		T_EQ_INT(sum, 12);
	}
	pv_disasm_free(d);
	d = NULL;
	/* the source pane's line 3: work's instructions, those objdump puts on line 3 marked */
	pv_source_ix id = pv_func_source(p, fw);
	T_EQ_INT(pv_disasm_line(p, &q, id, 3, NULL, &d, &err), 0);
	uint32_t here = 0;
	for (uint32_t i = 0; d && i < d->n; i++)
		here += d->insn[i].here;
	T_TRUE(d && d->n >= 2 && d->insn[0].here && here < d->n);
	pv_disasm_free(d);
	d = NULL;
	/* the missing module: a note, no instruction, no error */
	pv_func_ix fg = t_find_func(p, "gone");
	if (mark && fg != PV_NONE) {
		memset(mark, 0, p->funcs.len);
		mark[fg] = 1;
		T_EQ_INT(pv_disasm_funcs(p, &q, mark, NULL, &d, &err), 0);
		T_TRUE(d && d->n == 0 && d->nr_notes == 1);
		if (d && d->nr_notes)
			T_EQ_STR(d->notes[0],
				 "binary /nonexistent/lib.so not found: no disassembly");
	}
	pv_disasm_free(d);
	/* no center: the function with the most self at addresses, work (12 against 4 and 1) */
	T_EQ_INT(pv_disasm_funcs(p, &q, NULL, NULL, &d, &err), 0);
	T_TRUE(d && d->n && d->insn[0].func == fw);
	pv_disasm_free(d);
	pv_query_release(&q);
	free(mark);
	pv_profile_free(p);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	T_EQ_INT(system(cmd), 0);
#endif
}

/*
 * File offsets (pprof's module-relative addresses) of a binary linked at a fixed address
 * (gcc -no-pie: work at 0x401xxx in nm, at that minus 0x400000 in the file, the text segment's
 * p_vaddr - p_offset as GNU ld lays it out): disassembled at nm's address, answered at the
 * model's offsets with their costs.
 */
T_TEST(disasm_file_offsets)
{
#if defined(__x86_64__)
	char dir[64], text[1024], cmd[256];
	uint64_t work = 0, size = 0;
	T_TRUE(build_prog(dir, sizeof(dir), "-no-pie", &work, &size));
	if (work < 0x400000 || size < 2)
		return;
	uint64_t off = work - 0x400000, last = off + size - 1;
	int len = snprintf(text, sizeof(text),
			   "events: Ir\npositions: instr line\nob=%s/prog\nfl=%s/prog.c\n"
			   "fn=work\n0x%llx 3 7\n0x%llx 6 5\n",
			   dir, dir, (unsigned long long)off, (unsigned long long)last);
	struct pv_profile *p = t_load_mem("offsets.callgrind", text, (size_t)len);
	struct pv_query q;
	pv_query_init(&q);
	struct pv_disasm *d = NULL;
	struct pv_error err;
	T_EQ_INT(p ? pv_disasm_funcs(p, &q, NULL, NULL, &d, &err) : -1, 0);
	T_TRUE(d && d->n >= 2 && d->nr_notes == 0);
	if (d && d->n >= 2) {
		T_EQ_U64(d->insn[0].addr, off);
		T_EQ_INT(d->insn[0].self, 7);
		T_EQ_U64(d->insn[d->n - 1].addr, last);
		T_EQ_INT(d->insn[d->n - 1].self, 5);
		T_EQ_STR(d->insn[d->n - 1].text, "ret");
	}
	pv_disasm_free(d);
	pv_query_release(&q);
	pv_profile_free(p);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	T_EQ_INT(system(cmd), 0);
#endif
}

/* positions: instr alone (no line): every cost line keeps its address, on a frame of line 0. */
T_TEST(callgrind_instr_only)
{
	static const char text[] =
	    "events: Ir\npositions: instr\nfl=a.c\nfn=f\n0x1165 4096\n+2 4096\n"
	    "-2 3\n+7 10\n";
	struct pv_profile *p = t_load_text("instr.callgrind", text, "callgrind");
	if (!p)
		return;
	uint64_t want[3] = {0x1165, 0x1167, 0x116c};
	int64_t cost[3] = {4099, 4096, 10}, got[3] = {0};
	for (uint32_t s = 0; s < p->samples.len; s++) {
		pv_frame_ix f = p->stacks.frame[p->samples.stack[s]];
		T_EQ_INT(pv_frame_line(p, f), 0);
		for (int k = 0; k < 3; k++)
			if (pv_frame_addr(p, f) == want[k])
				got[k] += pv_sample_weight(p, 0, s);
	}
	for (int k = 0; k < 3; k++)
		T_EQ_INT(got[k], cost[k]);
	pv_profile_free(p);
}

/* The top of a whole profile printed as text, -n limit (0: all), by total or self. */
static char *top_text_n(const struct pv_profile *p, uint32_t limit, bool by_self)
{
	struct pv_query q;
	pv_query_init(&q);
	q.view = PV_VIEW_TOP;
	q.limit = limit;
	if (by_self)
		q.sort = PV_SORT_SELF;
	struct pv_view *v = NULL;
	struct pv_error err;
	char *buf = NULL;
	size_t len = 0;
	if (pv_view_compute_printed(p, &q, &v, &err) == 0) {
		FILE *f = open_memstream(&buf, &len);
		if (f) {
			pv_print_view(f, v, &(struct pv_print_opts){.threads_label = "all"});
			fclose(f);
		}
	}
	pv_view_free(v);
	pv_query_release(&q);
	return buf;
}

/* What `profview top -n 0` prints. */
static char *top_text(const struct pv_profile *p)
{
	return top_text_n(p, 0, false);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Each function's key and exact costs ("source:name module: self total ..."), sorted. */
static char **func_cost_lines(const struct pv_profile *p)
{
	char **l = calloc(p->funcs.len + 1, sizeof(*l));
	for (uint32_t f = 0; f < p->funcs.len; f++) {
		char buf[4096];
		pv_source_ix s = pv_func_source(p, f);
		pv_module_ix mo = pv_func_module(p, f);
		int n = snprintf(buf, sizeof(buf),
				 "%s:%s %s:", s == PV_NONE ? "" : pv_str(p, p->sources.path[s]),
				 pv_str(p, p->funcs.name[f]),
				 mo == PV_NONE ? "" : pv_str(p, p->modules.name[mo]));
		for (uint32_t m = 0; m < p->metrics.len && n > 0 && (size_t)n < sizeof(buf); m++)
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %" PRId64 " %" PRId64,
				      p->func_costs.self[m][f], p->func_costs.total[m][f]);
		l[f] = strdup(buf);
	}
	qsort(l, p->funcs.len, sizeof(*l), str_cmp);
	return l;
}

static void free_lines(char **l, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

/*
 * An import without calling contexts (pv_import_opts' no_contexts, as `profview top` asks):
 * no samples, the exact costs still callgrind_annotate's, and the same printed top.
 */
T_TEST(callgrind_no_contexts_same_top)
{
	static const char *const files[] = {"gzip.callgrind", "recursion.callgrind",
					    "gzip-parts.callgrind", "cpython.callgrind.gz"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[512], ann[600];
		snprintf(path, sizeof(path), "%s%s", t_data("callgrind/"), files[i]);
		struct pv_import_opts o = {.format = "callgrind", .no_contexts = true};
		struct pv_profile *lazy = NULL, *full = t_load_as(path, "callgrind");
		struct pv_error err;
		T_EQ_INT(pv_import_open(path, &o, &lazy, &err, NULL), 0);
		if (!lazy || !full) {
			pv_profile_free(lazy);
			pv_profile_free(full);
			continue;
		}
		T_EQ_INT(lazy->samples.len, 0);
		T_TRUE(full->samples.len > 0);
		/* the graph's nodes; its edges only in a file of several parts (one part's
		 * inclusive costs come from the importer's own graph) */
		bool parts = strstr(files[i], "parts") != NULL;
		T_EQ_INT(lazy->callgraph.nr_nodes, full->callgraph.nr_nodes);
		T_TRUE(full->callgraph.nr_edges > 400);
		T_EQ_INT(lazy->callgraph.nr_edges, parts ? full->callgraph.nr_edges : 0);
		/* the exact costs: callgrind_annotate's (the full profile's graph says which
		 * functions are in a recursion), and the lazy profile's the same */
		snprintf(ann, sizeof(ann), "%.*s.annotate-inclusive",
			 (int)(strlen(files[i]) - (strstr(files[i], ".gz") ? 3 : 0)), files[i]);
		char apath[700];
		snprintf(apath, sizeof(apath), "%s%s", t_data("callgrind/"), ann);
		if (!parts) /* its annotate file is of one part */
			T_TRUE(check_annotate(full, apath, 1) > 300);
		T_EQ_INT(lazy->funcs.len, full->funcs.len);
		char **cl = func_cost_lines(lazy), **cf = func_cost_lines(full);
		uint32_t differ = 0;
		for (uint32_t f = 0; f < full->funcs.len && lazy->funcs.len == full->funcs.len; f++)
			differ += strcmp(cl[f], cf[f]) != 0;
		T_EQ_INT(differ, 0);
		free_lines(cl, lazy->funcs.len);
		free_lines(cf, full->funcs.len);
		char *a = top_text(full), *b = top_text(lazy);
		T_TRUE(a && b && strlen(a) > 1000);
		T_EQ_STR(a ? a : "", b ? b : "");
		free(a);
		free(b);
		pv_profile_free(lazy);
		pv_profile_free(full);
	}
}

/*
 * A file of one part whose function without a name ("???") and its function named "???" are one
 * model function: read without contexts, it keeps its call edges (its inclusive costs come from
 * the model's graph), and its exact costs are those read with them. By hand: ??? spends 10 + 5
 * and calls b (3) and itself (5): total 18 (the call to itself not counted again); b 3.
 */
T_TEST(callgrind_no_contexts_shared_function)
{
	static const char text[] = "events: Ir\nfl=a.c\nfn=???\n1 10\ncfn=\ncalls=1 1\n1 5\n"
				   "fn=\n1 5\ncfn=b\ncalls=2 1\n1 3\nfn=b\n1 3\n";
	char path[] = "/tmp/pv-cg-shared-XXXXXX";
	int fd = mkstemp(path);
	T_TRUE(fd >= 0);
	if (fd < 0)
		return;
	T_TRUE(write(fd, text, sizeof(text) - 1) == (ssize_t)(sizeof(text) - 1));
	close(fd);
	struct pv_import_opts o = {.format = "callgrind", .no_contexts = true};
	struct pv_profile *lazy = NULL, *full = t_load_as(path, "callgrind");
	struct pv_error err;
	T_EQ_INT(pv_import_open(path, &o, &lazy, &err, NULL), 0);
	unlink(path);
	T_TRUE(lazy && full);
	if (lazy && full) {
		T_EQ_INT(lazy->funcs.len, 2);
		T_EQ_INT(lazy->callgraph.nr_edges, 2);
		T_EQ_INT(lazy->callgraph.nr_edges, full->callgraph.nr_edges);
		pv_func_ix q = t_find_func(lazy, "???"), b = t_find_func(lazy, "b");
		T_TRUE(q != PV_NONE && b != PV_NONE);
		if (q != PV_NONE && b != PV_NONE) {
			T_EQ_INT(lazy->func_costs.self[0][q], 15);
			T_EQ_INT(lazy->func_costs.total[0][q], 18);
			T_EQ_INT(lazy->func_costs.total[0][b], 3);
		}
		char *x = top_text(full), *y = top_text(lazy);
		T_EQ_STR(x ? x : "", y ? y : "");
		free(x);
		free(y);
	}
	pv_profile_free(lazy);
	pv_profile_free(full);
}

/*
 * A printed top sorts only the rows it prints (view/flat.c sort_printed): its rows are the first
 * of the whole list's, in the same order, ties of the N-th key included.
 */
T_TEST(callgrind_printed_top_is_prefix)
{
	struct pv_profile *p = t_load_as(t_data("callgrind/cpython.callgrind.gz"), "callgrind");
	T_TRUE(p != NULL);
	if (!p)
		return;
	static const uint32_t ns[] = {1, 3, 20, 100, 1000};
	for (int self = 0; self < 2; self++) {
		char *all = top_text_n(p, 0, self);
		T_TRUE(all && strlen(all) > 10000);
		for (size_t i = 0; all && i < sizeof(ns) / sizeof(ns[0]); i++) {
			char *part = top_text_n(p, ns[i], self);
			T_TRUE(part != NULL);
			const char *more = part ? strstr(part, "# ") : NULL;
			/* the header, then the rows, then "# N more rows not shown" */
			const char *tail = part ? strstr(part, "\n# ") : NULL;
			T_TRUE(more && tail);
			if (tail) {
				size_t n = (size_t)(tail - part) + 1;
				T_TRUE(strncmp(all, part, n) == 0);
				T_TRUE(strstr(tail, "more rows not shown") != NULL);
			}
			free(part);
		}
		free(all);
	}
	pv_profile_free(p);
}

/*
 * Exports (pv/export.h): every corpus file that opens goes through each format that can carry
 * its data and comes back with the same threads, the same total and the same self and total
 * of every function name (exact: every metric of the corpus is an integer, ns kept exact);
 * collapsed exports equal stackcollapse-perf.pl's own outputs in the corpus; a query's center,
 * range and filters select what a view of it shows.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pv/export.h"
#include "pv/import.h"
#include "pv/view.h"
#include "t.h"

/* ---- per-name costs, computed here from the samples (independent of the view engine) ---- */

struct name_cost {
	char *name;
	int64_t self, total;
};

struct costs {
	struct name_cost *v;
	size_t len, cap;
	int64_t sum; /* samples with a stack */
	uint32_t threads;
};

/*
 * How a name reads back from each format: "" is [unknown]; folded stacks make ';' a ':', and
 * a trailing " [x]" is read back as a module (the exporter lists such names as lossy).
 */
static char *norm(const char *s, bool folded)
{
	char *n = strdup(*s ? s : "[unknown]");
	for (char *c = n; folded && *c; c++)
		if (*c == ';' || *c == '\n' || *c == '\r')
			*c = *c == ';' ? ':' : ' ';
	size_t len = strlen(n);
	char *open = folded && len > 2 && n[len - 1] == ']' ? strrchr(n, '[') : NULL;
	if (open && open > n && open[-1] == ' ') {
		while (open > n && open[-1] == ' ')
			open--;
		*open = 0;
	}
	return n;
}

static int cmp_cost(const void *a, const void *b)
{
	return strcmp(((const struct name_cost *)a)->name, ((const struct name_cost *)b)->name);
}

static int cmp_cost_value(const void *a, const void *b)
{
	const struct name_cost *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	if (x->self != y->self)
		return x->self < y->self ? -1 : 1;
	return (x->total > y->total) - (x->total < y->total);
}

/*
 * Self and total per name: per string index (names are interned), then by normalized text.
 * alone: a sample without a stack counts as its thread's name alone (folded stacks without a
 * thread frame write it so). per_func: per function instead, each with its name (the same name
 * several times when functions share it), sorted by name and values.
 */
static void costs_of(const struct pv_profile *p, pv_metric_ix m, bool folded, bool alone,
		     bool per_func, struct costs *c)
{
	memset(c, 0, sizeof(*c));
	c->threads = p->threads.len;
	uint32_t ns = p->strings.len, nf = per_func ? p->funcs.len : 0, nk = nf + ns;
	int64_t *self = calloc(nk, sizeof(*self)), *total = calloc(nk, sizeof(*total));
	uint32_t *stamp = calloc(nk, sizeof(*stamp));
	int64_t unnamed = 0;
	for (pv_thread_ix t = 0; t < p->threads.len; t++)
		for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t]; s++) {
			int64_t w = pv_sample_weight(p, m, s);
			if (p->samples.stack[s] != PV_NONE || w < 0)
				continue;
			c->sum += w;
			uint32_t n = p->threads.name[t];
			if (alone && !*pv_str(p, n)) {
				unnamed += w; /* written "thread" */
			} else if (alone) {
				self[nf + n] += w;
				total[nf + n] += w;
			}
		}
	for (uint32_t s = 0; s < p->samples.len; s++) {
		pv_stack_ix st = p->samples.stack[s];
		int64_t w = pv_sample_weight(p, m, s);
		if (st == PV_NONE || w < 0)
			continue;
		c->sum += w;
		for (pv_stack_ix x = st; x != PV_NONE; x = p->stacks.prefix[x]) {
			pv_func_ix f = p->frames.func[p->stacks.frame[x]];
			uint32_t n = per_func ? f : p->funcs.name[f];
			if (x == st)
				self[n] += w;
			if (stamp[n] != s + 1) {
				stamp[n] = s + 1;
				total[n] += w;
			}
		}
	}
	for (uint32_t n = 0; n < nk; n++) {
		if (!self[n] && !total[n])
			continue;
		if (c->len == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 64;
			c->v = realloc(c->v, c->cap * sizeof(*c->v));
		}
		const char *name = n < nf ? pv_str(p, p->funcs.name[n]) : pv_str(p, n - nf);
		c->v[c->len++] = (struct name_cost){norm(name, folded), self[n], total[n]};
	}
	if (unnamed) {
		if (c->len == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 64;
			c->v = realloc(c->v, c->cap * sizeof(*c->v));
		}
		c->v[c->len++] = (struct name_cost){strdup("thread"), unnamed, unnamed};
	}
	if (c->len)
		qsort(c->v, c->len, sizeof(*c->v), per_func ? cmp_cost_value : cmp_cost);
	/* names that read back alike are one (their totals then add up: rare, and exact only
	 * when they never share a stack) */
	size_t w = 0;
	for (size_t i = 0; i < c->len; i++) {
		if (!per_func && w && strcmp(c->v[w - 1].name, c->v[i].name) == 0) {
			c->v[w - 1].self += c->v[i].self;
			c->v[w - 1].total += c->v[i].total;
			free(c->v[i].name);
		} else {
			c->v[w++] = c->v[i];
		}
	}
	c->len = w;
	free(self);
	free(total);
	free(stamp);
}

/* 0 when a and b (per function) hold the same names with the same values; else the first. */
static int funcs_differ(const char *what, const struct costs *a, const struct costs *b)
{
	for (size_t i = 0; i < a->len || i < b->len; i++) {
		const struct name_cost *x = i < a->len ? &a->v[i] : NULL;
		const struct name_cost *y = i < b->len ? &b->v[i] : NULL;
		if (!x || !y || cmp_cost_value(x, y) != 0) {
			t_fail(
			    __FILE__, __LINE__,
			    "%s: functions differ (no merge listed): %s %lld/%lld != %s %lld/%lld",
			    what, x ? x->name : "-", x ? (long long)x->self : -1LL,
			    x ? (long long)x->total : -1LL, y ? y->name : "-",
			    y ? (long long)y->self : -1LL, y ? (long long)y->total : -1LL);
			return 1;
		}
	}
	return 0;
}

static void costs_free(struct costs *c)
{
	for (size_t i = 0; i < c->len; i++)
		free(c->v[i].name);
	free(c->v);
}

/* 0 when b has the same names with the same costs as a; else prints the first difference. */
static int costs_differ(const char *what, const struct costs *a, const struct costs *b)
{
	if (a->sum != b->sum) {
		t_fail(__FILE__, __LINE__, "%s: total %lld != %lld", what, (long long)a->sum,
		       (long long)b->sum);
		return 1;
	}
	for (size_t i = 0; i < a->len; i++) {
		const struct name_cost *x = &a->v[i];
		struct name_cost *y =
		    b->len ? bsearch(x, b->v, b->len, sizeof(*b->v), cmp_cost) : NULL;
		if ((x->self || x->total) && (!y || y->self != x->self || y->total != x->total)) {
			t_fail(__FILE__, __LINE__, "%s: %s self/total %lld/%lld != %lld/%lld", what,
			       x->name, (long long)x->self, (long long)x->total,
			       y ? (long long)y->self : -1LL, y ? (long long)y->total : -1LL);
			return 1;
		}
	}
	return 0;
}

static char *export_mem(const struct pv_profile *p, enum pv_export_format f,
			const struct pv_export_opts *o, size_t *len, struct pv_lossy *lossy)
{
	char *buf = NULL;
	FILE *out = open_memstream(&buf, len);
	struct pv_error err;
	pv_error_clear(&err);
	int rc = pv_export_write(out, p, f, o, lossy, &err);
	fclose(out);
	if (rc) {
		t_fail(__FILE__, __LINE__, "export to %s: %s", pv_export_format_name(f), err.msg);
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- the corpus, file by file ---- */

static void walk(const char *dir, void (*fn)(const char *path), int depth)
{
	DIR *d = opendir(dir);
	if (!d || depth > 8) {
		if (d)
			closedir(d);
		return;
	}
	struct dirent **names;
	closedir(d);
	int n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		struct stat st;
		if (names[i]->d_name[0] != '.' && stat(path, &st) == 0) {
			if (S_ISDIR(st.st_mode))
				walk(path, fn, depth + 1);
			else if (!strstr(path, "README") && !strstr(path, ".string"))
				fn(path);
		}
		free(names[i]);
	}
	free(names);
}

static int files_done, pairs_done;

static void round_trip(const char *path)
{
	struct pv_profile *p = NULL, *sel = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	if (pv_import_file(path, NULL, &p, &err))
		return; /* not a profile profview reads (test_corpus.c checks which) */
	struct pv_query q;
	pv_query_init(&q);
	struct pv_lossy lossy = {0};
	int rc = pv_profile_select(p, &q, &sel, &lossy, &err);
	T_EQ_INT(rc, 0);
	pv_profile_free(p);
	if (rc)
		return;
	files_done++;
	pv_metric_ix m = sel->meta.default_metric;
	bool has_samples = false;
	for (uint32_t s = 0; s < sel->samples.len && !has_samples; s++)
		has_samples = pv_sample_weight(sel, sel->meta.default_metric, s) > 0;
	static const enum pv_export_format formats[] = {PV_EXPORT_FIREFOX, PV_EXPORT_SPEEDSCOPE,
							PV_EXPORT_PPROF, PV_EXPORT_COLLAPSED};
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		enum pv_export_format f = formats[i];
		bool folded = f == PV_EXPORT_COLLAPSED;
		if (folded && !has_samples)
			continue; /* a folded file holds stacks: it cannot be empty */
		bool negative = false;
		for (uint32_t s = 0; s < sel->samples.len && !negative; s++)
			negative = pv_sample_weight(sel, m, s) < 0;
		if (folded && negative)
			continue; /* folded counts are not negative (listed as lossy: below) */
		struct costs a, b;
		/* folded: auto writes one thread without a thread frame, several with one */
		costs_of(sel, m, folded, folded && sel->threads.len == 1, false, &a);
		size_t len;
		struct pv_export_opts o = {.metric = PV_NONE};
		struct pv_lossy fl = {0};
		char *buf = export_mem(sel, f, &o, &len, &fl);
		struct pv_profile *back = NULL;
		char what[4200];
		snprintf(what, sizeof(what), "%s -> %s", path, pv_export_format_name(f));
		if (buf && pv_import_memory(what, buf, len, NULL, &back, &err)) {
			t_fail(__FILE__, __LINE__, "%s: re-import: %s", what, err.msg);
		} else if (buf) {
			pairs_done++;
			costs_of(back, back->meta.default_metric, folded, false, false, &b);
			costs_differ(what, &a, &b);
			/* function by function, unless the export lists functions it merged */
			bool merged = false;
			for (uint32_t k = 0; k < fl.len; k++)
				merged |=
				    strstr(fl.item[k].msg, "functions of one name merged") != NULL;
			if (!merged) {
				struct costs fa, fb;
				costs_of(sel, m, folded, folded && sel->threads.len == 1, true,
					 &fa);
				costs_of(back, back->meta.default_metric, folded, false, true, &fb);
				funcs_differ(what, &fa, &fb);
				costs_free(&fa);
				costs_free(&fb);
			}
			/* threads: each format but pprof keeps them (pprof: labels, one thread) */
			if (f == PV_EXPORT_PPROF)
				T_EQ_INT(back->threads.len, 1);
			else if (f == PV_EXPORT_COLLAPSED && sel->threads.len > 1) {
				/* folded: one thread per distinct comm-PID/TID that has stacks */
				uint32_t with = 0;
				char(*seen)[300] = calloc(sel->threads.len, sizeof(*seen));
				for (uint32_t t = 0; t < sel->threads.len; t++) {
					bool any = false;
					for (uint32_t s = sel->threads.sample_begin[t];
					     s < sel->threads.sample_end[t] && !any; s++)
						any = pv_sample_weight(sel, m, s) > 0;
					char key[300];
					/* as the exporter writes it: no pid 0, no tid the index */
					int64_t pid = sel->threads.pid[t],
						tid = sel->threads.tid[t];
					snprintf(key, sizeof(key), "%s-%lld/%lld",
						 pv_str(sel, sel->threads.name[t]),
						 pid == PV_ID_NONE ? 0LL : (long long)pid,
						 tid == PV_ID_NONE ? (long long)t : (long long)tid);
					bool dup = false;
					for (uint32_t k = 0; k < with && !dup; k++)
						dup = strcmp(seen[k], key) == 0;
					if (any && !dup)
						memcpy(seen[with++], key, sizeof(key));
				}
				free(seen);
				if (back->threads.len != with)
					t_fail(__FILE__, __LINE__, "%s: threads %u != %u", what,
					       back->threads.len, with);
			} else if (f != PV_EXPORT_COLLAPSED) {
				if (back->threads.len != sel->threads.len)
					t_fail(__FILE__, __LINE__, "%s: threads %u != %u", what,
					       back->threads.len, sel->threads.len);
			}
			/* labels: pprof keeps them (one thread: no thread labels added) */
			if (f == PV_EXPORT_PPROF && sel->threads.len == 1 &&
			    back->labels.len != sel->labels.len)
				t_fail(__FILE__, __LINE__, "%s: labels %u != %u", what,
				       back->labels.len, sel->labels.len);
			if (f == PV_EXPORT_FIREFOX && back->markers.len != sel->markers.len)
				t_fail(__FILE__, __LINE__, "%s: markers %u != %u", what,
				       back->markers.len, sel->markers.len);
			costs_free(&b);
		}
		costs_free(&a);
		pv_profile_free(back);
		free(buf);
	}
	pv_profile_free(sel);
}

T_TEST(export_round_trip_corpus)
{
	walk(t_corpus(""), round_trip, 0);
	/* most of the corpus opens: every such file went through every format that holds it */
	T_TRUE(files_done >= 80);
	T_TRUE(pairs_done >= 4 * files_done - 10);
}

/* ---- queries, folded text ---- */

/* The folded text of file under a query given as a URL query string, with options o. */
static char *folded(const char *file, const char *url, const struct pv_export_opts *o,
		    struct pv_lossy *lossy)
{
	struct pv_profile *p = NULL, *sel = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_query q;
	char *text = NULL;
	size_t len;
	if (pv_import_file(t_corpus(file), NULL, &p, &err) || pv_query_from_url(&q, url, &err) ||
	    pv_profile_select(p, &q, &sel, lossy, &err)) {
		t_fail(__FILE__, __LINE__, "%s ?%s: %s", file, url, err.msg);
	} else {
		text = export_mem(sel, PV_EXPORT_COLLAPSED, o, &len, lossy);
		pv_query_release(&q);
	}
	pv_profile_free(sel);
	pv_profile_free(p);
	return text;
}

T_TEST(export_collapsed_equals_stackcollapse)
{
	/*
	 * stackcollapse-perf.pl's outputs in the corpus, from the perf script files beside them
	 * (--all: the _[k] _[j] suffixes; --tid: comm-PID/TID first). Its version then left out
	 * each file's last sample (the file ends without a blank line): the range ends before it.
	 */
	struct pv_lossy lossy = {0};
	struct pv_export_opts all = {
	    .metric = PV_NONE, .collapsed_threads = PV_COLLAPSED_COMM, .tidy = true};
	char *got =
	    folded("flamegraph/test/perf-java-stacks-01.txt", "range=0:206.002", &all, &lossy);
	char *want = t_read_file(
	    t_corpus("flamegraph/test/results/perf-java-stacks-01-collapsed-all.txt"), NULL);
	T_TRUE(got && want && strcmp(got, want) == 0);
	free(got);
	free(want);
	struct pv_export_opts tid = {
	    .metric = PV_NONE, .collapsed_threads = PV_COLLAPSED_TID, .tidy = true, .plain = true};
	got = folded("flamegraph/test/perf-iperf-stacks-pidtid-01.txt", "range=0:505.05", &tid,
		     &lossy);
	want = t_read_file(
	    t_corpus("flamegraph/test/results/perf-iperf-stacks-pidtid-01-collapsed-tid.txt"),
	    NULL);
	T_TRUE(got && want && strcmp(got, want) == 0);
	free(got);
	free(want);
	/* what the tidying changed is listed */
	bool listed = false;
	for (uint32_t i = 0; i < lossy.len; i++)
		listed |=
		    strstr(lossy.item[i].msg, "names tidied") != NULL && lossy.item[i].count > 0;
	T_TRUE(listed);
}

T_TEST(export_query_center_filters)
{
	/* simple.txt: a;b;c 1, a;b;c 1, a;b;d 4, a;b;c 3, a;b 5 */
	struct pv_lossy lossy = {0};
	struct pv_export_opts o = {.metric = PV_NONE};
	const char *file = "speedscope/stackcollapse/simple.txt";
	char *got = folded(file, "center=b", &o, &lossy);
	T_EQ_STR(got, "b 5\nb;c 5\nb;d 4\n"); /* the center's subtree */
	free(got);
	got = folded(file, "filter=merge:b", &o, &lossy);
	T_EQ_STR(got, "a 5\na;c 5\na;d 4\n");
	free(got);
	got = folded(file, "filter=drop:d&center=a", &o, &lossy);
	T_EQ_STR(got, "a;b 5\na;b;c 5\n");
	free(got);
	got = folded(file, "filter=focus-self:c", &o, &lossy);
	T_EQ_STR(got, "c 5\n"); /* c's own samples, c alone (the Firefox Profiler's focus-self) */
	free(got);
}

T_TEST(export_lossy_listed)
{
	/* argument-values.json: 32 samples, 12 markers; speedscope holds neither markers nor
	 * times */
	struct pv_profile *p = NULL, *sel = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_query q;
	pv_query_init(&q);
	struct pv_lossy lossy = {0};
	T_EQ_INT(pv_import_file(t_corpus("firefox/argument-values.json"), NULL, &p, &err), 0);
	T_EQ_INT(pv_profile_select(p, &q, &sel, &lossy, &err), 0);
	size_t len;
	char *buf = export_mem(sel, PV_EXPORT_SPEEDSCOPE, NULL, &len, &lossy);
	uint64_t markers = 0, times = 0;
	for (uint32_t i = 0; i < lossy.len; i++) {
		if (strstr(lossy.item[i].msg, "markers (speedscope"))
			markers = lossy.item[i].count;
		if (strstr(lossy.item[i].msg, "sample times (speedscope"))
			times = lossy.item[i].count;
	}
	T_EQ_U64(markers, p->markers.len);
	T_EQ_U64(times, 32);
	T_TRUE(p->markers.len > 0);
	free(buf);
	pv_profile_free(sel);
	pv_profile_free(p);
	T_EQ_STR(pv_export_format_name(PV_EXPORT_PPROF), "pprof");
	enum pv_export_format f;
	T_EQ_INT(pv_export_format_parse("gif", &f), PV_EINVAL);
}

/* ---- exports never lose silently: the inputs of tests/data/export (README there) ---- */

/* The export of a data file (the whole profile) in format f; its text, length and lossy list. */
static char *export_data(const char *rel, enum pv_export_format f, const struct pv_export_opts *o,
			 size_t *len, struct pv_lossy *lossy)
{
	struct pv_profile *p = NULL, *sel = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_query q;
	pv_query_init(&q);
	char *text = NULL;
	if (pv_import_file(t_data(rel), NULL, &p, &err) ||
	    pv_profile_select(p, &q, &sel, lossy, &err))
		t_fail(__FILE__, __LINE__, "%s: %s", rel, err.msg);
	else
		text = export_mem(sel, f, o, len, lossy);
	pv_profile_free(sel);
	pv_profile_free(p);
	return text;
}

static struct pv_profile *reimport(const char *what, const char *buf, size_t len)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	if (!buf || pv_import_memory(what, buf, len, NULL, &p, &err)) {
		t_fail(__FILE__, __LINE__, "%s: re-import: %s", what, buf ? err.msg : "no export");
		return NULL;
	}
	return p;
}

/* The count of the lossy line that holds text, 0 when there is none. */
static uint64_t lossy_of(const struct pv_lossy *l, const char *text)
{
	for (uint32_t i = 0; i < l->len; i++)
		if (strstr(l->item[i].msg, text))
			return l->item[i].count;
	return 0;
}

/*
 * "self/total" of each function named name in p (default metric), as "S/T S/T ..." in
 * ascending order, into buf.
 */
static const char *func_costs(const struct pv_profile *p, const char *name, char *buf, size_t n)
{
	struct costs c;
	costs_of(p, p->meta.default_metric, false, false, true, &c);
	size_t at = 0;
	buf[0] = 0;
	for (size_t i = 0; i < c.len; i++)
		if (strcmp(c.v[i].name, name) == 0)
			at += (size_t)snprintf(buf + at, at < n ? n - at : 0, "%s%lld/%lld",
					       at ? " " : "", (long long)c.v[i].self,
					       (long long)c.v[i].total);
	costs_free(&c);
	return buf;
}

T_TEST(export_collapsed_names_read_back)
{
	/*
	 * names.speedscope.json (by hand): JavaScript private methods at the root and below,
	 * ';', spaces, a tab, a last name ending in a number, UTF-8, a name starting with "//"
	 * and one with "# ", a trailing space, a name ending like a kernel suffix, and a sample
	 * without a stack (weight 9) in the thread "main".
	 */
	struct pv_lossy lossy = {0};
	struct pv_export_opts o = {.metric = PV_NONE};
	size_t len = 0;
	char *got =
	    export_data("export/names.speedscope.json", PV_EXPORT_COLLAPSED, &o, &len, &lossy);
	T_EQ_STR(got, "# hash space 2\n"
		      "#load 5\n"
		      "// slashes;a:b 1\n"
		      "main 9\n"
		      "run;#cleanLogs 2\n"
		      "run;#load 3\n"
		      "run;Thread 2 6\n"
		      "run;foo_[k] 1\n"
		      "run;with space;tab\there 4\n"
		      "名前 ünïcødé;trailing space  7\n");
	/* what a reader takes otherwise is listed, each once */
	T_EQ_U64(lossy_of(&lossy, "names with ';'"), 1);
	T_EQ_U64(lossy_of(&lossy, "read back as a module or a kind"), 1);
	T_EQ_U64(lossy_of(&lossy, "samples without a stack"), 1);
	T_EQ_U64(lossy_of(&lossy, "flamegraph.pl and inferno read a second count"), 1);
	T_EQ_U64(lossy_of(&lossy, "inferno trims or skips"), 2);
	T_EQ_U64(lossy_of(&lossy, "functions of one name merged"), 0);
	/* profview reads every other name back, with its cost */
	struct pv_profile *back = reimport("names -> collapsed", got, len);
	char buf[256];
	if (back) {
		T_EQ_STR(func_costs(back, "#load", buf, sizeof(buf)), "8/8");
		T_EQ_STR(func_costs(back, "#cleanLogs", buf, sizeof(buf)), "2/2");
		T_EQ_STR(func_costs(back, "# hash space", buf, sizeof(buf)), "2/2");
		T_EQ_STR(func_costs(back, "// slashes", buf, sizeof(buf)), "0/1");
		T_EQ_STR(func_costs(back, "a:b", buf, sizeof(buf)), "1/1");
		T_EQ_STR(func_costs(back, "run", buf, sizeof(buf)), "0/16");
		T_EQ_STR(func_costs(back, "Thread 2", buf, sizeof(buf)), "6/6");
		T_EQ_STR(func_costs(back, "with space", buf, sizeof(buf)), "0/4");
		T_EQ_STR(func_costs(back, "tab\there", buf, sizeof(buf)), "4/4");
		T_EQ_STR(func_costs(back, "名前 ünïcødé", buf, sizeof(buf)), "0/7");
		T_EQ_STR(func_costs(back, "trailing space ", buf, sizeof(buf)), "7/7");
		T_EQ_STR(func_costs(back, "main", buf, sizeof(buf)), "9/9");
		T_EQ_STR(func_costs(back, "foo", buf, sizeof(buf)), "1/1"); /* in the kernel */
		int64_t sum = 0;
		for (uint32_t s = 0; s < back->samples.len; s++)
			sum += pv_sample_weight(back, 0, s);
		T_EQ_INT(sum, 40);
	}
	pv_profile_free(back);
	free(got);
}

T_TEST(export_collapsed_private_methods)
{
	/*
	 * private-methods.cpuprofile (node --cpu-prof of private-methods.js): the async private
	 * method #load resumes from the microtask queue, so most stacks start with it; before,
	 * those lines read back as comments (78.5 % of the time gone, "lossy: nothing").
	 * profview top: total 192.890 ms, #load 151.426 ms, #cleanLogs 10.554 ms.
	 */
	struct pv_lossy lossy = {0};
	struct pv_export_opts o = {.metric = PV_NONE};
	size_t len = 0;
	char *got =
	    export_data("export/private-methods.cpuprofile", PV_EXPORT_COLLAPSED, &o, &len, &lossy);
	T_TRUE(got && strncmp(got, "#load ", 6) == 0);
	struct pv_profile *back = reimport("private methods -> collapsed", got, len);
	char buf[256];
	if (back) {
		int64_t sum = 0;
		for (uint32_t s = 0; s < back->samples.len; s++)
			sum += pv_sample_weight(back, 0, s);
		T_EQ_INT(sum, 192890000);
		T_EQ_STR(func_costs(back, "#load", buf, sizeof(buf)), "151426000/151426000");
		T_EQ_STR(func_costs(back, "#cleanLogs", buf, sizeof(buf)), "10554000/10554000");
	}
	pv_profile_free(back);
	free(got);
}

T_TEST(export_collapsed_thread_frames)
{
	/*
	 * task-like-roots.txt: roots "worker-3" and "pool-1/2" after "# no thread frames"; the
	 * export writes that comment again (its first line starts "pool-1/2"), else the reader
	 * takes the first frames for threads.
	 */
	struct pv_lossy lossy = {0};
	struct pv_export_opts o = {.metric = PV_NONE};
	size_t len = 0;
	char *got =
	    export_data("export/task-like-roots.txt", PV_EXPORT_COLLAPSED, &o, &len, &lossy);
	T_EQ_STR(got, "# no thread frames\npool-1/2;x 2\nworker-3;idle 1\nworker-3;run 4\n");
	struct pv_profile *back = reimport("task-like roots -> collapsed", got, len);
	char buf[256];
	if (back) {
		T_EQ_INT(back->threads.len, 1);
		T_EQ_STR(func_costs(back, "worker-3", buf, sizeof(buf)), "0/5");
		T_EQ_STR(func_costs(back, "pool-1/2", buf, sizeof(buf)), "0/2");
	}
	pv_profile_free(back);
	/* without the comment the first line's "pool-1/2" names a thread (stackcollapse --tid) */
	const char *bare = "pool-1/2;x 2\nworker-3;idle 1\n";
	back = reimport("no comment", bare, strlen(bare));
	if (back) {
		T_EQ_INT(back->threads.len, 2);
		T_EQ_STR(func_costs(back, "worker-3", buf, sizeof(buf)), "0/1");
	}
	pv_profile_free(back);
	free(got);

	/*
	 * threads-stackless.txt: "app-10/11 2" is a sample of thread 10/11 without a stack, as
	 * stackcollapse-perf.pl --tid writes one; it reads back so and is written back so.
	 */
	lossy = (struct pv_lossy){0};
	got = export_data("export/threads-stackless.txt", PV_EXPORT_COLLAPSED, &o, &len, &lossy);
	char *want = t_read_file(t_data("export/threads-stackless.txt"), NULL);
	T_TRUE(got && want && strcmp(got, want) == 0);
	T_EQ_U64(lossy_of(&lossy, "samples without a stack"), 0);
	back = reimport("threads stackless -> collapsed", got, len);
	if (back) {
		T_EQ_INT(back->threads.len, 2);
		uint32_t nostack = 0;
		for (pv_thread_ix t = 0; t < back->threads.len; t++)
			for (uint32_t s = back->threads.sample_begin[t];
			     s < back->threads.sample_end[t]; s++)
				if (back->samples.stack[s] == PV_NONE) {
					nostack++;
					T_EQ_INT(back->threads.tid[t], 11);
					T_EQ_INT(pv_sample_weight(back, 0, s), 2);
				}
		T_EQ_INT(nostack, 1);
	}
	pv_profile_free(back);
	free(got);
	free(want);
}

T_TEST(export_same_names_kept_apart)
{
	/*
	 * same-names.perf.txt (by hand): __GI__dl_catch_exception of ld.so calls the one of libc
	 * (1 ms), ld.so's alone (1 ms), a sample without a stack (1 ms). profview top: ld.so's
	 * self 1 total 2 ms, libc's 1 and 1. Merged by name, the two made one of total 2 ms.
	 */
	static const enum pv_export_format fmts[] = {PV_EXPORT_COLLAPSED, PV_EXPORT_SPEEDSCOPE,
						     PV_EXPORT_PPROF};
	for (size_t i = 0; i < 3; i++) {
		struct pv_lossy lossy = {0};
		struct pv_export_opts o = {.metric = PV_NONE};
		size_t len = 0;
		char *got = export_data("export/same-names.perf.txt", fmts[i], &o, &len, &lossy);
		T_EQ_U64(lossy_of(&lossy, "functions of one name merged"), 0);
		if (fmts[i] == PV_EXPORT_COLLAPSED)
			T_EQ_STR(got,
				 "main;__GI__dl_catch_exception [ld-linux-x86-64.so.2] 1000000\n"
				 "main;__GI__dl_catch_exception [ld-linux-x86-64.so.2];"
				 "__GI__dl_catch_exception [libc.so.6] 1000000\n"
				 "prog 1000000\n");
		struct pv_profile *back = reimport(pv_export_format_name(fmts[i]), got, len);
		char buf[256];
		if (back) {
			T_EQ_STR(func_costs(back, "__GI__dl_catch_exception", buf, sizeof(buf)),
				 "1000000/1000000 1000000/2000000");
			int64_t sum = 0;
			for (uint32_t s = 0; s < back->samples.len; s++)
				sum += pv_sample_weight(back, back->meta.default_metric, s);
			T_EQ_INT(sum, 3000000);
		}
		pv_profile_free(back);
		free(got);
	}
}

T_TEST(export_pprof_columns_listed)
{
	/*
	 * chrome/node-minified.cpuprofile: five (anonymous) functions on line 1 of
	 * minified.min.js (columns 1, 105, 185, 274, 312). pprof's Function has no column: they
	 * are listed as merged; speedscope's frames carry it: five functions come back.
	 */
	struct pv_lossy lossy = {0};
	struct pv_export_opts o = {.metric = PV_NONE};
	size_t len = 0;
	char *got =
	    export_data("chrome/node-minified.cpuprofile", PV_EXPORT_PPROF, &o, &len, &lossy);
	T_EQ_U64(lossy_of(&lossy, "functions of one name merged"), 5);
	free(got);
	lossy = (struct pv_lossy){0};
	got =
	    export_data("chrome/node-minified.cpuprofile", PV_EXPORT_SPEEDSCOPE, &o, &len, &lossy);
	T_EQ_U64(lossy_of(&lossy, "functions of one name merged"), 0);
	struct pv_profile *back = reimport("minified -> speedscope", got, len);
	uint32_t n = 0;
	for (pv_func_ix f = 0; back && f < back->funcs.len; f++) {
		pv_source_ix src = pv_func_source(back, f);
		n += strcmp(pv_str(back, back->funcs.name[f]), "(anonymous)") == 0 &&
		     src != PV_NONE && strstr(pv_str(back, back->sources.path[src]), "minified");
	}
	T_EQ_INT(n, 5);
	pv_profile_free(back);
	free(got);
}

T_TEST(export_svg_units_boxes_labels)
{
	/*
	 * issue-328 (HPCToolkit): the metric "REALTIME (sec)" is a time, read in ns: the tooltip
	 * says "ms" (the CLI's unit and digits, pv_format_cost), not the metric's name; the
	 * subtitle names the metric. The boxes are in one group (a <title> in a <g> right under
	 * the root made Chromium's load quadratic) and carry their labels (no work per box when
	 * the page loads).
	 */
	struct pv_lossy lossy = {0};
	struct pv_export_opts o = {.metric = PV_NONE};
	size_t len = 0;
	char *svg = export_data("hpctoolkit/issue-328", PV_EXPORT_SVG, &o, &len, &lossy);
	T_CONTAINS(svg, "<text id=\"subtitle\" x=\"600\" y=\"44\">metric: REALTIME (sec) (ms), "
			"total 1534.048</text>");
	T_CONTAINS(svg, "<title>main (1534.048 ms, 100.00%)</title>");
	T_CONTAINS(svg, "<title>hipMemcpy [libamdhip64.so.5.4.50403] (615.754 ms, 40.14%)</title>");
	T_TRUE(svg && !strstr(svg, "REALTIME (sec),"));
	T_CONTAINS(svg, "<g id=\"frames\">\n<g class=\"f\"");
	T_CONTAINS(svg, "height=\"15\" fill=\"rgb(");
	/* main spans the width: its label whole; a box too narrow has none */
	T_TRUE(svg && strstr(svg, "\">main</text></g>"));
	free(svg);
	/*
	 * a count: the metric's name, as flamegraph.pl says "samples"; a label cut with "..".
	 * The sample without a stack is not drawn (lossy): the whole is 31.
	 */
	svg = export_data("export/names.speedscope.json", PV_EXPORT_SVG, &o, &len, &lossy);
	T_CONTAINS(svg, "<title>run (16 samples, 51.61%)</title>");
	T_CONTAINS(svg, "<title>名前 ünïcødé (7 samples, 22.58%)</title>");
	/* 7/31 of 1180 px = 266.45 px: 37 characters fit, the 11-character name whole */
	T_CONTAINS(svg, ">名前 ünïcødé</text>");
	/* "# hash space": 2/31 = 76.13 px, 10 characters fit: 8 and ".." */
	T_CONTAINS(svg, ">//..</text>"); /* 1/31 = 38.06 px: 4 characters: "//" and ".." */
	T_CONTAINS(svg, "># hash s..</text>");
	free(svg);
}

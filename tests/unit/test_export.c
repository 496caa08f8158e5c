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

/* Self and total per name: per string index (names are interned), then by normalized text. */
static void costs_of(const struct pv_profile *p, pv_metric_ix m, bool folded, struct costs *c)
{
	memset(c, 0, sizeof(*c));
	c->threads = p->threads.len;
	uint32_t ns = p->strings.len;
	int64_t *self = calloc(ns, sizeof(*self)), *total = calloc(ns, sizeof(*total));
	uint32_t *stamp = calloc(ns, sizeof(*stamp));
	for (uint32_t s = 0; s < p->samples.len; s++) {
		pv_stack_ix st = p->samples.stack[s];
		int64_t w = pv_sample_weight(p, m, s);
		if (st == PV_NONE || w < 0)
			continue;
		c->sum += w;
		for (pv_stack_ix x = st; x != PV_NONE; x = p->stacks.prefix[x]) {
			uint32_t n = p->funcs.name[p->frames.func[p->stacks.frame[x]]];
			if (x == st)
				self[n] += w;
			if (stamp[n] != s + 1) {
				stamp[n] = s + 1;
				total[n] += w;
			}
		}
	}
	for (uint32_t n = 0; n < ns; n++) {
		if (!self[n] && !total[n])
			continue;
		if (c->len == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 64;
			c->v = realloc(c->v, c->cap * sizeof(*c->v));
		}
		c->v[c->len++] = (struct name_cost){norm(pv_str(p, n), folded), self[n], total[n]};
	}
	if (c->len)
		qsort(c->v, c->len, sizeof(*c->v), cmp_cost);
	/* names that read back alike are one (their totals then add up: rare, and exact only
	 * when they never share a stack) */
	size_t w = 0;
	for (size_t i = 0; i < c->len; i++) {
		if (w && strcmp(c->v[w - 1].name, c->v[i].name) == 0) {
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
		has_samples = sel->samples.stack[s] != PV_NONE;
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
		costs_of(sel, m, folded, &a);
		size_t len;
		struct pv_export_opts o = {.metric = PV_NONE};
		char *buf = export_mem(sel, f, &o, &len, &lossy);
		struct pv_profile *back = NULL;
		char what[4200];
		snprintf(what, sizeof(what), "%s -> %s", path, pv_export_format_name(f));
		if (buf && pv_import_memory(what, buf, len, NULL, &back, &err)) {
			t_fail(__FILE__, __LINE__, "%s: re-import: %s", what, err.msg);
		} else if (buf) {
			pairs_done++;
			costs_of(back, back->meta.default_metric, folded, &b);
			costs_differ(what, &a, &b);
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
						any = sel->samples.stack[s] != PV_NONE &&
						      pv_sample_weight(sel, m, s) > 0;
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

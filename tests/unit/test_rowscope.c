/*
 * test_rowscope.c - every row names itself (doc/views.md, "Scopes as written"): the scope a row
 * carries selects exactly that row.
 *
 * The invariant, on every profile of tests/data (a file, or an HPCToolkit database's folder) and
 * every granularity the profile has (function, line, file, module, and loop where it has loops):
 * for a row of `top`, `tree --center SCOPE` at the same granularity has the row's total in every
 * metric that sums, and the rows of the row's own scope in that tree have its self (the center
 * row's self alone, unless the scope recurs below it). A row without a scope is only the samples
 * without a stack. Files with many rows are sampled: the heaviest, every row whose scope needs a
 * qualifier (NAME@FILE:LINE, MODULE!NAME, a loop's address, #N), and rows spread over the rest.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pv/import.h"
#include "pv/rows.h"
#include "pv/view.h"
#include "t.h"
#include "tp.h"

#define SPREAD	  24 /* rows of a list spread evenly, beside the first and the qualified */
#define HEAVIEST  8
#define QUALIFIED 48

static uint32_t fail_max(void)
{
	const char *e = getenv("ROWSCOPE_FAILS");
	return e ? (uint32_t)atoi(e) : 8;
}

struct stats {
	uint32_t files, lists, rows, checked, qualified, unnamed, failed;
};

static struct pv_view *compute(const struct pv_profile *p, enum pv_view_kind kind,
			       enum pv_granularity by, const char *center, struct pv_error *err)
{
	struct pv_query q;
	pv_query_init(&q);
	q.view = kind;
	q.by = by;
	if (center)
		pv_query_add_center(&q, center);
	for (uint32_t m = 0; m < p->metrics.len && m < PV_QUERY_MAX - 1; m++) {
		char ix[16];
		snprintf(ix, sizeof(ix), "%u", m);
		pv_query_add_metric(&q, ix);
	}
	struct pv_view *v = NULL;
	if (pv_view_compute(p, &q, &v, err))
		v = NULL;
	pv_query_release(&q);
	return v;
}

static bool qualified(const char *s)
{
	return strchr(s, '@') || strchr(s, '!') || strchr(s, '#') || strstr(s, ":0x");
}

static bool same_row(const struct pv_tree *t, uint32_t r, const struct pv_flat *f, uint32_t k)
{
	return t->kind[r] == f->kind[k] && t->id[r] == f->id[k] &&
	       (f->kind[k] != PV_ROW_LINE || t->line[r] == f->line[k]);
}

/* Row k of list v against the tree centered on its scope. */
static void check_row(const char *path, const struct pv_profile *p, const struct pv_view *v,
		      uint32_t k, const char *scope, struct stats *st)
{
	const struct pv_flat *f = v->flat;
	struct pv_error err;
	/* by line a loop's row holds its own lines' self, which the tree by loop keeps in it */
	enum pv_granularity by = f->kind[k] == PV_ROW_LOOP ? PV_BY_LOOP : v->q.by;
	struct pv_view *c = compute(p, PV_VIEW_TREE, by, scope, &err);
	st->checked++;
	if (!c) {
		if (st->failed++ < fail_max())
			t_fail(__FILE__, __LINE__, "%s --by %s: row %u scope '%s': %s", path,
			       pv_granularity_name(v->q.by), k, scope, err.msg);
		return;
	}
	const struct pv_tree *t = c->tree;
	for (uint32_t m = 0; m < v->nr_metrics; m++) {
		if (pv_view_metric_derived(v, m))
			continue;
		int64_t self = 0;
		for (uint32_t r = 0; r < t->len; r++)
			if (same_row(t, r, f, k) ||
			    (r == t->roots[0] && t->kind[r] == PV_ROW_CENTER))
				self += t->self[m][r];
		/* (the flat view puts a loop or line of another file than its function's in its
		 * function's file, the trees in its own: by file, the selves of a profile with
		 * loops differ) */
		bool self_differs =
		    self != f->self[m][k] && !(c->scoped && f->kind[k] == PV_ROW_FILE);
		if ((c->center[m] != f->total[m][k] || self_differs) && st->failed++ < fail_max())
			t_fail(__FILE__, __LINE__,
			       "%s --by %s: row %u '%s' scope '%s' metric %u: top %" PRId64
			       " / %" PRId64 ", centered %" PRId64 " / %" PRId64,
			       path, pv_granularity_name(v->q.by), k,
			       pv_view_row_name(v, f->kind[k], f->id[k], (char[512]){0}, 512,
						f->line[k]),
			       scope, m, f->total[m][k], f->self[m][k], c->center[m], self);
	}
	pv_view_free(c);
}

static void check_list(const char *path, const struct pv_profile *p, enum pv_granularity by,
		       struct stats *st)
{
	struct pv_error err;
	struct pv_view *v = compute(p, PV_VIEW_TOP, by, NULL, &err);
	if (!v)
		return; /* a granularity the profile does not have */
	struct pv_row_namer *nm = NULL;
	T_EQ_INT(pv_row_namer_new(v, &nm), 0);
	const struct pv_flat *f = v->flat;
	st->lists++;
	uint32_t step = f->len > SPREAD ? f->len / SPREAD : 1, nq = 0;
	for (uint32_t k = 0; nm && k < f->len; k++) {
		st->rows++;
		const char *scope = pv_row_scope(nm, NULL, k);
		if (!scope) {
			st->unnamed++;
			if (f->kind[k] != PV_ROW_NOSTACK && st->failed++ < fail_max())
				t_fail(__FILE__, __LINE__, "%s --by %s: row %u '%s' has no scope",
				       path, pv_granularity_name(by), k,
				       pv_view_row_name(v, f->kind[k], f->id[k], (char[512]){0},
							512, f->line[k]));
			continue;
		}
		bool q = qualified(scope);
		st->qualified += q;
		if (k < HEAVIEST || k % step == 0 || (q && nq++ < QUALIFIED)) {
			char *copy = strdup(scope);
			check_row(path, p, v, k, copy, st);
			free(copy);
		}
	}
	T_TRUE(nm && !pv_row_namer_oom(nm));
	pv_row_namer_free(nm);
	pv_view_free(v);
}

static void check_profile(const char *path, struct stats *st)
{
	struct pv_profile *p = NULL;
	struct pv_error err;
	if (pv_import_file(path, NULL, &p, &err))
		return; /* not a profile: a README, a tool's report, a source file */
	/* a made-up call graph whose calls cost more than the callee's whole: no stacks add up */
	if (strstr(path, "callgrind.subposition-compression.log")) {
		pv_profile_free(p);
		return;
	}
	st->files++;
	bool loops = false;
	for (uint32_t f = 0; f < p->frames.len && !loops; f++)
		loops = pv_frame_kind(p, f) == PV_FRAME_LOOP;
	for (enum pv_granularity by = PV_BY_FUNCTION; by <= PV_BY_LOOP; by++)
		if (by != PV_BY_LOOP || loops)
			check_list(path, p, by, st);
	pv_profile_free(p);
}

static bool is_dir(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void check_dir(const char *dir, struct stats *st)
{
	char probe[1024];
	/* an HPCToolkit database: one profile, whatever file of it is opened */
	snprintf(probe, sizeof(probe), "%s/meta.db", dir);
	bool db = access(probe, R_OK) == 0;
	snprintf(probe, sizeof(probe), "%s/experiment.xml", dir);
	if (db || access(probe, R_OK) == 0) {
		check_profile(dir, st);
		return;
	}
	DIR *d = opendir(dir);
	T_TRUE(d != NULL);
	if (!d)
		return;
	char **names = NULL;
	size_t n = 0;
	for (struct dirent *de; (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		size_t len = strlen(dir) + strlen(de->d_name) + 2;
		names[n] = malloc(len);
		snprintf(names[n++], len, "%s/%s", dir, de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		const char *s = strrchr(names[i], '/') + 1, *dot = strrchr(s, '.');
		if (is_dir(names[i]))
			check_dir(names[i], st);
		else if (!dot || (strcmp(dot, ".md") && strcmp(dot, ".py") && strcmp(dot, ".c") &&
				  strcmp(dot, ".h") && strcmp(dot, ".tsv") && strcmp(dot, ".html")))
			check_profile(names[i], st);
		free(names[i]);
	}
	free(names);
}

T_TEST(rowscope_every_top_row_centers_on_itself)
{
	struct stats st = {0};
	check_dir(t_data(""), &st);
	printf("# row scopes: %u profiles, %u lists, %u rows (%u qualified, %u without a scope), "
	       "%u centered\n",
	       st.files, st.lists, st.rows, st.qualified, st.unnamed, st.checked);
	T_EQ_INT(st.failed, 0);
	T_TRUE(st.files > 100);
}

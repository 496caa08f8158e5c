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
 *
 * Then a profile built by hand with the names that collide in real ones: [unknown] of two
 * modules (and of two modules of one name), two anonymous functions on one line of a script and
 * one of no script, one function name in two files whose paths end alike, two loops of a binary
 * without lines at one line, two loops told apart by nothing but their order, a recursion level
 * (its path:) and a marker's cause stack: each scope as written, and the old forms read as before.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/builder.h"
#include "pv/import.h"
#include "pv/marker.h"
#include "pv/rows.h"
#include "pv/view.h"
#include "t.h"
#include "tp.h"
#include "view/internal.h"

#define SPREAD	  12 /* rows of a list spread evenly, beside the first and the qualified */
#define HEAVIEST  5
#define QUALIFIED 24

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
		    self != f->self[m][k] && !(c->priv->scoped && f->kind[k] == PV_ROW_FILE);
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

/* Every granularity p has: function, line, file, module, and loop with loops. */
static void check_lists(const char *path, const struct pv_profile *p, struct stats *st)
{
	bool loops = false;
	for (uint32_t f = 0; f < p->frames.len && !loops; f++)
		loops = pv_frame_kind(p, f) == PV_FRAME_LOOP;
	for (enum pv_granularity by = PV_BY_FUNCTION; by <= PV_BY_LOOP; by++)
		if (by != PV_BY_LOOP || loops)
			check_list(path, p, by, st);
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
	check_lists(path, p, st);
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
	T_TRUE(st.files >= 181); /* a profile that stops importing is not skipped quietly */
}

/* ---- names that collide (issue 24's cases), built by hand ---- */

enum {
	F_MAIN,
	F_LIBC,	 /* [unknown] of libc.so.6 in /lib */
	F_LD,	 /* [unknown] of ld.so */
	F_LIBC2, /* [unknown] of another libc.so.6, in /other */
	F_ANON1, /* (anonymous) at min.js:1:10 */
	F_ANON2, /* (anonymous) at min.js:1:50 */
	F_ANON3, /* (anonymous) of no script, 2:12 */
	F_WORK,	 /* work of /src/a.c:10 (recursive) */
	F_WORK2, /* work of /lib/src/a.c:10 */
	F_LOOPY, /* two loops of a binary without lines: [libc.so.6]:0, at 0x100 and 0x200 */
	F_SPIN,	 /* two loops of no file, line or address (one inlined) */
	F_LIBZ,	 /* [unknown] of libz (no path) */
	F_LIBZ2, /* [unknown] of libz (/usr/lib/libz) */
	NF
};

static struct pv_profile *colliding(void)
{
	struct pv_builder b;
	T_EQ_INT(builder_init(&b), 0);
#define S(x) builder_cstr(&b, x)
	pv_module_ix libc = builder_module(&b, S("libc.so.6"), S("/lib/libc.so.6"), 0);
	pv_module_ix ld = builder_module(&b, S("ld.so"), S("/lib/ld.so"), 0);
	pv_module_ix libc2 = builder_module(&b, S("libc.so.6"), S("/other/libc.so.6"), 0);
	pv_module_ix libz = builder_module(&b, S("libz"), 0, 0);
	pv_module_ix libz2 = builder_module(&b, S("libz"), S("/usr/lib/libz"), 0);
	pv_source_ix js = builder_source(&b, S("https://x/min.js"));
	pv_source_ix a = builder_source(&b, S("/src/a.c")),
		     a2 = builder_source(&b, S("/lib/src/a.c"));
	pv_source_ix bin = builder_source(&b, S("[libc.so.6]"));
	static const struct {
		const char *name;
		uint32_t line, col;
	} fn[NF] = {{"main", 0, 0},	    {"[unknown]", 0, 0},    {"[unknown]", 0, 0},
		    {"[unknown]", 0, 0},    {"(anonymous)", 1, 10}, {"(anonymous)", 1, 50},
		    {"(anonymous)", 2, 12}, {"work", 10, 0},	    {"work", 10, 0},
		    {"loopy", 0, 0},	    {"spin", 0, 0},	    {"[unknown]", 0, 0},
		    {"[unknown]", 0, 0}};
	const pv_module_ix mod[NF] = {PV_NONE, libc,	ld,   libc2,   PV_NONE, PV_NONE, PV_NONE,
				      PV_NONE, PV_NONE, libc, PV_NONE, libz,	libz2};
	const pv_source_ix src[NF] = {PV_NONE, PV_NONE, PV_NONE, PV_NONE, js,	   js,	   PV_NONE,
				      a,       a2,	bin,	 PV_NONE, PV_NONE, PV_NONE};
	pv_func_ix f[NF];
	for (int i = 0; i < NF; i++)
		f[i] = builder_func_at(&b, S(fn[i].name), mod[i], src[i], fn[i].line, fn[i].col);
	builder_metric(&b, S("samples"), PV_UNIT_COUNT);
	pv_thread_ix t = builder_thread(&b, S("main"), 1, 1, 0);
	pv_stack_ix root = builder_stack(&b, PV_NONE, builder_func_frame(&b, f[F_MAIN]));
	/* main alone 1, each function below main i + 1 samples (at its line, if it has one) */
	int64_t k = 0;
	builder_sample(&b, t, root, k++, NULL);
	pv_stack_ix below[NF] = {root};
	for (int i = 1; i < NF; i++) {
		struct frame_key key = {.func = f[i],
					.line = fn[i].line ? fn[i].line + 1 : 0,
					.addr = PV_ADDR_NONE,
					.category = PV_NONE};
		below[i] = builder_stack(&b, root, builder_frame(&b, &key));
	}
	struct frame_key lk = {.func = f[F_LOOPY], .kind = PV_FRAME_LOOP, .category = PV_NONE};
	lk.addr = 0x100;
	pv_stack_ix loop1 = builder_stack(&b, below[F_LOOPY], builder_frame(&b, &lk));
	lk.addr = 0x200;
	pv_stack_ix loop2 = builder_stack(&b, below[F_LOOPY], builder_frame(&b, &lk));
	lk = (struct frame_key){
	    .func = f[F_SPIN], .kind = PV_FRAME_LOOP, .addr = PV_ADDR_NONE, .category = PV_NONE};
	pv_stack_ix spin1 = builder_stack(&b, below[F_SPIN], builder_frame(&b, &lk));
	lk.inline_depth = 1;
	pv_stack_ix spin2 = builder_stack(&b, below[F_SPIN], builder_frame(&b, &lk));
	for (int i = 1; i < NF; i++) {
		pv_stack_ix s = i == F_LOOPY ? loop1 : i == F_SPIN ? spin1 : below[i];
		for (int n = 0; n <= i; n++)
			builder_sample(&b, t, s, k++, NULL);
	}
	/* the other loops: 20 and 30 samples; a recursion work > work: 40 */
	for (int n = 0; n < 20; n++)
		builder_sample(&b, t, loop2, k++, NULL);
	for (int n = 0; n < 30; n++)
		builder_sample(&b, t, spin2, k++, NULL);
	pv_stack_ix rec = builder_stack(&b, below[F_WORK], builder_func_frame(&b, f[F_WORK]));
	for (int n = 0; n < 40; n++)
		builder_sample(&b, t, rec, k++, NULL);
	/* a marker caused at main > [unknown] of /lib/libc.so.6 */
	struct raw_marker mk = {.name = S("IPC"),
				.category = PV_NONE,
				.phase = PV_PHASE_INSTANT,
				.start_ns = 0,
				.end_ns = PV_TIME_NONE,
				.thread = t,
				.cause_stack = below[F_LIBC],
				.cause_time_ns = PV_TIME_NONE};
	builder_marker(&b, &mk);
#undef S
	struct pv_profile *p = NULL;
	T_EQ_INT(builder_finish(&b, &p), 0);
	builder_release(&b);
	return p;
}

static int64_t center_total(const struct pv_profile *p, const char *scope)
{
	struct pv_query q;
	pv_query_init(&q);
	pv_query_add_center(&q, scope);
	struct pv_view *v = NULL;
	struct pv_error err;
	int64_t t = pv_view_compute(p, &q, &v, &err) ? -1 : v->center[0];
	pv_view_free(v);
	pv_query_release(&q);
	return t;
}

T_TEST(rowscope_colliding_names)
{
	struct pv_profile *p = colliding();
	if (!p)
		return;
	/* each function's scope, and its total (i + 1 samples, work's recursion 40 more, the
	 * loops' functions their second loop's) */
	static const struct {
		const char *scope;
		int64_t total;
	} want[NF] = {
	    {"main", -1}, /* every sample */
	    {"/lib/libc.so.6![unknown]", 2},
	    {"ld.so![unknown]", 3},
	    {"/other/libc.so.6![unknown]", 4},
	    {"(anonymous)@https://x/min.js:1:10", 5},
	    {"(anonymous)@https://x/min.js:1:50", 6},
	    {"(anonymous)@:2:12", 7},
	    {"work@/src/a.c:10", 8 + 40},
	    {"work@/lib/src/a.c:10", 9},
	    {"loopy", 10 + 20},
	    {"spin", 11 + 30},
	    {"libz#1![unknown]", 12},
	    {"/usr/lib/libz![unknown]", 13},
	};
	struct pv_scope_names *sn = NULL;
	T_EQ_INT(pv_scope_names_new(p, &sn), 0);
	for (pv_func_ix f = 1; sn && f < NF; f++) {
		char buf[256];
		pv_func_scope(sn, f, buf, sizeof(buf));
		T_EQ_STR(buf, want[f].scope);
		if (center_total(p, buf) != want[f].total)
			t_fail(__FILE__, __LINE__, "%s: total %lld, want %lld", buf,
			       (long long)center_total(p, buf), (long long)want[f].total);
	}
	pv_scope_names_free(sn);
	/* the old forms read as before: every function of a name, of a module's name, of a file
	 * a path ends; the whole path of a file names that file, before the files it ends */
	static const struct {
		const char *scope;
		int64_t total;
	} forms[] = {
	    {"[unknown]", 2 + 3 + 4 + 12 + 13},
	    {"libc.so.6![unknown]", 2 + 4},
	    {"libz#2![unknown]", 13},
	    {"(anonymous)", 5 + 6 + 7},
	    {"(anonymous)@https://x/min.js:1", 5 + 6},
	    {"(anonymous)#3", 7},
	    {"work@a.c:10", 48 + 9},
	    {"work@src/a.c:10", 48 + 9},
	    {"work@/src/a.c:10", 48},
	    {"file:src/a.c", 48 + 9},
	    {"file:/src/a.c", 48},
	    {"file:ld.so!", 3},
	    {"file:libz#1!", 12},
	    {"module:libz#2", 13},
	    {"module:/other/libc.so.6", 4},
	    {"loop:[libc.so.6]:0", 10 + 20},
	    {"loop:[libc.so.6]:0:0x200", 20},
	    {"loop:loopy:0:0x100", 10},
	    {"loop:spin:0#1", 11},
	    {"loop:spin:0#2", 30},
	    {"work@/src/a.c:10:11", 48}, /* a line of it (its frames are at line + 1) */
	    {"line:/src/a.c:11", 48},
	};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		int64_t got = center_total(p, forms[i].scope);
		if (got != forms[i].total)
			t_fail(__FILE__, __LINE__, "%s: total %lld, want %lld", forms[i].scope,
			       (long long)got, (long long)forms[i].total);
	}
	/* what matches nothing is still an error: a line no frame of the function is at, a loop
	 * address or rank that is none's */
	static const char *const none[] = {"work@/src/a.c:10:12", "loop:[libc.so.6]:0:0x300",
					   "loop:spin:0#3",	  "module:libz#3",
					   "(anonymous)#4",	  "file:ld.so!/src/a.c"};
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		if (center_total(p, none[i]) != -1)
			t_fail(__FILE__, __LINE__, "%s: a center, expected an error", none[i]);
	/* a function's line that no frame of it is at says so */
	struct pv_query q0;
	pv_query_init(&q0);
	pv_query_add_center(&q0, "main:99");
	struct pv_view *v0 = NULL;
	struct pv_error err0;
	T_EQ_INT(pv_view_compute(p, &q0, &v0, &err0), PV_EINVAL);
	T_CONTAINS(err0.msg, "center 'main:99': no frame of 'main' is at line 99");
	pv_view_free(v0);
	pv_query_release(&q0);
	/* every row of top by each granularity names itself */
	struct stats st = {0};
	check_lists("colliding", p, &st);
	T_EQ_INT(st.failed, 0);
	T_EQ_INT(st.unnamed, 0);
	T_TRUE(st.qualified >= 20);
	/* the recursion: two rows of work, told apart by their path: scopes */
	struct pv_query q;
	pv_query_init(&q);
	struct pv_view *v = NULL;
	struct pv_error err;
	T_EQ_INT(pv_view_compute(p, &q, &v, &err), 0);
	struct pv_row_namer *nm = NULL;
	T_EQ_INT(pv_row_namer_new(v, &nm), 0);
	uint32_t seen = 0;
	for (uint32_t r = 0; v && nm && r < v->tree->len; r++) {
		if (v->tree->id[r] != F_WORK || v->tree->kind[r] != PV_ROW_FUNCTION)
			continue;
		const char *path = pv_row_path(nm, v->tree, r);
		T_EQ_STR(path, seen ? "path:main;work@/src/a.c:10;work@/src/a.c:10"
				    : "path:main;work@/src/a.c:10");
		T_EQ_INT(center_total(p, path), v->tree->total[0][r]);
		seen++;
	}
	T_EQ_INT(seen, 2);
	pv_row_namer_free(nm);
	pv_view_free(v);
	pv_query_release(&q);
	/* a marker's cause stack names its own [unknown] */
	struct pv_markers *ms = NULL;
	T_EQ_INT(pv_markers_derive(p, &ms, &err), 0);
	struct sbuf scope = SBUF_INIT;
	T_EQ_INT(ms ? pv_marker_cause_scope(ms, 0, &scope) : -1, 1);
	T_EQ_STR(sbuf_str(&scope), "path:main;/lib/libc.so.6![unknown]");
	T_EQ_INT(center_total(p, sbuf_str(&scope)), 2);
	sbuf_release(&scope);
	pv_markers_free(ms);
	pv_profile_free(p);
}

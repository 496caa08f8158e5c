/*
 * view.h - the views of a query (query.h) computed from a profile: centered trees, flat,
 * butterfly, list (the view kinds' table below).
 *
 * A view is a pure function of (profile, query); it borrows the profile, which must outlive
 * it. Rows of a tree are call nodes: a function (line, file, module, loop: the granularity) at
 * one place in a path from a root, merged across frames and stacks (the Firefox Profiler's
 * rule). Costs are int64 in the metric's unit.
 */
#ifndef PV_VIEW_H
#define PV_VIEW_H

#include "pv/profile.h"
#include "pv/query.h"

/* ---- views of a query (query.h): centered trees, flat, butterfly, list ---- */

/* What a row stands for. */
enum pv_row_kind {
	PV_ROW_FUNCTION = 0, /* id = function (or a collapsed module, see pv_view_row_name) */
	PV_ROW_LINE,	     /* id = function, line = the source line */
	PV_ROW_FILE,	     /* id = source, PV_NONE for functions without a file */
	PV_ROW_MODULE,	     /* id = module, PV_NONE for functions without a module */
	PV_ROW_CENTER,	     /* the center of a centered tree: one or several scopes */
	PV_ROW_NOSTACK,	     /* the samples without a stack (id 0): one row of an uncentered view,
			      * so the rows add up to the whole (doc/samples-and-inlines.md) */
	PV_ROW_LOOP,	     /* id = a loop frame (HPCToolkit, doc/hpctoolkit.md): "loop at F:L" */
};

/*
 * A tree of rows (top-down or bottom-up). Rows are numbered parents first; children of a row are
 * sorted by the first metric's total (descending), then by name. Costs are [metric][row].
 */
struct pv_tree {
	uint32_t len;
	uint8_t *kind; /* enum pv_row_kind */
	uint32_t *id, *line;
	uint32_t *parent; /* PV_NONE for a root */
	uint32_t *depth;
	int64_t **total, **self;
	uint32_t *child_first, *child_len, *children;
	uint32_t *roots;
	uint32_t nr_roots;
	uint8_t *inlined; /* 1: every frame of the row is an inlined frame (NULL: none is) */
	/* per row: 1 when its costs are estimated (a call-graph profile's rows away from the
	 * center: doc/callgraph.md); NULL when no row is */
	uint8_t *estimated;
	/*
	 * Roots that are not rows (pv_view_compute_printed only, else 0): leaf roots that come
	 * after every root row in order, past what the printers' bounds can show. tail_roots of
	 * them cost at least the query's --min-percent cut, their costs summed in tail_total and
	 * tail_self; tail_cut of them cost less.
	 */
	uint32_t tail_roots, tail_cut;
	int64_t tail_total[PV_QUERY_MAX], tail_self[PV_QUERY_MAX];
};

/*
 * A flat row: one scope, nested module > file > function > line by level (0..3); in a profile
 * with loops (HPCToolkit) function > loop > nested loop > line, a row in N loops of its function
 * at level 3 + N (below PV_FLAT_LEVELS: deeper loops are rows beside the deepest shown).
 */
#define PV_FLAT_LEVELS 16
struct pv_flat {
	uint32_t len;
	uint8_t *kind;
	uint32_t *id, *line;
	uint8_t *level; /* 0 module, 1 file, 2 function, 3 line or loop, 4... in loops */
	uint8_t *in_center;
	int64_t **total, **self;
	uint8_t *inlined; /* 1: every frame of the row's scope is inlined (NULL: none is) */
};

/*
 * A column's statistic across the selected threads (execution contexts): "--metric NAME:mean"
 * (doc/hpctoolkit.md). Sum is the column as usual; CfVar is StdDev / Mean in millionths.
 */
enum pv_stat {
	PV_STAT_SUM = 0,
	PV_STAT_MEAN,
	PV_STAT_STDDEV,
	PV_STAT_CFVAR,
	PV_STAT_MIN,
	PV_STAT_MAX,
};

struct pv_view {
	const struct pv_profile *p;
	struct pv_query q; /* a copy of the query it was computed for */
	uint32_t nr_metrics;
	pv_metric_ix metrics[PV_QUERY_MAX];
	uint8_t stat[PV_QUERY_MAX]; /* enum pv_stat of each column */
	pv_thread_ix *threads;	    /* the selected threads */
	uint32_t nr_threads;
	int64_t whole[PV_QUERY_MAX]; /* cost of the filtered profile, samples without a stack
				      * included (nostack) */
	int64_t
	    center[PV_QUERY_MAX]; /* cost of the samples that reach the center (= whole without) */
	int64_t nostack[PV_QUERY_MAX]; /* selected samples without a stack: in whole, shown as the
					* (no stack) row of an uncentered view; 0 with an include
					* filter (they hold no scope) */
	int64_t base[PV_QUERY_MAX]; /* what every percentage of the view is of: the center's total,
				     * or the whole (--percent whole, the flat view, no center) */
	int64_t lost[PV_QUERY_MAX]; /* samples whose every frame a transform removed */
	uint64_t nr_samples;	    /* selected samples */
	bool centered;
	char *center_label;	 /* "foo", "<multiple contexts>", a file or module name */
	char *note;		 /* how exact the numbers are, one line; NULL: nothing to say
				  * (call-graph profiles: doc/callgraph.md) */
	struct pv_tree *tree;	 /* tree: top-down; callers: bottom-up; butterfly: callees */
	struct pv_tree *callers; /* butterfly: the callers of the center */
	struct pv_flat *flat;	 /* flat and top */
	/* libpv's own state of the view (its derived columns, its collapsed modules' functions):
	 * opaque, defined in src/view/internal.h */
	struct pv_view_priv *priv;
};

/*
 * ---- the view kinds (src/view/kinds.c) ----
 * One row per enum pv_view_kind, in its order. The engine builds a view through its kind's row,
 * the printers (text, --json, the page's answers) write the outputs it lists, the CLI has one
 * command per row and /api/view takes its name (/api/profile lists the rows). Adding a view kind:
 * an enum value, a row, its builder in kinds.c, its pane in web/assets/views/, tests.
 */
enum pv_view_output {
	PV_OUT_TREE = 1u << 0,	  /* v->tree: the tree (a butterfly's: the center's callees) */
	PV_OUT_CALLERS = 1u << 1, /* v->callers: the center's callers (butterfly) */
	PV_OUT_FLAT = 1u << 2,	  /* v->flat */
};

/*
 * A kind's builder's context: an opaque handle on the engine's state once it has selected the
 * samples (threads, range, filters, markers) and resolved the center; the builder fills the
 * view's outputs (its row's outputs) from it through the engine's build stages (the top-down
 * and bottom-up trees, the flat rows: src/view/engine.h). Valid only while the builder runs.
 */
struct pv_view_build;
/* The view being built: its profile (v->p), its query (v->q), its totals; the outputs to fill. */
struct pv_view *pv_view_build_view(const struct pv_view_build *b);
/* The kind being built (the row whose builder runs). */
const struct pv_view_kind_row *pv_view_build_kind(const struct pv_view_build *b);

struct pv_view_kind_row {
	const char *name;    /* the CLI command, the URL's and JSON's "view" */
	const char *label;   /* its name for people: the page's tab ("Top-down") */
	const char *summary; /* one line for the CLI's help */
	bool needs_center;   /* an error without a center */
	bool list;	     /* flat rows form one ranked list (one row per scope), not levels */
	bool of_whole;	     /* percentages always of the whole profile */
	/* the order of its rows when the query names no sort (PV_SORT_SELF or PV_SORT_TOTAL):
	 * naming it is the same as naming none, and the notations write the default as it. The
	 * trees ignore the option (children by total); "self" is the name their default has. */
	enum pv_sort_key sort;
	unsigned outputs;		       /* enum pv_view_output */
	int (*build)(struct pv_view_build *b); /* fills the outputs (kinds.c): 0 or an error */
};

#define PV_NR_VIEW_KINDS 5
extern const struct pv_view_kind_row pv_view_kinds[PV_NR_VIEW_KINDS];
/* The row of kind k. */
const struct pv_view_kind_row *pv_view_kind(enum pv_view_kind k);
/* The order q's rows come in: its sort, or with none named its view kind's (never
 * PV_SORT_DEFAULT). */
enum pv_sort_key pv_query_sort(const struct pv_query *q);

/*
 * Computes the view the query asks for. Returns 0; PV_EINVAL with err for a query that does not
 * fit the profile (unknown metric, thread, a scope matching nothing, a bad regex); PV_ENOMEM.
 * The view borrows p. Cost: one pass over the selected samples, then a constant number of
 * passes over the distinct stacks (one per filter); bottom-up trees also walk each centered
 * stack's callers.
 */
int pv_view_compute(const struct pv_profile *p, const struct pv_query *q, struct pv_view **out,
		    struct pv_error *err);
/*
 * pv_view_compute for a view that pv_print_view prints once and nothing pages further (the
 * CLI): a top-down tree without a center makes rows of only as many of its leaf roots that are
 * alone on their stack as the printers' bounds can show (the first max_rows or -n in order);
 * the others are counted in the tree's tail (struct pv_tree), so what is printed is the same,
 * and 10 M such roots do not cost 10 M rows (doc/deep-stacks.md).
 */
int pv_view_compute_printed(const struct pv_profile *p, const struct pv_query *q,
			    struct pv_view **out, struct pv_error *err);
void pv_view_free(struct pv_view *v);

/*
 * pv_view_compute, and also which stacks and samples count in the view (either pointer may be
 * NULL; each mask is freed with pv_free_keep):
 *   stacks[stack] (p->stacks.len bytes): samples on that stack survive the query's stack filters
 *     (include, drop; a transform that removed every frame loses them) and, with a center,
 *     reach it;
 *   samples[sample] (p->samples.len bytes): the sample is selected (threads, range, tags,
 *     inside-markers) and its stack is kept; a sample without a stack counts (in the view's
 *     nostack) unless the query has a center or an include filter.
 * With a center, a kept stack or sample is 2 when the center is its leaf (it counts in the
 * center's self), else 1.
 * So the kept samples cost the view's center when centered, else its whole (plus nostack
 * without an include filter). Costs one more pass over the stacks per filter and one over the
 * samples.
 */
int pv_view_compute_keep(const struct pv_profile *p, const struct pv_query *q, struct pv_view **out,
			 uint8_t **stacks, uint8_t **samples, struct pv_error *err);
void pv_free_keep(uint8_t *keep);

/*
 * hpcviewer's hot path: from row `from` of t (PV_NONE: its first root, the center row of a
 * centered tree), the heaviest child while it holds at least `fraction` of its parent's total
 * (the first metric; hpcviewer's default 0.5), and on from it. Writes the rows, `from` first, to
 * rows (at most cap); returns how many.
 */
uint32_t pv_tree_hot_path(const struct pv_tree *t, uint32_t from, double fraction, uint32_t *rows,
			  uint32_t cap);
/*
 * The row a view opens on (the page's first selection): the Firefox Profiler's rule, from the
 * heaviest root (of t, a tree of v) that is neither idle nor the (no stack) row, the heaviest
 * child that is not idle (a function of the "Idle" category), at most PV_FIRST_DEPTH levels
 * below it; made significant: the walk stops before a child whose total (the first metric) is
 * below PV_FIRST_FLOOR of the view's base (the whole, or the center's total; the first row's
 * for a derived metric): a 0.03 % callee is never the row a view opens on, its caller is. Writes
 * the path, the first row first and the selected row last, to rows (at most cap, at least
 * PV_FIRST_DEPTH + 1 is enough) and its length to *n (0: t has no row to select). Returns 0 or
 * PV_ENOMEM.
 */
#define PV_FIRST_DEPTH 17   /* the Firefox Profiler's maxInterestingDepth */
#define PV_FIRST_FLOOR 0.01 /* of the view's base */
int pv_view_first_path(const struct pv_view *v, const struct pv_tree *t, uint32_t *rows,
		       uint32_t cap, uint32_t *n);
/* Cuts t down to one path of rows (as pv_tree_hot_path gives): its first row the only root,
 * each row's only child the next (tree hot-path printing). */
void pv_tree_keep_path(struct pv_tree *t, const uint32_t *rows, uint32_t n);

/* "sum", "mean", "stddev", "cfvar", "min", "max". */
const char *pv_stat_name(enum pv_stat s);
/* A column's name: its metric's, with ":mean" (...) for a statistic; its unit (count for cfvar). */
const char *pv_view_metric_name(const struct pv_view *v, uint32_t col, char *buf, size_t len);
enum pv_unit pv_view_metric_unit(const struct pv_view *v, uint32_t col);

/*
 * Derived metrics (--derive, a database's formulas: doc/hpctoolkit.md). A derived column
 * holds its values as integers scaled by a power of ten of its own, so its rows sort like any
 * column's; pv_view_value gives the number. A cell whose formula has no finite value (a division
 * by zero) is PV_VALUE_NONE: printed empty in text, null in JSON.
 */
#define PV_VALUE_NONE INT64_MIN
bool pv_view_metric_derived(const struct pv_view *v, uint32_t col);
/* The formula of a derived column as written, NULL for a metric's column. */
const char *pv_view_metric_formula(const struct pv_view *v, uint32_t col);
/* Cell x of column col as a number: a metric's cost as it is, a derived metric's value (NaN for
 * PV_VALUE_NONE). */
double pv_view_value(const struct pv_view *v, uint32_t col, int64_t x);
/* Cell x as text: a metric's integer cost; a derived value with 6 significant digits, empty for
 * none, or (json) with 14 and null for none. snprintf's contract. */
size_t pv_view_value_text(const struct pv_view *v, uint32_t col, int64_t x, bool json, char *buf,
			  size_t n);

/* The name of a row: a function, "func:line", a file, a module, "loop at file.c:12", the center
 * label. It is the row's identity in `path:` scopes, a diff's matching and the name search. */
const char *pv_view_row_name(const struct pv_view *v, enum pv_row_kind kind, uint32_t id, char *buf,
			     size_t len, uint32_t line);
/*
 * The name a row is shown by (the CLI's text and JSON, the page, the TUI): hpcviewer's for a
 * line and a loop whose file is known — "pair_lj_cut_omp.cpp: 118", "loop at
 * pair_lj_cut_omp.cpp: 113" (the file's base name), their function said apart
 * (pv_view_row_function) — else pv_view_row_name's.
 */
const char *pv_view_row_label(const struct pv_view *v, enum pv_row_kind kind, uint32_t id,
			      char *buf, size_t len, uint32_t line);
/* The function a line or a loop row is in (PV_NONE for another kind), and a function's name as
 * the view names it (a collapsed module's pseudo-function too). */
pv_func_ix pv_view_row_function(const struct pv_view *v, enum pv_row_kind kind, uint32_t id);
const char *pv_view_row_function_name(const struct pv_view *v, pv_func_ix f);
/*
 * The name of a row's kind in JSON (CLI --json, the web API): "function", "line", "file",
 * "module", "center", "nostack", "loop"; "inline" for a function row whose frames are all
 * inlined (the row's inlined flag).
 */
const char *pv_row_kind_name(enum pv_row_kind kind, bool inlined);
/* Module, file and line of a row when known (PV_NONE / 0 otherwise). */
void pv_view_row_place(const struct pv_view *v, enum pv_row_kind kind, uint32_t id,
		       pv_module_ix *module, pv_source_ix *source, uint32_t *line);
/* The column of a function row's line (JavaScript), 0 when unknown or not a function row. */
uint32_t pv_view_row_column(const struct pv_view *v, enum pv_row_kind kind, uint32_t id);

/*
 * The threads that names[0..n) select: every thread any name marks, once each, in index order;
 * every thread when n is 0. A name is read as pv_thread_find reads it (a name, a tid, #INDEX),
 * or re:REGEX, every thread whose name matches (POSIX extended, as re: scopes, with their size
 * budget): `--thread 're:RANK (1|2) '`. The one rule of the views (and so of contexts, trace
 * and export), the marker commands and the page. *out is freed with free(). Returns 0;
 * PV_EINVAL with err when a name finds no thread or a regex is bad; PV_ENOMEM.
 */
int pv_thread_select(const struct pv_profile *p, const char *const *names, uint32_t n,
		     pv_thread_ix **out, uint32_t *nr, struct pv_error *err);

/* ---- scopes that name one thing alone (query.h's syntax, doc/views.md) ---- */

/*
 * What writing a scope that names one function alone takes: p's functions by name (built once,
 * O(functions log functions)), and on first need its lines and loops. Borrows p. Returns 0 or
 * PV_ENOMEM; free with pv_scope_names_free.
 */
struct pv_scope_names;
int pv_scope_names_new(const struct pv_profile *p, struct pv_scope_names **out);
void pv_scope_names_free(struct pv_scope_names *sn);
/*
 * Writes the scope that names function f and no other into buf (snprintf's contract; returns
 * the length it needs, 0 when memory ran out): NAME when no other function has the name, else
 * NAME@FILE:LINE[:COL] (NAME@FILE for a function of no line, :0 for no line or column where
 * that tells it apart), else MODULE!NAME[@FILE...], else one of these with #N (the Nth of the
 * functions it names, in the profile's order).
 */
size_t pv_func_scope(struct pv_scope_names *sn, pv_func_ix f, char *buf, size_t n);
/*
 * Marks (mark[f] = 1) the functions that a scope names one by one: NAME, NAME@FILE[:LINE[:COL]],
 * MODULE!..., ...#N and the last step of path:...; re:, file:, module:, line: and loop: scopes
 * mark none. Returns how many it marked; mark holds funcs.len bytes.
 */
uint32_t pv_scope_functions(const struct pv_profile *p, const char *scope, uint8_t *mark);

#endif

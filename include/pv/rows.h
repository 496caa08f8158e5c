/*
 * rows.h - naming the rows of a view across queries, and what the page shows of one row.
 *
 * Row keys (the Firefox Profiler's CallNodePath, as text): a tree row is named by its path from
 * a root, each step f<function>, l<function>:<line>, s<source> (s- none), m<module> (m- none),
 * c (the center row of a centered tree) or n (the samples without a stack), joined by '/':
 * "c/f12/f40". A flat row is named by its scopes by level (module/file/function/line); a row of
 * the list (top) by its one step. In a butterfly the callers' keys start with "up:" and the
 * callees' with "down:". Numbers are decimals without a leading zero, so a key that resolves
 * is also the key the library writes for that row, and keys stay valid across queries on one
 * profile (a center or a filter changes which rows exist, never what a key names).
 * Resolving a key walks from the roots, matching each step against the children of the row
 * before: O(children) per step.
 */
#ifndef PV_ROWS_H
#define PV_ROWS_H

#include <stdbool.h>
#include <stdint.h>

#include "pv/view.h"

/*
 * The bytes of keys (and path: scopes) one answer of the page writes, at most: a key names a
 * row's whole path from the root, so the rows of a chain deep in a tree would write text
 * quadratic in its depth (a 100,000-deep stack: gigabytes). PV_KEY_TEXT_ROW bytes a row the
 * answer may hold (the rows of the tree up to max-rows for view, children and subtree; the
 * nodes asked of flame; the rows asked of search), PV_KEY_TEXT_MIN whatever their number: linear
 * in the profile, and no ordinary answer cut. Past it a tree answer sends the rest of each open
 * list as one "more" row (as past max-rows), flame stops taking nodes, a search row's key is
 * null with "key_cut" (doc/api.md, doc/deep-stacks.md).
 */
#define PV_KEY_TEXT_ROW 256
#define PV_KEY_TEXT_MIN ((uint64_t)4 << 20)
static inline uint64_t pv_key_text_budget(uint64_t rows)
{
	uint64_t b = rows * PV_KEY_TEXT_ROW;
	return b > PV_KEY_TEXT_MIN ? b : PV_KEY_TEXT_MIN;
}
/* A row of a view found from a key. */
struct pv_row_ref {
	const struct pv_tree *tree; /* NULL: a row of v->flat */
	uint32_t row;		    /* PV_NONE: the roots of tree (a key with no step) */
	const char *prefix;	    /* "", "up:" or "down:" */
};

/* The row of v named by key; false when none is. */
bool pv_view_find(const struct pv_view *v, const char *key, struct pv_row_ref *ref);
/*
 * The tree of v that key's prefix names (the butterfly's callers for "up:", its callees for
 * "down:", else the view's tree) with the rest of the key after the prefix; NULL when the view
 * has no such tree (a flat view, a prefix on a view that is not a butterfly).
 */
const struct pv_tree *pv_view_key_tree(const struct pv_view *v, const char **key,
				       const char **prefix);
/* The view kind whose rows key names for the query q: the butterfly for up:/down: keys of a
 * centered query, else q's own. */
enum pv_view_kind pv_view_kind_of_key(const struct pv_query *q, const char *key);
/* A number of the keys' grammar at *s (decimal, no sign, no leading zero, below UINT32_MAX);
 * advances *s past it. */
bool pv_key_number(const char **s, uint32_t *out);

/*
 * The heaviest path of t: its first root (the center row of a centered tree), then each row's
 * first child (children are sorted by the first metric's total), at most n rows, ending before
 * a row without children. Returns how many rows it wrote to chain.
 */
uint32_t pv_tree_heaviest(const struct pv_tree *t, uint32_t n, uint32_t *chain);

/*
 * The cost of one row on each of the view's threads (hpcviewer's per-thread plot): the view's
 * query restricted to one thread at a time. A row of a plain top-down function tree whose call
 * path names it alone is one computation centered on that path (each sample's part summed per
 * thread); any other row is one view per thread, the row found again by its key.
 */
#define PV_THREAD_COSTS_MAX 256 /* threads listed, at most */

struct pv_thread_costs {
	uint32_t nr_threads; /* the first PV_THREAD_COSTS_MAX of the view's threads */
	bool truncated;	     /* the view has more */
	uint32_t nr_metrics;
	pv_thread_ix *thread;
	uint8_t *known;	       /* 0: the thread's query failed (no cost) */
	int64_t *total, *self; /* [thread * nr_metrics + metric]; PV_VALUE_NONE for a derived
				* metric's column (no formula per thread, as hpcviewer) */
};

/* q: the request's query (its threads are replaced per thread); key names ref in v. Returns 0
 * or PV_ENOMEM. */
int pv_thread_costs(const struct pv_view *v, const struct pv_query *q, const char *key,
		    const struct pv_row_ref *ref, struct pv_thread_costs **out);
void pv_thread_costs_free(struct pv_thread_costs *tc);

/*
 * Per-line costs of source file id (lines 1..nr_lines) from v, a list (top) at line
 * granularity: has[line] is 1 when some row of the file's functions is at that line, cost
 * [(line * nr_metrics + m) * 2] its total and [... + 1] its self. Returns 0 or PV_ENOMEM.
 */
struct pv_source_costs {
	uint32_t nr_lines, nr_metrics;
	uint8_t *has;	  /* [line], line 0 unused */
	pv_func_ix *func; /* [line]: the function of the line's first row, PV_NONE without */
	int64_t *cost;	  /* [(line * nr_metrics + m) * 2 + (0 total, 1 self)]; PV_VALUE_NONE for a
			   * derived metric's column (no line sums of a formula) */
};
int pv_source_costs(const struct pv_view *v, pv_source_ix id, uint32_t nr_lines,
		    struct pv_source_costs **out);
void pv_source_costs_free(struct pv_source_costs *sc);
/*
 * The instruction addresses of source file id's lines (1..nr_lines): the samples the query q
 * keeps (pv_view_compute_keep) whose leaf frame has an address and a line in one of the file's
 * functions, summed per (line, address) in the first metric of q's view that sums (the leaf as
 * recorded: a transform that removes it does not move its address). Per line: how many distinct
 * addresses, the lowest and highest, and the hottest (the most self cost; the lowest of equals)
 * with its self cost. *out is NULL when no frame of the profile has an address. Costs one more
 * view computation. Returns 0, PV_ENOMEM, or the query's error (err).
 */
struct pv_source_addrs {
	uint32_t nr_lines;
	uint32_t *n;		 /* [line]: distinct addresses, 0 for none (line 0 unused) */
	uint64_t *lo, *hi, *hot; /* [line] */
	int64_t *hot_self;	 /* [line] */
};
int pv_source_addrs(const struct pv_profile *p, const struct pv_query *q, pv_source_ix id,
		    uint32_t nr_lines, struct pv_source_addrs **out, struct pv_error *err);
void pv_source_addrs_free(struct pv_source_addrs *sa);
/*
 * The source files where v (a list at line granularity, as pv_source_costs takes) has a cost:
 * *ids (to free(), NULL when none) holds *n of them, heaviest first by the self cost of their
 * lines in the first metric that sums (a formula's does not), then by id. The source pane
 * opens on the first it can read. Returns 0 or PV_ENOMEM.
 */
int pv_source_ranking(const struct pv_view *v, pv_source_ix **ids, uint32_t *n);
/*
 * The definition lines of source id's functions that the query's centers name one by one (a
 * name, NAME@FILE:LINE[:COL], the last step of a path:), ascending and distinct; returns how
 * many (*lines to free(), NULL when none), or PV_ENOMEM.
 */
int pv_source_center_lines(const struct pv_profile *p, const struct pv_query *q, pv_source_ix id,
			   uint32_t **lines, uint32_t *n);

/*
 * ---- the text of one row, on demand (a front end that keeps no page of JSON rows: the TUI) ----
 * A namer names rows of one view: its key (above), its scope (query.h's syntax: what "center
 * on this row" and the filters take; the page's "scope") and the path: scope of a function row
 * (the page's "path"). t is the row's tree (v->tree or v->callers), NULL for a row of v->flat.
 * Each returns the text, valid until the next call on nm, or NULL when nothing names the row
 * (the center row has no scope, a row below a name holding ';' no path) or memory ran out
 * (pv_row_namer_oom). A key costs the row's depth, a path its depth, a scope O(1) after the
 * first (which marks the functions whose name is shared: one pass over the functions).
 */
struct pv_row_namer;
int pv_row_namer_new(const struct pv_view *v, struct pv_row_namer **out);
void pv_row_namer_free(struct pv_row_namer *nm);
bool pv_row_namer_oom(const struct pv_row_namer *nm);
const char *pv_row_key(struct pv_row_namer *nm, const struct pv_tree *t, uint32_t r);
const char *pv_row_scope(struct pv_row_namer *nm, const struct pv_tree *t, uint32_t r);
const char *pv_row_path(struct pv_row_namer *nm, const struct pv_tree *t, uint32_t r);

/*
 * Search by name: the next row after `from` (PV_NONE: from the start) in the pre-order of tree
 * t (NULL: the rows of v->flat in order) whose printed name (pv_view_row_name) holds text,
 * ASCII case ignored; backward: the previous one. The search wraps around; returns PV_NONE when
 * no row matches. One pass over the rows.
 */
uint32_t pv_view_find_name(const struct pv_view *v, const struct pv_tree *t, uint32_t from,
			   const char *text, bool backward);

/*
 * The page's whole-profile search: the functions text names that have a cost in the query,
 * heaviest first (the first metric's total, then function index), at most limit (0: all).
 * text is a scope when pv_find_is_scope says so (re:, file:, module:, loop:, line:, path:,
 * NAME@FILE:LINE: the functions the query's scope matching names; a path its last step's, a
 * loop the functions holding it), else a substring of the function's name, ASCII case
 * ignored. top is the query's list (a top view at function granularity: each hit's totals
 * are its row there, recursion counted once); tree the query's top-down tree (NULL: none),
 * where each hit's heaviest row is found (one pass over its rows). PV_EINVAL with err for a
 * scope that does not parse or names nothing; PV_ENOMEM.
 */
struct pv_find {
	uint32_t len;	    /* hits listed */
	uint32_t matches;   /* hits in all (len is at most limit) */
	pv_func_ix *func;   /* per hit */
	uint32_t *flat_row; /* its row in top->flat */
	uint32_t *tree_row; /* its heaviest row in tree->tree, PV_NONE when it has none */
};
bool pv_find_is_scope(const char *text);
int pv_find_functions(const struct pv_view *top, const struct pv_view *tree, const char *text,
		      uint32_t limit, struct pv_find **out, struct pv_error *err);
void pv_find_free(struct pv_find *fd);

/*
 * Expand-all of one row (the page's '*'): the rows of t's subtree under `from` (PV_NONE: every
 * root) whose first-metric total is at least min_total and that have children, in pre-order,
 * at most cap (the page opens them all; lighter rows stay closed, like the flame graph's
 * pixel rule), `from` first. Writes them to *rows (pv_free; NULL when none) and their count to
 * *n; returns 0 or PV_ENOMEM. Cost: the rows visited.
 */
int pv_tree_expand(const struct pv_tree *t, uint32_t from, int64_t min_total, uint32_t cap,
		   uint32_t **rows, uint32_t *n);

#endif

/*
 * view/engine.h - what the engine's files share: the working stack table, the engine state,
 * the scopes, row keys, and the functions one of them calls in another (prefix eng_).
 *
 *   engine.c     the view: resolve the query, the sample pass, compute, row names
 *   kinds.c      the view kinds' table and builders (over treebuild.c and flat.c)
 *   scope.c      scopes (function, file, module, path, loop, line, regex) and thread selection
 *   scopename.c  the scope that names one function, line, loop, file or module alone
 *   transform.c  the filters that rebuild the working table, folding inlined frames
 *   treebuild.c  rows and trees: top-down and bottom-up builders, sorting, totals
 *   flat.c       the flat view and the per-function list (top)
 *
 * Nothing outside these files includes it; the rest of libpv uses view/internal.h.
 */
#ifndef PV_VIEW_ENGINE_H
#define PV_VIEW_ENGINE_H

#include "base/alloc.h"
#include "base/hash.h"
#include "base/sort.h"
#include "base/text.h"
#include "pv/marker.h"
#include "pv/view.h"
#include "view/internal.h"
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct scope;

/* ---- working stack table ---- */

struct wst {
	uint32_t len;
	uint32_t *frame, *prefix; /* borrowed from the profile until a transform */
	bool owned;
	int64_t *cost[PV_QUERY_MAX];
};

struct pv_engine {
	const struct pv_profile *p;
	struct pv_view *v;
	struct pv_error *err;
	uint32_t nm; /* metrics */
	struct wst w;
	/* pv_view_compute_keep only: the working stack of each profile stack (PV_NONE once a
	 * transform removed all its frames) and whether an include/drop filter dropped it */
	uint32_t *origin;
	uint8_t *odrop;
	uint8_t *skeep; /* per sample: selected by threads, range, tags, inside-markers */
	/* the center while a view kind's builder runs: each working stack's outermost match
	 * (NULL: no center) and the center's scopes */
	const uint32_t *anchor;
	const struct scope *center;
	uint32_t ncenter;
	/* the view's kind (kinds.c, whose builder runs) and the order of its rows (pv_query_sort)
	 */
	const struct pv_view_kind_row *kind;
	enum pv_sort_key sort;
	/* pv_view_compute_printed: the view is printed once, not paged (treebuild.c's tail) */
	bool printed;
	/* printed trees (tree, callers, butterfly) with --depth: the printers look at the children
	 * of rows above this depth only, so eng_tree_finish sorts only those (0: every row's) */
	uint32_t sort_depth;
	/* pv__view_rows only: eng_build_top_down keeps its row of each working stack here */
	bool want_node;
	uint32_t *node;
};

/* pv/view.h's builder context: the engine, handed to a kind's builder (kinds.c). */
struct pv_view_build {
	struct pv_engine *e;
};

static inline uint32_t vf_func(const struct pv_view *v, uint32_t vf)
{
	const struct pv_profile *p = v->p;
	return vf < p->frames.len ? p->frames.func[vf] : p->funcs.len + (vf - p->frames.len);
}

static inline uint32_t vf_line(const struct pv_view *v, uint32_t vf)
{
	return vf < v->p->frames.len ? pv_frame_line(v->p, vf) : 0;
}

/* An inlined frame: inline depth 1 or more (a pseudo-frame never is). */
static inline bool vf_inlined(const struct pv_view *v, uint32_t vf)
{
	return vf < v->p->frames.len && pv_frame_inline_depth(v->p, vf) > 0;
}

/* ---- frames of lexical scopes (HPCToolkit loops and statements: doc/hpctoolkit.md) ---- */

static inline uint8_t vf_kind(const struct pv_view *v, uint32_t vf)
{
	return vf < v->p->frames.len ? pv_frame_kind(v->p, vf) : PV_FRAME_CODE;
}

/* The file of a frame's line: its own (a loop or line in another file), else its function's. */
static inline pv_source_ix vf_source(const struct pv_view *v, uint32_t vf)
{
	const struct pv_profile *p = v->p;
	if (vf >= p->frames.len)
		return PV_NONE;
	return pv_frame_source(p, vf) != PV_NONE ? pv_frame_source(p, vf)
						 : pv_func_source(p, p->frames.func[vf]);
}

static inline pv_module_ix fn_module(const struct pv_view *v, uint32_t f)
{
	return f < v->p->funcs.len ? pv_func_module(v->p, f)
				   : v->priv->pseudo_module[f - v->p->funcs.len];
}

static inline pv_source_ix fn_source(const struct pv_view *v, uint32_t f)
{
	return f < v->p->funcs.len ? pv_func_source(v->p, f) : PV_NONE;
}

static inline const char *fn_name(const struct pv_view *v, uint32_t f)
{
	const struct pv_profile *p = v->p;
	if (f < p->funcs.len)
		return pv_str(p, p->funcs.name[f]);
	return pv_str(p, p->modules.name[v->priv->pseudo_module[f - p->funcs.len]]);
}

enum scope_kind { SC_FUNCS, SC_LINE, SC_PATH, SC_FRAMES };

struct scope {
	enum scope_kind kind;
	const char *text;
	uint8_t *fmatch; /* over profile functions */
	/* file: and module: scopes, over sources and modules, the last slot for "none"
	 * (eng_source_slot, eng_module_slot): the flat view's file and module rows in the center,
	 * and a module's collapsed frames */
	uint8_t *smatch, *mmatch;
	uint32_t line;
	char **path;	       /* SC_PATH: the steps as written, from the root */
	uint32_t **path_funcs; /* SC_PATH: the profile functions each step names, ascending */
	uint32_t *path_nfuncs;
	uint32_t path_len;
	uint8_t *vmatch; /* SC_FRAMES: over profile frames (loop:FILE:LINE) */
};

/*
 * A row key: kind, id and line packed into 64 bits. At file and module granularity, a frame
 * whose key equals its caller's row continues that row (a file calling itself is one row).
 */
#define KEY(kind, id, line) \
	(((uint64_t)(kind) << 61) | ((uint64_t)(line & 0x1fffffff) << 32) | (id))
#define KEY_KIND(k) ((uint8_t)((k) >> 61))
#define KEY_ID(k)   ((uint32_t)(k))
#define KEY_LINE(k) ((uint32_t)(((k) >> 32) & 0x1fffffff))
#define CENTER_KEY  KEY(PV_ROW_CENTER, 0, 0)
/*
 * A frame that makes no row of its own at the granularity: a loop or statement frame at function
 * granularity, a statement frame at loop granularity. Its cost is its caller row's (the
 * function or loop it is in); bottom-up, its callers are the callers of that row.
 */
#define CONTINUE_KEY UINT64_MAX

/* Sorting rows: first metric's total descending, then name, then key. */
struct row_sort {
	const struct pv_view *v;
	const struct pv_tree *t;
	const int64_t *key, *key2;
	const uint8_t *kind;
	const uint32_t *id, *line;
	/* per row (NULL: none): the first 8 bytes of its name, big-endian, so most name
	 * comparisons of a long list touch no string (rows of unique stacks: millions of roots) */
	const uint64_t *name8;
};

/* ---- across the engine's files ---- */

/* The center's name as a view shows it: the scope without its prefix, "<multiple contexts>". */
char *eng_center_label(const struct pv_query *q);
void eng_scope_release(struct scope *s);
/* The names of the rows of no file and of no module, which their scopes take (doc/views.md). */
#define PV_UNKNOWN_FILE	  "<unknown file>"
#define PV_UNKNOWN_MODULE "<unknown module>"
/* Function f's file and module m as slots of a scope's smatch / mmatch: the index, or the
 * table's length for none (or an empty path or name). */
uint32_t eng_source_slot(const struct pv_profile *p, pv_func_ix f);
uint32_t eng_module_slot(const struct pv_profile *p, pv_module_ix m);
/* The modules name (a collapse-module argument) names, as module:NAME does, into mm (modules.len
 * + 1 bytes); returns how many. */
uint32_t eng_name_modules(const struct pv_profile *p, uint8_t *mm, const char *name);
/* A loop frame's file: its own, else its function's; PV_NONE when neither has one. */
pv_source_ix eng_loop_source(const struct pv_profile *p, pv_frame_ix f);
int eng_scope_compile(struct pv_engine *e, struct scope *sc, const char *text, const char *what);
/* Whether function f (a collapsed module's by its name) is step k of path scope sc. */
bool eng_path_step_is(const struct pv_view *v, const struct scope *sc, uint32_t k, uint32_t f);
bool eng_scope_func(const struct pv_view *v, const struct scope *sc, uint32_t f);
/*
 * match[s] = 1 when the frame of working stack s is in one of the scopes. Path scopes follow
 * the function path from the root: state[s] counts the path elements matched down to s.
 */
int eng_match_stacks(struct pv_engine *e, struct scope *sc, uint32_t nsc, uint8_t *match);
int eng_apply_filter(struct pv_engine *e, const struct pv_filter *f, uint32_t index);
/*
 * Folds every inlined frame into the frame it is inlined in, as pprof's -noinlines keeps only a
 * location's outermost line: an inlined frame's image is its caller's, so its cost and its
 * callees go to the function that holds the inlined code (a stack's inlined frames sit right
 * above that function's frame). An inlined frame at the root, with nothing to fold into, stays.
 * One rebuild of the working table, before the filters; nothing to do without inlined frames.
 */
int eng_fold_inlines(struct pv_engine *e);
void eng_tree_free(struct pv_tree *t, uint32_t nm);
void eng_sort_ix(struct row_sort *c, uint32_t *rows, uint32_t n);
/* Totals from selves (rows are parents first), children lists, sorting. */
int eng_tree_finish(struct pv_engine *e, struct pv_tree *t, bool totals_from_self);
/* Whether the samples without a stack count in a view of q: not with an include filter. */
bool eng_nostack_kept(const struct pv_query *q);
/*
 * Top-down: node[s] for every working stack; with a center, stacks above the anchor have none
 * and the anchor itself is the one center row. Without a center, the (no stack) row.
 */
int eng_build_top_down(struct pv_engine *e, const uint32_t *anchor, bool center_row,
		       struct pv_tree **out);
/*
 * The bottom-up tree. With a center (anchor[s]: the outermost match of s's path), one center
 * row over the anchors' callers; without, the inverted tree.
 */
int eng_build_bottom_up(struct pv_engine *e, const uint32_t *anchor, struct pv_tree **out);
int eng_flat_compute(struct pv_engine *e, const struct pv_tree *t, struct pv_flat **out);
void eng_exact_function_costs(struct pv_engine *e);
/*
 * The function list of a call-graph profile over its whole, unfiltered self (callgrind): the
 * rows are every function of the stack table (as the line-level tree and eng_flat_compute would
 * find them) and eng_exact_function_costs gives their values and order, so neither the tree nor
 * the flat pass runs. Returns 1 when it applies, 0 when not, or the error.
 */
int eng_exact_top(struct pv_engine *e);
/*
 * The same list from the file's own costs (as callgrind_annotate lists them): the
 * functions whose exact self or total is not zero in a shown metric, the whole the graph's self
 * costs; no calling context is read, so a profile imported without them (pv_import_opts'
 * no_contexts) lists the same. 1 when it applies, 0 when not, or the error.
 */
int eng_graph_top(struct pv_engine *e);

#endif

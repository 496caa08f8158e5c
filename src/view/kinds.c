/*
 * kinds.c - the view kinds (pv/view.h): one row each, iterated by the engine, the printers,
 * the CLI's commands and the web API.
 */
#include <string.h>

#include "pv/query.h"
#include "view/engine.h"

/* ---- the builders: each fills its kind's outputs from the engine's stages ---- */

/* The depth past which a printed tree's children need no order (struct pv_engine). */
static void printed_sort_depth(struct pv_engine *e)
{
	e->sort_depth = e->printed ? e->v->q.depth : 0;
}

static int build_tree(struct pv_view_build *b)
{
	struct pv_engine *e = b->e;
	printed_sort_depth(e);
	return eng_build_top_down(e, e->anchor, true, &e->v->tree);
}

static int build_callers(struct pv_view_build *b)
{
	struct pv_engine *e = b->e;
	printed_sort_depth(e);
	return eng_build_bottom_up(e, e->anchor, &e->v->tree);
}

static int build_butterfly(struct pv_view_build *b)
{
	struct pv_engine *e = b->e;
	printed_sort_depth(e);
	int rc = eng_build_bottom_up(e, e->anchor, &e->v->callers);
	return rc ? rc : eng_build_top_down(e, e->anchor, true, &e->v->tree);
}

static int build_flat(struct pv_view_build *b)
{
	struct pv_engine *e = b->e;
	struct pv_view *v = e->v;
	const struct pv_profile *p = e->p;
	const uint32_t *anchor = e->anchor;
	const struct scope *center = e->center;
	uint32_t ncenter = e->ncenter;
	int rc;
	if ((rc = eng_graph_top(e)) || (rc = eng_exact_top(e)))
		return rc == 1 ? 0 : rc;
	/* counted once per sample over the line-level top-down tree (centered for top) */
	enum pv_granularity saved = v->q.by;
	enum pv_self_mode saved_self = v->q.self;
	v->q.by = saved == PV_BY_LOOP ? PV_BY_LOOP : PV_BY_LINE; /* by loop: lines are loops' */
	v->q.self = PV_SELF_OWN; /* eng_flat_compute nests the loops' selves itself */
	struct pv_tree *t = NULL;
	rc = eng_build_top_down(e, e->kind->list ? anchor : NULL, false, &t);
	v->q.by = saved;
	v->q.self = saved_self;
	if (!rc)
		rc = eng_flat_compute(e, t, &v->flat);
	eng_tree_free(t, e->nm);
	if (!rc)
		eng_exact_function_costs(e);
	if (!rc && v->centered) {
		for (uint32_t r = 0; r < v->flat->len; r++) {
			uint32_t id = v->flat->id[r];
			bool in = false;
			for (uint32_t c = 0; c < ncenter && !in; c++) {
				const struct scope *sc = &center[c];
				switch (v->flat->kind[r]) {
				case PV_ROW_FUNCTION:
					in = sc->kind == SC_FUNCS && eng_scope_func(v, sc, id);
					break;
				case PV_ROW_LINE:
					in =
					    eng_scope_func(v, sc, id) &&
					    (sc->kind == SC_FUNCS ||
					     (sc->kind == SC_LINE && sc->line == v->flat->line[r]));
					break;
				case PV_ROW_FILE:
					in = sc->smatch &&
					     sc->smatch[id == PV_NONE ||
								!*pv_str(p, p->sources.path[id])
							    ? p->sources.len
							    : id];
					break;
				case PV_ROW_MODULE:
					in = sc->mmatch && sc->mmatch[eng_module_slot(p, id)];
					break;
				case PV_ROW_LOOP:
					in = sc->kind == SC_FRAMES && id < p->frames.len &&
					     sc->vmatch[id];
					break;
				default: break;
				}
			}
			v->flat->in_center[r] = in;
		}
	}
	return rc;
}

struct pv_view *pv_view_build_view(const struct pv_view_build *b)
{
	return b->e->v;
}

const struct pv_view_kind_row *pv_view_build_kind(const struct pv_view_build *b)
{
	return b->e->kind;
}

const struct pv_view_kind_row pv_view_kinds[PV_NR_VIEW_KINDS] = {
    [PV_VIEW_TREE] = {"tree", "Top-down",
		      "top-down call tree (with --center: the center's callees)", false, false,
		      false, PV_SORT_SELF, PV_OUT_TREE, build_tree},
    [PV_VIEW_CALLERS] = {"callers", "Bottom-up",
			 "bottom-up tree (with --center: the center's callers)", false, false,
			 false, PV_SORT_SELF, PV_OUT_TREE, build_callers},
    [PV_VIEW_FLAT] = {"flat", "Flat",
		      "module > file > function > (loop >) line rows (--by: the depth)", false,
		      false, true, PV_SORT_TOTAL, PV_OUT_FLAT, build_flat},
    [PV_VIEW_BUTTERFLY] = {"butterfly", "Butterfly",
			   "callers, the center, callees (needs --center)", true, false, false,
			   PV_SORT_SELF, PV_OUT_TREE | PV_OUT_CALLERS, build_butterfly},
    [PV_VIEW_TOP] = {"top", "Top", "one row per function: self, total (recursion counted once)",
		     false, true, false, PV_SORT_SELF, PV_OUT_FLAT, build_flat},
};

const struct pv_view_kind_row *pv_view_kind(enum pv_view_kind k)
{
	return &pv_view_kinds[(unsigned)k < PV_NR_VIEW_KINDS ? k : PV_VIEW_TREE];
}

enum pv_sort_key pv_query_sort(const struct pv_query *q)
{
	return q->sort != PV_SORT_DEFAULT ? q->sort : pv_view_kind(q->view)->sort;
}

const char *pv_view_name(enum pv_view_kind v)
{
	return (unsigned)v < PV_NR_VIEW_KINDS ? pv_view_kinds[v].name : NULL;
}

int pv_view_parse(const char *s, enum pv_view_kind *out)
{
	for (uint32_t k = 0; k < PV_NR_VIEW_KINDS; k++) {
		if (strcmp(pv_view_kinds[k].name, s) == 0) {
			*out = (enum pv_view_kind)k;
			return 0;
		}
	}
	return PV_EINVAL;
}

void pv__view_set_base(struct pv_view *v)
{
	/* the flat view is not cut at the center (it only marks it) */
	bool of_whole = v->q.percent == PV_PERCENT_WHOLE || pv_view_kind(v->q.view)->of_whole;
	memcpy(v->base, of_whole ? v->whole : v->center, sizeof(v->base));
}

/*
 * kinds.c - the view kinds (pv/view.h): one row each, iterated by the engine, the printers,
 * the CLI's commands and the web API.
 */
#include <string.h>

#include "pv/query.h"
#include "view/internal.h"

const struct pv_view_kind_row pv_view_kinds[PV_NR_VIEW_KINDS] = {
    [PV_VIEW_TREE] = {"tree", "Top-down",
		      "top-down call tree (with --center: the center's callees)", false, false,
		      false, PV_SORT_SELF, PV_OUT_TREE, pv__build_tree},
    [PV_VIEW_CALLERS] = {"callers", "Bottom-up",
			 "bottom-up tree (with --center: the center's callers)", false, false,
			 false, PV_SORT_SELF, PV_OUT_TREE, pv__build_callers},
    [PV_VIEW_FLAT] = {"flat", "Flat",
		      "module > file > function > (loop >) line rows (--by: the depth)", false,
		      false, true, PV_SORT_TOTAL, PV_OUT_FLAT, pv__build_flat},
    [PV_VIEW_BUTTERFLY] = {"butterfly", "Butterfly",
			   "callers, the center, callees (needs --center)", true, false, false,
			   PV_SORT_SELF, PV_OUT_TREE | PV_OUT_CALLERS, pv__build_butterfly},
    [PV_VIEW_TOP] = {"top", "Top", "one row per function: self, total (recursion counted once)",
		     false, true, false, PV_SORT_SELF, PV_OUT_FLAT, pv__build_flat},
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

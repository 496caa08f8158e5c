/*
 * hotpath.c - hpcviewer's hot path through a tree of rows (include/pv/view.h).
 */
#include "pv/view.h"

uint32_t pv_tree_hot_path(const struct pv_tree *t, uint32_t from, double fraction, uint32_t *rows,
			  uint32_t cap)
{
	uint32_t r = from != PV_NONE ? from : t->nr_roots ? t->roots[0] : PV_NONE;
	uint32_t n = 0;
	if (r == PV_NONE || r >= t->len || !cap)
		return 0;
	rows[n++] = r;
	while (n < cap && t->child_len[r]) {
		/* the heaviest child: children come sorted by the first metric's total */
		uint32_t c = t->children[t->child_first[r]];
		int64_t parent = t->total[0][r], child = t->total[0][c];
		if (parent <= 0 || (double)child < fraction * (double)parent)
			break;
		rows[n++] = r = c;
	}
	return n;
}

void pv_tree_keep_path(struct pv_tree *t, const uint32_t *rows, uint32_t n)
{
	if (!n)
		return;
	t->nr_roots = 1;
	t->roots[0] = rows[0];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = rows[i];
		if (i + 1 < n) {
			/* the next row is one of r's children: make it the only one */
			uint32_t *kids = t->children + t->child_first[r];
			for (uint32_t k = 0; k < t->child_len[r]; k++)
				if (kids[k] == rows[i + 1]) {
					kids[k] = kids[0];
					kids[0] = rows[i + 1];
				}
			t->child_len[r] = 1;
		} else {
			t->child_len[r] = 0;
		}
	}
}

/*
 * hotpath.c - hpcviewer's hot path through a tree of rows, and the row a view opens on (the
 * Firefox Profiler's heaviest path, made significant) (include/pv/view.h).
 */
#include "base/alloc.h"
#include "pv/rows.h"
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

/* Whether row r of t is no row to open on: the (no stack) row, or a function of the idle
 * category. */
static bool first_skip(const struct pv_tree *t, uint32_t r, const pv_cat_ix *cat, pv_cat_ix idle,
		       uint32_t nfuncs)
{
	if (t->kind[r] == PV_ROW_NOSTACK)
		return true;
	if (!cat || idle == PV_NONE)
		return false;
	bool func = t->kind[r] == PV_ROW_FUNCTION || t->kind[r] == PV_ROW_LINE;
	return func && t->id[r] < nfuncs && cat[t->id[r]] == idle;
}

int pv_view_first_path(const struct pv_view *v, const struct pv_tree *t, uint32_t *rows,
		       uint32_t cap, uint32_t *n)
{
	const struct pv_profile *p = v->p;
	pv_cat_ix idle = pv_idle_category(p), *cat = NULL;
	*n = 0;
	if (idle != PV_NONE && pv_func_categories(p, &cat))
		return PV_ENOMEM;
	/* roots come sorted by total: the first that is a row to open on */
	uint32_t r = PV_NONE;
	for (uint32_t i = 0; i < t->nr_roots && r == PV_NONE; i++)
		if (!first_skip(t, t->roots[i], cat, idle, p->funcs.len))
			r = t->roots[i];
	if (r == PV_NONE || !cap) {
		pv_free(cat);
		return 0;
	}
	/* the floor: of what the view's percentages are of (the whole, or the center's total), the
	 * first row's when that is none (a derived metric) */
	int64_t of = v->base[0] > 0 && v->base[0] != PV_VALUE_NONE ? v->base[0] : t->total[0][r];
	int64_t floor = (int64_t)((double)of * PV_FIRST_FLOOR);
	rows[(*n)++] = r;
	for (uint32_t level = 0; level < PV_FIRST_DEPTH && *n < cap; level++) {
		const uint32_t *kids = t->children + t->child_first[r];
		uint32_t c = PV_NONE;
		for (uint32_t k = 0; k < t->child_len[r] && c == PV_NONE; k++)
			if (!first_skip(t, kids[k], cat, idle, p->funcs.len))
				c = kids[k];
		if (c == PV_NONE || t->total[0][c] <= 0 || t->total[0][c] < floor)
			break;
		rows[(*n)++] = r = c;
	}
	pv_free(cat);
	return 0;
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

int pv_tree_expand(const struct pv_tree *t, uint32_t from, int64_t min_total, uint32_t cap,
		   uint32_t **rows, uint32_t *n)
{
	*rows = NULL;
	*n = 0;
	uint32_t scap = t->nr_roots > 64 ? t->nr_roots : 64, sp = 0, ocap = 0;
	uint32_t *st = pv_malloc(sizeof(*st) * scap), *out = NULL;
	if (!st)
		return PV_ENOMEM;
	/* a stack of rows still to visit, pushed lightest first so the heaviest pops next */
	if (from != PV_NONE && from < t->len)
		st[sp++] = from;
	else
		for (uint32_t i = t->nr_roots; i-- > 0;)
			st[sp++] = t->roots[i];
	while (sp && *n < cap) {
		uint32_t r = st[--sp];
		if (!t->child_len[r] || (t->total[0][r] < min_total && r != from))
			continue;
		if (*n == ocap) {
			ocap = ocap ? ocap * 2 : 256;
			uint32_t *no = pv_realloc(out, sizeof(*out) * ocap);
			if (!no)
				goto oom;
			out = no;
		}
		out[(*n)++] = r;
		if (sp + t->child_len[r] > scap) {
			while (sp + t->child_len[r] > scap)
				scap *= 2;
			uint32_t *ns = pv_realloc(st, sizeof(*st) * scap);
			if (!ns)
				goto oom;
			st = ns;
		}
		const uint32_t *kids = t->children + t->child_first[r];
		for (uint32_t i = t->child_len[r]; i-- > 0;)
			if (t->total[0][kids[i]] >= min_total && t->child_len[kids[i]])
				st[sp++] = kids[i];
	}
	pv_free(st);
	*rows = out;
	return 0;
oom:
	pv_free(st);
	pv_free(out);
	*n = 0;
	return PV_ENOMEM;
}

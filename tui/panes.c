/*
 * panes.c - the TUI's view panes (state.h): top-down, bottom-up, butterfly, flat and top; the
 * rows of open parents, the keys on a row, and their lines on the screen.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/format.h"
#include "pv/graphs.h"
#include "pv/rows.h"
#include "state.h"

static const char *row_name(const struct pv_view *v, const struct pv_tree *t, uint32_t r, char *buf,
			    size_t n)
{
	if (t)
		return pv_view_row_label(v, t->kind[r], t->id[r], buf, n, t->line[r]);
	return pv_view_row_label(v, v->flat->kind[r], v->flat->id[r], buf, n, v->flat->line[r]);
}

struct pane *tui_cur_pane(struct tui *t)
{
	return t->tabs[t->tab].kind ? &t->panes[t->tab] : NULL;
}

static int tree_ix(const struct pv_view *v, const struct pv_tree *tr)
{
	return tr == v->callers ? 1 : 0;
}

void tui_pane_drop(struct pane *pn)
{
	pv_row_namer_free(pn->nm);
	pv_view_free(pn->v);
	free(pn->open[0]);
	free(pn->open[1]);
	free(pn->err);
	pn->nm = NULL;
	pn->v = NULL;
	pn->open[0] = pn->open[1] = NULL;
	pn->err = NULL;
	pn->nrows = 0;
}

static void add_row(struct pane *pn, const struct pv_tree *tr, uint32_t r, uint8_t title)
{
	if (pn->nrows == pn->cap) {
		uint32_t cap = pn->cap ? pn->cap * 2 : 256;
		struct vrow *g = realloc(pn->rows, sizeof(*g) * cap);
		if (!g)
			return;
		pn->rows = g;
		pn->cap = cap;
	}
	pn->rows[pn->nrows++] = (struct vrow){tr, r, title};
}

/* The rows of tree tr whose parents are all open, in pre-order. */
static void walk(struct pane *pn, const struct pv_tree *tr, const uint8_t *open)
{
	struct lvl {
		const uint32_t *list;
		uint32_t n, i;
	} *st = NULL;
	uint32_t sp = 0, cap = 0;
	const uint32_t *list = tr->roots;
	uint32_t n = tr->nr_roots, i = 0;
	for (;;) {
		if (i == n) {
			if (!sp)
				break;
			sp--;
			list = st[sp].list;
			n = st[sp].n;
			i = st[sp].i;
			continue;
		}
		uint32_t r = list[i++];
		add_row(pn, tr, r, 0);
		if (open[r] && tr->child_len[r]) {
			if (sp == cap) {
				cap = cap ? cap * 2 : 64;
				struct lvl *g = realloc(st, sizeof(*g) * cap);
				if (!g)
					break;
				st = g;
			}
			st[sp++] = (struct lvl){list, n, i};
			list = tr->children + tr->child_first[r];
			n = tr->child_len[r];
			i = 0;
		}
	}
	free(st);
}

static void build_rows(struct pane *pn)
{
	pn->nrows = 0;
	const struct pv_view *v = pn->v;
	if (!v)
		return;
	if (v->flat) {
		for (uint32_t r = 0; r < v->flat->len; r++)
			add_row(pn, NULL, r, 0);
	} else if (v->callers) {
		add_row(pn, NULL, PV_NONE, 0);
		walk(pn, v->callers, pn->open[1]);
		add_row(pn, NULL, PV_NONE, 1);
		walk(pn, v->tree, pn->open[0]);
	} else {
		walk(pn, v->tree, pn->open[0]);
	}
	if (pn->sel >= pn->nrows)
		pn->sel = pn->nrows ? pn->nrows - 1 : 0;
}

static uint32_t find_line(const struct pane *pn, const struct pv_tree *tr, uint32_t r)
{
	for (uint32_t i = 0; i < pn->nrows; i++)
		if (pn->rows[i].t == tr && pn->rows[i].r == r)
			return i;
	return PV_NONE;
}

/* Opens every ancestor of row r of tree tr. */
static void reveal(struct pane *pn, const struct pv_tree *tr, uint32_t r)
{
	uint8_t *open = pn->open[tree_ix(pn->v, tr)];
	for (uint32_t x = tr->parent[r]; x != PV_NONE; x = tr->parent[x])
		open[x] = 1;
}

void tui_select_row(struct pane *pn, const struct pv_tree *tr, uint32_t r)
{
	reveal(pn, tr, r);
	build_rows(pn);
	uint32_t i = find_line(pn, tr, r);
	if (i != PV_NONE)
		pn->sel = i;
}

/* The pane's view of the current query, computed when the query changed. */
void tui_ensure_view(struct tui *t, uint32_t tab)
{
	struct pane *pn = &t->panes[tab];
	if (pn->gen == t->gen)
		return;
	tui_pane_drop(pn);
	pn->gen = t->gen;
	struct pv_query q;
	pv_query_init(&q);
	struct pv_error err;
	pv_error_clear(&err);
	int rc = pv_query_copy(&q, &t->q);
	q.view = t->tabs[tab].view;
	if (!rc && t->tabs[tab].kind->needs_center && !q.nr_center) {
		char b[128];
		snprintf(b, sizeof(b), "the %s needs a center: press c on a row of another tab",
			 t->tabs[tab].kind->name);
		pn->err = strdup(b);
		pv_query_release(&q);
		return;
	}
	if (!rc)
		rc = pv_view_compute(t->p, &q, &pn->v, &err);
	pv_query_release(&q);
	if (!rc)
		rc = pv_row_namer_new(pn->v, &pn->nm);
	if (rc) {
		pn->err = strdup(rc == PV_ENOMEM ? "out of memory" : err.msg);
		pv_view_free(pn->v);
		pn->v = NULL;
		return;
	}
	const struct pv_tree *trees[2] = {pn->v->tree, pn->v->callers};
	for (int k = 0; k < 2; k++)
		if (trees[k])
			pn->open[k] = calloc(trees[k]->len ? trees[k]->len : 1, 1);
	/* open again what was open (keys name the same rows across queries) */
	for (uint32_t i = 0; i < pn->keep.n; i++) {
		struct pv_row_ref ref;
		if (pv_view_find(pn->v, pn->keep.s[i], &ref) && ref.tree && ref.row != PV_NONE)
			pn->open[tree_ix(pn->v, ref.tree)][ref.row] = 1;
	}
	/* the first root (a centered tree's center row) is always open */
	for (int k = 0; k < 2; k++)
		if (trees[k] && trees[k]->nr_roots && pn->open[k])
			pn->open[k][trees[k]->roots[0]] = 1;
	pn->sel = 0;
	build_rows(pn);
	struct pv_row_ref ref;
	if (pn->sel_key && pv_view_find(pn->v, pn->sel_key, &ref) && ref.row != PV_NONE) {
		if (ref.tree)
			tui_select_row(pn, ref.tree, ref.row);
		else
			pn->sel = ref.row;
	}
	while (pn->sel + 1 < pn->nrows && pn->rows[pn->sel].r == PV_NONE)
		pn->sel++;
}

static void move_sel(struct pane *pn, int64_t delta)
{
	if (!pn->nrows)
		return;
	int64_t i = (int64_t)pn->sel + delta;
	if (i < 0)
		i = 0;
	if (i >= pn->nrows)
		i = pn->nrows - 1;
	/* a section title is passed over in the direction of the move */
	int64_t step = delta < 0 ? -1 : 1;
	while (i >= 0 && i < pn->nrows && pn->rows[i].r == PV_NONE)
		i += step;
	if (i < 0 || i >= pn->nrows)
		return;
	pn->sel = (uint32_t)i;
}

const struct vrow *tui_sel_row(const struct pane *pn)
{
	if (!pn->v || pn->sel >= pn->nrows || pn->rows[pn->sel].r == PV_NONE)
		return NULL;
	return &pn->rows[pn->sel];
}

static void expand_below(struct tui *t, struct pane *pn, const struct vrow *vr)
{
	const struct pv_tree *tr = vr->t;
	uint8_t *open = pn->open[tree_ix(pn->v, tr)];
	uint32_t cap = 1024, sp = 0, opened = 0;
	uint32_t *st = malloc(sizeof(*st) * cap);
	if (!st)
		return;
	st[sp++] = vr->r;
	while (sp && opened < EXPAND_MAX) {
		uint32_t r = st[--sp];
		if (!tr->child_len[r])
			continue;
		open[r] = 1;
		opened += tr->child_len[r];
		for (uint32_t i = tr->child_len[r]; i-- > 0;) {
			if (sp == cap) {
				uint32_t *g = realloc(st, sizeof(*st) * cap * 2);
				if (!g)
					break;
				st = g;
				cap *= 2;
			}
			st[sp++] = tr->children[tr->child_first[r] + i];
		}
	}
	free(st);
	if (opened >= EXPAND_MAX)
		tui_say(t, "opened %u rows (at most %u at once)", opened, EXPAND_MAX);
	build_rows(pn);
}

static void hot_path(struct tui *t, struct pane *pn, const struct vrow *vr)
{
	uint32_t *rows = malloc(sizeof(*rows) * HOT_MAX);
	if (!rows)
		return;
	const struct pv_tree *tr = vr->t;
	uint32_t n = pv_tree_hot_path(tr, vr->r, 0.5, rows, HOT_MAX);
	uint8_t *open = pn->open[tree_ix(pn->v, tr)];
	for (uint32_t i = 0; i + 1 < n; i++)
		open[rows[i]] = 1;
	if (n)
		tui_select_row(pn, tr, rows[n - 1]);
	tui_say(t, "hot path: %u rows", n);
	free(rows);
}

static bool row_key(struct tui *t, struct pane *pn, int key)
{
	const struct vrow *vr = tui_sel_row(pn);
	if (!vr)
		return false;
	const struct pv_view *v = pn->v;
	uint8_t kind = vr->t ? vr->t->kind[vr->r] : v->flat->kind[vr->r];
	uint32_t id = vr->t ? vr->t->id[vr->r] : v->flat->id[vr->r];
	uint32_t line = vr->t ? vr->t->line[vr->r] : v->flat->line[vr->r];
	const char *scope;
	char *copy;
	switch (key) {
	case 'c':
	case 'C':
	case 'i':
	case 'd':
	case 'm':
	case 'r':
		scope = pv_row_scope(pn->nm, vr->t, vr->r);
		if (!scope) {
			tui_say(t, "no scope names this row");
			return true;
		}
		copy = strdup(scope);
		if (!copy)
			return true;
		if (key == 'c' || key == 'C')
			tui_set_center(t, copy, key == 'C');
		else
			tui_add_filter(t,
				       key == 'i'   ? PV_FILTER_INCLUDE
				       : key == 'd' ? PV_FILTER_DROP
				       : key == 'm' ? PV_FILTER_MERGE
						    : PV_FILTER_COLLAPSE_RECURSION,
				       copy);
		free(copy);
		return true;
	case 'p':
		scope = pv_row_path(pn->nm, vr->t, vr->r);
		if (!scope) {
			tui_say(t, "no path: names this row (a top-down function row has one)");
			return true;
		}
		copy = strdup(scope);
		if (copy)
			tui_set_center(t, copy, false);
		free(copy);
		return true;
	case 'M': {
		pv_module_ix m;
		pv_source_ix s;
		uint32_t l;
		pv_view_row_place(v, (enum pv_row_kind)kind, id, &m, &s, &l);
		if (m == PV_NONE || !*pv_str(t->p, t->p->modules.name[m])) {
			tui_say(t, "no module for this row");
			return true;
		}
		copy = strdup(pv_str(t->p, t->p->modules.name[m]));
		if (copy)
			tui_add_filter(t, PV_FILTER_COLLAPSE_MODULE, copy);
		free(copy);
		return true;
	}
	case 'h':
		if (!vr->t)
			tui_say(t, "the hot path is a tree's");
		else
			hot_path(t, pn, vr);
		return true;
	case 's': tui_open_source(t, v, kind, id, line); return true;
	case 'a': {
		pv_func_ix fn = kind == PV_ROW_FUNCTION
				    ? id
				    : pv_view_row_function(v, (enum pv_row_kind)kind, id);
		if (fn == PV_NONE || fn >= t->p->funcs.len)
			tui_say(t, "no function for this row (a: a function's instructions)");
		else
			tui_annotate_open(t, fn);
		return true;
	}
	default: return false;
	}
}

void tui_find_next(struct tui *t, struct pane *pn, bool backward)
{
	if (!pn->v || !t->find[0])
		return;
	const struct vrow *vr = tui_sel_row(pn);
	const struct pv_tree *trees[2] = {pn->v->callers ? pn->v->callers : pn->v->tree,
					  pn->v->callers ? pn->v->tree : NULL};
	if (pn->v->flat)
		trees[0] = NULL;
	/* the tree of the selection first, then (butterfly) the other one */
	const struct pv_tree *tr = vr ? vr->t : trees[0];
	uint32_t from = vr ? vr->r : PV_NONE;
	uint32_t r = pv_view_find_name(pn->v, tr, from, t->find, backward);
	if (r == PV_NONE && pn->v->callers) {
		tr = tr == trees[0] ? trees[1] : trees[0];
		r = pv_view_find_name(pn->v, tr, PV_NONE, t->find, backward);
	}
	if (r == PV_NONE) {
		tui_say(t, "no row matches '%s'", t->find);
		return;
	}
	if (tr)
		tui_select_row(pn, tr, r);
	else
		pn->sel = r;
	tui_say(t, "/%s", t->find);
}

static void tui_view_key(struct tui *t, int key)
{
	tui_ensure_view(t, t->tab);
	struct pane *pn = tui_cur_pane(t);
	const struct vrow *vr = tui_sel_row(pn);
	uint8_t *open = vr && vr->t ? pn->open[tree_ix(pn->v, vr->t)] : NULL;
	int64_t d = tui_move_delta(t, key, pn->nrows);
	if (d) {
		move_sel(pn, d);
		return;
	}
	switch (key) {
	case TUI_KEY_RIGHT:
		if (open && vr->t->child_len[vr->r] && !open[vr->r]) {
			open[vr->r] = 1;
			build_rows(pn);
		} else if (open && open[vr->r]) {
			move_sel(pn, 1);
		}
		return;
	case TUI_KEY_LEFT:
		if (open && open[vr->r] && vr->t->child_len[vr->r]) {
			open[vr->r] = 0;
			build_rows(pn);
		} else if (open && vr->t->parent[vr->r] != PV_NONE) {
			uint32_t i = find_line(pn, vr->t, vr->t->parent[vr->r]);
			if (i != PV_NONE)
				pn->sel = i;
		}
		return;
	case TUI_KEY_ENTER:
		if (open && vr->t->child_len[vr->r]) {
			open[vr->r] = !open[vr->r];
			build_rows(pn);
		} else if (vr) {
			row_key(t, pn, 's');
		}
		return;
	case '*':
		if (open)
			expand_below(t, pn, vr);
		return;
	case 'n': tui_find_next(t, pn, false); return;
	case 'N': tui_find_next(t, pn, true); return;
	default: row_key(t, pn, key); return;
	}
}

/* Columns of a view: total, total%, self, self% (narrow: total% self%), then the name. */
/* Columns of a view: total, total%, self, self% of the first metric (narrow: total% self%),
 * then total and total% of each further metric while the name keeps 30 columns, then the name. */
struct cols {
	int num; /* width of a number column (0: not shown) */
	int pct;
	uint32_t nm; /* metrics shown */
};

/* The widest text of the view's wholes, centers and bases in the number form: a number
 * column is one wider (the values of a tree are within them). */
static int widest(const struct pv_view *v, enum pv_num_form form)
{
	int most = 0;
	for (uint32_t k = 0; k < v->nr_metrics; k++) {
		const int64_t x[3] = {v->whole[k], v->center[k], v->base[k]};
		for (int i = 0; i < 3; i++) {
			char b[64];
			int n = (int)pv_view_cost_text(v, k, x[i], form, b, sizeof(b));
			if (n > most)
				most = n;
		}
	}
	return most;
}

static struct cols cols_of(const struct tui *t, int w, const struct pv_view *v)
{
	struct cols c = {0, 0, 1};
	if (w >= 70) {
		int n = widest(v, t->nums) + 1;
		c = (struct cols){n > 11 ? n : 11, 8, 1};
	} else if (w >= 36) {
		c = (struct cols){0, 8, 1};
	}
	int used = 3 + 2 * (c.num + c.pct), more = c.num + c.pct;
	while (more && c.nm < v->nr_metrics && used + more + 30 <= w) {
		used += more;
		c.nm++;
	}
	return c;
}

const char *tui_metric_title(const struct pv_view *v, uint32_t col, char *buf, size_t n)
{
	char name[128];
	struct pv_cost_unit cu;
	pv_view_cost_unit(v, col, &cu);
	const char *nm = pv_view_metric_name(v, col, name, sizeof(name));
	if (cu.named || !cu.name[0])
		snprintf(buf, n, "%s", nm);
	else
		snprintf(buf, n, "%s, %s", nm, cu.name);
	return buf;
}

static void cost_col(struct tui *t, const struct pv_view *v, uint32_t k, int num, int pct,
		     int64_t x)
{
	char b[64];
	if (num) {
		/* a value wider than its column (a derived metric's) in k/M/G: never cut */
		if ((int)pv_view_cost_text(v, k, x, t->nums, b, sizeof(b)) >= num)
			pv_view_cost_text(v, k, x, PV_NUM_SHORT, b, sizeof(b));
		cells_right(&t->cl, b, num);
	}
	if (pct) {
		int64_t base = v->base[k];
		snprintf(b, sizeof(b), "%.2f%%", base ? 100.0 * (double)x / (double)base : 0.0);
		cells_right(&t->cl, b, pct);
	}
}

/* The cost columns of row r of a tree's or the flat list's costs ([metric][row]). */
static void cost_cols(struct tui *t, const struct pv_view *v, struct cols c, int64_t *const *total,
		      int64_t *const *self, uint32_t r)
{
	cost_col(t, v, 0, c.num, c.pct, total[0][r]);
	cost_col(t, v, 0, c.num, c.pct, self[0][r]);
	for (uint32_t k = 1; k < c.nm; k++)
		cost_col(t, v, k, c.num, c.pct, total[k][r]);
	cells_puts(&t->cl, "  ");
}

static void cost_titles(struct tui *t, const struct pv_view *v, struct cols c, int y)
{
	char name[128];
	cells_start(&t->cl, t->w);
	cells_puts(&t->cl, " ");
	if (c.num)
		cells_right(&t->cl, "total", c.num);
	if (c.pct)
		cells_right(&t->cl, "total%", c.pct);
	if (c.num)
		cells_right(&t->cl, "self", c.num);
	if (c.pct)
		cells_right(&t->cl, "self%", c.pct);
	/* a further metric's columns: its name over its total (right-aligned as the numbers,
	 * a space before it; a longer name cut with an ellipsis), "%" over its share */
	for (uint32_t k = 1; k < c.nm; k++) {
		const char *n = pv_view_metric_name(v, k, name, sizeof(name));
		int wn = c.num ? c.num : c.pct;
		if (cells_width(n) <= wn - 1) {
			cells_right(&t->cl, n, wn);
		} else {
			int col0 = t->cl.col;
			cells_puts(&t->cl, " ");
			cells_put(&t->cl, n, SIZE_MAX, wn - 2);
			cells_pad(&t->cl, col0 + wn - 1);
			cells_puts(&t->cl, t->o.ascii ? "~" : "\u2026");
		}
		if (c.num && c.pct)
			cells_right(&t->cl, "%", c.pct);
	}
	cells_puts(&t->cl, "  ");
	char b[200];
	snprintf(b, sizeof(b), "name  (%s", tui_metric_title(v, 0, name, sizeof(name)));
	cells_puts(&t->cl, b);
	if (v->nr_metrics > c.nm) {
		snprintf(b, sizeof(b), "; %u more metrics: wider", v->nr_metrics - c.nm);
		cells_puts(&t->cl, b);
	}
	cells_puts(&t->cl, ")");
	tui_emit(t, y, TUI_ROLE_BAR);
}

static bool in_center(const struct pv_view *v, const struct vrow *vr)
{
	if (vr->t)
		return vr->t->kind[vr->r] == PV_ROW_CENTER;
	return v->flat->in_center && v->flat->in_center[vr->r];
}

static void tui_view_body(struct tui *t, int y0, int rows)
{
	tui_ensure_view(t, t->tab);
	struct pane *pn = tui_cur_pane(t);
	if (!pn->v) {
		tui_text_line(t, y0, TUI_ROLE_TEXT, pn->err ? pn->err : "no view");
		return;
	}
	const struct pv_view *v = pn->v;
	struct cols c = cols_of(t, t->w, v);
	cost_titles(t, v, c, y0);
	rows--;
	y0++;
	uint32_t top = tui_scroll(&pn->top, pn->sel, pn->nrows, rows);
	char b[1024];
	if (!pn->nrows && rows > 0)
		tui_text_line(t, y0, TUI_ROLE_TEXT, " no samples in this view (Backspace: back)");
	for (int i = 0; i < rows && top + (uint32_t)i < pn->nrows; i++) {
		uint32_t li = top + (uint32_t)i;
		const struct vrow *vr = &pn->rows[li];
		bool sel = li == pn->sel;
		cells_start(&t->cl, t->w);
		cells_puts(&t->cl, sel ? ">" : " ");
		if (vr->r == PV_NONE) {
			snprintf(b, sizeof(b), "%s %s (%s)",
				 vr->title ? "callees of" : "callers of",
				 v->center_label ? v->center_label : "the center",
				 vr->title ? "top-down" : "bottom-up");
			cells_puts(&t->cl, b);
			tui_emit(t, y0 + i, TUI_ROLE_DIM);
			continue;
		}
		int depth = 0;
		const char *mark = "";
		if (vr->t) {
			cost_cols(t, v, c, vr->t->total, vr->t->self, vr->r);
			depth = (int)vr->t->depth[vr->r];
			bool has = vr->t->child_len[vr->r] > 0;
			bool op = has && pn->open[tree_ix(v, vr->t)][vr->r];
			mark = !has ? "  "
			       : op ? (t->o.ascii ? "- " : "\u25be ")
				    : (t->o.ascii ? "+ " : "\u25b8 ");
		} else {
			cost_cols(t, v, c, v->flat->total, v->flat->self, vr->r);
			depth = pv_view_kind(v->q.view)->list ? 0 : v->flat->level[vr->r];
		}
		/* indentation: two columns a level, at most half the name's room */
		int room = t->w - t->cl.col;
		int ind = depth * 2;
		if (ind > room / 2)
			ind = room / 2;
		cells_pad(&t->cl, t->cl.col + ind);
		cells_puts(&t->cl, mark);
		cells_puts(&t->cl, row_name(v, vr->t, vr->r, b, sizeof(b)));
		tui_emit(t, y0 + i,
			 sel		    ? TUI_ROLE_SELECTED
			 : in_center(v, vr) ? TUI_ROLE_CENTER
					    : TUI_ROLE_TEXT);
	}
}

static void tui_view_detail(struct tui *t, int y)
{
	struct pane *pn = tui_cur_pane(t);
	const struct vrow *vr = pn ? tui_sel_row(pn) : NULL;
	if (!vr) {
		tui_text_line(t, y, TUI_ROLE_DIM, "");
		return;
	}
	const struct pv_view *v = pn->v;
	uint8_t kind = vr->t ? vr->t->kind[vr->r] : v->flat->kind[vr->r];
	uint32_t id = vr->t ? vr->t->id[vr->r] : v->flat->id[vr->r];
	pv_module_ix m;
	pv_source_ix s;
	uint32_t l;
	pv_view_row_place(v, (enum pv_row_kind)kind, id, &m, &s, &l);
	char b[1024];
	cells_start(&t->cl, t->w);
	if (t->nums != PV_NUM_EXACT) { /* first, the exact values the columns round ('v') */
		int64_t *const *tot = vr->t ? vr->t->total : v->flat->total;
		int64_t *const *slf = vr->t ? vr->t->self : v->flat->self;
		char x[64], y2[64];
		pv_view_cost_text(v, 0, tot[0][vr->r], PV_NUM_EXACT, x, sizeof(x));
		pv_view_cost_text(v, 0, slf[0][vr->r], PV_NUM_EXACT, y2, sizeof(y2));
		snprintf(b, sizeof(b), "[total %s, self %s]  ", x, y2);
		cells_puts(&t->cl, b);
	}
	cells_puts(&t->cl, row_name(v, vr->t, vr->r, b, sizeof(b)));
	pv_func_ix fn = pv_view_row_function(v, (enum pv_row_kind)kind, id);
	if (fn != PV_NONE) { /* a line's or a loop's function */
		cells_puts(&t->cl, "  in ");
		cells_puts(&t->cl, pv_view_row_function_name(v, fn));
	}
	if (m != PV_NONE && *pv_str(t->p, t->p->modules.name[m])) {
		cells_puts(&t->cl, "  module ");
		cells_puts(&t->cl, pv_str(t->p, t->p->modules.name[m]));
	}
	if (s != PV_NONE && *pv_str(t->p, t->p->sources.path[s])) {
		cells_puts(&t->cl, "  ");
		b[0] = 0;
		if (l)
			snprintf(b, sizeof(b), ":%u", l);
		/* a long path cut in the middle: its file name and line stay */
		cells_path(&t->cl, pv_str(t->p, t->p->sources.path[s]),
			   t->w - t->cl.col - cells_width(b), t->o.ascii);
		cells_puts(&t->cl, b);
	}
	tui_emit(t, y, TUI_ROLE_DIM);
}

static void view_click(struct tui *t, int i, int x)
{
	(void)x;
	struct pane *pn = tui_cur_pane(t);
	uint32_t li = pn->top + (uint32_t)i;
	if (li < pn->nrows && pn->rows[li].r != PV_NONE)
		pn->sel = li;
}

/* Enter on '/': the next row whose name has the text; Esc: no search. */
static void view_search_end(struct tui *t, const char *text)
{
	snprintf(t->find, sizeof(t->find), "%s", text ? text : "");
	if (text)
		tui_find_next(t, tui_cur_pane(t), false);
}

const struct tab_ops tui_view_ops = {
    .key = tui_view_key,
    .body = tui_view_body,
    .click = view_click,
    .detail = tui_view_detail,
    .prompt = "/",
    .search_end = view_search_end,
};

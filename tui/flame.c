/*
 * flame.c - the top-down tab as a flame graph (state.h): `f` turns the tab's rows into an
 * icicle (the roots on top, each row's children below it, widths by total), drawn in cells
 * from libpv's flame builder (pv_flame_build: the nodes a width can show, the layout of the
 * page's flame tab). The selection is the tab's selected row, so every key on a row (c, i, d,
 * s, ...) works on the selected block; the arrows move between blocks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/format.h"
#include "pv/graphs.h"
#include "state.h"

void tui_flame_drop(struct fpane *f)
{
	pv_flame_free(f->fl);
	free(f->depth);
	free(f->c0);
	free(f->c1);
	free(f->parent);
	free(f->order);
	bool on = f->on;
	memset(f, 0, sizeof(*f));
	f->on = on;
}

/* The flame graph of the tab's view at the screen's width, built when either changed: each
 * node's depth (the virtual root 0), parent and columns [c0, c1). */
static struct fpane *ensure_flame(struct tui *t)
{
	struct fpane *f = &t->fl;
	struct pane *pn = &t->panes[T_TREE];
	tui_ensure_view(t, T_TREE);
	if (!pn->v)
		return NULL;
	if (f->fl && f->gen == pn->gen && f->w == t->w)
		return f;
	tui_flame_drop(f);
	f->gen = pn->gen;
	f->w = t->w;
	struct pv_flame_opts o = {.max_nodes = PV_FLAME_NODES, .width = (uint32_t)t->w};
	if (pv_flame_build(pn->v, &o, &f->fl))
		return NULL;
	const struct pv_flame *fl = f->fl;
	const struct pv_tree *tr = pn->v->tree;
	size_t n = fl->len ? fl->len : 1;
	f->depth = calloc(n, sizeof(*f->depth));
	f->c0 = calloc(n, sizeof(*f->c0));
	f->c1 = calloc(n, sizeof(*f->c1));
	f->parent = calloc(n, sizeof(*f->parent));
	f->order = calloc(n, sizeof(*f->order));
	uint32_t *st = malloc(sizeof(*st) * n);
	double *x = malloc(sizeof(*x) * n);
	if (!f->depth || !f->c0 || !f->c1 || !f->parent || !f->order || !st || !x || !fl->len) {
		free(st);
		free(x);
		tui_flame_drop(f);
		return NULL;
	}
	/* the whole width is the roots' total (a centered tree: the center's) */
	double whole = 0;
	for (uint32_t i = 0; i < tr->nr_roots; i++)
		whole += (double)tr->total[0][tr->roots[i]];
	double scale = whole > 0 ? (double)t->w / whole : 0;
	/* pre-order from the virtual root: a child starts where its previous sibling ended */
	uint32_t sp = 0;
	f->parent[0] = PV_NONE;
	x[0] = 0;
	f->c0[0] = 0;
	f->c1[0] = (uint32_t)t->w;
	st[sp++] = 0;
	uint32_t no = 0;
	while (sp) {
		uint32_t k = st[--sp];
		f->order[no++] = k;
		double cx = x[k];
		/* children in order: push them reversed so the first comes out first */
		uint32_t nc = 0;
		for (uint32_t c = fl->first[k]; c != PV_NONE; c = fl->next[c]) {
			double tot = (double)tr->total[0][fl->row[c]];
			f->parent[c] = k;
			f->depth[c] = f->depth[k] + 1;
			x[c] = cx;
			f->c0[c] = (uint32_t)(cx * scale + 0.5);
			cx += tot;
			f->c1[c] = (uint32_t)(cx * scale + 0.5);
			if (f->c1[c] > (uint32_t)t->w)
				f->c1[c] = (uint32_t)t->w;
			nc++;
		}
		sp += nc;
		uint32_t i = sp;
		for (uint32_t c = fl->first[k]; c != PV_NONE; c = fl->next[c])
			st[--i] = c;
		if (f->depth[k] > f->max_depth)
			f->max_depth = f->depth[k];
	}
	free(st);
	free(x);
	return f;
}

/* The node of the tab's selected row (or of its nearest kept ancestor); 0 when none. */
static uint32_t sel_node(struct tui *t, const struct fpane *f)
{
	const struct pane *pn = &t->panes[T_TREE];
	const struct vrow *vr = tui_sel_row(pn);
	const struct pv_tree *tr = pn->v->tree;
	for (uint32_t r = vr && vr->t == tr ? vr->r : PV_NONE; r != PV_NONE; r = tr->parent[r])
		for (uint32_t k = 1; k < f->fl->len; k++)
			if (f->fl->row[k] == r && f->c1[k] > f->c0[k])
				return k;
	return 0;
}

/* The drawn node next to k on its line: dir -1 the one before, +1 the one after. */
static uint32_t beside(const struct fpane *f, uint32_t k, int dir)
{
	uint32_t best = PV_NONE;
	for (uint32_t j = 1; j < f->fl->len; j++) {
		if (f->depth[j] != f->depth[k] || f->c1[j] <= f->c0[j] || j == k)
			continue;
		if (dir > 0 && f->c0[j] >= f->c1[k] && (best == PV_NONE || f->c0[j] < f->c0[best]))
			best = j;
		if (dir < 0 && f->c1[j] <= f->c0[k] && (best == PV_NONE || f->c0[j] > f->c0[best]))
			best = j;
	}
	return best;
}

bool tui_flame_key(struct tui *t, int key)
{
	struct fpane *f = ensure_flame(t);
	if (!f)
		return false;
	uint32_t k = sel_node(t, f), to = PV_NONE;
	switch (key) {
	case TUI_KEY_UP:
	case TUI_KEY_WHEEL_UP: to = k && f->parent[k] ? f->parent[k] : PV_NONE; break;
	case TUI_KEY_DOWN:
	case TUI_KEY_WHEEL_DOWN:
		to = f->fl->first[k];
		while (to != PV_NONE && f->c1[to] <= f->c0[to])
			to = f->fl->next[to];
		break;
	case TUI_KEY_LEFT:
	case TUI_KEY_RIGHT: to = k ? beside(f, k, key == TUI_KEY_RIGHT ? 1 : -1) : PV_NONE; break;
	case TUI_KEY_HOME: to = f->fl->first[0]; break;
	case TUI_KEY_PGUP:
	case TUI_KEY_PGDN:
	case TUI_KEY_END:
	case TUI_KEY_ENTER:
	case '*': return true; /* the rows' keys that a graph has no use for */
	default: return false;
	}
	if (to != PV_NONE && to != 0)
		tui_select_row(&t->panes[T_TREE], t->panes[T_TREE].v->tree, f->fl->row[to]);
	return true;
}

void tui_flame_body(struct tui *t, int y0, int rows)
{
	struct pane *pn = &t->panes[T_TREE];
	struct fpane *f = ensure_flame(t);
	if (!f) {
		tui_text_line(t, y0, TUI_ROLE_TEXT,
			      pn->err ? pn->err : "no flame graph (out of memory)");
		return;
	}
	const struct pv_view *v = pn->v;
	const struct pv_tree *tr = v->tree;
	char name[128], b[1024];
	cells_start(&t->cl, t->w);
	snprintf(b, sizeof(b), " flame graph (icicle): width = total (%s); f: the rows",
		 tui_metric_title(v, 0, name, sizeof(name)));
	cells_puts(&t->cl, b);
	tui_emit(t, y0, TUI_ROLE_BAR);
	rows--;
	y0++;
	if (!f->fl->first[0] || f->fl->first[0] == PV_NONE) {
		tui_text_line(t, y0, TUI_ROLE_TEXT, " no samples in this view (Backspace: back)");
		return;
	}
	uint32_t k = sel_node(t, f);
	/* the lines shown: depths top+1 .. top+rows, the selected block's line among them */
	uint32_t h = rows > 0 ? (uint32_t)rows : 1;
	if (f->depth[k] < f->top + 1)
		f->top = f->depth[k] ? f->depth[k] - 1 : 0;
	if (f->depth[k] > f->top + h)
		f->top = f->depth[k] - h;
	for (int i = 0; i < rows; i++) {
		uint32_t d = f->top + 1 + (uint32_t)i;
		if (d > f->max_depth)
			break;
		cells_start(&t->cl, t->w);
		for (uint32_t o = 1; o < f->fl->len; o++) {
			uint32_t j = f->order[o];
			if (f->depth[j] != d || f->c1[j] <= f->c0[j])
				continue;
			int wd = (int)(f->c1[j] - f->c0[j]);
			cells_pad(&t->cl, (int)f->c0[j]);
			const char *nm =
			    pv_view_row_label(v, tr->kind[f->fl->row[j]], tr->id[f->fl->row[j]], b,
					      sizeof(b), tr->line[f->fl->row[j]]);
			if (wd > 1) {
				cells_put(&t->cl, j == k ? ">" : "", SIZE_MAX, wd - 1);
				cells_put(&t->cl, nm, SIZE_MAX, (int)f->c1[j] - 1 - t->cl.col);
			}
			cells_pad(&t->cl, (int)f->c1[j] - 1);
			cells_puts(&t->cl, j == k ? (wd > 1 ? "]" : ">") : "|");
		}
		tui_emit(t, y0 + i, TUI_ROLE_TEXT);
	}
}

void tui_flame_click(struct tui *t, int i, int x)
{
	struct fpane *f = ensure_flame(t);
	if (!f || i < 1) /* line 0: the title */
		return;
	uint32_t d = f->top + (uint32_t)i;
	for (uint32_t j = 1; j < f->fl->len; j++)
		if (f->depth[j] == d && (uint32_t)x >= f->c0[j] && (uint32_t)x < f->c1[j])
			tui_select_row(&t->panes[T_TREE], t->panes[T_TREE].v->tree, f->fl->row[j]);
}

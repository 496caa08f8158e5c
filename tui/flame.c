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
	f->fl = NULL;
	f->depth = f->c0 = f->c1 = f->parent = f->order = NULL;
	f->w = 0;
	f->max_depth = f->top = 0;
}

/* Each node's parent and the nodes in pre-order (by column on each line), from the flame's
 * child lists. */
static void walk(struct fpane *f, uint32_t *st)
{
	const struct pv_flame *fl = f->fl;
	uint32_t sp = 0, no = 0;
	f->parent[0] = PV_NONE;
	st[sp++] = 0;
	while (sp) {
		uint32_t k = st[--sp];
		f->order[no++] = k;
		if (f->depth[k] > f->max_depth)
			f->max_depth = f->depth[k];
		/* children in order: push them reversed so the first comes out first */
		uint32_t nc = 0;
		for (uint32_t c = fl->first[k]; c != PV_NONE; c = fl->next[c]) {
			f->parent[c] = k;
			nc++;
		}
		sp += nc;
		uint32_t i = sp;
		for (uint32_t c = fl->first[k]; c != PV_NONE; c = fl->next[c])
			st[--i] = c;
	}
}

/* The flame graph of the tab's view at the screen's width (zoomed into the last row of the
 * zoom list), built when either changed: each node's depth (the virtual root 0), parent and
 * columns [c0, c1) as libpv lays them out (pv_flame_layout). */
static struct fpane *ensure_flame(struct tui *t)
{
	struct fpane *f = &t->fl;
	struct pane *pn = &t->panes[t->tree_tab];
	tui_ensure_view(t, t->tree_tab);
	if (!pn->v)
		return NULL;
	if (f->fl && f->gen == pn->gen && f->w == t->w)
		return f;
	if (f->gen != pn->gen) /* another view: its rows are others */
		f->nzoom = 0;
	tui_flame_drop(f);
	f->gen = pn->gen;
	f->w = t->w;
	struct pv_flame_opts o = {.max_nodes = PV_FLAME_NODES, .width = (uint32_t)t->w};
	int rc = f->nzoom ? pv_flame_build_zoomed(pn->v, &o, f->zoom[f->nzoom - 1], &f->fl)
			  : pv_flame_build(pn->v, &o, &f->fl);
	if (rc)
		return NULL;
	size_t n = f->fl->len ? f->fl->len : 1;
	f->depth = calloc(n, sizeof(*f->depth));
	f->c0 = calloc(n, sizeof(*f->c0));
	f->c1 = calloc(n, sizeof(*f->c1));
	f->parent = calloc(n, sizeof(*f->parent));
	f->order = calloc(n, sizeof(*f->order));
	uint32_t *st = malloc(sizeof(*st) * n);
	if (!f->depth || !f->c0 || !f->c1 || !f->parent || !f->order || !st || !f->fl->len ||
	    pv_flame_layout(f->fl, (uint32_t)t->w, f->c0, f->c1, f->depth)) {
		free(st);
		tui_flame_drop(f);
		return NULL;
	}
	walk(f, st);
	free(st);
	return f;
}

/* The node of the tab's selected row (or of its nearest kept ancestor); 0 when none. */
static uint32_t sel_node(struct tui *t, const struct fpane *f)
{
	const struct pane *pn = &t->panes[t->tree_tab];
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

/* Enter: node k's row fills the width (its ancestors above it, its descendants below). */
static void zoom_in(struct tui *t, struct fpane *f, uint32_t k)
{
	if (!k || k == f->fl->zoom) {
		tui_say(t, k ? "zoomed into it already (Esc: out)" : "select a block to zoom into");
		return;
	}
	if (f->nzoom == ZOOM_MAX) {
		memmove(f->zoom, f->zoom + 1, sizeof(f->zoom[0]) * (ZOOM_MAX - 1));
		f->nzoom--;
	}
	f->zoom[f->nzoom++] = f->fl->row[k];
	tui_flame_drop(f);
}

/* Esc, Backspace: the zoom before; false when not zoomed (the key goes on). */
static bool zoom_out(struct tui *t)
{
	struct fpane *f = &t->fl;
	if (!f->nzoom)
		return false;
	f->nzoom--;
	tui_flame_drop(f);
	tui_say(t, f->nzoom ? "zoomed out (Esc: out again)" : "zoomed out: the whole graph");
	return true;
}

static bool flame_key(struct tui *t, int key)
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
	case TUI_KEY_ENTER: zoom_in(t, f, k); return true;
	case TUI_KEY_ESC:
	case TUI_KEY_BACKSPACE: return zoom_out(t);
	case TUI_KEY_PGUP:
	case TUI_KEY_PGDN:
	case TUI_KEY_END:
	case '*': return true; /* the rows' keys that a graph has no use for */
	default: return false;
	}
	if (to != PV_NONE && to != 0)
		tui_select_row(&t->panes[t->tree_tab], t->panes[t->tree_tab].v->tree,
			       f->fl->row[to]);
	return true;
}

/* Node j's block in its columns: its name as far as it fits (a cut one ends in an ellipsis,
 * '~' when ascii; none in a block of one column), then its right edge ('|', the selected
 * one's "]", its name after '>'). */
static void box(struct tui *t, const struct fpane *f, uint32_t j, bool sel)
{
	const struct pv_view *v = t->panes[t->tree_tab].v;
	const struct pv_tree *tr = v->tree;
	uint32_t r = f->fl->row[j];
	int wd = (int)(f->c1[j] - f->c0[j]);
	char b[1024];
	cells_pad(&t->cl, (int)f->c0[j]);
	if (wd > 1) {
		const char *nm =
		    pv_view_row_label(v, tr->kind[r], tr->id[r], b, sizeof(b), tr->line[r]);
		int room = wd - 1 - (sel ? 1 : 0);
		cells_puts(&t->cl, sel ? ">" : "");
		if (cells_width(nm) <= room || room < 2) {
			cells_put(&t->cl, nm, SIZE_MAX, room);
		} else {
			cells_put(&t->cl, nm, SIZE_MAX, room - 1);
			cells_pad(&t->cl, (int)f->c1[j] - 2);
			cells_puts(&t->cl, t->o.ascii ? "~" : "\u2026");
		}
	}
	cells_pad(&t->cl, (int)f->c1[j] - 1);
	cells_puts(&t->cl, sel ? (wd > 1 ? "]" : ">") : "|");
}

static void flame_body(struct tui *t, int y0, int rows)
{
	struct pane *pn = &t->panes[t->tree_tab];
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
	if (f->fl->zoom) { /* the zoom first: a long name cuts the rest */
		uint32_t zr = f->fl->row[f->fl->zoom];
		char z[256];
		snprintf(b, sizeof(b),
			 " zoomed into %s (Esc: out): width = total (%s); f: the rows",
			 pv_view_row_label(v, tr->kind[zr], tr->id[zr], z, sizeof(z), tr->line[zr]),
			 tui_metric_title(v, 0, name, sizeof(name)));
	} else {
		snprintf(b, sizeof(b), " flame graph (icicle): width = total (%s); f: the rows",
			 tui_metric_title(v, 0, name, sizeof(name)));
	}
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
			if (f->depth[j] == d && f->c1[j] > f->c0[j])
				box(t, f, j, j == k);
		}
		tui_emit(t, y0 + i, TUI_ROLE_TEXT);
	}
}

/* A click on line i of the body (0: the title), column x. */
static void flame_click(struct tui *t, int i, int x)
{
	struct fpane *f = ensure_flame(t);
	if (!f || i < 1) /* line 0: the title */
		return;
	uint32_t d = f->top + (uint32_t)i;
	for (uint32_t j = 1; j < f->fl->len; j++)
		if (f->depth[j] == d && (uint32_t)x >= f->c0[j] && (uint32_t)x < f->c1[j])
			tui_select_row(&t->panes[t->tree_tab], t->panes[t->tree_tab].v->tree,
				       f->fl->row[j]);
}

/*
 * The top-down tab's callbacks: the view pane's (tui_view_ops), the flame graph's while it is
 * shown ('f'): the arrows and Home on the graph's blocks, Enter zooms into the selected one, Esc
 * and Backspace zoom out (when zoomed), the other keys are the rows'.
 */
static bool tree_grab(struct tui *t, int key)
{
	return (key == TUI_KEY_ESC || key == TUI_KEY_BACKSPACE) && t->fl.on && flame_key(t, key);
}

static void tree_key(struct tui *t, int key)
{
	tui_ensure_view(t, t->tab);
	if (!t->fl.on || !flame_key(t, key))
		tui_view_ops.key(t, key);
}

static void tree_body(struct tui *t, int y0, int rows)
{
	tui_ensure_view(t, t->tab);
	if (t->fl.on && t->panes[t->tab].v)
		flame_body(t, y0, rows);
	else
		tui_view_ops.body(t, y0, rows);
}

static void tree_click(struct tui *t, int i, int x)
{
	if (t->fl.on)
		flame_click(t, i + 1, x);
	else
		tui_view_ops.click(t, i, x);
}

static void tree_detail(struct tui *t, int y)
{
	tui_view_ops.detail(t, y);
}

static void tree_search_end(struct tui *t, const char *text)
{
	tui_view_ops.search_end(t, text);
}

const struct tab_ops tui_tree_ops = {
    .grab = tree_grab,
    .key = tree_key,
    .body = tree_body,
    .click = tree_click,
    .detail = tree_detail,
    .prompt = "/",
    .search_end = tree_search_end,
};

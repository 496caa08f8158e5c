/*
 * tui.c - the TUI's state machine and its screen as text (tui.h, doc/tui.md).
 *
 * The state is the query (with its history), the tab, and per tab what the page keeps: the
 * open rows and the selection of each tree (by row key, pv/rows.h, so they survive a new
 * query), the marker search and selection, the source file and line. A view is computed by
 * libpv when its tab is shown after the query changed; the screen lists only the rows of open
 * parents, so a key costs the rows on screen, and a query change one pv_view_compute.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cells.h"
#include "pv/format.h"
#include "pv/graphs.h"
#include "pv/marker.h"
#include "pv/rows.h"
#include "pv/source.h"
#include "pv/view.h"
#include "tui.h"

#define SOURCE_MAX  (64u << 20) /* bytes of a source file shown, at most */
#define EXPAND_MAX  20000	/* rows '*' opens at once, at most */
#define HISTORY_MAX 256		/* queries Backspace goes back through */
#define HOT_MAX	    4096	/* rows of a hot path */

enum tab { T_TREE, T_CALLERS, T_BUTTERFLY, T_FLAT, T_TOP, T_MARKERS, T_SOURCE, NR_TABS };
static const char *const tab_names[NR_TABS] = {"top-down", "bottom-up", "butterfly", "flat",
					       "top",	   "markers",	"source"};
static const enum pv_view_kind tab_view[T_MARKERS] = {PV_VIEW_TREE, PV_VIEW_CALLERS,
						      PV_VIEW_BUTTERFLY, PV_VIEW_FLAT, PV_VIEW_TOP};

/* A line of a view's list: a row of a tree (t), of the flat rows (t NULL), or a section title
 * (t NULL, r PV_NONE, title 0 callers / 1 callees). */
struct vrow {
	const struct pv_tree *t;
	uint32_t r;
	uint8_t title;
};

struct strs {
	char **s;
	uint32_t n, cap;
};

struct pane {
	struct pv_view *v;
	struct pv_row_namer *nm;
	uint32_t gen;	  /* the query generation v is of (0: none yet) */
	char *err;	  /* why there is no view */
	uint8_t *open[2]; /* per row of v->tree, v->callers */
	struct vrow *rows;
	uint32_t nrows, cap;
	uint32_t sel, top;
	/* what to restore in the next view: keys of open rows, the selected row's key */
	struct strs keep;
	char *sel_key;
};

struct mpane {
	struct pv_markers *ms;
	char *err;
	char *search;
	uint32_t gen;
	uint32_t *idx, n;
	uint32_t sel, top;
	int64_t want; /* a marker to select when the table is made, -1 */
	struct pv_marker_detail d;
};

struct spane {
	pv_source_ix id; /* PV_NONE: no file */
	uint32_t want_line;
	char *text;
	size_t len;
	uint32_t *off, nlines; /* line k (1-based) starts at off[k - 1] */
	char *err;
	uint32_t gen;
	struct pv_source_costs *sc;
	uint32_t *center, ncenter;
	enum pv_unit unit; /* of the costs */
	uint32_t sel, top; /* 0-based line index */
};

enum mode { M_NORMAL, M_INPUT, M_HELP, M_QUERY };

struct tui {
	struct tui_opts o;
	const struct pv_profile *p;
	int w, h;
	struct pv_query q;
	struct pv_query hist[HISTORY_MAX];
	uint32_t nhist;
	uint32_t gen;
	enum tab tab;
	struct pane panes[T_MARKERS];
	struct mpane mk;
	struct spane src;
	enum mode mode;
	char input[256]; /* the text being typed after '/' */
	char find[256];	 /* the trees' search */
	char msg[256];	 /* one line for the status bar until the next key */
	/* the activity graph, per shown thread: its name and one glyph per column; of the query
	 * without its center (act_q), so moving the center does not compute it again */
	struct pv_query act_q;
	bool act_valid;
	uint32_t act_w, act_n;
	char **act_line;
	/* layout of the last screen */
	int body_y, body_h;
	struct tui_screen scr;
	struct cells cl;
};

/* ---- small helpers ---- */

static void say(struct tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct tui *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof(t->msg), fmt, ap);
	va_end(ap);
}

static void strs_clear(struct strs *s)
{
	for (uint32_t i = 0; i < s->n; i++)
		free(s->s[i]);
	s->n = 0;
}

static void strs_add(struct strs *s, const char *x)
{
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 16;
		char **g = realloc(s->s, sizeof(*g) * cap);
		if (!g)
			return;
		s->s = g;
		s->cap = cap;
	}
	char *d = strdup(x);
	if (d)
		s->s[s->n++] = d;
}

static const char *row_name(const struct pv_view *v, const struct pv_tree *t, uint32_t r, char *buf,
			    size_t n)
{
	if (t)
		return pv_view_row_name(v, t->kind[r], t->id[r], buf, n, t->line[r]);
	return pv_view_row_name(v, v->flat->kind[r], v->flat->id[r], buf, n, v->flat->line[r]);
}

/* ---- views ---- */

static struct pane *cur_pane(struct tui *t)
{
	return t->tab < T_MARKERS ? &t->panes[t->tab] : NULL;
}

static int tree_ix(const struct pv_view *v, const struct pv_tree *tr)
{
	return tr == v->callers ? 1 : 0;
}

/* Keeps what the next view of the pane should show again: open rows and the selection. */
static void pane_keep(struct pane *pn)
{
	if (!pn->v)
		return;
	strs_clear(&pn->keep);
	const struct pv_tree *trees[2] = {pn->v->tree, pn->v->callers};
	for (int k = 0; k < 2; k++)
		for (uint32_t r = 0; trees[k] && pn->open[k] && r < trees[k]->len; r++)
			if (pn->open[k][r]) {
				const char *key = pv_row_key(pn->nm, trees[k], r);
				if (key)
					strs_add(&pn->keep, key);
			}
	free(pn->sel_key);
	pn->sel_key = NULL;
	if (pn->sel < pn->nrows && pn->rows[pn->sel].r != PV_NONE) {
		const char *key = pv_row_key(pn->nm, pn->rows[pn->sel].t, pn->rows[pn->sel].r);
		pn->sel_key = key ? strdup(key) : NULL;
	}
}

static void pane_drop(struct pane *pn)
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

static void select_row(struct pane *pn, const struct pv_tree *tr, uint32_t r)
{
	reveal(pn, tr, r);
	build_rows(pn);
	uint32_t i = find_line(pn, tr, r);
	if (i != PV_NONE)
		pn->sel = i;
}

/* The pane's view of the current query, computed when the query changed. */
static void ensure_view(struct tui *t, enum tab tab)
{
	struct pane *pn = &t->panes[tab];
	if (pn->gen == t->gen)
		return;
	pane_drop(pn);
	pn->gen = t->gen;
	struct pv_query q;
	pv_query_init(&q);
	struct pv_error err;
	pv_error_clear(&err);
	int rc = pv_query_copy(&q, &t->q);
	q.view = tab_view[tab];
	if (!rc && pv_view_kind(q.view)->needs_center && !q.nr_center) {
		pn->err = strdup("the butterfly needs a center: press c on a row of another tab");
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
			select_row(pn, ref.tree, ref.row);
		else
			pn->sel = ref.row;
	}
	while (pn->sel + 1 < pn->nrows && pn->rows[pn->sel].r == PV_NONE)
		pn->sel++;
}

/* ---- the query and its history ---- */

static void query_changed(struct tui *t)
{
	for (int k = 0; k < T_MARKERS; k++)
		pane_keep(&t->panes[k]);
	t->gen++;
}

/* Makes nq (owned: moved in) the query; the old one goes to the history. */
static void push_query(struct tui *t, struct pv_query *nq)
{
	if (t->nhist == HISTORY_MAX) {
		pv_query_release(&t->hist[0]);
		memmove(t->hist, t->hist + 1, sizeof(t->hist[0]) * (HISTORY_MAX - 1));
		t->nhist--;
	}
	t->hist[t->nhist++] = t->q;
	t->q = *nq;
	query_changed(t);
}

static bool new_query(struct tui *t, struct pv_query *nq)
{
	pv_query_init(nq);
	if (pv_query_copy(nq, &t->q)) {
		pv_query_release(nq);
		say(t, "out of memory");
		return false;
	}
	return true;
}

static void add_filter(struct tui *t, enum pv_filter_kind k, const char *arg)
{
	struct pv_query nq;
	if (!new_query(t, &nq))
		return;
	if (pv_query_add_filter(&nq, k, arg)) {
		pv_query_release(&nq);
		say(t, "too many filters");
		return;
	}
	push_query(t, &nq);
	say(t, "%s %s", pv_filter_name(k), arg);
}

static void set_center(struct tui *t, const char *scope, bool add)
{
	struct pv_query nq;
	if (!new_query(t, &nq))
		return;
	if (!add) {
		for (uint32_t i = 0; i < nq.nr_center; i++)
			free(nq.center[i]);
		nq.nr_center = 0;
	}
	if (pv_query_add_center(&nq, scope)) {
		pv_query_release(&nq);
		say(t, "too many centers");
		return;
	}
	push_query(t, &nq);
	say(t, "center %s", scope);
}

static void back(struct tui *t)
{
	if (!t->nhist) {
		say(t, "no earlier query");
		return;
	}
	pv_query_release(&t->q);
	t->q = t->hist[--t->nhist];
	query_changed(t);
	say(t, "back");
}

/* ---- keys on a view's rows ---- */

static uint32_t page_rows(const struct tui *t)
{
	return t->body_h > 1 ? (uint32_t)t->body_h - 1 : 1;
}

/* The move a key makes in a list of n rows (arrows, pages, Home/End, the wheel); 0 for a key
 * that does not move. */
static int64_t move_delta(const struct tui *t, int key, uint32_t n)
{
	switch (key) {
	case TUI_KEY_UP: return -1;
	case TUI_KEY_DOWN: return 1;
	case TUI_KEY_PGUP: return -(int64_t)page_rows(t);
	case TUI_KEY_PGDN: return page_rows(t);
	case TUI_KEY_HOME: return -(int64_t)n;
	case TUI_KEY_END: return n;
	case TUI_KEY_WHEEL_UP: return -3;
	case TUI_KEY_WHEEL_DOWN: return 3;
	default: return 0;
	}
}

/* sel moved by d, kept within the n rows (0 when there are none). */
static uint32_t clamp_sel(uint32_t sel, int64_t d, uint32_t n)
{
	int64_t i = (int64_t)sel + d;
	return n ? (uint32_t)(i < 0 ? 0 : i >= n ? n - 1 : i) : 0;
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

static const struct vrow *sel_row(const struct pane *pn)
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
		say(t, "opened %u rows (at most %u at once)", opened, EXPAND_MAX);
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
		select_row(pn, tr, rows[n - 1]);
	say(t, "hot path: %u rows", n);
	free(rows);
}

static void open_source(struct tui *t, const struct pv_view *v, uint8_t kind, uint32_t id,
			uint32_t line)
{
	pv_module_ix m;
	pv_source_ix s;
	uint32_t l;
	pv_view_row_place(v, (enum pv_row_kind)kind, id, &m, &s, &l);
	if (s == PV_NONE || !*pv_str(t->p, t->p->sources.path[s])) {
		say(t, "no source file for this row");
		return;
	}
	if (t->src.id != s) {
		free(t->src.text);
		free(t->src.off);
		free(t->src.err);
		t->src.text = NULL;
		t->src.off = NULL;
		t->src.err = NULL;
		t->src.nlines = 0;
		t->src.gen = 0;
	}
	t->src.id = s;
	t->src.want_line = line ? line : l;
	t->tab = T_SOURCE;
}

static bool row_key(struct tui *t, struct pane *pn, int key)
{
	const struct vrow *vr = sel_row(pn);
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
			say(t, "no scope names this row");
			return true;
		}
		copy = strdup(scope);
		if (!copy)
			return true;
		if (key == 'c' || key == 'C')
			set_center(t, copy, key == 'C');
		else
			add_filter(t,
				   key == 'i'	? PV_FILTER_INCLUDE
				   : key == 'd' ? PV_FILTER_DROP
				   : key == 'm' ? PV_FILTER_MERGE
						: PV_FILTER_COLLAPSE_RECURSION,
				   copy);
		free(copy);
		return true;
	case 'p':
		scope = pv_row_path(pn->nm, vr->t, vr->r);
		if (!scope) {
			say(t, "no path: names this row (a top-down function row has one)");
			return true;
		}
		copy = strdup(scope);
		if (copy)
			set_center(t, copy, false);
		free(copy);
		return true;
	case 'M': {
		pv_module_ix m;
		pv_source_ix s;
		uint32_t l;
		pv_view_row_place(v, (enum pv_row_kind)kind, id, &m, &s, &l);
		if (m == PV_NONE || !*pv_str(t->p, t->p->modules.name[m])) {
			say(t, "no module for this row");
			return true;
		}
		copy = strdup(pv_str(t->p, t->p->modules.name[m]));
		if (copy)
			add_filter(t, PV_FILTER_COLLAPSE_MODULE, copy);
		free(copy);
		return true;
	}
	case 'h':
		if (!vr->t)
			say(t, "the hot path is a tree's");
		else
			hot_path(t, pn, vr);
		return true;
	case 's': open_source(t, v, kind, id, line); return true;
	default: return false;
	}
}

static void find_next(struct tui *t, struct pane *pn, bool backward)
{
	if (!pn->v || !t->find[0])
		return;
	const struct vrow *vr = sel_row(pn);
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
		say(t, "no row matches '%s'", t->find);
		return;
	}
	if (tr)
		select_row(pn, tr, r);
	else
		pn->sel = r;
	say(t, "/%s", t->find);
}

static void view_key(struct tui *t, int key)
{
	ensure_view(t, t->tab);
	struct pane *pn = cur_pane(t);
	const struct vrow *vr = sel_row(pn);
	uint8_t *open = vr && vr->t ? pn->open[tree_ix(pn->v, vr->t)] : NULL;
	int64_t d = move_delta(t, key, pn->nrows);
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
	case 'n': find_next(t, pn, false); return;
	case 'N': find_next(t, pn, true); return;
	default: row_key(t, pn, key); return;
	}
}

/* ---- markers ---- */

static void ensure_markers(struct tui *t)
{
	struct mpane *mp = &t->mk;
	if (mp->gen == t->gen || !mp->ms)
		return;
	mp->gen = t->gen;
	pv_free_indexes(mp->idx);
	mp->idx = NULL;
	mp->n = 0;
	free(mp->err);
	mp->err = NULL;
	struct pv_marker_search *s = NULL;
	pv_thread_ix *th = NULL;
	uint32_t nth = 0;
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_marker_select sel = {.order = PV_MARKERS_BY_START};
	int rc = pv_marker_search_new(mp->search ? mp->search : "", &s);
	if (!rc)
		rc = pv_thread_select(t->p, (const char *const *)t->q.threads, t->q.nr_threads, &th,
				      &nth, &err);
	if (!rc) {
		sel.search = s;
		sel.threads = t->q.nr_threads ? th : NULL;
		sel.nr_threads = t->q.nr_threads ? nth : 0;
		sel.has_range = t->q.has_range;
		sel.range_start_ns = t->q.range_start_ns;
		sel.range_end_ns = t->q.range_end_ns;
		rc = pv_marker_select(mp->ms, &sel, &mp->idx, &mp->n);
	}
	if (rc)
		mp->err = strdup(rc == PV_ENOMEM ? "out of memory"
				 : err.msg[0]	 ? err.msg
						 : "no such thread");
	free(th);
	pv_marker_search_free(s);
	if (mp->want >= 0) {
		for (uint32_t k = 0; k < mp->n; k++)
			if (mp->idx[k] == (uint32_t)mp->want)
				mp->sel = k;
		mp->want = -1;
	}
	if (mp->sel >= mp->n)
		mp->sel = mp->n ? mp->n - 1 : 0;
}

static void set_search(struct tui *t, const char *text)
{
	free(t->mk.search);
	t->mk.search = strdup(text);
	t->mk.gen = 0;
	t->mk.sel = 0;
}

static void marker_key(struct tui *t, int key)
{
	ensure_markers(t);
	struct mpane *mp = &t->mk;
	int64_t d = move_delta(t, key, mp->n);
	if (d) {
		mp->sel = clamp_sel(mp->sel, d, mp->n);
		return;
	}
	if (!mp->n)
		return;
	uint32_t m = mp->idx[mp->sel];
	if (key == TUI_KEY_ENTER) { /* the marker's interval becomes the range */
		if (mp->ms->end_ns[m] == PV_TIME_NONE || mp->ms->end_ns[m] <= mp->ms->start_ns[m]) {
			say(t, "marker %u has no duration", m);
			return;
		}
		struct pv_query nq;
		if (!new_query(t, &nq))
			return;
		nq.has_range = true;
		nq.range_start_ns = mp->ms->start_ns[m];
		nq.range_end_ns = mp->ms->end_ns[m];
		mp->want = m;
		push_query(t, &nq);
		say(t, "range of marker %u (%s)", m, mp->ms->name[m]);
	} else if (key == 'c' || key == 'C') { /* its cause stack becomes the center */
		struct sbuf scope = SBUF_INIT;
		int rc = pv_marker_cause_scope(mp->ms, m, &scope);
		if (rc == 0)
			say(t, "marker %u has no cause stack", m);
		else if (rc < 0)
			say(t, "out of memory");
		else {
			mp->want = m;
			set_center(t, sbuf_str(&scope), key == 'C');
			t->tab = T_TREE;
		}
		sbuf_release(&scope);
	}
}

/* ---- source ---- */

static void ensure_source(struct tui *t)
{
	struct spane *sp = &t->src;
	if (sp->id == PV_NONE)
		return;
	if (!sp->text && !sp->err) {
		const char *path = pv_str(t->p, t->p->sources.path[sp->id]);
		if (pv_source_read(path, t->o.roots, t->o.nr_roots, SOURCE_MAX, &sp->text,
				   &sp->len)) {
			char b[512];
			snprintf(b, sizeof(b), "cannot read source file '%s'", path);
			sp->err = strdup(b);
			return;
		}
		uint32_t n = 1;
		for (size_t i = 0; i < sp->len; i++)
			n += sp->text[i] == '\n' && i + 1 < sp->len;
		sp->off = malloc(sizeof(*sp->off) * n);
		if (!sp->off) {
			sp->err = strdup("out of memory");
			return;
		}
		sp->nlines = 0;
		sp->off[sp->nlines++] = 0;
		for (size_t i = 0; i < sp->len; i++)
			if (sp->text[i] == '\n' && i + 1 < sp->len)
				sp->off[sp->nlines++] = (uint32_t)(i + 1);
	}
	if (sp->want_line) {
		sp->sel = sp->want_line <= sp->nlines ? sp->want_line - 1 : 0;
		sp->top = sp->sel > 3 ? sp->sel - 3 : 0;
		sp->want_line = 0;
	}
	if (sp->gen == t->gen)
		return;
	sp->gen = t->gen;
	pv_source_costs_free(sp->sc);
	sp->sc = NULL;
	free(sp->center);
	sp->center = NULL;
	sp->ncenter = 0;
	/* per-line costs: the query as a list at line granularity (what the page asks) */
	struct pv_query q;
	pv_query_init(&q);
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_view *v = NULL;
	int rc = pv_query_copy(&q, &t->q);
	q.view = PV_VIEW_TOP;
	q.by = PV_BY_LINE;
	if (!rc)
		rc = pv_view_compute(t->p, &q, &v, &err);
	if (!rc) {
		sp->unit = pv_view_metric_unit(v, 0);
		rc = pv_source_costs(v, sp->id, sp->nlines, &sp->sc);
	}
	if (!rc)
		pv_source_center_lines(t->p, &q, sp->id, &sp->center, &sp->ncenter);
	if (rc)
		say(t, "%s", rc == PV_ENOMEM ? "out of memory" : err.msg);
	pv_view_free(v);
	pv_query_release(&q);
}

static void source_key(struct tui *t, int key)
{
	ensure_source(t);
	struct spane *sp = &t->src;
	int64_t d = move_delta(t, key, sp->nlines);
	if (d)
		sp->sel = clamp_sel(sp->sel, d, sp->nlines);
}

/* ---- keys ---- */

static void start_input(struct tui *t)
{
	t->mode = M_INPUT;
	snprintf(t->input, sizeof(t->input), "%s",
		 t->tab == T_MARKERS ? (t->mk.search ? t->mk.search : "") : "");
}

static void utf8_append(char *buf, size_t cap, int cp)
{
	char b[5];
	size_t n;
	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	size_t len = strlen(buf);
	if (len + n < cap) {
		memcpy(buf + len, b, n);
		buf[len + n] = 0;
	}
}

static void input_key(struct tui *t, int key)
{
	size_t len = strlen(t->input);
	if (key == TUI_KEY_ESC) {
		t->mode = M_NORMAL;
		if (t->tab != T_MARKERS)
			t->find[0] = 0;
		return;
	}
	if (key == TUI_KEY_ENTER) {
		t->mode = M_NORMAL;
		if (t->tab == T_MARKERS) {
			set_search(t, t->input);
		} else if (t->tab < T_MARKERS) {
			snprintf(t->find, sizeof(t->find), "%s", t->input);
			find_next(t, cur_pane(t), false);
		}
		return;
	}
	if (key == TUI_KEY_BACKSPACE) {
		while (len > 0 && ((unsigned char)t->input[len - 1] & 0xc0) == 0x80)
			len--; /* a whole UTF-8 character */
		if (len > 0)
			len--;
		t->input[len] = 0;
	} else if (key >= 0x20 && key < 0x110000 && key != 0x7f) {
		utf8_append(t->input, sizeof(t->input), key);
	} else {
		return;
	}
	if (t->tab == T_MARKERS) /* the table follows the search as it is typed */
		set_search(t, t->input);
}

bool tui_key(struct tui *t, int key)
{
	t->msg[0] = 0;
	if (t->mode == M_INPUT) {
		input_key(t, key);
		return false;
	}
	if (t->mode == M_HELP || t->mode == M_QUERY) {
		t->mode = M_NORMAL;
		return key == 'q' ? false : false;
	}
	switch (key) {
	case 'q': return true;
	case '?': t->mode = M_HELP; return false;
	case 'u': t->mode = M_QUERY; return false;
	case '/': start_input(t); return false;
	case TUI_KEY_BACKSPACE: back(t); return false;
	case TUI_KEY_TAB: t->tab = (t->tab + 1) % NR_TABS; return false;
	case TUI_KEY_BTAB: t->tab = (t->tab + NR_TABS - 1) % NR_TABS; return false;
	case TUI_KEY_ESC: return false;
	default: break;
	}
	if (key >= '1' && key < '1' + NR_TABS) {
		t->tab = (enum tab)(key - '1');
		return false;
	}
	if (t->tab < T_MARKERS)
		view_key(t, key);
	else if (t->tab == T_MARKERS)
		marker_key(t, key);
	else
		source_key(t, key);
	return false;
}

/* ---- the screen ---- */

static void emit(struct tui *t, int y, enum tui_role role)
{
	if (y < 0 || y >= t->h)
		return;
	char *s = cells_end(&t->cl);
	free(t->scr.line[y]);
	t->scr.line[y] = s ? s : strdup("");
	t->scr.role[y] = (uint8_t)role;
}

static void text_line(struct tui *t, int y, enum tui_role role, const char *s)
{
	cells_start(&t->cl, t->w);
	cells_puts(&t->cl, s);
	emit(t, y, role);
}

static void tab_bar(struct tui *t)
{
	/* every tab named when they fit, else the other tabs by number only */
	int full = 0;
	for (int k = 0; k < NR_TABS; k++)
		full += 4 + (int)strlen(tab_names[k]);
	cells_start(&t->cl, t->w);
	for (int k = 0; k < NR_TABS; k++) {
		char b[64];
		if (k == (int)t->tab)
			snprintf(b, sizeof(b), "[%d %s]", k + 1, tab_names[k]);
		else if (full <= t->w)
			snprintf(b, sizeof(b), " %d %s ", k + 1, tab_names[k]);
		else
			snprintf(b, sizeof(b), " %d ", k + 1);
		cells_puts(&t->cl, b);
	}
	emit(t, 0, TUI_ROLE_BAR);
}

static void query_line(struct tui *t)
{
	char *args = pv_query_to_args(&t->q);
	cells_start(&t->cl, t->w);
	cells_puts(&t->cl, "query: ");
	cells_puts(&t->cl, args && *args ? args : "(the whole profile)");
	free(args);
	emit(t, 1, TUI_ROLE_DIM);
}

/* The activity graph: one line per thread (the busiest first), cost by time as block
 * characters (ASCII: " .:-=+*#"). */
static void ensure_activity(struct tui *t, int width)
{
	struct pv_query q;
	pv_query_init(&q);
	if (pv_query_copy(&q, &t->q))
		return;
	for (uint32_t i = 0; i < q.nr_center; i++)
		free(q.center[i]);
	q.nr_center = 0;
	if (t->act_valid && t->act_w == (uint32_t)width && pv_query_equal(&q, &t->act_q)) {
		pv_query_release(&q);
		return;
	}
	pv_query_release(&t->act_q);
	t->act_q = q;
	t->act_valid = true;
	for (uint32_t i = 0; i < t->act_n; i++)
		free(t->act_line[i]);
	free(t->act_line);
	t->act_line = NULL;
	t->act_n = 0;
	t->act_w = (uint32_t)width;
	int label = width >= 40 ? 12 : 6;
	int gw = width - label - 1;
	if (gw < 4)
		return;
	struct pv_activity_opts ao = {.buckets = (uint32_t)gw};
	struct pv_activity *a = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	if (pv_activity_build(t->p, t->mk.ms, &t->act_q, &ao, &a, &err))
		return;
	t->act_line = calloc(a->nr_threads ? a->nr_threads : 1, sizeof(char *));
	int64_t *col = malloc(sizeof(int64_t) * (size_t)gw);
	uint32_t *order = malloc(sizeof(uint32_t) * (a->nr_threads ? a->nr_threads : 1));
	if (!t->act_line || !col || !order)
		goto out;
	/* the busiest threads first */
	for (uint32_t k = 0; k < a->nr_threads; k++)
		order[k] = k;
	for (uint32_t k = 1; k < a->nr_threads; k++)
		for (uint32_t j = k; j > 0 && a->samples[order[j]] > a->samples[order[j - 1]];
		     j--) {
			uint32_t x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	static const char *const blocks[9] = {" ",	"\u2581", "\u2582", "\u2583", "\u2584",
					      "\u2585", "\u2586", "\u2587", "\u2588"};
	static const char ascii[] = " .:-=+*#@";
	for (uint32_t oi = 0; oi < a->nr_threads && oi < 8; oi++) {
		uint32_t k = order[oi];
		if (!a->samples[k])
			break;
		int64_t max = 0;
		for (int b = 0; b < gw; b++) {
			col[b] = 0;
			for (uint32_t c = a->cell_first[k * a->buckets + (uint32_t)b];
			     c < a->cell_first[k * a->buckets + (uint32_t)b + 1]; c++)
				col[b] += a->cell_cost[c];
			if (col[b] > max)
				max = col[b];
		}
		cells_start(&t->cl, width);
		pv_thread_ix th = a->thread[k];
		cells_put(&t->cl, pv_str(t->p, t->p->threads.name[th]), SIZE_MAX, label);
		cells_pad(&t->cl, label + 1);
		for (int b = 0; b < gw; b++) {
			int lv = max > 0 ? (int)((col[b] * 8 + max - 1) / max) : 0;
			if (t->o.ascii) {
				char ch[2] = {ascii[lv], 0};
				cells_puts(&t->cl, ch);
			} else {
				cells_puts(&t->cl, blocks[lv]);
			}
		}
		char *s = cells_end(&t->cl);
		if (s)
			t->act_line[t->act_n++] = s;
	}
out:
	free(col);
	free(order);
	pv_activity_free(a);
}

/* Columns of a view: total, total%, self, self% (narrow: total% self%), then the name. */
struct cols {
	int num; /* width of a number column (0: not shown) */
	int pct;
};

static struct cols cols_of(int w)
{
	if (w >= 70)
		return (struct cols){11, 8};
	if (w >= 36)
		return (struct cols){0, 8};
	return (struct cols){0, 0};
}

static void cost_cols(struct tui *t, const struct pv_view *v, struct cols c, int64_t total,
		      int64_t self)
{
	char b[64];
	enum pv_unit u = pv_view_metric_unit(v, 0);
	int64_t base = v->base[0];
	if (c.num) {
		pv_format_cost(b, sizeof(b), total, u);
		cells_right(&t->cl, b, c.num);
	}
	if (c.pct) {
		snprintf(b, sizeof(b), "%.2f%%", base ? 100.0 * (double)total / (double)base : 0.0);
		cells_right(&t->cl, b, c.pct);
	}
	if (c.num) {
		pv_format_cost(b, sizeof(b), self, u);
		cells_right(&t->cl, b, c.num);
	}
	if (c.pct) {
		snprintf(b, sizeof(b), "%.2f%%", base ? 100.0 * (double)self / (double)base : 0.0);
		cells_right(&t->cl, b, c.pct);
	}
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
	cells_puts(&t->cl, "  ");
	char b[200];
	snprintf(b, sizeof(b), "name  (%s, %s)", pv_view_metric_name(v, 0, name, sizeof(name)),
		 pv_format_cost_unit(pv_view_metric_unit(v, 0)));
	cells_puts(&t->cl, b);
	emit(t, y, TUI_ROLE_BAR);
}

static uint32_t scroll(uint32_t *top, uint32_t sel, uint32_t n, int rows)
{
	uint32_t h = rows > 0 ? (uint32_t)rows : 1;
	if (sel < *top)
		*top = sel;
	if (sel >= *top + h)
		*top = sel - h + 1;
	if (*top + h > n)
		*top = n > h ? n - h : 0;
	return *top;
}

static bool in_center(const struct pv_view *v, const struct vrow *vr)
{
	if (vr->t)
		return vr->t->kind[vr->r] == PV_ROW_CENTER;
	return v->flat->in_center && v->flat->in_center[vr->r];
}

static void view_body(struct tui *t, int y0, int rows)
{
	ensure_view(t, t->tab);
	struct pane *pn = cur_pane(t);
	if (!pn->v) {
		text_line(t, y0, TUI_ROLE_TEXT, pn->err ? pn->err : "no view");
		return;
	}
	const struct pv_view *v = pn->v;
	struct cols c = cols_of(t->w);
	cost_titles(t, v, c, y0);
	rows--;
	y0++;
	uint32_t top = scroll(&pn->top, pn->sel, pn->nrows, rows);
	char b[1024];
	if (!pn->nrows && rows > 0)
		text_line(t, y0, TUI_ROLE_TEXT, " no samples in this view (Backspace: back)");
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
			emit(t, y0 + i, TUI_ROLE_DIM);
			continue;
		}
		int depth = 0;
		const char *mark = "";
		if (vr->t) {
			cost_cols(t, v, c, vr->t->total[0][vr->r], vr->t->self[0][vr->r]);
			depth = (int)vr->t->depth[vr->r];
			bool has = vr->t->child_len[vr->r] > 0;
			bool op = has && pn->open[tree_ix(v, vr->t)][vr->r];
			mark = !has ? "  "
			       : op ? (t->o.ascii ? "- " : "\u25be ")
				    : (t->o.ascii ? "+ " : "\u25b8 ");
		} else {
			cost_cols(t, v, c, v->flat->total[0][vr->r], v->flat->self[0][vr->r]);
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
		emit(t, y0 + i,
		     sel		? TUI_ROLE_SELECTED
		     : in_center(v, vr) ? TUI_ROLE_CENTER
					: TUI_ROLE_TEXT);
	}
}

static void view_detail(struct tui *t, int y)
{
	struct pane *pn = cur_pane(t);
	const struct vrow *vr = pn ? sel_row(pn) : NULL;
	if (!vr) {
		text_line(t, y, TUI_ROLE_DIM, "");
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
	cells_puts(&t->cl, row_name(v, vr->t, vr->r, b, sizeof(b)));
	if (m != PV_NONE && *pv_str(t->p, t->p->modules.name[m])) {
		cells_puts(&t->cl, "  module ");
		cells_puts(&t->cl, pv_str(t->p, t->p->modules.name[m]));
	}
	if (s != PV_NONE && *pv_str(t->p, t->p->sources.path[s])) {
		cells_puts(&t->cl, "  ");
		cells_puts(&t->cl, pv_str(t->p, t->p->sources.path[s]));
		if (l) {
			snprintf(b, sizeof(b), ":%u", l);
			cells_puts(&t->cl, b);
		}
	}
	emit(t, y, TUI_ROLE_DIM);
}

static void marker_body(struct tui *t, int y0, int rows)
{
	struct mpane *mp = &t->mk;
	if (!mp->ms) {
		text_line(t, y0, TUI_ROLE_TEXT, mp->err ? mp->err : "no markers");
		return;
	}
	ensure_markers(t);
	if (mp->err) {
		text_line(t, y0, TUI_ROLE_TEXT, mp->err);
		return;
	}
	/* the selected marker's fields below the table, as the sidebar shows them */
	int detail = 0;
	if (mp->n && rows >= 10) {
		uint32_t m = mp->idx[mp->sel];
		if (!pv_marker_detail(mp->ms, m, &mp->d)) {
			detail = 2;
			for (uint32_t f = 0; f < mp->d.nr_fields; f++)
				detail += !mp->d.fields[f].hidden;
			if (detail > rows / 3)
				detail = rows / 3;
		}
	}
	bool wide = t->w >= 60;
	/* columns: start 1..10, duration ..21, name from 23, thread from 46, details from 61 */
	cells_start(&t->cl, t->w);
	cells_puts(&t->cl, " ");
	cells_right(&t->cl, "start", 10);
	if (wide)
		cells_right(&t->cl, "duration", 11);
	cells_puts(&t->cl, "  name");
	if (wide) {
		cells_pad(&t->cl, 46);
		cells_puts(&t->cl, "thread");
		cells_pad(&t->cl, 61);
		cells_puts(&t->cl, "details");
	}
	char title[64];
	snprintf(title, sizeof(title), "  (%u)", mp->n);
	cells_puts(&t->cl, title);
	emit(t, y0, TUI_ROLE_BAR);
	int trows = rows - 1 - detail;
	uint32_t top = scroll(&mp->top, mp->sel, mp->n, trows);
	struct sbuf tx = SBUF_INIT;
	char b[64];
	for (int i = 0; i < trows && top + (uint32_t)i < mp->n; i++) {
		uint32_t k = top + (uint32_t)i, m = mp->idx[k];
		const struct pv_markers *ms = mp->ms;
		cells_start(&t->cl, t->w);
		cells_puts(&t->cl, k == mp->sel ? ">" : " ");
		pv_format_cost(b, sizeof(b), ms->start_ns[m], PV_UNIT_NS);
		cells_right(&t->cl, b, 10);
		if (wide) {
			sbuf_reset(&tx);
			if (ms->flags[m] & PV_MARKER_INCOMPLETE)
				sbuf_puts(&tx, "unknown");
			else if (ms->end_ns[m] != PV_TIME_NONE)
				pv_marker_duration_text(ms, m, &tx);
			cells_right(&t->cl, sbuf_str(&tx), 11);
		}
		cells_puts(&t->cl, "  ");
		cells_put(&t->cl, ms->name[m], SIZE_MAX, wide ? 21 : -1);
		if (wide) {
			cells_pad(&t->cl, 46);
			cells_put(&t->cl,
				  ms->friendly ? ms->friendly[ms->thread[m]]
					       : pv_str(t->p, t->p->threads.name[ms->thread[m]]),
				  SIZE_MAX, 14);
			cells_pad(&t->cl, 61);
			if (!pv_marker_detail(ms, m, &mp->d) && mp->d.label[PV_LABEL_TABLE])
				cells_puts(&t->cl, mp->d.label[PV_LABEL_TABLE]);
		}
		emit(t, y0 + 1 + i, k == mp->sel ? TUI_ROLE_SELECTED : TUI_ROLE_TEXT);
	}
	sbuf_release(&tx);
	if (!detail)
		return;
	uint32_t m = mp->idx[mp->sel];
	if (pv_marker_detail(mp->ms, m, &mp->d))
		return;
	int y = y0 + rows - detail;
	cells_start(&t->cl, t->w);
	snprintf(b, sizeof(b), "marker %u: ", m);
	cells_puts(&t->cl, b);
	cells_puts(&t->cl, mp->d.label[PV_LABEL_TOOLTIP] && *mp->d.label[PV_LABEL_TOOLTIP]
			       ? mp->d.label[PV_LABEL_TOOLTIP]
			       : mp->ms->name[m]);
	if (mp->d.type) {
		cells_puts(&t->cl, "  type ");
		cells_puts(&t->cl, mp->d.type);
	}
	emit(t, y++, TUI_ROLE_DIM);
	cells_start(&t->cl, t->w);
	cells_puts(&t->cl, "  cause: ");
	cells_puts(&t->cl, mp->ms->cause_stack[m] != PV_NONE ? "yes (c: center on it)" : "none");
	emit(t, y++, TUI_ROLE_TEXT);
	for (uint32_t f = 0; f < mp->d.nr_fields && y < y0 + rows; f++) {
		if (mp->d.fields[f].hidden)
			continue;
		cells_start(&t->cl, t->w);
		cells_puts(&t->cl, "  ");
		cells_puts(&t->cl, mp->d.fields[f].label);
		cells_puts(&t->cl, ": ");
		cells_puts(&t->cl, mp->d.fields[f].value);
		emit(t, y++, TUI_ROLE_TEXT);
	}
}

static void source_body(struct tui *t, int y0, int rows)
{
	struct spane *sp = &t->src;
	if (sp->id == PV_NONE) {
		text_line(t, y0, TUI_ROLE_TEXT, "no source file: press s on a row of a view");
		return;
	}
	ensure_source(t);
	cells_start(&t->cl, t->w);
	cells_puts(&t->cl, " ");
	bool wide = t->w >= 50;
	if (wide) {
		cells_right(&t->cl, "total", 10);
		cells_right(&t->cl, "self", 10);
	}
	cells_right(&t->cl, "line", 7);
	cells_puts(&t->cl, "  ");
	cells_puts(&t->cl, pv_str(t->p, t->p->sources.path[sp->id]));
	emit(t, y0, TUI_ROLE_BAR);
	if (sp->err) {
		text_line(t, y0 + 1, TUI_ROLE_TEXT, sp->err);
		return;
	}
	rows--;
	uint32_t top = scroll(&sp->top, sp->sel, sp->nlines, rows);
	char b[64];
	uint32_t nm = sp->sc ? sp->sc->nr_metrics : 0;
	for (int i = 0; i < rows && top + (uint32_t)i < sp->nlines; i++) {
		uint32_t k = top + (uint32_t)i, line = k + 1;
		bool center = false;
		for (uint32_t c = 0; c < sp->ncenter; c++)
			center |= sp->center[c] == line;
		cells_start(&t->cl, t->w);
		cells_puts(&t->cl, k == sp->sel ? ">" : " ");
		if (wide) {
			bool has = sp->sc && line <= sp->sc->nr_lines && sp->sc->has[line];
			for (int col = 0; col < 2; col++) {
				b[0] = 0;
				if (has)
					pv_format_cost(
					    b, sizeof(b),
					    sp->sc->cost[((size_t)line * nm) * 2 + (size_t)col],
					    sp->unit);
				cells_right(&t->cl, b, 10);
			}
		}
		snprintf(b, sizeof(b), "%u", line);
		cells_right(&t->cl, b, 7);
		cells_puts(&t->cl, center ? (t->o.ascii ? "* " : "\u25b6 ") : "  ");
		const char *s = sp->text + sp->off[k];
		const char *e = memchr(s, '\n', sp->len - sp->off[k]);
		cells_put(&t->cl, s, e ? (size_t)(e - s) : sp->len - sp->off[k], -1);
		emit(t, y0 + 1 + i,
		     k == sp->sel ? TUI_ROLE_SELECTED
		     : center	  ? TUI_ROLE_CENTER
				  : TUI_ROLE_TEXT);
	}
}

static const char *const help_text[] = {
    "keys (the page's):",
    "  Up/Down PgUp/PgDn Home/End  move        Tab/S-Tab 1-7  switch tabs",
    "  Right/Left  open/close (Left on a closed row: its parent)",
    "  Enter  open/close; on a leaf or a list row: its source",
    "  *  open everything below          h  hot path from the row",
    "  /  search (trees: rows by name, n/N next/previous; markers: filter)",
    "  c  center on the row      C  add it to the center     p  center on its path",
    "  i  include   d  drop   m  merge   r  collapse recursion   M  collapse module",
    "  s  source of the row (per-line costs, the center's lines marked)",
    "  markers: Enter  range of the marker    c  its cause stack as the center",
    "  Backspace  back through the queries    u  the query as flags and URL",
    "  ?  this help      q  quit             any key closes this",
};

static void overlay(struct tui *t, int y0, int rows)
{
	if (t->mode == M_HELP) {
		for (int i = 0; i < rows && i < (int)(sizeof(help_text) / sizeof(help_text[0]));
		     i++)
			text_line(t, y0 + i, TUI_ROLE_TEXT, help_text[i]);
		return;
	}
	char *q = tui_query_text(t);
	text_line(t, y0, TUI_ROLE_BAR, "the current query (any key closes this):");
	char *line = q, *nl;
	for (int i = 1; line && *line && i < rows; i++, line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		text_line(t, y0 + i, TUI_ROLE_TEXT, line);
	}
	free(q);
}

static void status_line(struct tui *t)
{
	cells_start(&t->cl, t->w);
	if (t->mode == M_INPUT) {
		cells_puts(&t->cl, t->tab == T_MARKERS ? "search markers: " : "/");
		cells_puts(&t->cl, t->input);
		cells_puts(&t->cl, "_");
	} else if (t->msg[0]) {
		cells_puts(&t->cl, t->msg);
	} else {
		cells_puts(&t->cl, "? help  q quit  / search  c center  Backspace back  u query");
	}
	emit(t, t->h - 1, TUI_ROLE_BAR);
}

const struct tui_screen *tui_render(struct tui *t)
{
	for (int y = 0; y < t->h; y++) {
		free(t->scr.line[y]);
		t->scr.line[y] = NULL;
	}
	int y = 0;
	if (t->h >= 1)
		tab_bar(t);
	y = 1;
	if (t->h >= 4) {
		query_line(t);
		y = 2;
	}
	/* the activity graph: up to 3 threads when there is room */
	int na = t->h >= 24 ? 3 : t->h >= 16 ? 1 : 0;
	if (na) {
		ensure_activity(t, t->w);
		for (int i = 0; i < na && (uint32_t)i < t->act_n; i++, y++) {
			free(t->scr.line[y]);
			t->scr.line[y] = strdup(t->act_line[i]);
			t->scr.role[y] = TUI_ROLE_DIM;
		}
	}
	int footer = 1 + (t->h >= 10 && t->tab < T_MARKERS);
	int rows = t->h - y - footer;
	t->body_y = y + 1;
	t->body_h = rows - 1;
	if (rows > 0) {
		if (t->mode == M_HELP || t->mode == M_QUERY)
			overlay(t, y, rows);
		else if (t->tab < T_MARKERS)
			view_body(t, y, rows);
		else if (t->tab == T_MARKERS)
			marker_body(t, y, rows);
		else
			source_body(t, y, rows);
	}
	if (footer == 2 && t->h >= 2)
		view_detail(t, t->h - 2);
	if (t->h >= 2)
		status_line(t);
	for (int k = 0; k < t->h; k++)
		if (!t->scr.line[k]) {
			cells_start(&t->cl, t->w);
			emit(t, k, TUI_ROLE_TEXT);
		}
	return &t->scr;
}

void tui_click(struct tui *t, int y, int x)
{
	t->msg[0] = 0;
	if (t->mode != M_NORMAL)
		return;
	if (y == 0) { /* the tab bar: the tab under x (as tab_bar lays it out) */
		int full = 0, col = 0;
		for (int k = 0; k < NR_TABS; k++)
			full += 4 + (int)strlen(tab_names[k]);
		for (int k = 0; k < NR_TABS; k++) {
			int wk =
			    k == (int)t->tab || full <= t->w ? 4 + (int)strlen(tab_names[k]) : 3;
			if (x >= col && x < col + wk) {
				t->tab = (enum tab)k;
				return;
			}
			col += wk;
		}
		return;
	}
	int i = y - t->body_y;
	if (i < 0 || i >= t->body_h)
		return;
	if (t->tab < T_MARKERS) {
		struct pane *pn = cur_pane(t);
		uint32_t li = pn->top + (uint32_t)i;
		if (li < pn->nrows && pn->rows[li].r != PV_NONE)
			pn->sel = li;
	} else if (t->tab == T_MARKERS) {
		uint32_t li = t->mk.top + (uint32_t)i;
		if (li < t->mk.n)
			t->mk.sel = li;
	} else {
		uint32_t li = t->src.top + (uint32_t)i;
		if (li < t->src.nlines)
			t->src.sel = li;
	}
}

char *tui_query_text(const struct tui *t)
{
	char *args = pv_query_to_args(&t->q), *url = pv_query_to_url(&t->q);
	size_t n = (args ? strlen(args) : 0) + (url ? strlen(url) : 0) + strlen(t->o.path) + 64;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "profview %s %s%s%s\n?%s", pv_view_name(t->q.view), args ? args : "",
			 args && *args ? " " : "", t->o.path, url ? url : "");
	free(args);
	free(url);
	return s;
}

/* ---- life ---- */

static int tab_of(const char *name, enum tab *out)
{
	static const struct {
		const char *page;
		enum tab tab;
	} page_tabs[] = {{"marker-table", T_MARKERS},
			 {"marker-chart", T_MARKERS},
			 {"flame", T_TREE},
			 {"tree", T_TREE},
			 {"callers", T_CALLERS}};
	for (int k = 0; k < NR_TABS; k++)
		if (strcmp(name, tab_names[k]) == 0) {
			*out = (enum tab)k;
			return 0;
		}
	for (size_t k = 0; k < sizeof(page_tabs) / sizeof(page_tabs[0]); k++)
		if (strcmp(name, page_tabs[k].page) == 0) {
			*out = page_tabs[k].tab;
			return 0;
		}
	return -1;
}

int tui_new(const struct tui_opts *o, int w, int h, struct tui **out, struct pv_error *err)
{
	struct tui *t = calloc(1, sizeof(*t));
	*out = t;
	if (!t)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	t->o = *o;
	t->p = o->p;
	t->gen = 1;
	t->src.id = PV_NONE;
	t->mk.want = o->marker;
	pv_query_init(&t->q);
	pv_query_init(&t->act_q);
	if (pv_query_copy(&t->q, o->q))
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	for (int k = 0; k < T_MARKERS; k++) {
		if (tab_view[k] == o->q->view)
			t->tab = (enum tab)k;
	}
	if (o->tab && tab_of(o->tab, &t->tab))
		return pv_error_set(err, PV_EINVAL,
				    "no tab '%s' (top-down, bottom-up, butterfly, flat, top, "
				    "markers, source)",
				    o->tab);
	if (o->sel && t->tab < T_MARKERS)
		t->panes[t->tab].sel_key = strdup(o->sel);
	if (o->search)
		t->mk.search = strdup(o->search);
	int rc = pv_markers_derive(t->p, &t->mk.ms, err);
	if (rc == PV_ENOMEM)
		return rc;
	if (rc) { /* the views work without markers: the tab says why */
		t->mk.err = strdup(err->msg);
		t->mk.ms = NULL;
		pv_error_clear(err);
	}
	/* the query must fit the profile: its view now, so a bad query fails before the screen */
	if (t->tab < T_MARKERS) {
		ensure_view(t, t->tab);
		struct pane *pn = &t->panes[t->tab];
		if (!pn->v && pn->err && !(pv_view_kind(tab_view[t->tab])->needs_center))
			return pv_error_set(err, PV_EINVAL, "%s", pn->err);
	}
	tui_resize(t, w, h);
	return t->scr.line ? 0 : pv_error_set(err, PV_ENOMEM, "out of memory");
}

void tui_resize(struct tui *t, int w, int h)
{
	for (int y = 0; y < t->h; y++)
		free(t->scr.line[y]);
	free(t->scr.line);
	free(t->scr.role);
	t->w = w < 1 ? 1 : w;
	t->h = h < 1 ? 1 : h;
	t->scr.w = t->w;
	t->scr.h = t->h;
	t->scr.line = calloc((size_t)t->h, sizeof(char *));
	t->scr.role = calloc((size_t)t->h, 1);
	t->act_w = 0;
}

void tui_free(struct tui *t)
{
	if (!t)
		return;
	for (int k = 0; k < T_MARKERS; k++) {
		pane_drop(&t->panes[k]);
		strs_clear(&t->panes[k].keep);
		free(t->panes[k].keep.s);
		free(t->panes[k].rows);
		free(t->panes[k].sel_key);
	}
	pv_free_indexes(t->mk.idx);
	pv_marker_detail_release(&t->mk.d);
	pv_markers_free(t->mk.ms);
	free(t->mk.err);
	free(t->mk.search);
	free(t->src.text);
	free(t->src.off);
	free(t->src.err);
	free(t->src.center);
	pv_source_costs_free(t->src.sc);
	for (uint32_t i = 0; i < t->act_n; i++)
		free(t->act_line[i]);
	free(t->act_line);
	for (uint32_t i = 0; i < t->nhist; i++)
		pv_query_release(&t->hist[i]);
	pv_query_release(&t->q);
	pv_query_release(&t->act_q);
	if (t->scr.line)
		for (int y = 0; y < t->h; y++)
			free(t->scr.line[y]);
	free(t->scr.line);
	free(t->scr.role);
	free(t->cl.buf);
	free(t);
}

int tui_key_parse(const char *name)
{
	static const struct {
		const char *name;
		int key;
	} names[] = {
	    {"Up", TUI_KEY_UP},
	    {"Down", TUI_KEY_DOWN},
	    {"Left", TUI_KEY_LEFT},
	    {"Right", TUI_KEY_RIGHT},
	    {"PgUp", TUI_KEY_PGUP},
	    {"PgDn", TUI_KEY_PGDN},
	    {"Home", TUI_KEY_HOME},
	    {"End", TUI_KEY_END},
	    {"Enter", TUI_KEY_ENTER},
	    {"Esc", TUI_KEY_ESC},
	    {"Tab", TUI_KEY_TAB},
	    {"BTab", TUI_KEY_BTAB},
	    {"Backspace", TUI_KEY_BACKSPACE},
	    {"WheelUp", TUI_KEY_WHEEL_UP},
	    {"WheelDown", TUI_KEY_WHEEL_DOWN},
	    {"Space", ' '},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i].name) == 0)
			return names[i].key;
	if (name[0] && !name[1])
		return (unsigned char)name[0];
	return -1;
}

/*
 * state.h - the TUI's state machine inside (tui.h is its interface): the state, shared by
 * tui.c (the keys, the tabs), panes.c (the views' panes), flame.c (the top-down tab's flame
 * graph), markers.c (the marker table), source.c (the source pane), annotate.c (the
 * disassembly), screen.c (the screen as text) and common.c (the query and its history, the
 * helpers they all use).
 */
#ifndef PV_TUI_STATE_H
#define PV_TUI_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "cells.h"
#include "pv/format.h"
#include "pv/marker.h"
#include "pv/source.h"
#include "pv/view.h"
#include "tui.h"

#define SOURCE_MAX  (64u << 20) /* bytes of a source file shown, at most */
#define EXPAND_MAX  20000	/* rows '*' opens at once, at most */
#define HISTORY_MAX 256		/* queries Backspace goes back through */
#define HOT_MAX	    4096	/* rows of a hot path */
#define ZOOM_MAX    64		/* zooms of the flame graph Esc goes back through */

struct tui;

/*
 * A tab's callbacks (as uftrace's tui_window_ops): the keys it takes, its lines, a click on
 * them, and what '/' does on it. The view tabs come from libpv's kind table (pv_view_kinds:
 * the kinds that fill trees, then those that fill flat rows, each in the table's order), then
 * the markers and the source.
 */
struct tab_ops {
	/* a key before the TUI's own (Esc, Backspace, ...): true when taken (NULL: none) */
	bool (*grab)(struct tui *t, int key);
	void (*key)(struct tui *t, int key);
	void (*body)(struct tui *t, int y0, int rows);
	void (*click)(struct tui *t, int i, int x); /* line i of the body */
	void (*detail)(struct tui *t, int y);	    /* the line over the status (NULL: none) */
	const char *prompt;			    /* the status line's while '/' is typed */
	/* '/': started, typed (text so far), ended (Enter: text; Esc: NULL) */
	void (*search_start)(struct tui *t);
	void (*search_typed)(struct tui *t, const char *text);
	void (*search_end)(struct tui *t, const char *text);
};

struct tab {
	char name[32];			     /* the page's tab name ("top-down") */
	const struct pv_view_kind_row *kind; /* NULL: not a view */
	enum pv_view_kind view;
	const struct tab_ops *ops;
};

#define TABS_MAX (PV_NR_VIEW_KINDS + 2)
extern const struct tab_ops tui_view_ops, tui_tree_ops, tui_marker_ops, tui_source_ops;

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
	/* the search as it is typed: every marker's text, built at the first search, and what
	 * the last search kept (a longer one looks only among those) */
	struct pv_marker_text *text;
	char *kept_search; /* the search idx is of (NULL: none), under query generation kept_gen */
	uint32_t kept_gen;
	char before[256]; /* the search before '/', which Esc puts back */
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
	struct pv_cost_unit unit; /* of the costs (the unit rule) */
	uint32_t sel, top;	  /* 0-based line index */
};

/* The top-down tab as a flame graph (flame.c): built for a view (its pane's gen) and a width. */
struct fpane {
	bool on;
	struct pv_flame *fl;
	uint32_t gen;
	int w;
	uint32_t *depth, *c0, *c1, *parent; /* per node; columns [c0, c1) */
	uint32_t *order;		    /* the nodes in pre-order: by column on each line */
	uint32_t max_depth, top;	    /* the deepest node; the depth above the first line */
	uint32_t zoom[ZOOM_MAX], nzoom; /* rows of the view's tree zoomed into, the last shown */
};

enum mode { M_NORMAL, M_INPUT, M_HELP, M_QUERY, M_ANNOTATE };

/* The disassembly of a row's function ('a', annotate.c): its lines, shown over the tab. */
struct apane {
	struct strs lines;
	char title[512];
	uint32_t sel, top;
};

#define ROOTS_MAX 8 /* folders the source pane reads beneath */

struct tui {
	struct tui_opts o;
	const struct pv_profile *p;
	/* the profiles, the one open (its path in o.path), the source folders of that one */
	const struct tui_file *files;
	struct tui_file one;
	uint32_t nr_files, file;
	char root[4096];
	const char *roots[ROOTS_MAX];
	uint32_t nr_roots;
	int w, h;
	struct pv_query q;
	/* the profile's threads as the library sees them (pv_profile_info): one program's are
	 * summed by default, else the busiest opens ('t' switches) */
	bool one_program;
	pv_thread_ix busiest, open_thread;
	bool by[PV_BY_LOOP + 1]; /* the granularities the profile has ('b' goes through them) */
	enum pv_num_form nums;	 /* how numbers are shown ('v': exact, k/M/G, 1.48e+09) */
	struct pv_query hist[HISTORY_MAX];
	uint32_t nhist;
	uint32_t gen;
	struct tab tabs[TABS_MAX];
	uint32_t nr_tabs, nr_views;		    /* the view tabs first */
	uint32_t tab;				    /* the one shown */
	uint32_t tree_tab, markers_tab, source_tab; /* the top-down tree's (the flame graph's) */
	struct pane panes[PV_NR_VIEW_KINDS];	    /* of the view tabs */
	struct mpane mk;
	struct spane src;
	struct fpane fl;
	struct apane an;
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
	/* the help's first line shown and the rows it had (screen.c; Up/Down scroll it) */
	int help_top, help_rows;
	struct tui_screen scr;
	struct cells cl;
};

/*
 * The layers (calls go down only): tui.c (the keys, the state's life, the tabs) and screen.c
 * (the screen) on top; the panes below them, flame.c (the top-down tab, tui_tree_ops) over
 * panes.c (the view tabs, tui_view_ops), markers.c, source.c and annotate.c; common.c (and
 * cells.c) at the bottom.
 */

/* tui.c: the tabs of the kind table, the markers and the source */
void tui_tabs_init(struct tui *t);
/* The tab named name (a tab's, a view kind's, or the page's), PV_NONE when none is. */
uint32_t tui_tab_find(const struct tui *t, const char *name);

/* screen.c: a tab's name on the tab bar */
const char *tui_tab_label(const struct tui *t, uint32_t k);

/* flame.c: the top-down tab as a flame graph (tui_tree_ops) */
void tui_flame_drop(struct fpane *f);

/* panes.c: the view kinds' panes (tui_view_ops) */
struct pane *tui_cur_pane(struct tui *t);
void tui_pane_drop(struct pane *pn);
void tui_ensure_view(struct tui *t, uint32_t tab);
void tui_find_next(struct tui *t, struct pane *pn, bool backward);
const struct vrow *tui_sel_row(const struct pane *pn);
void tui_select_row(struct pane *pn, const struct pv_tree *tr, uint32_t r);
/* Column col's metric as a title says it, with its unit by the unit rule ("CPUTIME (sec)",
 * "cpu-clock, ms"), into buf. */
const char *tui_metric_title(const struct pv_view *v, uint32_t col, char *buf, size_t n);

/* markers.c: the marker table (tui_marker_ops) */
void tui_set_search(struct tui *t, const char *text);

/* source.c: the source pane (tui_source_ops) */
void tui_open_source(struct tui *t, const struct pv_view *v, uint8_t kind, uint32_t id,
		     uint32_t line);

/* annotate.c: the disassembly of a function ('a') */
void tui_annotate_open(struct tui *t, pv_func_ix fn);
void tui_annotate_close(struct tui *t);
void tui_annotate_key(struct tui *t, int key);
void tui_annotate_body(struct tui *t, int y0, int rows);

/* common.c: the shared helpers */
/* Thread th's name, with its process and tid ("GeckoMain 4711/4712") when another thread has
 * the same name, into buf. */
const char *tui_thread_label(const struct tui *t, pv_thread_ix th, char *buf, size_t n);
void tui_say(struct tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tui_strs_clear(struct strs *s);
void tui_strs_add(struct strs *s, const char *x);
/* A new query generation: each view pane keeps its open rows and selection (by key) for its
 * next view. */
void tui_query_changed(struct tui *t);
void tui_push_query(struct tui *t, struct pv_query *nq);
bool tui_new_query(struct tui *t, struct pv_query *nq);
void tui_add_filter(struct tui *t, enum pv_filter_kind k, const char *arg);
void tui_set_center(struct tui *t, const char *scope, bool add);
int64_t tui_move_delta(const struct tui *t, int key, uint32_t n);
uint32_t tui_clamp_sel(uint32_t sel, int64_t d, uint32_t n);
void tui_emit(struct tui *t, int y, enum tui_role role);
void tui_text_line(struct tui *t, int y, enum tui_role role, const char *s);
uint32_t tui_scroll(uint32_t *top, uint32_t sel, uint32_t n, int rows);

static inline const struct tab_ops *tui_ops(const struct tui *t)
{
	return t->tabs[t->tab].ops;
}

#endif

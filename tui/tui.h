/*
 * tui.h - the terminal front end's state machine (profview tui, doc/tui.md).
 *
 * A pure module: a state, a key in, a new state; the screen out as text, one line per terminal
 * row, each exactly as wide as the terminal, with a role per line (how the drawing layer
 * highlights it). No terminal is touched here: tui/term.c draws the lines with ncurses, and the
 * tests drive the state with key scripts and compare the screens as text (tests/golden/tui/).
 * Every figure comes from libpv (the views, the markers, the source costs, the activity graph).
 */
#ifndef PV_TUI_H
#define PV_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pv/error.h"
#include "pv/profile.h"
#include "pv/query.h"

/* Keys: a Unicode code point, or one of these. */
enum tui_key {
	TUI_KEY_UP = 0x110000,
	TUI_KEY_DOWN,
	TUI_KEY_LEFT,
	TUI_KEY_RIGHT,
	TUI_KEY_PGUP,
	TUI_KEY_PGDN,
	TUI_KEY_HOME,
	TUI_KEY_END,
	TUI_KEY_ENTER,
	TUI_KEY_ESC,
	TUI_KEY_TAB,
	TUI_KEY_BTAB,
	TUI_KEY_BACKSPACE,
	TUI_KEY_WHEEL_UP,
	TUI_KEY_WHEEL_DOWN,
};

/* What a screen line is, for the drawing layer (the text alone is complete without it). */
enum tui_role {
	TUI_ROLE_TEXT = 0,
	TUI_ROLE_BAR,	   /* the tab bar, the column titles, the status line */
	TUI_ROLE_SELECTED, /* the selected row (also marked '>' in its first column) */
	TUI_ROLE_CENTER,   /* a center row, a center's line of the source */
	TUI_ROLE_DIM,	   /* the query line, section titles */
};

struct tui_screen {
	int w, h;
	char **line;   /* h lines of UTF-8, each w columns */
	uint8_t *role; /* enum tui_role per line */
};

/* One of several profiles (profview tui FILE...). */
struct tui_file {
	const char *path;
	const struct pv_profile *p;
};

struct tui_opts {
	const char *path; /* the profile's file, shown on the query line */
	const struct pv_profile *p;
	/* several profiles, ']' and '[' switch between them (each opens as the first did, with
	 * the query of these options); NULL: path and p alone. file: the one to open first. */
	const struct tui_file *files;
	uint32_t nr_files, file;
	const struct pv_query *q; /* the query to open with (its view names the tab) */
	const char *tab;	  /* a tab name (the TUI's or the page's), NULL: the query's view */
	const char *sel;	  /* a row key to select (the page's sel), NULL: none */
	const char *search;	  /* the marker search (the page's search) */
	int64_t marker;		  /* a marker to select (the page's mk), -1: none */
	const char *const *roots; /* folders the source pane reads beneath, after the profile's */
	uint32_t nr_roots;
	bool ascii; /* ASCII only: no block or triangle characters */
};

struct tui;

/* Opens the state at w x h. Returns 0, PV_ENOMEM, or PV_EINVAL/PV_EPARSE with err (the query
 * or the markers do not fit the profile). */
int tui_new(const struct tui_opts *o, int w, int h, struct tui **out, struct pv_error *err);
void tui_free(struct tui *t);
void tui_resize(struct tui *t, int w, int h);
/* One key; returns true when it quits. */
bool tui_key(struct tui *t, int key);
/* A click at screen line y, column x (0-based): selects a row or a tab. */
void tui_click(struct tui *t, int y, int x);
/* The screen of the current state (valid until the next call on t). */
const struct tui_screen *tui_render(struct tui *t);
/* The current query (valid until the next key). */
const struct pv_query *tui_query(const struct tui *t);
/* The current query as flags and as a URL query string, two lines (to free()). */
char *tui_query_text(const struct tui *t);

/* The keys' help, the '?' overlay's lines (also 'profview tui --help'): n lines. */
const char *const *tui_help(size_t *n);

/* Key names of scripts ("Down", "Enter", "a", ...): the key, or -1 for an unknown name. */
int tui_key_parse(const char *name);

#endif

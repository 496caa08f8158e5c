/*
 * term.c - the thin ncurses layer of the TUI: it reads keys (and clicks and the wheel), hands
 * them to the state machine (tui.c) and draws the lines it returns, with colours when the
 * terminal has them and NO_COLOR is unset, else reverse video and bold only.
 */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "term.h"

enum { PAIR_SEL = 1, PAIR_BAR, PAIR_CENTER, PAIR_DIM };

static int attr_of(uint8_t role, bool colour)
{
	switch (role) {
	case TUI_ROLE_BAR: return colour ? (int)COLOR_PAIR(PAIR_BAR) : A_REVERSE;
	case TUI_ROLE_SELECTED:
		return colour ? (int)(COLOR_PAIR(PAIR_SEL) | A_BOLD) : A_REVERSE | A_BOLD;
	case TUI_ROLE_CENTER: return colour ? (int)(COLOR_PAIR(PAIR_CENTER) | A_BOLD) : A_BOLD;
	case TUI_ROLE_DIM: return colour ? (int)COLOR_PAIR(PAIR_DIM) : A_NORMAL;
	default: return A_NORMAL;
	}
}

static int key_of(int rc, wint_t ch, struct tui *t)
{
	if (rc == OK) {
		switch (ch) {
		case '\n':
		case '\r': return TUI_KEY_ENTER;
		case 27: return TUI_KEY_ESC;
		case '\t': return TUI_KEY_TAB;
		case 127:
		case 8: return TUI_KEY_BACKSPACE;
		case 3: return 'q'; /* Ctrl-C: raw mode makes it a key */
		default: return (int)ch;
		}
	}
	switch (ch) {
	case KEY_UP: return TUI_KEY_UP;
	case KEY_DOWN: return TUI_KEY_DOWN;
	case KEY_LEFT: return TUI_KEY_LEFT;
	case KEY_RIGHT: return TUI_KEY_RIGHT;
	case KEY_PPAGE: return TUI_KEY_PGUP;
	case KEY_NPAGE: return TUI_KEY_PGDN;
	case KEY_HOME: return TUI_KEY_HOME;
	case KEY_END: return TUI_KEY_END;
	case KEY_ENTER: return TUI_KEY_ENTER;
	case KEY_BTAB: return TUI_KEY_BTAB;
	case KEY_BACKSPACE: return TUI_KEY_BACKSPACE;
	case KEY_MOUSE: {
		MEVENT ev;
		if (getmouse(&ev) != OK)
			return -1;
		if (ev.bstate & BUTTON4_PRESSED)
			return TUI_KEY_WHEEL_UP;
#ifdef BUTTON5_PRESSED
		if (ev.bstate & BUTTON5_PRESSED)
			return TUI_KEY_WHEEL_DOWN;
#endif
		if (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED))
			tui_click(t, ev.y, ev.x);
		return -1;
	}
	default: return -1; /* KEY_RESIZE and the rest: redraw */
	}
}

int tui_term_run(struct tui_opts *o, char **query, struct pv_error *err)
{
	*query = NULL;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return pv_error_set(err, PV_EINVAL,
				    "profview tui needs a terminal (--keys runs a key script "
				    "without one)");
	const char *cs = nl_langinfo(CODESET);
	o->ascii = !cs || strcmp(cs, "UTF-8") != 0;
	struct tui *t = NULL;
	/* the state first: a query that does not fit fails before the screen changes */
	int rc = tui_new(o, 80, 24, &t, err);
	if (rc) {
		tui_free(t);
		return rc;
	}
	if (!initscr()) {
		tui_free(t);
		return pv_error_set(err, PV_EINVAL, "cannot open the terminal (TERM=%s)",
				    getenv("TERM") ? getenv("TERM") : "");
	}
	raw();
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
		      | BUTTON5_PRESSED
#endif
		  ,
		  NULL);
	bool colour = has_colors() && !getenv("NO_COLOR");
	if (colour) {
		start_color();
		use_default_colors();
		init_pair(PAIR_SEL, COLOR_BLACK, COLOR_CYAN);
		init_pair(PAIR_BAR, COLOR_BLACK, COLOR_WHITE);
		init_pair(PAIR_CENTER, COLOR_YELLOW, -1);
		init_pair(PAIR_DIM, COLOR_BLUE, -1);
	}
	int w = -1, h = -1;
	for (;;) {
		int nh, nw;
		getmaxyx(stdscr, nh, nw);
		if (nh != h || nw != w) {
			h = nh;
			w = nw;
			tui_resize(t, w, h);
			clear();
		}
		const struct tui_screen *s = tui_render(t);
		for (int y = 0; y < s->h && y < h; y++) {
			attrset(attr_of(s->role[y], colour));
			mvaddstr(y, 0, s->line[y]); /* the last cell of the screen may return ERR */
		}
		attrset(A_NORMAL);
		refresh();
		wint_t ch;
		int r = get_wch(&ch);
		if (r == ERR)
			continue;
		int key = key_of(r, ch, t);
		if (key >= 0 && tui_key(t, key))
			break;
	}
	endwin();
	*query = tui_query_text(t);
	tui_free(t);
	return 0;
}

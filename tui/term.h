/*
 * term.h - the TUI drawn on a terminal with ncurses (term.c): keys and the mouse in, the state
 * machine's screen out (tui.h).
 */
#ifndef PV_TUI_TERM_H
#define PV_TUI_TERM_H

#include "tui.h"

/* Runs the TUI on the terminal until q. Returns 0, or PV_EINVAL with err (no terminal) or the
 * state's error. *query (to free) is the last query as flags and URL. */
int tui_term_run(struct tui_opts *o, char **query, struct pv_error *err);

#endif

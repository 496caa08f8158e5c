/*
 * cells.h - one screen line built to an exact width in terminal columns from UTF-8 text
 * (tui.c). Control characters show as the escapes every text printer writes (pv_control_escape,
 * pv/error.h: "\x1b", "\n", "\u009b"), broken UTF-8 as '?', a tab as a space; a character (or an
 * escape) that does not fit whole is left out, so a line never wraps or spills.
 */
#ifndef PV_TUI_CELLS_H
#define PV_TUI_CELLS_H

#include <stdbool.h>
#include <stddef.h>

struct cells {
	char *buf;
	size_t len, cap;
	int col, w; /* columns written, the line's width */
	bool oom;
};

void cells_start(struct cells *c, int w);
/* Appends s (n bytes; n SIZE_MAX: up to its NUL), at most max columns (and the line's rest). */
void cells_put(struct cells *c, const char *s, size_t n, int max);
void cells_puts(struct cells *c, const char *s);
/* Spaces up to column col. */
void cells_pad(struct cells *c, int col);
/* s right-aligned in a field of width columns. */
void cells_right(struct cells *c, const char *s, int width);
/* A path in at most max columns (-1: the line's rest): a longer one cut in the middle, an
 * ellipsis ('~' when ascii) where, so that the file name stays whole when it can. */
void cells_path(struct cells *c, const char *s, int max, bool ascii);
/* The finished line (padded to w), to free(); NULL when out of memory. */
char *cells_end(struct cells *c);
/* Columns that s takes. */
int cells_width(const char *s);

#endif

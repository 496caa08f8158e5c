/*
 * naming.h - the text that names a row of a view (rowkey.c): its key (pv/rows.h), its scope
 * (query.h's syntax: what the page's "center on this row" writes) and its path: scope. The
 * view's serializers (src/format/page_out.c) and the per-thread costs use them.
 */
#ifndef PV_VIEW_NAMING_H
#define PV_VIEW_NAMING_H

#include <stdbool.h>
#include <stdint.h>

#include "base/sbuf.h"
#include "pv/rows.h"

/* ---- keys ---- */

#define KEY_STEP_MAX 32
/* One step of a key into buf; returns its length. */
size_t key_step(char buf[KEY_STEP_MAX], uint8_t kind, uint32_t id, uint32_t line);
/* Appends one step. Returns 0 or PV_ENOMEM. */
int key_add(struct sbuf *b, uint8_t kind, uint32_t id, uint32_t line);
/* The row of t named by key (no up:/down: prefix), PV_NONE when none. */
uint32_t tree_find_key(const struct pv_tree *t, const char *key);
/* The key of flat row r whose ancestors by level are anc[0 .. level - 1] (list: one step). */
int flat_key(struct sbuf *key, const struct pv_flat *f, bool list, const uint32_t *anc, uint32_t r);

/* ---- scopes ---- */

/*
 * The scopes of a profile's functions, lines, loops, files and modules that name each alone
 * (scopename.c, pv_scope_names): each appends to b and returns 0 or PV_ENOMEM.
 */
int scope_names_func(struct pv_scope_names *sn, pv_func_ix f, struct sbuf *b);
int scope_names_line(struct pv_scope_names *sn, pv_func_ix f, uint32_t line, struct sbuf *b);
int scope_names_loop(struct pv_scope_names *sn, pv_frame_ix x, struct sbuf *b);
/* line:FILE:LINE, a line of source file s (every function of the file at that line: a line of
 * the source pane) */
int scope_file_line(const struct pv_profile *p, pv_source_ix s, uint32_t line, struct sbuf *b);
/* in: the module of the flat view's row above a file row (NULL: none) */
int scope_names_file(struct pv_scope_names *sn, pv_source_ix s, const pv_module_ix *in,
		     struct sbuf *b);
int scope_names_module(struct pv_scope_names *sn, pv_module_ix m, struct sbuf *b);

/* Whether a text is read as a scope of another kind than a function's (re:, file:, ...), or is
 * empty: a function of such a name is named by re:^NAME$ (scope.c). */
bool scope_reserved(const char *s);

/* What the rows of one output need to write their scopes: made on the first scope written.
 * Zero-initialize; release with row_names_release. */
struct row_names {
	struct pv_scope_names *sn;
	bool tried;
};
void row_names_release(struct row_names *nm);
/* Appends the scope that names profile function f alone. Returns 0 or PV_ENOMEM. */
int func_scope(struct sbuf *b, const struct pv_profile *p, struct row_names *nm, uint32_t f);
/*
 * The scope that names row (kind, id, line) alone in a query, into b (replacing its text): 1,
 * or 0 when none does (the center row, the samples without a stack), or PV_ENOMEM.
 */
int row_scope(const struct pv_view *v, struct row_names *nm, uint8_t kind, uint32_t id,
	      uint32_t line, struct sbuf *b);
/* The same for flat row r whose ancestors by level are anc[0 .. level - 1] (a list: none): a
 * file's row under a module names the file in that module. */
int flat_row_scope(const struct pv_view *v, struct row_names *nm, const uint32_t *anc, uint32_t r,
		   struct sbuf *b);

/* ---- paths ---- */

/*
 * The path: scope of a function row: names from the root joined by ';' in a plain top-down
 * tree, or from the center's own path: scope down in a tree centered on one path. A name
 * holding ';' (or empty) cannot be written in a path: such rows and those below have none.
 */
enum path_mode { PATH_NONE = 0, PATH_ROOT, PATH_CENTER };
#define NO_PATH SIZE_MAX

enum path_mode path_mode_of(const struct pv_view *v, const struct pv_tree *t);
/* The path length after row r whose parent's path ends at plen (NO_PATH: none); *oom set when
 * memory ran out. */
size_t path_step(const struct pv_view *v, struct row_names *nm, const struct pv_tree *t,
		 enum path_mode mode, uint32_t r, size_t plen, struct sbuf *path, bool *oom);
/* The path of row r, built up from its ancestors. */
size_t path_of(const struct pv_view *v, struct row_names *nm, const struct pv_tree *t, uint32_t r,
	       struct sbuf *path, bool *oom);
/*
 * Whether the path: scope of row r names only that row's path: every row from r up to the root
 * a function row whose step names that function alone. *oom set when memory ran out.
 */
bool path_unambiguous(const struct pv_view *v, struct row_names *nm, const struct pv_tree *t,
		      uint32_t r, bool *oom);

#endif

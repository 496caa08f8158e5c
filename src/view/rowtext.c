/*
 * rowtext.c - the text of one row on demand (pv/rows.h): key, scope and path through the
 * naming rules of rowkey.c, and the search of a view's rows by name.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "view/naming.h"

struct pv_row_namer {
	const struct pv_view *v;
	struct row_names names;
	struct sbuf text, tmp;
	bool oom;
};

int pv_row_namer_new(const struct pv_view *v, struct pv_row_namer **out)
{
	struct pv_row_namer *nm = pv_calloc(1, sizeof(*nm));
	*out = nm;
	if (!nm)
		return PV_ENOMEM;
	nm->v = v;
	return 0;
}

void pv_row_namer_free(struct pv_row_namer *nm)
{
	if (!nm)
		return;
	row_names_release(&nm->names);
	sbuf_release(&nm->text);
	sbuf_release(&nm->tmp);
	pv_free(nm);
}

bool pv_row_namer_oom(const struct pv_row_namer *nm)
{
	return nm->oom;
}

static const char *fail(struct pv_row_namer *nm)
{
	nm->oom = true;
	return NULL;
}

/* The flat row's ancestors by level: the nearest row before it of each lower level. */
static void flat_ancestors(const struct pv_view *v, uint32_t r, uint32_t anc[PV_FLAT_LEVELS])
{
	const struct pv_flat *f = v->flat;
	uint32_t need = pv_view_kind(v->q.view)->list ? 0 : f->level[r];
	memset(anc, 0, sizeof(uint32_t) * PV_FLAT_LEVELS);
	for (uint32_t x = r; x-- > 0 && need > 0;)
		if (f->level[x] == need - 1)
			anc[--need] = x;
}

static const char *flat_row_key(struct pv_row_namer *nm, uint32_t r)
{
	uint32_t anc[PV_FLAT_LEVELS];
	flat_ancestors(nm->v, r, anc);
	return flat_key(&nm->text, nm->v->flat, pv_view_kind(nm->v->q.view)->list, anc, r)
		   ? fail(nm)
		   : sbuf_str(&nm->text);
}

const char *pv_row_key(struct pv_row_namer *nm, const struct pv_tree *t, uint32_t r)
{
	const struct pv_view *v = nm->v;
	if (!t)
		return flat_row_key(nm, r);
	const char *prefix = "";
	if (pv_view_kind(v->q.view)->outputs & PV_OUT_CALLERS)
		prefix = t == v->callers ? "up:" : "down:";
	/* steps from the root: the chain up, written back to front */
	uint32_t depth = t->depth[r] + 1;
	uint32_t *chain = pv_malloc(sizeof(*chain) * depth);
	if (!chain)
		return fail(nm);
	uint32_t n = 0;
	for (uint32_t x = r; x != PV_NONE && n < depth; x = t->parent[x])
		chain[n++] = x;
	sbuf_reset(&nm->text);
	int rc = sbuf_puts(&nm->text, prefix);
	while (!rc && n-- > 0) {
		uint32_t x = chain[n];
		rc = key_add(&nm->text, t->kind[x], t->id[x], t->line[x]);
		if (!rc && n)
			rc = sbuf_put(&nm->text, "/", 1);
	}
	pv_free(chain);
	return rc ? fail(nm) : sbuf_str(&nm->text);
}

const char *pv_row_scope(struct pv_row_namer *nm, const struct pv_tree *t, uint32_t r)
{
	const struct pv_view *v = nm->v;
	uint32_t anc[PV_FLAT_LEVELS];
	if (!t)
		flat_ancestors(v, r, anc);
	int rc = t ? row_scope(v, &nm->names, t->kind[r], t->id[r], t->line[r], &nm->text)
		   : flat_row_scope(v, &nm->names, anc, r, &nm->text);
	if (rc < 0)
		return fail(nm);
	return rc ? sbuf_str(&nm->text) : NULL;
}

const char *pv_row_path(struct pv_row_namer *nm, const struct pv_tree *t, uint32_t r)
{
	if (!t || t->kind[r] != PV_ROW_FUNCTION)
		return NULL;
	bool oom = false;
	size_t n = path_of(nm->v, &nm->names, t, r, &nm->tmp, &oom);
	if (oom)
		return fail(nm);
	if (n == NO_PATH)
		return NULL;
	sbuf_reset(&nm->text);
	if (sbuf_puts(&nm->text, "path:") || sbuf_put(&nm->text, nm->tmp.buf, n))
		return fail(nm);
	return sbuf_str(&nm->text);
}

/* ---- search by name ---- */

static bool name_has(const struct pv_view *v, uint8_t kind, uint32_t id, uint32_t line,
		     const char *text)
{
	char buf[1024], lb[1024];
	const char *name = pv_view_row_name(v, (enum pv_row_kind)kind, id, buf, sizeof(buf), line);
	/* the name shown too ("loops.c: 1016" of "main._omp_fn.0:1016") */
	const char *label = pv_view_row_label(v, (enum pv_row_kind)kind, id, lb, sizeof(lb), line);
	size_t n = strlen(text);
	for (const char *s = name; *s; s++)
		if (strncasecmp(s, text, n) == 0)
			return true;
	for (const char *s = label; label != name && *s; s++)
		if (strncasecmp(s, text, n) == 0)
			return true;
	return !n;
}

/* The search's state over rows in order: the first match, the last before `from`, the first
 * after it, the last. */
struct found {
	uint32_t first, before, after, last;
	bool past;
};

static void visit(struct found *f, uint32_t r, uint32_t from, bool match)
{
	if (r == from) { /* found again only when nothing else matches */
		f->past = true;
		if (match && f->first == PV_NONE)
			f->first = r;
		if (match)
			f->last = r;
		return;
	}
	if (!match)
		return;
	if (f->first == PV_NONE)
		f->first = r;
	if (!f->past)
		f->before = r;
	else if (f->after == PV_NONE)
		f->after = r;
	f->last = r;
}

uint32_t pv_view_find_name(const struct pv_view *v, const struct pv_tree *t, uint32_t from,
			   const char *text, bool backward)
{
	struct found f = {PV_NONE, PV_NONE, PV_NONE, PV_NONE, from == PV_NONE};
	if (!t) {
		const struct pv_flat *fl = v->flat;
		for (uint32_t r = 0; fl && r < fl->len; r++)
			visit(&f, r, from, name_has(v, fl->kind[r], fl->id[r], fl->line[r], text));
	} else {
		/* pre-order with an explicit stack: (list, next index) per level */
		uint32_t cap = 64, sp = 0;
		struct lvl {
			const uint32_t *list;
			uint32_t n, i;
		} *st = pv_malloc(sizeof(*st) * cap);
		if (!st)
			return PV_NONE;
		st[sp++] = (struct lvl){t->roots, t->nr_roots, 0};
		while (sp) {
			struct lvl *l = &st[sp - 1];
			if (l->i == l->n) {
				sp--;
				continue;
			}
			uint32_t r = l->list[l->i++];
			visit(&f, r, from, name_has(v, t->kind[r], t->id[r], t->line[r], text));
			if (!t->child_len[r])
				continue;
			if (sp == cap) {
				struct lvl *g = pv_realloc(st, sizeof(*st) * cap * 2);
				if (!g) {
					pv_free(st);
					return PV_NONE;
				}
				st = g;
				cap *= 2;
			}
			st[sp++] =
			    (struct lvl){t->children + t->child_first[r], t->child_len[r], 0};
		}
		pv_free(st);
	}
	if (backward)
		return f.before != PV_NONE ? f.before : f.last;
	return f.after != PV_NONE ? f.after : f.first;
}

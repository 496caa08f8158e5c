/*
 * find.c - the page's whole-profile search (include/pv/rows.h, pv_find_functions): the
 * functions a text names, each with its totals in the query and the heaviest row of it in the
 * query's top-down tree (the row the page opens on Enter).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "internal.h"
#include "pv/rows.h"

static const char *const SCOPE_PREFIXES[] = {"re:", "file:", "module:", "loop:", "line:", "path:"};

bool pv_find_is_scope(const char *text)
{
	for (size_t i = 0; i < sizeof(SCOPE_PREFIXES) / sizeof(SCOPE_PREFIXES[0]); i++)
		if (strncmp(text, SCOPE_PREFIXES[i], strlen(SCOPE_PREFIXES[i])) == 0)
			return true;
	return strchr(text, '@') != NULL;
}

/* s contains t, ASCII letters compared without case. */
static bool contains_nocase(const char *s, size_t sn, const char *t, size_t tn)
{
	if (!tn)
		return true;
	for (size_t i = 0; i + tn <= sn; i++) {
		size_t k = 0;
		while (k < tn && tolower((unsigned char)s[i + k]) == tolower((unsigned char)t[k]))
			k++;
		if (k == tn)
			return true;
	}
	return false;
}

struct hit {
	int64_t total; /* the first metric's */
	uint32_t func, flat_row;
};

static int cmp_hit(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

void pv_find_free(struct pv_find *fd)
{
	if (!fd)
		return;
	pv_free(fd->func);
	pv_free(fd->flat_row);
	pv_free(fd->tree_row);
	pv_free(fd);
}

int pv_find_functions(const struct pv_view *top, const struct pv_view *tree, const char *text,
		      uint32_t limit, struct pv_find **out, struct pv_error *err)
{
	const struct pv_profile *p = top->p;
	*out = NULL;
	uint32_t nf = p->funcs.len;
	uint8_t *mark = pv_calloc(nf ? nf : 1, 1);
	uint32_t *flat_of = pv_malloc(sizeof(uint32_t) * (nf ? nf : 1));
	struct pv_find *fd = pv_calloc(1, sizeof(*fd));
	int rc = 0;
	if (!mark || !flat_of || !fd) {
		rc = pv_error_set(err, PV_ENOMEM, "out of memory");
		goto done;
	}
	if (pv_find_is_scope(text)) {
		rc = pv__scope_funcs(p, text, mark, err);
		if (rc < 0)
			goto done;
		rc = 0;
	} else {
		size_t tn = strlen(text);
		for (uint32_t f = 0; f < nf; f++) {
			pv_str_ix s = p->funcs.name[f];
			mark[f] = contains_nocase(p->strings.ptr[s], p->strings.size[s], text, tn);
		}
	}
	/* the functions of the query's list (the top view: one row per function, its totals) */
	for (uint32_t f = 0; f < nf; f++)
		flat_of[f] = PV_NONE;
	const struct pv_flat *fl = top->flat;
	uint32_t n = 0;
	for (uint32_t r = 0; fl && r < fl->len; r++) {
		if (fl->kind[r] != PV_ROW_FUNCTION || fl->id[r] >= nf || !mark[fl->id[r]])
			continue;
		flat_of[fl->id[r]] = r;
		n++;
	}
	struct hit *hits = pv_malloc(sizeof(*hits) * (n ? n : 1));
	if (!hits) {
		rc = pv_error_set(err, PV_ENOMEM, "out of memory");
		goto done;
	}
	uint32_t k = 0;
	for (uint32_t f = 0; f < nf; f++)
		if (flat_of[f] != PV_NONE)
			hits[k++] = (struct hit){fl->total[0][flat_of[f]], f, flat_of[f]};
	qsort(hits, n, sizeof(*hits), cmp_hit);
	fd->matches = n;
	fd->len = limit && limit < n ? limit : n;
	fd->func = pv_malloc(sizeof(uint32_t) * (fd->len ? fd->len : 1));
	fd->flat_row = pv_malloc(sizeof(uint32_t) * (fd->len ? fd->len : 1));
	fd->tree_row = pv_malloc(sizeof(uint32_t) * (fd->len ? fd->len : 1));
	if (!fd->func || !fd->flat_row || !fd->tree_row) {
		pv_free(hits);
		rc = pv_error_set(err, PV_ENOMEM, "out of memory");
		goto done;
	}
	/* flat_of[f] becomes the index of f's hit (PV_NONE: none kept) */
	for (uint32_t f = 0; f < nf; f++)
		flat_of[f] = PV_NONE;
	for (uint32_t i = 0; i < fd->len; i++) {
		fd->func[i] = hits[i].func;
		fd->flat_row[i] = hits[i].flat_row;
		fd->tree_row[i] = PV_NONE;
		flat_of[hits[i].func] = i;
	}
	pv_free(hits);
	/* the heaviest row of each kept function in the tree: one pass over its rows */
	const struct pv_tree *t = tree ? tree->tree : NULL;
	for (uint32_t r = 0; t && r < t->len; r++) {
		if (t->kind[r] != PV_ROW_FUNCTION || t->id[r] >= nf || flat_of[t->id[r]] == PV_NONE)
			continue;
		uint32_t *best = &fd->tree_row[flat_of[t->id[r]]];
		if (*best == PV_NONE || t->total[0][r] > t->total[0][*best])
			*best = r;
	}
done:
	pv_free(mark);
	pv_free(flat_of);
	if (rc) {
		pv_find_free(fd);
		return rc;
	}
	*out = fd;
	return 0;
}

/*
 * rowkey.c - what names a row of a view (pv/rows.h, view/naming.h): keys and their resolution,
 * the scope of a row, the path: scope of a function row, the heaviest path.
 */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "view/naming.h"

/* ---- keys ---- */

/* c and the decimal of id: a function's step, without printf (a search answer writes a key of
 * every row it lists, thousands of steps each in a deep tree) */
static size_t step_num(char *buf, char c, uint32_t id)
{
	char d[10];
	size_t n = 0, k = 0;
	do
		d[n++] = (char)('0' + id % 10);
	while ((id /= 10) != 0);
	buf[k++] = c;
	while (n)
		buf[k++] = d[--n];
	buf[k] = 0;
	return k;
}

size_t key_step(char buf[KEY_STEP_MAX], uint8_t kind, uint32_t id, uint32_t line)
{
	int k;
	switch (kind) {
	case PV_ROW_FUNCTION: return step_num(buf, 'f', id);
	case PV_ROW_LINE: k = snprintf(buf, KEY_STEP_MAX, "l%u:%u", id, line); break;
	case PV_ROW_FILE:
		k = id == PV_NONE ? snprintf(buf, KEY_STEP_MAX, "s-")
				  : snprintf(buf, KEY_STEP_MAX, "s%u", id);
		break;
	case PV_ROW_MODULE:
		k = id == PV_NONE ? snprintf(buf, KEY_STEP_MAX, "m-")
				  : snprintf(buf, KEY_STEP_MAX, "m%u", id);
		break;
	case PV_ROW_NOSTACK: k = snprintf(buf, KEY_STEP_MAX, "n"); break;
	case PV_ROW_LOOP: k = snprintf(buf, KEY_STEP_MAX, "o%u", id); break;
	default: k = snprintf(buf, KEY_STEP_MAX, "c"); break;
	}
	return k > 0 ? (size_t)k : 0;
}

int key_add(struct sbuf *b, uint8_t kind, uint32_t id, uint32_t line)
{
	char buf[KEY_STEP_MAX];
	return sbuf_put(b, buf, key_step(buf, kind, id, line));
}

struct step {
	uint8_t kind;
	uint32_t id, line;
};

bool pv_key_number(const char **s, uint32_t *out)
{
	const char *p = *s;
	if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
		return false;
	uint64_t x = 0;
	while (*p >= '0' && *p <= '9') {
		x = x * 10 + (uint64_t)(*p - '0');
		if (x >= UINT32_MAX)
			return false;
		p++;
	}
	*out = (uint32_t)x;
	*s = p;
	return true;
}

/* One step of a key at *s, up to '/' or the end; advances *s past a '/'. */
static bool parse_step(const char **s, struct step *st)
{
	const char *p = *s;
	st->id = PV_NONE;
	st->line = 0;
	switch (*p++) {
	case 'c':
	case 'n':
		st->kind = p[-1] == 'c' ? PV_ROW_CENTER : PV_ROW_NOSTACK;
		st->id = 0;
		break;
	case 'f':
	case 'o':
		st->kind = p[-1] == 'f' ? PV_ROW_FUNCTION : PV_ROW_LOOP;
		if (!pv_key_number(&p, &st->id))
			return false;
		break;
	case 'l':
		st->kind = PV_ROW_LINE;
		if (!pv_key_number(&p, &st->id) || *p++ != ':' || !pv_key_number(&p, &st->line))
			return false;
		break;
	case 's':
	case 'm':
		st->kind = p[-1] == 's' ? PV_ROW_FILE : PV_ROW_MODULE;
		if (*p == '-')
			p++;
		else if (!pv_key_number(&p, &st->id))
			return false;
		break;
	default: return false;
	}
	if (*p == '/') {
		p++;
		if (!*p)
			return false;
	} else if (*p) {
		return false;
	}
	*s = p;
	return true;
}

static bool tree_match(const struct pv_tree *t, uint32_t r, const struct step *st)
{
	if (t->kind[r] != st->kind)
		return false;
	if (st->kind == PV_ROW_CENTER)
		return true;
	return t->id[r] == st->id && (st->kind != PV_ROW_LINE || t->line[r] == st->line);
}

uint32_t tree_find_key(const struct pv_tree *t, const char *key)
{
	const uint32_t *list = t->roots;
	uint32_t n = t->nr_roots, r = PV_NONE;
	if (!*key)
		return PV_NONE;
	while (*key) {
		struct step st;
		if (!parse_step(&key, &st))
			return PV_NONE;
		r = PV_NONE;
		for (uint32_t i = 0; i < n; i++) {
			if (tree_match(t, list[i], &st)) {
				r = list[i];
				break;
			}
		}
		if (r == PV_NONE)
			return PV_NONE;
		list = t->children + t->child_first[r];
		n = t->child_len[r];
	}
	return r;
}

/* The flat row named by key: steps module/file/function/line by level (one step for top). */
static uint32_t flat_find_key(const struct pv_flat *f, bool list, const char *key)
{
	struct step st[PV_FLAT_LEVELS];
	uint32_t ns = 0;
	if (!*key)
		return PV_NONE;
	while (*key) {
		if (ns == (list ? 1 : PV_FLAT_LEVELS) || !parse_step(&key, &st[ns]))
			return PV_NONE;
		ns++;
	}
	uint32_t r = 0, end = f->len, found = PV_NONE;
	for (uint32_t i = 0; i < ns; i++) {
		found = PV_NONE;
		for (; r < end; r++) {
			if (!list && f->level[r] < i)
				break;
			if ((list || f->level[r] == i) && f->kind[r] == st[i].kind &&
			    f->id[r] == st[i].id &&
			    (st[i].kind != PV_ROW_LINE || f->line[r] == st[i].line)) {
				found = r;
				break;
			}
		}
		if (found == PV_NONE)
			return PV_NONE;
		uint32_t e = found + 1;
		while (!list && e < end && f->level[e] > i)
			e++;
		r = found + 1;
		end = e;
	}
	return found;
}

int flat_key(struct sbuf *key, const struct pv_flat *f, bool list, const uint32_t *anc, uint32_t r)
{
	sbuf_reset(key);
	uint32_t lv = list ? 0 : f->level[r];
	for (uint32_t l = 0; l < lv; l++)
		if (key_add(key, f->kind[anc[l]], f->id[anc[l]], f->line[anc[l]]) ||
		    sbuf_put(key, "/", 1))
			return PV_ENOMEM;
	return key_add(key, f->kind[r], f->id[r], f->line[r]);
}

static bool has_prefix(const char *s, const char *pre)
{
	return strncmp(s, pre, strlen(pre)) == 0;
}

const struct pv_tree *pv_view_key_tree(const struct pv_view *v, const char **key,
				       const char **prefix)
{
	*prefix = "";
	if (has_prefix(*key, "up:") || has_prefix(*key, "down:")) {
		bool up = (*key)[0] == 'u';
		*prefix = up ? "up:" : "down:";
		*key += up ? 3 : 5;
		if (pv_view_kind(v->q.view)->outputs & PV_OUT_CALLERS)
			return up ? v->callers : v->tree;
		return NULL;
	}
	if (pv_view_kind(v->q.view)->outputs & PV_OUT_CALLERS)
		return NULL;
	return v->tree;
}

bool pv_view_find(const struct pv_view *v, const char *key, struct pv_row_ref *ref)
{
	ref->tree = NULL;
	ref->row = PV_NONE;
	ref->prefix = "";
	if (v->flat) {
		ref->row = flat_find_key(v->flat, pv_view_kind(v->q.view)->list, key);
		return ref->row != PV_NONE;
	}
	const char *rest = key;
	ref->tree = pv_view_key_tree(v, &rest, &ref->prefix);
	if (!ref->tree)
		return false;
	ref->row = tree_find_key(ref->tree, rest);
	return ref->row != PV_NONE;
}

enum pv_view_kind pv_view_kind_of_key(const struct pv_query *q, const char *key)
{
	if ((has_prefix(key, "up:") || has_prefix(key, "down:")) && q->nr_center)
		return PV_VIEW_BUTTERFLY;
	return q->view;
}

uint32_t pv_tree_heaviest(const struct pv_tree *t, uint32_t n, uint32_t *chain)
{
	uint32_t k = 0;
	uint32_t r = t->nr_roots ? t->roots[0] : PV_NONE;
	while (r != PV_NONE && k < n && t->child_len[r]) {
		chain[k++] = r;
		r = t->children[t->child_first[r]];
	}
	return k;
}

/* ---- scopes ---- */

void row_names_release(struct row_names *nm)
{
	pv_scope_names_free(nm->sn);
	memset(nm, 0, sizeof(*nm));
}

/* nm->sn, made on first need; NULL when memory ran out. */
static struct pv_scope_names *names_of(const struct pv_profile *p, struct row_names *nm)
{
	if (!nm->tried) {
		nm->tried = true;
		if (pv_scope_names_new(p, &nm->sn))
			nm->sn = NULL;
	}
	return nm->sn;
}

int func_scope(struct sbuf *b, const struct pv_profile *p, struct row_names *nm, uint32_t f)
{
	struct pv_scope_names *sn = names_of(p, nm);
	return sn ? scope_names_func(sn, f, b) : PV_ENOMEM;
}

/* re:^NAME$ with the ERE's special characters escaped: names any function name exactly. */
static int regex_scope(struct sbuf *b, const char *name)
{
	int rc = sbuf_puts(b, "re:^");
	for (const char *p = name; *p && !rc; p++) {
		if (strchr("\\.[()*+?{|^$", *p))
			rc = sbuf_put(b, "\\", 1);
		if (!rc)
			rc = sbuf_put(b, p, 1);
	}
	return rc ? rc : sbuf_put(b, "$", 1);
}

int row_scope(const struct pv_view *v, struct row_names *nm, uint8_t kind, uint32_t id,
	      uint32_t line, struct sbuf *b)
{
	const struct pv_profile *p = v->p;
	struct pv_scope_names *sn = names_of(p, nm);
	pv_module_ix m;
	pv_source_ix s;
	uint32_t fl;
	int rc;
	sbuf_reset(b);
	if (!sn)
		return PV_ENOMEM;
	switch (kind) {
	case PV_ROW_FUNCTION:
	case PV_ROW_LINE:
		if (id >= p->funcs.len) { /* a collapsed module */
			pv_view_row_place(v, PV_ROW_FUNCTION, id, &m, &s, &fl);
			rc = scope_names_module(sn, m, b);
		} else if (kind == PV_ROW_LINE) {
			rc = scope_names_line(sn, id, line, b);
		} else if (scope_reserved(pv_str(p, p->funcs.name[id]))) {
			rc = regex_scope(b, pv_str(p, p->funcs.name[id]));
		} else {
			rc = scope_names_func(sn, id, b);
		}
		break;
	case PV_ROW_FILE: rc = scope_names_file(sn, id, NULL, b); break;
	case PV_ROW_MODULE: rc = scope_names_module(sn, id, b); break;
	case PV_ROW_LOOP:
		if (id >= p->frames.len)
			return 0;
		rc = scope_names_loop(sn, id, b);
		break;
	default: return 0;
	}
	return rc ? PV_ENOMEM : 1;
}

int flat_row_scope(const struct pv_view *v, struct row_names *nm, const uint32_t *anc, uint32_t r,
		   struct sbuf *b)
{
	const struct pv_flat *f = v->flat;
	bool list = pv_view_kind(v->q.view)->list;
	if (f->kind[r] != PV_ROW_FILE || list || !f->level[r] ||
	    f->kind[anc[f->level[r] - 1]] != PV_ROW_MODULE)
		return row_scope(v, nm, f->kind[r], f->id[r], f->line[r], b);
	struct pv_scope_names *sn = names_of(v->p, nm);
	pv_module_ix m = f->id[anc[f->level[r] - 1]];
	sbuf_reset(b);
	return !sn || scope_names_file(sn, f->id[r], &m, b) ? PV_ENOMEM : 1;
}

/* ---- paths ---- */

enum path_mode path_mode_of(const struct pv_view *v, const struct pv_tree *t)
{
	if (t != v->tree || v->q.view == PV_VIEW_CALLERS || v->q.by != PV_BY_FUNCTION)
		return PATH_NONE;
	if (!v->centered)
		return PATH_ROOT;
	if (v->q.nr_center == 1 && has_prefix(v->q.center[0], "path:"))
		return PATH_CENTER;
	return PATH_NONE;
}

size_t path_step(const struct pv_view *v, struct row_names *nm, const struct pv_tree *t,
		 enum path_mode mode, uint32_t r, size_t plen, struct sbuf *path, bool *oom)
{
	if (mode == PATH_NONE)
		return NO_PATH;
	if (t->kind[r] == PV_ROW_CENTER) {
		if (mode != PATH_CENTER)
			return NO_PATH;
		if (sbuf_set(path, v->q.center[0] + 5, strlen(v->q.center[0] + 5))) {
			*oom = true;
			return NO_PATH;
		}
		return path->len;
	}
	if (plen == NO_PATH || t->kind[r] != PV_ROW_FUNCTION)
		return NO_PATH;
	char b[64];
	sbuf_setlen(path, plen);
	int rc = plen ? sbuf_put(path, ";", 1) : 0;
	size_t at = path->len;
	if (!rc && t->id[r] < v->p->funcs.len)
		rc = func_scope(path, v->p, nm, t->id[r]);
	else if (!rc)
		rc = sbuf_puts(path,
			       pv_view_row_name(v, t->kind[r], t->id[r], b, sizeof(b), t->line[r]));
	if (rc)
		*oom = true;
	if (rc || path->len == at || memchr(path->buf + at, ';', path->len - at)) {
		sbuf_setlen(path, plen);
		return NO_PATH;
	}
	return path->len;
}

size_t path_of(const struct pv_view *v, struct row_names *nm, const struct pv_tree *t, uint32_t r,
	       struct sbuf *path, bool *oom)
{
	enum path_mode mode = path_mode_of(v, t);
	if (mode == PATH_NONE)
		return NO_PATH;
	uint32_t depth = t->depth[r] + 1;
	uint32_t *chain = pv_malloc(sizeof(*chain) * depth);
	if (!chain) {
		*oom = true;
		return NO_PATH;
	}
	uint32_t n = 0;
	for (uint32_t x = r; x != PV_NONE && n < depth; x = t->parent[x])
		chain[n++] = x;
	size_t plen = mode == PATH_ROOT ? 0 : NO_PATH;
	sbuf_reset(path);
	while (n-- > 0)
		plen = path_step(v, nm, t, mode, chain[n], plen, path, oom);
	pv_free(chain);
	return plen;
}

/*
 * Every function row's scope names that function alone (scopename.c), so a path of function rows
 * names one call path: only a row of another kind (a center, a collapsed module) breaks it.
 */
bool path_unambiguous(const struct pv_view *v, struct row_names *nm, const struct pv_tree *t,
		      uint32_t r, bool *oom)
{
	if (!names_of(v->p, nm)) {
		*oom = true;
		return false;
	}
	for (; r != PV_NONE; r = t->parent[r])
		if (t->kind[r] != PV_ROW_FUNCTION || t->id[r] >= v->p->funcs.len)
			return false;
	return true;
}

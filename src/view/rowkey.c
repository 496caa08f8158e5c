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
	pv_free(nm->shared);
	memset(nm, 0, sizeof(*nm));
}

int func_scope(struct sbuf *b, const struct pv_profile *p, struct row_names *nm, uint32_t f)
{
	if (!nm->tried) {
		nm->tried = true;
		nm->shared = pv_malloc(p->funcs.len ? p->funcs.len : 1);
		if (nm->shared && pv_funcs_name_shared(p, nm->shared)) {
			pv_free(nm->shared);
			nm->shared = NULL;
		}
	}
	bool qualify = nm->shared && nm->shared[f];
	char buf[512];
	size_t n = pv_func_scope(p, f, qualify, buf, sizeof(buf));
	if (n < sizeof(buf))
		return sbuf_put(b, buf, n);
	if (sbuf_grow(b, n))
		return PV_ENOMEM;
	pv_func_scope(p, f, qualify, b->buf + b->len, n + 1);
	sbuf_setlen(b, b->len + n);
	return 0;
}

/* A name the query reader would take for another kind of scope. */
static bool reserved_name(const char *s)
{
	return !*s || has_prefix(s, "re:") || has_prefix(s, "file:") || has_prefix(s, "module:") ||
	       has_prefix(s, "line:") || has_prefix(s, "path:");
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

/* prefix then s: 1, or PV_ENOMEM */
static int scope2(struct sbuf *b, const char *prefix, const char *s)
{
	return sbuf_puts(b, prefix) || sbuf_puts(b, s) ? PV_ENOMEM : 1;
}

int row_scope(const struct pv_view *v, struct row_names *nm, uint8_t kind, uint32_t id,
	      uint32_t line, struct sbuf *b)
{
	const struct pv_profile *p = v->p;
	pv_module_ix m;
	pv_source_ix s;
	uint32_t fl;
	char num[16];
	sbuf_reset(b);
	switch (kind) {
	case PV_ROW_FUNCTION:
		if (id >= p->funcs.len) { /* a collapsed module */
			pv_view_row_place(v, PV_ROW_FUNCTION, id, &m, &s, &fl);
			if (m == PV_NONE || !*pv_str(p, p->modules.name[m]))
				return 0;
			return scope2(b, "module:", pv_str(p, p->modules.name[m]));
		}
		if (reserved_name(pv_str(p, p->funcs.name[id])))
			return regex_scope(b, pv_str(p, p->funcs.name[id])) ? PV_ENOMEM : 1;
		return func_scope(b, p, nm, id) ? PV_ENOMEM : 1;
	case PV_ROW_LINE:
		if (!line || id >= p->funcs.len)
			return 0;
		snprintf(num, sizeof(num), ":%u", line);
		s = pv_func_source(p, id);
		if (s != PV_NONE && *pv_str(p, p->sources.path[s])) {
			if (scope2(b, "line:", pv_str(p, p->sources.path[s])) < 0)
				return PV_ENOMEM;
		} else if (!reserved_name(pv_str(p, p->funcs.name[id]))) {
			if (sbuf_puts(b, pv_str(p, p->funcs.name[id])))
				return PV_ENOMEM;
		} else {
			return 0;
		}
		return sbuf_puts(b, num) ? PV_ENOMEM : 1;
	case PV_ROW_FILE:
		if (id == PV_NONE || !*pv_str(p, p->sources.path[id]))
			return 0;
		return scope2(b, "file:", pv_str(p, p->sources.path[id]));
	case PV_ROW_MODULE:
		if (id == PV_NONE || !*pv_str(p, p->modules.name[id]))
			return 0;
		return scope2(b, "module:", pv_str(p, p->modules.name[id]));
	case PV_ROW_LOOP: /* loop:FILE:LINE (every loop at that line) */
		pv_view_row_place(v, PV_ROW_LOOP, id, &m, &s, &fl);
		if (s == PV_NONE || !*pv_str(p, p->sources.path[s]) || !fl)
			return 0;
		snprintf(num, sizeof(num), ":%u", fl);
		if (scope2(b, "loop:", pv_str(p, p->sources.path[s])) < 0)
			return PV_ENOMEM;
		return sbuf_puts(b, num) ? PV_ENOMEM : 1;
	default: return 0;
	}
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
 * A step by name alone would merge "[unknown]" of two modules, a step without a file or line
 * two anonymous functions. A name no other function has names it alone; only shared names are
 * looked up, each function once, so a deep path costs one pass over the functions per distinct
 * shared-name function.
 */
bool path_unambiguous(const struct pv_view *v, struct row_names *nm, const struct pv_tree *t,
		      uint32_t r, bool *oom)
{
	const struct pv_profile *p = v->p;
	uint8_t *verdict = pv_calloc(p->funcs.len ? p->funcs.len : 1, 1); /* 1 alone, 2 not */
	uint8_t *mark = pv_malloc(p->funcs.len ? p->funcs.len : 1);
	struct sbuf step = SBUF_INIT;
	bool ok = mark && verdict;
	if (!ok)
		*oom = true;
	for (; ok && r != PV_NONE; r = t->parent[r]) {
		uint32_t f = t->id[r];
		if (t->kind[r] != PV_ROW_FUNCTION || f >= p->funcs.len) {
			ok = false;
			break;
		}
		if (!verdict[f]) {
			sbuf_reset(&step);
			if (func_scope(&step, p, nm, f)) { /* fills nm->shared */
				*oom = true;
				ok = false;
				break;
			}
			bool alone = nm->shared && !nm->shared[f];
			if (!alone) {
				memset(mark, 0, p->funcs.len);
				alone =
				    pv_scope_functions(p, sbuf_str(&step), mark) == 1 && mark[f];
			}
			verdict[f] = alone ? 1 : 2;
		}
		ok = verdict[f] == 1;
	}
	pv_free(mark);
	pv_free(verdict);
	sbuf_release(&step);
	return ok;
}

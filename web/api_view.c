/*
 * api_view.c - the view endpoints of the JSON API (doc/api.md): view, children, flame,
 * thread-costs, source.
 *
 * Every answer is cut from one computed view (api_view_get: the view cache), never a whole
 * tree: the view endpoint walks the roots and the children of the open rows only, children
 * lists one row's children, flame takes the heaviest N rows best first, so the work past
 * pv_view_compute is proportional to what is sent (a million-row tree sends a few hundred rows).
 *
 * Row keys (doc/api.md "Row keys") are the steps from a root, joined by '/': f<func>,
 * l<func>:<line>, s<source>|s-, m<module>|m-, c. A key is resolved by walking from the roots,
 * matching each step against the children of the row before (O(children) per step). Numbers in
 * keys are plain decimals without leading zeros, so a key that resolves is also the key the
 * server would write for that row.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"

/* temporary: FILE writers until the endpoints write through pv/jsonw.h */
static inline void web_json_string(FILE *out, const char *s)
{
	pv_json_fput_string(out, s);
}

static inline void web_json_ms(FILE *out, int64_t ns)
{
	struct pv_json *j = pv_json_new(out);
	if (j)
		pv_json_ms(j, ns);
	if (j)
		pv_json_finish(j);
	pv_json_free(j);
}
#include "pv/source.h"

#define THREADS_MAX	    256
#define FLAME_DEFAULT_NODES 20000
#define FLAME_MAX_NODES	    1000000
#define FLAME_KEY_BYTES	    1024 /* per node asked: the keys' budget (a deep stack's are long) */
#define FLAT_DEFAULT_LIMIT  500

/* ---- a growable string (keys, paths) ---- */

struct sb {
	char *s;
	size_t len, cap;
	bool oom;
};

static void sb_release(struct sb *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

static void sb_add(struct sb *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t nc = b->cap ? b->cap : 64;
		while (nc < b->len + n + 1)
			nc *= 2;
		char *ns = realloc(b->s, nc);
		if (!ns) {
			b->oom = true;
			return;
		}
		b->s = ns;
		b->cap = nc;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

static void sb_adds(struct sb *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

static void sb_cut(struct sb *b, size_t len)
{
	b->len = len;
	if (b->s)
		b->s[len] = 0;
}

/* ---- JSON ---- */

/* Length of the valid UTF-8 sequence at p (1..4), 0 when the bytes there are not one. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0];
	size_t n;
	unsigned lo = 0x80, hi = 0xbf;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0; /* overlong */
	else if (c == 0xed)
		hi = 0x9f; /* surrogates */
	else if (c == 0xf0)
		lo = 0x90; /* overlong */
	else if (c == 0xf4)
		hi = 0x8f; /* past U+10FFFF */
	if ((size_t)(end - p) < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/* The body of a JSON string of n bytes: escapes, U+FFFD for each byte not valid UTF-8. */
static void json_body(FILE *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	while (p < end) {
		/* a run of bytes written as they are: printable ASCII and valid UTF-8 */
		const unsigned char *run = p;
		for (;;) {
			if (p == end)
				break;
			if (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\') {
				p++;
				continue;
			}
			size_t len = *p >= 0x80 ? utf8_len(p, end) : 0;
			if (!len)
				break;
			p += len;
		}
		if (p > run)
			fwrite(run, 1, (size_t)(p - run), out);
		if (p == end)
			break;
		unsigned c = *p++;
		switch (c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (c < 0x80)
				fprintf(out, "\\u%04x", c);
			else
				fputs("\xef\xbf\xbd", out); /* not UTF-8: U+FFFD for the byte */
		}
	}
}

static void json_text(FILE *out, const char *s, size_t n)
{
	fputc('"', out);
	json_body(out, s, n);
	fputc('"', out);
}

static void json_str(FILE *out, const char *s)
{
	json_text(out, s, strlen(s));
}

/* a string, or null when NULL or empty */
static void json_str_or_null(FILE *out, const char *s)
{
	if (!s || !*s)
		fputs("null", out);
	else
		json_str(out, s);
}

static void json_costs(FILE *out, int64_t *const *col, uint32_t nm, uint32_t r)
{
	fputc('[', out);
	for (uint32_t m = 0; m < nm; m++)
		fprintf(out, "%s%" PRId64, m ? ", " : "", col[m][r]);
	fputc(']', out);
}

static void json_values(FILE *out, const int64_t *v, uint32_t n)
{
	fputc('[', out);
	for (uint32_t m = 0; m < n; m++)
		fprintf(out, "%s%" PRId64, m ? ", " : "", v[m]);
	fputc(']', out);
}

static const char *metric_name(const struct pv_view *v, uint32_t m)
{
	return pv_str(v->p, v->p->metrics.name[v->metrics[m]]);
}

static const char *metric_unit(const struct pv_view *v, uint32_t m)
{
	return pv_unit_name((enum pv_unit)v->p->metrics.unit[v->metrics[m]]);
}

static void json_metrics(FILE *out, const struct pv_view *v)
{
	fputc('[', out);
	for (uint32_t m = 0; m < v->nr_metrics; m++) {
		fputs(m ? ", {\"name\": " : "{\"name\": ", out);
		json_str(out, metric_name(v, m));
		fputs(", \"unit\": ", out);
		json_str(out, metric_unit(v, m));
		fputc('}', out);
	}
	fputc(']', out);
}

/* ---- requests ---- */

/*
 * The ready slot and the query of a request. Returns 0, or the status of the error it wrote.
 * q is initialized either way (release it).
 */
static int req_query(struct pv_api *a, const struct api_params *ps, FILE *out, uint32_t *slot,
		     struct api_slot **s, struct pv_query *q)
{
	int status = 0;
	pv_query_init(q);
	*s = api_slot(a, ps, out, &status);
	if (!*s)
		return status ? status : 500;
	if (!api_param_u32(ps, "p", 0, slot, out, &status))
		return status;
	return api_query(ps, q, out);
}

/* The view of q with another view kind and (by >= 0) granularity, through the cache. */
static struct pv_view *view_as(struct pv_api *a, uint32_t slot, const struct pv_query *q,
			       enum pv_view_kind kind, int by, FILE *out, int *status)
{
	struct pv_query c;
	pv_query_init(&c);
	if (pv_query_copy(&c, q)) {
		*status = api_error(out, 500, "out of memory");
		return NULL;
	}
	c.view = kind;
	if (by >= 0)
		c.by = (enum pv_granularity)by;
	struct pv_view *v = api_view_get(a, slot, &c, out, status);
	pv_query_release(&c);
	return v;
}

/* ---- scopes and names ---- */

static const char *row_name(const struct pv_view *v, uint8_t kind, uint32_t id, uint32_t line,
			    char *buf, size_t n)
{
	return pv_view_row_name(v, (enum pv_row_kind)kind, id, buf, n, line);
}

static bool has_prefix(const char *s, const char *pre)
{
	return strncmp(s, pre, strlen(pre)) == 0;
}

/* A name the query reader would take for another kind of scope. */
static bool reserved_name(const char *s)
{
	return !*s || has_prefix(s, "re:") || has_prefix(s, "file:") || has_prefix(s, "module:") ||
	       has_prefix(s, "line:") || has_prefix(s, "path:");
}

/* re:^NAME$ with the ERE's special characters escaped: names any function name exactly. */
static void regex_scope(struct sb *b, const char *name)
{
	sb_adds(b, "re:^");
	for (const char *p = name; *p; p++) {
		if (strchr("\\.[()*+?{|^$", *p))
			sb_add(b, "\\", 1);
		sb_add(b, p, 1);
	}
	sb_add(b, "$", 1);
}

/*
 * The functions whose name another function has (two anonymous functions of one line of
 * minified JavaScript): their scope is NAME@FILE:LINE[:COL]. Worked out once per request, when a
 * function row first needs its scope; without memory every scope is the plain name.
 */
struct names {
	uint8_t *shared;
	bool tried;
};

static void names_release(struct names *nm)
{
	free(nm->shared);
	memset(nm, 0, sizeof(*nm));
}

/* Appends the scope that names profile function f: NAME, or NAME@FILE:LINE[:COL] when shared. */
static void func_scope(struct sb *b, const struct pv_profile *p, struct names *nm, uint32_t f)
{
	if (!nm->tried) {
		nm->tried = true;
		nm->shared = malloc(p->funcs.len ? p->funcs.len : 1);
		if (nm->shared && pv_funcs_name_shared(p, nm->shared)) {
			free(nm->shared);
			nm->shared = NULL;
		}
	}
	bool qualify = nm->shared && nm->shared[f];
	char buf[512];
	size_t n = pv_func_scope(p, f, qualify, buf, sizeof(buf));
	if (n < sizeof(buf)) {
		sb_add(b, buf, n);
		return;
	}
	char *big = malloc(n + 1);
	if (!big) {
		b->oom = true;
		return;
	}
	pv_func_scope(p, f, qualify, big, n + 1);
	sb_add(b, big, n);
	free(big);
}

/*
 * The scope that names row (kind, id, line) in a query: false when none does (the center row,
 * "no file", "no module", a line row without a line). A function by its name, with its place
 * when another function has that name (func_scope; re:^NAME$ when the name reads as another
 * scope); a line as line:FILE:LINE when its function has a file, else FUNCTION:LINE; file:PATH;
 * module:NAME (also a collapsed module's frame).
 */
static bool row_scope(const struct pv_view *v, struct names *nm, uint8_t kind, uint32_t id,
		      uint32_t line, struct sb *b)
{
	const struct pv_profile *p = v->p;
	pv_module_ix m;
	pv_source_ix s;
	uint32_t fl;
	char num[16];
	sb_cut(b, 0);
	switch (kind) {
	case PV_ROW_FUNCTION:
		if (id >= p->funcs.len) { /* a collapsed module */
			pv_view_row_place(v, PV_ROW_FUNCTION, id, &m, &s, &fl);
			if (m == PV_NONE || !*pv_str(p, p->modules.name[m]))
				return false;
			sb_adds(b, "module:");
			sb_adds(b, pv_str(p, p->modules.name[m]));
			return true;
		}
		if (reserved_name(pv_str(p, p->funcs.name[id])))
			regex_scope(b, pv_str(p, p->funcs.name[id]));
		else
			func_scope(b, p, nm, id);
		return true;
	case PV_ROW_LINE:
		if (!line || id >= p->funcs.len)
			return false;
		snprintf(num, sizeof(num), ":%u", line);
		s = p->funcs.source[id];
		if (s != PV_NONE && *pv_str(p, p->sources.path[s])) {
			sb_adds(b, "line:");
			sb_adds(b, pv_str(p, p->sources.path[s]));
		} else if (!reserved_name(pv_str(p, p->funcs.name[id]))) {
			sb_adds(b, pv_str(p, p->funcs.name[id]));
		} else {
			return false;
		}
		sb_adds(b, num);
		return true;
	case PV_ROW_FILE:
		if (id == PV_NONE || !*pv_str(p, p->sources.path[id]))
			return false;
		sb_adds(b, "file:");
		sb_adds(b, pv_str(p, p->sources.path[id]));
		return true;
	case PV_ROW_MODULE:
		if (id == PV_NONE || !*pv_str(p, p->modules.name[id]))
			return false;
		sb_adds(b, "module:");
		sb_adds(b, pv_str(p, p->modules.name[id]));
		return true;
	default: return false;
	}
}

/* ---- row keys ---- */

/* One step of a key into buf (32 bytes); returns its length. */
static size_t step_text(char *buf, size_t n, uint8_t kind, uint32_t id, uint32_t line)
{
	int k;
	switch (kind) {
	case PV_ROW_FUNCTION: k = snprintf(buf, n, "f%u", id); break;
	case PV_ROW_LINE: k = snprintf(buf, n, "l%u:%u", id, line); break;
	case PV_ROW_FILE:
		k = id == PV_NONE ? snprintf(buf, n, "s-") : snprintf(buf, n, "s%u", id);
		break;
	case PV_ROW_MODULE:
		k = id == PV_NONE ? snprintf(buf, n, "m-") : snprintf(buf, n, "m%u", id);
		break;
	case PV_ROW_NOSTACK: k = snprintf(buf, n, "n"); break;
	default: k = snprintf(buf, n, "c"); break;
	}
	return k > 0 ? (size_t)k : 0;
}

static void step_add(struct sb *b, uint8_t kind, uint32_t id, uint32_t line)
{
	char buf[32];
	sb_add(b, buf, step_text(buf, sizeof(buf), kind, id, line));
}

struct step {
	uint8_t kind;
	uint32_t id, line;
};

/* A decimal without sign or leading zero, below UINT32_MAX; advances *s. */
static bool parse_u32(const char **s, uint32_t *out)
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
		st->kind = PV_ROW_FUNCTION;
		if (!parse_u32(&p, &st->id))
			return false;
		break;
	case 'l':
		st->kind = PV_ROW_LINE;
		if (!parse_u32(&p, &st->id) || *p++ != ':' || !parse_u32(&p, &st->line))
			return false;
		break;
	case 's':
	case 'm':
		st->kind = p[-1] == 's' ? PV_ROW_FILE : PV_ROW_MODULE;
		if (*p == '-')
			p++;
		else if (!parse_u32(&p, &st->id))
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

/* The row of t named by key (no up:/down: prefix), PV_NONE when none. */
static uint32_t tree_find(const struct pv_tree *t, const char *key)
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
static uint32_t flat_find(const struct pv_flat *f, bool list, const char *key)
{
	struct step st[4];
	uint32_t ns = 0;
	if (!*key)
		return PV_NONE;
	while (*key) {
		if (ns == (list ? 1 : 4) || !parse_step(&key, &st[ns]))
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

/* A row found from a key: a tree row or a flat row of the view. */
struct found {
	const struct pv_tree *t; /* NULL: a flat row */
	uint32_t row;
	const char *prefix; /* "", "up:" or "down:" */
};

/* The tree a key names and the rest of the key after its prefix; NULL when none. */
static const struct pv_tree *key_tree(const struct pv_view *v, const char **key,
				      const char **prefix)
{
	*prefix = "";
	if (has_prefix(*key, "up:") || has_prefix(*key, "down:")) {
		bool up = (*key)[0] == 'u';
		*prefix = up ? "up:" : "down:";
		*key += up ? 3 : 5;
		if (v->q.view == PV_VIEW_BUTTERFLY)
			return up ? v->callers : v->tree;
		return NULL;
	}
	if (v->q.view == PV_VIEW_BUTTERFLY)
		return NULL;
	return v->tree;
}

static bool view_find(const struct pv_view *v, const char *key, struct found *f)
{
	f->t = NULL;
	f->row = PV_NONE;
	f->prefix = "";
	if (v->flat) {
		f->row = flat_find(v->flat, v->q.view == PV_VIEW_TOP, key);
		return f->row != PV_NONE;
	}
	const char *rest = key;
	f->t = key_tree(v, &rest, &f->prefix);
	if (!f->t)
		return false;
	f->row = tree_find(f->t, rest);
	return f->row != PV_NONE;
}

/* Keys with up:/down: name rows of the butterfly of the same query. */
static enum pv_view_kind view_for_key(const struct pv_query *q, const char *key)
{
	if ((has_prefix(key, "up:") || has_prefix(key, "down:")) && q->nr_center)
		return PV_VIEW_BUTTERFLY;
	return q->view;
}

/* ---- tree rows ---- */

/*
 * Paths (the path: scope of a function row): names from the root joined by ';' in a plain
 * top-down tree, or from the center's own path: scope down in a tree centered on one path.
 * A name holding ';' (or empty) cannot be written in a path: such rows and those below have none.
 */
enum path_mode { PATH_NONE = 0, PATH_ROOT, PATH_CENTER };

static enum path_mode path_mode_of(const struct pv_view *v, const struct pv_tree *t)
{
	if (t != v->tree || v->q.view == PV_VIEW_CALLERS || v->q.by != PV_BY_FUNCTION)
		return PATH_NONE;
	if (!v->centered)
		return PATH_ROOT;
	if (v->q.nr_center == 1 && has_prefix(v->q.center[0], "path:"))
		return PATH_CENTER;
	return PATH_NONE;
}

#define NO_PATH SIZE_MAX

/*
 * The path length after row r whose parent's path ends at plen (NO_PATH: none). A step is the
 * function's scope (func_scope: its place when its name is shared), a collapsed module's name.
 */
static size_t path_step(const struct pv_view *v, struct names *nm, const struct pv_tree *t,
			enum path_mode mode, uint32_t r, size_t plen, struct sb *path)
{
	if (mode == PATH_NONE)
		return NO_PATH;
	if (t->kind[r] == PV_ROW_CENTER) {
		if (mode != PATH_CENTER)
			return NO_PATH;
		sb_cut(path, 0);
		const char *base = v->q.center[0] + 5;
		sb_adds(path, base);
		return path->len;
	}
	if (plen == NO_PATH || t->kind[r] != PV_ROW_FUNCTION)
		return NO_PATH;
	char b[64];
	sb_cut(path, plen);
	if (plen)
		sb_add(path, ";", 1);
	size_t at = path->len;
	if (t->id[r] < v->p->funcs.len)
		func_scope(path, v->p, nm, t->id[r]);
	else
		sb_adds(path, row_name(v, t->kind[r], t->id[r], t->line[r], b, sizeof(b)));
	if (path->oom || path->len == at || memchr(path->s + at, ';', path->len - at)) {
		sb_cut(path, plen);
		return NO_PATH;
	}
	return path->len;
}

/* The path of row r, built up from its ancestors (children endpoint). */
static size_t path_of(const struct pv_view *v, struct names *nm, const struct pv_tree *t,
		      uint32_t r, struct sb *path)
{
	enum path_mode mode = path_mode_of(v, t);
	if (mode == PATH_NONE)
		return NO_PATH;
	uint32_t depth = t->depth[r] + 1;
	uint32_t *chain = malloc(sizeof(*chain) * depth);
	if (!chain) {
		path->oom = true;
		return NO_PATH;
	}
	uint32_t n = 0;
	for (uint32_t x = r; x != PV_NONE && n < depth; x = t->parent[x])
		chain[n++] = x;
	size_t plen = mode == PATH_ROOT ? 0 : NO_PATH;
	sb_cut(path, 0);
	while (n-- > 0)
		plen = path_step(v, nm, t, mode, chain[n], plen, path);
	free(chain);
	return plen;
}

struct emit {
	FILE *out;
	const struct pv_view *v;
	const struct pv_tree *t;
	enum path_mode mode;
	struct sb key, path, scope;
	struct names names;
	bool any;      /* a row was written (commas) */
	uint64_t sent; /* rows written, at most the query's max_rows */
};

static void tree_row(struct emit *e, uint32_t r, size_t plen)
{
	const struct pv_view *v = e->v;
	const struct pv_profile *p = v->p;
	const struct pv_tree *t = e->t;
	FILE *out = e->out;
	char b[512];
	pv_module_ix m;
	pv_source_ix s;
	uint32_t fl;
	pv_view_row_place(v, (enum pv_row_kind)t->kind[r], t->id[r], &m, &s, &fl);
	if (t->kind[r] == PV_ROW_LINE && t->line[r])
		fl = t->line[r];
	fputs(e->any ? ",\n{\"key\": " : "\n{\"key\": ", out);
	e->any = true;
	json_text(out, e->key.s ? e->key.s : "", e->key.len);
	fputs(", \"name\": ", out);
	json_str(out, row_name(v, t->kind[r], t->id[r], t->line[r], b, sizeof(b)));
	fputs(", \"kind\": ", out);
	json_str(out, pv_row_kind_name((enum pv_row_kind)t->kind[r], t->inlined && t->inlined[r]));
	fputs(", \"module\": ", out);
	json_str_or_null(out, m == PV_NONE ? NULL : pv_str(p, p->modules.name[m]));
	fputs(", \"file\": ", out);
	json_str_or_null(out, s == PV_NONE ? NULL : pv_str(p, p->sources.path[s]));
	if (fl)
		fprintf(out, ", \"line\": %u", fl);
	else
		fputs(", \"line\": null", out);
	uint32_t col = pv_view_row_column(v, (enum pv_row_kind)t->kind[r], t->id[r]);
	if (col)
		fprintf(out, ", \"column\": %u", col);
	fprintf(out, ", \"depth\": %u, \"total\": ", t->depth[r]);
	json_costs(out, t->total, v->nr_metrics, r);
	fputs(", \"self\": ", out);
	json_costs(out, t->self, v->nr_metrics, r);
	if (t->estimated && t->estimated[r])
		fputs(", \"estimated\": true", out); /* a call-graph row away from the center */
	fprintf(out, ", \"children\": %u, \"scope\": ", t->child_len[r]);
	if (row_scope(v, &e->names, t->kind[r], t->id[r], t->line[r], &e->scope))
		json_text(out, e->scope.s, e->scope.len);
	else
		fputs("null", out);
	fputs(", \"path\": ", out);
	if (plen != NO_PATH && t->kind[r] == PV_ROW_FUNCTION) {
		fputs("\"path:", out);
		json_body(out, e->path.s, plen);
		fputc('"', out);
	} else {
		fputs("null", out);
	}
	fputc('}', out);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static bool is_open(const uint32_t *open, uint32_t n, uint32_t r)
{
	return n && bsearch(&r, open, n, sizeof(*open), cmp_u32) != NULL;
}

struct frame {
	uint32_t row; /* PV_NONE: the list the walk starts from */
	uint32_t next, stop;
	size_t klen, plen;
};

/*
 * The placeholder of the rows from..n of list that a per-parent limit left out: kind "more",
 * key PARENT/+FROM (+FROM for roots), the parent's key, the offset to ask children for, how
 * many rows are left and their summed costs.
 */
static void more_row(struct emit *e, const uint32_t *list, uint32_t from, uint32_t n, bool sep,
		     size_t klen, uint32_t depth)
{
	const struct pv_view *v = e->v;
	const struct pv_tree *t = e->t;
	FILE *out = e->out;
	int64_t total[PV_QUERY_MAX] = {0}, self[PV_QUERY_MAX] = {0};
	for (uint32_t i = from; i < n; i++) {
		for (uint32_t m = 0; m < v->nr_metrics; m++) {
			total[m] += t->total[m][list[i]];
			self[m] += t->self[m][list[i]];
		}
	}
	sb_cut(&e->key, klen);
	fputs(e->any ? ",\n{\"key\": \"" : "\n{\"key\": \"", out);
	e->any = true;
	json_body(out, e->key.s ? e->key.s : "", klen);
	fprintf(out, "%s+%u\", \"name\": \"\u2026 %u more rows\", \"kind\": \"more\", \"parent\": ",
		sep ? "/" : "", from, n - from);
	json_text(out, e->key.s ? e->key.s : "", klen);
	fprintf(out, ", \"offset\": %u, \"more\": %u, \"depth\": %u, \"total\": ", from, n - from,
		depth);
	json_values(out, total, v->nr_metrics);
	fputs(", \"self\": ", out);
	json_values(out, self, v->nr_metrics);
	fputs(", \"children\": 0}", out);
}

/*
 * Writes the rows of list from offset on (n rows in all; their parent's key is e->key, plen its
 * path) in pre-order, with the children of every open row (and of the center row) when
 * recurse. With limit (0: none), at most limit rows of each list, then a "more" row for the
 * rest. One frame per open level: the work is the rows written.
 */
static int emit_rows(struct emit *e, const uint32_t *list, uint32_t n, uint32_t offset,
		     uint32_t limit, bool sep, size_t plen, const uint32_t *open, uint32_t nopen,
		     bool recurse)
{
	const struct pv_tree *t = e->t;
	uint32_t cap = 16, sp = 0;
	uint64_t budget = e->v->q.max_rows;
	struct frame *st = malloc(sizeof(*st) * cap);
	if (!st)
		return -1;
	if (offset > n)
		offset = n;
	uint32_t stop = limit && n - offset > limit ? offset + limit : n;
	st[sp++] = (struct frame){PV_NONE, offset, stop, e->key.len, plen};
	while (sp) {
		struct frame *f = &st[sp - 1];
		const uint32_t *rows =
		    f->row == PV_NONE ? list : t->children + t->child_first[f->row];
		uint32_t nr = f->row == PV_NONE ? n : t->child_len[f->row];
		if (f->next == f->stop) {
			if (f->stop < nr) {
				uint32_t depth = f->row == PV_NONE ? t->depth[rows[0]] : t->depth[f->row] + 1;
				more_row(e, rows, f->stop, nr, f->row != PV_NONE || sep, f->klen, depth);
			}
			sp--;
			continue;
		}
		if (budget && e->sent >= budget) {
			f->stop =
			    f->next; /* past max-rows: the rest of each open list is a MORE row */
			continue;
		}
		uint32_t r = rows[f->next++];
		sb_cut(&e->key, f->klen);
		if (f->row != PV_NONE || sep)
			sb_add(&e->key, "/", 1);
		step_add(&e->key, t->kind[r], t->id[r], t->line[r]);
		size_t rp = path_step(e->v, &e->names, t, e->mode, r, f->plen, &e->path);
		tree_row(e, r, rp);
		e->sent++;
		if (recurse && t->child_len[r] &&
		    (t->kind[r] == PV_ROW_CENTER || is_open(open, nopen, r))) {
			if (sp == cap) {
				struct frame *ns = realloc(st, sizeof(*st) * cap * 2);
				if (!ns) {
					free(st);
					return -1;
				}
				st = ns;
				cap *= 2;
			}
			uint32_t nk = t->child_len[r];
			st[sp++] = (struct frame){r, 0, limit && nk > limit ? limit : nk, e->key.len, rp};
		}
	}
	free(st);
	return e->key.oom || e->path.oom || e->scope.oom ? -1 : 0;
}

static void emit_init(struct emit *e, FILE *out, const struct pv_view *v, const struct pv_tree *t)
{
	memset(e, 0, sizeof(*e));
	e->out = out;
	e->v = v;
	e->t = t;
	e->mode = path_mode_of(v, t);
}

static void emit_release(struct emit *e)
{
	sb_release(&e->key);
	sb_release(&e->path);
	sb_release(&e->scope);
	names_release(&e->names);
}

/* ---- the heaviest path (view's heaviest=N) ---- */

#define HEAVIEST_MAX 1024

/*
 * The heaviest path of t to open: its first root (the center row of a centered tree), then
 * each row's first child (children are sorted by the first metric's total), at most n rows,
 * ending before a row without children. Returns how many rows are in chain.
 */
static uint32_t heavy_chain(const struct pv_tree *t, uint32_t n, uint32_t *chain)
{
	uint32_t k = 0;
	uint32_t r = t->nr_roots ? t->roots[0] : PV_NONE;
	while (r != PV_NONE && k < n && t->child_len[r]) {
		chain[k++] = r;
		r = t->children[t->child_first[r]];
	}
	return k;
}

/* The keys of the k chain rows (prefix first) as JSON strings after ", " when *any. */
static int chain_keys(FILE *out, const struct pv_tree *t, const char *prefix,
		      const uint32_t *chain, uint32_t k, bool *any)
{
	struct sb key = {0};
	sb_adds(&key, prefix);
	for (uint32_t i = 0; i < k; i++) {
		if (i)
			sb_add(&key, "/", 1);
		step_add(&key, t->kind[chain[i]], t->id[chain[i]], t->line[chain[i]]);
		if (key.oom)
			break;
		fputs(*any ? ", " : "", out);
		json_text(out, key.s, key.len);
		*any = true;
	}
	int rc = key.oom ? -1 : 0;
	sb_release(&key);
	return rc;
}

/*
 * The rows of tree t (keys start with prefix), opening the rows named by open keys and the
 * nchain rows of chain, at most limit rows of each list (0: all).
 */
static int emit_tree(FILE *out, const struct pv_view *v, const struct pv_tree *t,
		     const char *prefix, const char *const *open_keys, uint32_t nkeys,
		     const uint32_t *chain, uint32_t nchain, uint32_t limit)
{
	uint32_t *open = malloc(sizeof(*open) * (nkeys + nchain ? nkeys + nchain : 1));
	if (!open)
		return -1;
	uint32_t nopen = 0;
	for (uint32_t i = 0; i < nchain; i++)
		open[nopen++] = chain[i];
	size_t pl = strlen(prefix);
	for (uint32_t i = 0; i < nkeys; i++) {
		const char *k = open_keys[i];
		if (strncmp(k, prefix, pl) != 0 ||
		    (!pl && (has_prefix(k, "up:") || has_prefix(k, "down:"))))
			continue;
		/* keys of rows not in this view (kept by the page across queries) are skipped */
		uint32_t r = tree_find(t, k + pl);
		if (r != PV_NONE)
			open[nopen++] = r;
	}
	qsort(open, nopen, sizeof(*open), cmp_u32);
	struct emit e;
	emit_init(&e, out, v, t);
	sb_adds(&e.key, prefix);
	int rc = emit_rows(&e, t->roots, t->nr_roots, 0, limit, false,
			   e.mode == PATH_ROOT ? 0 : NO_PATH, open, nopen, true);
	if (e.any)
		fputc('\n', out);
	emit_release(&e);
	free(open);
	return rc;
}

/* ---- flat and top rows ---- */

static void flat_row(FILE *out, const struct pv_view *v, struct names *nm, uint32_t r,
		     const struct sb *key, struct sb *scope, bool first)
{
	const struct pv_profile *p = v->p;
	const struct pv_flat *f = v->flat;
	char b[512];
	pv_module_ix m;
	pv_source_ix s;
	uint32_t fl;
	pv_view_row_place(v, (enum pv_row_kind)f->kind[r], f->id[r], &m, &s, &fl);
	if (f->kind[r] == PV_ROW_LINE && f->line[r])
		fl = f->line[r];
	fputs(first ? "\n{\"key\": " : ",\n{\"key\": ", out);
	json_text(out, key->s ? key->s : "", key->len);
	fputs(", \"name\": ", out);
	json_str(out, row_name(v, f->kind[r], f->id[r], f->line[r], b, sizeof(b)));
	fputs(", \"kind\": ", out);
	json_str(out, pv_row_kind_name((enum pv_row_kind)f->kind[r], f->inlined && f->inlined[r]));
	fprintf(out, ", \"level\": %u, \"in_center\": %s, \"module\": ", f->level[r],
		f->in_center[r] ? "true" : "false");
	json_str_or_null(out, m == PV_NONE ? NULL : pv_str(p, p->modules.name[m]));
	fputs(", \"file\": ", out);
	json_str_or_null(out, s == PV_NONE ? NULL : pv_str(p, p->sources.path[s]));
	if (fl)
		fprintf(out, ", \"line\": %u", fl);
	else
		fputs(", \"line\": null", out);
	uint32_t col = pv_view_row_column(v, (enum pv_row_kind)f->kind[r], f->id[r]);
	if (col)
		fprintf(out, ", \"column\": %u", col);
	fputs(", \"total\": ", out);
	json_costs(out, f->total, v->nr_metrics, r);
	fputs(", \"self\": ", out);
	json_costs(out, f->self, v->nr_metrics, r);
	fputs(", \"scope\": ", out);
	if (row_scope(v, nm, f->kind[r], f->id[r], f->line[r], scope))
		json_text(out, scope->s, scope->len);
	else
		fputs("null", out);
	fputc('}', out);
}

/* The key of flat row r whose ancestors by level are anc[0 .. level - 1]. */
static void flat_key(struct sb *key, const struct pv_flat *f, bool list, const uint32_t *anc,
		     uint32_t r)
{
	sb_cut(key, 0);
	uint32_t lv = list ? 0 : f->level[r];
	for (uint32_t l = 0; l < lv; l++) {
		step_add(key, f->kind[anc[l]], f->id[anc[l]], f->line[anc[l]]);
		sb_add(key, "/", 1);
	}
	step_add(key, f->kind[r], f->id[r], f->line[r]);
}

/*
 * Flat rows from..to (to excluded); with only_level (< 4), only those of that level (the
 * children of a row). anc holds the ancestors of from by level.
 */
static int emit_flat(FILE *out, const struct pv_view *v, uint32_t from, uint32_t to, uint32_t *anc,
		     uint32_t only_level)
{
	const struct pv_flat *f = v->flat;
	bool list = v->q.view == PV_VIEW_TOP;
	struct sb key = {0}, scope = {0};
	struct names nm = {0};
	bool first = true;
	for (uint32_t r = from; r < to; r++) {
		if (!list)
			anc[f->level[r]] = r;
		if (only_level < 4 && f->level[r] != only_level)
			continue;
		flat_key(&key, f, list, anc, r);
		flat_row(out, v, &nm, r, &key, &scope, first);
		first = false;
	}
	if (!first)
		fputc('\n', out);
	int rc = key.oom || scope.oom ? -1 : 0;
	sb_release(&key);
	sb_release(&scope);
	names_release(&nm);
	return rc;
}

/* ---- view ---- */

static void view_head(FILE *out, const struct pv_view *v)
{
	char *qj = pv_query_to_json(&v->q), *url = pv_query_to_url(&v->q);
	fputs("{\"query\": ", out);
	fputs(qj ? qj : "null", out);
	fputs(", \"url\": ", out);
	json_str(out, url ? url : "");
	free(qj);
	free(url);
	fputs(", \"view\": ", out);
	json_str(out, pv_view_name(v->q.view));
	fputs(", \"metrics\": ", out);
	json_metrics(out, v);
	fputs(", \"whole\": ", out);
	json_values(out, v->whole, v->nr_metrics);
	fputs(", \"center_total\": ", out);
	json_values(out, v->center, v->nr_metrics);
	fputs(", \"nostack\": ", out);
	json_values(out, v->nostack, v->nr_metrics);
	fputs(", \"base\": ", out);
	json_values(out, v->base, v->nr_metrics);
	fprintf(out, ", \"centered\": %s, \"center_label\": ", v->centered ? "true" : "false");
	json_str_or_null(out, v->centered ? v->center_label : NULL);
	fprintf(out, ", \"samples\": %" PRIu64, v->nr_samples);
	if (v->note) {
		fputs(", \"note\": ", out);
		json_str(out, v->note);
	}
}

int api_view(struct pv_api *a, const struct api_params *ps, FILE *out)
{
	struct api_slot *s;
	struct pv_query q;
	uint32_t slot;
	int status = req_query(a, ps, out, &slot, &s, &q);
	if (status) {
		pv_query_release(&q);
		return status;
	}
	uint32_t offset = 0, limit = FLAT_DEFAULT_LIMIT, heaviest = 0;
	if (!api_param_u32(ps, "offset", 0, &offset, out, &status) ||
	    !api_param_u32(ps, "limit", FLAT_DEFAULT_LIMIT, &limit, out, &status) ||
	    !api_param_u32(ps, "heaviest", 0, &heaviest, out, &status)) {
		pv_query_release(&q);
		return status;
	}
	bool want_opened = api_param(ps, "heaviest") != NULL;
	/* trees: limit caps each list of rows (none by default); flat and top: the page size */
	uint32_t per_parent = api_param(ps, "limit") ? limit : 0;
	if (heaviest > HEAVIEST_MAX)
		heaviest = HEAVIEST_MAX;
	struct pv_view *v = api_view_get(a, slot, &q, out, &status);
	pv_query_release(&q);
	if (!v)
		return status;
	const char **open = malloc(sizeof(*open) * API_MAX_PARAMS);
	if (!open) {
		api_view_release(a, v);
		return api_error(out, 500, "out of memory");
	}
	uint32_t nopen = api_param_all(ps, "open", open, API_MAX_PARAMS);
	if (nopen > API_MAX_PARAMS)
		nopen = API_MAX_PARAMS;
	/* the heaviest paths: of the tree, or of the butterfly's callers (up) and callees */
	uint32_t up[HEAVIEST_MAX], down[HEAVIEST_MAX], nup = 0, ndown = 0;
	const struct pv_tree *up_tree = v->q.view == PV_VIEW_BUTTERFLY ? v->callers : NULL;
	const struct pv_tree *down_tree = v->flat ? NULL : v->tree;
	if (up_tree)
		nup = heavy_chain(up_tree, heaviest, up);
	if (down_tree)
		ndown = heavy_chain(down_tree, heaviest, down);
	int rc = 0;
	view_head(out, v);
	if (want_opened) {
		bool any = false;
		fputs(", \"opened\": [", out);
		if (nup)
			rc = chain_keys(out, up_tree, "up:", up, nup, &any);
		if (!rc && ndown)
			rc = chain_keys(out, down_tree, up_tree ? "down:" : "", down, ndown, &any);
		fputc(']', out);
	}
	if (rc) {
		/* out of memory: the answer is replaced by the error below */
	} else if (v->flat) {
		const struct pv_flat *f = v->flat;
		uint32_t from = offset < f->len ? offset : f->len;
		uint32_t to = limit < f->len - from ? from + limit : f->len;
		uint32_t anc[4] = {0};
		/* the ancestors of the first row sent: one pass over the rows before it */
		if (v->q.view != PV_VIEW_TOP)
			for (uint32_t r = 0; r < from; r++)
				anc[f->level[r]] = r;
		fprintf(out, ", \"nr_rows\": %u, \"rows\": [", f->len);
		rc = emit_flat(out, v, from, to, anc, 4);
		fputs("]}\n", out);
	} else if (v->q.view == PV_VIEW_BUTTERFLY) {
		fputs(", \"callers\": [", out);
		rc = emit_tree(out, v, v->callers, "up:", open, nopen, up, nup, per_parent);
		fputs("], \"rows\": [", out);
		if (!rc)
			rc = emit_tree(out, v, v->tree, "down:", open, nopen, down, ndown,
					       per_parent);
		fputs("]}\n", out);
	} else {
		fputs(", \"rows\": [", out);
		rc = emit_tree(out, v, v->tree, "", open, nopen, down, ndown, per_parent);
		fputs("]}\n", out);
	}
	free(open);
	api_view_release(a, v);
	return rc ? api_error(out, 500, "out of memory") : 200;
}

/* ---- children ---- */

/*
 * The view of the request for a row key (the butterfly for up:/down: keys), with the key and
 * the request's query q (initialized either way: release it); NULL with *status on an error.
 */
static struct pv_view *keyed_view(struct pv_api *a, const struct api_params *ps, FILE *out,
				  int *status, const char **key, struct pv_query *q)
{
	struct api_slot *s;
	uint32_t slot;
	*status = req_query(a, ps, out, &slot, &s, q);
	if (*status)
		return NULL;
	*key = api_param(ps, "key");
	if (!*key) {
		*status = api_error(out, 400, "missing parameter 'key'");
		return NULL;
	}
	return view_as(a, slot, q, view_for_key(q, *key), -1, out, status);
}

int api_children(struct pv_api *a, const struct api_params *ps, FILE *out)
{
	struct pv_query q;
	const char *key;
	int status = 0;
	struct pv_view *v = keyed_view(a, ps, out, &status, &key, &q);
	pv_query_release(&q);
	if (!v)
		return status;
	uint32_t offset = 0, limit = 0;
	if (!api_param_u32(ps, "offset", 0, &offset, out, &status) ||
	    !api_param_u32(ps, "limit", 0, &limit, out, &status)) {
		api_view_release(a, v);
		return status;
	}
	/* an empty key (or only up:/down:) names the roots: the pages of a long list of roots */
	const char *rest = key, *prefix = "";
	const struct pv_tree *rt = v->flat ? NULL : key_tree(v, &rest, &prefix);
	struct found fd = {rt, PV_NONE, prefix};
	if (!(rt && !*rest) && !view_find(v, key, &fd)) {
		api_view_release(a, v);
		return api_error(out, 404, "no row '%s' in this view", key);
	}
	int rc = 0;
	fputs("{\"rows\": [", out);
	if (fd.t) {
		struct emit e;
		emit_init(&e, out, v, fd.t);
		sb_adds(&e.key, key);
		bool roots = fd.row == PV_NONE;
		size_t plen = roots ? (e.mode == PATH_ROOT ? 0 : NO_PATH)
				    : path_of(v, &e.names, fd.t, fd.row, &e.path);
		const uint32_t *list = roots ? fd.t->roots : fd.t->children + fd.t->child_first[fd.row];
		uint32_t n = roots ? fd.t->nr_roots : fd.t->child_len[fd.row];
		rc = emit_rows(&e, list, n, offset, limit, !roots, plen, NULL, 0, false);
		if (e.any)
			fputc('\n', out);
		emit_release(&e);
	} else if (v->q.view != PV_VIEW_TOP) {
		const struct pv_flat *f = v->flat;
		uint32_t anc[4] = {0}, lv = f->level[fd.row];
		for (uint32_t r = 0; r <= fd.row; r++)
			anc[f->level[r]] = r;
		uint32_t end = fd.row + 1;
		while (end < f->len && f->level[end] > lv)
			end++;
		rc = emit_flat(out, v, fd.row + 1, end, anc, lv + 1);
	}
	fputs("]}\n", out);
	api_view_release(a, v);
	return rc ? api_error(out, 500, "out of memory") : 200;
}

/* ---- flame ---- */

/*
 * The heaviest max rows of one or two trees, best first: a heap of candidates, each a (parent,
 * position) pair. Children are sorted by total, so a row's next sibling only becomes a
 * candidate once the row is taken and the kept children of a row are a prefix of its list:
 * O(max log max), whatever the size of the trees. Rows narrower than a pixel (below min[tree])
 * are not taken, and taking stops when the keys written would pass key_budget bytes: a key
 * names a row's whole path, so a chain 100,000 rows deep would write keys quadratic in its
 * depth (1.2 GB for 20,000 rows).
 */
struct fnode {
	uint32_t tree, row; /* row PV_NONE: the tree's virtual root over its roots */
	uint32_t first, last, next;
	uint64_t klen; /* the length of its key */
};

struct fcand {
	int64_t w;
	uint64_t seq;
	uint32_t parent, pos;
};

struct flame {
	const struct pv_tree *t[2];
	int64_t min[2];	     /* a pixel of each tree's width */
	uint64_t key_budget; /* bytes of keys, at most */
	struct fnode *nodes;
	uint32_t len, cap;
	struct fcand *heap;
	uint32_t hlen, hcap;
	uint64_t seq;
	bool oom;
};

static bool cand_before(const struct fcand *x, const struct fcand *y)
{
	return x->w != y->w ? x->w > y->w : x->seq < y->seq;
}

static void node_list(const struct flame *fl, uint32_t n, const uint32_t **list, uint32_t *len)
{
	const struct fnode *nd = &fl->nodes[n];
	const struct pv_tree *t = fl->t[nd->tree];
	if (nd->row == PV_NONE) {
		*list = t->roots;
		*len = t->nr_roots;
	} else {
		*list = t->children + t->child_first[nd->row];
		*len = t->child_len[nd->row];
	}
}

static void heap_push(struct flame *fl, uint32_t parent, uint32_t pos)
{
	const uint32_t *list;
	uint32_t len;
	node_list(fl, parent, &list, &len);
	if (pos >= len || fl->oom)
		return;
	if (fl->hlen == fl->hcap) {
		uint32_t nc = fl->hcap ? fl->hcap * 2 : 64;
		struct fcand *nh = realloc(fl->heap, sizeof(*nh) * nc);
		if (!nh) {
			fl->oom = true;
			return;
		}
		fl->heap = nh;
		fl->hcap = nc;
	}
	uint32_t tree = fl->nodes[parent].tree;
	const struct pv_tree *t = fl->t[tree];
	int64_t w = t->total[0][list[pos]];
	if ((w < 0 ? -w : w) < fl->min[tree])
		return; /* below a pixel: so are the siblings after it */
	struct fcand c = {w, fl->seq++, parent, pos};
	uint32_t i = fl->hlen++;
	while (i > 0 && cand_before(&c, &fl->heap[(i - 1) / 2])) {
		fl->heap[i] = fl->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	fl->heap[i] = c;
}

static struct fcand heap_pop(struct flame *fl)
{
	struct fcand top = fl->heap[0], last = fl->heap[--fl->hlen];
	uint32_t i = 0;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= fl->hlen)
			break;
		if (c + 1 < fl->hlen && cand_before(&fl->heap[c + 1], &fl->heap[c]))
			c++;
		if (!cand_before(&fl->heap[c], &last))
			break;
		fl->heap[i] = fl->heap[c];
		i = c;
	}
	if (fl->hlen)
		fl->heap[i] = last;
	return top;
}

static uint32_t node_add(struct flame *fl, uint32_t tree, uint32_t row)
{
	if (fl->len == fl->cap) {
		uint32_t nc = fl->cap ? fl->cap * 2 : 64;
		struct fnode *nn = realloc(fl->nodes, sizeof(*nn) * nc);
		if (!nn) {
			fl->oom = true;
			return PV_NONE;
		}
		fl->nodes = nn;
		fl->cap = nc;
	}
	fl->nodes[fl->len] = (struct fnode){tree, row, PV_NONE, PV_NONE, PV_NONE, 0};
	return fl->len++;
}

/* Keeps at most max rows of the trees (nodes 0 and 1 are their virtual roots). */
static void flame_prune(struct flame *fl, uint32_t ntrees, uint32_t max)
{
	for (uint32_t k = 0; k < ntrees; k++)
		node_add(fl, k, PV_NONE);
	for (uint32_t k = 0; k < ntrees; k++)
		heap_push(fl, k, 0);
	uint32_t kept = 0;
	uint64_t keys = 0;
	while (fl->hlen && kept < max && !fl->oom) {
		struct fcand c = heap_pop(fl);
		const uint32_t *list;
		uint32_t len;
		node_list(fl, c.parent, &list, &len);
		const struct fnode *pn0 = &fl->nodes[c.parent];
		const struct pv_tree *t = fl->t[pn0->tree];
		uint32_t r = list[c.pos];
		char step[32];
		uint64_t klen = pn0->klen + (pn0->row != PV_NONE) +
				step_text(step, sizeof(step), t->kind[r], t->id[r], t->line[r]);
		if (keys + klen > fl->key_budget)
			break;
		keys += klen;
		uint32_t n = node_add(fl, pn0->tree, r);
		if (n == PV_NONE)
			break;
		fl->nodes[n].klen = klen;
		struct fnode *pn = &fl->nodes[c.parent];
		if (pn->last == PV_NONE)
			pn->first = n;
		else
			fl->nodes[pn->last].next = n;
		pn->last = n;
		kept++;
		heap_push(fl, n, 0);
		heap_push(fl, c.parent, c.pos + 1);
	}
}

static void flame_open(FILE *out, const struct pv_view *v, const struct flame *fl, uint32_t n,
		       const struct sb *key)
{
	const struct fnode *nd = &fl->nodes[n];
	const struct pv_tree *t = fl->t[nd->tree];
	char b[512];
	fputs("{\"key\": ", out);
	json_text(out, key->s ? key->s : "", key->len);
	if (nd->row == PV_NONE) {
		int64_t tot = 0;
		for (uint32_t i = 0; i < t->nr_roots; i++)
			tot += t->total[0][t->roots[i]];
		fprintf(out,
			", \"name\": \"(all)\", \"total\": %" PRId64
			", \"self\": 0, \"children\": [",
			tot);
		return;
	}
	fputs(", \"name\": ", out);
	json_str(out,
		 row_name(v, t->kind[nd->row], t->id[nd->row], t->line[nd->row], b, sizeof(b)));
	fprintf(out, ", \"total\": %" PRId64 ", \"self\": %" PRId64 ", \"children\": [",
		t->total[0][nd->row], t->self[0][nd->row]);
}

/*
 * Writes node n and its kept descendants (an explicit stack: trees may be deep). A virtual root
 * is the node "(all)" of key ""; the keys below it start with prefix.
 */
static int flame_write(FILE *out, const struct pv_view *v, struct flame *fl, uint32_t n,
		       const char *prefix)
{
	struct sb key = {0};
	uint32_t cap = 16, sp = 0;
	struct fframe {
		uint32_t node, child;
		size_t klen;
	} *st = malloc(sizeof(*st) * cap);
	if (!st)
		return -1;
	const struct pv_tree *t = fl->t[fl->nodes[n].tree];
	if (fl->nodes[n].row != PV_NONE) {
		sb_adds(&key, prefix);
		step_add(&key, t->kind[fl->nodes[n].row], t->id[fl->nodes[n].row],
			 t->line[fl->nodes[n].row]);
	}
	flame_open(out, v, fl, n, &key);
	if (fl->nodes[n].row == PV_NONE)
		sb_adds(&key, prefix);
	st[sp++] = (struct fframe){n, fl->nodes[n].first, key.len};
	while (sp) {
		struct fframe *f = &st[sp - 1];
		uint32_t c = f->child;
		if (c == PV_NONE) {
			fputs("]}", out);
			sp--;
			continue;
		}
		if (c != fl->nodes[f->node].first)
			fputs(", ", out);
		f->child = fl->nodes[c].next;
		sb_cut(&key, f->klen);
		if (fl->nodes[f->node].row != PV_NONE)
			sb_add(&key, "/", 1);
		uint32_t r = fl->nodes[c].row;
		step_add(&key, t->kind[r], t->id[r], t->line[r]);
		flame_open(out, v, fl, c, &key);
		if (sp == cap) {
			struct fframe *ns = realloc(st, sizeof(*st) * cap * 2);
			if (!ns) {
				free(st);
				sb_release(&key);
				return -1;
			}
			st = ns;
			cap *= 2;
		}
		st[sp++] = (struct fframe){c, fl->nodes[c].first, key.len};
	}
	free(st);
	int rc = key.oom ? -1 : 0;
	sb_release(&key);
	return rc;
}

/* The center node of a centered tree (the virtual root's only child), or a zero node. */
static int flame_center(FILE *out, const struct pv_view *v, struct flame *fl, uint32_t root,
			const char *prefix)
{
	if (fl->nodes[root].first != PV_NONE)
		return flame_write(out, v, fl, fl->nodes[root].first, prefix);
	fputs("{\"key\": ", out);
	fprintf(out, "\"%sc\", \"name\": ", prefix);
	json_str(out, v->center_label ? v->center_label : "");
	fputs(", \"total\": 0, \"self\": 0, \"children\": []}", out);
	return 0;
}

int api_flame(struct pv_api *a, const struct api_params *ps, FILE *out)
{
	struct api_slot *s;
	struct pv_query q;
	uint32_t slot, max, width;
	int status = req_query(a, ps, out, &slot, &s, &q);
	if (status || !api_param_u32(ps, "max-nodes", FLAME_DEFAULT_NODES, &max, out, &status) ||
	    !api_param_u32(ps, "width", 0, &width, out, &status)) {
		pv_query_release(&q);
		return status;
	}
	if (max == 0 || max > FLAME_MAX_NODES) {
		pv_query_release(&q);
		return api_error(out, 400, "max-nodes takes 1 to %u", FLAME_MAX_NODES);
	}
	if (width > 100000) {
		pv_query_release(&q);
		return api_error(out, 400, "width takes 0 to 100000 pixels, not %u", width);
	}
	/* one computation gives both trees of a centered query: the butterfly */
	bool centered = q.nr_center > 0;
	struct pv_view *v =
	    view_as(a, slot, &q, centered ? PV_VIEW_BUTTERFLY : PV_VIEW_TREE, -1, out, &status);
	pv_query_release(&q);
	if (!v)
		return status;
	struct flame fl = {0};
	fl.t[0] = v->tree;
	fl.t[1] = v->callers;
	fl.key_budget = (uint64_t)max * FLAME_KEY_BYTES;
	for (uint32_t k = 0; width && k < 2; k++) {
		/* a pixel of the graph: of the roots' total, or of the center's row */
		const struct pv_tree *t = fl.t[k];
		int64_t whole = 0;
		for (uint32_t i = 0; t && i < t->nr_roots; i++)
			whole += t->total[0][t->roots[i]] < 0 ? -t->total[0][t->roots[i]]
							      : t->total[0][t->roots[i]];
		fl.min[k] = (whole + width - 1) / width;
	}
	flame_prune(&fl, centered ? 2 : 1, max);
	int rc = fl.oom ? -1 : 0;
	if (!rc) {
		fputs("{\"metric\": ", out);
		json_str(out, metric_name(v, 0));
		fputs(", \"unit\": ", out);
		json_str(out, metric_unit(v, 0));
		fprintf(out, ", \"total\": %" PRId64 ", \"callees\": ", v->whole[0]);
		if (centered) {
			rc = flame_center(out, v, &fl, 0, "down:");
			fputs(", \"callers\": ", out);
			if (!rc)
				rc = flame_center(out, v, &fl, 1, "up:");
		} else {
			rc = flame_write(out, v, &fl, 0, "");
			fputs(", \"callers\": null", out);
		}
		fputs("}\n", out);
	}
	free(fl.nodes);
	free(fl.heap);
	api_view_release(a, v);
	return rc ? api_error(out, 500, "out of memory") : 200;
}

/* ---- thread-costs ---- */

/*
 * Whether the path: scope of row r names only that row's path: every row from r up to the root
 * a function row whose step (func_scope) names that function alone (a step by name alone would
 * merge "[unknown]" of two modules, a step without a file or line two anonymous functions). A
 * name no other function has names it alone; only shared names are looked up, each function
 * once, so a deep path costs one pass over the functions per distinct shared-name function.
 */
static bool path_unambiguous(const struct pv_view *v, struct names *nm, const struct pv_tree *t,
			     uint32_t r)
{
	const struct pv_profile *p = v->p;
	uint8_t *verdict = calloc(p->funcs.len ? p->funcs.len : 1, 1); /* 1 alone, 2 not */
	uint8_t *mark = malloc(p->funcs.len ? p->funcs.len : 1);
	struct sb step = {0};
	bool ok = mark && verdict;
	for (; ok && r != PV_NONE; r = t->parent[r]) {
		uint32_t f = t->id[r];
		if (t->kind[r] != PV_ROW_FUNCTION || f >= p->funcs.len) {
			ok = false;
			break;
		}
		if (!verdict[f]) {
			sb_cut(&step, 0);
			func_scope(&step, p, nm, f); /* fills nm->shared */
			bool alone = !step.oom && step.s && nm->shared && !nm->shared[f];
			if (!alone && !step.oom && step.s) {
				memset(mark, 0, p->funcs.len);
				alone = pv_scope_functions(p, step.s, mark) == 1 && mark[f];
			}
			verdict[f] = alone ? 1 : 2;
		}
		ok = verdict[f] == 1;
	}
	free(mark);
	free(verdict);
	sb_release(&step);
	return ok;
}

int api_thread_costs(struct pv_api *a, const struct api_params *ps, FILE *out)
{
	struct pv_query q;
	const char *key;
	int status = 0;
	struct pv_view *v = keyed_view(a, ps, out, &status, &key, &q);
	if (!v) {
		pv_query_release(&q);
		return status;
	}
	struct found fd;
	if (!view_find(v, key, &fd)) {
		api_view_release(a, v);
		pv_query_release(&q);
		return api_error(out, 404, "no row '%s' in this view", key);
	}
	const struct pv_profile *p = v->p;
	uint32_t nm = v->nr_metrics;
	char b[512];
	fputs("{\"key\": ", out);
	json_str(out, key);
	fputs(", \"name\": ", out);
	if (fd.t)
		json_str(out, row_name(v, fd.t->kind[fd.row], fd.t->id[fd.row], fd.t->line[fd.row],
				       b, sizeof(b)));
	else
		json_str(out, row_name(v, v->flat->kind[fd.row], v->flat->id[fd.row],
				       v->flat->line[fd.row], b, sizeof(b)));
	fputs(", \"metrics\": ", out);
	json_metrics(out, v);
	/* the per-thread queries: q without its threads, the view the key was found in */
	struct pv_query base = q, tq;
	base.nr_threads = 0;
	base.view = v->q.view;
	uint32_t n = v->nr_threads < THREADS_MAX ? v->nr_threads : THREADS_MAX;
	fprintf(out, ", \"truncated\": %s, \"threads\": [", v->nr_threads > n ? "true" : "false");
	int rc = 0;
	/*
	 * A row of a top-down tree with a call path: one computation centered on that path gives
	 * each sample's part (2: the row is its leaf, 1: below it), summed per thread. Other rows
	 * (bottom-up, flat, no path): one view per thread.
	 */
	uint8_t *mask = NULL;
	struct names names = {0};
	if (fd.t && fd.t == v->tree && v->q.view == PV_VIEW_TREE && v->q.by == PV_BY_FUNCTION &&
	    path_unambiguous(v, &names, fd.t, fd.row)) {
		struct sb path = {0};
		if (path_of(v, &names, fd.t, fd.row, &path) != NO_PATH && !path.oom && path.s) {
			struct pv_query cq;
			struct pv_view *cv = NULL;
			struct pv_error err;
			if (pv_query_copy(&cq, &base) == 0) {
				for (uint32_t c = 0; c < cq.nr_center; c++)
					free(cq.center[c]);
				cq.nr_center = 0;
				cq.view = PV_VIEW_TREE;
				char *scope = malloc(path.len + 6);
				if (scope) {
					memcpy(scope, "path:", 5);
					memcpy(scope + 5, path.s, path.len + 1);
				}
				if (scope && pv_query_add_center(&cq, scope) == 0 &&
				    pv_view_compute_keep(p, &cq, &cv, NULL, &mask, &err) != 0)
					mask = NULL;
				free(scope);
				pv_view_free(cv);
				pv_query_release(&cq);
			}
		}
		sb_release(&path);
	}
	names_release(&names);
	for (uint32_t i = 0; i < n && !rc; i++) {
		pv_thread_ix t = v->threads[i];
		int64_t tot[PV_QUERY_MAX] = {0}, self[PV_QUERY_MAX] = {0};
		char tname[32];
		snprintf(tname, sizeof(tname), "#%u", t); /* the one thread of index t */
		bool alone = true;
		if (mask) {
			for (uint32_t x = p->threads.sample_begin[t]; x < p->threads.sample_end[t]; x++) {
				if (!mask[x])
					continue;
				for (uint32_t m = 0; m < nm; m++) {
					int64_t wgt = pv_sample_weight(p, v->metrics[m], x);
					tot[m] += wgt;
					if (mask[x] == 2)
						self[m] += wgt;
				}
			}
		} else if (p->threads.sample_end[t] > p->threads.sample_begin[t]) {
			struct pv_view *tv = NULL;
			struct pv_error err;
			pv_query_init(&tq);
			if (pv_query_copy(&tq, &base) || pv_query_add_thread(&tq, tname)) {
				rc = -1;
			} else if (pv_view_compute(p, &tq, &tv, &err)) {
				rc = err.code == PV_ENOMEM ? -1 : 0;
				alone = false;
			} else {
				struct found tf;
				if (view_find(tv, key, &tf)) {
					int64_t *const *ct = tf.t ? tf.t->total : tv->flat->total;
					int64_t *const *cs = tf.t ? tf.t->self : tv->flat->self;
					for (uint32_t m = 0; m < nm; m++) {
						tot[m] = ct[m][tf.row];
						self[m] = cs[m][tf.row];
					}
				}
			}
			pv_view_free(tv);
			pv_query_release(&tq);
		}
		fprintf(out, "%s\n{\"index\": %u, \"name\": ", i ? "," : "", t);
		json_str(out, pv_str(p, p->threads.name[t]));
		if (p->threads.tid[t] == PV_ID_NONE)
			fputs(", \"tid\": null", out);
		else
			fprintf(out, ", \"tid\": %" PRId64, p->threads.tid[t]);
		/* a thread whose query failed (not expected: "#N" always picks it) has no cost */
		if (alone) {
			fputs(", \"total\": ", out);
			json_values(out, tot, nm);
			fputs(", \"self\": ", out);
			json_values(out, self, nm);
		} else {
			fputs(", \"total\": null, \"self\": null", out);
		}
		fputc('}', out);
	}
	fputs(n ? "\n]}\n" : "]}\n", out);
	pv_free_keep(mask);
	api_view_release(a, v);
	pv_query_release(&q);
	return rc ? api_error(out, 500, "out of memory") : 200;
}

/* ---- source ---- */

/*
 * The definition lines of source id's functions that the query's centers name one by one (a
 * name, NAME@FILE:LINE[:COL], the last step of a path:), ascending.
 */
static void json_center_lines(FILE *out, const struct pv_profile *p, const struct pv_query *q,
			      pv_source_ix id)
{
	fputc('[', out);
	uint8_t *mark = calloc(p->funcs.len ? p->funcs.len : 1, 1);
	for (uint32_t c = 0; mark && c < q->nr_center; c++)
		pv_scope_functions(p, q->center[c], mark);
	uint32_t last = 0;
	bool any = false;
	for (;;) { /* the next line above last: the file's center functions are few */
		uint32_t next = UINT32_MAX;
		for (pv_func_ix f = 0; mark && f < p->funcs.len; f++) {
			uint32_t ln = p->funcs.line[f];
			if (mark[f] && p->funcs.source[f] == id && ln > last && ln < next)
				next = ln;
		}
		if (next == UINT32_MAX)
			break;
		fprintf(out, "%s%u", any ? ", " : "", next);
		any = true;
		last = next;
	}
	free(mark);
	fputc(']', out);
}

int api_source(struct pv_api *a, const struct api_params *ps, FILE *out)
{
	struct api_slot *s;
	struct pv_query q;
	uint32_t slot, id;
	int status = req_query(a, ps, out, &slot, &s, &q);
	if (status) {
		pv_query_release(&q);
		return status;
	}
	const struct pv_profile *p = s->p;
	const char *fp = api_param(ps, "file");
	if (!fp || !parse_u32(&fp, &id) || *fp || id >= p->sources.len ||
	    !*pv_str(p, p->sources.path[id])) {
		pv_query_release(&q);
		return api_error(out, 404, "no such source file");
	}
	const char *path = pv_str(p, p->sources.path[id]);
	char *data = NULL;
	size_t len = 0;
	char dir[4096];
	const char *roots[2];
	uint32_t nr = api_source_roots(a, s, dir, sizeof(dir), roots);
	if (pv_source_read(path, roots, nr, API_SOURCE_MAX, &data, &len)) {
		pv_query_release(&q);
		return api_error(out, 404, "cannot read source file '%s'", path);
	}
	/* per-line costs: the query at line granularity, one row per (function, line) */
	struct pv_view *v = view_as(a, slot, &q, PV_VIEW_TOP, PV_BY_LINE, out, &status);
	if (!v) {
		pv_query_release(&q);
		free(data);
		return status;
	}
	uint32_t nlines = 0;
	for (size_t i = 0; i < len; i++)
		nlines += data[i] == '\n';
	if (len && data[len - 1] != '\n')
		nlines++;
	uint32_t nm = v->nr_metrics;
	int64_t *cost = calloc((size_t)(nlines + 1) * 2 * nm, sizeof(*cost));
	uint8_t *has = calloc((size_t)nlines + 1, 1);
	if (!cost || !has) {
		free(cost);
		free(has);
		free(data);
		pv_query_release(&q);
		api_view_release(a, v);
		return api_error(out, 500, "out of memory");
	}
	const struct pv_flat *f = v->flat;
	for (uint32_t r = 0; r < f->len; r++) {
		uint32_t fn = f->id[r], ln = f->line[r];
		if (f->kind[r] != PV_ROW_LINE || fn >= p->funcs.len || p->funcs.source[fn] != id ||
		    ln == 0 || ln > nlines)
			continue;
		has[ln] = 1;
		for (uint32_t m = 0; m < nm; m++) {
			cost[((size_t)ln * nm + m) * 2] += f->total[m][r];
			cost[((size_t)ln * nm + m) * 2 + 1] += f->self[m][r];
		}
	}
	fprintf(out, "{\"id\": %u, \"path\": ", id);
	json_str(out, path);
	fputs(", \"metrics\": ", out);
	json_metrics(out, v);
	fputs(", \"center_lines\": ", out);
	json_center_lines(out, p, &q, id);
	pv_query_release(&q);
	fputs(", \"lines\": [", out);
	size_t at = 0;
	for (uint32_t ln = 1; ln <= nlines; ln++) {
		size_t e = at;
		while (e < len && data[e] != '\n')
			e++;
		size_t tl = e - at;
		if (tl && data[at + tl - 1] == '\r')
			tl--;
		fprintf(out, "%s\n{\"line\": %u, \"text\": ", ln > 1 ? "," : "", ln);
		json_text(out, data + at, tl);
		for (int k = 0; k < 2; k++) {
			fputs(k ? ", \"self\": " : ", \"total\": ", out);
			if (!has[ln]) {
				fputs("null", out);
				continue;
			}
			fputc('[', out);
			for (uint32_t m = 0; m < nm; m++)
				fprintf(out, "%s%" PRId64, m ? ", " : "",
					cost[((size_t)ln * nm + m) * 2 + (size_t)k]);
			fputc(']', out);
		}
		fputc('}', out);
		at = e + 1;
	}
	fputs(nlines ? "\n]}\n" : "]}\n", out);
	free(cost);
	free(has);
	free(data);
	api_view_release(a, v);
	return 200;
}

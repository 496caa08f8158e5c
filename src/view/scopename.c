/*
 * scopename.c - the scope that names one function, line, loop, file or module of a profile and
 * nothing else (doc/views.md, "Scopes as written"): scope.c's grammar written back, a qualifier
 * added only where a shorter text would also name another thing of the profile.
 *
 * A function is NAME when no other function has its name, else NAME@FILE:LINE[:COL] (or
 * NAME@FILE, NAME@FILE:0 and NAME@FILE:LINE:0 for the functions of no line or column), else
 * MODULE!NAME or MODULE!NAME@FILE..., else the most precise of these and #N, its rank among the
 * functions that text names. The functions of one name are found together in a table sorted by
 * name (the profile's strings are interned), so a scope costs its name's functions, not the
 * profile's. A text that the reader could take another way (a name holding '@', '!' or "#N", a
 * file ending in ":DIGITS", another function named like the whole text) is read back with
 * scope.c's reader before it is written.
 */
#include "view/engine.h"
#include "view/naming.h"

struct pv_scope_names {
	const struct pv_profile *p;
	/* shared[s]: whether two functions or more are named by string s; the functions of those
	 * names by (name, file slot, line, column, module slot, index) in order[0..nr_shared):
	 * those of a name side by side, and those a NAME@FILE form names side by side among them;
	 * pos[f] is such an f's place, [group[i], group_end[i]) the functions of the name of place
	 * i */
	uint8_t *shared;
	uint32_t *order, *pos, *group, *group_end, nr_shared;
	/* built on first need: the distinct names as an open-addressing set of name string + 1
	 * (0: free) by the hash of their text: whether some function is named like a text */
	uint32_t *names, names_mask;
	bool names_built;
	/* built on first need: (function << 32 | line) of the frames that are no loop, distinct,
	 * and (file slot << 32 | line) of each of those, sorted: how many functions of a file have
	 * a frame at a line */
	uint64_t *file_lines;
	uint32_t nr_file_lines;
	bool lines_built;
	/* built on first need: the loop frames in index order */
	uint32_t *loops, nr_loops;
	bool loops_built;
	/* built on first need: per file slot, the module slot of its functions, or MANY_MODULES */
	uint32_t *file_module;
};
#define MANY_MODULES (PV_NONE - 1)

void pv_scope_names_free(struct pv_scope_names *sn)
{
	if (!sn)
		return;
	pv_free(sn->shared);
	pv_free(sn->order);
	pv_free(sn->pos);
	pv_free(sn->group);
	pv_free(sn->group_end);
	pv_free(sn->names);
	pv_free(sn->file_lines);
	pv_free(sn->loops);
	pv_free(sn->file_module);
	pv_free(sn);
}

static int cmp_u32(uint32_t a, uint32_t b)
{
	return a < b ? -1 : a > b;
}

/* Functions by (name, file slot, line, column, module slot, index). */
static int cmp_func(const void *x, const void *y, void *ctx)
{
	const struct pv_profile *p = ctx;
	uint32_t f = *(const uint32_t *)x, g = *(const uint32_t *)y;
	int c = cmp_u32(p->funcs.name[f], p->funcs.name[g]);
	if (!c)
		c = cmp_u32(eng_source_slot(p, f), eng_source_slot(p, g));
	if (!c)
		c = cmp_u32(pv_func_line(p, f), pv_func_line(p, g));
	if (!c)
		c = cmp_u32(pv_func_column(p, f), pv_func_column(p, g));
	if (!c)
		c = cmp_u32(eng_module_slot(p, pv_func_module(p, f)),
			    eng_module_slot(p, pv_func_module(p, g)));
	return c ? c : cmp_u32(f, g);
}

int pv_scope_names_new(const struct pv_profile *p, struct pv_scope_names **out)
{
	struct pv_scope_names *sn = pv_calloc(1, sizeof(*sn));
	uint32_t nf = p->funcs.len, n1 = nf ? nf : 1;
	*out = NULL;
	if (!sn || !(sn->shared = pv_calloc(p->strings.len ? p->strings.len : 1, 1))) {
		pv_scope_names_free(sn);
		return PV_ENOMEM;
	}
	sn->p = p;
	/* the names of several functions (strings are interned: one text, one index) */
	for (uint32_t f = 0; f < nf; f++) {
		uint8_t *c = &sn->shared[p->funcs.name[f]];
		sn->nr_shared += *c == 1 ? 2 : *c == 2;
		*c += *c < 2;
	}
	uint32_t m = sn->nr_shared ? sn->nr_shared : 1;
	if (!(sn->order = pv_malloc(sizeof(uint32_t) * m)) ||
	    !(sn->pos = pv_malloc(sizeof(uint32_t) * n1)) ||
	    !(sn->group = pv_malloc(sizeof(uint32_t) * m)) ||
	    !(sn->group_end = pv_malloc(sizeof(uint32_t) * m))) {
		pv_scope_names_free(sn);
		return PV_ENOMEM;
	}
	/* their functions by name (order holding places in key, group scratch, then the
	 * functions), then each name's by the rest of cmp_func */
	uint64_t *key = pv_malloc(sizeof(uint64_t) * m);
	if (!key) {
		pv_scope_names_free(sn);
		return PV_ENOMEM;
	}
	uint32_t k = 0;
	for (uint32_t f = 0; f < nf; f++) {
		if (sn->shared[p->funcs.name[f]] == 2) {
			sn->group_end[k] = f;
			key[k] = p->funcs.name[f];
			sn->order[k] = k;
			k++;
		}
	}
	pv_radix_order_u64(key, k, sn->order, sn->group);
	for (uint32_t i = 0; i < k; i++)
		sn->order[i] = sn->group_end[sn->order[i]];
	pv_free(key);
	for (uint32_t i = 0, lo = 0; i <= k; i++) {
		if (i < k && p->funcs.name[sn->order[i]] == p->funcs.name[sn->order[lo]])
			continue;
		pv_sort_r(sn->order + lo, i - lo, sizeof(uint32_t), cmp_func, p);
		for (uint32_t x = lo; x < i; x++) {
			sn->group[x] = lo;
			sn->group_end[x] = i;
			sn->pos[sn->order[x]] = x;
		}
		lo = i;
	}
	for (uint32_t s = 0; s < p->strings.len; s++) /* 1: a name, 2: a name shared */
		sn->shared[s] = sn->shared[s] == 2;
	*out = sn;
	return 0;
}

static uint32_t name_slot(const struct pv_scope_names *sn, const char *s, size_t n)
{
	return (uint32_t)hash_bytes(s, n) & sn->names_mask;
}

/* The set of distinct names, at least twice as large as they are many. */
static int build_names(struct pv_scope_names *sn)
{
	const struct pv_profile *p = sn->p;
	uint32_t cap = 16;
	sn->names_built = true;
	while (cap < 2 * (uint64_t)p->funcs.len && cap < (1u << 31))
		cap *= 2;
	if (!(sn->names = pv_calloc(cap, sizeof(uint32_t))))
		return PV_ENOMEM;
	sn->names_mask = cap - 1;
	for (uint32_t f = 0; f < p->funcs.len; f++) {
		uint32_t x = p->funcs.name[f];
		uint32_t k = name_slot(sn, p->strings.ptr[x], p->strings.size[x]);
		while (sn->names[k] && sn->names[k] != x + 1)
			k = (k + 1) & sn->names_mask;
		sn->names[k] = x + 1;
	}
	return 0;
}

/* Whether some function is named s[0..n): 1, 0, or PV_ENOMEM. */
static int has_name(struct pv_scope_names *sn, const char *s, size_t n)
{
	const struct pv_profile *p = sn->p;
	if (!sn->names_built && build_names(sn))
		return PV_ENOMEM;
	if (!sn->names)
		return PV_ENOMEM;
	for (uint32_t k = name_slot(sn, s, n); sn->names[k]; k = (k + 1) & sn->names_mask) {
		uint32_t x = sn->names[k] - 1;
		if (p->strings.size[x] == n && memcmp(p->strings.ptr[x], s, n) == 0)
			return 1;
	}
	return 0;
}

/* ---- functions ---- */

/* What tells two functions of one name apart. */
struct fattr {
	uint32_t src, line, col, mod; /* src, mod: eng_source_slot, eng_module_slot */
};

static struct fattr fattr_of(const struct pv_profile *p, pv_func_ix f)
{
	return (struct fattr){eng_source_slot(p, f), pv_func_line(p, f), pv_func_column(p, f),
			      eng_module_slot(p, pv_func_module(p, f))};
}

static int put_module(const struct pv_profile *p, pv_module_ix m, struct sbuf *b);

/* The NAME@FILE forms: which of a file's functions of one name each names. */
enum at_form {
	AT_NONE,   /* f has no file */
	AT_FILE,   /* NAME@FILE: any line */
	AT_NOLINE, /* NAME@FILE:0 */
	AT_LINE,   /* NAME@FILE:LINE: any column */
	AT_NOCOL,  /* NAME@FILE:LINE:0 */
	AT_COL,	   /* NAME@FILE:LINE:COL */
};

static bool at_names(enum at_form form, const struct fattr *f, const struct fattr *g)
{
	switch (form) {
	case AT_FILE: return g->src == f->src;
	case AT_NOLINE: return g->src == f->src && !g->line;
	case AT_LINE: return g->src == f->src && g->line == f->line;
	case AT_NOCOL: return g->src == f->src && g->line == f->line && !g->col;
	case AT_COL: return g->src == f->src && g->line == f->line && g->col == f->col;
	default: return true;
	}
}

/* Which functions of the group a text names: with an @ form (AT_NONE: none), in f's module or
 * not. */
struct fnames {
	enum at_form at;
	bool module;
};

/*
 * How many functions w names among those of f's name, and f's rank among them (from 1, in the
 * profile's order). The functions a NAME@FILE form names are side by side in order, around f:
 * the scan goes from f's place as far as the form goes (the whole name for none).
 */
static uint32_t group_count(const struct pv_scope_names *sn, pv_func_ix f, struct fnames w,
			    uint32_t *rank)
{
	const struct pv_profile *p = sn->p;
	struct fattr a = fattr_of(p, f);
	uint32_t at = sn->pos[f], n = 0, before = 0;
	for (int dir = -1; dir <= 1; dir += 2) {
		for (uint32_t i = dir < 0 ? at : at + 1;
		     dir < 0 ? i-- > sn->group[at] : i<sn->group_end[at]; i += dir> 0) {
			pv_func_ix g = sn->order[i];
			struct fattr b = fattr_of(p, g);
			if (!at_names(w.at, &a, &b))
				break;
			if (!w.module || b.mod == a.mod) {
				n++;
				before += g < f;
			}
		}
	}
	*rank = before + 1;
	return n + 1;
}

/* Writes the text of w for f (and "#rank" when rank). */
static int put_func(struct sbuf *b, const struct pv_profile *p, pv_func_ix f, struct fnames w,
		    uint32_t rank)
{
	struct fattr a = fattr_of(p, f);
	int rc = 0;
	if (w.module) /* a text that names f's module alone */
		rc = put_module(p, a.mod, b) || sbuf_puts(b, "!");
	if (!rc)
		rc = sbuf_puts(b, pv_str(p, p->funcs.name[f]));
	if (!rc && w.at != AT_NONE)
		rc = sbuf_puts(b, "@") ||
		     sbuf_puts(b, a.src == p->sources.len ? "" : pv_str(p, p->sources.path[a.src]));
	if (!rc && w.at == AT_NOLINE)
		rc = sbuf_puts(b, ":0");
	if (!rc && w.at >= AT_LINE)
		rc = sbuf_addf(b, ":%u", a.line);
	if (!rc && w.at == AT_NOCOL)
		rc = sbuf_puts(b, ":0");
	if (!rc && w.at == AT_COL)
		rc = sbuf_addf(b, ":%u", a.col);
	if (!rc && rank)
		rc = sbuf_addf(b, "#%u", rank);
	return rc ? PV_ENOMEM : 0;
}

/* Whether a text of f's could be read another way than put_func means it (see the top). */
static bool odd(const struct pv_profile *p, pv_func_ix f)
{
	const char *name = pv_str(p, p->funcs.name[f]);
	if (strpbrk(name, "@!#"))
		return true;
	pv_module_ix m = pv_func_module(p, f);
	if (m != PV_NONE && (strchr(pv_str(p, p->modules.name[m]), '!') ||
			     strchr(pv_str(p, p->modules.path[m]), '!')))
		return true;
	uint32_t s = eng_source_slot(p, f);
	const char *path = s == p->sources.len ? "" : pv_str(p, p->sources.path[s]);
	size_t n = strlen(path);
	return n && path[n - 1] >= '0' && path[n - 1] <= '9';
}

/*
 * Whether the text b[from..] of w (ordinal: with "#N") names f alone (1; 0 not; PV_ENOMEM): read
 * back when it could be read another way, else checked for what the reader tries first: the
 * whole text as a name, then without "#N", then the part after "MODULE!" when it is more than
 * the name.
 */
static int names_alone(struct pv_scope_names *sn, pv_func_ix f, struct sbuf *b, size_t from,
		       struct fnames w, bool ordinal)
{
	const struct pv_profile *p = sn->p;
	const char *t = b->buf + from;
	size_t n = b->len - from;
	if (!odd(p, f)) {
		int h = has_name(sn, t, n);
		if (!h && ordinal) {
			n = (size_t)((const char *)memrchr(t, '#', n) - t);
			h = has_name(sn, t, n);
		}
		const char *bang = w.module && w.at != AT_NONE ? memchr(t, '!', n) : NULL;
		if (!h && bang)
			h = has_name(sn, bang + 1, (size_t)(t + n - bang - 1));
		return h < 0 ? h : !h;
	}
	uint8_t *mark = pv_calloc(p->funcs.len ? p->funcs.len : 1, 1);
	if (!mark)
		return PV_ENOMEM;
	uint32_t k = pv_scope_functions(p, sbuf_str(b) + from, mark);
	int ok = k == 1 && mark[f];
	pv_free(mark);
	return ok;
}

/* Appends the scope that names function f alone. 0 or PV_ENOMEM. */
int scope_names_func(struct pv_scope_names *sn, pv_func_ix f, struct sbuf *b)
{
	const struct pv_profile *p = sn->p;
	uint32_t rank = 0;
	if (!sn->shared[p->funcs.name[f]])
		return sbuf_puts(b, pv_str(p, p->funcs.name[f])) ? PV_ENOMEM : 0;
	struct fattr a = fattr_of(p, f);
	struct fnames w = {AT_NONE, false};
	/* the NAME@FILE form that tells f from the others of its file (NAME@:LINE:COL for a
	 * function of no file, as code a JavaScript engine compiled from no script), if one does */
	if (a.src != p->sources.len || a.line) {
		w.at = a.col ? AT_COL : a.line ? AT_LINE : AT_FILE;
		if (w.at != AT_COL && group_count(sn, f, w, &rank) > 1)
			w.at = a.line ? AT_NOCOL : AT_NOLINE;
	}
	/* NAME@FILE..., MODULE!NAME, MODULE!NAME@FILE..., then the last of them (NAME without
	 * either) with #N */
	struct fnames tries[4];
	int nt = 0;
	if (w.at != AT_NONE)
		tries[nt++] = w;
	if (a.mod != p->modules.len) {
		tries[nt++] = (struct fnames){AT_NONE, true};
		if (w.at != AT_NONE)
			tries[nt++] = (struct fnames){w.at, true};
	}
	tries[nt] = nt ? tries[nt - 1] : w;
	size_t from = b->len;
	for (int i = 0; i <= nt; i++) {
		bool ordinal = i == nt;
		uint32_t n = group_count(sn, f, tries[i], &rank);
		if (!ordinal && n != 1)
			continue;
		sbuf_setlen(b, from);
		if (put_func(b, p, f, tries[i], ordinal ? rank : 0))
			return PV_ENOMEM;
		int ok = names_alone(sn, f, b, from, tries[i], ordinal);
		if (ok)
			return ok < 0 ? ok : 0;
	}
	return 0; /* read another way even with its rank: the best there is */
}

size_t pv_func_scope(struct pv_scope_names *sn, pv_func_ix f, char *buf, size_t n)
{
	struct sbuf b = SBUF_INIT;
	size_t len = 0;
	if (!scope_names_func(sn, f, &b)) {
		len = b.len;
		if (n)
			snprintf(buf, n, "%s", sbuf_str(&b));
	} else if (n) {
		buf[0] = 0;
	}
	sbuf_release(&b);
	return len;
}

/* ---- lines ---- */

/* v[0..n) ascending (a radix sort: a page's answer may hold a million frames' lines); tmp and
 * order hold n each. */
static void sort_u64(uint64_t *v, uint32_t n, uint64_t *tmp, uint32_t *order, uint32_t *scratch)
{
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	pv_radix_order_u64(v, n, order, scratch);
	for (uint32_t i = 0; i < n; i++)
		tmp[i] = v[order[i]];
	memcpy(v, tmp, sizeof(uint64_t) * n);
}

static int build_lines(struct pv_scope_names *sn)
{
	const struct pv_profile *p = sn->p;
	sn->lines_built = true;
	uint32_t n = p->frames.len, n1 = n ? n : 1;
	uint64_t *fl = pv_malloc(sizeof(uint64_t) * n1), *tmp = pv_malloc(sizeof(uint64_t) * n1);
	uint32_t *order = pv_malloc(sizeof(uint32_t) * n1),
		 *scratch = pv_malloc(sizeof(uint32_t) * n1);
	int rc = fl && tmp && order && scratch ? 0 : PV_ENOMEM;
	uint32_t k = 0, d = 0;
	for (pv_frame_ix x = 0; !rc && x < n; x++)
		if (pv_frame_kind(p, x) != PV_FRAME_LOOP)
			fl[k++] = (uint64_t)p->frames.func[x] << 32 | pv_frame_line(p, x);
	if (!rc)
		sort_u64(fl, k, tmp, order, scratch);
	for (uint32_t i = 0; !rc && i < k; i++) /* each (function, line) once, as (file, line) */
		if (!i || fl[i] != fl[i - 1])
			fl[d++] = fl[i];
	for (uint32_t i = 0; !rc && i < d; i++)
		fl[i] =
		    (uint64_t)eng_source_slot(p, (uint32_t)(fl[i] >> 32)) << 32 | (uint32_t)fl[i];
	if (!rc)
		sort_u64(fl, d, tmp, order, scratch);
	pv_free(tmp);
	pv_free(order);
	pv_free(scratch);
	if (rc) {
		pv_free(fl);
		return rc;
	}
	sn->file_lines = fl;
	sn->nr_file_lines = d;
	return 0;
}

/* How many functions of file slot s have a frame at line. */
static uint32_t file_line_funcs(const struct pv_scope_names *sn, uint32_t s, uint32_t line)
{
	uint64_t key = (uint64_t)s << 32 | line;
	uint32_t lo = 0, hi = sn->nr_file_lines;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (sn->file_lines[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint32_t n = 0;
	while (lo + n < sn->nr_file_lines && sn->file_lines[lo + n] == key)
		n++;
	return n;
}

/*
 * Appends the scope of line `line` of function f (a row by line): line:FILE:LINE when no other
 * function of the file has that line, else FUNCTION:LINE with f's own scope (line:FUNCTION:LINE
 * when the reader would take FUNCTION:LINE for a function). 0 or PV_ENOMEM.
 */
int scope_names_line(struct pv_scope_names *sn, pv_func_ix f, uint32_t line, struct sbuf *b)
{
	const struct pv_profile *p = sn->p;
	if (!sn->lines_built && build_lines(sn))
		return PV_ENOMEM;
	uint32_t s = eng_source_slot(p, f);
	if (s != p->sources.len && sn->file_lines && file_line_funcs(sn, s, line) == 1)
		return scope_file_line(p, s, line, b);
	size_t from = b->len;
	if (scope_names_func(sn, f, b) || sbuf_addf(b, ":%u", line))
		return PV_ENOMEM;
	/* FUNCTION:LINE is read as a function first: a name, or a qualified function's text */
	bool plain = !memchr(b->buf + from, '@', b->len - from) &&
		     !memchr(b->buf + from, '!', b->len - from) &&
		     !memchr(b->buf + from, '#', b->len - from);
	int taken = has_name(sn, b->buf + from, b->len - from);
	if (taken < 0)
		return taken;
	if (taken || scope_reserved(b->buf + from)) {
		taken = 1;
	} else if (!plain) {
		uint8_t *mark = pv_calloc(p->funcs.len ? p->funcs.len : 1, 1);
		if (!mark)
			return PV_ENOMEM;
		taken = pv_scope_functions(p, sbuf_str(b) + from, mark) != 0;
		pv_free(mark);
	}
	if (!taken)
		return 0;
	/* line:FUNCTION:LINE: FUNCTION is read as a file first, which a function's text is not */
	sbuf_setlen(b, from);
	if (sbuf_puts(b, "line:") || scope_names_func(sn, f, b) || sbuf_addf(b, ":%u", line))
		return PV_ENOMEM;
	return 0;
}

int scope_file_line(const struct pv_profile *p, pv_source_ix s, uint32_t line, struct sbuf *b)
{
	return sbuf_addf(b, "line:%s:%u", pv_str(p, p->sources.path[s]), line) ? PV_ENOMEM : 0;
}

/* ---- loops ---- */

static int build_loops(struct pv_scope_names *sn)
{
	const struct pv_profile *p = sn->p;
	sn->loops_built = true;
	uint32_t n = 0;
	for (pv_frame_ix x = 0; x < p->frames.len; x++)
		n += pv_frame_kind(p, x) == PV_FRAME_LOOP;
	sn->loops = pv_malloc(sizeof(uint32_t) * (n ? n : 1));
	if (!sn->loops)
		return PV_ENOMEM;
	for (pv_frame_ix x = 0; x < p->frames.len; x++)
		if (pv_frame_kind(p, x) == PV_FRAME_LOOP)
			sn->loops[sn->nr_loops++] = x;
	return 0;
}

/*
 * Appends the scope of loop frame x: loop:FILE:LINE (loop:FUNCTION:LINE for a loop of no file),
 * then :0xADDR when other loops of that file (function) have that line, then #N when some of
 * those have that address too (or no address is known). 0 or PV_ENOMEM.
 */
int scope_names_loop(struct pv_scope_names *sn, pv_frame_ix x, struct sbuf *b)
{
	const struct pv_profile *p = sn->p;
	if (!sn->loops_built && build_loops(sn))
		return PV_ENOMEM;
	if (!sn->loops)
		return PV_ENOMEM;
	pv_source_ix s = eng_loop_source(p, x);
	pv_func_ix fn = p->frames.func[x];
	uint32_t line = pv_frame_line(p, x);
	uint64_t addr = pv_frame_addr(p, x);
	uint32_t n_line = 0, n_addr = 0, r_line = 0, r_addr = 0;
	for (uint32_t i = 0; i < sn->nr_loops; i++) {
		pv_frame_ix y = sn->loops[i];
		if (pv_frame_line(p, y) != line ||
		    (s != PV_NONE ? eng_loop_source(p, y) != s : p->frames.func[y] != fn))
			continue;
		n_line++;
		if (y == x)
			r_line = n_line;
		if (addr != PV_ADDR_NONE && pv_frame_addr(p, y) == addr) {
			n_addr++;
			if (y == x)
				r_addr = n_addr;
		}
	}
	int rc = sbuf_puts(b, "loop:");
	if (!rc && s != PV_NONE)
		rc = sbuf_puts(b, pv_str(p, p->sources.path[s]));
	else if (!rc)
		rc = scope_names_func(sn, fn, b);
	if (!rc)
		rc = sbuf_addf(b, ":%u", line);
	if (!rc && n_line > 1 && addr != PV_ADDR_NONE)
		rc = sbuf_addf(b, ":0x%" PRIx64, addr);
	if (!rc && n_line > 1 && (addr == PV_ADDR_NONE || n_addr > 1))
		rc = sbuf_addf(b, "#%u", addr == PV_ADDR_NONE ? r_line : r_addr);
	return rc ? PV_ENOMEM : 0;
}

/* ---- files and modules ---- */

/* Appends what names module m alone after "module:" (see scope_names_module). */
static int put_module(const struct pv_profile *p, pv_module_ix m, struct sbuf *b)
{
	if (eng_module_slot(p, m) == p->modules.len)
		return 0;
	pv_str_ix name = p->modules.name[m], path = p->modules.path[m];
	uint32_t same = 0, rank = 0, path_named = 0, path_same = 0;
	for (pv_module_ix k = 0; k < p->modules.len; k++) {
		if (p->modules.name[k] == name && ++same && k == m)
			rank = same;
		path_named += p->modules.name[k] == path;
		path_same += p->modules.path[k] == path;
	}
	int rc;
	if (same == 1)
		rc = sbuf_puts(b, pv_str(p, name));
	else if (*pv_str(p, path) && !path_named && path_same == 1)
		rc = sbuf_puts(b, pv_str(p, path));
	else
		rc = sbuf_addf(b, "%s#%u", pv_str(p, name), rank);
	return rc ? PV_ENOMEM : 0;
}

/* Appends module:NAME, or module:PATH when another module has its name, or module:NAME#N when
 * that path is no help; module: for no module. */
int scope_names_module(struct pv_scope_names *sn, pv_module_ix m, struct sbuf *b)
{
	return sbuf_puts(b, "module:") || put_module(sn->p, m, b) ? PV_ENOMEM : 0;
}

/* Whether the functions of file slot s are in more than one module (slot), built on first
 * need. */
static int file_in_modules(struct pv_scope_names *sn, uint32_t s)
{
	const struct pv_profile *p = sn->p;
	if (!sn->file_module) {
		uint32_t ns = p->sources.len + 1;
		sn->file_module = pv_malloc(sizeof(uint32_t) * ns);
		if (!sn->file_module)
			return PV_ENOMEM;
		for (uint32_t i = 0; i < ns; i++)
			sn->file_module[i] = PV_NONE;
		for (pv_func_ix f = 0; f < p->funcs.len; f++) {
			uint32_t *fm = &sn->file_module[eng_source_slot(p, f)];
			uint32_t m = eng_module_slot(p, pv_func_module(p, f));
			*fm = *fm == PV_NONE || *fm == m ? m : MANY_MODULES;
		}
	}
	return sn->file_module[s] == MANY_MODULES;
}

/*
 * Appends file:PATH (the file's whole path names it alone), file: for no file; a file row of the
 * flat view under module *in (in: NULL, not nested) of a file in several modules:
 * file:MODULE!PATH.
 */
int scope_names_file(struct pv_scope_names *sn, pv_source_ix s, const pv_module_ix *in,
		     struct sbuf *b)
{
	const struct pv_profile *p = sn->p;
	const char *path = s == PV_NONE ? "" : pv_str(p, p->sources.path[s]);
	int many = in ? file_in_modules(sn, *path ? s : p->sources.len) : 0;
	if (many < 0)
		return many;
	int rc = sbuf_puts(b, "file:");
	if (!rc && many)
		rc = put_module(p, *in, b) || sbuf_puts(b, "!");
	return rc || sbuf_puts(b, path) ? PV_ENOMEM : 0;
}

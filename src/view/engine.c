/*
 * engine.c - views of a query: the sample pass, the filters, the center, and the trees.
 *
 * The pipeline (doc/views.md):
 *   1. one pass over the selected samples (threads, time range, inside markers matching a
 *      search: a binary search in each thread's union of their intervals) sums each metric per
 *      stack (samples without a stack apart: they stay in the whole, as the (no stack) row of
 *      an uncentered view; doc/samples-and-inlines.md); with --inline fold, one rebuild folds
 *      inlined frames into the frames that hold them;
 *   2. each filter is one pass over the working stack table in index order: include/drop zero
 *      the cost of stacks; merge, collapse and focus build a new table by interning (prefix,
 *      frame) pairs and move each stack's cost to its image;
 *   3. the center's outermost match of every stack (its anchor) takes one more pass;
 *   4. rows are interned per (parent row, row key) in stack order, so rows are numbered parents
 *      first and totals come from one backward pass; bottom-up trees walk each anchor's callers.
 * Nothing recurses per frame, so stacks thousands of frames deep are fine.
 *
 * The working table's frames are "vframes": a profile frame, or (>= frames.len) a frame of a
 * pseudo-function standing for a collapsed module.
 */
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/sort.h"
#include "base/text.h"
#include "pv/marker.h"
#include "pv/view.h"
#include "view/internal.h"

/* ---- working stack table ---- */

struct wst {
	uint32_t len;
	uint32_t *frame, *prefix; /* borrowed from the profile until a transform */
	bool owned;
	int64_t *cost[PV_QUERY_MAX];
};

struct pv_engine {
	const struct pv_profile *p;
	struct pv_view *v;
	struct pv_error *err;
	uint32_t nm; /* metrics */
	struct wst w;
	/* pv_view_compute_keep only: the working stack of each profile stack (PV_NONE once a
	 * transform removed all its frames) and whether an include/drop filter dropped it */
	uint32_t *origin;
	uint8_t *odrop;
	uint8_t *skeep; /* per sample: selected by threads, range, tags, inside-markers */
	/* the center while a view kind's builder runs: each working stack's outermost match
	 * (NULL: no center) and the center's scopes */
	const uint32_t *anchor;
	const struct scope *center;
	uint32_t ncenter;
	/* pv__view_rows only: build_top_down keeps its row of each working stack here */
	bool want_node;
	uint32_t *node;
};

static uint32_t vf_func(const struct pv_view *v, uint32_t vf)
{
	const struct pv_profile *p = v->p;
	return vf < p->frames.len ? p->frames.func[vf] : p->funcs.len + (vf - p->frames.len);
}

static uint32_t vf_line(const struct pv_view *v, uint32_t vf)
{
	return vf < v->p->frames.len ? v->p->frames.line[vf] : 0;
}

/* An inlined frame: inline depth 1 or more (a pseudo-frame never is). */
static bool vf_inlined(const struct pv_view *v, uint32_t vf)
{
	return vf < v->p->frames.len && v->p->frames.inline_depth[vf] > 0;
}

/* ---- frames of lexical scopes (HPCToolkit loops and statements: doc/hpctoolkit.md) ---- */

static uint8_t vf_kind(const struct pv_view *v, uint32_t vf)
{
	return vf < v->p->frames.len ? v->p->frames.kind[vf] : PV_FRAME_CODE;
}

/* The file of a frame's line: its own (a loop or line in another file), else its function's. */
static pv_source_ix vf_source(const struct pv_view *v, uint32_t vf)
{
	const struct pv_profile *p = v->p;
	if (vf >= p->frames.len)
		return PV_NONE;
	return p->frames.source[vf] != PV_NONE ? p->frames.source[vf]
					       : p->funcs.source[p->frames.func[vf]];
}

static pv_module_ix fn_module(const struct pv_view *v, uint32_t f)
{
	return f < v->p->funcs.len ? v->p->funcs.module[f] : v->pseudo_module[f - v->p->funcs.len];
}

static pv_source_ix fn_source(const struct pv_view *v, uint32_t f)
{
	return f < v->p->funcs.len ? v->p->funcs.source[f] : PV_NONE;
}

static const char *fn_name(const struct pv_view *v, uint32_t f)
{
	const struct pv_profile *p = v->p;
	if (f < p->funcs.len)
		return pv_str(p, p->funcs.name[f]);
	return pv_str(p, p->modules.name[v->pseudo_module[f - p->funcs.len]]);
}

/* ---- scopes ---- */

enum scope_kind { SC_FUNCS, SC_LINE, SC_PATH, SC_FRAMES };

struct scope {
	enum scope_kind kind;
	const char *text;
	uint8_t *fmatch;     /* over profile functions */
	pv_module_ix module; /* module:NAME also matches that module's collapsed frames */
	uint32_t line;
	char **path;	       /* SC_PATH: the steps as written, from the root */
	uint32_t **path_funcs; /* SC_PATH: the profile functions each step names, ascending */
	uint32_t *path_nfuncs;
	uint32_t path_len;
	uint8_t *vmatch; /* SC_FRAMES: over profile frames (loop:FILE:LINE) */
};

static void scope_release(struct scope *s)
{
	pv_free(s->fmatch);
	pv_free(s->vmatch);
	for (uint32_t i = 0; i < s->path_len; i++) {
		pv_free(s->path[i]);
		if (s->path_funcs)
			pv_free(s->path_funcs[i]);
	}
	pv_free(s->path);
	pv_free(s->path_funcs);
	pv_free(s->path_nfuncs);
	memset(s, 0, sizeof(*s));
}

/* Whether path ends with suffix[0..b) as whole path components. */
static bool ends_with_path_n(const char *path, const char *suffix, size_t b)
{
	size_t a = strlen(path);
	if (b == 0 || b > a)
		return false;
	if (memcmp(path + a - b, suffix, b) != 0)
		return false;
	/* a whole path component: "foo.c" matches "src/foo.c", not "src/barfoo.c" */
	return a == b || path[a - b - 1] == '/' || path[a - b - 1] == '\\' || suffix[0] == '/';
}

static bool ends_with_path(const char *path, const char *suffix)
{
	return ends_with_path_n(path, suffix, strlen(suffix));
}

static bool module_named(const struct pv_profile *p, pv_module_ix m, const char *name)
{
	if (m == PV_NONE)
		return false;
	return strcmp(pv_str(p, p->modules.name[m]), name) == 0 ||
	       ends_with_path(pv_str(p, p->modules.path[m]), name);
}

/* Marks the functions of file "path"; returns how many. */
static uint32_t mark_file(const struct pv_profile *p, uint8_t *fm, const char *path)
{
	uint32_t n = 0;
	for (uint32_t f = 0; f < p->funcs.len; f++) {
		pv_source_ix s = p->funcs.source[f];
		if (s != PV_NONE && ends_with_path(pv_str(p, p->sources.path[s]), path)) {
			fm[f] = 1;
			n++;
		}
	}
	return n;
}

static uint32_t mark_name(const struct pv_profile *p, uint8_t *fm, const char *name, size_t len)
{
	uint32_t n = 0;
	for (uint32_t f = 0; f < p->funcs.len; f++) {
		pv_str_ix s = p->funcs.name[f];
		if (p->strings.size[s] == len && memcmp(p->strings.ptr[s], name, len) == 0) {
			fm[f] = 1;
			n++;
		}
	}
	return n;
}

/* Parses ":DIGITS" at the end of s[0..n); returns the number (0 when absent) and the split point.
 */
static uint32_t trailing_number(const char *s, size_t n, size_t *head)
{
	size_t i = n;
	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i == n || i < 2 || s[i - 1] != ':' || n - i > 9)
		return 0;
	*head = i - 1;
	uint32_t v = 0;
	for (size_t k = i; k < n; k++)
		v = v * 10 + (uint32_t)(s[k] - '0');
	return v;
}

static uint32_t trailing_line(const char *s, size_t *head)
{
	return trailing_number(s, strlen(s), head);
}

/*
 * NAME@FILE:LINE:COL (col != 0) or NAME@FILE:LINE (col == 0), the text s[0..n) ending before
 * ":LINE": marks the functions named NAME that a file whose path ends with FILE defines at LINE
 * (and column COL); line ANY_LINE: NAME@FILE, at any line (formats that know no line, as
 * callgrind: a function is its file and its name). Names and URLs may hold '@': each '@' from
 * the left splits NAME from FILE until one matches.
 */
#define ANY_LINE UINT32_MAX
static uint32_t mark_defined_at(const struct pv_profile *p, uint8_t *fm, const char *s, size_t n,
				uint32_t line, uint32_t col)
{
	for (const char *at = memchr(s, '@', n); at;
	     at = memchr(at + 1, '@', (size_t)(s + n - at - 1))) {
		size_t nl = (size_t)(at - s), fl = n - nl - 1;
		uint32_t k = 0;
		for (uint32_t f = 0; f < p->funcs.len; f++) {
			pv_str_ix sn = p->funcs.name[f];
			pv_source_ix src = p->funcs.source[f];
			if ((line != ANY_LINE && p->funcs.line[f] != line) ||
			    (col && p->funcs.column[f] != col) || src == PV_NONE ||
			    p->strings.size[sn] != nl || memcmp(p->strings.ptr[sn], s, nl) != 0 ||
			    !ends_with_path_n(pv_str(p, p->sources.path[src]), at + 1, fl))
				continue;
			fm[f] = 1;
			k++;
		}
		if (k)
			return k;
	}
	return 0;
}

/*
 * One function as a scope or a step of a path names it: NAME (every function of that name),
 * NAME@FILE:LINE[:COL] (the one defined there: two functions of one name, as JavaScript's
 * anonymous functions on one line of minified code, are told apart), or NAME@FILE (the one of
 * that file, whatever its line: callgrind's functions of one name in two files). Returns how
 * many it marked.
 */
static uint32_t mark_function(const struct pv_profile *p, uint8_t *fm, const char *s, size_t n)
{
	uint32_t k = mark_name(p, fm, s, n);
	if (k || !memchr(s, '@', n))
		return k;
	size_t h1, h2;
	uint32_t last = trailing_number(s, n, &h1);
	if (last) {
		uint32_t line = trailing_number(s, h1, &h2);
		if (line && (k = mark_defined_at(p, fm, s, h2, line, last)) != 0)
			return k;
		if ((k = mark_defined_at(p, fm, s, h1, last, 0)) != 0)
			return k;
	}
	return mark_defined_at(p, fm, s, n, ANY_LINE, 0);
}

int pv_funcs_name_shared(const struct pv_profile *p, uint8_t *shared)
{
	uint8_t *seen = pv_calloc(p->strings.len ? p->strings.len : 1, 1);
	if (!seen)
		return PV_ENOMEM;
	for (uint32_t f = 0; f < p->funcs.len; f++)
		if (seen[p->funcs.name[f]] < 2)
			seen[p->funcs.name[f]]++;
	for (uint32_t f = 0; f < p->funcs.len; f++)
		shared[f] = seen[p->funcs.name[f]] > 1;
	pv_free(seen);
	return 0;
}

size_t pv_func_scope(const struct pv_profile *p, pv_func_ix f, bool qualify, char *buf, size_t n)
{
	const char *name = pv_str(p, p->funcs.name[f]);
	pv_source_ix s = p->funcs.source[f];
	uint32_t line = p->funcs.line[f], col = p->funcs.column[f];
	int k;
	if (!qualify || s == PV_NONE || !*pv_str(p, p->sources.path[s]))
		k = snprintf(buf, n, "%s", name);
	else if (!line)
		k = snprintf(buf, n, "%s@%s", name, pv_str(p, p->sources.path[s]));
	else if (col)
		k = snprintf(buf, n, "%s@%s:%u:%u", name, pv_str(p, p->sources.path[s]), line, col);
	else
		k = snprintf(buf, n, "%s@%s:%u", name, pv_str(p, p->sources.path[s]), line);
	return k < 0 ? 0 : (size_t)k;
}

uint32_t pv_scope_functions(const struct pv_profile *p, const char *scope, uint8_t *mark)
{
	if (strncmp(scope, "path:", 5) == 0) {
		const char *last = strrchr(scope, ';');
		scope = last ? last + 1 : scope + 5;
	} else if (strncmp(scope, "re:", 3) == 0 || strncmp(scope, "file:", 5) == 0 ||
		   strncmp(scope, "module:", 7) == 0 || strncmp(scope, "line:", 5) == 0) {
		return 0;
	}
	return mark_function(p, mark, scope, strlen(scope));
}

/*
 * The budget of a re: scope, checked before regcomp: glibc expands bounded repetitions (a{1,100}
 * is 100 copies of a) and matches back-references by backtracking, so a query string could make
 * compiling or matching take minutes. re_size estimates the expanded size: an atom is 1, a
 * group the sum of its parts, a repetition {m,n} multiplies what it repeats by n (m for {m,}),
 * saturating.
 */
#define RE_MAX_TEXT  1024
#define RE_MAX_SIZE  20000
#define RE_MAX_DEPTH 32

static uint64_t re_mul(uint64_t a, uint64_t b)
{
	return a && b > RE_MAX_SIZE * 4 / a ? RE_MAX_SIZE * 4 : a * b;
}

static uint64_t re_size(const char *p, size_t *i, int depth, bool *backref)
{
	uint64_t total = 0, last = 0;
	if (depth > RE_MAX_DEPTH)
		return RE_MAX_SIZE * 4;
	while (p[*i] && total < RE_MAX_SIZE * 4) {
		char c = p[(*i)++];
		if (c == '(') {
			last = re_size(p, i, depth + 1, backref);
			total += last;
		} else if (c == ')') {
			return total;
		} else if (c == '\\') {
			if (p[*i] >= '1' && p[*i] <= '9')
				*backref = true;
			if (p[*i])
				(*i)++;
			last = 1;
			total += 1;
		} else if (c == '[') { /* a bracket expression: one atom */
			if (p[*i] == '^')
				(*i)++;
			if (p[*i] == ']')
				(*i)++;
			while (p[*i] && p[*i] != ']')
				(*i)++;
			if (p[*i])
				(*i)++;
			last = 1;
			total += 1;
		} else if (c == '{') {
			uint64_t m = 0, n = 0;
			bool comma = false;
			for (; p[*i] && p[*i] != '}'; (*i)++) {
				if (p[*i] == ',')
					comma = true;
				else if (p[*i] >= '0' && p[*i] <= '9')
					*(comma ? &n : &m) =
					    (comma ? n : m) * 10 + (uint64_t)(p[*i] - '0');
				if (m > RE_MAX_SIZE || n > RE_MAX_SIZE)
					m = n = RE_MAX_SIZE;
			}
			if (p[*i])
				(*i)++;
			uint64_t bound = comma && n ? n : m;
			uint64_t grown = re_mul(last, bound ? bound : 1);
			total += grown > last ? grown - last : 0;
			last = grown;
		} else if (c == '*' || c == '+' || c == '?') {
			total += last;
		} else if (c == '|') {
			last = 0;
		} else {
			last = 1;
			total += 1;
		}
	}
	return total;
}

/* 0 when pattern is within the budget, else 1 with why saying what is over it. */
static int regex_budget(const char *pattern, char *why, size_t len)
{
	size_t n = strlen(pattern), i = 0;
	if (n > RE_MAX_TEXT) {
		snprintf(why, len, "regular expression of %zu bytes (at most %d)", n, RE_MAX_TEXT);
		return 1;
	}
	bool backref = false;
	uint64_t size = 0;
	while (pattern[i]) /* a stray ')' ends re_size early: go on after it */
		size += re_size(pattern, &i, 0, &backref);
	if (backref) {
		snprintf(why, len,
			 "back-references (\\1 ... \\9) are not allowed in a regular "
			 "expression: matching them can take exponential time");
		return 1;
	}
	if (size > RE_MAX_SIZE) {
		snprintf(why, len,
			 "regular expression too large once its repetitions are expanded (%s%llu "
			 "states, at most %d)",
			 size >= RE_MAX_SIZE * 4 ? "over " : "", (unsigned long long)size,
			 RE_MAX_SIZE);
		return 1;
	}
	return 0;
}

/* Compiles text, "re:REGEX", within the budget; what names the role in messages. 0 or PV_EINVAL. */
static int re_compile(regex_t *re, const char *text, const char *what, struct pv_error *err)
{
	char why[160];
	if (regex_budget(text + 3, why, sizeof(why)))
		return pv_error_set(err, PV_EINVAL, "%s '%.80s%s': %s", what, text,
				    strlen(text) > 80 ? "..." : "", why);
	int rc = regcomp(re, text + 3, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char msg[128];
		regerror(rc, re, msg, sizeof(msg));
		return pv_error_set(err, PV_EINVAL, "%s '%s': bad regular expression: %s", what,
				    text, msg);
	}
	return 0;
}

/* The threads one name marks in mark[] (pv_thread_select): 0, or PV_EINVAL when none. */
static int thread_mark(const struct pv_profile *p, const char *spec, uint8_t *mark,
		       pv_thread_ix *found, struct pv_error *err)
{
	uint32_t n = 0;
	if (strncmp(spec, "re:", 3) == 0) {
		regex_t re;
		int rc = re_compile(&re, spec, "--thread", err);
		if (rc)
			return rc;
		for (pv_thread_ix t = 0; t < p->threads.len; t++) {
			if (regexec(&re, pv_str(p, p->threads.name[t]), 0, NULL, 0) == 0) {
				mark[t] = 1;
				n++;
			}
		}
		regfree(&re);
		if (!n)
			return pv_error_set(err, PV_EINVAL,
					    "no thread name matches '%s' (see "
					    "'profview info')",
					    spec);
		return 0;
	}
	n = pv_thread_find(p, spec, found, p->threads.len);
	for (uint32_t j = 0; j < n && j < p->threads.len; j++)
		mark[found[j]] = 1;
	if (!n)
		return pv_error_set(err, PV_EINVAL, "no thread named '%s' (see 'profview info')",
				    spec);
	return 0;
}

int pv_thread_select(const struct pv_profile *p, const char *const *names, uint32_t n,
		     pv_thread_ix **out, uint32_t *nr, struct pv_error *err)
{
	uint32_t len = p->threads.len ? p->threads.len : 1;
	pv_thread_ix *t = pv_malloc(len * sizeof(*t));
	*out = NULL;
	*nr = 0;
	if (!t)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	if (!n) {
		for (pv_thread_ix i = 0; i < p->threads.len; i++)
			t[(*nr)++] = i;
		*out = t;
		return 0;
	}
	/* the threads each name finds, marked, then listed once each in index order */
	uint8_t *mark = pv_calloc(len, 1);
	pv_thread_ix *found = pv_malloc(len * sizeof(*found));
	int rc = mark && found ? 0 : pv_error_set(err, PV_ENOMEM, "out of memory");
	for (uint32_t i = 0; !rc && i < n; i++)
		rc = thread_mark(p, names[i], mark, found, err);
	for (pv_thread_ix i = 0; !rc && i < p->threads.len; i++)
		if (mark[i])
			t[(*nr)++] = i;
	pv_free(mark);
	pv_free(found);
	if (rc) {
		pv_free(t);
		*nr = 0;
		return rc;
	}
	*out = t;
	return 0;
}

/*
 * Compiles a scope for profile p. what names the role in messages ("center", "--merge").
 * A scope that matches nothing is an error: it is almost always a typo.
 */
static int scope_compile_loop(struct pv_engine *e, struct scope *sc, const char *text,
			      const char *what);

static int scope_compile(struct pv_engine *e, struct scope *sc, const char *text, const char *what)
{
	const struct pv_profile *p = e->p;
	if (strncmp(text, "loop:", 5) == 0)
		return scope_compile_loop(e, sc, text, what);
	memset(sc, 0, sizeof(*sc));
	sc->text = text;
	sc->kind = SC_FUNCS;
	sc->module = PV_NONE;
	sc->fmatch = pv_calloc(p->funcs.len ? p->funcs.len : 1, 1);
	if (!sc->fmatch)
		return pv_error_set(e->err, PV_ENOMEM, "out of memory");
	uint32_t n = 0;
	if (strncmp(text, "re:", 3) == 0) {
		regex_t re;
		int rc = re_compile(&re, text, what, e->err);
		if (rc)
			return rc;
		for (uint32_t f = 0; f < p->funcs.len; f++) {
			if (regexec(&re, pv_str(p, p->funcs.name[f]), 0, NULL, 0) == 0) {
				sc->fmatch[f] = 1;
				n++;
			}
		}
		regfree(&re);
	} else if (strncmp(text, "file:", 5) == 0) {
		n = mark_file(p, sc->fmatch, text + 5);
	} else if (strncmp(text, "module:", 7) == 0) {
		for (pv_module_ix m = 0; m < p->modules.len; m++)
			if (module_named(p, m, text + 7) && sc->module == PV_NONE)
				sc->module = m;
		for (uint32_t f = 0; f < p->funcs.len; f++) {
			if (module_named(p, p->funcs.module[f], text + 7)) {
				sc->fmatch[f] = 1;
				n++;
			}
		}
		if (sc->module != PV_NONE && n == 0)
			n = 1; /* a module with no function of its own may still be collapsed */
	} else if (strncmp(text, "line:", 5) == 0) {
		size_t head;
		uint32_t line = trailing_line(text + 5, &head);
		if (!line)
			return pv_error_set(e->err, PV_EINVAL,
					    "%s '%s': expected line:FILE:LINE or FUNCTION:LINE",
					    what, text);
		char *file = pv_malloc(head + 1);
		if (!file)
			return pv_error_set(e->err, PV_ENOMEM, "out of memory");
		memcpy(file, text + 5, head);
		file[head] = 0;
		n = mark_file(p, sc->fmatch, file);
		if (!n)
			n = mark_name(p, sc->fmatch, file, head);
		pv_free(file);
		sc->kind = SC_LINE;
		sc->line = line;
	} else if (strncmp(text, "path:", 5) == 0) {
		sc->kind = SC_PATH;
		const char *s = text + 5;
		uint32_t cap = 1;
		for (const char *q = s; *q; q++)
			cap += *q == ';';
		sc->path = pv_calloc(cap, sizeof(*sc->path));
		sc->path_funcs = pv_calloc(cap, sizeof(*sc->path_funcs));
		sc->path_nfuncs = pv_calloc(cap, sizeof(*sc->path_nfuncs));
		if (!sc->path || !sc->path_funcs || !sc->path_nfuncs)
			return pv_error_set(e->err, PV_ENOMEM, "out of memory");
		while (*s) {
			const char *q = strchr(s, ';');
			size_t len = q ? (size_t)(q - s) : strlen(s);
			if (len) {
				char *name = pv_malloc(len + 1);
				if (!name)
					return pv_error_set(e->err, PV_ENOMEM, "out of memory");
				memcpy(name, s, len);
				name[len] = 0;
				uint32_t k = sc->path_len;
				sc->path[sc->path_len++] = name;
				memset(sc->fmatch, 0, p->funcs.len);
				uint32_t nf = mark_function(p, sc->fmatch, s, len);
				if (!nf)
					return pv_error_set(e->err, PV_EINVAL,
							    "%s '%s': no function named '%s'", what,
							    text, name);
				sc->path_funcs[k] = pv_malloc((size_t)nf * sizeof(uint32_t));
				if (!sc->path_funcs[k])
					return pv_error_set(e->err, PV_ENOMEM, "out of memory");
				for (uint32_t f = 0; f < p->funcs.len; f++)
					if (sc->fmatch[f])
						sc->path_funcs[k][sc->path_nfuncs[k]++] = f;
			}
			s += len + (q != NULL);
		}
		if (!sc->path_len)
			return pv_error_set(e->err, PV_EINVAL, "%s '%s': an empty path", what,
					    text);
		memset(sc->fmatch, 0, p->funcs.len);
		n = 1;
	} else {
		n = mark_function(p, sc->fmatch, text, strlen(text));
		if (!n) {
			/* FUNCTION:LINE */
			size_t head;
			uint32_t line = trailing_line(text, &head);
			if (line && (n = mark_name(p, sc->fmatch, text, head)) != 0) {
				sc->kind = SC_LINE;
				sc->line = line;
			}
		}
	}
	if (!n)
		return pv_error_set(e->err, PV_EINVAL, "%s '%s' matches no function of the profile",
				    what, text);
	return 0;
}

static int cmp_func_ix(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Whether function f (a collapsed module's by its name) is step k of path scope sc. */
static bool path_step_is(const struct pv_view *v, const struct scope *sc, uint32_t k, uint32_t f)
{
	if (f >= v->p->funcs.len)
		return strcmp(fn_name(v, f), sc->path[k]) == 0;
	return bsearch(&f, sc->path_funcs[k], sc->path_nfuncs[k], sizeof(uint32_t), cmp_func_ix);
}

/*
 * loop:FILE:LINE or loop:FUNCTION:LINE (HPCToolkit, doc/hpctoolkit.md): the loop frames whose
 * header is at LINE of a file whose path ends with FILE (or, when none is, of the function named
 * FUNCTION).
 */
static int scope_compile_loop(struct pv_engine *e, struct scope *sc, const char *text,
			      const char *what)
{
	const struct pv_profile *p = e->p;
	memset(sc, 0, sizeof(*sc));
	sc->text = text;
	sc->kind = SC_FRAMES;
	sc->module = PV_NONE;
	sc->fmatch = pv_calloc(p->funcs.len ? p->funcs.len : 1, 1);
	sc->vmatch = pv_calloc(p->frames.len ? p->frames.len : 1, 1);
	if (!sc->fmatch || !sc->vmatch)
		return pv_error_set(e->err, PV_ENOMEM, "out of memory");
	size_t head;
	uint32_t line = trailing_line(text + 5, &head);
	if (!line)
		return pv_error_set(e->err, PV_EINVAL,
				    "%s '%s': expected loop:FILE:LINE or loop:FUNCTION:LINE", what,
				    text);
	const char *at = text + 5;
	uint32_t n = 0;
	for (int by_name = 0; by_name < 2 && !n; by_name++) {
		for (uint32_t f = 0; f < p->frames.len; f++) {
			if (p->frames.kind[f] != PV_FRAME_LOOP || p->frames.line[f] != line)
				continue;
			bool in;
			if (by_name) {
				pv_str_ix nm = p->funcs.name[p->frames.func[f]];
				in = p->strings.size[nm] == head &&
				     memcmp(p->strings.ptr[nm], at, head) == 0;
			} else {
				pv_source_ix src = p->frames.source[f] != PV_NONE
						       ? p->frames.source[f]
						       : p->funcs.source[p->frames.func[f]];
				char file[4096];
				snprintf(file, sizeof(file), "%.*s", (int)head, at);
				in = src != PV_NONE &&
				     ends_with_path(pv_str(p, p->sources.path[src]), file);
			}
			if (in) {
				sc->vmatch[f] = 1;
				n++;
			}
		}
	}
	if (!n)
		return pv_error_set(e->err, PV_EINVAL, "%s '%s' matches no loop of the profile",
				    what, text);
	return 0;
}

static bool scope_func(const struct pv_view *v, const struct scope *sc, uint32_t f)
{
	if (f < v->p->funcs.len)
		return sc->fmatch[f];
	return sc->module != PV_NONE && v->pseudo_module[f - v->p->funcs.len] == sc->module;
}

/*
 * match[s] = 1 when the frame of working stack s is in one of the scopes. Path scopes follow
 * the function path from the root: state[s] counts the path elements matched down to s.
 */
static int match_stacks(struct pv_engine *e, struct scope *sc, uint32_t nsc, uint8_t *match)
{
	struct wst *w = &e->w;
	const struct pv_view *v = e->v;
	uint32_t *state = NULL;
	for (uint32_t i = 0; i < nsc; i++)
		if (sc[i].kind == SC_PATH && !state)
			state = pv_malloc((size_t)(w->len ? w->len : 1) * sizeof(*state));
	memset(match, 0, w->len);
	for (uint32_t i = 0; i < nsc; i++) {
		struct scope *c = &sc[i];
		if (c->kind == SC_PATH) {
			if (!state)
				return pv_error_set(e->err, PV_ENOMEM, "out of memory");
			for (uint32_t s = 0; s < w->len; s++) {
				uint32_t pre = w->prefix[s];
				uint32_t st = pre == PV_NONE ? 0 : state[pre];
				uint32_t f = vf_func(v, w->frame[s]);
				if (st < c->path_len && path_step_is(v, c, st, f))
					st++;
				else
					st = UINT32_MAX;
				state[s] = st;
				if (st == c->path_len)
					match[s] = 1;
			}
			continue;
		}
		for (uint32_t s = 0; s < w->len; s++) {
			uint32_t vf = w->frame[s];
			if (c->kind == SC_FRAMES
				? vf < v->p->frames.len && c->vmatch[vf]
				: scope_func(v, c, vf_func(v, vf)) &&
				      (c->kind != SC_LINE || vf_line(v, vf) == c->line))
				match[s] = 1;
		}
	}
	pv_free(state);
	return 0;
}

/* ---- transforms ---- */

static int wst_own(struct pv_engine *e, uint32_t cap, uint32_t **frame, uint32_t **prefix)
{
	*frame = pv_malloc((size_t)(cap ? cap : 1) * sizeof(**frame));
	*prefix = pv_malloc((size_t)(cap ? cap : 1) * sizeof(**prefix));
	if (!*frame || !*prefix) {
		pv_free(*frame);
		pv_free(*prefix);
		return pv_error_set(e->err, PV_ENOMEM, "out of memory applying a filter");
	}
	return 0;
}

/*
 * Rebuilds the working table through img[s] (the new stack of s, or PV_NONE when every frame
 * of s was removed), given as a callback over the new table being built. Costs move to images;
 * the cost of stacks without an image is lost (counted in v->lost).
 */
struct rebuild {
	struct u64map map;
	uint32_t *frame, *prefix;
	uint32_t len;
};

static uint32_t rb_intern(struct rebuild *r, uint32_t prefix, uint32_t vf, int *oom)
{
	uint64_t key = ((uint64_t)prefix << 32) | vf;
	uint32_t x = u64map_get(&r->map, key);
	if (x != UINT32_MAX)
		return x;
	x = r->len++;
	r->frame[x] = vf;
	r->prefix[x] = prefix;
	if (u64map_put(&r->map, key, x))
		*oom = 1;
	return x;
}

static int finish_rebuild(struct pv_engine *e, struct rebuild *r, uint32_t *img)
{
	struct wst *w = &e->w;
	int64_t *nc[PV_QUERY_MAX] = {0};
	for (uint32_t m = 0; m < e->nm; m++) {
		nc[m] = pv_calloc(r->len ? r->len : 1, sizeof(int64_t));
		if (!nc[m]) {
			for (uint32_t k = 0; k < m; k++)
				pv_free(nc[k]);
			return pv_error_set(e->err, PV_ENOMEM, "out of memory applying a filter");
		}
		for (uint32_t s = 0; s < w->len; s++) {
			if (img[s] == PV_NONE)
				e->v->lost[m] += w->cost[m][s];
			else
				nc[m][img[s]] += w->cost[m][s];
		}
		pv_free(w->cost[m]);
		w->cost[m] = nc[m];
	}
	if (w->owned) {
		pv_free(w->frame);
		pv_free(w->prefix);
	}
	if (e->origin)
		for (uint32_t o = 0; o < e->p->stacks.len; o++)
			if (e->origin[o] != PV_NONE)
				e->origin[o] = img[e->origin[o]];
	w->frame = r->frame;
	w->prefix = r->prefix;
	w->len = r->len;
	w->owned = true;
	u64map_release(&r->map);
	return 0;
}

/* The end of a rebuild through img (both freed): finish_rebuild, or the error oom_msg. */
static int rebuild_end(struct pv_engine *e, struct rebuild *r, uint32_t *img, int oom,
		       const char *oom_msg)
{
	int rc = oom ? pv_error_set(e->err, PV_ENOMEM, "%s", oom_msg) : finish_rebuild(e, r, img);
	if (!rc)
		r->frame = r->prefix = NULL;
	u64map_release(&r->map);
	pv_free(r->frame);
	pv_free(r->prefix);
	pv_free(img);
	return rc;
}

static uint32_t pseudo_frame(struct pv_engine *e, pv_module_ix m)
{
	struct pv_view *v = e->v;
	for (uint32_t i = 0; i < v->nr_pseudo; i++)
		if (v->pseudo_module[i] == m)
			return e->p->frames.len + i;
	pv_module_ix *n = pv_realloc(v->pseudo_module, (v->nr_pseudo + 1) * sizeof(*n));
	if (!n)
		return PV_NONE;
	v->pseudo_module = n;
	n[v->nr_pseudo] = m;
	return e->p->frames.len + v->nr_pseudo++;
}

static pv_cat_ix vf_category(const struct pv_view *v, uint32_t vf)
{
	return vf < v->p->frames.len ? v->p->frames.category[vf] : PV_NONE;
}

/*
 * The image of working stack s (its prefix's image ip) under hpcviewer's CCT filters and the
 * Firefox Profiler's collapse-direct-recursion (doc/hpctoolkit.md); aux[s] carries state down
 * the stacks:
 *   collapse-subtree: aux = the image of the outermost frame of the scope above, which every
 *     stack below becomes (its callees' cost is its self);
 *   prune: aux = 1 below a frame of the scope; such stacks, and the scope's own, become their
 *     caller (ip: PV_NONE at a root, a sample that loses every frame);
 *   collapse-direct-recursion: a frame of the scope whose caller's image is a frame of the same
 *     function is that caller.
 */
static uint32_t cut_image(struct pv_engine *e, enum pv_filter_kind k, struct rebuild *r,
			  const uint8_t *match, uint32_t *aux, uint32_t s, uint32_t ip, int *oom)
{
	const struct wst *w = &e->w;
	uint32_t pre = w->prefix[s], vf = w->frame[s];
	switch (k) {
	case PV_FILTER_COLLAPSE_SUBTREE: {
		uint32_t above = pre == PV_NONE ? PV_NONE : aux[pre];
		if (above != PV_NONE) {
			aux[s] = above;
			return above;
		}
		uint32_t img = rb_intern(r, ip, vf, oom);
		aux[s] = match[s] ? img : PV_NONE;
		return img;
	}
	case PV_FILTER_PRUNE:
		aux[s] = match[s] || (pre != PV_NONE && aux[pre]);
		return aux[s] ? ip : rb_intern(r, ip, vf, oom);
	default: /* PV_FILTER_COLLAPSE_DIRECT_RECURSION */
		if (match[s] && ip != PV_NONE && vf_func(e->v, r->frame[ip]) == vf_func(e->v, vf))
			return ip;
		return rb_intern(r, ip, vf, oom);
	}
}

/*
 * Where stack s, read from its leaf, completes the inverted path sc (path:LEAF;CALLER;...): the
 * frame of its last step, PV_NONE when the stack does not end so. A loop or statement frame is
 * part of its function's step, as in the bottom-up trees; the last step is its innermost frame.
 */
static uint32_t inverted_anchor(const struct pv_engine *e, const struct scope *sc, uint32_t s)
{
	const struct wst *w = &e->w;
	uint32_t a = s;
	for (uint32_t k = 0;; k++) {
		if (a == PV_NONE || !path_step_is(e->v, sc, k, vf_func(e->v, w->frame[a])))
			return PV_NONE;
		if (k + 1 == sc->path_len)
			return a;
		while (a != PV_NONE && vf_kind(e->v, w->frame[a]) != PV_FRAME_CODE)
			a = w->prefix[a]; /* up to the function's own frame, then its caller */
		a = a == PV_NONE ? PV_NONE : w->prefix[a];
	}
}

/*
 * --focus-inverted (the Firefox Profiler's focus on a node of the inverted tree): the samples of
 * the stacks that end with the path stay, each on the stack of its anchor (the frames below go:
 * their cost is the anchor's self); the others go. A plain scope is a path of one step: the
 * samples whose leaf is in it, their stacks whole.
 */
static int focus_inverted(struct pv_engine *e, const struct scope *sc, const uint8_t *match)
{
	struct wst *w = &e->w;
	uint32_t n = w->len ? w->len : 1;
	struct rebuild r;
	memset(&r, 0, sizeof(r));
	uint32_t *img = pv_malloc((size_t)n * sizeof(*img));
	uint8_t *kept = pv_malloc(n);
	int oom = !img || !kept || wst_own(e, n, &r.frame, &r.prefix);
	for (uint32_t s = 0; s < w->len && !oom; s++) {
		uint32_t pre = w->prefix[s];
		img[s] = rb_intern(&r, pre == PV_NONE ? PV_NONE : img[pre], w->frame[s], &oom);
	}
	for (uint32_t s = 0; s < w->len && !oom; s++) {
		uint32_t a = match[s] ? s : PV_NONE;
		if (sc->kind == SC_PATH)
			a = inverted_anchor(e, sc, s);
		kept[s] = a != PV_NONE;
		if (kept[s])
			img[s] = img[a];
		else
			for (uint32_t m = 0; m < e->nm; m++)
				w->cost[m][s] = 0;
	}
	for (uint32_t o = 0; e->origin && !oom && o < e->p->stacks.len; o++)
		if (e->origin[o] != PV_NONE && !kept[e->origin[o]])
			e->odrop[o] = 1;
	pv_free(kept);
	return rebuild_end(e, &r, img, oom, "out of memory applying a filter");
}

static int apply_filter(struct pv_engine *e, const struct pv_filter *f, uint32_t index)
{
	struct wst *w = &e->w;
	const struct pv_profile *p = e->p;
	struct pv_view *v = e->v;
	char what[64];
	snprintf(what, sizeof(what), "--%s", pv_filter_name(f->kind));
	struct scope sc;
	memset(&sc, 0, sizeof(sc));
	uint8_t *match = NULL;
	uint32_t *img = NULL, *aux = NULL;
	struct rebuild r;
	memset(&r, 0, sizeof(r));
	int rc = 0;
	uint32_t n = w->len ? w->len : 1;
	(void)index;
	if (f->kind == PV_FILTER_TAG || f->kind == PV_FILTER_DROP_TAG)
		return 0; /* applied to the samples (tags_build) */

	if (f->kind == PV_FILTER_INCLUDE || f->kind == PV_FILTER_DROP ||
	    f->kind == PV_FILTER_MERGE || f->kind == PV_FILTER_COLLAPSE_RECURSION ||
	    f->kind >= PV_FILTER_COLLAPSE_SUBTREE) {
		rc = scope_compile(e, &sc, f->arg, what);
		if (rc)
			goto out;
		match = pv_malloc(n);
		if (!match || match_stacks(e, &sc, 1, match)) {
			rc = pv_error_set(e->err, PV_ENOMEM, "out of memory applying a filter");
			goto out;
		}
	}
	if (f->kind == PV_FILTER_FOCUS_INVERTED) {
		rc = focus_inverted(e, &sc, match);
		goto out;
	}
	if (f->kind == PV_FILTER_INCLUDE || f->kind == PV_FILTER_DROP ||
	    f->kind == PV_FILTER_FOCUS_SELF) {
		/* has[s]: the path down to s holds the scope; kept in match[] in place (focus-self:
		 * s's own frame only) */
		for (uint32_t s = 0; s < w->len && f->kind != PV_FILTER_FOCUS_SELF; s++)
			if (w->prefix[s] != PV_NONE && match[w->prefix[s]])
				match[s] = 1;
		bool keep_if = f->kind != PV_FILTER_DROP;
		for (uint32_t s = 0; s < w->len; s++)
			if ((bool)match[s] != keep_if)
				for (uint32_t m = 0; m < e->nm; m++)
					w->cost[m][s] = 0;
		if (e->origin)
			for (uint32_t o = 0; o < p->stacks.len; o++)
				if (e->origin[o] != PV_NONE && (bool)match[e->origin[o]] != keep_if)
					e->odrop[o] = 1;
		goto out;
	}

	pv_module_ix module = PV_NONE;
	pv_cat_ix cat = PV_NONE;
	uint32_t pseudo = PV_NONE;
	if (f->kind == PV_FILTER_COLLAPSE_MODULE) {
		for (pv_module_ix m = 0; m < p->modules.len && module == PV_NONE; m++)
			if (module_named(p, m, f->arg))
				module = m;
		if (module == PV_NONE) {
			rc = pv_error_set(e->err, PV_EINVAL,
					  "%s '%s': the profile has no such module", what, f->arg);
			goto out;
		}
		pseudo = pseudo_frame(e, module);
		if (pseudo == PV_NONE) {
			rc = pv_error_set(e->err, PV_ENOMEM, "out of memory");
			goto out;
		}
	}
	if (f->kind == PV_FILTER_FOCUS_CATEGORY) {
		for (pv_cat_ix c = 0; c < p->categories.len && cat == PV_NONE; c++)
			if (strcmp(pv_str(p, p->categories.name[c]), f->arg) == 0)
				cat = c;
		if (cat == PV_NONE) {
			rc =
			    pv_error_set(e->err, PV_EINVAL,
					 "%s '%s': the profile has no such category", what, f->arg);
			goto out;
		}
	}
	img = pv_malloc((size_t)n * sizeof(*img));
	aux = pv_malloc((size_t)n * sizeof(*aux));
	if (!img || !aux || wst_own(e, n, &r.frame, &r.prefix)) {
		rc = pv_error_set(e->err, PV_ENOMEM, "out of memory applying a filter");
		goto out;
	}
	int oom = 0;
	for (uint32_t s = 0; s < w->len; s++) {
		uint32_t pre = w->prefix[s];
		uint32_t ip = pre == PV_NONE ? PV_NONE : img[pre];
		uint32_t vf = w->frame[s];
		switch (f->kind) {
		case PV_FILTER_MERGE: img[s] = match[s] ? ip : rb_intern(&r, ip, vf, &oom); break;
		case PV_FILTER_COLLAPSE_RECURSION: {
			/* aux[s]: image of the outermost frame of the scope above s, or PV_NONE */
			uint32_t anchor = pre == PV_NONE ? PV_NONE : aux[pre];
			if (match[s] && anchor != PV_NONE) {
				img[s] = anchor;
			} else {
				img[s] = rb_intern(&r, ip, vf, &oom);
				if (match[s])
					anchor = img[s];
			}
			aux[s] = anchor;
			break;
		}
		case PV_FILTER_COLLAPSE_MODULE:
			if (fn_module(v, vf_func(v, vf)) == module)
				img[s] = ip != PV_NONE && r.frame[ip] == pseudo
					     ? ip
					     : rb_intern(&r, ip, pseudo, &oom);
			else
				img[s] = rb_intern(&r, ip, vf, &oom);
			break;
		case PV_FILTER_FOCUS_CATEGORY: {
			/* a frame without a category has its caller's (Firefox's rule) */
			pv_cat_ix c = vf_category(v, vf);
			if (c == PV_NONE)
				c = pre == PV_NONE ? PV_NONE : aux[pre];
			aux[s] = c;
			img[s] = c == cat ? rb_intern(&r, ip, vf, &oom) : ip;
			break;
		}
		case PV_FILTER_COLLAPSE_SUBTREE:
		case PV_FILTER_PRUNE:
		case PV_FILTER_COLLAPSE_DIRECT_RECURSION:
			img[s] = cut_image(e, f->kind, &r, match, aux, s, ip, &oom);
			break;
		default: img[s] = PV_NONE;
		}
	}
	if (oom) {
		rc = pv_error_set(e->err, PV_ENOMEM, "out of memory applying a filter");
		goto out;
	}
	rc = finish_rebuild(e, &r, img);
	if (!rc)
		r.frame = r.prefix = NULL;
out:
	u64map_release(&r.map);
	pv_free(r.frame);
	pv_free(r.prefix);
	pv_free(img);
	pv_free(aux);
	pv_free(match);
	scope_release(&sc);
	return rc;
}

/* ---- inlined frames (--inline fold) ---- */

/*
 * Folds every inlined frame into the frame it is inlined in, as pprof's -noinlines keeps only a
 * location's outermost line: an inlined frame's image is its caller's, so its cost and its
 * callees go to the function that holds the inlined code (a stack's inlined frames sit right
 * above that function's frame). An inlined frame at the root, with nothing to fold into, stays.
 * One rebuild of the working table, before the filters; nothing to do without inlined frames.
 */
static int fold_inlines(struct pv_engine *e)
{
	const struct pv_profile *p = e->p;
	struct wst *w = &e->w;
	bool any = false;
	for (uint32_t f = 0; f < p->frames.len && !any; f++)
		any = p->frames.inline_depth[f] > 0;
	if (!any)
		return 0;
	uint32_t n = w->len ? w->len : 1;
	struct rebuild r;
	memset(&r, 0, sizeof(r));
	uint32_t *img = pv_malloc((size_t)n * sizeof(*img));
	int oom = !img || wst_own(e, n, &r.frame, &r.prefix);
	for (uint32_t s = 0; s < w->len && !oom; s++) {
		uint32_t pre = w->prefix[s];
		uint32_t ip = pre == PV_NONE ? PV_NONE : img[pre];
		img[s] = vf_inlined(e->v, w->frame[s]) && ip != PV_NONE
			     ? ip
			     : rb_intern(&r, ip, w->frame[s], &oom);
	}
	return rebuild_end(e, &r, img, oom, "out of memory folding inlined frames");
}

/* ---- rows and trees ---- */

/*
 * A row key: kind, id and line packed into 64 bits. At file and module granularity, a frame
 * whose key equals its caller's row continues that row (a file calling itself is one row).
 */
#define KEY(kind, id, line) \
	(((uint64_t)(kind) << 61) | ((uint64_t)(line & 0x1fffffff) << 32) | (id))
#define KEY_KIND(k) ((uint8_t)((k) >> 61))
#define KEY_ID(k)   ((uint32_t)(k))
#define KEY_LINE(k) ((uint32_t)(((k) >> 32) & 0x1fffffff))
#define CENTER_KEY  KEY(PV_ROW_CENTER, 0, 0)
/*
 * A frame that makes no row of its own at the granularity: a loop or statement frame at function
 * granularity, a statement frame at loop granularity. Its cost is its caller row's (the
 * function or loop it is in); bottom-up, its callers are the callers of that row.
 */
#define CONTINUE_KEY UINT64_MAX

static uint64_t frame_key(const struct pv_view *v, uint32_t vf, enum pv_granularity by)
{
	uint32_t f = vf_func(v, vf);
	uint8_t fk = vf_kind(v, vf);
	switch (by) {
	case PV_BY_LINE:
		if (fk == PV_FRAME_LOOP)
			return KEY(PV_ROW_LOOP, vf, 0);
		/* a scoped profile's procedure frame without a line is the procedure itself */
		if (v->scoped && fk == PV_FRAME_CODE && !vf_line(v, vf))
			return KEY(PV_ROW_FUNCTION, f, 0);
		return KEY(PV_ROW_LINE, f, vf_line(v, vf));
	case PV_BY_FILE:
		return KEY(PV_ROW_FILE, fk == PV_FRAME_CODE ? fn_source(v, f) : vf_source(v, vf),
			   0);
	case PV_BY_MODULE: return KEY(PV_ROW_MODULE, fn_module(v, f), 0);
	case PV_BY_LOOP:
		if (fk == PV_FRAME_LOOP)
			return KEY(PV_ROW_LOOP, vf, 0);
		return fk == PV_FRAME_STATEMENT ? CONTINUE_KEY : KEY(PV_ROW_FUNCTION, f, 0);
	default: return fk == PV_FRAME_CODE ? KEY(PV_ROW_FUNCTION, f, 0) : CONTINUE_KEY;
	}
}

/* frame_key, with a continuing frame that has no row to continue (a root) its function's row */
static uint64_t own_key(const struct pv_view *v, uint32_t vf, enum pv_granularity by)
{
	uint64_t k = frame_key(v, vf, by);
	return k == CONTINUE_KEY ? KEY(PV_ROW_FUNCTION, vf_func(v, vf), 0) : k;
}

/*
 * Inlined rows: while a tree is built, inlined[r] collects INL_INLINED when one of the row's
 * frames is an inlined frame, INL_OUTLINED when one is not; tree_finish keeps 1 for the rows
 * with inlined frames only (kind "inline", doc/samples-and-inlines.md).
 */
enum { INL_INLINED = 1, INL_OUTLINED = 2 };

static void row_frame(const struct pv_view *v, struct pv_tree *t, uint32_t r, uint32_t vf)
{
	t->inlined[r] |= vf_inlined(v, vf) ? INL_INLINED : INL_OUTLINED;
}

struct tree_build {
	struct pv_tree *t;
	uint32_t cap;
	uint32_t nm;
	/* (parent row, key) -> row: keys are interned first, so the pair fits 64 bits */
	struct u64map keys; /* key -> key index */
	uint64_t *keyv;
	uint32_t nr_keys, cap_keys;
	struct u64map rows; /* (parent + 1) << 32 | key index -> row */
	int oom;
};

static uint32_t key_index(struct tree_build *b, uint64_t key)
{
	/* the 64-bit key is hashed as is; u64map keys are unique 64-bit values */
	uint32_t k = u64map_get(&b->keys, key);
	if (k != UINT32_MAX)
		return k;
	if (b->nr_keys == b->cap_keys) {
		uint32_t nc = grow_cap(b->cap_keys, (uint64_t)b->nr_keys + 1);
		if (!nc || COL_GROW(b->keyv, nc)) {
			b->oom = 1;
			return 0;
		}
		b->cap_keys = nc;
	}
	k = b->nr_keys++;
	b->keyv[k] = key;
	if (u64map_put(&b->keys, key, k))
		b->oom = 1;
	return k;
}

static int tb_grow(struct tree_build *b)
{
	struct pv_tree *t = b->t;
	uint32_t nc = grow_cap(b->cap, (uint64_t)t->len + 1);
	if (!nc || COL_GROW(t->kind, nc) || COL_GROW(t->id, nc) || COL_GROW(t->line, nc) ||
	    COL_GROW(t->parent, nc) || COL_GROW(t->depth, nc) || COL_GROW(t->inlined, nc))
		return -1;
	for (uint32_t m = 0; m < b->nm; m++) {
		if (COL_GROW(t->total[m], nc) || COL_GROW(t->self[m], nc))
			return -1;
	}
	b->cap = nc;
	return 0;
}

/* A new row for key under parent (PV_NONE = a root), costs 0; PV_NONE when out of memory. */
static uint32_t tb_row(struct tree_build *b, uint32_t parent, uint64_t key)
{
	struct pv_tree *t = b->t;
	if (t->len == b->cap && tb_grow(b))
		return PV_NONE;
	uint32_t r = t->len++;
	t->kind[r] = KEY_KIND(key);
	t->id[r] = KEY_ID(key);
	t->line[r] = KEY_LINE(key);
	t->parent[r] = parent;
	t->depth[r] = parent == PV_NONE ? 0 : t->depth[parent] + 1;
	t->inlined[r] = 0;
	for (uint32_t m = 0; m < b->nm; m++)
		t->total[m][r] = t->self[m][r] = 0;
	return r;
}

/* The row for key under parent (PV_NONE = a root), created when new. */
static uint32_t row_of(struct tree_build *b, uint32_t parent, uint64_t key)
{
	if (b->oom)
		return 0;
	uint32_t k = key_index(b, key);
	uint64_t rk = ((uint64_t)(parent + 1) << 32) | k; /* parent PV_NONE wraps to 0 */
	uint32_t r = u64map_get(&b->rows, rk);
	if (r != UINT32_MAX)
		return r;
	r = tb_row(b, parent, key);
	if (r == PV_NONE) {
		b->oom = 1;
		return 0;
	}
	if (u64map_put(&b->rows, rk, r))
		b->oom = 1;
	return r;
}

static void tree_free(struct pv_tree *t, uint32_t nm)
{
	if (!t)
		return;
	pv_free(t->kind);
	pv_free(t->id);
	pv_free(t->line);
	pv_free(t->parent);
	pv_free(t->depth);
	pv_free(t->inlined);
	for (uint32_t m = 0; m < nm; m++) {
		if (t->total)
			pv_free(t->total[m]);
		if (t->self)
			pv_free(t->self[m]);
	}
	pv_free(t->total);
	pv_free(t->self);
	pv_free(t->child_first);
	pv_free(t->child_len);
	pv_free(t->children);
	pv_free(t->roots);
	pv_free(t->estimated);
	pv_free(t);
}

static int tb_init(struct tree_build *b, uint32_t nm)
{
	memset(b, 0, sizeof(*b));
	b->nm = nm;
	b->t = pv_calloc(1, sizeof(*b->t));
	if (!b->t)
		return -1;
	b->t->total = pv_calloc(nm, sizeof(int64_t *));
	b->t->self = pv_calloc(nm, sizeof(int64_t *));
	if (!b->t->total || !b->t->self)
		return -1;
	return 0;
}

static void tb_release(struct tree_build *b)
{
	u64map_release(&b->keys);
	u64map_release(&b->rows);
	pv_free(b->keyv);
}

/* Sorting rows: first metric's total descending, then name, then key. */
struct row_sort {
	const struct pv_view *v;
	const struct pv_tree *t;
	const int64_t *key, *key2;
	const uint8_t *kind;
	const uint32_t *id, *line;
	/* per row (NULL: none): the first 8 bytes of its name, big-endian, so most name
	 * comparisons of a long list touch no string (rows of unique stacks: millions of roots) */
	const uint64_t *name8;
};

static int cmp_row(const void *a, const void *b, void *ctx)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct row_sort *c = ctx;
	if (c->key[x] != c->key[y])
		return c->key[x] > c->key[y] ? -1 : 1;
	if (c->key2 && c->key2[x] != c->key2[y])
		return c->key2[x] > c->key2[y] ? -1 : 1;
	if (c->name8 && c->name8[x] != c->name8[y])
		return c->name8[x] < c->name8[y] ? -1 : 1;
	char bx[64], by[64];
	const char *nx = pv_view_row_name(c->v, c->kind[x], c->id[x], bx, sizeof(bx), c->line[x]);
	const char *ny = pv_view_row_name(c->v, c->kind[y], c->id[y], by, sizeof(by), c->line[y]);
	int r = strcmp(nx, ny);
	if (r)
		return r;
	if (c->line[x] != c->line[y])
		return c->line[x] < c->line[y] ? -1 : 1;
	if (c->id[x] != c->id[y])
		return c->id[x] < c->id[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void sort_ix(struct row_sort *c, uint32_t *rows, uint32_t n)
{
	pv_sort_r(rows, n, sizeof(*rows), cmp_row, c);
}

/* Totals from selves (rows are parents first), children lists, sorting. */
static int tree_finish(struct pv_engine *e, struct pv_tree *t, bool totals_from_self)
{
	uint32_t n = t->len;
	for (uint32_t r = 0; t->inlined && r < n; r++) /* INL_* bits (row_frame) to the flag */
		t->inlined[r] = t->inlined[r] == INL_INLINED;
	if (totals_from_self) {
		for (uint32_t m = 0; m < e->nm; m++) {
			if (n) /* no rows: the columns were never allocated */
				memcpy(t->total[m], t->self[m], (size_t)n * sizeof(int64_t));
			for (uint32_t r = n; r-- > 0;)
				if (t->parent[r] != PV_NONE)
					t->total[m][t->parent[r]] += t->total[m][r];
		}
	}
	t->child_first = pv_calloc(n ? n : 1, sizeof(uint32_t));
	t->child_len = pv_calloc(n ? n : 1, sizeof(uint32_t));
	t->children = pv_malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
	t->roots = pv_malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
	if (!t->child_first || !t->child_len || !t->children || !t->roots)
		return pv_error_set(e->err, PV_ENOMEM, "out of memory building a tree");
	/* rows left without cost by a filter (their stacks' costs moved away) are not shown */
	uint8_t *live = pv_malloc(n ? n : 1);
	if (!live)
		return pv_error_set(e->err, PV_ENOMEM, "out of memory building a tree");
	for (uint32_t r = 0; r < n; r++) {
		live[r] = 0;
		for (uint32_t m = 0; m < e->nm; m++)
			live[r] |= t->total[m][r] != 0 || t->self[m][r] != 0;
	}
	for (uint32_t r = 0; r < n; r++)
		if (t->parent[r] != PV_NONE && live[r])
			t->child_len[t->parent[r]]++;
	uint32_t off = 0;
	for (uint32_t r = 0; r < n; r++) {
		t->child_first[r] = off;
		off += t->child_len[r];
		t->child_len[r] = 0;
	}
	t->nr_roots = 0;
	for (uint32_t r = 0; r < n; r++) {
		if (!live[r])
			continue;
		if (t->parent[r] == PV_NONE)
			t->roots[t->nr_roots++] = r;
		else
			t->children[t->child_first[t->parent[r]] + t->child_len[t->parent[r]]++] =
			    r;
	}
	pv_free(live);
	struct row_sort c = {e->v, t, t->total[0], NULL, t->kind, t->id, t->line, NULL};
	uint64_t *name8 = n > 4096 ? pv_malloc((size_t)n * sizeof(*name8)) : NULL;
	for (uint32_t r = 0; name8 && r < n; r++) {
		char b[64];
		const char *nm =
		    pv_view_row_name(e->v, t->kind[r], t->id[r], b, sizeof(b), t->line[r]);
		uint64_t x = 0;
		for (int i = 0; i < 8; i++) {
			x = x << 8 | (uint8_t)*nm;
			nm += *nm != 0;
		}
		name8[r] = x;
	}
	c.name8 = name8;
	for (uint32_t r = 0; r < n; r++)
		sort_ix(&c, t->children + t->child_first[r], t->child_len[r]);
	sort_ix(&c, t->roots, t->nr_roots);
	pv_free(name8);
	return 0;
}

/*
 * The samples without a stack as one root row of an uncentered tree, so the roots add up to the
 * whole (doc/samples-and-inlines.md). with_total: the builder sets totals itself (bottom-up).
 */
static void nostack_row(struct pv_engine *e, struct tree_build *b, bool with_total)
{
	const struct pv_view *v = e->v;
	bool any = false;
	for (uint32_t m = 0; m < e->nm; m++)
		any |= v->nostack[m] != 0;
	if (!any)
		return;
	uint32_t r = row_of(b, PV_NONE, KEY(PV_ROW_NOSTACK, 0, 0));
	if (b->oom)
		return;
	for (uint32_t m = 0; m < e->nm; m++) {
		b->t->self[m][r] += v->nostack[m];
		if (with_total)
			b->t->total[m][r] += v->nostack[m];
	}
}

/* Whether the samples without a stack count in a view of q: not with an include filter. */
static bool nostack_kept(const struct pv_query *q)
{
	for (uint32_t i = 0; i < q->nr_filters; i++)
		if (q->filters[i].kind == PV_FILTER_INCLUDE)
			return false;
	return true;
}

/*
 * Rows of a top-down tree by (parent row, key), found without hashing most of the time: a root
 * by its key's index (at function granularity the function itself, else an interned key), a
 * row's first child in first[] (its key and row), and only the children past a row's first in a
 * map. A tree of unique stacks (millions of roots) costs an array entry a row, not two hash map
 * slots.
 */
struct td {
	struct tree_build b;
	bool by_func;	/* key index = function (pseudo-functions included) */
	uint32_t nfunc; /* functions and pseudo-functions: key indices below are functions */
	uint32_t *root; /* per key index: its root row + 1 */
	uint32_t root_len, root_cap;
	uint64_t *first; /* per row: its first child's key index << 32 | row + 1 */
	uint32_t first_cap;
	struct u64map more; /* (parent + 1) << 32 | key index -> row, the other children */
};

static uint32_t td_key(struct td *d, uint64_t key)
{
	if (d->by_func && KEY_KIND(key) == PV_ROW_FUNCTION)
		return KEY_ID(key);
	return d->nfunc + key_index(&d->b, key);
}

static uint32_t td_row(struct td *d, uint32_t parent, uint64_t key)
{
	struct tree_build *b = &d->b;
	if (b->oom)
		return 0;
	uint32_t k = td_key(d, key), r;
	if (b->oom)
		return 0;
	if (parent == PV_NONE) {
		if (k >= d->root_len) {
			if (k >= d->root_cap) {
				uint32_t nc = grow_cap(d->root_cap, (uint64_t)k + 1);
				if (!nc || COL_GROW(d->root, nc)) {
					b->oom = 1;
					return 0;
				}
				d->root_cap = nc;
			}
			memset(d->root + d->root_len, 0,
			       (size_t)(k + 1 - d->root_len) * sizeof(*d->root));
			d->root_len = k + 1;
		}
		if (d->root[k])
			return d->root[k] - 1;
	} else {
		uint64_t f = d->first[parent];
		if (f && (uint32_t)(f >> 32) == k)
			return (uint32_t)f - 1;
		if (f &&
		    (r = u64map_get(&d->more, ((uint64_t)(parent + 1) << 32) | k)) != UINT32_MAX)
			return r;
	}
	r = tb_row(b, parent, key);
	if (r == PV_NONE) {
		b->oom = 1;
		return 0;
	}
	if (r >= d->first_cap) {
		uint32_t nc = grow_cap(d->first_cap, (uint64_t)r + 1);
		if (!nc || COL_GROW(d->first, nc)) {
			b->oom = 1;
			return 0;
		}
		d->first_cap = nc;
	}
	d->first[r] = 0;
	if (parent == PV_NONE)
		d->root[k] = r + 1;
	else if (!d->first[parent])
		d->first[parent] = (uint64_t)k << 32 | (r + 1);
	else if (u64map_put(&d->more, ((uint64_t)(parent + 1) << 32) | k, r))
		b->oom = 1;
	return r;
}

/*
 * --self nested (doc/hpctoolkit.md): a row's self also holds the selves of the loops nested in it
 * and of the statements of those loops, HPCToolkit's exclusive cost of procedures and loops.
 * Rows are numbered parents first, so one backward pass adds each loop (and each line under a
 * loop) to its parent after its own nested rows were added to it.
 */
static void nested_self(struct pv_tree *t, uint32_t nm)
{
	for (uint32_t r = t->len; r-- > 0;) {
		uint32_t p = t->parent[r];
		if (p == PV_NONE)
			continue;
		if (t->kind[r] == PV_ROW_LOOP ||
		    (t->kind[r] == PV_ROW_LINE && t->kind[p] == PV_ROW_LOOP))
			for (uint32_t m = 0; m < nm; m++)
				t->self[m][p] += t->self[m][r];
	}
}

/*
 * Top-down: node[s] for every working stack; with a center, stacks above the anchor have none
 * and the anchor itself is the one center row. Without a center, the (no stack) row.
 */
static int build_top_down(struct pv_engine *e, const uint32_t *anchor, bool center_row,
			  struct pv_tree **out)
{
	struct wst *w = &e->w;
	struct td d;
	memset(&d, 0, sizeof(d));
	enum pv_granularity by = e->v->q.by;
	d.by_func = by == PV_BY_FUNCTION;
	d.nfunc = d.by_func ? e->p->funcs.len + e->v->nr_pseudo : 0;
	struct tree_build *b = &d.b;
	uint32_t *node = pv_malloc((size_t)(w->len ? w->len : 1) * sizeof(*node));
	if (tb_init(b, e->nm) || !node) {
		pv_free(node);
		tb_release(b);
		tree_free(b->t, e->nm);
		return pv_error_set(e->err, PV_ENOMEM, "out of memory building a tree");
	}
	bool merge_runs = by == PV_BY_FILE || by == PV_BY_MODULE;
	for (uint32_t s = 0; s < w->len && !b->oom; s++) {
		uint32_t pre = w->prefix[s];
		if (anchor && anchor[s] == PV_NONE) {
			node[s] = PV_NONE;
			continue;
		}
		if (anchor && anchor[s] == s && center_row) {
			node[s] = td_row(&d, PV_NONE, CENTER_KEY);
		} else if (anchor && anchor[s] == s) {
			node[s] = td_row(&d, PV_NONE, own_key(e->v, w->frame[s], by));
		} else {
			uint32_t parent = pre == PV_NONE ? PV_NONE : node[pre];
			uint64_t key = frame_key(e->v, w->frame[s], by);
			if (key == CONTINUE_KEY && parent != PV_NONE)
				node[s] = parent; /* a loop or line of the row's function */
			else if (key == CONTINUE_KEY)
				node[s] = td_row(&d, parent, own_key(e->v, w->frame[s], by));
			else if (merge_runs && parent != PV_NONE &&
				 b->t->kind[parent] != PV_ROW_CENTER &&
				 KEY(b->t->kind[parent], b->t->id[parent], 0) == key)
				node[s] = parent;
			else
				node[s] = td_row(&d, parent, key);
		}
		if (b->oom)
			break;
		if (b->t->kind[node[s]] != PV_ROW_CENTER)
			row_frame(e->v, b->t, node[s], w->frame[s]);
		for (uint32_t m = 0; m < e->nm; m++)
			b->t->self[m][node[s]] += w->cost[m][s];
	}
	if (!anchor && !b->oom)
		nostack_row(e, b, false);
	if (e->want_node && !e->node)
		e->node = node; /* pv__view_rows: handed to the caller */
	else
		pv_free(node);
	pv_free(d.root);
	pv_free(d.first);
	u64map_release(&d.more);
	int oom = b->oom;
	tb_release(b);
	if (oom) {
		tree_free(b->t, e->nm);
		return pv_error_set(e->err, PV_ENOMEM, "out of memory building a tree");
	}
	int rc = tree_finish(e, b->t, true);
	if (rc) {
		tree_free(b->t, e->nm);
		return rc;
	}
	if (e->v->q.self == PV_SELF_NESTED)
		nested_self(b->t, e->nm);
	*out = b->t;
	return 0;
}

/*
 * Bottom-up trees grow heaviest row first from walkers. A walker stands on a working stack and
 * carries the cost of the anchors that led there (without a center every stack with a cost is
 * its own anchor, all of its cost self). The roots get the walkers by key (without a center:
 * the stacks themselves), or all of them under the one center row. Expanding a row moves each of
 * its walkers to the next caller (at file or module granularity, past the run of the row's own
 * key: a run is one row) and groups them by that caller's row key, one child row a group;
 * walkers that reach the same stack in an expansion merge, so callers shared by many anchors are
 * walked once. A row's total is what its walkers carry, its self the part of the center's self
 * (without a center, all of it: the classic inverted tree).
 *
 * The rows are the distinct suffixes of the stacks, so one stack N frames deep with self cost
 * in every frame has N (N + 1) / 2 of them: growth stops at a row budget and a step budget
 * (walker moves), both linear in the working table, and the rows still waiting, the lightest,
 * are left unexpanded; the view's note says how many. Memory: the rows made and the walkers of
 * the rows waiting (at most one per anchor), plus moved-from walkers until a compaction.
 */
#define BU_MIN_ROWS	   1000000u    /* rows: at least this many (and the query's max_rows) */
#define BU_ROWS_PER_STACK  16u	       /* ... or this many per working stack */
#define BU_MIN_STEPS	   16000000ull /* walker moves: at least this many */
#define BU_STEPS_PER_STACK 64u	       /* ... or this many per working stack */

struct bu_item {
	uint64_t w; /* the row's first total, by magnitude */
	uint32_t row;
};

enum bu_step {
	BU_SELF,   /* the walkers' own stacks: the roots of an inverted tree */
	BU_CALLER, /* each walker's caller: the rows below the center */
	BU_RUN,	   /* the caller past the run of the stack's row key (by file, by module) */
};

struct bu {
	struct pv_engine *e;
	struct tree_build b;
	uint32_t nm;
	const uint32_t *prefix;
	uint32_t *kx;	 /* per working stack: its row key, an index of b.keyv */
	uint32_t *run;	 /* per working stack: the first caller of another row key (BU_RUN) */
	uint32_t *stamp; /* per working stack: seen (now - 1) or placed (now) in an expansion */
	uint32_t *pos;	 /* per working stack: its walker in the expansion */
	uint32_t *gstamp, *gcount, *gfill, *groups; /* per key index: an expansion's groups */
	uint32_t now;
	/* walkers; the rows waiting to be expanded own the slices [first, first + count) */
	uint32_t *node;
	int64_t *wt, *ws; /* [walker * nm + m]: the total and self it carries */
	uint32_t wlen, wcap;
	uint64_t live;		 /* walkers of the rows waiting */
	uint32_t *first, *count; /* per row */
	uint32_t rcap;
	struct bu_item *heap; /* the rows waiting, heaviest first */
	uint32_t hlen, hcap;
	uint64_t steps;
	int oom;
};

/* heavier (the first metric's total, by magnitude) first, then the older row */
static bool bu_before(const struct bu_item *x, const struct bu_item *y)
{
	return x->w != y->w ? x->w > y->w : x->row < y->row;
}

static void bu_sift(struct bu *u, uint32_t i)
{
	struct bu_item r = u->heap[i];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= u->hlen)
			break;
		if (c + 1 < u->hlen && bu_before(&u->heap[c + 1], &u->heap[c]))
			c++;
		if (!bu_before(&u->heap[c], &r))
			break;
		u->heap[i] = u->heap[c];
		i = c;
	}
	u->heap[i] = r;
}

static void bu_push(struct bu *u, uint32_t r)
{
	if (u->hlen == u->hcap) {
		uint32_t nc = grow_cap(u->hcap, (uint64_t)u->hlen + 1);
		if (!nc || COL_GROW(u->heap, nc)) {
			u->oom = 1;
			return;
		}
		u->hcap = nc;
	}
	int64_t w = u->b.t->total[0][r];
	struct bu_item it = {w < 0 ? -(uint64_t)w : (uint64_t)w, r};
	uint32_t i = u->hlen++;
	while (i && bu_before(&it, &u->heap[(i - 1) / 2])) {
		u->heap[i] = u->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	u->heap[i] = it;
	u->live += u->count[r];
}

static uint32_t bu_pop(struct bu *u)
{
	uint32_t top = u->heap[0].row;
	u->heap[0] = u->heap[--u->hlen];
	if (u->hlen)
		bu_sift(u, 0);
	u->live -= u->count[top];
	return top;
}

/* A new row under parent: no lookup, each (parent, key) is made once, by its parent. */
static uint32_t bu_row(struct bu *u, uint32_t parent, uint64_t key)
{
	uint32_t len = u->b.t->len;
	if (len == u->rcap) {
		uint32_t nc = grow_cap(u->rcap, (uint64_t)len + 1);
		if (!nc || COL_GROW(u->first, nc) || COL_GROW(u->count, nc)) {
			u->oom = 1;
			return PV_NONE;
		}
		u->rcap = nc;
	}
	uint32_t r = tb_row(&u->b, parent, key);
	if (r == PV_NONE)
		u->oom = 1;
	else
		u->first[r] = u->count[r] = 0;
	return r;
}

static void bu_move(struct bu *u, uint32_t to, uint32_t from, uint32_t n)
{
	size_t nm = u->nm;
	if (to == from || !n)
		return;
	memmove(u->node + to, u->node + from, (size_t)n * sizeof(*u->node));
	memmove(u->wt + to * nm, u->wt + from * nm, n * nm * sizeof(int64_t));
	memmove(u->ws + to * nm, u->ws + from * nm, n * nm * sizeof(int64_t));
}

static int bu_grow(struct bu *u, uint64_t need)
{
	if (need <= u->wcap)
		return 0;
	uint32_t nc = grow_cap(u->wcap, need);
	if (!nc || COL_GROW(u->node, nc) ||
	    col_realloc((void **)&u->wt, u->nm * sizeof(int64_t), nc) ||
	    col_realloc((void **)&u->ws, u->nm * sizeof(int64_t), nc))
		return -1;
	u->wcap = nc;
	return 0;
}

/* Walkers by the first walker slot of their row (ctx: u->first). */
static int bu_cmp_first(const void *a, const void *b, void *ctx)
{
	const uint32_t *first = ctx;
	uint32_t x = first[((const struct bu_item *)a)->row];
	uint32_t y = first[((const struct bu_item *)b)->row];
	return x < y ? -1 : x > y;
}

/*
 * Room for n more walkers; the row being expanded owns [*first, *first + n). When the slices of
 * expanded rows are at least half of the walkers, the live ones (the heap's and this one) move
 * down in place, in the order they lie; else the array grows.
 */
static int bu_room(struct bu *u, uint32_t *first, uint32_t n)
{
	if ((uint64_t)u->wlen + n <= u->wcap)
		return 0;
	if ((u->live + n) * 2 <= u->wlen) {
		pv_sort_r(u->heap, u->hlen, sizeof(*u->heap), bu_cmp_first, u->first);
		uint32_t at = 0;
		bool placed = false;
		for (uint32_t i = 0; i <= u->hlen; i++) {
			if (!placed && (i == u->hlen || u->first[u->heap[i].row] > *first)) {
				bu_move(u, at, *first, n);
				*first = at;
				at += n;
				placed = true;
			}
			if (i == u->hlen)
				break;
			uint32_t r = u->heap[i].row;
			bu_move(u, at, u->first[r], u->count[r]);
			u->first[r] = at;
			at += u->count[r];
		}
		u->wlen = at;
		for (uint32_t i = u->hlen / 2; i-- > 0;) /* a heap again */
			bu_sift(u, i);
		if ((uint64_t)u->wlen + n <= u->wcap)
			return 0;
	}
	return bu_grow(u, (uint64_t)u->wlen + n);
}

static uint32_t bu_next(const struct bu *u, uint32_t x, enum bu_step step)
{
	return step == BU_SELF ? x : step == BU_CALLER ? u->prefix[x] : u->run[x];
}

/*
 * Expands the walkers [first, first + n) (those of row parent; PV_NONE: the roots): each moves
 * one step, the ones that reach a stack are grouped by its key, and each group becomes a row
 * under parent, waiting in the heap with its walkers.
 */
static void bu_expand(struct bu *u, uint32_t parent, uint32_t first, uint32_t n, enum bu_step step)
{
	const struct pv_view *v = u->e->v;
	const struct wst *w = &u->e->w;
	size_t nm = u->nm;
	if (bu_room(u, &first, n)) {
		u->oom = 1;
		return;
	}
	u->now += 2;
	uint32_t seen = u->now - 1, placed = u->now, ng = 0, nu = 0;
	for (uint32_t i = first; i < first + n; i++) {
		uint32_t y = bu_next(u, u->node[i], step);
		if (y == PV_NONE || u->stamp[y] == seen)
			continue;
		u->stamp[y] = seen;
		uint32_t k = u->kx[y];
		if (u->gstamp[k] != u->now) {
			u->gstamp[k] = u->now;
			u->gcount[k] = 0;
			u->groups[ng++] = k;
		}
		u->gcount[k]++;
		nu++;
	}
	u->steps += n;
	uint32_t base = u->wlen, at = base;
	for (uint32_t g = 0; g < ng; g++) {
		u->gfill[u->groups[g]] = at;
		at += u->gcount[u->groups[g]];
	}
	u->wlen = base + nu;
	for (uint32_t i = first; i < first + n; i++) {
		uint32_t y = bu_next(u, u->node[i], step);
		if (y == PV_NONE)
			continue;
		if (u->stamp[y] != placed) {
			uint32_t s = u->gfill[u->kx[y]]++;
			u->stamp[y] = placed;
			u->pos[y] = s;
			u->node[s] = y;
			memset(u->wt + s * nm, 0, nm * sizeof(int64_t));
			memset(u->ws + s * nm, 0, nm * sizeof(int64_t));
		}
		size_t s = u->pos[y];
		for (size_t m = 0; m < nm; m++) {
			u->wt[s * nm + m] += u->wt[i * nm + m];
			u->ws[s * nm + m] += u->ws[i * nm + m];
		}
	}
	struct pv_tree *t = u->b.t;
	at = base;
	for (uint32_t g = 0; g < ng && !u->oom; g++) {
		uint32_t k = u->groups[g], c = u->gcount[k];
		uint32_t r = bu_row(u, parent, u->b.keyv[k]);
		if (r == PV_NONE)
			return;
		u->first[r] = at;
		u->count[r] = c;
		for (size_t s = at; s < at + c; s++) {
			row_frame(v, t, r, w->frame[u->node[s]]);
			for (size_t m = 0; m < nm; m++) {
				t->total[m][r] += u->wt[s * nm + m];
				t->self[m][r] += u->ws[s * nm + m];
			}
		}
		at += c;
		bu_push(u, r);
	}
}

/* Whether one of row r's walkers has a caller: the row would have children. */
static bool bu_more(const struct bu *u, uint32_t r, enum bu_step step)
{
	for (uint32_t i = u->first[r]; i < u->first[r] + u->count[r]; i++)
		if (bu_next(u, u->node[i], step) != PV_NONE)
			return true;
	return false;
}

/* How row r's walkers move: past the center to its callers, else to the next row key. */
static enum bu_step bu_step_of(const struct bu *u, uint32_t r, bool merge_runs)
{
	return u->b.t->kind[r] == PV_ROW_CENTER ? BU_CALLER : merge_runs ? BU_RUN : BU_CALLER;
}

static void bu_release(struct bu *u)
{
	tb_release(&u->b);
	pv_free(u->kx);
	if (u->run != u->prefix)
		pv_free(u->run);
	pv_free(u->stamp);
	pv_free(u->pos);
	pv_free(u->gstamp);
	pv_free(u->gcount);
	pv_free(u->gfill);
	pv_free(u->groups);
	pv_free(u->node);
	pv_free(u->wt);
	pv_free(u->ws);
	pv_free(u->first);
	pv_free(u->count);
	pv_free(u->heap);
}

/* Says in the view's note how many rows a budget left unexpanded. */
static int note_unexpanded(struct pv_engine *e, uint64_t n, uint64_t rows)
{
	struct pv_view *v = e->v;
	char buf[160];
	snprintf(buf, sizeof(buf),
		 "%" PRIu64 " light rows of the bottom-up tree not expanded (at most %" PRIu64
		 " rows)",
		 n, rows);
	size_t old = v->note ? strlen(v->note) : 0;
	char *note = pv_malloc(old + strlen(buf) + 3);
	if (!note)
		return pv_error_set(e->err, PV_ENOMEM, "out of memory");
	snprintf(note, old + strlen(buf) + 3, "%s%s%s", old ? v->note : "", old ? "; " : "", buf);
	pv_free(v->note);
	v->note = note;
	return 0;
}

/*
 * The bottom-up tree. With a center (anchor[s]: the outermost match of s's path), one center
 * row over the anchors' callers; without, the inverted tree.
 */
static int build_bottom_up(struct pv_engine *e, const uint32_t *anchor, struct pv_tree **out)
{
	struct wst *w = &e->w;
	struct pv_view *v = e->v;
	uint32_t n = w->len ? w->len : 1, nm = e->nm;
	enum pv_granularity by = v->q.by;
	bool merge_runs = by == PV_BY_FILE || by == PV_BY_MODULE;
	struct bu u;
	memset(&u, 0, sizeof(u));
	u.e = e;
	u.nm = nm;
	u.prefix = w->prefix;
	int rc = 0;
	uint32_t *own = NULL, *up = NULL; /* v->scoped: see below */
	uint8_t *cself = NULL;
	if (tb_init(&u.b, nm))
		goto oom;
	u.kx = pv_malloc((size_t)n * sizeof(*u.kx));
	u.run = merge_runs ? pv_malloc((size_t)n * sizeof(*u.run)) : w->prefix;
	u.stamp = pv_calloc(n, sizeof(*u.stamp));
	u.pos = pv_malloc((size_t)n * sizeof(*u.pos));
	if (!u.kx || !u.run || !u.stamp || !u.pos)
		goto oom;
	/*
	 * A profile with loops and statements (HPCToolkit): at function granularity such a frame
	 * makes no row of its own, it continues its function's (frame_key CONTINUE_KEY). own[s] is
	 * the stack whose row s belongs to; walkers stand on those only, and a caller is the own
	 * stack of the prefix. Without such frames own[s] = s and up = prefix.
	 */
	if (v->scoped) {
		own = pv_malloc((size_t)n * sizeof(*own));
		up = pv_malloc((size_t)n * sizeof(*up));
		if (!own || !up)
			goto oom;
		for (uint32_t s = 0; s < w->len; s++) {
			uint32_t pre = w->prefix[s];
			own[s] = frame_key(v, w->frame[s], by) == CONTINUE_KEY && pre != PV_NONE
				     ? own[pre]
				     : s;
			up[s] = pre == PV_NONE ? PV_NONE : own[pre];
		}
		u.prefix = up;
		if (!merge_runs)
			u.run = up;
	}
	for (uint32_t s = 0; s < w->len && !u.b.oom; s++) {
		u.kx[s] = key_index(&u.b, own_key(v, w->frame[s], by));
		if (merge_runs) {
			uint32_t pre = u.prefix[s];
			u.run[s] = pre == PV_NONE || u.kx[pre] != u.kx[s] ? pre : u.run[pre];
		}
	}
	uint32_t nk = u.b.nr_keys ? u.b.nr_keys : 1;
	u.gstamp = pv_calloc(nk, sizeof(*u.gstamp));
	u.gcount = pv_malloc((size_t)nk * sizeof(*u.gcount));
	u.gfill = pv_malloc((size_t)nk * sizeof(*u.gfill));
	u.groups = pv_malloc((size_t)nk * sizeof(*u.groups));
	if (u.b.oom || !u.gstamp || !u.gcount || !u.gfill || !u.groups)
		goto oom;
	/* a loop or line of the center continues its row: its cost is the center's self too */
	if (anchor && v->scoped && !(cself = pv_malloc(n)))
		goto oom;
	for (uint32_t s = 0; cself && s < w->len; s++)
		cself[s] = anchor[s] == s ||
			   (anchor[s] != PV_NONE && w->prefix[s] != PV_NONE &&
			    cself[w->prefix[s]] && frame_key(v, w->frame[s], by) == CONTINUE_KEY);
	/* the first walkers: each stack's own row (no center) or each anchor, with its cost */
	u.now = 2;
	for (uint32_t s = 0; s < w->len; s++) {
		uint32_t a = anchor ? anchor[s] : own ? own[s] : s;
		bool any = false;
		for (uint32_t m = 0; m < nm; m++)
			any |= w->cost[m][s] != 0;
		if (a == PV_NONE || !any)
			continue;
		if (u.stamp[a] != u.now) {
			if (bu_grow(&u, (uint64_t)u.wlen + 1))
				goto oom;
			u.stamp[a] = u.now;
			u.pos[a] = u.wlen++;
			u.node[u.pos[a]] = a;
			memset(u.wt + (size_t)u.pos[a] * nm, 0, nm * sizeof(int64_t));
			memset(u.ws + (size_t)u.pos[a] * nm, 0, nm * sizeof(int64_t));
		}
		for (uint32_t m = 0; m < nm; m++) {
			u.wt[(size_t)u.pos[a] * nm + m] += w->cost[m][s];
			if (!anchor || a == s || (cself && cself[s]))
				u.ws[(size_t)u.pos[a] * nm + m] += w->cost[m][s];
		}
	}
	pv_free(cself);
	cself = NULL;
	uint32_t n0 = u.wlen;
	if (anchor && n0) {
		uint32_t c = bu_row(&u, PV_NONE, CENTER_KEY);
		if (c == PV_NONE)
			goto oom;
		u.count[c] = n0;
		for (size_t i = 0; i < n0; i++) {
			for (uint32_t m = 0; m < nm; m++) {
				u.b.t->total[m][c] += u.wt[i * nm + m];
				u.b.t->self[m][c] += u.ws[i * nm + m];
			}
		}
		bu_push(&u, c);
	} else if (n0) {
		bu_expand(&u, PV_NONE, 0, n0, BU_SELF);
	}
	/* grow, heaviest first, within the budgets */
	uint64_t max_rows = (uint64_t)BU_ROWS_PER_STACK * w->len, max_steps;
	if (max_rows < BU_MIN_ROWS)
		max_rows = BU_MIN_ROWS;
	if (max_rows < v->q.max_rows)
		max_rows = v->q.max_rows;
	max_steps = (uint64_t)BU_STEPS_PER_STACK * w->len;
	if (max_steps < BU_MIN_STEPS)
		max_steps = BU_MIN_STEPS;
	if (max_steps < 4 * max_rows)
		max_steps = 4 * max_rows;
	bool unlimited = v->q.max_rows == 0;
	uint64_t unexpanded = 0;
	while (u.hlen && !u.oom) {
		if (!unlimited && (u.b.t->len >= max_rows || u.steps >= max_steps)) {
			/* the rows waiting stay unexpanded: those with callers are counted */
			for (uint32_t i = 0; i < u.hlen; i++) {
				uint32_t r = u.heap[i].row;
				unexpanded += bu_more(&u, r, bu_step_of(&u, r, merge_runs));
			}
			break;
		}
		uint32_t r = bu_pop(&u);
		bu_expand(&u, r, u.first[r], u.count[r], bu_step_of(&u, r, merge_runs));
	}
	if (!anchor && !u.oom && !u.b.oom)
		nostack_row(e, &u.b, true);
	if (u.oom || u.b.oom)
		goto oom;
	if (unexpanded && (rc = note_unexpanded(e, unexpanded, max_rows)))
		goto fail;
	rc = tree_finish(e, u.b.t, false);
	if (rc)
		goto fail;
	*out = u.b.t;
	u.b.t = NULL;
	bu_release(&u);
	pv_free(own);
	pv_free(up);
	return 0;
oom:
	rc = pv_error_set(e->err, PV_ENOMEM, "out of memory building a tree");
fail:
	tree_free(u.b.t, nm);
	bu_release(&u);
	pv_free(own);
	pv_free(up);
	pv_free(cself);
	return rc;
}

/* ---- flat view and the per-scope list ---- */

/*
 * Counted once per sample: a depth-first walk over a top-down tree (at line granularity) keeps,
 * for each level's scope, how many rows of it are on the current path; a row adds its total to
 * its scope only when it is the outermost one.
 */
struct flat_build {
	uint32_t nlevels;
	uint32_t *key_of[4]; /* per tree row: the level's scope index */
	uint32_t nr_scopes[4];
	int64_t *incl[4][PV_QUERY_MAX], *excl[4][PV_QUERY_MAX];
	uint32_t *active[4];
	uint8_t *inlined[4];	   /* scope index -> every tree row of it inlined */
	uint64_t *scope_key[4];	   /* scope index -> KEY() */
	uint32_t *scope_parent[4]; /* scope index -> scope index at the level above */
	/* the last level of a profile with loops: scope index -> the loop scope it is nested in
	 * (PV_NONE: right in its function) and how many loops deep that is */
	uint32_t *loop_parent, *nest;
	uint32_t *row_loop; /* tree row -> the loop scope it is right in (a list has one row of a
			     * line for its places in and out of loops) */
};

/* Loops nested deeper than this in the flat view are rows beside the deepest one shown. */
#define FLAT_NEST_MAX (PV_FLAT_LEVELS - 4)

/*
 * Whether a scope of the flat view's last level (lines, and an HPCToolkit profile's loops) is a
 * row: by loop, the loops only; in a profile with loops, not a procedure's frame of no line (the
 * procedure itself, above its loops, not a line of it).
 */
static bool loop_level_row(const struct pv_view *v, uint64_t key)
{
	if (KEY_KIND(key) == PV_ROW_LOOP)
		return true;
	if (v->q.by == PV_BY_LOOP)
		return false;
	return !(v->scoped && KEY_KIND(key) == PV_ROW_LINE && KEY_LINE(key) == 0);
}

/* The group of scope sx of level l among the rows of one parent: its parent scope, or for a
 * scope nested in a loop (loops given: the number of groups of parents) loops + that loop's. */
static uint32_t flat_group(const struct flat_build *fb, uint32_t l, uint32_t sx, bool list,
			   uint32_t loops)
{
	if (!l || list)
		return 0;
	if (loops != PV_NONE && fb->loop_parent[sx] != PV_NONE)
		return loops + fb->loop_parent[sx];
	return fb->scope_parent[l][sx];
}

static int flat_compute(struct pv_engine *e, const struct pv_tree *t, struct pv_flat **out)
{
	struct pv_view *v = e->v;
	uint32_t levels[4];
	uint32_t nl = 0;
	bool list = pv_view_kind(v->q.view)->list;
	enum pv_granularity by = v->q.by;
	/* by loop: the last level holds the loops only (doc/hpctoolkit.md) */
	bool deep = by == PV_BY_LINE || by == PV_BY_LOOP;
	/* hpcviewer's flat view: function > loop > nested loop > line (doc/hpctoolkit.md) */
	bool loops = deep && v->scoped, nestl = loops && !list;
	bool nested = v->q.self == PV_SELF_NESTED;
	if (list) {
		levels[nl++] = by == PV_BY_MODULE ? 0 : by == PV_BY_FILE ? 1 : deep ? 3 : 2;
	} else {
		levels[nl++] = 0;
		if (by != PV_BY_MODULE)
			levels[nl++] = 1;
		if (by == PV_BY_FUNCTION || deep)
			levels[nl++] = 2;
		if (deep)
			levels[nl++] = 3;
	}
	struct flat_build fb;
	memset(&fb, 0, sizeof(fb));
	fb.nlevels = nl;
	struct u64map maps[4];
	memset(maps, 0, sizeof(maps));
	uint32_t n = t->len ? t->len : 1;
	uint32_t *stack = NULL, *iter = NULL;
	struct pv_flat *f = NULL;
	int rc = PV_ENOMEM;
	for (uint32_t l = 0; l < nl; l++) {
		fb.key_of[l] = pv_malloc((size_t)n * sizeof(uint32_t));
		fb.scope_key[l] = pv_malloc((size_t)n * sizeof(uint64_t));
		fb.scope_parent[l] = pv_malloc((size_t)n * sizeof(uint32_t));
		if (!fb.key_of[l] || !fb.scope_key[l] || !fb.scope_parent[l])
			goto out;
	}
	if (loops) {
		fb.loop_parent = pv_malloc((size_t)n * sizeof(uint32_t));
		fb.nest = pv_malloc((size_t)n * sizeof(uint32_t));
		fb.row_loop = pv_malloc((size_t)n * sizeof(uint32_t));
		if (!fb.loop_parent || !fb.nest || !fb.row_loop)
			goto out;
	}
	/* scope of each row at each level; rows are (function, line) at line granularity */
	for (uint32_t r = 0; r < t->len; r++) {
		bool loop = t->kind[r] == PV_ROW_LOOP;
		uint32_t fn = loop ? vf_func(v, t->id[r]) : t->id[r];
		uint32_t parent_scope = PV_NONE;
		for (uint32_t l = 0; l < nl; l++) {
			uint64_t key;
			switch (t->kind[r] == PV_ROW_NOSTACK ? 4 : levels[l]) {
			case 4: key = KEY(PV_ROW_NOSTACK, 0, 0); break; /* one row, on top */
			case 0: key = KEY(PV_ROW_MODULE, fn_module(v, fn), 0); break;
			case 1: key = KEY(PV_ROW_FILE, fn_source(v, fn), 0); break;
			case 2: key = KEY(PV_ROW_FUNCTION, fn, 0); break;
			default:
				key = loop ? KEY(PV_ROW_LOOP, t->id[r], 0)
					   : KEY(PV_ROW_LINE, fn, t->line[r]);
				break;
			}
			/* a loop, or a line, right in a loop of its function (rows are numbered
			 * parents first): nested in that loop's scope */
			uint32_t encl = PV_NONE, pr = t->parent[r];
			if (loops && levels[l] == 3 && pr != PV_NONE &&
			    t->kind[pr] == PV_ROW_LOOP && t->kind[r] != PV_ROW_NOSTACK &&
			    vf_func(v, t->id[pr]) == fn) {
				encl = fb.key_of[l][pr];
				/* too deep: beside the deepest loop shown */
				if (nestl && fb.nest[encl] + 1 > FLAT_NEST_MAX)
					encl = fb.loop_parent[encl];
			}
			if (loops && levels[l] == 3)
				fb.row_loop[r] = encl;
			/* nesting: a file row belongs to its module row, and so on; a list has one
			 * row a scope wherever it is */
			uint64_t mk =
			    list ? key
			    : encl == PV_NONE
				? key ^ ((uint64_t)(parent_scope + 1) * 0x9e3779b97f4a7c15ULL)
				: key ^ ((uint64_t)(encl + 1) * 0xc2b2ae3d27d4eb4fULL);
			uint32_t sx = u64map_get(&maps[l], mk);
			if (sx == UINT32_MAX) {
				sx = fb.nr_scopes[l]++;
				fb.scope_key[l][sx] = key;
				fb.scope_parent[l][sx] = parent_scope;
				if (loops && levels[l] == 3) {
					fb.loop_parent[sx] = encl;
					fb.nest[sx] = encl == PV_NONE ? 0 : fb.nest[encl] + 1;
				}
				if (u64map_put(&maps[l], mk, sx))
					goto out;
			}
			fb.key_of[l][r] = sx;
			parent_scope = sx;
		}
	}
	for (uint32_t l = 0; l < nl; l++) {
		uint32_t ns = fb.nr_scopes[l] ? fb.nr_scopes[l] : 1;
		fb.active[l] = pv_calloc(ns, sizeof(uint32_t));
		fb.inlined[l] = pv_malloc(ns);
		if (!fb.active[l] || !fb.inlined[l])
			goto out;
		memset(fb.inlined[l], 1, ns);
		for (uint32_t r = 0; r < t->len; r++)
			fb.inlined[l][fb.key_of[l][r]] &= t->inlined ? t->inlined[r] : 0;
		for (uint32_t m = 0; m < e->nm; m++) {
			fb.incl[l][m] = pv_calloc(ns, sizeof(int64_t));
			fb.excl[l][m] = pv_calloc(ns, sizeof(int64_t));
			if (!fb.incl[l][m] || !fb.excl[l][m])
				goto out;
		}
	}
	uint32_t maxd = 1;
	for (uint32_t r = 0; r < t->len; r++)
		if (t->depth[r] + 1 > maxd)
			maxd = t->depth[r] + 1;
	stack = pv_malloc((size_t)maxd * sizeof(uint32_t));
	iter = pv_malloc((size_t)maxd * sizeof(uint32_t));
	if (!stack || !iter)
		goto out;
	for (uint32_t ri = 0; ri < t->nr_roots; ri++) {
		uint32_t sp = 0;
		uint32_t r = t->roots[ri];
		goto enter;
		while (sp) {
			r = stack[sp - 1];
			if (iter[sp - 1] < t->child_len[r]) {
				r = t->children[t->child_first[r] + iter[sp - 1]++];
			enter:
				for (uint32_t l = 0; l < nl; l++) {
					uint32_t sx = fb.key_of[l][r];
					bool outer = fb.active[l][sx]++ == 0;
					for (uint32_t m = 0; m < e->nm; m++) {
						if (outer)
							fb.incl[l][m][sx] += t->total[m][r];
						fb.excl[l][m][sx] += t->self[m][r];
					}
					if (!loops || levels[l] != 3)
						continue;
					/* a loop's self: its own lines', and with --self nested its
					 * nested loops' too (the rows' selves are their own here)
					 */
					uint32_t a = fb.row_loop[r];
					if (!nested && KEY_KIND(fb.scope_key[l][sx]) != PV_ROW_LINE)
						a = PV_NONE;
					for (; a != PV_NONE;
					     a = nested ? fb.loop_parent[a] : PV_NONE)
						for (uint32_t m = 0; m < e->nm; m++)
							fb.excl[l][m][a] += t->self[m][r];
				}
				stack[sp] = r;
				iter[sp] = 0;
				sp++;
			} else {
				for (uint32_t l = 0; l < nl; l++)
					fb.active[l][fb.key_of[l][r]]--;
				sp--;
			}
		}
	}
	/* rows: each level's scopes, nested under their parent scope, sorted */
	uint32_t total_rows = 0;
	for (uint32_t l = 0; l < nl; l++)
		total_rows += fb.nr_scopes[l];
	f = pv_calloc(1, sizeof(*f));
	if (!f)
		goto out;
	uint32_t cap = total_rows ? total_rows : 1;
	f->kind = pv_malloc(cap);
	f->id = pv_malloc((size_t)cap * sizeof(uint32_t));
	f->line = pv_malloc((size_t)cap * sizeof(uint32_t));
	f->level = pv_malloc(cap);
	f->in_center = pv_calloc(cap, 1);
	f->inlined = pv_calloc(cap, 1);
	f->total = pv_calloc(e->nm, sizeof(int64_t *));
	f->self = pv_calloc(e->nm, sizeof(int64_t *));
	if (!f->kind || !f->id || !f->line || !f->level || !f->in_center || !f->inlined ||
	    !f->total || !f->self)
		goto out;
	for (uint32_t m = 0; m < e->nm; m++) {
		f->total[m] = pv_malloc((size_t)cap * sizeof(int64_t));
		f->self[m] = pv_malloc((size_t)cap * sizeof(int64_t));
		if (!f->total[m] || !f->self[m])
			goto out;
	}
	/* order the scopes of each level, then emit depth first by parent scope */
	uint32_t *order[4] = {0}, *first[4] = {0}, *count[4] = {0};
	uint8_t *tmpkind[4] = {0};
	uint32_t *tmpid[4] = {0}, *tmpline[4] = {0};
	bool ok = true;
	for (uint32_t l = 0; l < nl && ok; l++) {
		uint32_t ns = fb.nr_scopes[l] ? fb.nr_scopes[l] : 1;
		order[l] = pv_malloc((size_t)ns * sizeof(uint32_t));
		tmpkind[l] = pv_malloc(ns);
		tmpid[l] = pv_malloc((size_t)ns * sizeof(uint32_t));
		tmpline[l] = pv_malloc((size_t)ns * sizeof(uint32_t));
		uint32_t np = l ? (fb.nr_scopes[l - 1] ? fb.nr_scopes[l - 1] : 1) : 1;
		/* the last level nested in loops: groups np + loop scope, after the functions' */
		uint32_t ng = nestl && l + 1 == nl ? np + ns : np;
		first[l] = pv_calloc(ng, sizeof(uint32_t));
		count[l] = pv_calloc(ng, sizeof(uint32_t));
		ok = order[l] && tmpkind[l] && tmpid[l] && tmpline[l] && first[l] && count[l];
		if (!ok)
			break;
		for (uint32_t sx = 0; sx < fb.nr_scopes[l]; sx++) {
			tmpkind[l][sx] = KEY_KIND(fb.scope_key[l][sx]);
			tmpid[l][sx] = KEY_ID(fb.scope_key[l][sx]);
			tmpline[l][sx] = KEY_LINE(fb.scope_key[l][sx]);
		}
		/* group by parent scope (counting sort), then sort each group */
		for (uint32_t sx = 0; sx < fb.nr_scopes[l]; sx++)
			count[l][flat_group(&fb, l, sx, list, ng > np ? np : PV_NONE)]++;
		uint32_t off = 0;
		for (uint32_t ps = 0; ps < ng; ps++) {
			first[l][ps] = off;
			off += count[l][ps];
			count[l][ps] = 0;
		}
		for (uint32_t sx = 0; sx < fb.nr_scopes[l]; sx++) {
			uint32_t ps = flat_group(&fb, l, sx, list, ng > np ? np : PV_NONE);
			order[l][first[l][ps] + count[l][ps]++] = sx;
		}
		bool by_self = pv_query_sort(&v->q) == PV_SORT_SELF;
		struct row_sort c = {v,
				     NULL,
				     by_self ? fb.excl[l][0] : fb.incl[l][0],
				     by_self ? fb.incl[l][0] : fb.excl[l][0],
				     tmpkind[l],
				     tmpid[l],
				     tmpline[l],
				     NULL};
		for (uint32_t ps = 0; ps < ng; ps++)
			sort_ix(&c, order[l] + first[l][ps], count[l][ps]);
	}
	if (ok) {
		/* emit: depth first through the levels with an explicit cursor per level */
		uint32_t pos[PV_FLAT_LEVELS] = {0}, endp[PV_FLAT_LEVELS] = {0};
		uint32_t depth = 0;
		uint32_t np_last = nl > 1 ? (fb.nr_scopes[nl - 2] ? fb.nr_scopes[nl - 2] : 1) : 1;
		pos[0] = 0;
		endp[0] = fb.nr_scopes[0];
		uint32_t out_len = 0;
		while (true) {
			if (pos[depth] == endp[depth]) {
				if (depth == 0)
					break;
				depth--;
				continue;
			}
			uint32_t l = depth < nl ? depth : nl - 1; /* past it: loops in loops */
			uint32_t sx = order[l][pos[depth]++];
			bool live = false;
			for (uint32_t m = 0; m < e->nm; m++)
				live |= fb.incl[l][m][sx] != 0 || fb.excl[l][m][sx] != 0;
			if (!live) /* a scope only on stacks without cost: nothing under it either
				    */
				continue;
			bool nostack = KEY_KIND(fb.scope_key[l][sx]) == PV_ROW_NOSTACK;
			if (nostack && l > 0) /* the (no stack) row has no rows under it */
				continue;
			if (levels[l] == 3 && !loop_level_row(v, fb.scope_key[l][sx]))
				continue;
			uint32_t o = out_len++;
			f->kind[o] = tmpkind[l][sx];
			f->id[o] = tmpid[l][sx];
			f->line[o] = tmpline[l][sx];
			f->level[o] = (uint8_t)(levels[l] + (depth - l));
			for (uint32_t m = 0; m < e->nm; m++) {
				f->total[m][o] = fb.incl[l][m][sx];
				f->self[m][o] = fb.excl[l][m][sx];
			}
			f->inlined[o] = fb.inlined[l][sx];
			if (!list && l + 1 < nl && !nostack) {
				depth++;
				pos[depth] = first[depth][sx];
				endp[depth] = first[depth][sx] + count[depth][sx];
			} else if (nestl && l + 1 == nl && count[l][np_last + sx]) {
				depth++; /* the loops and lines in this loop */
				pos[depth] = first[l][np_last + sx];
				endp[depth] = pos[depth] + count[l][np_last + sx];
			}
		}
		f->len = out_len;
		rc = 0;
	}
	for (uint32_t l = 0; l < 4; l++) {
		pv_free(order[l]);
		pv_free(first[l]);
		pv_free(count[l]);
		pv_free(tmpkind[l]);
		pv_free(tmpid[l]);
		pv_free(tmpline[l]);
	}
out:
	pv_free(fb.loop_parent);
	pv_free(fb.nest);
	pv_free(fb.row_loop);
	for (uint32_t l = 0; l < 4; l++) {
		pv_free(fb.key_of[l]);
		pv_free(fb.scope_key[l]);
		pv_free(fb.scope_parent[l]);
		pv_free(fb.active[l]);
		pv_free(fb.inlined[l]);
		for (uint32_t m = 0; m < e->nm; m++) {
			pv_free(fb.incl[l][m]);
			pv_free(fb.excl[l][m]);
		}
		u64map_release(&maps[l]);
	}
	pv_free(stack);
	pv_free(iter);
	if (rc) {
		if (f) {
			pv_free(f->kind);
			pv_free(f->id);
			pv_free(f->line);
			pv_free(f->level);
			pv_free(f->in_center);
			pv_free(f->inlined);
			for (uint32_t m = 0; m < e->nm && f->total; m++) {
				pv_free(f->total[m]);
				pv_free(f->self[m]);
			}
			pv_free(f->total);
			pv_free(f->self);
			pv_free(f);
		}
		return pv_error_set(e->err, PV_ENOMEM, "out of memory building the flat view");
	}
	*out = f;
	return 0;
}

/*
 * Call-graph formats (callgrind) state each function's exact self and inclusive cost; the samples
 * only hold calling contexts estimated from the call graph. A list of functions over the whole,
 * unfiltered profile shows the file's own numbers (what callgrind_annotate prints), re-sorted.
 */
static bool whole_profile(const struct pv_view *v)
{
	const struct pv_query *q = &v->q;
	return !q->nr_filters && !q->has_range && !v->centered && !q->inside_markers &&
	       v->nr_threads == v->p->threads.len;
}

static void exact_function_costs(struct pv_engine *e)
{
	const struct pv_profile *p = e->p;
	struct pv_view *v = e->v;
	struct pv_flat *f = v->flat;
	if (!p->func_costs.total || p->func_costs.funcs_len != p->funcs.len || !whole_profile(v) ||
	    v->q.by != PV_BY_FUNCTION)
		return;
	for (uint32_t r = 0; r < f->len; r++) {
		if (f->kind[r] != PV_ROW_FUNCTION || f->id[r] >= p->funcs.len)
			continue;
		for (uint32_t m = 0; m < e->nm; m++) {
			f->total[m][r] = p->func_costs.total[v->metrics[m]][f->id[r]];
			f->self[m][r] = p->func_costs.self[v->metrics[m]][f->id[r]];
		}
	}
	/* re-sort each run of function rows (the list, or the functions of one file) */
	uint32_t *order = pv_malloc((size_t)(f->len ? f->len : 1) * sizeof(*order));
	int64_t *tot = pv_malloc((size_t)(f->len ? f->len : 1) * sizeof(*tot));
	int64_t *slf = pv_malloc((size_t)(f->len ? f->len : 1) * sizeof(*slf));
	uint32_t *id = pv_malloc((size_t)(f->len ? f->len : 1) * sizeof(*id));
	if (!order || !tot || !slf || !id)
		goto out;
	for (uint32_t a = 0; a < f->len;) {
		uint32_t b = a;
		while (b < f->len && f->kind[b] == PV_ROW_FUNCTION)
			b++;
		if (b - a > 1) {
			for (uint32_t r = a; r < b; r++)
				order[r - a] = r;
			bool by_self = pv_query_sort(&v->q) == PV_SORT_SELF;
			struct row_sort c = {v,
					     NULL,
					     by_self ? f->self[0] : f->total[0],
					     by_self ? f->total[0] : f->self[0],
					     f->kind,
					     f->id,
					     f->line,
					     NULL};
			sort_ix(&c, order, b - a);
			for (uint32_t m = 0; m < e->nm; m++) {
				for (uint32_t k = 0; k < b - a; k++) {
					tot[k] = f->total[m][order[k]];
					slf[k] = f->self[m][order[k]];
				}
				memcpy(f->total[m] + a, tot, (b - a) * sizeof(*tot));
				memcpy(f->self[m] + a, slf, (b - a) * sizeof(*slf));
			}
			for (uint32_t k = 0; k < b - a; k++)
				id[k] = f->id[order[k]];
			memcpy(f->id + a, id, (b - a) * sizeof(*id));
			for (uint32_t k = 0; k < b - a; k++)
				id[k] = f->inlined[order[k]];
			for (uint32_t k = 0; k < b - a; k++)
				f->inlined[a + k] = (uint8_t)id[k];
		}
		a = b == a ? a + 1 : b;
	}
out:
	pv_free(order);
	pv_free(tot);
	pv_free(slf);
	pv_free(id);
}

/*
 * The function list of a call-graph profile over its whole, unfiltered self (callgrind): the
 * rows are every function of the stack table (as the line-level tree and flat_compute would
 * find them) and exact_function_costs gives their values and order, so neither the tree nor
 * the flat pass runs. Returns 1 when it applies, 0 when not, or the error.
 */
static int exact_top(struct pv_engine *e)
{
	const struct pv_profile *p = e->p;
	struct pv_view *v = e->v;
	if (!pv_view_kind(v->q.view)->list || !p->func_costs.total ||
	    p->func_costs.funcs_len != p->funcs.len || !whole_profile(v) ||
	    v->q.by != PV_BY_FUNCTION)
		return 0;
	struct wst *w = &e->w;
	uint8_t *seen = pv_calloc(p->funcs.len ? p->funcs.len : 1, 1);
	struct pv_flat *f = pv_calloc(1, sizeof(*f));
	if (!seen || !f)
		goto oom;
	f->total = pv_calloc(e->nm, sizeof(int64_t *));
	f->self = pv_calloc(e->nm, sizeof(int64_t *));
	if (!f->total || !f->self) {
		pv_free(f->total);
		pv_free(f->self);
		pv_free(f);
		f = NULL;
		goto oom;
	}
	v->flat = f; /* from here pv_view_free releases it */
	/*
	 * A function has a row when its cost over the samples, as flat_compute sums it (self, and
	 * total with recursion counted once), is not zero in some shown metric: a depth-first walk
	 * of the stack tree with one active counter per function.
	 */
	uint32_t ns = w->len, nf = p->funcs.len;
	uint32_t *first = pv_calloc((size_t)ns + 1, sizeof(uint32_t));
	uint32_t *kids = pv_malloc((size_t)(ns ? ns : 1) * sizeof(uint32_t));
	uint32_t *stk = pv_malloc((size_t)(ns ? ns : 1) * sizeof(uint32_t));
	uint32_t *it = pv_malloc((size_t)(ns ? ns : 1) * sizeof(uint32_t));
	uint32_t *active = pv_calloc(nf ? nf : 1, sizeof(uint32_t));
	int64_t *incl = pv_malloc((size_t)(ns ? ns : 1) * sizeof(int64_t));
	int64_t *fin = pv_calloc(nf ? nf : 1, sizeof(int64_t));
	int64_t *fex = pv_calloc(nf ? nf : 1, sizeof(int64_t));
	uint32_t *fnof = pv_malloc((size_t)(ns ? ns : 1) * sizeof(uint32_t));
	bool ok = first && kids && stk && it && active && incl && fin && fex && fnof;
	bool have_kids = false;
	if (ok)
		for (uint32_t x = 0; x < ns; x++)
			fnof[x] = vf_func(v, w->frame[x]);
	for (uint32_t m = 0; ok && m < e->nm; m++) {
		memcpy(incl, w->cost[m], (size_t)ns * sizeof(*incl));
		for (uint32_t x = ns; x-- > 0;)
			if (w->prefix[x] != PV_NONE)
				incl[w->prefix[x]] += incl[x];
		memset(fin, 0, (size_t)nf * sizeof(*fin));
		memset(fex, 0, (size_t)nf * sizeof(*fex));
		/*
		 * Without negative costs, a function's total is not zero exactly when one of its
		 * frames has a non-zero inclusive cost (the outermost one's is at least as large):
		 * one pass in stack order. Negative costs (cachegrind diffs) can cancel: walk.
		 */
		bool negative = false;
		for (uint32_t x = 0; x < ns && !negative; x++)
			negative = w->cost[m][x] < 0;
		if (!negative) {
			for (uint32_t x = 0; x < ns; x++) {
				uint32_t fn = fnof[x];
				if (fn < nf && !seen[fn] && (incl[x] != 0 || w->cost[m][x] != 0))
					seen[fn] = 1;
			}
			continue;
		}
		if (!have_kids) { /* the children of each stack, for the walk */
			for (uint32_t x = 0; x < ns; x++)
				if (w->prefix[x] != PV_NONE)
					first[w->prefix[x] + 1]++;
			for (uint32_t x = 0; x < ns; x++)
				first[x + 1] += first[x];
			memset(it, 0, (size_t)ns * sizeof(uint32_t));
			for (uint32_t x = 0; x < ns; x++)
				if (w->prefix[x] != PV_NONE)
					kids[first[w->prefix[x]] + it[w->prefix[x]]++] = x;
			have_kids = true;
		}
		for (uint32_t root = 0; root < ns; root++) {
			if (w->prefix[root] != PV_NONE)
				continue;
			uint32_t sp = 0;
			uint32_t x = root;
			goto enter;
			while (sp) {
				x = stk[sp - 1];
				if (it[sp - 1] < first[x + 1] - first[x]) {
					x = kids[first[x] + it[sp - 1]++];
				enter:;
					uint32_t fn = fnof[x];
					if (fn < nf) {
						if (active[fn]++ == 0)
							fin[fn] += incl[x];
						fex[fn] += w->cost[m][x];
					}
					stk[sp] = x;
					it[sp] = 0;
					sp++;
				} else {
					uint32_t fn = fnof[x];
					if (fn < nf)
						active[fn]--;
					sp--;
				}
			}
		}
		for (uint32_t fn = 0; fn < nf; fn++)
			if (!seen[fn] && (fin[fn] != 0 || fex[fn] != 0))
				seen[fn] = 1;
	}
	pv_free(first);
	pv_free(kids);
	pv_free(stk);
	pv_free(it);
	pv_free(active);
	pv_free(incl);
	pv_free(fin);
	pv_free(fex);
	pv_free(fnof);
	if (!ok)
		goto oom;
	uint32_t n = 0;
	for (uint32_t fn = 0; fn < nf; fn++)
		n += seen[fn];
	uint32_t cap = n ? n : 1;
	f->kind = pv_malloc(cap);
	f->id = pv_malloc((size_t)cap * sizeof(uint32_t));
	f->line = pv_calloc(cap, sizeof(uint32_t));
	f->level = pv_malloc(cap);
	f->in_center = pv_calloc(cap, 1);
	f->inlined = pv_calloc(cap, 1); /* call-graph formats have no inlined frames */
	if (!f->kind || !f->id || !f->line || !f->level || !f->in_center || !f->inlined)
		goto oom;
	for (uint32_t m = 0; m < e->nm; m++) {
		f->total[m] = pv_malloc((size_t)cap * sizeof(int64_t));
		f->self[m] = pv_malloc((size_t)cap * sizeof(int64_t));
		if (!f->total[m] || !f->self[m])
			goto oom;
	}
	for (uint32_t fn = 0; fn < p->funcs.len; fn++) {
		if (!seen[fn])
			continue;
		f->kind[f->len] = PV_ROW_FUNCTION;
		f->id[f->len] = fn;
		f->level[f->len] = 2;
		f->len++;
	}
	pv_free(seen);
	exact_function_costs(e); /* the values, and the list sorted as asked */
	return 1;
oom:
	pv_free(seen);
	return pv_error_set(e->err, PV_ENOMEM, "out of memory building the list");
}

/* ---- the view ---- */

void pv_free_keep(uint8_t *keep)
{
	pv_free(keep);
}

void pv_view_free(struct pv_view *v)
{
	if (!v)
		return;
	tree_free(v->tree, v->nr_metrics);
	tree_free(v->callers, v->nr_metrics);
	if (v->flat) {
		pv_free(v->flat->kind);
		pv_free(v->flat->id);
		pv_free(v->flat->line);
		pv_free(v->flat->level);
		pv_free(v->flat->in_center);
		pv_free(v->flat->inlined);
		for (uint32_t m = 0; m < v->nr_metrics; m++) {
			pv_free(v->flat->total[m]);
			pv_free(v->flat->self[m]);
		}
		pv_free(v->flat->total);
		pv_free(v->flat->self);
		pv_free(v->flat);
	}
	pv_free(v->threads);
	pv_free(v->center_label);
	pv_free(v->note);
	pv_free(v->pseudo_module);
	pv__derived_free(v->derived);
	pv_query_release(&v->q);
	pv_free(v);
}

const char *pv_view_row_name(const struct pv_view *v, enum pv_row_kind kind, uint32_t id, char *buf,
			     size_t len, uint32_t line)
{
	const struct pv_profile *p = v->p;
	switch (kind) {
	case PV_ROW_CENTER: return v->center_label ? v->center_label : "";
	case PV_ROW_NOSTACK: return "(no stack)";
	case PV_ROW_FILE: return id == PV_NONE ? "<unknown file>" : pv_str(p, p->sources.path[id]);
	case PV_ROW_MODULE:
		return id == PV_NONE ? "<unknown module>" : pv_str(p, p->modules.name[id]);
	case PV_ROW_LINE:
		if (line)
			snprintf(buf, len, "%s:%u", fn_name(v, id), line);
		else
			snprintf(buf, len, "%s:?", fn_name(v, id)); /* frames without a line */
		return buf;
	case PV_ROW_LOOP: {
		pv_source_ix s = vf_source(v, id);
		const char *path = s == PV_NONE ? "<unknown file>" : pv_str(p, p->sources.path[s]);
		const char *base = strrchr(path, '/');
		snprintf(buf, len, "loop at %s:%u", base ? base + 1 : path, vf_line(v, id));
		return buf;
	}
	default: return fn_name(v, id);
	}
}

const char *pv_row_kind_name(enum pv_row_kind kind, bool inlined)
{
	static const char *const names[] = {"function", "line",	   "file", "module",
					    "center",	"nostack", "loop"};
	if (kind == PV_ROW_FUNCTION && inlined)
		return "inline";
	return (unsigned)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "function";
}

void pv_view_row_place(const struct pv_view *v, enum pv_row_kind kind, uint32_t id,
		       pv_module_ix *module, pv_source_ix *source, uint32_t *line)
{
	*module = PV_NONE;
	*source = PV_NONE;
	*line = 0;
	if (kind == PV_ROW_FUNCTION || kind == PV_ROW_LINE) {
		*module = fn_module(v, id);
		*source = fn_source(v, id);
		if (id < v->p->funcs.len)
			*line = v->p->funcs.line[id];
	} else if (kind == PV_ROW_LOOP) {
		*module = fn_module(v, vf_func(v, id));
		*source = vf_source(v, id);
		*line = vf_line(v, id);
	} else if (kind == PV_ROW_FILE) {
		*source = id;
	} else if (kind == PV_ROW_MODULE) {
		*module = id;
	}
}

uint32_t pv_view_row_column(const struct pv_view *v, enum pv_row_kind kind, uint32_t id)
{
	return kind == PV_ROW_FUNCTION && id < v->p->funcs.len ? v->p->funcs.column[id] : 0;
}

static int resolve(struct pv_engine *e, const struct pv_query *q)
{
	const struct pv_profile *p = e->p;
	struct pv_view *v = e->v;
	if (q->sort == PV_SORT_DELTA)
		return pv_error_set(e->err, PV_EINVAL,
				    "--sort delta orders the difference of two profiles "
				    "(profview diff BASE NEW)");
	if (q->nr_metrics == 0) {
		if (p->metrics.len == 0)
			return pv_error_set(e->err, PV_EINVAL, "the profile has no metric");
		v->metrics[v->nr_metrics++] = p->meta.default_metric;
	}
	/* derived metrics (derive.c): columns of their own, their inputs' hidden columns */
	bool derives = q->nr_derive || p->formulas.len;
	int rc = derives ? pv__derive_begin(v, e->err) : 0;
	if (rc)
		return rc;
	for (uint32_t i = 0; i < q->nr_metrics; i++) {
		enum pv_stat stat;
		pv_metric_ix m = pv__metric_stat(p, q->metrics[i], &stat); /* NAME or NAME:STAT */
		if (m == PV_NONE && (rc = pv__derive_column(v, q->metrics[i], e->err)) <= 0) {
			if (rc)
				return rc;
			continue;
		}
		v->stat[v->nr_metrics] = (uint8_t)stat;
		if (m == PV_NONE) {
			char have[256] = "";
			for (uint32_t k = 0; k < p->metrics.len; k++) {
				text_append(have, sizeof(have), k ? ", " : "");
				text_append(have, sizeof(have), pv_str(p, p->metrics.name[k]));
			}
			return pv_error_set(e->err, PV_EINVAL,
					    "no metric named '%s' (the profile has: %s)",
					    q->metrics[i], have);
		}
		v->metrics[v->nr_metrics++] = m;
	}
	if (derives && (rc = pv__derive_setup(v, e->err)))
		return rc;
	e->nm = v->nr_metrics;
	for (uint32_t f = 0; f < p->frames.len && !v->scoped; f++)
		v->scoped = p->frames.kind[f] != PV_FRAME_CODE;
	return pv_thread_select(p, (const char *const *)q->threads, q->nr_threads, &v->threads,
				&v->nr_threads, e->err);
}

/*
 * --inside-markers: per thread, the union of the intervals of the markers that match the search,
 * as sorted disjoint [start, end) pairs iv[2k], iv[2k+1] for k in [first[t], first[t + 1]).
 * Markers come sorted by start, so each thread's union is built in one pass (a count, a fill
 * into each thread's region, then the regions closed up where intervals merged).
 */
struct inside {
	uint32_t *first;
	int64_t *iv;
};

static int inside_build(struct pv_engine *e, const char *search, struct inside *in)
{
	const struct pv_profile *p = e->p;
	struct pv_markers *ms = NULL;
	struct pv_marker_search *s = NULL;
	struct pv_marker_detail d = {0};
	uint8_t *keep = NULL;
	uint32_t *pos = NULL;
	uint32_t nt = p->threads.len;
	int rc = pv_markers_derive(p, &ms, e->err);
	if (rc)
		return rc;
	if (pv_marker_search_new(search, &s) || !(keep = pv_calloc(ms->len ? ms->len : 1, 1)) ||
	    !(in->first = pv_calloc((size_t)nt + 1, sizeof(*in->first)))) {
		rc = pv_error_set(e->err, PV_ENOMEM, "out of memory");
		goto done;
	}
	for (uint32_t i = 0; i < ms->len; i++) {
		if (ms->end_ns[i] == PV_TIME_NONE || ms->end_ns[i] <= ms->start_ns[i])
			continue; /* no time inside an instant */
		keep[i] = pv_marker_search_match(ms, i, s, &d);
		in->first[ms->thread[i] + 1] += keep[i];
	}
	/* first[t]: where thread t's region starts; pos[t] (first[t + 1] while filling): its end */
	for (uint32_t t = 0; t < nt; t++)
		in->first[t + 1] += in->first[t];
	in->iv = pv_malloc(((size_t)in->first[nt] + 1) * 2 * sizeof(*in->iv));
	pos = pv_malloc(((size_t)nt + 1) * sizeof(*pos));
	if (!in->iv || !pos) {
		rc = pv_error_set(e->err, PV_ENOMEM, "out of memory");
		goto done;
	}
	memcpy(pos, in->first, (size_t)nt * sizeof(*pos));
	for (uint32_t i = 0; i < ms->len; i++) {
		if (!keep[i])
			continue;
		pv_thread_ix t = ms->thread[i];
		int64_t *last = pos[t] > in->first[t] ? &in->iv[2 * (pos[t] - 1)] : NULL;
		if (last && ms->start_ns[i] <= last[1]) {
			/* overlapping the last one (markers come by start): one interval */
			if (ms->end_ns[i] > last[1])
				last[1] = ms->end_ns[i];
			continue;
		}
		in->iv[2 * pos[t]] = ms->start_ns[i];
		in->iv[2 * pos[t] + 1] = ms->end_ns[i];
		pos[t]++;
	}
	/* merged intervals leave gaps: close them, regions in thread order */
	uint32_t at = 0;
	for (uint32_t t = 0; t < nt; t++) {
		uint32_t from = in->first[t], n = pos[t] - from;
		memmove(&in->iv[2 * at], &in->iv[2 * from], (size_t)n * 2 * sizeof(*in->iv));
		in->first[t] = at;
		at += n;
	}
	in->first[nt] = at;
done:
	pv_marker_detail_release(&d);
	pv_marker_search_free(s);
	pv_free(keep);
	pv_free(pos);
	pv_markers_free(ms);
	return rc;
}

/* Whether time x lies in one of thread t's intervals (binary search). */
static bool inside_has(const struct inside *in, pv_thread_ix t, int64_t x)
{
	uint32_t lo = in->first[t], hi = in->first[t + 1];
	if (x == PV_TIME_NONE)
		return false;
	while (lo < hi) { /* the first interval starting after x */
		uint32_t mid = lo + (hi - lo) / 2;
		if (in->iv[2 * mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > in->first[t] && x < in->iv[2 * (lo - 1) + 1];
}

/* Whether q has a label filter (--tag, --drop-tag). */
static bool has_tag_filter(const struct pv_query *q)
{
	bool any = false;
	for (uint32_t i = 0; i < q->nr_filters; i++)
		any |=
		    q->filters[i].kind == PV_FILTER_TAG || q->filters[i].kind == PV_FILTER_DROP_TAG;
	return any;
}

/*
 * The label filters (--tag, --drop-tag): keep[ls] for each label set, NULL when the query has
 * none. They test samples, not stacks, so they apply in the sample pass whatever their place
 * among the filters (keeping or dropping samples commutes with the stack transforms).
 */
static int tags_build(struct pv_engine *e, uint8_t **out)
{
	const struct pv_profile *p = e->p;
	const struct pv_query *q = &e->v->q;
	*out = NULL;
	if (!has_tag_filter(q))
		return 0;
	uint32_t n = p->label_sets.len ? p->label_sets.len : 1;
	uint8_t *keep = pv_malloc(n);
	if (!keep)
		return pv_error_set(e->err, PV_ENOMEM, "out of memory");
	memset(keep, 1, n);
	for (uint32_t i = 0; i < q->nr_filters; i++) {
		const struct pv_filter *f = &q->filters[i];
		if (f->kind != PV_FILTER_TAG && f->kind != PV_FILTER_DROP_TAG)
			continue;
		const char *eq = strchr(f->arg, '=');
		char key[256];
		size_t kl = eq ? (size_t)(eq - f->arg) : 0;
		if (!eq || kl == 0 || kl >= sizeof(key)) {
			pv_free(keep);
			return pv_error_set(e->err, PV_EINVAL,
					    "--%s takes a label KEY=VALUE, not '%s'",
					    pv_filter_name(f->kind), f->arg);
		}
		memcpy(key, f->arg, kl);
		key[kl] = 0;
		bool known = false;
		for (uint32_t r = 0; r < p->labels.len && !known; r++)
			known = strcmp(pv_str(p, p->labels.key[r]), key) == 0;
		if (!known) {
			pv_free(keep);
			return pv_error_set(e->err, PV_EINVAL,
					    "--%s '%s': the profile has no label '%s'",
					    pv_filter_name(f->kind), f->arg, key);
		}
		for (uint32_t ls = 0; ls < n; ls++) {
			bool has = pv_label_set_has(p, ls, key, eq + 1) != 0;
			if (has != (f->kind == PV_FILTER_TAG))
				keep[ls] = 0;
		}
	}
	*out = keep;
	return 0;
}

/* The working table: the profile's stacks, each of cost 0 (or 1: ones). */
static int wst_profile(struct pv_engine *e, bool ones)
{
	const struct pv_profile *p = e->p;
	struct wst *w = &e->w;
	w->len = p->stacks.len;
	w->frame = p->stacks.frame;
	w->prefix = p->stacks.prefix;
	w->owned = false;
	for (uint32_t m = 0; m < e->nm; m++) {
		w->cost[m] = pv_calloc(w->len ? w->len : 1, sizeof(int64_t));
		if (!w->cost[m])
			return pv_error_set(e->err, PV_ENOMEM, "out of memory");
		for (uint32_t s = 0; ones && s < w->len; s++)
			w->cost[m][s] = 1;
	}
	return 0;
}

static int sample_pass(struct pv_engine *e)
{
	const struct pv_profile *p = e->p;
	struct pv_view *v = e->v;
	struct wst *w = &e->w;
	struct inside in = {0};
	int rc = wst_profile(e, false);
	if (rc)
		return rc;
	const struct pv_query *q = &v->q;
	if (q->inside_markers) {
		rc = inside_build(e, q->inside_markers, &in);
		if (rc) {
			pv_free(in.first);
			pv_free(in.iv);
			return rc;
		}
	}
	uint8_t *tag_keep = NULL;
	rc = tags_build(e, &tag_keep);
	if (rc) {
		pv_free(in.first);
		pv_free(in.iv);
		return rc;
	}
	for (uint32_t i = 0; i < v->nr_threads; i++) {
		pv_thread_ix t = v->threads[i];
		for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t]; s++) {
			if (tag_keep &&
			    !tag_keep[p->samples.label_set ? p->samples.label_set[s] : 0])
				continue;
			if (q->has_range) {
				int64_t x = pv_sample_time(p, s);
				if (x == PV_TIME_NONE || x < q->range_start_ns ||
				    x >= q->range_end_ns)
					continue;
			}
			if (in.first && !inside_has(&in, t, pv_sample_time(p, s)))
				continue;
			if (e->skeep)
				e->skeep[s] = 1;
			v->nr_samples++;
			pv_stack_ix st = p->samples.stack[s];
			for (uint32_t m = 0; m < e->nm; m++) {
				int64_t x = pv_sample_weight(p, v->metrics[m], s);
				if (st == PV_NONE)
					v->nostack[m] += x;
				else
					w->cost[m][st] += x;
			}
		}
	}
	pv_free(in.first);
	pv_free(in.iv);
	pv_free(tag_keep);
	return 0;
}

static char *center_label(const struct pv_query *q)
{
	if (q->nr_center > 1)
		return pv_strdup("<multiple contexts>");
	const char *s = q->center[0];
	if (strncmp(s, "file:", 5) == 0 || strncmp(s, "module:", 7) == 0 ||
	    strncmp(s, "line:", 5) == 0)
		s = strchr(s, ':') + 1;
	else if (strncmp(s, "path:", 5) == 0 && strrchr(s, ';'))
		s = strrchr(s, ';') + 1;
	else if (strncmp(s, "path:", 5) == 0)
		s += 5;
	return pv_strdup(s);
}

/* ---- the view kinds' builders (kinds.c) ---- */

int pv__build_tree(struct pv_engine *e)
{
	return build_top_down(e, e->anchor, true, &e->v->tree);
}

int pv__build_callers(struct pv_engine *e)
{
	return build_bottom_up(e, e->anchor, &e->v->tree);
}

int pv__build_butterfly(struct pv_engine *e)
{
	int rc = build_bottom_up(e, e->anchor, &e->v->callers);
	return rc ? rc : build_top_down(e, e->anchor, true, &e->v->tree);
}

int pv__build_flat(struct pv_engine *e)
{
	struct pv_view *v = e->v;
	const struct pv_profile *p = e->p;
	const uint32_t *anchor = e->anchor;
	const struct scope *center = e->center;
	uint32_t ncenter = e->ncenter;
	int rc;
	if ((rc = exact_top(e)))
		return rc == 1 ? 0 : rc;
	/* counted once per sample over the line-level top-down tree (centered for top) */
	enum pv_granularity saved = v->q.by;
	enum pv_self_mode saved_self = v->q.self;
	v->q.by = saved == PV_BY_LOOP ? PV_BY_LOOP : PV_BY_LINE; /* by loop: lines are loops' */
	v->q.self = PV_SELF_OWN; /* flat_compute nests the loops' selves itself */
	struct pv_tree *t = NULL;
	rc = build_top_down(e, pv_view_kind(v->q.view)->list ? anchor : NULL, false, &t);
	v->q.by = saved;
	v->q.self = saved_self;
	if (!rc)
		rc = flat_compute(e, t, &v->flat);
	tree_free(t, e->nm);
	if (!rc)
		exact_function_costs(e);
	if (!rc && v->centered) {
		for (uint32_t r = 0; r < v->flat->len; r++) {
			uint32_t id = v->flat->id[r];
			bool in = false;
			for (uint32_t c = 0; c < ncenter && !in; c++) {
				const struct scope *sc = &center[c];
				switch (v->flat->kind[r]) {
				case PV_ROW_FUNCTION:
					in = sc->kind == SC_FUNCS && scope_func(v, sc, id);
					break;
				case PV_ROW_LINE:
					in =
					    scope_func(v, sc, id) &&
					    (sc->kind == SC_FUNCS ||
					     (sc->kind == SC_LINE && sc->line == v->flat->line[r]));
					break;
				case PV_ROW_FILE:
					in = strncmp(sc->text, "file:", 5) == 0 && id != PV_NONE &&
					     ends_with_path(pv_str(p, p->sources.path[id]),
							    sc->text + 5);
					break;
				case PV_ROW_MODULE:
					in = strncmp(sc->text, "module:", 7) == 0 &&
					     module_named(p, id, sc->text + 7);
					break;
				case PV_ROW_LOOP:
					in = sc->kind == SC_FRAMES && id < p->frames.len &&
					     sc->vmatch[id];
					break;
				default: break;
				}
			}
			v->flat->in_center[r] = in;
		}
	}
	return rc;
}

static int compute(const struct pv_profile *p, const struct pv_query *q, struct pv_view **out,
		   uint8_t **keep_out, uint8_t **samples_out, struct pv__rows *rows_out,
		   struct pv__selection *sel, struct pv_error *err);

/* columns of statistics across threads (stats.c) and of derived metrics (derive.c), once the
 * view is computed */
static int stats_if_any(struct pv_view *v, struct pv_error *err)
{
	for (uint32_t c = 0; c < v->nr_metrics; c++) {
		if (v->stat[c] != PV_STAT_SUM) {
			int rc = pv__view_stats(v, err);
			if (rc)
				return rc;
			break;
		}
	}
	return pv__view_derive(v, err);
}

int pv_view_compute(const struct pv_profile *p, const struct pv_query *q, struct pv_view **out,
		    struct pv_error *err)
{
	return compute(p, q, out, NULL, NULL, NULL, NULL, err);
}

int pv_view_compute_keep(const struct pv_profile *p, const struct pv_query *q, struct pv_view **out,
			 uint8_t **stacks, uint8_t **samples, struct pv_error *err)
{
	return compute(p, q, out, stacks, samples, NULL, NULL, err);
}

int pv__view_rows(const struct pv_profile *p, const struct pv_query *q, struct pv_view **out,
		  struct pv__rows *rows, struct pv_error *err)
{
	rows->stack_row = NULL;
	rows->selected = NULL;
	return compute(p, q, out, NULL, NULL, rows, NULL, err);
}

int pv__view_select(const struct pv_profile *p, const struct pv_query *q, struct pv_view **out,
		    struct pv__selection *sel, struct pv_error *err)
{
	memset(sel, 0, sizeof(*sel));
	return compute(p, q, out, NULL, &sel->samples, NULL, sel, err);
}

void pv__selection_release(struct pv__selection *sel)
{
	if (sel->owned) {
		pv_free(sel->frame);
		pv_free(sel->prefix);
	}
	pv_free(sel->origin);
	pv_free(sel->anchor);
	pv_free(sel->samples);
	memset(sel, 0, sizeof(*sel));
}

static int compute(const struct pv_profile *p, const struct pv_query *q, struct pv_view **out,
		   uint8_t **keep_out, uint8_t **samples_out, struct pv__rows *rows_out,
		   struct pv__selection *sel, struct pv_error *err)
{
	struct pv_view *v = pv_calloc(1, sizeof(*v));
	if (!v)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	v->p = p;
	pv_query_init(&v->q);
	struct pv_engine e = {.p = p, .v = v, .err = err, .want_node = rows_out != NULL};
	struct scope center[PV_QUERY_MAX];
	uint32_t ncenter = 0;
	uint8_t *match = NULL;
	uint32_t *anchor = NULL;
	int rc = pv_query_copy(&v->q, q);
	if (rc) {
		rc = pv_error_set(err, PV_ENOMEM, "out of memory");
		goto fail;
	}
	/* pv__view_rows: the selection by sample only when it is not every sample of the threads */
	bool select =
	    samples_out || (rows_out && (q->has_range || q->inside_markers || has_tag_filter(q)));
	if (select && !(e.skeep = pv_calloc(p->samples.len ? p->samples.len : 1, 1))) {
		rc = pv_error_set(err, PV_ENOMEM, "out of memory");
		goto fail;
	}
	if (keep_out || samples_out || rows_out) {
		size_t n = p->stacks.len ? p->stacks.len : 1;
		e.origin = pv_malloc(n * sizeof(*e.origin));
		e.odrop = pv_calloc(n, 1);
		if (!e.origin || !e.odrop) {
			rc = pv_error_set(err, PV_ENOMEM, "out of memory");
			goto fail;
		}
		for (uint32_t o = 0; o < p->stacks.len; o++)
			e.origin[o] = o;
	}
	if ((rc = resolve(&e, q)))
		goto fail;
	if (!keep_out && !samples_out && !rows_out) {
		/* a call-graph profile: the views its graph answers (callgraph.c) */
		bool done = false;
		if ((rc = pv__callgraph_view(v, &done, err)))
			goto fail;
		if (done && (rc = stats_if_any(v, err)))
			goto fail;
		if (done) {
			*out = v;
			return 0;
		}
	}
	if (rows_out && !select) {
		/* pv__view_rows with every sample of the threads selected: the rows and the stacks'
		 * rows need no costs, so every stack weighs 1 (and the samples without a stack,
		 * when they count) instead of a pass over the samples */
		if ((rc = wst_profile(&e, true)))
			goto fail;
		for (uint32_t m = 0; m < e.nm; m++)
			v->nostack[m] = 1;
	} else if ((rc = sample_pass(&e))) {
		goto fail;
	}
	if (q->inlines == PV_INLINE_FOLD && (rc = fold_inlines(&e)))
		goto fail;
	for (uint32_t i = 0; i < q->nr_filters; i++)
		if ((rc = apply_filter(&e, &q->filters[i], i)))
			goto fail;
	/* the whole: every kept sample, those without a stack too (doc/samples-and-inlines.md) */
	if (!nostack_kept(q))
		memset(v->nostack, 0, sizeof(v->nostack));
	for (uint32_t m = 0; m < e.nm; m++) {
		v->whole[m] = v->nostack[m];
		for (uint32_t s = 0; s < e.w.len; s++)
			v->whole[m] += e.w.cost[m][s];
	}
	/* the center and each stack's outermost match */
	v->centered = q->nr_center > 0;
	if (pv_view_kind(q->view)->needs_center && !v->centered) {
		rc = pv_error_set(err, PV_EINVAL, "the %s view needs a center (--center NAME)",
				  pv_view_name(q->view));
		goto fail;
	}
	for (uint32_t i = 0; i < q->nr_center; i++) {
		if ((rc = scope_compile(&e, &center[ncenter], q->center[i], "center"))) {
			scope_release(&center[ncenter]);
			goto fail;
		}
		ncenter++;
	}
	if (v->centered) {
		v->center_label = center_label(q);
		match = pv_malloc(e.w.len ? e.w.len : 1);
		anchor = pv_malloc((size_t)(e.w.len ? e.w.len : 1) * sizeof(*anchor));
		if (!v->center_label || !match || !anchor) {
			rc = pv_error_set(err, PV_ENOMEM, "out of memory");
			goto fail;
		}
		if ((rc = match_stacks(&e, center, ncenter, match)))
			goto fail;
		for (uint32_t s = 0; s < e.w.len; s++) {
			uint32_t pre = e.w.prefix[s];
			uint32_t a = pre == PV_NONE ? PV_NONE : anchor[pre];
			anchor[s] = a != PV_NONE ? a : match[s] ? s : PV_NONE;
			if (anchor[s] != PV_NONE)
				for (uint32_t m = 0; m < e.nm; m++)
					v->center[m] += e.w.cost[m][s];
		}
	} else {
		memcpy(v->center, v->whole, sizeof(v->whole));
	}
	pv__view_set_base(v);
	e.anchor = anchor;
	e.center = center;
	e.ncenter = ncenter;
	rc = pv_view_kind(q->view)->build(&e);
	if (rc)
		goto fail;
	for (uint32_t i = 0; i < ncenter; i++)
		scope_release(&center[i]);
	for (uint32_t m = 0; m < e.nm; m++)
		pv_free(e.w.cost[m]);
	if (sel) {
		/* the working table, the origins and the anchors go to the selection */
		sel->len = e.w.len;
		sel->frame = e.w.frame;
		sel->prefix = e.w.prefix;
		sel->owned = e.w.owned;
		e.w.owned = false;
		sel->anchor = anchor;
	}
	if (e.w.owned) {
		pv_free(e.w.frame);
		pv_free(e.w.prefix);
	}
	if (keep_out || samples_out) {
		/* the stack mask: every profile stack whose samples count in this view */
		uint8_t *keep =
		    e.odrop; /* reused in place: odrop[o] is read before keep[o] is set */
		for (uint32_t o = 0; o < p->stacks.len; o++) {
			uint32_t ws = e.origin[o];
			keep[o] =
			    !e.odrop[o] && ws != PV_NONE && (!anchor || anchor[ws] != PV_NONE);
			if (keep[o] && anchor && anchor[ws] == ws)
				keep[o] = 2; /* the center is the stack's leaf: the center's self */
		}
		e.odrop = NULL;
		if (samples_out) {
			/* a sample without a stack is in v->nostack: kept unless the view needs a
			 * stack (a center, an include filter) */
			bool nostack = !v->centered && nostack_kept(q);
			for (uint32_t x = 0; x < p->samples.len; x++) {
				pv_stack_ix st = p->samples.stack[x];
				if (e.skeep[x])
					e.skeep[x] = st == PV_NONE ? nostack : keep[st];
			}
			*samples_out = e.skeep;
			e.skeep = NULL;
		}
		if (keep_out)
			*keep_out = keep;
		else
			pv_free(keep);
	}
	if (rows_out) {
		/* each profile stack's row: its working stack's, unless a filter dropped it */
		uint32_t *row =
		    e.origin; /* reused in place: origin[o] is read before row[o] is set */
		for (uint32_t o = 0; o < p->stacks.len; o++) {
			uint32_t ws = e.origin[o];
			row[o] = e.odrop[o] || ws == PV_NONE || !e.node ? PV_NONE : e.node[ws];
		}
		rows_out->stack_row = row;
		rows_out->selected = e.skeep;
		e.origin = NULL;
		e.skeep = NULL;
		pv_free(e.odrop);
		e.odrop = NULL;
	}
	pv_free(e.node);
	if (sel) {
		sel->origin = e.origin;
		e.origin = NULL;
		anchor = NULL;
	}
	pv_free(e.origin);
	pv_free(match);
	pv_free(anchor);
	if ((rc = stats_if_any(v, err))) {
		pv_view_free(v);
		return rc;
	}
	*out = v;
	return 0;
fail:
	pv_free(e.node);
	pv_free(e.origin);
	pv_free(e.odrop);
	pv_free(e.skeep);
	for (uint32_t i = 0; i < ncenter; i++)
		scope_release(&center[i]);
	for (uint32_t m = 0; m < PV_QUERY_MAX; m++)
		pv_free(e.w.cost[m]);
	if (e.w.owned) {
		pv_free(e.w.frame);
		pv_free(e.w.prefix);
	}
	pv_free(match);
	pv_free(anchor);
	pv_view_free(v);
	return rc ? rc : PV_ENOMEM;
}

/* ---- for the call-graph views (view/internal.h) ---- */

int pv__view_center_funcs(struct pv_view *v, uint8_t *mask, bool *funcs_only, struct pv_error *err)
{
	struct pv_engine e = {.p = v->p, .v = v, .err = err, .nm = v->nr_metrics};
	const struct pv_query *q = &v->q;
	*funcs_only = true;
	for (uint32_t i = 0; i < q->nr_center; i++) {
		struct scope sc;
		int rc = scope_compile(&e, &sc, q->center[i], "center");
		if (rc) {
			scope_release(&sc);
			return rc;
		}
		*funcs_only &= sc.kind == SC_FUNCS;
		for (uint32_t f = 0; f < v->p->funcs.len; f++)
			mask[f] |= sc.fmatch[f];
		scope_release(&sc);
	}
	if (q->nr_center && !(v->center_label = center_label(q)))
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	return 0;
}

int pv__scope_funcs(const struct pv_profile *p, const char *scope, uint8_t *mark,
		    struct pv_error *err)
{
	struct pv_engine e = {.p = p, .err = err};
	struct scope sc;
	int rc = scope_compile(&e, &sc, scope, "search");
	uint32_t n = 0;
	for (uint32_t f = 0; !rc && f < p->funcs.len; f++)
		n += mark[f] |= sc.fmatch[f];
	/* a path names its last step's functions; a loop the functions that hold it */
	for (uint32_t i = 0; !rc && sc.kind == SC_PATH && i < sc.path_nfuncs[sc.path_len - 1]; i++)
		n += mark[sc.path_funcs[sc.path_len - 1][i]] = 1;
	for (uint32_t f = 0; !rc && sc.kind == SC_FRAMES && f < p->frames.len; f++)
		if (sc.vmatch[f])
			n += mark[p->frames.func[f]] = 1;
	scope_release(&sc);
	return rc ? rc : (int)(n > 0);
}

void pv__view_set_base(struct pv_view *v)
{
	/* the flat view is not cut at the center (it only marks it) */
	bool of_whole = v->q.percent == PV_PERCENT_WHOLE || pv_view_kind(v->q.view)->of_whole;
	memcpy(v->base, of_whole ? v->whole : v->center, sizeof(v->base));
}

int pv__tree_finish(struct pv_view *v, struct pv_tree *t, struct pv_error *err)
{
	struct pv_engine e = {.p = v->p, .v = v, .err = err, .nm = v->nr_metrics};
	return tree_finish(&e, t, false);
}

void pv__tree_free(struct pv_tree *t, uint32_t nm)
{
	tree_free(t, nm);
}

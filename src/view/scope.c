/*
 * scope.c - scopes: what a center, a filter or a search names (doc/views.md), compiled
 * once to marks over functions, frames or a path; regex budgets; thread selection. The scopes
 * of rows are written back in this grammar by scopename.c.
 */
#include <ctype.h>

#include "view/engine.h"
#include "view/naming.h"

/* ---- scopes ---- */

void eng_scope_release(struct scope *s)
{
	pv_free(s->fmatch);
	pv_free(s->vmatch);
	pv_free(s->smatch);
	pv_free(s->mmatch);
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

/* How path holds the text s[0..b): 2 it is the whole path, 1 it ends the path as whole path
 * components ("foo.c" ends "src/foo.c", not "src/barfoo.c"), 0 not. */
static int path_grade(const char *path, const char *s, size_t b)
{
	size_t a = strlen(path);
	if (b == 0 || b > a || memcmp(path + a - b, s, b) != 0)
		return 0;
	if (a == b)
		return 2;
	return path[a - b - 1] == '/' || path[a - b - 1] == '\\' || s[0] == '/';
}

static bool text_is(const char *s, size_t n, const char *word)
{
	return n == strlen(word) && memcmp(s, word, n) == 0;
}

uint32_t eng_source_slot(const struct pv_profile *p, pv_func_ix f)
{
	pv_source_ix s = pv_func_source(p, f);
	return s == PV_NONE || !*pv_str(p, p->sources.path[s]) ? p->sources.len : s;
}

uint32_t eng_module_slot(const struct pv_profile *p, pv_module_ix m)
{
	return m == PV_NONE || !*pv_str(p, p->modules.name[m]) ? p->modules.len : m;
}

/*
 * Marks in sm (sources.len + 1 bytes, the last one standing for "no file") the files that
 * s[0..n) names: the file whose whole path it is, else every file whose path it ends; with
 * unknown, "" the functions of no file (the row "<unknown file>"). Returns how many.
 */
static uint32_t name_sources(const struct pv_profile *p, uint8_t *sm, const char *s, size_t n,
			     bool unknown)
{
	if (unknown && !n) {
		sm[p->sources.len] = 1;
		return 1;
	}
	uint32_t k = 0;
	for (int want = 2; want > 0 && !k; want--) {
		for (pv_source_ix i = 0; i < p->sources.len; i++) {
			if (path_grade(pv_str(p, p->sources.path[i]), s, n) == want) {
				sm[i] = 1;
				k++;
			}
		}
	}
	return k;
}

/* The modules s[0..n) names into mm (modules.len + 1 bytes, the last: no module): those of that
 * name, else the one of that whole path, else those whose path it ends; "" the functions of no
 * module (the row "<unknown module>"). Returns how many. */
static uint32_t name_modules(const struct pv_profile *p, uint8_t *mm, const char *s, size_t n)
{
	if (!n) {
		mm[p->modules.len] = 1;
		return 1;
	}
	uint32_t k = 0;
	for (int want = 3; want > 0 && !k; want--) {
		for (pv_module_ix m = 0; m < p->modules.len; m++) {
			const char *name = pv_str(p, p->modules.name[m]);
			int g = *name && text_is(s, n, name)
				    ? 3
				    : path_grade(pv_str(p, p->modules.path[m]), s, n);
			if (g == want) {
				mm[m] = 1;
				k++;
			}
		}
	}
	return k;
}

uint32_t eng_name_modules(const struct pv_profile *p, uint8_t *mm, const char *name)
{
	return name_modules(p, mm, name, strlen(name));
}

/* "#N" (N from 1, at most 9 digits) ending s[0..n) after some text: N and where "#" is. */
static bool trailing_ordinal(const char *s, size_t n, size_t *head, uint32_t *nth)
{
	size_t i = n;
	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i == n || i < 2 || s[i - 1] != '#' || n - i > 9 || s[i] == '0')
		return false;
	*head = i - 1;
	*nth = 0;
	for (size_t k = i; k < n; k++)
		*nth = *nth * 10 + (uint32_t)(s[k] - '0');
	return true;
}

/* Marks in one[] the nth (from 1) of the marks of all[0..len): 1, or 0 when there are fewer. */
static uint32_t keep_nth(const uint8_t *all, uint32_t len, uint32_t nth, uint8_t *one)
{
	for (uint32_t i = 0; i < len; i++) {
		if (all[i] && --nth == 0) {
			one[i] = 1;
			return 1;
		}
	}
	return 0;
}

/* The modules s[0..n) names (name_modules), or with "#N" the Nth of those the rest names. */
static uint32_t modules_named(const struct pv_profile *p, uint8_t *mm, const char *s, size_t n)
{
	size_t head;
	uint32_t k = name_modules(p, mm, s, n), nth;
	if (!k && trailing_ordinal(s, n, &head, &nth)) {
		uint8_t *all = pv_calloc(p->modules.len + 1, 1);
		if (all && name_modules(p, all, s, head))
			k = keep_nth(all, p->modules.len + 1, nth, mm);
		pv_free(all);
	}
	return k;
}

/* ":DIGITS" ending s[0..n) after some text: its value (0 too, at most 9 digits) and where the
 * ':' is. */
static bool trailing_num(const char *s, size_t n, size_t *head, uint32_t *v)
{
	size_t i = n;
	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i == n || i < 2 || s[i - 1] != ':' || n - i > 9)
		return false;
	*head = i - 1;
	*v = 0;
	for (size_t k = i; k < n; k++)
		*v = *v * 10 + (uint32_t)(s[k] - '0');
	return true;
}

/* ":0xHEX" ending s[0..n): the address (a loop's, module-relative) and where the ':' is. */
static bool trailing_addr(const char *s, size_t n, size_t *head, uint64_t *addr)
{
	size_t i = n;
	while (i > 0 && isxdigit((unsigned char)s[i - 1]))
		i--;
	if (i == n || n - i > 16 || i < 4 || s[i - 1] != 'x' || s[i - 2] != '0' || s[i - 3] != ':')
		return false;
	*head = i - 3;
	*addr = 0;
	for (size_t k = i; k < n; k++) {
		int c = (unsigned char)s[k];
		*addr = *addr * 16 + (uint64_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	return true;
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

/*
 * NAME@FILE[:LINE[:COL]], the text s[0..n) ending before ":LINE": marks the functions named
 * NAME of a file FILE names (name_sources; none: of no file) at line LINE (0: of no line; ANY: any
 * line, the form NAME@FILE of formats that know no line, as callgrind's) and column COL (0: of no
 * column; ANY: any). Names and URLs may hold '@': each '@' from the left splits NAME from FILE
 * until one matches.
 */
#define ANY UINT32_MAX
static uint32_t mark_defined_at(const struct pv_profile *p, uint8_t *fm, const char *s, size_t n,
				uint32_t line, uint32_t col)
{
	uint8_t *sm = pv_malloc(p->sources.len + 1);
	uint32_t k = 0;
	for (const char *at = memchr(s, '@', n); sm && at && !k;
	     at = memchr(at + 1, '@', (size_t)(s + n - at - 1))) {
		size_t nl = (size_t)(at - s), fl = n - nl - 1;
		memset(sm, 0, p->sources.len + 1);
		if (!name_sources(p, sm, at + 1, fl, true))
			continue;
		for (uint32_t f = 0; f < p->funcs.len; f++) {
			pv_str_ix sn = p->funcs.name[f];
			if ((line != ANY && pv_func_line(p, f) != line) ||
			    (col != ANY && pv_func_column(p, f) != col) ||
			    !sm[eng_source_slot(p, f)] || p->strings.size[sn] != nl ||
			    memcmp(p->strings.ptr[sn], s, nl) != 0)
				continue;
			fm[f] = 1;
			k++;
		}
	}
	pv_free(sm);
	return k;
}

enum { MF_ORDINAL = 1, MF_MODULE = 2, MF_ALL = 3 };
static uint32_t mark_function_as(const struct pv_profile *p, uint8_t *fm, const char *s, size_t n,
				 unsigned how);

/* TEXT#N: the nth of the functions TEXT names, in the profile's order. */
static uint32_t mark_nth(const struct pv_profile *p, uint8_t *fm, const char *s, size_t n,
			 uint32_t nth, unsigned how)
{
	uint8_t *all = pv_calloc(p->funcs.len ? p->funcs.len : 1, 1);
	uint32_t k =
	    all && mark_function_as(p, all, s, n, how) ? keep_nth(all, p->funcs.len, nth, fm) : 0;
	pv_free(all);
	return k;
}

/* MODULE!FUNCTION: the functions FUNCTION names (without a module) in a module MODULE names;
 * each '!' from the left splits MODULE from FUNCTION until one matches. */
static uint32_t mark_in_module(const struct pv_profile *p, uint8_t *fm, const char *s, size_t n)
{
	uint8_t *mm = pv_malloc(p->modules.len + 1);
	uint8_t *all = pv_malloc(p->funcs.len ? p->funcs.len : 1);
	uint32_t k = 0;
	for (const char *bang = memchr(s, '!', n); mm && all && bang && !k;
	     bang = memchr(bang + 1, '!', (size_t)(s + n - bang - 1))) {
		size_t ml = (size_t)(bang - s);
		memset(mm, 0, p->modules.len + 1);
		if (!ml || ml + 1 == n || !modules_named(p, mm, s, ml))
			continue;
		memset(all, 0, p->funcs.len);
		if (!mark_function_as(p, all, bang + 1, n - ml - 1, 0))
			continue;
		for (uint32_t f = 0; f < p->funcs.len; f++) {
			if (all[f] && mm[eng_module_slot(p, pv_func_module(p, f))]) {
				fm[f] = 1;
				k++;
			}
		}
	}
	pv_free(mm);
	pv_free(all);
	return k;
}

/*
 * One function as a scope or a step of a path names it (doc/views.md): NAME (every function of
 * that name); NAME@FILE:LINE[:COL] (the one defined there: two functions of one name, as
 * JavaScript's anonymous functions on one line of minified code, are told apart; LINE or COL 0:
 * none), NAME@FILE (the one of that file, whatever its line: callgrind's functions of one name
 * in two files); MODULE!F (F in that module: "[unknown]" of libc and of ld.so); F#N (the Nth of
 * the functions F names, in the profile's order, where nothing else tells them apart). The whole
 * text as a name comes first. how: the forms allowed (an ordinal and a module once each).
 * Returns how many it marked.
 */
static uint32_t mark_function_as(const struct pv_profile *p, uint8_t *fm, const char *s, size_t n,
				 unsigned how)
{
	uint32_t k = mark_name(p, fm, s, n), nth, a, b;
	size_t h1, h2;
	if (k)
		return k;
	if ((how & MF_ORDINAL) && trailing_ordinal(s, n, &h1, &nth) &&
	    (k = mark_nth(p, fm, s, h1, nth, how & ~(unsigned)MF_ORDINAL)) != 0)
		return k;
	if ((how & MF_MODULE) && memchr(s, '!', n) && (k = mark_in_module(p, fm, s, n)) != 0)
		return k;
	if (!memchr(s, '@', n))
		return 0;
	if (trailing_num(s, n, &h1, &a)) {
		/* :LINE:COL, then :LINE */
		if (trailing_num(s, h1, &h2, &b) && b &&
		    (k = mark_defined_at(p, fm, s, h2, b, a)) != 0)
			return k;
		if ((k = mark_defined_at(p, fm, s, h1, a, ANY)) != 0)
			return k;
	}
	return mark_defined_at(p, fm, s, n, ANY, ANY);
}

static uint32_t mark_function(const struct pv_profile *p, uint8_t *fm, const char *s, size_t n)
{
	return mark_function_as(p, fm, s, n, MF_ALL);
}

bool scope_reserved(const char *s)
{
	static const char *const kinds[] = {"re:", "file:", "module:", "line:", "path:", "loop:"};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strncmp(s, kinds[i], strlen(kinds[i])) == 0)
			return true;
	return !*s;
}

uint32_t pv_scope_functions(const struct pv_profile *p, const char *scope, uint8_t *mark)
{
	if (strncmp(scope, "path:", 5) == 0) {
		const char *last = strrchr(scope, ';');
		scope = last ? last + 1 : scope + 5;
	} else if (scope_reserved(scope)) {
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

/*
 * file:PATH: the functions of the files PATH names (sc->smatch); file:MODULE!PATH those of them
 * in the modules MODULE names (a file of several modules, as the flat view's file row under one
 * module; each '!' from the left splits until one matches).
 */
static uint32_t compile_file(const struct pv_profile *p, struct scope *sc, const char *path)
{
	size_t n = strlen(path);
	uint32_t k = name_sources(p, sc->smatch, path, n, true);
	for (uint32_t f = 0; k && f < p->funcs.len; f++)
		sc->fmatch[f] = sc->smatch[eng_source_slot(p, f)];
	uint8_t *mm = k ? NULL : pv_malloc(p->modules.len + 1);
	for (const char *bang = mm ? memchr(path, '!', n) : NULL; bang && !k;
	     bang = memchr(bang + 1, '!', (size_t)(path + n - bang - 1))) {
		size_t ml = (size_t)(bang - path);
		memset(mm, 0, p->modules.len + 1);
		memset(sc->smatch, 0, p->sources.len + 1);
		if (!modules_named(p, mm, path, ml) ||
		    !name_sources(p, sc->smatch, bang + 1, n - ml - 1, true))
			continue;
		for (uint32_t f = 0; f < p->funcs.len; f++) {
			if (sc->smatch[eng_source_slot(p, f)] &&
			    mm[eng_module_slot(p, pv_func_module(p, f))]) {
				sc->fmatch[f] = 1;
				k++;
			}
		}
	}
	pv_free(mm);
	return k;
}

/* module:NAME[#N]: the functions of the modules NAME names (sc->mmatch), or of the Nth of them. */
static uint32_t compile_module(const struct pv_profile *p, struct scope *sc, const char *name)
{
	if (!modules_named(p, sc->mmatch, name, strlen(name)))
		return 0;
	for (uint32_t f = 0; f < p->funcs.len; f++)
		sc->fmatch[f] = sc->mmatch[eng_module_slot(p, pv_func_module(p, f))];
	return 1; /* a module with no function of its own may still be collapsed */
}

/* path:a;b;c: the functions each step names, in sc->path_funcs. */
static int compile_path(struct pv_engine *e, struct scope *sc, const char *text, const char *what)
{
	const struct pv_profile *p = e->p;
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
						    "%s '%s': no function named '%s'", what, text,
						    name);
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
		return pv_error_set(e->err, PV_EINVAL, "%s '%s': an empty path", what, text);
	memset(sc->fmatch, 0, p->funcs.len);
	return 0;
}

/* The functions of a line scope's FILE-or-FUNCTION part s[0..n): those of the files it names,
 * else the functions it names. */
static uint32_t mark_line_owner(const struct pv_profile *p, uint8_t *fm, const char *s, size_t n)
{
	uint8_t *sm = pv_calloc(p->sources.len + 1, 1);
	uint32_t k = sm ? name_sources(p, sm, s, n, false) : 0;
	for (uint32_t f = 0; k && f < p->funcs.len; f++)
		fm[f] = sm[eng_source_slot(p, f)];
	pv_free(sm);
	return k ? k : mark_function(p, fm, s, n);
}

/* Whether a frame of the functions marked in fm (not a loop's) is at line. */
static bool has_line(const struct pv_profile *p, const uint8_t *fm, uint32_t line)
{
	for (pv_frame_ix x = 0; x < p->frames.len; x++)
		if (fm[p->frames.func[x]] && pv_frame_line(p, x) == line &&
		    pv_frame_kind(p, x) != PV_FRAME_LOOP)
			return true;
	return false;
}

int eng_scope_compile(struct pv_engine *e, struct scope *sc, const char *text, const char *what)
{
	const struct pv_profile *p = e->p;
	if (strncmp(text, "loop:", 5) == 0)
		return scope_compile_loop(e, sc, text, what);
	memset(sc, 0, sizeof(*sc));
	sc->text = text;
	sc->kind = SC_FUNCS;
	sc->fmatch = pv_calloc(p->funcs.len ? p->funcs.len : 1, 1);
	if (!sc->fmatch)
		return pv_error_set(e->err, PV_ENOMEM, "out of memory");
	uint32_t n = 0;
	size_t head;
	uint32_t line;
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
		if (!(sc->smatch = pv_calloc(p->sources.len + 1, 1)))
			return pv_error_set(e->err, PV_ENOMEM, "out of memory");
		n = compile_file(p, sc, text + 5);
	} else if (strncmp(text, "module:", 7) == 0) {
		if (!(sc->mmatch = pv_calloc(p->modules.len + 1, 1)))
			return pv_error_set(e->err, PV_ENOMEM, "out of memory");
		n = compile_module(p, sc, text + 7);
	} else if (strncmp(text, "line:", 5) == 0) {
		/* line:FILE:LINE, line:FUNCTION:LINE (LINE 0: the frames of no line) */
		if (!trailing_num(text + 5, strlen(text + 5), &head, &line))
			return pv_error_set(e->err, PV_EINVAL,
					    "%s '%s': expected line:FILE:LINE or FUNCTION:LINE",
					    what, text);
		n = mark_line_owner(p, sc->fmatch, text + 5, head);
		sc->kind = SC_LINE;
		sc->line = line;
	} else if (strncmp(text, "path:", 5) == 0) {
		int rc = compile_path(e, sc, text, what);
		if (rc)
			return rc;
		n = 1;
	} else {
		n = mark_function(p, sc->fmatch, text, strlen(text));
		/* FUNCTION:LINE, where a frame of the function is (else a function's text with a
		 * line or column that is no function's would be read as a line) */
		if (!n && trailing_num(text, strlen(text), &head, &line) &&
		    mark_function(p, sc->fmatch, text, head)) {
			bool there = has_line(p, sc->fmatch, line);
			if (!there && !memchr(text, '@', head))
				return pv_error_set(e->err, PV_EINVAL,
						    "%s '%s': no frame of '%.*s' is at line %u",
						    what, text, (int)head, text, line);
			sc->kind = there ? SC_LINE : SC_FUNCS;
			sc->line = line;
			n = there;
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
bool eng_path_step_is(const struct pv_view *v, const struct scope *sc, uint32_t k, uint32_t f)
{
	if (f >= v->p->funcs.len)
		return strcmp(fn_name(v, f), sc->path[k]) == 0;
	return bsearch(&f, sc->path_funcs[k], sc->path_nfuncs[k], sizeof(uint32_t), cmp_func_ix);
}

/* A loop frame's file: its own, else its function's (PV_NONE: none). */
pv_source_ix eng_loop_source(const struct pv_profile *p, pv_frame_ix f)
{
	pv_source_ix s = pv_frame_source(p, f);
	if (s == PV_NONE)
		s = pv_func_source(p, p->frames.func[f]);
	return s == PV_NONE || !*pv_str(p, p->sources.path[s]) ? PV_NONE : s;
}

/*
 * loop:FILE:LINE or loop:FUNCTION:LINE (HPCToolkit, doc/hpctoolkit.md): the loop frames whose
 * header is at LINE (0: loops of no line, in a binary without line information) of a file FILE
 * names (or, when none does, of the functions FUNCTION names); then :0xADDR, the loop at that
 * address of its module, and #N, the Nth of the loops the rest names.
 */
static int scope_compile_loop(struct pv_engine *e, struct scope *sc, const char *text,
			      const char *what)
{
	const struct pv_profile *p = e->p;
	memset(sc, 0, sizeof(*sc));
	sc->text = text;
	sc->kind = SC_FRAMES;
	sc->fmatch = pv_calloc(p->funcs.len ? p->funcs.len : 1, 1);
	sc->vmatch = pv_calloc(p->frames.len ? p->frames.len : 1, 1);
	uint8_t *sm = pv_calloc(p->sources.len + 1, 1);
	if (!sc->fmatch || !sc->vmatch || !sm) {
		pv_free(sm);
		return pv_error_set(e->err, PV_ENOMEM, "out of memory");
	}
	const char *at = text + 5;
	size_t n = strlen(at), head;
	uint32_t line, nth = 0;
	uint64_t addr = PV_ADDR_NONE;
	if (trailing_ordinal(at, n, &head, &nth))
		n = head;
	if (trailing_addr(at, n, &head, &addr))
		n = head;
	if (!trailing_num(at, n, &head, &line)) {
		pv_free(sm);
		return pv_error_set(e->err, PV_EINVAL,
				    "%s '%s': expected loop:FILE:LINE or loop:FUNCTION:LINE", what,
				    text);
	}
	bool by_file = name_sources(p, sm, at, head, false) != 0;
	if (!by_file)
		mark_function(p, sc->fmatch, at, head);
	uint32_t k = 0;
	for (uint32_t f = 0; f < p->frames.len; f++) {
		if (pv_frame_kind(p, f) != PV_FRAME_LOOP || pv_frame_line(p, f) != line ||
		    (addr != PV_ADDR_NONE && pv_frame_addr(p, f) != addr))
			continue;
		pv_source_ix s = eng_loop_source(p, f);
		if (by_file ? sm[s == PV_NONE ? p->sources.len : s]
			    : sc->fmatch[p->frames.func[f]]) {
			sc->vmatch[f] = 1;
			k++;
		}
	}
	pv_free(sm);
	memset(sc->fmatch, 0, p->funcs.len);
	if (k && nth) {
		uint8_t *all = sc->vmatch;
		sc->vmatch = pv_calloc(p->frames.len ? p->frames.len : 1, 1);
		k = sc->vmatch ? keep_nth(all, p->frames.len, nth, sc->vmatch) : 0;
		pv_free(all);
		if (!sc->vmatch)
			return pv_error_set(e->err, PV_ENOMEM, "out of memory");
	}
	if (!k)
		return pv_error_set(e->err, PV_EINVAL, "%s '%s' matches no loop of the profile",
				    what, text);
	return 0;
}

bool eng_scope_func(const struct pv_view *v, const struct scope *sc, uint32_t f)
{
	if (f < v->p->funcs.len)
		return sc->fmatch[f];
	return sc->mmatch &&
	       sc->mmatch[eng_module_slot(v->p, v->priv->pseudo_module[f - v->p->funcs.len])];
}

/*
 * match[s] = 1 when the frame of working stack s is in one of the scopes. Path scopes follow
 * the function path from the root: state[s] counts the path elements matched down to s.
 */
int eng_match_stacks(struct pv_engine *e, struct scope *sc, uint32_t nsc, uint8_t *match)
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
				if (st < c->path_len && eng_path_step_is(v, c, st, f))
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
			/* a line names the frames of its row by line: a loop's frame is a
			 * loop row */
			if (c->kind == SC_FRAMES
				? vf < v->p->frames.len && c->vmatch[vf]
				: eng_scope_func(v, c, vf_func(v, vf)) &&
				      (c->kind != SC_LINE || (vf_line(v, vf) == c->line &&
							      vf_kind(v, vf) != PV_FRAME_LOOP)))
				match[s] = 1;
		}
	}
	pv_free(state);
	return 0;
}

/* ---- the center's label and functions ---- */

char *eng_center_label(const struct pv_query *q)
{
	if (q->nr_center > 1)
		return pv_strdup("<multiple contexts>");
	const char *s = q->center[0];
	if (strcmp(s, "file:") == 0) /* the functions of no file, of no module */
		s = PV_UNKNOWN_FILE;
	else if (strcmp(s, "module:") == 0)
		s = PV_UNKNOWN_MODULE;
	else if (strncmp(s, "file:", 5) == 0 || strncmp(s, "module:", 7) == 0 ||
		 strncmp(s, "line:", 5) == 0)
		s = strchr(s, ':') + 1;
	else if (strncmp(s, "path:", 5) == 0 && strrchr(s, ';'))
		s = strrchr(s, ';') + 1;
	else if (strncmp(s, "path:", 5) == 0)
		s += 5;
	return pv_strdup(s);
}

int pv__view_center_funcs(struct pv_view *v, uint8_t *mask, bool *funcs_only, struct pv_error *err)
{
	struct pv_engine e = {.p = v->p, .v = v, .err = err, .nm = v->nr_metrics};
	const struct pv_query *q = &v->q;
	*funcs_only = true;
	for (uint32_t i = 0; i < q->nr_center; i++) {
		struct scope sc;
		int rc = eng_scope_compile(&e, &sc, q->center[i], "center");
		if (rc) {
			eng_scope_release(&sc);
			return rc;
		}
		*funcs_only &= sc.kind == SC_FUNCS;
		for (uint32_t f = 0; f < v->p->funcs.len; f++)
			mask[f] |= sc.fmatch[f];
		eng_scope_release(&sc);
	}
	if (q->nr_center && !(v->center_label = eng_center_label(q)))
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	return 0;
}

int pv__scope_funcs(const struct pv_profile *p, const char *scope, uint8_t *mark,
		    struct pv_error *err)
{
	struct pv_engine e = {.p = p, .err = err};
	struct scope sc;
	int rc = eng_scope_compile(&e, &sc, scope, "search");
	uint32_t n = 0;
	for (uint32_t f = 0; !rc && f < p->funcs.len; f++)
		n += mark[f] |= sc.fmatch[f];
	/* a path names its last step's functions; a loop the functions that hold it */
	for (uint32_t i = 0; !rc && sc.kind == SC_PATH && i < sc.path_nfuncs[sc.path_len - 1]; i++)
		n += mark[sc.path_funcs[sc.path_len - 1][i]] = 1;
	for (uint32_t f = 0; !rc && sc.kind == SC_FRAMES && f < p->frames.len; f++)
		if (sc.vmatch[f])
			n += mark[p->frames.func[f]] = 1;
	eng_scope_release(&sc);
	return rc ? rc : (int)(n > 0);
}

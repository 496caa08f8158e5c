/*
 * scope.c - scopes: what a center, a filter or a search names (doc/views.md), compiled
 * once to marks over functions, frames or a path; regex budgets; thread selection.
 */
#include "view/engine.h"

/* ---- scopes ---- */

void eng_scope_release(struct scope *s)
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

bool eng_ends_with_path(const char *path, const char *suffix)
{
	return ends_with_path_n(path, suffix, strlen(suffix));
}

bool eng_module_named(const struct pv_profile *p, pv_module_ix m, const char *name)
{
	if (m == PV_NONE)
		return false;
	return strcmp(pv_str(p, p->modules.name[m]), name) == 0 ||
	       eng_ends_with_path(pv_str(p, p->modules.path[m]), name);
}

/* Marks the functions of file "path"; returns how many. */
static uint32_t mark_file(const struct pv_profile *p, uint8_t *fm, const char *path)
{
	uint32_t n = 0;
	for (uint32_t f = 0; f < p->funcs.len; f++) {
		pv_source_ix s = pv_func_source(p, f);
		if (s != PV_NONE && eng_ends_with_path(pv_str(p, p->sources.path[s]), path)) {
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
			pv_source_ix src = pv_func_source(p, f);
			if ((line != ANY_LINE && pv_func_line(p, f) != line) ||
			    (col && pv_func_column(p, f) != col) || src == PV_NONE ||
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
	pv_source_ix s = pv_func_source(p, f);
	uint32_t line = pv_func_line(p, f), col = pv_func_column(p, f);
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

int eng_scope_compile(struct pv_engine *e, struct scope *sc, const char *text, const char *what)
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
			if (eng_module_named(p, m, text + 7) && sc->module == PV_NONE)
				sc->module = m;
		for (uint32_t f = 0; f < p->funcs.len; f++) {
			if (eng_module_named(p, pv_func_module(p, f), text + 7)) {
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
bool eng_path_step_is(const struct pv_view *v, const struct scope *sc, uint32_t k, uint32_t f)
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
			if (pv_frame_kind(p, f) != PV_FRAME_LOOP || pv_frame_line(p, f) != line)
				continue;
			bool in;
			if (by_name) {
				pv_str_ix nm = p->funcs.name[p->frames.func[f]];
				in = p->strings.size[nm] == head &&
				     memcmp(p->strings.ptr[nm], at, head) == 0;
			} else {
				pv_source_ix src = pv_frame_source(p, f) != PV_NONE
						       ? pv_frame_source(p, f)
						       : pv_func_source(p, p->frames.func[f]);
				char file[4096];
				snprintf(file, sizeof(file), "%.*s", (int)head, at);
				in = src != PV_NONE &&
				     eng_ends_with_path(pv_str(p, p->sources.path[src]), file);
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

bool eng_scope_func(const struct pv_view *v, const struct scope *sc, uint32_t f)
{
	if (f < v->p->funcs.len)
		return sc->fmatch[f];
	return sc->module != PV_NONE && v->pseudo_module[f - v->p->funcs.len] == sc->module;
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
			if (c->kind == SC_FRAMES
				? vf < v->p->frames.len && c->vmatch[vf]
				: eng_scope_func(v, c, vf_func(v, vf)) &&
				      (c->kind != SC_LINE || vf_line(v, vf) == c->line))
				match[s] = 1;
		}
	}
	pv_free(state);
	return 0;
}

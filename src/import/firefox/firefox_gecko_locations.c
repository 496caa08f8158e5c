/*
 * firefox_gecko_locations.c - a Gecko profile's frame location strings ("fn (url:line:col)",
 * "fn (in lib) (file:line)", addresses, labels) into functions and modules, the way the
 * Firefox Profiler's import reads them (firefox_gecko.c tells the format).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sbuf.h"
#include "base/sort.h"
#include "base/text.h"
#include "base/vec.h"
#include "import/firefox/firefox.h"
#include "import/firefox/firefox_gecko.h"
#include "import/importer.h"
#include "import/json.h"
#include "import/script_url.h"
#include "import/symbols.h"

static bool all_digits(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static uint32_t digits_u32(const char *s, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n && v <= UINT32_MAX; i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	return v > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)v;
}

/* The lib whose [start, end) holds addr (binary search, as the Firefox Profiler's). */
static struct gk_lib *gk_find_lib(struct gk_proc *pr, uint64_t addr)
{
	struct gk_lib *l = pr->libs.p;
	uint32_t lo = 0, hi = pr->libs.len;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (addr >= l[mid].end)
			lo = mid + 1;
		else if (addr < l[mid].start)
			hi = mid;
		else
			return &l[mid];
	}
	return NULL;
}

/*
 * "name (in lib) + 123", "name (in lib) (file:line)", "name (in lib)": the Firefox Profiler's
 * three regular expressions, tried in that order; "(.*)" is greedy, so the last " (in " that
 * fits wins, and the lib name runs to the first ')' after it.
 */
static bool parse_native(const char *s, size_t n, size_t *name_len, const char **lib,
			 size_t *lib_len)
{
	for (int form = 0; form < 3; form++) {
		for (size_t p = n; p-- > 0;) {
			if (n - p < 5 || memcmp(s + p, " (in ", 5) != 0)
				continue;
			const char *l = s + p + 5;
			const char *q = memchr(l, ')', n - (p + 5));
			if (!q)
				continue;
			const char *tail = q + 1;
			size_t tn = (size_t)(s + n - tail);
			bool ok;
			if (form == 0) {
				ok = tn >= 4 && memcmp(tail, " + ", 3) == 0 &&
				     all_digits(tail + 3, tn - 3);
			} else if (form == 1) {
				ok = tn >= 4 && tail[0] == ' ' && tail[1] == '(' &&
				     tail[tn - 1] == ')' && memchr(tail + 2, ':', tn - 3);
			} else {
				ok = tn == 0;
			}
			if (ok) {
				*name_len = p;
				*lib = l;
				*lib_len = (size_t)(q - l);
				return true;
			}
		}
	}
	return false;
}

/*
 * The tail "url:line[:col]" of a JS location ending at e (exclusive), with the url starting at
 * url: the shortest url wins (the regular expression's lazy "(.+?)"), so "a:1:2" is url "a",
 * line 1, column 2.
 */
static bool split_js_tail(const char *url, const char *e, size_t *url_len, uint32_t *line,
			  uint32_t *col)
{
	const char *a = e;
	while (a > url && a[-1] >= '0' && a[-1] <= '9')
		a--;
	if (a == e || a - url < 2 || a[-1] != ':')
		return false;
	const char *b = a - 1;
	while (b > url && b[-1] >= '0' && b[-1] <= '9')
		b--;
	if (b < a - 1 && b - url >= 2 && b[-1] == ':') {
		*url_len = (size_t)(b - 1 - url);
		*line = digits_u32(b, (size_t)(a - 1 - b));
		*col = digits_u32(a, (size_t)(e - a));
		return true;
	}
	*url_len = (size_t)(a - 1 - url);
	*line = digits_u32(a, (size_t)(e - a));
	*col = 0;
	return true;
}

/*
 * "func (url:line:col)[source]" or "url:line:col[source]": the Firefox Profiler's two JS regular
 * expressions. Sets the name (may be empty), the url, line and column.
 */
static bool parse_js(const char *s, size_t n, size_t *name_len, const char **url, size_t *url_len,
		     uint32_t *line, uint32_t *col)
{
	size_t m = n;
	/* an optional "[digits]" suffix: the index of the script in the sources table */
	if (m > 2 && s[m - 1] == ']') {
		size_t k = m - 1;
		while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
			k--;
		if (k > 0 && k < m - 1 && s[k - 1] == '[')
			m = k - 1;
	}
	if (m > 0 && s[m - 1] == ')') {
		/* "(.*) \((.+?):L(:C)?\)": the last " (" that leaves a non-empty url */
		for (size_t p = m - 1; p-- > 0;) {
			if (s[p] != ' ' || s[p + 1] != '(')
				continue;
			size_t ul;
			if (split_js_tail(s + p + 2, s + m - 1, &ul, line, col) && ul > 0) {
				*name_len = p;
				*url = s + p + 2;
				*url_len = ul;
				return true;
			}
		}
	}
	size_t ul;
	if (split_js_tail(s, s + m, &ul, line, col) && ul > 0) {
		*name_len = 0;
		*url = s;
		*url_len = ul;
		return true;
	}
	return false;
}

/*
 * The module of a script URL (script_url.h, the rule of every JavaScript format); an add-on's
 * origin is named by the add-on when the profile lists it, as the Firefox Profiler does.
 */
static pv_module_ix url_module(struct gk *g, const char *u, size_t n)
{
	char o[512];
	size_t on = script_url_origin(u, n, o, sizeof(o));
	if (on) {
		pv_str_ix origin = builder_str(g->b, o, on);
		for (uint32_t i = 0; i < g->exts.len; i++)
			if (VEC(g->exts, struct gk_ext)[i].origin == origin)
				return builder_module(g->b, VEC(g->exts, struct gk_ext)[i].name,
						      origin, PV_MODULE_RESOURCE);
	}
	return script_module(g->b, u, n, PV_MODULE_RESOURCE);
}

/*
 * The name of offset off in lib l from its file on this machine (import/symbols.h; the
 * breakpadId checked as the build id's first 16 bytes), NULL when none (counted).
 */
static const char *native_name(struct gk *g, struct gk_lib *l, uint64_t off)
{
	struct pv_builder *b = g->b;
	const char *path = pv_str(b->p, l->path);
	if ((b->sym && b->sym->off) || path[0] != '/')
		return NULL;
	if (!g->z && !(g->z = symz_new(b->sym))) {
		b->status = PV_ENOMEM;
		return NULL;
	}
	if (l->bin == UINT32_MAX) {
		const char *bp = pv_str(b->p, l->breakpad);
		unsigned char id[20];
		size_t n = symz_build_id_breakpad(bp, strlen(bp), id, sizeof(id));
		if ((l->bin = symz_binary(g->z, path, id, n)) == UINT32_MAX) {
			b->status = PV_ENOMEM;
			return NULL;
		}
	}
	enum symz_status why;
	const char *name = symz_name_at_offset(g->z, l->bin, off, &why);
	if (name) {
		g->native_named++;
	} else {
		g->native_unnamed++;
		g->native_why = (int)why;
	}
	return name;
}

void gk_resolve_location(struct gk *g, struct gk_proc *pr, const char *s, size_t n,
			 struct locinfo *li)
{
	struct pv_builder *b = g->b;
	li->line = li->column = 0;
	li->addr = PV_ADDR_NONE;
	/* Gecko < 14 marked JS entry points with this prefix (upgrader 14 drops it) */
	if (pr->version < 14 && text_starts(s, s + n, "AutoEntryScript ")) {
		s += 16;
		n -= 16;
	}
	if (text_starts(s, s + n, "0x")) {
		/* an unsymbolicated address: its own function, named as written */
		pv_module_ix mod = PV_NONE;
		uint64_t a = 0;
		bool ok = n > 2 && n <= 18;
		for (size_t i = 2; ok && i < n; i++) {
			int d = text_hex_digit(s[i]);
			ok = d >= 0;
			a = a << 4 | (uint64_t)(d & 15);
		}
		const char *sym = NULL;
		if (ok) {
			struct gk_lib *l = gk_find_lib(pr, a);
			li->addr = a;
			if (l) {
				if (l->module == PV_NONE)
					l->module =
					    builder_module(b, l->name, l->path, PV_MODULE_LIBRARY);
				mod = l->module;
				li->addr = a - l->start + l->offset;
				sym = native_name(g, l, li->addr);
			}
		}
		li->func = builder_func(b, sym ? builder_cstr(b, sym) : builder_str(b, s, n), mod,
					PV_NONE, 0);
		return;
	}
	size_t name_len, lib_len;
	const char *lib;
	if (parse_native(s, n, &name_len, &lib, &lib_len)) {
		if (text_starts(s, s + name_len, "non-virtual thunk to ")) {
			s += 21;
			name_len -= 21;
		}
		pv_module_ix mod =
		    builder_module(b, builder_str(b, lib, lib_len), 0, PV_MODULE_LIBRARY);
		li->func = builder_func(b, builder_str(b, s, name_len), mod, PV_NONE, 0);
		return;
	}
	const char *url;
	size_t url_len;
	uint32_t line, col;
	if (parse_js(s, n, &name_len, &url, &url_len, &line, &col)) {
		/* "a -> b" chains of loaders: the last URL is the script */
		for (size_t i = url_len; i >= 4; i--) {
			if (memcmp(url + i - 4, " -> ", 4) == 0) {
				url_len -= i;
				url += i;
				break;
			}
		}
		pv_str_ix urls = builder_str(b, url, url_len);
		pv_str_ix name;
		if (name_len) {
			name = builder_str(b, s, name_len);
		} else {
			/* the top level of a script, as the Firefox Profiler names it */
			sbuf_reset(&g->out);
			if (sbuf_put(&g->out, "(root scope) ", 13) ||
			    sbuf_put(&g->out, url, url_len))
				b->status = PV_ENOMEM;
			name = builder_str(b, g->out.buf, g->out.len);
		}
		/* each location string is a function in the Firefox Profiler: the column counts */
		li->func = builder_func_at(b, name, url_module(g, url, url_len),
					   builder_source(b, urls), line, col);
		li->line = line;
		li->column = col;
		return;
	}
	li->func = builder_func(b, builder_str(b, s, n), PV_NONE, PV_NONE, 0);
}

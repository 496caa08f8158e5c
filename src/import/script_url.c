/*
 * script_url.c - the module of a script from its URL (script_url.h, doc/modules.md).
 */
#include "import/script_url.h"

#include "base/text.h"

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

size_t script_url_origin(const char *u, size_t n, char *out, size_t cap)
{
	static const char *const schemes[] = {"http", "https", "moz-extension"};
	const char *e = u + n;
	size_t sl = 0;
	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]) && !sl; i++) {
		size_t l = strlen(schemes[i]);
		if (n > l + 3 && text_starts(u + l, e, "://")) {
			size_t k = 0;
			while (k < l && lower(u[k]) == schemes[i][k])
				k++;
			if (k == l)
				sl = l;
		}
	}
	if (!sl)
		return 0;
	size_t hs = sl + 3, he = hs;
	while (he < n && u[he] != '/' && u[he] != '?' && u[he] != '#' && u[he] != '\\')
		he++;
	for (size_t i = hs; i < he; i++)
		if (u[i] == '@')
			hs = i + 1;
	if (he == hs || he - hs + sl + 3 >= cap)
		return 0;
	size_t o = 0;
	for (size_t i = 0; i < sl; i++)
		out[o++] = lower(u[i]);
	out[o++] = ':';
	out[o++] = '/';
	out[o++] = '/';
	for (size_t i = hs; i < he; i++)
		out[o++] = lower(u[i]);
	if ((sl == 4 && o >= 3 && text_eq(out + o - 3, out + o, ":80")) ||
	    (sl == 5 && o >= 4 && text_eq(out + o - 4, out + o, ":443")))
		o -= sl == 4 ? 3 : 4;
	return o;
}

pv_module_ix script_module(struct pv_builder *b, const char *url, size_t n,
			   enum pv_module_kind kind)
{
	if (!n)
		return PV_NONE;
	char o[512];
	size_t on = script_url_origin(url, n, o, sizeof(o));
	pv_str_ix s = on ? builder_str(b, o, on) : builder_str(b, url, n);
	return builder_module(b, s, s, kind);
}

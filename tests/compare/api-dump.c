/*
 * api-dump.c - every request of a list (tests/compare/api-requests.txt) on one profile, in
 * process, for tests/compare-outputs.sh: prints "== ENDPOINT QUERY", the status and the body of
 * each answer. Uses only the public API (include/pv/serve.h, pv/import.h), so the same file
 * builds against an older tree.
 *
 * A request may use $KEY (the last key of the tree view's heaviest path), $KEY1 (its first),
 * $SCOPE (the first row's scope in the tree view) and $FUNC (its plain name), URL-encoded; a
 * request whose variable has no value is skipped with a line saying so.
 *
 * usage: api-dump FILE REQUESTS      api-dump --scope FILE (the $SCOPE, unencoded)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/import.h"
#include "pv/serve.h"

/* The JSON string value after the first occurrence of pat (which ends before its quote). */
static char *string_after(const char *body, const char *pat, const char **next)
{
	const char *s = body ? strstr(body, pat) : NULL;
	if (!s)
		return NULL;
	s += strlen(pat);
	if (*s != '"')
		return NULL;
	s++;
	char *out = malloc(strlen(s) + 1), *o = out;
	while (out && *s && *s != '"') {
		if (*s == '\\' && s[1]) {
			s++;
			if (*s == 'u') { /* not expected in keys and scopes of the test data */
				free(out);
				return NULL;
			}
		}
		*o++ = *s++;
	}
	if (out)
		*o = 0;
	if (next)
		*next = s;
	return out;
}

static void encode(char *dst, size_t n, const char *s)
{
	size_t k = 0;
	for (; *s && k + 4 < n; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("-_.~:,;", c))
			dst[k++] = (char)c;
		else
			k += (size_t)snprintf(dst + k, n - k, "%%%02X", c);
	}
	dst[k] = 0;
}

static char *call(struct pv_api *a, const char *ep, const char *q, int *status)
{
	char *body;
	size_t len;
	const char *ct;
	*status = pv_api_call(a, ep, q, &body, &len, &ct);
	return body;
}

int main(int argc, char **argv)
{
	int scope_only = argc == 3 && strcmp(argv[1], "--scope") == 0;
	if (argc != 3) {
		fprintf(stderr, "usage: api-dump FILE REQUESTS | api-dump --scope FILE\n");
		return 2;
	}
	const char *file = scope_only ? argv[2] : argv[1];
	struct pv_profile *p;
	struct pv_error err;
	if (pv_import_file(file, NULL, &p, &err)) {
		printf("import failed: %s\n", err.msg);
		return 0;
	}
	struct pv_api *a;
	if (pv_api_new(&a, NULL))
		return 1;
	pv_api_add_profile(a, file, p);
	int st;
	char *tree = call(a, "view", "heaviest=12", &st);
	char *scope = string_after(tree, "\"scope\": ", NULL);
	char *name = string_after(tree, "\"name\": ", NULL);
	/* the opened keys: the first and the last of "opened" */
	char *key1 = NULL, *key = NULL;
	const char *at = tree ? strstr(tree, "\"opened\": [") : NULL;
	if (at) {
		const char *next = at + strlen("\"opened\": [");
		char *k;
		while (*next == '"' && (k = string_after(next, "", &next)) != NULL) {
			if (!key1)
				key1 = strdup(k);
			free(key);
			key = k;
			next++; /* past the quote */
			if (*next == ',')
				next += 2;
		}
	}
	free(tree);
	if (scope_only) {
		if (scope)
			puts(scope);
		free(scope);
		free(name);
		free(key);
		free(key1);
		pv_api_free(a);
		return 0;
	}
	FILE *f = fopen(argv[2], "r");
	if (!f)
		return 2;
	char line[4096], q[8192], enc[4096];
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!*line || *line == '#')
			continue;
		char *sp = strchr(line, ' ');
		const char *ep = line, *tmpl = "";
		if (sp) {
			*sp = 0;
			tmpl = sp + 1;
		}
		size_t k = 0;
		int skip = 0;
		for (const char *t = tmpl; *t && k + 1 < sizeof(q);) {
			const char *val = NULL;
			size_t vl = 0;
			if (*t == '$') {
				static const char *const vars[] = {"KEY1", "KEY", "SCOPE", "FUNC"};
				for (int v = 0; v < 4 && !vl; v++) {
					if (strncmp(t + 1, vars[v], strlen(vars[v])) == 0) {
						vl = strlen(vars[v]) + 1;
						val = v == 0   ? key1
						      : v == 1 ? key
						      : v == 2 ? scope
							       : name;
					}
				}
				if (vl && !val)
					skip = 1;
			}
			if (vl) {
				encode(enc, sizeof(enc), val ? val : "");
				k += (size_t)snprintf(q + k, sizeof(q) - k, "%s", enc);
				t += vl;
			} else {
				q[k++] = *t++;
			}
		}
		q[k < sizeof(q) ? k : sizeof(q) - 1] = 0;
		printf("== %s %s\n", ep, tmpl);
		if (skip) {
			printf("(skipped: no value)\n");
			continue;
		}
		char *body = call(a, ep, q, &st);
		printf("%d\n%s\n", st, body ? body : "(null)");
		free(body);
	}
	fclose(f);
	free(scope);
	free(name);
	free(key);
	free(key1);
	pv_api_free(a);
	return 0;
}

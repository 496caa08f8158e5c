/*
 * cmd_tui.c - profview tui FILE...: the terminal front end (tui/, doc/tui.md). The command reads
 * the options and the page's URL notation, then hands the state machine (over every file) to
 * the terminal layer, or runs a key script without a terminal (--keys: the screens as text, for
 * tests).
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "say.h"
#include "tui/term.h"
#include "tui/tui.h"

/* The page's own parameters (web/assets/state.js) beside the query's. */
static bool page_key(const char *k)
{
	static const char *const keys[] = {"tab", "sel",  "mk", "search",
					   "src", "line", "p",	"zoom"};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(k, keys[i]) == 0)
			return true;
	return false;
}

int cli_tui_url(struct cli *c, const char *arg)
{
	/* a whole URL, or its query string: what follows '?' */
	const char *q = strchr(arg, '?');
	q = q ? q + 1 : arg;
	char *copy = strdup(q);
	const char *keys[256], *values[256];
	char *dec[512];
	uint32_t n = 0, nd = 0;
	int rc = 0;
	for (char *s = copy, *next; s && *s && !rc; s = next) {
		next = strchr(s, '&');
		if (next)
			*next++ = 0;
		char *eq = strchr(s, '=');
		bool bad = false;
		char *k = pv_url_decode(s, eq ? (size_t)(eq - s) : strlen(s), &bad);
		char *v = k && !bad ? pv_url_decode(eq ? eq + 1 : "", eq ? strlen(eq + 1) : 0, &bad)
				    : NULL;
		if (k)
			dec[nd++] = k;
		if (v)
			dec[nd++] = v;
		if (!k || !v || bad || n == 256) {
			rc = cli_fail_usage("--query: %s", bad ? "a broken %-escape" : "too long");
			break;
		}
		if (strcmp(k, "tab") == 0)
			c->tui_tab = strdup(v);
		else if (strcmp(k, "sel") == 0)
			c->tui_sel = strdup(v);
		else if (strcmp(k, "search") == 0)
			c->tui_search = strdup(v);
		else if (strcmp(k, "mk") == 0)
			c->tui_marker = strtoll(v, NULL, 10);
		else if (strcmp(k, "p") == 0)
			c->tui_file = (uint32_t)strtoul(v, NULL, 10);
		keys[n] = k;
		values[n++] = v;
	}
	struct pv_error err;
	pv_error_clear(&err);
	if (!rc) {
		pv_query_release(&c->q);
		if (pv_query_from_params(&c->q, keys, values, n, page_key, &err))
			rc = cli_fail_usage("--query: %s", err.msg);
	}
	for (uint32_t i = 0; i < nd; i++)
		free(dec[i]);
	free(copy);
	return rc;
}

/* --keys: each token a key name (tui_key_parse), "type:TEXT" (its characters), "size:WxH",
 * "click:Y,X" or "shot" (print the screen); the screen is printed at the end. */
static void print_screen(struct tui *t, const char *what)
{
	const struct tui_screen *s = tui_render(t);
	printf("== %s (%dx%d)\n", what, s->w, s->h);
	for (int y = 0; y < s->h; y++)
		printf("|%s|\n", s->line[y]);
}

static int run_keys(const struct cli *c, struct tui *t)
{
	char *script = strdup(c->tui_keys);
	char done[512] = "";
	int rc = 0;
	bool shot = false;
	for (char *tok = strtok(script, " "); tok; tok = strtok(NULL, " ")) {
		int w, h, y, x;
		if (strcmp(tok, "shot") == 0) {
			print_screen(t, done[0] ? done : "start");
			done[0] = 0;
			shot = true;
			continue;
		}
		size_t used = strlen(done);
		snprintf(done + used, sizeof(done) - used, "%s%s", used ? " " : "", tok);
		if (strncmp(tok, "type:", 5) == 0) {
			for (const char *s = tok + 5; *s; s++)
				tui_key(t, (unsigned char)*s);
		} else if (sscanf(tok, "size:%dx%d", &w, &h) == 2 && w > 0 && h > 0 && w < 1000 &&
			   h < 1000) {
			tui_resize(t, w, h);
		} else if (sscanf(tok, "click:%d,%d", &y, &x) == 2) {
			tui_click(t, y, x);
		} else {
			int k = tui_key_parse(tok);
			if (k < 0) {
				rc = cli_fail_usage("--keys: no key '%s'", tok);
				break;
			}
			if (tui_key(t, k))
				break; /* q */
		}
	}
	if (!rc && (done[0] || !shot))
		print_screen(t, done[0] ? done : "start");
	free(script);
	return rc;
}

int cmd_tui(const struct cli *c, int nfiles, const char *const *paths,
	    const struct pv_profile *const *ps)
{
	if (c->tui_file >= (uint32_t)nfiles)
		return cli_fail_usage("--query: p=%u, and there %s %d file%s", c->tui_file,
				      nfiles == 1 ? "is" : "are", nfiles, nfiles == 1 ? "" : "s");
	const char *path = paths[c->tui_file];
	struct pv_query q;
	int rc = cli_view_query(path, ps[c->tui_file], c, &q);
	if (rc) {
		pv_query_release(&q);
		return rc;
	}
	struct tui_file *files = calloc((size_t)nfiles, sizeof(*files));
	if (!files) {
		pv_query_release(&q);
		return cli_fail_usage("out of memory");
	}
	for (int i = 0; i < nfiles; i++)
		files[i] = (struct tui_file){paths[i], ps[i]};
	const char *roots[1] = {c->source_root};
	struct tui_opts o = {.path = path,
			     .p = ps[c->tui_file],
			     .files = files,
			     .nr_files = (uint32_t)nfiles,
			     .file = c->tui_file,
			     .q = &q,
			     .tab = c->tui_tab,
			     .sel = c->tui_sel,
			     .search = c->tui_search,
			     .marker = c->tui_marker,
			     .roots = roots,
			     .nr_roots = c->source_root ? 1 : 0,
			     .ascii = true};
	struct pv_error err;
	pv_error_clear(&err);
	if (c->tui_keys) {
		int w = 80, h = 24;
		if (c->tui_size && (sscanf(c->tui_size, "%dx%d", &w, &h) != 2 || w < 1 || h < 1 ||
				    w > 1000 || h > 1000)) {
			rc = cli_fail_usage("--size takes WxH, not '%s'", c->tui_size);
		} else {
			struct tui *t = NULL;
			rc = tui_new(&o, w, h, &t, &err);
			if (!rc)
				rc = run_keys(c, t);
			else
				rc = cli_lib_error(path, rc, err.msg);
			tui_free(t);
		}
	} else {
		setlocale(LC_ALL, "");
		char *last = NULL;
		rc = tui_term_run(&o, &last, &err);
		if (rc)
			rc = cli_lib_error(path, rc, err.msg);
		else if (last) /* two lines: the command, the page's query; names escaped */
			for (char *l = last, *nl; l; l = nl) {
				char e[4096];
				if ((nl = strchr(l, '\n')))
					*nl++ = 0;
				printf("%s\n", pv_escaped(e, sizeof(e), l));
			}
		free(last);
	}
	free(files);
	pv_query_release(&q);
	return rc;
}

/*
 * screen.c - the TUI's screen as text (state.h): the tab bar, the query line, the activity
 * graph, the body of the tab, the help and query overlays, the status line.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/format.h"
#include "pv/graphs.h"
#include "pv/rows.h"
#include "state.h"

const char *tui_tab_label(const struct tui *t, uint32_t k)
{
	return k == t->tree_tab && t->fl.on ? "flame" : t->tabs[k].name;
}

static void tab_bar(struct tui *t)
{
	/* every tab named when they fit, else the other tabs by number only */
	int full = 0;
	for (uint32_t k = 0; k < t->nr_tabs; k++)
		full += 4 + (int)strlen(tui_tab_label(t, k));
	cells_start(&t->cl, t->w);
	for (uint32_t k = 0; k < t->nr_tabs; k++) {
		char b[64];
		if (k == t->tab)
			snprintf(b, sizeof(b), "[%u %s]", k + 1, tui_tab_label(t, k));
		else if (full <= t->w)
			snprintf(b, sizeof(b), " %u %s ", k + 1, tui_tab_label(t, k));
		else
			snprintf(b, sizeof(b), " %u ", k + 1);
		cells_puts(&t->cl, b);
	}
	tui_emit(t, 0, TUI_ROLE_BAR);
}

static void query_line(struct tui *t)
{
	char *args = pv_query_to_args(&t->q);
	cells_start(&t->cl, t->w);
	if (t->nr_files > 1) { /* which profile: ']' and '[' switch */
		const char *base = strrchr(t->o.path, '/');
		char b[64];
		snprintf(b, sizeof(b), "[%u/%u ", t->file + 1, t->nr_files);
		cells_puts(&t->cl, b);
		cells_put(&t->cl, base ? base + 1 : t->o.path, SIZE_MAX, 24);
		cells_puts(&t->cl, "] ");
	}
	cells_puts(&t->cl, "query: ");
	cells_puts(&t->cl, args && *args ? args : "(the whole profile)");
	free(args);
	/* what the threads are: one program's summed, or the busiest of independent ones */
	uint32_t nt = t->p->threads.len;
	char b[96] = "";
	if (nt > 1 && !t->q.nr_threads)
		snprintf(b, sizeof(b), "  (all %u %s; t: the busiest)", nt,
			 t->one_program ? "contexts summed" : "threads merged");
	else if (nt > 1 && t->q.nr_threads == 1 && t->busiest != PV_NONE) {
		char k[16];
		snprintf(k, sizeof(k), "#%u", t->busiest);
		if (strcmp(t->q.threads[0], k) == 0)
			snprintf(b, sizeof(b), "  (the busiest of %u threads; t: all)", nt);
	}
	cells_puts(&t->cl, b);
	tui_emit(t, 1, TUI_ROLE_DIM);
}

/* The activity graph: one line per thread (the busiest first), cost by time as block
 * characters (ASCII: " .:-=+*#"). */
static void ensure_activity(struct tui *t, int width)
{
	struct pv_query q;
	pv_query_init(&q);
	if (pv_query_copy(&q, &t->q))
		return;
	for (uint32_t i = 0; i < q.nr_center; i++)
		free(q.center[i]);
	q.nr_center = 0;
	if (t->act_valid && t->act_w == (uint32_t)width && pv_query_equal(&q, &t->act_q)) {
		pv_query_release(&q);
		return;
	}
	pv_query_release(&t->act_q);
	t->act_q = q;
	t->act_valid = true;
	for (uint32_t i = 0; i < t->act_n; i++)
		free(t->act_line[i]);
	free(t->act_line);
	t->act_line = NULL;
	t->act_n = 0;
	t->act_w = (uint32_t)width;
	/* the threads' names; twins told apart by process and tid take more room */
	int label = width >= 40 ? 12 : 6;
	for (uint32_t k = 0; width >= 80 && k < t->p->threads.len; k++) {
		char nb[256];
		tui_thread_label(t, k, nb, sizeof(nb));
		int lw = cells_width(nb);
		if (strcmp(nb, pv_str(t->p, t->p->threads.name[k])) != 0 && lw > label)
			label = lw < 24 ? lw : 24;
	}
	int gw = width - label - 1;
	if (gw < 4)
		return;
	struct pv_activity_opts ao = {.buckets = (uint32_t)gw};
	struct pv_activity *a = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	if (pv_activity_build(t->p, t->mk.ms, &t->act_q, &ao, &a, &err))
		return;
	t->act_line = calloc(a->nr_threads ? a->nr_threads : 1, sizeof(char *));
	int64_t *col = malloc(sizeof(int64_t) * (size_t)gw);
	uint32_t *order = malloc(sizeof(uint32_t) * (a->nr_threads ? a->nr_threads : 1));
	if (!t->act_line || !col || !order)
		goto out;
	/* the busiest threads first */
	for (uint32_t k = 0; k < a->nr_threads; k++)
		order[k] = k;
	for (uint32_t k = 1; k < a->nr_threads; k++)
		for (uint32_t j = k; j > 0 && a->samples[order[j]] > a->samples[order[j - 1]];
		     j--) {
			uint32_t x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	static const char *const blocks[9] = {" ",	"\u2581", "\u2582", "\u2583", "\u2584",
					      "\u2585", "\u2586", "\u2587", "\u2588"};
	static const char ascii[] = " .:-=+*#@";
	for (uint32_t oi = 0; oi < a->nr_threads && oi < 8; oi++) {
		uint32_t k = order[oi];
		if (!a->samples[k])
			break;
		int64_t max = 0;
		for (int b = 0; b < gw; b++) {
			col[b] = 0;
			for (uint32_t c = a->cell_first[k * a->buckets + (uint32_t)b];
			     c < a->cell_first[k * a->buckets + (uint32_t)b + 1]; c++)
				col[b] += a->cell_cost[c];
			if (col[b] > max)
				max = col[b];
		}
		cells_start(&t->cl, width);
		pv_thread_ix th = a->thread[k];
		char nb[256];
		cells_put(&t->cl, tui_thread_label(t, th, nb, sizeof(nb)), SIZE_MAX, label);
		cells_pad(&t->cl, label + 1);
		for (int b = 0; b < gw; b++) {
			int lv = max > 0 ? (int)((col[b] * 8 + max - 1) / max) : 0;
			if (t->o.ascii) {
				char ch[2] = {ascii[lv], 0};
				cells_puts(&t->cl, ch);
			} else {
				cells_puts(&t->cl, blocks[lv]);
			}
		}
		char *s = cells_end(&t->cl);
		if (s)
			t->act_line[t->act_n++] = s;
	}
out:
	free(col);
	free(order);
	pv_activity_free(a);
}

static const char *const help_text[] = {
    "keys (the page's):",
    "  Up/Down PgUp/PgDn Home/End  move        Tab/S-Tab 1-7  switch tabs",
    "  Right/Left  open/close (Left on a closed row: its parent)",
    "  Enter  open/close; on a leaf or a list row: its source",
    "  *  open everything below          h  hot path from the row     f  flame graph",
    "  /  search (trees: rows by name, n/N next/previous; markers: filter)",
    "  c  center on the row      C  add it to the center     p  center on its path",
    "  i  include   d  drop   m  merge   r  collapse recursion   M  collapse module",
    "  s  source of the row (per-line costs, the center's lines marked)",
    "  a  disassembly of the row's function with costs (profview annotate; Esc: back)",
    "  e  next metric   E  every metric (again: one)    ] [  next/previous profile",
    "  t  every thread / the busiest thread (one program's threads open summed)",
    "  T  next thread alone (then every thread)   b  next granularity (--by)",
    "  v  numbers: exact, k/M/G, scientific (1.48e+09)",
    "  markers: Enter  range of the marker    c  its cause stack as the center",
    "  flame graph: Enter  zoom into the box   Esc/Backspace  the zoom before",
    "  Backspace  back through the queries   u  the query as flags and URL   q  quit",
};

const char *const *tui_help(size_t *n)
{
	*n = sizeof(help_text) / sizeof(help_text[0]);
	return help_text;
}

/* The help from its line help_top (kept so that the last screen is full): as many lines as
 * rows hold; Up/Down and the pages scroll it when it does not fit (tui.c). */
static void help_overlay(struct tui *t, int y0, int rows)
{
	int n = (int)(sizeof(help_text) / sizeof(help_text[0]));
	t->help_rows = rows;
	if (t->help_top > n - rows)
		t->help_top = n > rows ? n - rows : 0;
	for (int i = 0; i < rows && t->help_top + i < n; i++)
		tui_text_line(t, y0 + i, TUI_ROLE_TEXT, help_text[t->help_top + i]);
}

static void overlay(struct tui *t, int y0, int rows)
{
	if (t->mode == M_HELP) {
		help_overlay(t, y0, rows);
		return;
	}
	char *q = tui_query_text(t);
	tui_text_line(t, y0, TUI_ROLE_BAR, "the current query (any key closes this):");
	char *line = q, *nl;
	for (int i = 1; line && *line && i < rows; i++, line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		tui_text_line(t, y0 + i, TUI_ROLE_TEXT, line);
	}
	free(q);
}

static void status_line(struct tui *t)
{
	cells_start(&t->cl, t->w);
	if (t->mode == M_INPUT) {
		cells_puts(&t->cl, tui_ops(t)->prompt);
		cells_puts(&t->cl, t->input);
		cells_puts(&t->cl, "_");
	} else if (t->msg[0]) {
		cells_puts(&t->cl, t->msg);
	} else if (t->mode == M_HELP) {
		int n = (int)(sizeof(help_text) / sizeof(help_text[0]));
		int last = t->help_top + t->help_rows < n ? t->help_top + t->help_rows : n;
		char line[160];
		snprintf(line, sizeof(line), "help: lines %d-%d of %d%s  any other key closes it",
			 t->help_top + 1, last, n,
			 last - t->help_top < n ? "  Up/Down PgUp/PgDn: scroll " : "");
		cells_puts(&t->cl, line);
	} else {
		cells_puts(&t->cl, "? help  q quit  / search  c center  Backspace back  u query");
	}
	tui_emit(t, t->h - 1, TUI_ROLE_BAR);
}

const struct tui_screen *tui_render(struct tui *t)
{
	for (int y = 0; y < t->h; y++) {
		free(t->scr.line[y]);
		t->scr.line[y] = NULL;
	}
	int y = 0;
	if (t->h >= 1)
		tab_bar(t);
	y = 1;
	if (t->h >= 4) {
		query_line(t);
		y = 2;
	}
	/* the activity graph: up to 3 threads when there is room (the help takes its rows) */
	bool help = t->mode == M_HELP;
	int na = help ? 0 : t->h >= 24 ? 3 : t->h >= 16 ? 1 : 0;
	if (na) {
		ensure_activity(t, t->w);
		for (int i = 0; i < na && (uint32_t)i < t->act_n; i++, y++) {
			free(t->scr.line[y]);
			t->scr.line[y] = strdup(t->act_line[i]);
			t->scr.role[y] = TUI_ROLE_DIM;
		}
	}
	const struct tab_ops *ops = tui_ops(t);
	int footer = 1 + (t->h >= 10 && ops->detail && !help);
	int rows = t->h - y - footer;
	t->body_y = y + 1;
	t->body_h = rows - 1;
	if (rows > 0) {
		if (t->mode == M_HELP || t->mode == M_QUERY)
			overlay(t, y, rows);
		else if (t->mode == M_ANNOTATE)
			tui_annotate_body(t, y, rows);
		else
			ops->body(t, y, rows);
	}
	if (footer == 2 && t->h >= 2)
		ops->detail(t, t->h - 2);
	if (t->h >= 2)
		status_line(t);
	for (int k = 0; k < t->h; k++)
		if (!t->scr.line[k]) {
			cells_start(&t->cl, t->w);
			tui_emit(t, k, TUI_ROLE_TEXT);
		}
	return &t->scr;
}

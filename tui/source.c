/*
 * source.c - the TUI's source pane (state.h): the file of a row, per-line costs in the margin,
 * the center's lines marked.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/format.h"
#include "pv/graphs.h"
#include "pv/rows.h"
#include "state.h"

void tui_open_source(struct tui *t, const struct pv_view *v, uint8_t kind, uint32_t id,
		     uint32_t line)
{
	pv_module_ix m;
	pv_source_ix s;
	uint32_t l;
	pv_view_row_place(v, (enum pv_row_kind)kind, id, &m, &s, &l);
	if (s == PV_NONE || !*pv_str(t->p, t->p->sources.path[s])) {
		tui_say(t, "no source file for this row");
		return;
	}
	if (t->src.id != s) {
		free(t->src.text);
		free(t->src.off);
		free(t->src.err);
		t->src.text = NULL;
		t->src.off = NULL;
		t->src.err = NULL;
		t->src.nlines = 0;
		t->src.gen = 0;
	}
	t->src.id = s;
	t->src.want_line = line ? line : l;
	t->tab = t->source_tab;
}

static void ensure_source(struct tui *t)
{
	struct spane *sp = &t->src;
	if (sp->id == PV_NONE)
		return;
	if (!sp->text && !sp->err) {
		const char *path = pv_str(t->p, t->p->sources.path[sp->id]);
		if (pv_source_read(path, t->roots, t->nr_roots, SOURCE_MAX, &sp->text, &sp->len)) {
			char b[512];
			snprintf(b, sizeof(b), "cannot read source file '%s'", path);
			sp->err = strdup(b);
			return;
		}
		uint32_t n = 1;
		for (size_t i = 0; i < sp->len; i++)
			n += sp->text[i] == '\n' && i + 1 < sp->len;
		sp->off = malloc(sizeof(*sp->off) * n);
		if (!sp->off) {
			sp->err = strdup("out of memory");
			return;
		}
		sp->nlines = 0;
		sp->off[sp->nlines++] = 0;
		for (size_t i = 0; i < sp->len; i++)
			if (sp->text[i] == '\n' && i + 1 < sp->len)
				sp->off[sp->nlines++] = (uint32_t)(i + 1);
	}
	if (sp->want_line) {
		sp->sel = sp->want_line <= sp->nlines ? sp->want_line - 1 : 0;
		sp->top = sp->sel > 3 ? sp->sel - 3 : 0;
		sp->want_line = 0;
	}
	if (sp->gen == t->gen)
		return;
	sp->gen = t->gen;
	pv_source_costs_free(sp->sc);
	sp->sc = NULL;
	free(sp->center);
	sp->center = NULL;
	sp->ncenter = 0;
	/* per-line costs: the query as a list at line granularity (what the page asks) */
	struct pv_query q;
	pv_query_init(&q);
	struct pv_error err;
	pv_error_clear(&err);
	struct pv_view *v = NULL;
	int rc = pv_query_copy(&q, &t->q);
	q.view = PV_VIEW_TOP;
	q.by = PV_BY_LINE;
	if (!rc)
		rc = pv_view_compute(t->p, &q, &v, &err);
	if (!rc) {
		pv_view_cost_unit(v, 0, &sp->unit);
		rc = pv_source_costs(v, sp->id, sp->nlines, &sp->sc);
	}
	if (!rc)
		pv_source_center_lines(t->p, &q, sp->id, &sp->center, &sp->ncenter);
	if (rc)
		tui_say(t, "%s", rc == PV_ENOMEM ? "out of memory" : err.msg);
	pv_view_free(v);
	pv_query_release(&q);
}

static void tui_source_key(struct tui *t, int key)
{
	ensure_source(t);
	struct spane *sp = &t->src;
	int64_t d = tui_move_delta(t, key, sp->nlines);
	if (d)
		sp->sel = tui_clamp_sel(sp->sel, d, sp->nlines);
}

static void tui_source_body(struct tui *t, int y0, int rows)
{
	struct spane *sp = &t->src;
	if (sp->id == PV_NONE) {
		tui_text_line(t, y0, TUI_ROLE_TEXT, "no source file: press s on a row of a view");
		return;
	}
	ensure_source(t);
	cells_start(&t->cl, t->w);
	cells_puts(&t->cl, " ");
	bool wide = t->w >= 50;
	if (wide) {
		cells_right(&t->cl, "total", 10);
		cells_right(&t->cl, "self", 10);
	}
	cells_right(&t->cl, "line", 7);
	cells_puts(&t->cl, "  ");
	cells_path(&t->cl, pv_str(t->p, t->p->sources.path[sp->id]), -1, t->o.ascii);
	tui_emit(t, y0, TUI_ROLE_BAR);
	if (sp->err) {
		tui_text_line(t, y0 + 1, TUI_ROLE_TEXT, sp->err);
		return;
	}
	rows--;
	uint32_t top = tui_scroll(&sp->top, sp->sel, sp->nlines, rows);
	char b[64];
	uint32_t nm = sp->sc ? sp->sc->nr_metrics : 0;
	for (int i = 0; i < rows && top + (uint32_t)i < sp->nlines; i++) {
		uint32_t k = top + (uint32_t)i, line = k + 1;
		bool center = false;
		for (uint32_t c = 0; c < sp->ncenter; c++)
			center |= sp->center[c] == line;
		cells_start(&t->cl, t->w);
		cells_puts(&t->cl, k == sp->sel ? ">" : " ");
		if (wide) {
			bool has = sp->sc && line <= sp->sc->nr_lines && sp->sc->has[line];
			for (int col = 0; col < 2; col++) {
				b[0] = 0;
				int64_t x =
				    has ? sp->sc->cost[((size_t)line * nm) * 2 + (size_t)col] : 0;
				/* the number form ('v'); wider than the column: k/M/G, never cut */
				if (has && pv_cost_text(&sp->unit, x, t->nums, b, sizeof(b)) >= 10)
					pv_cost_text(&sp->unit, x, PV_NUM_SHORT, b, sizeof(b));
				cells_right(&t->cl, b, 10);
			}
		}
		snprintf(b, sizeof(b), "%u", line);
		cells_right(&t->cl, b, 7);
		cells_puts(&t->cl, center ? (t->o.ascii ? "* " : "\u25b6 ") : "  ");
		const char *s = sp->text + sp->off[k];
		const char *e = memchr(s, '\n', sp->len - sp->off[k]);
		cells_put(&t->cl, s, e ? (size_t)(e - s) : sp->len - sp->off[k], -1);
		tui_emit(t, y0 + 1 + i,
			 k == sp->sel ? TUI_ROLE_SELECTED
			 : center     ? TUI_ROLE_CENTER
				      : TUI_ROLE_TEXT);
	}
}

static void source_click(struct tui *t, int i, int x)
{
	(void)x;
	uint32_t li = t->src.top + (uint32_t)i;
	if (li < t->src.nlines)
		t->src.sel = li;
}

/* '/' has no use here: Esc forgets the trees' search, as on their tabs. */
static void source_search_end(struct tui *t, const char *text)
{
	if (!text)
		t->find[0] = 0;
}

const struct tab_ops tui_source_ops = {
    .key = tui_source_key,
    .body = tui_source_body,
    .click = source_click,
    .prompt = "/",
    .search_end = source_search_end,
};

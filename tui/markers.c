/*
 * markers.c - the TUI's marker table (state.h): the search, the selection, the keys (a
 * marker's range, its cause stack as the center) and the table with the selected marker's
 * fields.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/format.h"
#include "pv/graphs.h"
#include "pv/marker_sel.h"
#include "pv/rows.h"
#include "state.h"

/* Whether the markers that search keeps are a subset of those that the search before kept:
 * the same single plain term, lengthened (a key:value or several terms may keep more). */
static bool narrows(const char *before, const char *search)
{
	size_t n = strlen(before);
	return n && strncmp(search, before, n) == 0 && !strpbrk(search, ",:");
}

static void ensure_markers(struct tui *t)
{
	struct mpane *mp = &t->mk;
	if (mp->gen == t->gen || !mp->ms)
		return;
	mp->gen = t->gen;
	const char *text = mp->search ? mp->search : "";
	uint32_t *before = NULL, nbefore = 0;
	if (mp->idx && mp->kept_search && mp->kept_gen == t->gen &&
	    narrows(mp->kept_search, text)) {
		before = mp->idx; /* looked in, then freed */
		nbefore = mp->n;
	} else {
		pv_free_indexes(mp->idx);
	}
	mp->idx = NULL;
	mp->n = 0;
	free(mp->kept_search);
	mp->kept_search = NULL;
	free(mp->err);
	mp->err = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	const struct pv_marker_terms terms = {
	    .threads = (const char *const *)t->q.threads,
	    .nr_threads = t->q.nr_threads,
	    .search = text,
	    .has_start = t->q.has_range,
	    .has_end = t->q.has_range,
	    .start_ns = t->q.range_start_ns,
	    .end_ns = t->q.range_end_ns,
	    .order = PV_MARKERS_BY_START,
	};
	struct pv_marker_sel sel;
	int rc = pv_marker_sel_new(t->p, &terms, &sel, &err);
	/* the markers' text is built at the first search: each key then costs a scan of it */
	if (!rc && *text && !mp->text)
		rc = pv_marker_text_new(mp->ms, &mp->text);
	if (!rc) {
		sel.sel.text = mp->text;
		sel.sel.within = before;
		sel.sel.nr_within = nbefore;
		rc = pv_marker_select(mp->ms, &sel.sel, &mp->idx, &mp->n);
	}
	pv_free_indexes(before);
	if (rc)
		mp->err = strdup(rc == PV_ENOMEM ? "out of memory"
				 : err.msg[0]	 ? err.msg
						 : "no such thread");
	else {
		mp->kept_search = strdup(text);
		mp->kept_gen = t->gen;
	}
	pv_marker_sel_release(&sel);
	if (mp->want >= 0) {
		for (uint32_t k = 0; k < mp->n; k++)
			if (mp->idx[k] == (uint32_t)mp->want)
				mp->sel = k;
		mp->want = -1;
	}
	if (mp->sel >= mp->n)
		mp->sel = mp->n ? mp->n - 1 : 0;
}

static void tui_marker_prepare(struct tui *t)
{
	struct mpane *mp = &t->mk;
	if (mp->ms && !mp->text && pv_marker_text_new(mp->ms, &mp->text))
		tui_say(t, "out of memory");
}

void tui_set_search(struct tui *t, const char *text)
{
	free(t->mk.search);
	t->mk.search = strdup(text);
	t->mk.gen = 0;
	t->mk.sel = 0;
}

static void tui_marker_key(struct tui *t, int key)
{
	ensure_markers(t);
	struct mpane *mp = &t->mk;
	int64_t d = tui_move_delta(t, key, mp->n);
	if (d) {
		mp->sel = tui_clamp_sel(mp->sel, d, mp->n);
		return;
	}
	if (!mp->n)
		return;
	uint32_t m = mp->idx[mp->sel];
	if (key == TUI_KEY_ENTER) { /* the marker's interval becomes the range */
		if (mp->ms->end_ns[m] == PV_TIME_NONE || mp->ms->end_ns[m] <= mp->ms->start_ns[m]) {
			tui_say(t, "marker %u has no duration", m);
			return;
		}
		struct pv_query nq;
		if (!tui_new_query(t, &nq))
			return;
		nq.has_range = true;
		nq.range_start_ns = mp->ms->start_ns[m];
		nq.range_end_ns = mp->ms->end_ns[m];
		mp->want = m;
		tui_push_query(t, &nq);
		tui_say(t, "range of marker %u (%s)", m, mp->ms->name[m]);
	} else if (key == 'c' || key == 'C') { /* its cause stack becomes the center */
		struct sbuf scope = SBUF_INIT;
		int rc = pv_marker_cause_scope(mp->ms, m, &scope);
		if (rc == 0)
			tui_say(t, "marker %u has no cause stack", m);
		else if (rc < 0)
			tui_say(t, "out of memory");
		else {
			mp->want = m;
			tui_set_center(t, sbuf_str(&scope), key == 'C');
			t->tab = t->tree_tab;
		}
		sbuf_release(&scope);
	}
}

/* The table's title line: columns start 1..10, duration ..21, name from 23, thread from 46,
 * details from 61 (wide), and the count. */
static void marker_title(struct tui *t, int y, bool wide)
{
	cells_start(&t->cl, t->w);
	cells_puts(&t->cl, " ");
	cells_right(&t->cl, "start", 10);
	if (wide)
		cells_right(&t->cl, "duration", 11);
	cells_puts(&t->cl, "  name");
	if (wide) {
		cells_pad(&t->cl, 46);
		cells_puts(&t->cl, "thread");
		cells_pad(&t->cl, 61);
		cells_puts(&t->cl, "details");
	}
	char title[64];
	snprintf(title, sizeof(title), "  (%u)", t->mk.n);
	cells_puts(&t->cl, title);
	tui_emit(t, y, TUI_ROLE_BAR);
}

/* Line k of the table (marker idx[k]) at screen line y; tx a buffer to reuse. */
static void marker_line(struct tui *t, int y, uint32_t k, bool wide, struct sbuf *tx)
{
	struct mpane *mp = &t->mk;
	const struct pv_markers *ms = mp->ms;
	uint32_t m = mp->idx[k];
	char b[64];
	cells_start(&t->cl, t->w);
	cells_puts(&t->cl, k == mp->sel ? ">" : " ");
	pv_format_cost(b, sizeof(b), ms->start_ns[m], PV_UNIT_NS);
	cells_right(&t->cl, b, 10);
	if (wide) {
		sbuf_reset(tx);
		if (ms->flags[m] & PV_MARKER_INCOMPLETE)
			sbuf_puts(tx, "unknown");
		else if (ms->end_ns[m] != PV_TIME_NONE)
			pv_marker_duration_text(ms, m, tx);
		cells_right(&t->cl, sbuf_str(tx), 11);
	}
	cells_puts(&t->cl, "  ");
	cells_put(&t->cl, ms->name[m], SIZE_MAX, wide ? 21 : -1);
	if (wide) {
		cells_pad(&t->cl, 46);
		cells_put(&t->cl,
			  ms->friendly ? ms->friendly[ms->thread[m]]
				       : pv_str(t->p, t->p->threads.name[ms->thread[m]]),
			  SIZE_MAX, 14);
		cells_pad(&t->cl, 61);
		if (!pv_marker_detail(ms, m, &mp->d) && mp->d.label[PV_LABEL_TABLE])
			cells_puts(&t->cl, mp->d.label[PV_LABEL_TABLE]);
	}
	tui_emit(t, y, k == mp->sel ? TUI_ROLE_SELECTED : TUI_ROLE_TEXT);
}

/* The selected marker's fields below the table (lines y .. y_end), as the sidebar shows them. */
static void marker_fields(struct tui *t, int y, int y_end)
{
	struct mpane *mp = &t->mk;
	uint32_t m = mp->idx[mp->sel];
	if (pv_marker_detail(mp->ms, m, &mp->d))
		return;
	char b[64];
	cells_start(&t->cl, t->w);
	snprintf(b, sizeof(b), "marker %u: ", m);
	cells_puts(&t->cl, b);
	cells_puts(&t->cl, mp->d.label[PV_LABEL_TOOLTIP] && *mp->d.label[PV_LABEL_TOOLTIP]
			       ? mp->d.label[PV_LABEL_TOOLTIP]
			       : mp->ms->name[m]);
	if (mp->d.type) {
		cells_puts(&t->cl, "  type ");
		cells_puts(&t->cl, mp->d.type);
	}
	tui_emit(t, y++, TUI_ROLE_DIM);
	cells_start(&t->cl, t->w);
	cells_puts(&t->cl, "  cause: ");
	cells_puts(&t->cl, mp->ms->cause_stack[m] != PV_NONE ? "yes (c: center on it)" : "none");
	tui_emit(t, y++, TUI_ROLE_TEXT);
	for (uint32_t f = 0; f < mp->d.nr_fields && y < y_end; f++) {
		if (mp->d.fields[f].hidden)
			continue;
		cells_start(&t->cl, t->w);
		cells_puts(&t->cl, "  ");
		cells_puts(&t->cl, mp->d.fields[f].label);
		cells_puts(&t->cl, ": ");
		cells_puts(&t->cl, mp->d.fields[f].value);
		tui_emit(t, y++, TUI_ROLE_TEXT);
	}
}

static void tui_marker_body(struct tui *t, int y0, int rows)
{
	struct mpane *mp = &t->mk;
	if (!mp->ms) {
		tui_text_line(t, y0, TUI_ROLE_TEXT, mp->err ? mp->err : "no markers");
		return;
	}
	ensure_markers(t);
	if (mp->err) {
		tui_text_line(t, y0, TUI_ROLE_TEXT, mp->err);
		return;
	}
	/* the lines of the selected marker's fields below the table */
	int detail = 0;
	if (mp->n && rows >= 10) {
		uint32_t m = mp->idx[mp->sel];
		if (!pv_marker_detail(mp->ms, m, &mp->d)) {
			detail = 2;
			for (uint32_t f = 0; f < mp->d.nr_fields; f++)
				detail += !mp->d.fields[f].hidden;
			if (detail > rows / 3)
				detail = rows / 3;
		}
	}
	bool wide = t->w >= 60;
	marker_title(t, y0, wide);
	int trows = rows - 1 - detail;
	uint32_t top = tui_scroll(&mp->top, mp->sel, mp->n, trows);
	struct sbuf tx = SBUF_INIT;
	for (int i = 0; i < trows && top + (uint32_t)i < mp->n; i++)
		marker_line(t, y0 + 1 + i, top + (uint32_t)i, wide, &tx);
	sbuf_release(&tx);
	if (detail)
		marker_fields(t, y0 + rows - detail, y0 + rows);
}

static void marker_click(struct tui *t, int i, int x)
{
	(void)x;
	uint32_t li = t->mk.top + (uint32_t)i;
	if (li < t->mk.n)
		t->mk.sel = li;
}

/* '/': a new search, typed from nothing (Esc puts the search back as it was). */
static void marker_search_start(struct tui *t)
{
	snprintf(t->mk.before, sizeof(t->mk.before), "%s", t->mk.search ? t->mk.search : "");
	tui_marker_prepare(t);
}

static void marker_search_end(struct tui *t, const char *text)
{
	if (text)
		tui_set_search(t, text);
	else if (strcmp(t->input, t->mk.before) != 0)
		tui_set_search(t, t->mk.before);
}

const struct tab_ops tui_marker_ops = {
    .key = tui_marker_key,
    .body = tui_marker_body,
    .click = marker_click,
    .prompt = "search markers: ",
    .search_start = marker_search_start,
    .search_typed = tui_set_search, /* the table follows the search as it is typed */
    .search_end = marker_search_end,
};

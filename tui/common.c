/*
 * common.c - the TUI's shared helpers, the bottom layer under tui.c (the keys, the state's
 * life), screen.c (the screen) and the panes (panes.c, flame.c, markers.c, source.c,
 * annotate.c): the status message, string lists, moves in a list, the screen's lines, and the
 * query and its history. It calls none of them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/rows.h"
#include "state.h"

const char *tui_thread_label(const struct tui *t, pv_thread_ix th, char *buf, size_t n)
{
	const struct pv_threads *ts = &t->p->threads;
	const char *name = pv_str(t->p, ts->name[th]);
	bool twin = false;
	for (uint32_t k = 0; k < ts->len && !twin; k++)
		twin = k != th && strcmp(pv_str(t->p, ts->name[k]), name) == 0;
	if (!twin)
		snprintf(buf, n, "%s", name);
	else if (ts->pid && ts->tid && ts->pid[th] != PV_ID_NONE && ts->tid[th] != PV_ID_NONE)
		snprintf(buf, n, "%s %lld/%lld", name, (long long)ts->pid[th],
			 (long long)ts->tid[th]);
	else if (ts->tid && ts->tid[th] != PV_ID_NONE)
		snprintf(buf, n, "%s %lld", name, (long long)ts->tid[th]);
	else
		snprintf(buf, n, "%s #%u", name, th);
	return buf;
}

void tui_say(struct tui *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof(t->msg), fmt, ap);
	va_end(ap);
}

void tui_strs_clear(struct strs *s)
{
	for (uint32_t i = 0; i < s->n; i++)
		free(s->s[i]);
	s->n = 0;
}

void tui_strs_add(struct strs *s, const char *x)
{
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 16;
		char **g = realloc(s->s, sizeof(*g) * cap);
		if (!g)
			return;
		s->s = g;
		s->cap = cap;
	}
	char *d = strdup(x);
	if (d)
		s->s[s->n++] = d;
}

/* Keeps what the next view of the pane should show again: open rows and the selection. */
static void pane_keep(struct pane *pn)
{
	if (!pn->v)
		return;
	tui_strs_clear(&pn->keep);
	const struct pv_tree *trees[2] = {pn->v->tree, pn->v->callers};
	for (int k = 0; k < 2; k++)
		for (uint32_t r = 0; trees[k] && pn->open[k] && r < trees[k]->len; r++)
			if (pn->open[k][r]) {
				const char *key = pv_row_key(pn->nm, trees[k], r);
				if (key)
					tui_strs_add(&pn->keep, key);
			}
	free(pn->sel_key);
	pn->sel_key = NULL;
	if (pn->sel < pn->nrows && pn->rows[pn->sel].r != PV_NONE) {
		const char *key = pv_row_key(pn->nm, pn->rows[pn->sel].t, pn->rows[pn->sel].r);
		pn->sel_key = key ? strdup(key) : NULL;
	}
}

void tui_query_changed(struct tui *t)
{
	for (uint32_t k = 0; k < t->nr_views; k++)
		pane_keep(&t->panes[k]);
	t->gen++;
}

/* Makes nq (owned: moved in) the query; the old one goes to the history. */
void tui_push_query(struct tui *t, struct pv_query *nq)
{
	if (t->nhist == HISTORY_MAX) {
		pv_query_release(&t->hist[0]);
		memmove(t->hist, t->hist + 1, sizeof(t->hist[0]) * (HISTORY_MAX - 1));
		t->nhist--;
	}
	t->hist[t->nhist++] = t->q;
	t->q = *nq;
	tui_query_changed(t);
}

bool tui_new_query(struct tui *t, struct pv_query *nq)
{
	pv_query_init(nq);
	if (pv_query_copy(nq, &t->q)) {
		pv_query_release(nq);
		tui_say(t, "out of memory");
		return false;
	}
	return true;
}

void tui_add_filter(struct tui *t, enum pv_filter_kind k, const char *arg)
{
	struct pv_query nq;
	if (!tui_new_query(t, &nq))
		return;
	if (pv_query_add_filter(&nq, k, arg)) {
		pv_query_release(&nq);
		tui_say(t, "too many filters");
		return;
	}
	tui_push_query(t, &nq);
	tui_say(t, "%s %s", pv_filter_name(k), arg);
}

void tui_set_center(struct tui *t, const char *scope, bool add)
{
	struct pv_query nq;
	if (!tui_new_query(t, &nq))
		return;
	if (!add) {
		for (uint32_t i = 0; i < nq.nr_center; i++)
			free(nq.center[i]);
		nq.nr_center = 0;
	}
	if (pv_query_add_center(&nq, scope)) {
		pv_query_release(&nq);
		tui_say(t, "too many centers");
		return;
	}
	tui_push_query(t, &nq);
	tui_say(t, "center %s", scope);
}

static uint32_t page_rows(const struct tui *t)
{
	return t->body_h > 1 ? (uint32_t)t->body_h - 1 : 1;
}

/* The move a key makes in a list of n rows (arrows, pages, Home/End, the wheel); 0 for a key
 * that does not move. */
int64_t tui_move_delta(const struct tui *t, int key, uint32_t n)
{
	switch (key) {
	case TUI_KEY_UP: return -1;
	case TUI_KEY_DOWN: return 1;
	case TUI_KEY_PGUP: return -(int64_t)page_rows(t);
	case TUI_KEY_PGDN: return page_rows(t);
	case TUI_KEY_HOME: return -(int64_t)n;
	case TUI_KEY_END: return n;
	case TUI_KEY_WHEEL_UP: return -3;
	case TUI_KEY_WHEEL_DOWN: return 3;
	default: return 0;
	}
}

/* sel moved by d, kept within the n rows (0 when there are none). */
uint32_t tui_clamp_sel(uint32_t sel, int64_t d, uint32_t n)
{
	int64_t i = (int64_t)sel + d;
	return n ? (uint32_t)(i < 0 ? 0 : i >= n ? n - 1 : i) : 0;
}

char *tui_query_text(const struct tui *t)
{
	char *args = pv_query_to_args(&t->q), *url = pv_query_to_url(&t->q);
	size_t n = (args ? strlen(args) : 0) + (url ? strlen(url) : 0) + strlen(t->o.path) + 64;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "profview %s %s%s%s\n?%s", pv_view_name(t->q.view), args ? args : "",
			 args && *args ? " " : "", t->o.path, url ? url : "");
	free(args);
	free(url);
	return s;
}

void tui_emit(struct tui *t, int y, enum tui_role role)
{
	if (y < 0 || y >= t->h)
		return;
	char *s = cells_end(&t->cl);
	free(t->scr.line[y]);
	t->scr.line[y] = s ? s : strdup("");
	t->scr.role[y] = (uint8_t)role;
}

void tui_text_line(struct tui *t, int y, enum tui_role role, const char *s)
{
	cells_start(&t->cl, t->w);
	cells_puts(&t->cl, s);
	tui_emit(t, y, role);
}

uint32_t tui_scroll(uint32_t *top, uint32_t sel, uint32_t n, int rows)
{
	uint32_t h = rows > 0 ? (uint32_t)rows : 1;
	if (sel < *top)
		*top = sel;
	if (sel >= *top + h)
		*top = sel - h + 1;
	if (*top + h > n)
		*top = n > h ? n - h : 0;
	return *top;
}

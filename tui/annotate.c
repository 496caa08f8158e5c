/*
 * annotate.c - the TUI's disassembly of the selected row's function (state.h): `a` on a row
 * asks libpv for its instructions with their self costs (pv_disasm_funcs, what `profview
 * annotate` and the page's disassembly show), as lines over the tab until Esc or `a` again.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/disasm.h"
#include "pv/format.h"
#include "state.h"

void tui_annotate_close(struct tui *t)
{
	tui_strs_clear(&t->an.lines);
	free(t->an.lines.s);
	memset(&t->an, 0, sizeof(t->an));
	if (t->mode == M_ANNOTATE)
		t->mode = M_NORMAL;
}

static void add(struct tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct tui *t, const char *fmt, ...)
{
	char b[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	tui_strs_add(&t->an.lines, b);
}

void tui_annotate_open(struct tui *t, pv_func_ix fn)
{
	const struct pv_profile *p = t->p;
	tui_annotate_close(t);
	uint8_t *mark = calloc(p->funcs.len ? p->funcs.len : 1, 1);
	if (!mark) {
		tui_say(t, "out of memory");
		return;
	}
	mark[fn] = 1;
	struct pv_disasm *d = NULL;
	struct pv_error err;
	pv_error_clear(&err);
	int rc = pv_disasm_funcs(p, &t->q, mark, NULL, &d, &err);
	free(mark);
	if (rc) {
		tui_say(t, "%s", rc == PV_ENOMEM ? "out of memory" : err.msg);
		pv_disasm_free(d);
		return;
	}
	char metric[256] = "";
	if (d->metric < p->metrics.len)
		snprintf(metric, sizeof(metric), "self %s; ",
			 pv_str(p, p->metrics.name[d->metric]));
	snprintf(t->an.title, sizeof(t->an.title), " disassembly of %s  (%sEsc: back)",
		 pv_str(p, p->funcs.name[fn]), metric);
	for (uint32_t i = 0; i < d->n; i++) {
		const struct pv_disasm_insn *in = &d->insn[i], *prev = i ? &d->insn[i - 1] : NULL;
		if (!prev || prev->line != in->line || (prev->file == NULL) != (in->file == NULL) ||
		    (in->file && strcmp(prev->file, in->file))) {
			int64_t sum = 0;
			for (uint32_t k = i;
			     k < d->n && d->insn[k].func == in->func && d->insn[k].line == in->line;
			     k++)
				sum += d->insn[k].self;
			if (in->file)
				add(t, "%12lld  %s:%u", (long long)sum, in->file, in->line);
			else
				add(t, "%12lld  (no line)", (long long)sum);
		}
		if (in->self)
			add(t, "%12lld  %10llx:  %s", (long long)in->self,
			    (unsigned long long)in->addr, in->text);
		else
			add(t, "%12s  %10llx:  %s", ".", (unsigned long long)in->addr, in->text);
	}
	for (uint32_t i = 0; i < d->nr_notes; i++)
		add(t, "note: %s", d->notes[i]);
	if (!d->n && !d->nr_notes)
		add(t, "no instructions: the function has no addresses");
	pv_disasm_free(d);
	t->mode = M_ANNOTATE;
}

void tui_annotate_key(struct tui *t, int key)
{
	if (key == TUI_KEY_ESC || key == 'a' || key == 'q') {
		tui_annotate_close(t);
		return;
	}
	int64_t d = tui_move_delta(t, key, t->an.lines.n);
	if (d)
		t->an.sel = tui_clamp_sel(t->an.sel, d, t->an.lines.n);
}

void tui_annotate_body(struct tui *t, int y0, int rows)
{
	tui_text_line(t, y0, TUI_ROLE_BAR, t->an.title);
	rows--;
	uint32_t top = tui_scroll(&t->an.top, t->an.sel, t->an.lines.n, rows);
	for (int i = 0; i < rows && top + (uint32_t)i < t->an.lines.n; i++) {
		uint32_t k = top + (uint32_t)i;
		cells_start(&t->cl, t->w);
		cells_puts(&t->cl, k == t->an.sel ? ">" : " ");
		cells_puts(&t->cl, t->an.lines.s[k]);
		tui_emit(t, y0 + 1 + i, k == t->an.sel ? TUI_ROLE_SELECTED : TUI_ROLE_TEXT);
	}
}

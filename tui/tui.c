/*
 * tui.c - the TUI's state machine (tui.h, doc/tui.md): the keys, the tabs, the life of the
 * state; the panes are in flame.c, panes.c, markers.c and source.c, the screen in screen.c,
 * the query's history and the helpers in common.c (state.h is what they share).
 *
 * The state is the query (with its history), the tab, and per tab what the page keeps: the
 * open rows and the selection of each tree (by row key, pv/rows.h, so they survive a new
 * query), the marker search and selection, the source file and line. A view is computed by
 * libpv when its tab is shown after the query changed; the screen lists only the rows of open
 * parents, so a key costs the rows on screen, and a query change one pv_view_compute.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/format.h"
#include "pv/graphs.h"
#include "pv/rows.h"
#include "state.h"

/* A tab of the view kind k: its name as the page makes it, the label in lower case with
 * dashes ("Top-down": top-down). */
static void view_tab(struct tab *tb, enum pv_view_kind k)
{
	const struct pv_view_kind_row *row = pv_view_kind(k);
	size_t i = 0;
	for (; row->label[i] && i + 1 < sizeof(tb->name); i++) {
		char c = row->label[i];
		tb->name[i] = c == ' ' ? '-' : c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
	}
	tb->name[i] = 0;
	tb->kind = row;
	tb->view = k;
	tb->ops = &tui_view_ops;
}

void tui_tabs_init(struct tui *t)
{
	/* the kinds that fill trees, then those that fill flat rows, each in the table's order */
	t->nr_tabs = 0;
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t k = 0; k < PV_NR_VIEW_KINDS; k++) {
			bool flat = pv_view_kinds[k].outputs & PV_OUT_FLAT;
			if (flat == (pass == 1))
				view_tab(&t->tabs[t->nr_tabs++], (enum pv_view_kind)k);
		}
	t->nr_views = t->nr_tabs;
	t->tree_tab = 0;
	for (uint32_t k = 0; k < t->nr_views; k++)
		if (t->tabs[k].view == PV_VIEW_TREE)
			t->tree_tab = k;
	t->tabs[t->tree_tab].ops = &tui_tree_ops; /* its rows, or its flame graph ('f') */
	t->markers_tab = t->nr_tabs;
	t->tabs[t->nr_tabs++] = (struct tab){"markers", NULL, PV_VIEW_TREE, &tui_marker_ops};
	t->source_tab = t->nr_tabs;
	t->tabs[t->nr_tabs++] = (struct tab){"source", NULL, PV_VIEW_TREE, &tui_source_ops};
}

static void switch_file(struct tui *t, int step);

/* t: the query's threads dropped (every thread), or else the busiest thread alone. */
static void switch_threads(struct tui *t)
{
	if (t->p->threads.len < 2) {
		tui_say(t, "one thread");
		return;
	}
	struct pv_query nq;
	if (!tui_new_query(t, &nq))
		return;
	bool all = nq.nr_threads > 0;
	for (uint32_t i = 0; i < nq.nr_threads; i++)
		free(nq.threads[i]);
	nq.nr_threads = 0;
	char b[16];
	snprintf(b, sizeof(b), "#%u", t->busiest == PV_NONE ? 0 : t->busiest);
	if (!all && pv_query_add_thread(&nq, b)) {
		pv_query_release(&nq);
		tui_say(t, "out of memory");
		return;
	}
	tui_push_query(t, &nq);
	if (all)
		tui_say(t, "all %u threads %s", t->p->threads.len,
			t->one_program ? "summed" : "merged");
	else
		tui_say(t, "thread %s, the busiest", b);
}

/* T: the next thread alone (by index), after the last every thread again. */
static void next_thread(struct tui *t)
{
	uint32_t nt = t->p->threads.len;
	if (nt < 2) {
		tui_say(t, "one thread");
		return;
	}
	uint32_t cur = PV_NONE;
	if (t->q.nr_threads == 1 && t->q.threads[0][0] == '#')
		cur = (uint32_t)strtoul(t->q.threads[0] + 1, NULL, 10);
	uint32_t nx = cur == PV_NONE ? 0 : cur + 1;
	struct pv_query nq;
	if (!tui_new_query(t, &nq))
		return;
	for (uint32_t i = 0; i < nq.nr_threads; i++)
		free(nq.threads[i]);
	nq.nr_threads = 0;
	char b[16], l[256];
	snprintf(b, sizeof(b), "#%u", nx);
	if (nx < nt && pv_query_add_thread(&nq, b)) {
		pv_query_release(&nq);
		tui_say(t, "out of memory");
		return;
	}
	tui_push_query(t, &nq);
	if (nx < nt)
		tui_say(t, "thread %s: %s (%u of %u; T: next)", b,
			tui_thread_label(t, nx, l, sizeof(l)), nx + 1, nt);
	else
		tui_say(t, "all %u threads", nt);
}

/* b: the next granularity (--by) the profile has rows of. */
static void next_by(struct tui *t)
{
	enum pv_granularity g = t->q.by;
	for (int k = 0; k <= PV_BY_LOOP; k++) {
		g = g == PV_BY_LOOP ? PV_BY_FUNCTION : g + 1;
		if (t->by[g])
			break;
	}
	if (g == t->q.by) {
		tui_say(t, "by %s: the profile has no other granularity", pv_granularity_name(g));
		return;
	}
	struct pv_query nq;
	if (!tui_new_query(t, &nq))
		return;
	nq.by = g;
	tui_push_query(t, &nq);
	tui_say(t, "by %s (b: next)", pv_granularity_name(g));
}

/* e: the profile's next metric alone (after the first one shown); E: every metric of the
 * profile, or the first one alone again when several are shown. */
static void set_metrics(struct tui *t, bool all)
{
	const struct pv_profile *p = t->p;
	if (!p->metrics.len)
		return;
	pv_metric_ix cur = t->q.nr_metrics ? pv_metric_find(p, t->q.metrics[0]) : PV_NONE;
	if (cur == PV_NONE)
		cur = p->meta.default_metric < p->metrics.len ? p->meta.default_metric : 0;
	struct pv_query nq;
	if (!tui_new_query(t, &nq))
		return;
	for (uint32_t i = 0; i < nq.nr_metrics; i++)
		free(nq.metrics[i]);
	nq.nr_metrics = 0;
	bool several = t->q.nr_metrics > 1;
	uint32_t n = all && !several ? p->metrics.len : 1;
	uint32_t first = all ? cur : (cur + 1) % p->metrics.len;
	int rc = 0;
	for (uint32_t k = 0; k < n && !rc; k++)
		rc = pv_query_add_metric(&nq,
					 pv_str(p, p->metrics.name[(first + k) % p->metrics.len]));
	if (rc) {
		pv_query_release(&nq);
		tui_say(t, "out of memory");
		return;
	}
	tui_push_query(t, &nq);
	if (n > 1)
		tui_say(t, "%u metrics (E: one again)", n);
	else
		tui_say(t, "metric %s (%u of %u)", pv_str(p, p->metrics.name[first]), first + 1,
			p->metrics.len);
}

static void back(struct tui *t)
{
	if (!t->nhist) {
		tui_say(t, "no earlier query");
		return;
	}
	pv_query_release(&t->q);
	t->q = t->hist[--t->nhist];
	tui_query_changed(t);
	tui_say(t, "back");
}

/* '/': a new search, typed from nothing (Esc puts the markers' search back as it was). */
static void start_input(struct tui *t)
{
	t->mode = M_INPUT;
	t->input[0] = 0;
	if (tui_ops(t)->search_start)
		tui_ops(t)->search_start(t);
}

static void utf8_append(char *buf, size_t cap, int cp)
{
	char b[5];
	size_t n;
	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	size_t len = strlen(buf);
	if (len + n < cap) {
		memcpy(buf + len, b, n);
		buf[len + n] = 0;
	}
}

static void input_key(struct tui *t, int key)
{
	size_t len = strlen(t->input);
	const struct tab_ops *ops = tui_ops(t);
	if (key == TUI_KEY_ESC || key == TUI_KEY_ENTER) {
		t->mode = M_NORMAL;
		if (ops->search_end)
			ops->search_end(t, key == TUI_KEY_ENTER ? t->input : NULL);
		return;
	}
	if (key == TUI_KEY_BACKSPACE) {
		while (len > 0 && ((unsigned char)t->input[len - 1] & 0xc0) == 0x80)
			len--; /* a whole UTF-8 character */
		if (len > 0)
			len--;
		t->input[len] = 0;
	} else if (key >= 0x20 && key < 0x110000 && key != 0x7f) {
		utf8_append(t->input, sizeof(t->input), key);
	} else {
		return;
	}
	if (ops->search_typed)
		ops->search_typed(t, t->input);
}

/* A key on the help: Up/Down and the pages scroll it (true), any other closes it. The render
 * keeps help_top where the last screen is full. */
static bool help_key(struct tui *t, int key)
{
	size_t n;
	tui_help(&n);
	int page = t->help_rows > 1 ? t->help_rows - 1 : 1;
	int last = (int)n > t->help_rows ? (int)n - t->help_rows : 0, top = t->help_top;
	switch (key) {
	case TUI_KEY_UP: top--; break;
	case TUI_KEY_DOWN: top++; break;
	case TUI_KEY_PGUP: top -= page; break;
	case TUI_KEY_PGDN: top += page; break;
	case TUI_KEY_HOME: top = 0; break;
	case TUI_KEY_END: top = last; break;
	default: return false;
	}
	t->help_top = top < 0 ? 0 : top > last ? last : top;
	return true;
}

bool tui_key(struct tui *t, int key)
{
	t->msg[0] = 0;
	if (t->mode == M_INPUT) {
		input_key(t, key);
		return false;
	}
	if (t->mode == M_ANNOTATE) {
		tui_annotate_key(t, key);
		return false;
	}
	if (t->mode == M_HELP && help_key(t, key))
		return false;
	if (t->mode == M_HELP || t->mode == M_QUERY) {
		t->mode = M_NORMAL;
		return false;
	}
	if (tui_ops(t)->grab && tui_ops(t)->grab(t, key))
		return false;
	switch (key) {
	case 'q': return true;
	case '?':
		t->mode = M_HELP;
		t->help_top = 0;
		return false;
	case 'u': t->mode = M_QUERY; return false;
	case 't': switch_threads(t); return false;
	case 'T': next_thread(t); return false;
	case 'b': next_by(t); return false;
	case 'v':
		t->nums = t->nums == PV_NUM_SCI ? PV_NUM_EXACT : t->nums + 1;
		tui_say(t, "numbers: %s",
			t->nums == PV_NUM_SHORT ? "k/M/G (3 significant digits)"
			: t->nums == PV_NUM_SCI ? "scientific (1.48e+09)"
						: "exact");
		return false;
	case 'e':
	case 'E': set_metrics(t, key == 'E'); return false;
	case ']':
	case '[': switch_file(t, key == ']' ? 1 : -1); return false;
	case 'f':
		if (t->tab == t->tree_tab)
			t->fl.on = !t->fl.on;
		else
			tui_say(t, "the flame graph is the top-down tab's: 1, then f");
		return false;
	case '/': start_input(t); return false;
	case TUI_KEY_BACKSPACE: back(t); return false;
	case TUI_KEY_TAB: t->tab = (t->tab + 1) % t->nr_tabs; return false;
	case TUI_KEY_BTAB: t->tab = (t->tab + t->nr_tabs - 1) % t->nr_tabs; return false;
	case TUI_KEY_ESC: return false;
	default: break;
	}
	if (key >= '1' && key < '1' + (int)t->nr_tabs) {
		t->tab = (uint32_t)(key - '1');
		return false;
	}
	tui_ops(t)->key(t, key);
	return false;
}

void tui_click(struct tui *t, int y, int x)
{
	t->msg[0] = 0;
	if (t->mode != M_NORMAL)
		return;
	if (y == 0) { /* the tab bar: the tab under x (as tab_bar lays it out) */
		int full = 0, col = 0;
		for (uint32_t k = 0; k < t->nr_tabs; k++)
			full += 4 + (int)strlen(tui_tab_label(t, k));
		for (uint32_t k = 0; k < t->nr_tabs; k++) {
			int wk =
			    k == t->tab || full <= t->w ? 4 + (int)strlen(tui_tab_label(t, k)) : 3;
			if (x >= col && x < col + wk) {
				t->tab = k;
				return;
			}
			col += wk;
		}
		return;
	}
	int i = y - t->body_y;
	if (i < 0 || i >= t->body_h)
		return;
	tui_ops(t)->click(t, i, x);
}

const struct pv_query *tui_query(const struct tui *t)
{
	return &t->q;
}

uint32_t tui_tab_find(const struct tui *t, const char *name)
{
	/* the page's tabs that are the TUI's under another name */
	static const struct {
		const char *page;
		bool markers;
	} page_tabs[] = {{"marker-table", true}, {"marker-chart", true}, {"flame", false}};
	for (uint32_t k = 0; k < t->nr_tabs; k++)
		if (strcmp(name, t->tabs[k].name) == 0)
			return k;
	for (uint32_t k = 0; k < t->nr_views; k++) /* a kind's name: "tree", "callers" */
		if (strcmp(name, t->tabs[k].kind->name) == 0)
			return k;
	for (size_t k = 0; k < sizeof(page_tabs) / sizeof(page_tabs[0]); k++)
		if (strcmp(name, page_tabs[k].page) == 0)
			return page_tabs[k].markers ? t->markers_tab : t->tree_tab;
	return PV_NONE;
}

/* Frees what belongs to the open profile: its views, markers, source, activity and queries. */
static void close_file(struct tui *t)
{
	for (uint32_t k = 0; k < t->nr_views; k++) {
		tui_pane_drop(&t->panes[k]);
		tui_strs_clear(&t->panes[k].keep);
		free(t->panes[k].keep.s);
		free(t->panes[k].rows);
		free(t->panes[k].sel_key);
		memset(&t->panes[k], 0, sizeof(t->panes[k]));
	}
	pv_free_indexes(t->mk.idx);
	pv_marker_detail_release(&t->mk.d);
	pv_marker_text_free(t->mk.text);
	free(t->mk.kept_search);
	pv_markers_free(t->mk.ms);
	free(t->mk.err);
	free(t->mk.search);
	memset(&t->mk, 0, sizeof(t->mk));
	free(t->src.text);
	free(t->src.off);
	free(t->src.err);
	free(t->src.center);
	pv_source_costs_free(t->src.sc);
	memset(&t->src, 0, sizeof(t->src));
	tui_flame_drop(&t->fl);
	t->fl.nzoom = 0;
	tui_annotate_close(t);
	for (uint32_t i = 0; i < t->act_n; i++)
		free(t->act_line[i]);
	free(t->act_line);
	t->act_line = NULL;
	t->act_n = t->act_w = 0;
	t->act_valid = false;
	for (uint32_t i = 0; i < t->nhist; i++)
		pv_query_release(&t->hist[i]);
	t->nhist = 0;
	pv_query_release(&t->q);
	pv_query_release(&t->act_q);
}

/* The error of a tab name that names none: the tabs there are. */
static int no_tab(struct tui *t, const char *name, struct pv_error *err)
{
	char list[256] = "";
	for (uint32_t k = 0; k < t->nr_tabs; k++) {
		size_t n = strlen(list);
		snprintf(list + n, sizeof(list) - n, "%s%s", k ? ", " : "", t->tabs[k].name);
	}
	t->tab = 0;
	return pv_error_set(err, PV_EINVAL, "no tab '%s' (%s)", name, list);
}

/* Opens profile k as the options say (first: their selection, marker and search too). */
static int open_file(struct tui *t, uint32_t k, bool first, struct pv_error *err)
{
	const struct tui_opts *o = &t->o;
	t->file = k;
	t->p = t->files[k].p;
	t->o.path = t->files[k].path;
	t->nr_roots = 0;
	if (pv_source_profile_root(t->o.path, t->root, sizeof(t->root)))
		t->roots[t->nr_roots++] = t->root;
	for (uint32_t i = 0; i < o->nr_roots && t->nr_roots < ROOTS_MAX; i++)
		t->roots[t->nr_roots++] = o->roots[i];
	t->gen = 1;
	t->mode = M_NORMAL;
	t->find[0] = 0;
	t->src.id = PV_NONE;
	t->mk.want = first ? o->marker : -1;
	pv_query_init(&t->q);
	pv_query_init(&t->act_q);
	if (pv_query_copy(&t->q, o->q))
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	struct pv_profile_info *in;
	if (pv_profile_info(t->p, &in))
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	t->one_program = in->one_program;
	t->busiest = in->busiest;
	t->open_thread = in->open_thread;
	memcpy(t->by, in->by, sizeof(t->by));
	pv_profile_info_free(in);
	/* a fresh start (no thread named, no page state) opens where the page opens: one
	 * program's threads summed, else the busiest thread */
	if (!t->q.nr_threads && !o->tab && t->open_thread != PV_NONE) {
		char b[16];
		snprintf(b, sizeof(b), "#%u", t->open_thread);
		if (pv_query_add_thread(&t->q, b))
			return pv_error_set(err, PV_ENOMEM, "out of memory");
	}
	t->tab = t->tree_tab;
	for (uint32_t v = 0; v < t->nr_views; v++)
		if (t->tabs[v].view == o->q->view)
			t->tab = v;
	t->fl.on = o->tab && strcmp(o->tab, "flame") == 0; /* the page's flame tab */
	if (o->tab && (t->tab = tui_tab_find(t, o->tab)) == PV_NONE)
		return no_tab(t, o->tab, err);
	if (first && o->sel && t->tabs[t->tab].kind)
		t->panes[t->tab].sel_key = strdup(o->sel);
	if (first && o->search)
		t->mk.search = strdup(o->search);
	int rc = pv_markers_derive(t->p, &t->mk.ms, err);
	if (rc == PV_ENOMEM)
		return rc;
	if (rc) { /* the views work without markers: the tab says why */
		t->mk.err = strdup(err->msg);
		t->mk.ms = NULL;
		pv_error_clear(err);
	}
	/* the query must fit the first profile: its view now, so a bad query fails before the
	 * screen (another profile's tab says why it does not fit) */
	if (first && t->tabs[t->tab].kind) {
		tui_ensure_view(t, t->tab);
		struct pane *pn = &t->panes[t->tab];
		if (!pn->v && pn->err && !t->tabs[t->tab].kind->needs_center)
			return pv_error_set(err, PV_EINVAL, "%s", pn->err);
	}
	return 0;
}

/* ] and [: the next or the previous profile, opened afresh (as the page's profile list). */
static void switch_file(struct tui *t, int step)
{
	if (t->nr_files < 2) {
		tui_say(t, "one profile (profview tui FILE... opens several)");
		return;
	}
	close_file(t);
	uint32_t k =
	    step > 0 ? (t->file + 1) % t->nr_files : (t->file + t->nr_files - 1) % t->nr_files;
	struct pv_error err;
	pv_error_clear(&err);
	if (open_file(t, k, false, &err))
		tui_say(t, "%s", err.msg[0] ? err.msg : "out of memory");
	else
		tui_say(t, "profile %u of %u: %s", k + 1, t->nr_files, t->o.path);
}

int tui_new(const struct tui_opts *o, int w, int h, struct tui **out, struct pv_error *err)
{
	struct tui *t = calloc(1, sizeof(*t));
	*out = t;
	if (!t)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	t->o = *o;
	t->one = (struct tui_file){o->path, o->p};
	t->files = o->files && o->nr_files ? o->files : &t->one;
	tui_tabs_init(t);
	t->nr_files = o->files && o->nr_files ? o->nr_files : 1;
	int rc = open_file(t, o->file < t->nr_files ? o->file : 0, true, err);
	if (rc)
		return rc;
	tui_resize(t, w, h);
	return t->scr.line ? 0 : pv_error_set(err, PV_ENOMEM, "out of memory");
}

void tui_resize(struct tui *t, int w, int h)
{
	for (int y = 0; y < t->h; y++)
		free(t->scr.line[y]);
	free(t->scr.line);
	free(t->scr.role);
	t->w = w < 1 ? 1 : w;
	t->h = h < 1 ? 1 : h;
	t->scr.w = t->w;
	t->scr.h = t->h;
	t->scr.line = calloc((size_t)t->h, sizeof(char *));
	t->scr.role = calloc((size_t)t->h, 1);
	t->act_w = 0;
}

void tui_free(struct tui *t)
{
	if (!t)
		return;
	close_file(t);
	if (t->scr.line)
		for (int y = 0; y < t->h; y++)
			free(t->scr.line[y]);
	free(t->scr.line);
	free(t->scr.role);
	free(t->cl.buf);
	free(t);
}

int tui_key_parse(const char *name)
{
	static const struct {
		const char *name;
		int key;
	} names[] = {
	    {"Up", TUI_KEY_UP},
	    {"Down", TUI_KEY_DOWN},
	    {"Left", TUI_KEY_LEFT},
	    {"Right", TUI_KEY_RIGHT},
	    {"PgUp", TUI_KEY_PGUP},
	    {"PgDn", TUI_KEY_PGDN},
	    {"Home", TUI_KEY_HOME},
	    {"End", TUI_KEY_END},
	    {"Enter", TUI_KEY_ENTER},
	    {"Esc", TUI_KEY_ESC},
	    {"Tab", TUI_KEY_TAB},
	    {"BTab", TUI_KEY_BTAB},
	    {"Backspace", TUI_KEY_BACKSPACE},
	    {"WheelUp", TUI_KEY_WHEEL_UP},
	    {"WheelDown", TUI_KEY_WHEEL_DOWN},
	    {"Space", ' '},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i].name) == 0)
			return names[i].key;
	if (name[0] && !name[1])
		return (unsigned char)name[0];
	return -1;
}

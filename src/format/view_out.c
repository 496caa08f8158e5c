/*
 * view_out.c - text and JSON output of a computed view (trees, butterfly, flat, list).
 *
 * Trees print depth first with an explicit stack; rows cut by --depth or --min-percent are
 * counted with their subtrees, and a footer says how many. Percentages are of the center's total
 * or of the whole filtered profile, as the query asks.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pv/format.h"

/*
 * Times print in the largest of ms, us and ns that keeps the whole's total at 1 or more, with
 * three decimals (exact: integer arithmetic), so a 63 ns profile is not all zeros.
 */
static int64_t time_scale(const struct pv_view *v, uint32_t m)
{
	int64_t w = v->whole[m] < 0 ? -v->whole[m] : v->whole[m];
	return w >= 1000000 ? 1000000 : w >= 1000 ? 1000 : 1;
}

static const char *unit_text(const struct pv_view *v, uint32_t m)
{
	enum pv_unit u = pv_view_metric_unit(v, m);
	if (u != PV_UNIT_NS)
		return pv_unit_name(u);
	int64_t sc = time_scale(v, m);
	return sc == 1000000 ? "ms" : sc == 1000 ? "us" : "ns";
}

static void cost_text(const struct pv_view *v, uint32_t m, char *buf, size_t n, int64_t x)
{
	if (pv_view_metric_derived(v, m)) {
		pv_view_value_text(v, m, x, false, buf, n);
		return;
	}
	enum pv_unit u = pv_view_metric_unit(v, m);
	int64_t sc = u == PV_UNIT_NS ? time_scale(v, m) : 1;
	if (sc == 1) {
		snprintf(buf, n, "%" PRId64, x);
		return;
	}
	int64_t a = x < 0 ? (x == INT64_MIN ? INT64_MAX : -x) : x;
	/* thousandths of the unit, rounded (past INT64_MAX / 1000: whole units) */
	int64_t milli = a > INT64_MAX / 1000 ? a / sc * 1000 : (a * 1000 + sc / 2) / sc;
	snprintf(buf, n, "%s%" PRId64 ".%03" PRId64, x < 0 ? "-" : "", milli / 1000, milli % 1000);
}

static void pct(char *buf, size_t n, int64_t v, int64_t whole)
{
	if (whole == 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.2f%%", 100.0 * (double)v / (double)whole);
}

static enum pv_unit unit_of(const struct pv_view *v, uint32_t m)
{
	return pv_view_metric_unit(v, m);
}

static const char *metric_name(const struct pv_view *v, uint32_t m)
{
	static _Thread_local char buf[PV_QUERY_MAX][300];
	return pv_view_metric_name(v, m, buf[m % PV_QUERY_MAX], sizeof(buf[0]));
}

static void row_suffix(FILE *out, const struct pv_view *v, enum pv_row_kind kind, uint32_t id,
		       uint32_t line)
{
	const struct pv_profile *p = v->p;
	pv_module_ix m;
	pv_source_ix s;
	uint32_t fl;
	pv_view_row_place(v, kind, id, &m, &s, &fl);
	if (kind == PV_ROW_LINE && line)
		fl = line;
	bool code = kind == PV_ROW_FUNCTION || kind == PV_ROW_LINE || kind == PV_ROW_LOOP;
	if (code && m != PV_NONE && p->modules.name[m]) {
		char b[64];
		const char *mn = pv_str(p, p->modules.name[m]);
		const char *fn = pv_view_row_name(v, kind, id, b, sizeof(b), 0);
		size_t ml = strlen(mn);
		int same = fn[0] == '[' && strncmp(fn + 1, mn, ml) == 0 && fn[ml + 1] == ']' &&
			   fn[ml + 2] == 0;
		if (!same && strcmp(fn, mn) != 0)
			fprintf(out, mn[0] == '[' ? "  %s" : "  [%s]", mn);
	}
	if (code && s != PV_NONE && p->sources.path[s]) {
		fprintf(out, "  %s", pv_str(p, p->sources.path[s]));
		uint32_t col = pv_view_row_column(v, kind, id);
		if (fl)
			fprintf(out, col ? ":%u:%u" : ":%u", fl, col);
	}
}

/* " (inline)" after the name of a row of kind inline (pv_row_kind_name) */
static void inline_mark(FILE *out, enum pv_row_kind kind, bool inlined)
{
	if (strcmp(pv_row_kind_name(kind, inlined), "inline") == 0)
		fputs(" (inline)", out);
}

static void json_str_or_null(FILE *out, const char *s)
{
	if (!s || !*s)
		fputs("null", out);
	else
		pv_json_string(out, s);
}

/* A cell in JSON: an integer cost, a derived metric's number or null. */
static void json_cost(FILE *out, const struct pv_view *v, uint32_t m, int64_t x)
{
	char b[40];
	pv_view_value_text(v, m, x, true, b, sizeof(b));
	fputs(b, out);
}

static void json_row_head(FILE *out, const struct pv_view *v, enum pv_row_kind kind, uint32_t id,
			  uint32_t line, bool inlined, int64_t *const *total, int64_t *const *self,
			  uint32_t r)
{
	const struct pv_profile *p = v->p;
	char b[512];
	pv_module_ix m;
	pv_source_ix s;
	uint32_t fl;
	pv_view_row_place(v, kind, id, &m, &s, &fl);
	if (kind == PV_ROW_LINE && line)
		fl = line;
	fputs("{\"name\": ", out);
	pv_json_string(out, pv_view_row_name(v, kind, id, b, sizeof(b), line));
	fputs(", \"kind\": ", out);
	pv_json_string(out, pv_row_kind_name(kind, inlined));
	fputs(", \"module\": ", out);
	json_str_or_null(out, m == PV_NONE ? NULL : pv_str(p, p->modules.name[m]));
	fputs(", \"file\": ", out);
	json_str_or_null(out, s == PV_NONE ? NULL : pv_str(p, p->sources.path[s]));
	fputs(", \"line\": ", out);
	if (fl)
		fprintf(out, "%u", fl);
	else
		fputs("null", out);
	uint32_t col = pv_view_row_column(v, kind, id);
	if (col)
		fprintf(out, ", \"column\": %u", col);
	fputs(", \"total\": ", out);
	json_cost(out, v, 0, total[0][r]);
	fputs(", \"self\": ", out);
	json_cost(out, v, 0, self[0][r]);
	if (v->nr_metrics > 1) {
		fputs(", \"values\": [", out);
		for (uint32_t k = 0; k < v->nr_metrics; k++) {
			fputs(k ? ", {\"total\": " : "{\"total\": ", out);
			json_cost(out, v, k, total[k][r]);
			fputs(", \"self\": ", out);
			json_cost(out, v, k, self[k][r]);
			fputc('}', out);
		}
		fputc(']', out);
	}
}

/* ---- header ---- */

static void text_header(FILE *out, const struct pv_view *v, const struct pv_print_opts *o)
{
	for (uint32_t m = 0; m < v->nr_metrics; m++) {
		char tb[32];
		cost_text(v, m, tb, sizeof(tb), v->whole[m]);
		const char *formula = pv_view_metric_formula(v, m);
		if (formula)
			fprintf(out, "# metric: %s = %s, total %s, %s\n", metric_name(v, m),
				formula, tb,
				o && o->threads_label ? o->threads_label : "all threads");
		else
			fprintf(out, "# metric: %s (%s), total %s, %s\n", metric_name(v, m),
				unit_text(v, m), tb,
				o && o->threads_label ? o->threads_label : "all threads");
	}
	if (v->q.nr_filters || v->q.has_range || v->q.inlines != PV_INLINE_KEEP) {
		char *args = pv_query_to_args(&v->q);
		/* only the filter part: the whole query line is what --json prints */
		fprintf(out, "# query: %s\n", args ? args : "");
		free(args);
	}
	if (v->note)
		fprintf(out, "# %s\n", v->note);
	if (v->centered) {
		char cb[32], pb[16];
		cost_text(v, 0, cb, sizeof(cb), v->center[0]);
		pct(pb, sizeof(pb), v->center[0], v->whole[0]);
		fprintf(out, "# center: %s, total %s (%s of the whole)\n", v->center_label, cb, pb);
	}
	for (uint32_t m = 0; m < v->nr_metrics; m++) {
		if (v->lost[m]) {
			char lb[32];
			cost_text(v, m, lb, sizeof(lb), v->lost[m]);
			fprintf(out, "# %s: %s in samples that lost every frame to a filter (not shown)\n",
				metric_name(v, m), lb);
		}
	}
}

static void text_columns(FILE *out, const struct pv_view *v, bool self_first)
{
	for (uint32_t m = 0; m < v->nr_metrics; m++) {
		char a[64], b[64];
		if (v->nr_metrics == 1) {
			snprintf(a, sizeof(a), "%s", self_first ? "self" : "total");
			snprintf(b, sizeof(b), "%s", self_first ? "total" : "self");
		} else {
			snprintf(a, sizeof(a), "%s %s", metric_name(v, m), self_first ? "self" : "total");
			snprintf(b, sizeof(b), "%s %s", metric_name(v, m), self_first ? "total" : "self");
		}
		fprintf(out, "%12s %8s %12s %8s  ", a, self_first ? "self%" : "total%", b,
			self_first ? "total%" : "self%");
	}
	fputs("name\n", out);
}

/* The value columns of row r; mark is printed just before the name ('~': estimated). */
static void text_values(FILE *out, const struct pv_view *v, int64_t *const *total,
			int64_t *const *self, uint32_t r, bool self_first, char mark)
{
	for (uint32_t m = 0; m < v->nr_metrics; m++) {
		char tb[32], sb[32], tp[16], sp[16];
		cost_text(v, m, tb, sizeof(tb), total[m][r]);
		cost_text(v, m, sb, sizeof(sb), self[m][r]);
		pct(tp, sizeof(tp), total[m][r], v->base[m]);
		pct(sp, sizeof(sp), self[m][r], v->base[m]);
		if (pv_view_metric_derived(v, m)) /* a formula's value is no share of a whole */
			tp[0] = sp[0] = 0;
		char c = m + 1 == v->nr_metrics ? mark : ' ';
		if (self_first)
			fprintf(out, "%12s %8s %12s %8s %c", sb, sp, tb, tp, c);
		else
			fprintf(out, "%12s %8s %12s %8s %c", tb, tp, sb, sp, c);
	}
}

/* ---- trees ---- */

/*
 * What a printed tree shows: the rows not cut (--min-percent, --depth; counted with what is
 * below them), at most -n rows of each list and at most --max-rows rows in all (both trees of
 * a butterfly together). The rows of a list past either bound become one "more" row with their
 * count and summed costs, so every level still adds up; the footer counts what they hold.
 * Rows deeper than INDENT_LEVELS are indented as at that depth, their depth before the name
 * ("[1234] f"), so a 100,000-deep stack prints in space linear in its rows.
 */
#define INDENT_LEVELS 50

/* Rows not printed, with what is below them: cut by --min-percent, --depth, past -n, past
 * --max-rows. */
struct cuts {
	uint64_t pct, depth, limit, budget;
};

struct walk {
	FILE *out;
	const struct pv_view *v;
	const struct pv_tree *t;
	bool json;
	uint32_t max_depth, limit;
	int64_t min_cost;
	uint64_t *rows;	 /* per row: rows in its subtree, itself included */
	uint64_t *shown; /* rows printed so far, for --max-rows */
	struct cuts *cuts;
};

static bool cut(const struct walk *w, uint32_t r)
{
	return (w->min_cost > 0 && w->t->total[0][r] < w->min_cost) ||
	       (w->max_depth && w->t->depth[r] >= w->max_depth);
}

static void count_cut(struct walk *w, uint32_t r)
{
	if (w->min_cost > 0 && w->t->total[0][r] < w->min_cost)
		w->cuts->pct += w->rows[r];
	else
		w->cuts->depth += w->rows[r];
}

/* One open list: its rows, the next to look at, how many were printed, the ones left over. */
struct level {
	const uint32_t *rows;
	uint32_t nr, next, printed;
	uint32_t more_from, more; /* the first row past a bound, and how many (not cut) */
};

static int indent_of(uint32_t depth)
{
	return 2 * (int)(depth < INDENT_LEVELS ? depth : INDENT_LEVELS);
}

static void text_name(FILE *out, uint32_t depth, const char *name)
{
	fprintf(out, "%*s", indent_of(depth), "");
	if (depth > INDENT_LEVELS)
		fprintf(out, "[%u] ", depth);
	fputs(name, out);
}

/* The "more" row of a list: the rows from more_from on that are not cut, summed. */
static void more_row(struct walk *w, const struct level *it, int indent)
{
	const struct pv_view *v = w->v;
	const struct pv_tree *t = w->t;
	uint32_t nm = v->nr_metrics;
	int64_t tot[PV_QUERY_MAX] = {0}, slf[PV_QUERY_MAX] = {0};
	int64_t *tp[PV_QUERY_MAX], *sp[PV_QUERY_MAX];
	for (uint32_t i = it->more_from; i < it->nr; i++) {
		uint32_t r = it->rows[i];
		if (cut(w, r))
			continue;
		for (uint32_t m = 0; m < nm; m++) {
			tot[m] += t->total[m][r];
			slf[m] += t->self[m][r];
		}
	}
	for (uint32_t m = 0; m < nm; m++) {
		if (pv_view_metric_derived(v, m)) /* a formula's values do not add up */
			tot[m] = slf[m] = PV_VALUE_NONE;
		tp[m] = &tot[m];
		sp[m] = &slf[m];
	}
	char name[64];
	snprintf(name, sizeof(name), "... %u more rows", it->more);
	uint32_t depth = t->depth[it->rows[0]];
	if (w->json) {
		fprintf(w->out, "%s\n%*s{\"name\": ", it->printed ? "," : "", indent, "");
		pv_json_string(w->out, name);
		fputs(", \"kind\": \"more\", \"module\": null, \"file\": null, \"line\": null",
		      w->out);
		fputs(", \"total\": ", w->out);
		json_cost(w->out, v, 0, tot[0]);
		fputs(", \"self\": ", w->out);
		json_cost(w->out, v, 0, slf[0]);
		if (nm > 1) {
			fputs(", \"values\": [", w->out);
			for (uint32_t k = 0; k < nm; k++) {
				fputs(k ? ", {\"total\": " : "{\"total\": ", w->out);
				json_cost(w->out, v, k, tot[k]);
				fputs(", \"self\": ", w->out);
				json_cost(w->out, v, k, slf[k]);
				fputc('}', w->out);
			}
			fputc(']', w->out);
		}
		fprintf(w->out, ", \"more\": %u, \"children\": []}", it->more);
		return;
	}
	text_values(w->out, v, tp, sp, 0, false, ' ');
	text_name(w->out, depth, name);
	fputc('\n', w->out);
}

static void walk(struct walk *w, int indent0)
{
	const struct pv_tree *t = w->t;
	uint64_t budget = w->v->q.max_rows;
	uint32_t maxd = 2;
	for (uint32_t r = 0; r < t->len; r++)
		if (t->depth[r] + 2 > maxd)
			maxd = t->depth[r] + 2;
	struct level *st = malloc(sizeof(*st) * maxd);
	if (!st)
		return;
	uint32_t sp = 0;
	st[sp++] = (struct level){t->roots, t->nr_roots, 0, 0, 0, 0};
	while (sp) {
		struct level *it = &st[sp - 1];
		/* JSON is indented like the text, to INDENT_LEVELS */
		int ind = indent0 + 2 + indent_of(sp - 1);
		if (it->next == it->nr) {
			if (it->more) {
				more_row(w, it, ind);
				it->printed++;
			}
			sp--;
			if (w->json && sp) {
				if (it->printed)
					fprintf(w->out, "\n%*s]}", ind - 2, "");
				else
					fputs("]}", w->out);
			}
			continue;
		}
		uint32_t r = it->rows[it->next++];
		if (cut(w, r)) {
			count_cut(w, r);
			continue;
		}
		bool past_n = w->limit && it->printed >= w->limit;
		if (past_n || (budget && *w->shown >= budget)) {
			if (!it->more++)
				it->more_from = it->next - 1;
			if (past_n)
				w->cuts->limit += w->rows[r];
			else
				w->cuts->budget += w->rows[r];
			continue;
		}
		if (w->json) {
			fprintf(w->out, "%s\n%*s", it->printed ? "," : "", ind, "");
			json_row_head(w->out, w->v, t->kind[r], t->id[r], t->line[r],
				      t->inlined && t->inlined[r], t->total, t->self, r);
			if (t->estimated && t->estimated[r])
				fputs(", \"estimated\": true", w->out);
			fputs(", \"children\": [", w->out);
		} else {
			char b[512];
			/* a call-graph row with estimated costs: '~' before the name */
			text_values(w->out, w->v, t->total, t->self, r, false,
				    t->estimated && t->estimated[r] ? '~' : ' ');
			text_name(
			    w->out, t->depth[r],
			    pv_view_row_name(w->v, t->kind[r], t->id[r], b, sizeof(b), t->line[r]));
			inline_mark(w->out, t->kind[r], t->inlined && t->inlined[r]);
			row_suffix(w->out, w->v, t->kind[r], t->id[r], t->line[r]);
			fputc('\n', w->out);
		}
		it->printed++;
		(*w->shown)++;
		st[sp++] =
		    (struct level){t->children + t->child_first[r], t->child_len[r], 0, 0, 0, 0};
	}
	free(st);
}

static void print_tree(FILE *out, const struct pv_view *v, const struct pv_tree *t, bool json,
		       int indent0, uint64_t *shown, struct cuts *cuts)
{
	struct walk w = {out, v, t, json, v->q.depth, v->q.limit, 0, NULL, shown, cuts};
	if (v->q.min_percent > 0) {
		double c = (double)v->base[0] * v->q.min_percent / 100.0;
		w.min_cost = (int64_t)c;
		if ((double)w.min_cost < c)
			w.min_cost++;
	}
	w.rows = calloc(t->len ? t->len : 1, sizeof(*w.rows));
	if (!w.rows)
		return;
	for (uint32_t r = t->len; r-- > 0;) {
		w.rows[r] += 1;
		if (t->parent[r] != PV_NONE)
			w.rows[t->parent[r]] += w.rows[r];
	}
	walk(&w, indent0);
	free(w.rows);
}

static void text_footer(FILE *out, const struct pv_view *v, const struct cuts *c)
{
	if (c->pct)
		fprintf(out, "# %" PRIu64 " rows below %g%% not shown\n", c->pct, v->q.min_percent);
	if (c->depth)
		fprintf(out, "# %" PRIu64 " rows deeper than %u not shown\n", c->depth, v->q.depth);
	if (c->limit)
		fprintf(out, "# %" PRIu64 " rows past the first %u of a list not shown (-n)\n",
			c->limit, v->q.limit);
	if (c->budget)
		fprintf(out,
			"# %" PRIu64 " rows past the first %u printed not shown (--max-rows)\n",
			c->budget, v->q.max_rows);
}

static void json_open(FILE *out, const struct pv_view *v)
{
	fputs("{\"metric\": ", out);
	pv_json_string(out, metric_name(v, 0));
	fputs(", \"unit\": ", out);
	pv_json_string(out, pv_unit_name(unit_of(v, 0)));
	fputs(", \"total\": ", out);
	json_cost(out, v, 0, v->whole[0]);
	if (v->nr_metrics > 1) {
		fputs(", \"metrics\": [", out);
		for (uint32_t m = 0; m < v->nr_metrics; m++) {
			fprintf(out, "%s{\"name\": ", m ? ", " : "");
			pv_json_string(out, metric_name(v, m));
			fputs(", \"unit\": ", out);
			pv_json_string(out, pv_unit_name(unit_of(v, m)));
			if (pv_view_metric_formula(v, m)) {
				fputs(", \"formula\": ", out);
				pv_json_string(out, pv_view_metric_formula(v, m));
			}
			fputs(", \"total\": ", out);
			json_cost(out, v, m, v->whole[m]);
			fputc('}', out);
		}
		fputc(']', out);
	}
	fputs(", \"view\": ", out);
	pv_json_string(out, pv_view_name(v->q.view));
	if (v->centered) {
		fputs(", \"center\": {\"label\": ", out);
		pv_json_string(out, v->center_label);
		fprintf(out, ", \"total\": %" PRId64 "}", v->center[0]);
	}
	if (v->note) {
		fputs(", \"note\": ", out);
		pv_json_string(out, v->note);
	}
}

/* ---- flat and list ---- */

static void print_flat(FILE *out, const struct pv_view *v, bool json)
{
	const struct pv_flat *f = v->flat;
	bool list = v->q.view == PV_VIEW_TOP;
	uint32_t n = f->len;
	if (list && v->q.limit && v->q.limit < n)
		n = v->q.limit;
	if (json) {
		/* nested as module > file > function > (loops >) line: children arrays, as trees
		 * have */
		uint32_t cnt[PV_FLAT_LEVELS + 1] = {
		    0};		       /* rows printed so far in the open container of a level */
		int depth = -1;        /* level of the innermost open row */
		for (uint32_t r = 0; r < n; r++) {
			int lv = list ? 0 : f->level[r] - f->level[0];
			for (; depth >= lv; depth--)
				fprintf(out, cnt[depth + 1] ? "\n%*s]}" : "%*s]}",
					cnt[depth + 1] ? 2 * depth + 2 : 0, "");
			fprintf(out, "%s\n%*s", cnt[lv] ? "," : "", 2 * lv + 2, "");
			cnt[lv]++;
			json_row_head(out, v, f->kind[r], f->id[r], f->line[r],
				      f->inlined && f->inlined[r], f->total, f->self, r);
			if (v->centered)
				fprintf(out, ", \"in_center\": %s", f->in_center[r] ? "true" : "false");
			if (list) {
				fputc('}', out);
				continue;
			}
			fputs(", \"children\": [", out);
			depth = lv;
			cnt[lv + 1] = 0;
		}
		for (; depth >= 0; depth--)
			fprintf(out, cnt[depth + 1] ? "\n%*s]}" : "%*s]}",
				cnt[depth + 1] ? 2 * depth + 2 : 0, "");
		return;
	}
	text_columns(out, v, list && v->q.sort == PV_SORT_SELF);
	for (uint32_t r = 0; r < n; r++) {
		char b[512];
		text_values(out, v, f->total, f->self, r, list && v->q.sort == PV_SORT_SELF, ' ');
		int ind = list ? 0 : 2 * (f->level[r] - f->level[0]);
		fprintf(out, "%*s%s%s", ind, "", v->centered && f->in_center[r] ? "* " : "",
			pv_view_row_name(v, f->kind[r], f->id[r], b, sizeof(b), f->line[r]));
		inline_mark(out, f->kind[r], f->inlined && f->inlined[r]);
		row_suffix(out, v, f->kind[r], f->id[r], f->line[r]);
		fputc('\n', out);
	}
	if (n < f->len)
		fprintf(out, "# %u more rows not shown\n", f->len - n);
}

void pv_print_view(FILE *out, const struct pv_view *v, const struct pv_print_opts *o)
{
	bool json = o && o->json;
	struct cuts cuts = {0};
	uint64_t shown = 0;
	if (json) {
		json_open(out, v);
		if (v->q.view == PV_VIEW_BUTTERFLY) {
			fputs(", \"callers\": [", out);
			print_tree(out, v, v->callers, true, 0, &shown, &cuts);
			fputs(v->callers->nr_roots ? "\n]" : "]", out);
		}
		fputs(", \"rows\": [", out);
		if (v->flat)
			print_flat(out, v, true);
		else
			print_tree(out, v, v->tree, true, 0, &shown, &cuts);
		bool any = v->flat ? v->flat->len > 0 : v->tree->nr_roots > 0;
		fputs(any ? "\n]}\n" : "]}\n", out);
		return;
	}
	text_header(out, v, o);
	if (v->flat) {
		print_flat(out, v, false);
	} else if (v->q.view == PV_VIEW_BUTTERFLY) {
		fprintf(out, "# callers of %s (bottom-up)\n", v->center_label);
		text_columns(out, v, false);
		print_tree(out, v, v->callers, false, 0, &shown, &cuts);
		fprintf(out, "# callees of %s (top-down)\n", v->center_label);
		text_columns(out, v, false);
		print_tree(out, v, v->tree, false, 0, &shown, &cuts);
	} else {
		text_columns(out, v, false);
		print_tree(out, v, v->tree, false, 0, &shown, &cuts);
	}
	text_footer(out, v, &cuts);
}

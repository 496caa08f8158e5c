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

#include "base/alloc.h"
#include "format/internal.h"
#include "pv/format.h"
#include "view/naming.h"

const char *fmt_metric_title(char *buf, const struct pv_view *v, uint32_t m)
{
	struct pv_cost_unit cu;
	pv_view_cost_unit(v, m, &cu);
	const char *name = fmt_name(buf, fmt_column_name(v, m));
	if (name != buf) /* nothing to escape: the name itself */
		snprintf(buf, FMT_NAME, "%s", name);
	if (!cu.named && cu.name[0]) {
		size_t n = strlen(buf);
		snprintf(buf + n, FMT_NAME - n, " (%s)", cu.name);
	}
	return buf;
}

void fmt_cost_text(const struct pv_view *v, uint32_t m, char *buf, size_t n, int64_t x)
{
	pv_view_cost_text(v, m, x, PV_NUM_EXACT, buf, n);
}

void fmt_pct(char *buf, size_t n, int64_t v, int64_t whole)
{
	if (whole == 0)
		snprintf(buf, n, "-");
	else
		pv_pct_text(100.0 * (double)v / (double)whole, buf, n);
}

static enum pv_unit unit_of(const struct pv_view *v, uint32_t m)
{
	return pv_view_metric_unit(v, m);
}

const char *fmt_column_name(const struct pv_view *v, uint32_t m)
{
	static _Thread_local char buf[PV_QUERY_MAX][300];
	return pv_view_metric_name(v, m, buf[m % PV_QUERY_MAX], sizeof(buf[0]));
}

void json_column(struct pv_json *j, const struct pv_view *v, uint32_t m)
{
	pv_json_kstr(j, "name", fmt_column_name(v, m));
	pv_json_kstr(j, "unit", pv_unit_name(unit_of(v, m)));
	struct pv_cost_unit cu;
	pv_view_cost_unit(v, m, &cu);
	pv_json_key(j, "shown");
	pv_json_cost_unit(j, &cu);
	const char *formula = pv_view_metric_formula(v, m);
	if (formula) /* a derived metric */
		pv_json_kstr(j, "formula", formula);
}

void json_cost(struct pv_json *j, const struct pv_view *v, uint32_t m, int64_t x)
{
	char b[40];
	size_t n = pv_view_value_text(v, m, x, true, b, sizeof(b));
	pv_json_raw(j, b, n < sizeof(b) ? n : strlen(b));
}

/* Module, file and line of a row (a line row's own line). */
static void place(const struct pv_view *v, enum pv_row_kind kind, uint32_t id, uint32_t line,
		  pv_module_ix *m, pv_source_ix *s, uint32_t *fl)
{
	pv_view_row_place(v, kind, id, m, s, fl);
	if (kind == PV_ROW_LINE && line)
		*fl = line;
}

void fmt_row_suffix(FILE *out, const struct pv_view *v, enum pv_row_kind kind, uint32_t id,
		    uint32_t line)
{
	const struct pv_profile *p = v->p;
	pv_module_ix m;
	pv_source_ix s;
	uint32_t fl;
	place(v, kind, id, line, &m, &s, &fl);
	bool code = kind == PV_ROW_FUNCTION || kind == PV_ROW_LINE || kind == PV_ROW_LOOP;
	pv_func_ix f = pv_view_row_function(v, kind, id);
	if (f != PV_NONE && (kind == PV_ROW_LOOP || s != PV_NONE)) { /* its name says no function */
		char e[FMT_NAME];
		fprintf(out, "  in %s", fmt_name(e, pv_view_row_function_name(v, f)));
	}
	if (code && m != PV_NONE && p->modules.name[m]) {
		char b[64];
		const char *mn = pv_str(p, p->modules.name[m]);
		const char *fn = pv_view_row_name(v, kind, id, b, sizeof(b), 0);
		size_t ml = strlen(mn);
		int same = fn[0] == '[' && strncmp(fn + 1, mn, ml) == 0 && fn[ml + 1] == ']' &&
			   fn[ml + 2] == 0;
		char e[FMT_NAME];
		if (!same && strcmp(fn, mn) != 0)
			fprintf(out, mn[0] == '[' ? "  %s" : "  [%s]", fmt_name(e, mn));
	}
	if (code && s != PV_NONE && p->sources.path[s]) {
		char e[FMT_NAME];
		fprintf(out, "  %s", fmt_name(e, pv_str(p, p->sources.path[s])));
		uint32_t col = pv_view_row_column(v, kind, id);
		if (fl)
			fprintf(out, col ? ":%u:%u" : ":%u", fl, col);
	}
}

/* " (inline)" after the name of a row of kind inline (pv_row_kind_name) */
void fmt_inline_mark(FILE *out, enum pv_row_kind kind, bool inlined)
{
	if (strcmp(pv_row_kind_name(kind, inlined), "inline") == 0)
		fputs(" (inline)", out);
}

/* a string, or null when NULL or empty */
void json_nonempty(struct pv_json *j, const char *s)
{
	if (!s || !*s)
		pv_json_null(j);
	else
		pv_json_str(j, s);
}

void json_row_place(struct pv_json *j, const struct pv_view *v, enum pv_row_kind kind, uint32_t id,
		    uint32_t line)
{
	const struct pv_profile *p = v->p;
	pv_module_ix m;
	pv_source_ix s;
	uint32_t fl;
	place(v, kind, id, line, &m, &s, &fl);
	pv_json_key(j, "module");
	json_nonempty(j, m == PV_NONE ? NULL : pv_str(p, p->modules.name[m]));
	pv_json_key(j, "file");
	json_nonempty(j, s == PV_NONE ? NULL : pv_str(p, p->sources.path[s]));
	pv_json_key(j, "line");
	if (fl)
		pv_json_uint(j, fl);
	else
		pv_json_null(j);
	uint32_t col = pv_view_row_column(v, kind, id);
	if (col)
		pv_json_kuint(j, "column", col);
	pv_func_ix f = pv_view_row_function(v, kind, id);
	if (f != PV_NONE) /* a line's or a loop's function (its name says the file and line) */
		pv_json_kstr(j, "function", pv_view_row_function_name(v, f));
}

int json_scope_member(struct pv_json *j, int rc, const struct sbuf *scope)
{
	pv_json_key(j, "scope");
	if (rc > 0)
		pv_json_strn(j, scope->buf, scope->len);
	else
		pv_json_null(j);
	return rc < 0 ? rc : 0;
}

void json_thread(struct pv_json *j, const struct pv_profile *p, pv_thread_ix t)
{
	pv_json_kuint(j, "index", t);
	pv_json_kstr(j, "name", pv_str(p, p->threads.name[t]));
	pv_json_key(j, "tid");
	pv_json_int_or_null(j, p->threads.tid[t]);
}

/* total and self of the first metric, then "values" with every metric's when there are several */
static void json_costs(struct pv_json *j, const struct pv_view *v, int64_t *const *total,
		       int64_t *const *self, uint32_t r)
{
	pv_json_key(j, "total");
	json_cost(j, v, 0, total[0][r]);
	pv_json_key(j, "self");
	json_cost(j, v, 0, self[0][r]);
	if (v->nr_metrics < 2)
		return;
	pv_json_key(j, "values");
	pv_json_array(j);
	for (uint32_t k = 0; k < v->nr_metrics; k++) {
		pv_json_object(j);
		pv_json_key(j, "total");
		json_cost(j, v, k, total[k][r]);
		pv_json_key(j, "self");
		json_cost(j, v, k, self[k][r]);
		pv_json_end(j);
	}
	pv_json_end(j);
}

/* Opens a row's object with its name, kind, place and costs. */
static void json_row_head(struct pv_json *j, const struct pv_view *v, enum pv_row_kind kind,
			  uint32_t id, uint32_t line, bool inlined, int64_t *const *total,
			  int64_t *const *self, uint32_t r)
{
	char b[512];
	pv_json_object(j);
	pv_json_kstr(j, "name", pv_view_row_label(v, kind, id, b, sizeof(b), line));
	pv_json_kstr(j, "kind", pv_row_kind_name(kind, inlined));
	json_row_place(j, v, kind, id, line);
	json_costs(j, v, total, self, r);
}

/* ---- header ---- */

static void text_header(FILE *out, const struct pv_view *v, const struct pv_print_opts *o)
{
	char e1[FMT_NAME], e2[FMT_NAME], e3[FMT_NAME];
	for (uint32_t m = 0; m < v->nr_metrics; m++) {
		char tb[32];
		fmt_cost_text(v, m, tb, sizeof(tb), v->whole[m]);
		if (!*tb) /* a derived metric without a value for the whole */
			snprintf(tb, sizeof(tb), "-");
		const char *formula = pv_view_metric_formula(v, m);
		const char *threads =
		    fmt_name(e3, o && o->threads_label ? o->threads_label : "all threads");
		if (formula)
			fprintf(out, "# metric: %s = %s, total %s, %s\n",
				fmt_name(e1, fmt_column_name(v, m)), fmt_name(e2, formula), tb,
				threads);
		else
			fprintf(out, "# metric: %s, total %s, %s\n", fmt_metric_title(e1, v, m), tb,
				threads);
	}
	if (v->q.nr_filters || v->q.has_range || v->q.inlines != PV_INLINE_KEEP) {
		char *args = pv_query_to_args(&v->q);
		/* only the filter part: the whole query line is what --json prints */
		fprintf(out, "# query: %s\n", fmt_name(e1, args));
		free(args);
	}
	if (v->note)
		fprintf(out, "# %s\n", fmt_name(e1, v->note));
	if (v->centered) {
		char cb[32], pb[16];
		fmt_cost_text(v, 0, cb, sizeof(cb), v->center[0]);
		fmt_pct(pb, sizeof(pb), v->center[0], v->whole[0]);
		fprintf(out, "# center: %s, total %s (%s of the whole)\n",
			fmt_name(e1, v->center_label), cb, pb);
	}
	for (uint32_t m = 0; m < v->nr_metrics; m++) {
		if (v->lost[m]) {
			char lb[32];
			fmt_cost_text(v, m, lb, sizeof(lb), v->lost[m]);
			fprintf(
			    out,
			    "# %s: %s in samples that lost every frame to a filter (not shown)\n",
			    fmt_name(e1, fmt_column_name(v, m)), lb);
		}
	}
}

static void text_columns(FILE *out, const struct pv_view *v, bool self_first)
{
	for (uint32_t m = 0; m < v->nr_metrics; m++) {
		char a[64], b[64], e[FMT_NAME];
		if (v->nr_metrics == 1) {
			snprintf(a, sizeof(a), "%s", self_first ? "self" : "total");
			snprintf(b, sizeof(b), "%s", self_first ? "total" : "self");
		} else {
			const char *name = fmt_name(e, fmt_column_name(v, m));
			snprintf(a, sizeof(a), "%s %s", name, self_first ? "self" : "total");
			snprintf(b, sizeof(b), "%s %s", name, self_first ? "total" : "self");
		}
		fprintf(out, "%12s %8s %12s %8s  ", a, self_first ? "self%" : "total%", b,
			self_first ? "total%" : "self%");
	}
	fputs("name\n", out);
}

/* s right-aligned in width bytes at t, as printf's "%*s"; returns the bytes written. */
static size_t put_right(char *t, const char *s, size_t width)
{
	size_t n = strlen(s), pad = n < width ? width - n : 0;
	memset(t, ' ', pad);
	memcpy(t + pad, s, n);
	return pad + n;
}

/* The value columns of row r; mark is printed just before the name ('~': estimated). */
static void text_values(FILE *out, const struct pv_view *v, int64_t *const *total,
			int64_t *const *self, uint32_t r, bool self_first, char mark)
{
	for (uint32_t m = 0; m < v->nr_metrics; m++) {
		char tb[32], sb[32], tp[16], sp[16];
		fmt_cost_text(v, m, tb, sizeof(tb), total[m][r]);
		fmt_cost_text(v, m, sb, sizeof(sb), self[m][r]);
		fmt_pct(tp, sizeof(tp), total[m][r], v->base[m]);
		fmt_pct(sp, sizeof(sp), self[m][r], v->base[m]);
		if (pv_view_metric_derived(v, m)) /* a formula's value is no share of a whole */
			tp[0] = sp[0] = 0;
		/* "%12s %8s %12s %8s %c" by hand: a tree prints 100,000 rows of these */
		char line[sizeof(tb) + sizeof(tp) + sizeof(sb) + sizeof(sp) + 8];
		size_t n = put_right(line, self_first ? sb : tb, 12);
		line[n++] = ' ';
		n += put_right(line + n, self_first ? sp : tp, 8);
		line[n++] = ' ';
		n += put_right(line + n, self_first ? tb : sb, 12);
		line[n++] = ' ';
		n += put_right(line + n, self_first ? tp : sp, 8);
		line[n++] = ' ';
		line[n++] = m + 1 == v->nr_metrics ? mark : ' ';
		fwrite(line, 1, n, out);
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
struct walk {
	FILE *out;
	struct pv_json *j; /* JSON, else text on out */
	const struct pv_view *v;
	const struct pv_tree *t;
	uint32_t max_depth, limit;
	int64_t min_cost;
	uint64_t *rows;	 /* per row: rows in its subtree, itself included */
	uint64_t *shown; /* rows printed so far, for --max-rows */
	struct fmt_cuts *cuts;
	/* JSON: each row's scope (view/naming.h) */
	struct row_names names;
	struct sbuf scope;
	int err;
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
	bool tail_done;		  /* the roots: the tree's tail counted */
};

static int indent_of(uint32_t depth)
{
	return 2 * (int)(depth < INDENT_LEVELS ? depth : INDENT_LEVELS);
}

void fmt_text_name(FILE *out, uint32_t depth, const char *name)
{
	static const char spaces[] = "                                                  "
				     "                                                  ";
	_Static_assert(sizeof(spaces) > 2 * INDENT_LEVELS, "an indent of spaces");
	fwrite(spaces, 1, (size_t)indent_of(depth), out); /* (no printf a row) */
	if (depth > INDENT_LEVELS)
		fprintf(out, "[%u] ", depth);
	char e[FMT_NAME];
	fputs(fmt_name(e, name), out);
}

/* The "more" row of a list: the rows from more_from on that are not cut, summed. */
static void more_row(struct walk *w, const struct level *it)
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
	for (uint32_t m = 0; it->rows == t->roots && m < nm; m++) { /* the roots that are no rows */
		tot[m] += t->tail_total[m];
		slf[m] += t->tail_self[m];
	}
	for (uint32_t m = 0; m < nm; m++) {
		if (pv_view_metric_derived(v, m)) /* a formula's values do not add up */
			tot[m] = slf[m] = PV_VALUE_NONE;
		tp[m] = &tot[m];
		sp[m] = &slf[m];
	}
	char name[64];
	fmt_more_name(name, sizeof(name), it->more);
	uint32_t depth = t->depth[it->rows[0]];
	if (w->j) {
		struct pv_json *j = w->j;
		pv_json_object(j);
		pv_json_kstr(j, "name", name);
		pv_json_kstr(j, "kind", "more");
		pv_json_knull(j, "module");
		pv_json_knull(j, "file");
		pv_json_knull(j, "line");
		json_costs(j, v, tp, sp, 0);
		pv_json_kuint(j, "more", it->more);
		pv_json_key(j, "children");
		pv_json_array(j);
		pv_json_end(j);
		pv_json_end(j);
		return;
	}
	text_values(w->out, v, tp, sp, 0, false, ' ');
	fmt_text_name(w->out, depth, name);
	fputc('\n', w->out);
}

/* The rows of a list of children (JSON: on lines indented as the text is, to INDENT_LEVELS). */
static void json_children(struct walk *w, uint32_t level)
{
	pv_json_key(w->j, "children");
	pv_json_open(w->j, '[', PV_JSON_LINES, 2 + (uint32_t)indent_of(level));
}

static int walk(struct walk *w)
{
	const struct pv_tree *t = w->t;
	uint64_t budget = w->v->q.max_rows;
	uint32_t maxd = 2;
	for (uint32_t r = 0; r < t->len; r++)
		if (t->depth[r] + 2 > maxd)
			maxd = t->depth[r] + 2;
	struct level *st = pv_malloc(sizeof(*st) * maxd);
	if (!st)
		return PV_ENOMEM;
	uint32_t sp = 0;
	st[sp++] = (struct level){t->roots, t->nr_roots, 0, 0, 0, 0, false};
	while (sp) {
		struct level *it = &st[sp - 1];
		if (it->next == it->nr && sp == 1 && !it->tail_done) {
			/*
			 * The roots that are no rows (struct pv_tree's tail): past every bound, as
			 * they come after the roots in order, or cut by --min-percent; all leaves.
			 */
			it->tail_done = true;
			w->cuts->pct += t->tail_cut;
			if (t->tail_roots && !it->more)
				it->more_from = it->nr;
			it->more += t->tail_roots;
			if (w->limit && it->printed >= w->limit)
				w->cuts->limit += t->tail_roots;
			else
				w->cuts->budget += t->tail_roots;
		}
		if (it->next == it->nr) {
			if (it->more) {
				more_row(w, it);
				it->printed++;
			}
			sp--;
			if (w->j && sp) { /* the children of a row, and the row */
				pv_json_end(w->j);
				pv_json_end(w->j);
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
		if (w->j) {
			json_row_head(w->j, w->v, t->kind[r], t->id[r], t->line[r],
				      t->inlined && t->inlined[r], t->total, t->self, r);
			/* (no path: scope: a stack N deep would print N^2 names) */
			if (json_scope_member(w->j,
					      row_scope(w->v, &w->names, t->kind[r], t->id[r],
							t->line[r], &w->scope),
					      &w->scope))
				w->err = PV_ENOMEM;
			if (t->estimated && t->estimated[r])
				pv_json_kbool(w->j, "estimated", true);
			json_children(w, sp);
		} else {
			char b[512];
			/* a call-graph row with estimated costs: '~' before the name */
			text_values(w->out, w->v, t->total, t->self, r, false,
				    t->estimated && t->estimated[r] ? '~' : ' ');
			fmt_text_name(w->out, t->depth[r],
				      pv_view_row_label(w->v, t->kind[r], t->id[r], b, sizeof(b),
							t->line[r]));
			fmt_inline_mark(w->out, t->kind[r], t->inlined && t->inlined[r]);
			fmt_row_suffix(w->out, w->v, t->kind[r], t->id[r], t->line[r]);
			fputc('\n', w->out);
		}
		it->printed++;
		(*w->shown)++;
		st[sp++] = (struct level){
		    t->children + t->child_first[r], t->child_len[r], 0, 0, 0, 0, false};
	}
	pv_free(st);
	return w->err;
}

/* A tree's rows: in JSON, the array of key (opened here, closed by the caller). */
static int print_tree(FILE *out, struct pv_json *j, const char *key, const struct pv_view *v,
		      const struct pv_tree *t, uint64_t *shown, struct fmt_cuts *cuts)
{
	struct walk w = {.out = out,
			 .j = j,
			 .v = v,
			 .t = t,
			 .max_depth = v->q.depth,
			 .limit = v->q.limit,
			 .min_cost = pv_query_min_cost(&v->q, v->base[0]),
			 .shown = shown,
			 .cuts = cuts};
	if (j) {
		pv_json_key(j, key);
		pv_json_open(j, '[', PV_JSON_LINES, 2);
	}
	w.rows = pv_calloc(t->len ? t->len : 1, sizeof(*w.rows));
	if (!w.rows)
		return PV_ENOMEM;
	for (uint32_t r = t->len; r-- > 0;) {
		w.rows[r] += 1;
		if (t->parent[r] != PV_NONE)
			w.rows[t->parent[r]] += w.rows[r];
	}
	int rc = walk(&w);
	pv_free(w.rows);
	row_names_release(&w.names);
	sbuf_release(&w.scope);
	return rc;
}

void fmt_cuts_footer(FILE *out, const struct pv_query *q, const struct fmt_cuts *c)
{
#define ROWS(n) (n), (n) == 1 ? "" : "s"
	if (c->pct)
		fprintf(out, "# %" PRIu64 " row%s below %g%% not shown\n", ROWS(c->pct),
			q->min_percent);
	if (c->depth)
		fprintf(out, "# %" PRIu64 " row%s deeper than %u not shown\n", ROWS(c->depth),
			q->depth);
	if (c->limit)
		fprintf(out, "# %" PRIu64 " row%s past the first %u of a list not shown (-n)\n",
			ROWS(c->limit), q->limit);
	if (c->budget)
		fprintf(out,
			"# %" PRIu64 " row%s past the first %u printed not shown (--max-rows)\n",
			ROWS(c->budget), q->max_rows);
#undef ROWS
}

void fmt_more_name(char *buf, size_t size, uint32_t n)
{
	snprintf(buf, size, "... %u more row%s", n, n == 1 ? "" : "s");
}

static void json_head(struct pv_json *j, const struct pv_view *v)
{
	pv_json_object(j);
	pv_json_kstr(j, "metric", fmt_column_name(v, 0));
	pv_json_kstr(j, "unit", pv_unit_name(unit_of(v, 0)));
	pv_json_key(j, "total");
	json_cost(j, v, 0, v->whole[0]);
	if (v->nr_metrics > 1) {
		pv_json_key(j, "metrics");
		pv_json_array(j);
		for (uint32_t m = 0; m < v->nr_metrics; m++) {
			pv_json_object(j);
			json_column(j, v, m);
			pv_json_key(j, "total");
			json_cost(j, v, m, v->whole[m]);
			pv_json_end(j);
		}
		pv_json_end(j);
	}
	pv_json_kstr(j, "view", pv_view_name(v->q.view));
	if (v->centered) {
		pv_json_key(j, "center");
		pv_json_object(j);
		pv_json_kstr(j, "label", v->center_label);
		pv_json_kint(j, "total", v->center[0]);
		pv_json_end(j);
	}
	if (v->note)
		pv_json_kstr(j, "note", v->note);
}

/* ---- flat and list ---- */

static int print_flat(FILE *out, struct pv_json *j, const struct pv_view *v)
{
	const struct pv_flat *f = v->flat;
	bool list = pv_view_kind(v->q.view)->list;
	uint32_t n = f->len;
	if (list && v->q.limit && v->q.limit < n)
		n = v->q.limit;
	if (j) {
		/* nested as module > file > function > line: children arrays, as trees have */
		int depth = -1; /* level of the innermost open row */
		uint32_t anc[PV_FLAT_LEVELS] = {0};
		struct row_names names = {0};
		struct sbuf scope = SBUF_INIT;
		int rc = 0;
		pv_json_key(j, "rows");
		pv_json_open(j, '[', PV_JSON_LINES, 2);
		for (uint32_t r = 0; r < n; r++) {
			int lv = list ? 0 : f->level[r] - f->level[0];
			for (; depth >= lv; depth--) {
				pv_json_end(j);
				pv_json_end(j);
			}
			if (!list)
				anc[f->level[r]] = r;
			json_row_head(j, v, f->kind[r], f->id[r], f->line[r],
				      f->inlined && f->inlined[r], f->total, f->self, r);
			if (!rc)
				rc = json_scope_member(j, flat_row_scope(v, &names, anc, r, &scope),
						       &scope);
			if (v->centered)
				pv_json_kbool(j, "in_center", f->in_center[r]);
			if (list) {
				pv_json_end(j);
				continue;
			}
			pv_json_key(j, "children");
			pv_json_open(j, '[', PV_JSON_LINES, 2 * (uint32_t)lv + 4);
			depth = lv;
		}
		for (; depth >= 0; depth--) {
			pv_json_end(j);
			pv_json_end(j);
		}
		row_names_release(&names);
		sbuf_release(&scope);
		return rc;
	}
	bool self_first = list && pv_query_sort(&v->q) == PV_SORT_SELF;
	text_columns(out, v, self_first);
	for (uint32_t r = 0; r < n; r++) {
		char b[512], e[FMT_NAME];
		text_values(out, v, f->total, f->self, r, self_first, ' ');
		int ind = list ? 0 : 2 * (f->level[r] - f->level[0]);
		fprintf(out, "%*s%s%s", ind, "", v->centered && f->in_center[r] ? "* " : "",
			fmt_name(e, pv_view_row_label(v, f->kind[r], f->id[r], b, sizeof(b),
						      f->line[r])));
		fmt_inline_mark(out, f->kind[r], f->inlined && f->inlined[r]);
		fmt_row_suffix(out, v, f->kind[r], f->id[r], f->line[r]);
		fputc('\n', out);
	}
	if (n < f->len)
		fprintf(out, "# %u more row%s not shown\n", f->len - n, f->len - n == 1 ? "" : "s");
	return 0;
}

int pv_print_view(FILE *out, const struct pv_view *v, const struct pv_print_opts *o)
{
	struct fmt_cuts cuts = {0};
	uint64_t shown = 0;
	int rc = 0;
	if (o && o->json) {
		struct pv_json *j = pv_json_new(out);
		if (!j)
			return PV_ENOMEM;
		json_head(j, v);
		unsigned outs = pv_view_kind(v->q.view)->outputs;
		if (outs & PV_OUT_CALLERS) {
			rc = print_tree(out, j, "callers", v, v->callers, &shown, &cuts);
			pv_json_end(j);
		}
		if (!rc && (outs & PV_OUT_FLAT))
			rc = print_flat(out, j, v);
		else if (!rc)
			rc = print_tree(out, j, "rows", v, v->tree, &shown, &cuts);
		pv_json_end(j);
		pv_json_end(j);
		pv_json_eol(j);
		int frc = pv_json_finish(j);
		pv_json_free(j);
		return rc ? rc : frc;
	}
	text_header(out, v, o);
	unsigned outs = pv_view_kind(v->q.view)->outputs;
	if (outs & PV_OUT_FLAT) {
		rc = print_flat(out, NULL, v);
	} else if (outs & PV_OUT_CALLERS) {
		char e[FMT_NAME];
		fprintf(out, "# callers of %s (bottom-up)\n", fmt_name(e, v->center_label));
		text_columns(out, v, false);
		rc = print_tree(out, NULL, NULL, v, v->callers, &shown, &cuts);
		fprintf(out, "# callees of %s (top-down)\n", fmt_name(e, v->center_label));
		text_columns(out, v, false);
		if (!rc)
			rc = print_tree(out, NULL, NULL, v, v->tree, &shown, &cuts);
	} else {
		text_columns(out, v, false);
		rc = print_tree(out, NULL, NULL, v, v->tree, &shown, &cuts);
	}
	fmt_cuts_footer(out, &v->q, &cuts);
	return rc ? rc : ferror(out) ? PV_EIO : 0;
}

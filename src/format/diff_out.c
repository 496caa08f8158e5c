/*
 * diff_out.c - text and JSON output of the difference of two profiles (pv/diff.h).
 *
 * Every output prints as a tree of diff rows (a list's rows are all roots), depth first with an
 * explicit stack, cut as the query asks (--depth, --min-percent of the larger side's share,
 * -n rows of each list, --max-rows in all); the footer counts the rows cut. Per column: the
 * base's cost and its share of the base, the new's and its share, the delta and the delta
 * relative to the base. Names and places come from the view of the side that has the row.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "format/internal.h"
#include "pv/diff.h"
#include "pv/format.h"
#include "view/naming.h"

/* The column each row shows: a list's sort column (self, or self for --sort delta), else the
 * total. */
static bool self_column(const struct pv_diff *d)
{
	const struct pv_query *q = &d->v[1]->q;
	return pv_view_kind(q->view)->list && pv_query_sort(q) != PV_SORT_TOTAL;
}

/* The delta relative to the base: "+12.34%", "new" with no base, "-" when both are 0. */
static void rel_text(char *buf, size_t n, int64_t base, int64_t delta)
{
	if (base == 0)
		snprintf(buf, n, delta ? "new" : "-");
	else
		snprintf(buf, n, "%+.2f%%", 100.0 * (double)delta / (double)base);
}

static void signed_cost(const struct pv_view *v, uint32_t m, char *buf, size_t n, int64_t x)
{
	if (n < 2)
		return;
	buf[0] = '+';
	fmt_cost_text(v, m, buf + (x > 0), n - 1, x);
}

/* ---- text ---- */

static void text_header(FILE *out, const struct pv_diff *d, const struct pv_print_opts *o)
{
	const struct pv_view *vn = d->v[1], *vb = d->v[0];
	char e1[FMT_NAME], e2[FMT_NAME];
	fprintf(out, "# diff: base %s, new %s\n",
		fmt_name(e1, o && o->base_label ? o->base_label : "(base)"),
		fmt_name(e2, o && o->new_label ? o->new_label : "(new)"));
	for (uint32_t m = 0; m < d->nr_metrics; m++) {
		char bt[48], nt[48], dt[48], rt[32];
		fmt_cost_text(vn, m, bt, sizeof(bt), vb->whole[m]);
		fmt_cost_text(vn, m, nt, sizeof(nt), vn->whole[m]);
		signed_cost(vn, m, dt, sizeof(dt), vn->whole[m] - vb->whole[m]);
		rel_text(rt, sizeof(rt), vb->whole[m], vn->whole[m] - vb->whole[m]);
		fprintf(out, "# metric: %s, base total %s, new total %s, delta %s (%s), %s\n",
			fmt_metric_title(e1, vn, m), bt, nt, dt, rt,
			fmt_name(e2, o && o->threads_label ? o->threads_label : "all threads"));
	}
	if (d->normalize)
		fprintf(out, "# normalized: the base's costs scaled by new total / base total, so "
			     "deltas compare shares\n");
	if (vn->q.nr_filters || vn->q.has_range || vn->q.inlines != PV_INLINE_KEEP) {
		char *args = pv_query_to_args(&vn->q);
		fprintf(out, "# query: %s\n", fmt_name(e1, args));
		free(args);
	}
	if (vn->centered) {
		char cb[48], nb[48];
		fmt_cost_text(vn, 0, cb, sizeof(cb), vb->center[0]);
		fmt_cost_text(vn, 0, nb, sizeof(nb), vn->center[0]);
		fprintf(out, "# center: %s, base total %s, new total %s\n",
			fmt_name(e1, vn->center_label), cb, nb);
	}
}

static void text_columns(FILE *out, const struct pv_diff *d)
{
	const char *col = self_column(d) ? "self" : "total";
	for (uint32_t m = 0; m < d->nr_metrics; m++) {
		char pre[300] = "", e[FMT_NAME];
		if (d->nr_metrics > 1)
			snprintf(pre, sizeof(pre), "%s ", fmt_name(e, fmt_column_name(d->v[1], m)));
		char a[400], b[400], c[400];
		snprintf(a, sizeof(a), "%sbase %s", pre, col);
		snprintf(b, sizeof(b), "%snew %s", pre, col);
		snprintf(c, sizeof(c), "%sdelta", pre);
		fprintf(out, "%12s %8s %12s %8s %12s %9s  ", a, "base%", b, "new%", c, "delta%");
	}
	fputs("name\n", out);
}

static void text_values(FILE *out, const struct pv_diff *d, int64_t *const *cb, int64_t *const *cn,
			uint32_t r)
{
	const struct pv_view *v = d->v[1];
	for (uint32_t m = 0; m < d->nr_metrics; m++) {
		char b[48], bp[16], n[48], np[16], dl[48], rl[32];
		int64_t x = cb[m][r], y = cn[m][r];
		fmt_cost_text(v, m, b, sizeof(b), x);
		fmt_pct(bp, sizeof(bp), x, d->whole[0][m]);
		fmt_cost_text(v, m, n, sizeof(n), y);
		fmt_pct(np, sizeof(np), y, d->whole[1][m]);
		signed_cost(v, m, dl, sizeof(dl), y - x);
		rel_text(rl, sizeof(rl), x, y - x);
		fprintf(out, "%12s %8s %12s %8s %12s %9s  ", b, bp, n, np, dl, rl);
	}
}

/* ---- the walk (text and JSON) ---- */

struct dwalk {
	FILE *out;
	struct pv_json *j;
	const struct pv_diff *d;
	const struct pv_diff_rows *t;
	const struct pv_tree *vt[2]; /* each side's tree (NULL: the flat rows) */
	bool flat;
	int64_t min_cost;
	uint64_t *rows;
	uint64_t *shown;
	struct fmt_cuts *cuts;
	/* JSON: each row's scope, in the profile of the side that names it */
	struct row_names names[2];
	struct sbuf scope;
	int err;
};

static int64_t larger(const struct pv_diff_rows *t, uint32_t r)
{
	int64_t a = t->total[0][0][r], b = t->total[1][0][r];
	a = a < 0 ? -a : a;
	b = b < 0 ? -b : b;
	return a > b ? a : b;
}

/* The row of side s's output that diff row r names: its kind, id, line, inlined flag. */
static void side_row(const struct dwalk *w, uint32_t r, const struct pv_view **v, uint8_t *kind,
		     uint32_t *id, uint32_t *line, bool *inlined)
{
	int s = pv_diff_row_side(w->t, r);
	uint32_t x = w->t->row[s][r];
	*v = w->d->v[s];
	if (w->flat) {
		const struct pv_flat *f = (*v)->flat;
		*kind = f->kind[x];
		*id = f->id[x];
		*line = f->line[x];
		*inlined = f->inlined && f->inlined[x];
	} else {
		const struct pv_tree *t = w->vt[s];
		*kind = t->kind[x];
		*id = t->id[x];
		*line = t->line[x];
		*inlined = t->inlined && t->inlined[x];
	}
}

static void json_side(struct pv_json *j, const char *key, int64_t total, int64_t self)
{
	pv_json_key(j, key);
	pv_json_object(j);
	pv_json_kint(j, "total", total);
	pv_json_kint(j, "self", self);
	pv_json_end(j);
}

static void json_row_costs(struct pv_json *j, const struct pv_diff *d, const struct pv_diff_rows *t,
			   uint32_t r)
{
	for (uint32_t m = 0; m < d->nr_metrics; m++) {
		if (m == 1) {
			pv_json_key(j, "values");
			pv_json_array(j);
		}
		if (m)
			pv_json_object(j);
		int64_t bt = t->total[0][m][r], bs = t->self[0][m][r];
		int64_t nt = t->total[1][m][r], ns = t->self[1][m][r];
		json_side(j, "base", bt, bs);
		json_side(j, "new", nt, ns);
		json_side(j, "delta", nt - bt, ns - bs);
		if (m)
			pv_json_end(j);
	}
	if (d->nr_metrics > 1)
		pv_json_end(j);
}

/* The scope of diff row r in its side's profile (row_scope's answer, w->scope its text): a flat
 * row's file under a module names the file in that module. */
static int row_scope_of(struct dwalk *w, uint32_t r)
{
	int s = pv_diff_row_side(w->t, r);
	const struct pv_view *v = w->d->v[s];
	uint32_t x = w->t->row[s][r];
	if (!w->flat) {
		const struct pv_tree *t = w->vt[s];
		return row_scope(v, &w->names[s], t->kind[x], t->id[x], t->line[x], &w->scope);
	}
	uint32_t anc[PV_FLAT_LEVELS] = {0}, level = v->flat->level[x];
	if (level && w->t->parent[r] != PV_NONE)
		anc[level - 1] = w->t->row[s][w->t->parent[r]];
	else if (level) /* no row above: nothing to name the file in */
		return row_scope(v, &w->names[s], v->flat->kind[x], v->flat->id[x],
				 v->flat->line[x], &w->scope);
	return flat_row_scope(v, &w->names[s], anc, x, &w->scope);
}

static void print_row(struct dwalk *w, uint32_t r, uint32_t level)
{
	const struct pv_view *v;
	uint8_t kind;
	uint32_t id, line;
	bool inl;
	char b[512];
	side_row(w, r, &v, &kind, &id, &line, &inl);
	enum pv_diff_side side = pv_diff_side_of(w->t, r);
	const char *name = pv_view_row_label(v, kind, id, b, sizeof(b), line);
	if (w->j) {
		struct pv_json *j = w->j;
		pv_json_object(j);
		pv_json_kstr(j, "name", name);
		pv_json_kstr(j, "kind", pv_row_kind_name(kind, inl));
		json_row_place(j, v, kind, id, line);
		if (json_scope_member(j, row_scope_of(w, r), &w->scope))
			w->err = PV_ENOMEM;
		pv_json_kstr(j, "side", pv_diff_side_name(side));
		json_row_costs(j, w->d, w->t, r);
		pv_json_key(j, "children");
		pv_json_open(j, '[', PV_JSON_LINES, 4 + 2 * (level < 50 ? level : 50));
		return;
	}
	bool self = self_column(w->d);
	text_values(w->out, w->d, self ? w->t->self[0] : w->t->total[0],
		    self ? w->t->self[1] : w->t->total[1], r);
	fmt_text_name(w->out, level, name);
	fmt_inline_mark(w->out, kind, inl);
	fmt_row_suffix(w->out, v, kind, id, line);
	if (side != PV_DIFF_BOTH)
		fprintf(w->out, "  (%s only)", pv_diff_side_name(side));
	fputc('\n', w->out);
}

/* "... N more rows": the rows of a list past -n or --max-rows, summed. */
static void more_row(struct dwalk *w, const uint32_t *list, uint32_t from, uint32_t nr,
		     uint32_t count, uint32_t level)
{
	uint32_t nm = w->d->nr_metrics;
	bool self = self_column(w->d) && !w->j;
	int64_t sum[2][2][PV_QUERY_MAX] = {{{0}}};
	int64_t *col[2][2][PV_QUERY_MAX];
	for (uint32_t i = from; i < nr; i++)
		for (int s = 0; s < 2; s++)
			for (uint32_t m = 0; m < nm; m++) {
				sum[s][0][m] += w->t->total[s][m][list[i]];
				sum[s][1][m] += w->t->self[s][m][list[i]];
			}
	for (int s = 0; s < 2; s++)
		for (int c = 0; c < 2; c++)
			for (uint32_t m = 0; m < nm; m++)
				col[s][c][m] = &sum[s][c][m];
	char name[64];
	fmt_more_name(name, sizeof(name), count);
	if (w->j) {
		struct pv_json *j = w->j;
		pv_json_object(j);
		pv_json_kstr(j, "name", name);
		pv_json_kstr(j, "kind", "more");
		pv_json_kuint(j, "more", count);
		struct pv_diff_rows one = {.total = {col[0][0], col[1][0]},
					   .self = {col[0][1], col[1][1]}};
		json_row_costs(j, w->d, &one, 0);
		pv_json_key(j, "children");
		pv_json_array(j);
		pv_json_end(j);
		pv_json_end(j);
		return;
	}
	text_values(w->out, w->d, col[0][self], col[1][self], 0);
	fmt_text_name(w->out, level, name);
	fputc('\n', w->out);
}

struct dlevel {
	const uint32_t *rows;
	uint32_t nr, next, printed, more_from, more;
};

static int walk(struct dwalk *w)
{
	const struct pv_diff_rows *t = w->t;
	const struct pv_query *q = &w->d->v[1]->q;
	uint32_t maxd = 2;
	for (uint32_t r = 0; r < t->len; r++)
		if (t->depth[r] + 2 > maxd)
			maxd = t->depth[r] + 2;
	struct dlevel *st = pv_malloc(sizeof(*st) * maxd);
	w->rows = pv_calloc(t->len ? t->len : 1, sizeof(*w->rows));
	if (!st || !w->rows) {
		pv_free(st);
		pv_free(w->rows);
		return PV_ENOMEM;
	}
	for (uint32_t r = t->len; r-- > 0;) {
		w->rows[r] += 1;
		if (t->parent[r] != PV_NONE)
			w->rows[t->parent[r]] += w->rows[r];
	}
	uint32_t sp = 0;
	st[sp++] = (struct dlevel){t->roots, t->nr_roots, 0, 0, 0, 0};
	while (sp) {
		struct dlevel *it = &st[sp - 1];
		if (it->next == it->nr) {
			if (it->more)
				more_row(w, it->rows, it->more_from, it->nr, it->more, sp - 1);
			sp--;
			if (w->j && sp) {
				pv_json_end(w->j);
				pv_json_end(w->j);
			}
			continue;
		}
		uint32_t r = it->rows[it->next++];
		if (w->min_cost > 0 && larger(t, r) < w->min_cost) {
			w->cuts->pct += w->rows[r];
			continue;
		}
		if (q->depth && t->depth[r] >= q->depth) {
			w->cuts->depth += w->rows[r];
			continue;
		}
		bool past_n = q->limit && it->printed >= q->limit;
		if (past_n || (q->max_rows && *w->shown >= q->max_rows)) {
			if (!it->more++)
				it->more_from = it->next - 1;
			if (past_n)
				w->cuts->limit += w->rows[r];
			else
				w->cuts->budget += w->rows[r];
			continue;
		}
		print_row(w, r, sp - 1);
		it->printed++;
		(*w->shown)++;
		st[sp++] =
		    (struct dlevel){t->children + t->child_first[r], t->child_len[r], 0, 0, 0, 0};
	}
	pv_free(st);
	pv_free(w->rows);
	return w->err;
}

static int print_rows(FILE *out, struct pv_json *j, const char *key, const struct pv_diff *d,
		      int which, uint64_t *shown, struct fmt_cuts *cuts)
{
	struct dwalk w = {.out = out, .j = j, .d = d, .shown = shown, .cuts = cuts};
	const struct pv_query *q = &d->v[1]->q;
	if (which == 2) {
		w.t = d->flat;
		w.flat = true;
	} else {
		w.t = which ? d->callers : d->tree;
		for (int s = 0; s < 2; s++)
			w.vt[s] = which ? d->v[s]->callers : d->v[s]->tree;
	}
	w.min_cost = pv_query_min_cost(q, d->v[1]->base[0] > d->v[0]->base[0] ? d->v[1]->base[0]
									      : d->v[0]->base[0]);
	if (j) {
		pv_json_key(j, key);
		pv_json_open(j, '[', PV_JSON_LINES, 2);
	}
	int rc = walk(&w);
	if (j)
		pv_json_end(j);
	row_names_release(&w.names[0]);
	row_names_release(&w.names[1]);
	sbuf_release(&w.scope);
	return rc;
}

int pv_json_diff(struct pv_json *j, const struct pv_diff *d)
{
	const struct pv_view *vn = d->v[1], *vb = d->v[0];
	pv_json_object(j);
	pv_json_kstr(j, "metric", fmt_column_name(vn, 0));
	pv_json_kstr(j, "unit", pv_unit_name(pv_view_metric_unit(vn, 0)));
	pv_json_kbool(j, "normalize", d->normalize);
	pv_json_key(j, "metrics");
	pv_json_array(j);
	for (uint32_t m = 0; m < d->nr_metrics; m++) {
		pv_json_object(j);
		pv_json_kstr(j, "name", fmt_column_name(vn, m));
		pv_json_kstr(j, "base_name", fmt_column_name(vb, m));
		pv_json_kstr(j, "unit", pv_unit_name(pv_view_metric_unit(vn, m)));
		struct pv_cost_unit cu;
		pv_view_cost_unit(vn, m, &cu);
		pv_json_key(j, "shown");
		pv_json_cost_unit(j, &cu);
		pv_json_kint(j, "base_total", vb->whole[m]);
		pv_json_kint(j, "base_scaled", d->whole[0][m]);
		pv_json_kint(j, "new_total", vn->whole[m]);
		pv_json_end(j);
	}
	pv_json_end(j);
	pv_json_kstr(j, "view", pv_view_name(vn->q.view));
	pv_json_kstr(j, "sort",
		     vn->q.sort == PV_SORT_DELTA ? "delta"
		     : self_column(d)		 ? "self"
						 : "total");
	/* the column the text shows (and the page): a list's self, else the total */
	pv_json_kstr(j, "column", self_column(d) ? "self" : "total");
	if (vn->centered) {
		pv_json_key(j, "center");
		pv_json_object(j);
		pv_json_kstr(j, "label", vn->center_label);
		pv_json_kint(j, "base_total", vb->center[0]);
		pv_json_kint(j, "new_total", vn->center[0]);
		pv_json_end(j);
	}
	struct fmt_cuts cuts = {0};
	uint64_t shown = 0;
	int rc = 0;
	if (d->callers)
		rc = print_rows(NULL, j, "callers", d, 1, &shown, &cuts);
	if (!rc)
		rc = print_rows(NULL, j, "rows", d, d->flat ? 2 : 0, &shown, &cuts);
	pv_json_end(j);
	pv_json_eol(j);
	return rc ? rc : pv_json_error(j);
}

int pv_print_diff(FILE *out, const struct pv_diff *d, const struct pv_print_opts *o)
{
	if (o && o->json) {
		struct pv_json *j = pv_json_new(out);
		if (!j)
			return PV_ENOMEM;
		int rc = pv_json_diff(j, d);
		int frc = pv_json_finish(j);
		pv_json_free(j);
		return rc ? rc : frc;
	}
	struct fmt_cuts cuts = {0};
	uint64_t shown = 0;
	int rc = 0;
	const struct pv_view *vn = d->v[1];
	text_header(out, d, o);
	if (d->callers) {
		char e[FMT_NAME];
		fprintf(out, "# callers of %s (bottom-up)\n", fmt_name(e, vn->center_label));
		text_columns(out, d);
		rc = print_rows(out, NULL, NULL, d, 1, &shown, &cuts);
		fprintf(out, "# callees of %s (top-down)\n", fmt_name(e, vn->center_label));
	}
	text_columns(out, d);
	if (!rc)
		rc = print_rows(out, NULL, NULL, d, d->flat ? 2 : 0, &shown, &cuts);
	fmt_cuts_footer(out, &vn->q, &cuts);
	return rc ? rc : ferror(out) ? PV_EIO : 0;
}

/*
 * page_out.c - the JSON of the page's answers (doc/api.md): a view's rows with their keys,
 * scopes and paths, one row's children, the flame graph, per-thread costs, a source file with
 * its line costs, the activity graph and the marker chart. web/ writes each endpoint's answer
 * with them, and the CLI's `flame --json` and `activity --json` print the same.
 *
 * A view answer is cut from one computed view, never a whole tree: the roots and the children
 * of the open rows only (or one row's children), so the work past pv_view_compute is
 * proportional to what is sent. Walks use an explicit stack: trees may be deep.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "format/internal.h"
#include "pv/diff.h"
#include "pv/disasm.h"
#include "pv/format.h"
#include "pv/graphs.h"
#include "view/naming.h"

/* ---- pieces ---- */

/* One value per column: integers, a derived metric's numbers, null for none (json_cost). */
static void json_values(struct pv_json *j, const struct pv_view *v, const int64_t *x)
{
	pv_json_array(j);
	for (uint32_t m = 0; m < v->nr_metrics; m++)
		json_cost(j, v, m, x[m]);
	pv_json_end(j);
}

static void json_costs(struct pv_json *j, const struct pv_view *v, int64_t *const *col, uint32_t r)
{
	pv_json_array(j);
	for (uint32_t m = 0; m < v->nr_metrics; m++)
		json_cost(j, v, m, col[m][r]);
	pv_json_end(j);
}

static const char *metric_unit(const struct pv_view *v, uint32_t m)
{
	return pv_unit_name(pv_view_metric_unit(v, m));
}

static void json_metrics(struct pv_json *j, const struct pv_view *v)
{
	pv_json_array(j);
	for (uint32_t m = 0; m < v->nr_metrics; m++) {
		pv_json_object(j);
		json_column(j, v, m);
		pv_json_end(j);
	}
	pv_json_end(j);
}

static const char *row_name(const struct pv_view *v, uint8_t kind, uint32_t id, uint32_t line,
			    char *buf, size_t n)
{
	return pv_view_row_label(v, (enum pv_row_kind)kind, id, buf, n, line);
}

/* The member "scope" of a row (kind, id, line). */
static int json_scope(struct pv_json *j, const struct pv_view *v, struct row_names *nm,
		      uint8_t kind, uint32_t id, uint32_t line, struct sbuf *scope)
{
	return json_scope_member(j, row_scope(v, nm, kind, id, line, scope), scope);
}

/* The member "category" (an index of the profile's categories) of a function or line row whose
 * function has one; cat: pv_func_categories (NULL: no function has one). */
static void json_category(struct pv_json *j, const struct pv_view *v, const pv_cat_ix *cat,
			  uint8_t kind, uint32_t id)
{
	if (cat && (kind == PV_ROW_FUNCTION || kind == PV_ROW_LINE) && id < v->p->funcs.len &&
	    cat[id] != PV_NONE)
		pv_json_kuint(j, "category", cat[id]);
}

/* ---- tree rows ---- */

struct emit {
	struct pv_json *j;
	const struct pv_view *v;
	const struct pv_tree *t;
	enum path_mode mode;
	struct sbuf key, path, scope, tmp;
	struct row_names names;
	pv_cat_ix *cat; /* each function's category (pv_func_categories), NULL: none */
	uint64_t sent;	/* rows written, at most the query's max_rows */
	/* bytes of keys and paths written, and at most (pv_key_text_budget) */
	uint64_t text, text_budget;
	int err;
};

static void emit_init(struct emit *e, struct pv_json *j, const struct pv_view *v,
		      const struct pv_tree *t)
{
	memset(e, 0, sizeof(*e));
	e->j = j;
	e->v = v;
	e->t = t;
	e->mode = path_mode_of(v, t);
	if (pv_func_categories(v->p, &e->cat))
		e->err = PV_ENOMEM;
	uint64_t rows = t->len;
	if (v->q.max_rows && v->q.max_rows < rows)
		rows = v->q.max_rows;
	e->text_budget = pv_key_text_budget(rows);
}

static void emit_release(struct emit *e)
{
	sbuf_release(&e->key);
	sbuf_release(&e->path);
	sbuf_release(&e->scope);
	sbuf_release(&e->tmp);
	row_names_release(&e->names);
	pv_free(e->cat);
}

static void tree_row(struct emit *e, uint32_t r, size_t plen)
{
	const struct pv_view *v = e->v;
	const struct pv_tree *t = e->t;
	struct pv_json *j = e->j;
	char b[512];
	pv_json_object(j);
	pv_json_key(j, "key");
	pv_json_strn(j, sbuf_str(&e->key), e->key.len);
	pv_json_kstr(j, "name", row_name(v, t->kind[r], t->id[r], t->line[r], b, sizeof(b)));
	pv_json_kstr(j, "kind",
		     pv_row_kind_name((enum pv_row_kind)t->kind[r], t->inlined && t->inlined[r]));
	json_row_place(j, v, (enum pv_row_kind)t->kind[r], t->id[r], t->line[r]);
	pv_json_kuint(j, "depth", t->depth[r]);
	pv_json_key(j, "total");
	json_costs(j, v, t->total, r);
	pv_json_key(j, "self");
	json_costs(j, v, t->self, r);
	if (t->estimated && t->estimated[r])
		pv_json_kbool(j, "estimated", true); /* a call-graph row away from the center */
	pv_json_kuint(j, "children", t->child_len[r]);
	if (json_scope(j, v, &e->names, t->kind[r], t->id[r], t->line[r], &e->scope))
		e->err = PV_ENOMEM;
	pv_json_key(j, "path");
	if (plen != NO_PATH && t->kind[r] == PV_ROW_FUNCTION) {
		sbuf_reset(&e->tmp);
		if (sbuf_puts(&e->tmp, "path:") || sbuf_put(&e->tmp, e->path.buf, plen))
			e->err = PV_ENOMEM;
		pv_json_strn(j, sbuf_str(&e->tmp), e->tmp.len);
	} else {
		pv_json_null(j);
	}
	json_category(j, v, e->cat, t->kind[r], t->id[r]);
	pv_json_end(j);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static bool is_open(const uint32_t *open, uint32_t n, uint32_t r)
{
	return n && bsearch(&r, open, n, sizeof(*open), cmp_u32) != NULL;
}

struct frame {
	uint32_t row; /* PV_NONE: the list the walk starts from */
	uint32_t next, stop;
	size_t klen, plen;
};

/*
 * The placeholder of the rows from..n of list that a per-parent limit left out: kind "more",
 * key PARENT/+FROM (+FROM for roots), the parent's key, the offset to ask children for, how
 * many rows are left and their summed costs.
 */
static void more_row(struct emit *e, const uint32_t *list, uint32_t from, uint32_t n, bool sep,
		     size_t klen, uint32_t depth)
{
	const struct pv_view *v = e->v;
	const struct pv_tree *t = e->t;
	struct pv_json *j = e->j;
	int64_t total[PV_QUERY_MAX] = {0}, self[PV_QUERY_MAX] = {0};
	for (uint32_t i = from; i < n; i++) {
		for (uint32_t m = 0; m < v->nr_metrics; m++) {
			total[m] += t->total[m][list[i]];
			self[m] += t->self[m][list[i]];
		}
	}
	for (uint32_t m = 0; m < v->nr_metrics; m++) /* a formula's values do not add up */
		if (pv_view_metric_derived(v, m))
			total[m] = self[m] = PV_VALUE_NONE;
	char tail[32], name[64];
	snprintf(tail, sizeof(tail), "%s+%u", sep ? "/" : "", from);
	snprintf(name, sizeof(name), "\u2026 %u more row%s", n - from, n - from == 1 ? "" : "s");
	sbuf_setlen(&e->key, klen);
	if (sbuf_set(&e->tmp, e->key.buf, klen) || sbuf_puts(&e->tmp, tail))
		e->err = PV_ENOMEM;
	pv_json_object(j);
	pv_json_key(j, "key");
	pv_json_strn(j, sbuf_str(&e->tmp), e->tmp.len);
	pv_json_kstr(j, "name", name);
	pv_json_kstr(j, "kind", "more");
	pv_json_key(j, "parent");
	pv_json_strn(j, sbuf_str(&e->key), klen);
	pv_json_kuint(j, "offset", from);
	pv_json_kuint(j, "more", n - from);
	pv_json_kuint(j, "depth", depth);
	pv_json_key(j, "total");
	json_values(j, v, total);
	pv_json_key(j, "self");
	json_values(j, v, self);
	pv_json_kuint(j, "children", 0);
	pv_json_end(j);
}

/*
 * Writes the rows of list from offset on (n rows in all; their parent's key is e->key, plen its
 * path) in pre-order, with the children of every open row (and of the center row) when
 * recurse. With limit (0: none), at most limit rows of each list, then a "more" row for the
 * rest. One frame per open level: the work is the rows written.
 */
static int emit_rows(struct emit *e, const uint32_t *list, uint32_t n, uint32_t offset,
		     uint32_t limit, bool sep, size_t plen, const uint32_t *open, uint32_t nopen,
		     bool recurse)
{
	const struct pv_tree *t = e->t;
	uint32_t cap = 16, sp = 0;
	uint64_t budget = e->v->q.max_rows;
	bool oom = false;
	struct frame *st = pv_malloc(sizeof(*st) * cap);
	if (!st)
		return PV_ENOMEM;
	if (offset > n)
		offset = n;
	uint32_t stop = limit && n - offset > limit ? offset + limit : n;
	st[sp++] = (struct frame){PV_NONE, offset, stop, e->key.len, plen};
	while (sp) {
		struct frame *f = &st[sp - 1];
		const uint32_t *rows =
		    f->row == PV_NONE ? list : t->children + t->child_first[f->row];
		uint32_t nr = f->row == PV_NONE ? n : t->child_len[f->row];
		if (f->next == f->stop) {
			if (f->stop < nr) {
				uint32_t depth =
				    f->row == PV_NONE ? t->depth[rows[0]] : t->depth[f->row] + 1;
				more_row(e, rows, f->stop, nr, f->row != PV_NONE || sep, f->klen,
					 depth);
			}
			sp--;
			continue;
		}
		if ((budget && e->sent >= budget) || e->text >= e->text_budget) {
			/* past max-rows or the text of keys and paths: the rest of each open list
			 * is a MORE row */
			f->stop = f->next;
			continue;
		}
		uint32_t r = rows[f->next++];
		sbuf_setlen(&e->key, f->klen);
		if (((f->row != PV_NONE || sep) && sbuf_put(&e->key, "/", 1)) ||
		    key_add(&e->key, t->kind[r], t->id[r], t->line[r]))
			e->err = PV_ENOMEM;
		size_t rp = path_step(e->v, &e->names, t, e->mode, r, f->plen, &e->path, &oom);
		tree_row(e, r, rp);
		e->sent++;
		e->text += e->key.len + (rp == NO_PATH ? 0 : rp);
		if (recurse && t->child_len[r] &&
		    (t->kind[r] == PV_ROW_CENTER || is_open(open, nopen, r))) {
			if (sp == cap) {
				struct frame *ns = pv_realloc(st, sizeof(*st) * cap * 2);
				if (!ns) {
					pv_free(st);
					return PV_ENOMEM;
				}
				st = ns;
				cap *= 2;
			}
			uint32_t nk = t->child_len[r];
			st[sp++] =
			    (struct frame){r, 0, limit && nk > limit ? limit : nk, e->key.len, rp};
		}
	}
	pv_free(st);
	return e->err || oom ? PV_ENOMEM : 0;
}

/* The keys of the k chain rows (prefix first) as strings of the open array; only the last one
 * (a value of its own) with last. */
static int chain_keys(struct pv_json *j, const struct pv_tree *t, const char *prefix,
		      const uint32_t *chain, uint32_t k, bool last)
{
	struct sbuf key = SBUF_INIT;
	int rc = sbuf_puts(&key, prefix);
	for (uint32_t i = 0; i < k && !rc; i++) {
		if ((i && sbuf_put(&key, "/", 1)) ||
		    key_add(&key, t->kind[chain[i]], t->id[chain[i]], t->line[chain[i]])) {
			rc = PV_ENOMEM;
			break;
		}
		if (!last || i + 1 == k)
			pv_json_strn(j, key.buf, key.len);
	}
	sbuf_release(&key);
	return rc;
}

/*
 * The rows of tree t as the member name (keys start with prefix), opening the rows named by
 * open keys and the nchain rows of chain, at most limit rows of each list (0: all).
 */
static int emit_tree(struct pv_json *j, const char *name, const struct pv_view *v,
		     const struct pv_tree *t, const char *prefix, const char *const *open_keys,
		     uint32_t nkeys, const uint32_t *chain, uint32_t nchain, uint32_t limit)
{
	uint32_t *open = pv_malloc(sizeof(*open) * (nkeys + nchain ? nkeys + nchain : 1));
	if (!open)
		return PV_ENOMEM;
	uint32_t nopen = 0;
	for (uint32_t i = 0; i < nchain; i++)
		open[nopen++] = chain[i];
	size_t pl = strlen(prefix);
	for (uint32_t i = 0; i < nkeys; i++) {
		const char *k = open_keys[i];
		if (strncmp(k, prefix, pl) != 0 ||
		    (!pl && (strncmp(k, "up:", 3) == 0 || strncmp(k, "down:", 5) == 0)))
			continue;
		/* keys of rows not in this view (kept by the page across queries) are skipped */
		uint32_t r = tree_find_key(t, k + pl);
		if (r != PV_NONE)
			open[nopen++] = r;
	}
	qsort(open, nopen, sizeof(*open), cmp_u32);
	struct emit e;
	emit_init(&e, j, v, t);
	pv_json_key(j, name);
	pv_json_open(j, '[', PV_JSON_LINES, 0);
	int rc = sbuf_puts(&e.key, prefix);
	if (!rc)
		rc = emit_rows(&e, t->roots, t->nr_roots, 0, limit, false,
			       e.mode == PATH_ROOT ? 0 : NO_PATH, open, nopen, true);
	pv_json_end(j);
	emit_release(&e);
	pv_free(open);
	return rc;
}

/* ---- flat and top rows ---- */

/*
 * Flat rows from..to (to excluded); with only_level (< PV_FLAT_LEVELS), only those of that level
 * (the children of a row). anc holds the ancestors of from by level.
 */
static int emit_flat(struct pv_json *j, const struct pv_view *v, uint32_t from, uint32_t to,
		     uint32_t *anc, uint32_t only_level)
{
	const struct pv_flat *f = v->flat;
	bool list = pv_view_kind(v->q.view)->list;
	struct sbuf key = SBUF_INIT, scope = SBUF_INIT;
	struct row_names nm = {0};
	char b[512];
	pv_cat_ix *cat = NULL;
	int rc = pv_func_categories(v->p, &cat);
	for (uint32_t r = from; r < to && !rc; r++) {
		if (!list)
			anc[f->level[r]] = r;
		if (only_level < PV_FLAT_LEVELS && f->level[r] != only_level)
			continue;
		rc = flat_key(&key, f, list, anc, r);
		pv_json_object(j);
		pv_json_key(j, "key");
		pv_json_strn(j, sbuf_str(&key), key.len);
		pv_json_kstr(j, "name",
			     row_name(v, f->kind[r], f->id[r], f->line[r], b, sizeof(b)));
		pv_json_kstr(
		    j, "kind",
		    pv_row_kind_name((enum pv_row_kind)f->kind[r], f->inlined && f->inlined[r]));
		pv_json_kuint(j, "level", f->level[r]);
		pv_json_kbool(j, "in_center", f->in_center[r]);
		json_row_place(j, v, (enum pv_row_kind)f->kind[r], f->id[r], f->line[r]);
		pv_json_key(j, "total");
		json_costs(j, v, f->total, r);
		pv_json_key(j, "self");
		json_costs(j, v, f->self, r);
		if (!rc)
			rc = json_scope_member(j, flat_row_scope(v, &nm, anc, r, &scope), &scope);
		json_category(j, v, cat, f->kind[r], f->id[r]);
		pv_json_end(j);
	}
	pv_free(cat);
	sbuf_release(&key);
	sbuf_release(&scope);
	row_names_release(&nm);
	return rc;
}

/* ---- view ---- */

static int view_head(struct pv_json *j, const struct pv_view *v)
{
	char *qj = pv_query_to_json(&v->q), *url = pv_query_to_url(&v->q);
	pv_json_object(j);
	pv_json_key(j, "query");
	if (qj)
		pv_json_raw(j, qj, strlen(qj));
	else
		pv_json_null(j);
	pv_json_kstr(j, "url", url ? url : "");
	pv_free(qj);
	pv_free(url);
	pv_json_kstr(j, "view", pv_view_name(v->q.view));
	pv_json_key(j, "metrics");
	json_metrics(j, v);
	pv_json_key(j, "whole");
	json_values(j, v, v->whole);
	pv_json_key(j, "center_total");
	json_values(j, v, v->center);
	pv_json_key(j, "nostack");
	json_values(j, v, v->nostack);
	pv_json_key(j, "base"); /* a derived metric's values are no share of it: null */
	pv_json_array(j);
	for (uint32_t m = 0; m < v->nr_metrics; m++) {
		if (pv_view_metric_derived(v, m))
			pv_json_null(j);
		else
			json_cost(j, v, m, v->base[m]);
	}
	pv_json_end(j);
	pv_json_kbool(j, "centered", v->centered);
	pv_json_key(j, "center_label");
	json_nonempty(j, v->centered ? v->center_label : NULL);
	pv_json_kuint(j, "samples", v->nr_samples);
	if (v->note)
		pv_json_kstr(j, "note", v->note);
	return qj && url ? 0 : PV_ENOMEM;
}

int pv_json_view(struct pv_json *j, const struct pv_view *v, const struct pv_view_answer *a)
{
	uint32_t heaviest = a->heaviest < PV_HEAVIEST_MAX ? a->heaviest : PV_HEAVIEST_MAX;
	/* the heaviest paths: of the tree, or of the butterfly's callers (up) and callees */
	uint32_t up[PV_HEAVIEST_MAX], down[PV_HEAVIEST_MAX], nup = 0, ndown = 0;
	const struct pv_tree *up_tree =
	    pv_view_kind(v->q.view)->outputs & PV_OUT_CALLERS ? v->callers : NULL;
	const struct pv_tree *down_tree = v->flat ? NULL : v->tree;
	if (up_tree)
		nup = pv_tree_heaviest(up_tree, heaviest, up);
	if (down_tree)
		ndown = pv_tree_heaviest(down_tree, heaviest, down);
	bool opened = a->opened;
	bool first = false;
	if (a->first && down_tree) {
		if (pv_view_first_path(v, down_tree, down, PV_HEAVIEST_MAX, &ndown))
			return PV_ENOMEM;
		opened = first = true;
	}
	struct pv_row_ref hot;
	if (a->hot && !v->flat && pv_view_find(v, a->hot, &hot) && hot.row != PV_NONE) {
		/* the path from the root to the row, then the hot path on from it */
		bool is_up = hot.tree == up_tree;
		uint32_t *chain = is_up ? up : down, n = 0;
		for (uint32_t r = hot.row; r != PV_NONE && n < PV_HEAVIEST_MAX;
		     r = hot.tree->parent[r])
			n++;
		if (n < PV_HEAVIEST_MAX) {
			for (uint32_t r = hot.row, k = n; r != PV_NONE; r = hot.tree->parent[r])
				chain[--k] = r;
			double fraction = (a->hot_percent ? a->hot_percent : 1) / 100.0;
			n += pv_tree_hot_path(hot.tree, hot.row, fraction, chain + n - 1,
					      PV_HEAVIEST_MAX - n + 1) -
			     1;
			*(is_up ? &nup : &ndown) = n;
			opened = true;
		}
	}
	int rc = view_head(j, v);
	if (opened) {
		pv_json_key(j, "opened");
		pv_json_array(j);
		if (!rc && nup)
			rc = chain_keys(j, up_tree, "up:", up, nup, false);
		if (!rc && ndown)
			rc = chain_keys(j, down_tree, up_tree ? "down:" : "", down, ndown, false);
		pv_json_end(j);
	}
	if (first) {
		pv_json_key(j, "selected");
		if (!rc && ndown)
			rc = chain_keys(j, down_tree, up_tree ? "down:" : "", down, ndown, true);
		else
			pv_json_null(j);
	}
	if (rc) {
		/* out of memory: the caller replaces the answer */
	} else if (v->flat) {
		const struct pv_flat *f = v->flat;
		uint32_t from = a->offset < f->len ? a->offset : f->len;
		uint32_t to = a->limit < f->len - from ? from + a->limit : f->len;
		uint32_t anc[PV_FLAT_LEVELS] = {0};
		/* the ancestors of the first row sent: one pass over the rows before it */
		if (!pv_view_kind(v->q.view)->list)
			for (uint32_t r = 0; r < from; r++)
				anc[f->level[r]] = r;
		pv_json_kuint(j, "nr_rows", f->len);
		pv_json_key(j, "rows");
		pv_json_open(j, '[', PV_JSON_LINES, 0);
		rc = emit_flat(j, v, from, to, anc, PV_FLAT_LEVELS);
		pv_json_end(j);
	} else if (up_tree) {
		rc = emit_tree(j, "callers", v, v->callers, "up:", a->open, a->nr_open, up, nup,
			       a->per_parent);
		if (!rc)
			rc = emit_tree(j, "rows", v, v->tree, "down:", a->open, a->nr_open, down,
				       ndown, a->per_parent);
	} else {
		rc = emit_tree(j, "rows", v, v->tree, "", a->open, a->nr_open, down, ndown,
			       a->per_parent);
	}
	pv_json_end(j);
	pv_json_eol(j);
	return rc ? rc : pv_json_error(j);
}

/* The children of ref (from offset, at most limit), and under them the rows of open (sorted)
 * recursively: pv_json_children and pv_json_subtree. */
static int json_children(struct pv_json *j, const struct pv_view *v, const char *key,
			 const struct pv_row_ref *ref, uint32_t offset, uint32_t limit,
			 const uint32_t *open, uint32_t nopen, uint32_t expanded)
{
	int rc = 0;
	pv_json_object(j);
	if (open) {
		pv_json_kstr(j, "key", key);
		pv_json_kuint(j, "expanded", expanded);
	}
	pv_json_key(j, "rows");
	pv_json_open(j, '[', PV_JSON_LINES, 0);
	if (ref->tree) {
		const struct pv_tree *t = ref->tree;
		struct emit e;
		bool oom = false;
		emit_init(&e, j, v, t);
		bool roots = ref->row == PV_NONE;
		size_t plen = roots ? (e.mode == PATH_ROOT ? 0 : NO_PATH)
				    : path_of(v, &e.names, t, ref->row, &e.path, &oom);
		const uint32_t *list = roots ? t->roots : t->children + t->child_first[ref->row];
		uint32_t n = roots ? t->nr_roots : t->child_len[ref->row];
		rc = sbuf_puts(&e.key, key);
		if (!rc)
			rc = emit_rows(&e, list, n, offset, limit, !roots, plen, open, nopen,
				       open != NULL);
		emit_release(&e);
		if (oom)
			rc = PV_ENOMEM;
	} else if (!pv_view_kind(v->q.view)->list) {
		const struct pv_flat *f = v->flat;
		uint32_t anc[PV_FLAT_LEVELS] = {0}, lv = f->level[ref->row];
		for (uint32_t r = 0; r <= ref->row; r++)
			anc[f->level[r]] = r;
		uint32_t end = ref->row + 1;
		while (end < f->len && f->level[end] > lv)
			end++;
		rc = emit_flat(j, v, ref->row + 1, end, anc, lv + 1);
	}
	pv_json_end(j);
	pv_json_end(j);
	pv_json_eol(j);
	return rc ? rc : pv_json_error(j);
}

int pv_json_children(struct pv_json *j, const struct pv_view *v, const char *key,
		     const struct pv_row_ref *ref, uint32_t offset, uint32_t limit)
{
	return json_children(j, v, key, ref, offset, limit, NULL, 0, 0);
}

int pv_json_subtree(struct pv_json *j, const struct pv_view *v, const char *key,
		    const struct pv_row_ref *ref, int64_t min_total)
{
	uint32_t *rows = NULL, n = 0;
	uint64_t cap = v->q.max_rows ? v->q.max_rows : UINT32_MAX;
	if (!ref->tree)
		return json_children(j, v, key, ref, 0, 0, NULL, 0, 0);
	if (pv_tree_expand(ref->tree, ref->row, min_total, (uint32_t)cap, &rows, &n))
		return PV_ENOMEM;
	if (n)
		qsort(rows, n, sizeof(*rows), cmp_u32);
	static const uint32_t none;
	int rc = json_children(j, v, key, ref, 0, 0, rows ? rows : &none, n, n);
	pv_free(rows);
	return rc;
}

/* ---- the flame graph ---- */

/* The view's tree row of flame node n (a diff's node: the new view's row) and the diff's rows
 * of its graph (NULL: not a diff). */
static uint32_t flame_row(const struct pv_flame *fl, uint32_t n, const struct pv_diff_rows **dr)
{
	*dr = NULL;
	if (!fl->diff || fl->row[n] == PV_NONE)
		return fl->row[n];
	*dr = fl->graph[n] ? fl->diff->callers : fl->diff->tree;
	return (*dr)->row[1][fl->row[n]];
}

/* Opens node n's object (key, name, scope: what the page's menu acts on, never the display
 * name; total, self) and its "children" array. Returns 0 or PV_ENOMEM. */
static int flame_open(struct pv_json *j, const struct pv_flame *fl, uint32_t n,
		      const struct sbuf *key, struct row_names *nm, struct sbuf *scope,
		      const pv_cat_ix *cat)
{
	int rc = 0;
	const struct pv_view *v = fl->v;
	const struct pv_tree *t = fl->graph[n] ? v->callers : v->tree;
	const struct pv_diff_rows *dr;
	uint32_t r = flame_row(fl, n, &dr);
	char b[512];
	pv_json_object(j);
	pv_json_key(j, "key");
	pv_json_strn(j, sbuf_str(key), key->len);
	if (r == PV_NONE) {
		int64_t tot = 0;
		for (uint32_t i = 0; i < t->nr_roots; i++)
			tot += t->total[0][t->roots[i]];
		pv_json_kstr(j, "name", "(all)");
		pv_json_knull(j, "scope");
		pv_json_kint(j, "total", tot);
		pv_json_kint(j, "self", 0);
		if (fl->diff) {
			const struct pv_diff_rows *g =
			    fl->graph[n] ? fl->diff->callers : fl->diff->tree;
			int64_t bt = 0;
			for (uint32_t i = 0; i < g->nr_roots; i++)
				bt += g->total[0][0][g->roots[i]];
			pv_json_kint(j, "base", bt);
			pv_json_kint(j, "base_self", 0);
		}
	} else {
		pv_json_kstr(j, "name",
			     row_name(v, t->kind[r], t->id[r], t->line[r], b, sizeof(b)));
		rc = json_scope(j, v, nm, t->kind[r], t->id[r], t->line[r], scope);
		pv_json_kint(j, "total", t->total[0][r]);
		pv_json_kint(j, "self", t->self[0][r]);
		if (dr) {
			pv_json_kint(j, "base", dr->total[0][0][fl->row[n]]);
			pv_json_kint(j, "base_self", dr->self[0][0][fl->row[n]]);
		}
		json_category(j, v, cat, t->kind[r], t->id[r]);
	}
	pv_json_key(j, "children");
	pv_json_array(j);
	return rc;
}

/*
 * Writes node n and its kept descendants. A virtual root is the node "(all)" of key ""; the
 * keys below it start with prefix.
 */
static int flame_write(struct pv_json *j, const struct pv_flame *fl, uint32_t n, const char *prefix)
{
	const struct pv_view *v = fl->v;
	const struct pv_tree *t = fl->graph[n] ? v->callers : v->tree;
	struct sbuf key = SBUF_INIT, scope = SBUF_INIT;
	struct row_names nm = {0};
	uint32_t cap = 16, sp = 0;
	struct fframe {
		uint32_t node, child;
		size_t klen;
	} *st = pv_malloc(sizeof(*st) * cap);
	int rc = st ? 0 : PV_ENOMEM;
	pv_cat_ix *cat = NULL;
	if (pv_func_categories(v->p, &cat))
		rc = PV_ENOMEM;
	const struct pv_diff_rows *dr;
	uint32_t r0 = flame_row(fl, n, &dr);
	if (!rc && r0 != PV_NONE)
		rc = sbuf_puts(&key, prefix) || key_add(&key, t->kind[r0], t->id[r0], t->line[r0]);
	if (flame_open(j, fl, n, &key, &nm, &scope, cat))
		rc = PV_ENOMEM;
	if (!rc && fl->row[n] == PV_NONE)
		rc = sbuf_puts(&key, prefix);
	if (!rc)
		st[sp++] = (struct fframe){n, fl->first[n], key.len};
	while (sp && !rc) {
		struct fframe *f = &st[sp - 1];
		uint32_t c = f->child;
		if (c == PV_NONE) {
			pv_json_end(j);
			pv_json_end(j);
			sp--;
			continue;
		}
		f->child = fl->next[c];
		sbuf_setlen(&key, f->klen);
		uint32_t r = flame_row(fl, c, &dr);
		if ((fl->row[f->node] != PV_NONE && sbuf_put(&key, "/", 1)) ||
		    key_add(&key, t->kind[r], t->id[r], t->line[r]))
			rc = PV_ENOMEM;
		if (flame_open(j, fl, c, &key, &nm, &scope, cat))
			rc = PV_ENOMEM;
		if (sp == cap) {
			struct fframe *ns = pv_realloc(st, sizeof(*st) * cap * 2);
			if (!ns) {
				rc = PV_ENOMEM;
				break;
			}
			st = ns;
			cap *= 2;
		}
		st[sp++] = (struct fframe){c, fl->first[c], key.len};
	}
	pv_free(st);
	pv_free(cat);
	sbuf_release(&key);
	sbuf_release(&scope);
	row_names_release(&nm);
	return rc ? PV_ENOMEM : 0;
}

/* The center node of a centered graph (the virtual root's only child), or a zero node. */
static int flame_center(struct pv_json *j, const struct pv_flame *fl, uint32_t root,
			const char *prefix)
{
	if (fl->first[root] != PV_NONE)
		return flame_write(j, fl, fl->first[root], prefix);
	char key[8];
	snprintf(key, sizeof(key), "%sc", prefix);
	pv_json_object(j);
	pv_json_kstr(j, "key", key);
	pv_json_kstr(j, "name", fl->v->center_label ? fl->v->center_label : "");
	pv_json_knull(j, "scope");
	pv_json_kint(j, "total", 0);
	pv_json_kint(j, "self", 0);
	pv_json_key(j, "children");
	pv_json_array(j);
	pv_json_end(j);
	pv_json_end(j);
	return 0;
}

int pv_json_flame(struct pv_json *j, const struct pv_flame *fl)
{
	const struct pv_view *v = fl->v;
	int rc;
	pv_json_object(j);
	pv_json_kstr(j, "metric", fmt_column_name(v, 0));
	pv_json_kstr(j, "unit", metric_unit(v, 0));
	struct pv_cost_unit cu;
	pv_view_cost_unit(v, 0, &cu);
	pv_json_key(j, "shown");
	pv_json_cost_unit(j, &cu);
	pv_json_kint(j, "total", v->whole[0]);
	if (fl->diff) {
		pv_json_kint(j, "base_total", fl->diff->whole[0][0]);
		pv_json_kbool(j, "normalize", fl->diff->normalize);
	}
	pv_json_key(j, "callees");
	if (fl->nr_graphs == 2) {
		rc = flame_center(j, fl, 0, "down:");
		pv_json_key(j, "callers");
		if (!rc)
			rc = flame_center(j, fl, 1, "up:");
	} else {
		rc = flame_write(j, fl, 0, "");
		pv_json_knull(j, "callers");
	}
	pv_json_end(j);
	pv_json_eol(j);
	return rc ? rc : pv_json_error(j);
}

/* ---- per-thread costs ---- */

int pv_json_thread_costs(struct pv_json *j, const struct pv_view *v, const char *key,
			 const struct pv_row_ref *ref, const struct pv_thread_costs *tc)
{
	const struct pv_profile *p = v->p;
	uint32_t nm = tc->nr_metrics;
	char b[512];
	pv_json_object(j);
	pv_json_kstr(j, "key", key);
	if (ref->tree)
		pv_json_kstr(j, "name",
			     row_name(v, ref->tree->kind[ref->row], ref->tree->id[ref->row],
				      ref->tree->line[ref->row], b, sizeof(b)));
	else
		pv_json_kstr(j, "name",
			     row_name(v, v->flat->kind[ref->row], v->flat->id[ref->row],
				      v->flat->line[ref->row], b, sizeof(b)));
	pv_json_key(j, "metrics");
	json_metrics(j, v);
	pv_json_kbool(j, "truncated", tc->truncated);
	pv_json_key(j, "threads");
	pv_json_open(j, '[', PV_JSON_LINES, 0);
	for (uint32_t i = 0; i < tc->nr_threads; i++) {
		pv_thread_ix t = tc->thread[i];
		pv_json_object(j);
		json_thread(j, p, t);
		/* a thread whose query failed (not expected: "#N" always picks it) has no cost */
		if (tc->known[i]) {
			pv_json_key(j, "total");
			json_values(j, v, tc->total + (size_t)i * nm);
			pv_json_key(j, "self");
			json_values(j, v, tc->self + (size_t)i * nm);
		} else {
			pv_json_knull(j, "total");
			pv_json_knull(j, "self");
		}
		pv_json_end(j);
	}
	pv_json_end(j);
	pv_json_end(j);
	pv_json_eol(j);
	return pv_json_error(j);
}

/* ---- source ---- */

/* "addr": a line's addresses (pv_source_addrs), hexadecimal text (JSON numbers stop at 2^53). */
static void json_line_addrs(struct pv_json *j, const struct pv_source_addrs *sa, uint32_t ln)
{
	char buf[24];
	pv_json_key(j, "addr");
	pv_json_object(j);
	pv_json_kuint(j, "n", sa->n[ln]);
	const char *keys[3] = {"lo", "hi", "hot"};
	const uint64_t vals[3] = {sa->lo[ln], sa->hi[ln], sa->hot[ln]};
	for (int k = 0; k < 3; k++) {
		snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)vals[k]);
		pv_json_kstr(j, keys[k], buf);
	}
	pv_json_kint(j, "hot_self", sa->hot_self[ln]);
	pv_json_end(j);
}

int pv_json_source(struct pv_json *j, const struct pv_view *v, const struct pv_query *q,
		   pv_source_ix id, const char *text, size_t len)
{
	const struct pv_profile *p = v->p;
	uint32_t nlines = 0, *centers = NULL, ncenters = 0;
	for (size_t i = 0; i < len; i++)
		nlines += text[i] == '\n';
	if (len && text[len - 1] != '\n')
		nlines++;
	struct pv_source_costs *sc = NULL;
	struct pv_source_addrs *sa = NULL;
	struct pv_error err = {0};
	int rc = pv_source_costs(v, id, nlines, &sc);
	if (!rc)
		rc = pv_source_center_lines(p, q, id, &centers, &ncenters);
	if (!rc)
		rc = pv_source_addrs(p, q, id, nlines, &sa, &err);
	if (rc) {
		pv_source_costs_free(sc);
		pv_free(centers);
		return rc;
	}
	uint32_t nm = sc->nr_metrics;
	struct sbuf scope = {0};
	pv_json_object(j);
	pv_json_kuint(j, "id", id);
	pv_json_kstr(j, "path", pv_str(p, p->sources.path[id]));
	pv_json_key(j, "metrics");
	json_metrics(j, v);
	pv_json_kbool(j, "addresses", sa != NULL);
	pv_json_key(j, "center_lines");
	pv_json_array(j);
	for (uint32_t k = 0; k < ncenters; k++)
		pv_json_uint(j, centers[k]);
	pv_json_end(j);
	pv_json_key(j, "lines");
	pv_json_open(j, '[', PV_JSON_LINES, 0);
	size_t at = 0;
	for (uint32_t ln = 1; ln <= nlines; ln++) {
		size_t e = at;
		while (e < len && text[e] != '\n')
			e++;
		size_t tl = e - at;
		if (tl && text[at + tl - 1] == '\r')
			tl--;
		pv_json_object(j);
		pv_json_kuint(j, "line", ln);
		pv_json_key(j, "text");
		pv_json_strn(j, text + at, tl);
		for (int k = 0; k < 2; k++) {
			pv_json_key(j, k ? "self" : "total");
			if (!sc->has[ln]) {
				pv_json_null(j);
				continue;
			}
			pv_json_array(j);
			for (uint32_t m = 0; m < nm; m++)
				json_cost(j, v, m, sc->cost[((size_t)ln * nm + m) * 2 + (size_t)k]);
			pv_json_end(j);
		}
		/* a line with a cost: its line:FILE:LINE (every function of the file at that line,
		 * whose rows the line sums), what centering on it takes */
		if (sc->has[ln] && !rc) {
			sbuf_reset(&scope);
			rc = json_scope_member(
			    j, scope_file_line(p, id, ln, &scope) ? PV_ENOMEM : 1, &scope);
		}
		if (sa && sa->n[ln])
			json_line_addrs(j, sa, ln);
		pv_json_end(j);
		at = e + 1;
	}
	pv_json_end(j);
	pv_json_end(j);
	pv_json_eol(j);
	pv_free(centers);
	pv_source_costs_free(sc);
	pv_source_addrs_free(sa);
	sbuf_release(&scope);
	return rc ? rc : pv_json_error(j);
}

int pv_json_disasm(struct pv_json *j, const struct pv_profile *p, const struct pv_disasm *d)
{
	char buf[24];
	pv_json_object(j);
	if (d->metric < p->metrics.len)
		pv_json_kstr(j, "metric", pv_str(p, p->metrics.name[d->metric]));
	else
		pv_json_knull(j, "metric");
	pv_json_key(j, "notes");
	pv_json_array(j);
	for (uint32_t i = 0; i < d->nr_notes; i++)
		pv_json_str(j, d->notes[i]);
	pv_json_end(j);
	pv_json_kbool(j, "cut", d->cut);
	pv_json_key(j, "insns");
	pv_json_open(j, '[', PV_JSON_LINES, 0);
	for (uint32_t i = 0; i < d->n; i++) {
		const struct pv_disasm_insn *in = &d->insn[i];
		pv_json_object(j);
		snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)in->addr);
		pv_json_kstr(j, "addr", buf);
		pv_json_kstr(j, "func", pv_str(p, p->funcs.name[in->func]));
		pv_json_kuint(j, "line", in->line);
		if (in->file)
			pv_json_kstr(j, "file", in->file);
		else
			pv_json_knull(j, "file");
		pv_json_kbool(j, "here", in->here);
		pv_json_kint(j, "self", in->self);
		pv_json_kstr(j, "text", in->text);
		pv_json_end(j);
	}
	pv_json_end(j);
	pv_json_end(j);
	pv_json_eol(j);
	return pv_json_error(j);
}

/* ---- activity and the marker chart ---- */

static const char *category_name(const struct pv_profile *p, pv_cat_ix c)
{
	return c < p->categories.len ? pv_str(p, p->categories.name[c]) : "Other";
}

static const char *category_color(const struct pv_profile *p, pv_cat_ix c)
{
	return c < p->categories.len ? pv_str(p, p->categories.color[c]) : "grey";
}

int pv_json_activity(struct pv_json *j, const struct pv_activity *a, const struct pv_markers *ms)
{
	const struct pv_profile *p = a->p;
	uint32_t nb = a->buckets;
	pv_json_object(j);
	pv_json_kms(j, "start", a->start_ns);
	pv_json_kms(j, "end", a->end_ns);
	if (!a->timed) { /* only then: the answers of timed profiles stay as they were */
		pv_json_key(j, "timed");
		pv_json_bool(j, false);
	}
	pv_json_key(j, "bucket");
	pv_json_double(j, (double)pv_time_diff(a->end_ns, a->start_ns) / nb / 1e6);
	pv_json_key(j, "categories");
	pv_json_categories(j, p, a->other);
	pv_json_key(j, "threads");
	pv_json_open(j, '[', PV_JSON_LINES, 2);
	for (uint32_t k = 0; k < a->nr_threads; k++) {
		pv_thread_ix t = a->thread[k];
		pv_json_object(j);
		json_thread(j, p, t);
		pv_json_kuint(j, "samples", a->samples[k]);
		pv_json_key(j, "buckets");
		pv_json_open(j, '[', PV_JSON_COMPACT, 0);
		for (uint32_t b = 0; b < nb; b++) {
			size_t at = (size_t)k * nb + b;
			pv_json_open(j, '[', PV_JSON_COMPACT, 0);
			for (uint32_t c = a->cell_first[at]; c < a->cell_first[at + 1]; c++) {
				pv_json_open(j, '[', PV_JSON_COMPACT, 0);
				pv_json_uint(j, a->cell_category[c]);
				pv_json_int(j, a->cell_cost[c]);
				pv_json_end(j);
			}
			pv_json_end(j);
		}
		pv_json_end(j);
		pv_json_end(j);
	}
	pv_json_end(j);
	pv_json_key(j, "overview");
	pv_json_open(j, '[', PV_JSON_LINES, 2);
	for (uint32_t k = 0; k < a->nr_markers; k++) {
		uint32_t i = a->marker[k];
		pv_json_object(j);
		pv_json_kuint(j, "thread", ms->thread[i]);
		pv_json_kuint(j, "i", i);
		pv_json_kstr(j, "name", ms->name[i]);
		pv_json_kms(j, "start", ms->start_ns[i]);
		pv_json_key(j, "end");
		pv_json_ms_or_null(j, ms->end_ns[i]);
		pv_json_kstr(j, "color", category_color(p, ms->category[i]));
		pv_json_end(j);
	}
	pv_json_end(j);
	pv_json_end(j);
	pv_json_eol(j);
	return pv_json_error(j);
}

int pv_json_marker_chart(struct pv_json *j, const struct pv_markers *ms,
			 const struct pv_marker_chart *ch)
{
	const struct pv_profile *ps = ms->p;
	struct pv_marker_detail d = {0};
	pv_json_object(j);
	pv_json_kms(j, "start", ch->start_ns);
	pv_json_kms(j, "end", ch->end_ns);
	pv_json_key(j, "rows");
	pv_json_open(j, '[', PV_JSON_LINES, 2);
	for (uint32_t r = 0; r < ch->nr_rows; r++) {
		pv_json_object(j);
		pv_json_kuint(j, "thread", ch->row_thread[r]);
		pv_json_kstr(j, "thread_name", pv_str(ps, ps->threads.name[ch->row_thread[r]]));
		pv_json_kstr(j, "name", ch->row_name[r]);
		pv_json_kstr(j, "category", category_name(ps, ch->row_category[r]));
		pv_json_kstr(j, "color", category_color(ps, ch->row_category[r]));
		pv_json_key(j, "markers");
		pv_json_array(j);
		for (uint32_t e = ch->row_first[r]; e < ch->row_first[r + 1]; e++) {
			pv_json_object(j);
			pv_json_kuint(j, "i", ch->marker[e]);
			pv_json_kms(j, "start", ch->start_ns_of[e]);
			pv_json_key(j, "end");
			pv_json_ms_or_null(j, ch->end_ns_of[e]);
			pv_json_kstr(
			    j, "label",
			    pv_marker_detail(ms, ch->marker[e], &d) ? "" : d.label[PV_LABEL_CHART]);
			if (ch->merged[e] > 1)
				pv_json_kuint(j, "merged", ch->merged[e]);
			pv_json_end(j);
		}
		pv_json_end(j);
		pv_json_end(j);
	}
	pv_json_end(j);
	pv_json_end(j);
	pv_json_eol(j);
	pv_marker_detail_release(&d);
	return pv_json_error(j);
}

/* ---- the view kinds ---- */

void pv_json_view_kinds(struct pv_json *j)
{
	static const struct {
		unsigned bit;
		const char *name;
	} outs[] = {{PV_OUT_TREE, "tree"}, {PV_OUT_CALLERS, "callers"}, {PV_OUT_FLAT, "flat"}};
	pv_json_key(j, "views");
	pv_json_array(j);
	for (uint32_t k = 0; k < PV_NR_VIEW_KINDS; k++) {
		const struct pv_view_kind_row *row = &pv_view_kinds[k];
		pv_json_object(j);
		pv_json_kstr(j, "name", row->name);
		pv_json_kstr(j, "label", row->label);
		pv_json_kbool(j, "needs_center", row->needs_center);
		pv_json_kstr(j, "sort", row->sort == PV_SORT_TOTAL ? "total" : "self");
		pv_json_key(j, "outputs");
		pv_json_array(j);
		for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++)
			if (row->outputs & outs[i].bit)
				pv_json_str(j, outs[i].name);
		pv_json_end(j);
		pv_json_end(j);
	}
	pv_json_end(j);
}

/* ---- the whole-profile search ---- */

/*
 * The key of tree row r: its ancestors' steps, outermost first; PV_ELIMIT when it is longer than
 * max bytes (a step and its '/' are two bytes at least: a row that deep is turned down before
 * its walk, so the work is max at most).
 */
static int tree_row_key(struct sbuf *key, const struct pv_tree *t, uint32_t r, uint64_t max)
{
	uint64_t depth = (uint64_t)t->depth[r] + 1;
	if (depth * 2 - 1 > max)
		return PV_ELIMIT;
	uint32_t *chain = pv_malloc(sizeof(*chain) * (depth ? depth : 1));
	if (!chain)
		return PV_ENOMEM;
	uint32_t k = (uint32_t)depth;
	for (uint32_t x = r; x != PV_NONE && k; x = t->parent[x])
		chain[--k] = x;
	int rc = 0;
	sbuf_reset(key);
	for (uint32_t i = k; i < depth && !rc; i++)
		rc = (i > k && sbuf_put(key, "/", 1)) ||
		     key_add(key, t->kind[chain[i]], t->id[chain[i]], t->line[chain[i]]);
	pv_free(chain);
	return rc ? PV_ENOMEM : key->len > max ? PV_ELIMIT : 0;
}

int pv_json_find(struct pv_json *j, const struct pv_view *top, const struct pv_view *tree,
		 const char *text, const struct pv_find *fd)
{
	const struct pv_flat *f = top->flat;
	struct sbuf scope = SBUF_INIT, key = SBUF_INIT;
	struct row_names nm = {0};
	char b[512];
	int rc = 0;
	pv_json_object(j);
	pv_json_kstr(j, "text", text);
	pv_json_kbool(j, "scope", pv_find_is_scope(text));
	pv_json_key(j, "metrics");
	json_metrics(j, top);
	pv_json_key(j, "base");
	json_values(j, top, top->base);
	pv_json_kuint(j, "matches", fd->matches);
	pv_json_key(j, "rows");
	pv_json_open(j, '[', PV_JSON_LINES, 0);
	/* a key names a whole path: past the budget, rows deep in the tree go without one */
	uint64_t keys = 0, budget = pv_key_text_budget(fd->len);
	for (uint32_t i = 0; i < fd->len && !rc; i++) {
		uint32_t r = fd->flat_row[i];
		pv_json_object(j);
		pv_json_kstr(j, "name",
			     row_name(top, f->kind[r], f->id[r], f->line[r], b, sizeof(b)));
		rc = json_scope(j, top, &nm, f->kind[r], f->id[r], f->line[r], &scope);
		json_row_place(j, top, (enum pv_row_kind)f->kind[r], f->id[r], f->line[r]);
		pv_json_key(j, "total");
		json_costs(j, top, f->total, r);
		pv_json_key(j, "self");
		json_costs(j, top, f->self, r);
		pv_json_key(j, "key");
		if (fd->tree_row[i] == PV_NONE) {
			pv_json_null(j);
		} else {
			if (!rc)
				rc = tree_row_key(&key, tree->tree, fd->tree_row[i], budget - keys);
			if (rc == PV_ELIMIT) {
				pv_json_null(j);
				pv_json_kbool(j, "key_cut", true);
				rc = 0;
			} else {
				pv_json_strn(j, sbuf_str(&key), key.len);
				keys += key.len;
			}
		}
		pv_json_end(j);
	}
	pv_json_end(j);
	pv_json_end(j);
	pv_json_eol(j);
	sbuf_release(&scope);
	sbuf_release(&key);
	row_names_release(&nm);
	return rc ? rc : pv_json_error(j);
}

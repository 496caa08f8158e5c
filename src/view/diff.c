/*
 * diff.c - the difference of two profiles (pv/diff.h, doc/diff.md): the query's view of each,
 * their rows matched level by level into one set of rows with both sides' costs.
 *
 * Each output (tree, callers, flat) is read as a tree of rows on each side (a flat view's rows
 * nest by level, a list's are all roots). Matching starts at the two sides' roots; the rows of
 * two matched lists are sorted by their match key (kind, name, file and module base names) and
 * merged, what is left is matched by kind and name when the name is once on each side, and the
 * children of every matched pair are matched the same way, breadth first, so diff rows are
 * numbered parents first and the children of a row are one run of rows. Cost: the two views,
 * then O(n log n) in their rows (each key built once per row).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sbuf.h"
#include "base/sort.h"
#include "pv/diff.h"
#include "view/internal.h"

/* One side's output as a tree: its rows' kind, id, line and costs, roots and children. */
struct side {
	const struct pv_view *v;
	uint32_t len;
	const uint8_t *kind;
	const uint32_t *id, *line;
	int64_t *const *total, *const *self;
	const uint32_t *roots, *child_first, *child_len, *children;
	uint32_t nr_roots;
	uint32_t *own; /* a flat output's lists, allocated here */
};

static void side_of_tree(struct side *s, const struct pv_view *v, const struct pv_tree *t)
{
	*s = (struct side){v,		t->len,	     t->kind,  t->id,	       t->line,
			   t->total,	t->self,     t->roots, t->child_first, t->child_len,
			   t->children, t->nr_roots, NULL};
}

/* A flat output: a list's rows are all roots; else each row's parent is the last row before
 * it of a lower level (rows come module > file > function > line, depth first). */
static int side_of_flat(struct side *s, const struct pv_view *v, const struct pv_flat *f)
{
	uint32_t n = f->len;
	bool list = pv_view_kind(v->q.view)->list;
	*s = (struct side){.v = v,
			   .len = n,
			   .kind = f->kind,
			   .id = f->id,
			   .line = f->line,
			   .total = f->total,
			   .self = f->self};
	uint32_t *own = pv_malloc(sizeof(*own) * ((size_t)n * 5 + 1));
	if (!own)
		return PV_ENOMEM;
	uint32_t *roots = own, *first = own + n, *len = own + 2 * n, *kids = own + 3 * n,
		 *parent = own + 4 * n;
	uint32_t stack[8], sp = 0, nr = 0;
	for (uint32_t r = 0; r < n; r++) {
		len[r] = 0;
		while (sp && !list && f->level[stack[sp - 1]] >= f->level[r])
			sp--;
		parent[r] = sp ? stack[sp - 1] : PV_NONE;
		if (parent[r] == PV_NONE)
			roots[nr++] = r;
		else
			len[parent[r]]++;
		if (!list && sp < 8)
			stack[sp++] = r;
	}
	uint32_t at = 0;
	for (uint32_t r = 0; r < n; r++) {
		first[r] = at;
		at += len[r];
		len[r] = 0;
	}
	for (uint32_t r = 0; r < n; r++)
		if (parent[r] != PV_NONE)
			kids[first[parent[r]] + len[parent[r]]++] = r;
	s->own = own;
	s->roots = roots;
	s->nr_roots = nr;
	s->child_first = first;
	s->child_len = len;
	s->children = kids;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;
	return b ? b + 1 : path ? path : "";
}

/*
 * The match key of row r: its kind, name, and (full) the base names of its file and module,
 * separated by 0x1f, into b. The center and the no-stack row match by kind alone.
 */
static int row_key(const struct side *s, uint32_t r, bool full, struct sbuf *b)
{
	const struct pv_profile *p = s->v->p;
	enum pv_row_kind k = (enum pv_row_kind)s->kind[r];
	char kb[2] = {(char)('a' + k), 0x1f}, nb[512];
	sbuf_reset(b);
	if (sbuf_put(b, kb, 2))
		return PV_ENOMEM;
	if (k == PV_ROW_CENTER || k == PV_ROW_NOSTACK)
		return 0;
	const char *name = pv_view_row_name(s->v, k, s->id[r], nb, sizeof(nb), s->line[r]);
	if (k == PV_ROW_FILE || k == PV_ROW_MODULE)
		name = s->id[r] == PV_NONE ? "" : base_name(name);
	if (sbuf_puts(b, name))
		return PV_ENOMEM;
	if (!full || k == PV_ROW_FILE || k == PV_ROW_MODULE)
		return 0;
	pv_module_ix m;
	pv_source_ix src;
	uint32_t line;
	pv_view_row_place(s->v, k, s->id[r], &m, &src, &line);
	const char *fp = src == PV_NONE ? "" : base_name(pv_str(p, p->sources.path[src]));
	const char *mp = m == PV_NONE ? "" : base_name(pv_str(p, p->modules.name[m]));
	return sbuf_put(b, "\x1f", 1) || sbuf_puts(b, fp) || sbuf_put(b, "\x1f", 1) ||
		       sbuf_puts(b, mp)
		   ? PV_ENOMEM
		   : 0;
}

/* ---- matching ---- */

struct keyed {
	uint32_t row, pos; /* the side's row, its place in its list */
	size_t key;	   /* offset of its key in the keys buffer */
};

struct matcher {
	struct side s[2];
	struct sbuf keys, tmp;
	struct keyed *k[2];
	uint32_t kcap[2];
	/* the diff rows so far */
	uint32_t len, cap;
	uint32_t *row[2], *parent;
};

/* by key (ctx: the keys buffer), then position */
static int by_key(const void *a, const void *b, void *ctx)
{
	const struct keyed *x = a, *y = b;
	const char *keys_text = ctx;
	int c = strcmp(keys_text + x->key, keys_text + y->key);
	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

static int add_row(struct matcher *m, uint32_t b, uint32_t n, uint32_t parent)
{
	if (m->len == m->cap) {
		uint32_t nc = m->cap ? m->cap * 2 : 256;
		if (col_realloc((void **)&m->row[0], sizeof(uint32_t), nc) ||
		    col_realloc((void **)&m->row[1], sizeof(uint32_t), nc) ||
		    col_realloc((void **)&m->parent, sizeof(uint32_t), nc))
			return PV_ENOMEM;
		m->cap = nc;
	}
	m->row[0][m->len] = b;
	m->row[1][m->len] = n;
	m->parent[m->len++] = parent;
	return 0;
}

/* Keys of one side's list into m->k[side], sorted by key. */
static int key_list(struct matcher *m, int side, const uint32_t *list, uint32_t n, bool full)
{
	if (n > m->kcap[side]) {
		struct keyed *nk = pv_realloc(m->k[side], sizeof(*nk) * n);
		if (!nk)
			return PV_ENOMEM;
		m->k[side] = nk;
		m->kcap[side] = n;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (row_key(&m->s[side], list[i], full, &m->tmp))
			return PV_ENOMEM;
		m->k[side][i] = (struct keyed){list[i], i, m->keys.len};
		if (sbuf_put(&m->keys, m->tmp.buf, m->tmp.len + 1))
			return PV_ENOMEM;
	}
	return 0;
}

static void sort_keys(struct matcher *m, int side, uint32_t n)
{
	pv_sort_r(m->k[side], n, sizeof(struct keyed), by_key, m->keys.buf);
}

/*
 * Pairs of the two lists that share a key: got[side][pos] set for each row matched, the pair
 * added as a diff row under parent. With unique, a key only matches when it is once on each
 * side (the name-only pass).
 */
static int merge_keys(struct matcher *m, uint32_t nb, uint32_t nn, uint8_t *got[2], bool unique,
		      uint32_t parent)
{
	struct keyed *kb = m->k[0], *kn = m->k[1];
	const char *t = m->keys.buf;
	uint32_t i = 0, k = 0;
	while (i < nb && k < nn) {
		int c = strcmp(t + kb[i].key, t + kn[k].key);
		if (c) {
			c < 0 ? i++ : k++;
			continue;
		}
		uint32_t i2 = i, k2 = k;
		while (i2 < nb && strcmp(t + kb[i2].key, t + kb[i].key) == 0)
			i2++;
		while (k2 < nn && strcmp(t + kn[k2].key, t + kn[k].key) == 0)
			k2++;
		if (!unique || (i2 - i == 1 && k2 - k == 1)) {
			for (; i < i2 && k < k2; i++, k++) {
				got[0][kb[i].pos] = got[1][kn[k].pos] = 1;
				if (add_row(m, kb[i].row, kn[k].row, parent))
					return PV_ENOMEM;
			}
		}
		i = i2;
		k = k2;
	}
	return 0;
}

/* Matches the children lists of diff row parent (PV_NONE: the roots). */
static int match_lists(struct matcher *m, uint32_t parent, const uint32_t *lb, uint32_t nb,
		       const uint32_t *ln, uint32_t nn)
{
	uint8_t *got[2] = {pv_calloc(nb + 1, 1), pv_calloc(nn + 1, 1)};
	int rc = got[0] && got[1] ? 0 : PV_ENOMEM;
	for (int pass = 0; pass < 2 && !rc; pass++) {
		/* pass 0: full keys; pass 1: kind and name, among the rows left */
		uint32_t ub = 0, un = 0;
		uint32_t *rb = pv_malloc(sizeof(*rb) * (nb + 1)),
			 *rn = pv_malloc(sizeof(*rn) * (nn + 1));
		uint32_t *pb = pv_malloc(sizeof(*pb) * (nb + 1)),
			 *pn = pv_malloc(sizeof(*pn) * (nn + 1));
		if (!rb || !rn || !pb || !pn)
			rc = PV_ENOMEM;
		for (uint32_t i = 0; !rc && i < nb; i++)
			if (!got[0][i]) {
				pb[ub] = i;
				rb[ub++] = lb[i];
			}
		for (uint32_t i = 0; !rc && i < nn; i++)
			if (!got[1][i]) {
				pn[un] = i;
				rn[un++] = ln[i];
			}
		sbuf_reset(&m->keys);
		if (!rc && ub && un)
			rc = key_list(m, 0, rb, ub, pass == 0) || key_list(m, 1, rn, un, pass == 0)
				 ? PV_ENOMEM
				 : 0;
		if (!rc && ub && un) {
			/* positions in the whole lists, so got[] marks the right rows */
			for (uint32_t i = 0; i < ub; i++)
				m->k[0][i].pos = pb[m->k[0][i].pos];
			for (uint32_t i = 0; i < un; i++)
				m->k[1][i].pos = pn[m->k[1][i].pos];
			sort_keys(m, 0, ub);
			sort_keys(m, 1, un);
			rc = merge_keys(m, ub, un, got, pass == 1, parent);
		}
		pv_free(rb);
		pv_free(rn);
		pv_free(pb);
		pv_free(pn);
	}
	for (uint32_t i = 0; !rc && i < nn; i++)
		if (!got[1][i])
			rc = add_row(m, PV_NONE, ln[i], parent);
	for (uint32_t i = 0; !rc && i < nb; i++)
		if (!got[0][i])
			rc = add_row(m, lb[i], PV_NONE, parent);
	pv_free(got[0]);
	pv_free(got[1]);
	return rc;
}

static void side_list(const struct side *s, uint32_t r, const uint32_t **list, uint32_t *n)
{
	if (r == PV_NONE) {
		*list = s->roots;
		*n = s->nr_roots;
	} else {
		*list = s->children + s->child_first[r];
		*n = s->child_len[r];
	}
}

/* ---- the diff rows ---- */

struct order {
	const struct pv_diff_rows *t;
	const int64_t *key; /* per row, larger first */
};
static int by_order(const void *a, const void *b, void *ctx)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct order *o = ctx;
	if (o->key[x] != o->key[y])
		return o->key[x] > o->key[y] ? -1 : 1;
	/* ties: the new view's order, then the base's (rows on one side only after) */
	for (int s = 1; s >= 0; s--)
		if (o->t->row[s][x] != o->t->row[s][y])
			return o->t->row[s][x] < o->t->row[s][y] ? -1 : 1;
	return 0;
}

static void diff_rows_free(struct pv_diff_rows *t, uint32_t nm)
{
	if (!t)
		return;
	for (int s = 0; s < 2; s++) {
		pv_free(t->row[s]);
		for (uint32_t k = 0; k < nm; k++) {
			if (t->total[s])
				pv_free(t->total[s][k]);
			if (t->self[s])
				pv_free(t->self[s][k]);
		}
		pv_free(t->total[s]);
		pv_free(t->self[s]);
	}
	pv_free(t->parent);
	pv_free(t->depth);
	pv_free(t->child_first);
	pv_free(t->child_len);
	pv_free(t->children);
	pv_free(t->roots);
	pv_free(t);
}

static int64_t scaled(int64_t x, double f)
{
	return f == 1.0 ? x : (int64_t)llround((double)x * f);
}

/* The diff rows of the two sides' outputs. */
static int diff_rows(struct pv_diff *d, const struct side sd[2], bool self_column,
		     struct pv_diff_rows **out)
{
	struct matcher m = {.s = {sd[0], sd[1]}, .keys = SBUF_INIT, .tmp = SBUF_INIT};
	int rc = 0;
	const uint32_t *lb, *ln;
	uint32_t nb, nn;
	side_list(&sd[0], PV_NONE, &lb, &nb);
	side_list(&sd[1], PV_NONE, &ln, &nn);
	rc = match_lists(&m, PV_NONE, lb, nb, ln, nn);
	uint32_t nroots = m.len;
	for (uint32_t r = 0; !rc && r < m.len; r++) {
		nb = nn = 0;
		if (m.row[0][r] != PV_NONE)
			side_list(&sd[0], m.row[0][r], &lb, &nb);
		if (m.row[1][r] != PV_NONE)
			side_list(&sd[1], m.row[1][r], &ln, &nn);
		if (nb || nn)
			rc = match_lists(&m, r, nb ? lb : NULL, nb, nn ? ln : NULL, nn);
	}
	sbuf_release(&m.keys);
	sbuf_release(&m.tmp);
	pv_free(m.k[0]);
	pv_free(m.k[1]);
	uint32_t n = m.len, nm = d->nr_metrics;
	struct pv_diff_rows *t = rc ? NULL : pv_calloc(1, sizeof(*t));
	if (!t) {
		pv_free(m.row[0]);
		pv_free(m.row[1]);
		pv_free(m.parent);
		return PV_ENOMEM;
	}
	t->len = n;
	t->row[0] = m.row[0];
	t->row[1] = m.row[1];
	t->parent = m.parent;
	size_t n1 = n ? n : 1;
	t->depth = pv_malloc(sizeof(uint32_t) * n1);
	t->child_first = pv_calloc(n1, sizeof(uint32_t));
	t->child_len = pv_calloc(n1, sizeof(uint32_t));
	t->children = pv_malloc(sizeof(uint32_t) * n1);
	t->roots = pv_malloc(sizeof(uint32_t) * n1);
	int64_t *key = pv_malloc(sizeof(int64_t) * n1);
	rc = t->depth && t->child_first && t->child_len && t->children && t->roots && key
		 ? 0
		 : PV_ENOMEM;
	for (int s = 0; s < 2 && !rc; s++) {
		t->total[s] = pv_calloc(nm, sizeof(int64_t *));
		t->self[s] = pv_calloc(nm, sizeof(int64_t *));
		if (!t->total[s] || !t->self[s]) {
			rc = PV_ENOMEM;
			break;
		}
		for (uint32_t k = 0; k < nm && !rc; k++) {
			t->total[s][k] = pv_malloc(sizeof(int64_t) * n1);
			t->self[s][k] = pv_malloc(sizeof(int64_t) * n1);
			if (!t->total[s][k] || !t->self[s][k]) {
				rc = PV_ENOMEM;
				break;
			}
			double f = 1.0;
			if (s == 0 && d->normalize && d->v[0]->whole[k])
				f = (double)d->v[1]->whole[k] / (double)d->v[0]->whole[k];
			for (uint32_t r = 0; r < n; r++) {
				uint32_t x = t->row[s][r];
				t->total[s][k][r] = x == PV_NONE ? 0 : scaled(sd[s].total[k][x], f);
				t->self[s][k][r] = x == PV_NONE ? 0 : scaled(sd[s].self[k][x], f);
			}
		}
	}
	if (!rc) {
		/* the children of a row are one run of rows, in order of their parents */
		t->nr_roots = nroots;
		for (uint32_t r = 0; r < n; r++) {
			uint32_t p = t->parent[r];
			t->depth[r] = p == PV_NONE ? 0 : t->depth[p] + 1;
			if (p != PV_NONE && t->child_len[p]++ == 0)
				t->child_first[p] = r - nroots;
			t->children[r] = r;
		}
		for (uint32_t r = 0; r < nroots; r++)
			t->roots[r] = r;
		memmove(t->children, t->children + nroots, sizeof(uint32_t) * (n - nroots));
		bool delta = d->v[1]->q.sort == PV_SORT_DELTA;
		for (uint32_t r = 0; r < n; r++) {
			int64_t *const *c0 = self_column ? t->self[0] : t->total[0];
			int64_t *const *c1 = self_column ? t->self[1] : t->total[1];
			int64_t a = c0[0][r], b = c1[0][r];
			key[r] = delta ? llabs(b - a) : a > b ? a : b;
		}
		struct order o = {t, key};
		pv_sort_r(t->roots, nroots, sizeof(uint32_t), by_order, &o);
		for (uint32_t r = 0; r < n; r++)
			pv_sort_r(t->children + t->child_first[r], t->child_len[r],
				  sizeof(uint32_t), by_order, &o);
	}
	pv_free(key);
	if (rc) {
		diff_rows_free(t, nm);
		return rc;
	}
	*out = t;
	return 0;
}

const char *pv_diff_side_name(enum pv_diff_side s)
{
	return s == PV_DIFF_BASE_ONLY ? "base" : s == PV_DIFF_NEW_ONLY ? "new" : "both";
}

void pv_diff_free(struct pv_diff *d)
{
	if (!d)
		return;
	diff_rows_free(d->tree, d->nr_metrics);
	diff_rows_free(d->callers, d->nr_metrics);
	diff_rows_free(d->flat, d->nr_metrics);
	pv_view_free(d->v[0]);
	pv_view_free(d->v[1]);
	pv_free(d);
}

int pv_diff_compute(const struct pv_profile *base, const struct pv_profile *new_,
		    const struct pv_query *q, const struct pv_diff_opts *o, struct pv_diff **out,
		    struct pv_error *err)
{
	struct pv_diff *d = pv_calloc(1, sizeof(*d));
	struct pv_query sq;
	pv_query_init(&sq);
	if (!d || pv_query_copy(&sq, q)) {
		pv_free(d);
		pv_query_release(&sq);
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	}
	d->normalize = o && o->normalize;
	/* each side is a plain view; the order by delta is the diff's */
	bool delta = sq.sort == PV_SORT_DELTA;
	if (delta)
		sq.sort = PV_SORT_DEFAULT;
	const struct pv_profile *ps[2] = {base, new_};
	const char *names[2] = {"base", "new"};
	int rc = 0;
	for (int s = 0; s < 2 && !rc; s++) {
		struct pv_error e;
		pv_error_clear(&e);
		rc = pv_view_compute(ps[s], &sq, &d->v[s], &e);
		if (rc)
			pv_error_set(err, rc, "%s profile: %s", names[s], e.msg);
	}
	pv_query_release(&sq);
	if (rc) {
		pv_diff_free(d);
		return rc;
	}
	if (delta)
		d->v[1]->q.sort = PV_SORT_DELTA; /* the diff's rows are ordered by it */
	d->nr_metrics = d->v[1]->nr_metrics;
	if (d->v[0]->nr_metrics != d->nr_metrics) {
		pv_diff_free(d);
		return pv_error_set(err, PV_EINVAL, "base and new have different metrics");
	}
	for (uint32_t k = 0; k < d->nr_metrics; k++) {
		/* a derived column's integers are scaled per view: no delta between two views */
		if (pv_view_metric_derived(d->v[0], k) || pv_view_metric_derived(d->v[1], k)) {
			char b[300];
			pv_error_set(err, PV_EINVAL,
				     "diff compares measured metrics: the derived metric %s has no "
				     "delta (show it in each profile's view)",
				     pv_view_metric_name(d->v[1], k, b, sizeof(b)));
			pv_diff_free(d);
			return PV_EINVAL;
		}
		enum pv_unit u0 = pv_view_metric_unit(d->v[0], k),
			     u1 = pv_view_metric_unit(d->v[1], k);
		if (u0 != u1 && !d->normalize) {
			char b0[300], b1[300];
			pv_error_set(
			    err, PV_EINVAL,
			    "base measures %s (%s) and new %s (%s): --normalize compares "
			    "their shares",
			    pv_view_metric_name(d->v[0], k, b0, sizeof(b0)), pv_unit_name(u0),
			    pv_view_metric_name(d->v[1], k, b1, sizeof(b1)), pv_unit_name(u1));
			pv_diff_free(d);
			return PV_EINVAL;
		}
		d->whole[0][k] = d->normalize ? d->v[1]->whole[k] : d->v[0]->whole[k];
		d->whole[1][k] = d->v[1]->whole[k];
	}
	unsigned outs = pv_view_kind(q->view)->outputs;
	bool list = pv_view_kind(q->view)->list;
	struct side sd[2];
	if (outs & PV_OUT_TREE) {
		side_of_tree(&sd[0], d->v[0], d->v[0]->tree);
		side_of_tree(&sd[1], d->v[1], d->v[1]->tree);
		rc = diff_rows(d, sd, false, &d->tree);
	}
	if (!rc && (outs & PV_OUT_CALLERS)) {
		side_of_tree(&sd[0], d->v[0], d->v[0]->callers);
		side_of_tree(&sd[1], d->v[1], d->v[1]->callers);
		rc = diff_rows(d, sd, false, &d->callers);
	}
	if (!rc && (outs & PV_OUT_FLAT)) {
		memset(sd, 0, sizeof(sd));
		rc = side_of_flat(&sd[0], d->v[0], d->v[0]->flat);
		if (!rc)
			rc = side_of_flat(&sd[1], d->v[1], d->v[1]->flat);
		if (!rc)
			rc = diff_rows(d, sd, list && (delta || pv_query_sort(q) == PV_SORT_SELF),
				       &d->flat);
		pv_free(sd[0].own);
		pv_free(sd[1].own);
	}
	if (rc) {
		pv_diff_free(d);
		return pv_error_set(err, rc, "out of memory");
	}
	*out = d;
	return 0;
}

/* ---- the differential flame graph ---- */

/*
 * A tree over the diff rows for the flame builder: the new side's kind, id and line (for its
 * key budget), its totals, and the children with a new total, sorted by it.
 */
static int flame_tree(const struct pv_diff_rows *t, const struct pv_tree *vt, struct pv_tree *ft,
		      int64_t **tot)
{
	uint32_t n1 = t->len ? t->len : 1;
	memset(ft, 0, sizeof(*ft));
	ft->len = t->len;
	ft->kind = pv_malloc(n1);
	ft->id = pv_malloc(sizeof(uint32_t) * n1);
	ft->line = pv_malloc(sizeof(uint32_t) * n1);
	ft->child_first = pv_malloc(sizeof(uint32_t) * n1);
	ft->child_len = pv_calloc(n1, sizeof(uint32_t));
	ft->children = pv_malloc(sizeof(uint32_t) * n1);
	ft->roots = pv_malloc(sizeof(uint32_t) * n1);
	*tot = t->total[1][0];
	ft->total = tot;
	if (!ft->kind || !ft->id || !ft->line || !ft->child_first || !ft->child_len ||
	    !ft->children || !ft->roots)
		return PV_ENOMEM;
	for (uint32_t r = 0; r < t->len; r++) {
		uint32_t x = t->row[1][r];
		ft->kind[r] = x == PV_NONE ? PV_ROW_FUNCTION : vt->kind[x];
		ft->id[r] = x == PV_NONE ? 0 : vt->id[x];
		ft->line[r] = x == PV_NONE ? 0 : vt->line[x];
		ft->child_first[r] = t->child_first[r];
	}
	/* kept: rows with new cost, by the new total (a stable order: the diff's among ties) */
	struct order o = {t, t->total[1][0]};
	for (uint32_t i = 0; i < t->nr_roots; i++)
		if (t->row[1][t->roots[i]] != PV_NONE)
			ft->roots[ft->nr_roots++] = t->roots[i];
	pv_sort_r(ft->roots, ft->nr_roots, sizeof(uint32_t), by_order, &o);
	for (uint32_t r = 0; r < t->len; r++) {
		uint32_t *c = ft->children + t->child_first[r];
		for (uint32_t i = 0; i < t->child_len[r]; i++) {
			uint32_t x = t->children[t->child_first[r] + i];
			if (t->row[1][x] != PV_NONE)
				c[ft->child_len[r]++] = x;
		}
		pv_sort_r(c, ft->child_len[r], sizeof(uint32_t), by_order, &o);
	}
	return 0;
}

static void flame_tree_free(struct pv_tree *ft)
{
	pv_free(ft->kind);
	pv_free(ft->id);
	pv_free(ft->line);
	pv_free(ft->child_first);
	pv_free(ft->child_len);
	pv_free(ft->children);
	pv_free(ft->roots);
}

int pv_diff_flame_build(const struct pv_diff *d, const struct pv_flame_opts *o,
			struct pv_flame **out)
{
	struct pv_tree ft[2];
	int64_t *tot[2];
	memset(ft, 0, sizeof(ft));
	int rc = flame_tree(d->tree, d->v[1]->tree, &ft[0], &tot[0]);
	if (!rc && d->callers)
		rc = flame_tree(d->callers, d->v[1]->callers, &ft[1], &tot[1]);
	if (!rc)
		rc = pv__flame_of_trees(&ft[0], d->callers ? &ft[1] : NULL, o, out);
	if (!rc)
		(*out)->v = d->v[1];
	if (!rc)
		(*out)->diff = d;
	flame_tree_free(&ft[0]);
	flame_tree_free(&ft[1]);
	return rc;
}

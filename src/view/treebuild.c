/*
 * treebuild.c - rows and trees: row keys per granularity, the top-down tree (rows
 * interned per parent and key in stack order), the bottom-up tree (walkers, heaviest first,
 * within budgets: doc/deep-stacks.md), sorting and totals.
 */
#include "view/engine.h"

/* ---- rows and trees ---- */

static uint64_t frame_key_by(const struct pv_view *v, uint32_t vf, enum pv_granularity by)
{
	uint32_t f = vf_func(v, vf);
	uint8_t fk = vf_kind(v, vf);
	switch (by) {
	case PV_BY_LINE:
		if (fk == PV_FRAME_LOOP)
			return KEY(PV_ROW_LOOP, vf, 0);
		/* a scoped profile's procedure frame without a line is the procedure itself */
		if (v->priv->scoped && fk == PV_FRAME_CODE && !vf_line(v, vf))
			return KEY(PV_ROW_FUNCTION, f, 0);
		return KEY(PV_ROW_LINE, f, vf_line(v, vf));
	case PV_BY_FILE:
		return KEY(PV_ROW_FILE, fk == PV_FRAME_CODE ? fn_source(v, f) : vf_source(v, vf),
			   0);
	case PV_BY_MODULE: return KEY(PV_ROW_MODULE, fn_module(v, f), 0);
	case PV_BY_LOOP:
		if (fk == PV_FRAME_LOOP)
			return KEY(PV_ROW_LOOP, vf, 0);
		return fk == PV_FRAME_STATEMENT ? CONTINUE_KEY : KEY(PV_ROW_FUNCTION, f, 0);
	default: return fk == PV_FRAME_CODE ? KEY(PV_ROW_FUNCTION, f, 0) : CONTINUE_KEY;
	}
}

/*
 * A frame's row key at granularity by: CONTINUE_KEY for a frame that continues its caller's row
 * (a loop or statement by function). By function, the default, inline: it runs once a stack.
 */
static inline uint64_t frame_key(const struct pv_view *v, uint32_t vf, enum pv_granularity by)
{
	if (by != PV_BY_FUNCTION)
		return frame_key_by(v, vf, by);
	return vf_kind(v, vf) == PV_FRAME_CODE ? KEY(PV_ROW_FUNCTION, vf_func(v, vf), 0)
					       : CONTINUE_KEY;
}

/* frame_key, with a continuing frame that has no row to continue (a root) its function's row */
static uint64_t own_key(const struct pv_view *v, uint32_t vf, enum pv_granularity by)
{
	uint64_t k = frame_key(v, vf, by);
	return k == CONTINUE_KEY ? KEY(PV_ROW_FUNCTION, vf_func(v, vf), 0) : k;
}

/*
 * Inlined rows: while a tree is built, inlined[r] collects INL_INLINED when one of the row's
 * frames is an inlined frame, INL_OUTLINED when one is not; eng_tree_finish keeps 1 for the rows
 * with inlined frames only (kind "inline", doc/samples-and-inlines.md).
 */
enum { INL_INLINED = 1, INL_OUTLINED = 2 };

static void row_frame(const struct pv_view *v, struct pv_tree *t, uint32_t r, uint32_t vf)
{
	t->inlined[r] |= vf_inlined(v, vf) ? INL_INLINED : INL_OUTLINED;
}

struct tree_build {
	struct pv_tree *t;
	uint32_t cap;
	uint32_t nm;
	/* (parent row, key) -> row: keys are interned first, so the pair fits 64 bits */
	struct u64map keys; /* key -> key index */
	uint64_t *keyv;
	uint32_t nr_keys, cap_keys;
	struct u64map rows; /* (parent + 1) << 32 | key index -> row */
	/* rows get selves only: eng_tree_finish sets the totals from them (top-down) */
	bool self_only;
	int oom;
};

static uint32_t key_index(struct tree_build *b, uint64_t key)
{
	/* the 64-bit key is hashed as is; u64map keys are unique 64-bit values */
	uint32_t k = u64map_get(&b->keys, key);
	if (k != UINT32_MAX)
		return k;
	if (b->nr_keys == b->cap_keys) {
		uint32_t nc = grow_cap(b->cap_keys, (uint64_t)b->nr_keys + 1);
		if (!nc || COL_GROW(b->keyv, nc)) {
			b->oom = 1;
			return 0;
		}
		b->cap_keys = nc;
	}
	k = b->nr_keys++;
	b->keyv[k] = key;
	if (u64map_put(&b->keys, key, k))
		b->oom = 1;
	return k;
}

/* The row columns at capacity nc (more or fewer rows than now, at least t->len). */
static int tb_resize(struct tree_build *b, uint32_t nc)
{
	struct pv_tree *t = b->t;
	if (COL_GROW(t->kind, nc) || COL_GROW(t->id, nc) || COL_GROW(t->line, nc) ||
	    COL_GROW(t->parent, nc) || COL_GROW(t->depth, nc) || COL_GROW(t->inlined, nc))
		return -1;
	for (uint32_t m = 0; m < b->nm; m++) {
		if (COL_GROW(t->total[m], nc) || COL_GROW(t->self[m], nc))
			return -1;
	}
	b->cap = nc;
	return 0;
}

static int tb_grow(struct tree_build *b)
{
	uint32_t nc = grow_cap(b->cap, (uint64_t)b->t->len + 1);
	return nc ? tb_resize(b, nc) : -1;
}

/* A new row for key under parent (PV_NONE = a root), costs 0; PV_NONE when out of memory. */
static uint32_t tb_row(struct tree_build *b, uint32_t parent, uint64_t key)
{
	struct pv_tree *t = b->t;
	if (t->len == b->cap && tb_grow(b))
		return PV_NONE;
	uint32_t r = t->len++;
	t->kind[r] = KEY_KIND(key);
	t->id[r] = KEY_ID(key);
	t->line[r] = KEY_LINE(key);
	t->parent[r] = parent;
	t->depth[r] = parent == PV_NONE ? 0 : t->depth[parent] + 1;
	t->inlined[r] = 0;
	for (uint32_t m = 0; m < b->nm; m++) {
		if (!b->self_only)
			t->total[m][r] = 0;
		t->self[m][r] = 0;
	}
	return r;
}

/* The row for key under parent (PV_NONE = a root), created when new. */
static uint32_t row_of(struct tree_build *b, uint32_t parent, uint64_t key)
{
	if (b->oom)
		return 0;
	uint32_t k = key_index(b, key);
	uint64_t rk = ((uint64_t)(parent + 1) << 32) | k; /* parent PV_NONE wraps to 0 */
	uint32_t r = u64map_get(&b->rows, rk);
	if (r != UINT32_MAX)
		return r;
	r = tb_row(b, parent, key);
	if (r == PV_NONE) {
		b->oom = 1;
		return 0;
	}
	if (u64map_put(&b->rows, rk, r))
		b->oom = 1;
	return r;
}

static int tb_init(struct tree_build *b, uint32_t nm)
{
	memset(b, 0, sizeof(*b));
	b->nm = nm;
	b->t = pv_calloc(1, sizeof(*b->t));
	if (!b->t)
		return -1;
	b->t->total = pv_calloc(nm, sizeof(int64_t *));
	b->t->self = pv_calloc(nm, sizeof(int64_t *));
	if (!b->t->total || !b->t->self)
		return -1;
	return 0;
}

static void tb_release(struct tree_build *b)
{
	u64map_release(&b->keys);
	u64map_release(&b->rows);
	pv_free(b->keyv);
}

static int cmp_row(const void *a, const void *b, void *ctx)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct row_sort *c = ctx;
	if (c->key[x] != c->key[y])
		return c->key[x] > c->key[y] ? -1 : 1;
	if (c->key2 && c->key2[x] != c->key2[y])
		return c->key2[x] > c->key2[y] ? -1 : 1;
	if (c->name8 && c->name8[x] != c->name8[y])
		return c->name8[x] < c->name8[y] ? -1 : 1;
	char bx[64], by[64];
	const char *nx = pv_view_row_name(c->v, c->kind[x], c->id[x], bx, sizeof(bx), c->line[x]);
	const char *ny = pv_view_row_name(c->v, c->kind[y], c->id[y], by, sizeof(by), c->line[y]);
	int r = strcmp(nx, ny);
	if (r)
		return r;
	if (c->line[x] != c->line[y])
		return c->line[x] < c->line[y] ? -1 : 1;
	if (c->id[x] != c->id[y])
		return c->id[x] < c->id[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * A long list is sorted by its first key alone first (pv_sort_kix_desc: no comparator call per
 * comparison), then each run of rows with equal keys by cmp_row; cmp_row orders by that key
 * first and is a total order, so the result is the one a sort by cmp_row alone gives.
 */
void eng_sort_ix(struct row_sort *c, uint32_t *rows, uint32_t n)
{
	struct pv_kix *a = n > 64 ? pv_malloc((size_t)n * sizeof(*a)) : NULL;
	if (!a) {
		pv_sort_r(rows, n, sizeof(*rows), cmp_row, c);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		a[i].key = c->key[rows[i]];
		a[i].ix = rows[i];
	}
	pv_sort_kix_desc(a, n);
	for (uint32_t i = 0; i < n; i++)
		rows[i] = a[i].ix;
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i + 1;
		while (j < n && a[j].key == a[i].key)
			j++;
		if (j - i > 1)
			pv_sort_r(rows + i, j - i, sizeof(*rows), cmp_row, c);
		i = j;
	}
	pv_free(a);
}

/* The first 8 bytes of the name of the row of key (kind, id, line) as a big-endian number, NULs
 * past its end: numbers in the order strcmp gives their names (cmp_row's first name test). */
static uint64_t key_name8(const struct pv_view *v, uint8_t kind, uint32_t id, uint32_t line)
{
	char b[64];
	const char *nm = pv_view_row_name(v, kind, id, b, sizeof(b), line);
	uint64_t x = 0;
	for (int i = 0; i < 8; i++) {
		x = x << 8 | (uint8_t)*nm;
		nm += *nm != 0;
	}
	return x;
}

static uint64_t row_name8(const struct pv_view *v, const struct pv_tree *t, uint32_t r)
{
	return key_name8(v, t->kind[r], t->id[r], t->line[r]);
}

/*
 * Totals from selves (rows are parents first), children lists, sorting. With e->sort_depth (a
 * printed tree with --depth) only the roots and the children of rows above that depth are
 * sorted: the printers never look at the order of the others (they count them).
 */
int eng_tree_finish(struct pv_engine *e, struct pv_tree *t, bool totals_from_self)
{
	uint32_t n = t->len;
	for (uint32_t r = 0; t->inlined && r < n; r++) /* INL_* bits (row_frame) to the flag */
		t->inlined[r] = t->inlined[r] == INL_INLINED;
	if (totals_from_self) {
		for (uint32_t m = 0; m < e->nm; m++) {
			if (n) /* no rows: the columns were never allocated */
				memcpy(t->total[m], t->self[m], (size_t)n * sizeof(int64_t));
			for (uint32_t r = n; r-- > 0;)
				if (t->parent[r] != PV_NONE)
					t->total[m][t->parent[r]] += t->total[m][r];
		}
	}
	t->child_first = pv_malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
	t->child_len = pv_calloc(n ? n : 1, sizeof(uint32_t));
	t->children = pv_malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
	t->roots = pv_malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
	/* rows left without cost by a filter (their stacks' costs moved away) are not shown */
	uint8_t *live = pv_malloc(n ? n : 1);
	if (!t->child_first || !t->child_len || !t->children || !t->roots || !live) {
		pv_free(live);
		return pv_error_set(e->err, PV_ENOMEM, "out of memory building a tree");
	}
	for (uint32_t r = 0; r < n; r++) {
		uint8_t l = 0;
		for (uint32_t m = 0; m < e->nm; m++)
			l |= t->total[m][r] != 0 || t->self[m][r] != 0;
		live[r] = l;
		if (t->parent[r] != PV_NONE && l)
			t->child_len[t->parent[r]]++;
	}
	uint32_t off = 0;
	for (uint32_t r = 0; r < n; r++) {
		t->child_first[r] = off;
		off += t->child_len[r];
		t->child_len[r] = 0;
	}
	t->nr_roots = 0;
	for (uint32_t r = 0; r < n; r++) {
		if (!live[r])
			continue;
		if (t->parent[r] == PV_NONE)
			t->roots[t->nr_roots++] = r;
		else
			t->children[t->child_first[t->parent[r]] + t->child_len[t->parent[r]]++] =
			    r;
	}
	pv_free(live);
	uint32_t below = e->sort_depth;
	struct row_sort c = {e->v, t, t->total[0], NULL, t->kind, t->id, t->line, NULL};
	uint64_t *name8 = n > 4096 ? pv_malloc((size_t)n * sizeof(*name8)) : NULL;
	c.name8 = name8;
	for (uint32_t i = 0; name8 && i < t->nr_roots; i++)
		name8[t->roots[i]] = row_name8(e->v, t, t->roots[i]);
	for (uint32_t r = 0; r < n; r++) {
		if (below && t->depth[r] >= below)
			continue;
		uint32_t *kids = t->children + t->child_first[r];
		for (uint32_t i = 0; name8 && i < t->child_len[r]; i++)
			name8[kids[i]] = row_name8(e->v, t, kids[i]);
		eng_sort_ix(&c, kids, t->child_len[r]);
	}
	eng_sort_ix(&c, t->roots, t->nr_roots);
	pv_free(name8);
	return 0;
}

/*
 * The samples without a stack as one root row of an uncentered tree, so the roots add up to the
 * whole (doc/samples-and-inlines.md). with_total: the builder sets totals itself (bottom-up).
 */
static void nostack_row(struct pv_engine *e, struct tree_build *b, bool with_total)
{
	const struct pv_view *v = e->v;
	bool any = false;
	for (uint32_t m = 0; m < e->nm; m++)
		any |= v->nostack[m] != 0;
	if (!any)
		return;
	uint32_t r = row_of(b, PV_NONE, KEY(PV_ROW_NOSTACK, 0, 0));
	if (b->oom)
		return;
	for (uint32_t m = 0; m < e->nm; m++) {
		b->t->self[m][r] += v->nostack[m];
		if (with_total)
			b->t->total[m][r] += v->nostack[m];
	}
}

/* Whether the samples without a stack count in a view of q: not with an include filter. */
bool eng_nostack_kept(const struct pv_query *q)
{
	for (uint32_t i = 0; i < q->nr_filters; i++)
		if (q->filters[i].kind == PV_FILTER_INCLUDE)
			return false;
	return true;
}

/*
 * Rows of a top-down tree by (parent row, key), found without hashing most of the time: a root
 * by its key's index (at function granularity the function itself, else an interned key), a
 * row's first TD_CHAIN children in a list (link[parent].first, then each child's
 * link[child].next: key index and row in one read a step), and only the children past those in
 * a map. Most rows have a few children, so a lookup is a step or two on the list; a tree of
 * unique stacks (millions of roots) costs an array entry a row, not two hash map slots.
 */
#define TD_CHAIN 8

struct td_link {
	uint64_t first; /* the row's first child: its key index << 32 | row + 1 (0: none) */
	uint64_t next;	/* the row's next sibling on its parent's list, the same way */
};

struct td {
	struct tree_build b;
	bool by_func;	/* key index = function (pseudo-functions included) */
	uint32_t nfunc; /* functions and pseudo-functions: key indices below are functions */
	uint32_t *root; /* per key index: its root row + 1 */
	uint32_t root_len, root_cap;
	struct td_link *link; /* per row */
	uint32_t link_cap;
	struct u64map more; /* (parent + 1) << 32 | key index -> row, children past the list */
};

static uint32_t td_key(struct td *d, uint64_t key)
{
	if (d->by_func && KEY_KIND(key) == PV_ROW_FUNCTION)
		return KEY_ID(key);
	return d->nfunc + key_index(&d->b, key);
}

/* Row r's links, none yet (the columns are sized for every row: this grows only past that). */
static int td_link_new(struct td *d, uint32_t r)
{
	if (r >= d->link_cap) {
		uint32_t nc = grow_cap(d->link_cap, (uint64_t)r + 1);
		if (!nc || COL_GROW(d->link, nc))
			return -1;
		d->link_cap = nc;
	}
	d->link[r].first = d->link[r].next = 0;
	return 0;
}

/* The root row of key (key index k), made when new. */
static uint32_t td_root(struct td *d, uint64_t key, uint32_t k)
{
	struct tree_build *b = &d->b;
	if (k >= d->root_len) {
		if (k >= d->root_cap) {
			uint32_t nc = grow_cap(d->root_cap, (uint64_t)k + 1);
			if (!nc || COL_GROW(d->root, nc)) {
				b->oom = 1;
				return 0;
			}
			d->root_cap = nc;
		}
		memset(d->root + d->root_len, 0, (size_t)(k + 1 - d->root_len) * sizeof(*d->root));
		d->root_len = k + 1;
	}
	if (d->root[k])
		return d->root[k] - 1;
	uint32_t r = tb_row(b, PV_NONE, key);
	if (r == PV_NONE || td_link_new(d, r)) {
		b->oom = 1;
		return 0;
	}
	d->root[k] = r + 1;
	return r;
}

/* A new row for key (key index k) under parent, after `steps` children on its list: at *tail
 * (the list's end) or, past TD_CHAIN, in the map. */
static uint32_t td_child_new(struct td *d, uint32_t parent, uint64_t key, uint32_t k,
			     uint64_t *tail, uint32_t steps)
{
	struct tree_build *b = &d->b;
	size_t at = (size_t)((char *)tail - (char *)d->link); /* link may move */
	uint32_t r = tb_row(b, parent, key);
	if (r == PV_NONE || td_link_new(d, r)) {
		b->oom = 1;
		return 0;
	}
	if (steps < TD_CHAIN)
		*(uint64_t *)((char *)d->link + at) = (uint64_t)k << 32 | (r + 1);
	else if (u64map_put(&d->more, ((uint64_t)(parent + 1) << 32) | k, r))
		b->oom = 1;
	return r;
}

/* The row for key under parent (PV_NONE: a root), made when new; inline, as it runs once a
 * stack: most stacks find their row one or two steps down their parent's list. */
static inline __attribute__((always_inline)) uint32_t td_row(struct td *d, uint32_t parent,
							     uint64_t key)
{
	if (d->b.oom)
		return 0;
	uint32_t k = td_key(d, key), r, steps = 0;
	if (d->b.oom)
		return 0;
	if (parent == PV_NONE)
		return td_root(d, key, k);
	uint64_t *tail = &d->link[parent].first; /* the list's end, where a new child goes */
	for (uint64_t f = *tail; f; f = *tail) {
		if ((uint32_t)(f >> 32) == k)
			return (uint32_t)f - 1;
		tail = &d->link[(uint32_t)f - 1].next;
		if (++steps == TD_CHAIN)
			break;
	}
	if (steps == TD_CHAIN &&
	    (r = u64map_get(&d->more, ((uint64_t)(parent + 1) << 32) | k)) != UINT32_MAX)
		return r;
	return td_child_new(d, parent, key, k, tail, steps);
}

/*
 * --self nested (doc/hpctoolkit.md): a row's self also holds the selves of the loops nested in it
 * and of the statements of those loops, HPCToolkit's exclusive cost of procedures and loops.
 * Rows are numbered parents first, so one backward pass adds each loop (and each line under a
 * loop) to its parent after its own nested rows were added to it.
 */
static void nested_self(struct pv_tree *t, uint32_t nm)
{
	for (uint32_t r = t->len; r-- > 0;) {
		uint32_t p = t->parent[r];
		if (p == PV_NONE)
			continue;
		if (t->kind[r] == PV_ROW_LOOP ||
		    (t->kind[r] == PV_ROW_LINE && t->kind[p] == PV_ROW_LOOP))
			for (uint32_t m = 0; m < nm; m++)
				t->self[m][p] += t->self[m][r];
	}
}

/* The 64-bit row key of key index k (td_key's inverse). */
static uint64_t td_key_value(const struct td *d, uint32_t k)
{
	return k < d->nfunc ? KEY(PV_ROW_FUNCTION, k, 0) : d->b.keyv[k - d->nfunc];
}

/*
 * The tail of a printed tree (pv_view_compute_printed, struct pv_tree): a root row that one
 * stack alone makes (no other stack has its key at the root level, none under it makes a
 * child) is a leaf whose total and self are that stack's costs. Only the first `keep` of those in
 * the tree's order can be printed (each printed root is a row of the budget, -n counts roots):
 * they become rows, the others are counted in the tree's tail. The first pass puts in node[s]
 * the key index of the root row stack s is part of (PV_NONE: under a root) and notes per key
 * index what it saw (kf).
 */
enum { KF_SEEN = 1, KF_DUP = 2, KF_CHILD = 4, KF_KEEP = 8 };

struct tail {
	/* by function, code frames only: a stack is part of a root row when it is a root, so
	 * node[] is not needed to say which (and its pages are not touched for the roots alone) */
	bool simple;
	uint8_t *kf; /* per key index: KF_* */
	uint32_t kf_len, kf_cap;
	uint32_t keep; /* how many of the roots alone may be rows */
	int64_t min_cost;
	struct tail_item *heap; /* the roots alone kept so far, the last in order on top */
	uint32_t hlen;
};

static bool tail_alone(const struct tail *tl, uint32_t k)
{
	return k != PV_NONE && (tl->kf[k] & ~KF_KEEP) == KF_SEEN;
}

/* The key index of the root row stack s is part of (PV_NONE: under a root), after tail_scan. */
static uint32_t tail_key(const struct pv_engine *e, struct td *d, const uint32_t *node,
			 const struct tail *tl, uint32_t s)
{
	if (!tl->simple)
		return node[s];
	return e->w.prefix[s] == PV_NONE ? td_key(d, frame_key(e->v, e->w.frame[s], PV_BY_FUNCTION))
					 : PV_NONE;
}

static int tail_scan(struct pv_engine *e, struct td *d, uint32_t *node, struct tail *tl)
{
	const struct wst *w = &e->w;
	enum pv_granularity by = e->v->q.by;
	bool merge_runs = by == PV_BY_FILE || by == PV_BY_MODULE;
	for (uint32_t s = 0; s < w->len; s++) {
		uint32_t pre = w->prefix[s], k = PV_NONE;
		if (tl->simple) {
			k = tail_key(e, d, node, tl, s);
			if (k == PV_NONE && w->prefix[pre] == PV_NONE) {
				tl->kf[tail_key(e, d, node, tl, pre)] |= KF_CHILD;
				continue;
			}
			if (k == PV_NONE)
				continue;
			goto seen;
		}
		uint64_t key = frame_key(e->v, w->frame[s], by);
		if (pre == PV_NONE) {
			k = td_key(d, key == CONTINUE_KEY ? own_key(e->v, w->frame[s], by) : key);
			if (d->b.oom)
				return -1;
		} else if (node[pre] != PV_NONE) {
			/* as eng_build_top_down: a continuing frame or a run stays in the row */
			uint32_t pk = node[pre];
			if (key == CONTINUE_KEY || (merge_runs && td_key_value(d, pk) == key))
				k = pk;
			else
				tl->kf[pk] |= KF_CHILD;
		}
		node[s] = k;
		if (k == PV_NONE)
			continue;
	seen:
		if (k >= tl->kf_len) {
			if (k >= tl->kf_cap) {
				uint32_t nc = grow_cap(tl->kf_cap, (uint64_t)k + 1);
				if (!nc || COL_GROW(tl->kf, nc))
					return -1;
				tl->kf_cap = nc;
			}
			memset(tl->kf + tl->kf_len, 0, k + 1 - tl->kf_len);
			tl->kf_len = k + 1;
		}
		tl->kf[k] |= tl->kf[k] & KF_SEEN ? KF_DUP : KF_SEEN;
	}
	return 0;
}

/* The order of eng_tree_finish's sort (cmp_row) between the roots alone of stacks a and b. */
static int tail_cmp(struct pv_engine *e, struct td *d, const uint32_t *node, const struct tail *tl,
		    uint32_t a, uint32_t b)
{
	int64_t x = e->w.cost[0][a], y = e->w.cost[0][b];
	if (x != y)
		return x > y ? -1 : 1;
	uint64_t ka = td_key_value(d, tail_key(e, d, node, tl, a));
	uint64_t kb = td_key_value(d, tail_key(e, d, node, tl, b));
	char ba[64], bb[64];
	int r =
	    strcmp(pv_view_row_name(e->v, KEY_KIND(ka), KEY_ID(ka), ba, sizeof(ba), KEY_LINE(ka)),
		   pv_view_row_name(e->v, KEY_KIND(kb), KEY_ID(kb), bb, sizeof(bb), KEY_LINE(kb)));
	if (r)
		return r;
	if (KEY_LINE(ka) != KEY_LINE(kb))
		return KEY_LINE(ka) < KEY_LINE(kb) ? -1 : 1;
	if (KEY_ID(ka) != KEY_ID(kb))
		return KEY_ID(ka) < KEY_ID(kb) ? -1 : 1;
	if (KEY_KIND(ka) != KEY_KIND(kb)) /* (rows of one name, line and id: by kind) */
		return KEY_KIND(ka) < KEY_KIND(kb) ? -1 : 1;
	return a < b ? -1 : a > b;
}

/*
 * A root alone in tail_select's heap: its first cost and the first 8 bytes of its name
 * (key_name8) decide most comparisons without a look at the name (300,000 roots of a flat
 * Chrome trace: one name lookup each instead of two a comparison); tail_cmp decides the rest.
 */
struct tail_item {
	int64_t cost;
	uint64_t name8;
	uint32_t s;
};

static int tail_item_cmp(struct pv_engine *e, struct td *d, const uint32_t *node,
			 const struct tail *tl, const struct tail_item *a,
			 const struct tail_item *b)
{
	if (a->cost != b->cost)
		return a->cost > b->cost ? -1 : 1;
	if (a->name8 != b->name8)
		return a->name8 < b->name8 ? -1 : 1;
	return tail_cmp(e, d, node, tl, a->s, b->s);
}

static void tail_sift(struct pv_engine *e, struct td *d, const uint32_t *node, struct tail *tl,
		      uint32_t i)
{
	struct tail_item x = tl->heap[i];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= tl->hlen)
			break;
		if (c + 1 < tl->hlen &&
		    tail_item_cmp(e, d, node, tl, &tl->heap[c + 1], &tl->heap[c]) > 0)
			c++;
		if (tail_item_cmp(e, d, node, tl, &tl->heap[c], &x) <= 0)
			break;
		tl->heap[i] = tl->heap[c];
		i = c;
	}
	tl->heap[i] = x;
}

/* The first tl->keep roots alone (with a cost) in order: KF_KEEP. */
static int tail_select(struct pv_engine *e, struct td *d, const uint32_t *node, struct tail *tl)
{
	const struct wst *w = &e->w;
	tl->heap = pv_malloc((size_t)tl->keep * sizeof(*tl->heap));
	if (!tl->heap)
		return -1;
	for (uint32_t s = 0; s < w->len; s++) {
		uint32_t k = tail_key(e, d, node, tl, s);
		if (!tail_alone(tl, k))
			continue;
		bool any = false;
		for (uint32_t m = 0; m < e->nm; m++)
			any |= w->cost[m][s] != 0;
		if (!any)
			continue; /* no row: eng_tree_finish would not show it */
		if (tl->hlen == tl->keep && w->cost[0][s] < tl->heap[0].cost)
			continue; /* lighter than the last kept: after it, whatever its name */
		uint64_t key = td_key_value(d, k);
		struct tail_item it = {
		    w->cost[0][s], key_name8(e->v, KEY_KIND(key), KEY_ID(key), KEY_LINE(key)), s};
		if (tl->hlen < tl->keep) {
			uint32_t i = tl->hlen++;
			while (i &&
			       tail_item_cmp(e, d, node, tl, &it, &tl->heap[(i - 1) / 2]) > 0) {
				tl->heap[i] = tl->heap[(i - 1) / 2];
				i = (i - 1) / 2;
			}
			tl->heap[i] = it;
		} else if (tail_item_cmp(e, d, node, tl, &it, &tl->heap[0]) < 0) {
			tl->heap[0] = it;
			tail_sift(e, d, node, tl, 0);
		}
	}
	for (uint32_t i = 0; i < tl->hlen; i++)
		tl->kf[tail_key(e, d, node, tl, tl->heap[i].s)] |= KF_KEEP;
	pv_free(tl->heap);
	tl->heap = NULL;
	return 0;
}

/* Whether a tree of e is printed once with bounds: how many roots alone may be rows, else 0. */
static uint32_t tail_keep(const struct pv_engine *e, const uint32_t *anchor)
{
	const struct pv_view *v = e->v;
	if (!e->printed || anchor || e->want_node || v->q.view != PV_VIEW_TREE || v->priv->derived)
		return 0;
	for (uint32_t m = 0; m < e->nm; m++)
		if (v->stat[m] != PV_STAT_SUM)
			return 0;
	uint32_t keep = v->q.max_rows;
	if (v->q.limit && (!keep || v->q.limit < keep))
		keep = v->q.limit;
	return keep < e->w.len ? keep : 0;
}

/*
 * The builder of a top-down tree, and node (a row per working stack). A stack makes at most one
 * row, and the (no stack) row one more: the columns are sized once (no growth, no copies); the
 * pages of rows never made are never touched, and the columns are cut to the rows made at the
 * end (td_end).
 */
static int td_init(struct pv_engine *e, struct td *d, uint32_t **node)
{
	const struct wst *w = &e->w;
	struct tree_build *b = &d->b;
	memset(d, 0, sizeof(*d));
	d->by_func = e->v->q.by == PV_BY_FUNCTION;
	d->nfunc = d->by_func ? e->p->funcs.len + e->v->priv->nr_pseudo : 0;
	*node = pv_malloc((size_t)(w->len ? w->len : 1) * sizeof(**node));
	if (tb_init(b, e->nm) || !*node) {
		pv_free(*node);
		*node = NULL;
		tb_release(b);
		eng_tree_free(b->t, e->nm);
		return pv_error_set(e->err, PV_ENOMEM, "out of memory building a tree");
	}
	uint64_t most = (uint64_t)w->len + 1;
	if (most <= PV_MAX_ROWS && tb_resize(b, (uint32_t)most) == 0 &&
	    COL_GROW(d->link, (uint32_t)most) == 0)
		d->link_cap = (uint32_t)most;
	b->self_only = true;
	return 0;
}

/*
 * Stack s, a root alone of key index tk (struct tail): a row when it may be printed, made once,
 * else its cost in the tree's tail. node[s] stays unset (nothing is under s), its page untouched.
 */
static int tail_root(struct pv_engine *e, struct td *d, const struct tail *tl, uint32_t tk,
		     uint32_t s)
{
	const struct wst *w = &e->w;
	struct pv_tree *t = d->b.t;
	if (tl->kf[tk] & KF_KEEP) {
		uint32_t r = tb_row(&d->b, PV_NONE, td_key_value(d, tk));
		if (r == PV_NONE || td_link_new(d, r))
			return -1;
		row_frame(e->v, d->b.t, r, w->frame[s]);
		for (uint32_t m = 0; m < e->nm; m++)
			d->b.t->self[m][r] += w->cost[m][s];
		return 0;
	}
	bool any = false;
	for (uint32_t m = 0; m < e->nm; m++)
		any |= w->cost[m][s] != 0;
	if (!any)
		return 0;
	if (tl->min_cost > 0 && w->cost[0][s] < tl->min_cost) {
		t->tail_cut++;
		return 0;
	}
	t->tail_roots++;
	for (uint32_t m = 0; m < e->nm; m++) {
		t->tail_total[m] += w->cost[m][s];
		t->tail_self[m] += w->cost[m][s];
	}
	return 0;
}

/* The end of a top-down build: node to the caller (pv__view_rows) or freed, the columns cut to
 * the rows made, the tree finished (and --self nested). */
static int td_end(struct pv_engine *e, struct td *d, uint32_t *node, struct pv_tree **out)
{
	struct tree_build *b = &d->b;
	if (e->want_node && !e->node)
		e->node = node; /* pv__view_rows: handed to the caller */
	else
		pv_free(node);
	pv_free(d->root);
	pv_free(d->link);
	u64map_release(&d->more);
	int oom = b->oom;
	if (!oom) /* cut to the rows made (when that fails, the columns stay as they are) */
		(void)tb_resize(b, b->t->len ? b->t->len : 1);
	tb_release(b);
	if (oom) {
		eng_tree_free(b->t, e->nm);
		return pv_error_set(e->err, PV_ENOMEM, "out of memory building a tree");
	}
	int rc = eng_tree_finish(e, b->t, true);
	if (rc) {
		eng_tree_free(b->t, e->nm);
		return rc;
	}
	if (e->v->q.self == PV_SELF_NESTED)
		nested_self(b->t, e->nm);
	*out = b->t;
	return 0;
}

/*
 * Top-down: node[s] for every working stack; with a center, stacks above the anchor have none
 * and the anchor itself is the one center row. Without a center, the (no stack) row.
 */
int eng_build_top_down(struct pv_engine *e, const uint32_t *anchor, bool center_row,
		       struct pv_tree **out)
{
	struct wst *w = &e->w;
	struct td d;
	uint32_t *node;
	int rc = td_init(e, &d, &node);
	if (rc)
		return rc;
	struct tree_build *b = &d.b;
	enum pv_granularity by = e->v->q.by;
	/* without inlined frames every row's flag stays 0 (eng_tree_finish), so no row_frame */
	bool inlines = e->p->frames.inline_depth != NULL;
	const uint32_t nm = e->nm;
	bool merge_runs = by == PV_BY_FILE || by == PV_BY_MODULE;
	struct tail tl = {.keep = tail_keep(e, anchor), .simple = d.by_func && !e->v->priv->scoped};
	tl.min_cost = pv_query_min_cost(&e->v->q, e->v->base[0]);
	if (tl.keep && (tail_scan(e, &d, node, &tl) || tail_select(e, &d, node, &tl)))
		b->oom = 1;
	for (uint32_t s = 0; s < w->len && !b->oom; s++) {
		uint32_t pre = w->prefix[s], tk = tl.keep ? tail_key(e, &d, node, &tl, s) : PV_NONE;
		if (tail_alone(&tl, tk)) {
			if (tail_root(e, &d, &tl, tk, s))
				b->oom = 1;
			continue;
		} else if (anchor && anchor[s] == PV_NONE) {
			node[s] = PV_NONE;
			continue;
		} else if (anchor && anchor[s] == s && center_row) {
			node[s] = td_row(&d, PV_NONE, CENTER_KEY);
		} else if (anchor && anchor[s] == s) {
			node[s] = td_row(&d, PV_NONE, own_key(e->v, w->frame[s], by));
		} else {
			uint32_t parent = pre == PV_NONE ? PV_NONE : node[pre];
			uint64_t key = frame_key(e->v, w->frame[s], by);
			if (key == CONTINUE_KEY && parent != PV_NONE)
				node[s] = parent; /* a loop or line of the row's function */
			else if (key == CONTINUE_KEY)
				node[s] = td_row(&d, parent, own_key(e->v, w->frame[s], by));
			else if (merge_runs && parent != PV_NONE &&
				 b->t->kind[parent] != PV_ROW_CENTER &&
				 KEY(b->t->kind[parent], b->t->id[parent], 0) == key)
				node[s] = parent;
			else
				node[s] = td_row(&d, parent, key);
		}
		if (b->oom)
			break;
		if (inlines && b->t->kind[node[s]] != PV_ROW_CENTER)
			row_frame(e->v, b->t, node[s], w->frame[s]);
		for (uint32_t m = 0; m < nm; m++)
			b->t->self[m][node[s]] += w->cost[m][s];
	}
	if (!anchor && !b->oom)
		nostack_row(e, b, false);
	pv_free(tl.kf);
	return td_end(e, &d, node, out);
}

/*
 * Bottom-up trees grow heaviest row first from walkers. A walker stands on a working stack and
 * carries the cost of the anchors that led there (without a center every stack with a cost is
 * its own anchor, all of its cost self). The roots get the walkers by key (without a center:
 * the stacks themselves), or all of them under the one center row. Expanding a row moves each of
 * its walkers to the next caller (at file or module granularity, past the run of the row's own
 * key: a run is one row) and groups them by that caller's row key, one child row a group;
 * walkers that reach the same stack in an expansion merge, so callers shared by many anchors are
 * walked once. A row's total is what its walkers carry, its self the part of the center's self
 * (without a center, all of it: the classic inverted tree).
 *
 * The rows are the distinct suffixes of the stacks, so one stack N frames deep with self cost
 * in every frame has N (N + 1) / 2 of them: growth stops at a row budget and a step budget
 * (walker moves), both linear in the working table, and the rows still waiting, the lightest,
 * are left unexpanded; the view's note says how many. Memory: the rows made and the walkers of
 * the rows waiting (at most one per anchor), plus moved-from walkers until a compaction.
 */
#define BU_MIN_ROWS	   1000000u    /* rows: at least this many (and the query's max_rows) */
#define BU_ROWS_PER_STACK  16u	       /* ... or this many per working stack */
#define BU_MIN_STEPS	   16000000ull /* walker moves: at least this many */
#define BU_STEPS_PER_STACK 64u	       /* ... or this many per working stack */

struct bu_item {
	uint64_t w; /* the row's first total, by magnitude */
	uint32_t row;
};

enum bu_step {
	BU_SELF,   /* the walkers' own stacks: the roots of an inverted tree */
	BU_CALLER, /* each walker's caller: the rows below the center */
	BU_RUN,	   /* the caller past the run of the stack's row key (by file, by module) */
};

struct bu {
	struct pv_engine *e;
	struct tree_build b;
	uint32_t nm;
	const uint32_t *anchor; /* the outermost match of each stack's path (NULL: no center) */
	bool merge_runs;	/* by file, by module: a run of one row key is one row */
	/* a profile with loops (bu_own): each stack's own stack, and its caller's (else NULL) */
	uint32_t *own, *up;
	const uint32_t *prefix;
	uint32_t *kx;	 /* per working stack: its row key, an index of b.keyv */
	uint32_t *run;	 /* per working stack: the first caller of another row key (BU_RUN) */
	uint32_t *stamp; /* per working stack: seen (now - 1) or placed (now) in an expansion */
	uint32_t *pos;	 /* per working stack: its walker in the expansion */
	uint32_t *gstamp, *gcount, *gfill, *groups; /* per key index: an expansion's groups */
	uint32_t now;
	/* walkers; the rows waiting to be expanded own the slices [first, first + count) */
	uint32_t *node;
	int64_t *wt, *ws; /* [walker * nm + m]: the total and self it carries */
	uint32_t wlen, wcap;
	uint64_t live;		 /* walkers of the rows waiting */
	uint32_t *first, *count; /* per row */
	uint32_t rcap;
	struct bu_item *heap; /* the rows waiting, heaviest first */
	uint32_t hlen, hcap;
	uint64_t steps;
	int oom;
};

/* heavier (the first metric's total, by magnitude) first, then the older row */
static bool bu_before(const struct bu_item *x, const struct bu_item *y)
{
	return x->w != y->w ? x->w > y->w : x->row < y->row;
}

static void bu_sift(struct bu *u, uint32_t i)
{
	struct bu_item r = u->heap[i];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= u->hlen)
			break;
		if (c + 1 < u->hlen && bu_before(&u->heap[c + 1], &u->heap[c]))
			c++;
		if (!bu_before(&u->heap[c], &r))
			break;
		u->heap[i] = u->heap[c];
		i = c;
	}
	u->heap[i] = r;
}

static void bu_push(struct bu *u, uint32_t r)
{
	if (u->hlen == u->hcap) {
		uint32_t nc = grow_cap(u->hcap, (uint64_t)u->hlen + 1);
		if (!nc || COL_GROW(u->heap, nc)) {
			u->oom = 1;
			return;
		}
		u->hcap = nc;
	}
	int64_t w = u->b.t->total[0][r];
	struct bu_item it = {w < 0 ? -(uint64_t)w : (uint64_t)w, r};
	uint32_t i = u->hlen++;
	while (i && bu_before(&it, &u->heap[(i - 1) / 2])) {
		u->heap[i] = u->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	u->heap[i] = it;
	u->live += u->count[r];
}

static uint32_t bu_pop(struct bu *u)
{
	uint32_t top = u->heap[0].row;
	u->heap[0] = u->heap[--u->hlen];
	if (u->hlen)
		bu_sift(u, 0);
	u->live -= u->count[top];
	return top;
}

/* A new row under parent: no lookup, each (parent, key) is made once, by its parent. */
static uint32_t bu_row(struct bu *u, uint32_t parent, uint64_t key)
{
	uint32_t len = u->b.t->len;
	if (len == u->rcap) {
		uint32_t nc = grow_cap(u->rcap, (uint64_t)len + 1);
		if (!nc || COL_GROW(u->first, nc) || COL_GROW(u->count, nc)) {
			u->oom = 1;
			return PV_NONE;
		}
		u->rcap = nc;
	}
	uint32_t r = tb_row(&u->b, parent, key);
	if (r == PV_NONE)
		u->oom = 1;
	else
		u->first[r] = u->count[r] = 0;
	return r;
}

static void bu_move(struct bu *u, uint32_t to, uint32_t from, uint32_t n)
{
	size_t nm = u->nm;
	if (to == from || !n)
		return;
	memmove(u->node + to, u->node + from, (size_t)n * sizeof(*u->node));
	memmove(u->wt + to * nm, u->wt + from * nm, n * nm * sizeof(int64_t));
	memmove(u->ws + to * nm, u->ws + from * nm, n * nm * sizeof(int64_t));
}

static int bu_grow(struct bu *u, uint64_t need)
{
	if (need <= u->wcap)
		return 0;
	uint32_t nc = grow_cap(u->wcap, need);
	if (!nc || COL_GROW(u->node, nc) ||
	    col_realloc((void **)&u->wt, u->nm * sizeof(int64_t), nc) ||
	    col_realloc((void **)&u->ws, u->nm * sizeof(int64_t), nc))
		return -1;
	u->wcap = nc;
	return 0;
}

/* Walkers by the first walker slot of their row (ctx: u->first). */
static int bu_cmp_first(const void *a, const void *b, void *ctx)
{
	const uint32_t *first = ctx;
	uint32_t x = first[((const struct bu_item *)a)->row];
	uint32_t y = first[((const struct bu_item *)b)->row];
	return x < y ? -1 : x > y;
}

/*
 * Room for n more walkers; the row being expanded owns [*first, *first + n). When the slices of
 * expanded rows are at least half of the walkers, the live ones (the heap's and this one) move
 * down in place, in the order they lie; else the array grows.
 */
static int bu_room(struct bu *u, uint32_t *first, uint32_t n)
{
	if ((uint64_t)u->wlen + n <= u->wcap)
		return 0;
	if ((u->live + n) * 2 <= u->wlen) {
		pv_sort_r(u->heap, u->hlen, sizeof(*u->heap), bu_cmp_first, u->first);
		uint32_t at = 0;
		bool placed = false;
		for (uint32_t i = 0; i <= u->hlen; i++) {
			if (!placed && (i == u->hlen || u->first[u->heap[i].row] > *first)) {
				bu_move(u, at, *first, n);
				*first = at;
				at += n;
				placed = true;
			}
			if (i == u->hlen)
				break;
			uint32_t r = u->heap[i].row;
			bu_move(u, at, u->first[r], u->count[r]);
			u->first[r] = at;
			at += u->count[r];
		}
		u->wlen = at;
		for (uint32_t i = u->hlen / 2; i-- > 0;) /* a heap again */
			bu_sift(u, i);
		if ((uint64_t)u->wlen + n <= u->wcap)
			return 0;
	}
	return bu_grow(u, (uint64_t)u->wlen + n);
}

static uint32_t bu_next(const struct bu *u, uint32_t x, enum bu_step step)
{
	return step == BU_SELF ? x : step == BU_CALLER ? u->prefix[x] : u->run[x];
}

/*
 * Expands the walkers [first, first + n) (those of row parent; PV_NONE: the roots): each moves
 * one step, the ones that reach a stack are grouped by its key, and each group becomes a row
 * under parent, waiting in the heap with its walkers.
 */
static void bu_expand(struct bu *u, uint32_t parent, uint32_t first, uint32_t n, enum bu_step step)
{
	const struct pv_view *v = u->e->v;
	const struct wst *w = &u->e->w;
	size_t nm = u->nm;
	if (bu_room(u, &first, n)) {
		u->oom = 1;
		return;
	}
	u->now += 2;
	uint32_t seen = u->now - 1, placed = u->now, ng = 0, nu = 0;
	for (uint32_t i = first; i < first + n; i++) {
		uint32_t y = bu_next(u, u->node[i], step);
		if (y == PV_NONE || u->stamp[y] == seen)
			continue;
		u->stamp[y] = seen;
		uint32_t k = u->kx[y];
		if (u->gstamp[k] != u->now) {
			u->gstamp[k] = u->now;
			u->gcount[k] = 0;
			u->groups[ng++] = k;
		}
		u->gcount[k]++;
		nu++;
	}
	u->steps += n;
	uint32_t base = u->wlen, at = base;
	for (uint32_t g = 0; g < ng; g++) {
		u->gfill[u->groups[g]] = at;
		at += u->gcount[u->groups[g]];
	}
	u->wlen = base + nu;
	for (uint32_t i = first; i < first + n; i++) {
		uint32_t y = bu_next(u, u->node[i], step);
		if (y == PV_NONE)
			continue;
		if (u->stamp[y] != placed) {
			uint32_t s = u->gfill[u->kx[y]]++;
			u->stamp[y] = placed;
			u->pos[y] = s;
			u->node[s] = y;
			memset(u->wt + s * nm, 0, nm * sizeof(int64_t));
			memset(u->ws + s * nm, 0, nm * sizeof(int64_t));
		}
		size_t s = u->pos[y];
		for (size_t m = 0; m < nm; m++) {
			u->wt[s * nm + m] += u->wt[i * nm + m];
			u->ws[s * nm + m] += u->ws[i * nm + m];
		}
	}
	struct pv_tree *t = u->b.t;
	at = base;
	for (uint32_t g = 0; g < ng && !u->oom; g++) {
		uint32_t k = u->groups[g], c = u->gcount[k];
		uint32_t r = bu_row(u, parent, u->b.keyv[k]);
		if (r == PV_NONE)
			return;
		u->first[r] = at;
		u->count[r] = c;
		for (size_t s = at; s < at + c; s++) {
			row_frame(v, t, r, w->frame[u->node[s]]);
			for (size_t m = 0; m < nm; m++) {
				t->total[m][r] += u->wt[s * nm + m];
				t->self[m][r] += u->ws[s * nm + m];
			}
		}
		at += c;
		bu_push(u, r);
	}
}

/* Whether one of row r's walkers has a caller: the row would have children. */
static bool bu_more(const struct bu *u, uint32_t r, enum bu_step step)
{
	for (uint32_t i = u->first[r]; i < u->first[r] + u->count[r]; i++)
		if (bu_next(u, u->node[i], step) != PV_NONE)
			return true;
	return false;
}

/* How row r's walkers move: past the center to its callers, else to the next row key. */
static enum bu_step bu_step_of(const struct bu *u, uint32_t r, bool merge_runs)
{
	return u->b.t->kind[r] == PV_ROW_CENTER ? BU_CALLER : merge_runs ? BU_RUN : BU_CALLER;
}

static void bu_release(struct bu *u)
{
	tb_release(&u->b);
	pv_free(u->kx);
	if (u->run != u->prefix)
		pv_free(u->run);
	pv_free(u->stamp);
	pv_free(u->pos);
	pv_free(u->gstamp);
	pv_free(u->gcount);
	pv_free(u->gfill);
	pv_free(u->groups);
	pv_free(u->node);
	pv_free(u->wt);
	pv_free(u->ws);
	pv_free(u->first);
	pv_free(u->count);
	pv_free(u->heap);
	pv_free(u->own);
	pv_free(u->up);
}

/* Says in the view's note how many rows a budget left unexpanded. */
static int note_unexpanded(struct pv_engine *e, uint64_t n, uint64_t rows)
{
	struct pv_view *v = e->v;
	char buf[160];
	snprintf(buf, sizeof(buf),
		 "%" PRIu64 " light rows of the bottom-up tree not expanded (at most %" PRIu64
		 " rows)",
		 n, rows);
	size_t old = v->note ? strlen(v->note) : 0;
	char *note = pv_malloc(old + strlen(buf) + 3);
	if (!note)
		return pv_error_set(e->err, PV_ENOMEM, "out of memory");
	snprintf(note, old + strlen(buf) + 3, "%s%s%s", old ? v->note : "", old ? "; " : "", buf);
	pv_free(v->note);
	v->note = note;
	return 0;
}

/* The walkers' builder over e's working table, its per-stack columns. */
static int bu_init(struct bu *u, struct pv_engine *e, const uint32_t *anchor)
{
	const struct wst *w = &e->w;
	uint32_t n = w->len ? w->len : 1;
	enum pv_granularity by = e->v->q.by;
	memset(u, 0, sizeof(*u));
	u->e = e;
	u->nm = e->nm;
	u->anchor = anchor;
	u->merge_runs = by == PV_BY_FILE || by == PV_BY_MODULE;
	u->prefix = w->prefix;
	if (tb_init(&u->b, e->nm))
		return -1;
	u->kx = pv_malloc((size_t)n * sizeof(*u->kx));
	u->run = u->merge_runs ? pv_malloc((size_t)n * sizeof(*u->run)) : w->prefix;
	u->stamp = pv_calloc(n, sizeof(*u->stamp));
	u->pos = pv_malloc((size_t)n * sizeof(*u->pos));
	/* (w->prefix is NULL in a view of no stack: u->run is then never read) */
	return !u->kx || (u->merge_runs && !u->run) || !u->stamp || !u->pos ? -1 : 0;
}

/*
 * A profile with loops and statements (HPCToolkit): at function granularity such a frame makes
 * no row of its own, it continues its function's (frame_key CONTINUE_KEY). own[s] is the stack
 * whose row s belongs to; walkers stand on those only, and a caller is the own stack of the
 * prefix. Without such frames (no own) each stack is its own and a caller is the prefix.
 */
static int bu_own(struct bu *u)
{
	const struct wst *w = &u->e->w;
	const struct pv_view *v = u->e->v;
	uint32_t n = w->len ? w->len : 1;
	if (!v->priv->scoped)
		return 0;
	u->own = pv_malloc((size_t)n * sizeof(*u->own));
	u->up = pv_malloc((size_t)n * sizeof(*u->up));
	if (!u->own || !u->up)
		return -1;
	for (uint32_t s = 0; s < w->len; s++) {
		uint32_t pre = w->prefix[s];
		u->own[s] = frame_key(v, w->frame[s], v->q.by) == CONTINUE_KEY && pre != PV_NONE
				? u->own[pre]
				: s;
		u->up[s] = pre == PV_NONE ? PV_NONE : u->own[pre];
	}
	u->prefix = u->up;
	if (!u->merge_runs)
		u->run = u->up;
	return 0;
}

/* Each stack's row key (and by file or module, the first caller of another), and room for an
 * expansion's groups of keys. */
static int bu_keys(struct bu *u)
{
	const struct wst *w = &u->e->w;
	const struct pv_view *v = u->e->v;
	for (uint32_t s = 0; s < w->len && !u->b.oom; s++) {
		u->kx[s] = key_index(&u->b, own_key(v, w->frame[s], v->q.by));
		if (u->merge_runs) {
			uint32_t pre = u->prefix[s];
			u->run[s] = pre == PV_NONE || u->kx[pre] != u->kx[s] ? pre : u->run[pre];
		}
	}
	uint32_t nk = u->b.nr_keys ? u->b.nr_keys : 1;
	u->gstamp = pv_calloc(nk, sizeof(*u->gstamp));
	u->gcount = pv_malloc((size_t)nk * sizeof(*u->gcount));
	u->gfill = pv_malloc((size_t)nk * sizeof(*u->gfill));
	u->groups = pv_malloc((size_t)nk * sizeof(*u->groups));
	return u->b.oom || !u->gstamp || !u->gcount || !u->gfill || !u->groups ? -1 : 0;
}

/* With a center in a profile with loops: whether each stack's cost is the center's self (a loop
 * or line of the center continues its row); NULL otherwise, or out of memory (*oom). */
static uint8_t *bu_center_self(const struct bu *u, int *oom)
{
	const struct wst *w = &u->e->w;
	const struct pv_view *v = u->e->v;
	const uint32_t *anchor = u->anchor;
	uint8_t *cself;
	if (!anchor || !v->priv->scoped)
		return NULL;
	if (!(cself = pv_malloc(w->len ? w->len : 1))) {
		*oom = 1;
		return NULL;
	}
	for (uint32_t s = 0; s < w->len; s++)
		cself[s] = anchor[s] == s || (anchor[s] != PV_NONE && w->prefix[s] != PV_NONE &&
					      cself[w->prefix[s]] &&
					      frame_key(v, w->frame[s], v->q.by) == CONTINUE_KEY);
	return cself;
}

/* The first walkers: each stack's own row (no center) or each anchor, with its cost. */
static int bu_seed(struct bu *u)
{
	const struct wst *w = &u->e->w;
	const uint32_t *anchor = u->anchor;
	size_t nm = u->nm;
	int oom = 0;
	uint8_t *cself = bu_center_self(u, &oom);
	u->now = 2;
	for (uint32_t s = 0; s < w->len && !oom; s++) {
		uint32_t a = anchor ? anchor[s] : u->own ? u->own[s] : s;
		bool any = false;
		for (uint32_t m = 0; m < nm; m++)
			any |= w->cost[m][s] != 0;
		if (a == PV_NONE || !any)
			continue;
		if (u->stamp[a] != u->now) {
			if (bu_grow(u, (uint64_t)u->wlen + 1)) {
				oom = 1;
				break;
			}
			u->stamp[a] = u->now;
			u->pos[a] = u->wlen++;
			u->node[u->pos[a]] = a;
			memset(u->wt + u->pos[a] * nm, 0, nm * sizeof(int64_t));
			memset(u->ws + u->pos[a] * nm, 0, nm * sizeof(int64_t));
		}
		for (uint32_t m = 0; m < nm; m++) {
			u->wt[u->pos[a] * nm + m] += w->cost[m][s];
			if (!anchor || a == s || (cself && cself[s]))
				u->ws[u->pos[a] * nm + m] += w->cost[m][s];
		}
	}
	pv_free(cself);
	return oom ? -1 : 0;
}

/* The first rows: the center row over every walker, or the roots of the inverted tree. */
static void bu_start(struct bu *u)
{
	uint32_t n0 = u->wlen, nm = u->nm;
	if (u->anchor && n0) {
		uint32_t c = bu_row(u, PV_NONE, CENTER_KEY);
		if (c == PV_NONE)
			return;
		u->count[c] = n0;
		for (size_t i = 0; i < n0; i++) {
			for (uint32_t m = 0; m < nm; m++) {
				u->b.t->total[m][c] += u->wt[i * nm + m];
				u->b.t->self[m][c] += u->ws[i * nm + m];
			}
		}
		bu_push(u, c);
	} else if (n0) {
		bu_expand(u, PV_NONE, 0, n0, BU_SELF);
	}
}

/* The budgets of a tree of a working table of len stacks: rows, and walker moves. */
static void bu_budgets(const struct pv_query *q, uint32_t len, uint64_t *max_rows,
		       uint64_t *max_steps)
{
	*max_rows = (uint64_t)BU_ROWS_PER_STACK * len;
	if (*max_rows < BU_MIN_ROWS)
		*max_rows = BU_MIN_ROWS;
	if (*max_rows < q->max_rows)
		*max_rows = q->max_rows;
	*max_steps = (uint64_t)BU_STEPS_PER_STACK * len;
	if (*max_steps < BU_MIN_STEPS)
		*max_steps = BU_MIN_STEPS;
	if (*max_steps < 4 * *max_rows)
		*max_steps = 4 * *max_rows;
}

/* Grows the tree, heaviest row first, within the budgets (none with --max-rows 0); returns how
 * many rows waiting with callers were left unexpanded. */
static uint64_t bu_grow_all(struct bu *u, uint64_t max_rows, uint64_t max_steps)
{
	uint64_t unexpanded = 0;
	bool unlimited = u->e->v->q.max_rows == 0;
	while (u->hlen && !u->oom) {
		if (!unlimited && (u->b.t->len >= max_rows || u->steps >= max_steps)) {
			/* the rows waiting stay unexpanded: those with callers are counted */
			for (uint32_t i = 0; i < u->hlen; i++) {
				uint32_t r = u->heap[i].row;
				unexpanded += bu_more(u, r, bu_step_of(u, r, u->merge_runs));
			}
			break;
		}
		uint32_t r = bu_pop(u);
		bu_expand(u, r, u->first[r], u->count[r], bu_step_of(u, r, u->merge_runs));
	}
	return unexpanded;
}

/*
 * The bottom-up tree. With a center (anchor[s]: the outermost match of s's path), one center
 * row over the anchors' callers; without, the inverted tree.
 */
int eng_build_bottom_up(struct pv_engine *e, const uint32_t *anchor, struct pv_tree **out)
{
	struct bu u;
	int rc = 0;
	if (bu_init(&u, e, anchor) || bu_own(&u) || bu_keys(&u) || bu_seed(&u))
		goto oom;
	bu_start(&u);
	uint64_t max_rows, max_steps;
	bu_budgets(&e->v->q, e->w.len, &max_rows, &max_steps);
	uint64_t unexpanded = u.oom ? 0 : bu_grow_all(&u, max_rows, max_steps);
	if (!anchor && !u.oom && !u.b.oom)
		nostack_row(e, &u.b, true);
	if (u.oom || u.b.oom)
		goto oom;
	if (unexpanded && (rc = note_unexpanded(e, unexpanded, max_rows)))
		goto fail;
	rc = eng_tree_finish(e, u.b.t, false);
	if (rc)
		goto fail;
	*out = u.b.t;
	u.b.t = NULL;
	bu_release(&u);
	return 0;
oom:
	rc = pv_error_set(e->err, PV_ENOMEM, "out of memory building a tree");
fail:
	eng_tree_free(u.b.t, e->nm);
	bu_release(&u);
	return rc;
}

int pv__tree_finish(struct pv_view *v, struct pv_tree *t, struct pv_error *err)
{
	struct pv_engine e = {.p = v->p, .v = v, .err = err, .nm = v->nr_metrics};
	return eng_tree_finish(&e, t, false);
}

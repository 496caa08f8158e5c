/*
 * flat.c - the flat view (module > file > function > loop > line) and the exact
 * per-function costs of the top list.
 */
#include "view/engine.h"

/* ---- flat view and the per-scope list ---- */

/*
 * Counted once per sample: a depth-first walk over a top-down tree (at line granularity) keeps,
 * for each level's scope, how many rows of it are on the current path; a row adds its total to
 * its scope only when it is the outermost one. The stages: the levels (flat_init), each row's
 * scope at each level (flat_row_scopes), the sums (flat_walk), the order of each level's scopes
 * (flat_order), the rows (flat_emit).
 */
struct flat_build {
	const struct pv_view *v;
	const struct pv_tree *t;
	uint32_t nm;
	bool list;   /* one row a scope wherever it is (the list, top) */
	bool loops;  /* hpcviewer's flat view: the last level nests loops (doc/hpctoolkit.md) */
	bool nestl;  /* ... and its rows are nested in them (the flat view, not the list) */
	bool nested; /* --self nested: a loop's self holds its nested loops' */
	uint32_t nlevels;
	uint32_t levels[4];  /* the levels shown: 0 module, 1 file, 2 function, 3 line or loop */
	uint32_t loop_level; /* with loops, the level of lines and loops (the last); else PV_NONE */
	struct u64map maps[4]; /* per level: a scope's key under its parent -> scope index */
	uint32_t *key_of[4];   /* per tree row: the level's scope index */
	uint32_t nr_scopes[4];
	int64_t *incl[4][PV_QUERY_MAX], *excl[4][PV_QUERY_MAX];
	uint32_t *active[4];
	uint8_t *inlined[4];	   /* scope index -> every tree row of it inlined */
	uint64_t *scope_key[4];	   /* scope index -> KEY() */
	uint32_t *scope_parent[4]; /* scope index -> scope index at the level above */
	/* the last level of a profile with loops: scope index -> the loop scope it is nested in
	 * (PV_NONE: right in its function) and how many loops deep that is */
	uint32_t *loop_parent, *nest;
	uint32_t *row_loop; /* tree row -> the loop scope it is right in (a list has one row of a
			     * line for its places in and out of loops) */
	/* the order of the rows: per level, the scopes grouped by parent (group g is order[first[g]
	 * .. first[g] + count[g]), each group sorted; each scope's key unpacked for the sort */
	uint32_t *order[4], *first[4], *count[4];
	uint8_t *skind[4];
	uint32_t *sid[4], *sline[4];
};

/* Loops nested deeper than this in the flat view are rows beside the deepest one shown. */
#define FLAT_NEST_MAX (PV_FLAT_LEVELS - 4)

/*
 * Whether a scope of the flat view's last level (lines, and an HPCToolkit profile's loops) is a
 * row: by loop, the loops only; in a profile with loops, not a procedure's frame of no line (the
 * procedure itself, above its loops, not a line of it).
 */
static bool loop_level_row(const struct pv_view *v, uint64_t key)
{
	if (KEY_KIND(key) == PV_ROW_LOOP)
		return true;
	if (v->q.by == PV_BY_LOOP)
		return false;
	return !(v->priv->scoped && KEY_KIND(key) == PV_ROW_LINE && KEY_LINE(key) == 0);
}

/* The group of scope sx of level l among the rows of one parent: its parent scope, or for a
 * scope nested in a loop (loops given: the number of groups of parents) loops + that loop's. */
static uint32_t flat_group(const struct flat_build *fb, uint32_t l, uint32_t sx, bool list,
			   uint32_t loops)
{
	if (!l || list)
		return 0;
	if (loops != PV_NONE && fb->loop_parent[sx] != PV_NONE)
		return loops + fb->loop_parent[sx];
	return fb->scope_parent[l][sx];
}

/* Whether level l is the last level of a profile with loops (its scopes nest in loops). */
static bool flat_loop_level(const struct flat_build *fb, uint32_t l)
{
	return l == fb->loop_level;
}

/* The number of scopes at the level above l (at least 1): the groups of level l's rows. */
static uint32_t flat_parents(const struct flat_build *fb, uint32_t l)
{
	return l ? (fb->nr_scopes[l - 1] ? fb->nr_scopes[l - 1] : 1) : 1;
}

/* The levels of the view's rows, at its granularity, and how they nest. */
static void flat_init(struct flat_build *fb, const struct pv_engine *e, const struct pv_tree *t)
{
	const struct pv_view *v = e->v;
	enum pv_granularity by = v->q.by;
	/* by loop: the last level holds the loops only (doc/hpctoolkit.md) */
	bool deep = by == PV_BY_LINE || by == PV_BY_LOOP;
	memset(fb, 0, sizeof(*fb));
	fb->v = v;
	fb->t = t;
	fb->nm = e->nm;
	fb->list = e->kind->list;
	/* hpcviewer's flat view: function > loop > nested loop > line (doc/hpctoolkit.md) */
	fb->loops = deep && v->priv->scoped;
	fb->nestl = fb->loops && !fb->list;
	fb->nested = v->q.self == PV_SELF_NESTED;
	uint32_t nl = 0;
	if (fb->list) {
		fb->levels[nl++] = by == PV_BY_MODULE ? 0 : by == PV_BY_FILE ? 1 : deep ? 3 : 2;
	} else {
		fb->levels[nl++] = 0;
		if (by != PV_BY_MODULE)
			fb->levels[nl++] = 1;
		if (by == PV_BY_FUNCTION || deep)
			fb->levels[nl++] = 2;
		if (deep)
			fb->levels[nl++] = 3;
	}
	fb->nlevels = nl;
	fb->loop_level = fb->loops ? nl - 1 : PV_NONE;
}

/* The columns per tree row, and per scope (a level has at most a scope a row). */
static int flat_alloc_rows(struct flat_build *fb)
{
	uint32_t n = fb->t->len ? fb->t->len : 1;
	for (uint32_t l = 0; l < fb->nlevels; l++) {
		fb->key_of[l] = pv_malloc((size_t)n * sizeof(uint32_t));
		fb->scope_key[l] = pv_malloc((size_t)n * sizeof(uint64_t));
		fb->scope_parent[l] = pv_malloc((size_t)n * sizeof(uint32_t));
		if (!fb->key_of[l] || !fb->scope_key[l] || !fb->scope_parent[l])
			return -1;
	}
	if (fb->loops) {
		fb->loop_parent = pv_malloc((size_t)n * sizeof(uint32_t));
		fb->nest = pv_malloc((size_t)n * sizeof(uint32_t));
		fb->row_loop = pv_malloc((size_t)n * sizeof(uint32_t));
		if (!fb->loop_parent || !fb->nest || !fb->row_loop)
			return -1;
	}
	return 0;
}

/* The key of tree row r's scope at a level (0 module .. 3 line or loop; fn: the row's
 * function). */
static uint64_t flat_key(const struct flat_build *fb, uint32_t r, uint32_t level, uint32_t fn)
{
	const struct pv_tree *t = fb->t;
	switch (t->kind[r] == PV_ROW_NOSTACK ? 4 : level) {
	case 4: return KEY(PV_ROW_NOSTACK, 0, 0); /* one row, on top */
	case 0: return KEY(PV_ROW_MODULE, fn_module(fb->v, fn), 0);
	case 1: return KEY(PV_ROW_FILE, fn_source(fb->v, fn), 0);
	case 2: return KEY(PV_ROW_FUNCTION, fn, 0);
	default:
		return t->kind[r] == PV_ROW_LOOP ? KEY(PV_ROW_LOOP, t->id[r], 0)
						 : KEY(PV_ROW_LINE, fn, t->line[r]);
	}
}

/*
 * The loop scope that tree row r's scope at level l is nested in: a loop, or a line, right in a
 * loop of its function (rows are numbered parents first); too deep, beside the deepest loop
 * shown. PV_NONE: none.
 */
static uint32_t flat_enclosing(const struct flat_build *fb, uint32_t r, uint32_t l, uint32_t fn)
{
	const struct pv_tree *t = fb->t;
	uint32_t pr = t->parent[r];
	if (!flat_loop_level(fb, l) || pr == PV_NONE || t->kind[pr] != PV_ROW_LOOP ||
	    t->kind[r] == PV_ROW_NOSTACK || vf_func(fb->v, t->id[pr]) != fn)
		return PV_NONE;
	uint32_t encl = fb->key_of[l][pr];
	if (fb->nestl && fb->nest[encl] + 1 > FLAT_NEST_MAX)
		encl = fb->loop_parent[encl];
	return encl;
}

/* The scope of key at level l under parent scope ps or loop scope encl, made when new; PV_NONE
 * when out of memory. */
static uint32_t flat_scope(struct flat_build *fb, uint32_t l, uint64_t key, uint32_t ps,
			   uint32_t encl)
{
	/* nesting: a file row belongs to its module row, and so on; a list has one row a scope
	 * wherever it is */
	uint64_t mk = fb->list		? key
		      : encl == PV_NONE ? key ^ ((uint64_t)(ps + 1) * 0x9e3779b97f4a7c15ULL)
					: key ^ ((uint64_t)(encl + 1) * 0xc2b2ae3d27d4eb4fULL);
	uint32_t sx = u64map_get(&fb->maps[l], mk);
	if (sx != UINT32_MAX)
		return sx;
	sx = fb->nr_scopes[l]++;
	fb->scope_key[l][sx] = key;
	fb->scope_parent[l][sx] = ps;
	if (flat_loop_level(fb, l)) {
		fb->loop_parent[sx] = encl;
		fb->nest[sx] = encl == PV_NONE ? 0 : fb->nest[encl] + 1;
	}
	return u64map_put(&fb->maps[l], mk, sx) ? PV_NONE : sx;
}

/* The scope of each tree row at each level; rows are (function, line) at line granularity. */
static int flat_row_scopes(struct flat_build *fb)
{
	const struct pv_tree *t = fb->t;
	const uint32_t nl = fb->nlevels;
	uint32_t levels[4];
	memcpy(levels, fb->levels, sizeof(levels));
	for (uint32_t r = 0; r < t->len; r++) {
		uint32_t fn = t->kind[r] == PV_ROW_LOOP ? vf_func(fb->v, t->id[r]) : t->id[r];
		uint32_t ps = PV_NONE;
		for (uint32_t l = 0; l < nl; l++) {
			uint32_t encl = flat_enclosing(fb, r, l, fn);
			if (flat_loop_level(fb, l))
				fb->row_loop[r] = encl;
			uint32_t sx = flat_scope(fb, l, flat_key(fb, r, levels[l], fn), ps, encl);
			if (sx == PV_NONE)
				return -1;
			fb->key_of[l][r] = ps = sx;
		}
	}
	return 0;
}

/* Per scope: its sums, the walk's counter, whether every row of it is inlined. */
static int flat_alloc_sums(struct flat_build *fb)
{
	const struct pv_tree *t = fb->t;
	for (uint32_t l = 0; l < fb->nlevels; l++) {
		uint32_t ns = fb->nr_scopes[l] ? fb->nr_scopes[l] : 1;
		fb->active[l] = pv_calloc(ns, sizeof(uint32_t));
		fb->inlined[l] = pv_malloc(ns);
		if (!fb->active[l] || !fb->inlined[l])
			return -1;
		memset(fb->inlined[l], 1, ns);
		for (uint32_t r = 0; r < t->len; r++)
			fb->inlined[l][fb->key_of[l][r]] &= t->inlined ? t->inlined[r] : 0;
		for (uint32_t m = 0; m < fb->nm; m++) {
			fb->incl[l][m] = pv_calloc(ns, sizeof(int64_t));
			fb->excl[l][m] = pv_calloc(ns, sizeof(int64_t));
			if (!fb->incl[l][m] || !fb->excl[l][m])
				return -1;
		}
	}
	return 0;
}

/*
 * A loop's self at the last level: its own lines', and with --self nested its nested loops' too
 * (the rows' selves are their own here). One rule: a row's self counts once in each scope that
 * is its own or a loop around it, so a loop nested in itself (two loops of one frame, L > L: a
 * list has one scope for both) does not count its inner row twice. The enclosing scopes are
 * older than the row's loop, so only sx (row r's own scope) can repeat.
 */
static void flat_loop_self(struct flat_build *fb, uint32_t l, uint32_t sx, uint32_t r)
{
	uint32_t a = fb->row_loop[r];
	if (!fb->nested && KEY_KIND(fb->scope_key[l][sx]) != PV_ROW_LINE)
		a = PV_NONE;
	for (; a != PV_NONE; a = fb->nested ? fb->loop_parent[a] : PV_NONE)
		for (uint32_t m = 0; m < fb->nm && a != sx; m++)
			fb->excl[l][m][a] += fb->t->self[m][r];
}

/* The sums of each scope: a depth-first walk of the tree, a row's total counted in its scope
 * when it is the outermost row of it on the path, its self always. */
static int flat_walk(struct flat_build *fb)
{
	const struct pv_tree *t = fb->t;
	const uint32_t nl = fb->nlevels, nm = fb->nm, loop_level = fb->loop_level;
	uint32_t maxd = 1;
	for (uint32_t r = 0; r < t->len; r++)
		if (t->depth[r] + 1 > maxd)
			maxd = t->depth[r] + 1;
	uint32_t *stack = pv_malloc((size_t)maxd * sizeof(uint32_t));
	uint32_t *iter = pv_malloc((size_t)maxd * sizeof(uint32_t));
	if (!stack || !iter) {
		pv_free(stack);
		pv_free(iter);
		return -1;
	}
	for (uint32_t ri = 0; ri < t->nr_roots; ri++) {
		uint32_t sp = 0;
		uint32_t r = t->roots[ri];
		goto enter;
		while (sp) {
			r = stack[sp - 1];
			if (iter[sp - 1] < t->child_len[r]) {
				r = t->children[t->child_first[r] + iter[sp - 1]++];
			enter:
				for (uint32_t l = 0; l < nl; l++) {
					uint32_t sx = fb->key_of[l][r];
					bool outer = fb->active[l][sx]++ == 0;
					for (uint32_t m = 0; m < nm; m++) {
						if (outer)
							fb->incl[l][m][sx] += t->total[m][r];
						fb->excl[l][m][sx] += t->self[m][r];
					}
					if (l == loop_level)
						flat_loop_self(fb, l, sx, r);
				}
				stack[sp] = r;
				iter[sp] = 0;
				sp++;
			} else {
				for (uint32_t l = 0; l < nl; l++)
					fb->active[l][fb->key_of[l][r]]--;
				sp--;
			}
		}
	}
	pv_free(stack);
	pv_free(iter);
	return 0;
}

/* Level l's scopes in order: grouped by parent scope (a counting sort), each group sorted. */
static int flat_order_level(struct flat_build *fb, uint32_t l, enum pv_sort_key sort)
{
	uint32_t ns = fb->nr_scopes[l] ? fb->nr_scopes[l] : 1;
	fb->order[l] = pv_malloc((size_t)ns * sizeof(uint32_t));
	fb->skind[l] = pv_malloc(ns);
	fb->sid[l] = pv_malloc((size_t)ns * sizeof(uint32_t));
	fb->sline[l] = pv_malloc((size_t)ns * sizeof(uint32_t));
	uint32_t np = flat_parents(fb, l);
	/* the last level nested in loops: groups np + loop scope, after the functions' */
	uint32_t ng = fb->nestl && l + 1 == fb->nlevels ? np + ns : np;
	uint32_t loops = ng > np ? np : PV_NONE;
	fb->first[l] = pv_calloc(ng, sizeof(uint32_t));
	fb->count[l] = pv_calloc(ng, sizeof(uint32_t));
	if (!fb->order[l] || !fb->skind[l] || !fb->sid[l] || !fb->sline[l] || !fb->first[l] ||
	    !fb->count[l])
		return -1;
	uint32_t *first = fb->first[l], *count = fb->count[l];
	for (uint32_t sx = 0; sx < fb->nr_scopes[l]; sx++) {
		fb->skind[l][sx] = KEY_KIND(fb->scope_key[l][sx]);
		fb->sid[l][sx] = KEY_ID(fb->scope_key[l][sx]);
		fb->sline[l][sx] = KEY_LINE(fb->scope_key[l][sx]);
		count[flat_group(fb, l, sx, fb->list, loops)]++;
	}
	uint32_t off = 0;
	for (uint32_t ps = 0; ps < ng; ps++) {
		first[ps] = off;
		off += count[ps];
		count[ps] = 0;
	}
	for (uint32_t sx = 0; sx < fb->nr_scopes[l]; sx++) {
		uint32_t ps = flat_group(fb, l, sx, fb->list, loops);
		fb->order[l][first[ps] + count[ps]++] = sx;
	}
	bool by_self = sort == PV_SORT_SELF;
	struct row_sort c = {fb->v,
			     NULL,
			     by_self ? fb->excl[l][0] : fb->incl[l][0],
			     by_self ? fb->incl[l][0] : fb->excl[l][0],
			     fb->skind[l],
			     fb->sid[l],
			     fb->sline[l],
			     NULL};
	for (uint32_t ps = 0; ps < ng; ps++)
		eng_sort_ix(&c, fb->order[l] + first[ps], count[ps]);
	return 0;
}

/* Whether scope sx of level l is a row: it has a cost, and is not under the (no stack) row nor
 * a line or loop the view does not show. */
static bool flat_shown(const struct flat_build *fb, uint32_t l, uint32_t sx)
{
	bool live = false;
	for (uint32_t m = 0; m < fb->nm; m++)
		live |= fb->incl[l][m][sx] != 0 || fb->excl[l][m][sx] != 0;
	if (!live) /* a scope only on stacks without cost: nothing under it either */
		return false;
	if (KEY_KIND(fb->scope_key[l][sx]) == PV_ROW_NOSTACK && l > 0)
		return false; /* the (no stack) row has no rows under it */
	return fb->levels[l] != 3 || loop_level_row(fb->v, fb->scope_key[l][sx]);
}

/* The rows: depth first through the levels with a cursor per level (past the last level: loops
 * in loops), each level's scopes nested under their parent scope, in order. */
static void flat_emit(const struct flat_build *fb, struct pv_flat *f)
{
	uint32_t pos[PV_FLAT_LEVELS] = {0}, endp[PV_FLAT_LEVELS] = {0};
	uint32_t nl = fb->nlevels, depth = 0;
	uint32_t np_last = flat_parents(fb, nl - 1);
	endp[0] = fb->nr_scopes[0];
	f->len = 0;
	while (true) {
		if (pos[depth] == endp[depth]) {
			if (depth == 0)
				break;
			depth--;
			continue;
		}
		uint32_t l = depth < nl ? depth : nl - 1; /* past it: loops in loops */
		uint32_t sx = fb->order[l][pos[depth]++];
		if (!flat_shown(fb, l, sx))
			continue;
		uint32_t o = f->len++;
		f->kind[o] = fb->skind[l][sx];
		f->id[o] = fb->sid[l][sx];
		f->line[o] = fb->sline[l][sx];
		f->level[o] = (uint8_t)(fb->levels[l] + (depth - l));
		for (uint32_t m = 0; m < fb->nm; m++) {
			f->total[m][o] = fb->incl[l][m][sx];
			f->self[m][o] = fb->excl[l][m][sx];
		}
		f->inlined[o] = fb->inlined[l][sx];
		bool nostack = f->kind[o] == PV_ROW_NOSTACK;
		if (!fb->list && l + 1 < nl && !nostack) {
			depth++;
			pos[depth] = fb->first[depth][sx];
			endp[depth] = fb->first[depth][sx] + fb->count[depth][sx];
		} else if (fb->nestl && l + 1 == nl && fb->count[l][np_last + sx]) {
			depth++; /* the loops and lines in this loop */
			pos[depth] = fb->first[l][np_last + sx];
			endp[depth] = pos[depth] + fb->count[l][np_last + sx];
		}
	}
}

static void flat_release(struct flat_build *fb)
{
	pv_free(fb->loop_parent);
	pv_free(fb->nest);
	pv_free(fb->row_loop);
	for (uint32_t l = 0; l < 4; l++) {
		pv_free(fb->key_of[l]);
		pv_free(fb->scope_key[l]);
		pv_free(fb->scope_parent[l]);
		pv_free(fb->active[l]);
		pv_free(fb->inlined[l]);
		for (uint32_t m = 0; m < fb->nm; m++) {
			pv_free(fb->incl[l][m]);
			pv_free(fb->excl[l][m]);
		}
		u64map_release(&fb->maps[l]);
		pv_free(fb->order[l]);
		pv_free(fb->first[l]);
		pv_free(fb->count[l]);
		pv_free(fb->skind[l]);
		pv_free(fb->sid[l]);
		pv_free(fb->sline[l]);
	}
}

static void flat_free(struct pv_flat *f, uint32_t nm)
{
	if (!f)
		return;
	pv_free(f->kind);
	pv_free(f->id);
	pv_free(f->line);
	pv_free(f->level);
	pv_free(f->in_center);
	pv_free(f->inlined);
	for (uint32_t m = 0; m < nm && f->total; m++) {
		pv_free(f->total[m]);
		pv_free(f->self[m]);
	}
	pv_free(f->total);
	pv_free(f->self);
	pv_free(f);
}

/* A flat view of room for cap rows (lines 0, none in the center nor inlined), none yet; NULL
 * when out of memory. */
static struct pv_flat *flat_alloc(uint32_t nm, uint32_t cap)
{
	struct pv_flat *f = pv_calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->kind = pv_malloc(cap);
	f->id = pv_malloc((size_t)cap * sizeof(uint32_t));
	f->line = pv_calloc(cap, sizeof(uint32_t));
	f->level = pv_malloc(cap);
	f->in_center = pv_calloc(cap, 1);
	f->inlined = pv_calloc(cap, 1);
	f->total = pv_calloc(nm, sizeof(int64_t *));
	f->self = pv_calloc(nm, sizeof(int64_t *));
	bool ok = f->kind && f->id && f->line && f->level && f->in_center && f->inlined &&
		  f->total && f->self;
	for (uint32_t m = 0; ok && m < nm; m++) {
		f->total[m] = pv_malloc((size_t)cap * sizeof(int64_t));
		f->self[m] = pv_malloc((size_t)cap * sizeof(int64_t));
		ok = f->total[m] && f->self[m];
	}
	if (!ok) {
		flat_free(f, nm);
		return NULL;
	}
	return f;
}

int eng_flat_compute(struct pv_engine *e, const struct pv_tree *t, struct pv_flat **out)
{
	struct flat_build fb;
	flat_init(&fb, e, t);
	struct pv_flat *f = NULL;
	bool ok = !flat_alloc_rows(&fb) && !flat_row_scopes(&fb) && !flat_alloc_sums(&fb) &&
		  !flat_walk(&fb);
	for (uint32_t l = 0; ok && l < fb.nlevels; l++)
		ok = !flat_order_level(&fb, l, e->sort);
	if (ok) {
		uint32_t total_rows = 0;
		for (uint32_t l = 0; l < fb.nlevels; l++)
			total_rows += fb.nr_scopes[l];
		f = flat_alloc(e->nm, total_rows ? total_rows : 1);
		if (f)
			flat_emit(&fb, f);
	}
	flat_release(&fb);
	if (!f)
		return pv_error_set(e->err, PV_ENOMEM, "out of memory building the flat view");
	*out = f;
	return 0;
}

/*
 * Call-graph formats (callgrind) state each function's exact self and inclusive cost; the samples
 * only hold calling contexts estimated from the call graph. A list of functions over the whole,
 * unfiltered profile shows the file's own numbers (what callgrind_annotate prints), re-sorted.
 */
static bool whole_profile(const struct pv_view *v)
{
	const struct pv_query *q = &v->q;
	return !q->nr_filters && !q->has_range && !v->centered && !q->inside_markers &&
	       v->nr_threads == v->p->threads.len;
}

/*
 * A list printed once shows only its first limit rows (print_flat): rows[0..n) reordered so that
 * those are the rows eng_sort_ix would put first, in its order, the others after them unsorted.
 * The limit-th largest key K (a heap of the limit largest keys) splits them: the rows of a key
 * above K come first, sorted, then those of key K, sorted (cmp_row orders by the key first).
 */
static void sort_printed(struct row_sort *c, uint32_t *rows, uint32_t n, uint32_t limit)
{
	int64_t *heap = pv_malloc((size_t)limit * sizeof(*heap));
	if (!heap) {
		eng_sort_ix(c, rows, n);
		return;
	}
	uint32_t h = 0;
	for (uint32_t i = 0; i < n; i++) {
		int64_t k = c->key[rows[i]];
		uint32_t j;
		if (h < limit) { /* min-heap: sift up */
			for (j = h++; j && heap[(j - 1) / 2] > k; j = (j - 1) / 2)
				heap[j] = heap[(j - 1) / 2];
			heap[j] = k;
			continue;
		}
		if (k <= heap[0])
			continue;
		for (j = 0;;) { /* the smallest replaced: sift down */
			uint32_t l = 2 * j + 1;
			if (l >= h)
				break;
			if (l + 1 < h && heap[l + 1] < heap[l])
				l++;
			if (heap[l] >= k)
				break;
			heap[j] = heap[l];
			j = l;
		}
		heap[j] = k;
	}
	int64_t K = heap[0];
	pv_free(heap);
	/* three ways: above K, K, below K */
	uint32_t lo = 0, mid = 0, hi = n;
	while (mid < hi) {
		uint32_t r = rows[mid];
		if (c->key[r] > K) {
			rows[mid++] = rows[lo];
			rows[lo++] = r;
		} else if (c->key[r] < K) {
			rows[mid] = rows[--hi];
			rows[hi] = r;
		} else {
			mid++;
		}
	}
	eng_sort_ix(c, rows, lo);
	eng_sort_ix(c, rows + lo, hi - lo);
}

/*
 * The rows of a list printed once (pv_view_compute_printed) whose order is printed: its -n, when
 * nothing after eng_exact_function_costs orders or cuts the rows again (derived metrics,
 * statistics across threads, --min-percent); else 0.
 */
static uint32_t printed_limit(const struct pv_engine *e)
{
	const struct pv_view *v = e->v;
	if (!e->printed || !e->kind || !e->kind->list || v->q.nr_derive || e->p->formulas.len ||
	    v->q.min_percent > 0)
		return 0;
	for (uint32_t m = 0; m < e->nm; m++)
		if (v->stat[m] != PV_STAT_SUM)
			return 0;
	return v->q.limit;
}

void eng_exact_function_costs(struct pv_engine *e)
{
	const struct pv_profile *p = e->p;
	struct pv_view *v = e->v;
	struct pv_flat *f = v->flat;
	if (!p->func_costs.total || p->func_costs.funcs_len != p->funcs.len || !whole_profile(v) ||
	    v->q.by != PV_BY_FUNCTION)
		return;
	for (uint32_t r = 0; r < f->len; r++) {
		if (f->kind[r] != PV_ROW_FUNCTION || f->id[r] >= p->funcs.len)
			continue;
		for (uint32_t m = 0; m < e->nm; m++) {
			f->total[m][r] = p->func_costs.total[v->metrics[m]][f->id[r]];
			f->self[m][r] = p->func_costs.self[v->metrics[m]][f->id[r]];
		}
	}
	/* re-sort each run of function rows (the list, or the functions of one file); scratch of
	 * a row's size each (pv_col_resize: from 2 MiB in huge pages) */
	size_t n1 = f->len ? f->len : 1;
	uint32_t *order = pv_col_resize(NULL, 0, n1 * sizeof(*order), false);
	int64_t *tot = pv_col_resize(NULL, 0, n1 * sizeof(*tot), false);
	int64_t *slf = pv_col_resize(NULL, 0, n1 * sizeof(*slf), false);
	uint32_t *id = pv_col_resize(NULL, 0, n1 * sizeof(*id), false);
	if (!order || !tot || !slf || !id)
		goto out;
	for (uint32_t a = 0; a < f->len;) {
		uint32_t b = a;
		while (b < f->len && f->kind[b] == PV_ROW_FUNCTION)
			b++;
		if (b - a > 1) {
			for (uint32_t r = a; r < b; r++)
				order[r - a] = r;
			bool by_self = e->sort == PV_SORT_SELF;
			struct row_sort c = {v,
					     NULL,
					     by_self ? f->self[0] : f->total[0],
					     by_self ? f->total[0] : f->self[0],
					     f->kind,
					     f->id,
					     f->line,
					     NULL};
			uint32_t limit = printed_limit(e);
			if (limit && limit < b - a && b - a == f->len)
				sort_printed(&c, order, b - a, limit);
			else
				eng_sort_ix(&c, order, b - a);
			for (uint32_t m = 0; m < e->nm; m++) {
				for (uint32_t k = 0; k < b - a; k++) {
					tot[k] = f->total[m][order[k]];
					slf[k] = f->self[m][order[k]];
				}
				memcpy(f->total[m] + a, tot, (b - a) * sizeof(*tot));
				memcpy(f->self[m] + a, slf, (b - a) * sizeof(*slf));
			}
			for (uint32_t k = 0; k < b - a; k++)
				id[k] = f->id[order[k]];
			memcpy(f->id + a, id, (b - a) * sizeof(*id));
			for (uint32_t k = 0; k < b - a; k++)
				id[k] = f->inlined[order[k]];
			for (uint32_t k = 0; k < b - a; k++)
				f->inlined[a + k] = (uint8_t)id[k];
		}
		a = b == a ? a + 1 : b;
	}
out:
	pv_col_free(order, n1 * sizeof(*order));
	pv_col_free(tot, n1 * sizeof(*tot));
	pv_col_free(slf, n1 * sizeof(*slf));
	pv_col_free(id, n1 * sizeof(*id));
}

/*
 * Which functions have a row in the exact list: those whose cost over the samples, as
 * eng_flat_compute sums it (self, and total with recursion counted once), is not zero in some
 * shown metric. Without negative costs one pass in stack order tells; with them a depth-first
 * walk of the stack tree with one active counter per function.
 */
struct fn_walk {
	const struct pv_view *v;
	const struct wst *w;
	uint32_t ns, nf;
	uint32_t *fnof;		/* per stack: its function */
	uint32_t *first, *kids; /* per stack: its children, kids[first[s] .. first[s + 1]) */
	uint32_t *stk, *it;	/* the walk's path and each step's next child */
	uint32_t *active;	/* per function: its frames on the path */
	int64_t *incl;		/* per stack: inclusive cost in the metric */
	int64_t *fin, *fex;	/* per function: total and self in the metric */
	bool have_kids;
};

static void fn_walk_release(struct fn_walk *fw)
{
	pv_free(fw->first);
	pv_free(fw->kids);
	pv_free(fw->stk);
	pv_free(fw->it);
	pv_free(fw->active);
	pv_free(fw->incl);
	pv_free(fw->fin);
	pv_free(fw->fex);
	pv_free(fw->fnof);
}

static int fn_walk_init(struct fn_walk *fw, const struct pv_engine *e)
{
	const struct wst *w = &e->w;
	uint32_t ns = w->len, nf = e->p->funcs.len;
	size_t n1 = ns ? ns : 1, f1 = nf ? nf : 1;
	*fw = (struct fn_walk){.v = e->v, .w = w, .ns = ns, .nf = nf};
	fw->first = pv_calloc((size_t)ns + 1, sizeof(uint32_t));
	fw->kids = pv_malloc(n1 * sizeof(uint32_t));
	fw->stk = pv_malloc(n1 * sizeof(uint32_t));
	fw->it = pv_malloc(n1 * sizeof(uint32_t));
	fw->active = pv_calloc(f1, sizeof(uint32_t));
	fw->incl = pv_malloc(n1 * sizeof(int64_t));
	fw->fin = pv_calloc(f1, sizeof(int64_t));
	fw->fex = pv_calloc(f1, sizeof(int64_t));
	fw->fnof = pv_malloc(n1 * sizeof(uint32_t));
	if (!fw->first || !fw->kids || !fw->stk || !fw->it || !fw->active || !fw->incl ||
	    !fw->fin || !fw->fex || !fw->fnof)
		return -1;
	for (uint32_t x = 0; x < ns; x++)
		fw->fnof[x] = vf_func(e->v, w->frame[x]);
	return 0;
}

/* The children of each stack, for the walk (once). */
static void fn_walk_children(struct fn_walk *fw)
{
	const uint32_t *prefix = fw->w->prefix;
	uint32_t ns = fw->ns;
	if (fw->have_kids)
		return;
	for (uint32_t x = 0; x < ns; x++)
		if (prefix[x] != PV_NONE)
			fw->first[prefix[x] + 1]++;
	for (uint32_t x = 0; x < ns; x++)
		fw->first[x + 1] += fw->first[x];
	memset(fw->it, 0, (size_t)ns * sizeof(uint32_t));
	for (uint32_t x = 0; x < ns; x++)
		if (prefix[x] != PV_NONE)
			fw->kids[fw->first[prefix[x]] + fw->it[prefix[x]]++] = x;
	fw->have_kids = true;
}

/* Each function's total (its outermost frames' inclusive costs) and self in metric m. */
static void fn_walk_costs(struct fn_walk *fw, uint32_t m)
{
	const struct wst *w = fw->w;
	uint32_t *stk = fw->stk, *it = fw->it, *first = fw->first;
	fn_walk_children(fw);
	for (uint32_t root = 0; root < fw->ns; root++) {
		if (w->prefix[root] != PV_NONE)
			continue;
		uint32_t sp = 0;
		uint32_t x = root;
		goto enter;
		while (sp) {
			x = stk[sp - 1];
			if (it[sp - 1] < first[x + 1] - first[x]) {
				x = fw->kids[first[x] + it[sp - 1]++];
			enter:;
				uint32_t fn = fw->fnof[x];
				if (fn < fw->nf) {
					if (fw->active[fn]++ == 0)
						fw->fin[fn] += fw->incl[x];
					fw->fex[fn] += w->cost[m][x];
				}
				stk[sp] = x;
				it[sp] = 0;
				sp++;
			} else {
				uint32_t fn = fw->fnof[x];
				if (fn < fw->nf)
					fw->active[fn]--;
				sp--;
			}
		}
	}
}

/* seen[fn] = 1 for each function with a row (above). */
static int exact_seen(struct pv_engine *e, uint8_t *seen)
{
	const struct wst *w = &e->w;
	struct fn_walk fw;
	int rc = fn_walk_init(&fw, e);
	uint32_t ns = fw.ns, nf = fw.nf;
	for (uint32_t m = 0; !rc && m < e->nm; m++) {
		memcpy(fw.incl, w->cost[m], (size_t)ns * sizeof(*fw.incl));
		for (uint32_t x = ns; x-- > 0;)
			if (w->prefix[x] != PV_NONE)
				fw.incl[w->prefix[x]] += fw.incl[x];
		/*
		 * Without negative costs, a function's total is not zero exactly when one of its
		 * frames has a non-zero inclusive cost (the outermost one's is at least as large):
		 * one pass in stack order. Negative costs (cachegrind diffs) can cancel: walk.
		 */
		bool negative = false;
		for (uint32_t x = 0; x < ns && !negative; x++)
			negative = w->cost[m][x] < 0;
		if (!negative) {
			for (uint32_t x = 0; x < ns; x++) {
				uint32_t fn = fw.fnof[x];
				if (fn < nf && !seen[fn] && (fw.incl[x] != 0 || w->cost[m][x] != 0))
					seen[fn] = 1;
			}
			continue;
		}
		memset(fw.fin, 0, (size_t)nf * sizeof(*fw.fin));
		memset(fw.fex, 0, (size_t)nf * sizeof(*fw.fex));
		fn_walk_costs(&fw, m);
		for (uint32_t fn = 0; fn < nf; fn++)
			if (!seen[fn] && (fw.fin[fn] != 0 || fw.fex[fn] != 0))
				seen[fn] = 1;
	}
	fn_walk_release(&fw);
	return rc;
}

/*
 * The list of the functions marked in seen (freed here), each its exact costs, sorted as asked
 * (eng_exact_function_costs): 1, or the error.
 */
static int function_list(struct pv_engine *e, uint8_t *seen)
{
	uint32_t nf = e->p->funcs.len, n = 0;
	for (uint32_t fn = 0; fn < nf; fn++)
		n += seen[fn];
	/* call-graph formats have no inlined frames */
	struct pv_flat *f = flat_alloc(e->nm, n ? n : 1);
	if (!f) {
		pv_free(seen);
		return pv_error_set(e->err, PV_ENOMEM, "out of memory building the list");
	}
	for (uint32_t fn = 0; fn < nf; fn++) {
		if (!seen[fn])
			continue;
		f->kind[f->len] = PV_ROW_FUNCTION;
		f->id[f->len] = fn;
		f->level[f->len] = 2;
		f->len++;
	}
	pv_free(seen);
	e->v->flat = f;
	eng_exact_function_costs(e); /* the values, and the list sorted as asked */
	return 1;
}

/*
 * The function list of a call-graph profile over its whole, unfiltered self (callgrind): the
 * rows are every function of the stack table (as the line-level tree and eng_flat_compute would
 * find them) and eng_exact_function_costs gives their values and order, so neither the tree nor
 * the flat pass runs. Returns 1 when it applies, 0 when not, or the error.
 */
int eng_exact_top(struct pv_engine *e)
{
	const struct pv_profile *p = e->p;
	struct pv_view *v = e->v;
	if (!e->kind->list || !p->func_costs.total || p->func_costs.funcs_len != p->funcs.len ||
	    !whole_profile(v) || v->q.by != PV_BY_FUNCTION)
		return 0;
	uint32_t nf = p->funcs.len;
	uint8_t *seen = pv_calloc(nf ? nf : 1, 1);
	if (!seen || exact_seen(e, seen)) {
		pv_free(seen);
		return pv_error_set(e->err, PV_ENOMEM, "out of memory building the list");
	}
	return function_list(e, seen);
}

/* Whether eng_graph_top answers: the whole profile of a call graph, plain metrics. */
static bool graph_top_applies(const struct pv_engine *e)
{
	const struct pv_profile *p = e->p;
	const struct pv_view *v = e->v;
	const struct pv_query *q = &v->q;
	if (!e->kind->list || !p->callgraph.nr_nodes || !p->func_costs.total ||
	    p->func_costs.funcs_len != p->funcs.len || !whole_profile(v) ||
	    q->by != PV_BY_FUNCTION || q->nr_derive || p->formulas.len)
		return false;
	for (uint32_t m = 0; m < e->nm; m++)
		if (v->metrics[m] >= p->callgraph.nr_metrics || v->stat[m] != PV_STAT_SUM)
			return false;
	return true;
}

int eng_graph_top(struct pv_engine *e)
{
	const struct pv_profile *p = e->p;
	struct pv_view *v = e->v;
	if (!graph_top_applies(e))
		return 0;
	/* the whole: every self cost of the graph (not centered: the center and base too) */
	for (uint32_t m = 0; m < e->nm; m++) {
		const int64_t *s = p->callgraph.node_self[v->metrics[m]];
		v->whole[m] = v->nostack[m] = 0;
		for (uint32_t x = 0; x < p->callgraph.nr_nodes; x++)
			v->whole[m] = pv_add_sat(v->whole[m], s[x]);
	}
	memcpy(v->center, v->whole, sizeof(v->whole));
	memcpy(v->base, v->whole, sizeof(v->whole));
	uint32_t nf = p->funcs.len;
	uint8_t *seen = pv_calloc(nf ? nf : 1, 1);
	if (!seen)
		return pv_error_set(e->err, PV_ENOMEM, "out of memory building the list");
	for (uint32_t m = 0; m < e->nm; m++) {
		const int64_t *s = p->func_costs.self[v->metrics[m]];
		const int64_t *t = p->func_costs.total[v->metrics[m]];
		for (uint32_t fn = 0; fn < nf; fn++)
			seen[fn] |= s[fn] != 0 || t[fn] != 0;
	}
	return function_list(e, seen);
}

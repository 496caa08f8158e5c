/*
 * flat.c - the flat view (module > file > function > loop > line) and the exact
 * per-function costs of the top list.
 */
#include "view/engine.h"

/* ---- flat view and the per-scope list ---- */

/*
 * Counted once per sample: a depth-first walk over a top-down tree (at line granularity) keeps,
 * for each level's scope, how many rows of it are on the current path; a row adds its total to
 * its scope only when it is the outermost one.
 */
struct flat_build {
	uint32_t nlevels;
	uint32_t *key_of[4]; /* per tree row: the level's scope index */
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

int eng_flat_compute(struct pv_engine *e, const struct pv_tree *t, struct pv_flat **out)
{
	struct pv_view *v = e->v;
	uint32_t levels[4];
	uint32_t nl = 0;
	bool list = e->kind->list;
	enum pv_granularity by = v->q.by;
	/* by loop: the last level holds the loops only (doc/hpctoolkit.md) */
	bool deep = by == PV_BY_LINE || by == PV_BY_LOOP;
	/* hpcviewer's flat view: function > loop > nested loop > line (doc/hpctoolkit.md) */
	bool loops = deep && v->priv->scoped, nestl = loops && !list;
	bool nested = v->q.self == PV_SELF_NESTED;
	if (list) {
		levels[nl++] = by == PV_BY_MODULE ? 0 : by == PV_BY_FILE ? 1 : deep ? 3 : 2;
	} else {
		levels[nl++] = 0;
		if (by != PV_BY_MODULE)
			levels[nl++] = 1;
		if (by == PV_BY_FUNCTION || deep)
			levels[nl++] = 2;
		if (deep)
			levels[nl++] = 3;
	}
	struct flat_build fb;
	memset(&fb, 0, sizeof(fb));
	fb.nlevels = nl;
	struct u64map maps[4];
	memset(maps, 0, sizeof(maps));
	uint32_t n = t->len ? t->len : 1;
	uint32_t *stack = NULL, *iter = NULL;
	struct pv_flat *f = NULL;
	int rc = PV_ENOMEM;
	for (uint32_t l = 0; l < nl; l++) {
		fb.key_of[l] = pv_malloc((size_t)n * sizeof(uint32_t));
		fb.scope_key[l] = pv_malloc((size_t)n * sizeof(uint64_t));
		fb.scope_parent[l] = pv_malloc((size_t)n * sizeof(uint32_t));
		if (!fb.key_of[l] || !fb.scope_key[l] || !fb.scope_parent[l])
			goto out;
	}
	if (loops) {
		fb.loop_parent = pv_malloc((size_t)n * sizeof(uint32_t));
		fb.nest = pv_malloc((size_t)n * sizeof(uint32_t));
		fb.row_loop = pv_malloc((size_t)n * sizeof(uint32_t));
		if (!fb.loop_parent || !fb.nest || !fb.row_loop)
			goto out;
	}
	/* scope of each row at each level; rows are (function, line) at line granularity */
	for (uint32_t r = 0; r < t->len; r++) {
		bool loop = t->kind[r] == PV_ROW_LOOP;
		uint32_t fn = loop ? vf_func(v, t->id[r]) : t->id[r];
		uint32_t parent_scope = PV_NONE;
		for (uint32_t l = 0; l < nl; l++) {
			uint64_t key;
			switch (t->kind[r] == PV_ROW_NOSTACK ? 4 : levels[l]) {
			case 4: key = KEY(PV_ROW_NOSTACK, 0, 0); break; /* one row, on top */
			case 0: key = KEY(PV_ROW_MODULE, fn_module(v, fn), 0); break;
			case 1: key = KEY(PV_ROW_FILE, fn_source(v, fn), 0); break;
			case 2: key = KEY(PV_ROW_FUNCTION, fn, 0); break;
			default:
				key = loop ? KEY(PV_ROW_LOOP, t->id[r], 0)
					   : KEY(PV_ROW_LINE, fn, t->line[r]);
				break;
			}
			/* a loop, or a line, right in a loop of its function (rows are numbered
			 * parents first): nested in that loop's scope */
			uint32_t encl = PV_NONE, pr = t->parent[r];
			if (loops && levels[l] == 3 && pr != PV_NONE &&
			    t->kind[pr] == PV_ROW_LOOP && t->kind[r] != PV_ROW_NOSTACK &&
			    vf_func(v, t->id[pr]) == fn) {
				encl = fb.key_of[l][pr];
				/* too deep: beside the deepest loop shown */
				if (nestl && fb.nest[encl] + 1 > FLAT_NEST_MAX)
					encl = fb.loop_parent[encl];
			}
			if (loops && levels[l] == 3)
				fb.row_loop[r] = encl;
			/* nesting: a file row belongs to its module row, and so on; a list has one
			 * row a scope wherever it is */
			uint64_t mk =
			    list ? key
			    : encl == PV_NONE
				? key ^ ((uint64_t)(parent_scope + 1) * 0x9e3779b97f4a7c15ULL)
				: key ^ ((uint64_t)(encl + 1) * 0xc2b2ae3d27d4eb4fULL);
			uint32_t sx = u64map_get(&maps[l], mk);
			if (sx == UINT32_MAX) {
				sx = fb.nr_scopes[l]++;
				fb.scope_key[l][sx] = key;
				fb.scope_parent[l][sx] = parent_scope;
				if (loops && levels[l] == 3) {
					fb.loop_parent[sx] = encl;
					fb.nest[sx] = encl == PV_NONE ? 0 : fb.nest[encl] + 1;
				}
				if (u64map_put(&maps[l], mk, sx))
					goto out;
			}
			fb.key_of[l][r] = sx;
			parent_scope = sx;
		}
	}
	for (uint32_t l = 0; l < nl; l++) {
		uint32_t ns = fb.nr_scopes[l] ? fb.nr_scopes[l] : 1;
		fb.active[l] = pv_calloc(ns, sizeof(uint32_t));
		fb.inlined[l] = pv_malloc(ns);
		if (!fb.active[l] || !fb.inlined[l])
			goto out;
		memset(fb.inlined[l], 1, ns);
		for (uint32_t r = 0; r < t->len; r++)
			fb.inlined[l][fb.key_of[l][r]] &= t->inlined ? t->inlined[r] : 0;
		for (uint32_t m = 0; m < e->nm; m++) {
			fb.incl[l][m] = pv_calloc(ns, sizeof(int64_t));
			fb.excl[l][m] = pv_calloc(ns, sizeof(int64_t));
			if (!fb.incl[l][m] || !fb.excl[l][m])
				goto out;
		}
	}
	uint32_t maxd = 1;
	for (uint32_t r = 0; r < t->len; r++)
		if (t->depth[r] + 1 > maxd)
			maxd = t->depth[r] + 1;
	stack = pv_malloc((size_t)maxd * sizeof(uint32_t));
	iter = pv_malloc((size_t)maxd * sizeof(uint32_t));
	if (!stack || !iter)
		goto out;
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
					uint32_t sx = fb.key_of[l][r];
					bool outer = fb.active[l][sx]++ == 0;
					for (uint32_t m = 0; m < e->nm; m++) {
						if (outer)
							fb.incl[l][m][sx] += t->total[m][r];
						fb.excl[l][m][sx] += t->self[m][r];
					}
					if (!loops || levels[l] != 3)
						continue;
					/* a loop's self: its own lines', and with --self nested its
					 * nested loops' too (the rows' selves are their own here).
					 * One rule: a row's self counts once in each scope that is
					 * its own or a loop around it, so a loop nested in itself
					 * (two loops of one frame, L > L: a list has one scope for
					 * both) does not count its inner row twice. The enclosing
					 * scopes are older than the row's loop, so only sx can
					 * repeat. */
					uint32_t a = fb.row_loop[r];
					if (!nested && KEY_KIND(fb.scope_key[l][sx]) != PV_ROW_LINE)
						a = PV_NONE;
					for (; a != PV_NONE;
					     a = nested ? fb.loop_parent[a] : PV_NONE)
						for (uint32_t m = 0; m < e->nm && a != sx; m++)
							fb.excl[l][m][a] += t->self[m][r];
				}
				stack[sp] = r;
				iter[sp] = 0;
				sp++;
			} else {
				for (uint32_t l = 0; l < nl; l++)
					fb.active[l][fb.key_of[l][r]]--;
				sp--;
			}
		}
	}
	/* rows: each level's scopes, nested under their parent scope, sorted */
	uint32_t total_rows = 0;
	for (uint32_t l = 0; l < nl; l++)
		total_rows += fb.nr_scopes[l];
	f = pv_calloc(1, sizeof(*f));
	if (!f)
		goto out;
	uint32_t cap = total_rows ? total_rows : 1;
	f->kind = pv_malloc(cap);
	f->id = pv_malloc((size_t)cap * sizeof(uint32_t));
	f->line = pv_malloc((size_t)cap * sizeof(uint32_t));
	f->level = pv_malloc(cap);
	f->in_center = pv_calloc(cap, 1);
	f->inlined = pv_calloc(cap, 1);
	f->total = pv_calloc(e->nm, sizeof(int64_t *));
	f->self = pv_calloc(e->nm, sizeof(int64_t *));
	if (!f->kind || !f->id || !f->line || !f->level || !f->in_center || !f->inlined ||
	    !f->total || !f->self)
		goto out;
	for (uint32_t m = 0; m < e->nm; m++) {
		f->total[m] = pv_malloc((size_t)cap * sizeof(int64_t));
		f->self[m] = pv_malloc((size_t)cap * sizeof(int64_t));
		if (!f->total[m] || !f->self[m])
			goto out;
	}
	/* order the scopes of each level, then emit depth first by parent scope */
	uint32_t *order[4] = {0}, *first[4] = {0}, *count[4] = {0};
	uint8_t *tmpkind[4] = {0};
	uint32_t *tmpid[4] = {0}, *tmpline[4] = {0};
	bool ok = true;
	for (uint32_t l = 0; l < nl && ok; l++) {
		uint32_t ns = fb.nr_scopes[l] ? fb.nr_scopes[l] : 1;
		order[l] = pv_malloc((size_t)ns * sizeof(uint32_t));
		tmpkind[l] = pv_malloc(ns);
		tmpid[l] = pv_malloc((size_t)ns * sizeof(uint32_t));
		tmpline[l] = pv_malloc((size_t)ns * sizeof(uint32_t));
		uint32_t np = l ? (fb.nr_scopes[l - 1] ? fb.nr_scopes[l - 1] : 1) : 1;
		/* the last level nested in loops: groups np + loop scope, after the functions' */
		uint32_t ng = nestl && l + 1 == nl ? np + ns : np;
		first[l] = pv_calloc(ng, sizeof(uint32_t));
		count[l] = pv_calloc(ng, sizeof(uint32_t));
		ok = order[l] && tmpkind[l] && tmpid[l] && tmpline[l] && first[l] && count[l];
		if (!ok)
			break;
		for (uint32_t sx = 0; sx < fb.nr_scopes[l]; sx++) {
			tmpkind[l][sx] = KEY_KIND(fb.scope_key[l][sx]);
			tmpid[l][sx] = KEY_ID(fb.scope_key[l][sx]);
			tmpline[l][sx] = KEY_LINE(fb.scope_key[l][sx]);
		}
		/* group by parent scope (counting sort), then sort each group */
		for (uint32_t sx = 0; sx < fb.nr_scopes[l]; sx++)
			count[l][flat_group(&fb, l, sx, list, ng > np ? np : PV_NONE)]++;
		uint32_t off = 0;
		for (uint32_t ps = 0; ps < ng; ps++) {
			first[l][ps] = off;
			off += count[l][ps];
			count[l][ps] = 0;
		}
		for (uint32_t sx = 0; sx < fb.nr_scopes[l]; sx++) {
			uint32_t ps = flat_group(&fb, l, sx, list, ng > np ? np : PV_NONE);
			order[l][first[l][ps] + count[l][ps]++] = sx;
		}
		bool by_self = e->sort == PV_SORT_SELF;
		struct row_sort c = {v,
				     NULL,
				     by_self ? fb.excl[l][0] : fb.incl[l][0],
				     by_self ? fb.incl[l][0] : fb.excl[l][0],
				     tmpkind[l],
				     tmpid[l],
				     tmpline[l],
				     NULL};
		for (uint32_t ps = 0; ps < ng; ps++)
			eng_sort_ix(&c, order[l] + first[l][ps], count[l][ps]);
	}
	if (ok) {
		/* emit: depth first through the levels with an explicit cursor per level */
		uint32_t pos[PV_FLAT_LEVELS] = {0}, endp[PV_FLAT_LEVELS] = {0};
		uint32_t depth = 0;
		uint32_t np_last = nl > 1 ? (fb.nr_scopes[nl - 2] ? fb.nr_scopes[nl - 2] : 1) : 1;
		pos[0] = 0;
		endp[0] = fb.nr_scopes[0];
		uint32_t out_len = 0;
		while (true) {
			if (pos[depth] == endp[depth]) {
				if (depth == 0)
					break;
				depth--;
				continue;
			}
			uint32_t l = depth < nl ? depth : nl - 1; /* past it: loops in loops */
			uint32_t sx = order[l][pos[depth]++];
			bool live = false;
			for (uint32_t m = 0; m < e->nm; m++)
				live |= fb.incl[l][m][sx] != 0 || fb.excl[l][m][sx] != 0;
			if (!live) /* a scope only on stacks without cost: nothing under it either
				    */
				continue;
			bool nostack = KEY_KIND(fb.scope_key[l][sx]) == PV_ROW_NOSTACK;
			if (nostack && l > 0) /* the (no stack) row has no rows under it */
				continue;
			if (levels[l] == 3 && !loop_level_row(v, fb.scope_key[l][sx]))
				continue;
			uint32_t o = out_len++;
			f->kind[o] = tmpkind[l][sx];
			f->id[o] = tmpid[l][sx];
			f->line[o] = tmpline[l][sx];
			f->level[o] = (uint8_t)(levels[l] + (depth - l));
			for (uint32_t m = 0; m < e->nm; m++) {
				f->total[m][o] = fb.incl[l][m][sx];
				f->self[m][o] = fb.excl[l][m][sx];
			}
			f->inlined[o] = fb.inlined[l][sx];
			if (!list && l + 1 < nl && !nostack) {
				depth++;
				pos[depth] = first[depth][sx];
				endp[depth] = first[depth][sx] + count[depth][sx];
			} else if (nestl && l + 1 == nl && count[l][np_last + sx]) {
				depth++; /* the loops and lines in this loop */
				pos[depth] = first[l][np_last + sx];
				endp[depth] = pos[depth] + count[l][np_last + sx];
			}
		}
		f->len = out_len;
		rc = 0;
	}
	for (uint32_t l = 0; l < 4; l++) {
		pv_free(order[l]);
		pv_free(first[l]);
		pv_free(count[l]);
		pv_free(tmpkind[l]);
		pv_free(tmpid[l]);
		pv_free(tmpline[l]);
	}
out:
	pv_free(fb.loop_parent);
	pv_free(fb.nest);
	pv_free(fb.row_loop);
	for (uint32_t l = 0; l < 4; l++) {
		pv_free(fb.key_of[l]);
		pv_free(fb.scope_key[l]);
		pv_free(fb.scope_parent[l]);
		pv_free(fb.active[l]);
		pv_free(fb.inlined[l]);
		for (uint32_t m = 0; m < e->nm; m++) {
			pv_free(fb.incl[l][m]);
			pv_free(fb.excl[l][m]);
		}
		u64map_release(&maps[l]);
	}
	pv_free(stack);
	pv_free(iter);
	if (rc) {
		if (f) {
			pv_free(f->kind);
			pv_free(f->id);
			pv_free(f->line);
			pv_free(f->level);
			pv_free(f->in_center);
			pv_free(f->inlined);
			for (uint32_t m = 0; m < e->nm && f->total; m++) {
				pv_free(f->total[m]);
				pv_free(f->self[m]);
			}
			pv_free(f->total);
			pv_free(f->self);
			pv_free(f);
		}
		return pv_error_set(e->err, PV_ENOMEM, "out of memory building the flat view");
	}
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
	/* re-sort each run of function rows (the list, or the functions of one file) */
	uint32_t *order = pv_malloc((size_t)(f->len ? f->len : 1) * sizeof(*order));
	int64_t *tot = pv_malloc((size_t)(f->len ? f->len : 1) * sizeof(*tot));
	int64_t *slf = pv_malloc((size_t)(f->len ? f->len : 1) * sizeof(*slf));
	uint32_t *id = pv_malloc((size_t)(f->len ? f->len : 1) * sizeof(*id));
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
	pv_free(order);
	pv_free(tot);
	pv_free(slf);
	pv_free(id);
}

/*
 * The function list of a call-graph profile over its whole, unfiltered self (callgrind): the
 * rows are every function of the stack table (as the line-level tree and eng_flat_compute would
 * find them) and eng_exact_function_costs gives their values and order, so neither the tree nor
 * the flat pass runs. Returns 1 when it applies, 0 when not, or the error.
 */
/*
 * The list of the functions marked in seen (freed here), each its exact costs, sorted as asked
 * (eng_exact_function_costs): 1, or the error.
 */
static int function_list(struct pv_engine *e, uint8_t *seen)
{
	const struct pv_profile *p = e->p;
	struct pv_view *v = e->v;
	uint32_t nf = p->funcs.len, n = 0;
	struct pv_flat *f = pv_calloc(1, sizeof(*f));
	if (!f)
		goto oom;
	v->flat = f; /* from here pv_view_free releases it */
	for (uint32_t fn = 0; fn < nf; fn++)
		n += seen[fn];
	uint32_t cap = n ? n : 1;
	f->total = pv_calloc(e->nm, sizeof(int64_t *));
	f->self = pv_calloc(e->nm, sizeof(int64_t *));
	f->kind = pv_malloc(cap);
	f->id = pv_malloc((size_t)cap * sizeof(uint32_t));
	f->line = pv_calloc(cap, sizeof(uint32_t));
	f->level = pv_malloc(cap);
	f->in_center = pv_calloc(cap, 1);
	f->inlined = pv_calloc(cap, 1); /* call-graph formats have no inlined frames */
	if (!f->total || !f->self || !f->kind || !f->id || !f->line || !f->level || !f->in_center ||
	    !f->inlined)
		goto oom;
	for (uint32_t m = 0; m < e->nm; m++) {
		f->total[m] = pv_malloc((size_t)cap * sizeof(int64_t));
		f->self[m] = pv_malloc((size_t)cap * sizeof(int64_t));
		if (!f->total[m] || !f->self[m])
			goto oom;
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
	eng_exact_function_costs(e); /* the values, and the list sorted as asked */
	return 1;
oom:
	pv_free(seen);
	return pv_error_set(e->err, PV_ENOMEM, "out of memory building the list");
}

int eng_exact_top(struct pv_engine *e)
{
	const struct pv_profile *p = e->p;
	struct pv_view *v = e->v;
	if (!e->kind->list || !p->func_costs.total || p->func_costs.funcs_len != p->funcs.len ||
	    !whole_profile(v) || v->q.by != PV_BY_FUNCTION)
		return 0;
	struct wst *w = &e->w;
	uint8_t *seen = pv_calloc(p->funcs.len ? p->funcs.len : 1, 1);
	if (!seen)
		goto oom;
	/*
	 * A function has a row when its cost over the samples, as eng_flat_compute sums it (self,
	 * and total with recursion counted once), is not zero in some shown metric: a depth-first
	 * walk of the stack tree with one active counter per function.
	 */
	uint32_t ns = w->len, nf = p->funcs.len;
	uint32_t *first = pv_calloc((size_t)ns + 1, sizeof(uint32_t));
	uint32_t *kids = pv_malloc((size_t)(ns ? ns : 1) * sizeof(uint32_t));
	uint32_t *stk = pv_malloc((size_t)(ns ? ns : 1) * sizeof(uint32_t));
	uint32_t *it = pv_malloc((size_t)(ns ? ns : 1) * sizeof(uint32_t));
	uint32_t *active = pv_calloc(nf ? nf : 1, sizeof(uint32_t));
	int64_t *incl = pv_malloc((size_t)(ns ? ns : 1) * sizeof(int64_t));
	int64_t *fin = pv_calloc(nf ? nf : 1, sizeof(int64_t));
	int64_t *fex = pv_calloc(nf ? nf : 1, sizeof(int64_t));
	uint32_t *fnof = pv_malloc((size_t)(ns ? ns : 1) * sizeof(uint32_t));
	bool ok = first && kids && stk && it && active && incl && fin && fex && fnof;
	bool have_kids = false;
	if (ok)
		for (uint32_t x = 0; x < ns; x++)
			fnof[x] = vf_func(v, w->frame[x]);
	for (uint32_t m = 0; ok && m < e->nm; m++) {
		memcpy(incl, w->cost[m], (size_t)ns * sizeof(*incl));
		for (uint32_t x = ns; x-- > 0;)
			if (w->prefix[x] != PV_NONE)
				incl[w->prefix[x]] += incl[x];
		memset(fin, 0, (size_t)nf * sizeof(*fin));
		memset(fex, 0, (size_t)nf * sizeof(*fex));
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
				uint32_t fn = fnof[x];
				if (fn < nf && !seen[fn] && (incl[x] != 0 || w->cost[m][x] != 0))
					seen[fn] = 1;
			}
			continue;
		}
		if (!have_kids) { /* the children of each stack, for the walk */
			for (uint32_t x = 0; x < ns; x++)
				if (w->prefix[x] != PV_NONE)
					first[w->prefix[x] + 1]++;
			for (uint32_t x = 0; x < ns; x++)
				first[x + 1] += first[x];
			memset(it, 0, (size_t)ns * sizeof(uint32_t));
			for (uint32_t x = 0; x < ns; x++)
				if (w->prefix[x] != PV_NONE)
					kids[first[w->prefix[x]] + it[w->prefix[x]]++] = x;
			have_kids = true;
		}
		for (uint32_t root = 0; root < ns; root++) {
			if (w->prefix[root] != PV_NONE)
				continue;
			uint32_t sp = 0;
			uint32_t x = root;
			goto enter;
			while (sp) {
				x = stk[sp - 1];
				if (it[sp - 1] < first[x + 1] - first[x]) {
					x = kids[first[x] + it[sp - 1]++];
				enter:;
					uint32_t fn = fnof[x];
					if (fn < nf) {
						if (active[fn]++ == 0)
							fin[fn] += incl[x];
						fex[fn] += w->cost[m][x];
					}
					stk[sp] = x;
					it[sp] = 0;
					sp++;
				} else {
					uint32_t fn = fnof[x];
					if (fn < nf)
						active[fn]--;
					sp--;
				}
			}
		}
		for (uint32_t fn = 0; fn < nf; fn++)
			if (!seen[fn] && (fin[fn] != 0 || fex[fn] != 0))
				seen[fn] = 1;
	}
	pv_free(first);
	pv_free(kids);
	pv_free(stk);
	pv_free(it);
	pv_free(active);
	pv_free(incl);
	pv_free(fin);
	pv_free(fex);
	pv_free(fnof);
	if (!ok)
		goto oom;
	return function_list(e, seen);
oom:
	pv_free(seen);
	return pv_error_set(e->err, PV_ENOMEM, "out of memory building the list");
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

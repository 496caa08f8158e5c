/*
 * transform.c - the filters that rebuild the working stack table (merge, collapse,
 * focus, include/drop), and folding inlined frames into their holders.
 */
#include "view/engine.h"

/* ---- transforms ---- */

static int wst_own(struct pv_engine *e, uint32_t cap, uint32_t **frame, uint32_t **prefix)
{
	*frame = pv_malloc((size_t)(cap ? cap : 1) * sizeof(**frame));
	*prefix = pv_malloc((size_t)(cap ? cap : 1) * sizeof(**prefix));
	if (!*frame || !*prefix) {
		pv_free(*frame);
		pv_free(*prefix);
		return pv_error_set(e->err, PV_ENOMEM, "out of memory applying a filter");
	}
	return 0;
}

/*
 * Rebuilds the working table through img[s] (the new stack of s, or PV_NONE when every frame
 * of s was removed), given as a callback over the new table being built. Costs move to images;
 * the cost of stacks without an image is lost (counted in v->lost).
 */
struct rebuild {
	struct u64map map;
	uint32_t *frame, *prefix;
	uint32_t len;
};

static uint32_t rb_intern(struct rebuild *r, uint32_t prefix, uint32_t vf, int *oom)
{
	uint64_t key = ((uint64_t)prefix << 32) | vf;
	uint32_t x = u64map_get(&r->map, key);
	if (x != UINT32_MAX)
		return x;
	x = r->len++;
	r->frame[x] = vf;
	r->prefix[x] = prefix;
	if (u64map_put(&r->map, key, x))
		*oom = 1;
	return x;
}

static int finish_rebuild(struct pv_engine *e, struct rebuild *r, uint32_t *img)
{
	struct wst *w = &e->w;
	int64_t *nc[PV_QUERY_MAX] = {0};
	for (uint32_t m = 0; m < e->nm; m++) {
		nc[m] = pv_calloc(r->len ? r->len : 1, sizeof(int64_t));
		if (!nc[m]) {
			for (uint32_t k = 0; k < m; k++)
				pv_free(nc[k]);
			return pv_error_set(e->err, PV_ENOMEM, "out of memory applying a filter");
		}
		for (uint32_t s = 0; s < w->len; s++) {
			if (img[s] == PV_NONE)
				e->v->lost[m] += w->cost[m][s];
			else
				nc[m][img[s]] += w->cost[m][s];
		}
		pv_free(w->cost[m]);
		w->cost[m] = nc[m];
	}
	if (w->owned) {
		pv_free(w->frame);
		pv_free(w->prefix);
	}
	if (e->origin)
		for (uint32_t o = 0; o < e->p->stacks.len; o++)
			if (e->origin[o] != PV_NONE)
				e->origin[o] = img[e->origin[o]];
	w->frame = r->frame;
	w->prefix = r->prefix;
	w->len = r->len;
	w->owned = true;
	u64map_release(&r->map);
	return 0;
}

/* The end of a rebuild through img (both freed): finish_rebuild, or the error oom_msg. */
static int rebuild_end(struct pv_engine *e, struct rebuild *r, uint32_t *img, int oom,
		       const char *oom_msg)
{
	int rc = oom ? pv_error_set(e->err, PV_ENOMEM, "%s", oom_msg) : finish_rebuild(e, r, img);
	if (!rc)
		r->frame = r->prefix = NULL;
	u64map_release(&r->map);
	pv_free(r->frame);
	pv_free(r->prefix);
	pv_free(img);
	return rc;
}

static uint32_t pseudo_frame(struct pv_engine *e, pv_module_ix m)
{
	struct pv_view *v = e->v;
	for (uint32_t i = 0; i < v->priv->nr_pseudo; i++)
		if (v->priv->pseudo_module[i] == m)
			return e->p->frames.len + i;
	pv_module_ix *n = pv_realloc(v->priv->pseudo_module, (v->priv->nr_pseudo + 1) * sizeof(*n));
	if (!n)
		return PV_NONE;
	v->priv->pseudo_module = n;
	n[v->priv->nr_pseudo] = m;
	return e->p->frames.len + v->priv->nr_pseudo++;
}

static pv_cat_ix vf_category(const struct pv_view *v, uint32_t vf)
{
	return vf < v->p->frames.len ? pv_frame_category(v->p, vf) : PV_NONE;
}

/*
 * The image of working stack s (its prefix's image ip) under hpcviewer's CCT filters and the
 * Firefox Profiler's collapse-direct-recursion (doc/hpctoolkit.md); aux[s] carries state down
 * the stacks:
 *   collapse-subtree: aux = the image of the outermost frame of the scope above, which every
 *     stack below becomes (its callees' cost is its self);
 *   prune: aux = 1 below a frame of the scope; such stacks, and the scope's own, become their
 *     caller (ip: PV_NONE at a root, a sample that loses every frame);
 *   collapse-direct-recursion: a frame of the scope whose caller's image is a frame of the same
 *     function is that caller.
 */
static uint32_t cut_image(struct pv_engine *e, enum pv_filter_kind k, struct rebuild *r,
			  const uint8_t *match, uint32_t *aux, uint32_t s, uint32_t ip, int *oom)
{
	const struct wst *w = &e->w;
	uint32_t pre = w->prefix[s], vf = w->frame[s];
	switch (k) {
	case PV_FILTER_COLLAPSE_SUBTREE: {
		uint32_t above = pre == PV_NONE ? PV_NONE : aux[pre];
		if (above != PV_NONE) {
			aux[s] = above;
			return above;
		}
		uint32_t img = rb_intern(r, ip, vf, oom);
		aux[s] = match[s] ? img : PV_NONE;
		return img;
	}
	case PV_FILTER_PRUNE:
		aux[s] = match[s] || (pre != PV_NONE && aux[pre]);
		return aux[s] ? ip : rb_intern(r, ip, vf, oom);
	default: /* PV_FILTER_COLLAPSE_DIRECT_RECURSION */
		if (match[s] && ip != PV_NONE && vf_func(e->v, r->frame[ip]) == vf_func(e->v, vf))
			return ip;
		return rb_intern(r, ip, vf, oom);
	}
}

/*
 * Where stack s, read from its leaf, completes the inverted path sc (path:LEAF;CALLER;...): the
 * frame of its last step, PV_NONE when the stack does not end so. A loop or statement frame is
 * part of its function's step, as in the bottom-up trees; the last step is its innermost frame.
 */
static uint32_t inverted_anchor(const struct pv_engine *e, const struct scope *sc, uint32_t s)
{
	const struct wst *w = &e->w;
	uint32_t a = s;
	for (uint32_t k = 0;; k++) {
		if (a == PV_NONE || !eng_path_step_is(e->v, sc, k, vf_func(e->v, w->frame[a])))
			return PV_NONE;
		if (k + 1 == sc->path_len)
			return a;
		while (a != PV_NONE && vf_kind(e->v, w->frame[a]) != PV_FRAME_CODE)
			a = w->prefix[a]; /* up to the function's own frame, then its caller */
		a = a == PV_NONE ? PV_NONE : w->prefix[a];
	}
}

/*
 * --focus-inverted (the Firefox Profiler's focus on a node of the inverted tree): the samples of
 * the stacks that end with the path stay, each on the stack of its anchor (the frames below go:
 * their cost is the anchor's self); the others go. A plain scope is a path of one step: the
 * samples whose leaf is in it, their stacks whole.
 */
static int focus_inverted(struct pv_engine *e, const struct scope *sc, const uint8_t *match)
{
	struct wst *w = &e->w;
	uint32_t n = w->len ? w->len : 1;
	struct rebuild r;
	memset(&r, 0, sizeof(r));
	uint32_t *img = pv_malloc((size_t)n * sizeof(*img));
	uint8_t *kept = pv_malloc(n);
	int oom = !img || !kept || wst_own(e, n, &r.frame, &r.prefix);
	for (uint32_t s = 0; s < w->len && !oom; s++) {
		uint32_t pre = w->prefix[s];
		img[s] = rb_intern(&r, pre == PV_NONE ? PV_NONE : img[pre], w->frame[s], &oom);
	}
	for (uint32_t s = 0; s < w->len && !oom; s++) {
		uint32_t a = match[s] ? s : PV_NONE;
		if (sc->kind == SC_PATH)
			a = inverted_anchor(e, sc, s);
		kept[s] = a != PV_NONE;
		if (kept[s])
			img[s] = img[a];
		else
			for (uint32_t m = 0; m < e->nm; m++)
				w->cost[m][s] = 0;
	}
	for (uint32_t o = 0; e->origin && !oom && o < e->p->stacks.len; o++)
		if (e->origin[o] != PV_NONE && !kept[e->origin[o]])
			e->odrop[o] = 1;
	pv_free(kept);
	return rebuild_end(e, &r, img, oom, "out of memory applying a filter");
}

/* Whether filter kind k names a scope (its argument), matched against the working stacks. */
static bool filter_scoped(enum pv_filter_kind k)
{
	return k == PV_FILTER_INCLUDE || k == PV_FILTER_DROP || k == PV_FILTER_MERGE ||
	       k == PV_FILTER_COLLAPSE_RECURSION || k >= PV_FILTER_COLLAPSE_SUBTREE;
}

/* The scope of f (what: its option, for messages) into sc, and *match[s]: stack s's frame is in
 * it (eng_match_stacks). */
static int filter_match(struct pv_engine *e, const struct pv_filter *f, const char *what,
			struct scope *sc, uint8_t **match)
{
	int rc = eng_scope_compile(e, sc, f->arg, what);
	if (rc)
		return rc;
	*match = pv_malloc(e->w.len ? e->w.len : 1);
	if (!*match || eng_match_stacks(e, sc, 1, *match))
		return pv_error_set(e->err, PV_ENOMEM, "out of memory applying a filter");
	return 0;
}

/*
 * include, drop and focus-self: the cost of the stacks whose path holds the scope (focus-self:
 * whose own frame is in it) stays, or goes (drop); has[s] is kept in match[] in place.
 */
static void keep_paths(struct pv_engine *e, enum pv_filter_kind k, uint8_t *match)
{
	struct wst *w = &e->w;
	for (uint32_t s = 0; s < w->len && k != PV_FILTER_FOCUS_SELF; s++)
		if (w->prefix[s] != PV_NONE && match[w->prefix[s]])
			match[s] = 1;
	bool keep_if = k != PV_FILTER_DROP;
	for (uint32_t s = 0; s < w->len; s++)
		if ((bool)match[s] != keep_if)
			for (uint32_t m = 0; m < e->nm; m++)
				w->cost[m][s] = 0;
	if (e->origin)
		for (uint32_t o = 0; o < e->p->stacks.len; o++)
			if (e->origin[o] != PV_NONE && (bool)match[e->origin[o]] != keep_if)
				e->odrop[o] = 1;
}

/* A filter's rebuild of the working table: what it needs, and the image of each stack. */
struct filter_pass {
	enum pv_filter_kind kind;
	const uint8_t *match;
	pv_module_ix module; /* collapse-module: the module, and its frame (pseudo_frame) */
	uint32_t pseudo;
	pv_cat_ix cat; /* focus-category */
	uint32_t *img, *aux;
	struct rebuild *r; /* the new table */
};

/* collapse-module: the module f names, and the frame that stands for it. */
static int filter_module(struct pv_engine *e, const struct pv_filter *f, const char *what,
			 struct filter_pass *fp)
{
	const struct pv_profile *p = e->p;
	uint8_t *mm = pv_calloc(p->modules.len + 1, 1);
	if (!mm)
		return pv_error_set(e->err, PV_ENOMEM, "out of memory");
	eng_name_modules(p, mm, f->arg);
	for (pv_module_ix m = 0; m < p->modules.len && fp->module == PV_NONE; m++)
		if (mm[m])
			fp->module = m;
	pv_free(mm);
	if (fp->module == PV_NONE)
		return pv_error_set(e->err, PV_EINVAL, "%s '%s': the profile has no such module",
				    what, f->arg);
	fp->pseudo = pseudo_frame(e, fp->module);
	if (fp->pseudo == PV_NONE)
		return pv_error_set(e->err, PV_ENOMEM, "out of memory");
	return 0;
}

/* focus-category: the category f names. */
static int filter_category(struct pv_engine *e, const struct pv_filter *f, const char *what,
			   struct filter_pass *fp)
{
	const struct pv_profile *p = e->p;
	for (pv_cat_ix c = 0; c < p->categories.len && fp->cat == PV_NONE; c++)
		if (strcmp(pv_str(p, p->categories.name[c]), f->arg) == 0)
			fp->cat = c;
	if (fp->cat == PV_NONE)
		return pv_error_set(e->err, PV_EINVAL, "%s '%s': the profile has no such category",
				    what, f->arg);
	return 0;
}

/* The image of working stack s under the filter (ip: its prefix's image). */
static inline uint32_t filter_image(struct pv_engine *e, struct filter_pass *fp, uint32_t s,
				    uint32_t ip, int *oom)
{
	const struct wst *w = &e->w;
	const struct pv_view *v = e->v;
	const uint8_t *match = fp->match;
	uint32_t pre = w->prefix[s], vf = w->frame[s], *aux = fp->aux;
	struct rebuild *r = fp->r;
	switch (fp->kind) {
	case PV_FILTER_MERGE: return match[s] ? ip : rb_intern(r, ip, vf, oom);
	case PV_FILTER_COLLAPSE_RECURSION: {
		/* aux[s]: image of the outermost frame of the scope above s, or PV_NONE */
		uint32_t anchor = pre == PV_NONE ? PV_NONE : aux[pre], img;
		if (match[s] && anchor != PV_NONE) {
			img = anchor;
		} else {
			img = rb_intern(r, ip, vf, oom);
			if (match[s])
				anchor = img;
		}
		aux[s] = anchor;
		return img;
	}
	case PV_FILTER_COLLAPSE_MODULE:
		if (fn_module(v, vf_func(v, vf)) != fp->module)
			return rb_intern(r, ip, vf, oom);
		return ip != PV_NONE && r->frame[ip] == fp->pseudo
			   ? ip
			   : rb_intern(r, ip, fp->pseudo, oom);
	case PV_FILTER_FOCUS_CATEGORY: {
		/* a frame without a category has its caller's (Firefox's rule) */
		pv_cat_ix c = vf_category(v, vf);
		if (c == PV_NONE)
			c = pre == PV_NONE ? PV_NONE : aux[pre];
		aux[s] = c;
		return c == fp->cat ? rb_intern(r, ip, vf, oom) : ip;
	}
	case PV_FILTER_FOCUS_SELF:
		/* a kept stack becomes its own frame alone, a root (the Firefox Profiler's
		 * focusSelf, implementation "combined": its callers go, and nothing is below it) */
		return match[s] ? rb_intern(r, PV_NONE, vf, oom) : PV_NONE;
	case PV_FILTER_COLLAPSE_SUBTREE:
	case PV_FILTER_PRUNE:
	case PV_FILTER_COLLAPSE_DIRECT_RECURSION:
		return cut_image(e, fp->kind, r, match, aux, s, ip, oom);
	default: return PV_NONE;
	}
}

/* The filters that rebuild the working table: merge, the collapses, the focuses but inverted,
 * prune. */
static int filter_rebuild(struct pv_engine *e, const struct pv_filter *f, const char *what,
			  const uint8_t *match)
{
	struct wst *w = &e->w;
	uint32_t n = w->len ? w->len : 1;
	struct rebuild r;
	memset(&r, 0, sizeof(r));
	struct filter_pass fp = {.kind = f->kind,
				 .match = match,
				 .module = PV_NONE,
				 .pseudo = PV_NONE,
				 .cat = PV_NONE,
				 .r = &r};
	int rc = 0;
	if (f->kind == PV_FILTER_COLLAPSE_MODULE)
		rc = filter_module(e, f, what, &fp);
	if (f->kind == PV_FILTER_FOCUS_CATEGORY)
		rc = filter_category(e, f, what, &fp);
	if (rc)
		return rc;
	fp.img = pv_malloc((size_t)n * sizeof(*fp.img));
	fp.aux = pv_malloc((size_t)n * sizeof(*fp.aux));
	int oom = !fp.img || !fp.aux || wst_own(e, n, &r.frame, &r.prefix);
	if (!oom) /* (a map that fails to grow: the error at the end) */
		for (uint32_t s = 0; s < w->len; s++) {
			uint32_t pre = w->prefix[s];
			uint32_t ip = pre == PV_NONE ? PV_NONE : fp.img[pre];
			fp.img[s] = filter_image(e, &fp, s, ip, &oom);
		}
	pv_free(fp.aux);
	return rebuild_end(e, &r, fp.img, oom, "out of memory applying a filter");
}

int eng_apply_filter(struct pv_engine *e, const struct pv_filter *f, uint32_t index)
{
	char what[64];
	snprintf(what, sizeof(what), "--%s", pv_filter_name(f->kind));
	struct scope sc;
	memset(&sc, 0, sizeof(sc));
	uint8_t *match = NULL;
	int rc = 0;
	(void)index;
	if (f->kind == PV_FILTER_TAG || f->kind == PV_FILTER_DROP_TAG)
		return 0; /* applied to the samples (tags_build) */
	if (filter_scoped(f->kind) && (rc = filter_match(e, f, what, &sc, &match)))
		goto out;
	switch (f->kind) {
	case PV_FILTER_FOCUS_INVERTED: rc = focus_inverted(e, &sc, match); break;
	case PV_FILTER_INCLUDE:
	case PV_FILTER_DROP: keep_paths(e, f->kind, match); break;
	case PV_FILTER_FOCUS_SELF: /* the stacks kept, each then its own frame alone */
		keep_paths(e, f->kind, match);
		rc = filter_rebuild(e, f, what, match);
		break;
	default: rc = filter_rebuild(e, f, what, match);
	}
out:
	pv_free(match);
	eng_scope_release(&sc);
	return rc;
}

/* ---- inlined frames (--inline fold) ---- */

/*
 * Folds every inlined frame into the frame it is inlined in, as pprof's -noinlines keeps only a
 * location's outermost line: an inlined frame's image is its caller's, so its cost and its
 * callees go to the function that holds the inlined code (a stack's inlined frames sit right
 * above that function's frame). An inlined frame at the root, with nothing to fold into, stays.
 * One rebuild of the working table, before the filters; nothing to do without inlined frames.
 */
int eng_fold_inlines(struct pv_engine *e)
{
	const struct pv_profile *p = e->p;
	struct wst *w = &e->w;
	bool any = false;
	for (uint32_t f = 0; f < p->frames.len && !any; f++)
		any = pv_frame_inline_depth(p, f) > 0;
	if (!any)
		return 0;
	uint32_t n = w->len ? w->len : 1;
	struct rebuild r;
	memset(&r, 0, sizeof(r));
	uint32_t *img = pv_malloc((size_t)n * sizeof(*img));
	int oom = !img || wst_own(e, n, &r.frame, &r.prefix);
	for (uint32_t s = 0; s < w->len && !oom; s++) {
		uint32_t pre = w->prefix[s];
		uint32_t ip = pre == PV_NONE ? PV_NONE : img[pre];
		img[s] = vf_inlined(e->v, w->frame[s]) && ip != PV_NONE
			     ? ip
			     : rb_intern(&r, ip, w->frame[s], &oom);
	}
	return rebuild_end(e, &r, img, oom, "out of memory folding inlined frames");
}

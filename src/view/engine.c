/*
 * engine.c - views of a query: the sample pass, the filters, the center, and the trees.
 *
 * The pipeline (doc/views.md):
 *   1. one pass over the selected samples (threads, time range, inside markers matching a
 *      search: a binary search in each thread's union of their intervals) sums each metric per
 *      stack (samples without a stack apart: they stay in the whole, as the (no stack) row of
 *      an uncentered view; doc/samples-and-inlines.md); with --inline fold, one rebuild folds
 *      inlined frames into the frames that hold them;
 *   2. each filter is one pass over the working stack table in index order: include/drop zero
 *      the cost of stacks; merge, collapse and focus build a new table by interning (prefix,
 *      frame) pairs and move each stack's cost to its image;
 *   3. the center's outermost match of every stack (its anchor) takes one more pass;
 *   4. rows are interned per (parent row, row key) in stack order, so rows are numbered parents
 *      first and totals come from one backward pass; bottom-up trees walk each anchor's callers.
 * Nothing recurses per frame, so stacks thousands of frames deep are fine.
 *
 * The working table's frames are "vframes": a profile frame, or (>= frames.len) a frame of a
 * pseudo-function standing for a collapsed module.
 */
#include "view/engine.h"

static int resolve(struct pv_engine *e, const struct pv_query *q)
{
	const struct pv_profile *p = e->p;
	struct pv_view *v = e->v;
	if (q->sort == PV_SORT_DELTA)
		return pv_error_set(e->err, PV_EINVAL,
				    "--sort delta orders the difference of two profiles "
				    "(profview diff BASE NEW)");
	if (q->nr_metrics == 0) {
		if (p->metrics.len == 0)
			return pv_error_set(e->err, PV_EINVAL, "the profile has no metric");
		v->metrics[v->nr_metrics++] = p->meta.default_metric;
	}
	/* derived metrics (derive.c): columns of their own, their inputs' hidden columns */
	bool derives = q->nr_derive || p->formulas.len;
	int rc = derives ? pv__derive_begin(v, e->err) : 0;
	if (rc)
		return rc;
	for (uint32_t i = 0; i < q->nr_metrics; i++) {
		enum pv_stat stat;
		pv_metric_ix m = pv__metric_stat(p, q->metrics[i], &stat); /* NAME or NAME:STAT */
		if (m == PV_NONE && (rc = pv__derive_column(v, q->metrics[i], e->err)) <= 0) {
			if (rc)
				return rc;
			continue;
		}
		v->stat[v->nr_metrics] = (uint8_t)stat;
		if (m == PV_NONE) {
			char have[256] = "";
			for (uint32_t k = 0; k < p->metrics.len; k++) {
				text_append(have, sizeof(have), k ? ", " : "");
				text_append(have, sizeof(have), pv_str(p, p->metrics.name[k]));
			}
			return pv_error_set(e->err, PV_EINVAL,
					    "no metric named '%s' (the profile has: %s)",
					    q->metrics[i], have);
		}
		v->metrics[v->nr_metrics++] = m;
	}
	if (derives && (rc = pv__derive_setup(v, e->err)))
		return rc;
	e->nm = v->nr_metrics;
	for (uint32_t f = 0; f < p->frames.len && !v->priv->scoped; f++)
		v->priv->scoped = pv_frame_kind(p, f) != PV_FRAME_CODE;
	return pv_thread_select(p, (const char *const *)q->threads, q->nr_threads, &v->threads,
				&v->nr_threads, e->err);
}

/*
 * --inside-markers: per thread, the union of the intervals of the markers that match the search,
 * as sorted disjoint [start, end) pairs iv[2k], iv[2k+1] for k in [first[t], first[t + 1]).
 * Markers come sorted by start, so each thread's union is built in one pass (a count, a fill
 * into each thread's region, then the regions closed up where intervals merged).
 */
struct inside {
	uint32_t *first;
	int64_t *iv;
};

static int inside_build(struct pv_engine *e, const char *search, struct inside *in)
{
	const struct pv_profile *p = e->p;
	struct pv_markers *ms = NULL;
	struct pv_marker_search *s = NULL;
	struct pv_marker_detail d = {0};
	uint8_t *keep = NULL;
	uint32_t *pos = NULL;
	uint32_t nt = p->threads.len;
	int rc = pv_markers_derive(p, &ms, e->err);
	if (rc)
		return rc;
	if (pv_marker_search_new(search, &s) || !(keep = pv_calloc(ms->len ? ms->len : 1, 1)) ||
	    !(in->first = pv_calloc((size_t)nt + 1, sizeof(*in->first)))) {
		rc = pv_error_set(e->err, PV_ENOMEM, "out of memory");
		goto done;
	}
	for (uint32_t i = 0; i < ms->len; i++) {
		if (ms->end_ns[i] == PV_TIME_NONE || ms->end_ns[i] <= ms->start_ns[i])
			continue; /* no time inside an instant */
		keep[i] = pv_marker_search_match(ms, i, s, &d);
		in->first[ms->thread[i] + 1] += keep[i];
	}
	/* first[t]: where thread t's region starts; pos[t] (first[t + 1] while filling): its end */
	for (uint32_t t = 0; t < nt; t++)
		in->first[t + 1] += in->first[t];
	in->iv = pv_malloc(((size_t)in->first[nt] + 1) * 2 * sizeof(*in->iv));
	pos = pv_malloc(((size_t)nt + 1) * sizeof(*pos));
	if (!in->iv || !pos) {
		rc = pv_error_set(e->err, PV_ENOMEM, "out of memory");
		goto done;
	}
	memcpy(pos, in->first, (size_t)nt * sizeof(*pos));
	for (uint32_t i = 0; i < ms->len; i++) {
		if (!keep[i])
			continue;
		pv_thread_ix t = ms->thread[i];
		int64_t *last = pos[t] > in->first[t] ? &in->iv[2 * (pos[t] - 1)] : NULL;
		if (last && ms->start_ns[i] <= last[1]) {
			/* overlapping the last one (markers come by start): one interval */
			if (ms->end_ns[i] > last[1])
				last[1] = ms->end_ns[i];
			continue;
		}
		in->iv[2 * pos[t]] = ms->start_ns[i];
		in->iv[2 * pos[t] + 1] = ms->end_ns[i];
		pos[t]++;
	}
	/* merged intervals leave gaps: close them, regions in thread order */
	uint32_t at = 0;
	for (uint32_t t = 0; t < nt; t++) {
		uint32_t from = in->first[t], n = pos[t] - from;
		memmove(&in->iv[2 * at], &in->iv[2 * from], (size_t)n * 2 * sizeof(*in->iv));
		in->first[t] = at;
		at += n;
	}
	in->first[nt] = at;
done:
	pv_marker_detail_release(&d);
	pv_marker_search_free(s);
	pv_free(keep);
	pv_free(pos);
	pv_markers_free(ms);
	return rc;
}

/* Whether time x lies in one of thread t's intervals (binary search). */
static bool inside_has(const struct inside *in, pv_thread_ix t, int64_t x)
{
	uint32_t lo = in->first[t], hi = in->first[t + 1];
	if (x == PV_TIME_NONE)
		return false;
	while (lo < hi) { /* the first interval starting after x */
		uint32_t mid = lo + (hi - lo) / 2;
		if (in->iv[2 * mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > in->first[t] && x < in->iv[2 * (lo - 1) + 1];
}

/* Whether q has a label filter (--tag, --drop-tag). */
static bool has_tag_filter(const struct pv_query *q)
{
	bool any = false;
	for (uint32_t i = 0; i < q->nr_filters; i++)
		any |=
		    q->filters[i].kind == PV_FILTER_TAG || q->filters[i].kind == PV_FILTER_DROP_TAG;
	return any;
}

/*
 * The label filters (--tag, --drop-tag): keep[ls] for each label set, NULL when the query has
 * none. They test samples, not stacks, so they apply in the sample pass whatever their place
 * among the filters (keeping or dropping samples commutes with the stack transforms).
 */
static int tags_build(struct pv_engine *e, uint8_t **out)
{
	const struct pv_profile *p = e->p;
	const struct pv_query *q = &e->v->q;
	*out = NULL;
	if (!has_tag_filter(q))
		return 0;
	uint32_t n = p->label_sets.len ? p->label_sets.len : 1;
	uint8_t *keep = pv_malloc(n);
	if (!keep)
		return pv_error_set(e->err, PV_ENOMEM, "out of memory");
	memset(keep, 1, n);
	for (uint32_t i = 0; i < q->nr_filters; i++) {
		const struct pv_filter *f = &q->filters[i];
		if (f->kind != PV_FILTER_TAG && f->kind != PV_FILTER_DROP_TAG)
			continue;
		const char *eq = strchr(f->arg, '=');
		char key[256];
		size_t kl = eq ? (size_t)(eq - f->arg) : 0;
		if (!eq || kl == 0 || kl >= sizeof(key)) {
			pv_free(keep);
			return pv_error_set(e->err, PV_EINVAL,
					    "--%s takes a label KEY=VALUE, not '%s'",
					    pv_filter_name(f->kind), f->arg);
		}
		memcpy(key, f->arg, kl);
		key[kl] = 0;
		bool known = false;
		for (uint32_t r = 0; r < p->labels.len && !known; r++)
			known = strcmp(pv_str(p, p->labels.key[r]), key) == 0;
		if (!known) {
			pv_free(keep);
			return pv_error_set(e->err, PV_EINVAL,
					    "--%s '%s': the profile has no label '%s'",
					    pv_filter_name(f->kind), f->arg, key);
		}
		for (uint32_t ls = 0; ls < n; ls++) {
			bool has = pv_label_set_has(p, ls, key, eq + 1) != 0;
			if (has != (f->kind == PV_FILTER_TAG))
				keep[ls] = 0;
		}
	}
	*out = keep;
	return 0;
}

/* The working table: the profile's stacks, each of cost 0 (or 1: ones). */
static int wst_profile(struct pv_engine *e, bool ones)
{
	const struct pv_profile *p = e->p;
	struct wst *w = &e->w;
	w->len = p->stacks.len;
	w->frame = p->stacks.frame;
	w->prefix = p->stacks.prefix;
	w->owned = false;
	for (uint32_t m = 0; m < e->nm; m++) {
		w->cost[m] = pv_calloc(w->len ? w->len : 1, sizeof(int64_t));
		if (!w->cost[m])
			return pv_error_set(e->err, PV_ENOMEM, "out of memory");
		for (uint32_t s = 0; ones && s < w->len; s++)
			w->cost[m][s] = 1;
	}
	return 0;
}

/*
 * The weights of n samples (stacks st[], weight column wc from sample s0 on; NULL: each weighs
 * 1) added to their stacks' costs, those without a stack to *nostack. A run of samples on one
 * stack (a thread idle, a hot loop) is summed first and added once: the costs are spread over
 * the stacks at random, so each add is likely a cache miss.
 */
static void add_costs(const pv_stack_ix *st, const int64_t *wc, uint32_t s0, uint32_t n,
		      int64_t *cost, int64_t *nostack)
{
	pv_stack_ix cur = st[0];
	int64_t acc = 0;
	for (uint32_t i = 0; i < n; i++) {
		int64_t x = wc ? wc[s0 + i] : 1;
		if (st[i] != cur) {
			if (cur == PV_NONE)
				*nostack += acc;
			else
				cost[cur] += acc;
			cur = st[i];
			acc = 0;
		}
		acc += x;
	}
	if (cur == PV_NONE)
		*nostack += acc;
	else
		cost[cur] += acc;
}

static int sample_pass(struct pv_engine *e)
{
	const struct pv_profile *p = e->p;
	struct pv_view *v = e->v;
	struct wst *w = &e->w;
	struct inside in = {0};
	int rc = wst_profile(e, false);
	if (rc)
		return rc;
	const struct pv_query *q = &v->q;
	if (q->inside_markers) {
		rc = inside_build(e, q->inside_markers, &in);
		if (rc) {
			pv_free(in.first);
			pv_free(in.iv);
			return rc;
		}
	}
	uint8_t *tag_keep = NULL;
	rc = tags_build(e, &tag_keep);
	if (rc) {
		pv_free(in.first);
		pv_free(in.iv);
		return rc;
	}
	if (!tag_keep && !q->has_range && !in.first) {
		/* every sample of the threads (the usual view): a pass per metric, no test a sample
		 */
		for (uint32_t i = 0; i < v->nr_threads; i++) {
			pv_thread_ix t = v->threads[i];
			uint32_t s0 = p->threads.sample_begin[t], s1 = p->threads.sample_end[t];
			if (s1 <= s0)
				continue;
			if (e->skeep)
				memset(e->skeep + s0, 1, s1 - s0);
			v->nr_samples += s1 - s0;
			for (uint32_t m = 0; m < e->nm; m++)
				add_costs(p->samples.stack + s0, p->samples.weight[v->metrics[m]],
					  s0, s1 - s0, w->cost[m], &v->nostack[m]);
		}
		pv_free(in.first);
		pv_free(in.iv);
		return 0;
	}
	for (uint32_t i = 0; i < v->nr_threads; i++) {
		pv_thread_ix t = v->threads[i];
		for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t]; s++) {
			if (tag_keep &&
			    !tag_keep[p->samples.label_set ? p->samples.label_set[s] : 0])
				continue;
			if (q->has_range) {
				int64_t x = pv_sample_time(p, s);
				if (x == PV_TIME_NONE || x < q->range_start_ns ||
				    x >= q->range_end_ns)
					continue;
			}
			if (in.first && !inside_has(&in, t, pv_sample_time(p, s)))
				continue;
			if (e->skeep)
				e->skeep[s] = 1;
			v->nr_samples++;
			pv_stack_ix st = p->samples.stack[s];
			/* plain adds: a metric's weights sum inside int64 (profile.h's ranges) */
			for (uint32_t m = 0; m < e->nm; m++) {
				int64_t x = pv_sample_weight(p, v->metrics[m], s);
				if (st == PV_NONE)
					v->nostack[m] += x;
				else
					w->cost[m][st] += x;
			}
		}
	}
	pv_free(in.first);
	pv_free(in.iv);
	pv_free(tag_keep);
	return 0;
}

/* columns of statistics across threads (stats.c) and of derived metrics (derive.c), once the
 * view is computed */
static int view_stats(struct pv_view *v, struct pv_error *err)
{
	struct pv__stats *st = NULL;
	int rc = pv__stats_begin(v, &st);
	for (uint32_t i = 0; i < v->nr_threads && !rc; i++) {
		struct pv_query q;
		struct pv_view *t = NULL;
		if ((rc = pv__stats_thread_query(v, i, &q)))
			break;
		rc = pv_view_compute(v->p, &q, &t, err);
		pv_query_release(&q);
		if (!rc)
			rc = pv__stats_add(st, t);
		pv_view_free(t);
	}
	return pv__stats_end(st, rc, err);
}

static int stats_if_any(struct pv_view *v, struct pv_error *err)
{
	for (uint32_t c = 0; c < v->nr_metrics; c++) {
		if (v->stat[c] != PV_STAT_SUM) {
			int rc = view_stats(v, err);
			if (rc)
				return rc;
			break;
		}
	}
	return pv__view_derive(v, err);
}

/* ---- the stages: select (threads, range, filters -> kept samples), center, build ---- */

/* What a caller asks for besides the view (each NULL or false when not). */
struct request {
	uint8_t **keep;		   /* pv_view_compute_keep: the stack mask */
	uint8_t **samples;	   /* the sample mask (pv_view_compute_keep, pv__view_select) */
	struct pv__rows *rows;	   /* pv__view_rows */
	struct pv__selection *sel; /* pv__view_select */
	bool printed;		   /* pv_view_compute_printed */
};

static bool wants_masks(const struct request *r)
{
	return r->keep || r->samples || r->rows;
}

/* The center's scopes, the stacks that match one, and each stack's outermost match. */
struct centering {
	struct scope sc[PV_QUERY_MAX];
	uint32_t n;
	uint8_t *match;
	uint32_t *anchor;
};

/* The query's copy in the view, and the per-sample and per-stack masks the request needs. */
static int engine_start(struct pv_engine *e, const struct pv_query *q, const struct request *r)
{
	const struct pv_profile *p = e->p;
	if (pv_query_copy(&e->v->q, q))
		return pv_error_set(e->err, PV_ENOMEM, "out of memory");
	/* pv__view_rows: the selection by sample only when it is not every sample of the threads */
	bool select =
	    r->samples || (r->rows && (q->has_range || q->inside_markers || has_tag_filter(q)));
	if (select && !(e->skeep = pv_calloc(p->samples.len ? p->samples.len : 1, 1)))
		return pv_error_set(e->err, PV_ENOMEM, "out of memory");
	if (wants_masks(r)) {
		size_t n = p->stacks.len ? p->stacks.len : 1;
		e->origin = pv_malloc(n * sizeof(*e->origin));
		e->odrop = pv_calloc(n, 1);
		if (!e->origin || !e->odrop)
			return pv_error_set(e->err, PV_ENOMEM, "out of memory");
		for (uint32_t o = 0; o < p->stacks.len; o++)
			e->origin[o] = o;
	}
	return 0;
}

/* Select: the kept samples' costs on the working table, the filters applied, the whole. */
static int select_samples(struct pv_engine *e, const struct request *r)
{
	struct pv_view *v = e->v;
	const struct pv_query *q = &v->q;
	int rc;
	if (r->rows && !e->skeep) {
		/* pv__view_rows with every sample of the threads selected: the rows and the stacks'
		 * rows need no costs, so every stack weighs 1 (and the samples without a stack,
		 * when they count) instead of a pass over the samples */
		if ((rc = wst_profile(e, true)))
			return rc;
		for (uint32_t m = 0; m < e->nm; m++)
			v->nostack[m] = 1;
	} else if ((rc = sample_pass(e))) {
		return rc;
	}
	if (q->inlines == PV_INLINE_FOLD && (rc = eng_fold_inlines(e)))
		return rc;
	for (uint32_t i = 0; i < q->nr_filters; i++)
		if ((rc = eng_apply_filter(e, &q->filters[i], i)))
			return rc;
	/* the whole: every kept sample, those without a stack too (doc/samples-and-inlines.md) */
	if (!eng_nostack_kept(q))
		memset(v->nostack, 0, sizeof(v->nostack));
	for (uint32_t m = 0; m < e->nm; m++) {
		v->whole[m] = v->nostack[m];
		for (uint32_t s = 0; s < e->w.len; s++)
			v->whole[m] = pv_add_sat(v->whole[m], e->w.cost[m][s]);
	}
	return 0;
}

/* Each working stack's outermost match of the center (anchor), and the center's cost. */
static int center_anchors(struct pv_engine *e, struct centering *c)
{
	struct pv_view *v = e->v;
	c->match = pv_malloc(e->w.len ? e->w.len : 1);
	c->anchor = pv_malloc((size_t)(e->w.len ? e->w.len : 1) * sizeof(*c->anchor));
	if (!v->center_label || !c->match || !c->anchor)
		return pv_error_set(e->err, PV_ENOMEM, "out of memory");
	int rc = eng_match_stacks(e, c->sc, c->n, c->match);
	if (rc)
		return rc;
	for (uint32_t s = 0; s < e->w.len; s++) {
		uint32_t pre = e->w.prefix[s];
		uint32_t a = pre == PV_NONE ? PV_NONE : c->anchor[pre];
		c->anchor[s] = a != PV_NONE ? a : c->match[s] ? s : PV_NONE;
		if (c->anchor[s] != PV_NONE)
			for (uint32_t m = 0; m < e->nm; m++)
				v->center[m] = pv_add_sat(v->center[m], e->w.cost[m][s]);
	}
	return 0;
}

/* Center: the query's center compiled, each stack's anchor, the base of the percentages. */
static int center_stage(struct pv_engine *e, struct centering *c)
{
	struct pv_view *v = e->v;
	const struct pv_query *q = &v->q;
	int rc;
	v->centered = q->nr_center > 0;
	if (pv_view_kind(q->view)->needs_center && !v->centered)
		return pv_error_set(e->err, PV_EINVAL, "the %s view needs a center (--center NAME)",
				    pv_view_name(q->view));
	for (uint32_t i = 0; i < q->nr_center; i++) {
		if ((rc = eng_scope_compile(e, &c->sc[c->n], q->center[i], "center"))) {
			eng_scope_release(&c->sc[c->n]);
			return rc;
		}
		c->n++;
	}
	if (v->centered) {
		v->center_label = eng_center_label(q);
		if ((rc = center_anchors(e, c)))
			return rc;
	} else {
		memcpy(v->center, v->whole, sizeof(v->whole));
	}
	pv__view_set_base(v);
	e->anchor = c->anchor;
	e->center = c->sc;
	e->ncenter = c->n;
	return 0;
}

/* pv_view_compute_keep, pv__view_select: the stacks (and samples) whose cost the view counts. */
static void hand_out_masks(struct pv_engine *e, const struct request *r, const uint32_t *anchor)
{
	const struct pv_profile *p = e->p;
	/* the stack mask: every profile stack whose samples count in this view */
	uint8_t *keep = e->odrop; /* reused in place: odrop[o] is read before keep[o] is set */
	for (uint32_t o = 0; o < p->stacks.len; o++) {
		uint32_t ws = e->origin[o];
		keep[o] = !e->odrop[o] && ws != PV_NONE && (!anchor || anchor[ws] != PV_NONE);
		if (keep[o] && anchor && anchor[ws] == ws)
			keep[o] = 2; /* the center is the stack's leaf: the center's self */
	}
	e->odrop = NULL;
	if (r->samples) {
		/* a sample without a stack is in v->nostack: kept unless the view needs a
		 * stack (a center, an include filter) */
		bool nostack = !e->v->centered && eng_nostack_kept(&e->v->q);
		for (uint32_t x = 0; x < p->samples.len; x++) {
			pv_stack_ix st = p->samples.stack[x];
			if (e->skeep[x])
				e->skeep[x] = st == PV_NONE ? nostack : keep[st];
		}
		*r->samples = e->skeep;
		e->skeep = NULL;
	}
	if (r->keep)
		*r->keep = keep;
	else
		pv_free(keep);
}

/* pv__view_rows: each profile stack's row, its working stack's unless a filter dropped it. */
static void hand_out_rows(struct pv_engine *e, struct pv__rows *rows)
{
	uint32_t *row = e->origin; /* reused in place: origin[o] is read before row[o] is set */
	for (uint32_t o = 0; o < e->p->stacks.len; o++) {
		uint32_t ws = e->origin[o];
		row[o] = e->odrop[o] || ws == PV_NONE || !e->node ? PV_NONE : e->node[ws];
	}
	rows->stack_row = row;
	rows->selected = e->skeep;
	e->origin = NULL;
	e->skeep = NULL;
}

/* What the request asks for beside the view, taken from the engine's state. */
static void hand_out(struct pv_engine *e, const struct request *r, struct centering *c)
{
	struct pv__selection *sel = r->sel;
	if (sel) {
		/* the working table, the origins and the anchors go to the selection */
		sel->len = e->w.len;
		sel->frame = e->w.frame;
		sel->prefix = e->w.prefix;
		sel->owned = e->w.owned;
		e->w.owned = false;
		sel->anchor = c->anchor;
	}
	if (r->keep || r->samples)
		hand_out_masks(e, r, c->anchor);
	if (r->rows)
		hand_out_rows(e, r->rows);
	if (sel) {
		sel->origin = e->origin;
		e->origin = NULL;
		c->anchor = NULL;
	}
}

static void engine_release(struct pv_engine *e, struct centering *c)
{
	pv_free(e->node);
	pv_free(e->origin);
	pv_free(e->odrop);
	pv_free(e->skeep);
	for (uint32_t i = 0; i < c->n; i++)
		eng_scope_release(&c->sc[i]);
	for (uint32_t m = 0; m < PV_QUERY_MAX; m++)
		pv_free(e->w.cost[m]);
	if (e->w.owned) {
		pv_free(e->w.frame);
		pv_free(e->w.prefix);
	}
	pv_free(c->match);
	pv_free(c->anchor);
}

/*
 * The view of q: select, center, then the view kind's builder (kinds.c); a call-graph profile's
 * views from its graph when nothing but the view is asked; then the statistics and derived
 * columns.
 */
static int compute(const struct pv_profile *p, const struct pv_query *q, const struct request *r,
		   struct pv_view **out, struct pv_error *err)
{
	/* the view and its private part in one block (pv_view_free frees v, its start) */
	struct view_block {
		struct pv_view v;
		struct pv_view_priv priv;
	} *block = pv_calloc(1, sizeof(*block));
	if (!block)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	struct pv_view *v = &block->v;
	v->priv = &block->priv;
	v->p = p;
	pv_query_init(&v->q);
	struct pv_engine e = {
	    .p = p, .v = v, .err = err, .want_node = r->rows != NULL, .printed = r->printed};
	struct centering c = {.n = 0};
	bool done = false; /* a call-graph profile: the views its graph answers (callgraph.c) */
	int rc = engine_start(&e, q, r);
	if (!rc)
		rc = resolve(&e, q);
	if (!rc && !wants_masks(r))
		rc = pv__callgraph_view(v, &done, err);
	if (!rc && !done)
		rc = select_samples(&e, r);
	if (!rc && !done)
		rc = center_stage(&e, &c);
	if (!rc && !done) {
		e.kind = pv_view_kind(q->view);
		e.sort = pv_query_sort(q);
		rc = e.kind->build(&(struct pv_view_build){&e});
	}
	if (!rc && !done)
		hand_out(&e, r, &c);
	engine_release(&e, &c);
	if (!rc)
		rc = stats_if_any(v, err);
	if (rc) {
		pv_view_free(v);
		return rc;
	}
	*out = v;
	return 0;
}

int pv_view_compute(const struct pv_profile *p, const struct pv_query *q, struct pv_view **out,
		    struct pv_error *err)
{
	return compute(p, q, &(struct request){0}, out, err);
}

int pv_view_compute_printed(const struct pv_profile *p, const struct pv_query *q,
			    struct pv_view **out, struct pv_error *err)
{
	return compute(p, q, &(struct request){.printed = true}, out, err);
}

int pv_view_compute_keep(const struct pv_profile *p, const struct pv_query *q, struct pv_view **out,
			 uint8_t **stacks, uint8_t **samples, struct pv_error *err)
{
	return compute(p, q, &(struct request){.keep = stacks, .samples = samples}, out, err);
}

int pv__view_rows(const struct pv_profile *p, const struct pv_query *q, struct pv_view **out,
		  struct pv__rows *rows, struct pv_error *err)
{
	rows->stack_row = NULL;
	rows->selected = NULL;
	return compute(p, q, &(struct request){.rows = rows}, out, err);
}

int pv__view_select(const struct pv_profile *p, const struct pv_query *q, struct pv_view **out,
		    struct pv__selection *sel, struct pv_error *err)
{
	memset(sel, 0, sizeof(*sel));
	return compute(p, q, &(struct request){.samples = &sel->samples, .sel = sel}, out, err);
}

void pv__selection_release(struct pv__selection *sel)
{
	if (sel->owned) {
		pv_free(sel->frame);
		pv_free(sel->prefix);
	}
	pv_free(sel->origin);
	pv_free(sel->anchor);
	pv_free(sel->samples);
	memset(sel, 0, sizeof(*sel));
}

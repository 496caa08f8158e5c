/*
 * select.c - the profile a query selects (pv_profile_select, pv/export.h).
 *
 * The view engine computes what the query keeps (view/internal.h: the working stack table after
 * the transforms, each profile stack's image in it, the center's anchors, the kept samples);
 * this file copies that into a new profile through the builder: only the rows the kept samples
 * and markers use, interned again, so the result is a profile like any importer's.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "model/builder.h"
#include "pv/export.h"
#include "pv/view.h"
#include "view/internal.h"

struct sel {
	const struct pv_profile *p;
	const struct pv_view *v;
	const struct pv__selection *s;
	struct pv_builder *b;
	uint32_t *str, *cat, *module, *source, *func, *frame, *pseudo; /* old row -> new, or NONE */
	uint32_t *stack; /* working stack -> new stack, PV_NONE when not made yet */
	uint8_t *stack_done;
};

static uint32_t *none_map(uint32_t n)
{
	uint32_t *m = pv_malloc((size_t)(n ? n : 1) * sizeof(*m));
	if (m)
		memset(m, 0xff, (size_t)(n ? n : 1) * sizeof(*m));
	return m;
}

static pv_str_ix str_of(struct sel *x, pv_str_ix s)
{
	if (s == 0 || s >= x->p->strings.len)
		return 0;
	if (x->str[s] == PV_NONE)
		x->str[s] = builder_str(x->b, x->p->strings.ptr[s], x->p->strings.size[s]);
	return x->str[s];
}

static pv_module_ix module_of(struct sel *x, pv_module_ix m)
{
	if (m == PV_NONE)
		return PV_NONE;
	if (x->module[m] == PV_NONE) {
		const struct pv_modules *t = &x->p->modules;
		x->module[m] = builder_module(x->b, str_of(x, t->name[m]), str_of(x, t->path[m]),
					      (enum pv_module_kind)t->kind[m]);
	}
	return x->module[m];
}

static pv_source_ix source_of(struct sel *x, pv_source_ix s)
{
	if (s == PV_NONE)
		return PV_NONE;
	if (x->source[s] == PV_NONE)
		x->source[s] = builder_source(x->b, str_of(x, x->p->sources.path[s]));
	return x->source[s];
}

static pv_func_ix func_of(struct sel *x, pv_func_ix f)
{
	if (x->func[f] == PV_NONE) {
		const struct pv_funcs *t = &x->p->funcs;
		x->func[f] = builder_func_at(x->b, str_of(x, t->name[f]),
					     module_of(x, pv_func_module(x->p, f)),
					     source_of(x, pv_func_source(x->p, f)),
					     pv_func_line(x->p, f), pv_func_column(x->p, f));
	}
	return x->func[f];
}

/* A frame of the working table: a profile frame, or a collapsed module's pseudo-function. */
static pv_frame_ix frame_of(struct sel *x, uint32_t vf)
{
	const struct pv_profile *p = x->p;
	if (vf >= p->frames.len) {
		uint32_t i = vf - p->frames.len;
		if (x->pseudo[i] == PV_NONE) {
			pv_module_ix m = x->v->priv->pseudo_module[i];
			pv_func_ix f = builder_func(x->b, str_of(x, p->modules.name[m]),
						    module_of(x, m), PV_NONE, 0);
			x->pseudo[i] = builder_func_frame(x->b, f);
		}
		return x->pseudo[i];
	}
	if (x->frame[vf] == PV_NONE) {
		const struct pv_frames *t = &p->frames;
		pv_cat_ix c = pv_frame_category(p, vf);
		struct frame_key k = {
		    .func = func_of(x, t->func[vf]),
		    .line = pv_frame_line(p, vf),
		    .column = pv_frame_column(p, vf),
		    .addr = pv_frame_addr(p, vf),
		    .inline_depth = pv_frame_inline_depth(p, vf),
		    .subcategory = pv_frame_subcategory(p, vf),
		    .category = c < p->categories.len ? x->cat[c] : PV_NONE,
		    .kind = pv_frame_kind(p, vf),
		    .source1 = pv_frame_source(p, vf) == PV_NONE
				   ? 0
				   : source_of(x, pv_frame_source(p, vf)) + 1,
		};
		x->frame[vf] = builder_frame(x->b, &k);
	}
	return x->frame[vf];
}

/*
 * The new stack of working stack ws: its path from the root, or from the center's match when
 * the query has a center (PV_NONE when ws does not reach the center). Prefixes come before
 * their stacks in the working table, so one loop up the path and one down make it.
 */
static pv_stack_ix stack_of(struct sel *x, uint32_t ws)
{
	const struct pv__selection *s = x->s;
	if (ws == PV_NONE || (s->anchor && s->anchor[ws] == PV_NONE))
		return PV_NONE;
	if (x->stack_done[ws])
		return x->stack[ws];
	/* up to the first stack already made (or past the root / the anchor) */
	uint32_t top = ws, n = 0;
	for (;;) {
		n++;
		if (s->anchor && s->anchor[top] == top)
			break;
		uint32_t pre = s->prefix[top];
		if (pre == PV_NONE || x->stack_done[pre])
			break;
		top = pre;
	}
	/* down again: the path from top to ws, walked from ws with a small buffer */
	uint32_t *path = pv_malloc((size_t)n * sizeof(*path));
	if (!path) {
		x->b->status = PV_ENOMEM;
		return PV_NONE;
	}
	uint32_t k = n, at = ws;
	while (k > 0) {
		path[--k] = at;
		at = s->prefix[at];
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t w = path[i];
		bool root = (s->anchor && s->anchor[w] == w) || s->prefix[w] == PV_NONE;
		pv_stack_ix pre = root ? PV_NONE : x->stack[s->prefix[w]];
		x->stack[w] = builder_stack(x->b, pre, frame_of(x, s->frame[w]));
		x->stack_done[w] = 1;
	}
	pv_free(path);
	return x->stack[ws];
}

/* Whether a marker of phase ph from start to end overlaps [from, to). */
static bool marker_in_range(uint8_t ph, int64_t start, int64_t end, int64_t from, int64_t to)
{
	switch (ph) {
	case PV_PHASE_INSTANT: return start != PV_TIME_NONE && start >= from && start < to;
	case PV_PHASE_START: return start != PV_TIME_NONE && start < to;
	case PV_PHASE_END: return end != PV_TIME_NONE && end >= from;
	default:
		return (start == PV_TIME_NONE || start < to) &&
		       (end == PV_TIME_NONE || end >= from);
	}
}

static int copy_labels(struct sel *x)
{
	const struct pv_profile *p = x->p;
	struct pv_profile *n = x->b->p;
	const struct pv_labels *l = &p->labels;
	const struct pv_label_sets *ls = &p->label_sets;
	if (!ls->len)
		return 0;
	uint32_t nl = l->len ? l->len : 1, ns = ls->len, ni = ls->nr_items ? ls->nr_items : 1;
	n->labels.key = pv_malloc(nl * sizeof(pv_str_ix));
	n->labels.str = pv_malloc(nl * sizeof(pv_str_ix));
	n->labels.num = pv_malloc(nl * sizeof(int64_t));
	n->labels.unit = pv_malloc(nl * sizeof(pv_str_ix));
	n->label_sets.first = pv_malloc(ns * sizeof(uint32_t));
	n->label_sets.count = pv_malloc(ns * sizeof(uint32_t));
	n->label_sets.items = pv_malloc(ni * sizeof(uint32_t));
	if (!n->labels.key || !n->labels.str || !n->labels.num || !n->labels.unit ||
	    !n->label_sets.first || !n->label_sets.count || !n->label_sets.items)
		return PV_ENOMEM;
	for (uint32_t i = 0; i < l->len; i++) {
		n->labels.key[i] = str_of(x, l->key[i]);
		n->labels.str[i] = str_of(x, l->str[i]);
		n->labels.num[i] = l->num[i];
		n->labels.unit[i] = str_of(x, l->unit[i]);
	}
	n->labels.len = n->labels.cap = l->len;
	memcpy(n->label_sets.first, ls->first, ns * sizeof(uint32_t));
	memcpy(n->label_sets.count, ls->count, ns * sizeof(uint32_t));
	if (ls->nr_items)
		memcpy(n->label_sets.items, ls->items, ls->nr_items * sizeof(uint32_t));
	n->label_sets.len = n->label_sets.cap = ns;
	n->label_sets.nr_items = n->label_sets.items_cap = ls->nr_items;
	return 0;
}

/* The metrics to keep: those the query names (once each), else all. */
static uint32_t pick_metrics(const struct pv_profile *p, const struct pv_view *v,
			     const struct pv_query *q, pv_metric_ix *out)
{
	uint32_t n = 0;
	if (!q->nr_metrics) {
		for (pv_metric_ix m = 0; m < p->metrics.len; m++)
			out[n++] = m;
		return n;
	}
	for (uint32_t c = 0; c < v->nr_metrics; c++) {
		bool seen = false;
		for (uint32_t k = 0; k < n; k++)
			seen |= out[k] == v->metrics[c];
		if (!seen)
			out[n++] = v->metrics[c];
	}
	return n;
}

/* The meta, and the categories in order, each with its subcategories. */
static void copy_meta(struct sel *x)
{
	const struct pv_profile *p = x->p;
	struct pv_builder *b = x->b;
	struct pv_profile *n = b->p;
	/* meta */
	n->meta.format = str_of(x, p->meta.format);
	n->meta.format_version = str_of(x, p->meta.format_version);
	n->meta.product = str_of(x, p->meta.product);
	n->meta.interval_ns = p->meta.interval_ns;
	n->meta.start_unix_ns = p->meta.start_unix_ns;
	n->meta.marker_schema = str_of(x, p->meta.marker_schema);
	n->meta.one_program = p->meta.one_program;
	/* categories in order, each with its subcategories */
	for (pv_cat_ix c = 0; c < p->categories.len; c++) {
		x->cat[c] = builder_category(b, str_of(x, p->categories.name[c]),
					     str_of(x, p->categories.color[c]));
		for (uint32_t k = 0; k < p->categories.sub_len[c]; k++)
			builder_subcategory(
			    b, x->cat[c],
			    str_of(x, p->subcategories.name[p->categories.sub_first[c] + k]));
	}
}

/* Selected sample sm as a sample of thread nt: its nm weights (metrics ms, w to fill), its
 * stack's image, label set, event delay and address. */
static void copy_sample(struct sel *x, pv_thread_ix nt, uint32_t sm, const pv_metric_ix *ms,
			uint32_t nm, int64_t *w)
{
	const struct pv_profile *p = x->p;
	const struct pv__selection *s = x->s;
	struct pv_builder *b = x->b;
	struct pv_profile *n;
	pv_stack_ix st = p->samples.stack[sm];
	pv_stack_ix ns = st == PV_NONE ? PV_NONE : stack_of(x, s->origin[st]);
	for (uint32_t k = 0; k < nm; k++)
		w[k] = pv_sample_weight(p, ms[k], sm);
	builder_sample(b, nt, ns, pv_sample_time(p, sm), w);
	n = b->p;
	if (b->status)
		return;
	uint32_t row = n->samples.len - 1;
	uint32_t set = p->samples.label_set ? p->samples.label_set[sm] : 0;
	if (set && !n->samples.label_set &&
	    !(n->samples.label_set = pv_calloc(n->samples.cap, sizeof(uint32_t))))
		b->status = PV_ENOMEM;
	if (n->samples.label_set && !b->status)
		n->samples.label_set[row] = set;
	int64_t d = p->samples.event_delay_ns ? p->samples.event_delay_ns[sm] : PV_TIME_NONE;
	if (d != PV_TIME_NONE) {
		int64_t *dv = builder_samples_event_delay(b);
		if (dv)
			dv[row] = d;
	}
	uint64_t a = pv_sample_addr(p, sm);
	if (a != PV_ADDR_NONE) {
		uint64_t *av = builder_samples_addr(b);
		if (av)
			av[row] = a;
	}
}

/* The view's threads and their selected samples; thread_of: each thread's image. */
static void copy_threads(struct sel *x, const pv_metric_ix *ms, uint32_t nm, int64_t *w,
			 uint32_t *thread_of)
{
	const struct pv_profile *p = x->p;
	const struct pv_view *v = x->v;
	struct pv_builder *b = x->b;
	for (uint32_t i = 0; i < v->nr_threads && !b->status; i++) {
		pv_thread_ix t = v->threads[i];
		const struct pv_threads *T = &p->threads;
		pv_thread_ix nt = builder_thread(b, str_of(x, T->name[t]), T->pid[t], T->tid[t],
						 str_of(x, T->process_name[t]));
		if (nt == PV_NONE)
			break;
		thread_of[t] = nt;
		struct pv_profile *n = b->p;
		n->threads.process_type[nt] = str_of(x, T->process_type[t]);
		n->threads.start_ns[nt] = T->start_ns[t];
		n->threads.end_ns[nt] = T->end_ns[t];
		for (uint32_t sm = T->sample_begin[t]; sm < T->sample_end[t] && !b->status; sm++)
			if (x->s->samples[sm])
				copy_sample(x, nt, sm, ms, nm, w);
	}
}

/* The markers of the selected threads that overlap the range; returns how many lost their
 * cause stack. */
static uint64_t copy_markers(struct sel *x, const struct pv_query *q, const uint32_t *thread_of)
{
	const struct pv_profile *p = x->p;
	const struct pv__selection *s = x->s;
	struct pv_builder *b = x->b;
	uint64_t causes_cut = 0;
	const struct pv_raw_markers *M = &p->markers;
	for (uint32_t i = 0; i < M->len && !b->status; i++) {
		if (thread_of[M->thread[i]] == PV_NONE)
			continue;
		if (q->has_range && !marker_in_range(M->phase[i], M->start_ns[i], M->end_ns[i],
						     q->range_start_ns, q->range_end_ns))
			continue;
		struct raw_marker r = {
		    .name = str_of(x, M->name[i]),
		    .category =
			M->category[i] < p->categories.len ? x->cat[M->category[i]] : PV_NONE,
		    .phase = (enum pv_marker_phase)M->phase[i],
		    .start_ns = M->start_ns[i],
		    .end_ns = M->end_ns[i],
		    .thread = thread_of[M->thread[i]],
		    .payload = str_of(x, M->payload[i]),
		    .cause_stack = PV_NONE,
		    .cause_time_ns = M->cause_time_ns[i],
		};
		if (M->cause_stack[i] != PV_NONE) {
			r.cause_stack = stack_of(x, s->origin[M->cause_stack[i]]);
			causes_cut += r.cause_stack == PV_NONE;
			if (r.cause_stack == PV_NONE)
				r.cause_time_ns = PV_TIME_NONE;
		}
		builder_marker(b, &r);
	}
	return causes_cut;
}

static int build(struct sel *x, const struct pv_query *q, struct pv_lossy *lossy)
{
	const struct pv_profile *p = x->p;
	struct pv_builder *b = x->b;
	copy_meta(x);
	/* metrics */
	uint32_t cap = p->metrics.len > PV_QUERY_MAX ? p->metrics.len : PV_QUERY_MAX;
	pv_metric_ix *ms = pv_malloc(cap * sizeof(*ms));
	int64_t *w = pv_malloc(cap * sizeof(*w));
	uint32_t *thread_of = none_map(p->threads.len);
	if (!ms || !w || !thread_of) {
		pv_free(ms);
		pv_free(w);
		pv_free(thread_of);
		return PV_ENOMEM;
	}
	uint32_t nm = pick_metrics(p, x->v, q, ms);
	b->p->meta.default_metric = 0;
	for (uint32_t k = 0; k < nm; k++) {
		pv_metric_ix m = builder_metric(b, str_of(x, p->metrics.name[ms[k]]),
						(enum pv_unit)p->metrics.unit[ms[k]]);
		if (m != PV_NONE && p->metrics.description[ms[k]])
			builder_metric_description(b, m, str_of(x, p->metrics.description[ms[k]]));
		if (ms[k] == p->meta.default_metric)
			b->p->meta.default_metric = k;
	}
	if (copy_labels(x))
		b->status = PV_ENOMEM;
	copy_threads(x, ms, nm, w, thread_of);
	uint64_t causes_cut = copy_markers(x, q, thread_of);
	pv_free(thread_of);
	pv_free(ms);
	pv_free(w);
	pv_lossy_add(lossy, causes_cut,
		     "marker cause stacks outside the selection (the center, the transforms)");
	if (p->callgraph.nr_nodes || p->func_costs.self)
		pv_lossy_add(lossy, p->funcs.len,
			     "the call graph's own per-function costs: exported as the calling "
			     "contexts estimated from it (self costs exact, inclusive costs "
			     "outside recursion cycles too)");
	return b->status;
}

int pv_profile_select(const struct pv_profile *p, const struct pv_query *q, struct pv_profile **out,
		      struct pv_lossy *lossy, struct pv_error *err)
{
	struct pv_query qq;
	if (pv_query_copy(&qq, q))
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	qq.view = PV_VIEW_TREE; /* the cheapest view: only the selection matters */
	struct pv_view *v = NULL;
	struct pv__selection s;
	struct pv_builder b;
	struct sel x = {.p = p, .s = &s, .b = &b};
	int rc = pv__view_select(p, &qq, &v, &s, err);
	pv_query_release(&qq);
	if (rc) {
		pv__selection_release(&s);
		return rc;
	}
	x.v = v;
	if ((rc = builder_init(&b))) {
		pv_view_free(v);
		pv__selection_release(&s);
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	}
	x.str = none_map(p->strings.len);
	x.cat = none_map(p->categories.len);
	x.module = none_map(p->modules.len);
	x.source = none_map(p->sources.len);
	x.func = none_map(p->funcs.len);
	x.frame = none_map(p->frames.len);
	x.pseudo = none_map(v->priv->nr_pseudo);
	x.stack = none_map(s.len);
	x.stack_done = pv_calloc(s.len ? s.len : 1, 1);
	if (!x.str || !x.cat || !x.module || !x.source || !x.func || !x.frame || !x.pseudo ||
	    !x.stack || !x.stack_done)
		rc = PV_ENOMEM;
	if (!rc)
		rc = build(&x, q, lossy);
	if (!rc)
		rc = builder_finish(&b, out);
	builder_release(&b);
	pv_free(x.str);
	pv_free(x.cat);
	pv_free(x.module);
	pv_free(x.source);
	pv_free(x.func);
	pv_free(x.frame);
	pv_free(x.pseudo);
	pv_free(x.stack);
	pv_free(x.stack_done);
	pv_view_free(v);
	pv__selection_release(&s);
	if (rc)
		return pv_error_set(err, rc, "%s",
				    rc == PV_ENOMEM ? "out of memory" : "too many rows to export");
	return 0;
}

/*
 * validate.c - checks every invariant of the model (profile.h). Each check names the table, the
 * row and the column of the first violation, so a test failure or a fuzzer crash says exactly
 * which importer broke what.
 */
#include "model/callgraph.h"
#include "model/ranges.h"
#include "pv/profile.h"

#define FAIL(...) return pv_error_set(err, PV_EPARSE, __VA_ARGS__)

static int ix_ok(uint32_t ix, uint32_t len)
{
	return ix < len;
}

static int opt_ok(uint32_t ix, uint32_t len)
{
	return ix == PV_NONE || ix < len;
}

/*
 * Index columns are checked in blocks without a branch, so the passes over the samples and the
 * stacks vectorize; they are most of what checking a mapped snapshot costs (pv/snapshot.h).
 */
enum { BLOCK = 4096 };

/*
 * Whether a block of BLOCK rows has one whose c[i] + add, in unsigned order, is past lim (as
 * signed: lim ^ 0x80000000): a fixed trip count and no branch, so it vectorizes at -O2 (not
 * inlined: inside the long caller gcc 12 leaves it scalar). add 1: opt_ok (PV_NONE wraps to 0).
 */
__attribute__((noinline)) static int block_bad(const uint32_t *c, int32_t lim, uint32_t add)
{
	uint32_t bad = 0; /* an OR of signed comparisons: SSE2 has those (not a max) */
	for (uint32_t i = 0; i < BLOCK; i++)
		bad |= (int32_t)((c[i] + add) ^ 0x80000000u) > lim; /* unsigned order as signed */
	return bad != 0;
}

/* The first row of col[0..n) that is not ok (opt: opt_ok, else ix_ok) against len, n when none. */
static uint32_t first_bad(const uint32_t *col, uint32_t n, uint32_t len, bool opt)
{
	if (!opt && !len)
		return 0;
	/* opt_ok: ix + 1 <= len (PV_NONE wraps to 0); ix_ok: ix <= len - 1 */
	const int32_t lim = (int32_t)((opt ? len : len - 1) ^ 0x80000000u);
	for (uint32_t b = 0; b < n; b += BLOCK) {
		if (n - b >= BLOCK && !block_bad(col + b, lim, opt))
			continue;
		for (uint32_t i = b; i < n && i - b < BLOCK; i++)
			if (opt ? !opt_ok(col[i], len) : !ix_ok(col[i], len))
				return i;
	}
	return n;
}

/* Whether a block of BLOCK stacks from stack `base` has a prefix not below its own index. */
__attribute__((noinline)) static int prefix_block_bad(const uint32_t *prefix, uint32_t base)
{
	uint32_t bad = 0; /* PV_NONE + 1 wraps to 0: a root; unsigned order as signed */
	for (uint32_t i = 0; i < BLOCK; i++)
		bad |=
		    (int32_t)((prefix[i] + 1u) ^ 0x80000000u) > (int32_t)((base + i) ^ 0x80000000u);
	return bad != 0;
}

/* Whether every stack passes the checks of pv_profile_validate's loop (which names the first
 * that does not): blocks without a branch, as first_bad. */
static bool stacks_ok(const struct pv_stacks *st, uint32_t nframes)
{
	if (first_bad(st->frame, st->len, nframes, false) < st->len)
		return false;
	for (uint32_t b = 0; b < st->len; b += BLOCK) {
		if (st->len - b >= BLOCK && !prefix_block_bad(st->prefix + b, b))
			continue;
		for (uint32_t i = b; i < st->len && i - b < BLOCK; i++)
			if (st->prefix[i] != PV_NONE && st->prefix[i] >= i)
				return false;
	}
	return true;
}

/* The largest of n bytes (0 for none): no branch, so it vectorizes. */
static uint8_t max_u8(const uint8_t *c, uint32_t n)
{
	uint8_t mx = 0;
	for (uint32_t i = 0; i < n; i++)
		mx = mx > c[i] ? mx : c[i];
	return mx;
}

/* Whether every frame passes the checks of pv_profile_validate's loop (which names the first
 * that does not) when the frames have no category (else the loop checks them one by one). */
static bool frames_ok(const struct pv_profile *p)
{
	const struct pv_frames *fr = &p->frames;
	return !fr->category && first_bad(fr->func, fr->len, p->funcs.len, false) == fr->len &&
	       (!fr->kind || max_u8(fr->kind, fr->len) <= PV_FRAME_STATEMENT) &&
	       (!fr->source || first_bad(fr->source, fr->len, p->sources.len, true) == fr->len);
}

/* The strings, the meta, categories, modules, sources and functions. */
static int check_strings(const struct pv_profile *p, struct pv_error *err)
{
	const uint32_t ns = p->strings.len;
	if (ns == 0 || p->strings.size[0] != 0 || p->strings.ptr[0][0] != 0)
		FAIL("strings: string 0 must be \"\"");
	for (uint32_t i = 0; i < ns; i++)
		if (!p->strings.ptr[i] || p->strings.ptr[i][p->strings.size[i]] != 0)
			FAIL("strings[%u]: not NUL-terminated at its size", i);
	if (!ix_ok(p->meta.format, ns) || !ix_ok(p->meta.format_version, ns) ||
	    !ix_ok(p->meta.product, ns) || !ix_ok(p->meta.marker_schema, ns))
		FAIL("meta: string index out of range");

	const struct pv_categories *c = &p->categories;
	for (uint32_t i = 0; i < c->len; i++) {
		if (!ix_ok(c->name[i], ns) || !ix_ok(c->color[i], ns))
			FAIL("categories[%u]: string index out of range", i);
		if ((uint64_t)c->sub_first[i] + c->sub_len[i] > p->subcategories.len)
			FAIL("categories[%u]: subcategories out of range", i);
	}
	for (uint32_t i = 0; i < p->subcategories.len; i++)
		if (!ix_ok(p->subcategories.name[i], ns))
			FAIL("subcategories[%u].name: out of range", i);

	const struct pv_modules *mo = &p->modules;
	for (uint32_t i = 0; i < mo->len; i++) {
		if (!ix_ok(mo->name[i], ns) || !ix_ok(mo->path[i], ns))
			FAIL("modules[%u]: string index out of range", i);
		if (mo->kind[i] > PV_MODULE_RESOURCE)
			FAIL("modules[%u].kind: %u is not a module kind", i, mo->kind[i]);
	}
	for (uint32_t i = 0; i < p->sources.len; i++)
		if (!ix_ok(p->sources.path[i], ns))
			FAIL("sources[%u].path: out of range", i);

	const struct pv_funcs *f = &p->funcs;
	for (uint32_t i = 0; i < f->len; i++) {
		if (!ix_ok(f->name[i], ns))
			FAIL("funcs[%u].name: %u out of range", i, f->name[i]);
		if (!opt_ok(pv_func_module(p, i), mo->len))
			FAIL("funcs[%u].module: %u out of range", i, pv_func_module(p, i));
		if (!opt_ok(pv_func_source(p, i), p->sources.len))
			FAIL("funcs[%u].source: %u out of range", i, pv_func_source(p, i));
		if (pv_func_column(p, i) && !pv_func_line(p, i))
			FAIL("funcs[%u].column: %u without a line", i, pv_func_column(p, i));
	}
	return 0;
}

/* Frames and stacks (unless the fast checks passed). */
static int check_frames(const struct pv_profile *p, struct pv_error *err)
{
	const struct pv_funcs *f = &p->funcs;
	const struct pv_categories *c = &p->categories;
	const struct pv_frames *fr = &p->frames;
	bool frames_checked = frames_ok(p);
	for (uint32_t i = 0; !frames_checked && i < fr->len; i++) {
		if (!ix_ok(fr->func[i], f->len))
			FAIL("frames[%u].func: %u out of range", i, fr->func[i]);
		if (!opt_ok(pv_frame_category(p, i), c->len))
			FAIL("frames[%u].category: %u out of range", i, pv_frame_category(p, i));
		if (pv_frame_category(p, i) != PV_NONE && c->sub_len[pv_frame_category(p, i)] &&
		    pv_frame_subcategory(p, i) >= c->sub_len[pv_frame_category(p, i)])
			FAIL("frames[%u].subcategory: %u out of range", i,
			     pv_frame_subcategory(p, i));
		if (pv_frame_kind(p, i) > PV_FRAME_STATEMENT)
			FAIL("frames[%u].kind: %u is not a frame kind", i, pv_frame_kind(p, i));
		if (!opt_ok(pv_frame_source(p, i), p->sources.len))
			FAIL("frames[%u].source: %u out of range", i, pv_frame_source(p, i));
	}

	const struct pv_stacks *st = &p->stacks;
	bool stacks_checked = stacks_ok(st, fr->len);
	for (uint32_t i = 0; !stacks_checked && i < st->len; i++) {
		if (!ix_ok(st->frame[i], fr->len))
			FAIL("stacks[%u].frame: %u out of range", i, st->frame[i]);
		if (st->prefix[i] != PV_NONE && st->prefix[i] >= i)
			FAIL("stacks[%u].prefix: %u is not smaller than the stack's own index", i,
			     st->prefix[i]);
	}
	return 0;
}

/* Threads: their strings, and sample ranges that cover the samples once. */
static int check_threads(const struct pv_profile *p, struct pv_error *err)
{
	const uint32_t ns = p->strings.len;
	const struct pv_threads *th = &p->threads;
	uint64_t covered = 0;
	for (uint32_t i = 0; i < th->len; i++) {
		if (!ix_ok(th->name[i], ns) || !ix_ok(th->process_name[i], ns) ||
		    !ix_ok(th->process_type[i], ns))
			FAIL("threads[%u]: string index out of range", i);
		if (th->sample_begin[i] > th->sample_end[i] || th->sample_end[i] > p->samples.len)
			FAIL("threads[%u]: sample range [%u, %u) out of range", i,
			     th->sample_begin[i], th->sample_end[i]);
		covered += th->sample_end[i] - th->sample_begin[i];
		if (th->start_ns[i] != PV_TIME_NONE && th->end_ns[i] != PV_TIME_NONE &&
		    th->end_ns[i] < th->start_ns[i])
			FAIL("threads[%u]: ends before it starts", i);
	}
	if (covered != p->samples.len)
		FAIL("threads: sample ranges cover %llu of %u samples", (unsigned long long)covered,
		     p->samples.len);
	/* ranges must not overlap: sort-free check through a sweep over threads by begin */
	for (uint32_t i = 0; i < th->len; i++)
		for (uint32_t j = i + 1; j < th->len && th->len < 4096; j++)
			if (th->sample_begin[i] < th->sample_end[j] &&
			    th->sample_begin[j] < th->sample_end[i])
				FAIL("threads[%u] and threads[%u]: sample ranges overlap", i, j);
	return 0;
}

/* Metrics, formulas and the samples' stacks. */
static int check_metrics(const struct pv_profile *p, struct pv_error *err)
{
	const uint32_t ns = p->strings.len;
	const struct pv_stacks *st = &p->stacks;
	const struct pv_metrics *me = &p->metrics;
	if (p->samples.len && me->len == 0)
		FAIL("metrics: samples but no metric");
	if (me->len && p->meta.default_metric >= me->len)
		FAIL("meta.default_metric: %u out of range", p->meta.default_metric);
	for (uint32_t i = 0; i < me->len; i++) {
		if (!ix_ok(me->name[i], ns) || me->name[i] == 0)
			FAIL("metrics[%u].name: missing", i);
		if (me->unit[i] > PV_UNIT_OTHER)
			FAIL("metrics[%u].unit: %u is not a unit", i, me->unit[i]);
		if (!ix_ok(me->description[i], ns))
			FAIL("metrics[%u].description: %u out of range", i, me->description[i]);
	}
	const struct pv_formulas *fo = &p->formulas;
	for (uint32_t i = 0; i < fo->len; i++)
		if (!ix_ok(fo->name[i], ns) || fo->name[i] == 0 || !ix_ok(fo->formula[i], ns) ||
		    !ix_ok(fo->self[i], ns) || (fo->formula[i] == 0 && fo->self[i] == 0) ||
		    !ix_ok(fo->description[i], ns))
			FAIL("formulas[%u]: a string missing or out of range", i);
	uint32_t bad = first_bad(p->samples.stack, p->samples.len, st->len, true);
	if (bad < p->samples.len)
		FAIL("samples[%u].stack: %u out of range", bad, p->samples.stack[bad]);
	return 0;
}

/* Labels, label sets and the samples' label sets. */
static int check_labels(const struct pv_profile *p, struct pv_error *err)
{
	const uint32_t ns = p->strings.len;
	const struct pv_labels *lb = &p->labels;
	for (uint32_t i = 0; i < lb->len; i++)
		if (!ix_ok(lb->key[i], ns) || !ix_ok(lb->str[i], ns) || !ix_ok(lb->unit[i], ns))
			FAIL("labels[%u]: string index out of range", i);
	const struct pv_label_sets *ls = &p->label_sets;
	if (ls->len && ls->count[0] != 0)
		FAIL("label_sets[0]: not the empty set");
	for (uint32_t i = 0; i < ls->len; i++) {
		if ((uint64_t)ls->first[i] + ls->count[i] > ls->nr_items)
			FAIL("label_sets[%u]: items out of range", i);
		for (uint32_t k = 0; k < ls->count[i]; k++) {
			uint32_t r = ls->items[ls->first[i] + k];
			if (!ix_ok(r, lb->len))
				FAIL("label_sets[%u]: label %u out of range", i, r);
			if (k && r <= ls->items[ls->first[i] + k - 1])
				FAIL("label_sets[%u]: labels not sorted", i);
		}
	}
	for (uint32_t i = 0; p->samples.label_set && i < p->samples.len; i++)
		if (!ix_ok(p->samples.label_set[i], ls->len))
			FAIL("samples[%u].label_set: %u out of range", i, p->samples.label_set[i]);
	return 0;
}

/* Per-function costs and the call graph. */
static int check_costs(const struct pv_profile *p, struct pv_error *err)
{
	const struct pv_metrics *me = &p->metrics;
	const struct pv_func_costs *fc = &p->func_costs;
	if ((fc->self || fc->total) && fc->funcs_len != p->funcs.len)
		FAIL("func_costs: %u functions, the profile has %u", fc->funcs_len, p->funcs.len);
	if ((fc->self == NULL) != (fc->total == NULL))
		FAIL("func_costs: self and total must both be set");
	for (uint32_t m = 0; fc->self && m < me->len; m++)
		if (!fc->self[m] || !fc->total[m])
			FAIL("func_costs: metric %u has no column", m);

	const struct pv_callgraph *cg = &p->callgraph;
	if (cg->nr_nodes || cg->nr_edges) {
		if (cg->nr_metrics != me->len)
			FAIL("callgraph: %u metric columns, the profile has %u metrics",
			     cg->nr_metrics, me->len);
		for (uint32_t m = 0; m < me->len; m++)
			if ((cg->nr_nodes && !cg->node_self[m]) ||
			    (cg->nr_edges && !cg->edge_cost[m]))
				FAIL("callgraph: metric %u has no column", m);
		int rc = pv_callgraph_check(p, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* Markers, trace records and diagnostics. */
static int check_events(const struct pv_profile *p, struct pv_error *err)
{
	const uint32_t ns = p->strings.len;
	const struct pv_categories *c = &p->categories;
	const struct pv_stacks *st = &p->stacks;
	const struct pv_threads *th = &p->threads;
	const struct pv_raw_markers *mk = &p->markers;
	for (uint32_t i = 0; i < mk->len; i++) {
		if (!ix_ok(mk->name[i], ns) || !ix_ok(mk->payload[i], ns))
			FAIL("markers[%u]: string index out of range", i);
		if (!opt_ok(mk->category[i], c->len))
			FAIL("markers[%u].category: %u out of range", i, mk->category[i]);
		if (mk->phase[i] > PV_PHASE_END)
			FAIL("markers[%u].phase: %u is not a phase", i, mk->phase[i]);
		if (!ix_ok(mk->thread[i], th->len))
			FAIL("markers[%u].thread: %u out of range", i, mk->thread[i]);
		if (!opt_ok(mk->cause_stack[i], st->len))
			FAIL("markers[%u].cause_stack: %u out of range", i, mk->cause_stack[i]);
		if (mk->phase[i] == PV_PHASE_INTERVAL && mk->start_ns[i] != PV_TIME_NONE &&
		    mk->end_ns[i] != PV_TIME_NONE && mk->end_ns[i] < mk->start_ns[i])
			FAIL("markers[%u]: interval ends before it starts", i);
	}
	const struct pv_trace_records *tr = &p->trace;
	for (uint32_t i = 0; i < tr->len; i++) {
		if (!ix_ok(tr->thread[i], th->len))
			FAIL("trace[%u].thread: %u out of range", i, tr->thread[i]);
		if (!opt_ok(tr->stack[i], st->len))
			FAIL("trace[%u].stack: %u out of range", i, tr->stack[i]);
		if (tr->time_ns[i] == PV_TIME_NONE || tr->time_ns[i] > tr->end_ns)
			FAIL("trace[%u]: time %lld is not before the trace's end", i,
			     (long long)tr->time_ns[i]);
		if (i && tr->thread[i] == tr->thread[i - 1] && tr->time_ns[i] < tr->time_ns[i - 1])
			FAIL("trace[%u]: out of time order", i);
		if (i && tr->thread[i] != tr->thread[i - 1] && tr->thread[i] < tr->thread[i - 1])
			FAIL("trace[%u]: threads' records not in thread order", i);
	}
	for (uint32_t i = 0; i < p->diags.len; i++)
		if (!ix_ok(p->diags.msg[i], ns))
			FAIL("diags[%u].msg: out of range", i);
	return 0;
}

int pv_profile_validate(const struct pv_profile *p, struct pv_error *err)
{
	int rc = check_strings(p, err);
	if (!rc)
		rc = check_frames(p, err);
	if (!rc)
		rc = check_threads(p, err);
	if (!rc)
		rc = check_metrics(p, err);
	if (!rc)
		rc = check_labels(p, err);
	if (!rc)
		rc = check_costs(p, err);
	if (!rc)
		rc = check_events(p, err);
	return rc ? rc : pv__ranges_check(p, err);
}

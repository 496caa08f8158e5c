#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "model/profile_priv.h"
#include "pv/profile.h"

/* Frees a column the profile owns; one inside its storage (a mapped snapshot) is left alone. */
static void col_free(const struct pv_profile *p, void *col)
{
	const char *c = col, *base = p->storage.base;
	if (c && base && c >= base && c <= base + p->storage.len)
		return;
	pv_free(col);
}

struct pv_profile *profile_alloc(void)
{
	/* the profile and its private part in one block (pv_profile_free frees p, its start) */
	struct profile_block {
		struct pv_profile p;
		struct pv_profile_priv priv;
	} *block = pv_calloc(1, sizeof(*block));
	if (!block)
		return NULL;
	block->p.priv = &block->priv;
	return &block->p;
}

void pv_profile_free(struct pv_profile *p)
{
	if (!p)
		return;
	col_free(p, p->strings.ptr);
	col_free(p, p->strings.size);
	col_free(p, p->categories.name);
	col_free(p, p->categories.color);
	col_free(p, p->categories.sub_first);
	col_free(p, p->categories.sub_len);
	col_free(p, p->subcategories.name);
	col_free(p, p->modules.name);
	col_free(p, p->modules.path);
	col_free(p, p->modules.kind);
	col_free(p, p->sources.path);
	col_free(p, p->funcs.name);
	col_free(p, p->funcs.module);
	col_free(p, p->funcs.source);
	col_free(p, p->funcs.line);
	col_free(p, p->funcs.column);
	col_free(p, p->frames.func);
	col_free(p, p->frames.line);
	col_free(p, p->frames.column);
	col_free(p, p->frames.addr);
	col_free(p, p->frames.inline_depth);
	col_free(p, p->frames.category);
	col_free(p, p->frames.subcategory);
	col_free(p, p->frames.kind);
	col_free(p, p->frames.source);
	col_free(p, p->stacks.frame);
	col_free(p, p->stacks.prefix);
	col_free(p, p->threads.name);
	col_free(p, p->threads.process_name);
	col_free(p, p->threads.process_type);
	col_free(p, p->threads.pid);
	col_free(p, p->threads.tid);
	col_free(p, p->threads.start_ns);
	col_free(p, p->threads.end_ns);
	col_free(p, p->threads.sample_begin);
	col_free(p, p->threads.sample_end);
	col_free(p, p->samples.stack);
	col_free(p, p->samples.time_ns);
	if (p->samples.weight)
		for (uint32_t m = 0; m < p->metrics.len; m++)
			col_free(p, p->samples.weight[m]);
	col_free(p, p->samples.weight);
	col_free(p, p->samples.label_set);
	col_free(p, p->samples.event_delay_ns);
	col_free(p, p->samples.addr);
	col_free(p, p->labels.key);
	col_free(p, p->labels.str);
	col_free(p, p->labels.num);
	col_free(p, p->labels.unit);
	col_free(p, p->label_sets.first);
	col_free(p, p->label_sets.count);
	col_free(p, p->label_sets.items);
	/* (the arrays tested first: a count read from a damaged file may be huge without them) */
	for (uint32_t m = 0; p->func_costs.self && m < p->metrics.len; m++)
		col_free(p, p->func_costs.self[m]);
	for (uint32_t m = 0; p->func_costs.total && m < p->metrics.len; m++)
		col_free(p, p->func_costs.total[m]);
	col_free(p, p->func_costs.self);
	col_free(p, p->func_costs.total);
	struct pv_callgraph *cg = &p->callgraph;
	for (uint32_t m = 0; cg->node_self && m < cg->nr_metrics; m++)
		col_free(p, cg->node_self[m]);
	for (uint32_t m = 0; cg->edge_cost && m < cg->nr_metrics; m++)
		col_free(p, cg->edge_cost[m]);
	col_free(p, cg->node_self);
	col_free(p, cg->edge_cost);
	col_free(p, cg->node_thread);
	col_free(p, cg->node_func);
	col_free(p, cg->edge_thread);
	col_free(p, cg->caller);
	col_free(p, cg->callee);
	col_free(p, cg->calls);
	col_free(p, cg->kind);
	col_free(p, p->metrics.name);
	col_free(p, p->metrics.unit);
	col_free(p, p->metrics.description);
	col_free(p, p->formulas.name);
	col_free(p, p->formulas.formula);
	col_free(p, p->formulas.self);
	col_free(p, p->formulas.description);
	col_free(p, p->markers.name);
	col_free(p, p->markers.category);
	col_free(p, p->markers.phase);
	col_free(p, p->markers.start_ns);
	col_free(p, p->markers.end_ns);
	col_free(p, p->markers.thread);
	col_free(p, p->markers.payload);
	col_free(p, p->markers.cause_stack);
	col_free(p, p->markers.cause_time_ns);
	col_free(p, p->trace.thread);
	col_free(p, p->trace.time_ns);
	col_free(p, p->trace.stack);
	col_free(p, p->diags.msg);
	col_free(p, p->diags.count);
	arena_free(profile_arena(p));
	if (p->storage.release)
		p->storage.release(p->storage.ctx);
	pv_free(p);
}

int pv_profile_check(const struct pv_profile *p, struct pv_error *err)
{
	return p->storage.check ? p->storage.check(p->storage.ctx, err) : 0;
}

const char *pv_unit_name(enum pv_unit u)
{
	switch (u) {
	case PV_UNIT_COUNT: return "count";
	case PV_UNIT_NS: return "ns";
	case PV_UNIT_BYTES: return "bytes";
	case PV_UNIT_INSTRUCTIONS: return "instructions";
	case PV_UNIT_CYCLES: return "cycles";
	case PV_UNIT_OTHER: return "other";
	}
	return "other";
}

pv_metric_ix pv_metric_find(const struct pv_profile *p, const char *name)
{
	/* the exact name first: two metrics may differ only by case (callgrind's "Ir" and "ir") */
	for (uint32_t m = 0; m < p->metrics.len; m++)
		if (strcmp(pv_str(p, p->metrics.name[m]), name) == 0)
			return m;
	for (uint32_t m = 0; m < p->metrics.len; m++)
		if (strcasecmp(pv_str(p, p->metrics.name[m]), name) == 0)
			return m;
	char *end;
	unsigned long v = strtoul(name, &end, 10);
	if (*name && !*end && v < p->metrics.len)
		return (pv_metric_ix)v;
	return PV_NONE;
}

size_t pv_formula_text(const struct pv_profile *p, uint32_t i, char *buf, size_t n)
{
	const char *f = pv_str(p, p->formulas.formula[i]);
	const char *s = p->formulas.self[i] ? pv_str(p, p->formulas.self[i]) : "";
	int len = snprintf(buf, n, "%s%s%s%s", f, *f && *s ? "; " : "", *s ? "self: " : "", s);
	return len < 0 ? 0 : (size_t)len;
}

uint32_t pv_thread_find(const struct pv_profile *p, const char *s, pv_thread_ix *out, uint32_t cap)
{
	uint32_t n = 0;
	char *end;
	if (s[0] == '#' && s[1] >= '0' && s[1] <= '9') {
		unsigned long long ix = strtoull(s + 1, &end, 10);
		if (!*end && ix < p->threads.len) {
			if (cap)
				out[0] = (pv_thread_ix)ix;
			return 1;
		}
	}
	long long tid = strtoll(s, &end, 10);
	int numeric = *s && !*end;
	for (uint32_t t = 0; t < p->threads.len; t++) {
		int hit = strcmp(pv_str(p, p->threads.name[t]), s) == 0 ||
			  (numeric && p->threads.tid[t] == tid);
		if (hit) {
			if (n < cap)
				out[n] = t;
			n++;
		}
	}
	return n;
}

int pv_label_set_has(const struct pv_profile *p, uint32_t ls, const char *key, const char *value)
{
	if (ls == 0 || ls >= p->label_sets.len)
		return 0;
	const struct pv_labels *l = &p->labels;
	for (uint32_t i = 0; i < p->label_sets.count[ls]; i++) {
		uint32_t r = p->label_sets.items[p->label_sets.first[ls] + i];
		if (strcmp(pv_str(p, l->key[r]), key) != 0)
			continue;
		if (l->str[r]) {
			if (strcmp(pv_str(p, l->str[r]), value) == 0)
				return 1;
			continue;
		}
		char num[32];
		int n = snprintf(num, sizeof(num), "%lld", (long long)l->num[r]);
		if (n > 0 && strncmp(value, num, (size_t)n) == 0 &&
		    (value[n] == 0 || strcmp(value + n, pv_str(p, l->unit[r])) == 0))
			return 1;
	}
	return 0;
}

int pv_func_categories(const struct pv_profile *p, pv_cat_ix **out)
{
	*out = NULL;
	if (!p->frames.category || !p->categories.len)
		return 0;
	pv_cat_ix *cat = pv_malloc((p->funcs.len ? p->funcs.len : 1) * sizeof(*cat));
	if (!cat)
		return PV_ENOMEM;
	for (uint32_t f = 0; f < p->funcs.len; f++)
		cat[f] = PV_NONE;
	for (uint32_t fr = 0; fr < p->frames.len; fr++) {
		pv_cat_ix c = pv_frame_category(p, fr);
		pv_func_ix f = p->frames.func[fr];
		if (c < p->categories.len && f < p->funcs.len && cat[f] == PV_NONE)
			cat[f] = c;
	}
	*out = cat;
	return 0;
}

pv_cat_ix pv_idle_category(const struct pv_profile *p)
{
	for (pv_cat_ix c = 0; c < p->categories.len; c++)
		if (strcmp(pv_str(p, p->categories.name[c]), "Idle") == 0)
			return c;
	return PV_NONE;
}

pv_cat_ix *pv_stack_leaf_categories(const struct pv_profile *p, pv_cat_ix none)
{
	pv_cat_ix *leaf = pv_malloc((p->stacks.len ? p->stacks.len : 1) * sizeof(*leaf));
	if (!leaf)
		return NULL;
	/* prefixes come before their stacks: one pass */
	for (uint32_t st = 0; st < p->stacks.len; st++) {
		pv_cat_ix c = pv_frame_category(p, p->stacks.frame[st]);
		pv_stack_ix pre = p->stacks.prefix[st];
		leaf[st] = c < p->categories.len ? c : pre != PV_NONE ? leaf[pre] : none;
	}
	return leaf;
}

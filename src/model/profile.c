#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "pv/profile.h"

void pv_profile_free(struct pv_profile *p)
{
	if (!p)
		return;
	pv_free(p->strings.ptr);
	pv_free(p->strings.size);
	pv_free(p->categories.name);
	pv_free(p->categories.color);
	pv_free(p->categories.sub_first);
	pv_free(p->categories.sub_len);
	pv_free(p->subcategories.name);
	pv_free(p->modules.name);
	pv_free(p->modules.path);
	pv_free(p->modules.kind);
	pv_free(p->sources.path);
	pv_free(p->funcs.name);
	pv_free(p->funcs.module);
	pv_free(p->funcs.source);
	pv_free(p->funcs.line);
	pv_free(p->funcs.column);
	pv_free(p->frames.func);
	pv_free(p->frames.line);
	pv_free(p->frames.column);
	pv_free(p->frames.addr);
	pv_free(p->frames.inline_depth);
	pv_free(p->frames.category);
	pv_free(p->frames.subcategory);
	pv_free(p->frames.kind);
	pv_free(p->frames.source);
	pv_free(p->stacks.frame);
	pv_free(p->stacks.prefix);
	pv_free(p->threads.name);
	pv_free(p->threads.process_name);
	pv_free(p->threads.process_type);
	pv_free(p->threads.pid);
	pv_free(p->threads.tid);
	pv_free(p->threads.start_ns);
	pv_free(p->threads.end_ns);
	pv_free(p->threads.sample_begin);
	pv_free(p->threads.sample_end);
	pv_free(p->samples.stack);
	pv_free(p->samples.time_ns);
	if (p->samples.weight)
		for (uint32_t m = 0; m < p->metrics.len; m++)
			pv_free(p->samples.weight[m]);
	pv_free(p->samples.weight);
	pv_free(p->samples.label_set);
	pv_free(p->samples.event_delay_ns);
	pv_free(p->labels.key);
	pv_free(p->labels.str);
	pv_free(p->labels.num);
	pv_free(p->labels.unit);
	pv_free(p->label_sets.first);
	pv_free(p->label_sets.count);
	pv_free(p->label_sets.items);
	for (uint32_t m = 0; m < p->metrics.len; m++) {
		if (p->func_costs.self)
			pv_free(p->func_costs.self[m]);
		if (p->func_costs.total)
			pv_free(p->func_costs.total[m]);
	}
	pv_free(p->func_costs.self);
	pv_free(p->func_costs.total);
	struct pv_callgraph *cg = &p->callgraph;
	for (uint32_t m = 0; m < cg->nr_metrics; m++) {
		if (cg->node_self)
			pv_free(cg->node_self[m]);
		if (cg->edge_cost)
			pv_free(cg->edge_cost[m]);
	}
	pv_free(cg->node_self);
	pv_free(cg->edge_cost);
	pv_free(cg->node_thread);
	pv_free(cg->node_func);
	pv_free(cg->edge_thread);
	pv_free(cg->caller);
	pv_free(cg->callee);
	pv_free(cg->calls);
	pv_free(cg->kind);
	pv_free(p->metrics.name);
	pv_free(p->metrics.unit);
	pv_free(p->metrics.description);
	pv_free(p->formulas.name);
	pv_free(p->formulas.formula);
	pv_free(p->formulas.description);
	pv_free(p->markers.name);
	pv_free(p->markers.category);
	pv_free(p->markers.phase);
	pv_free(p->markers.start_ns);
	pv_free(p->markers.end_ns);
	pv_free(p->markers.thread);
	pv_free(p->markers.payload);
	pv_free(p->markers.cause_stack);
	pv_free(p->markers.cause_time_ns);
	pv_free(p->trace.thread);
	pv_free(p->trace.time_ns);
	pv_free(p->trace.stack);
	pv_free(p->diags.msg);
	pv_free(p->diags.count);
	arena_free(p->arena);
	pv_free(p);
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

pv_cat_ix *pv_stack_leaf_categories(const struct pv_profile *p, pv_cat_ix none)
{
	pv_cat_ix *leaf = pv_malloc((p->stacks.len ? p->stacks.len : 1) * sizeof(*leaf));
	if (!leaf)
		return NULL;
	/* prefixes come before their stacks: one pass */
	for (uint32_t st = 0; st < p->stacks.len; st++) {
		pv_cat_ix c = p->frames.category[p->stacks.frame[st]];
		pv_stack_ix pre = p->stacks.prefix[st];
		leaf[st] = c < p->categories.len ? c : pre != PV_NONE ? leaf[pre] : none;
	}
	return leaf;
}

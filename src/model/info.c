/*
 * info.c - the figures of a profile (include/pv/info.h).
 */
#include <string.h>

#include "base/alloc.h"
#include "pv/import.h"
#include "pv/info.h"

bool pv_samples_span(const struct pv_profile *p, int64_t *first_ns, int64_t *last_ns)
{
	int64_t a = INT64_MAX, b = INT64_MIN;
	for (uint32_t i = 0; i < p->samples.len; i++) {
		int64_t x = pv_sample_time(p, i);
		if (x == PV_TIME_NONE)
			continue;
		a = x < a ? x : a;
		b = x > b ? x : b;
	}
	bool any = a <= b;
	*first_ns = any ? a : 0;
	*last_ns = any ? b : 0;
	return any;
}

bool pv_profile_span(const struct pv_profile *p, int64_t *start_ns, int64_t *end_ns)
{
	int64_t a, b;
	if (!pv_samples_span(p, &a, &b)) {
		a = INT64_MAX;
		b = INT64_MIN;
	}
	for (uint32_t i = 0; i < p->markers.len; i++) {
		int64_t t[2] = {p->markers.start_ns[i], p->markers.end_ns[i]};
		for (int k = 0; k < 2; k++) {
			if (t[k] == PV_TIME_NONE)
				continue;
			a = t[k] < a ? t[k] : a;
			b = t[k] > b ? t[k] : b;
		}
	}
	bool any = a <= b;
	*start_ns = any ? a : 0;
	*end_ns = any ? b : 0;
	return any;
}

/* The label keys with how many rows each has, in first-seen order (at most PV_INFO_LABELS). */
static void label_keys(const struct pv_profile *p, struct pv_profile_info *in)
{
	for (uint32_t r = 0; r < p->labels.len; r++) {
		uint32_t k = 0;
		while (k < in->nr_labels && in->labels[k].key != p->labels.key[r])
			k++;
		if (k == in->nr_labels) {
			if (k == PV_INFO_LABELS)
				continue;
			in->labels[k] =
			    (struct pv_label_info){p->labels.key[r], p->labels.unit[r], 0};
			in->nr_labels++;
		}
		in->labels[k].values++;
	}
}

/* Each thread's active cost (samples whose leaf category is not "Idle"), the busiest thread
 * and the idle ones. */
static int thread_activity(const struct pv_profile *p, struct pv_profile_info *in)
{
	pv_cat_ix idle = pv_idle_category(p);
	pv_cat_ix *leaf = pv_stack_leaf_categories(p, PV_NONE);
	if (!leaf)
		return PV_ENOMEM;
	pv_metric_ix dm = p->meta.default_metric;
	int64_t most = 0;
	in->busiest = PV_NONE;
	for (pv_thread_ix t = 0; t < p->threads.len; t++) {
		struct pv_thread_info *ti = &in->threads[t];
		for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t]; s++) {
			pv_stack_ix st = p->samples.stack[s];
			if (st != PV_NONE && (idle == PV_NONE || leaf[st] != idle))
				ti->active = pv_add_sat(
				    ti->active, p->metrics.len ? pv_sample_weight(p, dm, s) : 1);
		}
		if (ti->active > most) {
			most = ti->active;
			in->busiest = t;
		}
	}
	for (pv_thread_ix t = 0; t < p->threads.len; t++)
		in->threads[t].idle =
		    !in->threads[t].samples ||
		    (double)in->threads[t].active < most * (PV_IDLE_PERCENT / 100.0);
	pv_free(leaf);
	return 0;
}

/* The granularities whose rows the profile has (info.h). */
static void granularities(const struct pv_profile *p, struct pv_profile_info *in)
{
	in->by[PV_BY_FUNCTION] = true;
	for (pv_func_ix f = 0; f < p->funcs.len; f++) {
		in->by[PV_BY_FILE] |= pv_func_source(p, f) != PV_NONE;
		in->by[PV_BY_MODULE] |= pv_func_module(p, f) != PV_NONE;
	}
	for (pv_frame_ix f = 0; f < p->frames.len; f++) {
		in->by[PV_BY_LINE] |= pv_frame_line(p, f) != 0;
		in->by[PV_BY_LOOP] |= pv_frame_kind(p, f) == PV_FRAME_LOOP;
		in->inlines |= pv_frame_inline_depth(p, f) != 0;
	}
}

int pv_profile_info(const struct pv_profile *p, struct pv_profile_info **out)
{
	struct pv_profile_info *in = pv_calloc(1, sizeof(*in));
	if (!in)
		return PV_ENOMEM;
	in->p = p;
	in->threads = pv_calloc(p->threads.len ? p->threads.len : 1, sizeof(*in->threads));
	in->metric_total = pv_calloc(p->metrics.len ? p->metrics.len : 1, sizeof(int64_t));
	if (!in->threads || !in->metric_total) {
		pv_profile_info_free(in);
		return PV_ENOMEM;
	}
	for (uint32_t i = 0; i < p->markers.len; i++)
		in->marker_phases[p->markers.phase[i] & 3]++;
	for (uint32_t s = 0; s < p->samples.len; s++)
		in->samples_without_stack += p->samples.stack[s] == PV_NONE;
	for (pv_metric_ix m = 0; m < p->metrics.len; m++)
		for (uint32_t s = 0; s < p->samples.len; s++)
			in->metric_total[m] =
			    pv_add_sat(in->metric_total[m], pv_sample_weight(p, m, s));
	pv_metric_ix dm = p->meta.default_metric;
	for (pv_thread_ix t = 0; t < p->threads.len; t++) {
		struct pv_thread_info *ti = &in->threads[t];
		ti->first_ns = ti->last_ns = PV_TIME_NONE;
		ti->samples = p->threads.sample_end[t] - p->threads.sample_begin[t];
		for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t]; s++) {
			int64_t x = pv_sample_time(p, s);
			if (p->metrics.len)
				ti->weight = pv_add_sat(ti->weight, pv_sample_weight(p, dm, s));
			if (x == PV_TIME_NONE)
				continue;
			if (ti->first_ns == PV_TIME_NONE || x < ti->first_ns)
				ti->first_ns = x;
			if (ti->last_ns == PV_TIME_NONE || x > ti->last_ns)
				ti->last_ns = x;
		}
	}
	if (thread_activity(p, in)) {
		pv_profile_info_free(in);
		return PV_ENOMEM;
	}
	label_keys(p, in);
	granularities(p, in);
	in->one_program = pv_profile_one_program(p);
	in->open_thread = in->one_program || p->threads.len < 2 ? PV_NONE : in->busiest;
	in->timed = pv_profile_span(p, &in->start_ns, &in->end_ns);
	*out = in;
	return 0;
}

void pv_profile_info_free(struct pv_profile_info *in)
{
	if (!in)
		return;
	pv_free(in->threads);
	pv_free(in->metric_total);
	pv_free(in);
}

/*
 * tedge.c - profiles at the edges of the model (tedge.h).
 */
#include "tedge.h"

#include "model/builder.h"

static struct pv_profile *finish(struct pv_builder *b)
{
	struct pv_profile *p = NULL;
	if (builder_finish(b, &p))
		p = NULL;
	builder_release(b);
	return p;
}

struct pv_profile *t_profile_edges(void)
{
	struct pv_builder b;
	if (builder_init(&b))
		return NULL;
	b.p->meta.format = builder_cstr(&b, "test");
	builder_metric(&b, builder_cstr(&b, "cpu"), PV_UNIT_NS);
	pv_thread_ix t = builder_thread(&b, builder_cstr(&b, "main"), 1, 1, 0);
	pv_frame_ix ff =
	    builder_func_frame(&b, builder_func(&b, builder_cstr(&b, "f"), PV_NONE, PV_NONE, 0));
	pv_frame_ix fg =
	    builder_func_frame(&b, builder_func(&b, builder_cstr(&b, "g"), PV_NONE, PV_NONE, 0));
	pv_stack_ix s1 = builder_stack(&b, PV_NONE, ff), s2 = builder_stack(&b, s1, fg);
	int64_t w1 = INT64_MAX, w2 = 5, w3 = INT64_MAX;
	builder_sample(&b, t, s1, INT64_MIN + 1, &w1);
	builder_sample(&b, t, s2, 0, &w2);
	builder_sample(&b, t, s2, INT64_MAX - 1, &w3);
	int64_t *delay = builder_samples_event_delay(&b);
	if (delay) {
		delay[0] = INT64_MAX;
		delay[1] = PV_TIME_NONE;
		delay[2] = 7;
	}
	struct raw_marker m = {.name = builder_cstr(&b, "long"),
			       .category = PV_NONE,
			       .phase = PV_PHASE_INTERVAL,
			       .start_ns = INT64_MIN + 1,
			       .end_ns = INT64_MAX - 1,
			       .thread = t,
			       .cause_stack = PV_NONE,
			       .cause_time_ns = PV_TIME_NONE};
	builder_marker(&b, &m);
	builder_trace(&b, t, INT64_MIN + 1, s1);
	builder_trace(&b, t, 0, s2);
	if (!b.status) {
		b.p->trace.end_ns = INT64_MAX;
		b.p->threads.start_ns[t] = INT64_MIN + 1;
		b.p->threads.end_ns[t] = INT64_MAX;
		b.p->meta.interval_ns = INT64_MIN;
		b.p->meta.start_unix_ns = INT64_MAX;
	}
	return finish(&b);
}

struct pv_profile *t_profile_nostack(void)
{
	struct pv_builder b;
	if (builder_init(&b))
		return NULL;
	b.p->meta.format = builder_cstr(&b, "test");
	builder_metric(&b, builder_cstr(&b, "samples"), PV_UNIT_COUNT);
	pv_thread_ix t[2] = {builder_thread(&b, builder_cstr(&b, "a"), 1, 1, 0),
			     builder_thread(&b, builder_cstr(&b, "b"), 1, 2, 0)};
	for (int64_t w = 1; w <= 4; w++)
		builder_sample(&b, t[w % 2], PV_NONE, PV_TIME_NONE, &w);
	return finish(&b);
}

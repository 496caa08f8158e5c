/*
 * safari.c - Safari/WebKit Web Inspector timeline recordings (the Timelines tab's Export, a
 * JSON file NAME-recording.json), read the way speedscope's Safari importer reads them, so the
 * weights are the same.
 *
 * Shape: {version, recording: {displayName, startTime, endTime, discontinuities,
 * instrumentTypes, records: [{type, eventType, startTime, endTime, timestamp, details, ...}],
 * markers, memoryPressureEvents, sampleStackTraces: [{timestamp, stackFrames: [{sourceID, name,
 * line, column, url, expressionLocation: {line, column}}] leaf first}], sampleDurations: [s]},
 * overview}. Times are in seconds.
 *
 * What becomes what: one thread named after the recording; every sample a sample (its stack
 * root first) weighing its duration as "time" (ns), at its start (timestamp - duration) from
 * the recording's startTime; a gap of more than 2 ms since the sample before is a sample without
 * a stack weighing the gap, as speedscope counts it. Functions by (name, url, line, column), a
 * function without a name "(anonymous FILE:LINE)" as speedscope names it; a frame's line and
 * column are its expressionLocation's. The records (network, layout, script, rendering frames,
 * CPU usage) are markers: intervals from startTime to endTime or instants at their timestamp,
 * named after their eventType (else their type), their record as the payload, their type the
 * category.
 *
 * Lossy lines: the recording's markers and memory pressure events. Errors: fewer durations than
 * samples, a sample without a timestamp, with line and column.
 */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sbuf.h"
#include "base/vec.h"
#include "import/importer.h"
#include "import/json.h"
#include "import/json_numbers.h"

#define PROBE_WINDOW ((size_t)64 << 10)
#define IDLE_NS	     2000000 /* speedscope's 0.002 s */

struct ssample {
	pv_stack_ix stack;
	int64_t ts; /* ns */
};

struct srec {
	pv_str_ix name, payload;
	pv_cat_ix cat;
	int64_t start, end; /* ns; end PV_TIME_NONE: an instant */
};

struct saf {
	struct json j;
	struct pv_input *in;
	struct pv_error *err;
	struct pv_builder *b;
	struct sbuf name, url, type, event, tmp, display;
	int64_t start; /* the recording's startTime, ns; PV_TIME_NONE unknown */
	struct vec samples, durations, frames, recs;
	const char *durations_at;
	bool has_samples;
	uint64_t lost_markers, lost_pressure;
};

static int read_frame(struct saf *s, const struct json_tok *t)
{
	struct json *j = &s->j;
	int rc;
	if ((rc = json_want(j, t, JSON_OBJECT, "a stack frame ('{')")))
		return rc;
	int64_t line = 0, col = 0, eline = 0, ecol = 0;
	sbuf_reset(&s->name);
	sbuf_reset(&s->url);
	struct json_tok k, v;
	while (!(rc = json_next_member(j, &k, &v)) && k.kind == JSON_KEY) {
		if ((json_is(&k, "name") || json_is(&k, "url")) && v.kind == JSON_STRING) {
			if ((rc = json_text(j, &v, json_is(&k, "name") ? &s->name : &s->url)))
				return rc;
		} else if ((json_is(&k, "line") || json_is(&k, "column")) &&
			   v.kind == JSON_NUMBER) {
			int64_t *to = json_is(&k, "line") ? &line : &col;
			if ((rc = json_i64(j, &v, to)))
				return rc;
			if (*to < 0 || *to > UINT32_MAX)
				return json_fail_at(j, &v, "out of range");
		} else if (json_is(&k, "expressionLocation") && v.kind == JSON_OBJECT) {
			struct json_tok ek, ev;
			while (!(rc = json_next_member(j, &ek, &ev)) && ek.kind == JSON_KEY) {
				int64_t *to = json_is(&ek, "line")     ? &eline
					      : json_is(&ek, "column") ? &ecol
								       : NULL;
				if (to && ev.kind == JSON_NUMBER) {
					if ((rc = json_i64(j, &ev, to)))
						return rc;
					if (*to < 0 || *to > UINT32_MAX)
						return json_fail_at(j, &ev, "out of range");
				} else if ((rc = json_skip(j, &ev))) {
					return rc;
				}
			}
			if (rc)
				return rc;
		} else if ((rc = json_skip(j, &v))) {
			return rc;
		}
	}
	if (rc)
		return rc;
	struct pv_builder *b = s->b;
	pv_str_ix name;
	if (s->name.len) {
		name = builder_str(b, s->name.buf, s->name.len);
	} else if (s->url.len) {
		const char *u = sbuf_str(&s->url), *base = strrchr(u, '/');
		name = builder_strf(b, "(anonymous %s:%lld)", base ? base + 1 : u, (long long)line);
	} else {
		name = builder_cstr(b, "(anonymous)");
	}
	pv_source_ix src =
	    s->url.len ? builder_source(b, builder_str(b, s->url.buf, s->url.len)) : PV_NONE;
	pv_func_ix f = builder_func_at(b, name, PV_NONE, src, (uint32_t)line, (uint32_t)col);
	struct frame_key fk = {.func = f,
			       .line = (uint32_t)eline,
			       .column = eline ? (uint32_t)ecol : 0,
			       .addr = PV_ADDR_NONE,
			       .category = PV_NONE};
	pv_frame_ix *fr = vec_push(&s->frames, sizeof(*fr));
	if (!fr)
		return json_fail(j, NULL, "out of memory");
	*fr = builder_frame(b, &fk);
	return 0;
}

static int read_sample(struct saf *s, const struct json_tok *t)
{
	struct json *j = &s->j;
	int rc;
	if ((rc = json_want(j, t, JSON_OBJECT, "a sample ('{')")))
		return rc;
	int64_t ts = PV_TIME_NONE;
	s->frames.len = 0;
	struct json_tok k, v;
	while (!(rc = json_next_member(j, &k, &v)) && k.kind == JSON_KEY) {
		if (json_is(&k, "timestamp")) {
			if ((rc = json_fixed(j, &v, 9, &ts)))
				return rc;
		} else if (json_is(&k, "stackFrames")) {
			if ((rc = json_want(j, &v, JSON_ARRAY, "an array of frames")))
				return rc;
			struct json_tok f;
			while (!(rc = json_next(j, &f)) && f.kind != JSON_END)
				if ((rc = read_frame(s, &f)))
					return rc;
			if (rc)
				return rc;
		} else if ((rc = json_skip(j, &v))) {
			return rc;
		}
	}
	if (rc)
		return rc;
	if (ts == PV_TIME_NONE)
		return json_fail(j, t->s, "a sample without a 'timestamp'");
	pv_stack_ix st = PV_NONE;
	const pv_frame_ix *fr = VEC(s->frames, pv_frame_ix);
	for (uint32_t i = s->frames.len; i-- > 0;) /* leaf first in the file */
		st = builder_stack(s->b, st, fr[i]);
	struct ssample *x = vec_push(&s->samples, sizeof(*x));
	if (!x)
		return json_fail(j, NULL, "out of memory");
	*x = (struct ssample){st, ts};
	return 0;
}

static int read_record(struct saf *s, const struct json_tok *t)
{
	struct json *j = &s->j;
	int rc;
	if (t->kind != JSON_OBJECT)
		return json_skip(j, t);
	sbuf_reset(&s->tmp);
	sbuf_reset(&s->type);
	sbuf_reset(&s->event);
	int64_t start = PV_TIME_NONE, end = PV_TIME_NONE, ts = PV_TIME_NONE;
	sbuf_puts(&s->tmp, "{");
	struct json_tok k, v;
	bool first = true;
	while (!(rc = json_next_member(j, &k, &v)) && k.kind == JSON_KEY) {
		if (json_is(&k, "type") && v.kind == JSON_STRING &&
		    (rc = json_text(j, &v, &s->type)))
			return rc;
		if (json_is(&k, "eventType") && v.kind == JSON_STRING &&
		    (rc = json_text(j, &v, &s->event)))
			return rc;
		int64_t *to = json_is(&k, "startTime")	 ? &start
			      : json_is(&k, "endTime")	 ? &end
			      : json_is(&k, "timestamp") ? &ts
							 : NULL;
		if (to && v.kind == JSON_NUMBER && (rc = json_fixed(j, &v, 9, to)))
			return rc;
		if (!first)
			sbuf_puts(&s->tmp, ",");
		first = false;
		sbuf_json_string(&s->tmp, k.s, k.len);
		sbuf_puts(&s->tmp, ":");
		if ((rc = json_capture(j, &v, &s->tmp)))
			return rc;
	}
	if (rc)
		return rc;
	sbuf_puts(&s->tmp, "}");
	if (start == PV_TIME_NONE)
		start = ts;
	if (start == PV_TIME_NONE)
		return 0;
	struct pv_builder *b = s->b;
	struct srec *r = vec_push(&s->recs, sizeof(*r));
	if (!r)
		return json_fail(j, NULL, "out of memory");
	const struct sbuf *nm = s->event.len ? &s->event : &s->type;
	r->name = nm->len ? builder_str(b, nm->buf, nm->len) : builder_cstr(b, "record");
	r->cat = s->type.len ? builder_category(b, builder_str(b, s->type.buf, s->type.len), 0)
			     : PV_NONE;
	r->payload = builder_str(b, s->tmp.buf, s->tmp.len);
	r->start = start;
	r->end = end;
	return 0;
}

static int read_recording(struct saf *s, const struct json_tok *t)
{
	struct json *j = &s->j;
	int rc;
	if ((rc = json_want(j, t, JSON_OBJECT, "the recording object ('{')")))
		return rc;
	struct json_tok k, v;
	while (!(rc = json_next_member(j, &k, &v)) && k.kind == JSON_KEY) {
		if (json_is(&k, "displayName") && v.kind == JSON_STRING) {
			if ((rc = json_text(j, &v, &s->display)))
				return rc;
		} else if (json_is(&k, "startTime") && v.kind == JSON_NUMBER) {
			if ((rc = json_fixed(j, &v, 9, &s->start)))
				return rc;
		} else if (json_is(&k, "sampleStackTraces") || json_is(&k, "records")) {
			bool samples = json_is(&k, "sampleStackTraces");
			if ((rc = json_want(j, &v, JSON_ARRAY, "an array")))
				return rc;
			struct json_tok x;
			while (!(rc = json_next(j, &x)) && x.kind != JSON_END)
				if ((rc = samples ? read_sample(s, &x) : read_record(s, &x)))
					return rc;
			if (rc)
				return rc;
			s->has_samples |= samples;
		} else if (json_is(&k, "sampleDurations")) {
			if ((rc = json_want(j, &v, JSON_ARRAY, "an array of durations")))
				return rc;
			s->durations_at = v.s + 1;
			if ((rc = json_read_i64s(j, 9, &s->durations, "sampleDurations")))
				return rc;
		} else if ((json_is(&k, "markers") || json_is(&k, "memoryPressureEvents")) &&
			   v.kind == JSON_ARRAY) {
			uint64_t *n = json_is(&k, "markers") ? &s->lost_markers : &s->lost_pressure;
			struct json_tok x;
			while (!(rc = json_next(j, &x)) && x.kind != JSON_END) {
				(*n)++;
				if ((rc = json_skip(j, &x)))
					return rc;
			}
			if (rc)
				return rc;
		} else if ((rc = json_skip(j, &v))) {
			return rc;
		}
	}
	return rc;
}

static int read_top(struct saf *s)
{
	struct json *j = &s->j;
	struct json_tok k, v;
	int rc = json_next(j, &k);
	if (rc)
		return rc;
	if ((rc = json_want(j, &k, JSON_OBJECT, "a recording file object ('{')")))
		return rc;
	bool rec = false;
	while (!(rc = json_next_member(j, &k, &v)) && k.kind == JSON_KEY) {
		if (json_is(&k, "recording")) {
			if ((rc = read_recording(s, &v)))
				return rc;
			rec = true;
		} else if ((rc = json_skip(j, &v))) {
			return rc;
		}
	}
	if (rc)
		return rc;
	if (!rec || !s->has_samples)
		return json_fail(j, NULL, "a recording needs 'recording' with 'sampleStackTraces'");
	return 0;
}

static int build(struct saf *s)
{
	struct pv_builder *b = s->b;
	struct json *j = &s->j;
	builder_metric(b, builder_cstr(b, "time"), PV_UNIT_NS);
	b->p->meta.product = builder_cstr(b, "Safari");
	pv_thread_ix th =
	    builder_thread(b,
			   s->display.len ? builder_str(b, s->display.buf, s->display.len)
					  : builder_cstr(b, "Safari"),
			   PV_ID_NONE, PV_ID_NONE, 0);
	const struct ssample *x = VEC(s->samples, struct ssample);
	const int64_t *d = VEC(s->durations, int64_t);
	uint32_t n = s->samples.len;
	if (s->durations.len < n)
		return json_fail(j, s->durations_at, "%u sample durations for %u samples",
				 s->durations.len, n);
	int64_t zero = s->start != PV_TIME_NONE ? s->start : n ? x[0].ts : 0;
	int64_t prev_end = INT64_MAX;
	for (uint32_t i = 0; i < n && !b->status; i++) {
		int64_t start, rel;
		if (d[i] < 0 || __builtin_sub_overflow(x[i].ts, d[i], &start) ||
		    __builtin_sub_overflow(start, zero, &rel) || rel > PV_TIME_MAX ||
		    rel < -PV_TIME_MAX || x[i].ts - zero > PV_TIME_MAX)
			return json_fail(j, json_array_elem_at(j, s->durations_at, i),
					 "sample %u: duration or timestamp out of range", i);
		if (prev_end != INT64_MAX && start - prev_end > IDLE_NS) {
			int64_t w = start - prev_end;
			builder_sample(b, th, PV_NONE, prev_end - zero, &w);
		}
		builder_sample(b, th, x[i].stack, start - zero, &d[i]);
		prev_end = x[i].ts;
	}
	const struct srec *r = VEC(s->recs, struct srec);
	uint64_t far = 0;
	for (uint32_t i = 0; i < s->recs.len; i++) {
		int64_t a = pv_sub_sat(r[i].start, zero),
			e = r[i].end != PV_TIME_NONE ? pv_sub_sat(r[i].end, zero) : 0;
		if (a > PV_TIME_MAX || a < -PV_TIME_MAX || e > PV_TIME_MAX || e < -PV_TIME_MAX ||
		    (r[i].end != PV_TIME_NONE && e < a)) {
			far++;
			continue;
		}
		struct raw_marker m = {
		    .name = r[i].name,
		    .category = r[i].cat,
		    .phase = r[i].end != PV_TIME_NONE ? PV_PHASE_INTERVAL : PV_PHASE_INSTANT,
		    .start_ns = a,
		    .end_ns = r[i].end != PV_TIME_NONE ? e : PV_TIME_NONE,
		    .thread = th,
		    .payload = r[i].payload,
		    .cause_stack = PV_NONE,
		    .cause_time_ns = PV_TIME_NONE,
		};
		builder_marker(b, &m);
	}
	builder_lossy(b, far, "records of times out of range or ending before they start");
	builder_lossy(b, s->lost_markers, "the recording's markers");
	builder_lossy(b, s->lost_pressure, "memory pressure events");
	return 0;
}

/* ---- probe and import ---- */

static int probe(const struct pv_input *in)
{
	if (probe_first_char(in) != '{')
		return 0;
	size_t n = in->len < PROBE_WINDOW ? in->len : PROBE_WINDOW;
	if (probe_has(in, n, "\"recording\"") &&
	    (probe_has(in, n, "\"sampleStackTraces\"") || probe_has(in, n, "\"instrumentTypes\"")))
		return 85;
	return 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct saf *s = pv_calloc(1, sizeof(*s));
	if (!s)
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
	s->b = b;
	s->in = in;
	s->err = err;
	s->start = PV_TIME_NONE;
	json_init(&s->j, in, err);
	int rc = read_top(s);
	if (!rc)
		rc = build(s);
	json_release(&s->j);
	vec_free(&s->samples);
	vec_free(&s->durations);
	vec_free(&s->frames);
	vec_free(&s->recs);
	struct sbuf *bufs[] = {&s->name, &s->url, &s->type, &s->event, &s->tmp, &s->display};
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		sbuf_release(bufs[i]);
	pv_free(s);
	return rc;
}

const struct importer importer_safari = {
    .name = "safari",
    .description = "Safari/WebKit Web Inspector timeline recording (JSON export)",
    .probe = probe,
    .import = import,
};

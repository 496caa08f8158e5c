/*
 * speedscope.c - speedscope's own JSON file format ("$schema":
 * "https://www.speedscope.app/file-format-schema.json"), what py-spy, rbspy, speedscope's export
 * and many other tools write (upstream src/lib/file-format-spec.ts).
 *
 * Shape: {shared: {frames: [{name, file, line, col}]}, profiles: [P, ...], name, exporter,
 * activeProfileIndex, version}. A profile P is
 *   - "sampled": {name, unit, startValue, endValue, samples: [[frame, ...] root first], weights};
 *   - "evented": {name, unit, startValue, endValue, events: [{type: "O"|"C", frame, at}]}.
 *
 * What becomes what: every frame a function (its file the source, the file name the module,
 * line and col as written, 1-based; two frames alike are two functions, as speedscope keys
 * frames by their index); every profile a thread named after it. A sampled profile's
 * samples are samples with their weights; an evented profile becomes one sample per stretch of
 * time between two events with at least one frame open: its stack, weighing the stretch (self
 * time per stack, exactly what speedscope draws). Units become metrics: nanoseconds to seconds
 * are "time" in ns (converted exactly), bytes "bytes", none "samples"; a profile weighs 0 in the
 * other profiles' metrics. Times: an evented sample starts at its 'at', a sampled one where the
 * weights before it end (startValue + their sum), both on the time units only, from the
 * earliest startValue of the file.
 *
 * Like speedscope, an evented profile must nest: closing a frame that is not the innermost open
 * one, going back in time, or ending with frames open is an error at the event's line and column.
 *
 * One pass with the pull tokenizer. Keys come in any order: frames are resolved at the end, and
 * a profile's weights or events met before its unit are read again from where they start once the
 * profile object has ended.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sbuf.h"
#include "base/vec.h"
#include "import/importer.h"
#include "import/json.h"
#include "import/script_url.h"

#define SCHEMA_URL   "https://www.speedscope.app/file-format-schema.json"
#define PROBE_WINDOW ((size_t)1 << 20)
#define NO_IX	     UINT32_MAX

enum unit { U_NONE, U_NS, U_US, U_MS, U_S, U_BYTES, U_UNKNOWN };

static const struct {
	const char *name;
	int pow10; /* to the metric's unit: ns for times */
} units[] = {
    [U_NONE] = {"none", 0},	  [U_NS] = {"nanoseconds", 0}, [U_US] = {"microseconds", 3},
    [U_MS] = {"milliseconds", 6}, [U_S] = {"seconds", 9},      [U_BYTES] = {"bytes", 0},
    [U_UNKNOWN] = {"", 0},
};

static bool unit_is_time(enum unit u)
{
	return u >= U_NS && u <= U_S;
}

enum { M_SAMPLES, M_TIME, M_BYTES, NR_METRICS };

static int unit_metric(enum unit u)
{
	return unit_is_time(u) ? M_TIME : u == U_BYTES ? M_BYTES : M_SAMPLES;
}

struct sprof {
	pv_str_ix name;
	bool evented;
	enum unit unit;
	int64_t start, end; /* in the metric's unit; INT64_MIN unknown */
	/* sampled: stacks in sframes [s_off[i], s_off[i + 1]), weights */
	uint32_t s_first, s_count; /* into s_off */
	uint32_t w_first, w_count; /* into weights */
	bool has_weights;
	/* evented: events [e_first, e_first + e_count) */
	uint32_t e_first, e_count;
};

struct sevent {
	int64_t at;
	uint32_t frame;
	bool open;
};

struct ss {
	struct pv_builder *b;
	struct pv_input *in;
	struct pv_error *err;
	struct json j;
	struct vec frames;  /* pv_frame_ix per shared frame */
	struct vec profs;   /* struct sprof */
	struct vec s_off;   /* uint32: start of each sample's stack in sframes, and one past */
	struct vec sframes; /* uint32 frame indices */
	struct vec weights; /* int64 */
	struct vec events;  /* struct sevent */
	struct vec open;    /* uint32: frames open while events are read */
	struct sbuf name, file, tmp;
	bool have_frames, schema;
	pv_str_ix exporter, version;
	uint64_t unknown_type, unknown_unit, no_weights, zero_stretch;
};

static int oom(struct ss *s)
{
	return json_fail(&s->j, NULL, "out of memory");
}

/* ---- frames ---- */

static int read_number_u32(struct json *j, const struct json_tok *v, const char *what,
			   uint32_t *out)
{
	if (v->kind == JSON_NULL) {
		*out = 0;
		return 0;
	}
	if (v->kind != JSON_NUMBER)
		return json_fail_at(j, v, "expected '%s' (a number), found %s", what,
				    json_kind_name(v->kind));
	int64_t x;
	int rc = json_i64(j, v, &x);
	if (rc)
		return rc;
	*out = x > 0 && x < (int64_t)UINT32_MAX ? (uint32_t)x : 0;
	return 0;
}

static int read_frames(struct ss *s)
{
	struct json *j = &s->j;
	struct json_tok t;
	int rc = json_expect(j, &t, JSON_ARRAY, "'frames' (an array)");
	if (rc)
		return rc;
	s->have_frames = true;
	for (;;) {
		if ((rc = json_next(j, &t)))
			return rc;
		if (t.kind == JSON_END)
			return 0;
		if (t.kind != JSON_OBJECT)
			return json_fail_at(j, &t, "expected a frame (an object), found %s",
					    json_kind_name(t.kind));
		bool has_name = false, has_file = false;
		uint32_t line = 0, col = 0;
		for (;;) {
			struct json_tok k, v;
			if ((rc = json_next_member(j, &k, &v)))
				return rc;
			if (k.kind != JSON_KEY)
				break;
			if (json_is(&k, "name") || json_is(&k, "file")) {
				bool nm = k.s[0] == 'n';
				if (v.kind == JSON_NULL)
					continue;
				if (v.kind != JSON_STRING)
					return json_fail_at(
					    j, &v, "expected '%s' (a string), found %s",
					    nm ? "name" : "file", json_kind_name(v.kind));
				if ((rc = json_text(j, &v, nm ? &s->name : &s->file)))
					return rc;
				*(nm ? &has_name : &has_file) = true;
			} else if (json_is(&k, "line")) {
				rc = read_number_u32(j, &v, "line", &line);
			} else if (json_is(&k, "col")) {
				rc = read_number_u32(j, &v, "col", &col);
			} else {
				rc = json_skip(j, &v);
			}
			if (rc)
				return rc;
		}
		struct pv_builder *b = s->b;
		size_t fl = has_file ? s->file.len : 0;
		pv_str_ix name = has_name && s->name.len ? builder_str(b, s->name.buf, s->name.len)
							 : builder_cstr(b, "(anonymous)");
		pv_module_ix mod =
		    script_module(s->b, has_file ? s->file.buf : "", fl, PV_MODULE_UNKNOWN);
		pv_source_ix src =
		    fl ? builder_source(b, builder_str(b, s->file.buf, fl)) : PV_NONE;
		/*
		 * each entry its own function, as speedscope keys frames by index: two entries
		 * alike (functions of one name in two modules written without a file) stay two
		 */
		uint32_t known = b->p->funcs.len;
		pv_func_ix f = builder_func_at(b, name, mod, src, line, col);
		if (f != PV_NONE && f < known)
			f = builder_func_new(b, name, mod, src, line, col);
		struct frame_key key = {
		    .func = f,
		    .line = line,
		    .column = col,
		    .addr = PV_ADDR_NONE,
		    .category = PV_NONE,
		};
		pv_frame_ix *slot = vec_push(&s->frames, sizeof(*slot));
		if (!slot)
			return oom(s);
		*slot = builder_frame(b, &key);
	}
}

static int read_shared(struct ss *s)
{
	struct json *j = &s->j;
	struct json_tok t;
	int rc = json_expect(j, &t, JSON_OBJECT, "'shared' (an object)");
	while (!rc) {
		if ((rc = json_next(j, &t)))
			return rc;
		if (t.kind == JSON_END)
			return 0;
		if (json_is(&t, "frames"))
			rc = read_frames(s);
		else
			rc = json_skip_value(j);
	}
	return rc;
}

/* ---- profiles ---- */

/* A value in unit u as an integer in the metric's unit (ns for times), exactly. */
static int unit_value(struct json *j, const struct json_tok *t, enum unit u, int64_t *out)
{
	if (t->kind != JSON_NUMBER)
		return json_fail_at(j, t, "expected a number, found %s", json_kind_name(t->kind));
	return json_fixed(j, t, units[u].pow10, out);
}

static int read_weights(struct ss *s, struct json *j, struct sprof *p)
{
	struct json_tok t;
	int rc = json_expect(j, &t, JSON_ARRAY, "'weights' (an array)");
	if (rc)
		return rc;
	p->w_first = s->weights.len;
	p->has_weights = true;
	for (;;) {
		if ((rc = json_next(j, &t)))
			return rc;
		if (t.kind == JSON_END)
			break;
		int64_t *w = vec_push(&s->weights, sizeof(*w));
		if (!w)
			return oom(s);
		if ((rc = unit_value(j, &t, p->unit, w)))
			return rc;
	}
	p->w_count = s->weights.len - p->w_first;
	return 0;
}

static int read_samples(struct ss *s, struct json *j, struct sprof *p)
{
	struct json_tok t, x;
	int rc = json_expect(j, &t, JSON_ARRAY, "'samples' (an array of stacks)");
	if (rc)
		return rc;
	p->s_first = s->s_off.len;
	for (;;) {
		if ((rc = json_next(j, &t)))
			return rc;
		if (t.kind == JSON_END)
			break;
		if (t.kind != JSON_ARRAY)
			return json_fail_at(
			    j, &t, "expected a stack (an array of frame indexes), found %s",
			    json_kind_name(t.kind));
		uint32_t *off = vec_push(&s->s_off, sizeof(*off));
		if (!off)
			return oom(s);
		*off = s->sframes.len;
		for (;;) {
			if ((rc = json_next(j, &x)))
				return rc;
			if (x.kind == JSON_END)
				break;
			if (x.kind != JSON_NUMBER)
				return json_fail_at(j, &x,
						    "expected a frame index (a number), found %s",
						    json_kind_name(x.kind));
			int64_t f;
			if ((rc = json_i64(j, &x, &f)))
				return rc;
			if (f < 0 || f >= (int64_t)UINT32_MAX ||
			    (s->have_frames && f >= (int64_t)s->frames.len))
				return json_fail_at(j, &x, "frame %lld does not exist (%u frames)",
						    (long long)f, s->frames.len);
			uint32_t *slot = vec_push(&s->sframes, sizeof(*slot));
			if (!slot)
				return oom(s);
			*slot = (uint32_t)f;
		}
	}
	p->s_count = s->s_off.len - p->s_first;
	/* one past the last stack */
	uint32_t *end = vec_push(&s->s_off, sizeof(*end));
	if (!end)
		return oom(s);
	*end = s->sframes.len;
	return 0;
}

static const char *frame_name(struct ss *s, uint32_t f)
{
	if (!s->have_frames || f >= s->frames.len)
		return "";
	pv_frame_ix fr = VEC(s->frames, pv_frame_ix)[f];
	const struct pv_profile *p = s->b->p;
	if (fr >= p->frames.len)
		return "";
	return pv_str(p, p->funcs.name[p->frames.func[fr]]);
}

/* Events, checked as speedscope checks them: they nest, and time does not go back. */
static int read_events(struct ss *s, struct json *j, struct sprof *p)
{
	struct json_tok t;
	int rc = json_expect(j, &t, JSON_ARRAY, "'events' (an array)");
	if (rc)
		return rc;
	p->e_first = s->events.len;
	s->open.len = 0;
	int64_t last = INT64_MIN;
	for (;;) {
		if ((rc = json_next(j, &t)))
			return rc;
		if (t.kind == JSON_END)
			break;
		if (t.kind != JSON_OBJECT)
			return json_fail_at(j, &t, "expected an event (an object), found %s",
					    json_kind_name(t.kind));
		struct json_tok ev = t;
		int type = 0; /* 'O' or 'C' */
		int64_t at = 0, frame = -1;
		bool has_at = false;
		for (;;) {
			struct json_tok k, v;
			if ((rc = json_next_member(j, &k, &v)))
				return rc;
			if (k.kind != JSON_KEY)
				break;
			if (json_is(&k, "type")) {
				if (v.kind != JSON_STRING || v.len != 1 ||
				    (v.s[0] != 'O' && v.s[0] != 'C'))
					return json_fail_at(
					    j, &v, "expected an event type (\"O\" or \"C\")");
				type = v.s[0];
			} else if (json_is(&k, "frame")) {
				if (v.kind != JSON_NUMBER)
					return json_fail_at(j, &v,
							    "expected a frame index, found %s",
							    json_kind_name(v.kind));
				if ((rc = json_i64(j, &v, &frame)))
					return rc;
				if (frame < 0 || frame >= (int64_t)UINT32_MAX ||
				    (s->have_frames && frame >= (int64_t)s->frames.len))
					return json_fail_at(j, &v,
							    "frame %lld does not exist (%u frames)",
							    (long long)frame, s->frames.len);
			} else if (json_is(&k, "at")) {
				if ((rc = unit_value(j, &v, p->unit, &at)))
					return rc;
				has_at = true;
			} else if ((rc = json_skip(j, &v))) {
				return rc;
			}
		}
		if (!type || frame < 0 || !has_at)
			return json_fail_at(j, &ev, "an event needs 'type', 'frame' and 'at'");
		if (at < last)
			return json_fail_at(j, &ev,
					    "event at %lld goes back in time (the one before is "
					    "at %lld)",
					    (long long)at, (long long)last);
		last = at;
		uint32_t *open = VEC(s->open, uint32_t);
		if (type == 'O') {
			uint32_t *slot = vec_push(&s->open, sizeof(*slot));
			if (!slot)
				return oom(s);
			*slot = (uint32_t)frame;
		} else if (!s->open.len) {
			return json_fail_at(j, &ev, "closes frame %lld '%s' while no frame is open",
					    (long long)frame, frame_name(s, (uint32_t)frame));
		} else if (open[s->open.len - 1] != (uint32_t)frame) {
			uint32_t top = open[s->open.len - 1];
			return json_fail_at(
			    j, &ev,
			    "closes frame %lld '%s' while frame %u '%s' is the innermost "
			    "open one",
			    (long long)frame, frame_name(s, (uint32_t)frame), top,
			    frame_name(s, top));
		} else {
			s->open.len--;
		}
		struct sevent *e = vec_push(&s->events, sizeof(*e));
		if (!e)
			return oom(s);
		e->at = at;
		e->frame = (uint32_t)frame;
		e->open = type == 'O';
	}
	if (s->open.len) {
		uint32_t top = VEC(s->open, uint32_t)[s->open.len - 1];
		return json_fail_at(j, &t,
				    "%u frame%s still open at the end of the events (the "
				    "innermost: frame %u '%s')",
				    s->open.len, s->open.len == 1 ? "" : "s", top,
				    frame_name(s, top));
	}
	p->e_count = s->events.len - p->e_first;
	return 0;
}

/* Reads the value at p (skipped before the unit was known) with a second tokenizer. */
static int reread(struct ss *s, const char *at, struct sprof *p,
		  int (*fn)(struct ss *, struct json *, struct sprof *))
{
	struct json j2;
	json_init(&j2, s->in, s->err);
	j2.p = at;
	j2.forget_mark = at;
	int rc = fn(s, &j2, p);
	json_release(&j2);
	return rc;
}

/* What read_profile keeps of a profile's members until it has read them all. */
struct pread {
	struct sprof p;
	struct json_tok start_tok, end_tok;
	const char *weights_at, *events_at; /* read before 'unit': read again after */
	bool has_unit, has_type, has_start, has_end, unknown_type;
};

/* The value of the 'unit' member. */
static int read_unit(struct ss *s, struct pread *r)
{
	struct json_tok v;
	int rc = json_expect(&s->j, &v, JSON_STRING, "a 'unit' (a string)");
	if (rc)
		return rc;
	r->has_unit = true;
	r->p.unit = U_UNKNOWN;
	for (int u = 0; u < U_UNKNOWN; u++)
		if (json_is(&v, units[u].name))
			r->p.unit = (enum unit)u;
	if (r->p.unit == U_UNKNOWN) {
		s->unknown_unit++;
		r->p.unit = U_NONE;
	}
	return 0;
}

/* The value of 'weights' or 'events' (fn): read now when the unit is known, else its place. */
static int read_or_defer(struct ss *s, struct pread *r, const char **at,
			 int (*fn)(struct ss *, struct json *, struct sprof *))
{
	if (r->has_unit)
		return fn(s, &s->j, &r->p);
	struct json_tok v;
	int rc = json_next(&s->j, &v);
	if (rc)
		return rc;
	*at = v.s;
	return json_skip(&s->j, &v);
}

/* The value of a profile's member t. */
static int read_profile_member(struct ss *s, struct pread *r, const struct json_tok *t)
{
	struct json *j = &s->j;
	struct json_tok v;
	int rc;
	if (json_is(t, "type")) {
		if ((rc = json_expect(j, &v, JSON_STRING, "a profile 'type' (a string)")))
			return rc;
		r->has_type = true;
		if (json_is(&v, "evented"))
			r->p.evented = true;
		else if (!json_is(&v, "sampled"))
			r->unknown_type = true;
		return 0;
	}
	if (json_is(t, "name")) {
		if ((rc = json_next(j, &v)))
			return rc;
		if (v.kind != JSON_STRING)
			return json_skip(j, &v);
		if ((rc = json_text(j, &v, &s->tmp)))
			return rc;
		r->p.name = builder_str(s->b, s->tmp.buf, s->tmp.len);
		return 0;
	}
	if (json_is(t, "unit"))
		return read_unit(s, r);
	if (json_is(t, "startValue") || json_is(t, "endValue")) {
		bool st = t->s[0] == 's';
		if ((rc = json_expect(j, &v, JSON_NUMBER,
				      st ? "'startValue' (a number)" : "'endValue' (a number)")))
			return rc;
		*(st ? &r->start_tok : &r->end_tok) = v;
		*(st ? &r->has_start : &r->has_end) = true;
		return 0;
	}
	if (json_is(t, "samples"))
		return read_samples(s, j, &r->p);
	if (json_is(t, "weights"))
		return read_or_defer(s, r, &r->weights_at, read_weights);
	if (json_is(t, "events"))
		return read_or_defer(s, r, &r->events_at, read_events);
	return json_skip_value(j);
}

static int read_profile(struct ss *s)
{
	struct json *j = &s->j;
	struct pread r = {.p = {.start = INT64_MIN, .end = INT64_MIN, .unit = U_NONE}};
	struct sprof *p = &r.p;
	int rc = 0;
	struct json_tok t;
	for (;;) {
		if ((rc = json_next(j, &t)))
			return rc;
		if (t.kind == JSON_END)
			break;
		if ((rc = read_profile_member(s, &r, &t)))
			return rc;
	}
	if (!r.has_type)
		return json_fail_at(j, &t, "a profile without a 'type'");
	if (r.unknown_type) {
		s->unknown_type++;
		return 0;
	}
	if (r.weights_at && (rc = reread(s, r.weights_at, p, read_weights)))
		return rc;
	if (r.events_at && (rc = reread(s, r.events_at, p, read_events)))
		return rc;
	if (r.has_start && (rc = unit_value(j, &r.start_tok, p->unit, &p->start)))
		return rc;
	if (r.has_end && (rc = unit_value(j, &r.end_tok, p->unit, &p->end)))
		return rc;
	if (!p->evented) {
		if (p->has_weights && p->w_count != p->s_count)
			return json_fail_at(j, &t,
					    "a sampled profile with %u samples and %u weights",
					    p->s_count, p->w_count);
		if (!p->has_weights && p->s_count)
			s->no_weights += p->s_count;
	}
	struct sprof *slot = vec_push(&s->profs, sizeof(*slot));
	if (!slot)
		return oom(s);
	*slot = *p;
	return 0;
}

static int read_profiles(struct ss *s)
{
	struct json *j = &s->j;
	struct json_tok t;
	int rc = json_expect(j, &t, JSON_ARRAY, "'profiles' (an array)");
	while (!rc) {
		if ((rc = json_next(j, &t)))
			return rc;
		if (t.kind == JSON_END)
			return 0;
		if (t.kind != JSON_OBJECT)
			return json_fail_at(j, &t, "expected a profile (an object), found %s",
					    json_kind_name(t.kind));
		rc = read_profile(s);
	}
	return rc;
}

static int read_top(struct ss *s)
{
	struct json *j = &s->j;
	struct json_tok t, v;
	int rc = json_next(j, &t);
	if (rc)
		return rc;
	if (t.kind != JSON_OBJECT)
		return json_fail_at(j, &t, "expected a speedscope file (an object), found %s",
				    json_kind_name(t.kind));
	for (;;) {
		if ((rc = json_next(j, &t)))
			return rc;
		if (t.kind == JSON_END)
			break;
		if (json_is(&t, "$schema")) {
			if ((rc = json_expect(j, &v, JSON_STRING, "'$schema' (a string)")))
				return rc;
			if (!json_is(&v, SCHEMA_URL))
				return json_fail_at(j, &v,
						    "not a speedscope file: '$schema' is not %s",
						    SCHEMA_URL);
			s->schema = true;
		} else if (json_is(&t, "shared")) {
			rc = read_shared(s);
		} else if (json_is(&t, "profiles")) {
			rc = read_profiles(s);
		} else if (json_is(&t, "exporter") || json_is(&t, "version")) {
			bool ex = t.s[0] == 'e';
			if ((rc = json_next(j, &v)))
				return rc;
			if (v.kind == JSON_STRING) {
				if ((rc = json_text(j, &v, &s->tmp)))
					return rc;
				*(ex ? &s->exporter : &s->version) =
				    builder_str(s->b, s->tmp.buf, s->tmp.len);
			} else {
				rc = json_skip(j, &v);
			}
		} else {
			rc = json_skip_value(j);
		}
		if (rc)
			return rc;
	}
	if ((rc = json_next(j, &t)))
		return rc;
	if (t.kind != JSON_EOF)
		return json_fail_at(j, &t, "expected the end of the input");
	if (!s->schema)
		return pv_error_set(s->err, PV_EFORMAT,
				    "%s: not a speedscope file (no \"$schema\": \"%s\")",
				    s->in->name, SCHEMA_URL);
	return 0;
}

/* ---- building ---- */

/* Frame indexes read before shared.frames: each must name one of them. */
static int check_frames(struct ss *s)
{
	uint32_t nf = s->frames.len;
	const uint32_t *sf = VEC(s->sframes, uint32_t);
	for (uint32_t i = 0; i < s->sframes.len; i++)
		if (sf[i] >= nf)
			return pv_error_set(s->err, PV_EPARSE,
					    "%s: a sample names frame %u, shared.frames has %u",
					    s->in->name, sf[i], nf);
	const struct sevent *ev = VEC(s->events, struct sevent);
	for (uint32_t i = 0; i < s->events.len; i++)
		if (ev[i].frame >= nf)
			return pv_error_set(s->err, PV_EPARSE,
					    "%s: an event names frame %u, shared.frames has %u",
					    s->in->name, ev[i].frame, nf);
	return 0;
}

/*
 * The metrics, in the order their units first appear (into metric), the default one the first
 * profile's; returns the time all timed profiles are measured from (the earliest start).
 */
static int64_t make_metrics(struct ss *s, pv_metric_ix metric[NR_METRICS])
{
	struct pv_builder *b = s->b;
	uint32_t np = s->profs.len;
	const struct sprof *profs = VEC(s->profs, struct sprof);
	const struct sevent *ev = VEC(s->events, struct sevent);
	static const char *const mname[NR_METRICS] = {"samples", "time", "bytes"};
	static const enum pv_unit munit[NR_METRICS] = {PV_UNIT_COUNT, PV_UNIT_NS, PV_UNIT_BYTES};
	int64_t zero = INT64_MIN;
	for (uint32_t i = 0; i < np; i++) {
		int m = unit_metric(profs[i].unit);
		if (metric[m] == PV_NONE)
			metric[m] = builder_metric(b, builder_cstr(b, mname[m]), munit[m]);
		if (unit_is_time(profs[i].unit)) {
			int64_t t = profs[i].start;
			if (t == INT64_MIN)
				t = profs[i].evented && profs[i].e_count ? ev[profs[i].e_first].at
									 : 0;
			if (zero == INT64_MIN || t < zero)
				zero = t;
		}
	}
	if (np)
		b->p->meta.default_metric = metric[unit_metric(profs[0].unit)];
	return zero == INT64_MIN ? 0 : zero;
}

static int out_of_range(struct ss *s)
{
	return pv_error_set(s->err, PV_ELIMIT, "%s: times out of range", s->in->name);
}

/* A sampled profile's samples on thread th, weighing metric m, times from zero. */
static int build_sampled(struct ss *s, const struct sprof *p, pv_thread_ix th, pv_metric_ix m,
			 int64_t zero)
{
	struct pv_builder *b = s->b;
	const pv_frame_ix *frames = VEC(s->frames, pv_frame_ix);
	const uint32_t *sf = VEC(s->sframes, uint32_t);
	const uint32_t *off = VEC(s->s_off, uint32_t) + p->s_first;
	const int64_t *wt = p->w_count ? VEC(s->weights, int64_t) + p->w_first : NULL;
	bool timed = unit_is_time(p->unit);
	int64_t t = p->start != INT64_MIN ? p->start : 0;
	int64_t w[NR_METRICS] = {0};
	for (uint32_t k = 0; k < p->s_count && !b->status; k++) {
		pv_stack_ix st = PV_NONE;
		for (uint32_t f = off[k]; f < off[k + 1]; f++)
			st = builder_stack(b, st, frames[sf[f]]);
		int64_t wk = p->has_weights ? wt[k] : 1;
		w[m] = wk;
		int64_t time = PV_TIME_NONE;
		if (timed && __builtin_sub_overflow(t, zero, &time))
			return out_of_range(s);
		builder_sample(b, th, st, time, w);
		if (timed && __builtin_add_overflow(t, wk, &t))
			return out_of_range(s);
	}
	return 0;
}

/* An evented profile: a sample per stretch between events with a frame open. */
static int build_evented(struct ss *s, const struct sprof *p, pv_thread_ix th, pv_metric_ix m,
			 int64_t zero)
{
	struct pv_builder *b = s->b;
	const pv_frame_ix *frames = VEC(s->frames, pv_frame_ix);
	const struct sevent *ev = VEC(s->events, struct sevent);
	const struct pv_stacks *stacks = &b->p->stacks;
	bool timed = unit_is_time(p->unit);
	int64_t w[NR_METRICS] = {0};
	pv_stack_ix st = PV_NONE;
	for (uint32_t k = 0; k < p->e_count && !b->status; k++) {
		const struct sevent *e = &ev[p->e_first + k];
		if (k > 0 && st != PV_NONE) {
			int64_t prev = ev[p->e_first + k - 1].at, len;
			if (__builtin_sub_overflow(e->at, prev, &len))
				return out_of_range(s);
			if (len > 0) {
				w[m] = len;
				int64_t time = PV_TIME_NONE;
				if (timed && __builtin_sub_overflow(prev, zero, &time))
					return out_of_range(s);
				builder_sample(b, th, st, time, w);
			}
		}
		if (e->open)
			st = builder_stack(b, st, frames[e->frame]);
		else if (st != PV_NONE && st < stacks->len)
			st = stacks->prefix[st];
	}
	return 0;
}

static int build(struct ss *s)
{
	struct pv_builder *b = s->b;
	int rc = check_frames(s);
	if (rc)
		return rc;
	pv_metric_ix metric[NR_METRICS] = {PV_NONE, PV_NONE, PV_NONE};
	int64_t zero = make_metrics(s, metric);
	const struct sprof *profs = VEC(s->profs, struct sprof);
	for (uint32_t i = 0; i < s->profs.len && !b->status; i++) {
		const struct sprof *p = &profs[i];
		pv_thread_ix th = builder_thread(b, p->name, PV_ID_NONE, PV_ID_NONE, 0);
		pv_metric_ix m = metric[unit_metric(p->unit)];
		rc = p->evented	  ? build_evented(s, p, th, m, zero)
		     : p->s_count ? build_sampled(s, p, th, m, zero)
				  : 0;
		if (rc)
			return rc;
	}
	if (s->exporter)
		b->p->meta.product = s->exporter;
	if (s->version)
		b->p->meta.format_version = s->version;
	builder_lossy(b, s->unknown_type, "profiles of a type other than sampled and evented");
	builder_lossy(b, s->unknown_unit, "profiles of an unknown unit (read as none)");
	builder_lossy(b, s->no_weights, "samples of profiles without weights (1 each)");
	return 0;
}

/* ---- probe and import ---- */

static int probe(const struct pv_input *in)
{
	if (probe_first_char(in) != '{')
		return 0;
	if (probe_has(in, PROBE_WINDOW, SCHEMA_URL))
		return 95;
	/* "$schema" may come last after big profiles */
	size_t tail = in->len < 4096 ? in->len : 4096;
	if (memmem(in->data + in->len - tail, tail, SCHEMA_URL, strlen(SCHEMA_URL)))
		return 95;
	return 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct ss *s = pv_calloc(1, sizeof(*s));
	if (!s)
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
	s->b = b;
	s->in = in;
	s->err = err;
	json_init(&s->j, in, err);
	int rc = read_top(s);
	if (!rc)
		rc = build(s);
	json_release(&s->j);
	struct vec *vecs[] = {&s->frames,  &s->profs,  &s->s_off, &s->sframes,
			      &s->weights, &s->events, &s->open};
	for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
		vec_free(vecs[i]);
	sbuf_release(&s->name);
	sbuf_release(&s->file);
	sbuf_release(&s->tmp);
	pv_free(s);
	return rc;
}

const struct importer importer_speedscope = {
    .name = "speedscope",
    .description = "speedscope JSON (sampled and evented profiles)",
    .probe = probe,
    .import = import,
};

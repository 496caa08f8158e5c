/*
 * stackprof.c - Ruby's stackprof profiles as `StackProf.results` writes them in JSON
 * (`stackprof --json`, `StackProf.run(raw: true)`), read the way speedscope's stackprof
 * importer reads them, so the weights are the same.
 *
 * Shape: {version, mode: "cpu"|"wall"|"object"|"custom", interval, samples, gc_samples,
 * missed_samples, metadata, frames: {ID: {name, file, line, total_samples, samples, edges,
 * lines}}, raw: [N, ID_root, ..., ID_leaf, COUNT, N, ...], raw_timestamp_deltas: [us, ...]}.
 * Each raw record is a stack seen COUNT times in a row.
 *
 * What becomes what: every frame a function (its file the source, its line the definition's;
 * a frame without a name "(unknown)"), one thread. A record is one sample whose weights are,
 * in cpu mode, COUNT x interval microseconds of "time"; in wall and custom modes the sum of its
 * COUNT timestamp deltas; in object mode COUNT "allocations"; "samples" counts COUNT in every
 * mode. A sample's time is the sum of the deltas before it. Like speedscope, a stack of the
 * frame "(garbage collection)" alone is put on the stack of the record before it (stackprof
 * records GC apart from the Ruby stack it interrupted).
 *
 * Not kept (lossy lines): the frames' per-line sample counts ('lines', 'raw_lines': the raw
 * stacks carry no line), metadata, and keys of no known meaning. Deltas that do not cover the
 * samples make cpu-style weights (COUNT x interval), with a lossy line.
 */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/sbuf.h"
#include "base/vec.h"
#include "import/importer.h"
#include "import/json.h"
#include "import/json_numbers.h"

#define PROBE_WINDOW ((size_t)64 << 10)

enum mode { MODE_CPU, MODE_WALL, MODE_OBJECT, MODE_OTHER };

struct spframe {
	pv_func_ix func;
	pv_frame_ix frame;
	bool gc; /* named "(garbage collection)" */
};

struct sp {
	struct json j;
	struct pv_input *in;
	struct pv_error *err;
	struct pv_builder *b;
	enum mode mode;
	bool has_mode, has_frames, has_raw, has_deltas;
	struct sbuf mode_name, name, file, version;
	int64_t interval;
	struct vec frames; /* struct spframe */
	struct u64map ids; /* frame id -> row of frames */
	struct vec raw, deltas;
	const char *raw_at, *deltas_at; /* first byte after their '[' */
	uint64_t line_counts, unknown_keys, metadata;
};

/* One frame object of "frames": its id is the key k. */
static int read_frame(struct sp *s, const struct json_tok *k, const struct json_tok *v)
{
	struct json *j = &s->j;
	uint64_t id = 0;
	if (!k->len || k->len > 19 || k->escaped)
		return json_fail_at(j, k, "expected a frame id (digits) as the key of 'frames'");
	for (size_t i = 0; i < k->len; i++) {
		if (k->s[i] < '0' || k->s[i] > '9')
			return json_fail_at(j, k,
					    "expected a frame id (digits) as the key of 'frames'");
		id = id * 10 + (uint64_t)(k->s[i] - '0');
	}
	if (u64map_get(&s->ids, id) != UINT32_MAX)
		return json_fail_at(j, k, "frame id %llu given twice in 'frames'",
				    (unsigned long long)id);
	if (v->kind != JSON_OBJECT)
		return json_fail_at(j, v, "expected a frame object, found %s",
				    json_kind_name(v->kind));
	bool named = false, has_file = false;
	int64_t line = 0;
	struct json_tok mk, mv;
	int rc;
	while (!(rc = json_next_member(j, &mk, &mv)) && mk.kind == JSON_KEY) {
		if (json_is(&mk, "name") && mv.kind != JSON_NULL) {
			if ((rc = json_want(j, &mv, JSON_STRING, "a frame name")) ||
			    (rc = json_text(j, &mv, &s->name)))
				return rc;
			named = true;
		} else if (json_is(&mk, "file") && mv.kind != JSON_NULL) {
			if ((rc = json_want(j, &mv, JSON_STRING, "a file name")) ||
			    (rc = json_text(j, &mv, &s->file)))
				return rc;
			has_file = s->file.len > 0;
		} else if (json_is(&mk, "line") && mv.kind != JSON_NULL) {
			if ((rc = json_i64(j, &mv, &line)))
				return rc;
			if (line < 0 || line > UINT32_MAX)
				return json_fail_at(j, &mv, "line %lld out of range",
						    (long long)line);
		} else {
			if (json_is(&mk, "lines"))
				s->line_counts++;
			if ((rc = json_skip(j, &mv)))
				return rc;
		}
	}
	if (rc)
		return rc;
	if (mk.kind != JSON_END)
		return json_fail(j, NULL, "the frame object is cut short");
	struct pv_builder *b = s->b;
	const char *nm = named ? sbuf_str(&s->name) : "(unknown)";
	pv_str_ix name = builder_cstr(b, nm);
	pv_source_ix src =
	    has_file ? builder_source(b, builder_cstr(b, sbuf_str(&s->file))) : PV_NONE;
	struct spframe *f = vec_push(&s->frames, sizeof(*f));
	if (!f || u64map_put(&s->ids, id, s->frames.len - 1))
		return json_fail(j, NULL, "out of memory");
	f->func = builder_func(b, name, PV_NONE, src, (uint32_t)line);
	f->frame = builder_func_frame(b, f->func);
	f->gc = strcmp(nm, "(garbage collection)") == 0;
	return 0;
}

static int read_top(struct sp *s)
{
	struct json *j = &s->j;
	struct json_tok k, v;
	int rc = json_next(j, &k);
	if (rc)
		return rc;
	if ((rc = json_want(j, &k, JSON_OBJECT, "a stackprof object ('{')")))
		return rc;
	while (!(rc = json_next_member(j, &k, &v)) && k.kind == JSON_KEY) {
		if (json_is(&k, "mode")) {
			if ((rc = json_want(j, &v, JSON_STRING, "a mode")) ||
			    (rc = json_text(j, &v, &s->mode_name)))
				return rc;
			const char *m = sbuf_str(&s->mode_name);
			s->mode = strcmp(m, "cpu") == 0	     ? MODE_CPU
				  : strcmp(m, "wall") == 0   ? MODE_WALL
				  : strcmp(m, "object") == 0 ? MODE_OBJECT
							     : MODE_OTHER;
			s->has_mode = true;
		} else if (json_is(&k, "interval")) {
			if ((rc = json_i64(j, &v, &s->interval)))
				return rc;
			if (s->interval < 0 || s->interval > INT64_MAX / 1000 / UINT32_MAX)
				return json_fail_at(j, &v, "interval %lld out of range",
						    (long long)s->interval);
		} else if (json_is(&k, "version")) {
			if ((rc = json_text(j, &v, &s->version)) < 0 || rc > 1)
				return rc;
			if (rc == 1 && (rc = json_skip(j, &v)))
				return rc;
		} else if (json_is(&k, "frames")) {
			if ((rc = json_want(j, &v, JSON_OBJECT, "the frames object ('{')")))
				return rc;
			struct json_tok fk, fv;
			while (!(rc = json_next_member(j, &fk, &fv)) && fk.kind == JSON_KEY)
				if ((rc = read_frame(s, &fk, &fv)))
					return rc;
			if (rc)
				return rc;
			if (fk.kind != JSON_END)
				return json_fail(j, NULL, "'frames' is cut short");
			s->has_frames = true;
		} else if (json_is(&k, "raw") || json_is(&k, "raw_timestamp_deltas")) {
			bool raw = json_is(&k, "raw");
			if ((rc = json_want(j, &v, JSON_ARRAY, "an array of integers")))
				return rc;
			*(raw ? &s->raw_at : &s->deltas_at) = v.s + 1;
			*(raw ? &s->has_raw : &s->has_deltas) = true;
			struct vec *to = raw ? &s->raw : &s->deltas;
			to->len = 0;
			if ((rc = json_read_i64s(j, 0, to, raw ? "raw" : "raw_timestamp_deltas")))
				return rc;
		} else if (json_is(&k, "samples") || json_is(&k, "gc_samples") ||
			   json_is(&k, "missed_samples") || json_is(&k, "raw_sample_timestamps")) {
			/* counts the raw records add up to; absolute times the deltas repeat */
			if ((rc = json_skip(j, &v)))
				return rc;
		} else if (json_is(&k, "metadata") && v.kind == JSON_OBJECT) {
			/* an empty object is nothing lost */
			struct json_tok mk, mv;
			while (!(rc = json_next_member(j, &mk, &mv)) && mk.kind == JSON_KEY) {
				s->metadata++;
				if ((rc = json_skip(j, &mv)))
					return rc;
			}
			if (rc)
				return rc;
		} else {
			if (json_is(&k, "raw_lines"))
				s->line_counts++;
			else
				s->unknown_keys++;
			if ((rc = json_skip(j, &v)))
				return rc;
		}
	}
	if (rc)
		return rc;
	if (k.kind != JSON_END)
		return json_fail(j, NULL, "the stackprof object is cut short");
	if (!s->has_mode || !s->has_frames || !s->has_raw)
		return json_fail(j, NULL,
				 "a stackprof profile needs 'mode', 'frames' and 'raw' (%s "
				 "missing)",
				 !s->has_mode	  ? "'mode'"
				 : !s->has_frames ? "'frames'"
						  : "'raw'");
	return 0;
}

static int build(struct sp *s)
{
	struct pv_builder *b = s->b;
	struct json *j = &s->j;
	bool object = s->mode == MODE_OBJECT;
	enum { W_MAIN, W_SAMPLES, NR_W };
	builder_metric(b, builder_cstr(b, object ? "allocations" : "time"),
		       object ? PV_UNIT_COUNT : PV_UNIT_NS);
	builder_metric(b, builder_cstr(b, "samples"), PV_UNIT_COUNT);
	b->p->meta.default_metric = 0;
	if (s->version.len)
		b->p->meta.format_version = builder_cstr(b, sbuf_str(&s->version));
	b->p->meta.product = builder_strf(b, "stackprof (%s mode)", sbuf_str(&s->mode_name));
	if (!object)
		b->p->meta.interval_ns = s->interval * 1000;
	pv_thread_ix th = builder_thread(b, builder_cstr(b, "ruby"), PV_ID_NONE, PV_ID_NONE, 0);

	const int64_t *raw = VEC(s->raw, int64_t), *dl = VEC(s->deltas, int64_t);
	uint32_t n = s->raw.len, nd = s->deltas.len;
	/* the deltas cover every sample, or no weight is taken from them */
	uint64_t total = 0;
	for (uint32_t i = 0; i < n;) {
		int64_t h = raw[i];
		if (h < 0 || (uint64_t)h >= (uint64_t)(n - i - 1))
			return json_fail(j, json_array_elem_at(j, s->raw_at, i),
					 "raw[%u]: a stack of %lld frames and its count do not fit "
					 "in the %u values left",
					 i, (long long)h, n - i - 1);
		int64_t c = raw[i + 1 + h];
		if (c < 0)
			return json_fail(j, json_array_elem_at(j, s->raw_at, i + 1 + (uint32_t)h),
					 "raw[%u]: sample count %lld is negative",
					 i + 1 + (uint32_t)h, (long long)c);
		total += (uint64_t)c;
		i += (uint32_t)h + 2;
	}
	bool timed = s->has_deltas && total == nd;
	bool use_deltas = timed && (s->mode == MODE_WALL || s->mode == MODE_OTHER);
	if (!timed && (s->mode == MODE_WALL || s->mode == MODE_OTHER))
		builder_lossy(
		    b, 1,
		    "%s mode's weights are its timestamp deltas, but they are %u for %llu "
		    "samples: weighed as the samples x interval instead",
		    sbuf_str(&s->mode_name), nd, (unsigned long long)total);
	else if (s->has_deltas && !timed)
		builder_lossy(b, 1,
			      "timestamp deltas (%u) that do not match the samples (%llu): no "
			      "sample times",
			      nd, (unsigned long long)total);

	const struct spframe *fr = VEC(s->frames, struct spframe);
	pv_stack_ix prev = PV_NONE;
	uint64_t di = 0;
	int64_t t = 0;
	for (uint32_t i = 0; i < n && !b->status;) {
		uint32_t h = (uint32_t)raw[i];
		pv_stack_ix st = PV_NONE;
		for (uint32_t f = 0; f < h; f++) {
			int64_t id = raw[i + 1 + f];
			uint32_t row = u64map_get(&s->ids, (uint64_t)id);
			if (id < 0 || row == UINT32_MAX)
				return json_fail(j, json_array_elem_at(j, s->raw_at, i + 1 + f),
						 "raw[%u]: frame id %lld is not in 'frames'",
						 i + 1 + f, (long long)id);
			if (h == 1 && fr[row].gc)
				st = prev;
			st = builder_stack(b, st, fr[row].frame);
		}
		int64_t c = raw[i + 1 + h];
		int64_t w[NR_W] = {0, c};
		int64_t span = 0;
		if (timed)
			for (int64_t k = 0; k < c; k++, di++)
				if (__builtin_add_overflow(span, dl[di], &span))
					return json_fail(j, s->deltas_at,
							 "timestamp deltas out of range");
		if (object)
			w[W_MAIN] = c;
		else if (use_deltas)
			w[W_MAIN] = span * 1000;
		else
			w[W_MAIN] = c * s->interval * 1000;
		if (!object && use_deltas && (span > INT64_MAX / 1000 || span < INT64_MIN / 1000))
			return json_fail(j, s->deltas_at, "timestamp deltas out of range");
		builder_sample(b, th, st, timed ? t * 1000 : PV_TIME_NONE, w);
		if (timed && (__builtin_add_overflow(t, span, &t) || t > PV_TIME_MAX / 1000 ||
			      t < -PV_TIME_MAX / 1000))
			return json_fail(j, s->deltas_at, "timestamp deltas out of range");
		prev = st;
		i += h + 2;
	}
	builder_lossy(b, s->line_counts,
		      "per-line sample counts of frames ('lines', 'raw_lines'): the stacks carry "
		      "no line");
	builder_lossy(b, s->metadata, "entries of the profile's metadata");
	builder_lossy(b, s->unknown_keys, "top-level keys of no known meaning");
	return 0;
}

/* ---- probe and import ---- */

static int probe(const struct pv_input *in)
{
	if (probe_first_char(in) != '{')
		return 0;
	size_t n = in->len < PROBE_WINDOW ? in->len : PROBE_WINDOW;
	if (probe_has(in, n, "\"mode\"") && probe_has(in, n, "\"frames\"") &&
	    (probe_has(in, n, "\"interval\"") || probe_has(in, n, "\"raw\"")))
		return 80;
	return 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct sp *s = pv_calloc(1, sizeof(*s));
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
	vec_free(&s->frames);
	vec_free(&s->raw);
	vec_free(&s->deltas);
	u64map_release(&s->ids);
	sbuf_release(&s->mode_name);
	sbuf_release(&s->name);
	sbuf_release(&s->file);
	sbuf_release(&s->version);
	pv_free(s);
	return rc;
}

const struct importer importer_stackprof = {
    .name = "stackprof",
    .description = "Ruby stackprof JSON (cpu, wall, object and custom modes)",
    .probe = probe,
    .import = import,
};

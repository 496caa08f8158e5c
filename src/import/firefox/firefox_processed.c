/*
 * firefox_processed.c - the Firefox Profiler's own format, the "processed profile", versions 24
 * to 70: what profiler.firefox.com uploads and saves, and what samply writes.
 *
 * The file is one JSON object of column tables (upstream: src/types/profile.ts). It is read in
 * one pass with the pull tokenizer and no DOM: JSON key order is not fixed (threads may come
 * before shared, frameTable before stringArray, meta last), so every column lands first in a
 * temporary array, 32-bit for indices and 64-bit only for times, weights and addresses. The
 * model is then built through the builder: libs and resources become modules, then funcs,
 * frames and stacks in index order, then per thread its samples and raw markers. When meta,
 * libs and shared come before the threads (as the front-end and samply write them), each
 * thread is built as soon as its object ends, so only one thread's columns are ever held;
 * otherwise every thread waits for the end of the file. Either way a table's temporary
 * columns are freed as soon as its rows are interned, and the result is the same.
 *
 * Versions differ in where tables live and how columns are named; the reader goes by the keys
 * it finds, not by the version number:
 *   - shared.{stackTable,frameTable,funcTable,resourceTable} (v60+) or the same per thread;
 *   - shared.stringArray (v56+) or a per-thread stringArray (older: stringTable);
 *   - stackTable.prefix (null = root, v65 and older) or prefixOffset (0 = root, k > 0 = the
 *     stack k rows before, v66+);
 *   - funcTable.source (into shared.sources, v58+) or fileName (a string index);
 *   - resourceTable.lib (v69 and older) or frameTable.lib (v70);
 *   - samples.time or samples.timeDeltas (summed from 0).
 * Stack tables of v52 and older also have category and subcategory columns; the model derives
 * a stack's category from its frames (as the front-end does since v53), so those columns are
 * only compared with that and the stacks that disagree are reported.
 *
 * Marker payloads are kept as compact JSON text, except that a cause object becomes the cause
 * columns and that fields whose schema format is unique-string, flow-id or terminating-flow-id
 * (and CompositorScreenshot's url) get the string their index names; meta.markerSchema is kept
 * whole as the model's meta.marker_schema.
 *
 * Times are milliseconds since meta.startTime and become nanoseconds exactly (decimal fixed
 * point, no floating point). Whatever the model has no place for is reported once as a lossy
 * step, counted in values that carried something (not null, 0, -1, false, "" or empty).
 *
 * This file reads meta, libs, shared, the marker schemas and the threads, and holds the
 * importer; firefox_processed_columns.c reads the column tables, firefox_processed_build.c
 * builds the model from them, firefox_processed_common.c has the helpers all three use
 * (firefox_processed.h).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sbuf.h"
#include "base/vec.h"
#include "import/firefox/firefox.h"
#include "import/firefox/firefox_processed.h"
#include "import/importer.h"
#include "import/json.h"

static int read_int(struct fxp *x, const char *name, int64_t *out)
{
	struct json_tok t;
	int rc = json_next(&x->j, &t);
	if (rc)
		return rc;
	if (t.kind != JSON_NUMBER)
		return fxp_bad_kind(x, &t, "an integer", name);
	return json_i64(&x->j, &t, out);
}

static int read_process_type(struct fxp *x, pv_str_ix *out)
{
	struct json_tok t;
	const char *s;
	size_t n;
	int rc = json_next(&x->j, &t);
	if (rc || t.kind != JSON_STRING)
		return rc ? rc : json_skip(&x->j, &t);
	if ((rc = json_str(&x->j, &t, &s, &n)))
		return rc;
	*out = builder_str(x->b, s, n);
	return 0;
}

/* A time in ms (or null) as ns. */
static int read_ms(struct fxp *x, const char *name, int64_t *out)
{
	struct json_tok t;
	int rc = json_next(&x->j, &t);
	if (rc)
		return rc;
	if (t.kind == JSON_NULL) {
		*out = PV_TIME_NONE;
		return 0;
	}
	if (t.kind != JSON_NUMBER)
		return fxp_bad_kind(x, &t, "a time in milliseconds or null", name);
	return json_fixed(&x->j, &t, 6, out);
}

/* A pid or tid: a number or a string holding one; anything else is unknown. */
static int read_id(struct fxp *x, const char *name, int64_t *out)
{
	struct json_tok t;
	int rc = json_next(&x->j, &t);
	if (rc)
		return rc;
	*out = PV_ID_NONE;
	if (t.kind == JSON_NUMBER)
		return json_i64(&x->j, &t, out);
	if (t.kind == JSON_STRING) {
		struct json_tok n = {.kind = JSON_NUMBER, .s = t.s, .len = t.len};
		int64_t v;
		if (!t.escaped && small_int(&n, &v))
			*out = v;
		return 0;
	}
	if (t.kind == JSON_NULL)
		return 0;
	return fxp_bad_kind(x, &t, "a number or a string", name);
}

static int read_sample_units(struct fxp *x)
{
	struct json_tok t, k;
	int rc = fxp_expect_object(x, &t, "meta.sampleUnits");
	if (rc)
		return rc;
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		if (!json_is(&k, "threadCPUDelta")) {
			if ((rc = json_skip_value(&x->j)))
				return rc;
			continue;
		}
		if ((rc = json_next(&x->j, &t)))
			return rc;
		if (t.kind != JSON_STRING)
			return fxp_bad_kind(x, &t, "a string", "meta.sampleUnits.threadCPUDelta");
		if (json_is(&t, "ns"))
			x->cpu_unit = CPU_NS;
		else if (json_is(&t, "\xc2\xb5s") || json_is(&t, "\\u00b5s") || json_is(&t, "us"))
			x->cpu_unit = CPU_US;
		else if (json_is(&t, "variable CPU cycles"))
			x->cpu_unit = CPU_CYCLES;
		else
			x->cpu_unit = CPU_UNKNOWN;
	}
	return rc;
}

/* ---- marker schemas ---- */

/* One schema's string-index fields (firefox.h), noted by the schema's name (64 at most). */
static int schema_fields(struct fxp *x, const char *text, size_t len)
{
	struct pv_error serr;
	struct vec keys = {0};
	pv_str_ix name;
	int rc = ff_schema_string_keys(x->b, x->in->name, text, len, &serr, &name, &keys);
	if (rc == PV_ENOMEM || x->b->status) {
		vec_free(&keys);
		return fxp_oom(x);
	}
	uint32_t nkeys = keys.len < 64 ? keys.len : 64;
	for (uint32_t i = 0; name && name != PV_NONE && i < nkeys; i++) {
		struct strfield *sf = pv_realloc(x->strfields, (x->nr_strfields + 1) * sizeof(*sf));
		if (!sf) {
			vec_free(&keys);
			return fxp_oom(x);
		}
		x->strfields = sf;
		sf[x->nr_strfields].type = name;
		sf[x->nr_strfields++].key = VEC(keys, pv_str_ix)[i];
	}
	vec_free(&keys);
	return 0;
}

/*
 * meta.markerSchema: kept whole as compact JSON (the model's meta.marker_schema, read by the
 * marker module), each schema's string-index fields noted for build_markers.
 */
static int read_marker_schemas(struct fxp *x)
{
	struct json_tok v, t;
	int rc = json_next(&x->j, &v);
	if (rc)
		return rc;
	if (v.kind != JSON_ARRAY)
		return json_skip(&x->j, &v);
	sbuf_reset(&x->cap);
	if ((rc = json_capture(&x->j, &v, &x->cap)))
		return rc;
	if (x->cap.len <= 2)
		return 0; /* [] */
	pv_str_ix all = builder_str(x->b, x->cap.buf, x->cap.len);
	x->b->p->meta.marker_schema = all == PV_NONE ? 0 : all;
	if (all == PV_NONE)
		return fxp_oom(x);
	/* the array's objects: each found by its braces (the text is compact and valid) */
	const char *text = x->b->p->strings.ptr[all];
	size_t len = x->b->p->strings.size[all];
	struct pv_input sin;
	struct pv_error serr;
	struct json sj;
	ff_sub_json(&sj, &sin, &serr, x->in->name, text, len);
	rc = json_next(&sj, &t);
	while (!rc && !(rc = json_next(&sj, &t)) && t.kind != JSON_END) {
		if (t.kind != JSON_OBJECT) {
			rc = json_skip(&sj, &t);
			continue;
		}
		const char *from = t.s;
		uint32_t depth = 0;
		const char *p = from;
		bool in_str = false;
		for (; p < text + len; p++) {
			if (in_str) {
				if (*p == '\\')
					p++;
				else if (*p == '"')
					in_str = false;
			} else if (*p == '"') {
				in_str = true;
			} else if (*p == '{' || *p == '[') {
				depth++;
			} else if ((*p == '}' || *p == ']') && --depth == 0) {
				break;
			}
		}
		if ((rc = json_skip(&sj, &t)) || p >= text + len)
			break;
		rc = schema_fields(x, from, (size_t)(p + 1 - from));
	}
	json_release(&sj);
	return rc == PV_ENOMEM ? rc : 0;
}

static int read_meta(struct fxp *x)
{
	struct json_tok t, k;
	struct pv_meta *m = &x->b->p->meta;
	int rc;
	if (x->have_meta) {
		builder_lossy(x->b, 1, "a second meta object ignored");
		return json_skip_value(&x->j);
	}
	x->have_meta = true;
	if ((rc = fxp_expect_object(x, &t, "meta")))
		return rc;
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		if (json_is(&k, "preprocessedProfileVersion")) {
			if ((rc = read_int(x, "meta.preprocessedProfileVersion", &x->version)))
				return rc;
			if (x->version < FXP_MIN_VERSION || x->version > FXP_MAX_VERSION)
				return pv_error_set(x->err, PV_EFORMAT,
						    "%s: processed profile version %lld is not "
						    "supported (profview reads %d to %d)",
						    x->in->name, (long long)x->version,
						    FXP_MIN_VERSION, FXP_MAX_VERSION);
			x->have_version = true;
		} else if (json_is(&k, "version")) {
			rc = read_int(x, "meta.version", &x->gecko_version);
		} else if (json_is(&k, "startTime")) {
			int64_t v;
			if (!(rc = read_ms(x, "meta.startTime", &v)))
				m->start_unix_ns = v == PV_TIME_NONE ? 0 : v;
		} else if (json_is(&k, "interval")) {
			int64_t v;
			if (!(rc = read_ms(x, "meta.interval", &v)))
				m->interval_ns = v > 0 ? v : 0; /* null or nonsense: unknown */
		} else if (json_is(&k, "product")) {
			rc = fxp_read_str(x, "meta.product", &m->product);
		} else if (json_is(&k, "categories")) {
			if (x->nr_cat) {
				rc = json_skip_value(&x->j);
			} else if (!(rc = fxp_expect_array(x, &t, "meta.categories"))) {
				for (;;) {
					if ((rc = json_next(&x->j, &t)) || t.kind == JSON_END)
						break;
					if ((rc = fxp_read_category(x, &t)))
						break;
				}
			}
		} else if (json_is(&k, "sampleUnits")) {
			rc = read_sample_units(x);
		} else if (json_is(&k, "markerSchema")) {
			rc = read_marker_schemas(x);
		} else if (json_is(&k, "extra") || json_is(&k, "configuration") ||
			   json_is(&k, "extensions") || json_is(&k, "visualMetrics") ||
			   json_is(&k, "pausedRanges")) {
			rc = fxp_not_kept(x, "meta.", &k);
		} else {
			/* descriptive scalars (platform, oscpu, appBuildID, ...) */
			rc = json_skip_value(&x->j);
		}
		if (rc)
			return rc;
	}
	return rc;
}

static int read_libs(struct fxp *x)
{
	struct json_tok t, k;
	int rc;
	if (x->libs_done || x->prepared) {
		builder_lossy(x->b, 1, "a second or late libs array ignored");
		return json_skip_value(&x->j);
	}
	x->libs_done = true;
	if ((rc = fxp_expect_array(x, &t, "libs")))
		return rc;
	uint64_t ids = 0;
	for (;;) {
		if ((rc = json_next(&x->j, &t)))
			return rc;
		if (t.kind == JSON_END)
			break;
		if (t.kind != JSON_OBJECT)
			return fxp_bad_kind(x, &t, "an object", "libs[]");
		if (x->nr_libs == x->cap_libs) {
			uint32_t nc = grow_cap(x->cap_libs, (uint64_t)x->nr_libs + 1);
			if (!nc || COL_GROW(x->lib_name, nc) || COL_GROW(x->lib_path, nc))
				return fxp_oom(x);
			x->cap_libs = nc;
		}
		pv_str_ix name = 0, path = 0;
		uint64_t more = 0;
		while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
			if (json_is(&k, "name")) {
				rc = fxp_read_str(x, "libs[].name", &name);
			} else if (json_is(&k, "path")) {
				rc = fxp_read_str(x, "libs[].path", &path);
			} else {
				struct json_tok v;
				uint64_t n;
				if (!(rc = json_next(&x->j, &v)) &&
				    !(rc = fxp_count_value(x, &v, &n)))
					more += n;
			}
			if (rc)
				return rc;
		}
		if (rc)
			return rc;
		ids += more != 0;
		x->lib_name[x->nr_libs] = name;
		x->lib_path[x->nr_libs] = path;
		x->nr_libs++;
	}
	if (ids)
		builder_lossy(x->b, ids, "libs: arch, debug names, breakpad and code ids not kept");
	return 0;
}

static const struct colspec source_cols[] = {
    {"filename", C_INDEX, offsetof(struct fxp, src_file), "sources.filename"},
    {"length", C_LENGTH, offsetof(struct fxp, sources_n), "sources.length"},
    /* identify a source, no content */
    {"id", C_SKIP, 0, NULL},
    {"uuid", C_SKIP, 0, NULL},
    {"startLine", C_SKIP, 0, NULL},
    {"startColumn", C_SKIP, 0, NULL},
    {NULL, C_SKIP, 0, NULL},
};

static int read_sources(struct fxp *x)
{
	bool unused;
	return fxp_read_table(x, "shared.sources", source_cols, x, &x->sources_at, &x->sources_n,
			      "sources.", &unused);
}

static int read_shared(struct fxp *x)
{
	struct json_tok t, k;
	int rc;
	if (x->shared_done || x->prepared) {
		builder_lossy(x->b, 1, "a second or late shared object ignored");
		return json_skip_value(&x->j);
	}
	if ((rc = fxp_expect_object(x, &t, "shared")))
		return rc;
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		if (fxp_read_table_key(x, &x->shared, &k, &rc))
			;
		else if (json_is(&k, "sources"))
			rc = read_sources(x);
		else
			rc = fxp_not_kept(x, "", &k);
		if (rc)
			return rc;
	}
	x->shared_done = !rc;
	return rc;
}

/* ---- threads ---- */

/*
 * Reads a marker payload: kept as compact JSON text, without its "cause" object, whose stack (an
 * index into the file's own stack table, meaningless in the model) and time become the marker's
 * cause columns, as the Gecko importer does with a payload's "stack".
 */
static int read_payload(struct fxp *x, struct thread *th, const struct json_tok *t)
{
	pv_str_ix payload = 0;
	uint32_t cause = PV_NONE;
	int64_t cause_time = PV_TIME_NONE;
	int rc;
	if (t->kind != JSON_NULL) {
		sbuf_reset(&x->cap);
		if ((rc = json_capture(&x->j, t, &x->cap)))
			return rc;
		/*
		 * A cause is rare and its payload small, so it is found by reading the captured
		 * text again rather than by slowing down every capture.
		 */
		if (t->kind == JSON_OBJECT && memmem(x->cap.buf, x->cap.len, "\"cause\"", 7)) {
			struct pv_input sin;
			struct pv_error serr;
			struct json sj;
			struct json_tok a, k;
			/* the bytes of the cause members read whole, cut from the text after */
			size_t cut_from[8], cut_to[8];
			uint32_t ncut = 0;
			ff_sub_json(&sj, &sin, &serr, x->in->name, x->cap.buf, x->cap.len);
			bool ok = !json_next(&sj, &a) && a.kind == JSON_OBJECT;
			while (ok && !json_next(&sj, &k) && k.kind == JSON_KEY) {
				if (!json_is(&k, "cause") || json_depth(&sj) != 1) {
					ok = !json_skip_value(&sj);
					continue;
				}
				size_t from =
				    (size_t)(k.s - 1 - x->cap.buf); /* its opening quote */
				if (json_next(&sj, &a) || a.kind != JSON_OBJECT) {
					ok = !json_skip(&sj, &a);
					continue;
				}
				bool closed = false, tid = false;
				while (!json_next_member(&sj, &k, &a)) {
					int64_t v;
					if (k.kind != JSON_KEY) {
						closed = k.kind == JSON_END;
						break;
					}
					if (json_is(&k, "stack") && a.kind == JSON_NUMBER &&
					    !json_i64(&sj, &a, &v) && v >= 0 && v < PV_NONE)
						cause = (uint32_t)v;
					else if (json_is(&k, "time") && a.kind == JSON_NUMBER &&
						 !json_fixed(&sj, &a, 6, &v))
						cause_time = v;
					else if (json_is(&k, "tid") && a.kind != JSON_NULL)
						tid = true;
					if (json_skip(&sj, &a)) /* a container; scalars are read */
						break;
				}
				if (closed && ncut < sizeof(cut_from) / sizeof(cut_from[0])) {
					cut_from[ncut] = from;
					cut_to[ncut++] = (size_t)(sj.p - x->cap.buf);
					x->cause_tids += tid;
				}
			}
			json_release(&sj);
			/* last first, each with one comma: the one before, or after a first member
			 */
			while (ncut--) {
				size_t from = cut_from[ncut], to = cut_to[ncut];
				if (x->cap.buf[from - 1] == ',')
					from--;
				else if (to < x->cap.len && x->cap.buf[to] == ',')
					to++;
				memmove(x->cap.buf + from, x->cap.buf + to, x->cap.len - to);
				sbuf_setlen(&x->cap, x->cap.len - (to - from));
			}
		}
		payload = builder_str(x->b, x->cap.buf, x->cap.len);
	}
	if ((rc = ucol_push(x, &th->m_payload, payload)) ||
	    (rc = ucol_push(x, &th->m_cause, cause)))
		return rc;
	return lcol_push(x, &th->m_cause_time, cause_time);
}

static int read_marker_data(struct fxp *x, struct thread *th)
{
	struct json_tok t;
	int rc = fxp_expect_array(x, &t, "markers.data");
	if (rc)
		return rc;
	fxp_ucol_free(&th->m_payload);
	fxp_ucol_free(&th->m_cause);
	fxp_lcol_free(&th->m_cause_time);
	th->m_payload.at = t.s;
	for (;;) {
		if ((rc = json_next(&x->j, &t)))
			return rc;
		if (t.kind == JSON_END)
			return 0;
		if ((rc = read_payload(x, th, &t)))
			return rc;
	}
}

static int read_markers(struct fxp *x, struct thread *th)
{
	struct json_tok t, k;
	int rc = fxp_expect_object(x, &t, "markers");
	if (rc)
		return rc;
	th->markers_at = t.s;
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		if (json_is(&k, "name"))
			rc = fxp_read_ucol(x, &th->m_name, U_INDEX, "markers.name");
		else if (json_is(&k, "startTime"))
			rc = fxp_read_lcol(x, &th->m_start, L_MS, "markers.startTime");
		else if (json_is(&k, "endTime"))
			rc = fxp_read_lcol(x, &th->m_end, L_MS, "markers.endTime");
		else if (json_is(&k, "phase"))
			rc = fxp_read_ucol(x, &th->m_phase, U_INDEX, "markers.phase");
		else if (json_is(&k, "category"))
			rc = fxp_read_ucol(x, &th->m_cat, U_INDEX, "markers.category");
		else if (json_is(&k, "data"))
			rc = read_marker_data(x, th);
		else if (json_is(&k, "length"))
			rc = fxp_read_length(x, "markers.length", &th->m_n);
		else
			rc = fxp_not_kept(x, "markers.", &k);
		if (rc)
			return rc;
	}
	return rc;
}

static int read_weight_type(struct fxp *x, struct thread *th)
{
	struct json_tok t;
	int rc = json_next(&x->j, &t);
	if (rc)
		return rc;
	if (t.kind == JSON_NULL) {
		th->wtype = W_SAMPLES;
		return 0;
	}
	if (t.kind != JSON_STRING)
		return fxp_bad_kind(x, &t, "a string", "samples.weightType");
	if (json_is(&t, "samples"))
		th->wtype = W_SAMPLES;
	else if (json_is(&t, "tracing-ms"))
		th->wtype = W_TRACING_MS;
	else if (json_is(&t, "bytes"))
		th->wtype = W_BYTES;
	else
		return json_fail_at(
		    &x->j, &t,
		    "expected samples.weightType 'samples', 'tracing-ms' or 'bytes', found '%.*s'",
		    (int)(t.len > 40 ? 40 : t.len), t.s);
	return 0;
}

static int read_samples(struct fxp *x, struct thread *th)
{
	struct json_tok t, k;
	int rc = fxp_expect_object(x, &t, "samples");
	if (rc)
		return rc;
	th->samples_at = t.s;
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		if (json_is(&k, "stack")) {
			rc = fxp_read_ucol_n(x, &th->s_stack, U_INDEX, "samples.stack", th->s_n);
		} else if (json_is(&k, "time")) {
			rc = fxp_read_lcol_n(x, &th->s_time, L_MS, "samples.time", th->s_n);
		} else if (json_is(&k, "timeDeltas")) {
			rc = fxp_read_lcol_n(x, &th->s_time, L_MS_DELTAS, "samples.timeDeltas",
					     th->s_n);
		} else if (json_is(&k, "weight")) {
			struct json_tok v;
			if ((rc = json_next(&x->j, &v)))
				return rc;
			if (v.kind == JSON_NULL)
				fxp_lcol_free(&th->s_weight);
			else if (v.kind == JSON_ARRAY)
				rc = fxp_lcol_fill(x, &th->s_weight, L_E6, "samples.weight", &v,
						   th->s_n);
			else
				rc = fxp_bad_kind(x, &v, "an array or null", "samples.weight");
		} else if (json_is(&k, "weightType")) {
			rc = read_weight_type(x, th);
		} else if (json_is(&k, "threadCPUDelta")) {
			rc =
			    fxp_read_lcol_n(x, &th->s_cpu, L_E3, "samples.threadCPUDelta", th->s_n);
		} else if (json_is(&k, "eventDelay") ||
			   (json_is(&k, "responsiveness") && !th->s_delay_event)) {
			/* the Firefox Profiler reads eventDelay when a thread has it, else this */
			bool event = json_is(&k, "eventDelay");
			const char *what = event ? "samples.eventDelay" : "samples.responsiveness";
			struct json_tok v;
			if ((rc = json_next(&x->j, &v)))
				return rc;
			if (v.kind == JSON_ARRAY) {
				th->s_delay_event = event;
				rc = fxp_lcol_fill(x, &th->s_delay, L_MS, what, &v, th->s_n);
			} else if (v.kind != JSON_NULL) {
				rc = fxp_bad_kind(x, &v, "an array or null", what);
			}
		} else if (json_is(&k, "length")) {
			rc = fxp_read_length(x, "samples.length", &th->s_n);
		} else {
			rc = fxp_not_kept(x, "samples.", &k);
		}
		if (rc)
			return rc;
	}
	return rc;
}

static int read_thread(struct fxp *x, const struct json_tok *open)
{
	struct json_tok k;
	int rc;
	if (open->kind != JSON_OBJECT)
		return fxp_bad_kind(x, open, "an object", "threads[]");
	if (x->nr_threads == x->cap_threads) {
		if ((rc = fxp_grow(x, (void **)&x->threads, sizeof(*x->threads), &x->cap_threads,
				   x->nr_threads)))
			return rc;
	}
	struct thread *th = &x->threads[x->nr_threads++];
	memset(th, 0, sizeof(*th));
	fxp_tables_init(&th->t);
	th->pid = th->tid = PV_ID_NONE;
	th->reg_ns = th->unreg_ns = PV_TIME_NONE;
	th->s_n = th->m_n = -1;
	th->wtype = W_SAMPLES;
	th->s_base = th->s_stack.base = th->s_time.base = x->tail_end;
	th->s_stack.in_builder = th->s_time.in_builder = true;
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		if (fxp_read_table_key(x, &th->t, &k, &rc))
			;
		else if (json_is(&k, "nativeSymbols"))
			rc = fxp_not_kept(x, "", &k);
		else if (json_is(&k, "name"))
			rc = fxp_read_str(x, "threads[].name", &th->name);
		else if (json_is(&k, "processName"))
			rc = fxp_read_str(x, "threads[].processName", &th->process_name);
		else if (json_is(&k, "processType"))
			rc = read_process_type(x, &th->process_type);
		else if (json_is(&k, "pid"))
			rc = read_id(x, "threads[].pid", &th->pid);
		else if (json_is(&k, "tid"))
			rc = read_id(x, "threads[].tid", &th->tid);
		else if (json_is(&k, "registerTime"))
			rc = read_ms(x, "threads[].registerTime", &th->reg_ns);
		else if (json_is(&k, "unregisterTime"))
			rc = read_ms(x, "threads[].unregisterTime", &th->unreg_ns);
		else if (json_is(&k, "samples"))
			rc = read_samples(x, th);
		else if (json_is(&k, "markers"))
			rc = read_markers(x, th);
		else if (json_is(&k, "processStartupTime") || json_is(&k, "processShutdownTime") ||
			 json_is(&k, "isMainThread") || json_is(&k, "showMarkersInTimeline") ||
			 json_is(&k, "eTLD+1") || json_is(&k, "isPrivateBrowsing") ||
			 json_is(&k, "userContextId") || json_is(&k, "isJsTracer"))
			rc = json_skip_value(&x->j); /* descriptive, like most of meta */
		else
			rc = fxp_not_kept(x, "threads[].", &k);
		if (rc)
			return rc;
	}
	if (rc)
		return rc;
	/* the next thread's samples go after this one's, which stay until it is built */
	x->tail_end =
	    th->s_base + (th->s_stack.len > th->s_time.len ? th->s_stack.len : th->s_time.len);
	if (fxp_can_build_now(x, th))
		rc = fxp_build_thread(x, x->nr_threads - 1);
	return rc;
}

static int read_threads(struct fxp *x)
{
	struct json_tok t;
	int rc = fxp_expect_array(x, &t, "threads");
	if (rc)
		return rc;
	for (;;) {
		if ((rc = json_next(&x->j, &t)))
			return rc;
		if (t.kind == JSON_END)
			return 0;
		if ((rc = read_thread(x, &t)))
			return rc;
	}
}

/* ---- the importer ---- */

static int read_top(struct fxp *x)
{
	struct json_tok t, k;
	int rc = json_next(&x->j, &t);
	if (rc)
		return rc;
	if (t.kind != JSON_OBJECT)
		return json_fail_at(&x->j, &t,
				    "expected an object (a Firefox processed profile), found %s",
				    json_kind_name(t.kind));
	while (!(rc = json_next(&x->j, &k)) && k.kind == JSON_KEY) {
		if (json_is(&k, "meta"))
			rc = read_meta(x);
		else if (json_is(&k, "libs"))
			rc = read_libs(x);
		else if (json_is(&k, "shared"))
			rc = read_shared(x);
		else if (json_is(&k, "threads"))
			rc = read_threads(x);
		else
			rc = fxp_not_kept(x, "", &k);
		if (rc)
			return rc;
	}
	if (rc)
		return rc;
	if ((rc = json_next(&x->j, &t)))
		return rc;
	return 0;
}

static int probe(const struct pv_input *in)
{
	if (probe_first_char(in) != '{')
		return 0;
	if (probe_has(in, PROBE_BYTES, "\"preprocessedProfileVersion\""))
		return 90;
	/* meta may come last: a funcTable is only in processed profiles (Gecko has none) */
	if (probe_has(in, PROBE_BYTES, "\"funcTable\""))
		return 50;
	return 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct fxp *x = pv_calloc(1, sizeof(*x));
	if (!x)
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
	x->b = b;
	x->in = in;
	x->err = err;
	x->default_cat = PV_NONE;
	x->sources_n = -1;
	x->wmetric[W_SAMPLES] = x->wmetric[W_TRACING_MS] = x->wmetric[W_BYTES] = PV_NONE;
	x->cpu_metric = PV_NONE;
	fxp_tables_init(&x->shared);
	json_init(&x->j, in, err);
	int rc = read_top(x);
	if (!rc)
		rc = fxp_build(x);
	if (!rc && b->status)
		rc = b->status;
	json_release(&x->j);
	for (uint32_t i = 0; i < x->nr_threads; i++)
		fxp_thread_free(&x->threads[i]);
	pv_free(x->threads);
	fxp_tables_free(&x->shared);
	fxp_ucol_free(&x->src_file);
	pv_free(x->src_map);
	pv_free(x->lib_name);
	pv_free(x->lib_path);
	pv_free(x->lib_module);
	pv_free(x->cat_map);
	pv_free(x->strfields);
	sbuf_release(&x->cap);
	pv_free(x);
	return rc;
}

const struct importer importer_firefox_processed = {
    .name = "firefox-processed",
    .description = "Firefox Profiler processed profile (profiler.firefox.com, samply), v24-70",
    .probe = probe,
    .import = import,
};

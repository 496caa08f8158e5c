/*
 * firefox.c - the Firefox Profiler's processed format, version 70 (the version
 * profiler.firefox.com writes; upstream src/types/profile.ts), what the Firefox Profiler opens
 * (doc/export.md).
 *
 * The model is the processed format's own shape, so tables go over one for one: the string
 * table is the stringArray (same indices), modules are resources (and libs for native code),
 * functions the funcTable, frames the frameTable (line, column, address, inline depth,
 * category), stacks the stackTable (prefixOffset: how many rows back the prefix is), each
 * thread its samples (stack, time in ms, weight) and markers (name, times, phase, category,
 * payload, the cause stack put back into the payload as {"cause": {"time", "stack"}}), the
 * marker schemas meta.markerSchema. Samples weigh in one metric: a count as "samples", time
 * as "tracing-ms", bytes as "bytes".
 *
 * The importers resolve payload fields whose schema format is a string-table index
 * (unique-string, flow-id, terminating-flow-id) to their string; here each such string goes
 * back to the end of the stringArray and the field holds its index again, as the format says.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/vec.h"
#include "export/internal.h"
#include "marker/internal.h"
#include "pv/format.h"

static void ms_or_null(FILE *out, int64_t ns)
{
	if (ns == PV_TIME_NONE)
		fputs("null", out);
	else
		pv_json_fput_ms(out, ns);
}

static void ix_or_null(FILE *out, uint32_t ix)
{
	if (ix == PV_NONE)
		fputs("null", out);
	else
		fprintf(out, "%u", ix);
}

/* "key":[f(0),f(1),...] for rows 0..n */
#define COLUMN(out, key, n, ...)                        \
	do {                                            \
		fputs("\"" key "\":[", out);            \
		for (uint32_t i_ = 0; i_ < (n); i_++) { \
			if (i_)                         \
				fputc(',', out);        \
			uint32_t i = i_;                \
			(void)i;                        \
			__VA_ARGS__;                    \
		}                                       \
		fputs("],", out);                       \
	} while (0)

/* ---- payload fields that hold a string-table index ---- */

/* The schemas' fields of a string-table index format: (schema name, key) pairs of nodes of d. */
struct strix {
	struct jdoc schemas, payload;
	struct vec pairs; /* uint32_t[2]: the schema's name node, the field's key node */
	struct vec extra; /* const char *: strings after the model's, in order */
	char **rewritten; /* per marker row: the payload with indices, NULL when unchanged */
	struct sbuf buf;
};

static int strix_schemas(struct strix *x, const struct pv_profile *p, struct pv_error *err)
{
	const char *text = p->meta.marker_schema ? pv_str(p, p->meta.marker_schema) : NULL;
	struct pv_error ignored = {0};
	if (!text || jdoc_parse(&x->schemas, text, strlen(text), &ignored))
		return 0; /* no schema, or one not JSON (kept as read): no field to rewrite */
	const struct jdoc *d = &x->schemas;
	for (uint32_t o = d->nr ? d->n[0].first : JN_NONE; o != JN_NONE; o = d->n[o].next) {
		uint32_t name = jn_get(d, o, "name"), fields = jn_get(d, o, "fields");
		if (fields == JN_NONE)
			fields = jn_get(d, o, "data"); /* older Gecko schemas */
		if (name == JN_NONE || d->n[name].kind != JSON_STRING || fields == JN_NONE)
			continue;
		for (uint32_t f = d->n[fields].first; f != JN_NONE; f = d->n[f].next) {
			uint32_t key = jn_get(d, f, "key"), fmt = jn_get(d, f, "format");
			size_t n;
			const char *fs = fmt != JN_NONE && d->n[fmt].kind == JSON_STRING
					     ? jn_str(d, fmt, &n)
					     : NULL;
			if (key == JN_NONE || d->n[key].kind != JSON_STRING || !fs ||
			    mfmt_kind_of(fs, n) != F_UNIQUE_STRING)
				continue;
			uint32_t *e = vec_push(&x->pairs, 2 * sizeof(*e));
			if (!e)
				return pv_error_set(err, PV_ENOMEM, "out of memory");
			e[0] = name;
			e[1] = key;
		}
	}
	return 0;
}

/* Is key a string-index field of the schema named type? */
static bool strix_field(const struct strix *x, const char *type, size_t tn, const char *key,
			size_t kn)
{
	const uint32_t *e = x->pairs.p;
	for (size_t i = 0; i < x->pairs.len; i++) {
		size_t a, b;
		const char *s = jn_str(&x->schemas, e[2 * i], &a);
		const char *k = jn_str(&x->schemas, e[2 * i + 1], &b);
		if (a == tn && b == kn && !memcmp(s, type, a) && !memcmp(k, key, b))
			return true;
	}
	return false;
}

/*
 * Marker k's payload with its string-index fields as indices (strings appended to x->extra,
 * numbered from p->strings.len on) into x->rewritten[k]; left NULL when nothing changes.
 */
static int strix_payload(struct strix *x, const struct pv_profile *p, uint32_t k,
			 struct pv_error *err)
{
	const char *pl = p->markers.payload[k] ? pv_str(p, p->markers.payload[k]) : NULL;
	struct pv_error ignored = {0};
	if (!pl || pl[0] != '{')
		return 0;
	if (jdoc_parse(&x->payload, pl, strlen(pl), &ignored)) /* not JSON: written as it is */
		return ignored.code == PV_ENOMEM ? pv_error_set(err, PV_ENOMEM, "out of memory")
						 : 0;
	const struct jdoc *d = &x->payload;
	uint32_t type = jn_get(d, 0, "type");
	size_t tn;
	const char *ts =
	    type != JN_NONE && d->n[type].kind == JSON_STRING ? jn_str(d, type, &tn) : NULL;
	if (!ts)
		return 0;
	bool changed = false;
	sbuf_reset(&x->buf);
	sbuf_puts(&x->buf, "{");
	for (uint32_t m = d->n[0].first; m != JN_NONE; m = d->n[m].next) {
		size_t kn, vn;
		const char *key = jn_key(d, m, &kn);
		if (m != d->n[0].first)
			sbuf_puts(&x->buf, ",");
		sbuf_json_string(&x->buf, key, kn);
		sbuf_puts(&x->buf, ":");
		if (d->n[m].kind == JSON_STRING && strix_field(x, ts, tn, key, kn)) {
			const char *v = jn_str(d, m, &vn);
			const char **e = vec_push(&x->extra, sizeof(*e));
			char *copy = pv_malloc(vn + 1);
			if (!e || !copy) {
				pv_free(copy);
				return pv_error_set(err, PV_ENOMEM, "out of memory");
			}
			memcpy(copy, v, vn);
			copy[vn] = 0;
			*e = copy;
			sbuf_addf(&x->buf, "%zu", (size_t)p->strings.len + x->extra.len - 1);
			changed = true;
		} else {
			sbuf_put(&x->buf, d->src + d->n[m].off, d->n[m].end - d->n[m].off);
		}
	}
	sbuf_puts(&x->buf, "}");
	if (x->buf.oom)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	if (!changed)
		return 0;
	size_t len;
	x->rewritten[k] = sbuf_detach(&x->buf, &len);
	return x->rewritten[k] ? 0 : pv_error_set(err, PV_ENOMEM, "out of memory");
}

static void strix_release(struct strix *x, uint32_t nmarkers)
{
	jdoc_release(&x->schemas);
	jdoc_release(&x->payload);
	vec_free(&x->pairs);
	for (size_t i = 0; i < x->extra.len; i++)
		pv_free((void *)((const char **)x->extra.p)[i]);
	vec_free(&x->extra);
	for (uint32_t k = 0; x->rewritten && k < nmarkers; k++)
		pv_free(x->rewritten[k]);
	pv_free(x->rewritten);
	sbuf_release(&x->buf);
}

static bool native(const struct pv_profile *p, pv_module_ix m)
{
	uint8_t k = p->modules.kind[m];
	return k != PV_MODULE_JIT && k != PV_MODULE_RESOURCE;
}

static void write_meta(FILE *out, const struct pv_profile *p)
{
	fputs("{\"meta\":{\"interval\":", out);
	pv_json_fput_ms(out, p->meta.interval_ns ? p->meta.interval_ns : 1000000);
	fputs(",\"startTime\":", out);
	pv_json_fput_ms(out, p->meta.start_unix_ns);
	fputs(",\"processType\":0,\"product\":", out);
	pv_json_fput_string(out, p->meta.product ? pv_str(p, p->meta.product) : "profview");
	fputs(",\"stackwalk\":0,\"debug\":false,\"version\":27,\"preprocessedProfileVersion\":70,"
	      "\"symbolicated\":true,\"importedFrom\":\"profview\",\"abi\":\"\",\"oscpu\":\"\","
	      "\"platform\":\"\",\"misc\":\"\",\"toolkit\":\"\",\"appBuildID\":\"\","
	      "\"sourceURL\":\"\",\"physicalCPUs\":0,\"logicalCPUs\":0,\"CPUName\":\"\","
	      "\"extensions\":{\"id\":[],\"name\":[],\"baseURL\":[],\"length\":0},\n"
	      "\"categories\":[",
	      out);
	if (!p->categories.len)
		fputs("{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]}", out);
	for (pv_cat_ix c = 0; c < p->categories.len; c++) {
		fputs(c ? ",{\"name\":" : "{\"name\":", out);
		pv_json_fput_string(out, pv_str(p, p->categories.name[c]));
		fputs(",\"color\":", out);
		pv_json_fput_string(out, p->categories.color[c] ? pv_str(p, p->categories.color[c])
								: "grey");
		fputs(",\"subcategories\":[", out);
		uint32_t n = p->categories.sub_len[c];
		for (uint32_t k = 0; k < n; k++) {
			if (k)
				fputc(',', out);
			pv_json_fput_string(
			    out, pv_str(p, p->subcategories.name[p->categories.sub_first[c] + k]));
		}
		fputs(n ? "]}" : "\"Other\"]}", out);
	}
	fputs("],\n\"markerSchema\":", out);
	fputs(p->meta.marker_schema ? pv_str(p, p->meta.marker_schema) : "[]", out);
	fputs("},\n", out);
}

static void write_libs(FILE *out, const struct pv_profile *p, uint32_t *lib_of)
{
	fputs("\"libs\":[", out);
	uint32_t n = 0;
	for (pv_module_ix m = 0; m < p->modules.len; m++) {
		lib_of[m] = PV_NONE;
		if (!native(p, m))
			continue;
		const char *name = pv_str(p, p->modules.name[m]);
		const char *path = p->modules.path[m] ? pv_str(p, p->modules.path[m]) : name;
		fputs(n ? ",\n{\"arch\":\"\",\"name\":" : "\n{\"arch\":\"\",\"name\":", out);
		pv_json_fput_string(out, name);
		fputs(",\"path\":", out);
		pv_json_fput_string(out, path);
		fputs(",\"debugName\":", out);
		pv_json_fput_string(out, name);
		fputs(",\"debugPath\":", out);
		pv_json_fput_string(out, path);
		fputs(",\"breakpadId\":\"\",\"codeId\":null}", out);
		lib_of[m] = n++;
	}
	fputs("],\"pages\":[],\n", out);
}

static void write_shared(FILE *out, const struct pv_profile *p, const uint32_t *lib_of,
			 const struct strix *x)
{
	const struct pv_stacks *S = &p->stacks;
	const struct pv_frames *F = &p->frames;
	const struct pv_funcs *U = &p->funcs;
	const struct pv_modules *M = &p->modules;
	fputs("\"shared\":{\n\"stackTable\":{", out);
	COLUMN(out, "frame", S->len, fprintf(out, "%u", S->frame[i]));
	COLUMN(out, "prefixOffset", S->len,
	       fprintf(out, "%u", S->prefix[i] == PV_NONE ? 0 : i - S->prefix[i]));
	fprintf(out, "\"length\":%u},\n\"frameTable\":{", S->len);
	COLUMN(out, "address", F->len,
	       fprintf(out, "%" PRId64,
		       pv_frame_addr(p, i) == PV_ADDR_NONE ? (int64_t)-1
							   : (int64_t)pv_frame_addr(p, i)));
	COLUMN(out, "inlineDepth", F->len, fprintf(out, "%u", pv_frame_inline_depth(p, i)));
	COLUMN(out, "category", F->len, ix_or_null(out, pv_frame_category(p, i)));
	COLUMN(out, "subcategory", F->len,
	       if (pv_frame_category(p, i) == PV_NONE) fputs("null", out);
	       else fprintf(out, "%u", pv_frame_subcategory(p, i)));
	COLUMN(out, "func", F->len, fprintf(out, "%u", F->func[i]));
	/* -1: no library (as the front-end writes it, not null) */
	COLUMN(out, "lib", F->len, pv_module_ix m = pv_func_module(p, F->func[i]);
	       uint32_t l = m == PV_NONE ? PV_NONE : lib_of[m];
	       l == PV_NONE ? fputs("-1", out) : fprintf(out, "%u", l));
	COLUMN(out, "nativeSymbol", F->len, fputs("null", out));
	COLUMN(out, "innerWindowID", F->len, fputc('0', out));
	COLUMN(out, "line", F->len,
	       pv_frame_line(p, i) ? fprintf(out, "%u", pv_frame_line(p, i)) : fputs("null", out));
	COLUMN(out, "column", F->len,
	       pv_frame_column(p, i) ? fprintf(out, "%u", pv_frame_column(p, i))
				     : fputs("null", out));
	COLUMN(out, "originalLocation", F->len, fputs("null", out));
	fprintf(out, "\"length\":%u},\n\"funcTable\":{", F->len);
	COLUMN(out, "isJS", U->len, pv_module_ix m = pv_func_module(p, i);
	       fputs(m != PV_NONE && !native(p, m) ? "true" : "false", out));
	COLUMN(out, "relevantForJS", U->len, fputs("false", out));
	COLUMN(out, "name", U->len, fprintf(out, "%u", U->name[i]));
	COLUMN(
	    out, "resource", U->len,
	    fprintf(out, "%" PRId64,
		    pv_func_module(p, i) == PV_NONE ? (int64_t)-1 : (int64_t)pv_func_module(p, i)));
	COLUMN(out, "source", U->len, ix_or_null(out, pv_func_source(p, i)));
	COLUMN(out, "lineNumber", U->len,
	       pv_func_line(p, i) ? fprintf(out, "%u", pv_func_line(p, i)) : fputs("null", out));
	COLUMN(out, "columnNumber", U->len,
	       pv_func_column(p, i) ? fprintf(out, "%u", pv_func_column(p, i))
				    : fputs("null", out));
	COLUMN(out, "originalLocation", U->len, fputs("null", out));
	fprintf(out, "\"length\":%u},\n\"resourceTable\":{", U->len);
	/* a resource per module: a library (type 1) for native code, else a URL (type 5) */
	COLUMN(out, "name", M->len, fprintf(out, "%u", M->name[i]));
	COLUMN(out, "host", M->len, fputs("null", out));
	COLUMN(out, "type", M->len, fputs(native(p, i) ? "1" : "5", out));
	fprintf(out, "\"length\":%u},\n", M->len);
	fputs("\"nativeSymbols\":{\"libIndex\":[],\"address\":[],\"name\":[],\"functionSize\":[],"
	      "\"length\":0},\n\"sources\":{",
	      out);
	const struct pv_sources *R = &p->sources;
	COLUMN(out, "id", R->len, fputs("null", out));
	COLUMN(out, "filename", R->len, fprintf(out, "%u", R->path[i]));
	/* where the file starts: line and column 1 (1-based) for a whole file */
	COLUMN(out, "startLine", R->len, fputc('1', out));
	COLUMN(out, "startColumn", R->len, fputc('1', out));
	COLUMN(out, "sourceMapURL", R->len, fputs("null", out));
	COLUMN(out, "content", R->len, fputs("null", out));
	/* originalLocation (frames, funcs) is null everywhere: an empty table */
	fprintf(out,
		"\"length\":%u},\n\"sourceLocationTable\":{\"source\":[],\"line\":[],"
		"\"column\":[],\"length\":0},\n\"stringArray\":[",
		R->len);
	for (uint32_t s = 0; s < p->strings.len; s++) {
		if (s)
			fputc(',', out);
		pv_json_fput_string(out, p->strings.ptr[s]);
	}
	for (uint32_t s = 0; s < x->extra.len; s++) {
		fputc(p->strings.len + s ? ',' : ' ', out);
		pv_json_fput_string(out, VEC(x->extra, const char *)[s]);
	}
	fputs("]},\n", out);
}

/* A weight in the unit of weightType: an integer, or exact milliseconds for tracing-ms. */
static void weight(FILE *out, int64_t w, bool ms)
{
	if (ms)
		pv_json_fput_ms(out, w);
	else
		fprintf(out, "%" PRId64, w);
}

static void write_thread(FILE *out, const struct pv_profile *p, pv_thread_ix t, pv_metric_ix m,
			 const uint32_t *markers, uint32_t nmarkers, char *const *rewritten,
			 uint64_t *untimed, uint64_t *causes_lost)
{
	const struct pv_threads *T = &p->threads;
	uint32_t b = T->sample_begin[t], n = T->sample_end[t] - b;
	enum pv_unit u = (enum pv_unit)p->metrics.unit[m];
	bool ms = u == PV_UNIT_NS;
	const char *wt = ms ? "tracing-ms" : u == PV_UNIT_BYTES ? "bytes" : "samples";
	const char *ptype = pv_str(p, T->process_type[t]);
	const char *name = pv_str(p, T->name[t]);
	fputs("{\"processType\":", out);
	pv_json_fput_string(out, *ptype ? ptype : "default");
	fputs(",\"processStartupTime\":0,\"processShutdownTime\":null,\"registerTime\":", out);
	pv_json_fput_ms(out, T->start_ns[t] == PV_TIME_NONE ? 0 : T->start_ns[t]);
	fputs(",\"unregisterTime\":", out);
	ms_or_null(out, T->end_ns[t]);
	fputs(",\"pausedRanges\":[],\"name\":", out);
	pv_json_fput_string(out, *name ? name : "thread");
	fprintf(out, ",\"isMainThread\":%s,\"processName\":", t == 0 ? "true" : "false");
	pv_json_fput_string(out, pv_str(p, T->process_name[t]));
	fputs(",\"pid\":\"", out);
	if (T->pid[t] != PV_ID_NONE)
		fprintf(out, "%" PRId64, T->pid[t]);
	else
		fprintf(out, "%u", t);
	fputs("\",\"tid\":", out);
	fprintf(out, "%" PRId64, T->tid[t] != PV_ID_NONE ? T->tid[t] : (int64_t)t);
	fprintf(out, ",\n\"samples\":{\"weightType\":\"%s\",", wt);
	if (!p->samples.weight[m] && !ms) {
		fputs("\"weight\":null,", out);
	} else {
		COLUMN(out, "weight", n, weight(out, pv_sample_weight(p, m, b + i), ms));
	}
	if (p->samples.event_delay_ns)
		COLUMN(out, "eventDelay", n, ms_or_null(out, p->samples.event_delay_ns[b + i]));
	COLUMN(out, "stack", n, ix_or_null(out, p->samples.stack[b + i]));
	/* a sample without a time: one interval after the one before */
	int64_t step = p->meta.interval_ns ? p->meta.interval_ns : 1000000, last = 0;
	COLUMN(
	    out, "time", n, int64_t x = pv_sample_time(p, b + i); if (x == PV_TIME_NONE) {
		    x = i ? last + step : 0;
		    (*untimed)++;
	    } last = x;
	    pv_json_fput_ms(out, x));
	fprintf(out, "\"length\":%u},\n\"markers\":{", n);
	const struct pv_raw_markers *R = &p->markers;
	COLUMN(
	    out, "data", nmarkers, uint32_t k = markers[i];
	    const char *pl = rewritten[k]    ? rewritten[k]
			     : R->payload[k] ? pv_str(p, R->payload[k])
					     : NULL;
	    bool cause = R->cause_stack[k] != PV_NONE; if (cause && pl && pl[0] == '{') {
		    fprintf(out, "{\"cause\":{\"stack\":%u,\"time\":", R->cause_stack[k]);
		    ms_or_null(out, R->cause_time_ns[k]);
		    fputs(pl[1] == '}' ? "}" : "},", out);
		    fputs(pl + 1, out);
	    } else {
		    *causes_lost += cause;
		    fputs(pl ? pl : "null", out);
	    });
	COLUMN(out, "name", nmarkers, fprintf(out, "%u", R->name[markers[i]]));
	COLUMN(out, "startTime", nmarkers, ms_or_null(out, R->start_ns[markers[i]]));
	COLUMN(out, "endTime", nmarkers, ms_or_null(out, R->end_ns[markers[i]]));
	COLUMN(out, "phase", nmarkers, fprintf(out, "%u", R->phase[markers[i]]));
	COLUMN(
	    out, "category", nmarkers,
	    fprintf(out, "%u", R->category[markers[i]] == PV_NONE ? 0 : R->category[markers[i]]));
	fprintf(out, "\"length\":%u}}", nmarkers);
}

int pv__export_firefox(FILE *out, const struct pv_profile *p, const struct pv_export_opts *o,
		       struct pv_lossy *lossy, struct pv_error *err)
{
	pv_metric_ix m = pv__export_metric(p, o);
	enum pv_unit u = (enum pv_unit)p->metrics.unit[m];
	pv__export_lossy_common(p, m, true, true, false, "firefox", lossy);
	if (u != PV_UNIT_NS && u != PV_UNIT_BYTES && u != PV_UNIT_COUNT)
		pv_lossy_add(lossy, 1, "the unit of '%s' (%s): written as sample counts",
			     pv_str(p, p->metrics.name[m]), pv_unit_name(u));
	uint32_t *lib_of = pv_calloc(p->modules.len ? p->modules.len : 1, sizeof(*lib_of));
	uint32_t *idx = pv_calloc(p->markers.len ? p->markers.len : 1, sizeof(*idx));
	if (!lib_of || !idx) {
		pv_free(lib_of);
		pv_free(idx);
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	}
	struct strix x = {0};
	x.rewritten = pv_calloc(p->markers.len ? p->markers.len : 1, sizeof(*x.rewritten));
	int rc =
	    x.rewritten ? strix_schemas(&x, p, err) : pv_error_set(err, PV_ENOMEM, "out of memory");
	for (uint32_t k = 0; !rc && x.pairs.len && k < p->markers.len; k++)
		rc = strix_payload(&x, p, k, err);
	if (rc) {
		strix_release(&x, p->markers.len);
		pv_free(lib_of);
		pv_free(idx);
		return rc;
	}
	write_meta(out, p);
	write_libs(out, p, lib_of);
	write_shared(out, p, lib_of, &x);
	fputs("\"threads\":[", out);
	uint64_t untimed = 0, causes_lost = 0;
	for (pv_thread_ix t = 0; t < p->threads.len; t++) {
		uint32_t n = 0;
		for (uint32_t k = 0; k < p->markers.len; k++)
			if (p->markers.thread[k] == t)
				idx[n++] = k;
		fputs(t ? ",\n" : "\n", out);
		write_thread(out, p, t, m, idx, n, x.rewritten, &untimed, &causes_lost);
	}
	fputs("]}\n", out);
	strix_release(&x, p->markers.len);
	pv_free(lib_of);
	pv_free(idx);
	pv_lossy_add(lossy, untimed,
		     "samples without a time (given one interval after the one before)");
	pv_lossy_add(lossy, causes_lost, "marker cause stacks of markers without a payload object");
	return pv__export_check(out, err);
}

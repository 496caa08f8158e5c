/*
 * pprof_legacy.c - the legacy profile formats that pprof (profile.Parse) still reads, besides
 * profile.proto:
 *   - the gperftools / old Go binary CPU profile: native-endian 32- or 64-bit words, header
 *     0 3 0 PERIOD_US 0, records COUNT DEPTH PC..., trailer 0 1 0, then /proc/self/maps text;
 *   - the Java binary CPU profile: the same words with header 0 3 1 PERIOD_US 0, then a text
 *     symbol section ("0xADDR function (File.java:LINE)");
 *   - text heap profiles: "heap profile: N: B [N: B] @ heapz_v2/RATE" (also heap_v2, heap,
 *     heapprofile), "@ growthz", "@ fragmentationz", lines "N: B [N: B] @ ADDR...";
 *   - Java heap ("--- heapz 1 ---", "format = java") and Java contention
 *     ("--- contentionz 1 ---", "format = java"), each with a symbol section;
 *   - contention profiles ("--- contention..." header, "cycles/second", "sampling period",
 *     lines "DELAY COUNT @ ADDR...");
 *   - thread profiles ("--- threadz N ---", "--- Thread ID (name: NAME/TID) stack: ---") and
 *     Go count profiles ("threadcreate profile: total N", "goroutine profile: ...", "N @ ADDR...").
 *
 * The rules are pprof's (profile/legacy_profile.go, legacy_java_profile.go), so the samples
 * and values are those of pprof's debug dump of the parsed profile:
 *   - sample types, period and period type as pprof sets them; the default metric is the last
 *     sample type (pprof's rule without default_sample_type);
 *   - return addresses of callers are moved back by 1 onto the call (not in Java profiles);
 *   - heapz v2 samples are unsampled (x 1/(1-exp(-avg/rate))), Java heap samples at 512 KiB,
 *     contention delays scaled from cycles to ns, counts and delays by the sampling period;
 *   - CPU profiles lose the signal handler's frame when most samples share the second frame,
 *     and a leaf duplicated as its caller + 1;
 *   - the memory map is merged and fixed as pprof's massageMappings/remapMappingIDs do: adjacent
 *     pieces of one file merged, the main binary first, the 0x400000 start, pieces split at an
 *     offset; "$attr" substitutions of "attr=value" lines.
 * Mappings with a file become modules (module-relative frame addresses, as the pprof importer
 * does); an unsymbolized location is the function "0xADDR" of its module, leaf-first stacks
 * become root-first. Heap samples keep pprof's numeric label "bytes" (the block size). One
 * thread, "all samples". Everything else the file says goes to the import report.
 *
 * Malformed input is one positioned error (byte offset for the binary part, line and column for
 * text), never a partial profile.
 *
 * This file holds the binary CPU profiles, the probe and the model; pprof_legacy_text.c reads
 * the text profiles; pprof_legacy_common.c has what both use: the text helpers and the memory
 * maps (pprof_legacy.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/text.h"
#include "base/vec.h"
#include "import/importer.h"
#include "import/pprof/pprof_legacy.h"

/* ---------------------------------------------------------------- binary CPU profiles */

__attribute__((format(printf, 3, 4))) static int byte_error(struct lp *t, size_t off,
							    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = input_vfail_byte(t->in, t->err, PV_EPARSE, off, fmt, ap);
	va_end(ap);
	return rc;
}

static uint64_t word(const uint8_t *d, unsigned enc)
{
	uint64_t v = 0;
	switch (enc) {
	case 0: /* 32-bit little-endian */
		return (uint64_t)d[0] | (uint64_t)d[1] << 8 | (uint64_t)d[2] << 16 |
		       (uint64_t)d[3] << 24;
	case 1:
		return (uint64_t)d[3] | (uint64_t)d[2] << 8 | (uint64_t)d[1] << 16 |
		       (uint64_t)d[0] << 24;
	case 2:
		for (int i = 7; i >= 0; i--)
			v = v << 8 | d[i];
		return v;
	default:
		for (int i = 0; i < 8; i++)
			v = v << 8 | d[i];
		return v;
	}
}

/* The CPU header's encoding (0..3: 32 LE, 32 BE, 64 LE, 64 BE), its period and Java flag. */
static int cpu_header(const uint8_t *d, size_t n, unsigned *enc, uint64_t *period, int *java)
{
	for (unsigned k = 0; k < 4; k++) {
		size_t lp_ws = k < 2 ? 4 : 8;
		if (n < 5 * lp_ws)
			continue;
		uint64_t w[5];
		for (int i = 0; i < 5; i++)
			w[i] = word(d + (size_t)i * lp_ws, k);
		if (w[0] == 0 && w[1] == 3 && (w[2] == 0 || w[2] == 1) && w[3] > 0 && w[4] == 0) {
			*enc = k;
			*period = w[3];
			*java = w[2] == 1;
			return 1;
		}
	}
	return 0;
}

/* parse_cpu's cursor over the binary profile's words. */
struct cpu_words {
	const uint8_t *d;
	size_t n, off; /* the data's length, the next word's offset */
	unsigned enc;  /* cpu_header's encoding */
	size_t ws;     /* the word's size: 4 or 8 */
	int java;      /* addresses are not moved back onto their calls */
};

/*
 * The sample records "count depth pc..." up to the trailer (count 0, depth 1, pc 0) or the
 * end of the data; w->off ends after them.
 */
static int cpu_records(struct lp *t, struct cpu_words *w)
{
	const uint8_t *d = w->d;
	size_t n = w->n, ws = w->ws;
	while (w->off < n) {
		size_t rec = w->off;
		if (n - w->off < 2 * ws)
			return byte_error(t, rec,
					  "truncated record (%zu bytes left, a record needs %zu)",
					  n - w->off, 2 * ws);
		uint64_t count = word(d + w->off, w->enc), depth = word(d + w->off + ws, w->enc);
		w->off += 2 * ws;
		if (depth > (n - w->off) / ws)
			return byte_error(
			    t, rec,
			    "stack depth %llu runs past the end of the data (%zu bytes left)",
			    (unsigned long long)depth, n - w->off);
		if (count == 0 && depth == 1 && word(d + w->off, w->enc) == 0) {
			w->off += ws;
			return 0;
		}
		if (count > (uint64_t)INT64_MAX ||
		    (t->period && (int64_t)count > INT64_MAX / t->period))
			return byte_error(t, rec, "sample count %llu is too large",
					  (unsigned long long)count);
		struct lsample *s = lp_new_sample(t);
		if (!s)
			return lp_oom(t);
		s->v[0] = (int64_t)count;
		s->v[1] = (int64_t)count * t->period;
		for (uint64_t i = 0; i < depth; i++) {
			uint64_t a = word(d + w->off, w->enc);
			w->off += ws;
			if (!w->java && i > 0)
				a--;
			if (lp_push_addr(t, a))
				return lp_oom(t);
		}
		s = &VEC(t->samples, struct lsample)[t->samples.len - 1];
		s->n = t->stk.len - s->first;
	}
	t->no_trailer++;
	return 0;
}

/* The signal handler's frame: the second frame of (nearly) every sample, dropped twice at most. */
static void drop_signal_frames(struct lp *t)
{
	struct lsample *S = VEC(t->samples, struct lsample);
	uint32_t *stk = VEC(t->stk, uint32_t);
	struct lloc *L = VEC(t->locs, struct lloc);
	uint32_t ns = t->samples.len, margin = ns / 32;
	for (int iter = 0; iter < 2 && ns; iter++) {
		/* a majority vote (Boyer-Moore) finds the only address that can reach ns - margin
		 */
		uint32_t cand = UINT32_MAX, votes = 0, have = 0;
		for (uint32_t i = 0; i < ns; i++) {
			if (S[i].n < 2)
				continue;
			uint32_t r = stk[S[i].first + 1];
			if (votes == 0) {
				cand = r;
				votes = 1;
			} else if (cand == r) {
				votes++;
			} else {
				votes--;
			}
		}
		if (cand == UINT32_MAX)
			return;
		for (uint32_t i = 0; i < ns; i++)
			have += S[i].n >= 2 && L[stk[S[i].first + 1]].addr == L[cand].addr;
		if (have < ns - margin)
			return;
		for (uint32_t i = 0; i < ns; i++) {
			if (S[i].n < 2 || stk[S[i].first + 1] != cand)
				continue;
			memmove(stk + S[i].first + 1, stk + S[i].first + 2,
				(size_t)(S[i].n - 2) * sizeof(*stk));
			S[i].n--;
			t->sig_frames++;
		}
	}
}

static int parse_cpu(struct lp *t)
{
	struct cpu_words w = {.d = (const uint8_t *)t->in->data, .n = t->in->len};
	uint64_t period_us;
	cpu_header(w.d, w.n, &w.enc, &period_us, &w.java);
	w.ws = w.enc < 2 ? 4 : 8;
	t->fam = w.java ? FAM_JAVA_CPU : FAM_CPU;
	t->version = w.java ? (w.ws == 4 ? "java-cpu-32" : "java-cpu-64")
			    : (w.ws == 4 ? "cpu-32" : "cpu-64");
	if (period_us > (uint64_t)INT64_MAX / 1000)
		return byte_error(t, 3 * w.ws, "sampling period %llu us is too large",
				  (unsigned long long)period_us);
	t->period = (int64_t)period_us * 1000;
	t->period_type = "cpu";
	t->period_unit = "nanoseconds";
	t->nvals = 2;
	t->type[0] = "samples";
	t->unit[0] = "count";
	t->type[1] = "cpu";
	t->unit[1] = "nanoseconds";
	w.off = 5 * w.ws;
	int rc = cpu_records(t, &w);
	if (rc)
		return rc;
	const char *rest = t->in->data + w.off, *end = t->in->data + w.n;
	if (w.java)
		return lp_parse_java_symbols(t, rest, end);
	drop_signal_frames(t);
	lp_drop_dup_leaves(t);
	return lp_parse_maps(t, rest, end);
}

/* ---------------------------------------------------------------- probe */

/* The first line that is not blank or a '#' comment (within the first 64 KiB). */
static int first_line(const struct pv_input *in, const char **s, const char **e)
{
	const char *p = in->data, *end = in->data + (in->len < 65536 ? in->len : 65536);
	return lp_first_text_line(&p, end, s, e);
}

/* The count profile header "(\w+) profile: total \d+". */
static int count_header(const char *s, const char *e)
{
	lp_trim(&s, &e);
	const char *w = s;
	while (w < e && (unsigned char)*w > ' ' && *w != 0x7f)
		w++;
	if (w == s || !text_starts(w, e, " profile: total "))
		return 0;
	w += 16;
	return w < e && lp_digit_run(w, e) == e;
}

static enum family detect(const struct pv_input *in)
{
	unsigned enc;
	uint64_t period;
	int java;
	if (cpu_header((const uint8_t *)in->data, in->len, &enc, &period, &java))
		return java ? FAM_JAVA_CPU : FAM_CPU;
	const char *s, *e;
	if (!first_line(in, &s, &e))
		return FAM_NONE;
	struct lp_heap_header h;
	if (lp_heap_header(s, e, &h) && text_starts(s, e, "heap profile:"))
		return FAM_HEAP;
	if (count_header(s, e))
		return FAM_COUNT;
	if (text_starts(s, e, "--- threadz ") ||
	    (text_starts(s, e, "--- Thread ") && lp_thread_start(s, e)))
		return FAM_THREAD;
	lp_trim(&s, &e);
	if (text_eq(s, e, "--- heapz 1 ---"))
		return FAM_JAVA_HEAP;
	if (text_starts(s, e, "--- contentionz ") || text_starts(s, e, "--- mutex:") ||
	    text_starts(s, e, "--- contention:")) {
		/* Java's has "format = java" among its attributes */
		const char *p = e, *end = in->data + in->len, *a, *b;
		for (int i = 0; i < 16 && lp_next_line(&p, end, &a, &b); i++) {
			lp_trim(&a, &b);
			if (a == b)
				continue;
			const char *q = memchr(a, '=', (size_t)(b - a));
			if (!q || text_starts(a, b, "---"))
				break;
			const char *k1 = q;
			while (k1 > a && lp_is_space(k1[-1]))
				k1--;
			if (text_eq(a, k1, "format") || text_eq(a, k1, "resolution"))
				return text_eq(s, e, "--- contentionz 1 ---") ? FAM_JAVA_CONTENTION
									      : FAM_NONE;
		}
		return FAM_CONTENTION;
	}
	return FAM_NONE;
}

static int probe(const struct pv_input *in)
{
	switch (detect(in)) {
	case FAM_NONE: return 0;
	case FAM_CPU:
	case FAM_JAVA_CPU: return 70; /* five exact header words */
	default: return 60;	      /* a specific first line; above collapsed and perf script */
	}
}

/* ---------------------------------------------------------------- the model */

static enum pv_unit unit_of(const char *u, int64_t *scale)
{
	*scale = 1;
	if (!strcmp(u, "nanoseconds"))
		return PV_UNIT_NS;
	if (!strcmp(u, "microseconds")) {
		*scale = 1000;
		return PV_UNIT_NS;
	}
	if (!strcmp(u, "milliseconds")) {
		*scale = 1000000;
		return PV_UNIT_NS;
	}
	if (!strcmp(u, "seconds")) {
		*scale = 1000000000;
		return PV_UNIT_NS;
	}
	if (!strcmp(u, "bytes"))
		return PV_UNIT_BYTES;
	if (!strcmp(u, "count") || !*u)
		return PV_UNIT_COUNT;
	return PV_UNIT_OTHER;
}

static enum pv_module_kind module_kind(const char *path, int first)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!strncmp(path, "[kernel", 7) || !strcmp(path, "[vdso]") ||
	    !strcmp(path, "[vsyscall]") || !strncmp(base, "vmlinux", 7))
		return PV_MODULE_KERNEL;
	if (strstr(base, ".so"))
		return PV_MODULE_LIBRARY;
	if (first)
		return PV_MODULE_BINARY;
	if (path[0] == '[')
		return PV_MODULE_UNKNOWN;
	return PV_MODULE_LIBRARY;
}

/* The "bytes" label of heap samples: one label row and one set (row + 1) per block size. */
static uint32_t bytes_label(struct lp *t, struct u64map *rows, int64_t bytes)
{
	struct pv_builder *b = t->b;
	struct pv_profile *p = b->p;
	uint32_t r = u64map_get(rows, (uint64_t)bytes);
	if (r != UINT32_MAX)
		return r + 1;
	struct pv_labels *l = &p->labels;
	struct pv_label_sets *ls = &p->label_sets;
	if (ls->len == 0) {
		if (COL_GROW(ls->first, 16) || COL_GROW(ls->count, 16))
			goto fail;
		ls->cap = 16;
		ls->first[0] = ls->count[0] = 0;
		ls->len = 1;
	}
	if (l->len == l->cap) {
		uint32_t nc = grow_cap(l->cap, (uint64_t)l->len + 1);
		if (!nc || COL_GROW(l->key, nc) || COL_GROW(l->str, nc) || COL_GROW(l->num, nc) ||
		    COL_GROW(l->unit, nc))
			goto fail;
		l->cap = nc;
	}
	if (ls->len == ls->cap) {
		uint32_t nc = grow_cap(ls->cap, (uint64_t)ls->len + 1);
		if (!nc || COL_GROW(ls->first, nc) || COL_GROW(ls->count, nc))
			goto fail;
		ls->cap = nc;
	}
	if (ls->nr_items == ls->items_cap) {
		uint32_t nc = grow_cap(ls->items_cap, (uint64_t)ls->nr_items + 1);
		if (!nc || COL_GROW(ls->items, nc))
			goto fail;
		ls->items_cap = nc;
	}
	r = l->len++;
	l->key[r] = builder_cstr(b, "bytes");
	l->str[r] = 0;
	l->num[r] = bytes;
	l->unit[r] = builder_cstr(b, "bytes");
	uint32_t set = ls->len++;
	ls->first[set] = ls->nr_items;
	ls->count[set] = 1;
	ls->items[ls->nr_items++] = r;
	if (u64map_put(rows, (uint64_t)bytes, r))
		goto fail;
	return set;
fail:
	b->status = PV_ENOMEM;
	return 0;
}

static pv_frame_ix loc_frame(struct lp *t, struct lloc *l, const pv_module_ix *mods)
{
	struct pv_builder *b = t->b;
	if (l->frame != PV_NONE)
		return l->frame;
	pv_module_ix mod = PV_NONE;
	uint64_t addr = l->addr;
	if (l->map < t->maps.len) {
		const struct lmap *m = &VEC(t->maps, struct lmap)[l->map];
		mod = mods[l->map];
		if (mod != PV_NONE)
			addr = l->addr - m->start + m->offset;
	}
	pv_func_ix fn;
	struct frame_key k = {.addr = addr, .category = PV_NONE};
	if (l->name) {
		pv_source_ix src = l->file ? builder_source(b, l->file) : PV_NONE;
		fn = builder_func(b, l->name, PV_NONE, src, 0);
		k.line = l->line;
		k.addr = PV_ADDR_NONE;
	} else {
		fn = builder_func(b, builder_strf(b, "0x%llx", (unsigned long long)l->addr), mod,
				  PV_NONE, 0);
	}
	k.func = fn;
	l->frame = builder_frame(b, &k);
	return l->frame;
}

static int is_java(const struct lp *t)
{
	return t->fam == FAM_JAVA_CPU || t->fam == FAM_JAVA_HEAP || t->fam == FAM_JAVA_CONTENTION;
}

/* The locations in the order samples first name them (pprof's location ids), mapped. */
static int number_locations(struct lp *t)
{
	const struct lsample *S = VEC(t->samples, struct lsample);
	const uint32_t *stk = VEC(t->stk, uint32_t);
	struct lloc *L = VEC(t->locs, struct lloc);
	uint32_t *order = pv_malloc(((size_t)t->locs.len + 1) * sizeof(*order));
	if (!order)
		return lp_oom(t);
	uint32_t nr = 0;
	for (uint32_t i = 0; i < t->samples.len; i++)
		for (uint32_t k = 0; k < S[i].n; k++) {
			struct lloc *l = &L[stk[S[i].first + k]];
			if (!l->seen) {
				l->seen = 1;
				order[nr++] = stk[S[i].first + k];
			}
		}
	int rc = lp_assign_mappings(t, order, nr);
	for (uint32_t k = 0; k < nr; k++)
		if (is_java(t) && !L[order[k]].name)
			t->unsym_java++;
	pv_free(order);
	return rc;
}

/* One metric per value type (scale[i]: what makes value i nanoseconds), the meta data. */
static void build_metrics(struct lp *t, int64_t *scale)
{
	struct pv_builder *b = t->b;
	struct pv_profile *p = b->p;
	for (unsigned i = 0; i < t->nvals; i++) {
		enum pv_unit u = unit_of(t->unit[i], &scale[i]);
		if (u == PV_UNIT_OTHER)
			builder_lossy(b, 1, "sample type %s: unit '%s' shown as 'other'",
				      t->type[i], t->unit[i]);
		else if (scale[i] != 1)
			builder_lossy(b, 1, "sample type %s: %s scaled to ns", t->type[i],
				      t->unit[i]);
		builder_metric(b, builder_cstr(b, t->type[i]), u);
	}
	p->meta.default_metric = t->nvals - 1;
	p->meta.format_version = builder_cstr(b, t->version);
	if (t->period > 0) {
		int64_t sc;
		if (unit_of(t->period_unit, &sc) == PV_UNIT_NS && t->period <= INT64_MAX / sc)
			p->meta.interval_ns = t->period * sc;
	}
}

/* The module of each memory map row (PV_NONE for one without a file); NULL when out of memory. */
static pv_module_ix *build_modules(struct lp *t)
{
	struct pv_builder *b = t->b;
	struct pv_profile *p = b->p;
	pv_module_ix *mods = pv_malloc(((size_t)t->maps.len + 1) * sizeof(*mods));
	if (!mods)
		return NULL;
	for (uint32_t i = 0; i < t->maps.len; i++) {
		const struct lmap *m = &VEC(t->maps, struct lmap)[i];
		mods[i] = PV_NONE;
		if (!m->file)
			continue;
		const char *path = pv_str(p, m->file);
		const char *base = strrchr(path, '/');
		base = base && base[1] ? base + 1 : path;
		mods[i] =
		    builder_module(b, builder_cstr(b, base), m->file, module_kind(path, i == 0));
	}
	return mods;
}

/* A sample's weights: its values scaled to ns, saturated (counted in *sat) when too large. */
static void sample_weights(const struct lp *t, const struct lsample *s, const int64_t *scale,
			   int64_t *w, uint64_t *sat)
{
	for (unsigned m = 0; m < t->nvals; m++) {
		int64_t v = s->v[m];
		if (scale[m] != 1) {
			if (v > INT64_MAX / scale[m] || v < INT64_MIN / scale[m]) {
				(*sat)++;
				v = v > 0 ? INT64_MAX : INT64_MIN;
			} else {
				v *= scale[m];
			}
		}
		w[m] = v;
	}
}

/* The samples, on one thread "all samples", with their heap block size label. */
static void build_samples(struct lp *t, const int64_t *scale, const pv_module_ix *mods,
			  uint64_t *sat)
{
	struct pv_builder *b = t->b;
	struct pv_profile *p = b->p;
	const struct lsample *S = VEC(t->samples, struct lsample);
	const uint32_t *stk = VEC(t->stk, uint32_t);
	struct lloc *L = VEC(t->locs, struct lloc);
	struct u64map label_rows = {0};
	pv_thread_ix th =
	    builder_thread(b, builder_cstr(b, "all samples"), PV_ID_NONE, PV_ID_NONE, 0);
	for (uint32_t i = 0; i < t->samples.len && !b->status; i++) {
		const struct lsample *s = &S[i];
		pv_stack_ix st = PV_NONE;
		for (uint32_t k = s->n; k-- > 0;)
			st = builder_stack(b, st, loc_frame(t, &L[stk[s->first + k]], mods));
		int64_t w[MAX_VALUES];
		sample_weights(t, s, scale, w, sat);
		builder_sample(b, th, st, PV_TIME_NONE, w);
		if (s->has_bytes && !b->status) {
			uint32_t set = bytes_label(t, &label_rows, s->bytes);
			if (!p->samples.label_set && !b->status) {
				p->samples.label_set = pv_calloc(p->samples.cap, sizeof(uint32_t));
				if (!p->samples.label_set)
					b->status = PV_ENOMEM;
			}
			if (p->samples.label_set && !b->status)
				p->samples.label_set[p->samples.len - 1] = set;
		}
	}
	u64map_release(&label_rows);
}

/* The import report: what pprof's rules changed and what the model does not keep. */
static void build_report(struct lp *t, uint64_t sat)
{
	struct pv_builder *b = t->b;
	int java = is_java(t);
	builder_lossy(b, 1, "period %lld (period_type %s/%s)", (long long)t->period,
		      *t->period_type ? t->period_type : "-",
		      *t->period_unit ? t->period_unit : "-");
	if (t->duration_ns)
		builder_lossy(b, 1, "duration %lld ns (pprof's duration_nanos)",
			      (long long)t->duration_ns);
	if (t->heap_sampling)
		builder_lossy(b, t->heap_unsampled,
			      "heap samples unsampled as pprof does (sampling rate %lld bytes: "
			      "count and bytes x 1/(1-exp(-average size/rate)))",
			      (long long)t->heap_rate);
	builder_lossy(b, t->sig_frames,
		      "signal handler frames removed from samples (pprof's rule: the second frame "
		      "of nearly every sample)");
	builder_lossy(b, t->dup_leaves, "duplicated leaf frames removed (pprof's rule)");
	builder_lossy(b, t->no_trailer, "no end-of-data record after the samples");
	builder_lossy(b, t->discarded,
		      "samples discarded by the profiler ('discarded samples' attribute)");
	builder_lossy(b, t->threads,
		      "threadz sections: thread ids and names not kept (one sample per thread)");
	builder_lossy(b, t->same_as_prev,
		      "threads with the same stack as the previous thread (counted on its sample)");
	builder_lossy(b, t->skipped_lines, "lines of unrecognized sections skipped");
	builder_lossy(b, t->map_nonexec, "non-executable memory map entries skipped");
	builder_lossy(b, t->map_unknown, "memory map lines not understood (skipped)");
	builder_lossy(b, t->map_attrs_dropped, "memory map $attr definitions past %d (not applied)",
		      MAX_ATTRS);
	builder_lossy(b, t->merged_maps,
		      "memory map entries merged into the adjacent piece of their file");
	builder_lossy(b, t->hugepage, "leading /anon_hugepage mapping dropped (pprof's rule)");
	builder_lossy(b, t->rebased,
		      "main binary mapping moved to start at 0x400000 (pprof's rule)");
	builder_lossy(b, t->split_maps,
		      "mappings extended back by their offset to hold a location (pprof's rule)");
	if (t->maps.len || !java)
		builder_lossy(b, t->fake_locs,
			      t->maps.len ? "locations outside every mapping (no module)"
					  : "no memory map: locations have no module");
	builder_lossy(b, t->unsym_java, "Java locations without a symbol (named by address)");
	builder_lossy(b, t->line_range, "line numbers out of range (read as 0)");
	builder_lossy(b, sat, "values too large for nanoseconds (saturated)");
	if (java)
		builder_lossy(
		    b, 1,
		    "Java locations keep function, file and line (pprof drops their addresses)");
	builder_lossy(b, 1, "pprof's drop_frames for %s profiles not applied",
		      t->fam == FAM_HEAP || t->fam == FAM_JAVA_HEAP ? "heap"
		      : t->fam == FAM_CONTENTION || t->fam == FAM_JAVA_CONTENTION
			  ? "contention"
			  : "CPU and other");
}

static int build(struct lp *t)
{
	int rc = number_locations(t);
	if (rc)
		return rc;
	int64_t scale[MAX_VALUES];
	build_metrics(t, scale);
	pv_module_ix *mods = build_modules(t);
	if (!mods)
		return lp_oom(t);
	uint64_t sat = 0;
	build_samples(t, scale, mods, &sat);
	pv_free(mods);
	if (t->b->status)
		return lp_oom(t);
	build_report(t, sat);
	return t->b->status ? lp_oom(t) : 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct lp t = {.in = in, .b = b, .err = err, .p = in->data, .end = in->data + in->len};
	t.fam = detect(in);
	int rc;
	switch (t.fam) {
	case FAM_CPU:
	case FAM_JAVA_CPU: rc = parse_cpu(&t); break;
	case FAM_HEAP: rc = lp_parse_heap(&t); break;
	case FAM_COUNT: rc = lp_parse_count(&t); break;
	case FAM_THREAD: rc = lp_parse_thread(&t); break;
	case FAM_CONTENTION: rc = lp_parse_contention(&t); break;
	case FAM_JAVA_HEAP: rc = lp_parse_java(&t, 1); break;
	case FAM_JAVA_CONTENTION: rc = lp_parse_java(&t, 0); break;
	default:
		rc = pv_error_set(err, PV_EFORMAT,
				  "%s: not a legacy pprof profile (binary CPU, heap, contention, "
				  "thread or count)",
				  in->name);
		break;
	}
	if (!rc)
		rc = build(&t);
	vec_free(&t.samples);
	vec_free(&t.locs);
	vec_free(&t.stk);
	vec_free(&t.maps);
	u64map_release(&t.addr_map);
	pv_free(t.subst);
	if (!rc && b->status)
		rc = b->status;
	return rc;
}

const struct importer importer_pprof_legacy = {
    .name = "pprof-legacy",
    .description = "pprof's legacy profiles: gperftools/Go binary CPU, Java CPU, heap, growth, "
		   "contention, thread, threadcreate",
    .one_program = true,
    .probe = probe,
    .import = import,
};

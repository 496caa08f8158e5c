/*
 * pprof.c - pprof's profile.proto, gzip-compressed, what `pprof` and Go's tools open
 * (doc/export.md).
 *
 * Encoding is protobuf-c's, from the schema the importer uses (src/import/pprof/profile.proto),
 * every message in one arena freed whole at the end; zlib writes the gzip stream.
 *
 * What becomes what: every metric a sample type (its name; its unit: nanoseconds, bytes,
 * count, cycles, instructions), the default metric the default sample type; every function a
 * Function (name, file, first line); every module a Mapping (the main binary first, as pprof
 * expects; addresses stay module-relative: each mapping starts at 0); a frame with the inlined
 * frames above it one Location whose lines list the innermost first; a sample a Sample with its
 * locations leaf first, its value in every metric and its labels. profile.proto has no threads:
 * with several, each sample gets the labels "thread" (its name) and "tid".
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <protobuf-c/protobuf-c.h>
#include <zlib.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/hash.h"
#include "export/internal.h"
#include "profile.pb-c.h"
#include "pv/info.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__ValueType ValueType;

struct pw {
	const struct pv_profile *p;
	struct pv_arena *a;
	Profile pr;
	uint32_t *str; /* model string -> string table index, PV_NONE when not in it yet */
	uint32_t nstr, capstr;
	struct u64map loc_map;
	uint32_t nloc, caploc;
	uint32_t *mapping_of; /* module -> mapping id */
	int oom;
};

static void *ar(struct pw *w, size_t n)
{
	void *x = arena_alloc(w->a, n ? n : 1);
	if (!x)
		w->oom = 1;
	else
		memset(x, 0, n ? n : 1);
	return x;
}

static int64_t sx_text(struct pw *w, const char *s, size_t n)
{
	if (w->pr.n_string_table == w->capstr) {
		uint32_t nc = w->capstr ? w->capstr * 2 : 256;
		ProtobufCBinaryData *t = pv_realloc(w->pr.string_table, (size_t)nc * sizeof(*t));
		if (!t) {
			w->oom = 1;
			return 0;
		}
		w->pr.string_table = t;
		w->capstr = nc;
	}
	ProtobufCBinaryData *d = &w->pr.string_table[w->pr.n_string_table];
	d->data = (uint8_t *)s;
	d->len = n;
	return (int64_t)w->pr.n_string_table++;
}

/* The string table index of model string s (0 for ""). */
static int64_t sx(struct pw *w, pv_str_ix s)
{
	if (s == 0 || s >= w->p->strings.len)
		return 0;
	if (w->str[s] == PV_NONE)
		w->str[s] = (uint32_t)sx_text(w, w->p->strings.ptr[s], w->p->strings.size[s]);
	return w->str[s];
}

/* A string that is not one of the model's (a unit, a label key). */
static int64_t sx_lit(struct pw *w, const char *s)
{
	for (size_t i = 0; i < w->pr.n_string_table; i++)
		if (w->pr.string_table[i].len == strlen(s) &&
		    memcmp(w->pr.string_table[i].data, s, strlen(s)) == 0)
			return (int64_t)i;
	return sx_text(w, s, strlen(s));
}

static const char *unit_text(enum pv_unit u)
{
	switch (u) {
	case PV_UNIT_NS: return "nanoseconds";
	case PV_UNIT_BYTES: return "bytes";
	case PV_UNIT_CYCLES: return "cycles";
	case PV_UNIT_INSTRUCTIONS: return "instructions";
	default: return "count";
	}
}

/*
 * The location of the frames from stack s up to the first frame that is not inlined (the
 * innermost first): keyed by that frame alone when s's own frame is not inlined, else by s.
 */
static uint64_t location_of(struct pw *w, pv_stack_ix s, pv_stack_ix *next)
{
	const struct pv_profile *p = w->p;
	pv_stack_ix e = s;
	uint32_t nl = 1;
	while (pv_frame_inline_depth(p, p->stacks.frame[e]) && p->stacks.prefix[e] != PV_NONE) {
		e = p->stacks.prefix[e];
		nl++;
	}
	*next = p->stacks.prefix[e];
	uint64_t key = nl == 1 ? (1ull << 32) | p->stacks.frame[s] : s;
	uint32_t id = u64map_get(&w->loc_map, key);
	if (id != UINT32_MAX)
		return id;
	if (w->pr.n_location == w->caploc) {
		uint32_t nc = w->caploc ? w->caploc * 2 : 256;
		Location **t = pv_realloc(w->pr.location, (size_t)nc * sizeof(*t));
		if (!t) {
			w->oom = 1;
			return 0;
		}
		w->pr.location = t;
		w->caploc = nc;
	}
	Location *L = ar(w, sizeof(*L));
	Line **lines = ar(w, nl * sizeof(*lines));
	if (!L || !lines)
		return 0;
	perftools__profiles__location__init(L);
	id = (uint32_t)w->pr.n_location + 1;
	L->id = id;
	L->n_line = nl;
	L->line = lines;
	pv_stack_ix x = s;
	for (uint32_t i = 0; i < nl; i++, x = p->stacks.prefix[x]) {
		pv_frame_ix f = p->stacks.frame[x];
		Line *l = ar(w, sizeof(*l));
		if (!l)
			return 0;
		perftools__profiles__line__init(l);
		l->function_id = (uint64_t)p->frames.func[f] + 1;
		l->line = pv_frame_line(p, f);
		l->column = pv_frame_column(p, f);
		lines[i] = l;
		if (i == nl - 1) { /* the outermost frame places the location */
			pv_module_ix m = pv_func_module(p, p->frames.func[f]);
			L->mapping_id = m == PV_NONE ? 0 : w->mapping_of[m];
			uint64_t a = pv_frame_addr(p, f);
			L->address = a == PV_ADDR_NONE ? 0 : a;
		}
	}
	w->pr.location[w->pr.n_location++] = L;
	if (u64map_put(&w->loc_map, key, id))
		w->oom = 1;
	return id;
}

static int gzip_write(FILE *out, const uint8_t *buf, size_t len)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return PV_ENOMEM;
	uint8_t chunk[65536];
	z.next_in = (uint8_t *)buf;
	int zr = Z_OK;
	size_t left = len;
	do {
		uInt step = left > (1u << 30) ? (1u << 30) : (uInt)left;
		z.next_in = (uint8_t *)buf + (len - left);
		z.avail_in = step;
		left -= step;
		int flush = left ? Z_NO_FLUSH : Z_FINISH;
		do {
			z.next_out = chunk;
			z.avail_out = sizeof(chunk);
			zr = deflate(&z, flush);
			size_t have = sizeof(chunk) - z.avail_out;
			if (have && fwrite(chunk, 1, have, out) != have) {
				deflateEnd(&z);
				return PV_EIO;
			}
		} while (z.avail_out == 0);
	} while (left);
	deflateEnd(&z);
	return zr == Z_STREAM_END ? 0 : PV_EIO;
}

/*
 * Orders functions by what a reader tells them apart by: name, file and first line (the
 * Function), module (the mapping of its locations); a JavaScript function's column is not
 * written.
 */
static int cmp_written(const void *a, const void *b, void *ctx)
{
	const struct pv_profile *p = ctx;
	pv_func_ix x = *(const pv_func_ix *)a, y = *(const pv_func_ix *)b;
	uint32_t k[4][2] = {
	    {p->funcs.name[x], p->funcs.name[y]},
	    {pv_func_module(p, x), pv_func_module(p, y)},
	    {pv_func_source(p, x), pv_func_source(p, y)},
	    {pv_func_line(p, x), pv_func_line(p, y)},
	};
	for (int i = 0; i < 4; i++)
		if (k[i][0] != k[i][1])
			return k[i][0] < k[i][1] ? -1 : 1;
	return 0;
}

/* The sample types, one per metric. */
static void build_types(struct pw *w, const struct pv_profile *p, struct pv_lossy *lossy)
{
	Profile *pr = &w->pr;
	/* sample types */
	pr->n_sample_type = p->metrics.len;
	pr->sample_type = ar(w, p->metrics.len * sizeof(ValueType *));
	for (pv_metric_ix m = 0; !w->oom && m < p->metrics.len; m++) {
		ValueType *vt = ar(w, sizeof(*vt));
		if (!vt)
			break;
		perftools__profiles__value_type__init(vt);
		vt->type = sx(w, p->metrics.name[m]);
		vt->unit = sx_lit(w, unit_text((enum pv_unit)p->metrics.unit[m]));
		pr->sample_type[m] = vt;
		if (p->metrics.unit[m] == PV_UNIT_OTHER)
			pv_lossy_add(lossy, 1, "the unit of metric '%s' (written as count)",
				     pv_str(p, p->metrics.name[m]));
	}
	pr->default_sample_type = sx(w, p->metrics.name[p->meta.default_metric]);
}

static void build_mappings(struct pw *w, const struct pv_profile *p)
{
	Profile *pr = &w->pr;
	/* mappings: the main binary first */
	pr->n_mapping = p->modules.len;
	pr->mapping = ar(w, p->modules.len * sizeof(Mapping *));
	uint32_t n = 0;
	for (int pass = 0; pass < 2 && !w->oom; pass++)
		for (pv_module_ix m = 0; m < p->modules.len && !w->oom; m++) {
			if ((p->modules.kind[m] == PV_MODULE_BINARY) != (pass == 0))
				continue;
			Mapping *mp = ar(w, sizeof(*mp));
			if (!mp)
				break;
			perftools__profiles__mapping__init(mp);
			mp->id = n + 1;
			mp->filename =
			    sx(w, p->modules.path[m] ? p->modules.path[m] : p->modules.name[m]);
			mp->has_functions = true;
			w->mapping_of[m] = n + 1;
			pr->mapping[n++] = mp;
		}
}

static void build_functions(struct pw *w, const struct pv_profile *p)
{
	Profile *pr = &w->pr;
	/* functions */
	pr->n_function = p->funcs.len;
	pr->function = ar(w, p->funcs.len * sizeof(Function *));
	for (pv_func_ix f = 0; f < p->funcs.len && !w->oom; f++) {
		Function *fn = ar(w, sizeof(*fn));
		if (!fn)
			break;
		perftools__profiles__function__init(fn);
		fn->id = f + 1;
		fn->name = fn->system_name = sx(w, p->funcs.name[f]);
		pv_source_ix src = pv_func_source(p, f);
		fn->filename = src == PV_NONE ? 0 : sx(w, p->sources.path[src]);
		fn->start_line = pv_func_line(p, f);
		pr->function[f] = fn;
	}
}

/* Sample s's labels (of thread t): its label set's, then thread and tid (keys k[0], k[1]) when
 * the profile has several threads. */
static void sample_labels(struct pw *w, const struct pv_profile *p, Sample *S, uint32_t s,
			  pv_thread_ix t, const int64_t *k)
{
	bool threads = p->threads.len > 1;
	int64_t k_thread = k[0], k_tid = k[1];
	uint32_t set = p->samples.label_set ? p->samples.label_set[s] : 0;
	uint32_t nl = p->label_sets.len > set ? p->label_sets.count[set] : 0;
	S->label = ar(w, (nl + 2) * sizeof(Label *));
	for (uint32_t i = 0; S->label && i < nl + (threads ? 2 : 0); i++) {
		Label *L = ar(w, sizeof(*L));
		if (!L)
			break;
		perftools__profiles__label__init(L);
		if (i < nl) {
			uint32_t r = p->label_sets.items[p->label_sets.first[set] + i];
			L->key = sx(w, p->labels.key[r]);
			L->str = sx(w, p->labels.str[r]);
			L->num = p->labels.str[r] ? 0 : p->labels.num[r];
			L->num_unit = sx(w, p->labels.unit[r]);
		} else if (i == nl) {
			L->key = k_thread;
			L->str =
			    p->threads.name[t] ? sx(w, p->threads.name[t]) : sx_lit(w, "thread");
		} else {
			L->key = k_tid;
			L->num = p->threads.tid[t] == PV_ID_NONE ? (int64_t)t : p->threads.tid[t];
		}
		S->label[S->n_label++] = L;
	}
}

/* The samples, thread by thread; *kinds: the loop and statement frames written as lines. */
static void build_samples(struct pw *w, const struct pv_profile *p, uint64_t *kinds)
{
	Profile *pr = &w->pr;
	bool threads = p->threads.len > 1;
	pr->n_sample = p->samples.len;
	pr->sample = ar(w, p->samples.len * sizeof(Sample *));
	uint32_t maxd = 0;
	uint32_t *depth = pv__stack_depths(p, &maxd);
	if (!depth)
		w->oom = 1;
	int64_t k[2] = {0, 0}; /* the keys thread and tid, interned in this order */
	k[0] = threads ? sx_lit(w, "thread") : 0;
	k[1] = threads ? sx_lit(w, "tid") : 0;
	for (pv_thread_ix t = 0; t < p->threads.len && !w->oom; t++)
		for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t]; s++) {
			Sample *S = ar(w, sizeof(*S));
			if (!S)
				break;
			perftools__profiles__sample__init(S);
			S->n_value = p->metrics.len;
			S->value = ar(w, p->metrics.len * sizeof(int64_t));
			for (pv_metric_ix m = 0; S->value && m < p->metrics.len; m++)
				S->value[m] = pv_sample_weight(p, m, s);
			pv_stack_ix st = p->samples.stack[s];
			S->location_id = ar(w, (st == PV_NONE ? 1 : depth[st]) * sizeof(uint64_t));
			while (S->location_id && st != PV_NONE && !w->oom) {
				pv_stack_ix next;
				*kinds += pv_frame_kind(p, p->stacks.frame[st]) != PV_FRAME_CODE;
				S->location_id[S->n_location_id++] = location_of(w, st, &next);
				st = next;
			}
			sample_labels(w, p, S, s, t, k);
			pr->sample[s] = S;
		}
	pv_free(depth);
}

static void build_period(struct pw *w, const struct pv_profile *p)
{
	Profile *pr = &w->pr;
	/* the profile's start and the span of its sample times */
	int64_t lo, hi;
	pv_samples_span(p, &lo, &hi);
	pr->time_nanos = p->meta.start_unix_ns;
	pr->duration_nanos = hi - lo;
	if (p->meta.interval_ns) {
		pr->period = p->meta.interval_ns;
		pr->period_type = ar(w, sizeof(ValueType));
		if (pr->period_type) {
			perftools__profiles__value_type__init(pr->period_type);
			pr->period_type->type = sx_lit(w, "cpu");
			pr->period_type->unit = sx_lit(w, "nanoseconds");
		}
	}
}

static int build(struct pw *w, const struct pv_profile *p, struct pv_lossy *lossy)
{
	sx_text(w, "", 0);
	build_types(w, p, lossy);
	build_mappings(w, p);
	build_functions(w, p);
	uint64_t kinds = 0;
	build_samples(w, p, &kinds);
	pv_lossy_add(lossy, p->threads.len > 1 ? p->threads.len : 0,
		     "threads: pprof has none (each sample has the labels thread and tid)");
	pv_lossy_add(lossy, kinds, "loop and statement frames (written as lines of functions)");
	uint64_t merged = pv__export_merged(p, cmp_written, (void *)p);
	pv_lossy_add(lossy, merged == UINT64_MAX ? 0 : merged, PV_LOSSY_MERGED,
		     "a pprof function has a file and a first line, not a column");
	build_period(w, p);
	pv_lossy_add(lossy, p->categories.len, "categories (pprof has none)");
	return w->oom ? PV_ENOMEM : 0;
}

int pv__export_pprof(FILE *out, const struct pv_profile *p, const struct pv_export_opts *o,
		     struct pv_lossy *lossy, struct pv_error *err)
{
	(void)o;
	pv__export_lossy_common(p, PV_NONE, false, false, true, "pprof", lossy);
	struct pw w = {.p = p};
	perftools__profiles__profile__init(&w.pr);
	w.a = arena_new();
	w.str = pv_malloc((size_t)(p->strings.len ? p->strings.len : 1) * sizeof(*w.str));
	w.mapping_of = pv_calloc(p->modules.len ? p->modules.len : 1, sizeof(*w.mapping_of));
	int rc = PV_ENOMEM;
	if (w.a && w.str && w.mapping_of) {
		memset(w.str, 0xff, (size_t)(p->strings.len ? p->strings.len : 1) * sizeof(*w.str));
		rc = build(&w, p, lossy);
	}
	uint8_t *buf = NULL;
	if (!rc) {
		size_t len = perftools__profiles__profile__get_packed_size(&w.pr);
		buf = pv_malloc(len ? len : 1);
		if (!buf)
			rc = PV_ENOMEM;
		else if (perftools__profiles__profile__pack(&w.pr, buf) != len)
			rc = PV_EIO;
		else
			rc = gzip_write(out, buf, len);
	}
	pv_free(buf);
	pv_free(w.pr.string_table);
	pv_free(w.pr.location);
	pv_free(w.str);
	pv_free(w.mapping_of);
	u64map_release(&w.loc_map);
	arena_free(w.a);
	if (rc)
		return pv_error_set(err, rc, "%s",
				    rc == PV_ENOMEM ? "out of memory" : "cannot write the export");
	return pv__export_check(out, err);
}

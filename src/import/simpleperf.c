/*
 * simpleperf.c - Android simpleperf's sample reports (`simpleperf report-sample --protobuf -i
 * perf.data -o x.trace`), read as the Firefox Profiler's simpleperf.ts reads them, so the
 * threads, samples and weights are the same.
 *
 * Layout: the magic "SIMPLEPERF", a u16 version, then records, each a u32 little-endian size
 * and a protobuf Record of that size (our simpleperf.proto, decoded by protobuf-c), a size 0
 * last. Records: Sample (time in ns, thread id, call chain leaf first of (address in the file,
 * file id, symbol index), event count and event type index), File (id, path, symbol table),
 * Thread (tid, pid, name), MetaInfo (event type names, app package), LostSituation, and context
 * switches. Files and threads come after the samples, so the records are walked twice: every
 * record but the samples first, then the samples.
 *
 * What becomes what: a thread per Thread record, in file order; a sample per Sample record of a
 * declared thread at its time, stack root first; a function per (symbol or "FILE+0xADDR" when the
 * entry has no symbol, file), the file its module, and the Firefox Profiler's categories (Kernel,
 * System, Native, Java, Other) from the file's path and the name. Metrics: "samples" (1 each) and
 * one per event type named as simpleperf names it ("cpu-clock", "task-clock" in ns, others in
 * events), weighing each sample's event count in its own type's metric. The default metric is
 * cpu-clock's when the file has that type (the Firefox Profiler's "tracing-ms" weights), else
 * samples.
 *
 * Not kept (lossy lines): the addresses of entries with a symbol, mangled symbol names,
 * execution types, unwinding failure reports, context switches, samples of undeclared threads,
 * lost samples, the app's type and Android versions.
 */
#include <protobuf-c/protobuf-c.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/hash.h"
#include "base/vec.h"
#include "import/importer.h"
#include "import/pbmem.h"
#include "simpleperf.pb-c.h"

#define MAGIC	      "SIMPLEPERF"
#define MAGIC_LEN     10
#define HEAD_LEN      12	 /* magic and version */
#define SCRATCH_LIMIT (8u << 20) /* a sample's arena is renewed past this many bytes */
#define MAX_FILE_ID   (1u << 24)

struct spfile {
	const Simpleperf__File *f; /* NULL: no File record of this id */
	pv_module_ix mod;
	pv_cat_ix cat;	     /* by path; PV_NONE when it depends on the name */
	pv_frame_ix *frames; /* per symbol, PV_NONE until met */
};

enum lossy { L_ADDR, L_MANGLED, L_EXEC, L_UNWIND, L_SWITCH, L_NO_THREAD, L_BAD_SYM, L_BAD_EV, NL };

struct sp {
	struct pv_builder *b;
	struct pv_input *in;
	struct pv_error *err;
	const uint8_t *d;
	size_t len;
	struct pb_mem keep, scratch;
	ProtobufCAllocator al_keep, al_scratch;
	struct vec files;   /* struct spfile, by id */
	struct u64map tids; /* tid -> thread */
	const Simpleperf__Meta *meta;
	const Simpleperf__Lost *lost;
	uint64_t nsamples, lossy[NL];
	uint32_t nmetrics, cpu_clock; /* the metric of cpu-clock, UINT32_MAX: none */
	int64_t *w;
	pv_cat_ix cats[5];
};

enum { C_OTHER, C_NATIVE, C_JAVA, C_SYSTEM, C_KERNEL };

static int fail(struct sp *s, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct sp *s, size_t at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = input_vfail_byte(s->in, s->err, PV_EPARSE, at, fmt, ap);
	va_end(ap);
	return rc;
}

static int oom(struct sp *s)
{
	return pv_error_set(s->err, PV_ENOMEM, "%s: out of memory", s->in->name);
}

/*
 * The record at *pos: its bytes in [*body, *body + *size); *pos moves past it. 1 at the
 * closing size 0, 0 for a record, else an error.
 */
static int next_record(struct sp *s, size_t *pos, size_t *body, uint32_t *size)
{
	size_t at = *pos;
	if (s->len - at < 4)
		return fail(s, at, "expected a record size (4 bytes) or the closing 0, found %s",
			    at == s->len ? "the end of the file" : "a cut record size");
	const uint8_t *p = s->d + at;
	uint32_t n =
	    (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	if (n == 0)
		return 1;
	if (n > s->len - at - 4)
		return fail(s, at, "record size %u runs past the end of the file (%zu bytes left)",
			    n, s->len - at - 4);
	*body = at + 4;
	*size = n;
	*pos = at + 4 + n;
	return 0;
}

static Simpleperf__Record *unpack(struct sp *s, struct pb_mem *m, ProtobufCAllocator *al,
				  size_t body, uint32_t size)
{
	Simpleperf__Record *r = simpleperf__record__unpack(al, size, s->d + body);
	if (!r) {
		if (m->failed)
			oom(s);
		else
			fail(s, body, "expected a simpleperf Record message (%u bytes)", size);
	}
	return r;
}

static int add_file(struct sp *s, const Simpleperf__File *f, size_t body)
{
	if (f->id >= MAX_FILE_ID)
		return fail(s, body, "file id %u is past %u", f->id, MAX_FILE_ID);
	uint32_t old = s->files.len;
	if (f->id >= old) {
		if (vec_resize(&s->files, sizeof(struct spfile), f->id + 1))
			return oom(s);
		for (uint32_t i = old; i <= f->id; i++)
			VEC(s->files, struct spfile)[i] = (struct spfile){.mod = PV_NONE};
	}
	struct spfile *sf = &VEC(s->files, struct spfile)[f->id];
	if (sf->f)
		return fail(s, body, "a second File record of id %u", f->id);
	sf->f = f;
	s->lossy[L_MANGLED] += f->n_mangled_symbol;
	return 0;
}

static int add_thread(struct sp *s, const Simpleperf__Thread *t)
{
	struct pv_builder *b = s->b;
	const char *name = t->thread_name ? t->thread_name : "";
	pv_thread_ix th = builder_thread(b, builder_cstr(b, name), t->process_id, t->thread_id, 0);
	if (b->status)
		return pv_error_set(s->err, b->status, "%s: %s", s->in->name,
				    pv_strerror(b->status));
	/* a tid declared twice: its samples go to the last (the Firefox Profiler's map) */
	uint32_t had = u64map_get(&s->tids, t->thread_id);
	if (had != UINT32_MAX) {
		for (uint32_t i = s->tids.mask + 1; i--;)
			if (s->tids.val[i] && s->tids.key[i] == t->thread_id)
				s->tids.val[i] = th + 1;
		return 0;
	}
	return u64map_put(&s->tids, t->thread_id, th) ? oom(s) : 0;
}

/* The first walk: every record but the samples, kept; the samples counted. */
static int read_tables(struct sp *s)
{
	size_t pos = HEAD_LEN, body;
	uint32_t size;
	int rc;
	while (!(rc = next_record(s, &pos, &body, &size))) {
		if (s->d[body] == 0x0a) { /* field 1, a Sample: the second walk's */
			s->nsamples++;
			continue;
		}
		Simpleperf__Record *r = unpack(s, &s->keep, &s->al_keep, body, size);
		if (!r)
			return PV_EPARSE;
		switch (r->data_case) {
		case SIMPLEPERF__RECORD__DATA_FILE: rc = add_file(s, r->file, body); break;
		case SIMPLEPERF__RECORD__DATA_THREAD: rc = add_thread(s, r->thread); break;
		case SIMPLEPERF__RECORD__DATA_META_INFO: s->meta = r->meta_info; break;
		case SIMPLEPERF__RECORD__DATA_LOST: s->lost = r->lost; break;
		case SIMPLEPERF__RECORD__DATA_CONTEXT_SWITCH: s->lossy[L_SWITCH]++; break;
		default: /* an empty record, or a Sample whose first field is not its time */
			if (r->data_case == SIMPLEPERF__RECORD__DATA_SAMPLE)
				s->nsamples++;
			break;
		}
		if (rc)
			return rc;
	}
	return rc == 1 ? 0 : rc;
}

static bool starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static bool ends(const char *s, const char *p)
{
	size_t n = strlen(s), k = strlen(p);
	return n >= k && strcmp(s + n - k, p) == 0;
}

/* The Firefox Profiler's category of a function of that name in the file at path. */
static int category(const char *path, const char *name)
{
	bool sys = starts(path, "/apex/") || starts(path, "/system/") || starts(path, "/vendor/");
	if (strcmp(path, "[kernel.kallsyms]") == 0 || ends(path, ".ko"))
		return C_KERNEL;
	if (ends(path, ".so"))
		return sys ? C_SYSTEM : C_NATIVE;
	if (strcmp(path, "[JIT app cache]") && !ends(path, ".vdex") && !ends(path, ".apk") &&
	    !ends(path, ".jar") && !ends(path, ".oat") && !ends(path, ".odex"))
		return C_OTHER;
	static const char *const lib[] = {"java.",	  "javax.",    "kotlin.",
					  "kotlinx.",	  "dalvik.",   "android.",
					  "com.android.", "androidx.", "libcore."};
	for (size_t i = 0; i < sizeof(lib) / sizeof(lib[0]); i++)
		if (starts(name, lib[i]))
			return C_SYSTEM;
	return sys ? C_SYSTEM : C_JAVA;
}

static void make_categories(struct sp *s)
{
	static const char *const cat[][2] = {
	    {"Other", "grey"},	  {"Native", "magenta"}, {"Java", "green"},
	    {"System", "yellow"}, {"Kernel", "orange"},
	};
	struct pv_builder *b = s->b;
	for (int i = 0; i < 5; i++)
		s->cats[i] =
		    builder_category(b, builder_cstr(b, cat[i][0]), builder_cstr(b, cat[i][1]));
}

/* The frame of entry e (in the sample record at body); PV_NONE with the error set. */
static pv_frame_ix entry_frame(struct sp *s, const Simpleperf__Entry *e, size_t body)
{
	struct pv_builder *b = s->b;
	struct spfile *sf =
	    e->file_id < s->files.len ? &VEC(s->files, struct spfile)[e->file_id] : NULL;
	if (!sf || !sf->f) {
		fail(s, body, "a call chain entry of file id %u, which no File record declares",
		     e->file_id);
		return PV_NONE;
	}
	const Simpleperf__File *f = sf->f;
	const char *path = f->path ? f->path : "";
	if (sf->mod == PV_NONE) {
		const char *base = path + strlen(path);
		while (base > path && base[-1] != '/' && base[-1] != '\\')
			base--;
		bool kernel = path[0] == '[' && strstr(path, "kernel");
		sf->mod = builder_module(b, builder_cstr(b, base), builder_cstr(b, path),
					 kernel ? PV_MODULE_KERNEL : PV_MODULE_LIBRARY);
		sf->frames = pv_calloc(f->n_symbol + 1, sizeof(pv_frame_ix));
		if (!sf->frames) {
			oom(s);
			return PV_NONE;
		}
		memset(sf->frames, 0xff, (f->n_symbol + 1) * sizeof(pv_frame_ix));
	}
	bool sym = e->symbol_id >= 0 && (size_t)e->symbol_id < f->n_symbol;
	if (e->symbol_id >= 0 && !sym)
		s->lossy[L_BAD_SYM]++;
	if (sym && sf->frames[e->symbol_id] != PV_NONE) {
		s->lossy[L_ADDR]++;
		return sf->frames[e->symbol_id];
	}
	pv_str_ix name;
	if (sym) {
		name = builder_cstr(b, f->symbol[e->symbol_id]);
		s->lossy[L_ADDR]++;
	} else {
		name = builder_strf(b, "%s+0x%llx", pv_str(b->p, b->p->modules.name[sf->mod]),
				    (unsigned long long)e->vaddr_in_file);
	}
	struct frame_key k = {.func = builder_func(b, name, sf->mod, PV_NONE, 0),
			      .category = s->cats[category(path, pv_str(b->p, name))]};
	pv_frame_ix fr = builder_frame(b, &k);
	if (sym)
		sf->frames[e->symbol_id] = fr;
	return fr;
}

static int add_sample(struct sp *s, const Simpleperf__Sample *x, size_t body)
{
	struct pv_builder *b = s->b;
	uint32_t th = u64map_get(&s->tids, (uint32_t)x->thread_id);
	if (th == UINT32_MAX) { /* the Firefox Profiler skips it with a warning */
		s->lossy[L_NO_THREAD]++;
		return 0;
	}
	if (x->time > (uint64_t)PV_TIME_MAX)
		return fail(s, body, "sample time %llu ns is out of range",
			    (unsigned long long)x->time);
	pv_stack_ix st = PV_NONE;
	for (size_t i = x->n_callchain; i--;) {
		const Simpleperf__Entry *e = x->callchain[i];
		pv_frame_ix f = entry_frame(s, e, body);
		if (f == PV_NONE)
			return PV_EPARSE;
		s->lossy[L_EXEC] += e->execution_type != 0;
		st = builder_stack(b, st, f);
	}
	s->lossy[L_UNWIND] += x->unwinding_result != NULL;
	memset(s->w + 1, 0, (s->nmetrics - 1) * sizeof(int64_t));
	s->w[0] = 1;
	if (x->event_type_id < s->nmetrics - 1)
		s->w[1 + x->event_type_id] =
		    x->event_count > INT64_MAX ? INT64_MAX : (int64_t)x->event_count;
	else
		s->lossy[L_BAD_EV]++;
	builder_sample(b, th, st, (int64_t)x->time, s->w);
	return b->status ? pv_error_set(s->err, b->status, "%s: %s while importing", s->in->name,
					pv_strerror(b->status))
			 : 0;
}

/* The second walk: the samples. */
static int read_samples(struct sp *s)
{
	size_t pos = HEAD_LEN, body;
	uint32_t size;
	int rc;
	while (!(rc = next_record(s, &pos, &body, &size))) {
		if (arena_used(s->scratch.arena) > SCRATCH_LIMIT) {
			arena_free(s->scratch.arena);
			if (!(s->scratch.arena = arena_new()))
				return oom(s);
		}
		if (s->d[body] != 0x0a) {
			/* a Sample not led by its time: decoded in the first walk as well */
			if (s->d[body] == 0x12 || s->d[body] == 0x1a || s->d[body] == 0x22 ||
			    s->d[body] == 0x2a || s->d[body] == 0x32)
				continue;
		}
		Simpleperf__Record *r = unpack(s, &s->scratch, &s->al_scratch, body, size);
		if (!r)
			return PV_EPARSE;
		if (r->data_case == SIMPLEPERF__RECORD__DATA_SAMPLE &&
		    (rc = add_sample(s, r->sample, body)))
			return rc;
	}
	return rc == 1 ? 0 : rc;
}

static void make_metrics(struct sp *s)
{
	struct pv_builder *b = s->b;
	builder_metric(b, builder_cstr(b, "samples"), PV_UNIT_COUNT);
	size_t nev = s->meta ? s->meta->n_event_type : 0;
	s->cpu_clock = UINT32_MAX;
	for (size_t i = 0; i < nev; i++) {
		const char *ev = s->meta->event_type[i];
		bool clock = strcmp(ev, "cpu-clock") == 0 || strcmp(ev, "task-clock") == 0;
		pv_metric_ix m =
		    builder_metric(b, builder_cstr(b, ev), clock ? PV_UNIT_NS : PV_UNIT_COUNT);
		if (strcmp(ev, "cpu-clock") == 0 && s->cpu_clock == UINT32_MAX)
			s->cpu_clock = m;
	}
	s->nmetrics = (uint32_t)(1 + nev);
	b->p->meta.default_metric = s->cpu_clock != UINT32_MAX ? s->cpu_clock : 0;
	const char *app = s->meta && s->meta->app_package_name ? s->meta->app_package_name : NULL;
	b->p->meta.product = builder_cstr(b, app ? app : "Android Profile");
}

static void report(struct sp *s)
{
	struct pv_builder *b = s->b;
	static const char *const what[NL] = {
	    [L_ADDR] =
		"addresses of call chain entries with a symbol (functions kept, not where in "
		"them)",
	    [L_MANGLED] = "mangled symbol names (the demangled ones kept)",
	    [L_EXEC] = "execution types of call chain entries (interpreted, JIT, ART)",
	    [L_UNWIND] = "unwinding failure reports of samples",
	    [L_SWITCH] = "context switch records",
	    [L_NO_THREAD] = "samples of threads without a Thread record (skipped)",
	    [L_BAD_SYM] = "call chain entries whose symbol index is past their file's table "
			  "(named by address)",
	    [L_BAD_EV] = "samples whose event type index is past the event types (only counted)",
	};
	for (int i = 0; i < NL; i++)
		builder_lossy(b, s->lossy[i], "%s", what[i]);
	if (s->lost)
		builder_lossy(b, s->lost->lost_count, "samples lost while recording");
	if (s->lost && s->lost->sample_count != s->nsamples)
		builder_lossy(
		    b, 1, "the lost-samples record counts %llu samples, the file holds %llu",
		    (unsigned long long)s->lost->sample_count, (unsigned long long)s->nsamples);
	const Simpleperf__Meta *m = s->meta;
	if (m && (m->app_type || m->android_sdk_version || m->android_build_type))
		builder_lossy(b, 1, "app type %s, Android SDK %s, build type %s",
			      m->app_type ? m->app_type : "-",
			      m->android_sdk_version ? m->android_sdk_version : "-",
			      m->android_build_type ? m->android_build_type : "-");
}

static int probe(const struct pv_input *in)
{
	return in->len >= MAGIC_LEN && memcmp(in->data, MAGIC, MAGIC_LEN) == 0 ? 100 : 0;
}

static int run(struct sp *s)
{
	if (s->len < HEAD_LEN || memcmp(s->d, MAGIC, MAGIC_LEN) != 0)
		return fail(s, 0, "expected the magic 'SIMPLEPERF' and a version (12 bytes)");
	int rc = read_tables(s);
	if (rc)
		return rc;
	make_categories(s);
	make_metrics(s);
	if (!(s->w = pv_calloc(s->nmetrics, sizeof(int64_t))))
		return oom(s);
	if ((rc = read_samples(s)))
		return rc;
	report(s);
	if (s->b->status)
		return pv_error_set(s->err, s->b->status, "%s: %s while importing", s->in->name,
				    pv_strerror(s->b->status));
	return 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct sp *s = pv_calloc(1, sizeof(*s));
	if (!s)
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
	*s = (struct sp){
	    .b = b, .in = in, .err = err, .d = (const uint8_t *)in->data, .len = in->len};
	s->keep.arena = arena_new();
	s->scratch.arena = arena_new();
	s->al_keep = pb_mem_allocator(&s->keep);
	s->al_scratch = pb_mem_allocator(&s->scratch);
	int rc = s->keep.arena && s->scratch.arena ? run(s) : oom(s);
	for (uint32_t i = 0; i < s->files.len; i++)
		pv_free(VEC(s->files, struct spfile)[i].frames);
	vec_free(&s->files);
	u64map_release(&s->tids);
	pv_free(s->w);
	if (s->keep.arena)
		arena_free(s->keep.arena);
	if (s->scratch.arena)
		arena_free(s->scratch.arena);
	pv_free(s);
	return rc;
}

const struct importer importer_simpleperf = {
    .name = "simpleperf",
    .description = "Android simpleperf report-sample --protobuf records",
    .probe = probe,
    .import = import,
};

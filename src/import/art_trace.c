/*
 * art_trace.c - Android ART method traces (Debug.startMethodTracing, Android Studio's profiler),
 * read as the Firefox Profiler's art-trace.ts reads them so the samples are the same.
 *
 * Two layouts: "regular" (a text head "*version\nN\n" key=value lines, "*threads" (tid TAB name),
 * "*methods" (0xID TAB class TAB method TAB signature TAB file), "*end", then the binary part)
 * and "streaming" (binary from the start: magic "SLOW", methods and threads declared between
 * the records, the summary last). The binary part: magic, version (u16), header size (u16),
 * start time (u64 us), record size (u16, version 3); then records of tid (u8 for version 1, else
 * u16), method id | action (u32: enter, exit, unwind) and one or two u32 clocks in us ("clock="
 * of the summary: thread-cpu, wall or dual; global time is the wall clock when there is one).
 *
 * What becomes what, as the Firefox Profiler does: a thread per tid that has records (named
 * from the thread list, pid from the summary, else 1), in order of its first record; methods
 * are functions "class.method" (their file the source), "<unknown method ID 0x...>" for an id
 * the file does not declare. The trace records enter and exit times only, so samples are made
 * from them: the interval is the mean of the lowest fifth of the time steps of the first 500
 * records; below 100 us the trace is method tracing and sampled every 0.1 ms, else it was
 * sampled and its own times are kept (the gaps filled at the interval). A sample is the stack
 * open at its time.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/vec.h"
#include "import/importer.h"

#define TRACE_MAGIC 0x574f4c53u /* "SLOW" little-endian */

struct amethod {
	uint32_t id, order;
	pv_frame_ix frame;
};

struct arec {
	uint32_t tid, method, action;
	uint32_t global;
};

struct athread {
	uint32_t tid;
	pv_str_ix name;
};

struct tb {
	uint32_t tid;
	pv_thread_ix th;
	pv_stack_ix cur;
	double next;
	bool started;
};

struct art {
	struct pv_builder *b;
	struct pv_input *in;
	struct pv_error *err;
	const unsigned char *d;
	size_t len, pos;
	struct vec methods; /* struct amethod */
	struct vec threads; /* struct athread */
	struct vec recs;    /* struct arec */
	struct vec recpos;  /* size_t: streaming records, read once the clock is known */
	int clock;	    /* 0 thread-cpu, 1 wall, 2 dual */
	int64_t pid;
	uint32_t version, rec_size;
};

static int fail(struct art *a, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct art *a, size_t at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = input_vfail_byte(a->in, a->err, PV_EPARSE, at, fmt, ap);
	va_end(ap);
	return rc;
}

static int need(struct art *a, size_t n, const char *what)
{
	if (a->len - a->pos < n)
		return fail(a, a->pos, "expected %s (%zu bytes), found the end of the file", what,
			    n);
	return 0;
}

static uint32_t rd(struct art *a, int n)
{
	uint32_t v = 0;
	for (int i = 0; i < n; i++)
		v |= (uint32_t)a->d[a->pos + (size_t)i] << (8 * i);
	a->pos += (size_t)n;
	return v;
}

/* The line at pos (without its newline); pos moves past the newline. */
static size_t line(struct art *a, const char **s)
{
	const unsigned char *e = memchr(a->d + a->pos, '\n', a->len - a->pos);
	size_t end = e ? (size_t)(e - a->d) : a->len;
	*s = (const char *)a->d + a->pos;
	size_t n = end - a->pos;
	a->pos = e ? end + 1 : a->len;
	return n;
}

static int method(struct art *a, const char *s, size_t n, size_t at)
{
	const char *f[5] = {0};
	size_t fl[5] = {0};
	int k = 0;
	f[0] = s;
	for (size_t i = 0; i < n && k < 5; i++)
		if (s[i] == '\t') {
			fl[k] = (size_t)(s + i - f[k]);
			if (++k < 5)
				f[k] = s + i + 1;
		}
	if (k < 5)
		fl[k] = (size_t)(s + n - f[k]);
	if (k < 2)
		return fail(a, at, "expected a method line (0xID TAB class TAB method ...)");
	char idt[24];
	size_t il = fl[0] < sizeof(idt) - 1 ? fl[0] : sizeof(idt) - 1;
	memcpy(idt, f[0], il);
	idt[il] = 0;
	char *end;
	unsigned long long id = il > 2 && idt[0] == '0' && (idt[1] | 32) == 'x'
				    ? strtoull(idt + 2, &end, 16)
				    : strtoull(idt, &end, 10);
	if (end == idt || *end || id > UINT32_MAX)
		return fail(a, at, "expected a method id (0x...), found '%s'", idt);
	struct pv_builder *b = a->b;
	pv_str_ix name = builder_strf(b, "%.*s.%.*s", (int)fl[1], f[1], (int)fl[2], f[2]);
	pv_source_ix src =
	    k >= 4 && f[4] && fl[4] ? builder_source(b, builder_str(b, f[4], fl[4])) : PV_NONE;
	struct amethod *m = vec_push(&a->methods, sizeof(*m));
	if (!m)
		return pv_error_set(a->err, PV_ENOMEM, "%s: out of memory", a->in->name);
	m->id = (uint32_t)id;
	m->frame = builder_func_frame(b, builder_func(b, name, PV_NONE, src, 0));
	return 0;
}

static int thread_decl(struct art *a, uint32_t tid, const char *s, size_t n)
{
	struct athread *t = vec_push(&a->threads, sizeof(*t));
	if (!t)
		return pv_error_set(a->err, PV_ENOMEM, "%s: out of memory", a->in->name);
	t->tid = tid;
	t->name = builder_str(a->b, s, n);
	return 0;
}

/* key=value lines up to a line starting with '*' or empty; returns that line's start. */
static int summary(struct art *a, size_t *version)
{
	const char *s;
	size_t at = a->pos, n = line(a, &s);
	if (n != 8 || memcmp(s, "*version", 8) != 0)
		return fail(a, at, "expected '*version'");
	at = a->pos;
	n = line(a, &s);
	if (n != 1 || s[0] < '1' || s[0] > '3')
		return fail(a, at, "expected the trace version (1 to 3)");
	*version = (size_t)(s[0] - '0');
	for (;;) {
		at = a->pos;
		n = line(a, &s);
		if (!n || s[0] == '*') {
			a->pos = at;
			return 0;
		}
		if (n > 6 && memcmp(s, "clock=", 6) == 0) {
			if (n == 10 && memcmp(s + 6, "wall", 4) == 0)
				a->clock = 1;
			else if (n == 10 && memcmp(s + 6, "dual", 4) == 0)
				a->clock = 2;
			else
				a->clock = 0;
		} else if (n > 4 && memcmp(s, "pid=", 4) == 0) {
			char buf[24];
			size_t l = n - 4 < sizeof(buf) - 1 ? n - 4 : sizeof(buf) - 1;
			memcpy(buf, s + 4, l);
			buf[l] = 0;
			a->pid = strtoll(buf, NULL, 10);
		}
	}
}

static int header(struct art *a, bool streaming)
{
	size_t start = a->pos;
	int rc = need(a, 16, "the binary header");
	if (rc)
		return rc;
	uint32_t magic = rd(a, 4);
	if (magic != TRACE_MAGIC)
		return fail(a, start, "expected the magic 'SLOW', found 0x%08x", magic);
	uint32_t v = rd(a, 2);
	if (streaming)
		v ^= 0xf0;
	if (v < 1 || v > 3)
		return fail(a, start + 4, "expected version 1 to 3, found %u", v);
	if (!streaming && v != a->version)
		return fail(a, start + 4, "version %u of the data, %u in the summary", v,
			    a->version);
	a->version = v;
	uint32_t hsize = rd(a, 2);
	a->pos += 8; /* start time */
	if (v == 3) {
		if ((rc = need(a, 2, "the record size")))
			return rc;
		a->rec_size = rd(a, 2);
	} else {
		a->rec_size = v == 1 ? 9 : 10;
	}
	uint32_t min = (v == 1 ? 1 : 2) + 4 + 4;
	if (a->rec_size < min)
		return fail(a, start + 16, "record size %u is less than a record's %u bytes",
			    a->rec_size, min);
	if (hsize > a->len - start)
		return fail(a, start + 6, "header size %u runs past the end of the file", hsize);
	a->pos = start + hsize;
	return 0;
}

static int record(struct art *a, size_t at)
{
	a->pos = at;
	int rc = need(a, a->rec_size, "a record");
	if (rc)
		return rc;
	struct arec *r = vec_push(&a->recs, sizeof(*r));
	if (!r)
		return pv_error_set(a->err, PV_ENOMEM, "%s: out of memory", a->in->name);
	r->tid = rd(a, a->version == 1 ? 1 : 2);
	uint32_t mid = rd(a, 4);
	r->method = mid & ~3u;
	r->action = mid & 3u;
	if (r->action > 2)
		return fail(a, at, "unexpected method action 3 (enter 0, exit 1, unwind 2)");
	uint32_t t1 = rd(a, 4);
	uint32_t t2 =
	    a->clock == 2 && a->rec_size >= (a->version == 1 ? 1u : 2u) + 12 ? rd(a, 4) : t1;
	r->global = a->clock == 2 ? t2 : t1;
	a->pos = at + a->rec_size;
	return 0;
}

/* A regular trace: the text part (*version, *threads, *methods, *end), then the records. */
static int parse_regular(struct art *a)
{
	int rc;
	size_t v;
	if ((rc = summary(a, &v)))
		return rc;
	a->version = (uint32_t)v;
	const char *s;
	size_t at = a->pos, n = line(a, &s);
	if (n != 8 || memcmp(s, "*threads", 8) != 0)
		return fail(a, at, "expected '*threads'");
	for (;;) {
		at = a->pos;
		n = line(a, &s);
		if (!n || s[0] == '*')
			break;
		const char *tab = memchr(s, '\t', n);
		if (!tab)
			return fail(a, at, "expected a thread line (tid TAB name)");
		if ((rc = thread_decl(a, (uint32_t)strtoul(s, NULL, 10), tab + 1,
				      (size_t)(s + n - tab - 1))))
			return rc;
	}
	if (n != 8 || memcmp(s, "*methods", 8) != 0)
		return fail(a, at, "expected '*methods'");
	for (;;) {
		at = a->pos;
		n = line(a, &s);
		if (!n || s[0] == '*')
			break;
		if ((rc = method(a, s, n, at)))
			return rc;
	}
	if (n != 4 || memcmp(s, "*end", 4) != 0)
		return fail(a, at, "expected '*end'");
	if ((rc = header(a, false)))
		return rc;
	while (a->pos < a->len)
		if ((rc = record(a, a->pos)))
			return rc;
	return 0;
}

/* A streaming trace: the header, records mixed with declarations, the summary last. */
static int parse_streaming(struct art *a)
{
	int rc;
	if ((rc = header(a, true)))
		return rc;
	while (a->pos < a->len) {
		size_t at = a->pos;
		if ((rc = need(a, 2, "a record")))
			return rc;
		if (rd(a, 2) != 0) {
			size_t *p = vec_push(&a->recpos, sizeof(*p));
			if (!p)
				return pv_error_set(a->err, PV_ENOMEM, "%s: out of memory",
						    a->in->name);
			*p = at;
			a->pos = at + a->rec_size;
			if (a->pos > a->len)
				return fail(a, at,
					    "expected a record (%u bytes), found the end of the "
					    "file",
					    a->rec_size);
			continue;
		}
		if ((rc = need(a, 1, "a declaration code")))
			return rc;
		uint32_t code = rd(a, 1);
		if (code == 1) {
			if ((rc = need(a, 2, "a method's length")))
				return rc;
			uint32_t n = rd(a, 2);
			if ((rc = need(a, n, "a method")))
				return rc;
			const char *s = (const char *)a->d + a->pos;
			a->pos += n;
			if ((rc = method(a, s, n, at)))
				return rc;
		} else if (code == 2) {
			if ((rc = need(a, 4, "a thread")))
				return rc;
			uint32_t tid = rd(a, 2), n = rd(a, 2);
			if ((rc = need(a, n, "a thread's name")))
				return rc;
			if ((rc = thread_decl(a, tid, (const char *)a->d + a->pos, n)))
				return rc;
			a->pos += n;
		} else if (code == 3) {
			if ((rc = need(a, 4, "the summary's length")))
				return rc;
			uint32_t n = rd(a, 4);
			if ((rc = need(a, n, "the summary")))
				return rc;
			size_t save_len = a->len;
			a->len = a->pos + n;
			size_t v;
			if ((rc = summary(a, &v)))
				return rc;
			a->len = save_len;
			if (v != a->version)
				return fail(a, at, "version %zu in the summary, %u in the header",
					    v, a->version);
			break;
		} else {
			return fail(a, at + 2,
				    "expected a declaration code (1 method, 2 thread, 3 "
				    "summary), found %u",
				    code);
		}
	}
	for (uint32_t i = 0; i < a->recpos.len; i++)
		if ((rc = record(a, VEC(a->recpos, size_t)[i])))
			return rc;
	return 0;
}

static int parse(struct art *a)
{
	if (a->len >= 11 && memcmp(a->d, "*version\n", 9) == 0)
		return parse_regular(a);
	return parse_streaming(a);
}

static int cmp_order(const void *x, const void *y)
{
	uint32_t a = ((const struct amethod *)x)->order, b = ((const struct amethod *)y)->order;
	return a < b ? -1 : a > b;
}

static int cmp_method(const void *x, const void *y)
{
	uint32_t a = ((const struct amethod *)x)->id, b = ((const struct amethod *)y)->id;
	if (a != b)
		return a < b ? -1 : 1;
	return cmp_order(x, y);
}

static int cmp_id(const void *x, const void *y)
{
	uint32_t a = ((const struct amethod *)x)->id, b = ((const struct amethod *)y)->id;
	return a < b ? -1 : a > b;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/* The Firefox Profiler's procureSamplingInterval, in us; 0 when none. */
static double interval_us(struct art *a)
{
	uint32_t n = a->recs.len < 500 ? a->recs.len : 500;
	double *deltas = pv_malloc((n + 1) * sizeof(double));
	uint32_t *tids = pv_malloc((n + 1) * sizeof(uint32_t));
	double *prev = pv_malloc((n + 1) * sizeof(double));
	if (!deltas || !tids || !prev) {
		pv_free(deltas), pv_free(tids), pv_free(prev);
		return -1;
	}
	uint32_t nd = 0, nt = 0;
	const struct arec *r = VEC(a->recs, struct arec);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = 0;
		while (k < nt && tids[k] != r[i].tid)
			k++;
		double g = r[i].global;
		if (k == nt) {
			tids[nt] = r[i].tid;
			prev[nt++] = g;
		} else if (g != prev[k]) {
			deltas[nd++] = g - prev[k];
			prev[k] = g;
		}
	}
	qsort(deltas, nd, sizeof(double), cmp_double);
	double avg = 0;
	if (nd < 5) {
		avg = nd ? deltas[0] : 0;
	} else {
		uint32_t m = nd / 5;
		double sum = 0;
		for (uint32_t i = 0; i < m; i++)
			sum += deltas[i];
		avg = sum / m;
	}
	pv_free(deltas), pv_free(tids), pv_free(prev);
	return avg;
}

static void emit(struct art *a, struct tb *t, double ms)
{
	builder_sample(a->b, t->th, t->cur, (int64_t)llround(ms * 1e6), NULL);
}

/*
 * The frame of method id: of the methods sorted by id (the first nsorted), the last declared;
 * else one made before for an undeclared id; else a new "<unknown method ID>" (counted).
 */
static int method_frame(struct art *a, uint32_t nsorted, uint32_t id, pv_frame_ix *f,
			uint64_t *unknown)
{
	const struct amethod *ms = VEC(a->methods, struct amethod);
	struct amethod key = {.id = id};
	const struct amethod *hit = bsearch(&key, ms, nsorted, sizeof(*ms), cmp_id);
	/* of methods declared twice, the last one (as a map of them keeps) */
	while (hit && hit + 1 < ms + nsorted && hit[1].id == hit->id)
		hit++;
	if (hit) {
		*f = hit->frame;
		return 0;
	}
	for (uint32_t k = nsorted; k < a->methods.len; k++)
		if (ms[k].id == id) {
			*f = ms[k].frame;
			return 0;
		}
	/* later methods of the same id find it */
	struct amethod *m = vec_push(&a->methods, sizeof(*m));
	if (!m)
		return pv_error_set(a->err, PV_ENOMEM, "%s: out of memory", a->in->name);
	struct pv_builder *b = a->b;
	m->id = id;
	m->frame = *f =
	    builder_func_frame(b, builder_func(b, builder_strf(b, "<unknown method ID 0x%x>", id),
					       PV_NONE, PV_NONE, 0));
	(*unknown)++;
	return 0;
}

static int build(struct art *a)
{
	struct pv_builder *b = a->b;
	double iv = interval_us(a);
	if (iv < 0)
		return pv_error_set(a->err, PV_ENOMEM, "%s: out of memory", a->in->name);
	bool honor = false;
	double ims;
	if (!(iv > 0) || iv < 100) {
		ims = 0.1;
	} else {
		ims = floor(iv / 100 + 0.5) / 10;
		honor = true;
	}
	b->p->meta.interval_ns = (int64_t)llround(ims * 1e6);
	b->p->meta.product = builder_cstr(b, "ART Trace (Android)");
	b->p->meta.format_version = builder_strf(b, "%u", a->version);
	builder_metric(b, builder_cstr(b, "samples"), PV_UNIT_COUNT);
	struct vec tbs = {0};
	/* methods by id, then declaration order; undeclared ones after them */
	uint32_t nsorted = a->methods.len;
	for (uint32_t k = 0; k < nsorted; k++) /* stable: the declaration order breaks ties */
		VEC(a->methods, struct amethod)[k].order = k;
	qsort(a->methods.p, nsorted, sizeof(struct amethod), cmp_method);
	const struct athread *ths = VEC(a->threads, struct athread);
	const struct arec *r = VEC(a->recs, struct arec);
	uint64_t unknown = 0;
	int rc = 0;
	for (uint32_t i = 0; i < a->recs.len; i++) {
		struct tb *t = NULL;
		for (uint32_t k = 0; k < tbs.len; k++)
			if (VEC(tbs, struct tb)[k].tid == r[i].tid)
				t = VEC(tbs, struct tb) + k;
		if (!t) {
			const struct athread *decl = NULL;
			for (uint32_t k = 0; k < a->threads.len && !decl; k++)
				if (ths[k].tid == r[i].tid)
					decl = ths + k;
			if (!decl) {
				rc = pv_error_set(
				    a->err, PV_EPARSE,
				    "%s: record %u: a method action of thread %u, which "
				    "the trace does not declare",
				    a->in->name, i, r[i].tid);
				break;
			}
			t = vec_push(&tbs, sizeof(*t));
			if (!t) {
				rc = pv_error_set(a->err, PV_ENOMEM, "%s: out of memory",
						  a->in->name);
				break;
			}
			t->tid = r[i].tid;
			t->th = builder_thread(b, decl->name, a->pid, r[i].tid, 0);
			t->cur = PV_NONE;
			t->next = 0;
		}
		double now = r[i].global / 1000.0;
		if (t->next == 0) {
			t->next = now;
		} else {
			while (t->next < now) {
				emit(a, t, t->next);
				if (honor && now - t->next < 2 * ims) {
					t->next = now;
					break;
				}
				t->next += ims;
			}
		}
		if (r[i].action == 0) {
			pv_frame_ix f = PV_NONE;
			if ((rc = method_frame(a, nsorted, r[i].method, &f, &unknown)))
				break;
			t->cur = builder_stack(b, t->cur, f);
		} else if (t->cur != PV_NONE) {
			t->cur = b->p->stacks.prefix[t->cur];
		}
	}
	for (uint32_t k = 0; !rc && k < tbs.len; k++)
		emit(a, VEC(tbs, struct tb) + k, VEC(tbs, struct tb)[k].next);
	vec_free(&tbs);
	builder_lossy(b, unknown, "methods the trace does not declare (named by their id)");
	return rc;
}

static int probe(const struct pv_input *in)
{
	const unsigned char *d = (const unsigned char *)in->data;
	if (in->len >= 11 && memcmp(d, "*version\n", 9) == 0 && d[9] >= '1' && d[9] <= '3' &&
	    d[10] == '\n')
		return 95;
	if (in->len >= 4 && d[0] == 'S' && d[1] == 'L' && d[2] == 'O' && d[3] == 'W')
		return 95;
	return 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct art *a = pv_calloc(1, sizeof(*a));
	if (!a)
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
	a->b = b;
	a->in = in;
	a->err = err;
	a->d = (const unsigned char *)in->data;
	a->len = in->len;
	a->pid = 1;
	int rc = parse(a);
	if (!rc)
		rc = build(a);
	vec_free(&a->methods);
	vec_free(&a->threads);
	vec_free(&a->recs);
	vec_free(&a->recpos);
	pv_free(a);
	return rc;
}

const struct importer importer_art_trace = {
    .name = "art-trace",
    .description = "Android ART method traces (regular and streaming .trace)",
    .probe = probe,
    .import = import,
};

/*
 * trace.c - Instruments .trace bundles, zipped (the Time Profiler's), read as speedscope's
 * instruments.ts reads them: the bundle's form.template (a binary plist holding an
 * NSKeyedArchiver archive, bplist.h) gives each run's symbols (address -> function and source
 * file), corespace/runN/core/stores/<the store whose schema.xml names time-profile>/bulkstore
 * the samples (timestamp, thread, backtrace), corespace/runN/core/uniquing/arrayUniquer the
 * backtraces (arrays of addresses, or of other arrays). Each thread's samples weigh the time
 * since the thread's previous sample (its first: an empty stack for the time before it), in ns.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/vec.h"
#include "import/importer.h"
#include "import/instruments/bplist.h"
#include "import/zip.h"

#define CORESAMPLER2 "com.apple.xray.instrument-type.coresampler2"
#define MAX_DEPTH    4096 /* nested backtrace arrays: deeper is a cycle */

struct sample {
	uint64_t time;
	uint32_t thread;
	uint32_t backtrace;
};

struct tr {
	struct pv_input *in;
	struct pv_builder *b;
	struct pv_error *err;
	struct zipc *z;
	char *bundle; /* "NAME.trace/" */
	struct karchive ka;
	int64_t form;	      /* form.template's member */
	struct u64map frames; /* address -> frame */
	uint64_t *arr_at;     /* backtrace array k: its values arr_val[arr_at[k] .. arr_at[k+1]) */
	uint64_t *arr_val;
	size_t narr, nval;
	struct u64map stacks; /* backtrace id -> stack */
	pv_frame_ix *walk;    /* the frames of the backtrace being expanded */
	size_t nwalk;
};

/* A member of the bundle by its path in it, inflated when stored as zlib (-1: none). */
static int member(struct tr *t, const char *rel, char **data, size_t *len, int64_t *ix)
{
	char path[512];
	snprintf(path, sizeof(path), "%s%s", t->bundle, rel);
	*ix = zipc_find(t->z, path);
	if (*ix < 0)
		return zipc_fail(
		    t->z, t->form, t->err, PV_EPARSE,
		    "the bundle has no %s (a Time Profiler .trace bundle of Instruments "
		    "8 or later has it)",
		    path);
	int rc = zipc_read(t->z, (size_t)*ix, data, len, t->err);
	if (!rc && zipc_maybe_inflate(data, len))
		rc = pv_error_set(t->err, PV_ENOMEM, "%s: out of memory", t->in->name);
	return rc;
}

static int form_fail(struct tr *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int form_fail(struct tr *t, const char *fmt, ...)
{
	char what[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (t->ka.bp.bad)
		return zipc_fail(t->z, (size_t)t->form, t->err, PV_EPARSE,
				 "byte %" PRIu64 " of the binary plist: expected %s",
				 t->ka.bp.bad_at, t->ka.bp.why);
	return zipc_fail(t->z, (size_t)t->form, t->err, PV_EPARSE, "%s", what);
}

/* The recording's instrument: $top's $1, or the first key of its stubInfoByUUID. */
static int instrument(struct tr *t)
{
	struct karchive *ka = &t->ka;
	struct bp_obj v, o, keys, vals, k;
	bool ok = ka_field(ka, &ka->top, "$1", &v);
	if (ka_field(ka, &ka->top, "stubInfoByUUID", &o) && ka_deref(ka, &o, &o))
		ok = ka_dict(ka, &o, &keys, &vals) && keys.n && ka_elem(ka, &keys, 0, &k) &&
		     (v = k, true);
	bool nomem = false;
	char *name = ok ? ka_string(ka, &v, &nomem) : NULL;
	if (nomem)
		return pv_error_set(t->err, PV_ENOMEM, "%s: out of memory", t->in->name);
	int rc = 0;
	if (!name || strcmp(name, CORESAMPLER2) != 0)
		rc = zipc_fail(t->z, (size_t)t->form, t->err, PV_EFORMAT,
			       "a recording of instrument %s: profview reads the Time Profiler's "
			       "(" CORESAMPLER2 ") .trace bundles, as speedscope does",
			       name ? name : "(none named)");
	pv_free(name);
	return rc;
}

/* The frame of a function named name (NULL: the address in hex) in source path (NULL: none). */
static pv_frame_ix named_frame(struct tr *t, const char *name, const char *path, uint64_t addr)
{
	char hex[24];
	if (!name) {
		snprintf(hex, sizeof(hex), "0x%016" PRIx64, addr);
		name = hex;
	}
	pv_source_ix src = path ? builder_source(t->b, builder_cstr(t->b, path)) : PV_NONE;
	return builder_func_frame(t->b,
				  builder_func(t->b, builder_cstr(t->b, name), PV_NONE, src, 0));
}

/* A PFTSymbolData: each of its addresses ($3, $5, ... up to the first missing or null) is a
 * frame of its name ($0) and source ($1), unless an earlier symbol has it. */
static int symbol(struct tr *t, const struct bp_obj *s)
{
	struct karchive *ka = &t->ka;
	struct bp_obj v;
	bool nomem = false;
	char *name = ka_field(ka, s, "$0", &v) ? ka_string(ka, &v, &nomem) : NULL;
	char *path = ka_field(ka, s, "$1", &v) ? ka_string(ka, &v, &nomem) : NULL;
	int rc = nomem ? PV_ENOMEM : 0;
	for (unsigned i = 3; !rc; i += 2) {
		char ka_addr[16], ka_line[16];
		struct bp_obj a, l;
		uint64_t addr;
		snprintf(ka_addr, sizeof(ka_addr), "$%u", i);
		snprintf(ka_line, sizeof(ka_line), "$%u", i + 1);
		if (!ka_field(ka, s, ka_addr, &a) || !ka_field(ka, s, ka_line, &l) ||
		    !ka_deref(ka, &a, &a) || !ka_deref(ka, &l, &l) || a.kind == BP_NULL ||
		    l.kind == BP_NULL)
			break;
		if (!ka_int(ka, &a, &addr))
			break;
		if (u64map_get(&t->frames, addr) == UINT32_MAX)
			rc = u64map_put(&t->frames, addr, named_frame(t, name, path, addr));
	}
	pv_free(name);
	pv_free(path);
	return rc ? pv_error_set(t->err, PV_ENOMEM, "%s: out of memory", t->in->name) : 0;
}

/* A PFTPersistentSymbols: its symbols $5 .. $(3 + $4). */
static int pid_symbols(struct tr *t, const struct bp_obj *ps)
{
	struct karchive *ka = &t->ka;
	struct bp_obj v, s;
	uint64_t count;
	if (!ka_is(ka, ps, "PFTPersistentSymbols") || !ka_field(ka, ps, "$4", &v) ||
	    !ka_int(ka, &v, &count))
		return form_fail(t, "PFTPersistentSymbols with a symbol count ($4)");
	for (uint64_t i = 1; i < count; i++) {
		char key[32];
		snprintf(key, sizeof(key), "$%" PRIu64, 4 + i);
		if (!ka_field(ka, ps, key, &v) || !ka_deref(ka, &v, &s) || s.kind == BP_NULL)
			continue;
		if (!ka_is(ka, &s, "PFTSymbolData"))
			return form_fail(t, "PFTSymbolData for symbol %s", key);
		int rc = symbol(t, &s);
		if (rc)
			return rc;
	}
	return ka->bp.bad ? form_fail(t, "-") : 0;
}

/* Run number run's symbols: runData[run].symbolsByPid, an XRIntKeyedDictionary of
 * PFTPersistentSymbols. */
static int run_symbols(struct tr *t, const struct bp_obj *run_data, uint64_t run)
{
	struct karchive *ka = &t->ka;
	struct bp_obj keys, vals, k, r, rk, rv, v, sbp;
	uint64_t n, kv;
	if (!ka_dict(ka, run_data, &keys, &vals))
		return form_fail(t, "a dictionary of run data");
	bool found = false;
	for (uint64_t i = 0; i < keys.n && !found; i++)
		if (ka_elem(ka, &keys, i, &k) && ka_int(ka, &k, &kv) && kv == run)
			found = ka_elem(ka, &vals, i, &r);
	if (!found)
		return form_fail(t, "the data of run %" PRIu64, run);
	found = false;
	if (ka_dict(ka, &r, &rk, &rv))
		for (uint64_t i = 0; i < rk.n && !found; i++)
			if (ka_elem(ka, &rk, i, &k) && ka_string_is(ka, &k, "symbolsByPid"))
				found = ka_elem(ka, &rv, i, &sbp);
	if (!found || !ka_is(ka, &sbp, "XRIntKeyedDictionary") || !ka_field(ka, &sbp, "$0", &v) ||
	    !ka_int(ka, &v, &n))
		return form_fail(t, "run %" PRIu64 "'s symbolsByPid (an XRIntKeyedDictionary)",
				 run);
	for (uint64_t i = 0; i < n; i++) {
		char key[32];
		snprintf(key, sizeof(key), "$%" PRIu64, 2 + 2 * i);
		if (!ka_field(ka, &sbp, key, &v) || !ka_deref(ka, &v, &v))
			return form_fail(t, "symbolsByPid's value %s", key);
		int rc = pid_symbols(t, &v);
		if (rc)
			return rc;
	}
	return 0;
}

/* The runs of com.apple.xray.run.data (an XRRunListData: run numbers $0, their data $1). */
static int runs(struct tr *t, uint64_t **nums, size_t *nrun)
{
	struct karchive *ka = &t->ka;
	struct bp_obj v, rl, numbers, items, data, e;
	if (!ka_field(ka, &ka->top, "com.apple.xray.run.data", &v) || !ka_deref(ka, &v, &rl) ||
	    !ka_is(ka, &rl, "XRRunListData") || !ka_field(ka, &rl, "$0", &v) ||
	    !ka_deref(ka, &v, &numbers) || !ka_array(ka, &numbers, &items) ||
	    !ka_field(ka, &rl, "$1", &v) || !ka_deref(ka, &v, &data))
		return form_fail(t, "com.apple.xray.run.data: an XRRunListData of run numbers");
	*nums = pv_calloc(items.n ? items.n : 1, sizeof(**nums));
	if (!*nums)
		return pv_error_set(t->err, PV_ENOMEM, "%s: out of memory", t->in->name);
	for (uint64_t i = 0; i < items.n; i++) {
		if (!ka_elem(ka, &items, i, &e) || !ka_int(ka, &e, &(*nums)[i]))
			return form_fail(t, "run number %" PRIu64 " an integer", i);
		int rc = run_symbols(t, &data, (*nums)[i]);
		if (rc)
			return rc;
	}
	*nrun = items.n;
	return 0;
}

static uint64_t le(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = n; i--;)
		v = v << 8 | p[i];
	return v;
}

/* speedscope's BinReader: a read past the end gives 0 and still moves on. */
static uint64_t rd(const char *d, size_t len, size_t *pos, unsigned n)
{
	size_t at = *pos;
	*pos += n;
	return at + n <= len ? le((const unsigned char *)d + at, n) : 0;
}

/* The backtrace arrays of arrayUniquer/integeruniquer.index and .data. */
static int arrays(struct tr *t, const char *core)
{
	char rel[160], *ix = NULL, *d = NULL;
	size_t ixlen, dlen;
	int64_t im, dm;
	snprintf(rel, sizeof(rel), "%suniquing/arrayUniquer/integeruniquer.index", core);
	int rc = member(t, rel, &ix, &ixlen, &im);
	snprintf(rel, sizeof(rel), "%suniquing/arrayUniquer/integeruniquer.data", core);
	if (!rc)
		rc = member(t, rel, &d, &dlen, &dm);
	size_t nidx = ixlen > 32 ? (ixlen - 32 + 7) / 8 : 0;
	if (!rc && !(t->arr_at = pv_calloc(nidx + 1, sizeof(*t->arr_at))))
		rc = PV_ENOMEM;
	struct vec vals = {0};
	for (size_t p = 32; !rc && p < ixlen;) {
		uint64_t off = rd(ix, ixlen, &p, 4) + rd(ix, ixlen, &p, 4) * (1024 * 1024);
		if (off == 0)
			continue;
		size_t q = (size_t)off;
		uint64_t n = rd(d, dlen, &q, 4);
		if (off > dlen || n > (dlen - off) / 8 + 1)
			rc = zipc_fail(t->z, (size_t)dm, t->err, PV_EPARSE,
				       "byte %" PRIu64 ": an array of %" PRIu64
				       " 8-byte values within the %zu bytes",
				       off, n, dlen);
		t->arr_at[t->narr++] = t->nval;
		for (uint64_t i = 0; !rc && i < n; i++) {
			uint64_t *w = vec_push(&vals, sizeof(uint64_t));
			if (!w)
				rc = PV_ENOMEM;
			else
				*w = rd(d, dlen, &q, 8), t->nval++;
		}
	}
	t->arr_at[t->narr] = t->nval;
	t->arr_val = vals.p;
	pv_free(ix);
	pv_free(d);
	return rc == PV_ENOMEM ? pv_error_set(t->err, rc, "%s: out of memory", t->in->name) : rc;
}

/* The samples of the run's time-profile store (the first whose schema.xml names it). */
static int samples(struct tr *t, const char *core, struct vec *out)
{
	char prefix[160], rel[200];
	snprintf(prefix, sizeof(prefix), "%s%sstores/", t->bundle, core);
	size_t pl = strlen(prefix);
	for (size_t i = 0; i < zipc_count(t->z); i++) {
		const char *name = zipc_name(t->z, i);
		size_t nl = strlen(name);
		if (strncmp(name, prefix, pl) != 0 || nl < pl + 11 ||
		    strcmp(name + nl - 11, "/schema.xml") != 0 || !zipc_is_content(t->z, i))
			continue;
		char *d = NULL;
		size_t len;
		int64_t m;
		snprintf(rel, sizeof(rel), "%.*s", (int)(nl - strlen(t->bundle)),
			 name + strlen(t->bundle));
		int rc = member(t, rel, &d, &len, &m);
		bool hit = !rc && memmem(d, len, "name=\"time-profile\"", 19);
		pv_free(d);
		if (rc)
			return rc;
		if (!hit)
			continue;
		snprintf(rel + strlen(rel) - 10, 11, "bulkstore");
		if ((rc = member(t, rel, &d, &len, &m)))
			return rc;
		size_t p = 12;
		size_t header = (size_t)rd(d, len, &p, 4), per = (size_t)rd(d, len, &p, 4);
		if (per < 14) {
			pv_free(d);
			return zipc_fail(t->z, (size_t)m, t->err, PV_EPARSE,
					 "byte 16: entries of at least 14 bytes, not %zu", per);
		}
		for (p = header;;) {
			uint64_t time = rd(d, len, &p, 6);
			if (!time)
				break;
			struct sample *s = vec_push(out, sizeof(*s));
			if (!s) {
				pv_free(d);
				return pv_error_set(t->err, PV_ENOMEM, "%s: out of memory",
						    t->in->name);
			}
			s->time = time;
			s->thread = (uint32_t)rd(d, len, &p, 4);
			p += per - 14;
			s->backtrace = (uint32_t)rd(d, len, &p, 4);
		}
		pv_free(d);
		return 0;
	}
	return zipc_fail(t->z, (size_t)t->form, t->err, PV_EPARSE,
			 "no store of %s names time-profile in its schema.xml (no samples)",
			 prefix);
}

/* Appends backtrace k's frames (leaf first) to t->walk. */
static int expand(struct tr *t, uint64_t k, unsigned depth)
{
	uint32_t f = u64map_get(&t->frames, k);
	if (f == UINT32_MAX && k < t->narr) {
		if (depth > MAX_DEPTH)
			return pv_error_set(t->err, PV_EPARSE,
					    "%s: backtrace arrays nested over %d deep (a cycle)",
					    t->in->name, MAX_DEPTH);
		for (uint64_t i = t->arr_at[k]; i < t->arr_at[k + 1]; i++) {
			int rc = expand(t, t->arr_val[i], depth + 1);
			if (rc)
				return rc;
		}
		return 0;
	}
	if (f == UINT32_MAX) {
		f = named_frame(t, NULL, NULL, k);
		if (u64map_put(&t->frames, k, f))
			return PV_ENOMEM;
	}
	pv_frame_ix *w = pv_realloc(t->walk, (t->nwalk + 1) * sizeof(*w));
	if (!w)
		return PV_ENOMEM;
	t->walk = w;
	t->walk[t->nwalk++] = f;
	return 0;
}

/* The stack of backtrace id (root first). */
static int stack_of(struct tr *t, uint32_t id, pv_stack_ix *out)
{
	uint32_t s = u64map_get(&t->stacks, id);
	if (s != UINT32_MAX) {
		*out = s;
		return 0;
	}
	t->nwalk = 0;
	int rc = expand(t, id, 0);
	if (rc)
		return rc == PV_ENOMEM ? pv_error_set(t->err, rc, "%s: out of memory", t->in->name)
				       : rc;
	pv_stack_ix st = PV_NONE;
	for (size_t i = t->nwalk; i--;)
		st = builder_stack(t->b, st, t->walk[i]);
	*out = st;
	return u64map_put(&t->stacks, id, st) ? pv_error_set(t->err, PV_ENOMEM, "out of memory")
					      : 0;
}

struct thread_count {
	uint32_t id, n, first;
};

static int by_count(const void *a, const void *b)
{
	const struct thread_count *x = a, *y = b;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* One thread's samples, each weighing the time since the previous one (speedscope's). */
static int thread_samples(struct tr *t, const struct sample *s, size_t n, uint32_t id,
			  uint64_t *zero)
{
	pv_thread_ix th =
	    builder_thread(t->b, builder_strf(t->b, "thread %" PRIu32, id), PV_ID_NONE, id, 0);
	uint64_t last = 0;
	bool first = true;
	for (size_t i = 0; i < n; i++) {
		if (s[i].thread != id)
			continue;
		if (first) {
			int64_t w0 = (int64_t)s[i].time;
			builder_sample(t->b, th, PV_NONE, 0, &w0);
			last = s[i].time;
			first = false;
		}
		if (s[i].time < last)
			return pv_error_set(t->err, PV_EPARSE,
					    "%s: thread %" PRIu32
					    "'s samples out of time order (%" PRIu64
					    " ns after %" PRIu64 " ns)",
					    t->in->name, id, s[i].time, last);
		int64_t w = (int64_t)(s[i].time - last);
		last = s[i].time;
		if (!w) {
			(*zero)++;
			continue;
		}
		pv_stack_ix st = PV_NONE;
		int rc = stack_of(t, s[i].backtrace, &st);
		if (rc)
			return rc;
		builder_sample(t->b, th, st, (int64_t)s[i].time, &w);
	}
	return 0;
}

/* The run's threads, the busiest first (speedscope's order). */
static int run_threads(struct tr *t, const struct sample *s, size_t n, uint64_t *zero)
{
	struct thread_count *c = pv_calloc(n ? n : 1, sizeof(*c));
	size_t nc = 0;
	struct u64map ix = {0};
	int rc = c ? 0 : PV_ENOMEM;
	for (size_t i = 0; !rc && i < n; i++) {
		uint32_t k = u64map_get(&ix, s[i].thread);
		if (k == UINT32_MAX) {
			c[nc] = (struct thread_count){s[i].thread, 0, (uint32_t)i};
			rc = u64map_put(&ix, s[i].thread, (uint32_t)nc);
			k = (uint32_t)nc++;
		}
		c[k].n++;
	}
	u64map_release(&ix);
	if (rc) {
		pv_free(c);
		return pv_error_set(t->err, rc, "%s: out of memory", t->in->name);
	}
	qsort(c, nc, sizeof(*c), by_count);
	for (size_t i = 0; !rc && i < nc; i++)
		rc = thread_samples(t, s, n, c[i].id, zero);
	pv_free(c);
	return rc;
}

static int read_run(struct tr *t, uint64_t run, uint64_t *zero)
{
	char core[64];
	struct vec sv = {0};
	snprintf(core, sizeof(core), "corespace/run%" PRIu64 "/core/", run);
	t->narr = t->nval = 0;
	pv_free(t->arr_at);
	pv_free(t->arr_val);
	t->arr_at = NULL;
	t->arr_val = NULL;
	u64map_release(&t->stacks);
	memset(&t->stacks, 0, sizeof(t->stacks));
	int rc = samples(t, core, &sv);
	if (!rc)
		rc = arrays(t, core);
	if (!rc)
		rc = run_threads(t, sv.p, sv.len, zero);
	vec_free(&sv);
	return rc;
}

static int read_bundle(struct tr *t)
{
	char *form = NULL;
	size_t len;
	int rc = member(t, "form.template", &form, &len, &t->form);
	if (rc)
		return rc;
	uint64_t *nums = NULL, zero = 0;
	size_t nrun = 0;
	if (!ka_open(&t->ka, form, len))
		rc = form_fail(t, "-");
	if (!rc)
		rc = instrument(t);
	if (!rc)
		rc = runs(t, &nums, &nrun);
	pv_metric_ix m = builder_metric(t->b, builder_cstr(t->b, "time"), PV_UNIT_NS);
	(void)m;
	for (size_t i = 0; !rc && i < nrun; i++)
		rc = read_run(t, nums[i], &zero);
	if (!rc)
		builder_lossy(
		    t->b, zero,
		    "samples of no time since the previous one (each thread's first among "
		    "them): weight 0, left out as speedscope does");
	pv_free(nums);
	pv_free(form);
	return rc;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct tr t = {.in = in, .b = b, .err = err};
	int rc = zipc_open(in, &t.z, err);
	if (rc)
		return rc;
	t.bundle = zipc_trace_bundle(t.z);
	if (!t.bundle)
		rc = input_fail_byte(in, err, PV_EFORMAT, 0,
				     "a zip without an Instruments .trace bundle (NAME.trace/"
				     "form.template)");
	else
		rc = read_bundle(&t);
	u64map_release(&t.frames);
	u64map_release(&t.stacks);
	pv_free(t.arr_at);
	pv_free(t.arr_val);
	pv_free(t.walk);
	pv_free(t.bundle);
	zipc_close(t.z);
	return rc;
}

static int probe(const struct pv_input *in)
{
	struct zipc *z;
	if (!zipc_is(in) || zipc_open(in, &z, NULL))
		return 0;
	char *bundle = zipc_trace_bundle(z);
	zipc_close(z);
	pv_free(bundle);
	return bundle ? 100 : 0;
}

const struct importer importer_instruments_trace = {
    .name = "instruments-trace",
    .description = "Apple Instruments .trace bundle, zipped (Time Profiler)",
    .probe = probe,
    .import = import,
};

/*
 * perf.data's records beside the samples and the samples' variable-size fields
 * (src/import/perf/perf_data.c, doc/perf-data.md "What is lossy"):
 *
 *  - files written here (a small perf.data writer: the header, attributes with their ids,
 *    records laid out as include/uapi/linux/perf_event.h says) with every sample_type field,
 *    read groups, branch stacks with and without hw_idx, registers, raw data and the fields
 *    after the user stack, then LOST, LOST_SAMPLES, THROTTLE, AUX, ... records: each sample's
 *    thread, time, period and stack, and each lossy line's count, computed by hand; perf itself
 *    reads the same files (perf script, perf report --stats), where it is installed;
 *  - recordings made now where perf may record: LOST records of a tiny ring buffer (their
 *    counts as perf report -D prints them), a read group (`{cpu-clock,task-clock}:S`) against
 *    perf script. What this machine's perf cannot record (THROTTLE of a virtual CPU's
 *    cpu-clock, branch stacks without LBR, AUX without a PMU that has one) only the written files
 *    check.
 *
 * PV_TEST_KEEP=1 keeps the written files (/tmp/pv-records-*: fuzz/corpus/perf-data's records-*
 * seeds are three of them).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __linux__ /* the kernel's own layout of the file: linux/perf_event.h */
#include <linux/perf_event.h>

#include "perf_test.h"
#include "pv/import.h"
#include "t.h"
#include "tp.h"

/* ---------------------------------------------------------------- a perf.data writer */

#define SW PERF_TYPE_SOFTWARE
/* PERF_SAMPLE_BRANCH_COUNTERS (Linux 6.8: a u64 of counters per branch entry, after them) */
#define BRANCH_COUNTERS (1ull << 19)
#define FILL		0xffffffffffffffffull /* fields not read: a size misread from them is huge */

struct buf {
	unsigned char *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *x, size_t n)
{
	if (n == 0) /* memcpy's source may not be NULL, even for no bytes */
		return;
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		b->p = realloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, x, n);
	b->n += n;
}

static void u64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void u32(struct buf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void fill(struct buf *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put(b, "\xff", 1);
}

/* A string, NUL-terminated, padded to 8 bytes. */
static void str8(struct buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	put(b, s, n);
	put(b, "\0\0\0\0\0\0\0", (8 - n % 8) % 8);
}

/* An event: perf_event_attr's fields that matter here, and its ids. */
struct wattr {
	uint32_t type;
	uint64_t config, sample_type, read_format, branch_type, regs_user, regs_intr;
	uint64_t ids[2];
};

/* The records being written (after the attributes). */
struct wfile {
	struct buf d;
	const struct wattr *a; /* na events; records carry the first's sample_id_all fields */
	uint32_t na;
};

static size_t rec_begin(struct wfile *w, uint32_t type, uint16_t misc)
{
	size_t at = w->d.n;
	u32(&w->d, type);
	put(&w->d, &misc, 2);
	put(&w->d, "\0", 2); /* the size, set by rec_end */
	return at;
}

/* The record's end: a non-sample record's sample_id_all fields (the first event's), its size. */
static void rec_end(struct wfile *w, size_t at, bool trailer, uint32_t tid, uint64_t time)
{
	uint64_t t = w->a[0].sample_type;
	if (trailer) {
		if (t & PERF_SAMPLE_TID) {
			u32(&w->d, tid);
			u32(&w->d, tid);
		}
		if (t & PERF_SAMPLE_TIME)
			u64(&w->d, time);
		if (t & PERF_SAMPLE_ID)
			u64(&w->d, w->a[0].ids[0]);
		if (t & PERF_SAMPLE_STREAM_ID)
			u64(&w->d, FILL);
		if (t & PERF_SAMPLE_CPU)
			u64(&w->d, 0);
		if (t & PERF_SAMPLE_IDENTIFIER)
			u64(&w->d, w->a[0].ids[0]);
	}
	uint16_t size = (uint16_t)(w->d.n - at);
	memcpy(w->d.p + at + 6, &size, 2);
}

/* A thread tid of its own process, named comm, with liba.so at 0x10000 and libb.so at 0x20000
 * (0x1000 bytes each, libb.so from its file's offset 0x3000). */
static void thread_maps(struct wfile *w, uint32_t tid, uint64_t time)
{
	size_t at = rec_begin(w, PERF_RECORD_COMM, 0);
	u32(&w->d, tid);
	u32(&w->d, tid);
	str8(&w->d, "synth");
	rec_end(w, at, true, tid, time);
	static const char *const path[] = {"/nonexistent/liba.so", "/nonexistent/libb.so"};
	for (int m = 0; m < 2; m++) {
		at = rec_begin(w, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
		u32(&w->d, tid);
		u32(&w->d, tid);
		u64(&w->d, 0x10000 * (uint64_t)(m + 1)); /* start, length, file offset */
		u64(&w->d, 0x1000);
		u64(&w->d, m ? 0x3000 : 0);
		u64(&w->d, 0); /* maj, min */
		u64(&w->d, 0); /* ino, ino_generation */
		u64(&w->d, 0);
		u32(&w->d, 5); /* PROT_READ | PROT_EXEC */
		u32(&w->d, 2); /* MAP_PRIVATE */
		str8(&w->d, path[m]);
		rec_end(w, at, true, tid, time);
	}
}

/* A sample's values; the fields not listed are written FILL (or a valid size). */
struct wsample {
	uint32_t attr; /* the event's index in the file (its ids[0] written) */
	uint32_t tid;
	uint64_t time, period;
	const uint64_t *chain; /* nchain entries, a marker first */
	uint32_t nchain;
	const uint64_t *read; /* nread (value, id) pairs */
	uint32_t nread;
	uint32_t raw, nbranch, ustack; /* bytes of raw data (4 + raw a multiple of 8), branch
					  entries, bytes of the user stack copy */
};

static void sample_read(struct buf *b, const struct wattr *a, const struct wsample *s)
{
	uint64_t rf = a->read_format;
	if (rf & PERF_FORMAT_GROUP) {
		u64(b, s->nread);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			u64(b, FILL);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			u64(b, FILL);
	}
	for (uint32_t i = 0; i < s->nread; i++) {
		u64(b, s->read[2 * i]);
		if (!(rf & PERF_FORMAT_GROUP) && (rf & PERF_FORMAT_TOTAL_TIME_ENABLED))
			u64(b, FILL);
		if (!(rf & PERF_FORMAT_GROUP) && (rf & PERF_FORMAT_TOTAL_TIME_RUNNING))
			u64(b, FILL);
		if (rf & PERF_FORMAT_ID)
			u64(b, s->read[2 * i + 1]);
		if (rf & PERF_FORMAT_LOST)
			u64(b, FILL);
	}
}

/* The fields after the period, in perf_event.h's order. */
static void sample_tail(struct buf *b, const struct wattr *a, const struct wsample *s)
{
	uint64_t t = a->sample_type;
	if (t & PERF_SAMPLE_READ)
		sample_read(b, a, s);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		u64(b, s->nchain);
		put(b, s->chain, 8 * (size_t)s->nchain);
	}
	if (t & PERF_SAMPLE_RAW) {
		u32(b, s->raw);
		fill(b, s->raw);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		u64(b, s->nbranch);
		if (a->branch_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			u64(b, FILL);
		fill(b, 24 * (size_t)s->nbranch); /* from, to, flags */
		if (a->branch_type & BRANCH_COUNTERS)
			fill(b, 8 * (size_t)s->nbranch);
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		u64(b, 2); /* PERF_SAMPLE_REGS_ABI_64 */
		fill(b, 8 * (size_t)__builtin_popcountll(a->regs_user));
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		u64(b, s->ustack);
		fill(b, s->ustack);
		if (s->ustack)
			u64(b, s->ustack / 2); /* dyn_size */
	}
	int words = !!(t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) +
		    !!(t & PERF_SAMPLE_DATA_SRC) + !!(t & PERF_SAMPLE_TRANSACTION);
	fill(b, 8 * (size_t)words);
	if (t & PERF_SAMPLE_REGS_INTR) {
		u64(b, 2);
		fill(b, 8 * (size_t)__builtin_popcountll(a->regs_intr));
	}
	words = !!(t & PERF_SAMPLE_PHYS_ADDR) + !!(t & PERF_SAMPLE_CGROUP) +
		!!(t & PERF_SAMPLE_DATA_PAGE_SIZE) + !!(t & PERF_SAMPLE_CODE_PAGE_SIZE);
	fill(b, 8 * (size_t)words);
	if (t & PERF_SAMPLE_AUX) {
		u64(b, 16);
		fill(b, 16);
	}
}

/* A SAMPLE record of the first event, in user mode, its ip the chain's first address. */
static void sample(struct wfile *w, const struct wsample *s)
{
	const struct wattr *a = &w->a[s->attr];
	uint64_t t = a->sample_type;
	size_t at = rec_begin(w, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	struct buf *b = &w->d;
	if (t & PERF_SAMPLE_IDENTIFIER)
		u64(b, a->ids[0]);
	if (t & PERF_SAMPLE_IP)
		u64(b, s->nchain > 1 ? s->chain[1] : FILL);
	if (t & PERF_SAMPLE_TID) {
		u32(b, s->tid);
		u32(b, s->tid);
	}
	if (t & PERF_SAMPLE_TIME)
		u64(b, s->time);
	if (t & PERF_SAMPLE_ADDR)
		u64(b, FILL);
	if (t & PERF_SAMPLE_ID)
		u64(b, a->ids[0]);
	if (t & PERF_SAMPLE_STREAM_ID)
		u64(b, FILL);
	if (t & PERF_SAMPLE_CPU)
		u64(b, 0);
	if (t & PERF_SAMPLE_PERIOD)
		u64(b, s->period);
	sample_tail(b, a, s);
	rec_end(w, at, false, 0, 0);
}

/*
 * The whole file (free it) at path: the header, the attributes (128 bytes each, then their ids'
 * section), their ids, the records; no feature section.
 */
static bool write_file(const char *path, const struct wfile *w)
{
	struct buf f = {0};
	size_t attrs = 104, ids = attrs + (size_t)w->na * (128 + 16), data = ids + 16 * w->na;
	u64(&f, 0x32454c4946524550ull); /* "PERFILE2" */
	u64(&f, 104);
	u64(&f, 128 + 16);
	u64(&f, attrs);
	u64(&f, (size_t)w->na * (128 + 16));
	u64(&f, data);
	u64(&f, w->d.n);
	u64(&f, 0); /* event types: none */
	u64(&f, 0);
	for (int i = 0; i < 4; i++) /* the feature bitmap: none */
		u64(&f, 0);
	for (uint32_t i = 0; i < w->na; i++) {
		const struct wattr *a = &w->a[i];
		u32(&f, a->type);
		u32(&f, 128);
		u64(&f, a->config);
		u64(&f, 1000); /* sample_period */
		u64(&f, a->sample_type);
		u64(&f, a->read_format);
		u64(&f,
		    1ull << 18 | 1ull << 20); /* sample_id_all, exclude_guest (as perf record) */
		u64(&f, 0);		      /* wakeup_events, bp_type */
		u64(&f, 0);		      /* config1, config2 */
		u64(&f, 0);
		u64(&f, a->branch_type);
		u64(&f, a->regs_user);
		u64(&f, 8192); /* sample_stack_user, clockid */
		u64(&f, a->regs_intr);
		for (int k = 0; k < 3; k++) /* aux_watermark ... sig_data */
			u64(&f, 0);
		u64(&f, ids + 16 * i);
		u64(&f, 16);
	}
	for (uint32_t i = 0; i < w->na; i++) {
		u64(&f, w->a[i].ids[0]);
		u64(&f, w->a[i].ids[1]);
	}
	put(&f, w->d.p, w->d.n);
	FILE *o = fopen(path, "wb");
	bool ok = o && fwrite(f.p, 1, f.n, o) == f.n;
	if (o)
		ok = fclose(o) == 0 && ok;
	free(f.p);
	T_TRUE(ok);
	return ok;
}

/* The folder of written files removed, unless PV_TEST_KEEP keeps it (the fuzz seeds' origin). */
static void drop_written(const char *dir)
{
	if (!getenv("PV_TEST_KEEP"))
		run("rm -rf '%s'", dir);
}

/* ---------------------------------------------------------------- reading them back */

static struct pv_profile *import(const char *path)
{
	struct pv_import_opts o = {.format = "perf-data"};
	struct pv_profile *p = NULL;
	struct pv_error err;
	if (pv_import_open(path, &o, &p, &err, NULL)) {
		t_fail(__FILE__, __LINE__, "%s", err.msg);
		return NULL;
	}
	struct pv_error verr;
	if (pv_profile_validate(p, &verr))
		t_fail(__FILE__, __LINE__, "%s", verr.msg);
	return p;
}

/* Sample i as "METRIC PERIOD @TIME: [module] [module] ... leaf 0xADDR" (the stack leaf first). */
static void sample_text(const struct pv_profile *p, uint32_t i, char *out, size_t cap)
{
	size_t n = 0;
	for (pv_metric_ix m = 0; m < p->metrics.len; m++)
		if (pv_sample_weight(p, m, i))
			n += (size_t)snprintf(out + n, cap - n, "%s %lld ",
					      pv_str(p, p->metrics.name[m]),
					      (long long)pv_sample_weight(p, m, i));
	n += (size_t)snprintf(out + n, cap - n, "@%lld:", (long long)pv_sample_time(p, i));
	for (pv_stack_ix st = p->samples.stack[i]; st != PV_NONE && n < cap;
	     st = p->stacks.prefix[st]) {
		pv_module_ix m = pv_func_module(p, p->frames.func[p->stacks.frame[st]]);
		n += (size_t)snprintf(out + n, cap - n, " [%s]",
				      m == PV_NONE ? "" : pv_str(p, p->modules.name[m]));
	}
	if (n < cap)
		snprintf(out + n, cap - n, " leaf 0x%llx",
			 (unsigned long long)pv_sample_addr(p, i));
}

/* Every sample of p as want says, in order. */
static void check_samples(const struct pv_profile *p, const char *const *want, uint32_t n,
			  const char *what)
{
	T_EQ_INT(p->samples.len, n);
	char got[512];
	for (uint32_t i = 0; i < n && i < p->samples.len; i++) {
		sample_text(p, i, got, sizeof(got));
		if (strcmp(got, want[i]))
			t_fail(__FILE__, __LINE__, "%s: sample %u: %s, expected %s", what, i, got,
			       want[i]);
	}
}

/* The lossy line holding needle counts want (0: no such line). */
static void check_lossy(const struct pv_profile *p, const char *needle, uint64_t want)
{
	uint64_t got = 0;
	t_diag(p, needle, &got);
	if (got != want)
		t_fail(__FILE__, __LINE__, "lossy \"%s\": %llu, expected %llu", needle,
		       (unsigned long long)got, (unsigned long long)want);
}

/*
 * perf's own reading of the written file, where perf is installed: `perf script` of it (the
 * perf script importer) has the import's samples (compare_samples: thread, time, period of the
 * first event, stack by module).
 */
static void against_perf_script(const char *path, const struct pv_profile *nat)
{
	char txt[128];
	snprintf(txt, sizeof(txt), "%s.txt", path);
	if (run("perf script -i '%s' --ns -F comm,tid,time,period,event,ip,sym,dso > '%s' "
		"2>/dev/null",
		path, txt) != 0) {
		printf("# perf script cannot be run here: %s checked by hand only\n", path);
		return;
	}
	struct pv_profile *text = t_load_as(txt, "perf-script");
	if (text && nat)
		compare_samples(text, nat, true);
	pv_profile_free(text);
}

/* ---------------------------------------------------------------- the written files */

/*
 * Three samples of thread 100 at 1000, 1100 and 1200 ns, their stacks three, one and two frames
 * deep in liba.so and libb.so, every field of the event's sample_type written (the fields the
 * importer skips filled with 0xff bytes: a size misread from them fails or shifts the stack of
 * a later sample). rv: the (value, id) pairs each sample reads (read_format), nread per sample;
 * ustack: user stack copies of 0, 8 and 16 bytes (else none: perf script would unwind them and,
 * failing, print the sampled address alone where the import keeps the chain, a file the kernel
 * never writes: with a user stack it records no user entries in the chain).
 */
static void three_samples(struct wfile *w, const uint64_t rv[3][6], uint32_t nread, bool ustack)
{
	static const uint64_t c0[] = {PERF_CONTEXT_USER, 0x10010, 0x20020, 0x10030},
			      c1[] = {PERF_CONTEXT_USER, 0x20040},
			      c2[] = {PERF_CONTEXT_USER, 0x10050, 0x20060};
	static const uint64_t *const chain[] = {c0, c1, c2};
	static const uint32_t nchain[] = {4, 2, 3};
	thread_maps(w, 100, 900);
	for (uint32_t k = 0; k < 3; k++) {
		struct wsample s = {.tid = 100,
				    .time = 1000 + 100 * k,
				    .period = 7 + k,
				    .chain = chain[k],
				    .nchain = nchain[k],
				    .read = rv ? rv[k] : NULL,
				    .nread = nread,
				    .raw = 4 + 8 * k, /* 4 + raw: 8, 16, 24 */
				    .nbranch = k,
				    .ustack = ustack ? 8 * k : 0};
		sample(w, &s);
	}
}

/* The stacks of three_samples, leaf first: "[liba.so] ..." and the leaf's address. */
#define STACK0 " [liba.so] [libb.so] [liba.so] leaf 0x10"
#define STACK1 " [libb.so] leaf 0x3040"
#define STACK2 " [liba.so] [libb.so] leaf 0x50"

/*
 * Every field of sample_type (IDENTIFIER ... CODE_PAGE_SIZE, AUX; WEIGHT), a read group with
 * both times, ids and lost counts, branch stacks with hw_idx, user and interrupt registers, raw
 * data, a user stack copy (unwinding refused: the registers it needs are not recorded): per
 * group member value a sample of its event, its period the value less the one before (perf's
 * rule: a value that did not grow makes none, one of an unknown id neither).
 */
T_TEST(perf_records_every_sample_field_read_group)
{
	uint64_t all = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		       PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
		       PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
		       PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
		       PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
		       PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |
		       PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_AUX |
		       PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE;
	uint64_t rf = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
		      PERF_FORMAT_ID | PERF_FORMAT_GROUP | PERF_FORMAT_LOST;
	uint64_t br = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
	struct wattr a[2] = {{SW, PERF_COUNT_SW_CPU_CLOCK, all, rf, br, 0x7, 0x3, {11, 12}},
			     {SW, PERF_COUNT_SW_TASK_CLOCK, all, rf, br, 0x7, 0x3, {21, 22}}};
	/* cpu-clock (id 11) 1000, 2500, 4000; task-clock (id 21) 3000, 3000, 7000; id 99 none */
	static const uint64_t rv[3][6] = {
	    {1000, 11, 3000, 21, 5, 99}, {2500, 11, 3000, 21, 5, 99}, {4000, 11, 7000, 21, 6, 99}};
	struct wfile w = {.a = a, .na = 2};
	three_samples(&w, rv, 3, false);
	char dir[64], path[96];
	if (!temp_dir(dir, "records"))
		return;
	snprintf(path, sizeof(path), "%s/all.data", dir);
	struct pv_profile *p = write_file(path, &w) ? import(path) : NULL;
	static const char *const want[] = {
	    "cpu-clock 1000 @0:" STACK0,    "task-clock 3000 @0:" STACK0,
	    "cpu-clock 1500 @100:" STACK1,  "cpu-clock 1500 @200:" STACK2,
	    "task-clock 4000 @200:" STACK2,
	};
	if (p) {
		check_samples(p, want, 5, "every field");
		check_lossy(p, "samples' branch stacks not kept", 3);
		check_lossy(p, "of an event id with no attribute not used", 3);
		check_lossy(p, "without event ids", 0);
		against_perf_script(path, p);
	}
	pv_profile_free(p);
	free(w.d.p);
	drop_written(dir);
}

/*
 * Samples without a call chain (their stack the sampled address): a lone counter value
 * (read_format without GROUP: the value before its times) and branch stacks without hw_idx;
 * branch stacks with hw_idx and no read, then with branch counters too; all with raw data, user
 * registers and user stack copies of 0, 8 and 16 bytes (unwinding refused, counted: the registers
 * it needs are not recorded) and a WEIGHT_STRUCT.
 */
T_TEST(perf_records_lone_read_value_hw_idx_counters)
{
	uint64_t t = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
		     PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK |
		     PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT_STRUCT |
		     PERF_SAMPLE_DATA_SRC;
	uint64_t rf = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID, any = PERF_SAMPLE_BRANCH_ANY,
		 hw = any | PERF_SAMPLE_BRANCH_HW_INDEX;
	struct wattr a[3] = {
	    {SW, PERF_COUNT_SW_CPU_CLOCK, t | PERF_SAMPLE_READ, rf, any, 0x7, 0, {11, 12}},
	    {SW, PERF_COUNT_SW_CPU_CLOCK, t, 0, hw, 0x7, 0, {11, 12}},
	    {SW, PERF_COUNT_SW_CPU_CLOCK, t, 0, hw | BRANCH_COUNTERS, 0x7, 0, {11, 12}}};
	/* the lone value of id 11: 500, 500 (no sample), 1250 */
	static const uint64_t rv[3][6] = {{500, 11}, {500, 11}, {1250, 11}};
	static const char *const want[2][3] = {
	    {"cpu-clock 500 @0: [liba.so] leaf 0x10", "cpu-clock 750 @200: [liba.so] leaf 0x50"},
	    {"cpu-clock 7 @0: [liba.so] leaf 0x10", "cpu-clock 8 @100: [libb.so] leaf 0x3040",
	     "cpu-clock 9 @200: [liba.so] leaf 0x50"},
	};
	static const char *const what[] = {"lone value", "hw_idx", "hw_idx and branch counters"};
	char dir[64], path[96];
	if (!temp_dir(dir, "records"))
		return;
	for (int v = 0; v < 3; v++) {
		struct wfile w = {.a = &a[v], .na = 1};
		three_samples(&w, v ? NULL : rv, v ? 0 : 1, true);
		snprintf(path, sizeof(path), "%s/v%d.data", dir, v);
		struct pv_profile *p = write_file(path, &w) ? import(path) : NULL;
		if (p) {
			check_samples(p, want[v ? 1 : 0], v ? 3 : 2, what[v]);
			check_lossy(p, "samples' branch stacks not kept", 3);
			check_lossy(p, "the registers the unwinder needs (ip, sp, bp) not recorded",
				    2);
			if (v < 2) /* perf 6.1 knows no branch counters */
				against_perf_script(path, p);
		}
		pv_profile_free(p);
		free(w.d.p);
	}
	drop_written(dir);
}

/*
 * Two events (cpu-clock, then task-clock in the file's attributes, as `perf record -e cpu-clock
 * -e task-clock` writes them) whose first sample is task-clock's: the metrics are in the
 * attributes' order all the same (perf report's), not in the order of their first samples,
 * which changes from run to run (a recorded test saw both).
 */
T_TEST(perf_records_metrics_in_attribute_order)
{
	uint64_t t = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		     PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	struct wattr a[2] = {{SW, PERF_COUNT_SW_CPU_CLOCK, t, 0, 0, 0, 0, {21, 22}},
			     {SW, PERF_COUNT_SW_TASK_CLOCK, t, 0, 0, 0, 0, {31, 32}}};
	static const uint64_t chain[] = {PERF_CONTEXT_USER, 0x10010};
	struct wfile w = {.a = a, .na = 2};
	thread_maps(&w, 100, 0);
	sample(&w,
	       &(struct wsample){
		   .attr = 1, .tid = 100, .time = 100, .period = 7, .chain = chain, .nchain = 2});
	sample(&w,
	       &(struct wsample){
		   .attr = 0, .tid = 100, .time = 200, .period = 5, .chain = chain, .nchain = 2});
	static const char *const want[] = {"task-clock 7 @0: [liba.so] leaf 0x10",
					   "cpu-clock 5 @100: [liba.so] leaf 0x10"};
	char dir[64], path[96];
	if (!temp_dir(dir, "order"))
		return;
	snprintf(path, sizeof(path), "%s/order.data", dir);
	struct pv_profile *p = write_file(path, &w) ? import(path) : NULL;
	if (p) {
		T_EQ_INT(p->metrics.len, 2);
		T_EQ_STR(pv_str(p, p->metrics.name[0]), "cpu-clock");
		T_EQ_STR(pv_str(p, p->metrics.name[1]), "task-clock");
		check_samples(p, want, 2, "task-clock first");
	}
	pv_profile_free(p);
	free(w.d.p);
	drop_written(dir);
}

/* A record of type with the u64 words body (n of them), then the sample_id_all fields. */
static void record(struct wfile *w, uint32_t type, const uint64_t *body, uint32_t n, uint64_t time)
{
	size_t at = rec_begin(w, type, 0);
	put(&w->d, body, 8 * (size_t)n);
	rec_end(w, at, true, 100, time);
}

/* The number the shell command made from fmt prints, -1 when none. */
static long long command_number(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static long long command_number(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	FILE *f = popen(cmd, "r");
	long long n = -1;
	if (f && fscanf(f, "%lld", &n) != 1)
		n = -1;
	if (f)
		pclose(f);
	return n;
}

/* perf report --stats's line of records of a type ("LOST"): its count */
#define PERF_STATS                                                                            \
	"perf report --stats -i '%s' 2>/dev/null | awk '$1 == \"%s\" && $2 == \"events:\" { " \
	"print $3; exit }'"

/*
 * Between the samples, records of every type the model has no place for: LOST (events lost:
 * their sum), LOST_SAMPLES (their sum), THROTTLE (counted), UNTHROTTLE, AUX, ITRACE_START,
 * SWITCH, SWITCH_CPU_WIDE, READ, CGROUP, KSYMBOL, AUX_OUTPUT_HW_ID (each "NAME records not used")
 * and a type no perf knows: each lossy line with its count, the samples whole. perf report
 * --stats counts the same records in the file (perf knows no type 40: that one is in a file of
 * its own).
 */
T_TEST(perf_records_lossy_counts)
{
	uint64_t t = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
		     PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	struct wattr a = {SW, PERF_COUNT_SW_CPU_CLOCK, t, 0, 0, 0, 0, {11, 12}};
	struct wfile w = {.a = &a, .na = 1};
	three_samples(&w, NULL, 0, false);
	/* the bodies, before the sample_id_all fields */
	static const uint64_t lost[] = {11, 5}, lost2[] = {11, 7}, /* id, lost */
	    ls[] = {3}, ls2[] = {4},				   /* lost */
	    thr[] = {1010, 11, 11},				   /* time, id, stream id */
	    aux[] = {0, 4096, 0},				   /* offset, size, flags */
	    tid[] = {100ull << 32 | 100},			   /* pid, tid */
	    rd[] = {100ull << 32 | 100, 42},			   /* pid, tid, the value */
	    cg[] = {1, 0x2f},					   /* id, "/" */
	    ksym[] = {0xffffffffa0000000ull, 0x100, 0x6d7973},	   /* addr, len, flags, "sym" */
	    hw[] = {3};
	record(&w, PERF_RECORD_LOST, lost, 2, 1010);
	record(&w, PERF_RECORD_LOST, lost2, 2, 1020);
	record(&w, PERF_RECORD_LOST_SAMPLES, ls, 1, 1030);
	record(&w, PERF_RECORD_LOST_SAMPLES, ls2, 1, 1040);
	for (int k = 0; k < 2; k++) {
		record(&w, PERF_RECORD_THROTTLE, thr, 3, 1050 + 10 * k);
		record(&w, PERF_RECORD_UNTHROTTLE, thr, 3, 1055 + 10 * k);
	}
	for (int k = 0; k < 3; k++)
		record(&w, PERF_RECORD_AUX, aux, 3, 1110 + k);
	record(&w, PERF_RECORD_ITRACE_START, tid, 1, 1120);
	for (int k = 0; k < 4; k++)
		record(&w, PERF_RECORD_SWITCH, NULL, 0, 1130 + k);
	for (int k = 0; k < 2; k++)
		record(&w, PERF_RECORD_SWITCH_CPU_WIDE, tid, 1, 1140 + k);
	record(&w, PERF_RECORD_READ, rd, 2, 1150);
	record(&w, PERF_RECORD_CGROUP, cg, 2, 1160);
	record(&w, PERF_RECORD_KSYMBOL, ksym, 3, 1170);
	record(&w, PERF_RECORD_AUX_OUTPUT_HW_ID, hw, 1, 1180);
	char dir[64], path[96];
	if (!temp_dir(dir, "records"))
		return;
	static const struct {
		const char *perf, *line;
		uint64_t n;
	} want[] = {
	    {"LOST", "events lost by the kernel (LOST records", 12},
	    {"LOST_SAMPLES", "samples lost (LOST_SAMPLES records)", 7},
	    {"THROTTLE", "times the kernel throttled sampling (THROTTLE records)", 2},
	    {"UNTHROTTLE", "UNTHROTTLE records not used", 2},
	    {"AUX", "AUX records not used", 3},
	    {"ITRACE_START", "ITRACE_START records not used", 1},
	    {"SWITCH", "SWITCH records not used", 4},
	    {"SWITCH_CPU_WIDE", "SWITCH_CPU_WIDE records not used", 2},
	    {"READ", "READ records not used", 1},
	    {"CGROUP", "CGROUP records not used", 1},
	    {"KSYMBOL", "KSYMBOL records not used", 1},
	    {"AUX_OUTPUT_HW_ID", "AUX_OUTPUT_HW_ID records not used", 1},
	};
	snprintf(path, sizeof(path), "%s/lossy.data", dir);
	struct pv_profile *p = write_file(path, &w) ? import(path) : NULL;
	static const char *const samples[] = {"cpu-clock 7 @0:" STACK0, "cpu-clock 8 @100:" STACK1,
					      "cpu-clock 9 @200:" STACK2};
	bool perf = run("perf version >/dev/null 2>&1") == 0;
	for (size_t i = 0; p && i < sizeof(want) / sizeof(want[0]); i++) {
		check_lossy(p, want[i].line, want[i].n);
		/* perf counts records; LOST and LOST_SAMPLES two each */
		long long records = i < 2 ? 2 : (long long)want[i].n;
		if (perf && command_number(PERF_STATS, path, want[i].perf) != records)
			t_fail(__FILE__, __LINE__,
			       "perf report --stats: %lld %s records, %lld written",
			       command_number(PERF_STATS, path, want[i].perf), want[i].perf,
			       records);
	}
	if (p) {
		check_samples(p, samples, 3, "between other records");
		against_perf_script(path, p);
	}
	pv_profile_free(p);
	record(&w, 40, NULL, 0, 1190); /* no type of perf_event.h */
	snprintf(path, sizeof(path), "%s/type40.data", dir);
	p = write_file(path, &w) ? import(path) : NULL;
	if (p)
		check_lossy(p, "records of an unknown type not used", 1);
	pv_profile_free(p);
	free(w.d.p);
	drop_written(dir);
}

/* ---------------------------------------------------------------- recordings made now */

/* The sum of the numbers after key (a grep pattern ending in ':') on perf report -D's lines. */
static uint64_t dump_sum(const char *path, const char *key)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "perf report -D -i '%s' 2>/dev/null | grep -o '%s *[0-9]*'",
		 path, key);
	FILE *f = popen(cmd, "r");
	uint64_t sum = 0;
	char line[256];
	while (f && fgets(line, sizeof(line), f))
		sum += strtoull(strrchr(line, ':') + 1, NULL, 10);
	if (f)
		pclose(f);
	return sum;
}

/* path (perf.data, recorded now) against perf script --ns of it, samples and the lossy lines
 * of LOST and LOST_SAMPLES records against the sums of perf report -D. */
static struct pv_profile *against_perf(const char *path, uint64_t *lost, uint64_t *lost_samples)
{
	char txt[128];
	snprintf(txt, sizeof(txt), "%s.txt", path);
	if (run("perf script -i '%s' --ns > '%s' 2>/dev/null", path, txt) != 0) {
		t_fail(__FILE__, __LINE__, "perf script failed on %s", path);
		return NULL;
	}
	struct pv_profile *nat = import(path), *text = t_load_as(txt, "perf-script");
	if (nat && text)
		compare_samples(text, nat, false);
	*lost = dump_sum(path, "PERF_RECORD_LOST: id:[0-9]*: lost:");
	*lost_samples = dump_sum(path, "lost samples :");
	if (nat) {
		check_lossy(nat, "events lost by the kernel (LOST records", *lost);
		check_lossy(nat, "samples lost (LOST_SAMPLES records)", *lost_samples);
	}
	pv_profile_free(text);
	return nat;
}

/*
 * LOST records: four busy shells sampled at 50 kHz into a ring buffer of one page (perf record
 * -m 1): the kernel drops events (about 50 LOST records of 4,000 events in one run), and perf
 * record adds LOST_SAMPLES records at the end (the events each counter lost, the same number
 * again). Each lossy line names perf report -D's sum; the samples kept are perf script's.
 */
T_TEST(perf_records_lost_recorded)
{
	char dir[64], path[96];
	if (!temp_dir(dir, "lost"))
		return;
	snprintf(path, sizeof(path), "%s/lost.data", dir);
	if (run("HOME=%s perf record -q -e cpu-clock -F 50000 -m 1 -o %s -- sh -c 'for i in 1 2 3 "
		"4; do (i=0; while [ $i -lt 50000 ]; do i=$((i+1)); done) & done; wait' "
		">/dev/null 2>&1",
		dir, path) != 0) {
		skip_unpermitted(dir, "perf_records_lost_recorded");
		return;
	}
	uint64_t lost, lost_samples;
	struct pv_profile *p = against_perf(path, &lost, &lost_samples);
	printf("# -m 1 at 50 kHz: %u samples, %llu events lost (LOST), %llu (LOST_SAMPLES)\n",
	       p ? p->samples.len : 0, (unsigned long long)lost, (unsigned long long)lost_samples);
	if (!lost)
		printf("# no event was lost this run: the counts were checked at 0\n");
	pv_profile_free(p);
	run("rm -rf '%s'", dir);
}

/* perf script's sum of the periods of an event ("cpu-clock:") in its text */
#define SCRIPT_SUM                                                                                 \
	"awk '$0 !~ /^[ \\t]/ { for (i = 1; i < NF; i++) if ($(i + 1) == \"%s\") s += $i } END { " \
	"print s + 0 }' '%s'"

/*
 * A read group sampled by its leader (perf record -e '{cpu-clock,task-clock}:S'): each record
 * holds both counters' values and perf makes a sample of each, its period the counter's growth
 * since the last record. The import: the same samples as perf script, both events' totals.
 */
T_TEST(perf_records_read_group_recorded)
{
	char dir[64], path[96];
	if (!temp_dir(dir, "group"))
		return;
	snprintf(path, sizeof(path), "%s/grp.data", dir);
	if (run("cd %s && gcc -O2 -g -o prog %s/perf-data/prog.c && HOME=%s perf record -q -e "
		"'{cpu-clock,task-clock}:S' -g -F 2000 -o %s -- ./prog 20000 6000 >/dev/null 2>&1",
		dir, T_DATA, dir, path) != 0) {
		skip_unpermitted(dir, "perf_records_read_group_recorded");
		return;
	}
	uint64_t lost, lost_samples;
	struct pv_profile *p = against_perf(path, &lost, &lost_samples);
	char txt[128];
	snprintf(txt, sizeof(txt), "%s.txt", path);
	T_TRUE(p && p->metrics.len == 2);
	if (p && p->metrics.len == 2) {
		int64_t want[2] = {command_number(SCRIPT_SUM, "cpu-clock:", txt),
				   command_number(SCRIPT_SUM, "task-clock:", txt)};
		T_TRUE(want[0] > 0 && want[1] > 0);
		T_EQ_INT(t_total_named(p, "cpu-clock"), want[0]);
		T_EQ_INT(t_total_named(p, "task-clock"), want[1]);
		check_lossy(p, "without event ids", 0);
		check_lossy(p, "of an event id with no attribute", 0);
		printf("# read group: %u samples, cpu-clock %lld ns, task-clock %lld ns as perf "
		       "script\n",
		       p->samples.len, (long long)want[0], (long long)want[1]);
	}
	pv_profile_free(p);
	run("rm -rf '%s'", dir);
}

#endif /* __linux__ */

/*
 * perf_data.c - the file `perf record` writes (perf.data, "PERFILE2"), in either byte order, and
 * its pipe form (`perf record -o -`), read without perf (doc/perf-data.md).
 *
 * File: a header (the attributes' section, the data section, a bitmap of feature sections),
 * the attributes (perf_event_attr and the ids of each event), the records, then the feature
 * sections (event names, build ids, host, OS release, perf version, command line, sample time
 * range, compression). Pipe: a 16-byte header, then the same records, the attributes and
 * features among them as records of their own (HEADER_ATTR, HEADER_FEATURE, ...).
 *
 * Records are handled in time order, as perf does (its ordered events): the records between two
 * FINISHED_ROUND records are sorted by their time (the sample's, or the sample_id trailer of the
 * others) before they are used, so a sample sees the COMM and MMAP records that precede it in
 * time. COMPRESSED records (zstd) are inflated and read as the records they hold.
 *
 * Threads and processes: COMM names a thread (exec or not), FORK makes a thread of its parent's
 * name and, for a new process, a copy of its parent's memory maps; a thread never named is
 * ":TID" (as perf names it). A thread of the model is (comm, pid, tid): a thread that execs
 * becomes a new one, as perf script's lines tell it. MMAP and MMAP2 (with its build id) map
 * files into a process, a new map cutting the ones it overlaps.
 *
 * Samples: the call chain (leaf first, PERF_CONTEXT_* markers switching between kernel, user,
 * hypervisor and guest addresses), else the sample's IP. A user address is found in its
 * process's maps, turned into an offset in the mapped file (perf's map-relative address) and
 * that into the binary's own address (its program headers), then named by the symbolizer
 * (symbols.h: the machine's binaries, build ids checked); kernel addresses are named from
 * /proc/kallsyms; anonymous executable memory from /tmp/perf-PID.map. A frame is a function
 * (name, module), as perf script names it: "[unknown]" without a map, "[MODULE]" in a map whose
 * binary has no name for it; the address a sample hit (its leaf) is samples.addr. A sample's
 * stack shares the previous sample's of its thread as far as their raw addresses agree.
 * Each event is a metric (weight: the period); tracepoint events (PERF_TYPE_TRACEPOINT) become
 * instant markers with their call chain as the cause and their raw fields decoded by the
 * event's format from the file's tracing data (perf_trace.h), as perf script prints them.
 * Frames of binaries with DWARF get their source line (symz_srcline), as perf script's srcline.
 * Times are relative to the earliest sample, as for perf script text. A sample that read
 * counters (PERF_SAMPLE_READ, a group's) is, as for perf, a sample per counter value, of the
 * value's event, its period the counter's growth since it was last read.
 *
 * Lossy, counted in the import report: LOST and LOST_SAMPLES events, throttling, record types
 * the model has no place for (AUX, SWITCH, NAMESPACES, KSYMBOL, BPF_EVENT, CGROUP, ...), counter
 * values without ids, branch stacks, user stacks of --call-graph dwarf that could not be unwound
 * (the others are, with libdwfl: perf_unwind.h), tracepoint fields without a format, and the
 * addresses left unnamed,
 * per binary and reason.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <zstd.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/sort.h"
#include "import/importer.h"
#include "import/perf/perf_common.h"
#include "import/perf/perf_trace.h"
#include "import/perf/perf_unwind.h"
#include "import/symbols.h"

/* ---------------------------------------------------------------- the format */

#define MAGIC2	       0x32454c4946524550ull /* "PERFILE2" read in the file's byte order */
#define MAGIC2_SWAPPED 0x50455246494c4532ull

enum {
	R_MMAP = 1,
	R_LOST = 2,
	R_COMM = 3,
	R_EXIT = 4,
	R_THROTTLE = 5,
	R_UNTHROTTLE = 6,
	R_FORK = 7,
	R_READ = 8,
	R_SAMPLE = 9,
	R_MMAP2 = 10,
	R_LOST_SAMPLES = 13,
	R_KERNEL_MAX = 64, /* the kernel's records are below, perf's own from here */
	R_HEADER_ATTR = 64,
	R_HEADER_EVENT_TYPE = 65,
	R_HEADER_TRACING_DATA = 66,
	R_HEADER_BUILD_ID = 67,
	R_FINISHED_ROUND = 68,
	R_ID_INDEX = 69,
	R_HEADER_FEATURE = 80,
	R_COMPRESSED = 81,
	R_FINISHED_INIT = 82,
	R_TYPES = 128,
};

static const char *const rec_name[R_TYPES] = {
    [1] = "MMAP",
    [2] = "LOST",
    [3] = "COMM",
    [4] = "EXIT",
    [5] = "THROTTLE",
    [6] = "UNTHROTTLE",
    [7] = "FORK",
    [8] = "READ",
    [9] = "SAMPLE",
    [10] = "MMAP2",
    [11] = "AUX",
    [12] = "ITRACE_START",
    [13] = "LOST_SAMPLES",
    [14] = "SWITCH",
    [15] = "SWITCH_CPU_WIDE",
    [16] = "NAMESPACES",
    [17] = "KSYMBOL",
    [18] = "BPF_EVENT",
    [19] = "CGROUP",
    [20] = "TEXT_POKE",
    [21] = "AUX_OUTPUT_HW_ID",
    [64] = "HEADER_ATTR",
    [65] = "HEADER_EVENT_TYPE",
    [66] = "HEADER_TRACING_DATA",
    [67] = "HEADER_BUILD_ID",
    [68] = "FINISHED_ROUND",
    [69] = "ID_INDEX",
    [70] = "AUXTRACE_INFO",
    [71] = "AUXTRACE",
    [72] = "AUXTRACE_ERROR",
    [73] = "THREAD_MAP",
    [74] = "CPU_MAP",
    [75] = "STAT_CONFIG",
    [76] = "STAT",
    [77] = "STAT_ROUND",
    [78] = "EVENT_UPDATE",
    [79] = "TIME_CONV",
    [80] = "HEADER_FEATURE",
    [81] = "COMPRESSED",
    [82] = "FINISHED_INIT",
};

/* sample_type bits */
enum {
	S_IP = 1 << 0,
	S_TID = 1 << 1,
	S_TIME = 1 << 2,
	S_ADDR = 1 << 3,
	S_READ = 1 << 4,
	S_CALLCHAIN = 1 << 5,
	S_ID = 1 << 6,
	S_CPU = 1 << 7,
	S_PERIOD = 1 << 8,
	S_STREAM_ID = 1 << 9,
	S_RAW = 1 << 10,
	S_BRANCH_STACK = 1 << 11,
	S_REGS_USER = 1 << 12,
	S_STACK_USER = 1 << 13,
	S_WEIGHT = 1 << 14,
	S_DATA_SRC = 1 << 15,
	S_IDENTIFIER = 1 << 16,
	S_TRANSACTION = 1 << 17,
	S_REGS_INTR = 1 << 18,
	S_PHYS_ADDR = 1 << 19,
	S_AUX = 1 << 20,
	S_CGROUP = 1 << 21,
	S_DATA_PAGE_SIZE = 1 << 22,
	S_CODE_PAGE_SIZE = 1 << 23,
	S_WEIGHT_STRUCT = 1 << 24,
};

/* read_format bits */
enum {
	RF_TOTAL_TIME_ENABLED = 1,
	RF_TOTAL_TIME_RUNNING = 2,
	RF_ID = 4,
	RF_GROUP = 8,
	RF_LOST = 16
};

/* feature bits (the header's bitmap) */
enum {
	F_TRACING_DATA = 1,
	F_BUILD_ID = 2,
	F_HOSTNAME = 3,
	F_OSRELEASE = 4,
	F_VERSION = 5,
	F_ARCH = 6,
	F_NRCPUS = 7,
	F_CPUDESC = 8,
	F_CMDLINE = 11,
	F_EVENT_DESC = 12,
	F_SAMPLE_TIME = 21,
	F_COMPRESSED = 27,
	F_BITS = 256,
};

#define TIME_MAX_NS ((uint64_t)1 << 62)
#define PERIOD_MAX  ((uint64_t)1 << 40)

#define CONTEXT_MAX	     ((uint64_t)-4095)
#define CONTEXT_HV	     ((uint64_t)-32)
#define CONTEXT_KERNEL	     ((uint64_t)-128)
#define CONTEXT_USER	     ((uint64_t)-512)
#define CONTEXT_GUEST	     ((uint64_t)-2048)
#define CONTEXT_GUEST_KERNEL ((uint64_t)-2176)
#define CONTEXT_GUEST_USER   ((uint64_t)-2560)

/* cpumode (header.misc & 7) */
enum { M_UNKNOWN = 0, M_KERNEL = 1, M_USER = 2, M_HV = 3, M_GUEST_KERNEL = 4, M_GUEST_USER = 5 };

#define MISC_COMM_EXEC	   (1u << 13)
#define MISC_MMAP_BUILD_ID (1u << 14)
#define MISC_BUILD_ID_SIZE (1u << 15)

#define TYPE_TRACEPOINT		2
#define BRANCH_HW_INDEX		(1ull << 17)
#define BRANCH_COUNTERS		(1ull << 19)
#define ATTR_FLAG_FREQ		(1ull << 10)
#define ATTR_FLAG_SAMPLE_ID_ALL (1ull << 18)

/* ---------------------------------------------------------------- state */

struct attr {
	uint32_t type;
	uint64_t config, period, sample_type, read_format, branch_type, regs_user, regs_intr;
	bool freq, sample_id_all;
	pv_str_ix name;
	pv_metric_ix metric;
	uint32_t nregs_user, nregs_intr;
};

struct idmap {
	uint64_t id;
	uint32_t attr;
	uint64_t value; /* its counter's value in the last sample that read it (PERF_SAMPLE_READ) */
};

struct dso {
	pv_str_ix path;
	uint32_t h; /* the symbolizer's binary */
	pv_module_ix mod;
	bool anon;	  /* JIT: named from /tmp/perf-PID.map at the address itself */
	uint64_t unnamed; /* distinct addresses left unnamed */
	enum symz_status why;
};

struct pmap {
	uint64_t start, end, pgoff;
	uint32_t dso;
};

struct proc {
	struct pmap *m;
	uint32_t n, cap;
	uint32_t gen;  /* bumped by every change of the maps */
	uint32_t last; /* the map found last */
};

struct task {
	int32_t pid, tid;
	pv_str_ix comm;
	pv_thread_ix th; /* PV_NONE until its first sample under this comm */
	uint32_t proc;
	/* the previous sample's chain, root first, and its stacks */
	uint64_t *ips;
	pv_stack_ix *st;
	uint32_t n, cap;
	uint32_t gen; /* its process's gen when the chain was read */
};

/* a record of the current round: its time, its order, where it is */
struct ref {
	uint64_t time;
	uint64_t seq;
	const unsigned char *p;
};

struct chunk {
	struct chunk *next;
	size_t len;
	unsigned char data[];
};

struct pd {
	struct pv_builder *b;
	struct pv_input *in;
	struct pv_error *err;
	int rc; /* the first error set (err holds its message), 0 while none */
	bool swap, pipe;
	const unsigned char *base, *end;
	const unsigned char *forget_at; /* input_forget'ed up to here */
	const unsigned char *data_end;	/* the end of the records in the file */
	const unsigned char *mapped;	/* the pages up to here are populated */
	bool roomed;			/* the sample columns' room asked for */

	struct attr *attrs;
	uint32_t nattrs;
	struct idmap *ids;
	uint32_t nids, idcap;
	bool ids_sorted;
	/* where records keep the event id: a sample's n-th word (-1: none), the trailer's n-th
	 * word from the end (-1: none), and whether every event shares one sample_type */
	int id_pos, id_trail;
	bool one_layout, sort_rounds;

	/* dsos by path (interned string ix) */
	struct dso *dsos;
	uint32_t ndsos, dcap;
	struct u64map dso_map;
	struct u64map bid_map;	   /* path string ix -> row of bids */
	unsigned char (*bids)[21]; /* [0]: length, then the bytes */
	uint32_t nbids, bcap;
	uint32_t kdso; /* the kernel's dso, UINT32_MAX until needed */

	struct proc *procs;
	uint32_t nprocs, pcap;
	struct u64map proc_map; /* pid -> proc */
	struct task *tasks;
	uint32_t ntasks, tcap;
	struct u64map task_map;	  /* tid -> task */
	struct u64map thread_map; /* (tid << 32 | comm) -> model thread */

	struct u64map frame_map; /* (dso + 1) << 48 | address -> frame */
	pv_frame_ix unknown_frame;

	struct symz *z;

	/* the round being read */
	struct ref *refs;
	uint32_t nrefs, rcap;
	struct ref *spare; /* the sort's other array */
	uint32_t spare_cap;
	uint64_t seq;
	bool unsorted; /* a record of the round is earlier than the one before it */
	struct chunk *chunks;
	/* compressed records */
	ZSTD_DStream *zs;
	unsigned char *carry; /* a record cut at the end of the last inflated chunk */
	size_t ncarry;
	uint32_t carry_cap;
	/* for the sample columns' room: the bytes inflated so far from how many compressed ones */
	uint64_t zin, zout;
	bool inflating; /* records of the newest chunk being read */

	/* the sample being built */
	uint64_t *chain;
	uint8_t *modes;
	pv_frame_ix *frames;
	uint64_t *addrs;
	uint32_t ccap;
	int64_t *weights;
	uint32_t wcap;

	int64_t min_time;
	int64_t interval;
	uint64_t nsamples, nmarkers;
	uint64_t count[R_TYPES + 1]; /* records by type (R_TYPES: larger types) */
	uint64_t lost, lost_samples, throttled, read_groups, read_unknown, branch_stacks,
	    user_stacks, tracepoint_fields, no_attr, hv_frames, guest_frames, no_time, bad_times,
	    big_periods;
	pv_str_ix version, hostname, osrelease, arch, cpudesc, cmdline;
	uint64_t unread_features; /* the feature sections present and not read, by bit */

	/* --call-graph dwarf: the unwinder (perf_unwind.h), the chain it makes (the kernel's
	 * part, then the user frames), the samples unwound and why others were not */
	struct perf_unwind *uw;
	uint64_t *uw_chain;
	uint32_t uw_cap;
	unsigned char *uw_stack; /* a stack copy of the other byte order, its words swapped */
	uint32_t uw_stack_cap;
	uint64_t uw_done, uw_why[PU_NR_STATUS];
	uint64_t uw_user_from; /* the first unwound user entry of uw_chain */
	/* the functions inlined at an unwound frame's address (DWARF), as perf script shows them
	 * for such frames: per (dso, address) a row of frames, root first (inline depth 1, 2,
	 * ...); per entry of the sample being built its row (UINT32_MAX: none) */
	struct u64map inl_map;
	uint32_t *inl_off, *inl_len;
	uint32_t nrows, rcap_inl;
	pv_frame_ix *inl_frames;
	uint32_t ninl, icap;
	uint32_t *inl;
	uint64_t inlined_frames;
	uint64_t srclines; /* frames given a source line (DWARF) */
	/* tracepoint payloads: the formats of the tracing data (perf_trace.h), why there are
	 * none, the payload's JSON */
	struct perf_trace *trace;
	const char *trace_why;
	struct perf_json json;
};

/* ---------------------------------------------------------------- reading */

static inline uint16_t rd16(const struct pd *s, const unsigned char *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return s->swap ? __builtin_bswap16(v) : v;
}

static inline uint32_t rd32(const struct pd *s, const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return s->swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t rd64(const struct pd *s, const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return s->swap ? __builtin_bswap64(v) : v;
}

/* The byte offset of p in the file (or, inside an inflated record, of that record). */
static uint64_t off_of(const struct pd *s, const unsigned char *p)
{
	return p >= s->base && p <= s->end ? (uint64_t)(p - s->base) : 0;
}

static int fail(struct pd *s, const unsigned char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct pd *s, const unsigned char *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = input_vfail_byte(s->in, s->err, PV_EPARSE, off_of(s, at), fmt, ap);
	va_end(ap);
	if (!s->rc)
		s->rc = rc;
	return rc;
}

static int oom(struct pd *s)
{
	if (!s->b->status)
		s->b->status = PV_ENOMEM;
	if (!s->rc)
		s->rc = pv_error_set(s->err, PV_ENOMEM, "%s: out of memory", s->in->name);
	return PV_ENOMEM;
}

#define GROW(s, ptr, cap, need) \
	((need) <= (cap) ? 0 : grow((s), (void **)&(ptr), sizeof(*(ptr)), &(cap), (uint64_t)(need)))

static int grow(struct pd *s, void **ptr, size_t elt, uint32_t *cap, uint64_t need)
{
	uint32_t nc = grow_cap(*cap, need);
	if (!nc || col_realloc(ptr, elt, nc))
		return oom(s);
	*cap = nc;
	return 0;
}

/* "perf_header_string": a u32 length, then that many bytes (NUL-padded). */
static pv_str_ix header_string(struct pd *s, const unsigned char **p, const unsigned char *e)
{
	if (e - *p < 4)
		return 0;
	uint32_t n = rd32(s, *p);
	*p += 4;
	if (n > (uint64_t)(e - *p))
		return 0;
	const char *t = (const char *)*p;
	*p += n;
	size_t len = strnlen(t, n);
	return builder_str(s->b, t, len);
}

/* ---------------------------------------------------------------- events and ids */

static const char *const hw_names[] = {"cycles",
				       "instructions",
				       "cache-references",
				       "cache-misses",
				       "branches",
				       "branch-misses",
				       "bus-cycles",
				       "stalled-cycles-frontend",
				       "stalled-cycles-backend",
				       "ref-cycles"};
static const char *const sw_names[] = {
    "cpu-clock",	"task-clock",	"page-faults",	"context-switches",
    "cpu-migrations",	"minor-faults", "major-faults", "alignment-faults",
    "emulation-faults", "dummy",	"bpf-output",	"cgroup-switches"};

static pv_str_ix attr_default_name(struct pd *s, const struct attr *a)
{
	if (a->type == 0 && a->config < sizeof(hw_names) / sizeof(hw_names[0]))
		return builder_cstr(s->b, hw_names[a->config]);
	if (a->type == 1 && a->config < sizeof(sw_names) / sizeof(sw_names[0]))
		return builder_cstr(s->b, sw_names[a->config]);
	return builder_strf(s->b, "event-%u:0x%llx", a->type, (unsigned long long)a->config);
}

static uint32_t popcount64(uint64_t x)
{
	return (uint32_t)__builtin_popcountll(x);
}

/*
 * The bit-fields after read_format (disabled, inherit, ..., freq at 10, sample_id_all at 18), bit
 * n at 1 << n: a little-endian machine's compiler allocates them from each byte's least
 * significant bit on, a big-endian one's from the most significant (bit n at byte n / 8, bit
 * 7 - n % 8), the bytes in the same order; perf's swap_bitfield reverses each byte's bits.
 */
static uint64_t attr_flags(const struct pd *s, const unsigned char *p)
{
	bool big = s->swap != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	uint64_t v = 0;
	for (int i = 0; i < 64; i++)
		if (p[i / 8] >> (big ? 7 - i % 8 : i % 8) & 1)
			v |= 1ull << i;
	return v;
}

/* Reads a perf_event_attr of size sz at p into a new attribute; its row, or -1. */
static int add_attr(struct pd *s, const unsigned char *p, uint64_t sz)
{
	if (sz < 64)
		return fail(s, p, "an event attribute of %llu bytes (at least 64 expected)",
			    (unsigned long long)sz);
	struct attr *na = pv_realloc(s->attrs, (size_t)(s->nattrs + 1) * sizeof(*na));
	if (!na)
		return oom(s);
	s->attrs = na;
	struct attr *a = &s->attrs[s->nattrs];
	memset(a, 0, sizeof(*a));
	a->type = rd32(s, p);
	a->config = rd64(s, p + 8);
	a->period = rd64(s, p + 16);
	a->sample_type = rd64(s, p + 24);
	a->read_format = rd64(s, p + 32);
	uint64_t flags = attr_flags(s, p + 40);
	a->freq = (flags & ATTR_FLAG_FREQ) != 0;
	a->sample_id_all = (flags & ATTR_FLAG_SAMPLE_ID_ALL) != 0;
	if (sz >= 80)
		a->branch_type = rd64(s, p + 72);
	if (sz >= 88)
		a->regs_user = rd64(s, p + 80);
	if (sz >= 104)
		a->regs_intr = rd64(s, p + 96);
	a->nregs_user = popcount64(a->regs_user);
	a->nregs_intr = popcount64(a->regs_intr);
	a->metric = PV_NONE;
	a->name = attr_default_name(s, a);
	s->nattrs++;
	return 0;
}

static int add_id(struct pd *s, uint64_t id, uint32_t attr)
{
	if (GROW(s, s->ids, s->idcap, (uint64_t)s->nids + 1))
		return -1;
	s->ids[s->nids++] = (struct idmap){id, attr, 0};
	s->ids_sorted = false;
	return 0;
}

static int id_cmp(const void *a, const void *b)
{
	const struct idmap *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The row of ids of the event id, UINT32_MAX when none. */
static uint32_t id_row(struct pd *s, uint64_t id)
{
	if (!s->ids_sorted) {
		if (s->nids)
			qsort(s->ids, s->nids, sizeof(*s->ids), id_cmp);
		s->ids_sorted = true;
	}
	uint32_t lo = 0, hi = s->nids;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nids && s->ids[lo].id == id ? lo : UINT32_MAX;
}

static uint32_t attr_of_id(struct pd *s, uint64_t id)
{
	uint32_t row = id_row(s, id);
	return row == UINT32_MAX ? UINT32_MAX : s->ids[row].attr;
}

/* Where records carry the event id, once the attributes are known. */
static void layouts(struct pd *s)
{
	s->one_layout = true;
	s->sort_rounds = s->nattrs > 0;
	for (uint32_t i = 0; i < s->nattrs; i++) {
		if (s->attrs[i].sample_type != s->attrs[0].sample_type)
			s->one_layout = false;
		if (!s->attrs[i].sample_id_all)
			s->sort_rounds = false;
	}
	s->id_pos = s->id_trail = -1;
	if (!s->nattrs)
		return;
	uint64_t t = s->attrs[0].sample_type;
	if (t & S_IDENTIFIER) {
		s->id_pos = 0;
		s->id_trail = 1;
	} else if (t & S_ID) {
		s->id_pos = !!(t & S_IP) + !!(t & S_TID) + !!(t & S_TIME) + !!(t & S_ADDR);
		s->id_trail = 1 + !!(t & S_CPU) + !!(t & S_STREAM_ID);
	}
}

/* The attribute of a record (sample or not); attrs[0] when the file cannot tell. */
static uint32_t attr_of(struct pd *s, const unsigned char *r, uint32_t size, bool sample)
{
	if (s->nattrs <= 1 || (s->id_pos < 0 && s->id_trail < 0))
		return 0;
	uint64_t id;
	if (sample) {
		if (s->id_pos < 0 || 8 + 8 * (uint32_t)(s->id_pos + 1) > size)
			return 0;
		id = rd64(s, r + 8 + 8 * s->id_pos);
	} else {
		if (!s->attrs[0].sample_id_all || 8 + 8 * (uint32_t)s->id_trail > size)
			return 0;
		id = rd64(s, r + size - 8 * s->id_trail);
	}
	if (!id) /* perf's own records (synthesized at record time) have id 0: the first
		    event's, as perf reads them */
		return 0;
	uint32_t a = attr_of_id(s, id);
	if (a == UINT32_MAX) {
		s->no_attr++;
		return 0;
	}
	return a;
}

/* The time of a record, UINT64_MAX when it has none. */
static uint64_t rec_time(struct pd *s, const unsigned char *r, uint32_t type, uint32_t size)
{
	if (type >= R_KERNEL_MAX || !s->nattrs)
		return UINT64_MAX;
	if (type == R_SAMPLE) {
		const struct attr *a = &s->attrs[attr_of(s, r, size, true)];
		uint64_t t = a->sample_type;
		if (!(t & S_TIME))
			return UINT64_MAX;
		uint32_t w = !!(t & S_IDENTIFIER) + !!(t & S_IP) + !!(t & S_TID);
		return 8 + 8 * (w + 1) <= size ? rd64(s, r + 8 + 8 * w) : UINT64_MAX;
	}
	const struct attr *a = &s->attrs[attr_of(s, r, size, false)];
	uint64_t t = a->sample_type;
	if (!a->sample_id_all || !(t & S_TIME))
		return UINT64_MAX;
	uint32_t after = !!(t & S_ID) + !!(t & S_STREAM_ID) + !!(t & S_CPU) + !!(t & S_IDENTIFIER);
	uint32_t at = 8 * (after + 1);
	return at + 8 <= size ? rd64(s, r + size - at) : UINT64_MAX;
}

/* ---------------------------------------------------------------- binaries and maps */

static bool is_anon(const char *f)
{
	return strncmp(f, "//anon", 6) == 0 || strncmp(f, "[anon", 5) == 0 ||
	       strncmp(f, "/memfd:", 7) == 0 || strncmp(f, "/dev/zero", 9) == 0 ||
	       strncmp(f, "/anon_hugepage", 14) == 0;
}

/* The dso of a path (perf's name of the mapped file); UINT32_MAX on error. */
static uint32_t dso_of(struct pd *s, const char *path, size_t n, const unsigned char *bid,
		       size_t bid_len)
{
	struct pv_builder *b = s->b;
	pv_str_ix ps = builder_str(b, path, n);
	if (b->status)
		return UINT32_MAX;
	uint32_t d = u64map_get(&s->dso_map, ps);
	if (d != UINT32_MAX)
		return d;
	if (!bid_len) {
		uint32_t k = u64map_get(&s->bid_map, ps);
		if (k != UINT32_MAX) {
			bid = s->bids[k] + 1;
			bid_len = s->bids[k][0];
		}
	}
	if (GROW(s, s->dsos, s->dcap, (uint64_t)s->ndsos + 1))
		return UINT32_MAX;
	const char *p = pv_str(b->p, ps);
	struct dso *x = &s->dsos[s->ndsos];
	*x = (struct dso){.path = ps, .anon = false};
	x->h = symz_binary(s->z, p, bid, bid_len);
	x->mod = PV_NONE; /* made at its first frame: a file mapped but never sampled is none */
	if (x->h == UINT32_MAX || u64map_put(&s->dso_map, ps, s->ndsos)) {
		oom(s);
		return UINT32_MAX;
	}
	return s->ndsos++;
}

static uint32_t proc_of(struct pd *s, int32_t pid)
{
	uint64_t key = (uint32_t)pid;
	uint32_t i = u64map_get(&s->proc_map, key);
	if (i != UINT32_MAX)
		return i;
	if (GROW(s, s->procs, s->pcap, (uint64_t)s->nprocs + 1))
		return UINT32_MAX;
	s->procs[s->nprocs] = (struct proc){0};
	if (u64map_put(&s->proc_map, key, s->nprocs)) {
		oom(s);
		return UINT32_MAX;
	}
	return s->nprocs++;
}

/* Maps [start, end) of process pr to dso d at pgoff, cutting the maps it overlaps. */
static int map_insert(struct pd *s, uint32_t pr, uint64_t start, uint64_t end, uint64_t pgoff,
		      uint32_t d)
{
	struct proc *p = &s->procs[pr];
	/* at most one map more (one cut in two), and the new one */
	if (GROW(s, p->m, p->cap, (uint64_t)p->n + 2))
		return -1;
	uint32_t w = 0, n = p->n;
	struct pmap split = {0};
	bool has_split = false;
	for (uint32_t i = 0; i < n; i++) {
		struct pmap m = p->m[i];
		if (m.end <= start || m.start >= end) {
			p->m[w++] = m;
			continue;
		}
		if (m.start < start && m.end > end) {
			split = (struct pmap){end, m.end, m.pgoff + (end - m.start), m.dso};
			has_split = true;
			m.end = start;
			p->m[w++] = m;
		} else if (m.start < start) {
			m.end = start;
			p->m[w++] = m;
		} else if (m.end > end) {
			m.pgoff += end - m.start;
			m.start = end;
			p->m[w++] = m;
		}
	}
	p->m[w++] = (struct pmap){start, end, pgoff, d};
	if (has_split)
		p->m[w++] = split;
	p->n = w;
	/* sorted by start (insertion: the new maps are near their place) */
	for (uint32_t i = 1; i < p->n; i++) {
		struct pmap x = p->m[i];
		uint32_t j = i;
		while (j > 0 && p->m[j - 1].start > x.start) {
			p->m[j] = p->m[j - 1];
			j--;
		}
		p->m[j] = x;
	}
	p->gen++;
	p->last = 0;
	return 0;
}

static const struct pmap *map_find(struct proc *p, uint64_t a)
{
	if (p->last < p->n && a >= p->m[p->last].start && a < p->m[p->last].end)
		return &p->m[p->last];
	uint32_t lo = 0, hi = p->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->m[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || a >= p->m[lo - 1].end)
		return NULL;
	p->last = lo - 1;
	return &p->m[lo - 1];
}

/* The task of tid (made with its pid, named ":TID"); UINT32_MAX on error. */
static uint32_t task_of(struct pd *s, int32_t pid, int32_t tid)
{
	uint64_t key = (uint32_t)tid;
	uint32_t i = u64map_get(&s->task_map, key);
	if (i != UINT32_MAX) {
		struct task *t = &s->tasks[i];
		if (t->pid != pid && pid != -1 && t->pid == -1) {
			/* a thread first seen without its process */
			uint32_t pr = proc_of(s, pid);
			if (pr == UINT32_MAX)
				return UINT32_MAX;
			t = &s->tasks[i];
			t->pid = pid;
			t->proc = pr;
			t->th = PV_NONE;
		}
		return i;
	}
	uint32_t pr = proc_of(s, pid);
	if (pr == UINT32_MAX || GROW(s, s->tasks, s->tcap, (uint64_t)s->ntasks + 1))
		return UINT32_MAX;
	pv_str_ix comm = builder_strf(s->b, ":%d", tid);
	s->tasks[s->ntasks] =
	    (struct task){.pid = pid, .tid = tid, .comm = comm, .th = PV_NONE, .proc = pr};
	if (u64map_put(&s->task_map, key, s->ntasks)) {
		oom(s);
		return UINT32_MAX;
	}
	return s->ntasks++;
}

/* The model thread of a task under its current comm. */
static pv_thread_ix thread_of(struct pd *s, struct task *t)
{
	if (t->th != PV_NONE)
		return t->th;
	uint64_t key = (uint64_t)(uint32_t)t->tid << 32 | t->comm;
	uint32_t th = u64map_get(&s->thread_map, key);
	if (th == UINT32_MAX) {
		th = builder_thread(s->b, t->comm, t->pid, t->tid, 0);
		if (th == PV_NONE || u64map_put(&s->thread_map, key, th)) {
			oom(s);
			return PV_NONE;
		}
	}
	return t->th = th;
}

/* ---------------------------------------------------------------- frames */

static uint32_t kernel_dso(struct pd *s)
{
	if (s->kdso == UINT32_MAX)
		s->kdso = dso_of(s, "[kernel.kallsyms]", 17, NULL, 0);
	return s->kdso;
}

/* The frame of name in module mod. */
static pv_frame_ix named_frame(struct pd *s, const char *name, pv_module_ix mod)
{
	struct pv_builder *b = s->b;
	return builder_func_frame(b, builder_func(b, builder_cstr(b, name), mod, PV_NONE, 0));
}

/*
 * The frame of function name in module mod at source line l (perf script's srcline): the
 * function is one per (name, module, file), as the perf script importer makes it from
 * -F +srcline (doc/lines.md).
 */
static pv_frame_ix line_frame(struct pd *s, pv_str_ix name, pv_module_ix mod, struct symz_line l,
			      uint16_t depth)
{
	struct pv_builder *b = s->b;
	pv_source_ix src = l.file ? builder_source(b, builder_cstr(b, l.file)) : PV_NONE;
	struct frame_key k = {
	    .func = builder_func(b, name, mod, src, 0),
	    .line = l.file ? l.line : 0,
	    .addr = PV_ADDR_NONE,
	    .category = PV_NONE,
	    .inline_depth = depth,
	};
	s->srclines += l.file != NULL;
	return b->status ? PV_NONE : builder_frame(b, &k);
}

/*
 * The frame of address a (the binary's own) of dso d: its symbol's function, "[MODULE]" when
 * it has none, through the cache.
 */
static pv_frame_ix dso_frame(struct pd *s, uint32_t d, uint64_t a)
{
	uint64_t key = ((uint64_t)(d + 1) << 48) ^ a;
	uint32_t f = u64map_get(&s->frame_map, key);
	if (f != UINT32_MAX)
		return f;
	struct dso *x = &s->dsos[d];
	struct symz_hit hit;
	enum symz_status st = symz_lookup(s->z, x->h, a, &hit);
	struct pv_builder *b = s->b;
	pv_module_ix mod;
	if (st == SYMZ_OK && hit.module) { /* a kernel module's */
		mod = perf_module_new(b, hit.module, strlen(hit.module));
	} else {
		if (x->mod == PV_NONE) {
			const char *path = pv_str(b->p, x->path);
			x->mod = perf_module_new(b, path, strlen(path));
		}
		mod = x->mod;
	}
	if (mod == PV_NONE) {
		oom(s);
		return PV_NONE;
	}
	if (st == SYMZ_OK) {
		struct symz_line l = symz_srcline(s->z, x->h, a);
		f = l.file ? line_frame(s, builder_cstr(b, hit.name), mod, l, 0)
			   : named_frame(s, hit.name, mod);
	} else {
		x->unnamed++;
		x->why = st;
		f = builder_func_frame(b,
				       builder_func(b, perf_unknown_name(b, mod), mod, PV_NONE, 0));
	}
	if (f == PV_NONE || u64map_put(&s->frame_map, key, f)) {
		oom(s);
		return PV_NONE;
	}
	return f;
}

/* The frame of ip in mode (M_*) for task t; *addr: the address in its binary. */
static pv_frame_ix ip_frame(struct pd *s, struct task *t, int mode, uint64_t ip, uint64_t *addr)
{
	*addr = PV_ADDR_NONE;
	if (mode == M_KERNEL) {
		uint32_t d = kernel_dso(s);
		if (d == UINT32_MAX)
			return PV_NONE;
		*addr = ip;
		return dso_frame(s, d, ip);
	}
	if (mode != M_USER) {
		if (mode == M_HV)
			s->hv_frames++;
		else
			s->guest_frames++;
		return s->unknown_frame;
	}
	const struct pmap *m = map_find(&s->procs[t->proc], ip);
	if (!m)
		return s->unknown_frame;
	struct dso *x = &s->dsos[m->dso];
	uint64_t a;
	if (x->anon) {
		a = ip;
	} else {
		a = symz_vaddr(s->z, x->h, ip - m->start + m->pgoff);
		if (a == UINT64_MAX)
			a = ip - m->start + m->pgoff;
	}
	*addr = a;
	return dso_frame(s, m->dso, a);
}

/*
 * The row of the functions inlined at user address ip of task t whose frame is f (the function
 * that holds them, whose module they take): UINT32_MAX when none. Each (binary, address) is
 * asked once.
 */
static uint32_t inline_row(struct pd *s, struct task *t, uint64_t ip, pv_frame_ix f)
{
	const struct pmap *m = map_find(&s->procs[t->proc], ip);
	if (!m || f == PV_NONE || s->dsos[m->dso].anon)
		return UINT32_MAX;
	struct dso *x = &s->dsos[m->dso];
	uint64_t a = symz_vaddr(s->z, x->h, ip - m->start + m->pgoff);
	if (a == UINT64_MAX || a >> 48)
		return UINT32_MAX;
	uint64_t key = ((uint64_t)(m->dso + 1) << 48) ^ a;
	uint32_t row = u64map_get(&s->inl_map, key);
	if (row != UINT32_MAX)
		return row ? row - 1 : UINT32_MAX;
	const char *names[64];
	struct symz_line lines[64];
	uint32_t n = symz_inlines_at(s->z, x->h, a, names, lines, 64);
	row = 0;
	if (n) {
		const struct pv_profile *p = s->b->p;
		pv_func_ix hf = p->frames.func[f];
		pv_module_ix mod = pv_func_module(p, hf);
		uint32_t had = s->rcap_inl;
		if (GROW(s, s->inl_off, s->rcap_inl, s->nrows + 1) ||
		    (had != s->rcap_inl && COL_GROW(s->inl_len, s->rcap_inl) && oom(s)) ||
		    GROW(s, s->inl_frames, s->icap, s->ninl + n + 1))
			return UINT32_MAX;
		s->inl_off[s->nrows] = s->ninl;
		s->inl_len[s->nrows] = n;
		/* the holder at the line where it called the outermost inlined function, each
		 * inlined one at the line where it called the next (the innermost: the address's
		 * own line), as perf script --inline -F +srcline prints them */
		s->inl_frames[s->ninl++] =
		    lines[n - 1].file ? line_frame(s, p->funcs.name[hf], mod, lines[n - 1], 0) : f;
		struct symz_line own = symz_srcline(s->z, x->h, a);
		for (uint32_t j = 0; j < n; j++) { /* root first: the outermost inlined, depth 1 */
			uint32_t i = n - 1 - j;
			s->inl_frames[s->ninl++] =
			    line_frame(s, builder_cstr(s->b, names[i]), mod, i ? lines[i - 1] : own,
				       (uint16_t)(j + 1));
		}
		row = ++s->nrows;
	}
	if (u64map_put(&s->inl_map, key, row))
		oom(s);
	return row ? row - 1 : UINT32_MAX;
}

static int ensure_chain(struct pd *s, uint64_t n)
{
	if (n <= s->ccap)
		return 0;
	uint32_t nc = grow_cap(s->ccap, n);
	if (!nc || COL_GROW(s->chain, nc) || COL_GROW(s->modes, nc) || COL_GROW(s->frames, nc) ||
	    COL_GROW(s->addrs, nc) || COL_GROW(s->inl, nc))
		return oom(s);
	s->ccap = nc;
	return 0;
}

/*
 * The stack of the n frames read (leaf first), sharing the task's previous chain as far as the
 * raw addresses (root first) agree; the leaf's address in *leaf.
 */
static pv_stack_ix build_stack(struct pd *s, struct task *t, const uint64_t *raw, uint32_t nraw,
			       uint64_t *leaf)
{
	struct proc *pr = &s->procs[t->proc];
	if (t->gen != pr->gen) {
		t->n = 0;
		t->gen = pr->gen;
	}
	if (nraw > t->cap) {
		uint32_t nc = grow_cap(t->cap, nraw);
		if (!nc || COL_GROW(t->ips, nc) || COL_GROW(t->st, nc)) {
			oom(s);
			return PV_NONE;
		}
		t->cap = nc;
	}
	/* the raw chain root first: its entries with their modes packed (markers kept) */
	uint32_t common = 0, lim = nraw < t->n ? nraw : t->n;
	while (common < lim && t->ips[common] == raw[nraw - 1 - common])
		common++;
	*leaf = PV_ADDR_NONE;
	pv_stack_ix st = common ? t->st[common - 1] : PV_NONE;
	for (uint32_t i = common; i < nraw; i++) {
		uint32_t k = nraw - 1 - i; /* leaf-first index */
		pv_frame_ix f = s->frames[k];
		uint32_t row = s->inl[k];
		if (row != UINT32_MAX) /* the holder at its call line, then the inlined frames */
			for (uint32_t j = 0; j <= s->inl_len[row]; j++)
				st = builder_stack(s->b, st, s->inl_frames[s->inl_off[row] + j]);
		else if (f != PV_NONE)
			st = builder_stack(s->b, st, f);
		t->ips[i] = raw[k];
		t->st[i] = st;
	}
	t->n = nraw;
	for (uint32_t k = 0; k < nraw; k++)
		if (s->modes[k] != 0xff) {
			*leaf = s->addrs[k];
			break;
		}
	return st;
}

/* ---------------------------------------------------------------- records */

/*
 * A tracepoint sample of event a: an instant marker on thread th at tm, its call chain st the
 * cause, its fields the raw data [raw, raw + n) printed by the event's format as perf script
 * prints them, made a payload by the perf script importer's rule (perf_payload_json).
 */
static int tracepoint(struct pd *s, const struct attr *a, pv_thread_ix th, pv_stack_ix st,
		      int64_t tm, const unsigned char *raw, uint32_t n)
{
	pv_str_ix payload = 0;
	const char *txt;
	size_t len;
	if (raw && s->trace &&
	    perf_trace_print(s->trace, a->config, raw, n, 0, (uint64_t)tm, &txt, &len) == 0)
		payload = perf_payload_json(s->b, &s->json, txt, txt + len);
	else if (raw)
		s->tracepoint_fields++;
	struct raw_marker m = {
	    .name = a->name,
	    .category = PV_NONE,
	    .phase = PV_PHASE_INSTANT,
	    .start_ns = tm,
	    .end_ns = PV_TIME_NONE,
	    .thread = th,
	    .payload = payload,
	    .cause_stack = st,
	    .cause_time_ns = st == PV_NONE ? PV_TIME_NONE : tm,
	};
	builder_marker(s->b, &m);
	s->nmarkers++;
	return s->b->status;
}

static int handle(struct pd *s, const unsigned char *r);

/* perf's limit of a call chain (kernel.perf_event_max_stack, perf script's --max-stack) */
#define UNWIND_MAX 127

/*
 * A --call-graph dwarf sample's chain in s->uw_chain (*n entries): the kernel's entries of the
 * recorded chain (up to its PERF_CONTEXT_USER), then the user frames libdwfl unwinds from the
 * sample's user registers and stack copy (perf_unwind.h); the sampled address alone when they
 * cannot be unwound (counted with the reason). *n is 0 when there is nothing to add.
 */
static int unwind_user(struct pd *s, struct task *tk, const struct attr *a,
		       const unsigned char *uregs, const unsigned char *ustack, uint64_t len,
		       const unsigned char *chain, uint64_t nr, uint64_t *n)
{
	*n = 0;
	uint64_t nk = 0; /* the kernel's part */
	while (chain && nk < nr && rd64(s, chain + 8 * nk) != CONTEXT_USER)
		nk++;
	if (GROW(s, s->uw_chain, s->uw_cap, nk + 1 + UNWIND_MAX))
		return -1;
	uint64_t *out = s->uw_chain;
	for (uint64_t i = 0; i < nk; i++)
		out[i] = rd64(s, chain + 8 * i);
	uint64_t at = nk;
	if (nk)
		out[at++] = CONTEXT_USER;
	s->uw_user_from = at;
	enum pu_status st;
	uint32_t got = 0;
	uint64_t regs[64];
	const char *arch = s->arch ? pv_str(s->b->p, s->arch) : "x86_64";
	if (strcmp(arch, "x86_64") != 0) {
		st = PU_ARCH;
	} else if (!uregs || a->nregs_user > 64 || !pu_mask_ok(a->regs_user)) {
		st = PU_REGS;
	} else {
		for (uint32_t i = 0; i < a->nregs_user; i++)
			regs[i] = rd64(s, uregs + 8 * i);
		if (!s->uw && !(s->uw = pu_new()))
			return oom(s);
		struct proc *pr = &s->procs[tk->proc];
		if (pu_begin(s->uw, tk->proc, pr->gen, tk->pid)) {
			for (uint32_t i = 0; i < pr->n; i++) {
				struct dso *x = &s->dsos[pr->m[i].dso];
				if (x->anon)
					continue;
				const char *path = pv_str(s->b->p, x->path), *file = NULL;
				if (symz_load(s->z, x->h) != SYMZ_OFF)
					file = symz_file(s->z, x->h);
				const char *base = strrchr(path, '/');
				pu_module(s->uw, base ? base + 1 : path, file ? file : path,
					  pr->m[i].start, pr->m[i].pgoff);
			}
			pu_end(s->uw);
		}
		/* the other byte order: the stack copy read as 8-byte words, as perf does (it swaps
		 * a sample as u64s and leaves the copy so) */
		if (s->swap && len) {
			if (len > UINT32_MAX || GROW(s, s->uw_stack, s->uw_stack_cap, len))
				return oom(s);
			for (uint64_t i = 0; i + 8 <= len; i += 8) {
				uint64_t w = rd64(s, ustack + i);
				memcpy(s->uw_stack + i, &w, 8);
			}
			memcpy(s->uw_stack + (len & ~7ull), ustack + (len & ~7ull), len & 7);
			ustack = s->uw_stack;
		}
		st = pu_unwind(s->uw, tk->proc, tk->tid, regs, a->regs_user, ustack, len, out + at,
			       UNWIND_MAX, &got);
	}
	if (st == PU_OK)
		s->uw_done++;
	else
		s->uw_why[st]++;
	*n = got ? at + got : 0;
	return 0;
}

/* A SAMPLE record's fields that are used, as its attribute's sample_type lays them out. */
struct sfields {
	uint64_t ip, time, period;
	int32_t pid, tid;
	const unsigned char *chain; /* nr entries; NULL: none */
	uint64_t nr;
	const unsigned char *raw; /* raw_n bytes; NULL: none */
	uint32_t raw_n;
	const unsigned char *uregs, *ustack; /* NULL: none */
	uint64_t ustack_len;
	/* PERF_SAMPLE_READ with PERF_FORMAT_ID: nread counter values of read_step bytes from
	 * read (the value, its id read_id_at bytes further); NULL: none */
	const unsigned char *read;
	uint64_t nread;
	uint32_t read_step, read_id_at;
};

/* A SAMPLE record being read: r's size bytes, q the next field, t the sample_type. */
struct scur {
	const unsigned char *r, *q, *e;
	uint32_t size;
	uint64_t t;
};

/* Fails unless n more bytes are in the record. */
static int need(struct pd *s, const struct scur *c, uint64_t n)
{
	if ((uint64_t)(c->e - c->q) >= n)
		return 0;
	return fail(s, c->r,
		    "a SAMPLE record of %u bytes ends inside its fields (sample_type 0x%llx)",
		    c->size, (unsigned long long)c->t);
}

#define NEED(n)                      \
	do {                         \
		if (need(s, c, (n))) \
			return -1;   \
	} while (0)

/* The fields up to the period. */
static int sample_head(struct pd *s, struct scur *c, const struct attr *a, struct sfields *f)
{
	uint64_t t = c->t;
	if (t & S_IDENTIFIER) {
		NEED(8);
		c->q += 8;
	}
	if (t & S_IP) {
		NEED(8);
		f->ip = rd64(s, c->q);
		c->q += 8;
	}
	if (t & S_TID) {
		NEED(8);
		f->pid = (int32_t)rd32(s, c->q);
		f->tid = (int32_t)rd32(s, c->q + 4);
		c->q += 8;
	}
	if (t & S_TIME) {
		NEED(8);
		f->time = rd64(s, c->q);
		c->q += 8;
	}
	int skip = !!(t & S_ADDR) + !!(t & S_ID) + !!(t & S_STREAM_ID) + !!(t & S_CPU);
	NEED(8 * skip);
	c->q += 8 * skip;
	if (t & S_PERIOD) {
		NEED(8);
		f->period = rd64(s, c->q);
		c->q += 8;
	}
	if (t & S_READ) {
		uint64_t rf = a->read_format;
		uint64_t per = 8 + ((rf & RF_ID) ? 8 : 0) + ((rf & RF_LOST) ? 8 : 0);
		uint64_t head =
		    ((rf & RF_TOTAL_TIME_ENABLED) ? 8 : 0) + ((rf & RF_TOTAL_TIME_RUNNING) ? 8 : 0);
		uint64_t nr = 1;
		if (rf & RF_GROUP) {
			NEED(8);
			nr = rd64(s, c->q);
			c->q += 8;
			if (nr > (uint64_t)(c->e - c->q) / per)
				NEED(UINT64_MAX);
		}
		NEED(head + nr * per);
		/* a group's times come before its values; a lone value before its times */
		bool group = (rf & RF_GROUP) != 0;
		if (rf & RF_ID) {
			f->read = c->q + (group ? head : 0);
			f->nread = nr;
			f->read_step = (uint32_t)per;
			f->read_id_at = 8 + (group ? 0 : (uint32_t)head);
		} else {
			s->read_groups++;
		}
		c->q += head + nr * per;
	}
	return 0;
}

/* The call chain, the raw data and the branch stack. */
static int sample_chain(struct pd *s, struct scur *c, const struct attr *a, struct sfields *f)
{
	uint64_t t = c->t;
	if (t & S_CALLCHAIN) {
		NEED(8);
		f->nr = rd64(s, c->q);
		c->q += 8;
		if (f->nr > (uint64_t)(c->e - c->q) / 8)
			return fail(s, c->r,
				    "a SAMPLE record's call chain of %llu entries is longer "
				    "than the record (%u bytes)",
				    (unsigned long long)f->nr, c->size);
		f->chain = c->q;
		c->q += 8 * f->nr;
	}
	if (t & S_RAW) {
		NEED(4);
		f->raw_n = rd32(s, c->q);
		c->q += 4;
		NEED(f->raw_n);
		f->raw = c->q;
		c->q += f->raw_n;
	}
	if (t & S_BRANCH_STACK) {
		NEED(8);
		uint64_t bn = rd64(s, c->q);
		c->q += 8;
		if (a->branch_type & BRANCH_HW_INDEX) {
			NEED(8);
			c->q += 8;
		}
		/* from, to, flags; then a word of counters each (Linux 6.8, branch counters) */
		uint64_t per = (a->branch_type & BRANCH_COUNTERS) ? 32 : 24;
		if (bn > (uint64_t)(c->e - c->q) / per)
			NEED(UINT64_MAX);
		c->q += per * bn;
		s->branch_stacks++;
	}
	return 0;
}

/* The user registers and stack copy (--call-graph dwarf). */
static int sample_user(struct pd *s, struct scur *c, const struct attr *a, struct sfields *f)
{
	if (c->t & S_REGS_USER) {
		NEED(8);
		uint64_t abi = rd64(s, c->q);
		c->q += 8;
		if (abi) {
			NEED(8 * (uint64_t)a->nregs_user);
			f->uregs = c->q;
			c->q += 8 * (uint64_t)a->nregs_user;
		}
	}
	if (c->t & S_STACK_USER) {
		NEED(8);
		uint64_t sz = rd64(s, c->q);
		c->q += 8;
		if (sz) {
			NEED(sz);
			f->ustack = c->q;
			c->q += sz;
			NEED(8);
			uint64_t dyn =
			    rd64(s, c->q); /* the bytes of the copy that are the stack's */
			f->ustack_len = dyn < sz ? dyn : sz;
			c->q += 8;
		}
	}
	/* the rest (weights, data source, ...) is not read */
	return 0;
}
#undef NEED

/* The context a call chain's marker entry switches to. */
static int context_mode(uint64_t x)
{
	return x == CONTEXT_KERNEL	   ? M_KERNEL
	       : x == CONTEXT_USER	   ? M_USER
	       : x == CONTEXT_HV	   ? M_HV
	       : x == CONTEXT_GUEST_KERNEL ? M_GUEST_KERNEL
	       : x == CONTEXT_GUEST_USER   ? M_GUEST_USER
					   : M_UNKNOWN;
}

/*
 * The sample's frames into s->chain, s->modes, s->frames, s->inl and s->addrs (*n of them), leaf
 * first: the call chain's entries (markers switch the mode), else ip.
 */
static int sample_frames(struct pd *s, struct task *tk, const struct attr *a, struct sfields *f,
			 unsigned misc, uint32_t *n)
{
	uint64_t t = a->sample_type;
	int mode = (int)(misc & 7);
	const unsigned char *chain = f->chain;
	/* --call-graph dwarf: the kernel records no user entries (the user stack is to be
	 * unwound); a sample in user space keeps at least its own address */
	if (chain && (t & S_STACK_USER) && mode == M_USER && (t & S_IP)) {
		bool any = false;
		for (uint64_t i = 0; i < f->nr && !any; i++)
			any = rd64(s, chain + 8 * i) < CONTEXT_MAX;
		if (!any)
			chain = NULL;
	}
	/* ... and is unwound here: the kernel's part of the chain, then the user frames */
	const uint64_t *syn = NULL;
	uint64_t nsyn = 0;
	if (f->ustack && (chain || mode == M_USER)) {
		if (unwind_user(s, tk, a, f->uregs, f->ustack, f->ustack_len, chain, f->nr, &nsyn))
			return -1;
		syn = nsyn ? s->uw_chain : NULL; /* else the chain as recorded, or ip */
	}
	uint64_t nraw = syn ? nsyn : chain ? f->nr : 1;
	if (ensure_chain(s, nraw + 1))
		return -1;
	uint32_t k = 0;
	for (uint64_t i = 0; i < nraw; i++, k++) {
		uint64_t x = syn ? syn[i] : chain ? rd64(s, chain + 8 * i) : f->ip;
		s->chain[k] = x;
		if ((chain || syn) && x >= CONTEXT_MAX) {
			mode = context_mode(x);
			s->modes[k] = 0xff;
			s->frames[k] = PV_NONE;
			s->inl[k] = UINT32_MAX;
			s->addrs[k] = PV_ADDR_NONE;
			continue;
		}
		s->modes[k] = (uint8_t)mode;
		s->frames[k] = ip_frame(s, tk, mode, x, &s->addrs[k]);
		s->inl[k] = syn && i >= s->uw_user_from && mode == M_USER
				? inline_row(s, tk, x, s->frames[k])
				: UINT32_MAX;
		if (s->b->status)
			return s->b->status;
		/* the mode is part of the raw key: the same number is another frame elsewhere */
		s->chain[k] = x ^ ((uint64_t)mode << 60);
	}
	*n = k;
	return 0;
}

/* The fewest bytes of a SAMPLE record of the attribute a. */
static uint64_t sample_min_size(const struct attr *a)
{
	uint64_t t = a->sample_type;
	uint64_t words = (uint64_t)popcount64(
	    t & (S_IDENTIFIER | S_IP | S_TID | S_TIME | S_ADDR | S_ID | S_STREAM_ID | S_CPU |
		 S_PERIOD | S_CALLCHAIN | S_READ | S_BRANCH_STACK | S_REGS_USER | S_STACK_USER));
	return 8 + 8 * words + ((t & S_RAW) ? 4 : 0);
}

/*
 * Room in the sample columns for as many samples as the records left in the file could hold,
 * asked once (at the first metric): the columns then never move as they grow (each move
 * copied them into fresh pages). Only the rows written are ever touched. In a compressed file
 * (perf record -z) the room is asked at the end of the COMPRESSED record that held the first
 * sample: the compressed bytes left times the ratio of those inflated so far (measured on
 * whole records: zstd takes in more than it has given out while a record is inflated).
 */
static void sample_room(struct pd *s, const unsigned char *r, bool after_z)
{
	uint64_t least = UINT64_MAX, left;
	for (uint32_t i = 0; i < s->nattrs; i++) {
		uint64_t m = sample_min_size(&s->attrs[i]);
		least = m < least ? m : least;
	}
	if (s->data_end && !after_z && r >= s->base && r < s->data_end)
		left = (uint64_t)(s->data_end - r);
	else if (s->data_end && after_z && s->zin && r >= s->base && r <= s->data_end)
		/* after a COMPRESSED record (perf record -z) ending at r: the compressed bytes
		 * left, inflated as those so far were, an eighth more (zstd holds back some of
		 * a record's output until the next: 6 % of a 14x stream's first record), and the
		 * round's records waiting */
		left = (uint64_t)((double)(s->data_end - r) * 1.125 * (double)s->zout /
				  (double)s->zin) +
		       (uint64_t)s->nrefs * least;
	else
		return; /* an inflated record: the room is asked after its COMPRESSED record */
	s->roomed = true;
	builder_samples_room(s->b, s->b->p->samples.len + left / least);
}

/*
 * The metrics in the order of the attributes that made them (perf record's -e order, as perf
 * report lists the events), not of their first samples, which depends on the run.
 */
static void order_metrics(struct pd *s)
{
	uint32_t n = s->b->p->metrics.len, k = 0;
	pv_metric_ix *order = n > 1 ? pv_malloc((size_t)n * sizeof(*order)) : NULL;
	uint8_t *seen = n > 1 ? pv_calloc(n, 1) : NULL;
	if (n > 1 && (!order || !seen)) {
		oom(s);
	} else if (n > 1) {
		for (uint32_t i = 0; i < s->nattrs; i++) {
			pv_metric_ix m = s->attrs[i].metric;
			if (m != PV_NONE && m < n && !seen[m]) {
				seen[m] = 1;
				order[k++] = m;
			}
		}
		for (pv_metric_ix m = 0; m < n; m++) /* made otherwise, after those */
			if (!seen[m])
				order[k++] = m;
		builder_metrics_order(s->b, order);
	}
	pv_free(order);
	pv_free(seen);
}

/* The attribute's metric, made at its first sample r. */
static int sample_metric(struct pd *s, struct attr *a, const unsigned char *r)
{
	if (a->metric != PV_NONE)
		return 0;
	const char *nm = pv_str(s->b->p, a->name);
	a->metric = builder_metric(s->b, a->name, perf_event_unit(nm, strlen(nm)));
	if (a->metric == PV_NONE)
		return oom(s);
	uint32_t nmx = s->b->p->metrics.len;
	if (nmx > s->wcap) {
		uint32_t old = s->wcap;
		if (GROW(s, s->weights, s->wcap, nmx))
			return -1;
		memset(s->weights + old, 0, (size_t)(s->wcap - old) * sizeof(*s->weights));
	}
	if (!s->roomed)
		sample_room(s, r, false);
	return s->b->status;
}

/* The sample of the stack st at time tm (PV_TIME_NONE: none) in the thread th. */
static int sample_add(struct pd *s, struct attr *a, const unsigned char *r, pv_thread_ix th,
		      pv_stack_ix st, int64_t tm, uint64_t period, uint64_t leaf)
{
	if (sample_metric(s, a, r))
		return -1;
	if (!s->interval && !a->freq && a->period && s->b->p->metrics.unit[a->metric] == PV_UNIT_NS)
		s->interval = (int64_t)a->period;
	if (!s->interval && period && s->b->p->metrics.unit[a->metric] == PV_UNIT_NS)
		s->interval = (int64_t)period;
	if (period > PERIOD_MAX) { /* sums of such would overflow: damage */
		s->big_periods++;
		period = PERIOD_MAX;
	}
	s->weights[a->metric] = (int64_t)period;
	builder_sample(s->b, th, st, tm, s->weights);
	s->weights[a->metric] = 0;
	s->nsamples++;
	if (st != PV_NONE && leaf != PV_ADDR_NONE) {
		uint64_t *col = builder_samples_addr(s->b);
		if (col)
			s->b->p->samples.addr[s->b->p->samples.len - 1] = leaf;
	}
	return s->b->status;
}

/*
 * A sample that read counters (PERF_SAMPLE_READ, a group's or its own event's), as perf delivers
 * it: a sample per counter value, of the event of the value's id, its period what the counter
 * counted since the last sample that read it (its value less the one before, from 0); none
 * for a value of an unknown id or that did not grow.
 */
static int read_samples(struct pd *s, const struct sfields *f, const unsigned char *r,
			pv_thread_ix th, pv_stack_ix st, int64_t tm, uint64_t leaf)
{
	for (uint64_t i = 0; i < f->nread; i++) {
		const unsigned char *v = f->read + (size_t)i * f->read_step;
		uint32_t row = id_row(s, rd64(s, v + f->read_id_at));
		if (row == UINT32_MAX) {
			s->read_unknown++;
			continue;
		}
		uint64_t value = rd64(s, v), period = value - s->ids[row].value;
		s->ids[row].value = value;
		if (period &&
		    sample_add(s, &s->attrs[s->ids[row].attr], r, th, st, tm, period, leaf))
			return -1;
	}
	return 0;
}

static int sample(struct pd *s, const unsigned char *r, uint32_t size, unsigned misc)
{
	if (!s->nattrs)
		return fail(s, r,
			    "a SAMPLE record before any event attribute (expected the "
			    "attributes first: the header's or a HEADER_ATTR record)");
	uint32_t ai = attr_of(s, r, size, true);
	struct attr *a = &s->attrs[ai];
	struct scur c = {r, r + 8, r + size, size, a->sample_type};
	struct sfields f = {
	    .time = UINT64_MAX, .period = a->freq ? 1 : a->period, .pid = -1, .tid = -1};
	if (sample_head(s, &c, a, &f) || sample_chain(s, &c, a, &f) || sample_user(s, &c, a, &f))
		return -1;
	uint32_t ti = task_of(s, f.pid, f.tid);
	if (ti == UINT32_MAX)
		return s->b->status;
	struct task *tk = &s->tasks[ti];
	uint32_t n = 0;
	int rc = sample_frames(s, tk, a, &f, misc, &n);
	if (rc)
		return rc;
	/* perf's clock counts from boot: a time past 2^62 ns (146 years) is damage */
	uint64_t time = f.time;
	if (time != UINT64_MAX && time > TIME_MAX_NS) {
		s->bad_times++;
		time = UINT64_MAX;
	}
	if (time != UINT64_MAX && (int64_t)time < s->min_time)
		s->min_time = (int64_t)time;
	uint64_t leaf = PV_ADDR_NONE;
	pv_stack_ix st = build_stack(s, tk, s->chain, n, &leaf);
	if (s->b->status)
		return s->b->status;
	pv_thread_ix th = thread_of(s, tk);
	if (th == PV_NONE)
		return -1;
	int64_t tm = time == UINT64_MAX ? PV_TIME_NONE : (int64_t)time;
	if (a->type == TYPE_TRACEPOINT)
		return tracepoint(s, a, th, st, tm, f.raw, f.raw_n);
	if (f.read)
		return read_samples(s, &f, r, th, st, tm, leaf);
	return sample_add(s, a, r, th, st, tm, f.period, leaf);
}

static int comm(struct pd *s, const unsigned char *r, uint32_t size, unsigned misc)
{
	(void)misc;
	if (size < 17)
		return fail(s, r, "a COMM record of %u bytes (at least 17 expected)", size);
	int32_t pid = (int32_t)rd32(s, r + 8), tid = (int32_t)rd32(s, r + 12);
	const char *c = (const char *)r + 16;
	size_t n = strnlen(c, size - 16);
	uint32_t ti = task_of(s, pid, tid);
	if (ti == UINT32_MAX)
		return -1;
	struct task *t = &s->tasks[ti];
	pv_str_ix nc = builder_str(s->b, c, n);
	if (nc != t->comm) {
		t->comm = nc;
		t->th = PV_NONE;
	}
	return s->b->status;
}

static int fork_rec(struct pd *s, const unsigned char *r, uint32_t size)
{
	if (size < 32)
		return fail(s, r, "a FORK record of %u bytes (at least 32 expected)", size);
	int32_t pid = (int32_t)rd32(s, r + 8), ppid = (int32_t)rd32(s, r + 12);
	int32_t tid = (int32_t)rd32(s, r + 16), ptid = (int32_t)rd32(s, r + 20);
	uint32_t parent = task_of(s, ppid, ptid);
	if (parent == UINT32_MAX)
		return -1;
	uint32_t existing = u64map_get(&s->task_map, (uint32_t)tid);
	uint32_t ci = task_of(s, pid, tid);
	if (ci == UINT32_MAX)
		return -1;
	struct task *c = &s->tasks[ci], *p = &s->tasks[parent];
	if (existing == UINT32_MAX || c->comm != p->comm) {
		c->comm = p->comm;
		c->th = PV_NONE;
	}
	c->pid = pid;
	if (pid != ppid && ci != parent) {
		uint32_t cp = proc_of(s, pid), pp = p->proc;
		if (cp == UINT32_MAX)
			return -1;
		c = &s->tasks[ci];
		c->proc = cp;
		struct proc *dst = &s->procs[cp], *src = &s->procs[pp];
		if (cp != pp && src->n) {
			if (GROW(s, dst->m, dst->cap, src->n))
				return -1;
			src = &s->procs[pp];
			memcpy(dst->m, src->m, (size_t)src->n * sizeof(*src->m));
			dst->n = src->n;
			dst->gen++;
		}
	}
	return 0;
}

static int mmap_rec(struct pd *s, const unsigned char *r, uint32_t type, uint32_t size,
		    unsigned misc)
{
	uint32_t fixed = type == R_MMAP2 ? 72 : 40;
	if (size < fixed + 1)
		return fail(s, r, "an %s record of %u bytes (at least %u expected)", rec_name[type],
			    size, fixed + 1);
	int32_t pid = (int32_t)rd32(s, r + 8);
	uint64_t start = rd64(s, r + 16), len = rd64(s, r + 24), pgoff = rd64(s, r + 32);
	const char *f = (const char *)r + fixed;
	size_t n = strnlen(f, size - fixed);
	const unsigned char *bid = NULL;
	size_t bid_len = 0;
	if (type == R_MMAP2 && (misc & MISC_MMAP_BUILD_ID)) {
		bid_len = r[40];
		bid = r + 44;
		if (bid_len > 20)
			bid_len = 20;
	}
	int mode = (int)(misc & 7);
	if (mode == M_KERNEL || mode == M_GUEST_KERNEL) {
		if (n >= 17 && memcmp(f, "[kernel.kallsyms]", 17) == 0)
			symz_kernel_text(s->z, pgoff);
		return 0; /* modules: named from kallsyms */
	}
	if (len == 0 || start + len < start)
		return 0;
	uint32_t d;
	if (is_anon(f)) {
		char jit[64];
		int jn = snprintf(jit, sizeof(jit), "/tmp/perf-%d.map", pid);
		d = dso_of(s, jit, (size_t)jn, NULL, 0);
		if (d != UINT32_MAX)
			s->dsos[d].anon = true;
	} else {
		d = dso_of(s, f, n, bid, bid_len);
	}
	uint32_t pr = proc_of(s, pid);
	if (d == UINT32_MAX || pr == UINT32_MAX)
		return -1;
	return map_insert(s, pr, start, start + len, pgoff, d);
}

/* Build ids of the HEADER_BUILD_ID feature or record: path -> id. */
static int build_id_rec(struct pd *s, const unsigned char *r, uint32_t size)
{
	if (size < 37)
		return 0;
	unsigned misc = rd16(s, r + 4);
	uint32_t bl = (misc & MISC_BUILD_ID_SIZE) ? r[32] : 20;
	if (bl > 20)
		bl = 20;
	const char *f = (const char *)r + 36;
	size_t n = strnlen(f, size - 36);
	pv_str_ix ps = builder_str(s->b, f, n);
	if (s->b->status)
		return -1;
	if (u64map_get(&s->bid_map, ps) != UINT32_MAX)
		return 0;
	if (GROW(s, s->bids, s->bcap, (uint64_t)s->nbids + 1))
		return -1;
	s->bids[s->nbids][0] = (unsigned char)bl;
	memcpy(s->bids[s->nbids] + 1, r + 12, bl);
	if (u64map_put(&s->bid_map, ps, s->nbids))
		return oom(s);
	s->nbids++;
	return 0;
}

static int build_ids(struct pd *s, const unsigned char *p, const unsigned char *e)
{
	while (e - p >= 8) {
		uint16_t sz = rd16(s, p + 6);
		if (sz < 8 || sz > e - p)
			return fail(s, p, "a build id entry of %u bytes (8 to %lld expected)", sz,
				    (long long)(e - p));
		if (build_id_rec(s, p, sz))
			return -1;
		p += sz;
	}
	return 0;
}

/* HEADER_EVENT_DESC: the events' names by id. */
static int event_desc(struct pd *s, const unsigned char *p, const unsigned char *e)
{
	if (e - p < 8)
		return 0;
	uint32_t nr = rd32(s, p), asz = rd32(s, p + 4);
	p += 8;
	for (uint32_t i = 0; i < nr; i++) {
		if ((uint64_t)(e - p) < (uint64_t)asz + 4)
			return 0;
		p += asz;
		uint32_t nids = rd32(s, p);
		p += 4;
		pv_str_ix name = header_string(s, &p, e);
		if ((uint64_t)(e - p) / 8 < nids)
			return 0;
		for (uint32_t k = 0; k < nids; k++) {
			uint32_t a = attr_of_id(s, rd64(s, p + 8 * k));
			if (a != UINT32_MAX && name)
				s->attrs[a].name = name;
		}
		if (!nids && i < s->nattrs && name)
			s->attrs[i].name = name;
		p += 8 * (size_t)nids;
	}
	return 0;
}

static int feature(struct pd *s, int bit, const unsigned char *p, const unsigned char *e)
{
	switch (bit) {
	case F_BUILD_ID: return build_ids(s, p, e);
	case F_HOSTNAME: s->hostname = header_string(s, &p, e); break;
	case F_OSRELEASE:
		s->osrelease = header_string(s, &p, e);
		if (s->osrelease) /* perf's vmlinux places of the recorded release */
			symz_kernel_release(s->z, pv_str(s->b->p, s->osrelease));
		break;
	case F_VERSION: s->version = header_string(s, &p, e); break;
	case F_ARCH: s->arch = header_string(s, &p, e); break;
	case F_TRACING_DATA:
		if (!s->trace)
			s->trace = perf_trace_new(p, (size_t)(e - p), &s->trace_why);
		break;
	case F_CPUDESC: s->cpudesc = header_string(s, &p, e); break;
	case F_CMDLINE: {
		if (e - p < 4)
			break;
		uint32_t nr = rd32(s, p);
		p += 4;
		struct sbuf_lite {
			char b[1024];
			size_t n;
		} c = {.n = 0};
		for (uint32_t i = 0; i < nr && i < 64; i++) {
			pv_str_ix x = header_string(s, &p, e);
			int w = snprintf(c.b + c.n, sizeof(c.b) - c.n, "%s%s", i ? " " : "",
					 pv_str(s->b->p, x));
			if (w < 0 || (size_t)w >= sizeof(c.b) - c.n)
				break;
			c.n += (size_t)w;
		}
		for (size_t i = 0; i < c.n; i++) /* one line in the report */
			if ((unsigned char)c.b[i] < 0x20)
				c.b[i] = ' ';
		s->cmdline = builder_str(s->b, c.b, c.n);
		break;
	}
	case F_EVENT_DESC: return event_desc(s, p, e);
	default:
		if (bit >= 0 && bit < 64)
			s->unread_features |= 1ull << bit;
		break;
	}
	return s->b->status;
}

/* perf's names of the feature sections (header.h's HEADER_*) */
static const char *const feature_name[] = {
    [7] = "NRCPUS",	      [9] = "CPUID",	     [10] = "TOTAL_MEM",    [13] = "CPU_TOPOLOGY",
    [14] = "NUMA_TOPOLOGY",   [15] = "BRANCH_STACK", [16] = "PMU_MAPPINGS", [17] = "GROUP_DESC",
    [18] = "AUXTRACE",	      [19] = "STAT",	     [20] = "CACHE",	    [21] = "SAMPLE_TIME",
    [22] = "MEM_TOPOLOGY",    [23] = "CLOCKID",	     [24] = "DIR_FORMAT",   [25] = "BPF_PROG_INFO",
    [26] = "BPF_BTF",	      [27] = "COMPRESSED",   [28] = "CPU_PMU_CAPS", [29] = "CLOCK_DATA",
    [30] = "HYBRID_TOPOLOGY", [31] = "PMU_CAPS",
};

/* The feature sections of the file that were not read, one lossy line naming them. */
static void unread_features(struct pd *s)
{
	char b[512];
	size_t n = 0;
	for (int i = 0; i < 64 && n < sizeof(b) - 32; i++) {
		if (!(s->unread_features >> i & 1))
			continue;
		const char *nm =
		    i < (int)(sizeof(feature_name) / sizeof(*feature_name)) && feature_name[i]
			? feature_name[i]
			: NULL;
		int w = nm ? snprintf(b + n, sizeof(b) - n, "%s%s", n ? ", " : "", nm)
			   : snprintf(b + n, sizeof(b) - n, "%sbit %d", n ? ", " : "", i);
		if (w < 0)
			break;
		n += (size_t)w;
	}
	if (n)
		builder_lossy(s->b, (uint64_t)popcount64(s->unread_features),
			      "feature sections not read: %s", b);
}

/* ---------------------------------------------------------------- compressed records */

/* Keeps n bytes for the round (they must outlive the round's sorting). */
static unsigned char *keep(struct pd *s, size_t n)
{
	struct chunk *c = pv_malloc(sizeof(*c) + n);
	if (!c) {
		oom(s);
		return NULL;
	}
	c->next = s->chunks;
	c->len = n;
	s->chunks = c;
	return c->data;
}

static int records(struct pd *s, const unsigned char *p, const unsigned char *e, bool inner);

static int compressed(struct pd *s, const unsigned char *r, uint32_t size)
{
	if (!s->zs && !(s->zs = ZSTD_createDStream()))
		return oom(s);
	ZSTD_inBuffer in = {r + 8, size - 8, 0};
	size_t cap = (size_t)size * 8 + 65536;
	for (;;) {
		unsigned char *out = keep(s, s->ncarry + cap);
		if (!out)
			return -1;
		if (s->ncarry)
			memcpy(out, s->carry, s->ncarry);
		ZSTD_outBuffer ob = {out + s->ncarry, cap, 0};
		size_t rc = ZSTD_decompressStream(s->zs, &ob, &in);
		if (ZSTD_isError(rc))
			return fail(s, r, "a COMPRESSED record does not inflate (zstd: %s)",
				    ZSTD_getErrorName(rc));
		s->zout += ob.pos;
		size_t have = s->ncarry + ob.pos;
		/* whole records are read; a cut one waits for the next chunk */
		size_t whole = 0;
		while (have - whole >= 8) {
			uint16_t sz = rd16(s, out + whole + 6);
			if (sz < 8)
				return fail(s, r, "a record inside a COMPRESSED record has size %u",
					    sz);
			if (sz > have - whole)
				break;
			whole += sz;
		}
		s->inflating = true;
		int err = records(s, out, out + whole, true);
		s->inflating = false;
		if (err)
			return err;
		size_t rest = have - whole;
		if (GROW(s, s->carry, s->carry_cap, rest))
			return -1;
		if (rest)
			memmove(s->carry, out + whole, rest);
		s->ncarry = rest;
		if (in.pos == in.size && ob.pos < cap)
			break;
	}
	s->zin += size - 8;
	if (!s->roomed && s->b->p->metrics.len)
		sample_room(s, r + size, true);
	return 0;
}

/* ---------------------------------------------------------------- rounds */

/* The end of the run of records in time order from i. */
static uint32_t run_end(const struct ref *a, uint32_t i, uint32_t n)
{
	while (++i < n && a[i].time >= a[i - 1].time)
		;
	return i;
}

/* x[0, nx) and y[0, ny) (each in time order) into out, x's first among equal times. */
static void merge_runs(const struct ref *x, uint32_t nx, const struct ref *y, uint32_t ny,
		       struct ref *out)
{
	uint32_t i = 0, j = 0;
	while (i < nx && j < ny)
		*out++ = y[j].time < x[i].time ? y[j++] : x[i++];
	while (i < nx)
		*out++ = x[i++];
	while (j < ny)
		*out++ = y[j++];
}

/*
 * The round's records in time order, stably (records of one time keep their order, the order
 * of seq): the runs already in order (perf writes one CPU's buffer after the other) merged two
 * by two until one is left.
 */
static int sort_round(struct pd *s)
{
	uint32_t n = s->nrefs;
	if (n < 2 || run_end(s->refs, 0, n) == n)
		return 0;
	if (GROW(s, s->spare, s->spare_cap, n))
		return -1;
	uint32_t runs;
	do {
		runs = 0;
		for (uint32_t i = 0; i < n; runs++) {
			uint32_t m = run_end(s->refs, i, n);
			uint32_t e = m < n ? run_end(s->refs, m, n) : n;
			merge_runs(s->refs + i, m - i, s->refs + m, e - m, s->spare + i);
			i = e;
		}
		struct ref *t = s->refs;
		uint32_t c = s->rcap;
		s->refs = s->spare;
		s->rcap = s->spare_cap;
		s->spare = t;
		s->spare_cap = c;
	} while (runs > 1);
	return 0;
}

/* Frees the inflated chunks after *at (the list's head: s->chunks). */
static void free_chunks(struct chunk **at)
{
	while (*at) {
		struct chunk *n = (*at)->next;
		pv_free(*at);
		*at = n;
	}
}

/* Uses the round's records in time order. */
static int flush(struct pd *s)
{
	int rc = s->unsorted ? sort_round(s) : 0;
	s->unsorted = false;
	for (uint32_t i = 0; i < s->nrefs && !rc; i++)
		rc = handle(s, s->refs[i].p);
	s->nrefs = 0;
	/* a FINISHED_ROUND inflated from a COMPRESSED record: the chunk being read is kept */
	if (s->inflating && s->chunks)
		free_chunks(&s->chunks->next);
	else if (!s->ncarry)
		free_chunks(&s->chunks);
	return rc;
}

/* One record, now. */
static int handle(struct pd *s, const unsigned char *r)
{
	uint32_t type = rd32(s, r);
	unsigned misc = rd16(s, r + 4);
	uint32_t size = rd16(s, r + 6);
	switch (type) {
	case R_SAMPLE: return sample(s, r, size, misc);
	case R_COMM: return comm(s, r, size, misc);
	case R_FORK: return fork_rec(s, r, size);
	case R_MMAP:
	case R_MMAP2: return mmap_rec(s, r, type, size, misc);
	case R_LOST:
		if (size >= 24)
			s->lost += rd64(s, r + 16);
		return 0;
	case R_LOST_SAMPLES:
		if (size >= 16)
			s->lost_samples += rd64(s, r + 8);
		return 0;
	case R_THROTTLE: s->throttled++; return 0;
	default: return 0;
	}
}

/* Maps the pages ahead of the records in one system call (input_ahead) once p passed those
 * mapped, rather than a page fault for every few pages. */
static void read_ahead(struct pd *s, const unsigned char *p, const unsigned char *e)
{
	if (p < s->mapped)
		return;
	input_ahead(s->in, (const char *)p);
	/* a file read into memory (a pipe) has nothing to map */
	s->mapped = s->in->ahead ? (const unsigned char *)s->in->data + s->in->ahead : e;
}

static int records(struct pd *s, const unsigned char *p, const unsigned char *e, bool inner)
{
	while (p < e) {
		if (!inner)
			read_ahead(s, p, e);
		if (e - p < 8)
			return fail(s, p, "%lld bytes left, less than a record header (8 bytes)",
				    (long long)(e - p));
		uint32_t type = rd32(s, p);
		uint32_t size = rd16(s, p + 6);
		if (size < 8 || size > e - p)
			return fail(s, p,
				    "a record of type %u (%s) claims %u bytes, %lld left (8 to the "
				    "end expected)",
				    type,
				    type < R_TYPES && rec_name[type] ? rec_name[type] : "unknown",
				    size, (long long)(e - p));
		s->count[type < R_TYPES ? type : R_TYPES]++;
		int rc = 0;
		switch (type) {
		case R_COMPRESSED: rc = compressed(s, p, size); break;
		case R_FINISHED_ROUND: rc = flush(s); break;
		case R_HEADER_ATTR: {
			if (size < 16)
				return fail(s, p, "a HEADER_ATTR record of %u bytes", size);
			uint32_t asz = rd32(s, p + 12);
			if (asz < 64 || asz > size - 8)
				return fail(s, p,
					    "an event attribute of %u bytes in a record of %u", asz,
					    size);
			if (add_attr(s, p + 8, asz))
				return -1;
			for (const unsigned char *q = p + 8 + asz; q + 8 <= p + size; q += 8)
				if (add_id(s, rd64(s, q), s->nattrs - 1))
					return -1;
			layouts(s);
			break;
		}
		case R_HEADER_TRACING_DATA:
			/* the tracing data follows the record, outside its size */
			if (size >= 12 && !inner) {
				uint64_t extra = rd32(s, p + 8);
				extra = (extra + 7) & ~(uint64_t)7;
				if (extra > (uint64_t)(e - p - size))
					return fail(s, p, "tracing data of %llu bytes past the end",
						    (unsigned long long)extra);
				if (!s->trace)
					s->trace =
					    perf_trace_new(p + size, rd32(s, p + 8), &s->trace_why);
				p += extra;
			}
			break;
		case R_HEADER_BUILD_ID: rc = build_id_rec(s, p, size); break;
		case R_HEADER_FEATURE:
			if (size >= 16)
				rc = feature(s, (int)rd64(s, p + 8), p + 16, p + size);
			break;
		default:
			if (type >= R_KERNEL_MAX) {
				break;
			} else if (s->sort_rounds) {
				uint64_t t = rec_time(s, p, type, size);
				if (t == UINT64_MAX) {
					s->no_time++;
					rc = handle(s, p);
				} else {
					if (GROW(s, s->refs, s->rcap, (uint64_t)s->nrefs + 1))
						return -1;
					if (s->nrefs && t < s->refs[s->nrefs - 1].time)
						s->unsorted = true;
					s->refs[s->nrefs++] = (struct ref){t, s->seq++, p};
				}
			} else {
				rc = handle(s, p);
			}
			break;
		}
		if (rc)
			return rc;
		p += size;
		/* the pages read, once no record of the round points into them */
		if (!inner && !s->nrefs && p - s->forget_at > ((ptrdiff_t)8 << 20)) {
			input_forget(s->in, (const char *)p);
			s->forget_at = p;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- the file */

struct section {
	uint64_t off, size;
};

static int section_at(struct pd *s, const unsigned char *p, struct section *x, const char *what)
{
	x->off = rd64(s, p);
	x->size = rd64(s, p + 8);
	uint64_t len = (uint64_t)(s->end - s->base);
	if (x->off > len || x->size > len - x->off)
		return fail(s, p,
			    "the %s section [%llu, +%llu) is past the end of the file (%llu "
			    "bytes: cut short?)",
			    what, (unsigned long long)x->off, (unsigned long long)x->size,
			    (unsigned long long)len);
	return 0;
}

static int file_header(struct pd *s, struct section *data)
{
	const unsigned char *h = s->base;
	if (s->end - h < 104)
		return fail(s, h, "a perf.data header of %lld bytes (104 expected: cut short?)",
			    (long long)(s->end - h));
	uint64_t hsize = rd64(s, h + 8), asize = rd64(s, h + 16);
	if (hsize < 104)
		return fail(s, h + 8, "header size %llu (at least 104 expected)",
			    (unsigned long long)hsize);
	struct section attrs, types;
	if (section_at(s, h + 24, &attrs, "attributes") || section_at(s, h + 40, data, "data") ||
	    section_at(s, h + 56, &types, "event types"))
		return -1;
	if (asize < 64 + 16 || asize > 4096)
		return fail(s, h + 16, "attribute entries of %llu bytes (80 to 4096 expected)",
			    (unsigned long long)asize);
	uint64_t n = attrs.size / asize;
	for (uint64_t i = 0; i < n; i++) {
		const unsigned char *a = s->base + attrs.off + i * asize;
		uint64_t own = rd32(s, a + 4); /* attr.size */
		uint64_t asz = asize - 16;
		if (own >= 64 && own < asz)
			asz = own;
		if (add_attr(s, a, asz))
			return -1;
		struct section ids;
		if (section_at(s, a + asize - 16, &ids, "event ids"))
			return -1;
		for (uint64_t k = 0; k + 8 <= ids.size; k += 8)
			if (add_id(s, rd64(s, s->base + ids.off + k), s->nattrs - 1))
				return -1;
	}
	layouts(s);
	/* the feature sections, after the data, one {offset, size} per bit set */
	const unsigned char *fp = s->base + data->off + data->size;
	for (int bit = 0; bit < F_BITS; bit++) {
		uint64_t word = rd64(s, h + 72 + 8 * (bit / 64));
		if (!(word >> (bit % 64) & 1))
			continue;
		if (s->end - fp < 16)
			break; /* a file still being written: no features yet */
		struct section f;
		if (section_at(s, fp, &f, "feature"))
			return -1;
		fp += 16;
		if (feature(s, bit, s->base + f.off, s->base + f.off + f.size))
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- the report */

static void report(struct pd *s)
{
	struct pv_builder *b = s->b;
	if (s->lost)
		builder_lossy(b, s->lost,
			      "events lost by the kernel (LOST records: the ring buffer "
			      "was full)");
	if (s->lost_samples)
		builder_lossy(b, s->lost_samples, "samples lost (LOST_SAMPLES records)");
	if (s->throttled)
		builder_lossy(b, s->throttled,
			      "times the kernel throttled sampling (THROTTLE records)");
	if (s->read_groups)
		builder_lossy(b, s->read_groups,
			      "samples' counter values (PERF_SAMPLE_READ) without event ids: the "
			      "sample kept with its period, the values not");
	if (s->read_unknown)
		builder_lossy(b, s->read_unknown,
			      "counter values (PERF_SAMPLE_READ) of an event id with no attribute "
			      "not used");
	if (s->branch_stacks)
		builder_lossy(b, s->branch_stacks, "samples' branch stacks not kept");
	for (int w = 1; w < PU_NR_STATUS; w++)
		if (s->uw_why[w])
			builder_lossy(
			    b, s->uw_why[w],
			    "samples' user stacks (--call-graph dwarf) not unwound, their "
			    "user part the sampled address alone: %s",
			    pu_status_text((enum pu_status)w));
	if (s->tracepoint_fields)
		builder_lossy(
		    b, s->tracepoint_fields,
		    "tracepoint samples' raw fields not decoded (markers without payload): %s",
		    s->trace ? "no format for their event in the tracing data, or fields past "
			       "their raw data"
		    : s->trace_why ? s->trace_why
				   : "the file holds no tracing data (HEADER_TRACING_DATA)");
	if (s->hv_frames)
		builder_lossy(b, s->hv_frames, "hypervisor addresses not named ([unknown])");
	if (s->guest_frames)
		builder_lossy(b, s->guest_frames, "guest addresses not named ([unknown])");
	if (s->no_attr)
		builder_lossy(b, s->no_attr,
			      "records of an event id with no attribute (read as "
			      "the first event's)");
	if (s->bad_times)
		builder_lossy(b, s->bad_times,
			      "samples with a time past 2^62 ns (damaged?): kept without a time");
	if (s->big_periods)
		builder_lossy(b, s->big_periods,
			      "samples with a period past 2^40 (damaged?): counted as 2^40");
	if (s->no_time)
		builder_lossy(b, s->no_time, "records without a time, used where they stand");
	for (uint32_t t = 0; t <= R_TYPES; t++) {
		if (!s->count[t])
			continue;
		switch (t) {
		case R_SAMPLE:
		case R_COMM:
		case R_FORK:
		case R_MMAP:
		case R_MMAP2:
		case R_LOST:
		case R_LOST_SAMPLES:
		case R_THROTTLE:
		case R_FINISHED_ROUND:
		case R_COMPRESSED:
		case R_HEADER_ATTR:
		case R_HEADER_TRACING_DATA:
		case R_HEADER_BUILD_ID:
		case R_HEADER_FEATURE:
		case R_EXIT:
		case R_FINISHED_INIT: continue;
		default: break;
		}
		const char *n = t < R_TYPES ? rec_name[t] : NULL;
		if (n)
			builder_lossy(b, s->count[t], "%s records not used", n);
		else
			builder_lossy(b, s->count[t], "records of an unknown type not used");
	}
	for (uint32_t d = 0; d < s->ndsos; d++) {
		const struct dso *x = &s->dsos[d];
		char why[4400];
		if (x->unnamed)
			builder_lossy(b, x->unnamed, "addresses in %s not named: %s",
				      pv_str(b->p, x->path),
				      symz_why(s->z, x->h, x->why, why, sizeof(why)));
	}
	unread_features(s);
	if (s->hostname || s->osrelease || s->cmdline)
		builder_lossy(b, 1, "recorded on %s (%s %s, %s), not kept: %s",
			      s->hostname ? pv_str(b->p, s->hostname) : "?",
			      s->osrelease ? "Linux" : "", pv_str(b->p, s->osrelease),
			      s->arch ? pv_str(b->p, s->arch) : "?", pv_str(b->p, s->cmdline));
}

/* ---------------------------------------------------------------- probe and import */

static int probe(const struct pv_input *in)
{
	if (in->len < 16)
		return 0;
	uint64_t m;
	memcpy(&m, in->data, 8);
	return m == MAGIC2 || m == MAGIC2_SWAPPED ? 100 : 0;
}

static void release(struct pd *s)
{
	for (uint32_t i = 0; i < s->nprocs; i++)
		pv_free(s->procs[i].m);
	for (uint32_t i = 0; i < s->ntasks; i++) {
		pv_free(s->tasks[i].ips);
		pv_free(s->tasks[i].st);
	}
	pv_free(s->procs);
	pv_free(s->tasks);
	pv_free(s->attrs);
	pv_free(s->ids);
	pv_free(s->dsos);
	pv_free(s->bids);
	pv_free(s->refs);
	pv_free(s->spare);
	pv_free(s->chain);
	pu_free(s->uw);
	pv_free(s->uw_chain);
	pv_free(s->uw_stack);
	pv_free(s->inl);
	pv_free(s->inl_off);
	pv_free(s->inl_len);
	pv_free(s->inl_frames);
	u64map_release(&s->inl_map);
	pv_free(s->modes);
	pv_free(s->frames);
	pv_free(s->addrs);
	pv_free(s->weights);
	pv_free(s->carry);
	free_chunks(&s->chunks);
	u64map_release(&s->dso_map);
	u64map_release(&s->bid_map);
	u64map_release(&s->proc_map);
	u64map_release(&s->task_map);
	u64map_release(&s->thread_map);
	u64map_release(&s->frame_map);
	if (s->zs)
		ZSTD_freeDStream(s->zs);
	symz_free(s->z);
	perf_trace_free(s->trace);
	pv_free(s->json.buf);
}

/* Process names: the comm of each process's main thread (tid = pid). */
static void name_processes(struct pd *s)
{
	struct pv_profile *p = s->b->p;
	for (uint32_t th = 0; th < p->threads.len; th++) {
		int64_t pid = p->threads.pid[th];
		uint32_t ti = pid < 0 ? UINT32_MAX : u64map_get(&s->task_map, (uint32_t)pid);
		if (ti != UINT32_MAX)
			p->threads.process_name[th] = s->tasks[ti].comm;
	}
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct pd s = {.b = b,
		       .in = in,
		       .err = err,
		       .base = (const unsigned char *)in->data,
		       .end = (const unsigned char *)in->data + in->len,
		       .forget_at = (const unsigned char *)in->data,
		       .kdso = UINT32_MAX,
		       .min_time = INT64_MAX,
		       .id_pos = -1,
		       .id_trail = -1};
	if (in->len < 16)
		return input_fail_byte(
		    in, err, PV_EPARSE, 0,
		    "a perf.data file of %zu bytes (a header of at least 16 expected: "
		    "cut short?)",
		    in->len);
	uint64_t m;
	memcpy(&m, in->data, 8);
	if (m != MAGIC2 && m != MAGIC2_SWAPPED)
		return input_fail_byte(in, err, PV_EPARSE, 0,
				       "not a perf.data file (the magic PERFILE2 expected)");
	s.swap = m == MAGIC2_SWAPPED;
	s.z = symz_new(b->sym);
	int rc = 0;
	if (!s.z) {
		rc = oom(&s);
		goto out;
	}
	s.unknown_frame = builder_func_frame(
	    b, builder_func(b, builder_str(b, "[unknown]", 9), PV_NONE, PV_NONE, 0));
	uint64_t hsize = rd64(&s, s.base + 8);
	if (hsize == 16) {
		/* pipe mode: the records follow the 16-byte header */
		s.pipe = true;
		s.data_end = s.end;
		rc = records(&s, s.base + 16, s.end, false);
	} else {
		struct section data;
		rc = file_header(&s, &data);
		if (!rc) {
			s.data_end = s.base + data.off + data.size;
			rc = records(&s, s.base + data.off, s.data_end, false);
		}
	}
	if (!rc)
		rc = flush(&s);
	if (!rc && s.ncarry)
		rc = fail(&s, s.end,
			  "the last COMPRESSED record ends inside a record (%zu bytes "
			  "of it)",
			  s.ncarry);
	if (rc)
		goto out;
	if (b->status) {
		rc = b->status;
		goto out;
	}
	if (s.nsamples == 0 && s.nmarkers == 0 && !s.nattrs) {
		rc = input_fail_byte(in, err, PV_EPARSE, 0,
				     "a perf.data file without any event attribute");
		goto out;
	}
	order_metrics(&s);
	if (b->p->metrics.len == 0)
		builder_metric(b, builder_cstr(b, "samples"), PV_UNIT_COUNT);
	name_processes(&s);
	/* a binary named from another file than its recorded path (--symbols, perf's build-id
	 * cache): that file, checked by build id, is the module's (annotate disassembles it) */
	for (uint32_t d = 0; d < s.ndsos; d++) {
		const char *f = symz_file(s.z, s.dsos[d].h);
		if (f && s.dsos[d].mod != PV_NONE && strcmp(f, pv_str(b->p, s.dsos[d].path)) != 0 &&
		    b->p->modules.path)
			b->p->modules.path[s.dsos[d].mod] = builder_cstr(b, f);
	}
	if (s.min_time != INT64_MAX)
		perf_rebase_times(b, s.min_time);
	report(&s);
	if (s.version) {
		b->p->meta.format_version = s.version;
		b->p->meta.product = builder_strf(b, "perf %s", pv_str(b->p, s.version));
	}
	if (s.interval > 0)
		b->p->meta.interval_ns = s.interval;
	rc = b->status;
out:
	/* the first error's code: its message is in err */
	if (rc && s.rc)
		rc = s.rc;
	else if (rc)
		rc = pv_error_set(err, b->status ? b->status : PV_ENOMEM, "%s: %s while importing",
				  in->name, pv_strerror(b->status ? b->status : PV_ENOMEM));
	release(&s);
	return rc;
}

const struct importer importer_perf_data = {
    .name = "perf-data",
    .description = "Linux perf record's perf.data (PERFILE2, file or pipe), symbols from "
		   "this machine",
    .probe = probe,
    .import = import,
};

/*
 * perf_script.h - the perf script importer's private state, shared by perf_script.c (the probe
 * and the one pass over the text: event header lines, frame lines, stacks and samples) and
 * perf_script_text.c (module names, tracepoint payloads as JSON, the import report); the
 * scanners both use, inline.
 */
#ifndef PV_IMPORT_PERF_SCRIPT_H
#define PV_IMPORT_PERF_SCRIPT_H

#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "import/importer.h"
#include "import/perf/perf_common.h"

/* ---------------------------------------------------------------- small scanners */

static inline const char *token_end(const char *p, const char *e)
{
	while (p < e && !text_is_blank(*p))
		p++;
	return p;
}

/* Decimal digits [p, e) into *v; 0 when empty, not all digits or past 18 digits. */
static inline int parse_u64(const char *p, const char *e, int64_t *v)
{
	if (p == e || e - p > 18)
		return 0;
	int64_t x = 0;
	for (; p < e; p++) {
		if (!text_is_digit(*p))
			return 0;
		x = x * 10 + (*p - '0');
	}
	*v = x;
	return 1;
}

/* A task id: digits, optionally negative (perf prints -1 for no task). */
static inline int parse_id(const char *p, const char *e, int64_t *v)
{
	int neg = p < e && *p == '-';
	if (!parse_u64(p + neg, e, v))
		return 0;
	if (neg)
		*v = -*v;
	return 1;
}

/* ---------------------------------------------------------------- import state */

struct fc_ent {
	uint32_t h;    /* 0: empty */
	pv_str_ix key; /* the symbol text as read, interned */
	pv_module_ix mod;
	pv_frame_ix frame;
};

/*
 * A frame line met before: its frame, the stack it last made on top of which prefix (the same
 * call site mostly has the same callers), then its text (from the address on), padded to 8.
 */
struct line_rec {
	uint32_t len;
	pv_frame_ix frame;
	pv_stack_ix memo_prefix, memo_stack;
	uint32_t next; /* the record of the line that followed it last time, 0 for none */
	uint32_t pad;
};

/* record ids: (chunk << REC_BITS | 8-byte unit in the chunk) + 1; chunks of 4 MiB */
#define REC_BITS   19
#define REC_CHUNKS 8192
#define REC(s, r)                                               \
	((struct line_rec *)((s)->rchunk[((r)-1) >> REC_BITS] + \
			     (size_t)(((r)-1) & ((1u << REC_BITS) - 1)) * 8))

struct tstate {
	int64_t pid, tid;
	pv_str_ix comm;
	pv_thread_ix th;
	/* the previous sample's path, root first, and its stacks */
	pv_frame_ix *pf;
	pv_stack_ix *ps;
	uint32_t plen, pcap;
};

struct event {
	pv_str_ix name;
	pv_metric_ix metric; /* PV_NONE until the first sample of the event */
	int kind;	     /* EV_SAMPLE, EV_TRACEPOINT, EV_SIDEBAND */
};

enum { EV_SAMPLE, EV_TRACEPOINT, EV_SIDEBAND };

struct pending_inline {
	const char *sym, *sym_end; /* in the input, or an interned string */
	uint32_t at;		   /* its row in frames */
	int has_addr;		   /* addr: the line's address (IP) */
	uint64_t addr;
	const char *file, *file_end; /* its srcline's file (in the input), NULL when none */
	uint32_t line;		     /* its srcline's line, 0 when none */
};

struct pstate {
	struct pv_builder *b;
	struct pv_input *in;
	int shape;

	/* (symbol, module) -> frame */
	struct fc_ent *fc;
	void *fc_raw;
	uint32_t fc_mask, fc_count;

	/* frame line text -> record: a hit skips parsing the line */
	char **rchunk; /* line_rec + text, 8-aligned, never moved */
	void **rraw;   /* what to free of each chunk */
	uint32_t nrchunk, rchunk_cap;
	uint32_t rused;	 /* 8-byte units used in the last chunk */
	uint64_t *lslot; /* (low 32 bits of the hash << 32) | record id; 0: empty */
	void *lslot_raw;
	uint32_t lmask, lcount;
	uint32_t prev_rec; /* the record of the previous frame line of this sample, 0 for none */

	/* dso text -> module */
	struct u64map dso_map; /* interned dso text -> module + 0 */
	const char *last_dso;  /* interned text of the last dso seen */
	uint32_t last_dso_len;
	pv_module_ix last_mod;

	/* threads */
	struct tstate *ts;
	uint32_t nts, tscap;
	uint32_t *tmap; /* hash slots: ts index + 1 */
	uint32_t tmask;
	uint32_t last_ts;

	struct event *ev;
	uint32_t nev, evcap;
	uint32_t last_ev;

	int64_t *weights; /* one per metric, all 0 between samples */
	uint32_t wcap;

	/* the sample being read */
	int active, skipping;
	uint32_t cur_ts, cur_ev;
	int64_t cur_time, cur_weight;
	pv_str_ix cur_payload; /* a tracepoint's fields as JSON */
	pv_frame_ix *frames;   /* leaf first */
	uint32_t *frame_rec;   /* the line record of each frame, 0 for none */
	uint32_t nframes, fcap;
	struct pending_inline *pend;
	uint32_t npend, pendcap;
	int prev_frame; /* the previous line was a frame line */
	/* the address of the sample's first frame when it came without a line record (a frame on
	 * the header line, a line not cached) */
	int has_first_addr;
	uint64_t first_addr;
	uint64_t *addr_col; /* samples.addr once made (builder_samples_addr), else NULL */
	/* the symbolizer of the frames perf printed as [unknown] in a known module (made at the
	 * first), each module's binary in it, and per module the addresses it named and those
	 * it could not name (why: the last reason, a symz_status) */
	struct symz *z;
	struct u64map mod_bin;
	struct ps_named {
		uint64_t named, unnamed;
		uint32_t why;
	} * named;
	uint32_t ncount;
	uint64_t nr_addrs; /* samples given their leaf address */

	struct perf_json json; /* tracepoint payloads */

	/* what the report says */
	uint64_t nsamples, nmarkers;
	uint64_t bad_lines, first_bad_line;
	const char *first_bad_at;
	uint64_t bad_headers, first_bad_header;
	uint64_t stray_frames, first_stray;
	uint64_t sideband, srclines, header_text, first_header_text;
	uint64_t srclines_kept; /* srclines with a file and a line: the frame's line */
	int64_t min_time;
	pv_str_ix perf_version;
	int64_t interval;
};

/*
 * n bytes (zeroed when zero); from 2 MiB on, 2 MiB-aligned in transparent huge pages (one fault
 * instead of 512: performance.md, first-touch faults are dear on these VMs). The block is
 * over-allocated for the alignment: *raw is what to free.
 */
#define HUGE_PAGE ((size_t)2 << 20)

static inline void *big_alloc(size_t n, int zero, void **raw)
{
	if (n < HUGE_PAGE) {
		*raw = zero ? pv_calloc(1, n) : pv_malloc(n);
		return *raw;
	}
	char *r = pv_malloc(n + HUGE_PAGE);
	*raw = r;
	if (!r)
		return NULL;
	char *p = (char *)(((uintptr_t)r + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	pv_huge_hint(p, n);
	if (zero)
		memset(p, 0, n);
	return p;
}

static inline int oom(struct pstate *s)
{
	if (!s->b->status)
		s->b->status = PV_ENOMEM;
	return -1;
}

#define ENSURE(s, ptr, cap, need) \
	((need) <= (cap) ? 0 : ensure_cap((s), (void **)&(ptr), sizeof(*(ptr)), &(cap), (need)))

static inline int ensure_cap(struct pstate *s, void **ptr, size_t elt, uint32_t *cap, uint64_t need)
{
	uint32_t nc = grow_cap(*cap, need);
	if (!nc || col_realloc(ptr, elt, nc))
		return oom(s);
	*cap = nc;
	return 0;
}

static inline int has_prefix(const char *p, size_t n, const char *pre)
{
	size_t m = strlen(pre);
	return n >= m && memcmp(p, pre, m) == 0;
}

static inline int has_suffix(const char *p, size_t n, const char *suf)
{
	size_t m = strlen(suf);
	return n >= m && memcmp(p + n - m, suf, m) == 0;
}

static inline const void *memmem_n(const char *p, size_t n, const char *s)
{
	return memmem(p, n, s, strlen(s));
}

/* ---- perf_script_text.c ---- */

pv_module_ix ps_module_of(struct pstate *s, const char *d, const char *de);
/* The name of a frame perf printed as [unknown] in module mod at the address [a, ae) (perf's
 * map-relative address), from the binary on this machine (import/symbols.h); NULL when it has
 * none (counted for the report). */
const char *ps_name_unknown(struct pstate *s, pv_module_ix mod, const char *a, const char *ae);
pv_str_ix ps_payload_json(struct pstate *s, const char *p, const char *e);
void ps_release(struct pstate *s);
void ps_name_processes(struct pstate *s);
void ps_rebase_times(struct pstate *s);
void ps_report(struct pstate *s);

#endif

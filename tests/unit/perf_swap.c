/*
 * perf_swap.c - a perf.data in the other byte order (perf_swap.h), field by field as perf and the
 * kernel of a machine of that order write it. How perf reads such a file is in its
 * tools/perf/util/session.c (perf_event__swap_ops), header.c (the header, the feature sections)
 * and evsel.c (the sample's fields); this writes what those expect:
 *
 *  - numbers swapped by their size: the file header (PERFILE2 reads byte-reversed), the
 *    attributes (perf_event_attr's u64, u32 and u16 fields; the bit-field word after
 *    read_format keeps its byte order with each byte's bits reversed, as a big-endian compiler
 *    allocates bit-fields from the most significant bit: perf's swap_bitfield), the ids, the
 *    feature sections by their layout;
 *  - records by their type's layout; a SAMPLE's u32 pairs (pid/tid, cpu/res) as two u32s (perf
 *    swaps a sample as u64s, then undoes that for these pairs), the same in the sample_id
 *    trailer of the other records; MMAP2's prot and flags too (perf leaves them as read); the
 *    user stack copy as 8-byte words (the memory of a machine of that order, which perf swaps);
 *  - tracepoint raw data as a kernel of that order writes it: its size a u32, each field of the
 *    event's format by its size (arrays by element, a __data_loc as one u32); the tracing data's
 *    own numbers and its byte-order flag (perf decodes raw fields by that flag);
 *  - COMPRESSED records inflated, the records they hold swapped (perf swaps them when it reads
 *    them) and compressed again, one zstd frame each, so each keeps its share of records;
 *  - strings and build ids as they are.
 * A layout it does not know (a record type, a feature, branch stacks) is refused, said in why.
 */
#include "perf_swap.h"

#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

enum { MAX_ATTRS = 64, MAX_IDS = 4096, MAX_FORMATS = 256, MAX_FIELDS = 64, MAX_CHUNKS = 65536 };

/* sample_type fields the writer knows (not branch stacks, AUX, WEIGHT_STRUCT) */
#define S_KNOWN ((PERF_SAMPLE_CODE_PAGE_SIZE << 1) - 1 - PERF_SAMPLE_BRANCH_STACK - PERF_SAMPLE_AUX)

struct attr {
	uint64_t type, config, sample_type, read_format, regs_user, regs_intr;
	bool id_all;
};

/* a tracepoint field: where, its size, the size of the numbers it holds (1: bytes) */
struct field {
	uint32_t off, size, elem;
};

struct format {
	uint64_t id;
	uint32_t n;
	struct field f[MAX_FIELDS];
};

struct sw {
	char *why;
	size_t cap;
	bool bad;
	struct attr attrs[MAX_ATTRS];
	uint32_t nattrs;
	uint64_t ids[MAX_IDS];
	uint32_t id_attr[MAX_IDS], nids;
	struct format *fmts;
	uint32_t nfmts;
	uint32_t ncpus; /* NRCPUS' available CPUs, for CPU_TOPOLOGY */
	/* the records the COMPRESSED ones hold, inflated, and each one's share of them */
	unsigned char *z;
	size_t nz, zcap, zat;
	size_t *zchunk;
	uint32_t nzchunks, zdone;
	bool zswapped;
	/* the file being written */
	unsigned char *o;
	size_t no, ocap;
};

/* a region of the output swapped in place */
struct cur {
	struct sw *s;
	unsigned char *p, *e;
};

static void bad(struct sw *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bad(struct sw *s, const char *fmt, ...)
{
	if (s->bad)
		return;
	s->bad = true;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->why, s->cap, fmt, ap);
	va_end(ap);
}

/* The native number of n bytes at p. */
static uint64_t nat(const unsigned char *p, int n)
{
	uint16_t v2;
	uint32_t v4;
	uint64_t v8;
	switch (n) {
	case 1: return p[0];
	case 2: memcpy(&v2, p, 2); return v2;
	case 4: memcpy(&v4, p, 4); return v4;
	default: memcpy(&v8, p, 8); return v8;
	}
}

static void reverse(unsigned char *p, int n)
{
	for (int i = 0; i < n / 2; i++) {
		unsigned char t = p[i];
		p[i] = p[n - 1 - i];
		p[n - 1 - i] = t;
	}
}

/* The number of n bytes at the cursor, swapped there: its native value. */
static uint64_t sx(struct cur *c, int n)
{
	if (c->e - c->p < n) {
		bad(c->s, "a number of %d bytes past the end of its part", n);
		c->p = c->e;
		return 0;
	}
	uint64_t v = nat(c->p, n);
	reverse(c->p, n);
	c->p += n;
	return v;
}

static void skip(struct cur *c, uint64_t n)
{
	if (n > (uint64_t)(c->e - c->p)) {
		bad(c->s, "%llu bytes past the end of their part", (unsigned long long)n);
		c->p = c->e;
		return;
	}
	c->p += n;
}

/* perf_header_string: a u32 length, that many bytes */
static void sstr(struct cur *c)
{
	skip(c, sx(c, 4));
}

static void s64s(struct cur *c)
{
	while (c->e - c->p >= 8)
		sx(c, 8);
}

static void put_other64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
	reverse(p, 8);
}

/* n bytes appended to the output: where they are (until the next append), NULL on failure */
static unsigned char *out_add(struct sw *s, const void *src, size_t n)
{
	if (s->no + n > s->ocap) {
		size_t cap = s->ocap ? s->ocap : 1 << 16;
		while (cap < s->no + n)
			cap *= 2;
		unsigned char *o = realloc(s->o, cap);
		if (!o) {
			bad(s, "out of memory");
			return NULL;
		}
		s->o = o;
		s->ocap = cap;
	}
	unsigned char *at = s->o + s->no;
	memcpy(at, src, n);
	s->no += n;
	return at;
}

/* ---------------------------------------------------------------- attributes */

static unsigned char revbits(unsigned char b)
{
	unsigned char r = 0;
	for (int i = 0; i < 8; i++)
		if (b >> i & 1)
			r |= (unsigned char)(0x80 >> i);
	return r;
}

/* perf_event_attr's numbers: offset and size (the bit-fields at 40 apart) */
static const struct {
	uint8_t off, n;
} attr_fields[] = {{0, 4},   {4, 4},   {8, 8},	 {16, 8},  {24, 8},  {32, 8},  {48, 4}, {52, 4},
		   {56, 8},  {64, 8},  {72, 8},	 {80, 8},  {88, 4},  {92, 4},  {96, 8}, {104, 4},
		   {108, 2}, {110, 2}, {112, 4}, {116, 4}, {120, 8}, {128, 8}, {136, 8}};

/* The attribute of sz bytes at p swapped; its native fields in *a. */
static void swap_attr(struct sw *s, unsigned char *p, uint64_t sz, struct attr *a)
{
	if (sz < 48) {
		bad(s, "an attribute of %llu bytes", (unsigned long long)sz);
		return;
	}
	*a = (struct attr){.type = nat(p, 4),
			   .config = nat(p + 8, 8),
			   .sample_type = nat(p + 24, 8),
			   .read_format = nat(p + 32, 8),
			   .regs_user = sz >= 88 ? nat(p + 80, 8) : 0,
			   .regs_intr = sz >= 104 ? nat(p + 96, 8) : 0,
			   .id_all = nat(p + 40, 8) >> 18 & 1};
	for (size_t i = 0; i < sizeof(attr_fields) / sizeof(attr_fields[0]); i++)
		if (attr_fields[i].off + attr_fields[i].n <= sz)
			reverse(p + attr_fields[i].off, attr_fields[i].n);
	for (int i = 0; i < 8; i++)
		p[40 + i] = revbits(p[40 + i]);
}

static struct attr *new_attr(struct sw *s)
{
	if (s->nattrs == MAX_ATTRS) {
		bad(s, "more than %d attributes", MAX_ATTRS);
		return NULL;
	}
	return &s->attrs[s->nattrs++];
}

/* The ids of attribute a at the cursor, swapped and kept. */
static void swap_ids(struct cur *c, uint32_t a)
{
	while (c->e - c->p >= 8 && !c->s->bad) {
		if (c->s->nids == MAX_IDS) {
			bad(c->s, "more than %d ids", MAX_IDS);
			return;
		}
		c->s->id_attr[c->s->nids] = a;
		c->s->ids[c->s->nids++] = sx(c, 8);
	}
}

/* ---------------------------------------------------------------- tracing data */

/* One event's format text: its id and the fields that hold numbers. */
static void parse_format(struct sw *s, const unsigned char *p, size_t n)
{
	char *t = malloc(n + 1);
	if (!t || s->nfmts == MAX_FORMATS) {
		free(t);
		bad(s, "out of memory, or more than %d formats", MAX_FORMATS);
		return;
	}
	memcpy(t, p, n);
	t[n] = 0;
	struct format *f = &s->fmts[s->nfmts++];
	memset(f, 0, sizeof(*f));
	const char *id = strstr(t, "\nID: ");
	f->id = id ? strtoull(id + 5, NULL, 10) : UINT64_MAX;
	for (char *l = t, *nl; l && f->n < MAX_FIELDS; l = nl) {
		if ((nl = strchr(l, '\n')))
			*nl++ = 0;
		char *decl = strstr(l, "field:"), *off = strstr(l, "offset:");
		char *size = off ? strstr(off, "size:") : NULL;
		if (!decl || !size)
			continue;
		struct field *x = &f->f[f->n++];
		x->off = (uint32_t)strtoul(off + 7, NULL, 10);
		x->size = (uint32_t)strtoul(size + 5, NULL, 10);
		char *semi = strchr(decl, ';'), *br = strchr(decl, '[');
		x->elem = x->size;
		if (semi && strstr(decl, "__data_loc") && strstr(decl, "__data_loc") < semi)
			x->elem = 4;
		else if (br && br < semi) {
			unsigned long k = strtoul(br + 1, NULL, 10);
			x->elem = k ? x->size / (uint32_t)k : 1;
		}
	}
	free(t);
}

/* A NUL-terminated string at the cursor, passed. */
static void cstr(struct cur *c)
{
	const unsigned char *z = memchr(c->p, 0, (size_t)(c->e - c->p));
	if (!z)
		bad(c->s, "a string of the tracing data without its end");
	c->p = z ? (unsigned char *)z + 1 : c->e;
}

/* perf's tracing data (trace-event-info.c), swapped; the events' formats kept. */
static void swap_tracing(struct sw *s, unsigned char *p, size_t n)
{
	struct cur c = {s, p, p + n};
	if (n < 12 || memcmp(p, "\x17\x08\x44tracing", 10) != 0) {
		bad(s, "tracing data without its magic");
		return;
	}
	c.p += 10;
	cstr(&c); /* the version */
	if (c.p < c.e)
		*c.p = !*c.p;	      /* the byte order of the numbers and of the raw fields */
	skip(&c, 2);		      /* that flag, sizeof(long) */
	sx(&c, 4);		      /* the page size */
	for (int i = 0; i < 2; i++) { /* header_page, header_event */
		cstr(&c);
		skip(&c, sx(&c, 8));
	}
	for (uint64_t k = sx(&c, 4); k-- && !s->bad;) /* ftrace's own formats */
		skip(&c, sx(&c, 8));
	for (uint64_t sys = sx(&c, 4); sys-- && !s->bad;) {
		cstr(&c);
		for (uint64_t k = sx(&c, 4); k-- && !s->bad;) {
			uint64_t len = sx(&c, 8);
			if (len <= (uint64_t)(c.e - c.p))
				parse_format(s, c.p, len);
			skip(&c, len);
		}
	}
	skip(&c, sx(&c, 4)); /* kallsyms */
	skip(&c, sx(&c, 4)); /* printk formats */
	if (c.p < c.e)
		skip(&c, sx(&c, 8)); /* saved command lines */
}

/* A tracepoint's raw data (n bytes at p) as the kernel of the other byte order writes it. */
static void swap_raw(struct sw *s, const struct attr *a, unsigned char *p, uint64_t n)
{
	if (a->type != 2) /* not a tracepoint: bytes perf does not swap either */
		return;
	const struct format *f = NULL;
	for (uint32_t i = 0; i < s->nfmts && !f; i++)
		if (s->fmts[i].id == a->config)
			f = &s->fmts[i];
	if (!f) {
		bad(s, "no format for tracepoint %llu", (unsigned long long)a->config);
		return;
	}
	for (uint32_t i = 0; i < f->n; i++) {
		const struct field *x = &f->f[i];
		if (x->elem != 2 && x->elem != 4 && x->elem != 8)
			continue;
		for (uint32_t k = 0; k + x->elem <= x->size && x->off + k + x->elem <= n;
		     k += x->elem)
			reverse(p + x->off + k, (int)x->elem);
	}
}

/* ---------------------------------------------------------------- feature sections */

static void swap_build_ids(struct cur *c)
{
	while (c->e - c->p >= 12 && !c->s->bad) {
		unsigned char *r = c->p;
		uint64_t size = nat(r + 6, 2);
		sx(c, 4);
		sx(c, 2);
		sx(c, 2);
		sx(c, 4); /* pid */
		c->p = r;
		if (size < 12)
			bad(c->s, "a build id record of %llu bytes", (unsigned long long)size);
		skip(c, size);
	}
}

static void swap_topology(struct cur *c)
{
	for (int k = 0; k < 2; k++) /* packages, cores: lists of CPUs */
		for (uint64_t m = sx(c, 4); m-- && !c->s->bad;)
			sstr(c);
	for (uint32_t i = 0; i < c->s->ncpus; i++) { /* core and socket of each CPU */
		sx(c, 4);
		sx(c, 4);
	}
	if (c->p == c->e)
		return;
	for (uint64_t m = sx(c, 4); m-- && !c->s->bad;) /* dies */
		sstr(c);
	for (uint32_t i = 0; i < c->s->ncpus; i++)
		sx(c, 4);
}

static void swap_event_desc(struct cur *c)
{
	uint64_t nre = sx(c, 4), sz = sx(c, 4);
	for (uint64_t i = 0; i < nre && !c->s->bad; i++) {
		struct attr a;
		if (sz > (uint64_t)(c->e - c->p)) {
			bad(c->s, "EVENT_DESC cut short");
			return;
		}
		swap_attr(c->s, c->p, sz, &a);
		c->p += sz;
		uint64_t nids = sx(c, 4);
		sstr(c);
		while (nids-- && !c->s->bad)
			sx(c, 8);
	}
}

/* Feature section feat (HEADER_* bit) of n bytes at p. */
static void swap_feature(struct sw *s, uint64_t feat, unsigned char *p, size_t n)
{
	struct cur c = {s, p, p + n};
	uint64_t m;
	switch (feat) {
	case 1: /* TRACING_DATA */ swap_tracing(s, p, n); return;
	case 2: /* BUILD_ID */ swap_build_ids(&c); break;
	case 3:
	case 4:
	case 5:
	case 6:
	case 8:
	case 9: /* host, release, version, arch, CPU */ sstr(&c); break;
	case 7: /* NRCPUS: available, online */
		s->ncpus = (uint32_t)sx(&c, 4);
		sx(&c, 4);
		break;
	case 10:
	case 18:
	case 21:
	case 22:
	case 23:
	case 24: /* u64s only */ s64s(&c); break;
	case 11: /* CMDLINE */
		for (m = sx(&c, 4); m-- && !s->bad;)
			sstr(&c);
		break;
	case 12: swap_event_desc(&c); break;
	case 13: swap_topology(&c); break;
	case 14: /* NUMA_TOPOLOGY: node, total and free memory, CPUs */
		for (m = sx(&c, 4); m-- && !s->bad; sstr(&c)) {
			sx(&c, 4);
			sx(&c, 8);
			sx(&c, 8);
		}
		break;
	case 15:
	case 19:
	case 32: /* BRANCH_STACK, STAT; the pipe form's end of features */ break;
	case 16: /* PMU_MAPPINGS: type, name */
		for (m = sx(&c, 4); m-- && !s->bad; sstr(&c))
			sx(&c, 4);
		break;
	case 17: /* GROUP_DESC: name, leader, members */
		for (m = sx(&c, 4); m-- && !s->bad; sx(&c, 4), sx(&c, 4))
			sstr(&c);
		break;
	case 20: /* CACHE: version, count; level, line size, sets, ways; type, size, map */
		sx(&c, 4);
		for (m = sx(&c, 4); m-- && !s->bad; sstr(&c), sstr(&c), sstr(&c))
			for (int k = 0; k < 4; k++)
				sx(&c, 4);
		break;
	case 25: /* BPF_PROG_INFO: none written by the writer */
		if (sx(&c, 4))
			bad(s, "BPF_PROG_INFO of programs, not known to the writer");
		break;
	case 26: /* BPF_BTF: id, size, data */
		for (m = sx(&c, 4); m-- && !s->bad;) {
			sx(&c, 4);
			skip(&c, sx(&c, 4));
		}
		break;
	case 27: /* COMPRESSED: version, type, level, ratio, mmap length */
		for (int k = 0; k < 5; k++)
			sx(&c, 4);
		break;
	case 31: /* PMU_CAPS: per PMU its capabilities (name, value) and its name */
		for (m = sx(&c, 4); m-- && !s->bad; sstr(&c))
			for (uint64_t k = sx(&c, 4); k-- && !s->bad; sstr(&c))
				sstr(&c);
		break;
	default:
		bad(s, "feature section %llu not known to the writer", (unsigned long long)feat);
		return;
	}
	if (c.p != c.e)
		bad(s, "feature section %llu: %zu bytes left", (unsigned long long)feat,
		    (size_t)(c.e - c.p));
}

/* ---------------------------------------------------------------- records */

/* The sample_id trailer (sample_id_all) at the end of a record other than SAMPLE. */
/* The cursor past the record's fixed fields (and a string); u64s: what is before the trailer
 * is u64s (READ's counts). */
static void swap_trailer(struct cur *c, const struct sw *s, bool u64s)
{
	uint64_t t = s->nattrs && s->attrs[0].id_all ? s->attrs[0].sample_type : 0;
	int n = !!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ID) +
		!!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_CPU) +
		!!(t & PERF_SAMPLE_IDENTIFIER);
	if (c->e - c->p < 8 * n) {
		bad(c->s, "a record shorter than its sample_id trailer");
		return;
	}
	while (u64s && c->e - c->p > 8 * n)
		sx(c, 8);
	c->p = c->e - 8 * n;
	/* in this order: pid and tid, time, id, stream id, cpu and res, identifier */
	static const uint64_t order[] = {PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
					 PERF_SAMPLE_ID,  PERF_SAMPLE_STREAM_ID,
					 PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER};
	for (int i = 0; i < 6; i++) {
		if (!(t & order[i]))
			continue;
		if (order[i] == PERF_SAMPLE_TID || order[i] == PERF_SAMPLE_CPU) {
			sx(c, 4);
			sx(c, 4);
		} else {
			sx(c, 8);
		}
	}
}

/* The attribute of the SAMPLE record r (its id, where the layout has one). */
static const struct attr *sample_attr(struct sw *s, const unsigned char *r, uint64_t size)
{
	if (!s->nattrs) {
		bad(s, "a SAMPLE record before any attribute");
		return NULL;
	}
	uint64_t t = s->attrs[0].sample_type;
	int pos = t & PERF_SAMPLE_IDENTIFIER ? 0
		  : t & PERF_SAMPLE_ID	     ? !!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID) +
					     !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ADDR)
				       : -1;
	if (pos < 0 || s->nattrs == 1)
		return &s->attrs[0];
	if (8 + 8 * (uint64_t)pos + 8 > size) {
		bad(s, "a SAMPLE record without its id");
		return NULL;
	}
	uint64_t id = nat(r + 8 + 8 * pos, 8);
	for (uint32_t i = 0; i < s->nids; i++)
		if (s->ids[i] == id)
			return &s->attrs[s->id_attr[i]];
	bad(s, "a SAMPLE record of id %llu, of no attribute", (unsigned long long)id);
	return NULL;
}

static void swap_regs(struct cur *c, uint64_t mask)
{
	if (sx(c, 8)) /* the ABI: none, no registers */
		for (int k = __builtin_popcountll(mask); k--;)
			sx(c, 8);
}

/* A SAMPLE record's fields (perf_event.h's order), the cursor past its header. */
static void swap_sample(struct cur *c, const unsigned char *r, uint64_t size)
{
	const struct attr *a = sample_attr(c->s, r, size);
	if (!a)
		return;
	uint64_t t = a->sample_type, rf = a->read_format;
	if (t & ~(uint64_t)S_KNOWN) {
		bad(c->s, "sample_type %#llx: a field the writer does not know",
		    (unsigned long long)t);
		return;
	}
	static const uint64_t head[] = {
	    PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP,   PERF_SAMPLE_TID,
	    PERF_SAMPLE_TIME,	    PERF_SAMPLE_ADDR, PERF_SAMPLE_ID,
	    PERF_SAMPLE_STREAM_ID,  PERF_SAMPLE_CPU,  PERF_SAMPLE_PERIOD};
	for (int i = 0; i < 9; i++) {
		if (!(t & head[i]))
			continue;
		if (head[i] == PERF_SAMPLE_TID ||
		    head[i] == PERF_SAMPLE_CPU) { /* two u32s: pid, tid; cpu, res */
			sx(c, 4);
			sx(c, 4);
		} else {
			sx(c, 8);
		}
	}
	if (t & PERF_SAMPLE_READ) { /* u64s: (nr), times, then value, id, lost (of each member) */
		uint64_t per = 1 + !!(rf & 4) + !!(rf & 16), times = !!(rf & 1) + !!(rf & 2);
		uint64_t n = rf & 8 ? sx(c, 8) * per + times : per + times;
		while (n-- && !c->s->bad)
			sx(c, 8);
	}
	if (t & PERF_SAMPLE_CALLCHAIN)
		for (uint64_t n = sx(c, 8); n-- && !c->s->bad;)
			sx(c, 8);
	if (t & PERF_SAMPLE_RAW) {
		uint64_t n = sx(c, 4);
		if (n <= (uint64_t)(c->e - c->p))
			swap_raw(c->s, a, c->p, n);
		skip(c, n);
	}
	if (t & PERF_SAMPLE_REGS_USER)
		swap_regs(c, a->regs_user);
	if (t & PERF_SAMPLE_STACK_USER) {
		/* the stack copy: memory of 8-byte words (perf swaps it so), its size after it */
		uint64_t n = sx(c, 8);
		for (uint64_t k = 0; k < n / 8 && !c->s->bad; k++)
			sx(c, 8);
		if (n)
			sx(c, 8);
	}
	for (uint64_t b = PERF_SAMPLE_WEIGHT; b <= PERF_SAMPLE_CODE_PAGE_SIZE; b <<= 1)
		if (b == PERF_SAMPLE_REGS_INTR && (t & b))
			swap_regs(c, a->regs_intr);
		else if ((t & b) && b != PERF_SAMPLE_IDENTIFIER)
			sx(c, 8);
	if (c->p != c->e && !c->s->bad)
		bad(c->s, "a SAMPLE record %zu bytes longer than its fields",
		    (size_t)(c->e - c->p));
}

/* perf_record_cpu_map_data: cpus (a list), a mask, or a range */
static void swap_cpu_map(struct cur *c)
{
	uint64_t type = sx(c, 2), n;
	if (type == 0) {
		for (n = sx(c, 2); n-- && !c->s->bad;)
			sx(c, 2);
	} else if (type == 1) {
		n = sx(c, 2);
		int word = (int)sx(c, 2);
		if (word == 8)
			skip(c, 4);
		while (n-- && !c->s->bad)
			sx(c, word == 8 ? 8 : 4);
	} else if (type == 2) {
		skip(c, 2); /* any_cpu, pad */
		sx(c, 2);
		sx(c, 2);
	}
	c->p = c->e;
}

/* The fields of a MMAP2 record after its header, before the file name. */
static void swap_mmap2(struct cur *c, uint64_t misc)
{
	sx(c, 4);
	sx(c, 4);
	for (int k = 0; k < 3; k++) /* start, length, pgoff */
		sx(c, 8);
	if (misc & (1u << 14)) { /* build id: its size, two reserved, 20 bytes */
		skip(c, 2);
		sx(c, 2);
		skip(c, 20);
	} else { /* maj, min, ino, ino_generation */
		sx(c, 4);
		sx(c, 4);
		sx(c, 8);
		sx(c, 8);
	}
	sx(c, 4); /* prot, flags */
	sx(c, 4);
}

/* The record at r (native, its header's size bytes), swapped in place. */
static void swap_record(struct sw *s, unsigned char *r)
{
	uint64_t type = nat(r, 4), misc = nat(r + 4, 2), size = nat(r + 6, 2);
	struct cur c = {s, r, r + size};
	sx(&c, 4);
	sx(&c, 2);
	sx(&c, 2);
	struct attr *a;
	switch (type) {
	case 1: /* MMAP: pid, tid; start, length, pgoff */
		sx(&c, 4);
		sx(&c, 4);
		for (int k = 0; k < 3; k++)
			sx(&c, 8);
		swap_trailer(&c, s, false);
		break;
	case 2:
	case 5:
	case 6:
	case 13: /* LOST, (UN)THROTTLE, LOST_SAMPLES: u64s */
		for (int k = type == 13 ? 1 : type == 2 ? 2 : 3; k--;)
			sx(&c, 8);
		swap_trailer(&c, s, false);
		break;
	case 3:
	case 8: /* COMM, READ: pid, tid; the name, or the counts */
		sx(&c, 4);
		sx(&c, 4);
		swap_trailer(&c, s, type == 8);
		break;
	case 4:
	case 7: /* EXIT, FORK: pid, ppid, tid, ptid, time */
		for (int k = 0; k < 4; k++)
			sx(&c, 4);
		sx(&c, 8);
		swap_trailer(&c, s, false);
		break;
	case 9: swap_sample(&c, r, size); break;
	case 10:
		swap_mmap2(&c, misc);
		swap_trailer(&c, s, false);
		break;
	case 64: /* HEADER_ATTR: the attribute, its ids */
		if (size < 16 || !(a = new_attr(s)) || nat(r + 12, 4) > size - 8) {
			bad(s, "a HEADER_ATTR record of %llu bytes", (unsigned long long)size);
			break;
		}
		c.p += nat(r + 12, 4);
		swap_attr(s, r + 8, nat(r + 12, 4), a);
		swap_ids(&c, s->nattrs - 1);
		break;
	case 66:
	case 67: /* HEADER_TRACING_DATA: its size; HEADER_BUILD_ID: pid */
		sx(&c, 4);
		c.p = c.e;
		break;
	case 68:
	case 82: /* FINISHED_ROUND, FINISHED_INIT */ break;
	case 69:
	case 79: /* ID_INDEX, TIME_CONV: u64s */ s64s(&c); break;
	case 73: /* THREAD_MAP: nr; pid and comm of each */
		for (uint64_t n = sx(&c, 8); n-- && !s->bad; skip(&c, 16))
			sx(&c, 8);
		break;
	case 74: swap_cpu_map(&c); break;
	case 78: /* EVENT_UPDATE: type, id; unit, scale, name or CPUs */
		type = sx(&c, 8);
		sx(&c, 8);
		if (type == 1)
			sx(&c, 8);
		else if (type == 3)
			swap_cpu_map(&c);
		c.p = c.e;
		break;
	case 80: /* HEADER_FEATURE: the feature's bit, its section */
		type = sx(&c, 8);
		swap_feature(s, type, c.p, (size_t)(c.e - c.p));
		c.p = c.e;
		break;
	default: bad(s, "record type %llu not known to the writer", (unsigned long long)type);
	}
	if (c.p != c.e && !s->bad)
		bad(s, "a record of type %llu: %zu bytes left", (unsigned long long)type,
		    (size_t)(c.e - c.p));
}

/* ---------------------------------------------------------------- COMPRESSED records */

/* A COMPRESSED record's n bytes of zstd inflated onto the records held (pass 1). */
static void inflate(struct sw *s, ZSTD_DCtx *d, const unsigned char *p, size_t n)
{
	if (s->nzchunks == MAX_CHUNKS) {
		bad(s, "more than %d COMPRESSED records", MAX_CHUNKS);
		return;
	}
	ZSTD_inBuffer in = {p, n, 0};
	size_t before = s->nz;
	bool full;
	do {
		if (s->zcap - s->nz < (1 << 16)) {
			size_t cap = s->zcap * 2 + (1 << 16);
			unsigned char *z = realloc(s->z, cap);
			if (!z) {
				bad(s, "out of memory");
				return;
			}
			s->z = z;
			s->zcap = cap;
		}
		ZSTD_outBuffer out = {s->z, s->zcap, s->nz};
		size_t rc = ZSTD_decompressStream(d, &out, &in);
		if (ZSTD_isError(rc)) {
			bad(s, "a COMPRESSED record zstd refuses: %s", ZSTD_getErrorName(rc));
			return;
		}
		full = out.pos == out.size;
		s->nz = out.pos;
	} while (in.pos < in.size || full);
	s->zchunk[s->nzchunks++] = s->nz - before;
}

/* The next COMPRESSED record (pass 2): its share of the records, swapped, compressed again. */
static void deflate_chunk(struct sw *s, uint64_t misc)
{
	for (size_t at = 0; !s->zswapped && at < s->nz && !s->bad;) {
		uint64_t size = s->nz - at >= 8 ? nat(s->z + at + 6, 2) : 0;
		if (size < 8 || size > s->nz - at) {
			bad(s, "the records of the COMPRESSED ones end inside a record");
			return;
		}
		swap_record(s, s->z + at);
		at += size;
	}
	s->zswapped = true;
	size_t len = s->zdone < s->nzchunks ? s->zchunk[s->zdone++] : 0;
	size_t bound = ZSTD_compressBound(len);
	unsigned char *buf = malloc(8 + bound);
	size_t n = buf ? ZSTD_compress(buf + 8, bound, s->z + s->zat, len, 1) : 0;
	s->zat += len;
	if (!buf || ZSTD_isError(n) || 8 + n > 0xffff) {
		bad(s, "a COMPRESSED record that cannot be written again (%zu bytes held)", len);
		free(buf);
		return;
	}
	uint32_t type = 81;
	uint16_t m = (uint16_t)misc, size = (uint16_t)(8 + n);
	memcpy(buf, &type, 4);
	memcpy(buf + 4, &m, 2);
	memcpy(buf + 6, &size, 2);
	reverse(buf, 4);
	reverse(buf + 4, 2);
	reverse(buf + 6, 2);
	out_add(s, buf, 8 + n);
	free(buf);
}

/* ---------------------------------------------------------------- the file */

/* The records in [p, e) of the input appended to the output, swapped: pass 1 inflates the
 * COMPRESSED ones, pass 2 writes. The pipe form's tracing data follows its record. */
static void swap_records(struct sw *s, const unsigned char *p, const unsigned char *e, bool pipe)
{
	ZSTD_DCtx *d = ZSTD_createDCtx();
	if (!d)
		bad(s, "out of memory");
	for (int pass = 0; pass < 2 && !s->bad; pass++)
		for (const unsigned char *q = p; q < e && !s->bad;) {
			uint64_t type = e - q >= 8 ? nat(q, 4) : 0,
				 size = e - q >= 8 ? nat(q + 6, 2) : 0;
			uint64_t extra = type == 66 && pipe && size >= 12 ? nat(q + 8, 4) : 0;
			if (size < 8 || size > (uint64_t)(e - q) ||
			    extra > (uint64_t)(e - q) - size) {
				bad(s, "byte %zu: a record cut short", (size_t)(q - p));
				break;
			}
			if (pass == 0 && type == 81)
				inflate(s, d, q + 8, size - 8);
			else if (type == 81)
				deflate_chunk(s, nat(q + 4, 2));
			else if (pass == 1) {
				unsigned char *o = out_add(s, q, size + extra);
				if (o)
					swap_record(s, o);
				if (o && extra)
					swap_tracing(s, o + size, extra);
			}
			q += size + extra;
		}
	ZSTD_freeDCtx(d);
}

/* The file form: header, attributes and ids, records, feature sections. */
static void swap_file(struct sw *s, const unsigned char *in, size_t n)
{
	uint64_t attr_size = nat(in + 16, 8), attrs = nat(in + 24, 8),
		 nattrs_bytes = nat(in + 32, 8);
	uint64_t off = nat(in + 40, 8), size = nat(in + 48, 8), end = off + size;
	if (n < 104 || attr_size < 64 || off < 104 || end < off || end > n || attrs > off ||
	    nattrs_bytes > off - attrs) {
		bad(s, "a file header the writer does not understand");
		return;
	}
	/* the feature sections first, in a copy (the tracing data's formats are for the samples) */
	size_t ntail = n - end;
	unsigned char *tail = malloc(ntail + 1);
	uint64_t feat_off[256];
	int nfeat = 0;
	if (!tail) {
		bad(s, "out of memory");
		return;
	}
	memcpy(tail, in + end, ntail);
	for (uint64_t f = 0; f < 256 && !s->bad; f++) {
		if (!(nat(in + 72 + 8 * (f / 64), 8) >> (f % 64) & 1))
			continue;
		struct cur c = {s, tail + 16 * nfeat, tail + ntail};
		uint64_t fo = sx(&c, 8), fs = sx(&c, 8);
		feat_off[nfeat++] = fo;
		if (fo < end || fo - end > ntail || fs > ntail - (fo - end))
			bad(s, "feature section %llu past the end", (unsigned long long)f);
		else
			swap_feature(s, f, tail + (fo - end), fs);
	}
	/* the header, attributes and their ids as they are placed */
	unsigned char *o = out_add(s, in, off);
	struct cur h = {s, o, o + 104};
	s64s(&h);
	for (uint64_t a = 0; o && a < nattrs_bytes / attr_size && !s->bad; a++) {
		unsigned char *at = o + attrs + a * attr_size;
		struct attr *x = new_attr(s);
		uint64_t io = nat(at + attr_size - 16, 8), is = nat(at + attr_size - 8, 8);
		if (x)
			swap_attr(s, at, attr_size - 16, x);
		struct cur ids = {s, o + io, o + io + is},
			   sec = {s, at + attr_size - 16, at + attr_size};
		if (io > off || is > off - io)
			bad(s, "the ids of attribute %llu are not before the records",
			    (unsigned long long)a);
		else
			swap_ids(&ids, s->nattrs - 1);
		s64s(&sec);
	}
	swap_records(s, in + off, in + end, false);
	if (!s->bad) {
		put_other64(s->o + 48, s->no - off);
		for (int i = 0; i < nfeat; i++)
			put_other64(tail + 16 * i, feat_off[i] - end + s->no); /* records resized */
		out_add(s, tail, ntail);
	}
	free(tail);
}

int perf_swap(const unsigned char *in, size_t n, unsigned char **out, size_t *on, char *why,
	      size_t cap)
{
	struct sw *s = calloc(1, sizeof(*s));
	int rc = -1;
	if (!s) {
		snprintf(why, cap, "out of memory");
		return -1;
	}
	s->why = why;
	s->cap = cap;
	s->fmts = calloc(MAX_FORMATS, sizeof(*s->fmts));
	s->zchunk = calloc(MAX_CHUNKS, sizeof(*s->zchunk));
	if (!s->fmts || !s->zchunk)
		bad(s, "out of memory");
	else if (n < 16 || nat(in, 8) != 0x32454c4946524550ull)
		bad(s, "not a perf.data of this machine's byte order");
	else if (nat(in + 8, 8) == 16) { /* the pipe form: magic, size, records */
		unsigned char *o = out_add(s, in, 16);
		struct cur h = {s, o, o + 16};
		s64s(&h);
		swap_records(s, in + 16, in + n, true);
	} else {
		swap_file(s, in, n);
	}
	if (!s->bad) {
		*out = s->o;
		*on = s->no;
		s->o = NULL;
		rc = 0;
	}
	free(s->o);
	free(s->z);
	free(s->fmts);
	free(s->zchunk);
	free(s);
	return rc;
}

int perf_swap_file(const char *in, const char *out, char *why, size_t cap)
{
	FILE *f = fopen(in, "rb");
	unsigned char *buf = NULL, *o = NULL;
	size_t n = 0, on = 0;
	long len = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
	int rc = -1;
	if (len >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len + 1)) &&
	    fread(buf, 1, (size_t)len, f) == (size_t)len) {
		n = (size_t)len;
		rc = perf_swap(buf, n, &o, &on, why, cap);
	} else {
		snprintf(why, cap, "%s: cannot be read", in);
	}
	if (f)
		fclose(f);
	free(buf);
	if (rc)
		return rc;
	FILE *w = fopen(out, "wb");
	bool ok = w && fwrite(o, 1, on, w) == on;
	if (w && fclose(w) != 0)
		ok = false;
	if (!ok) {
		snprintf(why, cap, "%s: cannot be written", out);
		rc = -1;
	}
	free(o);
	return rc;
}

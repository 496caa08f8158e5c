/*
 * pprof.c - pprof's profile.proto (Go's runtime/pprof, gperftools, perf_data_converter,
 * async-profiler, ...), gzip or plain (the loader inflates gzip before we see it).
 *
 * Decoding is protobuf-c's, from our own schema (profile.proto, turned into C at build time),
 * with a bump allocator over one arena freed whole at the end. When protobuf-c rejects the
 * input, a walk of the wire format against the same schema finds the byte offset of the first
 * fault for the one-line error (protobuf-c says only that it failed).
 *
 * How the file maps onto the model:
 * - every sample type is a metric named by its type; its unit: nanoseconds (microseconds,
 *   milliseconds and seconds are scaled to ns), bytes, count/samples, cycles, instructions,
 *   else "other" (reported). The default metric is default_sample_type, else the last sample
 *   type (pprof's rule).
 * - samples keep their values as weights; their location lists (leaf first) become root-first
 *   stacks. A location with several lines is an inlined call chain: the last line is the
 *   outermost function (inline depth 0), each line before it one level deeper.
 * - mappings are modules (name = the file's base name, kind from mapping[0] = main binary and
 *   the file name); addresses become module-relative (address - memory_start + file_offset).
 *   A location without lines is the function "0xADDR" of its module.
 * - labels are kept in the model (pv_labels / pv_label_sets, one set per sample), string or
 *   numeric with their unit.
 * - drop_frames / keep_frames are applied as pprof's Profile.Prune does.
 * - one thread ("all samples"): profile.proto has no threads (a label may name one).
 * - the period, period type, duration, time, comments and anything else the model has no place
 *   for are listed in the import report.
 */
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <protobuf-c/protobuf-c.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/hash.h"
#include "base/sort.h"
#include "import/importer.h"
#include "import/pbmem.h"
#include "import/symbols.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Label Label;

/* ---- the wire format, for the probe and for error positions ---- */

enum msg_kind {
	M_PROFILE,
	M_VALUETYPE,
	M_SAMPLE,
	M_LABEL,
	M_MAPPING,
	M_LOCATION,
	M_LINE,
	M_FUNCTION
};
/* What a field holds: V varint, P repeated varint (packed or not), B bytes, or a message. */
enum field_kind { F_ANY = 0, F_V, F_P, F_B, F_MSG };

struct field_spec {
	unsigned char kind;
	unsigned char msg; /* enum msg_kind for F_MSG */
};

#define NFIELDS 16
static const struct field_spec schema[][NFIELDS] = {
    [M_PROFILE] = {{0},
		   {F_MSG, M_VALUETYPE},
		   {F_MSG, M_SAMPLE},
		   {F_MSG, M_MAPPING},
		   {F_MSG, M_LOCATION},
		   {F_MSG, M_FUNCTION},
		   {F_B, 0},
		   {F_V, 0},
		   {F_V, 0},
		   {F_V, 0},
		   {F_V, 0},
		   {F_MSG, M_VALUETYPE},
		   {F_V, 0},
		   {F_P, 0},
		   {F_V, 0},
		   {F_V, 0}},
    [M_VALUETYPE] = {{0}, {F_V, 0}, {F_V, 0}},
    [M_SAMPLE] = {{0}, {F_P, 0}, {F_P, 0}, {F_MSG, M_LABEL}},
    [M_LABEL] = {{0}, {F_V, 0}, {F_V, 0}, {F_V, 0}, {F_V, 0}},
    [M_MAPPING] = {{0},
		   {F_V, 0},
		   {F_V, 0},
		   {F_V, 0},
		   {F_V, 0},
		   {F_V, 0},
		   {F_V, 0},
		   {F_V, 0},
		   {F_V, 0},
		   {F_V, 0},
		   {F_V, 0}},
    [M_LOCATION] = {{0}, {F_V, 0}, {F_V, 0}, {F_V, 0}, {F_MSG, M_LINE}, {F_V, 0}},
    [M_LINE] = {{0}, {F_V, 0}, {F_V, 0}, {F_V, 0}},
    [M_FUNCTION] = {{0}, {F_V, 0}, {F_V, 0}, {F_V, 0}, {F_V, 0}, {F_V, 0}},
};
static const char *const msg_names[] = {"Profile", "ValueType", "Sample", "Label",
					"Mapping", "Location",	"Line",	  "Function"};

/* A varint at *p (advanced past it): 0, -1 when truncated, -2 when longer than 64 bits. */
static int get_varint(const uint8_t **p, const uint8_t *e, uint64_t *v)
{
	uint64_t x = 0;
	for (unsigned i = 0; i < 10; i++) {
		if (*p >= e)
			return -1;
		uint8_t c = *(*p)++;
		if (i == 9 && c > 1)
			return -2;
		x |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -2;
}

struct wire_fault {
	const uint8_t *at;
	char what[160];
};

__attribute__((format(printf, 3, 4))) static int fault(struct wire_fault *f, const uint8_t *at,
						       const char *fmt, ...)
{
	f->at = at;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->what, sizeof(f->what), fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Walks message kind k in [p, e): every tag, wire type and length checked against the schema,
 * nested messages walked too (depth is bounded by the schema: Profile > Location > Line).
 * top_limit stops a top-level walk early (the probe): the number of fields to look at, 0 = all.
 * Returns the number of fields read, or -1 with f filled.
 */
static long walk(const uint8_t *p, const uint8_t *e, enum msg_kind k, struct wire_fault *f,
		 long top_limit, unsigned *seen)
{
	long n = 0;
	while (p < e) {
		if (top_limit && n >= top_limit)
			return n;
		const uint8_t *start = p;
		uint64_t tag, v;
		int r = get_varint(&p, e, &tag);
		if (r)
			return fault(f, start,
				     r == -1 ? "%s: truncated field tag"
					     : "%s: field tag longer than 64 bits",
				     msg_names[k]);
		uint64_t num = tag >> 3;
		unsigned wt = (unsigned)(tag & 7);
		if (num == 0 || num > 536870911)
			return fault(f, start, "%s: field number %llu is not valid", msg_names[k],
				     (unsigned long long)num);
		struct field_spec fs = num < NFIELDS ? schema[k][num] : (struct field_spec){0};
		if (seen && num < 32)
			*seen |= 1u << num;
		switch (wt) {
		case 0:
			if (fs.kind != F_ANY && fs.kind != F_V && fs.kind != F_P)
				return fault(f, start,
					     "%s field %llu: a number where a length-delimited "
					     "value was expected",
					     msg_names[k], (unsigned long long)num);
			r = get_varint(&p, e, &v);
			if (r)
				return fault(f, start,
					     r == -1 ? "%s field %llu: truncated number"
						     : "%s field %llu: number longer than 64 bits",
					     msg_names[k], (unsigned long long)num);
			break;
		case 1:
		case 5: {
			size_t w = wt == 1 ? 8 : 4;
			if (fs.kind != F_ANY)
				return fault(f, start,
					     "%s field %llu: wire type %u (fixed-size) where a "
					     "number or a length-delimited value was expected",
					     msg_names[k], (unsigned long long)num, wt);
			if ((size_t)(e - p) < w)
				return fault(f, start, "%s field %llu: truncated fixed-size value",
					     msg_names[k], (unsigned long long)num);
			p += w;
			break;
		}
		case 2: {
			if (fs.kind == F_V)
				return fault(f, start,
					     "%s field %llu: a length-delimited value where a "
					     "number was expected",
					     msg_names[k], (unsigned long long)num);
			r = get_varint(&p, e, &v);
			if (r)
				return fault(f, start, "%s field %llu: truncated length",
					     msg_names[k], (unsigned long long)num);
			if (v > (uint64_t)(e - p))
				return fault(
				    f, start,
				    "%s field %llu: length %llu runs past the end of its message",
				    msg_names[k], (unsigned long long)num, (unsigned long long)v);
			const uint8_t *ve = p + v;
			if (fs.kind == F_MSG) {
				if (walk(p, ve, (enum msg_kind)fs.msg, f, 0, NULL) < 0)
					return -1;
			} else if (fs.kind == F_P) {
				const uint8_t *q = p;
				while (q < ve) {
					const uint8_t *vs = q;
					r = get_varint(&q, ve, &v);
					if (r)
						return fault(
						    f, vs,
						    r == -1
							? "%s field %llu: truncated packed number"
							: "%s field %llu: packed number longer "
							  "than 64 bits",
						    msg_names[k], (unsigned long long)num);
				}
			}
			p = ve;
			break;
		}
		default:
			return fault(f, start, "%s field %llu: wire type %u is not supported",
				     msg_names[k], (unsigned long long)num, wt);
		}
		n++;
	}
	return n;
}

static int probe(const struct pv_input *in)
{
	const uint8_t *p = (const uint8_t *)in->data, *e = p + in->len;
	if (in->len < 2)
		return 0;
	/* the top level of a Profile, field by field (lengths skipped, not walked) for a while */
	struct wire_fault f;
	long n = 0;
	unsigned seen = 0;
	const uint8_t *q = p;
	while (q < e && n < 4096) {
		uint64_t tag, v;
		if (get_varint(&q, e, &tag))
			return 0;
		uint64_t num = tag >> 3;
		unsigned wt = (unsigned)(tag & 7);
		if (num == 0 || num >= NFIELDS)
			return 0;
		struct field_spec fs = schema[M_PROFILE][num];
		seen |= 1u << num;
		if (wt == 0) {
			if (fs.kind != F_V && fs.kind != F_P)
				return 0;
			if (get_varint(&q, e, &v))
				return 0;
		} else if (wt == 2) {
			if (fs.kind == F_V || get_varint(&q, e, &v) || v > (uint64_t)(e - q))
				return 0;
			/* the first few nested messages are walked too */
			if (n < 64 && fs.kind == F_MSG &&
			    walk(q, q + v, (enum msg_kind)fs.msg, &f, 0, NULL) < 0)
				return 0;
			q += v;
		} else {
			return 0;
		}
		n++;
	}
	/* a profile has a string table (its first entry, "", at least) and sample types or samples
	 */
	if (q >= e && !(seen & (1u << 6)))
		return 0;
	if (!(seen & ((1u << 1) | (1u << 2) | (1u << 6))))
		return 0;
	/* thousands of field-1 messages and nothing else: a Perfetto trace (repeated TracePacket
	 * packet = 1), never a profile, whose few sample types are followed by samples */
	if (seen == (1u << 1))
		return 0;
	return in->gzip ? 60 : 50;
}

/* ---- import ---- */

struct loc_info {
	uint32_t first, n;	/* frames (outermost first) in st->loc_frames */
	uint8_t prune, beneath; /* drop_frames: drop this location / drop below it */
};

struct pstate {
	struct pv_builder *b;
	const Profile *pr;
	pv_str_ix *strs; /* string_table -> interned, PV_NONE until needed */
	uint64_t bad_strings;
	struct u64map loc_map, func_map, map_map; /* id -> index + 1 in the message arrays */
	struct loc_info *locs;
	pv_frame_ix *loc_frames;
	uint32_t nr_loc_frames, cap_loc_frames;
	pv_module_ix *modules; /* per mapping */
	/* locations without a function named from the mapping's file on this machine
	 * (import/symbols.h): the symbolizer, per mapping its binary (UINT32_MAX: none yet) and the
	 * addresses named and not, with the last reason */
	struct symz *z;
	uint32_t *bins;
	uint64_t *named, *unnamed;
	uint8_t *why;
};

static const char *pstr(struct pstate *s, int64_t ix, size_t *len)
{
	const Profile *pr = s->pr;
	if (ix < 0 || (uint64_t)ix >= pr->n_string_table) {
		s->bad_strings++;
		*len = 0;
		return "";
	}
	*len = pr->string_table[ix].len;
	return pr->string_table[ix].data ? (const char *)pr->string_table[ix].data : "";
}

static pv_str_ix intern(struct pstate *s, int64_t ix)
{
	const Profile *pr = s->pr;
	if (ix < 0 || (uint64_t)ix >= pr->n_string_table) {
		s->bad_strings++;
		return 0;
	}
	if (s->strs[ix] == PV_NONE) {
		size_t n;
		const char *t = pstr(s, ix, &n);
		s->strs[ix] = builder_str(s->b, t, n);
	}
	return s->strs[ix];
}

/* The string at ix as a C string in a caller buffer (for messages and regex matching). */
static const char *cstr(struct pstate *s, int64_t ix)
{
	pv_str_ix i = intern(s, ix);
	return i == PV_NONE ? "" : pv_str(s->b->p, i);
}

static int str_eq(struct pstate *s, int64_t ix, const char *t)
{
	size_t n;
	const char *v = pstr(s, ix, &n);
	return n == strlen(t) && memcmp(v, t, n) == 0;
}

/* id -> index map over a message array; duplicates keep the first and are counted. */
static int index_ids(struct pv_builder *b, struct u64map *m, size_t n,
		     uint64_t (*id_of)(const void *, size_t), const void *arr, uint64_t *dups,
		     uint64_t *zero)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t id = id_of(arr, i);
		if (id == 0) {
			(*zero)++;
			continue;
		}
		if (u64map_get(m, id) != UINT32_MAX) {
			(*dups)++;
			continue;
		}
		if (u64map_put(m, id, (uint32_t)i)) {
			b->status = PV_ENOMEM;
			return -1;
		}
	}
	return 0;
}

static uint64_t loc_id(const void *a, size_t i)
{
	return ((Location *const *)a)[i]->id;
}
static uint64_t func_id(const void *a, size_t i)
{
	return ((Function *const *)a)[i]->id;
}
static uint64_t map_id(const void *a, size_t i)
{
	return ((Mapping *const *)a)[i]->id;
}

/* A metric's unit from pprof's unit name; *scale converts the values to it (1 = as is). */
static enum pv_unit unit_of(const char *u, int64_t *scale)
{
	*scale = 1;
	if (!strcmp(u, "nanoseconds") || !strcmp(u, "ns"))
		return PV_UNIT_NS;
	if (!strcmp(u, "microseconds") || !strcmp(u, "us")) {
		*scale = 1000;
		return PV_UNIT_NS;
	}
	if (!strcmp(u, "milliseconds") || !strcmp(u, "ms")) {
		*scale = 1000000;
		return PV_UNIT_NS;
	}
	if (!strcmp(u, "seconds") || !strcmp(u, "s")) {
		*scale = 1000000000;
		return PV_UNIT_NS;
	}
	if (!strcmp(u, "bytes") || !strcmp(u, "byte") || !strcmp(u, "B"))
		return PV_UNIT_BYTES;
	if (!*u || !strcmp(u, "count") || !strcmp(u, "samples") || !strcmp(u, "calls") ||
	    !strcmp(u, "objects") || !strcmp(u, "events"))
		return PV_UNIT_COUNT;
	if (!strcmp(u, "cycles"))
		return PV_UNIT_CYCLES;
	if (!strcmp(u, "instructions"))
		return PV_UNIT_INSTRUCTIONS;
	return PV_UNIT_OTHER;
}

static enum pv_module_kind module_kind(const char *path, int main_binary)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!strncmp(path, "[kernel", 7) || !strcmp(path, "[vdso]") ||
	    !strcmp(path, "[vsyscall]") || !strncmp(base, "vmlinux", 7))
		return PV_MODULE_KERNEL;
	if (!strncmp(base, "perf-", 5) && strstr(base, ".map"))
		return PV_MODULE_JIT;
	if (strstr(base, ".so") || strstr(base, ".dylib") || strstr(base, ".dll"))
		return PV_MODULE_LIBRARY;
	if (main_binary)
		return PV_MODULE_BINARY;
	if (path[0] == '[' || !path[0])
		return PV_MODULE_UNKNOWN;
	return PV_MODULE_LIBRARY;
}

/*
 * pprof's Prune: a function name simplified as pprof does before matching (a leading '.' off,
 * the argument list cut at the first '(' unless it opens "(anonymous namespace)").
 */
static int prune_match(const regex_t *drop, const regex_t *keep, const char *name, char *buf,
		       size_t cap)
{
	if (*name == '.')
		name++;
	size_t n = strlen(name);
	const char *paren = strchr(name, '(');
	if (paren && paren > name && strncmp(paren, "(anonymous namespace)", 21) != 0)
		n = (size_t)(paren - name);
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, name, n);
	buf[n] = 0;
	if (regexec(drop, buf, 0, NULL, 0) != 0)
		return 0;
	return !keep || regexec(keep, buf, 0, NULL, 0) != 0;
}

static int push_loc_frame(struct pstate *s, pv_frame_ix f)
{
	if (s->nr_loc_frames == s->cap_loc_frames) {
		uint32_t nc = grow_cap(s->cap_loc_frames, (uint64_t)s->nr_loc_frames + 1);
		if (!nc || COL_GROW(s->loc_frames, nc)) {
			s->b->status = PV_ENOMEM;
			return -1;
		}
		s->cap_loc_frames = nc;
	}
	s->loc_frames[s->nr_loc_frames++] = f;
	return 0;
}

struct lossy_counts {
	uint64_t bad_loc, bad_func, bad_map, line_range, sysname, folded, build_ids;
	uint64_t loc_dups, func_dups, map_dups, zero_ids, few_values, many_values, scale_sat;
	uint64_t pruned;
};

/*
 * The name of file offset off in mapping mi, from its file on this machine (build id checked
 * when the mapping has one); NULL when none (counted).
 */
static const char *name_from_binary(struct pstate *s, uint32_t mi, uint64_t off)
{
	const Mapping *M = s->pr->mapping[mi];
	struct pv_builder *b = s->b;
	if (b->sym && b->sym->off)
		return NULL;
	size_t n;
	const char *path = pstr(s, M->filename, &n);
	if (!n || path[0] != '/' || memchr(path, 0, n))
		return NULL;
	if (!s->bins) {
		size_t nm = s->pr->n_mapping;
		s->bins = pv_malloc(nm * sizeof(*s->bins));
		s->named = pv_calloc(nm, sizeof(*s->named));
		s->unnamed = pv_calloc(nm, sizeof(*s->unnamed));
		s->why = pv_calloc(nm, 1);
		s->z = symz_new(b->sym);
		if (!s->bins || !s->named || !s->unnamed || !s->why || !s->z) {
			b->status = PV_ENOMEM;
			return NULL;
		}
		memset(s->bins, 0xff, nm * sizeof(*s->bins));
	}
	if (s->bins[mi] == UINT32_MAX) {
		size_t bn;
		const char *bt = pstr(s, M->build_id, &bn);
		unsigned char bid[20];
		size_t bl = symz_build_id_hex(bt, bn, bid, sizeof(bid));
		char *p = pv_malloc(n + 1);
		if (!p) {
			b->status = PV_ENOMEM;
			return NULL;
		}
		memcpy(p, path, n);
		p[n] = 0;
		s->bins[mi] = symz_binary(s->z, p, bid, bl);
		pv_free(p);
		if (s->bins[mi] == UINT32_MAX) {
			b->status = PV_ENOMEM;
			return NULL;
		}
	}
	enum symz_status why;
	const char *name = symz_name_at_offset(s->z, s->bins[mi], off, &why);
	if (name) {
		s->named[mi]++;
	} else {
		s->unnamed[mi]++;
		s->why[mi] = (uint8_t)why;
	}
	return name;
}

/* Builds the frames of every location (after drop_frames trimmed their lines). */
/*
 * drop_frames of location L: its outermost line whose function matches drop (and not keep)
 * marks it (li->beneath; li->prune when that is its outermost line). Returns how many of its
 * lines stay (the outer ones past the match; all of them when none matches).
 */
static size_t drop_lines(struct pstate *s, const Location *L, const regex_t *drop,
			 const regex_t *keep, struct loc_info *li)
{
	const Profile *pr = s->pr;
	char buf[4096];
	size_t nl = L->n_line;
	for (size_t j = nl; j-- > 0;) {
		const Perftools__Profiles__Line *ln = L->line[j];
		uint32_t fi =
		    ln->function_id ? u64map_get(&s->func_map, ln->function_id) : UINT32_MAX;
		if (fi == UINT32_MAX)
			continue;
		const char *name = cstr(s, pr->function[fi]->name);
		if (!*name)
			continue;
		if (prune_match(drop, keep, name, buf, sizeof(buf))) {
			li->beneath = 1;
			if (j == nl - 1)
				li->prune = 1;
			else
				return nl - (j + 1); /* lines j+1 .. nl-1 stay */
			break;
		}
	}
	return nl;
}

/* "0x..." (a location's address), for what has no name. */
static pv_str_ix addr_name(struct pv_builder *b, uint64_t address)
{
	char nm[32];
	snprintf(nm, sizeof(nm), "0x%llx", (unsigned long long)address);
	return builder_cstr(b, nm);
}

/*
 * The model function of line ln of location L (in module mod): its Function's name (or system
 * name), file and start line; named by the location's address when it has none.
 */
static pv_func_ix line_func(struct pstate *s, const Location *L,
			    const Perftools__Profiles__Line *ln, pv_module_ix mod,
			    struct lossy_counts *lc)
{
	struct pv_builder *b = s->b;
	uint32_t fi = ln->function_id ? u64map_get(&s->func_map, ln->function_id) : UINT32_MAX;
	if (fi == UINT32_MAX) {
		lc->bad_func++;
		return builder_func(b, addr_name(b, L->address), mod, PV_NONE, 0);
	}
	const Function *F = s->pr->function[fi];
	pv_str_ix name = intern(s, F->name);
	pv_str_ix sys = intern(s, F->system_name);
	if (name == 0)
		name = sys;
	else if (sys && sys != name)
		lc->sysname++;
	if (name == 0)
		name = addr_name(b, L->address);
	pv_str_ix file = intern(s, F->filename);
	pv_source_ix src = file ? builder_source(b, file) : PV_NONE;
	int64_t sl = F->start_line;
	if (sl < 0 || sl > UINT32_MAX) {
		lc->line_range++;
		sl = 0;
	}
	return builder_func(b, name, mod, src, (uint32_t)sl);
}

static int build_locations(struct pstate *s, const regex_t *drop, const regex_t *keep,
			   struct lossy_counts *lc)
{
	const Profile *pr = s->pr;
	struct pv_builder *b = s->b;
	for (size_t i = 0; i < pr->n_location && !b->status; i++) {
		const Location *L = pr->location[i];
		struct loc_info *li = &s->locs[i];
		pv_module_ix mod = PV_NONE;
		uint64_t addr = PV_ADDR_NONE;
		const Mapping *M = NULL;
		uint32_t in_map = UINT32_MAX; /* the mapping that holds the address */
		if (L->mapping_id) {
			uint32_t mi = u64map_get(&s->map_map, L->mapping_id);
			if (mi == UINT32_MAX) {
				lc->bad_map++;
			} else {
				M = pr->mapping[mi];
				mod = s->modules[mi];
			}
		}
		if (L->address) {
			addr = L->address;
			if (M && L->address >= M->memory_start &&
			    (M->memory_limit == 0 || L->address < M->memory_limit)) {
				addr = L->address - M->memory_start + M->file_offset;
				in_map = u64map_get(&s->map_map, L->mapping_id);
			}
		}
		if (L->is_folded)
			lc->folded++;
		size_t nl = L->n_line;
		size_t keep_lines = drop ? drop_lines(s, L, drop, keep, li) : nl;
		li->first = s->nr_loc_frames;
		if (nl == 0) {
			char nm[32];
			snprintf(nm, sizeof(nm), "0x%llx", (unsigned long long)L->address);
			/* no function: named from the mapping's binary, else by its address */
			const char *sym =
			    in_map != UINT32_MAX ? name_from_binary(s, in_map, addr) : NULL;
			pv_func_ix fn =
			    builder_func(b, builder_cstr(b, sym ? sym : nm), mod, PV_NONE, 0);
			struct frame_key k = {.func = fn, .addr = addr, .category = PV_NONE};
			if (push_loc_frame(s, builder_frame(b, &k)))
				return -1;
		}
		/* outermost (the last line) first; kept lines are the outer ones */
		size_t lo = li->prune ? nl : nl - keep_lines;
		for (size_t j = nl; j-- > lo;) {
			const Perftools__Profiles__Line *ln = L->line[j];
			pv_func_ix fn = line_func(s, L, ln, mod, lc);
			int64_t line = ln->line, col = ln->column;
			if (line < 0 || line > UINT32_MAX) {
				lc->line_range++;
				line = 0;
			}
			if (col < 0 || col > UINT32_MAX) {
				lc->line_range++;
				col = 0;
			}
			uint64_t depth = nl - 1 - j;
			struct frame_key k = {
			    .func = fn,
			    .line = (uint32_t)line,
			    .column = (uint32_t)col,
			    .addr = addr,
			    .inline_depth = (uint16_t)(depth > UINT16_MAX ? UINT16_MAX : depth),
			    .category = PV_NONE,
			};
			if (push_loc_frame(s, builder_frame(b, &k)))
				return -1;
		}
		li->n = s->nr_loc_frames - li->first;
	}
	return b->status ? -1 : 0;
}

/* ---- labels: interned rows and sets, written straight into the model's tables ---- */

struct label_state {
	uint32_t *items; /* scratch: one sample's label rows */
	uint32_t cap_items;
	uint64_t bad;
};

/* The label set of one sample; 0 when it has none. */
static uint32_t sample_labels(struct pstate *s, struct label_state *ls, const Sample *S)
{
	struct pv_builder *b = s->b;
	if (S->n_label == 0)
		return 0;
	if (S->n_label > ls->cap_items) {
		uint32_t nc = grow_cap(ls->cap_items, S->n_label);
		if (!nc || COL_GROW(ls->items, nc)) {
			b->status = PV_ENOMEM;
			return 0;
		}
		ls->cap_items = nc;
	}
	uint32_t n = 0;
	for (size_t i = 0; i < S->n_label; i++) {
		const Label *L = S->label[i];
		pv_str_ix key = intern(s, L->key);
		if (key == 0) {
			ls->bad++;
			continue;
		}
		pv_str_ix str = L->str ? intern(s, L->str) : 0;
		pv_str_ix unit = !L->str && L->num_unit ? intern(s, L->num_unit) : 0;
		uint32_t r = builder_label(b, key, str, str ? 0 : L->num, unit);
		if (r == PV_NONE)
			return 0;
		ls->items[n++] = r;
	}
	return builder_label_set(b, ls->items, n);
}

static void format_ns_header(struct pv_builder *b, struct pstate *s, const Profile *pr)
{
	if (pr->period_type || pr->period) {
		const char *ty = pr->period_type ? cstr(s, pr->period_type->type) : "";
		const char *un = pr->period_type ? cstr(s, pr->period_type->unit) : "";
		builder_lossy(b, 1, "period %lld (period_type %s/%s)", (long long)pr->period,
			      *ty ? ty : "-", *un ? un : "-");
	}
	if (pr->duration_nanos)
		builder_lossy(b, 1, "duration %lld ns (pprof's duration_nanos)",
			      (long long)pr->duration_nanos);
	if (pr->time_nanos)
		builder_lossy(b, 1, "taken at %lld ns since the Unix epoch (pprof's time_nanos)",
			      (long long)pr->time_nanos);
	for (size_t i = 0; i < pr->n_comment; i++)
		builder_lossy(b, 1, "comment: %s", cstr(s, pr->comment[i]));
	if (pr->doc_url)
		builder_lossy(b, 1, "documentation: %s", cstr(s, pr->doc_url));
}

static int wire_error(struct pv_input *in, struct pv_error *err)
{
	struct wire_fault f = {.at = NULL};
	const uint8_t *p = (const uint8_t *)in->data;
	const char *gz = in->gzip ? " (after gunzip)" : "";
	int rc;
	if (walk(p, p + in->len, M_PROFILE, &f, 0, NULL) < 0) {
		rc = pv_error_set(err, PV_EPARSE, "%s: byte %llu%s: %s", in->name,
				  (unsigned long long)(f.at - p), gz, f.what);
		if (err) {
			err->offset = (uint64_t)(f.at - p);
			err->has_pos = 2;
		}
		return rc;
	}
	rc = pv_error_set(err, PV_EPARSE, "%s: byte 0%s: not a valid profile.proto message",
			  in->name, gz);
	if (err) {
		err->offset = 0;
		err->has_pos = 2;
	}
	return rc;
}

/*
 * The metrics: one per sample type (or value, when there are none), each value's scale to the
 * metric's unit in scale[]; the default metric, period and start time. *nmp: how many. Returns
 * 0, 1 on the builder's error (its status), or the error (more than 64).
 */
static int read_metrics(struct pstate *s, const char *file, struct pv_error *err, size_t *nmp,
			int64_t *scale)
{
	const Profile *pr = s->pr;
	struct pv_builder *b = s->b;
	size_t nm = pr->n_sample_type, max_values = 0;
	for (size_t i = 0; i < pr->n_sample; i++)
		if (pr->sample[i]->n_value > max_values)
			max_values = pr->sample[i]->n_value;
	if (nm == 0 && max_values) {
		nm = max_values;
		builder_lossy(b, 1, "no sample types: the values are named value1..value%zu", nm);
	}
	if (nm > 64)
		return pv_error_set(err, PV_ELIMIT,
				    "%s: %zu sample types (profview reads at most 64)", file, nm);
	pv_metric_ix dflt = PV_NONE;
	for (size_t i = 0; i < nm; i++) {
		const Perftools__Profiles__ValueType *vt =
		    i < pr->n_sample_type ? pr->sample_type[i] : NULL;
		const char *ty = vt ? cstr(s, vt->type) : "";
		const char *un = vt ? cstr(s, vt->unit) : "";
		enum pv_unit u = unit_of(un, &scale[i]);
		if (u == PV_UNIT_OTHER)
			builder_lossy(b, 1, "sample type %s: unit '%s' shown as 'other'", ty, un);
		pv_str_ix name = *ty ? builder_cstr(b, ty) : builder_strf(b, "value%zu", i + 1);
		/* two sample types of one name: the later one gets a suffix (metrics are interned
		 * by name, and metric i must be sample type i) */
		for (unsigned k = 2; !b->status; k++) {
			if (builder_metric(b, name, u) == i)
				break;
			name = builder_strf(b, "%s#%u", *ty ? ty : "value", k);
		}
		if (vt && pr->default_sample_type && vt->type == pr->default_sample_type)
			dflt = (pv_metric_ix)i;
		else if (vt && pr->default_sample_type && dflt == PV_NONE &&
			 str_eq(s, vt->type, cstr(s, pr->default_sample_type)))
			dflt = (pv_metric_ix)i;
	}
	if (nm == 0)
		builder_metric(b, builder_cstr(b, "samples"), PV_UNIT_COUNT);
	if (pr->default_sample_type && dflt == PV_NONE)
		builder_lossy(
		    b, 1,
		    "default_sample_type '%s' is not a sample type (the last one is the default)",
		    cstr(s, pr->default_sample_type));
	if (b->status)
		return 1;
	b->p->meta.default_metric = dflt != PV_NONE ? dflt : (nm ? (pv_metric_ix)nm - 1 : 0);
	if (pr->period_type && pr->period > 0) {
		int64_t sc;
		if (unit_of(cstr(s, pr->period_type->unit), &sc) == PV_UNIT_NS &&
		    pr->period <= INT64_MAX / sc)
			b->p->meta.interval_ns = pr->period * sc;
	}
	if (pr->time_nanos > 0)
		b->p->meta.start_unix_ns = pr->time_nanos;

	*nmp = nm;
	return 0;
}

/* A module per mapping with a file name (PV_NONE for the others). */
static void read_modules(struct pstate *s, struct lossy_counts *lc)
{
	const Profile *pr = s->pr;
	struct pv_builder *b = s->b;
	for (size_t i = 0; i < pr->n_mapping; i++) {
		const Mapping *M = pr->mapping[i];
		size_t n;
		const char *path = pstr(s, M->filename, &n);
		if (M->build_id)
			lc->build_ids++;
		if (n == 0) {
			s->modules[i] = PV_NONE;
			continue;
		}
		const char *base = path + n;
		while (base > path && base[-1] != '/')
			base--;
		pv_str_ix full = intern(s, M->filename);
		pv_str_ix name = builder_str(b, base, (size_t)(path + n - base));
		s->modules[i] =
		    builder_module(b, name, full, module_kind(pv_str(b->p, full), i == 0));
	}
}

/*
 * The profile's pattern d compiled as pprof does (a full match of the whole name) into rx: 1
 * when it is, 0 when it is not a regular expression profview reads (said in the lossy list, as
 * what), -1 when out of memory.
 */
static int compile_frames(struct pv_builder *b, const char *d, const char *what, regex_t *rx)
{
	size_t rl = strlen(d) + 5;
	char *re = pv_malloc(rl);
	if (!re) {
		b->status = PV_ENOMEM;
		return -1;
	}
	snprintf(re, rl, "^(%s)$", d);
	int ok = regcomp(rx, re, REG_EXTENDED | REG_NOSUB) == 0;
	pv_free(re);
	if (!ok)
		builder_lossy(b, 1,
			      "%s '%s' is not a regular expression profview reads: not applied",
			      what, d);
	return ok;
}

/* Sample S's stack: its locations' frames, root first, after drop_frames (have_drop). */
static pv_stack_ix sample_stack(struct pstate *s, const Sample *S, int have_drop,
				struct lossy_counts *lc)
{
	struct pv_builder *b = s->b;
	/* the locations, root first, after drop_frames */
	size_t lo = 0, hi = S->n_location_id; /* location_id[lo .. hi) stay, leaf first */
	if (have_drop) {
		int user = 0;
		for (size_t j = S->n_location_id; j-- > 0;) {
			uint32_t li = u64map_get(&s->loc_map, S->location_id[j]);
			struct loc_info z = {0};
			const struct loc_info *L = li == UINT32_MAX ? &z : &s->locs[li];
			if (!L->prune && !L->beneath) {
				user = 1;
				continue;
			}
			if (!user)
				continue;
			lo = L->prune ? j + 1 : j;
			break;
		}
		if (lo)
			lc->pruned++;
	}
	pv_stack_ix st = PV_NONE;
	for (size_t j = hi; j-- > lo;) {
		uint32_t li = u64map_get(&s->loc_map, S->location_id[j]);
		if (li == UINT32_MAX) {
			lc->bad_loc++;
			continue;
		}
		const struct loc_info *L = &s->locs[li];
		for (uint32_t k = 0; k < L->n; k++)
			st = builder_stack(b, st, s->loc_frames[L->first + k]);
	}
	return st;
}

/* Sample S's nm values into w, scaled to their metrics' units (saturated). */
static void sample_values(const Sample *S, size_t nm, const int64_t *scale, int64_t *w,
			  struct lossy_counts *lc)
{
	for (size_t m = 0; m < nm; m++) {
		int64_t v = m < S->n_value ? S->value[m] : 0;
		if (scale[m] != 1) {
			if (v > INT64_MAX / scale[m] || v < INT64_MIN / scale[m]) {
				lc->scale_sat++;
				v = v > 0 ? INT64_MAX : INT64_MIN;
			} else {
				v *= scale[m];
			}
		}
		w[m] = v;
	}
}

/* What the import did not keep as it was, each kind with its count. */
static void report(struct pstate *s, const struct label_state *ls, const struct lossy_counts *lc,
		   int have_drop)
{
	const Profile *pr = s->pr;
	struct pv_builder *b = s->b;
	format_ns_header(b, s, pr);
	builder_lossy(b, lc->pruned,
		      "samples cut by the profile's drop_frames '%s' (pprof's rule; frames and "
		      "their callees removed)",
		      have_drop ? cstr(s, pr->drop_frames) : "");
	builder_lossy(b, lc->bad_loc,
		      "location ids of samples that name no location (frames skipped)");
	builder_lossy(b, lc->bad_func,
		      "function ids of lines that name no function (named by address)");
	builder_lossy(b, lc->bad_map, "mapping ids of locations that name no mapping (no module)");
	builder_lossy(b, lc->loc_dups + lc->func_dups + lc->map_dups,
		      "duplicate location, function or mapping ids (the first kept)");
	builder_lossy(b, lc->zero_ids,
		      "locations, functions or mappings with id 0 (not referable, skipped)");
	builder_lossy(b, lc->few_values,
		      "samples with fewer values than sample types (the rest read as 0)");
	builder_lossy(b, lc->many_values,
		      "samples with more values than sample types (the extra values dropped)");
	builder_lossy(b, lc->scale_sat, "values too large for nanoseconds (saturated)");
	builder_lossy(b, lc->line_range,
		      "line, column or start line numbers out of range (read as 0)");
	builder_lossy(b, lc->sysname, "function system names (mangled names) not kept");
	builder_lossy(b, lc->folded, "locations marked is_folded (flag not kept)");
	builder_lossy(b, lc->build_ids, "mapping build ids not kept");
	for (size_t i = 0; s->bins && i < pr->n_mapping; i++) {
		size_t n;
		const char *path = pstr(s, pr->mapping[i]->filename, &n);
		if (s->named[i])
			builder_lossy(
			    b, s->named[i],
			    "addresses without a function in %.*s named from this machine's "
			    "binary",
			    (int)n, path);
		if (s->unnamed[i])
			builder_lossy(b, s->unnamed[i],
				      "addresses without a function in %.*s not named: %s", (int)n,
				      path, symz_status_text((enum symz_status)s->why[i]));
	}
	builder_lossy(b, ls->bad, "labels without a key (dropped)");
	builder_lossy(b, s->bad_strings, "string indices out of the string table (read as \"\")");
	if (pr->n_string_table == 0 && (pr->n_sample || pr->n_sample_type))
		builder_lossy(b, 1, "no string table");
}

/* The samples: each on its stack (after drop_frames), with its values and labels. */
static void read_samples(struct pstate *s, struct label_state *ls, struct lossy_counts *lc,
			 size_t nm, const int64_t *scale, int have_drop)
{
	const Profile *pr = s->pr;
	struct pv_builder *b = s->b;
	pv_thread_ix th =
	    builder_thread(b, builder_cstr(b, "all samples"), PV_ID_NONE, PV_ID_NONE, 0);
	int64_t w[64];
	for (size_t i = 0; i < pr->n_sample && !b->status; i++) {
		const Sample *S = pr->sample[i];
		pv_stack_ix st = sample_stack(s, S, have_drop > 0, lc);
		sample_values(S, nm, scale, w, lc);
		if (S->n_value < nm && pr->n_sample_type)
			lc->few_values++;
		if (S->n_value > nm)
			lc->many_values++;
		builder_sample(b, th, st, PV_TIME_NONE, nm ? w : NULL);
		uint32_t set = sample_labels(s, ls, S);
		if (set && !b->p->samples.label_set) {
			b->p->samples.label_set = pv_calloc(b->p->samples.cap, sizeof(uint32_t));
			if (!b->p->samples.label_set)
				b->status = PV_ENOMEM;
		}
		if (b->p->samples.label_set && !b->status)
			b->p->samples.label_set[b->p->samples.len - 1] = set;
	}
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct pb_mem mem = {.arena = arena_new()};
	if (!mem.arena)
		return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
	ProtobufCAllocator al = pb_mem_allocator(&mem);
	Profile *pr = perftools__profiles__profile__unpack(&al, in->len, (const uint8_t *)in->data);
	if (!pr) {
		arena_free(mem.arena);
		if (mem.failed)
			return pv_error_set(err, PV_ENOMEM, "%s: out of memory", in->name);
		return wire_error(in, err);
	}
	struct pstate s = {.b = b, .pr = pr};
	struct label_state ls = {.bad = 0};
	struct lossy_counts lc = {0};
	regex_t drop_rx, keep_rx;
	int have_drop = 0, have_keep = 0;
	int rc = 0;
	if (pr->n_string_table > UINT32_MAX || pr->n_location > UINT32_MAX ||
	    pr->n_mapping > UINT32_MAX || pr->n_function > UINT32_MAX ||
	    pr->n_sample > UINT32_MAX) {
		rc = pv_error_set(err, PV_ELIMIT, "%s: more than 2^32 rows in a table", in->name);
		goto out;
	}
	s.strs = pv_malloc((pr->n_string_table ? pr->n_string_table : 1) * sizeof(*s.strs));
	s.locs = pv_calloc(pr->n_location ? pr->n_location : 1, sizeof(*s.locs));
	s.modules = pv_malloc((pr->n_mapping ? pr->n_mapping : 1) * sizeof(*s.modules));
	if (!s.strs || !s.locs || !s.modules) {
		b->status = PV_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < pr->n_string_table; i++)
		s.strs[i] = PV_NONE;
	if (pr->n_string_table && pr->string_table[0].len != 0)
		builder_lossy(b, 1, "string_table[0] is not empty (read as \"\")");
	if (pr->n_string_table)
		s.strs[0] = 0;

	/* ids */
	if (index_ids(b, &s.loc_map, pr->n_location, loc_id, pr->location, &lc.loc_dups,
		      &lc.zero_ids) ||
	    index_ids(b, &s.func_map, pr->n_function, func_id, pr->function, &lc.func_dups,
		      &lc.zero_ids) ||
	    index_ids(b, &s.map_map, pr->n_mapping, map_id, pr->mapping, &lc.map_dups,
		      &lc.zero_ids))
		goto out;

	/* metrics */
	size_t nm = 0;
	int64_t scale[64];
	if ((rc = read_metrics(&s, in->name, err, &nm, scale))) {
		rc = rc == 1 ? 0 : rc;
		goto out;
	}
	read_modules(&s, &lc);

	/* drop_frames / keep_frames, compiled as pprof does: a full match of the whole name */
	const char *d = pr->drop_frames ? cstr(&s, pr->drop_frames) : "";
	if (*d && (have_drop = compile_frames(b, d, "drop_frames", &drop_rx)) < 0)
		goto out;
	const char *k = have_drop > 0 && pr->keep_frames ? cstr(&s, pr->keep_frames) : "";
	if (*k && (have_keep = compile_frames(b, k, "keep_frames", &keep_rx)) < 0)
		goto out;
	if (build_locations(&s, have_drop > 0 ? &drop_rx : NULL, have_keep > 0 ? &keep_rx : NULL,
			    &lc))
		goto out;

	read_samples(&s, &ls, &lc, nm, scale, have_drop > 0);
	if (b->status)
		goto out;

	report(&s, &ls, &lc, have_drop > 0);
out:
	if (have_drop > 0)
		regfree(&drop_rx);
	if (have_keep > 0)
		regfree(&keep_rx);
	u64map_release(&s.loc_map);
	u64map_release(&s.func_map);
	u64map_release(&s.map_map);
	pv_free(ls.items);
	pv_free(s.strs);
	pv_free(s.locs);
	pv_free(s.loc_frames);
	pv_free(s.modules);
	pv_free(s.bins);
	pv_free(s.named);
	pv_free(s.unnamed);
	pv_free(s.why);
	symz_free(s.z);
	arena_free(mem.arena);
	if (!rc && b->status)
		rc = b->status;
	return rc;
}

const struct importer importer_pprof = {
    .name = "pprof",
    .description = "pprof profile.proto, gzip or plain",
    .one_program = true,
    .probe = probe,
    .import = import,
};

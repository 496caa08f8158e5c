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
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/vec.h"
#include "import/importer.h"

#define MAX_VALUES     4
#define MAX_ATTRS      64
#define MAX_SUBST_LINE ((size_t)1 << 20)
#define LOC_NO_MAP     UINT32_MAX
#define LOC_FAKE_MAP   (UINT32_MAX - 1)

enum adjust { ADJUST_NONE, ADJUST_CALLERS, ADJUST_ALL };

enum family {
	FAM_NONE = 0,
	FAM_CPU,
	FAM_JAVA_CPU,
	FAM_HEAP,
	FAM_COUNT,
	FAM_THREAD,
	FAM_CONTENTION,
	FAM_JAVA_HEAP,
	FAM_JAVA_CONTENTION,
};

struct lmap {
	uint64_t start, limit, offset;
	pv_str_ix file; /* 0 = none */
};

struct lloc {
	uint64_t addr;
	uint32_t map;	   /* row of maps, LOC_FAKE_MAP or LOC_NO_MAP */
	pv_str_ix name;	   /* Java: the symbol's function, 0 when not symbolized */
	pv_str_ix file;	   /* Java: its file, 0 when none */
	uint32_t line;	   /* Java: its line, 0 when none */
	uint32_t seen;	   /* referenced by a sample after the CPU fixes */
	pv_frame_ix frame; /* PV_NONE until made */
};

struct lsample {
	int64_t v[MAX_VALUES];
	uint32_t first, n; /* leaf-first location rows in lp.stk */
	int64_t bytes;	   /* heap: the block size label */
	uint8_t has_bytes;
};

struct lp {
	struct pv_input *in;
	struct pv_builder *b;
	struct pv_error *err;
	enum family fam;
	const char *version; /* meta.format_version */
	unsigned nvals;
	const char *type[MAX_VALUES], *unit[MAX_VALUES];
	const char *period_type, *period_unit;
	int64_t period, duration_ns;
	struct vec samples; /* struct lsample */
	struct vec locs;    /* struct lloc */
	struct vec stk;	    /* uint32_t location rows */
	struct vec maps;    /* struct lmap */
	struct u64map addr_map;
	/* text cursor */
	const char *p, *end;
	char *subst; /* a memory map line after $attr substitution */
	size_t subst_cap;
	struct {
		const char *key, *val; /* NUL-terminated, interned */
		size_t klen, vlen;
	} attrs[MAX_ATTRS];
	unsigned nr_attrs;
	/* the import report */
	uint64_t sig_frames, dup_leaves, no_trailer, map_nonexec, map_unknown, map_attrs_dropped;
	uint64_t skipped_lines, same_as_prev, threads, fake_locs, unsym_java, discarded;
	uint64_t unknown_attrs, line_range, heap_unsampled, hugepage, rebased, split_maps;
	uint64_t merged_maps;
	const char *unknown_attr_example;
	int heap_sampling; /* the heap was unsampled at rate period */
	int64_t heap_rate;
};

/* ---------------------------------------------------------------- errors */

__attribute__((format(printf, 3, 4))) static int text_error(struct lp *t, const char *at,
							    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = import_vfail_at(t->err, t->in, at, fmt, ap);
	va_end(ap);
	return rc;
}

__attribute__((format(printf, 3, 4))) static int byte_error(struct lp *t, size_t off,
							    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = import_vfail_byte(t->err, t->in->name, off, fmt, ap);
	va_end(ap);
	return rc;
}

static int oom(struct lp *t)
{
	t->b->status = PV_ENOMEM;
	return pv_error_set(t->err, PV_ENOMEM, "%s: out of memory", t->in->name);
}

/* ---------------------------------------------------------------- text helpers */

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The next line of [*p, end) without its '\n'; 0 at the end. */
static int next_line(const char **p, const char *end, const char **s, const char **e)
{
	if (*p >= end)
		return 0;
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	*s = *p;
	*e = nl ? nl : end;
	*p = nl ? nl + 1 : end;
	return 1;
}

static void trim(const char **s, const char **e)
{
	while (*s < *e && is_space(**s))
		(*s)++;
	while (*e > *s && is_space((*e)[-1]))
		(*e)--;
}

static int starts(const char *s, const char *e, const char *lit)
{
	size_t n = strlen(lit);
	return (size_t)(e - s) >= n && memcmp(s, lit, n) == 0;
}

static int eq(const char *s, const char *e, const char *lit)
{
	return (size_t)(e - s) == strlen(lit) && memcmp(s, lit, (size_t)(e - s)) == 0;
}

static const char *skip_spaces(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

static int blank_or_comment(const char *s, const char *e)
{
	trim(&s, &e);
	return s == e || *s == '#';
}

/* The first line that is not blank or a '#' comment, as the probe saw it; 0 when none. */
static int first_text_line(const char **p, const char *end, const char **s, const char **e)
{
	while (next_line(p, end, s, e))
		if (!blank_or_comment(*s, *e))
			return 1;
	return 0;
}

/* A memory map trigger of pprof: the line holds "--- Memory map: ---" or "MAPPED_LIBRARIES:". */
static int map_trigger(const char *s, const char *e)
{
	size_t n = (size_t)(e - s);
	return memmem(s, n, "--- Memory map: ---", 19) || memmem(s, n, "MAPPED_LIBRARIES:", 17);
}

/* Decimal digits [s, e) (an optional '-' first): 0, -1 not a number, -2 out of int64. */
static int parse_dec(const char *s, const char *e, int64_t *out)
{
	int neg = 0;
	if (s < e && (*s == '-' || *s == '+')) {
		neg = *s == '-';
		s++;
	}
	if (s == e)
		return -1;
	uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; s < e; s++) {
		if (!is_digit(*s))
			return -1;
		unsigned d = (unsigned)(*s - '0');
		if (v > (lim - d) / 10)
			return -2;
		v = v * 10 + d;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/* Go's strconv.ParseInt(s, 0, 64): 0x hex, 0o / leading-0 octal, 0b binary, else decimal. */
static int parse_int0(const char *s, const char *e, int64_t *out)
{
	int neg = 0;
	if (s < e && (*s == '-' || *s == '+')) {
		neg = *s == '-';
		s++;
	}
	unsigned base = 10;
	if (e - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	} else if (e - s >= 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'O')) {
		base = 8;
		s += 2;
	} else if (e - s >= 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
		base = 2;
		s += 2;
	} else if (e - s >= 2 && s[0] == '0') {
		base = 8;
		s++;
	}
	if (s == e)
		return -1;
	uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; s < e; s++) {
		if (*s == '_' && base != 10)
			continue;
		int d = hexval(*s);
		if (d < 0 || (unsigned)d >= base)
			return -1;
		if (v > (lim - (unsigned)d) / base)
			return -2;
		v = v * base + (unsigned)d;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/* Hex digits [s, e) (any case): 0, -1 empty or not hex, -2 more than 64 bits. */
static int parse_hex(const char *s, const char *e, uint64_t *out)
{
	if (s == e)
		return -1;
	uint64_t v = 0;
	for (; s < e; s++) {
		int d = hexval(*s);
		if (d < 0)
			return -1;
		if (v >> 60)
			return -2;
		v = v << 4 | (unsigned)d;
	}
	*out = v;
	return 0;
}

static const char *hex_run(const char *s, const char *e)
{
	while (s < e && hexval(*s) >= 0)
		s++;
	return s;
}

static const char *digit_run(const char *s, const char *e)
{
	while (s < e && is_digit(*s))
		s++;
	return s;
}

/* ---------------------------------------------------------------- locations and samples */

/* The location row of addr, made when new. */
static uint32_t loc_of(struct lp *t, uint64_t addr)
{
	uint32_t r = u64map_get(&t->addr_map, addr);
	if (r != UINT32_MAX)
		return r;
	struct lloc *l = vec_push(&t->locs, sizeof(*l));
	if (!l)
		return UINT32_MAX;
	*l = (struct lloc){.addr = addr, .map = LOC_NO_MAP, .frame = PV_NONE};
	r = t->locs.len - 1;
	if (u64map_put(&t->addr_map, addr, r))
		return UINT32_MAX;
	return r;
}

/* Appends one address of the current sample (leaf first); 0 or PV_ENOMEM. */
static int push_addr(struct lp *t, uint64_t addr)
{
	uint32_t r = loc_of(t, addr);
	uint32_t *slot = r == UINT32_MAX ? NULL : vec_push(&t->stk, sizeof(*slot));
	if (!slot)
		return PV_ENOMEM;
	*slot = r;
	return 0;
}

static struct lsample *new_sample(struct lp *t)
{
	struct lsample *s = vec_push(&t->samples, sizeof(*s));
	if (s)
		*s = (struct lsample){.first = t->stk.len};
	return s;
}

/*
 * The hexadecimal addresses of [s, e) as pprof's hexNumberRE finds them ("0x" and lowercase
 * digits), appended to the current sample; addresses moved back by 1 onto the call as adjust
 * says (pprof: every frame of text profiles, the callers only in CPU and thread profiles).
 * *n counts the addresses of the sample so far. Returns 0, or an error at the address.
 */
static int scan_addrs(struct lp *t, const char *s, const char *e, enum adjust adjust, uint32_t *n)
{
	while (s + 2 < e) {
		if (s[0] != '0' || s[1] != 'x' ||
		    !((s[2] >= '0' && s[2] <= '9') || (s[2] >= 'a' && s[2] <= 'f'))) {
			s++;
			continue;
		}
		const char *d = s + 2, *q = d;
		while (q < e && ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f')))
			q++;
		uint64_t a;
		if (parse_hex(d, q, &a))
			return text_error(t, s, "address '%.*s' is longer than 64 bits",
					  (int)(q - s > 40 ? 40 : q - s), s);
		if (adjust == ADJUST_ALL || (adjust == ADJUST_CALLERS && *n > 0))
			a--;
		if (push_addr(t, a))
			return oom(t);
		(*n)++;
		s = q;
	}
	return 0;
}

/* The span of pprof's "@([ x0-9a-f]*)": the address characters after '@'. */
static const char *addr_span_end(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == 'x' || is_digit(*s) || (*s >= 'a' && *s <= 'f')))
		s++;
	return s;
}

/* ---------------------------------------------------------------- memory maps */

static int add_map(struct lp *t, uint64_t start, uint64_t limit, uint64_t offset, const char *f,
		   size_t flen)
{
	struct lmap *m = vec_push(&t->maps, sizeof(*m));
	if (!m)
		return oom(t);
	*m = (struct lmap){.start = start, .limit = limit, .offset = offset};
	m->file = flen ? builder_str(t->b, f, flen) : 0;
	return 0;
}

static int ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

static const char *skip_ws(const char *s, const char *e)
{
	while (s < e && ws(*s))
		s++;
	return s;
}

static int is_perm(char c)
{
	return c == '-' || c == 'r' || c == 'w' || c == 'x' || c == 'p';
}

/* The next "\s+X" field: its start, or NULL when there is no space or no X there. */
static const char *field(const char *q, const char *e, int (*is)(char))
{
	const char *w = skip_ws(q, e);
	return w > q && w < e && is(*w) ? w : NULL;
}

static int is_hex(char c)
{
	return hexval(c) >= 0;
}

static int not_ws(char c)
{
	return !ws(c);
}

static const char *run(const char *s, const char *e, int (*is)(char))
{
	while (s < e && is(*s))
		s++;
	return s;
}

static int is_dig(char c)
{
	return is_digit(c);
}

/*
 * One memory map line, as pprof's procMapsRE and briefMapsRE read it (anchored at the start,
 * optional groups taken when they match):
 *   "\s*(0x)?START[\s-]?\s*(0x)?LIMIT:?" then either
 *   " [PERMS] [OFFSET] DEV:DEV INODE [FILE]" (/proc/self/maps) or
 *   " [PERMS] [FILE] [(@OFFSET)] [BUILDID]" (the brief form).
 * Returns 1 for a mapping (added, or skipped when not executable), 0 when the line is not one.
 */
static int map_entry(struct lp *t, const char *s, const char *e, int *rc)
{
	*rc = 0;
	const char *c = skip_ws(s, e);
	if (e - c >= 3 && c[0] == '0' && c[1] == 'x' && is_hex(c[2]))
		c += 2;
	const char *s0 = c, *s1 = run(c, e, is_hex), *l0, *l1;
	if (s1 == s0)
		return 0;
	c = s1;
	if (c < e && (*c == '-' || ws(*c)))
		c++;
	c = skip_ws(c, e);
	if (e - c >= 3 && c[0] == '0' && c[1] == 'x' && is_hex(c[2]))
		c += 2;
	l0 = c;
	l1 = run(c, e, is_hex);
	if (l1 == l0) {
		/* no separator: the expression gives the first number's last digit to the second */
		if (c != s1 || s1 - s0 < 2)
			return 0;
		l0 = --s1;
		l1 = s1 + 1;
	}
	c = l1;
	if (c < e && *c == ':')
		c++;
	const char *p0 = NULL, *p1 = NULL, *o0 = NULL, *o1 = NULL, *f0 = NULL, *f1 = NULL, *w;
	if ((w = field(c, e, is_perm))) {
		p0 = w;
		c = p1 = run(w, e, is_perm);
	}
	/* /proc/self/maps: [OFFSET] DEV:DEV INODE [FILE] */
	int proc = 0;
	for (int with_off = 1; with_off >= 0 && !proc; with_off--) {
		const char *q = c, *h;
		o0 = o1 = NULL;
		if (with_off) {
			if (!(w = field(q, e, is_hex)))
				continue;
			o0 = w;
			q = o1 = run(w, e, is_hex);
		}
		if (!(w = field(q, e, is_hex)) || (h = run(w, e, is_hex)) >= e || *h != ':' ||
		    run(h + 1, e, is_hex) == h + 1)
			continue;
		q = run(h + 1, e, is_hex);
		if (!(w = field(q, e, is_dig)))
			continue;
		q = run(w, e, is_dig);
		f0 = f1 = NULL;
		if ((w = field(q, e, not_ws))) {
			f0 = w;
			f1 = run(w, e, not_ws);
		}
		proc = 1;
	}
	if (!proc) {
		/* the brief form: [FILE] [(@OFFSET)] [BUILDID] */
		o0 = o1 = f0 = f1 = NULL;
		const char *q = c;
		if ((w = field(q, e, not_ws))) {
			f0 = w;
			q = f1 = run(w, e, not_ws);
		}
		w = skip_ws(q, e);
		if (w > q && e - w > 2 && w[0] == '(' && w[1] == '@') {
			const char *h = run(w + 2, e, is_hex);
			if (h > w + 2 && h < e && *h == ')') {
				o0 = w + 2;
				o1 = h;
			}
		}
		/* a build id after it is not kept */
	}
	if (p0 && !memchr(p0, 'x', (size_t)(p1 - p0))) {
		t->map_nonexec++;
		return 1;
	}
	uint64_t start, limit, offset = 0;
	if (parse_hex(s0, s1, &start) || parse_hex(l0, l1, &limit) ||
	    (o0 && parse_hex(o0, o1, &offset)))
		return 0;
	*rc = add_map(t, start, limit, offset, f0 ? f0 : "", f0 ? (size_t)(f1 - f0) : 0);
	return 1;
}

/* The end of a glog prefix "^[^\[\]]+:[0-9]+]\s" of the line, or s when it has none. */
static const char *log_prefix_end(const char *s, const char *e)
{
	const char *c = s;
	while (c < e && *c != '[' && *c != ']')
		c++;
	if (c >= e || *c != ']' || c + 1 >= e || !ws(c[1]))
		return s;
	const char *d = c;
	while (d > s && is_digit(d[-1]))
		d--;
	if (d == c || d - 1 <= s || d[-1] != ':')
		return s;
	return c + 2;
}

/* Applies the $attr substitutions to [*s, *e) (into t->subst). 0 or an error. */
static int substitute(struct lp *t, const char **s, const char **e)
{
	size_t n = 0;
	const char *line = *s;
	if (*s == *e)
		return 0; /* nothing to substitute (and no buffer yet) */
	for (const char *c = *s; c < *e;) {
		const char *v = c;
		size_t vl = 1, adv = 1;
		for (unsigned i = 0; i < t->nr_attrs; i++) {
			if ((size_t)(*e - c) >= t->attrs[i].klen &&
			    memcmp(c, t->attrs[i].key, t->attrs[i].klen) == 0) {
				v = t->attrs[i].val;
				vl = t->attrs[i].vlen;
				adv = t->attrs[i].klen;
				break;
			}
		}
		if (n + vl > MAX_SUBST_LINE) {
			text_error(t, line,
				   "memory map line longer than %zu bytes after $attr substitution",
				   MAX_SUBST_LINE);
			if (t->err)
				t->err->code = PV_ELIMIT;
			return PV_ELIMIT;
		}
		if (n + vl > t->subst_cap) {
			size_t nc = t->subst_cap ? t->subst_cap : 256;
			while (nc < n + vl)
				nc *= 2;
			char *nb = pv_realloc(t->subst, nc);
			if (!nb)
				return oom(t);
			t->subst = nb;
			t->subst_cap = nc;
		}
		memcpy(t->subst + n, v, vl);
		n += vl;
		c += adv;
	}
	*s = t->subst;
	*e = t->subst + n;
	return 0;
}

/* pprof's ParseProcMaps over [p, end). */
static int parse_maps(struct lp *t, const char *p, const char *end)
{
	const char *s, *e;
	while (next_line(&p, end, &s, &e)) {
		if (e > s && e[-1] == '\r')
			e--;
		s = log_prefix_end(s, e);
		if (t->nr_attrs) {
			int rc = substitute(t, &s, &e);
			if (rc)
				return rc;
		}
		int rc;
		if (map_entry(t, s, e, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		const char *eqs = memchr(s, '=', (size_t)(e - s));
		if (!eqs) {
			if (!blank_or_comment(s, e))
				t->map_unknown++;
			continue;
		}
		const char *k0 = s, *k1 = eqs, *v0 = eqs + 1, *v1 = e;
		trim(&k0, &k1);
		trim(&v0, &v1);
		if (t->nr_attrs == MAX_ATTRS) {
			t->map_attrs_dropped++;
			continue;
		}
		pv_str_ix k = builder_strf(t->b, "$%.*s", (int)(k1 - k0), k0);
		pv_str_ix v = builder_str(t->b, v0, (size_t)(v1 - v0));
		if (t->b->status)
			return oom(t);
		t->attrs[t->nr_attrs].key = pv_str(t->b->p, k);
		t->attrs[t->nr_attrs].klen = t->b->p->strings.size[k];
		t->attrs[t->nr_attrs].val = pv_str(t->b->p, v);
		t->attrs[t->nr_attrs].vlen = t->b->p->strings.size[v];
		t->nr_attrs++;
	}
	return 0;
}

/* The file's text with "(deleted)" removed and trimmed, as pprof's main-binary guess sees it. */
static int looks_like_main(const char *f)
{
	char buf[4096];
	size_t n = 0;
	for (const char *c = f; *c && n + 1 < sizeof(buf);) {
		if (!strncmp(c, "(deleted)", 9)) {
			c += 9;
			continue;
		}
		buf[n++] = *c++;
	}
	buf[n] = 0;
	const char *s = buf, *e = buf + n;
	trim(&s, &e);
	if (s == e || *s == '[')
		return 0;
	/* libRx: "[.]so$" or "[.]so[._][0-9]+" */
	for (const char *c = s; c + 3 <= e; c++) {
		if (c[0] != '.' || c[1] != 's' || c[2] != 'o')
			continue;
		if (c + 3 == e)
			return 0;
		if ((c[3] == '.' || c[3] == '_') && c + 4 < e && is_digit(c[4]))
			return 0;
	}
	return 1;
}

/* Mapping lookups (locations x mappings, pprof's linear search) past this are refused. */
#define MAX_MAP_WORK ((uint64_t)1 << 28)

/*
 * pprof's massageMappings and remapMappingIDs: merges, reorders, then maps every location.
 * Returns 0, or PV_ELIMIT when the file has too many mappings and locations for the search.
 */
static int assign_mappings(struct lp *t, const uint32_t *order, uint32_t nr)
{
	struct lmap *m = VEC(t->maps, struct lmap);
	uint32_t n = t->maps.len;
	if (t->fam != FAM_JAVA_CPU && t->fam != FAM_JAVA_HEAP && t->fam != FAM_JAVA_CONTENTION) {
		/* adjacent pieces of one file */
		if (n > 1) {
			uint32_t w = 1;
			for (uint32_t i = 1; i < n; i++) {
				struct lmap *lm = &m[w - 1], *cm = &m[i];
				int adj = !(lm->file && cm->file && lm->file != cm->file) &&
					  lm->limit == cm->start &&
					  !(lm->offset && cm->offset &&
					    lm->offset + (lm->limit - lm->start) != cm->offset);
				if (adj) {
					lm->limit = cm->limit;
					if (cm->file)
						lm->file = cm->file;
					t->merged_maps++;
					continue;
				}
				m[w++] = *cm;
			}
			n = t->maps.len = w;
		}
		/* the main binary first */
		for (uint32_t i = 0; i < n; i++) {
			if (!looks_like_main(pv_str(t->b->p, m[i].file)))
				continue;
			struct lmap x = m[0];
			m[0] = m[i];
			m[i] = x;
			break;
		}
	}
	if (n > 0 && !strncmp(pv_str(t->b->p, m[0].file), "/anon_hugepage", 14) && n > 1 &&
	    m[0].limit == m[1].start) {
		memmove(m, m + 1, (size_t)(n - 1) * sizeof(*m));
		n = t->maps.len = n - 1;
		t->hugepage++;
	}
	if (n > 0 && m[0].start - m[0].offset == 0x400000 && m[0].offset) {
		m[0].start = 0x400000;
		m[0].offset = 0;
		t->rebased++;
	}
	if ((uint64_t)nr * n > MAX_MAP_WORK) {
		int rc = pv_error_set(
		    t->err, PV_ELIMIT,
		    "%s: %u locations in %u mappings: more than profview matches (%llu lookups)",
		    t->in->name, nr, n, (unsigned long long)MAX_MAP_WORK);
		return rc;
	}
	struct lloc *L = VEC(t->locs, struct lloc);
	for (uint32_t k = 0; k < nr; k++) {
		struct lloc *l = &L[order[k]];
		uint64_t a = l->addr;
		if (a == 0 || l->name)
			continue;
		uint32_t i;
		for (i = 0; i < n; i++)
			if (m[i].start <= a && a < m[i].limit)
				break;
		if (i == n) {
			for (i = 0; i < n; i++) {
				if (m[i].offset && m[i].start - m[i].offset <= a &&
				    a < m[i].start) {
					m[i].start -= m[i].offset;
					m[i].offset = 0;
					t->split_maps++;
					break;
				}
			}
		}
		if (i < n) {
			l->map = i;
		} else {
			l->map = LOC_FAKE_MAP;
			t->fake_locs++;
		}
	}
	return 0;
}

/* Lines before the memory map (pprof's parseAdditionalSections), from the line [s, e). */
static int additional_sections(struct lp *t, const char *s, const char *e, int have_line)
{
	for (;;) {
		if (have_line) {
			if (map_trigger(s, e))
				return parse_maps(t, t->p, t->end);
			if (!blank_or_comment(s, e))
				t->skipped_lines++;
		}
		if (!next_line(&t->p, t->end, &s, &e))
			return 0;
		have_line = 1;
	}
}

/* ---------------------------------------------------------------- binary CPU profiles */

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
		size_t ws = k < 2 ? 4 : 8;
		if (n < 5 * ws)
			continue;
		uint64_t w[5];
		for (int i = 0; i < 5; i++)
			w[i] = word(d + (size_t)i * ws, k);
		if (w[0] == 0 && w[1] == 3 && (w[2] == 0 || w[2] == 1) && w[3] > 0 && w[4] == 0) {
			*enc = k;
			*period = w[3];
			*java = w[2] == 1;
			return 1;
		}
	}
	return 0;
}

static int parse_java_symbols(struct lp *t, const char *p, const char *end);

/* pprof's cleanupDuplicateLocations: a leaf the unwinder saw again as its caller + 1. */
static void drop_dup_leaves(struct lp *t)
{
	struct lsample *S = VEC(t->samples, struct lsample);
	uint32_t *stk = VEC(t->stk, uint32_t);
	const struct lloc *L = VEC(t->locs, struct lloc);
	for (uint32_t i = 0; i < t->samples.len; i++) {
		if (S[i].n < 2 || L[stk[S[i].first]].addr != L[stk[S[i].first + 1]].addr + 1)
			continue;
		memmove(stk + S[i].first + 1, stk + S[i].first + 2,
			(size_t)(S[i].n - 2) * sizeof(*stk));
		S[i].n--;
		t->dup_leaves++;
	}
}

static int parse_cpu(struct lp *t)
{
	const uint8_t *d = (const uint8_t *)t->in->data;
	size_t n = t->in->len;
	unsigned enc;
	uint64_t period_us;
	int java;
	cpu_header(d, n, &enc, &period_us, &java);
	size_t ws = enc < 2 ? 4 : 8;
	t->fam = java ? FAM_JAVA_CPU : FAM_CPU;
	t->version =
	    java ? (ws == 4 ? "java-cpu-32" : "java-cpu-64") : (ws == 4 ? "cpu-32" : "cpu-64");
	if (period_us > (uint64_t)INT64_MAX / 1000)
		return byte_error(t, 3 * ws, "sampling period %llu us is too large",
				  (unsigned long long)period_us);
	t->period = (int64_t)period_us * 1000;
	t->period_type = "cpu";
	t->period_unit = "nanoseconds";
	t->nvals = 2;
	t->type[0] = "samples";
	t->unit[0] = "count";
	t->type[1] = "cpu";
	t->unit[1] = "nanoseconds";
	size_t off = 5 * ws;
	int trailer = 0;
	while (off < n) {
		size_t rec = off;
		if (n - off < 2 * ws)
			return byte_error(t, rec,
					  "truncated record (%zu bytes left, a record needs %zu)",
					  n - off, 2 * ws);
		uint64_t count = word(d + off, enc), depth = word(d + off + ws, enc);
		off += 2 * ws;
		if (depth > (n - off) / ws)
			return byte_error(
			    t, rec,
			    "stack depth %llu runs past the end of the data (%zu bytes left)",
			    (unsigned long long)depth, n - off);
		if (count == 0 && depth == 1 && word(d + off, enc) == 0) {
			off += ws;
			trailer = 1;
			break;
		}
		if (count > (uint64_t)INT64_MAX ||
		    (t->period && (int64_t)count > INT64_MAX / t->period))
			return byte_error(t, rec, "sample count %llu is too large",
					  (unsigned long long)count);
		struct lsample *s = new_sample(t);
		if (!s)
			return oom(t);
		s->v[0] = (int64_t)count;
		s->v[1] = (int64_t)count * t->period;
		for (uint64_t i = 0; i < depth; i++) {
			uint64_t a = word(d + off, enc);
			off += ws;
			if (!java && i > 0)
				a--;
			if (push_addr(t, a))
				return oom(t);
		}
		s = &VEC(t->samples, struct lsample)[t->samples.len - 1];
		s->n = t->stk.len - s->first;
	}
	if (!trailer)
		t->no_trailer++;
	const char *rest = t->in->data + off, *end = t->in->data + n;
	if (java)
		return parse_java_symbols(t, rest, end);

	/* the signal handler's frame: the second frame of (nearly) every sample, twice at most */
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
			break;
		for (uint32_t i = 0; i < ns; i++)
			have += S[i].n >= 2 && L[stk[S[i].first + 1]].addr == L[cand].addr;
		if (have < ns - margin)
			break;
		for (uint32_t i = 0; i < ns; i++) {
			if (S[i].n < 2 || stk[S[i].first + 1] != cand)
				continue;
			memmove(stk + S[i].first + 1, stk + S[i].first + 2,
				(size_t)(S[i].n - 2) * sizeof(*stk));
			S[i].n--;
			t->sig_frames++;
		}
	}
	drop_dup_leaves(t);
	return parse_maps(t, rest, end);
}

/* ---------------------------------------------------------------- heap */

/* "heap profile: A: B [C: D] @ WHAT" */
struct heap_header {
	const char *n[4][2];
	const char *what, *what_end; /* heap[_a-z0-9]*, growthz, fragmentationz */
	const char *rate, *rate_end;
};

static int heap_header(const char *s, const char *e, struct heap_header *h)
{
	const char *c = memmem(s, (size_t)(e - s), "heap profile:", 13);
	if (!c)
		return 0;
	c += 13;
	for (int i = 0; i < 4; i++) {
		c = skip_spaces(c, e);
		if (i == 2) {
			if (c >= e || *c != '[')
				return 0;
			c = skip_spaces(c + 1, e);
		}
		h->n[i][0] = c;
		c = digit_run(c, e);
		if (c == h->n[i][0])
			return 0;
		h->n[i][1] = c;
		if (i % 2 == 0) {
			c = skip_spaces(c, e);
			if (c >= e || *c != ':')
				return 0;
			c++;
		}
	}
	c = skip_spaces(c, e);
	if (c >= e || *c != ']')
		return 0;
	c = skip_spaces(c + 1, e);
	if (c >= e || *c != '@')
		return 0;
	c = skip_spaces(c + 1, e);
	h->what = c;
	if (starts(c, e, "heap")) {
		c += 4;
		while (c < e && (*c == '_' || (*c >= 'a' && *c <= 'z') || is_digit(*c)))
			c++;
		h->what_end = c;
		if (c < e && *c == '/')
			c++;
		h->rate = c;
		h->rate_end = digit_run(c, e);
		return 1;
	}
	if (starts(c, e, "growthz") || starts(c, e, "fragmentationz")) {
		h->what_end = c + (*c == 'g' ? 7 : 14);
		h->rate = h->rate_end = h->what_end;
		return 1;
	}
	return 0;
}

static int span_eq(const char *const a[2], const char *const b[2])
{
	return a[1] - a[0] == b[1] - b[0] && memcmp(a[0], b[0], (size_t)(a[1] - a[0])) == 0;
}

/* pprof's scaleHeapSample: *count and *size divided by the chance of being sampled. */
static int unsample(int64_t *count, int64_t *size, int64_t rate)
{
	if (*count == 0 || *size == 0) {
		*count = *size = 0;
		return 0;
	}
	if (rate <= 1)
		return 0;
	double avg = (double)*size / (double)*count;
	double scale = 1 / (1 - exp(-avg / (double)rate));
	double c = (double)*count * scale, z = (double)*size * scale;
	if (!(c > -9223372036854775808.0 && c < 9223372036854775808.0) ||
	    !(z > -9223372036854775808.0 && z < 9223372036854775808.0))
		return -1;
	*count = (int64_t)c;
	*size = (int64_t)z;
	return 0;
}

static int parse_heap(struct lp *t)
{
	const char *s, *e;
	first_text_line(&t->p, t->end, &s, &e);
	struct heap_header h;
	if (!heap_header(s, e, &h))
		return text_error(
		    t, s, "not a heap profile header ('heap profile: N: B [N: B] @ heap...')");
	int v2 = 0, has_alloc = 0;
	t->period = 1;
	t->version = "heap";
	if (starts(h.what, h.what_end, "heap")) {
		int64_t rate = 0;
		if (h.rate_end > h.rate && parse_dec(h.rate, h.rate_end, &rate))
			return text_error(t, h.rate, "sampling rate '%.*s' is too large",
					  (int)(h.rate_end - h.rate), h.rate);
		if (eq(h.what, h.what_end, "heapz_v2") || eq(h.what, h.what_end, "heap_v2")) {
			v2 = 1;
			t->period = rate;
		} else if (eq(h.what, h.what_end, "heapprofile")) {
			t->period = 1;
		} else if (eq(h.what, h.what_end, "heap")) {
			v2 = 1;
			t->period = rate / 2;
		} else {
			return text_error(t, h.what, "unknown heap profile kind '%.*s'",
					  (int)(h.what_end - h.what), h.what);
		}
		static const char zs[] = "0";
		const char *const zero[2] = {zs, zs + 1};
		has_alloc = (!span_eq(h.n[2], h.n[0]) && !span_eq(h.n[2], zero)) ||
			    (!span_eq(h.n[3], h.n[1]) && !span_eq(h.n[3], zero));
		t->version = v2 ? "heap-v2" : "heap";
	} else {
		t->version = *h.what == 'g' ? "growth" : "fragmentation";
	}
	t->period_type = "space";
	t->period_unit = "bytes";
	if (has_alloc) {
		t->nvals = 4;
		t->type[0] = "alloc_objects";
		t->type[1] = "alloc_space";
		t->type[2] = "inuse_objects";
		t->type[3] = "inuse_space";
	} else {
		t->nvals = 2;
		t->type[0] = "objects";
		t->type[1] = "space";
	}
	for (unsigned i = 0; i < t->nvals; i++)
		t->unit[i] = i % 2 ? "bytes" : "count";
	t->heap_sampling = v2 && t->period > 1;
	t->heap_rate = t->period;

	int have = 0;
	while (next_line(&t->p, t->end, &s, &e)) {
		if (blank_or_comment(s, e))
			continue;
		trim(&s, &e);
		if (map_trigger(s, e)) {
			have = 1;
			break;
		}
		/* "(-?\d+): *(-?\d+) *\[ *(\d+): *(\d+) *] @([ x0-9a-f]*)" */
		const char *f[4][2], *c = s;
		for (int i = 0; i < 4; i++) {
			if (i == 2) {
				if (c >= e || *c != '[')
					goto bad;
				c = skip_spaces(c + 1, e);
			}
			f[i][0] = c;
			if (i < 2 && c < e && *c == '-')
				c++;
			c = digit_run(c, e);
			if (c == f[i][0] || (c == f[i][0] + 1 && *f[i][0] == '-'))
				goto bad;
			f[i][1] = c;
			if (i % 2 == 0) {
				if (c >= e || *c != ':')
					goto bad;
				c++;
			}
			c = skip_spaces(c, e);
		}
		if (c >= e || *c != ']')
			goto bad;
		c = skip_spaces(c + 1, e);
		if (c >= e || *c != '@')
			goto bad;
		c++;
		int64_t val[4];
		for (int i = 0; i < 4; i++)
			if (parse_dec(f[i][0], f[i][1], &val[i]))
				return text_error(
				    t, f[i][0], "number '%.*s' is out of the 64-bit range",
				    (int)(f[i][1] - f[i][0] > 40 ? 40 : f[i][1] - f[i][0]),
				    f[i][0]);
		struct lsample *sm = new_sample(t);
		if (!sm)
			return oom(t);
		unsigned k = 0;
		int scaled = 0;
		for (int pass = has_alloc ? 0 : 1; pass < 2; pass++) {
			int64_t cnt = val[pass ? 0 : 2], size = val[pass ? 1 : 3];
			if (cnt == 0 && size != 0)
				return text_error(t, f[pass ? 0 : 2][0],
						  "%s count is 0 but its bytes are %lld",
						  pass ? "inuse" : "allocation", (long long)size);
			if (cnt != 0) {
				if (cnt == -1 && size == INT64_MIN)
					return text_error(t, f[pass ? 1 : 3][0],
							  "block size out of range");
				sm->bytes = size / cnt;
				sm->has_bytes = 1;
				if (v2) {
					if (unsample(&cnt, &size, t->period))
						return text_error(
						    t, f[pass ? 0 : 2][0],
						    "unsampled value out of the 64-bit range");
					scaled = t->heap_sampling;
				}
			}
			sm->v[k++] = cnt;
			sm->v[k++] = size;
		}
		t->heap_unsampled += scaled;
		uint32_t n = 0;
		int rc = scan_addrs(t, c, addr_span_end(c, e), ADJUST_ALL, &n);
		if (rc)
			return rc;
		sm = &VEC(t->samples, struct lsample)[t->samples.len - 1];
		sm->n = n;
		continue;
	bad:
		return text_error(t, s, "expected a heap sample 'N: B [N: B] @ ADDRESS...'");
	}
	return additional_sections(t, s, e, have);
}

/* ---------------------------------------------------------------- Go count profiles */

static int parse_count(struct lp *t)
{
	const char *s, *e;
	first_text_line(&t->p, t->end, &s, &e);
	trim(&s, &e);
	/* "(\S+) profile: total \d+" (the name printable: a NUL would end it in C) */
	const char *w = s;
	while (w < e && (unsigned char)*w > ' ' && *w != 0x7f)
		w++;
	pv_str_ix name = builder_str(t->b, s, (size_t)(w - s));
	if (t->b->status)
		return oom(t);
	t->type[0] = t->period_type = pv_str(t->b->p, name);
	t->unit[0] = t->period_unit = "count";
	t->nvals = 1;
	t->period = 1;
	t->version = t->type[0];
	int have = 0;
	while (next_line(&t->p, t->end, &s, &e)) {
		if (blank_or_comment(s, e))
			continue;
		if (starts(s, e, "---")) {
			trim(&s, &e);
			have = 1;
			break;
		}
		/* "(\d+) @(( 0x[0-9a-f]+)+)" */
		const char *c = digit_run(s, e);
		const char *tail = e;
		if (tail > s && tail[-1] == '\r')
			tail--;
		if (c == s || c + 2 > tail || c[0] != ' ' || c[1] != '@')
			return text_error(t, s, "expected 'COUNT @ ADDRESS...'");
		int64_t cnt;
		int r = parse_int0(s, c, &cnt);
		if (r)
			return text_error(t, s,
					  r == -2 ? "count '%.*s' is out of the 64-bit range"
						  : "count '%.*s' is not a number",
					  (int)(c - s > 40 ? 40 : c - s), s);
		c += 2;
		const char *q = c;
		uint32_t n = 0;
		struct lsample *sm = new_sample(t);
		if (!sm)
			return oom(t);
		while (q < tail) {
			if (q + 3 > tail || q[0] != ' ' || q[1] != '0' || q[2] != 'x')
				return text_error(t, q, "expected ' 0xADDRESS'");
			const char *h0 = q + 3, *h1 = h0;
			while (h1 < tail && (is_digit(*h1) || (*h1 >= 'a' && *h1 <= 'f')))
				h1++;
			if (h1 == h0)
				return text_error(t, q, "expected ' 0xADDRESS'");
			q = h1;
		}
		if (c == tail)
			return text_error(t, c, "expected ' 0xADDRESS'");
		r = scan_addrs(t, c, tail, ADJUST_ALL, &n);
		if (r)
			return r;
		sm = &VEC(t->samples, struct lsample)[t->samples.len - 1];
		sm->v[0] = cnt;
		sm->n = n;
	}
	return additional_sections(t, s, e, have);
}

/* ---------------------------------------------------------------- threadz */

/* "--- Thread HEX (name: NAME/TID) stack: ---" */
static int thread_start(const char *s, const char *e)
{
	const char *c = memmem(s, (size_t)(e - s), "--- Thread ", 11);
	if (!c)
		return 0;
	c += 11;
	const char *h = hex_run(c, e);
	if (h == c || !starts(h, e, " (name: "))
		return 0;
	return memmem(h, (size_t)(e - h), ") stack: ---", 12) != NULL;
}

static int parse_thread(struct lp *t)
{
	const char *s, *e;
	int have = 0;
	have = first_text_line(&t->p, t->end, &s, &e);
	t->nvals = 1;
	t->type[0] = t->period_type = "thread";
	t->unit[0] = t->period_unit = "count";
	t->period = 1;
	t->version = "threadz";
	if (have && starts(s, e, "--- threadz ")) {
		/* comments up to the first stack */
		while ((have = next_line(&t->p, t->end, &s, &e))) {
			if (map_trigger(s, e) || (s < e && *s == '-'))
				break;
			if (!blank_or_comment(s, e))
				t->skipped_lines++;
		}
	}
	while (have && !map_trigger(s, e)) {
		if (starts(s, e, "---- no stack trace for")) {
			have = 0;
			break;
		}
		if (!thread_start(s, e))
			return text_error(t, s,
					  "expected '--- Thread ID (name: NAME/TID) stack: ---'");
		t->threads++;
		/* the stack: every address of every line up to the next "---" line */
		struct lsample *sm = new_sample(t);
		if (!sm)
			return oom(t);
		uint32_t first = t->stk.len, n = 0;
		int same = 0;
		have = 0;
		while (next_line(&t->p, t->end, &s, &e)) {
			trim(&s, &e);
			if (s == e)
				continue;
			if (starts(s, e, "---")) {
				have = 1;
				break;
			}
			if (memmem(s, (size_t)(e - s), "same as previous thread", 23)) {
				same = 1;
				continue;
			}
			int rc = scan_addrs(t, s, e, ADJUST_CALLERS, &n);
			if (rc)
				return rc;
		}
		if (same || n == 0) {
			/* the previous thread's stack once more (pprof's counter bump) */
			t->samples.len--;
			t->stk.len = first;
			if (t->samples.len)
				VEC(t->samples, struct lsample)[t->samples.len - 1].v[0]++;
			t->same_as_prev++;
			continue;
		}
		sm = &VEC(t->samples, struct lsample)[t->samples.len - 1];
		sm->v[0] = 1;
		sm->n = n;
	}
	drop_dup_leaves(t);
	return additional_sections(t, s, e, have);
}

/* ---------------------------------------------------------------- contention */

static void report_attr(struct lp *t, const char *k0, const char *k1, const char *v0,
			const char *v1)
{
	builder_lossy(t->b, 1, "header attribute '%.*s = %.*s' not kept", (int)(k1 - k0), k0,
		      (int)(v1 - v0), v0);
}

static int parse_contention(struct lp *t)
{
	const char *s, *e;
	first_text_line(&t->p, t->end, &s, &e);
	t->nvals = 2;
	t->type[0] = "contentions";
	t->unit[0] = "count";
	t->type[1] = "delay";
	t->unit[1] = "nanoseconds";
	t->period_type = "contentions";
	t->period_unit = "count";
	t->period = 1;
	t->version = "contention";
	int64_t hz = 0;
	int have = 0;
	while ((have = next_line(&t->p, t->end, &s, &e))) {
		trim(&s, &e);
		if (s == e || *s == '#')
			continue;
		if (starts(s, e, "---"))
			break;
		const char *q = memchr(s, '=', (size_t)(e - s));
		if (!q)
			break;
		const char *k0 = s, *k1 = q, *v0 = q + 1, *v1 = e;
		trim(&k0, &k1);
		trim(&v0, &v1);
		int64_t v = 0;
		int r = parse_int0(v0, v1, &v);
		int known = eq(k0, k1, "cycles/second") || eq(k0, k1, "sampling period") ||
			    eq(k0, k1, "ms since reset");
		if (known && r)
			return text_error(t, v0, "attribute '%.*s': '%.*s' is %s", (int)(k1 - k0),
					  k0, (int)(v1 - v0 > 40 ? 40 : v1 - v0), v0,
					  r == -2 ? "out of the 64-bit range" : "not a number");
		if (eq(k0, k1, "cycles/second")) {
			hz = v;
		} else if (eq(k0, k1, "sampling period")) {
			t->period = v;
		} else if (eq(k0, k1, "ms since reset")) {
			if (v > INT64_MAX / 1000000 || v < INT64_MIN / 1000000)
				return text_error(t, v0, "'ms since reset' is out of range");
			t->duration_ns = v * 1000000;
		} else if (eq(k0, k1, "discarded samples")) {
			if (!r && v)
				t->discarded = (uint64_t)v;
		} else {
			report_attr(t, k0, k1, v0, v1);
		}
	}
	/* samples: "DELAY COUNT @ ADDRESS..." */
	while (have) {
		trim(&s, &e);
		if (starts(s, e, "---"))
			break;
		if (s < e && *s != '#') {
			const char *a0 = s, *a1 = digit_run(s, e);
			const char *b0 = skip_spaces(a1, e), *b1 = digit_run(b0, e);
			const char *at = skip_spaces(b1, e);
			if (a1 == a0 || b1 == b0 || at >= e || *at != '@')
				return text_error(
				    t, s,
				    "expected a contention sample 'DELAY COUNT @ ADDRESS...'");
			int64_t v1, v2;
			if (parse_dec(a0, a1, &v1))
				return text_error(t, a0, "delay '%.*s' is out of the 64-bit range",
						  (int)(a1 - a0 > 40 ? 40 : a1 - a0), a0);
			if (parse_dec(b0, b1, &v2))
				return text_error(t, b0, "count '%.*s' is out of the 64-bit range",
						  (int)(b1 - b0 > 40 ? 40 : b1 - b0), b0);
			if (t->period > 0) {
				if (hz > 0) {
					double ghz = (double)hz / 1e9;
					double x = (double)v1 * (double)t->period / ghz;
					if (!(x < 9223372036854775808.0))
						return text_error(
						    t, a0, "delay in ns out of the 64-bit range");
					v1 = (int64_t)x;
				}
				if (v2 > INT64_MAX / t->period)
					return text_error(t, b0,
							  "count times the sampling period is out "
							  "of the 64-bit range");
				v2 *= t->period;
			}
			struct lsample *sm = new_sample(t);
			if (!sm)
				return oom(t);
			sm->v[0] = v2;
			sm->v[1] = v1;
			uint32_t n = 0;
			int rc = scan_addrs(t, at + 1, addr_span_end(at + 1, e), ADJUST_ALL, &n);
			if (rc)
				return rc;
			VEC(t->samples, struct lsample)[t->samples.len - 1].n = n;
		}
		have = next_line(&t->p, t->end, &s, &e);
	}
	return additional_sections(t, s, e, have);
}

/* ---------------------------------------------------------------- Java heap and contention */

static int is_word(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static void java_unit(struct lp *t, unsigned i, const char *v0, const char *v1)
{
	pv_str_ix u = builder_str(t->b, v0, (size_t)(v1 - v0));
	t->unit[i] = pv_str(t->b->p, u);
}

static int parse_java(struct lp *t, int heap)
{
	const char *s, *e;
	first_text_line(&t->p, t->end, &s, &e);
	t->fam = heap ? FAM_JAVA_HEAP : FAM_JAVA_CONTENTION;
	t->version = heap ? "java-heap" : "java-contention";
	t->nvals = 2;
	t->period_type = "";
	t->period_unit = "";
	t->period = 0;
	int have_types = 0;
	/* attributes "([\w ]+)=([\w ]+)" up to the first line that is not one */
	const char *line_start = t->p;
	while (next_line(&t->p, t->end, &s, &e)) {
		trim(&s, &e);
		if (s == e) {
			line_start = t->p;
			continue;
		}
		const char *q = memchr(s, '=', (size_t)(e - s));
		if (!q || q == s || !(is_word(q[-1]) || q[-1] == ' ') || q + 1 >= e ||
		    !(is_word(q[1]) || q[1] == ' ')) {
			t->p = line_start;
			break;
		}
		/* the attribute's words: back from '=' and on from it */
		const char *k0 = q, *k1 = q, *v0 = q + 1, *v1 = q + 1;
		while (k0 > s && (is_word(k0[-1]) || k0[-1] == ' '))
			k0--;
		while (v1 < e && (is_word(*v1) || *v1 == ' '))
			v1++;
		trim(&k0, &k1);
		trim(&v0, &v1);
		if (eq(k0, k1, "format")) {
			if (!eq(v0, v1, "java"))
				return text_error(t, v0, "format '%.*s' is not java",
						  (int)(v1 - v0), v0);
		} else if (eq(k0, k1, "resolution")) {
			t->type[0] = heap ? "inuse_objects" : "contentions";
			t->unit[0] = "count";
			t->type[1] = heap ? "inuse_space" : "delay";
			java_unit(t, 1, v0, v1);
			have_types = 1;
		} else if (!heap && eq(k0, k1, "sampling period")) {
			t->period_type = "contentions";
			t->period_unit = "count";
			int r = parse_int0(v0, v1, &t->period);
			if (r)
				return text_error(
				    t, v0, "sampling period '%.*s' is %s", (int)(v1 - v0), v0,
				    r == -2 ? "out of the 64-bit range" : "not a number");
		} else if (!heap && eq(k0, k1, "ms since reset")) {
			int64_t v;
			int r = parse_int0(v0, v1, &v);
			if (r || v > INT64_MAX / 1000000 || v < INT64_MIN / 1000000)
				return text_error(t, v0,
						  "'ms since reset' is not a number in range");
			t->duration_ns = v * 1000000;
		} else {
			report_attr(t, k0, k1, v0, v1);
		}
		line_start = t->p;
	}
	if (!have_types) {
		builder_lossy(t->b, 1, "no 'resolution' attribute (read as %s)",
			      heap ? "bytes" : "microseconds");
		t->type[0] = heap ? "inuse_objects" : "contentions";
		t->unit[0] = "count";
		t->type[1] = heap ? "inuse_space" : "delay";
		t->unit[1] = heap ? "bytes" : "microseconds";
	}
	/* samples " *(\d+) +(\d+) +@ +([ x0-9a-f]*)" up to the first line that is not one */
	line_start = t->p;
	while (next_line(&t->p, t->end, &s, &e)) {
		trim(&s, &e);
		if (s == e) {
			line_start = t->p;
			continue;
		}
		const char *a0 = s, *a1 = digit_run(s, e), *b0 = skip_spaces(a1, e);
		const char *b1 = digit_run(b0, e), *at = skip_spaces(b1, e);
		if (a1 == a0 || b0 == a1 || b1 == b0 || at == b1 || at >= e || *at != '@' ||
		    at + 1 >= e || at[1] != ' ') {
			t->p = line_start;
			break;
		}
		int64_t size, count;
		int r1 = parse_int0(a0, a1, &size), r2 = parse_int0(b0, b1, &count);
		if (r1 || r2)
			return text_error(t, r1 ? a0 : b0, "sample value is %s",
					  (r1 ? r1 : r2) == -2 ? "out of the 64-bit range"
							       : "not a number");
		struct lsample *sm = new_sample(t);
		if (!sm)
			return oom(t);
		if (heap) {
			if (count == 0)
				return text_error(
				    t, b0, "the object count of a heap sample must not be 0");
			if (count == -1 && size == INT64_MIN)
				return text_error(t, a0, "block size out of range");
			sm->bytes = size / count;
			sm->has_bytes = 1;
			if (unsample(&count, &size, 524288))
				return text_error(t, a0, "unsampled value out of the 64-bit range");
			t->heap_unsampled++;
		} else if (t->period) {
			if (__builtin_mul_overflow(count, t->period, &count) ||
			    __builtin_mul_overflow(size, t->period, &size))
				return text_error(
				    t, a0,
				    "value times the sampling period is out of the 64-bit range");
		}
		sm->v[0] = count;
		sm->v[1] = size;
		uint32_t n = 0;
		int rc = scan_addrs(t, at + 1, addr_span_end(at + 1, e), ADJUST_NONE, &n);
		if (rc)
			return rc;
		VEC(t->samples, struct lsample)[t->samples.len - 1].n = n;
		line_start = t->p;
	}
	if (heap) {
		t->heap_sampling = 1;
		t->heap_rate = 524288;
	}
	return parse_java_symbols(t, t->p, t->end);
}

/* The base name of a path as Go's filepath.Base gives it ("" is ".", "//" is "/"). */
static void base_name(const char **s, const char **e)
{
	static const char dot[] = ".", slash[] = "/";
	if (*s == *e) {
		*s = dot;
		*e = dot + 1;
		return;
	}
	while (*e > *s && (*e)[-1] == '/')
		(*e)--;
	if (*s == *e) {
		*s = slash;
		*e = slash + 1;
		return;
	}
	const char *c = *e;
	while (c > *s && c[-1] != '/')
		c--;
	*s = c;
}

/* pprof's parseJavaLocations: "0xADDR function (File.java:LINE)" lines name the locations. */
static int parse_java_symbols(struct lp *t, const char *p, const char *end)
{
	struct u64map fn_file = {0}; /* function name -> its file (the first seen) + 1 */
	const char *s, *e;
	int rc = 0;
	while (next_line(&p, end, &s, &e)) {
		trim(&s, &e);
		if (!starts(s, e, "0x"))
			continue;
		const char *h0 = s + 2, *h1 = hex_run(h0, e);
		if (h1 == h0 || h1 >= e || !ws(*h1))
			continue;
		const char *r0 = h1;
		while (r0 < e && ws(*r0))
			r0++;
		uint64_t a;
		if (parse_hex(h0, h1, &a)) {
			rc = text_error(t, s, "address '%.*s' is longer than 64 bits",
					(int)(h1 - s > 40 ? 40 : h1 - s), s);
			break;
		}
		uint32_t li = u64map_get(&t->addr_map, a);
		if (li == UINT32_MAX)
			continue;
		const char *f0 = r0, *f1 = r0, *n0 = r0, *n1 = e;
		int64_t line = 0;
		int matched = 0;
		if (e > r0 && e[-1] == ')') {
			/* "^(.*)\s+\((.+):(-?\d+)\)$", then "^(.*)\s+\((.*)\)$" */
			const char *colon = NULL;
			for (const char *c = e - 1; c > r0; c--)
				if (*c == ':') {
					colon = c;
					break;
				}
			if (colon) {
				const char *d0 = colon + 1, *d1 = e - 1;
				const char *dd = d0 < d1 && *d0 == '-' ? d0 + 1 : d0;
				if (dd < d1 && digit_run(dd, d1) == d1) {
					for (const char *c = colon - 2; c > r0; c--)
						if (*c == '(' && ws(c[-1])) {
							n1 = c - 1;
							f0 = c + 1;
							f1 = colon;
							int64_t v;
							if (parse_dec(d0, d1, &v) == 0 && v > 0)
								line = v;
							matched = 1;
							break;
						}
				}
			}
			if (!matched) {
				for (const char *c = e - 2; c > r0; c--)
					if (*c == '(' && ws(c[-1])) {
						n1 = c - 1;
						f0 = c + 1;
						f1 = e - 1;
						base_name(&f0, &f1);
						matched = 1;
						break;
					}
			}
		}
		if (!matched) {
			f0 = f1 = r0;
			if (memmem(r0, (size_t)(e - r0), "generated stub/JIT", 18)) {
				n0 = "STUB";
				n1 = n0 + 4;
			}
		}
		pv_str_ix name = builder_str(t->b, n0, (size_t)(n1 - n0));
		pv_str_ix file = builder_str(t->b, f0, (size_t)(f1 - f0));
		if (t->b->status) {
			rc = oom(t);
			break;
		}
		uint32_t known = u64map_get(&fn_file, name);
		if (known == UINT32_MAX) {
			if (u64map_put(&fn_file, name, file)) {
				rc = oom(t);
				break;
			}
		} else {
			file = known;
		}
		if (line > UINT32_MAX) {
			t->line_range++;
			line = 0;
		}
		struct lloc *l = &VEC(t->locs, struct lloc)[li];
		l->name = name;
		l->file = file;
		l->line = (uint32_t)line;
	}
	u64map_release(&fn_file);
	return rc;
}

/* ---------------------------------------------------------------- probe */

/* The first line that is not blank or a '#' comment (within the first 64 KiB). */
static int first_line(const struct pv_input *in, const char **s, const char **e)
{
	const char *p = in->data, *end = in->data + (in->len < 65536 ? in->len : 65536);
	return first_text_line(&p, end, s, e);
}

/* The count profile header "(\w+) profile: total \d+". */
static int count_header(const char *s, const char *e)
{
	trim(&s, &e);
	const char *w = s;
	while (w < e && (unsigned char)*w > ' ' && *w != 0x7f)
		w++;
	if (w == s || !starts(w, e, " profile: total "))
		return 0;
	w += 16;
	return w < e && digit_run(w, e) == e;
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
	struct heap_header h;
	if (heap_header(s, e, &h) && starts(s, e, "heap profile:"))
		return FAM_HEAP;
	if (count_header(s, e))
		return FAM_COUNT;
	if (starts(s, e, "--- threadz ") || (starts(s, e, "--- Thread ") && thread_start(s, e)))
		return FAM_THREAD;
	trim(&s, &e);
	if (eq(s, e, "--- heapz 1 ---"))
		return FAM_JAVA_HEAP;
	if (starts(s, e, "--- contentionz ") || starts(s, e, "--- mutex:") ||
	    starts(s, e, "--- contention:")) {
		/* Java's has "format = java" among its attributes */
		const char *p = e, *end = in->data + in->len, *a, *b;
		for (int i = 0; i < 16 && next_line(&p, end, &a, &b); i++) {
			trim(&a, &b);
			if (a == b)
				continue;
			const char *q = memchr(a, '=', (size_t)(b - a));
			if (!q || starts(a, b, "---"))
				break;
			const char *k1 = q;
			while (k1 > a && is_space(k1[-1]))
				k1--;
			if (eq(a, k1, "format") || eq(a, k1, "resolution"))
				return eq(s, e, "--- contentionz 1 ---") ? FAM_JAVA_CONTENTION
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

static int build(struct lp *t)
{
	struct pv_builder *b = t->b;
	struct pv_profile *p = b->p;
	struct lsample *S = VEC(t->samples, struct lsample);
	uint32_t *stk = VEC(t->stk, uint32_t);
	struct lloc *L = VEC(t->locs, struct lloc);
	int java =
	    t->fam == FAM_JAVA_CPU || t->fam == FAM_JAVA_HEAP || t->fam == FAM_JAVA_CONTENTION;

	/* locations in the order samples first name them (pprof's location ids) */
	uint32_t *order = pv_malloc(((size_t)t->locs.len + 1) * sizeof(*order));
	if (!order)
		return oom(t);
	uint32_t nr = 0;
	for (uint32_t i = 0; i < t->samples.len; i++)
		for (uint32_t k = 0; k < S[i].n; k++) {
			struct lloc *l = &L[stk[S[i].first + k]];
			if (!l->seen) {
				l->seen = 1;
				order[nr++] = stk[S[i].first + k];
			}
		}
	int rc = assign_mappings(t, order, nr);
	for (uint32_t k = 0; k < nr; k++)
		if (java && !L[order[k]].name)
			t->unsym_java++;
	pv_free(order);
	if (rc)
		return rc;

	/* metrics */
	int64_t scale[MAX_VALUES];
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

	/* modules */
	pv_module_ix *mods = pv_malloc(((size_t)t->maps.len + 1) * sizeof(*mods));
	if (!mods)
		return oom(t);
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

	/* samples */
	struct u64map label_rows = {0};
	uint64_t sat = 0;
	pv_thread_ix th =
	    builder_thread(b, builder_cstr(b, "all samples"), PV_ID_NONE, PV_ID_NONE, 0);
	for (uint32_t i = 0; i < t->samples.len && !b->status; i++) {
		const struct lsample *s = &S[i];
		pv_stack_ix st = PV_NONE;
		for (uint32_t k = s->n; k-- > 0;)
			st = builder_stack(b, st, loc_frame(t, &L[stk[s->first + k]], mods));
		int64_t w[MAX_VALUES];
		for (unsigned m = 0; m < t->nvals; m++) {
			int64_t v = s->v[m];
			if (scale[m] != 1) {
				if (v > INT64_MAX / scale[m] || v < INT64_MIN / scale[m]) {
					sat++;
					v = v > 0 ? INT64_MAX : INT64_MIN;
				} else {
					v *= scale[m];
				}
			}
			w[m] = v;
		}
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
	pv_free(mods);
	if (b->status)
		return oom(t);

	/* the report */
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
	return b->status ? oom(t) : 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct lp t = {.in = in, .b = b, .err = err, .p = in->data, .end = in->data + in->len};
	t.fam = detect(in);
	int rc;
	switch (t.fam) {
	case FAM_CPU:
	case FAM_JAVA_CPU: rc = parse_cpu(&t); break;
	case FAM_HEAP: rc = parse_heap(&t); break;
	case FAM_COUNT: rc = parse_count(&t); break;
	case FAM_THREAD: rc = parse_thread(&t); break;
	case FAM_CONTENTION: rc = parse_contention(&t); break;
	case FAM_JAVA_HEAP: rc = parse_java(&t, 1); break;
	case FAM_JAVA_CONTENTION: rc = parse_java(&t, 0); break;
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
    .probe = probe,
    .import = import,
};

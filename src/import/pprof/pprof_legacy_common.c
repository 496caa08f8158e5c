/*
 * pprof_legacy_common.c - what the legacy pprof readers share (pprof_legacy.c, the binary CPU
 * profiles and the model; pprof_legacy_text.c, the text profiles): positioned errors, the text
 * helpers, sample addresses, and the memory map with pprof's fixes of its mappings. The bottom
 * layer of the legacy readers: it calls neither.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/text.h"
#include "base/vec.h"
#include "import/importer.h"
#include "import/pprof/pprof_legacy.h"

/* ---------------------------------------------------------------- errors */

int lp_text_error(struct lp *t, const char *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = input_vfail(t->in, t->err, PV_EPARSE, at, fmt, ap);
	va_end(ap);
	return rc;
}

int lp_oom(struct lp *t)
{
	t->b->status = PV_ENOMEM;
	return pv_error_set(t->err, PV_ENOMEM, "%s: out of memory", t->in->name);
}

/* ---------------------------------------------------------------- text helpers */

int lp_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The next line of [*p, end) without its '\n'; 0 at the end. */
int lp_next_line(const char **p, const char *end, const char **s, const char **e)
{
	if (*p >= end)
		return 0;
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	*s = *p;
	*e = nl ? nl : end;
	*p = nl ? nl + 1 : end;
	return 1;
}

void lp_trim(const char **s, const char **e)
{
	while (*s < *e && lp_is_space(**s))
		(*s)++;
	while (*e > *s && lp_is_space((*e)[-1]))
		(*e)--;
}

int lp_blank_or_comment(const char *s, const char *e)
{
	lp_trim(&s, &e);
	return s == e || *s == '#';
}

/* The first line that is not blank or a '#' comment, as the probe saw it; 0 when none. */
int lp_first_text_line(const char **p, const char *end, const char **s, const char **e)
{
	while (lp_next_line(p, end, s, e))
		if (!lp_blank_or_comment(*s, *e))
			return 1;
	return 0;
}

/* A memory map trigger of pprof: the line holds "--- Memory map: ---" or "MAPPED_LIBRARIES:". */
int lp_map_trigger(const char *s, const char *e)
{
	size_t n = (size_t)(e - s);
	return memmem(s, n, "--- Memory map: ---", 19) || memmem(s, n, "MAPPED_LIBRARIES:", 17);
}

/* Decimal digits [s, e) (an optional '-' first): 0, -1 not a number, -2 out of int64. */
int lp_parse_dec(const char *s, const char *e, int64_t *out)
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
		if (!text_is_digit(*s))
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
int lp_parse_int0(const char *s, const char *e, int64_t *out)
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
		int d = text_hex_digit(*s);
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
int lp_parse_hex(const char *s, const char *e, uint64_t *out)
{
	if (s == e)
		return -1;
	uint64_t v = 0;
	for (; s < e; s++) {
		int d = text_hex_digit(*s);
		if (d < 0)
			return -1;
		if (v >> 60)
			return -2;
		v = v << 4 | (unsigned)d;
	}
	*out = v;
	return 0;
}

const char *lp_hex_run(const char *s, const char *e)
{
	while (s < e && text_is_hex(*s))
		s++;
	return s;
}

const char *lp_digit_run(const char *s, const char *e)
{
	while (s < e && text_is_digit(*s))
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
int lp_push_addr(struct lp *t, uint64_t addr)
{
	uint32_t r = loc_of(t, addr);
	uint32_t *slot = r == UINT32_MAX ? NULL : vec_push(&t->stk, sizeof(*slot));
	if (!slot)
		return PV_ENOMEM;
	*slot = r;
	return 0;
}

struct lsample *lp_new_sample(struct lp *t)
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
int lp_scan_addrs(struct lp *t, const char *s, const char *e, enum adjust adjust, uint32_t *n)
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
		if (lp_parse_hex(d, q, &a))
			return lp_text_error(t, s, "address '%.*s' is longer than 64 bits",
					     (int)(q - s > 40 ? 40 : q - s), s);
		if (adjust == ADJUST_ALL || (adjust == ADJUST_CALLERS && *n > 0))
			a--;
		if (lp_push_addr(t, a))
			return lp_oom(t);
		(*n)++;
		s = q;
	}
	return 0;
}

/* The span of pprof's "@([ x0-9a-f]*)": the address characters after '@'. */
const char *lp_addr_span_end(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == 'x' || text_is_digit(*s) || (*s >= 'a' && *s <= 'f')))
		s++;
	return s;
}

/* ---------------------------------------------------------------- memory maps */

static int add_map(struct lp *t, uint64_t start, uint64_t limit, uint64_t offset, const char *f,
		   size_t flen)
{
	struct lmap *m = vec_push(&t->maps, sizeof(*m));
	if (!m)
		return lp_oom(t);
	*m = (struct lmap){.start = start, .limit = limit, .offset = offset};
	m->file = flen ? builder_str(t->b, f, flen) : 0;
	return 0;
}

bool lp_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

static const char *skip_ws(const char *s, const char *e)
{
	while (s < e && lp_ws(*s))
		s++;
	return s;
}

static bool is_perm(char c)
{
	return c == '-' || c == 'r' || c == 'w' || c == 'x' || c == 'p';
}

/* The next "\s+X" field: its start, or NULL when there is no space or no X there. */
static const char *field(const char *q, const char *e, bool (*is)(char))
{
	const char *w = skip_ws(q, e);
	return w > q && w < e && is(*w) ? w : NULL;
}

static bool not_ws(char c)
{
	return !lp_ws(c);
}

static const char *run(const char *s, const char *e, bool (*is)(char))
{
	while (s < e && is(*s))
		s++;
	return s;
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
	if (e - c >= 3 && c[0] == '0' && c[1] == 'x' && text_is_hex(c[2]))
		c += 2;
	const char *s0 = c, *s1 = run(c, e, text_is_hex), *l0, *l1;
	if (s1 == s0)
		return 0;
	c = s1;
	if (c < e && (*c == '-' || lp_ws(*c)))
		c++;
	c = skip_ws(c, e);
	if (e - c >= 3 && c[0] == '0' && c[1] == 'x' && text_is_hex(c[2]))
		c += 2;
	l0 = c;
	l1 = run(c, e, text_is_hex);
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
			if (!(w = field(q, e, text_is_hex)))
				continue;
			o0 = w;
			q = o1 = run(w, e, text_is_hex);
		}
		if (!(w = field(q, e, text_is_hex)) || (h = run(w, e, text_is_hex)) >= e ||
		    *h != ':' || run(h + 1, e, text_is_hex) == h + 1)
			continue;
		q = run(h + 1, e, text_is_hex);
		if (!(w = field(q, e, text_is_digit)))
			continue;
		q = run(w, e, text_is_digit);
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
			const char *h = run(w + 2, e, text_is_hex);
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
	if (lp_parse_hex(s0, s1, &start) || lp_parse_hex(l0, l1, &limit) ||
	    (o0 && lp_parse_hex(o0, o1, &offset)))
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
	if (c >= e || *c != ']' || c + 1 >= e || !lp_ws(c[1]))
		return s;
	const char *d = c;
	while (d > s && text_is_digit(d[-1]))
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
			lp_text_error(
			    t, line,
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
				return lp_oom(t);
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
int lp_parse_maps(struct lp *t, const char *p, const char *end)
{
	const char *s, *e;
	while (lp_next_line(&p, end, &s, &e)) {
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
			if (!lp_blank_or_comment(s, e))
				t->map_unknown++;
			continue;
		}
		const char *k0 = s, *k1 = eqs, *v0 = eqs + 1, *v1 = e;
		lp_trim(&k0, &k1);
		lp_trim(&v0, &v1);
		if (t->nr_attrs == MAX_ATTRS) {
			t->map_attrs_dropped++;
			continue;
		}
		pv_str_ix k = builder_strf(t->b, "$%.*s", (int)(k1 - k0), k0);
		pv_str_ix v = builder_str(t->b, v0, (size_t)(v1 - v0));
		if (t->b->status)
			return lp_oom(t);
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
	lp_trim(&s, &e);
	if (s == e || *s == '[')
		return 0;
	/* libRx: "[.]so$" or "[.]so[._][0-9]+" */
	for (const char *c = s; c + 3 <= e; c++) {
		if (c[0] != '.' || c[1] != 's' || c[2] != 'o')
			continue;
		if (c + 3 == e)
			return 0;
		if ((c[3] == '.' || c[3] == '_') && c + 4 < e && text_is_digit(c[4]))
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
int lp_assign_mappings(struct lp *t, const uint32_t *order, uint32_t nr)
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
int lp_additional_sections(struct lp *t, const char *s, const char *e, int have_line)
{
	for (;;) {
		if (have_line) {
			if (lp_map_trigger(s, e))
				return lp_parse_maps(t, t->p, t->end);
			if (!lp_blank_or_comment(s, e))
				t->skipped_lines++;
		}
		if (!lp_next_line(&t->p, t->end, &s, &e))
			return 0;
		have_line = 1;
	}
}

/* pprof's cleanupDuplicateLocations: a leaf the unwinder saw again as its caller + 1. */
void lp_drop_dup_leaves(struct lp *t)
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

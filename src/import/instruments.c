/*
 * instruments.c - Apple Instruments' "Deep Copy" of a call tree: tab-separated text, a header
 * line naming the columns, then one row per call-tree node in depth-first order, the node's depth
 * being the spaces before its symbol name.
 *
 *   Running Time<TAB>Self (ms)<TAB><TAB>Symbol Name            (Instruments 7)
 *   4273.0ms   99.9%<TAB>0<TAB> <TAB> main
 *   Weight<TAB>Self Weight<TAB>Symbol Names                    (Instruments 16)
 *   2.45 s  <U+2007>0.0%<TAB>846.00 ms<TAB>     delta()
 *   Bytes Used<TAB>Count<TAB><TAB>Symbol Name                  (allocations)
 *    429.93 MB     100.0%<TAB>84671<TAB> <TAB>start
 *
 * The tree is read as speedscope reads it (its import/instruments.ts): a node's total is its
 * weight column, or the sum of its children's totals when that is more (the column is rounded to
 * three digits); its self is its total less its children's. Each node with a self becomes one
 * sample of that weight on the node's stack. The weight keeps its unit: "ms", "s", "min" as
 * time, "cycles", "Kc", "Mc", "Gc" as cycles, "Bytes", "KB", "MB", "GB" as bytes (of 1024), and
 * its fraction ("2.45 s" is 2450 ms, where speedscope drops the fraction). An allocations copy's
 * "Count" column is a second metric, allocations, read by the same rule. The self column is
 * Instruments' own rounding of the same numbers and is not read. A "Source Path" column gives
 * the function's source file.
 */
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/text.h"
#include "base/vec.h"
#include "import/importer.h"

enum { COL_NONE = -1 };

/* The columns of the header line that the reader uses (their index, COL_NONE when absent). */
struct cols {
	int weight;    /* "Weight", "Running Time" or "Bytes Used" */
	int count;     /* "Count" (allocations) */
	int symbol;    /* "Symbol Name" or "Symbol Names" */
	int source;    /* "Source Path" */
	bool indented; /* "Symbol Names": every name is indented by the first row's indent */
	enum pv_unit unit;
};

/* Field k (0-based) of the tab-separated line p..e: 1 with [*fs, *fe), 0 when it has fewer. */
static int field(const char *p, const char *e, int k, const char **fs, const char **fe)
{
	for (int i = 0; i < k; i++) {
		const char *t = memchr(p, '\t', (size_t)(e - p));
		if (!t)
			return 0;
		p = t + 1;
	}
	const char *t = memchr(p, '\t', (size_t)(e - p));
	*fs = p;
	*fe = t ? t : e;
	return 1;
}

/* Columns read past the first MAX_COLS of a row: none (a deep copy has four or five). */
#define MAX_COLS 32

/* Field k of a row split by the import loop: 1 with [*fs, *fe), 0 when the row has fewer. */
static int row_field(const char *const *fb, int n, int k, const char **fs, const char **fe)
{
	if (k < 0 || k >= n)
		return 0;
	*fs = fb[k];
	*fe = fb[k + 1] - 1;
	return 1;
}

static const char *line_end(const char *p, const char *e)
{
	const char *le = text_line_end(p, e);
	return le > p && le[-1] == '\r' ? le - 1 : le;
}

/* Reads the header line p..e into c; 0 when it is not a deep copy's. */
static int header(const char *p, const char *e, struct cols *c)
{
	*c = (struct cols){COL_NONE, COL_NONE, COL_NONE, COL_NONE, false, PV_UNIT_NS};
	const char *fs, *fe;
	for (int k = 0; field(p, e, k, &fs, &fe); k++) {
		if (text_eq(fs, fe, "Weight") || text_eq(fs, fe, "Running Time")) {
			if (c->weight == COL_NONE)
				c->weight = k;
		} else if (text_eq(fs, fe, "Bytes Used")) {
			if (c->weight == COL_NONE) {
				c->weight = k;
				c->unit = PV_UNIT_BYTES;
			}
		} else if (text_eq(fs, fe, "Count")) {
			c->count = k;
		} else if (text_eq(fs, fe, "Symbol Name") || text_eq(fs, fe, "Symbol Names")) {
			if (c->symbol == COL_NONE) {
				c->symbol = k;
				c->indented = text_eq(fs, fe, "Symbol Names");
			}
		} else if (text_eq(fs, fe, "Source Path")) {
			c->source = k;
		}
	}
	/* speedscope's test: "Symbol Name" after a tab, only words, blanks and parentheses before
	 */
	if (c->symbol <= 0)
		return 0;
	for (const char *q = p; q < e; q++) {
		if (q + 11 <= e && memcmp(q, "Symbol Name", 11) == 0)
			return q > p && q[-1] == '\t';
		if (!text_is_alpha(*q) && !text_is_digit(*q) && *q != '_' && *q != ' ' &&
		    *q != '\t' && *q != '(' && *q != ')')
			return 0;
	}
	return 0;
}

static int probe(const struct pv_input *in)
{
	const char *e = in->data + (in->len < 4096 ? in->len : 4096);
	struct cols c;
	return header(in->data, line_end(in->data, e), &c) ? 80 : 0;
}

/* A blank of a weight: space, tab, and the figure and no-break spaces Instruments writes. */
static size_t blank_len(const char *p, const char *e)
{
	if (p < e && (*p == ' ' || *p == '\t'))
		return 1;
	if (e - p >= 3 && (unsigned char)p[0] == 0xe2 && (unsigned char)p[1] == 0x80 &&
	    ((unsigned char)p[2] == 0x87 || (unsigned char)p[2] == 0xaf))
		return 3;
	if (e - p >= 2 && (unsigned char)p[0] == 0xc2 && (unsigned char)p[1] == 0xa0)
		return 2;
	return 0;
}

struct unit_row {
	const char *name;
	enum pv_unit unit;
	int64_t factor; /* to ns, cycles or bytes */
};

static const struct unit_row units[] = {
    {"ns", PV_UNIT_NS, 1},
    {"us", PV_UNIT_NS, 1000},
    {"\xc2\xb5s", PV_UNIT_NS, 1000},
    {"ms", PV_UNIT_NS, 1000000},
    {"s", PV_UNIT_NS, 1000000000},
    {"min", PV_UNIT_NS, 60000000000},
    {"cycles", PV_UNIT_CYCLES, 1},
    {"Kc", PV_UNIT_CYCLES, 1000},
    {"Mc", PV_UNIT_CYCLES, 1000000},
    {"Gc", PV_UNIT_CYCLES, 1000000000},
    {"Bytes", PV_UNIT_BYTES, 1},
    {"KB", PV_UNIT_BYTES, 1024},
    {"MB", PV_UNIT_BYTES, 1048576},
    {"GB", PV_UNIT_BYTES, 1073741824},
    {"TB", PV_UNIT_BYTES, 1099511627776},
};

enum { W_OK = 0, W_FORM, W_UNIT, W_RANGE };

/*
 * Reads "NUMBER[ ]UNIT[ PERCENT%]" (or a bare integer when bare, a count) from p..e into *v, in
 * ns, cycles or bytes, rounded to the nearest; *unit is the unit's kind. Returns W_OK, W_FORM (not
 * that form), W_UNIT (an unknown unit, *at at it) or W_RANGE (past int64).
 */
static int weight(const char *p, const char *e, bool bare, int64_t *v, enum pv_unit *unit,
		  const char **at)
{
	size_t bl;
	while ((bl = blank_len(p, e)))
		p += bl;
	*at = p;
	if (p == e || !text_is_digit(*p))
		return W_FORM;
	uint64_t ip = 0;
	for (; p < e && text_is_digit(*p); p++) {
		if (ip > (UINT64_MAX - 9) / 10)
			return W_RANGE;
		ip = ip * 10 + (uint64_t)(*p - '0');
	}
	uint64_t frac = 0, scale = 1;
	if (p < e && *p == '.') {
		for (p++; p < e && text_is_digit(*p); p++)
			if (scale < 1000000) { /* six digits: frac * factor < 2^63 */
				frac = frac * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			}
	}
	const char *us = p;
	if (p < e && *p == ' ')
		us = ++p;
	while (p < e && !blank_len(p, e))
		p++;
	if (us == p) {
		if (!bare || scale != 1)
			return W_FORM;
		if (ip > INT64_MAX)
			return W_RANGE;
		*v = (int64_t)ip;
		*unit = PV_UNIT_COUNT;
		return W_OK;
	}
	const struct unit_row *u = NULL;
	size_t ul = (size_t)(p - us);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]) && !u; i++)
		if (units[i].name[0] == *us && strlen(units[i].name) == ul &&
		    memcmp(us, units[i].name, ul) == 0)
			u = &units[i];
	if (!u) {
		*at = us;
		return W_UNIT;
	}
	uint64_t whole;
	if (__builtin_mul_overflow(ip, (uint64_t)u->factor, &whole))
		return W_RANGE;
	/* frac / scale of the unit, rounded (frac < 10^6, factor < 2^41: no overflow) */
	uint64_t part = (frac * (uint64_t)u->factor + scale / 2) / scale;
	if (__builtin_add_overflow(whole, part, &whole) || whole > INT64_MAX)
		return W_RANGE;
	*v = (int64_t)whole;
	*unit = u->unit;
	return W_OK;
}

enum { NR_M = 2 };

struct node {
	pv_stack_ix stack;
	int64_t total[NR_M];	/* its weight column */
	int64_t children[NR_M]; /* the sum of its children's totals */
};

/* A symbol name seen before and its frame: a name repeats on many rows (one per call path). */
struct named {
	const char *s; /* in the input */
	uint32_t n;
	pv_frame_ix frame;
};

struct name_key {
	const struct named *rows;
	const char *s;
	uint32_t n;
};

static bool name_eq(const void *ctx, uint32_t row)
{
	const struct name_key *k = ctx;
	return k->rows[row].n == k->n && memcmp(k->rows[row].s, k->s, k->n) == 0;
}

struct reader {
	struct pv_builder *b;
	struct ixmap by_name; /* rows of names */
	struct vec names;     /* struct named */
	pv_thread_ix thread;
	int nm;
	struct node *st;
	uint32_t depth, cap;
	uint64_t samples;
};

/* Leaves the top node: its sample, and its total added to its parent's children. */
static void leave(struct reader *r)
{
	struct node *n = &r->st[--r->depth];
	int64_t w[NR_M];
	bool any = false;
	for (int m = 0; m < r->nm; m++) {
		int64_t total = n->total[m] > n->children[m] ? n->total[m] : n->children[m];
		w[m] = total - n->children[m];
		any |= w[m] != 0;
		if (r->depth)
			r->st[r->depth - 1].children[m] += total;
	}
	if (any) {
		builder_sample(r->b, r->thread, n->stack, PV_TIME_NONE, w);
		r->samples++;
	}
}

/* The frame of the function name..name + n without a source file, interned once per name. */
static pv_frame_ix name_frame(struct reader *r, const char *name, size_t n)
{
	uint64_t h = hash_bytes(name, n);
	struct name_key k = {r->names.p, name, (uint32_t)n};
	uint32_t slot, got = ixmap_find(&r->by_name, h, name_eq, &k, &slot);
	if (got != UINT32_MAX)
		return VEC(r->names, struct named)[got].frame;
	pv_func_ix f = builder_func(r->b, builder_str(r->b, name, n), PV_NONE, PV_NONE, 0);
	pv_frame_ix fr = builder_func_frame(r->b, f);
	struct named *nd = vec_push(&r->names, sizeof(*nd));
	if (!nd || ixmap_insert(&r->by_name, slot, h, r->names.len - 1)) {
		r->b->status = PV_ENOMEM;
		return fr;
	}
	*nd = (struct named){name, (uint32_t)n, fr};
	return fr;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	const char *p = in->data, *e = in->data + in->len;
	const char *he = line_end(p, e);
	struct cols c;
	if (!header(p, he, &c))
		return input_fail(in, err, PV_EPARSE, p,
				  "expected a header line of tab-separated column names with "
				  "'Symbol Name' (an Instruments deep copy)");
	if (c.weight == COL_NONE)
		return input_fail(
		    in, err, PV_EPARSE, p,
		    "expected a 'Weight', 'Running Time' or 'Bytes Used' column in the "
		    "header line");
	struct reader r = {.b = b, .nm = c.count != COL_NONE && c.unit == PV_UNIT_BYTES ? 2 : 1};
	pv_metric_ix metric = PV_NONE;
	uint64_t no_weight = 0, no_weight_line = 0, no_name = 0;
	uint32_t indent = UINT32_MAX; /* "Symbol Names": the first row's indent */
	uint64_t lineno = 2;
	int rc = 0;
	const char *q = text_line_end(p, e);
	p = q < e ? q + 1 : e;
	for (; p < e && !b->status; lineno++) {
		const char *next = text_line_end(p, e);
		const char *le = next > p && next[-1] == '\r' ? next - 1 : next;
		next = next < e ? next + 1 : e;
		const char *ns, *ne;
		/* the row's fields, split once: fb[k] .. fb[k + 1] - 1 (its tab) */
		const char *fb[MAX_COLS + 1];
		int nfld = 0;
		for (const char *fp = p; nfld < MAX_COLS;) {
			fb[nfld++] = fp;
			const char *t = memchr(fp, '\t', (size_t)(le - fp));
			if (!t)
				break;
			fp = t + 1;
		}
		fb[nfld] = le + 1;
		if (le == p) {
			p = next;
			continue;
		}
		if (!row_field(fb, nfld, c.symbol, &ns, &ne)) {
			no_name++;
			p = next;
			continue;
		}
		uint32_t lead = 0;
		while (ns + lead < ne && ns[lead] == ' ')
			lead++;
		const char *name = ns + lead;
		if (c.indented) {
			if (indent == UINT32_MAX)
				indent = lead;
			lead = lead > indent ? lead - indent : 0;
		}
		while (ne > name && (ne[-1] == ' ' || ne[-1] == '\t'))
			ne--;
		if (ne == name) {
			no_name++;
			p = next;
			continue;
		}
		if (lead > r.depth) {
			rc = input_fail(in, err, PV_EPARSE, ns,
					"a row of depth %u under one of depth %u (expected at most "
					"%u spaces before the name)",
					lead, r.depth ? r.depth - 1 : 0, r.depth);
			break;
		}
		int64_t w[NR_M] = {0, 0};
		for (int m = 0; m < r.nm; m++) {
			const char *fs, *fe, *at;
			enum pv_unit u;
			int col = m == 0 ? c.weight : c.count;
			int wr = row_field(fb, nfld, col, &fs, &fe)
				     ? weight(fs, fe, m == 1, &w[m], &u, &at)
				     : W_FORM;
			if (wr == W_UNIT) {
				const char *ue = at;
				while (ue < fe && !blank_len(ue, fe))
					ue++;
				rc = input_fail(
				    in, err, PV_EPARSE, at,
				    "unknown unit '%.*s' (expected ms, s, min, cycles, Kc, "
				    "Mc, Gc, Bytes, KB, MB or GB)",
				    (int)(ue - at > 20 ? 20 : ue - at), at);
				break;
			}
			if (wr == W_RANGE) {
				rc = input_fail(in, err, PV_EPARSE, at,
						"weight past 9223372036854775807 (2^63 - 1) of its "
						"smallest unit");
				break;
			}
			if (wr == W_FORM) {
				if (!no_weight++)
					no_weight_line = lineno;
				w[m] = 0;
				continue;
			}
			if (m == 0) {
				if (metric == PV_NONE) {
					c.unit = u;
					static const char *const mname[] = {
					    [PV_UNIT_NS] = "time",
					    [PV_UNIT_CYCLES] = "cycles",
					    [PV_UNIT_BYTES] = "bytes"};
					metric = builder_metric(b, builder_cstr(b, mname[u]), u);
					if (r.nm == 2)
						builder_metric(b, builder_cstr(b, "allocations"),
							       PV_UNIT_COUNT);
					r.thread = builder_thread(b, builder_cstr(b, "all samples"),
								  PV_ID_NONE, PV_ID_NONE, 0);
					b->p->meta.default_metric = metric;
				} else if (u != c.unit) {
					rc =
					    input_fail(in, err, PV_EPARSE, at,
						       "a weight in %s where the rows above are in "
						       "%s",
						       pv_unit_name(u), pv_unit_name(c.unit));
					break;
				}
			}
		}
		if (rc)
			break;
		if (metric == PV_NONE) {
			/* rows before the first weight: their weights read as 0 of no unit yet */
			metric = builder_metric(b, builder_cstr(b, "time"), PV_UNIT_NS);
			if (r.nm == 2)
				builder_metric(b, builder_cstr(b, "allocations"), PV_UNIT_COUNT);
			r.thread = builder_thread(b, builder_cstr(b, "all samples"), PV_ID_NONE,
						  PV_ID_NONE, 0);
			b->p->meta.default_metric = metric;
			c.unit = PV_UNIT_NS;
		}
		while (r.depth > lead)
			leave(&r);
		pv_source_ix src = PV_NONE;
		const char *ss, *se;
		if (c.source != COL_NONE && row_field(fb, nfld, c.source, &ss, &se)) {
			while (se > ss && (se[-1] == ' ' || se[-1] == '\t'))
				se--;
			while (ss < se && *ss == ' ')
				ss++;
			if (se > ss)
				src = builder_source(b, builder_str(b, ss, (size_t)(se - ss)));
		}
		pv_frame_ix fr =
		    src == PV_NONE
			? name_frame(&r, name, (size_t)(ne - name))
			: builder_func_frame(
			      b, builder_func(b, builder_str(b, name, (size_t)(ne - name)), PV_NONE,
					      src, 0));
		pv_stack_ix parent = r.depth ? r.st[r.depth - 1].stack : PV_NONE;
		if (r.depth == r.cap) {
			uint32_t cap = r.cap ? r.cap * 2 : 64;
			if (col_realloc((void **)&r.st, sizeof(*r.st), cap)) {
				rc = PV_ENOMEM;
				break;
			}
			r.cap = cap;
		}
		r.st[r.depth++] = (struct node){
		    .stack = builder_stack(b, parent, fr),
		    .total = {w[0], w[1]},
		};
		p = next;
	}
	while (!rc && r.depth)
		leave(&r);
	pv_free(r.st);
	ixmap_release(&r.by_name);
	vec_free(&r.names);
	if (rc)
		return rc == PV_ENOMEM ? pv_error_set(err, PV_ENOMEM, "out of memory") : rc;
	if (b->status)
		return b->status;
	if (metric == PV_NONE)
		return input_fail_at(in, err, PV_EPARSE, 2, 1,
				     "expected a row of the call tree after the header line");
	builder_lossy(b, no_weight,
		      "rows whose weight is not 'NUMBER UNIT' (read as 0; first at line %llu)",
		      (unsigned long long)no_weight_line);
	builder_lossy(b, no_name, "rows without a symbol name (skipped, as speedscope does)");
	return 0;
}

const struct importer importer_instruments = {
    .name = "instruments",
    .description = "Apple Instruments deep copy of a call tree (tab-separated text)",
    .probe = probe,
    .import = import,
};

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
	struct pv_input *in;
	struct pv_error *err;
	struct pv_builder *b;
	struct cols c;
	struct ixmap by_name; /* rows of names */
	struct vec names;     /* struct named */
	pv_metric_ix metric;  /* the weight's, PV_NONE before the first row */
	pv_thread_ix thread;
	int nm;
	struct node *st;
	uint32_t depth, cap;
	uint32_t indent; /* "Symbol Names": the first row's indent, UINT32_MAX before it */
	uint64_t samples, lineno;
	uint64_t no_weight, no_weight_line, no_name;
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

/* A row of the copy split at its tabs once: field k is fb[k] .. fb[k + 1] - 1 (its tab). */
struct row {
	const char *fb[MAX_COLS + 1];
	int n;
};

static void split_row(const char *p, const char *le, struct row *row)
{
	row->n = 0;
	for (const char *fp = p; row->n < MAX_COLS;) {
		row->fb[row->n++] = fp;
		const char *t = memchr(fp, '\t', (size_t)(le - fp));
		if (!t)
			break;
		fp = t + 1;
	}
	row->fb[row->n] = le + 1;
}

/*
 * The metrics (the weight's in unit u, and allocations when the copy has counts) and the
 * thread, made at the first row: its weight's unit is the copy's.
 */
static void first_metric(struct reader *r, enum pv_unit u)
{
	static const char *const mname[] = {
	    [PV_UNIT_NS] = "time", [PV_UNIT_CYCLES] = "cycles", [PV_UNIT_BYTES] = "bytes"};
	struct pv_builder *b = r->b;
	r->c.unit = u;
	r->metric = builder_metric(b, builder_cstr(b, mname[u]), u);
	if (r->nm == 2)
		builder_metric(b, builder_cstr(b, "allocations"), PV_UNIT_COUNT);
	r->thread = builder_thread(b, builder_cstr(b, "all samples"), PV_ID_NONE, PV_ID_NONE, 0);
	b->p->meta.default_metric = r->metric;
}

/* The row's weight of metric m (0: the weight column, 1: the count) into *w, 0 when it has
 * none; every weight in the unit of the first. */
static int row_weight(struct reader *r, const struct row *row, int m, int64_t *w)
{
	const char *fs, *fe, *at;
	enum pv_unit u;
	int col = m == 0 ? r->c.weight : r->c.count;
	int wr =
	    row_field(row->fb, row->n, col, &fs, &fe) ? weight(fs, fe, m == 1, w, &u, &at) : W_FORM;
	if (wr == W_UNIT) {
		const char *ue = at;
		while (ue < fe && !blank_len(ue, fe))
			ue++;
		return input_fail(r->in, r->err, PV_EPARSE, at,
				  "unknown unit '%.*s' (expected ms, s, min, cycles, Kc, Mc, Gc, "
				  "Bytes, KB, MB or GB)",
				  (int)(ue - at > 20 ? 20 : ue - at), at);
	}
	if (wr == W_RANGE)
		return input_fail(
		    r->in, r->err, PV_EPARSE, at,
		    "weight past 9223372036854775807 (2^63 - 1) of its smallest unit");
	if (wr == W_FORM) {
		if (!r->no_weight++)
			r->no_weight_line = r->lineno;
		*w = 0;
		return 0;
	}
	if (m == 0 && r->metric == PV_NONE)
		first_metric(r, u);
	else if (m == 0 && u != r->c.unit)
		return input_fail(r->in, r->err, PV_EPARSE, at,
				  "a weight in %s where the rows above are in %s", pv_unit_name(u),
				  pv_unit_name(r->c.unit));
	return 0;
}

/*
 * The row's symbol name [*name, *ne) and its depth *lead (the spaces before it, less the first
 * row's with "Symbol Names"); *ns is the field. 0 when the row has no name.
 */
static int row_symbol(struct reader *r, const struct row *row, const char **ns, const char **name,
		      const char **ne, uint32_t *lead)
{
	if (!row_field(row->fb, row->n, r->c.symbol, ns, ne))
		return 0;
	uint32_t l = 0;
	while (*ns + l < *ne && (*ns)[l] == ' ')
		l++;
	*name = *ns + l;
	if (r->c.indented) {
		if (r->indent == UINT32_MAX)
			r->indent = l;
		l = l > r->indent ? l - r->indent : 0;
	}
	while (*ne > *name && ((*ne)[-1] == ' ' || (*ne)[-1] == '\t'))
		(*ne)--;
	*lead = l;
	return *ne > *name;
}

/* The row's frame: its function, with its source file when the copy has a "Source Path". */
static pv_frame_ix row_frame(struct reader *r, const struct row *row, const char *name, size_t n)
{
	struct pv_builder *b = r->b;
	pv_source_ix src = PV_NONE;
	const char *ss, *se;
	if (r->c.source != COL_NONE && row_field(row->fb, row->n, r->c.source, &ss, &se)) {
		while (se > ss && (se[-1] == ' ' || se[-1] == '\t'))
			se--;
		while (ss < se && *ss == ' ')
			ss++;
		if (se > ss)
			src = builder_source(b, builder_str(b, ss, (size_t)(se - ss)));
	}
	if (src == PV_NONE)
		return name_frame(r, name, n);
	return builder_func_frame(b, builder_func(b, builder_str(b, name, n), PV_NONE, src, 0));
}

/* Enters a node of frame fr and weights w under the top node. */
static int enter(struct reader *r, pv_frame_ix fr, const int64_t *w)
{
	pv_stack_ix parent = r->depth ? r->st[r->depth - 1].stack : PV_NONE;
	if (r->depth == r->cap) {
		uint32_t cap = r->cap ? r->cap * 2 : 64;
		if (col_realloc((void **)&r->st, sizeof(*r->st), cap))
			return PV_ENOMEM;
		r->cap = cap;
	}
	r->st[r->depth++] = (struct node){
	    .stack = builder_stack(r->b, parent, fr),
	    .total = {w[0], w[1]},
	};
	return 0;
}

/* One row p..le of the call tree: a node at its depth, after leaving the deeper ones. */
static int read_row(struct reader *r, const char *p, const char *le)
{
	struct row row;
	split_row(p, le, &row);
	if (le == p)
		return 0;
	const char *ns, *ne, *name;
	uint32_t lead;
	if (!row_symbol(r, &row, &ns, &name, &ne, &lead)) {
		r->no_name++;
		return 0;
	}
	if (lead > r->depth)
		return input_fail(r->in, r->err, PV_EPARSE, ns,
				  "a row of depth %u under one of depth %u (expected at most %u "
				  "spaces before the name)",
				  lead, r->depth ? r->depth - 1 : 0, r->depth);
	int64_t w[NR_M] = {0, 0};
	int rc;
	for (int m = 0; m < r->nm; m++)
		if ((rc = row_weight(r, &row, m, &w[m])))
			return rc;
	if (r->metric == PV_NONE) /* rows before the first weight: 0 of no unit yet */
		first_metric(r, PV_UNIT_NS);
	while (r->depth > lead)
		leave(r);
	return enter(r, row_frame(r, &row, name, (size_t)(ne - name)), w);
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
	struct reader r = {.in = in,
			   .err = err,
			   .b = b,
			   .c = c,
			   .metric = PV_NONE,
			   .nm = c.count != COL_NONE && c.unit == PV_UNIT_BYTES ? 2 : 1,
			   .indent = UINT32_MAX,
			   .lineno = 2};
	int rc = 0;
	const char *q = text_line_end(p, e);
	p = q < e ? q + 1 : e;
	for (; p < e && !b->status && !rc; r.lineno++) {
		const char *next = text_line_end(p, e);
		const char *le = next > p && next[-1] == '\r' ? next - 1 : next;
		rc = read_row(&r, p, le);
		p = next < e ? next + 1 : e;
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
	if (r.metric == PV_NONE)
		return input_fail_at(in, err, PV_EPARSE, 2, 1,
				     "expected a row of the call tree after the header line");
	builder_lossy(b, r.no_weight,
		      "rows whose weight is not 'NUMBER UNIT' (read as 0; first at line %llu)",
		      (unsigned long long)r.no_weight_line);
	builder_lossy(b, r.no_name, "rows without a symbol name (skipped, as speedscope does)");
	return 0;
}

const struct importer importer_instruments = {
    .name = "instruments",
    .description = "Apple Instruments deep copy of a call tree (tab-separated text)",
    .probe = probe,
    .import = import,
};

/*
 * callgrind.c - callgrind and cachegrind output (valgrind's tools, KCachegrind's format, and
 * the converters that write it: xdebug, gprof2dot's inputs, pyprof2calltree, ...).
 *
 * The grammar (KCachegrind's "Callgrind Format Specification", as callgrind 3.x writes it):
 * - header lines anywhere (version:, creator:, pid:, thread:, part:, cmd:, desc:, positions:,
 *   events:, event:, summary:, totals:); "#" comments and blank lines;
 * - position specs ob= fl= fi= fe= fn= and call specs cob= cfi= cfl= cfn=, with name compression
 *   "(id) name" defines and "(id)" refers, in three namespaces: objects (ob cob), files
 *   (fl fi fe cfi cfl jfi), functions (fn cfn jfn);
 * - cost lines: one field per "positions:" entry (absolute, 0x hex, +N / -N relative to the
 *   previous cost line, * the same), then one cost per event (missing trailing costs are 0);
 * - calls=COUNT TARGET: the next cost line is the call site and the inclusive cost of the calls;
 *   jump= / jcnd=: the next line is the jump's source position (no cost);
 * - "part:" (or "thread:", "pid:") after data starts a new part; each part is one thread.
 *
 * Functions are what callgrind_annotate calls them: FILE:NAME, where the file is the current
 * fl=, or the fi=/fe= file for inlined code (so a function's inlined lines form a function of
 * their own, as in callgrind_annotate), and a callee's file is cfi= or else the current file.
 * The exact per-function costs are kept in profile->func_costs, computed by callgrind_annotate's
 * rules: self = the function's cost lines; inclusive = the sum of the calls to it when it is
 * ever called, else self plus its calls.
 *
 * callgrind stores a call graph, not stacks: it is kept in the model (pv_callgraph), and the
 * views that can be computed from it are (view/callgraph.c). The samples, for what needs stacks,
 * are calling contexts estimated from it (callgrind_synth.c): from the real roots down, each
 * function's cost split over its callers' contexts in proportion to the calls' costs, each
 * function's self and inclusive cost kept exact outside recursion cycles. A part with no calls
 * (cachegrind) becomes one sample per function and line.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/text.h"
#include "import/importer.h"

#include "import/callgrind/callgrind.h"
#include "model/callgraph.h"

/* ---- errors ---- */

__attribute__((format(printf, 3, 4))) static int cg_fail(struct cg *c, const char *at,
							 const char *fmt, ...)
{
	uint64_t col = 1;
	if (at && c->line && at >= c->line)
		col = (uint64_t)(at - c->line) + 1;
	va_list ap;
	va_start(ap, fmt);
	c->failed = input_vfail_at(c->in, c->err, PV_EPARSE, c->lineno, col, fmt, ap);
	va_end(ap);
	return c->failed;
}

/* ---- probe ---- */

static int probe(const struct pv_input *in)
{
	if (in->len >= 18 && memcmp(in->data, "# callgrind format", 18) == 0)
		return 70;
	/* an events: line and a fn= line among the first lines */
	const char *p = in->data, *e = in->data + (in->len < 65536 ? in->len : 65536);
	int events = 0, fn = 0, other = 0, n = 0;
	while (p < e && n < 400) {
		const char *le = memchr(p, '\n', (size_t)(e - p));
		if (!le)
			le = e;
		size_t len = (size_t)(le - p);
		if (len >= 7 && memcmp(p, "events:", 7) == 0)
			events = 1;
		else if (len >= 3 && (memcmp(p, "fn=", 3) == 0 || memcmp(p, "fl=", 3) == 0))
			fn = 1;
		else if ((len >= 8 && memcmp(p, "version:", 8) == 0) ||
			 (len >= 18 && memcmp(p, "creator: callgrind", 18) == 0) ||
			 (len >= 10 && memcmp(p, "positions:", 10) == 0))
			fn = 1;
		else if (len && p[0] == '{')
			other++;
		p = le + 1;
		n++;
	}
	if (events && fn && !other)
		return 55;
	/* valgrind's own header, the rest cut off: callgrind's error says what is missing */
	if (probe_has(in, 256, "\ncreator: callgrind") && !other)
		return 55;
	return 0;
}

/* ---- growable tables ---- */

/*
 * The importer's tables grow by doubling with pv_col_resize (the large ones mappings that move,
 * not copies) and are freed with pv_col_free: column *col of rows of elt bytes from old_cap to
 * new_cap rows, the new ones zero with zero (else each row is set when made). -1 when out of
 * memory.
 */
static int col_resize(struct cg *c, void *col, size_t elt, uint32_t old_cap, uint32_t new_cap,
		      bool zero)
{
	void **pp = col;
	void *n = pv_col_resize(*pp, (size_t)old_cap * elt, (size_t)new_cap * elt, zero);
	if (!n) {
		c->b->status = PV_ENOMEM;
		return -1;
	}
	*pp = n;
	return 0;
}

/* Grows column *col (and *cap, which its table's other columns then follow) to need rows. */
static int grow(struct cg *c, void *col, size_t elt, uint32_t *cap, uint64_t need, bool zero)
{
	if (need <= *cap)
		return 0;
	uint32_t nc = grow_cap(*cap, need);
	if (!nc) {
		c->b->status = PV_ELIMIT;
		return -1;
	}
	if (col_resize(c, col, elt, *cap, nc, zero))
		return -1;
	*cap = nc;
	return 0;
}

/* Grows a [rows * nev] cost array from old_cap rows to new_cap rows, zero-filled. */
static int grow_costs(struct cg *c, int64_t **a, uint32_t old_cap, uint32_t new_cap)
{
	return c->nev ? col_resize(c, a, c->nev * sizeof(int64_t), old_cap, new_cap, true) : 0;
}

/* A column of cap rows of elt bytes freed (its table's capacity then 0). */
static void col_free(void *col, size_t elt, uint32_t cap)
{
	pv_col_free(col, (size_t)cap * elt);
}

/* ---- names ---- */

/* The string of name id in namespace ns + 1, 0 when undefined. */
static inline uint32_t name_get(struct cg *c, enum ns ns, uint64_t id)
{
	if (id < c->dense_cap[ns] && c->dense[ns][id].str1) {
		c->name_slot = (uint32_t)id;
		return c->dense[ns][id].str1;
	}
	uint32_t v = u64map_get(&c->names[ns], id);
	return v == UINT32_MAX ? 0 : v + 1;
}

/* Defines (or redefines) name id in namespace ns as string s; -1 when out of memory. */
static int name_set(struct cg *c, enum ns ns, uint64_t id, pv_str_ix s)
{
	/* small ids (the usual 1, 2, 3, ...) index an array; a huge id does not make it grow */
	if (id >= c->dense_cap[ns] && id < 4 * ((uint64_t)c->dense_defs[ns] + 4096)) {
		uint64_t nc = c->dense_cap[ns] ? c->dense_cap[ns] : 4096;
		while (nc <= id)
			nc *= 2;
		if (col_resize(c, &c->dense[ns], sizeof(struct name_slot), c->dense_cap[ns],
			       (uint32_t)nc, true))
			return -1;
		c->dense_cap[ns] = (uint32_t)nc;
	}
	if (id < c->dense_cap[ns]) {
		c->dense[ns][id] = (struct name_slot){.str1 = s + 1};
		c->dense_defs[ns]++;
		c->name_slot = (uint32_t)id;
		return 0;
	}
	if (u64map_get(&c->names[ns], id) == UINT32_MAX) {
		if (u64map_put(&c->names[ns], id, s))
			goto oom;
	} else {
		/* a redefinition (a new part): overwrite in place */
		uint32_t i = (uint32_t)hash_u64(id) & c->names[ns].mask;
		while (c->names[ns].key[i] != id)
			i = (i + 1) & c->names[ns].mask;
		c->names[ns].val[i] = s + 1;
	}
	return 0;
oom:
	c->b->status = PV_ENOMEM;
	return -1;
}

/* A name of a spec line interned, the string "???" noted (cg_fn_frame). */
static pv_str_ix spec_str(struct cg *c, const char *p, const char *e)
{
	pv_str_ix s = builder_str(c->b, p, (size_t)(e - p));
	if (e - p == 3 && !memcmp(p, "???", 3))
		c->str_unknown = s;
	return s;
}

/*
 * A spec value "(id) name", "(id)" or "name": the string, defining or looking up id in
 * namespace ns (c->name_slot: its slot in dense[ns], or NONE32). Returns 0, or -1 after an error.
 */
static int spec_name(struct cg *c, enum ns ns, const char *p, const char *e, pv_str_ix *out)
{
	c->name_slot = NONE32;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	const char *q = p + 1;
	uint64_t id = 0;
	int digits = 0;
	if (p < e && *p == '(')
		while (q < e && *q >= '0' && *q <= '9') {
			if (id > (UINT64_MAX - 9) / 10)
				return cg_fail(c, p + 1, "name id too large");
			id = id * 10 + (uint64_t)(*q++ - '0');
			digits++;
		}
	/* "(id)" or "(id) name"; anything else, "(below main)" say, is a plain name */
	if (digits && q < e && *q == ')' && (q + 1 == e || q[1] == ' ' || q[1] == '\t')) {
		const char *name = text_skip_blanks(q + 1, e);
		if (name < e) {
			pv_str_ix s = spec_str(c, name, e);
			if (name_set(c, ns, id, s))
				return -1;
			*out = s;
			return 0;
		}
		uint32_t s = name_get(c, ns, id);
		if (s == 0) {
			/* as callgrind_annotate: an undefined name is "" (old callgrinds wrote
			 * these) */
			c->undefined_names++;
			*out = 0;
			return 0;
		}
		*out = s - 1;
		return 0;
	}
	*out = spec_str(c, p, e);
	return 0;
}

static uint32_t fn_new(struct cg *c, pv_str_ix file, pv_str_ix name)
{
	uint32_t f;
	uint32_t old = c->cap_fns;
	if (grow(c, &c->fns, sizeof(*c->fns), &c->cap_fns, (uint64_t)c->nfns + 1, false))
		return NONE32;
	if (c->cap_fns != old && (grow_costs(c, &c->exact_self, old, c->cap_fns) ||
				  grow_costs(c, &c->callee_in, old, c->cap_fns) ||
				  grow_costs(c, &c->out_calls, old, c->cap_fns) ||
				  grow_costs(c, &c->pself, old, c->cap_fns)))
		return NONE32;
	f = c->nfns++;
	c->fns[f] = (struct cg_fn){.file = file,
				   .name = name,
				   .module = PV_NONE,
				   .func = PV_NONE,
				   .frame = PV_NONE,
				   .out_head = NONE32,
				   .line_head = NONE32};
	return f;
}

/*
 * The function FILE:NAME, made when new. fn_cache[name] holds the last one found of that name;
 * fn_map (file, name) holds the functions of names that have more than one.
 */
static uint32_t fn_of(struct cg *c, pv_str_ix file, pv_str_ix name)
{
	if (name >= c->fn_cache_cap) {
		if (grow(c, &c->fn_cache, sizeof(*c->fn_cache), &c->fn_cache_cap,
			 (uint64_t)name + 1, true))
			return NONE32;
	}
	struct fn_cache *C = &c->fn_cache[name];
	if (C->file1 == file + 1)
		return C->fn;
	uint32_t f = UINT32_MAX;
	uint64_t key = (uint64_t)file << 32 | name;
	if (C->file1 && !C->multi) {
		/* the name's second function: from now on its functions are in the map */
		if (u64map_put(&c->fn_map, (uint64_t)(C->file1 - 1) << 32 | name, C->fn))
			goto oom;
		C->multi = 1;
	} else if (C->multi) {
		f = u64map_get(&c->fn_map, key);
	}
	if (f == UINT32_MAX) {
		f = fn_new(c, file, name);
		if (f == NONE32)
			return NONE32;
		if (C->multi && u64map_put(&c->fn_map, key, f))
			goto oom;
	}
	C->file1 = file + 1;
	C->fn = f;
	return f;
oom:
	c->b->status = PV_ENOMEM;
	return NONE32;
}

/* fn_of for a name spec_name read from slot (NONE32: none) of dense[NS_FN]. */
static uint32_t fn_of_slot(struct cg *c, pv_str_ix file, pv_str_ix name, uint32_t slot)
{
	if (slot == NONE32)
		return fn_of(c, file, name);
	struct name_slot *S = &c->dense[NS_FN][slot];
	if (S->file1 == file + 1 && S->str1 == name + 1)
		return S->fn;
	uint32_t f = fn_of(c, file, name);
	if (f != NONE32 && S->str1 == name + 1) {
		S->file1 = file + 1;
		S->fn = f;
	}
	return f;
}

/* Function f, met for the first time in the part, into its list of functions. */
__attribute__((noinline)) static void touch_first(struct cg *c, uint32_t f)
{
	c->fns[f].touched = c->part_no + 1;
	if (grow(c, &c->touched_list, sizeof(uint32_t), &c->cap_touched,
		 (uint64_t)c->nr_touched + 1, false))
		return;
	c->touched_list[c->nr_touched++] = f;
}

static inline void touch(struct cg *c, uint32_t f)
{
	if (c->fns[f].touched != c->part_no + 1)
		touch_first(c, f);
}

static uint32_t edge_of(struct cg *c, uint32_t from, uint32_t to, int is_inline)
{
	uint64_t key = (uint64_t)from << 32 | to | (is_inline ? 1ULL << 63 : 0);
	struct cg_fn *F = &c->fns[from];
	uint32_t x;
	if (F->out_deg <= EDGE_LIST) {
		for (x = F->out_head; x != NONE32; x = c->edge_next[x])
			if (c->edges[x].to == to && c->edges[x].is_inline == (uint8_t)is_inline)
				return x;
	} else {
		x = u64map_get(&c->edge_map, key);
		if (x != UINT32_MAX)
			return x;
	}
	uint32_t old = c->cap_edges;
	if (grow(c, &c->edges, sizeof(*c->edges), &c->cap_edges, (uint64_t)c->nedges + 1, false))
		return NONE32;
	if (c->cap_edges != old &&
	    (col_resize(c, &c->edge_next, sizeof(uint32_t), old, c->cap_edges, false) ||
	     col_resize(c, &c->ecalls, sizeof(uint64_t), old, c->cap_edges, false) ||
	     grow_costs(c, &c->ecost, old, c->cap_edges)))
		return NONE32;
	x = c->nedges++;
	c->edges[x] = (struct cg_edge){.from = from, .to = to, .is_inline = (uint8_t)is_inline};
	memset(c->ecost + (size_t)x * c->nev, 0, c->nev * sizeof(int64_t));
	c->ecalls[x] = 0;
	touch(c, from);
	touch(c, to);
	F = &c->fns[from];
	c->edge_next[x] = NONE32;
	if (F->out_head == NONE32)
		F->out_head = x;
	else
		c->edge_next[F->out_tail] = x;
	F->out_tail = x;
	F->out_deg++;
	/* past EDGE_LIST edges, the caller's edges go to the map: all of them the first time */
	if (F->out_deg == EDGE_LIST + 1) {
		for (uint32_t y = F->out_head; y != NONE32; y = c->edge_next[y]) {
			const struct cg_edge *E = &c->edges[y];
			if (u64map_put(&c->edge_map,
				       (uint64_t)E->from << 32 | E->to |
					   (E->is_inline ? 1ULL << 63 : 0),
				       y))
				goto oom;
		}
	} else if (F->out_deg > EDGE_LIST + 1 && u64map_put(&c->edge_map, key, x)) {
		goto oom;
	}
	return x;
oom:
	c->b->status = PV_ENOMEM;
	return NONE32;
}

/* ---- numbers ---- */

/* An unsigned decimal or 0x hex number at *p; -1 (with the error set) when too large. */
static int parse_u64(struct cg *c, const char **pp, const char *e, uint64_t *v)
{
	const char *p = *pp;
	uint64_t x = 0;
	if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		const char *s = p;
		while (p < e) {
			int d = text_hex_digit(*p);
			if (d < 0)
				break;
			if (x >> 60)
				return cg_fail(c, s, "number too large");
			x = x << 4 | (uint64_t)d;
			p++;
		}
		if (p == s)
			return cg_fail(c, s, "expected a hexadecimal number");
	} else {
		const char *s = p;
		while (p < e && *p >= '0' && *p <= '9') {
			uint64_t d = (uint64_t)(*p - '0');
			if (x > (UINT64_MAX - d) / 10)
				return cg_fail(c, s, "number too large");
			x = x * 10 + d;
			p++;
		}
		if (p == s)
			return cg_fail(c, s, "expected a number");
	}
	*pp = p;
	*v = x;
	return 0;
}

/* A position field (absolute, +N, -N, *) relative to prev; -1 on error. */
static int parse_pos(struct cg *c, const char **pp, const char *e, int64_t prev, int64_t *out)
{
	const char *p = *pp;
	uint64_t v;
	if (*p == '*') {
		*out = prev;
		*pp = p + 1;
		return 0;
	}
	if (*p == '+' || *p == '-') {
		const char *q = p + 1;
		if (parse_u64(c, &q, e, &v))
			return -1;
		if (v > (uint64_t)INT64_MAX)
			return cg_fail(c, p, "number too large");
		*out = *p == '+' ? prev + (int64_t)v : prev - (int64_t)v;
		*pp = q;
		return 0;
	}
	if (parse_u64(c, &p, e, &v))
		return -1;
	*out = (int64_t)v;
	*pp = p;
	return 0;
}

static int is_field_end(const char *p, const char *e)
{
	return p >= e || *p == ' ' || *p == '\t';
}

/*
 * A cost line: positions, then up to nev costs into cost[] (the rest 0). Costs are decimals;
 * "+N", "-N" and "*" (position syntax some converters write) are read as callgrind_annotate
 * reads them (N, -N, 0) and counted.
 */
static int parse_cost_line(struct cg *c, const char *p, const char *e, int64_t *cost, int64_t *line,
			   uint64_t *addr)
{
	int64_t pos[MAX_POS];
	for (uint32_t i = 0; i < c->npos; i++) {
		p = text_skip_blanks(p, e);
		if (p >= e) {
			pos[i] = c->prev_pos[i];
			continue;
		}
		if (parse_pos(c, &p, e, c->prev_pos[i], &pos[i]))
			return -1;
		if (!is_field_end(p, e))
			return cg_fail(c, p, "expected a position");
	}
	for (uint32_t i = 0; i < c->npos; i++)
		c->prev_pos[i] = pos[i];
	*line = c->pos_line >= 0 ? pos[c->pos_line] : 0;
	*addr = c->pos_instr >= 0 && pos[c->pos_instr] >= 0 ? (uint64_t)pos[c->pos_instr]
							    : PV_ADDR_NONE;
	uint32_t k = 0;
	for (;;) {
		p = text_skip_blanks(p, e);
		if (p >= e)
			break;
		if (k == c->nev)
			return cg_fail(c, p, "more costs than the %u events of the events: line",
				       c->nev);
		int64_t v;
		if (*p >= '0' && *p <= '9') {
			uint64_t u;
			if (parse_u64(c, &p, e, &u))
				return -1;
			if (u > (uint64_t)INT64_MAX)
				return cg_fail(c, p, "cost too large");
			v = (int64_t)u;
		} else if (*p == '*') {
			v = 0;
			p++;
			c->odd_costs++;
		} else if (*p == '+' || *p == '-') {
			const char *q = p + 1;
			uint64_t u;
			if (parse_u64(c, &q, e, &u))
				return -1;
			if (u > (uint64_t)INT64_MAX)
				return cg_fail(c, p, "cost too large");
			v = *p == '-' ? -(int64_t)u : (int64_t)u;
			p = q;
			c->odd_costs++;
		} else {
			return cg_fail(c, p, "expected a cost");
		}
		if (!is_field_end(p, e))
			return cg_fail(c, p, "expected a cost");
		cost[k++] = v;
	}
	for (; k < c->nev; k++)
		cost[k] = 0;
	return 0;
}

/*
 * The common cost line at once, with no search for its end first: fields of at most 18 decimal
 * digits (positions: also "+N", "-N", "*"), one space between them, '\n' after the last. Fills
 * what parse_cost_line would and sets *next past the '\n'; false (nothing changed) for any
 * other shape, which the general path then reads, with its errors.
 */
static bool fast_cost_line(struct cg *c, const char *p, const char *end, int64_t *cost,
			   int64_t *line, uint64_t *addr, const char **next)
{
	int64_t pos[MAX_POS];
	uint32_t k = 0;
	for (uint32_t i = 0; i < c->npos + c->nev; i++) {
		if (p >= end)
			return false;
		char sign = 0;
		if (i < c->npos && (*p == '+' || *p == '-' || *p == '*')) {
			sign = *p++;
			if (sign == '*') {
				pos[i] = c->prev_pos[i];
				goto sep;
			}
		}
		const char *s = p;
		uint64_t x = 0;
		while (p < end && (unsigned)(*p - '0') <= 9 && p - s < 18)
			x = x * 10 + (uint64_t)(*p++ - '0');
		if (p == s || (p < end && (unsigned)(*p - '0') <= 9))
			return false;
		if (i < c->npos)
			pos[i] = sign == '+'   ? c->prev_pos[i] + (int64_t)x
				 : sign == '-' ? c->prev_pos[i] - (int64_t)x
					       : (int64_t)x;
		else
			cost[k++] = (int64_t)x;
	sep:
		if (p < end && *p == ' ' && i + 1 < c->npos + c->nev && p + 1 < end &&
		    p[1] != ' ' && p[1] != '\n' && p[1] != '\t' && p[1] != '\r') {
			p++;
			continue;
		}
		if (p < end && *p == '\n' && i + 1 >= c->npos)
			break;
		return false;
	}
	if (p >= end || *p != '\n')
		return false;
	for (; k < c->nev; k++)
		cost[k] = 0;
	for (uint32_t i = 0; i < c->npos; i++)
		c->prev_pos[i] = pos[i];
	*line = c->pos_line >= 0 ? pos[c->pos_line] : 0;
	*addr = c->pos_instr >= 0 && pos[c->pos_instr] >= 0 ? (uint64_t)pos[c->pos_instr]
							    : PV_ADDR_NONE;
	*next = p + 1;
	return true;
}

static int add_checked(struct cg *c, int64_t *acc, int64_t v)
{
	if (__builtin_add_overflow(*acc, v, acc))
		return cg_fail(c, c->line, "costs add up past 2^63");
	return 0;
}

/* ---- events ---- */

static enum pv_unit event_unit(const char *n, size_t len)
{
	if ((len == 2 && !memcmp(n, "Ir", 2)) || (len >= 5 && !strncmp(n, "Instr", 5)))
		return PV_UNIT_INSTRUCTIONS;
	if ((len >= 5 && !strncmp(n, "Cycle", 5)) || (len == 4 && !memcmp(n, "CEst", 4)))
		return PV_UNIT_CYCLES;
	if (memmem(n, len, "bytes", 5) || memmem(n, len, "Bytes", 5))
		return PV_UNIT_BYTES;
	return PV_UNIT_COUNT;
}

static int read_events(struct cg *c, const char *p, const char *e)
{
	if (c->have_events) {
		/* events: again (a new part) must name the same events */
		uint32_t k = 0;
		for (;;) {
			p = text_skip_blanks(p, e);
			if (p >= e)
				break;
			const char *s = p;
			while (p < e && *p != ' ' && *p != '\t')
				p++;
			if (k >= c->nev || c->ev_name[k] != builder_str(c->b, s, (size_t)(p - s)))
				return cg_fail(c, s, "events: names other events than before");
			k++;
		}
		if (k != c->nev)
			return cg_fail(c, p, "events: names other events than before");
		return 0;
	}
	for (;;) {
		p = text_skip_blanks(p, e);
		if (p >= e)
			break;
		const char *s = p;
		while (p < e && *p != ' ' && *p != '\t')
			p++;
		if (c->nev == MAX_EVENTS) {
			int rc =
			    pv_error_set(c->err, PV_ELIMIT, "%s: line %llu: more than %d events",
					 c->in->name, (unsigned long long)c->lineno, MAX_EVENTS);
			return rc;
		}
		pv_str_ix n = builder_str(c->b, s, (size_t)(p - s));
		for (uint32_t k = 0; k < c->nev; k++)
			if (c->ev_name[k] == n) /* metrics are one per name: event k is metric k */
				return cg_fail(c, s, "events: names '%.*s' twice", (int)(p - s), s);
		c->ev_name[c->nev++] = n;
		builder_metric(c->b, n, event_unit(s, (size_t)(p - s)));
	}
	if (c->nev == 0)
		return cg_fail(c, p, "events: names no event");
	c->have_events = 1;
	return 0;
}

static int read_positions(struct cg *c, const char *p, const char *e)
{
	uint32_t n = 0;
	int line = -1, instr = -1;
	for (;;) {
		p = text_skip_blanks(p, e);
		if (p >= e)
			break;
		const char *s = p;
		while (p < e && *p != ' ' && *p != '\t')
			p++;
		size_t len = (size_t)(p - s);
		if (n == MAX_POS)
			return cg_fail(c, s, "more than %d positions", MAX_POS);
		if (len == 4 && !memcmp(s, "line", 4))
			line = (int)n;
		else if ((len == 5 && !memcmp(s, "instr", 5)) ||
			 (len == 4 && !memcmp(s, "addr", 4)))
			instr = (int)n;
		else if (!(len == 2 && !memcmp(s, "bb", 2)))
			return cg_fail(c, s, "unknown position '%.*s'", (int)len, s);
		n++;
	}
	if (n == 0)
		return cg_fail(c, p, "positions: names no position");
	if (c->part_has_data && n != c->npos)
		return cg_fail(c, p, "positions: changes within a part");
	c->npos = n;
	c->pos_line = line;
	c->pos_instr = instr;
	return 0;
}

static int read_total_line(struct cg *c, const char *p, const char *e, int64_t *out)
{
	uint32_t k = 0;
	for (;;) {
		p = text_skip_blanks(p, e);
		if (p >= e)
			break;
		if (k == MAX_EVENTS)
			return cg_fail(c, p, "too many totals");
		uint64_t u;
		if (parse_u64(c, &p, e, &u))
			return -1;
		if (u > (uint64_t)INT64_MAX)
			return cg_fail(c, p, "total too large");
		if (!is_field_end(p, e))
			return cg_fail(c, p, "expected a number");
		out[k++] = (int64_t)u;
	}
	for (; k < MAX_EVENTS; k++)
		out[k] = 0;
	return 0;
}

/* The bytes of part_inclusive's array (pv_col_resize's: zero, freed with pv_col_free). */
static size_t incl_size(uint32_t nf, uint32_t nm)
{
	return (size_t)(nf ? nf : 1) * (nm ? nm : 1) * sizeof(int64_t);
}

/*
 * The inclusive costs of the model's nf functions ([f * nm + k]) from the one part's graph
 * (cg_synthesize kept them): NULL when two of its functions are one model function (the model's
 * graph merges them: built again) or memory runs out.
 */
static int64_t *part_inclusive(const struct cg *c, uint32_t nf, uint32_t nm)
{
	int64_t *incl = pv_col_resize(NULL, 0, incl_size(nf, nm), true);
	uint8_t *seen = pv_col_resize(NULL, 0, nf ? nf : 1, true);
	bool ok = incl && seen;
	for (uint32_t i = 0; i < c->part_nf && ok; i++) {
		pv_func_ix fi = c->fns[c->part_fn[i]].func;
		ok = fi < nf && !seen[fi];
		if (!ok)
			break;
		seen[fi] = 1;
		memcpy(incl + (size_t)fi * nm, c->part_incl + (size_t)i * c->nev,
		       nm * sizeof(int64_t));
	}
	pv_col_free(seen, nf ? nf : 1);
	if (!ok) {
		pv_col_free(incl, incl_size(nf, nm));
		return NULL;
	}
	return incl;
}

/* The part's per-line rows forgotten (their arrays kept). */
static void rows_clear(struct cg *c)
{
	for (uint32_t i = 0; i < c->nr_touched; i++) {
		c->fns[c->touched_list[i]].line_head = NONE32;
		c->fns[c->touched_list[i]].line_deg = 0;
	}
	u64map_release(&c->line_map);
	u64map_release(&c->addr_map);
	c->nlines = 0;
	c->last_line_row = NONE32;
}

/*
 * Ends a part: its samples, then its tables cleared for the next one. last: the file ends with
 * it (a file of one part whose context the caller does not read keeps no call edge in the
 * model: its exact costs come from its own graph, exact_costs).
 */
static int end_part(struct cg *c, bool last)
{
	if (!c->part_has_data)
		return 0;
	c->edges_unkept = c->no_contexts && last && !c->nr_parts_done;
	if ((c->no_contexts ? cg_no_contexts(c) : cg_synthesize(c)) || cg_keep_graph(c))
		return -1;
	for (uint32_t i = 0; i < c->nr_touched; i++) {
		uint32_t f = c->touched_list[i];
		memset(c->pself + (size_t)f * c->nev, 0, c->nev * sizeof(int64_t));
		c->fns[f].out_head = NONE32;
		c->fns[f].out_deg = 0;
	}
	rows_clear(c);
	c->nr_touched = 0;
	c->nedges = 0;
	u64map_release(&c->edge_map);
	c->lines_off = 0;
	c->addrs_off = 0;
	c->part_has_data = 0;
	c->part_no++;
	c->nr_parts_done++;
	c->thread = PV_NONE;
	for (uint32_t i = 0; i < MAX_POS; i++)
		c->prev_pos[i] = 0;
	return 0;
}

/* ---- the body ---- */

/*
 * A part with calls keeps per-line rows up to LINE_ROWS_MAX: each becomes samples of its own
 * (self_lines), and past that many the model would outgrow the file's call graph several times
 * over (a generated 25 MB file has 1,000,000). The part's functions then keep their self costs
 * whole (the report says so). A part without calls (cachegrind) keeps them all: they are its
 * samples. With instruction addresses (positions: instr), a cost line with a line (or any, when
 * the file has no line position) has a row per (function, address); past LINE_ROWS_MAX those
 * merge into per-line rows first (reported), so an instr file keeps its lines where a line file
 * would.
 */
#define LINE_ROWS_MAX (1u << 18)

/* The per-line rows' columns freed (past LINE_ROWS_MAX, or after the last part). */
static void rows_free(struct cg *c)
{
	rows_clear(c);
	col_free(c->line_fn, sizeof(uint32_t), c->cap_lines);
	col_free(c->line_no, sizeof(uint32_t), c->cap_lines);
	col_free(c->line_next, sizeof(uint32_t), c->cap_lines);
	col_free(c->line_addr, sizeof(uint64_t), c->cap_lines);
	col_free(c->line_cost, c->nev * sizeof(int64_t), c->cap_lines);
	c->line_fn = c->line_no = c->line_next = NULL;
	c->line_addr = NULL;
	c->line_cost = NULL;
	c->cap_lines = 0;
}

static void lines_off(struct cg *c)
{
	c->lines_off = 1;
	c->lines_dropped++;
	rows_free(c);
}

/* A row's key: (f, line) in line_map, or (f, address) in addr_map (f < 2^24, address < 2^40). */
static inline uint64_t row_key(uint32_t f, uint32_t ln, uint64_t a)
{
	return a == PV_ADDR_NONE ? (uint64_t)f << 32 | ln : (uint64_t)f << 40 | a;
}

/*
 * Function f's row of line ln (a == PV_ADDR_NONE) or of address a (whatever its line),
 * UINT32_MAX when it has none: its few rows walked, its many found in a map (as edge_of).
 */
static uint32_t row_find(const struct cg *c, uint32_t f, uint32_t ln, uint64_t a)
{
	const struct cg_fn *F = &c->fns[f];
	if (F->line_deg > EDGE_LIST)
		return u64map_get(a == PV_ADDR_NONE ? &c->line_map : &c->addr_map,
				  row_key(f, ln, a));
	for (uint32_t x = F->line_head; x != NONE32; x = c->line_next[x])
		if (cg_row_addr(c, x) == a && (a != PV_ADDR_NONE || c->line_no[x] == ln))
			return x;
	return UINT32_MAX;
}

/* Row r into its function's list, and past EDGE_LIST rows into the maps (the first ones too). */
static int row_link(struct cg *c, uint32_t r)
{
	struct cg_fn *F = &c->fns[c->line_fn[r]];
	c->line_next[r] = F->line_head;
	F->line_head = r;
	if (++F->line_deg <= EDGE_LIST)
		return 0;
	for (uint32_t x = r; x != NONE32;
	     x = F->line_deg == EDGE_LIST + 1 ? c->line_next[x] : NONE32) {
		uint64_t a = cg_row_addr(c, x);
		if (u64map_put(a == PV_ADDR_NONE ? &c->line_map : &c->addr_map,
			       row_key(c->line_fn[x], c->line_no[x], a), x)) {
			c->b->status = PV_ENOMEM;
			return -1;
		}
	}
	return 0;
}

/* The part's address rows summed into per-line rows (in place: a row moves down, never up). */
static int merge_addrs(struct cg *c)
{
	uint32_t n = c->nlines, nev = c->nev;
	c->addrs_off = 1;
	c->addrs_merged++;
	rows_clear(c);
	for (uint32_t r = 0; r < n; r++) {
		uint32_t f = c->line_fn[r], ln = c->line_no[r];
		uint32_t k = row_find(c, f, ln, PV_ADDR_NONE);
		if (k != UINT32_MAX) {
			for (uint32_t e = 0; e < nev; e++)
				c->line_cost[(size_t)k * nev + e] +=
				    c->line_cost[(size_t)r * nev + e];
			continue;
		}
		k = c->nlines++;
		c->line_fn[k] = f;
		c->line_no[k] = ln;
		c->line_addr[k] = PV_ADDR_NONE;
		if (k != r)
			memcpy(c->line_cost + (size_t)k * nev, c->line_cost + (size_t)r * nev,
			       nev * sizeof(int64_t));
		if (row_link(c, k))
			return -1;
	}
	return 0;
}

/* Past LINE_ROWS_MAX rows: address rows become line rows, and when still too many, no rows. */
static int rows_over_cap(struct cg *c)
{
	if (c->line_addr && !c->addrs_off && merge_addrs(c))
		return -1;
	if (c->nlines >= LINE_ROWS_MAX)
		lines_off(c);
	return 0;
}

/* A new per-line row of function f (line ln, address a); NONE32 when there is none to have. */
static uint32_t line_row(struct cg *c, uint32_t f, uint32_t ln, uint64_t a)
{
	uint32_t nev = c->nev, old = c->cap_lines;
	if (grow(c, &c->line_fn, sizeof(uint32_t), &c->cap_lines, (uint64_t)c->nlines + 1, false))
		return NONE32;
	if (old != c->cap_lines &&
	    (col_resize(c, &c->line_no, sizeof(uint32_t), old, c->cap_lines, false) ||
	     col_resize(c, &c->line_next, sizeof(uint32_t), old, c->cap_lines, false) ||
	     (c->line_addr &&
	      col_resize(c, &c->line_addr, sizeof(uint64_t), old, c->cap_lines, false)) ||
	     grow_costs(c, &c->line_cost, old, c->cap_lines)))
		return NONE32;
	if (a != PV_ADDR_NONE && !c->line_addr) { /* the first address: the column from now */
		if (col_resize(c, &c->line_addr, sizeof(uint64_t), 0, c->cap_lines, false))
			return NONE32;
		for (uint32_t x = 0; x < c->nlines; x++)
			c->line_addr[x] = PV_ADDR_NONE;
	}
	if (c->nedges && c->nlines >= LINE_ROWS_MAX) {
		if (rows_over_cap(c) || c->lines_off)
			return NONE32;
		uint32_t r = row_find(c, f, ln, PV_ADDR_NONE); /* the line's merged row */
		if (r != UINT32_MAX)
			return r;
		a = PV_ADDR_NONE;
	}
	uint32_t r = c->nlines++;
	c->line_fn[r] = f;
	c->line_no[r] = ln;
	if (c->line_addr)
		c->line_addr[r] = a;
	memset(c->line_cost + (size_t)r * nev, 0, nev * sizeof(int64_t));
	return row_link(c, r) ? NONE32 : r;
}

static int self_line(struct cg *c, const int64_t *cost, int64_t line, uint64_t addr);

/* A cost line's self cost: the function's sums, then its per-line row (self_line). */
static inline int self_cost(struct cg *c, const int64_t *cost, int64_t line, uint64_t addr)
{
	uint32_t f = c->cur;
	uint32_t nev = c->nev;
	touch(c, f);
	for (uint32_t e = 0; e < nev; e++) {
		if (!cost[e])
			continue;
		if (add_checked(c, &c->exact_self[(size_t)f * nev + e], cost[e]) ||
		    add_checked(c, &c->pself[(size_t)f * nev + e], cost[e]) ||
		    add_checked(c, &c->total[e], cost[e]))
			return -1;
		if (cost[e] < 0)
			c->negative++;
	}
	if (c->lines_off || c->no_contexts)
		return 0;
	return self_line(c, cost, line, addr);
}

/* The per-line row of a cost line's self cost (of function c->cur). */
__attribute__((noinline)) static int self_line(struct cg *c, const int64_t *cost, int64_t line,
					       uint64_t addr)
{
	uint32_t f = c->cur;
	uint32_t nev = c->nev;
	uint32_t ln = (uint32_t)(line < 0 || line > UINT32_MAX ? 0 : line);
	/* an address keys the row of a line (of any cost line when the file has no lines) */
	if (c->addrs_off || (ln == 0 && c->pos_line >= 0)) {
		addr = PV_ADDR_NONE;
	} else if (addr != PV_ADDR_NONE && (addr >> 40 || f >> 24)) {
		c->addrs_unkept++;
		addr = PV_ADDR_NONE;
	}
	uint64_t key = (uint64_t)f << 32 | ln;
	uint32_t r = c->last_line_row;
	if (r == NONE32 || key != c->last_line_key || addr != c->last_line_addr) {
		r = row_find(c, f, ln, addr);
		if (r != UINT32_MAX && c->line_no[r] != ln) {
			/* the address's row has another line (no compiler writes this): per line */
			c->addrs_unkept++;
			addr = PV_ADDR_NONE;
			r = row_find(c, f, ln, addr);
		}
		if (r == UINT32_MAX && (r = line_row(c, f, ln, addr)) == NONE32)
			return c->lines_off ? 0 : -1;
		c->last_line_key = key;
		c->last_line_addr = addr;
		c->last_line_row = r;
	}
	for (uint32_t e = 0; e < nev; e++)
		c->line_cost[(size_t)r * nev + e] += cost[e];
	return 0;
}

static int call_cost(struct cg *c, const int64_t *cost)
{
	uint32_t nev = c->nev;
	uint32_t x = edge_of(c, c->cur, c->callee, 0);
	if (x == NONE32)
		return -1;
	c->fns[c->callee].callee = 1;
	if (c->nlines > LINE_ROWS_MAX && !c->lines_off && rows_over_cap(c))
		return -1;
	c->ecalls[x] += c->call_count;
	for (uint32_t e = 0; e < nev; e++) {
		if (add_checked(c, &c->ecost[(size_t)x * nev + e], cost[e]) ||
		    add_checked(c, &c->callee_in[(size_t)c->callee * nev + e], cost[e]) ||
		    add_checked(c, &c->out_calls[(size_t)c->cur * nev + e], cost[e]))
			return -1;
	}
	return 0;
}

/* Header line "key: value" handled; 1 when it was one, 0 when not, -1 on error. */
static int header_line(struct cg *c, const char *p, const char *e)
{
	const char *colon = memchr(p, ':', (size_t)(e - p));
	if (!colon)
		return 0;
	for (const char *q = p; q < colon; q++)
		if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_'))
			return 0;
	size_t kl = (size_t)(colon - p);
	const char *v = text_skip_blanks(colon + 1, e);
	struct pv_builder *b = c->b;
	if (kl == 6 && !memcmp(p, "events", 6))
		return read_events(c, v, e) ? -1 : 1;
	if (kl == 9 && !memcmp(p, "positions", 9))
		return read_positions(c, v, e) ? -1 : 1;
	if (kl == 7 && !memcmp(p, "summary", 7)) {
		int64_t t[MAX_EVENTS];
		if (read_total_line(c, v, e, t))
			return -1;
		for (uint32_t i = 0; i < MAX_EVENTS; i++)
			c->summary[i] += t[i]; /* one summary: line per part */
		c->have_summary = 1;
		c->summary_line = c->lineno;
		return 1;
	}
	if (kl == 6 && !memcmp(p, "totals", 6)) {
		int64_t t[MAX_EVENTS];
		if (read_total_line(c, v, e, t))
			return -1;
		for (uint32_t i = 0; i < MAX_EVENTS; i++)
			c->totals[i] += t[i]; /* one totals: line per part */
		c->have_totals = 1;
		c->totals_line = c->lineno;
		return 1;
	}
	if ((kl == 4 && !memcmp(p, "part", 4)) || (kl == 6 && !memcmp(p, "thread", 6)) ||
	    (kl == 3 && !memcmp(p, "pid", 3))) {
		if (c->part_has_data && end_part(c, false))
			return -1;
		int64_t num = 0;
		for (const char *q = v; q < e && *q >= '0' && *q <= '9' && num < INT64_MAX / 10;
		     q++)
			num = num * 10 + (*q - '0');
		if (kl == 3)
			c->pid = num;
		else if (kl == 6)
			c->tid = num;
		else
			c->part_name = builder_strf(b, "part %.*s", (int)(e - v), v);
		return 1;
	}
	if (kl == 3 && !memcmp(p, "cmd", 3)) {
		c->cmd = builder_str(b, v, (size_t)(e - v));
		return 1;
	}
	if (kl == 5 && !memcmp(p, "event", 5)) {
		if (memchr(v, '=', (size_t)(e - v)))
			c->derived_events++;
		return 1;
	}
	if (kl == 4 && !memcmp(p, "desc", 4)) {
		c->desc_lines++;
		return 1;
	}
	if (kl == 7 && !memcmp(p, "creator", 7)) {
		c->by_callgrind = e - v >= 9 && !memcmp(v, "callgrind", 9);
		c->creator_seen = 1;
		return 1;
	}
	if (kl == 7 && !memcmp(p, "version", 7))
		return 1;
	return 0;
}

/* A cost line read: a call's cost, a jump's position, or the function's self cost. */
static inline int cost_line(struct cg *c, const int64_t *cost, int64_t line, uint64_t addr)
{
	c->part_has_data = 1;
	c->last_cost_line = c->lineno;
	if (c->pending_call == 1) {
		if (call_cost(c, cost))
			return -1;
		c->callee = NONE32;
	} else if (c->pending_call == 2) {
		int any = 0;
		for (uint32_t i = 0; i < c->nev; i++)
			any |= cost[i] != 0;
		if (any && self_cost(c, cost, line, addr))
			return -1;
	} else if (self_cost(c, cost, line, addr)) {
		return -1;
	}
	c->pending_call = 0;
	return 0;
}

/* fn=: the current function (its module from ob= when first defined). */
static int fn_line(struct cg *c, const char *v, const char *e)
{
	struct pv_builder *b = c->b;
	pv_str_ix s;
	if (spec_name(c, NS_FN, v, e, &s))
		return -1;
	c->cur_fn_name = s;
	c->cur = c->host = fn_of_slot(c, c->cur_file, s, c->name_slot);
	if (c->cur == NONE32)
		return -1;
	/* its cost lines follow: their sums, asked for while this line ends */
	__builtin_prefetch(&c->exact_self[(size_t)c->cur * c->nev], 1);
	__builtin_prefetch(&c->pself[(size_t)c->cur * c->nev], 1);
	__builtin_prefetch(&c->out_calls[(size_t)c->cur * c->nev], 1);
	struct cg_fn *F = &c->fns[c->cur];
	if (!F->defined) {
		F->defined = 1;
		struct ob_module *M = &c->ob_modules[c->cur_ob % OB_MODULES];
		if (c->cur_ob && M->ob == c->cur_ob) { /* an object met lately */
			F->module = M->module;
		} else if (c->cur_ob) {
			size_t n;
			const char *path = pv_str(b->p, c->cur_ob);
			n = strlen(path);
			const char *base = path + n;
			while (base > path && base[-1] != '/')
				base--;
			enum pv_module_kind k = strstr(base, ".so")		 ? PV_MODULE_LIBRARY
						: !strncmp(base, "vgpreload", 9) ? PV_MODULE_LIBRARY
										 : PV_MODULE_BINARY;
			if (!strcmp(path, "???"))
				k = PV_MODULE_UNKNOWN;
			F->module = builder_module(
			    b, builder_str(b, base, (size_t)(path + n - base)), c->cur_ob, k);
			M->ob = c->cur_ob;
			M->module = F->module;
		}
	}
	c->callee = NONE32;
	c->have_cfile = c->have_cfn = 0;
	return 0;
}

/* fi= / fe=: inlined code's file, a function of its own (an inline edge from its host). */
static int fi_line(struct cg *c, const char *v, const char *e)
{
	pv_str_ix s;
	if (spec_name(c, NS_FL, v, e, &s))
		return -1;
	c->cur_file = s;
	if (c->host == NONE32)
		return 0;
	c->cur = fn_of(c, s, c->cur_fn_name);
	if (c->cur == NONE32)
		return -1;
	if (c->cur != c->host) {
		c->fns[c->cur].module = c->fns[c->host].module;
		if (edge_of(c, c->host, c->cur, 1) == NONE32)
			return -1;
	}
	return 0;
}

/*
 * calls=COUNT TARGET (the line ends at e, its newline at le): the next cost line is the call's;
 * *next is where reading goes on (past that cost line when the call is dropped).
 */
static int calls_line(struct cg *c, const char *v, const char *e, const char *le, const char **next)
{
	const char *end = c->in->data + c->in->len;
	uint64_t count;
	const char *q = text_skip_blanks(v, e);
	*next = le + 1;
	if (parse_u64(c, &q, e, &count))
		return -1;
	/* the target position: checked, not kept */
	for (uint32_t i = 0; i < c->npos; i++) {
		q = text_skip_blanks(q, e);
		if (q >= e)
			break;
		int64_t t;
		if (parse_pos(c, &q, e, c->prev_pos[i], &t))
			return -1;
	}
	/* the callee: cfn= in cfi= (or the current file), both for this call only */
	if (c->have_cfn) {
		c->callee =
		    fn_of_slot(c, c->have_cfile ? c->cfile : c->cur_file, c->cfn, c->cfn_slot);
		if (c->callee == NONE32)
			return -1;
		__builtin_prefetch(&c->fns[c->callee], 1);
		__builtin_prefetch(&c->callee_in[(size_t)c->callee * c->nev], 1);
	}
	c->have_cfile = 0;
	c->have_cfn = 0;
	if (c->cur == NONE32 || c->callee == NONE32) {
		c->calls_no_fn++;
		/* its cost line is read and dropped */
		const char *p = le + 1;
		if (p < end) {
			const char *l2 = memchr(p, '\n', (size_t)(end - p));
			p = l2 ? l2 + 1 : end;
			c->lineno++;
		}
		*next = p;
		return 0;
	}
	c->call_count = count;
	c->pending_call = 1;
	c->call_line = c->lineno;
	return 0;
}

/*
 * A "key=value" line (the key of kl letters at p, the line ending at e, its newline at le):
 * position and call specs, calls=, jumps; *next is where reading goes on.
 */
static int spec_line(struct cg *c, const char *p, const char *e, size_t kl, const char *le,
		     const char **next)
{
	const char *v = p + kl + 1;
	pv_str_ix s;
	*next = le + 1;
	if (!c->have_events)
		return cg_fail(c, p, "a '%.*s=' line before the events: line", (int)kl, p);
	if (kl == 2 && !memcmp(p, "fn", 2))
		return fn_line(c, v, e);
	if (kl == 2 && !memcmp(p, "fl", 2)) {
		if (spec_name(c, NS_FL, v, e, &s))
			return -1;
		c->cur_file = s;
	} else if (kl == 2 && (!memcmp(p, "fi", 2) || !memcmp(p, "fe", 2))) {
		return fi_line(c, v, e);
	} else if (kl == 2 && !memcmp(p, "ob", 2)) {
		if (spec_name(c, NS_OB, v, e, &s))
			return -1;
		c->cur_ob = s;
	} else if (kl == 3 && !memcmp(p, "cob", 3)) {
		if (spec_name(c, NS_OB, v, e, &s))
			return -1;
		c->cob = s;
	} else if (kl == 3 && (!memcmp(p, "cfi", 3) || !memcmp(p, "cfl", 3))) {
		if (spec_name(c, NS_FL, v, e, &s))
			return -1;
		c->cfile = s;
		c->have_cfile = 1;
	} else if (kl == 3 && !memcmp(p, "cfn", 3)) {
		if (spec_name(c, NS_FN, v, e, &s))
			return -1;
		c->cfn = s;
		c->cfn_slot = c->name_slot;
		c->have_cfn = 1;
		if (c->name_slot != NONE32 && c->dense[NS_FN][c->name_slot].file1) {
			/* the callee its slot last found, most likely this one: its row and sums
			 * asked for while the calls= line is read (fn_of_slot) */
			uint32_t g = c->dense[NS_FN][c->name_slot].fn;
			__builtin_prefetch(&c->fns[g], 1);
			__builtin_prefetch(&c->callee_in[(size_t)g * c->nev], 1);
		}
	} else if (kl == 3 && (!memcmp(p, "jfi", 3) || !memcmp(p, "jfn", 3))) {
		if (spec_name(c, p[1] == 'f' && p[2] == 'i' ? NS_FL : NS_FN, v, e, &s))
			return -1;
	} else if (kl == 5 && !memcmp(p, "calls", 5)) {
		return calls_line(c, v, e, le, next);
	} else if ((kl == 4 && !memcmp(p, "jump", 4)) || (kl == 4 && !memcmp(p, "jcnd", 4))) {
		c->jumps++;
		c->pending_call = 2;
	} else if ((kl == 6 && !memcmp(p, "rcalls", 6))) {
		c->unknown_lines++;
	} else {
		if (!c->unknown_lines++)
			c->first_unknown = c->lineno;
	}
	return 0;
}

/* A cost line that is not of the common shape (from p, ending at e); skipped before any fn=. */
static int slow_cost_line(struct cg *c, const char *p, const char *e, int64_t *cost)
{
	if (!c->have_events)
		return cg_fail(c, p, "a cost line before the events: line");
	if (c->cur == NONE32) {
		c->costs_no_fn++;
		return 0;
	}
	int64_t line = 0;
	uint64_t addr = PV_ADDR_NONE;
	return parse_cost_line(c, p, e, cost, &line, &addr) || cost_line(c, cost, line, addr) ? -1
											      : 0;
}

/*
 * The line at p (its newline at le, ending at e before a '\r'), not a cost line of the common
 * shape: *next is where reading goes on.
 */
static int other_line(struct cg *c, const char *p, const char *e, const char *le, int64_t *cost,
		      const char **next)
{
	char ch = *p;
	*next = le + 1;
	if (p == e || ch == '#' || text_skip_blanks(p, e) == e)
		return 0;
	if ((ch >= '0' && ch <= '9') || ch == '+' || ch == '-' || ch == '*')
		return slow_cost_line(c, p, e, cost);
	if (c->pending_call == 1)
		return cg_fail(c, p, "a calls= line must be followed by its cost line");
	c->pending_call = 0;
	const char *eq = memchr(p, '=', (size_t)(e - p));
	size_t kl = eq ? (size_t)(eq - p) : 0;
	if (eq && kl <= 6 && kl >= 2 && p[0] >= 'a' && p[0] <= 'z')
		return spec_line(c, p, e, kl, le, next);
	int h = header_line(c, p, e);
	if (h < 0)
		return -1;
	if (h == 0 && !c->unknown_lines++)
		c->first_unknown = c->lineno;
	return 0;
}

/* Every 65,536 lines: the pages read go back to the kernel, those ahead are mapped in bulk. */
static void keep_up(struct cg *c, const char *p)
{
	input_forget(c->in, p);
	input_ahead(c->in, p);
}

static int body(struct cg *c)
{
	struct pv_builder *b = c->b;
	const char *p = c->in->data, *end = c->in->data + c->in->len;
	int64_t cost[MAX_EVENTS];
	input_ahead(c->in, p);
	while (p < end && !b->status) {
		char ch = *p;
		if (((ch >= '0' && ch <= '9') || ch == '+' || ch == '-' || ch == '*') &&
		    c->have_events && c->cur != NONE32) {
			/* most lines: a cost line of the common shape (fast_cost_line) */
			int64_t line = 0;
			uint64_t addr = PV_ADDR_NONE;
			const char *next;
			if (fast_cost_line(c, p, end, cost, &line, &addr, &next)) {
				c->lineno++;
				c->line = p;
				if ((c->lineno & 0xffff) == 0)
					keep_up(c, p);
				if (cost_line(c, cost, line, addr))
					return -1;
				p = next;
				continue;
			}
		}
		const char *le = memchr(p, '\n', (size_t)(end - p));
		if (!le)
			le = end;
		const char *e = le;
		if (e > p && e[-1] == '\r')
			e--;
		c->lineno++;
		c->line = p;
		if ((c->lineno & 0xffff) == 0)
			keep_up(c, p);
		if (other_line(c, p, e, le, cost, &p))
			return -1;
	}
	if (c->pending_call == 1) {
		c->lineno = c->call_line;
		c->line = NULL;
		return cg_fail(c, NULL,
			       "the file ends after this calls= line, without its cost line");
	}
	return b->status ? -1 : 0;
}

static void fmt_costs(char *buf, size_t n, const int64_t *v, uint32_t nev)
{
	size_t used = 0;
	buf[0] = 0;
	for (uint32_t e = 0; e < nev && used < n; e++)
		used +=
		    (size_t)snprintf(buf + used, n - used, "%s%lld", e ? " " : "", (long long)v[e]);
}

/* The last part's tables, freed before the whole graph is built. */
static void part_tables_free(struct cg *c)
{
	rows_free(c);
	u64map_release(&c->edge_map);
	col_free(c->edges, sizeof(*c->edges), c->cap_edges);
	col_free(c->ecost, c->nev * sizeof(int64_t), c->cap_edges);
	col_free(c->ecalls, sizeof(uint64_t), c->cap_edges);
	col_free(c->edge_next, sizeof(uint32_t), c->cap_edges);
	col_free(c->pself, c->nev * sizeof(int64_t), c->cap_fns);
	col_free(c->touched_list, sizeof(uint32_t), c->cap_touched);
	c->edges = NULL;
	c->ecost = c->pself = NULL;
	c->ecalls = NULL;
	c->edge_next = c->touched_list = NULL;
	c->nedges = c->cap_edges = c->nr_touched = c->cap_touched = 0;
}

/*
 * Every function a model function, and the exact per-function costs into the profile
 * (callgrind_annotate's rules; the graph's inclusive costs in a recursion): the number of
 * functions whose inclusive cost the recursion rule changed.
 */
static uint64_t exact_costs(struct cg *c)
{
	struct pv_builder *b = c->b;
	uint64_t recursive = 0;
	/* every function a model function, even those with no cost */
	for (uint32_t f = 0; f < c->nfns; f++)
		cg_fn_frame(c, f, 0, PV_ADDR_NONE);
	/* the exact per-function costs, as callgrind_annotate --inclusive=yes computes them */
	struct pv_profile *p = b->p;
	uint32_t nf = p->funcs.len, nev = c->nev;
	p->func_costs.self = pv_calloc(p->metrics.len ? p->metrics.len : 1, sizeof(int64_t *));
	p->func_costs.total = pv_calloc(p->metrics.len ? p->metrics.len : 1, sizeof(int64_t *));
	if (!p->func_costs.self || !p->func_costs.total)
		b->status = PV_ENOMEM;
	for (uint32_t m = 0; m < p->metrics.len && !b->status; m++) {
		p->func_costs.self[m] = pv_calloc(nf ? nf : 1, sizeof(int64_t));
		p->func_costs.total[m] = pv_calloc(nf ? nf : 1, sizeof(int64_t));
		if (!p->func_costs.self[m] || !p->func_costs.total[m])
			b->status = PV_ENOMEM;
	}
	p->func_costs.funcs_len = nf;
	/* callgrind_annotate's inclusive costs, kept in total[] for the comparison below */
	for (uint32_t f = 0; f < c->nfns && !b->status; f++) {
		pv_func_ix fi = c->fns[f].func;
		for (uint32_t e = 0; e < nev; e++) {
			int64_t s = c->exact_self[(size_t)f * nev + e];
			int64_t t = c->fns[f].callee ? c->callee_in[(size_t)f * nev + e]
						     : s + c->out_calls[(size_t)f * nev + e];
			p->func_costs.self[e][fi] += s;
			p->func_costs.total[e][fi] += t;
		}
	}
	/*
	 * the inclusive costs from the call graph: the same rule, except that a function's calls
	 * to itself and the nested calls of a recursion are not counted again
	 */
	struct cg_graph g;
	memset(&g, 0, sizeof(g));
	pv_metric_ix ms[MAX_EVENTS];
	uint32_t nm = nev < p->metrics.len ? nev : p->metrics.len;
	for (uint32_t e = 0; e < nm; e++)
		ms[e] = e;
	/*
	 * one part: its graph is the whole graph, renumbered (when no two of its functions are
	 * one model function), and its inclusive costs were kept
	 */
	int64_t *incl = NULL;
	if (!b->status && c->nr_parts_done == 1 && c->part_incl)
		incl = part_inclusive(c, nf, nm);
	if (!b->status && !incl && c->edges_unkept)
		b->status = PV_ENOMEM; /* (no two functions are one: only memory is missing) */
	if (!b->status && !incl && cg_graph_build(p, ms, nm, NULL, &g))
		b->status = PV_ENOMEM;
	const int64_t *ix = incl ? incl : g.incl;
	for (uint32_t f = 0; f < nf && !b->status; f++) {
		bool differs = false;
		for (uint32_t e = 0; e < nm; e++) {
			differs |= p->func_costs.total[e][f] != ix[(size_t)f * nm + e];
			p->func_costs.total[e][f] = ix[(size_t)f * nm + e];
		}
		recursive += differs;
	}
	if (incl)
		pv_col_free(incl, incl_size(nf, nm));
	else if (!b->status)
		cg_graph_release(&g);
	return recursive;
}

/* The file's totals: and summary: lines against its costs, and whether it may be cut short. */
static void report_totals(struct cg *c)
{
	struct pv_builder *b = c->b;
	char got[512], said[512];
	fmt_costs(got, sizeof(got), c->total, c->nev);
	if (c->have_totals && memcmp(c->totals, c->total, c->nev * sizeof(int64_t)) != 0) {
		fmt_costs(said, sizeof(said), c->totals, c->nev);
		builder_lossy(b, 1,
			      "totals: (last at line %llu) say %s, the cost lines add up "
			      "to %s (used)",
			      (unsigned long long)c->totals_line, said, got);
	}
	if (c->have_summary && memcmp(c->summary, c->total, c->nev * sizeof(int64_t)) != 0) {
		fmt_costs(said, sizeof(said), c->summary, c->nev);
		builder_lossy(b, 1,
			      "summary: (last at line %llu) says %s, the cost lines add up "
			      "to %s (used)",
			      (unsigned long long)c->summary_line, said, got);
	}
	int calls = 0;
	for (uint32_t f = 0; f < c->nfns && !calls; f++)
		calls = c->fns[f].callee;
	/* the line its writer ends with: valgrind's callgrind closes each dump with
	 * totals:, cachegrind (no creator, no calls) its file with summary: */
	if (c->last_cost_line && c->by_callgrind &&
	    (!c->have_totals || c->totals_line < c->last_cost_line))
		builder_lossy(b, 1,
			      "no totals: line after the last costs (callgrind writes one "
			      "at the end): the file may be cut short");
	else if (c->last_cost_line && !c->by_callgrind && !calls && !c->creator_seen &&
		 (!c->have_summary || c->summary_line < c->last_cost_line))
		builder_lossy(b, 1,
			      "no summary: line after the last costs (cachegrind writes "
			      "one at the end): the file may be cut short");
	if (calls)
		builder_lossy(b, 1,
			      "callgrind stores a call graph, not stacks: views are "
			      "computed from it; a center's total and self and the calls "
			      "next to it are the file's exact costs, rows further away "
			      "are estimated (split in proportion to the calls' costs)");
}

/* What the import did not keep as it was, each kind with its count. */
static void report_lossy(struct cg *c, uint64_t recursive)
{
	struct pv_builder *b = c->b;
	builder_lossy(b, recursive,
		      "functions in a recursion: inclusive cost without the nested calls counted "
		      "again (callgrind_annotate --inclusive=yes counts them: more)");
	builder_lossy(b, c->contexts,
		      "calling contexts estimated from the call graph for what needs "
		      "stacks (filters, lines, files, modules, exports, merges): each "
		      "function's self and inclusive cost exact outside recursion cycles; "
		      "a context's share of a call under 1/%u of its part's cost goes to "
		      "its other shares",
		      CTX_BUDGET);
	builder_lossy(b, c->no_contexts,
		      "calling contexts not estimated: the command reads the call graph only");
	builder_lossy(b, c->ctx_coarse,
		      "parts with more than %u calling contexts per function and call: "
		      "past them, a function's contexts take its calls in turn, not in "
		      "proportion (costs per function stay exact)",
		      FOLD_BUDGET);
	builder_lossy(b, c->ctx_folded,
		      "calling contexts folded into an \"(other)\" frame under their "
		      "callers (more than %u for one function past the budget above): the "
		      "functions below them lose that cost in what needs stacks",
		      FOLD_KEEP);
	builder_lossy(b, c->ctx_scaled,
		      "functions and recursion cycles whose calls cost more or less than "
		      "they spend: their estimated calling contexts scaled to what they "
		      "spend");
	builder_lossy(b, c->ctx_rooted,
		      "functions called, but whose calls cost nothing: their estimated "
		      "calling contexts start at the root");
	builder_lossy(b, c->jumps, "jump= / jcnd= lines (jumps not kept)");
	builder_lossy(b, c->odd_costs,
		      "costs written as positions (+N, -N, *), read as callgrind_annotate "
		      "reads them");
	builder_lossy(b, c->negative, "negative costs (not in the calling contexts)");
	builder_lossy(b, c->derived_events, "derived events (event: NAME = FORMULA) not computed");
	builder_lossy(b, c->desc_lines, "desc: lines not kept");
	builder_lossy(b, c->unknown_lines,
		      "lines profview does not read (skipped, first at line %llu)",
		      (unsigned long long)c->first_unknown);
	builder_lossy(b, c->calls_no_fn,
		      "calls= lines outside a function or without cfn= (skipped)");
	builder_lossy(b, c->costs_no_fn, "cost lines before any fn= (skipped)");
	builder_lossy(b, c->undefined_names,
		      "compressed names used before they are defined (read as \"\", as "
		      "callgrind_annotate does)");
	builder_lossy(b, c->lines_dropped,
		      "parts with calls and more than %u (function, line) costs: their "
		      "functions' self costs not split over lines",
		      LINE_ROWS_MAX);
	builder_lossy(b, c->lines_unsplit,
		      "functions whose per-line costs stay on the function (negative costs, "
		      "or too many lines and contexts to split)");
	builder_lossy(b, c->addrs_merged,
		      "parts with calls and more than %u (function, address) costs: their "
		      "instruction addresses not kept (costs per line)",
		      LINE_ROWS_MAX);
	builder_lossy(b, c->addrs_unkept,
		      "cost lines whose instruction address is past 2^40, whose function is "
		      "past the 2^24th, or whose address has two lines (address not kept)");
}

/* The importer's own tables freed. */
static void cg_free(struct cg *c)
{
	for (int i = 0; i < NR_NS; i++) {
		u64map_release(&c->names[i]);
		col_free(c->dense[i], sizeof(struct name_slot), c->dense_cap[i]);
	}
	col_free(c->fn_cache, sizeof(*c->fn_cache), c->fn_cache_cap);
	pv_free(c->src_cache);
	pv_free(c->part_incl);
	pv_free(c->part_fn);
	col_free(c->edge_next, sizeof(uint32_t), c->cap_edges);
	col_free(c->ecalls, sizeof(uint64_t), c->cap_edges);
	u64map_release(&c->fn_map);
	u64map_release(&c->edge_map);
	u64map_release(&c->line_map);
	u64map_release(&c->addr_map);
	col_free(c->line_addr, sizeof(uint64_t), c->cap_lines);
	col_free(c->fns, sizeof(*c->fns), c->cap_fns);
	col_free(c->exact_self, c->nev * sizeof(int64_t), c->cap_fns);
	col_free(c->callee_in, c->nev * sizeof(int64_t), c->cap_fns);
	col_free(c->out_calls, c->nev * sizeof(int64_t), c->cap_fns);
	col_free(c->pself, c->nev * sizeof(int64_t), c->cap_fns);
	col_free(c->touched_list, sizeof(uint32_t), c->cap_touched);
	col_free(c->edges, sizeof(*c->edges), c->cap_edges);
	col_free(c->ecost, c->nev * sizeof(int64_t), c->cap_edges);
	col_free(c->line_fn, sizeof(uint32_t), c->cap_lines);
	col_free(c->line_no, sizeof(uint32_t), c->cap_lines);
	col_free(c->line_next, sizeof(uint32_t), c->cap_lines);
	col_free(c->line_cost, c->nev * sizeof(int64_t), c->cap_lines);
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct cg c = {.in = in,
		       .b = b,
		       .err = err,
		       .cur = NONE32,
		       .host = NONE32,
		       .callee = NONE32,
		       .npos = 1,
		       .pos_line = 0,
		       .pos_instr = -1,
		       .pid = PV_ID_NONE,
		       .tid = PV_ID_NONE,
		       .thread = PV_NONE,
		       .last_line_row = NONE32,
		       .str_unknown = NONE32,
		       .no_contexts = b->no_contexts};
	uint64_t recursive = 0;
	int rc = body(&c) ? (c.failed ? c.failed : b->status) : 0;
	if (rc == -1)
		rc = PV_ENOMEM;
	if (!rc && !b->status && !c.have_events)
		rc = cg_fail(&c, NULL, "no events: line (not a callgrind file)");
	if (!rc && !b->status) {
		if (c.part_has_data)
			end_part(&c, true);
	}
	part_tables_free(&c);
	if (!rc && !b->status && c.nr_parts_done == 0 && c.nfns == 0) {
		/* no cost at all (an empty part): one empty thread */
		builder_thread(b, c.part_name ? c.part_name : builder_cstr(b, "callgrind"), c.pid,
			       c.tid, c.cmd);
	}
	if (!rc && !b->status)
		recursive = exact_costs(&c);
	if (!rc && !b->status) {
		report_totals(&c);
		report_lossy(&c, recursive);
	}
	cg_free(&c);
	return rc;
}

const struct importer importer_callgrind = {
    .name = "callgrind",
    .description = "callgrind and cachegrind output",
    .one_program = true,
    .probe = probe,
    .import = import,
    .cut_short = input_ends_mid_line,
};

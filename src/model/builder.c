#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/sort.h"
#include "model/builder.h"
#include "model/profile_priv.h"
#include "model/ranges.h"
#include "pv/export.h"

/*
 * Column growth: each table lists its columns with their element sizes once. A failed grow
 * leaves already-grown columns larger, which is harmless: cap only moves when all succeeded.
 */
struct colspec {
	void **col;
	size_t elt;
	bool opt; /* an optional column (pv/profile.h): grown only when it exists */
};

/* The columns at capacity nc (0: past the limit). */
static int resize_table(struct pv_builder *b, uint32_t *cap, uint32_t nc, struct colspec *cols,
			size_t n)
{
	if (!nc) {
		b->status = PV_ELIMIT;
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (cols[i].opt && !*cols[i].col)
			continue;
		if (col_realloc(cols[i].col, cols[i].elt, nc)) {
			b->status = PV_ENOMEM;
			return -1;
		}
	}
	*cap = nc;
	return 0;
}

static int grow_table(struct pv_builder *b, uint32_t *len, uint32_t *cap, struct colspec *cols,
		      size_t n)
{
	if (b->status)
		return -1;
	if (*len < *cap)
		return 0;
	return resize_table(b, cap, grow_cap(*cap, (uint64_t)*len + 1), cols, n);
}

#define COL(c)                                     \
	{                                          \
		(void **)&(c), sizeof(*(c)), false \
	}
#define OPT(c)                                    \
	{                                         \
		(void **)&(c), sizeof(*(c)), true \
	}

/*
 * An optional column (pv/profile.h) is NULL while every row has the default; the first other
 * value makes it, the rows before set to the default. Every default is bytes all 0 or all 0xff
 * (fill). Out of memory: the status says it.
 */
static void opt_make(struct pv_builder *b, void **col, size_t elt, uint32_t cap, uint32_t len,
		     int fill)
{
	void *c = pv_malloc((size_t)(cap ? cap : 1) * elt);
	if (!c) {
		b->status = PV_ENOMEM;
		return;
	}
	memset(c, fill, (size_t)len * elt);
	*col = c;
}

/* Row r (the table's len) of optional column col of table t gets v. */
#define OPT_SET(b, t, col, r, v, dflt, fill)                                                \
	do {                                                                                \
		if (!(t)->col && (v) != (dflt))                                             \
			opt_make((b), (void **)&(t)->col, sizeof(*(t)->col), (t)->cap, (r), \
				 (fill));                                                   \
		if ((t)->col)                                                               \
			(t)->col[r] = (v);                                                  \
	} while (0)
#define GROW(b, t, ...)                                                        \
	grow_table((b), &(t)->len, &(t)->cap, (struct colspec[]){__VA_ARGS__}, \
		   sizeof((struct colspec[]){__VA_ARGS__}) / sizeof(struct colspec))

/* ---- strings ---- */

struct str_key {
	const char *s;
	size_t n;
};

static bool str_eq(const void *ctx, uint32_t row)
{
	const struct pv_builder *b = ctx;
	const struct str_key *k = b->key;
	return b->p->strings.size[row] == k->n && memcmp(b->p->strings.ptr[row], k->s, k->n) == 0;
}

static inline uint16_t str_tag(uint64_t h)
{
	uint16_t t = (uint16_t)(h >> 48);
	return t ? t : 1;
}

/* The string map at twice its capacity (1024 the first time), every string placed again. */
static int str_map_grow(struct pv_builder *b)
{
	uint64_t cap = b->str_map.tag ? ((uint64_t)b->str_map.mask + 1) * 2 : 1024;
	if (cap > ((uint64_t)1 << 32)) {
		b->status = PV_ELIMIT;
		return -1;
	}
	uint16_t *tag = pv_calloc((size_t)cap, sizeof(*tag));
	uint32_t *row = pv_malloc((size_t)cap * sizeof(*row));
	if (!tag || !row) {
		pv_free(tag);
		pv_free(row);
		b->status = PV_ENOMEM;
		return -1;
	}
	pv_free(b->str_map.tag);
	pv_free(b->str_map.row);
	uint32_t mask = (uint32_t)(cap - 1);
	const struct pv_strings *t = &b->p->strings;
	for (uint32_t r = 1; r < t->len; r++) { /* string 0, "", is not in the map */
		uint64_t h = hash_bytes(t->ptr[r], t->size[r]);
		uint32_t i = (uint32_t)h & mask;
		while (tag[i])
			i = (i + 1) & mask;
		tag[i] = str_tag(h);
		row[i] = r;
	}
	b->str_map.tag = tag;
	b->str_map.row = row;
	b->str_map.mask = mask;
	return 0;
}

pv_str_ix builder_str(struct pv_builder *b, const char *s, size_t n)
{
	if (b->status)
		return 0;
	if (n == 0)
		return 0;
	if (n > UINT32_MAX - 1) {
		b->status = PV_ELIMIT;
		return 0;
	}
	struct pv_strings *t = &b->p->strings;
	struct str_key k = {s, n};
	uint64_t h = hash_bytes(s, n);
	uint16_t tg = str_tag(h);
	b->key = &k;
	uint32_t i = (uint32_t)h & b->str_map.mask;
	for (; b->str_map.tag && b->str_map.tag[i]; i = (i + 1) & b->str_map.mask)
		if (b->str_map.tag[i] == tg && str_eq(b, b->str_map.row[i]))
			return b->str_map.row[i];
	if (GROW(b, t, COL(t->ptr), COL(t->size)))
		return 0;
	if (!b->str_map.tag ||
	    (uint64_t)(b->str_map.count + 1) * 4 > ((uint64_t)b->str_map.mask + 1) * 3) {
		if (str_map_grow(b))
			return 0;
		for (i = (uint32_t)h & b->str_map.mask; b->str_map.tag[i];
		     i = (i + 1) & b->str_map.mask)
			;
	}
	char *d = arena_strndup(profile_arena(b->p), s, n);
	if (!d) {
		b->status = PV_ENOMEM;
		return 0;
	}
	uint32_t r = t->len;
	b->str_map.tag[i] = tg;
	b->str_map.row[i] = r;
	b->str_map.count++;
	t->ptr[r] = d;
	t->size[r] = (uint32_t)n;
	t->len++;
	return r;
}

pv_str_ix builder_strf(struct pv_builder *b, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	return builder_str(b, buf, (size_t)n);
}

/* ---- init / release ---- */

int builder_init(struct pv_builder *b)
{
	memset(b, 0, sizeof(*b));
	b->p = profile_alloc();
	if (!b->p)
		return PV_ENOMEM;
	b->p->priv->arena = arena_new();
	if (!b->p->priv->arena) {
		pv_free(b->p);
		b->p = NULL;
		return PV_ENOMEM;
	}
	struct pv_strings *t = &b->p->strings;
	if (GROW(b, t, COL(t->ptr), COL(t->size))) {
		pv_profile_free(b->p);
		b->p = NULL;
		return PV_ENOMEM;
	}
	t->ptr[0] = "";
	t->size[0] = 0;
	t->len = 1;
	b->p->meta.default_metric = 0;
	return 0;
}

static void bare_release(struct bare_index *x)
{
	pv_free(x->row1);
	memset(x, 0, sizeof(*x));
}

/*
 * The entry of index i (row + 1, 0 when none) of a bare index's column, grown and zeroed up to
 * i: the entries are set in index order, so nothing past the last one used is touched. NULL
 * when out of memory (status set).
 */
static uint32_t *bare_at(struct pv_builder *b, struct bare_index *x, uint32_t i)
{
	if (i >= x->len) {
		if (i >= x->cap) {
			uint32_t nc = grow_cap(x->cap, (uint64_t)i + 1);
			if (!nc || COL_GROW(x->row1, nc)) {
				b->status = PV_ENOMEM;
				return NULL;
			}
			x->cap = nc;
		}
		memset(x->row1 + x->len, 0, (size_t)(i + 1 - x->len) * sizeof(*x->row1));
		x->len = i + 1;
	}
	return &x->row1[i];
}

/* The row of index i of a bare index + 1, 0 when none. */
static uint32_t bare_get(const struct bare_index *x, uint32_t i)
{
	if (x->row1)
		return i < x->len ? x->row1[i] : 0;
	return i >= x->lo && i < x->len ? x->base + (i - x->lo) + 1 : 0;
}

/*
 * Index i (none so far) gets row. While the indices set are lo, lo + 1, ... with the rows base,
 * base + 1, ... (a file of unique stacks: each new name a new function, each new function a new
 * frame, each new frame a new root) the index is that run, no column; the first index out of
 * the run makes the column.
 */
static void bare_set(struct pv_builder *b, struct bare_index *x, uint32_t i, uint32_t row)
{
	if (!x->row1) {
		if (!x->len) {
			x->lo = i;
			x->base = row;
			x->len = i + 1;
			return;
		}
		if (i == x->len && row == x->base + (i - x->lo)) {
			x->len++;
			return;
		}
		uint32_t lo = x->lo, base = x->base, n = x->len;
		x->len = x->cap = 0;
		if (!bare_at(b, x, n - 1))
			return;
		for (uint32_t j = lo; j < n; j++)
			x->row1[j] = base + (j - lo) + 1;
	}
	uint32_t *e = bare_at(b, x, i);
	if (e)
		*e = row + 1;
}

static void stack_map_release(struct pv_builder *b)
{
	pv_free(b->stack_map.slot);
	memset(&b->stack_map, 0, sizeof(b->stack_map));
	pv_free(b->first_child);
	b->first_child = NULL;
	b->fc_cap = b->fc_len = 0;
	bare_release(&b->root_stack);
}

static void release_maps(struct pv_builder *b)
{
	pv_free(b->str_map.tag);
	pv_free(b->str_map.row);
	memset(&b->str_map, 0, sizeof(b->str_map));
	ixmap_release(&b->module_map);
	ixmap_release(&b->source_map);
	ixmap_release(&b->func_map);
	ixmap_release(&b->frame_map);
	ixmap_release(&b->cat_map);
	u64map_release(&b->label_map);
	u64map_release(&b->set_map);
	bare_release(&b->bare_func);
	bare_release(&b->bare_frame);
	stack_map_release(b);
	pv_free(b->runs);
	b->runs = NULL;
	b->nr_runs = b->runs_cap = 0;
}

void builder_release(struct pv_builder *b)
{
	release_maps(b);
	pv_profile_free(b->p);
	b->p = NULL;
}

/* ---- categories ---- */

static bool cat_eq(const void *ctx, uint32_t row)
{
	const struct pv_builder *b = ctx;
	return b->p->categories.name[row] == *(const pv_str_ix *)b->key;
}

pv_cat_ix builder_category(struct pv_builder *b, pv_str_ix name, pv_str_ix color)
{
	if (b->status)
		return PV_NONE;
	struct pv_categories *t = &b->p->categories;
	uint64_t h = hash_u64(name);
	uint32_t slot;
	b->key = &name;
	uint32_t r = ixmap_find(&b->cat_map, h, cat_eq, b, &slot);
	if (r != UINT32_MAX)
		return r;
	if (GROW(b, t, COL(t->name), COL(t->color), COL(t->sub_first), COL(t->sub_len)))
		return PV_NONE;
	r = t->len;
	if (ixmap_insert(&b->cat_map, slot, h, r)) {
		b->status = PV_ENOMEM;
		return PV_NONE;
	}
	t->name[r] = name;
	t->color[r] = color;
	t->sub_first[r] = b->p->subcategories.len;
	t->sub_len[r] = 0;
	t->len++;
	return r;
}

uint32_t builder_subcategory(struct pv_builder *b, pv_cat_ix c, pv_str_ix name)
{
	if (b->status || c >= b->p->categories.len)
		return 0;
	struct pv_categories *ct = &b->p->categories;
	struct pv_subcategories *t = &b->p->subcategories;
	/* Subcategories of one category are contiguous: only the newest category may grow. */
	if (ct->sub_first[c] + ct->sub_len[c] != t->len) {
		if (ct->sub_len[c] != 0) {
			builder_lossy(b, 1, "subcategory '%s' of an earlier category ignored",
				      pv_str(b->p, name));
			return 0;
		}
		ct->sub_first[c] = t->len;
	}
	if (GROW(b, t, COL(t->name)))
		return 0;
	t->name[t->len++] = name;
	return ct->sub_len[c]++;
}

/* ---- modules, sources ---- */

static bool module_eq(const void *ctx, uint32_t row)
{
	const struct pv_builder *b = ctx;
	const pv_str_ix *k = b->key;
	return b->p->modules.name[row] == k[0] && b->p->modules.path[row] == k[1];
}

pv_module_ix builder_module(struct pv_builder *b, pv_str_ix name, pv_str_ix path,
			    enum pv_module_kind kind)
{
	if (b->status)
		return PV_NONE;
	struct pv_modules *t = &b->p->modules;
	pv_str_ix k[2] = {name, path};
	uint64_t h = hash_bytes(k, sizeof(k));
	uint32_t slot;
	b->key = k;
	uint32_t r = ixmap_find(&b->module_map, h, module_eq, b, &slot);
	if (r != UINT32_MAX)
		return r;
	if (GROW(b, t, COL(t->name), COL(t->path), COL(t->kind)))
		return PV_NONE;
	r = t->len;
	if (ixmap_insert(&b->module_map, slot, h, r)) {
		b->status = PV_ENOMEM;
		return PV_NONE;
	}
	t->name[r] = name;
	t->path[r] = path;
	t->kind[r] = (uint8_t)kind;
	t->len++;
	return r;
}

static bool source_eq(const void *ctx, uint32_t row)
{
	const struct pv_builder *b = ctx;
	return b->p->sources.path[row] == *(const pv_str_ix *)b->key;
}

pv_source_ix builder_source(struct pv_builder *b, pv_str_ix path)
{
	if (b->status)
		return PV_NONE;
	struct pv_sources *t = &b->p->sources;
	uint64_t h = hash_u64(path);
	uint32_t slot;
	b->key = &path;
	uint32_t r = ixmap_find(&b->source_map, h, source_eq, b, &slot);
	if (r != UINT32_MAX)
		return r;
	if (GROW(b, t, COL(t->path)))
		return PV_NONE;
	r = t->len;
	if (ixmap_insert(&b->source_map, slot, h, r)) {
		b->status = PV_ENOMEM;
		return PV_NONE;
	}
	t->path[r] = path;
	t->len++;
	return r;
}

/* ---- functions, frames, stacks ---- */

struct func_key {
	pv_str_ix name;
	pv_module_ix module;
	pv_source_ix source;
	uint32_t line, column;
};

static bool func_eq(const void *ctx, uint32_t row)
{
	const struct pv_builder *b = ctx;
	const struct func_key *k = b->key;
	const struct pv_profile *p = b->p;
	return p->funcs.name[row] == k->name && pv_func_module(p, row) == k->module &&
	       pv_func_source(p, row) == k->source && pv_func_line(p, row) == k->line &&
	       pv_func_column(p, row) == k->column;
}

/* Sets row r (the next one) of the function table, grown for it, to k. */
static pv_func_ix func_fill(struct pv_builder *b, uint32_t r, const struct func_key *k)
{
	struct pv_funcs *t = &b->p->funcs;
	t->name[r] = k->name;
	OPT_SET(b, t, module, r, k->module, PV_NONE, 0xff);
	OPT_SET(b, t, source, r, k->source, PV_NONE, 0xff);
	OPT_SET(b, t, line, r, k->line, 0, 0);
	OPT_SET(b, t, column, r, k->column, 0, 0);
	if (b->status)
		return PV_NONE;
	t->len++;
	return r;
}

pv_func_ix builder_func_at(struct pv_builder *b, pv_str_ix name, pv_module_ix module,
			   pv_source_ix source, uint32_t line, uint32_t column)
{
	if (b->status)
		return PV_NONE;
	struct pv_funcs *t = &b->p->funcs;
	struct func_key k = {name, module, source, line, line ? column : 0};
	uint32_t slot = 0, r;
	uint64_t h = 0;
	bool bare = module == PV_NONE && source == PV_NONE && line == 0;
	if (bare) {
		if ((r = bare_get(&b->bare_func, name)))
			return r - 1;
	} else {
		h = hash_bytes(&k, sizeof(k));
		b->key = &k;
		r = ixmap_find(&b->func_map, h, func_eq, b, &slot);
		if (r != UINT32_MAX)
			return r;
	}
	if (GROW(b, t, COL(t->name), OPT(t->module), OPT(t->source), OPT(t->line), OPT(t->column)))
		return PV_NONE;
	r = t->len;
	if (bare) {
		bare_set(b, &b->bare_func, name, r);
	} else if (ixmap_insert(&b->func_map, slot, h, r)) {
		b->status = PV_ENOMEM;
		return PV_NONE;
	}
	return func_fill(b, r, &k);
}

pv_func_ix builder_func_new(struct pv_builder *b, pv_str_ix name, pv_module_ix module,
			    pv_source_ix source, uint32_t line, uint32_t column)
{
	if (b->status)
		return PV_NONE;
	struct pv_funcs *t = &b->p->funcs;
	struct func_key k = {name, module, source, line, line ? column : 0};
	if (GROW(b, t, COL(t->name), OPT(t->module), OPT(t->source), OPT(t->line), OPT(t->column)))
		return PV_NONE;
	return func_fill(b, t->len, &k);
}

static bool frame_eq(const void *ctx, uint32_t row)
{
	const struct pv_builder *b = ctx;
	const struct frame_key *k = b->key;
	const struct pv_profile *p = b->p;
	return p->frames.func[row] == k->func && pv_frame_line(p, row) == k->line &&
	       pv_frame_column(p, row) == k->column && pv_frame_addr(p, row) == k->addr &&
	       pv_frame_inline_depth(p, row) == k->inline_depth &&
	       pv_frame_category(p, row) == k->category &&
	       pv_frame_subcategory(p, row) == k->subcategory && pv_frame_kind(p, row) == k->kind &&
	       pv_frame_source(p, row) == k->source1 - 1;
}

/* The frame columns at capacity nc (the optional ones that exist). */
static int frames_resize(struct pv_builder *b, uint32_t nc)
{
	struct pv_frames *t = &b->p->frames;
	return b->status || resize_table(b, &t->cap, nc,
					 (struct colspec[]){
					     COL(t->func), OPT(t->line), OPT(t->column),
					     OPT(t->addr), OPT(t->inline_depth), OPT(t->category),
					     OPT(t->subcategory), OPT(t->kind), OPT(t->source)},
					 9)
		   ? -1
		   : 0;
}

void builder_frames_reserve(struct pv_builder *b, uint32_t n)
{
	const struct pv_frames *t = &b->p->frames;
	uint64_t rows = (uint64_t)t->len + n;
	if (!b->status && rows > t->cap && rows <= PV_MAX_ROWS)
		frames_resize(b, (uint32_t)rows);
}

/* A frame with only a function: found by index (bare_frame), not hashed. */
static bool frame_bare(const struct frame_key *k)
{
	return k->line == 0 && k->column == 0 && k->addr == PV_ADDR_NONE && k->inline_depth == 0 &&
	       k->category == PV_NONE && k->subcategory == 0 && k->kind == 0 && k->source1 == 0 &&
	       k->func != PV_NONE;
}

static uint64_t frame_hash(const struct frame_key *k)
{
	/* Hash the fields, not the struct: padding bytes are not part of the key. */
	uint64_t parts[4] = {
	    ((uint64_t)k->func << 32) | k->line,
	    ((uint64_t)k->column << 32) | k->category,
	    k->addr,
	    ((uint64_t)k->inline_depth << 16) | k->subcategory | ((uint64_t)k->kind << 32) |
		((uint64_t)k->source1 << 40),
	};
	return hash_bytes(parts, sizeof(parts));
}

static int frame_map_rebuild(struct pv_builder *b);

pv_frame_ix builder_frame(struct pv_builder *b, const struct frame_key *k)
{
	if (b->status)
		return PV_NONE;
	struct pv_frames *t = &b->p->frames;
	uint32_t slot = 0, r;
	uint64_t h = 0;
	bool bare = frame_bare(k);
	if (bare) {
		if ((r = bare_get(&b->bare_frame, k->func)))
			return r - 1;
	} else if (!b->frame_appending) { /* (builder_frame_append: no lookup) */
		h = frame_hash(k);
		if (b->frames_unmapped && frame_map_rebuild(b))
			return PV_NONE;
		b->key = k;
		r = ixmap_find(&b->frame_map, h, frame_eq, b, &slot);
		if (r != UINT32_MAX)
			return r;
	}
	if (t->len == t->cap && frames_resize(b, grow_cap(t->cap, (uint64_t)t->len + 1)))
		return PV_NONE;
	r = t->len;
	if (bare) {
		bare_set(b, &b->bare_frame, k->func, r);
	} else if (!b->frame_appending && ixmap_insert(&b->frame_map, slot, h, r)) {
		b->status = PV_ENOMEM;
		return PV_NONE;
	}
	t->func[r] = k->func;
	OPT_SET(b, t, line, r, k->line, 0, 0);
	OPT_SET(b, t, column, r, k->column, 0, 0);
	OPT_SET(b, t, addr, r, k->addr, PV_ADDR_NONE, 0xff);
	OPT_SET(b, t, inline_depth, r, k->inline_depth, 0, 0);
	OPT_SET(b, t, category, r, k->category, PV_NONE, 0xff);
	OPT_SET(b, t, subcategory, r, k->subcategory, 0, 0);
	OPT_SET(b, t, kind, r, k->kind, PV_FRAME_CODE, 0);
	OPT_SET(b, t, source, r, k->source1 - 1, PV_NONE, 0xff); /* 0 - 1 wraps to PV_NONE */
	if (b->status)
		return PV_NONE;
	t->len++;
	return r;
}

pv_frame_ix builder_func_frame(struct pv_builder *b, pv_func_ix f)
{
	struct frame_key k = {
	    .func = f,
	    .addr = PV_ADDR_NONE,
	    .category = PV_NONE,
	};
	return builder_frame(b, &k);
}

void builder_stacks_done(struct pv_builder *b)
{
	stack_map_release(b);
	b->stacks_done = true;
}

static inline uint32_t stack_hash(pv_stack_ix prefix, pv_frame_ix frame)
{
	return (uint32_t)hash_u64(((uint64_t)prefix << 32) | frame);
}

/* Places a key known to be absent. */
static inline void stack_map_place(uint32_t *slot, uint32_t mask, pv_stack_ix prefix,
				   pv_frame_ix frame, uint32_t row1)
{
	uint32_t j = stack_hash(prefix, frame) & mask;
	while (slot[3 * (size_t)j + 2])
		j = (j + 1) & mask;
	slot[3 * (size_t)j] = prefix;
	slot[3 * (size_t)j + 1] = frame;
	slot[3 * (size_t)j + 2] = row1;
}

/* The stack map at capacity cap (a power of two), its rows placed again. */
static int stack_map_resize(struct pv_builder *b, uint64_t cap)
{
	if (cap > ((uint64_t)1 << 31)) {
		b->status = PV_ELIMIT;
		return -1;
	}
	uint32_t *slot = pv_calloc((size_t)cap * 3, sizeof(*slot));
	if (!slot) {
		b->status = PV_ENOMEM;
		return -1;
	}
	uint32_t mask = (uint32_t)(cap - 1);
	const uint32_t *old = b->stack_map.slot;
	for (uint32_t i = 0; old && i <= b->stack_map.mask; i++)
		if (old[3 * (size_t)i + 2])
			stack_map_place(slot, mask, old[3 * (size_t)i], old[3 * (size_t)i + 1],
					old[3 * (size_t)i + 2]);
	pv_free(b->stack_map.slot);
	b->stack_map.slot = slot;
	b->stack_map.mask = mask;
	return 0;
}

#define FC_MANY 0xffffffffu

/* Capacity for need entries of first_child, none of them set. */
static int fc_grow(struct pv_builder *b, uint64_t need)
{
	if (need > b->fc_cap) {
		uint32_t nc = grow_cap(b->fc_cap, need);
		if (!nc || COL_GROW(b->first_child, nc)) {
			b->status = PV_ENOMEM;
			return -1;
		}
		b->fc_cap = nc;
	}
	return 0;
}

/*
 * Room in first_child for prefixes up to row rows - 1 (index rows), set to 0 as far as that
 * and up to 512 entries (a page or so) further within the capacity, so that stacks made one
 * after another do not come here each: the capacity beyond is never touched (a first_child as
 * large as the stacks' capacity would double the resident memory it takes).
 */
static int fc_room(struct pv_builder *b, uint64_t rows)
{
	if (fc_grow(b, rows + 1))
		return -1;
	if (rows + 1 > b->fc_len) {
		uint64_t end = (uint64_t)b->fc_len + 512;
		if (end < rows + 1)
			end = rows + 1;
		if (end > b->fc_cap)
			end = b->fc_cap;
		memset(b->first_child + b->fc_len, 0,
		       (size_t)(end - b->fc_len) * sizeof(*b->first_child));
		b->fc_len = (uint32_t)end;
	}
	return 0;
}

/* A stack map that holds entries at 3/4 full at most: the smallest power of two from 1024. */
static inline int stack_map_room(struct pv_builder *b, uint64_t entries)
{
	uint64_t cap = b->stack_map.slot ? (uint64_t)b->stack_map.mask + 1 : 0, nc = 1024;
	if (entries * 4 <= cap * 3)
		return 0;
	while (entries * 4 > nc * 3)
		nc *= 2;
	return stack_map_resize(b, nc);
}

/*
 * Puts a stack known to be absent in the map, growing it past 3/4 full. at: the free slot where
 * a lookup of this key just ended (UINT32_MAX when none), used unless the map grew since.
 */
static int stack_map_add(struct pv_builder *b, pv_stack_ix prefix, pv_frame_ix frame, uint32_t row,
			 uint32_t at)
{
	uint32_t mask = b->stack_map.mask;
	if (stack_map_room(b, (uint64_t)b->stack_map.count + 1))
		return -1;
	if (at != UINT32_MAX && b->stack_map.mask == mask) {
		uint32_t *e = b->stack_map.slot + 3 * (size_t)at;
		e[0] = prefix;
		e[1] = frame;
		e[2] = row + 1;
	} else {
		stack_map_place(b->stack_map.slot, b->stack_map.mask, prefix, frame, row + 1);
	}
	b->stack_map.count++;
	return 0;
}

/*
 * Notes stack row (prefix, frame) as a child of its prefix: first_child for a first child,
 * the map (with the first one) for the others. A prefix that is not a stack (yet) keeps its
 * children in the map. at: as for stack_map_add.
 */
static int note_child(struct pv_builder *b, pv_stack_ix prefix, pv_frame_ix frame, uint32_t row,
		      uint32_t at)
{
	uint32_t i = prefix + 1;
	if (prefix != PV_NONE && prefix >= row)
		return stack_map_add(b, prefix, frame, row, at);
	uint64_t fc = b->first_child[i];
	if (!fc) {
		b->first_child[i] = (uint64_t)frame << 32 | (row + 1);
		return 0;
	}
	if ((uint32_t)fc != FC_MANY) {
		/* the map changes first: the slot a lookup found no longer holds */
		if (stack_map_add(b, prefix, (uint32_t)(fc >> 32), (uint32_t)fc - 1, UINT32_MAX))
			return -1;
		b->first_child[i] = FC_MANY;
		at = UINT32_MAX;
	}
	return stack_map_add(b, prefix, frame, row, at);
}

/* The stack map again, after builder_stacks_done. */
static int rebuild_stack_map(struct pv_builder *b)
{
	const struct pv_stacks *t = &b->p->stacks;
	b->stacks_done = false;
	if (fc_room(b, t->len))
		return -1;
	for (uint32_t r = 0; r < t->len; r++) {
		if (t->prefix[r] == PV_NONE) {
			bare_set(b, &b->root_stack, t->frame[r], r);
			if (b->status)
				return -1;
		} else if (note_child(b, t->prefix[r], t->frame[r], r, UINT32_MAX)) {
			return -1;
		}
	}
	return 0;
}

void builder_stacks_reserve(struct pv_builder *b, uint32_t n)
{
	struct pv_stacks *t = &b->p->stacks;
	uint64_t rows = (uint64_t)t->len + n;
	if (b->status || rows > PV_MAX_ROWS)
		return;
	if (rows > t->cap) {
		if (COL_GROW(t->frame, (uint32_t)rows) || COL_GROW(t->prefix, (uint32_t)rows)) {
			b->status = PV_ENOMEM;
			return;
		}
		t->cap = (uint32_t)rows;
	}
	/* capacity only: builder_stack zeroes first_child as far as the prefixes it meets */
	if (b->stacks_done)
		rebuild_stack_map(b);
	else
		fc_grow(b, rows + 1);
}

/* A new row of the stack table, not in any map: its index or PV_NONE. */
static pv_stack_ix stack_push(struct pv_builder *b, pv_stack_ix prefix, pv_frame_ix frame)
{
	struct pv_stacks *t = &b->p->stacks;
	if (GROW(b, t, COL(t->frame), COL(t->prefix)))
		return PV_NONE;
	uint32_t r = t->len++;
	t->frame[r] = frame;
	t->prefix[r] = prefix;
	return r;
}

pv_stack_ix builder_stack(struct pv_builder *b, pv_stack_ix prefix, pv_frame_ix frame)
{
	if (b->status || frame == PV_NONE)
		return PV_NONE;
	if (b->stacks_done && rebuild_stack_map(b))
		return PV_NONE;
	struct pv_stacks *t = &b->p->stacks;
	if (prefix == PV_NONE) {
		/* a root: by its frame */
		uint32_t r = bare_get(&b->root_stack, frame);
		if (r)
			return r - 1;
		r = stack_push(b, PV_NONE, frame);
		if (r == PV_NONE)
			return PV_NONE;
		bare_set(b, &b->root_stack, frame, r);
		if (b->status)
			return PV_NONE;
		return r;
	}
	bool known = prefix < t->len;
	uint32_t at = UINT32_MAX;
	if (known) {
		/* first_child is set as far as the prefixes used (a stack no one extends has none)
		 */
		if (prefix + 2 > b->fc_len && fc_room(b, (uint64_t)prefix + 1))
			return PV_NONE;
		uint64_t fc = b->first_child[prefix + 1];
		if (!fc)
			goto add; /* a first child: new */
		if ((uint32_t)fc != FC_MANY) {
			if ((uint32_t)(fc >> 32) == frame)
				return (uint32_t)fc - 1;
			goto add; /* a second child: new, and both go to the map */
		}
	}
	if (b->stack_map.slot) {
		uint32_t mask = b->stack_map.mask, j = stack_hash(prefix, frame) & mask;
		for (uint32_t *e; (e = b->stack_map.slot + 3 * (size_t)j)[2]; j = (j + 1) & mask)
			if (e[0] == prefix && e[1] == frame)
				return e[2] - 1;
		at = j; /* absent: it goes here unless the map grows first */
	}
add:
	if (GROW(b, t, COL(t->frame), COL(t->prefix)))
		return PV_NONE;
	uint32_t r = t->len;
	if (note_child(b, prefix, frame, r, at))
		return PV_NONE;
	t->frame[r] = frame;
	t->prefix[r] = prefix;
	t->len++;
	return r;
}

pv_stack_ix builder_stack_append(struct pv_builder *b, pv_stack_ix prefix, pv_frame_ix frame)
{
	if (b->status || frame == PV_NONE)
		return PV_NONE;
	if (!b->stacks_done)
		builder_stacks_done(b);
	return stack_push(b, prefix, frame);
}

/* ---- threads, metrics, samples, markers ---- */

pv_thread_ix builder_thread(struct pv_builder *b, pv_str_ix name, int64_t pid, int64_t tid,
			    pv_str_ix process_name)
{
	struct pv_threads *t = &b->p->threads;
	if (GROW(b, t, COL(t->name), COL(t->process_name), COL(t->process_type), COL(t->pid),
		 COL(t->tid), COL(t->start_ns), COL(t->end_ns), COL(t->sample_begin),
		 COL(t->sample_end)))
		return PV_NONE;
	uint32_t r = t->len++;
	t->name[r] = name;
	t->process_name[r] = process_name;
	t->process_type[r] = 0; /* an importer that knows it sets it */
	t->pid[r] = pid;
	t->tid[r] = tid;
	t->start_ns[r] = PV_TIME_NONE;
	t->end_ns[r] = PV_TIME_NONE;
	t->sample_begin[r] = 0;
	t->sample_end[r] = 0;
	return r;
}

pv_metric_ix builder_metric(struct pv_builder *b, pv_str_ix name, enum pv_unit unit)
{
	struct pv_metrics *t = &b->p->metrics;
	for (uint32_t i = 0; i < t->len; i++)
		if (t->name[i] == name)
			return i;
	uint32_t oldcap = t->cap;
	if (GROW(b, t, COL(t->name), COL(t->unit), COL(t->description)))
		return PV_NONE;
	if (t->cap != oldcap) {
		int64_t **w = pv_realloc(b->p->samples.weight, (size_t)t->cap * sizeof(*w));
		if (!w) {
			b->status = PV_ENOMEM;
			return PV_NONE;
		}
		b->p->samples.weight = w;
	}
	uint32_t r = t->len++;
	t->name[r] = name;
	t->unit[r] = (uint8_t)unit;
	t->description[r] = 0;
	b->p->samples.weight[r] = NULL;
	if (b->p->samples.len) {
		/* A metric added after samples: earlier samples weigh 0 for it. */
		int64_t *col = pv_calloc(b->p->samples.cap, sizeof(*col));
		if (!col) {
			b->status = PV_ENOMEM;
			return PV_NONE;
		}
		b->p->samples.weight[r] = col;
	}
	return r;
}

void builder_metric_description(struct pv_builder *b, pv_metric_ix m, pv_str_ix desc)
{
	if (!b->status && m < b->p->metrics.len)
		b->p->metrics.description[m] = desc;
}

/* col (n elements of elt bytes) permuted by order, through tmp (n * elt bytes) */
static void permute(void *col, size_t elt, const pv_metric_ix *order, uint32_t n, char *tmp)
{
	for (uint32_t i = 0; i < n; i++)
		memcpy(tmp + i * elt, (char *)col + order[i] * elt, elt);
	memcpy(col, tmp, n * elt);
}

void builder_metrics_order(struct pv_builder *b, const pv_metric_ix *order)
{
	struct pv_metrics *t = &b->p->metrics;
	uint32_t n = t->len;
	if (b->status || n < 2)
		return;
	char *tmp = pv_malloc((size_t)n * sizeof(int64_t *));
	if (!tmp) {
		b->status = PV_ENOMEM;
		return;
	}
	permute(t->name, sizeof(*t->name), order, n, tmp);
	permute(t->description, sizeof(*t->description), order, n, tmp);
	permute(t->unit, sizeof(*t->unit), order, n, tmp);
	permute(b->p->samples.weight, sizeof(*b->p->samples.weight), order, n, tmp);
	for (uint32_t i = 0; i < n; i++)
		if (order[i] == b->p->meta.default_metric) {
			b->p->meta.default_metric = i;
			break;
		}
	pv_free(tmp);
}

int builder_formula(struct pv_builder *b, pv_str_ix name, pv_str_ix formula, pv_str_ix self,
		    pv_str_ix desc)
{
	struct pv_formulas *t = &b->p->formulas;
	if (b->status ||
	    GROW(b, t, COL(t->name), COL(t->formula), COL(t->self), COL(t->description)))
		return b->status ? b->status : PV_ENOMEM;
	uint32_t r = t->len++;
	t->name[r] = name;
	t->formula[r] = formula;
	t->self[r] = self;
	t->description[r] = desc;
	return 0;
}

/*
 * The time column, made when there is none (no sample so far had a time): every sample so far
 * without one. 0 or -1 (out of memory, in b->status).
 */
static int make_times(struct pv_builder *b)
{
	struct pv_samples *t = &b->p->samples;
	if (t->time_ns)
		return 0;
	int64_t *col = pv_malloc((size_t)(t->cap ? t->cap : 1) * sizeof(*col));
	if (!col) {
		b->status = PV_ENOMEM;
		return -1;
	}
	for (uint32_t j = 0; j < t->len; j++)
		col[j] = PV_TIME_NONE;
	t->time_ns = col;
	return 0;
}

/* Every sample column to nc rows (nc >= cap). */
static int resize_samples(struct pv_builder *b, uint32_t nc)
{
	struct pv_samples *t = &b->p->samples;
	if (COL_GROW(t->stack, nc) || (t->time_ns && COL_GROW(t->time_ns, nc)) ||
	    (t->label_set && COL_GROW(t->label_set, nc)) ||
	    (t->event_delay_ns && COL_GROW(t->event_delay_ns, nc)) ||
	    (t->addr && COL_GROW(t->addr, nc)))
		goto oom;
	for (uint32_t m = 0; m < b->p->metrics.len; m++)
		if (t->weight[m] && COL_GROW(t->weight[m], nc))
			goto oom;
	t->cap = nc;
	return 0;
oom:
	b->status = PV_ENOMEM;
	return -1;
}

static int grow_samples(struct pv_builder *b)
{
	struct pv_samples *t = &b->p->samples;
	uint32_t nc = grow_cap(t->cap, (uint64_t)t->len + 1);
	if (!nc) {
		b->status = PV_ELIMIT;
		return -1;
	}
	return resize_samples(b, nc);
}

/* Starts a run when sample i is not of the previous sample's thread. */
static void add_run(struct pv_builder *b, pv_thread_ix th, uint32_t i)
{
	if (b->nr_runs && b->runs[b->nr_runs - 1].thread == th)
		return;
	if (b->nr_runs == b->runs_cap) {
		uint32_t nc = grow_cap(b->runs_cap, (uint64_t)b->nr_runs + 1);
		if (!nc || COL_GROW(b->runs, nc)) {
			b->status = PV_ENOMEM;
			return;
		}
		b->runs_cap = nc;
	}
	b->runs[b->nr_runs].thread = th;
	b->runs[b->nr_runs].begin = i;
	b->nr_runs++;
}

int builder_samples_reserve(struct pv_builder *b, uint64_t rows, bool exact)
{
	struct pv_samples *t = &b->p->samples;
	if (b->status)
		return b->status;
	if (rows <= t->cap)
		return 0;
	uint32_t nc = rows > PV_MAX_ROWS ? 0 : exact ? (uint32_t)rows : grow_cap(t->cap, rows);
	if (!nc) {
		b->status = PV_ELIMIT;
		return b->status;
	}
	/* the importer writes times itself: the column exists (dropped at the end if unused) */
	if (!resize_samples(b, nc))
		make_times(b);
	return b->status;
}

void builder_samples_room(struct pv_builder *b, uint64_t rows)
{
	struct pv_samples *t = &b->p->samples;
	if (b->status || rows <= t->cap || rows > PV_MAX_ROWS)
		return;
	/* resize_samples's error is sticky: here a failure only means growing as usual */
	if (!resize_samples(b, (uint32_t)rows)) {
		make_times(b);
		/* the room is filled from the start, sample by sample: in 2 MiB pages */
		pv_huge_hint(t->stack, (size_t)t->cap * sizeof(*t->stack));
		if (t->time_ns)
			pv_huge_hint(t->time_ns, (size_t)t->cap * sizeof(*t->time_ns));
	}
	if (b->status == PV_ENOMEM)
		b->status = 0;
}

void builder_samples_commit(struct pv_builder *b, pv_thread_ix th, uint32_t first, uint32_t n)
{
	struct pv_samples *t = &b->p->samples;
	if (b->status || n == 0)
		return;
	if (first < t->len || (uint64_t)first + n > t->cap) {
		b->status = PV_EINVAL;
		return;
	}
	uint32_t i = t->len;
	if (first != i) {
		memmove(t->stack + i, t->stack + first, (size_t)n * sizeof(*t->stack));
		if (t->time_ns)
			memmove(t->time_ns + i, t->time_ns + first,
				(size_t)n * sizeof(*t->time_ns));
	}
	if (t->label_set)
		memset(t->label_set + i, 0, (size_t)n * sizeof(*t->label_set));
	/* the importer that made the event delay column sets it */
	for (uint32_t k = 0; t->event_delay_ns && k < n; k++)
		t->event_delay_ns[i + k] = PV_TIME_NONE;
	for (uint32_t k = 0; t->addr && k < n; k++)
		t->addr[i + k] = PV_ADDR_NONE;
	for (uint32_t m = 0; m < b->p->metrics.len; m++)
		for (uint32_t k = 0; t->weight[m] && k < n; k++)
			t->weight[m][i + k] = 1;
	t->len += n;
	add_run(b, th, i);
}

int builder_samples_adopt(struct pv_builder *b, pv_thread_ix th, pv_stack_ix *stack,
			  int64_t *time_ns, uint32_t n)
{
	struct pv_samples *t = &b->p->samples;
	bool bare = !t->stack && !t->time_ns && !t->label_set && !t->event_delay_ns && !t->addr;
	for (uint32_t m = 0; m < b->p->metrics.len; m++)
		bare &= !t->weight[m];
	if (!b->status && n && bare) {
		t->stack = stack;
		t->time_ns = time_ns;
		t->cap = n;
		builder_samples_commit(b, th, 0, n);
		return b->status;
	}
	uint32_t first = t->len;
	if (n && !builder_samples_reserve(b, (uint64_t)first + n, false)) {
		memcpy(t->stack + first, stack, (size_t)n * sizeof(*stack));
		memcpy(t->time_ns + first, time_ns, (size_t)n * sizeof(*time_ns));
		builder_samples_commit(b, th, first, n);
	}
	pv_free(stack);
	pv_free(time_ns);
	return b->status;
}

int64_t *builder_samples_weight(struct pv_builder *b, pv_metric_ix m)
{
	struct pv_samples *t = &b->p->samples;
	if (b->status || m >= b->p->metrics.len)
		return NULL;
	if (!t->weight[m]) {
		int64_t *col = pv_malloc((size_t)(t->cap ? t->cap : 1) * sizeof(*col));
		if (!col) {
			b->status = PV_ENOMEM;
			return NULL;
		}
		pv_huge_hint(col, (size_t)t->cap * sizeof(*col));
		for (uint32_t j = 0; j < t->len; j++)
			col[j] = 1;
		t->weight[m] = col;
	}
	return t->weight[m];
}

/*
 * The optional sample column *col of elt-byte values, made when there is none (every sample so
 * far gets *none); NULL on error.
 */
static void *optional_sample_col(struct pv_builder *b, void **col, size_t elt, const void *none)
{
	struct pv_samples *t = &b->p->samples;
	if (b->status)
		return NULL;
	if (!*col) {
		char *c = pv_malloc((size_t)(t->cap ? t->cap : 1) * elt);
		if (!c) {
			b->status = PV_ENOMEM;
			return NULL;
		}
		/* filled sample by sample like the others: in 2 MiB pages when it is that large */
		pv_huge_hint(c, (size_t)t->cap * elt);
		for (uint32_t j = 0; j < t->len; j++)
			memcpy(c + (size_t)j * elt, none, elt);
		*col = c;
	}
	return *col;
}

int64_t *builder_samples_event_delay(struct pv_builder *b)
{
	static const int64_t none = PV_TIME_NONE;
	return optional_sample_col(b, (void **)&b->p->samples.event_delay_ns, sizeof(none), &none);
}

uint64_t *builder_samples_addr(struct pv_builder *b)
{
	static const uint64_t none = PV_ADDR_NONE;
	return optional_sample_col(b, (void **)&b->p->samples.addr, sizeof(none), &none);
}

void builder_sample(struct pv_builder *b, pv_thread_ix th, pv_stack_ix stack, int64_t time_ns,
		    const int64_t *weights)
{
	if (b->status)
		return;
	struct pv_samples *t = &b->p->samples;
	if (t->len == t->cap && grow_samples(b))
		return;
	uint32_t i = t->len;
	for (uint32_t m = 0; weights && m < b->p->metrics.len; m++) {
		if (t->weight[m]) {
			t->weight[m][i] = weights[m];
		} else if (weights[m] != 1) {
			/* first weight other than 1: materialise the column */
			int64_t *col = pv_malloc((size_t)t->cap * sizeof(*col));
			if (!col) {
				b->status = PV_ENOMEM;
				return;
			}
			for (uint32_t j = 0; j < i; j++)
				col[j] = 1;
			col[i] = weights[m];
			t->weight[m] = col;
		}
	}
	if (!weights) {
		for (uint32_t m = 0; m < b->p->metrics.len; m++)
			if (t->weight[m])
				t->weight[m][i] = 1;
	}
	t->stack[i] = stack;
	if (time_ns != PV_TIME_NONE && make_times(b))
		return;
	if (t->time_ns)
		t->time_ns[i] = time_ns;
	if (t->label_set)
		t->label_set[i] = 0; /* the importer that made the column sets it */
	if (t->event_delay_ns)
		t->event_delay_ns[i] = PV_TIME_NONE; /* likewise */
	if (t->addr)
		t->addr[i] = PV_ADDR_NONE; /* likewise */
	t->len++;
	add_run(b, th, i);
}

#define MARKER_COLS(t)                                                                   \
	COL(t->name), COL(t->category), COL(t->phase), COL(t->start_ns), COL(t->end_ns), \
	    COL(t->thread), COL(t->payload), COL(t->cause_stack), COL(t->cause_time_ns)

void builder_markers_reserve(struct pv_builder *b, uint32_t n)
{
	struct pv_raw_markers *t = &b->p->markers;
	uint64_t rows = (uint64_t)t->len + n;
	struct colspec cols[] = {MARKER_COLS(t)};
	if (b->status || rows <= t->cap || rows > PV_MAX_ROWS ||
	    resize_table(b, &t->cap, (uint32_t)rows, cols, sizeof(cols) / sizeof(cols[0])))
		return;
	/* filled row by row (600,000 markers: 27 MB): in 2 MiB pages, not 6,600 faults of 4 KiB */
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		pv_huge_hint(*cols[i].col, (size_t)t->cap * cols[i].elt);
		pv_populate(*cols[i].col, (size_t)t->cap * cols[i].elt);
	}
}

void builder_marker(struct pv_builder *b, const struct raw_marker *m)
{
	struct pv_raw_markers *t = &b->p->markers;
	if (GROW(b, t, MARKER_COLS(t)))
		return;
	uint32_t r = t->len++;
	t->name[r] = m->name;
	t->category[r] = m->category;
	t->phase[r] = (uint8_t)m->phase;
	t->start_ns[r] = m->start_ns;
	t->end_ns[r] = m->end_ns;
	t->thread[r] = m->thread;
	t->payload[r] = m->payload;
	t->cause_stack[r] = m->cause_stack;
	t->cause_time_ns[r] = m->cause_time_ns;
}

void builder_trace(struct pv_builder *b, pv_thread_ix t, int64_t time_ns, pv_stack_ix stack)
{
	struct pv_trace_records *r = &b->p->trace;
	if (GROW(b, r, COL(r->thread), COL(r->time_ns), COL(r->stack)))
		return;
	r->thread[r->len] = t;
	r->time_ns[r->len] = time_ns;
	r->stack[r->len] = stack;
	r->len++;
}

void builder_lossy(struct pv_builder *b, uint64_t count, const char *fmt, ...)
{
	if (b->status || count == 0)
		return;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	pv_str_ix s = builder_str(b, buf, (size_t)n);
	struct pv_diags *t = &b->p->diags;
	for (uint32_t i = 0; i < t->len; i++) {
		if (t->msg[i] == s) {
			t->count[i] += count;
			return;
		}
	}
	if (GROW(b, t, COL(t->msg), COL(t->count)))
		return;
	t->msg[t->len] = s;
	t->count[t->len] = count;
	t->len++;
}

/* Values past the model's ranges brought inside (ranges.c), each kind a lossy line. */
static void saturate(struct pv_builder *b)
{
	struct pv_lossy notes = {0};
	pv__ranges_saturate(b->p, &notes);
	for (uint32_t i = 0; i < notes.len; i++)
		builder_lossy(b, notes.item[i].count, "%s", notes.item[i].msg);
}

/* ---- labels: interned rows and sets ---- */

static uint64_t label_hash(pv_str_ix key, pv_str_ix str, int64_t num, pv_str_ix unit)
{
	uint64_t v[4] = {key, str, (uint64_t)num, unit};
	return hash_bytes(v, sizeof(v));
}

/* (linear probing on the 64-bit hash in a u64map keyed by hash + k) */
uint32_t builder_label(struct pv_builder *b, pv_str_ix key, pv_str_ix str, int64_t num,
		       pv_str_ix unit)
{
	struct pv_labels *l = &b->p->labels;
	uint64_t h = label_hash(key, str, num, unit);
	for (uint64_t k = 0;; k++) {
		uint32_t r = u64map_get(&b->label_map, h + k);
		if (r == UINT32_MAX)
			break;
		if (l->key[r] == key && l->str[r] == str && l->num[r] == num && l->unit[r] == unit)
			return r;
	}
	if (l->len == l->cap) {
		uint32_t nc = grow_cap(l->cap, (uint64_t)l->len + 1);
		if (!nc || COL_GROW(l->key, nc) || COL_GROW(l->str, nc) || COL_GROW(l->num, nc) ||
		    COL_GROW(l->unit, nc)) {
			b->status = PV_ENOMEM;
			return PV_NONE;
		}
		l->cap = nc;
	}
	uint32_t r = l->len++;
	l->key[r] = key;
	l->str[r] = str;
	l->num[r] = num;
	l->unit[r] = unit;
	uint64_t k = 0;
	while (u64map_get(&b->label_map, h + k) != UINT32_MAX)
		k++;
	if (u64map_put(&b->label_map, h + k, r)) {
		b->status = PV_ENOMEM;
		return PV_NONE;
	}
	return r;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int ensure_sets(struct pv_builder *b)
{
	struct pv_label_sets *t = &b->p->label_sets;
	if (t->len)
		return 0;
	/* set 0: the empty set */
	if (COL_GROW(t->first, 16) || COL_GROW(t->count, 16)) {
		b->status = PV_ENOMEM;
		return -1;
	}
	t->cap = 16;
	t->first[0] = 0;
	t->count[0] = 0;
	t->len = 1;
	return 0;
}

uint32_t builder_label_set(struct pv_builder *b, uint32_t *items, uint32_t n)
{
	if (n == 0)
		return 0;
	pv_sort(items, n, sizeof(*items), cmp_u32);
	uint32_t w = 1;
	for (uint32_t i = 1; i < n; i++)
		if (items[i] != items[w - 1])
			items[w++] = items[i];
	n = w;
	if (ensure_sets(b))
		return 0;
	struct pv_label_sets *t = &b->p->label_sets;
	uint64_t h = hash_bytes(items, (size_t)n * sizeof(*items));
	for (uint64_t k = 0;; k++) {
		uint32_t r = u64map_get(&b->set_map, h + k);
		if (r == UINT32_MAX)
			break;
		if (t->count[r] == n &&
		    !memcmp(t->items + t->first[r], items, (size_t)n * sizeof(*items)))
			return r;
	}
	if (t->len == t->cap) {
		uint32_t nc = grow_cap(t->cap, (uint64_t)t->len + 1);
		if (!nc || COL_GROW(t->first, nc) || COL_GROW(t->count, nc)) {
			b->status = PV_ENOMEM;
			return 0;
		}
		t->cap = nc;
	}
	if ((uint64_t)t->nr_items + n > t->items_cap) {
		uint32_t nc = grow_cap(t->items_cap, (uint64_t)t->nr_items + n);
		if (!nc || COL_GROW(t->items, nc)) {
			b->status = PV_ENOMEM;
			return 0;
		}
		t->items_cap = nc;
	}
	uint32_t r = t->len++;
	t->first[r] = t->nr_items;
	t->count[r] = n;
	memcpy(t->items + t->nr_items, items, (size_t)n * sizeof(*items));
	t->nr_items += n;
	uint64_t k = 0;
	while (u64map_get(&b->set_map, h + k) != UINT32_MAX)
		k++;
	if (u64map_put(&b->set_map, h + k, r)) {
		b->status = PV_ENOMEM;
		return 0;
	}
	return r;
}

/* ---- finish ---- */

/* The regrouping of the sample columns: where each thread's rows go, and a spare buffer. */
struct regroup {
	uint32_t *dst; /* [thread]: its next row in the new order */
	uint32_t cap;  /* rows of every column after it */
	char *spare;   /* a column's old buffer, reused for the next one (its pages are mapped) */
	size_t spare_bytes;
};

/*
 * One optional sample column (NULL: none) of elt-byte rows regrouped by thread through the runs,
 * into the spare buffer (a fresh one when it is too small); the column's old buffer becomes the
 * spare. Columns go widest first, so one fresh buffer serves them all: its pages are the only
 * ones the kernel clears (perf.data of 1 GB: a quarter of the time went to fresh columns).
 * Returns 0 or PV_ENOMEM.
 */
static int regroup_col(struct pv_builder *b, struct regroup *g, size_t elt, void **col)
{
	const struct pv_profile *p = b->p;
	uint32_t n = p->samples.len;
	char *old = *col;
	if (!old)
		return 0;
	size_t need = (size_t)g->cap * elt;
	char *nc = g->spare;
	if (!nc || g->spare_bytes < need) {
		nc = pv_malloc(need);
		if (!nc)
			return PV_ENOMEM;
		pv_free(g->spare);
	}
	for (uint32_t t = 0; t < p->threads.len; t++)
		g->dst[t] = p->threads.sample_begin[t];
	for (uint32_t r = 0; r < b->nr_runs; r++) {
		uint32_t end = r + 1 < b->nr_runs ? b->runs[r + 1].begin : n;
		uint32_t len = end - b->runs[r].begin;
		memcpy(nc + (size_t)g->dst[b->runs[r].thread] * elt,
		       old + (size_t)b->runs[r].begin * elt, (size_t)len * elt);
		g->dst[b->runs[r].thread] += len;
	}
	g->spare = old; /* it holds at least n rows of elt bytes */
	g->spare_bytes = (size_t)n * elt;
	*col = nc;
	return 0;
}

/* Stable counting sort of the samples by thread, through the list of runs. */
static int group_samples(struct pv_builder *b)
{
	struct pv_profile *p = b->p;
	struct pv_threads *th = &p->threads;
	uint32_t nt = th->len;
	int sorted = 1;
	for (uint32_t t = 0; t < nt; t++) {
		th->sample_begin[t] = 0;
		th->sample_end[t] = 0;
	}
	/* count samples per thread and check whether each thread is one run */
	uint32_t *seen = pv_calloc(nt ? nt : 1, sizeof(*seen));
	if (!seen)
		return PV_ENOMEM;
	for (uint32_t r = 0; r < b->nr_runs; r++) {
		uint32_t end = r + 1 < b->nr_runs ? b->runs[r + 1].begin : p->samples.len;
		pv_thread_ix t = b->runs[r].thread;
		if (t >= nt) {
			pv_free(seen);
			return PV_EINVAL;
		}
		if (seen[t]++)
			sorted = 0;
		th->sample_end[t] += end - b->runs[r].begin; /* count, for now */
	}
	pv_free(seen);
	if (sorted) {
		for (uint32_t r = 0; r < b->nr_runs; r++) {
			pv_thread_ix t = b->runs[r].thread;
			uint32_t n = th->sample_end[t];
			th->sample_begin[t] = b->runs[r].begin;
			th->sample_end[t] = b->runs[r].begin + n;
		}
		for (uint32_t t = 0; t < nt; t++)
			if (th->sample_end[t] == 0)
				th->sample_begin[t] = th->sample_end[t] = 0;
		return 0;
	}
	/* destination offset per thread, in thread order */
	uint32_t *dst = pv_malloc((size_t)(nt ? nt : 1) * sizeof(*dst));
	if (!dst)
		return PV_ENOMEM;
	uint32_t off = 0;
	for (uint32_t t = 0; t < nt; t++) {
		uint32_t n = th->sample_end[t];
		th->sample_begin[t] = off;
		th->sample_end[t] = off + n;
		dst[t] = off;
		off += n;
	}
	/* every column moves to exactly len rows, the 8-byte ones first (a failure leaves a
	 * profile that is freed) */
	struct pv_samples *sa = &p->samples;
	struct regroup g = {.dst = dst, .cap = sa->len ? sa->len : 1};
	int rc = regroup_col(b, &g, sizeof(*sa->time_ns), (void **)&sa->time_ns);
	for (uint32_t m = 0; !rc && m < p->metrics.len; m++)
		rc = regroup_col(b, &g, sizeof(int64_t), (void **)&sa->weight[m]);
	if (!rc)
		rc = regroup_col(b, &g, sizeof(*sa->event_delay_ns), (void **)&sa->event_delay_ns);
	if (!rc)
		rc = regroup_col(b, &g, sizeof(*sa->addr), (void **)&sa->addr);
	if (!rc)
		rc = regroup_col(b, &g, sizeof(*sa->stack), (void **)&sa->stack);
	if (!rc)
		rc = regroup_col(b, &g, sizeof(*sa->label_set), (void **)&sa->label_set);
	if (!rc)
		sa->cap = g.cap;
	pv_free(g.spare);
	pv_free(dst);
	return rc;
}

struct trace_key {
	pv_thread_ix thread;
	uint32_t ix;
	int64_t time;
};

static int trace_cmp(const void *x, const void *y)
{
	const struct trace_key *a = x, *b = y;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->ix < b->ix ? -1 : a->ix > b->ix;
}

/* The trace records by thread, then time, stably (most importers append them so already). */
static int sort_trace(struct pv_trace_records *r)
{
	bool sorted = true;
	for (uint32_t i = 1; i < r->len && sorted; i++)
		sorted = r->thread[i] > r->thread[i - 1] ||
			 (r->thread[i] == r->thread[i - 1] && r->time_ns[i] >= r->time_ns[i - 1]);
	if (sorted)
		return 0;
	struct trace_key *k = pv_malloc((size_t)r->len * sizeof(*k));
	pv_stack_ix *st = pv_malloc((size_t)r->len * sizeof(*st));
	if (!k || !st) {
		pv_free(k);
		pv_free(st);
		return PV_ENOMEM;
	}
	for (uint32_t i = 0; i < r->len; i++)
		k[i] = (struct trace_key){r->thread[i], i, r->time_ns[i]};
	pv_sort(k, r->len, sizeof(*k), trace_cmp);
	for (uint32_t i = 0; i < r->len; i++) {
		r->thread[i] = k[i].thread;
		r->time_ns[i] = k[i].time;
		st[i] = r->stack[k[i].ix];
	}
	pv_free(k);
	pv_free(r->stack);
	r->stack = st;
	return 0;
}

/* A time column of samples none of which has a time (made by a reserve) goes: NULL says it. */
static void drop_unused_times(struct pv_samples *t)
{
	for (uint32_t i = 0; t->time_ns && i < t->len; i++)
		if (t->time_ns[i] != PV_TIME_NONE)
			return;
	pv_free(t->time_ns);
	t->time_ns = NULL;
}

int builder_finish(struct pv_builder *b, struct pv_profile **out)
{
	if (!b->status && b->p->metrics.len == 0)
		builder_metric(b, builder_cstr(b, "samples"), PV_UNIT_COUNT);
	if (!b->status)
		b->status = group_samples(b);
	if (!b->status)
		b->status = sort_trace(&b->p->trace);
	if (!b->status)
		drop_unused_times(&b->p->samples);
	if (!b->status)
		saturate(b);
	int st = b->status;
	release_maps(b);
	if (st) {
		pv_profile_free(b->p);
		b->p = NULL;
		return st;
	}
	*out = b->p;
	b->p = NULL;
	return 0;
}

/* ---- frames appended without a lookup ---- */

pv_frame_ix builder_frame_append(struct pv_builder *b, const struct frame_key *k)
{
	if (b->status)
		return PV_NONE;
	if (!b->frames_unmapped) {
		ixmap_release(&b->frame_map);
		b->frames_unmapped = true;
	}
	/* builder_frame with the map empty: no probe, no insertion */
	b->frame_appending = true;
	pv_frame_ix r = builder_frame(b, k);
	b->frame_appending = false;
	return r;
}

/* The frame map again, from the frame table (every frame but the bare ones). */
static int frame_map_rebuild(struct pv_builder *b)
{
	const struct pv_frames *t = &b->p->frames;
	b->frames_unmapped = false;
	for (uint32_t i = 0; i < t->len; i++) {
		struct frame_key k = {
		    .func = t->func[i],
		    .line = pv_frame_line(b->p, i),
		    .column = pv_frame_column(b->p, i),
		    .addr = pv_frame_addr(b->p, i),
		    .inline_depth = pv_frame_inline_depth(b->p, i),
		    .subcategory = pv_frame_subcategory(b->p, i),
		    .category = pv_frame_category(b->p, i),
		    .kind = pv_frame_kind(b->p, i),
		    .source1 = pv_frame_source(b->p, i) + 1,
		};
		if (!frame_bare(&k) && ixmap_insert(&b->frame_map, 0, frame_hash(&k), i))
			return b->status = PV_ENOMEM;
	}
	return 0;
}

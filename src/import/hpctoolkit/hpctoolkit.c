/*
 * hpctoolkit.c - the rules both HPCToolkit readers share (hpctoolkit.h, doc/hpctoolkit.md).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/text.h"
#include "import/hpctoolkit/hpctoolkit.h"
#include "import/importer.h"
#include "import/symbols.h"
#include "view/internal.h"

/* ---- binary files ---- */

int hpc_fail(const struct hpc_bin *f, uint64_t at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = name_vfail_byte(f->name, f->err, PV_EPARSE, at, fmt, ap);
	va_end(ap);
	return rc;
}

bool hpc_in(const struct hpc_bin *f, uint64_t at, uint64_t n, const char *what)
{
	if (at <= f->len && n <= f->len - at)
		return true;
	hpc_fail(f, at, "%s (%llu bytes) runs past the end of the file (%llu bytes)", what,
		 (unsigned long long)n, (unsigned long long)f->len);
	return false;
}

const char *hpc_cstr(const struct hpc_bin *f, uint64_t at, const char *what)
{
	if (at >= f->len) {
		hpc_fail(f, at, "%s points past the end of the file (%llu bytes)", what,
			 (unsigned long long)f->len);
		return NULL;
	}
	const char *s = (const char *)f->p + at;
	if (!memchr(s, 0, f->len - at)) {
		hpc_fail(f, at, "%s is not NUL-terminated before the end of the file", what);
		return NULL;
	}
	return s;
}

double hpc_f64(uint64_t bits)
{
	double d;
	memcpy(&d, &bits, sizeof(d));
	return d;
}

/* ---- the calling context tree ---- */

static int cct_grow_to(struct hpc_cct *t, uint32_t nc)
{
	if (!nc || COL_GROW(t->parent, nc) || COL_GROW(t->kind, nc) || COL_GROW(t->func, nc) ||
	    COL_GROW(t->source, nc) || COL_GROW(t->line, nc) || COL_GROW(t->addr, nc))
		return PV_ENOMEM;
	t->cap = nc;
	return 0;
}

int hpc_cct_grow(struct hpc_cct *t)
{
	return cct_grow_to(t, grow_cap(t->cap, (uint64_t)t->len + 1));
}

int hpc_cct_reserve(struct hpc_cct *t, uint32_t n)
{
	return n > t->cap ? cct_grow_to(t, n) : 0;
}

int hpc_cct_init(struct hpc_cct *t)
{
	memset(t, 0, sizeof(*t));
	if (hpc_cct_grow(t))
		return PV_ENOMEM;
	t->len = 1;
	t->parent[0] = PV_NONE;
	t->kind[0] = HPC_ROOT;
	t->func[0] = t->source[0] = PV_NONE;
	t->line[0] = 0;
	t->addr[0] = PV_ADDR_NONE;
	return 0;
}

void hpc_cct_release(struct hpc_cct *t)
{
	pv_free(t->parent);
	pv_free(t->kind);
	pv_free(t->func);
	pv_free(t->source);
	pv_free(t->line);
	pv_free(t->addr);
	pv_free(t->stack);
	pv_free(t->self);
	pv_free(t->row);
	pv_free(t->touched);
	memset(t, 0, sizeof(*t));
}

/*
 * The nodes' stacks, deduplicated here rather than in the builder's map of every stack (a probe
 * and a placement in a table of all the stacks, a cache miss each): two nodes can only have the
 * same stack below the same stack, so each stack keeps its own children as they are made, a
 * 64-bit filter of their frames, the last one and (prev) the one before each, walked only when
 * the filter says the frame may be among them; past KIDS_LIST children, a map of them.
 */
#define KIDS_LIST 16

struct cct_kids {
	uint64_t filter;
	uint32_t last; /* row + 1, 0: none */
	uint32_t n;
};

struct cct_dedup {
	struct pv_builder *b;
	bool own; /* the builder had no stacks before: else builder_stack does it all */
	struct cct_kids *kids; /* [stack + 1], the roots' (PV_NONE) at 0 */
	uint32_t *prev;	       /* [stack]: the sibling made before it, row + 1 */
	struct u64map many;    /* (stack + 1) << 32 | frame -> row, stacks of many children */
};

static int kids_map(struct cct_dedup *d, uint32_t below1, uint32_t r1)
{
	const pv_frame_ix *frame = d->b->p->stacks.frame;
	for (; r1; r1 = d->prev[r1 - 1])
		if (u64map_put(&d->many, (uint64_t)below1 << 32 | frame[r1 - 1], r1 - 1))
			return PV_ENOMEM;
	return 0;
}

static pv_stack_ix cct_stack(struct cct_dedup *d, pv_stack_ix below, pv_frame_ix frame)
{
	if (!d->own)
		return builder_stack(d->b, below, frame);
	if (frame == PV_NONE)
		return PV_NONE;
	uint32_t below1 = below + 1; /* PV_NONE wraps to 0 */
	struct cct_kids *k = &d->kids[below1];
	uint64_t bit = (uint64_t)1 << (((uint64_t)frame * 0x9e3779b97f4a7c15ULL) >> 58);
	if (k->filter & bit) {
		if (k->n > KIDS_LIST) {
			uint32_t r = u64map_get(&d->many, (uint64_t)below1 << 32 | frame);
			if (r != UINT32_MAX)
				return r;
		} else {
			const pv_frame_ix *f = d->b->p->stacks.frame;
			for (uint32_t r1 = k->last; r1; r1 = d->prev[r1 - 1])
				if (f[r1 - 1] == frame)
					return r1 - 1;
		}
	}
	pv_stack_ix r = builder_stack_append(d->b, below, frame);
	if (r == PV_NONE)
		return r;
	d->prev[r] = k->last;
	k->last = r + 1;
	k->filter |= bit;
	if (++k->n > KIDS_LIST) {
		/* the map from now on: the first time with the children before */
		uint64_t key = (uint64_t)below1 << 32 | frame;
		if (k->n == KIDS_LIST + 1 ? kids_map(d, below1, k->last)
					  : u64map_put(&d->many, key, r)) {
			d->b->status = PV_ENOMEM;
			return PV_NONE;
		}
	}
	return r;
}

/*
 * The frames of the tree's loops, lines and inlined procedures, deduplicated here rather than in
 * the builder's frame map, where a key seen before is compared column by column in the frame
 * table (a cache miss each): this map (an ixmap: a slot is a 32-bit hash and a row) indexes a
 * list of the keys themselves, 16 bytes each, so a key seen before costs a probe and one read of
 * its key, and a new one is appended without a lookup (builder_frame_append). The rarer fields
 * (a frame's own file, an instruction's address) are in a second list, made with the first key
 * that has them.
 */
struct seen_key {
	uint32_t func, line;
	uint32_t meta; /* inline depth | kind << 16 | 1 << 24 when the key has an address or file */
	pv_frame_ix frame;
};

struct seen_ext {
	uint64_t addr;
	uint32_t source1;
};

struct seen_frames {
	struct ixmap map;	     /* -> key */
	uint32_t n, cap;	     /* keys, room for them (as many as the tree has nodes) */
	struct seen_key *key;	     /* [cap] */
	struct seen_ext *ext;	     /* [cap], made with the first key that has them */
	const struct seen_key *want; /* the key looked up, for seen_eq */
	const struct seen_ext *want_ext;
};

static int seen_init(struct seen_frames *fs, uint32_t keys)
{
	memset(fs, 0, sizeof(*fs));
	fs->cap = keys;
	fs->key = pv_malloc(((size_t)keys + 1) * sizeof(*fs->key));
	return fs->key ? 0 : PV_ENOMEM;
}

static void seen_release(struct seen_frames *fs)
{
	ixmap_release(&fs->map);
	pv_free(fs->key);
	pv_free(fs->ext);
}

static bool seen_eq(const void *ctx, uint32_t row)
{
	const struct seen_frames *fs = ctx;
	const struct seen_key *s = &fs->key[row], *k = fs->want;
	return s->func == k->func && s->line == k->line && s->meta == k->meta &&
	       (!(k->meta >> 24) || (fs->ext[row].addr == fs->want_ext->addr &&
				     fs->ext[row].source1 == fs->want_ext->source1));
}

static uint32_t seen_meta(const struct frame_key *k)
{
	bool ext = k->addr != PV_ADDR_NONE || k->source1;
	return k->inline_depth | (uint32_t)k->kind << 16 | (uint32_t)ext << 24;
}

static uint64_t seen_hash(const struct frame_key *k)
{
	uint32_t meta = seen_meta(k);
	uint64_t h = hash_u64(((uint64_t)k->func << 32 | k->line) ^ (uint64_t)meta << 40);
	return meta >> 24 ? h ^ hash_u64(k->addr ^ (uint64_t)k->source1 << 48) : h;
}

/* The slot a key's probe starts at, for a prefetch ahead of the lookup. */
static const void *seen_slot(const struct seen_frames *fs, uint64_t h)
{
	return fs->map.slot ? &fs->map.slot[(uint32_t)h & fs->map.mask] : NULL;
}

static pv_frame_ix seen_frame(struct seen_frames *fs, struct pv_builder *b,
			      const struct frame_key *k, uint64_t h)
{
	struct seen_key key = {k->func, k->line, seen_meta(k), 0};
	struct seen_ext x = {k->addr, k->source1};
	bool ext = key.meta >> 24;
	fs->want = &key;
	fs->want_ext = &x;
	uint32_t slot, r = ixmap_find(&fs->map, h, seen_eq, fs, &slot);
	if (r != UINT32_MAX)
		return fs->key[r].frame;
	if (fs->n == fs->cap ||
	    (ext && !fs->ext && !(fs->ext = pv_malloc(((size_t)fs->cap + 1) * sizeof(*fs->ext)))))
		return builder_frame(b, k); /* (no room: not with a key per node at most) */
	key.frame = builder_frame_append(b, k);
	if (key.frame == PV_NONE)
		return PV_NONE;
	fs->key[fs->n] = key;
	if (ext)
		fs->ext[fs->n] = x;
	if (ixmap_insert(&fs->map, slot, h, fs->n++)) {
		b->status = PV_ENOMEM;
		return PV_NONE;
	}
	return key.frame;
}

/*
 * Node i's frame key, from its enclosing procedure fn[i] and inline depth depth[i]; whether the
 * frame is bare (a function alone: builder_frame finds it by index, no hashing).
 */
static bool node_key(const struct pv_builder *b, const struct hpc_cct *t, uint32_t i,
		     const pv_func_ix *fn, const uint16_t *depth, struct frame_key *k)
{
	*k = (struct frame_key){
	    .func = fn[i], .inline_depth = depth[i], .addr = PV_ADDR_NONE, .category = PV_NONE};
	if (t->kind[i] == HPC_FUNC || t->kind[i] == HPC_INLINE)
		return !k->inline_depth && k->func != PV_NONE;
	uint32_t p = t->parent[i];
	k->line = t->line[i];
	k->addr = t->addr[i];
	pv_source_ix own = t->source[i];
	if (own != PV_NONE && k->func < b->p->funcs.len && pv_func_source(b->p, k->func) != own)
		k->source1 = own + 1;
	if (t->kind[i] == HPC_LOOP)
		k->kind = PV_FRAME_LOOP;
	else if (p == PV_NONE || (t->kind[p] != HPC_FUNC && t->kind[p] != HPC_INLINE))
		k->kind = PV_FRAME_STATEMENT;
	/* else the procedure's frame at this line */
	return !k->line && !k->inline_depth && !k->kind && k->addr == PV_ADDR_NONE && !k->source1 &&
	       k->func != PV_NONE;
}

/*
 * Each node's frames, parents first. A procedure frame (or inlined procedure) is a code frame of
 * its function; a line directly in it is the same frame at that line (a sibling stack of the
 * procedure's own, as a sampled stack names a function at its line); loops are loop frames and
 * lines inside loops statement frames, both of the enclosing procedure, below it. So at
 * function granularity a path reads procedure > procedure as in every other format, and lines
 * and loops are there when asked for (doc/hpctoolkit.md).
 *   t->stack[n]: the stack n's children go below (its own);
 *   fn[n], depth[n]: the enclosing procedure and its inline depth.
 * A line in a procedure p goes below the stack p itself goes below, its parent's.
 */
int hpc_cct_stacks(struct pv_builder *b, struct hpc_cct *t, pv_func_ix unknown)
{
	uint32_t n = t->len;
	struct cct_dedup d = {.b = b, .own = b->p->stacks.len == 0};
	pv_func_ix *fn = pv_malloc((size_t)n * sizeof(*fn));
	uint16_t *depth = pv_malloc((size_t)n * sizeof(*depth));
	pv_free(t->stack);
	t->stack = pv_malloc((size_t)n * sizeof(*t->stack));
	if (d.own) {
		d.kids = pv_calloc((size_t)n + 1, sizeof(*d.kids));
		d.prev = pv_malloc((size_t)n * sizeof(*d.prev));
	}
	/* the frames of loops, lines and inlined code by the map above when the builder has no
	 * frame yet (else builder_frame does it all) */
	struct seen_frames fs = {0};
	bool own_frames = b->p->frames.len == 0 && !seen_init(&fs, n);
	int rc = 0;
	if (!fn || !depth || !t->stack || (d.own && (!d.kids || !d.prev))) {
		rc = PV_ENOMEM;
		goto out;
	}
	pv_stack_ix *st = t->stack;
	/* each node's procedure and inline depth */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = t->parent[i];
		bool proc = t->kind[i] == HPC_FUNC || t->kind[i] == HPC_INLINE;
		fn[i] = proc ? t->func[i] : p == PV_NONE ? unknown : fn[p];
		uint32_t dp = t->kind[i] == HPC_FUNC || p == PV_NONE ? 0
			      : t->kind[i] == HPC_INLINE	     ? depth[p] + 1u
								     : depth[p];
		depth[i] = dp > UINT16_MAX ? UINT16_MAX : (uint16_t)dp;
	}
	/*
	 * Each node's frame (in st[i] for now), in node order as before. The key of the node AHEAD
	 * nodes on is made first and its slot in the map prefetched, so that cache miss overlaps
	 * the lookups in between; the keys wait in a ring.
	 */
	builder_frames_reserve(b, n);
	enum { AHEAD = 8, RING = 16 };
	struct ahead {
		struct frame_key k;
		uint64_t h;
		bool bare;
	} ring[RING];
	for (uint64_t j = 0; j < (uint64_t)n + AHEAD && !b->status; j++) {
		if (j < n && t->kind[j] != HPC_ROOT) {
			struct ahead *a = &ring[j % RING];
			a->bare = node_key(b, t, (uint32_t)j, fn, depth, &a->k);
			if (own_frames && !a->bare) {
				a->h = seen_hash(&a->k);
				__builtin_prefetch(seen_slot(&fs, a->h));
			}
		}
		if (j < AHEAD)
			continue;
		uint32_t i = (uint32_t)(j - AHEAD);
		const struct ahead *a = &ring[i % RING];
		st[i] = t->kind[i] == HPC_ROOT	 ? PV_NONE
			: own_frames && !a->bare ? seen_frame(&fs, b, &a->k, a->h)
						 : builder_frame(b, &a->k);
	}
	/* then the stacks, parents first: a line right in a procedure is a sibling of it */
	builder_stacks_reserve(b, n);
	for (uint32_t i = 0; i < n && !b->status; i++) {
		uint32_t p = t->parent[i];
		if (t->kind[i] == HPC_ROOT) {
			st[i] = PV_NONE;
			continue;
		}
		pv_stack_ix below = p == PV_NONE ? PV_NONE : st[p];
		if (t->kind[i] == HPC_LINE && p != PV_NONE &&
		    (t->kind[p] == HPC_FUNC || t->kind[p] == HPC_INLINE))
			below = t->parent[p] == PV_NONE ? PV_NONE : st[t->parent[p]];
		st[i] = cct_stack(&d, below, st[i]);
	}
	rc = b->status;
out:
	pv_free(fn);
	pv_free(depth);
	pv_free(d.kids);
	pv_free(d.prev);
	u64map_release(&d.many);
	seen_release(&fs);
	return rc;
}

int hpc_acc_begin(struct hpc_cct *t, uint32_t nm)
{
	size_t n = t->len ? t->len : 1;
	pv_free(t->self);
	pv_free(t->row);
	pv_free(t->touched);
	/* rows are cleared as they are taken: the pages of rows never used are never touched */
	t->self = pv_malloc(n * (nm ? nm : 1) * sizeof(int64_t));
	t->row = pv_calloc(n, sizeof(uint32_t));
	t->touched = pv_malloc(n * sizeof(uint32_t));
	t->nr_touched = 0;
	t->nm = nm;
	t->root_value = false;
	return t->self && t->row && t->touched ? 0 : PV_ENOMEM;
}

/*
 * The samples are written in place (builder_samples_reserve, _commit), in the order the nodes
 * were touched: the rows with an own cost are moved to the front, their stacks set, and their
 * weights copied column by column after the commit. A weight column is made only when a weight
 * is not 1, as builder_sample would.
 */
void hpc_acc_flush(struct pv_builder *b, struct hpc_cct *t, pv_thread_ix th)
{
	uint32_t nm = t->nm, kept = 0;
	struct pv_samples *s = &b->p->samples;
	uint32_t first = s->len;
	bool room = !builder_samples_reserve(b, (uint64_t)first + t->nr_touched, false);
	for (uint32_t i = 0; i < t->nr_touched; i++) {
		uint32_t node = t->touched[i];
		if (i + 8 < t->nr_touched) /* the nodes are all over the tree: a miss each */
			__builtin_prefetch(&t->stack[t->touched[i + 8]]);
		int64_t *w = t->self + (size_t)i * nm;
		bool any = false, neg = false;
		for (uint32_t m = 0; m < nm; m++) {
			any |= w[m] != 0;
			neg |= w[m] < 0;
		}
		t->row[node] = 0;
		if (!any || (node == 0 && !t->root_value))
			continue;
		t->negative += neg;
		if (neg && t->clamp) {
			any = false;
			for (uint32_t m = 0; m < nm; m++) {
				if (w[m] < 0)
					w[m] = 0;
				any |= w[m] != 0;
			}
			if (!any)
				continue;
		}
		if (room) {
			s->stack[first + kept] = node ? t->stack[node] : PV_NONE;
			s->time_ns[first + kept] = PV_TIME_NONE;
		}
		if (kept != i)
			memcpy(t->self + (size_t)kept * nm, w, (size_t)nm * sizeof(*w));
		kept++;
	}
	t->nr_touched = 0;
	t->root_value = false;
	if (!room)
		return;
	builder_samples_commit(b, th, first, kept);
	for (uint32_t m = 0; m < nm && m < b->p->metrics.len && !b->status; m++) {
		int64_t *col = s->weight[m];
		for (uint32_t k = 0; !col && k < kept; k++)
			if (t->self[(size_t)k * nm + m] != 1 &&
			    !(col = builder_samples_weight(b, m)))
				return;
		for (uint32_t k = 0; col && k < kept; k++)
			col[first + k] = t->self[(size_t)k * nm + m];
	}
}

/* ---- metrics and names ---- */

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

enum pv_unit hpc_metric_unit(const char *name, double *scale)
{
	*scale = 1;
	if (ends_with(name, "(sec)") || ends_with(name, "(s)") || ends_with(name, "(seconds)")) {
		*scale = 1e9;
		return PV_UNIT_NS;
	}
	if (ends_with(name, "(ms)")) {
		*scale = 1e6;
		return PV_UNIT_NS;
	}
	if (ends_with(name, "(us)")) {
		*scale = 1e3;
		return PV_UNIT_NS;
	}
	if (ends_with(name, "(ns)"))
		return PV_UNIT_NS;
	if (ends_with(name, "(B)") || ends_with(name, "(bytes)"))
		return PV_UNIT_BYTES;
	if (strcasestr(name, "cycles"))
		return PV_UNIT_CYCLES;
	if (strncasecmp(name, "instructions", 12) == 0 || strcasestr(name, "INST_RETIRED") ||
	    strcasestr(name, "TOT_INS"))
		return PV_UNIT_INSTRUCTIONS;
	return PV_UNIT_COUNT;
}

/*
 * text with its references by name: each $N grows to ${NAME} (@N to @{NAME}); *out (to free) or
 * NULL when out of memory. *why says why it cannot be (bad: the reference at fault).
 */
static char *refs_by_name(const char *text, const char *(*ref)(void *ctx, char sigil, uint32_t id),
			  void *ctx, const char **why, char *bad, size_t nbad)
{
	size_t cap = strlen(text) + 1, len = 0;
	char *out = pv_malloc(cap);
	*why = NULL;
	for (const char *s = text; out && *s && !*why;) {
		const char *mn = NULL;
		char sigil = *s;
		if ((sigil == '$' || sigil == '@' || sigil == '#') && text_is_digit(s[1])) {
			char *end;
			unsigned long id = strtoul(s + 1, &end, 10);
			mn = id <= UINT32_MAX ? ref(ctx, sigil, (uint32_t)id) : NULL;
			snprintf(bad, nbad, "%.*s", (int)(end - s < 20 ? end - s : 20), s);
			if (!mn)
				*why = "names no metric of the database profview shows";
			else if (strchr(mn, '}'))
				*why = "names a metric whose name has a '}'";
			s = end;
		}
		size_t add = mn ? strlen(mn) + 3 : 1;
		if (len + add + 1 > cap) {
			cap = (len + add + 1) * 2;
			char *g = pv_realloc(out, cap);
			if (!g) {
				pv_free(out);
				return NULL;
			}
			out = g;
		}
		if (mn)
			len += (size_t)snprintf(out + len, cap - len, "%c{%s}",
						sigil == '@' ? '@' : '$', mn);
		else if (!*why)
			out[len++] = *s++;
	}
	if (out)
		out[len] = 0;
	return out;
}

int hpc_formula(struct pv_builder *b, const struct hpc_formula_def *d,
		const char *(*ref)(void *ctx, char sigil, uint32_t id), void *ctx)
{
	const char *name = d->name;
	if (pv_metric_find(b->p, name) != PV_NONE) {
		builder_lossy(b, 1,
			      "derived metric '%s': the database has a metric of that name "
			      "(the formula is left out)",
			      name);
		return 0;
	}
	for (uint32_t i = 0; i < b->p->formulas.len; i++)
		if (strcmp(pv_str(b->p, b->p->formulas.name[i]), name) == 0) {
			builder_lossy(b, 1, "derived metric '%s' defined twice (the first kept)",
				      name);
			return 0;
		}
	/* the totals' formula, then the selves': each by name, and parsed */
	char *out[2] = {NULL, NULL};
	int rc = 0;
	for (int k = 0; k < 2 && !rc; k++) {
		if (!d->text[k])
			continue;
		const char *written = d->written[k] ? d->written[k] : d->text[k];
		const char *why;
		char bad[32] = "";
		if (!(out[k] = refs_by_name(d->text[k], ref, ctx, &why, bad, sizeof(bad)))) {
			rc = PV_ENOMEM;
			break;
		}
		struct pv_formula *f = NULL;
		uint32_t col = 0;
		char msg[200];
		int prc = why ? PV_EINVAL : pv__formula_parse(out[k], &f, &col, msg, sizeof(msg));
		pv__formula_free(f);
		if (prc == PV_ENOMEM)
			rc = PV_ENOMEM;
		else if (why)
			builder_lossy(b, 1, "derived metric '%s' = '%s': %s %s (left out)", name,
				      written, bad, why);
		else if (prc)
			builder_lossy(
			    b, 1,
			    "derived metric '%s' = '%s': not a formula profview reads (%s) "
			    "(left out)",
			    name, written, msg);
		if (why || prc)
			rc = rc ? rc : 1;
	}
	/* a selves' formula that reads as the totals' is theirs over the selves */
	if (!rc && out[0] && out[1] && strcmp(out[0], out[1]) == 0) {
		pv_free(out[1]);
		out[1] = NULL;
	}
	if (!rc && (out[0] || out[1]))
		rc = builder_formula(b, builder_cstr(b, name), out[0] ? builder_cstr(b, out[0]) : 0,
				     out[1] ? builder_cstr(b, out[1]) : 0,
				     d->desc && *d->desc ? builder_cstr(b, d->desc) : 0);
	pv_free(out[0]);
	pv_free(out[1]);
	if (rc == PV_ENOMEM)
		return b->status = PV_ENOMEM;
	return 0;
}

pv_module_ix hpc_module(struct pv_builder *b, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	enum pv_module_kind kind = PV_MODULE_BINARY;
	if (strstr(base, ".so"))
		kind = PV_MODULE_LIBRARY;
	else if (strstr(base, "vmlinux") || strstr(base, "[kernel"))
		kind = PV_MODULE_KERNEL;
	else if (!*base)
		kind = PV_MODULE_UNKNOWN;
	return builder_module(b, builder_cstr(b, *base ? base : path), builder_cstr(b, path), kind);
}

pv_str_ix hpc_names_at(struct pv_builder *b, struct hpc_names *n, pv_module_ix m, uint64_t a)
{
	const struct symz_opts *o = b->sym;
	if (n->off || m == PV_NONE || !o || o->off || !o->nr_dirs || a >> 48 ||
	    !b->p->modules.path || !*pv_str(b->p, b->p->modules.path[m]))
		return PV_NONE;
	uint64_t key = (uint64_t)m << 48 | a;
	uint32_t v = u64map_get(&n->seen, key);
	if (v != UINT32_MAX)
		return v ? v - 1 : PV_NONE;
	if (!n->z) {
		struct symz_opts mine = *o;
		mine.dirs_only = true;
		if (!(n->z = symz_new(&mine))) {
			n->off = true;
			b->status = PV_ENOMEM;
			return PV_NONE;
		}
	}
	if (m >= n->cap) {
		uint32_t nc = m + 64;
		uint32_t *bins = pv_realloc(n->bins, nc * sizeof(*bins));
		if (bins)
			n->bins = bins;
		uint64_t *nd = bins ? pv_realloc(n->named, nc * sizeof(*nd)) : NULL;
		if (nd)
			n->named = nd;
		uint64_t *un = nd ? pv_realloc(n->unnamed, nc * sizeof(*un)) : NULL;
		if (un)
			n->unnamed = un;
		uint8_t *w = un ? pv_realloc(n->why, nc) : NULL;
		if (!w) {
			n->off = true;
			b->status = PV_ENOMEM;
			return PV_NONE;
		}
		n->why = w;
		for (uint32_t i = n->cap; i < nc; i++) {
			n->bins[i] = UINT32_MAX;
			n->named[i] = n->unnamed[i] = 0;
			n->why[i] = 0;
		}
		n->cap = nc;
	}
	if (n->bins[m] == UINT32_MAX &&
	    (n->bins[m] = symz_binary(n->z, pv_str(b->p, b->p->modules.path[m]), NULL, 0)) ==
		UINT32_MAX) {
		b->status = PV_ENOMEM;
		return PV_NONE;
	}
	struct symz_hit hit;
	enum symz_status st = symz_lookup(n->z, n->bins[m], a, &hit);
	pv_str_ix name = st ? PV_NONE : builder_cstr(b, hit.name);
	if (st) {
		n->unnamed[m]++;
		n->why[m] = (uint8_t)st;
	} else {
		n->named[m]++;
	}
	if (u64map_put(&n->seen, key, name == PV_NONE ? 0 : name + 1))
		b->status = PV_ENOMEM;
	return name;
}

void hpc_names_done(struct pv_builder *b, struct hpc_names *n)
{
	for (uint32_t m = 0; m < n->cap; m++) {
		if (n->bins[m] == UINT32_MAX)
			continue;
		const char *path = pv_str(b->p, b->p->modules.path[m]);
		if (n->named[m])
			builder_lossy(b, n->named[m],
				      "addresses without a procedure in %s named from --symbols' "
				      "file of that name (its build id unchecked: the database "
				      "records none)",
				      path);
		if (n->unnamed[m])
			builder_lossy(b, n->unnamed[m],
				      "addresses without a procedure in %s not named: %s", path,
				      symz_status_text((enum symz_status)n->why[m]));
	}
	symz_free(n->z);
	pv_free(n->bins);
	pv_free(n->named);
	pv_free(n->unnamed);
	pv_free(n->why);
	u64map_release(&n->seen);
	memset(n, 0, sizeof(*n));
}

pv_func_ix hpc_addr_func(struct pv_builder *b, struct hpc_names *n, pv_module_ix m, uint64_t offset)
{
	pv_str_ix named = hpc_names_at(b, n, m, offset);
	if (named != PV_NONE)
		return builder_func(b, named, m, PV_NONE, 0);
	const char *mod = m == PV_NONE ? "" : pv_str(b->p, b->p->modules.name[m]);
	pv_str_ix name = builder_strf(b, "%s@0x%llx", *mod ? mod : "<unknown module>",
				      (unsigned long long)offset);
	return builder_func(b, name, m, PV_NONE, 0);
}

int hpc_sibling(const struct pv_input *in, const char *name, struct pv_input *out, char **joined,
		struct pv_error *err)
{
	*joined = NULL;
	if (!input_is_file(in))
		return 1;
	const char *path = in->name;
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
	size_t n = strlen(name);
	char *j = pv_malloc(dir + n + 1);
	if (!j)
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	memcpy(j, path, dir);
	memcpy(j + dir, name, n + 1);
	*joined = j;
	struct stat st;
	if (stat(j, &st) != 0 && errno == ENOENT)
		return 1;
	return input_open(out, j, err);
}

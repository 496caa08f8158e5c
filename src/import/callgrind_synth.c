/*
 * callgrind_synth.c - a callgrind part's samples and call graph (callgrind.c reads the file; the
 * header there says how calling contexts are estimated from the call graph). Each function's
 * self cost goes to its lines: the contexts' weights split over the part's per-line rows.
 */
#include <string.h>

#include "base/alloc.h"
#include "import/callgrind.h"
#include "model/callgraph.h"

struct ctx {
	pv_stack_ix parent; /* the caller's context stack (PV_NONE: a root) */
	int64_t flow;	    /* cost of the primary event flowing into this context */
};

pv_frame_ix cg_fn_frame(struct cg *c, uint32_t f, uint32_t line, uint64_t addr)
{
	struct pv_builder *b = c->b;
	struct cg_fn *F = &c->fns[f];
	if (F->func == PV_NONE) {
		pv_source_ix src = PV_NONE;
		if (F->file) {
			if (F->file >= c->src_cache_cap) {
				uint32_t nc = grow_cap(c->src_cache_cap, (uint64_t)F->file + 1);
				if (!nc || COL_GROW(c->src_cache, nc)) {
					b->status = nc ? PV_ENOMEM : PV_ELIMIT;
					return PV_NONE;
				}
				memset(c->src_cache + c->src_cache_cap, 0,
				       (size_t)(nc - c->src_cache_cap) * sizeof(uint32_t));
				c->src_cache_cap = nc;
			}
			if (!c->src_cache[F->file])
				c->src_cache[F->file] = builder_source(b, F->file) + 1;
			src = c->src_cache[F->file] - 1;
		}
		F->func =
		    builder_func(b, F->name ? F->name : builder_cstr(b, "???"), F->module, src, 0);
		F->frame = builder_func_frame(b, F->func);
	}
	if (!line && addr == PV_ADDR_NONE)
		return F->frame;
	struct frame_key k = {.func = F->func, .line = line, .addr = addr, .category = PV_NONE};
	return builder_frame(b, &k);
}

/*
 * Splits the rows' amounts over columns with fixed sums (sum of rows == sum of columns), each
 * row in proportion to what the columns still need: out[r * ncol + j]; exact row and column
 * sums, no negative cell.
 */
static void split_rows(const int64_t *rows, uint32_t nrows, const int64_t *cols, uint32_t ncol,
		       int64_t *need, int64_t *out, double *frac)
{
	int64_t left = 0;
	for (uint32_t j = 0; j < ncol; j++) {
		need[j] = cols[j];
		left += cols[j];
	}
	for (uint32_t r = 0; r < nrows; r++) {
		int64_t amount = rows[r] < left ? rows[r] : left, given = 0;
		int64_t *o = out + (size_t)r * ncol;
		for (uint32_t j = 0; j < ncol; j++) {
			if (left <= 0 || amount <= 0) {
				o[j] = 0;
				frac[j] = -1;
				continue;
			}
			int64_t q64, rem;
			if (!__builtin_mul_overflow(amount, need[j], &q64)) {
				o[j] = q64 / left;
				rem = q64 % left;
			} else {
				i128 q = (i128)amount * need[j];
				o[j] = (int64_t)(q / left);
				rem = (int64_t)(q % left);
			}
			frac[j] = (double)rem / (double)left;
			given += o[j];
		}
		/* the units rounding left over go to the largest remainders */
		while (given < amount) {
			uint32_t best = NONE32;
			for (uint32_t j = 0; j < ncol; j++)
				if (o[j] < need[j] && (best == NONE32 || frac[j] > frac[best]))
					best = j;
			if (best == NONE32)
				break;
			o[best]++;
			frac[best] = -1;
			given++;
		}
		for (uint32_t j = 0; j < ncol; j++)
			need[j] -= o[j];
		left -= given;
	}
}

/*
 * The contexts waiting for each function (pushed by its callers, read when its turn comes): one
 * list of fixed-size chunks a function, the chunks from one pool and recycled once read.
 */
#define CTX_CHUNK 8

struct pend {
	uint32_t head, tail, n; /* first and last chunk, contexts */
};

/*
 * The part's functions renumbered in the order they are visited top-down (callers before
 * callees): the pass over them reads these arrays in order.
 */
struct synth {
	uint32_t *fn;	      /* rank -> function */
	int64_t *self;	      /* [rank * nev + e]: its self cost in the part */
	uint32_t *out_first;  /* its edges: slots out_first[k] .. out_first[k + 1], in edge order */
	uint32_t *slot_to;    /* per slot: the callee's rank */
	int64_t *slot_cost;   /* per slot: the call's cost of the primary event (0 when dropped) */
	uint8_t *slot_back;   /* per slot: dropped (a back edge of the walk) */
	uint8_t *slot_inline; /* per slot: an inlined-code edge */
	int64_t *tflow;	      /* per rank: self + kept calls (primary event) */
	struct pend *pend;    /* per rank */
	struct ctx *pool;     /* chunk k: pool[k * CTX_CHUNK ...] */
	uint32_t *pool_next;  /* next chunk of a list, or of the free list */
	uint32_t pool_len, pool_cap, pool_free;
};

static int push_ctx(struct cg *c, struct synth *s, uint32_t f, pv_stack_ix parent, int64_t flow)
{
	struct pend *P = &s->pend[f];
	uint32_t n = P->n;
	if (n % CTX_CHUNK == 0) {
		uint32_t k = s->pool_free;
		if (k != NONE32) {
			s->pool_free = s->pool_next[k];
		} else {
			if (s->pool_len == s->pool_cap) {
				uint32_t nc = grow_cap(s->pool_cap, (uint64_t)s->pool_len + 1);
				if (!nc || (uint64_t)nc * CTX_CHUNK > UINT32_MAX ||
				    COL_GROW(s->pool_next, nc) ||
				    col_realloc((void **)&s->pool, CTX_CHUNK * sizeof(struct ctx),
						nc)) {
					c->b->status = nc ? PV_ENOMEM : PV_ELIMIT;
					return -1;
				}
				s->pool_cap = nc;
			}
			k = s->pool_len++;
		}
		s->pool_next[k] = NONE32;
		if (n == 0)
			P->head = k;
		else
			s->pool_next[P->tail] = k;
		P->tail = k;
	}
	s->pool[(size_t)P->tail * CTX_CHUNK + n % CTX_CHUNK] =
	    (struct ctx){.parent = parent, .flow = flow};
	P->n = n + 1;
	return 0;
}

/* A grow-only scratch buffer of at least n bytes. */
static void *scratch(struct cg *c, void **buf, size_t *cap, size_t n)
{
	if (n > *cap) {
		size_t nc = n * 2;
		void *q = pv_realloc(*buf, nc);
		if (!q) {
			c->b->status = PV_ENOMEM;
			return NULL;
		}
		*buf = q;
		*cap = nc;
	}
	return *buf;
}

static int64_t pos0(int64_t v)
{
	return v > 0 ? v : 0;
}

/* The order of contexts when some are merged: the costliest first, then by parent. */
static inline int ctx_before(const struct ctx *x, const struct ctx *y)
{
	return x->flow != y->flow ? x->flow > y->flow : x->parent < y->parent;
}

/*
 * Keeps the k first contexts of cx[0 .. nr) in ctx_before order (what sorting them all would put
 * first) in cx[0 .. k), and returns the sum of the flows of the others.
 */
static int64_t keep_costliest(struct ctx *cx, uint32_t nr, uint32_t k)
{
	int64_t rest = 0;
	for (uint32_t i = 1; i < k; i++) {
		struct ctx v = cx[i];
		uint32_t j = i;
		while (j && ctx_before(&v, &cx[j - 1])) {
			cx[j] = cx[j - 1];
			j--;
		}
		cx[j] = v;
	}
	for (uint32_t i = k; i < nr; i++) {
		struct ctx v = cx[i];
		if (!ctx_before(&v, &cx[k - 1])) {
			rest += v.flow;
			continue;
		}
		rest += cx[k - 1].flow;
		uint32_t j = k - 1;
		while (j && ctx_before(&v, &cx[j - 1])) {
			cx[j] = cx[j - 1];
			j--;
		}
		cx[j] = v;
	}
	return rest;
}

static void synth_free(struct synth *s)
{
	pv_free(s->fn);
	pv_free(s->self);
	pv_free(s->out_first);
	pv_free(s->slot_to);
	pv_free(s->slot_cost);
	pv_free(s->slot_back);
	pv_free(s->slot_inline);
	pv_free(s->tflow);
	pv_free(s->pend);
	pv_free(s->pool);
	pv_free(s->pool_next);
}

/*
 * The part's call graph in struct synth: its functions (touched_list) ranked callers before
 * callees by depth-first walks from the functions nobody calls first, whose back edges are
 * dropped (reverse post-order), and each function's edges in edge order.
 */
static int synth_graph(struct cg *c, struct synth *s)
{
	uint32_t n = c->nr_touched, ne = c->nedges, nev = c->nev;
	size_t ne1 = ne ? ne : 1;
	uint32_t *local = pv_malloc((size_t)c->nfns * sizeof(uint32_t));
	uint32_t *first = pv_calloc((size_t)n + 1, sizeof(uint32_t));
	uint32_t *to = pv_malloc(ne1 * sizeof(uint32_t)), *xs = pv_malloc(ne1 * sizeof(uint32_t));
	uint8_t *back = pv_calloc(ne1, 1);
	uint32_t *in_count = pv_calloc(n, sizeof(uint32_t)),
		 *order = pv_malloc((size_t)n * sizeof(uint32_t));
	uint32_t *stack = pv_malloc((size_t)n * sizeof(uint32_t)),
		 *iter = pv_malloc((size_t)n * sizeof(uint32_t));
	uint8_t *state = pv_calloc(n, 1);
	s->fn = pv_malloc((size_t)n * sizeof(uint32_t));
	s->self = pv_malloc((size_t)n * (nev ? nev : 1) * sizeof(int64_t));
	s->out_first = pv_malloc(((size_t)n + 1) * sizeof(uint32_t));
	s->slot_to = pv_malloc(ne1 * sizeof(uint32_t));
	s->slot_cost = pv_malloc(ne1 * sizeof(int64_t));
	s->slot_back = pv_malloc(ne1);
	s->slot_inline = pv_malloc(ne1);
	s->tflow = pv_malloc((size_t)n * sizeof(int64_t));
	s->pend = pv_calloc(n, sizeof(struct pend));
	int rc = -1;
	if (!local || !first || !to || !xs || !back || !in_count || !order || !stack || !iter ||
	    !state || !s->fn || !s->self || !s->out_first || !s->slot_to || !s->slot_cost ||
	    !s->slot_back || !s->slot_inline || !s->tflow || !s->pend) {
		c->b->status = PV_ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		local[c->touched_list[i]] = i;
	/* the edges by caller (local index), in edge order */
	for (uint32_t x = 0; x < ne; x++)
		first[local[c->edges[x].from] + 1]++;
	for (uint32_t i = 0; i < n; i++)
		first[i + 1] += first[i];
	{
		uint32_t *fill = iter;
		memset(fill, 0, (size_t)n * sizeof(uint32_t));
		for (uint32_t x = 0; x < ne; x++) {
			const struct cg_edge *E = &c->edges[x];
			uint32_t f = local[E->from], g = local[E->to];
			uint32_t i = first[f] + fill[f]++;
			to[i] = g;
			xs[i] = x;
			in_count[g]++;
		}
	}
	/* depth-first walks, from the functions nobody calls first: back edges dropped */
	uint32_t norder = 0;
	for (uint32_t pass = 0; pass < 2; pass++) {
		for (uint32_t r = 0; r < n; r++) {
			if (state[r] || (pass == 0 && in_count[r]))
				continue;
			uint32_t sp = 0;
			stack[sp] = r;
			iter[sp] = first[r];
			sp++;
			state[r] = 1;
			while (sp) {
				uint32_t f = stack[sp - 1];
				if (iter[sp - 1] < first[f + 1]) {
					uint32_t i = iter[sp - 1]++;
					uint32_t g = to[i];
					if (state[g] == 1) {
						back[i] = 1;
					} else if (state[g] == 0) {
						state[g] = 1;
						stack[sp] = g;
						iter[sp] = first[g];
						sp++;
					}
				} else {
					state[f] = 2;
					order[norder++] = f;
					sp--;
				}
			}
		}
	}
	/* rank = reverse post-order: callers before callees */
	uint32_t *rank = stack;
	for (uint32_t i = 0; i < norder; i++)
		rank[order[i]] = norder - 1 - i;
	uint32_t j = 0;
	for (uint32_t k = 0; k < norder; k++) {
		uint32_t f = order[norder - 1 - k], fg = c->touched_list[f];
		s->fn[k] = fg;
		memcpy(s->self + (size_t)k * nev, c->pself + (size_t)fg * nev,
		       nev * sizeof(int64_t));
		s->out_first[k] = j;
		for (uint32_t i = first[f]; i < first[f + 1]; i++, j++) {
			uint32_t x = xs[i];
			uint8_t inl = c->edges[x].is_inline;
			s->slot_to[j] = rank[to[i]];
			s->slot_back[j] = back[i];
			s->slot_inline[j] = inl;
			/* an inlined-code edge costs what the inlined code does (below) */
			s->slot_cost[j] = back[i] || inl ? 0 : pos0(c->ecost[(size_t)x * nev]);
		}
	}
	s->out_first[norder] = j;
	/* inlined-code edges cost the inlined code's own flow: computed callees first */
	for (uint32_t k = norder; k-- > 0;) {
		int64_t t = pos0(s->self[(size_t)k * nev]);
		for (uint32_t i = s->out_first[k]; i < s->out_first[k + 1]; i++) {
			if (s->slot_back[i])
				continue;
			if (s->slot_inline[i])
				s->slot_cost[i] = s->tflow[s->slot_to[i]];
			t += s->slot_cost[i];
		}
		s->tflow[k] = t;
	}
	rc = 0;
out:
	pv_free(local);
	pv_free(first);
	pv_free(to);
	pv_free(xs);
	pv_free(back);
	pv_free(in_count);
	pv_free(order);
	pv_free(stack);
	pv_free(iter);
	pv_free(state);
	return rc;
}

/* Scratch buffers of self_lines. */
struct line_split {
	void *buf[6];
	size_t cap[6];
};

/*
 * The self samples of function fg's nr contexts (wt: [i * nev + e]), each on its line (the
 * function's per-line rows of the part). The first event's costs are split over (context, line)
 * cells by the north-west corner rule: contexts in turn take the lines in turn, so each
 * context's weight and each line's cost are exact and there are at most nr + nl cells (the
 * model stays linear in the file; which context ran which line is not in the file). Every other
 * event's line cost goes to that line's cells in proportion to the first event's. A line's sample
 * is on the caller's stack (caller[i]) and a frame of that line; line 0 (no line) without an
 * address is on the context's own stack (cx[i].parent). With negative costs the function's self
 * stays unsplit.
 */
static int self_lines(struct cg *c, struct line_split *ls, uint32_t fg, const pv_stack_ix *caller,
		      const struct ctx *cx, const int64_t *wt, uint32_t nr)
{
	struct pv_builder *b = c->b;
	uint32_t nev = c->nev, nl = 0;
	for (uint32_t r = c->fns[fg].line_head; r != NONE32; r = c->line_next[r])
		nl++;
	uint32_t only = c->fns[fg].line_head;
	int plain = nev == 0 || nl == 0 ||
		    (nl == 1 && c->line_no[only] == 0 && cg_row_addr(c, only) == PV_ADDR_NONE);
	uint32_t *row = NULL, *cell_i = NULL, *cell_j = NULL, ncell = 0;
	int64_t *w = NULL;
	if (!plain) {
		row = scratch(c, &ls->buf[0], &ls->cap[0], (size_t)nl * sizeof(uint32_t));
		cell_i = scratch(c, &ls->buf[1], &ls->cap[1], ((size_t)nr + 2 * nl) * 4);
		cell_j = scratch(c, &ls->buf[2], &ls->cap[2], ((size_t)nr + 2 * nl) * 4);
		w = scratch(c, &ls->buf[3], &ls->cap[3], ((size_t)nr + 2 * nl) * nev * 8);
		if (b->status)
			return -1;
		uint32_t j = 0;
		int64_t rs = 0, cs = 0;
		for (uint32_t r = c->fns[fg].line_head; r != NONE32; r = c->line_next[r]) {
			row[j++] = r;
			int64_t v = c->line_cost[(size_t)r * nev];
			plain |= v < 0;
			cs += v;
		}
		for (uint32_t i = 0; i < nr; i++) {
			plain |= wt[(size_t)i * nev] < 0;
			rs += wt[(size_t)i * nev];
		}
		if (plain || rs != cs) {
			c->lines_unsplit++;
			plain = 1;
		}
	}
	if (plain) {
		for (uint32_t i = 0; i < nr; i++) {
			int any = 0;
			for (uint32_t e = 0; e < nev; e++)
				any |= wt[(size_t)i * nev + e] != 0;
			if (any)
				builder_sample(b, c->thread, cx[i].parent, PV_TIME_NONE,
					       wt + (size_t)i * nev);
		}
		return b->status ? -1 : 0;
	}
	/* the north-west corner rule on the first event: cells in column order */
	uint32_t i = 0;
	int64_t left_i = wt[0];
	for (uint32_t j = 0; j < nl; j++) {
		int64_t left_j = c->line_cost[(size_t)row[j] * nev];
		uint32_t first = ncell;
		while (left_j > 0 && i < nr) {
			if (left_i == 0) {
				if (++i < nr)
					left_i = wt[(size_t)i * nev];
				continue;
			}
			int64_t a = left_i < left_j ? left_i : left_j;
			cell_i[ncell] = i;
			cell_j[ncell] = j;
			w[(size_t)ncell++ * nev] = a;
			left_i -= a;
			left_j -= a;
		}
		if (ncell == first) { /* no first-event cost: one cell for the other events */
			cell_i[ncell] = i < nr ? i : nr - 1;
			cell_j[ncell] = j;
			w[(size_t)ncell++ * nev] = 0;
		}
	}
	/* the other events: each line's cost over its cells by their first-event weights */
	int64_t *wk = scratch(c, &ls->buf[4], &ls->cap[4], (size_t)ncell * 8);
	int64_t *share = scratch(c, &ls->buf[5], &ls->cap[5], (size_t)ncell * 8);
	if (!wk || !share)
		return -1;
	for (uint32_t k0 = 0, k1; k0 < ncell; k0 = k1) {
		for (k1 = k0; k1 < ncell && cell_j[k1] == cell_j[k0]; k1++)
			wk[k1 - k0] = w[(size_t)k1 * nev];
		for (uint32_t e = 1; e < nev; e++) {
			pv_apportion(c->line_cost[(size_t)row[cell_j[k0]] * nev + e], wk, k1 - k0,
				     share);
			for (uint32_t k = k0; k < k1; k++)
				w[(size_t)k * nev + e] = share[k - k0];
		}
	}
	pv_frame_ix fr = PV_NONE;
	for (uint32_t k = 0; k < ncell && !b->status; k++) {
		const int64_t *v = w + (size_t)k * nev;
		int any = 0;
		for (uint32_t e = 0; e < nev; e++)
			any |= v[e] != 0;
		if (!any)
			continue;
		uint32_t ln = c->line_no[row[cell_j[k]]];
		uint64_t a = cg_row_addr(c, row[cell_j[k]]);
		if (k == 0 || cell_j[k] != cell_j[k - 1])
			fr = ln || a != PV_ADDR_NONE ? cg_fn_frame(c, fg, ln, a) : PV_NONE;
		pv_stack_ix st =
		    fr != PV_NONE ? builder_stack(b, caller[cell_i[k]], fr) : cx[cell_i[k]].parent;
		builder_sample(b, c->thread, st, PV_TIME_NONE, v);
	}
	return b->status ? -1 : 0;
}

/* One part: samples for its functions (touched_list), from its edges. */
int cg_synthesize(struct cg *c)
{
	struct pv_builder *b = c->b;
	uint32_t n = c->nr_touched, ne = c->nedges, nev = c->nev;
	if (n == 0)
		return 0;
	if (c->thread == PV_NONE) {
		pv_str_ix name = c->part_name ? c->part_name : builder_cstr(b, "callgrind");
		c->thread = builder_thread(b, name, c->pid, c->tid, c->cmd);
	}
	pv_thread_ix th = c->thread;
	if (ne == 0) {
		/* no calls: one sample per function and line (cachegrind) */
		int64_t *w = pv_malloc((nev ? nev : 1) * sizeof(int64_t));
		if (!w) {
			b->status = PV_ENOMEM;
			return -1;
		}
		for (uint32_t r = 0; r < c->nlines && !b->status; r++) {
			int any = 0;
			for (uint32_t e = 0; e < nev; e++) {
				w[e] = c->line_cost[(size_t)r * nev + e];
				any |= w[e] != 0;
			}
			if (!any)
				continue;
			pv_frame_ix fr =
			    cg_fn_frame(c, c->line_fn[r], c->line_no[r], cg_row_addr(c, r));
			builder_sample(b, th, builder_stack(b, PV_NONE, fr), PV_TIME_NONE, w);
		}
		pv_free(w);
		return b->status ? -1 : 0;
	}
	struct synth s = {.pool_free = NONE32};
	struct line_split ls = {0};
	if (synth_graph(c, &s)) {
		synth_free(&s);
		return -1;
	}
	/* top-down: each function's contexts split over its self cost and its kept calls */
	int64_t *rows, *cols, *need, *cell, *tmp;
	double *frac;
	void *sc[12] = {0};
	size_t scap[12] = {0};
	for (uint32_t k = 0; k < n && !b->status; k++) {
		uint32_t fg = s.fn[k];
		const int64_t *self = s.self + (size_t)k * nev;
		/* what the next functions and this one's callees need, asked for early */
		if (k + 8 < n)
			__builtin_prefetch(&c->fns[s.fn[k + 8]]);
		if (k + 1 < n && s.pend[k + 1].n)
			__builtin_prefetch(s.pool + (size_t)s.pend[k + 1].head * CTX_CHUNK);
		for (uint32_t i = s.out_first[k]; i < s.out_first[k + 1]; i++)
			__builtin_prefetch(&s.pend[s.slot_to[i]], 1);
		int64_t tf = s.tflow[k];
		int any_self = 0;
		for (uint32_t e = 0; e < nev; e++)
			any_self |= self[e] > 0;
		/* the contexts from the callers, in the order they came, and maybe one from the
		 * root */
		struct pend *P = &s.pend[k];
		uint32_t nr = P->n;
		struct ctx *cx =
		    scratch(c, &sc[11], &scap[11], ((size_t)nr + 2) * sizeof(struct ctx));
		if (!cx)
			break;
		int64_t in = 0;
		if (nr) {
			uint32_t ch = P->head, i = 0;
			for (;;) {
				uint32_t m = nr - i < CTX_CHUNK ? nr - i : CTX_CHUNK;
				const struct ctx *src = s.pool + (size_t)ch * CTX_CHUNK;
				for (uint32_t j = 0; j < m; j++) {
					cx[i + j] = src[j];
					in += src[j].flow;
				}
				i += m;
				if (i == nr)
					break;
				ch = s.pool_next[ch];
			}
			/* the chunks back to the free list */
			s.pool_next[P->tail] = s.pool_free;
			s.pool_free = P->head;
			P->n = 0;
		}
		if (in < tf)
			cx[nr++] = (struct ctx){.parent = PV_NONE, .flow = tf - in};
		if (nr == 0 && any_self)
			cx[nr++] = (struct ctx){.parent = PV_NONE, .flow = 0};
		if (nr == 0)
			continue;
		/* at most ctx_cap contexts: the costliest; the rest start at the root */
		if (nr > c->ctx_cap) {
			int64_t rest = keep_costliest(cx, nr, c->ctx_cap - 1);
			c->merged_contexts += nr - (c->ctx_cap - 1);
			cx[c->ctx_cap - 1] = (struct ctx){.parent = PV_NONE, .flow = rest};
			nr = c->ctx_cap;
			/* the root context may now appear twice: merge them */
			for (uint32_t i = 0; i + 1 < nr; i++)
				if (cx[i].parent == PV_NONE) {
					cx[i].flow += cx[nr - 1].flow;
					nr--;
					break;
				}
		}
		uint32_t s0 = s.out_first[k], s1 = s.out_first[k + 1];
		uint32_t ncol = 1 + s1 - s0;
		rows = scratch(c, &sc[0], &scap[0], (size_t)nr * sizeof(int64_t));
		tmp = scratch(c, &sc[1], &scap[1], (size_t)nr * sizeof(int64_t));
		cols = scratch(c, &sc[3], &scap[3], (size_t)ncol * sizeof(int64_t));
		need = scratch(c, &sc[4], &scap[4], (size_t)ncol * sizeof(int64_t));
		frac = scratch(c, &sc[5], &scap[5], (size_t)ncol * sizeof(double));
		cell = scratch(c, &sc[6], &scap[6], (size_t)nr * ncol * sizeof(int64_t));
		int64_t *wt =
		    scratch(c, &sc[7], &scap[7], (size_t)nr * (nev ? nev : 1) * sizeof(int64_t));
		int64_t *flows = scratch(c, &sc[8], &scap[8], (size_t)nr * sizeof(int64_t));
		int64_t *share = scratch(c, &sc[9], &scap[9], (size_t)nr * sizeof(int64_t));
		if (b->status)
			break;
		/* when more flows in than the function spends, the contexts shrink in proportion */
		int64_t sum = 0;
		for (uint32_t i = 0; i < nr; i++)
			sum += cx[i].flow;
		if (sum > tf) {
			for (uint32_t i = 0; i < nr; i++)
				tmp[i] = cx[i].flow;
			pv_apportion(tf, tmp, nr, rows);
		} else {
			for (uint32_t i = 0; i < nr; i++)
				rows[i] = cx[i].flow;
		}
		cols[0] = pos0(self[0]);
		memcpy(cols + 1, s.slot_cost + s0, (size_t)(s1 - s0) * sizeof(int64_t));
		split_rows(rows, nr, cols, ncol, need, cell, frac);
		/* the stacks of the contexts (their callers' kept for the lines) */
		pv_stack_ix *caller =
		    scratch(c, &sc[10], &scap[10], (size_t)nr * sizeof(pv_stack_ix));
		if (!caller)
			break;
		pv_frame_ix fr = cg_fn_frame(c, fg, 0, PV_ADDR_NONE);
		for (uint32_t i = 0; i < nr && !b->status; i++) {
			caller[i] = cx[i].parent;
			cx[i].parent = builder_stack(b, cx[i].parent, fr);
		}
		/* weights per context: event 0 from the matrix, others apportioned by flow */
		int64_t fsum = 0;
		for (uint32_t i = 0; i < nr; i++) {
			flows[i] = rows[i];
			fsum += flows[i];
		}
		if (fsum == 0)
			for (uint32_t i = 0; i < nr; i++)
				flows[i] = 1;
		for (uint32_t i = 0; i < nr; i++)
			wt[(size_t)i * nev] = cell[(size_t)i * ncol];
		for (uint32_t e = 0; e < nev; e++) {
			int64_t se = self[e];
			if (e == 0 && se >= 0 && fsum > 0)
				continue;
			pv_apportion(se, flows, nr, share);
			for (uint32_t i = 0; i < nr; i++)
				wt[(size_t)i * nev + e] = share[i];
		}
		if (self_lines(c, &ls, fg, caller, cx, wt, nr))
			break;
		/* callees */
		for (uint32_t i = s0, j = 1; i < s1 && !b->status; i++, j++) {
			if (s.slot_back[i])
				continue;
			uint32_t g = s.slot_to[i];
			for (uint32_t r = 0; r < nr; r++) {
				int64_t v = cell[(size_t)r * ncol + j];
				if (v > 0 && push_ctx(c, &s, g, cx[r].parent, v))
					break;
			}
		}
	}
	for (int i = 0; i < 12; i++)
		pv_free(sc[i]);
	for (int i = 0; i < 6; i++)
		pv_free(ls.buf[i]);
	synth_free(&s);
	return b->status ? -1 : 0;
}

/*
 * The part's call graph into the model: a node per function with its self cost, an edge per
 * call (caller, callee) with its count and inclusive cost, and per function to its inlined code
 * (fi=/fe=) an edge costing that code's self cost and calls.
 */
int cg_keep_graph(struct cg *c)
{
	struct pv_builder *b = c->b;
	uint32_t nev = c->nev;
	if (c->thread == PV_NONE)
		return 0;
	int64_t *w = pv_malloc((nev ? nev : 1) * sizeof(int64_t));
	if (!w) {
		b->status = PV_ENOMEM;
		return -1;
	}
	int rc = 0;
	for (uint32_t i = 0; i < c->nr_touched && !rc && !b->status; i++) {
		uint32_t f = c->touched_list[i];
		cg_fn_frame(c, f, 0, PV_ADDR_NONE);
		rc = pv_callgraph_add_node(b->p, c->thread, c->fns[f].func,
					   c->pself + (size_t)f * nev, nev);
	}
	for (uint32_t x = 0; x < c->nedges && !rc && !b->status; x++) {
		const struct cg_edge *E = &c->edges[x];
		const int64_t *cost = c->ecost + (size_t)x * nev;
		if (E->is_inline) {
			memcpy(w, c->pself + (size_t)E->to * nev, nev * sizeof(int64_t));
			for (uint32_t y = c->fns[E->to].out_head; y != NONE32; y = c->edge_next[y])
				for (uint32_t e = 0; e < nev && !c->edges[y].is_inline; e++)
					w[e] += c->ecost[(size_t)y * nev + e];
			cost = w;
		}
		rc =
		    pv_callgraph_add_edge(b->p, c->thread, c->fns[E->from].func, c->fns[E->to].func,
					  E->is_inline ? 0 : c->ecalls[x], E->is_inline, cost, nev);
	}
	pv_free(w);
	if (rc)
		b->status = rc;
	return b->status ? -1 : 0;
}

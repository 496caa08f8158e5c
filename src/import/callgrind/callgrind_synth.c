/*
 * callgrind_synth.c - a callgrind part's samples and call graph (callgrind.c reads the file).
 *
 * callgrind stores a call graph, not stacks. The samples are calling contexts estimated from the
 * part's graph (model/callgraph.h), walked from its real roots down, callers before callees (its
 * strongly connected components in topological order; doc/callgraph.md says the rule):
 *   - a function outside a recursion cycle takes all the contexts its callers gave it and
 *     splits them over its self cost and its calls, each context in proportion to what the
 *     columns still need: every column sums to the file's figure (the self cost, each call's
 *     cost) and every context to what its caller gave it, so each function's self and
 *     inclusive cost are the file's (exactly, where what its calls bring is what it spends);
 *   - a recursion cycle is unrolled from each function its contexts enter by, by the tree rule
 *     of model/cgtree.h (a function already on the path is not entered again: recursion cut
 *     once); the unrolled rows then take the file's self costs and calls out of the cycle
 *     exactly, in proportion to the rule's estimates, and split their contexts the same way.
 * A context's share of a call below the part's cost / CTX_BUDGET is not made: it goes to the
 * context's larger shares, and a context below that threshold takes the calls one after another
 * (the north-west corner rule), so the contexts grow with the calls, not with the paths through
 * the graph. No cost moves to a root. Each function's self cost goes to its lines: the contexts'
 * weights split over the part's per-line rows.
 */
#include <string.h>

#include "base/alloc.h"
#include "base/sort.h"
#include "import/callgrind/callgrind.h"
#include "model/callgraph.h"
#include "model/cgtree.h"

/* The part's cost over this many is the smallest share of a call a context of its own gets. */
#define CTX_BUDGET 65536
/* Rows of an unrolled cycle, per function, call and call out of it (at least). */
#define CYCLE_ROWS 2

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
		/*
		 * Each function of the file (FILE:NAME) is made once, and two of them have one
		 * key (name, module, source) only through "???", the name of a function without
		 * one: any other, with a module or a source, is made without a lookup.
		 */
		bool looked_up = !F->name || F->name == c->str_unknown ||
				 (F->module == PV_NONE && src == PV_NONE);
		uint32_t nf = b->p->funcs.len;
		F->func = looked_up ? builder_func(b, F->name ? F->name : builder_cstr(b, "???"),
						   F->module, src, 0)
				    : builder_func_new(b, F->name, F->module, src, 0, 0);
		c->funcs_shared |= F->func < nf;
		F->frame = builder_func_frame(b, F->func);
	}
	if (!line && addr == PV_ADDR_NONE)
		return F->frame;
	struct frame_key k = {.func = F->func, .line = line, .addr = addr, .category = PV_NONE};
	return builder_frame(b, &k);
}

/* A grow-only scratch buffer of at least n bytes. */
static void *scratch(struct cg *c, void **buf, size_t *cap, size_t n)
{
	if (n > *cap) {
		size_t nc = n + n / 4;
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

/*
 * A context's nev costs copied or zeroed: one event (Ir alone) is the common case, and a
 * memcpy/memset call per context cost more than the copy.
 */
static inline void ev_copy(int64_t *d, const int64_t *s, uint32_t nev)
{
	if (nev == 1)
		*d = *s;
	else
		memcpy(d, s, nev * sizeof(int64_t));
}

static inline void ev_zero(int64_t *d, uint32_t nev)
{
	if (nev == 1)
		*d = 0;
	else
		memset(d, 0, nev * sizeof(int64_t));
}

/*
 * The cost of edge x of the part, per event: a call's inclusive cost, or for inlined code
 * (fi=/fe=) that code's self cost and its calls.
 */
static void edge_cost(const struct cg *c, uint32_t x, int64_t *w)
{
	uint32_t nev = c->nev;
	const struct cg_edge *E = &c->edges[x];
	if (!E->is_inline) {
		memcpy(w, c->ecost + (size_t)x * nev, nev * sizeof(int64_t));
		return;
	}
	memcpy(w, c->pself + (size_t)E->to * nev, nev * sizeof(int64_t));
	for (uint32_t y = c->fns[E->to].out_head; y != NONE32; y = c->edge_next[y])
		for (uint32_t e = 0; e < nev && !c->edges[y].is_inline; e++)
			w[e] += c->ecost[(size_t)y * nev + e];
}

/* ---- contexts waiting for their node ---- */

/*
 * The contexts waiting for each slot (a function of the part, or a row of the cycle being
 * unrolled), pushed by their callers and taken when its turn comes: one list of fixed-size
 * chunks a slot, the chunks from one pool and recycled once taken. A context is its parent's
 * stack and one flow per event (stride int64 words).
 */
#define CTX_CHUNK 8

struct pend {
	uint32_t head, tail, n; /* first and last chunk, contexts */
};

struct ctxq {
	uint32_t stride;
	int64_t *pool;	/* chunk k: pool[k * CTX_CHUNK * stride ...] */
	uint32_t *next; /* the next chunk of a list, or of the free list */
	uint32_t len, cap, free;
	struct pend *pend; /* per slot */
	uint64_t pushed;   /* contexts pushed in all */
	int64_t *lost;	   /* per slot: [slot * nev + k], its cost folded into "(other)" above */
	uint32_t nslot;
};

/* Room for slots [0, n), the new ones empty. */
static int q_slots(struct cg *c, struct ctxq *q, uint32_t n)
{
	if (n <= q->nslot)
		return 0;
	uint32_t nc = grow_cap(q->nslot, n), nev = q->stride - 1;
	if (!nc || COL_GROW(q->pend, nc) ||
	    col_realloc((void **)&q->lost, nev * sizeof(int64_t), nc)) {
		c->b->status = nc ? PV_ENOMEM : PV_ELIMIT;
		return -1;
	}
	memset(q->pend + q->nslot, 0, (size_t)(nc - q->nslot) * sizeof(*q->pend));
	memset(q->lost + (size_t)q->nslot * nev, 0,
	       (size_t)(nc - q->nslot) * nev * sizeof(int64_t));
	q->nslot = nc;
	return 0;
}

static int q_push(struct cg *c, struct ctxq *q, uint32_t slot, pv_stack_ix parent,
		  const int64_t *flow)
{
	struct pend *P = &q->pend[slot];
	uint32_t n = P->n, s = q->stride;
	if (n % CTX_CHUNK == 0) {
		uint32_t k = q->free;
		if (k != NONE32) {
			q->free = q->next[k];
		} else {
			if (q->len == q->cap) {
				uint32_t nc = grow_cap(q->cap, (uint64_t)q->len + 1);
				if (!nc || COL_GROW(q->next, nc) ||
				    col_realloc((void **)&q->pool, CTX_CHUNK * s * sizeof(int64_t),
						nc)) {
					c->b->status = nc ? PV_ENOMEM : PV_ELIMIT;
					return -1;
				}
				q->cap = nc;
			}
			k = q->len++;
		}
		q->next[k] = NONE32;
		if (n == 0)
			P->head = k;
		else
			q->next[P->tail] = k;
		P->tail = k;
	}
	int64_t *e = q->pool + ((size_t)P->tail * CTX_CHUNK + n % CTX_CHUNK) * s;
	e[0] = parent;
	ev_copy(e + 1, flow, s - 1);
	P->n = n + 1;
	q->pushed++;
	return 0;
}

/* Sums the flows of slot's contexts into sum[0 .. stride - 1) (added). */
static void q_sum(const struct ctxq *q, uint32_t slot, int64_t *sum)
{
	const struct pend *P = &q->pend[slot];
	uint32_t s = q->stride;
	for (uint32_t i = 0, ch = P->head; i < P->n; ch = q->next[ch]) {
		uint32_t m = P->n - i < CTX_CHUNK ? P->n - i : CTX_CHUNK;
		const int64_t *e = q->pool + (size_t)ch * CTX_CHUNK * s;
		for (uint32_t j = 0; j < m; j++)
			for (uint32_t k = 1; k < s; k++)
				sum[k - 1] += e[(size_t)j * s + k];
		i += m;
	}
}

/* Moves slot's contexts to par[] and flow[i * (stride - 1) + k]; their count. */
static uint32_t q_take(struct ctxq *q, uint32_t slot, pv_stack_ix *par, int64_t *flow)
{
	struct pend *P = &q->pend[slot];
	uint32_t nr = P->n, s = q->stride;
	if (!nr)
		return 0;
	for (uint32_t i = 0, ch = P->head;; ch = q->next[ch]) {
		uint32_t m = nr - i < CTX_CHUNK ? nr - i : CTX_CHUNK;
		const int64_t *e = q->pool + (size_t)ch * CTX_CHUNK * s;
		for (uint32_t j = 0; j < m; j++, i++) {
			par[i] = (pv_stack_ix)e[(size_t)j * s];
			ev_copy(flow + (size_t)i * (s - 1), e + (size_t)j * s + 1, s - 1);
		}
		if (i == nr)
			break;
	}
	q->next[P->tail] = q->free;
	q->free = P->head;
	P->n = 0;
	return nr;
}

static void q_release(struct ctxq *q)
{
	pv_free(q->lost);
	pv_free(q->pool);
	pv_free(q->next);
	pv_free(q->pend);
}

/* Scratch buffers of self_lines. */
struct line_split {
	void *buf[7];
	size_t cap[7];
};

/* Cells by line, then context. */
struct cell_order {
	const uint32_t *i, *j;
};

static int cell_cmp(const void *a, const void *b, void *ctx)
{
	const struct cell_order *o = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (o->j[x] != o->j[y])
		return o->j[x] < o->j[y] ? -1 : 1;
	if (o->i[x] != o->i[y])
		return o->i[x] < o->i[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * ix[0 .. n) = the cells by line, then context. Each event's cells come in that order already
 * (j, then i, rising), so those of one event (the common file: Ir alone) need no sort.
 */
static void cell_sort(uint32_t *ix, const uint32_t *cell_i, const uint32_t *cell_j, uint32_t n)
{
	bool sorted = true;
	for (uint32_t k = 0; k < n; k++) {
		ix[k] = k;
		if (k && sorted)
			sorted = cell_j[k - 1] < cell_j[k] ||
				 (cell_j[k - 1] == cell_j[k] && cell_i[k - 1] < cell_i[k]);
	}
	struct cell_order o = {cell_i, cell_j};
	if (!sorted)
		pv_sort_r(ix, n, sizeof(*ix), cell_cmp, &o);
}

/*
 * The self samples of function fg's nr contexts (wt: [i * nev + e]), each on its line (the
 * function's per-line rows of the part). Each event's costs are split over (context, line)
 * cells by the north-west corner rule: contexts in turn take the lines in turn, so each
 * context's weight and each line's cost are exact in every event and there are at most
 * nr + nl cells an event (the model stays linear in the file; which context ran which line is
 * not in the file); one sample per cell of any event. A line's sample is on the caller's stack
 * (caller[i]) and a frame of that line; line 0 (no line) without an address is on the
 * context's own stack (own[i]). With negative costs the function's self stays unsplit.
 */
static int self_lines(struct cg *c, struct line_split *ls, uint32_t fg, const pv_stack_ix *caller,
		      const pv_stack_ix *own, const int64_t *wt, uint32_t nr)
{
	struct pv_builder *b = c->b;
	uint32_t nev = c->nev, nl = 0;
	for (uint32_t r = c->fns[fg].line_head; r != NONE32; r = c->line_next[r])
		nl++;
	uint32_t only = c->fns[fg].line_head;
	int plain = nev == 0 || nl == 0 ||
		    (nl == 1 && c->line_no[only] == 0 && cg_row_addr(c, only) == PV_ADDR_NONE);
	uint32_t *row = NULL;
	if (!plain) {
		row = scratch(c, &ls->buf[0], &ls->cap[0], (size_t)nl * sizeof(uint32_t));
		if (!row)
			return -1;
		uint32_t j = 0;
		for (uint32_t r = c->fns[fg].line_head; r != NONE32; r = c->line_next[r])
			row[j++] = r;
		for (uint32_t e = 0; e < nev && !plain; e++) {
			int64_t rs = 0, cs = 0;
			for (j = 0; j < nl; j++) {
				int64_t v = c->line_cost[(size_t)row[j] * nev + e];
				plain |= v < 0;
				cs += v;
			}
			for (uint32_t i = 0; i < nr; i++) {
				plain |= wt[(size_t)i * nev + e] < 0;
				rs += wt[(size_t)i * nev + e];
			}
			plain |= rs != cs;
		}
		c->lines_unsplit += plain;
	}
	if (plain) {
		for (uint32_t i = 0; i < nr; i++) {
			int any = 0;
			for (uint32_t e = 0; e < nev; e++)
				any |= wt[(size_t)i * nev + e] != 0;
			if (any)
				builder_sample(b, c->thread, own[i], PV_TIME_NONE,
					       wt + (size_t)i * nev);
		}
		return b->status ? -1 : 0;
	}
	/* the north-west corner rule, each event on its own: cells (i, j, e) */
	size_t most = (size_t)nev * ((size_t)nr + nl);
	uint32_t *cell_i = scratch(c, &ls->buf[1], &ls->cap[1], most * sizeof(uint32_t));
	uint32_t *cell_j = scratch(c, &ls->buf[2], &ls->cap[2], most * sizeof(uint32_t));
	uint32_t *cell_e = scratch(c, &ls->buf[3], &ls->cap[3], most * sizeof(uint32_t));
	int64_t *cell_w = scratch(c, &ls->buf[4], &ls->cap[4], most * sizeof(int64_t));
	uint32_t *ix = scratch(c, &ls->buf[5], &ls->cap[5], most * sizeof(uint32_t));
	int64_t *v = scratch(c, &ls->buf[6], &ls->cap[6], nev * sizeof(int64_t));
	if (!cell_i || !cell_j || !cell_e || !cell_w || !ix || !v)
		return -1;
	uint32_t ncell = 0;
	for (uint32_t e = 0; e < nev; e++) {
		uint32_t i = 0;
		int64_t left_i = nr ? wt[e] : 0;
		for (uint32_t j = 0; j < nl; j++) {
			int64_t left_j = c->line_cost[(size_t)row[j] * nev + e];
			while (left_j > 0 && i < nr) {
				if (left_i == 0) {
					if (++i < nr)
						left_i = wt[(size_t)i * nev + e];
					continue;
				}
				int64_t a = left_i < left_j ? left_i : left_j;
				cell_i[ncell] = i;
				cell_j[ncell] = j;
				cell_e[ncell] = e;
				cell_w[ncell++] = a;
				left_i -= a;
				left_j -= a;
			}
		}
	}
	/* the cells by line, then context: one sample per (context, line) */
	cell_sort(ix, cell_i, cell_j, ncell);
	pv_frame_ix fr = PV_NONE;
	for (uint32_t k0 = 0, k1; k0 < ncell && !b->status; k0 = k1) {
		uint32_t i = cell_i[ix[k0]], j = cell_j[ix[k0]];
		memset(v, 0, nev * sizeof(int64_t));
		for (k1 = k0; k1 < ncell && cell_i[ix[k1]] == i && cell_j[ix[k1]] == j; k1++)
			v[cell_e[ix[k1]]] += cell_w[ix[k1]];
		uint32_t ln = c->line_no[row[j]];
		uint64_t a = cg_row_addr(c, row[j]);
		if (k0 == 0 || j != cell_j[ix[k0 - 1]])
			fr = ln || a != PV_ADDR_NONE ? cg_fn_frame(c, fg, ln, a) : PV_NONE;
		pv_stack_ix st = fr != PV_NONE ? builder_stack_append(b, caller[i], fr) : own[i];
		builder_sample(b, c->thread, st, PV_TIME_NONE, v);
	}
	return b->status ? -1 : 0;
}

/* ---- splitting a node's contexts ---- */

/* A cycle's self shares, kept until its every row is split: per function, its lines at once. */
struct selfrec {
	uint32_t len, cap;
	uint32_t *fn;		/* the function (the part's numbering) */
	pv_stack_ix *par, *own; /* the context's parent and own stack */
	int64_t *wt;		/* [i * nev + k] */
};

/* The synthesis of one part. */
struct synth {
	struct cg *c;
	struct cg_graph g; /* the part's graph, functions numbered as c->touched_list */
	struct cg_grow G;  /* unrolling a cycle */
	struct ctxq q;	   /* slots: the functions, then the rows of the cycle being unrolled */
	int64_t theta[MAX_EVENTS]; /* the smallest share of a call a context gets of its own */
	uint64_t limit;	   /* contexts of the part past which they take the calls in turn ... */
	bool coarse;	   /* ... (then a node keeps its FOLD_KEEP heaviest, folds the others) */
	pv_frame_ix other; /* "(other)", made on first use */
	uint32_t *slot;	   /* per function: its column + 1 while a node is built, else 0;
			      then per function its self column in a cycle */
	uint8_t *in;	   /* per function: in the cycle being unrolled */
	uint32_t *xcol;	   /* per edge out of a cycle: its column */
	uint32_t *best, *bfsp; /* per function: struct cycle's */
	struct selfrec rec;
	struct line_split ls;
	void *buf[27];
	size_t cap[27];
};

/* Scratch buffer i of the synthesis (n elements of elt bytes). */
#define SBUF(S, i, n, elt) scratch((S)->c, &(S)->buf[i], &(S)->cap[i], (size_t)(n) * (elt))

/* Indices by a key, largest first (ties: the smaller index first); -1 when out of memory. */
static int order_desc(struct synth *S, uint32_t *ix, uint32_t n, const int64_t *key,
		      uint32_t stride)
{
	struct pv_kix *a = SBUF(S, 26, n, sizeof(*a));
	if (!a)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		a[i] = (struct pv_kix){key[(size_t)i * stride], i};
	pv_sort_kix_desc(a, n);
	for (uint32_t i = 0; i < n; i++)
		ix[i] = a[i].ix;
	return 0;
}

/*
 * One context's share of event k (amount a, at most what the columns still need, left): in
 * proportion to what each column still needs, the shares of a call below the threshold given
 * to the context's other shares, when a is at least the threshold or all that is left; else the
 * columns in turn (cord: the north-west corner rule, nw the first column not yet full). Adds the
 * shares to acc[j * nev + k], touched[] listing the columns touched first (mark[j]).
 */
static int share(struct synth *S, uint32_t k, int64_t a, uint32_t ncol, int64_t *need,
		 int64_t *left, uint32_t *nw, const uint32_t *cord, int64_t *acc, uint8_t *mark,
		 uint32_t *touched, uint32_t *nt)
{
	uint32_t nev = S->c->nev;
	int64_t theta = S->theta[k];
	if (a > left[k])
		a = left[k];
	if (a <= 0)
		return 0;
	if (a >= theta || a == left[k]) {
		int64_t *w = SBUF(S, 0, ncol, sizeof(int64_t));
		int64_t *o = SBUF(S, 1, ncol, sizeof(int64_t));
		if (!w || !o)
			return -1;
		for (uint32_t j = 0; j < ncol; j++)
			w[j] = need[(size_t)j * nev + k];
		pv_apportion(a, w, ncol, o);
		if (a < left[k]) {
			/* the small shares of calls go to the context's other shares, as far as
			 * those columns need (they can take all: the columns need left >= a) */
			int64_t freed = 0;
			for (uint32_t j = 1; j < ncol; j++)
				if (o[j] > 0 && o[j] < theta) {
					freed += o[j];
					w[j] = -o[j]; /* dropped */
					o[j] = 0;
				}
			for (int pass = 0; pass < 2 && freed; pass++)
				for (uint32_t j = 0; j < ncol && freed; j++) {
					if (pass == 0 ? o[j] <= 0 : w[j] >= 0)
						continue;
					int64_t room = need[(size_t)j * nev + k] - o[j];
					int64_t add = room < freed ? room : freed;
					o[j] += add;
					freed -= add;
				}
		}
		for (uint32_t j = 0; j < ncol; j++) {
			if (!o[j])
				continue;
			acc[(size_t)j * nev + k] += o[j];
			need[(size_t)j * nev + k] -= o[j];
			if (!mark[j]) {
				mark[j] = 1;
				touched[(*nt)++] = j;
			}
		}
		left[k] -= a;
		return 0;
	}
	while (a > 0 && nw[k] < ncol) {
		uint32_t j = cord[nw[k]];
		int64_t room = need[(size_t)j * nev + k];
		if (!room) {
			nw[k]++;
			continue;
		}
		int64_t x = room < a ? room : a;
		acc[(size_t)j * nev + k] += x;
		need[(size_t)j * nev + k] -= x;
		a -= x;
		left[k] -= x;
		if (!mark[j]) {
			mark[j] = 1;
			touched[(*nt)++] = j;
		}
	}
	return 0;
}

/*
 * Past the part's budget of contexts, a node keeps its FOLD_KEEP heaviest and folds the others
 * into an "(other)" frame under their own parents (a sample of all their flow): the node's
 * columns shrink by as much (in proportion), and each child's loss waits in its slot (lost[])
 * to shrink its own columns, so this function and those below it lose that cost (info says how
 * many contexts) and the samples still add up to the file's cost. The folded contexts' amounts
 * become 0.
 */
static int fold(struct synth *S, uint32_t nr, const pv_stack_ix *par, int64_t *amt,
		const uint32_t *ord, uint32_t ncol, const uint32_t *dst, int64_t *need,
		int64_t *left)
{
	struct cg *c = S->c;
	struct pv_builder *b = c->b;
	uint32_t nev = c->nev;
	if (S->other == PV_NONE) {
		pv_func_ix f = builder_func(b, builder_cstr(b, "(other)"), PV_NONE, PV_NONE, 0);
		S->other = builder_func_frame(b, f);
	}
	int64_t *w = SBUF(S, 0, ncol, sizeof(int64_t)), *o = SBUF(S, 1, ncol, sizeof(int64_t));
	if (!w || !o || b->status)
		return -1;
	int64_t gone[MAX_EVENTS] = {0};
	for (uint32_t oi = FOLD_KEEP; oi < nr; oi++) {
		int64_t *a = amt + (size_t)ord[oi] * nev;
		bool any = false;
		for (uint32_t k = 0; k < nev; k++) {
			gone[k] += a[k];
			any |= a[k] != 0;
		}
		if (any) {
			builder_sample(b, c->thread,
				       builder_stack_append(b, par[ord[oi]], S->other),
				       PV_TIME_NONE, a);
			c->ctx_folded++;
		}
		memset(a, 0, nev * sizeof(int64_t));
	}
	for (uint32_t k = 0; k < nev; k++) {
		for (uint32_t j = 0; j < ncol; j++)
			w[j] = need[(size_t)j * nev + k];
		left[k] -= gone[k];
		pv_apportion(left[k], w, ncol, o);
		for (uint32_t j = 0; j < ncol; j++) {
			if (j)
				S->q.lost[(size_t)dst[j] * nev + k] += w[j] - o[j];
			need[(size_t)j * nev + k] = o[j];
		}
	}
	return b->status ? -1 : 0;
}

/*
 * The cost folded above a node (lost[slot], event k): its columns (need, summing to *sum) shrink
 * by as much, in proportion, and each child's part of the loss waits in its slot (dst[j]).
 */
static int shrink_lost(struct synth *S, uint32_t slot, uint32_t k, uint32_t ncol,
		       const uint32_t *dst, int64_t *need, int64_t *sum)
{
	uint32_t nev = S->c->nev;
	int64_t *lost = S->q.lost + (size_t)slot * nev + k;
	int64_t *cw = SBUF(S, 0, ncol, sizeof(int64_t)), *co = SBUF(S, 1, ncol, sizeof(int64_t));
	if (!cw || !co)
		return -1;
	for (uint32_t j = 0; j < ncol; j++)
		cw[j] = need[(size_t)j * nev + k];
	*sum = *lost < *sum ? *sum - *lost : 0;
	pv_apportion(*sum, cw, ncol, co);
	for (uint32_t j = 0; j < ncol; j++) {
		if (j)
			S->q.lost[(size_t)dst[j] * nev + k] += cw[j] - co[j];
		need[(size_t)j * nev + k] = co[j];
	}
	*lost = 0;
	return 0;
}

/*
 * Splits a node's nr contexts (parents par[i], flows flow[i * nev + k]) over its columns
 * (col[j * nev + k]: j = 0 its self cost, j >= 1 a child whose contexts go to slot dst[j]), per
 * event: the contexts' flows scaled to the columns' sum when they differ (a file whose calls
 * bring more or less than the function spends), then each context in turn, the heaviest first,
 * takes its share (share()). Every column gets exactly its amount and every context exactly its
 * flow. Sets own[i], the context's stack (function fg's frame on its parent; PV_NONE when it
 * holds nothing), and wt[i * nev + k], its self cost; a negative self cost goes to the heaviest.
 * The cost folded above the node (lost[slot]; slot NONE32: none) shrinks its columns first.
 */
static int split_node(struct synth *S, uint32_t fg, uint32_t slot, uint32_t nr,
		      const pv_stack_ix *par, const int64_t *flow, uint32_t ncol,
		      const int64_t *col, const uint32_t *dst, pv_stack_ix *own, int64_t *wt)
{
	struct cg *c = S->c;
	struct pv_builder *b = c->b;
	uint32_t nev = c->nev;
	int64_t *amt = SBUF(S, 2, (size_t)nr * nev, sizeof(int64_t));
	int64_t *w = SBUF(S, 3, nr, sizeof(int64_t)), *o = SBUF(S, 4, nr, sizeof(int64_t));
	int64_t *need = SBUF(S, 5, (size_t)ncol * nev, sizeof(int64_t));
	int64_t *acc = SBUF(S, 6, (size_t)ncol * nev, sizeof(int64_t));
	uint32_t *ord = SBUF(S, 7, nr, sizeof(uint32_t)),
		 *cord = SBUF(S, 8, ncol, sizeof(uint32_t));
	uint32_t *touched = SBUF(S, 9, ncol, sizeof(uint32_t));
	uint8_t *mark = SBUF(S, 10, ncol, 1);
	int64_t left[MAX_EVENTS];
	uint32_t nw[MAX_EVENTS];
	if (b->status)
		return -1;
	bool scaled = false;
	for (uint32_t k = 0; k < nev; k++) {
		int64_t sum = 0, in = 0;
		for (uint32_t j = 0; j < ncol; j++) {
			need[(size_t)j * nev + k] = pos0(col[(size_t)j * nev + k]);
			sum += need[(size_t)j * nev + k];
		}
		if (slot != NONE32 && S->q.lost[(size_t)slot * nev + k] &&
		    shrink_lost(S, slot, k, ncol, dst, need, &sum))
			return -1;
		for (uint32_t i = 0; i < nr; i++) {
			w[i] = pos0(flow[(size_t)i * nev + k]);
			in += w[i];
		}
		if (in != sum) {
			pv_apportion(sum, w, nr, o);
			memcpy(w, o, (size_t)nr * sizeof(int64_t));
			scaled |= in != 0;
		}
		for (uint32_t i = 0; i < nr; i++)
			amt[(size_t)i * nev + k] = w[i];
		left[k] = sum;
		nw[k] = 0;
	}
	c->ctx_scaled += scaled;
	memset(acc, 0, (size_t)ncol * nev * sizeof(int64_t));
	memset(mark, 0, ncol);
	if (order_desc(S, ord, nr, amt, nev) || order_desc(S, cord, ncol, col, nev))
		return -1;
	if (S->q.pushed > S->limit && !S->coarse) {
		/* past the budget: contexts take the calls in turn, no more in proportion */
		S->coarse = true;
		c->ctx_coarse++;
		for (uint32_t k = 0; k < nev; k++)
			S->theta[k] = INT64_MAX;
	}
	if (S->coarse && nr > FOLD_KEEP && fold(S, nr, par, amt, ord, ncol, dst, need, left))
		return -1;
	pv_frame_ix fr = cg_fn_frame(c, fg, 0, PV_ADDR_NONE);
	for (uint32_t oi = 0; oi < nr && !b->status; oi++) {
		uint32_t i = ord[oi], nt = 0;
		bool any = false;
		for (uint32_t k = 0; k < nev; k++)
			any |= amt[(size_t)i * nev + k] != 0;
		own[i] = PV_NONE;
		ev_zero(wt + (size_t)i * nev, nev);
		if (!any)
			continue;
		own[i] = builder_stack_append(b, par[i], fr);
		c->contexts++;
		for (uint32_t k = 0; k < nev; k++)
			if (share(S, k, amt[(size_t)i * nev + k], ncol, need, left, nw, cord, acc,
				  mark, touched, &nt))
				return -1;
		for (uint32_t t = 0; t < nt; t++) {
			uint32_t j = touched[t];
			int64_t *a = acc + (size_t)j * nev;
			if (j == 0)
				ev_copy(wt + (size_t)i * nev, a, nev);
			else if (q_push(c, &S->q, dst[j], own[i], a))
				return -1;
			ev_zero(a, nev);
			mark[j] = 0;
		}
	}
	for (uint32_t k = 0; k < nev && nr; k++) {
		if (col[k] >= 0)
			continue;
		uint32_t i = ord[0];
		if (own[i] == PV_NONE) {
			own[i] = builder_stack_append(b, par[i], fr);
			c->contexts++;
		}
		wt[(size_t)i * nev + k] += col[k];
	}
	return b->status ? -1 : 0;
}

/* The contexts of slot (function fg's node), taken: par, flow (the synthesis' buffers 11, 12). */
static uint32_t take(struct synth *S, uint32_t slot, pv_stack_ix **par, int64_t **flow,
		     uint32_t extra)
{
	uint32_t n = S->q.pend[slot].n, nev = S->c->nev;
	*par = SBUF(S, 11, n + extra, sizeof(pv_stack_ix));
	*flow = SBUF(S, 12, (size_t)(n + extra) * nev, sizeof(int64_t));
	if (!*par || !*flow)
		return 0;
	return q_take(&S->q, slot, *par, *flow);
}

/*
 * A function outside a recursion cycle: its contexts (a root one when no call brought any) over
 * its self cost and its calls to each other function.
 */
static int function_node(struct synth *S, uint32_t f)
{
	struct cg *c = S->c;
	const struct cg_graph *g = &S->g;
	uint32_t nev = c->nev, fg = c->touched_list[f], ncol = 1;
	uint32_t deg = g->out_first[f + 1] - g->out_first[f];
	int64_t *col = SBUF(S, 13, (size_t)(deg + 1) * nev, sizeof(int64_t));
	uint32_t *dst = SBUF(S, 14, deg + 1, sizeof(uint32_t));
	if (!col || !dst)
		return -1;
	ev_copy(col, g->self + (size_t)f * nev, nev);
	dst[0] = NONE32;
	bool any = false;
	for (uint32_t k = 0; k < nev; k++)
		any |= col[k] != 0;
	for (uint32_t x = g->out_first[f]; x < g->out_first[f + 1]; x++) {
		uint32_t h = g->to[x];
		if (h == f)
			continue; /* recursion cut: the outer call holds it */
		if (!S->slot[h]) {
			S->slot[h] = ++ncol;
			dst[ncol - 1] = h;
			ev_zero(col + (size_t)(ncol - 1) * nev, nev);
		}
		int64_t *a = col + (size_t)(S->slot[h] - 1) * nev;
		for (uint32_t k = 0; k < nev; k++) {
			a[k] += pos0(g->eff_out[(size_t)x * nev + k]);
			any |= a[k] != 0;
		}
	}
	for (uint32_t j = 1; j < ncol; j++)
		S->slot[dst[j]] = 0;
	pv_stack_ix *par;
	int64_t *flow;
	uint32_t nr = take(S, f, &par, &flow, 1);
	if (c->b->status)
		return -1;
	if (!any) {
		c->ctx_scaled += nr > 0; /* calls that bring cost to a function that spends none */
		return 0;
	}
	if (!nr) {
		/* a root: nothing calls it, or (a file whose calls cost nothing) none brought any
		 */
		for (uint32_t j = g->in_first[f]; j < g->in_first[f + 1]; j++)
			if (g->from[g->in_edge[j]] != f) {
				c->ctx_rooted++;
				break;
			}
		par[0] = PV_NONE;
		memset(flow, 0, nev * sizeof(int64_t));
		nr = 1;
	}
	pv_stack_ix *own = SBUF(S, 15, nr, sizeof(pv_stack_ix));
	int64_t *wt = SBUF(S, 16, (size_t)nr * nev, sizeof(int64_t));
	if (!own || !wt || split_node(S, fg, f, nr, par, flow, ncol, col, dst, own, wt))
		return -1;
	return self_lines(c, &S->ls, fg, par, own, wt, nr);
}

/* ---- recursion cycles ---- */

/* Items from .. n - 1 grouped by key[i] < nk: group j is out[first[j] .. first[j + 1]). */
static void group_by(const uint32_t *key, uint32_t from, uint32_t n, uint32_t nk, uint32_t *first,
		     uint32_t *out)
{
	memset(first, 0, ((size_t)nk + 1) * sizeof(uint32_t));
	for (uint32_t i = from; i < n; i++)
		first[key[i] + 1]++;
	for (uint32_t j = 0; j < nk; j++)
		first[j + 1] += first[j];
	for (uint32_t i = from; i < n; i++)
		out[first[key[i]]++] = i;
	for (uint32_t j = nk; j > 0; j--)
		first[j] = first[j - 1];
	first[0] = 0;
}

static int rec_add(struct synth *S, uint32_t f, pv_stack_ix par, pv_stack_ix own, const int64_t *wt)
{
	struct selfrec *R = &S->rec;
	uint32_t nev = S->c->nev;
	if (R->len == R->cap) {
		uint32_t nc = grow_cap(R->cap, (uint64_t)R->len + 1);
		if (!nc || COL_GROW(R->fn, nc) || COL_GROW(R->par, nc) || COL_GROW(R->own, nc) ||
		    col_realloc((void **)&R->wt, nev * sizeof(int64_t), nc)) {
			S->c->b->status = nc ? PV_ENOMEM : PV_ELIMIT;
			return -1;
		}
		R->cap = nc;
	}
	R->fn[R->len] = f;
	R->par[R->len] = par;
	R->own[R->len] = own;
	memcpy(R->wt + (size_t)R->len * nev, wt, nev * sizeof(int64_t));
	R->len++;
	return 0;
}

/*
 * A cycle's columns: per member u its self cost (column colof[u], the first m), per member and
 * callee outside the cycle the calls (xcol[x] for each such edge x); colu / colh: the column's
 * member and callee (NONE32: the self cost), need: what it costs, not yet given to a row.
 */
struct cycle {
	const uint32_t *mem;
	uint32_t m, K;
	uint32_t *colof, *colu, *colh, *xcol;
	int64_t *need;	 /* [id * nev + k] */
	uint32_t budget; /* rows of all entries */
	int64_t T0;	 /* what the cycle costs (first event) */
	/* the unrolled rows of one entry (grown in unroll) */
	uint32_t *rcol; /* per row: its column's local number */
	/* the columns one entry touches, numbered locally: loc[l] the column, lid[id] its number
	 * + 1 (0: not touched); per local number its rows (has), estimate P and share M */
	uint32_t *loc, *lid, *has, nloc;
	int64_t *P, *M;	 /* [l * nev + k] */
	uint32_t *best;	 /* per function: its heaviest row, NONE32 when none */
	uint32_t *bfsp;	 /* per member: its parent in a breadth-first walk from the entry ... */
	uint32_t *queue; /* ... (m members) made when first needed (walked) */
	uint32_t entry;
	bool walked;
	uint32_t rows_cap;
};

/* Column id's local number for this entry, a new one (nothing of it yet) when it had none. */
static uint32_t col_touch(struct cycle *Y, uint32_t id, uint32_t nev)
{
	if (Y->lid[id])
		return Y->lid[id] - 1;
	uint32_t l = Y->nloc++;
	Y->loc[l] = id;
	Y->lid[id] = l + 1;
	Y->has[l] = 0;
	memset(Y->P + (size_t)l * nev, 0, nev * sizeof(int64_t));
	memset(Y->M + (size_t)l * nev, 0, nev * sizeof(int64_t));
	return l;
}

/* A row of member u under one of its callers' rows (made the same way when it has none). */
static uint32_t ensure_row(struct synth *S, struct cycle *Y, uint32_t u)
{
	struct cg_rows *R = &S->G.R;
	uint32_t *chain = SBUF(S, 20, Y->m, sizeof(uint32_t));
	int64_t zero[MAX_EVENTS] = {0};
	if (!chain)
		return NONE32;
	if (!Y->walked) {
		/* a breadth-first walk inside the cycle from the entry: the paths to take */
		const struct cg_graph *g = &S->g;
		uint32_t qh = 0, qt = 0, e = Y->entry;
		for (uint32_t j = 0; j < Y->m; j++)
			Y->bfsp[Y->mem[j]] = NONE32;
		Y->bfsp[e] = e;
		Y->queue[qt++] = e;
		while (qh < qt) {
			uint32_t v = Y->queue[qh++];
			for (uint32_t x = g->out_first[v]; x < g->out_first[v + 1]; x++) {
				uint32_t h = g->to[x];
				if (S->in[h] && Y->bfsp[h] == NONE32) {
					Y->bfsp[h] = v;
					Y->queue[qt++] = h;
				}
			}
		}
		Y->walked = true;
	}
	uint32_t n = 0, v = u;
	while (Y->best[v] == NONE32) {
		chain[n++] = v;
		v = Y->bfsp[v];
	}
	uint32_t r = Y->best[v];
	while (n) {
		v = chain[--n];
		if (R->len == Y->rows_cap || cg_rows_add(R, v, r, zero, zero, true, false)) {
			S->c->b->status = PV_ENOMEM;
			return NONE32;
		}
		r = R->len - 1;
		Y->best[v] = r;
		Y->rcol[r] = col_touch(Y, Y->colof[v], S->c->nev);
		Y->has[Y->rcol[r]]++;
	}
	return r;
}

/*
 * One entry e of a cycle with flows F[k]: the cycle unrolled from e by the tree rule (rows of
 * other functions are its calls out, not expanded), then given its share of what the cycle's
 * columns still need (all of it when last; else in proportion to the rows' estimates, and
 * where those columns are full, to others), each column's share over its rows in proportion to
 * their estimates; then every row of a member, top-down, splits its contexts (those entering
 * by e for the first row; rooted when no call entered the cycle) over its self cost and rows.
 */
/*
 * An entry's share of what the cycle's columns still need (Y->M per local column), from its
 * flows F in proportion to its rows' estimates (Y->P), full columns' excess to the others; the
 * last entry takes all that is left. w, o: scratch of the local columns and K.
 */
static void entry_share(struct cycle *Y, const int64_t *F, bool last, int64_t *w, int64_t *o,
			uint32_t nev)
{
	uint32_t K = Y->K;
	int64_t *P = Y->P, *M = Y->M;
	uint32_t nsup = Y->nloc;
	for (uint32_t id = 0; last && id < K; id++)
		col_touch(Y, id, nev);
	for (uint32_t k = 0; k < nev; k++) {
		if (last) {
			for (uint32_t l = 0; l < Y->nloc; l++) {
				M[(size_t)l * nev + k] = Y->need[(size_t)Y->loc[l] * nev + k];
				Y->need[(size_t)Y->loc[l] * nev + k] = 0;
			}
			continue;
		}
		for (uint32_t l = 0; l < nsup; l++)
			w[l] = P[(size_t)l * nev + k];
		pv_apportion(F[k], w, nsup, o);
		int64_t short_ = F[k];
		for (uint32_t l = 0; l < nsup; l++) {
			int64_t nd = Y->need[(size_t)Y->loc[l] * nev + k];
			int64_t x = o[l] < nd ? o[l] : nd;
			M[(size_t)l * nev + k] = x > 0 ? x : 0;
			short_ -= M[(size_t)l * nev + k];
		}
		/* what full columns could not take: the columns of its rows first, then others */
		for (uint32_t i = 0; i < nsup + K && short_ > 0; i++) {
			uint32_t id = i < nsup ? Y->loc[i] : i - nsup;
			int64_t room = Y->need[(size_t)id * nev + k];
			if (i >= nsup && Y->lid[id])
				room -= M[(size_t)(Y->lid[id] - 1) * nev + k];
			else if (i < nsup)
				room -= M[(size_t)i * nev + k];
			int64_t x = room < short_ ? room : short_;
			if (x > 0) {
				M[(size_t)col_touch(Y, id, nev) * nev + k] += x;
				short_ -= x;
			}
		}
		for (uint32_t l = 0; l < Y->nloc; l++)
			Y->need[(size_t)Y->loc[l] * nev + k] -= M[(size_t)l * nev + k];
	}
}

/* A column given a share and holding no row gets one (a member's row, and a call's under it). */
static int rows_for_shares(struct synth *S, struct cycle *Y)
{
	struct cg_rows *R = &S->G.R;
	uint32_t nev = S->c->nev;
	const int64_t *M = Y->M;
	for (uint32_t l = 0; l < Y->nloc; l++) {
		bool any = false;
		for (uint32_t k = 0; k < nev; k++)
			any |= M[(size_t)l * nev + k] != 0;
		uint32_t id = Y->loc[l];
		if (!any || Y->has[l])
			continue;
		uint32_t r = ensure_row(S, Y, Y->colu[id]);
		if (r == NONE32)
			return -1;
		if (Y->colh[id] != NONE32) {
			int64_t zero[MAX_EVENTS] = {0};
			if (R->len == Y->rows_cap ||
			    cg_rows_add(R, Y->colh[id], r, zero, zero, true, false)) {
				S->c->b->status = PV_ENOMEM;
				return -1;
			}
			Y->rcol[R->len - 1] = l;
			Y->has[l]++;
		}
	}
	return 0;
}

/*
 * The rows of an unrolled cycle's members, top-down: each splits its contexts (the first row:
 * those entering by e; a root one when rooted and none did) over its share a[r] of its self
 * cost and its children's totals tot[].
 */
static int split_rows(struct synth *S, uint32_t e, bool rooted, const int64_t *a,
		      const int64_t *tot)
{
	struct cg *c = S->c;
	struct pv_builder *b = c->b;
	const struct cg_rows *R = &S->G.R;
	uint32_t nev = c->nev, nf = S->g.nf, nrows = R->len;
	/* children by parent */
	uint32_t *cfirst = SBUF(S, 17, nrows + 1, sizeof(uint32_t));
	uint32_t *kids = SBUF(S, 18, nrows, sizeof(uint32_t));
	if (!cfirst || !kids || q_slots(c, &S->q, nf + nrows))
		return -1;
	memset(S->q.lost + (size_t)nf * nev, 0, (size_t)nrows * nev * sizeof(int64_t));
	group_by(R->parent, 1, nrows, nrows, cfirst, kids);
	/* the rows of members, top-down */
	for (uint32_t r = 0; r < nrows && !b->status; r++) {
		uint32_t f = R->func[r];
		if (!S->in[f])
			continue;
		uint32_t nk = cfirst[r + 1] - cfirst[r], ncol = nk + 1;
		int64_t *col = SBUF(S, 14, (size_t)ncol * nev, sizeof(int64_t));
		uint32_t *dst = SBUF(S, 20, ncol, sizeof(uint32_t));
		if (!col || !dst)
			return -1;
		memcpy(col, a + (size_t)r * nev, nev * sizeof(int64_t));
		dst[0] = NONE32;
		for (uint32_t i = 0; i < nk; i++) {
			uint32_t ch = kids[cfirst[r] + i];
			memcpy(col + (size_t)(i + 1) * nev, tot + (size_t)ch * nev,
			       nev * sizeof(int64_t));
			dst[i + 1] = S->in[R->func[ch]] ? nf + ch : R->func[ch];
		}
		pv_stack_ix *par;
		int64_t *flow;
		uint32_t nr = take(S, r ? nf + r : e, &par, &flow, 1);
		if (b->status)
			return -1;
		if (!nr && r == 0 && rooted) {
			par[0] = PV_NONE;
			memset(flow, 0, nev * sizeof(int64_t));
			nr = 1;
		}
		if (!nr)
			continue;
		pv_stack_ix *own = SBUF(S, 15, nr, sizeof(pv_stack_ix));
		int64_t *wt = SBUF(S, 16, (size_t)nr * nev, sizeof(int64_t));
		if (!own || !wt ||
		    split_node(S, c->touched_list[f], r ? nf + r : NONE32, nr, par, flow, ncol, col,
			       dst, own, wt))
			return -1;
		for (uint32_t i = 0; i < nr; i++)
			if (own[i] != PV_NONE &&
			    rec_add(S, f, par[i], own[i], wt + (size_t)i * nev))
				return -1;
	}
	return b->status ? -1 : 0;
}

static int unroll(struct synth *S, struct cycle *Y, uint32_t e, const int64_t *F, bool last,
		  bool rooted)
{
	struct cg *c = S->c;
	struct pv_builder *b = c->b;
	const struct cg_graph *g = &S->g;
	struct cg_grow *G = &S->G;
	struct cg_rows *R = &G->R;
	uint32_t nev = c->nev, K = Y->K;
	int64_t self0[MAX_EVENTS];
	cg_grow_clear(G);
	G->budget = Y->budget;
	if (!last && Y->T0 > 0) {
		/* the entries share the rows in proportion to their flows */
		uint64_t share = (uint64_t)((i128)Y->budget * pos0(F[0]) / Y->T0);
		G->budget = share < 16 ? 16 : (uint32_t)share;
	}
	cg_first_self(G, e, F, self0);
	if (cg_rows_add(R, e, PV_NONE, F, self0, true, false) || cg_grow_all(G))
		goto oom;
	/* room for the rows made where a column has none: a member's, a call's (and its path) */
	Y->rows_cap = R->len + Y->m + K;
	Y->rcol = SBUF(S, 21, Y->rows_cap, sizeof(uint32_t));
	Y->P = SBUF(S, 22, (size_t)K * nev, sizeof(int64_t));
	Y->M = SBUF(S, 23, (size_t)K * nev, sizeof(int64_t));
	Y->has = SBUF(S, 17, K, sizeof(uint32_t));
	Y->loc = SBUF(S, 18, K, sizeof(uint32_t));
	int64_t *w = SBUF(S, 0, Y->rows_cap + K, sizeof(int64_t));
	int64_t *o = SBUF(S, 1, Y->rows_cap + K, sizeof(int64_t));
	if (!Y->rcol || !Y->P || !Y->M || !Y->has || !Y->loc || !w || !o)
		return -1;
	int64_t *P = Y->P, *M = Y->M;
	Y->nloc = 0;
	for (uint32_t r = 0; r < R->len; r++) {
		uint32_t f = R->func[r], id;
		const int64_t *est;
		if (S->in[f]) {
			id = Y->colof[f];
			est = R->self + (size_t)r * nev;
			if (Y->best[f] == NONE32 ||
			    R->total[(size_t)r * nev] > R->total[(size_t)Y->best[f] * nev])
				Y->best[f] = r;
		} else {
			uint32_t u = R->func[R->parent[r]], x = g->out_first[u];
			while (g->to[x] != f)
				x++;
			id = Y->xcol[x];
			est = R->total + (size_t)r * nev;
		}
		uint32_t l = col_touch(Y, id, nev);
		Y->rcol[r] = l;
		Y->has[l]++;
		for (uint32_t k = 0; k < nev; k++)
			P[(size_t)l * nev + k] += pos0(est[k]);
	}
	entry_share(Y, F, last, w, o, nev);
	if (rows_for_shares(S, Y))
		return -1;
	/* each column's share over its rows, in proportion to their estimates: a[r] */
	uint32_t nrows = R->len, nloc = Y->nloc;
	uint32_t *first = SBUF(S, 24, nloc + 1, sizeof(uint32_t));
	uint32_t *byc = SBUF(S, 25, nrows, sizeof(uint32_t));
	int64_t *tot = SBUF(S, 19, (size_t)nrows * nev, sizeof(int64_t));
	int64_t *a = SBUF(S, 13, (size_t)nrows * nev, sizeof(int64_t));
	if (!first || !byc || !tot || !a)
		return -1;
	group_by(Y->rcol, 0, nrows, nloc, first, byc);
	for (uint32_t l = 0; l < nloc; l++) {
		uint32_t n = first[l + 1] - first[l];
		const uint32_t *rs = byc + first[l];
		bool self_col = Y->colh[Y->loc[l]] == NONE32;
		for (uint32_t k = 0; k < nev && n; k++) {
			for (uint32_t i = 0; i < n; i++)
				w[i] =
				    pos0((self_col ? R->self : R->total)[(size_t)rs[i] * nev + k]);
			pv_apportion(M[(size_t)l * nev + k], w, n, o);
			for (uint32_t i = 0; i < n; i++)
				a[(size_t)rs[i] * nev + k] = o[i];
		}
		Y->lid[Y->loc[l]] = 0;
	}
	/* a row's total: its share and its rows' (children after their parents) */
	memcpy(tot, a, (size_t)nrows * nev * sizeof(int64_t));
	for (uint32_t r = nrows; r-- > 1;)
		for (uint32_t k = 0; k < nev; k++)
			tot[(size_t)R->parent[r] * nev + k] += tot[(size_t)r * nev + k];
	if (split_rows(S, e, rooted, a, tot))
		return -1;
	for (uint32_t r = 0; r < nrows; r++)
		Y->best[R->func[r]] = NONE32;
	return b->status ? -1 : 0;
oom:
	b->status = PV_ENOMEM;
	return -1;
}

/* The members' self shares of a cycle to their lines (a negative self cost: the heaviest). */
static int cycle_lines(struct synth *S, const struct cycle *Y)
{
	struct cg *c = S->c;
	struct selfrec *R = &S->rec;
	uint32_t nev = c->nev, m = Y->m, n = R->len;
	uint32_t *first = SBUF(S, 17, m + 1, sizeof(uint32_t));
	uint32_t *ix = SBUF(S, 18, n, sizeof(uint32_t));
	pv_stack_ix *par = SBUF(S, 11, n, sizeof(pv_stack_ix));
	pv_stack_ix *own = SBUF(S, 15, n, sizeof(pv_stack_ix));
	int64_t *wt = SBUF(S, 16, (size_t)n * nev, sizeof(int64_t));
	if (!first || !ix || !par || !own || !wt)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		R->fn[i] = Y->colof[R->fn[i]]; /* the member's rank in the cycle */
	group_by(R->fn, 0, n, m, first, ix);
	for (uint32_t u = 0; u < m && !c->b->status; u++) {
		uint32_t nr = first[u + 1] - first[u], heavy = 0;
		if (!nr)
			continue;
		for (uint32_t i = 0; i < nr; i++) {
			uint32_t x = ix[first[u] + i];
			par[i] = R->par[x];
			own[i] = R->own[x];
			memcpy(wt + (size_t)i * nev, R->wt + (size_t)x * nev,
			       nev * sizeof(int64_t));
			if (wt[(size_t)i * nev] > wt[(size_t)heavy * nev])
				heavy = i;
		}
		const int64_t *self = S->g.self + (size_t)Y->mem[u] * nev;
		for (uint32_t k = 0; k < nev; k++)
			if (self[k] < 0)
				wt[(size_t)heavy * nev + k] += self[k];
		if (self_lines(c, &S->ls, c->touched_list[Y->mem[u]], par, own, wt, nr))
			return -1;
	}
	R->len = 0;
	return c->b->status ? -1 : 0;
}

/*
 * A cycle's columns (struct cycle): each member's self cost, then its calls out of the cycle,
 * one column per callee; Y->K the number of columns, Y->budget its rows.
 */
static void cycle_columns(struct synth *S, struct cycle *Y)
{
	const struct cg_graph *g = &S->g;
	uint32_t nev = S->c->nev, m = Y->m, K = 0, internal = 0;
	uint32_t *colu = Y->colu, *colh = Y->colh;
	int64_t *need = Y->need;
	for (uint32_t i = 0; i < m; i++) {
		uint32_t u = Y->mem[i];
		Y->colof[u] = K;
		colu[K] = u;
		colh[K] = NONE32;
		for (uint32_t k = 0; k < nev; k++)
			need[(size_t)K * nev + k] = pos0(g->self[(size_t)u * nev + k]);
		K++;
	}
	for (uint32_t i = 0; i < m; i++) {
		uint32_t u = Y->mem[i];
		for (uint32_t x = g->out_first[u]; x < g->out_first[u + 1]; x++) {
			uint32_t h = g->to[x];
			if (S->in[h]) {
				internal += h != u;
				continue;
			}
			if (!S->slot[h]) {
				S->slot[h] = K + 1;
				colu[K] = u;
				colh[K] = h;
				memset(need + (size_t)K * nev, 0, nev * sizeof(int64_t));
				K++;
			}
			uint32_t id = S->slot[h] - 1;
			Y->xcol[x] = id;
			for (uint32_t k = 0; k < nev; k++)
				need[(size_t)id * nev + k] += pos0(g->eff_out[(size_t)x * nev + k]);
		}
		for (uint32_t x = g->out_first[u]; x < g->out_first[u + 1]; x++)
			S->slot[g->to[x]] = 0;
	}
	Y->K = K;
	Y->budget = CYCLE_ROWS * (m + internal + K);
}

/*
 * The cost folded above a cycle (lost[] of its members): its columns (summing to T[k]) shrink
 * by as much, in proportion, and the callees' part of the loss waits in their slots.
 */
static int cycle_lost(struct synth *S, struct cycle *Y, int64_t *T)
{
	uint32_t nev = S->c->nev, m = Y->m, K = Y->K;
	int64_t *need = Y->need;
	for (uint32_t k = 0; k < nev; k++) {
		int64_t gone = 0;
		for (uint32_t i = 0; i < m; i++) {
			gone += S->q.lost[(size_t)Y->mem[i] * nev + k];
			S->q.lost[(size_t)Y->mem[i] * nev + k] = 0;
		}
		if (!gone)
			continue;
		int64_t *cw = SBUF(S, 0, K, sizeof(int64_t)), *co = SBUF(S, 1, K, sizeof(int64_t));
		if (!cw || !co)
			return -1;
		for (uint32_t id = 0; id < K; id++)
			cw[id] = need[(size_t)id * nev + k];
		T[k] = gone < T[k] ? T[k] - gone : 0;
		pv_apportion(T[k], cw, K, co);
		for (uint32_t id = 0; id < K; id++) {
			if (Y->colh[id] != NONE32)
				S->q.lost[(size_t)Y->colh[id] * nev + k] += cw[id] - co[id];
			need[(size_t)id * nev + k] = co[id];
		}
	}
	return 0;
}

/*
 * A recursion cycle (component comp of more than one function): unrolled from each function
 * its contexts enter by, the lightest entry first and the heaviest last (which takes what the
 * others left); a cycle nothing enters starts at its costliest member, as in the view.
 */
static int cycle_node(struct synth *S, uint32_t comp)
{
	struct cg *c = S->c;
	const struct cg_graph *g = &S->g;
	uint32_t nev = c->nev;
	struct cycle Y = {.mem = g->comp_mem + g->comp_first[comp],
			  .m = g->comp_first[comp + 1] - g->comp_first[comp],
			  .colof = S->slot + g->nf,
			  .xcol = S->xcol,
			  .best = S->best,
			  .bfsp = S->bfsp};
	uint32_t m = Y.m, kmax = m;
	for (uint32_t i = 0; i < m; i++) {
		uint32_t u = Y.mem[i];
		S->in[u] = 1;
		kmax += g->out_first[u + 1] - g->out_first[u];
	}
	uint32_t *colu = pv_malloc((size_t)kmax * sizeof(uint32_t));
	uint32_t *colh = pv_malloc((size_t)kmax * sizeof(uint32_t));
	int64_t *need = pv_malloc((size_t)kmax * (nev ? nev : 1) * sizeof(int64_t));
	uint32_t *ent = pv_malloc((size_t)m * sizeof(uint32_t));
	uint32_t *ord = pv_malloc((size_t)m * sizeof(uint32_t));
	int64_t *F = pv_calloc((size_t)m * (nev ? nev : 1), sizeof(int64_t));
	int64_t *Fs = pv_malloc((size_t)m * (nev ? nev : 1) * sizeof(int64_t));
	int64_t *wk = pv_malloc((size_t)m * sizeof(int64_t)), *ok = pv_malloc(m * sizeof(int64_t));
	uint32_t *queue = pv_malloc((size_t)m * sizeof(uint32_t));
	Y.lid = pv_calloc(kmax, sizeof(uint32_t));
	int rc = -1;
	if (!colu || !colh || !need || !ent || !ord || !F || !Fs || !wk || !ok || !queue ||
	    !Y.lid) {
		c->b->status = PV_ENOMEM;
		goto out;
	}
	Y.colu = colu;
	Y.colh = colh;
	Y.need = need;
	cycle_columns(S, &Y);
	uint32_t K = Y.K;
	/* the entries: members called from outside (the contexts waiting for them) */
	int64_t T[MAX_EVENTS] = {0};
	for (uint32_t id = 0; id < K; id++)
		for (uint32_t k = 0; k < nev; k++)
			T[k] += need[(size_t)id * nev + k];
	uint32_t nent = 0;
	for (uint32_t i = 0; i < m; i++) {
		uint32_t u = Y.mem[i];
		if (!S->q.pend[u].n)
			continue;
		q_sum(&S->q, u, F + (size_t)nent * nev);
		ent[nent++] = u;
	}
	if (cycle_lost(S, &Y, T))
		goto out;
	Y.T0 = T[0];
	bool rooted = nent == 0;
	if (rooted) {
		uint32_t best = 0;
		for (uint32_t i = 1; i < m; i++)
			if (g->incl[(size_t)Y.mem[i] * nev] > g->incl[(size_t)Y.mem[best] * nev])
				best = i;
		ent[nent++] = Y.mem[best];
		memcpy(F, T, nev * sizeof(int64_t));
	}
	/* the entries' flows scaled to what the cycle costs */
	for (uint32_t k = 0; k < nev; k++) {
		int64_t in = 0;
		for (uint32_t i = 0; i < nent; i++)
			in += wk[i] = pos0(F[(size_t)i * nev + k]);
		c->ctx_scaled += k == 0 && in != T[k] && in;
		pv_apportion(T[k], wk, nent, ok);
		for (uint32_t i = 0; i < nent; i++)
			Fs[(size_t)i * nev + k] = ok[i];
	}
	if (order_desc(S, ord, nent, Fs, nev))
		goto out;
	Y.queue = queue;
	for (uint32_t oi = nent; oi-- > 0;) {
		uint32_t i = ord[oi];
		Y.entry = ent[i];
		Y.walked = false;
		if (unroll(S, &Y, ent[i], Fs + (size_t)i * nev, oi == 0, rooted))
			goto out;
	}
	rc = cycle_lines(S, &Y);
out:
	for (uint32_t i = 0; i < m; i++)
		S->in[Y.mem[i]] = 0;
	pv_free(colu);
	pv_free(colh);
	pv_free(need);
	pv_free(ent);
	pv_free(ord);
	pv_free(F);
	pv_free(Fs);
	pv_free(wk);
	pv_free(ok);
	pv_free(queue);
	pv_free(Y.lid);
	return rc;
}

/* ---- a part ---- */

static void synth_release(struct synth *S)
{
	cg_grow_release(&S->G);
	cg_graph_release(&S->g);
	q_release(&S->q);
	pv_free(S->slot);
	pv_free(S->in);
	pv_free(S->xcol);
	pv_free(S->best);
	pv_free(S->bfsp);
	pv_free(S->rec.fn);
	pv_free(S->rec.par);
	pv_free(S->rec.own);
	pv_free(S->rec.wt);
	for (int i = 0; i < 7; i++)
		pv_free(S->ls.buf[i]);
	for (size_t i = 0; i < sizeof(S->buf) / sizeof(S->buf[0]); i++)
		pv_free(S->buf[i]);
}

/* The part's graph in S->g, its functions numbered as c->touched_list (effective: cg_graph_of). */
static int part_graph(struct cg *c, struct synth *S, bool effective)
{
	uint32_t n = c->nr_touched, ne = c->nedges, nev = c->nev;
	size_t e1 = ne ? ne : 1;
	uint32_t *local = pv_malloc((size_t)c->nfns * sizeof(uint32_t));
	uint32_t *from = pv_malloc(e1 * sizeof(uint32_t)), *to = pv_malloc(e1 * sizeof(uint32_t));
	uint8_t *kind = pv_malloc(e1);
	int64_t *cost = pv_malloc(e1 * nev * sizeof(int64_t));
	int64_t *self = pv_malloc((size_t)n * nev * sizeof(int64_t));
	int rc = -1;
	if (!local || !from || !to || !kind || !cost || !self) {
		pv_free(self);
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t f = c->touched_list[i];
		local[f] = i;
		memcpy(self + (size_t)i * nev, c->pself + (size_t)f * nev, nev * sizeof(int64_t));
	}
	for (uint32_t x = 0; x < ne; x++) {
		from[x] = local[c->edges[x].from];
		to[x] = local[c->edges[x].to];
		kind[x] = c->edges[x].is_inline;
		edge_cost(c, x, cost + (size_t)x * nev);
	}
	rc = cg_graph_of(n, nev, self, ne, from, to, kind, cost, effective, &S->g);
out:
	pv_free(local);
	pv_free(from);
	pv_free(to);
	pv_free(kind);
	pv_free(cost);
	if (rc)
		c->b->status = PV_ENOMEM;
	return rc ? -1 : 0;
}

/* The current part's thread, made on first use. */
static pv_thread_ix part_thread(struct cg *c)
{
	struct pv_builder *b = c->b;
	if (c->thread == PV_NONE) {
		pv_str_ix name = c->part_name ? c->part_name : builder_cstr(b, "callgrind");
		c->thread = builder_thread(b, name, c->pid, c->tid, c->cmd);
	}
	return c->thread;
}

/* The first part's inclusive costs from S's graph, for the import's exact totals (callgrind.c). */
static void keep_part_incl(struct cg *c, struct synth *S)
{
	uint32_t n = c->nr_touched;
	if (c->b->status || c->nr_parts_done || !S->g.incl || c->part_incl)
		return;
	c->part_fn = pv_malloc((size_t)n * sizeof(uint32_t));
	if (c->part_fn) {
		memcpy(c->part_fn, c->touched_list, (size_t)n * sizeof(uint32_t));
		c->part_incl = S->g.incl;
		c->part_nf = n;
		S->g.incl = NULL;
	}
}

/*
 * The part's graph as cg_no_contexts reads it, without building it (struct cg_graph): its
 * strongly connected components as cg_graph_of numbers them, and what each function's inclusive
 * cost needs. Arrays [f] are indexed by the importer's function and set for the part's only.
 */
struct lean {
	uint32_t *pos;			 /* [f]: its place in touched_list */
	uint32_t *scc;			 /* [f]: its component */
	uint32_t *comp_first, *comp_mem; /* [ncomp + 1], [n]: members in touched order */
	uint32_t ncomp;
	uint8_t *flag;	  /* [f]: LEAN_* */
	int64_t *in_sum;  /* [f * nev + k]: its calls from other functions */
	int64_t *out_sum; /* [f * nev + k]: its calls and inlined code out to other functions */
	/* the first part, components of several functions: the calls into one from outside
	 * ([comp * nev + k]), a member's calls and inlined code out of it and its inlined code of
	 * other members ([f * nev + k]), whether some call enters it ([comp]) */
	int64_t *comp_in, *mem_out;
	uint8_t *entered;
	uint32_t *head, *fill; /* lean_sccs' own: [f] each function's first edge, [comp] */
	/* every array above is carved from this one block of len bytes (pv_col_resize): zero, in
	 * 2 MiB pages from 2 MiB, and freed at once */
	char *block;
	size_t len;
};

/* How many functions (or edges) ahead the passes below ask for the rows they read: cache
 * misses otherwise, the functions coming in no order of the importer's. */
#define LEAN_AHEAD 16

#define LEAN_CALLED  1 /* a call from another function names it */
#define LEAN_PASSES  2 /* a call or inlined code out to another function costs more than 0 */
#define LEAN_INLINED 4 /* inlined code of another member of its component */

static void lean_release(struct lean *L)
{
	pv_col_free(L->block, L->len);
}

/* The array of n bytes at *off of the block (NULL while only measured), *off past it. */
static void *lean_take(struct lean *L, size_t *off, size_t n)
{
	void *p = L->block ? L->block + *off : NULL;
	*off += (n + 63) & ~(size_t)63; /* (each array on a cache line of its own) */
	return p;
}

/*
 * The arrays of L for the part, all zero: in one block, which leaves nothing to clear (a
 * component's first member, its count, its sums, each function's flags and sums start at 0).
 * incl: those of the first part's inclusive costs too. 0 or -1 (out of memory).
 */
static int lean_alloc(struct cg *c, struct lean *L, bool incl)
{
	size_t n1 = c->nr_touched ? c->nr_touched : 1, f1 = c->nfns ? c->nfns : 1;
	size_t ev = c->nev * sizeof(int64_t);
	for (int pass = 0; pass < 2; pass++) { /* measured, then carved */
		size_t off = 0;
		L->pos = lean_take(L, &off, f1 * sizeof(uint32_t));
		L->scc = lean_take(L, &off, f1 * sizeof(uint32_t));
		L->head = lean_take(L, &off, f1 * sizeof(uint32_t));
		L->comp_first = lean_take(L, &off, (n1 + 1) * sizeof(uint32_t));
		L->comp_mem = lean_take(L, &off, n1 * sizeof(uint32_t));
		L->fill = lean_take(L, &off, n1 * sizeof(uint32_t));
		L->flag = lean_take(L, &off, f1);
		L->in_sum = lean_take(L, &off, f1 * ev);
		L->out_sum = lean_take(L, &off, f1 * ev);
		if (incl) { /* (a component per function at most) */
			L->comp_in = lean_take(L, &off, n1 * ev);
			L->mem_out = lean_take(L, &off, f1 * ev);
			L->entered = lean_take(L, &off, n1);
		}
		if (!pass && !(L->block = pv_col_resize(NULL, 0, L->len = off, true)))
			return -1;
	}
	return 0;
}

/*
 * The components (cg_sccs, numbered as cg_graph_of would number those of the part's graph:
 * roots in touched order, each caller's edges in the order they were made), then each
 * component's members in touched order. 0 or -1 (out of memory).
 */
static int lean_sccs(struct cg *c, struct lean *L)
{
	uint32_t n = c->nr_touched, nf = c->nfns, ncomp = 0;
	uint32_t *head = L->head, *fill = L->fill;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t f = c->touched_list[i];
		head[f] = c->fns[f].out_head;
		L->pos[f] = i;
	}
	struct cg_adj adj = {.first = head,
			     .next = c->edge_next,
			     .to = &c->edges[0].to,
			     .to_stride = sizeof(struct cg_edge) / sizeof(uint32_t)};
	if (cg_sccs(&adj, nf, c->touched_list, n, L->scc, L->comp_first + 1, &ncomp))
		return -1;
	L->ncomp = ncomp;
	for (uint32_t k = 0; k < ncomp; k++)
		L->comp_first[k + 1] += L->comp_first[k];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = L->scc[c->touched_list[i]];
		L->comp_mem[L->comp_first[k] + fill[k]++] = c->touched_list[i];
	}
	return 0;
}

static uint32_t comp_size(const struct lean *L, uint32_t k)
{
	return L->comp_first[k + 1] - L->comp_first[k];
}

/*
 * One pass over the part's edges: each function's flags and sums, and with incl (the first
 * part's inclusive costs wanted) those of the components of several functions.
 */
static int lean_edges(struct cg *c, struct lean *L, bool incl)
{
	uint32_t nev = c->nev;
	int64_t *w = pv_malloc(nev * sizeof(int64_t));
	if (!w)
		return -1;
	for (uint32_t x = 0; x < c->nedges; x++) {
		const struct cg_edge *E = &c->edges[x];
		uint32_t a = E->from, b = E->to;
		if (x + LEAN_AHEAD < c->nedges) { /* the callees come in no order */
			uint32_t g = c->edges[x + LEAN_AHEAD].to;
			__builtin_prefetch(&L->in_sum[(size_t)g * nev], 1);
			__builtin_prefetch(&L->flag[g], 1);
			__builtin_prefetch(&L->scc[g]);
		}
		if (a == b)
			continue;
		edge_cost(c, x, w);
		int64_t *o = L->out_sum + (size_t)a * nev, *in = L->in_sum + (size_t)b * nev;
		for (uint32_t k = 0; k < nev; k++) {
			o[k] += w[k];
			if (w[k] > 0)
				L->flag[a] |= LEAN_PASSES;
		}
		if (!E->is_inline) {
			L->flag[b] |= LEAN_CALLED;
			for (uint32_t k = 0; k < nev; k++)
				in[k] += w[k];
		}
		if (!incl)
			continue;
		uint32_t ka = L->scc[a], kb = L->scc[b];
		if (kb != ka && !E->is_inline && comp_size(L, kb) > 1) {
			L->entered[kb] = 1;
			for (uint32_t k = 0; k < nev; k++)
				L->comp_in[(size_t)kb * nev + k] += w[k];
		}
		if (ka == kb && E->is_inline)
			L->flag[b] |= LEAN_INLINED;
		if (comp_size(L, ka) > 1 && (ka != kb || E->is_inline))
			for (uint32_t k = 0; k < nev; k++)
				L->mem_out[(size_t)a * nev + k] += w[k];
	}
	pv_free(w);
	return 0;
}

/* Whether member f of a component starts runs of its own (model/callgraph.c's set_root). */
static bool lean_root(const struct lean *L, uint32_t f)
{
	return !(L->flag[f] & (LEAN_CALLED | LEAN_INLINED));
}

/*
 * The first part's inclusive costs into c->part_incl, in touched order (model/callgraph.c's
 * all_inclusive and set_rule: each function's own rule, bounded by its component's when that
 * has several functions). 0 or -1 (out of memory).
 */
static int lean_incl(struct cg *c, const struct lean *L)
{
	uint32_t n = c->nr_touched, nev = c->nev;
	c->part_fn = pv_malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
	c->part_incl = pv_malloc((size_t)(n ? n : 1) * nev * sizeof(int64_t));
	int64_t *cyc = pv_malloc(nev * sizeof(int64_t));
	if (!c->part_fn || !c->part_incl || !cyc) {
		pv_free(cyc);
		return -1;
	}
	memcpy(c->part_fn, c->touched_list, (size_t)n * sizeof(uint32_t));
	c->part_nf = n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t f = c->touched_list[i];
		int64_t *o = c->part_incl + (size_t)i * nev;
		const int64_t *self = c->pself + (size_t)f * nev;
		for (uint32_t k = 0; k < nev; k++)
			o[k] = L->flag[f] & LEAN_CALLED ? L->in_sum[(size_t)f * nev + k]
							: self[k] + L->out_sum[(size_t)f * nev + k];
	}
	for (uint32_t comp = 0; comp < L->ncomp; comp++) {
		uint32_t a = L->comp_first[comp], b = L->comp_first[comp + 1];
		if (b - a < 2)
			continue;
		bool rooted = false, entered = L->entered[comp];
		for (uint32_t i = a; i < b; i++)
			rooted |= lean_root(L, L->comp_mem[i]);
		ev_copy(cyc, L->comp_in + (size_t)comp * nev, nev);
		for (uint32_t i = a; i < b; i++) {
			uint32_t f = L->comp_mem[i];
			if ((entered || rooted) && !lean_root(L, f))
				continue;
			for (uint32_t k = 0; k < nev; k++)
				cyc[k] +=
				    c->pself[(size_t)f * nev + k] + L->mem_out[(size_t)f * nev + k];
		}
		for (uint32_t i = a; i < b; i++) {
			int64_t *o = c->part_incl + (size_t)L->pos[L->comp_mem[i]] * nev;
			for (uint32_t k = 0; k < nev; k++)
				if (cyc[k] < o[k])
					o[k] = cyc[k];
		}
	}
	pv_free(cyc);
	return 0;
}

/*
 * The current part when no context is made: its thread, its functions made in the order
 * cg_synthesize makes them (a function of its own component when it spends or passes on cost,
 * callers first; a cycle's members in turn), so that rows of one name and cost keep their order
 * (their tie-break), and the first part's inclusive costs, as cg_synthesize leaves them.
 */
int cg_no_contexts(struct cg *c)
{
	if (c->nr_touched == 0 || c->nev == 0)
		return 0;
	part_thread(c);
	if (!c->nedges)
		return c->b->status ? -1 : 0;
	struct lean L;
	memset(&L, 0, sizeof(L));
	bool incl = !c->nr_parts_done && !c->part_incl;
	uint32_t nev = c->nev;
	if (lean_alloc(c, &L, incl) || lean_sccs(c, &L) || lean_edges(c, &L, incl) ||
	    (incl && lean_incl(c, &L))) {
		c->b->status = PV_ENOMEM;
		lean_release(&L);
		return -1;
	}
	for (uint32_t comp = L.ncomp; comp-- > 0 && !c->b->status;) {
		uint32_t a = L.comp_first[comp], b = L.comp_first[comp + 1];
		bool any = b - a > 1;
		/* the functions come in no order of their own: one a few places on asked for */
		if (a >= LEAN_AHEAD) {
			uint32_t g = L.comp_mem[a - LEAN_AHEAD];
			__builtin_prefetch(&c->fns[g], 1);
			__builtin_prefetch(&L.flag[g]);
			__builtin_prefetch(&c->pself[(size_t)g * nev]);
		}
		for (uint32_t i = a; i < b && !any; i++) {
			uint32_t f = L.comp_mem[i];
			any = L.flag[f] & LEAN_PASSES;
			for (uint32_t k = 0; k < nev; k++)
				any |= c->pself[(size_t)f * nev + k] != 0;
		}
		for (uint32_t i = a; i < b && any; i++)
			cg_fn_frame(c, L.comp_mem[i], 0, PV_ADDR_NONE);
	}
	lean_release(&L);
	return c->b->status ? -1 : 0;
}

/* One part: samples for its functions (touched_list), from its edges. */
int cg_synthesize(struct cg *c)
{
	struct pv_builder *b = c->b;
	uint32_t n = c->nr_touched, ne = c->nedges, nev = c->nev;
	if (n == 0 || nev == 0)
		return 0;
	pv_thread_ix th = part_thread(c);
	if (ne == 0) {
		/* no calls: one sample per function and line (cachegrind) */
		int64_t *w = pv_malloc(nev * sizeof(int64_t));
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
			builder_sample(b, th, builder_stack_append(b, PV_NONE, fr), PV_TIME_NONE,
				       w);
		}
		pv_free(w);
		return b->status ? -1 : 0;
	}
	struct synth S;
	memset(&S, 0, sizeof(S));
	S.c = c;
	S.other = PV_NONE;
	S.q.stride = 1 + nev;
	S.q.free = NONE32;
	if (part_graph(c, &S, true))
		goto out;
	const struct cg_graph *g = &S.g;
	/* the smallest share of a call a context gets of its own */
	for (uint32_t k = 0; k < nev; k++) {
		int64_t t = 0;
		for (uint32_t f = 0; f < n; f++)
			t += pos0(g->self[(size_t)f * nev + k]);
		S.theta[k] = t / CTX_BUDGET > 1 ? t / CTX_BUDGET : 1;
	}
	/* the budget of contexts: linear in the part (its functions, calls and lines) */
	S.limit = FOLD_BUDGET * ((uint64_t)n + g->ne) + c->nlines;
	S.slot = pv_calloc(2 * (size_t)n, sizeof(uint32_t));
	S.in = pv_calloc(n, 1);
	S.xcol = pv_malloc((g->ne ? g->ne : 1) * sizeof(uint32_t));
	S.best = pv_malloc((size_t)n * sizeof(uint32_t));
	S.bfsp = pv_malloc((size_t)n * sizeof(uint32_t));
	if (!S.slot || !S.in || !S.xcol || !S.best || !S.bfsp || cg_grow_init(&S.G, g) ||
	    q_slots(c, &S.q, n)) {
		b->status = PV_ENOMEM;
		goto out;
	}
	memset(S.best, 0xff, (size_t)n * sizeof(uint32_t));
	S.G.only = S.in;
	/* the components in topological order: callers first (Tarjan's numbers, highest first) */
	uint32_t ncomp = 0;
	for (uint32_t f = 0; f < n; f++)
		if (g->scc[f] + 1 > ncomp)
			ncomp = g->scc[f] + 1;
	for (uint32_t comp = ncomp; comp-- > 0 && !b->status;) {
		uint32_t size = g->comp_first[comp + 1] - g->comp_first[comp];
		if (size == 1)
			function_node(&S, g->comp_mem[g->comp_first[comp]]);
		else if (size > 1)
			cycle_node(&S, comp);
	}
	keep_part_incl(c, &S);
out:
	synth_release(&S);
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
	int rc = pv_callgraph_reserve(b->p, c->nr_touched, 0);
	for (uint32_t i = 0; i < c->nr_touched && !rc && !b->status; i++) {
		uint32_t f = c->touched_list[i];
		cg_fn_frame(c, f, 0, PV_ADDR_NONE);
		rc = pv_callgraph_add_node(b->p, c->thread, c->fns[f].func,
					   c->pself + (size_t)f * nev, nev);
	}
	/* the only part, no context read: its edges gave the inclusive costs (part_incl) */
	c->edges_unkept = c->edges_unkept && c->nedges && c->part_incl && !c->funcs_shared;
	if (!rc && !c->edges_unkept)
		rc = pv_callgraph_reserve(b->p, 0, c->nedges);
	for (uint32_t x = 0; x < c->nedges && !c->edges_unkept && !rc && !b->status; x++) {
		const struct cg_edge *E = &c->edges[x];
		edge_cost(c, x, w);
		rc =
		    pv_callgraph_add_edge(b->p, c->thread, c->fns[E->from].func, c->fns[E->to].func,
					  E->is_inline ? 0 : c->ecalls[x], E->is_inline, w, nev);
	}
	pv_free(w);
	if (rc)
		b->status = rc;
	return b->status ? -1 : 0;
}

/*
 * trace.c - the trace view (pv/trace.h, doc/trace.md): lines of (time, stack) records per
 * thread, the function at a depth of each stack, windows of pixels by binary search, the depth
 * view's boxes and the shares of functions.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/sort.h"
#include "pv/trace.h"
#include "pv/view.h"
#include "view/internal.h"

struct line {
	const int64_t *time;
	const pv_stack_ix *stack;
	uint32_t n;
	int64_t end; /* when the last record ends */
};

struct pv_trace {
	const struct pv_profile *p;
	uint32_t nlines;
	struct line *lines;
	uint64_t records;
	int64_t start, end;
	/* per stack: how many code frames it has (its depth + 1), and its call node: the
	 * functions of its code frames from the root, as one id (equal paths, equal ids) */
	uint32_t *ndepth;
	uint32_t *cnode;
	uint32_t max_depth;
	/* copies made for lines that were not in time order (freed with the trace) */
	int64_t *own_time;
	pv_stack_ix *own_stack;
};

static int oom(struct pv_error *err)
{
	return pv_error_set(err, PV_ENOMEM, "out of memory");
}

static bool is_code(const struct pv_profile *p, pv_frame_ix f)
{
	return pv_frame_kind(p, f) == PV_FRAME_CODE;
}

/* Depths and call nodes of every stack: one pass, parents first. */
static int stack_tables(struct pv_trace *t, struct pv_error *err)
{
	const struct pv_profile *p = t->p;
	uint32_t ns = p->stacks.len;
	t->ndepth = pv_malloc((size_t)(ns ? ns : 1) * sizeof(*t->ndepth));
	t->cnode = pv_malloc((size_t)(ns ? ns : 1) * sizeof(*t->cnode));
	if (!t->ndepth || !t->cnode)
		return oom(err);
	struct u64map nodes = {0};
	uint32_t nn = 0;
	for (uint32_t s = 0; s < ns; s++) {
		pv_stack_ix pre = p->stacks.prefix[s];
		pv_frame_ix f = p->stacks.frame[s];
		uint32_t d = pre == PV_NONE ? 0 : t->ndepth[pre];
		uint32_t up = pre == PV_NONE ? UINT32_MAX : t->cnode[pre];
		if (!is_code(p, f) && pre != PV_NONE) {
			t->ndepth[s] = d;
			t->cnode[s] = up;
			continue;
		}
		t->ndepth[s] = d + 1;
		uint64_t key = (uint64_t)(up + 1u) << 32 | p->frames.func[f];
		uint32_t id = u64map_get(&nodes, key);
		if (id == UINT32_MAX) {
			id = nn++;
			if (u64map_put(&nodes, key, id)) {
				u64map_release(&nodes);
				return oom(err);
			}
		}
		t->cnode[s] = id;
		if (d + 1 > t->max_depth)
			t->max_depth = d + 1;
	}
	u64map_release(&nodes);
	return 0;
}

static void range_of_lines(struct pv_trace *t)
{
	bool any = false;
	t->records = 0;
	for (uint32_t c = 0; c < t->nlines; c++) {
		const struct line *l = &t->lines[c];
		t->records += l->n;
		if (!l->n)
			continue;
		if (!any || l->time[0] < t->start)
			t->start = l->time[0];
		if (!any || l->end > t->end)
			t->end = l->end;
		any = true;
	}
}

int pv_trace_from_lines(const struct pv_profile *p, uint32_t nlines, const int64_t *const *times,
			const pv_stack_ix *const *stacks, const uint32_t *lens, const int64_t *ends,
			struct pv_trace **out, struct pv_error *err)
{
	struct pv_trace *t = pv_calloc(1, sizeof(*t));
	if (!t || !(t->lines = pv_calloc(nlines ? nlines : 1, sizeof(*t->lines)))) {
		pv_free(t);
		return oom(err);
	}
	t->p = p;
	t->nlines = nlines;
	for (uint32_t c = 0; c < nlines; c++)
		t->lines[c] = (struct line){times[c], stacks[c], lens[c], ends[c]};
	range_of_lines(t);
	int rc = stack_tables(t, err);
	if (rc) {
		pv_trace_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

struct timed {
	int64_t time;
	uint32_t ix;
};

static int cmp_timed(const void *a, const void *b)
{
	const struct timed *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->ix < y->ix ? -1 : x->ix > y->ix;
}

/*
 * The lines of the samples: a thread's samples with a time, in time order. A thread whose every
 * sample has a time, in order, is borrowed; the others are copied (sorted, stably) into own.
 */
static int sample_lines(struct pv_trace *t, struct pv_error *err)
{
	const struct pv_profile *p = t->p;
	const struct pv_samples *sa = &p->samples;
	uint64_t copy = 0;
	uint8_t *borrow = pv_calloc(t->nlines ? t->nlines : 1, 1);
	if (!borrow)
		return oom(err);
	for (uint32_t c = 0; c < t->nlines; c++) {
		uint32_t b = p->threads.sample_begin[c], e = p->threads.sample_end[c];
		bool ok = true;
		for (uint32_t s = b; s < e && ok; s++)
			ok = pv_sample_time(p, s) != PV_TIME_NONE &&
			     (s == b || sa->time_ns[s] >= sa->time_ns[s - 1]);
		borrow[c] = ok;
		if (!ok)
			for (uint32_t s = b; s < e; s++)
				copy += pv_sample_time(p, s) != PV_TIME_NONE;
	}
	if (copy && (!(t->own_time = pv_malloc(copy * sizeof(*t->own_time))) ||
		     !(t->own_stack = pv_malloc(copy * sizeof(*t->own_stack))))) {
		pv_free(borrow);
		return oom(err);
	}
	uint64_t at = 0;
	int rc = 0;
	for (uint32_t c = 0; c < t->nlines && !rc; c++) {
		uint32_t b = p->threads.sample_begin[c], e = p->threads.sample_end[c];
		struct line *l = &t->lines[c];
		if (borrow[c] && e == b) {
			*l = (struct line){NULL, NULL, 0, 0}; /* the time column may be NULL */
		} else if (borrow[c]) {
			*l = (struct line){sa->time_ns + b, sa->stack + b, e - b, 0};
		} else {
			struct timed *k = pv_malloc((size_t)(e - b ? e - b : 1) * sizeof(*k));
			if (!k) {
				rc = oom(err);
				break;
			}
			uint32_t n = 0;
			for (uint32_t s = b; s < e; s++)
				if (pv_sample_time(p, s) != PV_TIME_NONE)
					k[n++] = (struct timed){sa->time_ns[s], s};
			pv_sort(k, n, sizeof(*k), cmp_timed);
			for (uint32_t i = 0; i < n; i++) {
				t->own_time[at + i] = k[i].time;
				t->own_stack[at + i] = sa->stack[k[i].ix];
			}
			pv_free(k);
			/* no sample of the thread has a time (a collapsed file): own_time is NULL
			 */
			*l = n ? (struct line){t->own_time + at, t->own_stack + at, n, 0}
			       : (struct line){NULL, NULL, 0, 0};
			at += n;
		}
		/* the last sample lasts the sampling interval, else the line's mean gap */
		if (l->n) {
			int64_t last = l->time[l->n - 1], gap = p->meta.interval_ns;
			if (gap <= 0)
				gap = l->n > 1 ? (last - l->time[0]) / (l->n - 1) : 0;
			l->end = pv_add_sat(last, gap > 0 ? gap : 1);
		}
	}
	pv_free(borrow);
	return rc;
}

int pv_trace_open(const struct pv_profile *p, struct pv_trace **out, struct pv_error *err)
{
	struct pv_trace *t = pv_calloc(1, sizeof(*t));
	uint32_t nt = p->threads.len;
	if (!t || !(t->lines = pv_calloc(nt ? nt : 1, sizeof(*t->lines)))) {
		pv_free(t);
		return oom(err);
	}
	t->p = p;
	t->nlines = nt;
	int rc = 0;
	const struct pv_trace_records *r = &p->trace;
	if (r->len) {
		/* records are grouped by thread, in thread order */
		for (uint32_t i = 0; i < r->len;) {
			uint32_t j = i;
			while (j < r->len && r->thread[j] == r->thread[i])
				j++;
			t->lines[r->thread[i]] =
			    (struct line){r->time_ns + i, r->stack + i, j - i, r->end_ns};
			i = j;
		}
	} else {
		rc = sample_lines(t, err);
	}
	range_of_lines(t);
	if (!rc)
		rc = stack_tables(t, err);
	if (rc) {
		pv_trace_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void pv_trace_free(struct pv_trace *t)
{
	if (!t)
		return;
	pv_free(t->lines);
	pv_free(t->ndepth);
	pv_free(t->cnode);
	pv_free(t->own_time);
	pv_free(t->own_stack);
	pv_free(t);
}

uint32_t pv_trace_lines(const struct pv_trace *t)
{
	return t->nlines;
}

uint64_t pv_trace_records(const struct pv_trace *t)
{
	return t->records;
}

void pv_trace_range(const struct pv_trace *t, int64_t *start, int64_t *end)
{
	*start = t->start;
	*end = t->end;
}

uint32_t pv_trace_max_depth(const struct pv_trace *t)
{
	return t->max_depth;
}

/* The last record of l at or before time in [lo, n): lo - 1 when none is (binary search). */
static inline uint32_t find_from(const struct line *l, uint32_t lo, int64_t time)
{
	uint32_t hi = l->n; /* answer in [lo - 1, hi) */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (l->time[mid] <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

uint32_t pv_trace_at(const struct pv_trace *t, uint32_t c, int64_t time, pv_stack_ix *stack,
		     int64_t *start, int64_t *end)
{
	if (c >= t->nlines)
		return PV_NONE;
	const struct line *l = &t->lines[c];
	uint32_t i = find_from(l, 0, time);
	if (i == UINT32_MAX || time >= l->end)
		return PV_NONE;
	if (stack)
		*stack = l->stack[i];
	if (start)
		*start = l->time[i];
	if (end)
		*end = i + 1 < l->n ? l->time[i + 1] : l->end;
	return i;
}

uint32_t pv_trace_frames(const struct pv_trace *t, pv_stack_ix s, pv_frame_ix *frames,
			 uint32_t *depth, uint32_t cap)
{
	const struct pv_profile *p = t->p;
	uint32_t n = 0;
	for (pv_stack_ix x = s; x != PV_NONE; x = p->stacks.prefix[x])
		n++;
	uint32_t k = n;
	for (pv_stack_ix x = s; x != PV_NONE; x = p->stacks.prefix[x]) {
		k--;
		if (k >= cap)
			continue;
		pv_frame_ix f = p->stacks.frame[x];
		frames[k] = f;
		pv_stack_ix pre = p->stacks.prefix[x];
		depth[k] = is_code(p, f) || pre == PV_NONE ? t->ndepth[x] - 1 : PV_NONE;
	}
	return n;
}

const char *pv_trace_frame_name(const struct pv_profile *p, pv_frame_ix f, char *buf, size_t n)
{
	/* a view of no pseudo rows: names as the rows have them */
	struct pv_view_priv none = {0};
	struct pv_view v = {.p = p, .priv = &none};
	if (!is_code(p, f) && pv_frame_kind(p, f) == PV_FRAME_LOOP)
		return pv_view_row_name(&v, PV_ROW_LOOP, f, buf, n, 0);
	uint32_t line = pv_frame_line(p, f);
	return pv_view_row_name(&v, line ? PV_ROW_LINE : PV_ROW_FUNCTION, p->frames.func[f], buf, n,
				line);
}

/* ---- paint ---- */

struct pv_trace_paint {
	const struct pv_trace *t;
	uint32_t depth;
	pv_thread_ix *ctx; /* the contexts: lines of the trace */
	uint32_t nctx;
	pv_func_ix *func; /* per stack: the function shown, PV_NONE when the record is not shown */
	uint8_t *idle;	  /* per stack: through "<no activity>" (NULL: the profile has none) */
};

/* Whether the query shapes which records show (else every record shows, no view needed). */
static bool query_selects(const struct pv_query *q)
{
	return q->nr_center || q->nr_filters || q->nr_threads || q->inside_markers ||
	       q->inlines != PV_INLINE_KEEP;
}

int pv_trace_paint_new(const struct pv_trace *t, const struct pv_query *q, uint32_t depth,
		       struct pv_trace_paint **out, struct pv_error *err)
{
	const struct pv_profile *p = t->p;
	struct pv_trace_paint *pt = pv_calloc(1, sizeof(*pt));
	uint32_t ns = p->stacks.len;
	if (!pt || !(pt->func = pv_malloc((size_t)(ns ? ns : 1) * sizeof(*pt->func))) ||
	    !(pt->ctx = pv_malloc((size_t)(t->nlines ? t->nlines : 1) * sizeof(*pt->ctx)))) {
		pv_trace_paint_free(pt);
		return oom(err);
	}
	pt->t = t;
	pt->depth = depth;
	uint8_t *keep = NULL;
	if (q && query_selects(q)) {
		struct pv_query qq;
		if (pv_query_copy(&qq, q)) {
			pv_trace_paint_free(pt);
			return oom(err);
		}
		qq.has_range = false; /* the window is the time range */
		struct pv_view *v = NULL;
		int rc = pv_view_compute_keep(p, &qq, &v, &keep, NULL, err);
		pv_query_release(&qq);
		if (rc) {
			pv_trace_paint_free(pt);
			return rc;
		}
		for (uint32_t i = 0; i < v->nr_threads; i++)
			if (v->threads[i] < t->nlines)
				pt->ctx[pt->nctx++] = v->threads[i];
		pv_view_free(v);
	} else {
		for (uint32_t c = 0; c < t->nlines; c++)
			pt->ctx[pt->nctx++] = c;
	}
	/* the function at depth, parents first: a stack deeper than depth has its prefix's */
	for (uint32_t s = 0; s < ns; s++) {
		pv_stack_ix pre = p->stacks.prefix[s];
		pv_frame_ix f = p->stacks.frame[s];
		bool code = is_code(p, f) || pre == PV_NONE;
		pv_func_ix fn = p->frames.func[f];
		if (!code || t->ndepth[s] - 1 > depth)
			fn = pt->func[pre];
		pt->func[s] = fn;
	}
	/* then the records the query leaves out (after: a hidden stack's children need its
	 * function above) */
	for (uint32_t s = 0; keep && s < ns; s++)
		if (!keep[s])
			pt->func[s] = PV_NONE;
	pv_free_keep(keep);
	/* and HPCToolkit's "<no activity>" (a GPU stream or a thread idle): drawn as a gap, never
	 * in a function's colour, as hpctraceviewer does (a stack through it is idle) */
	pv_func_ix idle = PV_NONE;
	for (uint32_t f = 0; f < p->funcs.len && idle == PV_NONE; f++)
		if (strcmp(pv_str(p, p->funcs.name[f]), "<no activity>") == 0)
			idle = f;
	if (idle != PV_NONE) {
		uint8_t *in = pv_calloc(ns ? ns : 1, 1);
		if (!in) {
			pv_trace_paint_free(pt);
			return oom(err);
		}
		for (uint32_t s = 0; s < ns; s++) {
			pv_stack_ix pre = p->stacks.prefix[s];
			in[s] = (pre != PV_NONE && in[pre]) ||
				p->frames.func[p->stacks.frame[s]] == idle;
			if (in[s])
				pt->func[s] = PV_NONE;
		}
		pt->idle = in;
	}
	*out = pt;
	return 0;
}

void pv_trace_paint_free(struct pv_trace_paint *pt)
{
	if (!pt)
		return;
	pv_free(pt->ctx);
	pv_free(pt->func);
	pv_free(pt->idle);
	pv_free(pt);
}

uint32_t pv_trace_paint_contexts(const struct pv_trace_paint *pt)
{
	return pt->nctx;
}

uint32_t pv_trace_paint_depth(const struct pv_trace_paint *pt)
{
	return pt->depth;
}

const struct pv_trace *pv_trace_paint_trace(const struct pv_trace_paint *pt)
{
	return pt->t;
}

const struct pv_profile *pv_trace_profile(const struct pv_trace *t)
{
	return t->p;
}

uint32_t pv_trace_paint_records(const struct pv_trace_paint *pt, uint32_t c)
{
	return c < pt->nctx ? pt->t->lines[pt->ctx[c]].n : 0;
}

pv_thread_ix pv_trace_paint_thread(const struct pv_trace_paint *pt, uint32_t c)
{
	return c < pt->nctx ? pt->ctx[c] : PV_NONE;
}

pv_func_ix pv_trace_paint_func(const struct pv_trace_paint *pt, pv_stack_ix s)
{
	return s == PV_NONE || s >= pt->t->p->stacks.len ? PV_NONE : pt->func[s];
}

enum pv_trace_state pv_trace_paint_state(const struct pv_trace_paint *pt, uint32_t rec,
					 pv_stack_ix s)
{
	if (rec == PV_NONE)
		return PV_TRACE_NO_RECORD;
	if (s == PV_NONE || s >= pt->t->p->stacks.len)
		return PV_TRACE_NOT_RUNNING;
	if (pt->idle && pt->idle[s])
		return PV_TRACE_NO_ACTIVITY;
	return pt->func[s] == PV_NONE ? PV_TRACE_LEFT_OUT : PV_TRACE_SHOWN;
}

const char *pv_trace_state_name(enum pv_trace_state st)
{
	static const char *const names[] = {"shown", "no record", "not running", "no activity",
					    "left out"};
	return (unsigned)st < sizeof(names) / sizeof(names[0]) ? names[st] : "?";
}

#define MAX_PIXELS (1u << 26)

static int check_window(const struct pv_trace_paint *pt, const struct pv_trace_window *w,
			struct pv_error *err)
{
	if (w->t1 <= w->t0 || w->c1 <= w->c0 || w->c1 > pt->nctx || !w->width || !w->height ||
	    (uint64_t)w->width * w->height > MAX_PIXELS)
		return pv_error_set(err, PV_EINVAL,
				    "a trace window [%lld, %lld) ns x contexts [%u, %u) of %u x %u "
				    "pixels: it needs t0 < t1, c0 < c1 <= %u and at most %u pixels",
				    (long long)w->t0, (long long)w->t1, w->c0, w->c1, w->width,
				    w->height, pt->nctx, MAX_PIXELS);
	return 0;
}

int pv_trace_image(const struct pv_trace_paint *pt, const struct pv_trace_window *w, pv_func_ix *px,
		   struct pv_error *err)
{
	int rc = check_window(pt, w, err);
	if (rc)
		return rc;
	int64_t *tx = pv_malloc((size_t)w->width * sizeof(*tx));
	if (!tx)
		return oom(err);
	/* each column's time, in exact integer arithmetic where it fits */
	double span = (double)w->t1 - (double)w->t0;
	for (uint32_t x = 0; x < w->width; x++)
		tx[x] = w->t0 + (int64_t)floor(span * (2.0 * x + 1) / (2.0 * w->width));
	const pv_func_ix *func = pt->func;
	uint32_t nc = w->c1 - w->c0;
	for (uint32_t y = 0; y < w->height; y++) {
		uint32_t c = w->c0 + (uint32_t)(((2ull * y + 1) * nc) / (2ull * w->height));
		const struct line *l = &pt->t->lines[pt->ctx[c]];
		pv_func_ix *row = px + (size_t)y * w->width;
		uint32_t lo = 0;
		for (uint32_t x = 0; x < w->width; x++) {
			uint32_t i = find_from(l, lo, tx[x]);
			if (i == UINT32_MAX) {
				row[x] = PV_NONE;
				continue;
			}
			lo = i + 1; /* the next column's time is later: its record is not earlier */
			pv_stack_ix s = l->stack[i];
			row[x] = tx[x] >= l->end || s == PV_NONE ? PV_NONE : func[s];
		}
	}
	pv_free(tx);
	return 0;
}

static int cmp_share(const void *a, const void *b)
{
	const struct pv_trace_share *x = a, *y = b;
	if (x->pixels != y->pixels)
		return x->pixels > y->pixels ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

uint32_t pv_trace_shares(const pv_func_ix *px, uint32_t width, uint32_t height, uint32_t x0,
			 uint32_t x1, struct pv_trace_share *out, uint32_t cap)
{
	if (x1 > width)
		x1 = width;
	uint64_t npx = x0 < x1 ? (uint64_t)(x1 - x0) * height : 0;
	struct pv_trace_share *all = pv_malloc((size_t)(npx ? npx : 1) * sizeof(*all));
	if (!all)
		return 0;
	/* distinct functions by a small open-addressed map over the pixels, made at the second
	 * function: a column or a window of one function (blank, a profile without records)
	 * costs no map */
	uint32_t mask = 1;
	while (mask < 2 * npx + 2)
		mask <<= 1;
	mask--;
	uint32_t *slot = NULL;
	uint32_t n = 0, last = 0; /* last: the share of the pixel before (1-based, 0: none) */
	uint32_t x = x0;
	const pv_func_ix *row = px;
	for (uint64_t i = 0; i < npx; i++) {
		/* pixels come in runs of one function, along a row and down a column: one lookup
		 * a run, not a pixel (a window of 8 M blank pixels took 0.9 G instructions) */
		pv_func_ix f = row[x];
		if (++x == x1) {
			x = x0;
			row += width;
		}
		if (last && all[last - 1].func == f) {
			all[last - 1].pixels++;
			continue;
		}
		if (!n) {
			all[n++] = (struct pv_trace_share){f, 1};
			last = 1;
			continue;
		}
		if (!slot) {
			if (!(slot = pv_calloc((size_t)mask + 1, sizeof(*slot)))) {
				pv_free(all);
				return 0;
			}
			slot[(uint32_t)hash_u64(all[0].func) & mask] = 1;
		}
		uint32_t h = (uint32_t)hash_u64(f) & mask;
		while (slot[h] && all[slot[h] - 1].func != f)
			h = (h + 1) & mask;
		if (!slot[h]) {
			all[n] = (struct pv_trace_share){f, 0};
			slot[h] = ++n;
		}
		last = slot[h];
		all[last - 1].pixels++;
	}
	pv_free(slot);
	pv_sort(all, n, sizeof(*all), cmp_share);
	memcpy(out, all, (size_t)(n < cap ? n : cap) * sizeof(*out));
	pv_free(all);
	return n;
}

/* ---- the depth view ---- */

struct boxes {
	struct pv_trace_box *v;
	uint32_t n, cap;
};

static int box_push(struct boxes *b, const struct pv_trace_box *x)
{
	if (b->n == b->cap) {
		uint32_t nc = b->cap ? b->cap * 2 : 64;
		struct pv_trace_box *g = pv_realloc(b->v, (size_t)nc * sizeof(*g));
		if (!g)
			return PV_ENOMEM;
		b->v = g;
		b->cap = nc;
	}
	b->v[b->n++] = *x;
	return 0;
}

static int box_sink(void *b, const struct pv_trace_box *x)
{
	return box_push(b, x);
}

int pv_trace_boxes(const struct pv_trace_paint *pt, uint32_t c, int64_t t0, int64_t t1,
		   int64_t min_ns, struct pv_trace_box **out, uint32_t *n, struct pv_error *err)
{
	struct boxes b = {0};
	int rc = pv_trace_boxes_each(pt, c, t0, t1, min_ns, box_sink, &b, err);
	if (rc) {
		pv_free(b.v);
		return rc;
	}
	*out = b.v;
	*n = b.n;
	return 0;
}

int pv_trace_boxes_each(const struct pv_trace_paint *pt, uint32_t c, int64_t t0, int64_t t1,
			int64_t min_ns, int (*fn)(void *arg, const struct pv_trace_box *b),
			void *arg, struct pv_error *err)
{
	const struct pv_trace *t = pt->t;
	const struct pv_profile *p = t->p;
	if (c >= pt->nctx || t1 <= t0)
		return pv_error_set(err, PV_EINVAL,
				    "a depth view of context %u over [%lld, %lld) ns: it needs a "
				    "context below %u and t0 < t1",
				    c, (long long)t0, (long long)t1, pt->nctx);
	const struct line *l = &t->lines[pt->ctx[c]];
	uint32_t md = t->max_depth ? t->max_depth : 1;
	struct pv_trace_box *open = pv_calloc(md, sizeof(*open));
	uint32_t *open_node = pv_malloc(md * sizeof(*open_node));
	pv_stack_ix *path = pv_malloc(md * sizeof(*path));
	int rc = !open || !open_node || !path ? oom(err) : 0;
	uint32_t nopen = 0;
	uint32_t i = l->n ? find_from(l, 0, t0) : UINT32_MAX;
	if (i == UINT32_MAX)
		i = 0;
	for (; !rc && i <= l->n; i++) {
		/* the record [s, e) clipped to the window, or the end (i == n) closing every box */
		bool last = i == l->n || l->time[i] >= t1;
		int64_t s = last ? 0 : (l->time[i] > t0 ? l->time[i] : t0);
		int64_t e = last ? 0 : (i + 1 < l->n ? l->time[i + 1] : l->end);
		e = e < t1 ? e : t1;
		pv_stack_ix st = last || e <= s ? PV_NONE : l->stack[i];
		if (st != PV_NONE && pv_trace_paint_func(pt, st) == PV_NONE)
			st = PV_NONE; /* not shown */
		uint32_t nd = 0;
		if (st != PV_NONE) {
			nd = t->ndepth[st];
			/* the code frame's stack at each depth, leaf to root */
			for (pv_stack_ix x = st; x != PV_NONE; x = p->stacks.prefix[x]) {
				pv_stack_ix pre = p->stacks.prefix[x];
				if (is_code(p, p->stacks.frame[x]) || pre == PV_NONE)
					path[t->ndepth[x] - 1] = x;
			}
		}
		/* keep the open boxes this record continues: same call node, no gap */
		uint32_t keep = 0;
		while (keep < nopen && keep < nd && open[keep].end == s &&
		       open_node[keep] == t->cnode[path[keep]])
			keep++;
		for (uint32_t d = nopen; d-- > keep;)
			if (open[d].end - open[d].start >= min_ns && (rc = fn(arg, &open[d])))
				break;
		nopen = keep;
		for (uint32_t d = 0; d < keep; d++)
			open[d].end = e;
		for (uint32_t d = keep; d < nd; d++) {
			open[d] = (struct pv_trace_box){
			    s, e, d, p->frames.func[p->stacks.frame[path[d]]], path[d]};
			open_node[d] = t->cnode[path[d]];
		}
		nopen = nd > keep ? nd : keep;
		if (last)
			break;
	}
	pv_free(open);
	pv_free(open_node);
	pv_free(path);
	return rc == PV_ENOMEM ? oom(err) : rc;
}

void pv_free_boxes(struct pv_trace_box *b)
{
	pv_free(b);
}

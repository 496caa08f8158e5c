/*
 * chart.c - the marker chart's rows (pv/marker.h): the selected markers by (thread, name),
 * interned through a map, narrow neighbours merged within a pixel.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "pv/marker.h"

struct entry {
	uint32_t i, merged;
	int64_t start, end; /* end PV_TIME_NONE: one instant */
};

struct row {
	pv_thread_ix thread;
	const char *name;
	pv_cat_ix category;
	uint32_t len, cap;
	struct entry *e;
	bool full;
};

struct build {
	struct row *rows;
	uint32_t len, cap;
	const char *name; /* the key looked up */
	pv_thread_ix thread;
};

static bool row_eq(const void *ctx, uint32_t r)
{
	const struct build *b = ctx;
	return b->rows[r].thread == b->thread && strcmp(b->rows[r].name, b->name) == 0;
}

static int cmp_row(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->category != b->category)
		return a->category < b->category ? -1 : 1; /* PV_NONE (unknown) last */
	return strcmp(a->name, b->name);
}

void pv_marker_chart_free(struct pv_marker_chart *ch)
{
	if (!ch)
		return;
	pv_free(ch->row_thread);
	pv_free(ch->row_name);
	pv_free(ch->row_category);
	pv_free(ch->row_first);
	pv_free(ch->marker);
	pv_free(ch->merged);
	pv_free(ch->start_ns_of);
	pv_free(ch->end_ns_of);
	pv_free(ch);
}

/* Marker i into row r: merged into the last entry when both are narrow and touch. */
static int add(const struct pv_markers *ms, struct row *r, uint32_t i, double px)
{
	int64_t e = ms->end_ns[i];
	int64_t w = e == PV_TIME_NONE ? 0 : pv_time_diff(e, ms->start_ns[i]);
	struct entry *last = r->len ? &r->e[r->len - 1] : NULL;
	if (last && (double)w < px) {
		int64_t lend = last->end == PV_TIME_NONE ? last->start : last->end;
		int64_t lw = pv_time_diff(lend, last->start);
		/* two narrow ones that touch (within a pixel) become one entry */
		if (((double)lw < px || last->merged > 1) &&
		    (double)pv_time_diff(ms->start_ns[i], lend) <= px) {
			int64_t ne = e == PV_TIME_NONE ? ms->start_ns[i] : e;
			if (last->end != PV_TIME_NONE || ne > last->start)
				last->end = ne > lend ? ne : lend;
			last->merged++;
			return 0;
		}
	}
	if (r->len == PV_CHART_ENTRIES) {
		r->full = true;
		return 0;
	}
	if (r->len == r->cap) {
		uint32_t nc = r->cap ? r->cap * 2 : 8;
		struct entry *v = pv_realloc(r->e, nc * sizeof(*v));
		if (!v)
			return PV_ENOMEM;
		r->e = v;
		r->cap = nc;
	}
	r->e[r->len++] = (struct entry){i, 1, ms->start_ns[i], e};
	return 0;
}

/* The rows of the selected markers, in first-seen order. */
static int rows_of(const struct pv_markers *ms, const uint32_t *idx, uint32_t n, double px,
		   struct build *b)
{
	struct ixmap map = {0};
	int rc = 0;
	for (uint32_t k = 0; k < n && !rc; k++) {
		uint32_t i = idx[k], slot;
		b->name = ms->name[i];
		b->thread = ms->thread[i];
		uint64_t h = hash_bytes(b->name, strlen(b->name)) ^ hash_u64(b->thread);
		uint32_t r = ixmap_find(&map, h, row_eq, b, &slot);
		if (r == UINT32_MAX) {
			if (b->len == b->cap) {
				uint32_t nc = b->cap ? b->cap * 2 : 16;
				struct row *v = pv_realloc(b->rows, nc * sizeof(*v));
				if (!v) {
					rc = PV_ENOMEM;
					break;
				}
				b->rows = v;
				b->cap = nc;
			}
			r = b->len++;
			b->rows[r] = (struct row){
			    .thread = b->thread, .name = b->name, .category = ms->category[i]};
			if ((rc = ixmap_insert(&map, slot, h, r)))
				break;
		}
		if (!b->rows[r].full)
			rc = add(ms, &b->rows[r], i, px);
	}
	ixmap_release(&map);
	return rc;
}

/* The rows, sorted, as columns. */
static int columns(const struct build *b, struct pv_marker_chart *ch)
{
	uint32_t nr = b->len, ne = 0;
	for (uint32_t r = 0; r < nr; r++)
		ne += b->rows[r].len;
	ch->nr_rows = nr;
	ch->nr_entries = ne;
	ch->row_thread = pv_malloc((nr ? nr : 1) * sizeof(*ch->row_thread));
	ch->row_name = pv_malloc((nr ? nr : 1) * sizeof(*ch->row_name));
	ch->row_category = pv_malloc((nr ? nr : 1) * sizeof(*ch->row_category));
	ch->row_first = pv_malloc((nr + 1) * sizeof(*ch->row_first));
	ch->marker = pv_malloc((ne ? ne : 1) * sizeof(*ch->marker));
	ch->merged = pv_malloc((ne ? ne : 1) * sizeof(*ch->merged));
	ch->start_ns_of = pv_malloc((ne ? ne : 1) * sizeof(*ch->start_ns_of));
	ch->end_ns_of = pv_malloc((ne ? ne : 1) * sizeof(*ch->end_ns_of));
	if (!ch->row_thread || !ch->row_name || !ch->row_category || !ch->row_first ||
	    !ch->marker || !ch->merged || !ch->start_ns_of || !ch->end_ns_of)
		return PV_ENOMEM;
	uint32_t at = 0;
	for (uint32_t r = 0; r < nr; r++) {
		const struct row *x = &b->rows[r];
		ch->row_thread[r] = x->thread;
		ch->row_name[r] = x->name;
		ch->row_category[r] = x->category;
		ch->row_first[r] = at;
		for (uint32_t k = 0; k < x->len; k++, at++) {
			ch->marker[at] = x->e[k].i;
			ch->merged[at] = x->e[k].merged;
			ch->start_ns_of[at] = x->e[k].start;
			ch->end_ns_of[at] = x->e[k].end;
		}
	}
	ch->row_first[nr] = at;
	return 0;
}

int pv_marker_chart(const struct pv_markers *ms, const struct pv_marker_select *sel, uint32_t width,
		    struct pv_marker_chart **out)
{
	struct pv_marker_chart *ch = pv_calloc(1, sizeof(*ch));
	if (!ch)
		return PV_ENOMEM;
	ch->start_ns = sel->range_start_ns;
	ch->end_ns = sel->range_end_ns;
	uint32_t *idx = NULL, n = 0;
	struct build b = {0};
	double px = (double)pv_time_diff(ch->end_ns, ch->start_ns) / width; /* ns per pixel */
	int rc = pv_marker_select(ms, sel, &idx, &n);
	if (!rc)
		rc = rows_of(ms, idx, n, px, &b);
	pv_free_indexes(idx);
	if (!rc && b.len)
		qsort(b.rows, b.len, sizeof(*b.rows), cmp_row);
	if (!rc)
		rc = columns(&b, ch);
	for (uint32_t r = 0; r < b.len; r++)
		pv_free(b.rows[r].e);
	pv_free(b.rows);
	if (rc) {
		pv_marker_chart_free(ch);
		return rc;
	}
	*out = ch;
	return 0;
}

/* ---- distinct names ---- */

struct names {
	const struct pv_markers *ms;
	const uint32_t *first; /* the first marker of each name */
	const char *name;
};

static bool name_eq(const void *ctx, uint32_t r)
{
	const struct names *n = ctx;
	return strcmp(n->ms->name[n->first[r]], n->name) == 0;
}

uint32_t pv_marker_names(const struct pv_markers *ms)
{
	struct ixmap map = {0};
	uint32_t *first = pv_malloc((ms->len ? ms->len : 1) * sizeof(*first)), n = 0;
	struct names ctx = {ms, first, NULL};
	for (uint32_t i = 0; first && i < ms->len; i++) {
		uint32_t slot;
		ctx.name = ms->name[i];
		uint64_t h = hash_bytes(ctx.name, strlen(ctx.name));
		if (ixmap_find(&map, h, name_eq, &ctx, &slot) != UINT32_MAX)
			continue;
		first[n] = i;
		if (ixmap_insert(&map, slot, h, n)) {
			n = PV_NONE;
			break;
		}
		n++;
	}
	if (!first)
		n = PV_NONE;
	ixmap_release(&map);
	pv_free(first);
	return n;
}

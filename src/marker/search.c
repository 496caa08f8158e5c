/*
 * search.c - the marker search of the Firefox Profiler (stringsToMarkerRegExps and
 * getSearchFilteredMarkerIndexes): comma-separated terms, each a case-insensitive substring.
 *
 * A plain term is tried on the category name, the marker name, the payload type and the
 * formatted and the raw value of every schema field (hidden ones too). "key:value" (key =
 * [A-Za-z0-9_]+, compared lowercased) tries value on that key only (name, cat, type or a field key)
 * and is also a plain term as a whole; "-key:value" excludes the markers whose key matches. Case is
 * folded for ASCII letters only.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/sort.h"
#include "marker/internal.h"

struct term {
	char *key;   /* lowercased; NULL for a plain term */
	char *value; /* lowercased */
	bool neg;
};

struct pv_marker_search {
	uint32_t nr;
	struct term *t;
	bool any_pos, any_neg;
};

static char *lower_dup(const char *s, size_t n)
{
	char *d = pv_malloc(n + 1);
	if (!d)
		return NULL;
	for (size_t i = 0; i < n; i++)
		d[i] = (char)tolower((unsigned char)s[i]);
	d[n] = 0;
	return d;
}

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static int push(struct pv_marker_search *s, const char *key, size_t kn, const char *v, size_t vn,
		bool neg)
{
	struct term *t = pv_realloc(s->t, (s->nr + 1) * sizeof(*t));
	if (!t)
		return PV_ENOMEM;
	s->t = t;
	t = &s->t[s->nr];
	t->key = key ? lower_dup(key, kn) : NULL;
	t->value = lower_dup(v, vn);
	t->neg = neg;
	if ((key && !t->key) || !t->value) {
		pv_free(t->key);
		pv_free(t->value);
		return PV_ENOMEM;
	}
	s->nr++;
	if (neg)
		s->any_neg = true;
	else
		s->any_pos = true;
	return 0;
}

void pv_marker_search_free(struct pv_marker_search *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->nr; i++) {
		pv_free(s->t[i].key);
		pv_free(s->t[i].value);
	}
	pv_free(s->t);
	pv_free(s);
}

int pv_marker_search_new(const char *text, struct pv_marker_search **out)
{
	struct pv_marker_search *s = pv_calloc(1, sizeof(*s));
	if (!s)
		return PV_ENOMEM;
	int rc = 0;
	for (const char *p = text; *p && !rc;) {
		size_t n = strcspn(p, ",");
		const char *a = p, *e = p + n;
		p = *e ? e + 1 : e;
		while (a < e && isspace((unsigned char)*a))
			a++;
		while (e > a && isspace((unsigned char)e[-1]))
			e--;
		if (a == e)
			continue;
		/* ^(-?)(\w+):(.+) */
		const char *k = a + (*a == '-');
		const char *kend = k;
		while (kend < e && word_char(*kend))
			kend++;
		if (kend > k && kend < e && *kend == ':' && kend + 1 < e) {
			bool neg = *a == '-';
			rc = push(s, k, (size_t)(kend - k), kend + 1, (size_t)(e - kend - 1), neg);
			if (!rc && !neg)
				rc = push(s, NULL, 0, a, (size_t)(e - a), false);
		} else {
			rc = push(s, NULL, 0, a, (size_t)(e - a), false);
		}
	}
	if (rc) {
		pv_marker_search_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

static bool contains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *h = hay; *h; h++) {
		size_t i = 0;
		while (i < n && h[i] && tolower((unsigned char)h[i]) == (unsigned char)needle[i])
			i++;
		if (i == n)
			return true;
	}
	return n == 0;
}

/* Whether a term of the given sign matches value under key. */
static bool test(const struct pv_marker_search *s, bool neg, const char *value, const char *key)
{
	for (uint32_t i = 0; i < s->nr; i++) {
		const struct term *t = &s->t[i];
		if (t->neg != neg)
			continue;
		if (t->key) {
			size_t kl = strlen(t->key);
			bool same = strlen(key) == kl;
			for (size_t j = 0; same && j < kl; j++)
				same = tolower((unsigned char)key[j]) == (unsigned char)t->key[j];
			if (!same)
				continue;
		}
		if (contains(value, t->value))
			return true;
	}
	return false;
}

/* What a search tests of a marker: (key, value) pairs handed to a visitor, which returns true
 * to stop. The one list of them: the direct match and the prebuilt text both walk it. */
typedef bool (*visit_fn)(void *ctx, const char *key, const char *value);

/*
 * A schema field's value: its raw value, String(value) as the Firefox Profiler tests it
 * (1234567 for a bytes field shown "1.23MB"), and its formatted one ("1.23MB"). A
 * string-index field only when it holds its string (the importers resolve the valid ones);
 * empty values never, nor the "(empty)" the formatter shows for one (the front end tests raw
 * values only: searching "(" finds no empty string field).
 */
static bool fields(const struct pv_markers *ms, uint32_t i, struct pv_marker_detail *d, visit_fn fn,
		   void *ctx)
{
	const struct pv_marker_schema *sc = pv_marker_schema_find(ms, d->type);
	const struct jdoc *doc = d->priv ? &d->priv->doc : NULL;
	if (!sc || !ms->data[i] || !doc || !doc->nr || doc->n[0].kind != JSON_OBJECT)
		return false;
	for (uint32_t f = 0; f < sc->nr_fields; f++) {
		const struct mfield *mf = &sc->fields[f];
		uint32_t v = mf->key ? jn_get(doc, 0, mf->key) : JN_NONE;
		if (v == JN_NONE || doc->n[v].kind == JSON_NULL ||
		    (mf->fmt.kind == F_UNIQUE_STRING && doc->n[v].kind != JSON_STRING))
			continue;
		sbuf_reset(&d->priv->raw);
		jn_js_string(doc, v, &d->priv->raw);
		if (d->priv->raw.len && fn(ctx, mf->key, sbuf_str(&d->priv->raw)))
			return true;
		sbuf_reset(&d->priv->raw);
		mfmt_value(ms, &mf->fmt, MFMT_IDS | MFMT_BARE, doc, v, &d->priv->raw);
		if (d->priv->raw.len && fn(ctx, mf->key, sbuf_str(&d->priv->raw)))
			return true;
	}
	return false;
}

/* The category, the name, the type and the field values of marker i (d resolved). */
static bool visit(const struct pv_markers *ms, uint32_t i, struct pv_marker_detail *d, visit_fn fn,
		  void *ctx)
{
	const struct pv_profile *p = ms->p;
	pv_cat_ix c = ms->category[i];
	if (c != PV_NONE && c < p->categories.len &&
	    fn(ctx, "cat", pv_str(p, p->categories.name[c])))
		return true;
	if (fn(ctx, "name", ms->name[i]))
		return true;
	if (d->type && fn(ctx, "type", d->type))
		return true;
	return d->type && fields(ms, i, d, fn, ctx);
}

struct sign {
	const struct pv_marker_search *s;
	bool neg;
};

static bool test_visit(void *ctx, const char *key, const char *value)
{
	const struct sign *g = ctx;
	return test(g->s, g->neg, value, key);
}

/* Any term of the sign matches the category, the name, the type or a field value. */
static bool any(const struct pv_markers *ms, uint32_t i, const struct pv_marker_search *s, bool neg,
		struct pv_marker_detail *d)
{
	struct sign g = {s, neg};
	return visit(ms, i, d, test_visit, &g);
}

bool pv_marker_search_match(const struct pv_markers *ms, uint32_t i,
			    const struct pv_marker_search *s, struct pv_marker_detail *scratch)
{
	if (!s || (!s->any_pos && !s->any_neg))
		return true;
	if (pv_marker_detail(ms, i, scratch))
		return false;
	if (s->any_pos && !any(ms, i, s, false, scratch))
		return false;
	return !(s->any_neg && any(ms, i, s, true, scratch));
}

/* ---- the prebuilt text ---- */

/*
 * Per marker, the values visit() hands out, ASCII-lowercased, each ended by a NUL, in
 * text[off[first[i]] ..); key[k] is value k's key (a static name or a schema's key, which live
 * as long as the markers).
 */
struct pv_marker_text {
	char *text;
	size_t len, cap;
	size_t *off;
	const char **key;
	uint32_t nr, nr_cap;
	uint32_t *first; /* per marker, its first value; first[ms->len] = nr */
	size_t *block;	 /* per marker, where its values start in text; block[ms->len] = len */
	bool oom;
};

static bool add_visit(void *ctx, const char *key, const char *value)
{
	struct pv_marker_text *tx = ctx;
	size_t n = strlen(value);
	if (tx->nr == tx->nr_cap) {
		uint32_t cap = tx->nr_cap ? tx->nr_cap * 2 : 1024;
		size_t *o = pv_realloc(tx->off, cap * sizeof(*o));
		if (o)
			tx->off = o;
		const char **k = o ? pv_realloc(tx->key, cap * sizeof(*k)) : NULL;
		if (k)
			tx->key = k;
		if (!o || !k) {
			tx->oom = true;
			return true;
		}
		tx->nr_cap = cap;
	}
	if (tx->len + n + 1 > tx->cap) {
		size_t cap = tx->cap ? tx->cap * 2 : 1 << 16;
		while (cap < tx->len + n + 1)
			cap *= 2;
		char *g = pv_realloc(tx->text, cap);
		if (!g) {
			tx->oom = true;
			return true;
		}
		tx->text = g;
		tx->cap = cap;
	}
	tx->off[tx->nr] = tx->len;
	tx->key[tx->nr++] = key;
	for (size_t j = 0; j < n; j++)
		tx->text[tx->len++] = (char)tolower((unsigned char)value[j]);
	tx->text[tx->len++] = 0;
	return false;
}

int pv_marker_text_new(const struct pv_markers *ms, struct pv_marker_text **out)
{
	struct pv_marker_text *tx = pv_calloc(1, sizeof(*tx));
	if (!tx)
		return PV_ENOMEM;
	tx->first = pv_malloc(((size_t)ms->len + 1) * sizeof(*tx->first));
	tx->block = pv_malloc(((size_t)ms->len + 1) * sizeof(*tx->block));
	struct pv_marker_detail d = {0};
	tx->oom = !tx->first || !tx->block;
	for (uint32_t i = 0; i < ms->len && !tx->oom; i++) {
		tx->first[i] = tx->nr;
		tx->block[i] = tx->len;
		if (pv_marker_detail(ms, i, &d))
			tx->oom = true;
		else
			visit(ms, i, &d, add_visit, tx);
	}
	pv_marker_detail_release(&d);
	if (tx->oom) {
		pv_marker_text_free(tx);
		return PV_ENOMEM;
	}
	tx->first[ms->len] = tx->nr;
	tx->block[ms->len] = tx->len;
	char *fit = pv_realloc(tx->text, tx->len ? tx->len : 1); /* the doublings' slack back */
	if (fit)
		tx->text = fit;
	*out = tx;
	return 0;
}

void pv_marker_text_free(struct pv_marker_text *tx)
{
	if (!tx)
		return;
	pv_free(tx->text);
	pv_free(tx->off);
	pv_free(tx->key);
	pv_free(tx->first);
	pv_free(tx->block);
	pv_free(tx);
}

/* test() over marker i's prebuilt values (lowercased: a plain substring search). */
static bool any_text(const struct pv_marker_text *tx, uint32_t i, const struct pv_marker_search *s,
		     bool neg)
{
	const char *block = tx->text + tx->block[i];
	size_t blen = tx->block[i + 1] - tx->block[i];
	if (!blen)
		return false;
	uint32_t a = tx->first[i], b = tx->first[i + 1];
	for (uint32_t k = 0; k < s->nr; k++) {
		const struct term *t = &s->t[k];
		if (t->neg != neg)
			continue;
		if (!t->key) { /* a value has no NUL: a match lies within one value */
			if (memmem(block, blen, t->value, strlen(t->value)))
				return true;
			continue;
		}
		for (uint32_t j = a; j < b; j++)
			if (strcasecmp(tx->key[j], t->key) == 0 &&
			    strstr(tx->text + tx->off[j], t->value))
				return true;
	}
	return false;
}

bool pv_marker_search_match_text(const struct pv_marker_text *tx, uint32_t i,
				 const struct pv_marker_search *s)
{
	if (!s || (!s->any_pos && !s->any_neg))
		return true;
	if (s->any_pos && !any_text(tx, i, s, false))
		return false;
	return !(s->any_neg && any_text(tx, i, s, true));
}

/* ---- selection ---- */

static int64_t known_duration(const struct pv_markers *ms, uint32_t i)
{
	if (ms->end_ns[i] == PV_TIME_NONE || (ms->flags[i] & PV_MARKER_INCOMPLETE))
		return -1;
	return pv_marker_duration(ms, i);
}

/* Markers by known duration, longest first (ctx: the markers). */
static int cmp_duration(const void *a, const void *b, void *ctx)
{
	const struct pv_markers *ms = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int64_t dx = known_duration(ms, x), dy = known_duration(ms, y);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return x < y ? -1 : x > y; /* the list's order: by start */
}

int pv_marker_select(const struct pv_markers *ms, const struct pv_marker_select *sel,
		     uint32_t **idx_out, uint32_t *n_out)
{
	const struct pv_profile *p = ms->p;
	uint32_t *idx = pv_malloc((ms->len ? ms->len : 1) * sizeof(*idx));
	uint8_t *tsel = NULL;
	struct pv_marker_detail d = {0};
	if (!idx)
		return PV_ENOMEM;
	if (sel->threads && sel->nr_threads) {
		tsel = pv_calloc(p->threads.len ? p->threads.len : 1, 1);
		if (!tsel) {
			pv_free(idx);
			return PV_ENOMEM;
		}
		for (uint32_t i = 0; i < sel->nr_threads; i++)
			if (sel->threads[i] < p->threads.len)
				tsel[sel->threads[i]] = 1;
	}
	uint32_t n = 0;
	uint32_t count = sel->within ? sel->nr_within : ms->len;
	for (uint32_t w = 0; w < count; w++) {
		uint32_t i = sel->within ? sel->within[w] : w;
		if (i >= ms->len || (tsel && !tsel[ms->thread[i]]))
			continue;
		if (sel->has_range) {
			int64_t e = ms->end_ns[i] == PV_TIME_NONE ? ms->start_ns[i] : ms->end_ns[i];
			if (ms->start_ns[i] >= sel->range_end_ns || e < sel->range_start_ns)
				continue;
		}
		if (sel->search &&
		    (sel->text ? !pv_marker_search_match_text(sel->text, i, sel->search)
			       : !pv_marker_search_match(ms, i, sel->search, &d)))
			continue;
		idx[n++] = i;
	}
	pv_marker_detail_release(&d);
	pv_free(tsel);
	if (sel->order == PV_MARKERS_BY_DURATION)
		pv_sort_r(idx, n, sizeof(*idx), cmp_duration, ms);
	*idx_out = idx;
	*n_out = n;
	return 0;
}

void pv_free_indexes(uint32_t *idx)
{
	pv_free(idx);
}

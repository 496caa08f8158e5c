/*
 * pmcstat.c - FreeBSD pmcstat's call graph text (`pmcstat -R FILE -G OUT`), read the way
 * speedscope's pmcstat importer reads it, so the weights are the same.
 *
 * Shape: a header "@ EVENT [N samples]" per event, then entries: a line
 * "PCT%  [COUNT]  NAME @ IMAGE" with no indent for a function that was sampled, and under it
 * its callers, one more space of indent per level ("100.0%  [COUNT]  CALLER"). " @ IMAGE" is
 * written when the image changes; it holds for the lines after it.
 *
 * What becomes what: one thread; a path from an entry to a line with no callers below it is
 * one sample whose stack is that path turned around (the outermost caller first, the sampled
 * function last), weighing the COUNT of its last line, as speedscope weighs it; the event is
 * the metric (count), "samples" when no header names one. Images are modules (kernel modules
 * of /boot/kernel kind kernel). A caller line's COUNT above the sum of its callers' counts is
 * samples no path weighs (speedscope's numbers): counted in a lossy line, as are lines of
 * another form (comments, blank lines are skipped).
 *
 * Errors: a line indented more than one step below the one above, or a count past int64.
 */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/text.h"
#include "base/vec.h"
#include "import/importer.h"

#define MAX_EVENTS 64

struct pm {
	struct pv_input *in;
	struct pv_error *err;
	struct pv_builder *b;
	pv_thread_ix th;
	struct vec stack;		 /* pv_frame_ix by indent */
	struct vec cnt, kids;		 /* int64_t by indent: count, callers' sum (-1: none) */
	pv_metric_ix metric;		 /* the current event's */
	uint32_t nmetrics;		 /* defined */
	pv_module_ix module;		 /* the last " @ IMAGE" */
	uint64_t other_lines, unweighed; /* lossy */
	int64_t declared, listed;	 /* the headers' samples, the entries' */
	uint64_t line_no;
};

/* Appends a sample of the path stack[0..depth], outermost caller first. */
static void emit(struct pm *s, int64_t depth, int64_t weight)
{
	const pv_frame_ix *st = VEC(s->stack, pv_frame_ix);
	pv_stack_ix k = PV_NONE;
	for (int64_t i = depth; i >= 0; i--)
		k = builder_stack(s->b, k, st[i]);
	int64_t w[MAX_EVENTS] = {0};
	w[s->metric] = weight;
	builder_sample(s->b, s->th, k, PV_TIME_NONE, w);
}

/* Closes the levels from top down to depth (inclusive): a caller count its callers miss. */
static void close_levels(struct pm *s, int64_t top, int64_t depth)
{
	const int64_t *cnt = VEC(s->cnt, int64_t), *kids = VEC(s->kids, int64_t);
	for (int64_t l = top; l >= depth && l >= 0; l--)
		if (kids[l] >= 0 && cnt[l] > kids[l])
			s->unweighed += (uint64_t)(cnt[l] - kids[l]);
}

static int fail(struct pm *s, const char *at, const char *what)
{
	return input_fail(s->in, s->err, PV_EPARSE, at, "%s", what);
}

/* "@ EVENT [N samples]": a new metric. */
static int header(struct pm *s, const char *p, const char *e)
{
	const char *name = text_skip_blanks(p + 1, e), *ne = name;
	while (ne < e && !text_is_blank(*ne))
		ne++;
	if (ne == name)
		return fail(s, p, "expected an event name after '@'");
	/* "[N samples]" after the name */
	const char *c = text_skip_blanks(ne, e);
	int64_t n_samples = 0;
	if (c < e && *c == '[') {
		for (c++; c < e && text_is_digit(*c); c++)
			if (__builtin_mul_overflow(n_samples, 10, &n_samples) ||
			    __builtin_add_overflow(n_samples, *c - '0', &n_samples))
				return fail(s, c, "sample count out of range");
		if (__builtin_add_overflow(s->declared, n_samples, &s->declared))
			return fail(s, c, "sample count out of range");
	}
	if (s->nmetrics == MAX_EVENTS)
		return fail(s, p, "more than 64 events");
	pv_str_ix n = builder_str(s->b, name, (size_t)(ne - name));
	s->metric = builder_metric(s->b, n, PV_UNIT_COUNT);
	s->nmetrics++;
	return 0;
}

struct span {
	const char *p, *e;
};

/*
 * An entry of the call graph at indent: its function fn (from image im, none when im.p is NULL)
 * on the open path, its count kept for the lines that follow; at (its count) for errors.
 */
static int push_entry(struct pm *s, int64_t indent, int64_t count, struct span fn, struct span im,
		      const char *c)
{
	struct pv_builder *b = s->b;
	if (im.p) {
		pv_str_ix path = builder_str(b, im.p, (size_t)(im.e - im.p));
		const char *base = im.e;
		while (base > im.p && base[-1] != '/')
			base--;
		bool kernel = text_starts(im.p, im.e, "/boot/");
		s->module = builder_module(b, builder_str(b, base, (size_t)(im.e - base)), path,
					   kernel ? PV_MODULE_KERNEL : PV_MODULE_UNKNOWN);
	}
	pv_func_ix f =
	    builder_func(b, builder_str(b, fn.p, (size_t)(fn.e - fn.p)), s->module, PV_NONE, 0);
	if (vec_resize(&s->stack, sizeof(pv_frame_ix), (uint32_t)indent + 1) ||
	    vec_resize(&s->cnt, sizeof(int64_t), (uint32_t)indent + 1) ||
	    vec_resize(&s->kids, sizeof(int64_t), (uint32_t)indent + 1))
		return pv_error_set(s->err, PV_ENOMEM, "%s: out of memory", s->in->name);
	VEC(s->stack, pv_frame_ix)[indent] = builder_func_frame(b, f);
	VEC(s->cnt, int64_t)[indent] = count;
	VEC(s->kids, int64_t)[indent] = -1;
	if (indent == 0 && __builtin_add_overflow(s->listed, count, &s->listed))
		return fail(s, c, "count out of range");
	if (indent > 0) {
		int64_t *k = &VEC(s->kids, int64_t)[indent - 1];
		*k = (*k < 0 ? 0 : *k) + count;
	}
	return 0;
}

static int run(struct pm *s)
{
	struct pv_builder *b = s->b;
	const char *p = s->in->data, *end = p + s->in->len;
	s->th = builder_thread(b, builder_cstr(b, "pmcstat"), PV_ID_NONE, PV_ID_NONE, 0);
	s->module = PV_NONE;
	int64_t prev_indent = -1, prev_count = 0;
	for (; p < end && !b->status; s->line_no++) {
		const char *e = text_line_end(p, end), *next = e < end ? e + 1 : end;
		if (e > p && e[-1] == '\r')
			e--;
		const char *q = p;
		while (q < e && *q == ' ')
			q++;
		int64_t indent = q - p;
		/* [\d.]+%  \[(\d+)\]\s*(\S+)(?: @ (.*))?$ */
		const char *r = q;
		while (r < e && (text_is_digit(*r) || *r == '.'))
			r++;
		bool ok = r > q && text_starts(r, e, "%  [");
		if (!ok) {
			const char *t = text_skip_blanks(p, e);
			int rc;
			if (t == p && t < e && *t == '@') {
				if ((rc = header(s, t, e)))
					return rc;
			} else if (t < e) {
				s->other_lines++;
			}
			p = next;
			continue;
		}
		const char *c = r + 4;
		int64_t count = 0;
		const char *d = c;
		for (; d < e && text_is_digit(*d); d++)
			if (__builtin_mul_overflow(count, 10, &count) ||
			    __builtin_add_overflow(count, *d - '0', &count))
				return fail(s, c, "count out of range");
		const char *name = d + 1;
		if (d == c || d >= e || *d != ']') {
			s->other_lines++;
			p = next;
			continue;
		}
		while (name < e && (text_is_blank(*name) || *name == '\f' || *name == '\v'))
			name++;
		const char *ne = name;
		while (ne < e && !text_is_blank(*ne))
			ne++;
		const char *img = NULL, *img_end = e;
		if (ne < e) {
			if (!text_starts(ne, e, " @ ")) {
				s->other_lines++;
				p = next;
				continue;
			}
			img = ne + 3;
		}
		if (ne == name) {
			s->other_lines++;
			p = next;
			continue;
		}
		if (indent > prev_indent + 1)
			return input_fail(s->in, s->err, PV_EPARSE, q,
					  "a caller indented %lld spaces under a line of %lld: one "
					  "space more at most",
					  (long long)indent,
					  (long long)(prev_indent < 0 ? 0 : prev_indent));
		if (!s->nmetrics) {
			s->metric = builder_metric(b, builder_cstr(b, "samples"), PV_UNIT_COUNT);
			s->nmetrics = 1;
		}
		if (indent <= prev_indent) {
			emit(s, prev_indent, prev_count);
			close_levels(s, prev_indent, indent);
		}
		int rc = push_entry(s, indent, count, (struct span){name, ne},
				    (struct span){img, img_end}, c);
		if (rc)
			return rc;
		prev_indent = indent;
		prev_count = count;
		p = next;
	}
	if (prev_indent >= 0) {
		emit(s, prev_indent, prev_count);
		close_levels(s, prev_indent, 0);
	}
	builder_lossy(b, s->unweighed,
		      "samples of caller lines above the sum of their callers' (no path weighs "
		      "them, as in speedscope)");
	if (s->declared > s->listed)
		builder_lossy(b, (uint64_t)(s->declared - s->listed),
			      "samples the event headers count that no entry lists");
	builder_lossy(b, s->other_lines, "lines not of the call graph's form (skipped)");
	return 0;
}

/* ---- probe and import ---- */

static int probe(const struct pv_input *in)
{
	const char *p = in->data, *end = p + (in->len < 4096 ? in->len : 4096);
	/* the first line that is not blank: the event header, or an entry */
	while (p < end) {
		const char *e = text_line_end(p, end);
		const char *t = text_skip_blanks(p, e);
		if (t < e && *t != '\r') {
			if (t == p && *t == '@' && memmem(t, (size_t)(e - t), " samples]", 9))
				return 70;
			const char *r = t;
			while (r < e && (text_is_digit(*r) || *r == '.'))
				r++;
			return r > t && text_starts(r, e, "%  [") ? 60 : 0;
		}
		p = e + 1;
	}
	return 0;
}

static int import(struct pv_input *in, struct pv_builder *b, struct pv_error *err)
{
	struct pm s = {.in = in, .err = err, .b = b};
	int rc = run(&s);
	vec_free(&s.stack);
	vec_free(&s.cnt);
	vec_free(&s.kids);
	return rc;
}

const struct importer importer_pmcstat = {
    .name = "pmcstat",
    .description = "FreeBSD pmcstat call graph text (pmcstat -G)",
    .cut_short = input_ends_mid_line,
    .probe = probe,
    .import = import,
};

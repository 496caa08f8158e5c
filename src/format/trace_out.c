/*
 * trace_out.c - the trace view as text and JSON (pv/trace.h): the call stack at a (context,
 * time), a window's pixels and shares, the depth view's boxes. The CLI (profview trace) and
 * the web API (/api/trace) both print through these.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "format/internal.h"
#include "pv/format.h"
#include "pv/trace.h"
#include "pv/view.h"

static const char *frame_kind(const struct pv_profile *p, pv_frame_ix f)
{
	uint8_t k = pv_frame_kind(p, f);
	return k == PV_FRAME_LOOP ? "loop" : k == PV_FRAME_STATEMENT ? "statement" : "code";
}

/* The scope naming function f alone (pv_func_scope). */
static void func_scope(struct pv_scope_names *sn, pv_func_ix f, char *buf, size_t n)
{
	pv_func_scope(sn, f, buf, n);
}

/* The stack at (c, time): its record and frames (each frame's depth: PV_NONE for a loop or a
 * statement), and what writes their functions' scopes. */
struct at {
	pv_thread_ix th;
	pv_stack_ix s;
	int64_t start, end;
	uint32_t rec, n;
	bool shown;
	enum pv_trace_state st;
	pv_frame_ix *fr;
	uint32_t *dp;
	struct pv_scope_names *sn;
};

static void at_release(struct at *a)
{
	pv_free(a->fr);
	pv_free(a->dp);
	pv_scope_names_free(a->sn);
}

static int at_find(const struct pv_trace_paint *pt, uint32_t c, int64_t time, struct at *a)
{
	const struct pv_trace *t = pv_trace_paint_trace(pt);
	const struct pv_profile *p = pv_trace_profile(t);
	memset(a, 0, sizeof(*a));
	a->th = pv_trace_paint_thread(pt, c);
	a->s = PV_NONE;
	a->rec =
	    a->th == PV_NONE ? PV_NONE : pv_trace_at(t, a->th, time, &a->s, &a->start, &a->end);
	a->shown = pv_trace_paint_func(pt, a->s) != PV_NONE;
	a->st = pv_trace_paint_state(pt, a->rec, a->s);
	a->n = a->rec == PV_NONE ? 0 : pv_trace_frames(t, a->s, NULL, NULL, 0);
	a->fr = pv_malloc((size_t)(a->n ? a->n : 1) * sizeof(*a->fr));
	a->dp = pv_malloc((size_t)(a->n ? a->n : 1) * sizeof(*a->dp));
	if (!a->fr || !a->dp || pv_scope_names_new(p, &a->sn)) {
		at_release(a);
		return PV_ENOMEM;
	}
	if (a->n)
		pv_trace_frames(t, a->s, a->fr, a->dp, a->n);
	return 0;
}

static const char *thread_name(const struct pv_profile *p, pv_thread_ix th)
{
	return th < p->threads.len ? pv_str(p, p->threads.name[th]) : "";
}

int pv_json_trace_stack(struct pv_json *j, const struct pv_trace_paint *pt, uint32_t c,
			int64_t time)
{
	const struct pv_profile *p = pv_trace_profile(pv_trace_paint_trace(pt));
	struct at a;
	if (at_find(pt, c, time, &a))
		return PV_ENOMEM;
	char buf[1024], scope[1024];
	pv_json_object(j);
	pv_json_kuint(j, "context", c);
	pv_json_kstr(j, "thread", thread_name(p, a.th));
	pv_json_kint(j, "thread_index", a.th == PV_NONE ? -1 : (int64_t)a.th);
	pv_json_kbool(j, "shown", a.shown);
	pv_json_kstr(j, "state", pv_trace_state_name(a.st));
	pv_json_kms(j, "time", time);
	if (a.rec == PV_NONE) {
		pv_json_knull(j, "record");
		pv_json_knull(j, "start");
		pv_json_knull(j, "end");
	} else {
		pv_json_kuint(j, "record", a.rec);
		pv_json_kms(j, "start", a.start);
		pv_json_kms(j, "end", a.end);
	}
	pv_json_key(j, "frames");
	pv_json_open(j, '[', PV_JSON_LINES, 2);
	for (uint32_t k = 0; k < a.n; k++) {
		pv_func_ix f = p->frames.func[a.fr[k]];
		pv_json_object(j);
		pv_json_key(j, "depth");
		if (a.dp[k] == PV_NONE)
			pv_json_null(j);
		else
			pv_json_uint(j, a.dp[k]);
		pv_json_kstr(j, "name", pv_trace_frame_name(p, a.fr[k], buf, sizeof(buf)));
		pv_json_kstr(j, "function", pv_str(p, p->funcs.name[f]));
		pv_json_kuint(j, "id", f);
		func_scope(a.sn, f, scope, sizeof(scope));
		pv_json_kstr(j, "scope", scope);
		pv_json_kstr(j, "kind", frame_kind(p, a.fr[k]));
		pv_json_end(j);
	}
	pv_json_end(j);
	pv_json_end(j);
	pv_json_eol(j);
	at_release(&a);
	return pv_json_error(j);
}

/* The end of an answer written through j on a FILE: the writer's error or the answer's. */
static int json_done(int rc_write, struct pv_json *j)
{
	int rc = pv_json_finish(j);
	pv_json_free(j);
	return rc_write ? rc_write : rc;
}

int pv_print_trace_stack(FILE *out, const struct pv_trace_paint *pt, uint32_t c, int64_t time,
			 bool json)
{
	if (json) {
		struct pv_json *j = pv_json_new(out);
		return j ? json_done(pv_json_trace_stack(j, pt, c, time), j) : PV_ENOMEM;
	}
	const struct pv_profile *p = pv_trace_profile(pv_trace_paint_trace(pt));
	struct at a;
	if (at_find(pt, c, time, &a))
		return PV_ENOMEM;
	char buf[1024], e[FMT_NAME];
	fprintf(out, "context %u (%s) at %.3f ms: ", c, fmt_name(e, thread_name(p, a.th)),
		(double)time / 1e6);
	if (a.st == PV_TRACE_NO_RECORD)
		fputs("no record in force (before its first record or after its end)\n", out);
	else
		fprintf(out, "record %u, %.3f to %.3f ms%s\n", a.rec, (double)a.start / 1e6,
			(double)a.end / 1e6,
			a.st == PV_TRACE_NOT_RUNNING   ? ": not running"
			: a.st == PV_TRACE_NO_ACTIVITY ? ": no activity (idle)"
			: a.st == PV_TRACE_LEFT_OUT    ? " (left out by the query)"
						       : "");
	if (a.n)
		fputs("depth  frame\n", out);
	for (uint32_t k = 0; k < a.n; k++) {
		if (a.dp[k] == PV_NONE)
			fputs("       ", out);
		else
			fprintf(out, "%5u  ", a.dp[k]);
		fprintf(out, "%s\n",
			fmt_name(e, pv_trace_frame_name(p, a.fr[k], buf, sizeof(buf))));
	}
	at_release(&a);
	return 0;
}

/* The writer's error as the printers' (out of memory, or the output failed). */
static int json_error(const struct pv_json *j, struct pv_error *err)
{
	int rc = pv_json_error(j);
	if (!rc)
		return 0;
	return pv_error_set(err, rc,
			    rc == PV_ENOMEM ? "out of memory" : "writing the output failed");
}

/* A function's id in a window's rows and shares: -1 for a blank pixel. */
static void json_id(struct pv_json *j, pv_func_ix f)
{
	pv_json_int(j, f == PV_NONE ? -1 : (int64_t)f);
}

/* A window's pixels and their shares (pv_trace_image, pv_trace_shares). */
struct image {
	pv_func_ix *px;
	struct pv_trace_share *sh;
	struct pv_scope_names *sn;
	uint32_t cap, ns;
	size_t npx;
};

static void image_release(struct image *im)
{
	pv_free(im->px);
	pv_free(im->sh);
	pv_scope_names_free(im->sn);
}

static int image_paint(const struct pv_trace_paint *pt, const struct pv_trace_window *w,
		       struct image *im, struct pv_error *err)
{
	const struct pv_profile *p = pv_trace_profile(pv_trace_paint_trace(pt));
	memset(im, 0, sizeof(*im));
	im->npx = (size_t)w->width * w->height;
	im->px = im->npx && im->npx <= (1u << 26) ? pv_malloc(im->npx * sizeof(*im->px)) : NULL;
	if (!im->px && im->npx && im->npx <= (1u << 26))
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	int rc = pv_trace_image(pt, w, im->px, err);
	if (rc) {
		image_release(im);
		return rc;
	}
	im->cap = p->funcs.len + 1;
	im->sh = pv_malloc((size_t)im->cap * sizeof(*im->sh));
	if (!im->sh || pv_scope_names_new(p, &im->sn)) {
		image_release(im);
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	}
	im->ns = pv_trace_shares(im->px, w->width, w->height, 0, w->width, im->sh, im->cap);
	return 0;
}

/* The window's contexts named: "names" (each context's thread, when each has a pixel row at
 * least) and "labels". */
static void json_context_labels(struct pv_json *j, const struct pv_trace_paint *pt,
				const struct pv_trace_window *w)
{
	const struct pv_profile *p = pv_trace_profile(pv_trace_paint_trace(pt));
	/* the contexts' thread names when each has a pixel row at least (labels) */
	pv_json_key(j, "names");
	if (w->c1 - w->c0 > w->height) {
		pv_json_null(j);
	} else {
		pv_json_array(j);
		for (uint32_t c = w->c0; c < w->c1; c++)
			pv_json_str(j, thread_name(p, pv_trace_paint_thread(pt, c)));
		pv_json_end(j);
	}
	/* the context each label stands for, as [C, NAME]: every context when each has a pixel row,
	 * else each pixel row's (the row's middle, as the pixels) -- the page labels every Nth
	 * and names the rest on hover, at any count */
	pv_json_key(j, "labels");
	pv_json_open(j, '[', PV_JSON_ROWS, 2);
	uint32_t nc = w->c1 - w->c0, nl = nc > w->height ? w->height : nc;
	for (uint32_t r = 0; r < nl; r++) {
		uint32_t c =
		    nc > w->height
			? w->c0 + (uint32_t)(((uint64_t)2 * r + 1) * nc / (2 * (uint64_t)w->height))
			: w->c0 + r;
		pv_json_open(j, '[', PV_JSON_COMPACT, 0);
		pv_json_uint(j, c);
		pv_json_str(j, thread_name(p, pv_trace_paint_thread(pt, c)));
		pv_json_end(j);
	}
	pv_json_end(j);
}

int pv_json_trace_window(struct pv_json *j, const struct pv_trace_paint *pt,
			 const struct pv_trace_window *w, const struct pv_trace_print *o,
			 struct pv_error *err)
{
	const struct pv_trace *t = pv_trace_paint_trace(pt);
	const struct pv_profile *p = pv_trace_profile(t);
	struct image im;
	int rc = image_paint(pt, w, &im, err);
	if (rc)
		return rc;
	const struct pv_trace_share *sh = im.sh;
	char scope[1024];
	pv_json_object(j);
	pv_json_kms(j, "t0", w->t0);
	pv_json_kms(j, "t1", w->t1);
	pv_json_kuint(j, "c0", w->c0);
	pv_json_kuint(j, "c1", w->c1);
	pv_json_kuint(j, "contexts", pv_trace_paint_contexts(pt));
	pv_json_kuint(j, "width", w->width);
	pv_json_kuint(j, "height", w->height);
	pv_json_kuint(j, "depth", pv_trace_paint_depth(pt));
	pv_json_kuint(j, "max_depth", pv_trace_max_depth(t));
	json_context_labels(j, pt, w);
	if (o->records) {
		pv_json_key(j, "records");
		pv_json_array(j);
		for (uint32_t c = w->c0; c < w->c1; c++)
			pv_json_uint(j, pv_trace_paint_records(pt, c));
		pv_json_end(j);
	}
	pv_json_key(j, "functions");
	pv_json_open(j, '[', PV_JSON_ROWS, 2);
	for (uint32_t i = 0; i < im.ns; i++) {
		if (sh[i].func == PV_NONE)
			continue;
		pv_json_object(j);
		pv_json_kuint(j, "id", sh[i].func);
		pv_json_kstr(j, "name", pv_str(p, p->funcs.name[sh[i].func]));
		func_scope(im.sn, sh[i].func, scope, sizeof(scope));
		pv_json_kstr(j, "scope", scope);
		pv_json_end(j);
	}
	pv_json_end(j);
	pv_json_key(j, "shares");
	pv_json_array(j);
	for (uint32_t i = 0; i < im.ns; i++) {
		pv_json_object(j);
		pv_json_key(j, "id");
		json_id(j, sh[i].func);
		pv_json_kuint(j, "pixels", sh[i].pixels);
		pv_json_key(j, "percent");
		pv_json_fixed(j, 100.0 * sh[i].pixels / (double)im.npx, 4);
		pv_json_end(j);
	}
	pv_json_end(j);
	pv_json_newline(j);
	pv_json_key(j, "rows");
	pv_json_open(j, '[', PV_JSON_ROWS, 2);
	for (uint32_t y = 0; y < w->height; y++) {
		const pv_func_ix *row = im.px + (size_t)y * w->width;
		pv_json_open(j, '[', PV_JSON_COMPACT, 0);
		for (uint32_t x = 0; x < w->width;) {
			uint32_t e = x + 1;
			if (o->runs)
				while (e < w->width && row[e] == row[x])
					e++;
			json_id(j, row[x]);
			if (o->runs)
				pv_json_uint(j, e - x);
			x = e;
		}
		pv_json_end(j);
	}
	pv_json_end(j);
	if (o->summary) {
		struct pv_trace_share *cs = im.sh;
		pv_json_newline(j);
		pv_json_key(j, "summary");
		pv_json_open(j, '[', PV_JSON_ROWS, 2);
		for (uint32_t x = 0; x < w->width; x++) {
			uint32_t m =
			    pv_trace_shares(im.px, w->width, w->height, x, x + 1, cs, im.cap);
			pv_json_open(j, '[', PV_JSON_COMPACT, 0);
			for (uint32_t i = 0; i < m && i < im.cap; i++) {
				json_id(j, cs[i].func);
				pv_json_uint(j, cs[i].pixels);
			}
			pv_json_end(j);
		}
		pv_json_end(j);
	}
	pv_json_end(j);
	pv_json_eol(j);
	image_release(&im);
	return json_error(j, err);
}

int pv_print_trace_window(FILE *out, const struct pv_trace_paint *pt,
			  const struct pv_trace_window *w, const struct pv_trace_print *o,
			  struct pv_error *err)
{
	if (o->json) {
		struct pv_json *j = pv_json_new(out);
		if (!j)
			return pv_error_set(err, PV_ENOMEM, "out of memory");
		return json_done(pv_json_trace_window(j, pt, w, o, err), j);
	}
	const struct pv_profile *p = pv_trace_profile(pv_trace_paint_trace(pt));
	struct image im;
	int rc = image_paint(pt, w, &im, err);
	if (rc)
		return rc;
	fprintf(out,
		"window %.3f to %.3f ms, contexts %u to %u, %u x %u pixels, depth %u: "
		"pixels per function\n",
		(double)w->t0 / 1e6, (double)w->t1 / 1e6, w->c0, w->c1, w->width, w->height,
		pv_trace_paint_depth(pt));
	char e[FMT_NAME];
	for (uint32_t i = 0; i < im.ns; i++)
		fprintf(out, "%7.2f%%  %s\n", 100.0 * im.sh[i].pixels / (double)im.npx,
			im.sh[i].func == PV_NONE
			    ? "(blank)"
			    : fmt_name(e, pv_str(p, p->funcs.name[im.sh[i].func])));
	image_release(&im);
	return 0;
}

int pv_print_trace_overview(FILE *out, const struct pv_trace *t, bool json)
{
	const struct pv_profile *p = pv_trace_profile(t);
	int64_t start, end;
	pv_trace_range(t, &start, &end);
	if (!json) {
		fprintf(out,
			"trace: %u contexts, %llu records (%s), %.3f to %.3f ms, depths 0 to %u\n",
			pv_trace_lines(t), (unsigned long long)pv_trace_records(t),
			p->trace.len ? "trace records" : "timed samples", (double)start / 1e6,
			(double)end / 1e6, pv_trace_max_depth(t) ? pv_trace_max_depth(t) - 1 : 0);
		return ferror(out) ? PV_EIO : 0;
	}
	struct pv_json *j = pv_json_new(out);
	if (!j)
		return PV_ENOMEM;
	pv_json_object(j);
	pv_json_kuint(j, "contexts", pv_trace_lines(t));
	pv_json_kuint(j, "records", pv_trace_records(t));
	pv_json_key(j, "start");
	pv_json_fixed(j, (double)start / 1e6, 6);
	pv_json_key(j, "end");
	pv_json_fixed(j, (double)end / 1e6, 6);
	pv_json_kuint(j, "max_depth", pv_trace_max_depth(t));
	pv_json_end(j);
	pv_json_eol(j);
	return json_done(0, j);
}

/* The boxes' answer opened: {"context", "thread", "t0", "t1" */
static void json_boxes_head(struct pv_json *j, const struct pv_trace_paint *pt, uint32_t c,
			    int64_t t0, int64_t t1)
{
	const struct pv_profile *p = pv_trace_profile(pv_trace_paint_trace(pt));
	pv_json_object(j);
	pv_json_kuint(j, "context", c);
	pv_json_kstr(j, "thread", pv_str(p, p->threads.name[pv_trace_paint_thread(pt, c)]));
	pv_json_kms(j, "t0", t0);
	pv_json_kms(j, "t1", t1);
}

int pv_json_trace_boxes(struct pv_json *j, const struct pv_trace_paint *pt, uint32_t c, int64_t t0,
			int64_t t1, int64_t min_ns, bool compact, struct pv_error *err)
{
	const struct pv_profile *p = pv_trace_profile(pv_trace_paint_trace(pt));
	struct pv_trace_box *b = NULL;
	uint32_t n = 0;
	int rc = pv_trace_boxes(pt, c, t0, t1, min_ns, &b, &n, err);
	if (rc)
		return rc;
	json_boxes_head(j, pt, c, t0, t1);
	if (compact) {
		/* each function's name once, in the order of its first box; the boxes as arrays */
		uint8_t *seen = pv_calloc(p->funcs.len ? p->funcs.len : 1, 1);
		if (!seen) {
			pv_free_boxes(b);
			return pv_error_set(err, PV_ENOMEM, "out of memory");
		}
		pv_json_key(j, "functions");
		pv_json_open(j, '[', PV_JSON_ROWS, 2);
		for (uint32_t i = 0; i < n; i++) {
			if (seen[b[i].func])
				continue;
			seen[b[i].func] = 1;
			pv_json_open(j, '[', PV_JSON_COMPACT, 0);
			pv_json_uint(j, b[i].func);
			pv_json_str(j, pv_str(p, p->funcs.name[b[i].func]));
			pv_json_end(j);
		}
		pv_json_end(j);
		pv_free(seen);
	}
	pv_json_key(j, "boxes");
	pv_json_open(j, '[', compact ? PV_JSON_ROWS : PV_JSON_LINES, 2);
	for (uint32_t i = 0; i < n; i++) {
		if (compact) {
			pv_json_open(j, '[', PV_JSON_COMPACT, 0);
			pv_json_uint(j, b[i].depth);
			pv_json_ms(j, b[i].start);
			pv_json_ms(j, b[i].end);
			pv_json_uint(j, b[i].func);
			pv_json_uint(j, b[i].stack);
			pv_json_end(j);
			continue;
		}
		pv_json_object(j);
		pv_json_kuint(j, "depth", b[i].depth);
		pv_json_kms(j, "start", b[i].start);
		pv_json_kms(j, "end", b[i].end);
		pv_json_kuint(j, "id", b[i].func);
		pv_json_kstr(j, "name", pv_str(p, p->funcs.name[b[i].func]));
		pv_json_kuint(j, "stack", b[i].stack);
		pv_json_end(j);
	}
	pv_json_end(j);
	pv_json_end(j);
	pv_json_eol(j);
	pv_free_boxes(b);
	return json_error(j, err);
}

/* The first line of the boxes of context c as text (the chart's: width pixels, else 0); the
 * profile. */
static const struct pv_profile *boxes_head(FILE *out, const struct pv_trace_paint *pt, uint32_t c,
					   int64_t t0, int64_t t1, uint32_t width, uint32_t n)
{
	const struct pv_profile *p = pv_trace_profile(pv_trace_paint_trace(pt));
	char e[FMT_NAME], px[32] = "";
	if (width)
		snprintf(px, sizeof(px), ", %u pixels", width);
	fprintf(out, "context %u (%s), %.3f to %.3f ms%s: %u boxes\n", c,
		fmt_name(e, thread_name(p, pv_trace_paint_thread(pt, c))), (double)t0 / 1e6,
		(double)t1 / 1e6, px, n);
	return p;
}

int pv_print_trace_boxes(FILE *out, const struct pv_trace_paint *pt, uint32_t c, int64_t t0,
			 int64_t t1, int64_t min_ns, bool json, struct pv_error *err)
{
	if (json) {
		struct pv_json *j = pv_json_new(out);
		if (!j)
			return pv_error_set(err, PV_ENOMEM, "out of memory");
		return json_done(pv_json_trace_boxes(j, pt, c, t0, t1, min_ns, false, err), j);
	}
	struct pv_trace_box *b = NULL;
	uint32_t n = 0;
	int rc = pv_trace_boxes(pt, c, t0, t1, min_ns, &b, &n, err);
	if (rc)
		return rc;
	const struct pv_profile *p = boxes_head(out, pt, c, t0, t1, 0, n);
	char e[FMT_NAME];
	if (n)
		fputs("depth      start        end  function\n", out);
	for (uint32_t i = 0; i < n; i++)
		fprintf(out, "%5u %10.3f %10.3f  %*s%s\n", b[i].depth, (double)b[i].start / 1e6,
			(double)b[i].end / 1e6, (int)(b[i].depth < 40 ? b[i].depth : 40), "",
			fmt_name(e, pv_str(p, p->funcs.name[b[i].func])));
	pv_free_boxes(b);
	return ferror(out) ? pv_error_set(err, PV_EIO, "writing the output failed") : 0;
}

/* A function's [ID, NAME] in "functions". */
static void json_function(struct pv_json *j, const struct pv_profile *p, pv_func_ix f)
{
	pv_json_open(j, '[', PV_JSON_COMPACT, 0);
	pv_json_uint(j, f);
	pv_json_str(j, pv_str(p, p->funcs.name[f]));
	pv_json_end(j);
}

/* "functions": [[ID, NAME], ...] of the chart's boxes, each once in the order of its first box. */
static int json_chart_functions(struct pv_json *j, const struct pv_profile *p,
				const struct pv_trace_chart_box *b, uint32_t n)
{
	uint8_t *seen = pv_calloc(p->funcs.len ? p->funcs.len : 1, 1);
	if (!seen)
		return PV_ENOMEM;
	pv_json_key(j, "functions");
	pv_json_open(j, '[', PV_JSON_ROWS, 2);
	for (uint32_t i = 0; i < n; i++) {
		if (b[i].func == PV_NONE || seen[b[i].func])
			continue;
		seen[b[i].func] = 1;
		json_function(j, p, b[i].func);
	}
	pv_json_end(j);
	pv_free(seen);
	return 0;
}

int pv_json_trace_chart_named(struct pv_json *j, const struct pv_trace_paint *pt, uint32_t c,
			      int64_t t0, int64_t t1, uint32_t width,
			      const struct pv_trace_chart_box *b, uint32_t n,
			      const pv_func_ix *named, uint32_t nnamed, const uint32_t *known,
			      struct pv_error *err)
{
	const struct pv_profile *p = pv_trace_profile(pv_trace_paint_trace(pt));
	json_boxes_head(j, pt, c, t0, t1);
	pv_json_kuint(j, "width", width);
	pv_json_kuint(j, "boxes", n);
	if (named) {
		pv_json_key(j, "functions");
		pv_json_open(j, '[', PV_JSON_ROWS, 2);
		for (uint32_t i = 0; i < nnamed; i++)
			json_function(j, p, named[i]);
		pv_json_end(j);
	} else if (json_chart_functions(j, p, b, n)) {
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	}
	if (known) {
		pv_json_key(j, "known");
		pv_json_open(j, '[', PV_JSON_COMPACT, 0);
		pv_json_uint(j, known[0]);
		pv_json_uint(j, known[1]);
		pv_json_end(j);
	}
	/* a row per depth: [GAP, WIDTH, ID, N, ...], four numbers a box, its columns from the
	 * previous box's end (the first's from 0): what the page draws, in a few bytes a box */
	pv_json_key(j, "rows");
	pv_json_open(j, '[', PV_JSON_ROWS, 2);
	for (uint32_t i = 0, d = 0; i < n; d++) {
		/* (a depth's boxes cover the deeper ones': no depth is skipped, but the row is d)
		 */
		pv_json_open(j, '[', PV_JSON_COMPACT, 0);
		for (uint32_t x = 0; i < n && b[i].depth == d; x = b[i++].x1) {
			pv_json_uint(j, b[i].x0 - x);
			pv_json_uint(j, b[i].x1 - b[i].x0);
			json_id(j, b[i].func);
			pv_json_uint(j, b[i].n);
		}
		pv_json_end(j);
	}
	pv_json_end(j);
	pv_json_end(j);
	pv_json_eol(j);
	return json_error(j, err);
}

int pv_json_trace_chart(struct pv_json *j, const struct pv_trace_paint *pt, uint32_t c, int64_t t0,
			int64_t t1, uint32_t width, struct pv_error *err)
{
	struct pv_trace_chart_box *b = NULL;
	uint32_t n = 0;
	int rc = pv_trace_chart(pt, c, t0, t1, width, &b, &n, err);
	if (rc)
		return rc;
	rc = pv_json_trace_chart_named(j, pt, c, t0, t1, width, b, n, NULL, 0, NULL, err);
	pv_free_chart(b);
	return rc;
}

int pv_json_trace_chart_box(struct pv_json *j, const struct pv_trace_paint *pt, uint32_t c,
			    int64_t t0, int64_t t1, uint32_t width, uint32_t depth, uint32_t x,
			    struct pv_error *err)
{
	const struct pv_profile *p = pv_trace_profile(pv_trace_paint_trace(pt));
	struct pv_trace_chart_box *b = NULL;
	uint32_t n = 0;
	int rc = pv_trace_chart(pt, c, t0, t1, width, &b, &n, err);
	if (rc)
		return rc;
	/* the boxes are by depth, then column: the first of depth's ending after x */
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t m = lo + (hi - lo) / 2;
		if (b[m].depth < depth || (b[m].depth == depth && b[m].x1 <= x))
			lo = m + 1;
		else
			hi = m;
	}
	const struct pv_trace_chart_box *o =
	    lo < n && b[lo].depth == depth && b[lo].x0 <= x ? &b[lo] : NULL;
	json_boxes_head(j, pt, c, t0, t1);
	pv_json_kuint(j, "width", width);
	pv_json_key(j, "box");
	if (o) {
		pv_json_object(j);
		pv_json_kuint(j, "depth", o->depth);
		pv_json_kuint(j, "x0", o->x0);
		pv_json_kuint(j, "x1", o->x1);
		pv_json_kms(j, "start", o->start);
		pv_json_kms(j, "end", o->end);
		pv_json_kuint(j, "n", o->n);
		pv_json_key(j, "id");
		json_id(j, o->func);
		pv_json_key(j, "name");
		pv_json_str_or_null(j,
				    o->func == PV_NONE ? NULL : pv_str(p, p->funcs.name[o->func]));
		pv_json_kuint(j, "stack", o->stack);
		pv_json_end(j);
	} else {
		pv_json_null(j);
	}
	pv_json_end(j);
	pv_json_eol(j);
	pv_free_chart(b);
	return json_error(j, err);
}

int pv_print_trace_chart(FILE *out, const struct pv_trace_paint *pt, uint32_t c, int64_t t0,
			 int64_t t1, uint32_t width, bool json, struct pv_error *err)
{
	struct pv_json *j = json ? pv_json_new(out) : NULL;
	if (json)
		return j ? json_done(pv_json_trace_chart(j, pt, c, t0, t1, width, err), j)
			 : pv_error_set(err, PV_ENOMEM, "out of memory");
	struct pv_trace_chart_box *b = NULL;
	uint32_t n = 0;
	int rc = pv_trace_chart(pt, c, t0, t1, width, &b, &n, err);
	if (rc)
		return rc;
	const struct pv_profile *p = boxes_head(out, pt, c, t0, t1, width, n);
	char e[FMT_NAME];
	if (n)
		fputs("depth  pixels          start        end  boxes  function\n", out);
	for (uint32_t i = 0; i < n; i++)
		fprintf(out, "%5u %4u-%-4u %12.3f %10.3f %6u  %*s%s\n", b[i].depth, b[i].x0,
			b[i].x1, (double)b[i].start / 1e6, (double)b[i].end / 1e6, b[i].n,
			(int)(b[i].depth < 40 ? b[i].depth : 40), "",
			b[i].func == PV_NONE ? "(several functions, each under a pixel)"
					     : fmt_name(e, pv_str(p, p->funcs.name[b[i].func])));
	pv_free_chart(b);
	return ferror(out) ? pv_error_set(err, PV_EIO, "writing the output failed") : 0;
}

/*
 * trace_out.c - the trace view as text and JSON (pv/trace.h): the call stack at a (context,
 * time), a window's pixels and shares, the depth view's boxes. The CLI (profview trace) and
 * the web API (/api/trace) both print through these.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "pv/format.h"
#include "pv/trace.h"
#include "pv/view.h"

static const char *frame_kind(const struct pv_profile *p, pv_frame_ix f)
{
	uint8_t k = p->frames.kind ? p->frames.kind[f] : PV_FRAME_CODE;
	return k == PV_FRAME_LOOP ? "loop" : k == PV_FRAME_STATEMENT ? "statement" : "code";
}

/* The scope naming function f alone: NAME, or NAME@FILE:LINE when another has its name. */
static void func_scope(const struct pv_profile *p, const uint8_t *shared, pv_func_ix f, char *buf,
		       size_t n)
{
	pv_func_scope(p, f, shared && shared[f], buf, n);
}

int pv_print_trace_stack(FILE *out, const struct pv_trace_paint *pt, uint32_t c, int64_t time,
			 bool json)
{
	const struct pv_trace *t = pv_trace_paint_trace(pt);
	const struct pv_profile *p = pv_trace_profile(t);
	pv_thread_ix th = pv_trace_paint_thread(pt, c);
	pv_stack_ix s = PV_NONE;
	int64_t start = 0, end = 0;
	uint32_t rec = th == PV_NONE ? PV_NONE : pv_trace_at(t, th, time, &s, &start, &end);
	bool shown = pv_trace_paint_func(pt, s) != PV_NONE;
	uint32_t n = rec == PV_NONE ? 0 : pv_trace_frames(t, s, NULL, NULL, 0);
	pv_frame_ix *fr = pv_malloc((size_t)(n ? n : 1) * sizeof(*fr));
	uint32_t *dp = pv_malloc((size_t)(n ? n : 1) * sizeof(*dp));
	uint8_t *shared = pv_malloc(p->funcs.len ? p->funcs.len : 1);
	if (!fr || !dp || !shared || pv_funcs_name_shared(p, shared)) {
		pv_free(fr);
		pv_free(dp);
		pv_free(shared);
		return PV_ENOMEM;
	}
	if (n)
		pv_trace_frames(t, s, fr, dp, n);
	const char *tname = th < p->threads.len ? pv_str(p, p->threads.name[th]) : "";
	char buf[1024], scope[1024];
	if (json) {
		fprintf(out, "{\"context\": %u, \"thread\": ", c);
		pv_json_string(out, tname);
		fprintf(out, ", \"thread_index\": %d, \"shown\": %s, \"time\": ",
			th == PV_NONE ? -1 : (int)th, shown ? "true" : "false");
		pv_json_ms(out, time);
		if (rec == PV_NONE) {
			fputs(", \"record\": null, \"start\": null, \"end\": null, \"frames\": [",
			      out);
		} else {
			fprintf(out, ", \"record\": %u, \"start\": ", rec);
			pv_json_ms(out, start);
			fputs(", \"end\": ", out);
			pv_json_ms(out, end);
			fputs(", \"frames\": [", out);
		}
		for (uint32_t k = 0; k < n; k++) {
			pv_func_ix f = p->frames.func[fr[k]];
			fputs(k ? ",\n  {\"depth\": " : "\n  {\"depth\": ", out);
			if (dp[k] == PV_NONE)
				fputs("null", out);
			else
				fprintf(out, "%u", dp[k]);
			fputs(", \"name\": ", out);
			pv_json_string(out, pv_trace_frame_name(p, fr[k], buf, sizeof(buf)));
			fputs(", \"function\": ", out);
			pv_json_string(out, pv_str(p, p->funcs.name[f]));
			func_scope(p, shared, f, scope, sizeof(scope));
			fprintf(out, ", \"id\": %u, \"scope\": ", f);
			pv_json_string(out, scope);
			fprintf(out, ", \"kind\": \"%s\"}", frame_kind(p, fr[k]));
		}
		fputs(n ? "\n]}\n" : "]}\n", out);
	} else {
		fprintf(out, "context %u (%s) at %.3f ms: ", c, tname, (double)time / 1e6);
		if (rec == PV_NONE)
			fputs("no record in force (before its first record or after its end)\n",
			      out);
		else if (s == PV_NONE)
			fprintf(out, "record %u, %.3f to %.3f ms: not running\n", rec,
				(double)start / 1e6, (double)end / 1e6);
		else
			fprintf(out, "record %u, %.3f to %.3f ms%s\n", rec, (double)start / 1e6,
				(double)end / 1e6, shown ? "" : " (left out by the query)");
		if (n)
			fputs("depth  frame\n", out);
		for (uint32_t k = 0; k < n; k++) {
			if (dp[k] == PV_NONE)
				fputs("       ", out);
			else
				fprintf(out, "%5u  ", dp[k]);
			fprintf(out, "%s\n", pv_trace_frame_name(p, fr[k], buf, sizeof(buf)));
		}
	}
	pv_free(fr);
	pv_free(dp);
	pv_free(shared);
	return 0;
}

static void print_id(FILE *out, pv_func_ix f)
{
	if (f == PV_NONE)
		fputs("-1", out);
	else
		fprintf(out, "%u", f);
}

int pv_print_trace_window(FILE *out, const struct pv_trace_paint *pt,
			  const struct pv_trace_window *w, const struct pv_trace_print *o,
			  struct pv_error *err)
{
	const struct pv_trace *t = pv_trace_paint_trace(pt);
	const struct pv_profile *p = pv_trace_profile(t);
	size_t npx = (size_t)w->width * w->height;
	pv_func_ix *px = npx && npx <= (1u << 26) ? pv_malloc(npx * sizeof(*px)) : NULL;
	if (!px && npx && npx <= (1u << 26))
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	int rc = pv_trace_image(pt, w, px, err);
	if (rc) {
		pv_free(px);
		return rc;
	}
	uint32_t cap = p->funcs.len + 1;
	struct pv_trace_share *sh = pv_malloc((size_t)cap * sizeof(*sh));
	uint8_t *shared = pv_malloc(p->funcs.len ? p->funcs.len : 1);
	if (!sh || !shared || pv_funcs_name_shared(p, shared)) {
		pv_free(px);
		pv_free(sh);
		pv_free(shared);
		return pv_error_set(err, PV_ENOMEM, "out of memory");
	}
	uint32_t ns = pv_trace_shares(px, w->width, w->height, 0, w->width, sh, cap);
	char scope[1024];
	if (!o->json) {
		fprintf(out,
			"window %.3f to %.3f ms, contexts %u to %u, %u x %u pixels, depth %u: "
			"pixels per function\n",
			(double)w->t0 / 1e6, (double)w->t1 / 1e6, w->c0, w->c1, w->width, w->height,
			pv_trace_paint_depth(pt));
		for (uint32_t i = 0; i < ns; i++)
			fprintf(out, "%7.2f%%  %s\n", 100.0 * sh[i].pixels / (double)npx,
				sh[i].func == PV_NONE ? "(blank)"
						      : pv_str(p, p->funcs.name[sh[i].func]));
	} else {
		fputs("{\"t0\": ", out);
		pv_json_ms(out, w->t0);
		fputs(", \"t1\": ", out);
		pv_json_ms(out, w->t1);
		fprintf(
		    out,
		    ", \"c0\": %u, \"c1\": %u, \"contexts\": %u, \"width\": %u, \"height\": %u, "
		    "\"depth\": %u, \"max_depth\": %u, \"names\": ",
		    w->c0, w->c1, pv_trace_paint_contexts(pt), w->width, w->height,
		    pv_trace_paint_depth(pt), pv_trace_max_depth(t));
		/* the contexts' thread names when each has a pixel row at least (labels) */
		if (w->c1 - w->c0 > w->height) {
			fputs("null", out);
		} else {
			for (uint32_t c = w->c0; c < w->c1; c++) {
				pv_thread_ix th = pv_trace_paint_thread(pt, c);
				fputs(c > w->c0 ? ", " : "[", out);
				pv_json_string(
				    out, th < p->threads.len ? pv_str(p, p->threads.name[th]) : "");
			}
			fputc(']', out);
		}
		fputs(", \"functions\": [", out);
		uint32_t k = 0;
		for (uint32_t i = 0; i < ns; i++) {
			if (sh[i].func == PV_NONE)
				continue;
			fprintf(out, "%s{\"id\": %u, \"name\": ", k++ ? ",\n  " : "\n  ",
				sh[i].func);
			pv_json_string(out, pv_str(p, p->funcs.name[sh[i].func]));
			func_scope(p, shared, sh[i].func, scope, sizeof(scope));
			fputs(", \"scope\": ", out);
			pv_json_string(out, scope);
			fputc('}', out);
		}
		fputs("], \"shares\": [", out);
		for (uint32_t i = 0; i < ns; i++) {
			fputs(i ? ", {\"id\": " : "{\"id\": ", out);
			print_id(out, sh[i].func);
			fprintf(out, ", \"pixels\": %u, \"percent\": %.4f}", sh[i].pixels,
				100.0 * sh[i].pixels / (double)npx);
		}
		fputs("],\n\"rows\": [", out);
		for (uint32_t y = 0; y < w->height; y++) {
			const pv_func_ix *row = px + (size_t)y * w->width;
			fputs(y ? ",\n  [" : "\n  [", out);
			for (uint32_t x = 0; x < w->width;) {
				uint32_t e = x + 1;
				if (o->runs)
					while (e < w->width && row[e] == row[x])
						e++;
				if (x)
					fputc(',', out);
				print_id(out, row[x]);
				if (o->runs)
					fprintf(out, ",%u", e - x);
				x = e;
			}
			fputc(']', out);
		}
		fputs("]", out);
		if (o->summary) {
			fputs(",\n\"summary\": [", out);
			for (uint32_t x = 0; x < w->width; x++) {
				uint32_t m =
				    pv_trace_shares(px, w->width, w->height, x, x + 1, sh, cap);
				fputs(x ? ",\n  [" : "\n  [", out);
				for (uint32_t i = 0; i < m && i < cap; i++) {
					if (i)
						fputc(',', out);
					print_id(out, sh[i].func);
					fprintf(out, ",%u", sh[i].pixels);
				}
				fputc(']', out);
			}
			fputs("]", out);
		}
		fputs("}\n", out);
	}
	pv_free(px);
	pv_free(sh);
	pv_free(shared);
	return 0;
}

int pv_print_trace_boxes(FILE *out, const struct pv_trace_paint *pt, uint32_t c, int64_t t0,
			 int64_t t1, int64_t min_ns, struct pv_error *err)
{
	const struct pv_profile *p = pv_trace_profile(pv_trace_paint_trace(pt));
	struct pv_trace_box *b = NULL;
	uint32_t n = 0;
	int rc = pv_trace_boxes(pt, c, t0, t1, min_ns, &b, &n, err);
	if (rc)
		return rc;
	pv_thread_ix th = pv_trace_paint_thread(pt, c);
	fprintf(out, "{\"context\": %u, \"thread\": ", c);
	pv_json_string(out, pv_str(p, p->threads.name[th]));
	fputs(", \"t0\": ", out);
	pv_json_ms(out, t0);
	fputs(", \"t1\": ", out);
	pv_json_ms(out, t1);
	fputs(", \"boxes\": [", out);
	for (uint32_t i = 0; i < n; i++) {
		fprintf(out, "%s{\"depth\": %u, \"start\": ", i ? ",\n  " : "\n  ", b[i].depth);
		pv_json_ms(out, b[i].start);
		fputs(", \"end\": ", out);
		pv_json_ms(out, b[i].end);
		fprintf(out, ", \"id\": %u, \"name\": ", b[i].func);
		pv_json_string(out, pv_str(p, p->funcs.name[b[i].func]));
		fprintf(out, ", \"stack\": %u}", b[i].stack);
	}
	fputs(n ? "\n]}\n" : "]}\n", out);
	pv_free_boxes(b);
	return 0;
}

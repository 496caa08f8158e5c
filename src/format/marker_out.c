/*
 * marker_out.c - the marker table, one marker in full, and the per-name summary, as text or JSON.
 *
 * Text is for people: times in milliseconds from the profile's start with three decimals (exact
 * from the integer nanoseconds), columns padded by characters (UTF-8 code points), long names cut
 * with "…" at 40 characters and details at 500 as the Firefox Profiler's table cuts them. JSON
 * keeps everything: exact millisecond numbers, full names and labels, the payload as it is.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "format/internal.h"
#include "pv/format.h"

#define NAME_COLS   40
#define DETAIL_COLS 500

/* ns as exact milliseconds with 3 decimals, rounded half away from zero (any int64). */
static void ms3(char *buf, size_t n, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	uint64_t us = a / 1000 + (a % 1000 >= 500);
	snprintf(buf, n, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", us / 1000, us % 1000);
}

/* Code points of s (UTF-8 continuation bytes do not count). */
static size_t cols(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Columns of a cell's text: cols() of it with control characters escaped. */
static size_t cell_cols(const char *s)
{
	char e[FMT_NAME];
	return cols(fmt_name(e, s));
}

/* s (control characters escaped: one table row is one line) cut to max code points ("…" as the
 * last one when cut), padded to width when pad. */
static void put_cell(FILE *out, const char *raw, size_t max, size_t width, bool pad)
{
	char e[FMT_NAME], t[FMT_NAME];
	size_t rl = strlen(raw);
	if (!pad) { /* the last cell: no trailing blanks (a log message's "\n") */
		while (rl && (unsigned char)raw[rl - 1] <= ' ')
			rl--;
		if (raw[rl]) {
			snprintf(t, sizeof(t), "%.*s", (int)(rl < sizeof(t) ? rl : sizeof(t) - 1),
				 raw);
			raw = t;
		}
	}
	const char *s = fmt_name(e, raw);
	size_t n = cols(s), shown = 0, len = strlen(s);
	if (n <= max) {
		fwrite(s, 1, len, out);
		shown = n;
	} else {
		const char *p = s;
		for (; *p && shown < max - 1; shown++) {
			p++;
			while (((unsigned char)*p & 0xc0) == 0x80)
				p++;
		}
		fwrite(s, 1, (size_t)(p - s), out);
		fputs("…", out);
		shown++;
	}
	for (; pad && shown < width; shown++)
		fputc(' ', out);
}

static const char *category_name(const struct pv_markers *ms, uint32_t i)
{
	const struct pv_profile *p = ms->p;
	pv_cat_ix c = ms->category[i];
	return c != PV_NONE && c < p->categories.len ? pv_str(p, p->categories.name[c]) : "";
}

/* "GeckoMain (3333)", or the name alone when the tid is unknown. */
static void thread_label(const struct pv_markers *ms, pv_thread_ix t, char *buf, size_t n)
{
	const struct pv_profile *p = ms->p;
	const char *name = pv_str(p, p->threads.name[t]);
	if (p->threads.tid[t] != PV_ID_NONE)
		snprintf(buf, n, "%s (%" PRId64 ")", *name ? name : "thread", p->threads.tid[t]);
	else
		snprintf(buf, n, "%s", *name ? name : "thread");
}

static void duration_text(const struct pv_markers *ms, uint32_t i, char *buf, size_t n)
{
	if (ms->end_ns[i] == PV_TIME_NONE)
		buf[0] = 0;
	else if (ms->flags[i] & PV_MARKER_INCOMPLETE)
		snprintf(buf, n, "unknown");
	else
		ms3(buf, n, pv_marker_duration(ms, i));
}

static void json_ms_or_null(struct pv_json *j, const char *key, int64_t ns, bool known)
{
	pv_json_key(j, key);
	pv_json_ms_or_null(j, known ? ns : INT64_MIN);
}

/* One marker as a JSON object (the table's row; full: the tooltip's, "marker N --json"). */
static int json_marker(struct pv_json *j, const struct pv_markers *ms, uint32_t i,
		       const struct pv_marker_detail *d, bool full)
{
	const struct pv_profile *p = ms->p;
	/* an incomplete marker keeps its clamped end; only its duration is unknown */
	bool known = ms->end_ns[i] != PV_TIME_NONE && !(ms->flags[i] & PV_MARKER_INCOMPLETE);
	pv_json_object(j);
	pv_json_kuint(j, "index", i);
	pv_json_kms(j, "start", ms->start_ns[i]);
	json_ms_or_null(j, "end", ms->end_ns[i], ms->end_ns[i] != PV_TIME_NONE);
	json_ms_or_null(j, "duration", known ? pv_marker_duration(ms, i) : 0, known);
	pv_json_kstr(j, "name", ms->name[i]);
	pv_json_kstr(j, "category", category_name(ms, i));
	pv_thread_ix t = ms->thread[i];
	pv_json_kuint(j, "thread", t);
	pv_json_kstr(j, "thread_name", pv_str(p, p->threads.name[t]));
	pv_json_key(j, "tid");
	pv_json_int_or_null(j, p->threads.tid[t]);
	pv_json_kbool(j, "instant", ms->end_ns[i] == PV_TIME_NONE);
	pv_json_kbool(j, "incomplete", ms->flags[i] & PV_MARKER_INCOMPLETE);
	pv_json_kbool(j, "synthetic", ms->flags[i] & PV_MARKER_SYNTHETIC);
	pv_json_key(j, "type");
	pv_json_str_or_null(j, d ? d->type : NULL);
	pv_json_kstr(j, "label", d ? d->label[PV_LABEL_TABLE] : "");
	if (full) {
		pv_json_kstr(j, "tooltip_label", d ? d->label[PV_LABEL_TOOLTIP] : ms->name[i]);
		pv_json_kstr(j, "chart_label", d ? d->label[PV_LABEL_CHART] : "");
		pv_json_key(j, "description");
		pv_json_str_or_null(j, d ? d->description : NULL);
	}
	pv_json_key(j, "fields");
	pv_json_array(j);
	for (uint32_t f = 0; d && f < d->nr_fields; f++) {
		const struct pv_marker_field *x = &d->fields[f];
		pv_json_object(j);
		pv_json_key(j, "key");
		pv_json_str_or_null(j, x->key);
		pv_json_kstr(j, "label", x->label);
		pv_json_kstr(j, "value", x->value);
		pv_json_kbool(j, "hidden", x->hidden);
		pv_json_end(j);
	}
	pv_json_end(j);
	pv_json_key(j, "data");
	if (ms->data[i])
		pv_json_raw(j, ms->data[i], strlen(ms->data[i]));
	else
		pv_json_null(j);
	pv_json_key(j, "raw");
	pv_json_array(j);
	for (int k = 0; k < 2; k++)
		if (ms->raw[2 * i + k] != PV_NONE)
			pv_json_uint(j, ms->raw[2 * i + k]);
	pv_json_end(j);
	int rc = 0;
	if (full) {
		uint32_t nf = pv_marker_cause(ms, i, NULL, 0);
		pv_json_key(j, "cause");
		if (!nf) {
			pv_json_null(j);
		} else {
			const char **fr = pv_malloc(nf * sizeof(*fr));
			pv_json_object(j);
			json_ms_or_null(j, "time", ms->cause_time_ns[i],
					ms->cause_time_ns[i] != PV_TIME_NONE);
			pv_json_key(j, "stack");
			pv_json_array(j);
			if (fr) {
				pv_marker_cause(ms, i, fr, nf);
				for (uint32_t k = 0; k < nf; k++)
					pv_json_str(j, fr[k]);
			} else {
				rc = PV_ENOMEM;
			}
			pv_json_end(j);
			/* the stack as a center: each function by the scope that names it alone */
			struct sbuf scope = SBUF_INIT;
			int sc = pv_marker_cause_scope(ms, i, &scope);
			pv_json_key(j, "scope");
			if (sc > 0)
				pv_json_strn(j, scope.buf, scope.len);
			else
				pv_json_null(j);
			if (sc < 0)
				rc = sc;
			sbuf_release(&scope);
			pv_json_end(j);
			pv_free(fr);
		}
	}
	pv_json_end(j);
	return rc;
}

int pv_json_markers(struct pv_json *j, const struct pv_markers *ms, const uint32_t *idx, uint32_t n)
{
	struct pv_marker_detail d = {0};
	int rc = 0;
	pv_json_key(j, "rows");
	pv_json_open(j, '[', PV_JSON_LINES, 2);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = idx[k];
		if (pv_marker_detail(ms, i, &d))
			rc = PV_ENOMEM;
		json_marker(j, ms, i, rc ? NULL : &d, false);
	}
	pv_json_end(j);
	pv_marker_detail_release(&d);
	return rc ? rc : pv_json_error(j);
}

int pv_json_marker(struct pv_json *j, const struct pv_markers *ms, uint32_t i)
{
	struct pv_marker_detail d = {0};
	int rc = pv_marker_detail(ms, i, &d);
	if (!rc)
		rc = json_marker(j, ms, i, &d, true);
	pv_marker_detail_release(&d);
	return rc ? rc : pv_json_error(j);
}

void pv_json_marker_summary(struct pv_json *j, const struct pv_marker_summary_row *rows, uint32_t n)
{
	static const char *const keys[4] = {"total", "min", "median", "max"};
	pv_json_key(j, "rows");
	pv_json_open(j, '[', PV_JSON_LINES, 2);
	for (uint32_t k = 0; k < n; k++) {
		const struct pv_marker_summary_row *r = &rows[k];
		pv_json_object(j);
		pv_json_kstr(j, "name", r->name);
		pv_json_kuint(j, "count", r->count);
		pv_json_kuint(j, "instant", r->instant);
		pv_json_kuint(j, "incomplete", r->incomplete);
		pv_json_kuint(j, "timed", r->timed);
		const int64_t v[4] = {r->total_ns, r->min_ns, r->median_ns, r->max_ns};
		for (int c = 0; c < 4; c++)
			json_ms_or_null(j, keys[c], v[c], r->timed);
		pv_json_end(j);
	}
	pv_json_end(j);
}

/* A printed JSON answer: an object filled by fill, then a newline. */
static int print_json(FILE *out, int (*fill)(struct pv_json *j, const void *arg), const void *arg,
		      bool object)
{
	struct pv_json *j = pv_json_new(out);
	if (!j)
		return PV_ENOMEM;
	if (object)
		pv_json_object(j);
	int rc = fill(j, arg);
	if (object)
		pv_json_end(j);
	pv_json_eol(j);
	int frc = pv_json_finish(j);
	pv_json_free(j);
	return rc ? rc : frc;
}

struct markers_arg {
	const struct pv_markers *ms;
	const uint32_t *idx;
	uint32_t n;
	const struct pv_marker_summary_row *rows;
};

static int fill_markers(struct pv_json *j, const void *arg)
{
	const struct markers_arg *a = arg;
	return pv_json_markers(j, a->ms, a->idx, a->n);
}

static int fill_marker(struct pv_json *j, const void *arg)
{
	const struct markers_arg *a = arg;
	return pv_json_marker(j, a->ms, a->n);
}

static int fill_summary(struct pv_json *j, const void *arg)
{
	const struct markers_arg *a = arg;
	pv_json_marker_summary(j, a->rows, a->n);
	return 0;
}

int pv_print_markers(FILE *out, const struct pv_markers *ms, const uint32_t *idx, uint32_t n,
		     bool json)
{
	if (json) {
		struct markers_arg a = {ms, idx, n, NULL};
		return print_json(out, fill_markers, &a, true);
	}
	struct pv_marker_detail d = {0};
	int rc = 0;
	/* column widths from the rows shown */
	char b[64], t[300];
	size_t wname = 4, wcat = 8, wthread = 6, wdur = 13;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = idx[k];
		size_t x = cell_cols(ms->name[i]);
		wname = x > wname ? (x > NAME_COLS ? NAME_COLS : x) : wname;
		x = cell_cols(category_name(ms, i));
		wcat = x > wcat ? (x > NAME_COLS ? NAME_COLS : x) : wcat;
		thread_label(ms, ms->thread[i], t, sizeof(t));
		x = cell_cols(t);
		wthread = x > wthread ? (x > NAME_COLS ? NAME_COLS : x) : wthread;
	}
	fprintf(out, "%12s  %*s  ", "start (ms)", (int)wdur, "duration (ms)");
	put_cell(out, "name", wname, wname, true);
	fputs("  ", out);
	put_cell(out, "category", wcat, wcat, true);
	fputs("  ", out);
	put_cell(out, "thread", wthread, wthread, true);
	fputs("  details\n", out);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = idx[k];
		if (pv_marker_detail(ms, i, &d)) {
			rc = PV_ENOMEM;
			break;
		}
		ms3(b, sizeof(b), ms->start_ns[i]);
		fprintf(out, "%12s  ", b);
		duration_text(ms, i, b, sizeof(b));
		fprintf(out, "%*s  ", (int)wdur, b);
		put_cell(out, ms->name[i], NAME_COLS, wname, true);
		fputs("  ", out);
		put_cell(out, category_name(ms, i), NAME_COLS, wcat, true);
		fputs("  ", out);
		thread_label(ms, ms->thread[i], t, sizeof(t));
		const char *details = d.label[PV_LABEL_TABLE];
		put_cell(out, t, NAME_COLS, wthread, *details != 0);
		if (*details) {
			fputs("  ", out);
			put_cell(out, details, DETAIL_COLS, 0, false);
		}
		fputc('\n', out);
	}
	pv_marker_detail_release(&d);
	return rc;
}

int pv_print_marker(FILE *out, const struct pv_markers *ms, uint32_t i, bool json)
{
	const struct pv_profile *p = ms->p;
	if (json) {
		struct markers_arg a = {ms, NULL, i, NULL};
		return print_json(out, fill_marker, &a, false);
	}
	struct pv_marker_detail d = {0};
	struct sbuf x = {0};
	char b[64];
	if (pv_marker_detail(ms, i, &d)) {
		pv_marker_detail_release(&d);
		return PV_ENOMEM;
	}
	/* the tooltip's header: the duration, then the tooltip label */
	sbuf_reset(&x);
	pv_marker_duration_text(ms, i, &x);
	char e1[FMT_NAME], e2[FMT_NAME];
	fprintf(out, "%s%s%s\n", sbuf_str(&x), x.len ? "  " : "",
		fmt_name(e1, d.label[PV_LABEL_TOOLTIP]));
	if (d.description)
		fprintf(out, "%s\n", fmt_name(e1, d.description));
	if (ms->flags[i] & PV_MARKER_SYNTHETIC)
		fprintf(out, "\nmarker:     %u (synthetic: from the samples' event delays", i);
	else
		fprintf(out, "\nmarker:     %u (raw row %u", i, ms->raw[2 * i]);
	if (ms->raw[2 * i + 1] != PV_NONE)
		fprintf(out, " and %u", ms->raw[2 * i + 1]);
	fprintf(out, ")\nname:       %s\n", fmt_name(e1, ms->name[i]));
	fprintf(out, "category:   %s\n", fmt_name(e1, category_name(ms, i)));
	if (d.type)
		fprintf(out, "type:       %s\n", fmt_name(e1, d.type));
	ms3(b, sizeof(b), ms->start_ns[i]);
	fprintf(out, "start:      %s ms\n", b);
	if (ms->end_ns[i] != PV_TIME_NONE) {
		ms3(b, sizeof(b), ms->end_ns[i]);
		fprintf(out, "end:        %s ms%s\n", b,
			ms->flags[i] & PV_MARKER_INCOMPLETE ? " (incomplete: the thread's end)"
							    : "");
	}
	pv_thread_ix t = ms->thread[i];
	fprintf(out, "thread:     %s", fmt_name(e1, pv_str(p, p->threads.name[t])));
	if (p->threads.pid[t] != PV_ID_NONE)
		fprintf(out, " pid %" PRId64, p->threads.pid[t]);
	if (p->threads.tid[t] != PV_ID_NONE)
		fprintf(out, " tid %" PRId64, p->threads.tid[t]);
	fputc('\n', out);
	bool head = false;
	for (uint32_t f = 0; f < d.nr_fields; f++) {
		if (d.fields[f].hidden)
			continue;
		if (!head)
			fputs("\nfields:\n", out);
		head = true;
		fprintf(out, "  %s: %s\n", fmt_name(e1, d.fields[f].label),
			fmt_name(e2, d.fields[f].value));
	}
	uint32_t nf = pv_marker_cause(ms, i, NULL, 0);
	if (nf) {
		const char **fr = malloc(nf * sizeof(*fr));
		int64_t ct = ms->cause_time_ns[i];
		fputs("\nstack", out);
		if (ct != PV_TIME_NONE && ct < ms->start_ns[i]) {
			sbuf_reset(&x);
			pv_format_timestamp((double)pv_time_diff(ms->start_ns[i], ct) / 1e6, &x);
			fprintf(out, " (triggered %s before the marker)", sbuf_str(&x));
		}
		fputs(":\n", out);
		if (fr) {
			pv_marker_cause(ms, i, fr, nf);
			for (uint32_t k = 0; k < nf; k++)
				fprintf(out, "  %s\n", fmt_name(e1, fr[k]));
		}
		free(fr);
	}
	int rc = x.oom ? PV_ENOMEM : 0;
	sbuf_release(&x);
	pv_marker_detail_release(&d);
	return rc;
}

int pv_print_marker_summary(FILE *out, const struct pv_marker_summary_row *rows, uint32_t n,
			    bool json)
{
	char b[5][64];
	if (json) {
		struct markers_arg a = {NULL, NULL, n, rows};
		return print_json(out, fill_summary, &a, true);
	}
	size_t wname = 4;
	for (uint32_t k = 0; k < n; k++) {
		size_t x = cell_cols(rows[k].name);
		wname = x > wname ? (x > NAME_COLS ? NAME_COLS : x) : wname;
	}
	put_cell(out, "name", wname, wname, true);
	fprintf(out, "  %8s  %8s  %10s  %12s  %12s  %12s  %12s\n", "count", "instant", "incomplete",
		"total (ms)", "min (ms)", "median (ms)", "max (ms)");
	for (uint32_t k = 0; k < n; k++) {
		const struct pv_marker_summary_row *r = &rows[k];
		put_cell(out, r->name, NAME_COLS, wname, true);
		const int64_t v[4] = {r->total_ns, r->min_ns, r->median_ns, r->max_ns};
		for (int c = 0; c < 4; c++) {
			if (r->timed)
				ms3(b[c], sizeof(b[c]), v[c]);
			else
				snprintf(b[c], sizeof(b[c]), "-");
		}
		fprintf(out,
			"  %8" PRIu64 "  %8" PRIu64 "  %10" PRIu64 "  %12s  %12s  %12s  %12s\n",
			r->count, r->instant, r->incomplete, b[0], b[1], b[2], b[3]);
	}
	return ferror(out) ? PV_EIO : 0;
}

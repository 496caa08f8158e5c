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

#include "base/sbuf.h"
#include "pv/format.h"

#define NAME_COLS 40
#define DETAIL_COLS 500

/* ns as exact milliseconds with 3 decimals, rounded half away from zero (any int64). */
static void ms3(char *buf, size_t n, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	uint64_t us = a / 1000 + (a % 1000 >= 500);
	snprintf(buf, n, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", us / 1000, us % 1000);
}

void pv_json_ms(FILE *out, int64_t ns)
{
	char t[SBUF_MS_MAX];
	fwrite(t, 1, sbuf_ms_text(t, ns), out);
}

/* Code points of s (UTF-8 continuation bytes do not count). */
static size_t cols(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* s[0..n) with control characters (a name's "\n") as spaces: one table row is one line. */
static void put_flat(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fputc((unsigned char)s[i] < 0x20 ? ' ' : s[i], out);
}

/* s cut to max code points ("…" as the last one when cut), padded to width when pad. */
static void put_cell(FILE *out, const char *s, size_t max, size_t width, bool pad)
{
	size_t n = cols(s), shown = 0, len = strlen(s);
	if (!pad) /* the last cell: no trailing blanks (a name's "\n") */
		while (len && (unsigned char)s[len - 1] <= ' ')
			len--;
	if (n <= max) {
		put_flat(out, s, len);
		shown = n;
	} else {
		const char *p = s;
		for (; *p && shown < max - 1; shown++) {
			p++;
			while (((unsigned char)*p & 0xc0) == 0x80)
				p++;
		}
		put_flat(out, s, (size_t)(p - s));
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

static void json_str_or_null(FILE *out, const char *s)
{
	if (s)
		pv_json_string(out, s);
	else
		fputs("null", out);
}

/* One marker as a JSON object (the table's row, and "marker N --json"). */
static void json_marker(FILE *out, const struct pv_markers *ms, uint32_t i,
			const struct pv_marker_detail *d, bool full)
{
	const struct pv_profile *p = ms->p;
	/* an incomplete marker keeps its clamped end; only its duration is unknown */
	bool known = ms->end_ns[i] != PV_TIME_NONE && !(ms->flags[i] & PV_MARKER_INCOMPLETE);
	fprintf(out, "{\"index\": %u, \"start\": ", i);
	pv_json_ms(out, ms->start_ns[i]);
	fputs(", \"end\": ", out);
	if (ms->end_ns[i] != PV_TIME_NONE)
		pv_json_ms(out, ms->end_ns[i]);
	else
		fputs("null", out);
	fputs(", \"duration\": ", out);
	if (known)
		pv_json_ms(out, pv_marker_duration(ms, i));
	else
		fputs("null", out);
	fputs(", \"name\": ", out);
	pv_json_string(out, ms->name[i]);
	fputs(", \"category\": ", out);
	pv_json_string(out, category_name(ms, i));
	pv_thread_ix t = ms->thread[i];
	fprintf(out, ", \"thread\": %u, \"thread_name\": ", t);
	pv_json_string(out, pv_str(p, p->threads.name[t]));
	fputs(", \"tid\": ", out);
	if (p->threads.tid[t] != PV_ID_NONE)
		fprintf(out, "%" PRId64, p->threads.tid[t]);
	else
		fputs("null", out);
	fprintf(out, ", \"instant\": %s, \"incomplete\": %s, \"synthetic\": %s, \"type\": ",
		ms->end_ns[i] == PV_TIME_NONE ? "true" : "false",
		ms->flags[i] & PV_MARKER_INCOMPLETE ? "true" : "false",
		ms->flags[i] & PV_MARKER_SYNTHETIC ? "true" : "false");
	json_str_or_null(out, d ? d->type : NULL);
	fputs(", \"label\": ", out);
	pv_json_string(out, d ? d->label[PV_LABEL_TABLE] : "");
	if (full) {
		fputs(", \"tooltip_label\": ", out);
		pv_json_string(out, d ? d->label[PV_LABEL_TOOLTIP] : ms->name[i]);
		fputs(", \"chart_label\": ", out);
		pv_json_string(out, d ? d->label[PV_LABEL_CHART] : "");
		fputs(", \"description\": ", out);
		json_str_or_null(out, d ? d->description : NULL);
	}
	fputs(", \"fields\": [", out);
	for (uint32_t f = 0; d && f < d->nr_fields; f++) {
		const struct pv_marker_field *x = &d->fields[f];
		fputs(f ? ", {\"key\": " : "{\"key\": ", out);
		json_str_or_null(out, x->key);
		fputs(", \"label\": ", out);
		pv_json_string(out, x->label);
		fputs(", \"value\": ", out);
		pv_json_string(out, x->value);
		fprintf(out, ", \"hidden\": %s}", x->hidden ? "true" : "false");
	}
	fputs("], \"data\": ", out);
	fputs(ms->data[i] ? ms->data[i] : "null", out);
	fputs(", \"raw\": [", out);
	for (int k = 0; k < 2; k++)
		if (ms->raw[2 * i + k] != PV_NONE)
			fprintf(out, "%s%u", k ? ", " : "", ms->raw[2 * i + k]);
	fputc(']', out);
	if (full) {
		uint32_t nf = pv_marker_cause(ms, i, NULL, 0);
		fputs(", \"cause\": ", out);
		if (!nf) {
			fputs("null", out);
		} else {
			const char **fr = malloc(nf * sizeof(*fr));
			fputs("{\"time\": ", out);
			if (ms->cause_time_ns[i] != PV_TIME_NONE)
				pv_json_ms(out, ms->cause_time_ns[i]);
			else
				fputs("null", out);
			fputs(", \"stack\": [", out);
			if (fr) {
				pv_marker_cause(ms, i, fr, nf);
				for (uint32_t k = 0; k < nf; k++) {
					if (k)
						fputs(", ", out);
					pv_json_string(out, fr[k]);
				}
			}
			fputs("]}", out);
			free(fr);
		}
	}
	fputc('}', out);
}

int pv_print_markers(FILE *out, const struct pv_markers *ms, const uint32_t *idx, uint32_t n,
		     bool json)
{
	struct pv_marker_detail d = {0};
	int rc = 0;
	if (json) {
		fputs("{\"rows\": [", out);
		for (uint32_t k = 0; k < n; k++) {
			uint32_t i = idx[k];
			if (pv_marker_detail(ms, i, &d))
				rc = PV_ENOMEM;
			fputs(k ? ",\n  " : "\n  ", out);
			json_marker(out, ms, i, rc ? NULL : &d, false);
		}
		fputs(n ? "\n]}\n" : "]}\n", out);
		pv_marker_detail_release(&d);
		return rc;
	}
	/* column widths from the rows shown */
	char b[64], t[300];
	size_t wname = 4, wcat = 8, wthread = 6, wdur = 13;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = idx[k];
		size_t x = cols(ms->name[i]);
		wname = x > wname ? (x > NAME_COLS ? NAME_COLS : x) : wname;
		x = cols(category_name(ms, i));
		wcat = x > wcat ? (x > NAME_COLS ? NAME_COLS : x) : wcat;
		thread_label(ms, ms->thread[i], t, sizeof(t));
		x = cols(t);
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
	struct pv_marker_detail d = {0};
	struct sbuf x = {0};
	char b[64];
	if (pv_marker_detail(ms, i, &d)) {
		pv_marker_detail_release(&d);
		return PV_ENOMEM;
	}
	if (json) {
		json_marker(out, ms, i, &d, true);
		fputc('\n', out);
		pv_marker_detail_release(&d);
		return 0;
	}
	/* the tooltip's header: the duration, then the tooltip label */
	sbuf_reset(&x);
	pv_marker_duration_text(ms, i, &x);
	fprintf(out, "%s%s%s\n", sbuf_str(&x), x.len ? "  " : "", d.label[PV_LABEL_TOOLTIP]);
	if (d.description)
		fprintf(out, "%s\n", d.description);
	if (ms->flags[i] & PV_MARKER_SYNTHETIC)
		fprintf(out, "\nmarker:     %u (synthetic: from the samples' event delays", i);
	else
		fprintf(out, "\nmarker:     %u (raw row %u", i, ms->raw[2 * i]);
	if (ms->raw[2 * i + 1] != PV_NONE)
		fprintf(out, " and %u", ms->raw[2 * i + 1]);
	fprintf(out, ")\nname:       %s\n", ms->name[i]);
	fprintf(out, "category:   %s\n", category_name(ms, i));
	if (d.type)
		fprintf(out, "type:       %s\n", d.type);
	ms3(b, sizeof(b), ms->start_ns[i]);
	fprintf(out, "start:      %s ms\n", b);
	if (ms->end_ns[i] != PV_TIME_NONE) {
		ms3(b, sizeof(b), ms->end_ns[i]);
		fprintf(out, "end:        %s ms%s\n", b,
			ms->flags[i] & PV_MARKER_INCOMPLETE ? " (incomplete: the thread's end)" : "");
	}
	pv_thread_ix t = ms->thread[i];
	fprintf(out, "thread:     %s", pv_str(p, p->threads.name[t]));
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
		fprintf(out, "  %s: %s\n", d.fields[f].label, d.fields[f].value);
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
				fprintf(out, "  %s\n", fr[k]);
		}
		free(fr);
	}
	int rc = x.oom ? PV_ENOMEM : 0;
	sbuf_release(&x);
	pv_marker_detail_release(&d);
	return rc;
}

void pv_print_marker_summary(FILE *out, const struct pv_marker_summary_row *rows, uint32_t n,
			     bool json)
{
	char b[5][64];
	if (json) {
		fputs("{\"rows\": [", out);
		for (uint32_t k = 0; k < n; k++) {
			const struct pv_marker_summary_row *r = &rows[k];
			fputs(k ? ",\n  {\"name\": " : "\n  {\"name\": ", out);
			pv_json_string(out, r->name);
			fprintf(out, ", \"count\": %" PRIu64 ", \"instant\": %" PRIu64
				     ", \"incomplete\": %" PRIu64 ", \"timed\": %" PRIu64,
				r->count, r->instant, r->incomplete, r->timed);
			static const char *const keys[4] = {"total", "min", "median", "max"};
			const int64_t v[4] = {r->total_ns, r->min_ns, r->median_ns, r->max_ns};
			for (int c = 0; c < 4; c++) {
				fprintf(out, ", \"%s\": ", keys[c]);
				if (r->timed)
					pv_json_ms(out, v[c]);
				else
					fputs("null", out);
			}
			fputc('}', out);
		}
		fputs(n ? "\n]}\n" : "]}\n", out);
		return;
	}
	size_t wname = 4;
	for (uint32_t k = 0; k < n; k++) {
		size_t x = cols(rows[k].name);
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
		fprintf(out, "  %8" PRIu64 "  %8" PRIu64 "  %10" PRIu64 "  %12s  %12s  %12s  %12s\n",
			r->count, r->instant, r->incomplete, b[0], b[1], b[2], b[3]);
	}
}

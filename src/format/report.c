/*
 * report.c - the import report (`profview info`, the page's profile answer), costs as text.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "format/internal.h"
#include "pv/format.h"
#include "pv/jsonw.h"

void pv_format_cost(char *buf, size_t n, int64_t v, enum pv_unit u)
{
	if (u == PV_UNIT_NS) {
		/* exact: integer ms and three decimals, rounded half away from zero */
		uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v; /* INT64_MIN too */
		uint64_t us = a / 1000 + (a % 1000 >= 500);
		snprintf(buf, n, "%s%" PRIu64 ".%03" PRIu64, v < 0 ? "-" : "", us / 1000,
			 us % 1000);
		return;
	}
	snprintf(buf, n, "%" PRId64, v);
}

const char *pv_format_cost_unit(enum pv_unit u)
{
	return u == PV_UNIT_NS ? "ms" : pv_unit_name(u);
}

/* ---- info ---- */

static void fmt_time(char *buf, size_t n, int64_t ns)
{
	if (ns == PV_TIME_NONE)
		snprintf(buf, n, "-");
	else
		pv_format_cost(buf, n, ns, PV_UNIT_NS);
}

static void id_text(char *buf, size_t n, int64_t id)
{
	if (id == PV_ID_NONE)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%" PRId64, id);
}

static int info_json(FILE *out, const struct pv_profile_info *in, const char *path)
{
	struct pv_json *j = pv_json_new(out);
	if (!j)
		return PV_ENOMEM;
	pv_json_object(j);
	pv_json_info(j, in, path, 0);
	pv_json_end(j);
	pv_json_eol(j);
	int rc = pv_json_finish(j);
	pv_json_free(j);
	return rc;
}

/* info_text's threads table: the default metric's weight of each thread. */
static void info_threads_text(FILE *out, const struct pv_profile_info *in)
{
	const struct pv_profile *p = in->p;
	char e1[FMT_NAME], e2[FMT_NAME];
	int nw = 4;
	for (uint32_t t = 0; t < p->threads.len; t++) {
		int l = (int)strlen(fmt_name(e1, pv_str(p, p->threads.name[t])));
		if (l > nw)
			nw = l;
	}
	if (nw > 40)
		nw = 40;
	pv_metric_ix dm = p->meta.default_metric;
	char wh[64] = "";
	struct pv_cost_unit cu;
	if (p->metrics.len) {
		pv_cost_unit(pv_str(p, p->metrics.name[dm]), p->metrics.unit[dm],
			     in->metric_total[dm], &cu);
		snprintf(wh, sizeof(wh), "%s%s%s%s", fmt_name(e1, pv_str(p, p->metrics.name[dm])),
			 cu.named ? "" : " (", cu.named ? "" : cu.name, cu.named ? "" : ")");
	}
	if (p->threads.len)
		fprintf(out, "  %3s  %-*s %8s %8s %9s %12s %14s %14s  %s\n", "#", nw, "name", "pid",
			"tid", "rows", wh, "first (ms)", "last (ms)", "process");
	for (uint32_t t = 0; t < p->threads.len; t++) {
		const struct pv_thread_info *ti = &in->threads[t];
		char pb[24], tb[24], lb[32], hb[32];
		id_text(pb, sizeof(pb), p->threads.pid[t]);
		id_text(tb, sizeof(tb), p->threads.tid[t]);
		fmt_time(lb, sizeof(lb), ti->first_ns);
		fmt_time(hb, sizeof(hb), ti->last_ns);
		char wb[32] = "";
		if (p->metrics.len)
			pv_cost_text(&cu, ti->weight, PV_NUM_EXACT, wb, sizeof(wb));
		const char *pn = pv_str(p, p->threads.process_name[t]);
		fprintf(out, "  %3u  %-*s %8s %8s %9u %12s %14s %14s%s%s\n", t, nw,
			fmt_name(e1, pv_str(p, p->threads.name[t])), pb, tb, ti->samples, wb, lb,
			hb, *pn ? "  " : "", fmt_name(e2, pn));
	}
}

/* info_text's metrics, with their totals, and the database's derived metrics. */
static int info_metrics_text(FILE *out, const struct pv_profile_info *in)
{
	const struct pv_profile *p = in->p;
	char e1[FMT_NAME], e2[FMT_NAME], e3[FMT_NAME];
	struct pv_cost_unit cu;
	fprintf(out, "metrics:    %u\n", p->metrics.len);
	for (uint32_t m = 0; m < p->metrics.len; m++) {
		char vb[32];
		pv_cost_unit(pv_str(p, p->metrics.name[m]), p->metrics.unit[m], in->metric_total[m],
			     &cu);
		pv_cost_text(&cu, in->metric_total[m], PV_NUM_EXACT, vb, sizeof(vb));
		const char *desc = pv_str(p, p->metrics.description[m]);
		bool say = *desc && strcmp(desc, pv_str(p, p->metrics.name[m])) != 0;
		fprintf(out, "  %s%s%s%s: total %s%s%s%s\n",
			fmt_name(e1, pv_str(p, p->metrics.name[m])), cu.named ? "" : " (",
			cu.named ? "" : cu.name, cu.named ? "" : ")", vb,
			m == p->meta.default_metric ? " [default]" : "", say ? "  - " : "",
			say ? fmt_name(e2, desc) : "");
	}
	if (p->formulas.len) /* the database's own derived metrics (--metric NAME shows one) */
		fprintf(out, "derived:    %u\n", p->formulas.len);
	for (uint32_t i = 0; i < p->formulas.len; i++) {
		const char *desc =
		    p->formulas.description[i] ? pv_str(p, p->formulas.description[i]) : "";
		size_t n = pv_formula_text(p, i, NULL, 0) + 1;
		char *text = pv_malloc(n);
		if (!text)
			return PV_ENOMEM;
		pv_formula_text(p, i, text, n);
		fprintf(out, "  %s = %s%s%s\n", fmt_name(e1, pv_str(p, p->formulas.name[i])),
			fmt_name(e2, text), *desc ? "  - " : "", fmt_name(e3, desc));
		pv_free(text);
	}
	return 0;
}

static int info_text(FILE *out, const struct pv_profile_info *in, const char *path)
{
	const struct pv_profile *p = in->p;
	uint64_t nostack = in->samples_without_stack;
	const uint64_t *phases = in->marker_phases;
	char e1[FMT_NAME], e2[FMT_NAME];
	fprintf(out, "file:       %s\n", fmt_name(e1, path));
	fprintf(out, "format:     %s", pv_str(p, p->meta.format));
	if (p->meta.format_version)
		fprintf(out, " version %s", fmt_name(e1, pv_str(p, p->meta.format_version)));
	fputc('\n', out);
	if (p->meta.product)
		fprintf(out, "product:    %s\n", fmt_name(e1, pv_str(p, p->meta.product)));
	if (p->meta.interval_ns) {
		char ib[32];
		pv_format_cost(ib, sizeof(ib), p->meta.interval_ns, PV_UNIT_NS);
		fprintf(out, "interval:   %s ms\n", ib);
	}
	fprintf(out, "samples:    %u rows", p->samples.len);
	if (nostack)
		fprintf(out, " (%" PRIu64 " without a stack)", nostack);
	fputc('\n', out);
	fprintf(out, "threads:    %u\n", p->threads.len);
	info_threads_text(out, in);
	if (info_metrics_text(out, in))
		return PV_ENOMEM;
	fprintf(out,
		"tables:     %u functions, %u frames, %u stacks, %u modules, %u sources, %u "
		"categories\n",
		p->funcs.len, p->frames.len, p->stacks.len, p->modules.len, p->sources.len,
		p->categories.len);
	if (in->nr_labels) {
		fputs("labels:    ", out);
		for (uint32_t k = 0; k < in->nr_labels; k++) {
			const struct pv_label_info *l = &in->labels[k];
			fprintf(out, "%s %s (%" PRIu64 " value%s%s%s)", k ? "," : "",
				fmt_name(e1, pv_str(p, l->key)), l->values,
				l->values == 1 ? "" : "s", l->unit ? ", " : "",
				l->unit ? fmt_name(e2, pv_str(p, l->unit)) : "");
		}
		fputs("  [--tag KEY=VALUE]\n", out);
	}
	fprintf(out,
		"markers:    %u raw (instant %" PRIu64 ", interval %" PRIu64 ", start %" PRIu64
		", end %" PRIu64 ")\n",
		p->markers.len, phases[0], phases[1], phases[2], phases[3]);
	if (p->trace.len)
		fprintf(out, "trace:      %u records, to %.3f ms  [profview trace]\n", p->trace.len,
			(double)p->trace.end_ns / 1e6);
	if (p->diags.len == 0) {
		fputs("lossy:      nothing\n", out);
	} else {
		fprintf(out, "lossy:      %u kind%s of data not kept\n", p->diags.len,
			p->diags.len == 1 ? "" : "s");
		for (uint32_t i = 0; i < p->diags.len; i++)
			fprintf(out, "  %8" PRIu64 "  %s\n", p->diags.count[i],
				fmt_name(e1, pv_str(p, p->diags.msg[i])));
	}
	return ferror(out) ? PV_EIO : 0;
}

/* A string of the profile, or null for string 0 (none). */
static void json_pstr(struct pv_json *j, const struct pv_profile *p, pv_str_ix s)
{
	if (s == 0)
		pv_json_null(j);
	else
		pv_json_str(j, pv_str(p, s));
}

/* pv_json_info's threads: one object each (the page adds the index and the activity). */
static void info_threads_json(struct pv_json *j, const struct pv_profile_info *in, bool page)
{
	const struct pv_profile *p = in->p;
	pv_json_key(j, "threads");
	pv_json_open(j, '[', PV_JSON_LINES, 2);
	for (pv_thread_ix t = 0; t < p->threads.len; t++) {
		const struct pv_thread_info *ti = &in->threads[t];
		pv_json_object(j);
		if (page)
			pv_json_kuint(j, "index", t);
		pv_json_kstr(j, "name", pv_str(p, p->threads.name[t]));
		pv_json_key(j, "process");
		json_pstr(j, p, p->threads.process_name[t]);
		pv_json_key(j, "pid");
		pv_json_int_or_null(j, p->threads.pid[t]);
		pv_json_key(j, "tid");
		pv_json_int_or_null(j, p->threads.tid[t]);
		pv_json_kuint(j, "samples", ti->samples);
		pv_json_key(j, "first_sample_ns");
		pv_json_int_or_null(j, ti->first_ns);
		pv_json_key(j, "last_sample_ns");
		pv_json_int_or_null(j, ti->last_ns);
		if (page) {
			pv_json_kint(j, "active", ti->active);
			pv_json_kbool(j, "idle", ti->idle);
		}
		pv_json_end(j);
	}
	pv_json_end(j);
}

/* pv_json_info's keys for the page only: which thread to open, what its By offers. */
static void info_page_json(struct pv_json *j, const struct pv_profile_info *in)
{
	pv_json_key(j, "busiest_thread");
	pv_json_int_or_null(j, in->busiest == PV_NONE ? INT64_MIN : (int64_t)in->busiest);
	pv_json_kbool(j, "one_program", in->one_program);
	pv_json_key(j, "granularities"); /* what the page's By offers */
	pv_json_array(j);
	for (int g = 0; g <= PV_BY_LOOP; g++)
		if (in->by[g])
			pv_json_str(j, pv_granularity_name((enum pv_granularity)g));
	pv_json_end(j);
	pv_json_kbool(j, "inlines", in->inlines);
	pv_json_key(j, "open_thread");
	pv_json_int_or_null(j, in->open_thread == PV_NONE ? INT64_MIN : (int64_t)in->open_thread);
}

/* pv_json_info's metrics with their totals (the page adds how it shows their costs). */
static void info_metrics_json(struct pv_json *j, const struct pv_profile_info *in, bool page)
{
	const struct pv_profile *p = in->p;
	pv_json_key(j, "metrics");
	pv_json_open(j, '[', PV_JSON_LINES, 2);
	for (pv_metric_ix m = 0; m < p->metrics.len; m++) {
		pv_json_object(j);
		pv_json_kstr(j, "name", pv_str(p, p->metrics.name[m]));
		pv_json_kstr(j, "unit", pv_unit_name(p->metrics.unit[m]));
		if (page) { /* how the page shows its costs (pv_cost_unit) */
			struct pv_cost_unit cu;
			pv_cost_unit(pv_str(p, p->metrics.name[m]), p->metrics.unit[m],
				     in->metric_total[m], &cu);
			pv_json_key(j, "shown");
			pv_json_cost_unit(j, &cu);
		}
		if (p->metrics.description[m]) /* written when the file says it */
			pv_json_kstr(j, "description", pv_str(p, p->metrics.description[m]));
		pv_json_kint(j, "total", in->metric_total[m]);
		pv_json_kbool(j, "default", m == p->meta.default_metric);
		pv_json_end(j);
	}
	pv_json_end(j);
}

/* pv_json_info's derived metrics: written when the file defines some. */
static void info_derived_json(struct pv_json *j, const struct pv_profile *p)
{
	if (!p->formulas.len)
		return;
	pv_json_key(j, "derived");
	pv_json_open(j, '[', PV_JSON_LINES, 2);
	for (uint32_t i = 0; i < p->formulas.len; i++) {
		pv_json_object(j);
		pv_json_kstr(j, "name", pv_str(p, p->formulas.name[i]));
		pv_json_key(j, "formula");
		pv_json_str_or_null(j, p->formulas.formula[i] ? pv_str(p, p->formulas.formula[i])
							      : NULL);
		if (p->formulas.self[i])
			pv_json_kstr(j, "self", pv_str(p, p->formulas.self[i]));
		if (p->formulas.description[i])
			pv_json_kstr(j, "description", pv_str(p, p->formulas.description[i]));
		pv_json_end(j);
	}
	pv_json_end(j);
}

/* pv_json_info's table sizes, marker phases and trace records. */
static void info_counts_json(struct pv_json *j, const struct pv_profile_info *in, bool page)
{
	const struct pv_profile *p = in->p;
	pv_json_kuint(j, "samples", p->samples.len);
	pv_json_kuint(j, "samples_without_stack", in->samples_without_stack);
	pv_json_kuint(j, "functions", p->funcs.len);
	pv_json_kuint(j, "frames", p->frames.len);
	pv_json_kuint(j, "stacks", p->stacks.len);
	pv_json_kuint(j, "modules", p->modules.len);
	/* the page lists the sources under "sources": their count is "nr_sources" there */
	pv_json_kuint(j, page ? "nr_sources" : "sources", p->sources.len);
	pv_json_key(j, "categories");
	if (page) {
		pv_json_categories(j, p, false);
	} else {
		pv_json_uint(j, p->categories.len);
	}
	pv_json_key(j, "markers");
	pv_json_object(j);
	pv_json_kuint(j, "total", p->markers.len);
	static const char *const phases[4] = {"instant", "interval", "start", "end"};
	for (int k = 0; k < 4; k++)
		pv_json_kuint(j, phases[k], in->marker_phases[k]);
	pv_json_end(j);
	if (p->trace.len) { /* written when the file has trace records */
		pv_json_key(j, "trace");
		pv_json_object(j);
		pv_json_kuint(j, "records", p->trace.len);
		pv_json_kint(j, "end_ns", p->trace.end_ns);
		pv_json_end(j);
	}
}

/* pv_json_info's lossy steps, and the labels of profiles that have some (pprof). */
static void info_lossy_labels_json(struct pv_json *j, const struct pv_profile_info *in)
{
	const struct pv_profile *p = in->p;
	pv_json_key(j, "lossy");
	pv_json_open(j, '[', PV_JSON_LINES, 2);
	for (uint32_t i = 0; i < p->diags.len; i++) {
		pv_json_object(j);
		pv_json_kstr(j, "what", pv_str(p, p->diags.msg[i]));
		pv_json_kuint(j, "count", p->diags.count[i]);
		pv_json_end(j);
	}
	pv_json_end(j);
	if (in->nr_labels) { /* only profiles with labels (pprof) have the key */
		pv_json_key(j, "labels");
		pv_json_array(j);
		for (uint32_t k = 0; k < in->nr_labels; k++) {
			pv_json_object(j);
			pv_json_kstr(j, "key", pv_str(p, in->labels[k].key));
			pv_json_kuint(j, "values", in->labels[k].values);
			pv_json_key(j, "unit");
			json_pstr(j, p, in->labels[k].unit);
			pv_json_end(j);
		}
		pv_json_end(j);
	}
}

void pv_json_info(struct pv_json *j, const struct pv_profile_info *in, const char *path,
		  unsigned flags)
{
	const struct pv_profile *p = in->p;
	bool page = flags & PV_INFO_PAGE;
	pv_json_kstr(j, "file", path);
	pv_json_kstr(j, "format", pv_str(p, p->meta.format));
	pv_json_key(j, "version");
	json_pstr(j, p, p->meta.format_version);
	pv_json_key(j, "product");
	json_pstr(j, p, p->meta.product);
	pv_json_kint(j, "interval_ns", p->meta.interval_ns);
	info_threads_json(j, in, page);
	if (page)
		info_page_json(j, in);
	info_metrics_json(j, in, page);
	info_derived_json(j, p);
	info_counts_json(j, in, page);
	info_lossy_labels_json(j, in);
}

void pv_json_categories(struct pv_json *j, const struct pv_profile *p, bool other)
{
	pv_json_array(j);
	for (pv_cat_ix c = 0; c < p->categories.len; c++) {
		pv_json_object(j);
		pv_json_kstr(j, "name", pv_str(p, p->categories.name[c]));
		pv_json_kstr(j, "color", pv_str(p, p->categories.color[c]));
		pv_json_end(j);
	}
	if (other) {
		pv_json_object(j);
		pv_json_kstr(j, "name", "Other");
		pv_json_kstr(j, "color", "grey");
		pv_json_end(j);
	}
	pv_json_end(j);
}

int pv_print_info(FILE *out, const struct pv_profile *p, const char *path, bool json)
{
	struct pv_profile_info *in;
	if (pv_profile_info(p, &in))
		return PV_ENOMEM;
	int rc = json ? info_json(out, in, path) : info_text(out, in, path);
	pv_profile_info_free(in);
	return rc;
}

/*
 * report.c - text and JSON output of the call tree, the function list and the import report.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "pv/format.h"

void pv_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char e[8];
		if (sbuf_json_escape(*p, e))
			fputs(e, out);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

void pv_format_cost(char *buf, size_t n, int64_t v, enum pv_unit u)
{
	if (u == PV_UNIT_NS) {
		/* exact: integer ms and three decimals, rounded half away from zero */
		int64_t a = v < 0 ? -v : v;
		int64_t us = (a + 500) / 1000;
		snprintf(buf, n, "%s%" PRId64 ".%03" PRId64, v < 0 ? "-" : "", us / 1000, us % 1000);
		return;
	}
	snprintf(buf, n, "%" PRId64, v);
}

static const char *unit_label(enum pv_unit u)
{
	return u == PV_UNIT_NS ? "ms" : pv_unit_name(u);
}

static void json_null_or_str(FILE *out, const struct pv_profile *p, pv_str_ix s)
{
	if (s == 0)
		fputs("null", out);
	else
		pv_json_string(out, pv_str(p, s));
}

/* ---- info ---- */

static void fmt_time(char *buf, size_t n, int64_t ns)
{
	if (ns == PV_TIME_NONE)
		snprintf(buf, n, "-");
	else
		pv_format_cost(buf, n, ns, PV_UNIT_NS);
}

static void thread_span(const struct pv_profile *p, pv_thread_ix t, int64_t *lo, int64_t *hi)
{
	*lo = *hi = PV_TIME_NONE;
	for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t]; s++) {
		int64_t x = p->samples.time_ns[s];
		if (x == PV_TIME_NONE)
			continue;
		if (*lo == PV_TIME_NONE || x < *lo)
			*lo = x;
		if (*hi == PV_TIME_NONE || x > *hi)
			*hi = x;
	}
}

static int64_t metric_total(const struct pv_profile *p, pv_metric_ix m)
{
	int64_t sum = 0;
	for (uint32_t s = 0; s < p->samples.len; s++)
		sum += pv_sample_weight(p, m, s);
	return sum;
}

static void id_text(char *buf, size_t n, int64_t id)
{
	if (id == PV_ID_NONE)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%" PRId64, id);
}

/* The label keys of a profile (pprof) with how many distinct values each has, in first-seen
 * order; returns how many (at most cap; keys are few in practice). */
static uint32_t label_keys(const struct pv_profile *p, pv_str_ix *key, uint64_t *values,
			   pv_str_ix *unit, uint32_t cap)
{
	uint32_t n = 0;
	for (uint32_t r = 0; r < p->labels.len; r++) {
		uint32_t k = 0;
		while (k < n && key[k] != p->labels.key[r])
			k++;
		if (k == n) {
			if (n == cap)
				continue;
			key[n] = p->labels.key[r];
			values[n] = 0;
			unit[n] = p->labels.unit[r];
			n++;
		}
		values[k]++;
	}
	return n;
}

void pv_print_info(FILE *out, const struct pv_profile *p, const char *path, bool json)
{
	uint64_t phases[4] = {0};
	for (uint32_t i = 0; i < p->markers.len; i++)
		phases[p->markers.phase[i] & 3]++;
	uint64_t nostack = 0;
	for (uint32_t s = 0; s < p->samples.len; s++)
		nostack += p->samples.stack[s] == PV_NONE;
	if (json) {
		fputs("{\"file\": ", out);
		pv_json_string(out, path);
		fputs(", \"format\": ", out);
		pv_json_string(out, pv_str(p, p->meta.format));
		fputs(", \"version\": ", out);
		json_null_or_str(out, p, p->meta.format_version);
		fputs(", \"product\": ", out);
		json_null_or_str(out, p, p->meta.product);
		fprintf(out, ", \"interval_ns\": %" PRId64 ", \"threads\": [", p->meta.interval_ns);
		for (uint32_t t = 0; t < p->threads.len; t++) {
			int64_t lo, hi;
			thread_span(p, t, &lo, &hi);
			fprintf(out, "%s\n  {\"name\": ", t ? "," : "");
			pv_json_string(out, pv_str(p, p->threads.name[t]));
			fputs(", \"process\": ", out);
			json_null_or_str(out, p, p->threads.process_name[t]);
			fputs(", \"pid\": ", out);
			if (p->threads.pid[t] == PV_ID_NONE)
				fputs("null", out);
			else
				fprintf(out, "%" PRId64, p->threads.pid[t]);
			fputs(", \"tid\": ", out);
			if (p->threads.tid[t] == PV_ID_NONE)
				fputs("null", out);
			else
				fprintf(out, "%" PRId64, p->threads.tid[t]);
			fprintf(out, ", \"samples\": %u, \"first_sample_ns\": ",
				p->threads.sample_end[t] - p->threads.sample_begin[t]);
			if (lo == PV_TIME_NONE)
				fputs("null, \"last_sample_ns\": null}", out);
			else
				fprintf(out, "%" PRId64 ", \"last_sample_ns\": %" PRId64 "}", lo, hi);
		}
		fputs("\n], \"metrics\": [", out);
		for (uint32_t m = 0; m < p->metrics.len; m++) {
			fprintf(out, "%s\n  {\"name\": ", m ? "," : "");
			pv_json_string(out, pv_str(p, p->metrics.name[m]));
			fputs(", \"unit\": ", out);
			pv_json_string(out, pv_unit_name(p->metrics.unit[m]));
			if (p->metrics.description[m]) { /* written when the file says it */
				fputs(", \"description\": ", out);
				pv_json_string(out, pv_str(p, p->metrics.description[m]));
			}
			fprintf(out, ", \"total\": %" PRId64 ", \"default\": %s}", metric_total(p, m),
				m == p->meta.default_metric ? "true" : "false");
		}
		fprintf(out,
			"\n], \"samples\": %u, \"samples_without_stack\": %" PRIu64
			", \"functions\": %u, \"frames\": %u, \"stacks\": %u, \"modules\": %u"
			", \"sources\": %u, \"categories\": %u"
			", \"markers\": {\"total\": %u, \"instant\": %" PRIu64 ", \"interval\": %" PRIu64
			", \"start\": %" PRIu64 ", \"end\": %" PRIu64 "}, \"lossy\": [",
			p->samples.len, nostack, p->funcs.len, p->frames.len, p->stacks.len,
			p->modules.len, p->sources.len, p->categories.len, p->markers.len, phases[0],
			phases[1], phases[2], phases[3]);
		pv_str_ix lk[64], lu[64];
		uint64_t lv[64];
		uint32_t nl = label_keys(p, lk, lv, lu, 64);
		for (uint32_t i = 0; i < p->diags.len; i++) {
			fprintf(out, "%s\n  {\"what\": ", i ? "," : "");
			pv_json_string(out, pv_str(p, p->diags.msg[i]));
			fprintf(out, ", \"count\": %" PRIu64 "}", p->diags.count[i]);
		}
		fputs(p->diags.len ? "\n]" : "]", out);
		if (nl) { /* only profiles with labels (pprof) have the key */
			fputs(", \"labels\": [", out);
			for (uint32_t k = 0; k < nl; k++) {
				fputs(k ? ", {\"key\": " : "{\"key\": ", out);
				pv_json_string(out, pv_str(p, lk[k]));
				fprintf(out, ", \"values\": %" PRIu64 ", \"unit\": ", lv[k]);
				if (lu[k])
					pv_json_string(out, pv_str(p, lu[k]));
				else
					fputs("null", out);
				fputc('}', out);
			}
			fputc(']', out);
		}
		fputs("}\n", out);
		return;
	}
	char file[4096];
	pv_escape_controls(file, sizeof(file), path);
	fprintf(out, "file:       %s\n", file);
	fprintf(out, "format:     %s", pv_str(p, p->meta.format));
	if (p->meta.format_version)
		fprintf(out, " version %s", pv_str(p, p->meta.format_version));
	fputc('\n', out);
	if (p->meta.product)
		fprintf(out, "product:    %s\n", pv_str(p, p->meta.product));
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
	int nw = 4;
	for (uint32_t t = 0; t < p->threads.len; t++) {
		int l = (int)strlen(pv_str(p, p->threads.name[t]));
		if (l > nw)
			nw = l;
	}
	if (nw > 40)
		nw = 40;
	pv_metric_ix dm = p->meta.default_metric;
	char wh[64] = "";
	if (p->metrics.len)
		snprintf(wh, sizeof(wh), "%s", pv_str(p, p->metrics.name[dm]));
	if (p->threads.len)
		fprintf(out, "  %3s  %-*s %8s %8s %9s %12s %14s %14s  %s\n", "#", nw, "name", "pid",
			"tid", "rows", wh, "first (ms)", "last (ms)", "process");
	for (uint32_t t = 0; t < p->threads.len; t++) {
		int64_t lo, hi;
		thread_span(p, t, &lo, &hi);
		char pb[24], tb[24], lb[32], hb[32];
		id_text(pb, sizeof(pb), p->threads.pid[t]);
		id_text(tb, sizeof(tb), p->threads.tid[t]);
		fmt_time(lb, sizeof(lb), lo);
		fmt_time(hb, sizeof(hb), hi);
		int64_t wsum = 0;
		for (uint32_t s = p->threads.sample_begin[t]; p->metrics.len && s < p->threads.sample_end[t]; s++)
			wsum += pv_sample_weight(p, dm, s);
		char wb[32] = "";
		if (p->metrics.len)
			pv_format_cost(wb, sizeof(wb), wsum, p->metrics.unit[dm]);
		const char *pn = pv_str(p, p->threads.process_name[t]);
		fprintf(out, "  %3u  %-*s %8s %8s %9u %12s %14s %14s%s%s\n", t, nw,
			pv_str(p, p->threads.name[t]), pb, tb,
			p->threads.sample_end[t] - p->threads.sample_begin[t], wb, lb, hb,
			*pn ? "  " : "", pn);
	}
	fprintf(out, "metrics:    %u\n", p->metrics.len);
	for (uint32_t m = 0; m < p->metrics.len; m++) {
		char vb[32];
		enum pv_unit u = p->metrics.unit[m];
		pv_format_cost(vb, sizeof(vb), metric_total(p, m), u);
		const char *desc = pv_str(p, p->metrics.description[m]);
		bool say = *desc && strcmp(desc, pv_str(p, p->metrics.name[m])) != 0;
		fprintf(out, "  %s (%s): total %s%s%s%s\n", pv_str(p, p->metrics.name[m]),
			unit_label(u), vb, m == p->meta.default_metric ? " [default]" : "",
			say ? "  - " : "", say ? desc : "");
	}
	fprintf(out, "tables:     %u functions, %u frames, %u stacks, %u modules, %u sources, %u categories\n",
		p->funcs.len, p->frames.len, p->stacks.len, p->modules.len, p->sources.len,
		p->categories.len);
	pv_str_ix lk[64], lu[64];
	uint64_t lv[64];
	uint32_t nl = label_keys(p, lk, lv, lu, 64);
	if (nl) {
		fputs("labels:    ", out);
		for (uint32_t k = 0; k < nl; k++)
			fprintf(out, "%s %s (%" PRIu64 " value%s%s%s)", k ? "," : "", pv_str(p, lk[k]),
				lv[k], lv[k] == 1 ? "" : "s", lu[k] ? ", " : "",
				lu[k] ? pv_str(p, lu[k]) : "");
		fputs("  [--tag KEY=VALUE]\n", out);
	}
	fprintf(out,
		"markers:    %u raw (instant %" PRIu64 ", interval %" PRIu64 ", start %" PRIu64
		", end %" PRIu64 ")\n",
		p->markers.len, phases[0], phases[1], phases[2], phases[3]);
	if (p->diags.len == 0) {
		fputs("lossy:      nothing\n", out);
	} else {
		fprintf(out, "lossy:      %u kind%s of data not kept\n", p->diags.len,
			p->diags.len == 1 ? "" : "s");
		for (uint32_t i = 0; i < p->diags.len; i++)
			fprintf(out, "  %8" PRIu64 "  %s\n", p->diags.count[i],
				pv_str(p, p->diags.msg[i]));
	}
}
